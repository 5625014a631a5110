# SLEB checks of the sysfs and procfs interfaces, run by suite.sh.
S=/sys/kernel/slab

sleb_check "sysfs: every cache has cpu_queue_size" sh -c '
	n=0; for d in /sys/kernel/slab/*/; do [ -L "${d%/}" ] && continue
	[ -r "$d/cpu_queue_size" ] || { echo "missing in $d"; exit 1; }; n=$((n + 1)); done
	[ $n -gt 20 ]'
sleb_check "procfs: /proc/slabinfo shows the queue sizes as tunables" sh -c '
	q=$(cat /sys/kernel/slab/kmalloc-64/cpu_queue_size)
	b=$(cat /sys/kernel/slab/kmalloc-64/cpu_batch_size)
	sh=$(cat /sys/kernel/slab/kmalloc-64/shared_queue_size)
	grep "^kmalloc-64 " /proc/slabinfo | grep -q ": tunables *$q *$b *$sh :"'
sleb_check "slabtop reads /proc/slabinfo" sh -c 'slabtop -o -s c | grep -q kmalloc-64'
sleb_check "tools/mm/slabinfo runs" sh -c 'slabinfo -T && slabinfo | grep -q kmalloc-64'
sleb_check "tools/mm/slabinfo -a lists aliases" slabinfo -a

# Rewrite the tunables of busy caches while hackbench runs on every CPU.
tune_loop() {
	i=0
	while [ $i -lt 60 ]; do
		for c in kmalloc-512 kmalloc-256 skbuff_head_cache kmalloc-64; do
			[ -d $S/$c ] || continue
			q=$((4 + (i * 37 + ${#c}) % 300))
			echo $q > $S/$c/cpu_queue_size || return 1
			echo $(((q + 1) / 2)) > $S/$c/cpu_batch_size || return 1
			echo $(((i * 13) % 400)) > $S/$c/shared_queue_size || return 1
			[ $((i % 10)) = 0 ] && echo 1 > $S/$c/shrink
		done
		i=$((i + 1))
	done
}
tune_under_load() {
	hackbench -g 4 -l 400 >/tmp/hb.out 2>&1 &
	hb=$!
	tune_loop; rc=$?
	wait $hb || return 1
	return $rc
}
sleb_check "tunables rewritten in a loop during hackbench" tune_under_load

# Offline and online every secondary CPU SLEB_HOTPLUG_CYCLES times (10;
# 100 with "scripts/sleb test --soak") while hackbench and stress-ng run.
# A dying CPU's queues are flushed (KUnit test_dead_cpu_flushed counts
# that); here the kernel must survive and every cache validate clean.
cycles=${SLEB_HOTPLUG_CYCLES:-10}
hotplug_loop() {
	rm -f /tmp/hp.stop /tmp/hp.fail
	(
		while [ ! -e /tmp/hp.stop ]; do
			hackbench -T -g 4 -l 100 >/dev/null 2>&1 || echo hackbench >>/tmp/hp.fail
		done
	) &
	hb=$!
	# Rounds of its own timeout: a stress-ng told to stop by SIGINT did not
	# exit within 5 minutes under KASAN.  One that does not end 60 s after
	# its timeout is killed (its stressors die with it) and noted, not
	# counted: that is stress-ng's shutdown, not the kernel.
	(
		while [ ! -e /tmp/hp.stop ]; do
			timeout -s KILL 60 stress-ng --timeout 5 --fork 1 --sock 1 --dentry 1 \
				--no-rand-seed >/tmp/hp-stress.out 2>&1
			case $? in
			0) ;;
			124 | 137) echo "stress-ng round killed after 60 s" ;;
			*) echo stress-ng >>/tmp/hp.fail ;;
			esac
		done
	) &
	sn=$!
	rc=0 i=0
	while [ "$i" -lt "$cycles" ] && [ "$rc" = 0 ]; do
		for c in /sys/devices/system/cpu/cpu[1-9]*; do
			[ -w "$c/online" ] || continue
			echo 0 >"$c/online" || { echo "cycle $i: offlining ${c##*/} failed"; rc=1; }
			echo 1 >"$c/online" || { echo "cycle $i: onlining ${c##*/} failed"; rc=1; }
		done
		i=$((i + 1))
	done
	touch /tmp/hp.stop
	wait "$hb"
	wait "$sn"
	[ -e /tmp/hp.fail ] && { echo "failed during the loop: $(sort /tmp/hp.fail | uniq -c)"; rc=1; }
	return $rc
}
if [ -w /sys/devices/system/cpu/cpu1/online ]; then
	sleb_check "CPU offline/online x$cycles during hackbench and stress-ng" hotplug_loop
	sleb_check "after CPU hotplug: every cache validates clean" validate_all
else
	sleb_skip "CPU offline/online during hackbench and stress-ng" "no second CPU"
fi

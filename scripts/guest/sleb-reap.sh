# SLEB's reaper and shrinker, sourced by suite.sh: idle queues and shared
# arrays shrink by themselves, drop_caches empties them, and the reap
# interval is a checked module parameter.
param=/sys/module/sleb/parameters/reap_interval_ms

# queued_total: set QT to the objects in all per-cpu queues and shared
# arrays.  Only shell builtins: a fork and exit would refill queues.
queued_total() {
	QT=0
	for c in /sys/kernel/slab/*; do
		[ -L "$c" ] && continue
		read -r q _ <"$c/queued_objects"
		read -r sh _ <"$c/shared_objects"
		QT=$((QT + q + sh))
	done
}

# reap_events: set RE to the reaper passes that gave something back, summed
# over caches (0 without CONFIG_SLEB_STATS).
reap_events() {
	RE=0
	for c in /sys/kernel/slab/*; do
		[ -L "$c" ] || [ ! -r "$c/queue_reap" ] && continue
		read -r r _ <"$c/queue_reap"
		RE=$((RE + r))
	done
}

# check_drop NAME Q0 Q1: pass if Q1 is below a quarter of Q0 (drop_limit).  Under KASAN
# the quarantine goes on releasing objects into the queues while they are
# measured (and each release marks the queue busy), so there Q1 must only be
# below three quarters of Q0.
kasan=0
zcat /proc/config.gz | grep -q '^CONFIG_KASAN=y' && kasan=1
drop_limit() {
	limit=$(($1 / 4)) want="a quarter"
	[ "$kasan" = 1 ] && limit=$(($1 * 3 / 4)) want="three quarters (KASAN)"
}
check_drop() {
	drop_limit "$2"
	if [ "$3" -lt "$limit" ]; then
		sleb_ok "$1"
	else
		sleb_fail "$1"
	fi
	sleb_note "$2 -> $3 objects, want less than $want"
}

reap_param_abi() {
	[ "$(cat $param)" = 2000 ] || { echo "default $(cat $param), want 2000"; return 1; }
	for bad in 50 600001 x -1 ""; do
		if echo "$bad" >$param 2>/dev/null; then
			echo "'$bad' accepted"
			return 1
		fi
		[ "$(cat $param)" = 2000 ] || { echo "'$bad' changed it to $(cat $param)"; return 1; }
	done
	echo 500 >$param && [ "$(cat $param)" = 500 ] || return 1
	echo 2000 >$param
}

if [ -f "$param" ]; then
	sleb_check "reap: reap_interval_ms defaults to 2000, rejects 50, 600001, x, -1, empty" reap_param_abi

	# drop_caches runs the shrinker, which empties every queue at once.
	# The reaper is slowed down meanwhile; a second drop catches the
	# dentries and inodes the first one freed through RCU.
	echo 600000 >$param
	hackbench -g 4 -l 100 >/dev/null 2>&1
	queued_total
	q0=$QT
	echo 2 >/proc/sys/vm/drop_caches
	sleep 1
	echo 2 >/proc/sys/vm/drop_caches
	queued_total
	q1=$QT
	check_drop "shrinker: drop_caches takes most queued objects" "$q0" "$q1"

	# Idle queues shrink: with a pass every 200 ms (a write takes effect
	# at once), idle after hackbench gives back most of what the queues
	# hold.  The work is deferrable: an idle CPU runs it only when something
	# else wakes it, so the time it takes varies (10 s were not always
	# enough on a loaded host): the queues are read every 2 s, up to 30 s.
	echo 200 >$param
	hackbench -g 4 -l 100 >/dev/null 2>&1
	# Wait on a FIFO nobody writes: "sleep" would fork and fill queues.
	rm -f /tmp/reap.fifo
	mkfifo /tmp/reap.fifo
	exec 3<>/tmp/reap.fifo
	reap_events
	r0=$RE
	queued_total
	q0=$QT
	t=0
	if [ "$kasan" = 1 ]; then
		# No early exit: the count is not judged, queue_reap is.
		read -r -t 10 _ <&3
		t=10
		queued_total
		q1=$QT
	else
		# The reaper's work is deferrable: poll up to 30 s.
		drop_limit "$q0"
		while [ "$t" -lt 30 ]; do
			read -r -t 2 _ <&3
			t=$((t + 2))
			queued_total
			q1=$QT
			[ "$q1" -lt "$limit" ] && break
		done
	fi
	reap_events
	r1=$RE
	exec 3>&-
	echo 2000 >$param
	if [ "$kasan" = 1 ]; then
		# KASAN's quarantine releases objects into the queues whenever an
		# allocation (reading sysfs here) reduces it, so their count is not
		# the reaper's; queue_reap below is the check there.
		echo "reap: queued objects $q0 -> $q1 after $t s idle (not judged under KASAN)"
	else
		check_drop "reap: most queued objects given back while idle" "$q0" "$q1"
		sleb_note "after $t s idle"
	fi
	if [ -r /sys/kernel/slab/kmalloc-64/queue_reap ]; then
		if [ "$r1" -gt "$r0" ]; then
			sleb_ok "reap: queue_reap counts reaping passes while idle"
		else
			sleb_fail "reap: queue_reap counts reaping passes while idle"
		fi
		sleb_note "queue_reap $r0 -> $r1"
	fi
else
	sleb_fail "reap: $param exists"
fi

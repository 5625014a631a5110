# Boot with --numa=2: two nodes, one CPU each.  KUnit ran the placement and
# remote-free cases at boot; here the per-node view and a two-node workload.
. /sleb/lib.sh
sleb_check "numa: the guest has two nodes" test -d /sys/devices/system/node/node1
sleb_check "numa: per-node counts in sysfs (N0= N1=)" sh -c '
	grep -q " N0=[0-9]* N1=[0-9]*" /sys/kernel/slab/kmalloc-64/total_objects'
sleb_check "numa: hackbench sockets across both nodes" hackbench -g 4 -l 200
sleb_check "numa: hackbench pipes threads across both nodes" hackbench -p -T -g 4 -l 200
sleb_check "numa: per-node objects add up to the total" sh -c '
	set -- $(cat /sys/kernel/slab/kmalloc-256/total_objects)
	t=$1; shift; sum=0
	for f; do sum=$((sum + ${f#N*=})); done
	[ "$sum" = "$t" ]'

# Placement by memory policy and cpuset (tools/testing/selftests/sleb).
echo "SLEB-KSFT-BEGIN: sleb_numa_test"
/kselftest/sleb_numa_test 2>&1 | sed 's/^/SLEB-KSFT: /'
echo "SLEB-KSFT-END: sleb_numa_test"

# A cross-node producer/consumer run: kbench case 8 allocates n objects on
# the CPU of node 1 and frees them all on the CPU of node 0, which then
# allocates n again.  Remote frees go back to node 1, so every one of those
# allocations must be served with a node-0 object.
ko=/kbench/slab_bench.ko
if [ -f "$ko" ]; then
	dmesg -c >/dev/null
	sleb_check "numa: kbench remote free case, n=2000, 64 and 1024 bytes" \
		insmod "$ko" n=2000 sizes=64,1024 tests=8
	rmmod slab_bench 2>/dev/null
	dmesg >/tmp/numa-kbench.log
	for size in 64 1024; do
		line=$(grep -o "remote_local size=$size local=[0-9]* of=[0-9]*" /tmp/numa-kbench.log)
		local_nr=${line#*local=}
		local_nr=${local_nr%% *}
		of=${line##*of=}
		if [ -n "$line" ] && [ "$of" -gt 0 ] && [ "$local_nr" = "$of" ]; then
			sleb_ok "numa: after remote frees, $local_nr of $of kmalloc-$size allocations local"
		else
			sleb_fail "numa: after remote frees, all kmalloc-$size allocations local (${line:-no remote_local line})"
		fi
	done
else
	sleb_fail "numa: $ko in the guest"
fi

# Boot with --numa=2 or 4: two nodes with one CPU each, and with 4 two more
# nodes with memory but no CPU.  KUnit ran the placement (every node) and
# remote-free cases at boot; here the per-node view and a workload.
. /sleb/lib.sh
nodes=$(ls -d /sys/devices/system/node/node[0-9]* | wc -l)
mem_nodes=$(cat /sys/devices/system/node/has_normal_memory)
sleb_check "numa: the guest has $nodes nodes" test "$nodes" -ge 2
# has_normal_memory is a list such as 0-3 or 0,2: one Nn= per such node.
want=$(echo "$mem_nodes" | awk -F, '{ for (i = 1; i <= NF; i++) {
	n = split($i, r, "-"); for (j = r[1]; j <= r[n]; j++) printf " N%d=[0-9]*", j } }')
sleb_check "numa: per-node counts in sysfs for nodes $mem_nodes" sh -c "
	grep -q '$want' /sys/kernel/slab/kmalloc-64/total_objects"
sleb_check "numa: hackbench sockets across the nodes" hackbench -g 4 -l 200
sleb_check "numa: hackbench pipes threads across the nodes" hackbench -p -T -g 4 -l 200
sleb_check "numa: per-node objects add up to the total" sh -c '
	set -- $(cat /sys/kernel/slab/kmalloc-256/total_objects)
	t=$1; shift; sum=0
	for f; do sum=$((sum + ${f#N*=})); done
	[ "$sum" = "$t" ]'

# Placement by memory policy (tools/testing/selftests/sleb).
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
			sleb_ok "numa: after remote frees, all kmalloc-$size allocations local"
		else
			sleb_fail "numa: after remote frees, all kmalloc-$size allocations local"
		fi
		sleb_note "${line:-no remote_local line}"
	done
else
	sleb_fail "numa: $ko in the guest"
fi

# The burst footprint on two nodes: 100 MiB allocated and freed on the CPU
# of node 0, then 100 MiB on the CPU of node 1.
[ -f "$ko" ] && . /sleb/guest/burst.sh && burst_check "numa: burst" 0 100 1 100

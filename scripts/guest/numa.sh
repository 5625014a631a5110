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

# Boot with --numa=2 --dimm-node: node 1 has CPU 1 but no memory, and a
# DIMM of node 1 is plugged, offline.  CPU 1 is first served from node 0;
# then the DIMM goes online, the memory hotplug notifier gives every cache
# its node 1 structures and CPU 1 its own node; then the DIMM is offlined
# again, which the kernel may refuse (slab pages are not movable).
. /sleb/lib.sh

objs=/sys/kernel/slab/kmalloc-64/total_objects
node1=/sys/devices/system/node/node1

sleb_check "memhp: node 1 has CPU 1" test -e $node1/cpu1
sleb_check "memhp: node 1 boots without memory" node_without_memory 1
sleb_check "memhp: caches have no node 1 structures yet (no N1= in total_objects)" \
	sh -c "! grep -q ' N1=' $objs"
sleb_check "memhp: hackbench on CPU 1, whose node has no memory" \
	taskset 2 hackbench -g 2 -l 100
sleb_check "memhp: hackbench sockets on both CPUs" hackbench -g 4 -l 100
sleb_check "memhp: stress-ng on both CPUs" stress-ng --timeout 5 --fork 2 --sock 2 \
	--dentry 2 --no-rand-seed

blocks=""
for b in /sys/devices/system/memory/memory*; do
	[ -e "$b/node1" ] && [ "$(cat "$b/state")" = offline ] && blocks="$blocks $b"
done
sleb_check "memhp: the DIMM's memory blocks are on node 1, offline" test -n "$blocks"

online_dimm() {
	for b in $blocks; do
		echo online_kernel >"$b/state" || return 1
	done
}
sleb_check "memhp: the DIMM goes online (online_kernel)" online_dimm
sleb_check "memhp: node 1 has memory now" node_has_memory 1
sleb_check "memhp: caches have node 1 structures (N1= in total_objects)" grep -q " N1=" $objs
sleb_check "memhp: hackbench on CPU 1 with its own node's memory" \
	taskset 2 hackbench -g 2 -l 100

# Now the two-node checks, placement and the cross-node run included.
. /sleb/guest/numa.sh

# Offlining waits for pages to migrate; a SIGTERM after 20 s ends it.
offline_dimm() {
	for b in $blocks; do
		timeout 20 sh -c "echo offline >$b/state" 2>/dev/null || return 1
	done
}
if offline_dimm; then
	sleb_ok "memhp: the DIMM went offline again"
	sleb_check "memhp: node 1 has no memory again" node_without_memory 1
else
	sleb_ok "memhp: offlining the DIMM refused or interrupted (unmovable pages on it)"
fi
sleb_check "memhp: hackbench on both CPUs afterwards" hackbench -g 4 -l 100

# Boot with --numa=2 --mem=6G and kernelcore=1G: node 0 is the low 3 GiB,
# all of it kernel memory, and node 1 lies above 4 GiB; kernelcore=1G is
# taken from node 0, so node 1's memory is all ZONE_MOVABLE.  Node 1 has
# memory but no normal memory at boot.  One of its memory blocks goes
# offline and comes back as kernel memory: node 1 gets normal memory with
# no node hotplug event (it had memory all along).  Tasks in a cpuset of
# node 1 then allocate, and the page allocator places their slabs there.
. /sleb/lib.sh

node1=/sys/devices/system/node/node1
states=/sys/devices/system/node

node1_normal() {
	grep -Eq '(^|,)(1|0-[1-9])' $states/has_normal_memory
}

node1_not_normal() {
	! node1_normal
}

sleb_check "movable: node 1 has memory" node_has_memory 1
sleb_check "movable: node 1 has no normal memory at boot" node1_not_normal
sleb_note "has_normal_memory: $(cat $states/has_normal_memory)"

# The first block of node 1 that can go offline: one with an unmovable
# page on it (early boot allocations, pinned pages) refuses.
block=""
for b in $node1/memory*; do
	[ "$(cat "$b/state")" = online ] || continue
	if echo offline >"$b/state" 2>/dev/null; then
		block=$b
		break
	fi
done
sleb_check "movable: a memory block of node 1 goes offline" test -n "$block"
sleb_note "${block##*/} valid zones: $(cat "$block/valid_zones" 2>/dev/null)"
sleb_check "movable: the block comes back as kernel memory" \
	sh -c "echo online_kernel > $block/state"
sleb_check "movable: node 1 has normal memory now" node1_normal

cg=/sys/fs/cgroup
grep -q " $cg cgroup2 " /proc/mounts || mount -t cgroup2 none $cg
echo +cpuset >$cg/cgroup.subtree_control
mkdir -p $cg/node1
echo 0-1 >$cg/node1/cpuset.cpus
echo 1 >$cg/node1/cpuset.mems
sleb_check "movable: a cpuset of node 1's memory" grep -qx 1 $cg/node1/cpuset.mems.effective

slab_before=$(awk '/ Slab:/ {print $4}' $node1/meminfo)
in_node1() {
	sh -c 'echo $$ > "$0" && exec "$@"' $cg/node1/cgroup.procs "$@"
}
sleb_check "movable: hackbench sockets in the cpuset of node 1" in_node1 hackbench -g 4 -l 200
sleb_check "movable: hackbench pipes threads in the cpuset of node 1" \
	in_node1 hackbench -p -T -g 4 -l 200
sleb_check "movable: stress-ng in the cpuset of node 1" in_node1 stress-ng --timeout 5 \
	--fork 2 --sock 2 --dentry 2 --no-rand-seed
slab_after=$(awk '/ Slab:/ {print $4}' $node1/meminfo)
sleb_note "node 1 Slab: ${slab_before} kB before, ${slab_after} kB after"
sleb_check "movable: more slabs on node 1 after the cpuset's tasks ran" test "${slab_after:-0}" -gt "${slab_before:-0}"
echo 1 >/proc/sys/vm/drop_caches
sleb_check "movable: hackbench on both nodes afterwards" hackbench -g 4 -l 100

# The default guest script of "scripts/sleb run": show the allocator at work.
echo "== kernel: $(uname -r), allocator: $(zcat /proc/config.gz | sed -n 's/^CONFIG_\(SL[AEOU]B\)=y$/\1/p')"
echo "== /proc/meminfo"
grep -E '^(MemTotal|Slab|SReclaimable|SUnreclaim):' /proc/meminfo
if [ -r /proc/slabinfo ]; then
	echo "== head of /proc/slabinfo"
	head -n 14 /proc/slabinfo
fi
if [ -d /sys/kernel/slab/kmalloc-64 ]; then
	echo "== /sys/kernel/slab/kmalloc-64"
	for f in object_size objs_per_slab order cpu_queue_size cpu_batch_size shared_queue_size sheaf_capacity objects total_objects; do
		[ -r /sys/kernel/slab/kmalloc-64/$f ] && printf '%-18s %s\n' "$f" "$(cat /sys/kernel/slab/kmalloc-64/$f)"
	done
fi
echo "== hackbench -g 4 -l 200 (sockets, processes)"
hackbench -g 4 -l 200

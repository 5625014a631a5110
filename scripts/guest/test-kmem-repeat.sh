# Run the cgroup kselftest test_kmem several times in one boot (6, or
# SLEB_KMEM_RUNS from --append) and print each run's
# test_kmem_memcg_deletion result, with the figures the test prints when
# it fails: how often the base's bound is exceeded, with either allocator
# (scripts/known-failures).  Not part of scripts/sleb test:
#   scripts/sleb run --alloc=slub --script=scripts/guest/test-kmem-repeat.sh
runs=6
for a in $(cat /proc/cmdline); do
	case $a in SLEB_KMEM_RUNS=*) runs=${a#*=} ;; esac
done
root=/mnt/kmem-root
dd if=/dev/zero of=/tmp/kmem-root.img bs=1M count=32 2>/dev/null &&
	mke2fs -q -F /tmp/kmem-root.img 32768 &&
	mkdir -p $root &&
	mount -o loop /tmp/kmem-root.img $root &&
	mkdir -p $root/proc $root/sys $root/bin &&
	mount -t proc proc $root/proc &&
	mount -t sysfs sysfs $root/sys &&
	mount -t cgroup2 cgroup2 $root/sys/fs/cgroup &&
	cp /kselftest-cgroup/test_kmem $root/bin/ || exit 1
fails=0
i=1
while [ $i -le "$runs" ]; do
	chroot $root /bin/test_kmem 2>&1 | awk '!seen[$0]++' >/tmp/kmem.out
	r=$(grep -E "^(not )?ok .* test_kmem_memcg_deletion$" /tmp/kmem.out)
	echo "run $i: $r"
	case $r in
	"not ok"*)
		fails=$((fails + 1))
		grep -E "^(memory.current|anon \+ file) " /tmp/kmem.out | sed 's/^/    /'
		;;
	esac
	i=$((i + 1))
done
echo "test_kmem_memcg_deletion failed $fails of $runs runs ($(nproc) CPUs, bound 64 pages per CPU)"

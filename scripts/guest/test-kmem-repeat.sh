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
. /sleb/guest/kmem-root.sh
kmem_prepare_root && cp /kselftest-cgroup/test_kmem $kmem_root/bin/ || exit 1
fails=0
i=1
while [ $i -le "$runs" ]; do
	chroot $kmem_root /bin/test_kmem 2>&1 | awk '!seen[$0]++' >/tmp/kmem.out
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

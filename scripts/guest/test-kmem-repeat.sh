# Run the cgroup kselftest test_kmem several times in one boot (6, or
# SLEB_KMEM_RUNS from --append) and print each run's result of the cases
# whose bounds leave out what 7.3's memcg keeps per CPU
# (scripts/known-failures), with the figures a case prints when it
# fails: how often a bound is exceeded, with either allocator.  Not part
# of scripts/sleb test:
#   scripts/sleb run --alloc=slub --script=scripts/guest/test-kmem-repeat.sh
runs=6
cases="test_kmem_memcg_deletion test_percpu_basic"
for a in $(cat /proc/cmdline); do
	case $a in SLEB_KMEM_RUNS=*) runs=${a#*=} ;; esac
done
. /sleb/guest/kmem-root.sh
kmem_prepare_root && cp /kselftest-cgroup/test_kmem $kmem_root/bin/ || exit 1
for c in $cases; do
	echo 0 >/tmp/kmem-fails.$c
done
i=1
while [ $i -le "$runs" ]; do
	chroot $kmem_root /bin/test_kmem 2>&1 | awk '!seen[$0]++' >/tmp/kmem.out
	for c in $cases; do
		r=$(grep -E "^(not )?ok .* $c\$" /tmp/kmem.out)
		echo "run $i: $r"
		case $r in
		"not ok"*)
			echo $(($(cat /tmp/kmem-fails.$c) + 1)) >/tmp/kmem-fails.$c
			kmem_case_figures /tmp/kmem.out "$c" | sed 's/^/    /'
			;;
		esac
	done
	i=$((i + 1))
done
for c in $cases; do
	echo "$c failed $(cat /tmp/kmem-fails.$c) of $runs runs ($(nproc) CPUs, bound 64 pages per CPU)"
done

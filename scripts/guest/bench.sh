# The guest half of "scripts/sleb bench": every measurement is one line
#   SLEB-BENCH: <kind> key=value ...
# that the host collects from the console.  The host's wrapper sets:
#   SLEB_BENCH_LOOPS       hackbench loops of one group; G groups run LOOPS/G loops
#   SLEB_BENCH_KBENCH_N    objects per case of the kbench module (n=)
#   SLEB_BENCH_RR_SECONDS  seconds of each sleb_rr run
#   SLEB_BENCH_RECLAIM_SECONDS  seconds of the reclaim phase
# A measurement that fails prints "SLEB-BENCH: error ..." and the script goes
# on; it exits 1 if anything failed.
loops1=${SLEB_BENCH_LOOPS:-800}
kbench_n=${SLEB_BENCH_KBENCH_N:-10000}
rr_seconds=${SLEB_BENCH_RR_SECONDS:-2}
reclaim_seconds=${SLEB_BENCH_RECLAIM_SECONDS:-10}
status=0

bench() { echo "SLEB-BENCH: $*"; }
bench_error() {
	echo "SLEB-BENCH: error $*"
	status=1
}

# Slab and SUnreclaim of /proc/meminfo in kB, without forking.
read_slab_kb() {
	slab_kb=0
	sunreclaim_kb=0
	while read -r key value _; do
		case $key in
		Slab:) slab_kb=$value ;;
		SUnreclaim:) sunreclaim_kb=$value ;;
		esac
	done </proc/meminfo
}

mem() {
	read_slab_kb
	bench "mem phase=$1 slab_kb=$slab_kb sunreclaim_kb=$sunreclaim_kb"
}

# Partial slabs: the sum of /sys/kernel/slab/*/partial (real caches, not
# alias links; SLEB and SLUB both have the file).
slabs() {
	total=0
	for d in /sys/kernel/slab/*; do
		[ -L "$d" ] && continue
		[ -r "$d/partial" ] || continue
		read -r p rest <"$d/partial"
		total=$((total + p))
	done
	bench "slabs phase=$1 partial=$total source=sysfs"
}

loops_for() {
	l=$((loops1 / $1))
	[ "$l" -ge 1 ] || l=1
	echo "$l"
}

# hackbench_run MODE KIND GROUPS
hackbench_run() {
	l=$(loops_for "$3")
	set -- "$1" "$2" "$3" -g "$3" -l "$l"
	[ "$1" = pipe ] && set -- "$@" -p
	[ "$2" = thread ] && set -- "$@" -T
	mode=$1 kind=$2 groups=$3
	shift 3
	if out=$(hackbench "$@" 2>&1); then
		t=$(echo "$out" | sed -n 's/^Time: *\([0-9.]*\).*/\1/p' | tail -n 1)
	else
		t=""
	fi
	if [ -n "$t" ]; then
		bench "hackbench mode=$mode kind=$kind groups=$groups seconds=$t loops=$l"
	else
		echo "$out" | tail -n 5
		bench_error "hackbench mode=$mode kind=$kind groups=$groups failed"
	fi
}

echo "SLEB-BENCH: info alloc=$SLEB_ALLOC variant=$SLEB_VARIANT cpus=$(nproc) kernel=$(uname -r)"

# Memory: after boot, at the peak of a hackbench run (sampled every 0.2 s),
# after the run and 10 s idle.
mem boot
slabs boot
rm -f /tmp/bench-stop
(
	max_slab=0
	max_sunreclaim=0
	while [ ! -f /tmp/bench-stop ]; do
		read_slab_kb
		[ "$slab_kb" -gt "$max_slab" ] && max_slab=$slab_kb
		[ "$sunreclaim_kb" -gt "$max_sunreclaim" ] && max_sunreclaim=$sunreclaim_kb
		echo "$max_slab $max_sunreclaim" >/tmp/bench-peak.tmp
		mv /tmp/bench-peak.tmp /tmp/bench-peak
		sleep 0.2
	done
) &
sampler=$!
hackbench -g 8 -l "$(($(loops_for 8) * 3))" >/tmp/bench-mem.out 2>&1 ||
	bench_error "hackbench for the memory peak failed: $(tail -n 1 /tmp/bench-mem.out)"
touch /tmp/bench-stop
wait "$sampler"
read -r peak_slab peak_sunreclaim </tmp/bench-peak
bench "mem phase=peak slab_kb=$peak_slab sunreclaim_kb=$peak_sunreclaim"
sleep 10
mem idle
slabs idle

# The kbench module: its lines come from the kernel log (kept off the
# console while it runs: warnings and worse still show).
if [ -f /kbench/slab_bench.ko ]; then
	dmesg -c >/dev/null
	dmesg -n 5
	if insmod /kbench/slab_bench.ko n="$kbench_n"; then
		rmmod slab_bench || bench_error "kbench: rmmod slab_bench failed"
	else
		bench_error "kbench: insmod slab_bench failed"
	fi
	dmesg -n 7
	dmesg >/tmp/bench-kbench.log
	sed -n 's/^.*slab_bench: \(case=.*\)$/SLEB-BENCH: kbench \1/p' /tmp/bench-kbench.log
	grep -q 'slab_bench: done cases=' /tmp/bench-kbench.log || bench_error "kbench: no done line"
	grep -q 'slab_bench: case=.* error=' /tmp/bench-kbench.log && bench_error "kbench: some cases failed"
else
	bench_error "kbench: /kbench/slab_bench.ko not in the guest"
fi

# hackbench: sockets and pipes, processes and threads, 1, 4 and 8 groups.
for mode in socket pipe; do
	for kind in process thread; do
		for groups in 1 4 8; do
			hackbench_run "$mode" "$kind" "$groups"
		done
	done
done

# Loopback request/response, one pair.
for proto in tcp udp unix; do
	line=$(sleb_rr -p "$proto" -t "$rr_seconds" 2>/tmp/bench-rr.err | grep '^sleb_rr: proto=')
	case $line in
	*rate=*) bench "rr proto=$proto rate=${line##*rate=} pairs=1 seconds=$rr_seconds" ;;
	*) bench_error "rr proto=$proto failed: $(tail -n 1 /tmp/bench-rr.err)" ;;
	esac
done

# Reclaim, last (it leaves the page cache and the slabs shrunk):
# stress-ng --vm maps and touches 90% of the available memory over and
# over while hackbench keeps slab objects moving, so that kswapd and direct
# reclaim call the shrinkers all along.  Reported: function-call IPIs per
# second (the CAL line of /proc/interrupts, summed over the CPUs: what
# on_each_cpu() and smp_call_function*() cost the other CPUs), and Slab,
# sampled once a second (mean and maximum).
cal_total() {
	awk '$1 == "CAL:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' /proc/interrupts
}

rm -f /tmp/reclaim-stop
(
	while [ ! -f /tmp/reclaim-stop ]; do
		hackbench -g 2 -l 50 >/dev/null 2>&1
	done
) &
loader=$!
cal0=$(cal_total)
stress-ng --vm 1 --vm-bytes 90% --timeout "$reclaim_seconds" --no-rand-seed >/tmp/bench-reclaim.out 2>&1 &
stressor=$!
sum=0
n=0
max=0
while [ "$n" -lt "$reclaim_seconds" ]; do
	sleep 1
	read_slab_kb
	sum=$((sum + slab_kb))
	n=$((n + 1))
	[ "$slab_kb" -gt "$max" ] && max=$slab_kb
done
wait "$stressor" || bench_error "reclaim: stress-ng --vm failed: $(tail -n 1 /tmp/bench-reclaim.out)"
cal1=$(cal_total)
touch /tmp/reclaim-stop
wait "$loader"
bench "reclaim seconds=$reclaim_seconds ipis_per_s=$(((cal1 - cal0) / reclaim_seconds)) slab_kb_mean=$((sum / n)) slab_kb_max=$max"

exit "$status"

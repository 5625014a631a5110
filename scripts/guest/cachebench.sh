# The guest half of "scripts/sleb bench --cache": the kbench module with
# cache_marks=1 and hackbench between markers, under the cache model
# (tools/testing/sleb/cachesim).  Every measurement is one line
#   SLEB-BENCH: <kind> key=value ... region=<r> ...
# that the host joins with the model's region <r>.  The host's wrapper sets:
#   SLEB_CACHE_N          objects of the seq, pair and bulk cases (n=)
#   SLEB_CACHE_SIZES      object sizes, comma separated
#   SLEB_CACHE_TESTS      the kbench cases (tests=), e.g. 51 or 8
#   SLEB_CACHE_EVICT_KB   KiB read to evict the cold case's objects
#   SLEB_CACHE_HACKBENCH  hackbench runs as MODE:GROUPS:LOOPS, or empty
status=0
n=${SLEB_CACHE_N:-1000}
sizes=${SLEB_CACHE_SIZES:-64,256,1024}
tests=${SLEB_CACHE_TESTS:-51}
evict_kb=${SLEB_CACHE_EVICT_KB:-4096}

bench() { echo "SLEB-BENCH: $*"; }
bench_error() {
	echo "SLEB-BENCH: error $*"
	status=1
}

echo "SLEB-BENCH: info alloc=$SLEB_ALLOC variant=$SLEB_VARIANT cpus=$(nproc) kernel=$(uname -r)"

if [ -f /kbench/slab_bench.ko ]; then
	dmesg -c >/dev/null
	dmesg -n 5
	if insmod /kbench/slab_bench.ko n="$n" sizes="$sizes" tests="$tests" evict_kb="$evict_kb" cache_marks=1; then
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

# hackbench between markers: the whole run, processes, kernel and
# allocator; regions 60001 and up.  One op is one message: each of the 20
# senders of a group sends LOOPS messages to each of its 20 receivers.
region=60000
for run in ${SLEB_CACHE_HACKBENCH:-}; do
	mode=${run%%:*}
	rest=${run#*:}
	groups=${rest%%:*}
	loops=${rest#*:}
	region=$((region + 1))
	set -- -g "$groups" -l "$loops"
	[ "$mode" = pipe ] && set -- "$@" -p
	sleb_cachemark begin "$region"
	if hackbench "$@" >/tmp/cache-hackbench.out 2>&1; then
		sleb_cachemark end
		bench "cache_hackbench mode=$mode groups=$groups loops=$loops region=$region ops=$((groups * 400 * loops))"
	else
		sleb_cachemark end
		bench_error "hackbench mode=$mode groups=$groups loops=$loops failed: $(tail -n 1 /tmp/cache-hackbench.out)"
	fi
done

exit "$status"

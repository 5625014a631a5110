# Smoke test of the kbench module (tools/testing/sleb/kbench): load it with a
# tiny n, check that every case printed its cycles_per_op line and the done
# line, unload it.  The host puts the module at /kbench/slab_bench.ko
# (kbench_smoke in scripts/sleb-test.sh).
. /sleb/lib.sh

ko=/kbench/slab_bench.ko
sizes="64 1024"
log=/tmp/kbench-smoke.log

if [ ! -f "$ko" ]; then
	sleb_fail "kbench: $ko in the guest"
	exit 0
fi
dmesg -c >/dev/null
sleb_check "kbench: insmod slab_bench n=100 sizes=64,1024" insmod "$ko" n=100 sizes=64,1024
sleb_check "kbench: rmmod slab_bench" rmmod slab_bench
sleb_check "kbench: slab_bench unloaded" sh -c '! grep -q "^slab_bench " /proc/modules'
dmesg >"$log"

# The cases every size must report (remote_* only with two CPUs or more).
# The module runs on every online CPU, isolated ones too (lockdep-kbench
# boots with CPU 1 isolated), where nproc counts only those this shell
# may run on.
cases="seq_alloc seq_free pair"
for c in alloc free pair; do
	cases="$cases conc_${c}_avg conc_${c}_max"
done
[ "$(grep -c '^processor' /proc/cpuinfo)" -ge 2 ] && cases="$cases remote_alloc remote_free"

missing=""
want=0
for size in $sizes; do
	for c in $cases; do
		want=$((want + 1))
		grep -Eq "slab_bench: case=$c size=$size( cpus=[0-9]+)? cycles_per_op=[0-9]+\$" "$log" ||
			missing="$missing $c/$size"
	done
	for c in bulk_alloc bulk_free bulk_pair; do
		for k in 1 2 4 8 16 32 64 128 256; do
			want=$((want + 1))
			grep -Eq "slab_bench: case=$c size=$size bulk=$k cycles_per_op=[0-9]+\$" "$log" ||
				missing="$missing $c/$size/$k"
		done
	done
	# The cold case, at its default counts (below and above the queues).
	for c in cold_free cold_alloc; do
		for k in 32 1024; do
			want=$((want + 1))
			grep -Eq "slab_bench: case=$c size=$size count=$k cycles_per_op=[0-9]+\$" "$log" ||
				missing="$missing $c/$size/$k"
		done
	done
done
if [ -z "$missing" ]; then
	sleb_ok "kbench: all $want cases report cycles_per_op"
else
	grep 'slab_bench' "$log" | tail -n 15
	sleb_fail "kbench: cases without a cycles_per_op line:$missing"
fi

if grep -q 'slab_bench: .*error=' "$log"; then
	grep 'slab_bench: .*error=' "$log" | head -n 10
	sleb_fail "kbench: no case reports an error"
else
	sleb_ok "kbench: no case reports an error"
fi

got=$(grep -c 'slab_bench: case=.* cycles_per_op=' "$log")
if grep -q "slab_bench: done cases=$got\$" "$log" && [ "$got" -eq "$want" ]; then
	sleb_ok "kbench: done line counts the $want cases"
else
	grep 'slab_bench: done' "$log"
	sleb_fail "kbench: done line counts the $want cases (found $got case lines)"
fi

# Footprint after a burst: 200 MiB of 128-byte objects allocated and freed.
. /sleb/guest/burst.sh
burst_check burst 0 200
true

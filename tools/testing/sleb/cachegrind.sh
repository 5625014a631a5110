#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Data cache misses per operation of SLEB's bookkeeping alone (the real
# mm/sleb_map.h in bench.c), under valgrind's cache simulator with the
# geometry of the guest cache model (tools/testing/sleb/cachesim): D1 32 KiB
# 8-way, LL 1 MiB 16-way, 64-byte lines.  Valgrind 3.19's cachegrind
# cannot count part of a run, so this runs the simulator through callgrind
# (--cache-sim=yes is cachegrind's simulator) with only the measure_*()
# functions and what they call counted, and divides by the operations BENCH
# reports.
#
# Usage: ./cachegrind.sh BENCH OUTDIR [SIZE...]	(sizes default: 64 256 1024)
set -eu
bench=$1
out=$2
shift 2
sizes=${*:-64 256 1024}
metrics="pair put put_shuffled take"
mkdir -p "$out"

# per_op FILE OPS: "Ir Dr+Dw D1mr+D1mw DLmr+DLmw" per operation of a
# callgrind output file with cache simulation.
per_op() {
	awk -v ops="$2" '
		/^events:/ { for (i = 2; i <= NF; i++) col[$i] = i - 1 }
		/^(summary|totals):/ { for (i = 2; i <= NF; i++) v[i - 1] = $i }
		END {
			printf "%.1f %.2f %.3f %.3f\n", v[col["Ir"]] / ops,
				(v[col["Dr"]] + v[col["Dw"]]) / ops,
				(v[col["D1mr"]] + v[col["D1mw"]]) / ops,
				(v[col["DLmr"]] + v[col["DLmw"]]) / ops
		}' "$1"
}

fmt='%-6s %-13s %8s %10s %12s %12s\n'
# shellcheck disable=SC2059
printf "$fmt" size metric 'Ir/op' 'D refs/op' 'D1 miss/op' 'LL miss/op'
for size in $sizes; do
	for m in $metrics; do
		f=$out/cachegrind.out.$size.$m
		valgrind --tool=callgrind --cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 \
			--LL=1048576,16,64 --collect-atstart=no --toggle-collect='measure_*' \
			--callgrind-out-file="$f" "$bench" "$size" "$m" >"$out/bench.$size.$m.txt" \
			2>"$out/valgrind.$size.$m.log"
		# size S order O objects N queue Q batch B run R ops K
		set -- $(cat "$out/bench.$size.$m.txt")
		# shellcheck disable=SC2046,SC2059
		printf "$fmt" "$size" "$m" $(per_op "$f" "${14}")
	done
done
cat <<'END'
Counted by valgrind's cache simulator (callgrind --cache-sim=yes) in the
measure_*() functions and their callees only; the slab's bitmap, the queue
array and the object pointers are warm, as in a steady stream of frees and
allocations: what the bookkeeping itself costs, not a cold object.
END

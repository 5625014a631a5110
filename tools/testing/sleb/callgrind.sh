#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Instructions per operation of SLEB's bookkeeping under callgrind: runs
# BENCH (bench.c) once per object size and metric with only its measure_*()
# functions collected, divides the instructions of each run by the
# operations it reports and prints a table.
#
# Usage: ./callgrind.sh BENCH OUTDIR [SIZE...]	(sizes default: 64 256 1024)
set -eu
bench=$1
out=$2
shift 2
sizes=${*:-64 256 1024}
metrics="pair put put_shuffled take"
mkdir -p "$out"

# ir FILE: the instructions counted in a callgrind output file
ir() {
	awk '/^(summary|totals):/ { n = $2 } END { print n + 0 }' "$1"
}

fmt='%-6s %-5s %-7s %-5s %-5s %-4s %8s %11s %12s %9s\n'
# shellcheck disable=SC2059
printf "$fmt" size order objects queue batch run 'pair Ir' 'put Ir/obj' 'shuffled/obj' 'take/obj'
for size in $sizes; do
	line=
	for m in $metrics; do
		f=$out/callgrind.out.$size.$m
		valgrind --tool=callgrind --collect-atstart=no --toggle-collect='measure_*' \
			--callgrind-out-file="$f" "$bench" "$size" "$m" >"$out/bench.$size.$m.txt" \
			2>"$out/valgrind.$size.$m.log"
		set -- $(cat "$out/bench.$size.$m.txt")
		# size S order O objects N queue Q batch B run R ops K
		geom="$2 $4 $6 $8 ${10} ${12}"
		ops=${14}
		per_op=$(awk -v ir="$(ir "$f")" -v ops="$ops" 'BEGIN { printf "%.1f", ir / ops }')
		line="$line $per_op"
	done
	# shellcheck disable=SC2086
	set -- $geom $line
	# shellcheck disable=SC2059
	printf "$fmt" "$@"
done
cat <<'END'
Ir counted by callgrind in the measure_*() functions only.  pair: one
alloc and one free through the queue fast path.  put, take: per object of
one sleb_map_put()/sleb_map_take() of "run" objects of one slab (the default
batch, or the slab's objects if fewer); put as a refill handed them out
(ascending), shuffled in random order (reciprocal division per object).
END

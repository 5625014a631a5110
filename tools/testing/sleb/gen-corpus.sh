#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Writes the seed inputs of corpus/ for fuzz.c.  Each input is 8 bytes of
# configuration and then operations (see setup() and run_op() in fuzz.c):
#
#   config: size-hi size-lo order queue batch shared partial+slabs preslabs
#   ops:    0-2 alloc, 3-5 free ARG, 6 alloc_bulk N, 7 free_bulk ARG,
#           8 drain, 9 refill, 10 resize_queue SEL MODE, 11 resize_shared SEL,
#           12 shrink, 13 flush_shared, 14 free_remote ARG,
#           15 bad_free KIND ARG, 16 set_batch ARG
#   queue/shared SEL below 28 picks 0 1 2 3 4 7 8 16 24 27 54 60 120 121.
#
# Usage: ./gen-corpus.sh [DIR]	(default: corpus/ beside this script)
set -eu
dir=${1:-$(dirname "$0")/corpus}
mkdir -p "$dir"

# emit FILE BYTE...: write the decimal BYTEs to FILE
emit() {
	f=$dir/$1
	shift
	: >"$f"
	for b in "$@"; do
		# shellcheck disable=SC2059
		printf "\\$(printf %03o "$b")" >>"$f"
	done
}

# rep N BYTE...: the BYTEs N times
rep() {
	n=$1
	shift
	while [ "$n" -gt 0 ]; do
		echo "$@"
		n=$((n - 1))
	done
}

# 8-byte objects at order 3 (504+ objects, map in the slab), default queue
# of 120, shared 54: bulk allocations over several slabs, random frees.
emit small-bulk 128 0 3 12 0 10 13 1 \
	$(rep 6 6 63) $(rep 3 7 129) 8 9 $(rep 3 7 131) 13 12 \
	$(rep 2 6 200) $(rep 4 7 0) 12

# 64-byte objects (64 a page: map in struct slab), boot queue, no shared:
# every object goes straight to and from the slabs.
emit boot-queue 128 7 0 0 0 0 8 0 \
	$(rep 70 0) $(rep 30 3 1) $(rep 10 3 0) 6 40 7 129 12 \
	$(rep 20 1) $(rep 20 4 5)

# 192-byte objects: resize the queue up and down (flush whole, keep what
# fits), resize and remove the shared array.
emit resize 128 13 1 8 0 8 6 0 \
	6 63 6 63 10 5 1 $(rep 10 3 0) 10 12 0 $(rep 40 4 0) 11 5 \
	$(rep 30 3 0) 11 0 10 13 1 6 50 10 0 1 9 12 16 3 10 200 0 $(rep 50 5 0)

# 520-byte objects: each kind of bad free at a few places in a run.
emit bad-free 128 18 0 5 0 0 4 1 \
	$(rep 12 0) 15 0 0 15 1 9 15 2 3 15 3 17 15 4 41 15 5 8 15 6 16 \
	15 7 25 $(rep 8 2) 15 8 35 15 9 43 15 10 2 15 11 5 12

# 16384-byte objects at order 3 with mixed orders (order 2 slabs too),
# queue of 8: two objects a slab.
emit big-objects 128 27 7 6 0 4 28 0 \
	$(rep 20 0) $(rep 10 3 1) 8 $(rep 10 7 0) 12 $(rep 10 1) 12

# a stride of 3000 bytes (the header handles strides that are no power
# of two), shared array larger than the queue.
emit stride-3000 11 176 3 8 5 12 9 2 \
	$(rep 30 0) $(rep 20 14 3) 9 13 $(rep 30 4 7) 8 8 12

# a stride of 49 bytes, no word multiple, 8 pages.
emit stride-49 0 41 3 6 3 7 30 1 \
	$(rep 10 6 200) 16 5 $(rep 6 7 255) 16 0 8 9 15 4 1 15 1 0 12

# 4104-byte objects (just over a page): queue 3, batch 2, free remote to
# a shared array of 2.
emit remote-shared 128 25 0 3 2 2 12 0 \
	$(rep 12 0) $(rep 6 14 2) $(rep 6 5 0) 13 9 $(rep 6 4 1) 12

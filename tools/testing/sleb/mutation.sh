#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Mutation check of the fuzzer: builds fuzz_standalone against copies of
# mm/sleb_map.h or mm/sleb_node.h with one bug injected each (the real
# headers are not touched) and runs it on the corpus for SECONDS.  A mutant is caught when
# the run fails (a violation, a sanitizer report, or a hang).  Prints one
# "ok - mutation: ..." or "not ok - mutation: ..." line per mutant and exits
# non-zero when one survived.
#
# Usage: ./mutation.sh BUILDDIR [SECONDS]	(from tools/testing/sleb; make
#	 mutation-check sets CC, CFLAGS and SLEB_MAP_H, the header to mutate)
set -u
b=$1
seconds=${2:-10}
hdr=${SLEB_MAP_H:-../../../mm/sleb_map.h}
node_hdr=../../../mm/sleb_node.h
case $b in
/*) ;;
*) b=$(pwd)/$b ;;
esac
CC=${CC:-gcc}
CFLAGS=${CFLAGS:--g -O1 -Wall -Werror -fsanitize=address,undefined -fno-sanitize-recover=all}
status=0

# mutant NAME DESCRIPTION SED-EXPRESSION [node]: a mutant of mm/sleb_map.h,
# or with "node" of mm/sleb_node.h
mutant() {
	name=$1 desc=$2 expr=$3 src=$hdr file=sleb_map.h def=SLEB_MAP_HEADER
	if [ "${4:-}" = node ]; then
		src=$node_hdr file=sleb_node.h def=SLEB_NODE_HEADER
	fi
	d=$b/mutants/$name
	mkdir -p "$d"
	sed -e "$expr" "$src" >"$d/$file"
	if cmp -s "$src" "$d/$file"; then
		echo "not ok - mutation: $desc is caught" \
			"(the pattern no longer matches mm/$file: update mutation.sh)"
		status=1
		return
	fi
	# shellcheck disable=SC2086
	if ! $CC $CFLAGS -DSLEB_FUZZ_STANDALONE -D$def="\"$d/$file\"" \
		-o "$d/fuzz" fuzz.c >"$d/build.log" 2>&1; then
		echo "not ok - mutation: $desc is caught" \
			"(the mutant does not build, see $d/build.log)"
		status=1
		return
	fi
	timeout $((seconds + 20)) "$d/fuzz" --seconds="$seconds" --crash-file="$d/crash" \
		corpus/* >"$d/run.log" 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		echo "not ok - mutation: $desc is caught (it survived $seconds s of fuzzing)"
		status=1
		return
	fi
	echo "ok - mutation: $desc is caught"
	if [ $rc = 124 ]; then
		echo "#   $name: the run hung"
	else
		echo "#   $name: $(grep -m1 -E 'VIOLATION|ERROR: |runtime error|BUG' "$d/run.log" |
			sed -e 's/^==[0-9]*==//' | cut -c1-150)"
	fi
}

mutant put-bound "injected off-by-one in sleb_map_put" \
	's/for (i = 0; i < nr; i++) {/for (i = 0; i <= nr; i++) {/'
mutant put-step "injected wrong index step in sleb_map_put" \
	's/idx--;/idx++;/'
mutant take-bound "injected off-by-one in sleb_map_take" \
	's/while (word \&\& taken < max) {/while (word \&\& taken <= max) {/'
mutant layout-map "injected bitmap/object overlap in sleb_slab_objects" \
	's/BITS_TO_LONGS(n) \* sizeof(long) > bytes/BITS_TO_LONGS(n) * sizeof(int) > bytes/'
mutant array-room "injected off-by-one in sleb_array_add" \
	's/unsigned int room = a->size - a->count;/unsigned int room = a->size - a->count + 1;/'
mutant array-drop "injected off-by-one in sleb_array_drop_oldest" \
	's/\(memmove(a->objects, a->objects + nr\), a->count/\1 - 1, a->count/'
mutant relist-nothing "injected relisting of a slab a put gave nothing back" \
	's/^\tif (put) {$/\tif (1) {/' node
mutant relist-discard "injected discard of an empty slab the node should keep" \
	's/if (nr_partial >= min_partial || reserve)/if (nr_partial + 1 >= min_partial || reserve)/'
mutant take-empty "injected stale empty count after a take from an empty slab" \
	'/slab->list = SLEB_LIST_PARTIAL;/{n;s/n->nr_empty--;/;/}' node
mutant put-free-count "injected counting of the object a double free ends on" \
	's/\*result == SLEB_PUT_OK ? done : done - 1/done/' node
mutant new-slab-state "injected new slab marked partial instead of empty" \
	's/free == slab->objects ? SLEB_LIST_EMPTY : SLEB_LIST_PARTIAL/SLEB_LIST_PARTIAL/' node
mutant unlist-objects "injected partial object count kept for a slab leaving the list" \
	'/if (slab_on_partial(slab)) {/,/}/s/n->partial_objects -= slab->objects;/;/' node
exit $status

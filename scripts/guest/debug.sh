# The kernel's own checkers against the allocator, in the debug variant
# booted with sleb_debug=FZPU init_on_alloc=1 init_on_free=1: LKDTM's slab
# and usercopy tests, FAILSLAB during a workload, kmemleak with its test
# module, a bulk allocation failing in a memory cgroup.  (memcg
# kmem accounting, test_kmem, is in sleb-memcg.sh, run by suite.sh.)
# Reports a test provokes on purpose are written between SLEB-EXPECT-BEGIN
# and SLEB-EXPECT-END; the host does not count them as console errors.
. /sleb/lib.sh

dbg=/sys/kernel/debug
[ -d "$dbg/provoke-crash" ] || mount -t debugfs none "$dbg" 2>/dev/null

# --- kmemleak ---------------------------------------------------------------

# kmemleak_scan: scan twice (an object must look unreferenced in two scans
# to be reported) and print the number of unreferenced objects, leaving
# out KUnit's own log buffers: with kunit.filter_glob, KUnit's executor
# frees its filtered copies of the suites but not their logs
# (lib/kunit/executor.c, kunit_free_suite_set()), which is not the
# allocator's doing.
kmemleak_scan() {
	# Its "new suspected memory leaks" line is judged here, not by the host.
	echo "SLEB-EXPECT-BEGIN kmemleak scan" >/dev/kmsg
	echo scan >"$dbg/kmemleak" && sleep 1 && echo scan >"$dbg/kmemleak"
	echo "SLEB-EXPECT-END kmemleak scan" >/dev/kmsg
	awk '/^unreferenced object/ { if (obj && !kunit) n++; obj = 1; kunit = 0 }
		/kunit_debugfs_create_suite/ { kunit = 1 }
		END { if (obj && !kunit) n++; print n + 0 }' "$dbg/kmemleak"
}

# kmemleak_show: the reports that kmemleak_scan counts.
kmemleak_show() {
	awk '/^unreferenced object/ { if (blk != "" && !kunit) printf "%s", blk; blk = ""; kunit = 0 }
		/kunit_debugfs_create_suite/ { kunit = 1 }
		{ blk = blk $0 "\n" }
		END { if (blk != "" && !kunit) printf "%s", blk }' "$dbg/kmemleak" | head -n 40
}

if [ -w "$dbg/kmemleak" ]; then
	# Clear what boot left (early allocations kmemleak cannot follow are
	# judged by the first scan), then a workload must add nothing.
	echo scan=off >"$dbg/kmemleak"
	n=$(kmemleak_scan)
	if [ "$n" = 0 ]; then
		sleb_ok "kmemleak: no unreferenced object after boot"
	else
		kmemleak_show
		sleb_fail "kmemleak: no unreferenced object after boot"
		sleb_note "$n found"
	fi
	echo clear >"$dbg/kmemleak"
	hackbench -g 4 -l 100 >/dev/null 2>&1
	stress-ng --timeout 4 --fork 2 --sock 2 --dentry 2 --no-rand-seed >/dev/null 2>&1
	n=$(kmemleak_scan)
	if [ "$n" = 0 ]; then
		sleb_ok "kmemleak: no unreferenced object after hackbench and stress-ng"
	else
		kmemleak_show
		sleb_fail "kmemleak: no unreferenced object after hackbench and stress-ng"
		sleb_note "$n found"
	fi
	# The test module leaks on purpose: kmemleak must find its objects.
	if [ -f /modules/kmemleak-test.ko ]; then
		echo clear >"$dbg/kmemleak"
		echo "SLEB-EXPECT-BEGIN kmemleak-test" >/dev/kmsg
		insmod /modules/kmemleak-test.ko && rmmod kmemleak_test
		# kmemleak reports objects older than 5 s only.
		sleep 6
		n=$(kmemleak_scan)
		echo "SLEB-EXPECT-END kmemleak-test" >/dev/kmsg
		# The module leaks 10 kmalloc, 2 vmalloc, a list of 10 and per-cpu objects.
		if [ "${n:-0}" -ge 10 ]; then
			sleb_ok "kmemleak: the kmemleak-test module's leaks are found"
		else
			sleb_fail "kmemleak: the kmemleak-test module's leaks are found"
		fi
		sleb_note "${n:-no} objects found, want >= 10"
		echo clear >"$dbg/kmemleak"
	else
		sleb_fail "kmemleak: /modules/kmemleak-test.ko in the guest"
	fi
else
	sleb_fail "kmemleak: $dbg/kmemleak is writable"
fi

# --- failslab -----------------------------------------------------------------

# One allocation in ten fails while hackbench and stress-ng run (only in
# their processes: task-filter).  The kernel must survive, the caches must
# validate clean and, once the workload is over, the objects in use must
# be back near where they were (no object lost on an error path).
# Shrinking first empties KASAN's quarantine of these caches
# (kmem_cache_shrink() calls kasan_cache_shrink()): objects freed but held
# there are not in use, and the quarantine fills as the workload frees.
objects_in_use() {
	for f in /sys/kernel/slab/kmalloc-*/shrink; do
		echo 1 >"$f" 2>/dev/null
	done
	cat /sys/kernel/slab/kmalloc-*/objects 2>/dev/null | awk '{ n += $1 } END { print n + 0 }'
}

if [ -d "$dbg/failslab" ]; then
	fs=$dbg/failslab
	echo 3 >/proc/sys/vm/drop_caches
	before=$(objects_in_use)
	echo 1 >"$fs/task-filter"
	echo 10 >"$fs/probability"
	echo 0 >"$fs/interval"
	echo -1 >"$fs/times"
	echo 0 >"$fs/verbose"
	echo N >"$fs/ignore-gfp-wait"
	echo "SLEB-EXPECT-BEGIN failslab" >/dev/kmsg
	(
		echo 1 >/proc/self/make-it-fail
		hackbench -g 2 -l 50 >/dev/null 2>&1
		stress-ng --timeout 4 --fork 2 --sock 1 --pipe 1 --no-rand-seed >/dev/null 2>&1
	)
	echo "SLEB-EXPECT-END failslab" >/dev/kmsg
	echo 0 >"$fs/probability"
	injected=$(cat "$fs/times" 2>/dev/null)
	sleb_check "failslab: the kernel survives injected failures" hackbench -g 2 -l 50
	sleb_check "failslab: every cache validates clean afterwards" validate_all
	sleep 1
	echo 3 >/proc/sys/vm/drop_caches
	after=$(objects_in_use)
	# Objects of other workers (kworkers, RCU) come and go: allow 10%.
	if [ "$after" -le $((before + before / 10 + 64)) ]; then
		sleb_ok "failslab: kmalloc objects in use back to what they were"
	else
		sleb_fail "failslab: kmalloc objects in use back to what they were"
	fi
	sleb_note "$after in use, $before before (10% and 64 allowed)"
	: "$injected"
else
	sleb_fail "failslab: $dbg/failslab exists"
fi

# --- a failed bulk allocation and its memcg --------------------------------------

# kmem_cache_alloc_bulk() charges the memcg for all the objects it is asked
# for; sleb_bulk_memcg.ko, loaded from a memory cgroup, makes every page
# allocation of its bulk call fail (fail_page_alloc, task-filter) after the
# objects the cache has, and checks that the memcg is charged no more after
# the failed call than before.
bulk_memcg() {
	fpa=$dbg/fail_page_alloc cg=/sys/fs/cgroup
	if [ ! -f $cg/cgroup.controllers ] && ! mount -t cgroup2 cgroup2 $cg; then
		echo "sleb_bulk_memcg: setup: cannot mount cgroup2 on $cg"
		return 1
	fi
	if ! echo +memory >$cg/cgroup.subtree_control || ! mkdir -p $cg/sleb-bulk; then
		echo "sleb_bulk_memcg: setup: no memory cgroup $cg/sleb-bulk"
		return 1
	fi
	if ! { echo Y >"$fpa/task-filter" && echo 0 >"$fpa/min-order" &&
		echo N >"$fpa/ignore-gfp-wait" && echo 1 >"$fpa/interval" &&
		echo -1 >"$fpa/times" && echo 0 >"$fpa/verbose" &&
		echo 100 >"$fpa/probability"; }; then
		echo "sleb_bulk_memcg: setup: cannot configure $fpa"
		return 1
	fi
	# A shell of its own joins the cgroup ($$ of a subshell is this one's).
	# shellcheck disable=SC2016
	sh -c 'echo $$ >"$1/cgroup.procs" && exec insmod /modules/sleb_bulk_memcg.ko' \
		sh $cg/sleb-bulk
	rc=$?
	echo 0 >"$fpa/probability"
	rmmod sleb_bulk_memcg 2>/dev/null
	rmdir $cg/sleb-bulk
	dmesg | grep 'sleb_bulk_memcg: ' | tail -n 1
	return $rc
}

if [ ! -f /modules/sleb_bulk_memcg.ko ]; then
	sleb_fail "bulk-memcg: /modules/sleb_bulk_memcg.ko in the guest"
elif [ ! -d "$dbg/fail_page_alloc" ]; then
	sleb_fail "bulk-memcg: $dbg/fail_page_alloc exists"
else
	line=$(bulk_memcg)
	name="bulk-memcg: a failed kmem_cache_alloc_bulk() leaves its memcg uncharged"
	case $line in
	*": ok "*) sleb_ok "$name" ;;
	*) sleb_fail "$name" ;;
	esac
	sleb_note "${line#*sleb_bulk_memcg: }"
fi

# --- LKDTM ----------------------------------------------------------------------

# lkdtm TEST EXPECT: run one LKDTM test and look in the kernel log for
# EXPECT (an extended regex, case-insensitive), as
# tools/testing/selftests/lkdtm/run.sh does.  A test that oopses kills the
# shell that triggered it, not the system (panic_on_oops is turned off).
lkdtm() {
	t=$1 expect=$2
	echo "SLEB-EXPECT-BEGIN lkdtm $t" >/dev/kmsg
	dmesg -c >/dev/null
	sh -c "echo $t >$dbg/provoke-crash/DIRECT" >/dev/null 2>&1
	sleep 1
	dmesg >"/tmp/lkdtm-$t.log"
	echo "SLEB-EXPECT-END lkdtm $t" >/dev/kmsg
	if grep -E -qi "$expect" "/tmp/lkdtm-$t.log"; then
		sleb_ok "lkdtm: $t ($expect)"
	else
		tail -n 15 "/tmp/lkdtm-$t.log"
		sleb_fail "lkdtm: $t (no '$expect' in the kernel log)"
	fi
}

if [ -w "$dbg/provoke-crash/DIRECT" ]; then
	echo 0 >/proc/sys/kernel/panic_on_oops
	# A KFENCE-sampled object would be caught by KFENCE, whose report has
	# no "Call Trace:" line; KFENCE has its own KUnit suite.  Here the
	# catch is SLEB's and KASAN's.
	[ -w /sys/module/kfence/parameters/sample_interval ] &&
		echo 0 >/sys/module/kfence/parameters/sample_interval
	# Expectations of tools/testing/selftests/lkdtm/tests.txt (an empty one
	# there means "call trace:"); WRITE_AFTER_FREE is commented out there
	# because it corrupts memory on failure: with KASAN and poisoning on,
	# the write is caught.
	lkdtm SLAB_LINEAR_OVERFLOW "call trace:"
	lkdtm READ_AFTER_FREE "call trace:|Memory correctly poisoned"
	lkdtm WRITE_AFTER_FREE "call trace:"
	lkdtm SLAB_INIT_ON_ALLOC "Memory appears initialized"
	lkdtm SLAB_FREE_DOUBLE "call trace:"
	lkdtm SLAB_FREE_CROSS "call trace:"
	lkdtm SLAB_FREE_PAGE "call trace:"
	lkdtm USERCOPY_SLAB_SIZE_TO "call trace:"
	lkdtm USERCOPY_SLAB_SIZE_FROM "call trace:"
	lkdtm USERCOPY_SLAB_WHITELIST_TO "call trace:"
	lkdtm USERCOPY_SLAB_WHITELIST_FROM "call trace:"
	# After all of that the allocator still works and its caches are sane
	# (validate repairs what the tests broke, so it is not counted).
	sleb_check "lkdtm: hackbench after the slab tests" hackbench -g 2 -l 50
else
	sleb_fail "lkdtm: $dbg/provoke-crash/DIRECT exists"
fi
true

# SPDX-License-Identifier: GPL-2.0
# scripts/sleb test, bench and series; sourced by scripts/sleb.

T_PASS=0
T_FAIL=0
T_KNOWN=0
# T_TAP: a file every result line is appended to as well (the scenario's
# results.tap); T_LOG: the log a failure points at ("# log: PATH").
T_TAP=""
T_LOG=""

t_line() {
	echo "$1"
	[ -z "$T_TAP" ] || echo "$1" >>"$T_TAP"
}

t_ok() {
	t_line "ok - $*"
	T_PASS=$((T_PASS + 1))
}

t_fail() {
	local why
	if why=$(known_failure "${*#*: }"); then
		t_line "not ok - $* # TODO known failure of the base: $why"
		T_KNOWN=$((T_KNOWN + 1))
		return 0
	fi
	t_line "not ok - $*"
	[ -z "$T_LOG" ] || t_line "# log: $T_LOG"
	T_FAIL=$((T_FAIL + 1))
}

# known_failure TEST: whether TEST (a result's name without its scenario)
# fails on this base with SLUB as well (scripts/known-failures); prints
# why.  Such a result is printed as a TODO and counted neither way.
KNOWN_FAILURES=$SLEB_TOP/scripts/known-failures
known_failure() {
	local base test why
	[ -f "$KNOWN_FAILURES" ] || return 1
	[ -n "${T_BASE:-}" ] || T_BASE=$(base_version 2>/dev/null)
	while IFS='|' read -r base test why; do
		base=$(echo "$base" | sed 's/^ *//; s/ *$//')
		test=$(echo "$test" | sed 's/^ *//; s/ *$//')
		# shellcheck disable=SC2053 # base is a glob
		if [[ "$T_BASE" == $base ]] && [ "$test" = "$1" ]; then
			echo "$why" | sed 's/^ *//'
			return 0
		fi
	done < <(grep -v '^[[:space:]]*\(#\|$\)' "$KNOWN_FAILURES")
	return 1
}

# t_counts: the closing line, after the known failures of the base if any.
t_counts() {
	[ "$T_KNOWN" = 0 ] || echo "# $T_KNOWN known failures of the base (scripts/known-failures): not counted"
	echo "$T_PASS passed, $T_FAIL failed"
}

# t_command NAME CMD...: a test that passes when CMD exits 0; what CMD
# printed follows as '#' lines.
t_command() {
	local name=$1 out rc l
	shift
	set +e
	out=$("$@" 2>&1)
	rc=$?
	set -e
	[ -z "$out" ] || echo "$out" | while IFS= read -r l; do t_line "# $l"; done
	t_result "$rc" "$name"
}

# t_result COND NAME: COND is 0 for a pass.
t_result() {
	if [ "$1" = 0 ]; then t_ok "$2"; else t_fail "$2"; fi
}

# count_kunit LOG TAG: every KUnit case of a console log, as the kernel's
# own KTAP parser (tools/testing/kunit/kunit.py parse, through
# scripts/kunit_results.py) reads it; a suite with a crashed case or a
# missing result line fails once more.
count_kunit() {
	local log=$1 tag=$2 line
	while IFS= read -r line; do
		case $line in
		"PASS "*) t_ok "$tag: kunit ${line#PASS }" ;;
		"SKIP "*) t_ok "$tag: kunit ${line#SKIP } # SKIP" ;;
		"FAIL "*) t_fail "$tag: kunit ${line#FAIL }" ;;
		esac
	done < <(python3 "$SLEB_TOP/scripts/kunit_results.py" "$WORK" "$log" ||
		echo "FAIL kunit.py parse of $log")
}

count_guest_tap() {
	local log=$1 tag=$2 line name
	while IFS= read -r line; do
		case $line in
		"SLEB-TAP: ok - "*) t_ok "$tag: ${line#SLEB-TAP: ok - }" ;;
		"SLEB-TAP: not ok - "*) t_fail "$tag: ${line#SLEB-TAP: not ok - }" ;;
		"SLEB-TAP: # "*) t_line "${line#SLEB-TAP: }" ;;
		esac
	done < <(sed 's/^\[ *[0-9.]*\] //' "$log" | grep '^SLEB-TAP: ')
	# kselftest_harness TAP: "ok N name", "not ok N name", skips are "ok N name # SKIP".
	while IFS= read -r line; do
		case $line in
		"SLEB-KSFT-BEGIN: "*) name=${line#SLEB-KSFT-BEGIN: } ;;
		"SLEB-KSFT: ok "*) t_ok "$tag: kselftest $name.$(echo "${line#SLEB-KSFT: ok }" | cut -d' ' -f2-)" ;;
		"SLEB-KSFT: not ok "*) t_fail "$tag: kselftest $name.$(echo "${line#SLEB-KSFT: not ok }" | cut -d' ' -f2-)" ;;
		esac
	done < <(sed 's/^\[ *[0-9.]*\] //' "$log" | grep -E '^SLEB-KSFT(-BEGIN)?: ' | grep -Ev '^SLEB-KSFT:  +')
}

# count_cachemodel LOG TAG: the known answers of the cache model's strides
# (scripts/guest/cachemodel.sh) in the regions the plugin wrote to LOG.cache.
count_cachemodel() {
	local log=$1 tag=$2 line
	while IFS= read -r line; do
		case $line in
		"ok - "*) t_ok "$tag: ${line#ok - }" ;;
		"not ok - "*) t_fail "$tag: ${line#not ok - }" ;;
		"# "*) t_line "$line" ;;
		esac
	done < <(python3 "$SLEB_TOP/scripts/cache_report.py" check "$log" "$log.cache" || true)
}

count_meminit() {
	local log=$1 tag=$2 line
	line=$(grep -o 'test_meminit: .*' "$log" | grep -E 'all [0-9]+ tests passed|failures:' | tail -n 1 || true)
	case $line in
	*"tests passed"*) t_ok "$tag: test_meminit (${line#test_meminit: })" ;;
	"") t_fail "$tag: test_meminit did not report" ;;
	*) t_fail "$tag: test_meminit (${line#test_meminit: })" ;;
	esac
}

# count_lib_suites LOG TAG: the library suites of the lockdep variant,
# built in and run at boot, one result each.  test_maple_tree,
# test_xarray and test_ida end with "<name>: N of M tests passed"
# (pr_info/printk, no prefix); a pass is N = M > 0.  test_rhashtable
# prints no count: it passes when it reaches its last line, "Started T
# threads, 0 failed, rhltable test returns 0", with no failure line
# between that and its first, "Running rhashtable test ...".  One
# failure line is not the table's: a walk that met a resize rewinds to
# the start (lib/rhashtable.c, rhashtable_walk_next()), so a traversal
# with table-jumps > 0 counts some entries twice and test_bucket_stats()
# says "Total count mismatch".  It is let pass when nelems = entries and
# counted >= entries; any other mismatch fails.  A suite that printed
# nothing fails.
count_lib_suites() {
	local log=$1 tag=$2 suite word line n m
	for suite in test_maple_tree:maple_tree test_xarray:XArray test_ida:IDA; do
		word=${suite#*:} suite=${suite%%:*}
		line=$(sed 's/^\[ *[0-9.]*\] //' "$log" | grep -E "^$word: [0-9]+ of [0-9]+ tests passed\$" | tail -n 1 || true)
		if [ -z "$line" ]; then
			echo "# $tag: $suite: no \"$word: N of M tests passed\" line"
			t_fail "$tag: $suite"
			continue
		fi
		n=$(echo "$line" | cut -d' ' -f2)
		m=$(echo "$line" | cut -d' ' -f4)
		if [ "$n" = "$m" ] && [ "$m" -gt 0 ]; then
			t_ok "$tag: $suite"
		else
			echo "# $tag: $suite: $line"
			t_fail "$tag: $suite"
		fi
	done
	line=$(sed 's/^\[ *[0-9.]*\] //' "$log" | awk '
		/^Running rhashtable test nelem=/ && !done { run = 1; bad = ""; next }
		!run { next }
		/^ *Traversal complete: counted=[0-9]+, nelems=[0-9]+, entries=-?[0-9]+, table-jumps=[0-9]+$/ {
			t = $0
			gsub(/[,=]/, " ", t)
			split(t, v, " +")
			for (i in v)
				f[v[i]] = v[i + 1]
			rewound = f["table-jumps"] > 0 && f["nelems"] == f["entries"] && f["counted"] + 0 >= f["entries"] + 0
			next
		}
		/^Test failed: Total count mismatch/ && rewound { rewound = 0; next }
		/^Started [0-9]+ threads, [0-9]+ failed, rhltable test returns -?[0-9]+$/ {
			run = 0
			done = 1
			if ($4 == "0" && $NF == "0" && bad == "") print "ok"
			else print (bad != "" ? bad : $0)
			next
		}
		bad == "" && /Test failed|YES, failed|should have failed|thread\[[0-9]+\]: .*(failed|interrupted)|kthread_run failed|wait_event interruptible failed|found unexpected object|object [0-9]+-[0-9]+ not found|wrong object returned|lib\/test_rhashtable\.c:/ { bad = $0 }
		END { if (run) print "stopped after: " (bad != "" ? bad : "its first line") }' || true)
	case $line in
	ok) t_ok "$tag: test_rhashtable" ;;
	"")
		echo "# $tag: test_rhashtable: no \"Running rhashtable test\" line"
		t_fail "$tag: test_rhashtable"
		;;
	*)
		echo "# $tag: test_rhashtable: $line"
		t_fail "$tag: test_rhashtable"
		;;
	esac
}

# The lockdep variant's library suites are device initcalls; a boot that
# passes this leaves them out (they run in one boot of scripts/sleb test).
NO_LIB_SUITES=initcall_blacklist=maple_tree_seed,xarray_checks,ida_checks,test_rht_init

SCENARIOS=$SLEB_TOP/scripts/scenarios

# read_scenarios: the scenarios of scripts/scenarios as lines of seven
# fields separated by '|', trimmed, comments and blank lines left out.
read_scenarios() {
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SCENARIOS" |
		awk -F'|' '{
			if (NF != 9) { print "bad line: " $0 > "/dev/stderr"; exit 1 }
			out = ""
			for (i = 1; i <= 9; i++) {
				f = $i
				gsub(/^[ \t]+|[ \t]+$/, "", f)
				out = out (i > 1 ? "|" : "") f
			}
			print out
		}'
}

# scenario_selected NAME GLOBS: whether NAME matches one of the
# comma-separated GLOBS (all when GLOBS is empty).
scenario_selected() {
	local name=$1 globs=$2 g
	[ -n "$globs" ] || return 0
	local IFS=,
	for g in $globs; do
		# shellcheck disable=SC2053 # $g is a glob
		[[ $name == $g ]] && return 0
	done
	return 1
}

# scenario_set LINE: the fields of a scenario line as SC_* variables, and
# what the boot gets: SC_APPEND (the command line, with the library suites
# left out of a lockdep boot that does not count them) and SC_TIMEOUT.
scenario_set() {
	IFS='|' read -r SC_NAME SC_ALLOC SC_VARIANT SC_BASE SC_RUN SC_SCRIPT SC_MODULES SC_COUNTS \
		SC_CMDLINE <<<"$1"
	[ "$SC_MODULES" = - ] && SC_MODULES=""
	[ "$SC_COUNTS" = - ] && SC_COUNTS=""
	SC_APPEND=$SC_CMDLINE
	if [ "$SC_VARIANT" = lockdep ] && [ "$SC_COUNTS" != lib ]; then
		SC_APPEND="$NO_LIB_SUITES${SC_APPEND:+ $SC_APPEND}"
	fi
	# KASAN, and lockdep with the library suites (the maple tree's alone
	# checks 12.6 million things), under TCG.
	SC_TIMEOUT=600
	[ "$SC_VARIANT" = debug ] && SC_TIMEOUT=1200
	[ "$SC_COUNTS" = lib ] && SC_TIMEOUT=1800
	return 0
}

# scenario_alloc: the allocator of the current scenario; "default" is the
# checkout's, SLEB, or SLUB on a checkout without mm/sleb.c.
scenario_alloc() {
	if [ "$SC_ALLOC" != default ]; then
		echo "$SC_ALLOC"
	elif [ -f "$SLEB_TOP/mm/sleb.c" ]; then
		echo sleb
	else
		echo slub
	fi
}

# scenario_base_ok: whether the base of this run (base_version) is one the
# current scenario runs on: "any", or a glob such as "Linux 7.3.*".
scenario_base_ok() {
	# shellcheck disable=SC2053 # SC_BASE is a glob
	[ "$SC_BASE" = any ] || [[ "$(base_version)" == $SC_BASE ]]
}

# scenario_check: the fields of the current scenario that scripts/sleb
# run cannot check itself; dies naming the scenario.
scenario_check() {
	case $SC_ALLOC in
	default) ;;
	*) case " $ALLOCS " in *" $SC_ALLOC "*) ;; *) die "$SCENARIOS: $SC_NAME: unknown allocator '$SC_ALLOC'" ;; esac ;;
	esac
	case " $VARIANTS " in *" $SC_VARIANT "*) ;; *) die "$SCENARIOS: $SC_NAME: unknown variant '$SC_VARIANT'" ;; esac
	[ -n "$SC_BASE" ] || die "$SCENARIOS: $SC_NAME: no base (any, or a glob of the base's name)"
}

# scenario_command ALLOC: the scripts/sleb run command of the current
# scenario (scenario_set), as a user types it.
scenario_command() {
	local cmd="scripts/sleb run --alloc=$1 --variant=$SC_VARIANT" m
	[ -n "$SC_RUN" ] && cmd="$cmd $SC_RUN"
	[ "$HOTPLUG_CYCLES" != 10 ] && cmd="$cmd --soak"
	cmd="$cmd --timeout=$SC_TIMEOUT --script=scripts/guest/$SC_SCRIPT"
	for m in $SC_MODULES; do
		cmd="$cmd --module=$m"
	done
	[ -n "$SC_APPEND" ] && cmd="$cmd --append='$SC_APPEND'"
	echo "$cmd"
}

# test_list: the scenarios, one a line.
test_list() {
	local line lines
	printf '%-16s %-6s %-8s %-5s %-22s %-16s %s\n' SCENARIO ALLOC VARIANT BASE TOPOLOGY SCRIPT \
		"COMMAND LINE"
	printf '%-16s %-6s %-8s %-5s %-22s %-16s %s\n' host - - - "(this machine)" - \
		"userspace harness, scripts/sleb's refusals, series checks"
	mapfile -t lines < <(read_scenarios)
	for line in "${lines[@]}"; do
		scenario_set "$line"
		printf '%-16s %-6s %-8s %-5s %-22s %-16s %s\n' "$SC_NAME" "$(scenario_alloc)" \
			"$SC_VARIANT" "$SC_BASE" "${SC_RUN:-(2 CPUs, 1 node)}" "$SC_SCRIPT" "$SC_CMDLINE"
	done
}

# scenario_modules ALLOC: build the current scenario's modules against its
# kernel; sets GUEST_FILES.  A module that does not build fails the boot.
scenario_modules() {
	local alloc=$1 tag=$2 m
	GUEST_FILES=""
	for m in $SC_MODULES; do
		if guest_module "$m" "$(build_dir "$alloc" "$SC_VARIANT")"; then
			t_ok "$tag: $m module builds"
			GUEST_FILES="$GUEST_FILES $MODULE_KO:$MODULE_GUEST_PATH"
		else
			t_fail "$tag: $m module builds"
			return 1
		fi
	done
	GUEST_FILES=${GUEST_FILES# }
}

# count_scenario TAG LOG: count what the console LOG of the current
# scenario (scenario_set) shows; the boot's own status is counted by the
# caller.  On a failure the last 60 lines go to tail.txt beside LOG.
count_scenario() {
	local tag=$1 log=$2 errs failed=$T_FAIL
	count_kunit "$log" "$tag"
	case $SC_COUNTS in
	lib) count_lib_suites "$log" "$tag" ;;
	meminit) count_meminit "$log" "$tag" ;;
	cachemodel) count_cachemodel "$log" "$tag" ;;
	esac
	count_guest_tap "$log" "$tag"
	errs=$(console_errors "$log")
	if [ -n "$errs" ]; then
		echo "$errs" | head -n 10 | while IFS= read -r l; do t_line "# $l"; done
		t_fail "$tag: console free of WARNING/BUG/lockdep/KASAN reports"
	else
		t_ok "$tag: console free of WARNING/BUG/lockdep/KASAN reports"
	fi
	[ "$T_FAIL" = "$failed" ] || tail -n 60 "$log" >"$(dirname "$log")/tail.txt"
}

# test_scenario ALLOC LINE: build, boot, count one scenario; its console,
# results and diagnostic tail go to $RESULTS/<scenario>/.
test_scenario() {
	local alloc=$1 tag dir log o
	scenario_set "$2"
	tag=$alloc-$SC_NAME
	dir=$RESULTS/$SC_NAME
	mkdir -p "$dir"
	log=$dir/console.log
	printf '%s\n%s\n' "$alloc" "$2" >"$dir/scenario"
	T_TAP=$dir/results.tap T_LOG=$log
	: >"$T_TAP"
	if ! (build_kernel "$alloc" "$SC_VARIANT" >/dev/null); then
		T_LOG=$(build_dir "$alloc" "$SC_VARIANT")/build.log
		t_fail "$tag: kernel builds"
		cp "$T_TAP" "$dir/host.tap"
		T_TAP="" T_LOG=""
		return
	fi
	build_kernel "$alloc" "$SC_VARIANT" >/dev/null 2>&1
	# What the host found before the boot, for recheck: module builds.
	if ! scenario_modules "$alloc" "$tag"; then
		cp "$T_TAP" "$dir/host.tap"
		T_TAP="" T_LOG=""
		return 0
	fi
	cp "$T_TAP" "$dir/host.tap"
	RUN_ALLOC=$alloc RUN_VARIANT=$SC_VARIANT RUN_QUIET=1 RUN_APPEND=$SC_APPEND
	RUN_TIMEOUT=$SC_TIMEOUT RUN_SMP=2 RUN_NUMA=1 RUN_MEM=1G RUN_DIMM=0 RUN_ICOUNT=0 RUN_CACHE="" RUN_SMP_SET=0
	for o in $SC_RUN; do
		[ "$o" != --bare ] || die "$SCENARIOS: $SC_NAME: --bare boots SLUB without the series, no scenario of the suite"
		parse_run_option "$o" || die "$SCENARIOS: $SC_NAME: '$o' is no option of scripts/sleb run"
	done
	check_run_options
	guest_run "$KERNEL" "$SLEB_TOP/scripts/guest/$SC_SCRIPT" "$log" || true
	if [ "$GUEST_STALLED" = 1 ]; then
		# A QEMU stall, not the kernel's doing: boot once more.
		cp "$log" "$dir/console-stalled.log"
		t_line "# $GUEST_ERROR (console: $dir/console-stalled.log); booted again"
		guest_run "$KERNEL" "$SLEB_TOP/scripts/guest/$SC_SCRIPT" "$log" || true
	fi
	GUEST_FILES=""
	if [ "$GUEST_RC" = 255 ]; then
		t_fail "$tag: boots and runs $SC_SCRIPT"
		t_line "# $GUEST_ERROR"
	else
		t_result "$GUEST_RC" "$tag: $SC_SCRIPT exits 0"
		t_line "# status $GUEST_RC after ${GUEST_SECONDS} s"
	fi
	count_scenario "$tag" "$log"
	T_TAP="" T_LOG=""
}

# replay_tap FILE: count the result lines a run wrote to FILE again, with
# the "# log:" lines they had.
replay_tap() {
	local l log=$T_LOG
	T_LOG=""
	while IFS= read -r l; do
		case $l in
		"ok - "*) t_ok "${l#ok - }" ;;
		"not ok - "*) t_fail "${l#not ok - }" ;;
		"#"*) t_line "$l" ;;
		esac
	done <"$1"
	T_LOG=$log
}

# check_recheck COUNTS: recheck of this run's results must count what the
# boots counted ("N passed, N failed").
check_recheck() {
	local got
	got=$("$SLEB_TOP/scripts/sleb" recheck "$RESULTS" 2>&1 | tail -n 1)
	if [ "$got" = "$1" ]; then
		t_ok "recheck: counting the consoles again gives the boots' counts"
	else
		t_fail "recheck: counting the consoles again gives the boots' counts"
		t_line "# the boots: $1; scripts/sleb recheck $RESULTS: $got"
	fi
}

# cmd_recheck [DIR]: count the consoles of a finished run again (default:
# the latest), without building or booting anything.
cmd_recheck() {
	local dir=${1:-$SLEB_CACHE/results/latest} d alloc line rc
	[ $# -le 1 ] || die "recheck: one results folder at most"
	[ -d "$dir" ] || die "recheck: no results folder '$dir'"
	dir=$(cd "$dir" && pwd -P)
	echo "# results: $dir"
	for d in "$dir"/*/; do
		d=${d%/}
		[ -f "$d/scenario" ] || continue
		alloc=$(sed -n 1p "$d/scenario")
		line=$(sed -n 2p "$d/scenario")
		scenario_set "$line"
		T_LOG=$d/console.log
		[ ! -f "$d/host.tap" ] || replay_tap "$d/host.tap"
		if [ ! -f "$T_LOG" ]; then
			# A failed build or module build, replayed above, is why.
			grep -q '^not ok - ' "$d/host.tap" 2>/dev/null ||
				t_fail "$alloc-$SC_NAME: no console (it was not booted)"
			continue
		fi
		rc=$(sed -n 's/^.*SLEB-GUEST-EXIT: \([0-9]*\).*/\1/p' "$T_LOG" | tail -n 1)
		if [ -z "$rc" ]; then
			t_fail "$alloc-$SC_NAME: boots and runs $SC_SCRIPT"
		else
			t_result "$rc" "$alloc-$SC_NAME: $SC_SCRIPT exits 0"
		fi
		count_scenario "$alloc-$SC_NAME" "$T_LOG"
	done
	T_LOG=""
	t_counts
	[ "$T_FAIL" = 0 ]
}

# test_cli: bad input to scripts/sleb is refused before any work, with a
# message that names it, and a non-zero exit status.
test_cli() {
	local c args want out rc
	while IFS='|' read -r args want; do
		[ -n "$args" ] || continue
		set +e
		# shellcheck disable=SC2086 # $args is a list of options
		out=$(SLEB_CACHE=$SLEB_CACHE/cli-check "$SLEB_TOP/scripts/sleb" $args 2>&1 </dev/null)
		rc=$?
		set -e
		c=1
		[ "$rc" != 0 ] && echo "$out" | grep -qF -- "$want" && c=0
		[ "$c" = 0 ] || echo "# scripts/sleb $args: status $rc, said: $(echo "$out" | head -n 2)"
		t_result "$c" "cli: scripts/sleb $args refused (\"$want\")"
	done <<'CASES'
frobnicate|unknown command 'frobnicate'
build --bogus|build: unknown option '--bogus'
build --alloc=slob2|unknown allocator 'slob2'
build --variant=turbo|unknown variant 'turbo'
run --smp=0|--smp must be 1..8
run --numa=x|bad --numa 'x'
run --timeout=soon|bad --timeout 'soon'
run --dimm-node|--dimm-node needs --numa=2 or more
test --bogus|test: unknown option '--bogus'
test --only=nope|--only=nope names no scenario
test --only=|--only needs a scenario name or glob
run --module=bogus|unknown module 'bogus'
recheck /nonexistent/sleb-results|no results folder
bench --rounds=0|bench: --rounds must be 1..100
bench --allocs=slab-nodebug|unknown allocator 'slab-nodebug'
build --bare --alloc=sleb|--bare builds the base without the series, which has SLUB only
run --bare|--bare boots the base without the series, which has SLUB only
bench --allocs=sleb,sleb|--allocs names sleb twice
bench --distro|bench: --distro needs --icount
bench --cache --icount|bench: --cache runs under -icount of its own
bench --scale --icount|bench: --scale runs 8 vCPUs under TCG
bench --isolated --cache|bench: --isolated builds kernels of its own
run --cache-model=l1=32K;ways=8|bad --cache-model 'l1=32K;ways=8'
run --cache-model=out=x|--cache-model: symbols= and out= are set by scripts/sleb
series --bogus|unknown option
series --edit --export|--check, --edit and --export go one at a time
series --check --from=x|series: bad --from 'x'
CASES
	rm -rf "$SLEB_CACHE/cli-check"
}

# Host-side suites: the userspace harness and the series checks.
test_host() {
	test_cli
	local h=$SLEB_TOP/tools/testing/sleb
	if [ -f "$h/Makefile" ]; then
		local out rc
		set +e
		out=$(make -s -C "$h" check 2>&1)
		rc=$?
		set -e
		echo "$out" | grep -E '^(ok|not ok) ' | while IFS= read -r l; do t_line "$l"; done
		T_PASS=$((T_PASS + $(echo "$out" | grep -c '^ok ' || true)))
		T_FAIL=$((T_FAIL + $(echo "$out" | grep -c '^not ok ' || true)))
		[ "$rc" = 0 ] || t_fail "harness: make check exits 0 (status $rc)"
	fi
	t_command "bench_report.py: ratios and spreads of a fixture" \
		python3 "$SLEB_TOP/scripts/tests/test_bench_report.py"
	t_command "bench_docs.py: a base's results replace its own section only" \
		python3 "$SLEB_TOP/scripts/tests/test_bench_docs.py"
	t_command "cache_report.py: per-op rows, the allocator's share, the model check of a fixture" \
		python3 "$SLEB_TOP/scripts/tests/test_cache_report.py"
	t_command "isolated-report.awk: work items, their times and the reaper's of a fixture trace" \
		python3 "$SLEB_TOP/scripts/tests/test_isolated_report.py"
	t_command "kunit_results.py: passes, skips, failures and a crash of a fixture console" \
		python3 "$SLEB_TOP/scripts/tests/test_kunit_results.py" "$WORK"
	if declare -F series_quick_check >/dev/null; then
		series_quick_check
	fi
}

cmd_test() {
	local a alloc t0 line lines only="" list=0 dry=0 n=0 p0 f0 booted=""
	for a in "$@"; do
		case $a in
		--soak) HOTPLUG_CYCLES=100 ;;
		--list) list=1 ;;
		--only=*)
			only=${a#*=}
			[ -n "$only" ] || die "test: --only needs a scenario name or glob (see scripts/sleb test --list)"
			;;
		--dry-run) dry=1 ;;
		*) die "test: unknown option '$a' (see scripts/sleb help)" ;;
		esac
	done
	read_scenarios >/dev/null || die "test: $SCENARIOS has a bad line"
	mapfile -t lines < <(read_scenarios)
	if [ "$list" = 1 ]; then
		test_list
		return 0
	fi
	for line in "${lines[@]}"; do
		scenario_set "$line"
		scenario_check
	done
	if [ -n "$only" ]; then
		for line in "${lines[@]}"; do
			scenario_set "$line"
			scenario_selected "$SC_NAME" "$only" && n=$((n + 1))
		done
		scenario_selected host "$only" && n=$((n + 1))
		[ "$n" -gt 0 ] || die "test: --only=$only names no scenario (see scripts/sleb test --list)"
	fi
	if [ "$dry" = 1 ]; then
		for line in "${lines[@]}"; do
			scenario_set "$line"
			scenario_selected "$SC_NAME" "$only" || continue
			alloc=$(scenario_alloc)
			echo "# $alloc-$SC_NAME"
			scenario_base_ok || echo "# (skipped on this base: it runs on '$SC_BASE')"
			scenario_command "$alloc"
		done
		return 0
	fi
	t0=$(date +%s)
	RESULTS=$SLEB_CACHE/results/$(date +%Y%m%d-%H%M%S)
	mkdir -p "$RESULTS"
	ln -sfn "$(basename "$RESULTS")" "$SLEB_CACHE/results/latest"
	prepare_source
	guest_base_initramfs
	echo "# base: $(base_version) + $(series_patches | wc -l) patches; scenarios: $SCENARIOS"
	echo "# results: $RESULTS"
	if scenario_selected host "$only"; then
		mkdir -p "$RESULTS/host"
		T_TAP=$RESULTS/host/results.tap
		: >"$T_TAP"
		test_host
		T_TAP=""
	fi
	p0=$T_PASS f0=$T_FAIL
	for line in "${lines[@]}"; do
		scenario_set "$line"
		scenario_selected "$SC_NAME" "$only" || continue
		if ! scenario_base_ok; then
			echo "# skip $SC_NAME: it runs on bases '$SC_BASE', not $(base_version)"
			continue
		fi
		test_scenario "$(scenario_alloc)" "$line"
		booted=1
	done
	[ -z "$booted" ] || check_recheck "$((T_PASS - p0)) passed, $((T_FAIL - f0)) failed"
	echo "# took $(($(date +%s) - t0)) s"
	t_counts
	[ "$T_FAIL" = 0 ]
}

# --- bench --------------------------------------------------------------

KBENCH_SRC=$SLEB_TOP/tools/testing/sleb/kbench
KCHECK_SRC=$SLEB_TOP/tools/testing/sleb/kcheck

# build_module OUT NAME SRC...: an external module built out of tree
# against the kernel build OUT, in OUT/NAME, from the files SRC (a Kbuild
# among them, or one is written for NAME.o); sets MODULE_KO.  Returns 1
# with a note when it cannot be built.
build_module() {
	local out=$1 name=$2 dir=$1/$2 f
	shift 2
	MODULE_KO=""
	if [ ! -f "$out/include/generated/autoconf.h" ] || [ ! -f "$out/vmlinux.symvers" ]; then
		note "$name: no finished kernel build in $out"
		return 1
	fi
	if ! grep -q '^CONFIG_MODULES=y' "$out/.config"; then
		note "$name: the kernel of $out has no CONFIG_MODULES"
		return 1
	fi
	mkdir -p "$dir"
	for f in "$@"; do
		cmp -s "$f" "$dir/$(basename "$f")" || cp "$f" "$dir/"
	done
	[ -f "$dir/Kbuild" ] || echo "obj-m := $name.o" >"$dir/Kbuild"
	: >"$dir/build.log"
	# A bzImage build does not make the module linker script.
	if [ ! -f "$out/scripts/module.lds" ] &&
		! make -C "$WORK" O="$out" CC="ccache gcc" HOSTCC="ccache gcc" modules_prepare >"$dir/build.log" 2>&1; then
		note "$name: make modules_prepare in $out failed (log: $dir/build.log)"
		return 1
	fi
	# vmlinux.symvers as extra symbols: modpost checks the module's imports
	# without the Module.symvers of a "make modules".
	if ! make -C "$WORK" O="$out" CC="ccache gcc" HOSTCC="ccache gcc" M="$dir" \
		KBUILD_EXTRA_SYMBOLS="$out/vmlinux.symvers" modules >>"$dir/build.log" 2>&1; then
		grep -E 'error|Error' "$dir/build.log" | head -n 20 >&2 || true
		note "$name: build against $(basename "$out") failed (log: $dir/build.log)"
		return 1
	fi
	MODULE_KO=$(ls "$dir"/*.ko 2>/dev/null | head -n 1)
	[ -n "$MODULE_KO" ] || {
		note "$name: no module in $dir after the build (log: $dir/build.log)"
		return 1
	}
}

# build_kbench OUT: the kbench module (tools/testing/sleb/kbench) built
# against the kernel build OUT; sets KBENCH_KO.
build_kbench() {
	build_module "$1" kbench "$KBENCH_SRC/Kbuild" "$KBENCH_SRC/slab_bench.c" || return 1
	KBENCH_KO=$MODULE_KO
}

# guest_module NAME OUT: build module NAME against the kernel built in OUT;
# sets MODULE_KO and MODULE_GUEST_PATH, where the guest scripts look for it.
guest_module() {
	case $1 in
	kbench)
		build_kbench "$2" || return 1
		MODULE_GUEST_PATH=/kbench/slab_bench.ko
		;;
	kmemleak-test)
		build_module "$2" kmemleak-test "$WORK/samples/kmemleak/kmemleak-test.c" >/dev/null || return 1
		MODULE_GUEST_PATH=/modules/kmemleak-test.ko
		;;
	bulk-memcg)
		build_module "$2" sleb_bulk_memcg "$KCHECK_SRC/sleb_bulk_memcg.c" >/dev/null ||
			return 1
		MODULE_GUEST_PATH=/modules/sleb_bulk_memcg.ko
		;;
	*) die "unknown module '$1' (kbench, kmemleak-test or bulk-memcg)" ;;
	esac
}

# bench_parse ROUND ALLOC LOG: the SLEB-BENCH lines of a console log as rows
# of samples.csv (round,alloc,metric,params,value,unit,timing_mode).
bench_parse() {
	sed 's/^\[ *[0-9.]*\] //' "$3" | awk -v round="$1" -v alloc="$2" -v mode="$BENCH_MODE" '
		function row(metric, params, value, unit) {
			if (value !~ /^[0-9]+(\.[0-9]+)?$/)
				return
			printf "%s,%s,%s,%s,%s,%s,\"%s\"\n", round, alloc, metric, params, value, unit, mode
		}
		/^SLEB-BENCH: / {
			split("", kv)
			for (i = 3; i <= NF; i++) {
				k = $i; sub(/=.*/, "", k)
				v = $i; sub(/^[^=]*=/, "", v)
				kv[k] = v
			}
			kind = $2
			if (kind == "hackbench")
				row("hackbench", "mode=" kv["mode"] " kind=" kv["kind"] " groups=" kv["groups"] " loops=" kv["loops"],
					kv["seconds"], "s")
			else if (kind == "rr")
				row("rr", "proto=" kv["proto"] " pairs=" kv["pairs"], kv["rate"], "transactions/s")
			else if (kind == "kbench" && ("cycles_per_op" in kv)) {
				p = "case=" kv["case"] " size=" kv["size"]
				if ("count" in kv) p = p " count=" kv["count"]
				if ("bulk" in kv) p = p " bulk=" kv["bulk"]
				if ("cpus" in kv) p = p " cpus=" kv["cpus"]
				row("kbench", p, kv["cycles_per_op"], "cycles")
			} else if (kind == "mem") {
				row("slab_kb", "phase=" kv["phase"], kv["slab_kb"], "kB")
				row("sunreclaim_kb", "phase=" kv["phase"], kv["sunreclaim_kb"], "kB")
			} else if (kind == "reclaim") {
				row("reclaim_ipis", "seconds=" kv["seconds"], kv["ipis_per_s"], "IPIs/s")
				row("reclaim_slab_kb", "stat=mean seconds=" kv["seconds"], kv["slab_kb_mean"], "kB")
				row("reclaim_slab_kb", "stat=max seconds=" kv["seconds"], kv["slab_kb_max"], "kB")
			} else if (kind == "slabs" && ("partial" in kv))
				row("partial_slabs", "phase=" kv["phase"] " source=" kv["source"], kv["partial"], "slabs")
			else if (kind == "isolated") {
				p = "phase=" kv["phase"] " seconds=" kv["seconds"]
				row("isolated_work_items", p, kv["work_items"], "work items")
				row("isolated_work_us", p, kv["work_us"], "us")
				row("isolated_reaper_runs", p, kv["reaper_runs"], "runs")
				row("isolated_ticks", p, kv["loc_irqs"], "interrupts")
			}
		}'
}

# bench_text ALLOC OUT: the text size of vmlinux and of the allocator's object.
bench_text() {
	local alloc=$1 out=$2 obj=${3:-$1} t
	t=$(size "$out/vmlinux" 2>/dev/null | awk 'NR == 2 { print $1 }') || t=""
	[ -n "$t" ] && echo "0,$alloc,text_bytes,object=vmlinux,$t,bytes,static"
	t=$(size "$out/mm/$obj.o" 2>/dev/null | awk 'NR == 2 { print $1 }') || t=""
	[ -n "$t" ] && echo "0,$alloc,text_bytes,object=mm/ALLOC.o,$t,bytes,static"
	return 0
}

# bench_report DIR: results.md and the plots from DIR/samples.csv.
bench_report() {
	python3 "$SLEB_TOP/scripts/bench_report.py" "$1"
}

# bench_kernel_name NAME: set base and variant of a bench kernel name;
# X-nodebug is X's nodebug variant (variant-nodebug.config), X its fast one.
bench_kernel_name() {
	base=${1%-nodebug}
	variant=fast
	[ "$base" = "$1" ] || variant=nodebug
}

# bench_finish UPDATE_DOCS SECTION ARGS MODE: the end of a bench run in
# $out: results.md and plots, docs/benchmarks.md's SECTION when UPDATE_DOCS
# is 1 (ARGS: the bench options, for the command it names), the problems,
# and the folder; fails when a boot failed ($failed).
bench_finish() {
	bench_report "$out" || die "bench: the report failed (samples in $out/samples.csv)"
	if [ "$1" = 1 ]; then
		python3 "$SLEB_TOP/scripts/bench_docs.py" "$SLEB_TOP/docs/benchmarks.md" "$2" \
			"$out/results.md" "scripts/sleb bench $3" ||
			die "bench: docs/benchmarks.md not updated"
		note "bench: docs/benchmarks.md updated for $2"
	fi
	if [ -s "$out/errors.txt" ]; then
		note "bench: problems (also in results.md):"
		sed 's/^/  /' "$out/errors.txt" | head -n 20 >&2
	fi
	note "bench: $4; results.md, samples.csv and plots in:"
	echo "$out"
	[ "$failed" = 0 ]
}

# What the boots of bench --cache run.
CACHE_N=1000
CACHE_SIZES=64,256,1024
CACHE_TESTS=51 # seq 1, pair 2, bulk 16, cold 32
CACHE_HACKBENCH="socket:1:20 socket:4:5"
CACHE_EVICT_KB=4096
CACHE_GEOMETRY="L1D 32 KiB 8-way, L2 1 MiB 16-way, 64-byte lines, LRU, per vCPU"
# Boots of the remote free per round: its slabs go back to the page
# allocator, whose per-cpu lists are in a different state from boot to
# boot, so its median needs more samples than the other cases (a boot
# takes about 20 s).
CACHE_REMOTE_BOOTS=3

# bench_alloc_syms ALLOC OUT FILE: the functions of the allocator's objects
# of the build OUT (its own, mm/slab_common.o, and SLEB's debugging
# object), "OBJECT SECTION OFFSET SIZE NAME" a line (objdump -t); the cache
# model's "allocator" scope (scripts/cache_report.py places them in
# System.map).
bench_alloc_syms() {
	local base=${1%-nodebug} o
	[ -f "$2/mm/$base.o" ] || return 1
	for o in slab_common "$base" sleb_debug; do
		[ -f "$2/mm/$o.o" ] || continue
		objdump -t "$2/mm/$o.o" | awk -v obj="mm/$o.o" '$0 ~ / F / {
			n = NF
			if ($(n - 1) == ".hidden")
				print obj, $(n - 3), $1, $(n - 2), $n
			else
				print obj, $(n - 2), $1, $(n - 1), $n
		}'
	done >"$3"
	[ -s "$3" ]
}

# cache_wrapper TESTS HACKBENCH: the guest script of a cache model boot.
cache_wrapper() {
	echo "SLEB_CACHE_N=$CACHE_N"
	echo "SLEB_CACHE_SIZES=$CACHE_SIZES"
	echo "SLEB_CACHE_TESTS=$1"
	echo "SLEB_CACHE_EVICT_KB=$CACHE_EVICT_KB"
	echo "SLEB_CACHE_HACKBENCH=\"$2\""
	echo ". /sleb/guest/cachebench.sh"
}

# bench_cache_boot ROUND ALLOC SMP TESTS HACKBENCH MODE [BOOT]: one boot
# under the cache model (BOOT: its number within the round); its rows go
# to samples.csv.tmp, with the kbench module's instruction figures when it
# runs one vCPU.
bench_cache_boot() {
	local r=$1 a=$2 smp=$3 tests=$4 hb=$5 mode=$6 log wrapper n=0 rows
	bench_kernel_name "$a"
	RUN_ALLOC=$base RUN_VARIANT=$variant RUN_SMP=$smp
	log=$out/logs/round$r-$a-smp$smp${7:+-$7}.log
	wrapper=$out/guest-cache-$tests.sh
	cache_wrapper "$tests" "$hb" >"$wrapper"
	GUEST_FILES="${kos[$a]}:/kbench/slab_bench.ko" guest_run "${kernels[$a]}" "$wrapper" "$log" || true
	if [ "$smp" = 1 ]; then
		n=$(BENCH_MODE="icount shift=0 (instructions), -smp 1" bench_parse "$r" "$a" "$log" |
			{ grep ',kbench,' || true; } | tee -a "$out/samples.csv.tmp" | wc -l)
	fi
	if [ -f "$log.cache" ]; then
		rows=$(python3 "$SLEB_TOP/scripts/cache_report.py" rows "$r" "$a" "$log" "$log.cache" \
			"$(dirname "${kernels[$a]}")/../../../System.map" "$out/syms-$a.txt" "$mode" \
			"$out/cache-sources.tmp" 2>>"$out/errors.txt") || true
		if [ -n "$rows" ]; then
			echo "$rows" >>"$out/samples.csv.tmp"
			n=$((n + $(echo "$rows" | wc -l)))
		fi
	else
		echo "round $r $a smp $smp: the cache model wrote no regions (console: logs/$(basename "$log"))" >>"$out/errors.txt"
	fi
	sed 's/^\[ *[0-9.]*\] //' "$log" | grep -a '^SLEB-BENCH: error \|^sleb-cache: error' |
		sed "s/^/round $r $a smp $smp: /" >>"$out/errors.txt" || true
	if [ "$GUEST_RC" != 0 ]; then
		failed=1
		echo "round $r $a smp $smp: the guest failed, status $GUEST_RC (console: logs/$(basename "$log"))" >>"$out/errors.txt"
	fi
	errs=$(console_errors "$log")
	if [ -n "$errs" ]; then
		failed=1
		echo "$errs" | head -n 3 | sed "s/^/round $r $a: kernel: /" >>"$out/errors.txt"
	fi
	note "bench: round $r/$rounds $a, $smp vCPU(s): $n samples, status $GUEST_RC, ${GUEST_SECONDS} s"
}

# bench_cache ALLOCS UPDATE_DOCS ARGS: the rounds of bench --cache, with
# out, rounds, kernels and kos of cmd_bench.  Each round boots each
# allocator under the cache model and -icount: once with one vCPU for the
# single-CPU cases and hackbench, then CACHE_REMOTE_BOOTS times with two
# vCPUs taking turns on one thread for the remote free.
bench_cache() {
	local a r k mode1 mode2
	RUN_CACHE=on RUN_ICOUNT=1 RUN_NUMA=1 RUN_MEM=1G RUN_QUIET=1 RUN_TIMEOUT=3600
	RUN_APPEND="kunit.filter_glob=no-kunit-in-bench"
	mode1="cache model ($CACHE_GEOMETRY), icount, -smp 1"
	mode2="cache model ($CACHE_GEOMETRY), icount, -smp 2, $CACHE_REMOTE_BOOTS boots a round"
	for a in $1; do
		bench_alloc_syms "$a" "$(dirname "${kernels[$a]}")/../../.." "$out/syms-$a.txt" ||
			die "bench: no allocator objects in the $a build"
	done
	: >"$out/cache-sources.tmp"
	{
		echo "date=$(date '+%Y-%m-%d %H:%M:%S %Z')"
		echo "timing_mode=$mode1; remote free: $mode2"
		echo "accel=tcg-icount + sleb_cache.so"
		echo "allocs=$1"
		echo "rounds=$rounds"
		echo "kbench_n=$CACHE_N"
		echo "cache=1"
		echo "cache_sizes=$CACHE_SIZES"
		echo "cache_hackbench=$CACHE_HACKBENCH"
		echo "cache_evict_kb=$CACHE_EVICT_KB"
		echo "cache_geometry=$CACHE_GEOMETRY"
		echo "base=$(base_version) + $(series_patches | wc -l) patches"
		echo "commit=$(git -C "$SLEB_TOP" describe --always --dirty 2>/dev/null || echo unknown)"
		echo "host=$(nproc) CPUs, $(uname -r)"
		echo "cmdline=nokaslr norandmaps $RUN_APPEND; QEMU -seed 1 -rtc clock=vm"
	} >"$out/meta.txt"
	note "bench: cache model, $1, $rounds round(s); results in $out"
	for ((r = 1; r <= rounds; r++)); do
		for a in $1; do
			bench_cache_boot "$r" "$a" 1 "$CACHE_TESTS" "$CACHE_HACKBENCH" "$mode1"
			for ((k = 1; k <= CACHE_REMOTE_BOOTS; k++)); do
				bench_cache_boot "$r" "$a" 2 8 "" "$mode2" "$k"
			done
		done
	done
	bench_samples_csv
	{
		echo "round,alloc,params,function,memory,l1d_misses_per_op"
		cat "$out/cache-sources.tmp"
	} >"$out/cache-sources.csv"
	rm -f "$out/cache-sources.tmp"
	note "bench: valgrind's cache simulator on the bookkeeping (make -C tools/testing/sleb cachegrind)"
	make -s -C "$SLEB_TOP/tools/testing/sleb" cachegrind >"$out/cachegrind.txt" 2>"$out/cachegrind.log" ||
		echo "cachegrind: make -C tools/testing/sleb cachegrind failed (log: cachegrind.log)" >>"$out/errors.txt"
	bench_finish "$2" "$BASE_ID-cache" "$3" "cache model"
}

# bench_boot_done ROUND ALLOC LOG: after a boot of bench (out, rounds and
# failed of cmd_bench): its samples into samples.csv.tmp, its problems
# into errors.txt, failed=1 if it had any, and a line of progress.
bench_boot_done() {
	local r=$1 a=$2 log=$3 n errs
	n=$(bench_parse "$r" "$a" "$log" | tee -a "$out/samples.csv.tmp" | wc -l)
	sed 's/^\[ *[0-9.]*\] //' "$log" | grep -a '^SLEB-BENCH: error ' |
		sed "s/^SLEB-BENCH: error /round $r $a: /" >>"$out/errors.txt" || true
	if [ "$GUEST_RC" != 0 ]; then
		failed=1
		if [ "$GUEST_RC" = 255 ]; then
			echo "round $r $a: $GUEST_ERROR (console: logs/$(basename "$log"))" >>"$out/errors.txt"
		else
			echo "round $r $a: the guest script exited $GUEST_RC (console: logs/$(basename "$log"))" >>"$out/errors.txt"
		fi
	fi
	errs=$(console_errors "$log")
	if [ -n "$errs" ]; then
		failed=1
		echo "$errs" | head -n 3 | sed "s/^/round $r $a: kernel: /" >>"$out/errors.txt"
	fi
	note "bench: round $r/$rounds $a: $n samples, status $GUEST_RC, ${GUEST_SECONDS} s"
}

# bench_samples_csv: samples.csv from samples.csv.tmp, with its header.
bench_samples_csv() {
	{
		echo "round,alloc,metric,params,value,unit,timing_mode"
		cat "$out/samples.csv.tmp"
	} >"$out/samples.csv"
	rm -f "$out/samples.csv.tmp"
}

# What the boots of bench --isolated run: seconds of each phase.
ISOLATED_SECONDS=20

# bench_isolated ALLOCS UPDATE_DOCS ARGS: the rounds of bench --isolated,
# with out, rounds, kernels of cmd_bench (FLAVOR=nohz).  Each boot
# isolates CPU 1 (nohz_full, isolcpus) and counts the work items that run
# on it while it is idle, while one task has it and while two share it.
bench_isolated() {
	local a r log mode
	mode="TCG, -smp 2, CPU 1 isolated (nohz_full=1 isolcpus=domain,managed_irq,1), ${ISOLATED_SECONDS} s a phase"
	BENCH_MODE=$mode
	RUN_ICOUNT=0 RUN_SMP=2 RUN_VARIANT=fast RUN_NUMA=1 RUN_MEM=1G RUN_QUIET=1 RUN_TIMEOUT=1200
	RUN_APPEND="kunit.filter_glob=no-kunit-in-bench nohz_full=1 isolcpus=domain,managed_irq,1 irqaffinity=0"
	{
		echo "date=$(date '+%Y-%m-%d %H:%M:%S %Z')"
		echo "timing_mode=$mode"
		echo "accel=tcg"
		echo "allocs=$1"
		echo "rounds=$rounds"
		echo "isolated_seconds=$ISOLATED_SECONDS"
		echo "base=$(base_version) + $(series_patches | wc -l) patches"
		echo "commit=$(git -C "$SLEB_TOP" describe --always --dirty 2>/dev/null || echo unknown)"
		echo "host=$(nproc) CPUs, $(uname -r)"
		echo "cmdline=$RUN_APPEND"
	} >"$out/meta.txt"
	echo "SLEB_ISOLATED_SECONDS=$ISOLATED_SECONDS
. /sleb/guest/isolated.sh" >"$out/guest-isolated.sh"
	note "bench: isolated CPU, $1, $rounds round(s); results in $out"
	for ((r = 1; r <= rounds; r++)); do
		for a in $1; do
			bench_kernel_name "$a"
			RUN_ALLOC=$base
			log=$out/logs/round$r-$a.log
			guest_run "${kernels[$a]}" "$out/guest-isolated.sh" "$log" || true
			bench_boot_done "$r" "$a" "$log"
		done
	done
	bench_samples_csv
	bench_finish "$2" "$BASE_ID-isolated" "$3" "isolated CPU"
}

cmd_bench() {
	local quick=0 rounds="" out="" list="" icount=0 nobuild=0 a r allocs="" seen=" " wrapper log n
	local loops kbench_n rr_seconds accel failed=0 errs base variant update_docs=0 cache=0 scale=0
	local isolated=0
	local docs_id=$BASE_ID
	declare -A kernels kos
	for a in "$@"; do
		case $a in
		--quick) quick=1 ;;
		--rounds=*) rounds=${a#*=} ;;
		--out=*)
			out=${a#*=}
			[ -n "$out" ] || die "bench: --out needs a folder"
			;;
		--allocs=*)
			list=${a#*=}
			[ -n "$list" ] || die "bench: --allocs needs a list, e.g. --allocs=sleb,slub"
			;;
		--icount) icount=1 ;;
		--cache) cache=1 ;;
		--scale) scale=1 ;;
		--isolated) isolated=1 ;;
		--distro) FLAVOR=distro ;;
		--no-build) nobuild=1 ;;
		--update-docs) update_docs=1 ;;
		*) die "bench: unknown option '$a' (see scripts/sleb help)" ;;
		esac
	done
	# JUMP_LABEL kernels under multi-threaded TCG: see flavor-distro.config.
	[ -z "$FLAVOR" ] || [ "$icount" = 1 ] || die "bench: --distro needs --icount (one vCPU thread)"
	[ "$cache" = 0 ] || [ "$icount" = 0 ] || die "bench: --cache runs under -icount of its own; leave out --icount"
	[ "$cache" = 0 ] || [ -z "$FLAVOR" ] || die "bench: --cache and --distro do not go together"
	if [ "$scale" = 1 ] && { [ "$icount" = 1 ] || [ "$cache" = 1 ]; }; then
		die "bench: --scale runs 8 vCPUs under TCG; leave out --icount and --cache"
	fi
	if [ "$isolated" = 1 ]; then
		[ "$icount" = 0 ] && [ "$cache" = 0 ] && [ "$scale" = 0 ] && [ -z "$FLAVOR" ] ||
			die "bench: --isolated builds kernels of its own and runs two vCPUs under TCG; leave out --icount, --cache, --scale and --distro"
		FLAVOR=nohz
	fi
	if [ -z "$rounds" ]; then
		rounds=5
		[ "$quick" = 1 ] && rounds=2
		[ "$cache" = 1 ] && rounds=2
	fi
	case $rounds in '' | *[!0-9]*) die "bench: bad --rounds '$rounds' (a number, 1..100)" ;; esac
	[ "$rounds" -ge 1 ] && [ "$rounds" -le 100 ] || die "bench: --rounds must be 1..100"
	if [ -z "$list" ]; then
		# Every allocator the base has: on 7.3, SLEB and SLUB (sheaves).
		list=$(echo "$ALLOCS" | tr ' ' ',')
		[ -f "$SLEB_TOP/mm/sleb.c" ] || list=slub
	fi
	for a in $(echo "$list" | tr ',' ' '); do
		case $a in
		slub-nodebug | sleb-nodebug) check_alloc "${a%-nodebug}" ;;
		*-nodebug) die "bench: unknown allocator '$a' (one of: $ALLOCS, sleb-nodebug, slub-nodebug)" ;;
		*) check_alloc "$a" ;;
		esac
		case $seen in *" $a "*) die "bench: --allocs names $a twice" ;; esac
		seen="$seen$a "
		allocs="$allocs $a"
	done
	allocs=${allocs# }
	[ -n "$allocs" ] || die "bench: --allocs names no allocator"
	loops=800
	kbench_n=10000
	# Its concurrent cases hold n objects per CPU: 8 CPUs of 16 KiB
	# objects at n=10000 take 1.25 GiB, more than a node of the scale
	# point has (512 MiB).
	[ "$scale" = 0 ] || kbench_n=2000
	rr_seconds=2
	[ -n "$out" ] || out=$SLEB_CACHE/bench/$(date +%Y%m%d-%H%M%S)
	mkdir -p "$out/logs" || die "bench: cannot create $out"
	out=$(cd "$out" && pwd)
	: >"$out/samples.csv.tmp"
	: >"$out/errors.txt"
	: >"$out/kernels.txt"
	ensure_pkgs python3
	command -v gnuplot >/dev/null || ensure_pkgs gnuplot-nox

	# The fast variant of each allocator: the same base.config and
	# variant-fast.config, only alloc-*.config differs.
	if [ "$nobuild" = 1 ]; then
		prepare_source
	fi
	for a in $allocs; do
		bench_kernel_name "$a"
		if [ "$nobuild" = 1 ]; then
			OUT=$(build_dir "$base" "$variant")
			KERNEL=$OUT/arch/x86/boot/bzImage
			[ -f "$KERNEL" ] || die "bench: --no-build, but there is no $base-$variant kernel ($KERNEL)"
		else
			build_kernel "$base" "$variant"
		fi
		build_kbench "$OUT" || die "bench: the kbench module does not build against $base-$variant"
		kernels[$a]=$KERNEL
		kos[$a]=$KBENCH_KO
		echo "$a $OUT" >>"$out/kernels.txt"
		bench_text "$a" "$OUT" "$base" >>"$out/samples.csv.tmp"
		[ -f "$OUT/config.dropped" ] && sed "s/^/$base-$variant: /" "$OUT/config.dropped" >>"$out/config-dropped.txt"
	done
	guest_base_initramfs

	if [ "$cache" = 1 ]; then
		bench_cache "$allocs" "$update_docs" "$*"
		return
	fi
	if [ "$isolated" = 1 ]; then
		bench_isolated "$allocs" "$update_docs" "$*"
		return
	fi
	if [ "$icount" = 1 ]; then
		RUN_ICOUNT=1 RUN_SMP=1 accel=tcg-icount
		BENCH_MODE="icount shift=0 (instructions), -smp 1"
		[ -z "$FLAVOR" ] || BENCH_MODE="$BENCH_MODE, $FLAVOR kernels (-O2, JUMP_LABEL)"
	else
		RUN_ICOUNT=0 RUN_SMP=2
		a=${allocs%% *}
		accel=$(probe_accel "${kernels[$a]}")
		if [ "$accel" = kvm ]; then
			BENCH_MODE="KVM wall clock, -smp 2"
		else
			BENCH_MODE="TCG wall clock, -smp 2"
		fi
	fi
	# The scale point: 8 vCPUs over 4 nodes, for correctness and footprint
	# (Slab, partial slabs).  Under TCG on a host with fewer cores the
	# vCPUs take turns, so its times show no lock contention.
	if [ "$scale" = 1 ]; then
		RUN_SMP=8
		BENCH_MODE="${BENCH_MODE%-smp 2}-smp 8, 4 nodes, 2 GiB (on $(nproc) host CPUs: footprint and correctness, not contention)"
		docs_id=$BASE_ID-scale
	fi
	# The kernels carry the allocators' KUnit suites (the test kernels'
	# configuration); run at boot, SLUB's and SLEB's debug suites would
	# leave their debugging static keys on and their caches' memory in the
	# figures.  A filter that matches no suite keeps KUnit out.
	RUN_VARIANT=fast RUN_NUMA=1 RUN_MEM=1G RUN_APPEND="kunit.filter_glob=no-kunit-in-bench" RUN_QUIET=1 RUN_TIMEOUT=1800
	[ "$scale" = 0 ] || RUN_NUMA=4 RUN_MEM=2G RUN_TIMEOUT=3600
	[ "$icount" = 1 ] && RUN_TIMEOUT=3600
	{
		echo "date=$(date '+%Y-%m-%d %H:%M:%S %Z')"
		echo "timing_mode=$BENCH_MODE"
		echo "accel=$accel"
		echo "allocs=$allocs"
		echo "rounds=$rounds"
		echo "loops=$loops"
		echo "kbench_n=$kbench_n"
		echo "rr_seconds=$rr_seconds"
		echo "base=$(base_version) + $(series_patches | wc -l) patches"
		echo "commit=$(git -C "$SLEB_TOP" describe --always --dirty 2>/dev/null || echo unknown)"
		echo "host=$(nproc) CPUs, $(uname -r)"
		echo "cmdline=$RUN_APPEND"
	} >"$out/meta.txt"
	wrapper=$out/guest-bench.sh
	cat >"$wrapper" <<EOF
SLEB_BENCH_LOOPS=$loops
SLEB_BENCH_KBENCH_N=$kbench_n
SLEB_BENCH_RR_SECONDS=$rr_seconds
. /sleb/guest/bench.sh
EOF
	note "bench: $allocs, $rounds round(s), $BENCH_MODE; results in $out"

	# Interleaved: A B C, A B C, ... so that drift of the host hits all alike.
	for ((r = 1; r <= rounds; r++)); do
		for a in $allocs; do
			bench_kernel_name "$a"
			RUN_ALLOC=$base RUN_VARIANT=$variant
			log=$out/logs/round$r-$a.log
			GUEST_FILES="${kos[$a]}:/kbench/slab_bench.ko" guest_run "${kernels[$a]}" "$wrapper" "$log" || true
			bench_boot_done "$r" "$a" "$log"
		done
	done
	bench_samples_csv
	bench_finish "$update_docs" "$docs_id" "$*" "$BENCH_MODE"
}

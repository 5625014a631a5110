# SPDX-License-Identifier: GPL-2.0
# scripts/sleb test, bench and series; sourced by scripts/sleb.

T_PASS=0
T_FAIL=0

t_ok() {
	echo "ok - $*"
	T_PASS=$((T_PASS + 1))
}

t_fail() {
	echo "not ok - $*"
	T_FAIL=$((T_FAIL + 1))
}

# t_result COND NAME: COND is 0 for a pass.
t_result() {
	if [ "$1" = 0 ]; then t_ok "$2"; else t_fail "$2"; fi
}

# Count the KUnit cases of a console log: every case result one level
# below its suite, and every suite whose plan was not met.
count_kunit() {
	local log=$1 tag=$2 line
	while IFS= read -r line; do
		case $line in
		"PASS "*) t_ok "$tag: kunit ${line#PASS }" ;;
		"FAIL "*) t_fail "$tag: kunit ${line#FAIL }" ;;
		esac
	done < <(sed 's/^\[ *[0-9.]*\] //' "$log" | awk '
		/^    # Subtest: / { suite = $3; plan = 0; seen = 0; next }
		/^    1\.\.[0-9]+$/ { sub(/^ *1\.\./, ""); plan = $0; next }
		/^    (not )?ok [0-9]+ / {
			ok = ($1 == "ok"); name = $0
			sub(/^ *(not )?ok [0-9]+ (- )?/, "", name)
			seen++
			print (ok ? "PASS " : "FAIL ") suite "." name
			next
		}
		/^(not )?ok [0-9]+ / {
			if (plan && seen != plan) print "FAIL " suite ": ran " seen " of " plan " cases"
			plan = 0
		}')
}

count_guest_tap() {
	local log=$1 tag=$2 line name
	while IFS= read -r line; do
		case $line in
		"SLEB-TAP: ok - "*) t_ok "$tag: ${line#SLEB-TAP: ok - }" ;;
		"SLEB-TAP: not ok - "*) t_fail "$tag: ${line#SLEB-TAP: not ok - }" ;;
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

count_meminit() {
	local log=$1 tag=$2 line
	line=$(grep -o 'test_meminit: .*' "$log" | grep -E 'all [0-9]+ tests passed|failures:' | tail -n 1 || true)
	case $line in
	*"tests passed"*) t_ok "$tag: test_meminit (${line#test_meminit: })" ;;
	"") t_fail "$tag: test_meminit did not report" ;;
	*) t_fail "$tag: test_meminit (${line#test_meminit: })" ;;
	esac
}

# test_kernel ALLOC VARIANT TAG SCRIPT [APPEND]: build, boot SCRIPT, count.
test_kernel() {
	local alloc=$1 variant=$2 tag=$3 script=$4 log errs
	if ! (build_kernel "$alloc" "$variant" >/dev/null); then
		t_fail "$tag: kernel builds"
		return
	fi
	build_kernel "$alloc" "$variant" >/dev/null 2>&1
	RUN_ALLOC=$alloc RUN_VARIANT=$variant RUN_QUIET=1 RUN_APPEND=${5:-}
	log=$SLEB_CACHE/logs/test-$tag.log
	guest_run "$KERNEL" "$SLEB_TOP/scripts/guest/$script" "$log" || true
	if [ "$GUEST_RC" = 255 ]; then
		t_fail "$tag: boots and runs $script ($GUEST_ERROR)"
	else
		t_result "$GUEST_RC" "$tag: $script exits 0 (status $GUEST_RC, ${GUEST_SECONDS} s)"
	fi
	count_kunit "$log" "$tag"
	case " ${5:-} " in
	*" init_on_alloc=1 "* | *" init_on_free=1 "*) count_meminit "$log" "$tag" ;;
	esac
	count_guest_tap "$log" "$tag"
	errs=$(console_errors "$log")
	if [ -n "$errs" ]; then
		echo "$errs" | head -n 10 | sed 's/^/# /'
		t_fail "$tag: console free of WARNING/BUG/lockdep/KASAN reports (log: $log)"
	else
		t_ok "$tag: console free of WARNING/BUG/lockdep/KASAN reports"
	fi
}

# Host-side suites: the userspace harness and the series checks.
test_host() {
	local h=$SLEB_TOP/tools/testing/sleb
	if [ -f "$h/Makefile" ]; then
		local out rc
		set +e
		out=$(make -s -C "$h" check 2>&1)
		rc=$?
		set -e
		echo "$out" | grep -E '^(ok|not ok) ' | while IFS= read -r l; do echo "$l"; done
		T_PASS=$((T_PASS + $(echo "$out" | grep -c '^ok ' || true)))
		T_FAIL=$((T_FAIL + $(echo "$out" | grep -c '^not ok ' || true)))
		[ "$rc" = 0 ] || t_fail "harness: make check exits 0 (status $rc)"
	fi
	if declare -F series_quick_check >/dev/null; then
		series_quick_check
	fi
}

cmd_test() {
	local a kernels alloc v t0
	for a in "$@"; do
		case $a in
		*) die "test: unknown option '$a' (see scripts/sleb help)" ;;
		esac
	done
	t0=$(date +%s)
	mkdir -p "$SLEB_CACHE/logs"
	if [ -f "$SLEB_TOP/mm/sleb.c" ]; then
		alloc=sleb
	else
		alloc=slub
	fi
	kernels="$alloc:fast $alloc:debug"
	prepare_source
	guest_base_initramfs
	echo "# base: $(base_version) + $(series_patches | wc -l) patches; kernels: $kernels"
	test_host
	for v in fast debug; do
		test_kernel "$alloc" "$v" "$alloc-$v" suite.sh
		test_kernel "$alloc" "$v" "$alloc-$v-init_on" meminit.sh "init_on_alloc=1 init_on_free=1"
	done
	echo "# took $(($(date +%s) - t0)) s"
	echo "$T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" = 0 ]
}

cmd_bench() {
	die "bench: not implemented yet (issue 6)"
}

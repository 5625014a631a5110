# SPDX-License-Identifier: GPL-2.0
# scripts/sleb series: the project as a git format-patch series against the
# base; sourced by scripts/sleb.

SERIES_GIT=$SERIES_DIR/git
SERIES_AUTHOR="SLEB developers <sleb@example.org>"
SERIES_SOB="Signed-off-by: $SERIES_AUTHOR"
# Userspace code under tools/testing/sleb spells out GCC attributes, as
# tools/ does, and defines libFuzzer's entry point and sanitizer hook; its
# node_shim.h has the list walking macros of include/linux/list.h, whose
# loop variables and member names are used more than once by design.
SERIES_TOOLS_EXCEPTIONS="[0-9]{4}-tools-testing-sleb-[^:]*:[0-9]*: (WARNING: Prefer (noinline|__noclone|__printf|__noreturn|__weak)|ERROR: Using weak declarations|CHECK: Avoid CamelCase: <LLVMFuzzerTestOneInput>|CHECK: Macro argument reuse '(pos|n|head|member)' - possible side-effects\\?|CHECK: Macro argument 'member' may be better as '\\(member\\)')"
# checkpatch reads 'source "mm/Kconfig.sleb"' in mm/Kconfig as the file naming itself.
SERIES_KCONFIG_EXCEPTION="[0-9]*-mm-sleb-add-SLEB-the-Enhanced-Slab-Allocator.patch:[0-9]*: WARNING: It's generally not useful to have the filename in the file"

# Patch 1 moves code out of mm/slub.c as it is: the alignment, long lines
# and CamelCase page type helpers it carries are mm/slub.c's own.
SERIES_MOVE_EXCEPTIONS="0001-mm-slab-move-allocator-independent-hooks-out-of-slu[^:]*:[0-9]*: (CHECK: Alignment should match open parenthesis|CHECK: Avoid CamelCase: <__(Set|Clear)PageLargeKmalloc>|WARNING: line length of [0-9]+ exceeds 100 columns)"
# The allocator calls the kernel's page type helpers __SetPageSlab() and
# __ClearPageSlab(); for_each_kmem_cache_node() names its loop variable in
# the loop's three clauses, as SLUB's iterator of that name does.
SERIES_SLEB_EXCEPTIONS="[0-9]*-mm-sleb-add-SLEB-the-Enhanced-Slab-Allocator.patch:[0-9]*: (CHECK: Avoid CamelCase: <__(Set|Clear)PageSlab>|CHECK: Macro argument reuse 'node' - possible side-effects\\?)"

sgit() {
	GIT_DIR=$SERIES_GIT GIT_INDEX_FILE=$SERIES_DIR/index \
		GIT_AUTHOR_NAME="SLEB developers" GIT_AUTHOR_EMAIL=sleb@example.org \
		GIT_COMMITTER_NAME="SLEB developers" GIT_COMMITTER_EMAIL=sleb@example.org \
		GIT_AUTHOR_DATE="2026-12-02T00:00:00Z" GIT_COMMITTER_DATE="2026-12-02T00:00:00Z" \
		git "$@"
}

# A git repository whose one commit is the pristine base (made once; the
# pristine tree is only read).
series_base() {
	ensure_pkgs git
	if sgit rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
		return 0
	fi
	note "recording the pristine base in $SERIES_GIT (once, about a minute)"
	rm -rf "$SERIES_GIT" "$SERIES_DIR/index"
	mkdir -p "$SERIES_GIT"
	sgit init -q
	sgit config core.bare false
	sgit --work-tree="$PRISTINE" add -A -f . ':!.sleb-pristine'
	sgit commit -q -m "$(base_version)"
	sgit tag base
}

# The commits of the series.  Each entry: subject, then the items it adds:
#   patch:NAME   a patch of patches/ (applied on the files as they stand)
#   file:PATH    a project file at its kernel path
#   kconfig      Kconfig.sleb as mm/Kconfig.sleb
#   kconfig:-SYM Kconfig.sleb without the entry of config SYM (added by a
#                later commit with "kconfig", so every commit builds)
#   maintainers  the MAINTAINERS entry
series_plan() {
	cat <<'EOF'
mm/slab: move allocator-independent hooks out of slub.c
	patch:0001-mm-slab-move-allocator-independent-hooks-out-of-slub.patch
mm/slab: share the vmalloc fallback of kvmalloc()
	patch:0002-mm-slab-share-the-vmalloc-fallback-of-kvmalloc.patch
mm/slab: prepare the shared slab code for SLEB
	patch:0003-mm-slab-prepare-the-shared-slab-code-for-SLEB.patch
mm/sleb: add SLEB, the Enhanced Slab Allocator
	file:mm/sleb_map.h
	file:mm/sleb_node.h
	file:mm/sleb_def.h
	file:mm/sleb.h
	file:mm/sleb.c
	file:mm/sleb_debug.c
	kconfig:-SLEB_KUNIT_TEST
	patch:0004-mm-sleb-add-SLEB-to-the-allocator-choice.patch
mm/sleb: add KUnit tests
	file:lib/tests/sleb_kunit.c
	kconfig
	patch:0005-lib-tests-build-the-SLEB-KUnit-tests.patch
selftests/sleb: test the sysfs and /proc/slabinfo interface
	dir:tools/testing/selftests/sleb
	patch:0006-selftests-add-sleb-to-TARGETS.patch
tools/testing/sleb: userspace harness and fuzzer of the bookkeeping
	dir:tools/testing/sleb
Documentation/mm: document SLEB
	file:Documentation/mm/sleb.rst
	patch:0007-docs-mm-add-SLEB-to-the-index.patch
MAINTAINERS: add an entry for SLEB
	maintainers
EOF
}

# The message body of a patch of patches/: from the blank line after its
# Subject to its Signed-off-by, both left out.
patch_message() {
	sed -n '/^$/,/^Signed-off-by/p' "$SLEB_TOP/patches/$1" | sed '/^Signed-off-by/d' | sed '1d'
}

# The number in the series of the commit whose subject starts with $1.
plan_number() {
	series_plan | grep -v $'^\t' | grep -n -F -m 1 "$1" | cut -d: -f1
}

# The commit message body of each commit, by subject.
series_body() {
	case $1 in
	"mm/slab: move"*)
		patch_message 0001-mm-slab-move-allocator-independent-hooks-out-of-slub.patch
		;;
	"mm/slab: share"*)
		patch_message 0002-mm-slab-share-the-vmalloc-fallback-of-kvmalloc.patch
		;;
	"mm/slab: prepare"*)
		patch_message 0003-mm-slab-prepare-the-shared-slab-code-for-SLEB.patch
		;;
	"mm/sleb: add SLEB"*)
		cat "$SLEB_TOP/scripts/series/mm-sleb-add-SLEB.msg"
		;;
	"mm/sleb: add KUnit"*)
		cat "$SLEB_TOP/scripts/series/mm-sleb-add-KUnit.msg"
		;;
	"selftests/sleb"*)
		cat "$SLEB_TOP/scripts/series/selftests-sleb.msg"
		;;
	"tools/testing/sleb"*)
		cat "$SLEB_TOP/scripts/series/tools-testing-sleb.msg"
		;;
	"Documentation/mm"*)
		cat "$SLEB_TOP/scripts/series/Documentation-mm.msg"
		;;
	"MAINTAINERS"*)
		cat "$SLEB_TOP/scripts/series/MAINTAINERS.msg"
		;;
	esac
}

# kconfig_without SYM FILE: Kconfig FILE without the entry of config SYM
# (from its "config SYM" line up to the next entry).
kconfig_without() {
	grep -q "^config $1\$" "$2" || die "series: $2 has no config $1"
	awk -v sym="$1" '
		/^(config|menuconfig|choice|endchoice|menu|endmenu|if|endif|source|comment) / ||
		/^(choice|endchoice|endmenu|endif)$/ { skip = ($0 == "config " sym) }
		!skip
	' "$2"
}

series_mode() {
	if [ -x "$1" ]; then echo 100755; else echo 100644; fi
}

# series_add_item STAGE ITEM: bring an item into the staging tree and list
# the kernel paths it touched.
series_add_item() {
	local stage=$1 item=$2 f p
	case $item in
	patch:*)
		p=$SLEB_TOP/patches/${item#patch:}
		[ -f "$p" ] || die "series: $p not found"
		for f in $(patch_files "$p"); do
			if [ ! -e "$stage/$f" ]; then
				mkdir -p "$stage/$(dirname "$f")"
				cp "$PRISTINE/$f" "$stage/$f"
			fi
			echo "$f"
		done
		patch -p1 -d "$stage" --batch --forward --no-backup-if-mismatch -r - -s <"$p" >&2 ||
			die "series: patch ${item#patch:} does not apply"
		;;
	file:*)
		f=${item#file:}
		mkdir -p "$stage/$(dirname "$f")"
		cp -p "$SLEB_TOP/$f" "$stage/$f"
		echo "$f"
		;;
	dir:*)
		f=${item#dir:}
		(cd "$SLEB_TOP" && git ls-files "$f") | while read -r p; do
			mkdir -p "$stage/$(dirname "$p")"
			cp -p "$SLEB_TOP/$p" "$stage/$p"
			echo "$p"
		done
		;;
	kconfig)
		mkdir -p "$stage/mm"
		cp "$SLEB_TOP/Kconfig.sleb" "$stage/mm/Kconfig.sleb"
		echo mm/Kconfig.sleb
		;;
	kconfig:-*)
		mkdir -p "$stage/mm"
		kconfig_without "${item#kconfig:-}" "$SLEB_TOP/Kconfig.sleb" >"$stage/mm/Kconfig.sleb"
		echo mm/Kconfig.sleb
		;;
	maintainers)
		merge_maintainers "$PRISTINE/MAINTAINERS" "$SLEB_TOP/MAINTAINERS" "$stage/MAINTAINERS"
		echo MAINTAINERS
		;;
	*) die "series: unknown item '$item'" ;;
	esac
}

# Make the commits on top of the base; leaves refs/heads/sleb.
series_commit_all() {
	local stage parent subject="" items="" line
	stage=$(mktemp -d)
	parent=$(sgit rev-parse base)
	sgit read-tree base
	commit_one() {
		local f blob tree msg
		[ -n "$subject" ] || return 0
		for item in $items; do
			for f in $(series_add_item "$stage" "$item"); do
				blob=$(sgit hash-object -w "$stage/$f")
				sgit update-index --add --cacheinfo "$(series_mode "$stage/$f"),$blob,$f"
			done
		done
		tree=$(sgit write-tree)
		msg=$(printf '%s\n\n%s\n\n%s\n' "$subject" "$(series_body "$subject")" "$SERIES_SOB")
		parent=$(echo "$msg" | sgit commit-tree "$tree" -p "$parent")
	}
	while IFS= read -r line; do
		case $line in
		"	"*) items="$items ${line#	}" ;;
		*)
			commit_one
			subject=$line
			items=""
			;;
		esac
	done < <(series_plan)
	commit_one
	sgit update-ref refs/heads/sleb "$parent"
	rm -rf "$stage"
}

series_cover() {
	local out=$1 cover table
	cover=$out/0000-cover-letter.patch
	table=$(ls -t "$SLEB_CACHE"/bench/*/results.md 2>/dev/null | head -n 1 || true)
	python3 "$SLEB_TOP/scripts/series/cover.py" "$cover" "$(base_version)" "$table" \
		"$(plan_number 'mm/sleb: add SLEB')" "$(plan_number 'tools/testing/sleb:')"
}

# Write the series into $1; prints the patch files.
series_write() {
	local out=$1
	prepare_source
	series_base
	series_commit_all
	rm -rf "$out"
	mkdir -p "$out"
	sgit format-patch -q --cover-letter --subject-prefix="PATCH" -o "$out" base..sleb >/dev/null
	series_cover "$out"
	ls "$out"/*.patch
}

# checkpatch --strict on every patch; the MAINTAINERS warning of patches
# before the MAINTAINERS patch is the listed exception.
series_checkpatch() {
	local p out bad
	for p in "$1"/0*.patch; do
		case $(basename "$p") in 0000-*) continue ;; esac
		out=$(perl "$WORK/scripts/checkpatch.pl" --strict --no-tree --terse "$p" 2>&1 || true)
		bad=$(echo "$out" | grep -E ': (ERROR|WARNING|CHECK):' |
			grep -v 'added, moved or deleted file(s), does MAINTAINERS need updating' |
			grep -v "$SERIES_KCONFIG_EXCEPTION" | grep -Ev "$SERIES_TOOLS_EXCEPTIONS" |
			grep -Ev "$SERIES_MOVE_EXCEPTIONS" | grep -Ev "$SERIES_SLEB_EXCEPTIONS" || true)
		if [ -z "$bad" ]; then
			t_ok "series: checkpatch --strict $(basename "$p")"
		else
			echo "$bad" | head -n 10 | sed 's/^/# /'
			t_fail "series: checkpatch --strict $(basename "$p")"
		fi
	done
}

# W=1, sparse and kernel-doc on SLEB's objects in the sleb-lockdep build
# (a kernel scripts/sleb test boots anyway).
series_compile_checks() {
	local out
	# Configured and built as the tests build it (a stale .config is redone).
	if ! (build_kernel sleb lockdep >/dev/null); then
		t_fail "series: sleb-lockdep builds for the W=1 and sparse checks"
		return
	fi
	OUT=$(build_dir sleb lockdep)
	ensure_pkgs sparse
	touch "$WORK/mm/sleb.c" "$WORK/mm/sleb_debug.c" "$WORK/lib/tests/sleb_kunit.c"
	out=$(kmake W=1 mm/sleb.o mm/sleb_debug.o lib/tests/sleb_kunit.o 2>&1 | grep -E 'warning:|error:' || true)
	if [ -z "$out" ]; then t_ok "series: make W=1 mm/sleb.o mm/sleb_debug.o lib/tests/sleb_kunit.o is clean"; else
		{ echo "$out" | head -n 10 | sed 's/^/# /'; } || true
		t_fail "series: make W=1 mm/sleb.o mm/sleb_debug.o lib/tests/sleb_kunit.o is clean"
	fi
	# Debian's sparse (0.6.4) predates __typeof_unqual__, which 7.3's
	# headers use: the kernel's own probe says whether this one can check.
	if [ "$(cd "$WORK" && scripts/checker-valid.sh sparse -m64 2>/dev/null)" != 1 ]; then
		t_line "# series: sparse skipped: $(sparse --version 2>/dev/null) fails the kernel's scripts/checker-valid.sh"
	else
		out=$(kmake C=2 mm/sleb.o mm/sleb_debug.o lib/tests/sleb_kunit.o 2>&1 | grep -vE '^ *(CC|CHECK|DESCEND|CALL|HOSTCC|HOSTLD|GEN|SYNC|MKELF|LD|AR|LINK|make)( |$)|^$|Leaving|Entering' || true)
		if [ -z "$out" ]; then t_ok "series: sparse (make C=2) on SLEB's objects is silent"; else
			{ echo "$out" | head -n 10 | sed 's/^/# /'; } || true
			t_fail "series: sparse (make C=2) on SLEB's objects is silent"
		fi
	fi
	out=$(cd "$WORK" && perl scripts/kernel-doc -none mm/sleb.c mm/sleb.h mm/sleb_debug.c mm/sleb_map.h mm/sleb_node.h mm/sleb_def.h 2>&1 || true)
	if [ -z "$out" ]; then t_ok "series: kernel-doc -none on mm/sleb.c and its headers"; else
		{ echo "$out" | head -n 10 | sed 's/^/# /'; } || true
		t_fail "series: kernel-doc -none on mm/sleb.c and its headers"
	fi
	series_htmldocs
}

# make htmldocs of Documentation/mm (SPHINXDIRS=mm, seconds): sleb.html is
# written and no warning names a SLEB file.  The other warnings of a
# SPHINXDIRS build are references to documents outside mm/.
series_htmldocs() {
	local dir=$SERIES_DIR/htmldocs out
	ensure_pkgs python3-sphinx python3-sphinx-rtd-theme
	rm -rf "$dir/Documentation/output/mm"
	out=$(cd "$WORK" && make O="$dir" SPHINXDIRS=mm htmldocs 2>&1 | grep -E 'WARNING|ERROR' |
		grep -E "$WORK/(Documentation/mm/sleb(\.rst)?|mm/sleb[a-z_]*\.[ch]|include/linux/sleb[a-z_]*\.h):" || true)
	if [ -z "$out" ] && [ -s "$dir/Documentation/output/mm/sleb.html" ]; then
		t_ok "series: make htmldocs (SPHINXDIRS=mm) builds sleb.html without warnings"
	else
		{ echo "$out" | head -n 10 | sed 's/^/# /'; } || true
		t_fail "series: make htmldocs (SPHINXDIRS=mm) builds sleb.html without warnings"
	fi
}

# The quick form run by "scripts/sleb test": the last patch's checks.
series_quick_check() {
	local out=$SERIES_DIR/out
	if ! series_write "$out" >/dev/null; then
		t_fail "series: the series can be generated"
		return
	fi
	t_ok "series: generated $(ls "$out"/0*.patch | grep -vc '/0000-cover-letter') patches and a cover letter"
	series_checkpatch "$out"
	series_compile_checks
}

# Full check: git am on a fresh tree, every patch builds with SLEB and SLUB.
series_full_check() {
	local out=$1 tree=$SERIES_DIR/am-tree n=0 p alloc b
	rm -rf "$tree"
	git clone -q --shared "$SERIES_GIT" "$tree" 2>/dev/null || git clone -q "$SERIES_GIT" "$tree"
	(cd "$tree" && git checkout -q -b am base)
	if (cd "$tree" && git am -q $(ls "$out"/0*.patch | grep -v '/0000-cover-letter')); then
		t_ok "series: git am of the series on a fresh base tree"
	else
		t_fail "series: git am of the series on a fresh base tree"
		return
	fi
	for p in $(cd "$tree" && git rev-list --reverse base..am); do
		n=$((n + 1))
		(cd "$tree" && git checkout -q "$p")
		for alloc in sleb slub; do
			b=$SERIES_DIR/build-$alloc
			mkdir -p "$b"
			if [ "$alloc" = sleb ] && [ ! -f "$tree/mm/sleb.c" ]; then
				t_ok "series: patch $n builds with CONFIG_SLEB=y # SKIP SLEB not added yet"
				continue
			fi
			(cd "$tree" && make O="$b" tinyconfig >/dev/null 2>&1 &&
				scripts/kconfig/merge_config.sh -m -O "$b" "$b/.config" \
					$(config_fragments "$alloc" fast) >/dev/null 2>&1 &&
				make O="$b" olddefconfig >/dev/null 2>&1)
			if make -C "$tree" O="$b" CC="ccache gcc" -j"$JOBS" bzImage >"$b/build.log" 2>&1; then
				t_ok "series: patch $n builds with CONFIG_$(echo $alloc | tr a-z A-Z)=y"
			else
				t_fail "series: patch $n builds with CONFIG_$(echo $alloc | tr a-z A-Z)=y (log: $b/build.log)"
			fi
		done
	done
	(cd "$tree" && git checkout -q am)
}

cmd_series() {
	local out="" check=0 a
	for a in "$@"; do
		case $a in
		--out=*) out=${a#*=} ;;
		--check) check=1 ;;
		*) die "series: unknown option '$a' (see scripts/sleb help)" ;;
		esac
	done
	[ -n "$out" ] || out=$SERIES_DIR/out
	case $out in /*) ;; *) out=$PWD/$out ;; esac
	series_write "$out"
	echo "# series written to $out"
	[ "$check" = 1 ] || return 0
	series_checkpatch "$out"
	series_compile_checks
	series_full_check "$out"
	echo "$T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" = 0 ]
}

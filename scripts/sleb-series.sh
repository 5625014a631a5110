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
SERIES_KCONFIG_EXCEPTION="[0-9]*-mm-sleb-add-event-counters-CONFIG_SLEB_STATS.patch:[0-9]*: WARNING: It's generally not useful to have the filename in the file"

# Patch 1 moves code out of mm/slub.c as it is: the alignment, long lines
# and CamelCase page type helpers it carries are mm/slub.c's own.
SERIES_MOVE_EXCEPTIONS="0001-mm-slab-move-allocator-independent-hooks-out-of-slu[^:]*:[0-9]*: (CHECK: Alignment should match open parenthesis|CHECK: Avoid CamelCase: <__(Set|Clear)PageLargeKmalloc>|WARNING: line length of [0-9]+ exceeds 100 columns)"
# The allocator calls the kernel's page type helpers __SetPageSlab() and
# __ClearPageSlab(); for_each_kmem_cache_node() names its loop variable in
# the loop's three clauses, as SLUB's iterator of that name does.
SERIES_SLEB_EXCEPTIONS="[0-9]*-mm-sleb-add-[^:]*:[0-9]*: (CHECK: Avoid CamelCase: <__(Set|Clear)PageSlab>|CHECK: Macro argument reuse 'node' - possible side-effects\\?)"

# Commits keep the author and date a patch names (series_commit_all); the
# committer and its date are fixed, so that the same patches make the same
# commits.
sgit() {
	GIT_DIR=$SERIES_GIT GIT_INDEX_FILE=$SERIES_DIR/index \
		GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-SLEB developers} \
		GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-sleb@example.org} \
		GIT_AUTHOR_DATE=${GIT_AUTHOR_DATE:-2026-12-02T00:00:00Z} \
		GIT_COMMITTER_NAME="SLEB developers" GIT_COMMITTER_EMAIL=sleb@example.org \
		GIT_COMMITTER_DATE="2026-12-02T00:00:00Z" \
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

# The series is patches/: git format-patch files, applied in the order of
# patches/series, the first ones changing existing kernel files, the
# others adding SLEB's.  The files the series adds are kept at their kernel
# paths in the repository too (mm/Kconfig.sleb as Kconfig.sleb, and the
# entry it adds to MAINTAINERS as MAINTAINERS): the builds lay them over
# the applied series (stage_series), so that a change can be tried before
# it goes into its patch, and series_matches_repo checks that the last
# patch yields exactly them.  scripts/sleb series --edit and --export take
# the series to a git tree and back (docs/series.md).

# Make the commits of patches/ on top of the base, as git am would, without
# a checkout of the whole tree: the files a patch touches are staged in a
# folder of their own.  Leaves refs/heads/sleb.
series_commit_all() {
	local stage info parent p f blob tree author email date subject
	stage=$(mktemp -d)
	info=$(mktemp -d)
	parent=$(sgit rev-parse base)
	sgit read-tree base
	for p in $(series_patches); do
		[ -f "$SLEB_TOP/patches/$p" ] || die "patches/series names $p, which does not exist"
		sgit mailinfo "$info/msg" "$info/patch" <"$SLEB_TOP/patches/$p" >"$info/info" ||
			die "series: patches/$p is not a mail git am can read"
		for f in $(patch_paths "$info/patch"); do
			if [ ! -e "$stage/$f" ] && [ -f "$PRISTINE/$f" ]; then
				mkdir -p "$stage/$(dirname "$f")"
				cp -p "$PRISTINE/$f" "$stage/$f"
			fi
		done
		apply_patch "$stage" "$info/patch" >&2 || die "series: patches/$p does not apply"
		for f in $(patch_paths "$info/patch"); do
			if [ -f "$stage/$f" ]; then
				blob=$(sgit hash-object -w "$stage/$f")
				sgit update-index --add --cacheinfo "$(series_mode "$stage/$f"),$blob,$f"
			else
				sgit update-index --force-remove "$f"
			fi
		done
		tree=$(sgit write-tree)
		author=$(sed -n 's/^Author: //p' "$info/info")
		email=$(sed -n 's/^Email: //p' "$info/info")
		date=$(sed -n 's/^Date: //p' "$info/info")
		subject=$(sed -n 's/^Subject: //p' "$info/info")
		parent=$({ echo "$subject"; echo; cat "$info/msg"; } |
			GIT_AUTHOR_NAME=$author GIT_AUTHOR_EMAIL=$email GIT_AUTHOR_DATE=$date \
				sgit commit-tree "$tree" -p "$parent")
	done
	sgit update-ref refs/heads/sleb "$parent"
	rm -rf "$stage" "$info"
}

# The number in the series of the first patch whose subject starts with $1.
plan_number() {
	local p n=0
	for p in $(series_patches); do
		n=$((n + 1))
		if sed -n 's/^Subject: \(\[PATCH[^]]*\] \)\{0,1\}//p' "$SLEB_TOP/patches/$p" | head -n 1 | grep -q -F "$1"; then
			echo "$n"
			return
		fi
	done
}

series_mode() {
	if [ -x "$1" ]; then echo 100755; else echo 100644; fi
}

# repo_path KERNEL_PATH: where the repository keeps a file the series adds
# (empty: it keeps none).
repo_path() {
	case $1 in
	mm/Kconfig.sleb) echo Kconfig.sleb ;;
	*/*) case " $KERNEL_DIRS " in *" ${1%%/*} "*) echo "$1" ;; esac ;;
	esac
}

# The repository's files at kernel paths.
repo_kernel_files() {
	(cd "$SLEB_TOP" && git ls-files $KERNEL_DIRS)
}

# The MAINTAINERS entry the series adds: the block of FILE whose title is
# the first line of the repository's MAINTAINERS.
maintainers_entry() {
	local title
	title=$(head -n 1 "$SLEB_TOP/MAINTAINERS")
	awk -v title="$title" '$0 == title { on = 1 } on && $0 == "" { exit } on' "$1"
}

# The last patch yields the repository's files: every file the series adds
# is in the repository at its kernel path, as it is there, and every
# repository file at a kernel path is one the series adds; MAINTAINERS is
# the base's with the repository's entry.
series_matches_repo() {
	local added f r bad="" tmp
	tmp=$(mktemp -d)
	added=$(sgit diff-tree -r --name-only --diff-filter=A base sleb)
	for f in $added; do
		r=$(repo_path "$f")
		if [ -z "$r" ]; then
			bad="$bad
# series: adds $f, which the repository does not keep"
		elif [ ! -f "$SLEB_TOP/$r" ]; then
			bad="$bad
# series: adds $f, missing from the repository ($r)"
		elif [ "$(sgit rev-parse "sleb:$f")" != "$(sgit hash-object "$SLEB_TOP/$r")" ]; then
			bad="$bad
# series: the last patch's $f differs from the repository's $r"
		fi
	done
	for r in $(repo_kernel_files) Kconfig.sleb; do
		f=$r
		[ "$r" = Kconfig.sleb ] && f=mm/Kconfig.sleb
		echo "$added" | grep -qx -F "$f" || bad="$bad
# series: no patch adds the repository's $r"
	done
	sgit show sleb:MAINTAINERS >"$tmp/final"
	merge_maintainers "$PRISTINE/MAINTAINERS" "$SLEB_TOP/MAINTAINERS" "$tmp/merged"
	cmp -s "$tmp/final" "$tmp/merged" || bad="$bad
# series: the last patch's MAINTAINERS is not the base's with the repository's entry"
	rm -rf "$tmp"
	if [ -z "$bad" ]; then
		t_ok "series: the last patch yields the repository's files"
	else
		echo "${bad#?}" | head -n 20
		t_fail "series: the last patch yields the repository's files"
	fi
}

# The git tree of --edit and --export.
SERIES_EDIT=$SERIES_DIR/edit

# series_format_patch DIR OUT: the commits of DIR since the base as
# patches/ keeps them: zero hashes, no signature, no numbers, and the same
# bytes whatever the user's git configuration or the repository's packing.
series_format_patch() {
	GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -C "$1" -c diff.algorithm=myers \
		format-patch -q --abbrev=9 --no-renames --no-cover-letter --zero-commit \
		--no-signature --no-numbered -o "$2" base..HEAD >/dev/null
}

# A fingerprint of patches/, kept in the --edit tree: the series it holds.
patches_fingerprint() {
	(cd "$SLEB_TOP/patches" && cat series $(series_patches)) | md5sum | cut -d' ' -f1
}

# series_edit_dirty: uncommitted work in the --edit tree, new files
# included (Debian's .gitignore ignores them all).
series_edit_dirty() {
	[ -n "$(git -C "$SERIES_EDIT" status --porcelain --ignored -- $KERNEL_DIRS MAINTAINERS)" ]
}

# series_edit: a git checkout of the base with one commit per patch of
# patches/ ($SERIES_EDIT, branch sleb), for git rebase -i, commit --fixup
# and the like.  Repository files that differ from the last patch's go on
# top as one more commit, so that nothing is lost.
series_edit() {
	local f r kept repo
	prepare_source
	series_base
	series_commit_all
	if [ -d "$SERIES_EDIT/.git" ]; then
		series_edit_dirty && die "series: $SERIES_EDIT has uncommitted changes: commit or remove them"
		if ! series_edit_exported; then
			if [ "$(cat "$SERIES_EDIT/.git/sleb-patches" 2>/dev/null)" != "$(patches_fingerprint)" ]; then
				die "series: patches/ changed since $SERIES_EDIT was made, and the tree has commits of its own: move them onto the new series by hand, or remove the tree"
			fi
			die "series: $SERIES_EDIT has commits patches/ does not have: export them (--export) or remove the tree"
		fi
		git -C "$SERIES_EDIT" fetch -q origin sleb
		git -C "$SERIES_EDIT" checkout -q -B sleb FETCH_HEAD
	else
		note "checking out the series in $SERIES_EDIT (once, about a minute)"
		rm -rf "$SERIES_EDIT"
		# A clone of its own (hard links, no alternates): the series'
		# repository moves its branch on every test run.
		git clone -q --branch sleb "$SERIES_GIT" "$SERIES_EDIT"
		git -C "$SERIES_EDIT" fetch -q origin 'refs/tags/base:refs/tags/base'
	fi
	patches_fingerprint >"$SERIES_EDIT/.git/sleb-patches"
	# The series' files the repository keeps, and the repository's own.
	kept=$(sgit diff-tree -r --name-only --diff-filter=A base sleb |
		while read -r f; do [ -z "$(repo_path "$f")" ] || echo "$f"; done)
	repo=$(repo_kernel_files)
	for f in $kept; do
		r=$(repo_path "$f")
		if [ -f "$SLEB_TOP/$r" ]; then
			cp -p "$SLEB_TOP/$r" "$SERIES_EDIT/$f"
		else
			git -C "$SERIES_EDIT" rm -q -- "$f"
		fi
	done
	for r in $repo; do
		[ -f "$SERIES_EDIT/$r" ] || { mkdir -p "$SERIES_EDIT/$(dirname "$r")" && cp -p "$SLEB_TOP/$r" "$SERIES_EDIT/$r"; }
	done
	merge_maintainers "$PRISTINE/MAINTAINERS" "$SLEB_TOP/MAINTAINERS" "$SERIES_EDIT/MAINTAINERS"
	# Only what was copied: Debian's .gitignore ignores the whole tree,
	# so that "git add -f" takes in whatever else lies around (a file
	# removed above is staged already).
	git -C "$SERIES_EDIT" add -f -- MAINTAINERS $(for f in $kept; do [ ! -f "$SERIES_EDIT/$f" ] || echo "$f"; done) $repo
	if [ -n "$(git -C "$SERIES_EDIT" status --porcelain)" ]; then
		git -C "$SERIES_EDIT" -c user.name="SLEB developers" -c user.email=sleb@example.org \
			commit -q -m "WIP: repository files not in the series yet"
		note "the repository's files differ from the last patch's: they are the last commit (WIP) of $SERIES_EDIT"
	fi
	echo "$SERIES_EDIT"
}

# series_edit_exported: the commits of the --edit tree are patches/ as it
# is, byte for byte once written as --export writes them.
series_edit_exported() {
	local tmp p rc=0
	tmp=$(mktemp -d)
	series_format_patch "$SERIES_EDIT" "$tmp" 2>/dev/null || rc=1
	[ "$rc" = 0 ] && [ "$(cd "$tmp" && ls)" = "$(series_patches)" ] || rc=1
	if [ "$rc" = 0 ]; then
		for p in $(series_patches); do
			cmp -s "$tmp/$p" "$SLEB_TOP/patches/$p" || rc=1
		done
	fi
	rm -rf "$tmp"
	return "$rc"
}

# series_export_would_lose DIR: die if a repository file with uncommitted
# changes is not what the export would write (a change made after --edit).
series_export_would_lose() {
	local dir=$1 r f tmp
	tmp=$(mktemp)
	for r in $(git -C "$SLEB_TOP" status --porcelain -- $KERNEL_DIRS Kconfig.sleb MAINTAINERS | cut -c4-); do
		f=$r
		[ "$r" = Kconfig.sleb ] && f=mm/Kconfig.sleb
		if [ "$r" = MAINTAINERS ]; then
			git -C "$dir" show HEAD:MAINTAINERS >"$tmp"
			maintainers_entry "$tmp" | cmp -s - "$SLEB_TOP/MAINTAINERS" && continue
		elif [ -f "$SLEB_TOP/$r" ] && git -C "$dir" cat-file -e "HEAD:$f" 2>/dev/null &&
			[ "$(git -C "$dir" rev-parse "HEAD:$f")" = "$(git hash-object "$SLEB_TOP/$r")" ]; then
			continue
		fi
		rm -f "$tmp"
		die "series: the repository's $r has uncommitted changes the tree does not have: commit them, or put them into the tree first"
	done
	rm -f "$tmp"
}

# series_export: patches/ and the repository's files from the commits of
# the --edit tree since the base.
series_export() {
	local dir=$SERIES_EDIT tmp f r n=0 p title
	[ -d "$dir/.git" ] || die "series: no tree to export: run scripts/sleb series --edit first"
	series_edit_dirty && die "series: $dir has uncommitted changes (new files too): commit them first"
	[ -z "$(git -C "$dir" log --format=%s --grep='^WIP: ' base..HEAD)" ] ||
		die "series: $dir still has a WIP commit: put its changes into their patches first"
	# What --export writes over: patches/ as --edit found it, and no
	# change of the repository's own since.
	[ "$(cat "$dir/.git/sleb-patches" 2>/dev/null)" = "$(patches_fingerprint)" ] ||
		die "series: patches/ changed since $dir was made: run --edit again (after moving the tree's commits onto the new series)"
	series_export_would_lose "$dir"
	tmp=$(mktemp -d)
	series_format_patch "$dir" "$tmp"
	[ -n "$(ls "$tmp")" ] || die "series: $dir has no commit on top of the base"
	rm -f "$SLEB_TOP"/patches/[0-9][0-9][0-9][0-9]-*.patch
	: >"$SLEB_TOP/patches/series"
	for p in "$tmp"/*.patch; do
		cp "$p" "$SLEB_TOP/patches/"
		basename "$p" >>"$SLEB_TOP/patches/series"
		n=$((n + 1))
	done
	for f in $(git -C "$dir" diff-tree -r --name-only --diff-filter=A base HEAD); do
		r=$(repo_path "$f")
		[ -n "$r" ] || continue
		mkdir -p "$SLEB_TOP/$(dirname "$r")"
		git -C "$dir" show "HEAD:$f" >"$SLEB_TOP/$r"
		[ "$(git -C "$dir" ls-tree HEAD -- "$f" | cut -d' ' -f1)" = 100755 ] && chmod +x "$SLEB_TOP/$r"
	done
	title=$(head -n 1 "$SLEB_TOP/MAINTAINERS")
	git -C "$dir" show HEAD:MAINTAINERS >"$tmp/MAINTAINERS"
	maintainers_entry "$tmp/MAINTAINERS" >"$tmp/entry"
	if [ -s "$tmp/entry" ]; then
		cp "$tmp/entry" "$SLEB_TOP/MAINTAINERS"
	else
		note "the series' MAINTAINERS has no entry titled '$title': the repository's is left as it is"
	fi
	for r in $(repo_kernel_files); do
		git -C "$dir" cat-file -e "HEAD:$r" 2>/dev/null || note "no patch adds $r any more: remove it (git rm)"
	done
	rm -rf "$tmp"
	patches_fingerprint >"$dir/.git/sleb-patches"
	note "wrote $n patches to patches/ and the files they add to the repository"
}

series_cover() {
	local out=$1 cover table
	cover=$out/0000-cover-letter.patch
	table=$(ls -t "$SLEB_CACHE"/bench/*/results.md 2>/dev/null | head -n 1 || true)
	python3 "$SLEB_TOP/scripts/series/cover.py" "$cover" "$(base_version)" "$table" \
		"$(plan_number 'mm/sleb: create and destroy caches')" "$(plan_number 'tools/testing/sleb:')"
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
	series_matches_repo
	series_checkpatch "$out"
	series_compile_checks
}

# series_build_patch TREE ALLOC DIR: configure as the tests do (the
# fragments of today's scripts/config; options a patch does not have yet
# drop out) and build a bzImage; the build log is DIR/build.log.
series_build_patch() {
	local tree=$1 alloc=$2 b=$3
	mkdir -p "$b"
	(cd "$tree" && make O="$b" tinyconfig >"$b/config.log" 2>&1 &&
		scripts/kconfig/merge_config.sh -m -O "$b" "$b/.config" \
			$(config_fragments "$alloc" fast) >>"$b/config.log" 2>&1 &&
		make O="$b" olddefconfig >>"$b/config.log" 2>&1) || return 1
	grep -q "^CONFIG_$(echo "$alloc" | tr a-z A-Z)=y" "$b/.config" || return 1
	(WORK=$tree OUT=$b kmake bzImage) >"$b/build.log" 2>&1
}

# W=1 on the SLEB objects a patch's SLEB build has: a warning of an
# intermediate patch (a function only a later patch calls) shows here.
series_patch_w1() {
	local tree=$1 b=$2 objs="" o
	for o in mm/sleb.o mm/sleb_debug.o lib/tests/sleb_kunit.o; do
		[ -f "$b/$o" ] && objs="$objs $o"
	done
	# shellcheck disable=SC2086 # one word per object
	(WORK=$tree OUT=$b kmake W=1 $objs) 2>&1 | grep -E 'warning:|error:' || true
}

# Full check: git am of the series on a fresh checkout of the base; every
# patch builds with SLUB, and from the first one that offers CONFIG_SLEB
# on, builds with SLEB and boots: to userspace, hackbench, and SLEB's KUnit
# suite as far as the patch has it.  One line per patch and step; the
# KUnit cases and the console's checks are counted, their lines kept in
# the patch's boot folder.
series_full_check() {
	local out=$1 from=$2 tree=$SERIES_DIR/am-tree n=0 total p alloc b subj log before w1
	rm -rf "$tree"
	git clone -q "$SERIES_GIT" "$tree"
	(cd "$tree" && git checkout -q -b am base)
	if (cd "$tree" && git -c user.name="SLEB developers" -c user.email=sleb@example.org \
		am -q $(ls "$out"/0*.patch | grep -v '/0000-cover-letter')); then
		t_ok "series: git am of the series on a fresh base tree"
	else
		t_fail "series: git am of the series on a fresh base tree"
		return
	fi
	guest_base_initramfs
	RUN_SMP=2 RUN_NUMA=1 RUN_MEM=1G RUN_ICOUNT=0 RUN_QUIET=1 RUN_TIMEOUT=1200
	total=$(cd "$tree" && git rev-list --count base..am)
	for p in $(cd "$tree" && git rev-list --reverse base..am); do
		n=$((n + 1))
		[ "$n" -ge "$from" ] || continue
		(cd "$tree" && git checkout -q "$p")
		subj=$(cd "$tree" && git log -1 --format=%s)
		t_line "# series: patch $n/$total: $subj"
		for alloc in slub sleb; do
			b=$SERIES_DIR/build-$alloc
			if [ "$alloc" = sleb ] && ! grep -qs '^config SLEB$' "$tree"/mm/Kconfig "$tree"/mm/Kconfig.sleb; then
				t_line "ok - series: patch $n/$total builds with CONFIG_SLEB=y # SKIP not selectable yet"
				continue
			fi
			if series_build_patch "$tree" "$alloc" "$b"; then
				t_ok "series: patch $n/$total builds with CONFIG_$(echo $alloc | tr a-z A-Z)=y"
			else
				t_fail "series: patch $n/$total builds with CONFIG_$(echo $alloc | tr a-z A-Z)=y (log: $b/build.log)"
				continue
			fi
			[ "$alloc" = sleb ] || continue
			w1=$(series_patch_w1 "$tree" "$b")
			if [ -z "$w1" ]; then
				t_ok "series: patch $n/$total: W=1 is clean on SLEB's objects"
			else
				echo "$w1" | head -n 5 | sed 's/^/# /'
				t_fail "series: patch $n/$total: W=1 is clean on SLEB's objects"
			fi
			log=$SERIES_DIR/boot/$(printf %04d "$n")/console.log
			mkdir -p "$(dirname "$log")"
			RUN_APPEND="kunit.filter_glob=sleb*"
			guest_run "$b/arch/x86/boot/bzImage" "$SLEB_TOP/scripts/guest/series-boot.sh" "$log" || true
			before=$T_FAIL
			SC_COUNTS=- count_scenario "series: patch $n/$total" "$log" >"$(dirname "$log")/counts.txt"
			if [ "$GUEST_RC" = 0 ] && [ "$T_FAIL" = "$before" ]; then
				t_ok "series: patch $n/$total boots with SLEB: $(grep -c '^ok ' "$(dirname "$log")/counts.txt") checks pass (KUnit, hackbench, console)"
			else
				{ grep '^not ok' "$(dirname "$log")/counts.txt" || true; } | head -n 5 | sed 's/^/# /'
				t_fail "series: patch $n/$total boots with SLEB (status $GUEST_RC; console: $log)"
			fi
		done
	done
	(cd "$tree" && git checkout -q am)
}

cmd_series() {
	local out="" check=0 edit=0 export=0 from=1 a
	for a in "$@"; do
		case $a in
		--out=*) out=${a#*=} ;;
		--check) check=1 ;;
		--from=*)
			from=${a#*=}
			case $from in '' | *[!0-9]* | 0) die "series: bad --from '$from' (a patch number, 1 or more)" ;; esac
			;;
		--edit) edit=1 ;;
		--export) export=1 ;;
		*) die "series: unknown option '$a' (see scripts/sleb help)" ;;
		esac
	done
	[ $((check + edit + export)) -le 1 ] || die "series: --check, --edit and --export go one at a time"
	[ "$from" = 1 ] || [ "$check" = 1 ] || die "series: --from goes with --check"
	if [ "$edit" = 1 ]; then
		series_edit
		return
	fi
	if [ "$export" = 1 ]; then
		series_export
		return
	fi
	[ -n "$out" ] || out=$SERIES_DIR/out
	case $out in /*) ;; *) out=$PWD/$out ;; esac
	series_write "$out"
	echo "# series written to $out"
	[ "$check" = 1 ] || return 0
	series_matches_repo
	series_checkpatch "$out"
	series_compile_checks
	series_full_check "$out" "$from"
	echo "$T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" = 0 ]
}

# memcg kmem accounting with SLEB, sourced by suite.sh:
# tools/testing/selftests/cgroup/test_kmem, built by the host.  Its
# cgroups turn on memcg_kmem_enabled(), so accounted caches get objcg
# vectors and __GFP_ACCOUNT callers charge memory to a cgroup.
# test_kmem_basic makes 100000 negative dentries under "/" and expects them
# in memory.stat "slab"; the guest's root is the initramfs (tmpfs), which
# drops negative dentries at once, so test_kmem runs chrooted on an ext2
# file system on a loop device, as on a disk-rooted machine.
. /sleb/guest/kmem-root.sh

# run_test_kmem BIN [CASE:REASON...]: run /kselftest-cgroup/BIN chrooted
# on the ext2 root and count its TAP lines, each once; a failure of a
# CASE named in the arguments is printed as a SKIP with its REASON.
run_test_kmem() {
	bin=$1
	shift
	# Its forked children flush copies of the stdio buffer: each line
	# once.  A pipe, not a file: a child writing a new page of a tmpfs
	# file charges it to its cgroup, which then cannot be freed once
	# removed (test_kmem_dead_cgroups counts them).
	cp /kselftest-cgroup/$bin $kmem_root/bin/ &&
		chroot $kmem_root /bin/$bin 2>&1 | awk '!seen[$0]++' >/tmp/$bin.out
	cat /tmp/$bin.out
	grep -Eq "^(not )?ok .* test_kmem_basic$" /tmp/$bin.out ||
		sleb_fail "$bin: test_kmem_basic reported"
	while IFS= read -r l; do
		case $l in
		"ok "*) sleb_ok "$bin: ${l#ok [0-9]* }" ;;
		"not ok "*)
			kmem_count_failure "$bin: ${l#not ok [0-9]* }" "$@"
			kmem_case_figures /tmp/$bin.out "${l#not ok [0-9]* }" >/tmp/$bin.said
			while IFS= read -r f; do
				sleb_note "$f"
			done </tmp/$bin.said
			;;
		esac
	done </tmp/$bin.out
}

# kmem_count_failure "BIN: CASE" [CASE:REASON...]
kmem_count_failure() {
	what=$1
	shift
	for s in "$@"; do
		if [ "${what#*: }" = "${s%%:*}" ]; then
			sleb_skip "$what" "${s#*:}"
			return
		fi
	done
	sleb_fail "$what"
}

# kmem_dying_after S: nr_dying_descendants of the root cgroup, polled for
# up to S seconds until it is 0.
kmem_dying_after() {
	n=0
	while :; do
		d=$(sed -n 's/^nr_dying_descendants //p' /sys/fs/cgroup/cgroup.stat)
		[ "$d" = 0 ] || [ $n -ge "$1" ] && break
		sleep 1
		n=$((n + 1))
	done
	echo "$d"
}

if [ ! -x /kselftest-cgroup/test_kmem ]; then
	sleb_fail "test_kmem: /kselftest-cgroup/test_kmem in the guest"
elif [ ! -f /sys/fs/cgroup/cgroup.controllers ]; then
	sleb_fail "test_kmem: cgroup2 mounted on /sys/fs/cgroup"
elif ! kmem_prepare_root; then
	sleb_fail "test_kmem: an ext2 root on a loop device to run in"
	kmem_release_root
else
	sleb_ok "test_kmem: an ext2 root on a loop device to run in"
	echo "+memory" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	run_test_kmem test_kmem
	kmem_release_root
	# Every cgroup the test removed is freed once the file system
	# and its image are gone (the loop device charges the image's tmpfs
	# pages to the cgroup whose I/O read them): none is held by a slab
	# object, queued or not.
	dying=$(kmem_dying_after 20)
	if [ "$dying" = 0 ]; then
		sleb_ok "test_kmem: no dying cgroup left once the ext2 root is gone"
	else
		grep -E "^(anon|file|shmem|kernel|slab|percpu|sock) " /sys/fs/cgroup/memory.stat
		sleb_fail "test_kmem: no dying cgroup left once the ext2 root is gone"
		sleb_note "$dying left after 20 s"
	fi
fi

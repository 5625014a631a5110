# The ext2 root test_kmem runs chrooted in, on a loop device (sourced by
# sleb-memcg.sh and test-kmem-repeat.sh): the initramfs root (tmpfs) drops
# negative dentries at once, which test_kmem_basic counts.
kmem_root=/mnt/kmem-root

kmem_prepare_root() {
	dd if=/dev/zero of=/tmp/kmem-root.img bs=1M count=32 2>/dev/null &&
		mke2fs -q -F /tmp/kmem-root.img 32768 &&
		mkdir -p $kmem_root &&
		mount -o loop /tmp/kmem-root.img $kmem_root &&
		mkdir -p $kmem_root/proc $kmem_root/sys $kmem_root/bin &&
		mount -t proc proc $kmem_root/proc &&
		mount -t sysfs sysfs $kmem_root/sys &&
		mount -t cgroup2 cgroup2 $kmem_root/sys/fs/cgroup
}

kmem_release_root() {
	umount $kmem_root/sys/fs/cgroup $kmem_root/sys $kmem_root/proc 2>/dev/null
	umount $kmem_root 2>/dev/null
	rm -f /tmp/kmem-root.img
}

# kmem_case_figures OUT CASE: the lines test_kmem printed (to OUT) before
# CASE's result and after the result before it, "#" lines and the TAP
# header left out: the figures a failing case prints.
kmem_case_figures() {
	awk -v c="$2" '/^(not )?ok / { if ($0 ~ " " c "$") { printf "%s", said; exit } said = ""; next }
		!/^(#|TAP version|1\.\.)/ { said = said $0 "\n" }' "$1"
}

# burst_check LABEL CPU MB [CPU MB ...]: allocate and free MB MiB of
# 128-byte objects with the kbench module (burst_mb=) on each CPU in turn,
# then wait up to 10 s of idle: Slab in /proc/meminfo must be back within
# 10% of its value before the first burst.  Needs /sleb/lib.sh and
# /kbench/slab_bench.ko.
burst_slab_kb() {
	awk '/^Slab:/ { print $2 }' /proc/meminfo
}

burst_check() {
	label=$1
	shift
	sleep 2
	before=$(burst_slab_kb)
	while [ $# -ge 2 ]; do
		dmesg -c >/dev/null
		taskset -c "$1" insmod /kbench/slab_bench.ko burst_mb="$2" && rmmod slab_bench
		objects=$(($2 * 1024 * 1024 / 128))
		report=$(dmesg | grep -o 'burst mb=.*' || true)
		if [ "$report" = "burst mb=$2 size=128 objects=$objects" ]; then
			sleb_ok "$label: $2 MiB of 128-byte objects allocated and freed on CPU $1"
		else
			sleb_fail "$label: $2 MiB of 128-byte objects allocated and freed on CPU $1"
		fi
		sleb_note "${report:-no report}"
		shift 2
	done
	limit=$((before + before / 10))
	t=0
	after=$(burst_slab_kb)
	while [ "$t" -lt 10 ] && [ "$after" -gt "$limit" ]; do
		sleep 1
		t=$((t + 1))
		after=$(burst_slab_kb)
	done
	msg="$label: Slab back within 10% of its value before, within 10 s of idle"
	if [ "$after" -le "$limit" ]; then
		sleb_ok "$msg"
	else
		sleb_fail "$msg"
	fi
	sleb_note "Slab $after kB after $t s idle (before: $before kB, limit $limit kB)"
}

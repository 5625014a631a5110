# Helpers for guest test scripts: each check prints one TAP line that the host
# counts ("SLEB-TAP: ok - <name>" or "SLEB-TAP: not ok - <name>").
sleb_ok() { echo "SLEB-TAP: ok - $*"; }
sleb_fail() { echo "SLEB-TAP: not ok - $*"; }
# sleb_note TEXT: what a check measured or saw, on a "#" line after its
# result; the check's name stays the same from run to run.
sleb_note() { echo "SLEB-TAP: # $*"; }
sleb_skip() { echo "SLEB-TAP: ok - $1 # SKIP $2"; }
# sleb_check NAME CMD...: run CMD, pass if it exits 0; show its tail if not.
sleb_check() {
	name=$1; shift
	if "$@" >/tmp/sleb-check.out 2>&1; then
		sleb_ok "$name"
	else
		rc=$?
		tail -n 15 /tmp/sleb-check.out
		sleb_fail "$name"
		sleb_note "exit $rc"
	fi
}

# validate_all: write 1 to every cache's validate and fail if one counts
# errors (caches without the attribute are left out).
validate_all() {
	bad=0
	for c in /sys/kernel/slab/*/validate; do
		echo 1 >"$c" 2>/dev/null || continue
		e=$(cat "$c")
		[ "$e" = 0 ] || { echo "$c: $e errors"; bad=$((bad + 1)); }
	done
	[ "$bad" = 0 ]
}

# node_has_memory N, node_without_memory N: whether node N has memory
# (a MemTotal above 0), as sleb_check commands.
node_has_memory() {
	grep -q "MemTotal: *[1-9]" "/sys/devices/system/node/node$1/meminfo"
}

node_without_memory() {
	! node_has_memory "$1"
}

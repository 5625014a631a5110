# kmemleak: a scan must not find unreferenced objects.  Not part of suite.sh
# yet: run it with scripts/sleb run --variant=debug --script=... after a workload.
. /sleb/lib.sh
if [ -w /sys/kernel/debug/kmemleak ]; then
	kmemleak_clean() {
		echo scan > /sys/kernel/debug/kmemleak || return 1
		sleep 1
		echo scan > /sys/kernel/debug/kmemleak || return 1
		leaks=$(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak)
		[ "$leaks" = 0 ] || { head -n 40 /sys/kernel/debug/kmemleak; return 1; }
	}
	sleb_check "kmemleak: no unreferenced object after the workload" kmemleak_clean
fi

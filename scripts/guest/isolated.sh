# The guest half of "scripts/sleb bench --isolated": what runs on an
# isolated CPU while it is idle, while one task has it (its tick stopped,
# nohz_full) and while two tasks share it (its tick running).  CPU 1 must
# be booted isolated (nohz_full=1 isolcpus=domain,managed_irq,1).  Every
# measurement is one line
#   SLEB-BENCH: isolated phase=<idle|one-task|two-tasks> seconds=<s> ...
# with the work items that ran on CPU 1 (workqueue trace events), the
# allocator's reaper among them, and CPU 1's local timer interrupts.  The
# host's wrapper sets:
#   SLEB_ISOLATED_SECONDS  seconds of each phase
seconds=${SLEB_ISOLATED_SECONDS:-20}
cpu=1
status=0
tracing=/sys/kernel/tracing

bench() { echo "SLEB-BENCH: $*"; }
bench_error() {
	echo "SLEB-BENCH: error $*"
	status=1
}

# loc_irqs: CPU 1's "Local timer interrupts" of /proc/interrupts.
loc_irqs() {
	awk -v col=$((cpu + 2)) '$1 == "LOC:" { print $col }' /proc/interrupts
}

# spin N: N busy loops in userspace on CPU 1 (shell builtins only: no
# system call, no allocation); their PIDs in spinners.
spinners=""
spin() {
	i=0
	while [ "$i" -lt "$1" ]; do
		taskset -c "$cpu" sh -c 'while :; do :; done' &
		spinners="$spinners $!"
		i=$((i + 1))
	done
}

unspin() {
	[ -z "$spinners" ] || kill $spinners 2>/dev/null
	wait 2>/dev/null
	spinners=""
}

# report PHASE LOC0 LOC1: the work items of CPU 1's trace buffer
# (isolated-report.awk).  Times are TCG's, comparable only between the
# allocators of one run.
report() {
	awk -v phase="$1" -v seconds="$seconds" -v loc=$(($3 - $2)) \
		-f /sleb/guest/isolated-report.awk "$tracing/per_cpu/cpu$cpu/trace"
}

# phase NAME SPINNERS
phase() {
	echo 0 >"$tracing/tracing_on"
	echo >"$tracing/trace"
	spin "$2"
	loc0=$(loc_irqs)
	echo 1 >"$tracing/tracing_on"
	sleep "$seconds"
	echo 0 >"$tracing/tracing_on"
	loc1=$(loc_irqs)
	unspin
	report "$1" "$loc0" "$loc1"
}

echo "SLEB-BENCH: info alloc=$SLEB_ALLOC cpus=$(grep -c '^processor' /proc/cpuinfo) kernel=$(uname -r) nohz_full=$(cat /sys/devices/system/cpu/nohz_full 2>/dev/null)"
if [ "$(cat /sys/devices/system/cpu/nohz_full 2>/dev/null)" != "$cpu" ]; then
	bench_error "CPU $cpu is not nohz_full (boot with nohz_full=$cpu)"
	exit 1
fi
[ -d "$tracing/events" ] || mount -t tracefs nodev "$tracing" 2>/dev/null
if [ ! -d "$tracing/events/workqueue" ]; then
	bench_error "no workqueue trace events (CONFIG_FTRACE, tracefs)"
	exit 1
fi
echo 256 >"$tracing/buffer_size_kb"
echo 1 >"$tracing/events/workqueue/workqueue_execute_start/enable"
echo 1 >"$tracing/events/workqueue/workqueue_execute_end/enable"

# Give CPU 1's queues objects to keep, as a CPU that ran a workload before
# it was left alone: hackbench on CPU 1, then its processes gone.
taskset -c "$cpu" hackbench -g 2 -l 50 >/dev/null 2>&1 || bench_error "hackbench on CPU $cpu failed"
sleep 1

phase idle 0
phase one-task 1
phase two-tasks 2
exit "$status"

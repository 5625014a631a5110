# The report of one phase of scripts/guest/isolated.sh, from the text of a
# CPU's trace buffer (per_cpu/cpuN/trace) with the workqueue_execute_start
# and _end events.  Variables: phase, seconds, loc (the CPU's local timer
# interrupts in the phase).  Prints
#   SLEB-BENCH: isolated phase=P seconds=S work_items=N work_us=U
#     reaper_runs=R reaper_us=V loc_irqs=L
# on one line, then "SLEB-BENCH: # FUNCTION COUNT" per work function.  A
# work item's time runs from its start event to its end event.

function field_after(line, key, v) {
	v = line
	sub(".*" key " ", "", v)
	sub(/:.*/, "", v)
	return v
}

# The event's time stamp (seconds.microseconds) in microseconds, exactly.
function stamp(line, event, t, parts) {
	t = line
	sub(":? *" event ".*", "", t)
	sub(/.* /, "", t)
	split(t, parts, ".")
	# busybox awk reads "001500" as octal.
	sub(/^0+/, "", parts[2])
	return parts[1] * 1000000 + parts[2]
}

/workqueue_execute_start:/ {
	w = field_after($0, "work struct")
	f = $0
	sub(/.*function /, "", f)
	start[w] = stamp($0, "workqueue_execute_start")
	fn[w] = f
	items++
	count[f]++
	if (f == "sleb_reap")
		reaps++
}

/workqueue_execute_end:/ {
	w = field_after($0, "work struct")
	if (w in start) {
		us = stamp($0, "workqueue_execute_end") - start[w]
		all_us += us
		if (fn[w] == "sleb_reap")
			reap_us += us
		delete start[w]
	}
}

END {
	printf "SLEB-BENCH: isolated phase=%s seconds=%d work_items=%d work_us=%d reaper_runs=%d reaper_us=%d loc_irqs=%d\n",
		phase, seconds, items, all_us, reaps, reap_us, loc
	for (f in count)
		printf "SLEB-BENCH: # %s %d\n", f, count[f]
}

# The cache model's known answers (scenario cachemodel of scripts/sleb
# test, booted with --cache-model): strides through buffers of known size
# between markers.  The host counts their misses from the model's regions
# against the geometry (scripts/cache_report.py check): twice L1 misses L1
# once per line per pass, half of L1 never after the first touch, four
# times L2 misses L2 on every access.
status=0
for stride in "65536 8 1" "16384 8 2" "4194304 2 3"; do
	# shellcheck disable=SC2086 # size, passes, region
	sleb_cachemark stride $stride || status=1
done
exit "$status"

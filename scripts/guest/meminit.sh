# Boot with init_on_alloc=1 init_on_free=1: test_meminit ran at boot; the
# host counts its result.  Here a short workload with zeroing on.
. /sleb/lib.sh
sleb_check "init_on: kernel command line has init_on_alloc=1 init_on_free=1" \
	sh -c 'grep -q "init_on_alloc=1" /proc/cmdline && grep -q "init_on_free=1" /proc/cmdline'
sleb_check "init_on: hackbench sockets" hackbench -g 4 -l 100

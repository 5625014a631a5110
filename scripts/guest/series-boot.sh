# The boot of each patch in scripts/sleb series --check: the kernel runs
# SLEB and hackbench passes (SLEB's KUnit suite, as far as the patch has
# it, ran at boot and is counted from the console).
. /sleb/lib.sh
# The line kmem_cache_init() prints: the allocator that runs, not only
# the one configured.
sleb_check "running allocator is SLEB" sh -c "dmesg | grep -q 'SLEB: HWalign='"
sleb_check "hackbench sockets processes" hackbench -g 4 -l 200
sleb_check "hackbench pipes threads" hackbench -p -T -g 4 -l 200

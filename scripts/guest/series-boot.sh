# The boot of each patch in scripts/sleb series --check: the kernel runs
# SLEB and hackbench passes (SLEB's KUnit suite, as far as the patch has
# it, ran at boot and is counted from the console).
. /sleb/lib.sh
sleb_check "running allocator is SLEB" sh -c "zcat /proc/config.gz | grep -qx CONFIG_SLEB=y"
sleb_check "hackbench sockets processes" hackbench -g 4 -l 200
sleb_check "hackbench pipes threads" hackbench -p -T -g 4 -l 200

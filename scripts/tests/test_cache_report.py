#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fixture test of scripts/cache_report.py: rows per operation with the
allocator's share (a static name shared with another file goes to the copy
among the allocator's symbols), and the model check passing and failing."""
import csv
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "cache_report.py")

MAP = """ffffffff81000000 T _stext
ffffffff81100000 t stat
ffffffff81200000 T kmem_cache_free
ffffffff81200100 t stat
ffffffff81200200 T kfree
ffffffff81300000 T memset
ffffffff81300100 t stat
ffffffff81c00000 T kmem_cache_init
"""
CACHE = """# sleb-cache l1=32768/8 l2=1048576/16 line=64 vcpus=1 symbols=6
R 5 1 kfree 0xffffffff81200200 page 100 10 2
R 5 1 stat 0xffffffff81200100 direct 50 5 1
R 5 1 stat 0xffffffff81100000 direct 40 4 4
R 5 1 stat 0xffffffff81300100 direct 30 3 3
R 5 1 [module] 0 direct 200 20 20
E 5 1 420 42 30
R 1 2 [user] 0 user 8193 8192 0
E 1 2 8193 8192 0
R 2 3 [user] 0 user 2049 3 0
E 2 3 2049 3 0
R 3 4 [user] 0 user 131073 131072 131072
R 3 4 [user] 0 other 11 4 4
E 3 4 131084 131076 131076
"""
CONSOLE = """[    1.0] SLEB-BENCH: kbench case=cold_free size=64 count=10 cycles_per_op=5 region=5 ops=10
SLEB-CACHEMODEL: region=1 bytes=65536 passes=8 lines=1024
SLEB-CACHEMODEL: region=2 bytes=16384 passes=8 lines=256
SLEB-CACHEMODEL: region=3 bytes=4194304 passes=2 lines=65536
"""


def run(*args):
    return subprocess.run([sys.executable, SCRIPT] + list(args), capture_output=True, text=True)


def main():
    failed = []
    with tempfile.TemporaryDirectory() as d:
        paths = {}
        for name, text in (("map", MAP), ("cache", CACHE), ("console", CONSOLE),
                           ("syms", "mm/sleb.o .text 0 100 kmem_cache_free\n"
                                   "mm/sleb.o .text 100 100 stat\n"
                                   "mm/sleb.o .text 200 80 kfree\n"
                                   "mm/sleb.o .init.text 0 40 kmem_cache_init\n")):
            paths[name] = os.path.join(d, name)
            with open(paths[name], "w") as f:
                f.write(text)
        src = os.path.join(d, "sources")
        r = run("rows", "1", "sleb", paths["console"], paths["cache"], paths["map"], paths["syms"],
                "m", src)
        rows = {c[3] + " " + c[2]: c[4] for c in csv.reader(r.stdout.splitlines()) if len(c) == 7}
        # all: 42 L1D misses over 10 ops; allocator: kfree 10 + the stat
        # inside mm/sleb.o's .text, 5 (not the copies before it or after
        # memset, although kmem_cache_init lies far beyond).
        want = {"case=cold_free size=64 count=10 scope=total cache_l1d_misses": "4.2000",
                "case=cold_free size=64 count=10 scope=allocator cache_l1d_misses": "1.5000",
                "case=cold_free size=64 count=10 scope=allocator cache_l2_misses": "0.3000",
                "case=cold_free size=64 count=10 scope=allocator cache_accesses": "15.00"}
        for k, v in want.items():
            if rows.get(k) != v:
                failed.append("rows: %s = %s, want %s" % (k, rows.get(k), v))
        if r.returncode:
            failed.append("rows exits %d: %s" % (r.returncode, r.stderr))
        top = open(src).readline().split(",")
        if top[3:5] != ["kfree", "page"]:
            failed.append("sources: the first line is %s, want kfree (page)" % top)

        r = run("check", paths["console"], paths["cache"])
        if r.returncode or "not ok" in r.stdout or r.stdout.count("ok - ") != 8:
            failed.append("check of right answers: status %d\n%s" % (r.returncode, r.stdout))
        # An L1 that missed nothing on the twice-L1 stride (a model that
        # never evicts) must fail.
        with open(paths["cache"], "w") as f:
            f.write(CACHE.replace("R 1 2 [user] 0 user 8193 8192 0", "R 1 2 [user] 0 user 8193 1024 0"))
        r = run("check", paths["console"], paths["cache"])
        if r.returncode == 0 or "not ok - cache model: 64 KiB, 8 passes (2x L1" not in r.stdout:
            failed.append("check of a wrong answer passed:\n%s" % r.stdout)
    for f in failed:
        print(f)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

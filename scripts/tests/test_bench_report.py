#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check scripts/bench_report.py on a small fixture with known ratios.

Two allocators, two rounds: sleb's hackbench medians are half of slub's
(geometric mean 0.500), its kbench ones twice (2.000), and the spread
of a row is printed as [min-max].  Exits 0 when results.md says so.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "..", "bench_report.py")

SAMPLES = """round,alloc,metric,params,value,unit,timing_mode
1,sleb,hackbench,mode=socket kind=process groups=1 loops=800,1.0,s,"t"
2,sleb,hackbench,mode=socket kind=process groups=1 loops=800,1.2,s,"t"
1,slub,hackbench,mode=socket kind=process groups=1 loops=800,2.0,s,"t"
2,slub,hackbench,mode=socket kind=process groups=1 loops=800,2.4,s,"t"
1,sleb,kbench,case=pair size=64,400,cycles,"t"
2,sleb,kbench,case=pair size=64,400,cycles,"t"
1,slub,kbench,case=pair size=64,200,cycles,"t"
2,slub,kbench,case=pair size=64,200,cycles,"t"
"""


def main():
    with tempfile.TemporaryDirectory() as out:
        for a in ("sleb", "slub"):
            os.makedirs(os.path.join(out, "k-" + a))
            with open(os.path.join(out, "k-" + a, ".config"), "w") as f:
                f.write("CONFIG_%s=y\n" % a.upper())
        with open(os.path.join(out, "samples.csv"), "w") as f:
            f.write(SAMPLES)
        with open(os.path.join(out, "meta.txt"), "w") as f:
            f.write("allocs=sleb slub\ntiming_mode=t\nrounds=2\n")
        with open(os.path.join(out, "kernels.txt"), "w") as f:
            for a in ("sleb", "slub"):
                f.write("%s %s\n" % (a, os.path.join(out, "k-" + a)))
        r = subprocess.run([sys.executable, REPORT, out], capture_output=True, text=True)
        if r.returncode != 0:
            print("bench_report.py failed: " + r.stderr.strip()[-500:])
            return 1
        md = open(os.path.join(out, "results.md")).read()
    want = ["| hackbench | 1 | 0.500 |", "| kbench | 1 | 2.000 |",
            "| mode=socket kind=process groups=1 loops=800 | 1.10 [1-1.20] | 2.20 [2-2.40] | 0.50 |"]
    missing = [line for line in want if line not in md]
    for line in missing:
        print("results.md lacks: " + line)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())

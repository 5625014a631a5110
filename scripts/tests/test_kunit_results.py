#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check scripts/kunit_results.py on a fixture console.

usage: scripts/tests/test_kunit_results.py KERNEL_TREE

The console has timestamps, other lines between the KTAP ones, a passed,
a skipped and a failed case, and a second suite that stops after its
first case (a panic): that suite must fail for the missing case.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "..", "kunit_results.py")

CONSOLE = """[    1.000000] Run /init as init process
[    2.000000] KTAP version 1
[    2.000001] 1..2
[    2.000002]     KTAP version 1
[    2.000003]     # Subtest: alpha
[    2.000004]     1..3
[    2.000005]     ok 1 test_one
[    2.000006] SLEB-TAP: ok - something else on the console
[    2.000007]     ok 2 test_two # SKIP needs a second node
[    2.000008]     # test_three: EXPECTATION FAILED at lib/x.c:1
[    2.000009]     not ok 3 test_three
[    2.000010] # alpha: pass:1 fail:1 skip:1 total:3
[    2.000011] not ok 1 alpha
[    2.000012]     KTAP version 1
[    2.000013]     # Subtest: beta
[    2.000014]     1..2
[    2.000015]     ok 1 test_first
[    2.000016] Kernel panic - not syncing: Fatal exception
"""

WANT = [
    "PASS alpha.test_one",
    "SKIP alpha.test_two",
    "FAIL alpha.test_three",
    "PASS beta.test_first",
]


def main():
    tree = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "console.log")
        with open(log, "w") as f:
            f.write(CONSOLE)
        r = subprocess.run([sys.executable, RESULTS, tree, log], capture_output=True, text=True)
    got = r.stdout.splitlines()
    bad = [w for w in WANT if w not in got]
    if not any(g.startswith("FAIL beta: ") for g in got):
        bad.append("FAIL beta: (the missing case)")
    for b in bad:
        print("kunit_results.py did not print: " + b)
    if bad:
        print("it printed: " + " | ".join(got))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

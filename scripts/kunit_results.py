#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The KUnit results of a guest console, through the kernel's own parser.

usage: scripts/kunit_results.py KERNEL_TREE CONSOLE_LOG

Runs KERNEL_TREE/tools/testing/kunit/kunit.py parse --json on the console
and prints one line per test case, suite and case joined by a dot:

    PASS sleb.test_layout_fits
    SKIP sleb.test_remote_free_routing
    FAIL sleb.test_shrinker_scan
    FAIL sleb: a case crashed or its result line is missing (2)

A console without KTAP output prints nothing.
"""
import json
import os
import subprocess
import sys
import tempfile


def cases(group, prefix):
    """(name, status) of every test case below group, suites joined by dots."""
    name = group.get("name", "")
    here = prefix + "." + name if prefix and name else prefix or name
    lost = 0
    for case in group.get("test_cases", []):
        if case.get("name"):
            yield here + "." + case["name"], case["status"]
        else:
            lost += 1
    if lost:
        yield here, "LOST %d" % lost
    for sub in group.get("sub_groups", []):
        yield from cases(sub, here)


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: kunit_results.py KERNEL_TREE CONSOLE_LOG\n")
        return 2
    tree, log = sys.argv[1], sys.argv[2]
    kunit = os.path.join(tree, "tools", "testing", "kunit", "kunit.py")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "results.json")
        subprocess.run([sys.executable, kunit, "parse", "--json=" + out, log],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not os.path.exists(out):
            sys.stderr.write("kunit_results.py: kunit.py parse wrote no JSON for %s\n" % log)
            return 1
        with open(out) as f:
            root = json.load(f)
    for sub in root.get("sub_groups", []):
        for name, status in cases(sub, ""):
            if status == "PASS":
                print("PASS " + name)
            elif status == "SKIP":
                print("SKIP " + name)
            elif status.startswith("LOST"):
                print("FAIL %s: a case crashed or its result line is missing (%s)"
                      % (name, status.split()[1]))
            else:
                print("FAIL " + name)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fixture test of scripts/guest/isolated-report.awk: work items counted
from their start events, their times from start to end, the reaper's
among them, an item without its end event counted but not timed.  Run
with the host's awk and, where installed, busybox's, which the guest
uses."""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
AWK = os.path.join(HERE, "..", "guest", "isolated-report.awk")

TRACE = """# tracer: nop
#
     kworker/1:1-45      [001] ...1.   100.000100: workqueue_execute_start: work struct 00000000aaaa0001: function vmstat_update
     kworker/1:1-45      [001] ...1.   100.000300: workqueue_execute_end: work struct 00000000aaaa0001: function vmstat_update
     kworker/1:1-45      [001] ...1.   102.000000: workqueue_execute_start: work struct 00000000bbbb0002: function sleb_reap
     kworker/1:1-45      [001] ...1.   102.001500: workqueue_execute_end: work struct 00000000bbbb0002: function sleb_reap
     kworker/1:1-45      [001] ...1.   104.000000: workqueue_execute_start: work struct 00000000bbbb0002: function sleb_reap
     kworker/1:1-45      [001] ...1.   104.000500: workqueue_execute_end: work struct 00000000bbbb0002: function sleb_reap
     kworker/1:1-45      [001] ...1.   105.000000: workqueue_execute_start: work struct 00000000cccc0003: function lru_add_drain_per_cpu
"""
WANT = ("SLEB-BENCH: isolated phase=two-tasks seconds=20 work_items=4 work_us=2200 "
        "reaper_runs=2 reaper_us=2000 loc_irqs=5000")


def check(awk):
    failed = 0
    out = subprocess.run(awk + ["-v", "phase=two-tasks", "-v", "seconds=20", "-v", "loc=5000",
                          "-f", AWK], input=TRACE, capture_output=True, text=True)
    lines = out.stdout.splitlines()
    if out.returncode != 0 or not lines or lines[0] != WANT:
        print("not ok - summary line: %r (stderr %r)" % (lines[:1], out.stderr))
        failed = 1
    else:
        print("ok - summary line")
    per = sorted(lines[1:])
    want = ["SLEB-BENCH: # lru_add_drain_per_cpu 1", "SLEB-BENCH: # sleb_reap 2",
            "SLEB-BENCH: # vmstat_update 1"]
    if per != want:
        print("not ok - per-function counts: %r" % per)
        failed = 1
    else:
        print("ok - per-function counts")
    empty = subprocess.run(awk + ["-v", "phase=idle", "-v", "seconds=20", "-v", "loc=3",
                            "-f", AWK], input="# tracer: nop\n", capture_output=True, text=True)
    if empty.stdout.strip() != ("SLEB-BENCH: isolated phase=idle seconds=20 work_items=0 "
                                "work_us=0 reaper_runs=0 reaper_us=0 loc_irqs=3"):
        print("not ok - an empty buffer: %r" % empty.stdout)
        failed = 1
    else:
        print("ok - an empty buffer")
    return failed


def main():
    failed = check(["awk"])
    if shutil.which("busybox"):
        failed |= check(["busybox", "awk"])
    return failed


if __name__ == "__main__":
    sys.exit(main())

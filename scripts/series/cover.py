#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fill the cover letter of the series from scripts/series/cover.txt.

usage: scripts/series/cover.py COVER_PATCH BASE RESULTS_MD N_SLEB N_TOOLS

COVER_PATCH is git format-patch's 0000-cover-letter.patch, rewritten in
place: its subject and blurb placeholders get SLEB's title and the text
of cover.txt, whose {base}, {n_sleb}, {n_core_last}, {n_queues},
{n_hotplug}, {n_tools} and {bench} are the base, the numbers of the patch
that makes SLEB selectable, of the one before it, of the two after it
(the queues, hotplug) and of the harness's patch, and the latest bench
results.md (empty RESULTS_MD: none yet).
"""
import os
import sys


def main():
    path, base, table, n_sleb, n_tools = sys.argv[1:6]
    def nth(delta):
        return str(int(n_sleb) + delta) if n_sleb.isdigit() else n_sleb

    n_core_last, n_queues, n_hotplug = nth(-1), nth(1), nth(2)
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "cover.txt")) as f:
        template = f.read()
    bench = open(table).read() if table else "No benchmark has been run yet: run scripts/sleb bench.\n"
    blurb = template.format(base=base, n_sleb=n_sleb, n_core_last=n_core_last,
                            n_queues=n_queues, n_hotplug=n_hotplug, n_tools=n_tools, bench=bench)
    with open(path) as f:
        text = f.read()
    text = text.replace("*** SUBJECT HERE ***", "SLEB: the Enhanced Slab Allocator")
    text = text.replace("*** BLURB HERE ***", blurb)
    with open(path, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

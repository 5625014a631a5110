#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check scripts/bench_docs.py: a base's section is added once, replaced
by the next run, and the hand-written text and other bases' sections
stay as they are."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DOCS = os.path.join(HERE, "..", "bench_docs.py")


def run(doc, base, results, text):
    with open(results, "w") as f:
        f.write(text)
    return subprocess.run([sys.executable, DOCS, doc, base, results, "scripts/sleb bench"],
                          capture_output=True, text=True).returncode


def main():
    with tempfile.TemporaryDirectory() as tmp:
        doc, res = os.path.join(tmp, "benchmarks.md"), os.path.join(tmp, "results.md")
        with open(doc, "w") as f:
            f.write("Method\n======\n\nHand-written.\n")
        ok = run(doc, "a", res, "# run one\nfirst\n") == 0
        ok &= run(doc, "b", res, "# other base\nkept\n") == 0
        ok &= run(doc, "a", res, "# run two\nsecond\n") == 0
        text = open(doc).read()
    bad = []
    if "Hand-written." not in text:
        bad.append("the hand-written text is gone")
    if "first" in text or text.count("second") != 1:
        bad.append("base a's section was not replaced exactly once")
    if text.count("<!-- results a begin -->") != 1:
        bad.append("base a has %d sections" % text.count("<!-- results a begin -->"))
    if "kept" not in text:
        bad.append("base b's section is gone")
    if "### run two" not in text:
        bad.append("headings are not moved two levels down")
    if not ok:
        bad.append("bench_docs.py failed")
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

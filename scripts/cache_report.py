#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The cache model's regions (tools/testing/sleb/cachesim) as benchmark rows,
and the model's known-answer check.

usage:
  cache_report.py rows ROUND ALLOC CONSOLE CACHE SYSTEM_MAP ALLOC_SYMS MODE SOURCES
      samples.csv rows (round,alloc,metric,params,value,unit,timing_mode) of
      every region the console names (SLEB-BENCH: ... region=R ops=K), per
      operation, for all code (scope=total) and for the allocator's
      (scope=allocator: the functions ALLOC_SYMS lists as "OBJECT SECTION
      OFFSET SIZE NAME", objdump -t of the allocator's objects, placed by
      SYSTEM_MAP);
      appends to SOURCES where
      the allocator's L1D misses of each region come from
  cache_report.py check CONSOLE CACHE
      one "ok - ..."/"not ok - ..." line per SLEB-CACHEMODEL stride of the
      console (sleb_cachemark stride), against the answer the geometry of
      CACHE's header gives
"""
import os
import re
import sys


def read_cache(path):
    """(header geometry, {region_id: [rows]} of the last seq of each region,
    {region_id: totals})."""
    geom = {}
    regions = {}
    totals = {}
    last_seq = {}
    with open(path, errors="replace") as f:
        for line in f:
            t = line.split()
            if not t:
                continue
            if t[0] == "#" and len(t) > 1 and t[1] == "sleb-cache":
                for tok in t[2:]:
                    k, _, v = tok.partition("=")
                    geom[k] = v
            elif t[0] == "R" and len(t) == 9:
                rid, seq = int(t[1]), int(t[2])
                if last_seq.get(rid) != seq:
                    last_seq[rid] = seq
                    regions[rid] = []
                regions[rid].append((t[3], int(t[4], 16), t[5], int(t[6]), int(t[7]), int(t[8])))
            elif t[0] == "E" and len(t) == 6:
                rid, seq = int(t[1]), int(t[2])
                if last_seq.get(rid, seq) == seq:
                    last_seq[rid] = seq
                    regions.setdefault(rid, [])
                    totals[rid] = (int(t[3]), int(t[4]), int(t[5]))
    return geom, regions, totals


def console_lines(path, prefix):
    with open(path, errors="replace") as f:
        for line in f:
            line = re.sub(r"^\[ *[0-9.]*\] ", "", line.rstrip("\n"))
            if line.startswith(prefix):
                yield line[len(prefix):]


def kv(text):
    d = {}
    for tok in text.split():
        k, _, v = tok.partition("=")
        d[k] = v
    return d


def allocator_addrs(system_map, syms):
    """Addresses of the allocator's functions.  @syms holds "OBJECT SECTION
    OFFSET SIZE NAME" lines (objdump -t of the allocator's objects, hex
    numbers).  A name found once in System.map is that address.  A name
    other files use too (a static function) counts only inside its object's
    .text, which the linker keeps in one piece: it starts where a function
    found once in System.map lies, less that function's offset."""
    where = {}
    with open(system_map) as f:
        for line in f:
            t = line.split()
            if len(t) == 3 and t[1] in "tTwW":
                where.setdefault(t[2], []).append(int(t[0], 16))
    objs = {}
    for line in open(syms):
        t = line.split()
        if len(t) == 5:
            objs.setdefault(t[0], []).append((t[1], int(t[2], 16), int(t[3], 16), t[4]))
    addrs = set()
    for obj, funcs in objs.items():
        text = [(off, size, n) for sec, off, size, n in funcs if sec == ".text"]
        anchor = next(((where[n][0], off) for off, size, n in text if len(where.get(n, ())) == 1),
                      None)
        lo = hi = None
        if anchor and text:
            lo = anchor[0] - anchor[1]
            hi = lo + max(off + size for off, size, n in text)
        for sec, off, size, n in funcs:
            a = where.get(n, ())
            if len(a) == 1:
                addrs.add(a[0])
            elif sec == ".text" and lo is not None:
                addrs |= {x for x in a if x == lo + off}
    return addrs


def fmt(v):
    return "%.4f" % v if v < 10 else "%.2f" % v


def cmd_rows(argv):
    rnd, alloc, console, cache, system_map, syms, mode, sources = argv
    addrs = allocator_addrs(system_map, syms)
    geom, regions, totals = read_cache(cache)
    out = []
    src = []
    for kind_line in console_lines(console, "SLEB-BENCH: "):
        kind, _, rest = kind_line.partition(" ")
        p = kv(rest)
        if "region" not in p or "ops" not in p:
            continue
        rid, ops = int(p["region"]), int(p["ops"])
        if rid not in regions or ops <= 0:
            sys.stderr.write("cache_report: %s region %d: no counts from the model\n" % (alloc, rid))
            continue
        if kind == "kbench":
            params = "case=%s size=%s" % (p["case"], p["size"])
            for k in ("count", "bulk", "cpus"):
                if k in p:
                    params += " %s=%s" % (k, p[k])
        elif kind == "cache_hackbench":
            params = "case=hackbench_%s groups=%s loops=%s" % (p["mode"], p["groups"], p["loops"])
        else:
            continue
        tot = [0, 0, 0]
        own = [0, 0, 0]
        by_source = {}
        for name, addr, dclass, acc, l1, l2 in regions[rid]:
            for i, v in enumerate((acc, l1, l2)):
                tot[i] += v
            if addr in addrs:
                for i, v in enumerate((acc, l1, l2)):
                    own[i] += v
                if l1:
                    key = (name, dclass)
                    by_source[key] = by_source.get(key, 0) + l1
        for scope, c in (("total", tot), ("allocator", own)):
            out.append('%s,%s,cache_l1d_misses,%s scope=%s,%s,misses/op,"%s"'
                       % (rnd, alloc, params, scope, fmt(c[1] / ops), mode))
            out.append('%s,%s,cache_l2_misses,%s scope=%s,%s,misses/op,"%s"'
                       % (rnd, alloc, params, scope, fmt(c[2] / ops), mode))
            out.append('%s,%s,cache_accesses,%s scope=%s,%s,accesses/op,"%s"'
                       % (rnd, alloc, params, scope, fmt(c[0] / ops), mode))
        for (name, dclass), l1 in sorted(by_source.items(), key=lambda x: -x[1]):
            src.append("%s,%s,%s,%s,%s,%s" % (rnd, alloc, params, name, dclass, fmt(l1 / ops)))
    print("\n".join(out))
    if src:
        with open(sources, "a") as f:
            f.write("\n".join(src) + "\n")
    return 0


def cmd_check(argv):
    console, cache = argv
    ok = True

    def result(cond, what, detail=""):
        """One result line named by @what alone; what was measured goes to
        a "# " line, so that a test keeps its name from run to run."""
        nonlocal ok
        print("%s - cache model: %s" % ("ok" if cond else "not ok", what))
        if not cond:
            ok = False
        if detail:
            print("# " + detail)

    if not os.path.exists(cache):
        result(False, "the plugin wrote its regions", "no file %s" % cache)
        return 1
    geom, regions, totals = read_cache(cache)
    try:
        l1 = int(geom["l1"].split("/")[0])
        l2 = int(geom["l2"].split("/")[0])
        line = int(geom["line"])
    except (KeyError, ValueError):
        result(False, "the plugin names its geometry", "header: %s" % geom)
        return 1
    strides = [kv(l) for l in console_lines(console, "SLEB-CACHEMODEL: ")]
    result(len(strides) >= 3, "the guest ran its three strides", "%d strides" % len(strides))
    # A region holds the loop, plus the return from the begin marker's call.
    slack = 4
    for s in strides:
        rid, size, passes = int(s["region"]), int(s["bytes"]), int(s["passes"])
        lines = size // line
        want = lines * passes
        # The stride's own loads: user code on user data.  An interrupt
        # taken in user mode has its frame pushed by QEMU at the user PC,
        # onto the kernel's entry stack (data class "other"): not the
        # stride's.
        user = [r for r in regions.get(rid, []) if r[0] == "[user]" and r[2] == "user"]
        acc = sum(r[3] for r in user)
        m1 = sum(r[4] for r in user)
        m2 = sum(r[5] for r in user)
        what = "%d KiB, %d passes" % (size // 1024, passes)
        if rid not in regions:
            result(False, "region %d (%s) was counted" % (rid, what))
            continue
        result(want <= acc <= want + slack, "%s: one user access per line per pass" % what,
               "%d accesses, want %d" % (acc, want))
        if size >= 4 * l2:
            result(want <= m2 <= want + slack, "%s (4x L2 or more): every access misses L2" % what,
                   "%d L2 misses of %d accesses" % (m2, acc))
        elif size >= 2 * l1:
            result(want <= m1 <= want + slack, "%s (2x L1 or more): every access misses L1" % what,
                   "%d L1 misses of %d accesses" % (m1, acc))
            result(m2 <= slack, "%s (inside L2): no L2 miss after the first touch" % what,
                   "%d L2 misses" % m2)
        elif size <= l1 // 2:
            result(m1 <= slack, "%s (half L1 or less): no L1 miss after the first touch" % what,
                   "%d L1 misses" % m1)
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "rows" and len(sys.argv) == 10:
        sys.exit(cmd_rows(sys.argv[2:]))
    if len(sys.argv) >= 2 and sys.argv[1] == "check" and len(sys.argv) == 4:
        sys.exit(cmd_check(sys.argv[2:]))
    sys.stderr.write(__doc__)
    sys.exit(2)

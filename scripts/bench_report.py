#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""results.md and the plots of a scripts/sleb bench results folder.

usage: scripts/bench_report.py DIR

DIR holds samples.csv (round,alloc,metric,params,value,unit,timing_mode),
meta.txt (key=value: allocs, timing_mode, loops, ...) and kernels.txt
("ALLOC BUILD_DIR" per line; each BUILD_DIR has the kernel's .config).
Writes DIR/results.md, and DIR/*.png when gnuplot is installed.
"""
import csv, math, os, re, statistics, subprocess, sys

out = sys.argv[1]
meta = {}
for line in open(os.path.join(out, "meta.txt")):
    if "=" in line:
        k, v = line.rstrip("\n").split("=", 1)
        meta[k] = v
allocs = meta["allocs"].split()
mode = meta["timing_mode"]

METRICS = [
    ("hackbench", "hackbench time", "s, lower is better"),
    ("rr", "sleb_rr loopback request/response rate", "transactions/s, higher is better"),
    ("kbench", "kbench module (tools/testing/sleb/kbench)", "cycles per op (get_cycles), lower is better"),
    ("slab_kb", "Slab in /proc/meminfo", "kB, lower is better"),
    ("sunreclaim_kb", "SUnreclaim in /proc/meminfo", "kB, lower is better"),
    ("partial_slabs", "partial slabs", "slabs, lower is better"),
    ("reclaim_ipis", "function-call IPIs under reclaim (stress-ng --vm, CAL of /proc/interrupts)",
     "IPIs per second, lower is better"),
    ("reclaim_slab_kb", "Slab under reclaim (stress-ng --vm), sampled each second", "kB, lower is better"),
    ("text_bytes", "kernel text size", "bytes, lower is better"),
]
rank = {m[0]: i for i, m in enumerate(METRICS)}
values = {}
seen = {}


def seen_rank(s):
    return seen.setdefault(s, len(seen))


with open(os.path.join(out, "samples.csv")) as f:
    for r in csv.DictReader(f):
        key = (r["metric"], r["params"])
        values.setdefault(key, {}).setdefault(r["alloc"], []).append(float(r["value"]))
        for tok in r["params"].split():
            seen_rank(tok.split("=", 1)[-1])


def param_key(params):
    key = []
    for tok in params.split():
        k, _, v = tok.partition("=")
        key.append((0, int(v), "") if v.isdigit() else (1, seen_rank(v), v))
    return key


def fmt(v):
    if v is None:
        return "-"
    if abs(v) >= 100 or v == int(v):
        return "%.0f" % v
    if abs(v) >= 1:
        return "%.2f" % v
    return "%.3f" % v


ratio_pairs = [(a, ref) for ref in ("slub", "slab") if ref in allocs for a in allocs if a != ref]
# X over X-nodebug: what X's debugging code costs while it is off.
ratio_pairs += [(a[:-len("-nodebug")], a) for a in allocs
                if a.endswith("-nodebug") and a[:-len("-nodebug")] in allocs]
med = {}
for key, per in values.items():
    for a, vs in per.items():
        med[(key, a)] = statistics.median(vs)

lines = []
w = lines.append
w("# SLEB benchmark results")
w("")
w("- date: %s" % meta.get("date", "?"))
w("- timing: **%s** (accelerator %s)" % (mode, meta.get("accel", "?")))
w("- kernels: %s, variant fast%s; base %s"
  % (", ".join(allocs), " (X-nodebug: the nodebug variant, fast without X's debugging code)"
     if any(a.endswith("-nodebug") for a in allocs) else "", meta.get("base", "?")))
w("- source: %s" % meta.get("commit", "?"))
w("- rounds: %s, interleaved (%s, ...)" % (meta.get("rounds", "?"), " ".join(allocs)))
w("- hackbench loops: %s / groups; kbench n=%s; sleb_rr %s s per protocol"
  % (meta.get("loops", "?"), meta.get("kbench_n", "?"), meta.get("rr_seconds", "?")))
w("- host: %s" % meta.get("host", "?"))
if meta.get("cmdline"):
    w("- guest kernel command line adds: `%s` (no KUnit suite runs at boot)" % meta["cmdline"])
w("")
w("Each cell is the median over the rounds and [min-max]; a ratio is the median of the first")
w("allocator over the median of the second (below 1 is less time, cycles or memory; above 1")
w("is a higher rate for rr).  Samples: samples.csv; consoles: logs/.")
w("")

# Geometric means of the ratios per metric: the headline.
w("## Summary: geometric mean of the median ratios")
w("")
hdr = ["metric", "rows"] + ["%s/%s" % p for p in ratio_pairs]
w("| " + " | ".join(hdr) + " |")
w("|" + "---|" * len(hdr))
for m, title, unit in METRICS:
    keys = [k for k in values if k[0] == m]
    if not keys:
        continue
    cells = [m, str(len(keys))]
    for a, ref in ratio_pairs:
        logs = [math.log(med[(k, a)] / med[(k, ref)]) for k in keys
                if (k, a) in med and (k, ref) in med and med[(k, a)] > 0 and med[(k, ref)] > 0]
        cells.append("%.3f" % math.exp(sum(logs) / len(logs)) if logs else "-")
    w("| " + " | ".join(cells) + " |")
w("")

for m, title, unit in METRICS:
    keys = sorted((k for k in values if k[0] == m), key=lambda k: param_key(k[1]))
    if not keys:
        continue
    w("## %s (%s)" % (title, unit))
    w("")
    if m == "partial_slabs":
        w("source=sysfs: sum of /sys/kernel/slab/*/partial over real caches (not alias links);")
        w("source=slabinfo: num_slabs - active_slabs of /proc/slabinfo, which for SLAB counts its")
        w("empty slabs; SLOB has neither.")
        w("")
    if m == "text_bytes":
        w("`size` text of vmlinux and of mm/<allocator>.o (mm/slub.o, mm/slab.o, mm/sleb.o, mm/slob.o).")
        w("")
    if m == "kbench":
        w("conc_*: one kthread per online CPU at once, average or maximum over the CPUs;")
        w("remote_*: the other CPUs allocate, the first CPU frees; bulk_*: cycles per object.")
        w("")
    hdr = ["params"] + allocs + ["%s/%s" % p for p in ratio_pairs]
    w("| " + " | ".join(hdr) + " |")
    w("|" + "---|" * len(hdr))
    for k in keys:
        cells = [k[1]]
        for a in allocs:
            vs = values[k].get(a)
            if not vs:
                cells.append("-")
            elif len(vs) == 1:
                cells.append(fmt(vs[0]))
            else:
                cells.append("%s [%s-%s]" % (fmt(med[(k, a)]), fmt(min(vs)), fmt(max(vs))))
        for a, ref in ratio_pairs:
            if (k, a) in med and (k, ref) in med and med[(k, ref)] > 0:
                cells.append("%.2f" % (med[(k, a)] / med[(k, ref)]))
            else:
                cells.append("-")
        w("| " + " | ".join(cells) + " |")
    w("")

# Kernel configurations: the allocator's own options, and anything else that differs.
own = re.compile(r"^CONFIG_(SLAB|SLOB)$|^CONFIG_(SLUB|SLEB)($|_)")
selected = {"CONFIG_HAVE_ALIGNED_STRUCT_PAGE", "CONFIG_STACKDEPOT"}
configs = {}
for line in open(os.path.join(out, "kernels.txt")):
    a, d = line.split()
    cfg = {}
    for l in open(os.path.join(d, ".config")):
        mt = re.match(r"^(CONFIG_[A-Za-z0-9_]+)=(.*)$", l)
        if mt:
            cfg[mt.group(1)] = mt.group(2)
    configs[a] = cfg
if configs:
    w("## Kernel configurations")
    w("")
    w("Options of the allocators themselves (set in scripts/config/alloc-*.config or selected):")
    w("")
    for a in allocs:
        if a in configs:
            opts = sorted(o + "=" + v for o, v in configs[a].items() if own.match(o) or o in selected)
            w("- %s: %s" % (a, " ".join(opts)))
    w("")
    names = set()
    for cfg in configs.values():
        names |= set(cfg)
    diff = sorted(o for o in names if not own.match(o) and o not in selected
                  and len({cfg.get(o, "n") for cfg in configs.values()}) > 1)
    if diff:
        w("Other options that differ between the kernels (some are inherent, e.g. SLOB cannot")
        w("have MEMCG_KMEM or SLAB_FREELIST_RANDOM):")
        w("")
        w("| option | " + " | ".join(a for a in allocs if a in configs) + " |")
        w("|" + "---|" * (1 + len(configs)))
        for o in diff:
            w("| %s | %s |" % (o, " | ".join(configs[a].get(o, "n") for a in allocs if a in configs)))
    else:
        w("All other options are identical.")
    w("")

errs = os.path.join(out, "errors.txt")
if os.path.exists(errs) and os.path.getsize(errs):
    w("## Problems")
    w("")
    for l in open(errs):
        w("- " + l.rstrip("\n"))
    w("")

# Plots.
pdir = os.path.join(out, "plot")
os.makedirs(pdir, exist_ok=True)


def series(metric, match, xparam):
    """{alloc: [(x, median, min, max)]} for the rows of metric whose params match."""
    res = {}
    for (m, params), per in values.items():
        if m != metric:
            continue
        p = dict(t.split("=", 1) for t in params.split())
        if any(p.get(k) != v for k, v in match.items()):
            continue
        for a, vs in per.items():
            res.setdefault(a, []).append((float(p[xparam]), statistics.median(vs), min(vs), max(vs)))
    return res


def panels_script(png, panels, xlabel, ylabel, logx, logy, layout):
    gp = []
    panels = [(t, s) for t, s in panels if s]
    if not panels:
        return None
    rows, cols = layout
    while rows * cols - cols >= len(panels) and rows > 1:
        rows -= 1
    gp.append('set terminal pngcairo noenhanced size %d,%d font ",9"' % (480 * cols, 360 * rows))
    gp.append('set output "%s"' % png)
    gp.append('set multiplot layout %d,%d title "%s"' % (rows, cols, mode))
    gp.append('set xlabel "%s"; set ylabel "%s"; set key top left; set grid' % (xlabel, ylabel))
    gp.append("set logscale x 2" if logx else "unset logscale x")
    gp.append("set logscale y" if logy else "unset logscale y")
    for n, (title, s) in enumerate(panels):
        plots = []
        for a in allocs:
            if a not in s:
                continue
            fn = os.path.join(pdir, "%s-%d-%s.dat" % (os.path.basename(png)[:-4], n, a))
            with open(fn, "w") as f:
                for x, md, lo, hi in sorted(s[a]):
                    f.write("%g %g %g %g\n" % (x, md, lo, hi))
            plots.append('"%s" using 1:2:3:4 with yerrorlines title "%s"' % (fn, a))
        gp.append('set title "%s"' % title)
        gp.append("plot " + ", ".join(plots))
    gp.append("unset multiplot")
    return "\n".join(gp) + "\n"


scripts = []
hb = []
for md in ("socket", "pipe"):
    for kind in ("process", "thread"):
        hb.append(("hackbench %s %s" % (md, kind), series("hackbench", {"mode": md, "kind": kind}, "groups")))
scripts.append(panels_script(os.path.join(out, "hackbench.png"), hb, "groups", "seconds", False, False, (2, 2)))
kb = []
for case in ("seq_alloc", "seq_free", "pair", "conc_pair_avg", "conc_alloc_max", "remote_free"):
    kb.append(("kbench %s" % case, series("kbench", {"case": case}, "size")))
scripts.append(panels_script(os.path.join(out, "kbench.png"), kb, "object size (bytes)", "cycles per op",
                             True, True, (2, 3)))
bk = []
for size in ("64", "256", "1024", "4096"):
    bk.append(("bulk_pair size %s" % size, series("kbench", {"case": "bulk_pair", "size": size}, "bulk")))
scripts.append(panels_script(os.path.join(out, "kbench-bulk.png"), bk, "objects per bulk call",
                             "cycles per object", True, True, (2, 2)))
pngs = []
for n, gp in enumerate(s for s in scripts if s):
    fn = os.path.join(pdir, "plot%d.gp" % n)
    with open(fn, "w") as f:
        f.write(gp)
    r = subprocess.run(["gnuplot", fn], capture_output=True, text=True)
    png = re.search(r'set output "([^"]*)"', gp).group(1)
    if r.returncode == 0 and os.path.exists(png):
        pngs.append(os.path.basename(png))
    else:
        sys.stderr.write("sleb: gnuplot %s failed: %s\n" % (fn, r.stderr.strip()[-300:]))
if pngs:
    w("## Plots")
    w("")
    for p in pngs:
        w("![%s](%s)" % (p, p))
    w("")

with open(os.path.join(out, "results.md"), "w") as f:
    f.write("\n".join(lines))

#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""results.md and the plots of a scripts/sleb bench results folder.

usage: scripts/bench_report.py DIR

DIR holds samples.csv (round,alloc,metric,params,value,unit,timing_mode),
meta.txt (key=value: allocs, timing_mode, loops, ...) and kernels.txt
("ALLOC BUILD_DIR" per line; each BUILD_DIR has the kernel's .config).
Writes DIR/results.md, and DIR/*.png when gnuplot is installed.
"""
import csv, math, os, re, shutil, statistics, subprocess, sys

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
    ("isolated_work_items", "work items run on the isolated CPU (workqueue trace events)",
     "work items per phase, lower is better"),
    ("isolated_work_us", "time of the work items run on the isolated CPU (TCG)",
     "us per phase, lower is better"),
    ("isolated_reaper_runs", "runs of SLEB's reaper (sleb_reap) on the isolated CPU",
     "runs per phase, lower is better"),
    ("isolated_ticks", "local timer interrupts of the isolated CPU (LOC of /proc/interrupts)",
     "interrupts per phase, lower is better"),
    ("cache_l1d_misses", "L1D misses per operation under the cache model", "misses per op, lower is better"),
    ("cache_l2_misses", "L2 misses per operation under the cache model", "misses per op, lower is better"),
    ("cache_accesses", "loads and stores per operation under the cache model", "accesses per op"),
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


ratio_pairs = [(a, "slub") for a in allocs if "slub" in allocs and a != "slub"]
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
if meta.get("cache") == "1":
    w("- cache model: %s; kbench n=%s, sizes %s, cold case evicts with %s KiB; hackbench "
      "(MODE:GROUPS:LOOPS) %s" % (meta.get("cache_geometry", "?"), meta.get("kbench_n", "?"),
                                 meta.get("cache_sizes", "?"), meta.get("cache_evict_kb", "?"),
                                 meta.get("cache_hackbench", "?")))
elif "isolated_seconds" in meta:
    w("- isolated CPU 1: after hackbench on it, %s s idle, %s s with one userspace loop on it,"
      % (meta["isolated_seconds"], meta["isolated_seconds"]))
    w("  %s s with two; work items from the workqueue trace events of its buffer"
      % meta["isolated_seconds"])
else:
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



def pdict(params):
    return dict(t.split("=", 1) for t in params.split())


def cache_mean(alloc, scope, metric, pred):
    """Mean over the matching rows of the median per op, or None."""
    vs = [med[(k, alloc)] for k in values if k[0] == metric and (k, alloc) in med
          and pdict(k[1]).get("scope") == scope and pred(pdict(k[1]))]
    return (sum(vs) / len(vs), len(vs)) if vs else (None, 0)


CACHE_WORKLOADS = [
    ("cold case (cold_free and cold_alloc, every size and count)",
     lambda p: p["case"] in ("cold_free", "cold_alloc")),
    ("cold_free", lambda p: p["case"] == "cold_free"),
    ("cold_alloc (with the caller's first write)", lambda p: p["case"] == "cold_alloc"),
    ("hackbench sockets (per message)", lambda p: p["case"] == "hackbench_socket"),
    ("hackbench pipes (per message)", lambda p: p["case"] == "hackbench_pipe"),
    ("pair (kmalloc+kfree)", lambda p: p["case"] == "pair"),
    ("bulk_pair", lambda p: p["case"] == "bulk_pair"),
    ("remote_free (2 vCPUs)", lambda p: p["case"] == "remote_free"),
]

if any(k[0] == "cache_l1d_misses" for k in values):
    w("## Cache model: misses per operation")
    w("")
    goals = [("cold case (cold_free and cold_alloc, every size and count)", CACHE_WORKLOADS[0][1], 0.5),
             ("hackbench sockets", CACHE_WORKLOADS[3][1], 0.9)]
    for a, ref in ratio_pairs:
        for name, pred, goal in goals:
            x = cache_mean(a, "allocator", "cache_l1d_misses", pred)[0]
            y = cache_mean(ref, "allocator", "cache_l1d_misses", pred)[0]
            xt = cache_mean(a, "total", "cache_l1d_misses", pred)[0]
            yt = cache_mean(ref, "total", "cache_l1d_misses", pred)[0]
            if x is None or not y or xt is None or not yt:
                continue
            w("- **%s, %s/%s: allocator-caused L1D misses %.2f, all L1D misses %.2f** "
              "(goal for the allocator's: at most %.1f; %s)"
              % (name, a, ref, x / y, xt / yt, goal, "met" if x / y <= goal else "not met"))
    w("")
    w("Each cell is the mean over the workload's rows of the median L1D (or L2) misses per")
    w("operation.  total: every access the guest made inside the marked region (kernel, module,")
    w("user); allocator: accesses whose instruction lies in the allocator's own objects")
    w("(mm/slab_common.o and mm/<allocator>.o).  A miss the allocator does not take may reappear")
    w("in its caller (cold_alloc writes each object once after kmalloc), so total is the headline.")
    w("")
    hdr = ["workload", "rows", "misses", "scope"] + allocs + ["%s/%s" % p for p in ratio_pairs]
    w("| " + " | ".join(hdr) + " |")
    w("|" + "---|" * len(hdr))
    for name, pred in CACHE_WORKLOADS:
        for metric, label in (("cache_l1d_misses", "L1D"), ("cache_l2_misses", "L2")):
            for scope in ("total", "allocator"):
                means = {a: cache_mean(a, scope, metric, pred) for a in allocs}
                nrows = max(n for _, n in means.values())
                if not nrows:
                    continue
                cells = [name, str(nrows), label, scope] + [fmt(means[a][0]) for a in allocs]
                for a, ref in ratio_pairs:
                    x, y = means[a][0], means[ref][0]
                    cells.append("%.2f" % (x / y) if x is not None and y else "-")
                w("| " + " | ".join(cells) + " |")
    w("")
    # Repeatability: rows, and the headline means, from round to round.
    spread = []
    big = []
    for k, per in values.items():
        if k[0] not in ("cache_l1d_misses", "cache_l2_misses"):
            continue
        for a, vs in per.items():
            if len(vs) > 1 and max(vs) > 0:
                spread.append((max(vs) - min(vs)) / max(vs))
                if min(vs) >= 0.1 and pdict(k[1]).get("case") in ("cold_free", "cold_alloc",
                                                                    "hackbench_socket"):
                    big.append((max(vs) - min(vs)) / max(vs))
    if spread:
        same = sum(1 for x in spread if x == 0)
        w("Repeatability over %s rounds: %d of %d miss rows are identical in every round; of the"
          % (meta.get("rounds", "?"), same, len(spread)))
        w("cold-case and hackbench-socket rows with at least 0.1 misses per operation the largest")
        w("spread (max-min)/max is %.1f%%.  The -icount guest runs the same code, but not bit for"
          % (100 * max(big) if big else 0))
        w("bit: interrupts land a few instructions apart from boot to boot (QEMU promises")
        w("determinism only under record/replay), so small counts move by a few misses, and a")
        w("workload whose scheduling follows the interrupts moves more (bulk_free of 1 KiB objects,")
        w("whose slab pages come from the page allocator, up to half; hackbench over pipes, not")
        w("run, twice).")
        w("")
    src_file = os.path.join(out, "cache-sources.csv")
    if os.path.exists(src_file):
        src = {}
        nrows = {}
        with open(src_file) as f:
            for r in csv.DictReader(f):
                if r["round"] != "1":
                    continue
                p = pdict(r["params"])
                for name, pred in CACHE_WORKLOADS[:1] + CACHE_WORKLOADS[3:4]:
                    if not pred(p):
                        continue
                    nrows.setdefault((name, r["alloc"]), set()).add(r["params"])
                    key = (name, r["alloc"])
                    fk = "%s (%s)" % (r["function"], r["memory"])
                    src.setdefault(key, {})
                    src[key][fk] = src[key].get(fk, 0) + float(r["l1d_misses_per_op"])
        if src:
            w("### Where the allocator's L1D misses come from (round 1)")
            w("")
            w("Function of the access and the memory it touched: page = struct page/struct slab")
            w("(vmemmap), direct = the direct map (objects, kmalloc'd arrays, per-cpu data), image =")
            w("the kernel's data and bss; misses per operation, averaged over the workload's rows.")
            w("")
            for (name, a), d in sorted(src.items()):
                n = len(nrows[(name, a)])
                top = sorted(d.items(), key=lambda x: -x[1])[:8]
                w("- %s, %s: %s" % (a, name, "; ".join("%s %s" % (f, fmt(v / n)) for f, v in top)))
            w("")

    cg = os.path.join(out, "cachegrind.txt")
    if os.path.exists(cg):
        w("### The bookkeeping alone: valgrind's cache simulator on the userspace harness")
        w("")
        w("`make -C tools/testing/sleb cachegrind`: mm/sleb_map.h's operations in bench.c, same")
        w("geometry (D1 32 KiB 8-way, LL 1 MiB 16-way), per operation:")
        w("")
        w("```")
        for l in open(cg):
            w(l.rstrip("\n"))
        w("```")
        w("")

# Under the cache model the detailed tables keep the cases of the headline;
# every row is in samples.csv.
DETAIL_CASES = ("cold_free", "cold_alloc", "pair", "remote_free", "hackbench_socket", "hackbench_pipe")


def shown(key):
    if meta.get("cache") != "1" or key[0] not in ("kbench", "cache_l1d_misses", "cache_l2_misses",
                                                  "cache_accesses"):
        return True
    return pdict(key[1]).get("case") in DETAIL_CASES


for m, title, unit in METRICS:
    keys = sorted((k for k in values if k[0] == m and shown(k)), key=lambda k: param_key(k[1]))
    if not keys:
        continue
    if m == "kbench" and meta.get("cache") == "1":
        title, unit = "kbench module under -icount", "get_cycles() per op, proportional to instructions"
    w("## %s (%s)" % (title, unit))
    w("")
    if m == "partial_slabs":
        w("Sum of /sys/kernel/slab/*/partial over real caches (not alias links).")
        w("")
    if m.startswith("isolated_"):
        w("Per phase of %s s on CPU 1, booted nohz_full and isolated: idle, one task (a userspace"
          % meta.get("isolated_seconds", "?"))
        w("loop: its tick stops), two tasks (its tick runs).  Times are TCG's, comparable only")
        w("between the allocators of this run.")
        w("")
    if m == "text_bytes":
        w("`size` text of vmlinux and of mm/<allocator>.o (mm/slub.o, mm/sleb.o).")
        w("")
    if meta.get("cache") == "1" and m.startswith("cache_"):
        w("Cases of the headline only (seq_* and bulk_* are in samples.csv); remote_free runs on")
        w("two vCPUs under -icount (several boots a round), the others on one vCPU.")
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
own = re.compile(r"^CONFIG_(SLUB|SLEB)($|_)")
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
        w("Other options that differ between the kernels (some are inherent, e.g. tag-based")
        w("KASAN is not available with SLEB):")
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
    title = mode
    if meta.get("cache") == "1":
        title = "cache model: %s" % meta.get("cache_geometry", "?")
    gp.append('set multiplot layout %d,%d title "%s"' % (rows, cols, title))
    gp.append('set xlabel "%s"; set ylabel "%s"; set key top left; set grid' % (xlabel, ylabel))
    gp.append("set logscale x 2" if logx else "unset logscale x")
    gp.append("set logscale y" if logy else "unset logscale y; set yrange [0:*]")
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
ck = []
for case in ("cold_free", "cold_alloc"):
    for scope in ("allocator", "total"):
        ck.append(("%s count 1024, %s" % (case, scope),
                   series("cache_l1d_misses", {"case": case, "count": "1024", "scope": scope}, "size")))
scripts.append(panels_script(os.path.join(out, "cache.png"), ck, "object size (bytes)",
                             "L1D misses per op", True, False, (2, 2)))
pngs = []
# Without gnuplot there are no plots; results.md is the same otherwise.
if not shutil.which("gnuplot"):
    scripts = []
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

// SPDX-License-Identifier: GPL-2.0
/*
 * sleb_cache.so: a QEMU TCG plugin that runs every guest load and store
 * through a model of the data caches (cache_model.h) and counts, for the
 * regions the guest marks, the accesses and misses by the guest function
 * that made them and by the kind of memory they touched.
 *
 *   qemu-system-x86_64 -accel tcg -icount shift=0,sleep=off \
 *	-plugin sleb_cache.so,symbols=System.map,out=regions.txt ...
 *
 * Arguments (name=value):
 *   l1=SIZE l1_ways=N	per-vCPU L1D (default 32K, 8 ways)
 *   l2=SIZE l2_ways=N	per-vCPU L2 (default 1M, 16 ways)
 *   line=BYTES		line size of both (default 64)
 *   symbols=FILE	the guest kernel's System.map: accesses are counted by
 *			the text symbol their instruction lies in
 *   out=FILE		one line per function and kind of memory of each region
 *   start=mark|boot	simulate from the first marker (default) or from
 *			the first instruction
 *
 * Markers.  The guest marks a region with 7-byte instructions
 * "nopl 0x5e1e000X(%rax)", which do nothing on any x86 CPU, so that a
 * marker costs the same under every allocator: X = 2 and 3 are the bits 0
 * and 1 of the region number, most significant first; X = 0 begins the
 * region with the number those bits spelled on that vCPU, X = 1 ends the
 * open region.  Between begin and end the plugin counts the accesses of the
 * vCPU that began the region (the others still go through the model: their
 * stores take lines from it); at the end it prints one line to stderr,
 *
 *   sleb-cache: region=R seq=S accesses=A l1_misses=M1 l2_misses=M2
 *
 * and writes the region's detail to out=FILE.  Until the first marker the
 * plugin only calls back (start=mark): the boot does not pay for the model.
 *
 * The kinds of memory are the address ranges of x86-64's 4- and 5-level
 * layouts without KASLR (boot the guest with nokaslr): user, direct (the direct
 * map: slab objects, kmalloc'd metadata, per-cpu areas), vmalloc (with
 * kernel stacks), page (vmemmap: struct page, and so struct slab), image
 * (the kernel's data and bss), module, other.
 *
 * The model is serialised by one mutex, so that it is also correct under
 * multi-threaded TCG; the benchmark runs it under -icount, one thread.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qemu_plugin_api.h"
#include "cache_model.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = SLEB_QEMU_PLUGIN_VERSION;

#define MARK_MAGIC	0x5e1eU

enum mark_op { MARK_BEGIN, MARK_END, MARK_BIT0, MARK_BIT1, NR_MARK_OPS };

#define MAX_VCPUS	64
#define GUEST_PAGE_SHIFT	12
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

enum data_class {
	DC_USER,
	DC_DIRECT,
	DC_VMALLOC,
	DC_PAGE,
	DC_IMAGE,
	DC_MODULE,
	DC_OTHER,
	NR_DATA_CLASSES
};

static const char * const class_names[NR_DATA_CLASSES] = {
	"user", "direct", "vmalloc", "page", "image", "module", "other",
};

enum { CNT_ACCESSES, CNT_L1_MISSES, CNT_L2_MISSES, NR_COUNTS };

struct func {
	unsigned long long addr;
	char *name;
};

/* Buckets: one per kernel text symbol, then these three. */
enum { EXTRA_USER, EXTRA_MODULE, EXTRA_KERNEL, NR_EXTRA };
static const char * const extra_names[NR_EXTRA] = { "[user]", "[module]", "[kernel]" };

static struct func *funcs;
static size_t nr_funcs;
static size_t nr_buckets;

struct bucket_counts {
	unsigned long long c[NR_DATA_CLASSES][NR_COUNTS];
};

static struct bucket_counts *counts;
static unsigned int *touched;	/* buckets counted in the open region */
static size_t nr_touched;
static unsigned char *is_touched;

static struct cm_system sys;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool simulating;
static bool region_open;
static unsigned int region_vcpu;
static unsigned int region_id;
static unsigned int region_seq;
static unsigned int nr_regions;
static FILE *out;
static unsigned int pending_id[MAX_VCPUS];	/* the bits marked so far, per vCPU */

/* A range of kernel virtual addresses and the kind of memory it maps. */
struct area {
	unsigned long long start, end;
	enum data_class dc;
};

/*
 * x86-64's layouts without KASLR (Documentation/x86/x86_64/mm.rst), both
 * of 4-level and of 5-level paging (-cpu max has LA57).
 */
static const struct area areas[] = {
	{ 0xffff888000000000ULL, 0xffffc88000000000ULL, DC_DIRECT },
	{ 0xffffc90000000000ULL, 0xffffe90000000000ULL, DC_VMALLOC },
	{ 0xffffea0000000000ULL, 0xffffeb0000000000ULL, DC_PAGE },
	{ 0xff11000000000000ULL, 0xff91000000000000ULL, DC_DIRECT },
	{ 0xffa0000000000000ULL, 0xffd2000000000000ULL, DC_VMALLOC },
	{ 0xffd4000000000000ULL, 0xffd6000000000000ULL, DC_PAGE },
	{ 0xffffffff80000000ULL, 0xffffffffa0000000ULL, DC_IMAGE },
	{ 0xffffffffa0000000ULL, 0xffffffffff000000ULL, DC_MODULE },
};

static bool is_user(unsigned long long vaddr)
{
	return vaddr < 0x0100000000000000ULL;
}

static bool is_module(unsigned long long vaddr)
{
	return vaddr >= 0xffffffffa0000000ULL && vaddr < 0xffffffffff000000ULL;
}

static enum data_class classify(unsigned long long vaddr)
{
	size_t i;

	if (is_user(vaddr))
		return DC_USER;
	for (i = 0; i < ARRAY_SIZE(areas); i++)
		if (vaddr >= areas[i].start && vaddr < areas[i].end)
			return areas[i].dc;
	return DC_OTHER;
}

/* The bucket of an instruction at @vaddr. */
static unsigned int bucket_of(unsigned long long vaddr)
{
	size_t lo = 0, hi = nr_funcs;

	if (is_user(vaddr))
		return nr_funcs + EXTRA_USER;
	if (is_module(vaddr))
		return nr_funcs + EXTRA_MODULE;
	if (!nr_funcs || vaddr < funcs[0].addr)
		return nr_funcs + EXTRA_KERNEL;
	/* The last symbol at or below vaddr. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (funcs[mid].addr <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static const char *bucket_name(unsigned int b)
{
	return b < nr_funcs ? funcs[b].name : extra_names[b - nr_funcs];
}

static void count(unsigned int b, enum data_class dc, enum cm_result r)
{
	unsigned long long *c = counts[b].c[dc];

	if (!is_touched[b]) {
		is_touched[b] = 1;
		touched[nr_touched++] = b;
	}
	c[CNT_ACCESSES]++;
	if (r != CM_L1_HIT)
		c[CNT_L1_MISSES]++;
	if (r == CM_MISS)
		c[CNT_L2_MISSES]++;
}

/* The physical address of guest virtual @vaddr, or false for none or I/O. */
static bool phys_of(unsigned int info, unsigned long long vaddr, unsigned long long *pa)
{
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);

	if (!hw || qemu_plugin_hwaddr_is_io(hw))
		return false;
	*pa = qemu_plugin_hwaddr_phys_addr(hw);
	return true;
}

static void on_mem(unsigned int vcpu, unsigned int info, unsigned long long vaddr,
		   void *udata)
{
	unsigned long long pa, pa_last, vlast, line;
	unsigned int size;
	enum cm_result r, worst;
	bool store;

	if (!simulating || vcpu >= sys.nr_cpus)
		return;
	if (!phys_of(info, vaddr, &pa))
		return;
	size = 1U << qemu_plugin_mem_size_shift(info);
	store = qemu_plugin_mem_is_store(info);
	vlast = vaddr + size - 1;
	pa_last = pa + size - 1;
	/* The last byte on another page lies wherever that page is. */
	if ((vaddr ^ vlast) >> GUEST_PAGE_SHIFT && !phys_of(info, vlast, &pa_last))
		pa_last = pa;

	pthread_mutex_lock(&lock);
	worst = cm_access_line(&sys, vcpu, pa, store);
	/* An access that straddles two lines counts once, at its worst. */
	line = pa_last >> sys.line_shift;
	if (line != pa >> sys.line_shift) {
		r = cm_access_line(&sys, vcpu, line << sys.line_shift, store);
		if (r > worst)
			worst = r;
	}
	/* A region counts what the vCPU that began it does. */
	if (region_open && vcpu == region_vcpu)
		count((unsigned int)(unsigned long)udata, classify(vaddr), worst);
	pthread_mutex_unlock(&lock);
}

/* Sum up the open region, write it out unless @emit is false, and reset. */
static void close_region(bool emit)
{
	unsigned long long total[NR_COUNTS] = { 0 };
	size_t i;
	int dc, k;

	for (i = 0; i < nr_touched; i++) {
		unsigned int b = touched[i];

		for (dc = 0; dc < NR_DATA_CLASSES; dc++) {
			unsigned long long *c = counts[b].c[dc];

			if (!c[CNT_ACCESSES])
				continue;
			for (k = 0; k < NR_COUNTS; k++)
				total[k] += c[k];
			if (emit && out)
				fprintf(out, "R %u %u %s %#llx %s %llu %llu %llu\n",
					region_id, region_seq, bucket_name(b),
					b < nr_funcs ? (unsigned long long)funcs[b].addr : 0ULL,
					class_names[dc], (unsigned long long)c[CNT_ACCESSES],
					(unsigned long long)c[CNT_L1_MISSES],
					(unsigned long long)c[CNT_L2_MISSES]);
			memset(c, 0, sizeof(counts[b].c[dc]));
		}
		is_touched[b] = 0;
	}
	nr_touched = 0;
	if (!emit)
		return;
	if (out) {
		fprintf(out, "E %u %u %llu %llu %llu\n", region_id, region_seq,
			(unsigned long long)total[CNT_ACCESSES],
			(unsigned long long)total[CNT_L1_MISSES],
			(unsigned long long)total[CNT_L2_MISSES]);
		fflush(out);
	}
	fprintf(stderr,
		"sleb-cache: region=%u seq=%u accesses=%llu l1_misses=%llu l2_misses=%llu\n",
		region_id, region_seq, (unsigned long long)total[CNT_ACCESSES],
		(unsigned long long)total[CNT_L1_MISSES], (unsigned long long)total[CNT_L2_MISSES]);
}

static void on_mark(unsigned int vcpu, void *udata)
{
	enum mark_op op = (enum mark_op)(unsigned long)udata;

	if (vcpu >= MAX_VCPUS)
		return;
	pthread_mutex_lock(&lock);
	simulating = true;
	switch (op) {
	case MARK_BIT0:
	case MARK_BIT1:
		pending_id[vcpu] = pending_id[vcpu] << 1 | (op == MARK_BIT1);
		break;
	case MARK_BEGIN:
		if (region_open)
			fprintf(stderr, "sleb-cache: error: region %u begins inside region %u\n",
				pending_id[vcpu], region_id);
		/* What counted before (an unfinished region) does not count. */
		close_region(false);
		region_seq = ++nr_regions;
		region_id = pending_id[vcpu];
		region_vcpu = vcpu;
		pending_id[vcpu] = 0;
		region_open = true;
		break;
	case MARK_END:
		if (region_open)
			close_region(true);
		else
			fprintf(stderr, "sleb-cache: error: a region ends, but none is open\n");
		region_open = false;
		pending_id[vcpu] = 0;
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&lock);
}

/* The operation of a marker instruction, or -1. */
static int marker_of(struct qemu_plugin_insn *insn)
{
	const unsigned char *d = qemu_plugin_insn_data(insn);
	unsigned int disp;

	if (qemu_plugin_insn_size(insn) != 7 || d[0] != 0x0f || d[1] != 0x1f || d[2] != 0x80)
		return -1;
	disp = d[3] | d[4] << 8 | d[5] << 16 | (unsigned int)d[6] << 24;
	if (disp >> 16 != MARK_MAGIC || (disp & 0xffff) >= NR_MARK_OPS)
		return -1;
	return disp & 0xffff;
}

static void on_tb_trans(unsigned long long id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		int mark = marker_of(insn);

		if (mark >= 0) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(unsigned long)mark);
			continue;
		}
		unsigned int bucket = bucket_of(qemu_plugin_insn_vaddr(insn));

		qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW, (void *)(unsigned long)bucket);
	}
}

static void on_qemu_exit(unsigned long long id, void *udata)
{
	pthread_mutex_lock(&lock);
	if (region_open)
		fprintf(stderr, "sleb-cache: error: region %u still open at exit\n", region_id);
	fprintf(stderr, "sleb-cache: done regions=%u\n", nr_regions);
	if (out)
		fclose(out);
	out = NULL;
	pthread_mutex_unlock(&lock);
}

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* A linker symbol such as _stext or __sched_text_start, not a function. */
static bool is_section_marker(const char *name)
{
	size_t len = strlen(name);

	if (!strcmp(name, "_stext") || !strcmp(name, "_text") || !strcmp(name, "_etext") ||
	    !strcmp(name, "_sinittext") || !strcmp(name, "_einittext"))
		return true;
	if (strncmp(name, "__", 2))
		return false;
	return (len > 6 && !strcmp(name + len - 6, "_start")) ||
	       (len > 4 && !strcmp(name + len - 4, "_end"));
}

/* The text symbols of a System.map, sorted, one per address. */
static int load_symbols(const char *path)
{
	char line[512], name[400], type;
	size_t cap = 0, i, j;
	unsigned long long addr;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "sleb-cache: error: symbols=%s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %399s", &addr, &type, name) != 3)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (nr_funcs == cap) {
			cap = cap ? 2 * cap : 65536;
			funcs = realloc(funcs, cap * sizeof(*funcs));
			if (!funcs) {
				fclose(f);
				return -1;
			}
		}
		funcs[nr_funcs].addr = addr;
		funcs[nr_funcs].name = strdup(name);
		nr_funcs++;
	}
	fclose(f);
	qsort(funcs, nr_funcs, sizeof(*funcs), cmp_func);
	for (i = 0, j = 0; i < nr_funcs; i++) {
		if (j && funcs[j - 1].addr == funcs[i].addr) {
			/* Of two names of one address, keep the function's. */
			if (is_section_marker(funcs[j - 1].name)) {
				free(funcs[j - 1].name);
				funcs[j - 1] = funcs[i];
			} else {
				free(funcs[i].name);
			}
			continue;
		}
		funcs[j++] = funcs[i];
	}
	nr_funcs = j;
	return 0;
}

/* "32768", "32K", "1M": bytes; 0 on a bad number. */
static unsigned long long parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (end == s)
		return 0;
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	return *end ? 0 : v;
}

struct plugin_args {
	struct cm_geometry l1, l2;
	const char *symbols;
	const char *out;
};

static bool arg_is(const char *arg, const char *name, const char **value)
{
	size_t len = strlen(name);

	if (strncmp(arg, name, len) || arg[len] != '=')
		return false;
	*value = arg + len + 1;
	return true;
}

static void say_error(const char *what, const char *arg)
{
	fprintf(stderr, "sleb-cache: error: %s '%s'\n", what, arg);
}

/* One name=value argument into @a; -1 on a bad one. */
static int parse_arg(struct plugin_args *a, const char *arg)
{
	const char *v;

	if (arg_is(arg, "l1", &v)) {
		a->l1.size = parse_size(v);
	} else if (arg_is(arg, "l1_ways", &v)) {
		a->l1.ways = parse_size(v);
	} else if (arg_is(arg, "l2", &v)) {
		a->l2.size = parse_size(v);
	} else if (arg_is(arg, "l2_ways", &v)) {
		a->l2.ways = parse_size(v);
	} else if (arg_is(arg, "line", &v)) {
		a->l1.line = parse_size(v);
		a->l2.line = a->l1.line;
	} else if (arg_is(arg, "symbols", &v)) {
		a->symbols = v;
	} else if (arg_is(arg, "out", &v)) {
		a->out = v;
	} else if (arg_is(arg, "start", &v) && (!strcmp(v, "boot") || !strcmp(v, "mark"))) {
		simulating = !strcmp(v, "boot");
	} else {
		say_error("unknown argument", arg);
		return -1;
	}
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(unsigned long long id, const struct qemu_info_t *info,
					   int argc, char **argv)
{
	struct plugin_args a = {
		.l1 = { 32768, 8, 64 },
		.l2 = { 1 << 20, 16, 64 },
	};
	struct cm_geometry l1, l2;
	const char *symbols, *out_path;
	int i, cpus = qemu_plugin_n_max_vcpus();

	for (i = 0; i < argc; i++)
		if (parse_arg(&a, argv[i]))
			return -1;
	l1 = a.l1;
	l2 = a.l2;
	symbols = a.symbols;
	out_path = a.out;
	if (!cm_geometry_ok(&l1) || !cm_geometry_ok(&l2)) {
		fprintf(stderr, "sleb-cache: error: bad geometry: sizes, ways and line must give\n"
			"sleb-cache: a power-of-two number of sets, lines of 8 bytes or more\n");
		return -1;
	}
	if (cpus < 1 || cm_system_init(&sys, cpus, &l1, &l2)) {
		fprintf(stderr, "sleb-cache: error: no memory for %d vCPUs' caches\n", cpus);
		return -1;
	}
	if (symbols && load_symbols(symbols))
		return -1;
	nr_buckets = nr_funcs + NR_EXTRA;
	counts = calloc(nr_buckets, sizeof(*counts));
	touched = calloc(nr_buckets, sizeof(*touched));
	is_touched = calloc(nr_buckets, 1);
	if (!counts || !touched || !is_touched)
		return -1;
	if (out_path) {
		out = fopen(out_path, "w");
		if (!out) {
			say_error(strerror(errno), out_path);
			return -1;
		}
		fprintf(out, "# sleb-cache l1=%llu/%u l2=%llu/%u line=%u vcpus=%d symbols=%zu\n",
			(unsigned long long)l1.size, l1.ways, (unsigned long long)l2.size,
			l2.ways, l1.line, cpus, nr_funcs);
	}
	fprintf(stderr, "sleb-cache: l1=%llu/%u-way l2=%llu/%u-way line=%u vcpus=%d symbols=%zu\n",
		(unsigned long long)l1.size, l1.ways, (unsigned long long)l2.size, l2.ways,
		l1.line, cpus, nr_funcs);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}

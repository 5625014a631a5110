// SPDX-License-Identifier: GPL-2.0
/*
 * slab_bench: microbenchmarks of the slab allocator, in the spirit of
 * Christoph Lameter's slab_test and Jesper Dangaard Brouer's
 * slab_bulk_test01.  It uses only the common slab API, so it builds and runs
 * on a 6.1 kernel with any of SLAB, SLUB, SLOB or SLEB.
 *
 * Everything runs at module load; the init function returns 0 and exit does
 * nothing, so "insmod slab_bench.ko && rmmod slab_bench" runs it once.
 * Every measurement runs in a kthread bound to a CPU and is timed with
 * get_cycles().  One line per measurement goes to the kernel log:
 *
 *   slab_bench: case=<name> size=<bytes> [bulk=<k>] [cpus=<c>] cycles_per_op=<n>
 *   slab_bench: case=<name> size=<bytes> [bulk=<k>] [cpus=<c>] error=ENOMEM
 *   slab_bench: done cases=<count>
 *
 * where <count> is the number of cycles_per_op lines.  The cases, by bit of
 * the "tests" parameter:
 *
 *   1  seq_alloc, seq_free: n x kmalloc, then n x kfree
 *   2  pair: n x (kmalloc, kfree); one op is the pair
 *   4  conc_{alloc,free,pair}_{avg,max}: cases 1 and 2 on every online CPU
 *      at once; average and maximum of the CPUs' cycles per op
 *   8  remote_alloc, remote_free: every CPU but the first allocates n
 *      objects, then the first CPU frees them all; cycles per kmalloc on the
 *      others (average) and per kfree on the first CPU.  The first CPU
 *      then allocates n objects of the size again and reports how many lie
 *      on its own node (not a case, no cycles):
 *
 *        slab_bench: remote_local size=<bytes> local=<count> of=<n>
 *
 *  16  bulk_alloc, bulk_free, bulk_pair: kmem_cache_alloc_bulk() and
 *      kmem_cache_free_bulk() of bulk=k objects on a cache of each size up
 *      to 4096 bytes: n/k bulk allocations then n/k bulk frees, and n/k
 *      (alloc_bulk, free_bulk) rounds; cycles per object
 *  32  cold_free, cold_alloc: the 2010 RFC's case, for each count c of
 *      cold_counts: c x kmalloc, each object written whole; then a pass
 *      over evict_kb KiB (default 4096, four times a 1 MiB L2) so that
 *      no object, struct slab or queue is left in the cache; then c x
 *      kfree (cold_free) and c x kmalloc, each followed by the caller's
 *      first write to the object (cold_alloc); cycles per object
 *
 * With cache_marks=1 (x86-64 only) the cases one CPU runs (seq, pair,
 * bulk, cold) and the freeing CPU's part of remote_free are regions of the
 * cache model of "scripts/sleb bench --cache" (tools/testing/sleb/
 * cachesim): the case's kmalloc/kfree calls lie between a begin and an end
 * marker, and its line gains "region=<r> ops=<count>".
 *
 * With burst_mb=M the module instead allocates M MiB of kmalloc objects of
 * the first size (default 128 bytes), frees them all and reports
 *
 *   slab_bench: burst mb=<M> size=<bytes> objects=<count> [error=ENOMEM]
 *
 * so that a script can watch what the allocator keeps after a burst.
 *
 * Before each group of cases an untimed pass allocates and frees the same
 * objects, so that no case pays for the first touch of guest memory (a host
 * page fault under QEMU or KVM) or the first use of a cache.
 *
 * Do not take CPUs offline while it runs: the threads are bound to the CPUs
 * online at load time.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timex.h>
#include <linux/vmalloc.h>

#define BENCH_SEQ	BIT(0)
#define BENCH_PAIR	BIT(1)
#define BENCH_CONC	BIT(2)
#define BENCH_REMOTE	BIT(3)
#define BENCH_BULK	BIT(4)
#define BENCH_COLD	BIT(5)
#define BENCH_ALL	(BIT(6) - 1)

#define BULK_MAX_OBJ_SIZE	4096
#define BULK_MAX		256
#define MAX_SIZES		32
#define MAX_COLD_COUNTS		8

static unsigned int n = 10000;
module_param(n, uint, 0444);
MODULE_PARM_DESC(n, "objects per test and CPU (default 10000)");

static unsigned int sizes[MAX_SIZES];
static int nr_sizes;
module_param_array(sizes, uint, &nr_sizes, 0444);
MODULE_PARM_DESC(sizes, "object sizes in bytes, comma separated (default 8,16,...,16384)");

static char *tests = "all";
module_param(tests, charp, 0444);
MODULE_PARM_DESC(tests, "all, or a bitmask: 1 seq, 2 pair, 4 concurrent, 8 remote free, 16 bulk, 32 cold");

static unsigned int burst_mb;
module_param(burst_mb, uint, 0444);
MODULE_PARM_DESC(burst_mb, "only allocate and free this many MiB of objects (default 0: the benchmarks)");

static unsigned int cold_counts[MAX_COLD_COUNTS] = { 32, 1024 };
static int nr_cold_counts = 2;
module_param_array(cold_counts, uint, &nr_cold_counts, 0444);
MODULE_PARM_DESC(cold_counts, "objects of the cold case, comma separated (default 32,1024: below and above the queues)");

static unsigned int evict_kb = 4096;
module_param(evict_kb, uint, 0444);
MODULE_PARM_DESC(evict_kb, "KiB read between the cold case's allocation and its free (default 4096)");

static bool cache_marks;
module_param(cache_marks, bool, 0444);
MODULE_PARM_DESC(cache_marks, "mark the cases for the cache model (x86-64 only; default off)");

static const unsigned int default_sizes[] = {
	8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384
};

static const unsigned int bulk_counts[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256 };

struct bench_ctx;

/* One bound kthread: its CPU, its objects and its results. */
struct bench_cpu {
	struct bench_ctx *ctx;
	struct task_struct *task;
	unsigned int cpu;
	void **objs;
	unsigned int nr_objs;
	u64 cycles[3];
	u64 ops[3];
	unsigned int region[3];
	bool failed;
};

/* One measurement: what the threads run and how they meet. */
struct bench_ctx {
	void (*work)(struct bench_cpu *bc);
	unsigned int size;
	unsigned int bulk;
	unsigned int count;
	bool mark;
	struct kmem_cache *cache;
	unsigned int nr_threads;
	struct bench_cpu *threads;
	atomic_t arrived;
	atomic_t generation;
	atomic_t running;
	struct completion done;
};

static struct bench_cpu *bench_cpus;
static unsigned int bench_nr_cpus;
static unsigned int nr_results;
static unsigned int nr_errors;
static unsigned int last_region;
static u8 *evict_buf;

/* ===  Markers of the cache model  ========================================= */

/*
 * "nopl 0x5e1e000X(%rax)" does nothing; sleb_cache.so (tools/testing/sleb/
 * cachesim) recognises it: X = 2 and 3 spell the region number bit by bit,
 * X = 0 begins the region, X = 1 ends it.
 */
#ifdef CONFIG_X86_64
#define CACHE_MARK(op)							\
	({								\
		asm volatile(".byte 0x0f, 0x1f, 0x80\n\t"		\
			     ".long 0x5e1e0000 + %c0" :: "i"(op) : "memory"); \
	})
#else
#define CACHE_MARK(op) do { (void)(op); barrier(); } while (0)
#endif

/*
 * Begin a region of the cache model if @mark; returns its number, or 0 for
 * none (no marking, or the 16 bits of region numbers used up).
 */
static unsigned int region_begin(bool mark)
{
	unsigned int id;
	int bit;

	if (!IS_ENABLED(CONFIG_X86_64) || !mark || last_region >= 0xffff)
		return 0;
	id = ++last_region;
	for (bit = 15; bit >= 0; bit--) {
		if (id >> bit & 1)
			CACHE_MARK(3);
		else
			CACHE_MARK(2);
	}
	CACHE_MARK(0);
	return id;
}

/* End the region that region_begin() numbered @id, if it began one. */
static __always_inline void region_end(unsigned int id)
{
	if (id)
		CACHE_MARK(1);
}

/* ===  Reports  ============================================================ */

static void format_extra(char *buf, size_t len, unsigned int bulk, unsigned int cpus)
{
	int pos = 0;

	buf[0] = '\0';
	if (bulk)
		pos += scnprintf(buf + pos, len - pos, " bulk=%u", bulk);
	if (cpus)
		scnprintf(buf + pos, len - pos, " cpus=%u", cpus);
}

static void report_region(const char *name, unsigned int size, unsigned int bulk,
			  unsigned int cpus, u64 cycles, u64 ops, unsigned int region)
{
	char extra[32], where[48] = "";

	format_extra(extra, sizeof(extra), bulk, cpus);
	if (region)
		snprintf(where, sizeof(where), " region=%u ops=%llu", region, ops);
	pr_info("case=%s size=%u%s cycles_per_op=%llu%s\n", name, size, extra,
		ops ? div64_u64(cycles + ops / 2, ops) : 0ULL, where);
	nr_results++;
}

static void report_cold(const char *name, unsigned int size, unsigned int count,
			u64 cycles, u64 ops, unsigned int region)
{
	char where[48] = "";

	if (region)
		snprintf(where, sizeof(where), " region=%u ops=%llu", region, ops);
	pr_info("case=%s size=%u count=%u cycles_per_op=%llu%s\n", name, size, count,
		ops ? div64_u64(cycles + ops / 2, ops) : 0ULL, where);
	nr_results++;
}

static void report(const char *name, unsigned int size, unsigned int bulk,
		   unsigned int cpus, u64 cycles, u64 ops)
{
	report_region(name, size, bulk, cpus, cycles, ops, 0);
}

static void report_error(const char *name, unsigned int size, unsigned int bulk,
			 unsigned int cpus, const char *error)
{
	char extra[32];

	format_extra(extra, sizeof(extra), bulk, cpus);
	pr_info("case=%s size=%u%s error=%s\n", name, size, extra, error);
	nr_errors++;
}

/*
 * A reusable barrier for the threads of one measurement.  Waiters spin, but
 * with cond_resched(), so that a thread does not starve what else must run
 * on its CPU before the last thread arrives.
 */
static void bench_sync(struct bench_ctx *ctx)
{
	int gen = atomic_read(&ctx->generation);

	if (atomic_inc_return(&ctx->arrived) == ctx->nr_threads) {
		atomic_set(&ctx->arrived, 0);
		/* Order the reset before the release of the waiters. */
		smp_mb__before_atomic();
		atomic_inc(&ctx->generation);
		return;
	}
	while (atomic_read_acquire(&ctx->generation) == gen) {
		cpu_relax();
		cond_resched();
	}
}

/* Allocate up to n objects into objs; returns how many it got. */
static unsigned int alloc_objs(void **objs, unsigned int size)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		objs[i] = kmalloc(size, GFP_KERNEL);
		if (!objs[i])
			break;
	}
	return i;
}

static void free_objs(void **objs, unsigned int count)
{
	unsigned int i;

	for (i = 0; i < count; i++)
		kfree(objs[i]);
}

/* n x (kmalloc, kfree); false if an allocation failed. */
static bool alloc_free_pairs(unsigned int size)
{
	unsigned int i;
	void *p;

	for (i = 0; i < n; i++) {
		p = kmalloc(size, GFP_KERNEL);
		if (!p)
			return false;
		OPTIMIZER_HIDE_VAR(p);
		kfree(p);
	}
	return true;
}

/* Cases 1, 2 and 4: slots 0, 1, 2 = alloc, free, pair. */
static void seq_pair_work(struct bench_cpu *bc, bool seq, bool pair)
{
	struct bench_ctx *ctx = bc->ctx;
	unsigned int got = 0;
	u64 t0, t1, t2;

	bench_sync(ctx);
	if (seq) {
		t0 = get_cycles();
		bc->region[0] = region_begin(ctx->mark);
		got = alloc_objs(bc->objs, ctx->size);
		region_end(bc->region[0]);
		t1 = get_cycles();
		bc->cycles[0] = t1 - t0;
		bc->ops[0] = got;
	}
	bench_sync(ctx);
	if (seq) {
		t1 = get_cycles();
		bc->region[1] = region_begin(ctx->mark);
		free_objs(bc->objs, got);
		region_end(bc->region[1]);
		t2 = get_cycles();
		bc->cycles[1] = t2 - t1;
		bc->ops[1] = got;
		if (got < n)
			bc->failed = true;
	}
	bench_sync(ctx);
	if (pair) {
		t0 = get_cycles();
		bc->region[2] = region_begin(ctx->mark);
		if (!alloc_free_pairs(ctx->size))
			bc->failed = true;
		region_end(bc->region[2]);
		t1 = get_cycles();
		bc->cycles[2] = t1 - t0;
		bc->ops[2] = n;
	}
}

static void seq_work(struct bench_cpu *bc)
{
	seq_pair_work(bc, true, false);
}

static void pair_work(struct bench_cpu *bc)
{
	seq_pair_work(bc, false, true);
}

static void conc_work(struct bench_cpu *bc)
{
	seq_pair_work(bc, true, true);
}

/*
 * After a remote free: allocate n objects into bc->objs, count those on
 * this CPU's node and free them again.  An allocator that queued the
 * remote objects here hands them out now.
 */
static unsigned int count_local(struct bench_cpu *bc, unsigned int size)
{
	unsigned int got, i, local = 0;

	got = alloc_objs(bc->objs, size);
	for (i = 0; i < got; i++)
		if (page_to_nid(virt_to_page(bc->objs[i])) == numa_mem_id())
			local++;
	free_objs(bc->objs, got);
	bc->nr_objs = got;
	return local;
}

/* Case 8: threads[0] frees what the other threads allocated. */
static void remote_work(struct bench_cpu *bc)
{
	struct bench_ctx *ctx = bc->ctx;
	bool first = bc == &ctx->threads[0];
	unsigned int i;
	u64 t0, t1;

	bench_sync(ctx);
	if (!first) {
		t0 = get_cycles();
		bc->nr_objs = alloc_objs(bc->objs, ctx->size);
		t1 = get_cycles();
		bc->cycles[0] = t1 - t0;
		bc->ops[0] = bc->nr_objs;
		bc->failed = bc->nr_objs < n;
	}
	bench_sync(ctx);
	if (first) {
		t0 = get_cycles();
		bc->region[1] = region_begin(ctx->mark);
		for (i = 1; i < ctx->nr_threads; i++) {
			struct bench_cpu *other = &ctx->threads[i];

			free_objs(other->objs, other->nr_objs);
			bc->ops[1] += other->nr_objs;
		}
		region_end(bc->region[1]);
		t1 = get_cycles();
		bc->cycles[1] = t1 - t0;
		bc->ops[2] = count_local(bc, ctx->size);
	}
}

/* Case 16: slots 0, 1, 2 = bulk alloc, bulk free, bulk pair. */
static void bulk_work(struct bench_cpu *bc)
{
	struct bench_ctx *ctx = bc->ctx;
	unsigned int k = ctx->bulk, rounds = max(n / k, 1U), i, got;
	struct kmem_cache *s = ctx->cache;
	void **objs = bc->objs;
	u64 t0, t1, t2;

	t0 = get_cycles();
	bc->region[0] = region_begin(ctx->mark);
	for (i = 0; i < rounds; i++)
		if (!kmem_cache_alloc_bulk(s, GFP_KERNEL, k, objs + i * k))
			break;
	region_end(bc->region[0]);
	t1 = get_cycles();
	got = i;
	bc->region[1] = region_begin(ctx->mark);
	for (i = 0; i < got; i++)
		kmem_cache_free_bulk(s, k, objs + i * k);
	region_end(bc->region[1]);
	t2 = get_cycles();
	bc->cycles[0] = t1 - t0;
	bc->cycles[1] = t2 - t1;
	bc->ops[0] = (u64)got * k;
	bc->ops[1] = (u64)got * k;
	if (got < rounds)
		bc->failed = true;

	t0 = get_cycles();
	bc->region[2] = region_begin(ctx->mark);
	for (i = 0; i < rounds; i++) {
		if (!kmem_cache_alloc_bulk(s, GFP_KERNEL, k, objs)) {
			bc->failed = true;
			break;
		}
		kmem_cache_free_bulk(s, k, objs);
	}
	region_end(bc->region[2]);
	t1 = get_cycles();
	bc->cycles[2] = t1 - t0;
	bc->ops[2] = (u64)i * k;
}

/* Read one byte of each cache line of the eviction buffer. */
static void evict_caches(void)
{
	size_t i, len = (size_t)evict_kb << 10;
	unsigned int sum = 0;

	for (i = 0; i < len; i += 64)
		sum += READ_ONCE(evict_buf[i]);
	OPTIMIZER_HIDE_VAR(sum);
}

/* Case 32: slots 0, 1 = free of cold objects, allocation after it. */
static void cold_work(struct bench_cpu *bc)
{
	struct bench_ctx *ctx = bc->ctx;
	unsigned int count = ctx->count, got, i;
	void **objs = bc->objs;
	u64 t0, t1, t2;

	for (got = 0; got < count; got++) {
		objs[got] = kmalloc(ctx->size, GFP_KERNEL);
		if (!objs[got])
			break;
		memset(objs[got], 0x5a, ctx->size);
	}
	if (got < count) {
		free_objs(objs, got);
		bc->failed = true;
		return;
	}
	evict_caches();

	t0 = get_cycles();
	bc->region[0] = region_begin(ctx->mark);
	free_objs(objs, count);
	region_end(bc->region[0]);
	t1 = get_cycles();

	bc->region[1] = region_begin(ctx->mark);
	for (got = 0; got < count; got++) {
		objs[got] = kmalloc(ctx->size, GFP_KERNEL);
		if (!objs[got])
			break;
		/* The caller's first write: a miss the allocator did not take. */
		WRITE_ONCE(*(unsigned long *)objs[got], got);
	}
	region_end(bc->region[1]);
	t2 = get_cycles();
	for (i = 0; i < got; i++)
		kfree(objs[i]);
	bc->cycles[0] = t1 - t0;
	bc->cycles[1] = t2 - t1;
	bc->ops[0] = count;
	bc->ops[1] = got;
	bc->failed = got < count;
}

static int bench_thread(void *arg)
{
	struct bench_cpu *bc = arg;
	struct bench_ctx *ctx = bc->ctx;

	ctx->work(bc);
	if (atomic_dec_and_test(&ctx->running))
		complete(&ctx->done);
	return 0;
}

/* Run ctx->work on the first nr online CPUs at once and wait for them. */
static int run_threads(struct bench_ctx *ctx, unsigned int nr)
{
	struct task_struct *t;
	unsigned int i;
	int err = 0;

	ctx->nr_threads = nr;
	ctx->threads = bench_cpus;
	atomic_set(&ctx->arrived, 0);
	atomic_set(&ctx->generation, 0);
	atomic_set(&ctx->running, nr);
	init_completion(&ctx->done);
	for (i = 0; i < nr; i++) {
		struct bench_cpu *bc = &bench_cpus[i];

		bc->ctx = ctx;
		bc->nr_objs = 0;
		bc->failed = false;
		memset(bc->cycles, 0, sizeof(bc->cycles));
		memset(bc->ops, 0, sizeof(bc->ops));
		memset(bc->region, 0, sizeof(bc->region));
		t = kthread_create_on_cpu(bench_thread, bc, bc->cpu, "slab_bench/%u");
		if (IS_ERR(t)) {
			err = PTR_ERR(t);
			nr = i;
			break;
		}
		get_task_struct(t);
		bc->task = t;
	}
	if (!err) {
		for (i = 0; i < nr; i++)
			wake_up_process(bench_cpus[i].task);
		wait_for_completion(&ctx->done);
	}
	/* Threads that ran have returned; the others exit without running. */
	for (i = 0; i < nr; i++) {
		kthread_stop(bench_cpus[i].task);
		put_task_struct(bench_cpus[i].task);
		bench_cpus[i].task = NULL;
	}
	return err;
}

/* Would @count objects of @size take over half the free memory? */
static bool too_many(unsigned int size, u64 count)
{
	u64 need = count * roundup_pow_of_two(max(size, 8U));

	return need > ((u64)si_mem_available() << PAGE_SHIFT) / 2;
}

/* Would n objects of size on each of copies CPUs take over half the free memory? */
static bool too_big(unsigned int size, unsigned int copies)
{
	return too_many(size, (u64)n * copies);
}

/*
 * An untimed pass of n x kmalloc, n x kfree on each of the first nr CPUs, so
 * that a timed case does not pay for the first touch of guest memory (a
 * page fault of the host under QEMU) or for the first use of a cache.
 */
static void warm_up(unsigned int size, unsigned int nr)
{
	struct bench_ctx ctx = { .size = size, .work = seq_work };

	if (!too_big(size, nr))
		run_threads(&ctx, nr);
}

static void bench_single(unsigned int size, unsigned int mask)
{
	struct bench_ctx ctx = { .size = size, .mark = cache_marks };
	struct bench_cpu *bc = &bench_cpus[0];

	if (mask & (BENCH_SEQ | BENCH_PAIR))
		warm_up(size, 1);
	if (mask & BENCH_SEQ) {
		if (too_big(size, 1)) {
			report_error("seq_alloc", size, 0, 0, "ENOMEM");
			report_error("seq_free", size, 0, 0, "ENOMEM");
		} else {
			ctx.work = seq_work;
			if (run_threads(&ctx, 1) || bc->failed) {
				report_error("seq_alloc", size, 0, 0, "ENOMEM");
				report_error("seq_free", size, 0, 0, "ENOMEM");
			} else {
				report_region("seq_alloc", size, 0, 0, bc->cycles[0], bc->ops[0],
					      bc->region[0]);
				report_region("seq_free", size, 0, 0, bc->cycles[1], bc->ops[1],
					      bc->region[1]);
			}
		}
	}
	if (mask & BENCH_PAIR) {
		ctx.work = pair_work;
		if (run_threads(&ctx, 1) || bc->failed)
			report_error("pair", size, 0, 0, "ENOMEM");
		else
			report_region("pair", size, 0, 0, bc->cycles[2], bc->ops[2], bc->region[2]);
	}
}

static const char * const conc_names[3][2] = {
	{ "conc_alloc_avg", "conc_alloc_max" },
	{ "conc_free_avg", "conc_free_max" },
	{ "conc_pair_avg", "conc_pair_max" },
};

static void bench_concurrent(unsigned int size)
{
	struct bench_ctx ctx = { .size = size, .work = conc_work };
	unsigned int cpus = bench_nr_cpus, i, j;
	bool failed = too_big(size, cpus);
	u64 per_op, sum, worst;

	if (!failed) {
		warm_up(size, cpus);
		failed = run_threads(&ctx, cpus);
		for (i = 0; i < cpus; i++)
			failed |= bench_cpus[i].failed;
	}
	for (j = 0; j < 3; j++) {
		if (failed) {
			report_error(conc_names[j][0], size, 0, cpus, "ENOMEM");
			report_error(conc_names[j][1], size, 0, cpus, "ENOMEM");
			continue;
		}
		sum = 0;
		worst = 0;
		for (i = 0; i < cpus; i++) {
			per_op = div64_u64(bench_cpus[i].cycles[j], bench_cpus[i].ops[j]);
			sum += per_op;
			worst = max(worst, per_op);
		}
		report(conc_names[j][0], size, 0, cpus, sum, cpus);
		report(conc_names[j][1], size, 0, cpus, worst, 1);
	}
}

static void bench_remote(unsigned int size)
{
	struct bench_ctx ctx = { .size = size, .work = remote_work, .mark = cache_marks };
	unsigned int cpus = bench_nr_cpus, i;
	bool failed = too_big(size, cpus - 1);
	u64 cycles = 0, ops = 0;

	if (!failed) {
		warm_up(size, cpus);
		failed = run_threads(&ctx, cpus);
		for (i = 1; i < cpus; i++) {
			failed |= bench_cpus[i].failed;
			cycles += bench_cpus[i].cycles[0];
			ops += bench_cpus[i].ops[0];
		}
	}
	if (failed) {
		report_error("remote_alloc", size, 0, cpus, "ENOMEM");
		report_error("remote_free", size, 0, cpus, "ENOMEM");
		return;
	}
	report("remote_alloc", size, 0, cpus, cycles, ops);
	report_region("remote_free", size, 0, cpus, bench_cpus[0].cycles[1], bench_cpus[0].ops[1],
		      bench_cpus[0].region[1]);
	pr_info("remote_local size=%u local=%llu of=%u\n", size, bench_cpus[0].ops[2],
		bench_cpus[0].nr_objs);
}

static void bench_bulk(unsigned int size)
{
	struct bench_ctx ctx = { .size = size, .work = bulk_work, .mark = cache_marks };
	struct bench_cpu *bc = &bench_cpus[0];
	char name[32];
	unsigned int i, k;

	snprintf(name, sizeof(name), "slab_bench-%u", size);
	ctx.cache = kmem_cache_create(name, size, 0, 0, NULL);
	if (ctx.cache && !too_big(size, 1)) {
		/* Warm-up, untimed and unmarked: the largest bulk size. */
		ctx.bulk = BULK_MAX;
		ctx.mark = false;
		run_threads(&ctx, 1);
		ctx.mark = cache_marks;
	}
	for (i = 0; i < ARRAY_SIZE(bulk_counts); i++) {
		k = bulk_counts[i];
		ctx.bulk = k;
		if (!ctx.cache || too_big(size, 1) || run_threads(&ctx, 1) || bc->failed) {
			report_error("bulk_alloc", size, k, 0, "ENOMEM");
			report_error("bulk_free", size, k, 0, "ENOMEM");
			report_error("bulk_pair", size, k, 0, "ENOMEM");
			continue;
		}
		report_region("bulk_alloc", size, k, 0, bc->cycles[0], bc->ops[0], bc->region[0]);
		report_region("bulk_free", size, k, 0, bc->cycles[1], bc->ops[1], bc->region[1]);
		report_region("bulk_pair", size, k, 0, bc->cycles[2], bc->ops[2], bc->region[2]);
	}
	kmem_cache_destroy(ctx.cache);
}

static void bench_cold(unsigned int size)
{
	struct bench_ctx ctx = { .size = size, .work = cold_work, .mark = cache_marks };
	struct bench_cpu *bc = &bench_cpus[0];
	unsigned int i, c;

	warm_up(size, 1);
	for (i = 0; i < nr_cold_counts; i++) {
		c = cold_counts[i];
		ctx.count = c;
		if (!evict_buf || too_many(size, c) || run_threads(&ctx, 1) || bc->failed) {
			pr_info("case=cold_free size=%u count=%u error=ENOMEM\n", size, c);
			pr_info("case=cold_alloc size=%u count=%u error=ENOMEM\n", size, c);
			nr_errors += 2;
			continue;
		}
		report_cold("cold_free", size, c, bc->cycles[0], bc->ops[0], bc->region[0]);
		report_cold("cold_alloc", size, c, bc->cycles[1], bc->ops[1], bc->region[1]);
	}
}

static int parse_tests(unsigned int *mask)
{
	if (!tests || !strcmp(tests, "all")) {
		*mask = BENCH_ALL;
		return 0;
	}
	if (kstrtouint(tests, 0, mask) || !*mask || (*mask & ~BENCH_ALL))
		return -EINVAL;
	return 0;
}

static void free_bench_cpus(void)
{
	unsigned int i;

	for (i = 0; i < bench_nr_cpus; i++)
		kvfree(bench_cpus[i].objs);
	kfree(bench_cpus);
	bench_cpus = NULL;
	bench_nr_cpus = 0;
}

/* One slot per online CPU, each with room for the most objects a case takes. */
static int alloc_bench_cpus(void)
{
	unsigned int cpu, nr = 0, max_cpus = num_online_cpus(), slots = max(n, BULK_MAX), i;

	for (i = 0; i < nr_cold_counts; i++)
		slots = max(slots, cold_counts[i]);

	bench_cpus = kcalloc(max_cpus, sizeof(*bench_cpus), GFP_KERNEL);
	if (!bench_cpus)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		if (nr == max_cpus)
			break;
		bench_cpus[nr].cpu = cpu;
		bench_cpus[nr].objs = kvmalloc_array(slots, sizeof(void *), GFP_KERNEL);
		bench_nr_cpus = ++nr;
		if (!bench_cpus[nr - 1].objs) {
			free_bench_cpus();
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * Allocate @mb MiB of @size byte objects, chained through their first
 * word, then free them all.
 */
static void bench_burst(unsigned int mb, unsigned int size)
{
	unsigned long want = ((unsigned long)mb << 20) / size, count = 0;
	void *head = NULL, *obj;

	while (count < want) {
		obj = kmalloc(size, GFP_KERNEL | __GFP_NOWARN);
		if (!obj)
			break;
		*(void **)obj = head;
		head = obj;
		count++;
		if (!(count & 4095))
			cond_resched();
	}
	pr_info("burst mb=%u size=%u objects=%lu%s\n", mb, size, count,
		count < want ? " error=ENOMEM" : "");
	while (head) {
		obj = head;
		head = *(void **)obj;
		kfree(obj);
	}
}

static int __init slab_bench_init(void)
{
	const unsigned int *size_list = default_sizes;
	unsigned int count = ARRAY_SIZE(default_sizes), mask, i;
	int err;

	if (parse_tests(&mask)) {
		pr_err("tests=%s: want all or a bitmask of 1..%lu\n", tests, BENCH_ALL);
		return -EINVAL;
	}
	if (!n) {
		pr_err("n must be at least 1\n");
		return -EINVAL;
	}
	for (i = 0; i < nr_cold_counts; i++) {
		if (!cold_counts[i] || cold_counts[i] > 1U << 20) {
			pr_err("cold count %u out of range 1..%u\n", cold_counts[i], 1U << 20);
			return -EINVAL;
		}
	}
	if ((mask & BENCH_COLD) && (evict_kb < 64 || evict_kb > 1U << 20)) {
		pr_err("evict_kb=%u out of range 64..%u\n", evict_kb, 1U << 20);
		return -EINVAL;
	}
	if (nr_sizes) {
		size_list = sizes;
		count = nr_sizes;
	}
	for (i = 0; i < count; i++) {
		if (!size_list[i] || size_list[i] > KMALLOC_MAX_SIZE) {
			pr_err("size %u out of range 1..%lu\n", size_list[i], KMALLOC_MAX_SIZE);
			return -EINVAL;
		}
	}
	if (burst_mb) {
		i = nr_sizes ? max_t(unsigned int, sizes[0], sizeof(void *)) : 128;
		bench_burst(burst_mb, i);
		pr_info("done cases=0\n");
		return 0;
	}
	err = alloc_bench_cpus();
	if (err) {
		pr_err("error=ENOMEM: no room for the object arrays\n");
		return err;
	}
	nr_results = 0;
	nr_errors = 0;
	if (mask & BENCH_COLD) {
		/* Written once, so that its pages are real memory, not the zero page. */
		evict_buf = vmalloc((size_t)evict_kb << 10);
		if (evict_buf)
			memset(evict_buf, 1, (size_t)evict_kb << 10);
	}
	pr_info("start n=%u sizes=%u tests=0x%x cpus=%u\n", n, count, mask, bench_nr_cpus);
	/* Any marker starts the cache model: it sees the warm-ups as well. */
	region_end(region_begin(cache_marks));

	for (i = 0; i < count; i++)
		bench_single(size_list[i], mask);
	if (mask & BENCH_CONC)
		for (i = 0; i < count; i++)
			bench_concurrent(size_list[i]);
	if (mask & BENCH_REMOTE) {
		if (bench_nr_cpus < 2)
			pr_info("case=remote skipped=one_cpu\n");
		else
			for (i = 0; i < count; i++)
				bench_remote(size_list[i]);
	}
	if (mask & BENCH_BULK)
		for (i = 0; i < count; i++)
			if (size_list[i] <= BULK_MAX_OBJ_SIZE)
				bench_bulk(size_list[i]);
	if (mask & BENCH_COLD)
		for (i = 0; i < count; i++)
			bench_cold(size_list[i]);

	vfree(evict_buf);
	evict_buf = NULL;
	free_bench_cpus();
	pr_info("done cases=%u\n", nr_results);
	return 0;
}

static void __exit slab_bench_exit(void)
{
}

module_init(slab_bench_init);
module_exit(slab_bench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Slab allocator microbenchmarks: kmalloc/kfree, concurrent, remote free, bulk");

// SPDX-License-Identifier: GPL-2.0
/*
 * sleb_bulk_memcg: a kmem_cache_alloc_bulk() that fails halfway leaves
 * nothing charged to the memory cgroup of its caller.
 *
 * kmem_cache_alloc_bulk() charges the memcg for every object it is asked
 * for before it allocates any; when it runs out of memory after i objects,
 * it has to uncharge the size - i objects it could not allocate as well as
 * the i it frees again.  Kernel threads and KUnit run in the root memcg,
 * which is never charged: this check runs at module load, in the memcg of
 * the task that loads it.
 *
 * The task loading it sets up fail_page_alloc (debugfs) with task-filter,
 * probability 100, min-order 0 and ignore-gfp-wait N; the module marks
 * itself with make_it_fail around the bulk call, so that only the page
 * allocations of that call fail.  A warm-up leaves WARM free objects in the
 * cache, which the bulk call gets before it needs a new slab and fails.
 *
 * One line goes to the kernel log, and a failed check fails the load:
 *
 *   sleb_bulk_memcg: ok got=<i> of=<n> charged_pages=<d>
 *   sleb_bulk_memcg: fail <what> ...
 *   sleb_bulk_memcg: skip <why>
 *
 * A skip loads with -ENODEV.
 */
#include <linux/math.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/page_counter.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#define OBJ_SIZE	256
#define WARM		64
#define BULK		8192
/*
 * The page counter moves by charge batches: the per-cpu stock of a CPU
 * holds up to MEMCG_CHARGE_BATCH pages charged ahead, and its object stock
 * up to a page of bytes, and the task may move to the other CPU between
 * the two readings.  A leak of the objects not allocated is about
 * (BULK - WARM) * (OBJ_SIZE + a pointer) bytes: 520 pages.
 */
#define SLACK_PAGES	(2 * MEMCG_CHARGE_BATCH + 2)

static void *objs[BULK];

/* Leave WARM free objects in @s; the memcg ends as charged as it began. */
static int warm_up(struct kmem_cache *s)
{
	int i, got;

	for (got = 0; got < WARM; got++) {
		objs[got] = kmem_cache_alloc(s, GFP_KERNEL);
		if (!objs[got])
			break;
	}
	for (i = 0; i < got; i++)
		kmem_cache_free(s, objs[i]);
	return got == WARM ? 0 : -ENOMEM;
}

/* kmem_cache_alloc_bulk() with every page allocation of this task failing. */
static int bulk_without_pages(struct kmem_cache *s)
{
	int got;

	current->make_it_fail = 1;
	got = kmem_cache_alloc_bulk(s, GFP_KERNEL | __GFP_NOWARN, BULK, objs);
	current->make_it_fail = 0;
	return got;
}

static int check_bulk(struct kmem_cache *s, struct mem_cgroup *memcg)
{
	unsigned long before, after;
	long delta;
	int got;

	if (warm_up(s)) {
		pr_info("sleb_bulk_memcg: skip no memory for the warm-up\n");
		return -ENODEV;
	}
	before = page_counter_read(&memcg->memory);
	got = bulk_without_pages(s);
	after = page_counter_read(&memcg->memory);
	delta = (long)after - (long)before;
	if (got) {
		kmem_cache_free_bulk(s, got, objs);
		pr_info("sleb_bulk_memcg: skip the bulk call got %d of %d: is fail_page_alloc set up?\n",
			got, BULK);
		return -ENODEV;
	}
	if (abs(delta) > SLACK_PAGES) {
		pr_info("sleb_bulk_memcg: fail charged_pages=%ld after a failed bulk of %d (%d bytes each), at most %u allowed\n",
			delta, BULK, OBJ_SIZE, SLACK_PAGES);
		return -EINVAL;
	}
	pr_info("sleb_bulk_memcg: ok got=%d of=%d charged_pages=%ld\n", got, BULK, delta);
	return 0;
}

static int __init sleb_bulk_memcg_init(void)
{
	struct mem_cgroup *memcg;
	struct kmem_cache *s;
	int ret;

	memcg = get_mem_cgroup_from_mm(current->mm);
	/* The root memcg has no parent (root_mem_cgroup is not exported). */
	if (!memcg || !memcg->css.parent) {
		mem_cgroup_put(memcg);
		pr_info("sleb_bulk_memcg: skip not loaded from a memory cgroup\n");
		return -ENODEV;
	}
	/* A usercopy region keeps it from merging with kmalloc-cg-256. */
	s = kmem_cache_create_usercopy("sleb_bulk_memcg", OBJ_SIZE, 0, SLAB_ACCOUNT,
				       0, OBJ_SIZE, NULL);
	if (!s) {
		mem_cgroup_put(memcg);
		return -ENOMEM;
	}
	ret = check_bulk(s, memcg);
	kmem_cache_destroy(s);
	mem_cgroup_put(memcg);
	return ret;
}

static void __exit sleb_bulk_memcg_exit(void)
{
}

module_init(sleb_bulk_memcg_init);
module_exit(sleb_bulk_memcg_exit);
MODULE_DESCRIPTION("A failed kmem_cache_alloc_bulk() leaves its memcg uncharged");
MODULE_LICENSE("GPL");

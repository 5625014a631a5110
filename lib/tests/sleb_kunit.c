// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of SLEB, the Enhanced Slab Allocator.
 *
 * The layout and bitmap cases test the helpers of mm/sleb_map.h directly;
 * the cache cases run against private caches and check the exact number
 * of objects SLEB keeps in its queues after each step.
 */
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sched/isolation.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include "../../mm/sleb.h"

/* === Layout ============================================================== */

static const unsigned int layout_sizes[] = {
	8, 16, 24, 32, 40, 48, 64, 72, 96, 128, 192, 256, 520, 1024, 2048,
	3000, 4096, 8192, 16384,
};

static void test_layout_fits(struct kunit *test)
{
	unsigned int i, order;

	for (i = 0; i < ARRAY_SIZE(layout_sizes); i++) {
		unsigned int size = layout_sizes[i];

		for (order = get_order(size); order <= 3; order++) {
			unsigned long bytes = PAGE_SIZE << order;
			unsigned int n = sleb_slab_objects(size, order);
			unsigned long used = (unsigned long)n * size;

			KUNIT_EXPECT_GE_MSG(test, n, 1U, "size %u order %u", size, order);
			if (!sleb_map_in_struct(n)) {
				used += sleb_map_words(n) * sizeof(long);
				KUNIT_EXPECT_GE_MSG(test, sleb_map_offset(n, order),
						    (unsigned long)n * size,
						    "bitmap overlaps objects: size %u order %u",
						    size, order);
				KUNIT_EXPECT_EQ(test,
						sleb_map_offset(n, order) % sizeof(long), 0UL);
			}
			KUNIT_EXPECT_LE_MSG(test, used, bytes, "size %u order %u", size, order);
			KUNIT_EXPECT_EQ(test, sleb_slab_waste(size, order), bytes - used);
		}
	}
}

/* No geometry leaves room for one more object (and its bitmap bits). */
static void test_layout_maximal(struct kunit *test)
{
	unsigned int i, order;

	for (i = 0; i < ARRAY_SIZE(layout_sizes); i++) {
		unsigned int size = layout_sizes[i];

		for (order = get_order(size); order <= 3; order++) {
			unsigned long bytes = PAGE_SIZE << order;
			unsigned int n = sleb_slab_objects(size, order) + 1;
			unsigned long need = (unsigned long)n * size;

			if (!sleb_map_in_struct(n))
				need += sleb_map_words(n) * sizeof(long);
			KUNIT_EXPECT_GT_MSG(test, need, bytes, "size %u order %u", size, order);
		}
	}
}

static void test_layout_placement(struct kunit *test)
{
	/* 64 objects of 64 bytes: the bitmap is the word in struct slab. */
	KUNIT_EXPECT_EQ(test, sleb_slab_objects(64, 0), 64U);
	KUNIT_EXPECT_TRUE(test, sleb_map_in_struct(64));
	/* 8-byte objects: 504 objects and 8 words of bitmap in the page. */
	KUNIT_EXPECT_EQ(test, sleb_slab_objects(8, 0), 504U);
	KUNIT_EXPECT_FALSE(test, sleb_map_in_struct(504));
	KUNIT_EXPECT_EQ(test, sleb_map_offset(504, 0), PAGE_SIZE - 64);
	/* 63 bytes: 65 fit without a bitmap but 64 with one in struct slab. */
	KUNIT_EXPECT_EQ(test, sleb_slab_objects(63, 0), 64U);
	/* No 16-bit limit: an order-3 slab of 8-byte objects. */
	KUNIT_EXPECT_GT(test, sleb_slab_objects(8, 3), 4000U);
}

/* === Bitmaps ============================================================= */

#define MAP_OBJECTS	200
#define MAP_SIZE	24

static void test_map_take_put(struct kunit *test)
{
	static char area[MAP_OBJECTS * MAP_SIZE];
	unsigned long map[BITS_TO_LONGS(MAP_OBJECTS)];
	struct reciprocal_value r = reciprocal_value(MAP_SIZE);
	static void *objs[MAP_OBJECTS];
	enum sleb_put_result res;
	unsigned int i, n;

	sleb_map_init(map, MAP_OBJECTS);
	KUNIT_EXPECT_EQ(test, sleb_map_free_count(map, MAP_OBJECTS), MAP_OBJECTS);
	/* Bits beyond the last object stay clear. */
	KUNIT_EXPECT_EQ(test, map[BITS_TO_LONGS(MAP_OBJECTS) - 1] >>
			(MAP_OBJECTS % BITS_PER_LONG), 0UL);

	n = sleb_map_take(map, MAP_OBJECTS, area, MAP_SIZE, objs, 70);
	KUNIT_EXPECT_EQ(test, n, 70U);
	KUNIT_EXPECT_EQ(test, sleb_map_free_count(map, MAP_OBJECTS), MAP_OBJECTS - 70);
	n += sleb_map_take(map, MAP_OBJECTS, area, MAP_SIZE, objs + n, MAP_OBJECTS);
	KUNIT_EXPECT_EQ(test, n, MAP_OBJECTS);
	KUNIT_EXPECT_TRUE(test, sleb_map_none_free(map, MAP_OBJECTS));
	for (i = 0; i < MAP_OBJECTS; i++)
		KUNIT_EXPECT_PTR_EQ(test, objs[i], (void *)(area + i * MAP_SIZE));

	/* Back in descending order: every object a neighbour of the last. */
	for (i = 0; i < MAP_OBJECTS / 2; i++)
		swap(objs[i], objs[MAP_OBJECTS - 1 - i]);
	n = sleb_map_put(map, MAP_OBJECTS, area, MAP_SIZE, r, objs, MAP_OBJECTS, &res);
	KUNIT_EXPECT_EQ(test, n, MAP_OBJECTS);
	KUNIT_EXPECT_EQ(test, res, SLEB_PUT_OK);
	KUNIT_EXPECT_TRUE(test, sleb_map_all_free(map, MAP_OBJECTS));
}

static void test_map_bad_put(struct kunit *test)
{
	static char area[MAP_OBJECTS * MAP_SIZE];
	unsigned long map[BITS_TO_LONGS(MAP_OBJECTS)];
	struct reciprocal_value r = reciprocal_value(MAP_SIZE);
	void *objs[4];
	enum sleb_put_result res;
	unsigned int n;

	sleb_map_init(map, MAP_OBJECTS);
	sleb_map_take(map, MAP_OBJECTS, area, MAP_SIZE, objs, 3);

	/* objs[1] twice: the second is a double free, reported at index 2. */
	objs[3] = objs[2];
	objs[2] = objs[1];
	n = sleb_map_put(map, MAP_OBJECTS, area, MAP_SIZE, r, objs, 4, &res);
	KUNIT_EXPECT_EQ(test, n, 3U);
	KUNIT_EXPECT_EQ(test, res, SLEB_PUT_DOUBLE_FREE);

	/* A pointer into the middle of an object. */
	objs[0] = area + 5 * MAP_SIZE + 3;
	n = sleb_map_put(map, MAP_OBJECTS, area, MAP_SIZE, r, objs, 1, &res);
	KUNIT_EXPECT_EQ(test, n, 1U);
	KUNIT_EXPECT_EQ(test, res, SLEB_PUT_MISALIGNED);

	/* A pointer past the slab ends the run without being consumed. */
	objs[0] = area + MAP_OBJECTS * MAP_SIZE;
	n = sleb_map_put(map, MAP_OBJECTS, area, MAP_SIZE, r, objs, 1, &res);
	KUNIT_EXPECT_EQ(test, n, 0U);
	KUNIT_EXPECT_EQ(test, res, SLEB_PUT_OK);
	/* objs[0] and objs[1] are back, the third object is still in use. */
	KUNIT_EXPECT_EQ(test, sleb_map_free_count(map, MAP_OBJECTS), MAP_OBJECTS - 1);
	KUNIT_EXPECT_FALSE(test, test_bit(2, map));
}

/* === Caches ============================================================== */

#define TEST_SIZE	64

/*
 * SLAB_NO_MERGE: no other user shares the cache (a usercopy region keeps
 * caches apart only with HARDENED_USERCOPY); sleb_debug= given for every
 * cache must not change what these tests count.  KFENCE must not hand out
 * the objects either: its guard pages would catch the deliberate
 * corruptions first and its objects never come back through the queues.
 * kmem_cache_create() does not take SLAB_SKIP_KFENCE (SLUB sets it from
 * sysfs), so it is set here, before the first allocation.
 */
static struct kmem_cache *create_test_cache(struct kunit *test,
					    const char *name,
					    slab_flags_t flags)
{
	slab_flags_t all = flags | SLAB_NO_USER_FLAGS | SLAB_NO_MERGE;
	struct kmem_cache *s = kmem_cache_create_usercopy(name, TEST_SIZE, 0, all,
							  0, TEST_SIZE, NULL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->flags |= SLAB_SKIP_KFENCE;
	return s;
}

static struct kmem_cache *test_cache(struct kunit *test, const char *name)
{
	return create_test_cache(test, name, 0);
}

/*
 * A cache for the cases that count the queues' objects exactly.  KASAN's
 * quarantine holds freed objects back from the queues and KASAN writes its
 * free metadata into freed objects: these cases run in kernels without it.
 */
static struct kmem_cache *counted_cache(struct kunit *test, const char *name)
{
	if (IS_ENABLED(CONFIG_KASAN))
		kunit_skip(test, "KASAN's quarantine holds freed objects back");
	return test_cache(test, name);
}

static unsigned long in_use(struct kmem_cache *s)
{
	struct sleb_counts c;

	sleb_test_usage(s, &c);
	return sleb_counts_in_use(&c);
}

static void test_tunables_range(struct kunit *test)
{
	struct kmem_cache *s = test_cache(test, "sleb-kunit-tune");

	KUNIT_EXPECT_EQ(test, sleb_test_tune(s, 16, 8, 0), 0);
	KUNIT_EXPECT_EQ(test, sleb_test_tune(s, 3, 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sleb_test_tune(s, 10001, 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sleb_test_tune(s, 16, 17, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sleb_test_tune(s, 16, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, sleb_test_tune(s, 16, 8, 10001), -EINVAL);
	KUNIT_EXPECT_EQ(test, s->cpu_queue_size, 16U);
	KUNIT_EXPECT_EQ(test, s->cpu_batch_size, 8U);
	KUNIT_EXPECT_EQ(test, s->shared_queue_size, 0U);
	/* A batch smaller than the queue is fine (the RFC refused it). */
	KUNIT_EXPECT_EQ(test, sleb_test_tune(s, 16, 1, 0), 0);
	KUNIT_EXPECT_EQ(test, sleb_test_tune(s, 4, 4, 10000), 0);
	kmem_cache_destroy(s);
}

/*
 * Queue of 16, batch 8: a refill brings 8 objects, a drain of a full queue
 * sends the 8 oldest away.  All on one CPU.
 */
static void run_queue_counts(struct kunit *test, unsigned int shared)
{
	struct kmem_cache *s = counted_cache(test, "sleb-kunit-queue");
	unsigned int expect[] = { 7, 6, 5, 4, 3, 2, 1, 0, 7, 6, 5, 4, 3, 2, 1, 0, 7 };
	struct sleb_counts c;
	void *p[17];
	int i;

	KUNIT_ASSERT_EQ(test, sleb_test_tune(s, 16, 8, shared), 0);
	migrate_disable();
	kmem_cache_shrink(s);
	KUNIT_EXPECT_EQ(test, sleb_test_queue_count(s), 0U);
	for (i = 0; i < 17; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_EXPECT_NOT_NULL(test, p[i]);
		KUNIT_EXPECT_EQ_MSG(test, sleb_test_queue_count(s), expect[i],
				    "after allocation %d", i + 1);
	}
	for (i = 0; i < 9; i++)
		kmem_cache_free(s, p[i]);
	KUNIT_EXPECT_EQ(test, sleb_test_queue_count(s), 16U);
	kmem_cache_free(s, p[9]);
	KUNIT_EXPECT_EQ(test, sleb_test_queue_count(s), 9U);
	for (i = 10; i < 17; i++)
		kmem_cache_free(s, p[i]);
	KUNIT_EXPECT_EQ(test, sleb_test_queue_count(s), 16U);
	sleb_test_usage(s, &c);
	KUNIT_EXPECT_EQ(test, c.shared, shared ? 8UL : 0UL);
	KUNIT_EXPECT_EQ(test, sleb_counts_in_use(&c), 0UL);
	migrate_enable();

	kmem_cache_shrink(s);
	sleb_test_usage(s, &c);
	KUNIT_EXPECT_EQ(test, c.shared + c.queued, 0UL);
	KUNIT_EXPECT_EQ(test, c.slabs, 0UL);
	kmem_cache_destroy(s);
}

static void test_queue_counts(struct kunit *test)
{
	run_queue_counts(test, 0);
}

static void test_queue_counts_shared(struct kunit *test)
{
	run_queue_counts(test, 32);
}

/* The allocator does not write a freed object nor one it hands out again. */
static void test_object_untouched(struct kunit *test)
{
	struct kmem_cache *s = counted_cache(test, "sleb-kunit-untouched");
	void *p, *q;

	if (want_init_on_free() || want_init_on_alloc(GFP_KERNEL))
		kunit_skip(test, "init_on_alloc/init_on_free write objects");
	migrate_disable();
	p = kmem_cache_alloc(s, GFP_KERNEL);
	if (!p) {
		migrate_enable();
		kmem_cache_destroy(s);
		KUNIT_FAIL(test, "allocation failed");
		return;
	}
	memset(p, 0xa5, TEST_SIZE);
	kmem_cache_free(s, p);
	q = kmem_cache_alloc(s, GFP_KERNEL);
	migrate_enable();
	KUNIT_EXPECT_PTR_EQ(test, p, q);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(q, 0xa5, TEST_SIZE), NULL);
	kmem_cache_free(s, q);
	kmem_cache_destroy(s);
}

static int cmp_ptr(const void *a, const void *b)
{
	unsigned long x = *(unsigned long *)a, y = *(unsigned long *)b;

	return x < y ? -1 : x > y;
}

#define BULK	300

static void test_bulk(struct kunit *test)
{
	struct kmem_cache *s = counted_cache(test, "sleb-kunit-bulk");
	void **p = kunit_kcalloc(test, BULK, sizeof(void *), GFP_KERNEL);
	unsigned int sizes[] = { 1, 16, 120, 256, BULK };
	unsigned int i, j;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		KUNIT_ASSERT_TRUE(test, kmem_cache_alloc_bulk(s, GFP_KERNEL, sizes[i], p));
		KUNIT_EXPECT_EQ(test, in_use(s), (unsigned long)sizes[i]);
		sort(p, sizes[i], sizeof(void *), cmp_ptr, NULL);
		for (j = 0; j < sizes[i]; j++) {
			KUNIT_EXPECT_NOT_NULL(test, p[j]);
			if (j)
				KUNIT_EXPECT_PTR_NE(test, p[j - 1], p[j]);
		}
		kmem_cache_free_bulk(s, sizes[i], p);
		KUNIT_EXPECT_EQ(test, in_use(s), 0UL);
	}
	kmem_cache_destroy(s);
}

static void test_shrink(struct kunit *test)
{
	struct kmem_cache *s = counted_cache(test, "sleb-kunit-shrink");
	unsigned int nr = 3 * s->oo.objects;
	void **p = kunit_kcalloc(test, nr, sizeof(void *), GFP_KERNEL);
	struct sleb_counts c;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < nr; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	sleb_test_usage(s, &c);
	KUNIT_EXPECT_GE(test, c.slabs, 3UL);
	KUNIT_EXPECT_EQ(test, sleb_counts_in_use(&c), (unsigned long)nr);
	for (i = 0; i < nr; i++)
		kmem_cache_free(s, p[i]);
	kmem_cache_shrink(s);
	sleb_test_usage(s, &c);
	KUNIT_EXPECT_EQ(test, c.slabs, 0UL);
	KUNIT_EXPECT_EQ(test, c.total, 0UL);
	kmem_cache_destroy(s);
}

/* === Counting ============================================================ */

/* What a walk of a node's partial list finds, as count_node() did. */
static void walk_partial(struct kmem_cache_node *n, struct sleb_counts *w)
{
	unsigned long flags;
	struct slab *slab;

	memset(w, 0, sizeof(*w));
	spin_lock_irqsave(&n->list_lock, flags);
	list_for_each_entry(slab, &n->partial, slab_list) {
		unsigned int free = sleb_map_free_count(slab_map(slab), slab->objects);

		w->partial++;
		w->partial_total += slab->objects;
		w->free += free;
		w->empty += free == slab->objects;
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
}

/* Which objects test_count_partial() keeps: a third of slabs 0-2, slab 4. */
static bool count_kept(unsigned int i, unsigned int per)
{
	return i < 3 * per ? !(i % 3) : i >= 4 * per;
}

/*
 * The counts of a node agree with its partial list: three slabs with a
 * third of their objects in use, one empty slab that min_partial keeps,
 * one full slab.  Resizing the queue puts the queued objects back.
 */
static void test_count_partial(struct kunit *test)
{
	struct kmem_cache *s = counted_cache(test, "sleb-kunit-count");
	unsigned int per = s->oo.objects, nr = 5 * per, i;
	void **p = kunit_kcalloc(test, nr, sizeof(void *), GFP_KERNEL);
	struct kmem_cache_node *n;
	struct sleb_counts c, w;
	int node;

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, sleb_test_tune(s, 4, 2, 0), 0);
	WRITE_ONCE(s->min_partial, 5);
	for (i = 0; i < nr; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	for (i = 0; i < nr; i++)
		if (!count_kept(i, per))
			kmem_cache_free(s, p[i]);
	KUNIT_ASSERT_EQ(test, sleb_test_tune(s, 8, 4, 0), 0);
	for_each_kmem_cache_node(s, node, n) {
		KUNIT_ASSERT_EQ(test, sleb_test_node_usage(s, node, &c), 0);
		walk_partial(n, &w);
		KUNIT_EXPECT_EQ(test, c.partial, w.partial);
		KUNIT_EXPECT_EQ(test, c.partial_total, w.partial_total);
		KUNIT_EXPECT_EQ(test, c.free, w.free);
		KUNIT_EXPECT_EQ(test, c.empty, w.empty);
	}
	sleb_test_usage(s, &c);
	KUNIT_EXPECT_EQ(test, c.queued, 0UL);
	KUNIT_EXPECT_EQ(test, c.empty, 1UL);
	KUNIT_EXPECT_EQ(test, c.partial, 4UL);
	KUNIT_EXPECT_EQ(test, sleb_counts_in_use(&c), 2UL * per);
	for (i = 0; i < nr; i++)
		if (count_kept(i, per))
			kmem_cache_free(s, p[i]);
	kmem_cache_destroy(s);
}

struct count_thread {
	struct kmem_cache *s;
	struct completion done;
	bool counted;
	int node;
};

static int count_thread_fn(void *arg)
{
	struct count_thread *t = arg;
	struct sleb_counts c;

	sleb_test_node_usage(t->s, t->node, &c);
	WRITE_ONCE(t->counted, true);
	complete(&t->done);
	return 0;
}

#define COUNT_WAIT_MS	2000

/*
 * Counting (slabinfo, sysfs) does not take list_lock, which the allocation
 * paths need: it used to walk the whole partial list under it, with
 * interrupts off.  While this CPU holds the lock, another CPU counts.
 */
static void test_count_without_list_lock(struct kunit *test)
{
	struct kmem_cache *s = test_cache(test, "sleb-kunit-count-lock");
	struct count_thread t = { .s = s };
	struct kmem_cache_node *n;
	unsigned int cpu, ms;
	struct task_struct *k;
	unsigned long flags;
	bool counted;
	void *p;

	p = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	t.node = slab_nid(virt_to_slab(p));
	n = get_node(s, t.node);
	init_completion(&t.done);
	migrate_disable();
	cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (cpu >= nr_cpu_ids) {
		migrate_enable();
		kmem_cache_free(s, p);
		kmem_cache_destroy(s);
		kunit_skip(test, "needs a second online CPU");
	}
	k = kthread_create(count_thread_fn, &t, "sleb-kunit-count");
	KUNIT_ASSERT_FALSE(test, IS_ERR(k));
	kthread_bind(k, cpu);

	spin_lock_irqsave(&n->list_lock, flags);
	wake_up_process(k);
	for (ms = 0; ms < COUNT_WAIT_MS && !READ_ONCE(t.counted); ms++)
		mdelay(1);
	counted = READ_ONCE(t.counted);
	spin_unlock_irqrestore(&n->list_lock, flags);
	migrate_enable();

	wait_for_completion(&t.done);
	KUNIT_EXPECT_TRUE_MSG(test, counted, "counting waited %u ms for list_lock", ms);
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
}

static void test_alloc_node(struct kunit *test)
{
	struct kmem_cache *s = test_cache(test, "sleb-kunit-node");
	int nid, i;

	for_each_node_state(nid, N_NORMAL_MEMORY) {
		for (i = 0; i < 200; i++) {
			void *p = kmalloc_node(TEST_SIZE, GFP_KERNEL, nid);
			void *q = kmem_cache_alloc_node(s, GFP_KERNEL, nid);

			KUNIT_ASSERT_NOT_NULL(test, p);
			KUNIT_ASSERT_NOT_NULL(test, q);
			KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(p)), nid);
			KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(q)), nid);
			kfree(p);
			kmem_cache_free(s, q);
		}
	}
	kmem_cache_destroy(s);
}

/*
 * An object of another node freed here goes to its node's shared array,
 * not into this CPU's queue, where it would be handed out as a remote
 * object.
 */
static void test_remote_free_routing(struct kunit *test)
{
	struct kmem_cache *s = counted_cache(test, "sleb-kunit-remote");
	struct sleb_counts before, after;
	int local, remote = NUMA_NO_NODE, nid, i;
	unsigned int queued;
	void *p[8];

	KUNIT_ASSERT_EQ(test, sleb_test_tune(s, 16, 8, 64), 0);
	migrate_disable();
	local = sleb_test_home_node();
	for_each_node_state(nid, N_NORMAL_MEMORY)
		if (nid != local)
			remote = nid;
	if (remote == NUMA_NO_NODE) {
		migrate_enable();
		kmem_cache_destroy(s);
		kunit_skip(test, "needs a second node with memory");
	}
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		p[i] = kmem_cache_alloc_node(s, GFP_KERNEL, remote);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(p[i])), remote);
	}
	/* Node requests bypass the queue: nothing was queued here. */
	KUNIT_EXPECT_EQ(test, sleb_test_queue_count(s), 0U);
	sleb_test_node_usage(s, remote, &before);
	queued = sleb_test_queue_count(s);
	for (i = 0; i < ARRAY_SIZE(p); i++)
		kmem_cache_free(s, p[i]);
	KUNIT_EXPECT_EQ(test, sleb_test_queue_count(s), queued);
	sleb_test_node_usage(s, remote, &after);
	KUNIT_EXPECT_EQ(test, after.shared, before.shared + ARRAY_SIZE(p));
	/* And a request for that node gets them back from there. */
	p[0] = kmem_cache_alloc_node(s, GFP_KERNEL, remote);
	KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(p[0])), remote);
	kmem_cache_free(s, p[0]);
	migrate_enable();
	kmem_cache_destroy(s);
}

/* === Emergency reserves ================================================== */

#define RESERVE_OBJS	64

/*
 * Objects of a slab from the emergency reserves (pfmemalloc) are for
 * callers entitled to them: freed, they do not go into the queue, where
 * the next ordinary allocation would take them; an entitled caller gets
 * one back from the slab.  The slab is marked by hand, as the page
 * allocator marks a slab it could only allocate from the reserves.
 */
static void test_pfmemalloc_kept(struct kunit *test)
{
	struct kmem_cache *s = counted_cache(test, "sleb-kunit-reserve");
	unsigned int i, queued, n, noreclaim;
	void *p[RESERVE_OBJS], *q;
	struct slab *slab;

	KUNIT_ASSERT_EQ(test, sleb_test_tune(s, 16, 8, 0), 0);
	migrate_disable();
	p[0] = kmem_cache_alloc(s, GFP_KERNEL);
	if (!p[0]) {
		migrate_enable();
		kmem_cache_destroy(s);
		KUNIT_FAIL(test, "allocation failed");
		return;
	}
	slab = virt_to_slab(p[0]);
	n = min_t(unsigned int, slab->objects, RESERVE_OBJS);
	kmem_cache_shrink(s);
	/* The slab's other objects come back through the queue's refills. */
	for (i = 1; i < n; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		if (!p[i] || virt_to_slab(p[i]) != slab)
			break;
	}
	if (i < n) {
		migrate_enable();
		KUNIT_FAIL(test, "object %u: %p, not of the first slab", i, p[i]);
		n = p[i] ? i + 1 : i;
		for (i = 0; i < n; i++)
			kmem_cache_free(s, p[i]);
		kmem_cache_destroy(s);
		return;
	}
	slab_set_pfmemalloc(slab);
	/* p[0] stays, so that shrinking does not free the slab. */
	queued = sleb_test_queue_count(s);
	for (i = 1; i < n; i++)
		kmem_cache_free(s, p[i]);
	KUNIT_EXPECT_EQ(test, sleb_test_queue_count(s), queued);
	migrate_enable();

	/* Ordinary allocations, queue refills included, do not get them. */
	kmem_cache_shrink(s);
	for (i = 1; i < 17; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		KUNIT_EXPECT_PTR_NE(test, virt_to_slab(p[i]), slab);
	}
	for (i = 1; i < 17; i++)
		kmem_cache_free(s, p[i]);

	/* An entitled caller with an empty queue gets one from the reserves. */
	kmem_cache_shrink(s);
	migrate_disable();
	noreclaim = memalloc_noreclaim_save();
	q = kmem_cache_alloc(s, GFP_ATOMIC);
	memalloc_noreclaim_restore(noreclaim);
	migrate_enable();
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_PTR_EQ(test, virt_to_slab(q), slab);
	kmem_cache_free(s, q);
	kmem_cache_free(s, p[0]);
	kmem_cache_destroy(s);
}

/* === NUMA fallback ======================================================= */

/*
 * Take @nid's free pages down to its watermarks, a block at a time, onto
 * @hog; no reclaim, no other node.
 */
static unsigned long hog_node(int nid, struct list_head *hog, int max_order)
{
	/* Not even kswapd: nothing on the node is to be reclaimed for this. */
	gfp_t gfp = (GFP_NOWAIT & ~__GFP_KSWAPD_RECLAIM) | __GFP_THISNODE | __GFP_NOWARN;
	unsigned long pages = 0;
	int order;

	for (order = max_order; order >= 0; order--) {
		struct page *page;

		while ((page = alloc_pages_node(nid, gfp, order))) {
			set_page_private(page, order);
			list_add(&page->lru, hog);
			pages += 1UL << order;
		}
	}
	return pages;
}

static void free_hog(struct list_head *hog)
{
	struct page *page, *next;

	list_for_each_entry_safe(page, next, hog, lru) {
		list_del(&page->lru);
		__free_pages(page, page_private(page));
	}
}

static unsigned long node_slabs(struct kmem_cache *s)
{
	struct sleb_counts c;

	sleb_test_usage(s, &c);
	return c.slabs;
}

#define FALLBACK_OBJS	1000

/*
 * The home node is out of memory: allocations fall back to another node,
 * and use the objects of the slabs they made there before making more.
 * A slab per object is what taking one object from each new remote slab
 * and never looking at that node's partial list again would cost.
 */
static void test_fallback_growth(struct kunit *test)
{
	struct kmem_cache *s = test_cache(test, "sleb-kunit-fallback");
	unsigned long before, grown, bound, hogged;
	void **p;
	LIST_HEAD(hog);
	int home, i;

	if (num_node_state(N_NORMAL_MEMORY) < 2) {
		kmem_cache_destroy(s);
		kunit_skip(test, "needs a second node with memory");
	}
	p = kunit_kcalloc(test, FALLBACK_OBJS, sizeof(void *), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	migrate_disable();
	home = sleb_test_home_node();
	kmem_cache_shrink(s);
	before = node_slabs(s);
	hogged = hog_node(home, &hog, MAX_PAGE_ORDER);
	for (i = 0; i < FALLBACK_OBJS; i++) {
		/* What kswapd or a free elsewhere gave back meanwhile goes too. */
		hogged += hog_node(home, &hog, 0);
		p[i] = kmem_cache_alloc(s, GFP_KERNEL | __GFP_NOWARN);
		if (!p[i])
			break;
	}
	grown = node_slabs(s) - before;
	free_hog(&hog);
	migrate_enable();
	kunit_info(test, "node %d full (%lu pages taken): %lu slabs for %d objects, first on node %d, last on node %d\n",
		   home, hogged, grown, i, i ? page_to_nid(virt_to_page(p[0])) : -1,
		   i ? page_to_nid(virt_to_page(p[i - 1])) : -1);
	KUNIT_EXPECT_EQ(test, i, FALLBACK_OBJS);
	/* Whole slabs, and one more per node the batches were taken from. */
	bound = DIV_ROUND_UP(i, s->oo.objects) + num_node_state(N_NORMAL_MEMORY) + 1;
	KUNIT_EXPECT_LE_MSG(test, grown, bound, "%lu slabs for %d objects of %u per slab",
			    grown, i, s->oo.objects);
	while (i--)
		kmem_cache_free(s, p[i]);
	kmem_cache_destroy(s);
}

static long reap_on_cpu(void *s)
{
	return sleb_test_reap(s);
}

/*
 * A node with memory that is no CPU's home still has its shared array
 * reaped: objects freed there from other nodes do not stay for ever.
 */
static void test_orphan_node_reaped(struct kunit *test)
{
	struct kmem_cache *s = counted_cache(test, "sleb-kunit-orphan");
	int orphan = NUMA_NO_NODE, nid, i;
	struct sleb_counts c;
	unsigned int cpu;
	void *p[30];

	for_each_node_state(nid, N_NORMAL_MEMORY) {
		bool home = false;

		for_each_online_cpu(cpu)
			home |= sleb_test_cpu_home_node(cpu) == nid;
		if (!home)
			orphan = nid;
	}
	if (orphan == NUMA_NO_NODE) {
		kmem_cache_destroy(s);
		kunit_skip(test, "needs a node with memory that is no CPU's home");
	}
	KUNIT_ASSERT_EQ(test, sleb_test_tune(s, 16, 8, ARRAY_SIZE(p)), 0);
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		p[i] = kmem_cache_alloc_node(s, GFP_KERNEL, orphan);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	for (i = 0; i < ARRAY_SIZE(p); i++)
		kmem_cache_free(s, p[i]);
	KUNIT_ASSERT_EQ(test, sleb_test_node_usage(s, orphan, &c), 0);
	KUNIT_EXPECT_EQ(test, c.shared, (unsigned long)ARRAY_SIZE(p));
	/* The first online CPU's passes: one sees it touched, the next reaps. */
	cpus_read_lock();
	cpu = cpumask_first(cpu_online_mask);
	work_on_cpu(cpu, reap_on_cpu, s);
	work_on_cpu(cpu, reap_on_cpu, s);
	cpus_read_unlock();
	KUNIT_ASSERT_EQ(test, sleb_test_node_usage(s, orphan, &c), 0);
	/* A fifth per idle pass (the periodic reaper may have run too). */
	KUNIT_EXPECT_LE(test, c.shared, (unsigned long)ARRAY_SIZE(p) - ARRAY_SIZE(p) / 5);
	kmem_cache_destroy(s);
}

/* === CPU hotplug ========================================================= */

struct fill_queue {
	struct kmem_cache *s;
	struct completion done;
	unsigned int got;
	int nid;
};

/* On the CPU it is bound to: leave HOTPLUG_OBJECTS objects in its queue. */
#define HOTPLUG_OBJECTS	16

static int fill_queue_fn(void *arg)
{
	struct fill_queue *f = arg;
	void *p[HOTPLUG_OBJECTS];
	unsigned int i;

	for (i = 0; i < HOTPLUG_OBJECTS; i++) {
		p[i] = kmem_cache_alloc(f->s, GFP_KERNEL);
		if (!p[i])
			break;
	}
	f->got = i;
	f->nid = i ? page_to_nid(virt_to_page(p[0])) : NUMA_NO_NODE;
	while (i--)
		kmem_cache_free(f->s, p[i]);
	complete(&f->done);
	return 0;
}

/* Run fill_queue_fn() on @cpu and wait for it. */
static void fill_queue_on(struct kunit *test, struct fill_queue *f, unsigned int cpu)
{
	struct task_struct *t;

	init_completion(&f->done);
	t = kthread_create(fill_queue_fn, f, "sleb-kunit-fill");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	kthread_bind(t, cpu);
	wake_up_process(t);
	wait_for_completion(&f->done);
	KUNIT_ASSERT_EQ(test, f->got, HOTPLUG_OBJECTS);
}

/* A CPU going offline leaves nothing in its queue: sleb_cpu_dead() flushed it. */
static void test_dead_cpu_flushed(struct kunit *test)
{
	struct kmem_cache *s = counted_cache(test, "sleb-kunit-hotplug");
	struct fill_queue f = { .s = s };
	unsigned int cpu;
	int ret;

	KUNIT_ASSERT_EQ(test, sleb_test_tune(s, 32, 8, 0), 0);
	cpu = cpumask_next(cpumask_first(cpu_online_mask), cpu_online_mask);
	if (cpu >= nr_cpu_ids) {
		kmem_cache_destroy(s);
		kunit_skip(test, "needs a second CPU");
	}
	fill_queue_on(test, &f, cpu);
	/* The periodic reaper may have taken some back already, not all. */
	KUNIT_EXPECT_GT(test, sleb_test_cpu_queue_count(s, cpu), 0U);
	ret = remove_cpu(cpu);
	if (ret) {
		kmem_cache_destroy(s);
		kunit_skip(test, "cannot take CPU %u offline: %d", cpu, ret);
	}
	KUNIT_EXPECT_EQ(test, sleb_test_cpu_queue_count(s, cpu), 0U);
	KUNIT_EXPECT_EQ(test, in_use(s), 0UL);
	KUNIT_EXPECT_EQ(test, add_cpu(cpu), 0);
	kmem_cache_destroy(s);
}

/* === Memory hotplug ====================================================== */

/* Give node @nid its memory back (a KUnit action). */
static void node_memory_back(void *nid)
{
	sleb_test_node_memory((long)nid, true);
}

/*
 * A node loses its last memory (replayed, see sleb_test_node_memory()):
 * the CPUs at home there flush their queues and move to another node, which
 * then serves them; when the memory is back they return home.
 */
static void test_node_memory_lost(struct kunit *test)
{
	struct kmem_cache *s = counted_cache(test, "sleb-kunit-memhp");
	int first = first_node(node_states[N_NORMAL_MEMORY]);
	struct fill_queue f = { .s = s };
	unsigned int cpu;
	int nid, home;

	KUNIT_ASSERT_EQ(test, sleb_test_tune(s, 32, 8, 0), 0);
	for_each_online_cpu(cpu)
		if (sleb_test_cpu_home_node(cpu) != first)
			break;
	if (cpu >= nr_cpu_ids) {
		kmem_cache_destroy(s);
		kunit_skip(test, "needs a CPU at home on a second node");
	}
	nid = sleb_test_cpu_home_node(cpu);
	fill_queue_on(test, &f, cpu);
	KUNIT_EXPECT_EQ(test, f.nid, nid);
	KUNIT_EXPECT_GT(test, sleb_test_cpu_queue_count(s, cpu), 0U);

	KUNIT_ASSERT_EQ(test, sleb_test_node_memory(nid, false), 0);
	/* A failed assertion below must not leave the node out for the boot. */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, node_memory_back,
							(void *)(long)nid), 0);
	home = sleb_test_cpu_home_node(cpu);
	KUNIT_EXPECT_NE(test, home, nid);
	KUNIT_EXPECT_TRUE(test, node_state(home, N_NORMAL_MEMORY));
	KUNIT_EXPECT_EQ(test, sleb_test_cpu_queue_count(s, cpu), 0U);
	KUNIT_EXPECT_EQ(test, in_use(s), 0UL);
	/* Its queue now refills from its new home. */
	fill_queue_on(test, &f, cpu);
	KUNIT_EXPECT_EQ(test, f.nid, home);

	kunit_remove_action(test, node_memory_back, (void *)(long)nid);
	KUNIT_EXPECT_EQ(test, sleb_test_node_memory(nid, true), 0);
	KUNIT_EXPECT_EQ(test, sleb_test_cpu_home_node(cpu), nid);
	KUNIT_EXPECT_EQ(test, sleb_test_cpu_queue_count(s, cpu), 0U);
	fill_queue_on(test, &f, cpu);
	KUNIT_EXPECT_EQ(test, f.nid, nid);
	KUNIT_EXPECT_EQ(test, in_use(s), 0UL);
	kmem_cache_destroy(s);
}

/*
 * Only a node with normal memory makes a home: one with ZONE_MOVABLE
 * memory only (hot-added and onlined movable) could never fill a queue,
 * so its CPUs take the nearest node with normal memory.
 */
static void test_home_needs_normal_memory(struct kunit *test)
{
	nodemask_t normal = node_states[N_NORMAL_MEMORY];
	int nid, home;

	if (nodes_weight(normal) < 2)
		kunit_skip(test, "needs two nodes with normal memory");
	nid = first_node(normal);
	KUNIT_EXPECT_EQ(test, sleb_test_nearest_home(nid, &normal), nid);
	node_clear(nid, normal);
	home = sleb_test_nearest_home(nid, &normal);
	KUNIT_EXPECT_NE(test, home, nid);
	KUNIT_EXPECT_TRUE(test, node_isset(home, normal));
}

/* === Resizing under load ================================================= */

#define STAMP_IN_USE	0x51eb51eb51eb51ebUL
#define LOAD_OBJECTS	48

struct load {
	struct kmem_cache *s;
	atomic_t errors;
	atomic_long_t ops;
	bool shrink;
};

/* Allocate and free in random runs; an object handed out twice is caught. */
static int load_thread(void *arg)
{
	struct load *l = arg;
	void *p[LOAD_OBJECTS];
	unsigned int i, n;

	while (!kthread_should_stop()) {
		n = 1 + get_random_u32_below(LOAD_OBJECTS);
		for (i = 0; i < n; i++) {
			unsigned long *o = kmem_cache_alloc(l->s, GFP_KERNEL);

			p[i] = o;
			if (!o || xchg(o, STAMP_IN_USE) == STAMP_IN_USE)
				atomic_inc(&l->errors);
		}
		for (i = 0; i < n; i++) {
			if (!p[i])
				continue;
			WRITE_ONCE(*(unsigned long *)p[i], 0);
			kmem_cache_free(l->s, p[i]);
		}
		atomic_long_add(n, &l->ops);
		/* Shrinking and validating look at every CPU's queue. */
		if (l->shrink && !get_random_u32_below(16)) {
			kmem_cache_shrink(l->s);
#ifdef CONFIG_SLEB_DEBUG
			if (sleb_validate_cache(l->s))
				atomic_inc(&l->errors);
#endif
		}
		cond_resched();
	}
	return 0;
}

/* A load_thread() on every online CPU; stop_load() ends them. */
static struct task_struct **start_load(struct kunit *test, struct load *l)
{
	struct task_struct **threads;
	unsigned int cpu;

	threads = kunit_kcalloc(test, nr_cpu_ids, sizeof(*threads), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, threads);
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		threads[cpu] = kthread_create_on_cpu(load_thread, l, cpu, "sleb-kunit/%u");
		if (!IS_ERR(threads[cpu]))
			wake_up_process(threads[cpu]);
	}
	cpus_read_unlock();
	return threads;
}

static void stop_load(struct task_struct **threads)
{
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (!IS_ERR_OR_NULL(threads[cpu]))
			kthread_stop(threads[cpu]);
}

static void test_resize_under_load(struct kunit *test)
{
	struct task_struct **threads;
	struct load l = { .s = counted_cache(test, "sleb-kunit-resize") };
	unsigned int i, q;
	struct sleb_counts c;

	threads = start_load(test, &l);

	for (i = 0; i < 200; i++) {
		q = 4 + get_random_u32_below(200);
		KUNIT_EXPECT_EQ(test, sleb_test_tune(l.s, q, 1 + get_random_u32_below(q),
						     get_random_u32_below(300)), 0);
		if (i % 50 == 0)
			kmem_cache_shrink(l.s);
		usleep_range(200, 500);
	}
	stop_load(threads);

	KUNIT_EXPECT_EQ(test, atomic_read(&l.errors), 0);
	KUNIT_EXPECT_GT(test, atomic_long_read(&l.ops), 0L);
	sleb_test_usage(l.s, &c);
	KUNIT_EXPECT_EQ_MSG(test, sleb_counts_in_use(&c), 0UL, "objects lost in resizing");
	kmem_cache_shrink(l.s);
	sleb_test_usage(l.s, &c);
	KUNIT_EXPECT_EQ(test, c.slabs, 0UL);
	kmem_cache_destroy(l.s);
}

/*
 * Shared arrays come and go (0 and back) and queues grow and shrink while
 * every CPU allocates, frees, shrinks and validates: the unlocked looks at
 * another CPU's queue and at a node's shared array must not touch an
 * array that was freed meanwhile.
 */
static void test_resize_races(struct kunit *test)
{
	struct load l = { .s = counted_cache(test, "sleb-kunit-races"), .shrink = true };
	struct task_struct **threads;
	struct sleb_counts c;
	unsigned int i;

	threads = start_load(test, &l);

	for (i = 0; i < 200; i++) {
		unsigned int queue = i & 2 ? 200 : 4;

		KUNIT_EXPECT_EQ(test, sleb_test_tune(l.s, queue, queue / 2, i & 1 ? 64 : 0), 0);
		cond_resched();
	}
	stop_load(threads);

	KUNIT_EXPECT_EQ(test, atomic_read(&l.errors), 0);
	KUNIT_EXPECT_GT(test, atomic_long_read(&l.ops), 0L);
	sleb_test_usage(l.s, &c);
	KUNIT_EXPECT_EQ(test, sleb_counts_in_use(&c), 0UL);
	kmem_cache_destroy(l.s);
}

/* === A new slab and a concurrent shrink ================================== */

#define NEW_SLAB_ROUNDS	4000

struct drainer {
	struct kmem_cache *s;
	atomic_long_t rounds;
};

/* Free the empty slabs of a cache, without pause, until told to stop. */
static int drain_thread(void *arg)
{
	struct drainer *d = arg;

	while (!kthread_should_stop()) {
		sleb_test_drain(d->s);
		atomic_long_inc(&d->rounds);
		cond_resched();
	}
	return 0;
}

/*
 * A slab fresh from the page allocator is empty: were it put on its node's
 * list before the objects its allocation came for are taken, a shrink on
 * another CPU could give it back first, and the allocation would hand out
 * objects of a freed page.  One CPU allocates with its queue and the
 * node's slabs emptied each time, so that every allocation takes a new
 * slab, while another CPU frees empty slabs without pause.
 */
static void test_new_slab_vs_shrink(struct kunit *test)
{
	struct drainer d = { .s = counted_cache(test, "sleb-kunit-new-slab") };
	struct task_struct *drainer;
	unsigned int cpu, i, stray = 0;
	struct slab *slab;
	void *p;

	KUNIT_ASSERT_EQ(test, sleb_test_tune(d.s, 4, 2, 0), 0);
	migrate_disable();
	cpu = cpumask_any_but(cpu_online_mask, smp_processor_id());
	if (cpu >= nr_cpu_ids) {
		migrate_enable();
		kmem_cache_destroy(d.s);
		kunit_skip(test, "needs two online CPUs");
	}
	drainer = kthread_create_on_cpu(drain_thread, &d, cpu, "sleb-kunit-drain/%u");
	if (IS_ERR(drainer)) {
		migrate_enable();
		kmem_cache_destroy(d.s);
		KUNIT_FAIL(test, "no drain thread: %ld", PTR_ERR(drainer));
		return;
	}
	wake_up_process(drainer);
	/* kthread_stop() before its first run would not run it at all. */
	while (!atomic_long_read(&d.rounds))
		usleep_range(100, 1000);
	for (i = 0; i < NEW_SLAB_ROUNDS; i++) {
		sleb_test_drain(d.s);
		p = kmem_cache_alloc(d.s, GFP_KERNEL);
		if (!p) {
			KUNIT_FAIL(test, "allocation failed in round %u", i);
			break;
		}
		slab = virt_to_slab(p);
		if (!slab || slab->slab_cache != d.s) {
			/* A freed page: keep away from it. */
			stray++;
			continue;
		}
		kmem_cache_free(d.s, p);
	}
	kthread_stop(drainer);
	migrate_enable();

	KUNIT_EXPECT_EQ_MSG(test, stray, 0U, "objects outside the cache's slabs in %u rounds",
			    NEW_SLAB_ROUNDS);
	if (!stray) {
		kmem_cache_shrink(d.s);
		KUNIT_EXPECT_EQ(test, in_use(d.s), 0UL);
		kmem_cache_destroy(d.s);
	}
}

/* Whether @cpu should have a reap pass: neither isolated nor nohz_full. */
static bool cpu_reaps(unsigned int cpu)
{
	bool ret;

	/* A cpuset partition changes the domain mask under RCU. */
	rcu_read_lock();
	ret = !cpu_is_isolated(cpu) && housekeeping_cpu(cpu, HK_TYPE_KERNEL_NOISE);
	rcu_read_unlock();
	return ret;
}

/*
 * A CPU isolated from the scheduler domains (isolcpus=, an isolated cpuset
 * partition) or from kernel noise (nohz_full=) gets no reap pass: the
 * pass's timer fires on a housekeeping CPU and would wake the isolated one
 * every interval.  Runs where the kernel was booted with such a CPU, e.g.
 * isolcpus=domain,1.
 */
static void test_reaper_leaves_isolated_cpus(struct kunit *test)
{
	unsigned int cpu, isolated = 0;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (cpu_reaps(cpu))
			continue;
		isolated++;
		KUNIT_EXPECT_FALSE_MSG(test, sleb_test_reaper_armed(cpu),
				       "isolated CPU %u has a reap pass pending", cpu);
	}
	cpus_read_unlock();
	if (!isolated)
		kunit_skip(test, "no isolated CPU (boot with isolcpus= or nohz_full=)");
}

/*
 * A CPU that lost its reap pass (isolated when the pass ran, then taken
 * out of its isolated cpuset partition, which tells SLEB nothing) gets it
 * back from the first reaper's next pass.  The first reaper is a CPU
 * whose pass runs, so the first online CPU's lost pass comes back too.
 */
static void test_reaper_rearms_lost_pass(struct kunit *test)
{
	unsigned int cpus[2], cpu, n = 0, i;

	cpus_read_lock();
	for_each_online_cpu(cpu)
		if (n < ARRAY_SIZE(cpus) && cpu_reaps(cpu))
			cpus[n++] = cpu;
	cpus_read_unlock();
	if (n < ARRAY_SIZE(cpus))
		kunit_skip(test, "needs two online CPUs that are not isolated");
	for (i = 0; i < ARRAY_SIZE(cpus); i++) {
		unsigned int lost = cpus[i], reaper = cpus[!i];

		/* Another CPU's own pass may give it back before ours: fine. */
		sleb_test_drop_reap_pass(lost);
		sleb_test_run_reap_pass(reaper);
		KUNIT_EXPECT_TRUE_MSG(test, sleb_test_reaper_armed(lost),
				      "CPU %u's pass did not give CPU %u its pass back",
				      reaper, lost);
		/* Either way, CPU @lost has its pass again for what follows. */
		sleb_test_run_reap_pass(lost);
	}
}

/*
 * The reaper gives back a fifth of an idle queue and of an idle shared
 * array per pass, and nothing of one that was refilled or drained since
 * the last pass.  Queue 20, batch 10, shared 30; the periodic reaper is
 * kept away meanwhile, and the test stays on its CPU.
 */
static void test_reap(struct kunit *test)
{
	struct kmem_cache *s = counted_cache(test, "sleb-kunit-reap");
	void *p[30], *q;
	int i;

	KUNIT_ASSERT_EQ(test, sleb_test_tune(s, 20, 10, 30), 0);
	kmem_cache_shrink(s);
	sleb_test_stop_reaper();
	migrate_disable();
	for (i = 0; i < 30; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	for (i = 0; i < 30; i++)
		kmem_cache_free(s, p[i]);
	/* Three refills of 10; the 21st free drained 10 into the shared array. */
	KUNIT_EXPECT_EQ(test, sleb_test_queue_count(s), 20U);
	KUNIT_EXPECT_EQ(test, sleb_test_reap(s), 0U);
	KUNIT_EXPECT_EQ(test, sleb_test_queue_count(s), 20U);
	/* Idle now: 4 of the queue (20 / 5) and 6 of the shared array (30 / 5). */
	KUNIT_EXPECT_EQ(test, sleb_test_reap(s), 10U);
	KUNIT_EXPECT_EQ(test, sleb_test_queue_count(s), 16U);
	/* A fast-path allocation does not make the queue busy. */
	q = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, sleb_test_queue_count(s), 15U);
	/* The 4 left in the shared array go with 4 of the queue. */
	KUNIT_EXPECT_EQ(test, sleb_test_reap(s), 8U);
	KUNIT_EXPECT_EQ(test, sleb_test_reap(s), 4U);
	KUNIT_EXPECT_EQ(test, sleb_test_reap(s), 4U);
	/* Less than a fifth is left: all of it goes. */
	KUNIT_EXPECT_EQ(test, sleb_test_reap(s), 3U);
	KUNIT_EXPECT_EQ(test, sleb_test_queue_count(s), 0U);
	KUNIT_EXPECT_EQ(test, sleb_test_reap(s), 0U);
	migrate_enable();
	sleb_test_start_reaper();
	kmem_cache_free(s, q);
	kmem_cache_shrink(s);
	KUNIT_EXPECT_EQ(test, in_use(s), 0UL);
	kmem_cache_destroy(s);
}

/*
 * The shrinker gives back what it is asked to scan, oldest first, from
 * the shared arrays of the node under pressure before the queues, and
 * the newest cache first: this one.  Queue 16, batch 8, shared 64: 64
 * frees leave 16 in the queue and 48 in the shared array.
 */
static void test_shrinker_scan(struct kunit *test)
{
	struct kmem_cache *s = counted_cache(test, "sleb-kunit-shrinker");
	struct sleb_counts c;
	unsigned long freed;
	unsigned int i, n;
	void *p[64];
	int home;

	KUNIT_ASSERT_EQ(test, sleb_test_tune(s, 16, 8, 64), 0);
	migrate_disable();
	home = sleb_test_home_node();
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		if (!p[i])
			break;
	}
	n = i;
	while (i--)
		kmem_cache_free(s, p[i]);
	if (n < ARRAY_SIZE(p)) {
		migrate_enable();
		kmem_cache_destroy(s);
		KUNIT_FAIL(test, "allocation %u failed", n);
		return;
	}
	/* Expectations, not assertions, while migration is disabled. */
	KUNIT_EXPECT_EQ(test, sleb_test_queue_count(s), 16U);
	KUNIT_EXPECT_EQ(test, sleb_test_node_usage(s, home, &c), 0);
	KUNIT_EXPECT_EQ(test, c.shared, 48UL);

	freed = sleb_test_shrink(home, 5);
	KUNIT_EXPECT_EQ(test, freed, 5UL);
	KUNIT_EXPECT_EQ(test, sleb_test_node_usage(s, home, &c), 0);
	KUNIT_EXPECT_EQ(test, c.shared, 43UL);
	KUNIT_EXPECT_EQ(test, sleb_test_queue_count(s), 16U);
	migrate_enable();
	kmem_cache_destroy(s);
}

/*
 * CONFIG_SLAB_FREELIST_HARDENED: an object freed twice in a row is
 * reported (counted here) and not queued twice, so that it is not handed
 * out twice.
 */
static void test_hardened_double_free(struct kunit *test)
{
	static struct kunit_resource resource;
	static int errors;
	struct kmem_cache *s;
	unsigned int queued;
	void *p, *a, *b;

	if (!IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED))
		kunit_skip(test, "needs CONFIG_SLAB_FREELIST_HARDENED");
	if (!IS_ENABLED(CONFIG_SLEB_DEBUG))
		kunit_skip(test, "reports are counted with CONFIG_SLEB_DEBUG");
	s = counted_cache(test, "sleb-kunit-hardened");
	errors = 0;
	kunit_add_named_resource(test, NULL, NULL, &resource, "slab_errors", &errors);
	migrate_disable();
	p = kmem_cache_alloc(s, GFP_KERNEL);
	if (!p) {
		migrate_enable();
		kmem_cache_destroy(s);
		KUNIT_FAIL(test, "allocation failed");
		return;
	}
	queued = sleb_test_queue_count(s);
	kmem_cache_free(s, p);
	kmem_cache_free(s, p);
	KUNIT_EXPECT_EQ(test, sleb_test_queue_count(s), queued + 1);
	KUNIT_EXPECT_EQ(test, errors, 1);
	a = kmem_cache_alloc(s, GFP_KERNEL);
	b = kmem_cache_alloc(s, GFP_KERNEL);
	migrate_enable();
	KUNIT_EXPECT_PTR_NE(test, a, b);
	kmem_cache_free(s, a);
	kmem_cache_free(s, b);
	kmem_cache_destroy(s);
}

/*
 * A double free of the object whose first free emptied its slab, both
 * given back in one batch (a, x, a: the object between keeps
 * freed_just_now() from seeing it): the first free discards the slab, and
 * the second, reported and ignored, must not take the slab off the books
 * once more nor list it again.  min_partial 0, so that the first free
 * discards.
 */
static void test_double_free_of_last_object(struct kunit *test)
{
	static struct kunit_resource resource;
	static int errors;
	struct kmem_cache *s;
	struct sleb_counts c;
	void **p, *a = NULL, *x = NULL;
	unsigned int i, n, max;

	if (!IS_ENABLED(CONFIG_SLEB_DEBUG))
		kunit_skip(test, "reports are counted with CONFIG_SLEB_DEBUG");
	s = counted_cache(test, "sleb-kunit-double-last");
	/* Two slabs' worth of objects, and some. */
	max = 2 * s->oo.objects + 8;
	p = kunit_kcalloc(test, max, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, sleb_test_tune(s, 16, 8, 0), 0);
	WRITE_ONCE(s->min_partial, 0);
	errors = 0;
	kunit_add_named_resource(test, NULL, NULL, &resource, "slab_errors", &errors);
	migrate_disable();
	kmem_cache_shrink(s);
	/* Objects of two slabs: a from the first, x from the second. */
	for (n = 0; n < max && !x; n++) {
		p[n] = kmem_cache_alloc(s, GFP_KERNEL);
		if (!p[n])
			break;
		if (!a)
			a = p[n];
		else if (virt_to_slab(p[n]) != virt_to_slab(a))
			x = p[n];
	}
	for (i = 0; i < n; i++)
		if (p[i] && p[i] != a && p[i] != x)
			kmem_cache_free(s, p[i]);
	if (!x) {
		migrate_enable();
		if (a)
			kmem_cache_free(s, a);
		kmem_cache_destroy(s);
		KUNIT_FAIL(test, "no object of a second slab in %u allocations", n);
		return;
	}
	/* Now a and x are the only objects in use of their slabs. */
	sleb_test_drain(s);
	kmem_cache_free(s, a);
	kmem_cache_free(s, x);
	kmem_cache_free(s, a);
	/* On this task, which counts the report: the queue holds a, x, a. */
	sleb_test_drain(s);
	migrate_enable();

	KUNIT_EXPECT_EQ(test, errors, 1);
	sleb_test_usage(s, &c);
	KUNIT_EXPECT_EQ(test, c.slabs, 0UL);
	KUNIT_EXPECT_EQ(test, c.total, 0UL);
	KUNIT_EXPECT_EQ(test, c.partial, 0UL);
	KUNIT_EXPECT_EQ(test, c.free, 0UL);
	/* Broken counters would make the destroy complain: keep it then. */
	if (!c.slabs && !c.partial)
		kmem_cache_destroy(s);
}

/* === Re-entry and names ================================================== */

/* A constructor makes the second cache of test_merged_name_reused() unmergeable. */
static void reuse_ctor(void *object)
{
	memset(object, 0x5a, 64);
}

/*
 * A mergeable cache is an alias with a sysfs link of its name; once it is
 * destroyed, a cache of the same name that cannot merge must still get
 * its directory and work (the stale link used to make the registration
 * fail and free the new cache under its creator).
 */
static void test_merged_name_reused(struct kunit *test)
{
	static const char name[] = "sleb-kunit-reuse";
	struct kmem_cache *s;
	u8 *p;

	s = kmem_cache_create(name, 64, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	if (!strcmp(s->name, name)) {
		kmem_cache_destroy(s);
		kunit_skip(test, "the cache did not merge");
	}
	kmem_cache_destroy(s);

	s = kmem_cache_create(name, 64, 0, 0, reuse_ctor);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_STREQ(test, s->name, name);
#ifdef CONFIG_SYSFS
	KUNIT_EXPECT_TRUE_MSG(test, s->kobj.state_in_sysfs, "no /sys/kernel/slab/%s", name);
#endif
	p = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, p[0], 0x5a);
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
}

/* The kmalloc cache of 64-byte objects, if kmalloc_nolock() serves it. */
static struct kmem_cache *nolock_cache(struct kunit *test)
{
	struct kmem_cache *s = kmalloc_slab(64, NULL, GFP_KERNEL, __kmalloc_token(64),
					    SLAB_ALLOC_DEFAULT);

	if (sleb_debug_cache(s))
		kunit_skip(test, "kmalloc_nolock() does not serve debugged caches");
	return s;
}

/*
 * kmalloc_nolock() from a context that holds the queue's lock, as an NMI
 * or a BPF program on a tracepoint inside SLEB would: NULL at once, not a
 * deadlock.  With the lock free and an object in the queue, an object.
 */
static void test_kmalloc_nolock(struct kunit *test)
{
	struct kmem_cache *s = nolock_cache(test);
	void *p, *q;

	migrate_disable();
	p = kmalloc(64, GFP_KERNEL);
	if (!p) {
		migrate_enable();
		KUNIT_FAIL(test, "allocation failed");
		return;
	}
	/* Back into this CPU's queue. */
	kfree(p);
	local_lock(&s->cpu->lock);
	q = kmalloc_nolock(64, 0, NUMA_NO_NODE);
	local_unlock(&s->cpu->lock);
	KUNIT_EXPECT_NULL(test, q);
	kfree_nolock(q);
	q = kmalloc_nolock(64, __GFP_ZERO, NUMA_NO_NODE);
	migrate_enable();
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(q, 0, 64), NULL);
	kfree_nolock(q);
	/* The deferred free has run once the irq_work has. */
	deferred_work_barrier();
}

/* This CPU's count of @item in @s, or 0 without CONFIG_SLEB_STATS. */
static unsigned int this_cpu_stat(struct kmem_cache *s, enum sleb_stat_item item)
{
#ifdef CONFIG_SLEB_STATS
	return this_cpu_ptr(s->cpu)->stat[item];
#else
	return 0;
#endif
}

/*
 * What a context finds that interrupted the owner of its CPU's queue:
 * the lock taken.  Allocations and frees go beside the queue and leave it
 * as it was; kmalloc_nolock() fails and kfree_nolock() defers.  What is
 * seen under the lock is checked after it (a failed expectation allocates).
 */
static void test_queue_lock_taken(struct kunit *test)
{
	struct kmem_cache *s = nolock_cache(test);
	unsigned int cpu, before, allocated, freed, deferred;
	unsigned int alloc_unqueued, free_unqueued;
	void *p[4], *q, *r;
	bool bulk;

	p[0] = kmalloc(64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p[0]);
	migrate_disable();
	/* Objects in the queue: a path that ignored the lock would take them. */
	kfree(p[0]);
	r = kmalloc_nolock(64, 0, NUMA_NO_NODE);
	if (!r)
		migrate_enable();
	KUNIT_ASSERT_NOT_NULL(test, r);
	p[0] = kmalloc(64, GFP_KERNEL);
	kfree(p[0]);
	local_lock(&s->cpu->lock);
	cpu = smp_processor_id();
	before = sleb_test_cpu_queue_count(s, cpu);
	alloc_unqueued = this_cpu_stat(s, ALLOC_UNQUEUED);
	free_unqueued = this_cpu_stat(s, FREE_UNQUEUED);
	p[0] = kmalloc(64, GFP_ATOMIC);
	p[1] = kmalloc_node(64, GFP_ATOMIC, numa_mem_id());
	bulk = kmem_cache_alloc_bulk(s, GFP_ATOMIC, 2, &p[2]);
	q = kmalloc_nolock(64, 0, NUMA_NO_NODE);
	allocated = sleb_test_cpu_queue_count(s, cpu);
	alloc_unqueued = this_cpu_stat(s, ALLOC_UNQUEUED) - alloc_unqueued;
	kfree(p[0]);
	kfree(p[1]);
	if (bulk)
		kmem_cache_free_bulk(s, 2, &p[2]);
	freed = sleb_test_cpu_queue_count(s, cpu);
	free_unqueued = this_cpu_stat(s, FREE_UNQUEUED) - free_unqueued;
	/* Deferred: its irq_work may run at once, and finds the lock taken. */
	kfree_nolock(r);
	deferred = sleb_test_cpu_queue_count(s, cpu);
	local_unlock(&s->cpu->lock);
	migrate_enable();
	kfree_nolock(q);
	deferred_work_barrier();

	KUNIT_EXPECT_NOT_NULL(test, p[0]);
	KUNIT_EXPECT_NOT_NULL(test, p[1]);
	KUNIT_EXPECT_TRUE(test, bulk);
	KUNIT_EXPECT_NULL(test, q);
	KUNIT_EXPECT_EQ(test, allocated, before);
	KUNIT_EXPECT_EQ(test, freed, before);
	KUNIT_EXPECT_EQ(test, deferred, before);
	if (IS_ENABLED(CONFIG_SLEB_STATS)) {
		KUNIT_EXPECT_EQ(test, alloc_unqueued, 4U);
		/* KASAN's quarantine holds the frees back. */
		if (!IS_ENABLED(CONFIG_KASAN_GENERIC))
			KUNIT_EXPECT_EQ(test, free_unqueued, 4U);
	}
}

#ifndef CONFIG_PREEMPT_RT
struct irq_alloc {
	struct hrtimer timer;
	struct kmem_cache *s;
	void *object, *nolock;
	bool lock_taken;
	unsigned int before, during;
	bool fired;
};

static enum hrtimer_restart irq_alloc_fn(struct hrtimer *timer)
{
	struct irq_alloc *ia = container_of(timer, struct irq_alloc, timer);
	unsigned int cpu = smp_processor_id();

	ia->lock_taken = local_lock_is_locked(&ia->s->cpu->lock);
	ia->before = sleb_test_cpu_queue_count(ia->s, cpu);
	ia->object = kmalloc(64, GFP_ATOMIC);
	ia->nolock = kmalloc_nolock(64, 0, NUMA_NO_NODE);
	ia->during = sleb_test_cpu_queue_count(ia->s, cpu);
	kfree(ia->object);
	kfree_nolock(ia->nolock);
	WRITE_ONCE(ia->fired, true);
	return HRTIMER_NORESTART;
}

/* Fire the timer on this CPU, with the queue's lock held or not. */
static void irq_alloc_run(struct irq_alloc *ia, bool hold)
{
	unsigned long deadline = jiffies + 2 * HZ;

	WRITE_ONCE(ia->fired, false);
	if (hold)
		local_lock(&ia->s->cpu->lock);
	hrtimer_start(&ia->timer, us_to_ktime(100), HRTIMER_MODE_REL_PINNED_SOFT);
	while (!READ_ONCE(ia->fired) && time_before(jiffies, deadline))
		cpu_relax();
	if (hold)
		local_unlock(&ia->s->cpu->lock);
	hrtimer_cancel(&ia->timer);
}

/*
 * A softirq (a soft hrtimer, run on the hard interrupt's exit) that
 * allocates while the task it interrupted holds the queue's lock,
 * interrupts enabled: kmalloc() is served beside the queue, which stays
 * as it was, and kmalloc_nolock() gives up.  With the lock free, both
 * take the queue's objects.  Not a hard timer: lockdep rightly refuses a
 * spinlock_t (the node's locks, the page allocator's) in a hard interrupt
 * that cannot be threaded, whatever the allocator.
 */
static void test_irq_over_queue_owner(struct kunit *test)
{
	struct irq_alloc *ia = kunit_kzalloc(test, sizeof(*ia), GFP_KERNEL);
	void *p[2];

	KUNIT_ASSERT_NOT_NULL(test, ia);
	ia->s = nolock_cache(test);
	p[0] = kmalloc(64, GFP_KERNEL);
	p[1] = kmalloc(64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p[0]);
	KUNIT_ASSERT_NOT_NULL(test, p[1]);
	hrtimer_setup(&ia->timer, irq_alloc_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_SOFT);
	migrate_disable();
	/* Objects in the queue for either kind of allocation to take. */
	kfree(p[0]);
	kfree(p[1]);
	irq_alloc_run(ia, true);
	KUNIT_EXPECT_TRUE_MSG(test, READ_ONCE(ia->fired), "the timer did not fire");
	KUNIT_EXPECT_TRUE(test, ia->lock_taken);
	KUNIT_EXPECT_NOT_NULL(test, ia->object);
	KUNIT_EXPECT_NULL(test, ia->nolock);
	KUNIT_EXPECT_EQ(test, ia->during, ia->before);
	irq_alloc_run(ia, false);
	migrate_enable();
	deferred_work_barrier();
	KUNIT_EXPECT_TRUE_MSG(test, READ_ONCE(ia->fired), "the timer did not fire");
	KUNIT_EXPECT_FALSE(test, ia->lock_taken);
	KUNIT_EXPECT_NOT_NULL(test, ia->object);
	/* KASAN's quarantine kept p[] out of the queue: no count to expect. */
	if (IS_ENABLED(CONFIG_KASAN))
		return;
	KUNIT_EXPECT_NOT_NULL(test, ia->nolock);
	KUNIT_EXPECT_EQ(test, ia->during + 2, ia->before);
}
#endif

/*
 * Prefilled sheaves, as the maple tree uses them: reserve, allocate from
 * the reservation, grow it past its capacity, give back the rest.
 */
static void test_sheaf(struct kunit *test)
{
	struct kmem_cache *s = counted_cache(test, "TestSleb_sheaf");
	struct slab_sheaf *sheaf;
	void *p[8];
	unsigned int i, cap;

	KUNIT_EXPECT_NULL(test, kmem_cache_prefill_sheaf(s, GFP_KERNEL, 0));
	sheaf = kmem_cache_prefill_sheaf(s, GFP_KERNEL, 10);
	KUNIT_ASSERT_NOT_NULL(test, sheaf);
	KUNIT_EXPECT_GE(test, kmem_cache_sheaf_size(sheaf), 10U);
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		p[i] = kmem_cache_alloc_from_sheaf(s, GFP_KERNEL, sheaf);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		memset(p[i], 0xa5, TEST_SIZE);
	}
	KUNIT_EXPECT_EQ(test, in_use(s),
			(unsigned long)ARRAY_SIZE(p) + kmem_cache_sheaf_size(sheaf));
	cap = kmem_cache_sheaf_size(sheaf) + 1000;
	KUNIT_ASSERT_EQ(test, kmem_cache_refill_sheaf(s, GFP_KERNEL, &sheaf, cap), 0);
	KUNIT_EXPECT_GE(test, kmem_cache_sheaf_size(sheaf), cap);
	kmem_cache_return_sheaf(s, GFP_KERNEL, sheaf);
	KUNIT_EXPECT_EQ(test, in_use(s), (unsigned long)ARRAY_SIZE(p));
	for (i = 0; i < ARRAY_SIZE(p); i++)
		kmem_cache_free(s, p[i]);
	KUNIT_EXPECT_EQ(test, in_use(s), 0UL);
	kmem_cache_destroy(s);
}

/*
 * kmem_cache_args.sheaf_capacity, which the maple tree and the VMA cache
 * set for SLUB's sheaves, is the least queue a new cache gets; a smaller
 * one leaves the default.
 */
static void test_sheaf_capacity_hint(struct kunit *test)
{
	struct kmem_cache_args args = { .sheaf_capacity = 200 };
	unsigned int def = sleb_default_queue_size(TEST_SIZE);
	struct kmem_cache *s;

	KUNIT_ASSERT_LT(test, def, args.sheaf_capacity);
	s = kmem_cache_create("TestSleb_sheaf_cap", TEST_SIZE, &args, 0);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_EQ(test, s->cpu_queue_size, args.sheaf_capacity);
	KUNIT_EXPECT_EQ(test, s->cpu_batch_size, sleb_default_batch(args.sheaf_capacity));
	kmem_cache_destroy(s);

	args.sheaf_capacity = 4;
	s = kmem_cache_create("TestSleb_sheaf_cap", TEST_SIZE, &args, 0);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_EQ(test, s->cpu_queue_size, def);
	kmem_cache_destroy(s);
}

/* krealloc() keeps an object that is big enough and keeps the contents of one that is not. */
static void test_krealloc(struct kunit *test)
{
	char *p = kmalloc(40, GFP_KERNEL), *q;

	KUNIT_ASSERT_NOT_NULL(test, p);
	if (is_kfence_address(p)) {
		kfree(p);
		kunit_skip(test, "KFENCE took the object: its size is exact");
	}
	KUNIT_EXPECT_GE(test, ksize(p), (size_t)40);
	memset(p, 0x5a, 40);
	q = krealloc(p, 64, GFP_KERNEL);
	KUNIT_ASSERT_PTR_EQ(test, q, p);
	p = krealloc(q, 300, GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_NE(test, (unsigned long)p, (unsigned long)q);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(p, 0x5a, 40), NULL);
	KUNIT_EXPECT_GE(test, ksize(p), (size_t)300);
	kfree(p);
}

static struct kunit_case sleb_test_cases[] = {
	KUNIT_CASE(test_layout_fits),
	KUNIT_CASE(test_layout_maximal),
	KUNIT_CASE(test_layout_placement),
	KUNIT_CASE(test_map_take_put),
	KUNIT_CASE(test_map_bad_put),
	KUNIT_CASE(test_tunables_range),
	KUNIT_CASE(test_queue_counts),
	KUNIT_CASE(test_queue_counts_shared),
	KUNIT_CASE(test_object_untouched),
	KUNIT_CASE(test_bulk),
	KUNIT_CASE(test_shrink),
	KUNIT_CASE(test_count_partial),
	KUNIT_CASE(test_count_without_list_lock),
	KUNIT_CASE(test_alloc_node),
	KUNIT_CASE(test_remote_free_routing),
	KUNIT_CASE(test_pfmemalloc_kept),
	KUNIT_CASE(test_fallback_growth),
	KUNIT_CASE(test_orphan_node_reaped),
	KUNIT_CASE(test_dead_cpu_flushed),
	KUNIT_CASE(test_node_memory_lost),
	KUNIT_CASE(test_home_needs_normal_memory),
	KUNIT_CASE(test_resize_under_load),
	KUNIT_CASE(test_resize_races),
	KUNIT_CASE(test_new_slab_vs_shrink),
	KUNIT_CASE(test_reap),
	KUNIT_CASE(test_reaper_leaves_isolated_cpus),
	KUNIT_CASE(test_reaper_rearms_lost_pass),
	KUNIT_CASE(test_shrinker_scan),
	KUNIT_CASE(test_hardened_double_free),
	KUNIT_CASE(test_double_free_of_last_object),
	KUNIT_CASE(test_merged_name_reused),
	KUNIT_CASE(test_kmalloc_nolock),
	KUNIT_CASE(test_queue_lock_taken),
#ifndef CONFIG_PREEMPT_RT
	KUNIT_CASE(test_irq_over_queue_owner),
#endif
	KUNIT_CASE(test_sheaf),
	KUNIT_CASE(test_sheaf_capacity_hint),
	KUNIT_CASE(test_krealloc),
	{}
};

static struct kunit_suite sleb_test_suite = {
	.name = "sleb",
	.test_cases = sleb_test_cases,
};

#ifdef CONFIG_SLEB_DEBUG

/* === Debugging =========================================================== */

/*
 * As lib/slub_kunit.c: with a "slab_errors" resource, SLEB counts each
 * problem it finds here instead of printing a report.
 */
static struct kunit_resource errors_resource;
static int slab_errors;

static int debug_test_init(struct kunit *test)
{
	slab_errors = 0;
	kunit_add_named_resource(test, NULL, NULL, &errors_resource,
				 "slab_errors", &slab_errors);
	return 0;
}

/* Write into memory KASAN guards, as a buggy user would. */
static void corrupt(u8 *p, u8 value)
{
	kasan_disable_current();
	*p = value;
	kasan_enable_current();
}

static void test_debug_layout(struct kunit *test)
{
	struct kmem_cache *s = create_test_cache(test, "TestSleb_layout",
						 SLAB_RED_ZONE | SLAB_STORE_USER);

	KUNIT_EXPECT_EQ(test, s->red_left_pad, (unsigned int)sizeof(void *));
	KUNIT_EXPECT_GE(test, s->inuse, TEST_SIZE + (unsigned int)sizeof(void *));
	KUNIT_EXPECT_GE(test, s->size, s->red_left_pad + s->inuse + 3 * (unsigned int)sizeof(long));
	KUNIT_EXPECT_EQ(test, s->size % s->align, 0U);
	kmem_cache_destroy(s);
}

static void test_debug_right_redzone(struct kunit *test)
{
	struct kmem_cache *s = create_test_cache(test, "TestSleb_RZ_right", SLAB_RED_ZONE);
	u8 *p = kmem_cache_alloc(s, GFP_KERNEL);

	corrupt(p + TEST_SIZE, 0x12);
	KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 1L);
	KUNIT_EXPECT_EQ(test, slab_errors, 1);
	/* The report restored the red zone. */
	KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 0L);
	kmem_cache_free(s, p);
	KUNIT_EXPECT_EQ(test, slab_errors, 1);
	kmem_cache_destroy(s);
}

static void test_debug_left_redzone(struct kunit *test)
{
	struct kmem_cache *s = create_test_cache(test, "TestSleb_RZ_left", SLAB_RED_ZONE);
	u8 *p = kmem_cache_alloc(s, GFP_KERNEL);

	corrupt(p - 1, 0x12);
	/* The free finds it. */
	kmem_cache_free(s, p);
	KUNIT_EXPECT_EQ(test, slab_errors, 1);
	KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 0L);
	KUNIT_EXPECT_EQ(test, slab_errors, 1);
	kmem_cache_destroy(s);
}

static void test_debug_poison_validate(struct kunit *test)
{
	struct kmem_cache *s;
	u8 *p;

	if (IS_ENABLED(CONFIG_KASAN))
		kunit_skip(test, "SLEB leaves freed objects to KASAN (no poisoning)");
	s = create_test_cache(test, "TestSleb_poison_val", SLAB_POISON);
	p = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, p);
	/* A write after free, while the object sits in the per-cpu queue. */
	corrupt(p + 16, 0x12);
	KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 1L);
	KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 0L);
	KUNIT_EXPECT_EQ(test, slab_errors, 1);
	kmem_cache_destroy(s);
}

static void test_debug_poison_alloc(struct kunit *test)
{
	struct kmem_cache *s;
	u8 *p, *q;

	if (IS_ENABLED(CONFIG_KASAN))
		kunit_skip(test, "SLEB leaves freed objects to KASAN (no poisoning)");
	s = create_test_cache(test, "TestSleb_poison_alloc", SLAB_POISON);
	/* The queue is LIFO: the next allocation is p, and finds it written. */
	migrate_disable();
	p = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, p);
	corrupt(p + TEST_SIZE - 1, 0x12);
	q = kmem_cache_alloc(s, GFP_KERNEL);
	migrate_enable();
	KUNIT_EXPECT_PTR_EQ(test, q, p);
	KUNIT_EXPECT_EQ(test, slab_errors, 1);
	kmem_cache_free(s, q);
	KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 0L);
	KUNIT_EXPECT_EQ(test, slab_errors, 1);
	kmem_cache_destroy(s);
}

static void test_debug_bitmap(struct kunit *test)
{
	struct kmem_cache *s = create_test_cache(test, "TestSleb_bitmap", SLAB_CONSISTENCY_CHECKS);
	void *p = kmem_cache_alloc(s, GFP_KERNEL);
	struct slab *slab = virt_to_slab(p);
	unsigned int idx = (p - slab_base(s, slab)) / s->size;

	/* Queues flushed first: nothing else is in flight. */
	KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 0L);
	set_bit(idx, slab_map(slab));
	KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 1L);
	clear_bit(idx, slab_map(slab));
	KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 0L);
	KUNIT_EXPECT_EQ(test, slab_errors, 1);
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
}

/*
 * A slab on the wrong node list is one problem: the node's counts, which
 * the walk cannot match without it, are not reported as a second one.
 */
static void test_debug_misplaced_slab(struct kunit *test)
{
	struct kmem_cache *s = create_test_cache(test, "TestSleb_misplaced",
						 SLAB_CONSISTENCY_CHECKS);
	void *p = kmem_cache_alloc(s, GFP_KERNEL);
	struct slab *slab = virt_to_slab(p);
	enum sleb_slab_list list;

	/* Queues flushed: the slab is partial, nothing else is in flight. */
	KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 0L);
	list = slab->list;
	KUNIT_EXPECT_EQ(test, list, SLEB_LIST_PARTIAL);
	slab->list = SLEB_LIST_FULL;
	KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 1L);
	KUNIT_EXPECT_EQ(test, slab_errors, 1);
	slab->list = list;
	KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 0L);
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
}

/*
 * A problem with an object's patterns does not hide one of another kind:
 * an overwritten red zone on a node whose free count is off by one is
 * two reports.  (A problem of the bitmap does explain the free count.)
 */
static void test_debug_problems_apart(struct kunit *test)
{
	struct kmem_cache *s = create_test_cache(test, "TestSleb_apart", SLAB_RED_ZONE);
	u8 *p = kmem_cache_alloc(s, GFP_KERNEL);
	struct kmem_cache_node *n = get_node(s, slab_nid(virt_to_slab(p)));
	unsigned long flags;

	/* Queues flushed: nothing else is in flight. */
	KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 0L);
	corrupt(p + TEST_SIZE, 0x12);
	spin_lock_irqsave(&n->list_lock, flags);
	n->free_objects++;
	spin_unlock_irqrestore(&n->list_lock, flags);
	KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 2L);
	KUNIT_EXPECT_EQ(test, slab_errors, 2);
	spin_lock_irqsave(&n->list_lock, flags);
	n->free_objects--;
	spin_unlock_irqrestore(&n->list_lock, flags);
	KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 0L);
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
}

/*
 * A red-zoned slab whose bitmap is at its end keeps a guard between the
 * last object and the bitmap: a write just past the last object is found
 * by validate and leaves the bitmap as it was.  A bit set past the last
 * object is found too.  8-byte objects: more than BITS_PER_LONG a slab.
 */
static void test_debug_bitmap_guard(struct kunit *test)
{
	struct kmem_cache *s = kmem_cache_create("TestSleb_guard", 8, 0,
						 SLAB_RED_ZONE | SLAB_NO_USER_FLAGS, NULL);
	unsigned long map[2];
	unsigned int bits;
	struct slab *slab;
	u8 *start;
	void *p;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->flags |= SLAB_SKIP_KFENCE;
	p = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	slab = virt_to_slab(p);
	bits = slab->objects;
	if (sleb_map_in_struct(bits)) {
		/* KASAN's metadata makes the objects too big for that. */
		kmem_cache_free(s, p);
		kmem_cache_destroy(s);
		kunit_skip(test, "%u objects a slab: the bitmap is in struct slab", bits);
	}
	KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 0L);

	start = slab_address(slab) + slab->objects * s->size;
	KUNIT_EXPECT_GE(test, (u8 *)slab->free_map_ext - start, (long)sizeof(long));
	memcpy(map, slab_map(slab), sizeof(map));
	corrupt(start, 0x12);
	KUNIT_EXPECT_EQ(test, memcmp(map, slab_map(slab), sizeof(map)), 0);
	KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 1L);
	KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 0L);

	bits = sleb_map_words(slab->objects) * BITS_PER_LONG;
	if (bits > slab->objects) {
		set_bit(bits - 1, slab_map(slab));
		KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 1L);
		KUNIT_EXPECT_FALSE(test, test_bit(bits - 1, slab_map(slab)));
	}
	KUNIT_EXPECT_EQ(test, slab_errors, bits > slab->objects ? 2 : 1);
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
}

#define SLAB_PAIR_TRIES 8

/*
 * Allocate two objects of @s that lie in one slab.  Two allocations in a
 * row need not: KFENCE may sample one of them, or the queue's refill may
 * have crossed into a second slab.  The pairs tried are freed again.
 */
static bool alloc_slab_pair(struct kmem_cache *s, void **a, void **b)
{
	void *tried[2 * SLAB_PAIR_TRIES];
	bool found = false;
	int i, n = 0;

	migrate_disable();
	for (i = 0; i < SLAB_PAIR_TRIES && !found; i++) {
		*a = kmem_cache_alloc(s, GFP_KERNEL);
		*b = kmem_cache_alloc(s, GFP_KERNEL);
		found = *a && *b && virt_to_slab(*a) == virt_to_slab(*b);
		if (!found) {
			tried[n++] = *a;
			tried[n++] = *b;
		}
	}
	migrate_enable();
	while (n--)
		if (tried[n])
			kmem_cache_free(s, tried[n]);
	return found;
}

static void test_debug_double_free(struct kunit *test)
{
	struct kmem_cache *s = create_test_cache(test, "TestSleb_double", SLAB_CONSISTENCY_CHECKS);
	void *keep, *p, *q, *r;

	/* keep holds the slab alive across the shrink below. */
	if (!alloc_slab_pair(s, &keep, &p)) {
		kmem_cache_destroy(s);
		KUNIT_FAIL(test, "no two objects in one slab in %d tries", SLAB_PAIR_TRIES);
		return;
	}
	kmem_cache_free(s, p);
	/* p sits in the per-cpu queue: only the state word knows. */
	kmem_cache_free(s, p);
	KUNIT_EXPECT_EQ(test, slab_errors, 1);
	/* Back in its slab: a third free is caught the same way. */
	kmem_cache_shrink(s);
	kmem_cache_free(s, p);
	KUNIT_EXPECT_EQ(test, slab_errors, 2);
	/* Never handed out twice. */
	q = kmem_cache_alloc(s, GFP_KERNEL);
	r = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_EXPECT_PTR_NE(test, q, r);
	kmem_cache_free(s, q);
	kmem_cache_free(s, r);
	kmem_cache_free(s, keep);
	KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 0L);
	KUNIT_EXPECT_EQ(test, slab_errors, 2);
	kmem_cache_destroy(s);
}

/*
 * With CONFIG_SLAB_FREELIST_HARDENED, kmem_cache_free() checks the cache of
 * a pointer itself, with a warning, before SLEB's debugging sees it.
 */
static void skip_if_hardened(struct kunit *test)
{
	if (IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED))
		kunit_skip(test, "CONFIG_SLAB_FREELIST_HARDENED checks bad pointers first");
}

static void test_debug_bad_pointers(struct kunit *test)
{
	struct kmem_cache *s, *t;
	struct page *page;
	u8 *p;

	skip_if_hardened(test);
	s = create_test_cache(test, "TestSleb_bad", SLAB_CONSISTENCY_CHECKS);
	t = create_test_cache(test, "TestSleb_bad_other", SLAB_CONSISTENCY_CHECKS);
	page = alloc_page(GFP_KERNEL);
	p = kmem_cache_alloc(s, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, page);
	kmem_cache_free(s, p + 1);
	KUNIT_EXPECT_EQ(test, slab_errors, 1);
	kmem_cache_free(t, p);
	KUNIT_EXPECT_EQ(test, slab_errors, 2);
	kmem_cache_free(s, page_address(page));
	KUNIT_EXPECT_EQ(test, slab_errors, 3);
	/* None of them freed anything: p is still in use, once. */
	KUNIT_EXPECT_EQ(test, in_use(s), 1UL);
	kmem_cache_free(s, p);
	if (!IS_ENABLED(CONFIG_KASAN))
		KUNIT_EXPECT_EQ(test, in_use(s), 0UL);
	KUNIT_EXPECT_EQ(test, slab_errors, 3);
	__free_page(page);
	kmem_cache_destroy(t);
	kmem_cache_destroy(s);
}

/*
 * A cache without consistency checks still writes an object's metadata on
 * free: the pointer must be known to be its object first.
 */
static void test_debug_free_non_slab(struct kunit *test)
{
	struct kmem_cache *s;
	struct page *page;

	skip_if_hardened(test);
	s = create_test_cache(test, "TestSleb_nonslab", SLAB_POISON);
	page = alloc_page(GFP_KERNEL | __GFP_ZERO);

	KUNIT_ASSERT_NOT_NULL(test, page);
	kmem_cache_free(s, page_address(page));
	KUNIT_EXPECT_EQ(test, slab_errors, 1);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(page_address(page), 0, PAGE_SIZE), NULL);
	__free_page(page);
	kmem_cache_destroy(s);
}

#if IS_BUILTIN(CONFIG_SLEB_KUNIT_TEST) && defined(CONFIG_PRINTK) && defined(CONFIG_STACKDEPOT)
/*
 * Whether @ret lies in the first 256 bytes of @fn.  The end is computed at
 * run time: as a constant it would be a relocation into the next function,
 * which objtool reports.
 */
static bool in_function(void *ret, void *fn)
{
	unsigned long start = (unsigned long)fn;

	OPTIMIZER_HIDE_VAR(start);
	return (unsigned long)ret >= start && (unsigned long)ret < start + 256;
}

static noinline void *tracked_bulk(struct kmem_cache *s)
{
	void *p = NULL;

	if (!kmem_cache_alloc_bulk(s, GFP_KERNEL, 1, &p))
		return NULL;
	OPTIMIZER_HIDE_VAR(p);
	return p;
}

/* An object of a bulk allocation records the bulk allocation's caller. */
static void test_debug_bulk_tracking(struct kunit *test)
{
	struct kmem_cache *s = create_test_cache(test, "TestSleb_bulk_track", SLAB_STORE_USER);
	struct kmem_obj_info info = {};
	void *p = tracked_bulk(s);

	KUNIT_ASSERT_NOT_NULL(test, p);
	__kmem_obj_info(&info, p, virt_to_slab(p));
	KUNIT_EXPECT_TRUE_MSG(test, in_function(info.kp_ret, tracked_bulk),
			      "allocated by %pS", info.kp_ret);
	kmem_cache_free(s, p);
	kmem_cache_destroy(s);
}

static noinline void *tracked_alloc(struct kmem_cache *s)
{
	void *p = kmem_cache_alloc(s, GFP_KERNEL);

	/* Not a tail call: the caller recorded must be this function. */
	OPTIMIZER_HIDE_VAR(p);
	return p;
}

static void test_debug_tracking(struct kunit *test)
{
	struct kmem_cache *s = create_test_cache(test, "TestSleb_track", SLAB_STORE_USER);
	struct kmem_obj_info info = {};
	void *p = tracked_alloc(s);

	__kmem_obj_info(&info, p, virt_to_slab(p));
	KUNIT_EXPECT_PTR_EQ(test, info.kp_objp, p);
	KUNIT_EXPECT_TRUE(test, in_function(info.kp_ret, tracked_alloc));
	KUNIT_EXPECT_NOT_NULL(test, info.kp_stack[0]);
	KUNIT_EXPECT_NULL(test, info.kp_free_stack[0]);
	kmem_cache_free(s, p);
	memset(&info, 0, sizeof(info));
	__kmem_obj_info(&info, p, virt_to_slab(p));
	KUNIT_EXPECT_NOT_NULL(test, info.kp_free_stack[0]);
	kmem_cache_destroy(s);
}
#endif

/* Validation of busy caches finds nothing: no false positives. */
static void test_debug_validate_kmalloc(struct kunit *test)
{
	unsigned int i;

	for (i = KMALLOC_SHIFT_LOW; i <= KMALLOC_SHIFT_HIGH; i++) {
		struct kmem_cache *s = kmalloc_caches[KMALLOC_NORMAL][i];

		if (s)
			KUNIT_EXPECT_EQ_MSG(test, sleb_validate_cache(s), 0L, "%s", s->name);
	}
	KUNIT_EXPECT_EQ(test, slab_errors, 0);
}

/*
 * An object smaller than KASAN's free metadata: generic KASAN may let that
 * metadata run past the object only while no allocator debugging follows
 * the object.  With the state word right behind an 8-byte object, a free
 * (held in KASAN's quarantine, then let go by the shrink) must leave it as
 * SLEB wrote it, or the next allocation reports it overwritten.
 */
static void test_debug_small_kasan(struct kunit *test)
{
	struct kmem_cache *s = kmem_cache_create("TestSleb_small", 8, 0,
						 SLAB_CONSISTENCY_CHECKS | SLAB_NO_USER_FLAGS,
						 NULL);
	void *p[16];
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->flags |= SLAB_SKIP_KFENCE;
	for (i = 0; i < ARRAY_SIZE(p); i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	for (i = 0; i < ARRAY_SIZE(p); i++)
		kmem_cache_free(s, p[i]);
	kmem_cache_shrink(s);
	KUNIT_EXPECT_EQ(test, sleb_validate_cache(s), 0L);
	for (i = 0; i < ARRAY_SIZE(p); i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	for (i = 0; i < ARRAY_SIZE(p); i++)
		kmem_cache_free(s, p[i]);
	KUNIT_EXPECT_EQ(test, slab_errors, 0);
	kmem_cache_destroy(s);
}

static struct kunit_case sleb_debug_test_cases[] = {
	KUNIT_CASE(test_debug_layout),
	KUNIT_CASE(test_debug_right_redzone),
	KUNIT_CASE(test_debug_left_redzone),
	KUNIT_CASE(test_debug_poison_validate),
	KUNIT_CASE(test_debug_poison_alloc),
	KUNIT_CASE(test_debug_bitmap),
	KUNIT_CASE(test_debug_misplaced_slab),
	KUNIT_CASE(test_debug_problems_apart),
	KUNIT_CASE(test_debug_bitmap_guard),
	KUNIT_CASE(test_debug_double_free),
	KUNIT_CASE(test_debug_bad_pointers),
	KUNIT_CASE(test_debug_free_non_slab),
#if IS_BUILTIN(CONFIG_SLEB_KUNIT_TEST) && defined(CONFIG_PRINTK) && defined(CONFIG_STACKDEPOT)
	KUNIT_CASE(test_debug_bulk_tracking),
	KUNIT_CASE(test_debug_tracking),
#endif
	KUNIT_CASE(test_debug_small_kasan),
	KUNIT_CASE(test_debug_validate_kmalloc),
	{}
};

static struct kunit_suite sleb_debug_test_suite = {
	.name = "sleb_debug",
	.init = debug_test_init,
	.test_cases = sleb_debug_test_cases,
};

kunit_test_suites(&sleb_test_suite, &sleb_debug_test_suite);
#else
kunit_test_suite(sleb_test_suite);
#endif

MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * SLEB: the Enhanced Slab Allocator.
 *
 * SLUB's structure (per-node partial lists, sysfs, merging) with SLAB's
 * per-cpu object queues and per-node shared arrays, after Christoph
 * Lameter's RFC of May 2010.  Free objects are tracked by a bitmap per
 * slab (mm/sleb_map.h), so the allocator never reads or writes an object
 * to manage it: a cache-cold object is freed and allocated again without
 * a cache miss on it.
 *
 * Allocation pops the newest object of the CPU's queue.  An empty queue is
 * refilled with a batch: from the node's shared array first, then from
 * partial slabs, then from a new slab.  A full queue drains its oldest
 * batch into the shared array, and what does not fit there into the slabs.
 * A per-cpu queue holds objects of the CPU's home node only (its node, or
 * the nearest with memory for a CPU of a memoryless node): an object of
 * another node is freed into that node's shared array (or its slab), and a
 * request for another node is served from that node's shared array or
 * slabs without touching the queue.  As in SLAB, a task's memory policy
 * turns a request without a node into a request for the node it picks.  Every
 * CPU but the isolated ones gives back a fifth of its idle queues and of its
 * node's idle shared arrays every two seconds, and under memory pressure a
 * shrinker gives back as many as reclaim asks of the node under pressure.
 *
 * SLEB serves the whole slab interface: kmem_cache_alloc() and kmalloc()
 * with their bulk, node and bucket variants, krealloc(), ksize(), and the
 * prefilled sheaves of the maple tree (arrays of objects taken from the
 * queues ahead of time).  kmalloc_nolock() and kfree_nolock() use the
 * queue when its lock can be had without waiting: kmalloc_nolock() fails
 * otherwise, or when the queue is empty, which its callers expect;
 * kfree_nolock() and kvfree_rcu() from a context that may not take locks
 * then go through a per-cpu list and an irq_work.  The hooks every
 * allocator runs (memcg, allocation profiling, KASAN, KFENCE, KMSAN,
 * kmemleak) are the shared ones of mm/slab.h.
 *
 * Lock order:
 *   1. cpu_hotplug_lock (read side: resizing and flushing queues)
 *   2. mem_hotplug_lock (held around the memory hotplug notifier)
 *   3. slab_mutex (global, mm/slab_common.c)
 *   4. sleb_flush_mutex (the per-cpu flush work items)
 *   5. sleb_cpu->lock (local_trylock_t, interrupts enabled)
 *   6. kmem_cache_node->shared_lock
 *   7. kmem_cache_node->list_lock
 *
 * cpu_hotplug_lock and slab_mutex serialise the changes of the queues
 * themselves: resizing (sysfs, /proc/slabinfo), flushing a dead CPU's
 * queue, creating and destroying caches.  They also keep the queues alive
 * while sysfs and /proc/slabinfo count the objects in them.  Old queues
 * and shared arrays are freed after an RCU grace period, so that a look
 * at their count under rcu_read_lock() (or with preemption disabled) is
 * safe.
 *
 * sleb_flush_mutex protects the per-cpu work items that empty queues on
 * their own CPUs (kmem_cache_shrink(), destroy, the shrinker, a change
 * of home node).  The work items take locks 5 to 7 and never wait for 1
 * to 4; the shrinker's only try-locks slab_mutex.
 *
 * The reaper and the shrinker walk the caches under slab_mutex, which they
 * only try to take (the shrinker also cpu_hotplug_lock, as the first
 * reaper does to queue other CPUs' passes): reclaim can run inside
 * kmem_cache_create() or a CPU hotplug operation, and CPU hotplug waits
 * for a reap pass with cpu_hotplug_lock held.
 *
 * sleb_cpu->lock protects a CPU's queue, its contents, its home node and
 * its touched flag.  It is a local_trylock_t, as SLUB's sheaves: taking
 * it disables preemption (on PREEMPT_RT, migration), not interrupts.  The
 * allocation and free paths only try it; it fails when they interrupted
 * its owner on this CPU (or, on PREEMPT_RT, a task preempted on this CPU
 * owns it), and the request then goes to the node's shared array and
 * slabs beside the queue (alloc_unqueued(), free_unqueued()).  Work items
 * take it outright.  The queue pointer is only replaced on its own CPU,
 * from a work item, which is why a queue can be resized while the cache
 * is in use.  Whoever drops the lock to allocate a slab tries it again
 * afterwards and reloads the queue, or goes on without it.
 *
 * kmem_cache_node->shared_lock protects the node's shared array pointer,
 * contents and touched flag.  The shared array of node N holds objects of
 * node N only.  Its next reap time changes by cmpxchg, without a lock.
 *
 * kmem_cache_node->list_lock protects the node's partial and full lists,
 * its counters, and the free bitmaps of all the node's slabs.  Moving a
 * batch takes it once per node and walks runs of objects of a slab.
 * Counting reads the counters without it.
 *
 * Locks 6 and 7 are always taken with interrupts disabled: an interrupt
 * that finds lock 5 taken comes to them directly.
 *
 * No slab is given back to the page allocator under locks 5 to 7:
 * releasing a slab frees its objcg vector with kfree(), which may land in
 * the very queue or shared array being drained.  The paths that empty
 * slabs collect them on a list and release them once every lock is
 * dropped (sleb_discard_list()).  SLEB's own flushes of other CPUs'
 * queues run in work items, not in IPIs: no slab is released in an
 * interrupted task's name.
 */

#include <linux/bitmap.h>
#include <linux/cpu.h>
#include <linux/cpuset.h>
#include <linux/debugobjects.h>
#include <linux/irq_work.h>
#include <linux/kasan.h>
#include <linux/kernfs.h>
#include <linux/kfence.h>
#include <linux/kmemleak.h>
#include <linux/kmsan.h>
#include <linux/llist.h>
#include <linux/memcontrol.h>
#include <linux/memory.h>
#include <linux/memory_hotplug.h>
#include <linux/mempolicy.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched/isolation.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/uaccess.h>
#include <trace/events/kmem.h>
#include <kunit/visibility.h>

#include "internal.h"
#include "page_alloc.h"
#include "sleb.h"

/* === Data ================================================================ */

/*
 * Nodes with memory: the nodes every cache has a kmem_cache_node for.  At
 * boot the nodes with memory, as in SLUB; the node hotplug notifier adds a
 * node that gets its first memory and removes one that loses its last,
 * under slab_mutex.  A node with ZONE_MOVABLE memory only holds no slab
 * and is no CPU's home, but it is in: it can get normal memory without a
 * node event (a memory block onlined as kernel memory), and the page
 * allocator may place a slab there at once.
 */
static nodemask_t sleb_nodes __read_mostly;

/*
 * The node whose objects a CPU's queues hold, its home node: the CPU's own
 * node, or for a CPU of a node without normal memory (x86 keeps CPUs on
 * memoryless nodes, so numa_mem_id() is no help) the nearest node with
 * some.  Each queue keeps its own copy (sleb_cpu->home), changed under its
 * lock; this one is for the caches to come and for requests that bypass
 * the queue.
 */
static DEFINE_PER_CPU(int, sleb_home_node);

static inline int home_node(void)
{
	return this_cpu_read(sleb_home_node);
}

/* Queue of capacity 0 that every CPU uses until kmalloc works; never written. */
static struct sleb_array sleb_boot_queue;

/* Limits of the tunables. */
#define SLEB_QUEUE_MIN		4
#define SLEB_QUEUE_MAX		10000
#define SLEB_SHARED_MAX		10000

/* Partial slabs kept per node, empty or not (as SLUB's MIN/MAX_PARTIAL). */
#define SLEB_MIN_PARTIAL	5
#define SLEB_MAX_PARTIAL	10

/* Highest order tried for a slab, and how many objects it should hold. */
#define SLEB_MAX_ORDER		PAGE_ALLOC_COSTLY_ORDER
#define SLEB_MIN_OBJECTS	16

/* The cache of struct kmem_cache_node, the first cache set up. */
static struct kmem_cache *kmem_cache_node;

/* The boot caches: statically allocated, never destroyed. */
static struct kmem_cache sleb_boot_kmem_cache;
static struct kmem_cache sleb_boot_kmem_cache_node;

/* === Statistics ========================================================== */

static inline void stat(struct kmem_cache *s, enum sleb_stat_item item)
{
#ifdef CONFIG_SLEB_STATS
	this_cpu_inc(s->cpu->stat[item]);
#endif
}

/* === Slab pages ========================================================== */

static void sleb_run_ctor(struct kmem_cache *s, void *object)
{
	kasan_unpoison_new_object(s, object);
	s->ctor(object);
	kasan_poison_new_object(s, object);
}

static void sleb_init_slab(struct kmem_cache *s, struct slab *slab,
			   const struct sleb_order_objects *oo)
{
	void *base = slab_address(slab);
	unsigned int i;

	slab->slab_cache = s;
	slab->objects = oo->objects;
	slab->list = SLEB_LIST_NONE;
	slab->obj_exts_in_object = 0;
	slab->obj_exts_needs_objcg = cache_needs_objcg(s);
	if (!sleb_map_in_struct(oo->objects))
		slab->free_map_ext = base + sleb_map_offset(oo->objects, oo->order);
	sleb_map_init(slab_map(slab), oo->objects);

	kasan_poison_slab(slab);
	/* The bitmap at the end of the slab is SLEB's, not an object's. */
	if (!sleb_map_in_struct(oo->objects))
		kasan_unpoison_range(slab->free_map_ext,
				     BITS_TO_LONGS(oo->objects) * sizeof(long));
	if (sleb_debug_cache(s))
		sleb_debug_init_slab(s, slab);
	if (!IS_ENABLED(CONFIG_KASAN) && likely(!s->ctor))
		return;
	for (i = 0; i < oo->objects; i++) {
		/* KASAN's per-object metadata; the object is unchanged. */
		void *object = kasan_init_slab_obj(s, slab_object(s, slab, i));

		if (s->ctor)
			sleb_run_ctor(s, object);
	}
}

/* Slab pages are frozen: their refcount stays 0 while they are slabs. */
static struct page *sleb_alloc_pages(gfp_t gfp, int node, unsigned int order)
{
	if (node == NUMA_NO_NODE)
		return alloc_frozen_pages(gfp, order);
	return __alloc_frozen_pages(gfp, order, node, NULL, ALLOC_DEFAULT);
}

/*
 * Allocate a slab with the preferred geometry, or the minimal one when
 * memory is fragmented.  Called with interrupts enabled if @gfp allows.
 */
static struct slab *sleb_new_slab(struct kmem_cache *s, gfp_t gfp, int node)
{
	const struct sleb_order_objects *oo = &s->oo;
	struct page *page;
	struct slab *slab;
	gfp_t flags;

	if (unlikely(gfp & GFP_SLAB_BUG_MASK))
		gfp = kmalloc_fix_flags(gfp);
	/*
	 * Only how to reclaim and where to place come from the caller: the
	 * pages must not be charged to a memcg (__GFP_ACCOUNT: memcg_data
	 * would say "kmem page" where objcg vectors go) nor zeroed.
	 */
	gfp &= gfp_allowed_mask;
	flags = (gfp & (GFP_RECLAIM_MASK | GFP_CONSTRAINT_MASK)) | s->allocflags;

	/*
	 * The preferred order may fail quietly, and is not worth reclaim or
	 * the reserves; the minimal one may not fail so easily.
	 */
	page = NULL;
	if (oo->order > s->min.order) {
		gfp_t try = (flags | __GFP_NOWARN | __GFP_NORETRY) & ~__GFP_NOFAIL;

		if (try & __GFP_DIRECT_RECLAIM)
			try = (try | __GFP_NOMEMALLOC) & ~__GFP_RECLAIM;
		page = sleb_alloc_pages(try, node, oo->order);
	}
	if (!page) {
		if (oo->order > s->min.order)
			stat(s, ORDER_FALLBACK);
		oo = &s->min;
		page = sleb_alloc_pages(flags, node, oo->order);
		if (!page)
			return NULL;
	}

	__SetPageSlab(page);
	slab = page_slab(page);
	if (page_is_pfmemalloc(page))
		slab_set_pfmemalloc(slab);
	/* The objcg vector is sized by slab->objects, set up here. */
	sleb_init_slab(s, slab, oo);
	init_slab_obj_exts(slab);
	account_slab(slab, oo->order, s, flags, SLAB_ALLOC_DEFAULT);
	stat(s, SLAB_ALLOC);
	return slab;
}

static void sleb_release_pages(struct kmem_cache *s, struct slab *slab)
{
	struct page *page = slab_page(slab);
	int order = compound_order(page);

	__slab_clear_pfmemalloc(slab);
	/* page->mapping overlays slab_list.prev: the page allocator checks it. */
	page->mapping = NULL;
	__ClearPageSlab(page);
	mm_account_reclaimed_pages(1 << order);
	unaccount_slab(slab, order, s, true);
	free_frozen_pages(page, order);
}

static void sleb_release_rcu(struct rcu_head *h)
{
	struct slab *slab = container_of(h, struct slab, rcu_head);

	sleb_release_pages(slab->slab_cache, slab);
}

/* Give a slab, no longer on any list, back to the page allocator. */
static void sleb_discard_slab(struct slab *slab)
{
	struct kmem_cache *s = slab->slab_cache;

	stat(s, SLAB_FREE);
	if (unlikely(s->flags & SLAB_TYPESAFE_BY_RCU))
		call_rcu(&slab->rcu_head, sleb_release_rcu);
	else
		sleb_release_pages(s, slab);
}

/*
 * Release the slabs collected on @discard, of any cache.  No SLEB lock may
 * be held: the release can free into any cache, this one included.
 */
static void sleb_discard_list(struct list_head *discard)
{
	struct slab *slab, *next;

	list_for_each_entry_safe(slab, next, discard, slab_list)
		sleb_discard_slab(slab);
}

/* === Node lists ========================================================== */

/* The lists and their counters are in mm/sleb_node.h. */

#ifdef CONFIG_SLAB_FREELIST_RANDOM
/*
 * Take up to @max objects from a slab fresh from sleb_new_slab() in the
 * cache's random order, starting at a random place of the sequence, so
 * that the layout of consecutive allocations is hard to predict.  The
 * slab is on no list yet: nobody else sees its bitmap.
 */
static unsigned int new_slab_take(struct kmem_cache *s, struct slab *slab, void **dst,
				  unsigned int max)
{
	unsigned long *map = slab_map(slab);
	unsigned int objects = slab->objects;
	unsigned int pos, i, got = 0;

	if (!s->random_seq || objects != s->oo.objects)
		return sleb_map_take(map, objects, slab_base(s, slab), s->size, dst, max);
	pos = get_random_u32_below(objects);
	for (i = 0; i < objects && got < max; i++) {
		unsigned int idx = s->random_seq[(pos + i) % objects];

		if (__test_and_clear_bit(idx, map))
			dst[got++] = slab_base(s, slab) + idx * s->size;
	}
	return got;
}
#else
static inline unsigned int new_slab_take(struct kmem_cache *s, struct slab *slab, void **dst,
					 unsigned int max)
{
	return sleb_map_take(slab_map(slab), slab->objects, slab_base(s, slab), s->size,
			     dst, max);
}
#endif

/*
 * One object of a slab of the emergency reserves (pfmemalloc), for a
 * caller entitled to them (as SLUB's pfmemalloc_match()): such objects
 * never enter a queue or shared array, where anyone could get them.
 */
static void *node_take_reserve(struct kmem_cache *s, int node)
{
	struct kmem_cache_node *n = get_node(s, node);
	void *object = NULL;
	unsigned long flags;
	struct slab *slab;

	spin_lock_irqsave(&n->list_lock, flags);
	list_for_each_entry(slab, &n->partial, slab_list) {
		if (slab_test_pfmemalloc(slab) && slab_take(s, n, slab, &object, 1))
			break;
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
	return object;
}

static void sleb_report_bad_free(struct kmem_cache *s, void *x, const char *what)
{
	if (sleb_kunit_counts_error())
		return;
	pr_err("SLEB %s: %s of object %p from %pS, object ignored\n",
	       s->name, what, x, __builtin_return_address(0));
	dump_stack();
	add_taint(TAINT_BAD_PAGE, LOCKDEP_NOW_UNRELIABLE);
}

/* The slab of an object being freed, or NULL (reported) if it has none. */
static struct slab *slab_of_freed(struct kmem_cache *s, void *x)
{
	struct slab *slab = virt_to_slab(x);

	if (unlikely(!slab)) {
		sleb_report_bad_free(s, x, "free of a non-slab pointer");
		return NULL;
	}
	if (unlikely(slab->slab_cache != s)) {
		sleb_report_bad_free(s, x, "free into the wrong cache");
		return NULL;
	}
	return slab;
}

/*
 * Return the objects at the start of @objs that belong to node @n, a run
 * of a slab at a time.  Stops at the first object of another node or
 * without a slab of this cache.  Returns how many objects it consumed.
 */
static unsigned int node_put(struct kmem_cache *s, struct kmem_cache_node *n,
			     void * const *objs, unsigned int nr, struct list_head *discard)
{
	enum sleb_put_result result;
	unsigned int i = 0, done;

	lockdep_assert_held(&n->list_lock);
	while (i < nr) {
		struct slab *slab = virt_to_slab(objs[i]);

		if (!slab || slab->slab_cache != s || get_node(s, slab_nid(slab)) != n)
			break;
		done = slab_put_run(s, n, slab, objs + i, nr - i, &result, discard);
		if (unlikely(!done)) {
			/* In the slab's pages, but in its bitmap or its waste. */
			sleb_report_bad_free(s, objs[i],
					     "free of a pointer past the slab's objects");
			i++;
			continue;
		}
		if (unlikely(result == SLEB_PUT_MISALIGNED))
			sleb_report_bad_free(s, objs[i + done - 1],
					     "free of a pointer inside an object");
		else if (unlikely(result == SLEB_PUT_DOUBLE_FREE))
			sleb_report_bad_free(s, objs[i + done - 1], "double free");
		i += done;
	}
	return i;
}

/*
 * Return objects to their slabs.  The objects may belong to any slab of any
 * node; consecutive objects of one node are handled under one acquisition
 * of its list_lock.  Slabs that become free are added to @discard, for the
 * caller to release once it has dropped its locks.
 */
static void sleb_free_to_slabs(struct kmem_cache *s, void * const *objs, unsigned int nr,
			       struct list_head *discard)
{
	unsigned int i = 0;

	while (i < nr) {
		struct slab *slab = slab_of_freed(s, objs[i]);
		struct kmem_cache_node *n;
		unsigned long flags;

		if (!slab) {
			i++;
			continue;
		}
		n = get_node(s, slab_nid(slab));
		spin_lock_irqsave(&n->list_lock, flags);
		i += node_put(s, n, objs + i, nr - i, discard);
		spin_unlock_irqrestore(&n->list_lock, flags);
	}
}

/* Give the @nr oldest objects of @a back to the slabs; @a's lock is held. */
static void array_give_back_oldest(struct kmem_cache *s, struct sleb_array *a,
				   unsigned int nr, struct list_head *discard)
{
	sleb_free_to_slabs(s, a->objects, nr, discard);
	sleb_array_drop_oldest(a, nr);
}

/* === Shared arrays ======================================================= */

/* Offer objects of node @n to its shared array; returns how many it took. */
static unsigned int shared_put(struct kmem_cache_node *n, void * const *objs,
			       unsigned int nr)
{
	unsigned int moved = 0;
	unsigned long flags;

	if (!READ_ONCE(n->shared))
		return 0;
	spin_lock_irqsave(&n->shared_lock, flags);
	if (n->shared) {
		moved = sleb_array_add(n->shared, objs, nr);
		n->shared_touched = true;
	}
	spin_unlock_irqrestore(&n->shared_lock, flags);
	return moved;
}

/* Whether the shared array of node @n looks empty, seen without its lock. */
static bool shared_looks_empty(struct kmem_cache_node *n)
{
	struct sleb_array *a;

	/* resize_shared() frees an old array after a grace period. */
	guard(rcu)();
	a = READ_ONCE(n->shared);
	return !a || !READ_ONCE(a->count);
}

/* Take up to @max objects from the shared array of node @n. */
static unsigned int shared_get(struct kmem_cache_node *n, void **dst, unsigned int max)
{
	unsigned int got = 0;
	unsigned long flags;

	if (shared_looks_empty(n))
		return 0;
	spin_lock_irqsave(&n->shared_lock, flags);
	if (n->shared) {
		got = sleb_array_take_newest(n->shared, dst, max);
		n->shared_touched = true;
	}
	spin_unlock_irqrestore(&n->shared_lock, flags);
	return got;
}

/* Empty the shared array of a node into the slabs. */
static void shared_flush(struct kmem_cache *s, struct kmem_cache_node *n)
{
	unsigned long flags;
	LIST_HEAD(discard);

	spin_lock_irqsave(&n->shared_lock, flags);
	if (n->shared && n->shared->count) {
		sleb_free_to_slabs(s, n->shared->objects, n->shared->count, &discard);
		n->shared->count = 0;
	}
	spin_unlock_irqrestore(&n->shared_lock, flags);
	sleb_discard_list(&discard);
}

/* === Per-cpu queues ====================================================== */

/*
 * The queue's lock is only tried on the allocation and free paths: it
 * fails when this context interrupted the lock's owner (or, on
 * PREEMPT_RT, when a task preempted on this CPU owns it), and the request
 * then bypasses the queue (alloc_unqueued(), free_unqueued()).  Work items
 * and other process context take it with queue_lock().
 */
static __always_inline bool queue_trylock(struct kmem_cache *s)
{
	return local_trylock(&s->cpu->lock);
}

static __always_inline void queue_lock(struct kmem_cache *s)
{
	local_lock(&s->cpu->lock);
}

static __always_inline void queue_unlock(struct kmem_cache *s)
{
	local_unlock(&s->cpu->lock);
}

static inline struct sleb_array *cpu_queue(struct kmem_cache *s)
{
	return this_cpu_ptr(s->cpu)->queue;
}

/* The node whose objects this CPU's queue of @s holds; under its lock. */
static inline int queue_home(struct kmem_cache *s)
{
	return this_cpu_ptr(s->cpu)->home;
}

static inline unsigned int queue_batch(struct kmem_cache *s, struct sleb_array *q)
{
	return min(READ_ONCE(s->cpu_batch_size), q->size);
}

/*
 * Make room in a full queue: its oldest batch goes to the node's shared
 * array, the rest of the batch to the slabs.
 */
static void queue_drain(struct kmem_cache *s, struct sleb_array *q,
			struct list_head *discard)
{
	unsigned int nr = queue_batch(s, q);
	unsigned int moved;

	lockdep_assert_held(this_cpu_ptr(&s->cpu->lock));
	this_cpu_ptr(s->cpu)->touched = true;
	moved = shared_put(get_node(s, queue_home(s)), q->objects, nr);
	if (moved)
		stat(s, DRAIN_SHARED);
	if (moved < nr) {
		sleb_free_to_slabs(s, q->objects + moved, nr - moved, discard);
		stat(s, DRAIN_SLABS);
	}
	sleb_array_drop_oldest(q, nr);
}

/* Empty a queue into the slabs. */
static void queue_flush(struct kmem_cache *s, struct sleb_array *q,
			struct list_head *discard)
{
	if (!q->count)
		return;
	sleb_free_to_slabs(s, q->objects, q->count, discard);
	q->count = 0;
	stat(s, QUEUE_FLUSH);
}

/* Take objects for node @node from its shared array or partial slabs. */
static unsigned int node_get(struct kmem_cache *s, int node, void **dst,
			     unsigned int max)
{
	struct kmem_cache_node *n = get_node(s, node);
	unsigned long flags;
	unsigned int got;

	got = shared_get(n, dst, max);
	if (got) {
		stat(s, REFILL_SHARED);
		return got;
	}
	if (!READ_ONCE(n->nr_partial))
		return 0;
	spin_lock_irqsave(&n->list_lock, flags);
	got = node_take(s, n, dst, max);
	spin_unlock_irqrestore(&n->list_lock, flags);
	if (got)
		stat(s, REFILL_PARTIAL);
	return got;
}

/*
 * Allocate a slab, on no list yet.  If the queue's lock is held (*@locked),
 * it is dropped meanwhile and tried again after, possibly on another CPU:
 * the caller reloads its queue, or, if the lock could not be had (*@locked
 * is now false), goes on without the queue.
 */
static struct slab *grow_cache(struct kmem_cache *s, gfp_t gfp, int node, bool *locked)
{
	struct slab *slab;

	if (*locked)
		queue_unlock(s);
	slab = sleb_new_slab(s, gfp, node);
	if (*locked)
		*locked = queue_trylock(s);
	return slab;
}

/*
 * Take up to @max objects (at least one) from a slab fresh from
 * grow_cache(), then put it on its node's lists.  Not the other way
 * round: once listed, the slab is anyone's, and a shrink on another CPU
 * would give it back while it is still empty.
 */
static unsigned int list_new_slab(struct kmem_cache *s, struct slab *slab, void **dst,
				  unsigned int max)
{
	struct kmem_cache_node *n = get_node(s, slab_nid(slab));
	unsigned long flags;
	unsigned int got;

	got = new_slab_take(s, slab, dst, max);
	spin_lock_irqsave(&n->list_lock, flags);
	node_add_new_slab(n, slab);
	spin_unlock_irqrestore(&n->list_lock, flags);
	return got;
}

#ifdef CONFIG_NUMA
/*
 * No object on @node and no memory there without reclaim: as SLAB's
 * fallback_alloc() and SLUB's get_any_partial(), one object of another
 * node that has some, nearest first.
 */
static void *alloc_from_other_node(struct kmem_cache *s, gfp_t gfp, int node)
{
	struct zonelist *zonelist = node_zonelist(node, gfp);
	int nid, last = NUMA_NO_NODE;
	struct zoneref *z;
	struct zone *zone;
	void *object;

	for_each_zone_zonelist(zone, z, zonelist, gfp_zone(gfp)) {
		nid = zone_to_nid(zone);
		if (nid == node || nid == last)
			continue;
		last = nid;
		if (!node_isset(nid, sleb_nodes) || !get_node(s, nid) ||
		    !cpuset_zone_allowed(zone, gfp))
			continue;
		if (node_get(s, nid, &object, 1))
			return object;
	}
	return NULL;
}

/* May a request for @node be served from other nodes' objects first? */
static inline bool may_fall_back(gfp_t gfp)
{
	return !(gfp & __GFP_THISNODE) && nodes_weight(sleb_nodes) > 1;
}
#else
static inline void *alloc_from_other_node(struct kmem_cache *s, gfp_t gfp, int node)
{
	return NULL;
}

static inline bool may_fall_back(gfp_t gfp)
{
	return false;
}
#endif

/*
 * A new slab for @node when the node has memory to spare.  Short of it,
 * an object of another node's slabs or shared array goes to the caller
 * (*@object) before a slab wherever the page allocator finds memory:
 * growing one slab per object on a fallback node would multiply memory
 * use by the objects per slab just when memory is short.
 */
static struct slab *grow_or_fall_back(struct kmem_cache *s, gfp_t gfp, int node,
				      bool *locked, void **object)
{
	/* No direct reclaim for it, but kswapd is woken for the node. */
	gfp_t exact = (gfp | __GFP_THISNODE | __GFP_NOWARN) &
		      ~(__GFP_DIRECT_RECLAIM | __GFP_NOFAIL);
	struct slab *slab;

	*object = NULL;
	if (may_fall_back(gfp)) {
		slab = grow_cache(s, exact, node, locked);
		if (slab)
			return slab;
		*object = alloc_from_other_node(s, gfp, node);
		if (*object)
			return NULL;
	}
	return grow_cache(s, gfp, node, locked);
}

/* A request for node @node served without the queue, whose lock is not held. */
static void *alloc_for_node(struct kmem_cache *s, gfp_t gfp, int node)
{
	bool locked = false;
	struct slab *slab;
	void *object;

	if (node_get(s, node, &object, 1))
		return object;
	if (unlikely(gfp_pfmemalloc_allowed(gfp))) {
		object = node_take_reserve(s, node);
		if (object)
			return object;
	}
	slab = grow_or_fall_back(s, gfp, node, &locked, &object);
	if (slab)
		list_new_slab(s, slab, &object, 1);
	return object;
}

/*
 * The queue of this CPU is empty: refill it with a batch and return one
 * object.  Called with the queue's lock held; returns with it held unless
 * *@locked became false while a slab was allocated.
 */
static void *queue_refill(struct kmem_cache *s, gfp_t gfp, bool *locked)
{
	struct sleb_array *q = cpu_queue(s);
	int node = queue_home(s);
	struct slab *slab;
	void *object;

	stat(s, ALLOC_SLOWPATH);
	this_cpu_ptr(s->cpu)->touched = true;
	if (!q->size) {
		/* Boot queue: objects go straight to the caller. */
		if (node_get(s, node, &object, 1))
			return object;
	} else {
		q->count = node_get(s, node, q->objects, queue_batch(s, q));
		if (q->count)
			return q->objects[--q->count];
	}
	if (unlikely(gfp_pfmemalloc_allowed(gfp))) {
		object = node_take_reserve(s, node);
		if (object)
			return object;
	}
	slab = grow_or_fall_back(s, gfp, node, locked, &object);
	if (!slab)
		return object;
	stat(s, REFILL_NEW_SLAB);
	/* Without the lock (or on PREEMPT_RT, migration off) no queue is ours. */
	if (*locked && slab_nid(slab) == queue_home(s) && !slab_test_pfmemalloc(slab))
		q = cpu_queue(s);
	else
		q = NULL;
	if (!q || q->count || !q->size) {
		/*
		 * Another node's memory, or the reserves': not for the queue;
		 * or the queue is someone else's now, was refilled meanwhile,
		 * or is the boot queue.
		 */
		list_new_slab(s, slab, &object, 1);
		return object;
	}
	q->count = list_new_slab(s, slab, q->objects, queue_batch(s, q));
	return q->objects[--q->count];
}

#ifdef CONFIG_NUMA
/* Whether @current's memory policy may place objects elsewhere. */
static __always_inline bool task_spreads(void)
{
	return unlikely(current->mempolicy);
}

/*
 * As SLAB: the node @current's memory policy picks for a request without
 * a node.  Interrupts and __GFP_THISNODE requests stay on this node.
 */
static int spread_node(struct kmem_cache *s, gfp_t gfp)
{
	if (in_interrupt() || (gfp & __GFP_THISNODE))
		return NUMA_NO_NODE;
	if (current->mempolicy)
		return mempolicy_slab_node();
	return NUMA_NO_NODE;
}
#else
static inline bool task_spreads(void)
{
	return false;
}

static inline int spread_node(struct kmem_cache *s, gfp_t gfp)
{
	return NUMA_NO_NODE;
}
#endif

/* Whether SLEB has structures for node @node to allocate from. */
static inline bool node_usable(struct kmem_cache *s, int node)
{
	return node >= 0 && node < nr_node_ids && node_isset(node, sleb_nodes) &&
	       get_node(s, node);
}

/*
 * The queue's lock is taken (see queue_trylock()): the request goes to
 * the node's shared array and slabs.
 */
static noinline void *alloc_unqueued(struct kmem_cache *s, gfp_t gfp, int node)
{
	stat(s, ALLOC_UNQUEUED);
	if (node == NUMA_NO_NODE || !node_usable(s, node))
		node = home_node();
	return alloc_for_node(s, gfp, node);
}

static __always_inline void *queue_alloc(struct kmem_cache *s, gfp_t gfp, int node)
{
	struct sleb_array *q;
	bool locked = true;
	void *object;

	if (node == NUMA_NO_NODE && task_spreads())
		node = spread_node(s, gfp);
	if (unlikely(!queue_trylock(s)))
		return alloc_unqueued(s, gfp, node);
	/* Under the lock: the queue's home stays what it is until it is dropped. */
	if (unlikely(node != NUMA_NO_NODE && node != queue_home(s) && node_usable(s, node))) {
		/* Another node's objects: the queue is not involved. */
		queue_unlock(s);
		locked = false;
		stat(s, ALLOC_NODE);
		object = alloc_for_node(s, gfp, node);
	} else {
		q = cpu_queue(s);
		if (likely(q->count)) {
			object = q->objects[--q->count];
			stat(s, ALLOC_FASTPATH);
		} else {
			object = queue_refill(s, gfp, &locked);
		}
	}
	if (likely(locked))
		queue_unlock(s);
	return object;
}

/* An object of another node goes back to that node, not into our queue. */
static void free_remote(struct kmem_cache *s, struct slab *slab, void *x,
			struct list_head *discard)
{
	stat(s, FREE_REMOTE);
	if (!shared_put(get_node(s, slab_nid(slab)), &x, 1))
		sleb_free_to_slabs(s, &x, 1, discard);
}

/*
 * With CONFIG_SLAB_FREELIST_HARDENED, an object freed twice in a row is
 * caught as cheaply as SLUB catches it: it is still the top of the queue.
 */
static __always_inline bool freed_just_now(struct sleb_array *q, void *x)
{
	return IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED) && q->count &&
	       q->objects[q->count - 1] == x;
}

/* Whether a freed object may go into a queue: its home's, not a reserve one. */
static __always_inline bool queueable(struct kmem_cache *s, struct slab *slab)
{
	return slab_nid(slab) == queue_home(s) && !slab_test_pfmemalloc(slab);
}

/*
 * The queue's lock is taken (see queue_trylock()): the object goes to its
 * node's shared array, or its slab.  The emergency reserves' objects never
 * enter a shared array.
 */
static noinline void free_unqueued(struct kmem_cache *s, struct slab *slab, void *x)
{
	LIST_HEAD(discard);

	stat(s, FREE_UNQUEUED);
	if (slab_test_pfmemalloc(slab) || !shared_put(get_node(s, slab_nid(slab)), &x, 1))
		sleb_free_to_slabs(s, &x, 1, &discard);
	sleb_discard_list(&discard);
}

/*
 * The free that cannot simply push onto the queue: an object of the
 * emergency reserves or of another node, a full queue, or the boot queue.
 * Called with the queue's lock held; drops it, then releases the slabs
 * that became free.
 */
static noinline void queue_free_slow(struct kmem_cache *s, struct slab *slab, void *x)
{
	struct sleb_array *q = cpu_queue(s);
	LIST_HEAD(discard);

	if (freed_just_now(q, x)) {
		queue_unlock(s);
		sleb_report_bad_free(s, x, "double free");
		return;
	}
	if (unlikely(slab_test_pfmemalloc(slab))) {
		sleb_free_to_slabs(s, &x, 1, &discard);
	} else if (slab_nid(slab) != queue_home(s)) {
		free_remote(s, slab, x, &discard);
	} else if (!q->size) {
		stat(s, FREE_SLOWPATH);
		sleb_free_to_slabs(s, &x, 1, &discard);
	} else {
		stat(s, FREE_SLOWPATH);
		queue_drain(s, q, &discard);
		q->objects[q->count++] = x;
	}
	queue_unlock(s);
	sleb_discard_list(&discard);
}

static __always_inline void queue_free(struct kmem_cache *s, struct slab *slab, void *x)
{
	struct sleb_array *q;

	if (unlikely(!queue_trylock(s))) {
		free_unqueued(s, slab, x);
		return;
	}
	q = cpu_queue(s);
	if (unlikely(!queueable(s, slab) || q->count >= q->size || freed_just_now(q, x))) {
		queue_free_slow(s, slab, x);
		return;
	}
	stat(s, FREE_FASTPATH);
	q->objects[q->count++] = x;
	queue_unlock(s);
}

/* === Allocation and free ================================================ */

/*
 * Free an object whose free hooks have run already (kfree_nolock()) or
 * that never left SLEB (a sheaf's): a debugged cache checks it first.
 */
static void queue_free_checked(struct kmem_cache *s, struct slab *slab, void *x,
			       unsigned long caller)
{
	/* Sheaves and kmalloc_nolock() never hand out KFENCE objects. */
	VM_WARN_ON_ONCE(is_kfence_address(x));
	if (sleb_debug_cache(s)) {
		if (!sleb_debug_free(s, slab, x, caller))
			return;
		sleb_debug_free_done(s, x);
	}
	queue_free(s, slab, x);
}

/*
 * The paths below exist twice: inlined into the entry points without the
 * debug hooks, and out of line with them (sleb_alloc_debug(),
 * sleb_free_debug()) for caches with debugging on.  The entry points pick
 * one with sleb_debug_cache(), a static key, so that debugging compiled in
 * but off adds that one test and nothing to the fast path -- not even the
 * caller's address kept across the calls of the hooks.
 */
static __always_inline void *__sleb_alloc(struct kmem_cache *s, gfp_t gfp, int node,
					  const struct slab_alloc_context *ac, bool debug)
{
	void *object;

	s = slab_pre_alloc_hook(s, gfp);
	if (unlikely(!s))
		return NULL;
	object = kfence_alloc(s, ac->orig_size, gfp);
	if (likely(!object)) {
		object = queue_alloc(s, gfp, node);
		if (debug)
			sleb_debug_alloc(s, object, ac->caller_addr);
	}
	/* On a memcg charge failure the hook frees the object and clears it. */
	slab_post_alloc_hook(s, gfp, 1, &object, ac);
	return object;
}

static noinline void *sleb_alloc_debug(struct kmem_cache *s, gfp_t gfp, int node,
				       const struct slab_alloc_context *ac)
{
	return __sleb_alloc(s, gfp, node, ac, true);
}

static __always_inline void *sleb_alloc(struct kmem_cache *s, gfp_t gfp, int node,
					const struct slab_alloc_context *ac)
{
	if (sleb_debug_cache(s))
		return sleb_alloc_debug(s, gfp, node, ac);
	return __sleb_alloc(s, gfp, node, ac, false);
}

/* Usable bytes of an object of @s: the padding up to the stride, unless a tool uses it. */
static size_t cache_ksize(struct kmem_cache *s)
{
	if (s->flags & (SLEB_DEBUG_FLAGS | SLAB_KASAN | SLAB_TYPESAFE_BY_RCU))
		return s->object_size;
	return s->size - s->red_left_pad;
}

/*
 * The hooks every freed object passes.  Returns false when the object is
 * not SLEB's to free (yet): KFENCE took it back, KASAN found a bad free or
 * keeps the object in its quarantine for now.
 */
static __always_inline bool sleb_free_hook(struct kmem_cache *s, void *x, bool init)
{
	bool still_accessible = s->flags & SLAB_TYPESAFE_BY_RCU;

	kmemleak_free_recursive(x, s->flags);
	kmsan_slab_free(s, x);
	debug_check_no_locks_freed(x, s->object_size);
	if (!(s->flags & SLAB_DEBUG_OBJECTS))
		debug_check_no_obj_freed(x, s->object_size);
	if (!still_accessible)
		__kcsan_check_access(x, s->object_size,
				     KCSAN_ACCESS_WRITE | KCSAN_ACCESS_ASSERT);
	if (kfence_free(x))
		return false;
	/* KASAN looks at the free before the object changes. */
	if (kasan_slab_pre_free(s, x))
		return false;
	/* KASAN may do the initialisation itself; the slack ksize() shows too. */
	if (init && !kasan_has_integrated_init())
		memset(kasan_reset_tag(x), 0, cache_ksize(s));
	return !kasan_slab_free(s, x, init, still_accessible, false);
}

/*
 * The slab is looked up inside each copy, after the choice: looked up
 * before it, the fast copy would keep the lookup's result for the debug
 * copy's call.
 */
static __always_inline void __sleb_free(struct kmem_cache *s, void *x,
					unsigned long caller, bool debug)
{
	struct slab *slab = virt_to_slab(x);

	if (debug && !sleb_debug_free(s, slab, x, caller))
		return;
	if (unlikely(!slab)) {
		sleb_report_bad_free(s, x, "free of a non-slab pointer");
		return;
	}
	memcg_slab_free_hook(s, slab, &x, 1);
	alloc_tagging_slab_free_hook(s, slab, &x, 1);
	if (!sleb_free_hook(s, x, slab_want_init_on_free(s)))
		return;
	/* Poisoned after the hooks: debugobjects looked at the object first. */
	if (debug)
		sleb_debug_free_done(s, x);
	queue_free(s, slab, x);
}

static noinline void sleb_free_debug(struct kmem_cache *s, void *x, unsigned long caller)
{
	__sleb_free(s, x, caller, true);
}

/*
 * A KFENCE object takes the inline path even in a debugged cache: KFENCE
 * checks its objects itself, and its reports skip the stack up to the
 * allocator's entry point (kfree(), kmem_cache_free(), ...).  A tail call
 * to the out-of-line debug path would replace that frame, and the report
 * would blame sleb_free_debug() instead of kfree()'s caller.
 */
static __always_inline void sleb_free(struct kmem_cache *s, void *x, unsigned long caller)
{
	if (sleb_debug_cache(s) && !is_kfence_address(x))
		sleb_free_debug(s, x, caller);
	else
		__sleb_free(s, x, caller, false);
}

/* The context of an allocation through the kmem_cache_alloc() family. */
#define SLEB_CACHE_ALLOC_CTX(_s, _lru) {				\
	.caller_addr = _RET_IP_,					\
	.orig_size = (_s)->object_size,					\
	.alloc_flags = SLAB_ALLOC_DEFAULT,				\
	.lru = (_lru),							\
}

void *kmem_cache_alloc_noprof(struct kmem_cache *s, gfp_t gfp)
{
	const struct slab_alloc_context ac = SLEB_CACHE_ALLOC_CTX(s, NULL);
	void *ret = sleb_alloc(s, gfp, NUMA_NO_NODE, &ac);

	trace_kmem_cache_alloc(_RET_IP_, ret, s, gfp, NUMA_NO_NODE);
	return ret;
}
EXPORT_SYMBOL(kmem_cache_alloc_noprof);

void *kmem_cache_alloc_lru_noprof(struct kmem_cache *s, struct list_lru *lru, gfp_t gfp)
{
	const struct slab_alloc_context ac = SLEB_CACHE_ALLOC_CTX(s, lru);
	void *ret = sleb_alloc(s, gfp, NUMA_NO_NODE, &ac);

	trace_kmem_cache_alloc(_RET_IP_, ret, s, gfp, NUMA_NO_NODE);
	return ret;
}
EXPORT_SYMBOL(kmem_cache_alloc_lru_noprof);

void *kmem_cache_alloc_node_noprof(struct kmem_cache *s, gfp_t gfp, int node)
{
	const struct slab_alloc_context ac = SLEB_CACHE_ALLOC_CTX(s, NULL);
	void *ret = sleb_alloc(s, gfp, node, &ac);

	trace_kmem_cache_alloc(_RET_IP_, ret, s, gfp, node);
	return ret;
}
EXPORT_SYMBOL(kmem_cache_alloc_node_noprof);

/*
 * The cache an object to be freed belongs to: @s, checked against the
 * slab when SLAB_CONSISTENCY_CHECKS or hardening ask for it, or the slab's
 * cache when no cache was given.  NULL, after a report, when there is none
 * or it is not @s.
 */
static struct kmem_cache *cache_of_free(struct kmem_cache *s, void *x,
					unsigned long caller)
{
	struct slab *slab;

	/* A debugged cache checks the pointer itself (sleb_debug_free()). */
	if (likely(s) && (sleb_debug_cache(s) ||
			  (!IS_ENABLED(CONFIG_SLAB_FREELIST_HARDENED) &&
			   !(s->flags & SLAB_CONSISTENCY_CHECKS))))
		return s;
	slab = virt_to_slab(x);
	if (unlikely(!slab)) {
		pr_err("SLEB: kmem_cache_free(%s, %p) of a non-slab pointer from %pS, ignored\n",
		       s ? s->name : "NULL", x, (void *)caller);
		dump_stack();
		add_taint(TAINT_BAD_PAGE, LOCKDEP_NOW_UNRELIABLE);
		return NULL;
	}
	/* As SLUB: an object freed to the wrong cache is leaked, not moved. */
	if (WARN_ONCE(s && slab->slab_cache != s,
		      "SLEB: kmem_cache_free: object %p of cache %s freed to cache %s\n",
		      x, slab->slab_cache->name, s ? s->name : ""))
		return NULL;
	return slab->slab_cache;
}

void kmem_cache_free(struct kmem_cache *s, void *x)
{
	s = cache_of_free(s, x, _RET_IP_);
	if (!s)
		return;
	trace_kmem_cache_free(_RET_IP_, x, s);
	sleb_free(s, x, _RET_IP_);
}
EXPORT_SYMBOL(kmem_cache_free);

#ifdef CONFIG_KASAN_GENERIC
/* An object leaves the KASAN quarantine. */
void ___cache_free(struct kmem_cache *cache, void *x, unsigned long addr)
{
	if (sleb_debug_cache(cache))
		sleb_debug_free_done(cache, x);
	queue_free(cache, virt_to_slab(x), x);
}
#endif

/* === kmalloc ============================================================= */

static __always_inline void *sleb_kmalloc(kmem_buckets *b, gfp_t gfp, int node,
					  kmalloc_token_t token,
					  const struct slab_alloc_context *ac)
{
	size_t size = ac->orig_size;
	struct kmem_cache *s;
	void *ret;

	if (unlikely(size > KMALLOC_MAX_CACHE_SIZE)) {
		ret = ___kmalloc_large_node(size, gfp, node);
		trace_kmalloc(ac->caller_addr, ret, size, PAGE_SIZE << get_order(size),
			      gfp, node);
		return ret;
	}
	if (unlikely(!size))
		return ZERO_SIZE_PTR;
	s = kmalloc_slab(size, b, gfp, token, ac->alloc_flags);
	ret = sleb_alloc(s, gfp, node, ac);
	ret = kasan_kmalloc(s, ret, size, gfp);
	trace_kmalloc(ac->caller_addr, ret, size, s->size, gfp, node);
	return ret;
}

void *__kmalloc_large_node_noprof(size_t size, gfp_t gfp, int node)
{
	void *ret = ___kmalloc_large_node(size, gfp, node);

	trace_kmalloc(_RET_IP_, ret, size, PAGE_SIZE << get_order(size), gfp, node);
	return ret;
}
EXPORT_SYMBOL(__kmalloc_large_node_noprof);

/* The context of a kmalloc() of @_size on behalf of @_caller. */
#define SLEB_KMALLOC_CTX(_size, _caller) {				\
	.caller_addr = (_caller),					\
	.orig_size = (_size),						\
	.alloc_flags = SLAB_ALLOC_DEFAULT,				\
}

void *__kmalloc_noprof(DECL_TOKEN_PARAMS(size, token), gfp_t gfp)
{
	const struct slab_alloc_context ac = SLEB_KMALLOC_CTX(size, _RET_IP_);

	return sleb_kmalloc(NULL, gfp, NUMA_NO_NODE, PASS_TOKEN_PARAM(token), &ac);
}
EXPORT_SYMBOL(__kmalloc_noprof);

void *__kmalloc_node_noprof(DECL_KMALLOC_PARAMS(size, b, token), gfp_t gfp, int node)
{
	const struct slab_alloc_context ac = SLEB_KMALLOC_CTX(size, _RET_IP_);

	return sleb_kmalloc(PASS_BUCKET_PARAM(b), gfp, node, PASS_TOKEN_PARAM(token), &ac);
}
EXPORT_SYMBOL(__kmalloc_node_noprof);

void *__kmalloc_node_track_caller_noprof(DECL_KMALLOC_PARAMS(size, b, token), gfp_t gfp,
					 int node, unsigned long caller)
{
	const struct slab_alloc_context ac = SLEB_KMALLOC_CTX(size, caller);

	return sleb_kmalloc(PASS_BUCKET_PARAM(b), gfp, node, PASS_TOKEN_PARAM(token), &ac);
}
EXPORT_SYMBOL(__kmalloc_node_track_caller_noprof);

void *__kmalloc_cache_node_noprof(struct kmem_cache *s, gfp_t gfp, int node, size_t size)
{
	const struct slab_alloc_context ac = SLEB_KMALLOC_CTX(size, _RET_IP_);
	void *ret = sleb_alloc(s, gfp, node, &ac);

	trace_kmalloc(_RET_IP_, ret, size, s->size, gfp, node);
	return kasan_kmalloc(s, ret, size, gfp);
}
EXPORT_SYMBOL(__kmalloc_cache_node_noprof);

void *__kmalloc_cache_noprof(struct kmem_cache *s, gfp_t gfp, size_t size)
{
	const struct slab_alloc_context ac = SLEB_KMALLOC_CTX(size, _RET_IP_);
	void *ret = sleb_alloc(s, gfp, NUMA_NO_NODE, &ac);

	trace_kmalloc(_RET_IP_, ret, size, s->size, gfp, NUMA_NO_NODE);
	return kasan_kmalloc(s, ret, size, gfp);
}
EXPORT_SYMBOL(__kmalloc_cache_noprof);

/*
 * The object of kmalloc_nolock() whose allocation hooks run on this CPU:
 * if its memcg charge fails, it is freed as kfree_nolock() frees
 * (memcg_alloc_abort_single()).  A kmalloc_nolock() in an interrupt of
 * those hooks puts its own in the slot and the previous one back.
 */
static DEFINE_PER_CPU(void *, sleb_nolock_object);

/*
 * kmalloc_nolock() takes what the queue holds, with a trylock: NULL when
 * the lock is held (this context interrupted its owner, or runs inside
 * SLEB) or the queue is empty.  Nothing here spins or sleeps, so any
 * context may call it, NMI included (on PREEMPT_RT, where the lock is a
 * spinlock_t, local_trylock() fails in NMI and hard interrupt context).
 * Debugged caches are not served: their bookkeeping takes locks.
 */
static void *queue_alloc_nolock(struct kmem_cache *s)
{
	struct sleb_array *q;
	void *object = NULL;

	if (sleb_debug_cache(s) || !queue_trylock(s))
		return NULL;
	q = cpu_queue(s);
	if (q->count) {
		object = q->objects[--q->count];
		stat(s, ALLOC_FASTPATH);
	}
	queue_unlock(s);
	return object;
}

/*
 * kfree_nolock()'s object goes into the queue if the lock can be had and
 * there is room; false if it could not.
 */
static bool queue_free_nolock(struct kmem_cache *s, struct slab *slab, void *x)
{
	struct sleb_array *q;
	bool done = false;

	if (sleb_debug_cache(s) || !queue_trylock(s))
		return false;
	q = cpu_queue(s);
	if (queueable(s, slab) && q->count < q->size && !freed_just_now(q, x)) {
		q->objects[q->count++] = x;
		stat(s, FREE_FASTPATH);
		done = true;
	}
	queue_unlock(s);
	return done;
}

void *_kmalloc_nolock_noprof(DECL_TOKEN_PARAMS(size, token), gfp_t gfp, int node)
{
	const struct slab_alloc_context ac = {
		.caller_addr = _RET_IP_,
		.orig_size = size,
		.alloc_flags = SLAB_ALLOC_NOLOCK,
	};
	struct kmem_cache *s;
	void *ret, *prev;

	VM_WARN_ON_ONCE(gfp & ~(__GFP_ACCOUNT | __GFP_ZERO | __GFP_NOWARN | __GFP_NOMEMALLOC));
	gfp |= __GFP_NOWARN | __GFP_NOMEMALLOC;
	if (unlikely(!size))
		return ZERO_SIZE_PTR;
	if (unlikely(size > KMALLOC_MAX_CACHE_SIZE))
		return NULL;
	s = kmalloc_slab(size, NULL, gfp, PASS_TOKEN_PARAM(token), ac.alloc_flags);
	ret = queue_alloc_nolock(s);
	if (!ret)
		return NULL;
	/*
	 * No pre-alloc hook and no KFENCE: both may take locks.  Preemption
	 * stays disabled across the hooks, so that no other task's hooks run
	 * on this CPU meanwhile (with !allow_spinning gfp flags the memcg
	 * hooks only try locks, also on PREEMPT_RT).
	 */
	preempt_disable();
	prev = this_cpu_xchg(sleb_nolock_object, kasan_reset_tag(ret));
	slab_post_alloc_hook(s, gfp, 1, &ret, &ac);
	this_cpu_write(sleb_nolock_object, prev);
	preempt_enable();
	return kasan_kmalloc(s, ret, size, gfp);
}
EXPORT_SYMBOL_GPL(_kmalloc_nolock_noprof);

void *__kmalloc_flags_noprof(DECL_TOKEN_PARAMS(size, token), gfp_t gfp,
			     unsigned int alloc_flags, int node)
{
	const struct slab_alloc_context ac = {
		.caller_addr = _RET_IP_,
		.orig_size = size,
		.alloc_flags = alloc_flags,
	};

	if (!alloc_flags_allow_spinning(alloc_flags))
		return _kmalloc_nolock_noprof(PASS_TOKEN_PARAMS(size, token), gfp, node);
	return sleb_kmalloc(NULL, gfp, node, PASS_TOKEN_PARAM(token), &ac);
}

void *__kvmalloc_node_noprof(DECL_KMALLOC_PARAMS(size, b, token), unsigned long align,
			     gfp_t gfp, int node)
{
	const struct slab_alloc_context ac = SLEB_KMALLOC_CTX(size, _RET_IP_);
	void *ret;

	ret = sleb_kmalloc(PASS_BUCKET_PARAM(b), kmalloc_gfp_adjust(gfp, size), node,
			   PASS_TOKEN_PARAM(token), &ac);
	if (ret || size <= PAGE_SIZE)
		return ret;
	return kvmalloc_vmalloc_noprof(size, align, gfp, node, __builtin_return_address(0));
}
EXPORT_SYMBOL(__kvmalloc_node_noprof);

/**
 * ksize - report the full size of the underlying allocation
 * @objp: pointer to the object
 *
 * For internal use only: to find out what a caller may use, ask
 * kmalloc_size_roundup() before the allocation.
 *
 * Return: size of the memory that backs @objp, 0 for an invalid pointer.
 */
size_t ksize(const void *objp)
{
	struct page *page;
	struct slab *slab;
	size_t size;

	/* A bad pointer is reported here rather than trusted below. */
	if (unlikely(ZERO_OR_NULL_PTR(objp)) || !kasan_check_byte(objp))
		return 0;
	size = kfence_ksize(objp);
	if (size)
		return size;
	page = virt_to_page(objp);
	if (unlikely(PageLargeKmalloc(page)))
		return large_kmalloc_size(page);
	slab = page_slab(page);
	if (WARN_ON(!slab))
		return page_size(page);
	return cache_ksize(slab->slab_cache);
}
EXPORT_SYMBOL(ksize);

/**
 * kfree - free memory from kmalloc() or kmem_cache_alloc()
 * @object: the pointer returned; NULL and ZERO_SIZE_PTR do nothing
 */
void kfree(const void *object)
{
	void *x = (void *)object;
	struct page *page;
	struct slab *slab;

	trace_kfree(_RET_IP_, object);
	if (unlikely(ZERO_OR_NULL_PTR(object)))
		return;
	page = virt_to_page(object);
	slab = page_slab(page);
	if (unlikely(!slab)) {
		free_large_kmalloc(page, x);
		return;
	}
	sleb_free(slab->slab_cache, x, _RET_IP_);
}
EXPORT_SYMBOL(kfree);

/*
 * Free an object whose rcu_head sits in its first 4 KiB, from
 * kvfree_rcu() without batching.
 */
void kvfree_rcu_cb(struct rcu_head *head)
{
	void *obj = kvmalloc_obj_start_addr(head);

	if (is_vmalloc_addr(obj))
		vfree(obj);
	else
		kfree(obj);
}

/* The bytes of @p that krealloc() may keep: the object, not the slack behind it. */
static size_t object_bytes(const void *p)
{
	struct page *page;
	struct slab *slab;

	if (is_kfence_address(p))
		return kfence_ksize(p);
	page = virt_to_page(p);
	slab = page_slab(page);
	if (!slab)
		return page_size(page);
	return slab->slab_cache->object_size;
}

/*
 * Reallocation in place: the object stays when it is big enough, aligned
 * enough and on the right node.  Bytes past the new size are zeroed with
 * init_on_alloc, so that a later growth shows no stale data.
 */
static __realloc_size(2) void *sleb_krealloc(const void *p, DECL_TOKEN_PARAMS(new_size, token),
					     unsigned long align, gfp_t gfp, int nid)
{
	size_t ks;
	void *ret;

	if (unlikely(ZERO_OR_NULL_PTR(p)))
		goto alloc_new;
	/* A freed object is reported, not copied. */
	if (!kasan_check_byte(p))
		return NULL;
	ks = object_bytes(p);
	if (unlikely(gfp & __GFP_THISNODE) && nid != NUMA_NO_NODE &&
	    nid != page_to_nid(virt_to_page(p)))
		goto alloc_new;
	if (new_size > ks || !IS_ALIGNED((unsigned long)p, align))
		goto alloc_new;
	if (want_init_on_alloc(gfp)) {
		kasan_disable_current();
		memset(kasan_reset_tag(p) + new_size, 0, ks - new_size);
		kasan_enable_current();
	}
	return (void *)kasan_krealloc(p, new_size, gfp);

alloc_new:
	ret = __kmalloc_node_track_caller_noprof(PASS_KMALLOC_PARAMS(new_size, NULL, token),
						 gfp, nid, _RET_IP_);
	if (ret && p) {
		ks = object_bytes(p);
		kasan_disable_current();
		memcpy(ret, kasan_reset_tag(p), min(new_size, ks));
		kasan_enable_current();
	}
	return ret;
}

void *krealloc_node_align_noprof(const void *p, DECL_TOKEN_PARAMS(new_size, token),
				 unsigned long align, gfp_t gfp, int nid)
{
	void *ret;

	if (unlikely(!new_size)) {
		kfree(p);
		return ZERO_SIZE_PTR;
	}
	ret = sleb_krealloc(p, PASS_TOKEN_PARAMS(new_size, token), align, gfp, nid);
	if (ret && kasan_reset_tag(p) != kasan_reset_tag(ret))
		kfree(p);
	return ret;
}
EXPORT_SYMBOL(krealloc_node_align_noprof);

/* === Frees from any context ============================================== */

/*
 * kfree_nolock() whose object cannot go into the queue (its lock is taken,
 * the queue is full, or the object is another node's), and kfree_rcu()
 * from a context that may not take locks, put the object on a per-cpu
 * list; an irq_work frees it once interrupts are enabled.  The
 * list of kfree_nolock() runs through the freed object's first word, the
 * one place where SLEB writes into an object: kfree_nolock() is only for
 * kmalloc objects, which are never SLAB_TYPESAFE_BY_RCU.
 */
struct sleb_deferred {
	struct llist_head objects;
	struct llist_head by_rcu;
	struct irq_work work;
};

static void sleb_deferred_work(struct irq_work *work);

static DEFINE_PER_CPU(struct sleb_deferred, sleb_deferred) = {
	.objects = LLIST_HEAD_INIT(objects),
	.by_rcu = LLIST_HEAD_INIT(by_rcu),
	.work = IRQ_WORK_INIT(sleb_deferred_work),
};

static void sleb_deferred_work(struct irq_work *work)
{
	struct sleb_deferred *d = container_of(work, struct sleb_deferred, work);
	struct llist_node *pos, *next;

	llist_for_each_safe(pos, next, llist_del_all(&d->objects)) {
		void *x = pos;
		struct slab *slab = virt_to_slab(x);
		struct kmem_cache *s = slab->slab_cache;

		queue_free_checked(s, slab, x, _THIS_IP_);
	}
	llist_for_each_safe(pos, next, llist_del_all(&d->by_rcu))
		kvfree_call_rcu((struct kvfree_rcu_head *)pos, kvmalloc_obj_start_addr(pos));
}

static void sleb_defer(struct llist_head __percpu *list, struct llist_node *node)
{
	guard(preempt)();
	if (llist_add(node, this_cpu_ptr(list)))
		irq_work_queue(this_cpu_ptr(&sleb_deferred.work));
}

/*
 * The free hooks that take no locks (kmemleak, KFENCE and the debug checks
 * saw no allocation), then the free: into the queue if it can be done
 * without waiting, else deferred.
 */
static void free_nolock(struct kmem_cache *s, struct slab *slab, void *x)
{
	alloc_tagging_slab_free_hook(s, slab, &x, 1);
	kmsan_slab_free(s, x);
	if (kasan_slab_pre_free(s, x))
		return;
	/* No quarantine: it takes locks. */
	kasan_slab_free(s, x, false, false, true);
	if (!queue_free_nolock(s, slab, x))
		sleb_defer(&sleb_deferred.objects, kasan_reset_tag(x));
}

/**
 * kfree_nolock - free an object of kmalloc_nolock() from any context
 * @object: the object; NULL does nothing
 *
 * Callable with any lock held, from interrupts and NMI.  The hooks that
 * take locks (kmemleak, KFENCE, the debug checks) were not run at the
 * allocation and are not run here.
 */
void kfree_nolock(const void *object)
{
	void *x = (void *)object;
	struct kmem_cache *s;
	struct slab *slab;

	if (unlikely(ZERO_OR_NULL_PTR(object)))
		return;
	slab = virt_to_slab(object);
	if (unlikely(!slab)) {
		WARN_ONCE(1, "%s: not for large kmalloc objects\n", __func__);
		return;
	}
	s = slab->slab_cache;
	memcg_slab_free_hook(s, slab, &x, 1);
	free_nolock(s, slab, x);
}
EXPORT_SYMBOL_GPL(kfree_nolock);

#ifdef CONFIG_MEMCG
/* An object whose memcg charge failed right after its allocation. */
noinline void memcg_alloc_abort_single(struct kmem_cache *s, void *object)
{
	struct slab *slab = virt_to_slab(object);

	if (this_cpu_read(sleb_nolock_object) == kasan_reset_tag(object)) {
		free_nolock(s, slab, object);
		return;
	}
	if (sleb_debug_cache(s) && !sleb_debug_free(s, slab, object, _RET_IP_))
		return;
	alloc_tagging_slab_free_hook(s, slab, &object, 1);
	if (!sleb_free_hook(s, object, slab_want_init_on_free(s)))
		return;
	if (sleb_debug_cache(s))
		sleb_debug_free_done(s, object);
	queue_free(s, slab, object);
}
#endif

void defer_kfree_rcu(struct kvfree_rcu_head *head)
{
	sleb_defer(&sleb_deferred.by_rcu, (struct llist_node *)head);
}

void deferred_work_barrier(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(&sleb_deferred.work, cpu));
}

/* SLEB has no sheaves: kvfree_rcu() batches objects itself. */
bool __kfree_rcu_sheaf(struct kmem_cache *s, void *obj, unsigned int free_flags)
{
	return false;
}

void flush_all_rcu_sheaves(void)
{
}

void flush_rcu_sheaves_on_cache(struct kmem_cache *s)
{
}

/* === Bulk interface ====================================================== */

void kmem_cache_free_bulk(struct kmem_cache *s, size_t size, void **p)
{
	size_t i;

	for (i = 0; i < size; i++) {
		if (!s) {
			kfree(p[i]);
			continue;
		}
		kmem_cache_free(s, p[i]);
	}
}
EXPORT_SYMBOL(kmem_cache_free_bulk);

/* One object at a time, each placed by the task's memory policy. */
static size_t spread_alloc_bulk(struct kmem_cache *s, gfp_t gfp, size_t size, void **p,
				unsigned long caller)
{
	size_t i;

	for (i = 0; i < size; i++) {
		p[i] = queue_alloc(s, gfp, NUMA_NO_NODE);
		if (!p[i])
			break;
		if (sleb_debug_cache(s))
			sleb_debug_alloc(s, p[i], caller);
	}
	return i;
}

/*
 * Fill @p from the queue, refilling it as often as needed; one object at a
 * time if the queue's lock cannot be had.
 */
static size_t queue_alloc_bulk(struct kmem_cache *s, gfp_t gfp, size_t size, void **p,
			       unsigned long caller)
{
	bool locked = true;
	size_t i = 0;

	if (task_spreads() || !queue_trylock(s))
		return spread_alloc_bulk(s, gfp, size, p, caller);
	while (i < size) {
		struct sleb_array *q = cpu_queue(s);
		void *object;

		if (q->count) {
			unsigned int got, j;

			got = sleb_array_take_newest(q, p + i, min_t(size_t, size - i, UINT_MAX));
			if (sleb_debug_cache(s))
				for (j = 0; j < got; j++)
					sleb_debug_alloc(s, p[i + j], caller);
			i += got;
			continue;
		}
		object = queue_refill(s, gfp, &locked);
		if (!object)
			break;
		if (sleb_debug_cache(s))
			sleb_debug_alloc(s, object, caller);
		p[i++] = object;
		if (unlikely(!locked))
			return i + spread_alloc_bulk(s, gfp, size - i, p + i, caller);
	}
	if (likely(locked))
		queue_unlock(s);
	return i;
}

/**
 * kmem_cache_alloc_bulk - allocate several objects of a cache
 * @s: the cache
 * @gfp: GFP_* flags, see kmalloc()
 * @size: number of objects, more than 0
 * @p: where the objects go
 *
 * Interrupts must be enabled when calling this function.
 *
 * Return: %true if all @size objects were allocated, %false (and none is
 * left allocated) otherwise.
 */
bool kmem_cache_alloc_bulk_noprof(struct kmem_cache *s, gfp_t gfp, size_t size, void **p)
{
	const struct slab_alloc_context ac = {
		.caller_addr = _RET_IP_,
		.orig_size = s->object_size,
		.alloc_flags = SLAB_ALLOC_DEFAULT,
	};
	size_t i;

	if (!size)
		return false;
	s = slab_pre_alloc_hook(s, gfp);
	if (unlikely(!s))
		return false;
	for (i = 0; i < size; i++) {
		p[i] = kfence_alloc(s, s->object_size, gfp);
		if (!p[i])
			break;
	}
	i += queue_alloc_bulk(s, gfp, size - i, p + i, _RET_IP_);
	if (unlikely(i < size)) {
		/*
		 * Give back what was allocated as any allocated object is
		 * freed: the hooks first, so that they stay paired.  On a
		 * memcg charge failure the hook has freed them already.
		 */
		if (i && slab_post_alloc_hook(s, gfp, i, p, &ac))
			kmem_cache_free_bulk(s, i, p);
		return false;
	}
	return likely(slab_post_alloc_hook(s, gfp, size, p, &ac));
}
EXPORT_SYMBOL(kmem_cache_alloc_bulk_noprof);

/* === Prefilled sheaves =================================================== */

/*
 * The prefilled-sheaf API (the maple tree, VMAs): a caller reserves up to
 * @size objects before it takes its locks, then allocates from the
 * reservation without failing.  A SLEB sheaf is an array of objects taken
 * from the queues as a bulk allocation does, without the allocation hooks;
 * the hooks run when an object leaves the sheaf.
 */
struct slab_sheaf {
	unsigned int capacity;
	unsigned int size;
	void *objects[];
};

static struct slab_sheaf *sheaf_alloc(unsigned int capacity, gfp_t gfp)
{
	struct slab_sheaf *sheaf;

	/* Only how to reclaim comes from the caller's flags. */
	sheaf = kmalloc_flex(*sheaf, objects, capacity, gfp & (GFP_RECLAIM_MASK & ~__GFP_NOFAIL));
	if (!sheaf)
		return NULL;
	sheaf->capacity = capacity;
	sheaf->size = 0;
	/* As a queue's slots: no references to objects handed out since. */
	kmemleak_no_scan(sheaf);
	return sheaf;
}

/* Fill @sheaf up to @size objects; -ENOMEM if it could not. */
static int sheaf_fill(struct kmem_cache *s, gfp_t gfp, struct slab_sheaf *sheaf,
		      unsigned int size)
{
	unsigned int want = size - sheaf->size;

	if (sheaf->size >= size)
		return 0;
	sheaf->size += queue_alloc_bulk(s, gfp & ~__GFP_ZERO, want,
					&sheaf->objects[sheaf->size], _RET_IP_);
	return sheaf->size >= size ? 0 : -ENOMEM;
}

/* Give the objects still in @sheaf back to the queues, then the sheaf. */
static void sheaf_free(struct kmem_cache *s, struct slab_sheaf *sheaf)
{
	while (sheaf->size) {
		void *x = sheaf->objects[--sheaf->size];
		struct slab *slab = virt_to_slab(x);

		queue_free_checked(s, slab, x, _RET_IP_);
	}
	kfree(sheaf);
}

/**
 * kmem_cache_prefill_sheaf - reserve objects of a cache
 * @s: the cache
 * @gfp: GFP_* flags for filling the sheaf
 * @size: objects to reserve
 *
 * Return: a sheaf of at least @size objects, or NULL (also for @size 0).
 */
struct slab_sheaf *kmem_cache_prefill_sheaf(struct kmem_cache *s, gfp_t gfp,
					    unsigned int size)
{
	struct slab_sheaf *sheaf;

	if (unlikely(!size))
		return NULL;
	sheaf = sheaf_alloc(max(size, s->cpu_batch_size), gfp);
	if (!sheaf)
		return NULL;
	if (sheaf_fill(s, gfp, sheaf, size)) {
		sheaf_free(s, sheaf);
		return NULL;
	}
	return sheaf;
}

/**
 * kmem_cache_return_sheaf - give back a sheaf and the objects left in it
 * @s: the cache
 * @gfp: unused; SLEB never allocates here
 * @sheaf: the sheaf
 */
void kmem_cache_return_sheaf(struct kmem_cache *s, gfp_t gfp, struct slab_sheaf *sheaf)
{
	sheaf_free(s, sheaf);
}

/**
 * kmem_cache_refill_sheaf - make a sheaf hold at least @size objects
 * @s: the cache
 * @gfp: GFP_* flags for filling
 * @sheafp: the sheaf; replaced by a bigger one if it is too small
 * @size: objects wanted
 *
 * Return: 0, or -ENOMEM with *@sheafp unchanged except for objects added.
 */
int kmem_cache_refill_sheaf(struct kmem_cache *s, gfp_t gfp, struct slab_sheaf **sheafp,
			    unsigned int size)
{
	struct slab_sheaf *sheaf;

	if (!sheafp || !*sheafp)
		return -EINVAL;
	if (size <= (*sheafp)->capacity)
		return sheaf_fill(s, gfp, *sheafp, size);
	sheaf = kmem_cache_prefill_sheaf(s, gfp, size);
	if (!sheaf)
		return -ENOMEM;
	sheaf_free(s, *sheafp);
	*sheafp = sheaf;
	return 0;
}

/**
 * kmem_cache_alloc_from_sheaf - allocate from a prefilled sheaf
 * @s: the cache
 * @gfp: GFP_* flags for the allocation hooks
 * @sheaf: the sheaf
 *
 * Return: an object, NULL only if the sheaf is empty.
 */
void *kmem_cache_alloc_from_sheaf_noprof(struct kmem_cache *s, gfp_t gfp,
					 struct slab_sheaf *sheaf)
{
	const struct slab_alloc_context ac = SLEB_CACHE_ALLOC_CTX(s, NULL);
	void *ret = NULL;

	if (sheaf->size) {
		ret = kfence_alloc(s, s->object_size, gfp);
		if (likely(!ret))
			ret = sheaf->objects[--sheaf->size];
		/* A reserved object does not fail on a memcg limit. */
		slab_post_alloc_hook(s, gfp | __GFP_NOFAIL, 1, &ret, &ac);
	}
	trace_kmem_cache_alloc(_RET_IP_, ret, s, gfp, NUMA_NO_NODE);
	return ret;
}

unsigned int kmem_cache_sheaf_size(struct slab_sheaf *sheaf)
{
	return sheaf->size;
}

/* === Queue management ==================================================== */

static struct sleb_array *sleb_array_alloc(unsigned int size, gfp_t gfp, int node)
{
	struct sleb_array *a;

	a = kmalloc_node(struct_size(a, objects, size), gfp, node);
	if (a) {
		a->count = 0;
		a->size = size;
		/*
		 * Slots above count keep pointers to objects handed out since:
		 * kmemleak must not take them for references (as SLAB's
		 * alloc_arraycache() says), or a leak in a recycled object
		 * goes unreported.
		 */
		kmemleak_no_scan(a);
	}
	return a;
}

static void sleb_array_free(struct sleb_array *a)
{
	if (a != &sleb_boot_queue)
		kfree(a);
}

/*
 * Free an array that was in use: someone may still look at its count
 * under rcu_read_lock() (shared_looks_empty(), cpu_queue_busy()).  May
 * sleep.
 */
static void sleb_array_retire(struct sleb_array *a)
{
	if (a && a != &sleb_boot_queue)
		kvfree_rcu_mightsleep(a);
}

/* Objects given back per acquisition of list_lock when emptying an old array. */
#define SLEB_FLUSH_CHUNK	256

/*
 * Empty an array nobody else sees any more into the slabs, a chunk at a
 * time with the node locks dropped in between.  Process context, no lock
 * held.
 */
static void flush_detached(struct kmem_cache *s, struct sleb_array *a)
{
	while (a->count) {
		unsigned int nr = min_t(unsigned int, a->count, SLEB_FLUSH_CHUNK);
		LIST_HEAD(discard);

		sleb_free_to_slabs(s, a->objects + a->count - nr, nr, &discard);
		a->count -= nr;
		sleb_discard_list(&discard);
		cond_resched();
	}
}

static void swap_queue(struct kmem_cache *s, int cpu, struct sleb_array **q)
{
	struct sleb_cpu *c = per_cpu_ptr(s->cpu, cpu);

	swap(c->queue, *q);
}

static void swap_queues_on_cpus(struct kmem_cache *s, struct sleb_array **queues);

/*
 * Give every CPU a queue of @size objects.  The old queues are replaced on
 * their own CPUs, so nothing is in flight on them afterwards; their objects
 * go back to the slabs and the old arrays are freed.  A cache that nobody
 * can use yet (@unused: being created, or early boot with one CPU and
 * interrupts off) gets its queues directly; its old queues are the empty
 * boot queue.
 */
static int resize_cpu_queues(struct kmem_cache *s, unsigned int size, gfp_t gfp,
			     bool unused)
{
	struct sleb_array **queues;
	int cpu;

	/* In: the new queue of each CPU; out: its old one. */
	queues = kcalloc(nr_cpu_ids, sizeof(*queues), gfp);
	if (!queues)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		queues[cpu] = sleb_array_alloc(size, gfp, per_cpu_ptr(s->cpu, cpu)->home);
		if (!queues[cpu])
			goto nomem;
	}

	if (unused) {
		for_each_possible_cpu(cpu)
			swap_queue(s, cpu, &queues[cpu]);
		for_each_possible_cpu(cpu)
			sleb_array_free(queues[cpu]);
	} else {
		swap_queues_on_cpus(s, queues);
		for_each_possible_cpu(cpu)
			if (!cpu_online(cpu))
				swap_queue(s, cpu, &queues[cpu]);
		for_each_possible_cpu(cpu) {
			flush_detached(s, queues[cpu]);
			sleb_array_retire(queues[cpu]);
		}
	}
	stat(s, QUEUE_RESIZE);
	kfree(queues);
	return 0;

nomem:
	for_each_possible_cpu(cpu)
		if (queues[cpu])
			sleb_array_free(queues[cpu]);
	kfree(queues);
	return -ENOMEM;
}

/*
 * Give each node a shared array of @size objects (0: none).  What does not
 * fit into the new array goes back to the slabs once the old one is out of
 * reach.  Process context, or a cache nobody uses yet (no old arrays).
 */
static int resize_shared(struct kmem_cache *s, unsigned int size, gfp_t gfp)
{
	struct kmem_cache_node *n;
	int node;

	for_each_kmem_cache_node(s, node, n) {
		struct sleb_array *new = NULL, *old;
		unsigned long flags;

		if (size) {
			new = sleb_array_alloc(size, gfp, node);
			if (!new)
				return -ENOMEM;
		}
		spin_lock_irqsave(&n->shared_lock, flags);
		old = n->shared;
		if (old && new)
			sleb_array_drop_oldest(old, sleb_array_add(new, old->objects, old->count));
		WRITE_ONCE(n->shared, new);
		spin_unlock_irqrestore(&n->shared_lock, flags);
		if (old) {
			flush_detached(s, old);
			sleb_array_retire(old);
		}
	}
	return 0;
}

static bool cpu_queues_are_boot(struct kmem_cache *s)
{
	return per_cpu_ptr(s->cpu, cpumask_first(cpu_possible_mask))->queue == &sleb_boot_queue;
}

static bool shared_present(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	int node;

	for_each_kmem_cache_node(s, node, n)
		if (!n->shared)
			return false;
	return true;
}

/*
 * Set the tunables of a cache.  Called with cpus_read_lock() and slab_mutex
 * held, or for a cache nobody uses yet (@unused, see resize_cpu_queues()).
 */
static int sleb_tune(struct kmem_cache *s, unsigned int queue, unsigned int batch,
		     unsigned int shared, gfp_t gfp, bool unused)
{
	int err = 0;

	if (queue < SLEB_QUEUE_MIN || queue > SLEB_QUEUE_MAX ||
	    batch < 1 || batch > queue || shared > SLEB_SHARED_MAX)
		return -EINVAL;
	if (!unused) {
		lockdep_assert_cpus_held();
		lockdep_assert_held(&slab_mutex);
	}

	/* A batch above a new, shorter queue is harmless: queue_batch() clamps it. */
	if (queue != s->cpu_queue_size || cpu_queues_are_boot(s)) {
		err = resize_cpu_queues(s, queue, gfp, unused);
		if (err)
			return err;
		s->cpu_queue_size = queue;
	}
	WRITE_ONCE(s->cpu_batch_size, batch);

	if (shared != s->shared_queue_size || (shared && !shared_present(s))) {
		err = resize_shared(s, shared, gfp);
		if (err)
			return err;
		s->shared_queue_size = shared;
	}
	return 0;
}

#ifdef CONFIG_SYSFS
/* Which tunable sleb_set_tunable() changes. */
enum sleb_tunable {
	SLEB_TUNE_QUEUE,
	SLEB_TUNE_BATCH,
	SLEB_TUNE_SHARED,
};

/*
 * Change one tunable of a cache in use, the others as they are when the
 * locks are held: two writers of different tunables do not undo each
 * other.  A shorter queue than the batch takes the default batch of its
 * size.
 */
static int sleb_set_tunable(struct kmem_cache *s, enum sleb_tunable which,
			    unsigned int val)
{
	unsigned int queue, batch, shared;
	int err;

	cpus_read_lock();
	mutex_lock(&slab_mutex);
	queue = s->cpu_queue_size;
	batch = s->cpu_batch_size;
	shared = s->shared_queue_size;
	switch (which) {
	case SLEB_TUNE_QUEUE:
		queue = val;
		if (batch > queue)
			batch = sleb_default_batch(queue);
		break;
	case SLEB_TUNE_BATCH:
		batch = val;
		break;
	case SLEB_TUNE_SHARED:
		shared = val;
		break;
	}
	err = sleb_tune(s, queue, batch, shared, GFP_KERNEL, false);
	mutex_unlock(&slab_mutex);
	cpus_read_unlock();
	return err;
}
#endif

#if IS_ENABLED(CONFIG_SLEB_KUNIT_TEST)
/* sleb_tune() for a cache in use, taking the locks it wants. */
static int sleb_tune_in_use(struct kmem_cache *s, unsigned int queue,
			    unsigned int batch, unsigned int shared)
{
	int err;

	cpus_read_lock();
	mutex_lock(&slab_mutex);
	err = sleb_tune(s, queue, batch, shared, GFP_KERNEL, false);
	mutex_unlock(&slab_mutex);
	cpus_read_unlock();
	return err;
}
#endif

static int sleb_tune_defaults(struct kmem_cache *s, gfp_t gfp, bool unused)
{
	unsigned int queue = max(sleb_default_queue_size(s->size), s->queue_hint);
	unsigned int shared = 0;

	if (num_possible_cpus() > 1 && s->size <= PAGE_SIZE)
		shared = queue;
	return sleb_tune(s, queue, sleb_default_batch(queue), shared, gfp, unused);
}

/* === Flushing queues on their CPUs ======================================= */

/*
 * A queue is only touched on its own CPU.  Emptying the queues of every
 * CPU is a work item per CPU, in process context, so that the slabs that
 * become free are released with no lock held and not in an interrupted
 * task's name.  The workqueue may reclaim: the shrinker uses it.
 */
static struct workqueue_struct *sleb_wq;

/* Serialises the users of sleb_flush_works and sleb_flush_cpus. */
static DEFINE_MUTEX(sleb_flush_mutex);

/**
 * struct sleb_flush_work - a flush request for one CPU
 * @work: runs on that CPU
 * @s: the cache to flush (sleb_flush_work())
 * @home: the CPU's new home node (sleb_rehome_work())
 * @budget: the most objects to give back, oldest first
 * @done: how many were given back
 * @queues: new queues by CPU, swapped for the old ones (sleb_swap_work())
 */
struct sleb_flush_work {
	struct work_struct work;
	struct kmem_cache *s;
	int home;
	unsigned long budget;
	unsigned long done;
	struct sleb_array **queues;
};

static DEFINE_PER_CPU(struct sleb_flush_work, sleb_flush_works);
static struct cpumask sleb_flush_cpus;	/* Protected by sleb_flush_mutex. */

/*
 * Give up to @max of the oldest objects of this CPU's queue of @s back to
 * the slabs; in process context, not in an IPI.  Returns how many.
 */
static unsigned int trim_this_cpu(struct kmem_cache *s, unsigned long max)
{
	struct sleb_array *q;
	unsigned int nr;
	LIST_HEAD(discard);

	queue_lock(s);
	q = cpu_queue(s);
	nr = min_t(unsigned long, q->count, max);
	if (nr) {
		array_give_back_oldest(s, q, nr, &discard);
		stat(s, QUEUE_FLUSH);
	}
	queue_unlock(s);
	sleb_discard_list(&discard);
	return nr;
}

static void sleb_flush_work(struct work_struct *w)
{
	struct sleb_flush_work *fw = container_of(w, struct sleb_flush_work, work);

	fw->done = trim_this_cpu(fw->s, fw->budget);
}

/*
 * Run @fn with a copy of @req on every CPU of sleb_flush_cpus and wait for
 * it; returns the sum of their @done.  Before the workqueue exists only
 * the boot CPU runs: @fn runs here.
 */
static unsigned long run_on_flush_cpus(work_func_t fn, const struct sleb_flush_work *req)
{
	struct sleb_flush_work *fw;
	unsigned long done = 0;
	int cpu;

	lockdep_assert_cpus_held();
	lockdep_assert_held(&sleb_flush_mutex);
	if (unlikely(!READ_ONCE(sleb_wq))) {
		WARN_ON_ONCE(num_online_cpus() > 1);
		fw = raw_cpu_ptr(&sleb_flush_works);
		fw->s = req->s;
		fw->home = req->home;
		fw->budget = req->budget;
		fw->queues = req->queues;
		fn(&fw->work);
		return fw->done;
	}
	for_each_cpu(cpu, &sleb_flush_cpus) {
		fw = per_cpu_ptr(&sleb_flush_works, cpu);
		INIT_WORK(&fw->work, fn);
		fw->s = req->s;
		fw->home = req->home;
		fw->budget = req->budget;
		fw->queues = req->queues;
		queue_work_on(cpu, sleb_wq, &fw->work);
	}
	for_each_cpu(cpu, &sleb_flush_cpus) {
		fw = per_cpu_ptr(&sleb_flush_works, cpu);
		flush_work(&fw->work);
		done += fw->done;
	}
	return done;
}

/* Put this CPU's new queue in place; its old one takes the slot. */
static void sleb_swap_work(struct work_struct *w)
{
	struct sleb_flush_work *fw = container_of(w, struct sleb_flush_work, work);

	queue_lock(fw->s);
	swap_queue(fw->s, smp_processor_id(), &fw->queues[smp_processor_id()]);
	queue_unlock(fw->s);
}

/*
 * Replace the queues of @s on every online CPU, on that CPU, in a work
 * item: not in an IPI, where the queue's lock (a local_lock, a sleeping
 * lock on PREEMPT_RT) may not be taken.  Called with cpus_read_lock().
 */
static void swap_queues_on_cpus(struct kmem_cache *s, struct sleb_array **queues)
{
	struct sleb_flush_work req = { .s = s, .queues = queues };

	lockdep_assert_cpus_held();
	mutex_lock(&sleb_flush_mutex);
	cpumask_copy(&sleb_flush_cpus, cpu_online_mask);
	run_on_flush_cpus(sleb_swap_work, &req);
	mutex_unlock(&sleb_flush_mutex);
}

/*
 * Whether @cpu's queue of @s holds objects.  Another CPU's queue may be
 * replaced and freed meanwhile: it is looked at under rcu_read_lock().
 */
static bool cpu_queue_busy(struct kmem_cache *s, int cpu)
{
	bool busy;

	rcu_read_lock();
	busy = READ_ONCE(READ_ONCE(per_cpu_ptr(s->cpu, cpu)->queue)->count);
	rcu_read_unlock();
	return busy;
}

/* Empty the queues of @s on every online CPU that holds objects of it. */
static void flush_cpu_queues(struct kmem_cache *s)
{
	struct sleb_flush_work req = { .s = s, .budget = ULONG_MAX };
	int cpu;

	lockdep_assert_cpus_held();
	mutex_lock(&sleb_flush_mutex);
	cpumask_clear(&sleb_flush_cpus);
	for_each_online_cpu(cpu)
		if (cpu_queue_busy(s, cpu))
			cpumask_set_cpu(cpu, &sleb_flush_cpus);
	run_on_flush_cpus(sleb_flush_work, &req);
	mutex_unlock(&sleb_flush_mutex);
}

static void flush_shared_arrays(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	int node;

	for_each_kmem_cache_node(s, node, n)
		shared_flush(s, n);
}

/* Empty every queue and shared array of a cache into its slabs. */
static void flush_all_cpus_locked(struct kmem_cache *s)
{
	flush_cpu_queues(s);
	flush_shared_arrays(s);
}

void sleb_flush_all(struct kmem_cache *s)
{
	cpus_read_lock();
	flush_all_cpus_locked(s);
	cpus_read_unlock();
}

/* A dead CPU's queues, which nobody uses any more, go back to the slabs. */
static int sleb_cpu_dead(unsigned int cpu)
{
	struct kmem_cache *s;

	mutex_lock(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list)
		flush_detached(s, per_cpu_ptr(s->cpu, cpu)->queue);
	mutex_unlock(&slab_mutex);
	return 0;
}

static int __init sleb_wq_init(void)
{
	struct workqueue_struct *wq;

	wq = alloc_workqueue("sleb_flushwq", WQ_MEM_RECLAIM | WQ_PERCPU, 0);
	if (!wq)
		panic("SLEB: cannot create the flush workqueue\n");
	WRITE_ONCE(sleb_wq, wq);
	return 0;
}
early_initcall(sleb_wq_init);

/* === Reaping ============================================================= */

/*
 * Objects in queues and shared arrays are free memory that nobody else can
 * use.  As SLAB's cache_reap() does, each CPU looks at its queues and at
 * its node's shared arrays every reap_interval_ms (deferrable, so an idle
 * CPU is not woken for it; isolated CPUs are left out, see
 * reaper_leaves_cpu()): an array that was neither refilled nor drained
 * since the last look gives a fifth of its size back to the slabs, oldest
 * objects first; one in use keeps its objects.  Slabs that become empty
 * are freed above min_partial by the usual free path.  Under memory
 * pressure (and on drop_caches) a shrinker gives back as many objects as
 * reclaim asks for, without waiting for the next pass.
 */

#define SLEB_REAP_DEFAULT_MS	2000
#define SLEB_REAP_MIN_MS	100
#define SLEB_REAP_MAX_MS	600000

static unsigned int sleb_reap_ms = SLEB_REAP_DEFAULT_MS;
static DEFINE_PER_CPU(struct delayed_work, sleb_reap_work);
static bool sleb_reap_running;

/* The part of an idle array given back per pass: a fifth, rounded up. */
static inline unsigned int reap_share(const struct sleb_array *a)
{
	return min(a->count, (a->size + 4) / 5);
}

/* Give back part of this CPU's queue of @s if it was idle; returns how much. */
static unsigned int reap_cpu_queue(struct kmem_cache *s)
{
	struct sleb_cpu *c;
	struct sleb_array *q;
	unsigned int nr = 0;
	LIST_HEAD(discard);

	queue_lock(s);
	c = this_cpu_ptr(s->cpu);
	q = c->queue;
	if (c->touched) {
		c->touched = false;
	} else if (q->count) {
		nr = reap_share(q);
		array_give_back_oldest(s, q, nr, &discard);
		stat(s, QUEUE_REAP);
	}
	queue_unlock(s);
	sleb_discard_list(&discard);
	return nr;
}

/*
 * Whether it is the turn of node @n's shared array: every CPU at home on
 * the node comes here each pass, the first one after the interval takes
 * the turn.
 */
static bool shared_reap_due(struct kmem_cache_node *n)
{
	unsigned long interval = msecs_to_jiffies(READ_ONCE(sleb_reap_ms));
	unsigned long next = READ_ONCE(n->next_reap);

	/* Further off than one interval: the interval was shortened since. */
	if (time_before(jiffies, next) && !time_after(next, jiffies + interval))
		return false;
	return try_cmpxchg(&n->next_reap, &next, jiffies + interval);
}

/* Give back part of the shared array of node @n if it was idle. */
static unsigned int reap_shared(struct kmem_cache *s, struct kmem_cache_node *n)
{
	struct sleb_array *a;
	unsigned long flags;
	unsigned int nr = 0;
	LIST_HEAD(discard);

	if (!READ_ONCE(n->shared))
		return 0;
	spin_lock_irqsave(&n->shared_lock, flags);
	a = n->shared;
	if (n->shared_touched) {
		n->shared_touched = false;
	} else if (a && a->count) {
		nr = reap_share(a);
		array_give_back_oldest(s, a, nr, &discard);
		stat(s, QUEUE_REAP);
	}
	spin_unlock_irqrestore(&n->shared_lock, flags);
	sleb_discard_list(&discard);
	return nr;
}

/*
 * A CPU isolated from the scheduler domains (isolcpus=, an isolated cpuset
 * partition) or from kernel noise (nohz_full=) gets no reap pass, as
 * vmstat_shepherd() leaves it alone: the pass's timer would fire on a
 * housekeeping CPU and wake it every interval.  Its queues still go back
 * under memory pressure (the shrinker), on kmem_cache_shrink() and when it
 * goes offline; its node's shared arrays are reaped by the node's other
 * CPUs, or by the first reaper when the node has none.  A CPU that leaves
 * an isolated cpuset partition gets its pass back from the first reaper.
 * Call under rcu_read_lock(): a cpuset partition changes the domain
 * housekeeping mask under RCU.
 */
static bool reaper_leaves_cpu(int cpu)
{
	return cpu_is_isolated(cpu) || !housekeeping_cpu(cpu, HK_TYPE_KERNEL_NOISE);
}

/*
 * Queue @cpu's next pass after @delay jiffies (@mod: move a queued one)
 * unless the CPU is isolated.  The check and the queueing are one RCU
 * read-side section, as memcg queues its drain work: whoever isolates the
 * CPU and then waits for a grace period finds the pass queued already or
 * not at all.  A pass queued already still runs once on the CPU, sees the
 * isolation and stops.
 */
static void reap_queue_on(int cpu, unsigned long delay, bool mod)
{
	struct delayed_work *work = per_cpu_ptr(&sleb_reap_work, cpu);

	guard(rcu)();
	if (reaper_leaves_cpu(cpu))
		return;
	if (mod)
		mod_delayed_work_on(cpu, system_percpu_wq, work, delay);
	else
		queue_delayed_work_on(cpu, system_percpu_wq, work, delay);
}

/* The delay of @cpu's next pass. */
static unsigned long reap_delay(int cpu)
{
	unsigned int ms = READ_ONCE(sleb_reap_ms);
	unsigned long delay = msecs_to_jiffies(ms);

	/* Whole seconds are rounded so that the CPUs' timers fire together. */
	if (ms >= MSEC_PER_SEC)
		delay = __round_jiffies_relative(delay, cpu);
	return delay;
}

/*
 * Whether @cpu, whose pass runs, is the first reaper: no online CPU before
 * it has a pass pending.  A CPU that lost its pass (isolated meanwhile)
 * does not count, so that the first reaper is always one that runs.  Two
 * CPUs may both count themselves first for a moment; what the first
 * reaper does is safe twice.
 */
static bool first_reaper(int cpu)
{
	int other;

	guard(rcu)();
	for_each_online_cpu(other) {
		if (other == cpu)
			return true;
		if (!reaper_leaves_cpu(other) &&
		    delayed_work_pending(per_cpu_ptr(&sleb_reap_work, other)))
			return false;
	}
	return false;
}

/*
 * The first reaper queues the pass of every online CPU that should have
 * one and has none, as vmstat_shepherd() does: a CPU stops its pass while
 * isolated, and leaving an isolated cpuset partition tells no one.  A
 * CPU with a pass pending keeps it.  Only tries the hotplug lock: a CPU
 * going offline waits for this very pass with it held.
 */
static void rearm_reapers(void)
{
	int cpu;

	if (!cpus_read_trylock())
		return;
	for_each_online_cpu(cpu)
		if (cpu != smp_processor_id())
			reap_queue_on(cpu, reap_delay(cpu), false);
	cpus_read_unlock();
}

/*
 * The nodes whose shared arrays this CPU reaps: its home node, and on the
 * first reaper (@first) the nodes with memory that are home to no online
 * CPU that reaps (a node with memory but no CPU gets objects freed
 * remotely; a node whose CPUs are all isolated gets them from its CPUs).
 */
static void reap_nodes(nodemask_t *nodes, bool first)
{
	int cpu;

	nodes_clear(*nodes);
	if (first) {
		*nodes = sleb_nodes;
		guard(rcu)();
		for_each_online_cpu(cpu)
			if (!reaper_leaves_cpu(cpu))
				node_clear(per_cpu(sleb_home_node, cpu), *nodes);
	}
	node_set(home_node(), *nodes);
}

/* The per-cpu reap pass; runs bound to its CPU. */
static void sleb_reap(struct work_struct *w)
{
	struct kmem_cache_node *n;
	struct kmem_cache *s;
	nodemask_t nodes;
	bool first;
	int nid;

	/* Isolated since the pass was queued (a cpuset partition): stop. */
	scoped_guard(rcu) {
		if (reaper_leaves_cpu(smp_processor_id()))
			return;
	}
	first = first_reaper(smp_processor_id());
	if (first)
		rearm_reapers();
	/* Caches are being created or destroyed: try again next time. */
	if (!mutex_trylock(&slab_mutex))
		goto out;
	reap_nodes(&nodes, first);
	list_for_each_entry(s, &slab_caches, list) {
		reap_cpu_queue(s);
		for_each_node_mask(nid, nodes) {
			n = get_node(s, nid);
			if (n && shared_reap_due(n))
				reap_shared(s, n);
		}
		cond_resched();
	}
	mutex_unlock(&slab_mutex);
out:
	reap_queue_on(smp_processor_id(), reap_delay(smp_processor_id()), false);
}

static int sleb_reap_online(unsigned int cpu)
{
	/* Spread the CPUs' passes over a second. */
	reap_queue_on(cpu, round_jiffies_relative(HZ) + cpu % HZ, false);
	return 0;
}

static int sleb_reap_offline(unsigned int cpu)
{
	cancel_delayed_work_sync(per_cpu_ptr(&sleb_reap_work, cpu));
	return 0;
}

static int sleb_reap_ms_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms, cpu;

	if (kstrtouint(val, 0, &ms) || ms < SLEB_REAP_MIN_MS || ms > SLEB_REAP_MAX_MS)
		return -EINVAL;
	WRITE_ONCE(sleb_reap_ms, ms);
	/* From the command line this runs before there are workqueues. */
	if (!READ_ONCE(sleb_reap_running))
		return 0;
	/* The next pass comes after the new interval, not the old one. */
	cpus_read_lock();
	for_each_online_cpu(cpu)
		reap_queue_on(cpu, msecs_to_jiffies(ms), true);
	cpus_read_unlock();
	return 0;
}

static const struct kernel_param_ops sleb_reap_ms_ops = {
	.set = sleb_reap_ms_set,
	.get = param_get_uint,
};
module_param_cb(reap_interval_ms, &sleb_reap_ms_ops, &sleb_reap_ms, 0644);
MODULE_PARM_DESC(reap_interval_ms, "Milliseconds between reap passes (100-600000)");

/*
 * The shrinker: under memory pressure on node N, the objects that queues
 * and shared arrays hold on N go back to the slabs, as many as reclaim
 * asks to scan, oldest first, newest cache first.  Shared arrays first,
 * emptied from here under their lock; then, if that was not enough, this
 * CPU's queues if it is at home on N, and a work item for each other CPU
 * at home on N that holds objects.  No IPI: the shrinker runs often; a
 * CPU with nothing queued is left alone (one with objects, even an
 * isolated one, gets a work item).
 */

/* Objects in @nid's shared arrays and in the queues of CPUs at home there. */
static unsigned long count_idle_node(int nid)
{
	struct kmem_cache_node *n;
	struct kmem_cache *s;
	unsigned long nr = 0;
	int cpu;

	lockdep_assert_held(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list) {
		for_each_online_cpu(cpu)
			if (per_cpu(sleb_home_node, cpu) == nid)
				nr += READ_ONCE(per_cpu_ptr(s->cpu, cpu)->queue->count);
		n = get_node(s, nid);
		if (n && n->shared)
			nr += READ_ONCE(n->shared->count);
	}
	return nr;
}

/* Give up to @max of the oldest objects of @nid's shared array back. */
static unsigned int trim_shared(struct kmem_cache *s, int nid, unsigned long max)
{
	struct kmem_cache_node *n = get_node(s, nid);
	unsigned int nr = 0;
	unsigned long flags;
	LIST_HEAD(discard);

	if (!n || !READ_ONCE(n->shared))
		return 0;
	spin_lock_irqsave(&n->shared_lock, flags);
	if (n->shared) {
		nr = min_t(unsigned long, n->shared->count, max);
		array_give_back_oldest(s, n->shared, nr, &discard);
	}
	spin_unlock_irqrestore(&n->shared_lock, flags);
	sleb_discard_list(&discard);
	return nr;
}

/**
 * struct sleb_shrink_request - the shrinker's request to another CPU
 * @work: runs on that CPU, not waited for
 * @budget: the most objects to give back; the shrinker's calls add to it
 *	while @work is pending, and @work takes all of it
 */
struct sleb_shrink_request {
	struct work_struct work;
	atomic_long_t budget;
};

static DEFINE_PER_CPU(struct sleb_shrink_request, sleb_shrink_requests);

/* Whether @cpu holds objects in any queue; the caller holds slab_mutex. */
static bool cpu_holds_objects(int cpu)
{
	struct kmem_cache *s;

	lockdep_assert_held(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list)
		if (READ_ONCE(per_cpu_ptr(s->cpu, cpu)->queue->count))
			return true;
	return false;
}

/* Up to @max of the oldest objects of this CPU's queues, newest cache first. */
static unsigned long trim_this_cpu_all(unsigned long max)
{
	struct kmem_cache *s;
	unsigned long done = 0;

	lockdep_assert_held(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list) {
		if (done >= max)
			break;
		done += trim_this_cpu(s, max - done);
	}
	return done;
}

/*
 * Another CPU's part of the shrinker's calls.  It only tries to take
 * slab_mutex; if it cannot, the budget waits for the next request.
 */
static void sleb_shrink_work(struct work_struct *w)
{
	struct sleb_shrink_request *r = container_of(w, struct sleb_shrink_request, work);

	if (!mutex_trylock(&slab_mutex))
		return;
	trim_this_cpu_all(atomic_long_xchg(&r->budget, 0));
	mutex_unlock(&slab_mutex);
}

/*
 * Give up to @max objects of the queues of the CPUs at home on @nid back:
 * this CPU's here and now (credited to this reclaim), the rest by the
 * other CPUs' work items, which are not waited for -- reclaim must not
 * stall behind a CPU that does not get to run them.  A request adds to
 * the budget of a work item still pending, so that every object reclaim
 * asked for is given back, by this call or a later one.  Returns what was
 * given back here; *@handed_out says whether other CPUs were asked.
 */
static unsigned long trim_node_queues(int nid, unsigned long max, bool *handed_out)
{
	unsigned long done = 0, budget;
	unsigned int cpu, others = 0;
	struct cpumask *cpus;

	lockdep_assert_held(&slab_mutex);
	*handed_out = false;
	migrate_disable();
	if (home_node() == nid)
		done = trim_this_cpu_all(max);
	if (done >= max || !READ_ONCE(sleb_wq) || !mutex_trylock(&sleb_flush_mutex)) {
		migrate_enable();
		return done;
	}
	cpus = &sleb_flush_cpus;
	cpumask_clear(cpus);
	for_each_online_cpu(cpu)
		if (cpu != smp_processor_id() && per_cpu(sleb_home_node, cpu) == nid &&
		    cpu_holds_objects(cpu))
			cpumask_set_cpu(cpu, cpus);
	migrate_enable();
	others = cpumask_weight(cpus);
	budget = others ? DIV_ROUND_UP(max - done, others) : 0;
	for_each_cpu(cpu, cpus) {
		struct sleb_shrink_request *r = per_cpu_ptr(&sleb_shrink_requests, cpu);

		atomic_long_add(budget, &r->budget);
		queue_work_on(cpu, sleb_wq, &r->work);
	}
	mutex_unlock(&sleb_flush_mutex);
	*handed_out = others != 0;
	return done;
}

static unsigned long sleb_shrink_count(struct shrinker *shrink,
				       struct shrink_control *sc)
{
	unsigned long nr;

	/* Reclaim inside kmem_cache_create() must not wait for slab_mutex. */
	if (!mutex_trylock(&slab_mutex))
		return 0;
	nr = count_idle_node(sc->nid);
	mutex_unlock(&slab_mutex);
	return nr ? nr : SHRINK_EMPTY;
}

static unsigned long sleb_shrink_scan(struct shrinker *shrink,
				      struct shrink_control *sc)
{
	unsigned long want = sc->nr_to_scan, freed = 0;
	bool handed_out = false;
	struct kmem_cache *s;

	if (!cpus_read_trylock())
		return SHRINK_STOP;
	if (!mutex_trylock(&slab_mutex)) {
		cpus_read_unlock();
		return SHRINK_STOP;
	}
	list_for_each_entry(s, &slab_caches, list) {
		if (freed >= want)
			break;
		freed += trim_shared(s, sc->nid, want - freed);
	}
	if (freed < want)
		freed += trim_node_queues(sc->nid, want - freed, &handed_out);
	mutex_unlock(&slab_mutex);
	cpus_read_unlock();
	/* Scanned, to be freed by other CPUs: reclaim goes on asking. */
	if (!freed && handed_out)
		return 0;
	return freed ? freed : SHRINK_STOP;
}

static int __init sleb_reap_init(void)
{
	struct shrinker *shrinker;
	int cpu, ret;

	for_each_possible_cpu(cpu) {
		INIT_DEFERRABLE_WORK(per_cpu_ptr(&sleb_reap_work, cpu), sleb_reap);
		INIT_WORK(&per_cpu_ptr(&sleb_shrink_requests, cpu)->work, sleb_shrink_work);
	}
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "mm/sleb:reap",
				sleb_reap_online, sleb_reap_offline);
	if (ret < 0)
		pr_warn("SLEB: no reaper for idle queues (error %d)\n", ret);
	else
		WRITE_ONCE(sleb_reap_running, true);
	shrinker = shrinker_alloc(SHRINKER_NUMA_AWARE, "sleb-queues");
	if (!shrinker) {
		pr_warn("SLEB: no shrinker for idle queues\n");
		return 0;
	}
	shrinker->count_objects = sleb_shrink_count;
	shrinker->scan_objects = sleb_shrink_scan;
	shrinker_register(shrinker);
	return 0;
}
device_initcall(sleb_reap_init);

/* === Cache lifecycle ===================================================== */

/*
 * Free the empty slabs of a node, whatever min_partial says.  A slab's list
 * state says it is empty: no bitmap is read, so a cold slab costs the
 * walk one line of struct slab.
 */
static void node_shrink(struct kmem_cache *s, struct kmem_cache_node *n)
{
	struct slab *slab, *next;
	unsigned long flags;
	LIST_HEAD(discard);

	spin_lock_irqsave(&n->list_lock, flags);
	list_for_each_entry_safe(slab, next, &n->partial, slab_list)
		if (slab_listed_empty(slab))
			node_remove_slab(n, slab, &discard);
	spin_unlock_irqrestore(&n->list_lock, flags);
	sleb_discard_list(&discard);
}

/* Empty the queues and shared arrays, free empty slabs; 1 if slabs remain. */
static int shrink_cache_locked(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	int node, ret = 0;

	flush_all_cpus_locked(s);
	for_each_kmem_cache_node(s, node, n) {
		node_shrink(s, n);
		if (READ_ONCE(n->nr_slabs))
			ret = 1;
	}
	return ret;
}

int __kmem_cache_shrink(struct kmem_cache *s)
{
	int ret;

	cpus_read_lock();
	ret = shrink_cache_locked(s);
	cpus_read_unlock();
	return ret;
}

bool __kmem_cache_empty(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	int node;

	for_each_kmem_cache_node(s, node, n)
		if (READ_ONCE(n->nr_slabs))
			return false;
	return true;
}

/* Name the objects still in use in a cache that is being destroyed. */
static void report_leaks(struct kmem_cache *s, struct kmem_cache_node *n)
{
	unsigned int shown = 0, i;
	struct slab *slab;
	unsigned long flags;

	pr_err("SLEB %s: %lu slabs with objects remaining on kmem_cache_destroy()\n",
	       s->name, n->nr_slabs);
	spin_lock_irqsave(&n->list_lock, flags);
	list_for_each_entry(slab, &n->full, slab_list)
		for (i = 0; i < slab->objects && shown < 16; i++, shown++)
			pr_err("SLEB %s: object %p in use\n", s->name,
			       slab_object(s, slab, i));
	list_for_each_entry(slab, &n->partial, slab_list)
		for (i = 0; i < slab->objects && shown < 16; i++)
			if (!test_bit(i, slab_map(slab))) {
				pr_err("SLEB %s: object %p in use\n", s->name,
				       slab_object(s, slab, i));
				shown++;
			}
	spin_unlock_irqrestore(&n->list_lock, flags);
}

/* Called by kmem_cache_destroy() with cpus_read_lock() and slab_mutex held. */
int __kmem_cache_shutdown(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	int node, ret = 0;

	flush_all_cpus_locked(s);
	for_each_kmem_cache_node(s, node, n) {
		node_shrink(s, n);
		if (n->nr_slabs) {
			report_leaks(s, n);
			ret = 1;
		}
	}
	return ret;
}

static void free_nodes(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	int node;

	for_each_kmem_cache_node(s, node, n) {
		kfree(n->shared);
		s->node[node] = NULL;
		kmem_cache_free(kmem_cache_node, n);
	}
}

static void free_cpu_queues(struct kmem_cache *s)
{
	int cpu;

	if (!s->cpu)
		return;
	for_each_possible_cpu(cpu)
		sleb_array_free(per_cpu_ptr(s->cpu, cpu)->queue);
	free_percpu(s->cpu);
	s->cpu = NULL;
}

void __kmem_cache_release(struct kmem_cache *s)
{
	cache_random_seq_destroy(s);
	free_cpu_queues(s);
	free_nodes(s);
}

static void init_node(struct kmem_cache_node *n)
{
	spin_lock_init(&n->list_lock);
	spin_lock_init(&n->shared_lock);
	INIT_LIST_HEAD(&n->partial);
	INIT_LIST_HEAD(&n->full);
	n->nr_partial = 0;
	n->nr_empty = 0;
	n->nr_slabs = 0;
	n->total_objects = 0;
	n->partial_objects = 0;
	n->free_objects = 0;
	n->shared = NULL;
	n->shared_touched = false;
	n->next_reap = jiffies;
}

/*
 * The kmem_cache_node cache needs a node structure before it can allocate
 * one: carve it out of the cache's own first slab on that node, which has
 * normal memory.  The slab goes on that node's list: it must be there.
 */
static void __init bootstrap_node(int node)
{
	struct kmem_cache *s = kmem_cache_node;
	struct kmem_cache_node *n;
	struct slab *slab;
	void *object;

	slab = sleb_new_slab(s, GFP_NOWAIT | __GFP_THISNODE, node);
	if (!slab)
		panic("SLEB: no memory for the kmem_cache_node cache on node %d\n", node);
	sleb_map_take(slab_map(slab), slab->objects, slab_base(s, slab), s->size, &object, 1);
	if (sleb_debug_cache(s))
		sleb_debug_alloc(s, object, _RET_IP_);
	n = kasan_slab_alloc(s, object, GFP_NOWAIT, false);
	/* kmemleak scans it for the node's shared array. */
	kmemleak_alloc(n, sizeof(*n), 1, GFP_NOWAIT);
	init_node(n);
	s->node[node] = n;
	spin_lock(&n->list_lock);
	node_add_new_slab(n, slab);
	spin_unlock(&n->list_lock);
}

static int init_nodes(struct kmem_cache *s, gfp_t gfp)
{
	struct kmem_cache_node *n;
	int node;

	/*
	 * A node of movable memory only has no slab of its own for its
	 * structure: it gets one from another node's slabs, as in any cache.
	 */
	if (slab_state == DOWN)
		for_each_node_mask(node, sleb_nodes)
			if (node_state(node, N_NORMAL_MEMORY))
				bootstrap_node(node);
	for_each_node_mask(node, sleb_nodes) {
		if (get_node(s, node))
			continue;
		n = kmem_cache_alloc_node(kmem_cache_node, gfp, node);
		if (!n) {
			free_nodes(s);
			return -ENOMEM;
		}
		init_node(n);
		s->node[node] = n;
	}
	return 0;
}

static int init_cpu_queues(struct kmem_cache *s)
{
	int cpu;

	s->cpu = alloc_percpu(struct sleb_cpu);
	if (!s->cpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct sleb_cpu *c = per_cpu_ptr(s->cpu, cpu);

		local_trylock_init(&c->lock);
		c->queue = &sleb_boot_queue;
		c->home = per_cpu(sleb_home_node, cpu);
	}
	return 0;
}

/* Smallest order whose waste is at most 1/@fraction of the slab. */
static int order_for_waste(unsigned int size, unsigned int min_objects,
			   unsigned int fraction)
{
	unsigned int order;

	for (order = get_order(size); order <= SLEB_MAX_ORDER; order++) {
		unsigned int objects = sleb_slab_objects(size, order);

		if (objects < min_objects && order < SLEB_MAX_ORDER)
			continue;
		if (objects && sleb_slab_waste(size, order) * fraction <= (PAGE_SIZE << order))
			return order;
	}
	return -1;
}

static unsigned int choose_order(unsigned int size)
{
	unsigned int min_objects = min_t(unsigned int, 4 * (fls(nr_cpu_ids) + 1),
					 SLEB_MIN_OBJECTS);
	unsigned int fraction;
	int order;

	for (fraction = 16; fraction >= 4; fraction /= 2) {
		order = order_for_waste(size, min_objects, fraction);
		if (order >= 0)
			return order;
	}
	return get_order(size);
}

/*
 * @objects of @size in a slab of @order, and room for a bitmap guard
 * (SLEB_MAP_GUARD) with red zoning: one object fewer when the bitmap at
 * the end would touch the last object.
 */
static void set_geometry(struct kmem_cache *s, struct sleb_order_objects *oo,
			 unsigned int size, unsigned int order)
{
	unsigned int objects = sleb_slab_objects(size, order);

	if ((s->flags & SLAB_RED_ZONE) && !sleb_map_in_struct(objects) &&
	    sleb_map_offset(objects, order) < (unsigned long)objects * size + SLEB_MAP_GUARD)
		objects--;
	oo->order = order;
	oo->objects = objects;
}

static int calculate_sizes(struct kmem_cache *s)
{
	unsigned int size = ALIGN(s->object_size, sizeof(void *));

	s->inuse = size;
	s->red_left_pad = 0;
	size = sleb_debug_layout(s, size);
	kasan_cache_create(s, &size, &s->flags);
	size = ALIGN(size + s->red_left_pad, s->align);
	if (!size || get_order(size) > MAX_PAGE_ORDER)
		return -EINVAL;
	s->size = size;
	s->reciprocal_size = reciprocal_value(size);
	set_geometry(s, &s->oo, size, choose_order(size));
	set_geometry(s, &s->min, size, get_order(size));
	if (!s->oo.objects || !s->min.objects)
		return -EINVAL;

	s->allocflags = 0;
	if (s->oo.order)
		s->allocflags |= __GFP_COMP;
	if (s->flags & SLAB_CACHE_DMA)
		s->allocflags |= GFP_DMA;
	if (s->flags & SLAB_CACHE_DMA32)
		s->allocflags |= GFP_DMA32;
	if (s->flags & SLAB_RECLAIM_ACCOUNT)
		s->allocflags |= __GFP_RECLAIMABLE;

	/* As SLUB: bigger objects keep more partial slabs around. */
	s->min_partial = clamp_t(unsigned long, ilog2(s->size) / 2,
				 SLEB_MIN_PARTIAL, SLEB_MAX_PARTIAL);
	return 0;
}

static void sysfs_slab_add(struct kmem_cache *s);

int do_kmem_cache_create(struct kmem_cache *s, const char *name, unsigned int size,
			 struct kmem_cache_args *args, slab_flags_t flags)
{
	gfp_t gfp = slab_state >= UP ? GFP_KERNEL : GFP_NOWAIT;
	int err;

	s->name = name;
	s->size = size;
	s->object_size = size;
	s->flags = kmem_cache_flags(flags, name);
	s->align = args->align;
	s->ctor = args->ctor;
	s->useroffset = args->useroffset;
	s->usersize = args->usersize;
	/* The sheaf size asked of SLUB: at least as many objects per CPU. */
	s->queue_hint = min_t(unsigned int, args->sheaf_capacity, SLEB_QUEUE_MAX);
	err = calculate_sizes(s);
	if (err)
		return err;
	err = init_cpu_queues(s);
	if (err)
		return err;
	err = init_nodes(s, gfp);
	if (err)
		goto out;
	if (slab_state >= UP) {
		err = cache_random_seq_create(s, s->oo.objects, gfp);
		if (err)
			goto out;
		err = sleb_tune_defaults(s, gfp, true);
		if (err)
			goto out;
	}
	if (slab_state >= FULL)
		sysfs_slab_add(s);
	return 0;
out:
	__kmem_cache_release(s);
	return err;
}

#ifndef CONFIG_SLEB_DEBUG
slab_flags_t kmem_cache_flags(slab_flags_t flags, const char *name)
{
	return flags;
}
#endif

/* === Home nodes and memory hotplug ======================================= */

/*
 * N_NORMAL_MEMORY when the homes were last chosen: written under slab_mutex
 * and the memory hotplug lock, read under the latter.
 */
static nodemask_t sleb_normal_nodes;

/*
 * The home node of a CPU of node @nid among the nodes @normal: @nid, or
 * the nearest of them.  Only nodes with memory for slabs (ZONE_NORMAL or
 * lower) make homes: a node with ZONE_MOVABLE memory only is in sleb_nodes
 * once hot-added, but a queue of its objects could never be filled.
 */
static bool can_be_home(int nid, const nodemask_t *normal)
{
	return node_isset(nid, sleb_nodes) && node_isset(nid, *normal);
}

static int nearest_home(int nid, const nodemask_t *normal)
{
	struct zoneref *z;
	struct zone *zone;
	int home;

	if (can_be_home(nid, normal))
		return nid;
	for_each_zone_zonelist(zone, z, node_zonelist(nid, GFP_KERNEL), gfp_zone(GFP_KERNEL)) {
		if (can_be_home(zone_to_nid(zone), normal))
			return zone_to_nid(zone);
	}
	for_each_node_mask(home, sleb_nodes) {
		if (node_isset(home, *normal))
			return home;
	}
	return first_node(sleb_nodes);
}

static int nearest_memory_node(int nid)
{
	return nearest_home(nid, &node_states[N_NORMAL_MEMORY]);
}

/*
 * Set the home node of an offline CPU, whose queues are empty: for the
 * caches that exist (under slab_mutex) and for those to come.
 */
static void set_offline_cpu_home(unsigned int cpu, int home)
{
	struct kmem_cache *s;

	lockdep_assert_held(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list)
		per_cpu_ptr(s->cpu, cpu)->home = home;
	per_cpu(sleb_home_node, cpu) = home;
}

/* A CPU coming up starts with empty queues (sleb_cpu_dead() emptied them). */
static int sleb_cpu_prepare(unsigned int cpu)
{
	int home = nearest_memory_node(cpu_to_node(cpu));

	if (home != per_cpu(sleb_home_node, cpu)) {
		mutex_lock(&slab_mutex);
		set_offline_cpu_home(cpu, home);
		mutex_unlock(&slab_mutex);
	}
	return 0;
}

/*
 * On the CPU whose home node changes: each queue holds objects of the old
 * home, so it goes back to the slabs and takes its new home under its
 * lock.  slab_mutex, held by the waiting caller, keeps the list of caches
 * still.  The CPU's default home, that of the caches created next and of
 * requests that bypass a queue, changes last.
 */
static void sleb_rehome_work(struct work_struct *w)
{
	struct sleb_flush_work *fw = container_of(w, struct sleb_flush_work, work);
	struct kmem_cache *s;
	LIST_HEAD(discard);

	list_for_each_entry(s, &slab_caches, list) {
		queue_lock(s);
		queue_flush(s, cpu_queue(s), &discard);
		this_cpu_ptr(s->cpu)->home = fw->home;
		queue_unlock(s);
	}
	this_cpu_write(sleb_home_node, fw->home);
	sleb_discard_list(&discard);
}

/* Point every CPU at its nearest node with memory after sleb_nodes changed. */
static void rehome_cpus(void)
{
	struct sleb_flush_work req = { };
	unsigned int cpu;
	int home;

	lockdep_assert_cpus_held();
	lockdep_assert_held(&slab_mutex);
	sleb_normal_nodes = node_states[N_NORMAL_MEMORY];
	mutex_lock(&sleb_flush_mutex);
	for_each_possible_cpu(cpu) {
		home = nearest_memory_node(cpu_to_node(cpu));
		if (home == per_cpu(sleb_home_node, cpu))
			continue;
		if (!cpu_online(cpu)) {
			set_offline_cpu_home(cpu, home);
			continue;
		}
		cpumask_clear(&sleb_flush_cpus);
		cpumask_set_cpu(cpu, &sleb_flush_cpus);
		req.home = home;
		run_on_flush_cpus(sleb_rehome_work, &req);
	}
	mutex_unlock(&sleb_flush_mutex);
}

/* Give @s a kmem_cache_node (and shared array) for node @nid. */
static int add_cache_node(struct kmem_cache *s, int nid)
{
	struct kmem_cache_node *n;

	if (get_node(s, nid))
		return 0;
	/* The node's memory is not online yet: any node will do. */
	n = kmem_cache_alloc(kmem_cache_node, GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	init_node(n);
	if (s->shared_queue_size) {
		n->shared = sleb_array_alloc(s->shared_queue_size, GFP_KERNEL, NUMA_NO_NODE);
		if (!n->shared) {
			kmem_cache_free(kmem_cache_node, n);
			return -ENOMEM;
		}
	}
	WRITE_ONCE(s->node[nid], n);
	return 0;
}

/*
 * Node @nid gets its first memory: every cache gets its node
 * structures before the memory can be allocated, as in SLUB.  On failure
 * the structures made so far stay; they are unused until the node is in
 * sleb_nodes.
 */
static int sleb_mem_going_online(int nid)
{
	struct kmem_cache *s;
	int ret = 0;

	mutex_lock(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list) {
		ret = add_cache_node(s, nid);
		if (ret)
			break;
	}
	if (!ret)
		node_set(nid, sleb_nodes);
	mutex_unlock(&slab_mutex);
	return ret;
}

/*
 * Node @nid gained or lost its memory: CPUs change home.  A node
 * that lost it keeps its structures (get_node() has no lock to free them
 * under); requests for it are served from the CPU's home node.
 */
static void sleb_mem_changed(int nid, bool online)
{
	mutex_lock(&slab_mutex);
	if (!online)
		node_clear(nid, sleb_nodes);
	rehome_cpus();
	mutex_unlock(&slab_mutex);
}

/* Onlining failed after sleb_mem_going_online(): the node has no memory after all. */
static void sleb_mem_cancel_online(int nid)
{
	mutex_lock(&slab_mutex);
	node_clear(nid, sleb_nodes);
	mutex_unlock(&slab_mutex);
}

/* Memory going away: what queues and empty slabs hold on it goes first. */
static void sleb_mem_going_offline(void)
{
	struct kmem_cache *s;

	mutex_lock(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list)
		shrink_cache_locked(s);
	mutex_unlock(&slab_mutex);
}

/*
 * A memory block came or went: a node may have got or lost normal memory
 * without getting its first or losing its last (the node notifier's
 * events), and so become a home or stop being one.  Most blocks change
 * no node's state: those return without taking slab_mutex, which the
 * memory hotplug lock held here keeps node_states[] from changing under.
 */
static int sleb_memory_callback(struct notifier_block *self, unsigned long action,
				void *arg)
{
	if (action != MEM_ONLINE && action != MEM_OFFLINE)
		return NOTIFY_OK;
	if (nodes_equal(sleb_normal_nodes, node_states[N_NORMAL_MEMORY]))
		return NOTIFY_OK;
	mutex_lock(&slab_mutex);
	rehome_cpus();
	mutex_unlock(&slab_mutex);
	return NOTIFY_OK;
}

static int sleb_node_callback(struct notifier_block *self, unsigned long action,
			      void *arg)
{
	struct node_notify *nn = arg;
	int ret = 0;

	switch (action) {
	case NODE_ADDING_FIRST_MEMORY:
		ret = sleb_mem_going_online(nn->nid);
		break;
	case NODE_ADDED_FIRST_MEMORY:
		sleb_mem_changed(nn->nid, true);
		break;
	case NODE_CANCEL_ADDING_FIRST_MEMORY:
		sleb_mem_cancel_online(nn->nid);
		break;
	case NODE_REMOVING_LAST_MEMORY:
		sleb_mem_going_offline();
		break;
	case NODE_REMOVED_LAST_MEMORY:
		sleb_mem_changed(nn->nid, false);
		break;
	}
	return notifier_from_errno(ret);
}

static void __init sleb_init_home_nodes(void)
{
	unsigned int cpu;

	sleb_normal_nodes = node_states[N_NORMAL_MEMORY];
	for_each_possible_cpu(cpu)
		per_cpu(sleb_home_node, cpu) = nearest_memory_node(cpu_to_node(cpu));
}

/* === Boot ================================================================ */

void __init kmem_cache_init(void)
{
	struct kmem_cache *s;

	slab_obj_ext_has_codetag_init();
	/* As SLUB: debugging at boot shows the pointers unhashed. */
	hash_pointers_finalize(sleb_debug_enabled_at_boot());
	kmem_cache_node = &sleb_boot_kmem_cache_node;
	kmem_cache = &sleb_boot_kmem_cache;
	sleb_nodes = node_states[N_MEMORY];
	sleb_init_home_nodes();

	create_boot_cache(kmem_cache_node, "kmem_cache_node",
			  sizeof(struct kmem_cache_node),
			  SLAB_HWCACHE_ALIGN | SLAB_NO_OBJ_EXT, 0, 0);
	slab_state = PARTIAL;
	create_boot_cache(kmem_cache, "kmem_cache",
			  offsetof(struct kmem_cache, node) +
			  nr_node_ids * sizeof(struct kmem_cache_node *),
			  SLAB_HWCACHE_ALIGN | SLAB_NO_OBJ_EXT, 0, 0);
	list_add(&kmem_cache_node->list, &slab_caches);
	list_add(&kmem_cache->list, &slab_caches);

	setup_kmalloc_cache_index_table();
	create_kmalloc_caches();

	/* kmalloc works: give the caches made so far their real queues. */
	list_for_each_entry(s, &slab_caches, list) {
		if (cache_random_seq_create(s, s->oo.objects, GFP_NOWAIT) ||
		    sleb_tune_defaults(s, GFP_NOWAIT, true))
			panic("SLEB: cannot set up the queues of %s\n", s->name);
	}

	cpuhp_setup_state_nocalls(CPUHP_SLUB_DEAD, "mm/sleb:dead", sleb_cpu_prepare,
				  sleb_cpu_dead);
	hotplug_node_notifier(sleb_node_callback, SLAB_CALLBACK_PRI);
	/* Without NUMA there is one home: memory blocks cannot change it. */
	if (IS_ENABLED(CONFIG_NUMA))
		hotplug_memory_notifier(sleb_memory_callback, SLAB_CALLBACK_PRI);
	pr_info("SLEB: HWalign=%d, Order=0-%d, CPUs=%u, Nodes=%u\n",
		cache_line_size(), SLEB_MAX_ORDER, nr_cpu_ids, nr_node_ids);
}

void __init kmem_cache_init_late(void)
{
	if (!IS_ENABLED(CONFIG_SYSFS))
		slab_state = FULL;
}

/* === Object information ================================================== */

void *fixup_red_left(struct kmem_cache *s, void *p)
{
	return p + s->red_left_pad;
}

#ifdef CONFIG_PRINTK
void __kmem_obj_info(struct kmem_obj_info *kpp, void *object, struct slab *slab)
{
	struct kmem_cache *s = slab->slab_cache;
	void *base = slab_address(slab);
	void *objp = kasan_reset_tag(object);
	unsigned int idx;

	kpp->kp_ptr = object;
	kpp->kp_slab = slab;
	kpp->kp_slab_cache = s;
	if (is_kfence_address(objp)) {
		kpp->kp_objp = kfence_object_start(objp);
		kpp->kp_data_offset = objp - kpp->kp_objp;
		return;
	}
	if (objp < base)
		return;
	idx = __obj_to_index(s, base, objp);
	if (idx >= slab->objects)
		return;
	kpp->kp_objp = fixup_red_left(s, base + idx * s->size);
	kpp->kp_data_offset = objp - kpp->kp_objp;
	if (sleb_debug_cache(s))
		sleb_debug_obj_info(kpp, s, kpp->kp_objp);
}
#endif

#ifdef CONFIG_HARDENED_USERCOPY
void __check_heap_object(const void *ptr, unsigned long n,
			 const struct slab *slab, bool to_user)
{
	struct kmem_cache *s = slab->slab_cache;
	void *base = slab_address(slab);
	unsigned long offset;
	unsigned int idx;

	ptr = kasan_reset_tag(ptr);
	if (is_kfence_address(ptr)) {
		offset = ptr - kfence_object_start(ptr);
	} else {
		if (ptr < base)
			usercopy_abort("SLEB object not in SLEB slab?!", NULL, to_user, 0, n);
		idx = __obj_to_index(s, base, (void *)ptr);
		if (idx >= slab->objects)
			usercopy_abort("SLEB bitmap", s->name, to_user,
				       ptr - base, n);
		offset = ptr - (base + idx * s->size);
		if (offset < s->red_left_pad)
			usercopy_abort("SLEB object in left red zone", s->name,
				       to_user, offset, n);
		offset -= s->red_left_pad;
	}
	if (offset >= s->useroffset &&
	    offset - s->useroffset <= s->usersize &&
	    n <= s->useroffset - offset + s->usersize)
		return;
	usercopy_abort("SLEB object", s->name, to_user, offset, n);
}
#endif

/* === Counting ============================================================ */

/*
 * Add what node @node holds to @c, from the counts the node keeps: no walk
 * of its lists, and no list_lock, which the allocation paths need (the
 * figures of one node may be a moment apart).  Queues are kept alive by
 * slab_mutex.
 */
static void count_node(struct kmem_cache *s, int node, struct sleb_counts *c)
{
	struct kmem_cache_node *n = get_node(s, node);
	unsigned long flags;
	int cpu;

	c->slabs += READ_ONCE(n->nr_slabs);
	c->partial += READ_ONCE(n->nr_partial);
	c->total += READ_ONCE(n->total_objects);
	c->partial_total += READ_ONCE(n->partial_objects);
	c->free += READ_ONCE(n->free_objects);
	c->empty += READ_ONCE(n->nr_empty);

	spin_lock_irqsave(&n->shared_lock, flags);
	if (n->shared)
		c->shared += n->shared->count;
	spin_unlock_irqrestore(&n->shared_lock, flags);

	for_each_possible_cpu(cpu)
		if (per_cpu(sleb_home_node, cpu) == node)
			c->queued += READ_ONCE(per_cpu_ptr(s->cpu, cpu)->queue->count);
}

static void count_cache(struct kmem_cache *s, struct sleb_counts *c)
{
	struct kmem_cache_node *n;
	int node;

	memset(c, 0, sizeof(*c));
	for_each_kmem_cache_node(s, node, n)
		count_node(s, node, c);
}

/* === /proc/slabinfo ====================================================== */

void get_slabinfo(struct kmem_cache *s, struct slabinfo *sinfo)
{
	struct sleb_counts c;

	lockdep_assert_held(&slab_mutex);
	count_cache(s, &c);
	sinfo->active_objs = sleb_counts_in_use(&c);
	sinfo->num_objs = c.total;
	sinfo->active_slabs = sleb_sub_or_zero(c.slabs, c.empty);
	sinfo->num_slabs = c.slabs;
	sinfo->shared_avail = c.shared;
	sinfo->limit = s->cpu_queue_size;
	sinfo->batchcount = s->cpu_batch_size;
	sinfo->shared = s->shared_queue_size;
	sinfo->objects_per_slab = s->oo.objects;
	sinfo->cache_order = s->oo.order;
}

#define SLABINFO_WRITE_MAX	128

/* Writing "<name> <limit> <batchcount> <shared>" tunes a cache, as SLAB did. */

/* Parse "<name> <limit> <batchcount> <shared>" as SLAB's /proc/slabinfo does. */
static int parse_slabinfo_line(char *line, char **name, unsigned int *val)
{
	char *tok;
	int i;

	line = strim(line);
	*name = strsep(&line, " \t");
	if (!**name || !line)
		return -EINVAL;
	for (i = 0; i < 3; i++) {
		if (!line)
			return -EINVAL;
		line = skip_spaces(line);
		tok = strsep(&line, " \t");
		if (!tok || !*tok || kstrtouint(tok, 10, &val[i]))
			return -EINVAL;
	}
	if (line && *skip_spaces(line))
		return -EINVAL;
	return 0;
}

ssize_t slabinfo_write(struct file *file, const char __user *buffer,
		       size_t count, loff_t *ppos)
{
	char kbuf[SLABINFO_WRITE_MAX + 1], *name;
	struct kmem_cache *s;
	unsigned int val[3];
	int err = -EINVAL;

	if (!count || count > SLABINFO_WRITE_MAX)
		return -EINVAL;
	if (copy_from_user(kbuf, buffer, count))
		return -EFAULT;
	kbuf[count] = '\0';
	if (parse_slabinfo_line(kbuf, &name, val))
		return -EINVAL;

	cpus_read_lock();
	mutex_lock(&slab_mutex);
	list_for_each_entry(s, &slab_caches, list) {
		if (!strcmp(s->name, name)) {
			err = sleb_tune(s, val[0], val[1], val[2], GFP_KERNEL, false);
			break;
		}
	}
	mutex_unlock(&slab_mutex);
	cpus_read_unlock();
	return err ? err : count;
}

/* === KUnit access ====================================================== */

#if IS_ENABLED(CONFIG_SLEB_KUNIT_TEST)
/**
 * sleb_test_tune - set the tunables of a cache, for lib/tests/sleb_kunit.c
 * @s: the cache
 * @queue: per-cpu queue size
 * @batch: batch size
 * @shared: shared array size
 *
 * Return: 0, -EINVAL for values out of range, or -ENOMEM.
 */
int sleb_test_tune(struct kmem_cache *s, unsigned int queue, unsigned int batch,
		   unsigned int shared)
{
	return sleb_tune_in_use(s, queue, batch, shared);
}
EXPORT_SYMBOL_IF_KUNIT(sleb_test_tune);

/**
 * sleb_test_cpu_queue_count - objects in the queue of another CPU
 * @s: the cache
 * @cpu: a CPU that is offline or does not use @s meanwhile
 *
 * Return: the number of objects in @cpu's queue of @s.
 */
unsigned int sleb_test_cpu_queue_count(struct kmem_cache *s, unsigned int cpu)
{
	return READ_ONCE(per_cpu_ptr(s->cpu, cpu)->queue->count);
}
EXPORT_SYMBOL_IF_KUNIT(sleb_test_cpu_queue_count);

/**
 * sleb_test_home_node - the node whose objects this CPU's queues hold
 *
 * Call with migration disabled.
 *
 * Return: the CPU's node, or the nearest node with memory.
 */
int sleb_test_home_node(void)
{
	return home_node();
}
EXPORT_SYMBOL_IF_KUNIT(sleb_test_home_node);

/**
 * sleb_test_reap - one reap pass over a cache on the calling CPU
 * @s: the cache
 *
 * Looks at this CPU's queue and at the shared arrays this CPU reaps (its
 * home node's; on the first reaper also those of nodes that are home to
 * no CPU that reaps) as the periodic reaper does, whether or not it is
 * their turn.  Call with migration disabled or from a CPU-bound kworker.
 *
 * Return: the number of objects given back to the slabs.
 */
unsigned int sleb_test_reap(struct kmem_cache *s)
{
	unsigned int nr = reap_cpu_queue(s);
	struct kmem_cache_node *n;
	nodemask_t nodes;
	int nid;

	reap_nodes(&nodes, first_reaper(smp_processor_id()));
	for_each_node_mask(nid, nodes) {
		n = get_node(s, nid);
		if (n)
			nr += reap_shared(s, n);
	}
	return nr;
}
EXPORT_SYMBOL_IF_KUNIT(sleb_test_reap);

/**
 * sleb_test_reaper_armed - whether a CPU's periodic reap pass is pending
 * @cpu: the CPU
 *
 * Return: true while the pass's timer is armed (not while the pass runs).
 */
bool sleb_test_reaper_armed(unsigned int cpu)
{
	return delayed_work_pending(per_cpu_ptr(&sleb_reap_work, cpu));
}
EXPORT_SYMBOL_IF_KUNIT(sleb_test_reaper_armed);

/**
 * sleb_test_drop_reap_pass - take a CPU's periodic reap pass away
 * @cpu: an online CPU
 *
 * As if the CPU had been isolated when its pass ran: the pass is cancelled,
 * and only the first reaper's next pass queues it again.
 */
void sleb_test_drop_reap_pass(unsigned int cpu)
{
	cancel_delayed_work_sync(per_cpu_ptr(&sleb_reap_work, cpu));
}
EXPORT_SYMBOL_IF_KUNIT(sleb_test_drop_reap_pass);

/**
 * sleb_test_run_reap_pass - run a CPU's periodic reap pass now
 * @cpu: an online CPU that is not isolated
 *
 * Queues the pass on @cpu without delay, or moves its pending one, and
 * waits for it; the pass queues its next one as usual.
 */
void sleb_test_run_reap_pass(unsigned int cpu)
{
	struct delayed_work *work = per_cpu_ptr(&sleb_reap_work, cpu);

	mod_delayed_work_on(cpu, system_percpu_wq, work, 0);
	flush_delayed_work(work);
}
EXPORT_SYMBOL_IF_KUNIT(sleb_test_run_reap_pass);

/**
 * sleb_test_stop_reaper - keep the periodic reaper away
 *
 * The reaper only tries slab_mutex, so holding it keeps every CPU's pass
 * from looking at the queues.  sleb_test_start_reaper() undoes it.
 */
void sleb_test_stop_reaper(void)
	__acquires(&slab_mutex)
{
	mutex_lock(&slab_mutex);
}
EXPORT_SYMBOL_IF_KUNIT(sleb_test_stop_reaper);

/**
 * sleb_test_start_reaper - let the periodic reaper run again
 */
void sleb_test_start_reaper(void)
	__releases(&slab_mutex)
{
	mutex_unlock(&slab_mutex);
}
EXPORT_SYMBOL_IF_KUNIT(sleb_test_start_reaper);

/**
 * sleb_test_shrink - one call of the shrinker's scan
 * @nid: the node under pressure
 * @nr: how many objects reclaim asks to scan
 *
 * Return: what the scan returned: the objects given back, or SHRINK_STOP.
 */
unsigned long sleb_test_shrink(int nid, unsigned long nr)
{
	struct shrink_control sc = {
		.gfp_mask = GFP_KERNEL,
		.nid = nid,
		.nr_to_scan = nr,
	};

	return sleb_shrink_scan(NULL, &sc);
}
EXPORT_SYMBOL_IF_KUNIT(sleb_test_shrink);

/**
 * sleb_test_drain - empty this CPU's queue of a cache and free empty slabs
 * @s: the cache
 *
 * As kmem_cache_shrink() without the flushes of other CPUs' queues and of
 * the shared arrays, so that one CPU can call it again and again while
 * another allocates.  Call with migration disabled or from a CPU-bound
 * kthread.
 */
void sleb_test_drain(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	int node;

	trim_this_cpu(s, UINT_MAX);
	for_each_kmem_cache_node(s, node, n)
		node_shrink(s, n);
}
EXPORT_SYMBOL_IF_KUNIT(sleb_test_drain);

/**
 * sleb_test_queue_count - objects in this CPU's queue of a cache
 * @s: the cache
 *
 * Return: the number of objects queued on the calling CPU.
 */
unsigned int sleb_test_queue_count(struct kmem_cache *s)
{
	unsigned int nr;

	queue_lock(s);
	nr = cpu_queue(s)->count;
	queue_unlock(s);
	return nr;
}
EXPORT_SYMBOL_IF_KUNIT(sleb_test_queue_count);

/**
 * sleb_test_usage - count what a cache holds
 * @s: the cache
 * @c: filled with the counts over all nodes
 */
void sleb_test_usage(struct kmem_cache *s, struct sleb_counts *c)
{
	mutex_lock(&slab_mutex);
	count_cache(s, c);
	mutex_unlock(&slab_mutex);
}
EXPORT_SYMBOL_IF_KUNIT(sleb_test_usage);

/**
 * sleb_test_node_usage - count what a cache holds on one node
 * @s: the cache
 * @node: the node
 * @c: filled with the counts of @node
 *
 * Return: 0, or -EINVAL if the cache has no structures on @node.
 */
int sleb_test_node_usage(struct kmem_cache *s, int node, struct sleb_counts *c)
{
	memset(c, 0, sizeof(*c));
	if (node < 0 || node >= nr_node_ids || !get_node(s, node))
		return -EINVAL;
	mutex_lock(&slab_mutex);
	count_node(s, node, c);
	mutex_unlock(&slab_mutex);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sleb_test_node_usage);

/**
 * sleb_test_cpu_home_node - the home node of a CPU
 * @cpu: a possible CPU
 *
 * Return: the node whose objects @cpu's queues hold.
 */
int sleb_test_cpu_home_node(unsigned int cpu)
{
	return READ_ONCE(per_cpu(sleb_home_node, cpu));
}
EXPORT_SYMBOL_IF_KUNIT(sleb_test_cpu_home_node);

/**
 * sleb_test_node_memory - replay the memory hotplug notifier for a node
 * @nid: a node with memory
 * @online: false: as if @nid had lost its last memory (NODE_REMOVED_LAST_MEMORY);
 *          true: as if it had got it back (NODE_ADDING_FIRST_MEMORY, NODE_ADDED_FIRST_MEMORY)
 *
 * Runs what the notifier runs for those events, under the locks memory
 * hotplug holds, without touching the node's memory: CPUs at home on @nid
 * flush their queues and move to the nearest other node, and back.  The
 * guest cannot take a node's last memory offline (pages that are
 * not slab pages stay on it), so this is how the offline path is tested.
 *
 * Return: 0, -EOPNOTSUPP without memory hotplug, -EINVAL for a node
 * without memory.
 */
int sleb_test_node_memory(int nid, bool online)
{
	int ret = 0;

	if (!IS_ENABLED(CONFIG_MEMORY_HOTPLUG))
		return -EOPNOTSUPP;
	if (nid < 0 || nid >= nr_node_ids || !node_state(nid, N_MEMORY))
		return -EINVAL;
	mem_hotplug_begin();
	if (online)
		ret = sleb_mem_going_online(nid);
	if (!ret)
		sleb_mem_changed(nid, online);
	mem_hotplug_done();
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(sleb_test_node_memory);

/**
 * sleb_test_nearest_home - the home a CPU of a node would get
 * @nid: the CPU's node
 * @normal: the nodes taken to have normal memory
 *
 * Return: the node whose objects the CPU's queues would hold.
 */
int sleb_test_nearest_home(int nid, const nodemask_t *normal)
{
	int home;

	mutex_lock(&slab_mutex);
	home = nearest_home(nid, normal);
	mutex_unlock(&slab_mutex);
	return home;
}
EXPORT_SYMBOL_IF_KUNIT(sleb_test_nearest_home);
#endif /* CONFIG_SLEB_KUNIT_TEST */

/* === sysfs =============================================================== */

#ifdef CONFIG_SYSFS

struct sleb_attribute {
	struct attribute attr;
	ssize_t (*show)(struct kmem_cache *s, char *buf);
	ssize_t (*store)(struct kmem_cache *s, const char *buf, size_t len);
};

#define SLEB_ATTR_RO(_name) \
	static struct sleb_attribute _name##_attr = __ATTR_RO_MODE(_name, 0400)
#define SLEB_ATTR_RW(_name) \
	static struct sleb_attribute _name##_attr = __ATTR_RW_MODE(_name, 0600)

static struct kset *slab_kset;

static inline struct kmem_cache *to_cache(struct kobject *kobj)
{
	return container_of(kobj, struct kmem_cache, kobj);
}

/* Parse a tunable: a decimal number, optionally followed by a newline. */
static int parse_tunable(const char *buf, unsigned int min, unsigned int max,
			 unsigned int *val)
{
	if (kstrtouint(buf, 10, val) || *val < min || *val > max)
		return -EINVAL;
	return 0;
}

/* "total N0=... N1=..." with a per-node figure where there are nodes. */
static ssize_t show_per_node(struct kmem_cache *s, char *buf,
			     unsigned long (*field)(const struct sleb_counts *c))
{
	unsigned long *per_node, total = 0;
	struct kmem_cache_node *n;
	struct sleb_counts c;
	int node, len;

	/* One pass per node; the total is their sum, so the line adds up. */
	per_node = kcalloc(nr_node_ids, sizeof(*per_node), GFP_KERNEL);
	if (!per_node)
		return -ENOMEM;
	mutex_lock(&slab_mutex);
	for_each_kmem_cache_node(s, node, n) {
		memset(&c, 0, sizeof(c));
		count_node(s, node, &c);
		per_node[node] = field(&c);
		total += per_node[node];
	}
	mutex_unlock(&slab_mutex);
	len = sysfs_emit(buf, "%lu", total);
	if (nr_node_ids > 1)
		for_each_kmem_cache_node(s, node, n)
			len += sysfs_emit_at(buf, len, " N%d=%lu", node, per_node[node]);
	kfree(per_node);
	return len + sysfs_emit_at(buf, len, "\n");
}

static unsigned long field_in_use(const struct sleb_counts *c)
{
	return sleb_counts_in_use(c);
}

static unsigned long field_total(const struct sleb_counts *c)
{
	return c->total;
}

static unsigned long field_slabs(const struct sleb_counts *c)
{
	return c->slabs;
}

static unsigned long field_partial(const struct sleb_counts *c)
{
	return c->partial;
}

static unsigned long field_shared(const struct sleb_counts *c)
{
	return c->shared;
}

static unsigned long field_queued(const struct sleb_counts *c)
{
	return c->queued;
}

/* As SLUB's objects_partial: objects in use in partial slabs. */
static unsigned long field_partial_in_use(const struct sleb_counts *c)
{
	return sleb_sub_or_zero(c->partial_total, c->free);
}

#define SLEB_COUNT_ATTR(_name, _field)					\
static ssize_t _name##_show(struct kmem_cache *s, char *buf)		\
{									\
	return show_per_node(s, buf, _field);				\
}									\
SLEB_ATTR_RO(_name)

SLEB_COUNT_ATTR(objects, field_in_use);
SLEB_COUNT_ATTR(total_objects, field_total);
SLEB_COUNT_ATTR(slabs, field_slabs);
SLEB_COUNT_ATTR(partial, field_partial);
SLEB_COUNT_ATTR(objects_partial, field_partial_in_use);
SLEB_COUNT_ATTR(shared_objects, field_shared);
SLEB_COUNT_ATTR(queued_objects, field_queued);

#define SLEB_VALUE_ATTR(_name, _fmt, _expr)				\
static ssize_t _name##_show(struct kmem_cache *s, char *buf)		\
{									\
	return sysfs_emit(buf, _fmt "\n", _expr);			\
}									\
SLEB_ATTR_RO(_name)

SLEB_VALUE_ATTR(object_size, "%u", s->object_size);
SLEB_VALUE_ATTR(slab_size, "%u", s->size);
SLEB_VALUE_ATTR(objs_per_slab, "%u", s->oo.objects);
SLEB_VALUE_ATTR(order, "%u", s->oo.order);
SLEB_VALUE_ATTR(align, "%u", s->align);
SLEB_VALUE_ATTR(aliases, "%d", s->refcount < 0 ? 0 : s->refcount - 1);
SLEB_VALUE_ATTR(hwcache_align, "%d", !!(s->flags & SLAB_HWCACHE_ALIGN));
SLEB_VALUE_ATTR(reclaim_account, "%d", !!(s->flags & SLAB_RECLAIM_ACCOUNT));
SLEB_VALUE_ATTR(destroy_by_rcu, "%d", !!(s->flags & SLAB_TYPESAFE_BY_RCU));
SLEB_VALUE_ATTR(cache_dma, "%d", !!(s->flags & SLAB_CACHE_DMA));
SLEB_VALUE_ATTR(usersize, "%u", s->usersize);

static ssize_t ctor_show(struct kmem_cache *s, char *buf)
{
	if (!s->ctor)
		return 0;
	return sysfs_emit(buf, "%pS\n", s->ctor);
}
SLEB_ATTR_RO(ctor);

static ssize_t min_partial_show(struct kmem_cache *s, char *buf)
{
	return sysfs_emit(buf, "%lu\n", s->min_partial);
}

static ssize_t min_partial_store(struct kmem_cache *s, const char *buf, size_t len)
{
	unsigned long val;

	if (kstrtoul(buf, 10, &val))
		return -EINVAL;
	WRITE_ONCE(s->min_partial, val);
	return len;
}
SLEB_ATTR_RW(min_partial);

static ssize_t store_tunable(struct kmem_cache *s, enum sleb_tunable which,
			     unsigned int val, size_t len)
{
	int err = sleb_set_tunable(s, which, val);

	return err ? err : len;
}

static ssize_t cpu_queue_size_show(struct kmem_cache *s, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(s->cpu_queue_size));
}

static ssize_t cpu_queue_size_store(struct kmem_cache *s, const char *buf, size_t len)
{
	unsigned int queue;

	if (parse_tunable(buf, SLEB_QUEUE_MIN, SLEB_QUEUE_MAX, &queue))
		return -EINVAL;
	return store_tunable(s, SLEB_TUNE_QUEUE, queue, len);
}
SLEB_ATTR_RW(cpu_queue_size);

static ssize_t cpu_batch_size_show(struct kmem_cache *s, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(s->cpu_batch_size));
}

/* At most the queue size at the time of the write (sleb_tune() checks). */
static ssize_t cpu_batch_size_store(struct kmem_cache *s, const char *buf, size_t len)
{
	unsigned int batch;

	if (parse_tunable(buf, 1, SLEB_QUEUE_MAX, &batch))
		return -EINVAL;
	return store_tunable(s, SLEB_TUNE_BATCH, batch, len);
}
SLEB_ATTR_RW(cpu_batch_size);

static ssize_t shared_queue_size_show(struct kmem_cache *s, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(s->shared_queue_size));
}

static ssize_t shared_queue_size_store(struct kmem_cache *s, const char *buf, size_t len)
{
	unsigned int shared;

	if (parse_tunable(buf, 0, SLEB_SHARED_MAX, &shared))
		return -EINVAL;
	return store_tunable(s, SLEB_TUNE_SHARED, shared, len);
}
SLEB_ATTR_RW(shared_queue_size);

static ssize_t shrink_show(struct kmem_cache *s, char *buf)
{
	return 0;
}

static ssize_t shrink_store(struct kmem_cache *s, const char *buf, size_t len)
{
	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	kmem_cache_shrink(s);
	return len;
}
SLEB_ATTR_RW(shrink);

#ifdef CONFIG_SLEB_DEBUG
SLEB_VALUE_ATTR(sanity_checks, "%d", !!(s->flags & SLAB_CONSISTENCY_CHECKS));
SLEB_VALUE_ATTR(red_zone, "%d", !!(s->flags & SLAB_RED_ZONE));
SLEB_VALUE_ATTR(poison, "%d", !!(s->flags & SLAB_POISON));
SLEB_VALUE_ATTR(store_user, "%d", !!(s->flags & SLAB_STORE_USER));
SLEB_VALUE_ATTR(trace, "%d", !!(s->flags & SLAB_TRACE));
SLEB_VALUE_ATTR(failslab, "%d", !!(s->flags & SLAB_FAILSLAB));

/* Reads back the number of problems the last validation found. */
static ssize_t validate_show(struct kmem_cache *s, char *buf)
{
	return sysfs_emit(buf, "%ld\n", READ_ONCE(s->validate_errors));
}

static ssize_t validate_store(struct kmem_cache *s, const char *buf, size_t len)
{
	if (!sysfs_streq(buf, "1"))
		return -EINVAL;
	WRITE_ONCE(s->validate_errors, sleb_validate_cache(s));
	return len;
}
SLEB_ATTR_RW(validate);
#endif

#ifdef CONFIG_SLEB_STATS
static ssize_t show_stat(struct kmem_cache *s, char *buf, enum sleb_stat_item item)
{
	unsigned long sum = 0;
	int cpu, len;

	for_each_online_cpu(cpu)
		sum += per_cpu_ptr(s->cpu, cpu)->stat[item];
	len = sysfs_emit(buf, "%lu", sum);
	for_each_online_cpu(cpu) {
		unsigned int x = per_cpu_ptr(s->cpu, cpu)->stat[item];

		if (x)
			len += sysfs_emit_at(buf, len, " C%d=%u", cpu, x);
	}
	return len + sysfs_emit_at(buf, len, "\n");
}

/* Writing 0 clears a counter, as with SLUB_STATS. */
static int clear_stat(struct kmem_cache *s, const char *buf, enum sleb_stat_item item)
{
	int cpu;

	if (!sysfs_streq(buf, "0"))
		return -EINVAL;
	for_each_online_cpu(cpu)
		per_cpu_ptr(s->cpu, cpu)->stat[item] = 0;
	return 0;
}

#define SLEB_STAT_ATTR(_name, _item)					\
static const enum sleb_stat_item _name##_item = _item;			\
static ssize_t _name##_show(struct kmem_cache *s, char *buf)		\
{									\
	return show_stat(s, buf, _name##_item);				\
}									\
static ssize_t _name##_store(struct kmem_cache *s, const char *buf,	\
			     size_t len)				\
{									\
	int err = clear_stat(s, buf, _name##_item);			\
									\
	return err ? err : len;						\
}									\
SLEB_ATTR_RW(_name)

SLEB_STAT_ATTR(alloc_fastpath, ALLOC_FASTPATH);
SLEB_STAT_ATTR(alloc_slowpath, ALLOC_SLOWPATH);
SLEB_STAT_ATTR(alloc_node, ALLOC_NODE);
SLEB_STAT_ATTR(alloc_unqueued, ALLOC_UNQUEUED);
SLEB_STAT_ATTR(free_fastpath, FREE_FASTPATH);
SLEB_STAT_ATTR(free_slowpath, FREE_SLOWPATH);
SLEB_STAT_ATTR(free_remote, FREE_REMOTE);
SLEB_STAT_ATTR(free_unqueued, FREE_UNQUEUED);
SLEB_STAT_ATTR(refill_shared, REFILL_SHARED);
SLEB_STAT_ATTR(refill_partial, REFILL_PARTIAL);
SLEB_STAT_ATTR(refill_new_slab, REFILL_NEW_SLAB);
SLEB_STAT_ATTR(drain_shared, DRAIN_SHARED);
SLEB_STAT_ATTR(drain_slabs, DRAIN_SLABS);
SLEB_STAT_ATTR(queue_flush, QUEUE_FLUSH);
SLEB_STAT_ATTR(queue_reap, QUEUE_REAP);
SLEB_STAT_ATTR(queue_resize, QUEUE_RESIZE);
SLEB_STAT_ATTR(alloc_slab, SLAB_ALLOC);
SLEB_STAT_ATTR(free_slab, SLAB_FREE);
SLEB_STAT_ATTR(order_fallback, ORDER_FALLBACK);
#endif /* CONFIG_SLEB_STATS */

static struct attribute *sleb_attrs[] = {
	&object_size_attr.attr,
	&slab_size_attr.attr,
	&objs_per_slab_attr.attr,
	&order_attr.attr,
	&objects_attr.attr,
	&total_objects_attr.attr,
	&slabs_attr.attr,
	&partial_attr.attr,
	&objects_partial_attr.attr,
	&shared_objects_attr.attr,
	&queued_objects_attr.attr,
	&align_attr.attr,
	&aliases_attr.attr,
	&ctor_attr.attr,
	&hwcache_align_attr.attr,
	&reclaim_account_attr.attr,
	&destroy_by_rcu_attr.attr,
	&cache_dma_attr.attr,
	&usersize_attr.attr,
	&min_partial_attr.attr,
	&cpu_queue_size_attr.attr,
	&cpu_batch_size_attr.attr,
	&shared_queue_size_attr.attr,
	&shrink_attr.attr,
#ifdef CONFIG_SLEB_DEBUG
	&sanity_checks_attr.attr,
	&red_zone_attr.attr,
	&poison_attr.attr,
	&store_user_attr.attr,
	&trace_attr.attr,
	&failslab_attr.attr,
	&validate_attr.attr,
#endif
#ifdef CONFIG_SLEB_STATS
	&alloc_fastpath_attr.attr,
	&alloc_slowpath_attr.attr,
	&alloc_node_attr.attr,
	&alloc_unqueued_attr.attr,
	&free_fastpath_attr.attr,
	&free_slowpath_attr.attr,
	&free_remote_attr.attr,
	&free_unqueued_attr.attr,
	&refill_shared_attr.attr,
	&refill_partial_attr.attr,
	&refill_new_slab_attr.attr,
	&drain_shared_attr.attr,
	&drain_slabs_attr.attr,
	&queue_flush_attr.attr,
	&queue_reap_attr.attr,
	&queue_resize_attr.attr,
	&alloc_slab_attr.attr,
	&free_slab_attr.attr,
	&order_fallback_attr.attr,
#endif
	NULL
};
ATTRIBUTE_GROUPS(sleb);

static ssize_t sleb_attr_show(struct kobject *kobj, struct attribute *attr, char *buf)
{
	struct sleb_attribute *a = container_of(attr, struct sleb_attribute, attr);

	if (!a->show)
		return -EIO;
	return a->show(to_cache(kobj), buf);
}

static ssize_t sleb_attr_store(struct kobject *kobj, struct attribute *attr,
			       const char *buf, size_t len)
{
	struct sleb_attribute *a = container_of(attr, struct sleb_attribute, attr);

	if (!a->store)
		return -EIO;
	return a->store(to_cache(kobj), buf, len);
}

static void sleb_kobj_release(struct kobject *kobj)
{
	slab_kmem_cache_release(to_cache(kobj));
}

static const struct sysfs_ops sleb_sysfs_ops = {
	.show = sleb_attr_show,
	.store = sleb_attr_store,
};

static const struct kobj_type sleb_ktype = {
	.sysfs_ops = &sleb_sysfs_ops,
	.release = sleb_kobj_release,
	.default_groups = sleb_groups,
};

static bool sysfs_name_taken(const char *name)
{
	struct kobject *k = kset_find_obj(slab_kset, name);

	kobject_put(k);
	return k;
}

/*
 * The link of an alias named @name, if there is one, goes: the name now
 * belongs to a new cache.  The alias it was made for may be gone (the core
 * does not tell the allocator when an alias is destroyed), and a link would
 * make the new cache's directory or link a duplicate.
 */
static void sysfs_remove_alias_link(const char *name)
{
	struct kernfs_node *kn = kernfs_find_and_get(slab_kset->kobj.sd, name);

	if (!kn)
		return;
	if (kernfs_type(kn) == KERNFS_LINK)
		sysfs_remove_link(&slab_kset->kobj, name);
	kernfs_put(kn);
}

/*
 * The directory /sys/kernel/slab/<name>.  A cache without one works all
 * the same: a second cache of the name of another (allowed, as in SLAB),
 * or one whose directory could not be made.  Once initialised, the kobject
 * owns the cache whether it was added or not: sysfs_slab_release() drops
 * the last reference when the cache is destroyed, and its release frees
 * the cache, once, however late (CONFIG_DEBUG_KOBJECT_RELEASE).
 */
static void sysfs_slab_add(struct kmem_cache *s)
{
	int err;

	lockdep_assert_held(&slab_mutex);
	if (sysfs_name_taken(s->name)) {
		pr_info("SLEB: a second cache named %s has no sysfs directory\n", s->name);
		return;
	}
	sysfs_remove_alias_link(s->name);
	s->kobj.kset = slab_kset;
	err = kobject_init_and_add(&s->kobj, &sleb_ktype, NULL, "%s", s->name);
	if (err) {
		pr_warn("SLEB: cache %s works without /sys/kernel/slab/%s (error %d)\n",
			s->name, s->name, err);
		return;
	}
	kobject_uevent(&s->kobj, KOBJ_ADD);
}

static inline bool sysfs_slab_registered(struct kmem_cache *s)
{
	return s->kobj.state_in_sysfs;
}

void sysfs_slab_unlink(struct kmem_cache *s)
{
	if (sysfs_slab_registered(s))
		kobject_del(&s->kobj);
}

void sysfs_slab_release(struct kmem_cache *s)
{
	if (s->kobj.state_initialized)
		kobject_put(&s->kobj);
	else
		slab_kmem_cache_release(s);
}

/* Aliases made before sysfs is up wait here for sleb_sysfs_init(). */
struct saved_alias {
	struct kmem_cache *s;
	const char *name;
	struct saved_alias *next;
};

static struct saved_alias *alias_list;

int sysfs_slab_alias(struct kmem_cache *s, const char *name)
{
	struct saved_alias *al;

	if (slab_state == FULL) {
		if (!sysfs_slab_registered(s) || sysfs_name_taken(name))
			return 0;
		sysfs_remove_alias_link(name);
		return sysfs_create_link_nowarn(&slab_kset->kobj, &s->kobj, name);
	}
	al = kmalloc(sizeof(*al), GFP_KERNEL);
	if (!al)
		return -ENOMEM;
	al->s = s;
	al->name = name;
	al->next = alias_list;
	alias_list = al;
	return 0;
}

static int __init sleb_sysfs_init(void)
{
	struct kmem_cache *s;

	mutex_lock(&slab_mutex);
	slab_kset = kset_create_and_add("slab", NULL, kernel_kobj);
	if (!slab_kset) {
		mutex_unlock(&slab_mutex);
		pr_err("SLEB: cannot register /sys/kernel/slab\n");
		return -ENOMEM;
	}
	slab_state = FULL;
	list_for_each_entry(s, &slab_caches, list)
		sysfs_slab_add(s);
	while (alias_list) {
		struct saved_alias *al = alias_list;

		alias_list = al->next;
		sysfs_slab_alias(al->s, al->name);
		kfree(al);
	}
	mutex_unlock(&slab_mutex);
	return 0;
}
late_initcall(sleb_sysfs_init);

#else /* !CONFIG_SYSFS */

static inline void sysfs_slab_add(struct kmem_cache *s)
{
}

#endif /* CONFIG_SYSFS */

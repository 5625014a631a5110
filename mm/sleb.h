/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SLEB internals shared by mm/sleb.c and mm/sleb_debug.c.
 */
#ifndef MM_SLEB_H
#define MM_SLEB_H

#include <linux/jump_label.h>
#include <linux/mm.h>

#include "slab.h"
#include "sleb_map.h"

static inline unsigned long *slab_map(struct slab *slab)
{
	if (sleb_map_in_struct(slab->objects))
		return &slab->free_map;
	return slab->free_map_ext;
}

/* Address of object 0 of a slab: the slab address past a left red zone. */
static inline void *slab_base(struct kmem_cache *s, struct slab *slab)
{
	return slab_address(slab) + s->red_left_pad;
}

static inline void *slab_object(struct kmem_cache *s, struct slab *slab,
				unsigned int idx)
{
	return slab_base(s, slab) + idx * s->size;
}

/**
 * struct kmem_cache_node - the slabs and the shared array of a cache on a node
 * @list_lock: protects the lists, their counters and each listed slab's bitmap
 * @partial: slabs with free objects, empty ones last
 * @full: slabs without free objects
 * @nr_partial: length of @partial
 * @nr_empty: slabs on @partial without objects in use
 * @nr_slabs: all slabs of the node
 * @total_objects: objects in all slabs of the node
 * @partial_objects: objects in the slabs on @partial
 * @free_objects: free objects of the node's slabs
 * @shared_lock: protects @shared and @shared_touched
 * @shared: free objects of this node, for all CPUs
 * @shared_touched: used since the last reap
 * @next_reap: jiffies of the next reap of @shared; the CPU whose
 *	cmpxchg moves it on takes the turn
 */
struct kmem_cache_node {
	spinlock_t list_lock;		/* lock order 7, see mm/sleb.c */
	struct list_head partial;
	struct list_head full;
	unsigned long nr_partial;
	unsigned long nr_empty;
	unsigned long nr_slabs;
	unsigned long total_objects;
	unsigned long partial_objects;
	unsigned long free_objects;
	spinlock_t shared_lock;		/* lock order 6, see mm/sleb.c */
	struct sleb_array *shared;
	bool shared_touched;
	unsigned long next_reap;
};

static inline struct kmem_cache_node *get_node(struct kmem_cache *s, int node)
{
	return s->node[node];
}

/* The kmem_cache_node of @s for *@node or the next node that has one. */
static inline struct kmem_cache_node *next_cache_node(struct kmem_cache *s, int *node)
{
	for (; *node < nr_node_ids; (*node)++) {
		if (s->node[*node])
			return s->node[*node];
	}
	return NULL;
}

/* Every node the cache has a kmem_cache_node for (all nodes with memory). */
#define for_each_kmem_cache_node(s, node, n)				\
	for ((node) = 0; ((n) = next_cache_node((s), &(node))); (node)++)

#include "sleb_node.h"

/*
 * With red zoning, a slab whose bitmap is at its end keeps at least
 * SLEB_MAP_GUARD bytes between the last object and the bitmap: a guard
 * that the debug code fills and checks, so that a write past the last
 * object's red zone is reported instead of changing which objects are
 * free.
 */
#define SLEB_MAP_GUARD sizeof(unsigned long)

/* The bytes between the last object and the bitmap; none if it is in struct slab. */
static inline unsigned int slab_map_guard(struct kmem_cache *s, struct slab *slab,
					  u8 **start)
{
	*start = slab_address(slab) + slab->objects * s->size;
	if (sleb_map_in_struct(slab->objects))
		return 0;
	return (u8 *)slab->free_map_ext - *start;
}

void sleb_flush_all(struct kmem_cache *s);

/**
 * struct sleb_counts - what a cache holds, on one node or on all
 * @slabs: slabs
 * @partial: slabs on the partial lists
 * @empty: partial slabs without an object in use
 * @total: objects in the slabs
 * @partial_total: objects in the partial slabs
 * @free: free objects in the slabs (bits set; full slabs have none)
 * @shared: free objects in the shared arrays
 * @queued: free objects in the per-cpu queues
 */
struct sleb_counts {
	unsigned long slabs;
	unsigned long partial;
	unsigned long empty;
	unsigned long total;
	unsigned long partial_total;
	unsigned long free;
	unsigned long shared;
	unsigned long queued;
};

/**
 * sleb_sub_or_zero - a difference of two counts read a moment apart
 * @a: the count that should be the larger
 * @b: the count taken from it
 *
 * Counters read without list_lock can disagree for a moment; a difference
 * that would wrap is reported as 0.
 *
 * Return: @a - @b, or 0 if @b is larger.
 */
static inline unsigned long sleb_sub_or_zero(unsigned long a, unsigned long b)
{
	return a > b ? a - b : 0;
}

/**
 * sleb_counts_in_use - objects handed out and not freed
 * @c: the counts
 *
 * Return: the objects in use; 0 while racing counters disagree.
 */
static inline unsigned long sleb_counts_in_use(const struct sleb_counts *c)
{
	return sleb_sub_or_zero(c->total, c->free + c->shared + c->queued);
}

#if IS_ENABLED(CONFIG_SLEB_KUNIT_TEST)
/*
 * For lib/tests/sleb_kunit.c only: EXPORT_SYMBOL_IF_KUNIT(), namespace
 * EXPORTED_FOR_KUNIT_TESTING.
 */
int sleb_test_tune(struct kmem_cache *s, unsigned int queue, unsigned int batch,
		   unsigned int shared);
unsigned int sleb_test_queue_count(struct kmem_cache *s);
unsigned int sleb_test_reap(struct kmem_cache *s);
bool sleb_test_reaper_armed(unsigned int cpu);
void sleb_test_drop_reap_pass(unsigned int cpu);
void sleb_test_run_reap_pass(unsigned int cpu);
void sleb_test_stop_reaper(void);
void sleb_test_start_reaper(void);
unsigned long sleb_test_shrink(int nid, unsigned long nr);
void sleb_test_drain(struct kmem_cache *s);
unsigned int sleb_test_cpu_queue_count(struct kmem_cache *s, unsigned int cpu);
int sleb_test_home_node(void);
void sleb_test_usage(struct kmem_cache *s, struct sleb_counts *c);
int sleb_test_node_usage(struct kmem_cache *s, int node, struct sleb_counts *c);
int sleb_test_cpu_home_node(unsigned int cpu);
int sleb_test_node_memory(int nid, bool online);
int sleb_test_nearest_home(int nid, const nodemask_t *normal);
#endif

#if defined(CONFIG_SLEB_DEBUG) && IS_ENABLED(CONFIG_KUNIT)
bool sleb_kunit_counts_error(void);
#else
static inline bool sleb_kunit_counts_error(void)
{
	return false;
}
#endif

/* The debugging flags sleb_debug= and kmem_cache_create() may set. */
#define SLEB_DEBUG_FLAGS (SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE | \
			  SLAB_POISON | SLAB_STORE_USER | SLAB_TRACE)

#ifdef CONFIG_SLEB_DEBUG

/* sleb_debug_enabled, the static key, is declared in mm/slab.h. */

/* Whether sleb_debug= (or SLEB_DEBUG_ON) turned debugging on. */
static inline bool sleb_debug_enabled_at_boot(void)
{
	return static_branch_unlikely(&sleb_debug_enabled);
}

/* Whether objects of @s carry debug metadata and pass the debug hooks. */
static __always_inline bool sleb_debug_cache(struct kmem_cache *s)
{
	return static_branch_unlikely(&sleb_debug_enabled) &&
	       (s->flags & SLEB_DEBUG_FLAGS);
}

unsigned int sleb_debug_layout(struct kmem_cache *s, unsigned int size);
void sleb_debug_init_slab(struct kmem_cache *s, struct slab *slab);
void sleb_debug_alloc(struct kmem_cache *s, void *object, unsigned long caller);
bool sleb_debug_free(struct kmem_cache *s, struct slab *slab, void *object,
		     unsigned long caller);
void sleb_debug_free_done(struct kmem_cache *s, void *object);
void sleb_debug_obj_info(struct kmem_obj_info *kpp, struct kmem_cache *s,
			 void *object);

#else /* !CONFIG_SLEB_DEBUG */

static inline bool sleb_debug_enabled_at_boot(void)
{
	return false;
}

static __always_inline bool sleb_debug_cache(struct kmem_cache *s)
{
	return false;
}

static inline unsigned int sleb_debug_layout(struct kmem_cache *s, unsigned int size)
{
	return size;
}

static inline void sleb_debug_init_slab(struct kmem_cache *s, struct slab *slab)
{
}

static inline void sleb_debug_alloc(struct kmem_cache *s, void *object,
				    unsigned long caller)
{
}

static inline bool sleb_debug_free(struct kmem_cache *s, struct slab *slab,
				   void *object, unsigned long caller)
{
	return true;
}

static inline void sleb_debug_free_done(struct kmem_cache *s, void *object)
{
}

static inline void sleb_debug_obj_info(struct kmem_obj_info *kpp,
				       struct kmem_cache *s, void *object)
{
}

#endif /* CONFIG_SLEB_DEBUG */

#endif /* MM_SLEB_H */

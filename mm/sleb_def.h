/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MM_SLEB_DEF_H
#define MM_SLEB_DEF_H

/*
 * SLEB: the Enhanced Slab Allocator, its struct kmem_cache.  Included by
 * mm/slab.h in place of SLUB's definition.
 *
 * See mm/sleb.c and Documentation/mm/sleb.rst.
 */
#include <linux/kfence.h>
#include <linux/kobject.h>
#include <linux/local_lock.h>
#include <linux/reciprocal_div.h>

/**
 * enum sleb_stat_item - the events stat() counts
 * @ALLOC_FASTPATH: allocation served by the per-cpu queue
 * @ALLOC_SLOWPATH: allocation that had to refill the queue first
 * @ALLOC_NODE: allocation for another node, served beside the queue
 * @ALLOC_UNQUEUED: allocation served beside the queue, whose lock was taken
 * @FREE_FASTPATH: free that went into the per-cpu queue
 * @FREE_SLOWPATH: free that had to drain the queue first
 * @FREE_REMOTE: free of an object of another node, routed to that node
 * @FREE_UNQUEUED: free beside the queue, whose lock was taken
 * @REFILL_SHARED: queue refill from the node's shared array
 * @REFILL_PARTIAL: queue refill from partial slabs
 * @REFILL_NEW_SLAB: queue refill that needed a new slab
 * @DRAIN_SHARED: queue drain into the node's shared array
 * @DRAIN_SLABS: queue drain that freed objects into their slabs
 * @QUEUE_FLUSH: a queue was emptied (shrink, CPU hotplug, resize)
 * @QUEUE_REAP: the reaper gave back part of an idle queue or shared array
 * @QUEUE_RESIZE: the queues of the cache were resized
 * @SLAB_ALLOC: slabs allocated from the page allocator
 * @SLAB_FREE: slabs given back to the page allocator
 * @ORDER_FALLBACK: new slabs that had to use the minimal order
 * @NR_SLEB_STAT_ITEMS: number of counters
 */
enum sleb_stat_item {
	ALLOC_FASTPATH,
	ALLOC_SLOWPATH,
	ALLOC_NODE,
	ALLOC_UNQUEUED,
	FREE_FASTPATH,
	FREE_SLOWPATH,
	FREE_REMOTE,
	FREE_UNQUEUED,
	REFILL_SHARED,
	REFILL_PARTIAL,
	REFILL_NEW_SLAB,
	DRAIN_SHARED,
	DRAIN_SLABS,
	QUEUE_FLUSH,
	QUEUE_REAP,
	QUEUE_RESIZE,
	SLAB_ALLOC,
	SLAB_FREE,
	ORDER_FALLBACK,
	NR_SLEB_STAT_ITEMS
};

struct sleb_array;

/**
 * struct sleb_cpu - per-cpu part of a cache
 * @lock: protects @queue, its contents, @home and @touched; interrupts stay
 *	enabled, and the allocation and free paths only try it
 * @queue: the object queue; replaced only on this CPU, from a work item
 * @home: the node whose objects @queue holds
 * @touched: the queue was refilled or drained since the reaper last looked
 * @stat: event counters
 */
struct sleb_cpu {
	local_trylock_t lock;
	struct sleb_array *queue;
	int home;
	bool touched;
#ifdef CONFIG_SLEB_STATS
	unsigned int stat[NR_SLEB_STAT_ITEMS];
#endif
};

/**
 * struct sleb_order_objects - a slab geometry
 * @order: page order of the slab
 * @objects: objects per slab of that order
 */
struct sleb_order_objects {
	unsigned int order;
	unsigned int objects;
};

/**
 * struct kmem_cache - a SLEB cache
 * @cpu: per-cpu queues
 * @flags: SLAB_* flags of the cache
 * @min_partial: partial slabs per node kept even when they are empty
 * @size: object stride, including alignment and debug metadata
 * @object_size: object size as requested
 * @reciprocal_size: for dividing by @size
 * @oo: preferred slab geometry
 * @min: smallest slab geometry, the fallback when memory is fragmented
 * @cpu_queue_size: capacity of each per-cpu queue
 * @cpu_batch_size: objects moved per refill or drain
 * @shared_queue_size: capacity of each node's shared array, 0 if none
 * @queue_hint: the least default queue, kmem_cache_args.sheaf_capacity
 * @allocflags: gfp flags added to each slab allocation
 * @refcount: users of the cache, aliases included
 * @ctor: object constructor
 * @inuse: offset of the metadata behind the object
 * @align: object alignment
 * @red_left_pad: left red zone size
 * @name: cache name
 * @list: entry in slab_caches
 * @useroffset: usercopy region offset
 * @usersize: usercopy region size
 * @kobj: sysfs directory
 * @random_seq: precomputed object order for new slabs
 * @kasan_info: KASAN metadata
 * @validate_errors: problems found by the last validation through sysfs
 * @node: per-node data
 */
struct kmem_cache {
	struct sleb_cpu __percpu *cpu;
	slab_flags_t flags;
	unsigned long min_partial;
	unsigned int size;
	unsigned int object_size;
	struct reciprocal_value reciprocal_size;
	struct sleb_order_objects oo;
	struct sleb_order_objects min;
	unsigned int cpu_queue_size;
	unsigned int cpu_batch_size;
	unsigned int shared_queue_size;
	unsigned int queue_hint;
	gfp_t allocflags;
	int refcount;
	void (*ctor)(void *object);
	unsigned int inuse;
	unsigned int align;
	unsigned int red_left_pad;
	const char *name;
	struct list_head list;
	unsigned int useroffset;
	unsigned int usersize;
#ifdef CONFIG_SYSFS
	struct kobject kobj;
#endif
#ifdef CONFIG_SLAB_FREELIST_RANDOM
	unsigned int *random_seq;
#endif
#ifdef CONFIG_KASAN_GENERIC
	struct kasan_cache kasan_info;
#endif
#ifdef CONFIG_SLEB_DEBUG
	long validate_errors;
#endif
	struct kmem_cache_node *node[MAX_NUMNODES];
};

#ifdef CONFIG_SLEB_DEBUG
void sleb_debug_prepare(slab_flags_t flags);
long sleb_validate_cache(struct kmem_cache *s);
#endif

/* SLEB has no sheaves: kvfree_rcu() batches on its own. */
static inline bool cache_has_sheaves(struct kmem_cache *s)
{
	return false;
}

#endif /* MM_SLEB_DEF_H */

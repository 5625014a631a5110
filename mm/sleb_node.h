/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SLEB's slab lists of a node and the counters kept with them.
 *
 * Included by mm/sleb.h for the kernel, and by the userspace harness of
 * tools/testing/sleb, whose model allocator runs this very code.  So this
 * file includes no header: its includer provides struct slab, struct
 * kmem_cache_node and struct kmem_cache with the fields used here, the
 * list and lockdep helpers, slab_test_pfmemalloc(), slab_map(),
 * slab_base() and mm/sleb_map.h.  Every function here runs under the
 * node's list_lock.
 */
#ifndef MM_SLEB_NODE_H
#define MM_SLEB_NODE_H

/* Which list of its node a slab is on; kept in struct slab under list_lock. */
enum sleb_slab_list {
	SLEB_LIST_NONE,
	SLEB_LIST_PARTIAL,	/* on the partial list, some objects in use */
	SLEB_LIST_EMPTY,	/* on the partial list, no object in use */
	SLEB_LIST_FULL,
};

static inline bool slab_on_partial(const struct slab *slab)
{
	return slab->list == SLEB_LIST_PARTIAL || slab->list == SLEB_LIST_EMPTY;
}

/* An empty slab on the partial list: known from its state, not its bitmap. */
static inline bool slab_listed_empty(const struct slab *slab)
{
	return slab->list == SLEB_LIST_EMPTY;
}

/*
 * The node keeps counts of its partial list (slabs, their objects, their
 * free objects, the empty slabs among them) up to date under list_lock, so
 * that counting never walks the list.
 */
static inline void node_add_partial(struct kmem_cache_node *n, struct slab *slab, bool tail,
				    enum sleb_slab_list list)
{
	lockdep_assert_held(&n->list_lock);
	if (tail)
		list_add_tail(&slab->slab_list, &n->partial);
	else
		list_add(&slab->slab_list, &n->partial);
	slab->list = list;
	n->nr_partial++;
	n->partial_objects += slab->objects;
	if (list == SLEB_LIST_EMPTY)
		n->nr_empty++;
}

static inline void node_unlist(struct kmem_cache_node *n, struct slab *slab)
{
	lockdep_assert_held(&n->list_lock);
	list_del(&slab->slab_list);
	if (slab_on_partial(slab)) {
		n->nr_partial--;
		n->partial_objects -= slab->objects;
	}
	if (slab->list == SLEB_LIST_EMPTY)
		n->nr_empty--;
	slab->list = SLEB_LIST_NONE;
}

static inline void node_add_full(struct kmem_cache_node *n, struct slab *slab)
{
	lockdep_assert_held(&n->list_lock);
	list_add(&slab->slab_list, &n->full);
	slab->list = SLEB_LIST_FULL;
}

/*
 * Put a new slab, whose first objects may be taken already, on its node's
 * lists: the full list, or the partial list; one of the emergency
 * reserves at its tail, where node_take() does not walk past it every
 * time.
 */
static inline void node_add_new_slab(struct kmem_cache_node *n, struct slab *slab)
{
	unsigned int free = sleb_map_free_count(slab_map(slab), slab->objects);

	lockdep_assert_held(&n->list_lock);
	n->nr_slabs++;
	n->total_objects += slab->objects;
	n->free_objects += free;
	if (!free)
		node_add_full(n, slab);
	else
		node_add_partial(n, slab, slab_test_pfmemalloc(slab),
				 free == slab->objects ? SLEB_LIST_EMPTY : SLEB_LIST_PARTIAL);
}

/* Take an empty slab off its node's books before giving it back. */
static inline void node_remove_slab(struct kmem_cache_node *n, struct slab *slab,
				    struct list_head *discard)
{
	node_unlist(n, slab);
	n->nr_slabs--;
	n->total_objects -= slab->objects;
	n->free_objects -= slab->objects;
	list_add(&slab->slab_list, discard);
}

/* After @got objects were taken from @slab: fix its list and the counts. */
static inline void slab_after_take(struct kmem_cache_node *n, struct slab *slab,
				   unsigned int got)
{
	n->free_objects -= got;
	if (sleb_map_none_free(slab_map(slab), slab->objects)) {
		node_unlist(n, slab);
		node_add_full(n, slab);
	} else if (slab->list == SLEB_LIST_EMPTY) {
		slab->list = SLEB_LIST_PARTIAL;
		n->nr_empty--;
	}
}

/* Take up to @max objects from one slab and fix its list. */
static inline unsigned int slab_take(struct kmem_cache *s, struct kmem_cache_node *n,
				     struct slab *slab, void **dst, unsigned int max)
{
	unsigned long *map = slab_map(slab);
	unsigned int got;

	lockdep_assert_held(&n->list_lock);
	got = sleb_map_take(map, slab->objects, slab_base(s, slab), s->size, dst, max);
	if (got)
		slab_after_take(n, slab, got);
	return got;
}

/*
 * Take up to @max objects from the partial slabs of a node, for a queue or
 * a shared array: not from slabs of the emergency reserves.
 */
static inline unsigned int node_take(struct kmem_cache *s, struct kmem_cache_node *n,
				     void **dst, unsigned int max)
{
	struct slab *slab, *next;
	unsigned int got = 0;

	lockdep_assert_held(&n->list_lock);
	list_for_each_entry_safe(slab, next, &n->partial, slab_list) {
		if (got == max)
			break;
		if (unlikely(slab_test_pfmemalloc(slab)))
			continue;
		got += slab_take(s, n, slab, dst + got, max - got);
	}
	return got;
}

/*
 * After objects went back to @slab: a full slab becomes partial, an empty
 * one is discarded once the node keeps min_partial partial slabs.
 */
static inline void slab_after_put(struct kmem_cache *s, struct kmem_cache_node *n,
				  struct slab *slab, struct list_head *discard)
{
	bool reserve = slab_test_pfmemalloc(slab);

	switch (sleb_relist_after_put(slab_map(slab), slab->objects,
				      slab->list == SLEB_LIST_FULL, n->nr_partial,
				      s->min_partial, reserve)) {
	case SLEB_RELIST_STAY:
		break;
	case SLEB_RELIST_PARTIAL:
		node_unlist(n, slab);
		node_add_partial(n, slab, reserve, SLEB_LIST_PARTIAL);
		break;
	case SLEB_RELIST_DISCARD:
		node_remove_slab(n, slab, discard);
		break;
	case SLEB_RELIST_KEEP_EMPTY:
		node_unlist(n, slab);
		node_add_partial(n, slab, true, SLEB_LIST_EMPTY);
		break;
	}
}

/*
 * Return the run of objects at the start of @objs that lies in @slab, of
 * node @n, to its bitmap and fix the slab's list; an empty slab may go to
 * @discard.  *@result says what ended the run (see sleb_map_put()).
 * Return: the objects consumed; 0 if the first is past the slab's objects.
 */
static inline unsigned int slab_put_run(struct kmem_cache *s, struct kmem_cache_node *n,
					struct slab *slab, void * const *objs,
					unsigned int nr, enum sleb_put_result *result,
					struct list_head *discard)
{
	unsigned int done, put;

	lockdep_assert_held(&n->list_lock);
	done = sleb_map_put(slab_map(slab), slab->objects, slab_base(s, slab),
			    s->size, s->reciprocal_size, objs, nr, result);
	if (!done)
		return 0;
	/* The object a misaligned or double free ends on stays as it was. */
	put = *result == SLEB_PUT_OK ? done : done - 1;
	/*
	 * Nothing put, nothing to relist: the slab may be on @discard
	 * already, emptied by the first free of the object freed twice.
	 */
	if (put) {
		n->free_objects += put;
		slab_after_put(s, n, slab, discard);
	}
	return done;
}

#endif /* MM_SLEB_NODE_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for what mm/sleb_node.h takes from its includer.
 *
 * Included after shim.h and mm/sleb_map.h.  Each stand-in keeps the
 * semantics of its kernel original (6.1):
 *
 *   struct list_head, INIT_LIST_HEAD, list_add, list_add_tail,	include/linux/list.h
 *   list_del, list_empty, list_for_each_entry(_safe)
 *   container_of						include/linux/container_of.h
 *   unlikely							include/linux/compiler.h
 *   lockdep_assert_held: nothing; the harness has one thread	include/linux/lockdep.h
 *   struct slab, struct kmem_cache_node: the fields SLEB has	mm/slab.h (CONFIG_SLEB)
 *   struct kmem_cache: the fields mm/sleb_node.h reads		mm/sleb_def.h
 *   slab_map()							mm/sleb.h
 *   slab_test_pfmemalloc()					mm/slab.h
 *
 * slab_base() is the start of the harness's slab memory, where the kernel's
 * is slab_address() past the left red zone.
 */
#ifndef SLEB_TEST_NODE_SHIM_H
#define SLEB_TEST_NODE_SHIM_H

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define lockdep_assert_held(l)	((void)(l))

/* --- include/linux/list.h ------------------------------------------------- */

struct list_head {
	struct list_head *next, *prev;
};

static inline void INIT_LIST_HEAD(struct list_head *list)
{
	list->next = list;
	list->prev = list;
}

static inline void __list_add(struct list_head *new, struct list_head *prev,
			      struct list_head *next)
{
	next->prev = new;
	new->next = next;
	new->prev = prev;
	prev->next = new;
}

static inline void list_add(struct list_head *new, struct list_head *head)
{
	__list_add(new, head, head->next);
}

static inline void list_add_tail(struct list_head *new, struct list_head *head)
{
	__list_add(new, head->prev, head);
}

/* Poisons the entry as the kernel does, so that a second del faults. */
static inline void list_del(struct list_head *entry)
{
	entry->next->prev = entry->prev;
	entry->prev->next = entry->next;
	entry->next = (struct list_head *)0x100;
	entry->prev = (struct list_head *)0x122;
}

static inline bool list_empty(const struct list_head *head)
{
	return head->next == head;
}

#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_first_entry(ptr, type, member) list_entry((ptr)->next, type, member)
#define list_next_entry(pos, member) \
	list_entry((pos)->member.next, typeof(*(pos)), member)
#define list_entry_is_head(pos, head, member) (&(pos)->member == (head))

#define list_for_each_entry(pos, head, member)				\
	for (pos = list_first_entry(head, typeof(*pos), member);	\
	     !list_entry_is_head(pos, head, member);			\
	     pos = list_next_entry(pos, member))

#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_first_entry(head, typeof(*pos), member),	\
		n = list_next_entry(pos, member);			\
	     !list_entry_is_head(pos, head, member);			\
	     pos = n, n = list_next_entry(n, member))

/* --- The allocator's structures ------------------------------------------- */

struct slab {
	struct list_head slab_list;
	union {
		unsigned long free_map;
		unsigned long *free_map_ext;
	};
	unsigned int objects;
	unsigned int list;
	/* the harness's own */
	void *mem;
	bool pfmemalloc;
};

struct kmem_cache_node {
	int list_lock;			/* lockdep_assert_held() takes its address */
	struct list_head partial;
	struct list_head full;
	unsigned long nr_partial;
	unsigned long nr_empty;
	unsigned long nr_slabs;
	unsigned long total_objects;
	unsigned long partial_objects;
	unsigned long free_objects;
};

struct kmem_cache {
	unsigned int size;
	struct reciprocal_value reciprocal_size;
	unsigned long min_partial;
};

static inline unsigned long *slab_map(struct slab *slab)
{
	if (sleb_map_in_struct(slab->objects))
		return &slab->free_map;
	return slab->free_map_ext;
}

static inline void *slab_base(struct kmem_cache *s, struct slab *slab)
{
	return slab->mem;
}

static inline bool slab_test_pfmemalloc(const struct slab *slab)
{
	return slab->pfmemalloc;
}

#endif /* SLEB_TEST_NODE_SHIM_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target for SLEB's bookkeeping (mm/sleb_map.h).
 *
 * The input drives a model allocator that is built from the helpers of
 * mm/sleb_map.h and the node lists of mm/sleb_node.h the way mm/sleb.c uses
 * them: a cache of one object size with a few slabs, a per-cpu-like queue,
 * a node-like shared array and the node's partial and full slab lists with
 * their counters.  A reference model that knows nothing of the
 * helpers (one state per object, plain division) follows every step, and
 * the two are compared after each one.  A violation prints what broke and
 * calls abort(), so that libFuzzer reports a crash.
 *
 * Input: 8 bytes of configuration, then operations of one opcode byte and
 * their argument bytes (see setup(), run_op() and gen-corpus.sh).  A
 * missing byte reads as 0; the operations end with the input.
 *
 * Taking objects from slabs, putting them back and moving slabs between
 * the lists is mm/sleb_node.h's own code; the loop over runs of objects
 * around it is a copy of sleb_free_to_slabs() and node_put(), and the
 * queue layer a copy of mm/sleb.c's.
 * SLEB_FUZZ_TRACE=1 in the environment prints every operation.
 *
 * Built two ways: with clang -fsanitize=fuzzer as a libFuzzer target, and
 * with -DSLEB_FUZZ_STANDALONE into a program that replays files and runs
 * random inputs for a while, so that it works without clang (see main()).
 */
#include "shim.h"
#ifdef SLEB_MAP_HEADER
#include SLEB_MAP_HEADER
#else
#include "../../../mm/sleb_map.h"
#endif
#include "node_shim.h"
#ifdef SLEB_NODE_HEADER
#include SLEB_NODE_HEADER
#else
#include "../../../mm/sleb_node.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
static inline unsigned int min_u(unsigned int a, unsigned int b)
{
	return a < b ? a : b;
}

#define MIN(a, b)	min_u(a, b)

#define MAX_SLABS	8
#define MAX_ORDER_F	3
#define MAX_QUEUE	300
#define MAX_SHARED	300
#define MAX_BULK	64
#define FULL_CHECK_EVERY 32

/* Where the reference model has each object. */
enum obj_state {
	OBJ_FREE,	/* free in its slab */
	OBJ_QUEUE,	/* in the per-cpu queue */
	OBJ_SHARED,	/* in the shared array */
	OBJ_USER,	/* handed out */
	NR_OBJ_STATES
};

static const char * const state_name[] = { "free", "queue", "shared", "user" };

struct mslab {
	struct slab slab;		/* what mm/sleb_node.h works on */
	bool active;
	unsigned int order;
	unsigned int objects;
	char *base;
	unsigned long *map;		/* slab_map(&slab) */
	/* reference model */
	unsigned char *state;
	unsigned int *stamp;		/* duplicate detection */
	unsigned int nr_free;
	bool dirty;
};

struct model {
	/* configuration */
	unsigned int size;
	struct reciprocal_value rsize;
	unsigned int oo_order, min_order;
	bool mixed_orders;
	unsigned int batch;
	unsigned int min_partial;
	unsigned int max_slabs;
	/* allocator */
	struct mslab slabs[MAX_SLABS];
	struct kmem_cache cache;
	struct kmem_cache_node node;
	struct sleb_array *queue;
	struct sleb_array *shared;	/* NULL: none */
	/* reference model */
	void **user;
	unsigned int nr_user, user_cap;
	unsigned long counts[NR_OBJ_STATES];
	unsigned long total;
	unsigned int epoch;
	unsigned long step;
	const char *op;
	/* scratch */
	void *tmp[MAX_BULK + MAX_QUEUE + MAX_SHARED + 8];
	char outside[64];
};

static struct model M;
static int trace = -1;		/* SLEB_FUZZ_TRACE=1: print every operation */

/* --- Input ----------------------------------------------------------------- */

static const unsigned char *in_data;
static size_t in_size, in_pos;

static unsigned int next_byte(void)
{
	return in_pos < in_size ? in_data[in_pos++] : 0;
}

/* --- Violations -------------------------------------------------------------- */

static void __attribute__((format(printf, 1, 2), noreturn)) violation(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "sleb fuzz: VIOLATION at step %lu (%s), size %u, oo order %u: ",
		M.step, M.op ? M.op : "setup", M.size, M.oo_order);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

#define CHECK(cond, ...)			\
	do {					\
		if (!(cond))			\
			violation(__VA_ARGS__);	\
	} while (0)

/* --- Reference model: objects -------------------------------------------------- */

static unsigned long slab_bytes(const struct mslab *s)
{
	return PAGE_SIZE << s->order;
}

/* The slab whose pages hold @p, like virt_to_slab(); NULL if none. */
static struct mslab *find_slab(const void *p)
{
	const char *c = p;
	unsigned int i;

	for (i = 0; i < MAX_SLABS; i++) {
		struct mslab *s = &M.slabs[i];

		if (s->active && c >= s->base && c < s->base + slab_bytes(s))
			return s;
	}
	return NULL;
}

/* Index of a valid object pointer; a violation for anything else. */
static unsigned int obj_index(const void *p, struct mslab **sp)
{
	struct mslab *s = find_slab(p);
	unsigned long off;

	CHECK(s, "%p is in no slab", p);
	off = (const char *)p - s->base;
	CHECK(off < (unsigned long)s->objects * M.size,
	      "%p is past the objects of slab %td", p, s - M.slabs);
	CHECK(off % M.size == 0, "%p is no object start (offset %lu)", p, off);
	*sp = s;
	return off / M.size;
}

static void set_state(struct mslab *s, unsigned int idx, enum obj_state to)
{
	enum obj_state from = s->state[idx];

	M.counts[from]--;
	M.counts[to]++;
	if (from == OBJ_FREE)
		s->nr_free--;
	if (to == OBJ_FREE)
		s->nr_free++;
	s->state[idx] = to;
	s->dirty = true;
}

/* Objects moved from @from to @to: each must be where the model had it. */
static void move_objs(void * const *objs, unsigned int nr, enum obj_state from,
		      enum obj_state to)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		struct mslab *s;
		unsigned int idx = obj_index(objs[i], &s);

		CHECK(s->state[idx] == from,
		      "object %p (slab %td index %u) moved %s -> %s but is %s%s",
		      objs[i], s - M.slabs, idx, state_name[from], state_name[to],
		      state_name[s->state[idx]],
		      from == OBJ_FREE ? ": handed out twice" : "");
		set_state(s, idx, to);
	}
}

/* The pattern a handed out object is filled with. */
static unsigned char obj_pattern(const void *p)
{
	return 0x80 | ((unsigned long)p >> 3);
}

static void user_add(void *p)
{
	memset(p, obj_pattern(p), M.size);
	if (M.nr_user == M.user_cap) {
		M.user_cap = M.user_cap ? 2 * M.user_cap : 64;
		M.user = realloc(M.user, M.user_cap * sizeof(void *));
		if (!M.user)
			abort();
	}
	M.user[M.nr_user++] = p;
}

/* Remove the user object at @i; checks that nobody wrote into it. */
static void *user_remove(unsigned int i)
{
	unsigned char *p = M.user[i];
	unsigned int k;

	for (k = 0; k < M.size; k++)
		CHECK(p[k] == obj_pattern(p), "object %p byte %u changed while in use", p, k);
	M.user[i] = M.user[--M.nr_user];
	return p;
}

/* The newest user object if @arg is even, else one picked by @arg. */
static void *user_pick(unsigned int arg)
{
	if (!M.nr_user)
		return NULL;
	return user_remove(arg & 1 ? (arg >> 1) % M.nr_user : M.nr_user - 1);
}

/* --- Slabs and lists (mm/sleb.c's node lists) ---------------------------------- */

/* The model slab of a struct slab. */
static struct mslab *mslab_of(struct slab *slab)
{
	return container_of(slab, struct mslab, slab);
}

static void discard(struct mslab *s);

/* Give back the slabs mm/sleb_node.h took off the node's books. */
static void discard_list(struct list_head *list)
{
	struct slab *slab, *next;

	list_for_each_entry_safe(slab, next, list, slab_list)
		discard(mslab_of(slab));
}

static void check_slab(struct mslab *s);

/* A new slab, on no list yet, as sleb_new_slab() returns it. */
static struct mslab *new_slab(void)
{
	unsigned int i, n = 0, words;
	struct mslab *s = NULL;
	unsigned long off;

	for (i = 0; i < MAX_SLABS; i++) {
		if (M.slabs[i].active)
			n++;
		else if (!s)
			s = &M.slabs[i];
	}
	if (n >= M.max_slabs || !s)
		return NULL;
	memset(s, 0, sizeof(*s));
	s->order = M.mixed_orders && ((s - M.slabs) & 1) ? M.min_order : M.oo_order;
	s->objects = sleb_slab_objects(M.size, s->order);
	CHECK(s->objects, "no object of %u bytes fits order %u", M.size, s->order);
	s->base = aligned_alloc(PAGE_SIZE, slab_bytes(s));
	s->state = calloc(s->objects, 1);
	s->stamp = calloc(s->objects, sizeof(unsigned int));
	if (!s->base || !s->state || !s->stamp)
		abort();
	memset(s->base, 0x5a, slab_bytes(s));	/* pages are not zeroed */
	words = sleb_map_words(s->objects);
	s->slab.objects = s->objects;
	s->slab.mem = s->base;
	if (!sleb_map_in_struct(s->objects)) {
		off = sleb_map_offset(s->objects, s->order);
		/* the bitmap region overlaps no object and ends in the slab */
		CHECK(off >= (unsigned long)s->objects * M.size,
		      "map at %lu overlaps objects ending at %lu", off,
		      (unsigned long)s->objects * M.size);
		CHECK(off % sizeof(long) == 0, "map offset %lu not word aligned", off);
		CHECK(off + words * sizeof(long) <= slab_bytes(s),
		      "map at %lu + %u words ends past the slab", off, words);
		s->slab.free_map_ext = (unsigned long *)(s->base + off);
	}
	s->map = slab_map(&s->slab);
	sleb_map_init(s->map, s->objects);
	s->active = true;
	s->nr_free = s->objects;
	s->dirty = true;
	M.total += s->objects;
	M.counts[OBJ_FREE] += s->objects;
	return s;
}

/* Put a new slab, whose first objects may be taken, on the node's lists. */
static void list_new_slab(struct mslab *s)
{
	node_add_new_slab(&M.node, &s->slab);
	check_slab(s);
}

static struct mslab *grow(void)
{
	struct mslab *s = new_slab();

	if (s)
		list_new_slab(s);
	return s;
}

/*
 * Give back a slab that node_remove_slab() took off the books; the model
 * must agree that all its objects are free.
 */
static void discard(struct mslab *s)
{
	CHECK(s->nr_free == s->objects, "discarding slab %td with %u of %u objects free",
	      s - M.slabs, s->nr_free, s->objects);
	CHECK(sleb_map_all_free(s->map, s->objects), "all_free false when discarding");
	CHECK(s->slab.list == SLEB_LIST_NONE, "discarding slab %td still on list %u",
	      s - M.slabs, s->slab.list);
	M.total -= s->objects;
	M.counts[OBJ_FREE] -= s->objects;
	free(s->base);
	free(s->state);
	free(s->stamp);
	memset(s, 0, sizeof(*s));
}

/* new_slab_take(): the first objects of a slab on no list yet. */
static unsigned int take_from_new_slab(struct mslab *s, void **dst, unsigned int max,
				       enum obj_state to)
{
	unsigned int got, want = MIN(max, s->nr_free);

	got = sleb_map_take(s->map, s->objects, slab_base(&M.cache, &s->slab), M.size, dst, max);
	CHECK(got == want, "take from new slab %td took %u, %u free, max %u",
	      s - M.slabs, got, s->nr_free, max);
	move_objs(dst, got, OBJ_FREE, to);
	return got;
}

/* node_take() from the partial slabs, head first. */
static unsigned int take_from_slabs(void **dst, unsigned int max, enum obj_state to)
{
	unsigned int got, want = MIN(max, M.counts[OBJ_FREE]);

	/* Full slabs have no free object: every free one is on the partial list. */
	got = node_take(&M.cache, &M.node, dst, max);
	CHECK(got == want, "node_take of %u took %u, %lu free", max, got, M.counts[OBJ_FREE]);
	move_objs(dst, got, OBJ_FREE, to);
	return got;
}

/* node_get(): the shared array first, then the partial slabs. */
static unsigned int node_get(void **dst, unsigned int max, enum obj_state to)
{
	unsigned int got;

	if (M.shared && M.shared->count) {
		unsigned int before = M.shared->count;

		got = sleb_array_take_newest(M.shared, dst, max);
		CHECK(got == MIN(before, max) && M.shared->count == before - got,
		      "take_newest of %u from %u took %u, left %u", max, before, got,
		      M.shared->count);
		move_objs(dst, got, OBJ_SHARED, to);
		if (got)
			return got;
	}
	return take_from_slabs(dst, max, to);
}

/*
 * After slab_put_run() returned objects to @s: where the slab went must
 * follow from the reference's count of its free objects and the node's
 * partial slabs before the put (@nr_partial): an empty slab is discarded
 * only when the node keeps min_partial partial slabs without it.
 */
static void check_relist(struct mslab *s, bool was_full, unsigned long nr_partial,
			 bool discarded)
{
	bool empty = s->nr_free == s->objects;

	CHECK(!discarded || empty, "slab %td discarded with %u of %u free", s - M.slabs,
	      s->nr_free, s->objects);
	if (empty)
		CHECK(discarded == (nr_partial >= M.min_partial),
		      "empty slab %td %s with %lu partial, min_partial %u", s - M.slabs,
		      discarded ? "discarded" : "kept", nr_partial, M.min_partial);
	CHECK(!was_full || !s->nr_free || s->slab.list != SLEB_LIST_FULL,
	      "a full slab with %u free objects stays full", s->nr_free);
	if (!discarded)
		s->dirty = true;
}

/*
 * sleb_free_to_slabs(): return objects that the model has in state @from
 * to their slabs, one sleb_map_put() per run of one slab.  The reference
 * model predicts each call's consumed count and result: a pointer into no
 * slab is skipped (reported by the kernel), a misaligned one or a double
 * free ends the run and is left alone.
 */
static void free_to_slabs(void * const *objs, unsigned int nr, enum obj_state from)
{
	struct list_head gone;
	unsigned int i = 0;

	INIT_LIST_HEAD(&gone);
	while (i < nr) {
		enum sleb_put_result res, want_res = SLEB_PUT_OK;
		struct mslab *s = find_slab(objs[i]);
		unsigned int done, want, j;
		enum sleb_slab_list was_list;
		unsigned long nr_partial;
		unsigned int put;
		const char *end;

		if (!s) {
			i++;	/* "free of a non-slab pointer" */
			continue;
		}
		/* predict */
		M.epoch++;
		end = s->base + (unsigned long)s->objects * M.size;
		for (j = i; j < nr; j++) {
			const char *p = objs[j];
			unsigned long off;

			if (p < s->base || p >= end)
				break;
			off = p - s->base;
			if (off % M.size) {
				want_res = SLEB_PUT_MISALIGNED;
				j++;
				break;
			}
			off /= M.size;
			if (s->state[off] == OBJ_FREE || s->stamp[off] == M.epoch) {
				want_res = SLEB_PUT_DOUBLE_FREE;
				j++;
				break;
			}
			s->stamp[off] = M.epoch;
		}
		want = j - i;

		was_list = s->slab.list;
		nr_partial = M.node.nr_partial;
		done = slab_put_run(&M.cache, &M.node, &s->slab, objs + i, nr - i, &res, &gone);
		CHECK(done == want && res == want_res,
		      "sleb_map_put of %u at %u into slab %td: consumed %u result %d, expected %u result %d",
		      nr - i, i, s - M.slabs, done, res, want, want_res);
		if (!done) {
			/*
			 * A pointer into the slab's pages past its last object:
			 * a bad free, skipped, as node_put() in mm/sleb.c does.
			 */
			i++;
			continue;
		}
		put = want_res == SLEB_PUT_OK ? done : done - 1;
		move_objs(objs + i, put, from, OBJ_FREE);
		if (put)
			check_relist(s, was_list == SLEB_LIST_FULL, nr_partial,
				     s->slab.list == SLEB_LIST_NONE);
		else
			/* e.g. the second free of the object that emptied it */
			CHECK(s->slab.list == was_list,
			      "slab %td moved from list %u to %u by a put of nothing",
			      s - M.slabs, was_list, s->slab.list);
		i += done;
	}
	/* As the kernel: slabs emptied by the batch go back after it. */
	discard_list(&gone);
}

/* --- Queue and shared array (mm/sleb.c's per-cpu layer) ------------------------- */

static struct sleb_array *array_alloc(unsigned int size)
{
	struct sleb_array *a = malloc(sizeof(*a) + size * sizeof(void *));

	if (!a)
		abort();
	a->count = 0;
	a->size = size;
	return a;
}

static unsigned int queue_batch(void)
{
	return MIN(M.batch, M.queue->size);
}

/* shared_put(): offer objects to the shared array; returns how many it took. */
static unsigned int shared_put(void * const *objs, unsigned int nr, enum obj_state from)
{
	unsigned int before, moved;

	if (!M.shared)
		return 0;
	before = M.shared->count;
	moved = sleb_array_add(M.shared, objs, nr);
	CHECK(moved == MIN(nr, M.shared->size - before) && M.shared->count == before + moved,
	      "add of %u to %u/%u added %u, count %u", nr, before, M.shared->size, moved,
	      M.shared->count);
	CHECK(!moved || !memcmp(M.shared->objects + before, objs, moved * sizeof(void *)),
	      "sleb_array_add stored other objects");
	move_objs(objs, moved, from, OBJ_SHARED);
	return moved;
}

/* queue_drain(): the oldest batch to the shared array, the rest to the slabs. */
static void queue_drain(void)
{
	struct sleb_array *q = M.queue;
	unsigned int nr = MIN(queue_batch(), q->count), moved, before = q->count;
	void *after = nr < q->count ? q->objects[nr] : NULL;

	if (!nr)
		return;
	moved = shared_put(q->objects, nr, OBJ_QUEUE);
	if (moved < nr)
		free_to_slabs(q->objects + moved, nr - moved, OBJ_QUEUE);
	sleb_array_drop_oldest(q, nr);
	CHECK(q->count == before - nr, "drop_oldest %u of %u left %u", nr, before, q->count);
	CHECK(!after || q->objects[0] == after, "drop_oldest did not move the newer ones down");
}

/* queue_flush(): the whole queue to the slabs. */
static void queue_flush(void)
{
	struct sleb_array *q = M.queue;

	if (!q->count)
		return;
	free_to_slabs(q->objects, q->count, OBJ_QUEUE);
	q->count = 0;
}

static void shared_flush(void)
{
	if (M.shared && M.shared->count) {
		free_to_slabs(M.shared->objects, M.shared->count, OBJ_SHARED);
		M.shared->count = 0;
	}
}

/*
 * queue_refill(): the queue is empty; refill it and return one object.  A
 * new slab's objects are taken before it is listed (list_new_slab()).
 */
static void *queue_refill(void)
{
	struct sleb_array *q = M.queue;
	void *object;
	struct mslab *s;

	if (!q->size) {
		/* boot queue: objects go straight to the caller */
		if (node_get(&object, 1, OBJ_USER))
			return object;
	} else {
		q->count = node_get(q->objects, queue_batch(), OBJ_QUEUE);
		CHECK(q->count <= queue_batch(), "refill got %u, batch %u", q->count,
		      queue_batch());
	}
	if (!q->count) {
		s = new_slab();
		if (!s)
			return NULL;
		if (!q->size) {
			take_from_new_slab(s, &object, 1, OBJ_USER);
			list_new_slab(s);
			return object;
		}
		q->count = take_from_new_slab(s, q->objects, queue_batch(), OBJ_QUEUE);
		CHECK(q->count, "nothing taken from a new slab");
		list_new_slab(s);
	}
	object = q->objects[--q->count];
	move_objs(&object, 1, OBJ_QUEUE, OBJ_USER);
	return object;
}

static void *queue_alloc(void)
{
	struct sleb_array *q = M.queue;
	void *object;

	if (q->count) {
		object = q->objects[--q->count];
		move_objs(&object, 1, OBJ_QUEUE, OBJ_USER);
		return object;
	}
	return queue_refill();
}

/* queue_free(): @x is in state OBJ_USER. */
static void queue_free(void *x)
{
	struct sleb_array *q = M.queue;

	if (q->count >= q->size) {
		if (!q->size) {
			free_to_slabs(&x, 1, OBJ_USER);
			return;
		}
		queue_drain();
	}
	CHECK(q->count < q->size, "no room in the queue after a drain");
	q->objects[q->count++] = x;
	move_objs(&x, 1, OBJ_USER, OBJ_QUEUE);
}

/* queue_alloc_bulk(): returns how many of @nr went to the user. */
static unsigned int alloc_bulk(unsigned int nr)
{
	unsigned int i = 0;
	void **p = M.tmp;

	while (i < nr) {
		struct sleb_array *q = M.queue;
		unsigned int before = q->count, got;
		void *object;

		if (q->count) {
			got = sleb_array_take_newest(q, p + i, nr - i);
			CHECK(got == MIN(before, nr - i) && q->count == before - got,
			      "take_newest of %u from %u took %u", nr - i, before, got);
			move_objs(p + i, got, OBJ_QUEUE, OBJ_USER);
			i += got;
			continue;
		}
		object = queue_refill();
		if (!object)
			break;
		p[i++] = object;
	}
	for (nr = 0; nr < i; nr++)
		user_add(p[nr]);
	return i;
}

static unsigned int resize_size(unsigned int sel, unsigned int max)
{
	static const unsigned int sizes[] = { 0, 1, 2, 3, 4, 7, 8, 16, 24, 27, 54, 60, 120, 121 };

	if (sel < 2 * ARRAY_SIZE(sizes))
		return sizes[sel % ARRAY_SIZE(sizes)];
	return sel % (max + 1);
}

/*
 * A new queue of @size objects.  Mode 0 is resize_cpu_queues(): the old
 * queue goes back to the slabs whole; mode 1 keeps what fits, as
 * resize_shared() does, and returns the rest to the slabs.
 */
static void resize_queue(unsigned int size, bool keep)
{
	struct sleb_array *old = M.queue, *new = array_alloc(size);
	unsigned int kept = 0;

	if (keep) {
		kept = sleb_array_add(new, old->objects, old->count);
		CHECK(kept == MIN(size, old->count), "resize kept %u of %u into %u", kept,
		      old->count, size);
	}
	if (old->count > kept)
		free_to_slabs(old->objects + kept, old->count - kept, OBJ_QUEUE);
	M.queue = new;
	free(old);
}

/* resize_shared(): keep what fits, the rest to the slabs; 0 removes it. */
static void resize_shared(unsigned int size)
{
	struct sleb_array *old = M.shared, *new = size ? array_alloc(size) : NULL;

	if (old) {
		unsigned int kept = new ? sleb_array_add(new, old->objects, old->count) : 0;

		if (old->count > kept)
			free_to_slabs(old->objects + kept, old->count - kept, OBJ_SHARED);
	}
	M.shared = new;
	free(old);
}

/* __kmem_cache_shrink(): flush everything, then free the empty slabs. */
static void shrink(void)
{
	struct slab *slab, *next;
	struct list_head gone;

	INIT_LIST_HEAD(&gone);
	queue_flush();
	shared_flush();
	/* node_shrink() */
	list_for_each_entry_safe(slab, next, &M.node.partial, slab_list)
		if (slab_listed_empty(slab))
			node_remove_slab(&M.node, slab, &gone);
	discard_list(&gone);
}

/*
 * A run of objects with one bad pointer among them goes to the slabs, as a
 * buggy kfree() would bring it there: a pointer inside an object, a
 * double free, a pointer into no slab, or one into the slab's tail past
 * the last object.
 */
static void bad_free(unsigned int kind, unsigned int arg)
{
	unsigned int good = arg % 6, pos = (arg >> 3) % (good + 1), n = 0, i, k;
	void *bad = NULL, *run[8];
	struct mslab *s = NULL;

	for (i = 0; i < MAX_SLABS && !s; i++)
		if (M.slabs[(kind + i) % MAX_SLABS].active)
			s = &M.slabs[(kind + i) % MAX_SLABS];
	switch (kind % 4) {
	case 0:		/* inside an object */
		if (s)
			bad = s->base + (unsigned long)(arg % s->objects) * M.size +
			      1 + (kind >> 2) % (M.size - 1);
		break;
	case 1:		/* double free of an object free in its slab */
		for (i = 0; i < MAX_SLABS && !bad; i++) {
			struct mslab *f = &M.slabs[(kind + i) % MAX_SLABS];

			if (!f->active || !f->nr_free)
				continue;
			for (k = 0; k < f->objects; k++) {
				unsigned int idx = (arg + k) % f->objects;

				if (f->state[idx] == OBJ_FREE) {
					bad = f->base + (unsigned long)idx * M.size;
					break;
				}
			}
		}
		break;
	case 2:		/* no slab memory */
		bad = M.outside + (arg & 31);
		break;
	case 3:		/* the tail of a slab, past its last object */
		if (s && (unsigned long)s->objects * M.size < slab_bytes(s))
			bad = s->base + (unsigned long)s->objects * M.size +
			      arg % (slab_bytes(s) - (unsigned long)s->objects * M.size);
		break;
	}
	for (i = 0; i < good + 1; i++) {
		if (i == pos) {
			if (bad)
				run[n++] = bad;
			continue;
		}
		if (!M.nr_user)
			continue;
		run[n++] = user_pick(arg + i);
	}
	free_to_slabs(run, n, OBJ_USER);
}

/* --- Checks ---------------------------------------------------------------------- */

static void check_slab(struct mslab *s)
{
	unsigned int words = sleb_map_words(s->objects), i, n = 0;

	for (i = 0; i < s->objects; i++) {
		bool bit = s->map[i / BITS_PER_LONG] & (1UL << (i % BITS_PER_LONG));

		CHECK(bit == (s->state[i] == OBJ_FREE),
		      "slab %td object %u: bit %d but model has it %s", s - M.slabs, i, bit,
		      state_name[s->state[i]]);
		n += bit;
	}
	CHECK(n == s->nr_free, "slab %td: %u bits set, model %u free", s - M.slabs, n,
	      s->nr_free);
	CHECK(sleb_map_free_count(s->map, s->objects) == s->nr_free,
	      "slab %td: free_count %u, model %u", s - M.slabs,
	      sleb_map_free_count(s->map, s->objects), s->nr_free);
	CHECK(sleb_map_all_free(s->map, s->objects) == (s->nr_free == s->objects),
	      "slab %td: all_free wrong", s - M.slabs);
	CHECK(sleb_map_none_free(s->map, s->objects) == !s->nr_free,
	      "slab %td: none_free wrong", s - M.slabs);
	if (s->objects % BITS_PER_LONG)
		CHECK(!(s->map[words - 1] & ~BITMAP_LAST_WORD_MASK(s->objects)),
		      "slab %td: bits beyond %u objects set: %#lx", s - M.slabs, s->objects,
		      s->map[words - 1]);
	CHECK(s->slab.list == (!s->nr_free ? SLEB_LIST_FULL :
			       s->nr_free == s->objects ? SLEB_LIST_EMPTY : SLEB_LIST_PARTIAL),
	      "slab %td with %u of %u free is on list %u", s - M.slabs, s->nr_free,
	      s->objects, s->slab.list);
	s->dirty = false;
}

/* Each entry is a distinct object that the model has in state @st. */
static void check_entries(void * const *objs, unsigned int nr, enum obj_state st,
			  const char *what)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		struct mslab *s;
		unsigned int idx = obj_index(objs[i], &s);

		CHECK(s->state[idx] == st, "%s entry %u (%p) is %s in the model", what, i,
		      objs[i], state_name[s->state[idx]]);
		CHECK(s->stamp[idx] != M.epoch, "%s entry %u (%p) is there twice", what, i,
		      objs[i]);
		s->stamp[idx] = M.epoch;
	}
}

/*
 * The node's lists hold exactly the active slabs, each on the list its
 * state names, and the node's counters agree with the reference.
 */
static void check_node(void)
{
	unsigned long partial = 0, empty = 0, partial_objs = 0, slabs = 0, objects = 0;
	struct slab *slab;

	list_for_each_entry(slab, &M.node.partial, slab_list) {
		CHECK(slab_on_partial(slab) && mslab_of(slab)->active,
		      "slab %td on the partial list has state %u", mslab_of(slab) - M.slabs,
		      slab->list);
		partial++;
		empty += slab->list == SLEB_LIST_EMPTY;
		partial_objs += slab->objects;
		objects += slab->objects;
	}
	list_for_each_entry(slab, &M.node.full, slab_list) {
		CHECK(slab->list == SLEB_LIST_FULL && mslab_of(slab)->active,
		      "slab %td on the full list has state %u", mslab_of(slab) - M.slabs,
		      slab->list);
		objects += slab->objects;
		slabs++;
	}
	slabs += partial;
	CHECK(M.node.nr_partial == partial && M.node.nr_empty == empty &&
	      M.node.partial_objects == partial_objs,
	      "node counts %lu partial, %lu empty, %lu objects in them; lists %lu, %lu, %lu",
	      M.node.nr_partial, M.node.nr_empty, M.node.partial_objects, partial, empty,
	      partial_objs);
	CHECK(M.node.nr_slabs == slabs && M.node.total_objects == objects &&
	      objects == M.total,
	      "node counts %lu slabs, %lu objects; lists %lu, %lu; model %lu objects",
	      M.node.nr_slabs, M.node.total_objects, slabs, objects, M.total);
	CHECK(M.node.free_objects == M.counts[OBJ_FREE], "node counts %lu free, model %lu",
	      M.node.free_objects, M.counts[OBJ_FREE]);
}

static void check_all(bool full)
{
	unsigned long sum = 0, free_objs = 0;
	unsigned int i, active = 0;

	for (i = 0; i < NR_OBJ_STATES; i++)
		sum += M.counts[i];
	CHECK(sum == M.total, "objects lost: %lu accounted of %lu", sum, M.total);
	CHECK(M.queue->count <= M.queue->size, "queue count %u > size %u",
	      M.queue->count, M.queue->size);
	CHECK(M.counts[OBJ_QUEUE] == M.queue->count, "queue holds %u, model %lu",
	      M.queue->count, M.counts[OBJ_QUEUE]);
	CHECK(M.counts[OBJ_SHARED] == (M.shared ? M.shared->count : 0),
	      "shared holds %u, model %lu", M.shared ? M.shared->count : 0,
	      M.counts[OBJ_SHARED]);
	CHECK(!M.shared || M.shared->count <= M.shared->size, "shared count > size");
	CHECK(M.counts[OBJ_USER] == M.nr_user, "user holds %u, model %lu", M.nr_user,
	      M.counts[OBJ_USER]);

	M.epoch++;
	check_entries(M.queue->objects, M.queue->count, OBJ_QUEUE, "queue");
	if (M.shared)
		check_entries(M.shared->objects, M.shared->count, OBJ_SHARED, "shared");
	if (full)
		check_entries(M.user, M.nr_user, OBJ_USER, "user");

	for (i = 0; i < MAX_SLABS; i++) {
		struct mslab *s = &M.slabs[i];

		if (!s->active)
			continue;
		if (full || s->dirty)
			check_slab(s);
		free_objs += s->nr_free;
		active++;
	}
	CHECK(free_objs == M.counts[OBJ_FREE], "free objects %lu, model %lu", free_objs,
	      M.counts[OBJ_FREE]);
	CHECK(active == M.node.nr_slabs, "%u active slabs, the node counts %lu", active,
	      M.node.nr_slabs);
	check_node();
}

/* --- Driver -------------------------------------------------------------------- */

/*
 * Configuration bytes:
 *   0, 1	object size: byte 0 bit 7 set: a table entry picked by byte 1;
 *		else 8 + 14 bits, rounded to 8 when byte 0 bit 6 is set
 *   2		bits 0-1 order (at least the size's), bit 2 mixed orders
 *   3		queue size (0: boot queue), 4 batch (0: default)
 *   5		shared array size (0: none), 6 min_partial and max slabs
 *   7		slabs to create up front
 */
static void setup(void)
{
	static const unsigned int sizes[] = {
		8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 96, 104, 128, 192, 256, 264,
		504, 512, 520, 1024, 1032, 2048, 3000, 3072, 4096, 4104, 8192, 16384,
	};
	unsigned int b0 = next_byte(), b1 = next_byte(), b2 = next_byte();
	unsigned int qsize, i, pre;

	memset(&M, 0, sizeof(M));
	if (b0 & 0x80) {
		M.size = sizes[b1 % ARRAY_SIZE(sizes)];
	} else {
		M.size = 8 + (((b0 << 8) | b1) & 0x3fff);
		if (b0 & 0x40)
			M.size = (M.size + 7) & ~7u;
	}
	M.rsize = reciprocal_value(M.size);
	for (M.min_order = 0; (PAGE_SIZE << M.min_order) < M.size; M.min_order++)
		;
	M.oo_order = MIN(MAX_ORDER_F, b2 & 3);
	if (M.oo_order < M.min_order)
		M.oo_order = M.min_order;
	M.mixed_orders = b2 & 4;

	qsize = resize_size(next_byte(), MAX_QUEUE);
	M.queue = array_alloc(qsize);
	M.batch = next_byte();
	if (!M.batch)
		M.batch = sleb_default_batch(qsize ? qsize : sleb_default_queue_size(M.size));
	i = resize_size(next_byte(), MAX_SHARED);
	M.shared = i ? array_alloc(i) : NULL;
	i = next_byte();
	M.min_partial = i & 3;
	M.cache.size = M.size;
	M.cache.reciprocal_size = M.rsize;
	M.cache.min_partial = M.min_partial;
	INIT_LIST_HEAD(&M.node.partial);
	INIT_LIST_HEAD(&M.node.full);
	M.max_slabs = 1 + ((i >> 2) % MAX_SLABS);
	pre = next_byte() % (M.max_slabs + 1);
	for (i = 0; i < pre; i++)
		grow();
}

static void teardown(void)
{
	struct list_head gone;
	unsigned int i;

	/* everything back: the user's objects too */
	M.op = "teardown";
	while (M.nr_user) {
		void *p = user_remove(M.nr_user - 1);

		free_to_slabs(&p, 1, OBJ_USER);
	}
	shrink();
	check_all(true);
	CHECK(M.counts[OBJ_FREE] == M.total, "objects missing after tearing down");
	INIT_LIST_HEAD(&gone);
	for (i = 0; i < MAX_SLABS; i++) {
		struct mslab *s = &M.slabs[i];

		if (!s->active)
			continue;
		CHECK(sleb_map_all_free(s->map, s->objects), "slab %u not all free", i);
		node_remove_slab(&M.node, &s->slab, &gone);
	}
	discard_list(&gone);
	CHECK(!M.total && !M.counts[OBJ_FREE] && !M.node.nr_partial && !M.node.nr_slabs &&
	      !M.node.free_objects && list_empty(&M.node.full),
	      "slabs left after tearing down");
	free(M.queue);
	free(M.shared);
	free(M.user);
	memset(&M, 0, sizeof(M));
}

enum {
	OP_ALLOC, OP_ALLOC_2, OP_ALLOC_3, OP_FREE, OP_FREE_2, OP_FREE_3,
	OP_ALLOC_BULK, OP_FREE_BULK, OP_DRAIN, OP_REFILL, OP_RESIZE_QUEUE,
	OP_RESIZE_SHARED, OP_SHRINK, OP_FLUSH_SHARED, OP_FREE_REMOTE, OP_BAD_FREE,
	OP_SET_BATCH, NR_OPS
};

static void run_op(unsigned int op)
{
	unsigned int arg, n, i;
	void *p;

	switch (op % NR_OPS) {
	case OP_ALLOC:
	case OP_ALLOC_2:
	case OP_ALLOC_3:
		M.op = "alloc";
		p = queue_alloc();
		if (p)
			user_add(p);
		break;
	case OP_FREE:
	case OP_FREE_2:
	case OP_FREE_3:
		M.op = "free";
		p = user_pick(next_byte());
		if (p)
			queue_free(p);
		break;
	case OP_ALLOC_BULK:
		M.op = "alloc_bulk";
		n = 1 + next_byte() % MAX_BULK;
		i = alloc_bulk(n);
		if (i < n) {
			/* kmem_cache_alloc_bulk() frees what it got on failure */
			while (i--)
				queue_free(user_pick(0));
		}
		break;
	case OP_FREE_BULK:
		M.op = "free_bulk";
		arg = next_byte();
		n = 1 + arg % MAX_BULK;
		for (i = 0; i < n && M.nr_user; i++)
			queue_free(user_pick(arg & 0x80 ? arg + 2 * i : 0));
		break;
	case OP_DRAIN:
		M.op = "drain";
		queue_drain();
		break;
	case OP_REFILL:
		M.op = "refill";
		/* top up the queue by up to a batch */
		n = MIN(queue_batch(), M.queue->size - M.queue->count);
		M.queue->count += node_get(M.queue->objects + M.queue->count, n, OBJ_QUEUE);
		break;
	case OP_RESIZE_QUEUE:
		M.op = "resize_queue";
		arg = next_byte();
		resize_queue(resize_size(arg, MAX_QUEUE), next_byte() & 1);
		break;
	case OP_RESIZE_SHARED:
		M.op = "resize_shared";
		resize_shared(resize_size(next_byte(), MAX_SHARED));
		break;
	case OP_SHRINK:
		M.op = "shrink";
		shrink();
		break;
	case OP_FLUSH_SHARED:
		M.op = "flush_shared";
		shared_flush();
		break;
	case OP_FREE_REMOTE:
		M.op = "free_remote";
		/* free_remote(): to the shared array, else to the slabs */
		p = user_pick(next_byte());
		if (p && !shared_put(&p, 1, OBJ_USER))
			free_to_slabs(&p, 1, OBJ_USER);
		break;
	case OP_BAD_FREE:
		M.op = "bad_free";
		arg = next_byte();
		bad_free(arg, next_byte());
		break;
	case OP_SET_BATCH:
		M.op = "set_batch";
		arg = next_byte();
		M.batch = arg ? arg : sleb_default_batch(M.queue->size);
		if (!M.batch)
			M.batch = 1;	/* sleb_tune() takes no batch of 0 */
		break;
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	in_data = data;
	in_size = size;
	in_pos = 0;
	setup();
	check_all(true);
	if (trace < 0)
		trace = !!getenv("SLEB_FUZZ_TRACE");
	if (trace)
		fprintf(stderr,
			"setup: size %u orders %u/%u%s queue %u batch %u shared %u min_partial %u max_slabs %u\n",
			M.size, M.oo_order, M.min_order, M.mixed_orders ? " mixed" : "",
			M.queue->size, M.batch, M.shared ? M.shared->size : 0, M.min_partial,
			M.max_slabs);
	while (in_pos < in_size) {
		M.step++;
		run_op(next_byte());
		if (trace)
			fprintf(stderr, "%lu %s: queue %u shared %u user %u free %lu partial %lu\n",
				M.step, M.op, M.queue->count, M.shared ? M.shared->count : 0,
				M.nr_user, M.counts[OBJ_FREE], M.node.nr_partial);
		check_all(M.step % FULL_CHECK_EVERY == 0);
	}
	teardown();
	return 0;
}

#ifdef SLEB_FUZZ_STANDALONE
/* --- Standalone driver -------------------------------------------------------- */

#include <signal.h>
#include <time.h>
#include <unistd.h>

static const char *crash_file = "crash-sleb-fuzz";

/* Keep the input that failed, for replay; async-signal-safe enough. */
static void save_input(void)
{
	FILE *f = fopen(crash_file, "wb");

	if (!f)
		return;
	fwrite(in_data, 1, in_size, f);
	fclose(f);
	fprintf(stderr, "sleb fuzz: input of %zu bytes saved to %s\n", in_size, crash_file);
}

static void on_abort(int sig)
{
	signal(sig, SIG_DFL);
	save_input();
	raise(sig);
}

void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static unsigned long long seed, first_seed;

static unsigned long long rnd(void)
{
	seed ^= seed >> 12;
	seed ^= seed << 25;
	seed ^= seed >> 27;
	return seed * 0x2545f4914f6cdd1dULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define MAX_LEN 2048

static unsigned char *read_file(const char *path, size_t *len)
{
	unsigned char *buf = NULL;
	size_t cap = 0, n = 0, r;
	FILE *f = fopen(path, "rb");

	if (!f)
		return NULL;
	do {
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r);
	fclose(f);
	*len = n;
	return buf;
}

static void print_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--seconds=N] [--seed=N] [--max-len=N] [--crash-file=PATH] [FILE...]\n"
		"  replays each FILE, then runs random inputs (and mutations of the\n"
		"  FILEs) for N seconds (default 0).  Exits 0 when no violation was\n"
		"  found, after printing one line of counts.\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned char **corpus = NULL, buf[MAX_LEN];
	size_t *corpus_len = NULL, nr_corpus = 0, max_len = 512;
	unsigned long long runs = 0, bytes = 0;
	double seconds = 0, t0, t;
	int i;

	seed = (unsigned long long)time(NULL) * 0x9e3779b97f4a7c15ULL ^ getpid();
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strncmp(a, "--seconds=", 10))
			seconds = atof(a + 10);
		else if (!strncmp(a, "--seed=", 7))
			seed = strtoull(a + 7, NULL, 0);
		else if (!strncmp(a, "--max-len=", 10))
			max_len = strtoul(a + 10, NULL, 0);
		else if (!strncmp(a, "--crash-file=", 13))
			crash_file = a + 13;
		else if (a[0] == '-' && a[1] == '-')
			print_usage(argv[0]);
		else
			nr_corpus++;
	}
	if (!max_len || max_len > MAX_LEN)
		max_len = MAX_LEN;
	if (!seed)
		seed = 1;
	signal(SIGABRT, on_abort);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(save_input);
	first_seed = seed;
	fprintf(stderr, "sleb fuzz: seed %#llx\n", seed);

	corpus = calloc(nr_corpus + 1, sizeof(*corpus));
	corpus_len = calloc(nr_corpus + 1, sizeof(*corpus_len));
	nr_corpus = 0;
	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '-' && argv[i][1] == '-')
			continue;
		corpus[nr_corpus] = read_file(argv[i], &corpus_len[nr_corpus]);
		if (!corpus[nr_corpus]) {
			fprintf(stderr, "sleb fuzz: cannot read %s\n", argv[i]);
			return 2;
		}
		LLVMFuzzerTestOneInput(corpus[nr_corpus], corpus_len[nr_corpus]);
		runs++;
		bytes += corpus_len[nr_corpus];
		nr_corpus++;
	}

	t0 = now();
	for (t = t0; t - t0 < seconds; ) {
		size_t len, k;

		if (nr_corpus && rnd() % 2) {
			/* a corpus input with a few bytes changed, cut or grown */
			size_t c = rnd() % nr_corpus, edits = 1 + rnd() % 8;

			len = MIN(corpus_len[c], max_len);
			memcpy(buf, corpus[c], len);
			if (rnd() % 4 == 0)
				len = rnd() % (len + 1);
			else if (rnd() % 4 == 0)
				while (len < max_len && rnd() % 16)
					buf[len++] = rnd();
			for (k = 0; k < edits && len; k++)
				buf[rnd() % len] = rnd();
		} else {
			len = 1 + rnd() % max_len;
			for (k = 0; k < len; k++)
				buf[k] = rnd();
			/*
			 * Favour the table of sizes and sane orders half of
			 * the time, and any stride of 8..263 bytes a quarter.
			 */
			if (len > 3 && rnd() % 2) {
				buf[0] = 0x80;
				buf[2] &= 3;
			} else if (len > 3 && rnd() % 2) {
				buf[0] &= 0x40;
			}
		}
		LLVMFuzzerTestOneInput(buf, len);
		runs++;
		bytes += len;
		if (runs % 16 == 0)
			t = now();
	}
	fprintf(stdout,
		"sleb fuzz: %zu corpus files, %llu inputs (%llu bytes) in %.1f s, no violation (seed %#llx)\n",
		nr_corpus, runs, bytes, now() - t0, first_seed);
	for (i = 0; i < (int)nr_corpus; i++)
		free(corpus[i]);
	free(corpus);
	free(corpus_len);
	return 0;
}
#endif /* SLEB_FUZZ_STANDALONE */

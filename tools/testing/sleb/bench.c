// SPDX-License-Identifier: GPL-2.0
/*
 * Instruction counts of SLEB's bookkeeping, for callgrind.
 *
 *   bench SIZE METRIC
 *
 * sets up a cache of SIZE-byte objects the way mm/sleb.c does (order by
 * waste, default queue and batch) on the helpers of mm/sleb_map.h, runs one
 * METRIC and prints "ops N": the number of operations that the measure_*()
 * function did.  Under valgrind --tool=callgrind --collect-atstart=no
 * --toggle-collect='measure_*' only those functions are counted, so the
 * instructions of the run divided by N are the instructions per operation
 * (the callgrind target of the Makefile does that, see callgrind.sh).
 *
 * METRIC is one of
 *   pair		kmalloc + kfree through the queue fast path
 *   put		sleb_map_put() of a batch taken in one run (as drained);
 *			a batch is the default one or the slab's objects if fewer
 *   put_shuffled	sleb_map_put() of the same batch in random order
 *   take		sleb_map_take() of a batch from a slab (as refilled)
 */
#include "shim.h"
#ifdef SLEB_MAP_HEADER
#include SLEB_MAP_HEADER
#else
#include "../../../mm/sleb_map.h"
#endif

#include <stdio.h>
#include <stdlib.h>

#define MEASURE		__attribute__((noinline, noclone))
#define MAX_ORDER_B	3	/* SLEB_MAX_ORDER */
#define MIN_OBJECTS	12	/* min(4 * (fls(2 CPUs) + 1), SLEB_MIN_OBJECTS) */
#define NR_SLABS	64
#define PAIRS		200000
#define ROUNDS		4000

struct bslab {
	char *base;
	unsigned long word;
	unsigned long *map;
	unsigned int objects;
	unsigned int nr_free;
};

struct bcache {
	unsigned int size;
	unsigned int order;
	unsigned int batch;
	struct reciprocal_value rsize;
	struct sleb_array *queue;
	struct bslab slabs[NR_SLABS];
	unsigned int nr_slabs;
};

static struct bcache C;

/* order_for_waste() and choose_order() of mm/sleb.c */
static unsigned int choose_order(unsigned int size)
{
	unsigned int fraction, order, first = 0;

	while ((PAGE_SIZE << first) < size)
		first++;
	for (fraction = 16; fraction >= 4; fraction /= 2) {
		for (order = first; order <= MAX_ORDER_B; order++) {
			unsigned int objects = sleb_slab_objects(size, order);

			if (objects < MIN_OBJECTS && order < MAX_ORDER_B)
				continue;
			if (objects && sleb_slab_waste(size, order) * fraction <=
			    (PAGE_SIZE << order))
				return order;
		}
	}
	return first;
}

static struct bslab *new_slab(void)
{
	struct bslab *s = &C.slabs[C.nr_slabs++];

	if (C.nr_slabs > NR_SLABS)
		abort();
	s->objects = sleb_slab_objects(C.size, C.order);
	s->base = aligned_alloc(PAGE_SIZE, PAGE_SIZE << C.order);
	if (!s->base)
		abort();
	if (sleb_map_in_struct(s->objects))
		s->map = &s->word;
	else
		s->map = (unsigned long *)(s->base + sleb_map_offset(s->objects, C.order));
	sleb_map_init(s->map, s->objects);
	s->nr_free = s->objects;
	return s;
}

static struct bslab *find_slab(const void *p)
{
	unsigned int i;

	for (i = 0; i < C.nr_slabs; i++)
		if ((const char *)p >= C.slabs[i].base &&
		    (const char *)p < C.slabs[i].base + (PAGE_SIZE << C.order))
			return &C.slabs[i];
	return NULL;
}

/* --- The queue: mm/sleb.c's queue_alloc() and queue_free() ------------------ */

static __attribute__((noinline)) void queue_refill(struct sleb_array *q)
{
	unsigned int i;

	for (i = 0; i < C.nr_slabs && q->count < C.batch; i++)
		q->count += sleb_map_take(C.slabs[i].map, C.slabs[i].objects,
					  C.slabs[i].base, C.size, q->objects + q->count,
					  C.batch - q->count);
	if (!q->count) {
		struct bslab *s = new_slab();

		q->count = sleb_map_take(s->map, s->objects, s->base, C.size, q->objects,
					 C.batch);
	}
}

static __attribute__((noinline)) void queue_drain(struct sleb_array *q)
{
	enum sleb_put_result res;
	unsigned int i = 0;

	while (i < C.batch) {
		struct bslab *s = find_slab(q->objects[i]);

		i += sleb_map_put(s->map, s->objects, s->base, C.size, C.rsize,
				  q->objects + i, C.batch - i, &res);
	}
	sleb_array_drop_oldest(q, C.batch);
}

static __attribute__((noinline)) void *bench_alloc(void)
{
	struct sleb_array *q = C.queue;

	if (__builtin_expect(!q->count, 0))
		queue_refill(q);
	return q->objects[--q->count];
}

static __attribute__((noinline)) void bench_free(void *x)
{
	struct sleb_array *q = C.queue;

	if (__builtin_expect(q->count >= q->size, 0))
		queue_drain(q);
	q->objects[q->count++] = x;
}

/* --- Measured functions ---------------------------------------------------- */

MEASURE void measure_pair(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		void *x = bench_alloc();

		__asm__ volatile("" : : "r"(x) : "memory");
		bench_free(x);
	}
}

MEASURE unsigned int measure_put(struct bslab *s, void **objs, unsigned int nr)
{
	enum sleb_put_result res;

	return sleb_map_put(s->map, s->objects, s->base, C.size, C.rsize, objs, nr, &res);
}

MEASURE unsigned int measure_take(struct bslab *s, void **objs, unsigned int nr)
{
	return sleb_map_take(s->map, s->objects, s->base, C.size, objs, nr);
}

static unsigned long long rng_state = 88172645463325252ULL;

static unsigned long long rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

int main(int argc, char **argv)
{
	unsigned long long ops = 0;
	const char *metric;
	unsigned int qsize, r, i, nr;
	struct bslab *s;
	void **objs;

	if (argc != 3) {
		fprintf(stderr, "usage: %s SIZE pair|put|put_shuffled|take\n", argv[0]);
		return 2;
	}
	C.size = strtoul(argv[1], NULL, 0);
	metric = argv[2];
	if (C.size < sizeof(void *) || C.size > (PAGE_SIZE << MAX_ORDER_B))
		return 2;
	C.order = choose_order(C.size);
	C.rsize = reciprocal_value(C.size);
	qsize = sleb_default_queue_size(C.size);
	C.batch = sleb_default_batch(qsize);
	C.queue = calloc(1, sizeof(*C.queue) + qsize * sizeof(void *));
	C.queue->size = qsize;
	s = new_slab();
	objs = calloc(s->objects, sizeof(void *));
	nr = C.batch < s->objects ? C.batch : s->objects;

	if (!strcmp(metric, "pair")) {
		/* a queue with a batch in it: every pair stays on the fast path */
		queue_refill(C.queue);
		measure_pair(PAIRS);
		ops = PAIRS;
	} else if (!strcmp(metric, "put") || !strcmp(metric, "put_shuffled")) {
		bool shuffled = strcmp(metric, "put");

		for (r = 0; r < ROUNDS; r++) {
			/* a batch from the middle of the slab, as a refill took it */
			unsigned int start = r % (s->objects - nr + 1), got;

			sleb_map_take(s->map, s->objects, s->base, C.size, objs, s->objects);
			for (i = 0; i < nr; i++)
				objs[i] = s->base + (unsigned long)(start + i) * C.size;
			if (shuffled)
				for (i = nr; i > 1; i--) {
					unsigned int j = rng() % i;
					void *x = objs[i - 1];

					objs[i - 1] = objs[j];
					objs[j] = x;
				}
			got = measure_put(s, objs, nr);
			if (got != nr)
				abort();
			ops += nr;
			sleb_map_init(s->map, s->objects);
		}
	} else if (!strcmp(metric, "take")) {
		for (r = 0; r < ROUNDS; r++) {
			if (measure_take(s, objs, nr) != nr)
				abort();
			ops += nr;
			sleb_map_init(s->map, s->objects);
		}
	} else {
		fprintf(stderr, "unknown metric %s\n", metric);
		return 2;
	}
	printf("size %u order %u objects %u queue %u batch %u run %u ops %llu\n", C.size,
	       C.order, s->objects, qsize, C.batch, nr, ops);
	return 0;
}

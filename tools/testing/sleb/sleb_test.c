// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of SLEB's bookkeeping: mm/sleb_map.h compiled in userspace.
 *
 * Each test is a static bool test_*(void); main() runs them all and prints
 * one line per test, "ok N - name" or "not ok N - name", diagnostics as
 * "# ..." lines, and "N passed, N failed" as the last line.  The exit
 * status is non-zero when a test failed.
 */
#include "shim.h"
#ifdef SLEB_MAP_HEADER
#include SLEB_MAP_HEADER
#else
#include "../../../mm/sleb_map.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The assertions: a false one prints where and what, and longjmp()s back to
 * run_test(), which reports the test as failed; the rest of the test does
 * not run, as if the test had returned false there.
 */
static jmp_buf test_failed;

static void assert_true(bool ok, const char *file, int line, const char *func,
			const char *cond)
{
	if (ok)
		return;
	printf("# %s:%d: %s: '%s' is false\n", file, line, func, cond);
	longjmp(test_failed, 1);
}

static void __attribute__((format(printf, 6, 7)))
assert_truef(bool ok, const char *file, int line, const char *func, const char *cond,
	     const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return;
	printf("# %s:%d: %s: '%s' is false: ", file, line, func, cond);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	longjmp(test_failed, 1);
}

static void assert_eq(unsigned long long a, unsigned long long b, const char *file, int line,
		      const char *func, const char *a_str, const char *b_str)
{
	if (a == b)
		return;
	printf("# %s:%d: %s: %s == %llu, expected %s == %llu\n",
	       file, line, func, a_str, a, b_str, b);
	longjmp(test_failed, 1);
}

#define ASSERT(cond)	assert_true(cond, __FILE__, __LINE__, __func__, #cond)
#define ASSERTF(cond, fmt, ...)						\
	assert_truef(cond, __FILE__, __LINE__, __func__, #cond, fmt, ##__VA_ARGS__)
#define ASSERT_EQ(a, b)	assert_eq(a, b, __FILE__, __LINE__, __func__, #a, #b)

#define MAX_TEST_ORDER	3

/* Object strides the layout and bitmap tests walk, besides 8..16384. */
static const unsigned int odd_sizes[] = {
	8, 16, 24, 32, 40, 48, 56, 63, 64, 72, 96, 104, 128, 192, 200, 256,
	264, 512, 520, 1000, 1024, 1032, 2048, 3000, 4096, 4104, 8192, 12000,
	16384,
};

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;

static unsigned long long rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static unsigned long slab_bytes(unsigned int order)
{
	return PAGE_SIZE << order;
}

/* --- A slab in userspace ---------------------------------------------------- */

struct tslab {
	unsigned int size;
	unsigned int order;
	unsigned int objects;
	char *mem;			/* slab_bytes(order), page aligned */
	unsigned long word[2];		/* in-struct map and a guard word */
	unsigned long *map;
	struct reciprocal_value rsize;
};

/* A new slab with all objects free; false when no object fits. */
static bool tslab_init(struct tslab *t, unsigned int size, unsigned int order)
{
	memset(t, 0, sizeof(*t));
	t->size = size;
	t->order = order;
	t->objects = sleb_slab_objects(size, order);
	t->rsize = reciprocal_value(size);
	if (!t->objects)
		return false;
	t->mem = aligned_alloc(PAGE_SIZE, slab_bytes(order));
	if (!t->mem)
		abort();
	memset(t->mem, 0xa5, slab_bytes(order));
	if (sleb_map_in_struct(t->objects)) {
		t->word[0] = ~0UL;	/* garbage init has to clear */
		t->word[1] = 0;
		t->map = t->word;
	} else {
		t->map = (unsigned long *)(t->mem + sleb_map_offset(t->objects, order));
	}
	sleb_map_init(t->map, t->objects);
	return true;
}

static void tslab_destroy(struct tslab *t)
{
	free(t->mem);
	t->mem = NULL;
}

static void *tslab_obj(const struct tslab *t, unsigned int idx)
{
	return t->mem + (unsigned long)idx * t->size;
}

static bool test_bit(const unsigned long *map, unsigned int idx)
{
	return map[idx / BITS_PER_LONG] & (1UL << (idx % BITS_PER_LONG));
}

/* No bit at or beyond @objects is set, in the map's last word or after it. */
static bool tslab_tail_clear(const struct tslab *t)
{
	unsigned int words = sleb_map_words(t->objects);

	if (t->objects % BITS_PER_LONG &&
	    t->map[words - 1] & ~BITMAP_LAST_WORD_MASK(t->objects))
		return false;
	if (t->map == t->word && t->word[1])
		return false;
	return true;
}

static unsigned int tslab_count_free(const struct tslab *t)
{
	unsigned int i, n = 0;

	for (i = 0; i < t->objects; i++)
		n += test_bit(t->map, i);
	return n;
}

static unsigned int tslab_put(struct tslab *t, void **objs, unsigned int nr,
			      enum sleb_put_result *res)
{
	return sleb_map_put(t->map, t->objects, t->mem, t->size, t->rsize, objs, nr, res);
}

/* Take every object; the pointers go into a new array that the caller frees. */
static void **tslab_take_all(struct tslab *t, unsigned int *nr)
{
	void **objs = calloc(t->objects + 1, sizeof(void *));

	if (!objs)
		abort();
	*nr = sleb_map_take(t->map, t->objects, t->mem, t->size, objs, t->objects + 1);
	return objs;
}

static void shuffle(void **objs, unsigned int nr)
{
	unsigned int i;

	for (i = nr; i > 1; i--) {
		unsigned int j = rng() % i;
		void *x = objs[i - 1];

		objs[i - 1] = objs[j];
		objs[j] = x;
	}
}

/*
 * Calls @check for the odd sizes and a sample of 8..16384 at orders 0..3,
 * until one returns false.
 */
static bool walk_layouts(bool (*check)(unsigned int size, unsigned int order))
{
	unsigned int k, size, order;

	for (k = 0; k < ARRAY_SIZE(odd_sizes) + 64; k++) {
		size = k < ARRAY_SIZE(odd_sizes) ? odd_sizes[k] : 8 + (unsigned int)(rng() % 16377);
		for (order = 0; order <= MAX_TEST_ORDER; order++)
			if (!check(size, order))
				return false;
	}
	return true;
}

/* --- The shim ------------------------------------------------------------------ */

static bool test_shim_reciprocal(void)
{
	static const u32 edge[] = { 0, 1, 2, 7, 8, 4095, 4096, 32767, 32768,
				    0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff };
	u32 d;
	unsigned int i;

	for (d = 1; d <= 70000; d += (d < 2048 ? 1 : 7)) {
		struct reciprocal_value r = reciprocal_value(d);

		for (i = 0; i < ARRAY_SIZE(edge); i++)
			ASSERTF(reciprocal_divide(edge[i], r) == edge[i] / d,
				"%u / %u", edge[i], d);
		for (i = 0; i < 64; i++) {
			u32 a = (u32)rng();

			if (i & 1)
				a %= 1u << 18;	/* offsets inside a slab */
			ASSERTF(reciprocal_divide(a, r) == a / d, "%u / %u", a, d);
		}
	}
	return true;
}

static bool test_shim_bitmap(void)
{
	unsigned long map[4];
	unsigned int start, len, i;

	for (start = 0; start < 3 * BITS_PER_LONG; start++) {
		for (len = 0; start + len <= 4 * BITS_PER_LONG; len++) {
			memset(map, 0, sizeof(map));
			bitmap_set(map, start, len);
			for (i = 0; i < 4 * BITS_PER_LONG; i++)
				ASSERTF(test_bit(map, i) == (i >= start && i < start + len),
					"start %u len %u bit %u", start, len, i);
			ASSERT_EQ(bitmap_weight(map, 4 * BITS_PER_LONG), len);
			ASSERT_EQ(bitmap_weight(map, start), 0);
			ASSERT(bitmap_full(map, start + len) == (start == 0));
			ASSERT(bitmap_empty(map, start) == true);
			ASSERT(bitmap_empty(map, start + len) == !len);
		}
	}
	/* trailing bits do not count */
	memset(map, 0xff, sizeof(map));
	ASSERT_EQ(bitmap_weight(map, 65), 65);
	ASSERT(bitmap_full(map, 130));
	map[0] = 0;
	ASSERT(bitmap_empty(map, 64));
	ASSERT(!bitmap_empty(map, 65));
	bitmap_zero(map, 65);
	ASSERT(!map[0] && !map[1] && map[2] == ~0UL);
	ASSERT_EQ(__ffs(1), 0);
	ASSERT_EQ(__ffs(1UL << (BITS_PER_LONG - 1)), BITS_PER_LONG - 1);
	ASSERT_EQ(__ffs(0x30), 4);
	ASSERT(!__test_and_set_bit(70, map) && test_bit(map, 70));
	ASSERT(__test_and_set_bit(70, map));
	return true;
}

/* --- Layout -------------------------------------------------------------------- */

/* Bytes that @objects objects of @size and their bitmap need in a slab. */
static unsigned long need_bytes(unsigned long objects, unsigned int size)
{
	unsigned long bytes = objects * size;

	if (!sleb_map_in_struct(objects))
		bytes += BITS_TO_LONGS(objects) * sizeof(long);
	return bytes;
}

static bool check_layout(unsigned int size, unsigned int order)
{
	unsigned long bytes = slab_bytes(order);
	unsigned int n = sleb_slab_objects(size, order);
	unsigned long waste = sleb_slab_waste(size, order);

	/* fits */
	ASSERTF(need_bytes(n, size) <= bytes, "size %u order %u objects %u", size, order, n);
	/* maximal: one more object (and its bitmap) would not fit */
	ASSERTF(need_bytes(n + 1, size) > bytes, "size %u order %u objects %u", size, order, n);
	/* never fewer than BITS_PER_LONG when that many fit */
	if ((unsigned long)BITS_PER_LONG * size <= bytes)
		ASSERTF(n >= BITS_PER_LONG, "size %u order %u objects %u", size, order, n);
	ASSERTF((n == 0) == (size > bytes), "size %u order %u objects %u", size, order, n);
	/* in struct iff it fits a word */
	ASSERT(sleb_map_in_struct(n) == (n <= BITS_PER_LONG));
	ASSERT_EQ(sleb_map_words(n), (n + BITS_PER_LONG - 1) / BITS_PER_LONG);
	if (!sleb_map_in_struct(n)) {
		unsigned long off = sleb_map_offset(n, order);

		ASSERTF(off >= (unsigned long)n * size, "size %u order %u objects %u off %lu",
			size, order, n, off);
		ASSERTF(off % sizeof(long) == 0, "size %u order %u off %lu", size, order, off);
		ASSERT_EQ(off + sleb_map_words(n) * sizeof(long), bytes);
	}
	/* waste */
	ASSERTF(waste == bytes - need_bytes(n, size), "size %u order %u waste %lu",
		size, order, waste);
	if (n)
		ASSERTF(waste < size + 2 * sizeof(long), "size %u order %u waste %lu",
			size, order, waste);
	return true;
}

static bool test_layout_all_sizes(void)
{
	unsigned int size, order;

	for (order = 0; order <= MAX_TEST_ORDER; order++)
		for (size = 8; size <= 16384; size++)
			if (!check_layout(size, order))
				return false;
	return true;
}

static bool test_layout_odd_sizes(void)
{
	unsigned int i, order;

	for (i = 0; i < ARRAY_SIZE(odd_sizes); i++)
		for (order = 0; order <= MAX_TEST_ORDER; order++)
			if (!check_layout(odd_sizes[i], order))
				return false;
	/* bigger orders than SLEB uses today, and strides that are no word multiple */
	for (order = 4; order <= 5; order++)
		for (i = 8; i < 3000; i += 13)
			if (!check_layout(i, order))
				return false;
	return true;
}

static bool test_layout_known_values(void)
{
	/* hand-computed: 4096 / 8 = 512 objects need 64 bytes of map: 504 */
	ASSERT_EQ(sleb_slab_objects(8, 0), 504);
	ASSERT_EQ(sleb_map_offset(504, 0), 4096 - 8 * 8);
	ASSERT_EQ(sleb_slab_waste(8, 0), 4096 - 504 * 8 - 64);
	/* 64 objects of 64 bytes fill a page, the map is in struct slab */
	ASSERT_EQ(sleb_slab_objects(64, 0), 64);
	ASSERT_EQ(sleb_slab_waste(64, 0), 0);
	/* 65 objects of 63 bytes would need 16 bytes more: 64 in struct */
	ASSERT_EQ(sleb_slab_objects(63, 0), 64);
	ASSERT_EQ(sleb_slab_objects(32, 0), 127);
	ASSERT_EQ(sleb_slab_objects(4096, 0), 1);
	ASSERT_EQ(sleb_slab_objects(4097, 0), 0);
	ASSERT_EQ(sleb_slab_objects(3000, 0), 1);
	ASSERT_EQ(sleb_slab_objects(3000, 3), 10);
	ASSERT_EQ(sleb_slab_objects(16384, 2), 1);
	ASSERT_EQ(sleb_slab_objects(16384, 3), 2);
	ASSERT(sleb_map_in_struct(BITS_PER_LONG));
	ASSERT(!sleb_map_in_struct(BITS_PER_LONG + 1));
	ASSERT_EQ(sleb_map_words(BITS_PER_LONG), 1);
	ASSERT_EQ(sleb_map_words(BITS_PER_LONG + 1), 2);
	return true;
}

/* --- Bitmaps ------------------------------------------------------------------- */

static bool test_map_init(void)
{
	unsigned long map[10];
	unsigned int n;

	for (n = 1; n <= 8 * BITS_PER_LONG; n++) {
		memset(map, 0xff, sizeof(map));
		map[BITS_TO_LONGS(n)] = 0;
		sleb_map_init(map, n);
		ASSERT_EQ(sleb_map_free_count(map, n), n);
		ASSERT(sleb_map_all_free(map, n));
		ASSERT(!sleb_map_none_free(map, n));
		ASSERTF(!(n % BITS_PER_LONG) ||
			!(map[BITS_TO_LONGS(n) - 1] & ~BITMAP_LAST_WORD_MASK(n)),
			"objects %u", n);
		ASSERT_EQ(map[BITS_TO_LONGS(n)], 0);
	}
	return true;
}

static bool check_take_all(unsigned int size, unsigned int order)
{
	struct tslab t;
	unsigned int nr, i;
	void **objs;

	if (!tslab_init(&t, size, order))
		return true;
	objs = tslab_take_all(&t, &nr);
	ASSERTF(nr == t.objects, "size %u order %u: took %u of %u", size, order, nr, t.objects);
	for (i = 0; i < nr; i++) {
		char *p = objs[i];

		/* in range, aligned to the stride, ascending so unique */
		ASSERTF(p >= t.mem && p + size <= t.mem + (unsigned long)t.objects * size,
			"size %u order %u obj %u", size, order, i);
		ASSERTF((p - t.mem) % size == 0, "size %u order %u obj %u", size, order, i);
		ASSERT(p == tslab_obj(&t, i));
	}
	ASSERT(sleb_map_none_free(t.map, t.objects));
	ASSERT(!sleb_map_all_free(t.map, t.objects));
	ASSERT_EQ(sleb_map_free_count(t.map, t.objects), 0);
	ASSERT(tslab_tail_clear(&t));
	ASSERT_EQ(sleb_map_take(t.map, t.objects, t.mem, size, objs, t.objects), 0);
	free(objs);
	tslab_destroy(&t);
	return true;
}

static bool test_take_all(void)
{
	return walk_layouts(check_take_all);
}

static bool check_put_all(unsigned int size, unsigned int order, int how)
{
	enum sleb_put_result res;
	struct tslab t;
	unsigned int nr, i;
	void **objs;

	if (!tslab_init(&t, size, order))
		return true;
	objs = tslab_take_all(&t, &nr);
	if (how == 1) {			/* descending */
		for (i = 0; i < nr / 2; i++) {
			void *x = objs[i];

			objs[i] = objs[nr - 1 - i];
			objs[nr - 1 - i] = x;
		}
	} else if (how == 2) {
		shuffle(objs, nr);
	}
	ASSERT_EQ(tslab_put(&t, objs, nr, &res), nr);
	ASSERT_EQ(res, SLEB_PUT_OK);
	ASSERT(sleb_map_all_free(t.map, t.objects));
	ASSERT_EQ(sleb_map_free_count(t.map, t.objects), t.objects);
	ASSERT(tslab_tail_clear(&t));
	free(objs);
	tslab_destroy(&t);
	return true;
}

static bool check_put_ascending(unsigned int size, unsigned int order)
{
	return check_put_all(size, order, 0);
}

static bool check_put_descending(unsigned int size, unsigned int order)
{
	return check_put_all(size, order, 1);
}

static bool check_put_random(unsigned int size, unsigned int order)
{
	return check_put_all(size, order, 2);
}

static bool test_put_all_ascending(void)
{
	return walk_layouts(check_put_ascending);
}

static bool test_put_all_descending(void)
{
	return walk_layouts(check_put_descending);
}

static bool test_put_all_random(void)
{
	return walk_layouts(check_put_random);
}

/* Runs that mix increments, decrements and jumps, checked bit by bit. */
static bool test_put_mixed_runs(void)
{
	static const unsigned int sizes[] = { 8, 24, 64, 72, 520 };
	unsigned int s, round;

	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		for (round = 0; round < 200; round++) {
			enum sleb_put_result res;
			struct tslab t;
			unsigned int nr, i, k = 0, idx;
			void **objs, **run;
			bool *want;

			tslab_init(&t, sizes[s], round % 4);
			objs = tslab_take_all(&t, &nr);
			run = calloc(nr, sizeof(void *));
			want = calloc(nr, sizeof(bool));
			idx = rng() % nr;
			/* a walk that steps +1, -1 or jumps, each object once */
			for (i = 0; i < nr; i++) {
				unsigned int step = rng() % 4;

				if (step == 0 && idx + 1 < nr && !want[idx + 1])
					idx++;
				else if (step == 1 && idx > 0 && !want[idx - 1])
					idx--;
				else
					idx = rng() % nr;
				if (want[idx])
					continue;
				want[idx] = true;
				run[k++] = objs[idx];
			}
			ASSERT_EQ(tslab_put(&t, run, k, &res), k);
			ASSERT_EQ(res, SLEB_PUT_OK);
			for (i = 0; i < nr; i++)
				ASSERTF(test_bit(t.map, i) == want[i], "size %u bit %u",
					sizes[s], i);
			ASSERT_EQ(sleb_map_free_count(t.map, t.objects), k);
			ASSERT(tslab_tail_clear(&t));
			free(want);
			free(run);
			free(objs);
			tslab_destroy(&t);
		}
	}
	return true;
}

static bool check_double_free(unsigned int size, unsigned int order)
{
	enum sleb_put_result res;
	struct tslab t;
	unsigned int nr, k, i;
	void **objs, **run;

	if (!tslab_init(&t, size, order))
		return true;
	objs = tslab_take_all(&t, &nr);
	run = calloc(nr + 1, sizeof(void *));
	/* k objects in use, then object d that is free already, then e */
	for (k = 0; k < nr; k += 1 + nr / 16) {
		unsigned int d = rng() % nr, e = (d + 1 + k) % nr, n = 0;

		sleb_map_take(t.map, t.objects, t.mem, size, run, nr);	/* all in use */
		ASSERT_EQ(tslab_put(&t, &objs[d], 1, &res), 1);
		ASSERT_EQ(res, SLEB_PUT_OK);
		for (i = 0; i < k; i++)
			run[n++] = objs[(d + 1 + i) % nr];
		run[n++] = objs[d];
		if (k + 1 < nr)
			run[n++] = objs[e];
		ASSERT_EQ(tslab_put(&t, run, n, &res), k + 1);
		ASSERTF(res == SLEB_PUT_DOUBLE_FREE, "size %u order %u k %u res %d",
			size, order, k, res);
		ASSERT(run[k] == objs[d]);	/* the consumed count points at it */
		ASSERT(test_bit(t.map, d));	/* still free, nothing else changed */
		ASSERT_EQ(sleb_map_free_count(t.map, t.objects), 1 + k);
		ASSERT_EQ(tslab_count_free(&t), 1 + k);
		if (k + 1 < nr)
			ASSERT(!test_bit(t.map, e));	/* not reached */
		ASSERT(tslab_tail_clear(&t));
	}
	free(run);
	free(objs);
	tslab_destroy(&t);
	return true;
}

static bool test_put_double_free(void)
{
	return walk_layouts(check_double_free);
}

static bool check_misaligned(unsigned int size, unsigned int order)
{
	enum sleb_put_result res;
	unsigned int nr, k, delta;
	struct tslab t;
	void **objs, *run[4];

	if (!tslab_init(&t, size, order))
		return true;
	objs = tslab_take_all(&t, &nr);
	for (delta = 1; delta < size; delta += 1 + size / 5) {
		/* k good objects, then one inside object m, then object m + 1 */
		unsigned int m = rng() % nr, next = m + 1 < nr ? m + 1 : nr;

		for (k = 0; k < 3; k++) {
			unsigned int before = sleb_map_free_count(t.map, t.objects);
			unsigned int i, n = 0;

			for (i = 0; i < nr && n < k; i++)
				if (i != m && i != next)
					run[n++] = objs[i];
			if (n < k)
				break;
			run[n++] = (char *)objs[m] + delta;
			if (next < nr)
				run[n++] = objs[next];
			ASSERT_EQ(tslab_put(&t, run, n, &res), k + 1);
			ASSERTF(res == SLEB_PUT_MISALIGNED, "size %u delta %u res %d",
				size, delta, res);
			ASSERT(!test_bit(t.map, m));	/* left unchanged */
			if (next < nr)
				ASSERT(!test_bit(t.map, next));	/* not reached */
			ASSERT_EQ(sleb_map_free_count(t.map, t.objects), before + k);
			/* take the k back */
			ASSERT_EQ(sleb_map_take(t.map, t.objects, t.mem, size, run, 4), k);
		}
	}
	free(objs);
	tslab_destroy(&t);
	return true;
}

static bool test_put_misaligned(void)
{
	return walk_layouts(check_misaligned);
}

static bool check_outside(unsigned int size, unsigned int order)
{
	enum sleb_put_result res;
	struct tslab a, b;
	unsigned int nr, nrb, k;
	void **objs, **objsb, *run[8];
	char stack_obj[16];

	if (!tslab_init(&a, size, order))
		return true;
	tslab_init(&b, size, order);
	objs = tslab_take_all(&a, &nr);
	objsb = tslab_take_all(&b, &nrb);
	for (k = 0; k < 3 && k < nr; k++) {
		void *outside[] = {
			objsb[0], objsb[nrb - 1], stack_obj,
			a.mem - size, a.mem - 1,
			/* the first byte after the objects */
			a.mem + (unsigned long)a.objects * size,
			a.mem + slab_bytes(order),
		};
		unsigned int o, i;

		for (o = 0; o < ARRAY_SIZE(outside); o++) {
			unsigned int n = 0;

			for (i = 0; i < k; i++)
				run[n++] = objs[i];
			run[n++] = outside[o];
			if (k < nr - 1)
				run[n++] = objs[nr - 1];
			ASSERT_EQ(tslab_put(&a, run, n, &res), k);
			ASSERT_EQ(res, SLEB_PUT_OK);
			ASSERT_EQ(sleb_map_free_count(a.map, a.objects), k);
			ASSERT(k == nr - 1 || !test_bit(a.map, nr - 1));
			ASSERT_EQ(sleb_map_free_count(b.map, b.objects), 0);
			ASSERT_EQ(sleb_map_take(a.map, a.objects, a.mem, size, run, 8), k);
		}
	}
	free(objsb);
	free(objs);
	tslab_destroy(&b);
	tslab_destroy(&a);
	return true;
}

static bool test_put_outside_stops(void)
{
	return walk_layouts(check_outside);
}

/*
 * Adjacent runs of two slabs back to back, as a drained batch looks when
 * a refill took from two slabs: the caller puts one run per call.
 */
static bool test_put_two_slab_runs(void)
{
	static const unsigned int sizes[] = { 8, 64, 96, 192, 3000 };
	unsigned int s;

	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		enum sleb_put_result res;
		struct tslab a, b;
		unsigned int na, nb, i, n = 0, done;
		void **oa, **ob, **run;

		tslab_init(&a, sizes[s], 1);
		tslab_init(&b, sizes[s], 1);
		oa = tslab_take_all(&a, &na);
		ob = tslab_take_all(&b, &nb);
		run = calloc(na + nb, sizeof(void *));
		for (i = 0; i < na; i++)
			run[n++] = oa[na - 1 - i];	/* descending */
		for (i = 0; i < nb; i++)
			run[n++] = ob[i];		/* ascending */
		done = tslab_put(&a, run, n, &res);
		ASSERT_EQ(done, na);
		ASSERT_EQ(res, SLEB_PUT_OK);
		ASSERT_EQ(tslab_put(&b, run + done, n - done, &res), nb);
		ASSERT_EQ(res, SLEB_PUT_OK);
		ASSERT(sleb_map_all_free(a.map, a.objects));
		ASSERT(sleb_map_all_free(b.map, b.objects));
		free(run);
		free(ob);
		free(oa);
		tslab_destroy(&b);
		tslab_destroy(&a);
	}
	return true;
}

static bool check_take_partial(unsigned int size, unsigned int order)
{
	struct tslab t;
	unsigned int max, got, total = 0;
	void **objs;

	if (!tslab_init(&t, size, order))
		return true;
	objs = calloc(t.objects + 1, sizeof(void *));
	/* takes of 1, 2, 3, ... objects: each returns the lowest free ones */
	for (max = 1; total < t.objects; max++) {
		unsigned int i, want = t.objects - total < max ? t.objects - total : max;

		objs[want] = (void *)0x1;	/* must stay untouched */
		got = sleb_map_take(t.map, t.objects, t.mem, size, objs, max);
		ASSERT_EQ(got, want);
		ASSERT(objs[want] == (void *)0x1);
		for (i = 0; i < got; i++)
			ASSERT(objs[i] == tslab_obj(&t, total + i));
		total += got;
		ASSERT_EQ(sleb_map_free_count(t.map, t.objects), t.objects - total);
		ASSERT_EQ(tslab_count_free(&t), t.objects - total);
		ASSERT(tslab_tail_clear(&t));
	}
	ASSERT(sleb_map_none_free(t.map, t.objects));
	ASSERT_EQ(sleb_map_take(t.map, t.objects, t.mem, size, objs, 5), 0);
	ASSERT_EQ(sleb_map_take(t.map, t.objects, t.mem, size, objs, 0), 0);
	free(objs);
	tslab_destroy(&t);
	return true;
}

static bool test_take_partial(void)
{
	return walk_layouts(check_take_partial);
}

/* A take with max 0 or from a sparse map takes exactly the free objects. */
static bool test_take_sparse(void)
{
	static const unsigned int sizes[] = { 8, 24, 40, 64, 72 };
	unsigned int s, round;

	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		for (round = 0; round < 100; round++) {
			enum sleb_put_result res;
			struct tslab t;
			unsigned int nr, i, k = 0, got, j = 0;
			void **objs, **run;

			tslab_init(&t, sizes[s], round % 4);
			objs = tslab_take_all(&t, &nr);
			run = calloc(nr + 1, sizeof(void *));
			for (i = 0; i < nr; i++)
				if (rng() % 3 == 0)
					run[k++] = objs[i];
			shuffle(run, k);
			ASSERT_EQ(tslab_put(&t, run, k, &res), k);
			ASSERT_EQ(sleb_map_take(t.map, t.objects, t.mem, t.size, run, 0), 0);
			ASSERT_EQ(sleb_map_free_count(t.map, t.objects), k);
			got = sleb_map_take(t.map, t.objects, t.mem, t.size, run, nr + 1);
			ASSERT_EQ(got, k);
			/* ascending: compare with the sorted set */
			for (i = 1; i < got; i++)
				ASSERT((char *)run[i - 1] < (char *)run[i]);
			for (i = 0; i < got; i++) {
				j = ((char *)run[i] - t.mem) / t.size;
				ASSERT(run[i] == tslab_obj(&t, j));
			}
			ASSERT(sleb_map_none_free(t.map, t.objects));
			free(run);
			free(objs);
			tslab_destroy(&t);
		}
	}
	return true;
}

/* Many random take/put cycles never set a bit at or beyond @objects. */
static bool check_bits_beyond_objects(unsigned int size, unsigned int order)
{
	enum sleb_put_result res;
	struct tslab t;
	unsigned int nr, round;
	void **objs;

	if (!tslab_init(&t, size, order))
		return true;
	objs = calloc(t.objects + 1, sizeof(void *));
	for (round = 0; round < 20; round++) {
		unsigned int max = rng() % (t.objects + 2);

		nr = sleb_map_take(t.map, t.objects, t.mem, size, objs, max);
		ASSERT(nr <= max);
		ASSERT(tslab_tail_clear(&t));
		shuffle(objs, nr);
		ASSERT_EQ(tslab_put(&t, objs, nr / 2, &res), nr / 2);
		ASSERT(tslab_tail_clear(&t));
	}
	/* everything still in use goes back, in descending order */
	nr = 0;
	for (round = t.objects; round-- > 0;)
		if (!test_bit(t.map, round))
			objs[nr++] = tslab_obj(&t, round);
	ASSERT_EQ(tslab_put(&t, objs, nr, &res), nr);
	ASSERT_EQ(res, SLEB_PUT_OK);
	ASSERT(sleb_map_all_free(t.map, t.objects));
	ASSERT_EQ(sleb_map_free_count(t.map, t.objects), t.objects);
	ASSERT(tslab_tail_clear(&t));
	free(objs);
	tslab_destroy(&t);
	return true;
}

static bool test_bits_beyond_objects(void)
{
	return walk_layouts(check_bits_beyond_objects);
}

/* The in-slab bitmap survives objects being written all over. */
static bool check_map_not_in_objects(unsigned int size, unsigned int order)
{
	struct tslab t;
	unsigned int nr, i;
	void **objs;

	if (!tslab_init(&t, size, order))
		return true;
	objs = tslab_take_all(&t, &nr);
	for (i = 0; i < nr; i++)
		memset(objs[i], 0xff, size);
	ASSERT(sleb_map_none_free(t.map, t.objects));
	ASSERT(tslab_tail_clear(&t));
	free(objs);
	tslab_destroy(&t);
	return true;
}

static bool test_map_not_in_objects(void)
{
	return walk_layouts(check_map_not_in_objects);
}

/* --- Arrays -------------------------------------------------------------------- */

static struct sleb_array *array_new(unsigned int size)
{
	struct sleb_array *a = calloc(1, sizeof(*a) + size * sizeof(void *));

	if (!a)
		abort();
	a->size = size;
	return a;
}

#define P(x) ((void *)(unsigned long)(0x1000 + (x) * 8))

static bool test_array_add(void)
{
	struct sleb_array *a = array_new(5);
	void *in[8], *out[8];
	unsigned int i;

	for (i = 0; i < 8; i++)
		in[i] = P(i);
	ASSERT_EQ(sleb_array_add(a, in, 0), 0);
	ASSERT_EQ(sleb_array_add(a, in, 3), 3);
	ASSERT_EQ(a->count, 3);
	ASSERT_EQ(sleb_array_add(a, in + 3, 5), 2);	/* limited by room */
	ASSERT_EQ(a->count, 5);
	for (i = 0; i < 5; i++)
		ASSERT(a->objects[i] == P(i));	/* oldest first */
	ASSERT_EQ(sleb_array_add(a, in, 1), 0);
	ASSERT_EQ(a->count, 5);
	ASSERT_EQ(sleb_array_take_newest(a, out, 8), 5);
	free(a);

	/* the boot queue holds nothing */
	a = array_new(0);
	ASSERT_EQ(sleb_array_add(a, in, 1), 0);
	ASSERT_EQ(a->count, 0);
	ASSERT_EQ(sleb_array_take_newest(a, out, 1), 0);
	free(a);
	return true;
}

static bool test_array_take_newest(void)
{
	struct sleb_array *a = array_new(6);
	void *in[6], *out[8];
	unsigned int i;

	for (i = 0; i < 6; i++)
		in[i] = P(i);
	sleb_array_add(a, in, 6);
	memset(out, 0, sizeof(out));
	ASSERT_EQ(sleb_array_take_newest(a, out, 2), 2);
	ASSERT(out[0] == P(4) && out[1] == P(5));	/* order kept */
	ASSERT(!out[2]);
	ASSERT_EQ(a->count, 4);
	ASSERT_EQ(sleb_array_take_newest(a, out, 0), 0);
	ASSERT_EQ(a->count, 4);
	ASSERT_EQ(sleb_array_take_newest(a, out, 10), 4);
	for (i = 0; i < 4; i++)
		ASSERT(out[i] == P(i));
	ASSERT_EQ(a->count, 0);
	ASSERT_EQ(sleb_array_take_newest(a, out, 10), 0);
	/* room again after taking */
	ASSERT_EQ(sleb_array_add(a, in, 6), 6);
	free(a);
	return true;
}

static bool test_array_drop_oldest(void)
{
	struct sleb_array *a = array_new(7);
	void *in[7];
	unsigned int i;

	for (i = 0; i < 7; i++)
		in[i] = P(i);
	sleb_array_add(a, in, 7);
	sleb_array_drop_oldest(a, 0);
	ASSERT_EQ(a->count, 7);
	sleb_array_drop_oldest(a, 3);
	ASSERT_EQ(a->count, 4);
	for (i = 0; i < 4; i++)
		ASSERT(a->objects[i] == P(i + 3));	/* newer ones moved down */
	ASSERT_EQ(sleb_array_add(a, in, 7), 3);
	ASSERT(a->objects[4] == P(0) && a->objects[6] == P(2));
	sleb_array_drop_oldest(a, 7);
	ASSERT_EQ(a->count, 0);
	free(a);
	return true;
}

/* A queue used like the kernel's: push, drain oldest batch when full, pop. */
static bool test_array_queue_cycle(void)
{
	unsigned int size = 10, batch = sleb_default_batch(10), i, next = 0, oldest = 0;
	struct sleb_array *q = array_new(size);
	void *x, *out[10];

	for (i = 0; i < 1000; i++) {
		if (q->count >= q->size) {
			ASSERT(q->objects[0] == P(oldest));
			sleb_array_drop_oldest(q, batch);
			oldest += batch;
		}
		x = P(next++);
		ASSERT_EQ(sleb_array_add(q, &x, 1), 1);
		ASSERT(q->count <= q->size);
	}
	ASSERT_EQ(sleb_array_take_newest(q, out, 1), 1);
	ASSERT(out[0] == P(next - 1));
	ASSERT_EQ(q->count + 1 + oldest, next);
	free(q);
	return true;
}

/* --- Defaults ------------------------------------------------------------------ */

static bool test_default_queue_size(void)
{
	unsigned int size;

	ASSERT_EQ(sleb_default_queue_size(8), 120);
	ASSERT_EQ(sleb_default_queue_size(256), 120);
	ASSERT_EQ(sleb_default_queue_size(257), 54);
	ASSERT_EQ(sleb_default_queue_size(1024), 54);
	ASSERT_EQ(sleb_default_queue_size(1025), 24);
	ASSERT_EQ(sleb_default_queue_size(4096), 24);
	ASSERT_EQ(sleb_default_queue_size(4097), 8);
	ASSERT_EQ(sleb_default_queue_size(16384), 8);
	for (size = 8; size <= 65536; size++) {
		unsigned int want = size > 4096 ? 8 : size > 1024 ? 24 : size > 256 ? 54 : 120;

		ASSERT_EQ(sleb_default_queue_size(size), want);
	}
	return true;
}

static bool test_default_batch(void)
{
	unsigned int q;

	ASSERT_EQ(sleb_default_batch(120), 60);
	ASSERT_EQ(sleb_default_batch(54), 27);
	ASSERT_EQ(sleb_default_batch(24), 12);
	ASSERT_EQ(sleb_default_batch(8), 4);
	ASSERT_EQ(sleb_default_batch(1), 1);
	ASSERT_EQ(sleb_default_batch(0), 0);
	for (q = 0; q < 10000; q++) {
		ASSERT_EQ(sleb_default_batch(q), (q + 1) / 2);
		ASSERT(sleb_default_batch(q) <= q);
	}
	return true;
}

/* --- main ---------------------------------------------------------------------- */

struct test {
	const char *name;
	bool (*fn)(void);
};

#define TEST(x) { #x, test_##x }

static const struct test tests[] = {
	TEST(shim_reciprocal),
	TEST(shim_bitmap),
	TEST(layout_all_sizes),
	TEST(layout_odd_sizes),
	TEST(layout_known_values),
	TEST(map_init),
	TEST(take_all),
	TEST(put_all_ascending),
	TEST(put_all_descending),
	TEST(put_all_random),
	TEST(put_mixed_runs),
	TEST(put_double_free),
	TEST(put_misaligned),
	TEST(put_outside_stops),
	TEST(put_two_slab_runs),
	TEST(take_partial),
	TEST(take_sparse),
	TEST(bits_beyond_objects),
	TEST(map_not_in_objects),
	TEST(array_add),
	TEST(array_take_newest),
	TEST(array_drop_oldest),
	TEST(array_queue_cycle),
	TEST(default_queue_size),
	TEST(default_batch),
};

/* False when the test returns false or an assertion in it fails. */
static bool run_test(const struct test *t)
{
	if (setjmp(test_failed))
		return false;
	return t->fn();
}

int main(int argc, char **argv)
{
	unsigned int i, passed = 0, failed = 0;
	const char *only = argc > 1 ? argv[1] : NULL;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		bool ok;

		if (only && !strstr(tests[i].name, only))
			continue;
		ok = run_test(&tests[i]);
		printf("%sok %u - sleb_map: %s\n", ok ? "" : "not ", i + 1, tests[i].name);
		if (ok)
			passed++;
		else
			failed++;
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}

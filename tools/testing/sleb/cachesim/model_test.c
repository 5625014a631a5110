// SPDX-License-Identifier: GPL-2.0
/*
 * model_test: known answers of cache_model.h, the model sleb_cache.so runs.
 * One "ok - cache model: ..." or "not ok - ..." line per check.
 */
#include <stdio.h>

#include "cache_model.h"

#define L1_SIZE	32768
#define L2_SIZE	1048576
#define LINE	64

static int failed;

static void check(int cond, const char *what, long got, long want)
{
	if (cond) {
		printf("ok - cache model: %s\n", what);
		return;
	}
	printf("not ok - cache model: %s\n", what);
	if (want >= 0)
		printf("# got %ld, want %ld\n", got, want);
	failed = 1;
}

struct tally {
	long accesses, l1, l2;
};

/* @passes sequential passes of one access per line over @bytes at @base. */
static struct tally stride(struct cm_system *s, unsigned int cpu, unsigned long long base,
			   unsigned long long bytes, unsigned int passes, int store)
{
	struct tally t = { 0 };
	unsigned long long a;
	unsigned int p;

	for (p = 0; p < passes; p++) {
		for (a = 0; a < bytes; a += LINE) {
			enum cm_result r = cm_access_line(s, cpu, base + a, store);

			t.accesses++;
			t.l1 += r != CM_L1_HIT;
			t.l2 += r == CM_MISS;
		}
	}
	return t;
}

static int new_system(struct cm_system *s, unsigned int cpus)
{
	struct cm_geometry l1 = { L1_SIZE, 8, LINE }, l2 = { L2_SIZE, 16, LINE };

	return cm_system_init(s, cpus, &l1, &l2);
}

int main(void)
{
	struct cm_geometry bad = { 3 * 32768, 8, 64 }, odd_line = { 32768, 8, 48 };
	struct cm_system s;
	struct tally t;
	unsigned long long lines, set_stride = (unsigned long long)L1_SIZE / 8, a;
	unsigned int i;

	check(!cm_geometry_ok(&bad), "a geometry with 192 sets is refused", -1, -1);
	check(!cm_geometry_ok(&odd_line), "a 48-byte line is refused", -1, -1);

	if (new_system(&s, 2)) {
		printf("not ok - cache model: two CPUs' caches are set up\n");
		return 1;
	}

	/* Twice L1: every access misses L1, and hits L2 after the first pass. */
	lines = 2 * L1_SIZE / LINE;
	stride(&s, 0, 0x100000, 2 * L1_SIZE, 1, 0);
	t = stride(&s, 0, 0x100000, 2 * L1_SIZE, 4, 0);
	check(t.l1 == 4 * (long)lines, "a stride through twice L1 misses L1 once per line per pass",
	      t.l1, 4 * lines);
	check(t.l2 == 0, "twice L1 stays in L2 after the first pass", t.l2, 0);

	/* Half of L1: no miss after the first pass. */
	t = stride(&s, 0, 0x4000000, L1_SIZE / 2, 1, 0);
	check(t.l1 == L1_SIZE / 2 / LINE, "the first pass over half of L1 misses once per line",
	      t.l1, L1_SIZE / 2 / LINE);
	t = stride(&s, 0, 0x4000000, L1_SIZE / 2, 8, 0);
	check(t.l1 == 0, "half of L1 hits after the first pass", t.l1, 0);

	/* Four times L2: every access misses both levels. */
	stride(&s, 1, 0x10000000, 4 * L2_SIZE, 1, 0);
	t = stride(&s, 1, 0x10000000, 4 * L2_SIZE, 2, 0);
	check(t.l2 == t.accesses, "a stride through four times L2 misses L2 on every access",
	      t.l2, t.accesses);

	/* LRU within a set: 8 lines of one set fit its 8 ways, 9 never hit. */
	for (i = 0; i < 8; i++)
		cm_access_line(&s, 0, 0x20000000 + i * set_stride, 0);
	t.l1 = 0;
	for (i = 0; i < 80; i++)
		t.l1 += cm_access_line(&s, 0, 0x20000000 + (i % 8) * set_stride, 0) != CM_L1_HIT;
	check(t.l1 == 0, "eight lines of one set hit in 8 ways", t.l1, 0);
	t.l1 = 0;
	for (i = 0; i < 90; i++)
		t.l1 += cm_access_line(&s, 0, 0x30000000 + (i % 9) * set_stride, 0) != CM_L1_HIT;
	check(t.l1 == 90, "nine lines of one set cycled always miss under LRU", t.l1, 90);

	/* A store on CPU 1 takes the line from CPU 0's caches. */
	a = 0x40000000;
	cm_access_line(&s, 0, a, 0);
	check(cm_access_line(&s, 0, a, 0) == CM_L1_HIT, "a line read twice hits the second time",
	      -1, -1);
	cm_access_line(&s, 1, a + 8, 1);
	check(cm_access_line(&s, 0, a, 0) == CM_MISS,
	      "a store on another CPU makes the next read miss L1 and L2", -1, -1);
	cm_access_line(&s, 1, a, 0);
	check(cm_access_line(&s, 1, a, 0) == CM_L1_HIT, "a load does not take the line from others",
	      -1, -1);

	cm_system_free(&s);
	printf("# cache model: L1D %d bytes 8-way, L2 %d bytes 16-way, %d-byte lines\n",
	       L1_SIZE, L2_SIZE, LINE);
	return failed;
}

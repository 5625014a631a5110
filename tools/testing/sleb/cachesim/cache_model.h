/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A set-associative, LRU, write-allocate cache of physical
 * addresses, the model behind sleb_cache.so.  No prefetcher, no TLB, no
 * page walk, no instruction fetch: a line enters the cache only when a load
 * or store touches it.
 *
 * Each vCPU has a private L1D and a private L2 behind it; a store of one
 * vCPU invalidates the line in the other vCPUs' caches (a write-invalidate
 * protocol without the states), so that a line written on one CPU misses
 * when another CPU touches it next.
 */
#ifndef SLEB_CACHE_MODEL_H
#define SLEB_CACHE_MODEL_H

#include <stdbool.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* One level: sets x ways lines, each with its line address and last use. */
struct cm_level {
	unsigned int sets;
	unsigned int ways;
	unsigned int line_shift;
	unsigned long long *tags;		/* line address + 1; 0: the way is empty */
	unsigned long long *stamps;	/* last use, for LRU */
	unsigned long long clock;
};

struct cm_geometry {
	unsigned long long size;
	unsigned int ways;
	unsigned int line;
};

static inline bool cm_is_pow2(unsigned long long x)
{
	return x && !(x & (x - 1));
}

static inline unsigned int cm_log2(unsigned long long x)
{
	unsigned int r = 0;

	while (x > 1) {
		x >>= 1;
		r++;
	}
	return r;
}

/* A geometry is usable when lines and sets are powers of two. */
static inline bool cm_geometry_ok(const struct cm_geometry *g)
{
	if (!cm_is_pow2(g->line) || g->line < 8 || !g->ways || g->ways > 64)
		return false;
	if (g->size % ((unsigned long long)g->line * g->ways))
		return false;
	return cm_is_pow2(g->size / ((unsigned long long)g->line * g->ways));
}

static inline int cm_level_init(struct cm_level *c, const struct cm_geometry *g)
{
	size_t lines;

	if (!cm_geometry_ok(g))
		return -1;
	c->ways = g->ways;
	c->sets = g->size / ((unsigned long long)g->line * g->ways);
	c->line_shift = cm_log2(g->line);
	c->clock = 0;
	lines = (size_t)c->sets * c->ways;
	c->tags = calloc(lines, sizeof(*c->tags));
	c->stamps = calloc(lines, sizeof(*c->stamps));
	if (!c->tags || !c->stamps) {
		free(c->tags);
		free(c->stamps);
		return -1;
	}
	return 0;
}

static inline void cm_level_free(struct cm_level *c)
{
	free(c->tags);
	free(c->stamps);
	c->tags = NULL;
	c->stamps = NULL;
}

/*
 * cm_level_access - look up the line of @line_addr (address >> line_shift)
 * and make it the most recently used of its set, filling it on a miss.
 * Returns true on a hit.
 */
static inline bool cm_level_access(struct cm_level *c, unsigned long long line_addr)
{
	unsigned int set = line_addr & (c->sets - 1), w, victim = 0;
	unsigned long long *tags = c->tags + (size_t)set * c->ways;
	unsigned long long *stamps = c->stamps + (size_t)set * c->ways;
	unsigned long long tag = line_addr + 1, oldest = ULLONG_MAX;

	c->clock++;
	for (w = 0; w < c->ways; w++) {
		if (tags[w] == tag) {
			stamps[w] = c->clock;
			return true;
		}
		if (stamps[w] < oldest) {
			oldest = stamps[w];
			victim = w;
		}
	}
	tags[victim] = tag;
	stamps[victim] = c->clock;
	return false;
}

/* Drop the line of @line_addr if the level holds it. */
static inline void cm_level_invalidate(struct cm_level *c, unsigned long long line_addr)
{
	unsigned int set = line_addr & (c->sets - 1), w;
	unsigned long long *tags = c->tags + (size_t)set * c->ways;
	unsigned long long *stamps = c->stamps + (size_t)set * c->ways;

	for (w = 0; w < c->ways; w++) {
		if (tags[w] == line_addr + 1) {
			tags[w] = 0;
			stamps[w] = 0;
			return;
		}
	}
}

/* The caches of one vCPU. */
struct cm_cpu {
	struct cm_level l1;
	struct cm_level l2;
};

/* What one access did. */
enum cm_result {
	CM_L1_HIT,
	CM_L2_HIT,	/* L1 miss, L2 hit */
	CM_MISS,	/* L1 and L2 miss */
};

struct cm_system {
	unsigned int nr_cpus;
	unsigned int line_shift;
	struct cm_cpu *cpus;
};

static inline void cm_system_free(struct cm_system *sys)
{
	unsigned int i;

	for (i = 0; i < sys->nr_cpus; i++) {
		cm_level_free(&sys->cpus[i].l1);
		cm_level_free(&sys->cpus[i].l2);
	}
	free(sys->cpus);
	sys->cpus = NULL;
	sys->nr_cpus = 0;
}

/* Both levels must have the same line size. */
static inline int cm_system_init(struct cm_system *sys, unsigned int nr_cpus,
				 const struct cm_geometry *l1, const struct cm_geometry *l2)
{
	unsigned int i;

	if (!nr_cpus || l1->line != l2->line)
		return -1;
	sys->cpus = calloc(nr_cpus, sizeof(*sys->cpus));
	if (!sys->cpus)
		return -1;
	sys->nr_cpus = nr_cpus;
	sys->line_shift = cm_log2(l1->line);
	for (i = 0; i < nr_cpus; i++) {
		if (cm_level_init(&sys->cpus[i].l1, l1) ||
		    cm_level_init(&sys->cpus[i].l2, l2)) {
			cm_system_free(sys);
			return -1;
		}
	}
	return 0;
}

/*
 * cm_access_line - one access of @cpu to the line holding @paddr.  A store
 * invalidates the line in every other CPU's caches.
 */
static inline enum cm_result cm_access_line(struct cm_system *sys, unsigned int cpu,
					    unsigned long long paddr, bool store)
{
	unsigned long long line = paddr >> sys->line_shift;
	struct cm_cpu *c = &sys->cpus[cpu];
	enum cm_result r = CM_L1_HIT;
	unsigned int i;

	if (!cm_level_access(&c->l1, line))
		r = cm_level_access(&c->l2, line) ? CM_L2_HIT : CM_MISS;
	if (store && sys->nr_cpus > 1) {
		for (i = 0; i < sys->nr_cpus; i++) {
			if (i == cpu)
				continue;
			cm_level_invalidate(&sys->cpus[i].l1, line);
			cm_level_invalidate(&sys->cpus[i].l2, line);
		}
	}
	return r;
}

#endif /* SLEB_CACHE_MODEL_H */

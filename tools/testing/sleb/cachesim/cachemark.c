// SPDX-License-Identifier: GPL-2.0
/*
 * sleb_cachemark: the guest side of sleb_cache.so's markers (see
 * sleb_cache.c), for scripts.
 *
 *   sleb_cachemark begin R | end
 *	mark the begin of region R (0..65535) or the end of the open region
 *   sleb_cachemark stride BYTES PASSES R
 *	touch one byte of each 64-byte line of a BYTES buffer once (the
 *	model starts and the buffer is in the cache as far as it fits),
 *	then read one byte per line for PASSES passes inside region R; prints
 *	"SLEB-CACHEMODEL: region=R bytes=BYTES passes=PASSES lines=L"
 *
 * The model's check (scripts/guest/cachemodel.sh) knows the answers: a
 * buffer twice L1's size misses L1 once per line per pass, one half L1's
 * size none after the first touch.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "nopl 0x5e1e000X(%rax)": a no-op that the plugin recognises. */
#define MARK(op)							\
	({								\
		asm volatile(".byte 0x0f, 0x1f, 0x80\n\t"		\
			     ".long 0x5e1e0000 + %c0" :: "i"(op) : "memory"); \
	})

/* Region R begins: its 16 bits, most significant first, then begin. */
static void mark_begin(unsigned int region)
{
	int i;

	for (i = 15; i >= 0; i--) {
		if (region >> i & 1)
			MARK(3);
		else
			MARK(2);
	}
	MARK(0);
}

static void mark_end(void)
{
	MARK(1);
}

/* One load of *p, never merged with another or moved out of a loop. */
static inline unsigned int touch(const unsigned char *p, unsigned int sum)
{
	sum += *p;
	asm volatile("" : "+r"(sum) : : "memory");
	return sum;
}

static unsigned long number(const char *s, const char *what)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (end == s || *end) {
		fprintf(stderr, "sleb_cachemark: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static void bad_usage(void)
{
	fprintf(stderr, "sleb_cachemark: want begin R, end, or stride BYTES PASSES R\n");
	exit(2);
}

/*
 * The bits of a region's number are counted per vCPU: stay on this CPU, so
 * that a migration does not split them.
 */
static void stay_on_this_cpu(void)
{
	cpu_set_t set;
	int cpu = sched_getcpu();

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

int main(int argc, char **argv)
{
	unsigned long bytes, passes, region, p, i;
	unsigned char *buf;
	unsigned int sum = 0;

	stay_on_this_cpu();

	if (argc == 3 && !strcmp(argv[1], "begin")) {
		region = number(argv[2], "region");
		if (region > 65535) {
			fprintf(stderr, "sleb_cachemark: region %lu: 0..65535 only\n", region);
			return 2;
		}
		mark_begin(region);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "end")) {
		mark_end();
		return 0;
	}
	if (argc != 5 || strcmp(argv[1], "stride"))
		bad_usage();
	bytes = number(argv[2], "size");
	passes = number(argv[3], "passes");
	region = number(argv[4], "region");
	if (region > 65535 || bytes < 64 || bytes % 64 || !passes) {
		fprintf(stderr,
			"sleb_cachemark: the size must be a multiple of 64, passes at least 1\n");
		return 2;
	}
	buf = aligned_alloc(64, bytes);
	if (!buf)
		return 1;
	/* The first touch faults the pages in and starts the model. */
	memset(buf, 1, bytes);
	mark_begin(0);
	mark_end();
	for (i = 0; i < bytes; i += 64)
		sum = touch(buf + i, sum);
	mark_begin(region);
	for (p = 0; p < passes; p++)
		for (i = 0; i < bytes; i += 64)
			sum = touch(buf + i, sum);
	mark_end();
	printf("SLEB-CACHEMODEL: region=%lu bytes=%lu passes=%lu lines=%lu sum=%u\n",
	       region, bytes, passes, bytes / 64, sum);
	return 0;
}

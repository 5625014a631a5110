/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for the kernel definitions that mm/sleb_map.h uses.
 *
 * Only the C library is included here, no kernel or tools/include header:
 * the harness compiles the real mm/sleb_map.h against these definitions,
 * so each of them keeps the semantics of its kernel original (6.1):
 *
 *   u8, u32, u64						asm-generic/int-ll64.h
 *   BITS_PER_LONG, BITS_PER_BYTE, BITS_TO_LONGS, PAGE_SIZE	include/linux/bits.h,
 *								asm/page_types.h
 *   BIT							include/vdso/bits.h
 *   __ffs, fls, __test_and_set_bit				asm-generic/bitops/
 *   bitmap_zero/set/weight/full/empty			include/linux/bitmap.h,
 *								lib/bitmap.c
 *   struct reciprocal_value, reciprocal_value(),		include/linux/reciprocal_div.h,
 *   reciprocal_divide()					lib/math/reciprocal_div.c
 *
 * A few are stricter than the kernel where the kernel leaves the result
 * undefined: __ffs(0) aborts instead of returning garbage.
 */
#ifndef SLEB_TEST_SHIM_H
#define SLEB_TEST_SHIM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* asm-generic/int-ll64.h */
typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;

/* --- Sizes ---------------------------------------------------------------- */

#define BITS_PER_BYTE		8
#define BITS_PER_LONG		(__SIZEOF_LONG__ * BITS_PER_BYTE)
#define BIT(nr)			(1UL << (nr))

#ifndef PAGE_SHIFT
#define PAGE_SHIFT		12
#endif
#define PAGE_SIZE		BIT(PAGE_SHIFT)

/* DIV_ROUND_UP(nr, BITS_PER_BYTE * sizeof(long)), spelled out */
#define BITS_TO_LONGS(nr)	\
	(((nr) + BITS_PER_BYTE * sizeof(long) - 1) / (BITS_PER_BYTE * sizeof(long)))

#define BIT_WORD(nr)		((nr) / BITS_PER_LONG)
#define BIT_MASK(nr)		(1UL << ((nr) % BITS_PER_LONG))
#define BITMAP_FIRST_WORD_MASK(start) (~0UL << ((start) & (BITS_PER_LONG - 1)))
#define BITMAP_LAST_WORD_MASK(nbits) (~0UL >> (-(nbits) & (BITS_PER_LONG - 1)))

/* --- Bit operations -------------------------------------------------------- */

static inline void shim_bug(const char *what)
{
	fprintf(stderr, "shim: BUG: %s\n", what);
	abort();
}

/* Index of the lowest set bit; undefined for 0 in the kernel, a BUG here. */
static inline unsigned long __ffs(unsigned long word)
{
	if (!word)
		shim_bug("lowest set bit of 0");
	return __builtin_ctzl(word);
}

/* Position of the highest set bit, counting from 1; 0 for 0. */
static inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

/* Non-atomic: set bit @nr and return its old value. */
static inline bool __test_and_set_bit(unsigned long nr, unsigned long *addr)
{
	unsigned long mask = BIT_MASK(nr);
	unsigned long *p = addr + BIT_WORD(nr);
	unsigned long old = *p;

	*p = old | mask;
	return (old & mask) != 0;
}

/* --- Bitmaps --------------------------------------------------------------- */

/* Clears whole words, as the kernel's memset does: trailing bits too. */
static inline void bitmap_zero(unsigned long *dst, unsigned int nbits)
{
	memset(dst, 0, BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}

/* lib/bitmap.c: __bitmap_set() */
static inline void bitmap_set(unsigned long *map, unsigned int start, unsigned int nbits)
{
	unsigned long *p = map + BIT_WORD(start);
	const unsigned int size = start + nbits;
	int len = nbits;
	int bits_to_set = BITS_PER_LONG - (start % BITS_PER_LONG);
	unsigned long mask_to_set = BITMAP_FIRST_WORD_MASK(start);

	while (len - bits_to_set >= 0) {
		*p |= mask_to_set;
		len -= bits_to_set;
		bits_to_set = BITS_PER_LONG;
		mask_to_set = ~0UL;
		p++;
	}
	if (len) {
		mask_to_set &= BITMAP_LAST_WORD_MASK(size);
		*p |= mask_to_set;
	}
}

/* lib/bitmap.c: __bitmap_weight(); bits at and beyond @nbits are ignored. */
static inline unsigned int bitmap_weight(const unsigned long *src, unsigned int nbits)
{
	unsigned int k, lim = nbits / BITS_PER_LONG, w = 0;

	for (k = 0; k < lim; k++)
		w += __builtin_popcountl(src[k]);
	if (nbits % BITS_PER_LONG)
		w += __builtin_popcountl(src[k] & BITMAP_LAST_WORD_MASK(nbits));
	return w;
}

/* find_first_zero_bit(src, nbits) == nbits */
static inline bool bitmap_full(const unsigned long *src, unsigned int nbits)
{
	unsigned int k, lim = nbits / BITS_PER_LONG;

	for (k = 0; k < lim; k++)
		if (~src[k])
			return false;
	if (nbits % BITS_PER_LONG)
		if (~src[k] & BITMAP_LAST_WORD_MASK(nbits))
			return false;
	return true;
}

/* find_first_bit(src, nbits) == nbits */
static inline bool bitmap_empty(const unsigned long *src, unsigned int nbits)
{
	unsigned int k, lim = nbits / BITS_PER_LONG;

	for (k = 0; k < lim; k++)
		if (src[k])
			return false;
	if (nbits % BITS_PER_LONG)
		if (src[k] & BITMAP_LAST_WORD_MASK(nbits))
			return false;
	return true;
}

/* --- Reciprocal division --------------------------------------------------- */

struct reciprocal_value {
	u32 m;
	u8 sh1, sh2;
};

/* lib/math/reciprocal_div.c: reciprocal_value(); @d must not be 0. */
static inline struct reciprocal_value reciprocal_value(u32 d)
{
	struct reciprocal_value R;
	u64 m;
	int l;

	l = fls(d - 1);
	m = ((1ULL << 32) * ((1ULL << l) - d));
	m /= d;			/* do_div(m, d) */
	++m;
	R.m = (u32)m;
	R.sh1 = l < 1 ? l : 1;		/* min(l, 1) */
	R.sh2 = l - 1 > 0 ? l - 1 : 0;	/* max(l - 1, 0) */

	return R;
}

static inline u32 reciprocal_divide(u32 a, struct reciprocal_value R)
{
	u32 t = (u32)(((u64)a * R.m) >> 32);

	return (t + ((a - t) >> R.sh1)) >> R.sh2;
}

#endif /* SLEB_TEST_SHIM_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SLEB object bookkeeping: slab layout, free-object bitmaps and queues.
 *
 * Everything here works on numbers, bitmaps and arrays of object pointers
 * only: no struct page, no locking, no allocation.  mm/sleb.c calls these
 * helpers with the lock that protects the bitmap or queue held; the
 * userspace harness in tools/testing/sleb/ compiles this very file.
 *
 * A slab of 2^order pages holds objects of a fixed stride ("size").  A set
 * bit in the slab's bitmap means the object of that index is free.  With at
 * most BITS_PER_LONG objects the bitmap is a word in struct slab; with more,
 * it occupies the last words of the slab memory:
 *
 *   +----------+----------+-- ... --+----------+-------+------------+
 *   | object 0 | object 1 |         | object n | waste | bitmap     |
 *   +----------+----------+-- ... --+----------+-------+------------+
 *   ^ slab address                                     ^ map offset
 */
#ifndef MM_SLEB_MAP_H
#define MM_SLEB_MAP_H

/**
 * struct sleb_array - a stack of object pointers
 * @count: number of objects held, the top one is @objects[@count - 1]
 * @size: capacity of @objects; 0 for the boot queue, which holds nothing
 * @objects: the objects, oldest first
 *
 * Used for the per-cpu queues and the per-node shared arrays.  The caller
 * provides the protection (the per-cpu lock or the node's shared_lock).
 */
struct sleb_array {
	unsigned int count;
	unsigned int size;
	void *objects[];
};

/* --- Slab layout --------------------------------------------------------- */

/**
 * sleb_map_words - words of bitmap for @objects objects
 * @objects: objects in the slab
 *
 * Return: the number of unsigned longs the bitmap needs.
 */
static inline unsigned int sleb_map_words(unsigned int objects)
{
	return BITS_TO_LONGS(objects);
}

/**
 * sleb_map_in_struct - whether the bitmap of a slab fits into struct slab
 * @objects: objects in the slab
 *
 * Return: true when the bitmap is the single word in struct slab.
 */
static inline bool sleb_map_in_struct(unsigned int objects)
{
	return objects <= BITS_PER_LONG;
}

/**
 * sleb_slab_objects - objects of @size bytes in a slab of @order
 * @size: object stride in bytes, at least the size of a pointer
 * @order: page order of the slab
 *
 * When more than BITS_PER_LONG objects fit, the bitmap has to fit into the
 * slab as well; but never fewer than BITS_PER_LONG objects are placed when
 * that many fit, as their bitmap then lives in struct slab.
 *
 * Return: the number of objects in the slab.
 */
static inline unsigned int sleb_slab_objects(unsigned int size, unsigned int order)
{
	unsigned long bytes = PAGE_SIZE << order;
	unsigned long n = bytes / size;

	if (n <= BITS_PER_LONG)
		return n;
	/* n * size + bitmap <= bytes, the bitmap costing 1/BITS_PER_BYTE byte per object */
	n = bytes * BITS_PER_BYTE / ((unsigned long)size * BITS_PER_BYTE + 1);
	while (n * size + BITS_TO_LONGS(n) * sizeof(long) > bytes)
		n--;
	return n > BITS_PER_LONG ? n : BITS_PER_LONG;
}

/**
 * sleb_map_offset - offset of the in-slab bitmap from the slab address
 * @objects: objects in the slab, more than BITS_PER_LONG
 * @order: page order of the slab
 *
 * Return: the offset of the first bitmap word, aligned to a word.
 */
static inline unsigned long sleb_map_offset(unsigned int objects, unsigned int order)
{
	return (PAGE_SIZE << order) - sleb_map_words(objects) * sizeof(long);
}

/**
 * sleb_slab_waste - bytes of a slab used neither by objects nor the bitmap
 * @size: object stride in bytes
 * @order: page order of the slab
 *
 * Return: the unused bytes.
 */
static inline unsigned long sleb_slab_waste(unsigned int size, unsigned int order)
{
	unsigned int objects = sleb_slab_objects(size, order);
	unsigned long used = (unsigned long)objects * size;

	if (!sleb_map_in_struct(objects))
		used += sleb_map_words(objects) * sizeof(long);
	return (PAGE_SIZE << order) - used;
}

/* --- Free-object bitmaps ------------------------------------------------- */

/**
 * sleb_map_init - mark all objects of a new slab free
 * @map: the bitmap
 * @objects: objects in the slab
 *
 * Bits beyond @objects stay clear, so that a word scan never finds them.
 */
static inline void sleb_map_init(unsigned long *map, unsigned int objects)
{
	bitmap_zero(map, objects);
	bitmap_set(map, 0, objects);
}

/**
 * sleb_map_free_count - number of free objects
 * @map: the bitmap
 * @objects: objects in the slab
 *
 * Return: the number of set bits.
 */
static inline unsigned int sleb_map_free_count(const unsigned long *map, unsigned int objects)
{
	return bitmap_weight(map, objects);
}

/**
 * sleb_map_all_free - whether no object of the slab is in use
 * @map: the bitmap
 * @objects: objects in the slab
 *
 * Return: true when every object is free.
 */
static inline bool sleb_map_all_free(const unsigned long *map, unsigned int objects)
{
	return bitmap_full(map, objects);
}

/**
 * sleb_map_none_free - whether every object of the slab is in use
 * @map: the bitmap
 * @objects: objects in the slab
 *
 * Return: true when no object is free.
 */
static inline bool sleb_map_none_free(const unsigned long *map, unsigned int objects)
{
	return bitmap_empty(map, objects);
}

/**
 * enum sleb_relist - where a slab goes after objects went back to it
 * @SLEB_RELIST_STAY: where it is: it stays partial
 * @SLEB_RELIST_PARTIAL: from the full list to the partial list
 * @SLEB_RELIST_DISCARD: off the node's books, back to the page allocator
 * @SLEB_RELIST_KEEP_EMPTY: empty, kept on the partial list behind the
 *	slabs that still have objects in use
 */
enum sleb_relist {
	SLEB_RELIST_STAY,
	SLEB_RELIST_PARTIAL,
	SLEB_RELIST_DISCARD,
	SLEB_RELIST_KEEP_EMPTY,
};

/**
 * sleb_relist_after_put - the list of a slab after a put into it
 * @map: the slab's bitmap, after the put
 * @objects: objects in the slab
 * @full: whether the slab is on the full list
 * @nr_partial: partial slabs of the node
 * @min_partial: partial slabs the node keeps even when they are empty
 * @reserve: whether the slab comes from the emergency reserves, which get
 *	an empty slab back at once
 *
 * Only for a put that brought objects back: one that brought nothing (a
 * rejected free) leaves the slab where it is, which may be on the way
 * back to the page allocator already.
 *
 * Return: what the caller does with the slab, under the node's lock.
 */
static inline enum sleb_relist sleb_relist_after_put(const unsigned long *map,
						     unsigned int objects, bool full,
						     unsigned long nr_partial,
						     unsigned long min_partial, bool reserve)
{
	if (!sleb_map_all_free(map, objects))
		return full ? SLEB_RELIST_PARTIAL : SLEB_RELIST_STAY;
	if (nr_partial >= min_partial || reserve)
		return SLEB_RELIST_DISCARD;
	return SLEB_RELIST_KEEP_EMPTY;
}

/**
 * sleb_map_take - take up to @max free objects out of a slab
 * @map: the bitmap; the bits of the objects taken are cleared
 * @objects: objects in the slab
 * @base: address of object 0
 * @size: object stride
 * @dst: where to store the addresses of the objects taken
 * @max: the most objects to take
 *
 * Walks the bitmap a word at a time; within a word every set bit is one
 * object whose address follows from the word's first object by a multiply,
 * so no division and no page lookup is needed per object.  Lowest index
 * first.
 *
 * Return: the number of objects taken.
 */
static inline unsigned int sleb_map_take(unsigned long *map, unsigned int objects,
					 void *base, unsigned int size,
					 void **dst, unsigned int max)
{
	unsigned int words = sleb_map_words(objects);
	unsigned int taken = 0;
	unsigned int w;

	for (w = 0; w < words && taken < max; w++) {
		unsigned long word = map[w];
		char *first = (char *)base + (unsigned long)w * BITS_PER_LONG * size;

		while (word && taken < max) {
			dst[taken++] = first + (unsigned long)__ffs(word) * size;
			word &= word - 1;
		}
		map[w] = word;
	}
	return taken;
}

/**
 * enum sleb_put_result - what sleb_map_put() found at its last object
 * @SLEB_PUT_OK: every object consumed was returned to the bitmap
 * @SLEB_PUT_MISALIGNED: the last object consumed is not an object start
 * @SLEB_PUT_DOUBLE_FREE: the last object consumed was free already
 */
enum sleb_put_result {
	SLEB_PUT_OK,
	SLEB_PUT_MISALIGNED,
	SLEB_PUT_DOUBLE_FREE,
};

/**
 * sleb_map_put - return a run of objects of one slab to its bitmap
 * @map: the bitmap
 * @objects: objects in the slab
 * @base: address of object 0
 * @size: object stride
 * @rsize: reciprocal of @size, for reciprocal_divide()
 * @objs: the objects to free
 * @nr: number of entries in @objs
 * @result: set to what was found at the last object consumed
 *
 * Consumes objects from the start of @objs for as long as they lie in this
 * slab.  An object adjacent to the previous one (the common case after a
 * run was handed out by sleb_map_take()) gets its index by an increment;
 * others by a reciprocal multiply.  Stops after the first misaligned
 * pointer or double free, which is left unchanged in the bitmap, so that
 * the caller can report it and go on with the rest.
 *
 * Return: the number of objects consumed; 0 if the first of @objs is not
 * in the slab.
 */
static inline unsigned int sleb_map_put(unsigned long *map, unsigned int objects,
					void *base, unsigned int size,
					struct reciprocal_value rsize,
					void * const *objs, unsigned int nr,
					enum sleb_put_result *result)
{
	const char *start = base;
	const char *end = start + (unsigned long)objects * size;
	const char *prev = NULL;
	unsigned int idx = 0;
	unsigned int i;

	*result = SLEB_PUT_OK;
	for (i = 0; i < nr; i++) {
		const char *p = objs[i];

		if (p < start || p >= end)
			break;
		if (prev && p == prev + size)
			idx++;
		else if (prev && p == prev - size)
			idx--;
		else
			idx = reciprocal_divide(p - start, rsize);
		if (start + (unsigned long)idx * size != p) {
			*result = SLEB_PUT_MISALIGNED;
			return i + 1;
		}
		if (__test_and_set_bit(idx, map)) {
			*result = SLEB_PUT_DOUBLE_FREE;
			return i + 1;
		}
		prev = p;
	}
	return i;
}

/* --- Queues ---------------------------------------------------------------- */

/**
 * sleb_array_drop_oldest - remove the @nr oldest objects of an array
 * @a: the array
 * @nr: how many, at most @a->count
 *
 * The caller has moved them elsewhere; the newer ones move down.
 */
static inline void sleb_array_drop_oldest(struct sleb_array *a, unsigned int nr)
{
	a->count -= nr;
	memmove(a->objects, a->objects + nr, a->count * sizeof(void *));
}

/**
 * sleb_array_take_newest - move up to @max of the newest objects to @dst
 * @a: the array
 * @dst: destination
 * @max: the most to move
 *
 * Return: the number of objects moved.
 */
static inline unsigned int sleb_array_take_newest(struct sleb_array *a, void **dst,
						  unsigned int max)
{
	unsigned int nr = a->count < max ? a->count : max;

	a->count -= nr;
	memcpy(dst, a->objects + a->count, nr * sizeof(void *));
	return nr;
}

/**
 * sleb_array_add - append up to @nr objects to an array
 * @a: the array
 * @objs: the objects
 * @nr: how many are offered
 *
 * Return: the number of objects appended (limited by the free space).
 */
static inline unsigned int sleb_array_add(struct sleb_array *a, void * const *objs,
					  unsigned int nr)
{
	unsigned int room = a->size - a->count;

	if (nr > room)
		nr = room;
	memcpy(a->objects + a->count, objs, nr * sizeof(void *));
	a->count += nr;
	return nr;
}

/**
 * sleb_default_queue_size - per-cpu queue length for an object size
 * @size: object stride in bytes
 *
 * The sizes of the 2010 RFC (and of SLAB): big objects get short queues.
 *
 * Return: the default queue length.
 */
static inline unsigned int sleb_default_queue_size(unsigned int size)
{
	if (size > PAGE_SIZE)
		return 8;
	if (size > 1024)
		return 24;
	if (size > 256)
		return 54;
	return 120;
}

/**
 * sleb_default_batch - objects moved per refill or drain
 * @queue: the queue length
 *
 * Return: half the queue, rounded up.
 */
static inline unsigned int sleb_default_batch(unsigned int queue)
{
	return (queue + 1) / 2;
}

#endif /* MM_SLEB_MAP_H */

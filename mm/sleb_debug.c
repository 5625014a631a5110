// SPDX-License-Identifier: GPL-2.0
/*
 * SLEB debugging: sleb_debug=, red zones, poisoning, allocation and free
 * tracking, tracing and validation.
 *
 * An object of a cache with debugging flags carries metadata behind it
 * (offsets from the object's address):
 *
 *   -red_left_pad  left red zone                            (Z)
 *   0              the object; poisoned while it is free    (P)
 *   object_size    right red zone, up to inuse              (Z)
 *   inuse          state word: SLEB_OBJ_LIVE, _FREE, _BUSY
 *   + 1 word       struct sleb_track of the allocation and of the free (U)
 *   ...            KASAN metadata, padding to the alignment
 *
 * SLEB keeps no free pointer in objects, so the whole object can be
 * poisoned and the bitmap of the slab is never at risk from a stray write.
 * The state word is what lets the sanity checks (F) catch a double free
 * while the first free still sits in a per-cpu queue or a shared array,
 * where the bitmap does not see it yet.  It changes by cmpxchg, so that of
 * two racing frees of one object exactly one wins.
 *
 * Z and P check their patterns whenever they are on (red zones on free,
 * poison on allocation); F adds the pointer and state checks.  A problem
 * is reported in the format SLUB uses, fixed where it can be, counted and
 * tainted; the kernel continues.
 *
 * Locking: the hooks run on objects their caller owns and take no lock.
 * sleb_validate_cache() walks a node's slabs under the node's list_lock
 * (lock 7 of mm/sleb.c) and only trusts what that lock freezes: the
 * objects whose bit is set.  It checks the others against their state word,
 * read before and after, and skips an object whose state changed meanwhile.
 */

#include <kunit/test.h>
#include <kunit/visibility.h>
#include <linux/ctype.h>
#include <linux/kasan.h>
#include <linux/kfence.h>
#include <linux/poison.h>
#include <linux/sched/clock.h>
#include <linux/stackdepot.h>
#include <linux/stacktrace.h>
#include <linux/string.h>

#include "sleb.h"

/* === Data ================================================================ */

#ifdef CONFIG_SLEB_DEBUG_ON
DEFINE_STATIC_KEY_TRUE(sleb_debug_enabled);
#define SLEB_DEBUG_DEFAULT	(SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE | \
				 SLAB_POISON | SLAB_STORE_USER)
#else
DEFINE_STATIC_KEY_FALSE(sleb_debug_enabled);
#define SLEB_DEBUG_DEFAULT	0
#endif

/* The flags of sleb_debug= for every cache, and the per-cache blocks. */
static slab_flags_t sleb_debug_global __ro_after_init = SLEB_DEBUG_DEFAULT;
static char *sleb_debug_blocks __ro_after_init;

/* Values of the state word. */
#define SLEB_OBJ_LIVE	((unsigned long)SLUB_RED_ACTIVE)
#define SLEB_OBJ_FREE	((unsigned long)SLUB_RED_INACTIVE)
#define SLEB_OBJ_BUSY	((unsigned long)(SLUB_RED_ACTIVE ^ SLUB_RED_INACTIVE))

#define SLEB_TRACK_DEPTH	16
#define SLEB_DUMP_MAX		128

/**
 * struct sleb_track - who allocated or freed an object
 * @addr: the caller
 * @handle: its stack in the stack depot
 * @cpu: CPU it ran on
 * @pid: task it ran in
 * @when: jiffies
 */
struct sleb_track {
	unsigned long addr;
#ifdef CONFIG_STACKDEPOT
	depot_stack_handle_t handle;
#endif
	int cpu;
	int pid;
	unsigned long when;
};

enum sleb_track_item { TRACK_ALLOC, TRACK_FREE };

/* === Parsing sleb_debug= ================================================= */

/*
 * Parse the option letters at the start of @str up to ',' or ';'.
 * Return the flags; *@end points to the character that ended them.
 */
static slab_flags_t parse_flags(const char *str, const char **end, bool quiet)
{
	slab_flags_t flags = 0;

	for (; *str && *str != ',' && *str != ';'; str++) {
		switch (tolower(*str)) {
		case '-':
			flags = 0;
			break;
		case 'f':
			flags |= SLAB_CONSISTENCY_CHECKS;
			break;
		case 'z':
			flags |= SLAB_RED_ZONE;
			break;
		case 'p':
			flags |= SLAB_POISON;
			break;
		case 'u':
			flags |= SLAB_STORE_USER;
			break;
		case 't':
			flags |= SLAB_TRACE;
			break;
		case 'a':
			flags |= SLAB_FAILSLAB;
			break;
		default:
			if (!quiet)
				pr_err("SLEB: sleb_debug option '%c' unknown, skipped\n", *str);
		}
	}
	*end = str;
	return flags;
}

/*
 * Whether the cache list that starts at @list (names separated by ',',
 * ended by ';' or the end of the string) names @name.  A name ending in
 * '*' matches every cache with that prefix.
 */
static bool list_names(const char *list, const char *name)
{
	size_t len = strlen(name);

	while (*list && *list != ';') {
		const char *end = strpbrk(list, ",;");
		size_t n = end ? end - list : strlen(list);

		if (n && list[n - 1] == '*') {
			if (!strncmp(list, name, n - 1))
				return true;
		} else if (n == len && !strncmp(list, name, n)) {
			return true;
		}
		list += n;
		if (*list == ',')
			list++;
	}
	return false;
}

/*
 * sleb_debug[=<flags>[,<cache>,...][;<flags>,<cache>,...]...]
 *
 * A block without caches applies to every cache; a block with caches
 * replaces the global flags for those.  "sleb_debug" alone means FZPU.
 */
static int __init setup_sleb_debug(char *str)
{
	const char *p, *end;
	slab_flags_t flags;
	bool any = false;

	if (*str != '=' || !str[1]) {
		sleb_debug_global = SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE |
				    SLAB_POISON | SLAB_STORE_USER;
		any = true;
		goto out;
	}
	sleb_debug_global = 0;
	for (p = str + 1; *p; p = end) {
		flags = parse_flags(p, &end, false);
		if (*end == ',') {
			/* A block with caches: remembered for kmem_cache_flags(). */
			if (!sleb_debug_blocks)
				sleb_debug_blocks = (char *)p;
			if (flags)
				any = true;
			end = strchrnul(end, ';');
		} else {
			sleb_debug_global = flags;
		}
		if (*end == ';')
			end++;
	}
	if (sleb_debug_global)
		any = true;
out:
	if (any)
		static_branch_enable(&sleb_debug_enabled);
	if ((sleb_debug_global & SLAB_STORE_USER) || sleb_debug_blocks)
		stack_depot_request_early_init();
	return 1;
}
__setup("sleb_debug", setup_sleb_debug);

/**
 * kmem_cache_flags - the flags of a cache with sleb_debug= applied
 * @flags: flags the cache was created with
 * @name: cache name
 *
 * Return: @flags plus the debugging flags sleb_debug= gives the cache.
 */
slab_flags_t kmem_cache_flags(slab_flags_t flags, const char *name)
{
	const char *p = sleb_debug_blocks, *end;
	slab_flags_t block;

	while (p && *p && name) {
		block = parse_flags(p, &end, true);
		if (*end == ',' && list_names(end + 1, name))
			return flags | block;
		p = strchr(end, ';');
		if (p)
			p++;
	}
	if (flags & SLAB_NO_USER_FLAGS)
		return flags;
	return flags | sleb_debug_global;
}

/**
 * sleb_debug_prepare - get ready for a cache created with debugging flags
 * @flags: the flags passed to kmem_cache_create()
 *
 * Called by __kmem_cache_create_args() before it takes slab_mutex:
 * enabling the static key takes cpu_hotplug_lock, which nests outside it.
 */
void sleb_debug_prepare(slab_flags_t flags)
{
	if (flags & SLEB_DEBUG_FLAGS)
		static_branch_enable(&sleb_debug_enabled);
	if (flags & SLAB_STORE_USER)
		stack_depot_init();
}

/* === Layout ============================================================== */

static inline unsigned long *state_word(struct kmem_cache *s, void *object)
{
	return object + s->inuse;
}

static inline struct sleb_track *get_track(struct kmem_cache *s, void *object,
					   enum sleb_track_item item)
{
	return (struct sleb_track *)(state_word(s, object) + 1) + item;
}

static inline bool poisoned(struct kmem_cache *s)
{
	return s->flags & SLAB_POISON;
}

/*
 * Place the debug metadata behind an object of @s.  @size is the object
 * size rounded to a word.  Return the end of the metadata, relative to the
 * object's address; sets s->inuse and s->red_left_pad.
 */
unsigned int sleb_debug_layout(struct kmem_cache *s, unsigned int size)
{
	if (!(s->flags & SLEB_DEBUG_FLAGS))
		return size;
	/*
	 * Objects that may be used while free (RCU) or keep a constructed
	 * state cannot be poisoned.  KASAN keeps its free metadata in freed
	 * objects and checks accesses to them itself.
	 */
	if (s->ctor || (s->flags & SLAB_TYPESAFE_BY_RCU) || IS_ENABLED(CONFIG_KASAN))
		s->flags &= ~SLAB_POISON;
	if (s->flags & SLAB_RED_ZONE) {
		/* At least a word of right red zone. */
		if (size == s->object_size)
			size += sizeof(void *);
		s->red_left_pad = ALIGN(sizeof(void *), s->align);
	}
	s->inuse = size;
	size += sizeof(unsigned long);
	if (s->flags & SLAB_STORE_USER)
		size += 2 * sizeof(struct sleb_track);
	return size;
}

static void set_track(struct kmem_cache *s, void *object,
		      enum sleb_track_item item, unsigned long addr)
{
	struct sleb_track *t = get_track(s, object, item);
#ifdef CONFIG_STACKDEPOT
	unsigned long entries[SLEB_TRACK_DEPTH];
	unsigned int nr;

	nr = stack_trace_save(entries, ARRAY_SIZE(entries), 3);
	t->handle = stack_depot_save(entries, nr, GFP_NOWAIT | __GFP_NOWARN);
#endif
	t->addr = addr;
	t->cpu = raw_smp_processor_id();
	t->pid = current->pid;
	t->when = jiffies;
}

static void init_tracks(struct kmem_cache *s, void *object)
{
	memset(get_track(s, object, TRACK_ALLOC), 0, 2 * sizeof(struct sleb_track));
}

/* Write the patterns of an object in state @state (LIVE or FREE). */
static void write_patterns(struct kmem_cache *s, void *object, unsigned long state)
{
	u8 red = state == SLEB_OBJ_LIVE ? SLUB_RED_ACTIVE : SLUB_RED_INACTIVE;

	if (s->flags & SLAB_RED_ZONE) {
		memset(object - s->red_left_pad, red, s->red_left_pad);
		memset(object + s->object_size, red, s->inuse - s->object_size);
	}
	if (poisoned(s) && state == SLEB_OBJ_FREE) {
		memset(object, POISON_FREE, s->object_size - 1);
		((u8 *)object)[s->object_size - 1] = POISON_END;
	}
}

/* === Reports ============================================================= */

#if IS_ENABLED(CONFIG_KUNIT)
/* A KUnit test with a "slab_errors" resource counts reports instead. */
bool sleb_kunit_counts_error(void)
{
	struct kunit_resource *res;

	if (likely(!current->kunit_test))
		return false;
	res = kunit_find_named_resource(current->kunit_test, "slab_errors");
	if (!res)
		return false;
	(*(int *)res->data)++;
	kunit_put_resource(res);
	return true;
}
#endif

static __printf(2, 3) void report_start(struct kmem_cache *s, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_err("=============================================================================\n");
	pr_err("BUG %s (%s): %pV\n", s->name, print_tainted(), &vaf);
	pr_err("-----------------------------------------------------------------------------\n\n");
	va_end(args);
}

static __printf(2, 3) void report_fix(struct kmem_cache *s, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_err("FIX %s: %pV\n", s->name, &vaf);
	va_end(args);
}

static void report_end(void)
{
	dump_stack();
	add_taint(TAINT_BAD_PAGE, LOCKDEP_NOW_UNRELIABLE);
}

static void print_track(const char *what, struct sleb_track *t)
{
	if (!t->addr)
		return;
	pr_err("%s in %pS age=%lu cpu=%d pid=%d\n", what, (void *)t->addr,
	       jiffies - t->when, t->cpu, t->pid);
#ifdef CONFIG_STACKDEPOT
	if (t->handle)
		stack_depot_print(t->handle);
	else
		pr_err("(stack not recorded)\n");
#endif
}

static void print_slab(struct kmem_cache *s, struct slab *slab)
{
	pr_err("Slab 0x%p objects=%u free=%u node=%d flags=%pGp\n", slab,
	       slab->objects, sleb_map_free_count(slab_map(slab), slab->objects),
	       slab_nid(slab), &slab_folio(slab)->flags);
}

static void print_section(const char *what, void *p, unsigned int len)
{
	if (len)
		print_hex_dump(KERN_ERR, what, DUMP_PREFIX_ADDRESS, 16, 1, p,
			       min_t(unsigned int, len, SLEB_DUMP_MAX), true);
}

static void print_object(struct kmem_cache *s, struct slab *slab, void *object)
{
	void *base = slab_base(s, slab);

	if (s->flags & SLAB_STORE_USER) {
		print_track("Allocated", get_track(s, object, TRACK_ALLOC));
		print_track("Freed", get_track(s, object, TRACK_FREE));
	}
	print_slab(s, slab);
	pr_err("Object 0x%p @offset=%tu state=%#lx\n", object,
	       object - base + s->red_left_pad, *state_word(s, object));
	print_section("Redzone  ", object - s->red_left_pad, s->red_left_pad);
	print_section("Object   ", object, s->object_size);
	if (s->flags & SLAB_RED_ZONE)
		print_section("Redzone  ", object + s->object_size,
			      s->inuse - s->object_size);
}

/* Report a problem with an object; false if a KUnit test counted it. */
static __printf(4, 5) bool report_object(struct kmem_cache *s, struct slab *slab,
					 void *object, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (sleb_kunit_counts_error())
		return false;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	report_start(s, "%pV", &vaf);
	va_end(args);
	if (slab && object)
		print_object(s, slab, object);
	else if (slab)
		print_slab(s, slab);
	report_end();
	return true;
}

/*
 * Check that [@start, @start + @len) holds @value, or @value followed by
 * @last in the final byte when @last is non-zero.  Report and restore
 * when not.  Return true when it did hold.
 */
static bool check_bytes(struct kmem_cache *s, struct slab *slab, void *object,
			const char *what, u8 *start, unsigned int len, u8 value,
			u8 last, bool quiet)
{
	unsigned int body = last ? len - 1 : len;
	u8 *fault = memchr_inv(start, value, body);
	u8 *end = start + len;

	if (!fault && (!last || start[len - 1] == last))
		return true;
	if (quiet)
		return false;
	if (!fault)
		fault = start + len - 1;
	if (report_object(s, slab, object, "%s overwritten", what))
		report_fix(s, "Restoring %s 0x%p-0x%p=0x%x", what, fault, end - 1, value);
	memset(start, value, body);
	if (last)
		start[len - 1] = last;
	return false;
}

/*
 * Check the red zones and the poison of an object that is in @state.
 * With @quiet, only count what is wrong.  Return the number of problems.
 */
static unsigned int check_patterns(struct kmem_cache *s, struct slab *slab,
				   void *object, unsigned long state, bool quiet)
{
	u8 red = state == SLEB_OBJ_LIVE ? SLUB_RED_ACTIVE : SLUB_RED_INACTIVE;
	unsigned int errors = 0;

	if (s->flags & SLAB_RED_ZONE) {
		errors += !check_bytes(s, slab, object, "Left Redzone",
				       object - s->red_left_pad, s->red_left_pad,
				       red, 0, quiet);
		errors += !check_bytes(s, slab, object, "Right Redzone",
				       object + s->object_size,
				       s->inuse - s->object_size, red, 0, quiet);
	}
	if (poisoned(s) && state == SLEB_OBJ_FREE)
		errors += !check_bytes(s, slab, object, "Poison", object,
				       s->object_size, POISON_FREE, POISON_END, quiet);
	return errors;
}

/* === Hooks =============================================================== */

/* Called for every new slab of a debug cache, before it is listed. */
void sleb_debug_init_slab(struct kmem_cache *s, struct slab *slab)
{
	unsigned int i, guard;
	u8 *start;

	metadata_access_enable();
	guard = slab_map_guard(s, slab, &start);
	if ((s->flags & SLAB_RED_ZONE) && guard)
		memset(start, SLUB_RED_INACTIVE, guard);
	for (i = 0; i < slab->objects; i++) {
		void *object = slab_object(s, slab, i);

		*state_word(s, object) = SLEB_OBJ_FREE;
		write_patterns(s, object, SLEB_OBJ_FREE);
		if (s->flags & SLAB_STORE_USER)
			init_tracks(s, object);
	}
	metadata_access_disable();
}

static void trace(struct kmem_cache *s, void *object, const char *what)
{
	if (!(s->flags & SLAB_TRACE))
		return;
	pr_info("TRACE %s %s 0x%p\n", s->name, what, object);
	if (*what == 'f')
		print_section("Object   ", object, s->object_size);
	dump_stack();
}

/**
 * sleb_debug_alloc - check an object of a debug cache before it is handed out
 * @s: the cache
 * @object: the object, or NULL when the allocation failed
 * @caller: address of the allocating code
 */
void sleb_debug_alloc(struct kmem_cache *s, void *object, unsigned long caller)
{
	struct slab *slab;
	unsigned long state;

	if (!object || is_kfence_address(object))
		return;
	slab = virt_to_slab(object);
	metadata_access_enable();
	state = READ_ONCE(*state_word(s, object));
	if ((s->flags & SLAB_CONSISTENCY_CHECKS) && state != SLEB_OBJ_FREE)
		report_object(s, slab, object, state == SLEB_OBJ_LIVE ?
			      "Object 0x%p handed out while in use" :
			      "Object 0x%p state word overwritten", object);
	check_patterns(s, slab, object, SLEB_OBJ_FREE, false);
	WRITE_ONCE(*state_word(s, object), SLEB_OBJ_BUSY);
	write_patterns(s, object, SLEB_OBJ_LIVE);
	if (s->flags & SLAB_STORE_USER)
		set_track(s, object, TRACK_ALLOC, caller);
	/* Patterns first: whoever reads the state with acquire sees them. */
	smp_store_release(state_word(s, object), SLEB_OBJ_LIVE);
	metadata_access_disable();
	trace(s, object, "alloc");
}

/* The sanity checks of a free: a slab object of @s, at an object start. */
static bool free_pointer_ok(struct kmem_cache *s, struct slab *slab, void *object)
{
	void *base;

	if (!slab) {
		if (!sleb_kunit_counts_error()) {
			report_start(s, "Object 0x%p is not a slab object", object);
			report_end();
		}
		return false;
	}
	if (slab->slab_cache != s) {
		if (!sleb_kunit_counts_error()) {
			report_start(s, "Object 0x%p freed into the wrong cache", object);
			pr_err("It belongs to %s\n",
			       slab->slab_cache ? slab->slab_cache->name : "no cache");
			report_end();
		}
		return false;
	}
	base = slab_base(s, slab);
	if (object < base || object >= base + slab->objects * s->size ||
	    (object - base) % s->size) {
		report_object(s, slab, NULL, "Invalid object pointer 0x%p", object);
		return false;
	}
	return true;
}

/**
 * sleb_debug_free - check an object of a debug cache that is being freed
 * @s: the cache
 * @slab: the slab of the object, NULL if it has none
 * @object: the object
 * @caller: address of the freeing code
 *
 * Checks the pointer, the object's state and red zones and records the
 * free; the object is then busy until sleb_debug_free_done(), which the
 * caller calls once the free hooks have run and the object goes back to
 * SLEB (for an object KASAN quarantines, when it leaves the quarantine).
 * An object whose free a hook rejects stays busy: it is leaked, and
 * validation passes over it.
 *
 * Return: true if the object may be freed, false if it must be ignored.
 */
bool sleb_debug_free(struct kmem_cache *s, struct slab *slab, void *object,
		     unsigned long caller)
{
	unsigned long state;

	if (is_kfence_address(object))
		return true;
	/* The metadata written below must be this object's, whatever the flags. */
	if (!free_pointer_ok(s, slab, object))
		return false;
	metadata_access_enable();
	if (s->flags & SLAB_CONSISTENCY_CHECKS) {
		state = cmpxchg(state_word(s, object), SLEB_OBJ_LIVE, SLEB_OBJ_BUSY);
		if (state != SLEB_OBJ_LIVE) {
			report_object(s, slab, object,
				      state == SLEB_OBJ_FREE ? "Object 0x%p already free" :
				      state == SLEB_OBJ_BUSY ?
				      "Object 0x%p already free (being freed)" :
				      "Object 0x%p state word overwritten", object);
			metadata_access_disable();
			return false;
		}
	} else {
		WRITE_ONCE(*state_word(s, object), SLEB_OBJ_BUSY);
	}
	check_patterns(s, slab, object, SLEB_OBJ_LIVE, false);
	if (s->flags & SLAB_STORE_USER)
		set_track(s, object, TRACK_FREE, caller);
	trace(s, object, "free");
	metadata_access_disable();
	return true;
}

/**
 * sleb_debug_free_done - poison a freed object of a debug cache
 * @s: the cache
 * @object: the object, checked by sleb_debug_free()
 *
 * Called after the free hooks, as SLUB poisons after them: debugobjects
 * sees the object as it was freed, not the poison.
 */
void sleb_debug_free_done(struct kmem_cache *s, void *object)
{
	if (is_kfence_address(object))
		return;
	metadata_access_enable();
	write_patterns(s, object, SLEB_OBJ_FREE);
	/* Patterns first: whoever reads the state with acquire sees them. */
	smp_store_release(state_word(s, object), SLEB_OBJ_FREE);
	metadata_access_disable();
}

/* For kmem_dump_obj(): the tracks of an object. */
void sleb_debug_obj_info(struct kmem_obj_info *kpp, struct kmem_cache *s,
			 void *object)
{
#ifdef CONFIG_STACKDEPOT
	struct sleb_track *t;
	unsigned long *entries;
	unsigned int nr, i;

	if (!(s->flags & SLAB_STORE_USER))
		return;
	metadata_access_enable();
	t = get_track(s, object, TRACK_ALLOC);
	kpp->kp_ret = (void *)t->addr;
	nr = t->handle ? stack_depot_fetch(t->handle, &entries) : 0;
	for (i = 0; i < KS_ADDRS_COUNT && i < nr; i++)
		kpp->kp_stack[i] = (void *)entries[i];
	t = get_track(s, object, TRACK_FREE);
	nr = t->handle ? stack_depot_fetch(t->handle, &entries) : 0;
	for (i = 0; i < KS_ADDRS_COUNT && i < nr; i++)
		kpp->kp_free_stack[i] = (void *)entries[i];
	metadata_access_disable();
#endif
}

/* === Validation ========================================================== */

/* What validating a slab's objects found. */
struct sleb_object_errors {
	unsigned int bits;	/* a free bit for an object in use */
	unsigned int other;	/* patterns, state words, bits past the last object */
};

/*
 * An object whose bit is set is free and frozen by the list_lock.  Any
 * other is in use or in some CPU's queue (put there since the queues were
 * flushed): check one in use in the state it is in, unless the state
 * changes under us.  One in a queue is left to the check when it is
 * handed out: it may be handed out meanwhile, and a repair of its poison
 * would land on its new owner's data.
 */
static void validate_object(struct kmem_cache *s, struct slab *slab, void *object,
			    bool free, struct sleb_object_errors *e)
{
	/* Pairs with the releases in the alloc and free checks. */
	unsigned long state = smp_load_acquire(state_word(s, object));

	if (free) {
		if (state == SLEB_OBJ_LIVE) {
			report_object(s, slab, object,
				      "Object 0x%p in use but free in the bitmap", object);
			e->bits++;
			return;
		}
		if (state != SLEB_OBJ_FREE) {
			report_object(s, slab, object, "Object 0x%p state word overwritten",
				      object);
			e->other++;
			return;
		}
		e->other += check_patterns(s, slab, object, state, false);
		return;
	}
	if (state == SLEB_OBJ_BUSY || state == SLEB_OBJ_FREE)
		return;
	if (state != SLEB_OBJ_LIVE) {
		report_object(s, slab, object, "Object 0x%p state word overwritten", object);
		e->other++;
		return;
	}
	if (!check_patterns(s, slab, object, state, true))
		return;
	/* Report only if the object stood still while it was checked. */
	if (smp_load_acquire(state_word(s, object)) != state)
		return;
	e->other += check_patterns(s, slab, object, state, false);
}

/*
 * The bitmap's own consistency: no bit set past the last object, and with
 * red zoning the guard between the last object and the bitmap intact.
 * Both are reported and restored.
 */
static void validate_map(struct kmem_cache *s, struct slab *slab,
			 struct sleb_object_errors *e)
{
	unsigned int bits = sleb_map_words(slab->objects) * BITS_PER_LONG;
	unsigned long *map = slab_map(slab);
	unsigned int guard;
	u8 *start;

	if (find_next_bit(map, bits, slab->objects) < bits) {
		report_object(s, slab, NULL, "Slab 0x%p bitmap has bits past object %u set",
			      slab, slab->objects - 1);
		/* Cleared before the free objects are counted: it explains nothing. */
		bitmap_clear(map, slab->objects, bits - slab->objects);
		e->other++;
	}
	guard = slab_map_guard(s, slab, &start);
	if ((s->flags & SLAB_RED_ZONE) && guard)
		e->other += !check_bytes(s, slab, NULL, "Bitmap guard", start, guard,
					 SLUB_RED_INACTIVE, 0, false);
}

/* What a walk of a node's lists finds, to hold against the node's counts. */
struct sleb_tally {
	unsigned long misplaced;
	unsigned long bad_bits;
	unsigned long slabs;
	unsigned long partial;
	unsigned long empty;
	unsigned long objects;
	unsigned long partial_objects;
	unsigned long free;
};

static const char *slab_list_name(enum sleb_slab_list list)
{
	switch (list) {
	case SLEB_LIST_PARTIAL:
		return "partial";
	case SLEB_LIST_EMPTY:
		return "empty";
	case SLEB_LIST_FULL:
		return "full";
	default:
		return "no";
	}
}

/* Whether the list state of a slab agrees with its free objects. */
static bool slab_state_matches(struct slab *slab, unsigned int free)
{
	switch (slab->list) {
	case SLEB_LIST_PARTIAL:
		return free && free < slab->objects;
	case SLEB_LIST_EMPTY:
		return free == slab->objects;
	case SLEB_LIST_FULL:
		return !free;
	default:
		return false;
	}
}

static void validate_objects(struct kmem_cache *s, struct slab *slab,
			     struct sleb_object_errors *e)
{
	unsigned long *map = slab_map(slab);
	unsigned int i;

	for (i = 0; i < slab->objects; i++)
		validate_object(s, slab, slab_object(s, slab, i), test_bit(i, map), e);
}

static unsigned int validate_slab(struct kmem_cache *s, struct slab *slab, bool partial,
				  struct sleb_tally *t)
{
	struct sleb_object_errors e = {};
	unsigned int free, errors;

	if (slab->slab_cache != s || slab_on_partial(slab) != partial || !slab->objects) {
		report_object(s, slab, NULL, "Slab 0x%p not of this cache or list", slab);
		t->misplaced++;
		return 1;
	}
	validate_map(s, slab, &e);
	free = sleb_map_free_count(slab_map(slab), slab->objects);
	t->slabs++;
	t->objects += slab->objects;
	t->free += free;
	if (partial) {
		t->partial++;
		t->partial_objects += slab->objects;
		t->empty += slab->list == SLEB_LIST_EMPTY;
	}
	if (sleb_debug_cache(s))
		validate_objects(s, slab, &e);
	errors = e.bits + e.other;
	t->bad_bits += e.bits;
	/* A bit found wrong for its object explains a list that disagrees. */
	if (!e.bits && !slab_state_matches(slab, free)) {
		report_object(s, slab, NULL, "Slab 0x%p with %u of %u objects free marked %s",
			      slab, free, slab->objects, slab_list_name(slab->list));
		errors++;
	}
	return errors;
}

static unsigned long validate_list(struct kmem_cache *s, struct list_head *head,
				   bool partial, struct sleb_tally *t)
{
	unsigned long errors = 0;
	struct slab *slab;

	list_for_each_entry(slab, head, slab_list)
		errors += validate_slab(s, slab, partial, t);
	return errors;
}

/*
 * A problem already reported is not reported again through the node's
 * counts: a slab left out of the tally because it is on the wrong list
 * explains any count that disagrees, a bit found wrong the free count.
 * A problem of an object's patterns explains none.
 */
static bool node_counts_match(struct kmem_cache_node *n, const struct sleb_tally *t)
{
	if (t->misplaced)
		return true;
	if (!t->bad_bits && t->free != n->free_objects)
		return false;
	return t->slabs == n->nr_slabs && t->partial == n->nr_partial &&
	       t->empty == n->nr_empty && t->objects == n->total_objects &&
	       t->partial_objects == n->partial_objects;
}

static void report_node_counts(struct kmem_cache *s, int node, struct kmem_cache_node *n,
			       const struct sleb_tally *t)
{
	if (sleb_kunit_counts_error())
		return;
	report_start(s, "Node %d counts %lu slabs, %lu partial, %lu empty", node,
		     n->nr_slabs, n->nr_partial, n->nr_empty);
	pr_err("and %lu objects, %lu of them in partial slabs, %lu free\n",
	       n->total_objects, n->partial_objects, n->free_objects);
	pr_err("Its lists hold %lu slabs, %lu partial, %lu empty\n",
	       t->slabs, t->partial, t->empty);
	pr_err("and %lu objects, %lu of them in partial slabs, %lu free\n",
	       t->objects, t->partial_objects, t->free);
	report_end();
}

static unsigned long validate_node(struct kmem_cache *s, int node,
				   struct kmem_cache_node *n)
{
	struct sleb_tally t = {};
	unsigned long flags;
	unsigned long errors;

	spin_lock_irqsave(&n->list_lock, flags);
	metadata_access_enable();
	errors = validate_list(s, &n->partial, true, &t);
	errors += validate_list(s, &n->full, false, &t);
	if (!node_counts_match(n, &t)) {
		report_node_counts(s, node, n, &t);
		errors++;
	}
	metadata_access_disable();
	spin_unlock_irqrestore(&n->list_lock, flags);
	return errors;
}

/**
 * sleb_validate_cache - check every slab and object of a cache
 * @s: the cache
 *
 * Empties the queues and shared arrays first, then walks every slab of
 * every node: list membership, bitmap against list, node counters, and
 * for debug caches every object's state word, red zones and poison.
 * Reports what it finds.  It restores overwritten red zones, poison and
 * bitmap guards and clears bits set past a slab's last object; lists,
 * counters and the bits of objects stay as they are.  Objects that went
 * into a queue again since the flush are left to the check when they are
 * handed out.
 *
 * Return: the number of problems found.
 */
long sleb_validate_cache(struct kmem_cache *s)
{
	struct kmem_cache_node *n;
	unsigned long errors = 0;
	int node;

	sleb_flush_all(s);
	for_each_kmem_cache_node(s, node, n)
		errors += validate_node(s, node, n);
	return errors;
}
EXPORT_SYMBOL_IF_KUNIT(sleb_validate_cache);

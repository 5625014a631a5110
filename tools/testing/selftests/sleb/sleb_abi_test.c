// SPDX-License-Identifier: GPL-2.0
/*
 * ABI tests for the SLEB slab allocator: the per-cache tunables and
 * attributes in /sys/kernel/slab/<cache>/ and the SLAB-compatible
 * /proc/slabinfo (version 2.1, including its tuning write).
 *
 * Needs root and a kernel built with CONFIG_SLEB=y.  Every test is skipped
 * when /sys/kernel/slab/kmalloc-64/cpu_queue_size does not exist.  Tests
 * that change tunables restore the values found at fixture setup.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define SLAB_SYSFS	"/sys/kernel/slab"
#define SLABINFO	"/proc/slabinfo"
#define CACHE		"kmalloc-64"
#define CACHE2		"kmalloc-256"
#define SLEB_PROBE	SLAB_SYSFS "/" CACHE "/cpu_queue_size"

#define QUEUE_MIN	4
#define QUEUE_MAX	10000
#define SHARED_MAX	10000

/* "%s %lu %lu %u %u %u : tunables %u %u %u : slabdata %lu %lu %lu" */
#define SLABINFO_FIELDS	12

#define ATTR_BUF	4096
#define NOBODY		65534
/* Exit status of the unprivileged child when it could not drop root. */
#define CHILD_NOT_DROPPED	200

/* The three tunables of one cache. */
struct tunables {
	unsigned long queue;
	unsigned long batch;
	unsigned long shared;
};

/* One data line of /proc/slabinfo. */
struct slabinfo_line {
	char name[64];
	unsigned long active_objs;
	unsigned long num_objs;
	unsigned int objsize;
	unsigned int objperslab;
	unsigned int pagesperslab;
	unsigned int limit;
	unsigned int batchcount;
	unsigned int sharedfactor;
	unsigned long active_slabs;
	unsigned long num_slabs;
	unsigned long sharedavail;
};

/* --- helpers: all return 0 or a negative errno ------------------------ */

static void attr_path(char *path, size_t size, const char *cache,
		      const char *attr)
{
	snprintf(path, size, SLAB_SYSFS "/%s/%s", cache, attr);
}

/* Read a whole file into @buf (NUL-terminated); returns length or -errno. */
static ssize_t read_file(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t ret;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	while (len < size - 1) {
		ret = read(fd, buf + len, size - 1 - len);
		if (ret < 0) {
			ret = -errno;
			close(fd);
			return ret;
		}
		if (ret == 0)
			break;
		len += ret;
	}
	close(fd);
	buf[len] = '\0';
	return len;
}

/*
 * Write @len bytes of @buf to @path in a single write(2).  Returns 0 when
 * everything was written, -errno on failure and -EIO on a short write.
 */
static int write_file(const char *path, const char *buf, size_t len)
{
	ssize_t ret;
	int fd;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	ret = write(fd, buf, len);
	if (ret < 0)
		ret = -errno;
	else if ((size_t)ret != len)
		ret = -EIO;
	else
		ret = 0;
	close(fd);
	return ret;
}

static ssize_t read_attr(const char *cache, const char *attr, char *buf,
			 size_t size)
{
	char path[PATH_MAX];

	attr_path(path, sizeof(path), cache, attr);
	return read_file(path, buf, size);
}

static int write_attr(const char *cache, const char *attr, const char *val)
{
	char path[PATH_MAX];

	attr_path(path, sizeof(path), cache, attr);
	return write_file(path, val, strlen(val));
}

/* Strictly parse "<decimal>\n" and nothing else. */
static int parse_ulong_line(const char *s, unsigned long *val)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*val = strtoul(s, &end, 10);
	if (errno)
		return -errno;
	if (strcmp(end, "\n"))
		return -EINVAL;
	return 0;
}

static int read_ulong(const char *cache, const char *attr, unsigned long *val)
{
	char buf[ATTR_BUF];
	ssize_t len;

	len = read_attr(cache, attr, buf, sizeof(buf));
	if (len < 0)
		return len;
	return parse_ulong_line(buf, val);
}

static int write_ulong(const char *cache, const char *attr, unsigned long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lu", val);
	return write_attr(cache, attr, buf);
}

/*
 * Parse a SLUB-style count line: "<total>[ N<node>=<count>]...\n".
 * Returns the total, the sum of the per-node counts and their number.
 */
static int parse_count_line(const char *s, unsigned long *total,
			    unsigned long *node_sum, int *nodes)
{
	unsigned long count;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	*total = strtoul(s, &end, 10);
	*node_sum = 0;
	*nodes = 0;
	while (*end == ' ') {
		s = end + 1;
		if (*s != 'N' || s[1] < '0' || s[1] > '9')
			return -EINVAL;
		strtoul(s + 1, &end, 10);
		if (*end != '=' || end[1] < '0' || end[1] > '9')
			return -EINVAL;
		count = strtoul(end + 1, &end, 10);
		*node_sum += count;
		(*nodes)++;
	}
	return strcmp(end, "\n") ? -EINVAL : 0;
}

static int get_tunables(const char *cache, struct tunables *t)
{
	int ret;

	ret = read_ulong(cache, "cpu_queue_size", &t->queue);
	if (!ret)
		ret = read_ulong(cache, "cpu_batch_size", &t->batch);
	if (!ret)
		ret = read_ulong(cache, "shared_queue_size", &t->shared);
	return ret;
}

/*
 * The queue goes first: a batch is only valid up to the current queue size,
 * and lowering the queue below the batch adjusts the batch by itself.
 */
static int set_tunables(const char *cache, const struct tunables *t)
{
	int ret;

	ret = write_ulong(cache, "cpu_queue_size", t->queue);
	if (!ret)
		ret = write_ulong(cache, "cpu_batch_size", t->batch);
	if (!ret)
		ret = write_ulong(cache, "shared_queue_size", t->shared);
	return ret;
}

static bool sleb_present(void)
{
	return access(SLEB_PROBE, F_OK) == 0;
}

/*
 * Mark the calling test skipped unless this is a SLEB kernel and we are
 * root; every test body starts with "if (!sleb_ready(_metadata)) return;".
 * (A SKIP() in FIXTURE_SETUP() would not stop the 6.1 harness from running
 * the test body.)
 */
static bool sleb_ready(struct __test_metadata *_metadata)
{
	if (!sleb_present())
		SKIP(return false, "not a SLEB kernel (no %s)", SLEB_PROBE);
	if (geteuid())
		SKIP(return false, "must be run as root");
	return true;
}

/* --- helpers with assertions, for test bodies only ---------------------- */

static unsigned long attr_ulong(struct __test_metadata *_metadata,
				const char *cache, const char *attr)
{
	unsigned long val = 0;

	ASSERT_EQ(0, read_ulong(cache, attr, &val)) {
		TH_LOG("%s/%s does not read as \"<decimal>\\n\"", cache, attr);
	}
	return val;
}

static void set_attr_ok(struct __test_metadata *_metadata, const char *cache,
			const char *attr, const char *val)
{
	ASSERT_EQ(0, write_attr(cache, attr, val)) {
		TH_LOG("writing \"%s\" to %s/%s was refused", val, cache, attr);
	}
}

/* A valid write must be accepted and read back as "<val>\n". */
static void expect_accepted(struct __test_metadata *_metadata,
			    const char *cache, const char *attr,
			    const char *val)
{
	char want[64], buf[ATTR_BUF];

	snprintf(want, sizeof(want), "%lu\n", strtoul(val, NULL, 10));
	EXPECT_EQ(0, write_attr(cache, attr, val)) {
		TH_LOG("writing \"%s\" to %s/%s was refused", val, cache, attr);
	}
	ASSERT_LT(0, read_attr(cache, attr, buf, sizeof(buf)));
	EXPECT_STREQ(want, buf) {
		TH_LOG("%s/%s after writing \"%s\"", cache, attr, val);
	}
}

/* An invalid write must fail with EINVAL and leave the value alone. */
static void expect_rejected(struct __test_metadata *_metadata,
			    const char *cache, const char *attr,
			    const char *val)
{
	unsigned long before, after;

	before = attr_ulong(_metadata, cache, attr);
	EXPECT_EQ(-EINVAL, write_attr(cache, attr, val)) {
		TH_LOG("writing \"%s\" to %s/%s", val, cache, attr);
	}
	after = attr_ulong(_metadata, cache, attr);
	EXPECT_EQ(before, after) {
		TH_LOG("%s/%s changed by rejected write \"%s\"",
		       cache, attr, val);
	}
}

static void expect_tunables(struct __test_metadata *_metadata,
			    const char *cache, unsigned long queue,
			    unsigned long batch, unsigned long shared)
{
	EXPECT_EQ(queue, attr_ulong(_metadata, cache, "cpu_queue_size"));
	EXPECT_EQ(batch, attr_ulong(_metadata, cache, "cpu_batch_size"));
	EXPECT_EQ(shared, attr_ulong(_metadata, cache, "shared_queue_size"));
}

static void set_tunables_ok(struct __test_metadata *_metadata,
			    const char *cache, unsigned long queue,
			    unsigned long batch, unsigned long shared)
{
	struct tunables t = { queue, batch, shared };

	ASSERT_EQ(0, set_tunables(cache, &t)) {
		TH_LOG("cannot set %s to %lu/%lu/%lu",
		       cache, queue, batch, shared);
	}
	expect_tunables(_metadata, cache, queue, batch, shared);
}

/* The value must be "<decimal>\n" within [@min, @max]. */
static void expect_in_range(struct __test_metadata *_metadata,
			    const char *cache, const char *attr,
			    unsigned long min, unsigned long max)
{
	unsigned long val = attr_ulong(_metadata, cache, attr);

	EXPECT_LE(min, val) {
		TH_LOG("%s/%s = %lu", cache, attr, val);
	}
	EXPECT_GE(max, val) {
		TH_LOG("%s/%s = %lu", cache, attr, val);
	}
}

/*
 * Drop to nobody in a child and try to write @val to @path.  Returns the
 * errno the child saw (0 if the write went through).
 */
static int unprivileged_write(struct __test_metadata *_metadata,
			      const char *path, const char *val)
{
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int ret;

		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(CHILD_NOT_DROPPED);
		ret = write_file(path, val, strlen(val));
		_exit(-ret);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_NE(CHILD_NOT_DROPPED, WEXITSTATUS(status)) {
		TH_LOG("child could not drop root privileges");
	}
	return WEXITSTATUS(status);
}

/* Read /proc/slabinfo into a malloc()ed buffer. */
static char *read_slabinfo(struct __test_metadata *_metadata)
{
	size_t size = 1 << 16;
	ssize_t len;
	char *buf;

	for (;;) {
		buf = malloc(size);
		ASSERT_NE(NULL, buf);
		len = read_file(SLABINFO, buf, size);
		ASSERT_LE(0, len) {
			TH_LOG("cannot read %s: %s", SLABINFO, strerror(-len));
		}
		if ((size_t)len < size - 1)
			return buf;
		free(buf);
		size *= 2;
	}
}

/*
 * Parse one data line of /proc/slabinfo: the name and eleven numbers, nothing
 * after them.  Returns the number of fields, SLABINFO_FIELDS when well-formed.
 */
static int parse_slabinfo_line(const char *line, struct slabinfo_line *l)
{
	int n = 0, fields;

	fields = sscanf(line,
			"%63s %lu %lu %u %u %u : tunables %u %u %u : slabdata %lu %lu %lu %n",
			l->name, &l->active_objs, &l->num_objs, &l->objsize,
			&l->objperslab, &l->pagesperslab, &l->limit,
			&l->batchcount, &l->sharedfactor, &l->active_slabs,
			&l->num_slabs, &l->sharedavail, &n);
	if (fields != SLABINFO_FIELDS)
		return fields < 0 ? -EINVAL : fields;
	return line[n] ? -EINVAL : SLABINFO_FIELDS;
}

/* Find the /proc/slabinfo line of @cache. */
static void slabinfo_find(struct __test_metadata *_metadata, const char *cache,
			  struct slabinfo_line *l)
{
	char *buf, *line, *save;
	bool found = false;

	buf = read_slabinfo(_metadata);
	line = strtok_r(buf, "\n", &save);
	/* Skip the two header lines. */
	if (line)
		line = strtok_r(NULL, "\n", &save);
	while (!found && line && (line = strtok_r(NULL, "\n", &save))) {
		if (parse_slabinfo_line(line, l) == SLABINFO_FIELDS && !strcmp(l->name, cache))
			found = true;
	}
	free(buf);
	ASSERT_TRUE(found) {
		TH_LOG("no well-formed line for %s in %s", cache, SLABINFO);
	}
}

static void expect_slabinfo_matches_sysfs(struct __test_metadata *_metadata,
					  const char *cache)
{
	struct slabinfo_line l;
	struct tunables t;

	ASSERT_EQ(0, get_tunables(cache, &t));
	slabinfo_find(_metadata, cache, &l);
	EXPECT_EQ(t.queue, l.limit);
	EXPECT_EQ(t.batch, l.batchcount);
	EXPECT_EQ(t.shared, l.sharedfactor);
}

static int write_slabinfo(const char *line)
{
	return write_file(SLABINFO, line, strlen(line));
}

/* A bad /proc/slabinfo line must fail with EINVAL and change nothing. */
static void expect_slabinfo_rejected(struct __test_metadata *_metadata,
				     const char *line)
{
	struct tunables before, after;

	ASSERT_EQ(0, get_tunables(CACHE, &before));
	EXPECT_EQ(-EINVAL, write_slabinfo(line)) {
		TH_LOG("writing \"%s\" to %s", line, SLABINFO);
	}
	ASSERT_EQ(0, get_tunables(CACHE, &after));
	EXPECT_EQ(before.queue, after.queue) {
		TH_LOG("cpu_queue_size changed by \"%s\"", line);
	}
	EXPECT_EQ(before.batch, after.batch) {
		TH_LOG("cpu_batch_size changed by \"%s\"", line);
	}
	EXPECT_EQ(before.shared, after.shared) {
		TH_LOG("shared_queue_size changed by \"%s\"", line);
	}
}

/* --- fixture: saves and restores the tunables of both caches ------------ */

FIXTURE(tunables) {
	bool saved;
	struct tunables orig;
	struct tunables orig2;
};

FIXTURE_SETUP(tunables)
{
	if (!sleb_present() || geteuid())
		return;	/* the test body skips */
	ASSERT_EQ(0, get_tunables(CACHE, &self->orig));
	ASSERT_EQ(0, get_tunables(CACHE2, &self->orig2));
	self->saved = true;
}

FIXTURE_TEARDOWN(tunables)
{
	/* No ASSERT here: it would jump back into the harness wrapper. */
	if (!self->saved)
		return;
	EXPECT_EQ(0, set_tunables(CACHE, &self->orig)) {
		TH_LOG("cannot restore %s to %lu/%lu/%lu", CACHE,
		       self->orig.queue, self->orig.batch, self->orig.shared);
	}
	EXPECT_EQ(0, set_tunables(CACHE2, &self->orig2)) {
		TH_LOG("cannot restore %s to %lu/%lu/%lu", CACHE2,
		       self->orig2.queue, self->orig2.batch, self->orig2.shared);
	}
}

/* --- cpu_queue_size ------------------------------------------------------ */

TEST_F(tunables, queue_size_reads_as_decimal_in_range)
{
	if (!sleb_ready(_metadata))
		return;
	expect_in_range(_metadata, CACHE, "cpu_queue_size", QUEUE_MIN, QUEUE_MAX);
	expect_in_range(_metadata, CACHE2, "cpu_queue_size", QUEUE_MIN, QUEUE_MAX);
}

TEST_F(tunables, queue_size_accepts_valid_value)
{
	if (!sleb_ready(_metadata))
		return;
	expect_accepted(_metadata, CACHE, "cpu_queue_size", "64");
	/* What echo(1) writes. */
	expect_accepted(_metadata, CACHE, "cpu_queue_size", "120\n");
	expect_accepted(_metadata, CACHE2, "cpu_queue_size", "64");
}

TEST_F(tunables, queue_size_accepts_bounds)
{
	if (!sleb_ready(_metadata))
		return;
	expect_accepted(_metadata, CACHE, "cpu_queue_size", "4");
	expect_accepted(_metadata, CACHE, "cpu_queue_size", "10000");
	expect_accepted(_metadata, CACHE, "cpu_queue_size", "4");
}

TEST_F(tunables, queue_size_rejects_too_small)
{
	if (!sleb_ready(_metadata))
		return;
	expect_rejected(_metadata, CACHE, "cpu_queue_size", "3");
	expect_rejected(_metadata, CACHE, "cpu_queue_size", "0");
}

TEST_F(tunables, queue_size_rejects_too_large)
{
	if (!sleb_ready(_metadata))
		return;
	expect_rejected(_metadata, CACHE, "cpu_queue_size", "10001");
	/* Overflows any integer type: EINVAL, not ERANGE. */
	expect_rejected(_metadata, CACHE, "cpu_queue_size",
			"99999999999999999999");
}

TEST_F(tunables, queue_size_rejects_negative)
{
	if (!sleb_ready(_metadata))
		return;
	expect_rejected(_metadata, CACHE, "cpu_queue_size", "-1");
}

TEST_F(tunables, queue_size_rejects_non_numeric)
{
	if (!sleb_ready(_metadata))
		return;
	expect_rejected(_metadata, CACHE, "cpu_queue_size", "abc");
	expect_rejected(_metadata, CACHE, "cpu_queue_size", "12abc");
}

TEST_F(tunables, queue_size_rejects_empty)
{
	unsigned long before;

	if (!sleb_ready(_metadata))
		return;
	expect_rejected(_metadata, CACHE, "cpu_queue_size", "\n");
	expect_rejected(_metadata, CACHE, "cpu_queue_size", "  ");
	/*
	 * sysfs itself completes a zero-byte write with 0 before the store
	 * method runs; whatever it returns, the value must not change.
	 */
	before = attr_ulong(_metadata, CACHE, "cpu_queue_size");
	write_attr(CACHE, "cpu_queue_size", "");
	EXPECT_EQ(before, attr_ulong(_metadata, CACHE, "cpu_queue_size"));
}

/* --- cpu_batch_size ------------------------------------------------------ */

TEST_F(tunables, batch_size_reads_as_decimal_in_range)
{
	unsigned long queue;

	if (!sleb_ready(_metadata))
		return;
	queue = attr_ulong(_metadata, CACHE, "cpu_queue_size");
	expect_in_range(_metadata, CACHE, "cpu_batch_size", 1, queue);
	queue = attr_ulong(_metadata, CACHE2, "cpu_queue_size");
	expect_in_range(_metadata, CACHE2, "cpu_batch_size", 1, queue);
}

TEST_F(tunables, batch_size_accepts_one)
{
	if (!sleb_ready(_metadata))
		return;
	set_attr_ok(_metadata, CACHE, "cpu_queue_size", "64");
	expect_accepted(_metadata, CACHE, "cpu_batch_size", "1");
}

TEST_F(tunables, batch_size_accepts_queue_size)
{
	if (!sleb_ready(_metadata))
		return;
	set_attr_ok(_metadata, CACHE, "cpu_queue_size", "64");
	expect_accepted(_metadata, CACHE, "cpu_batch_size", "64");
	set_attr_ok(_metadata, CACHE, "cpu_queue_size", "10000");
	expect_accepted(_metadata, CACHE, "cpu_batch_size", "10000");
}

/* Guards the RFC defect that refused any batch below the queue size. */
TEST_F(tunables, batch_size_accepts_smaller_than_queue)
{
	if (!sleb_ready(_metadata))
		return;
	set_attr_ok(_metadata, CACHE, "cpu_queue_size", "64");
	expect_accepted(_metadata, CACHE, "cpu_batch_size", "16");
	expect_accepted(_metadata, CACHE, "cpu_batch_size", "63");
	expect_accepted(_metadata, CACHE, "cpu_batch_size", "32\n");
	EXPECT_EQ(64, attr_ulong(_metadata, CACHE, "cpu_queue_size"));
}

TEST_F(tunables, batch_size_rejects_zero)
{
	if (!sleb_ready(_metadata))
		return;
	expect_rejected(_metadata, CACHE, "cpu_batch_size", "0");
}

TEST_F(tunables, batch_size_rejects_above_queue_size)
{
	char val[32];
	unsigned long queue;

	if (!sleb_ready(_metadata))
		return;
	set_attr_ok(_metadata, CACHE, "cpu_queue_size", "64");
	expect_rejected(_metadata, CACHE, "cpu_batch_size", "65");
	/* Again for whatever queue size the cache had originally. */
	set_tunables_ok(_metadata, CACHE, self->orig.queue, self->orig.batch,
			self->orig.shared);
	queue = attr_ulong(_metadata, CACHE, "cpu_queue_size");
	snprintf(val, sizeof(val), "%lu", queue + 1);
	expect_rejected(_metadata, CACHE, "cpu_batch_size", val);
}

TEST_F(tunables, batch_size_rejects_non_numeric)
{
	if (!sleb_ready(_metadata))
		return;
	expect_rejected(_metadata, CACHE, "cpu_batch_size", "abc");
	expect_rejected(_metadata, CACHE, "cpu_batch_size", "-5");
}

TEST_F(tunables, batch_size_rejects_empty)
{
	if (!sleb_ready(_metadata))
		return;
	expect_rejected(_metadata, CACHE, "cpu_batch_size", "\n");
}

/* --- queue/batch interplay ----------------------------------------------- */

TEST_F(tunables, lowering_queue_below_batch_halves_batch)
{
	if (!sleb_ready(_metadata))
		return;
	set_tunables_ok(_metadata, CACHE, 64, 64, self->orig.shared);
	set_attr_ok(_metadata, CACHE, "cpu_queue_size", "10");
	EXPECT_EQ(10, attr_ulong(_metadata, CACHE, "cpu_queue_size"));
	EXPECT_EQ((10 + 1) / 2, attr_ulong(_metadata, CACHE, "cpu_batch_size"));

	/* Odd queue size: rounds up. */
	set_tunables_ok(_metadata, CACHE, 64, 40, self->orig.shared);
	set_attr_ok(_metadata, CACHE, "cpu_queue_size", "9");
	EXPECT_EQ(9, attr_ulong(_metadata, CACHE, "cpu_queue_size"));
	EXPECT_EQ((9 + 1) / 2, attr_ulong(_metadata, CACHE, "cpu_batch_size"));

	/* Down to the minimum. */
	set_tunables_ok(_metadata, CACHE, 10000, 10000, self->orig.shared);
	set_attr_ok(_metadata, CACHE, "cpu_queue_size", "4");
	EXPECT_EQ((4 + 1) / 2, attr_ulong(_metadata, CACHE, "cpu_batch_size"));
}

TEST_F(tunables, lowering_queue_to_batch_keeps_batch)
{
	if (!sleb_ready(_metadata))
		return;
	set_tunables_ok(_metadata, CACHE, 64, 20, self->orig.shared);
	set_attr_ok(_metadata, CACHE, "cpu_queue_size", "32");
	EXPECT_EQ(20, attr_ulong(_metadata, CACHE, "cpu_batch_size"));
	set_attr_ok(_metadata, CACHE, "cpu_queue_size", "20");
	EXPECT_EQ(20, attr_ulong(_metadata, CACHE, "cpu_batch_size"));
}

TEST_F(tunables, raising_queue_keeps_batch)
{
	if (!sleb_ready(_metadata))
		return;
	set_tunables_ok(_metadata, CACHE, 32, 20, self->orig.shared);
	set_attr_ok(_metadata, CACHE, "cpu_queue_size", "1000");
	EXPECT_EQ(1000, attr_ulong(_metadata, CACHE, "cpu_queue_size"));
	EXPECT_EQ(20, attr_ulong(_metadata, CACHE, "cpu_batch_size"));
	set_attr_ok(_metadata, CACHE, "cpu_queue_size", "10000");
	EXPECT_EQ(20, attr_ulong(_metadata, CACHE, "cpu_batch_size"));
}

/* --- shared_queue_size --------------------------------------------------- */

TEST_F(tunables, shared_size_reads_as_decimal_in_range)
{
	if (!sleb_ready(_metadata))
		return;
	expect_in_range(_metadata, CACHE, "shared_queue_size", 0, SHARED_MAX);
	expect_in_range(_metadata, CACHE2, "shared_queue_size", 0, SHARED_MAX);
}

TEST_F(tunables, shared_size_accepts_valid_values)
{
	if (!sleb_ready(_metadata))
		return;
	expect_accepted(_metadata, CACHE, "shared_queue_size", "0");
	expect_accepted(_metadata, CACHE, "shared_queue_size", "100");
	expect_accepted(_metadata, CACHE, "shared_queue_size", "10000");
	expect_accepted(_metadata, CACHE, "shared_queue_size", "0");
}

TEST_F(tunables, shared_size_rejects_too_large)
{
	if (!sleb_ready(_metadata))
		return;
	set_attr_ok(_metadata, CACHE, "shared_queue_size", "100");
	expect_rejected(_metadata, CACHE, "shared_queue_size", "10001");
}

TEST_F(tunables, shared_size_rejects_invalid)
{
	if (!sleb_ready(_metadata))
		return;
	expect_rejected(_metadata, CACHE, "shared_queue_size", "-1");
	expect_rejected(_metadata, CACHE, "shared_queue_size", "x");
	expect_rejected(_metadata, CACHE, "shared_queue_size", "\n");
}

/* --- caches are tuned independently; writes need root -------------------- */

TEST_F(tunables, tuning_one_cache_leaves_other_alone)
{
	struct tunables other, mine;

	if (!sleb_ready(_metadata))
		return;
	/* Values that differ from both caches' current ones. */
	set_tunables_ok(_metadata, CACHE2, 200, 50, 300);
	ASSERT_EQ(0, get_tunables(CACHE2, &other));
	set_tunables_ok(_metadata, CACHE, 48, 12, 24);
	expect_tunables(_metadata, CACHE2, other.queue, other.batch,
			other.shared);

	ASSERT_EQ(0, get_tunables(CACHE, &mine));
	set_tunables_ok(_metadata, CACHE2, 100, 30, 0);
	expect_tunables(_metadata, CACHE, mine.queue, mine.batch, mine.shared);
}

TEST_F(tunables, unprivileged_write_is_denied)
{
	static const char * const attrs[] = {
		"cpu_queue_size", "cpu_batch_size", "shared_queue_size",
	};
	char path[PATH_MAX];
	unsigned long before;
	unsigned int i;
	int err;

	if (!sleb_ready(_metadata))
		return;
	for (i = 0; i < ARRAY_SIZE(attrs); i++) {
		before = attr_ulong(_metadata, CACHE, attrs[i]);
		attr_path(path, sizeof(path), CACHE, attrs[i]);
		err = unprivileged_write(_metadata, path, "5");
		EXPECT_TRUE(err == EACCES || err == EPERM) {
			TH_LOG("nobody writing %s: errno %d", attrs[i], err);
		}
		EXPECT_EQ(before, attr_ulong(_metadata, CACHE, attrs[i]));
	}
}

/* --- shrink -------------------------------------------------------------- */

TEST_F(tunables, shrink_accepts_one)
{
	if (!sleb_ready(_metadata))
		return;
	EXPECT_EQ(0, write_attr(CACHE, "shrink", "1"));
	EXPECT_EQ(0, write_attr(CACHE, "shrink", "1\n"));
	EXPECT_EQ(0, write_attr(CACHE2, "shrink", "1"));
}

TEST_F(tunables, shrink_rejects_other_input)
{
	if (!sleb_ready(_metadata))
		return;
	EXPECT_EQ(-EINVAL, write_attr(CACHE, "shrink", "2"));
	EXPECT_EQ(-EINVAL, write_attr(CACHE, "shrink", "x"));
}

/* --- read-only attributes ------------------------------------------------ */

FIXTURE(attrs) {
	int unused;
};

FIXTURE_SETUP(attrs)
{
}

FIXTURE_TEARDOWN(attrs)
{
}

static const char * const numeric_attrs[] = {
	"object_size", "slab_size", "objs_per_slab", "order", "align",
	"min_partial", "aliases",
	"hwcache_align", "reclaim_account", "destroy_by_rcu", "cache_dma",
};

static const char * const flag_attrs[] = {
	"hwcache_align", "reclaim_account", "destroy_by_rcu", "cache_dma",
};

static const char * const count_attrs[] = {
	"objects", "total_objects", "slabs", "partial",
};

TEST_F(attrs, readonly_attrs_are_numbers)
{
	unsigned int i;

	if (!sleb_ready(_metadata))
		return;
	for (i = 0; i < ARRAY_SIZE(numeric_attrs); i++) {
		attr_ulong(_metadata, CACHE, numeric_attrs[i]);
		attr_ulong(_metadata, CACHE2, numeric_attrs[i]);
	}
}

TEST_F(attrs, flag_attrs_are_boolean)
{
	unsigned int i;

	if (!sleb_ready(_metadata))
		return;
	for (i = 0; i < ARRAY_SIZE(flag_attrs); i++) {
		expect_in_range(_metadata, CACHE, flag_attrs[i], 0, 1);
		expect_in_range(_metadata, CACHE2, flag_attrs[i], 0, 1);
	}
}

TEST_F(attrs, ctor_is_readable)
{
	char buf[ATTR_BUF];
	ssize_t len;

	if (!sleb_ready(_metadata))
		return;
	/* kmalloc caches have no constructor: empty, or one line. */
	len = read_attr(CACHE, "ctor", buf, sizeof(buf));
	ASSERT_LE(0, len);
	if (len)
		EXPECT_EQ('\n', buf[len - 1]);
}

TEST_F(attrs, object_size_matches_cache_name)
{
	if (!sleb_ready(_metadata))
		return;
	EXPECT_EQ(64, attr_ulong(_metadata, CACHE, "object_size"));
	EXPECT_EQ(256, attr_ulong(_metadata, CACHE2, "object_size"));
}

TEST_F(attrs, slab_geometry_is_consistent)
{
	static const char * const caches[] = { CACHE, CACHE2 };
	unsigned long object_size, slab_size, objs, order;
	unsigned long page_size = sysconf(_SC_PAGESIZE);
	unsigned int i;

	if (!sleb_ready(_metadata))
		return;
	for (i = 0; i < ARRAY_SIZE(caches); i++) {
		object_size = attr_ulong(_metadata, caches[i], "object_size");
		slab_size = attr_ulong(_metadata, caches[i], "slab_size");
		objs = attr_ulong(_metadata, caches[i], "objs_per_slab");
		order = attr_ulong(_metadata, caches[i], "order");
		TH_LOG("%s: object_size %lu slab_size %lu objs_per_slab %lu order %lu",
		       caches[i], object_size, slab_size, objs, order);
		EXPECT_GE(slab_size, object_size);
		EXPECT_LE(1, objs);
		ASSERT_GT(16, order);
		EXPECT_GE(page_size << order, objs * slab_size);
	}
}

/* Read a count attribute; it must have the "<total>[ N<n>=<count>]...\n" form. */
static unsigned long read_count(struct __test_metadata *_metadata,
				const char *cache, const char *attr,
				unsigned long *node_sum, int *nodes)
{
	unsigned long total = 0;
	char buf[ATTR_BUF];

	ASSERT_LT(0, read_attr(cache, attr, buf, sizeof(buf))) {
		TH_LOG("cannot read %s/%s", cache, attr);
	}
	ASSERT_EQ(0, parse_count_line(buf, &total, node_sum, nodes)) {
		TH_LOG("%s/%s: bad format \"%s\"", cache, attr, buf);
	}
	return total;
}

/*
 * The per-node figures must add up to the total.  The kernel may count the
 * total and each node in separate passes while objects come and go, so one
 * consistent read out of ten is enough.
 */
TEST_F(attrs, count_attrs_sum_over_nodes)
{
	unsigned long total = 0, node_sum = 0;
	unsigned int i, try;
	int nodes = 0;

	if (!sleb_ready(_metadata))
		return;
	for (i = 0; i < ARRAY_SIZE(count_attrs); i++) {
		for (try = 0; try < 10; try++) {
			total = read_count(_metadata, CACHE, count_attrs[i],
					   &node_sum, &nodes);
			if (!nodes || node_sum == total)
				break;
		}
		if (nodes) {
			EXPECT_EQ(total, node_sum) {
				TH_LOG("%s/%s: %d nodes", CACHE, count_attrs[i],
				       nodes);
			}
		}
	}
}

TEST_F(attrs, objects_within_total_objects)
{
	unsigned long objects = 0, total_objects = 0, node_sum;
	unsigned int try;
	int nodes;

	if (!sleb_ready(_metadata))
		return;
	/* Two reads race with allocations: retry before calling it a bug. */
	for (try = 0; try < 10; try++) {
		total_objects = read_count(_metadata, CACHE, "total_objects",
					   &node_sum, &nodes);
		objects = read_count(_metadata, CACHE, "objects", &node_sum,
				     &nodes);
		if (objects <= total_objects)
			break;
	}
	EXPECT_LE(objects, total_objects);
	EXPECT_LT(0, total_objects);
}

TEST_F(attrs, readonly_attr_write_fails)
{
	static const char * const ro[] = {
		"object_size", "slab_size", "objs_per_slab", "order",
	};
	unsigned long before;
	unsigned int i;

	if (!sleb_ready(_metadata))
		return;
	for (i = 0; i < ARRAY_SIZE(ro); i++) {
		before = attr_ulong(_metadata, CACHE, ro[i]);
		EXPECT_GT(0, write_attr(CACHE, ro[i], "128")) {
			TH_LOG("write to read-only %s/%s succeeded", CACHE, ro[i]);
		}
		EXPECT_EQ(before, attr_ulong(_metadata, CACHE, ro[i]));
	}
}

/* --- /proc/slabinfo ------------------------------------------------------ */

TEST_F(tunables, slabinfo_header_is_version_2_1)
{
	char *buf, *line, *save;

	if (!sleb_ready(_metadata))
		return;
	buf = read_slabinfo(_metadata);
	line = strtok_r(buf, "\n", &save);
	ASSERT_NE(NULL, line);
	EXPECT_STREQ("slabinfo - version: 2.1", line);
	line = strtok_r(NULL, "\n", &save);
	ASSERT_NE(NULL, line);
	EXPECT_EQ(0, strncmp(line, "# name", 6));
	EXPECT_NE(NULL, strstr(line,
			       ": tunables <limit> <batchcount> <sharedfactor>"));
	EXPECT_NE(NULL, strstr(line,
			       ": slabdata <active_slabs> <num_slabs> <sharedavail>"));
	free(buf);
}

TEST_F(tunables, slabinfo_lines_have_slab_format)
{
	char *buf, *line, *save;
	struct slabinfo_line l;
	int lines = 0;

	if (!sleb_ready(_metadata))
		return;
	buf = read_slabinfo(_metadata);
	line = strtok_r(buf, "\n", &save);
	if (line)
		line = strtok_r(NULL, "\n", &save);
	while (line && (line = strtok_r(NULL, "\n", &save))) {
		lines++;
		EXPECT_EQ(SLABINFO_FIELDS, parse_slabinfo_line(line, &l)) {
			TH_LOG("bad line \"%s\"", line);
		}
	}
	free(buf);
	EXPECT_LT(0, lines);
}

TEST_F(tunables, slabinfo_counts_are_consistent)
{
	char *buf, *line, *save;
	struct slabinfo_line l;

	if (!sleb_ready(_metadata))
		return;
	buf = read_slabinfo(_metadata);
	line = strtok_r(buf, "\n", &save);
	if (line)
		line = strtok_r(NULL, "\n", &save);
	while (line && (line = strtok_r(NULL, "\n", &save))) {
		if (parse_slabinfo_line(line, &l) != SLABINFO_FIELDS)
			continue;	/* reported by slabinfo_lines_have_slab_format */
		EXPECT_LE(l.active_objs, l.num_objs) {
			TH_LOG("\"%s\"", line);
		}
		EXPECT_LE(l.active_slabs, l.num_slabs) {
			TH_LOG("\"%s\"", line);
		}
	}
	free(buf);
}

TEST_F(tunables, slabinfo_tunables_match_sysfs)
{
	if (!sleb_ready(_metadata))
		return;
	expect_slabinfo_matches_sysfs(_metadata, CACHE);
	expect_slabinfo_matches_sysfs(_metadata, CACHE2);
}

TEST_F(tunables, slabinfo_tunables_follow_sysfs_changes)
{
	if (!sleb_ready(_metadata))
		return;
	set_tunables_ok(_metadata, CACHE, 48, 12, 24);
	expect_slabinfo_matches_sysfs(_metadata, CACHE);
	set_tunables_ok(_metadata, CACHE, 200, 7, 0);
	expect_slabinfo_matches_sysfs(_metadata, CACHE);
}

TEST_F(tunables, slabinfo_write_sets_tunables)
{
	if (!sleb_ready(_metadata))
		return;
	set_tunables_ok(_metadata, CACHE, 40, 10, 20);
	ASSERT_EQ(0, write_slabinfo(CACHE " 32 16 8"));
	expect_tunables(_metadata, CACHE, 32, 16, 8);
	expect_slabinfo_matches_sysfs(_metadata, CACHE);
}

TEST_F(tunables, slabinfo_write_accepts_trailing_newline)
{
	if (!sleb_ready(_metadata))
		return;
	set_tunables_ok(_metadata, CACHE, 40, 10, 20);
	ASSERT_EQ(0, write_slabinfo(CACHE " 32 16 8\n"));
	expect_tunables(_metadata, CACHE, 32, 16, 8);
}

TEST_F(tunables, slabinfo_write_touches_only_named_cache)
{
	struct tunables other;

	if (!sleb_ready(_metadata))
		return;
	set_tunables_ok(_metadata, CACHE, 40, 10, 20);
	ASSERT_EQ(0, get_tunables(CACHE2, &other));
	ASSERT_EQ(0, write_slabinfo(CACHE2 " 100 50 25"));
	expect_tunables(_metadata, CACHE2, 100, 50, 25);
	expect_tunables(_metadata, CACHE, 40, 10, 20);
}

TEST_F(tunables, slabinfo_write_rejects_unknown_cache)
{
	if (!sleb_ready(_metadata))
		return;
	set_tunables_ok(_metadata, CACHE, 40, 10, 20);
	expect_slabinfo_rejected(_metadata, "no-such-cache 32 16 8");
}

TEST_F(tunables, slabinfo_write_rejects_missing_field)
{
	if (!sleb_ready(_metadata))
		return;
	set_tunables_ok(_metadata, CACHE, 40, 10, 20);
	expect_slabinfo_rejected(_metadata, CACHE " 32 16");
}

TEST_F(tunables, slabinfo_write_rejects_non_numeric)
{
	if (!sleb_ready(_metadata))
		return;
	set_tunables_ok(_metadata, CACHE, 40, 10, 20);
	expect_slabinfo_rejected(_metadata, CACHE " abc 16 8");
}

TEST_F(tunables, slabinfo_write_rejects_limit_out_of_range)
{
	if (!sleb_ready(_metadata))
		return;
	set_tunables_ok(_metadata, CACHE, 40, 10, 20);
	expect_slabinfo_rejected(_metadata, CACHE " 3 1 0");
}

TEST_F(tunables, slabinfo_write_rejects_batch_above_limit)
{
	if (!sleb_ready(_metadata))
		return;
	set_tunables_ok(_metadata, CACHE, 40, 10, 20);
	expect_slabinfo_rejected(_metadata, CACHE " 32 33 0");
}

TEST_F(tunables, slabinfo_write_rejects_shared_out_of_range)
{
	if (!sleb_ready(_metadata))
		return;
	set_tunables_ok(_metadata, CACHE, 40, 10, 20);
	expect_slabinfo_rejected(_metadata, CACHE " 32 16 10001");
}

TEST_F(tunables, slabinfo_mode_denies_group_and_other_write)
{
	struct stat st;

	if (!sleb_ready(_metadata))
		return;
	ASSERT_EQ(0, stat(SLABINFO, &st));
	TH_LOG("%s mode %04o", SLABINFO, st.st_mode & 07777);
	EXPECT_EQ(0, st.st_mode & 0022);
	/* Tuning through /proc/slabinfo is part of the ABI. */
	EXPECT_NE(0, st.st_mode & 0200);
	EXPECT_EQ(0, st.st_uid);
}

TEST_F(tunables, slabinfo_write_denied_to_unprivileged)
{
	int err;

	if (!sleb_ready(_metadata))
		return;
	set_tunables_ok(_metadata, CACHE, 40, 10, 20);
	err = unprivileged_write(_metadata, SLABINFO, CACHE " 32 16 8");
	EXPECT_TRUE(err == EACCES || err == EPERM) {
		TH_LOG("nobody writing %s: errno %d", SLABINFO, err);
	}
	expect_tunables(_metadata, CACHE, 40, 10, 20);
}

TEST_HARNESS_MAIN

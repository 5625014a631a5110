// SPDX-License-Identifier: GPL-2.0
/*
 * Object placement of the SLEB slab allocator on a machine with two memory
 * nodes: a task's memory policy (MPOL_BIND, MPOL_PREFERRED,
 * MPOL_INTERLEAVE) places the objects it allocates as SLAB placed them;
 * without one, objects are local.
 *
 * The task runs on a CPU of node 0 and opens AF_UNIX socket pairs: every
 * socket takes a sock_inode_cache object and a filp object, from two
 * caches of different sizes.  The per-node "objects" counts in sysfs before and
 * after give where the new objects went.
 *
 * Needs root, CONFIG_SLEB=y and nodes 0 and 1 with memory and CPUs; every
 * test is skipped otherwise.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <linux/mempolicy.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest_harness.h"

#define SLAB_SYSFS	"/sys/kernel/slab"
#define SOCK_CACHE	"sock_inode_cache"
#define FILP_CACHE	"filp"
#define SLEB_PROBE	SLAB_SYSFS "/kmalloc-64/cpu_queue_size"
#define NODE_SYSFS	"/sys/devices/system/node"

/* Socket pairs per measurement: two objects of each cache per pair. */
#define PAIRS		2000
#define OBJECTS		(2 * PAIRS)

/* Per-node object counts of one cache. */
struct node_objects {
	long n0;
	long n1;
};

/* Read "total N0=a N1=b" from /sys/kernel/slab/<cache>/objects. */
static int read_objects(const char *cache, struct node_objects *o)
{
	char path[256], buf[512], *p;
	ssize_t len;
	int fd;

	snprintf(path, sizeof(path), SLAB_SYSFS "/%s/objects", cache);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -EIO;
	buf[len] = '\0';
	p = strstr(buf, " N0=");
	if (!p || sscanf(p, " N0=%ld", &o->n0) != 1)
		return -EINVAL;
	p = strstr(buf, " N1=");
	if (!p || sscanf(p, " N1=%ld", &o->n1) != 1)
		return -EINVAL;
	return 0;
}

/* The first CPU of node @node, or -1. */
static int first_cpu_of(int node)
{
	char path[128];
	FILE *f;
	int cpu;

	snprintf(path, sizeof(path), NODE_SYSFS "/node%d/cpulist", node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &cpu) != 1)
		cpu = -1;
	fclose(f);
	return cpu;
}

/* Whether node @node has memory (a nonzero MemTotal). */
static int node_has_memory(int node)
{
	char path[128], line[256];
	long kb = 0;
	FILE *f;

	snprintf(path, sizeof(path), NODE_SYSFS "/node%d/meminfo", node);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %*d MemTotal: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb > 0;
}

static long set_policy(int mode, unsigned long nodes)
{
	unsigned long mask = nodes;

	return syscall(SYS_set_mempolicy, mode, nodes ? &mask : NULL,
		       nodes ? 8 * sizeof(mask) : 0);
}

/* The per-node growth of a cache while the task holds PAIRS socket pairs. */
struct placement {
	struct node_objects sock;	/* SOCK_CACHE */
	struct node_objects filp;	/* FILP_CACHE */
};

static long total(const struct node_objects *o)
{
	return o->n0 + o->n1;
}

/*
 * After closing the sockets: wait (up to 10 s) until their inodes and files
 * are freed, which takes an RCU grace period, so that the next test starts
 * from counts that no longer move.
 */
static void wait_freed(const struct node_objects *s0, const struct node_objects *l0)
{
	struct node_objects s, l;
	int i;

	for (i = 0; i < 100; i++) {
		if (read_objects(SOCK_CACHE, &s) || read_objects(FILP_CACHE, &l))
			return;
		if (total(&s) <= total(s0) + OBJECTS / 50 && total(&l) <= total(l0) + OBJECTS / 50)
			return;
		usleep(100 * 1000);
	}
}

static int measure(struct placement *pl, int (*setup)(void), void (*undo)(void))
{
	struct node_objects s0, s1, l0, l1;
	static int fds[PAIRS][2];
	int i, ret = 0;

	if (read_objects(SOCK_CACHE, &s0) || read_objects(FILP_CACHE, &l0))
		return -ENOENT;
	if (setup && setup())
		return -EPERM;
	for (i = 0; i < PAIRS; i++) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds[i])) {
			ret = -errno;
			break;
		}
	}
	if (undo)
		undo();
	if (!ret && (read_objects(SOCK_CACHE, &s1) || read_objects(FILP_CACHE, &l1)))
		ret = -ENOENT;
	while (i--) {
		close(fds[i][0]);
		close(fds[i][1]);
	}
	wait_freed(&s0, &l0);
	if (ret)
		return ret;
	pl->sock.n0 = s1.n0 - s0.n0;
	pl->sock.n1 = s1.n1 - s0.n1;
	pl->filp.n0 = l1.n0 - l0.n0;
	pl->filp.n1 = l1.n1 - l0.n1;
	return 0;
}

static void show(struct __test_metadata *_metadata, const char *what,
		 const struct placement *pl)
{
	TH_LOG("%s: %s +%ld on node 0, +%ld on node 1; %s +%ld, +%ld", what,
	       SOCK_CACHE, pl->sock.n0, pl->sock.n1,
	       FILP_CACHE, pl->filp.n0, pl->filp.n1);
}

/* Percentage of @o that went to node 1. */
static long node1_percent(const struct node_objects *o)
{
	long all = total(o);

	return all > 0 ? 100 * o->n1 / all : -1;
}

static int policy_bind1(void)
{
	return set_policy(MPOL_BIND, 1UL << 1) ? -1 : 0;
}

static int policy_preferred1(void)
{
	return set_policy(MPOL_PREFERRED, 1UL << 1) ? -1 : 0;
}

static int policy_interleave(void)
{
	return set_policy(MPOL_INTERLEAVE, 3UL) ? -1 : 0;
}

static void policy_default(void)
{
	set_policy(MPOL_DEFAULT, 0);
}

/*
 * Skip the calling test unless this is SLEB on two nodes with memory and
 * CPUs; pin it to the first CPU of node 0, stored in @cpu0.
 */
static bool numa_ready(struct __test_metadata *_metadata, int *cpu0)
{
	struct rlimit rl = { OBJECTS + 64, OBJECTS + 64 };
	cpu_set_t set;

	if (access(SLEB_PROBE, F_OK))
		SKIP(return false, "not SLEB (%s missing)", SLEB_PROBE);
	if (!node_has_memory(0) || !node_has_memory(1))
		SKIP(return false, "needs nodes 0 and 1 with memory");
	*cpu0 = first_cpu_of(0);
	if (*cpu0 < 0 || first_cpu_of(1) < 0)
		SKIP(return false, "needs CPUs on nodes 0 and 1");
	if (setrlimit(RLIMIT_NOFILE, &rl))
		SKIP(return false, "setrlimit(RLIMIT_NOFILE, %d): %s", OBJECTS + 64,
		     strerror(errno));
	CPU_ZERO(&set);
	CPU_SET(*cpu0, &set);
	EXPECT_EQ(0, sched_setaffinity(0, sizeof(set), &set))
		return false;
	return true;
}

/* Without a policy, a task on node 0 gets node 0's objects. */
TEST(default_policy_is_local)
{
	struct placement pl;
	int cpu0;

	if (!numa_ready(_metadata, &cpu0))
		return;
	ASSERT_EQ(0, measure(&pl, NULL, NULL));
	show(_metadata, "default", &pl);
	EXPECT_GE(pl.sock.n0, OBJECTS * 9 / 10);
	EXPECT_LE(node1_percent(&pl.sock), 5);
	EXPECT_LE(node1_percent(&pl.filp), 5);
}

/* Under @setup, a task on node 0 gets node 1's objects, in every cache. */
static void expect_on_node1(struct __test_metadata *_metadata, const char *what,
			    int (*setup)(void))
{
	struct placement pl;
	int cpu0;

	if (!numa_ready(_metadata, &cpu0))
		return;
	ASSERT_EQ(0, measure(&pl, setup, policy_default));
	show(_metadata, what, &pl);
	EXPECT_GE(pl.sock.n1, OBJECTS * 9 / 10);
	EXPECT_GE(node1_percent(&pl.sock), 95);
	EXPECT_GE(node1_percent(&pl.filp), 95);
}

/* MPOL_BIND or MPOL_PREFERRED to node 1 from a CPU of node 0. */
TEST(bind_places_on_the_bound_node)
{
	expect_on_node1(_metadata, "bind 1", policy_bind1);
}

TEST(preferred_places_on_the_preferred_node)
{
	expect_on_node1(_metadata, "preferred 1", policy_preferred1);
}

/*
 * MPOL_INTERLEAVE over nodes 0-1: about half of the objects on each node.
 * The policy alternates nodes per allocation, whatever the cache, and a
 * socket takes several objects: one cache can land mostly on one node
 * (SLAB does the same), so the two caches are judged together.
 */
TEST(interleave_spreads_over_both_nodes)
{
	struct node_objects both;
	struct placement pl;
	int cpu0;

	if (!numa_ready(_metadata, &cpu0))
		return;
	ASSERT_EQ(0, measure(&pl, policy_interleave, policy_default));
	show(_metadata, "interleave 0-1", &pl);
	both.n0 = pl.sock.n0 + pl.filp.n0;
	both.n1 = pl.sock.n1 + pl.filp.n1;
	EXPECT_GE(total(&both), 2 * OBJECTS * 9 / 10);
	EXPECT_GE(node1_percent(&both), 35);
	EXPECT_LE(node1_percent(&both), 65);
}

TEST_HARNESS_MAIN

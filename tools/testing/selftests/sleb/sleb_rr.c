// SPDX-License-Identifier: GPL-2.0
/*
 * sleb_rr: a loopback request/response benchmark in the spirit of netperf's
 * TCP_RR and UDP_RR.  Every pair is a client and a server process; the
 * client sends a request of -s bytes, waits for the response of the same
 * size and counts one transaction, for -t seconds.  All clients start at
 * once.  The last line is
 *
 *   sleb_rr: proto=tcp pairs=N seconds=S transactions=T rate=R
 *
 * with R the sum over the pairs of their transactions per second.
 *
 * usage: sleb_rr [-p tcp|udp|unix] [-n pairs] [-t seconds] [-s bytes]
 * Bad options print a message and exit 2; a failure at run time exits 1.
 *
 * Build: gcc -O2 -static -o sleb_rr sleb_rr.c
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum proto { P_TCP, P_UDP, P_UNIX };

static const char *const proto_names[] = { "tcp", "udp", "unix" };

struct result {
	uint64_t transactions;
	uint64_t nanoseconds;
	uint64_t retransmits;
	int error;
};

static enum proto proto = P_TCP;
static long pairs = 1, seconds = 10, size = 1;

static void usage(const char *why)
{
	fprintf(stderr, "sleb_rr: %s\n"
		"Usage: sleb_rr [-p tcp|udp|unix] [-n pairs] [-t seconds] [-s bytes]\n"
		"  -p  protocol over loopback (default tcp)\n"
		"  -n  client/server pairs, 1..1024 (default 1)\n"
		"  -t  seconds to run, 1..3600 (default 10)\n"
		"  -s  request and response size in bytes (default 1; udp at most 65507)\n",
		why);
	exit(2);
}

static long number(const char *arg, const char *opt, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < lo || v > hi) {
		char msg[128];

		snprintf(msg, sizeof(msg), "bad %s '%s' (want %ld..%ld)", opt, arg, lo, hi);
		usage(msg);
	}
	return v;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "sleb_rr: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Read or write exactly len bytes of a stream socket; 0 on EOF, -1 on error. */
static int xfer_all(int fd, char *buf, size_t len, int out)
{
	size_t done = 0;
	ssize_t r;

	while (done < len) {
		r = out ? write(fd, buf + done, len - done) : read(fd, buf + done, len - done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r;
		done += r;
	}
	return 1;
}

static void serve(int fd)
{
	char *buf = malloc(size);
	struct sockaddr_storage peer;
	socklen_t plen;
	ssize_t r;

	if (!buf)
		_exit(1);
	for (;;) {
		if (proto == P_UDP) {
			plen = sizeof(peer);
			r = recvfrom(fd, buf, size, 0, (struct sockaddr *)&peer, &plen);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				_exit(1);
			sendto(fd, buf, r, 0, (struct sockaddr *)&peer, plen);
		} else {
			if (xfer_all(fd, buf, size, 0) <= 0)
				_exit(0);
			if (xfer_all(fd, buf, size, 1) <= 0)
				_exit(0);
		}
	}
}

/* One UDP transaction; a lost datagram is sent again after 100 ms. */
static int udp_transaction(int fd, char *buf, struct result *res)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t r;

	for (;;) {
		if (send(fd, buf, size, 0) != size)
			return -1;
		r = poll(&pfd, 1, 100);
		if (r < 0 && errno != EINTR)
			return -1;
		if (r > 0) {
			r = recv(fd, buf, size, 0);
			return r == size ? 0 : -1;
		}
		res->retransmits++;
	}
}

static void client(int fd, int start_fd, int result_fd)
{
	struct result res = { 0 };
	char *buf = calloc(1, size);
	uint64_t t0, t, deadline;
	char c;

	if (!buf)
		_exit(1);
	/* Wait for the start signal: the parent closes the pipe. */
	while (read(start_fd, &c, 1) < 0 && errno == EINTR)
		;
	t0 = now_ns();
	deadline = t0 + (uint64_t)seconds * 1000000000ull;
	do {
		if (proto == P_UDP) {
			if (udp_transaction(fd, buf, &res) < 0) {
				res.error = errno ? errno : EIO;
				break;
			}
		} else if (xfer_all(fd, buf, size, 1) <= 0 || xfer_all(fd, buf, size, 0) <= 0) {
			res.error = errno ? errno : EPIPE;
			break;
		}
		res.transactions++;
		t = now_ns();
	} while (t < deadline);
	res.nanoseconds = now_ns() - t0;
	if (write(result_fd, &res, sizeof(res)) != sizeof(res))
		_exit(1);
	_exit(0);
}

/* A server socket and a client socket connected to it, for one pair. */
static void make_pair(int *server_fd, int *client_fd)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t alen = sizeof(addr);
	int sv[2], one = 1, ls, type = proto == P_UDP ? SOCK_DGRAM : SOCK_STREAM;

	if (proto == P_UNIX) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
			die("socketpair");
		*server_fd = sv[0];
		*client_fd = sv[1];
		return;
	}
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ls = socket(AF_INET, type, 0);
	if (ls < 0)
		die("socket");
	if (bind(ls, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		die("bind 127.0.0.1");
	if (getsockname(ls, (struct sockaddr *)&addr, &alen) < 0)
		die("getsockname");
	if (type == SOCK_STREAM && listen(ls, 1) < 0)
		die("listen");
	*client_fd = socket(AF_INET, type, 0);
	if (*client_fd < 0)
		die("socket");
	if (connect(*client_fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		die("connect 127.0.0.1");
	if (type == SOCK_DGRAM) {
		*server_fd = ls;
		return;
	}
	*server_fd = accept(ls, NULL, NULL);
	if (*server_fd < 0)
		die("accept");
	close(ls);
	setsockopt(*server_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(*client_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int main(int argc, char **argv)
{
	uint64_t transactions = 0, ns_sum = 0, retransmits = 0;
	int opt, start[2], i, failed = 0;
	pid_t *servers, *clients;
	int *result_fds;
	double rate = 0;

	while ((opt = getopt(argc, argv, "p:n:t:s:h")) != -1) {
		switch (opt) {
		case 'p':
			for (i = 0; i < 3; i++)
				if (!strcmp(optarg, proto_names[i]))
					break;
			if (i == 3) {
				char msg[128];

				snprintf(msg, sizeof(msg),
					 "bad -p '%s' (want tcp, udp or unix)", optarg);
				usage(msg);
			}
			proto = i;
			break;
		case 'n':
			pairs = number(optarg, "-n", 1, 1024);
			break;
		case 't':
			seconds = number(optarg, "-t", 1, 3600);
			break;
		case 's':
			size = number(optarg, "-s", 1, 1 << 20);
			break;
		default:
			usage("bad option");
		}
	}
	if (optind < argc)
		usage("unexpected argument");
	if (proto == P_UDP && size > 65507)
		usage("bad -s: udp datagrams are at most 65507 bytes");

	signal(SIGPIPE, SIG_IGN);
	servers = calloc(pairs, sizeof(*servers));
	clients = calloc(pairs, sizeof(*clients));
	result_fds = calloc(pairs, sizeof(*result_fds));
	if (!servers || !clients || !result_fds || pipe(start) < 0)
		die("setup");
	for (i = 0; i < pairs; i++) {
		int sfd, cfd, res[2];

		make_pair(&sfd, &cfd);
		if (pipe(res) < 0)
			die("pipe");
		servers[i] = fork();
		if (servers[i] < 0)
			die("fork");
		if (!servers[i]) {
			close(cfd);
			close(start[0]);
			close(start[1]);
			serve(sfd);
		}
		clients[i] = fork();
		if (clients[i] < 0)
			die("fork");
		if (!clients[i]) {
			close(sfd);
			close(start[1]);
			close(res[0]);
			client(cfd, start[0], res[1]);
		}
		close(sfd);
		close(cfd);
		close(res[1]);
		result_fds[i] = res[0];
	}
	close(start[0]);
	close(start[1]);	/* go */

	for (i = 0; i < pairs; i++) {
		struct result res;

		if (read(result_fds[i], &res, sizeof(res)) != sizeof(res)) {
			fprintf(stderr, "sleb_rr: client %d died\n", i);
			failed = 1;
			continue;
		}
		if (res.error) {
			fprintf(stderr, "sleb_rr: client %d: %s\n", i, strerror(res.error));
			failed = 1;
		}
		transactions += res.transactions;
		retransmits += res.retransmits;
		ns_sum += res.nanoseconds;
		if (res.nanoseconds)
			rate += res.transactions * 1e9 / res.nanoseconds;
	}
	for (i = 0; i < pairs; i++) {
		kill(servers[i], SIGKILL);
		waitpid(servers[i], NULL, 0);
		waitpid(clients[i], NULL, 0);
	}
	if (retransmits)
		fprintf(stderr, "sleb_rr: %llu udp requests sent again after a loss\n",
			(unsigned long long)retransmits);
	printf("sleb_rr: proto=%s pairs=%ld seconds=%.3f transactions=%llu rate=%.1f\n",
	       proto_names[proto], pairs, ns_sum / 1e9 / pairs,
	       (unsigned long long)transactions, rate);
	return failed;
}

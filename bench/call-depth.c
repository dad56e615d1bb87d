/* SPDX-License-Identifier: MIT */
/*
 * bench/call-depth.c - what the frames between a ping-pong's loop and its
 * blocking send() and recv() cost: a tcp ping-pong over loopback, both
 * ends on one CPU, whose every send and receive is made DEPTH calls deep
 * (DEPTH nested functions, each returning through the one above) in every
 * other block of 500 round trips and directly in the others. Both kinds of
 * block run in the same processes, alternated, so the host's speed of the
 * moment (which moves a whole run by 20-30 % on a loaded VM) falls on both
 * alike. Prints p50 one way of each and their ratio.
 *
 * Why it matters: a return is predicted from the CPU's return stack
 * buffer, which the kernel fills with harmless entries at every context
 * switch (Spectre v2's "RSB filling", /sys/devices/system/cpu/
 * vulnerabilities/spectre_v2) and which a deep kernel path overwrites, so
 * the returns out of a blocking call that slept mispredict, one per frame.
 *
 *   cc -O2 -o call-depth bench/call-depth.c
 *   ./call-depth [DEPTH (12)] [ROUND_TRIPS per kind (40000)] [BYTES (1024)] [CPU (0)]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BLOCK  500
#define WARMUP 2000

static double
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* send() or recv() @d frames down; the asm keeps each frame from becoming a jump */
static __attribute__((noinline)) ssize_t
deep_io(int fd, char *buf, size_t len, int d, int out)
{
	ssize_t r;

	if (d == 0)
		return out ? send(fd, buf, len, 0) : recv(fd, buf, len, 0);
	r = deep_io(fd, buf, len, d - 1, out);
	__asm__ volatile("" ::: "memory");
	return r;
}

static int
io_all(int fd, char *buf, size_t len, int d, int out)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = deep_io(fd, buf + got, len - got, d, out);

		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 12;
	long n = argc > 2 ? atol(argv[2]) : 40000;
	size_t len = argc > 3 ? (size_t)atol(argv[3]) : 1024;
	int cpu = argc > 4 ? atoi(argv[4]) : 0, one = 1, l, c;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	double *flat, *deep;
	long i, nf = 0, nd = 0;
	char *buf;
	cpu_set_t set;
	pid_t kid;

	if (depth < 1 || n < BLOCK || len < 1 || len > (1 << 20)) {
		fprintf(stderr, "usage: %s [DEPTH >= 1] [ROUND_TRIPS >= %d] [BYTES 1-1048576]"
		        " [CPU]\n", argv[0], BLOCK);
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	buf = calloc(1, len);
	flat = calloc((size_t)n, sizeof(*flat));
	deep = calloc((size_t)n, sizeof(*deep));
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (!buf || !flat || !deep || l < 0 || sched_setaffinity(0, sizeof(set), &set) < 0 ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &al) < 0 || listen(l, 1) < 0) {
		perror("call-depth: setup");
		return 1;
	}
	kid = fork();
	if (kid == 0) { /* the answering end, same schedule of depths */
		c = socket(AF_INET, SOCK_STREAM, 0);
		if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)) < 0)
			_exit(1);
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		for (i = 0;; i++) {
			int d = (i / BLOCK) & 1 ? depth : 0;

			if (io_all(c, buf, len, d, 0) < 0 || io_all(c, buf, len, d, 1) < 0)
				_exit(0);
		}
	}
	c = accept(l, NULL, NULL);
	if (kid < 0 || c < 0) {
		perror("call-depth: fork or accept");
		return 1;
	}
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (i = 0; i < 2 * n + WARMUP; i++) {
		int d = (i / BLOCK) & 1 ? depth : 0;
		double t0 = now_ns(), t1;

		if (io_all(c, buf, len, d, 1) < 0 || io_all(c, buf, len, d, 0) < 0) {
			perror("call-depth: ping-pong");
			return 1;
		}
		t1 = now_ns();
		if (i < WARMUP)
			continue;
		if (d && nd < n)
			deep[nd++] = (t1 - t0) / 2;
		else if (!d && nf < n)
			flat[nf++] = (t1 - t0) / 2;
	}
	close(c);
	waitpid(kid, NULL, 0);
	qsort(flat, (size_t)nf, sizeof(*flat), cmp);
	qsort(deep, (size_t)nd, sizeof(*deep), cmp);
	printf("call-depth %zu B on CPU %d: p50 one way %.1f ns direct, %.1f ns %d frames deep: "
	       "ratio %.4f, %+.1f ns (%.2f ns a frame a call, 4 calls a round trip)\n",
	       len, cpu, flat[nf / 2], deep[nd / 2], depth, deep[nd / 2] / flat[nf / 2],
	       deep[nd / 2] - flat[nf / 2], (deep[nd / 2] - flat[nf / 2]) / (2.0 * depth));
	return 0;
}

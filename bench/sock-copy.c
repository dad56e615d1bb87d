/* SPDX-License-Identifier: MIT */
/*
 * bench/sock-copy.c - what the size of the buffer a TCP stream is copied
 * from and into costs, in CPU time: the same bytes in the same calls, from
 * and into a buffer of 128 KiB (iperf3's default -l, which stays in the
 * cache) or of 1, 16 or 64 MiB (fabtune's pt2pt_bw copies a message from
 * and into a buffer of the message's size), on 4 KiB pages and on
 * transparent huge pages.
 *
 *   cc -O2 -pthread -o sock-copy bench/sock-copy.c && ./sock-copy [ROUNDS]
 *
 * One TCP connection over loopback in this process: a sender thread sends
 * 512 MiB in 128 KiB calls, walking through its buffer and starting again
 * at its end, and a receiver thread receives into its own buffer the same
 * way. Each thread times its own CPU time (CLOCK_THREAD_CPUTIME_ID: user
 * and system, the kernel's copies and, over loopback, the segments'
 * processing that runs in its calls), so that the time slices other
 * processes take on a shared host do not count. ROUNDS (5) rounds, each
 * over every buffer: the figures are medians of per-round values, and the
 * ratios medians of per-round ratios to the 128 KiB buffer on the same
 * pages (> 1: the larger buffer costs more). The buffers are touched
 * before the timed loops.
 */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cpu-time.h"

#define MAX_ROUNDS 99
#define CALL_BYTES ((size_t)128 << 10)
#define VOL_BYTES  ((size_t)512 << 20)
#define NSIZES     4

struct side {
	int fd, send, failed;
	char *buf;
	size_t size;
	double cpu_s;
};

/* one side's thread: VOL_BYTES sent or received in calls of at most CALL_BYTES, through its buffer */
static void *
pump(void *arg)
{
	struct side *s = arg;
	size_t done = 0, off = 0;
	double t0 = cpu_now();

	while (done < VOL_BYTES) {
		size_t want = CALL_BYTES - off % CALL_BYTES;
		ssize_t n = s->send ? send(s->fd, s->buf + off, want, 0) : recv(s->fd, s->buf + off, want, 0);

		if (n <= 0) {
			s->failed = 1;
			break;
		}
		done += (size_t)n;
		off = (off + (size_t)n) % s->size;
	}
	s->cpu_s = cpu_now() - t0;
	return NULL;
}

/* a connected pair over loopback: fd[0] sends, fd[1] receives */
static int
connect_pair(int fd[2])
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0);

	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&a, &len) < 0)
		return -1;
	fd[0] = socket(AF_INET, SOCK_STREAM, 0);
	if (fd[0] < 0 || connect(fd[0], (struct sockaddr *)&a, sizeof(a)) < 0)
		return -1;
	fd[1] = accept(l, NULL, NULL);
	close(l);
	return fd[1] < 0 ? -1 : 0;
}

/* one transfer of VOL_BYTES through @fd from @sb into @rb, @size bytes each: CPU s per side */
static int
transfer(int fd[2], char *sb, char *rb, size_t size, double cpu_s[2], double *wall_s)
{
	struct side s = { fd[0], 1, 0, sb, size, 0 }, r = { fd[1], 0, 0, rb, size, 0 };
	struct timespec t0, t1;
	pthread_t ts, tr;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pthread_create(&tr, NULL, pump, &r) != 0)
		return -1;
	if (pthread_create(&ts, NULL, pump, &s) != 0)
		return -1;
	pthread_join(ts, NULL);
	pthread_join(tr, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cpu_s[0] = s.cpu_s;
	cpu_s[1] = r.cpu_s;
	*wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	return s.failed || r.failed ? -1 : 0;
}

int
main(int argc, char **argv)
{
	static const size_t sizes[NSIZES] = { 128 << 10, 1 << 20, 16 << 20, 64 << 20 };
	static double cpu[2][NSIZES][2][MAX_ROUNDS], gbps[2][NSIZES][MAX_ROUNDS];
	int rounds = argc > 1 ? atoi(argv[1]) : 5, huge, i, r, k, fd[2];
	const double gib = (double)VOL_BYTES / (1 << 30);

	if (rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: sock-copy [ROUNDS, 1-%d]\n", MAX_ROUNDS);
		return 2;
	}
	if (connect_pair(fd) < 0) {
		perror("loopback connection");
		return 3;
	}
	for (r = 0; r < rounds; r++) {
		for (huge = 0; huge < 2; huge++) {
			for (i = 0; i < NSIZES; i++) {
				char *sb = buffer(sizes[i], huge), *rb = buffer(sizes[i], huge);
				double c[2], wall;

				if (!sb || !rb || transfer(fd, sb, rb, sizes[i], c, &wall) < 0) {
					perror("transfer");
					return 3;
				}
				for (k = 0; k < 2; k++)
					cpu[huge][i][k][r] = c[k] * 1e3 / gib;
				gbps[huge][i][r] = (double)VOL_BYTES * 8 / wall / 1e9;
				munmap(sb, sizes[i] + HUGE_BYTES);
				munmap(rb, sizes[i] + HUGE_BYTES);
			}
		}
	}
	printf("# TCP over loopback, %zu KiB calls, %zu MiB a transfer; CPU ms per GiB (medians of %d rounds),\n"
	       "# and the medians of per-round ratios to the 128 KiB buffer on the same pages\n",
	       CALL_BYTES >> 10, VOL_BYTES >> 20, rounds);
	for (huge = 0; huge < 2; huge++) {
		for (i = 0; i < NSIZES; i++) {
			double q[2][MAX_ROUNDS], med[2];

			for (k = 0; k < 2; k++) {
				for (r = 0; r < rounds; r++)
					q[k][r] = cpu[huge][i][k][r] / cpu[huge][0][k][r];
			}
			for (k = 0; k < 2; k++) {
				double v[MAX_ROUNDS];

				memcpy(v, cpu[huge][i][k], sizeof(double) * (size_t)rounds);
				med[k] = median(v, rounds);
			}
			printf("%9zu B buffer  %s pages  sender %6.0f ms/GiB (x%.2f)  receiver %6.0f ms/GiB "
			       "(x%.2f)  %6.2f Gb/s\n",
			       sizes[i], huge ? "huge " : "4 KiB", med[0], median(q[0], rounds), med[1],
			       median(q[1], rounds), median(gbps[huge][i], rounds));
		}
	}
	close(fd[0]);
	close(fd[1]);
	return 0;
}

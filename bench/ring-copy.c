/* SPDX-License-Identifier: MIT */
/*
 * bench/ring-copy.c - the shm transport's pipelined copy on its own: a
 * sender thread copies messages into a ring in chunks, publishing each one
 * with a release store, while a receiver thread copies the published chunks
 * out, both spinning (with a pause) while they wait, as fabtune's ranks do
 * while they may spin. No doorbell, no requests, no windows: what is left
 * is the two copies and the cache lines between the cores.
 *
 *   cc -O2 -pthread -o ring-copy bench/ring-copy.c
 *   ./ring-copy RING CHUNK MSG [LOCKSTEP [SCPU RCPU]]
 *
 * LOCKSTEP 1 has the sender wait until the receiver has read everything
 * before it writes the next chunk (the copies never overlap: the cross-CPU
 * memcpy of bench/memcpy.c, in chunks). 256 MiB are moved. Printed, in
 * GB/s: the receiver's median chunk copy (the rate of one copy while it
 * runs, as bench/memcpy.c's cross-CPU median), its mean copy (all copy
 * time, a copy that lost its CPU included), the stream's rate, and its
 * bytes per CPU-second of the two threads, whose ceiling is half the
 * copy's rate (each byte is copied twice); the rest is the threads'
 * waiting (spinning for a peer that is late or not running).
 */
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "pin.h"

#define TOTAL_BYTES (256L << 20)
#define HUGE_BYTES  (2L << 20)

static size_t ring_bytes, chunk, msg;
static long nmsg;
static int lockstep, cpus[2] = { 0, 1 };
static char *ring, *src, *dst;
static _Alignas(64) _Atomic uint64_t head;
static _Alignas(64) _Atomic uint64_t tail;
static double *samples, cpu_s[2];
static long nsamples;

static double
clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *
sender(void *arg)
{
	uint64_t pos = 0;
	long m;

	(void)arg;
	pin(cpus[0]);
	for (m = 0; m < nmsg; m++) {
		size_t off = 0;

		while (off < msg) {
			size_t n = msg - off < chunk ? msg - off : chunk;

			if (lockstep)
				while (atomic_load_explicit(&tail, memory_order_acquire) != pos)
					_mm_pause();
			else
				while (pos + n - atomic_load_explicit(&tail, memory_order_acquire) >
				       ring_bytes)
					_mm_pause();
			memcpy(ring + pos % ring_bytes, src + off, n);
			pos += n;
			off += n;
			atomic_store_explicit(&head, pos, memory_order_release);
		}
	}
	cpu_s[0] = clock_s(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

static void *
receiver(void *arg)
{
	uint64_t pos = 0;
	long m;

	(void)arg;
	pin(cpus[1]);
	for (m = 0; m < nmsg; m++) {
		size_t off = 0;

		while (off < msg) {
			size_t n = msg - off < chunk ? msg - off : chunk;
			double t0;

			while (atomic_load_explicit(&head, memory_order_acquire) < pos + n)
				_mm_pause();
			t0 = clock_s(CLOCK_MONOTONIC);
			memcpy(dst + off, ring + pos % ring_bytes, n);
			__asm__ __volatile__("" : : "r"(dst) : "memory");
			samples[nsamples++] = clock_s(CLOCK_MONOTONIC) - t0;
			pos += n;
			off += n;
			atomic_store_explicit(&tail, pos, memory_order_release);
		}
	}
	cpu_s[1] = clock_s(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static char *
huge_alloc(size_t bytes)
{
	size_t len = (bytes + HUGE_BYTES - 1) / HUGE_BYTES * HUGE_BYTES;
	char *p = aligned_alloc(HUGE_BYTES, len);

	if (!p) {
		perror("aligned_alloc");
		exit(2);
	}
	(void)madvise(p, len, MADV_HUGEPAGE);
	memset(p, 1, len);
	return p;
}

int
main(int argc, char **argv)
{
	pthread_t t[2];
	double t0, wall, busy = 0;
	long i, nchunks;

	if (argc < 4) {
		fprintf(stderr, "usage: %s RING CHUNK MSG [LOCKSTEP [SCPU RCPU]]\n", argv[0]);
		return 2;
	}
	ring_bytes = strtoul(argv[1], NULL, 0);
	chunk = strtoul(argv[2], NULL, 0);
	msg = strtoul(argv[3], NULL, 0);
	lockstep = argc > 4 && atoi(argv[4]);
	if (argc > 6) {
		cpus[0] = atoi(argv[5]);
		cpus[1] = atoi(argv[6]);
	}
	if (chunk == 0 || msg == 0 || chunk > ring_bytes) {
		fprintf(stderr, "ring-copy: CHUNK must be 1..RING and MSG > 0\n");
		return 2;
	}
	nmsg = TOTAL_BYTES / (long)msg > 0 ? TOTAL_BYTES / (long)msg : 1;
	nchunks = nmsg * (long)((msg + chunk - 1) / chunk);
	samples = malloc(sizeof(*samples) * (size_t)nchunks);
	if (!samples)
		return 2;
	ring = huge_alloc(ring_bytes);
	src = huge_alloc(msg);
	dst = huge_alloc(msg);
	t0 = clock_s(CLOCK_MONOTONIC);
	pthread_create(&t[0], NULL, sender, NULL);
	pthread_create(&t[1], NULL, receiver, NULL);
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	wall = clock_s(CLOCK_MONOTONIC) - t0;
	for (i = 0; i < nsamples; i++)
		busy += samples[i];
	qsort(samples, (size_t)nsamples, sizeof(*samples), cmp_double);
	printf("ring %zu chunk %zu msg %zu%s: receiver copy median %.2f mean %.2f, "
	       "stream %.2f, per CPU-second %.2f GB/s\n",
	       ring_bytes, chunk, msg, lockstep ? " lockstep" : "",
	       (double)chunk / samples[nsamples / 2] / 1e9,
	       (double)nmsg * (double)msg / busy / 1e9, (double)nmsg * (double)msg / wall / 1e9,
	       (double)nmsg * (double)msg / (cpu_s[0] + cpu_s[1]) / 1e9);
	return 0;
}

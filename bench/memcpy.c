/* SPDX-License-Identifier: MIT */
/*
 * bench/memcpy.c - the physical yardstick for shm bandwidth: one core's
 * memcpy between two buffers of SIZE bytes (first touched, so page faults
 * are not timed), over five passes.
 *
 *   cc -O2 -pthread -o memcpy bench/memcpy.c && ./memcpy [-w N] MINBYTES MAXBYTES [WCPU CCPU]
 *
 * One line per size (factors of 2): "bytes best median", both in GB/s: the
 * best pass is the core's rate when nothing else wanted it; the median pass
 * is the rate on the core as it was, the figure to set beside a benchmark
 * that reports its mean over a run on a shared host.
 *
 * With WCPU and CCPU, the copy is of bytes another CPU has just written, as
 * every copy between two processes is: a thread on WCPU rewrites the source
 * before each copy, and the copying thread, on CCPU, times only its memcpy
 * of it (the two take turns through one flag); a pass's rate is that of its
 * median copy. The source's lines then come
 * from the other core's cache, not from the copier's own L1 or L2, where a
 * buffer of 64-256 KiB copied over and over stays. This is the copy that the
 * receiver of a message makes, out of shm's ring or (the kernel's) out of
 * the sender's buffer, and the like-for-like ceiling for one of them.
 *
 * With -w N (one core only), the copies cycle through N source and N
 * destination buffers of SIZE, copy r using pair r mod N, as a stream of N
 * messages in flight touches N buffers on each side (fabtune's pt2pt_bw
 * with --window N): below the L2, one pair copied over and over stays in
 * the core's cache, which no window of distinct messages does. The pairs
 * take at most 256 MiB a side (fewer pairs at the largest sizes, where one
 * already exceeds every cache).
 *
 * The buffers are 2 MiB-aligned and advised for transparent huge pages, as
 * fabtune's shm message buffers are (src/bench/coll.c, ft__ep_scratch):
 * the yardstick gets the same pages, and with them its fewest TLB misses.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "pin.h"

#define HUGE_BYTES (2L << 20)
#define PASSES     5
#define CROSS_REPS 64
#define WINDOW_BYTES (256L << 20) /* -w: at most this much a side */

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * The cross-CPU copy: the writer (on wcpu) and the copier take turns, the
 * writer on even values of turn, the copier on odd ones.
 */
struct cross {
	char *src, *dst;
	long size, reps;
	int wcpu;
	_Atomic long turn;
};

static void
wait_turn(_Atomic long *turn, long want)
{
	while (atomic_load_explicit(turn, memory_order_acquire) != want)
		__builtin_ia32_pause(); /* leaves the core's other thread its share */
}

static void *
writer(void *arg)
{
	struct cross *x = arg;
	long r;

	pin(x->wcpu);
	for (r = 0; r < PASSES * x->reps; r++) {
		wait_turn(&x->turn, 2 * r);
		memset(x->src, (int)(r & 0x7f) + 1, (size_t)x->size);
		atomic_store_explicit(&x->turn, 2 * r + 1, memory_order_release);
	}
	return NULL;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * One pass of @reps copies of @size bytes: bytes a second. The cross-CPU
 * one (@x) times each copy alone (@t, @reps of them) and takes the median
 * copy, so that neither the turns nor a copy that lost its CPU to another
 * process count: the rate of one copy while it runs.
 */
static double
pass_rate(char *dst, const char *src, long size, long reps, long nbufs, struct cross *x,
          long first, double *t)
{
	double t0 = now(), busy;
	long r;

	for (r = 0; r < reps; r++) {
		double c0;

		if (x)
			wait_turn(&x->turn, 2 * (first + r) + 1);
		c0 = x ? now() : 0;
		memcpy(dst + (r % nbufs) * size, src + (r % nbufs) * size, (size_t)size);
		__asm__ __volatile__("" : : "r"(dst) : "memory");
		if (x) {
			t[r] = now() - c0;
			atomic_store_explicit(&x->turn, 2 * (first + r) + 2, memory_order_release);
		}
	}
	if (x) {
		qsort(t, (size_t)reps, sizeof(*t), cmp_double);
		busy = t[reps / 2] * (double)reps;
	} else {
		busy = now() - t0;
	}
	return busy > 0 ? (double)size * (double)reps / busy / 1e9 : 0;
}

/* Five passes at @size through @nbufs pairs (-w); prints "size best median". */
static void
one_size(char *a, char *b, long size, long nbufs, int wcpu)
{
	/* about 128 MiB copied per pass, at least 4 copies */
	long reps = (128L << 20) / size;
	double rate[PASSES], t, *times = NULL;
	struct cross x;
	pthread_t th;
	int pass, i, j;

	if (reps < 4)
		reps = 4;
	/*
	 * Across CPUs, each copy waits for the writer's turn, which on a loaded
	 * host may wait for a time slice: CROSS_REPS copies a pass are enough
	 * for a median.
	 */
	if (wcpu >= 0 && reps > CROSS_REPS)
		reps = CROSS_REPS;
	if (wcpu >= 0) {
		x = (struct cross){ a, b, size, reps, wcpu, 0 };
		times = malloc(sizeof(*times) * (size_t)reps);
		if (!times || pthread_create(&th, NULL, writer, &x) != 0)
			exit(3);
	}
	for (pass = 0; pass < PASSES; pass++)
		rate[pass] = pass_rate(b, a, size, reps, nbufs, wcpu >= 0 ? &x : NULL, pass * reps,
		                       times);
	if (wcpu >= 0)
		pthread_join(th, NULL);
	free(times);
	for (i = 1; i < PASSES; i++) /* sort the rates */
		for (j = i; j > 0 && rate[j - 1] > rate[j]; j--) {
			t = rate[j];
			rate[j] = rate[j - 1];
			rate[j - 1] = t;
		}
	printf("%ld %.3f %.3f\n", size, rate[PASSES - 1], rate[PASSES / 2]);
	fflush(stdout);
}

int
main(int argc, char **argv)
{
	long minb, maxb, size, len, window = 1, side;
	char *a = NULL, *b = NULL;
	int wcpu = -1;

	if (argc > 2 && strcmp(argv[1], "-w") == 0) {
		window = strtol(argv[2], NULL, 10);
		argv += 2;
		argc -= 2;
	}
	if ((argc != 3 && argc != 5) || window < 1 || (argc == 5 && window > 1)) {
		fprintf(stderr, "usage: memcpy [-w N] MINBYTES MAXBYTES | memcpy MINBYTES "
		                "MAXBYTES WRITER_CPU COPIER_CPU\n");
		return 2;
	}
	minb = strtol(argv[1], NULL, 10);
	maxb = strtol(argv[2], NULL, 10);
	if (minb <= 0 || maxb < minb)
		return 3;
	if (argc == 5) {
		wcpu = atoi(argv[3]);
		pin(atoi(argv[4]));
	}
	/* the largest SIZE x pairs of the sizes asked for (one_size's nbufs) */
	side = maxb;
	for (size = minb; size <= maxb; size *= 2) {
		long n = window < WINDOW_BYTES / size ? window : WINDOW_BYTES / size;

		if (n > 1 && n * size > side)
			side = n * size;
	}
	len = (side + HUGE_BYTES - 1) / HUGE_BYTES * HUGE_BYTES;
	if (posix_memalign((void **)&a, HUGE_BYTES, (size_t)len) ||
	    posix_memalign((void **)&b, HUGE_BYTES, (size_t)len))
		return 3;
	(void)madvise(a, (size_t)len, MADV_HUGEPAGE);
	(void)madvise(b, (size_t)len, MADV_HUGEPAGE);
	memset(a, 1, (size_t)side);
	memset(b, 2, (size_t)side);
	for (size = minb; size <= maxb; size *= 2) {
		long n = window < WINDOW_BYTES / size ? window : WINDOW_BYTES / size;

		one_size(a, b, size, n > 1 ? n : 1, wcpu);
	}
	free(a);
	free(b);
	return 0;
}

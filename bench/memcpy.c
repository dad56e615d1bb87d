/* SPDX-License-Identifier: MIT */
/*
 * bench/memcpy.c - the physical yardstick for shm bandwidth: one core's
 * memcpy between two buffers of SIZE bytes (first touched, so page faults
 * are not timed), over five passes.
 *
 *   cc -O2 -o memcpy bench/memcpy.c && ./memcpy MINBYTES MAXBYTES
 *
 * One line per size (factors of 2): "bytes best median", both in GB/s: the
 * best pass is the core's rate when nothing else wanted it; the median pass
 * is the rate on the core as it was, the figure to set beside a benchmark
 * that reports its mean over a run on a shared host.
 *
 * The buffers are 2 MiB-aligned and advised for transparent huge pages, as
 * fabtune's shm message buffers are (src/bench/coll.c, ft__ep_scratch):
 * the yardstick gets the same pages, and with them its fewest TLB misses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define HUGE_BYTES (2L << 20)

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int
main(int argc, char **argv)
{
	long minb, maxb, size, len;
	char *a = NULL, *b = NULL;

	if (argc != 3) {
		fprintf(stderr, "usage: memcpy MINBYTES MAXBYTES\n");
		return 2;
	}
	minb = strtol(argv[1], NULL, 10);
	maxb = strtol(argv[2], NULL, 10);
	if (minb <= 0 || maxb < minb)
		return 3;
	len = (maxb + HUGE_BYTES - 1) / HUGE_BYTES * HUGE_BYTES;
	if (posix_memalign((void **)&a, HUGE_BYTES, (size_t)len) ||
	    posix_memalign((void **)&b, HUGE_BYTES, (size_t)len))
		return 3;
	(void)madvise(a, (size_t)len, MADV_HUGEPAGE);
	(void)madvise(b, (size_t)len, MADV_HUGEPAGE);
	memset(a, 1, (size_t)maxb);
	memset(b, 2, (size_t)maxb);
	for (size = minb; size <= maxb; size *= 2) {
		/* about 128 MiB copied per pass, at least 4 copies */
		long reps = (128L << 20) / size, r;
		double rate[5], t;
		int pass, i, j;

		if (reps < 4)
			reps = 4;
		for (pass = 0; pass < 5; pass++) {
			double t0 = now(), dt;

			for (r = 0; r < reps; r++) {
				memcpy(b, a, (size_t)size);
				__asm__ __volatile__("" : : "r"(b) : "memory");
			}
			dt = now() - t0;
			rate[pass] = dt > 0 ? (double)size * reps / dt / 1e9 : 0;
		}
		for (i = 1; i < 5; i++) /* sort the five rates */
			for (j = i; j > 0 && rate[j - 1] > rate[j]; j--) {
				t = rate[j];
				rate[j] = rate[j - 1];
				rate[j - 1] = t;
			}
		printf("%ld %.3f %.3f\n", size, rate[4], rate[2]);
	}
	free(a);
	free(b);
	return 0;
}

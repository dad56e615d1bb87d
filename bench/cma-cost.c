/* SPDX-License-Identifier: MIT */
/*
 * bench/cma-cost.c - what the kernel's cross-memory copy (process_vm_readv,
 * shm's single copies) costs against a memcpy of the same bytes, in CPU
 * time, by page size and by the bytes each call copies.
 *
 *   cc -O2 -o cma-cost bench/cma-cost.c && ./cma-cost [ROUNDS]
 *
 * For 1, 4, 16 and 64 MiB, buffers on 4 KiB pages (MADV_NOHUGEPAGE) and on
 * transparent huge pages (2 MiB-aligned, MADV_HUGEPAGE): ROUNDS (9) rounds,
 * each a memcpy of about 256 MiB then the same bytes read with
 * process_vm_readv from this process in pieces of 128 KiB and of 2 MiB.
 * Times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so that the
 * time slices other processes take on a shared host do not count; the
 * ratios are medians of per-round ratios, each to the memcpy of the same
 * round on the same pages (> 1: the kernel's copy costs more). The page
 * faults of first touch are outside the timed loops.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "cpu-time.h"

#define MAX_ROUNDS 99

/* CPU seconds for @reps copies of @size bytes from @a to @b: memcpy when @piece is 0 */
static double
copy_cpu(char *b, char *a, size_t size, size_t piece, long reps)
{
	double t0 = cpu_now();
	pid_t me = getpid();
	long r;
	size_t off;

	for (r = 0; r < reps; r++) {
		if (!piece) {
			memcpy(b, a, size);
			__asm__ __volatile__("" : : "r"(b) : "memory");
			continue;
		}
		for (off = 0; off < size; off += piece) {
			size_t n = size - off < piece ? size - off : piece;
			struct iovec lv = { b + off, n }, rv = { a + off, n };

			if (process_vm_readv(me, &lv, 1, &rv, 1, 0) != (ssize_t)n) {
				perror("process_vm_readv");
				exit(1);
			}
		}
	}
	return cpu_now() - t0;
}

int
main(int argc, char **argv)
{
	static const size_t pieces[2] = { 128 * 1024, 2 << 20 };
	int rounds = argc > 1 ? atoi(argv[1]) : 9, huge, k, i;
	size_t size;

	if (rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: cma-cost [ROUNDS, 1-%d]\n", MAX_ROUNDS);
		return 2;
	}
	printf("# CPU time of process_vm_readv / memcpy, same bytes and pages; median of %d rounds\n",
	       rounds);
	for (size = 1 << 20; size <= (size_t)64 << 20; size *= 4) {
		for (huge = 0; huge < 2; huge++) {
			char *a = buffer(size, huge), *b = buffer(size, huge);
			long reps = (long)((256u << 20) / size);
			double ratio[2][MAX_ROUNDS], rate[MAX_ROUNDS];

			if (!a || !b)
				return 3;
			for (i = 0; i < rounds; i++) {
				double m = copy_cpu(b, a, size, 0, reps);

				rate[i] = (double)size * (double)reps / m / 1e9;
				for (k = 0; k < 2; k++)
					ratio[k][i] = copy_cpu(b, a, size, pieces[k], reps) / m;
			}
			printf("%9zu B  %s pages  memcpy %6.2f GB/s of CPU time  "
			       "process_vm_readv/memcpy: 128 KiB calls %5.2f, 2 MiB calls %5.2f\n",
			       size, huge ? "huge" : "4 KiB", median(rate, rounds),
			       median(ratio[0], rounds), median(ratio[1], rounds));
			munmap(a, size + HUGE_BYTES);
			munmap(b, size + HUGE_BYTES);
		}
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * bench/cpu-time.h - what the stand-alone C benchmarks under bench/ share:
 * the calling thread's CPU time, a median, and a touched buffer on the
 * pages asked for. Header-only, so that each still builds with one cc line.
 */
#ifndef BENCH_CPU_TIME_H
#define BENCH_CPU_TIME_H

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define HUGE_BYTES ((size_t)2 << 20)

/* the calling thread's CPU time in seconds, user and system: a shared host's other processes do not count */
static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int
cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* the median of @v[0..n), which it sorts */
static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* @bytes of memory, 2 MiB-aligned, advised for huge pages or against them, touched */
static char *
buffer(size_t bytes, int huge)
{
	size_t len = (bytes + HUGE_BYTES - 1) / HUGE_BYTES * HUGE_BYTES;
	char *p = mmap(NULL, len + HUGE_BYTES, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	p += -(size_t)(unsigned long)p & (HUGE_BYTES - 1);
	(void)madvise(p, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	memset(p, 1, len);
	return p;
}

#endif

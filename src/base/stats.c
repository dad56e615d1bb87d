/* SPDX-License-Identifier: MIT */
/*
 * base/stats.c - order statistics of a sample of doubles, the one sort and
 * median every module uses on measured or simulated figures.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void
ft__sort_doubles(double *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_double);
}

double
ft__median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	ft__sort_doubles(v, n);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

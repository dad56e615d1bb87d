/* SPDX-License-Identifier: MIT */
/*
 * base/stats.c - order statistics of a sample of doubles, the one sort and
 * median every module uses on measured or simulated figures; and Student's
 * t quantile, for a band drawn from a few runs.
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

/*
 * P(|T| <= t) for Student's t with @df degrees of freedom, written with
 * theta = atan(t / sqrt(df)): the finite series that holds for whole df
 * (Abramowitz and Stegun 26.7.3 and 26.7.4): for even df, sin(theta) times
 * the sum of the terms c^(2j) (1*3*..*(2j-1)) / (2*4*..*2j), j < df / 2;
 * for odd df, (2 / pi) (theta + sin(theta) cos(theta) times the sum of the
 * terms c^(2j) (2*4*..*2j) / (3*5*..*(2j+1)), j < (df - 1) / 2), with
 * c = cos(theta).
 */
static double
t_coverage(double theta, unsigned df)
{
	double c2 = cos(theta) * cos(theta), term = 1, sum = 1;
	unsigned j;

	if (df % 2 == 0) {
		for (j = 1; j < df / 2; j++) {
			term *= c2 * (2.0 * j - 1) / (2.0 * j);
			sum += term;
		}
		return sin(theta) * sum;
	}
	if (df == 1)
		return 2 * theta / M_PI;
	for (j = 1; j < (df - 1) / 2; j++) {
		term *= c2 * (2.0 * j) / (2.0 * j + 1);
		sum += term;
	}
	return 2 / M_PI * (theta + sin(theta) * cos(theta) * sum);
}

double
ft__t_two_sided(double coverage, unsigned df)
{
	double lo = 0, hi = M_PI / 2;
	int i;

	if (!(coverage > 0 && coverage < 1) || df == 0)
		return NAN;
	/* P(|T| <= t) rises with theta from 0 to 1 over [0, pi/2): bisect on theta */
	for (i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;

		if (t_coverage(mid, df) < coverage)
			lo = mid;
		else
			hi = mid;
	}
	return sqrt((double)df) * tan((lo + hi) / 2);
}

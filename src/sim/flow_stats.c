/* SPDX-License-Identifier: MIT */
/*
 * sim/flow_stats.c - percentiles and flow completion time figures of the
 * flow-level engine's counters (nearest rank, by selection rather than sorting).
 */
#include "engine_flow_int.h"

#include <fabtune/model.h>
#include <fabtune/rng.h>
#include <fabtune/sim.h>
#include <fabtune/units.h>

/* Nearest-rank percentile of sorted @v. */
double
ft__sim_pct(const double *v, size_t n, double q)
{
	size_t k;

	if (n == 0)
		return NAN;
	k = (size_t)ceil(q * (double)n);
	return v[k ? k - 1 : 0];
}

/* Nearest-rank index of quantile @q among @n values. */
static size_t
pct_index(size_t n, double q)
{
	size_t k = (size_t)ceil(q * (double)n);

	return k ? k - 1 : 0;
}

/*
 * The @k-th smallest of @v[0..n) (0-based), reordering @v: Hoare quickselect with a
 * median-of-three pivot, O(n) on average (equal values split evenly). It gives exactly what
 * sorting then indexing gives, without the O(n log n) sort of millions of flows.
 */
static double
select_kth2(double *v, double *u, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
		double a = v[lo], b = v[mid], c = v[hi], pivot, tmp;

		pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		for (;;) {
			while (v[i] < pivot)
				i++;
			while (pivot < v[j])
				j--;
			if (i >= j)
				break;
			tmp = v[i];
			v[i] = v[j];
			v[j] = tmp;
			if (u) { /* the companion array moves along: pairs stay pairs */
				tmp = u[i];
				u[i] = u[j];
				u[j] = tmp;
			}
			i++;
			j--;
		}
		/* v[lo..j] <= pivot <= v[j+1..hi] */
		if (k <= j)
			hi = j;
		else
			lo = j + 1;
	}
	return v[k];
}

static double
select_kth(double *v, size_t n, size_t k)
{
	return select_kth2(v, NULL, n, k);
}

static void
min_max(const double *v, size_t n, double *lo, double *hi)
{
	*lo = *hi = v[0];
	for (size_t i = 1; i < n; i++) {
		if (v[i] < *lo)
			*lo = v[i];
		if (v[i] > *hi)
			*hi = v[i];
	}
}

int
ft__sim_fct_stats(const double *fct, const double *ideal, size_t n, struct ft_sim_counters *c)
{
	double *w, unused;
	size_t i;

	if (n == 0) {
		c->fct_min_s = c->fct_p50_s = c->fct_p99_s = c->fct_max_s = NAN;
		c->ideal_min_s = c->ideal_p50_s = c->ideal_max_s = NAN;
		c->slowdown_p50 = c->slowdown_p99 = c->slowdown_max = NAN;
		return 0;
	}
	w = ft_calloc(n, sizeof(double));
	if (!w)
		return FT_ENOMEM;
	ft__sim_advise_huge(w, n * sizeof(double));
	memcpy(w, fct, n * sizeof(double));
	min_max(w, n, &c->fct_min_s, &c->fct_max_s);
	c->fct_p50_s = select_kth(w, n, pct_index(n, 0.5));
	c->fct_p99_s = select_kth(w, n, pct_index(n, 0.99));
	memcpy(w, ideal, n * sizeof(double));
	min_max(w, n, &c->ideal_min_s, &c->ideal_max_s);
	c->ideal_p50_s = select_kth(w, n, pct_index(n, 0.5));
	for (i = 0; i < n; i++)
		w[i] = ideal[i] > 0 ? fct[i] / ideal[i] : 1;
	min_max(w, n, &unused, &c->slowdown_max);
	c->slowdown_p50 = select_kth(w, n, pct_index(n, 0.5));
	c->slowdown_p99 = select_kth(w, n, pct_index(n, 0.99));
	ft_free(w);
	return 0;
}

/*
 * ft__sim_fct_stats() without the copy, consuming @fct and @ideal: the ideal times are
 * selected with their FCTs moving along, then overwritten by the slowdowns. The same
 * values, since selection gives the k-th smallest whatever the order. For the FCTs of
 * millions of flows at the end of a run, where a copy would be as large as both.
 */
void
ft__sim_fct_stats_consume(double *fct, double *ideal, size_t n, struct ft_sim_counters *c)
{
	double unused;
	size_t i;

	min_max(fct, n, &c->fct_min_s, &c->fct_max_s);
	min_max(ideal, n, &c->ideal_min_s, &c->ideal_max_s);
	c->ideal_p50_s = select_kth2(ideal, fct, n, pct_index(n, 0.5));
	for (i = 0; i < n; i++)
		ideal[i] = ideal[i] > 0 ? fct[i] / ideal[i] : 1;
	min_max(ideal, n, &unused, &c->slowdown_max);
	c->slowdown_p50 = select_kth(ideal, n, pct_index(n, 0.5));
	c->slowdown_p99 = select_kth(ideal, n, pct_index(n, 0.99));
	c->fct_p50_s = select_kth(fct, n, pct_index(n, 0.5));
	c->fct_p99_s = select_kth(fct, n, pct_index(n, 0.99));
}

/* SPDX-License-Identifier: MIT */
/*
 * plan/moe.c - skewed expert routing and expert placement.
 *
 * A router that sends more tokens to some experts than to others loads the
 * EP ranks that hold them: the all-to-all waits for the rank that receives
 * the most, and that rank's experts compute the longest. Routing shares
 * follow a Zipf law (share of the expert of rank r ∝ 1/r^s, s = 0 uniform),
 * capped at 1/k of the routed slots since a token picks k distinct experts;
 * a capacity factor c caps each expert at c/E of the tokens and drops the
 * rest. Experts are placed in order (expert e on rank e / (E/ep), so the
 * hottest experts share a rank) or by heat: hottest first onto the least
 * loaded rank with room (greedy longest-processing-time), which spreads the
 * hot experts over the ranks.
 */
#include "plan_int.h"

#include <math.h>
#include <stdlib.h>

void
ft_plan_zipf(double *share, uint32_t n, double s)
{
	double sum = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		share[i] = pow(1.0 + i, -s);
		sum += share[i];
	}
	for (i = 0; i < n; i++)
		share[i] /= sum;
}

/*
 * A token picks top-k distinct experts, so no expert receives more than 1/k
 * of the routed slots: cap the shares there and hand the excess to the
 * others in proportion (water-filling).
 */
static void
cap_shares(double *share, uint32_t n, double cap)
{
	uint32_t it, i;

	for (it = 0; it < n; it++) {
		double excess = 0, free_sum = 0;

		for (i = 0; i < n; i++) {
			if (share[i] > cap) {
				excess += share[i] - cap;
				share[i] = cap;
			} else if (share[i] < cap) {
				free_sum += share[i];
			}
		}
		if (excess <= 1e-15 || free_sum <= 0)
			return;
		for (i = 0; i < n; i++)
			if (share[i] < cap)
				share[i] += excess * share[i] / free_sum;
	}
}

static int
by_share_desc(const void *a, const void *b)
{
	const double *x = *(const double *const *)a, *y = *(const double *const *)b;

	if (*x != *y)
		return *x < *y ? 1 : -1;
	return x < y ? -1 : x > y; /* stable: by expert index */
}

double
ft_plan_expert_max_load(const double *share, uint32_t n, uint32_t ep, bool by_heat)
{
	uint32_t per = ep ? n / ep : 0, i, r;
	double load_max = 0, total = 0;
	double *load;
	uint32_t *count;
	const double **order;

	if (!ep || !per || n % ep)
		return 1;
	load = ft_calloc(ep, sizeof(*load));
	count = ft_calloc(ep, sizeof(*count));
	order = ft_calloc(n, sizeof(*order));
	if (!load || !count || !order) {
		ft_free(load);
		ft_free(count);
		ft_free(order);
		return -1;
	}
	for (i = 0; i < n; i++) {
		order[i] = &share[i];
		total += share[i];
	}
	if (by_heat)
		qsort(order, n, sizeof(*order), by_share_desc);
	for (i = 0; i < n; i++) {
		uint32_t best = 0;

		if (!by_heat) {
			best = i / per;
		} else {
			for (r = 0; r < ep; r++)
				if (count[r] < per && (count[best] >= per || load[r] < load[best]))
					best = r;
		}
		load[best] += *order[i];
		count[best]++;
	}
	for (r = 0; r < ep; r++)
		load_max = FT_MAX(load_max, load[r]);
	ft_free(load);
	ft_free(count);
	ft_free(order);
	return total > 0 ? load_max / total * ep : 1;
}

int
ft__plan_moe_skew(struct ft_plan_moe *out, const struct ft_plan_model *m,
                  const struct ft_plan_config *c)
{
	uint32_t n = m->experts, i;
	double *share, cap, dropped = 0, ml;

	out->max_load = 1;
	out->dropped = 0;
	if (!n)
		return 0;
	share = ft_calloc(n, sizeof(*share));
	if (!share)
		return FT_ENOMEM;
	ft_plan_zipf(share, n, c->zipf);
	if (m->topk > 1)
		cap_shares(share, n, 1.0 / m->topk);
	out->hottest_expert = share[0];
	if (m->capacity > 0) {
		cap = m->capacity / n;
		for (i = 0; i < n; i++)
			if (share[i] > cap) {
				dropped += share[i] - cap;
				share[i] = cap;
			}
	}
	out->dropped = dropped;
	ml = ft_plan_expert_max_load(share, n, c->ep, c->place_by_heat);
	ft_free(share);
	if (ml < 0)
		return FT_ENOMEM;
	/* Load relative to the uniform case of the tokens kept. */
	out->max_load = ml * (1 - dropped);
	if (out->max_load < 1)
		out->max_load = 1;
	return 0;
}

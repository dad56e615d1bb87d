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
 * rest. The shares are a Zipf law or a measured histogram (tokens per
 * expert). Experts are placed in order (expert e on rank e / (E/ep), so the
 * hottest experts share a rank) or by heat: hottest first onto the least
 * loaded rank with room (greedy longest-processing-time), which spreads the
 * hot experts over the ranks; the hottest may also get a second copy on
 * another rank, each copy serving half their tokens (replicas cost one more
 * expert's memory on the ranks that hold them).
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

struct item {
	double share;
	uint32_t expert;
};

static int
by_share_desc(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->share != y->share)
		return x->share < y->share ? 1 : -1;
	return x->expert < y->expert ? -1 : x->expert > y->expert; /* stable: by expert index */
}

double
ft_plan_expert_max_load(const double *share, uint32_t n, uint32_t ep, bool by_heat,
                        uint32_t replicas)
{
	uint32_t per = ep ? n / ep : 0, slots, nitems, i, r;
	double load_max = 0, total = 0;
	struct item *it;
	double *load;
	uint32_t *count, *where;

	if (!ep || !per || n % ep)
		return 1;
	if (!by_heat)
		replicas = 0;
	replicas = FT_MIN(replicas, FT_MIN(ep, n));
	if (ep == 1)
		replicas = 0;
	slots = per + (replicas + ep - 1) / ep;
	nitems = n + replicas;
	it = ft_calloc(nitems, sizeof(*it));
	load = ft_calloc(ep, sizeof(*load));
	count = ft_calloc(ep, sizeof(*count));
	where = ft_calloc(n, sizeof(*where));
	if (!it || !load || !count || !where) {
		ft_free(it);
		ft_free(load);
		ft_free(count);
		ft_free(where);
		return -1;
	}
	for (i = 0; i < n; i++) {
		it[i] = (struct item){ share[i], i };
		total += share[i];
		where[i] = UINT32_MAX;
	}
	if (by_heat) {
		qsort(it, n, sizeof(*it), by_share_desc);
		for (i = 0; i < replicas; i++) { /* split the hottest in two copies */
			it[i].share /= 2;
			it[n + i] = it[i];
		}
		qsort(it, nitems, sizeof(*it), by_share_desc);
	}
	for (i = 0; i < nitems; i++) {
		uint32_t best = UINT32_MAX;

		if (!by_heat) {
			best = i / per;
		} else {
			for (r = 0; r < ep; r++) {
				if (count[r] >= slots || where[it[i].expert] == r)
					continue;
				if (best == UINT32_MAX || load[r] < load[best])
					best = r;
			}
		}
		if (best == UINT32_MAX) /* cannot happen: slots x ep >= items, copies apart */
			best = 0;
		load[best] += it[i].share;
		count[best]++;
		where[it[i].expert] = best;
	}
	for (r = 0; r < ep; r++)
		load_max = FT_MAX(load_max, load[r]);
	ft_free(it);
	ft_free(load);
	ft_free(count);
	ft_free(where);
	return total > 0 ? load_max / total * ep : 1;
}

int
ft__plan_moe_skew(struct ft_plan_moe *out, const struct ft_plan_model *m,
                  const struct ft_plan_config *c)
{
	uint32_t n = m->experts, i;
	double *share, cap, dropped = 0, ml, sum = 0;

	out->max_load = 1;
	out->dropped = 0;
	if (!n)
		return 0;
	share = ft_calloc(n, sizeof(*share));
	if (!share)
		return FT_ENOMEM;
	if (c->expert_load) {
		for (i = 0; i < n; i++)
			sum += c->expert_load[i];
		for (i = 0; i < n; i++)
			share[i] = sum > 0 ? c->expert_load[i] / sum : 1.0 / n;
	} else {
		ft_plan_zipf(share, n, c->zipf);
	}
	if (m->topk > 1)
		cap_shares(share, n, 1.0 / m->topk);
	out->hottest_expert = 0;
	for (i = 0; i < n; i++)
		out->hottest_expert = FT_MAX(out->hottest_expert, share[i]);
	if (m->capacity > 0) {
		cap = m->capacity / n;
		for (i = 0; i < n; i++)
			if (share[i] > cap) {
				dropped += share[i] - cap;
				share[i] = cap;
			}
	}
	out->dropped = dropped;
	out->replicas = c->place_by_heat && c->ep > 1 ? FT_MIN(c->replicas, c->ep) : 0;
	ml = ft_plan_expert_max_load(share, n, c->ep, c->place_by_heat, out->replicas);
	ft_free(share);
	if (ml < 0)
		return FT_ENOMEM;
	/* Load relative to the uniform case of the tokens kept. */
	out->max_load = ml * (1 - dropped);
	if (out->max_load < 1)
		out->max_load = 1;
	return 0;
}

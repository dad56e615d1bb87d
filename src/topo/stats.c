/* SPDX-License-Identifier: MIT */
/*
 * topo/stats.c - summary figures of a topology: counts per kind and tier,
 * oversubscription, bisection and injection bandwidth, diameter.
 *
 * Bisection bandwidth is the capacity, per direction, that crosses a cut of
 * the hosts into two halves, minimised over the cuts that follow the
 * fabric's structure (by leaf, by pod, by group, across a torus dimension):
 * - fat-tree: min(hosts/2 * host rate, half the up capacity of every tier
 *   that has at least two subtrees), summed over planes;
 * - dragonfly: min(hosts/2 * host rate, the global links between two halves
 *   of the groups), or the local links of one group;
 * - torus: min(hosts/2 * host rate, the links cut by halving the largest
 *   dimension: two per ring, a ring per switch of the other dimensions).
 * It is exact for symmetric, fully populated fabrics and the usual
 * engineering figure otherwise. The diameter counts links between two NICs
 * (switch hops + 1): from the tree shape on fat-trees (up*-down* paths are
 * shortest), by breadth-first search over the switch graph elsewhere.
 */
#include "topo_int.h"

static double
fattree_bisection(const struct ft_topo *t, double host)
{
	double sum = 0;

	for (uint32_t p = 0; p < t->ntrees; p++) {
		const struct ft_tree *tr = &t->trees[p];
		double cap = ft__topo_fabric_Bps(t);
		double b = tr->nnics / 2 * host;

		if (tr->nleaves >= 2 && tr->spines_per_pod)
			b = FT_MIN(b, (double)tr->nleaves * tr->up * cap / 2);
		if (tr->npods >= 2 && tr->core_groups)
			b = FT_MIN(b,
			           (double)tr->npods * tr->spines_per_pod * tr->spine_up * cap / 2);
		sum += b;
	}
	return sum;
}

static uint32_t
fattree_diameter(const struct ft_topo *t)
{
	uint32_t d = 0;

	for (uint32_t p = 0; p < t->ntrees; p++) {
		const struct ft_tree *tr = &t->trees[p];
		uint32_t x = tr->nnics < 2 ? 0 : 2;

		if (tr->nleaves >= 2)
			x = tr->core_groups ? 6 : 4;
		d = FT_MAX(d, x);
	}
	return d;
}

static double
dragonfly_bisection(const struct ft_topo *t, double host, uint64_t nhosts)
{
	double cap = ft__topo_fabric_Bps(t), b = (double)(nhosts / 2) * host;
	uint64_t g = t->df_groups, a = t->df_routers;

	if (g >= 2)
		return FT_MIN(b, (double)(g / 2) * (g - g / 2) * t->df_global_per_pair * cap);
	if (a >= 2)
		return FT_MIN(b, (double)(a / 2) * (a - a / 2) * cap);
	return b;
}

static double
torus_bisection(const struct ft_topo *t, double host, uint64_t nhosts)
{
	double cap = ft__topo_fabric_Bps(t), b = (double)(nhosts / 2) * host;
	uint32_t big = 0;

	for (uint32_t d = 1; d < 3; d++)
		if (t->tor_dims[d] > t->tor_dims[big])
			big = d;
	if (t->tor_dims[big] >= 2)
		b = FT_MIN(b, 2.0 * (t->tor_n / t->tor_dims[big]) * cap);
	return b;
}

/* Breadth-first search over switches from every occupied switch (up to 256 of them). */
static int
switch_diameter(const struct ft_topo *t, uint32_t *out)
{
	uint32_t ns = t->nswitches, *dist, *queue, nocc = 0, best = 0, step, nics_max = 0;
	bool *occ;

	dist = ft_malloc((size_t)FT_MAX(ns, 1u) * sizeof(*dist));
	queue = ft_malloc((size_t)FT_MAX(ns, 1u) * sizeof(*queue));
	occ = ft_calloc(FT_MAX(ns, 1u), sizeof(*occ));
	if (!dist || !queue || !occ) {
		ft_free(dist);
		ft_free(queue);
		ft_free(occ);
		return FT_ENOMEM;
	}
	for (uint32_t s = 0; s < ns; s++) {
		uint32_t v = t->switch_base + s, nics = 0;

		for (uint32_t l = t->off[v]; l < t->off[v + 1]; l++)
			nics += t->l[l].kind == FT_L_HOST;
		occ[s] = nics > 0;
		nocc += occ[s];
		nics_max = FT_MAX(nics_max, nics);
	}
	if (nics_max >= 2)
		best = 2;
	step = nocc > 256 ? nocc / 256 : 1;
	for (uint32_t s = 0, k = 0; s < ns; s++) {
		uint32_t head = 0, tail = 0;

		if (!occ[s] || (k++ % step) != 0)
			continue;
		for (uint32_t i = 0; i < ns; i++)
			dist[i] = UINT32_MAX;
		dist[s] = 0;
		queue[tail++] = s;
		while (head < tail) {
			uint32_t x = queue[head++], v = t->switch_base + x;

			if (occ[x] && x != s)
				best = FT_MAX(best, dist[x] + 2);
			for (uint32_t l = t->off[v]; l < t->off[v + 1]; l++) {
				uint32_t y = t->l[l].dst;

				if (y < t->switch_base || !ft__topo_link_live(t, l))
					continue;
				y -= t->switch_base;
				if (dist[y] == UINT32_MAX) {
					dist[y] = dist[x] + 1;
					queue[tail++] = y;
				}
			}
		}
	}
	ft_free(dist);
	ft_free(queue);
	ft_free(occ);
	*out = best;
	return 0;
}

int
ft_topo_stats(const struct ft_topo *t, struct ft_topo_stats *out, struct ft_error *err)
{
	double down[4] = { 0 }, up[4] = { 0 }, host = ft__topo_host_Bps(t);
	uint64_t nhosts = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	for (uint32_t v = 0; v < t->nv; v++) {
		out->nvertices_by_kind[t->v[v].kind]++;
		if (t->v[v].kind == FT_V_SWITCH && t->v[v].tier < 4)
			out->nswitches_by_tier[t->v[v].tier]++;
	}
	for (uint32_t l = 0; l < t->nl; l++) {
		const struct ft_link *k = &t->l[l];

		out->nlinks_by_kind[k->kind]++;
		if (k->kind != FT_L_HOST && k->kind != FT_L_FABRIC)
			continue;
		if (k->tier < 4)
			out->nlinks_by_tier[k->tier]++;
		if (k->kind == FT_L_HOST && k->up) {
			out->injection_Bps += k->cap_Bps;
			nhosts++;
		}
		if (t->v[k->src].kind == FT_V_SWITCH && t->v[k->src].tier < 4) {
			if (k->up)
				up[t->v[k->src].tier] += k->cap_Bps;
			else
				down[t->v[k->src].tier] += k->cap_Bps;
		}
	}
	switch (t->spec.fabric.kind) {
	case FT_FABRIC_FAT_TREE:
	case FT_FABRIC_RAIL_FAT_TREE:
	case FT_FABRIC_MULTI_PLANE:
		for (int i = 1; i < 4; i++)
			out->oversubscription[i] = up[i] > 0 ? down[i] / up[i] : 0;
		out->bisection_Bps = fattree_bisection(t, host);
		out->diameter_hops = fattree_diameter(t);
		break;
	case FT_FABRIC_DRAGONFLY:
		out->bisection_Bps = dragonfly_bisection(t, host, nhosts);
		rc = switch_diameter(t, &out->diameter_hops);
		break;
	case FT_FABRIC_TORUS:
		out->bisection_Bps = torus_bisection(t, host, nhosts);
		rc = switch_diameter(t, &out->diameter_hops);
		break;
	default:
		break;
	}
	if (rc < 0)
		return ft_error_set(err, rc, "topology statistics: out of memory");
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * model/spine.c - the leaves' up-links to the spine of a rail-optimized fat-tree under
 * sends that cross rails from their own NIC (no PXN relay): the share of the NICs' rate
 * they leave a direct all-to-all (links a2a_spine_factor) and a send/recv
 * (sr_spine_factor). docs/internals/model.md, "the spine under sends that cross rails".
 */
#include "model_int.h"

#include <fabtune/topo.h>

#include <math.h>
#include <string.h>

/* The NIC local rank @g's send to local rank @h of another node leaves by: the peer's rail
 * where PXN relays it (links pxn_relay), else the sender's own (node.gpu_nic). */
static uint32_t
send_nic(const struct ft_node_spec *n, const struct ft_model_links *l, uint32_t g, uint32_t h)
{
	uint32_t r = FT_MAX(l->rail_ppn, 1u);

	if (l->pxn && ((l->pxn_relay[g % r] >> (h % r)) & 1u))
		return n->gpu_nic[h];
	return n->gpu_nic[g];
}

/* Whether some send between nodes leaves by its own NIC for a peer on another rail. */
static bool
sends_cross_rails(const struct ft_node_spec *n, const struct ft_model_links *l, uint32_t tppn)
{
	for (uint32_t g = 0; g < tppn; g++)
		for (uint32_t h = 0; h < tppn; h++)
			if (send_nic(n, l, g, h) != n->gpu_nic[h])
				return true;
	return false;
}

/* The leaves of a rail-optimized fat-tree as both spine counts read them. */
struct spine_geo {
	uint32_t down, up; /* a leaf's ports to the nodes and to the spines */
	uint32_t R;        /* NICs (rails) a node */
	double link;       /* the fabric link's payload rate */
};

/*
 * @g from @spec's fabric; false where no spine count applies: no rail-optimized fat-tree,
 * one node, or more than one NIC a GPU (send_nic() knows one NIC a GPU; the flow engine
 * spreads a GPU's queue pairs over its NICs, which the count does not follow).
 */
static bool
spine_geo(const struct ft_cluster_spec *spec, const struct ft_model_links *l,
          struct spine_geo *g)
{
	const struct ft_fabric_spec *f = &spec->fabric;

	g->R = spec->node.nnics;
	if (f->kind != FT_FABRIC_RAIL_FAT_TREE || f->radix == 0 || l->nnodes < 2 || g->R == 0 ||
	    g->R > FT_SPEC_MAX_NICS || l->gpu_nics > 1)
		return false;
	ft_spec_leaf_ports(f, &g->down, &g->up);
	if (g->down == 0 || g->up == 0 || g->up > 1024)
		return false;
	g->link = f->link_Bps > 0 ? f->link_Bps * ft_model_link_efficiency(spec, FT_L_FABRIC) :
	                            l->nic_Bps;
	return g->link > 0;
}

/*
 * The up-links the spine counts load, leaf by leaf: under D-mod-K the busiest link as
 * counted; under adaptive routing, which puts each flow on the least loaded link,
 * ceil(k / up); under ECMP each flow hashes onto one of its leaf's up links at random (and,
 * where a spine has more than one cable to the destination leaf, again onto one of them:
 * uplinks_add_down()), and the job waits for the busiest link of all its leaves, up or
 * down: the expected maximum (uplinks_ecmp_max()). Each flow is a ball of its own, as on
 * Ethernet, where each QP's UDP source port is hashed (kb ROCE-WIRE). On InfiniBand the
 * engines forward by destination LID (topo/route.c ecmp_hash(), kb IB-SM): every flow into
 * one NIC takes one port per switch, fewer and heavier balls, and the busiest link carries
 * more than one ball a flow would: there (@dlid) a ball is a destination NIC's flows through
 * the leaf (or, down, a source leaf's flows into one NIC), a weight, and a group of balls of
 * weights w_i is counted as round(S^2 / Q) balls of the weight S / that (S the sum of the
 * w_i, Q of their squares): exact where the weights are equal (every destination NIC of an
 * all-to-all gets as many flows from a leaf), the same total and nearly the same spread
 * where they are not. The busiest link of all then weighs the groups' counts
 * (uplinks_ecmp_wmax()). dgx-h100:36, PXN off, all-to-all of 64 MiB: 1,433 us a ball a
 * flow, 2,977 in the flow engine.
 */
struct uplinks {
	enum ft_routing routing;
	bool dlid;    /* ECMP forwarded by destination LID (InfiniBand) */
	uint32_t up;
	double hot;   /* D-mod-K, adaptive: the busiest link's flows so far */
	double *k;    /* ECMP: each group's balls */
	double *w;    /* and each ball's flows (after k in one block) */
	uint32_t n, cap;
	bool nomem;
};

/* ECMP: one more group of @k balls of @w flows each hashed onto @u->up links. */
static void
uplinks_push_w(struct uplinks *u, double k, double w)
{
	if (u->n == u->cap) {
		uint32_t cap = u->cap ? 2 * u->cap : 64;
		double *p = ft_malloc(sizeof(*p) * 2 * cap);

		if (!p) {
			u->nomem = true;
			return;
		}
		if (u->n) {
			memcpy(p, u->k, sizeof(*p) * u->n);
			memcpy(p + cap, u->w, sizeof(*p) * u->n);
		}
		ft_free(u->k);
		u->k = p;
		u->w = p + cap;
		u->cap = cap;
	}
	u->k[u->n] = k;
	u->w[u->n++] = w;
}

static void
uplinks_push(struct uplinks *u, double k)
{
	uplinks_push_w(u, k, 1.0);
}

/* By destination LID: balls of @s flows in all, @q the sum of their squares, as one group
 * of equal balls (struct uplinks). */
static void
uplinks_push_balls(struct uplinks *u, double s, double q)
{
	double k;

	if (!(s > 0) || !(q > 0))
		return;
	k = FT_MAX(1.0, round(s * s / q));
	uplinks_push_w(u, k, s / k);
}

static void
uplinks_add(struct uplinks *u, const double *load)
{
	double k = 0, hot = 0;

	for (uint32_t i = 0; i < u->up; i++) {
		k += load[i];
		hot = FT_MAX(hot, load[i]);
	}
	if (k == 0)
		return;
	if (u->routing == FT_ROUTING_DMODK || u->routing == FT_ROUTING_MINHOP)
		u->hot = FT_MAX(u->hot, hot);
	else if (u->routing != FT_ROUTING_ECMP)
		u->hot = FT_MAX(u->hot, ceil(k / u->up));
	else
		uplinks_push(u, k);
}

/*
 * ECMP: the way down. Leaf up-link m goes to spine m mod spines (topo/fattree.c
 * build_tree()), so a flow's up-link names its spine; that spine has @cables parallel
 * cables to the destination leaf (ft_topo_fattree_leaf_port(): up / spines), and where
 * there are more than one it hashes the flow again onto one of them (topo/route.c
 * ft__route_fattree() offers them all, ft__route_ecmp_index() picks): the flow lands on
 * any of the destination leaf's `up` down-cables alike, a second draw of balls into bins,
 * taken as independent of the up-links'. With one cable a pair (every 3-tier pod, the
 * larger 2-tier trees) there is no second hash: the down-cable is the one the up-link
 * chose. Where all of a leaf's flows in come from one source leaf, each down-cable carries
 * a part of one up-link's flows and is never the busier: no group. Where they come from
 * several, a down-cable sums the picks of several leaves' up-links, another partition of
 * the same draws, counted as a draw of its own (independent: an approximation, close
 * where many leaves each add a few). @kin: the flows into each of @nleaves leaves from the
 * spine, @from the one leaf they come from (SPINE_FROM_MANY: several). D-mod-K sends a
 * flow down the reverse of the destination's own way up and adaptive routing the least
 * loaded cable: not counted.
 */
#define SPINE_FROM_NONE UINT32_MAX
#define SPINE_FROM_MANY (UINT32_MAX - 1)

static void
uplinks_add_down(struct uplinks *u, const double *kin, const uint32_t *from, uint32_t nleaves,
                 uint32_t cables)
{
	const double *kq = kin ? kin + nleaves : NULL; /* by DLID: the squares */

	for (uint32_t i = 0; kin && i < nleaves; i++) {
		if (!(kin[i] > 0 && (cables > 1 || from[i] == SPINE_FROM_MANY)))
			continue;
		if (u->dlid)
			uplinks_push_balls(u, kin[i], kq[i]);
		else
			uplinks_push(u, kin[i]);
	}
}

/* A flow into leaf @to from leaf @src: who sends into @to (uplinks_add_down()). */
static void
down_from(uint32_t *from, uint32_t to, uint32_t src)
{
	if (from[to] == SPINE_FROM_NONE)
		from[to] = src;
	else if (from[to] != src)
		from[to] = SPINE_FROM_MANY;
}

/*
 * P(max <= t) for t = 0 .. k into @F (k + 1 entries) of k flows hashed uniformly onto @up
 * links. Exact while it is cheap: the multinomial count k! / up^k [x^k] (sum_{i<=t} x^i /
 * i!)^up, by a product of the truncated series link by link; else the links taken as
 * independent, each Binomial(k, 1 / up), which is a little low for the max (the links'
 * counts are negatively associated: 8 flows on 4 links 3.28 for the exact 3.54, 100 on 16
 * 10.83 for 11.02; off by less as k / up grows).
 */
static int
ecmp_leaf_cdf(uint32_t k, uint32_t up, double *F)
{
	double lp = log(1.0 / up), lq = log1p(-1.0 / up);
	uint32_t t, s, b, i;

	if (up == 1) {
		for (t = 0; t <= k; t++)
			F[t] = t >= k ? 1.0 : 0.0;
		return 0;
	}
	if (k <= 150 && (double)up * k * k * k <= 3e7) {
		double *h = ft_malloc(sizeof(*h) * 2 * (k + 1)), *g, invf[151];

		if (!h)
			return -1;
		g = h + k + 1; /* not before the check: no offset from a null pointer */
		invf[0] = 1.0;
		for (i = 1; i <= k; i++)
			invf[i] = invf[i - 1] / i;
		for (t = 0; t < k; t++) {
			memset(h, 0, sizeof(*h) * (k + 1));
			h[0] = 1.0;
			for (b = 0; b < up; b++) {
				for (s = 0; s <= k; s++) {
					double v = 0;

					for (i = 0; i <= FT_MIN(t, s); i++)
						v += h[s - i] * invf[i];
					g[s] = v;
				}
				memcpy(h, g, sizeof(*h) * (k + 1));
			}
			F[t] = FT_MIN(1.0, h[k] * exp(lgamma(k + 1.0) - k * log((double)up)));
		}
		F[k] = 1.0;
		ft_free(h);
		return 0;
	}
	/* independent binomials: the tail from the top for F near 1; past 40 standard
	 * deviations of the mean a link's count is out of reach of a double (F 0 or 1) */
	{
		double sf = 0, mu = (double)k / up, w = 40.0 * sqrt(mu * (1.0 - 1.0 / up)) + 10.0;
		uint32_t lo = mu > w ? (uint32_t)(mu - w) : 0, hi = (uint32_t)FT_MIN(k, mu + w);

		for (t = hi; t <= k; t++)
			F[t] = 1.0;
		for (t = hi; t-- > lo;) {
			sf += exp(lgamma(k + 1.0) - lgamma(t + 2.0) - lgamma((double)(k - t)) +
			          (t + 1) * lp + (k - t - 1) * lq);
			F[t] = exp(up * log1p(-FT_MIN(sf, 1.0)));
		}
		for (t = 0; t < lo; t++)
			F[t] = 0.0;
	}
	return 0;
}

/*
 * E[max] over all the loaded up-links of the job (@u's leaves, and under ECMP the
 * down-cables into each leaf): sum over t >= 0 of 1 - P(every link <= t), the draws
 * independent of each other. kb ROCE-ECMP.
 * Negative where memory runs out. Leaves of equal counts are taken together: @u->k keeps
 * the first of each and the others become 0 (its counts are spent).
 */
static double
uplinks_ecmp_max(struct uplinks *u)
{
	uint32_t kmax = 0, i, j, t;
	double *F, *logp, e = 0;

	for (i = 0; i < u->n; i++)
		kmax = FT_MAX(kmax, (uint32_t)u->k[i]);
	F = ft_malloc(sizeof(*F) * (kmax + 1));
	logp = ft_calloc(kmax + 1, sizeof(*logp));
	if (!F || !logp) {
		ft_free(F);
		ft_free(logp);
		return -1;
	}
	for (i = 0; i < u->n; i++) {
		uint32_t k = (uint32_t)u->k[i], cnt = 0;

		if (k == 0)
			continue;
		for (j = i; j < u->n; j++)
			if ((uint32_t)u->k[j] == k) {
				cnt++;
				if (j > i)
					u->k[j] = 0; /* counted with leaf i */
			}
		if (ecmp_leaf_cdf(k, u->up, F) < 0) {
			e = -1;
			break;
		}
		for (t = 0; t < k; t++)
			logp[t] += F[t] > 0 ? cnt * log(F[t]) : -INFINITY;
	}
	if (e == 0)
		for (t = 0; t < kmax; t++)
			e += -expm1(logp[t]);
	ft_free(F);
	ft_free(logp);
	return e;
}

/* A step of the busiest link's CDF: group @g's count passes @c at @t flows. */
struct wstep {
	double t;
	uint32_t g, c;
};

static int
wstep_cmp(const void *a, const void *b)
{
	double x = ((const struct wstep *)a)->t, y = ((const struct wstep *)b)->t;

	return (x > y) - (x < y);
}

/*
 * By destination LID: E[max] over the loaded links of @u's groups, each group's busiest
 * link carrying w times its count of balls: the integral over t of 1 - P(max <= t), where
 * P(max <= t) = prod over the groups of F_g(floor(t / w_g)) (ecmp_leaf_cdf(), the groups
 * independent as uplinks_ecmp_max() takes them), a step function that changes where t
 * passes c x w_g, walked in order. Negative where memory runs out; @u's counts are spent.
 */
static double
uplinks_ecmp_wmax(struct uplinks *u)
{
	uint32_t i, j, c, nzero = 0, nst = 0, ktot = 0;
	uint32_t *cnt = ft_calloc(u->n, sizeof(*cnt)), *off = ft_malloc(sizeof(*off) * u->n);
	double *F = NULL, logp = 0, prev = 0, e = -1;
	struct wstep *st = NULL;

	if (!cnt || !off)
		goto out;
	for (i = 0; i < u->n; i++) { /* groups of equal balls taken together, in cnt[i] */
		if (u->k[i] == 0)
			continue;
		for (j = i; j < u->n; j++)
			if (u->k[j] == u->k[i] && u->w[j] == u->w[i]) {
				cnt[i]++;
				if (j > i)
					u->k[j] = 0;
			}
		off[i] = ktot;
		ktot += (uint32_t)u->k[i] + 1;
	}
	F = ft_malloc(sizeof(*F) * (ktot ? ktot : 1));
	st = ft_malloc(sizeof(*st) * (ktot ? ktot : 1));
	if (!F || !st)
		goto out;
	for (i = 0; i < u->n; i++) {
		uint32_t k = (uint32_t)u->k[i];

		if (k == 0)
			continue;
		if (ecmp_leaf_cdf(k, u->up, F + off[i]) < 0)
			goto out;
		if (F[off[i]] > 0)
			logp += cnt[i] * log(F[off[i]]);
		else
			nzero++;
		for (c = 1; c <= k; c++)
			st[nst++] = (struct wstep){ .t = c * u->w[i], .g = i, .c = c };
	}
	qsort(st, nst, sizeof(*st), wstep_cmp);
	/* P(max <= t) is 0 while a group's factor is (nzero), else exp(logp) */
	e = 0;
	for (j = 0; j < nst; j++) {
		const double *Fg = F + off[st[j].g];
		double a = Fg[st[j].c - 1], b = Fg[st[j].c];

		e += (nzero ? 1.0 : -expm1(logp)) * (st[j].t - prev);
		prev = st[j].t;
		if (a > 0)
			logp -= cnt[st[j].g] * log(a);
		else
			nzero--;
		if (b > 0)
			logp += cnt[st[j].g] * log(b);
		else
			nzero++;
	}
out:
	ft_free(cnt);
	ft_free(off);
	ft_free(F);
	ft_free(st);
	return e;
}

/* The busiest up-link's flows of @u (0: none loaded; negative: out of memory). */
static double
uplinks_hot(struct uplinks *u)
{
	double hot = u->hot;

	if (u->nomem)
		hot = -1;
	else if (u->routing == FT_ROUTING_ECMP && u->n && u->dlid)
		hot = uplinks_ecmp_wmax(u);
	else if (u->routing == FT_ROUTING_ECMP && u->n)
		hot = uplinks_ecmp_max(u);
	ft_free(u->k);
	u->k = NULL;
	return hot;
}

/* The share @u's busiest up-link leaves of the NICs' rate: a NIC's time @t_nic for what one
 * up-link flow carries, over that flow's time on the busiest up-link at @link, at most 1
 * (@f untouched where none is loaded); FT_ENOMEM. */
static int
uplinks_share(struct uplinks *u, double t_nic, double link, double *f)
{
	double hot = uplinks_hot(u);

	if (hot < 0)
		return FT_ENOMEM;
	if (hot > 0)
		*f = FT_MIN(1.0, t_nic / (hot / link));
	return 0;
}

/*
 * Where the NICs of the job's @T nodes (trays), @R a node, hang: the leaf of NIC r of node m
 * in @nl->leaf[m x R + r] and the up-link D-mod-K sends a flow to it by from another leaf
 * (of @up) in @nl->up[m x R + r], as the topology lays the fabric out and routes it
 * (ft_topo_fattree_leaf_port(), ft_topo_dmodk_pick(): the spec's planes and its node
 * groups' NIC stride honoured); @nl->nleaves past the last leaf, @nl->cables a spine's
 * cables to each leaf. 1 where the count does not apply (a NIC of a node group that lacks
 * it, a NIC on another plane), FT_ENOMEM, FT_EINVAL where the topology places none of them
 * (a job past the spec's nodes, a fabric it cannot build), else 0.
 */
struct nic_leaves {
	uint32_t *leaf, *up, *key, *from, nleaves, cables;
	uint32_t down; /* a leaf's down ports (the key's leaf stride) */
};

/*
 * The up-link a leaf @src sends a flow to NIC @i by. D-mod-K: nl->up[i], the same from
 * every leaf. minhop (topo/route.c, OpenSM osm_switch_recommend_path(); kb IB-SM): the leaf
 * deals its remote LIDs, in key order, over its up-links in turn, the least used first: NIC
 * i, the (key - down)-th remote LID past the leaf's own NICs (the key-th before them), goes
 * up that rank mod up. Where up divides down this is D-mod-K's key mod up, the balanced
 * table; where not, the leaves past @src see the keys shifted by down mod up and a shift
 * or an all-to-all counts what the shifted picks give. Exact where the leaves hold a NIC on
 * every down port up to the last (the topology's layout, ft_topo_fattree_leaf_port()).
 */
static uint32_t
nl_up(const struct nic_leaves *nl, enum ft_routing r, size_t i, uint32_t src, uint32_t up)
{
	uint64_t k;

	if (r != FT_ROUTING_MINHOP)
		return nl->up[i];
	k = nl->key[i];
	if (k >= ((uint64_t)src + 1) * nl->down)
		k -= nl->down;
	return (uint32_t)(k % up);
}

static int
nic_leaves(const struct ft_cluster_spec *spec, uint32_t T, uint32_t R, uint32_t up,
           struct nic_leaves *nl)
{
	struct ft_topo_leaf_port lp;
	uint32_t d_up;
	size_t i;

	nl->nleaves = 0;
	nl->cables = 0;
	ft_spec_leaf_ports(&spec->fabric, &nl->down, &d_up);
	nl->from = NULL;
	nl->leaf = ft_malloc(sizeof(*nl->leaf) * 3 * (size_t)T * R);
	if (!nl->leaf)
		return FT_ENOMEM;
	nl->up = nl->leaf + (size_t)T * R; /* not before the check */
	nl->key = nl->up + (size_t)T * R;
	for (i = 0; i < (size_t)T * R; i++) {
		uint32_t m = (uint32_t)(i / R), r = (uint32_t)(i % R);
		int rc = ft_topo_fattree_leaf_port(spec, m, r, &lp);

		if (rc < 0 || lp.plane != 0) {
			ft_free(nl->leaf);
			nl->leaf = NULL;
			if (rc == 0 || (m < spec->nnodes && r >= ft_spec_node_at(spec, m)->nnics))
				return 1;
			return rc;
		}
		nl->leaf[i] = lp.leaf;
		nl->up[i] = ft_topo_dmodk_pick(lp.key, up);
		nl->key[i] = (uint32_t)lp.key;
		nl->nleaves = FT_MAX(nl->nleaves, lp.leaf + 1);
		nl->cables = lp.cables;
	}
	return 0;
}

/* ECMP: the flows into each leaf (*@kin, by DLID then their balls' squares, then each of
 * the @nnics NICs' flows in and their source leaves' squares: down_balls()) and where they
 * come from (nl->from), zeroed; else none. FT_ENOMEM (@nl freed). */
static int
nic_leaves_down(struct nic_leaves *nl, const struct uplinks *u, size_t nnics, double **kin)
{
	*kin = NULL;
	if (u->routing != FT_ROUTING_ECMP)
		return 0;
	/* by DLID the squares of the balls follow (uplinks_add_down()) */
	*kin = ft_calloc(u->dlid ? (size_t)nl->nleaves * 2 + nnics * 2 : nl->nleaves,
	                 sizeof(**kin));
	nl->from = ft_malloc(sizeof(*nl->from) * nl->nleaves);
	if (!*kin || !nl->from) {
		ft_free(*kin);
		*kin = NULL;
		ft_free(nl->from);
		ft_free(nl->leaf);
		return FT_ENOMEM;
	}
	for (uint32_t i = 0; i < nl->nleaves; i++)
		nl->from[i] = SPINE_FROM_NONE;
	return 0;
}

/*
 * By DLID, the balls on a leaf's down-cables: a destination NIC's flows from each source
 * leaf come to the spine the source leaf's table picks for its LID, and that spine's own
 * table sends every one of them down one of its @nl cables to the leaf (topo/route.c
 * choose(): ft_mix64(ft__route_dlid_hash(nic) ^ salt(at)), the same pick whatever leaf the
 * flows came from; kb IB-SM). Two source leaves' flows to one NIC thus share a down-cable
 * where they picked one spine, 1 / spines, not 1 / up as two balls thrown apart would:
 * with @nl cables a spine and @up cables a leaf, the NIC's flows count as balls whose
 * squares hold that share, sum w^2 + (S^2 - sum w^2) rho with rho = (cables - 1) / (up - 1)
 * (the pairs of flows that share a ball land together, the others 1 / up apart: rho + (1 -
 * rho) / up = 1 / spines), S the NIC's flows in, sum w^2 its source leaves' squares
 * (@nicw, @nicq: @nnics each). One cable a spine: rho 0, the balls as thrown. Into
 * @kq, the squares by leaf. dgx-h100:36 without PXN on IB under ECMP, 64 MiB: the busiest
 * down-cable's flows 507 as independent balls, 604 so (the engine's hashes drawn 20 times:
 * 506 thrown apart, 622 merged at the spine; the flow engine at seeds 1 to 3: 626, 568
 * and 599).
 */
static void
down_balls(const struct nic_leaves *nl, uint32_t up, size_t nnics, const double *nicw,
           const double *nicq, double *kq)
{
	double rho = nl->cables > 1 && up > 1 ? (double)(nl->cables - 1) / (up - 1) : 0.0;

	for (size_t i = 0; i < nnics; i++)
		if (nicw[i] > 0)
			kq[nl->leaf[i]] += nicq[i] + (nicw[i] * nicw[i] - nicq[i]) * rho;
}

/* The end of the run of nodes from @lo whose NICs share one leaf each (a scalable unit as
 * the topology lays it out). */
static uint32_t
leaf_run(const struct nic_leaves *nl, uint32_t T, uint32_t R, uint32_t lo)
{
	uint32_t hi = lo + 1, r;

	for (; hi < T; hi++) {
		for (r = 0; r < R; r++)
			if (nl->leaf[(size_t)hi * R + r] != nl->leaf[(size_t)lo * R + r])
				break;
		if (r < R)
			break;
	}
	return hi;
}

/*
 * The spine's share of the direct all-to-all's NIC rate (links a2a_spine_factor) on a
 * rail-optimized fat-tree where some sends cross rails from their own NIC: NCCL without
 * PXN (nccl.pxn_disable, or a C2C node before 2.28.3, ft_model_pxn_relay()). Such a send
 * goes leaf, spine, leaf; so does one on its rail to another scalable unit. The fabric is
 * the topology's (nic_leaves()): each NIC on the leaf it lays it out on, the nodes taken in
 * runs whose NICs share a leaf each (leaf_run(): the scalable units as the topology forms
 * them); every leaf has `up` links to the spines (ft_spec_leaf_ports(), the
 * oversubscription).
 * Each rank sends S / n to each of the n - ppn ranks outside its node (or NVLink domain),
 * one flow a peer as the flow engine runs it. Per leaf, the flows that go up are counted
 * by the up-link the fabric's routing gives them:
 * D-mod-K (IB-SM, topo/route.c dmodk_pick(), ft_topo_dmodk_pick()) sends a flow up link
 * (leaf' x down + port') mod up of the destination NIC's leaf' and port'; ECMP and adaptive
 * routing spread them (struct uplinks).
 * The up-link carries its flows at the fabric's link rate (less headers), the NICs their
 * ppn (n - ppn) flows of a node at inter_Bps: the share is the NICs' time over the
 * busiest up-link's of the job, at most 1. The spine's down-links (but ECMP's) and a third
 * tier are not counted.
 */
int
ft__model_spine_factor(const struct ft_cluster_spec *spec, const struct ft_model_links *l,
                       double *f)
{
	const struct ft_node_spec *n = &spec->node;
	uint32_t dom = FT_MAX(l->domain_nodes, 1u);
	uint32_t T, tppn, lo, hi, j, h, m, g, R, up;
	struct spine_geo geo;
	struct uplinks ul = { .routing = spec->fabric.routing };
	struct nic_leaves nl;
	double load[1024], t_nic, *kin;
	int rc;

	*f = 1.0;
	if (!spine_geo(spec, l, &geo) || !(l->inter_Bps > 0) || l->ppn % dom != 0)
		return 0;
	R = geo.R;
	up = ul.up = geo.up;
	ul.dlid = ul.routing == FT_ROUTING_ECMP && ft__topo_fabric_tech(spec) == FT_TECH_IB;
	T = l->nnodes * dom; /* nodes (trays) */
	tppn = FT_MIN(l->ppn / dom, n->ngpus);
	if (tppn == 0 || !sends_cross_rails(n, l, tppn))
		return 0;
	for (g = 0; g < tppn; g++)
		if (n->gpu_nic[g] >= R)
			return 0;
	rc = nic_leaves(spec, T, R, up, &nl);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	rc = nic_leaves_down(&nl, &ul, (size_t)T * R, &kin);
	if (rc < 0)
		return rc;
	/* a node's NICs' time for its flows, in units of one flow's bytes */
	t_nic = (double)l->ppn * (double)(l->nranks - l->ppn) / l->inter_Bps;
	for (lo = 0; lo < T; lo = hi) {
		hi = leaf_run(&nl, T, R, lo);
		for (j = 0; j < R; j++) {
			uint32_t leaf = nl.leaf[(size_t)lo * R + j];
			uint32_t c[FT_SPEC_MAX_NICS] = { 0 }, jd;
			double bs = 0, bq = 0; /* by DLID: the balls' flows, their squares */

			/* flows to each GPU of a node, by its NIC: the run's senders on NIC j */
			for (h = 0; h < tppn; h++)
				for (g = 0; g < tppn; g++)
					c[n->gpu_nic[h]] += send_nic(n, l, g, h) == j;
			memset(load, 0, sizeof(load[0]) * up);
			for (jd = 0; jd < R; jd++) {
				uint32_t d0 = 0;

				for (m = 0; c[jd] && m < T; m++) {
					size_t i = (size_t)m * R + jd;
					uint32_t a, b;
					double w;

					if (m - d0 == dom)
						d0 = m;
					if (nl.leaf[i] == leaf)
						continue; /* down the same leaf */
					/* the run's nodes outside m's node or NVLink domain */
					a = FT_MAX(lo, d0);
					b = FT_MIN(hi, d0 + dom);
					w = (double)c[jd] * (hi - lo - (b > a ? b - a : 0));
					load[nl_up(&nl, ul.routing, i, leaf, up)] += w;
					bs += w; /* NIC i's flows: one ball */
					bq += w * w;
					if (kin && w > 0) {
						kin[nl.leaf[i]] += w;
						if (ul.dlid) { /* NIC i's, by source leaf */
							kin[2 * nl.nleaves + i] += w;
							kin[2 * nl.nleaves + (size_t)T * R + i] +=
							        w * w;
						}
						down_from(nl.from, nl.leaf[i], leaf);
					}
				}
			}
			if (ul.dlid)
				uplinks_push_balls(&ul, bs, bq);
			else
				uplinks_add(&ul, load);
		}
	}
	if (kin && ul.dlid)
		down_balls(&nl, up, (size_t)T * R, kin + 2 * nl.nleaves,
		           kin + 2 * nl.nleaves + (size_t)T * R, kin + nl.nleaves);
	uplinks_add_down(&ul, kin, nl.from, nl.nleaves, nl.cables);
	ft_free(kin);
	ft_free(nl.from);
	ft_free(nl.leaf);
	return uplinks_share(&ul, t_nic, geo.link, f);
}

/*
 * The spine's share of a send/recv's NIC rate (links sr_spine_factor): rank i sends S to
 * rank i + 1, so between nodes the last local rank of node s sends to local rank 0 of node
 * s + 1 (the last node to the first), one flow each, from the NIC send_nic() gives it to
 * local rank 0's; a flow that changes leaves goes up the link its routing gives it
 * (ft__model_spine_factor()). Each NIC carries one flow: the share is the fabric link's rate over
 * the NIC's times the busiest up-link's flows of the job, at most 1.
 */
int
ft__model_sr_spine_factor(const struct ft_cluster_spec *spec, const struct ft_model_links *l,
                          double *f)
{
	const struct ft_node_spec *n = &spec->node;
	uint32_t T = l->nnodes, js, jd, lo, hi, s, R;
	struct spine_geo geo;
	struct uplinks ul = { .routing = spec->fabric.routing };
	struct nic_leaves nl;
	double load[1024], *kin;
	int rc;

	*f = 1.0;
	if (!spine_geo(spec, l, &geo) || l->domain_nodes > 1 || l->ppn == 0 ||
	    l->ppn > n->ngpus || !(l->nic_Bps > 0))
		return 0;
	R = geo.R;
	ul.up = geo.up;
	js = send_nic(n, l, l->ppn - 1, 0);
	jd = n->gpu_nic[0];
	if (js >= R || jd >= R)
		return 0;
	rc = nic_leaves(spec, T, R, geo.up, &nl);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	rc = nic_leaves_down(&nl, &ul, 0, &kin);
	if (rc < 0)
		return rc;
	for (lo = 0; lo < T; lo = hi) {
		hi = leaf_run(&nl, T, R, lo);
		memset(load, 0, sizeof(load[0]) * geo.up);
		for (s = lo; s < hi; s++) {
			size_t i = (size_t)((s + 1) % T) * R + jd;
			uint32_t src = nl.leaf[(size_t)s * R + js];

			if (nl.leaf[i] != src) {
				load[nl_up(&nl, ul.routing, i, src, geo.up)] += 1.0;
				if (kin) {
					kin[nl.leaf[i]] += 1.0;
					down_from(nl.from, nl.leaf[i], src);
				}
			}
		}
		uplinks_add(&ul, load);
	}
	uplinks_add_down(&ul, kin, nl.from, nl.nleaves, nl.cables);
	ft_free(kin);
	ft_free(nl.from);
	ft_free(nl.leaf);
	return uplinks_share(&ul, 1.0 / l->nic_Bps, geo.link, f);
}

/* SPDX-License-Identifier: MIT */
/*
 * topo/fattree.c - folded-Clos fabrics: 2- and 3-tier fat-trees, the
 * rail-optimized fat-tree and multi-plane fabrics (independent fat-trees).
 *
 * Leaves have @down ports to NICs and @up ports to spines, down:up being the
 * oversubscription. 2-tier: every leaf spreads its up-links evenly over the
 * spines (the fewest spines whose ports hold all leaf up-links, a divisor of
 * @up so that each leaf-spine pair gets the same number of cables); at most
 * radix leaves. 3-tier: pods of radix/2 leaves with @up spines each (one
 * cable from every leaf to every spine of its pod); spine j of every pod
 * joins core group j, whose cores take the spine's radix/2 up-links (again
 * the fewest cores, a divisor of radix/2); at most radix pods.
 *
 * Plain fat-tree: the NICs of all nodes fill the leaves in order (node-major).
 * Rail-optimized: nodes form scalable units of nodes_per_unit nodes (default:
 * the leaf's down ports); NIC r of every node of unit u sits on leaf
 * (u, r); 3-tier pods hold whole units. Multi-plane: NIC r belongs to plane
 * r % planes, each plane an independent plain fat-tree.
 */
#include "topo_int.h"

static uint32_t
ceil_div(uint64_t a, uint64_t b)
{
	return (uint32_t)((a + b - 1) / b);
}

/* The smallest divisor of @n that is >= @lo (n itself at worst). */
static uint32_t
divisor_at_least(uint32_t n, uint32_t lo)
{
	for (uint32_t d = FT_MAX(lo, 1u); d < n; d++)
		if (n % d == 0)
			return d;
	return n;
}

struct ft_params {
	uint32_t radix, down, up, tiers, planes, nics_per_plane, npu;
	bool rail;
};

/* @groups: node groups of different shapes, laid out at @nic_stride NICs a node. */
static int
spec_params(const struct ft_cluster_spec *spec, bool groups, uint32_t nic_stride,
            struct ft_params *p, struct ft_error *err)
{
	const struct ft_fabric_spec *f = &spec->fabric;
	double o = f->oversubscription > 0 ? f->oversubscription : 1.0;

	memset(p, 0, sizeof(*p));
	p->radix = f->radix;
	if (p->radix < 4 || p->radix > 1024)
		return ft_error_set(err, FT_EINVAL,
		                    "fabric.radix: expected 4..1024 ports, got %" PRIu32, p->radix);
	if (!(o >= 1.0) || o > p->radix - 1)
		return ft_error_set(err, FT_EINVAL,
		                    "fabric.oversubscription: expected 1..%" PRIu32 ", got %g",
		                    p->radix - 1, o);
	/* The spec's rule: down/up as close to the ratio as whole ports allow, never above it. */
	ft_spec_leaf_ports(f, &p->down, &p->up);
	if (p->down == 0 || p->up == 0)
		return ft_error_set(err, FT_EINVAL,
		                    "fabric.oversubscription: a radix-%" PRIu32
		                    " leaf can't split %g:1 into down and up ports",
		                    p->radix, o);
	if (f->tiers != 0 && f->tiers != 2 && f->tiers != 3)
		return ft_error_set(err, FT_EINVAL, "fabric.tiers: expected 2 or 3, got %" PRIu32,
		                    f->tiers);
	p->tiers = f->tiers;
	p->planes = 1;
	if (f->kind == FT_FABRIC_MULTI_PLANE) {
		p->planes = f->planes ? f->planes : 1;
		/* every node group's NICs split evenly over the planes */
		for (uint32_t g = 0; g < FT_MAX(spec->ngroups, 1u) && g < FT_SPEC_MAX_GROUPS; g++) {
			uint32_t nn = spec->ngroups ? spec->groups[g].node.nnics : spec->node.nnics;

			if (p->planes > nn || nn % p->planes)
				return ft_error_set(err, FT_EINVAL,
				                    "fabric.planes: expected a divisor of the %" PRIu32
				                    " NICs per node, got %" PRIu32,
				                    nn, p->planes);
		}
	}
	/* leaves are laid out for the nodes with the most NICs (t->nic_stride) */
	p->nics_per_plane = spec->node.nnics / p->planes;
	if (groups)
		p->nics_per_plane = nic_stride / p->planes;
	p->rail = f->kind == FT_FABRIC_RAIL_FAT_TREE;
	if (p->rail) {
		p->npu = f->nodes_per_unit ? f->nodes_per_unit : p->down;
		if (p->npu > p->down)
			return ft_error_set(err, FT_EINVAL,
			                    "fabric.nodes_per_unit: a leaf has %" PRIu32
			                    " down ports, got %" PRIu32 " nodes per unit",
			                    p->down, p->npu);
	}
	return 0;
}

/* @t's fabric parameters (t->spec, t->ngl, t->nic_stride). */
static int
params(const struct ft_topo *t, struct ft_params *p, struct ft_error *err)
{
	return spec_params(&t->spec, t->ngl != 0, t->nic_stride, p, err);
}

/* Lay out one tree of @nleaves leaves grouped in pods of up to @lpp leaves. */
static int
plan_tree(struct ft_tree *tr, const struct ft_params *p, uint32_t nleaves, uint32_t lpp,
          uint32_t nnics, struct ft_error *err)
{
	uint32_t k = p->radix;
	uint32_t tiers = p->tiers;

	memset(tr, 0, sizeof(*tr));
	tr->down = p->down;
	tr->up = p->up;
	tr->nleaves = nleaves;
	tr->nnics = nnics;
	if (tiers == 0)
		tiers = nleaves <= k ? 2 : 3;
	tr->tiers = tiers;
	if (tiers == 2) {
		if (nleaves > k)
			return ft_error_set(err, FT_EINVAL,
			                    "fabric.radix: a 2-tier fat-tree of radix %" PRIu32
			                    " holds at most %" PRIu32 " leaves, %" PRIu32
			                    " are needed (use tiers: 3 or a larger radix)",
			                    k, k, nleaves);
		tr->npods = 1;
		tr->leaves_per_pod = nleaves;
		tr->spines_per_pod =
		        nleaves > 1 ?
		                divisor_at_least(p->up, ceil_div((uint64_t)nleaves * p->up, k)) :
		                0;
		return 0;
	}
	if (p->up > k / 2)
		return ft_error_set(err, FT_EINVAL,
		                    "fabric.oversubscription: a 3-tier leaf needs at most %" PRIu32
		                    " up ports, got %" PRIu32,
		                    k / 2, p->up);
	tr->leaves_per_pod = lpp;
	tr->npods = ceil_div(nleaves, lpp);
	if (tr->npods > k)
		return ft_error_set(err, FT_EINVAL,
		                    "fabric.radix: a 3-tier fat-tree of radix %" PRIu32
		                    " holds at most %" PRIu32 " pods of %" PRIu32
		                    " leaves, %" PRIu32 " are needed",
		                    k, k, lpp, tr->npods);
	if (tr->npods == 1)
		tr->leaves_per_pod = nleaves;
	tr->spines_per_pod = p->up;
	if (tr->npods > 1) {
		tr->spine_up = k / 2;
		tr->core_groups = tr->spines_per_pod;
		tr->cores_per_group = divisor_at_least(
		        tr->spine_up, ceil_div((uint64_t)tr->npods * tr->spine_up, k));
	}
	return 0;
}

/* Plan one plane's tree @tr of @p for @nnodes nodes: its leaves, pods and spines. */
static int
plan_plane(struct ft_tree *tr, const struct ft_params *p, uint32_t nnodes, struct ft_error *err)
{
	uint64_t nnics = (uint64_t)nnodes * p->nics_per_plane;
	uint64_t nleaves;
	uint32_t lpp = p->radix / 2;

	if (p->rail) {
		uint32_t upp = (p->radix / 2) / p->nics_per_plane;

		nleaves = (uint64_t)ceil_div(nnodes, p->npu) * p->nics_per_plane;
		if (upp == 0 && nleaves > p->radix)
			return ft_error_set(err, FT_EINVAL,
			                    "fabric.radix: a 3-tier pod of radix %" PRIu32
			                    " can't hold the %" PRIu32 " rails of a unit",
			                    p->radix, p->nics_per_plane);
		lpp = FT_MAX(upp, 1u) * p->nics_per_plane;
	} else {
		nleaves = ceil_div(nnics, p->down);
	}
	if (nleaves > UINT32_MAX / 4)
		return ft_error_set(err, FT_ERANGE, "nodes.count: too many leaves");
	return plan_tree(tr, p, (uint32_t)nleaves, lpp, (uint32_t)nnics, err);
}

int
ft__topo_fattree_plan(struct ft_topo *t, struct ft_error *err)
{
	struct ft_params p;
	uint32_t nnodes = t->spec.nnodes, base = t->switch_base;
	int rc = params(t, &p, err);

	if (rc < 0)
		return rc;
	if (p.nics_per_plane == 0)
		return ft_error_set(err, FT_EINVAL,
		                    "nodes.nics.count: a fat-tree needs NICs, got 0");
	t->ntrees = p.planes;
	t->trees = ft_calloc(p.planes, sizeof(*t->trees));
	if (!t->trees)
		return ft_error_set(err, FT_ENOMEM, "topology: out of memory");
	for (uint32_t pl = 0; pl < p.planes; pl++) {
		struct ft_tree *tr = &t->trees[pl];

		rc = plan_plane(tr, &p, nnodes, err);
		if (rc < 0)
			return rc;
		tr->leaf_base = base;
		tr->spine_base = tr->leaf_base + tr->nleaves;
		tr->core_base = tr->spine_base + tr->npods * tr->spines_per_pod;
		base = tr->core_base + tr->core_groups * tr->cores_per_group;
		if (base >= UINT32_MAX / 4)
			return ft_error_set(err, FT_ERANGE, "topology: too many switches");
	}
	t->nswitches = base - t->switch_base;
	return 0;
}

/* The leaf and port of NIC @j of a plane (NIC j x planes + plane of the node) of node @n:
 * rail-optimized, unit n / npu's leaf j, port n mod npu; else the nodes' NICs fill the
 * leaves in order. */
static void
place(const struct ft_params *p, uint32_t n, uint32_t j, uint32_t *leaf, uint32_t *port)
{
	if (p->rail) {
		*leaf = (n / p->npu) * p->nics_per_plane + j;
		*port = n % p->npu;
	} else {
		uint64_t e = (uint64_t)n * p->nics_per_plane + j;

		*leaf = (uint32_t)(e / p->down);
		*port = (uint32_t)(e % p->down);
	}
}

int
ft_topo_fattree_leaf_port(const struct ft_cluster_spec *spec, uint32_t node, uint32_t nic,
                          struct ft_topo_leaf_port *out)
{
	struct ft_params p;
	struct ft_tree tr;
	uint32_t stride;
	bool groups;

	if (!spec || !out || node >= spec->nnodes ||
	    (spec->fabric.kind != FT_FABRIC_FAT_TREE &&
	     spec->fabric.kind != FT_FABRIC_RAIL_FAT_TREE &&
	     spec->fabric.kind != FT_FABRIC_MULTI_PLANE) ||
	    nic >= ft_spec_node_at(spec, node)->nnics)
		return FT_EINVAL;
	stride = ft__topo_nic_stride(spec, &groups); /* topo/graph.c plan_nodes()'s */
	if (spec_params(spec, groups, stride, &p, NULL) < 0 || p.nics_per_plane == 0 ||
	    plan_plane(&tr, &p, spec->nnodes, NULL) < 0)
		return FT_EINVAL;
	out->plane = nic % p.planes;
	place(&p, node, nic / p.planes, &out->leaf, &out->port);
	out->key = (uint64_t)out->leaf * p.down + out->port;
	/* build_tree(): leaf up-link m goes to spine m mod spines_per_pod of its pod */
	out->cables = tr.spines_per_pod ? tr.up / tr.spines_per_pod : 0;
	return 0;
}

uint32_t
ft_topo_dmodk_pick(uint64_t key, uint32_t n)
{
	return n ? (uint32_t)(key % n) : 0;
}

static int
build_tree(struct ft_builder *b, uint32_t pl, const struct ft_params *p)
{
	struct ft_topo *t = b->t;
	const struct ft_tree *tr = &t->trees[pl];
	const struct ft_fabric_spec *f = &t->spec.fabric;
	double cap = ft__topo_fabric_Bps(t);
	double cable = f->lat_cable_s, hop = f->lat_cable_s + f->lat_switch_s;
	int rc = 0;

	for (uint32_t i = 0; i < tr->nleaves; i++)
		ft__topo_set_vertex(t, tr->leaf_base + i, FT_V_SWITCH, 1, pl, FT_NO_NODE, i,
		                    i / tr->leaves_per_pod);
	for (uint32_t i = 0; i < tr->npods * tr->spines_per_pod; i++)
		ft__topo_set_vertex(t, tr->spine_base + i, FT_V_SWITCH, 2, pl, FT_NO_NODE,
		                    i % tr->spines_per_pod, i / tr->spines_per_pod);
	for (uint32_t i = 0; i < tr->core_groups * tr->cores_per_group; i++)
		ft__topo_set_vertex(t, tr->core_base + i, FT_V_SWITCH, 3, pl, FT_NO_NODE,
		                    i % tr->cores_per_group, i / tr->cores_per_group);

	/* Hosts: NIC -> leaf. */
	for (uint32_t n = 0; n < t->spec.nnodes && rc == 0; n++) {
		for (uint32_t j = 0; j < p->nics_per_plane && rc == 0; j++) {
			uint32_t r = j * p->planes + pl; /* NIC index on the node */
			uint32_t nic = ft_topo_nic(t, n, r), leaf, port;

			if (nic == UINT32_MAX)
				continue; /* a node of a group with fewer NICs */
			place(p, n, j, &leaf, &port);
			t->v[nic].plane = (uint8_t)FT_MIN(pl, 255u);
			t->nic_key[(size_t)n * t->nic_stride + r] = (uint64_t)leaf * p->down + port;
			rc = ft__topo_add_edge(b, nic, tr->leaf_base + leaf, FT_L_HOST, 1, true,
			                       ft__topo_host_Bps_node(t, n), cable, hop);
		}
	}
	/* Leaves -> spines. */
	for (uint32_t i = 0; i < tr->nleaves && tr->spines_per_pod && rc == 0; i++) {
		uint32_t pod = i / tr->leaves_per_pod;

		for (uint32_t m = 0; m < tr->up && rc == 0; m++) {
			uint32_t s =
			        tr->spine_base + pod * tr->spines_per_pod + m % tr->spines_per_pod;

			rc = ft__topo_add_edge(b, tr->leaf_base + i, s, FT_L_FABRIC, 2, true, cap,
			                       hop, hop);
		}
	}
	/* Spines -> cores: spine j of every pod to core group j. */
	for (uint32_t i = 0; i < tr->npods * tr->spines_per_pod && tr->core_groups && rc == 0;
	     i++) {
		uint32_t j = i % tr->spines_per_pod;

		for (uint32_t m = 0; m < tr->spine_up && rc == 0; m++) {
			uint32_t c =
			        tr->core_base + j * tr->cores_per_group + m % tr->cores_per_group;

			rc = ft__topo_add_edge(b, tr->spine_base + i, c, FT_L_FABRIC, 3, true, cap,
			                       hop, hop);
		}
	}
	return rc;
}

int
ft__topo_fattree_build(struct ft_builder *b)
{
	struct ft_params p;
	int rc = params(b->t, &p, b->err);

	for (uint32_t pl = 0; pl < b->t->ntrees && rc == 0; pl++)
		rc = build_tree(b, pl, &p);
	return rc;
}

/* ---- routing ------------------------------------------------------------- */

static bool
is_top(const struct ft_tree *tr, unsigned tier)
{
	if (tier == 3)
		return true;
	if (tier == 2)
		return tr->core_groups == 0;
	return tr->spines_per_pod == 0;
}

/* The child of switch @at on the way down to the leaf @dleaf / NIC @dst_nic. */
static void
down_target(const struct ft_topo *t, const struct ft_tree *tr, uint32_t at, uint32_t dleaf,
            uint32_t dst_nic, uint32_t *lo, uint32_t *hi)
{
	switch (t->v[at].tier) {
	case 1:
		*lo = dst_nic;
		break;
	case 2:
		*lo = dleaf;
		break;
	default:
		*lo = tr->spine_base + t->v[dleaf].group * tr->spines_per_pod + t->v[at].group;
		break;
	}
	*hi = *lo + 1;
}

static bool
is_below(const struct ft_topo *t, const struct ft_tree *tr, uint32_t at, uint32_t dleaf)
{
	switch (t->v[at].tier) {
	case 1:
		return at == dleaf;
	case 2:
		return tr->core_groups == 0 || t->v[dleaf].group == t->v[at].group;
	default:
		return true;
	}
}

int
ft__route_fattree(const struct ft_topo *t, uint32_t at, uint32_t dst_nic, uint32_t *links,
                  size_t max, bool down_only)
{
	const struct ft_vertex *va = &t->v[at];
	const struct ft_tree *tr;
	uint32_t hl = ft__topo_nic_host_link(t, dst_nic), dleaf, first, cnt;
	bool check = t->ndown > 0;
	int n = 0;

	if (hl == UINT32_MAX || va->kind != FT_V_SWITCH || va->plane >= t->ntrees)
		return FT_ENOENT;
	dleaf = t->l[hl].dst;
	if (t->v[dleaf].plane != va->plane)
		return FT_ENOENT; /* another plane: no path inside this one */
	tr = &t->trees[va->plane];
	if (is_below(t, tr, at, dleaf)) {
		uint32_t lo, hi;

		down_target(t, tr, at, dleaf, dst_nic, &lo, &hi);
		cnt = ft__topo_links_to_range(t, at, lo, hi, &first);
		for (uint32_t l = first; l < first + cnt; l++) {
			uint32_t c = t->l[l].dst;

			if (check && (!ft__topo_link_live(t, l) ||
			              (c != dst_nic &&
			               ft__route_fattree(t, c, dst_nic, NULL, 0, true) <= 0)))
				continue;
			if ((size_t)n < max)
				links[n] = l;
			n++;
		}
		if (n > 0 || down_only || !check || is_top(tr, va->tier))
			return n ? n : FT_ENOENT;
		/* The way down is cut: any valid up*-down* path over a higher switch. */
	} else if (down_only) {
		return FT_ENOENT;
	}
	for (uint32_t l = t->up_first[at]; l < t->off[at + 1]; l++) {
		if (check && (!ft__topo_link_live(t, l) ||
		              ft__route_fattree(t, t->l[l].dst, dst_nic, NULL, 0, false) <= 0))
			continue;
		if ((size_t)n < max)
			links[n] = l;
		n++;
	}
	return n ? n : FT_ENOENT;
}

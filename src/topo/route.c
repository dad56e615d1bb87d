/* SPDX-License-Identifier: MIT */
/*
 * topo/route.c - the path query API: equal-cost next hops and whole paths.
 *
 * ft_route_next_hops() answers from structure, not by searching the graph:
 * in-node hops come from the node template's distance table, fabric hops
 * from tier, pod, group and coordinate indexes (fattree.c, dragonfly.c,
 * torus.c). Down links (scale 0) are filtered out, and a hop is offered only
 * when the rest of the way from it is still alive.
 *
 * Where a path leaves a node: a GPU leaves through its own NIC (gpu_nic, its
 * rail), as NCCL does without PXN; a GPU that drives several NICs (nics.per_gpu,
 * AWS p5: 4) through NIC gpu_nic + lane mod per_gpu, the policy's lane (NCCL
 * puts each channel on one of them), and it is entered the same way; a NIC through its host link; any other
 * in-node vertex (PCIe switch, CPU, NVSwitch) through each of its nearest NICs
 * (equal-cost choices; ft_route_path starting there takes the NIC that the
 * destination enters by). The
 * destination is entered through its rail NIC (gpu_nic of a destination GPU,
 * the NIC itself for a NIC, else the nearest NIC); on a multi-plane fabric
 * through the nearest NIC on the plane the packet travels.
 *
 * Choices (ft_route_path):
 * - ECMP: index = ft_mix64(flow_hash ^ salt(switch)) mod n, with
 *   salt(s) = ft_mix64(salt_seed + 0x9e3779b97f4a7c15 * (s + 1)). On an
 *   InfiniBand fabric (ft__route_by_dlid()) a fabric switch forwards by
 *   destination LID alone (kb IB-SM: the SM fills one output port per switch
 *   per LID; NCCL addresses a peer by its port's base LID, NVIDIA/nccl
 *   v2.27.7-1 src/transport/net_ib.cc ncclIbRtrQp()): there the flow hash is
 *   ft__route_dlid_hash() of the NIC the path enters its destination by, so
 *   the index is a function of (switch, destination port) only, a
 *   static LFT drawn by hash (not balanced: minhop and updn count the LIDs
 *   on each port, kb IB-SM; D-mod-K is ftree's balanced table), and
 *   QPs or sources to one port share its path. In-node choices keep the
 *   flow's hash (no LFT there).
 * - D-mod-K (IB-SM, OpenSM ftree): every NIC has a key, its position in
 *   leaf-major order (leaf index * leaf down ports + port). A leaf going up
 *   takes port key mod n_up; a spine going up takes (key / leaf_up) mod n_up;
 *   parallel down cables take the digit their switch's child used going up:
 *   key mod n from a spine to a leaf, (key / leaf_up) mod n from a core to a
 *   spine, so the way down is the reverse of the destination's way up. Each destination thus has one path
 *   from every source, and a shift permutation loads every up-link equally.
 * - minhop (and updn, the same tables on a fat tree; IB-SM, OSM-ROUTING): OpenSM's
 *   default engine fills each switch's LFT one destination LID at a time
 *   (linux-rdma/opensm osm_ucast_mgr.c ucast_mgr_build_lfts(), ucast_mgr_process_port()).
 *   The order: sort_ports_by_switch_load() takes the switches with end ports, most first
 *   (every leaf of a fat tree alike, so in GUID order, as the leaves are numbered), and
 *   each one's CA ports by port number: the NICs in D-mod-K key order, plane by plane (a
 *   plane is a subnet of its own). Switch LIDs come after and are not counted
 *   (port_profile_switch_nodes is off by default); fabtune routes no traffic to them, so
 *   they have no entry here. For each LID osm_switch_recommend_path() takes, among the
 *   healthy ports with the least hops to it, the one whose running count of LIDs routed
 *   through it is lowest, ties to the lowest port number (a strict '<' over ports in
 *   order; port_shifting and scatter_ports off by default), and counts that port
 *   (osm_switch_count_path()), a CA on the switch itself included. Port numbers here
 *   follow the switch's link order (down ports, then up ports, as the builder cables
 *   them), so the equal-cost list ft__route_fattree() gives is in port order. The
 *   result (ft__route_minhop_sync()): a leaf sends its i-th remote destination up port
 *   i mod up, D-mod-K's key mod up where up divides the leaf's down ports, shifted by
 *   the leaf's own NICs where it does not; a switch with parallel cables to a child
 *   deals that child's destinations over them in turn. In-node choices keep the flow's
 *   hash, as ECMP.
 * - Valiant (dragonfly): via an intermediate group picked by
 *   ft_mix64(flow_hash ^ salt_seed), then minimal.
 */
#include "topo_int.h"

#define HOPS_MAX 1024

uint64_t
ft_route_flow_hash(uint32_t src, uint32_t dst, uint32_t qp)
{
	return ft_mix64(ft_mix64(((uint64_t)src << 32) | dst) ^ (uint64_t)qp);
}

uint64_t
ft__route_switch_salt(uint64_t seed, uint32_t s)
{
	return ft_mix64(seed + UINT64_C(0x9e3779b97f4a7c15) * ((uint64_t)s + 1));
}

uint64_t
ft__route_dlid_hash(uint32_t nic)
{
	/* "LID" tags the word so that a port's hash is no flow tuple's */
	return ft_mix64(UINT64_C(0x4c4944) << 32 | nic);
}

uint32_t
ft__route_ecmp_index(uint64_t flow_hash, uint64_t salt, uint32_t n)
{
	return (uint32_t)(ft_mix64(flow_hash ^ salt) % n);
}

static bool
in_node(const struct ft_topo *t, uint32_t v)
{
	return v < t->switch_base;
}

static uint32_t
nic_plane(const struct ft_topo *t, uint32_t r)
{
	return t->spec.fabric.kind == FT_FABRIC_MULTI_PLANE ? r % t->ntrees : 0;
}

/* The NIC by which a path enters @dst's node; @plane UINT32_MAX: any plane. */
static uint32_t
entry_nic(const struct ft_topo *t, uint32_t dst, uint32_t plane)
{
	const struct ft_vertex *vd = &t->v[dst];
	const struct ft_node_layout *nl = ft__topo_node_nl(t, vd->node);
	uint32_t base = ft__topo_node_base(t, vd->node), best = UINT32_MAX;
	unsigned best_cost = FT_TOPO_COST_INF + 1u;

	if (nl->nnics == 0)
		return UINT32_MAX;
	if (vd->kind == FT_V_NIC)
		return dst;
	if (vd->kind == FT_V_GPU) {
		uint32_t r = ft_spec_node_at(&t->spec, vd->node)->gpu_nic[vd->local];

		if (plane == UINT32_MAX || nic_plane(t, r) == plane)
			return base + nl->nic0 + r;
	}
	for (uint32_t r = 0; r < nl->nnics; r++) {
		unsigned c = nl->dist[(size_t)(nl->nic0 + r) * nl->per_node + (dst - base)];

		if (plane != UINT32_MAX && nic_plane(t, r) != plane)
			continue;
		if (c < best_cost) {
			best_cost = c;
			best = base + nl->nic0 + r;
		}
	}
	return best;
}

/* The NIC by which in-node vertex @at leaves toward @dst on another node. */
static uint32_t
exit_nic(const struct ft_topo *t, uint32_t at, uint32_t dst)
{
	const struct ft_node_layout *nl = ft__topo_node_nl(t, t->v[at].node);
	uint32_t base = ft__topo_node_base(t, t->v[at].node), in;

	if (nl->nnics == 0)
		return UINT32_MAX;
	if (t->v[at].kind == FT_V_NIC)
		return at;
	if (t->v[at].kind == FT_V_GPU)
		return base + nl->nic0 +
		       ft_spec_node_at(&t->spec, t->v[at].node)->gpu_nic[t->v[at].local];
	in = entry_nic(t, dst, UINT32_MAX);
	return base + nl->nic0 + t->v[in].local;
}

/* NICs a GPU drives (nics.per_gpu, the same in every node group), at least 1. */
static uint32_t
gpu_lanes(const struct ft_topo *t)
{
	return t->spec.node.nics_per_gpu > 1 ? t->spec.node.nics_per_gpu : 1;
}

/* The NIC of GPU vertex @gpu for @lane: gpu_nic + lane mod per_gpu. */
static uint32_t
gpu_lane_nic(const struct ft_topo *t, uint32_t gpu, uint32_t lane)
{
	const struct ft_node_layout *nl = ft__topo_node_nl(t, t->v[gpu].node);
	uint32_t r0 = ft_spec_node_at(&t->spec, t->v[gpu].node)->gpu_nic[t->v[gpu].local];
	uint32_t r = r0 + lane % gpu_lanes(t);

	if (nl->nnics == 0)
		return UINT32_MAX;
	if (r >= nl->nnics)
		r = r0;
	return ft__topo_node_base(t, t->v[gpu].node) + nl->nic0 + r;
}

static int host_hop(const struct ft_topo *t, uint32_t nic, uint32_t dst, uint32_t *links,
                    size_t max);

/*
 * Next hops from a transit vertex (PCIe switch, CPU, NVSwitch) toward another node: through
 * every nearest NIC that still leads there, each an equal-cost way out.
 */
static int
transit_hops(const struct ft_topo *t, uint32_t at, uint32_t dst, uint32_t *links, size_t max)
{
	const struct ft_node_layout *nl = ft__topo_node_nl(t, t->v[at].node);
	uint32_t base = ft__topo_node_base(t, t->v[at].node), a = at - base;
	unsigned best = FT_TOPO_COST_INF;
	bool check = t->ndown > 0;
	int n = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t r = 0; r < nl->nnics; r++) {
			uint32_t nic = base + nl->nic0 + r, buf[64];
			unsigned c = nl->dist[(size_t)a * nl->per_node + nl->nic0 + r];
			int k;

			if (c == FT_TOPO_COST_INF || (pass == 0 ? c > best : c != best))
				continue;
			if (ft__topo_nic_host_link(t, nic) == UINT32_MAX ||
			    (check && host_hop(t, nic, dst, NULL, 0) <= 0))
				continue;
			if (pass == 0) {
				best = c;
				continue;
			}
			k = ft__route_in_node(t, at, nic, buf, FT_ARRAY_SIZE(buf), check);
			for (int i = 0; i < k && i < (int)FT_ARRAY_SIZE(buf); i++) {
				bool dup = false;

				for (int j = 0; j < n && j < (int)max && !dup; j++)
					dup = links[j] == buf[i];
				if (dup)
					continue;
				if ((size_t)n < max)
					links[n] = buf[i];
				n++;
			}
		}
	}
	return n ? n : FT_ENOENT;
}

static bool
nl_has_nics(const struct ft_topo *t, uint32_t node)
{
	return ft__topo_node_nl(t, node)->nnics > 0;
}

static int
fabric_hops(const struct ft_topo *t, uint32_t at, uint32_t dst_nic, uint32_t *links, size_t max)
{
	switch (t->spec.fabric.kind) {
	case FT_FABRIC_FAT_TREE:
	case FT_FABRIC_RAIL_FAT_TREE:
	case FT_FABRIC_MULTI_PLANE:
		return ft__route_fattree(t, at, dst_nic, links, max, false);
	case FT_FABRIC_DRAGONFLY:
		return ft__route_dragonfly(t, at, dst_nic, links, max);
	case FT_FABRIC_TORUS:
		return ft__route_torus(t, at, dst_nic, links, max);
	default:
		return FT_ENOENT;
	}
}

/* Does the host link of NIC @nic lead (alive) toward @dst? */
static int
host_hop(const struct ft_topo *t, uint32_t nic, uint32_t dst, uint32_t *links, size_t max)
{
	uint32_t hl = ft__topo_nic_host_link(t, nic), in;

	if (hl == UINT32_MAX)
		return FT_ENOENT;
	in = entry_nic(t, dst, t->v[nic].plane);
	if (in == UINT32_MAX)
		return FT_ENOENT;
	if (t->ndown > 0 &&
	    (!ft__topo_link_live(t, hl) || fabric_hops(t, t->l[hl].dst, in, NULL, 0) <= 0 ||
	     (in != dst && ft__route_in_node(t, in, dst, NULL, 0, true) <= 0)))
		return FT_ENOENT;
	if (max > 0)
		links[0] = hl;
	return 1;
}

static int
next_hops(const struct ft_topo *t, uint32_t at, uint32_t dst, uint32_t *links, size_t max)
{
	const struct ft_vertex *va = &t->v[at];
	bool check = t->ndown > 0;

	if (at == dst)
		return 0;
	if (!in_node(t, dst))
		return FT_EINVAL; /* destinations are GPUs, NICs and in-node vertices */
	if (in_node(t, at)) {
		uint32_t nic;
		int n;

		if (va->node == t->v[dst].node)
			return ft__route_in_node(t, at, dst, links, max, check);
		if (va->kind != FT_V_GPU && va->kind != FT_V_NIC)
			return nl_has_nics(t, va->node) ? transit_hops(t, at, dst, links, max) : FT_ENOENT;
		nic = exit_nic(t, at, dst);
		if (nic == UINT32_MAX)
			return FT_ENOENT;
		if (nic == at)
			return host_hop(t, at, dst, links, max);
		if (check && host_hop(t, nic, dst, NULL, 0) <= 0)
			return FT_ENOENT;
		n = ft__route_in_node(t, at, nic, links, max, check);
		return n;
	}
	{
		uint32_t in = entry_nic(t, dst, va->plane);

		if (in == UINT32_MAX)
			return FT_ENOENT;
		if (check && in != dst && ft__route_in_node(t, in, dst, NULL, 0, true) <= 0)
			return FT_ENOENT;
		return fabric_hops(t, at, in, links, max);
	}
}

int
ft_route_next_hops(const struct ft_topo *t, uint32_t at, uint32_t dst, uint32_t *links, size_t max)
{
	if (!t || at >= t->nv || dst >= t->nv || (max > 0 && !links))
		return FT_EINVAL;
	return next_hops(t, at, dst, links, max);
}

/* The D-mod-K divisor at switch @s: products of the up-degrees below it. */
static uint64_t
dmodk_pick(const struct ft_topo *t, uint32_t s, uint32_t dst, const uint32_t *links, uint32_t n)
{
	const struct ft_vertex *v = &t->v[s];
	uint32_t in = entry_nic(t, dst, v->plane);
	uint64_t key = 0, div = 1;

	if (in != UINT32_MAX)
		key = t->nic_key[(size_t)t->v[in].node * t->nic_stride + t->v[in].local];
	/*
	 * Going up, a spine takes the key's second digit (key / leaf_up). Going down over
	 * parallel cables, a core must take that same digit: the cable it picks is the
	 * reverse of the spine up-link the destination's own up route uses (links are
	 * sorted by (up, dst), so the spine's up-link j is cable j mod cables of core
	 * j / cables). Taking key mod n instead sends every flow of a core group (all
	 * with the same leaf digit) down one cable: a shift permutation then piles up to
	 * n flows on one core->spine link (IB-SM: ftree routes down the way it goes up).
	 */
	if (v->kind == FT_V_SWITCH && v->tier >= 2 && v->plane < t->ntrees &&
	    (t->l[links[0]].up || v->tier >= 3))
		div = t->trees[v->plane].up;
	return ft_topo_dmodk_pick(key / div, n);
}

/* A NIC on the fabric and where it stands in the SM's routing order (plane, key). */
struct lid_ord {
	uint64_t key;
	uint32_t plane, nic;
};

static int
lid_ord_cmp(const void *a, const void *b)
{
	const struct lid_ord *x = a, *y = b;

	if (x->plane != y->plane)
		return x->plane < y->plane ? -1 : 1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->nic < y->nic ? -1 : x->nic > y->nic;
}

/* The fabric's NICs (those with a host link) in routing order into *@out, their number in
 * *@n; FT_ENOMEM. */
static int
lid_order(const struct ft_topo *t, struct lid_ord **out, uint32_t *n)
{
	struct lid_ord *o = ft_malloc(sizeof(*o) * (t->spec.nnodes * (size_t)t->nic_stride + 1));
	uint32_t k = 0;

	if (!o)
		return FT_ENOMEM;
	for (uint32_t node = 0; node < t->spec.nnodes; node++) {
		const struct ft_node_layout *nl = ft__topo_node_nl(t, node);
		uint32_t base = ft__topo_node_base(t, node);

		for (uint32_t r = 0; r < nl->nnics; r++) {
			uint32_t nic = base + nl->nic0 + r, hl = ft__topo_nic_host_link(t, nic);

			if (hl == UINT32_MAX)
				continue;
			o[k].plane = t->v[t->l[hl].dst].plane;
			o[k].key = t->nic_key[(size_t)node * t->nic_stride + r];
			o[k++].nic = nic;
		}
	}
	qsort(o, k, sizeof(*o), lid_ord_cmp);
	*out = o;
	*n = k;
	return 0;
}

/* Switch @s's LFT: each NIC of @o in turn to the least-used of its min-hop ports. */
static void
lft_fill(const struct ft_topo *t, uint32_t s, const struct lid_ord *o, uint32_t n, uint32_t *cnt,
         uint32_t *row)
{
	uint32_t buf[HOPS_MAX], plane = t->v[s].plane;

	for (uint32_t l = t->off[s]; l < t->off[s + 1]; l++)
		cnt[l - t->off[s]] = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct ft_vertex *vn = &t->v[o[i].nic];
		uint32_t best;
		int k;

		if (o[i].plane != plane)
			continue; /* another subnet */
		k = fabric_hops(t, s, o[i].nic, buf, HOPS_MAX);
		if (k <= 0)
			continue; /* no path: the entry stays UINT32_MAX */
		best = buf[0];
		for (int j = 1; j < k && j < HOPS_MAX; j++)
			if (cnt[buf[j] - t->off[s]] < cnt[best - t->off[s]])
				best = buf[j];
		cnt[best - t->off[s]]++;
		row[(size_t)vn->node * t->nic_stride + vn->local] = best;
	}
}

/*
 * Build (again) @t's minhop tables where they are missing or older than the fabric's
 * link state; FT_EINVAL where the fabric has none (not an InfiniBand fat tree),
 * FT_ENOMEM. The table is a cache of the topology, filled on a const topology as a
 * memo is: the routing of a fabric is a function of its links.
 */
int
ft__route_minhop_sync(const struct ft_topo *t)
{
	struct ft_lft *lft = t->lft;
	struct lid_ord *o = NULL;
	uint32_t n = 0, *cnt;
	int rc;

	if (!lft)
		return FT_EINVAL;
	if (lft->built && lft->gen == t->link_gen)
		return 0;
	lft->row = (size_t)t->spec.nnodes * t->nic_stride;
	if (!lft->port) {
		lft->port = ft_malloc(sizeof(uint32_t) * ((size_t)t->nswitches * lft->row + 1));
		if (!lft->port)
			return FT_ENOMEM;
	}
	cnt = ft_malloc(sizeof(uint32_t) * (t->nl + 1));
	rc = cnt ? lid_order(t, &o, &n) : FT_ENOMEM;
	if (rc < 0) {
		ft_free(cnt);
		return rc;
	}
	for (size_t i = 0; i < (size_t)t->nswitches * lft->row; i++)
		lft->port[i] = UINT32_MAX;
	for (uint32_t s = 0; s < t->nswitches; s++)
		lft_fill(t, t->switch_base + s, o, n, cnt, lft->port + (size_t)s * lft->row);
	ft_free(o);
	ft_free(cnt);
	lft->gen = t->link_gen;
	lft->built = true;
	return 0;
}

/* minhop's out-link at switch @s toward @dst (its entry NIC's LID), if among @links. */
static uint32_t
minhop_port(const struct ft_topo *t, uint32_t s, uint32_t dst, const uint32_t *links, uint32_t n)
{
	uint32_t in = entry_nic(t, dst, t->v[s].plane), l;

	if (!t->lft || !t->lft->built || in == UINT32_MAX)
		return UINT32_MAX;
	l = t->lft->port[(size_t)(s - t->switch_base) * t->lft->row +
	                 (size_t)t->v[in].node * t->nic_stride + t->v[in].local];
	for (uint32_t i = 0; i < n; i++)
		if (links[i] == l)
			return l;
	return UINT32_MAX;
}

/* What ECMP hashes at @at toward @dst: the destination port's hash at an InfiniBand
 * switch (its LFT: one port per destination LID), else the flow's. */
static uint64_t
ecmp_hash(const struct ft_topo *t, uint32_t at, uint32_t dst, const struct ft_route_policy *p)
{
	uint32_t in;

	if (p->routing != FT_ROUTING_ECMP || !t->by_dlid || t->v[at].kind != FT_V_SWITCH)
		return p->flow_hash;
	in = entry_nic(t, dst, t->v[at].plane);
	return in != UINT32_MAX ? ft__route_dlid_hash(in) : p->flow_hash;
}

static uint32_t
choose(const struct ft_topo *t, uint32_t at, uint32_t dst, const struct ft_route_policy *p,
       const uint32_t *links, uint32_t n)
{
	if (n == 1)
		return links[0];
	switch (p->routing) {
	case FT_ROUTING_DMODK:
		return links[dmodk_pick(t, at, dst, links, n)];
	case FT_ROUTING_MINHOP:
		if (t->v[at].kind == FT_V_SWITCH) {
			uint32_t l = minhop_port(t, at, dst, links, n);

			if (l != UINT32_MAX)
				return l;
		}
		break; /* in-node: the flow's hash */
	case FT_ROUTING_ADAPTIVE:
		if (p->choose)
			return links[p->choose(p->ud, at, links, n) % n]; /* an index into @links */
		break; /* ECMP without a chooser */
	default:
		break;
	}
	return links[ft__route_ecmp_index(ecmp_hash(t, at, dst, p),
	                                  ft__route_switch_salt(p->salt_seed, at), n)];
}

int
ft_route_next_link(const struct ft_topo *t, uint32_t at, uint32_t dst,
                   const struct ft_route_policy *policy, uint32_t *link)
{
	struct ft_route_policy ecmp = { .routing = FT_ROUTING_ECMP };
	const struct ft_route_policy *p = policy ? policy : &ecmp;
	uint32_t buf[HOPS_MAX];
	int n, rc;

	if (!t || !link || at >= t->nv || dst >= t->nv || !in_node(t, dst))
		return FT_EINVAL;
	if (p->routing == FT_ROUTING_MINHOP) {
		rc = ft__route_minhop_sync(t);
		if (rc < 0)
			return rc;
	}
	n = next_hops(t, at, dst, buf, HOPS_MAX);
	if (n < 0)
		return n;
	if (n == 0)
		return FT_ENOENT;
	*link = choose(t, at, dst, p, buf, (uint32_t)FT_MIN(n, HOPS_MAX));
	return 0;
}

static int
append(const struct ft_topo *t, struct ft_path *out, uint32_t l)
{
	if (out->nlinks >= FT_PATH_MAX)
		return FT_ERANGE;
	out->links[out->nlinks++] = l;
	out->lat_s += t->l[l].lat_s;
	return 0;
}

/* Walk from *@cur until @stop says so; @to_group: dragonfly group leg, else UINT32_MAX. */
static int
walk(const struct ft_topo *t, uint32_t *cur, uint32_t dst, uint32_t to_group,
     const struct ft_route_policy *p, struct ft_path *out)
{
	uint32_t buf[HOPS_MAX];

	while (*cur != dst) {
		int n;
		uint32_t l;

		if (to_group != UINT32_MAX) {
			if (t->v[*cur].kind == FT_V_SWITCH && t->v[*cur].group == to_group)
				return 0;
			if (t->v[*cur].kind == FT_V_SWITCH)
				n = ft__route_dragonfly_to_group(t, *cur, to_group, buf, HOPS_MAX);
			else
				n = next_hops(t, *cur, dst, buf, HOPS_MAX);
		} else {
			n = next_hops(t, *cur, dst, buf, HOPS_MAX);
		}
		if (n < 0)
			return n;
		if (n == 0)
			return FT_ENOENT;
		l = choose(t, *cur, dst, p, buf, (uint32_t)FT_MIN(n, HOPS_MAX));
		if (append(t, out, l) < 0)
			return FT_ERANGE;
		*cur = t->l[l].dst;
	}
	return 0;
}

int
ft_route_path(const struct ft_topo *t, uint32_t src, uint32_t dst,
              const struct ft_route_policy *policy, struct ft_path *out)
{
	struct ft_route_policy ecmp = { .routing = FT_ROUTING_ECMP };
	const struct ft_route_policy *p = policy ? policy : &ecmp;
	uint32_t cur = src, tgt = dst;
	bool valiant;
	int rc;

	if (!t || !out || src >= t->nv || dst >= t->nv)
		return FT_EINVAL;
	memset(out, 0, sizeof(*out));
	if (!in_node(t, src) || !in_node(t, dst))
		return FT_EINVAL;
	if (p->routing == FT_ROUTING_MINHOP && t->v[src].node != t->v[dst].node) {
		rc = ft__route_minhop_sync(t);
		if (rc < 0)
			return rc;
	}
	valiant = p->routing == FT_ROUTING_VALIANT && t->spec.fabric.kind == FT_FABRIC_DRAGONFLY &&
	          t->df_groups >= 3;
	/* Leave the node through the source's own exit NIC (its lane's, when a GPU drives
	 * several); @tgt: the destination GPU's lane NIC then, else @dst itself. */
	if (t->v[src].node != t->v[dst].node) {
		uint32_t nic = exit_nic(t, src, dst);

		if (nic == UINT32_MAX)
			return FT_ENOENT;
		if (gpu_lanes(t) > 1 && t->v[src].kind == FT_V_GPU)
			nic = gpu_lane_nic(t, src, p->lane);
		if (gpu_lanes(t) > 1 && t->v[dst].kind == FT_V_GPU) {
			uint32_t in = gpu_lane_nic(t, dst, p->lane);

			if (in != UINT32_MAX &&
			    nic_plane(t, t->v[in].local) == nic_plane(t, t->v[nic].local))
				tgt = in;
		}
		/* Minimal routes check the whole way first; Valiant finds out as it goes. */
		if (t->ndown > 0 && !valiant &&
		    (host_hop(t, nic, tgt, NULL, 0) <= 0 ||
		     (tgt != dst && ft__route_in_node(t, tgt, dst, NULL, 0, true) <= 0)))
			return FT_ENOENT;
		rc = walk(t, &cur, nic, UINT32_MAX, p, out);
		if (rc < 0)
			return rc;
	}
	if (valiant && t->v[src].node != t->v[dst].node) {
		uint32_t in = entry_nic(t, tgt, UINT32_MAX), hs, hd, g, gs, gd, pick;

		hs = ft__topo_nic_host_link(t, cur);
		hd = in == UINT32_MAX ? UINT32_MAX : ft__topo_nic_host_link(t, in);
		if (hs == UINT32_MAX || hd == UINT32_MAX)
			return FT_ENOENT;
		gs = t->v[t->l[hs].dst].group;
		gd = t->v[t->l[hd].dst].group;
		if (gs != gd) {
			/* The intermediate group: not the source's, not the destination's. */
			pick = (uint32_t)(ft_mix64(p->flow_hash ^ p->salt_seed) %
			                  (t->df_groups - 2));
			g = pick;
			for (uint32_t lo = FT_MIN(gs, gd), hi = FT_MAX(gs, gd), k = 0; k < 2; k++)
				if (g >= (k ? hi : lo))
					g++;
			if (append(t, out, hs) < 0)
				return FT_ERANGE;
			cur = t->l[hs].dst;
			rc = walk(t, &cur, tgt, g, p, out);
			if (rc < 0)
				return rc;
		}
	}
	rc = walk(t, &cur, tgt, UINT32_MAX, p, out);
	if (rc < 0 || tgt == dst)
		return rc;
	return walk(t, &cur, dst, UINT32_MAX, p, out);
}

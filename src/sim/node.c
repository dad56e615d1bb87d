/* SPDX-License-Identifier: MIT */
/*
 * sim/node.c - what the runner and the flow engine read of a node: its GPUs,
 * its NICs and which NIC each GPU leaves the node through, asked of the
 * topology node by node rather than of one node description taken as true
 * for every node, so that nodes of different kinds (node groups, several
 * NICs per GPU) need changes here only.
 */
#include "sim_int.h"

#include <fabtune/model.h>

const struct ft_node_spec *
ft__sim_node(const struct ft_topo *t, uint32_t node)
{
	return ft_spec_node_at(ft_topo_spec(t), node); /* the node's group's */
}

/* The devices of kind @kind that @at finds in @node, counted from index 0 up. */
static uint32_t
node_count(const struct ft_topo *t, uint32_t node,
           uint32_t (*at)(const struct ft_topo *, uint32_t, uint32_t), enum ft_vertex_kind kind)
{
	uint32_t i = 0, v;

	while ((v = at(t, node, i)) != UINT32_MAX && ft_topo_vertex(t, v)->kind == kind &&
	       ft_topo_vertex(t, v)->node == node)
		i++;
	return i;
}

uint32_t
ft__sim_node_ngpus(const struct ft_topo *t, uint32_t node)
{
	return node_count(t, node, ft_topo_gpu, FT_V_GPU);
}

uint32_t
ft__sim_node_nnics(const struct ft_topo *t, uint32_t node)
{
	return node_count(t, node, ft_topo_nic, FT_V_NIC);
}

int
ft__sim_fabric_tech(const struct ft_cluster_spec *spec)
{
	return ft__topo_fabric_tech(spec);
}

bool
ft__sim_fabric_is_roce(const struct ft_cluster_spec *spec)
{
	return ft__sim_fabric_tech(spec) == FT_TECH_ROCE;
}

uint32_t
ft__sim_gpu_nic_index(const struct ft_topo *t, uint32_t gpu_v)
{
	const struct ft_vertex *g = ft_topo_vertex(t, gpu_v);
	const struct ft_node_spec *n;
	uint32_t r;

	if (g->kind != FT_V_GPU || g->node == FT_NO_NODE)
		return UINT32_MAX;
	n = ft__sim_node(t, g->node);
	if (g->local >= n->ngpus || g->local >= FT_SPEC_MAX_GPUS)
		return UINT32_MAX;
	r = n->gpu_nic[g->local];
	return r < ft__sim_node_nnics(t, g->node) ? r : UINT32_MAX;
}

/* The bit of GPU vertex @gpu_v in its node's comm mask (ft__sim_comm_gpus()), 0 for a vertex
 * that is no GPU of a node or past the mask's 32 GPUs; its node in *@node. */
static uint32_t
comm_bit(const struct ft_topo *t, uint32_t gpu_v, uint32_t *node)
{
	const struct ft_vertex *v = ft_topo_vertex(t, gpu_v);

	*node = v->node;
	if (v->kind != FT_V_GPU || v->node == FT_NO_NODE)
		return 0;
	return v->local < 32 ? 1u << v->local : 0;
}

uint32_t
ft__sim_comm_gpus(const struct ft_topo *t, const uint32_t *rank_gpu, uint32_t nranks,
                  uint32_t node)
{
	uint32_t r, nd, bit, mask = 0;

	for (r = 0; r < nranks; r++) {
		bit = comm_bit(t, rank_gpu[r], &nd);
		if (nd == node)
			mask |= bit;
	}
	return mask;
}

uint32_t *
ft__sim_comm_gpus_by_node(const struct ft_topo *t, const uint32_t *rank_gpu, uint32_t nranks,
                          uint32_t *nnodes)
{
	uint32_t r, nd, n = 0, *mask;

	for (r = 0; r < nranks; r++) {
		const struct ft_vertex *v = ft_topo_vertex(t, rank_gpu[r]);

		if (v->kind == FT_V_GPU && v->node != FT_NO_NODE)
			n = FT_MAX(n, v->node + 1);
	}
	*nnodes = n;
	mask = ft_calloc(FT_MAX(n, 1u), sizeof(uint32_t));
	if (!mask)
		return NULL;
	for (r = 0; r < nranks; r++) {
		uint32_t bit = comm_bit(t, rank_gpu[r], &nd);

		if (bit)
			mask[nd] |= bit;
	}
	return mask;
}

/*
 * NCCL v2.27.7-1 and v2.30.7-1 alike (src/graph/search.cc ncclTopoGetNetDev(), PXN level 2;
 * src/graph/topo.cc ncclTopoGetLocalGpu(); src/graph/topo.h ncclTopoDevToRank()), on the
 * topology of the communicator, which holds its own GPUs only (topo.cc ncclTopoGetSystem()
 * fills the GPU of each local rank, no other):
 *  1. the GPU of the sender's node with the peer's device index must be a rank of the comm
 *     (ncclTopoDevToRank()); where none is, the sender keeps its own NIC and no proxy;
 *  2. that GPU's NIC (ncclTopoGetLocalNet()) is the NIC of the send;
 *  3. its proxy is the NIC's first local GPU of the comm (ncclTopoGetLocalGpu(): the best
 *     PCIe path first), taken even where the sender itself shares that NIC: a GPU that is
 *     not its NIC's first hands its sends to the first over NVLink. The sender being that
 *     GPU is its own proxy (PATH_LOC): no relay;
 *  4. the relay needs that proxy under the NIC's own PCIe switch (PATH_PXB or closer,
 *     PATH_P2C on a C2C host with NCCL_PXN_C2C, 1 by default from v2.28.3-1 on) and
 *     NVLink to the sender, else the sender keeps its own NIC (ft_model_pxn_relay() at
 *     the spec's nccl_version, the jobs' release).
 */
uint32_t
ft__sim_pxn_proxy_in(const struct ft_topo *t, uint32_t a, uint32_t b, uint32_t comm)
{
	const struct ft_vertex *va = ft_topo_vertex(t, a), *vb = ft_topo_vertex(t, b);
	const struct ft_node_spec *n;
	uint32_t ng, r, p;

	if (va->kind != FT_V_GPU || vb->kind != FT_V_GPU || va->node == FT_NO_NODE ||
	    vb->node == FT_NO_NODE || !ft__sim_over_network(t, a, b))
		return UINT32_MAX;
	n = ft__sim_node(t, va->node);
	if (n->nccl_pxn_disable || !(n->nvlink_gen > 0 && n->nvlink_Bps > 0))
		return UINT32_MAX;
	ng = FT_MIN(ft__sim_node_ngpus(t, va->node), (uint32_t)FT_SPEC_MAX_GPUS);
	if (vb->local >= ng || va->local >= ng || !((comm >> vb->local) & 1u))
		return UINT32_MAX;
	r = n->gpu_nic[vb->local];
	if (r >= ft__sim_node_nnics(t, va->node) || r >= FT_SPEC_MAX_NICS)
		return UINT32_MAX;
	p = ft_model_pxn_relay(n, ng, comm, r, ft_topo_spec(t)->nccl_version);
	if (p == UINT32_MAX || p == va->local)
		return UINT32_MAX;
	return ft_topo_gpu(t, va->node, p);
}

uint32_t
ft__sim_gpu_lanes(const struct ft_topo *t, uint32_t gpu_v)
{
	const struct ft_vertex *g = ft_topo_vertex(t, gpu_v);
	uint32_t per;

	if (g->kind != FT_V_GPU || g->node == FT_NO_NODE)
		return 1;
	per = ft__sim_node(t, g->node)->nics_per_gpu;
	return per > 1 ? per : 1;
}

/*
 * The NICs a connection from @src to @dst spreads over: the most either GPU drives
 * (nics.per_gpu) when the two talk over the network, else 1. Its QP q (of qps_per_conn x
 * this) leaves by lane q: NIC gpu_nic + q mod per_gpu (ft_route_policy.lane), the
 * receiver's NIC of the same lane, as NCCL gives each NIC of a GPU its own channels. Both
 * engines split their connections by it, so they load the same NICs.
 */
uint32_t
ft__sim_conn_lanes(const struct ft_topo *t, uint32_t src, uint32_t dst)
{
	const struct ft_vertex *a = ft_topo_vertex(t, src), *b = ft_topo_vertex(t, dst);

	/* one lane unless the GPUs talk over the network (NVLink peers of two trays too) */
	if (a->kind != FT_V_GPU || b->kind != FT_V_GPU || !ft__sim_over_network(t, src, dst))
		return 1;
	return FT_MAX(ft__sim_gpu_lanes(t, src), ft__sim_gpu_lanes(t, dst));
}

uint32_t
ft__sim_nic_gpu(const struct ft_topo *t, uint32_t nic_v)
{
	const struct ft_vertex *v = ft_topo_vertex(t, nic_v);
	uint32_t g;

	if (v->kind != FT_V_NIC || v->node == FT_NO_NODE)
		return UINT32_MAX;
	g = ft_model_pxn_proxy(ft__sim_node(t, v->node), FT_SPEC_MAX_GPUS, UINT32_MAX, v->local);
	return g == UINT32_MAX ? UINT32_MAX : ft_topo_gpu(t, v->node, g);
}

int
ft__sim_nic_leg(struct ft_path *from_gpu, uint32_t nic_v, const struct ft_topo *t)
{
	uint32_t j, k;

	for (j = 0; j < from_gpu->nlinks; j++)
		if (ft_topo_link(t, from_gpu->links[j])->src == nic_v)
			break;
	if (j == from_gpu->nlinks)
		return -1;
	for (k = 0; k < j; k++)
		from_gpu->lat_s -= ft_topo_link(t, from_gpu->links[k])->lat_s;
	from_gpu->lat_s = FT_MAX(from_gpu->lat_s, 0.0);
	memmove(from_gpu->links, from_gpu->links + j,
	        (from_gpu->nlinks - j) * sizeof(uint32_t));
	from_gpu->nlinks -= j;
	return 0;
}

/*
 * The NIC vertex of @dst's node by which a flow leaving by NIC vertex @nic arrives where
 * the flow names that NIC on the receiving node too (FT_SCHED_NIC_IN) and it is not @dst's
 * own: the NIC of @nic's index on @dst's node, where @dst is a GPU of another node that
 * reaches it by its own path (ft__sim_nic_own_reach(): a balanced tree's second GPU
 * receives through its channel's NIC over its PCIe switch, nccl.c add_channel_flow());
 * UINT32_MAX otherwise. Only a flow that names it: on a node whose GPUs reach every NIC
 * over C2C any NIC passes the test, and a ring's flow arrives by the receiver's own.
 */
static uint32_t
far_nic(const struct ft_topo *t, uint32_t nic, uint32_t dst)
{
	const struct ft_vertex *n = ft_topo_vertex(t, nic), *d = ft_topo_vertex(t, dst);
	uint32_t far;

	if (d->kind != FT_V_GPU || d->node == FT_NO_NODE || d->node == n->node ||
	    !ft__sim_nic_own_reach(ft__sim_node(t, d->node), d->local, n->local))
		return UINT32_MAX;
	far = ft_topo_nic(t, d->node, n->local);
	if (far == ft__sim_gpu_nic(t, dst) || ft__sim_nic_gpu(t, far) == UINT32_MAX)
		return UINT32_MAX;
	return far;
}

/* Cut @leg after its link into vertex @v (its latency less the links cut, not below 0: an
 * engine's leg may carry none); -1 (left whole) when it does not reach @v. */
static int
cut_after(struct ft_path *leg, uint32_t v, const struct ft_topo *t)
{
	uint32_t j, k;

	for (j = 0; j < leg->nlinks && ft_topo_link(t, leg->links[j])->dst != v; j++)
		;
	if (j == leg->nlinks)
		return -1;
	for (k = j + 1; k < leg->nlinks; k++)
		leg->lat_s -= ft_topo_link(t, leg->links[k])->lat_s;
	leg->lat_s = FT_MAX(leg->lat_s, 0.0);
	leg->nlinks = j + 1;
	return 0;
}

int
ft__sim_nic_route(const struct ft_topo *t, uint32_t src, uint32_t nic, uint32_t dst, uint32_t qp,
                  ft__sim_leg_fn *leg_fn, void *ud, struct ft_path *path, struct ft_error *err)
{
	bool named_in = nic != UINT32_MAX && (nic & FT_SIM_NIC_IN);
	uint32_t g, far;
	struct ft_path leg = { 0 }, in = { 0 };
	int rc;

	nic = FT_SIM_NIC_VERTEX(nic);
	g = ft__sim_nic_gpu(t, nic);
	far = named_in ? far_nic(t, nic, dst) : UINT32_MAX;
	rc = leg_fn(ud, src, nic, qp, path, err);
	if (rc < 0)
		return rc;
	if (g != UINT32_MAX && far != UINT32_MAX) {
		/* into the far NIC as its GPU's route from the NIC's GPU, then @dst's own path
		 * from it; where either is missing, as a flow into @dst's own NIC below. The
		 * first leg's error (a link down kept) is the flow's only where a link down is
		 * among the links kept: not the part cut off before the NIC or after the far
		 * NIC */
		struct ft_error s1 = { 0 }, s2 = { 0 };

		if (leg_fn(ud, g, ft__sim_nic_gpu(t, far), qp, &leg, &s1) >= 0 &&
		    ft__sim_nic_leg(&leg, nic, t) == 0 && cut_after(&leg, far, t) == 0 &&
		    leg_fn(ud, far, dst, qp, &in, &s2) >= 0 &&
		    leg.nlinks + in.nlinks <= FT_PATH_MAX) {
			bool dead = false;

			for (uint32_t j = 0; s1.code && j < leg.nlinks; j++)
				dead |= !(ft_topo_link_scale(t, leg.links[j]) > 0);
			memcpy(leg.links + leg.nlinks, in.links, in.nlinks * sizeof(uint32_t));
			leg.nlinks += in.nlinks;
			leg.lat_s += in.lat_s;
			if (dead)
				*err = s1;
			else if (s2.code)
				*err = s2;
			goto joined;
		}
	}
	if (g != UINT32_MAX) {
		/* the NIC's GPU's route into a scratch error: where it has none through the NIC,
		 * the NIC's own below, whose error is the one reported */
		struct ft_error scratch = { 0 };

		if (leg_fn(ud, g, dst, qp, &leg, &scratch) >= 0 &&
		    ft__sim_nic_leg(&leg, nic, t) == 0) {
			/* a route over links down that the engine keeps (the packet engine fails
			 * the QP at the dead link): its error goes to the caller */
			if (scratch.code)
				*err = scratch;
			goto joined;
		}
	}
	rc = leg_fn(ud, nic, dst, qp, &leg, err);
	if (rc < 0)
		return rc;
joined:
	if (path->nlinks + leg.nlinks > FT_PATH_MAX)
		return ft_error_set(err, FT_ERANGE,
		                    "sim: a named NIC's path is longer than %d links",
		                    FT_PATH_MAX);
	memcpy(path->links + path->nlinks, leg.links, leg.nlinks * sizeof(uint32_t));
	path->nlinks += leg.nlinks;
	path->lat_s += leg.lat_s;
	return 0;
}

uint32_t
ft__sim_gpu_nic(const struct ft_topo *t, uint32_t gpu_v)
{
	uint32_t r = ft__sim_gpu_nic_index(t, gpu_v);

	return r == UINT32_MAX ? UINT32_MAX : ft_topo_nic(t, ft_topo_vertex(t, gpu_v)->node, r);
}

bool
ft__sim_nvlink_domain_spans_nodes(const struct ft_topo *t)
{
	const struct ft_cluster_spec *spec = ft_topo_spec(t);

	return ft__sim_node(t, 0)->nvlink_domain_nodes > 1 && spec->nnodes > 1;
}

bool
ft__sim_same_nvlink_domain(const struct ft_topo *t, uint32_t node_a, uint32_t node_b)
{
	uint32_t per = ft__sim_node(t, node_a)->nvlink_domain_nodes;

	if (node_a == node_b)
		return true;
	if (per <= 1 || node_a == FT_NO_NODE || node_b == FT_NO_NODE)
		return false;
	return node_a / per == node_b / per;
}

/*
 * The one rule both engines follow for "does this pair leave the node": NCCL's
 * (src/graph/paths.cc, ncclTopoCheckP2p: ranks of two hosts use P2P when MNNVL
 * is on and ncclTopoCheckMNNVL finds them in one clique, i.e. one NVLink
 * domain). Two GPUs of one multi-node NVLink domain (GB200/GB300 NVL72) talk
 * over NVLink whichever trays they sit on; any other pair on two nodes (a GPU
 * and a NIC, two NICs: a NIC is a port of its own tray) goes through the
 * network. What is really about the tray (which NIC a GPU leaves through, its
 * PCIe path) stays per node: ft__sim_gpu_nic(), the routes.
 */
bool
ft__sim_nvlink_peers(const struct ft_topo *t, uint32_t a, uint32_t b)
{
	const struct ft_vertex *x = ft_topo_vertex(t, a), *y = ft_topo_vertex(t, b);

	return x->kind == FT_V_GPU && y->kind == FT_V_GPU && x->node != y->node &&
	       ft__sim_same_nvlink_domain(t, x->node, y->node);
}

bool
ft__sim_over_network(const struct ft_topo *t, uint32_t a, uint32_t b)
{
	return ft_topo_vertex(t, a)->node != ft_topo_vertex(t, b)->node &&
	       !ft__sim_nvlink_peers(t, a, b);
}

uint32_t
ft__sim_nccl_node(const struct ft_topo *t, uint32_t v)
{
	const struct ft_vertex *x = ft_topo_vertex(t, v);
	uint32_t per;

	if (x->kind != FT_V_GPU || x->node == FT_NO_NODE)
		return x->node;
	per = ft__sim_node(t, x->node)->nvlink_domain_nodes;
	return per > 1 ? x->node / per * per : x->node;
}

/* GPU vertex @gpu's NVLink to its node's NVSwitch (@out: from it, else into it). */
static uint32_t
nvswitch_link(const struct ft_topo *t, uint32_t gpu, bool out)
{
	uint32_t first, count, i;

	ft_topo_out_links(t, gpu, &first, &count);
	for (i = first; i < first + count; i++) {
		const struct ft_link *l = ft_topo_link(t, i);

		if (l->kind == FT_L_NVLINK && ft_topo_vertex(t, l->dst)->kind == FT_V_NVSWITCH)
			return out ? i : l->rev;
	}
	return UINT32_MAX;
}

/*
 * A multi-node NVLink domain (GB200/GB300 NVL72): the NVLink switch trays join
 * the GPUs of all its nodes without blocking, so a flow between GPUs of two
 * nodes of one domain is limited only by the sender's NVLink ports and the
 * receiver's, the links between each GPU and its node's NVSwitch in the
 * topology: its path is those two links. 1 when @src and @dst are not two
 * such GPUs (route them as usual), 0 with @path filled, or FT_ENOENT when a
 * port is down.
 */
int
ft__sim_route_nvlink_domain(const struct ft_topo *t, uint32_t src, uint32_t dst,
                            struct ft_path *path)
{
	uint32_t up, down;

	if (!ft__sim_nvlink_peers(t, src, dst))
		return 1;
	up = nvswitch_link(t, src, true);
	down = nvswitch_link(t, dst, false);
	if (up == UINT32_MAX || down == UINT32_MAX || !(ft_topo_link_scale(t, up) > 0) ||
	    !(ft_topo_link_scale(t, down) > 0))
		return FT_ENOENT;
	path->nlinks = 2;
	path->links[0] = up;
	path->links[1] = down;
	path->lat_s = ft_topo_link(t, up)->lat_s + ft_topo_link(t, down)->lat_s;
	return 0;
}

int
ft__sim_p2p_comm(const struct ft_topo *t, uint32_t nranks, bool multi, double nic_Bps,
                 struct ft_model_p2p_comm *out)
{
	const struct ft_cluster_spec *spec = ft_topo_spec(t);
	struct ft_model_links l;
	/* the model's links of the whole cluster at the release its jobs run: NCCL's p2p
	 * channels on them, FT_MODEL_P2P_NCHANNELS where the model places no such cluster;
	 * their error (out of memory on node groups) the caller's (ft__sim_links()) */
	int rc = ft__sim_links(spec, 0, 0, 0, &l);
	bool have = rc > 0;

	out->nranks = nranks;
	out->nnodes = multi ? 2 : 1;
	out->nic_GBps = nic_Bps / 1e9;
	out->net_chunk_x2 = ft_model_p2p_net_chunk_x2(spec);
	out->pci_chunk = ft_model_p2p_pci_chunk(spec);
	out->net_chunk = ft_model_p2p_net_chunk_env(spec);
	out->buffsize = ft_model_buffsize(spec);
	/* the release the jobs run (spec nccl_version, `fabtune sim --nccl`; 0: the newest):
	 * its p2p channels, per-peer rule and schedule, as the model's at that release */
	out->nccl_version = spec->nccl_version;
	out->p2p_nchannels = have ? ft_model_p2p_nchannels_of(&l) : FT_MODEL_P2P_NCHANNELS;
	out->p2p_nchannels_raw = have ? ft_model_p2p_nchannels_raw_of(&l) : 0;
	out->net_count = have ? l.p2p_net_count : 0;
	out->net_GBps = have ? l.p2p_net_GBps : 0;
	return FT_MIN(rc, 0);
}

bool
ft__sim_spans_nodes(const struct ft_topo *t, const uint32_t *gpu, uint32_t n, uint32_t stride)
{
	uint32_t i;

	for (i = 1; i < n; i++)
		if (ft__sim_over_network(t, gpu[0], gpu[(size_t)i * stride]))
			return true;
	return false;
}

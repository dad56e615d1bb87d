/* SPDX-License-Identifier: MIT */
/*
 * sim/nccl.c - what NCCL does to a collective that its schedule (coll/)
 * leaves out, for the simulator's runner: the algorithm and protocol its
 * tuner picks, the link rates it reaches, NVLS efficiency, and channels
 * that enter and leave every node on one rail with PXN proxies, NVLS heads
 * fixed on the GPUs that own the NICs.
 */
#include "sim_int.h"

#include <string.h>

#include <fabtune/model.h>

/*
 * The algorithm and protocol @o runs with: the op's own, or for those it
 * leaves to the tuner (SC_ALGO_AUTO, SC_PROTO_AUTO) NCCL's choice for its
 * size, ranks, nodes and channels, the model's (kb NA-MODEL: the least
 * lat + size / bw), as NCCL_ALGO / NCCL_PROTO restrict it, and without NVLS
 * or NVLSTree when @nvls_off (NCCL_NVLS_ENABLE=0). NVLS across nodes (with
 * CollNet) is left out of the tuner's candidates (ft__sim_pick_algo_net() keeps it);
 * a pick the schedules don't build falls back to ring. PAT, which NCCL's tuner picks
 * for small all-gathers and reduce-scatters with one rank a node, runs as its own
 * schedule (coll/pat.c).
 */
int
ft__sim_pick_algo(const struct ft_cluster_spec *spec, const struct sc_op *o, uint64_t bytes,
                  uint32_t nranks, uint32_t gpn, bool nvls_off, struct ft_model_cache *cache,
                  struct ft_coll_args *args)
{
	return ft__sim_pick_algo_net(spec, o, bytes, nranks, gpn, nvls_off, false, true, cache,
	                             args);
}

/* ft__sim_pick_algo(), with NVLS across nodes among the tuner's candidates where
 * @nvls_net (the runner builds it: ft__sim_nvls_collnet()), and without PAT where not
 * @one_a_node: a job whose @gpn reads 1 (spread, random, packed ranks not a multiple of
 * the node's GPUs) with two ranks on some node, which NCCL's nNodes < nRanks keeps from
 * PAT (src/graph/tuning.cc ncclPatEnable(), v2.23.4-1 to v2.30.7-1); the tuner's pick
 * among the others. The query reads @cache, the run's: a scenario picks for every job and
 * size on the same nodes, and an all-to-all's or a send/recv's pick lays out the node's
 * shared links (model/share.c), once for the run with it (NULL: each pick lays them out,
 * to the same pick). */
int
ft__sim_pick_algo_net(const struct ft_cluster_spec *spec, const struct sc_op *o, uint64_t bytes,
                      uint32_t nranks, uint32_t gpn, bool nvls_off, bool nvls_net, bool one_a_node,
                      struct ft_model_cache *cache, struct ft_coll_args *args)
{
	struct ft_model_query q;
	struct ft_model_result r;
	struct ft_schedule probe;
	int rc;

	args->algo = o->algo;
	args->proto = o->proto;
	args->collnet_chain = false;
	/* a forced CollNet still asks the tuner: it picks CollNetDirect or CollNetChain */
	if (o->algo != SC_ALGO_AUTO && o->proto != SC_PROTO_AUTO && o->algo != FT_ALGO_COLLNET)
		return 0;
	ft_model_query_init(&q, o->op, bytes);
	q.ngpus = nranks;
	q.ppn = gpn; /* 0: nodes of different GPU counts, every GPU of the cluster */
	q.nnodes = gpn ? nranks / gpn : 0;
	q.nchannels = o->channels;
	q.nvls_off = nvls_off;
	/* without the NVLS-with-CollNet schedule, the tuner's best among the others */
	q.no_nvls_net = !nvls_net;
	q.no_pat = !one_a_node;
	q.force_algo = o->algo != SC_ALGO_AUTO;
	q.algo = q.force_algo ? o->algo : FT_ALGO_RING;
	q.collnet = o->collnet;
	q.force_proto = o->proto != SC_PROTO_AUTO;
	q.proto = q.force_proto ? o->proto : FT_PROTO_SIMPLE;
	q.cache = cache;
	/* the tuner's error is the run's where memory ran out; where it prices no such job,
	 * the defaults below */
	rc = ft__sim_eval(spec, &q, &r);
	if (rc < 0)
		return rc;
	if (rc > 0) {
		args->algo = r.algo;
		args->proto = r.proto;
		args->collnet_chain =
		        r.algo == FT_ALGO_COLLNET && strcmp(r.algo_label, "collnet_chain") == 0;
		/* a forced variant stands even where the tuner would not pick it */
		if (r.algo == FT_ALGO_COLLNET && o->collnet != FT_COLLNET_AUTO)
			args->collnet_chain = o->collnet == FT_COLLNET_CHAIN;
		/* nodes of different GPU counts: the runner builds these itself; so it does
		 * NVLS across nodes (ft__sim_nvls_collnet()) */
		if (!gpn && (r.algo == FT_ALGO_TREE || r.algo == FT_ALGO_NVLS_TREE))
			return 0;
		if (nvls_net && r.algo == FT_ALGO_NVLS && gpn && nranks > gpn)
			return 0;
		/* whether coll/ builds the pick; out of memory there is no answer */
		ft_schedule_init(&probe);
		rc = ft_coll_schedule(args, &probe, NULL);
		ft_schedule_release(&probe);
		if (rc == 0 || rc == FT_ENOMEM)
			return rc;
	}
	args->algo = o->algo != SC_ALGO_AUTO ? o->algo :
	             o->op == FT_OP_ALLTOALL ? FT_ALGO_DIRECT :
	                                       FT_ALGO_RING;
	args->proto = o->proto != SC_PROTO_AUTO ? o->proto : FT_PROTO_SIMPLE;
	args->collnet_chain = false;
	return 0;
}

/*
 * Link rates as NCCL achieves them (ft_model_link_efficiency): NVLink at
 * NCCL's per-link figure, NICs and fabric links less the packet headers at
 * the fabric's MTU. The same shares the model applies, so the two engines
 * start from the same rates. An engine that sends the headers on the wire
 * itself (@wire_headers: the packet engine) keeps NIC and fabric links at
 * their line rate, so the headers are not charged twice.
 */
int
ft__sim_nccl_rates(struct ft_topo *t, bool wire_headers)
{
	const struct ft_cluster_spec *spec = ft_topo_spec(t);
	double eff[FT_L_COUNT];
	uint32_t l, n = ft_topo_nlinks(t);
	int k, rc;

	for (k = 0; k < FT_L_COUNT; k++)
		eff[k] = wire_headers && (k == FT_L_HOST || k == FT_L_FABRIC) ?
		                 1.0 :
		                 ft_model_link_efficiency(spec, k);
	for (l = 0; l < n; l++) {
		uint8_t kind = ft_topo_link(t, l)->kind;

		if (kind >= FT_L_COUNT || eff[kind] == 1.0)
			continue;
		rc = ft_topo_set_link_scale(t, l, ft_topo_link_scale(t, l) * eff[kind]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Whether @s is NVLS across nodes (sim_int.h). */
bool
ft__sim_nvls_across_nodes(const struct ft_schedule *s)
{
	size_t i;

	if (s->algo != FT_ALGO_NVLS)
		return false;
	for (i = 0; i < s->flows.len; i++)
		if (FT_VEC_AT(&s->flows, struct ft_sched_flow, i).net)
			return true;
	return false;
}

/*
 * NCCL's NVLS inside one node or NVLink domain splits the data between its
 * heads, one per NVLS channel, and a channel's head is GPU c of the node
 * (src/graph/search.cc: intra-node NVLS tries GPU nChannels for channel
 * nChannels), at most NCCL_MAX_NVLS_ARITY = 32 of them: on a GB200 NVL72
 * domain the first 32 GPUs (trays 0 to 7), not all 72. Every GPU's data
 * goes through the switch once (S out for the reduce, S in from the
 * multicast); a head also loads its reduced shard and stores it back, S / 32
 * more each way (the model's nCh + 1 channels on a head's link, kb
 * NA-ALGO-NVLS). @s, ft_coll_schedule's NVLS all-reduce (every rank a head:
 * S (n + 1) / n each way), gets those bytes when it has more than 32 ranks;
 * other schedules are left alone.
 */
int
ft__sim_nvls_heads(struct ft_schedule *s)
{
	uint64_t shard = s->bytes / FT__SIM_NVLS_MAX_HEADS;
	size_t i;

	if (s->algo != FT_ALGO_NVLS || s->op != FT_OP_ALL_REDUCE ||
	    s->nranks <= FT__SIM_NVLS_MAX_HEADS || ft__sim_nvls_across_nodes(s))
		return 0;
	for (i = 0; i < s->flows.len; i++) {
		struct ft_sched_flow *f = &FT_VEC_AT(&s->flows, struct ft_sched_flow, i);
		uint32_t r = f->src == FT_SCHED_INNET ? f->dst : f->src;

		f->bytes = s->bytes + (r < FT__SIM_NVLS_MAX_HEADS ? shard : 0);
	}
	return 0;
}

/*
 * What NCCL reaches of the links, as wire bytes per byte on a schedule's
 * flows: NVLS moves each rank's data through the NVSwitch at NCCL's NVLS
 * efficiency (kb NA-ALGO-NVLS: 0.85 on Hopper) and, in one node or NVLink
 * domain, at the share of a channel NCCL's list of speeds keeps
 * (ft_model_nvls_channel_share: 20 of 21.8 GB/s on an NVL72 rack), so the
 * flows to and from the switch carry 1 / (eff x share); a tree all-reduce reaches only
 * NCCL's tree correction of its bandwidth (ft_model_tree_correction(), kb NA-MODEL: x0.5 to
 * x0.9 by log2(bytes / 64), the share of its links a tree's pipeline keeps busy at that
 * size, which the model applies to its time): the plain tree's to 256 MiB, the NVLS tree's
 * to 512 MiB on Blackwell behind x86 hosts: the tree's flows carry 1 / correction and the
 * factor is recorded in s->tree_corr (@tree_corr), which the flow engine's
 * submit_chunked() takes off a flow's fill and drain, its first and last chunks, leaving
 * the extra on its middle; the NVLS tree's flows to and from the switch carry
 * 1 / (correction x eff). (CollNet's price, CollNetDirect's x0.85 and CollNetChain's
 * graph speed, and PAT's time, its kernel's bytes at NCCL's .85 (2.23) or .75 (from 2.24)
 * of its links, are paces, not wire bytes: ft__sim_collnet_cap(), ft__sim_pat_cap().) All
 * slow the flows where the links bind and change nothing
 * where a cap binds first. @gpn: the job's GPUs per node, as ft_model_links_get() takes
 * its ppn (0: every GPU of nodes of different GPU counts); the tree reads the model's
 * links of the job (ft__sim_links(), an allocation): 0, or FT_ENOMEM.
 */
int
ft__sim_nccl_efficiency(const struct ft_cluster_spec *spec, struct ft_schedule *s, bool tree_corr,
                        uint32_t gpn)
{
	bool nvls = s->algo == FT_ALGO_NVLS || s->algo == FT_ALGO_NVLS_TREE;
	double eff = nvls ? ft_model_nvls_efficiency(spec) : 1.0, corr = 1.0;
	struct ft_model_links l;
	size_t i;
	int rc;

	/* the job's GPUs and hosts (NCCL's minCompCap and cpuArch); where the model cannot
	 * place the job, no correction: the cluster's hosts need not be the job's */
	if (tree_corr && (s->algo == FT_ALGO_TREE || s->algo == FT_ALGO_NVLS_TREE)) {
		rc = ft__sim_links(spec, s->nranks, 0, gpn, &l);
		if (rc < 0)
			return rc;
		if (rc > 0)
			corr = ft_model_tree_correction(&l, s->op, s->algo, s->proto, s->bytes);
	}
	if (corr > 0 && corr < 1) {
		s->tree_corr = corr;
		for (i = 0; i < s->flows.len; i++) {
			struct ft_sched_flow *f = &FT_VEC_AT(&s->flows, struct ft_sched_flow, i);

			f->bytes = (uint64_t)((double)f->bytes / corr + 0.5);
		}
	}

	if (s->algo == FT_ALGO_NVLS)
		eff *= ft_model_nvls_channel_share(spec, s->nranks);

	if (!(eff > 0 && eff < 1))
		return 0;
	for (i = 0; i < s->flows.len; i++) {
		struct ft_sched_flow *f = &FT_VEC_AT(&s->flows, struct ft_sched_flow, i);

		/* NVLS's flows through the switch; not those of NVLS across nodes to the
		 * network (net), which NCCL's NVLS efficiency does not price */
		if (!nvls || ((f->src == FT_SCHED_INNET || f->dst == FT_SCHED_INNET) && !f->net))
			f->bytes = (uint64_t)((double)f->bytes / eff + 0.5);
	}
	return 0;
}

/*
 * NCCL runs a collective on several channels, one ring (or tree) per rail
 * (kb NA-ALGO-RING): channel c enters every node through rail r = c mod
 * rails and leaves it through the same rail, so every node-to-node hop stays
 * on one rail of a rail-optimized fabric, and the channels together use every
 * NIC. Inside a node the channel's first rank is a GPU of rail r, its last
 * rank another GPU of rail r when the rail has several (4 NICs for 8 GPUs),
 * the others in between in rotated order.
 *
 * A flow that leaves its node on a rail other than its destination's goes
 * through a proxy GPU, as NCCL's PXN does (kb ENV-PXN, on by
 * default): over NVLink to the first GPU of the destination's rail, then out
 * through that GPU's NIC. Both legs are in the same phase: they pipeline.
 */
struct chan_map {
	uint32_t ppn;            /* ranks of one NCCL node: a node, or an NVLink domain */
	uint32_t tray_gpus;      /* GPUs of one physical node (ppn but in a domain) */
	const uint32_t *gpus;    /* [ppn]: each local rank's GPU in its tray (NULL: g mod tray) */
	bool nvlink; /* PXN hands data over NVLink: without it, no proxies */
	const struct ft_node_spec *node;
	uint32_t nccl_version; /* the relay rule's release (ft_model_pxn_relay(); 0: the newest) */
	uint32_t *rail;  /* [ppn]: the NIC of each local rank, numbered across the domain */
	uint32_t *rails; /* [ppn]: the distinct rails, in order of their first GPU */
	uint32_t nrails;
	uint32_t *grp;   /* [ppn]: scratch for one rail's GPUs */
	uint32_t *perm;  /* [nch * ppn]: channel c, ring position -> local rank */
};

/*
 * The GPU of local rank @g in its tray: @gpus[g] for a placement that skips
 * GPUs (ranks on GPUs 0, 2, 4, 6 of every node: local rank 1 is GPU 2), else
 * the rank's place in its tray.
 */
static uint32_t
local_gpu(const uint32_t *gpus, uint32_t tray_gpus, uint32_t g)
{
	return gpus ? gpus[g] % FT_SPEC_MAX_GPUS : g % tray_gpus;
}

/*
 * The rail of local rank @g: its own GPU's NIC (the node's GPU -> NIC
 * affinity, as NCCL picks a rank's NIC). In an NVLink domain of several
 * trays (MNNVL) every tray's NICs are rails of their own, so the domain has
 * trays x NICs rails and a channel leaves it through one NIC of one tray.
 */
static uint32_t
node_rail(const struct ft_node_spec *node, uint32_t tray_gpus, const uint32_t *gpus, uint32_t g)
{
	return (g / tray_gpus) * FT_SPEC_MAX_NICS +
	       node->gpu_nic[local_gpu(gpus, tray_gpus, g)] % FT_SPEC_MAX_NICS;
}

static uint32_t
chan_rail(const struct chan_map *m, uint32_t g)
{
	return node_rail(m->node, m->tray_gpus, m->gpus, g);
}

/* GPUs per tray of a node of @ppn local ranks: @tray_gpus, or all of them (at most a node's). */
static uint32_t
tray_size(uint32_t ppn, uint32_t tray_gpus)
{
	return tray_gpus && tray_gpus <= FT_SPEC_MAX_GPUS ? tray_gpus :
	                                                    FT_MIN(ppn, (uint32_t)FT_SPEC_MAX_GPUS);
}

/* Fill @m's rail tables for @ppn local ranks on GPUs @gpus (NULL: in order), trays of
 * @tray_gpus ranks. */
static int
chan_map_init(struct chan_map *m, uint32_t nch, uint32_t ppn, uint32_t tray_gpus,
              const uint32_t *gpus, const struct ft_node_spec *node, uint32_t version)
{
	uint32_t g, k;

	*m = (struct chan_map){ .ppn = ppn,
		                .tray_gpus = tray_size(ppn, tray_gpus),
		                .gpus = gpus,
		                .nvlink = node->nvlink_gen > 0 && node->nvlink_Bps > 0,
		                .node = node,
		                .nccl_version = version };
	m->rail = ft_calloc((size_t)ppn * 3, sizeof(uint32_t));
	m->perm = ft_calloc((size_t)nch * ppn, sizeof(uint32_t));
	if (!m->rail || !m->perm)
		return FT_ENOMEM;
	m->rails = m->rail + ppn;
	m->grp = m->rails + ppn;
	for (g = 0; g < ppn; g++) {
		m->rail[g] = chan_rail(m, g);
		for (k = 0; k < m->nrails && m->rails[k] != m->rail[g]; k++)
			;
		if (k == m->nrails)
			m->rails[m->nrails++] = m->rail[g];
	}
	return 0;
}

static void
chan_map_release(struct chan_map *m)
{
	ft_free(m->rail);
	ft_free(m->perm);
}

/* The local ranks of rail @r, in order, into @out; their count. */
static uint32_t
rail_gpus(const struct chan_map *m, uint32_t r, uint32_t *out)
{
	uint32_t g, n = 0;

	for (g = 0; g < m->ppn; g++)
		if (m->rail[g] == r)
			out[n++] = g;
	return n;
}

/*
 * Whether local rank @g's GPU reaches rail @r's NIC by its own path, as NCCL's path
 * search leaves it without a PXN step (NVIDIA/nccl src/graph/paths.cc
 * ncclTopoComputePaths(), v2.21.5-1 to v2.28.3-1): the NIC sits in the GPU's own tray under
 * the GPU's own PCIe switch (PATH_PIX or PATH_PXB), or, on a node whose GPUs reach the PCIe
 * over C2C, on the GPU's own CPU (PATH_P2C, before v2.27 PATH_PHB). A PXN step needs the
 * GPU's own path beyond PATH_PXN (v2.27 on; PATH_PXB before) or a proxy of more bandwidth
 * to the NIC than the GPU's own, and neither holds here: NCCL sends from the GPU through
 * that NIC. Not on a node whose GPUs drive several NICs each (nics.per_gpu: a channel's
 * flows spread over the GPU's own NICs there).
 */
static bool
own_path(const struct chan_map *m, uint32_t g, uint32_t r)
{
	const struct ft_node_spec *n = m->node;
	uint32_t gpu = local_gpu(m->gpus, m->tray_gpus, g), nic = r % FT_SPEC_MAX_NICS;

	return g / m->tray_gpus == r / FT_SPEC_MAX_NICS &&
	       ft__sim_nic_own_reach(n, gpu, nic) &&
	       n->gpu_pcie_switch[gpu] == n->nic_pcie_switch[nic];
}

/*
 * The second GPU of a tree channel on rail @r entered at local rank @x: the first other rank
 * of the tray whose own path reaches the rail's NIC (own_path()), else UINT32_MAX. NCCL
 * builds its tree graph as NCCL_TOPO_PATTERN_BALANCED_TREE (NVIDIA/nccl src/init.cc,
 * v2.21.5-1 and v2.27.7-1): in src/graph/search.cc ncclTopoSearchRecGpu() the first GPU
 * (step 0) goes back to the channel's NIC and sets the next backToNet to 1, so the chain's
 * second GPU goes back to a NIC too (inter[2c + 1], which ncclTopoGetNetDev() gives every
 * rank but the first), the one step 0 went back to, as step 0 tries its GPU's preferred NIC
 * first (ncclTopoGetLocalNet(), topo.cc v2.27.7-1), within typeInter (PATH_PIX
 * first: ncclTopoFollowPath()), each counted at half the network bandwidth; the next GPU is
 * sorted by its path to the NIC (ncclTopoSearchNextGpuSort() with sortNet 1). On a DGX
 * A100/H100 channel r's second GPU is r's neighbour under NIC r's own PCIe switch.
 */
static uint32_t
tree_second(const struct chan_map *m, uint32_t r, uint32_t x)
{
	uint32_t g;

	for (g = 0; g < m->ppn; g++)
		if (g != x && own_path(m, g, r))
			return g;
	return UINT32_MAX;
}

/*
 * The rank that ends a channel on rail @r entered at local rank @x, when the rail has no
 * other rank: the first other rank of the tray whose own path reaches the rail's NIC
 * (own_path()), else the rank before @x. NCCL's ring search starts typeInter at PATH_PIX
 * (NVIDIA/nccl src/graph/search.cc ncclTopoCompute(), v2.21.5-1 to v2.24.3-1), from
 * v2.25.1-1 at the closest path any GPU has to a NIC (ncclTopoGetGpuMinPath(): PATH_PIX
 * on a DGX, PATH_P2C on a GB200 tray from v2.27), and takes a channel's last GPU only
 * where its path back to the NIC is within that type (ncclTopoSearchRecGpu() at
 * backToNet, ncclTopoFollowPath() refusing a farther path). After a solution it still
 * tries farther types up to PATH_PXN and keeps the better graph: a ring ending under its
 * NIC's switch at the same bandwidth stays the one kept. So on a DGX H100 channel r
 * leaves from GPU r's neighbour under NIC r's own PCIe switch, through NIC r, no NVLink
 * relay, each GPU's PCIe carrying one channel out.
 */
static uint32_t
channel_last(const struct chan_map *m, uint32_t r, uint32_t x)
{
	uint32_t g = tree_second(m, r, x);

	return g != UINT32_MAX ? g : (x + m->ppn - 1) % m->ppn;
}

/* How a channel places a node's local ranks on its GPUs. */
enum chan_order {
	CHAN_ROTATE, /* rail c mod rails first and last (channel_perm()) */
	CHAN_RING,   /* the same, a ring's last rank as NCCL's search ends it (channel_last()) */
	CHAN_TREE,   /* the same, a tree's second rank under the NIC's switch (tree_second()) */
	CHAN_KEEP,   /* ranks stay where they are */
	CHAN_HEADS,  /* NVLS heads first, fixed on every channel (heads_perm()) */
};

/*
 * Which of its rail's GPUs channel @c's ring enters a node at: the rail's (c / rails)-th,
 * each pass over the rails a GPU further; 0 for every channel of a ring (@order CHAN_RING)
 * on one rail. NCCL's search replays the last channel's GPU order on the next NIC of its
 * list first (NVIDIA/nccl src/graph/search.cc ncclTopoSearchRecNet(), FORCED_ORDER_REPLAY
 * from ncclTopoReplayGetGpu(graph, -1), while sameChannels holds; v2.21.5-1, v2.27.7-1 and
 * v2.29.7-1): with one NIC every channel is on it and enters at channel 0's GPU, and where
 * the NIC holds one channel only the others are its copies (ncclTopoDupChannels(),
 * ncclTopoPostset()), the same ring. So a broadcast from the root crosses N - 1 times on
 * every channel there (kb NA-MODEL; model/tuner.c ft__model_chain_net_hops()). Before,
 * channel c entered at the rail's (c mod GPUs)-th GPU, and with channels forced on one NIC
 * every channel but channel 0 left the root's node and came back.
 */
static uint32_t
ring_turn(const struct chan_map *m, uint32_t c, int order)
{
	return order == CHAN_RING && m->nrails == 1 ? 0 : c / m->nrails;
}

/*
 * The permutation of channel @c (see above) into @perm; @order CHAN_RING: a ring's, which
 * ends on channel_last(); CHAN_TREE: a tree's, whose second rank is tree_second() where the
 * tray has one, the others after it in rotated order, downward where the second is the
 * rank before the first: on NVSwitch NCCL's search offers a GPU's next and previous
 * neighbours alone (src/graph/search.cc ncclTopoSearchNextGpuSort(), v2.21.5-1 and
 * v2.27.7-1), so a DGX channel on odd rail r runs r, r - 1, ..., r + 1, on even rail r
 * r, r + 1, ..., r - 1, and the chains' ends stay one on every GPU.
 */
static void
channel_perm(const struct chan_map *m, uint32_t c, int order, uint32_t *perm)
{
	uint32_t g, k, *grp = m->grp, ng, x, y, b, pos, r = m->rails[c % m->nrails];
	uint32_t turn = ring_turn(m, c, order);

	ng = rail_gpus(m, r, grp);
	x = grp[turn % ng];
	b = order == CHAN_TREE ? tree_second(m, r, x) : UINT32_MAX;
	y = ng > 1             ? grp[(turn + 1) % ng] :
	    order == CHAN_RING ? channel_last(m, r, x) :
	                         (x + m->ppn - 1) % m->ppn;
	perm[0] = x;
	pos = 1;
	if (b == (x + m->ppn - 1) % m->ppn) {
		/* NCCL's chain on NVSwitch walks on to the neighbour it came from's side
		 * (ncclTopoSearchNextGpuSort(): next GPU, then previous): down from x */
		for (k = 1; k < m->ppn; k++)
			perm[pos++] = (x + m->ppn - k) % m->ppn;
		return;
	}
	if (b != UINT32_MAX) {
		perm[pos++] = b;
		for (k = 1; k < m->ppn; k++) {
			g = (x + k) % m->ppn;
			if (g != b)
				perm[pos++] = g;
		}
		return;
	}
	for (k = 1; k < m->ppn; k++) {
		g = (x + k) % m->ppn;
		if (g != y)
			perm[pos++] = g;
	}
	perm[m->ppn - 1] = y;
}

/*
 * The local rank that proxies a flow on rail @r: NCCL's local GPU of the rail's NIC among
 * the ranks of the rail's tray (ft_model_pxn_proxy(), the one rule of the model and both
 * engines: the first of them under the NIC's own PCIe switch, else the first of them on
 * the NIC, in the tray's GPU order as NCCL's topology lists them); the first rank on that
 * GPU; UINT32_MAX when no rank is on the rail. With @relay, only where NCCL relays a send
 * through it at release @version (ft_model_pxn_relay()).
 */
static uint32_t
rail_gpu(const struct ft_node_spec *node, uint32_t ppn, uint32_t tray_gpus, const uint32_t *gpus,
         uint32_t r, bool relay, uint32_t version)
{
	uint32_t g, p, job = 0, lo = (r / FT_SPEC_MAX_NICS) * tray_gpus;
	uint32_t hi = ppn - lo > tray_gpus ? lo + tray_gpus : ppn;

	if (lo >= ppn)
		return UINT32_MAX;
	for (g = lo; g < hi; g++)
		job |= 1u << local_gpu(gpus, tray_gpus, g);
	p = relay ? ft_model_pxn_relay(node, FT_SPEC_MAX_GPUS, job, r % FT_SPEC_MAX_NICS, version) :
	            ft_model_pxn_proxy(node, FT_SPEC_MAX_GPUS, job, r % FT_SPEC_MAX_NICS);
	for (g = lo; g < hi && p != UINT32_MAX; g++)
		if (local_gpu(gpus, tray_gpus, g) == p)
			return g;
	return UINT32_MAX;
}

static uint32_t
pxn_proxy(const struct chan_map *m, uint32_t r)
{
	return rail_gpu(m->node, m->ppn, m->tray_gpus, m->gpus, r, false, m->nccl_version);
}

/*
 * The local rank through which a sender relays onto rail @r: the rail's proxy where NCCL
 * admits it (ft_model_pxn_relay(): NVLink, and the proxy under the NIC's own PCIe switch);
 * UINT32_MAX where the sender keeps its own NIC.
 */
static uint32_t
pxn_relay(const struct chan_map *m, uint32_t r)
{
	return rail_gpu(m->node, m->ppn, m->tray_gpus, m->gpus, r, true, m->nccl_version);
}

/*
 * NCCL's NVLS heads of one node (src/graph/search.cc ncclTopoSearchRecNet with
 * the NVLS pattern, paths.cc and topo.cc ncclTopoGetLocalGpu; connect.cc
 * ncclTopoPreset): the NVLS graph has one channel per NIC, taken in the order
 * of the GPUs that use them (ncclTopoSelectNets), and the channel's head is the
 * NIC's local GPU: the first GPU whose NIC it is, preferring one under the NIC's
 * own PCIe switch, as the PXN proxy (rail_gpu()). A GPU heads one channel at
 * most (duplicates are dropped), and there are at most NCCL_MAX_NVLS_ARITY
 * heads: on a GB200 NVL72 domain GPUs 0 to 31, each with its own NIC.
 */
uint32_t
ft__sim_nvls_node_heads(const struct ft_node_spec *node, uint32_t ppn, uint32_t tray_gpus,
                        const uint32_t *gpus, uint32_t heads[FT__SIM_NVLS_MAX_HEADS])
{
	uint32_t g, k, n = 0, tray = tray_size(ppn, tray_gpus);

	for (g = 0; g < ppn && n < FT__SIM_NVLS_MAX_HEADS; g++) {
		uint32_t r = node_rail(node, tray, gpus, g);
		uint32_t h = rail_gpu(node, ppn, tray, gpus, r, false, 0);

		for (k = 0; k < n && heads[k] != h; k++)
			;
		if (k == n)
			heads[n++] = h;
	}
	return n;
}

static int
push_flow(struct ft_schedule *out, struct ft_sched_phase *ph, const struct ft_sched_flow *fl)
{
	if (ft_vec_push(&out->flows, fl) < 0)
		return FT_ENOMEM;
	ph->nflows++;
	return 0;
}

/*
 * The channel maps of a job: one for every node alike (@first NULL, @ppn ranks
 * each), or, on nodes of different GPU counts, node k holding ranks first[k] to
 * first[k + 1] - 1 with map node_map[k] (one map per node kind).
 */
struct chan_set {
	struct chan_map *maps;
	uint32_t nmaps, ppn, nnodes;
	const uint32_t *first;
	uint32_t *node_map;
	bool own_nics; /* flows between nodes leave and arrive on their ends' NICs: no PXN */
	bool chan_nic; /* flows between nodes on the channel's NIC, its first rank's (below) */
	bool ring;     /* a ring's channels: a sender names its NIC (add_channel_flow()) */
	bool tree;     /* a tree's: the channel's NIC, each end by its own path (ditto) */
	const struct ft__sim_forced_trees *trees; /* one tree a channel (NULL: both) */
};

/* The map of rank @r's node, and the node's first rank in @base. */
static const struct chan_map *
rank_map(const struct chan_set *cs, uint32_t r, uint32_t *base)
{
	uint32_t lo = 0, hi;

	if (!cs->first) {
		*base = r - r % cs->ppn;
		return &cs->maps[0];
	}
	hi = cs->nnodes;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (cs->first[mid] <= r)
			lo = mid;
		else
			hi = mid;
	}
	*base = cs->first[lo];
	return &cs->maps[cs->node_map[lo]];
}

/* Where channel @c puts rank @r: its node's permutation; the node's map and first rank. */
static uint32_t
chan_place(const struct chan_set *cs, uint32_t c, uint32_t r, const struct chan_map **m,
           uint32_t *base)
{
	*m = rank_map(cs, r, base);
	return *base + (*m)->perm[(size_t)c * (*m)->ppn + (r - *base)];
}

/*
 * Add @fl of channel @c to @out: ranks mapped by the channel's permutation.
 * A flow between nodes travels on its destination's rail; a GPU that is not
 * the rail's proxy (another rail, or across the socket from the NIC) hands
 * its data over NVLink to the proxy first where NCCL admits that proxy
 * (pxn_relay(): under the NIC's own PCIe switch). A ring's sender
 * under the NIC's own PCIe switch (own_path()), or one PXN does not admit
 * (a C2C GPU before v2.28.3-1), leaves by that NIC over its own PCIe or C2C
 * path instead (struct ft_sched_flow nic). On the far side the proxy
 * hands it on to a destination that is not one itself (NCCL's PXN). A
 * source node without that rail (fewer NICs) sends from the GPU itself, and
 * so does every NVLS head (@cs own_nics: getNvlsNetDev() in search.cc gives a
 * head the NIC it owns, on every channel), and every send of a send/recv with
 * nodes.nccl.pxn_disable (ft__sim_channelize()).
 */
static int
add_channel_flow(const struct chan_set *cs, uint32_t c, struct ft_sched_flow fl,
                 struct ft_schedule *out, struct ft_sched_phase *ph)
{
	const struct chan_map *ms = NULL, *md = NULL;
	uint32_t bs = 0, bd = 1, rail, ps, pd, dst;
	struct ft_sched_flow leg;
	int rc;

	if (fl.src != FT_SCHED_INNET)
		fl.src = chan_place(cs, c, fl.src, &ms, &bs);
	if (fl.dst != FT_SCHED_INNET)
		fl.dst = chan_place(cs, c, fl.dst, &md, &bd);
	if (!ms || !md || bs == bd || !md->nvlink || cs->own_nics)
		return push_flow(out, ph, &fl);
	/* @cs chan_nic: NCCL gives every connection of a channel between nodes the graph
	 * channel's NIC (src/graph/search.cc ncclTopoGetNetDev(): inter[2 channel] for the
	 * chain's first rank, inter[2 channel + 1] for the others, the same NIC where the
	 * search did not cross NICs), so a tree's child reached through the chain's second
	 * rank still arrives on the channel's rail, not on that rank's own NIC */
	rail = cs->chan_nic || cs->tree ? md->rail[md->perm[(size_t)c * md->ppn]] :
	                                  md->rail[fl.dst - bd];
	pd = pxn_proxy(md, rail);
	if (pd == UINT32_MAX)
		return push_flow(out, ph, &fl);
	ps = pxn_relay(ms, rail);
	if (cs->tree) {
		/* a tree's connection between nodes on the channel's NIC at both ends
		 * (ncclTopoGetNetDev(), search.cc, v2.27.7-1: inter[2c] for the channel's
		 * first rank, inter[2c + 1] for any other; the search makes the second GPU go
		 * back to inter[2c + 1], and step 0 tries the GPU's preferred NIC first,
		 * ncclTopoGetLocalNet() in topo.cc, so the two are the channel's NIC), and
		 * the balanced tree's second GPU sends and receives through it by its own
		 * PCIe path (tree_second()), as NCCL's paths give it (paths.cc
		 * ncclTopoComputePaths(): no PXN step where the GPU's own path is PATH_PXB or
		 * closer): the flow names the NIC (struct ft_sched_flow nic, both ends,
		 * ft__sim_nic_route()); a GPU of neither relays through the rail's GPU where
		 * PXN admits it, as before */
		uint32_t s = fl.src - bs, d = fl.dst - bd;
		bool own_s = own_path(ms, s, rail), own_d = own_path(md, d, rail);

		if (own_s)
			ps = UINT32_MAX;
		if (own_d)
			pd = d;
		if ((own_s && ms->rail[s] != rail) || (own_d && md->rail[d] != rail))
			fl.nic = (uint8_t)(1 + rail % FT_SPEC_MAX_NICS);
		/* the receiving end named too where it is the second GPU, not on the NIC */
		if (own_d && md->rail[d] != rail)
			fl.nic |= FT_SCHED_NIC_IN;
	}
	if (cs->ring && (fl.src - bs) / ms->tray_gpus != rail / FT_SPEC_MAX_NICS) {
		/* a rail of another tray of the NVLink domain: over NVLink to its proxy, whose
		 * own path the NIC is, at every release */
		ps = rail_gpu(ms->node, ms->ppn, ms->tray_gpus, ms->gpus, rail, true, 0);
	} else if (cs->ring) {
		/* a ring's sender reaches its channel's NIC as NCCL's paths give it:
		 * by its own path where that is PATH_PXB or closer (PATH_P2C on C2C), else
		 * through the rail's proxy where PXN admits one at the release, else, on a
		 * C2C node (before v2.28.3-1), over C2C and its CPUs; the NIC is named where
		 * it is not the GPU's own. Elsewhere a sender PXN does not admit keeps its
		 * own NIC, as before (the maps' rail is the next node's, which NCCL's
		 * search on nodes of other shapes need not pick) */
		bool own = own_path(ms, fl.src - bs, rail);
		bool c2c = ps == UINT32_MAX && ft_node_gpu_c2c(ms->node) &&
		           ft__sim_nic_own_reach(ms->node,
		                                 local_gpu(ms->gpus, ms->tray_gpus, fl.src - bs),
		                                 rail % FT_SPEC_MAX_NICS);

		if (own)
			ps = UINT32_MAX;
		if ((own || c2c) && ms->rail[fl.src - bs] != rail)
			fl.nic = (uint8_t)(1 + rail % FT_SPEC_MAX_NICS);
	}
	leg = fl;
	if (ps != UINT32_MAX && fl.src - bs != ps) {
		leg.dst = bs + ps;
		rc = push_flow(out, ph, &leg);
		if (rc < 0)
			return rc;
		fl.src = leg.dst;
		fl.relay = 1;
	}
	dst = fl.dst;
	if (dst - bd != pd)
		fl.dst = bd + pd;
	rc = push_flow(out, ph, &fl);
	if (rc < 0 || fl.dst == dst)
		return rc;
	leg = fl;
	leg.src = fl.dst;
	leg.dst = dst;
	leg.relay = 1;
	return push_flow(out, ph, &leg);
}

/*
 * NCCL's NVLS heads stay on their GPUs on every channel (connect.cc
 * connectNvls: the NVLS compute channels all use the same heads, channel c
 * tree c mod 2 of the double binary tree): local rank h < heads stands for
 * head h, the GPU that owns the h-th NIC (ft__sim_nvls_node_heads()), the
 * other ranks for the other GPUs in order.
 */
static void
heads_perm(const struct chan_map *m, uint32_t *perm)
{
	uint32_t heads[FT__SIM_NVLS_MAX_HEADS], n, g, k, pos;

	n = ft__sim_nvls_node_heads(m->node, m->ppn, m->tray_gpus, m->gpus, heads);
	memcpy(perm, heads, n * sizeof(*perm));
	for (g = 0, pos = n; g < m->ppn; g++) {
		for (k = 0; k < n && heads[k] != g; k++)
			;
		if (k == n)
			perm[pos++] = g;
	}
}

/* Fill map @m for @nch channels, ranks placed as @order says; channel c a copy of the
 * graph's channel c mod @graph (0: none is a copy). */
static int
chan_map_fill(struct chan_map *m, uint32_t nch, uint32_t graph, uint32_t ppn, uint32_t tray_gpus,
              const uint32_t *gpus, const struct ft_node_spec *node, uint32_t version,
              enum chan_order order)
{
	uint32_t c, f;

	if (chan_map_init(m, nch, ppn, tray_gpus, gpus, node, version) < 0)
		return FT_ENOMEM;
	for (c = 0; c < nch; c++) {
		uint32_t *perm = m->perm + (size_t)c * ppn;

		if (order == CHAN_ROTATE || order == CHAN_RING || order == CHAN_TREE)
			channel_perm(m, graph ? c % graph : c, (int)order, perm);
		else if (order == CHAN_HEADS)
			heads_perm(m, perm);
		else
			for (f = 0; f < ppn; f++)
				perm[f] = f;
	}
	return 0;
}

/* Whether @in's channels are a ring's (not a send/recv's): their senders reach the channel's
 * NIC by NCCL's paths, and their last rank is NCCL's (add_channel_flow(), channel_last()). */
static bool
ring_paths(const struct ft_schedule *in)
{
	return in->algo == FT_ALGO_RING && in->op != FT_OP_SENDRECV;
}

/*
 * Whether @in's channels are a plain tree's whose connections between nodes take NCCL's
 * balanced tree paths (add_channel_flow(), tree_second()): on nodes whose GPUs drive one
 * NIC each (own_path()).
 */
static bool
tree_paths(const struct ft_schedule *in, const struct ft_node_spec *node)
{
	return in->algo == FT_ALGO_TREE && in->op == FT_OP_ALL_REDUCE && node->nics_per_gpu <= 1;
}

/*
 * The release the relay rule reads for schedule @in: the jobs' @version for a send/recv
 * (NCCL_PXN_C2C admits its relay from v2.28.3-1, ft_model_pxn_relay()) and for a ring,
 * whose sender takes NCCL's path to its channel's NIC (add_channel_flow()); 0 (every
 * release alike) for a tree: a GPU that is neither the channel's first nor under its NIC's
 * switch relays to the rail's GPU over NVLink at every release (the balanced tree's second
 * GPU sends by its own path, tree_second(), add_channel_flow()).
 */
static uint32_t
relay_release(const struct ft_schedule *in, uint32_t version)
{
	return in->op == FT_OP_SENDRECV || ring_paths(in) ? version : 0;
}

/* The order of @in's channels: an NVLS tree keeps its heads, else @keep_order or rotated. */
static enum chan_order
chan_order_of(const struct ft_schedule *in, bool keep_order)
{
	return keep_order                    ? CHAN_KEEP :
	       in->algo == FT_ALGO_NVLS_TREE ? CHAN_HEADS :
	       ring_paths(in)                ? CHAN_RING :
	                                       CHAN_ROTATE;
}

/*
 * NVIDIA/nccl src/graph/connect.cc (v2.27.7-1, v2.28.3-1): ncclTopoPreset() copies the
 * @graph channels comm->channels[c] to c + graph, connectTrees() gives channel c tree 0 of
 * the double binary tree and channel c + graph tree 1 (the in-node chain the same), and
 * ncclTopoPostset() doubles the count; across nodes on Hopper and later, and on
 * GPUDirect-TCPX, copyChannels() doubles it again, channel c a copy of c - 2 graph, to @run.
 * NCCL_MAX_NCHANNELS then keeps the first min(@nch, @run) and NCCL_MIN_NCHANNELS copies
 * channel c - n to c up to @nch. From v2.20.3-1 to v2.27.7-1 ncclTopoPostset() then copies
 * channel c - nch to c up to nvlsChannels where NVLS runs (connect.cc:493-494 at v2.27.7-1,
 * 473-474 at v2.20.3-1; ft_model_nvls_copy_nchannels()), so channel c >= @nch runs channel
 * c mod @nch's tree (copyChannels() copies a copy past 2 nch).
 */
uint32_t
ft__sim_forced_tree(uint32_t c, uint32_t nch, uint32_t graph, uint32_t run)
{
	uint32_t n = FT_MAX(FT_MIN(nch, run), 1u), g = FT_MAX(graph, 1u);

	return (c % FT_MAX(nch, 1u) % n) % (2 * g) >= g;
}

int
ft__sim_links(const struct ft_cluster_spec *spec, uint32_t nranks, uint32_t nnodes, uint32_t gpn,
              struct ft_model_links *l)
{
	int rc = ft_model_links_get(spec, nranks, nnodes, gpn, l, NULL);

	if (rc == FT_EINVAL || rc == FT_ERANGE)
		return 0;
	return rc < 0 ? rc : 1;
}

int
ft__sim_eval(const struct ft_cluster_spec *spec, const struct ft_model_query *q,
             struct ft_model_result *r)
{
	int rc = ft_model_eval(spec, q, r, NULL);

	if (rc == FT_ENOMEM)
		return rc;
	return rc == 0;
}

int
ft__sim_graph_links(const struct ft_cluster_spec *spec, uint32_t nranks, uint32_t gpn,
                    struct ft_model_links *l, uint32_t *graph)
{
	int rc;

	*graph = 0;
	if (nranks < 2)
		return 0;
	rc = ft__sim_links(spec, nranks, 0, gpn, l);
	if (rc <= 0)
		return rc;
	*graph = l->nnodes >= 2 ? l->graph_nchannels : 0;
	return 1;
}

int
ft__sim_forced_trees_get(const struct ft_cluster_spec *spec, const struct ft_schedule *s,
                         uint32_t nranks, uint32_t gpn, uint32_t nch,
                         struct ft__sim_forced_trees *out)
{
	struct ft_model_links l;
	uint32_t graph;
	int rc;

	*out = (struct ft__sim_forced_trees){ 0 };
	if (s->algo != FT_ALGO_TREE || s->op != FT_OP_ALL_REDUCE || nch == 0)
		return 0;
	rc = ft__sim_graph_links(spec, nranks, gpn, &l, &graph);
	if (rc <= 0)
		return rc;
	/* the count NCCL_MAX_NCHANNELS cuts, at the jobs' release (spec nccl_version). Where
	 * v2.22-v2.27 copy the forced channels up to the NVLS channels
	 * (ft_model_nvls_copy_nchannels()), copy c runs channel c mod nch's tree, so the
	 * bytes each tree carries stay those of the nch channels; the copies' own per-channel
	 * caps are the kernel's (ft__sim_kernel_cap(), the model's forced count at it). */
	out->run = FT_MAX(ft_model_run_nchannels(&l, FT_ALGO_TREE), 2u);
	/* where the links hold no search graph, their count is the channels NCCL runs */
	out->graph = graph ? graph : out->run / 2;
	out->run = FT_MAX(out->run, 2 * out->graph);
	return 1;
}

/*
 * The graph channels a forced ring or tree copies over nodes of different GPU counts: the
 * fewest any node's search finds (init.cc keeps the minimum over the ranks; the model's
 * links merge the node groups' graphs the same way, model/links.c), 0 where the links hold
 * no search graph (each channel then keeps its own rail).
 */
int
ft__sim_uneven_graph(const struct ft_cluster_spec *spec, uint32_t nranks, uint32_t *graph)
{
	struct ft_model_links l;
	int rc = ft__sim_graph_links(spec, nranks, 0, &l, graph);

	return rc < 0 ? rc : 0;
}

/*
 * Flow @fl (copy @pipe of @pipes a channel) of channel @c of @nch: false where the channel
 * does not carry its tree (@cs trees: one tree a channel, ft__sim_forced_tree()); else its
 * bytes, the channel's share of the flow's copies together: a tree copy carries half a
 * channel's wire bytes, and @copy holds the bytes of a flow of copy 1 and of copy 2 in its
 * phase, so the flow's own bytes and its other copy's make the whole.
 */
static bool
channel_share(const struct chan_set *cs, uint32_t c, uint32_t nch, uint32_t pipes,
              const uint64_t copy[2], struct ft_sched_flow *fl)
{
	const struct ft__sim_forced_trees *t = cs->trees;
	uint64_t all = fl->bytes;

	if (t && pipes == 2 && fl->pipe) {
		if (fl->pipe != 1 + ft__sim_forced_tree(c, nch, t->graph, t->run))
			return false;
		all = fl->bytes + copy[fl->pipe == 1];
	}
	fl->bytes = all / nch + (c < all % nch);
	return true;
}

/*
 * How far channel @c turns a broadcast's or reduce's chain (@in: coll/schedule.c
 * sched_chain(), root first resp. last, in rank order) so that it starts (ends) at the
 * root's own GPU, as NCCL runs it: every channel's chain goes from the root along that
 * channel's ring to the root's predecessor on it (NVIDIA/nccl src/device/broadcast.h
 * runRing(): the root sends, the rank whose ring successor is the root only receives,
 * the others receive, copy and send on; src/device/reduce.h runRing() the same way round,
 * the root's successor sending first; v2.21.5-1 and v2.27.7-1, src/collectives/device/ at
 * v2.18.3-1), userRanks[0] being the rank itself on every channel's ring (src/graph/
 * rings.cc ncclBuildRings()). A channel's ring is rank order placed by its permutation, so
 * the chain starts at the position where channel @c places the root; 0 for any other
 * schedule, and where the channel keeps the root in place.
 */
static uint32_t
chain_shift(const struct ft_schedule *in, const struct chan_set *cs, uint32_t c)
{
	const struct chan_map *m;
	uint32_t n = in->nranks, j, base;

	if ((in->op != FT_OP_BROADCAST && in->op != FT_OP_REDUCE) || in->algo != FT_ALGO_RING ||
	    in->root >= n)
		return 0;
	/* a permutation keeps a rank in its node: the position is the root node's local
	 * index whose place on channel @c is the root's */
	m = rank_map(cs, in->root, &base);
	for (j = 0; j < m->ppn; j++)
		if (m->perm[(size_t)c * m->ppn + j] == in->root - base)
			return (base + j + n - in->root) % n;
	return 0;
}

/* Merge @nch channel copies of @in, each with 1/nch of the bytes, into @out; where @cs
 * places one tree a channel, each channel keeps its tree's flows with 1/nch of both's;
 * a chain starts at its root on every channel (chain_shift()). */
static int
channelize_set(const struct ft_schedule *in, uint32_t nch, const struct chan_set *cs,
               struct ft_schedule *out)
{
	size_t p;
	uint32_t c, f;
	int rc = 0;

	*out = *in;
	ft_vec_init(&out->phases, sizeof(struct ft_sched_phase));
	ft_vec_init(&out->flows, sizeof(struct ft_sched_flow));
	for (p = 0; p < in->phases.len && rc == 0; p++) {
		const struct ft_sched_phase *iph = ft_sched_phase_at(in, p);
		struct ft_sched_phase ph = *iph;

		uint32_t pipes = 0; /* tree copies per channel: every channel has its own */
		uint64_t copy[2] = { 0, 0 }; /* the bytes of a flow of copy 1 and of copy 2 */

		ph.first_flow = (uint32_t)out->flows.len;
		ph.nflows = 0;
		for (f = 0; f < iph->nflows; f++) {
			const struct ft_sched_flow *fl =
			        &FT_VEC_AT(&in->flows, struct ft_sched_flow, iph->first_flow + f);

			pipes = FT_MAX(pipes, (uint32_t)fl->pipe);
			if (fl->pipe == 1 || fl->pipe == 2)
				copy[fl->pipe - 1] = FT_MAX(copy[fl->pipe - 1], fl->bytes);
		}
		for (c = 0; c < nch && rc == 0; c++) {
			uint32_t shift = chain_shift(in, cs, c);

			for (f = 0; f < iph->nflows && rc == 0; f++) {
				struct ft_sched_flow fl = FT_VEC_AT(
				        &in->flows, struct ft_sched_flow, iph->first_flow + f);

				if (!channel_share(cs, c, nch, pipes, copy, &fl))
					continue;
				if (shift) {
					fl.src = (fl.src + shift) % in->nranks;
					fl.dst = (fl.dst + shift) % in->nranks;
				}
				if (fl.pipe)
					fl.pipe = (uint16_t)FT_MIN(c * pipes + fl.pipe, UINT16_MAX);
				rc = add_channel_flow(cs, c, fl, out, &ph);
			}
		}
		ph.npairs = ph.nflows;
		if (rc == 0 && ft_vec_push(&out->phases, &ph) < 0)
			rc = FT_ENOMEM;
	}
	return rc;
}

/*
 * Merge @nch rail-aligned copies of @in, each with 1/nch of the bytes, into
 * @out; @keep_order: ranks stay where they are (one copy: PXN only); @gpus:
 * each local rank's GPU in its tray, alike on every node (NULL: in order).
 * Channel c runs the rails and order of channel c mod @graph (0: its own): the
 * channels ncclTopoPostset copies take their graph channel's NIC
 * (ncclTopoGetNetDev reads the graph at channelId mod nChannels). @one_kind: every
 * node of the job is of @node's kind (a ring's senders then take NCCL's paths).
 */
int
ft__sim_channelize(const struct ft_schedule *in, uint32_t nch, uint32_t graph, uint32_t ppn,
                   uint32_t tray_gpus, const uint32_t *gpus, const struct ft_node_spec *node,
                   uint32_t nccl_version, bool keep_order, bool one_kind,
                   const struct ft__sim_forced_trees *trees, struct ft_schedule *out)
{
	struct chan_map m;
	/* NCCL's paths from @node's placement only where every node is of that kind: on
	 * nodes of other kinds the map's own paths need not be theirs, so their rings keep
	 * the relay rule of every release and the rank before the first as the last, as
	 * nodes of other shapes do (ft__sim_channelize_uneven()) */
	bool paths = ring_paths(in) && one_kind;
	bool tree = tree_paths(in, node) && one_kind && !keep_order;
	struct chan_set cs = { .maps = &m,
		               .nmaps = 1,
		               .ppn = ppn,
		               .own_nics = in->algo == FT_ALGO_NVLS_TREE,
		               .ring = paths,
		               .tree = tree,
		               .trees = trees };
	int rc;

	/* A send/recv with NCCL_PXN_DISABLE=1 (ncclPxnDisable(), src/graph/paths.cc; kb
	 * ENV-PXN) leaves by its GPU's own NIC and arrives on its peer's: no relay. */
	if (in->op == FT_OP_SENDRECV && node->nccl_pxn_disable)
		cs.own_nics = true;
	rc = chan_map_fill(&m, nch, graph, ppn, tray_gpus, gpus, node,
	                   paths || in->op == FT_OP_SENDRECV ? relay_release(in, nccl_version) : 0,
	                   tree                                    ? CHAN_TREE :
	                   !paths && ring_paths(in) && !keep_order ? CHAN_ROTATE :
	                                                             chan_order_of(in, keep_order));

	if (rc == 0)
		rc = channelize_set(in, nch, &cs, out);
	else
		*out = (struct ft_schedule){ 0 };
	chan_map_release(&m);
	return rc;
}

/*
 * The same on nodes of different GPU counts (a ring over every GPU of a
 * cluster of node groups, kb NA-ALGO-RING): node k holds ranks first[k] to
 * first[k + 1] - 1 and is of kind @kind[k]; every node has its own rails and
 * permutation, so channel c enters and leaves each node on rail c mod its own
 * rails. @gpus (NULL: in order) gives each rank's GPU in its node, so a node's
 * rails are its placed GPUs' NICs. Nodes of one kind, size and GPUs share a map.
 *
 * Forced channels (@graph > 0, ft__sim_uneven_graph()) are copies of the job's graph
 * channels, and a copy takes its graph channel's NIC on every node: each rank searches its
 * own node's graph (NVIDIA/nccl src/graph/search.cc ncclTopoCompute(), its channels doubled
 * by ncclTopoDupChannels()), init.cc initTransportsRank() keeps the fewest channels any rank
 * found, and ncclTopoGetNetDev() (search.cc) reads a channel's NIC from the graph at
 * channelId mod that count. So channel c enters and leaves each node on rail (c mod @graph)
 * mod its rails: on one DGX H100 beside 4-GPU nodes of two NICs (@graph 2) the DGX's forced
 * channels share its first two NICs, as the small nodes' graph allows.
 */
int
ft__sim_channelize_uneven(const struct ft_schedule *in, uint32_t nch, uint32_t graph,
                          uint32_t nnodes, const uint32_t *first,
                          const struct ft_node_spec *const *kind, uint32_t nccl_version,
                          const uint32_t *gpus, const struct ft__sim_forced_trees *trees,
                          struct ft_schedule *out)
{
	struct chan_set cs = { .nnodes = nnodes,
		               .first = first,
		               .own_nics = in->algo == FT_ALGO_NVLS_TREE,
		               .chan_nic = trees && graph && in->algo == FT_ALGO_TREE,
		               .trees = trees };
	uint32_t k, i;
	int rc = FT_ENOMEM;

	*out = (struct ft_schedule){ 0 };
	cs.maps = ft_calloc(FT_MAX(nnodes, 1u), sizeof(*cs.maps));
	cs.node_map = ft_calloc(FT_MAX(nnodes, 1u), sizeof(uint32_t));
	if (!cs.maps || !cs.node_map)
		goto out;
	for (k = 0, rc = 0; k < nnodes && rc == 0; k++) {
		uint32_t ppn = first[k + 1] - first[k];

		const uint32_t *g = gpus ? gpus + first[k] : NULL;

		for (i = 0; i < cs.nmaps; i++)
			if (cs.maps[i].ppn == ppn && cs.maps[i].node == kind[k] &&
			    (!g || !memcmp(cs.maps[i].gpus, g, ppn * sizeof(*g))))
				break;
		cs.node_map[k] = i;
		if (i == cs.nmaps)
			/* (a ring's channels between nodes of other shapes change rails at
			 * every node: their senders keep the relay rule of every release and
			 * the rank before the first as the last, not NCCL's path rule) */
			rc = chan_map_fill(&cs.maps[cs.nmaps++], nch, graph, ppn, ppn, g, kind[k],
			                   in->op == FT_OP_SENDRECV ? nccl_version : 0,
			                   ring_paths(in) ? CHAN_ROTATE : chan_order_of(in, false));
	}
	if (rc == 0)
		rc = channelize_set(in, nch, &cs, out);
out:
	for (i = 0; cs.maps && i < cs.nmaps; i++)
		chan_map_release(&cs.maps[i]);
	ft_free(cs.maps);
	ft_free(cs.node_map);
	return rc;
}

/*
 * A channel is one CUDA block and its connections (kb NA-CONCEPTS): it moves
 * data through one NVLink path or one NIC with one SM's copies, so NCCL's
 * bus bandwidth is nChannels x the per-channel graph bandwidth (kb
 * NA-MODEL), and the model gives each channel the graph's intra-node
 * bandwidth / its channel count (one NVLink's 20.6 GB/s on Hopper). A
 * channel the user asks for is one NCCL channel, and more channels than the
 * graph's add nothing. The default channels (one per rail) stand for the
 * graph's channels between them: together they may reach the whole graph
 * bandwidth, which the NVLink (or PCIe) links themselves enforce, so they get
 * no cap of their own.
 *
 * A forced tree channel runs one tree (ft__sim_forced_tree()), and a connection of it
 * carries half the channel's share: NCCL's tuner takes a tree's per-channel algorithm
 * bandwidth as the bus bandwidth x 0.5 (NVIDIA/nccl v2.27.7-1 src/graph/tuning.cc:325,
 * the tree's bus-to-algorithm ratio). Over 2 and 3 nodes the half is lifted by
 * ppn / (ppn - 1): this is the model's own carried factor (ft_model_tree_carried_factor(),
 * model/tuner.c ft__model_carried(): a chain GPU sends 2 (ppn - 1) / ppn x S over NVLink,
 * not 2S), not a rule of NCCL's, whose kernel and tuner have none by node count. It keeps
 * both engines within 6 % of the model on 2 DGX H100 (without it 11-14 % slow; sim-log.md,
 * "Forced tree channels, one tree each"), at the cost that a middle chain GPU sends
 * 2 x 11.43 = 22.9 GB/s on a channel whose share is 20.
 */
int
ft__sim_channel_cap(const struct ft_cluster_spec *spec, enum ft_algo algo, uint32_t nranks,
                    uint32_t gpn, uint32_t nch, bool given, double *cap)
{
	struct ft_model_links l;
	uint32_t graph;
	double share;
	int rc;

	*cap = 0;
	if ((algo != FT_ALGO_RING && algo != FT_ALGO_TREE) || nch == 0 || gpn == 1 || !given)
		return 0;
	rc = ft__sim_links(spec, nranks, 0, gpn, &l);
	if (rc <= 0 || !(l.intra_Bps > 0))
		return FT_MIN(rc, 0);
	graph = l.nchannels ? l.nchannels : 1;
	share = l.intra_Bps / FT_MAX(nch, graph);
	if (algo == FT_ALGO_TREE && l.nnodes >= 2) {
		share *= 0.5;
		if (l.ppn > 1 && ft_model_tree_carried_factor(&l, FT_ALGO_TREE) != 1.0)
			share *= l.ppn / (l.ppn - 1.0);
	}
	*cap = share;
	return 0;
}

/*
 * A model query for NCCL's price of @op over @s's bytes on @nranks ranks, @gpn a node, by
 * @algo in Simple, NCCL's tuner alone: the query the caps below (ft__sim_nvls_net_cap(),
 * ft__sim_collnet_cap(), ft__sim_pat_cap()) share.
 */
static void
price_query(struct ft_model_query *q, const struct ft_schedule *s, enum ft_op op,
            uint32_t nranks, uint32_t gpn, enum ft_algo algo)
{
	ft_model_query_init(q, op, s->bytes);
	q->ngpus = nranks;
	q->ppn = gpn;
	q->nnodes = nranks / gpn;
	q->force_algo = q->force_proto = true;
	q->algo = algo;
	q->proto = FT_PROTO_SIMPLE;
	q->tuner_only = true;
}

/*
 * The model's answer to @q as a pace's rate: its algorithm bandwidth into @bw and its
 * bottleneck's class into @what (@len bytes); *@bw 0 where the model gives no price (or,
 * with @same_algo, one by another algorithm than @q's). Out of memory is the run's.
 */
static int
price_of(const struct ft_cluster_spec *spec, const struct ft_model_query *q, bool same_algo,
         char *what, size_t len, double *bw)
{
	struct ft_model_result r;
	int rc = ft__sim_eval(spec, q, &r);

	*bw = 0;
	if (rc <= 0 || !(r.bw_Bps > 0) || (same_algo && r.algo != q->algo))
		return FT_MIN(rc, 0);
	ft_strlcpy(what, r.bottleneck, len);
	*bw = r.bw_Bps;
	return 0;
}

/*
 * Every connection of @s capped at the largest one's bytes over S / @algbw: the cap, bytes/s
 * per connection.
 */
static double
largest_flow_cap(const struct ft_schedule *s, double algbw)
{
	double wmax = 0;
	size_t i;

	for (i = 0; i < s->flows.len; i++)
		wmax = FT_MAX(wmax, (double)FT_VEC_AT(&s->flows, struct ft_sched_flow, i).bytes);
	return wmax * algbw / (double)s->bytes;
}

/*
 * NCCL's tree and NVLSTree all-reduce move at most its per-channel cap of bus
 * bandwidth per channel: the throughput of a channel's kernel, not a link's (kb
 * NA-MODEL perChMaxTreeBws, NA-ALGO-NVLS perChMaxNVLSTreeBws). The model's tuner
 * bounds the tree by it, and ft_model_tree_cap_algbw() turns it into the algorithm
 * bandwidth it allows, with what the tree really carries over 2 and 3 nodes. On 2
 * DGX H100 the NVLSTree cap (8 x 57.7 = 461.6 GB/s busbw) is what binds, and a
 * measurement agrees (466.7 at 8 GiB; NVIDIA/nccl-tests issue 309,
 * docs/internals/model.md) where the links alone would allow 525; over 4 GB200 NVL72
 * domains the tree's (18 channels x 24 GB/s x 0.5 = 216 GB/s algbw) binds where the
 * NVLink chains would allow 318. The all-reduce of @s then takes at least S / algbw.
 * The connections all run at once in one phase, so capping each at the largest one's
 * bytes over that time makes the op last at least that long and changes nothing where
 * the links bind first. Returns that cap, bytes/s on the wire per connection; 0: none.
 */
int
ft__sim_tree_cap(const struct ft_cluster_spec *spec, const struct ft_schedule *s,
                 uint32_t nranks, uint32_t gpn, double *cap)
{
	struct ft_model_links l;
	double algbw;
	int rc;

	*cap = 0;
	if ((s->algo != FT_ALGO_NVLS_TREE && s->algo != FT_ALGO_TREE) ||
	    s->op != FT_OP_ALL_REDUCE || nranks < 2 || s->bytes == 0)
		return 0;
	rc = ft__sim_links(spec, nranks, 0, gpn, &l);
	if (rc <= 0)
		return rc;
	algbw = ft_model_tree_cap_algbw(&l, s->algo, s->proto);
	if (!(algbw > 0))
		return 0;
	*cap = largest_flow_cap(s, algbw);
	return 0;
}

/*
 * NCCL's price of NVLS across nodes (@s: ft__sim_nvls_collnet()'s schedule) as a pace.
 * Its tuner gives it nChannels x min(bwIntra x nvlsEfficiency x (nCh - 1)/nCh x 2,
 * bwInter) of bus bandwidth and turns that into algorithm bandwidth as a ring's, x
 * nRanks / 2(nRanks - 1) (NVIDIA/nccl src/graph/tuning.cc ncclTopoTuneModel, v2.28.3-1 to
 * v2.30.7-1; 5/6 of nChannels x min(bwIntra, bwInter) before; model/tuner.c
 * cost_nvls_net(), kb NA-ALGO-NVLS): on 8 x 400G NICs a node's heads move S / 8 each way
 * per NIC in S / 195 GB/s over 64 ranks, half the NICs' rate, what the kernel's few warps
 * per channel that reduce into the network and multicast back reach (src/device/
 * all_reduce.h: 3 and 2 of 16 where the links alone would allow twice as much). As for
 * the NVLSTree cap (ft__sim_tree_cap()), every connection is capped at the largest one's
 * wire bytes over S / algbw, the algbw of the model's tuner for the op's ranks and nodes:
 * the op lasts at least that long, and nothing changes where the links bind first.
 * Returns that cap, bytes/s per connection, and in @what (@len bytes) the link class the
 * price binds on, the model's bottleneck; 0: none (another schedule, no price).
 */
int
ft__sim_nvls_net_cap(const struct ft_cluster_spec *spec, const struct ft_schedule *s,
                     uint32_t nranks, uint32_t gpn, char *what, size_t len, double *cap)
{
	struct ft_model_query q;
	double bw;
	int rc;

	*cap = 0;
	if (!ft__sim_nvls_across_nodes(s) || s->bytes == 0 || gpn < 2 || nranks <= gpn)
		return 0;
	price_query(&q, s, FT_OP_ALL_REDUCE, nranks, gpn, FT_ALGO_NVLS);
	rc = price_of(spec, &q, false, what, len, &bw);
	if (rc == 0 && bw > 0)
		*cap = largest_flow_cap(s, bw);
	return rc;
}

/*
 * NCCL's price of a CollNet all-reduce (@s: CollNetChain's or CollNetDirect's schedule, on
 * @nch channels forced, 0: NCCL's) as a pace, as NVLS across nodes' (ft__sim_nvls_net_cap()).
 * CollNetChain's tuner takes its graph's speed, nChannels x bwIntra x 0.5, not its links'
 * (model/tuner.c cost_collnet_chain(); NVIDIA/nccl src/graph/tuning.cc
 * ncclTopoTuneModel(), v2.18.3-1 and v2.27.7-1; kb NA-ALGO-COLLNET): 8 x 48 x 0.5 = 192
 * GB/s on 8 H100 with 8 x 400G NICs, where NVLink carries the chain at 360 x 8/14 =
 * 205.7. bwIntra is the speed NCCL's search found for the graph on the NICs' path
 * (src/graph/search.cc, the inter speed list on the GPU -> NIC path: 48 GB/s through
 * PCIe), so it binds on the NICs' class, as the model names it. CollNetDirect's takes x0.85
 * of its links on sm_90 and later (ft_model_collnet_direct_efficiency(); the four groups of
 * warps of NCCL's channel share it), named by the class of the links it binds on. Both were
 * wire bytes before (ft__sim_nccl_efficiency()): the counters read 1/0.85 and 205.7/192 of
 * what NCCL moves, and the chain's row named the NVLink its extra bytes filled. A forced
 * channel count is nChannels in the price and the model's links at those channels' share
 * (ft_model_links_force_channels(): one NVLink path a channel; 4 channels on 2 DGX H100:
 * 80 GB/s of NVLink a GPU, 45.7 GB/s of chain, named nvlink). Every connection is capped at
 * the largest one's bytes over S / algbw, so the flows carry the bytes NCCL moves (before,
 * 205.7 / 192 of them, as wire bytes) and the pipeline's loops pass at the tuner's price.
 * The flow engine paces the middle chunks of its pipeline, not the fill and the drain, which
 * cross at the links' rates (engine_flow.c submit_chunked(); so an op of one loop is not
 * paced: CollNetDirect at 1 MiB on 4 DGX H100, 56.31 us against the model's 53.46), the
 * packet engine loop m at m periods (pkt_tree.c cap_pace()); CollNetDirect's NVLink stages
 * alone, in the kernel's first and last rounds, take nv periods a loop: the flow engine's
 * chunks there at the pace / nv, the packet engine's loops 1 and 2 at the kernel's first
 * two rounds (ft__sim_collnet_stages()). Where the model's links bind, the pace is their rate in
 * the model's reading of the job, and it can still hold the engines' flows (4 x pcie-l40s
 * with SHARP at 1 MiB: 225.54 -> 234.11 us, the model 245.7). Returns that cap, bytes/s per
 * connection, and the class into @what (@len bytes); 0: none (another schedule, one node,
 * no price).
 */
int
ft__sim_collnet_cap(const struct ft_cluster_spec *spec, const struct ft_schedule *s,
                    uint32_t nranks, uint32_t gpn, uint32_t nch, char *what, size_t len,
                    double *cap)
{
	struct ft_model_query q;
	double bw;
	int rc;

	*cap = 0;
	if (s->algo != FT_ALGO_COLLNET || s->op != FT_OP_ALL_REDUCE || s->bytes == 0 ||
	    gpn == 0 || nranks <= gpn || nranks % gpn)
		return 0;
	price_query(&q, s, FT_OP_ALL_REDUCE, nranks, gpn, FT_ALGO_COLLNET);
	q.collnet = s->collnet_chain ? FT_COLLNET_CHAIN : FT_COLLNET_DIRECT;
	q.nchannels = FT_MIN(nch, (uint32_t)FT_SPEC_MAX_CHANNELS);
	rc = price_of(spec, &q, true, what, len, &bw);
	if (rc == 0 && bw > 0)
		*cap = largest_flow_cap(s, bw);
	return rc;
}

/*
 * CollNetDirect's rounds as its kernel runs them (NVIDIA/nccl src/device/all_reduce.h,
 * RunWork / RunWorkColl for NCCL_ALGO_COLLNET_DIRECT at v2.21.5-1 and v2.27.7-1: the
 * scatter, the heads' reduce-and-send, their receive-and-broadcast and the gather are
 * warp groups of their own, each with its fixed threads, looping over the channel's
 * chunks): the model's reading (ft_model_collnet_direct_stages(), model/pipeline.c
 * collnet_rounds_s()), one rule for the model and both engines. NCCL's price, the op's
 * cap (ft__sim_collnet_cap()), is a period where the scatter and the broadcast share the
 * GPU's NVLink; in the first two rounds the scatter runs without the broadcast beside it,
 * in the last two the broadcast without the scatter, each a loop in *@nv periods (0.5
 * where NVLink binds), the network's loop in *@net. The flow engine caps those chunks at
 * the cap / nv (engine_flow.c submit_chunked()), the packet engine starts the scatter's
 * loops 1 and 2 that much sooner (pkt_tree.c cap_pace()).
 */
void
ft__sim_collnet_stages(const struct ft_model_links *l, const struct ft_sim_op *op, double *nv,
                       double *net)
{
	const struct ft_schedule *sc = op->sched;
	struct ft_model_links t = *l;

	*nv = *net = 0;
	if (sc->algo != FT_ALGO_COLLNET || sc->collnet_chain || sc->op != FT_OP_ALL_REDUCE ||
	    sc->bytes == 0)
		return;
	if (op->nchannels)
		ft_model_links_force_channels(&t, FT_MIN(op->nchannels,
		                                         (uint32_t)FT_SPEC_MAX_CHANNELS));
	if (!ft_model_collnet_direct_stages(&t, sc->bytes, nv, net) || !(*nv > 0))
		*nv = *net = 0;
}

/*
 * Every connection of @s, whose phases run one after another, capped so that the phases
 * last S / @algbw together: each phase's largest connection's bytes, summed over the
 * phases, over that time; bytes/s per connection (0: no bytes).
 */
static double
phased_flow_cap(const struct ft_schedule *s, double algbw)
{
	double w = 0;
	size_t p;
	uint32_t f;

	for (p = 0; p < s->phases.len; p++) {
		const struct ft_sched_phase *ph = ft_sched_phase_at(s, p);
		double wmax = 0;

		for (f = 0; f < ph->nflows; f++) {
			struct ft_sched_flow fl;

			ft_sched_phase_flow(s, ph, f, &fl);
			wmax = FT_MAX(wmax, (double)fl.bytes);
		}
		w += wmax;
	}
	return w * algbw / (double)s->bytes;
}

/*
 * The model's time of a PAT all-gather or reduce-scatter (@s: sched_pat()'s, one rank a
 * node, on @nch channels forced, 0: NCCL's) as a pace, as CollNet's price
 * (ft__sim_collnet_cap()). NCCL's tuner gives PAT nChannels x the graph's bandwidth x .85
 * at v2.23.4-1, x .75 from v2.24.3-1 (src/graph/tuning.cc ncclTopoTuneModel(): busBw *= .75
 * where a == NCCL_ALGO_PAT; kb NA-ALGO-PAT; model/tuner.c cost_pat(),
 * ft_model_pat_busbw_share()), named by the class of the graph's bandwidth, and prices S
 * over it (no conversion to algorithm bandwidth for a non-ring all-gather or
 * reduce-scatter); the model's time, which this asks for, takes that busBw over the
 * kernel's (n - 1) / n of S a rank (ft_model_pat_carried_factor(): src/include/
 * collectives.h PatAGAlgorithm, PatRSAlgorithm), and the tuner's price of S only picks.
 * Its kernel runs on comm->nChannels as every algorithm's (src/enqueue.cc
 * topoGetAlgoInfo(), the channels NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS force), so a
 * forced count is nChannels in the busBw. The share was wire bytes before
 * (ft__sim_nccl_efficiency()): every flow carried 1 / .75 of its bytes, the counters read
 * 4/3 of what NCCL moves (983,040 B of 64 KiB over 16 ranks as 1,310,720), and the
 * bottleneck row named the link the extra bytes filled. A rank's phases (its dimensions,
 * the farthest first for an all-gather) run one after another, so every connection is
 * capped at the sum of each phase's largest connection's bytes over S / algbw
 * (phased_flow_cap()): the phases pass in the model's time together, the flows carry the
 * bytes NCCL moves (S (n - 1) / n a rank), and where the links bind first nothing changes.
 * Returns that cap, bytes/s per connection, and the class into @what (@len bytes); 0:
 * none (another schedule, no price).
 */
int
ft__sim_pat_cap(const struct ft_cluster_spec *spec, const struct ft_schedule *s,
                uint32_t nranks, uint32_t nch, char *what, size_t len, double *cap)
{
	struct ft_model_query q;
	double bw;
	int rc;

	*cap = 0;
	if (s->algo != FT_ALGO_PAT || s->bytes == 0 || nranks < 2 ||
	    (s->op != FT_OP_ALL_GATHER && s->op != FT_OP_REDUCE_SCATTER))
		return 0;
	/* one rank a node: NCCL's only PAT (ncclPatEnable(): nNodes == nRanks) */
	price_query(&q, s, s->op, nranks, 1, FT_ALGO_PAT);
	q.nchannels = FT_MIN(nch, (uint32_t)FT_SPEC_MAX_CHANNELS);
	rc = price_of(spec, &q, true, what, len, &bw);
	if (rc == 0 && bw > 0)
		*cap = phased_flow_cap(s, bw);
	return rc;
}

/*
 * NCCL's LL and LL128 kernels move a channel's data at the rate its tuner gives the
 * protocol, not at the links' rate times the protocol's wire efficiency (kb NA-PROTO-LL:
 * a ring's LL share of the graph under llMaxBws, 282 GB/s busbw on one Blackwell node
 * where the wire would allow 360; NA-PROTO-LL128: the per-channel caps; the tree's 1/3.8
 * and 7/9), and at small sizes NCCL launches fewer channels than it has (src/enqueue.cc
 * topoGetAlgoInfo: one fewer while a thread would get less than its threshold, 8 B x
 * nranks on an LL ring: 3 of 32 on a GB200 NVL72 rack at 1 MiB). The model's one
 * definition of both is ft_model_kernel_algbw(), the bandwidth term of its time; the
 * op takes at least S over it. The phases of @s run one after another, the connections
 * of a phase at once, so capping each connection at the phases' largest wire bytes,
 * summed, over that time makes the op last at least that long and changes nothing where
 * the links (or congestion) bind first. Returns that cap, bytes/s on the wire per
 * connection; 0: none (Simple on all its channels, other algorithms, one rank).
 */
int
ft__sim_kernel_cap(const struct ft_cluster_spec *spec, const struct ft_schedule *s,
                   uint32_t nranks, uint32_t gpn, uint32_t nch, double *cap)
{
	double eff = s->proto_eff > 0 ? s->proto_eff : 1.0, algbw, wire = 0;
	struct ft_model_links l;
	size_t p;
	uint32_t f;
	int rc;

	*cap = 0;
	if ((s->algo != FT_ALGO_RING && s->algo != FT_ALGO_TREE) || nranks < 2 ||
	    s->bytes == 0 || s->op == FT_OP_ALLTOALL || s->op == FT_OP_SENDRECV)
		return 0;
	rc = ft__sim_links(spec, nranks, 0, gpn, &l);
	if (rc <= 0)
		return rc;
	if (nch)
		ft_model_links_force_channels(&l, FT_MIN(nch, (uint32_t)FT_SPEC_MAX_CHANNELS));
	algbw = ft_model_kernel_algbw(&l, s->op, s->algo, s->proto, s->bytes);
	if (!(algbw > 0))
		return 0;
	for (p = 0; p < s->phases.len; p++) {
		const struct ft_sched_phase *ph = ft_sched_phase_at(s, p);
		double wmax = 0;

		if (ph->implicit_alltoall)
			return 0;
		for (f = 0; f < ph->nflows; f++)
			wmax = FT_MAX(wmax, (double)FT_VEC_AT(&s->flows, struct ft_sched_flow,
			                                      ph->first_flow + f).bytes);
		wire += wmax / eff;
	}
	*cap = wire * algbw / (double)s->bytes;
	return 0;
}

/* The minimal path's latency from vertex @a to @b (the fabric's routing, one hash: every
 * equal-cost path is as long), and the rate its slowest link carries; -1: no path. */
static double
path_lat(const struct ft_topo *t, uint32_t a, uint32_t b, double *rate_Bps)
{
	const struct ft_cluster_spec *spec = ft_topo_spec(t);
	struct ft_route_policy pol = { .routing = spec->fabric.routing };
	struct ft_path path;
	uint32_t j;

	if (pol.routing == FT_ROUTING_ADAPTIVE)
		pol.routing = FT_ROUTING_ECMP;
	if (ft_route_path(t, a, b, &pol, &path) < 0)
		return -1;
	*rate_Bps = 0;
	for (j = 0; j < path.nlinks; j++) {
		double c = ft_topo_link(t, path.links[j])->cap_Bps;

		*rate_Bps = j == 0 ? c : FT_MIN(*rate_Bps, c);
	}
	return path.lat_s;
}

/*
 * NCCL's window (ft_model_p2p_window_Bps()) on the sends between nodes of send/recv @s,
 * whose rank r is on GPU vertex @rank_gpu[r] (as the model's send/recv takes it): each
 * send's chunking is its connection's, on the cluster's p2p channels (ft__sim_p2p_comm(),
 * as both engines cut it), its round trip the minimal path there and back. The sends are
 * independent and move the same bytes, so the op ends
 * when the slowest does: capping every send at the tightest window changes no end where
 * the links bind first. Returns that window as wire bytes/s of the schedule's protocol
 * (its proto_eff), and only where it is below the send's path (its slowest link, times
 * the NICs a GPU spreads a network send over): 0 elsewhere, or for another op.
 */
int
ft__sim_p2p_cap(const struct ft_topo *t, const struct ft_schedule *s, const uint32_t *rank_gpu,
                double *out)
{
	const struct ft_cluster_spec *spec = ft_topo_spec(t);
	double eff = s->proto_eff > 0 ? s->proto_eff : 1.0, cap = 0;
	double nic_Bps = spec->node.nic_Bps > 0 ? spec->node.nic_Bps : spec->fabric.link_Bps;
	struct ft_model_p2p_comm comm;
	size_t i;
	int rc;

	*out = 0;
	if (s->op != FT_OP_SENDRECV || s->nranks < 2)
		return 0;
	rc = ft__sim_p2p_comm(t, s->nranks, ft__sim_spans_nodes(t, rank_gpu, s->nranks, 1),
	                      nic_Bps, &comm);
	if (rc < 0)
		return rc;
	for (i = 0; i < s->flows.len; i++) {
		const struct ft_sched_flow *fl = &FT_VEC_AT(&s->flows, struct ft_sched_flow, i);
		struct ft_model_p2p_chunking ch;
		double rate, w;

		if (fl->src >= s->nranks || fl->dst >= s->nranks || fl->bytes == 0)
			continue;
		ft_model_p2p_chunking_conn(&comm, fl->bytes, true, &ch);
		w = ft__sim_p2p_send_window(t, &ch, rank_gpu[fl->src], rank_gpu[fl->dst], &rate);
		if (w > 0 && w < rate * eff && (cap == 0 || w / eff < cap))
			cap = w / eff;
	}
	*out = cap;
	return 0;
}

double
ft__sim_p2p_send_window(const struct ft_topo *t, const struct ft_model_p2p_chunking *ch,
                        uint32_t a, uint32_t b, double *path_Bps)
{
	return ft__sim_p2p_send_window_via(t, ch, a, b, UINT32_MAX, path_Bps);
}

double
ft__sim_p2p_send_window_via(const struct ft_topo *t, const struct ft_model_p2p_chunking *ch,
                            uint32_t a, uint32_t b, uint32_t via, double *path_Bps)
{
	double there, back, rate = 0, rate_back, rate_hop;

	if (path_Bps)
		*path_Bps = 0;
	if (a == b || !ft__sim_over_network(t, a, b))
		return 0; /* (an NVLink send's round trip is far too short to bind) */
	/* PXN (ft__sim_pxn_proxy_in()): the data crosses NVLink to the proxy, then the proxy's
	 * rail; the receiver's credits come back to the proxy's NIC */
	if (via != UINT32_MAX) {
		double hop = path_lat(t, a, via, &rate_hop);

		there = path_lat(t, via, b, &rate);
		back = path_lat(t, b, via, &rate_back);
		if (hop < 0 || there < 0)
			return 0;
		there += hop;
		rate = FT_MIN(rate, rate_hop);
	} else {
		there = path_lat(t, a, b, &rate);
		back = path_lat(t, b, a, &rate_back);
	}
	if (there < 0 || back < 0)
		return 0;
	if (path_Bps)
		*path_Bps = rate * ft__sim_gpu_lanes(t, a);
	return ft_model_p2p_window_Bps(ch, there + back);
}

/*
 * An all-to-all's sends share their channels' slots with the sends NCCL puts in the same
 * proxy op (ft_model_p2p_share_slots_rank() at ch->nccl_version): one schedule group's sends
 * land in one batch, so on 8 ranks a node each keeps 2 chunks in flight. The group's ranks
 * are taken node-major (the rank ppn apart on the next node), @ppn those of the first rank's
 * node (the group less its sends over the network). Every rank's send to the peer d ranks
 * ahead (d / ppn nodes, d % ppn local ranks) keeps the slots of the same send of the rank of
 * its view: rank 0's where the views agree (ft_model_p2p_sched_views() 1: every release
 * before v2.28.7, and from it where a node is one schedule group), else the rank's own local
 * rank's, as its schedule (ncclP2pSchedule()) puts other rounds off the node. @s (may be
 * NULL) gets a buffer this function allocates, views x m bytes (row v, entry d), the caller
 * owns and ft_free()s (NULL: none to free), with the views and @m and ppn it is read by;
 * its prior contents are never read. The window binds where one send of a view's rank
 * (ft__sim_p2p_send_window()) is below its path: returns 1, else 0; FT_ENOMEM where memory
 * ran out (then nothing to free).
 */
int
ft__sim_a2a_window(const struct ft_topo *t, const uint32_t *rank_gpu, uint32_t m,
                   uint32_t stride, uint32_t nch_all, const struct ft_model_p2p_chunking *ch,
                   struct ft__sim_a2a_slots *s, bool pxn)
{
	double eff = ft_proto_efficiency(ch->proto);
	uint32_t k, v, nv, net = 0, local, nnodes, comm;
	uint8_t *row = NULL;
	bool binds = false;
	int rc = FT_ENOMEM;

	/* the job's GPUs on the first rank's node, its proxies' choice (ft__sim_pxn_proxy_in()):
	 * ranks are node-major, so the group's span of ranks holds all of that node's */
	comm = m ? ft__sim_comm_gpus(t, rank_gpu, (m - 1) * stride + 1,
	                             ft_topo_vertex(t, rank_gpu[0])->node) :
	           0;
	for (k = 1; k < m; k++)
		net += ft__sim_over_network(t, rank_gpu[0], rank_gpu[k * stride]);
	local = FT_MAX(m - net, 1u);
	nnodes = (m + local - 1) / local;
	/* the views, decided once here for every send (ft__sim_a2a_send_ch()) */
	nv = m && nnodes * local == m ?
	             ft_model_p2p_sched_views(nnodes, local, ch->nccl_version) :
	             1;
	if (s)
		*s = (struct ft__sim_a2a_slots){ NULL, m, local, nv };
	if (m == 0)
		return 0;
	if (s && !(s->row = ft_calloc((size_t)nv * m, sizeof(uint8_t))))
		goto out;
	/* the rank's row covers whole nodes (ft_model_p2p_share_slots_rank() writes
	 * @nnodes × @local), more than @m where the last node holds fewer ranks */
	row = ft_calloc((size_t)nnodes * local, sizeof(*row));
	if (!row)
		goto out;
	for (v = 0; v < nv; v++) {
		rc = ft_model_p2p_share_slots_rank(ch, nch_all, nnodes, local, v, row);
		if (rc < 0)
			goto out;
		if (s)
			memcpy(s->row + (size_t)v * m, row, m);
		for (k = 1; k < m && !binds && net; k++) {
			/* rank v's peer k / local nodes and k % local ranks ahead */
			uint32_t j = k / local * local + (v + k) % local;
			struct ft_model_p2p_chunking mine = *ch;
			double rate, w;

			mine.slots = row[k];
			w = ft__sim_p2p_send_window_via(
			        t, &mine, rank_gpu[v * stride], rank_gpu[j * stride],
			        pxn ? ft__sim_pxn_proxy_in(t, rank_gpu[v * stride],
			                                   rank_gpu[j * stride], comm) :
			              UINT32_MAX,
			        &rate);
			binds = w > 0 && w < rate * eff;
		}
	}
	rc = binds;
out:
	ft_free(row);
	if (rc < 0 && s) {
		ft_free(s->row);
		s->row = NULL;
	}
	return rc;
}

void
ft__sim_a2a_send_ch(const struct ft_model_p2p_chunking *ch, const struct ft__sim_a2a_slots *s,
                    uint32_t i, uint32_t j, struct ft_model_p2p_chunking *out)
{
	uint32_t n, round, v, m, ppn;

	*out = *ch;
	if (!s || !s->row || s->m == 0 || i >= s->m || j >= s->m)
		return;
	m = s->m;
	ppn = FT_MAX(s->ppn, 1u);
	n = (m + ppn - 1) / ppn;
	/* the peer nodeDelta nodes and localDelta ranks ahead, in the view of i's local rank
	 * where views differ (ft__sim_a2a_window() filled a row for each) */
	round = (j / ppn + n - i / ppn) % n * ppn + (j % ppn + ppn - i % ppn) % ppn;
	v = s->views > 1 ? i % ppn : 0;
	if (round < m && s->row[(size_t)v * m + round])
		out->slots = s->row[(size_t)v * m + round];
}

/* A schedule channels don't apply to: one node, no node structure, send/recv, all-to-all
 * rounds. */
bool
ft__sim_sched_is_flat(const struct ft_schedule *s, uint32_t gpn)
{
	size_t p;

	if (gpn < 2 || s->nranks <= gpn || s->nranks % gpn)
		return true;
	for (p = 0; p < s->phases.len; p++)
		if (ft_sched_phase_at(s, p)->implicit_alltoall)
			return true;
	return false;
}

/* log2 of @n, rounded down (NCCL's log2i). */
static uint32_t
log2_floor(uint32_t n)
{
	uint32_t lg = 0;

	while ((2u << lg) <= n && lg < 31)
		lg++;
	return lg;
}

double
ft__sim_hw_net_s(const struct ft_schedule *sc)
{
	return sc->net_lat_s;
}

/* What a step between nodes pays on top of the fabric's latency, from the model's links
 * @l of the cluster (modified): none on one node. */
static double
net_step_of(struct ft_model_links *l, enum ft_proto p)
{
	if (l->nnodes < 2)
		return 0;
	l->time_any_vendor = false;
	l->time_unflushed = true;
	return FT_MAX(0.0, ft_model_net_step_s(l, p) - l->fabric_lat_s);
}

/* The least a ring's step inside a node lasts when the ring crosses nodes, from the
 * model's links @l of the cluster (modified): the model's time, not its pick. */
static double
intra_floor_of(struct ft_model_links *l, enum ft_proto p)
{
	l->time_any_vendor = true;
	return ft_model_ring_intra_floor_s(l, p);
}

/* The link a step of @a inside a node takes, from the model's links @l of the cluster
 * (@rc: ft__sim_links()'s answer): PCI's where the model reads nodes without NVLink, as its
 * hop_lats_of() (NCCL src/graph/tuning.cc ncclTopoTuneModel(): hwLat by graphs[a]->
 * typeIntra; kb NA-MODEL); NVLink's where it places no such cluster, and for NVLS and
 * its tree, which are NVLink's. */
static enum ft_hw_link
intra_of(int rc, const struct ft_model_links *l, enum ft_algo a)
{
	if (a == FT_ALGO_NVLS || a == FT_ALGO_NVLS_TREE)
		return FT_HW_NVLINK;
	return rc > 0 && !l->nvlink ? FT_HW_PCI : FT_HW_NVLINK;
}

int
ft__sim_intra_link(const struct ft_cluster_spec *spec, enum ft_algo a, enum ft_hw_link *link)
{
	struct ft_model_links l;
	int rc = ft__sim_links(spec, 0, 0, 0, &l);

	*link = intra_of(rc, &l, a);
	return FT_MIN(rc, 0);
}

int
ft__sim_release_lats(const struct ft_cluster_spec *spec, struct ft_schedule *sc,
                     bool one_rank_a_node)
{
	uint32_t v = spec->nccl_version;
	struct ft_model_links l;
	int rc;

	sc->ring_inter_2n = ft_model_ring_inter_2n(v);
	sc->net_lat_s = ft_model_net_hop_latency(v, sc->op, sc->algo, sc->proto, one_rank_a_node);
	/* the net step and the ring's floor inside nodes, once a schedule: the model's links
	 * of the cluster (an allocation; its error is the run's), 0 where the model places no
	 * such cluster, as ft__sim_link_lats() reads them */
	rc = ft__sim_links(spec, 0, 0, 0, &l);
	if (rc < 0)
		return rc;
	sc->intra = intra_of(rc, &l, sc->algo);
	sc->ring_intra_floor_s = rc ? intra_floor_of(&l, sc->proto) : 0;
	sc->net_step_s = rc ? net_step_of(&l, sc->proto) : 0;
	sc->release_set = true;
	if (sc->algo == FT_ALGO_COLLNET) {
		/* CollNetDirect's four hops hold NCCL's latency for it, 2 (min(1, ppn - 1)
		 * intraLat + 0.4 us x (ppn - 1)) + interLat, at the release's rows as the
		 * model's cost_collnet_direct() (ft_model_collnet_direct_hops_s(): interLat
		 * Tree's row from 2.23 with one rank a node, no intraLat there); before, the
		 * kb's at every release, and 4 x 3.7 us with one rank a node. CollNetChain's
		 * 2 (ppn - 1) + 2 hops hold its own, 2 (ppn - 1) intraLat + interLat, as the
		 * model's cost_collnet_chain() (ft_model_collnet_chain_hops_s(), the NVLink or
		 * PCI row as the model's links read the node: 4.75 and 8.0 us at 2.18; NVLink's
		 * where the model places no such cluster); before, 2.8 us each, the network's
		 * 30 us left out. The other ops keep their step overheads (coll/schedule.c). */
		uint32_t ppn = FT_MAX(sc->ranks_per_node, 1u);

		if (sc->op == FT_OP_ALL_REDUCE && sc->collnet_chain)
			sc->step_lat_s = ft_model_collnet_chain_hops_s(v, ppn, one_rank_a_node,
			                                               sc->intra == FT_HW_NVLINK) /
			                 (2.0 * (ppn - 1) + 2);
		else if (sc->op == FT_OP_ALL_REDUCE)
			sc->step_lat_s = ft_model_collnet_direct_hops_s(v, ppn, one_rank_a_node) / 4;
		return 0;
	}
	/* a step inside a node at hwLat of the node's intra link, NVLink's or PCI's as the
	 * model's hop_lats_of() reads its links (NCCL src/graph/tuning.cc ncclTopoTuneModel():
	 * hwLat by graphs[a]->typeIntra; kb NA-MODEL); NVLink's where the model places no
	 * such cluster, as the CollNet branch above (intra_of(), the schedule's intra, which
	 * the engines' all-to-all and send/recv messages inside a node read too). */
	sc->step_lat_s = ft_model_hw_latency(v, sc->intra, sc->algo, sc->proto);
	sc->base_lat_s = ft_model_base_latency(v, sc->algo, sc->proto);
	/* PAT's phases share NCCL's latency for it but the base, floor(log2 n) x interLat /
	 * 3.5 + 2.8 us x n, at the release's interLat as the model's cost_pat() takes it
	 * (hwLat[NET] and what a step between nodes adds: the engines' network step, the
	 * fabric's own latency being in the flows' paths); coll/pat.c */
	if (sc->algo == FT_ALGO_PAT)
		sc->step_lat_s = ft_coll_pat_phase_s(sc->nranks, sc->net_lat_s + sc->net_step_s);
	return 0;
}

/* The hwLat[NET] the far steps of @sc's phase are floored at (sim_int.h). */
double
ft__sim_far_floor_hw_s(const struct ft_schedule *sc, uint32_t net_steps)
{
	if (net_steps == 0 || (sc->algo != FT_ALGO_RING && sc->algo != FT_ALGO_TREE))
		return 0;
	return ft__sim_hw_net_s(sc);
}

/* max(hwLat[NET], path) less the path (sim_int.h). */
double
ft__sim_net_floor_s(double hw_s, double path_s)
{
	return FT_MAX(0.0, hw_s - path_s);
}

/* What a step between nodes pays on top of the fabric's latency (sim_int.h). */
int
ft__sim_net_step_s(const struct ft_topo *t, enum ft_proto p, double *step_s)
{
	struct ft_model_links l;
	int rc = ft__sim_links(ft_topo_spec(t), 0, 0, 0, &l);

	*step_s = rc > 0 ? net_step_of(&l, p) : 0;
	return FT_MIN(rc, 0);
}

/* The net step and the ring's floor inside nodes of @sc's far steps (sim_int.h). */
int
ft__sim_link_lats(const struct ft_topo *t, const struct ft_schedule *sc,
                  struct ft__sim_link_lats *out)
{
	struct ft_model_links l;
	int rc;

	*out = (struct ft__sim_link_lats){ sc->net_step_s, sc->ring_intra_floor_s };
	if (sc->release_set)
		return 0;
	/* a schedule handed to an engine as it is: the same reading, once an op; 0 where the
	 * model places no such cluster */
	*out = (struct ft__sim_link_lats){ 0 };
	rc = ft__sim_links(ft_topo_spec(t), 0, 0, 0, &l);
	if (rc <= 0)
		return rc;
	out->ring_intra_floor_s = intra_floor_of(&l, sc->proto);
	out->net_step_s = net_step_of(&l, sc->proto);
	return 0;
}

/*
 * How a phase of @steps pipeline steps pays its hops' latencies, as NCCL's
 * model charges them (kb NA-MODEL latency formulas), where they differ from
 * @steps times the step overhead and the longest path:
 *
 * - A ring: the first chunk passes every hop of its way in turn, so the
 *   phase costs the sum of those hops' latencies, not @steps times the
 *   longest. A ring over n ranks with C boundaries between nodes (or NVLink
 *   domains) around it crosses one on (C - 1) of every n - 1 steps: 2(N - 1)
 *   of an all-reduce's 2(n - 1), N - 1 of an all-gather's (kb NA-ALGO-RING).
 *   Those far steps pay NCCL's network per-hop latency in place of the
 *   NVLink step overhead, and last max(that latency, the phase's longest
 *   path) (the network's: PCIe, NIC, cables and switches; the engines'
 *   floor, ft__sim_far_floor_hw_s()); the other steps NCCL's NVLink per-hop
 *   latency alone, which was measured end to end over the NVLink path (at
 *   least NCCL's network post overhead where the ring crosses nodes: the
 *   schedule's ring_intra_floor_s).
 * - NVLS inside one node or domain (2 steps, reduce and multicast): one
 *   NVLS latency, as NCCL's model has it, not one per step.
 * - An NVLS tree (2 NVLS steps and 2 x depth tree steps across nodes): the
 *   NVLS part once (NCCL's intraLat) and each tree step at the network's
 *   per-hop latency plus the longest path.
 * - A tree over N nodes (ranks node by node, so N boundaries around them):
 *   its 2 log2(N) steps between nodes at max(the network's per-hop latency,
 *   the longest path), the chain's steps inside nodes at NVLink's (the
 *   model's 2((ppn - 1) intra + log2(N) inter), kb NA-MODEL).
 *
 * - A ring or tree inside one node or one NVLink domain (NCCL fuses an MNNVL
 *   clique's topology into one and counts it as one node: src/graph/topo.cc,
 *   src/init.cc): NCCL's model charges each step NCCL's NVLink per-hop
 *   latency and nothing else (src/graph/tuning.cc: nNodes == 1, base +
 *   nsteps x intraLat), a figure measured end to end over NVLink; the path
 *   between two trays of a domain (GPU to NVSwitch to GPU) is in it, so no
 *   step pays the longest path on top. Before, each step did: a ring
 *   all-reduce over the 72 GPUs of a GB200 NVL72 domain paid 142 x 0.6 us
 *   more than the model (13% slow at 64 MiB), over one DGX H100 14 x 0.6.
 *
 * The latencies are the jobs' release's, read from @sc alone (ft__sim_hw_net_s(), the
 * 2 x nNodes flag and the step overheads ft__sim_release_lats() set), as the model's. Before
 * 2.23 NCCL's tuner counts 2 x nNodes of a ring all-reduce's steps as network
 * steps, not 2 x (nNodes - 1) (nInterSteps, src/graph/tuning.cc at v2.22.3-1
 * and v2.23.4-1): there a ring all-reduce's far steps are C of every n - 1.
 * Every step between nodes pays the network's latency, the 2 steps of a ring
 * over 2 ranks, all of a tree's with one GPU a node and the one step of a
 * ring or tree phase of one step too (before, at most @steps - 1 did, the
 * count of paths a phase pays on top of its flows' own, and a phase of one
 * step none), and a send/recv's one step between nodes (before, it paid NVLink's
 * step overhead, 3.4 us at Simple, where the model pays hwLat[NET] and what it adds to
 * it: on gb200-nvl64x2 at 8 KiB the engines' 12.92 us against the model's 23.87). With
 * one GPU a node the 2 x nNodes count before 2.23 is more
 * than the all-reduce's steps; NCCL keeps it (its intraLat term goes
 * negative), and so does @extra_s; @net_steps, the steps the packets walk,
 * stays at most @steps.
 *
 * Returns how many of the @steps pay the longest path (the far steps of a
 * ring or tree across nodes, at most @steps - 1; none for one inside a node
 * or domain; @steps - 1 for other algorithms and a single step), and in
 * @extra_s what the phase adds to @steps step overheads (negative where NCCL
 * charges less).
 */
uint32_t
ft__sim_far_steps(const struct ft_topo *t, const struct ft_schedule *sc,
                  const struct ft__sim_link_lats *ll, const uint32_t *rank_gpu, uint32_t steps,
                  double *extra_s, uint32_t *net_steps)
{
	uint32_t n = sc->nranks, r, cross = 0, far, every = steps ? steps - 1 : 0, unused;
	double net = ft__sim_hw_net_s(sc);
	bool one;

	if (!net_steps)
		net_steps = &unused;
	*extra_s = 0;
	*net_steps = 0;
	/* a collective ring's or tree's one step between nodes pays the network's latency too
	 * (below), and so does a send/recv's one step (a ring of one step, its sends NCCL's
	 * network sends, as the model's cost_sendrecv() prices them: model/tuner.c); not an
	 * all-to-all's, whose sends pay it each at their start, nor a background pattern's
	 * (direct), which is no NCCL op */
	one = (sc->algo == FT_ALGO_RING || sc->algo == FT_ALGO_TREE) &&
	      (sc->op == FT_OP_ALL_REDUCE || sc->op == FT_OP_ALL_GATHER ||
	       sc->op == FT_OP_REDUCE_SCATTER || sc->op == FT_OP_BROADCAST ||
	       sc->op == FT_OP_REDUCE || sc->op == FT_OP_SENDRECV);
	if (n < 2 || steps == 0 || (steps < 2 && sc->algo != FT_ALGO_COLLNET && !one))
		return every;
	if (sc->algo == FT_ALGO_NVLS && !ft__sim_nvls_across_nodes(sc)) {
		/* one pass through the switch, reduce and multicast pipelined: NCCL's
		 * model charges intraLat once (kb NA-MODEL; model/tuner.c cost_nvls) */
		*extra_s = -(double)(steps - 1) * sc->step_lat_s;
		return every;
	}
	for (r = 0; r < n; r++)
		if (ft__sim_over_network(t, rank_gpu[r], rank_gpu[(r + 1) % n]))
			cross++;
	/* A step between nodes also pays the network plugin's latency, the flush and the
	 * hypervisor's cost of a message, as the model's does (ft_model_net_step_s()). */
	if (cross >= 2)
		net += ll->net_step_s;
	if (sc->algo == FT_ALGO_NVLS) {
		/* NVLS with CollNet: the switch's pass once and one trip through the network,
		 * as NCCL's model has it, intraLat + interLat (model/tuner.c cost_nvls_net) */
		*extra_s = -(double)(steps - 1) * sc->step_lat_s + (cross >= 2 ? net : 0);
		*net_steps = cross >= 2 ? 1 : 0;
		return every;
	}
	if (sc->algo == FT_ALGO_NVLS_TREE && steps > 2) {
		far = steps - 2;
		*extra_s = far * net - (steps - 1) * sc->step_lat_s;
		*net_steps = cross >= 2 ? far : 0;
		return far;
	}
	if (sc->algo == FT_ALGO_COLLNET) {
		/* its steps' overheads hold NCCL's network per-hop latency already (coll/
		 * schedule.c); the model's CollNet crosses the network once (model/tuner.c) */
		if (cross >= 2) {
			*extra_s = net - ft__sim_hw_net_s(sc);
			*net_steps = 1;
		}
		return every;
	}
	if (sc->algo != FT_ALGO_RING && sc->algo != FT_ALGO_TREE)
		return every;
	if (cross < 2)
		return 0;
	if (steps == 1) {
		/* a phase of one step between nodes (an all-gather over 2 one-GPU nodes): that
		 * step pays the network's latency; the path its flows' own end holds */
		far = 1;
	} else if (sc->algo == FT_ALGO_TREE) {
		/* ranks node by node: cross nodes; 2 log2(nodes) of the steps between them, at
		 * most the phase's own */
		far = FT_MIN(2 * log2_floor(cross), steps);
	} else if (sc->op == FT_OP_ALL_REDUCE && sc->ring_inter_2n) {
		/* before 2.23 NCCL's tuner counts 2 x nNodes of the all-reduce's steps as
		 * network steps (nInterSteps), one per boundary each way more than cross */
		far = (uint32_t)((double)steps * cross / (n - 1) + 0.5);
	} else {
		far = (uint32_t)((double)steps * (cross - 1) / (n - 1) + 0.5);
	}
	/* every step between nodes pays the network's latency, each of a 2-rank ring's 2 or a
	 * tree's with one GPU a node too. The count is not capped at @steps: before 2.23 a
	 * ring all-reduce with one GPU a node counts 2 x nNodes network steps of its
	 * 2(nNodes - 1), and NCCL's tuner charges (nsteps - nInterSteps) intraLat, negative,
	 * + nInterSteps interLat (src/graph/tuning.cc at v2.22.3-1; the model's cost_ring()).
	 * The steps the packets walk (@net_steps) are at most @steps; the path, which a
	 * flow's own end holds once, on at most @steps - 1. */
	far = FT_MAX(far, 1u);
	*extra_s = far * (net - sc->step_lat_s);
	/* a ring all-reduce's, all-gather's or reduce-scatter's steps inside a node last
	 * max(NVLink's per-hop latency, NCCL's network post overhead) when the ring crosses
	 * nodes, as the model's ring_floor(): (steps - far) of them, negative where NCCL
	 * counts more network steps than the phase has, as its (nsteps - nInterSteps) */
	if (sc->algo == FT_ALGO_RING &&
	    (sc->op == FT_OP_ALL_REDUCE || sc->op == FT_OP_ALL_GATHER ||
	     sc->op == FT_OP_REDUCE_SCATTER)) {
		double lo = ll->ring_intra_floor_s;

		if (lo > sc->step_lat_s)
			*extra_s += ((double)steps - far) * (lo - sc->step_lat_s);
	}
	*net_steps = FT_MIN(far, steps);
	return FT_MIN(far, steps - 1);
}

/*
 * What NCCL's pipeline adds to @op on @t's cluster where the engine runs its ring or tree
 * flows whole, as the model prices it (ft_model_pipe_terms(), model/pipeline.c): the ramp
 * (the first chunk through every stage of a chain or tree before the last stage starts) in
 * @ramp_s and the proxy's floor (a channel's network messages one after another, each
 * 1 us of NCCL's post overhead plus nics.vm_overhead, kb NA-MODEL) in @proxy_s. Paid on
 * every transport the model prices them on (InfiniBand, RoCE, EFA, sockets,
 * GPUDirect-TCPX/O, NVLink alone): the model's terms for the op's ranks on the nodes they
 * are placed on (as ft__sim_pick_algo() asks the tuner), at the channels forced on it
 * (op->nchannels, NCCL_MIN/MAX_NCHANNELS, kb ENV-NCHANNELS) or NCCL's own count. NVLS
 * inside one node or NVLink domain too: its kernel hands each chunk from the warps that
 * scatter it into the heads' buffers to those that reduce and multicast it through the
 * switch to those that gather it out (model/pipeline.c, three stages), and with few loops
 * the first chunk's way through them is a large part of the time (one GB200 NVL72 rack at
 * 64 MiB: 3 loops of 24 channels x 32 heads x 32 KiB, a 96 us ramp in 265). On
 * GPUDirect-TCPX/O both are most of the time from 4 MiB to 1 GiB (2 gcp-a3-mega,
 * all-reduce 128 MiB: a 710 us ramp in the model's 1,614); on InfiniBand a tree's ramp is
 * a tenth to a third of it at 1 to 128 MiB (docs/internals/sim.md). Both 0 where they do
 * not apply: one rank, an algorithm the engine does not run as whole flows (an NVLS tree
 * or CollNet in NCCL's chunks, NVLS across nodes, halving-doubling, all-to-all,
 * send/recv), ranks the
 * model cannot lay out. In @stages (NULL: not wanted) the model's stages of the pipeline.
 * ft__sim_pipe_model() gives the model's whole pipeline of @op so (all 0 where the terms
 * are), for the packet engine's plain tree (pkt_tree.c nccl_fill()).
 */
int
ft__sim_pipe_terms(const struct ft_topo *t, const struct ft_sim_op *op, double *ramp_s,
                   double *proxy_s, uint32_t *stages, struct ft_error *err)
{
	struct ft_model_pipeline pl;
	int rc = ft__sim_pipe_model(t, op, &pl, err);

	*ramp_s = FT_MAX(pl.ramp_s, 0.0);
	*proxy_s = FT_MAX(pl.proxy_s, 0.0);
	if (stages)
		*stages = pl.stages;
	return rc;
}

bool
ft__sim_ring_chunks(const struct ft_schedule *sc, const struct ft_sched_phase *ph)
{
	if (ph->implicit_alltoall)
		return false;
	if (sc->op == FT_OP_ALL_GATHER || sc->op == FT_OP_REDUCE_SCATTER)
		return (sc->algo == FT_ALGO_RING && ph->steps > 1) || sc->algo == FT_ALGO_PAT;
	return sc->algo == FT_ALGO_RING && ph->steps > 1 && sc->op == FT_OP_ALL_REDUCE;
}

uint32_t
ft__sim_phase_pipes(const struct ft_schedule *sc, const struct ft_sched_phase *ph)
{
	uint32_t f, n = 0;

	for (f = 0; f < ph->nflows; f++) {
		struct ft_sched_flow fl;

		ft_sched_phase_flow(sc, ph, f, &fl);
		n = FT_MAX(n, (uint32_t)fl.pipe);
	}
	return n;
}

uint32_t
ft__sim_ring_reps(const struct ft_sim_op *op, const struct ft_sched_phase *ph, uint32_t launched)
{
	const struct ft_schedule *sc = op->sched;
	uint32_t copies = sc->nranks ? ph->nflows / sc->nranks : 0;

	if (op->nchannels || copies == 0 || launched <= copies ||
	    launched / copies > UINT16_MAX / FT_MAX(ph->nflows, 1u))
		return 1;
	return launched / copies;
}

bool
ft__sim_qp_hashed(const struct ft_topo *t, const struct ft_sim_cfg *cfg)
{
	int tech = ft__sim_fabric_tech(ft_topo_spec(t));

	return cfg->routing == FT_ROUTING_ECMP && tech != FT_TECH_EFA && tech != FT_TECH_TCP &&
	       !ft__route_by_dlid(t);
}

uint32_t
ft__sim_chan_qp0(const struct ft_topo *t, const struct ft_sim_cfg *cfg, uint32_t a, uint32_t b,
                 uint32_t chan, uint32_t nq)
{
	if (chan == 0 || !ft__sim_over_network(t, a, b) || !ft__sim_qp_hashed(t, cfg))
		return 0;
	return chan * nq;
}

/* Whether @fl of @sc is an edge of one of NCCL's rings: a ring all-reduce's, all-gather's
 * or reduce-scatter's (a chain's flows are its copies': pipe labels). */
static bool
ring_edge(const struct ft_schedule *sc, const struct ft_sched_flow *fl)
{
	return sc->algo == FT_ALGO_RING && fl->pipe == 0 &&
	       (sc->op == FT_OP_ALL_REDUCE || sc->op == FT_OP_ALL_GATHER ||
	        sc->op == FT_OP_REDUCE_SCATTER);
}

void
ft__sim_phase_chans_get(const struct ft_sim_op *op, const struct ft_sched_phase *ph,
                        const struct ft_model_pipeline *pl, struct ft__sim_phase_chans *pc)
{
	const struct ft_schedule *sc = op->sched;
	uint32_t f, edges = 0;

	*pc = (struct ft__sim_phase_chans){ .chain_reps = 1 };
	for (f = 0; f < ph->nflows; f++) {
		struct ft_sched_flow fl;

		ft_sched_phase_flow(sc, ph, f, &fl);
		pc->pipes = FT_MAX(pc->pipes, (uint32_t)fl.pipe);
		edges += !fl.relay;
	}
	pc->rings = sc->nranks ? FT_MAX(edges / sc->nranks, 1u) : 1;
	if (!pl || pl->nchannels == 0)
		return;
	pc->launched = pl->nchannels;
	pc->chain_reps = ft__sim_chain_reps(op, pc->pipes, pl);
	pc->keep = ft__sim_chain_keep(op, pc->pipes, pl);
}

struct ft__sim_chans
ft__sim_flow_chans(const struct ft_sim_op *op, const struct ft_sched_phase *ph,
                   const struct ft__sim_phase_chans *pc, const struct ft_sched_flow *fl,
                   uint32_t edge)
{
	const struct ft_schedule *sc = op->sched;
	struct ft__sim_chans ch = { 1, 0, 1, fl->bytes, false };
	uint32_t keep = pc ? pc->keep : 0, p = fl->pipe;

	if (ring_edge(sc, fl) && pc) {
		ch.chan0 = FT_MIN(sc->nranks ? edge / sc->nranks : 0, pc->rings - 1u);
		ch.stride = pc->rings;
	}
	if (pc && pc->launched && ft__sim_ring_chunks(sc, ph)) {
		ch.reps = ft__sim_ring_reps(op, ph, pc->launched);
	} else if (p > 0 && !fl->net && sc->algo != FT_ALGO_COLLNET) {
		ch.chain = ft__sim_chain(sc);
		ch.reps = ch.chain && pc ? FT_MAX(pc->chain_reps, 1u) : 1;
		ch.chan0 = p - 1u;
		ch.stride = pc ? FT_MAX(pc->pipes, 1u) : 1;
		/* (pkt_tree.c tree_conns(): copy p of the launched ones its 1 / keep of S) */
		if (ch.chain && keep)
			ch.bytes =
			        p > keep ? 0 : sc->bytes * p / keep - sc->bytes * (p - 1u) / keep;
	}
	return ch;
}

uint32_t
ft__sim_chain_keep(const struct ft_sim_op *op, uint32_t pipes, const struct ft_model_pipeline *pl)
{
	const struct ft_schedule *sc = op->sched;

	return ft__sim_chain(sc) && sc->proto == FT_PROTO_LL && pl->nchannels > 0 &&
	                       pl->nchannels < pipes ?
	               pl->nchannels :
	               0;
}

uint32_t
ft__sim_chain_reps(const struct ft_sim_op *op, uint32_t pipes, const struct ft_model_pipeline *pl)
{
	const struct ft_schedule *sc = op->sched;

	if (!ft__sim_chain(sc) || pipes == 0 || op->nchannels)
		return 1;
	/* (pkt_tree.c chain_fill_on() with the fill the model gives: nccl_fill()) */
	if (sc->proto == FT_PROTO_SIMPLE && sc->nranks > 1 && pl->fill_s > 0 && pl->round_s > 0 &&
	    pl->stages > 1)
		return 1;
	if (ft__sim_chain_keep(op, pipes, pl))
		return 1;
	if (pl->nchannels <= pipes || pl->nchannels / pipes > UINT16_MAX / pipes)
		return 1;
	return pl->nchannels / pipes;
}

int
ft__sim_pipe_model(const struct ft_topo *t, const struct ft_sim_op *op,
                   struct ft_model_pipeline *out, struct ft_error *err)
{
	const struct ft_schedule *sc = op->sched;
	struct ft_model_links l;
	uint32_t r, nodes = 1, run = 1, first = 0;
	bool uneven = false;
	int rc;

	memset(out, 0, sizeof(*out));
	if (sc->nranks < 2 ||
	    (sc->algo != FT_ALGO_RING && sc->algo != FT_ALGO_TREE && sc->algo != FT_ALGO_NVLS) ||
	    sc->op == FT_OP_ALLTOALL || sc->op == FT_OP_SENDRECV)
		return 0;
	/* the physical nodes, node by node, and their ranks: an NVLink domain's trays the
	 * model joins itself */
	for (r = 1; r < sc->nranks; r++) {
		if (ft_topo_vertex(t, op->rank_gpu[r])->node ==
		    ft_topo_vertex(t, op->rank_gpu[r - 1])->node) {
			run++;
			continue;
		}
		if (!first)
			first = run;
		else if (run != first)
			uneven = true;
		nodes++;
		run = 1;
	}
	if (first && run != first)
		uneven = true;
	/* nodes of different GPU counts (4 + 2 divides evenly, so the count alone cannot
	 * tell): the model's layout of the ranks over the cluster, as the tuner is asked
	 * there (no ranks per node) */
	if (uneven)
		nodes = 0;
	/* ranks the model cannot lay out: no terms */
	rc = ft__sim_links(ft_topo_spec(t), sc->nranks, nodes, nodes ? sc->nranks / nodes : 0, &l);
	if (rc < 0)
		return ft_error_set(err, rc, "sim: the model's links: %s", ft_strerror(rc));
	if (rc == 0)
		return 0;
	/* NVLS across nodes is not the one-node kernel the model's three stages price */
	if (sc->algo == FT_ALGO_NVLS && l.nnodes > 1)
		return 0;
	if (op->nchannels)
		ft_model_links_force_channels(&l, FT_MIN(op->nchannels,
		                                         (uint32_t)FT_SPEC_MAX_CHANNELS));
	/* (out of memory walking an NVLS tree's fill: the model's words, "model: NCCL's
	 * pipeline: out of memory") */
	return ft_model_pipe_terms(&l, sc->op, sc->algo, sc->proto, sc->bytes, out, err);
}

bool
ft__sim_tree_fill_on(const struct ft_schedule *sc, uint32_t nchannels)
{
	return sc->algo == FT_ALGO_TREE && sc->op == FT_OP_ALL_REDUCE &&
	       sc->proto == FT_PROTO_SIMPLE && nchannels == 0 && sc->nranks > 1;
}

bool
ft__sim_chain(const struct ft_schedule *sc)
{
	return sc->algo == FT_ALGO_RING && (sc->op == FT_OP_BROADCAST || sc->op == FT_OP_REDUCE);
}

uint32_t
ft__sim_pipe_channels(const struct ft_schedule *sc, uint32_t pipes)
{
	/* channelize_set() numbers copy t of channel c 2c + t + 1, the channel's one tree
	 * on forced channels too (its copy 1 or 2) */
	return FT_MAX(sc->algo == FT_ALGO_TREE ? (pipes + 1) / 2 : pipes, 1u);
}

/*
 * The period of @msgs loops of phase @ph at @op's per-connection cap, s: its largest flow's
 * wire bytes (at @eff) over the cap, over the loops; 0 without a cap or loops. The one
 * pace both engines take at NCCL's cap (run.c ft__sim_cap_fill_s(), pkt_tree.c
 * ft__pk_cap_period_ps()).
 */
double
ft__sim_cap_period_s(const struct ft_sim_op *op, const struct ft_sched_phase *ph, double eff,
                     uint64_t msgs)
{
	double wmax = 0;
	uint32_t f;

	if (!(op->conn_cap_Bps > 0) || !(eff > 0) || msgs == 0)
		return 0;
	for (f = 0; f < ph->nflows; f++) {
		struct ft_sched_flow fl;

		ft_sched_phase_flow(op->sched, ph, f, &fl);
		wmax = FT_MAX(wmax, (double)fl.bytes);
	}
	return wmax / eff / op->conn_cap_Bps / (double)msgs;
}

/*
 * The stage of every flow of a plain tree's or chain's phase @ph, counted on the schedule
 * as built: an edge (a flow and the relay legs after it) is stage 0 where it waits for no
 * other edge (a leaf's way up, a chain's first hop), else one past the deepest edge it
 * waits for: going up, the edges of its copy (pipe) into its source (its children's);
 * going down, its parent's way down into its source, or at the root (none) its children's
 * way up, as NCCL's runTreeSplit() takes a chunk once it has come from the children or
 * the parent (NVIDIA/nccl v2.27.7-1 src/device/all_reduce.h). NCCL counts 2 (ppn - 1 +
 * log2 nodes) stages for its tuning ("not an exact value", src/graph/connect.cc) and the
 * model does too; the schedule has one in-node hop more a level where a node's first child
 * joins at its local rank 1 (connect.cc child0Index): this is the count both engines pace
 * a tree at its cap with (engine_flow.c whole_pipe(), pkt_tree.c cap_pace()). Flows of no
 * bytes are no edge (stage 0). @depth [ph->nflows] (NULL: not wanted), the stages in
 * @stages (the deepest + 1; 0 with no edge or a wait loop, none in a schedule's tree).
 */
int
ft__sim_tree_depths(const struct ft_schedule *sc, const struct ft_sched_phase *ph,
                    uint32_t *depth, uint32_t *stages)
{
	uint32_t n = ph->nflows, nr = sc->nranks, f, e, k, ne = 0, pass, dmax = 0;
	uint32_t *head = ft_calloc((size_t)n + 1, sizeof(uint32_t));
	uint32_t *dst = ft_calloc((size_t)n + 1, sizeof(uint32_t));
	uint32_t *d = ft_calloc((size_t)n + 1, sizeof(uint32_t));
	uint32_t *off = ft_calloc((size_t)nr + 2, sizeof(uint32_t));
	uint32_t *into = ft_calloc((size_t)n + 1, sizeof(uint32_t));
	struct ft_sched_flow fl, g;
	bool moved = true;
	int rc = 0;

	*stages = 0;
	if (!head || !dst || !d || !off || !into) {
		rc = FT_ENOMEM;
		goto out;
	}
	/* the edges: their first flows (head) and last legs' destinations */
	for (f = 0; f < n; f++) {
		ft_sched_phase_flow(sc, ph, f, &fl);
		if (fl.src >= nr || fl.dst >= nr || fl.bytes == 0)
			continue;
		if (fl.relay && ne > 0)
			dst[ne - 1] = fl.dst;
		else {
			head[ne] = f;
			dst[ne++] = fl.dst;
		}
	}
	for (e = 0; e < ne; e++)
		off[dst[e] + 2]++;
	for (k = 2; k < nr + 2; k++)
		off[k] += off[k - 1];
	for (e = 0; e < ne; e++)
		into[off[dst[e] + 1]++] = e;
	/* into[off[r] .. off[r + 1] - 1]: the edges into rank r; relaxed to the longest waits,
	 * at most one pass an edge deeper */
	for (pass = 0; moved && pass <= ne; pass++) {
		moved = false;
		for (e = 0; e < ne; e++) {
			uint32_t want = FT_SCHED_UP, best = 0, lo, hi;

			ft_sched_phase_flow(sc, ph, head[e], &fl);
			lo = off[fl.src];
			hi = off[fl.src + 1];
			for (k = lo; k < hi && fl.dir == FT_SCHED_DOWN; k++) {
				ft_sched_phase_flow(sc, ph, head[into[k]], &g);
				if (g.pipe == fl.pipe && g.dir == FT_SCHED_DOWN)
					want = FT_SCHED_DOWN;
			}
			for (k = lo; k < hi; k++) {
				ft_sched_phase_flow(sc, ph, head[into[k]], &g);
				if (g.pipe == fl.pipe && g.dir == want)
					best = FT_MAX(best, d[into[k]] + 1);
			}
			if (best != d[e]) {
				d[e] = best;
				moved = true;
			}
		}
	}
	if (moved) /* a wait loop */
		memset(d, 0, (size_t)(n + 1) * sizeof(uint32_t));
	for (e = 0; e < ne; e++)
		dmax = FT_MAX(dmax, d[e]);
	*stages = ne && !moved ? dmax + 1 : 0;
	if (depth) {
		memset(depth, 0, (size_t)n * sizeof(uint32_t));
		for (e = 0; e < ne; e++)
			for (f = head[e]; f < (e + 1 < ne ? head[e + 1] : n); f++)
				depth[f] = d[e];
	}
out:
	ft_free(head);
	ft_free(dst);
	ft_free(d);
	ft_free(off);
	ft_free(into);
	return rc;
}

/* Flows @a -> @b (up) and back (down) of tree copy @pipe (0: none). */
static int
push_pair(struct ft_schedule *s, uint32_t a, uint32_t b, uint64_t bytes, uint32_t pipe)
{
	struct ft_sched_phase *ph = &FT_VEC_AT(&s->phases, struct ft_sched_phase, 0);
	struct ft_sched_flow up = {
		.src = a, .dst = b, .bytes = bytes, .pipe = (uint16_t)pipe, .dir = FT_SCHED_UP
	};
	struct ft_sched_flow down = {
		.src = b, .dst = a, .bytes = bytes, .pipe = (uint16_t)pipe, .dir = FT_SCHED_DOWN
	};

	if (push_flow(s, ph, &up) < 0 || push_flow(s, ph, &down) < 0)
		return FT_ENOMEM;
	ph->npairs = ph->nflows;
	return 0;
}

/* Replace @s's phases and flows by one empty phase of @steps steps named @what. */
static int
one_phase(struct ft_schedule *s, const char *what, uint32_t steps)
{
	struct ft_sched_phase ph = { .steps = steps };

	ft_strlcpy(ph.what, what, sizeof(ph.what));
	ft_vec_release(&s->phases);
	ft_vec_release(&s->flows);
	ft_vec_init(&s->phases, sizeof(struct ft_sched_phase));
	ft_vec_init(&s->flows, sizeof(struct ft_sched_flow));
	return ft_vec_push(&s->phases, &ph) < 0 ? FT_ENOMEM : 0;
}

/*
 * NCCL's double binary tree over @nnodes nodes, local rank @at of each node
 * standing for it (node k holds ranks first[k] on), each tree carrying half
 * of @bytes up and down; @balanced: NCCL's balanced tree pattern, where a
 * node's first local rank talks to its parent and second child, its second
 * local rank to its first child.
 */
static int
trees_over_nodes(struct ft_schedule *s, uint32_t nnodes, const uint32_t *first, uint32_t at,
                 bool balanced, uint64_t bytes)
{
	uint64_t half[2] = { bytes / 2, bytes - bytes / 2 };
	uint32_t t, k;
	int rc = 0;

	for (t = 0; t < 2 && rc == 0; t++)
		for (k = 0; k < nnodes && rc == 0; k++) {
			bool second;
			int up = ft__dtree_parent(nnodes, t, k, &second);
			uint32_t u = (uint32_t)up, head;

			if (up < 0)
				continue;
			head = first[u] + at;
			if (balanced && !second && first[u + 1] - first[u] > 1)
				head++;
			rc = push_pair(s, first[k] + at, head, half[t], 2 * at + t + 1);
		}
	return rc;
}

/* The wire bytes NCCL's tree moves for @bytes, at its tree efficiency (1/0.92). */
uint64_t
ft__sim_tree_wire(uint64_t bytes)
{
	return (uint64_t)((double)bytes / ft_model_tree_efficiency() + 0.5);
}

/*
 * NCCL's tree all-reduce over nodes of any sizes (src/graph/connect.cc,
 * ncclTopoPreset and connectTrees; kb NA-ALGO-TREE), one channel of it, over
 * the job's ranks in order, node k holding ranks first[k] to first[k + 1] - 1:
 * inside each node a chain over its own local ranks (the tree graph's intra
 * order: channelize places it on the channel's rails); across nodes NCCL's
 * double binary tree over node indexes, each tree carrying half the data up
 * and down at once (NCCL runs tree 1 on a copy of each channel), at NCCL's
 * tree efficiency (1/0.92 wire bytes per byte, as NVLS flows run at NVLS
 * efficiency). The tree is
 * NCCL's balanced pattern: a node's first local rank talks to its parent and
 * its second child, its second local rank (the first on a one-GPU node) to its
 * first child. @s holds the flat tree's schedule (ft_coll_schedule, one rank per
 * node) and gets its flows replaced; steps are NCCL's tree depth, twice
 * (connectTrees: nRanks / nNodes - 1 + log2(nNodes)).
 */
int
ft__sim_tree_uneven(struct ft_schedule *s, uint32_t nnodes, const uint32_t *first)
{
	uint64_t wire = ft__sim_tree_wire(s->bytes);
	uint32_t t, k, i;
	int rc = one_phase(s, "tree chain per node, over nodes",
	                   2 * (s->nranks / FT_MAX(nnodes, 1u) - 1 + log2_floor(nnodes)));

	for (t = 0; t < 2 && rc == 0; t++)
		for (k = 0; k < nnodes && rc == 0; k++)
			for (i = first[k] + 1; i < first[k + 1] && rc == 0; i++)
				rc = push_pair(s, i, i - 1, t ? wire - wire / 2 : wire / 2, t + 1);
	return rc == 0 ? trees_over_nodes(s, nnodes, first, 0, true, wire) : rc;
}

/* Label the flows of @s from @from on as serving NVLS head @h (struct ft_sched_flow head). */
static void
label_head(struct ft_schedule *s, size_t from, uint32_t h)
{
	for (; from < s->flows.len; from++)
		FT_VEC_AT(&s->flows, struct ft_sched_flow, from).head = (uint16_t)(h + 1);
}

/* Schedule @s runs @algo (NVLS or its tree) in Simple, at NVLink's step latency. */
static void
nvls_simple(struct ft_schedule *s, enum ft_algo algo)
{
	s->algo = algo;
	s->proto = FT_PROTO_SIMPLE;
	s->proto_eff = ft_proto_efficiency(FT_PROTO_SIMPLE);
	s->step_lat_s = ft_coll_hw_latency(FT_HW_NVLINK, algo, FT_PROTO_SIMPLE);
	s->base_lat_s = ft_coll_base_latency(algo, FT_PROTO_SIMPLE);
	s->net_lat_s = ft_coll_hw_latency(FT_HW_NET, algo, FT_PROTO_SIMPLE);
}

/*
 * NCCL's NVLS tree all-reduce over nodes of any sizes (src/graph/connect.cc:
 * heads in ncclTopoPreset and connectNvls; kb NA-ALGO-NVLSTREE), one channel,
 * node k holding ranks first[k] to first[k + 1] - 1: every node has @nheads
 * heads, NCCL's least count over the nodes (one per NIC that has a GPU of its
 * own, src/graph/search.cc), its first local ranks. Inside each node the
 * NVSwitch reduces every rank's S (each sends S and gets S back) into a shard
 * of S / nheads per head (a head sends and gets S / nheads more); head h of
 * every node joins the double binary tree over the nodes with its shard. The
 * three pipeline in one phase of 2 NVLS steps and 2 log2(nNodes) tree steps.
 * A head's flows carry its label (struct ft_sched_flow head), its trees the
 * copies 2h + 1 and 2h + 2, as coll/'s NVLS tree numbers them; its in-node
 * flows the first of them.
 * @s holds a schedule's metadata (ft_coll_schedule) and gets the NVLS tree's.
 */
int
ft__sim_nvls_tree_uneven(struct ft_schedule *s, uint32_t nnodes, const uint32_t *first,
                         uint32_t nheads)
{
	uint64_t shard = s->bytes / FT_MAX(nheads, 1u);
	uint32_t k, r, h;
	int rc = one_phase(s, "nvls in node + tree per head", 2 + 2 * log2_floor(nnodes));

	nvls_simple(s, FT_ALGO_NVLS_TREE);
	for (k = 0; k < nnodes && rc == 0; k++)
		for (r = first[k]; r < first[k + 1] && rc == 0; r++) {
			h = r - first[k];
			rc = push_pair(s, r, FT_SCHED_INNET, s->bytes + (h < nheads ? shard : 0),
			               h < nheads ? 2 * h + 1 : 0);
			if (rc == 0 && h < nheads)
				label_head(s, s->flows.len - 2, h);
		}
	for (h = 0; h < nheads && rc == 0; h++) {
		size_t from = s->flows.len;

		rc = trees_over_nodes(s, nnodes, first, h, false, shard);
		if (rc == 0)
			label_head(s, from, h);
	}
	return rc;
}

/*
 * NCCL's NVLS all-reduce across nodes, NVLS with CollNet (kb NA-ALGO-NVLS,
 * NA-ALGO-COLLNET). NVIDIA/nccl src/graph/connect.cc connectNvls (v2.27.7-1 and
 * v2.30.7-1): with CollNet enabled every NVLS head of a node gets a network peer
 * (channel->nvls.out = nRanks, the CollNet connection), the others none; the heads
 * are the node's GPUs that own a NIC, one per NIC, the same on every channel
 * (ft__sim_nvls_node_heads()). src/device/all_reduce.h, RunWorkColl<AllReduce,
 * NVLS, Simple>, the branch for more than one node: four groups of warps work on
 * the same loop of nChannels x nHeads chunks at once. Every GPU scatters its
 * whole buffer into the heads' NVLS buffers (S into the NVSwitch); head h loads
 * its share reduced over the node's GPUs through the switch (multimem load-reduce:
 * S / nHeads out of it) and sends it to the network (the switches' SHARP sums it
 * over the nodes); a fourth group receives the result and stores it through the
 * switch's multicast (S / nHeads into it); every GPU gathers the whole result (S
 * out of it). So a GPU's NVLink carries S each way, a head's S / nHeads more each
 * way, and a head's NIC S / nHeads up and as much down; nothing else leaves the
 * node.
 *
 * Here, in one phase of four steps (into the switch, up to the network, down from
 * it, out of the switch) over @nnodes nodes of @ppn ranks (node k: ranks k ppn
 * on), heads @heads[0..nheads-1] (local ranks): a rank's pair of flows with the
 * NVSwitch (FT_SCHED_INNET) of S plus its head's share, labelled with its head
 * (struct ft_sched_flow head) and pipe 0; a head's pair with the fabric's
 * switches (FT_SCHED_INNET, net), its share, pipe and head h + 1, up then down.
 * @s holds ft_coll_schedule's metadata and gets the flows; it stays
 * FT_ALGO_NVLS, which with net flows the engines read as across nodes.
 */
int
ft__sim_nvls_collnet(struct ft_schedule *s, uint32_t nnodes, uint32_t ppn,
                     const uint32_t *heads, uint32_t nheads)
{
	uint64_t shard = s->bytes / FT_MAX(nheads, 1u);
	uint32_t k, g, h, head_of[FT_SPEC_MAX_GPUS];
	int rc;

	if (nnodes < 2 || ppn < 2 || ppn > FT_SPEC_MAX_GPUS || nheads < 1 ||
	    nheads > FT__SIM_NVLS_MAX_HEADS || nheads > ppn)
		return FT_EINVAL;
	for (g = 0; g < ppn; g++)
		head_of[g] = UINT32_MAX;
	for (h = 0; h < nheads; h++) {
		if (heads[h] >= ppn || head_of[heads[h]] != UINT32_MAX)
			return FT_EINVAL;
		head_of[heads[h]] = h;
	}
	rc = one_phase(s, "nvls in node + sharp per head", 4);
	nvls_simple(s, FT_ALGO_NVLS);
	for (k = 0; k < nnodes && rc == 0; k++)
		for (g = 0; g < ppn && rc == 0; g++) {
			h = head_of[g];
			rc = push_pair(s, k * ppn + g, FT_SCHED_INNET,
			               s->bytes + (h != UINT32_MAX ? shard : 0), 0);
			if (rc == 0 && h != UINT32_MAX)
				label_head(s, s->flows.len - 2, h);
		}
	for (k = 0; k < nnodes && rc == 0; k++)
		for (h = 0; h < nheads && rc == 0; h++) {
			rc = push_pair(s, k * ppn + heads[h], FT_SCHED_INNET, shard, h + 1);
			if (rc == 0) {
				size_t n = s->flows.len;

				label_head(s, n - 2, h);
				FT_VEC_AT(&s->flows, struct ft_sched_flow, n - 1).net = 1;
				FT_VEC_AT(&s->flows, struct ft_sched_flow, n - 2).net = 1;
			}
		}
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * sim/engine_flow.c - the flow-level engine: collective schedules run as
 * dependent flows over the topology, with max-min fair sharing.
 *
 * Each op becomes: a start barrier (waits for the op it follows, then its
 * compute delay), then per phase its flows (every connection split into
 * qps_per_conn flows, as NCCL_IB_QPS_PER_CONNECTION splits traffic, times
 * the NICs a GPU drives between nodes, nics.per_gpu, one lane each) and an
 * end-of-phase barrier. The phase barrier adds the schedule's per-step costs:
 * steps x step overhead + (steps - 1) x the longest path latency of the
 * phase, so a pipelined phase costs its slowest flow plus one path latency
 * per step, as coll.h defines it (a ring or NVLS tree across nodes pays the
 * longest path only on the steps that cross them: ft__sim_far_steps; a ring's
 * and tree's far steps take max(hwLat[NET], that path), the barrier's floor).
 * Flows are routed when they start: ECMP
 * hashes (src, dst, qp), D-mod-K follows the destination, and adaptive
 * routing takes the least-loaded equal-cost link at every hop (load = active
 * flows / capacity), optionally again at every flowlet boundary. Under
 * D-mod-K a route memo keeps each GPU's way up to its leaf and each (leaf,
 * destination) rest, so an all-to-all routes L x N pieces, not N^2 paths;
 * under ECMP it keeps the ways up and the ways in, and walks only the
 * fabric's switches (ecmp_walk(), flow_route.c).
 */
#include "engine_flow_int.h"

#include <fabtune/model.h>
#include <fabtune/rng.h>
#include <fabtune/sim.h>
#include <fabtune/units.h>

static fs_spawn_fn spawn_cb;

static int
flow_create(const struct ft_topo *topo, const struct ft_sim_cfg *cfg, struct ft_engine **out,
            struct ft_error *err)
{
	struct flow_engine *fe;
	uint32_t n = ft_topo_nlinks(topo), l;

	*out = NULL;
	fe = ft_calloc(1, sizeof(*fe));
	if (!fe || ft__fs_init(&fe->core, n) < 0) {
		ft_free(fe);
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory for %u links", n);
	}
	fe->base.ops = &ft_flow_engine;
	fe->topo = topo;
	fe->cfg = *cfg;
	if (fe->cfg.qps_per_conn == 0)
		fe->cfg.qps_per_conn = 1;
	fe->chunking = cfg->packet ? cfg->packet->chunking : FT_PKT_CHUNK_AUTO;
	fe->cfg.packet = NULL; /* borrowed for this call only */
	for (l = 0; l < n; l++) {
		const struct ft_link *lk = ft_topo_link(topo, l);

		fe->core.cap_Bps[l] = lk->cap_Bps * ft_topo_link_scale(topo, l);
		fe->core.lat_s[l] = lk->lat_s;
	}
	if (ft__sim_memo_init(&fe->memo, topo, &fe->cfg) < 0) {
		ft__sim_memo_release(&fe->memo);
		ft__fs_release(&fe->core);
		ft_free(fe);
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory for routes");
	}
	fe->core.route = ft__sim_flow_route;
	fe->core.need_counts = fe->cfg.routing == FT_ROUTING_ADAPTIVE; /* the chooser's load */
	if (cfg->have_rate_rtol)
		fe->core.defer_rtol = fe->core.room_rtol = cfg->rate_rtol;
	{
		/* how rates are recomputed, for comparisons (bench/sim-alltoall-ecmp.sh):
		 * "full" every rate every time, "level" every flow above the level,
		 * "local" the components a change reaches; "grow" (the default) the
		 * flows around a change, grown until the max-min conditions hold */
		const char *how = getenv("FABTUNE_SIM_RATES");

		fe->core.full_rates = how && strcmp(how, "full") == 0;
		fe->core.level_only = how && strcmp(how, "level") == 0;
		fe->core.comp_only = how && strcmp(how, "local") == 0;
	}
	fe->core.route_ud = fe;
	fe->core.spawn = spawn_cb;
	fe->core.spawn_ud = fe;
	ft_vec_init(&fe->ops, sizeof(struct flow_op));
	ft_vec_init(&fe->a2a, sizeof(struct a2a_phase));
	ft_vec_init(&fe->a2a_rounds, sizeof(struct a2a_round));
	ft_vec_init(&fe->pxn_via, sizeof(uint32_t));
	*out = &fe->base;
	return 0;
}

/* NICs a connection between two nodes spreads over (ft__sim_conn_lanes(), the packet
 * engine's rule too): QP q uses lane q, so each NIC of a p5-like GPU carries
 * qps_per_conn QPs, as NCCL gives every NIC of a GPU its own channels. */
static uint32_t
conn_lanes(const struct flow_engine *fe, uint32_t src, uint32_t dst)
{
	return ft__sim_conn_lanes(fe->topo, src, dst);
}

/* How many flowlets a QP of @per bytes is cut into: several under adaptive routing with a
 * flowlet size (at most 1024), else one. */
static uint32_t
flowlets(const struct flow_engine *fe, double per)
{
	if (fe->cfg.routing == FT_ROUTING_ADAPTIVE && fe->cfg.flowlet_bytes > 0 &&
	    per > (double)fe->cfg.flowlet_bytes)
		return (uint32_t)FT_MIN(ceil(per / (double)fe->cfg.flowlet_bytes), 1024.0);
	return 1;
}

/* Flow @id leaves its node by NIC vertex @nic (ft__sim_flow_nic()): routed when it starts
 * (ft__sim_flow_route()), its GPU's path to the NIC and the NIC's route on. */
static int
leave_by(struct flow_engine *fe, uint32_t id, uint32_t nic)
{
	uint32_t none = UINT32_MAX;

	while (fe->pxn_via.len <= id)
		if (ft_vec_push(&fe->pxn_via, &none) < 0)
			return FT_ENOMEM;
	FT_VEC_AT(&fe->pxn_via, uint32_t, id) = nic;
	return 0;
}

/* A connection of @wire bytes from @src to @dst, split into QPs (and flowlets), each QP at
 * most @cap_Bps / QPs (0: no cap); out of its node by NIC vertex @nic (UINT32_MAX: its
 * GPU's own); its QPs numbered from @qp0 (a launched channel's own: chan_parts()). */
static int
add_conn_qps(struct flow_engine *fe, double wire, uint32_t src, uint32_t dst, uint32_t nic,
             uint32_t prev, uint32_t bar, uint32_t tag, double cap_Bps, uint32_t qp0)
{
	struct fs_sim *s = &fe->core;
	uint32_t q, nq = fe->cfg.qps_per_conn * conn_lanes(fe, src, dst);
	double per = wire / nq;
	int rc;

	for (q = 0; q < nq; q++) {
		uint32_t nchunks = flowlets(fe, per), c, last = prev;

		for (c = 0; c < nchunks; c++) {
			int64_t id = ft__fs_add_flow(s, per / nchunks, src, dst,
			                             (qp0 + q) * 1024 + c, NULL, 0, tag);

			if (id < 0 || ft__fs_add_dep(s, last, (uint32_t)id) < 0 ||
			    (nic != UINT32_MAX && leave_by(fe, (uint32_t)id, nic) < 0))
				return FT_ENOMEM;
			if (cap_Bps > 0) {
				rc = ft__fs_set_cap(s, (uint32_t)id, cap_Bps / nq);
				if (rc < 0)
					return rc;
			}
			last = (uint32_t)id;
		}
		if (ft__fs_add_dep(s, last, bar) < 0)
			return FT_ENOMEM;
	}
	return 0;
}

/*
 * The parts a connection from @src to @dst (out by NIC vertex @nic) runs as: @ch reps, its
 * launched channels' copies, rep r NCCL's channel chan0 + r x stride (a ring's:
 * ft__sim_ring_reps(), chan0 its graph ring; a chain copy's: ft__sim_chain_reps(), chan0 its
 * graph channel: ft__sim_flow_chans()), where a copy's QPs take a path other than the first
 * copy's; else 1. NCCL's launched channel c connects with QPs
 * of its own (NVIDIA/nccl v2.27.7-1 src/transport/net_ib.cc ncclIbConnect()), numbered c x
 * nq to c x nq + nq - 1 here as in the packet engine (ft__sim_chan_qp0(); pkt_nccl.c
 * ring_conns(), pkt_tree.c tree_conns()), so both engines hash them alike
 * (ft_route_flow_hash() of the same endpoints and QP). Where every copy's QP q lands on QP
 * q's path of the first copy (one path between the NICs, hashes that fall alike, NVLink,
 * a routing that reads no QP) the parts would load the same links with the same bytes: one
 * flow keeps the engine's flows (and its time) as they were. A route that fails here is
 * left to fail when the flow starts, with its words: one flow.
 */
static uint32_t
chan_parts(struct flow_engine *fe, uint32_t src, uint32_t dst, uint32_t nic,
           const struct ft__sim_chans *ch)
{
	uint32_t chan0 = ch->chan0, reps = ch->reps;
	uint32_t nq = fe->cfg.qps_per_conn * conn_lanes(fe, src, dst), q, r, q0;
	uint32_t a[FT_PATH_MAX], b[FT_PATH_MAX];
	struct ft_error err = { 0 };
	int na, nb;

	if (reps <= 1 || !ft__sim_over_network(fe->topo, src, dst))
		return 1;
	q0 = ft__sim_chan_qp0(fe->topo, &fe->cfg, src, dst, chan0, nq);
	for (q = 0; q < nq; q++) {
		na = ft__sim_flow_links(fe, src, dst, nic, (q0 + q) * 1024, a, FT_PATH_MAX, &err);
		if (na < 0)
			return 1;
		for (r = 1; r < reps; r++) {
			uint32_t qr = ft__sim_chan_qp0(fe->topo, &fe->cfg, src, dst,
			                               chan0 + r * ch->stride, nq);

			nb = ft__sim_flow_links(fe, src, dst, nic, (qr + q) * 1024, b, FT_PATH_MAX,
			                        &err);
			if (nb < 0)
				return 1;
			if (nb != na || memcmp(a, b, (size_t)na * sizeof(*a)) != 0)
				return reps;
		}
	}
	return 1;
}

/*
 * A flow of the schedule as a connection, at its start offset (a barrier of that wait
 * after @prev; struct ft_sched_flow.start_ns). When op @rec's dependents count from its
 * nominal end or its senders' view of its end, the flow's end reaches rec->next as in
 * pkt_setup.c's add_timed_conn().
 */
static int
add_timed_conn(struct flow_engine *fe, const struct ft_sched_flow *fl, double eff,
               const struct ft__sim_chans *ch, uint32_t src, uint32_t dst, uint32_t prev,
               uint32_t bar, const struct flow_op *rec, uint32_t shift_ns, double cap_Bps)
{
	struct fs_sim *s = &fe->core;
	const struct fs_task *b = ft__fs_task(s, bar); /* copied: adding tasks moves them */
	double delay = b->delay_s, lat_mult = b->lat_mult, floor_s = b->floor_s, floor_n = b->floor_n;
	uint32_t tag = b->tag, first, t, nic = ft__sim_flow_nic(fe->topo, fl, src, dst), r, reps;
	uint32_t nq = fe->cfg.qps_per_conn * conn_lanes(fe, src, dst);
	int64_t id;
	int rc = 0;

	if (fl->start_ns > 0) {
		if ((id = ft__fs_add_barrier(s, fl->start_ns * 1e-9, 0, tag)) < 0 ||
		    ft__fs_add_dep(s, prev, (uint32_t)id) < 0)
			return FT_ENOMEM;
		prev = (uint32_t)id;
	}
	first = s->ntasks;
	/* its launched channels' parts, each at its share of a channel's cap, on its QPs */
	/* an LL chain's kept copy carries its share of S at the pace the cap gives the
	 * op's (its bytes over the flow's: ft__sim_chain_keep()) */
	if (ch->bytes != fl->bytes && fl->bytes > 0)
		cap_Bps *= (double)ch->bytes / (double)fl->bytes;
	reps = chan_parts(fe, src, dst, nic, ch);
	for (r = 0; r < reps && rc == 0; r++) {
		uint64_t part = ch->chain ? ft__sim_chain_part(ch->bytes, reps, r) :
		                            ft__sim_share(ch->bytes, reps, r);

		if (part > 0)
			rc = add_conn_qps(fe, (double)part / eff, src, dst, nic, prev, bar, tag,
			                  cap_Bps / reps,
			                  ft__sim_chan_qp0(fe->topo, &fe->cfg, src, dst,
			                                   ch->chan0 + r * ch->stride, nq));
	}
	if (rc < 0 || rec->next == FS_NONE)
		return rc;
	id = ft__fs_add_barrier(s, delay + (shift_ns ? shift_ns - fl->start_ns : 0) * 1e-9,
	                        lat_mult + rec->acked, tag);
	if (id < 0)
		return FT_ENOMEM;
	/* a bad floor is FT_EINVAL, not memory: passed through */
	rc = ft__fs_barrier_floor(s, (uint32_t)id, floor_s, floor_n);
	if (rc < 0)
		return rc;
	if (ft__fs_add_dep(s, (uint32_t)id, rec->next) < 0)
		return FT_ENOMEM;
	for (t = first; t < (uint32_t)id; t++)
		if (ft__fs_add_dep(s, t, (uint32_t)id) < 0)
			return FT_ENOMEM;
	return 0;
}

/*
 * ---- NCCL's pipeline in chunks ----------------------------------------------------------
 *
 * NCCL moves a channel's share of an NVLS tree or a CollNet all-reduce in chunks (kb
 * NA-CONCEPTS, NA-ALGO-NVLSTREE, NA-ALGO-COLLNET; NVIDIA/nccl src/enqueue.cc
 * calcCollChunking, src/device/all_reduce.h): chunk c leaves a rank once chunk c has come
 * in from the stage before, so the first chunk crosses every stage before the last stage
 * starts (the ramp), and a stage then passes one chunk after another. A phase of such a
 * schedule runs here in k chunks (pipe_chunks(): NCCL's loops, ft_model_nvls_tree_chunking()
 * and ft_model_collnet_chunking(), the counts the model prices its ramp with), every flow in
 * three pieces: its first chunk, which waits for the first chunks of the stage before (a
 * wave per stage); its k - 2 middle chunks, after its own first; its last chunk, after its
 * middle ones and the last chunks of the stage before. A chain of H stages of one rate then
 * takes (k + H - 1) chunk times, and where one stage is slower, (k - 1) of its chunk times
 * plus one chunk time at every stage: a pipeline's time, from three flows per connection
 * whatever k is. In one chunk (k = 1: a buffer NCCL's channels and heads hold in one loop)
 * the stages take turns, one flow each. Each piece pays its path latency, so the phase's end
 * pays no longest path of its own on top (its predecessors are the waves: barriers).
 *
 * NCCL's per-channel NVLSTree cap (ft__sim_tree_cap(), the op's conn_cap_Bps; an NVLS tree
 * has no other) is a pace: every connection capped at its bytes over S / algbw makes a
 * phase whose connections run together last S / algbw. Pipelined, it paces the middle
 * chunks, which follow one another through every stage at once; the first chunk of a
 * stage (the fill) and its last (the drain) cross it while the stages before or after are
 * idle, at their links' rates. Capped too, every stage's first and last chunk took S /
 * algbw / k where NVLink and the NICs carry them faster: from two loops on the flow
 * engine was up to 16% slower than NCCL's pipeline as the model prices it (fill at the
 * links' rates, then a period per loop; model/pipeline.c), on 8 DGX H100 at 16 MiB (two
 * loops of 64 KiB chunks), 10% on 4; now within 9% from 2 to 16 nodes at 16 to 64 MiB
 * (flow time / model time 0.92 to 1.02, test_simmodel flow_agrees_on_nvls_tree_by_loops).
 * In one chunk the stages take turns and a capped stage would last S / algbw by itself:
 * the two NVLS stages (into the switch and out of it, the largest connections) each did,
 * the cap counted twice. So one chunk runs at its links' rates, as
 * the model prices one loop (its time is the stages one after another at their links'
 * rates, model/pipeline.c ft__model_pipe()): on 4 DGX H100 at 8 MiB the NVLS stages took
 * 45 us each at the cap (8 channels x 45.5 GB/s x 32 / 62, 187.9 GB/s algbw; kb NA-ALGO-NVLS)
 * where their NVLink carries them in 31 (266.2 us in all against the model's 236.8; now
 * 238.6). Over 2 and 3 nodes the cap is higher (57.7 GB/s a channel; 4/3 of what the tree
 * carries) and bound less: 5-7 us.
 *
 * NCCL's NVLS-tree correction (sc->tree_corr, ft__sim_nccl_efficiency(); kb NA-MODEL) scales
 * the tuner's bus bandwidth (NVIDIA/nccl v2.29.2-1 src/graph/tuning.cc
 * ncclTopoGetAlgoTime(): busBw *= the factor, the latency left alone), so it slows the
 * loops a stage passes at the pipeline's pace, not the fill and the drain: a flow's first
 * and last chunks carry their own bytes, and its middle every chunk's 1 / corr - 1 more,
 * at the pace. In one chunk the stages take turns and the extra runs after the stage's
 * chunk, beside the stages after it, so the slowest stage's adds to the time: the model's
 * one loop, whose bandwidth term alone takes the factor (model/pipeline.c; the agreement
 * with it in docs/internals/sim-log.md).
 */

/* NCCL's nodes the op's ranks are on (ranks node by node; an NVLink domain is one). */
static uint32_t
op_nodes(const struct flow_engine *fe, const struct ft_sim_op *op)
{
	uint32_t r, n = 1;

	for (r = 1; r < op->sched->nranks; r++)
		if (ft__sim_over_network(fe->topo, op->rank_gpu[r], op->rank_gpu[r - 1]))
			n++;
	return n;
}

/* The model's links of @op's ranks on the engine's cluster into @l: 1, 0 where the model
 * places no such cluster, or the model's error (out of memory). */
static int
op_links(const struct flow_engine *fe, const struct ft_sim_op *op, struct ft_model_links *l)
{
	uint32_t nodes;
	int rc = ft__sim_links(ft_topo_spec(fe->topo), 0, 0, 0, l);

	if (rc <= 0)
		return rc;
	nodes = op_nodes(fe, op);
	l->nranks = op->sched->nranks;
	l->nnodes = nodes;
	l->ppn = op->sched->nranks / FT_MAX(nodes, 1u);
	return 1;
}

/* The chunks each pipeline copy of @op moves one after another into @chunks: op->pipe_chunks,
 * else NCCL's loops for an NVLS tree, NVLS across nodes or CollNet all-reduce on the
 * engine's cluster; 0: its flows run whole (packet.chunking: off, another algorithm, on/off
 * sources, a cluster the model places not). The model's error (out of memory) is returned. */
static int
pipe_chunks(const struct flow_engine *fe, const struct ft_sim_op *op, uint32_t *chunks)
{
	const struct ft_schedule *sc = op->sched;
	struct ft_model_links l;
	struct ft_model_chunking ch;
	uint32_t f, heads = 0;
	uint64_t loops;
	int rc;

	*chunks = 0;
	if (fe->chunking == FT_PKT_CHUNK_OFF || op->nominal_end || op->end_acked)
		return 0;
	if (op->pipe_chunks) {
		*chunks = op->pipe_chunks;
		return 0;
	}
	if (sc->op != FT_OP_ALL_REDUCE ||
	    (sc->algo != FT_ALGO_NVLS_TREE && sc->algo != FT_ALGO_COLLNET &&
	     !ft__sim_nvls_across_nodes(sc)))
		return 0;
	rc = op_links(fe, op, &l);
	if (rc <= 0)
		return rc;
	if (sc->algo == FT_ALGO_NVLS_TREE || sc->algo == FT_ALGO_NVLS) {
		for (f = 0; f < sc->flows.len; f++)
			heads = FT_MAX(heads,
			               (uint32_t)FT_VEC_AT(&sc->flows, struct ft_sched_flow, f).head);
		l.nrails = FT_MAX(heads, 1u);
		loops = sc->algo == FT_ALGO_NVLS ? ft_model_nvls_net_chunking(&l, sc->bytes, &ch) :
		                                   ft_model_nvls_tree_chunking(&l, sc->bytes, &ch);
	} else {
		loops = ft_model_collnet_chunking(&l, sc->bytes, sc->collnet_chain, &ch);
	}
	*chunks = (uint32_t)FT_MIN(loops, (uint64_t)UINT32_MAX);
	return 0;
}

/* Order of flows by (pipe, destination, direction): a flow's inputs are a range. */
static const struct ft_sched_flow *sort_flows;

static int
cmp_into(const void *a, const void *b)
{
	const struct ft_sched_flow *x = &sort_flows[*(const uint32_t *)a];
	const struct ft_sched_flow *y = &sort_flows[*(const uint32_t *)b];

	if (x->pipe != y->pipe)
		return x->pipe < y->pipe ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	return (x->dir > y->dir) - (x->dir < y->dir);
}

/* The first of @ord (sorted by cmp_into) at or after (pipe, dst). */
static uint32_t
first_into(const struct ft_sched_flow *fl, const uint32_t *ord, uint32_t n, uint32_t pipe,
           uint32_t dst)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		const struct ft_sched_flow *m = &fl[ord[mid]];

		if (m->pipe < pipe || (m->pipe == pipe && m->dst < dst))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A flow into or out of the node's NVSwitch (not the fabric's switches: net). */
static bool
switch_flow(const struct ft_sched_flow *fl)
{
	return (fl->src == FT_SCHED_INNET || fl->dst == FT_SCHED_INNET) && !fl->net;
}

/*
 * The stage of every flow of a pipelined phase @fl[0..n-1] in @stage, from its labels
 * (struct ft_sched_flow pipe, dir): a flow a -> b of copy p takes its data from the flows
 * of p into a: going up (the reduction) from those going up; going down from those going
 * down, or at the top (no flow of p comes down into a) from those going up. Its stage is
 * one more than theirs (0 with none). An NVLS tree's flows into and out of the switch are
 * its first and last stages around its trees. A CollNet's flows out of the fabric's
 * switches take the stage of the flows into them: NCCL's proxy posts a step's send and
 * receive as one iallreduce (NVIDIA/nccl v2.27.7-1 src/transport/coll_net.cc
 * collNetIallreduce()) and SHARP's streaming aggregation sends the sum down as the packets
 * come up (kb IB-SHARP), so the network is one stage, as the model's 3 (scatter, network,
 * broadcast; model/pipeline.c collnet_rounds_s()). As a stage of its own it counted the
 * network twice: 4 MiB on 4 DGX H100 with SHARP 87.98 us against the model's 81.09. Sets
 * @nst to the stages, 0 when the phase is
 * no pipeline (a flow without a direction, or a cycle). Returns 0, or FT_ENOMEM (the
 * run's error: a phase whose stages could not be counted is not run whole in their place).
 */
FT_MUST_CHECK static int
phase_stages(const struct ft_schedule *sc, const struct ft_sched_flow *fl, uint32_t n,
             uint32_t *stage, uint32_t *nst)
{
	/* an NVLS tree, or NVLS across nodes (its network flows marked net) */
	bool nvls = sc->algo == FT_ALGO_NVLS_TREE || sc->algo == FT_ALGO_NVLS;
	/* CollNet: the switches stream the reduction (the comment above) */
	bool streamed = sc->algo == FT_ALGO_COLLNET;
	uint32_t *ord, m = 0, f, it, top = 0;
	bool changed = true;

	*nst = 0;
	for (f = 0; f < n; f++)
		if (fl[f].dir != FT_SCHED_UP && fl[f].dir != FT_SCHED_DOWN)
			return 0;
	ord = ft_calloc(FT_MAX(n, 1u), sizeof(uint32_t));
	if (!ord)
		return FT_ENOMEM;
	for (f = 0; f < n; f++) {
		stage[f] = 0;
		if (!nvls || !switch_flow(&fl[f]))
			ord[m++] = f;
	}
	sort_flows = fl;
	qsort(ord, m, sizeof(uint32_t), cmp_into);
	for (it = 0; changed && it <= m; it++) {
		changed = false;
		for (uint32_t i = 0; i < m; i++) {
			const struct ft_sched_flow *x = &fl[ord[i]];
			uint32_t j = first_into(fl, ord, m, x->pipe, x->src), s = 0, j0 = j;
			/* out of CollNet's switches: the stage of the flows into them */
			uint32_t step = streamed && x->src == FT_SCHED_INNET ? 0 : 1;
			bool down_in = false;

			for (; j < m && fl[ord[j]].pipe == x->pipe && fl[ord[j]].dst == x->src; j++)
				down_in = down_in || fl[ord[j]].dir == FT_SCHED_DOWN;
			for (j = j0; j < m && fl[ord[j]].pipe == x->pipe && fl[ord[j]].dst == x->src;
			     j++) {
				bool down = fl[ord[j]].dir == FT_SCHED_DOWN;

				if (x->dir == FT_SCHED_UP ? !down : down == down_in)
					s = FT_MAX(s, stage[ord[j]] + step);
			}
			if (s > stage[ord[i]]) {
				stage[ord[i]] = s;
				changed = true;
			}
		}
	}
	ft_free(ord);
	if (changed)
		return 0; /* a cycle: no pipeline */
	for (f = 0; f < n; f++)
		top = FT_MAX(top, stage[f] + 1);
	if (!nvls) {
		*nst = top;
		return 0;
	}
	/* into the switch first, the trees (or the network's switches) after, out of the
	 * switch last */
	for (f = 0; f < n; f++) {
		if (switch_flow(&fl[f]))
			stage[f] = fl[f].dst == FT_SCHED_INNET ? 0 : top + 1;
		else
			stage[f]++;
	}
	*nst = top + 2;
	return 0;
}

/* A connection's bytes between two barriers, at most at a cap (add_conn_qps()). */
struct flow_piece {
	double wire;
	uint32_t a, b, nic, from, to, tag;
	double cap;
	uint32_t qp0; /* its channel's first QP (ft__sim_chan_qp0()) */
};

static int
add_piece(struct flow_engine *fe, const struct flow_piece *p, double wire, uint32_t from,
          uint32_t to, double cap)
{
	if (wire >= 1.0)
		return add_conn_qps(fe, wire, p->a, p->b, p->nic, from, to, p->tag, cap, p->qp0);
	return ft__fs_add_dep(&fe->core, from, to) < 0 ? FT_ENOMEM : 0;
}

/* CollNetDirect's NVLink stages (the scatter, the phase's first stage, and the broadcast,
 * its last, of @nst) where @nv > 0 (ft__sim_collnet_stages()): @nv; else 0. */
static double
alone_nv(double nv, uint32_t st, uint32_t nst)
{
	return nv > 0 && (st == 0 || st + 1 == nst) ? nv : 0;
}

/*
 * The cap of a CollNetDirect flow's first and last chunks (@nv > 0, @net: a loop of an
 * NVLink stage alone and of the network's stage, in periods, ft__sim_collnet_stages()) at
 * stage @st of @nst, @cap the pace: cap / nv on the scatter and the broadcast, cap / net
 * through the switches (up and down, one stage: phase_stages()). A round with one stage
 * busy lasts that stage's time, as the model's rounds have it (model/pipeline.c
 * collnet_rounds_s(): one loop 2 nv + net periods, the fill nv and max(nv, net)), the
 * tuner's x0.85 on every stage. Uncapped (the links' rates) the fill and drain ran 1 / 0.85
 * faster than NCCL's kernel moves them: with the switches' stage counted once, 256 MiB on
 * 2 DGX H100 went under the pace's own time (test_collnet_direct_closed_form).
 */
static double
collnet_edge(double cap, double nv, double net, uint32_t st, uint32_t nst)
{
	if (!(cap > 0))
		return 0;
	if (alone_nv(nv, st, nst) > 0)
		return cap / nv;
	return net > 0 ? cap / net : 0;
}

/*
 * The middle chunks of a flow, @p: p->wire bytes from barrier p->from to p->to at the pace
 * p->cap. On CollNetDirect's NVLink stages (@nv > 0: a loop of it alone takes nv periods)
 * one of them, @piece bytes, runs without the other NVLink stage beside it, as NCCL's
 * kernel runs it (ft__sim_collnet_stages(), model/pipeline.c collnet_rounds_s()): the
 * scatter's second loop, beside the network's first alone, and the broadcast's next to
 * last, beside the network's last; there the pace, which counts the scatter and the
 * broadcast on the GPU's NVLink together, gives way to cap / nv. Before, those chunks
 * took a whole period: on 4 DGX H100 with SHARP at 16 MiB (3 loops) the flow engine was
 * 13 % over the model.
 */
static int
add_middle(struct flow_engine *fe, const struct flow_piece *p, double piece, double nv,
           bool scatter)
{
	double rest = p->wire - piece;
	int64_t mid;
	int rc;

	if (!(nv > 0) || !(p->cap > 0) || piece < 1.0 || rest < 0)
		return add_piece(fe, p, p->wire, p->from, p->to, p->cap);
	mid = ft__fs_add_barrier(&fe->core, 0, 0, p->tag);
	if (mid < 0)
		return FT_ENOMEM;
	if (scatter) {
		rc = add_piece(fe, p, piece, p->from, (uint32_t)mid, p->cap / nv);
		return rc < 0 ? rc : add_piece(fe, p, rest, (uint32_t)mid, p->to, p->cap);
	}
	rc = add_piece(fe, p, rest, p->from, (uint32_t)mid, p->cap);
	return rc < 0 ? rc : add_piece(fe, p, piece, (uint32_t)mid, p->to, p->cap / nv);
}

/*
 * Phase @ph of @op in @k chunks (the comment above): its flows' stages, a wave of first
 * chunks and one of last chunks per stage, each flow's three pieces between them. The last
 * wave ends in @bar. Returns 1 when the phase is no pipeline (run it whole), 0 or FT_E*.
 */
static int
submit_chunked(struct flow_engine *fe, const struct ft_sim_op *op, const struct ft_sched_phase *ph,
               double eff, uint32_t start, uint32_t bar, uint32_t tag, uint32_t k,
               struct ft_error *err)
{
	struct fs_sim *s = &fe->core;
	const struct ft_schedule *sc = op->sched;
	struct ft_sched_flow *fl = ft_calloc(FT_MAX(ph->nflows, 1u), sizeof(*fl));
	uint32_t *stage = ft_calloc(FT_MAX(ph->nflows, 1u), sizeof(uint32_t));
	uint32_t *wave = NULL, nst = 0, f, st, qp0;
	/* the first and last chunks' cap: an NVLS tree's pace holds its middle chunks alone,
	 * and so does CollNet's (NCCL's price, ft__sim_collnet_cap()) */
	double edge_cap = sc->algo == FT_ALGO_NVLS_TREE || sc->algo == FT_ALGO_COLLNET ?
	                          0 :
	                          op->conn_cap_Bps,
	       wmax = 0;
	double corr = sc->tree_corr > 0 && sc->tree_corr < 1 ? sc->tree_corr : 1.0;
	/* NVLS across nodes: NCCL's price (the op's cap, on its largest connection) paces
	 * every connection in proportion to its bytes, all its chunks: each stage moves a
	 * loop per period, as the model's pipeline has it (ft__sim_nvls_net_cap()) */
	bool paced = sc->algo == FT_ALGO_NVLS && op->conn_cap_Bps > 0;
	/* CollNetDirect: a loop of an NVLink stage alone, in periods (add_middle()) */
	double nv = 0, net;
	struct ft_model_links l;
	int rc = FT_ENOMEM;

	if (!fl || !stage)
		goto out;
	for (f = 0; f < ph->nflows; f++) {
		ft_sched_phase_flow(sc, ph, f, &fl[f]);
		wmax = FT_MAX(wmax, (double)fl[f].bytes);
		if (fl[f].start_ns > 0)
			break;
	}
	if (f == ph->nflows && phase_stages(sc, fl, ph->nflows, stage, &nst) < 0)
		goto out;
	if (nst < 2) {
		rc = 1;
		goto out;
	}
	if (op->conn_cap_Bps > 0 && sc->algo == FT_ALGO_COLLNET) {
		rc = op_links(fe, op, &l);
		if (rc < 0)
			goto out;
		if (rc > 0)
			ft__sim_collnet_stages(&l, op, &nv, &net);
		rc = FT_ENOMEM;
	}
	/* wave[2 st]: the first chunks of stage st are out; wave[2 st + 1]: the last */
	wave = ft_calloc(2 * (size_t)nst, sizeof(uint32_t));
	if (!wave)
		goto out;
	for (st = 0; st < 2 * nst; st++) {
		int64_t id = ft__fs_add_barrier(s, 0, 0, tag);

		if (id < 0 || ft__fs_add_dep(s, st < 2 ? start : wave[st - 2], (uint32_t)id) < 0)
			goto out;
		wave[st] = (uint32_t)id;
	}
	if (ft__fs_add_dep(s, wave[2 * nst - 1], bar) < 0)
		goto out;
	for (f = 0; f < ph->nflows; f++) {
		uint32_t a = 0, b = 0, nic, in_first = stage[f] ? wave[2 * stage[f] - 2] : start;
		double piece, middle, cap = op->conn_cap_Bps, edge = edge_cap;
		int64_t first, join;

		rc = ft__sim_flow_ends(fe->topo, sc, op, &fl[f], &a, &b, err);
		if (rc < 0)
			goto out;
		rc = FT_ENOMEM;
		if (a == b || fl[f].bytes == 0)
			continue;
		/* NCCL's tree correction (sc->tree_corr) on the loops' bytes alone: the first
		 * and last chunks, the fill and the drain, cross at their own bytes, and the
		 * middle carries every chunk's 1 / corr - 1 more (the comment above) */
		piece = (double)fl[f].bytes * corr / eff / k;
		middle = piece * (k > 1 ? k - 2 : 0) +
		         (corr < 1 ? (double)fl[f].bytes * (1 - corr) / eff : 0);
		if (paced)
			cap = edge = op->conn_cap_Bps * (double)fl[f].bytes / wmax;
		/* CollNetDirect's fill and drain: a stage alone at the kernel's rate for it,
		 * the model's rounds (collnet_edge()) */
		if (nv > 0)
			edge = collnet_edge(cap, nv, net, stage[f], nst);
		first = ft__fs_add_barrier(s, 0, 0, tag);
		join = ft__fs_add_barrier(s, 0, 0, tag);
		if (first < 0 || join < 0 ||
		    ft__fs_add_dep(s, (uint32_t)first, wave[2 * stage[f]]) < 0 ||
		    (stage[f] && ft__fs_add_dep(s, wave[2 * stage[f] - 1], (uint32_t)join) < 0))
			goto out;
		/* the first chunk (the only one in one loop): no pace to keep (the comment
		 * above) */
		nic = ft__sim_flow_nic(fe->topo, &fl[f], a, b);
		/* an NVLS tree's copy between nodes on its channel's QPs (ft__sim_flow_chans()) */
		qp0 = ft__sim_flow_chans(op, ph, NULL, &fl[f], 0).chan0;
		qp0 = ft__sim_chan_qp0(fe->topo, &fe->cfg, a, b, qp0,
		                       fe->cfg.qps_per_conn * conn_lanes(fe, a, b));
		rc = add_conn_qps(fe, piece, a, b, nic, in_first, (uint32_t)first, tag, edge, qp0);
		if (rc == 0) {
			struct flow_piece mp = { middle, a, b, nic, (uint32_t)first, (uint32_t)join,
				                 tag, cap, qp0 };

			rc = add_middle(fe, &mp, piece, alone_nv(nv, stage[f], nst), stage[f] == 0);
		}
		if (rc == 0 && k == 1) {
			/* one chunk: the stage's end is its chunk's (and its correction's) */
			if (ft__fs_add_dep(s, (uint32_t)join, wave[2 * stage[f] + 1]) < 0)
				goto out;
			continue;
		}
		if (rc == 0)
			rc = add_conn_qps(fe, piece, a, b, nic, (uint32_t)join,
			                  wave[2 * stage[f] + 1], tag, edge, qp0);
		if (rc < 0)
			goto out;
	}
	rc = 0;
out:
	ft_free(fl);
	ft_free(stage);
	ft_free(wave);
	return rc;
}

/*
 * The vertex a schedule endpoint stands for: the rank's GPU, or for the
 * in-network reduction engine (FT_SCHED_INNET) the NVSwitch of the node
 * (NVLS, and NVLSTree's in-node part) or the first switch of the GPU's NIC (CollNet / SHARP).
 */
uint32_t
ft__sim_innet_vertex(const struct ft_topo *topo, uint32_t gpu_v, enum ft_algo algo)
{
	uint32_t first, count, i, nic;

	if (algo == FT_ALGO_NVLS || algo == FT_ALGO_NVLS_TREE) {
		ft_topo_out_links(topo, gpu_v, &first, &count);
		for (i = first; i < first + count; i++) {
			const struct ft_link *l = ft_topo_link(topo, i);

			if (ft_topo_vertex(topo, l->dst)->kind == FT_V_NVSWITCH)
				return l->dst;
		}
		return gpu_v;
	}
	nic = ft__sim_gpu_nic(topo, gpu_v);
	if (nic == UINT32_MAX)
		return gpu_v;
	ft_topo_out_links(topo, nic, &first, &count);
	for (i = first; i < first + count; i++) {
		const struct ft_link *l = ft_topo_link(topo, i);

		if (l->kind == FT_L_HOST)
			return l->dst;
	}
	return gpu_v;
}

/*
 * How an implicit all-to-all phase posts its sends (@ap: window, channels,
 * wire bytes and per-message costs). As NCCL's send/recv path does
 * (ft_model_p2p_chunking_on() on the cluster's p2p channels,
 * ft__sim_p2p_comm()'s p2p_nchannels: the definition the packet engine and the model
 * follow too; NVIDIA/nccl src/enqueue.cc, src/init.cc, src/graph/paths.cc):
 * a rank keeps peers_inflight sends in progress, each striped over its p2p
 * channels, in the protocol NCCL picks for a send of that size. With
 * packet.chunking: off, and for background patterns unless it is nccl (the
 * packet engine's rule, ft__pk_is_p2p()), as waves of FT_COLL_A2A_WINDOW
 * peers over the schedule's protocol, one connection per send. Sets *@win to the
 * window; returns 0, or ft__sim_a2a_window()'s error (FT_ENOMEM: the sends' slots unknown).
 *
 * Each send is one message per channel, and a message has a fixed cost on
 * top of its bytes: the proxy posts it, the receiver's clear-to-send comes
 * back, the completion is polled. NCCL's tuner prices that cost as the
 * hardware latency of the link class (kb NA-MODEL hwLatencies: NET 14 us for
 * Simple), the figure its p2p path shares with a ring step's network hop; a
 * message between nodes also pays what the model adds to such a hop (the
 * network plugin's latency, the flush, a hypervisor's cost: ft__sim_net_step_s()).
 */
static int
a2a_posting(const struct flow_engine *fe, const struct ft_sim_op *op,
            const struct ft_sched_phase *ph, double eff, struct a2a_phase *ap, uint32_t *win)
{
	const struct ft_cluster_spec *spec = ft_topo_spec(fe->topo);
	const struct ft_schedule *sc = op->sched;
	struct ft_model_p2p_chunking ch, local;
	struct ft_model_p2p_comm comm;
	double nic_Bps = spec->node.nic_Bps > 0 ? spec->node.nic_Bps : spec->fabric.link_Bps;
	double step;
	bool multi;
	int rc;

	if (fe->chunking == FT_PKT_CHUNK_OFF ||
	    (op->job == UINT32_MAX && fe->chunking != FT_PKT_CHUNK_NCCL)) {
		rc = ft__sim_net_step_s(fe->topo, sc->proto, &step);
		ap->channels = 1;
		ap->wire = ap->wire_local = (double)ph->bytes_per_pair / eff;
		ap->msg_net_s = ft_coll_hw_latency(FT_HW_NET, sc->algo, sc->proto) + step;
		ap->msg_local_s = sc->step_lat_s;
		*win = FT_COLL_A2A_WINDOW;
		return rc;
	}
	multi = ft__sim_spans_nodes(fe->topo, op->rank_gpu, ap->m, ap->stride);
	/* the model's p2p links and net step: their error (out of memory) the op's */
	rc = ft__sim_p2p_comm(fe->topo, ap->m, multi, nic_Bps, &comm);
	if (rc < 0)
		return rc;
	ft_model_p2p_chunking_conn(&comm, ph->bytes_per_pair, multi, &ch);
	/* Per connection: an NVLink send keeps LL inside a multi-node all-to-all. */
	ft_model_p2p_chunking_conn(&comm, ph->bytes_per_pair, false, &local);
	ap->channels = FT_MAX(ch.channels, 1u);
	ap->wire = (double)ph->bytes_per_pair / ft_proto_efficiency(ch.proto);
	ap->wire_local = (double)ph->bytes_per_pair / ft_proto_efficiency(local.proto);
	rc = ft__sim_net_step_s(fe->topo, ch.proto, &step);
	if (rc < 0)
		return rc;
	ap->msg_net_s = ft_coll_hw_latency(FT_HW_NET, sc->algo, ch.proto) + step;
	/* a message inside a node at the row of the node's link, NVLink's or PCI's (the
	 * schedule's intra, ft__sim_release_lats(); NCCL src/graph/tuning.cc
	 * ncclTopoTuneModel(): hwLat by typeIntra), as the model's a2a_fixed() prices it */
	ap->msg_local_s = ft_coll_hw_latency(sc->intra, sc->algo, local.proto);
	ap->ch_net = ch;
	ap->pxn = true;
	*win = FT_MAX(ch.peers_inflight, 1u);
	if (!multi)
		return 0;
	rc = ft__sim_a2a_window(fe->topo, op->rank_gpu, ap->m, ap->stride, comm.p2p_nchannels,
	                        &ap->ch_net, &ap->slots, true);
	ap->windowed = rc > 0;
	return FT_MIN(rc, 0);
}

/*
 * An implicit all-to-all phase runs as shift rounds: in round k (1..m-1)
 * member i of every group sends to member i + k. A window of rounds is in
 * flight at once (round k waits for round k - window), NCCL's sends in
 * progress per rank (a2a_posting()).
 *
 * A round is a spawner and an end barrier: its flows are made when the
 * spawner starts and their slots are recycled when they are done, so memory
 * holds the rounds in flight, not the n(n-1) pairs of the phase.
 *
 * The round's end barrier waits the per-message cost of the link class the
 * round uses: NET when any of its pairs leaves an NVLink domain, else the
 * node's own, NVLink's or PCI's (a2a_posting(), the schedule's intra); a
 * background's round inside a node, which has no cost priced, the ACK of its
 * last packet back (ft__sim_a2a_round_ack()).
 * While one round waits, the other rounds of the window keep the links busy,
 * so the cost only shows when the messages are small: a flat all-to-all over
 * n ranks pays it (n - 1) / window times.
 */
static int
submit_a2a(struct flow_engine *fe, const struct ft_sim_op *op, const struct ft_sched_phase *ph,
           double eff, uint32_t start, uint32_t bar, uint32_t tag)
{
	struct fs_sim *s = &fe->core;
	uint32_t m = ph->a2a_group_size, k, win, nranks = op->sched->nranks;
	struct a2a_phase ap = { 0 };
	uint32_t *ends;
	int rc = 0;

	if (m < 2 || ph->bytes_per_pair == 0)
		return 0;
	ap.m = m;
	ap.stride = ph->a2a_stride;
	ap.ngroups = (uint32_t)(ph->npairs / ((uint64_t)m * (m - 1)));
	ap.tag = tag;
	/* ap.slots.row: NULL, or the buffer ft__sim_a2a_window() allocated (ours to free) */
	if ((rc = a2a_posting(fe, op, ph, eff, &ap, &win)) < 0)
		return rc;
	ap.rank_gpu = ft_calloc(nranks, sizeof(uint32_t));
	ends = ft_calloc(m, sizeof(uint32_t));
	ap.comm_gpus = ft__sim_comm_gpus_by_node(fe->topo, op->rank_gpu, nranks, &ap.ncomm);
	if (!ap.rank_gpu || !ends || !ap.comm_gpus || ft_vec_push(&fe->a2a, &ap) < 0) {
		ft_free(ap.slots.row);
		ft_free(ap.rank_gpu);
		ft_free(ap.comm_gpus);
		ft_free(ends);
		return FT_ENOMEM;
	}
	memcpy(ap.rank_gpu, op->rank_gpu, nranks * sizeof(uint32_t));
	fe->nplanned += ph->npairs * ap.channels * fe->cfg.qps_per_conn *
	                FT_MAX(ft_topo_spec(fe->topo)->node.nics_per_gpu, 1u);
	for (k = 1; k < m && rc == 0; k++) {
		uint32_t prev = k > win ? ends[k - win] : start;
		struct a2a_round rd = { (uint32_t)fe->a2a.len - 1, k, 0 };
		int64_t sp = ft__fs_add_spawner(s, (uint32_t)fe->a2a_rounds.len, tag);
		int64_t e = ft__fs_add_barrier(s, 0, 0, tag);

		if (sp < 0 || e < 0 || ft__fs_add_dep(s, prev, (uint32_t)sp) < 0 ||
		    ft__fs_add_dep(s, (uint32_t)sp, (uint32_t)e) < 0 ||
		    ft__fs_add_dep(s, (uint32_t)e, bar) < 0) {
			rc = FT_ENOMEM;
			break;
		}
		rd.end = (uint32_t)e;
		if (ft_vec_push(&fe->a2a_rounds, &rd) < 0)
			rc = FT_ENOMEM;
		ends[k] = (uint32_t)e;
	}
	ft_free(ends);
	return rc;
}

/*
 * Give flow @id the path of a PXN send (ft__sim_flow_pxn_links()). Under adaptive routing
 * it is routed when it starts, as an ordinary flow is (ft__sim_flow_route(): least loaded
 * per hop then, not when its round was spawned), so that its network leg is chosen the
 * way an ordinary flow's is, as the packet engine's switches choose it per packet.
 */
static int
pxn_path(struct flow_engine *fe, uint32_t id, uint32_t src, uint32_t via, uint32_t dst,
         uint32_t qp, struct ft_error *err)
{
	uint32_t links[64], *room;
	int n;

	if (fe->cfg.routing == FT_ROUTING_ADAPTIVE) {
		uint32_t none = UINT32_MAX;

		while (fe->pxn_via.len <= id)
			if (ft_vec_push(&fe->pxn_via, &none) < 0)
				return FT_ENOMEM;
		FT_VEC_AT(&fe->pxn_via, uint32_t, id) = via;
		return 0;
	}
	n = ft__sim_flow_pxn_links(fe, src, via, dst, qp, links, FT_ARRAY_SIZE(links), err);
	if (n < 0)
		return n;
	room = ft__fs_path_room(&fe->core, id, (uint32_t)n);
	if (!room)
		return FT_ENOMEM;
	memcpy(room, links, (size_t)n * sizeof(uint32_t));
	return 0;
}

/* Spawn the connections of one send of an all-to-all round, one per channel of
 * @nch: qps_per_conn flows each (flowlets chained), each at most @cap_Bps (wire) over
 * the send's flows (0: no cap); through the PXN proxy @via (UINT32_MAX: none). */
static int
spawn_conn(struct flow_engine *fe, double wire, uint32_t nch, uint32_t src, uint32_t dst,
           uint32_t via, uint32_t end, uint32_t tag, double cap_Bps, struct ft_error *err)
{
	struct fs_sim *s = &fe->core;
	uint32_t q, nq = nch * fe->cfg.qps_per_conn *
	                 conn_lanes(fe, via == UINT32_MAX ? src : via, dst);
	double per = wire / nq;

	for (q = 0; q < nq; q++) {
		uint32_t nchunks = flowlets(fe, per), c, next = end;

		/* Last flowlet first: each names the next one as its successor. */
		for (c = nchunks; c-- > 0;) {
			int64_t id = ft__fs_spawn_flow(s, per / nchunks, src, dst, q * 1024 + c,
			                               c == 0, next, tag);
			const struct memo_slot *sl;
			uint32_t up = 0, *room;
			bool can;

			if (id < 0)
				return (int)id;
			next = (uint32_t)id;
			if (cap_Bps > 0) {
				int rc = ft__fs_set_cap(s, next, cap_Bps / nq);

				if (rc < 0)
					return rc;
			}
			if (via != UINT32_MAX) {
				int rc = pxn_path(fe, next, src, via, dst, q * 1024 + c, err);

				if (rc < 0)
					return rc;
				continue;
			}
			/* A memo path is known now: it starts routed (D-mod-K ignores load). */
			sl = fe_memo_get(fe, src, dst, &up, &can);
			if (sl) {
				room = ft__fs_path_room(s, next, up + sl->n);
				if (!room)
					return FT_ENOMEM;
				fe_memo_copy(&fe->memo, src, up, sl, room);
			}
		}
	}
	return 0;
}

/* A round's spawner starts: member i of every group sends to member i + k. */
static int
spawn_cb(void *ud, struct fs_sim *s, uint32_t id, struct ft_error *err)
{
	struct flow_engine *fe = ud;
	uint32_t arg = ft__fs_task(s, id)->qp, g, i;
	const struct a2a_round *rd;
	const struct a2a_phase *ap;
	bool net = false, far;
	uint32_t via;
	double cost, cap;

	if (arg >= fe->a2a_rounds.len)
		return ft_error_set(err, FT_EINVAL, "sim: spawner %u names no round", id);
	rd = ft_vec_at(&fe->a2a_rounds, arg);
	ap = ft_vec_at(&fe->a2a, rd->phase);
	for (g = 0; g < ap->ngroups; g++) {
		uint32_t base =
		        (uint32_t)((g / ap->stride) * ((uint64_t)ap->stride * ap->m) + g % ap->stride);

		for (i = 0; i < ap->m; i++) {
			uint32_t a = ap->rank_gpu[base + i * ap->stride];
			uint32_t b = ap->rank_gpu[base + ((i + rd->k) % ap->m) * ap->stride];
			uint32_t ahead = i + MEMO_PREFETCH;
			int rc;

			if (ahead < ap->m) {
				uint32_t pa = ap->rank_gpu[base + ahead * ap->stride];
				uint32_t pb = ap->rank_gpu[base + ((ahead + rd->k) % ap->m) *
				                                          ap->stride];
				const struct memo_slot *sl = fe_memo_first_slot(fe, pa, pb);

				if (sl)
					FS_PREFETCH(sl);
			}
			if (a == b)
				continue;
			far = ft__sim_over_network(fe->topo, a, b);
			net = net || far;
			/* NCCL's PXN: a send to a peer on another rail through that rail's GPU,
			 * one of the job's (its GPUs on the sender's node) */
			via = UINT32_MAX;
			if (far && ap->pxn) {
				uint32_t na = ft_topo_vertex(fe->topo, a)->node;

				via = ft__sim_pxn_proxy_in(fe->topo, a, b,
				                           na < ap->ncomm ? ap->comm_gpus[na] : 0);
			}
			/* NCCL's window on a send over the network (its slots shared with the
			 * rank's other sends on its channels): its flows capped at it */
			cap = 0;
			if (far && ap->windowed) {
				struct ft_model_p2p_chunking mine;

				ft__sim_a2a_send_ch(&ap->ch_net, &ap->slots, i, (i + rd->k) % ap->m,
				                    &mine);
				cap = ft__sim_p2p_send_window_via(fe->topo, &mine, a, b, via,
				                                  NULL) /
				      ft_proto_efficiency(mine.proto);
			}
			/* each connection at its own protocol: LL to an NVLink peer */
			rc = spawn_conn(fe, far ? ap->wire : ap->wire_local, ap->channels, a, b,
			                via, rd->end, ap->tag, cap, err);
			if (rc < 0 && err->code != 0)
				return rc;
			if (rc == FT_ERANGE)
				return ft_error_set(err, rc,
				                    "sim: more than %d distinct channel caps",
				                    FS_MAX_CAPS);
			if (rc < 0)
				return ft_error_set(err, rc, "sim: out of memory spawning a round");
		}
	}
	/* The end barrier is not ready before its flows are done: its wait can still be set
	 * (with no cost priced, its senders' view: the last ACK back, ft__sim_a2a_round_ack). */
	cost = net ? ap->msg_net_s : ap->msg_local_s;
	ft__fs_task(s, rd->end)->delay_s = cost;
	ft__fs_task(s, rd->end)->lat_mult = ft__sim_a2a_round_ack(cost);
	return 0;
}

/*
 * ---- NCCL's pipeline over flows run whole ----------------------------------------------
 *
 * A ring or tree phase runs here as whole flows, all of its stages at once: it pays no
 * pipeline fill and no proxy thread. NCCL's run of it does both (model/pipeline.c): the
 * first chunk of a tree or chain crosses every stage before the last stage starts (the
 * ramp), and a channel's proxy posts its network messages one after another, each at a
 * fixed cost (1 us of NCCL's network post overhead plus nics.vm_overhead, kb NA-MODEL), a
 * floor under the operation's time. The engine pays both, on every transport the model
 * prices them on, from the model's own terms (ft__sim_pipe_terms(), ft_model_pipe_terms(),
 * at the op's forced channels if any; a tree's or chain's at NCCL's cap, the periods
 * at the cap of the schedule's stages as built, ft__sim_tree_depths(), which the packet
 * engine paces: ft__sim_cap_fill_s()): the ramp as a fixed cost at the end of
 * the op's last phase, after its flows and step costs, as the model adds it to its
 * latency and bandwidth terms; the floor as a barrier the proxy's time after the op's
 * start, which the op's end waits for too: its time is max(flows + step costs + ramp,
 * proxy), the model's max(lat + bytes / bw + ramp, proxy). The flows keep what the model
 * has no term for (congestion, routing, the links they share); the ramp and the floor are
 * what whole flows cannot show (docs/internals/sim.md, "The flow engine and the model's
 * pipeline terms"). Ops whose end is not their last flow's (start jitter, on/off
 * sources: struct ft_sim_op nominal_end, end_acked), a background pattern and
 * packet.chunking: off pay neither. The error of the model's links or pipeline (in @err
 * too) or of counting the stages (out of memory) is returned.
 */
static int
whole_pipe(const struct flow_engine *fe, const struct ft_sim_op *op, double *ramp_s,
           double *proxy_s, struct ft_error *err)
{
	uint32_t stages = 0;
	double fill;
	int rc;

	*ramp_s = *proxy_s = 0;
	if (fe->chunking == FT_PKT_CHUNK_OFF || op->nominal_end || op->end_acked ||
	    op->job == UINT32_MAX)
		return 0;
	if ((rc = ft__sim_pipe_terms(fe->topo, op, ramp_s, proxy_s, NULL, err)) < 0)
		return rc;
	/* at a cap, the fill at the rate the flows move (ft__sim_cap_fill_s()), over the
	 * stages of the schedule as built, which the packet engine paces (cap_pace()) */
	if (!ft__sim_cap_staged(op) || op->sched->phases.len != 1)
		return 0;
	if ((rc = ft__sim_tree_depths(op->sched, ft_sched_phase_at(op->sched, 0), NULL,
	                              &stages)) < 0)
		return rc;
	fill = ft__sim_cap_fill_s(fe->topo, op, stages);
	if (fill > 0)
		*ramp_s = fill;
	return 0;
}

/*
 * The channels NCCL launches for @op (the model's count, ft__sim_pipe_model(), as the
 * packet engine reads it: pkt_setup.c pipe_read()) into @pl, where a ring phase of it may
 * run on their copies (chan_parts()): the routing hashes per QP (ft__sim_qp_hashed()) and
 * its rings run in NCCL's chunks in the packet engine (packet.chunking not off: pkt_nccl.c
 * ring_reps()), or it is a chain broadcast or reduce, whose copies run on NCCL's launched
 * channels there (pkt_tree.c chain_channels()), or an LL chain, which runs on the launched
 * copies alone where NCCL launches fewer than it has (ft__sim_chain_keep()), under any
 * routing; else @pl zero. The model's error is returned.
 */
static int
launched_channels(const struct flow_engine *fe, const struct ft_sim_op *op,
                  struct ft_model_pipeline *pl, struct ft_error *err)
{
	bool ring = false, chain = ft__sim_chain(op->sched) && !op->nchannels;

	memset(pl, 0, sizeof(*pl));
	if (fe->chunking == FT_PKT_CHUNK_OFF)
		return 0;
	/* an LL chain runs on its launched copies alone under every routing, forced channels
	 * too (ft__sim_chain_keep(), as pkt_tree.c chain_channels()) */
	if (ft__sim_chain(op->sched) && op->sched->proto == FT_PROTO_LL)
		return ft__sim_pipe_model(fe->topo, op, pl, err);
	if (op->nchannels || !ft__sim_qp_hashed(fe->topo, &fe->cfg))
		return 0;
	for (uint32_t p = 0; p < op->sched->phases.len && !ring; p++)
		ring = ft__sim_ring_chunks(op->sched, ft_sched_phase_at(op->sched, p));
	if (!ring && !chain)
		return 0;
	return ft__sim_pipe_model(fe->topo, op, pl, err);
}

/* The proxy's floor of op @rec: its end becomes a barrier after both its last phase and a
 * barrier @proxy_s after its start (whole_pipe()); the start barrier holds NCCL's base
 * latency, which the op's time counts from before it. */
static int
proxy_floor(struct flow_engine *fe, struct flow_op *rec, double proxy_s, uint32_t tag)
{
	struct fs_sim *s = &fe->core;
	int64_t at = ft__fs_add_barrier(s, FT_MAX(proxy_s - rec->base_lat_s, 0.0), 0, tag);
	int64_t end = ft__fs_add_barrier(s, 0, 0, tag);

	if (at < 0 || end < 0 || ft__fs_add_dep(s, rec->start, (uint32_t)at) < 0 ||
	    ft__fs_add_dep(s, (uint32_t)at, (uint32_t)end) < 0 ||
	    ft__fs_add_dep(s, rec->end, (uint32_t)end) < 0)
		return FT_ENOMEM;
	rec->end = (uint32_t)end;
	return 0;
}

static int64_t
flow_submit(struct ft_engine *e, const struct ft_sim_op *op, struct ft_error *err)
{
	struct flow_engine *fe = ft_container_of(e, struct flow_engine, base);
	struct fs_sim *s = &fe->core;
	const struct ft_schedule *sc = op->sched;
	struct flow_op rec = { 0 };
	const struct flow_op *after;
	uint32_t tag = (uint32_t)fe->ops.len, p, nv = ft_topo_nvertices(fe->topo), shift_ns, chunks;
	struct ft_model_pipeline pl;
	double eff = sc->proto_eff > 0 ? sc->proto_eff : 1.0, wait, ramp_s = 0, proxy_s = 0;
	struct ft__sim_link_lats ll;
	int64_t id;
	int rc;

	if (op->after >= (int64_t)fe->ops.len)
		return ft_error_set(err, FT_EINVAL, "sim: op waits for op %lld, not submitted",
		                    (long long)op->after);
	for (p = 0; p < sc->nranks; p++)
		if (op->rank_gpu[p] >= nv)
			return ft_error_set(err, FT_EINVAL, "sim: rank %u placed on no vertex", p);
	after = op->after >= 0 ? &FT_VEC_AT(&fe->ops, struct flow_op, op->after) : NULL;
	if ((rc = ft__sim_start_wait(op, after ? after->shift_s : 0, &wait, err)) < 0)
		return rc;
	/* the model's readings of the op, once and before any of its tasks, so that a failed
	 * submit adds nothing: their error (out of memory) the op's, in the packet engine's
	 * words (pkt_setup.c ft__pk_submit()) */
	if ((rc = pipe_chunks(fe, op, &chunks)) < 0 ||
	    (rc = launched_channels(fe, op, &pl, err)) < 0 ||
	    (rc = ft__sim_link_lats(fe->topo, sc, &ll)) < 0 ||
	    (chunks == 0 && (rc = whole_pipe(fe, op, &ramp_s, &proxy_s, err)) < 0))
		return ft_error_set(err, rc, "sim: the model's links: %s", ft_strerror(rc));
	id = ft__fs_add_barrier(s, wait, 0, tag);
	if (id < 0)
		goto oom;
	rec.start = (uint32_t)id;
	rec.job = op->job;
	if (op->conn_cap_Bps > 0 && op->conn_cap_what) {
		ft_strlcpy(rec.cap_what, op->conn_cap_what, sizeof(rec.cap_what));
		rec.cap_Bps = op->conn_cap_Bps;
	}
	rec.base_lat_s = sc->base_lat_s;
	if (after && ft__fs_add_dep(s, after->next, rec.start) < 0)
		goto oom;
	rec.end = rec.start;
	rec.next = FS_NONE;
	shift_ns = op->nominal_end ? ft__sim_max_start_ns(sc) : 0;
	if (shift_ns > 0 || op->end_acked) {
		if ((id = ft__fs_add_barrier(s, 0, 0, tag)) < 0)
			goto oom;
		rec.next = (uint32_t)id;
		rec.shift_s = shift_ns * 1e-9;
		rec.acked = op->end_acked;
	}
	for (p = 0; p < sc->phases.len; p++) {
		const struct ft_sched_phase *ph = ft_vec_at(&sc->phases, p);
		double steps = ph->steps ? ph->steps : 1, extra = 0, hw = 0;
		uint32_t net = 0, f, far = ft__sim_far_steps(fe->topo, sc, &ll, op->rank_gpu,
		                                             (uint32_t)steps, &extra, &net);
		int64_t bar;

		/* the pipeline's ramp once, at the end of the last phase (whole_pipe()) */
		if (p + 1 == sc->phases.len)
			extra += ramp_s;
		/* a ring's or tree's step between nodes lasts max(hwLat[NET], path), as the
		 * packet engine's (pkt_setup.c phase_cost()): hwLat[NET] comes out of @extra on
		 * each of the @net steps and the barrier puts back what the phase's longest
		 * path falls short of it (ft__sim_net_floor_s()) */
		hw = ft__sim_far_floor_hw_s(sc, net);
		bar = ft__fs_add_barrier(s, FT_MAX(0.0, steps * sc->step_lat_s + extra - net * hw),
		                         far, tag);

		if (bar < 0)
			goto oom;
		rc = ft__fs_barrier_floor(s, (uint32_t)bar, hw, hw > 0 ? net : 0);
		if (rc < 0)
			return ft_error_set(err, rc, "sim: phase %u's step floor (%g s x %u): %s",
			                    p, hw, net, ft_strerror(rc));
		if (ft__fs_add_dep(s, rec.end, (uint32_t)bar) < 0)
			goto oom;
		if (ph->implicit_alltoall) {
			size_t had = fe->a2a.len;

			if (submit_a2a(fe, op, ph, eff, rec.end, (uint32_t)bar, tag) < 0)
				goto oom;
			/* its sends over the network capped at NCCL's window: named so where the
			 * cap held the slowest (as the model and the packet engine name it) */
			if (fe->a2a.len > had && !rec.cap_what[0] &&
			    ((const struct a2a_phase *)ft_vec_at(&fe->a2a, had))->windowed)
				ft_strlcpy(rec.cap_what, FT__SIM_P2P_WINDOW_WHAT,
				           sizeof(rec.cap_what));
		} else if (chunks > 0 &&
		           (rc = submit_chunked(fe, op, ph, eff, rec.end, (uint32_t)bar, tag,
		                                chunks, err)) <= 0) {
			if (rc == FT_ERANGE)
				return ft_error_set(err, rc, "sim: more than %d distinct channel caps",
				                    FS_MAX_CAPS);
			if (rc == FT_ENOMEM)
				goto oom;
			if (rc < 0)
				return rc;
			rec.piped = true;
		} else {
			struct ft__sim_phase_chans pc;
			uint32_t edge = 0;

			ft__sim_phase_chans_get(op, ph, &pl, &pc);
			for (f = 0; f < ph->nflows; f++) {
				struct ft_sched_flow fl;
				struct ft__sim_chans ch;
				uint32_t a = 0, b = 0;

				ft_sched_phase_flow(sc, ph, f, &fl);
				/* its graph ring: a relay leg carries the edge before on */
				edge += !fl.relay;
				ch = ft__sim_flow_chans(op, ph, &pc, &fl, edge - 1u);
				rc = ft__sim_flow_ends(fe->topo, sc, op, &fl, &a, &b, err);
				if (rc < 0)
					return rc;
				if (a == b || ch.bytes == 0)
					continue;

				rc = add_timed_conn(fe, &fl, eff, &ch, a, b, rec.end,
				                    (uint32_t)bar, &rec, shift_ns,
				                    op->conn_cap_Bps);
				if (rc == FT_ERANGE)
					return ft_error_set(err, rc,
					                    "sim: more than %d distinct channel caps",
					                    FS_MAX_CAPS);
				if (rc == FT_EINVAL)
					return ft_error_set(err, rc, "sim: phase %u's step floor: %s",
					                    p, ft_strerror(rc));
				if (rc < 0)
					goto oom;
			}
		}
		rec.end = (uint32_t)bar;
	}
	if (proxy_s > 0 && (rc = proxy_floor(fe, &rec, proxy_s, tag)) < 0)
		goto oom;
	if (rec.next == FS_NONE)
		rec.next = rec.end;
	else if (ft__fs_task(s, rec.next)->npred == 0 && ft__fs_add_dep(s, rec.end, rec.next) < 0)
		goto oom; /* no flow of its own (all-to-all rounds): its end */
	if (ft_vec_push(&fe->ops, &rec) < 0)
		goto oom;
	return (int64_t)fe->ops.len - 1;
oom:
	return ft_error_set(err, FT_ENOMEM, "sim: out of memory submitting an op");
}

static int
flow_run(struct ft_engine *e, double until_s, struct ft_error *err)
{
	struct flow_engine *fe = ft_container_of(e, struct flow_engine, base);
	struct fs_sim *s = &fe->core;
	int rc;

	if (!s->started) {
		/* Room for every spawned flow's FCT and ideal time, taken once. */
		if (ft_vec_reserve(&s->retired_fct, fe->nplanned) < 0 ||
		    ft_vec_reserve(&s->retired_ideal, fe->nplanned) < 0)
			return ft_error_set(err, FT_ENOMEM, "sim: out of memory for %llu flows",
			                    (unsigned long long)fe->nplanned);
		ft__sim_advise_huge(s->retired_fct.data, s->retired_fct.cap * sizeof(double));
		ft__sim_advise_huge(s->retired_ideal.data, s->retired_ideal.cap * sizeof(double));
		rc = ft__fs_start(s, err);
		if (rc < 0)
			return rc;
	}
	while ((rc = ft__fs_step(s, err)) > 0) {
		if ((s->nevents & 1023) == 0)
			ft_progress_update(fe->cfg.progress, "simulating", s->ndone,
			                   ft__fs_ntasks(s) + fe->nplanned);
		if (until_s > 0 && s->now_s >= until_s)
			return 0;
	}
	if (rc < 0)
		return rc;
	ft_progress_update(fe->cfg.progress, "simulating", s->ndone, s->ncreated);
	if (s->ndone != s->ncreated)
		return ft_error_set(err, FT_EINVAL,
		                    "sim: %llu tasks never started (dependency cycle)",
		                    (unsigned long long)(s->ncreated - s->ndone));
	return 0;
}

static int
flow_counters(struct ft_engine *e, struct ft_sim_counters *c, struct ft_error *err)
{
	struct flow_engine *fe = ft_container_of(e, struct flow_engine, base);
	struct fs_sim *s = &fe->core;
	uint32_t n = ft__fs_ntasks(s), i;
	size_t nf = 0, nr;
	double *fct, *ideal;
	int rc;

	memset(c, 0, sizeof(*c));
	nr = s->retired_fct.len;
	ft_free(fe->op_results);
	fe->op_results = ft_calloc(fe->ops.len ? fe->ops.len : 1, sizeof(*fe->op_results));
	if (!fe->op_results)
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory for counters");
	for (i = 0; i < n; i++) {
		const struct fs_task *t = ft__fs_task(s, i);

		if (t->spawned)
			continue; /* a recycled slot: its flows were retired */
		if (t->t_done > c->makespan_s)
			c->makespan_s = t->t_done;
		if (t->kind != FS_FLOW || t->bytes <= 0 || t->state != FS_DONE)
			continue;
		nf++;
	}
	if (s->retired_makespan_s > c->makespan_s)
		c->makespan_s = s->retired_makespan_s;
	if (nf == 0 && nr > 0 && (fe->fct_consumed || s->ndone == s->ncreated)) {
		/* Only retired flows (a flat all-to-all) and the run is over: their arrays are
		 * used up once, the figures kept for later calls. */
		if (!fe->fct_consumed) {
			ft__sim_fct_stats_consume(s->retired_fct.data, s->retired_ideal.data, nr,
			                          &fe->fct);
			fe->fct_consumed = true;
		}
		fct = ideal = NULL;
		nf = nr;
		c->fct_min_s = fe->fct.fct_min_s;
		c->fct_p50_s = fe->fct.fct_p50_s;
		c->fct_p99_s = fe->fct.fct_p99_s;
		c->fct_max_s = fe->fct.fct_max_s;
		c->ideal_min_s = fe->fct.ideal_min_s;
		c->ideal_p50_s = fe->fct.ideal_p50_s;
		c->ideal_max_s = fe->fct.ideal_max_s;
		c->slowdown_p50 = fe->fct.slowdown_p50;
		c->slowdown_p99 = fe->fct.slowdown_p99;
		c->slowdown_max = fe->fct.slowdown_max;
		rc = 0;
	} else if (nf == 0) {
		/* Only retired flows, run not over: read their arrays as they are. */
		fct = s->retired_fct.data;
		ideal = s->retired_ideal.data;
		nf = nr;
		rc = ft__sim_fct_stats(fct, ideal, nf, c);
	} else {
		size_t k = 0;

		fct = ft_calloc(nf + nr, sizeof(double));
		ideal = ft_calloc(nf + nr, sizeof(double));
		if (!fct || !ideal) {
			ft_free(fct);
			ft_free(ideal);
			return ft_error_set(err, FT_ENOMEM, "sim: out of memory for counters");
		}
		for (i = 0; i < n; i++) {
			const struct fs_task *t = ft__fs_task(s, i);

			if (t->spawned || t->kind != FS_FLOW || t->bytes <= 0 ||
			    t->state != FS_DONE)
				continue;
			fct[k] = t->t_done - t->t_start;
			ideal[k] = t->ideal_s;
			k++;
		}
		if (nr) {
			memcpy(fct + k, s->retired_fct.data, nr * sizeof(double));
			memcpy(ideal + k, s->retired_ideal.data, nr * sizeof(double));
		}
		nf = k + nr;
		rc = ft__sim_fct_stats(fct, ideal, nf, c);
		ft_free(fct);
		ft_free(ideal);
	}
	if (rc < 0)
		return ft_error_set(err, rc, "sim: out of memory for counters");
	/* Each op's slowest flow names its bottleneck (the op index is the flow's tag); where
	 * its own cap held it all the way, what that cap is (ft__fs_flow_capped()). */
	for (i = 0; i < fe->ops.len; i++)
		fe->op_results[i].bottleneck_link = UINT32_MAX;
	{
		size_t nops = fe->ops.len ? fe->ops.len : 1;
		double *slowest = ft_calloc(nops * 2, sizeof(double)), *rate;
		uint8_t *capped = ft_calloc(nops, 1);

		if (!slowest || !capped) {
			ft_free(slowest);
			ft_free(capped);
			return ft_error_set(err, FT_ENOMEM, "sim: out of memory for counters");
		}
		rate = slowest + nops;
		for (i = 0; i < n; i++) {
			const struct fs_task *t = ft__fs_task(s, i);

			double key;

			if (t->kind != FS_FLOW || t->spawned || t->tag >= fe->ops.len ||
			    t->bott_link == FS_NONE)
				continue;
			/* a pipeline's last flow is its last chunk, which any stage ends with: its
			 * longest flow (the slowest stage's middle chunks) names what held it */
			key = FT_VEC_AT(&fe->ops, struct flow_op, t->tag).piped ? t->t_done - t->t_start :
			                                                         t->t_done;
			if (key > slowest[t->tag]) {
				slowest[t->tag] = key;
				fe->op_results[t->tag].bottleneck_link = t->bott_link;
				capped[t->tag] = ft__fs_flow_capped(s, t);
				rate[t->tag] = ft__fs_flow_rate(t);
			}
		}
		for (i = 0; i < s->tag_slowest.len && i < fe->ops.len; i++) {
			const struct fs_tag_slowest *ts = ft_vec_at(&s->tag_slowest, i);

			if (ts->t_done > slowest[i]) {
				slowest[i] = ts->t_done;
				fe->op_results[i].bottleneck_link = ts->bott_link;
				capped[i] = ts->capped;
				rate[i] = ts->rate_Bps;
			}
		}
		for (i = 0; i < fe->ops.len; i++) {
			const struct flow_op *o = ft_vec_at(&fe->ops, i);

			/* a flow at the op's cap or faster (a pipeline's first or last chunk,
			 * uncapped, at its links' rates) is the cap's: no link held it below
			 * the cap, as the packet engine's critical path gives a message
			 * within its bytes at the cap's rate (and its path latency and fill)
			 * to the cap whole, one held longer to its link whole (pkt_int.h
			 * pk_cp_msg()) */
			if (!capped[i] && ft__fs_rate_at(rate[i], o->cap_Bps))
				capped[i] = 1;
			if (capped[i] && o->cap_what[0])
				ft_strlcpy(fe->op_results[i].bottleneck, o->cap_what,
				           sizeof(fe->op_results[i].bottleneck));
		}
		ft_free(slowest);
		ft_free(capped);
	}
	for (i = 0; i < fe->ops.len; i++) {
		const struct flow_op *o = ft_vec_at(&fe->ops, i);

		fe->op_results[i].job = o->job;
		fe->op_results[i].t_start_s = ft__fs_task(s, o->start)->t_done - o->base_lat_s;
		fe->op_results[i].t_end_s = ft__fs_task(s, o->end)->t_done;
	}
	c->nflows = nf;
	c->nevents = s->nevents;
	c->nrecompute = s->nrecompute;
	c->nrecompute_full = s->nrecompute_full;
	c->npath_walks = s->npath_walks;
	c->nsel_reads = s->nsel_reads;
	c->bytes = s->bytes_delivered;
	c->nops = fe->ops.len;
	c->ops = fe->op_results;
	c->nlinks = s->nlinks;
	if (ft__fs_link_export(s) < 0)
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory for counters");
	c->link_bytes = s->link_bytes;
	c->link_max_flows = s->link_maxflows;
	return 0;
}

static void
flow_destroy(struct ft_engine *e)
{
	struct flow_engine *fe;

	if (!e)
		return;
	fe = ft_container_of(e, struct flow_engine, base);
	ft__fs_release(&fe->core);
	ft__sim_memo_release(&fe->memo);
	ft_vec_release(&fe->ops);
	for (size_t i = 0; i < fe->a2a.len; i++) {
		ft_free(((struct a2a_phase *)ft_vec_at(&fe->a2a, i))->rank_gpu);
		ft_free(((struct a2a_phase *)ft_vec_at(&fe->a2a, i))->slots.row);
		ft_free(((struct a2a_phase *)ft_vec_at(&fe->a2a, i))->comm_gpus);
	}
	ft_vec_release(&fe->a2a);
	ft_vec_release(&fe->a2a_rounds);
	ft_vec_release(&fe->pxn_via);
	ft_free(fe->op_results);
	ft_free(fe);
}

const struct ft_engine_ops ft_flow_engine = {
	.name = "flow",
	.summary = "event-driven, max-min fair sharing of every link",
	.create = flow_create,
	.submit = flow_submit,
	.run = flow_run,
	.counters = flow_counters,
	.destroy = flow_destroy,
};

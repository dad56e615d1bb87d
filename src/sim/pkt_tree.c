/* SPDX-License-Identifier: MIT */
/*
 * sim/pkt_tree.c - NCCL's tree and NVLS tree all-reduce and chain broadcast /
 * reduce in the packet engine, chunk by chunk.
 *
 * A tree phase of the schedule (sim/nccl.c: a chain inside each node and a
 * double binary tree over the nodes, one copy per channel and tree; coll/:
 * the chain of a broadcast or reduce) says which connections carry how much,
 * not how NCCL moves it. NCCL runs it as a pipeline (NVIDIA/nccl
 * src/device/all_reduce.h runTreeSplit, src/enqueue.cc calcCollChunking; kb
 * NA-ALGO-TREE, NA-CONCEPTS): a channel's share is cut into chunks of one
 * buffer slot (Simple 512 KiB; chunk and slice steps are 1 outside rings),
 * each chunk one network message, with NCCL_STEPS (8) of them in flight per
 * connection. Going up, a rank sends chunk c to its parent once chunk c has
 * arrived from each of its children (it reduces them with its own); a leaf
 * sends at once. Going down, a rank forwards chunk c to its children once it
 * has arrived from its parent; the root sends chunk c down once it has it
 * from all its children (it reduces and broadcasts in one pass). Half of
 * each channel's threads go up and half down, so both directions run at
 * once. A chain broadcast is the downward half alone, a chain reduce the
 * upward half (ft__sim_chain()). In LL and LL128 it runs on every channel NCCL
 * launches (chain_channels()), its hops over NVLink pass on lines as their
 * flags come, the model's grain at a time (chain_lines()), and its hops
 * between nodes whole steps (wait_msg()); in Simple on NCCL's own channels it runs as the
 * schedule's copies, their rounds paced a stage apart at the model's fill up to its end
 * (chain_fill_on(), nccl_fill()).
 *
 * Here, as for rings (pkt_nccl.c), a message is one flow per QP and the
 * dependencies are the ones above; a copy's connection between nodes is NCCL's
 * channel of its own, whose QPs ECMP hashes on their own (ft__sim_chan_qp0(),
 * NVIDIA/nccl v2.27.7-1 src/transport/net_ib.cc ncclIbConnect(): a connection's
 * NCCL_IB_QPS_PER_CONNECTION QPs; kb ROCE-WIRE), as the flow engine's; a PXN
 * leg (a proxy GPU relaying the flow, sim/nccl.c) forwards message c once it
 * has arrived. The flows of the
 * schedule say which tree copy each belongs to and which way it goes
 * (struct ft_sched_flow pipe, dir, relay). The phase's path latencies are in
 * the simulated pipeline itself: its end barrier keeps only the protocol's
 * per-step overhead (an LL chain's steps inside a node that overhead less the path
 * they walk: pkt_setup.c walk_back_s()).
 *
 * An NVLS tree all-reduce (NVLS in each node, a double binary tree over the
 * nodes per head, kb NA-ALGO-NVLSTREE; src/device/all_reduce.h, the NVLS
 * tree kernel) runs as NCCL's pipeline too. A channel's part is cut into
 * loops of one chunk per head; in loop c every rank writes chunk c of every head into the switch
 * (its scatter warps), head h reads chunk c back reduced once all of them
 * have and, with its tree children's chunk c, sends it up (its reduce
 * warps), gets it from its parent (or, at the root, has it) and writes it
 * into the switch's multicast (its broadcast warps), and every rank reads
 * chunk c of every head back (its gather warps); the four groups of warps
 * run at once. Here each copy of a head (a channel's tree 0 or 1, labelled
 * by the schedule: struct ft_sched_flow head and pipe) is cut into as many
 * messages as NCCL's channel has loops (ft_model_nvls_tree_chunking()),
 * and chunk c of a copy waits only for chunk c of its own copy and node.
 * A read (a gather) learns that chunk c has reached the switch it reads from
 * when the last part sent into that switch arrives, and that it has reached
 * another switch of the node (an NVLink domain of several trays) one path
 * latency after that switch's last part, through a task per switch that waits
 * that long: the wait a flow learning of another vertex's flow has
 * (pkt_flow.c flow_feeds), which a run split across MPI ranks carries as any
 * barrier after flows (pkt_part.c), so both give the same bytes. In one process an
 * NVLS tree's messages, a tree's and a ring's (pkt_nccl.c) are built as their waits end
 * ("Lazy NVLS trees", at the end).
 *
 * A CollNet all-reduce's pipelined phase (CollNetDirect's in-network all-reduce,
 * CollNetChain's chain to the head's NIC, through the switches and back; kb
 * NA-ALGO-COLLNET, NVIDIA/nccl src/device/all_reduce.h) runs as a tree: every connection
 * is cut into as many chunks as the flow engine's and the model's pipeline
 * (ft_model_collnet_chunking(), or the op's pipe_chunks), a rank sends chunk c up once it
 * has come up to it, down once it has come down, and the switches stream chunk c back
 * down a copy as it comes up from every rank of the copy (stream_switch(): its first byte
 * once every rank's first unit is in, its last unit once all of it is): the switches of
 * the network are one vertex of the tree (SHARP's reduction inside them costs no time
 * here, as in the flow engine).
 *
 * NVLS across nodes, NVLS with CollNet (sim/nccl.c ft__sim_nvls_collnet(); NVIDIA/nccl
 * src/device/all_reduce.h, the NVLS kernel's branch with nvls->out) runs as an NVLS tree
 * whose tree is CollNet's: the same stages in each node, one copy a head (NCCL's loops,
 * ft_model_nvls_net_chunking(), the flow engine's count), head h sending chunk c of its
 * share up to the fabric's switches (one vertex, as a CollNet's) once it has read it
 * reduced, the switches sending it back down to every node's head h once it has come up
 * from all of them, and the head multicasting it once it is back.
 */
#include "pkt_int.h"

#include <fabtune/model.h>

/*
 * What an edge is: one of a tree (or chain), or a stage of an NVLS tree's node: a rank's
 * part of every head's chunk into the switch (scatter), head h reading its reduced chunk
 * back (read), head h writing the chunk that came down (multicast), every rank receiving
 * every head's (gather).
 */
enum tree_kind { TE_TREE, TE_SCATTER, TE_READ, TE_MCAST, TE_GATHER };

/* One flow of the tree: its legs are connections conn .. conn + nlegs - 1. */
struct tree_edge {
	uint32_t src, dst; /* vertices: the first leg's source, the last leg's destination */
	uint32_t pipe;
	uint32_t dir;
	uint32_t conn, nlegs;
	uint32_t kind; /* enum tree_kind */
	uint32_t copy; /* NVLS stages: the copy (0, 1) of every head they serve */
	uint32_t node; /* NVLS stages: the node, in the order the schedule lists them */
	uint32_t sw;   /* NVLS stages: the switch they meet at, its index in the node's */
	uint32_t flow; /* a plain tree's or chain's: its first flow's index in the phase */
	/* an LL or LL128 chain's hop between nodes: it sends whole steps (wait_msg()) */
	uint32_t whole;
};

struct tree_build {
	struct ring_build rb;
	struct tree_edge *edge;
	uint32_t nedges;
	uint32_t *into_off;  /* [vertices + 3]: vertex v's arrivals are into_off[v] .. [v + 1] - 1 */
	uint32_t *into_edge; /* the edges, grouped by destination, in schedule order */
	/* An NVLS tree: heads per node, nodes (of every channel), messages per copy; per
	 * node its stages' edges (from[k] .. from[k + 1] - 1) and the switch vertices they
	 * meet at (sw[sw_off[k]] .. sw[sw_off[k + 1] - 1]); on a node of several switches,
	 * from lag[lag_off[k]], per way in (0 the scatters, 1 the multicasts), copy, message
	 * and switch, the task done one path latency after that switch has every part sent
	 * into it (PK_NONE: none is). */
	uint32_t heads, nodes, msgs;
	bool collnet; /* a CollNet pipeline: every connection msgs chunks, the switches one vertex */
	/* CollNetDirect's: a loop of an NVLink stage alone and a loop through the network, in
	 * periods of its pace (ft__sim_collnet_stages(); 0: none) */
	double nv, net_loop;
	/* NVLS across nodes (NVLS with CollNet): the NVLS stages of an NVLS tree, one copy
	 * per head (its pipe, the head's label), the fabric's switches one vertex between
	 * the nodes' heads (as a CollNet's); ppn: the ranks of a node */
	bool net;
	uint32_t ppn, groups; /* (groups: the nodes from[] has room for) */
	uint32_t *from;
	uint32_t *sw, *sw_off;
	uint32_t *lag, *lag_off;
	/* A paced plain tree's or chain's: per edge, its stage on a chunk's way (the edges
	 * it waits for one after another, tree_depths()), the deepest in dmax; NULL: all 0. */
	uint32_t *depth, dmax;
	/* A plain tree all-reduce in Simple on NCCL's own channels (nccl_fill()): the model's
	 * pipeline at the op's size, its launched channels (0: none of this) and the phase's
	 * copies */
	struct ft_model_pipeline pl;
	uint32_t pipes;
	uint32_t fill_k; /* the messages of a copy a round (k) where the fill is paced */
	bool fill_clamp; /* a chain's: every loop paced up to the fill's end (nccl_fill()) */
	bool lines; /* a chain in LL or LL128: its steps cut into rounds of lines (chain_lines()) */
	uint32_t reps; /* NCCL's channels a chain's copy runs as (chain_channels()) */
	/* an LL or LL128 chain on fewer channels than the schedule's copies: the copies
	 * that run, 1 .. keep, each with 1 / keep of the bytes (chain_channels()); 0: all */
	uint32_t keep;
	/* an LL chain's pace per rank (rank_pace()): message m >= 1 of an edge's first leg
	 * leaves no sooner than this after message m - 1 left, ps (0: none) */
	uint64_t rank_ps;
};

/* Whether @sc is NVLS across nodes, an all-reduce's NVLS flows beside each head's to the
 * fabric's switches (ft__sim_nvls_across_nodes(), the flow engine's and NCCL's costs' test) */
static bool
nvls_net(const struct ft_schedule *sc)
{
	return sc->op == FT_OP_ALL_REDUCE && ft__sim_nvls_across_nodes(sc);
}

bool
ft__pk_is_tree(const struct pk_engine *e, const struct ft_schedule *sc,
               const struct ft_sched_phase *ph)
{
	bool tree = sc->algo == FT_ALGO_TREE && sc->op == FT_OP_ALL_REDUCE;
	bool chain = ft__sim_chain(sc);
	bool nvls = sc->algo == FT_ALGO_NVLS_TREE && sc->op == FT_OP_ALL_REDUCE;
	bool collnet = sc->algo == FT_ALGO_COLLNET && sc->op == FT_OP_ALL_REDUCE;

	/* (NVLS across nodes runs here alone: ft__pk_submit_tree() refuses it whole) */
	if (!ph->implicit_alltoall && ph->nflows > 0 && nvls_net(sc))
		return true;
	return e->pc.chunking != FT_PKT_CHUNK_OFF && !ph->implicit_alltoall && ph->nflows > 0 &&
	       (tree || chain || nvls || collnet);
}

/* NCCL's nodes the op's ranks are on (ranks in order, node by node; the trays of one
 * NVLink domain are one, ft__sim_over_network()). */
static uint32_t
op_nodes(const struct pk_engine *e, const struct ft_sim_op *op)
{
	uint32_t r, n = 1;

	for (r = 1; r < op->sched->nranks; r++)
		if (ft__sim_over_network(e->topo, op->rank_gpu[r], op->rank_gpu[r - 1]))
			n++;
	return n;
}

/*
 * An NVLS tree's labels (struct ft_sched_flow head): the heads per node (the largest
 * label), the nodes (one per in-node flow of a head 1 before the first network edge: a
 * channel lists its in-node flows, then its trees) and, in @groups, the nodes of every
 * channel; heads 0: not one. NVLS across nodes is labelled alike: its head 1's flow into
 * the switch once a node (its flows to the fabric's switches, net, aside).
 */
static void
nvls_labels(const struct ft_schedule *sc, const struct ft_sched_phase *ph, uint32_t *heads,
            uint32_t *nodes, uint32_t *groups)
{
	bool net = false, nv = sc->algo == FT_ALGO_NVLS_TREE || nvls_net(sc);
	uint32_t f;

	*heads = *nodes = *groups = 0;
	for (f = 0; f < ph->nflows && nv; f++) {
		struct ft_sched_flow fl;
		bool first;

		ft_sched_phase_flow(sc, ph, f, &fl);
		first = fl.dst == FT_SCHED_INNET && fl.head == 1 && !fl.net;
		*heads = FT_MAX(*heads, (uint32_t)fl.head);
		net = net || (fl.src != FT_SCHED_INNET && fl.dst != FT_SCHED_INNET);
		*groups += first;
		*nodes += first && !net;
	}
}

/* The model's links of @sc's spec, for @sc's ranks over @nodes nodes (the chunk rules');
 * zero where the model places no such cluster, its error (out of memory) returned. */
static int
shape_links(const struct pk_engine *e, const struct ft_schedule *sc, uint32_t nodes,
            struct ft_model_links *l)
{
	/* read before the op's first task (pkt_setup.c pipe_read()) */
	if (FT_NEVER(!e->op_pl_read))
		return FT_EINVAL;
	if (e->op_l_ok)
		*l = e->op_l;
	else
		memset(l, 0, sizeof(*l));
	l->nranks = sc->nranks;
	l->nnodes = nodes;
	l->ppn = sc->nranks / FT_MAX(nodes, 1u);
	return 0;
}

/*
 * NCCL's pipeline of an NVLS tree of @heads heads on @nodes nodes
 * (ft_model_nvls_tree_chunking(), on NCCL's NVLS channels of the cluster's GPUs): each
 * copy of a head moves as many chunks one after another as a head's pipeline in one of
 * NCCL's channels does, whatever the schedule's channel count (a schedule of more
 * channels than NCCL's cuts smaller messages, as many in flight at once). NVLS across
 * nodes: NCCL's loops of it (ft_model_nvls_net_chunking(), the flow engine's count), a
 * head's one copy one chunk a loop.
 */
static int
nvls_shape(struct tree_build *tb, const struct pk_engine *e, const struct ft_schedule *sc,
           uint32_t nodes, struct ft_model_chunking *ch)
{
	struct ft_model_links l;
	uint64_t loops;
	int rc = shape_links(e, sc, nodes, &l);

	if (rc < 0)
		return rc;
	l.nrails = tb->heads;
	loops = tb->net ? ft_model_nvls_net_chunking(&l, sc->bytes, ch) :
	                  ft_model_nvls_tree_chunking(&l, sc->bytes, ch);
	tb->msgs = (uint32_t)FT_MIN(loops, (uint64_t)UINT32_MAX / 4);
	return 0;
}

/*
 * NCCL's pipeline of a CollNet all-reduce (ft_model_collnet_chunking(), the count the flow
 * engine's chunks and the model's ramp take; CollNetDirect a head per local rank,
 * CollNetChain one per channel), or @op's pipe_chunks where it sets one: every connection
 * of the phase moves that many chunks one after another.
 */
static int
collnet_shape(struct tree_build *tb, const struct pk_engine *e, const struct ft_sim_op *op,
              uint32_t nodes, struct ft_model_chunking *ch)
{
	const struct ft_schedule *sc = op->sched;
	struct ft_model_links l;
	uint64_t loops;
	int rc = shape_links(e, sc, nodes, &l);

	if (rc < 0)
		return rc;
	loops = ft_model_collnet_chunking(&l, sc->bytes, sc->collnet_chain, ch);
	if (op->pipe_chunks)
		loops = op->pipe_chunks;
	if (e->op_l_ok)
		ft__sim_collnet_stages(&l, op, &tb->nv, &tb->net_loop);
	tb->msgs = (uint32_t)FT_MIN(loops, (uint64_t)UINT32_MAX / 4);
	return 0;
}

/* The switch of NVLS stage @ed: where its part goes in, or where it reads from. */
static uint32_t
stage_switch(const struct tree_edge *ed)
{
	return ed->kind == TE_SCATTER || ed->kind == TE_MCAST ? ed->dst : ed->src;
}

/* The switch vertices each node's stages meet at, and each stage's index among them (a
 * node's edges from[k] .. from[k + 1] - 1 end with its channel's tree edges when it is the
 * channel's last). */
static int
nvls_switches(struct tree_build *tb)
{
	uint32_t k, i, j, n = 0;

	tb->sw = ft_calloc((size_t)tb->nedges + 1, sizeof(uint32_t));
	tb->sw_off = ft_calloc((size_t)tb->nodes + 1, sizeof(uint32_t));
	if (!tb->sw || !tb->sw_off)
		return FT_ENOMEM;
	for (k = 0; k < tb->nodes; k++) {
		tb->sw_off[k] = n;
		for (i = tb->from[k]; i < tb->from[k + 1]; i++) {
			uint32_t v = stage_switch(&tb->edge[i]);

			if (tb->edge[i].kind == TE_TREE) /* (a channel's last node: its trees) */
				continue;
			for (j = tb->sw_off[k]; j < n && tb->sw[j] != v; j++)
				;
			if (j == n)
				tb->sw[n++] = v;
			tb->edge[i].sw = j - tb->sw_off[k];
		}
	}
	tb->sw_off[tb->nodes] = n;
	return 0;
}

/* Switches of node @k. */
static uint32_t
node_switches(const struct tree_build *tb, uint32_t k)
{
	return tb->sw_off[k + 1] - tb->sw_off[k];
}

/* Where the lag task of node @k, way in @w, copy @t, message @m and switch @j is. */
static size_t
lag_at(const struct tree_build *tb, uint32_t k, uint32_t w, uint32_t t, uint32_t m, uint32_t j)
{
	return tb->lag_off[k] + (((size_t)w * 2 + t) * tb->msgs + m) * node_switches(tb, k) + j;
}

/*
 * The lag tasks of the nodes of several switches: for each way in, copy, message and
 * switch that some part goes into, a barrier done one path latency (lat_mult 1: the
 * longest among its parts') after its last part has arrived (@lazy: only where they are,
 * built as they start).
 */
static int
nvls_lags(struct tree_build *tb, uint32_t tag, bool lazy)
{
	uint32_t k, w, t, m, j, i;
	size_t n = 0;

	tb->lag_off = ft_calloc((size_t)tb->nodes + 1, sizeof(uint32_t));
	if (!tb->lag_off)
		return FT_ENOMEM;
	for (k = 0; k < tb->nodes; k++) {
		tb->lag_off[k] = (uint32_t)n;
		if (node_switches(tb, k) > 1)
			n += (size_t)4 * tb->msgs * node_switches(tb, k);
		if (n >= UINT32_MAX)
			return FT_ENOMEM;
	}
	tb->lag_off[tb->nodes] = (uint32_t)n;
	tb->lag = ft_malloc((n + 1) * sizeof(uint32_t));
	if (!tb->lag)
		return FT_ENOMEM;
	memset(tb->lag, 0xff, (n + 1) * sizeof(uint32_t));
	for (k = 0; k < tb->nodes; k++)
		for (i = tb->from[k]; i < tb->from[k + 1] && node_switches(tb, k) > 1; i++) {
			const struct tree_edge *ed = &tb->edge[i];

			if (ed->kind != TE_SCATTER && ed->kind != TE_MCAST)
				continue;
			w = ed->kind == TE_MCAST;
			t = ed->copy;
			j = ed->sw;
			for (m = 0; m < tb->msgs; m++) {
				uint32_t *at = &tb->lag[lag_at(tb, k, w, t, m, j)];
				int64_t b;

				if (*at != PK_NONE)
					continue;
				if (lazy) { /* (built as it may start: 0 says it is there) */
					*at = 0;
					continue;
				}
				b = ft__pk_add_task(tb->rb.e, PK_T_BARRIER, 0, 1.0, tag);
				if (b < 0)
					return FT_ENOMEM;
				*at = (uint32_t)b;
			}
		}
	return 0;
}

/*
 * Connection @c (its messages counted) carrying @bytes of payload at @eff, from the
 * phase's start to its end; 1 when it would carry fewer bytes than messages or take the
 * messages so far (@total) past 2^32.
 */
static int
conn_open(const struct ring_build *rb, struct ring_conn *c, uint64_t bytes, double eff,
          uint32_t total)
{
	c->wire = (uint64_t)((double)bytes / eff + 0.5);
	c->start = rb->start;
	c->end = rb->bar;
	c->qp0 = 0;
	c->nq = ft__pk_conn_qps(rb->e, c->src, c->dst);
	c->up = PK_NONE;
	return c->wire < c->nmsg || (uint64_t)total + c->nmsg >= UINT32_MAX;
}

/* Add the connection and edge of one NVLS stage: @bytes from @src to @dst in the copy's
 * messages; 1 when they would carry fewer bytes than messages. */
static int
nvls_stage(struct tree_build *tb, uint32_t src, uint32_t dst, uint64_t bytes, uint32_t kind,
           uint32_t copy, uint32_t pipe, double eff, uint32_t *nmsg)
{
	struct ring_build *rb = &tb->rb;
	struct ring_conn *c = &rb->c[rb->n];

	c->src = src;
	c->dst = dst;
	c->loops = c->nmsg = tb->msgs;
	c->slices = 1;
	if (conn_open(rb, c, bytes, eff, *nmsg))
		return 1;
	tb->edge[tb->nedges++] = (struct tree_edge){
		.src = src,
		.dst = dst,
		.pipe = pipe,
		.dir = kind == TE_SCATTER || kind == TE_READ ? FT_SCHED_UP : FT_SCHED_DOWN,
		.conn = rb->n,
		.nlegs = 1,
		.kind = kind,
		.copy = copy,
		.node = tb->nodes - 1,
	};
	c->first = *nmsg;
	*nmsg += c->nmsg;
	rb->n++;
	return 0;
}

/*
 * An NVLS tree's in-node flow @fl (from vertex @src to @dst) as its stages, per copy t
 * of every head: into the switch a rank's part of its data (half per copy: a message per
 * step carries its chunk for every head, as NCCL's scatter does) and a head's multicast
 * of its chunk; out of it a head's read of its reduced chunk and every rank's gather. A
 * head's flow carries S + S / heads: the shard, 1 / (heads + 1) of it, goes in its
 * copies pipe and pipe + 1. NVLS across nodes has one copy (no double tree: a channel's
 * loop is a chunk per head, NVIDIA/nccl src/device/all_reduce.h, the NVLS kernel's branch
 * with nvls->out), the whole flow, its shard on the head's pipe. 1 when the flow breaks
 * the labels' rules.
 */
static int
nvls_stages(struct tree_build *tb, const struct ft_sched_flow *fl, uint32_t src, uint32_t dst,
            double eff, uint32_t *nmsg)
{
	uint64_t mine = fl->head ? fl->bytes / (tb->heads + 1) : 0, rest = fl->bytes - mine;
	uint32_t t, n = tb->net ? 1 : 2;
	uint64_t part[2] = { rest / n, rest - rest / n * (n - 1) };
	uint64_t half[2] = { mine / n, mine - mine / n * (n - 1) };
	bool in = fl->dst == FT_SCHED_INNET;
	/* its copies' pipes: an NVLS tree's from the flow's, NVLS across nodes' its head's
	 * (its flows to the fabric's switches are pipe and head h + 1) */
	uint32_t pipe = tb->net ? fl->head : fl->pipe;
	int rc = 0;

	/* a node's in-node flows start with its head 1's; NVLS across nodes lists a node's
	 * ranks in order, from its local rank 0 */
	if (in && (tb->net ? fl->src % FT_MAX(tb->ppn, 1u) == 0 : fl->head == 1)) {
		if (tb->nodes >= tb->groups)
			return 1;
		tb->from[tb->nodes++] = tb->nedges;
	}
	if (tb->nodes == 0 || (fl->head && pipe == 0))
		return 1;
	for (t = 0; t < n && rc == 0; t++) {
		rc = nvls_stage(tb, src, dst, part[t], in ? TE_SCATTER : TE_GATHER, t, 0, eff,
		                nmsg);
		if (rc == 0 && fl->head)
			rc = nvls_stage(tb, src, dst, half[t], in ? TE_MCAST : TE_READ, t, pipe + t,
			                eff, nmsg);
	}
	return rc;
}

/*
 * The connections (one per flow, cut into messages) and the edges (a flow and
 * its relay legs) of phase @ph; 1 when it is not a tree this file can cut
 * (a flow of no tree, a relay that does not carry on, a connection with fewer
 * bytes than messages): nothing was added to the engine.
 */
static int
tree_conns(struct tree_build *tb, const struct ft_sim_op *op, const struct ft_sched_phase *ph,
           double eff, const struct ft_model_chunking *ch, uint32_t *nmsg, struct ft_error *err)
{
	const struct ft_schedule *sc = op->sched;
	struct ring_build *rb = &tb->rb;
	uint32_t f, innet = ft_topo_nvertices(rb->e->topo), reps = FT_MAX(tb->reps, 1u);
	struct ft__sim_phase_chans pc;
	int rc;

	*nmsg = 0;
	ft__sim_phase_chans_get(op, ph, NULL, &pc);
	pc.chain_reps = reps;
	for (f = 0; f < ph->nflows * reps; f++) {
		struct ft_sched_flow fl;
		struct ft__sim_chans chans;
		struct ring_conn *c = &rb->c[rb->n];
		struct tree_edge *ed = tb->nedges ? &tb->edge[tb->nedges - 1] : NULL;
		uint32_t r = f / ph->nflows;

		ft_sched_phase_flow(sc, ph, f % ph->nflows, &fl);
		/* NCCL's channel of the copy's rep r (ft__sim_flow_chans(): a chain copy p's
		 * channel p - 1 + r x pipes; a CollNet's and the flows to the fabric's switches
		 * channel 0, NCCL's one CollNet connection a NIC) */
		chans = ft__sim_flow_chans(op, ph, &pc, &fl, 0);
		if (tb->keep) /* copy p of the launched ones: its 1 / keep of S; the rest none */
			fl.bytes = fl.pipe == 0 || fl.pipe > tb->keep ?
			                   0 :
			                   sc->bytes * fl.pipe / tb->keep -
			                           sc->bytes * (fl.pipe - 1u) / tb->keep;
		if (reps > 1) { /* replica r of the copy: NCCL's channel r of those it stands for */
			fl.bytes = ft__sim_chain_part(fl.bytes, reps, r);
			fl.pipe = fl.pipe ? (uint16_t)((fl.pipe - 1u) * reps + r + 1u) : 0;
		}
		rc = ft__sim_flow_ends(rb->e->topo, sc, op, &fl, &c->src, &c->dst, err);
		if (rc < 0)
			return rc;
		/* (NVLS across nodes: a head's flows to the fabric's switches are a tree's edges
		 * to one vertex, as a CollNet's) */
		if (tb->heads && (fl.src == FT_SCHED_INNET || fl.dst == FT_SCHED_INNET) &&
		    !fl.net) {
			rc = nvls_stages(tb, &fl, c->src, c->dst, eff, nmsg);
			if (rc != 0)
				return rc;
			continue;
		}
		/* CollNetDirect's copy is pipe 0: a CollNet phase's pipes count from 1 here */
		fl.pipe += tb->collnet;
		if (fl.pipe == 0 || fl.dir == 0)
			return 1;
		if (c->src == c->dst || fl.bytes == 0)
			continue;
		c->nic = ft__sim_flow_nic_id(rb->e->topo, &fl, c->src, c->dst);
		/* (NCCL's tree correction, sc->tree_corr, is on the wire alone: NCCL's chunks
		 * cut the bytes it carries) */
		ft__pk_cut(c,
		           sc->tree_corr > 0 && sc->tree_corr < 1 ?
		                   (uint64_t)((double)fl.bytes * sc->tree_corr + 0.5) :
		                   fl.bytes,
		           1, ch);
		if (tb->heads || tb->collnet) { /* NCCL's pipeline's chunks */
			c->loops = c->nmsg = tb->msgs;
			c->slices = 1;
		}
		if (conn_open(rb, c, fl.bytes, eff, *nmsg))
			return 1;
		/* that channel's own QPs (ft__sim_chan_qp0()) */
		c->qp0 = ft__sim_chan_qp0(rb->e->topo, &rb->e->cfg, c->src, c->dst,
		                          chans.chan0 + r * chans.stride, c->nq);
		if (fl.relay) {
			/* a leg of the edge before: it starts where that one has got to */
			if (!ed || ed->dst != c->src || ed->pipe != fl.pipe ||
			    rb->c[ed->conn].nmsg != c->nmsg)
				return 1;
			ed->dst = c->dst;
			ed->nlegs++;
			ed->whole |= tb->lines && ft__sim_over_network(rb->e->topo, c->src, c->dst);
		} else {
			ed = &tb->edge[tb->nedges++];
			/* a CollNet's switches reduce as one: one vertex past the topology's */
			*ed = (struct tree_edge){ .src = fl.src == FT_SCHED_INNET ? innet : c->src,
				                  .dst = fl.dst == FT_SCHED_INNET ? innet : c->dst,
				                  .pipe = fl.pipe,
				                  .dir = fl.dir,
				                  .conn = rb->n,
				                  .nlegs = 1,
				                  .kind = TE_TREE,
				                  .flow = f % ph->nflows,
				                  .whole = tb->lines &&
				                           ft__sim_over_network(rb->e->topo, c->src,
				                                                c->dst) };
		}
		c->first = *nmsg;
		*nmsg += c->nmsg;
		rb->n++;
	}
	return rb->n ? 0 : 1;
}

/* The edges into each vertex (of every tree copy), for tree_waits(); a CollNet's
 * switches are one vertex past the topology's (tree_conns()). */
static int
index_edges(struct tree_build *tb)
{
	uint32_t nv = ft_topo_nvertices(tb->rb.e->topo) + 1, *off, i;

	off = tb->into_off = ft_calloc((size_t)nv + 2, sizeof(uint32_t));
	tb->into_edge = ft_calloc(tb->nedges + 1, sizeof(uint32_t));
	if (!off || !tb->into_edge)
		return FT_ENOMEM;
	for (i = 0; i < tb->nedges; i++)
		off[tb->edge[i].dst + 2]++;
	for (i = 2; i < nv + 2; i++)
		off[i] += off[i - 1];
	/* off[v + 1] is where v's arrivals start; filling moves it to where they end */
	for (i = 0; i < tb->nedges; i++)
		tb->into_edge[off[tb->edge[i].dst + 1]++] = i;
	return 0;
}

/*
 * SHARP's switches stream a CollNet chunk through them: a Quantum switch's streaming
 * aggregation (kb IB-SHARP, SAT) reduces the children's packets as they come and sends the
 * sum down at once, and NCCL's proxy posts a step's send and receive as one iallreduce of
 * the CollNet plugin (NVIDIA/nccl v2.27.7-1 src/transport/coll_net.cc collNetIallreduce()),
 * so the way down of a chunk runs beside its way up, as the flow engine's stages have it
 * (engine_flow.c phase_stages()) and the model's (model/pipeline.c collnet_rounds_s(), one
 * network stage). Here every connection into or out of the fabric's switches (one vertex,
 * tree_conns()) carries a chunk as two messages on one QP: into them its first unit, then
 * the rest; out of them all but its last unit, then that unit. The way down's first
 * message waits for every rank's unit (wait_msg()), so its first byte leaves once the
 * last child's first unit is in, not once its whole chunk is; its last unit waits for
 * every rank's rest, so it never leaves before the last byte it sums has come. A unit is
 * one packet (the engine's MTU): SAT aggregates per packet, and neither the kb nor
 * NVIDIA's SHARP documents give another grain. The switches' own time to reduce a packet is
 * none, as before (the kb gives no aggregation latency or rate). In between, the rest down
 * runs at its own links' rate from the units' arrival: where a child's way up is slower
 * than the way down, it may send bytes before they have come up (only its last unit
 * waits for them all; sim.md Limits). Leaves the phase whole (every chunk one message) where
 * a chunk of a connection would be under two units, a relay leg crosses the switches' edge,
 * or the messages would pass 2^32. Sets @nmsg to the phase's messages.
 */
static void
stream_switch(struct tree_build *tb, uint32_t *nmsg)
{
	struct ring_build *rb = &tb->rb;
	uint32_t innet = ft_topo_nvertices(rb->e->topo), i, j, lead = rb->e->mtu;
	uint64_t n = 0;

	if (!tb->collnet || tb->heads || lead == 0)
		return;
	for (i = 0; i < tb->nedges; i++) {
		const struct tree_edge *ed = &tb->edge[i];

		if (ed->src != innet && ed->dst != innet)
			continue;
		for (j = 0; j < ed->nlegs; j++) {
			const struct ring_conn *c = &rb->c[ed->conn + j];

			if (ed->nlegs > 1 || c->nmsg == 0 || c->wire / c->nmsg < 2ull * lead)
				return;
		}
	}
	for (i = 0; i < tb->nedges; i++) {
		const struct tree_edge *ed = &tb->edge[i];

		if (ed->src != innet && ed->dst != innet)
			continue;
		rb->c[ed->conn].lead_at = ed->dst == innet ? PK_LEAD_FIRST : PK_LEAD_LAST;
	}
	for (i = 0; i < rb->n; i++)
		n += (uint64_t)rb->c[i].nmsg * (rb->c[i].lead_at ? 2u : 1u);
	if (n >= UINT32_MAX) {
		for (i = 0; i < rb->n; i++)
			rb->c[i].lead_at = PK_LEAD_NONE;
		return;
	}
	for (i = 0, n = 0; i < rb->n; i++) {
		struct ring_conn *c = &rb->c[i];

		c->nmsg *= c->lead_at ? 2u : 1u;
		c->lead = c->lead_at ? lead : 0;
		c->first = (uint32_t)n;
		n += c->nmsg;
	}
	*nmsg = (uint32_t)n;
}

/* The arrival task of message @m (or its last) of edge @f's last leg. */
static uint32_t
arrival(const struct tree_build *tb, const struct tree_edge *f, uint32_t m)
{
	const struct ring_conn *c = &tb->rb.c[f->conn + f->nlegs - 1];

	return tb->rb.recv[c->first + FT_MIN(m, c->nmsg - 1)];
}

/*
 * A wait of a message m of an edge's first leg (see tree_waits()): on message m of
 * connection @conn's arrival, or (@conn PK_NONE) on the lag task at @lag + m x @nsw (its
 * node's, lag_at() at m = 0, the node's switches).
 */
typedef int (*wait_fn)(void *ctx, uint32_t conn, size_t lag, uint32_t nsw);

/*
 * What message m of edge @ed's first leg waits for, besides its own connection's slots and
 * QP and the phase's start, each told to @fn in the order the graph adds them. Going up a
 * tree, chunk m from every child; going down, chunk m from the parent, or at the root (no
 * parent) chunk m from every child. NVLS stages: head h reads chunk m once every rank's
 * part has reached the switch, a rank gathers it once every head's multicast has; a part
 * that went into the switch it reads from counts at once, one that went into another
 * switch of the node one path latency later (its switch's lag task). The multicast itself
 * waits as a tree edge does; a part into the switch waits for nothing more.
 */
static int
tree_waits(const struct tree_build *tb, const struct tree_edge *ed, wait_fn fn, void *ctx)
{
	uint32_t lo = tb->into_off[ed->src], hi = tb->into_off[ed->src + 1], i, j, k, nsw, w;
	uint32_t want = FT_SCHED_UP;
	int rc = 0;

	if (ed->kind == TE_TREE || ed->kind == TE_MCAST) {
		for (i = lo; i < hi && ed->dir == FT_SCHED_DOWN; i++)
			if (tb->edge[tb->into_edge[i]].pipe == ed->pipe &&
			    tb->edge[tb->into_edge[i]].dir == FT_SCHED_DOWN)
				want = FT_SCHED_DOWN;
		for (i = lo; i < hi && rc == 0; i++) {
			const struct tree_edge *f = &tb->edge[tb->into_edge[i]];

			if (f->pipe == ed->pipe && f->dir == want)
				rc = fn(ctx, f->conn + f->nlegs - 1, 0, 0);
		}
		return rc;
	}
	if (ed->kind == TE_SCATTER) /* its lag: lag_parts() */
		return 0;
	k = ed->node;
	nsw = node_switches(tb, k);
	w = ed->kind == TE_GATHER;
	want = w ? TE_MCAST : TE_SCATTER;
	for (i = tb->from[k]; i < tb->from[k + 1] && rc == 0; i++)
		if (tb->edge[i].kind == want && tb->edge[i].copy == ed->copy &&
		    tb->edge[i].sw == ed->sw)
			rc = fn(ctx, tb->edge[i].conn + tb->edge[i].nlegs - 1, 0, 0);
	for (j = 0; j < nsw && nsw > 1 && rc == 0; j++) {
		size_t at = lag_at(tb, k, w, ed->copy, 0, j);

		if (j != ed->sw && tb->lag[at] != PK_NONE)
			rc = fn(ctx, PK_NONE, at, nsw);
	}
	return rc;
}

/*
 * The message of connection @up that message @m of edge @ed's first leg waits for: its own
 * index (or @up's last, where @up has fewer); where either carries a chunk as two messages
 * (stream_switch()), the same message when both do, the second of @up's two of @m's
 * chunk (the chunk whole) when @up alone does, @up's message of @m's chunk when @ed's
 * connection alone does; or on a hop of an LL or LL128 chain between
 * nodes (ed->whole) the last of @up's step: the send proxy posts the step as one message
 * once all of it has come (src/transport/net.cc sendProxyProgress), the rule of the model's
 * ramp (net_hops()). In LL128 it learns so from the connection's tail, which the GPU
 * raises after the step's closing barrier (src/device/prims_ll128.h GenericOp, postSend);
 * in LL the proxy itself polls the flag of every line of the step (sendProxyProgress, its
 * test for NCCL_PROTO_LL), which a step's last line ends alike.
 */
static uint32_t
wait_msg(const struct tree_build *tb, const struct tree_edge *ed, const struct ring_conn *up,
         uint32_t m)
{
	const struct ring_conn *c = &tb->rb.c[ed->conn];
	uint64_t last;

	/* streamed through the fabric's switches (stream_switch()): a chunk's two messages out
	 * of them wait for their two into them; anything else for the whole chunk */
	if (c->lead_at && up->lead_at)
		return FT_MIN(m, up->nmsg - 1);
	if (up->lead_at)
		return FT_MIN(2 * ft__pk_msg_chunk(c, m) + 1, up->nmsg - 1);
	if (!ed->whole)
		return FT_MIN(ft__pk_msg_chunk(c, m), up->nmsg - 1);
	last = ((uint64_t)(m / c->slices) + 1) * up->slices - 1;
	return (uint32_t)FT_MIN(last, (uint64_t)up->nmsg - 1);
}

/* A wait of message @m of edge @ed into its send @to, in the whole graph. */
struct wait_dep {
	const struct tree_build *tb;
	const struct tree_edge *ed;
	uint32_t m, to;
};

static int
wait_dep(void *ctx, uint32_t conn, size_t lag, uint32_t nsw)
{
	const struct wait_dep *w = ctx;
	const struct tree_build *tb = w->tb;
	uint32_t from;

	if (conn == PK_NONE) {
		from = tb->lag[lag + (size_t)w->m * nsw];
	} else {
		const struct ring_conn *c = &tb->rb.c[conn];

		from = tb->rb.recv[c->first + wait_msg(tb, w->ed, c, w->m)];
	}
	return ft__pk_add_dep(tb->rb.e, from, w->to) < 0 ? FT_ENOMEM : 0;
}

/*
 * Every part into a switch of a node of several (its messages' arrivals) into its lag
 * task, before any other wait on them is added: a flow's barriers come before the flows
 * it starts, as a run split across MPI ranks tells them (pkt_part.c).
 */
static int
lag_parts(const struct tree_build *tb)
{
	uint32_t i, m;

	for (i = 0; i < tb->nedges; i++) {
		const struct tree_edge *ed = &tb->edge[i];

		if ((ed->kind != TE_SCATTER && ed->kind != TE_MCAST) ||
		    node_switches(tb, ed->node) < 2)
			continue;
		for (m = 0; m < tb->msgs; m++)
			if (ft__pk_add_dep(tb->rb.e, arrival(tb, ed, m),
			                   tb->lag[lag_at(tb, ed->node, ed->kind == TE_MCAST,
			                                  ed->copy, m, ed->sw)]) < 0)
				return FT_ENOMEM;
	}
	return 0;
}

/* Edge @ed's stage (tree_depths()): loop m of its first leg is paced at (m + it) periods. */
static uint32_t
edge_depth(const struct tree_build *tb, const struct tree_edge *ed)
{
	return tb->depth ? tb->depth[ed - tb->edge] : 0;
}

static uint32_t pace_of(const struct tree_build *tb, uint32_t m, uint32_t s);

/* The messages in flight on connection @c: @slots steps of NCCL_STEPS, in an LL or LL128
 * chain (chain_lines()) as many messages as that many of its steps hold. */
static uint32_t
conn_slots(const struct tree_build *tb, const struct ring_conn *c, uint32_t slots)
{
	uint64_t n = (uint64_t)slots * (tb->lines ? c->slices : 1u) * (c->lead_at ? 2u : 1u);

	return (uint32_t)FT_MIN(n, (uint64_t)UINT16_MAX);
}

/* The dependencies into every message of edge @ed's legs, @slots steps in flight on each
 * (conn_slots()). */
static int
link_edge(const struct tree_build *tb, const struct tree_edge *ed, uint32_t slots)
{
	const struct ring_build *rb = &tb->rb;
	uint32_t j, m, s = edge_depth(tb, ed);
	int rc = 0;

	for (j = 0; j < ed->nlegs && rc == 0; j++) {
		const struct ring_conn *c = &rb->c[ed->conn + j];
		uint32_t nq = rb->e->pc.split_data_on_qps ? 1 : c->nq / ft__pk_conn_lanes(rb->e, c);
		uint32_t cs = conn_slots(tb, c, slots);

		for (m = 0; m < c->nmsg && rc == 0; m++) {
			uint32_t to = rb->ready[c->first + m];
			/* (its chunk: a streamed connection's two messages share one, on one
			 * QP, stream_switch()) */
			uint32_t k = ft__pk_msg_chunk(c, m);

			struct wait_dep w = { tb, ed, m, to };

			if (j > 0) /* a relay forwards what has arrived */
				rc = ft__pk_add_dep(rb->e, rb->recv[c[-1].first + m], to);
			else
				rc = tree_waits(tb, ed, wait_dep, &w);
			if (rc == 0 && j == 0 && rb->pace && pace_of(tb, k, s) > 0) {
				rc = ft__pk_add_dep(rb->e, rb->pace[pace_of(tb, k, s) - 1], to);
				/* (the last pace: held where it is its last wait, pkt_flow.c
				 * barrier_feeds()) */
				if (pace_of(tb, k, s) + 1 == rb->pace_msgs)
					ft__pk_mark_paced(rb->e, to);
			}
			if (rc == 0 && m >= cs)
				rc = ft__pk_add_dep(rb->e, rb->recv[c->first + m - cs], to);
			/* The first message on each QP waits for the phase; the others follow it. */
			if (rc == 0 && (!c->lead_at || m % 2 == 0) && k < nq)
				rc = ft__pk_add_dep(rb->e, c->start, to);
		}
	}
	return rc < 0 ? FT_ENOMEM : 0;
}

/*
 * An LL chain's pace per rank (@tb rank_ps). NCCL's rank of a ring broadcast or reduce
 * moves its channel's lines itself: each thread polls its 16-byte line until the flag
 * comes (readLL()) and stores it to the next rank (storeLL()), round after round of the
 * channel's threads (NVIDIA/nccl v2.27.7-1 src/device/prims_ll.h LLGenericOp(), called
 * once a chunk by runRing() in src/device/broadcast.h and reduce.h), so a rank passes
 * rounds on no faster than its channel's LL pace, wherever they came from. The op's cap
 * paces message m of every hop m periods after the phase's start (cap_pace(): a period
 * the op's S over the model's LL algbw on the launched channels, ft_model_kernel_algbw(),
 * a message: one round at one channel's pace, the rate the model's ramp takes,
 * model/pipeline.c ll_ramp()); a hop between nodes waits for its whole step (wait_msg())
 * and, with that pace alone, its rank and those after it passed the step's rounds on at
 * the links' rate, the cap's periods long past: each crossing paid no ramp, where the
 * model's charges (step - round) at the channel's pace on each (2 DGX A100 64 KiB: 7 x
 * 0.68 us). Here message m >= 1 of an edge's first leg also waits until a period after
 * message m - 1 of that leg started (rank_edge()), so a rank's rounds leave a period
 * apart, as the model's and NCCL's do; before a crossing the cap's pace holds them so
 * already. LL only: the model's LL128 ramp is another (a grain a stage and the step less
 * a grain a crossing, ll128_ramp()), its rows left as they were. 0 where the op has no
 * cap.
 */
static void
rank_pace(struct tree_build *tb, const struct ft_schedule *sc)
{
	bool on = ft__sim_chain(sc) && sc->proto == FT_PROTO_LL && tb->lines;

	tb->rank_ps = on ? tb->rb.pace_ps : 0;
}

/*
 * Edge @ed's pace per rank (rank_pace()), built whole: message m >= 1 of its first leg
 * waits for message m - 1's start to tell it, rank_ps later (ft__pk_pace_next(),
 * pkt_flow.c start_flow(); the period in its own task's delay_ps, unread on a flow's),
 * with no task between: a barrier between flows would hold a run split across MPI ranks
 * (pkt_part.c: "a flow starts a barrier after a flow"), where its source's rank alone
 * tells it, as it tells a QP's next message (sent_task). A message split over a GPU's
 * NICs or its QPs (its own barriers, pkt_nccl.c add_message()) takes the pace part by part
 * as its parts are built (rank_conns(), pkt_nccl.c rank_part()).
 */
static int
rank_edge(const struct tree_build *tb, const struct tree_edge *ed)
{
	const struct ring_build *rb = &tb->rb;
	const struct ring_conn *c = &rb->c[ed->conn];
	struct pk_engine *e = rb->e;

	for (uint32_t m = 1; m < c->nmsg; m++) {
		uint32_t from = rb->ready[c->first + m - 1], to = rb->ready[c->first + m];

		if (pk_task_kind(e, from) != PK_T_FLOW || pk_task_kind(e, to) != PK_T_FLOW)
			continue;
		if (ft__pk_pace_set(e, task_at(e, from)->flow, to) < 0)
			return FT_ENOMEM;
		task_at(e, to)->delay_ps = tb->rank_ps;
		task_at(e, to)->npred++;
	}
	return 0;
}

/*
 * The pace per rank of @tb's split messages (rank_pace()), built whole: every edge's first
 * leg is marked for pkt_nccl.c add_message(), whose rank_part() has part k of message
 * m >= 1 wait for part k of message m - 1's start, rank_ps later, as rank_edge() has a
 * whole message wait for the one before. A lazy build cuts no message into parts
 * (build_message()).
 */
static void
rank_conns(struct tree_build *tb)
{
	tb->rb.rank_ps = tb->rank_ps;
	for (uint32_t i = 0; i < tb->nedges && tb->rank_ps; i++)
		tb->rb.c[tb->edge[i].conn].rank_paced = 1;
}

uint32_t
ft__pk_pace_next(const struct pk_engine *e, uint32_t fid)
{
	return fid < e->pace_next.len ? FT_VEC_AT(&e->pace_next, uint32_t, fid) : PK_NONE;
}

int
ft__pk_pace_set(struct pk_engine *e, uint32_t fid, uint32_t u)
{
	uint32_t none = PK_NONE;

	if (u == PK_NONE && fid >= e->pace_next.len)
		return 0;
	while (e->pace_next.len <= fid)
		if (ft_vec_push(&e->pace_next, &none) < 0)
			return FT_ENOMEM;
	FT_VEC_AT(&e->pace_next, uint32_t, fid) = u;
	return 0;
}

/* What a tree build holds (its connections, edges, nodes, switches and lag layout). */
static void
tree_release(struct tree_build *tb)
{
	void *const arrays[] = { tb->lag,      tb->lag_off,   tb->sw,   tb->sw_off, tb->from,
		                 tb->edge,     tb->into_off,  tb->into_edge, tb->depth };

	ft__free_all(arrays, FT_ARRAY_SIZE(arrays));
	ft__pk_build_release(&tb->rb);
}

/* The period of @loops loops of phase @ph at @op's cap (wire bytes at @eff), ps, rounded;
 * 0 where it rounds to nothing or where @slots periods (the last barrier's time, m x
 * period for m < slots) would not fit in 64 bits. */
static uint64_t
cap_period_ps(const struct ft_sim_op *op, const struct ft_sched_phase *ph, double eff,
              uint32_t loops, uint32_t slots)
{
	double period = ft__sim_cap_period_s(op, ph, eff, loops) * PK_PS_PER_S;

	return period >= 1 && period < (double)UINT64_MAX / FT_MAX(slots, 1u) ?
	               (uint64_t)(period + 0.5) :
	               0;
}

/*
 * NCCL's caps on a channel (the op's conn_cap_Bps, the tightest the runner found: the
 * per-channel tree and NVLSTree caps of ft__sim_tree_cap(), kb NA-MODEL perChMaxTreeBws,
 * NA-ALGO-NVLS perChMaxNVLSTreeBws; a forced channel count's share of the graph,
 * ft__sim_channel_cap(); the LL and LL128 kernels' rates, ft__sim_kernel_cap(), kb
 * NA-PROTO-LL, NA-PROTO-LL128) are the rate a channel's kernel moves its loops at, not a
 * link's: its warps take one loop after another (NVIDIA/nccl v2.27.7-1
 * src/device/all_reduce.h, the tree and NVLS tree kernels' loops over elemOffset;
 * prims_ll.h and prims_ll128.h move a loop's slices at the protocol's pace), so at the
 * cap a channel starts loop m no earlier than m periods after its first, a period the
 * largest connection's chunk at the cap, S / (algbw x k) for k loops. The flow engine
 * caps each connection's rate so (engine_flow.c); here loop m of every edge's first leg at
 * stage s waits for (m + s) periods after the phase's start (cap_pace()), an NVLS tree's
 * or CollNet pipeline's loop m for m periods. An NVLS tree's or CollNet pipeline's loops
 * are its msgs; a plain tree's or chain's, its connections' messages (the most of any
 * edge's first leg, into msgs). The period of @msgs loops of phase @ph at @op's cap (wire
 * bytes at @eff), ps; 0 without a cap, in one loop, or where it rounds to nothing.
 */
uint64_t
ft__pk_cap_period_ps(const struct ft_sim_op *op, const struct ft_sched_phase *ph, double eff,
                     uint32_t msgs)
{
	return msgs < 2 ? 0 : cap_period_ps(op, ph, eff, msgs, msgs);
}

/*
 * The stage of every edge of a plain tree or chain (@tb's depth, the deepest in dmax), its
 * first flow's in phase @ph of @op's schedule as built (ft__sim_tree_depths(), nccl.c: 0
 * where it waits for no other edge, else one past the deepest it waits for, as
 * tree_waits() has it wait), the count the flow engine's fill takes too (engine_flow.c
 * whole_pipe()). On a tree of 2 DGX H100 (a chain of 8 in each node, one hop between the
 * nodes) the deepest way down is stage 15: 16 stages, the model's 2 (ppn - 1 + log2
 * nodes); from 4 nodes on the schedule has a hop more a level (NCCL's child0Index).
 */
static int
tree_depths(struct tree_build *tb, const struct ft_sim_op *op, const struct ft_sched_phase *ph,
            uint32_t stride)
{
	uint32_t *fd = ft_calloc((size_t)ph->nflows + 1, sizeof(uint32_t)), stages, i;
	int rc;

	tb->depth = ft_calloc((size_t)tb->nedges + 1, sizeof(uint32_t));
	rc = fd && tb->depth ? ft__sim_tree_depths(op->sched, ph, fd, &stages) : FT_ENOMEM;
	tb->dmax = 0;
	for (i = 0; i < tb->nedges && rc == 0; i++) {
		tb->depth[i] = fd[tb->edge[i].flow] * stride;
		tb->dmax = FT_MAX(tb->dmax, tb->depth[i]);
	}
	ft_free(fd);
	return rc;
}

/*
 * @tb's pace from @op's cap for phase @ph (wire bytes at @eff): its period and the loops it
 * counts. A plain tree's or chain's edge at stage s (tree_depths()) starts loop m no
 * earlier than (m + s) periods after the phase's start: at the cap every stage is a
 * kernel moving one chunk a period (NVIDIA/nccl v2.27.7-1 src/device/all_reduce.h
 * runTreeSplit(): each rank's up and down threads loop over the channel's chunks, a
 * chunk once it has come from the children or the parent), so loop m reaches stage s
 * s periods after it left the first, and the pipeline takes (loops + stages - 1)
 * periods, NCCL's fill at the cap (kb NA-ALGO-TREE). An NVLS tree's and CollNet
 * pipeline's loops keep the one pace (their stages are warps of one kernel). NVLS across
 * nodes is paced at NCCL's price with its 4 stages (net_depths()), as the flow engine and
 * the model's pipeline pace it: without them it ended (L - 1) P plus one loop's way, 3
 * periods short of the flow engine's (L + 2) P and more (17 % at L = 16).
 */
/*
 * NVLS across nodes' stages (@tb's depth), in the order a loop's data takes them, each
 * moving a loop a period at the cap (NCCL's price, ft__sim_nvls_net_cap()): a rank's
 * scatter and a head's read 0, a head's way up to the fabric's switches 1, their way back
 * down 2, the multicast and every rank's gather 3. As many stages as the flow engine's
 * pace has (4), not its numbering: engine_flow.c phase_stages() labels the flows by its
 * own rules (the multicast at 0, the read at 3), so a flow's stage there need not be its
 * stage here.
 */
#define NET_DMAX 3u /* the last of those stages */

static int
net_depths(struct tree_build *tb)
{
	tb->depth = ft_calloc((size_t)tb->nedges + 1, sizeof(uint32_t));
	if (!tb->depth)
		return FT_ENOMEM;
	for (uint32_t i = 0; i < tb->nedges; i++) {
		const struct tree_edge *ed = &tb->edge[i];

		tb->depth[i] = ed->kind == TE_TREE   ? (ed->dir == FT_SCHED_UP ? 1 : 2) :
		               ed->kind == TE_MCAST  ? 3 :
		               ed->kind == TE_GATHER ? 3 :
		                                       0;
	}
	tb->dmax = NET_DMAX;
	return 0;
}

/*
 * A plain tree all-reduce in Simple on NCCL's own channels follows the model's pipeline
 * (model/pipeline.c ft__model_pipe(); the flow engine's: its flows, then the model's ramp,
 * engine_flow.c whole_pipe()). NCCL runs its launched channels' chunks side by side
 * (NVIDIA/nccl v2.27.7-1 src/device/all_reduce.h runTreeSplit(): every channel's block
 * moves one chunk a stage; src/enqueue.cc: the chunk), so a round of the pipeline is those
 * chunks, the model's round; the phase's copies (two a channel of the schedule) stand for
 * k = launched / copies of NCCL's channels each, so a round is k of a copy's messages.
 * (k is that quotient truncated: only whole channels a copy are covered; 24 launched over
 * 16 copies, or fewer launched than copies, take k = 1.)
 * The first round goes through the stages at the model's stage rates: its fill_s over the
 * schedule's S stages (tree_depths()), F a stage, so message m < k of an edge at stage
 * s < S - 1 starts no earlier than (s + m / k) F; at the last stage the pace index m + s
 * passes the fill's (S - 1) k (ft__pk_pace_at()), so message m there waits for (S - 1) F
 * and m periods of the op's cap ((S - 1) F alone without one), not (S - 1 + m / k) F;
 * and, as the model adds its ramp to the loops' time
 * at their rate, the loops after it start once that round has reached the last stage
 * ((S - 1) F), message m >= k no earlier than that plus (m - k + 1) periods of the op's
 * cap where it has one, the links holding them otherwise (pace_of()). So the op takes the
 * model's fill less a stage, (S - 1) F, plus its loops after the first at the links'
 * rate, plus the last round's way out: the flow engine's ramp and flows less one loop's
 * overlap.
 * A chain (a broadcast's or reduce's, Simple) paces every round that way to the fill's end:
 * loop m of an edge at stage s no earlier than min(s + m / k, S - 1) F, each round a stage
 * behind the one before as in the model's pipeline (a round a stage a period:
 * ft__model_pipe()'s Simple ramp), then the links alone. Every rank of NCCL's ring
 * broadcast or reduce but the chain's last forwards every chunk of its channel, one a
 * loop (NVIDIA/nccl v2.21.5-1 and v2.27.7-1 src/device/broadcast.h and reduce.h
 * runRing(): recvCopySend, recvReduceSend once a chunk), so its rounds follow one another
 * down the chain and none waits at the first stage for the first to reach the last. With
 * the tree's rule the chain's first stage (the root's hop, seven copies on the root's
 * NVLink on 2 DGX H100) sent 14 of a copy's 16 messages after the fill's end and the last
 * of them crossed the 14 stages after it once more at the links' rate, 109 us: the ramp
 * twice, +15.4 % over the flow engine at 64 MiB. Every round at the fill's pace on every
 * stage held the chain to the model's round where the links are faster (+4.1 % at 256
 * MiB there). Pacing at F up to the fill's end follows the model's pipeline, not a rule
 * of NCCL's: its source bears out only that no round waits at the first stage, and its
 * tree kernel forwards without waiting too (v2.21.5-1 src/device/all_reduce.h
 * runTreeSplit(): recvReduceSend, directRecvCopySend once a chunk). A tree keeps
 * its rule: this one put a tree all-reduce in Simple at 64 MiB 9 to 26 % under the flow
 * engine (2 DGX B200 at 2.18 -9 %, 2 DGX H100 at 2.27 -26 %; sim.md), as pacing the fill
 * alone did.
 * @tb pl holds the model's pipeline (nchannels not 0).
 */
static int
nccl_fill(struct tree_build *tb, const struct ft_sim_op *op, const struct ft_sched_phase *ph)
{
	const struct ft_model_pipeline *pl = &tb->pl;
	uint32_t k = FT_MAX(pl->nchannels / FT_MAX(tb->pipes, 1u), 1u), n;
	double f;

	if (tree_depths(tb, op, ph, k) < 0)
		return FT_ENOMEM;
	n = tb->dmax;
	f = pl->fill_s / (n / k + 1) / k * PK_PS_PER_S;
	if (n == 0 || !(f >= 1) || f > (double)UINT32_MAX * 1e6 / n) {
		/* (no fill to pace: the cap's one pace, if any, on every stage) */
		ft_free(tb->depth);
		tb->depth = NULL;
		tb->dmax = 0;
		return 0;
	}
	tb->rb.fill_n = n;
	tb->rb.fill_ps = (uint64_t)(f + 0.5);
	if (ft__sim_chain(op->sched)) {
		/* a chain: every loop at the fill's pace up to its end, loop m at stage s at
		 * pace min(m + s, n) (above), the last pace the fill's end; on NCCL's channels
		 * in Simple it has no cap to pace after it (the runner's are forced channels',
		 * trees' and LL's, LL128's): one added later would be dropped here */
		if (FT_NEVER(tb->rb.pace_ps))
			return FT_EINVAL;
		tb->fill_clamp = true;
		tb->rb.pace_msgs = n + 1;
	} else {
		/* the last pace: the first round's at the last stage, or the last loop's
		 * after it */
		tb->fill_k = k;
		tb->rb.pace_msgs =
			n + FT_MAX(FT_MIN(k, tb->msgs), tb->msgs > k ? tb->msgs - k + 1 : 0);
	}
	tb->rb.e->staged = true;
	return 0;
}

/* The pace message @m of an edge at stage @s (tree_depths()) waits for (0: none): m + s,
 * or in a tree's fill on NCCL's channels (nccl_fill()) the fill's end and m - k + 1 after
 * it for m >= k, in a chain's m + s up to the fill's end. */
static uint32_t
pace_of(const struct tree_build *tb, uint32_t m, uint32_t s)
{
	if (tb->fill_clamp)
		return FT_MIN(m + s, tb->rb.fill_n);
	if (!tb->rb.fill_n || m < tb->fill_k)
		return m + s;
	return tb->rb.fill_n + m - tb->fill_k + 1;
}

/*
 * CollNetDirect's first rounds (@tb nv, net_loop: ft__sim_collnet_stages(), the model's
 * collnet_rounds_s()): NCCL's kernel runs the scatter, the heads' way through the network
 * and the broadcast as warp groups of their own (NVIDIA/nccl src/device/all_reduce.h,
 * RunWork / RunWorkColl for NCCL_ALGO_COLLNET_DIRECT, v2.21.5-1 and v2.27.7-1), and its
 * price, the pace, counts the scatter and the broadcast on the GPU's NVLink together. In
 * the first round the scatter runs alone (nv periods), in the second beside the network
 * alone (max(nv, net) periods): the scatter's loop 2, the first with every stage busy,
 * starts after nv + max(nv, net) periods, not 2; loop m after that plus m - 2 periods.
 * Paced so, loop by loop: pace 1 at nv periods (rb.first_ps), pace 2 at nv + max(nv,
 * net) (a fill of two rounds, fill_ps half of it), every loop's (fill_k = msgs: no stage
 * offsets, pace_of() m). The drain needs nothing: past the last pace the links alone hold
 * the broadcast's last loops. Before, loop m waited m periods: on 4 DGX H100 with SHARP at
 * 16 MiB (3 loops) the scatter's last loop started a period late, 16 % over the model. Two
 * loops take the first round so too (pace 1 at nv periods; no pace 2): the scatter's warps
 * start loop 1 once loop 0 is scattered, however many loops follow. Before, two loops kept
 * a whole period: 8 MiB on those nodes 107.02 us against the model's 93.94 (+13.9 %), where
 * 4 and 16 MiB ran 6.5 and 5.8 % under it; now 88.96 (-5.3 %).
 */
static int
collnet_fill(struct tree_build *tb)
{
	double two = tb->nv + FT_MAX(tb->nv, tb->net_loop);
	double f = two / 2 * (double)tb->rb.pace_ps;
	double one = tb->nv * (double)tb->rb.pace_ps;

	if (!(tb->nv > 0) || tb->msgs < 2 || !(two < 2) || !(f >= 1) || !(one >= 1))
		return 0;
	tb->rb.fill_n = 2;
	tb->rb.fill_ps = (uint64_t)(f + 0.5);
	tb->rb.first_ps = FT_MIN((uint64_t)(one + 0.5), 2 * tb->rb.fill_ps);
	tb->fill_k = tb->msgs;
	return 0;
}

/*
 * An LL tree all-reduce's crossings (@tb lines, LL): each hop between nodes waits for its
 * whole step (wait_msg()), and the rank past it stores the step on at its channel's LL
 * pace again, which the proxy of the next crossing waits for whole in turn: NCCL's LL
 * kernel moves every rank's lines at that pace (NVIDIA/nccl v2.27.7-1 src/device/prims_ll.h
 * LLGenericOp(), called once a chunk by all_reduce.h runTreeUpDown() / runTreeSplit()),
 * and the send proxy posts nothing until every line of the step has its flag
 * (src/transport/net.cc sendProxyProgress()). The model's LL ramp charges each crossing
 * so, the step less the round at one channel's pace (model/pipeline.c ll_ramp(), kb
 * NA-PROTO-LL). So an edge with c crossings before it on its way (through the edges it
 * waits for, tree_waits()) starts loop m no earlier than (m + c (slices - 1)) periods of
 * the cap: a step's other slices after its first one. Without it the pace let message m
 * of every hop leave m periods after the phase's start, so the rank past the first
 * crossing, whose step came whole, sent it on at the links' rates at once and every
 * crossing but the first cost nothing: 2 DGX H100 at 1 MiB 121.62 us against the flow
 * engine's 161.07 (-24.5 %), 4 DGX H100 -41 %.
 */
struct cross_ctx {
	const struct tree_build *tb;
	const uint32_t *edge_of, *cnt;
	uint32_t most;
};

static int
cross_wait(void *ctx, uint32_t conn, size_t lag, uint32_t nsw)
{
	struct cross_ctx *x = ctx;
	uint32_t f;

	(void)lag;
	(void)nsw;
	if (conn == PK_NONE || conn >= x->tb->rb.n || (f = x->edge_of[conn]) == PK_NONE)
		return 0;
	x->most = FT_MAX(x->most, x->cnt[f] + (x->tb->edge[f].whole ? 1u : 0u));
	return 0;
}

static uint32_t
cross_periods(const struct tree_build *tb)
{
	const struct ft_model_pipeline *pl = &tb->rb.e->op_pl;
	double n = pl->ramp_s / pl->net_hops * PK_PS_PER_S / (double)tb->rb.pace_ps;

	return n > 0 && n < (double)UINT16_MAX ? (uint32_t)(n + 0.5) : 0;
}

static int
ll_cross_depths(struct tree_build *tb, const struct ft_schedule *sc)
{
	uint32_t *edge_of, *cnt, i, pass, slices = 1, per;
	bool moved = true;

	if (!tb->lines || sc->proto != FT_PROTO_LL || sc->algo != FT_ALGO_TREE || tb->heads ||
	    tb->collnet || !tb->rb.pace_ps || tb->depth)
		return 0;
	edge_of = ft_calloc((size_t)tb->rb.n + 1, sizeof(uint32_t));
	cnt = ft_calloc((size_t)tb->nedges + 1, sizeof(uint32_t));
	if (!edge_of || !cnt) {
		ft_free(edge_of);
		ft_free(cnt);
		return FT_ENOMEM;
	}
	for (i = 0; i < tb->rb.n; i++)
		edge_of[i] = PK_NONE;
	for (i = 0; i < tb->nedges; i++) {
		edge_of[tb->edge[i].conn + tb->edge[i].nlegs - 1] = i;
		slices = FT_MAX(slices, tb->rb.c[tb->edge[i].conn].slices);
	}
	/* (a tree has no cycle: at most nedges passes settle every count) */
	for (pass = 0; pass <= tb->nedges && moved; pass++) {
		moved = false;
		for (i = 0; i < tb->nedges; i++) {
			struct cross_ctx x = { tb, edge_of, cnt, 0 };

			(void)tree_waits(tb, &tb->edge[i], cross_wait, &x);
			if (x.most != cnt[i]) {
				cnt[i] = x.most;
				moved = true;
			}
		}
	}
	/* (a step's messages: its slices, or all of a connection's where it is less; in
	 * periods, the model's ramp of a crossing where the engine read it) */
	per = FT_MAX(FT_MIN(slices, tb->msgs), 1u) - 1;
	if (tb->rb.e->op_pl_read && tb->rb.e->op_pl.net_hops > 0)
		per = cross_periods(tb);
	tb->dmax = 0;
	for (i = 0; i < tb->nedges; i++) {
		cnt[i] *= per;
		tb->dmax = FT_MAX(tb->dmax, cnt[i]);
	}
	ft_free(edge_of);
	if (moved || tb->dmax == 0) {
		ft_free(cnt);
		tb->dmax = 0;
		return 0;
	}
	tb->depth = cnt;
	tb->rb.pace_msgs = tb->msgs + tb->dmax;
	tb->rb.e->staged = true;
	return 0;
}

static int
cap_pace(struct tree_build *tb, const struct ft_sim_op *op, const struct ft_sched_phase *ph,
         double eff)
{
	if (!tb->heads && !tb->collnet) {
		tb->msgs = 0;
		for (uint32_t i = 0; i < tb->nedges; i++)
			tb->msgs = FT_MAX(tb->msgs, tb->rb.c[tb->edge[i].conn].nmsg);
	}
	tb->rb.pace_msgs = tb->msgs;
	/* NVLS across nodes, in one loop too (up to 2 MiB on 8 DGX H100): it still takes its 4
	 * stages a period each at NCCL's price, as in more loops and as the flow engine's
	 * (L + 3) P has it; unpaced its one loop crossed them at the links' rates, 12 % under
	 * the flow engine at 1 MiB. Its barriers run to msgs + NET_DMAX - 1 periods. */
	tb->rb.pace_ps = !tb->net ? ft__pk_cap_period_ps(op, ph, eff, tb->msgs) :
	                 tb->msgs ? cap_period_ps(op, ph, eff, tb->msgs, tb->msgs + NET_DMAX) :
	                            0;
	if (tb->rb.pace_ps && tb->net) {
		if (net_depths(tb) < 0)
			return FT_ENOMEM;
		tb->rb.pace_msgs = tb->msgs + tb->dmax;
		tb->rb.e->staged = true;
		return 0;
	}
	if (tb->pl.nchannels)
		return nccl_fill(tb, op, ph);
	if (tb->rb.pace_ps && tb->collnet)
		return collnet_fill(tb);
	if (!tb->rb.pace_ps || tb->heads || tb->collnet || !ft__sim_cap_staged(op))
		return ll_cross_depths(tb, op->sched);
	if (tree_depths(tb, op, ph, 1) < 0)
		return FT_ENOMEM;
	tb->rb.pace_msgs = tb->msgs + tb->dmax;
	tb->rb.e->staged = true;
	return 0;
}

int
ft__pk_pace_tasks(struct ring_build *rb)
{
	if (!rb->pace_ps && !rb->fill_ps)
		return 0;
	rb->pace = ft_calloc(rb->pace_msgs, sizeof(uint32_t));
	if (!rb->pace)
		return FT_ENOMEM;
	for (uint32_t m = 1; m < rb->pace_msgs; m++) {
		int64_t b = ft__pk_add_task(rb->e, PK_T_BARRIER, ft__pk_pace_at(rb, m), 0, rb->tag);

		if (b < 0 || ft__pk_add_dep(rb->e, rb->start, (uint32_t)b) < 0)
			return FT_ENOMEM;
		task_at(rb->e, (uint32_t)b)->pace = 1; /* (struct pk_cp) */
		rb->pace[m - 1] = (uint32_t)b;
	}
	return 0;
}

static bool lazy_tree_ok(const struct pk_engine *e, const struct tree_build *tb, uint32_t nmsg);
struct tree_phase;
static void phase_release(struct tree_phase *p);
static int lazy_tree(struct pk_engine *e, struct tree_build *tb, uint32_t nmsg, uint32_t slots,
                     bool ring);

/* A Simple chain on NCCL's own channels takes the model's fill as a plain tree does, its
 * later rounds a stage apart behind the first (nccl_fill()). */
static bool
chain_fill_on(const struct ft_schedule *sc, uint32_t nchannels)
{
	return ft__sim_chain(sc) && sc->proto == FT_PROTO_SIMPLE && nchannels == 0 &&
	       sc->nranks > 1;
}

/*
 * A chain broadcast or reduce runs on every channel NCCL launches (the model's count at the
 * op's size, ft__sim_pipe_model(); src/device/broadcast.h and reduce.h runRing: each
 * channel's block moves its own part chunk by chunk along its ring, the blocks side by
 * side), where the schedule's copies (@pipes, one a channel of the schedule) are fewer:
 * each copy is cut into reps = launched / pipes (truncated) connections of its edges, each
 * its own chain with 1 / reps of the bytes, so a link carries as many chunks at once as
 * NCCL's channels put on it (the model's ramp: all channels' chunks a stage). Where NCCL
 * launches fewer channels than the schedule has copies (LL at small sizes: one of 12 on 2
 * DGX A100 at 64 KiB; src/enqueue.cc topoGetAlgoInfo() drops a channel while a thread
 * would get less than its threshold, kb NA-PROTO-LL), an LL chain runs on the
 * first launched copies alone, each with 1 / launched of the bytes (tree_conns(), tb
 * keep): each launched channel carries the op's bytes in its own steps, so a hop between
 * nodes waits for NCCL's step (wait_msg()), not for the launched / copies of it that the
 * copies' share left it (8 KiB where NCCL's channel waits for 32 KiB). The kernel's cap
 * paces the messages at the channels' rate either way (cap_pace(): a message a period,
 * the period S over the cap's algbw a message). LL128 keeps the schedule's copies: NCCL
 * drops its channels by the same rule, but no reading here says its steps wait as LL's
 * do, and on the launched copies 4 KiB moved away from the flow engine (2 DGX A100
 * 53.05 -> 53.44 us, flow 50.67; 2 DGX H100 53.03 -> 53.26, flow 48.12). On forced
 * channels (the op's nchannels, NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS) the schedule's
 * copies are the communicator's channels: none is cut into reps, but an LL chain still
 * runs on the launched ones alone, since topoGetAlgoInfo()'s threshold drops channels from
 * comm->nChannels whatever set it (the model's count on the forced channels,
 * ft__sim_pipe_model(): 1 of 2 or 4 on pcie-l40s:2 at 64 KiB, as the flow engine's ramp).
 * Before, forced channels kept every copy, each with 1 / forced of the bytes and its step
 * cut so: pcie-l40s:2's LL broadcast of 64 KiB on 2 forced channels 56.86 us against the
 * flow engine's 41.13, on 4 80.93 against 58.26, its reduce 57.35 and 80.85 against 46.34
 * and 68.68. @nch becomes the channels so run.
 */
static int
chain_channels(struct tree_build *tb, const struct ft_sim_op *op, uint32_t pipes, uint32_t *nch)
{
	const struct ft_schedule *sc = op->sched;
	struct ft_model_pipeline pl;

	tb->reps = 1;
	tb->keep = 0;
	if (!ft__sim_chain(sc) || pipes == 0)
		return 0;
	/* the model's pipeline, read before the op's first task (pkt_setup.c pipe_read()) */
	if (FT_NEVER(!tb->rb.e->op_pl_read))
		return FT_EINVAL;
	pl = tb->rb.e->op_pl;
	if (ft__sim_chain_keep(op, pipes, &pl)) {
		tb->keep = pl.nchannels;
		*nch = pl.nchannels;
		return 0;
	}
	/* (the flow engine cuts a chain's copies by the same rule: engine_flow.c) */
	tb->reps = ft__sim_chain_reps(op, pipes, &pl);
	if (tb->reps > 1)
		*nch = pipes * tb->reps;
	return 0;
}

/*
 * A chain broadcast or reduce in LL or LL128 forwards its lines as their flags come: in
 * LL128 each warp takes 2 KiB of wire of the step at a time (32 threads x 8 words, 1,920
 * bytes of data), waits until all of its lines carry the step's flag, then stores them to
 * the next rank at once; in LL each thread polls and stores one 16-byte line (NVIDIA/nccl
 * src/device/prims_ll128.h GenericOp, WireWordPerSlice, and recvReduceSendCopy, prims_ll.h
 * LLGenericOp; src/device/broadcast.h and reduce.h runRing call them once a chunk,
 * v2.21.5-1 and v2.27.7-1). So a hop over NVLink passes on a round of the channel's warps
 * before the rest of its step has come (LL128 20 warps' 38,400 bytes, a step's fifteenth;
 * LL 4,096). Here @ch's slice becomes the model's grain (ft_model_line_grain(), that of its
 * ramps: LL's round, but a quarter of LL128's), every connection's step cut into as many
 * messages, and a hop between nodes still waits for its whole step (wait_msg()). A Simple
 * chain's hop forwards whole steps (broadcast's and reduce's chunk and slice one step,
 * BROADCAST_CHUNKSTEPS, REDUCE_SLICESTEPS: src/include/collectives.h; prims_simple.h
 * genericOp posts a slice once all of it is stored): unchanged.
 *
 * An LL tree all-reduce moves its lines as the LL128 tree's (below), its crossings paced
 * at LL's pace past each (ll_cross_depths()).
 * An LL128 tree all-reduce moves its lines so too: the tree kernel's ranks call the same
 * primitives a chunk at a time (v2.27.7-1 src/device/all_reduce.h runTreeUpDown and
 * runTreeSplit: send, recvReduceSend, recvReduceCopySend, recvCopySend, recv), each
 * prims_ll128.h GenericOp, whose warps store their lines on to the parent or the children
 * once their flags have come; only the proxy's hop between nodes waits for the step
 * (src/transport/net.cc sendProxyProgress(), as the chain's). Before, its hops forwarded
 * whole steps: a step walked each of a node's 7 hops whole (path and bytes at the link's
 * rate) where NCCL's hwLat[NVLINK][TREE][LL128] (1.25 us, src/graph/tuning.cc), which the
 * barrier charges, holds the hop's whole latency, and the model's ramp a grain a stage at
 * the channel's share (model/pipeline.c ll128_ramp()): 2 DGX H100 at 4 KiB 56.93 us
 * against the flow engine's 52.47. LL's tree is not cut (its gap, sim.md Limits, is
 * another's); nor is Simple's, whose recvReduceSend posts a slice once it is stored
 * (prims_simple.h).
 */
bool
ft__pk_lines(const struct ft_schedule *sc)
{
	bool chain = ft__sim_chain(sc) && (sc->proto == FT_PROTO_LL || sc->proto == FT_PROTO_LL128);
	bool tree = sc->algo == FT_ALGO_TREE && sc->op == FT_OP_ALL_REDUCE &&
	            (sc->proto == FT_PROTO_LL || sc->proto == FT_PROTO_LL128);

	return chain || tree;
}

static void
chain_lines(struct tree_build *tb, const struct ft_schedule *sc, struct ft_model_chunking *ch)
{
	uint64_t grain = ft_model_line_grain(sc->proto);

	if (!ft__pk_lines(sc) || grain == 0 || grain >= ch->slice_bytes)
		return;
	tb->lines = true;
	ch->slice_bytes = grain;
}

/*
 * An LL or LL128 chain's messages are its pipeline: its hops over NVLink pass on the
 * model's grain as its lines come (chain_lines()) and its hops between nodes wait for the
 * whole step (wait_msg()), the two terms of the model's ramp (model/pipeline.c
 * ll128_ramp(), ll_ramp(): the grain through every stage, the step less the grain on each
 * crossing). So the op takes no ramp of the model's on top (pkt_setup.c pipe_terms(): on
 * GPUDirect-TCPX/O alone it adds one after unpaced stages), as on the other transports,
 * where it adds none. Before, a TCPX(O) chain paid both: gcp-a3-high:2's LL128 broadcast
 * of 16 MiB 610.94 us against the flow engine's 426.28 (the model's ramp 198.62 us). A
 * Simple chain on NCCL's channels is paced at the model's fill (nccl_fill()), which marks
 * it so itself.
 */
static void
chain_ramp_own(struct tree_build *tb, const struct ft_schedule *sc)
{
	if (ft__pk_lines(sc) && !tb->heads && !tb->collnet)
		tb->rb.e->staged = true;
}

/*
 * The last loop of an LL128 tree's lines at the kernel's cap. The pace lets message m of
 * every hop leave m periods after the phase's start (cap_pace(): a period the largest
 * connection's wire at the cap over its messages, ft__pk_cap_period_ps()), so its last
 * leaves a period before the cap's time for its bytes and crosses at the links' rates; a
 * connection of one message (a step of a grain or less: 4 and 64 KiB on 2 DGX H100) has
 * no pace at all and crosses whole at the links' rates. NCCL's LL128 kernel moves a
 * channel's lines at its rate (ft__sim_kernel_cap(); kb NA-PROTO-LL128), the model's
 * bandwidth term the bytes at it, and the flow engine caps its flows so: the whole loop's
 * bytes take the cap's time, the first grain's pass through every stage after it (the
 * model's ll128_ramp(), the walk the barrier keeps: pkt_setup.c walk_back_s()). So the
 * phase's barrier waits one period more: the pace's period, or without a pace the whole
 * connection's wire at the cap (2 DGX H100 at 4 KiB: 0.46 us, the model's bandwidth term
 * on its one launched channel). Before, with the lines and the take-back, 256 KiB ran 3.6
 * % under the flow engine (56.91 us against 59.03) and 4 KiB 2.7 %. A chain's lines are
 * paced per rank or at the model's fill (rank_pace(), nccl_fill()): not here.
 */
static void
tree_last_loop(const struct tree_build *tb, const struct ft_sim_op *op,
               const struct ft_sched_phase *ph, double eff, uint32_t bar)
{
	const struct ft_schedule *sc = op->sched;

	if (!tb->lines || sc->algo != FT_ALGO_TREE || tb->heads || tb->collnet)
		return;
	task_at(tb->rb.e, bar)->delay_ps +=
		tb->rb.pace_ps ? tb->rb.pace_ps : cap_period_ps(op, ph, eff, 1, 1);
}

int
ft__pk_submit_tree(struct pk_engine *e, const struct ft_sim_op *op, const struct ft_sched_phase *ph,
                   double eff, uint32_t start, uint32_t bar, uint32_t tag, struct ft_error *err)
{
	const struct ft_schedule *sc = op->sched;
	struct tree_build tb = {
		.rb = { .e = e,
		        .steps = 1,
		        .tag = tag,
		        .start = start,
		        .bar = bar,
		        .lane_split = true }
	};
	uint32_t pipes = ft__sim_phase_pipes(sc, ph), nmsg = 0, nodes, groups, i;
	struct ft_model_chunking ch;
	bool lazy;
	int rc;

	tb.net = nvls_net(sc);
	/* NVLS across nodes has no whole-flow form: its flows to the switches and back carry
	 * every loop at once, so whole they would run unordered (64 MiB on 2 nodes of 8 took
	 * 305.59 us where the flow engine's pipeline takes 495.41) */
	if (tb.net && e->pc.chunking == FT_PKT_CHUNK_OFF)
		return ft_error_set(err, FT_ENOTSUP,
		                    "sim: packet engine: nvls across nodes runs in NCCL's chunks "
		                    "only, not with packet.chunking: off");
	nvls_labels(sc, ph, &tb.heads, &nodes, &groups);
	if (tb.net && (tb.heads == 0 || nodes == 0 || groups != nodes || sc->nranks % nodes))
		return ft_error_set(err, FT_ENOTSUP,
		                    "sim: packet engine: nvls across nodes: the schedule's "
		                    "head labels give %u heads on %u nodes (%u first flows) "
		                    "for %u ranks: not NCCL's NVLS with CollNet",
		                    tb.heads, nodes, groups, sc->nranks);
	if (sc->algo == FT_ALGO_NVLS_TREE && (tb.heads == 0 || nodes == 0))
		return 1; /* no labels: whole flows */
	tb.ppn = tb.net ? sc->nranks / nodes : 0;
	tb.groups = groups;
	tb.collnet = sc->algo == FT_ALGO_COLLNET;
	if (tb.heads) {
		rc = nvls_shape(&tb, e, sc, nodes, &ch);
	} else if (tb.collnet) {
		rc = collnet_shape(&tb, e, op, op_nodes(e, op), &ch);
	} else {
		struct ft_model_buffs bu;

		/* a channel runs both trees of an all-reduce, one copy each, or on forced
		 * channels the one NCCL puts on it; a chain is one */
		uint32_t nch = ft__sim_pipe_channels(sc, pipes);

		/* on NCCL's own channels a plain tree's chunk is NCCL's on its launched
		 * channels, its pipeline the model's (nccl_fill()), read before the op's
		 * first task (pkt_setup.c pipe_read()) */
		rc = 0;
		if (ft__sim_tree_fill_on(sc, op->nchannels) || chain_fill_on(sc, op->nchannels)) {
			if (FT_NEVER(!e->op_pl_read))
				return FT_EINVAL;
			tb.pl = e->op_pl;
			if (tb.pl.fill_s > 0 && tb.pl.round_s > 0 && tb.pl.stages > 1)
				nch = tb.pl.nchannels;
			else
				tb.pl.nchannels = 0;
		}
		if (rc == 0 && !tb.pl.nchannels)
			rc = chain_channels(&tb, op, pipes, &nch);
		tb.pipes = tb.keep ? tb.keep : pipes * FT_MAX(tb.reps, 1u);
		ft_model_buffs_get(ft_topo_spec(e->topo), &bu);
		ft_model_chunking_sized(sc->op, sc->algo, sc->proto, &bu, sc->bytes, nch,
		                        op_nodes(e, op), sc->nranks, &ch);
		chain_lines(&tb, sc, &ch);
	}
	if (rc < 0) /* (chain_channels(): the model's pipeline not read: never) */
		return rc;
	/* an NVLS tree's in-node flow is up to 4 stages, a chain's flow reps connections */
	tb.rb.c = ft_calloc((size_t)ph->nflows * (tb.heads ? 4 : FT_MAX(tb.reps, 1u)),
	                    sizeof(*tb.rb.c));
	tb.edge = ft_calloc((size_t)ph->nflows * (tb.heads ? 4 : FT_MAX(tb.reps, 1u)),
	                    sizeof(*tb.edge));
	tb.from = ft_calloc((size_t)groups + 1, sizeof(uint32_t));
	rc = tb.rb.c && tb.edge && tb.from ? tree_conns(&tb, op, ph, eff, &ch, &nmsg, err) :
	                                     FT_ENOMEM;
	if (rc == 0 && tb.heads && tb.nodes != groups)
		rc = 1;
	if (rc == 1 && tb.net) /* (never as whole flows: see above) */
		rc = ft_error_set(err, FT_ENOTSUP,
		                  "sim: packet engine: nvls across nodes: a flow of the schedule "
		                  "breaks the order of NCCL's NVLS with CollNet (a node's ranks "
		                  "from its local rank 0, a head's flows labelled 1 to %u)",
		                  tb.heads);
	if (rc == 0 && tb.heads)
		tb.from[groups] = tb.nedges;
	if (rc != 0) {
		ft_free(tb.from);
		ft_free(tb.edge);
		ft_free(tb.rb.c);
		return rc;
	}
	rc = index_edges(&tb);
	if (rc == 0)
		stream_switch(&tb, &nmsg);
	if (rc == 0 && tb.heads)
		rc = nvls_switches(&tb);
	if (rc == 0)
		rc = cap_pace(&tb, op, ph, eff);
	if (rc == 0)
		rank_pace(&tb, sc);
	if (rc == 0)
		chain_ramp_own(&tb, sc);
	if (rc == 0)
		tree_last_loop(&tb, op, ph, eff, bar);
	lazy = rc == 0 && lazy_tree_ok(e, &tb, nmsg);
	if (rc == 0 && tb.heads)
		rc = nvls_lags(&tb, tag, lazy);
	if (lazy) {
		/* (the phase keeps what it built: freed with the engine) */
		rc = rc == 0 ? lazy_tree(e, &tb, nmsg, ch.slots, false) : rc;
		if (rc < 0)
			tree_release(&tb);
	} else {
		if (rc == 0)
			rc = ft__pk_pace_tasks(&tb.rb);
		if (rc == 0)
			rank_conns(&tb);
		if (rc == 0)
			rc = ft__pk_add_messages(&tb.rb, nmsg);
		if (rc == 0 && tb.heads)
			rc = lag_parts(&tb);
		for (i = 0; i < tb.nedges && rc == 0; i++)
			rc = link_edge(&tb, &tb.edge[i], ch.slots);
		for (i = 0; i < tb.nedges && rc == 0 && tb.rank_ps; i++)
			rc = rank_edge(&tb, &tb.edge[i]);
		tree_release(&tb);
	}
	if (rc == 0) /* the path latencies are simulated now: the barrier keeps the rest */
		task_at(e, bar)->lat_mult = 0;
	return rc;
}

/*
 * ---- Lazy NVLS trees --------------------------------------------------------------------
 *
 * An NVLS tree of 1 GiB over 4 DGX H100 nodes is 720,896 messages, each a flow record,
 * its task and the barrier its QP's next message waits for, built whole before the run
 * (about 260 MB). Most of them wait: a connection has at most `slots` messages in
 * flight. So an NVLS tree phase is one task in the graph (PK_T_TREE), and a message is
 * built when its waits are over, as the lazy all-to-all's sends are (pkt_nccl.c): until
 * then it is a number (PK_VIRT + its index among the phase's), with the count of the waits
 * it still has. A message, a lag task (a switch of a node of several) and the barrier
 * before a QP's next message each have one; the barrier is never built (the message that
 * fires it tells the next one at once, as its event would). A built task's successors
 * are named by the phase, in the order the whole graph lists them (tree_waits(), in
 * connection order), and told as the whole graph tells them: a message that leaves the
 * vertex it arrived at at once, any other one path latency later (its clear-to-send,
 * PK_EV_PRED with the number), a barrier at once. Events, their times and their order are
 * the whole graph's, so the run is the same to the byte; the records of an ended message
 * are reused once twice the phase's longest path latency has passed in a lossless run
 * (no NAK or retransmit outlives a flow there, and a CNP or RTT sample for its packets is
 * back within one path latency of its end), and in a lossy one once nothing names them
 * (lossy_release()). A paced run's QP hands its congestion control state to its next
 * message when its last packet leaves (pk_flow_sent()): the phase keeps it, per QP, until
 * that message is built (flow_qp()). For
 * the op's bottleneck each link keeps the first message, in the whole graph's flow
 * order, that crossed it.
 *
 * A plain tree (or chain) phase goes the same way, without lag tasks, and so does a ring
 * phase (pkt_nccl.c ft__pk_submit_ring(), ft__pk_lazy_ring()): its connections alone, a
 * message waiting for the one a step before it on the connection feeding its source
 * (ring_next()), its own message `slots` back and the start or its QP's message before,
 * as link_message() has them. Where a connection is cut otherwise than those it waits for
 * (lazy_tree_ok()), the phase is built whole.
 */
struct tree_phase {
	struct tree_build tb; /* a ring's: its connections alone (no edges) */
	bool ring;            /* a ring's phase (its waits: ring_next()), else a tree's */
	uint32_t task, slots, nq, msgs;
	uint32_t nmsg, nlag; /* numbers: messages, lag tasks, then the barrier before message i */
	uint32_t npace;      /* then loop m's pace (m - 1: cap_pace()), tb.rb.pace_ps apart */
	uint32_t base;       /* its first number, less PK_VIRT */
	uint32_t at_flow;    /* flows built before it was submitted */
	uint16_t *pending;   /* per message and lag task: the waits it still has */
	uint64_t *lag_lat;   /* per lag task: the longest path latency of its parts so far */
	uint32_t *conn_edge; /* per connection: its edge */
	uint32_t *succ_off;  /* per connection: its messages' successors (succ_off[c] ..) */
	uint32_t *succ;      /* connection << 2 | enum succ_kind */
	uint32_t *lag_of;    /* per connection: the lag task its parts go into at m = 0 */
	uint64_t *first;     /* per link: the first message to cross it (key), UINT64_MAX */
	uint64_t lat_max;    /* the longest path latency of its messages so far */
	/* A paced run's, per QP (connection x nq + m % nq): its congestion control state
	 * while no built message holds it (qhand: handed on by a message whose last packet
	 * left, to a next one not built yet, or kept from its last message once it ended),
	 * and the flow record of its latest message built (PK_NONE). */
	struct pk_dcqcn *qcc;
	uint32_t *qflow;
	uint8_t *qhand;
	/* A lossy run's (paced or not): per message, its flow record while built and not
	 * released (PK_NONE); per QP, its messages built (a paced run's). */
	uint32_t *mflow;
	uint32_t *qbuilt;
};

/* Which of a successor connection's messages message m of a connection tells: message m
 * (a tree's waits; where either carries a chunk as two messages, those of m's chunk:
 * same_next()), its own message m + slots, a ring's next step (ring_next()), or, the
 * last of its step, that step's messages (a whole hop of an LL or LL128 chain: wait_msg(),
 * step_next()). */
enum succ_kind { SUCC_SAME, SUCC_SLOT, SUCC_STEP, SUCC_WHOLE };

/* Records to reuse, oldest first. */
struct free_recs {
	struct ft_vec q; /* struct free_rec */
	size_t head;
};

struct free_rec {
	uint32_t task, flow;
	uint64_t free_ps; /* reusable after */
};

struct pk_tree_lazy {
	struct ft_vec phases; /* struct tree_phase */
	uint32_t nvirt;       /* numbers handed out */
	struct free_recs flows, tasks;
};

static int put_rec(struct free_recs *fr, uint32_t task, uint32_t flow, uint64_t free_ps);

/* The chunks (NCCL's loops) of connection @c: its messages, or half of them where a chunk
 * is two (struct ring_conn lead_at, stream_switch()). */
static uint32_t
conn_chunks(const struct ring_conn *c)
{
	return c->lead_at ? c->nmsg / 2 : c->nmsg;
}

/* The first message of chunk @k of connection @c. */
static uint32_t
chunk_msg(const struct ring_conn *c, uint32_t k)
{
	return c->lead_at ? 2 * k : k;
}

static bool
lazy_tree_ok(const struct pk_engine *e, const struct tree_build *tb, uint32_t nmsg)
{
	uint32_t nq = e->max_qps, i;
	bool ring = tb->nedges == 0; /* (a ring's phase has connections alone) */
	uint64_t n;

	/* Built whole: asked for, or a split run (a2a_eager); flows listed or QPs traced by
	 * id; beside a lazy all-to-all (which reuses records from its first slot on); a
	 * message split over QPs (its own barriers). A paced run's QP state is kept by the
	 * phase between messages (flow_qp()); a lossy run's records wait until nothing
	 * names them (lossy_release()). A message split over a GPU's NICs (its own barriers,
	 * nq above qps_per_conn) is built whole too. */
	if (e->tree_eager || e->lazy || e->pc.list_flows || e->ntrace_qps ||
	    (e->pc.split_data_on_qps && nq > 1) || nq > e->cfg.qps_per_conn || nmsg == 0)
		return false;
	if (tb->rb.n >= 1u << 30)
		return false;
	for (i = 0; i < tb->rb.n; i++) {
		const struct ring_conn *c = &tb->rb.c[i];

		/* Cut alike, else built whole: a tree's connections (chunk m waits for chunk
		 * m of those feeding it, or their last where they have fewer; a chunk two
		 * messages at the switches, stream_switch(), same_next()), a ring's and the one
		 * feeding it (a message waits for the one `slices` before it there). */
		if ((!ring && conn_chunks(c) != conn_chunks(&tb->rb.c[0])) ||
		    (tb->heads && c->nmsg != tb->msgs) ||
		    (c->lead_at && (ring || tb->lines || tb->heads || c->nmsg % 2)) ||
		    (tb->lines && c->slices != tb->rb.c[0].slices) ||
		    (ring && c->up != PK_NONE &&
		     (tb->rb.c[c->up].loops != c->loops || tb->rb.c[c->up].slices != c->slices)) ||
		    c->nmsg == 0 ||
		    (c->wire + conn_chunks(c) - 1) / conn_chunks(c) / e->mtu >= UINT32_MAX)
			return false;
	}
	/* (the numbers it takes: two a message, four a message per switch of a node of several,
	 * one a loop's pace) */
	n = (uint64_t)(e->tlazy ? e->tlazy->nvirt : 0) + 2ull * nmsg +
	    FT_MAX(tb->msgs, tb->rb.pace_msgs);
	for (i = 0; i < tb->nodes; i++)
		n += node_switches(tb, i) > 1 ? 4ull * tb->msgs * node_switches(tb, i) : 0;
	return n < PK_VIRT - 1;
}

/* The phase and index (@v) of number @u. */
static struct tree_phase *
phase_at(const struct pk_engine *e, uint32_t u, uint32_t *v)
{
	const struct pk_tree_lazy *tl = e->tlazy;

	u -= PK_VIRT;
	for (size_t i = 0; tl && i < tl->phases.len; i++) {
		struct tree_phase *p = ft_vec_at(&tl->phases, i);

		if (u - p->base < 2 * p->nmsg + p->nlag + p->npace) {
			*v = u - p->base;
			return p;
		}
	}
	return NULL;
}

/* The connection of message @v. */
static uint32_t
conn_of(const struct tree_phase *p, uint32_t v)
{
	uint32_t lo = 0, hi = p->tb.rb.n - 1;

	while (lo < hi) {
		uint32_t mid = (lo + hi + 1) / 2;

		if (p->tb.rb.c[mid].first <= v)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * Connection @c's QPs take its chunks round robin, a streamed chunk's two messages on one
 * QP in order (pkt_nccl.c add_message(), ft__pk_msg_chunk()): the message after @m on its
 * QP (c->nmsg or more: none), the one before it (PK_NONE: none) and @m's place among its
 * QP's messages.
 */
static uint64_t
qp_next(const struct ring_conn *c, uint32_t m)
{
	if (!c->lead_at)
		return (uint64_t)m + c->nq;
	return m % 2 == 0 ? (uint64_t)m + 1 : (uint64_t)m + 2ull * c->nq - 1;
}

static uint32_t
qp_prev(const struct ring_conn *c, uint32_t m)
{
	uint32_t k = ft__pk_msg_chunk(c, m);

	if (c->lead_at && m % 2 == 1)
		return m - 1;
	return k < c->nq ? PK_NONE : chunk_msg(c, k - c->nq) + (c->lead_at ? 1u : 0u);
}

static uint32_t
qp_ord(const struct ring_conn *c, uint32_t m)
{
	uint32_t k = ft__pk_msg_chunk(c, m);

	return c->lead_at ? k / c->nq * 2 + m % 2 : k / c->nq;
}

/* The QP of message @v of phase @p, among the phase's (connection x nq + its chunk's
 * m % its nq). */
static uint32_t
qp_of(const struct tree_phase *p, uint32_t v)
{
	uint32_t ci = conn_of(p, v);
	const struct ring_conn *c = &p->tb.rb.c[ci];

	return ci * p->nq + ft__pk_msg_chunk(c, v - c->first) % c->nq;
}

/* The phase, message (@v) and QP (@q) of flow @f, if a lazy phase's message with QP state. */
static struct tree_phase *
flow_qp(struct pk_engine *e, const struct pk_flow *f, uint32_t *v, uint32_t *q)
{
	const struct pk_task *k = task_at(e, f->task);
	struct tree_phase *p;

	if (!e->tlazy || !k->lazy || k->kind != PK_T_FLOW)
		return NULL;
	p = phase_at(e, PK_VIRT + k->succ_off, v);
	if (!p || !p->qcc || *v >= p->nmsg)
		return NULL;
	*q = qp_of(p, *v);
	return p;
}

/*
 * A lossy run's CNP for message @v (of QP @q, all its packets sent): built whole, its
 * QP's state is with the first of its later messages that has a packet to send, or its
 * last. A NAK or a timeout may send an earlier one's packets again after it handed the
 * state on, so the walk goes over the messages built: one released had every packet
 * acknowledged; one not built has the state the message before it handed on; the last
 * one released left its state with the phase (lossy_release()).
 */
static struct pk_dcqcn *
lossy_walk(struct pk_engine *e, struct tree_phase *p, uint32_t v, uint32_t q)
{
	const struct ring_conn *c = &p->tb.rb.c[conn_of(p, v)];
	uint32_t m = v - c->first, last = m, fid;

	for (uint64_t mm = qp_next(c, m); mm < c->nmsg; mm = qp_next(c, (uint32_t)mm)) {
		if (qp_ord(c, (uint32_t)mm) >= p->qbuilt[q])
			return &p->qcc[q];
		last = (uint32_t)mm;
		fid = p->mflow[c->first + mm];
		if (fid != PK_NONE && flow_at(e, fid)->snd_nxt < flow_at(e, fid)->npkts)
			return pk_flow_cc(e, flow_at(e, fid));
	}
	fid = p->mflow[c->first + last];
	return fid != PK_NONE ? pk_flow_cc(e, flow_at(e, fid)) : &p->qcc[q];
}

void
ft__pk_tree_handoff(struct pk_engine *e, const struct pk_flow *f)
{
	uint32_t v, q;
	struct tree_phase *p = flow_qp(e, f, &v, &q);

	if (p) { /* (its next message is not built: it takes the state when it is) */
		p->qcc[q] = *pk_flow_cc(e, f);
		p->qhand[q] = 1;
	}
}

struct pk_dcqcn *
ft__pk_tree_cc(struct pk_engine *e, const struct pk_flow *f)
{
	uint32_t v, q;
	struct tree_phase *p = flow_qp(e, f, &v, &q);

	/*
	 * Built whole, the state of a QP whose message @f has sent its last packet is with
	 * the first of its next messages that has not, or its last: a lossless run's
	 * messages on a QP send one after the other, so that is the latest one built, or
	 * the next one, not built yet, whose state the phase keeps.
	 */
	if (!p)
		return NULL;
	if (p->mflow)
		return lossy_walk(e, p, v, q);
	if (p->qhand[q] || FT_NEVER(p->qflow[q] == PK_NONE))
		return &p->qcc[q];
	return pk_flow_cc(e, flow_at(e, p->qflow[q]));
}

/* A lossy run's flow records: room for what names flow record @n - 1. */
static int
refs_room(struct pk_refs *r, size_t n)
{
	size_t cap = FT_MAX(FT_MAX(n, 2 * r->len), (size_t)1024);
	uint32_t *p;

	if (n <= r->len)
		return 0;
	p = ft_reallocarray(r->n, cap, sizeof(uint32_t));
	if (!p)
		return FT_ENOMEM;
	memset(p + r->len, 0, (cap - r->len) * sizeof(uint32_t));
	r->n = p;
	r->len = cap;
	return 0;
}

/*
 * A lossy run's message (flow @fid) may go once it has ended, its sender has every ACK
 * (no NAK or timeout sends it again: go_back(), ev_rto() do nothing then), it waits in
 * no port's ring and nothing names it: no packet of it in flight (resent ones arrive
 * after its end), no ACK, NAK, CNP or RTT sample on its way. A retransmit timer still
 * armed is no reference: its record's next message takes the next generation, so the
 * timer finds it no longer its own, as it finds its own message acknowledged built whole.
 * The QP's last message leaves the QP's state with the phase (lossy_walk()). A lazy
 * all-to-all's flow goes back to its send's slot (pkt_nccl.c ft__pk_lazy_release()).
 */
static int
lossy_release(struct pk_engine *e, uint32_t fid)
{
	const struct pk_flow *f = flow_at(e, fid);
	const struct ring_conn *c;
	struct tree_phase *p;
	uint32_t v;

	if (e->refs.n[fid] != PK_REF_ENDED || f->in_ring || f->snd_una < f->npkts)
		return 0;
	e->refs.n[fid] = 0;
	if (!e->tlazy)
		return ft__pk_lazy_release(e, fid);
	p = phase_at(e, PK_VIRT + task_at(e, f->task)->succ_off, &v);
	if (FT_NEVER(!p || !p->mflow || v >= p->nmsg))
		return FT_EINVAL;
	p->mflow[v] = PK_NONE;
	c = &p->tb.rb.c[conn_of(p, v)];
	if (p->qcc && qp_next(c, v - c->first) >= c->nmsg)
		p->qcc[qp_of(p, v)] = *pk_flow_cc(e, f);
	return put_rec(&e->tlazy->flows, f->task, fid, e->now_ps);
}

int
ft__pk_ref(struct pk_engine *e, uint32_t fid)
{
	int rc = refs_room(&e->refs, (size_t)fid + 1);

	if (rc == 0)
		e->refs.n[fid]++;
	return rc;
}

void
ft__pk_unref(struct pk_engine *e, uint32_t fid)
{
	struct pk_refs *r = &e->refs;
	int rc;

	if (FT_NEVER(fid >= r->len || (r->n[fid] & ~PK_REF_ENDED) == 0)) {
		r->err = r->err ? r->err : FT_EINVAL;
		return;
	}
	r->n[fid]--;
	rc = lossy_release(e, fid);
	if (rc < 0 && !r->err)
		r->err = rc; /* (from pkt_free(): the event loop returns it) */
}

int
ft__pk_ref_ended(struct pk_engine *e, uint32_t fid)
{
	int rc = refs_room(&e->refs, (size_t)fid + 1);

	if (rc < 0)
		return rc;
	e->refs.n[fid] |= PK_REF_ENDED;
	return lossy_release(e, fid);
}

int
ft__pk_ref_err(const struct pk_engine *e)
{
	return e->refs.err;
}

/* Records free to reuse now: the oldest if its time has come (*@task PK_NONE: none). */
static void
take_rec(struct free_recs *fr, uint64_t now_ps, uint32_t *task, uint32_t *flow)
{
	const struct free_rec *r = fr->head < fr->q.len ? ft_vec_at(&fr->q, fr->head) : NULL;

	*task = *flow = PK_NONE;
	if (!r || r->free_ps >= now_ps)
		return;
	*task = r->task;
	*flow = r->flow;
	if (++fr->head == fr->q.len || (fr->head >= 4096 && fr->head * 2 >= fr->q.len)) {
		/* (the queue keeps what is still to come, from its start) */
		memmove(fr->q.data, ft_vec_at(&fr->q, fr->head),
		        (fr->q.len - fr->head) * fr->q.elem_size);
		fr->q.len -= fr->head;
		fr->head = 0;
	}
}

static int
put_rec(struct free_recs *fr, uint32_t task, uint32_t flow, uint64_t free_ps)
{
	struct free_rec r = { task, flow, free_ps };

	return ft_vec_push(&fr->q, &r) < 0 ? FT_ENOMEM : 0;
}

/* Build message @v of phase @p (its waits are over) and start it. */
static int
build_message(struct pk_engine *e, struct tree_phase *p, uint32_t v)
{
	uint32_t ci = conn_of(p, v);
	const struct ring_conn *c = &p->tb.rb.c[ci];
	uint32_t m = v - c->first, rt, rf, gen = 0;
	struct pk_task *k;
	bool pace;
	int64_t t;

	take_rec(&e->tlazy->flows, e->now_ps, &rt, &rf);
	if (p->mflow && rf != PK_NONE) {
		/* (a timer of the record's last message finds it not its own: lossy_release) */
		gen = flow_at(e, rf)->rto_gen + 1;
		if (gen >= 1u << 27)
			rt = rf = PK_NONE; /* (a new record: the generations would wrap) */
		gen = rf == PK_NONE ? 0 : gen;
	}
	t = ft__pk_flow_into(e, ft__pk_msg_wire(c, m), c->src, c->dst, c->nic,
	                     c->qp0 + ft__pk_msg_chunk(c, m) % c->nq, p->tb.rb.tag, rt, rf);
	if (t < 0)
		return (int)t;
	k = task_at(e, (uint32_t)t);
	k->lazy = 1;
	k->succ_off = p->base + v; /* (its number: nsucc stays 0) */
	/* (held: its loop's pace was its last wait, pace_done(); a reused record's cleared) */
	flow_at(e, k->flow)->held = e->pace_release;
	if (p->mflow) {
		p->mflow[v] = k->flow;
		flow_at(e, k->flow)->rto_gen = gen;
		/* it follows the QP's message before in sequence while that one's receiver
		 * misses packets (struct pk_qpseq; a released one had every ACK) */
		rf = qp_prev(c, m) != PK_NONE ? p->mflow[c->first + qp_prev(c, m)] : PK_NONE;
		if (rf != PK_NONE && pk_psn_qp(e) &&
		    flow_at(e, rf)->rcv_nxt < flow_at(e, rf)->npkts &&
		    ft__pk_qp_link(e, rf, k->flow) < 0)
			return FT_ENOMEM;
	}
	if (p->qcc) {
		/* Its QP's state, as the message before handed it on (pk_flow_sent()) and
		 * CNPs moved it since; the QP's first message starts from ft__pk_cc0(). */
		uint32_t q = qp_of(p, v);

		if (p->qhand[q])
			*pk_flow_cc(e, flow_at(e, k->flow)) = p->qcc[q];
		p->qhand[q] = 0;
		p->qflow[q] = k->flow;
		if (p->qbuilt)
			p->qbuilt[q]++;
	}
	/* its QP's next message waits for its last packet to leave */
	flow_at(e, k->flow)->sent_task = qp_next(c, m) < c->nmsg ?
	                                         PK_VIRT + p->base + p->nmsg + p->nlag + c->first +
	                                                 (uint32_t)qp_next(c, m) :
	                                         PK_NONE;
	/* an LL chain's next message on an edge's first leg, for its start (rank_edge());
	 * none on a record reused from another message */
	pace = p->tb.rank_ps && p->tb.edge[p->conn_edge[ci]].conn == ci && m + 1 < c->nmsg;
	if (ft__pk_pace_set(e, k->flow, pace ? PK_VIRT + p->base + v + 1 : PK_NONE) < 0)
		return FT_ENOMEM;
	return ft__pk_start_task(e, (uint32_t)t);
}

/* Build lag task @v of phase @p (its parts are in) and start it. */
static int
build_lag(struct pk_engine *e, struct tree_phase *p, uint32_t v)
{
	uint32_t rt, rf;
	struct pk_task *k;
	int64_t t;

	take_rec(&e->tlazy->tasks, e->now_ps, &rt, &rf);
	t = ft__pk_task_into(e, PK_T_BARRIER, 0, 1.0, p->tb.rb.tag, rt);
	if (t < 0)
		return (int)t;
	k = task_at(e, (uint32_t)t);
	k->lazy = 1;
	k->succ_off = p->base + v;
	k->pred_lat_ps = p->lag_lat[v - p->nmsg];
	return ft__pk_start_task(e, (uint32_t)t);
}

static int phase_pred(struct pk_engine *e, struct tree_phase *p, uint32_t v, uint64_t lat_ps);

/* A wait of every message of chunk @k of connection @c of phase @p is over (its one, or a
 * streamed chunk's two in order, as link_edge() adds them). */
static int
chunk_pred(struct pk_engine *e, struct tree_phase *p, const struct ring_conn *c, uint32_t k)
{
	int rc = phase_pred(e, p, c->first + chunk_msg(c, k), 0);

	return rc == 0 && c->lead_at ? phase_pred(e, p, c->first + chunk_msg(c, k) + 1, 0) : rc;
}

/* Pace @m is over: message m - s of every edge's first leg at stage s (tree_depths()), in
 * link_edge()'s order (a ring's: message m of every connection, in pkt_nccl.c
 * link_message()'s). */
static int
pace_done(struct pk_engine *e, struct tree_phase *p, uint32_t m)
{
	const struct tree_build *tb = &p->tb;
	uint32_t n = p->ring ? tb->rb.n : tb->nedges;
	int rc = 0;

	/* the last pace: a message whose last wait it was is held by it (build_message()) */
	e->pace_release = m == p->npace;
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		const struct ring_conn *c = &tb->rb.c[p->ring ? i : tb->edge[i].conn];
		uint32_t s = p->ring ? 0 : edge_depth(tb, &tb->edge[i]), nk = conn_chunks(c);

		if (!p->ring && tb->fill_clamp) {
			/* (a chain's: its loop m - s, at the fill's end every loop from there;
			 * none before its stage's first pace) */
			uint32_t hi;

			if (m < s)
				continue;
			hi = m < tb->rb.fill_n ? m - s + 1 : nk;
			for (uint32_t mm = m - s; mm < FT_MIN(hi, nk) && rc == 0; mm++)
				rc = chunk_pred(e, p, c, mm);
			continue;
		}
		/* (an edge at stage s: its loop m - s; in a fill, its loop after the first
		 * round that waits for pace m, pace_of()) */
		if (m >= s && m - s < nk && (p->ring || !tb->rb.fill_n || m - s < tb->fill_k))
			rc = chunk_pred(e, p, c, m - s);
		if (!p->ring && tb->rb.fill_n && m > tb->rb.fill_n && rc == 0) {
			uint32_t mm = m - tb->rb.fill_n + tb->fill_k - 1;

			if (mm < nk)
				rc = chunk_pred(e, p, c, mm);
		}
	}
	e->pace_release = false;
	return rc;
}

/* A wait of message or lag task @v of phase @p is over (a flow's, of path latency @lat_ps). */
static int
phase_pred(struct pk_engine *e, struct tree_phase *p, uint32_t v, uint64_t lat_ps)
{
	if (v >= 2 * p->nmsg + p->nlag) /* loop m's pace */
		return pace_done(e, p, v - 2 * p->nmsg - p->nlag + 1);
	if (v >= p->nmsg + p->nlag) /* the barrier before message i */
		v -= p->nmsg + p->nlag;
	if (v >= p->nmsg)
		p->lag_lat[v - p->nmsg] = FT_MAX(p->lag_lat[v - p->nmsg], lat_ps);
	if (FT_NEVER(p->pending[v] == 0))
		return FT_EINVAL;
	if (--p->pending[v] > 0)
		return 0;
	return v < p->nmsg ? build_message(e, p, v) : build_lag(e, p, v);
}

int
ft__pk_tree_pred(struct pk_engine *e, uint32_t u, uint64_t lat_ps)
{
	uint32_t v;
	struct tree_phase *p = phase_at(e, u, &v);

	return FT_NEVER(!p) ? FT_EINVAL : phase_pred(e, p, v, lat_ps);
}

int
ft__pk_tree_sent(struct pk_engine *e, uint32_t t)
{
	/* (its one successor: the QP's next message, told as a barrier's, at once) */
	return ft__pk_tree_pred(e, t, 0);
}

int
ft__pk_tree_start(struct pk_engine *e, uint32_t t)
{
	struct pk_task *k = task_at(e, t);
	struct tree_phase *p = ft_vec_at(&e->tlazy->phases, k->flow);
	uint32_t i, m;
	int rc = 0;

	/* The loops' paces, as the start's first successors (ft__pk_pace_tasks()) */
	for (m = 1; m <= p->npace && rc == 0; m++) {
		/* (its critical path: the phase's start, and the pace) */
		struct pk_cp cp = e->cp;
		uint64_t at_ps = ft__pk_pace_at(&p->tb.rb, m);
		int64_t arg;

		cp.pace_ps += at_ps;
		arg = ft__pk_cp_arg(e, cp);

		rc = arg < 0 ? (int)arg :
		               ev_push(e, e->now_ps + at_ps, PK_EV_TASK,
		                       PK_VIRT + p->base + 2 * p->nmsg + p->nlag + m - 1,
		                       (uint32_t)arg);
	}
	/* The first message on each QP waits for the phase: as the start's successors, in
	 * the order link_edge() adds them. */
	for (i = 0; i < p->tb.rb.n && rc == 0; i++) {
		const struct ring_conn *c = &p->tb.rb.c[i];

		/* (a streamed chunk's second message follows its first on the QP) */
		for (m = 0; m < FT_MIN(c->nq, conn_chunks(c)) && rc == 0; m++)
			rc = phase_pred(e, p, c->first + chunk_msg(c, m), 0);
	}
	k = task_at(e, t);
	k->done = 1;
	k->t_done_ps = e->now_ps;
	return rc;
}

/* Message @v of phase @p (flow @fid) has ended: the links it crossed, for the bottleneck. */
static int
note_links(struct pk_engine *e, struct tree_phase *p, uint32_t v, uint32_t fid)
{
	const struct pk_flow *f = flow_at(e, fid);

	if (!p->first) {
		p->first = ft_malloc((size_t)(e->nlinks ? e->nlinks : 1) * sizeof(uint64_t));
		if (!p->first)
			return FT_ENOMEM;
		memset(p->first, 0xff, (size_t)(e->nlinks ? e->nlinks : 1) * sizeof(uint64_t));
	}
	for (uint32_t j = 0; j < f->npath; j++) {
		uint32_t l = FT_VEC_AT(&e->paths, uint32_t, f->path_off + j);

		p->first[l] = FT_MIN(p->first[l], (uint64_t)v << 8 | j);
	}
	return 0;
}

/* Message @mm of connection @c of phase @p waited for a message that ended at vertex @dst
 * (path latency @lat_ps): as pkt_flow.c flow_feeds tells it, at once to a message leaving
 * where it arrived, else with its clear-to-send. */
static int
tell(struct pk_engine *e, struct tree_phase *p, const struct ring_conn *c, uint32_t mm,
     uint32_t dst, uint64_t lat_ps)
{
	struct pk_cp cp = e->cp;
	int64_t arg;

	if (c->src == dst)
		return phase_pred(e, p, c->first + mm, lat_ps);
	cp.chain_ps += lat_ps; /* (the clear-to-send's way back: the chain's) */
	arg = ft__pk_cp_arg(e, cp);
	if (arg < 0)
		return (int)arg;
	return ev_push(e, e->now_ps + lat_ps, PK_EV_PRED, PK_VIRT + p->base + c->first + mm,
	               (uint32_t)arg);
}

/*
 * Message @m of ring connection @u has ended: the message of connection @c (the one its
 * destination sends on, cut as u is: lazy_tree_ok()) that waits for it. Message (loop,
 * step s > 0, slice j) of c waits for (loop, s - 1, j) of u (pkt_nccl.c link_message()),
 * which is `slices` messages before it; the last step's message feeds none.
 */
static int
ring_next(struct pk_engine *e, struct tree_phase *p, const struct ring_conn *u, uint32_t m,
          const struct ring_conn *c, uint32_t dst, uint64_t lat_ps)
{
	if (m / u->slices % p->tb.rb.steps + 1 >= p->tb.rb.steps)
		return 0;
	return tell(e, p, c, m + c->slices, dst, lat_ps);
}

/*
 * Message @m of connection @u has ended: the message or messages of connection @c (a tree
 * edge's, its chunk m waiting for chunk m of @u) that wait for it (wait_msg()), in order.
 * Where a connection carries a chunk as two messages (stream_switch()): both do, message
 * m; @u alone, its chunk's second message tells c's chunk; @c alone, u's chunk tells both
 * of c's.
 */
static int
same_next(struct pk_engine *e, struct tree_phase *p, const struct ring_conn *u, uint32_t m,
          const struct ring_conn *c, uint32_t dst, uint64_t lat_ps)
{
	int rc;

	if (u->lead_at && !c->lead_at)
		return m % 2 == 1 && m / 2 < c->nmsg ? tell(e, p, c, m / 2, dst, lat_ps) : 0;
	if (!u->lead_at && c->lead_at) {
		if (m >= conn_chunks(c))
			return 0;
		rc = tell(e, p, c, chunk_msg(c, m), dst, lat_ps);
		return rc == 0 ? tell(e, p, c, chunk_msg(c, m) + 1, dst, lat_ps) : rc;
	}
	return m < c->nmsg ? tell(e, p, c, m, dst, lat_ps) : 0;
}

/*
 * Message @m of connection @u has ended: if it is the last of its step (or of @u), the
 * messages of connection @c (a hop between nodes, cut as u is: lazy_tree_ok()) that wait
 * for it (wait_msg()), in order.
 */
static int
step_next(struct pk_engine *e, struct tree_phase *p, const struct ring_conn *u, uint32_t m,
          const struct ring_conn *c, uint32_t dst, uint64_t lat_ps)
{
	uint32_t l = m / u->slices, mm, hi;
	int rc = 0;

	if (m + 1 < u->nmsg && (m + 1) % u->slices != 0)
		return 0;
	hi = m + 1 < u->nmsg ? FT_MIN((l + 1) * c->slices, c->nmsg) : c->nmsg;
	for (mm = l * c->slices; mm < hi && rc == 0; mm++)
		rc = tell(e, p, c, mm, dst, lat_ps);
	return rc;
}

/* Message @v (of connection @ci, message @m) of phase @p, flow @fid, has ended: tell its
 * successors, in the whole graph's order (bar, its lag task, the successors by connection). */
static int
message_done(struct pk_engine *e, struct tree_phase *p, uint32_t v, uint32_t fid, uint64_t lat_ps)
{
	uint32_t ci = conn_of(p, v), m = v - p->tb.rb.c[ci].first, i;
	const struct ring_conn *u = &p->tb.rb.c[ci];
	uint32_t dst = flow_at(e, fid)->dst;
	int rc = note_links(e, p, v, fid);

	p->lat_max = FT_MAX(p->lat_max, lat_ps);
	if (rc == 0)
		rc = ft__pk_pred_done(e, p->tb.rb.bar, lat_ps);
	if (rc == 0 && p->lag_of[ci] != PK_NONE) {
		uint32_t nsw = node_switches(&p->tb, p->tb.edge[p->conn_edge[ci]].node);

		rc = phase_pred(e, p, p->nmsg + p->lag_of[ci] + m * nsw, lat_ps);
	}
	for (i = p->succ_off[ci]; i < p->succ_off[ci + 1] && rc == 0; i++) {
		const struct ring_conn *c = &p->tb.rb.c[p->succ[i] >> 2];
		uint32_t kind = p->succ[i] & 3, mm;

		if (kind == SUCC_STEP) {
			rc = ring_next(e, p, u, m, c, dst, lat_ps);
			continue;
		}
		if (kind == SUCC_WHOLE) {
			rc = step_next(e, p, u, m, c, dst, lat_ps);
			continue;
		}
		if (kind == SUCC_SAME) {
			rc = same_next(e, p, u, m, c, dst, lat_ps);
			continue;
		}
		mm = m + conn_slots(&p->tb, c, p->slots); /* (SUCC_SLOT) */
		if (mm < c->nmsg)
			rc = tell(e, p, c, mm, dst, lat_ps);
	}
	return rc;
}

/* Lag task @v of phase @p has ended: the reads (w 0) or gathers of its node, copy and
 * message from the other switches. */
static int
lag_done(struct pk_engine *e, struct tree_phase *p, uint32_t v)
{
	const struct tree_build *tb = &p->tb;
	uint32_t lag = v - p->nmsg, k = 0, nsw, j, m, t, w, i;
	int rc = 0;

	while (k + 1 < tb->nodes && tb->lag_off[k + 1] <= lag)
		k++;
	nsw = node_switches(tb, k);
	lag -= tb->lag_off[k];
	j = lag % nsw;
	m = lag / nsw % tb->msgs;
	t = lag / nsw / tb->msgs % 2;
	w = lag / nsw / tb->msgs / 2;
	for (i = tb->from[k]; i < tb->from[k + 1] && rc == 0; i++) {
		const struct tree_edge *ed = &tb->edge[i];

		if (ed->kind == (w ? TE_GATHER : TE_READ) && ed->copy == t && ed->sw != j)
			rc = phase_pred(e, p, tb->rb.c[ed->conn].first + m, 0);
	}
	return rc;
}

int
ft__pk_tree_done(struct pk_engine *e, uint32_t t, uint64_t lat_ps)
{
	struct pk_task *k = task_at(e, t);
	uint32_t v, fid = k->flow;
	struct tree_phase *p = phase_at(e, PK_VIRT + k->succ_off, &v);
	int rc;

	if (FT_NEVER(!p))
		return FT_EINVAL;
	if (v < p->nmsg) {
		if (p->qcc && !p->mflow) {
			/* Its record is reused in time: a CNP for the QP still finds its
			 * state (a message that ends as its QP's latest has no next one
			 * waiting: it would have handed its state on when its last packet
			 * left). */
			uint32_t q = qp_of(p, v);

			if (p->qflow[q] == fid && !p->qhand[q]) {
				p->qcc[q] = *pk_flow_cc(e, flow_at(e, fid));
				p->qhand[q] = 1;
			}
			if (p->qflow[q] == fid)
				p->qflow[q] = PK_NONE;
		}
		rc = message_done(e, p, v, fid, lat_ps);
		if (rc == 0 && p->mflow) { /* (a lossy run's: once nothing names it) */
			return ft__pk_ref_ended(e, fid);
		}
		/* (a CNP or RTT sample of its last packets is back within one path latency) */
		return rc < 0 ? rc : put_rec(&e->tlazy->flows, t, fid, e->now_ps + 2 * p->lat_max);
	}
	rc = lag_done(e, p, v);
	return rc < 0 ? rc : put_rec(&e->tlazy->tasks, t, PK_NONE, e->now_ps);
}

uint32_t
ft__pk_tree_src(const struct pk_engine *e, uint32_t u)
{
	uint32_t v;
	const struct tree_phase *p = phase_at(e, u, &v);

	return p && v < p->nmsg ? p->tb.rb.c[conn_of(p, v)].src : e->nvertices;
}

uint64_t
ft__pk_pace_next_ps(struct pk_engine *e, uint32_t u)
{
	uint32_t v;
	const struct tree_phase *p;

	if (u < PK_VIRT)
		return task_at(e, u)->delay_ps;
	p = phase_at(e, u, &v);
	return p ? p->tb.rank_ps : 0;
}

int
ft__pk_tree_bottleneck(struct pk_engine *e, uint32_t i)
{
	for (size_t n = 0; e->tlazy && n < e->tlazy->phases.len; n++) {
		const struct tree_phase *p = ft_vec_at(&e->tlazy->phases, n);

		if (p->at_flow == i && p->first &&
		    ft__pk_first_links(e, p->tb.rb.tag, p->first) < 0)
			return FT_ENOMEM;
	}
	return 0;
}

void
ft__pk_tree_free(struct pk_engine *e)
{
	if (!e->tlazy)
		return;
	for (size_t n = 0; n < e->tlazy->phases.len; n++) {
		struct tree_phase *p = ft_vec_at(&e->tlazy->phases, n);
		tree_release(&p->tb);
		phase_release(p);
	}
	ft_vec_release(&e->tlazy->phases);
	ft_vec_release(&e->tlazy->flows.q);
	ft_vec_release(&e->tlazy->tasks.q);
	ft_free(e->tlazy);
	e->tlazy = NULL;
}

/* The successors of each connection's messages: counted (@at NULL, into succ_off[c + 1])
 * or listed (at[c]: where connection c's next one goes); the waits of each message on
 * others (besides its slots, start and QP) into @nwait. */
struct succ_fill {
	struct tree_phase *p;
	uint32_t to, nwait;
	uint32_t *at;
};

static void
succ_add(struct succ_fill *sf, uint32_t from, uint32_t entry)
{
	if (sf->at)
		sf->p->succ[sf->at[from]++] = entry;
	else
		sf->p->succ_off[from + 1]++;
}

static int
succ_wait(void *ctx, uint32_t conn, size_t lag, uint32_t nsw)
{
	struct succ_fill *sf = ctx;

	(void)lag;
	(void)nsw;
	sf->nwait++;
	if (conn != PK_NONE) /* (a lag task's successors are found from its node's edges) */
		succ_add(sf, conn,
		         sf->to << 2 |
		                 (sf->p->tb.edge[sf->p->conn_edge[sf->to]].whole ? SUCC_WHOLE :
		                                                                  SUCC_SAME));
	return 0;
}

/* In the order link_edge() (a ring's: link_message()) adds the dependencies: by the
 * successor's connection. */
static void
phase_succ(struct tree_phase *p, uint32_t *nwait, uint32_t *at)
{
	const struct tree_build *tb = &p->tb;
	struct succ_fill sf = { p, 0, 0, at };

	for (uint32_t ci = 0; ci < tb->rb.n && p->ring; ci++) {
		if (tb->rb.c[ci].up != PK_NONE)
			succ_add(&sf, tb->rb.c[ci].up, ci << 2 | SUCC_STEP);
		succ_add(&sf, ci, ci << 2 | SUCC_SLOT);
	}
	for (uint32_t ci = 0; ci < tb->rb.n && !p->ring; ci++) {
		const struct tree_edge *ed = &tb->edge[p->conn_edge[ci]];

		sf.to = ci;
		sf.nwait = 0;
		if (ci > ed->conn) { /* a relay leg forwards what the leg before brought */
			succ_add(&sf, ci - 1, ci << 2 | SUCC_SAME);
			sf.nwait = 1;
		} else {
			(void)tree_waits(tb, ed, succ_wait, &sf);
		}
		if (nwait)
			nwait[ci] = sf.nwait;
		succ_add(&sf, ci, ci << 2 | SUCC_SLOT); /* its own message `slots` on */
	}
}

/* The waits of every message and lag task: as many as the whole graph gives it. */
static int
phase_pending(struct tree_phase *p, const uint32_t *nwait)
{
	const struct tree_build *tb = &p->tb;

	for (uint32_t ci = 0; ci < tb->rb.n; ci++) {
		const struct ring_conn *c = &tb->rb.c[ci];
		const struct tree_edge *ed = tb->nedges ? &tb->edge[p->conn_edge[ci]] : NULL;
		uint32_t s = ed ? edge_depth(tb, ed) : 0;
		uint32_t nsw = p->lag_of[ci] != PK_NONE ? node_switches(tb, ed->node) : 0;

		for (uint32_t m = 0; m < c->nmsg; m++) {
			/* (and the start or the QP's message before, and the slot's; a ring's
			 * step s > 0 waits for step s - 1 of the connection feeding it) */
			bool fed = c->up != PK_NONE && m / c->slices % tb->rb.steps > 0;
			uint32_t n = (p->ring ? fed : nwait[ci]) + 1 +
			             (m >= conn_slots(tb, c, p->slots));

			/* (an edge's first leg: the pace of loop m at its stage s, m + s > 0;
			 * for m > 0 its pace per rank, told by message m - 1's start) */
			n += p->npace && (p->ring ? m > 0 :
			                            ed->conn == ci &&
			                                    pace_of(tb, ft__pk_msg_chunk(c, m), s) > 0);
			n += tb->rank_ps && ed && ed->conn == ci && m > 0;
			size_t at = p->nmsg + (size_t)p->lag_of[ci] + (size_t)m * nsw;
			uint16_t *lag = p->lag_of[ci] != PK_NONE ? &p->pending[at] : NULL;

			if (n > UINT16_MAX || (lag && *lag == UINT16_MAX))
				return FT_ERANGE;
			p->pending[c->first + m] = (uint16_t)n;
			if (lag)
				(*lag)++;
		}
	}
	return 0;
}

/* The connections' edges, and the lag task (at m = 0) each part into a switch of a node
 * of several goes into (none outside NVLS trees). */
static void
phase_conns(struct tree_phase *p)
{
	const struct tree_build *tb = &p->tb;

	for (uint32_t i = 0; i < tb->nedges; i++)
		for (uint32_t j = 0; j < tb->edge[i].nlegs; j++)
			p->conn_edge[tb->edge[i].conn + j] = i;
	for (uint32_t ci = 0; ci < tb->rb.n; ci++) {
		const struct tree_edge *ed = tb->nedges ? &tb->edge[p->conn_edge[ci]] : NULL;
		bool part = ed && (ed->kind == TE_SCATTER || ed->kind == TE_MCAST);

		p->lag_of[ci] = part && tb->heads && node_switches(tb, ed->node) > 1 ?
		                        (uint32_t)lag_at(tb, ed->node, ed->kind == TE_MCAST,
		                                         ed->copy, 0, ed->sw) :
		                        PK_NONE;
	}
}

static void
phase_release(struct tree_phase *p)
{
	void *const arrays[] = { p->pending, p->lag_lat, p->conn_edge, p->succ_off, p->succ,
		                 p->lag_of,  p->first,   p->qcc,       p->qflow,    p->qhand,
		                 p->mflow,   p->qbuilt };

	ft__free_all(arrays, FT_ARRAY_SIZE(arrays));
}

/*
 * The NVLS tree @tb (its lag layout marked, nvls_lags()) as a lazy phase of @nmsg messages,
 * @slots in flight on a connection: one task after the phase's start, its messages counted
 * in the phase's end barrier and the run's flows and bytes. The phase keeps @tb (FT_E*:
 * the caller still has it).
 */
static int
lazy_tree(struct pk_engine *e, struct tree_build *tb, uint32_t nmsg, uint32_t slots, bool ring)
{
	struct tree_phase p = {
		.tb = *tb, .ring = ring, .slots = slots, .nq = e->max_qps
	};
	uint32_t *nwait, *at, ci;
	uint64_t bytes = 0;
	int64_t t = -1;
	int rc = 0;

	if (!e->tlazy) {
		e->tlazy = ft_calloc(1, sizeof(*e->tlazy));
		if (!e->tlazy)
			return FT_ENOMEM;
		ft_vec_init(&e->tlazy->phases, sizeof(struct tree_phase));
		ft_vec_init(&e->tlazy->flows.q, sizeof(struct free_rec));
		ft_vec_init(&e->tlazy->tasks.q, sizeof(struct free_rec));
	}
	p.msgs = tb->msgs;
	p.nmsg = nmsg;
	p.nlag = tb->lag_off ? tb->lag_off[tb->nodes] : 0;
	p.npace = tb->rb.pace_ps || tb->rb.fill_ps ? tb->rb.pace_msgs - 1 : 0;
	p.base = e->tlazy->nvirt;
	p.at_flow = (uint32_t)e->flows.len;
	p.pending = ft_calloc((size_t)nmsg + p.nlag + 1, sizeof(uint16_t));
	p.lag_lat = ft_calloc((size_t)p.nlag + 1, sizeof(uint64_t));
	p.conn_edge = ft_calloc((size_t)tb->rb.n + 1, sizeof(uint32_t));
	p.succ_off = ft_calloc((size_t)tb->rb.n + 2, sizeof(uint32_t));
	p.lag_of = ft_calloc((size_t)tb->rb.n + 1, sizeof(uint32_t));
	nwait = ft_calloc((size_t)tb->rb.n + 1, sizeof(uint32_t));
	at = ft_calloc((size_t)tb->rb.n + 1, sizeof(uint32_t));
	if (e->qp_cc) { /* (its QPs' congestion control state: flow_qp()) */
		size_t nqp = (size_t)tb->rb.n * p.nq + 1;

		p.qcc = ft_calloc(nqp, sizeof(*p.qcc));
		p.qflow = ft_malloc(nqp * sizeof(uint32_t));
		p.qhand = ft_calloc(nqp, 1);
		p.qbuilt = e->may_drop ? ft_calloc(nqp, sizeof(uint32_t)) : NULL;
		if (!p.qcc || !p.qflow || !p.qhand || (e->may_drop && !p.qbuilt))
			rc = FT_ENOMEM;
		else
			memset(p.qflow, 0xff, nqp * sizeof(uint32_t));
	}
	if (e->may_drop) { /* (its messages' records: lossy_release()) */
		p.mflow = ft_malloc(((size_t)nmsg + 1) * sizeof(uint32_t));
		if (p.mflow)
			memset(p.mflow, 0xff, ((size_t)nmsg + 1) * sizeof(uint32_t));
		else
			rc = FT_ENOMEM;
	}
	if (!p.pending || !p.lag_lat || !p.conn_edge || !p.succ_off || !p.lag_of || !nwait || !at)
		rc = FT_ENOMEM;
	if (rc == 0) {
		phase_conns(&p);
		phase_succ(&p, nwait, NULL);
		for (ci = 0; ci < tb->rb.n; ci++)
			p.succ_off[ci + 1] += p.succ_off[ci];
		memcpy(at, p.succ_off, (size_t)tb->rb.n * sizeof(uint32_t));
		p.succ = ft_calloc((size_t)p.succ_off[tb->rb.n] + 1, sizeof(uint32_t));
		rc = p.succ ? 0 : FT_ENOMEM;
	}
	if (rc == 0) {
		phase_succ(&p, NULL, at);
		rc = phase_pending(&p, nwait);
	}
	if (rc == 0)
		t = ft__pk_add_task(e, PK_T_TREE, 0, 0, tb->rb.tag);
	if (rc == 0 && (t < 0 || ft__pk_add_dep(e, tb->rb.start, (uint32_t)t) < 0))
		rc = FT_ENOMEM;
	ft_free(nwait);
	ft_free(at);
	if (rc == 0) {
		p.task = (uint32_t)t;
		task_at(e, p.task)->flow = (uint32_t)e->tlazy->phases.len;
		if (ft_vec_push(&e->tlazy->phases, &p) < 0)
			rc = FT_ENOMEM;
	}
	if (rc < 0) {
		phase_release(&p);
		return rc;
	}
	for (ci = 0; ci < tb->rb.n; ci++)
		bytes += tb->rb.c[ci].wire; /* (the sum of its messages' shares) */
	task_at(e, tb->rb.bar)->npred += nmsg; /* every message ends before it */
	e->nflows_all += nmsg;
	e->bytes_submitted += bytes;
	e->tlazy->nvirt += 2 * nmsg + p.nlag + p.npace;
	return 0;
}

int
ft__pk_lazy_ring(struct pk_engine *e, struct ring_build *rb, uint32_t nmsg, uint32_t slots)
{
	struct tree_build tb = { .rb = *rb };
	int rc;

	if (!lazy_tree_ok(e, &tb, nmsg))
		return 1;
	rc = lazy_tree(e, &tb, nmsg, slots, true);
	if (rc == 0)
		*rb = (struct ring_build){ 0 }; /* (the phase has its connections) */
	return rc;
}

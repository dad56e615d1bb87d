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
 * upward half.
 *
 * Here, as for rings (pkt_nccl.c), a message is one flow per QP and the
 * dependencies are the ones above; a PXN leg (a proxy GPU relaying the
 * flow, sim/nccl.c) forwards message c once it has arrived. The flows of the
 * schedule say which tree copy each belongs to and which way it goes
 * (struct ft_sched_flow pipe, dir, relay). The phase's path latencies are in
 * the simulated pipeline itself: its end barrier keeps only the protocol's
 * per-step overhead.
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
 * barrier after flows (pkt_part.c), so both give the same bytes.
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
};

struct tree_build {
	struct ring_build rb;
	struct tree_edge *edge;
	uint32_t nedges;
	uint32_t *into_off;  /* [vertices + 2]: vertex v's arrivals are into_off[v] .. [v + 1] - 1 */
	uint32_t *into_edge; /* the edges, grouped by destination, in schedule order */
	/* An NVLS tree: heads per node, nodes (of every channel), messages per copy; per
	 * node its stages' edges (from[k] .. from[k + 1] - 1) and the switch vertices they
	 * meet at (sw[sw_off[k]] .. sw[sw_off[k + 1] - 1]); on a node of several switches,
	 * from lag[lag_off[k]], per way in (0 the scatters, 1 the multicasts), copy, message
	 * and switch, the task done one path latency after that switch has every part sent
	 * into it (PK_NONE: none is). */
	uint32_t heads, nodes, msgs;
	uint32_t *from;
	uint32_t *sw, *sw_off;
	uint32_t *lag, *lag_off;
};

bool
ft__pk_is_tree(const struct pk_engine *e, const struct ft_schedule *sc,
               const struct ft_sched_phase *ph)
{
	bool tree = sc->algo == FT_ALGO_TREE && sc->op == FT_OP_ALL_REDUCE;
	bool chain = sc->algo == FT_ALGO_RING &&
	             (sc->op == FT_OP_BROADCAST || sc->op == FT_OP_REDUCE);
	bool nvls = sc->algo == FT_ALGO_NVLS_TREE && sc->op == FT_OP_ALL_REDUCE;

	return e->pc.chunking != FT_PKT_CHUNK_OFF && !ph->implicit_alltoall && ph->nflows > 0 &&
	       (tree || chain || nvls);
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

/* Tree copies of the phase: the largest pipe number. */
static uint32_t
phase_pipes(const struct ft_schedule *sc, const struct ft_sched_phase *ph)
{
	uint32_t f, n = 0;

	for (f = 0; f < ph->nflows; f++) {
		struct ft_sched_flow fl;

		ft_sched_phase_flow(sc, ph, f, &fl);
		n = FT_MAX(n, (uint32_t)fl.pipe);
	}
	return n;
}

/*
 * An NVLS tree's labels (struct ft_sched_flow head): the heads per node (the largest
 * label), the nodes (one per in-node flow of a head 1 before the first network edge: a
 * channel lists its in-node flows, then its trees) and, in @groups, the nodes of every
 * channel; heads 0: not one.
 */
static void
nvls_labels(const struct ft_schedule *sc, const struct ft_sched_phase *ph, uint32_t *heads,
            uint32_t *nodes, uint32_t *groups)
{
	bool net = false;
	uint32_t f;

	*heads = *nodes = *groups = 0;
	for (f = 0; f < ph->nflows && sc->algo == FT_ALGO_NVLS_TREE; f++) {
		struct ft_sched_flow fl;
		bool first;

		ft_sched_phase_flow(sc, ph, f, &fl);
		first = fl.dst == FT_SCHED_INNET && fl.head == 1;
		*heads = FT_MAX(*heads, (uint32_t)fl.head);
		net = net || (fl.src != FT_SCHED_INNET && fl.dst != FT_SCHED_INNET);
		*groups += first;
		*nodes += first && !net;
	}
}

/*
 * NCCL's pipeline of an NVLS tree of @heads heads on @nodes nodes
 * (ft_model_nvls_tree_chunking(), on NCCL's NVLS channels of the cluster's GPUs): each
 * copy of a head moves as many chunks one after another as a head's pipeline in one of
 * NCCL's channels does, whatever the schedule's channel count (a schedule of more
 * channels than NCCL's cuts smaller messages, as many in flight at once).
 */
static void
nvls_shape(struct tree_build *tb, const struct pk_engine *e, const struct ft_schedule *sc,
           uint32_t nodes, struct ft_model_chunking *ch)
{
	struct ft_model_links l;
	uint64_t loops;

	if (ft_model_links_get(ft_topo_spec(e->topo), 0, 0, 0, &l, NULL) < 0)
		memset(&l, 0, sizeof(l));
	l.nranks = sc->nranks;
	l.nnodes = nodes;
	l.ppn = sc->nranks / FT_MAX(nodes, 1u);
	l.nrails = tb->heads;
	loops = ft_model_nvls_tree_chunking(&l, sc->bytes, ch);
	tb->msgs = (uint32_t)FT_MIN(loops, (uint64_t)UINT32_MAX / 4);
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
 * longest among its parts') after its last part has arrived.
 */
static int
nvls_lags(struct tree_build *tb, uint32_t tag)
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
 * copies pipe and pipe + 1. 1 when the flow breaks the labels' rules.
 */
static int
nvls_stages(struct tree_build *tb, const struct ft_sched_flow *fl, uint32_t src, uint32_t dst,
            double eff, uint32_t *nmsg)
{
	uint64_t mine = fl->head ? fl->bytes / (tb->heads + 1) : 0, rest = fl->bytes - mine;
	uint64_t part[2] = { rest / 2, rest - rest / 2 }, half[2] = { mine / 2, mine - mine / 2 };
	bool in = fl->dst == FT_SCHED_INNET;
	uint32_t t;
	int rc = 0;

	if (in && fl->head == 1) /* a node's in-node flows start with its head 1's */
		tb->from[tb->nodes++] = tb->nedges;
	if (tb->nodes == 0 || (fl->head && fl->pipe == 0))
		return 1;
	for (t = 0; t < 2 && rc == 0; t++) {
		rc = nvls_stage(tb, src, dst, part[t], in ? TE_SCATTER : TE_GATHER, t, 0, eff,
		                nmsg);
		if (rc == 0 && fl->head)
			rc = nvls_stage(tb, src, dst, half[t], in ? TE_MCAST : TE_READ, t,
			                fl->pipe + t, eff, nmsg);
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
	uint32_t f;
	int rc;

	*nmsg = 0;
	for (f = 0; f < ph->nflows; f++) {
		struct ft_sched_flow fl;
		struct ring_conn *c = &rb->c[rb->n];
		struct tree_edge *ed = tb->nedges ? &tb->edge[tb->nedges - 1] : NULL;

		ft_sched_phase_flow(sc, ph, f, &fl);
		rc = ft__sim_flow_ends(rb->e->topo, sc, op, &fl, &c->src, &c->dst, err);
		if (rc < 0)
			return rc;
		if (tb->heads && (fl.src == FT_SCHED_INNET || fl.dst == FT_SCHED_INNET)) {
			rc = nvls_stages(tb, &fl, c->src, c->dst, eff, nmsg);
			if (rc != 0)
				return rc;
			continue;
		}
		if (fl.pipe == 0 || fl.dir == 0)
			return 1;
		if (c->src == c->dst || fl.bytes == 0)
			continue;
		ft__pk_cut(c, fl.bytes, 1, ch);
		if (tb->heads) { /* an NVLS tree's copy: its pipeline's chunks */
			c->loops = c->nmsg = tb->msgs;
			c->slices = 1;
		}
		if (conn_open(rb, c, fl.bytes, eff, *nmsg))
			return 1;
		if (fl.relay) {
			/* a leg of the edge before: it starts where that one has got to */
			if (!ed || ed->dst != c->src || ed->pipe != fl.pipe ||
			    rb->c[ed->conn].nmsg != c->nmsg)
				return 1;
			ed->dst = c->dst;
			ed->nlegs++;
		} else {
			ed = &tb->edge[tb->nedges++];
			*ed = (struct tree_edge){ .src = c->src,
				                  .dst = c->dst,
				                  .pipe = fl.pipe,
				                  .dir = fl.dir,
				                  .conn = rb->n,
				                  .nlegs = 1,
				                  .kind = TE_TREE };
		}
		c->first = *nmsg;
		*nmsg += c->nmsg;
		rb->n++;
	}
	return rb->n ? 0 : 1;
}

/* The edges into each vertex (of every tree copy), for link_feeds(). */
static int
index_edges(struct tree_build *tb)
{
	uint32_t nv = ft_topo_nvertices(tb->rb.e->topo), *off, i;

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

/* The arrival task of message @m (or its last) of edge @f's last leg. */
static uint32_t
arrival(const struct tree_build *tb, const struct tree_edge *f, uint32_t m)
{
	const struct ring_conn *c = &tb->rb.c[f->conn + f->nlegs - 1];

	return tb->rb.recv[c->first + FT_MIN(m, c->nmsg - 1)];
}

/*
 * What message @m of edge @ed's first leg waits for, besides its own connection's slots:
 * going up, chunk m from every child; going down, chunk m from the parent, or at the
 * root (no parent) chunk m from every child.
 */
static int
link_feeds(const struct tree_build *tb, const struct tree_edge *ed, uint32_t m, uint32_t to)
{
	uint32_t lo = tb->into_off[ed->src], hi = tb->into_off[ed->src + 1], i;
	uint32_t want = FT_SCHED_UP;

	for (i = lo; i < hi && ed->dir == FT_SCHED_DOWN; i++)
		if (tb->edge[tb->into_edge[i]].pipe == ed->pipe &&
		    tb->edge[tb->into_edge[i]].dir == FT_SCHED_DOWN)
			want = FT_SCHED_DOWN;
	for (i = lo; i < hi; i++) {
		const struct tree_edge *f = &tb->edge[tb->into_edge[i]];

		if (f->pipe == ed->pipe && f->dir == want &&
		    ft__pk_add_dep(tb->rb.e, arrival(tb, f, m), to) < 0)
			return FT_ENOMEM;
	}
	return 0;
}

/*
 * The waits of NVLS stage @ed's message @m (chunk m of its copy) into its send @to: head h
 * reads chunk m once every rank's part has reached the switch, a rank gathers it once
 * every head's multicast has; a part that went into the switch it reads from counts at
 * once, one that went into another switch of the node one path latency later (its
 * switch's lag task). The multicast itself waits as a tree edge does (for the chunk from
 * the parent, or at the root from below).
 */
static int
link_nvls(const struct tree_build *tb, const struct tree_edge *ed, uint32_t m, uint32_t to)
{
	struct pk_engine *e = tb->rb.e;
	uint32_t k = ed->node, nsw, w, want, i, j;

	if (ed->kind == TE_TREE)
		return link_feeds(tb, ed, m, to);
	nsw = node_switches(tb, k);
	if (ed->kind == TE_SCATTER || ed->kind == TE_MCAST) /* its lag: lag_parts() */
		return ed->kind == TE_MCAST ? link_feeds(tb, ed, m, to) : 0;
	w = ed->kind == TE_GATHER;
	want = w ? TE_MCAST : TE_SCATTER;
	for (i = tb->from[k]; i < tb->from[k + 1]; i++)
		if (tb->edge[i].kind == want && tb->edge[i].copy == ed->copy &&
		    tb->edge[i].sw == ed->sw &&
		    ft__pk_add_dep(e, arrival(tb, &tb->edge[i], m), to) < 0)
			return FT_ENOMEM;
	for (j = 0; j < nsw && nsw > 1; j++) {
		uint32_t lag = j == ed->sw ? PK_NONE : tb->lag[lag_at(tb, k, w, ed->copy, m, j)];

		if (lag != PK_NONE && ft__pk_add_dep(e, lag, to) < 0)
			return FT_ENOMEM;
	}
	return 0;
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

/* The dependencies into every message of edge @ed's legs, @slots in flight on each. */
static int
link_edge(const struct tree_build *tb, const struct tree_edge *ed, uint32_t slots)
{
	const struct ring_build *rb = &tb->rb;
	uint32_t nq = rb->e->pc.split_data_on_qps ? 1 : rb->e->cfg.qps_per_conn, j, m;
	int rc = 0;

	for (j = 0; j < ed->nlegs && rc == 0; j++) {
		const struct ring_conn *c = &rb->c[ed->conn + j];

		for (m = 0; m < c->nmsg && rc == 0; m++) {
			uint32_t to = rb->ready[c->first + m];

			if (j > 0) /* a relay forwards what has arrived */
				rc = ft__pk_add_dep(rb->e, rb->recv[c[-1].first + m], to);
			else
				rc = link_nvls(tb, ed, m, to);
			if (rc == 0 && m >= slots)
				rc = ft__pk_add_dep(rb->e, rb->recv[c->first + m - slots], to);
			/* The first message on each QP waits for the phase; the others follow it. */
			if (rc == 0 && m < nq)
				rc = ft__pk_add_dep(rb->e, c->start, to);
		}
	}
	return rc < 0 ? FT_ENOMEM : 0;
}

int
ft__pk_submit_tree(struct pk_engine *e, const struct ft_sim_op *op, const struct ft_sched_phase *ph,
                   double eff, uint32_t start, uint32_t bar, uint32_t tag, struct ft_error *err)
{
	const struct ft_schedule *sc = op->sched;
	struct tree_build tb = {
		.rb = { .e = e, .steps = 1, .tag = tag, .start = start, .bar = bar }
	};
	uint32_t pipes = phase_pipes(sc, ph), nmsg = 0, nodes, groups, i;
	struct ft_model_chunking ch;
	int rc;

	nvls_labels(sc, ph, &tb.heads, &nodes, &groups);
	if (sc->algo == FT_ALGO_NVLS_TREE && (tb.heads == 0 || nodes == 0))
		return 1; /* no labels: whole flows */
	if (tb.heads) {
		nvls_shape(&tb, e, sc, nodes, &ch);
	} else {
		/* a channel runs both trees of an all-reduce, one copy each; a chain is one */
		ft_model_chunking_sized(sc->op, sc->algo, sc->proto, sc->bytes,
		                        FT_MAX(sc->algo == FT_ALGO_TREE ? pipes / 2 : pipes, 1u),
		                        op_nodes(e, op), sc->nranks, &ch);
	}
	/* an NVLS tree's in-node flow is up to 4 stages */
	tb.rb.c = ft_calloc((size_t)ph->nflows * (tb.heads ? 4 : 1), sizeof(*tb.rb.c));
	tb.edge = ft_calloc((size_t)ph->nflows * (tb.heads ? 4 : 1), sizeof(*tb.edge));
	tb.from = ft_calloc((size_t)groups + 1, sizeof(uint32_t));
	rc = tb.rb.c && tb.edge && tb.from ? tree_conns(&tb, op, ph, eff, &ch, &nmsg, err) :
	                                     FT_ENOMEM;
	if (rc == 0 && tb.heads && tb.nodes != groups)
		rc = 1;
	if (rc == 0 && tb.heads)
		tb.from[groups] = tb.nedges;
	if (rc != 0) {
		ft_free(tb.from);
		ft_free(tb.edge);
		ft_free(tb.rb.c);
		return rc;
	}
	rc = index_edges(&tb);
	if (rc == 0 && tb.heads)
		rc = nvls_switches(&tb);
	if (rc == 0 && tb.heads)
		rc = nvls_lags(&tb, tag);
	if (rc == 0)
		rc = ft__pk_add_messages(&tb.rb, nmsg);
	if (rc == 0 && tb.heads)
		rc = lag_parts(&tb);
	for (i = 0; i < tb.nedges && rc == 0; i++)
		rc = link_edge(&tb, &tb.edge[i], ch.slots);
	ft_free(tb.lag);
	ft_free(tb.lag_off);
	ft_free(tb.sw);
	ft_free(tb.sw_off);
	ft_free(tb.from);
	ft__pk_build_release(&tb.rb);
	ft_free(tb.edge);
	ft_free(tb.into_off);
	ft_free(tb.into_edge);
	if (rc == 0) /* the path latencies are simulated now: the barrier keeps the rest */
		FT_VEC_AT(&e->tasks, struct pk_task, bar).lat_mult = 0;
	return rc;
}

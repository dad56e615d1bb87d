/* SPDX-License-Identifier: MIT */
/*
 * sim/pkt_tree.c - NCCL's tree all-reduce and chain broadcast / reduce in the
 * packet engine, chunk by chunk.
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
 */
#include "pkt_int.h"

#include <fabtune/model.h>

/* One flow of the tree: its legs are connections conn .. conn + nlegs - 1. */
struct tree_edge {
	uint32_t src, dst; /* vertices: the first leg's source, the last leg's destination */
	uint32_t pipe;
	uint32_t dir;
	uint32_t conn, nlegs;
};

struct tree_build {
	struct ring_build rb;
	struct tree_edge *edge;
	uint32_t nedges;
	uint32_t *into_off;  /* [vertices + 2]: vertex v's arrivals are into_off[v] .. [v + 1] - 1 */
	uint32_t *into_edge; /* the edges, grouped by destination, in schedule order */
};

bool
ft__pk_is_tree(const struct pk_engine *e, const struct ft_schedule *sc,
               const struct ft_sched_phase *ph)
{
	bool tree = sc->algo == FT_ALGO_TREE && sc->op == FT_OP_ALL_REDUCE;
	bool chain = sc->algo == FT_ALGO_RING &&
	             (sc->op == FT_OP_BROADCAST || sc->op == FT_OP_REDUCE);

	return e->pc.chunking != FT_PKT_CHUNK_OFF && !ph->implicit_alltoall && ph->nflows > 0 &&
	       (tree || chain);
}

/* Nodes the op's ranks are on (ranks in order, node by node). */
static uint32_t
op_nodes(const struct pk_engine *e, const struct ft_sim_op *op)
{
	uint32_t r, n = 1;

	for (r = 1; r < op->sched->nranks; r++)
		if (ft_topo_vertex(e->topo, op->rank_gpu[r])->node !=
		    ft_topo_vertex(e->topo, op->rank_gpu[r - 1])->node)
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
		if (fl.pipe == 0 || fl.dir == 0)
			return 1;
		if (c->src == c->dst || fl.bytes == 0)
			continue;
		c->wire = (uint64_t)((double)fl.bytes / eff + 0.5);
		ft__pk_cut(c, fl.bytes, 1, ch);
		c->start = rb->start;
		c->end = rb->bar;
		c->qp0 = 0;
		c->up = PK_NONE;
		if (c->wire < c->nmsg || (uint64_t)*nmsg + c->nmsg >= UINT32_MAX)
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
				                  .nlegs = 1 };
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
				rc = link_feeds(tb, ed, m, to);
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
	uint32_t pipes = phase_pipes(sc, ph), nmsg = 0, i;
	struct ft_model_chunking ch;
	int rc;

	/* a channel runs both trees of an all-reduce, one copy each; a chain is one */
	ft_model_chunking_sized(sc->op, sc->algo, sc->proto, sc->bytes,
	                        FT_MAX(sc->algo == FT_ALGO_TREE ? pipes / 2 : pipes, 1u),
	                        op_nodes(e, op), sc->nranks, &ch);
	tb.rb.c = ft_calloc(ph->nflows, sizeof(*tb.rb.c));
	tb.edge = ft_calloc(ph->nflows, sizeof(*tb.edge));
	rc = tb.rb.c && tb.edge ? tree_conns(&tb, op, ph, eff, &ch, &nmsg, err) : FT_ENOMEM;
	if (rc != 0) {
		ft_free(tb.edge);
		ft_free(tb.rb.c);
		return rc;
	}
	rc = index_edges(&tb);
	if (rc == 0)
		rc = ft__pk_add_messages(&tb.rb, nmsg);
	for (i = 0; i < tb.nedges && rc == 0; i++)
		rc = link_edge(&tb, &tb.edge[i], ch.slots);
	ft__pk_build_release(&tb.rb);
	ft_free(tb.edge);
	ft_free(tb.into_off);
	ft_free(tb.into_edge);
	if (rc == 0) /* the path latencies are simulated now: the barrier keeps the rest */
		FT_VEC_AT(&e->tasks, struct pk_task, bar).lat_mult = 0;
	return rc;
}

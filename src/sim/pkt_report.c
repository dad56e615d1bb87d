/* SPDX-License-Identifier: MIT */
/*
 * sim/pkt_report.c - what the packet engine reports: the port that names a stall (a
 * cyclic buffer dependency) and its wait-for cycle, and the counters of a finished run
 * (per-op results, flow completion times, per-port and per-priority counters, traces).
 */
#include "pkt_int.h"

#include <math.h>
#include <string.h>

#include <fabtune/sim.h>

/* Whether port @l holds packets or sourced flows, of any priority (with @transit: packets). */
bool
ft__pk_port_has(const struct pk_engine *e, uint32_t l, bool transit)
{
	const struct pk_cls *q = pk_port_at(e, l)->cls;

	for (uint32_t k = 0; k < e->ncls; k++)
		if (q[k].head != PK_NONE || (!transit && q[k].nring))
			return true;
	return false;
}

static bool
port_has_data(const struct pk_engine *e, uint32_t l)
{
	return ft__pk_port_has(e, l, false);
}

/* The port that holds packets longest without sending: where a stalled run is stuck. */
uint32_t
ft__pk_stuck_port(const struct pk_engine *e)
{
	uint32_t l, best = PK_NONE;

	for (l = 0; l < e->nlinks; l++)
		if (port_has_data(e, l))
			if (best == PK_NONE ||
			    pk_port_at(e, l)->t_blocked_ps < pk_port_at(e, best)->t_blocked_ps)
				best = l;
	return best;
}

/*
 * The next port in the wait-for chain of stalled port @l: a blocked port at the far end
 * of @l whose queue holds a packet that came in over @l (so @l's buffer cannot drain
 * before it moves). PK_NONE when there is none.
 */
static uint32_t
waits_for(const struct pk_engine *e, uint32_t l)
{
	uint32_t first, count, i;

	ft_topo_out_links(e->topo, e->links[l].dst, &first, &count);
	for (i = first; i < first + count; i++) {
		const struct pk_port *m = pk_port_at(e, i);
		uint32_t k;

		if (!m->blocked && !m->npaused)
			continue;
		for (uint32_t c = 0; c < e->ncls; c++)
			for (k = m->cls[c].head; k != PK_NONE; k = e->pkts[k].next)
				if (e->pkts[k].link == l)
					return i;
	}
	return PK_NONE;
}

/*
 * Name the cycle of buffers a stalled run waits on, starting from port @l: "sw0.1 ->
 * sw1.1 -> ... -> sw0.1". Returns false when the chain ends without closing.
 */
bool
ft__pk_name_cycle(const struct pk_engine *e, uint32_t l, struct ft_strbuf *out)
{
	uint8_t *seen = ft_calloc(e->nlinks ? e->nlinks : 1, 1);
	uint32_t at = l, start, n = 0;
	char name[64];

	if (!seen)
		return false;
	while (at != PK_NONE && !seen[at] && n++ < e->nlinks) {
		seen[at] = 1;
		at = waits_for(e, at);
	}
	if (at == PK_NONE || !seen[at]) {
		ft_free(seen);
		return false;
	}
	start = at;
	ft_topo_vertex_name(e->topo, e->links[start].src, name, sizeof(name));
	ft_strbuf_adds(out, name);
	do {
		ft_topo_vertex_name(e->topo, e->links[at].dst, name, sizeof(name));
		ft_strbuf_addf(out, " -> %s", name);
		at = waits_for(e, at);
	} while (at != start && at != PK_NONE);
	ft_free(seen);
	return true;
}

/* The flows of each priority apart, when flows ran at more than one. */
static int
prio_fct(const struct pk_engine *e, struct ft_sim_counters *c)
{
	uint64_t n[FT_PKT_NPRIO] = { 0 };
	double *fct, *ideal;
	uint32_t used = 0;
	int rc = 0;

	c->nprio_fct = 0;
	for (uint64_t i = 0; i < e->nflows_done; i++)
		used += n[e->fct_prio[i]]++ == 0;
	if (used < 2)
		return 0;
	fct = ft_calloc(e->nflows_done, sizeof(double));
	ideal = ft_calloc(e->nflows_done, sizeof(double));
	for (uint32_t p = 0; fct && ideal && p < FT_PKT_NPRIO && rc == 0; p++) {
		struct ft_sim_counters one = { 0 };
		struct ft_sim_prio_fct *o = &c->prio_fct[c->nprio_fct];
		size_t k = 0;

		if (!n[p])
			continue;
		for (uint64_t i = 0; i < e->nflows_done; i++)
			if (e->fct_prio[i] == p) {
				fct[k] = e->fct[i];
				ideal[k++] = e->ideal[i];
			}
		rc = ft__sim_fct_stats(fct, ideal, k, &one);
		o->prio = p;
		o->nflows = k;
		o->fct_p50_s = one.fct_p50_s;
		o->fct_p99_s = one.fct_p99_s;
		o->fct_max_s = one.fct_max_s;
		o->slowdown_p50 = one.slowdown_p50;
		c->nprio_fct++;
	}
	if (!fct || !ideal)
		rc = FT_ENOMEM;
	ft_free(fct);
	ft_free(ideal);
	return rc;
}

/*
 * Each op's FCT figures, from the flows it finished (grouped by op); with one op, the
 * run's. The op's other counters were kept as its flows ran.
 */
static int
op_fct(const struct pk_engine *e, const struct ft_sim_counters *c)
{
	size_t n = e->ops.len, i, *at;
	double *fct, *ideal;
	int rc = 0;

	if (!e->op_acc)
		return 0; /* refused before its records were made (a split run's check) */
	if (!e->fct_op) {
		if (n == 1) {
			e->op_acc[0].fct_p50_s = c->fct_p50_s;
			e->op_acc[0].fct_p99_s = c->fct_p99_s;
			e->op_acc[0].fct_max_s = c->fct_max_s;
		}
		return 0;
	}
	at = ft_calloc(n + 1, sizeof(size_t));
	fct = ft_calloc(e->nflows_done + 1, sizeof(double));
	ideal = ft_calloc(e->nflows_done + 1, sizeof(double));
	if (!at || !fct || !ideal)
		rc = FT_ENOMEM;
	for (i = 0; rc == 0 && i < e->nflows_done; i++)
		at[e->fct_op[i] + 1]++;
	for (i = 0; rc == 0 && i < n; i++)
		at[i + 1] += at[i];
	for (i = 0; rc == 0 && i < e->nflows_done; i++) {
		size_t k = at[e->fct_op[i]]++;

		fct[k] = e->fct[i];
		ideal[k] = e->ideal[i];
	}
	for (i = 0; rc == 0 && i < n; i++) {
		size_t lo = i ? at[i - 1] : 0; /* at[i] is now op i's end */
		struct ft_sim_counters one = { 0 };
		struct ft_sim_op_counters *o = &e->op_acc[i];

		if (at[i] == lo)
			continue;
		rc = ft__sim_fct_stats(fct + lo, ideal + lo, at[i] - lo, &one);
		o->fct_p50_s = one.fct_p50_s;
		o->fct_p99_s = one.fct_p99_s;
		o->fct_max_s = one.fct_max_s;
	}
	ft_free(at);
	ft_free(fct);
	ft_free(ideal);
	return rc;
}

void
ft__pk_bottleneck_link(struct pk_engine *e, uint32_t op, uint32_t k)
{
	struct ft_sim_op_result *r = &e->op_results[op];

	if (r->bottleneck_link == UINT32_MAX ||
	    pk_port_at(e, k)->q_area > pk_port_at(e, r->bottleneck_link)->q_area ||
	    (pk_port_at(e, k)->q_area == pk_port_at(e, r->bottleneck_link)->q_area &&
	     e->links[k].ps_per_byte > e->links[r->bottleneck_link].ps_per_byte))
		r->bottleneck_link = k;
}

struct pk_cp
ft__pk_op_cp(struct pk_engine *e, uint32_t op)
{
	const struct pk_op *o = ft_vec_at(&e->ops, op);
	struct pk_cp c = o->cp, s = task_at(e, o->start)->cp;

	/* (from the op's start: what came before it is the ops' it waited for) */
	c.pace_ps -= FT_MIN(c.pace_ps, s.pace_ps);
	c.chain_ps -= FT_MIN(c.chain_ps, s.chain_ps);
	c.fab_ps -= FT_MIN(c.fab_ps, s.fab_ps);
	return c;
}

/*
 * Whether op @op's cap held it, its bottleneck then the class that set the cap
 * (pace_what): along its critical path (struct pk_cp, from its start barrier's start to
 * its last message's end) the cap's time, its pace's waits and the messages that took no
 * longer than the cap lets them, is more than the time of the messages a link or its
 * ports' queues held longer (each message whole to what it waited on, pk_cp_msg()). The
 * flow engine names the cap where it held the op's slowest flow, a port where a link
 * slowed it below the cap (engine_flow.c, ft__fs_flow_capped()): the same split, by
 * time. A run split across MPI ranks carries the same path (pkt_part.c: with the waits
 * that cross ranks, the barriers' completions and rank 0's gather of the ends).
 */
static bool
crit_pace(struct pk_engine *e, uint32_t op)
{
	const struct pk_op *o = ft_vec_at(&e->ops, op);
	struct pk_cp c;

	if (!o->pace_what[0])
		return false;
	c = ft__pk_op_cp(e, op);
	return c.pace_ps + c.chain_ps > c.fab_ps;
}

/*
 * Samples taken sample-major, a triple per entry (@n entries), into one array by entry:
 * entry i's three columns of *@ns values each from (result + 3 x ns x i). NULL: no memory.
 */
static double *
by_entry(const struct ft_vec *samples, uint32_t n, size_t *ns)
{
	const double *smp = samples->data;
	double *cols;

	*ns = samples->len / n;
	cols = ft_calloc(3 * *ns * n + 1, sizeof(double));
	if (!cols)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		for (size_t k = 0; k < *ns; k++)
			for (size_t j = 0; j < 3; j++)
				cols[3 * *ns * i + j * *ns + k] = smp[3 * (k * n + i) + j];
	return cols;
}

/* --list-flows: the first pc.list_flows flow ids, each as its record holds it now. */
static int
flow_rows(struct pk_engine *e, struct ft_sim_counters *c)
{
	size_t n = FT_MIN((size_t)e->pc.list_flows, pk_nflows(e));

	ft_free(e->flow_rows);
	e->flow_rows = ft_calloc(n + 1, sizeof(*e->flow_rows));
	if (!e->flow_rows)
		return FT_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct pk_flow *f = flow_at(e, (uint32_t)i);
		const struct pk_task *t = task_at(e, f->task);
		bool started = t->done || f->t_start_ps || f->snd_nxt;

		e->flow_rows[i] = (struct ft_sim_flow_row){
			.id = (uint32_t)i,
			.src = f->src,
			.dst = f->dst,
			.qp = f->qp / 1024,
			.op = t->op,
			.bytes = f->bytes,
			.start_s = started ? (double)f->t_start_ps / PK_PS_PER_S : NAN,
			.fct_s = t->done ? (double)(t->t_done_ps - f->t_start_ps) / PK_PS_PER_S : NAN,
		};
	}
	c->flow_rows = e->flow_rows;
	c->nflow_rows = n;
	c->nflow_ids = pk_nflows(e);
	return 0;
}

/* The quantile of a histogram: bin 0 @hist0, bins 1 on at @bins (NULL: empty), depth now
 * @q_bytes, largest @q_max (ft__pk_q_quantile). */
static uint64_t
q_quantile(uint64_t hist0, const uint64_t *bins, uint64_t q_bytes, uint64_t q_max,
           uint64_t tail_ps, double q)
{
	uint64_t tot = tail_ps, cum = 0, edge;
	uint32_t b, lg;

#define QH(b) ((b) == 0 ? hist0 : bins ? bins[(b) - 1] : 0)
	for (b = 0; b < PK_QBINS; b++)
		tot += QH(b);
	if (tot == 0)
		return 0;
	for (b = 0; b < PK_QBINS - 1; b++) {
		cum += QH(b) + (b == pk_qbin(q_bytes) ? tail_ps : 0);
		if ((double)cum >= q * (double)tot)
			break;
	}
#undef QH
	if (b == 0)
		return 0;
	if (b == PK_QBINS - 1)
		return q_max;
	if (b <= 4) {
		edge = 256u * b - 1;
	} else {
		lg = 10 + (b - 5) / 4;
		edge = ((uint64_t)(5 + (b - 5) % 4) << (lg - 2)) - 1;
	}
	return FT_MIN(edge, q_max);
}

uint64_t
ft__pk_q_quantile(const struct pk_port *p, uint64_t tail_ps, double q)
{
	return q_quantile(p->q_hist0, p->q_bins, p->q_bytes, p->q_max_bytes, tail_ps, q);
}

uint64_t
ft__pk_cq_quantile(const struct pk_cq *c, uint64_t tail_ps, double q)
{
	return q_quantile(c->q_hist0, c->q_bins, c->q_bytes, c->q_max_bytes, tail_ps, q);
}

/* The traced QPs' samples by QP, as views in @c. */
static int
qp_traces(struct pk_engine *e, struct ft_sim_counters *c, struct ft_error *err)
{
	size_t ns;

	if (!e->ntrace_qps)
		return 0;
	ft_free(e->qp_traces);
	ft_free(e->qp_cols);
	e->qp_traces = ft_calloc(e->ntrace_qps, sizeof(*e->qp_traces));
	e->qp_cols = by_entry(&e->qp_samples, e->ntrace_qps, &ns);
	if (!e->qp_traces || !e->qp_cols)
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory for the trace");
	for (uint32_t ti = 0; ti < e->ntrace_qps; ti++) {
		const struct pk_flow *f = flow_at(e, e->trace_qps[ti]);
		const double *col = e->qp_cols + 3 * ns * ti;

		e->qp_traces[ti] = (struct ft_sim_qp_trace){ .flow = e->trace_qps[ti],
			                                     .src = f->src,
			                                     .dst = f->dst,
			                                     .qp = f->qp / 1024,
			                                     .nsamples = ns,
			                                     .t_s = col,
			                                     .rate_Bps = col + ns,
			                                     .alpha = col + 2 * ns };
	}
	c->qp_trace = e->qp_traces;
	c->nqp_trace = e->ntrace_qps;
	return 0;
}

/*
 * A split run's rank 0, its counters filled: the port and priority records it widened to
 * every link for them (their histogram bins and priorities' queue records too) are read
 * no more, and go before the report's link rows are made (docs/internals/sim.md, "Where a
 * rank's memory goes at 1,024 hosts"). Kept: what a second call reads, the counters,
 * bottlenecks and @npause.
 */
static void
drop_ports(struct pk_engine *e, uint64_t npause)
{
	ft_free(e->ports_mem);
	ft_free(e->cls_mem);
	ft__pk_qbins_free(e);
	ft__pk_cq_free(e); /* (the priorities' queue records: their bins went above) */
	e->ports_mem = e->cls_mem = NULL;
	e->ports = NULL;
	e->cls_pool = NULL;
	e->report_npause = npause;
	e->ports_gone = true;
}

int
ft__pk_counters(struct ft_engine *eng, struct ft_sim_counters *c, struct ft_error *err)
{
	struct pk_engine *e = ft_container_of(eng, struct pk_engine, base);
	size_t i, n = e->ops.len;
	uint64_t end_ops_ps = 0; /* the end of the ops, if every one has ended (ended) */
	uint64_t fail_ps = e->qp_err_flow != PK_NONE ? e->qp_err_ps : e->stall_ps;
	uint64_t npause = 0; /* the refreshes of XOFFs still held */
	bool ended = true;
	uint32_t l;
	int rc;

	memset(c, 0, sizeof(*c));
	c->part_rank = ft__pk_part_rank(e);
	if (c->part_rank)
		return 0; /* rank 0 holds the split run's result */
	if (!e->op_results) {
		e->op_results = ft_calloc(n ? n : 1, sizeof(*e->op_results));
		e->link_bytes = ft_calloc(e->nlinks ? e->nlinks : 1, sizeof(double));
		e->link_maxflows = ft_calloc(e->nlinks ? e->nlinks : 1, sizeof(uint32_t));
		e->port_counters = ft_calloc(e->nlinks ? e->nlinks : 1, sizeof(*e->port_counters));
		if (!e->op_results || !e->link_bytes || !e->link_maxflows || !e->port_counters)
			return ft_error_set(err, FT_ENOMEM, "sim: out of memory for counters");
	}
	for (i = 0; i < n; i++) {
		const struct pk_op *o = ft_vec_at(&e->ops, i);
		struct ft_sim_op_result *r = &e->op_results[i];

		r->job = o->job;
		r->t_start_s =
		        (double)(task_at(e, o->start)->t_done_ps - o->base_lat_ps) / PK_PS_PER_S;
		r->t_end_s = (double)task_at(e, o->end)->t_done_ps / PK_PS_PER_S;
		/* A QP error or a deadlock ended the run before this op did: it ends, failed,
		 * there. */
		r->failed = (e->qp_err_flow != PK_NONE || e->stalled) && !task_at(e, o->end)->done;
		if (r->failed)
			r->t_end_s = (double)fail_ps / PK_PS_PER_S;
		if (!e->ports_gone) /* (else the first call's, which read the records) */
			r->bottleneck_link = UINT32_MAX;
		if (r->t_end_s > c->makespan_s)
			c->makespan_s = r->t_end_s;
		ended = ended && (r->failed || task_at(e, o->end)->done);
		end_ops_ps =
		        FT_MAX(end_ops_ps, r->failed ? fail_ps : task_at(e, o->end)->t_done_ps);
	}
	/* An op's bottleneck: the most-waited port among the links its flows crossed, ties
	 * to the first crossed (the flows built before the run, a lazy phase's in between
	 * them where it was submitted). */
	for (i = 0; !e->ports_gone && i <= e->nflows_built; i++) {
		uint32_t j, off, task, np;

		if (ft__pk_lazy_bottleneck(e, (uint32_t)i) < 0 ||
		    ft__pk_tree_bottleneck(e, (uint32_t)i) < 0)
			return ft_error_set(err, FT_ENOMEM,
			                    "sim: out of memory for the bottlenecks");
		if (i == e->nflows_built)
			break;
		/* (a split rank other than 0 keeps its own flows alone: rank 0 reports) */
		if (!pk_flow_kept(e, (uint32_t)i) && !e->fpath.len)
			continue;
		np = pk_flow_path(e, (uint32_t)i, &off, &task);
		for (j = 0; j < np; j++)
			ft__pk_bottleneck_link(e, task_at(e, task)->op,
			                       FT_VEC_AT(&e->paths, uint32_t, off + j));
	}
	/* Where NCCL's window held the op's last flow (its pace its last wait, struct pk_op
	 * last_held), the window is its bottleneck, as the flow engine names a send its cap
	 * held (engine_flow.c, ft__fs_flow_capped()); where a collective's cap held the most
	 * of its critical path (crit_pace()), the class that set the cap. A failed op keeps
	 * its port: its QP error, not a pace, ended it. */
	for (i = 0; i < n; i++) {
		const struct pk_op *o = ft_vec_at(&e->ops, i);
		bool pace = !e->op_results[i].failed && crit_pace(e, (uint32_t)i);

		if (pace || o->last_held)
			ft_strlcpy(e->op_results[i].bottleneck,
			           pace ? o->pace_what : FT__SIM_P2P_WINDOW_WHAT,
			           sizeof(e->op_results[i].bottleneck));
	}
	for (l = 0; !e->ports_gone && l < e->nlinks; l++) {
		const struct pk_port *p = pk_port_at(e, l);
		struct ft_sim_port_counters *pc = &e->port_counters[l];
		/* A port is observed from the run's start to its ops' end (the last one's, a
		 * failed one's at its QP error; a run stopped early: its last event), or to
		 * its queue's last change if later (a lossy run's resent duplicates still on
		 * their way): not to a retransmit timer that fires nothing after the ops. */
		uint64_t end_ps = FT_MAX(ended ? end_ops_ps : e->now_ps, p->t_q_ps);
		double span = (double)end_ps;

		e->link_bytes[l] = (double)p->tx_payload;
		e->link_maxflows[l] = p->maxflows;
		pc->tx_bytes = p->tx_bytes;
		pc->tx_pkts = p->tx_pkts;
		/* (the watchdog's discards, the sending side's, are drops of the port) */
		pc->drops = p->drops + p->wd_drops_held + p->wd_drops_arrived;
		pc->drops_corrupt = 0;
		pc->pause_tx = pc->pause_rx = 0;
		pc->paused_s = 0;
		/* (a priority not in use keeps its zeros: ethtool -S prints all eight) */
		for (uint32_t k = 0; p->cls && k < e->ncls; k++) {
			const struct pk_cls *q = &p->cls[k];
			struct ft_sim_prio_counters *pp = &pc->prio[e->cls_prio[k]];
			/* (an XOFF still held: its refreshes up to now, sent and received) */
			uint64_t r_ps = pk_pfc_refresh_ps(e, p);
			uint64_t held_tx = q->xoff_sent ? e->now_ps - q->t_xoff_ps : 0;
			uint64_t held_rx = q->xoff_rx ? e->now_ps - q->t_xoff_rx_ps : 0;

			pp->tx_bytes = q->tx_bytes;
			pp->tx_pkts = q->tx_pkts;
			pp->pause_tx = q->pause_tx + pk_pfc_refreshes(held_tx, r_ps, true);
			pp->pause_rx = q->pause_rx + pk_pfc_refreshes(held_rx, r_ps, true);
			npause += pp->pause_tx - q->pause_tx;
			pp->drops = q->drops + q->wd_drops;
			pp->drops_corrupt = q->drops_corrupt;
			pp->ecn_marked = q->ecn_marks;
			pp->ecn_rx = q->ecn_rx;
			pp->cnp_sent = q->cnp_sent;
			pp->cnp_handled = q->cnp_handled;
			pc->drops_corrupt += q->drops_corrupt;
			pp->paused_s = (double)(q->paused_ps +
			                        (q->paused ? e->now_ps - q->t_paused_ps : 0)) /
			               PK_PS_PER_S;
			pc->pause_tx += pp->pause_tx;
			pc->pause_rx += pp->pause_rx;
			pc->paused_s += pp->paused_s;
			pp->xmit_wait_s = (double)(q->xmit_wait_ps +
			                           (q->held ? e->now_ps - q->t_held_ps : 0)) /
			                  PK_PS_PER_S;
			/* (and one still waiting for the arbiter, to the run's end) */
			pp->arb_wait_s =
			        (double)(q->arb_wait_ps + ((p->arb_wait >> e->cls_prio[k] & 1u) ?
			                                           e->now_ps - q->t_arb_ps :
			                                           0)) /
			        PK_PS_PER_S;
		}
		/* (a port still held when the run stopped, a deadlock's, waits to its end) */
		pc->xmit_wait_s =
		        (double)(p->xmit_wait_ps + (p->blocked ? e->now_ps - p->t_blocked_ps : 0)) /
		        PK_PS_PER_S;
		pc->ecn_marked = p->ecn_marks;
		pc->ecn_rx = p->ecn_rx;
		pc->cnp_sent = p->cnp_sent;
		pc->cnp_handled = p->cnp_handled;
		pc->q_max_bytes = p->q_max_bytes;
		pc->pfc_wd_fires = p->wd_fires;
		pc->pfc_wd_restores = p->wd_restores;
		pc->pfc_wd_drops_held = p->wd_drops_held;
		pc->pfc_wd_drops_arrived = p->wd_drops_arrived;
		{
			/* the last storm: one still on counts to the run's end */
			uint64_t last[PK_WDL_N], now[PK_WDL_N];

			memcpy(last, p->wd_last, sizeof(last));
			if (p->wd_open) {
				pk_wd_now(e, l, now);
				for (int w = 0; w < PK_WDL_N; w++)
					last[w] = now[w] - p->wd_base[w];
			}
			pc->pfc_wd_last_tx_ok = last[PK_WDL_TX_OK];
			pc->pfc_wd_last_tx_drop = last[PK_WDL_TX_DROP];
			pc->pfc_wd_last_rx_drop = last[PK_WDL_RX_DROP];
			pc->pfc_wd_last_rx_ok = last[PK_WDL_RX_IN] -
			                        FT_MIN(last[PK_WDL_RX_DROP], last[PK_WDL_RX_IN]);
		}
		pc->ack_timeouts = p->qp_timeouts;
		pc->retries_exceeded = p->qp_retry_exc;
		pc->seq_naks = p->qp_naks;
		pc->out_of_seq = p->rq_oos;
		pc->dup_requests = p->rq_dup;
		pc->rx_writes = p->rq_writes;
		pc->q_p99_bytes = ft__pk_q_quantile(p, end_ps - p->t_q_ps, 0.99);
		pc->q_mean_bytes =
		        span > 0 ?
		                (p->q_area + (double)p->q_bytes * (double)(end_ps - p->t_q_ps)) /
		                        span :
		                0;
		/* Each priority's queue: the port's own figures while one priority alone ever
		 * queued there, else its record (pk_port q_solo); over the port's span. */
		for (uint32_t k = 0; p->cls && k < e->ncls; k++) {
			const struct pk_cq *cq = p->cls[k].cq;
			struct ft_sim_prio_counters *pp = &pc->prio[e->cls_prio[k]];

			if (p->q_solo == 1u + e->cls_prio[k]) {
				pp->q_mean_bytes = pc->q_mean_bytes;
				pp->q_p99_bytes = pc->q_p99_bytes;
				pp->q_max_bytes = pc->q_max_bytes;
			} else if (p->q_solo == PK_QSOLO_SHARED && cq) {
				uint64_t tail = end_ps - cq->t_q_ps;

				pp->q_max_bytes = cq->q_max_bytes;
				pp->q_p99_bytes = ft__pk_cq_quantile(cq, tail, 0.99);
				pp->q_mean_bytes =
				        span > 0 ?
				                (cq->q_area + (double)cq->q_bytes * (double)tail) / span :
				                0;
			} else {
				pp->q_mean_bytes = 0;
				pp->q_p99_bytes = pp->q_max_bytes = 0;
			}
		}
	}
	if (e->ports_gone)
		npause = e->report_npause;
	else if (e->drop_ports)
		drop_ports(e, npause);
	rc = ft__sim_fct_stats(e->fct, e->ideal, e->nflows_done, c);
	if (rc == 0)
		rc = prio_fct(e, c);
	if (rc == 0)
		rc = op_fct(e, c);
	if (rc < 0)
		return ft_error_set(err, rc, "sim: out of memory for counters");
	c->nflows = e->nflows_done;
	c->nevents = e->nevents;
	c->bytes = (double)e->bytes_delivered;
	c->npackets = e->npackets;
	c->ndrops = e->ndrops;
	c->nretx = e->nretx;
	c->nfast_retx = e->ntcp_fast;
	c->ntail_probes = e->nsrd_probes;
	c->nsack_recoveries = e->ntcp_sack;
	c->ndelayed_acks = e->ntcp_delack;
	c->ntcp_timeouts = e->ntcp_rto;
	/* (kept per connection: pkt_tcp.c; a split run's summed over its ranks) */
	if (!e->tcp_ctr_all)
		ft__pk_tcp_counters(e, e->tcp_ctr);
	c->nloss_probes = e->tcp_ctr[PK_TCP_CTR_TLP];
	c->nloss_probe_recoveries = e->tcp_ctr[PK_TCP_CTR_TLP_REC];
	c->nreo_timeouts = e->tcp_ctr[PK_TCP_CTR_REO];
	c->nlost_retransmits = e->tcp_ctr[PK_TCP_CTR_LOST_RTX];
	c->ndsacks = e->tcp_ctr[PK_TCP_CTR_DSACK];
	c->npause = e->npause + npause;
	c->necn = e->necn;
	c->ncnp = e->ncnp;
	c->nwatchdog = e->nwdog;
	c->nwd_restores = e->nwd_restores;
	c->nwd_drops = e->nwd_drops;
	c->pfc_watchdog = e->wd_ps > 0;
	c->pfc_wd_action = e->pc.pfc_watchdog_action;
	c->nic_msgs = e->nic_msgs;
	c->nic_missed = e->nic_missed;
	c->nic_wait_s = (double)e->nic_wait_ps / PK_PS_PER_S;
	c->nops = n;
	c->ops = e->op_results;
	c->op_counters = e->op_acc;
	c->nlinks = e->nlinks;
	c->link_bytes = e->link_bytes;
	c->link_max_flows = e->link_maxflows;
	c->port = e->port_counters;
	ft__pk_qp_error(e, &c->qp_error);
	c->stall.stalled = e->stalled;
	c->stall.t_s = e->stalled ? (double)e->stall_ps / PK_PS_PER_S : 0;
	c->stall.unfinished = e->stalled ? e->nflows_all - e->nflows_done : 0;
	c->stall.nflows_all = e->stalled ? e->nflows_all : 0;
	if (e->ntrace) {
		size_t ns;

		ft_free(e->traces);
		ft_free(e->trace_cols);
		e->traces = ft_calloc(e->ntrace, sizeof(*e->traces));
		e->trace_cols = by_entry(&e->trace_samples, e->ntrace, &ns);
		if (!e->traces || !e->trace_cols)
			return ft_error_set(err, FT_ENOMEM, "sim: out of memory for the trace");
		for (uint32_t ti = 0; ti < e->ntrace; ti++) {
			const double *col = e->trace_cols + 3 * ns * ti;

			e->traces[ti] = (struct ft_sim_trace){ .link = e->trace_links[ti],
				                               .nsamples = ns,
				                               .t_s = col,
				                               .rate_Bps = col + ns,
				                               .queue_bytes = col + 2 * ns };
		}
		c->trace = e->traces;
		c->ntrace = e->ntrace;
	}
	if (e->pc.list_flows && flow_rows(e, c) < 0)
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory for --list-flows");
	return qp_traces(e, c, err);
}

const struct pk_port *
ft__pk_port(const struct ft_engine *eng, uint32_t link)
{
	const struct pk_engine *e = ft_container_of(eng, const struct pk_engine, base);

	return link < e->nlinks && !e->ports_gone ? pk_port_at(e, link) : NULL;
}

void
ft__pk_bytes(const struct ft_engine *eng, uint64_t *submitted, uint64_t *delivered)
{
	const struct pk_engine *e = ft_container_of(eng, const struct pk_engine, base);

	*submitted = e->bytes_submitted;
	*delivered = e->bytes_delivered;
}

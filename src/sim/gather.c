/* SPDX-License-Identifier: MIT */
/*
 * sim/gather.c - a run's report from the engine's counters: a row per op of
 * every job (the shared data model), the links with their bytes and
 * utilization, the hottest ones, and the bottleneck of each op in words.
 */
#include "run_int.h"

#include <fabtune/model.h>
#include <fabtune/sim.h>

static void
link_entry(const struct ft_topo *t, const struct ft_sim_counters *c, uint32_t l, double makespan,
           struct ft_sim_hot_link *h)
{
	const struct ft_link *lk = ft_topo_link(t, l);
	char a[40], b[40];

	memset(h, 0, sizeof(*h));
	h->stat.link = l;
	h->stat.bytes = c->link_bytes[l];
	h->cap_Bps = lk->cap_Bps * ft_topo_link_scale(t, l);
	h->stat.util =
	        makespan > 0 && h->cap_Bps > 0 ? c->link_bytes[l] / (h->cap_Bps * makespan) : 0;
	h->stat.max_flows = c->link_max_flows ? c->link_max_flows[l] : 0;
	h->tier = lk->tier;
	if (c->port) { /* packet engine: what --counters renders, for --json too */
		const struct ft_sim_port_counters *rev = &c->port[lk->rev];

		h->has_port = true;
		h->port = c->port[l];
		/* The engine keeps a PFC frame with the buffer that sent it, the ingress
		 * buffer at the far end of the link it paused; the frame itself leaves on
		 * the reverse link. A port's pause_sent is what its own device sent out
		 * of it, as ethtool -S tx_prio<p>_pause and SONiC's Port Tx count them:
		 * the frames of the ingress buffer behind the reverse link. */
		h->port.pause_tx = rev->pause_tx;
		for (int p = 0; p < FT_PKT_NPRIO; p++)
			h->port.prio[p].pause_tx = rev->prio[p].pause_tx;
	}
	ft_strlcpy(h->kind, ft_link_kind_name(lk->kind), sizeof(h->kind));
	ft_topo_vertex_name(t, lk->src, a, sizeof(a));
	ft_topo_vertex_name(t, lk->dst, b, sizeof(b));
	snprintf(h->name, sizeof(h->name), "%s -> %s", a, b);
}

static int
gather_links(const struct ft_topo *t, const struct ft_sim_counters *c, struct ft_sim_report *r)
{
	uint32_t l, i, nhot = 0;
	uint32_t hot[FT_SIM_NHOT];
	double mk = c->makespan_s;

	/* Hottest links: a fixed-size insertion list, ties to the lower link id. */
	for (l = 0; l < c->nlinks; l++) {
		const struct ft_link *lk = ft_topo_link(t, l);
		double cap = lk->cap_Bps * ft_topo_link_scale(t, l);
		double u = cap > 0 && mk > 0 ? c->link_bytes[l] / (cap * mk) : 0;
		struct ft_sim_tier_stat *ts = NULL;

		if (c->link_bytes[l] <= 0) {
			/* No data, but its sender paused the far end: listed in "ports",
			 * where its pause_sent is (link_entry) */
			if (c->port && c->port[lk->rev].pause_tx > 0) {
				r->nports_used++;
				if (r->ports.len < FT_SIM_MAX_PORTS) {
					struct ft_sim_hot_link h;

					link_entry(t, c, l, mk, &h);
					if (ft_vec_push(&r->ports, &h) < 0)
						return FT_ENOMEM;
				}
			}
			continue;
		}
		r->nlinks_used++;
		r->nports_used++;
		for (i = 0; i < r->tiers.len; i++) {
			struct ft_sim_tier_stat *x = ft_vec_at(&r->tiers, i);

			if (x->tier == lk->tier &&
			    strcmp(x->kind, ft_link_kind_name(lk->kind)) == 0)
				ts = x;
		}
		if (!ts) {
			struct ft_sim_tier_stat z = { 0 };

			ft_strlcpy(z.kind, ft_link_kind_name(lk->kind), sizeof(z.kind));
			z.tier = lk->tier;
			if (ft_vec_push(&r->tiers, &z) < 0)
				return FT_ENOMEM;
			ts = ft_vec_at(&r->tiers, r->tiers.len - 1);
		}
		ts->nlinks++;
		ts->bytes += c->link_bytes[l];
		ts->util_mean += u;
		if (u > ts->util_max)
			ts->util_max = u;
		{
			/* Insertion by (util desc, link asc). */
			uint32_t pos = nhot;

			while (pos > 0) {
				uint32_t o = hot[pos - 1];
				double co = ft_topo_link(t, o)->cap_Bps * ft_topo_link_scale(t, o);
				double uo = co > 0 ? c->link_bytes[o] / (co * mk) : 0;

				if (uo >= u)
					break;
				pos--;
			}
			if (pos < FT_SIM_NHOT) {
				uint32_t last = nhot < FT_SIM_NHOT ? nhot : FT_SIM_NHOT - 1;

				memmove(&hot[pos + 1], &hot[pos], (last - pos) * sizeof(uint32_t));
				hot[pos] = l;
				if (nhot < FT_SIM_NHOT)
					nhot++;
			}
		}
		if (r->ports.len < FT_SIM_MAX_PORTS) {
			struct ft_sim_hot_link h;

			link_entry(t, c, l, mk, &h);
			if (ft_vec_push(&r->ports, &h) < 0)
				return FT_ENOMEM;
		}
	}
	for (i = 0; i < r->tiers.len; i++) {
		struct ft_sim_tier_stat *x = ft_vec_at(&r->tiers, i);

		x->util_mean /= x->nlinks;
	}
	for (i = 0; i < nhot; i++) {
		struct ft_sim_hot_link h;

		link_entry(t, c, hot[i], mk, &h);
		if (ft_vec_push(&r->hot, &h) < 0)
			return FT_ENOMEM;
	}
	return 0;
}

/*
 * The class of link that limited an op, in the words of the result rows:
 * "nvlink", "pcie", "cpu" inside a node, "nic" for a host link, "tier2" /
 * "tier3" for the fabric tiers; "" when nothing was limited by a link.
 */
static void
bottleneck_name(const struct ft_topo *t, uint32_t link, char *buf, size_t len)
{
	const struct ft_link *l;

	buf[0] = '\0';
	if (link == UINT32_MAX || link >= ft_topo_nlinks(t))
		return;
	l = ft_topo_link(t, link);
	if (l->kind == FT_L_HOST)
		ft_strlcpy(buf, "nic", len);
	else if (l->kind == FT_L_FABRIC)
		snprintf(buf, len, "tier%u", l->tier);
	else
		ft_strlcpy(buf, ft_link_kind_name(l->kind), len);
}

int
ft__sim_gather(const struct ft_scenario *sc, const struct ft_topo *t,
               const struct ft_sim_counters *c, struct job_run *jrs,
               const struct ft_sim_overrides *ov, struct ft_sim_report *r, struct ft_error *err)
{
	size_t ji, k;
	int rc;

	r->c = *c;
	r->c.ops = NULL;
	r->c.op_counters = NULL;
	r->c.link_bytes = NULL;
	r->c.link_max_flows = NULL;
	for (ji = 0; ji < sc->jobs.len; ji++) {
		const struct sc_job *j = ft_vec_at(&sc->jobs, ji);
		struct job_run *jr = &jrs[ji];
		struct ft_sim_job_report jrep = { 0 };
		double end = jr->last_op >= 0 ? c->ops[jr->last_op].t_end_s : 0;

		ft_strlcpy(jrep.name, j->name, sizeof(jrep.name));
		jrep.nranks = jr->nranks;
		jrep.iterations = j->iterations;
		jrep.compute_s = jr->compute_s;
		jrep.t_end_s = end;
		jrep.iter_s = end / j->iterations;
		jrep.comm_s = jrep.iter_s - jr->compute_s;
		jrep.comm_share = jrep.iter_s > 0 ? jrep.comm_s / jrep.iter_s : 0;
		if (ft_vec_push(&r->jobs, &jrep) < 0)
			return ft_error_set(err, FT_ENOMEM, "out of memory");
		for (k = 0; k < jr->first_ops.len; k++) {
			const struct sc_op *o = ft_vec_at(&j->ops, k);
			int64_t id = FT_VEC_AT(&jr->first_ops, int64_t, k);
			struct ft_result_row row;
			double dt = c->ops[id].t_end_s - c->ops[id].t_start_s;

			ft_result_row_init(&row);
			ft_strlcpy(row.test, ft_op_name(o->op), sizeof(row.test));
			row.bytes = ft__sim_op_bytes(o, ov);
			row.nranks = jr->nranks;
			row.root = -1;
			/* An op a QP error cut short has no time: NaN, "failed" in the table. */
			row.time_us = c->ops[id].failed ? NAN : dt * 1e6;
			row.algbw_GBps = dt > 0 ? (double)row.bytes / dt / 1e9 : 0;
			row.algbw_GBps = c->ops[id].failed ? NAN : row.algbw_GBps;
			row.busbw_GBps = row.algbw_GBps * ft_coll_busbw_factor(o->op, jr->nranks);
			row.nsamples = 1;
			const uint32_t *ap = ft_vec_at(&jr->first_algo, k);

			/* CollNet: the variant NCCL's tuner picked and the engine ran */
			ft_model_algo_label((enum ft_algo)ap[0],
			                    ap[0] != FT_ALGO_COLLNET ? NULL :
			                    ap[2]                    ? "chain" :
			                                               "direct",
			                    row.algo, sizeof(row.algo));
			ft_strlcpy(row.proto, ft_proto_name((enum ft_proto)ap[1]), sizeof(row.proto));
			ft_strlcpy(row.src, j->name, sizeof(row.src));
			if (c->ops[id].bottleneck[0])
				ft_strlcpy(row.bottleneck, c->ops[id].bottleneck,
				           sizeof(row.bottleneck));
			else
				bottleneck_name(t, c->ops[id].bottleneck_link, row.bottleneck,
				                sizeof(row.bottleneck));
			if (ft_run_add(&r->run, &row) < 0 ||
			    (c->op_counters &&
			     ft_vec_push(&r->op_counters, &c->op_counters[id]) < 0))
				return ft_error_set(err, FT_ENOMEM, "out of memory");
		}
	}
	rc = gather_links(t, c, r);
	if (rc < 0)
		return ft_error_set(err, rc, "out of memory");
	return 0;
}

/* Op @id's name: "<job> <collective>" for a first iteration's op ("<collective>" when
 * the job is named so), "<job> op <id>"
 * for a later one, "background op <id>" for background traffic. */
static void
op_name(const struct ft_scenario *sc, const struct ft_sim_counters *c,
        const struct job_run *jrs, uint32_t id, char *buf, size_t n)
{
	uint32_t ji = id < c->nops ? c->ops[id].job : UINT32_MAX;
	const struct sc_job *j;

	if (ji >= sc->jobs.len) {
		snprintf(buf, n, "background op %u", id);
		return;
	}
	j = ft_vec_at(&sc->jobs, ji);
	for (size_t k = 0; k < jrs[ji].first_ops.len && k < j->ops.len; k++)
		if (FT_VEC_AT(&jrs[ji].first_ops, int64_t, k) == (int64_t)id) {
			const char *op = ft_op_name(((const struct sc_op *)ft_vec_at(&j->ops, k))->op);

			/* a collective on a spec: its job is named after it */
			snprintf(buf, n, "%s%s%s", strcmp(j->name, op) ? j->name : "",
			         strcmp(j->name, op) ? " " : "", op);
			return;
		}
	snprintf(buf, n, "%s op %u", j->name, id);
}

int
ft__sim_gather_flows(const struct ft_scenario *sc, const struct ft_topo *t,
                     const struct ft_sim_counters *c, const struct job_run *jrs,
                     struct ft_sim_report *r, struct ft_error *err)
{
	if (!c->flow_rows)
		return ft_error_set(err, FT_ENOTSUP,
		                    "--list-flows: only the packet engine numbers its flows "
		                    "(--engine packet)");
	r->nflow_ids = c->nflow_ids;
	for (size_t i = 0; i < c->nflow_rows; i++) {
		struct ft_sim_flow_text f = { .row = c->flow_rows[i] };

		ft_topo_vertex_name(t, f.row.src, f.src, sizeof(f.src));
		ft_topo_vertex_name(t, f.row.dst, f.dst, sizeof(f.dst));
		op_name(sc, c, jrs, f.row.op, f.op, sizeof(f.op));
		if (ft_vec_push(&r->flows, &f) < 0)
			return ft_error_set(err, FT_ENOMEM, "--list-flows: out of memory");
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * sim/report.c - render a scenario report: JSON (everything) and the
 * terminal summary (per-op table, jobs, flow completion times, hottest links
 * and per-tier utilization). Fixed formats, C locale: the same report gives
 * the same bytes.
 */
#include "sim_int.h"

#include <fabtune/json.h>
#include <fabtune/model.h>
#include <fabtune/sim.h>
#include <fabtune/table.h>
#include <fabtune/units.h>

#include "base/fields.h"

#define F(st, key, type, m) FT__FIELD(struct st, key, type, m)

static const struct ft__field row_fields[] = {
	F(ft_result_row, "job", STR, src),
	F(ft_result_row, "op", STR, test),
	F(ft_result_row, "algo", STR, algo),
	F(ft_result_row, "proto", STR, proto),
	F(ft_result_row, "bytes", UINT, bytes),
	F(ft_result_row, "nranks", UINT, nranks),
	F(ft_result_row, "time_us", NUM, time_us),
	F(ft_result_row, "algbw_GBps", NUM, algbw_GBps),
	F(ft_result_row, "busbw_GBps", NUM, busbw_GBps),
	F(ft_result_row, "bottleneck", STR, bottleneck),
};

static const struct ft__field job_fields[] = {
	F(ft_sim_job_report, "name", STR, name),
	F(ft_sim_job_report, "nranks", UINT, nranks),
	F(ft_sim_job_report, "iterations", UINT, iterations),
	F(ft_sim_job_report, "compute_us", US, compute_s),
	F(ft_sim_job_report, "iteration_us", US, iter_s),
	F(ft_sim_job_report, "comm_us", US, comm_s),
	F(ft_sim_job_report, "comm_share", NUM, comm_share),
	F(ft_sim_job_report, "end_us", US, t_end_s),
};

static const struct ft__field fct_fields[] = {
	F(ft_sim_counters, "min", US, fct_min_s),
	F(ft_sim_counters, "p50", US, fct_p50_s),
	F(ft_sim_counters, "p99", US, fct_p99_s),
	F(ft_sim_counters, "max", US, fct_max_s),
};

/* The packet engine's counters of one op's flows (after its row's job, op and algo). */
static const struct ft__field op_counter_fields[] = {
	F(ft_sim_op_counters, "flows", UINT, nflows),
	F(ft_sim_op_counters, "bytes", UINT, bytes),
	F(ft_sim_op_counters, "packets", UINT, npackets),
	F(ft_sim_op_counters, "drops", UINT, ndrops),
	F(ft_sim_op_counters, "retransmitted", UINT, nretx),
	F(ft_sim_op_counters, "ecn_marked", UINT, necn),
	F(ft_sim_op_counters, "cnps", UINT, ncnp),
};

static const struct ft__field op_fct_fields[] = {
	F(ft_sim_op_counters, "p50", US, fct_p50_s),
	F(ft_sim_op_counters, "p99", US, fct_p99_s),
	F(ft_sim_op_counters, "max", US, fct_max_s),
};

static const struct ft__field ideal_fields[] = {
	F(ft_sim_counters, "min", US, ideal_min_s),
	F(ft_sim_counters, "p50", US, ideal_p50_s),
	F(ft_sim_counters, "max", US, ideal_max_s),
};

static const struct ft__field slowdown_fields[] = {
	F(ft_sim_counters, "p50", NUM, slowdown_p50),
	F(ft_sim_counters, "p99", NUM, slowdown_p99),
	F(ft_sim_counters, "max", NUM, slowdown_max),
};

static const struct ft__field prio_fct_fields[] = {
	F(ft_sim_prio_fct, "p50", US, fct_p50_s),
	F(ft_sim_prio_fct, "p99", US, fct_p99_s),
	F(ft_sim_prio_fct, "max", US, fct_max_s),
};

static const struct ft__field tier_fields[] = {
	F(ft_sim_tier_stat, "kind", STR, kind),
	F(ft_sim_tier_stat, "tier", UINT, tier),
	F(ft_sim_tier_stat, "links_used", UINT, nlinks),
	F(ft_sim_tier_stat, "bytes", NUM, bytes),
	F(ft_sim_tier_stat, "util_mean", NUM, util_mean),
	F(ft_sim_tier_stat, "util_max", NUM, util_max),
};

static const struct ft__field size_fields[] = {
	F(ft_sim_size_stat, "bytes", UINT, bytes),
	F(ft_sim_size_stat, "op", STR, op),
	F(ft_sim_size_stat, "kind", STR, kind),
	F(ft_sim_size_stat, "tier", UINT, tier),
	F(ft_sim_size_stat, "links_used", UINT, nlinks),
	F(ft_sim_size_stat, "time_us", US, time_s),
	F(ft_sim_size_stat, "util_mean", NUM, util_mean),
	F(ft_sim_size_stat, "util_max", NUM, util_max),
	F(ft_sim_size_stat, "busiest", STR, busiest),
};

static const struct ft__field link_fields[] = {
	F(ft_sim_hot_link, "link", UINT, stat.link),
	F(ft_sim_hot_link, "name", STR, name),
	F(ft_sim_hot_link, "kind", STR, kind),
	F(ft_sim_hot_link, "tier", UINT, tier),
	FT__FIELD_SCALED(struct ft_sim_hot_link, "cap_GBps", cap_Bps, 1e-9),
	F(ft_sim_hot_link, "bytes", NUM, stat.bytes),
	F(ft_sim_hot_link, "util", NUM, stat.util),
	F(ft_sim_hot_link, "max_flows", UINT, stat.max_flows),
};

/* A packet engine port's counters (struct ft_sim_port_counters), as --counters renders
 * them: on the link's sender, what it put on the wire, the pause frames it sent out of
 * that port and received on it (gather.c link_entry), how long it was paused or waited
 * for credits, the CE marks its egress queue set and that queue's depth; at the far end,
 * the drops of the ingress buffer; on a NIC's fabric links, the CE packets delivered and
 * the CNPs sent and handled there. */
static const struct ft__field port_fields[] = {
	F(ft_sim_port_counters, "packets", UINT, tx_pkts),
	F(ft_sim_port_counters, "wire_bytes", UINT, tx_bytes),
	F(ft_sim_port_counters, "drops", UINT, drops),
	F(ft_sim_port_counters, "drops_corrupt", UINT, drops_corrupt),
	F(ft_sim_port_counters, "pause_sent", UINT, pause_tx),
	F(ft_sim_port_counters, "pause_received", UINT, pause_rx),
	F(ft_sim_port_counters, "paused_us", US, paused_s),
	F(ft_sim_port_counters, "xmit_wait_us", US, xmit_wait_s),
	F(ft_sim_port_counters, "ecn_marked", UINT, ecn_marked),
	F(ft_sim_port_counters, "ecn_received", UINT, ecn_rx),
	F(ft_sim_port_counters, "cnp_sent", UINT, cnp_sent),
	F(ft_sim_port_counters, "cnp_handled", UINT, cnp_handled),
	F(ft_sim_port_counters, "queue_mean_bytes", NUM, q_mean_bytes),
	F(ft_sim_port_counters, "queue_p99_bytes", UINT, q_p99_bytes),
	F(ft_sim_port_counters, "queue_max_bytes", UINT, q_max_bytes),
	F(ft_sim_port_counters, "pfc_watchdog", UINT, pfc_wd_fires),
};

static const struct ft__field prio_fields[] = {
	F(ft_sim_prio_counters, "packets", UINT, tx_pkts),
	F(ft_sim_prio_counters, "wire_bytes", UINT, tx_bytes),
	F(ft_sim_prio_counters, "drops", UINT, drops),
	F(ft_sim_prio_counters, "drops_corrupt", UINT, drops_corrupt),
	F(ft_sim_prio_counters, "pause_sent", UINT, pause_tx),
	F(ft_sim_prio_counters, "pause_received", UINT, pause_rx),
	F(ft_sim_prio_counters, "paused_us", US, paused_s),
	F(ft_sim_prio_counters, "xmit_wait_us", US, xmit_wait_s),
	F(ft_sim_prio_counters, "arb_wait_us", US, arb_wait_s),
	F(ft_sim_prio_counters, "ecn_marked", UINT, ecn_marked),
	F(ft_sim_prio_counters, "ecn_received", UINT, ecn_rx),
	F(ft_sim_prio_counters, "cnp_sent", UINT, cnp_sent),
	F(ft_sim_prio_counters, "cnp_handled", UINT, cnp_handled),
	F(ft_sim_prio_counters, "queue_mean_bytes", NUM, q_mean_bytes),
	F(ft_sim_prio_counters, "queue_p99_bytes", UINT, q_p99_bytes),
	F(ft_sim_prio_counters, "queue_max_bytes", UINT, q_max_bytes),
};

#undef F

/* The plural ending of a count of @n things */
#define PLURAL(n) ((n) == 1 ? "" : "s")

/* Whether a run's TCP lost anything (its recovery counters shown, the packet engine's
 * TCP for GPUDirect-TCPX/O: pkt_tcp.c): a lossless run keeps the report it had. */
static bool
tcp_counted(const struct ft_sim_counters *c)
{
	return c->nfast_retx || c->nsack_recoveries || c->ntcp_timeouts || c->nloss_probes ||
	       c->nreo_timeouts || c->nlost_retransmits || c->ndsacks;
}

/* "ports": each link's byte counters and, from the packet engine, its port counters under
 * "packet" with the priorities that carried or paused anything under "priorities". */
static void
ports_json(struct ft_json *j, const struct ft_vec *v)
{
	size_t i;
	uint32_t p;

	ft_json_key(j, "ports");
	ft_json_arr_begin(j);
	for (i = 0; i < v->len; i++) {
		const struct ft_sim_hot_link *h = ft_vec_at(v, i);

		ft_json_obj_begin(j);
		ft__json_fields(j, h, link_fields, FT_ARRAY_SIZE(link_fields));
		if (h->has_port) {
			ft_json_key(j, "packet");
			ft_json_obj_begin(j);
			ft__json_fields(j, &h->port, port_fields, FT_ARRAY_SIZE(port_fields));
			if (h->port.pfc_wd_fires) {
				/* the watchdog fired on the port: how many of its storms were
				 * restored, and its last storm's packets as show pfcwd stats
				 * prints them (TX/RX LAST OK/DROP; docs/cmd/sim.md) */
				const struct ft_sim_port_counters *w = &h->port;

				ft_json_kv_uint(j, "pfc_watchdog_restored", w->pfc_wd_restores);
				ft_json_key(j, "pfc_watchdog_last_storm");
				ft_json_obj_begin(j);
				ft_json_kv_uint(j, "tx_ok", w->pfc_wd_last_tx_ok);
				ft_json_kv_uint(j, "tx_drop", w->pfc_wd_last_tx_drop);
				ft_json_kv_uint(j, "rx_ok", w->pfc_wd_last_rx_ok);
				ft_json_kv_uint(j, "rx_drop", w->pfc_wd_last_rx_drop);
				ft_json_obj_end(j);
			}
			if (h->port.pfc_wd_drops_held || h->port.pfc_wd_drops_arrived) {
				/* the watchdog's action drop (docs/cmd/sim.md, packet:) */
				ft_json_kv_uint(j, "pfc_watchdog_drops_held", h->port.pfc_wd_drops_held);
				ft_json_kv_uint(j, "pfc_watchdog_drops_arrived",
				                h->port.pfc_wd_drops_arrived);
			}
			ft_json_key(j, "priorities");
			ft_json_arr_begin(j);
			for (p = 0; p < FT_PKT_NPRIO; p++) {
				const struct ft_sim_prio_counters *q = &h->port.prio[p];

				if (!q->tx_pkts && !q->pause_tx && !q->pause_rx && !q->drops)
					continue;
				ft_json_obj_begin(j);
				ft_json_kv_uint(j, "priority", p);
				ft__json_fields(j, q, prio_fields, FT_ARRAY_SIZE(prio_fields));
				ft_json_obj_end(j);
			}
			ft_json_arr_end(j);
			ft_json_obj_end(j);
		}
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
}

/* A vector of records, each an object of @fields, as the array at @key. */
static void
records_json(struct ft_json *j, const char *key, const struct ft_vec *v,
             const struct ft__field *fields, size_t n)
{
	size_t i;

	ft_json_key(j, key);
	ft_json_arr_begin(j);
	for (i = 0; i < v->len; i++)
		ft__json_object(j, NULL, ft_vec_at(v, i), fields, n);
	ft_json_arr_end(j);
}

/* --list-flows: the engine's flow ids in all, and the first ones listed. */
static void
flows_json(const struct ft_sim_report *r, struct ft_json *j)
{
	ft_json_kv_uint(j, "ids", r->nflow_ids);
	ft_json_key(j, "list");
	ft_json_arr_begin(j);
	for (size_t i = 0; i < r->flows.len; i++) {
		const struct ft_sim_flow_text *f = ft_vec_at(&r->flows, i);

		ft_json_obj_begin(j);
		ft_json_kv_uint(j, "id", f->row.id);
		ft_json_kv_str(j, "src", f->src);
		ft_json_kv_str(j, "dst", f->dst);
		ft_json_kv_uint(j, "qp", f->row.qp);
		ft_json_kv_str(j, "op", f->op);
		ft_json_kv_uint(j, "bytes", f->row.bytes);
		ft__json_kv_num(j, "start_us", f->row.start_s * 1e6);
		ft__json_kv_num(j, "fct_us", f->row.fct_s * 1e6);
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
}

/* The QP error that ended a packet run (kb SYM-ERR-12): NCCL's completion status; or
 * the buffer deadlock that stopped it. */
static void
failure_json(const struct ft_sim_report *r, struct ft_json *j)
{
	const struct ft_sim_qp_error *q = &r->c.qp_error;

	ft_json_key(j, "failure");
	ft_json_obj_begin(j);
	if (r->failure.deadlock) {
		ft_json_kv_str(j, "name", "buffer deadlock");
		ft__json_kv_num(j, "time_us", r->c.stall.t_s * 1e6);
		ft_json_kv_uint(j, "flows_unfinished", r->c.stall.unfinished);
		ft_json_kv_uint(j, "flows", r->c.stall.nflows_all);
		ft_json_kv_str(j, "message", r->failure.message);
		ft_json_obj_end(j);
		return;
	}
	ft_json_kv_uint(j, "status", q->tcp ? FT_SIM_TCP_ERR_STATUS : FT_SIM_QP_ERR_STATUS);
	ft_json_kv_str(j, "name", q->tcp ? FT_SIM_TCP_ERR_NAME : FT_SIM_QP_ERR_NAME);
	ft_json_kv_uint(j, "qp", q->qp);
	ft_json_kv_str(j, "src", r->failure.src);
	ft_json_kv_str(j, "dst", r->failure.dst);
	ft__json_kv_str_or_null(j, "nic", r->failure.nic);
	ft__json_kv_num(j, "time_us", q->t_s * 1e6);
	ft_json_kv_uint(j, "retries", q->retry_cnt); /* the QP's retry_cnt, NCCL_IB_RETRY_CNT */
	ft_json_kv_uint(j, "timeouts", q->timeouts); /* in a row without an ACK: retries + 1 */
	ft__json_kv_num(j, "timeout_us", q->timeout_s * 1e6);
	if (q->tcp) /* its first resend by a timeout, from which tcp_retries2's time runs */
		ft__json_kv_num(j, "first_resend_us", q->rtx_s * 1e6);
	ft__json_kv_str_or_null(j, "link_down", r->failure.link_down);
	ft_json_kv_str(j, "message", r->failure.message);
	ft_json_obj_end(j);
}

/* The same in one line of the text report, before the rows it cut short. */
static void
failure_text(const struct ft_sim_report *r, struct ft_strbuf *out)
{
	const struct ft_sim_qp_error *q = &r->c.qp_error;
	const char *nic = strcmp(r->failure.nic, r->failure.src) ? r->failure.nic : "";
	char t[32], dt[32];

	if (r->failure.deadlock) {
		ft_format_duration(r->c.stall.t_s, t, sizeof(t));
		ft_strbuf_addf(out,
		               "failed: buffer deadlock found at %s (the last event: nothing "
		               "moved after it) with %" PRIu64 " of %" PRIu64
		               " flows unfinished; what follows, counters included, is up to "
		               "then\n",
		               t, r->c.stall.unfinished, r->c.stall.nflows_all);
		return;
	}
	ft_format_duration(q->t_s, t, sizeof(t));
	ft_format_duration(q->timeout_s, dt, sizeof(dt));
	if (q->tcp) {
		char t1[32];

		ft_format_duration(q->rtx_s, t1, sizeof(t1));
		ft_strbuf_addf(out, "failed: TCP connection %u from %s%s%s%s to %s at %s with %s "
		               "(status %u): %u retransmit timeouts without an ACK from its first "
		               "resend at %s (tcp_retries2 %u)",
		               q->qp, r->failure.src, nic[0] ? " (by " : "", nic, nic[0] ? ")" : "",
		               r->failure.dst, t, FT_SIM_TCP_ERR_NAME, FT_SIM_TCP_ERR_STATUS,
		               q->timeouts, t1, q->retry_cnt);
		if (r->failure.link_down[0])
			ft_strbuf_addf(out, "; link %s is down", r->failure.link_down);
		ft_strbuf_adds(out, "; what follows is up to then\n");
		return;
	}
	ft_strbuf_addf(out, "failed: QP %u from %s%s%s%s to %s at %s with %s (status %u): %u "
	               "retransmit timeouts of %s without an ACK (NCCL_IB_RETRY_CNT %u)",
	               q->qp, r->failure.src, nic[0] ? " (by " : "", nic, nic[0] ? ")" : "",
	               r->failure.dst, t, FT_SIM_QP_ERR_NAME,
	               FT_SIM_QP_ERR_STATUS, q->timeouts, dt, q->retry_cnt);
	if (r->failure.link_down[0])
		ft_strbuf_addf(out, "; link %s is down", r->failure.link_down);
	ft_strbuf_adds(out, "; what follows is up to then\n");
}

/* The background patterns, with their on/off shape and start jitter. */
static void
background_json(const struct ft_sim_report *r, struct ft_json *j)
{
	ft_json_key(j, "background");
	ft_json_arr_begin(j);
	for (size_t k = 0; k < r->background.len; k++) {
		const struct ft_sim_background *b = ft_vec_at(&r->background, k);

		ft_json_obj_begin(j);
		ft_json_kv_str(j, "pattern", b->pattern);
		ft_json_kv_uint(j, "bytes", b->bytes);
		if (b->hosts)
			ft_json_kv_uint(j, "hosts", b->hosts);
		ft_json_kv_uint(j, "bursts", b->bursts);
		ft__json_kv_num(j, "off_us", b->off_s * 1e6);
		ft__json_kv_num(j, "jitter_us", b->jitter_s * 1e6);
		ft_json_kv_str(j, "jitter_per", b->jitter_per_source ? "source" : "burst");
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
}

void
ft_sim_report_json(const struct ft_sim_report *r, bool stable, struct ft_json *j)
{
	const struct ft_sim_counters *c = &r->c;
	size_t i;

	ft_json_obj_begin(j);
	ft_json_kv_str(j, "scenario", r->scenario);
	ft_json_kv_str(j, "source", "sim");
	ft_json_kv_str(j, "engine", r->engine);
	ft_json_kv_str(j, "routing", r->routing);
	ft_json_kv_uint(j, "qps_per_connection", r->qps_per_conn);
	ft__json_kv_num(j, "fabric_scale", r->fabric_scale);
	if (r->have_rate_rtol)
		ft__json_kv_num(j, "rate_tolerance", r->rate_rtol);
	if (r->nccl_version) { /* --nccl's release; without it the newest, as before */
		char v[16];

		ft_model_nccl_name(r->nccl_version, v, sizeof(v));
		ft_json_kv_str(j, "nccl", v);
	}
	if (r->nccl_note.first) { /* that release older than the GPUs (fabtune model's too) */
		ft_json_key(j, "warnings");
		ft_json_arr_begin(j);
		ft_model_nccl_note_json(j, &r->nccl_note, r->nccl_where,
		                        r->nccl_field ? r->nccl_field : "--nccl");
		ft_json_arr_end(j);
	}
	ft_json_kv_str(j, "cluster", r->cluster);
	ft_json_kv_uint(j, "nodes", r->nnodes);
	ft_json_kv_uint(j, "gpus", r->ngpus);
	ft_json_kv_uint(j, "links", r->nlinks);
	ft_json_kv_uint(j, "faults", r->nfaults);
	ft_json_key(j, "fault_list");
	ft_json_arr_begin(j);
	for (size_t k = 0; k < r->faults.len; k++)
		ft_json_str(j, ((const struct ft_sim_fault_text *)ft_vec_at(&r->faults, k))->text);
	ft_json_arr_end(j);
	if (r->background.len)
		background_json(r, j);
	if (r->description[0])
		ft_json_kv_str(j, "description", r->description);
	ft_json_kv_uint(j, "seed", r->seed);
	ft__json_kv_num(j, "makespan_us", c->makespan_s * 1e6);
	if (r->failure.failed)
		failure_json(r, j);

	ft_json_key(j, "results");
	ft_json_arr_begin(j);
	for (i = 0; i < ft_run_nrows(&r->run); i++)
		ft__json_object(j, NULL, ft_run_row(&r->run, i), row_fields,
		                FT_ARRAY_SIZE(row_fields));
	ft_json_arr_end(j);
	records_json(j, "jobs", &r->jobs, job_fields, FT_ARRAY_SIZE(job_fields));
	if (r->op_counters.len > 1) { /* packet engine, several ops: each one's counters */
		ft_json_key(j, "op_counters");
		ft_json_arr_begin(j);
		for (i = 0; i < r->op_counters.len && i < ft_run_nrows(&r->run); i++) {
			const struct ft_result_row *row = ft_run_row(&r->run, i);
			const struct ft_sim_op_counters *o = ft_vec_at(&r->op_counters, i);

			ft_json_obj_begin(j);
			ft_json_kv_str(j, "job", row->src);
			ft_json_kv_str(j, "op", row->test);
			ft_json_kv_str(j, "algo", row->algo);
			ft__json_fields(j, o, op_counter_fields, FT_ARRAY_SIZE(op_counter_fields));
			ft__json_object(j, "fct_us", o, op_fct_fields, FT_ARRAY_SIZE(op_fct_fields));
			ft_json_obj_end(j);
		}
		ft_json_arr_end(j);
	}

	ft_json_key(j, "flows");
	ft_json_obj_begin(j);
	ft_json_kv_uint(j, "count", c->nflows);
	ft__json_kv_num(j, "bytes", c->bytes);
	ft__json_object(j, "fct_us", c, fct_fields, FT_ARRAY_SIZE(fct_fields));
	ft__json_object(j, "ideal_us", c, ideal_fields, FT_ARRAY_SIZE(ideal_fields));
	ft__json_object(j, "slowdown", c, slowdown_fields, FT_ARRAY_SIZE(slowdown_fields));
	if (r->nflow_ids)
		flows_json(r, j);
	ft_json_obj_end(j);
	if (c->nprio_fct) { /* packet engine, flows at several priorities */
		ft_json_key(j, "priorities");
		ft_json_arr_begin(j);
		for (i = 0; i < c->nprio_fct; i++) {
			const struct ft_sim_prio_fct *p = &c->prio_fct[i];

			ft_json_obj_begin(j);
			ft_json_kv_uint(j, "priority", p->prio);
			ft_json_kv_uint(j, "flows", p->nflows);
			ft__json_object(j, "fct_us", p, prio_fct_fields,
			                FT_ARRAY_SIZE(prio_fct_fields));
			ft__json_kv_num(j, "slowdown_p50", p->slowdown_p50);
			ft_json_obj_end(j);
		}
		ft_json_arr_end(j);
	}
	records_json(j, "tiers", &r->tiers, tier_fields, FT_ARRAY_SIZE(tier_fields));
	records_json(j, "by_size", &r->by_size, size_fields, FT_ARRAY_SIZE(size_fields));
	records_json(j, "hot_links", &r->hot, link_fields, FT_ARRAY_SIZE(link_fields));
	ft_json_kv_uint(j, "ports_used", r->nports_used);
	ports_json(j, &r->ports);

	ft_json_key(j, "engine_stats");
	ft_json_obj_begin(j);
	ft_json_kv_uint(j, "events", c->nevents);
	ft_json_kv_uint(j, "rate_recomputations", c->nrecompute);
	ft_json_kv_uint(j, "full_recomputations", c->nrecompute_full);
	/* what the recomputations cost: a full pass walks every path in flight once */
	if (strcmp(r->engine, "flow") == 0)
		ft_json_kv_uint(j, "path_walks", c->npath_walks);
	if (strcmp(r->engine, "packet") == 0) {
		ft_json_kv_uint(j, "packets", c->npackets);
		ft_json_kv_uint(j, "drops", c->ndrops);
		ft_json_kv_uint(j, "retransmitted", c->nretx);
		if (c->nfast_retx)
			ft_json_kv_uint(j, "fast_retransmits", c->nfast_retx);
		if (c->ntail_probes)
			ft_json_kv_uint(j, "tail_probes", c->ntail_probes);
		if (c->nsack_recoveries)
			ft_json_kv_uint(j, "sack_recoveries", c->nsack_recoveries);
		if (c->ndelayed_acks)
			ft_json_kv_uint(j, "delayed_acks", c->ndelayed_acks);
		if (tcp_counted(c)) {
			ft_json_kv_uint(j, "tcp_timeouts", c->ntcp_timeouts);
			ft_json_kv_uint(j, "loss_probes", c->nloss_probes);
			ft_json_kv_uint(j, "loss_probe_recoveries", c->nloss_probe_recoveries);
			ft_json_kv_uint(j, "reordering_timeouts", c->nreo_timeouts);
			ft_json_kv_uint(j, "lost_retransmits", c->nlost_retransmits);
			ft_json_kv_uint(j, "dsacks", c->ndsacks);
		}
		ft_json_kv_uint(j, "pause_frames", c->npause);
		ft_json_kv_uint(j, "ecn_marked", c->necn);
		ft_json_kv_uint(j, "cnps", c->ncnp);
		ft_json_kv_uint(j, "pfc_watchdog", c->nwatchdog);
		if (c->nwatchdog)
			ft_json_kv_uint(j, "pfc_watchdog_restored", c->nwd_restores);
		if (c->pfc_watchdog)
			ft_json_kv_str(j, "pfc_watchdog_action",
			               c->pfc_wd_action == FT_PKT_WD_DROP  ? "drop" :
			               c->pfc_wd_action == FT_PKT_WD_ALERT ? "alert" :
			                                                     "forward");
		if (c->nwd_drops)
			ft_json_kv_uint(j, "pfc_watchdog_drops", c->nwd_drops);
		if (c->nic_msgs) {
			ft_json_kv_uint(j, "nic_messages", c->nic_msgs);
			ft_json_kv_uint(j, "nic_context_misses", c->nic_missed);
			ft__json_kv_num(j, "nic_wait_s", c->nic_wait_s);
		}
	}
	if (!stable) {
		ft__json_kv_num(j, "wall_s", r->wall_s);
		ft_json_kv_uint(j, "peak_rss_bytes", r->peak_rss_bytes);
	}
	ft_json_obj_end(j);
	ft_json_obj_end(j);
}

/* Sizes as written in scenarios: 200MB, 2GB, 1GiB, 64KiB; odd ones in bytes. */
static const char *
size_str(uint64_t b, char *buf, size_t len)
{
	static const struct {
		uint64_t unit;
		const char *name;
	} units[] = { { 1ull << 40, "TiB" },   { 1000000000000ull, "TB" }, { 1ull << 30, "GiB" },
		      { 1000000000ull, "GB" }, { 1ull << 20, "MiB" },      { 1000000ull, "MB" },
		      { 1ull << 10, "KiB" },   { 1000ull, "KB" } };
	size_t i;

	for (i = 0; i < FT_ARRAY_SIZE(units); i++)
		if (b >= units[i].unit && b % units[i].unit == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", b / units[i].unit, units[i].name);
			return buf;
		}
	snprintf(buf, len, "%" PRIu64 "B", b);
	return buf;
}

static const char *
us(double s, char *buf, size_t len)
{
	if (!isfinite(s))
		return "-";
	snprintf(buf, len, "%.2f", s * 1e6);
	return buf;
}

/*
 * A sweep's utilisation size by size: a row per op, a column per link class
 * holding its busiest link's utilisation ("-" where the class carried nothing).
 */
static void
by_size_text(const struct ft_sim_report *r, struct ft_strbuf *out)
{
	char cls[16][24];
	size_t ncls = 0, i, k, c;
	struct ft_table t;

	for (i = 0; i < r->by_size.len; i++) {
		const struct ft_sim_size_stat *b = ft_vec_at(&r->by_size, i);
		char name[24];

		snprintf(name, sizeof(name), "%s t%u", b->kind, b->tier);
		for (c = 0; c < ncls && strcmp(cls[c], name) != 0; c++)
			;
		if (c == ncls && ncls < FT_ARRAY_SIZE(cls))
			ft_strlcpy(cls[ncls++], name, sizeof(cls[0]));
	}
	ft_strbuf_adds(out, "\nutilization by size (each size run alone; busiest link of each "
	                    "class):\n");
	ft_table_init(&t);
	ft_table_col(&t, "size", FT_ALIGN_RIGHT);
	ft_table_col(&t, "op", FT_ALIGN_LEFT);
	ft_table_col(&t, "time(us)", FT_ALIGN_RIGHT);
	for (c = 0; c < ncls; c++)
		ft_table_col(&t, cls[c], FT_ALIGN_RIGHT);
	for (i = 0; i < r->by_size.len; i = k) {
		const struct ft_sim_size_stat *b = ft_vec_at(&r->by_size, i);
		char a[32];

		/* the entries of one op follow each other */
		for (k = i + 1; k < r->by_size.len; k++) {
			const struct ft_sim_size_stat *x = ft_vec_at(&r->by_size, k);

			if (x->bytes != b->bytes || strcmp(x->op, b->op) != 0)
				break;
		}
		(void)ft_table_cell(&t, size_str(b->bytes, a, sizeof(a)));
		(void)ft_table_cell(&t, b->op);
		(void)ft_table_cellf(&t, "%.1f", b->time_s * 1e6);
		for (c = 0; c < ncls; c++) {
			const struct ft_sim_size_stat *hit = NULL;
			size_t q;

			for (q = i; q < k; q++) {
				const struct ft_sim_size_stat *x = ft_vec_at(&r->by_size, q);
				char name[24];

				snprintf(name, sizeof(name), "%s t%u", x->kind, x->tier);
				if (strcmp(name, cls[c]) == 0)
					hit = x;
			}
			if (hit)
				(void)ft_table_cellf(&t, "%.1f%%", hit->util_max * 100);
			else
				(void)ft_table_cell(&t, "-");
		}
	}
	ft_table_render(&t, out);
	ft_table_release(&t);
}

#define L FT_ALIGN_LEFT
#define R FT_ALIGN_RIGHT

static const struct ft__col row_cols[] = {
	{ "job", L },         { "op", L },          { "algo", L },
	{ "size", R },        { "ranks", R },       { "time(us)", R },
	{ "algbw(GB/s)", R }, { "busbw(GB/s)", R }, { "bottleneck", L },
};
static const struct ft__col op_cols[] = {
	{ "job", L },        { "op", L },      { "algo", L },    { "flows", R },
	{ "packets", R },    { "dropped", R }, { "retx", R },    { "ECN marked", R },
	{ "CNPs", R },       { "fct p50(us)", R }, { "p99(us)", R }, { "max(us)", R },
};
static const struct ft__col tier_cols[] = {
	{ "kind", L }, { "tier", R }, { "links", R }, { "mean", R }, { "max", R },
};
static const struct ft__col flow_cols[] = {
	{ "id", R },    { "from", L },     { "to", L },       { "qp", R },
	{ "op", L },    { "size", R },     { "start(us)", R }, { "fct(us)", R },
};
static const struct ft__col hot_cols[] = {
	{ "link", R },      { "from -> to", L }, { "kind", L },      { "tier", R },
	{ "cap(GB/s)", R }, { "util", R },       { "max flows", R },
};

#undef R
#undef L

/* The packet engine's counters op by op (several ops), in the order of the result rows. */
static void
op_counters_text(const struct ft_sim_report *r, struct ft_strbuf *out)
{
	struct ft_table t;
	char a[32];
	bool iter = false;

	for (size_t k = 0; k < r->jobs.len; k++)
		iter |= ((const struct ft_sim_job_report *)ft_vec_at(&r->jobs, k))->iterations > 1;
	ft_strbuf_addf(out, "\npackets by op (each op's own flows%s):\n",
	               iter ? "; a job's first iteration, as the rows" : "");
	ft_table_init(&t);
	ft__table_cols(&t, op_cols, FT_ARRAY_SIZE(op_cols));
	for (size_t i = 0; i < r->op_counters.len && i < ft_run_nrows(&r->run); i++) {
		const struct ft_result_row *row = ft_run_row(&r->run, i);
		const struct ft_sim_op_counters *o = ft_vec_at(&r->op_counters, i);

		(void)ft_table_cell(&t, row->src);
		(void)ft_table_cell(&t, row->test);
		(void)ft_table_cell(&t, row->algo);
		(void)ft_table_cellf(&t, "%" PRIu64, o->nflows);
		(void)ft_table_cellf(&t, "%" PRIu64, o->npackets);
		(void)ft_table_cellf(&t, "%" PRIu64, o->ndrops);
		(void)ft_table_cellf(&t, "%" PRIu64, o->nretx);
		(void)ft_table_cellf(&t, "%" PRIu64, o->necn);
		(void)ft_table_cellf(&t, "%" PRIu64, o->ncnp);
		(void)ft_table_cell(&t, us(o->fct_p50_s, a, sizeof(a)));
		(void)ft_table_cell(&t, us(o->fct_p99_s, a, sizeof(a)));
		(void)ft_table_cell(&t, us(o->fct_max_s, a, sizeof(a)));
	}
	ft_table_render(&t, out);
	ft_table_release(&t);
}

/* --list-flows: the first flow ids, what each record held last. */
static void
flows_text(const struct ft_sim_report *r, struct ft_strbuf *out)
{
	struct ft_table t;
	char a[32], b[32];

	ft_strbuf_addf(out, "\nflows (ids for --trace-qps; %zu of %" PRIu64 "%s):\n", r->flows.len,
	               r->nflow_ids, r->flows.len < r->nflow_ids ? ", --list-flows N for more" : "");
	ft_table_init(&t);
	ft__table_cols(&t, flow_cols, FT_ARRAY_SIZE(flow_cols));
	for (size_t i = 0; i < r->flows.len; i++) {
		const struct ft_sim_flow_text *f = ft_vec_at(&r->flows, i);

		(void)ft_table_cellf(&t, "%u", f->row.id);
		(void)ft_table_cell(&t, f->src);
		(void)ft_table_cell(&t, f->dst);
		(void)ft_table_cellf(&t, "%u", f->row.qp);
		(void)ft_table_cell(&t, f->op);
		(void)ft_table_cell(&t, size_str(f->row.bytes, b, sizeof(b)));
		(void)ft_table_cell(&t, us(f->row.start_s, a, sizeof(a)));
		(void)ft_table_cell(&t, us(f->row.fct_s, a, sizeof(a)));
	}
	ft_table_render(&t, out);
	ft_table_release(&t);
}

void
ft_sim_report_text(const struct ft_sim_report *r, bool stable, struct ft_strbuf *out)
{
	const struct ft_sim_counters *c = &r->c;
	struct ft_table t;
	char a[32], b[32], d[32], e[32];
	size_t i;

	ft_strbuf_addf(out, "scenario %s: %s, %" PRIu64 " GPUs on %u nodes, engine %s, routing %s",
	               r->scenario, r->cluster, r->ngpus, r->nnodes, r->engine, r->routing);
	if (r->qps_per_conn > 1)
		ft_strbuf_addf(out, " x%u QPs", r->qps_per_conn);
	if (r->fabric_scale != 1)
		ft_strbuf_addf(out, ", fabric x%.3g", r->fabric_scale);
	if (r->have_rate_rtol)
		ft_strbuf_addf(out, ", rate tolerance %.3g", r->rate_rtol);
	if (r->nccl_version) {
		char v[16];

		ft_model_nccl_name(r->nccl_version, v, sizeof(v));
		ft_strbuf_addf(out, ", NCCL %s", v);
	}
	if (r->nfaults)
		ft_strbuf_addf(out, ", %zu fault%s", r->nfaults, r->nfaults > 1 ? "s" : "");
	ft_strbuf_addf(out, ", seed %" PRIu64 "\n", r->seed);
	for (i = 0; i < r->faults.len; i++)
		ft_strbuf_addf(out, "fault %zu: %s\n", i + 1,
		               ((const struct ft_sim_fault_text *)ft_vec_at(&r->faults, i))->text);
	if (r->failure.failed)
		failure_text(r, out);
	ft_strbuf_addch(out, '\n');

	if (ft_run_nrows(&r->run)) {
		ft_table_init(&t);
		ft__table_cols(&t, row_cols, FT_ARRAY_SIZE(row_cols));
		for (i = 0; i < ft_run_nrows(&r->run); i++) {
			const struct ft_result_row *row = ft_run_row(&r->run, i);

			(void)ft_table_cell(&t, row->src);
			(void)ft_table_cell(&t, row->test);
			(void)ft_table_cell(&t, row->algo);
			(void)ft_table_cell(&t, size_str(row->bytes, a, sizeof(a)));
			(void)ft_table_cellf(&t, "%u", row->nranks);
			if (isnan(row->time_us)) { /* cut short by a QP error */
				(void)ft_table_cell(&t, "failed");
				(void)ft_table_cell(&t, "-");
				(void)ft_table_cell(&t, "-");
			} else {
				(void)ft_table_cellf(&t, "%.2f", row->time_us);
				(void)ft_table_cellf(&t, "%.2f", row->algbw_GBps);
				(void)ft_table_cellf(&t, "%.2f", row->busbw_GBps);
			}
			(void)ft_table_cell(&t, row->bottleneck[0] ? row->bottleneck : "-");
		}
		ft_table_render(&t, out);
		ft_table_release(&t);
		ft_strbuf_addch(out, '\n');
	}
	for (i = 0; i < r->jobs.len; i++) {
		const struct ft_sim_job_report *jr = ft_vec_at(&r->jobs, i);

		if (jr->iterations < 2 && jr->compute_s <= 0)
			continue;
		ft_strbuf_addf(out,
		               "job %s: %u ranks, %u iteration%s of %s us: compute %s us, "
		               "communication %s us (%.1f%%)\n",
		               jr->name, jr->nranks, jr->iterations, jr->iterations > 1 ? "s" : "",
		               us(jr->iter_s, a, sizeof(a)), us(jr->compute_s, b, sizeof(b)),
		               us(jr->comm_s, d, sizeof(d)), jr->comm_share * 100);
	}
	ft_strbuf_addf(out, "flows: %" PRIu64 ", fct us min %s p50 %s p99 %s max %s", c->nflows,
	               us(c->fct_min_s, a, sizeof(a)), us(c->fct_p50_s, b, sizeof(b)),
	               us(c->fct_p99_s, d, sizeof(d)), us(c->fct_max_s, e, sizeof(e)));
	ft_strbuf_addf(out, "; ideal p50 %s us; slowdown p50 %.2fx p99 %.2fx\n",
	               us(c->ideal_p50_s, a, sizeof(a)), c->slowdown_p50, c->slowdown_p99);
	for (i = 0; i < c->nprio_fct; i++)
		ft_strbuf_addf(out, "  priority %u: %" PRIu64 " flows, fct us p50 %s p99 %s max %s; "
		               "slowdown p50 %.2fx\n",
		               c->prio_fct[i].prio, c->prio_fct[i].nflows,
		               us(c->prio_fct[i].fct_p50_s, a, sizeof(a)),
		               us(c->prio_fct[i].fct_p99_s, b, sizeof(b)),
		               us(c->prio_fct[i].fct_max_s, d, sizeof(d)), c->prio_fct[i].slowdown_p50);
	ft_strbuf_addf(out, "makespan: %s us%s\n", us(c->makespan_s, a, sizeof(a)),
	               !r->failure.failed ? "" :
	               r->failure.deadlock ? " (to the deadlock)" : " (to the QP error)");
	if (strcmp(r->engine, "packet") == 0 && c->nwatchdog && c->pfc_wd_action == FT_PKT_WD_ALERT)
		ft_strbuf_addf(out,
		               "PFC watchdog: %" PRIu64 " storms detected (action alert: counted, the "
		               "pauses still honoured), %" PRIu64 " restored\n",
		               c->nwatchdog, c->nwd_restores);
	else if (strcmp(r->engine, "packet") == 0 && c->nwatchdog)
		ft_strbuf_addf(out,
		               "PFC watchdog: %" PRIu64 " expiries (ports paused too long that then "
		               "ignored pauses), %" PRIu64 " restored\n",
		               c->nwatchdog, c->nwd_restores);
	if (strcmp(r->engine, "packet") == 0 && c->nwd_drops)
		ft_strbuf_addf(out, "PFC watchdog drops: %" PRIu64 " packets of stormed queues\n",
		               c->nwd_drops);
	if (strcmp(r->engine, "packet") == 0)
		ft_strbuf_addf(out,
		               "packets: %" PRIu64 ", dropped %" PRIu64 ", retransmitted %" PRIu64
		               ", pause frames %" PRIu64 ", ECN marked %" PRIu64 ", CNPs %" PRIu64
		               "\n",
		               c->npackets, c->ndrops, c->nretx, c->npause, c->necn, c->ncnp);
	if (strcmp(r->engine, "packet") == 0 && tcp_counted(c))
		ft_strbuf_addf(out,
		               "TCP: %" PRIu64 " fast retransmit%s (%" PRIu64
		               " led by SACK), %" PRIu64 " timeout%s, %" PRIu64
		               " tail-loss probe%s (%" PRIu64 " mended a loss), %" PRIu64
		               " reordering timeout%s, %" PRIu64
		               " resend%s lost again, %" PRIu64 " D-SACK%s, %" PRIu64
		               " delayed ACK%s\n",
		               c->nfast_retx, PLURAL(c->nfast_retx), c->nsack_recoveries,
		               c->ntcp_timeouts, PLURAL(c->ntcp_timeouts), c->nloss_probes,
		               PLURAL(c->nloss_probes), c->nloss_probe_recoveries, c->nreo_timeouts,
		               PLURAL(c->nreo_timeouts), c->nlost_retransmits,
		               PLURAL(c->nlost_retransmits), c->ndsacks, PLURAL(c->ndsacks),
		               c->ndelayed_acks, PLURAL(c->ndelayed_acks));
	if (c->nic_msgs)
		ft_strbuf_addf(out,
		               "NIC send pipelines: %" PRIu64 " message%s, %" PRIu64
		               " with their QP context not cached, %.3f us waited in all\n",
		               c->nic_msgs, PLURAL(c->nic_msgs), c->nic_missed, c->nic_wait_s * 1e6);
	if (r->op_counters.len > 1)
		op_counters_text(r, out);

	if (r->tiers.len) {
		ft_strbuf_adds(out, "\nutilization by link class:\n");
		ft_table_init(&t);
		ft__table_cols(&t, tier_cols, FT_ARRAY_SIZE(tier_cols));
		for (i = 0; i < r->tiers.len; i++) {
			const struct ft_sim_tier_stat *ts = ft_vec_at(&r->tiers, i);

			(void)ft_table_cell(&t, ts->kind);
			(void)ft_table_cellf(&t, "%u", ts->tier);
			(void)ft_table_cellf(&t, "%u", ts->nlinks);
			(void)ft_table_cellf(&t, "%.1f%%", ts->util_mean * 100);
			(void)ft_table_cellf(&t, "%.1f%%", ts->util_max * 100);
		}
		ft_table_render(&t, out);
		ft_table_release(&t);
	}
	if (r->by_size.len)
		by_size_text(r, out);
	if (r->hot.len) {
		ft_strbuf_adds(out, "\nhottest links:\n");
		ft_table_init(&t);
		ft__table_cols(&t, hot_cols, FT_ARRAY_SIZE(hot_cols));
		for (i = 0; i < r->hot.len; i++) {
			const struct ft_sim_hot_link *h = ft_vec_at(&r->hot, i);

			(void)ft_table_cellf(&t, "%u", h->stat.link);
			(void)ft_table_cell(&t, h->name);
			(void)ft_table_cell(&t, h->kind);
			(void)ft_table_cellf(&t, "%u", h->tier);
			(void)ft_table_cellf(&t, "%.1f", h->cap_Bps / 1e9);
			(void)ft_table_cellf(&t, "%.1f%%", h->stat.util * 100);
			(void)ft_table_cellf(&t, "%u", h->stat.max_flows);
		}
		ft_table_render(&t, out);
		ft_table_release(&t);
	}
	if (r->nflow_ids)
		flows_text(r, out);
	if (!stable)
		ft_strbuf_addf(out, "\nsimulated in %.3f s, peak memory %.1f MB\n", r->wall_s,
		               (double)r->peak_rss_bytes / 1e6);
}

void
ft_sim_report_write(const struct ft_sim_report *r, bool stable, bool json, struct ft_strbuf *out)
{
	struct ft_json j;

	if (!json) {
		ft_sim_report_text(r, stable, out);
		return;
	}
	ft_json_init(&j, out, true);
	ft_sim_report_json(r, stable, &j);
	ft_strbuf_addch(out, '\n');
}

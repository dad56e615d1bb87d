/* SPDX-License-Identifier: MIT */
/*
 * parse/iperf3_json.c - `iperf3 --json` reports (one or several objects in a
 * row). The JSON walker (jscan.c) hands each scalar to a matcher by its
 * dotted path ("end.sum_received.bits_per_second"); nothing is allocated.
 *
 * Keys: `iperf3.remote_host`, `iperf3.protocol`, `iperf3.streams`;
 * `bench.bw_avg` (Gbps; str "receiver" or "sender") from end.sum_received /
 * end.sum_sent (or end.sum for UDP), `bench.retransmits`, `bench.jitter_ms`,
 * `bench.lost_percent`; a result row (pt2pt_bw over tcp/udp) per report from
 * the receiver's figure. A top-level "error" becomes `tool.error`. The walk
 * is jscan.c's strict one: invalid JSON (a bare word such as NaN or inf, a
 * bad escape, a cut report) is `parse.skipped` at the line and column of
 * the fault, naming what was wrong and the key path it was met under; what
 * was read before it is kept.
 */
#include "parse_int.h"

struct report {
	double recv_bps, sent_bps, udp_bps;
	char proto[8];
	uint32_t line;
};

struct iw {
	struct ft__pctx *c;
	struct report r;
};

static void
on_scalar(struct ft__jwalk *w, const struct ft__jval *jv)
{
	struct iw *iw = w->arg;
	struct ft__pctx *c = iw->c;
	struct report *r = &iw->r;
	const char *path = w->path;
	double d = jv->num;
	uint32_t line = jv->line;
	bool is_str = jv->kind == FT__JSTR, num = jv->kind == FT__JNUM;
	struct ft__span v = jv->str;

	if (strcmp(path, "start.connecting_to.host") == 0 && is_str)
		ft__emit_str(c, line, "iperf3.remote_host", v);
	else if (strcmp(path, "start.test_start.protocol") == 0 && is_str) {
		ft__copy(r->proto, sizeof(r->proto), v);
		ft__emit_str(c, line, "iperf3.protocol", v);
	} else if (strcmp(path, "start.test_start.num_streams") == 0 && num)
		ft__emit_num(c, line, "iperf3.streams", d, "count");
	else if (strcmp(path, "end.sum_received.bits_per_second") == 0 && num) {
		r->recv_bps = d;
		r->line = line;
		ft__emit(c, line, "bench.bw_avg", true, d / 1e9, "Gbps", ft__span_c("receiver"));
	} else if (strcmp(path, "end.sum_sent.bits_per_second") == 0 && num) {
		r->sent_bps = d;
		ft__emit(c, line, "bench.bw_avg", true, d / 1e9, "Gbps", ft__span_c("sender"));
	} else if (strcmp(path, "end.sum.bits_per_second") == 0 && num) {
		r->udp_bps = d;
		r->line = line;
		ft__emit(c, line, "bench.bw_avg", true, d / 1e9, "Gbps", ft__span_c("sum"));
	} else if (strcmp(path, "end.sum_sent.retransmits") == 0 && num)
		ft__emit_num(c, line, "bench.retransmits", d, "count");
	else if (strcmp(path, "end.sum.jitter_ms") == 0 && num)
		ft__emit_num(c, line, "bench.jitter_ms", d, "ms");
	else if (strcmp(path, "end.sum.lost_percent") == 0 && num)
		ft__emit_num(c, line, "bench.lost_percent", d, "%");
	else if (strcmp(path, "error") == 0 && is_str)
		ft__emit_str(c, line, "tool.error", v);
}

int
ft__iperf3_json_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct iw iw = { .c = c };
	struct ft__jwalk walk, *w = &walk; /* 2 KiB: on the stack, nothing allocated */

	ft__jwalk_init(w, text, len, c->line0, FT__JMAXDEPTH);
	w->arg = &iw;
	w->scalar = on_scalar;
	ft__pctx_run_kind(c, "iperf3");
	for (;;) {
		struct report *r = &iw.r;

		*r = (struct report){ .recv_bps = NAN, .sent_bps = NAN, .udp_bps = NAN };
		if (ft__jwalk_doc(c, w, "not iperf3 JSON") <= 0)
			break;
		if (!isnan(r->recv_bps) || !isnan(r->udp_bps)) {
			struct ft_result_row row;
			double bps = !isnan(r->recv_bps) ? r->recv_bps : r->udp_bps;

			ft_result_row_init(&row);
			ft_strlcpy(row.test, "pt2pt_bw", sizeof(row.test));
			ft_strlcpy(row.transport, strcmp(r->proto, "UDP") == 0 ? "udp" : "tcp",
			           sizeof(row.transport));
			ft_strlcpy(row.algo, "iperf3", sizeof(row.algo));
			row.nranks = 2;
			row.algbw_GBps = row.busbw_GBps = bps / 8e9;
			ft__add_row(c, &row);
		}
	}
	return c->rc;
}

FT__PARSER(iperf3_json, "iperf3-json",
           "iperf3 --json: throughput (sender, receiver), retransmits, UDP loss",
           { 95, { "\"start\"", "\"connecting_to\"|\"test_start\"" } },
           { 80, { "\"sum_received\"|\"sum_sent\"" } });

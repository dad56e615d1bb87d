/* SPDX-License-Identifier: MIT */
/*
 * parse/iperf3_json.c - `iperf3 --json` reports (one or several objects in a
 * row). A small bounded JSON walker hands each scalar to a matcher by its
 * dotted path ("end.sum_received.bits_per_second"); nothing is allocated.
 *
 * Keys: `iperf3.remote_host`, `iperf3.protocol`, `iperf3.streams`;
 * `bench.bw_avg` (Gbps; str "receiver" or "sender") from end.sum_received /
 * end.sum_sent (or end.sum for UDP), `bench.retransmits`, `bench.jitter_ms`,
 * `bench.lost_percent`; a result row (pt2pt_bw over tcp/udp) per report from
 * the receiver's figure. A top-level "error" becomes `tool.error`. Invalid
 * JSON is reported as `parse.skipped` at the line of the fault.
 */
#include "parse_int.h"

#define JMAXDEPTH 16

struct jw {
	struct ft__jcur j;
	char path[256];
	size_t plen[JMAXDEPTH + 1];
	int depth;
};

struct report {
	double recv_bps, sent_bps, udp_bps;
	char proto[8];
	uint32_t line;
};

static void on_scalar(struct ft__pctx *c, struct jw *w, struct report *r, struct ft__span v,
                      bool is_str);

static void
path_push(struct jw *w, struct ft__span k)
{
	size_t l = w->plen[w->depth];
	int n = snprintf(w->path + l, sizeof(w->path) - l, "%s%.*s", l ? "." : "", (int)k.n, k.p);

	if (n < 0 || (size_t)n >= sizeof(w->path) - l)
		n = 0;
	w->plen[w->depth + 1] = l + (size_t)n;
}

static void
jvalue(struct ft__pctx *c, struct jw *w, struct report *r)
{
	struct ft__jcur *j = &w->j;
	struct ft__span s;

	ft__jcur_ws(j);
	if (j->p >= j->end)
		return ft__jcur_fail(j);
	if (w->depth >= JMAXDEPTH)
		return ft__jcur_fail(j);
	if (*j->p == '{' || *j->p == '[') {
		bool obj = *j->p == '{';
		char close = obj ? '}' : ']';

		if (!ft__jcur_open(j, close))
			return;
		while (j->p < j->end) {
			ft__jcur_ws(j);
			if (obj) {
				if (!ft__jcur_key(j, &s))
					return ft__jcur_fail(j);
				path_push(w, s);
			} else {
				w->plen[w->depth + 1] = w->plen[w->depth];
			}
			w->depth++;
			w->path[w->plen[w->depth]] = '\0';
			jvalue(c, w, r);
			w->depth--;
			w->path[w->plen[w->depth]] = '\0';
			if (j->bad)
				return;
			if (ft__jcur_next(j, close) <= 0)
				return;
		}
		return ft__jcur_fail(j);
	}
	if (*j->p == '"') {
		if (!ft__jcur_string(j, &s))
			return ft__jcur_fail(j);
		on_scalar(c, w, r, s, true);
		return;
	}
	s.p = j->p;
	while (j->p < j->end &&
	       (isalnum((unsigned char)*j->p) || *j->p == '-' || *j->p == '+' || *j->p == '.'))
		j->p++;
	s.n = (size_t)(j->p - s.p);
	if (!s.n)
		return ft__jcur_fail(j);
	on_scalar(c, w, r, s, false);
}

static void
on_scalar(struct ft__pctx *c, struct jw *w, struct report *r, struct ft__span v, bool is_str)
{
	const char *path = w->path;
	double d;
	uint32_t line = ft__jcur_line(&w->j, v.p);
	bool num = !is_str && ft__dbl(v, &d);

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
	struct jw w = { .depth = 0 };

	ft__jcur_init(&w.j, text, len, c->line0);
	ft__pctx_run_kind(c, "iperf3");
	for (;;) {
		struct report r = { .recv_bps = NAN, .sent_bps = NAN, .udp_bps = NAN };

		ft__jcur_ws(&w.j);
		if (w.j.p >= w.j.end || c->rc)
			break;
		if (*w.j.p != '{') {
			/* text around the JSON (a prompt, a warning): skip the line */
			uint32_t line = ft__jcur_line(&w.j, w.j.p);
			struct ft__span l = ft__jcur_skip_line(&w.j);

			ft__unread(c, line, "not iperf3 JSON", l);
			continue;
		}
		w.depth = 0;
		w.plen[0] = 0;
		w.path[0] = '\0';
		jvalue(c, &w, &r);
		if (w.j.bad) {
			char why[64];

			snprintf(why, sizeof(why), "invalid JSON at line %u", w.j.bad_line);
			ft__skipped(c, w.j.bad_line, why,
			            ft__span_c("report truncated or malformed"));
			break;
		}
		if (!isnan(r.recv_bps) || !isnan(r.udp_bps)) {
			struct ft_result_row row;
			double bps = !isnan(r.recv_bps) ? r.recv_bps : r.udp_bps;

			ft_result_row_init(&row);
			ft_strlcpy(row.test, "pt2pt_bw", sizeof(row.test));
			ft_strlcpy(row.transport, strcmp(r.proto, "UDP") == 0 ? "udp" : "tcp",
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

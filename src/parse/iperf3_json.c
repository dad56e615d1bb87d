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
	const char *p, *end, *start;
	uint32_t line0;
	const char *seen;   /* line_of() counted newlines up to here ... */
	uint32_t seen_line; /* ... and this is the line number there */
	char path[256];
	size_t plen[JMAXDEPTH + 1];
	int depth;
	bool bad;
	uint32_t bad_line;
};

struct report {
	double recv_bps, sent_bps, udp_bps;
	char proto[8];
	uint32_t line;
};

/* Line number of @at; positions are asked for in increasing order, so count on. */
static uint32_t
line_of(struct jw *w, const char *at)
{
	if (!w->seen || at < w->seen) {
		w->seen = w->start;
		w->seen_line = w->line0 + 1;
	}
	for (const char *q = w->seen; q < at && q < w->end; q++)
		w->seen_line += *q == '\n';
	w->seen = at < w->end ? at : w->end;
	return w->seen_line;
}

static void
ws(struct jw *w)
{
	while (w->p < w->end && (*w->p == ' ' || *w->p == '\n' || *w->p == '\t' || *w->p == '\r'))
		w->p++;
}

static void
fail(struct jw *w)
{
	if (!w->bad) {
		w->bad = true;
		/* a report cut short: blame its last line, not the one after it */
		w->bad_line = line_of(w, w->p >= w->end && w->p > w->start ? w->end - 1 : w->p);
	}
	w->p = w->end;
}

/* A string's body (escapes left in place); false on a fault. */
static bool
jstring(struct jw *w, struct ft__span *out)
{
	const char *b;

	if (w->p >= w->end || *w->p != '"')
		return false;
	b = ++w->p;
	while (w->p < w->end && *w->p != '"') {
		if (*w->p == '\\')
			w->p++;
		w->p++;
	}
	if (w->p >= w->end)
		return false;
	*out = (struct ft__span){ b, (size_t)(w->p - b) };
	w->p++;
	return true;
}

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
	struct ft__span s;

	ws(w);
	if (w->p >= w->end)
		return fail(w);
	if (w->depth >= JMAXDEPTH)
		return fail(w);
	if (*w->p == '{' || *w->p == '[') {
		bool obj = *w->p == '{';
		char close = obj ? '}' : ']';

		w->p++;
		ws(w);
		if (w->p < w->end && *w->p == close) {
			w->p++;
			return;
		}
		while (w->p < w->end) {
			ws(w);
			if (obj) {
				if (!jstring(w, &s))
					return fail(w);
				ws(w);
				if (w->p >= w->end || *w->p != ':')
					return fail(w);
				w->p++;
				path_push(w, s);
			} else {
				w->plen[w->depth + 1] = w->plen[w->depth];
			}
			w->depth++;
			w->path[w->plen[w->depth]] = '\0';
			jvalue(c, w, r);
			w->depth--;
			w->path[w->plen[w->depth]] = '\0';
			if (w->bad)
				return;
			ws(w);
			if (w->p < w->end && *w->p == ',') {
				w->p++;
				continue;
			}
			if (w->p < w->end && *w->p == close) {
				w->p++;
				return;
			}
			return fail(w);
		}
		return fail(w);
	}
	if (*w->p == '"') {
		if (!jstring(w, &s))
			return fail(w);
		on_scalar(c, w, r, s, true);
		return;
	}
	s.p = w->p;
	while (w->p < w->end &&
	       (isalnum((unsigned char)*w->p) || *w->p == '-' || *w->p == '+' || *w->p == '.'))
		w->p++;
	s.n = (size_t)(w->p - s.p);
	if (!s.n)
		return fail(w);
	on_scalar(c, w, r, s, false);
}

static void
on_scalar(struct ft__pctx *c, struct jw *w, struct report *r, struct ft__span v, bool is_str)
{
	const char *path = w->path;
	double d;
	uint32_t line = line_of(w, v.p);
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
	struct jw w = { .p = text, .end = text + len, .start = text, .line0 = c->line0 };

	if (c->run && !c->run->kind[0])
		ft_strlcpy(c->run->kind, "iperf3", sizeof(c->run->kind));
	if (c->run && !c->run->label[0])
		ft_strlcpy(c->run->label, c->file, sizeof(c->run->label));
	for (;;) {
		struct report r = { .recv_bps = NAN, .sent_bps = NAN, .udp_bps = NAN };

		ws(&w);
		if (w.p >= w.end || c->rc)
			break;
		if (*w.p != '{') {
			/* text around the JSON (a prompt, a warning): skip the line */
			const char *nl = memchr(w.p, '\n', (size_t)(w.end - w.p));
			struct ft__span l = { w.p,
				              nl ? (size_t)(nl - w.p) : (size_t)(w.end - w.p) },
			                cmd;

			if (!ft__is_prompt(l, &cmd))
				ft__skipped(c, line_of(&w, w.p), "not iperf3 JSON", l);
			w.p = nl ? nl + 1 : w.end;
			continue;
		}
		w.depth = 0;
		w.plen[0] = 0;
		w.path[0] = '\0';
		jvalue(c, &w, &r);
		if (w.bad) {
			char why[64];

			snprintf(why, sizeof(why), "invalid JSON at line %u", w.bad_line);
			ft__skipped(c, w.bad_line, why,
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

static int
iperf3_sniff(const char *text, size_t len)
{
	struct ft__span s = { text, len };

	if (ft__find(s, "\"start\"") &&
	    (ft__find(s, "\"connecting_to\"") || ft__find(s, "\"test_start\"")))
		return 95;
	if (ft__find(s, "\"sum_received\"") || ft__find(s, "\"sum_sent\""))
		return 80;
	return 0;
}

FT__DEFINE_PARSE(ft__iperf3_json_run)

const struct ft_parser ft_iperf3_json_parser = {
	.name = "iperf3-json",
	.summary = "iperf3 --json: throughput (sender, receiver), retransmits, UDP loss",
	.sniff = iperf3_sniff,
	.parse = ft__iperf3_json_run_parse,
};

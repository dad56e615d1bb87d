/* SPDX-License-Identifier: MIT */
/*
 * parse/ucx_perftest.c - `ucx_perftest` (UCX) results: the table of
 * "[thread N]" progress rows and the "Final:" row, under a header saying
 * whether the first figures are latency or overhead (usec), then bandwidth
 * (MB/s, UCX's 2^20 bytes) and message rate.
 *
 * Columns: iterations, then 50th percentile, average and overall time (us),
 * average and overall bandwidth, average and overall message rate. The test
 * name comes from a "==== tag_bw ====" banner or the `-t NAME` of the command.
 * The last row of each table (Final, else the last progress row) becomes a
 * result row (pt2pt_bw or pt2pt_lat) and the observations bench.bw_avg (Gb/s
 * of the overall bandwidth) for bandwidth tests, bench.lat_p50 and
 * bench.lat_avg (us) for latency tests; str = the test name. UCX log lines ("[time] [host:pid]
 * ... UCX WARN ...") become ucx.warn.
 */
#include "parse_int.h"

struct ucx_state {
	char test[32];
	bool latency; /* the header says "latency (usec)" */
	bool in_table;
	double v[8];  /* the last row's figures */
	uint32_t line;
	bool have_row;
};

static void
flush(struct ft__pctx *c, struct ucx_state *st)
{
	struct ft_result_row r;
	double gbps;

	if (!st->have_row)
		return;
	st->have_row = false;
	/* v: iterations, p50, avg, overall (us), bw avg, bw overall (MB/s), rate avg, overall */
	gbps = st->v[5] * 1048576.0 * 8 / 1e9;
	ft_result_row_init(&r);
	ft_strlcpy(r.test, st->latency ? "pt2pt_lat" : "pt2pt_bw", sizeof(r.test));
	ft_strlcpy(r.transport, "ucx", sizeof(r.transport));
	/* an iteration count past what the field holds (or not a count) is not kept */
	r.nsamples = st->v[0] >= 0 && st->v[0] <= UINT32_MAX ? (uint32_t)st->v[0] : 0;
	r.algbw_GBps = st->v[5] * 1048576.0 / 1e9;
	if (st->latency) {
		r.lat_p50_us = st->v[1];
		r.lat_avg_us = st->v[2];
	}
	ft__add_row(c, &r);
	if (!st->latency) /* a latency test's bandwidth is not what the port can carry */
		ft__emit(c, st->line, "bench.bw_avg", true, gbps, "Gbps", ft__span_c(st->test));
	if (st->latency) {
		ft__emit(c, st->line, "bench.lat_p50", true, st->v[1], "us", ft__span_c(st->test));
		ft__emit(c, st->line, "bench.lat_avg", true, st->v[2], "us", ft__span_c(st->test));
	}
}

/* "[thread 0]   622  0.240 ..." or "Final:  1000  0.240 ...": the eight figures. */
static bool
data_row(struct ft__span s, double v[8])
{
	struct ft__span r, tok;
	int n = 0;

	if (ft__starts(s, "Final:"))
		r = ft__skip(s, 6);
	else if (ft__starts(s, "[thread ") && memchr(s.p, ']', s.n))
		r = ft__skip(s, (size_t)((const char *)memchr(s.p, ']', s.n) - s.p) + 1);
	else
		return false;
	while (n < 8 && ft__token(&r, &tok))
		if (!ft__dbl(tok, &v[n++]))
			return false;
	return n == 8;
}

static bool
ucx_perftest_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	struct ucx_state *st = state;
	struct ft__span cmd, tok, r;
	double v[8];

	if (ft__starts(s, "+-") || ft__starts(s, "|    Stage") || ft__starts(s, "|     Test"))
		return true;
	if (ft__starts(s, "===") && ft__ends(s, "===")) {
		flush(c, st);
		r = s;
		while (ft__token(&r, &tok))
			if (tok.p[0] != '=')
				ft__copy(st->test, sizeof(st->test), tok);
		return true;
	}
	if (ft__is_prompt(s, &cmd) || ft__find(s, "ucx_perftest ")) {
		r = ft__find(s, "ucx_perftest") ? s : cmd;
		while (ft__token(&r, &tok))
			if (ft__eq(tok, "-t") && ft__token(&r, &tok))
				ft__copy(st->test, sizeof(st->test), tok);
		return true;
	}
	if (ft__starts(s, "|") && ft__find(s, "(usec)")) {
		flush(c, st);
		st->latency = ft__find(s, "latency (usec)") != NULL;
		st->in_table = true;
		return true;
	}
	if (data_row(s, v)) {
		memcpy(st->v, v, sizeof(v));
		st->line = line;
		st->have_row = true;
		if (ft__starts(s, "Final:"))
			flush(c, st);
		return true;
	}
	if (ft__find(s, " UCX ") && (ft__find(s, "WARN") || ft__find(s, "ERROR"))) {
		ft__emit_str(c, line, "ucx.warn", s);
		return true;
	}
	/* protocol tables (UCX_PROTO_INFO) and other lines are not judged */
	return true;
}

int
ft__ucx_perftest_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ucx_state st;

	memset(&st, 0, sizeof(st));
	ft_strlcpy(st.test, "ucx_perftest", sizeof(st.test));
	ft__parse_lines(c, text, len, ucx_perftest_line, &st, NULL);
	flush(c, &st);
	return c->rc;
}

FT__PARSER(ucx_perftest, "ucx-perftest",
           "ucx_perftest: UCX point-to-point latency, bandwidth and message rate",
           { 92, { "bandwidth (MB/s)", "message rate (msg/s)" } },
           { 80, { "ucx_perftest", "Final:" } });

/* SPDX-License-Identifier: MIT */
/*
 * parse/perftest.c - perftest (ib_write_bw, ib_read_bw, ib_send_bw,
 * ib_write_lat, ...): the settings banner, the local/remote address lines,
 * and the bandwidth or latency table; server and client output alike.
 *
 * Settings: `perftest.test` (str "RDMA_Write BW"), `perftest.device`,
 * `perftest.qps`, `perftest.connection`, `perftest.mtu` (bytes),
 * `perftest.link_type` (IB/Ethernet), `perftest.gid_index`,
 * `perftest.gid_local` / `perftest.gid_remote` (an all-zero GID means no
 * usable RoCE address; ROCE-GID). Bandwidth rows: a result row (pt2pt_bw,
 * algbw in GB/s) and `bench.bw_peak`, `bench.bw_avg` (Gbps), `bench.msg_rate`
 * (Mpps), str = size; no `bench.bw_peak` where the peak is printed 0.00 over
 * a non-zero average (not measured: -D, --run_infinitely, -N, over 20000
 * iterations, a send test's server). Latency rows:
 * a result row (pt2pt_lat) and `bench.lat_min`, `bench.lat_p50`
 * (t_typical), `bench.lat_avg`, `bench.lat_p99`, `bench.lat_p999`,
 * `bench.lat_max` (us); a table in cycles (under a prompt's `ib_*_lat -C` or
 * --report-cycles: the header still says usec) gives no row and its figures under the same keys plus `_cycles`
 * (`bench.lat_p50_cycles`, unit cycles). fabtune bench's
 * banner adds `bench.binding` and, for latency, rank 0's sample clock
 * ("tsc 2095.081 MHz, error 3.1 ppm" or "monotonic"; a "# clock: rank 0"
 * line under the table where loops fell back) as `--save` stores it:
 * `bench.clock_hz` and `bench.clock_error` of rank 0. Error lines
 * ("Failed to modify QP 59 to RTR", "Couldn't ...") become `tool.error`;
 * the warning "Conflicting CPU frequency values detected: A != B" is
 * `host.cpu_freq_conflict` (MHz, the lower), not an error.
 */
#include "parse_int.h"

static const struct ft__field fields[] = {
	{ "Device", "perftest.device", FT__F_STR, NULL },
	{ "Number of qps", "perftest.qps", FT__F_NUM, "count" },
	{ "Transport type", "perftest.transport", FT__F_STR, NULL },
	{ "Connection type", "perftest.connection", FT__F_STR, NULL },
	{ "Mtu", "perftest.mtu", FT__F_LEAD, "bytes" },
	{ "Link type", "perftest.link_type", FT__F_STR, NULL },
	{ "GID index", "perftest.gid_index", FT__F_NUM, NULL },
	{ "Dual-port", NULL, FT__F_IGN, NULL },
	{ "Using SRQ", NULL, FT__F_IGN, NULL },
	{ "TX depth", "perftest.tx_depth", FT__F_NUM, NULL },
	{ "RX depth", "perftest.rx_depth", FT__F_NUM, NULL },
	{ "CQ Moderation", "perftest.cq_moderation", FT__F_NUM, NULL },
	{ "Post List", "perftest.post_list", FT__F_NUM, NULL },
	{ "Max inline data", NULL, FT__F_IGN, NULL },
	{ "rdma_cm QPs", NULL, FT__F_IGN, NULL },
	{ "Data ex. method", NULL, FT__F_IGN, NULL },
	{ "PCIe relax order", "perftest.pcie_relaxed_order", FT__F_STR, NULL },
	{ "ibv_wr* API", NULL, FT__F_IGN, NULL },
	{ "Use ODP", NULL, FT__F_IGN, NULL },
	{ "Outstand reads", NULL, FT__F_IGN, NULL },
	{ "Using Enhanced Reorder", NULL, FT__F_IGN, NULL },
	/* fabtune bench's point-to-point banner */
	{ "Binding", "bench.binding", FT__F_STR, NULL },
	{ "Clock", NULL, FT__F_IGN, NULL }, /* rank 0's: settings_line, ft__emit_clock */
};

enum table {
	T_NONE,
	T_BW,
	T_LAT
};

struct pstate {
	char test[32];   /* "ib_write_bw" */
	char banner[40]; /* "RDMA_Write BW" */
	enum table table;
	bool gbits;     /* BW columns in Gb/sec (else MB/sec) */
	bool remote;    /* the next GID: line is the remote one */
	char transport[16]; /* the rows' transport: verbs, or the one fabtune bench names */
	bool fabtune;       /* the banner is fabtune bench's ("shm BW Test (fabtune)") */
	bool bidir;         /* "... Bidirectional BW Test": both ways at once */
	int lat_col[8]; /* min, max, typical, avg, stdev, p99, p999 token indexes */
	bool cycles;    /* the prompt's latency test asked for cycles (-C, --report-cycles):
	                   the table's figures are CPU cycles, not us (prompt_cycles()) */
};

/* "Dual-port : OFF    Device : mlx5_0": pairs separated by runs of blanks. */
/*
 * "Transport type : IB": perftest names the verbs transport (IB, IW, ...);
 * fabtune bench prints its own transport there (shm, tcp, ucx, ...), which
 * the rows keep, so that they match what `fabtune bench --save` stores.
 */
static void
transport_of(struct pstate *ps, struct ft__span v)
{
	static const char *const own[] = { "tcp", "shm", "mpi", "nccl", "ucx", "verbs" };

	for (size_t i = 0; i < FT_ARRAY_SIZE(own); i++)
		if (ft__eq(v, own[i]) && ps->fabtune) {
			ft_strlcpy(ps->transport, own[i], sizeof(ps->transport));
			return;
		}
}

static void
settings_line(struct ft__pctx *c, struct pstate *ps, uint32_t line, struct ft__span s)
{
	while (s.n) {
		const char *colon = memchr(s.p, ':', s.n);
		struct ft__span k, v;
		size_t i;

		if (!colon)
			return;
		k = ft__trim((struct ft__span){ s.p, (size_t)(colon - s.p) });
		s = ft__skip(s, (size_t)(colon - s.p) + 1);
		/* the value ends at a tab or at two blanks followed by the next key */
		for (i = 0; i < s.n; i++) {
			if (s.p[i] == '\t' && i > 0 && !ft__is_space(s.p[i - 1]))
				break;
			if (i > 1 && s.p[i] == ' ' && s.p[i - 1] == ' ' &&
			    !ft__is_space(s.p[i - 2]))
				break;
		}
		v = ft__trim((struct ft__span){ s.p, i });
		s = ft__trim(ft__skip(s, i));
		if (ft__eq(k, "Clock"))
			ft__emit_clock(c, line, 0, v); /* rank 0 times the round trips */
		else if (!ft__field_emit(c, line, fields, FT_ARRAY_SIZE(fields), k, v))
			ft__skipped(c, line, "unknown perftest setting", k);
		if (ft__eq(k, "Device"))
			ft__copy(c->device, sizeof(c->device), v);
		if (ft__eq(k, "Transport type"))
			transport_of(ps, v);
	}
}

/* "RDMA_Write BW Test" -> "ib_write_bw"; "Send Latency Test" -> "ib_send_lat" */
static void
test_from_banner(struct pstate *ps, struct ft__span s)
{
	const char *verb = ft__find(s, "RDMA_Write") ? "write" :
	                   ft__find(s, "RDMA_Read")  ? "read" :
	                   ft__find(s, "Atomic")     ? "atomic" :
	                   ft__find(s, "Send")       ? "send" :
	                                               NULL;

	ft__copy(ps->banner, sizeof(ps->banner), s);
	if (verb)
		snprintf(ps->test, sizeof(ps->test), "ib_%s_%s", verb,
		         ft__find(s, "BW") ? "bw" : "lat");
}

/* A point-to-point verbs row of @ps's test: @bytes a message, @iters of them. */
static void
row_init(struct ft_result_row *r, const char *test, const struct pstate *ps, uint64_t bytes,
         uint64_t iters)
{
	ft_result_row_init(r);
	ft_strlcpy(r->test, test, sizeof(r->test));
	ft_strlcpy(r->transport, ps->transport, sizeof(r->transport));
	/* fabtune bench's tables name no program; the shm copy comes under the table
	   ("# copy:", copy_line): only perftest's rows get one here */
	ft_strlcpy(r->algo, ps->fabtune ? "" : ps->test, sizeof(r->algo));
	r->bytes = bytes;
	r->nsamples = iters > UINT32_MAX ? UINT32_MAX : (uint32_t)iters;
	r->nranks = 2;
	/* fabtune bench's point-to-point rows are bytes, unreduced (as its --json says) */
	if (ps->fabtune) {
		r->count = bytes;
		ft_strlcpy(r->dtype, "uint8", sizeof(r->dtype));
		ft_strlcpy(r->redop, "none", sizeof(r->redop));
	}
}

void
ft__perftest_bw_obs(struct ft__pctx *c, uint32_t line, uint64_t bytes, double peak_Gbps,
                    double avg_Gbps, double rate_Mpps)
{
	char size[24];

	snprintf(size, sizeof(size), "%" PRIu64, bytes);
	if (!isnan(peak_Gbps))
		ft__emit(c, line, "bench.bw_peak", true, peak_Gbps, "Gbps", ft__span_c(size));
	ft__emit(c, line, "bench.bw_avg", true, avg_Gbps, "Gbps", ft__span_c(size));
	if (!isnan(rate_Mpps))
		ft__emit(c, line, "bench.msg_rate", true, rate_Mpps, "Mpps", ft__span_c(size));
}

static void
bw_row(struct ft__pctx *c, struct pstate *ps, uint32_t line, struct ft__span s)
{
	struct ft__span t[6], rest = s;
	size_t n = 0;
	struct ft_result_row r;
	double peak, avg, rate = NAN;
	uint64_t bytes, iters;
	double to_gbps = ps->gbits ? 1.0 : 8.0 * 1.048576 / 1000.0; /* MB/sec is MiB/s */

	while (n < 6 && ft__token(&rest, &t[n]))
		n++;
	if (n < 4 || !ft__u64(t[0], &bytes) || !ft__u64(t[1], &iters) || !ft__dbl(t[2], &peak) ||
	    !ft__dbl(t[3], &avg) || (n >= 5 && !ft__dbl(t[4], &rate))) {
		ft__skipped(c, line, "malformed perftest bandwidth row", s);
		return;
	}
	row_init(&r, "pt2pt_bw", ps, bytes, iters);
	r.algbw_GBps = avg * to_gbps / 8.0;
	r.busbw_GBps = r.algbw_GBps;
	/* fabtune bench keeps the peak in the row's in-place algbw (its --json's
	   peak_GBps, read so by fabtune_bench_json.c): the table's row too */
	if (ps->fabtune) {
		r.ip_algbw_GBps = peak * to_gbps / 8.0;
		/* and the time of a message at the average, as the run's row has it (a
		   bidirectional run's average counts both ways: a message takes twice) */
		if (r.algbw_GBps > 0)
			r.time_us = (double)bytes / (r.algbw_GBps * 1e3) * (ps->bidir ? 2 : 1);
	}
	ft__copy(r.src, sizeof(r.src), ft__span_c(c->device));
	ft__add_row(c, &r);
	/*
	 * perftest's print_report_bw() prints the peak as
	 * !(user_param->noPeak) * size / shortest interval: 0.00 wherever the
	 * peak was not measured, whatever the link did. perftest_parameters.c
	 * sets noPeak for -D duration runs, --run_infinitely, -N, more than 20000
	 * iterations and the receiving side of a send test (" WARNING: BW peak
	 * won't be measured in this run."). A 0.00 peak beside a non-zero
	 * average is no figure.
	 */
	if (peak == 0 && avg > 0 && !ps->fabtune)
		peak = NAN;
	ft__perftest_bw_obs(c, line, bytes, peak * to_gbps, avg * to_gbps, rate);
}

static void
lat_header(struct pstate *ps, struct ft__span s)
{
	/* lat_col[k] is the column headed heads[k] ("t_min[usec]", "99.9%") */
	static const struct {
		const char *head;
		bool prefix;
	} heads[] = {
		{ "t_min", true },   { "t_max", true }, { "t_typical", true }, { "t_avg", true },
		{ "t_stdev", true }, { "99%", false },  { "99.9%", false },
	};
	struct ft__span tok;
	int i = 0;

	for (int k = 0; k < 8; k++)
		ps->lat_col[k] = -1;
	while (ft__token(&s, &tok)) {
		for (size_t k = 0; k < FT_ARRAY_SIZE(heads); k++) {
			if (heads[k].prefix ? ft__starts(tok, heads[k].head) :
			                      ft__eq(tok, heads[k].head)) {
				ps->lat_col[k] = i;
				break;
			}
		}
		if (!ft__starts(tok, "percentile"))
			i++;
	}
}

static void
lat_row(struct ft__pctx *c, struct pstate *ps, uint32_t line, struct ft__span s)
{
	static const char *const keys[] = { "bench.lat_min", "bench.lat_max",   "bench.lat_p50",
		                            "bench.lat_avg", "bench.lat_stdev", "bench.lat_p99",
		                            "bench.lat_p999" };
	struct ft__span t[12], rest = s;
	size_t n = 0;
	double v[7];
	uint64_t bytes, iters;
	struct ft_result_row r;
	char size[24];

	while (n < 12 && ft__token(&rest, &t[n]))
		n++;
	if (n < 3 || !ft__u64(t[0], &bytes) || !ft__u64(t[1], &iters)) {
		ft__skipped(c, line, "malformed perftest latency row", s);
		return;
	}
	for (int k = 0; k < 7; k++) {
		int col = ps->lat_col[k];

		v[k] = NAN;
		if (col >= 0 && (size_t)col < n && !ft__dbl(t[col], &v[k])) {
			ft__skipped(c, line, "malformed perftest latency row", s);
			return;
		}
	}
	snprintf(size, sizeof(size), "%" PRIu64, bytes);
	if (ps->cycles) {
		/* time stamp counter ticks: the table names no clock rate, so no
		   time can be told from them (prompt_cycles()) */
		for (int k = 0; k < 7; k++)
			if (!isnan(v[k]))
				ft__emit_named(c, line, keys[k], ft__span_c("_cycles"), true, v[k],
				               "cycles", ft__span_c(size));
		return;
	}
	row_init(&r, "pt2pt_lat", ps, bytes, iters);
	r.lat_min_us = v[0];
	r.lat_max_us = v[1];
	r.lat_p50_us = v[2];
	r.lat_avg_us = v[3];
	r.lat_stdev_us = v[4];
	r.lat_p99_us = v[5];
	r.lat_p999_us = v[6];
	r.time_us = v[2];
	/* fabtune bench's rows: a message over the typical (median) time, as its --json */
	if (ps->fabtune && r.time_us > 0)
		r.algbw_GBps = r.busbw_GBps = (double)bytes / (r.time_us * 1e3);
	ft__copy(r.src, sizeof(r.src), ft__span_c(c->device));
	ft__add_row(c, &r);
	for (int k = 0; k < 7; k++)
		if (!isnan(v[k]))
			ft__emit(c, line, keys[k], true, v[k], "us", ft__span_c(size));
}

/*
 * A settings line: its first key is one perftest prints, or is padded to
 * the column of the colons ("Dual-port       : OFF"). "INFO: ...",
 * "WARNING: ..." and time stamps around a run are not settings.
 */
static bool
is_settings_line(struct ft__span s)
{
	const char *colon = memchr(s.p, ':', s.n);
	struct ft__span k;

	if (!colon || colon == s.p)
		return false;
	k = ft__trim((struct ft__span){ s.p, (size_t)(colon - s.p) });
	for (size_t i = 0; i < FT_ARRAY_SIZE(fields); i++)
		if (ft__eq(k, fields[i].name))
			return true;
	return ft__is_space(colon[-1]) && !memchr(k.p, ',', k.n);
}

/*
 * A bandwidth row seen without its header: "#bytes #iterations BW peak BW
 * average MsgRate", whole numbers then numbers with two decimals, and the
 * message rate with six (perftest prints it with "%.6f").
 */
static bool
bare_bw_row(struct ft__span s)
{
	struct ft__span t[6], rest = s;
	size_t n = 0;
	uint64_t u;
	const char *dot;

	while (n < 6 && ft__token(&rest, &t[n]))
		n++;
	if (n != 5 || !ft__u64(t[0], &u) || !ft__u64(t[1], &u))
		return false;
	for (size_t i = 2; i < 5; i++) {
		dot = memchr(t[i].p, '.', t[i].n);
		if (!dot || (size_t)(t[i].p + t[i].n - dot - 1) != (i == 4 ? 6u : 2u))
			return false;
	}
	return true;
}

/*
 * "# copy: 65536 bytes: ring-nt" under fabtune bench's pt2pt_bw table: the
 * copy that size's messages took, which its --json gives as the row's
 * "copy": into the algorithm of the last row of that size read, as the
 * document's reading puts it (fabtune_bench_json.c).
 */
static void
copy_line(struct ft__pctx *c, const struct pstate *ps, uint32_t line, struct ft__span s)
{
	struct ft__span size, rest = s;
	uint64_t bytes;

	if (!ft__token(&rest, &size) || !ft__u64(size, &bytes) || !ft__starts(rest, " bytes: ") ||
	    ft__is_blank(ft__skip(rest, 8))) {
		ft__skipped(c, line, "malformed fabtune copy line", s);
		return;
	}
	rest = ft__trim(ft__skip(rest, 8));
	for (size_t i = c->run ? ft_run_nrows(c->run) : 0; i-- > 0;) {
		struct ft_result_row *r = ft_run_row(c->run, i);

		if (r->bytes == bytes && strcmp(r->test, "pt2pt_bw") == 0 &&
		    strcmp(r->transport, ps->transport) == 0) {
			ft__copy(r->algo, sizeof(r->algo), rest);
			return;
		}
	}
	ft__skipped(c, line, "fabtune copy line of a size with no row", s);
}

/*
 * "Conflicting CPU frequency values detected: 1200.000000 != 3591.635000.
 * CPU Frequency is not max.": perftest's proc_get_cpu_mhz() (get_clock.c)
 * found the cores of /proc/cpuinfo at different clocks, a frequency governor
 * at work (HOST-CPU). A warning, between the table's header and its rows:
 * the run goes on (its figures stand; the latency tests' conversion of
 * cycles to time uses a sampled clock). `host.cpu_freq_conflict`: the lower
 * clock in MHz, the two as printed in str.
 */
#define FREQ_WARNING "Conflicting CPU frequency values detected:"

static void
cpu_freq_line(struct ft__pctx *c, uint32_t line, struct ft__span s)
{
	struct ft__span rest, pair = ft__trim(s);
	const char *dot = ft__find(pair, ". ");
	double a, b;

	if (dot) /* the sentence after: "CPU Frequency is not max." */
		pair.n = (size_t)(dot - pair.p);
	else if (pair.n && pair.p[pair.n - 1] == '.')
		pair.n--;
	if (!ft__lead_dbl(pair, &a, &rest) || !ft__starts(rest, "!= ") ||
	    !ft__lead_dbl(ft__skip(rest, 3), &b, &rest) || rest.n) {
		ft__skipped(c, line, "malformed CPU frequency warning", s);
		return;
	}
	ft__emit(c, line, "host.cpu_freq_conflict", true, a < b ? a : b, "MHz", pair);
}

/*
 * "ib_write_lat -a -n 1000 -F -C" (or "./ib_read_lat --report-cycles ...")
 * at a prompt: a latency test asked for its figures in cycles. Short options
 * run together ("-FC") are not looked into. perftest's print_report_lat()
 * (perftest_parameters.c) divides by no clock under --report-cycles
 * (cycles_to_units = 1), but the header it prints is RESULT_FMT_LAT's
 * "t_min[usec]" whatever the unit: only the command at the prompt tells.
 */
static bool
prompt_cycles(struct ft__span cmd)
{
	struct ft__span tok, base;
	const char *slash;

	if (!ft__token(&cmd, &tok))
		return false;
	base = tok;
	while ((slash = memchr(base.p, '/', base.n)) != NULL)
		base = ft__skip(base, (size_t)(slash - base.p) + 1);
	if (!ft__starts(base, "ib_") || !ft__ends(base, "_lat"))
		return false;
	while (ft__token(&cmd, &tok))
		if (ft__eq(tok, "-C") || ft__eq(tok, "--report-cycles"))
			return true;
	return false;
}

static bool
perftest_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	struct pstate *ps = state;
	struct ft__span cmd, tok, rest;

	if (ft__starts(s, "---") || ft__starts(s, "***") ||
	    (ft__starts(s, "*") && ft__ends(s, "*")))
		return true;
	/* fabtune bench's note under a latency table (before a root prompt's "# ") */
	if (ft__starts(s, "# clock: ")) {
		ft__emit_clock_line(c, line, ft__skip(s, 9));
		return true;
	}
	/* fabtune bench's note under a pt2pt_bw table over shm: the copy of a size's row */
	if (ps->fabtune && ft__starts(s, "# copy: ")) {
		copy_line(c, ps, line, ft__skip(s, 8));
		return true;
	}
	if (ft__is_prompt(s, &cmd)) {
		rest = cmd;
		if (ft__token(&rest, &tok) && ft__starts(tok, "ib_"))
			ft__copy(ps->test, sizeof(ps->test), tok);
		ps->cycles = prompt_cycles(cmd);
		ps->table = T_NONE;
		return true;
	}
	/* fabtune bench's title: "shm BW Test (fabtune)" */
	if (ft__ends(s, " Test (fabtune)") && !memchr(s.p, ':', s.n)) {
		s.n -= strlen(" (fabtune)");
		ps->fabtune = true;
	}
	if (ft__ends(s, " Test") && !memchr(s.p, ':', s.n)) {
		ps->bidir = ft__find(s, "Bidirectional") != NULL;
		test_from_banner(ps, s);
		ft__emit_str(c, line, "perftest.test", ft__span_c(ps->banner));
		ps->table = T_NONE;
		return true;
	}
	if (ft__starts(s, "#bytes")) {
		if (ft__find(s, "BW")) {
			ps->table = T_BW;
			ps->gbits = ft__find(s, "Gb/sec") != NULL;
		} else {
			ps->table = T_LAT;
			lat_header(ps, ft__skip(s, 0));
		}
		return true;
	}
	if (ft__starts(s, "local address:")) {
		ps->remote = false;
		return true;
	}
	if (ft__starts(s, "remote address:")) {
		ps->remote = true;
		return true;
	}
	if (ft__starts(s, "GID:")) {
		ft__emit_str(c, line, ps->remote ? "perftest.gid_remote" : "perftest.gid_local",
		             ft__trim(ft__skip(s, 4)));
		return true;
	}
	if (ft__is_digit(s.p[0]) && ps->table != T_NONE) {
		if (ps->table == T_BW)
			bw_row(c, ps, line, s);
		else
			lat_row(c, ps, line, s);
		return true;
	}
	if (ft__starts(s, FREQ_WARNING)) {
		cpu_freq_line(c, line, ft__skip(s, sizeof(FREQ_WARNING) - 1));
		return true;
	}
	if (ft__starts(s, "Test integrity may be harmed"))
		return true; /* the end of the warning above, with -F */
	/*
	 * "Can't produce a report": print_report_bw() found no clock rate; before
	 * perftest 4.1 (get_clock.c, 2015) the conflict above without -F made
	 * proc_get_cpu_mhz() return 0 and the run end so.
	 */
	if (ft__starts_any(s, "Failed|Couldn't|Can't|Unable|Conflicting|Error") ||
	    ft__find(s, " failed")) {
		ft__emit_str(c, line, "tool.error", s);
		return true;
	}
	if (is_settings_line(s)) {
		settings_line(c, ps, line, s);
		return true;
	}
	if (ft__is_digit(s.p[0]) && bare_bw_row(s)) {
		/* rows without their column header (--run_infinitely prints one per interval) */
		bw_row(c, ps, line, s);
		return true;
	}
	return false;
}

int
ft__perftest_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct pstate ps = { .table = T_NONE };

	ft_strlcpy(ps.test, "perftest", sizeof(ps.test));
	ft_strlcpy(ps.transport, "verbs", sizeof(ps.transport));
	ft__pctx_run_kind(c, "perftest");
	return ft__parse_lines(c, text, len, perftest_line, &ps, "not perftest output");
}

static const struct ft__sniff_rule perftest_rules[] = {
	{ 95, { "#bytes", "#iterations|BW peak" } },
	{ 90, { " BW Test| Latency Test", "Device" } },
};

/* The banner or the column header; else three bandwidth rows without them. */
static int
perftest_sniff(const char *text, size_t len)
{
	int score = ft__sniff_rules(text, len, perftest_rules, FT_ARRAY_SIZE(perftest_rules));
	struct ft__lines it;
	struct ft__span line;
	int rows = 0;

	if (score)
		return score;
	ft__lines_init(&it, text, len, 0);
	while (rows < 3 && ft__lines_next(&it, &line)) {
		line = ft__trim(line);
		rows += line.n && ft__is_digit(line.p[0]) && bare_bw_row(line);
	}
	return rows >= 3 ? 70 : 0;
}

FT__PARSER_SNIFF(perftest, "perftest",
                 "perftest ib_*_bw / ib_*_lat: settings, GIDs, bandwidth or latency table",
                 perftest_sniff);

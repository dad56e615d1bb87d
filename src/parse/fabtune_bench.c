/* SPDX-License-Identifier: MIT */
/*
 * parse/fabtune_bench.c - the tables of `fabtune bench` that no other tool
 * prints: the pairs matrices, the bisection and incast tables, and
 * copy_matrix's matrices (nvbandwidth's layout: see copy_line). (Its
 * collectives print nccl-tests' table and its point-to-point perftest's;
 * those parsers read them.)
 *
 * The first line names the pattern: "# fabtune bench pairs: transport tcp,
 * 8 ranks". Pairs: one result row per ordered pair, of the size every pair
 * streamed (maxBytes of the "# nThread" line), as the run's own rows (test
 * pairs, 2 ranks, src and dst "HOST/rankS" from the host that ends each
 * matrix row, algbw in GB/s, the time it gives at that size, lat_p50_us from
 * the latency matrix), and
 * `bench.median_pair_bw` (GBps), `bench.outlier` (str: the line). Bisection
 * and incast: one result row per table row (size as printed, bw, min bw or
 * p50 latency, the round or victim and the pair or root), and for incast
 * `bench.congestion_impact` (ratio). Pairs and incast: for each "# clock:
 * rank R ..." line, the clock that timed rank R's latencies, under the keys
 * `--save` stores (ft__emit_clock: `bench.clock_hz`, `bench.clock_error`).
 * A text that starts with '{' is the --json document of any pattern, read by
 * ft__fabtune_bench_json (fabtune_bench_json.c) into the same records.
 */
#include "parse_int.h"

#include <math.h>

#include <fabtune/units.h>

#define MAXRANKS 256

struct fstate {
	char pattern[16];
	char transport[16];
	uint64_t max_bytes; /* pairs: the size every pair streamed (-e, "maxBytes") */
	uint32_t nranks;    /* of the header line: "transport tcp, 8 ranks" */
	int matrix;      /* 0 none, 1 bandwidth, 2 latency */
	bool table;      /* inside the bisection/incast table */
	uint32_t n;      /* ranks in the matrices */
	double *bw, *lat; /* n x n */
	char (*host)[64]; /* each row's host, the name at its end ("" none) */
	/* copy_matrix: the matrix being read ("ce", "sm"; "" none), its size and its
	   column names (the line under "# memcpy ... bandwidth") */
	char copy_algo[4];
	uint64_t copy_bytes;
	char cols[65][16];
	uint32_t ncols; /* 0: the names line is next */
};

static void
header_line(struct fstate *fs, struct ft__span s)
{
	struct ft__span tok;
	uint64_t n;

	s = ft__skip(s, strlen("# fabtune bench "));
	if (ft__token(&s, &tok)) {
		if (tok.n && tok.p[tok.n - 1] == ':')
			tok.n--;
		ft__copy(fs->pattern, sizeof(fs->pattern), tok);
	}
	if (ft__token(&s, &tok) && ft__eq(tok, "transport") && ft__token(&s, &tok)) {
		if (tok.n && tok.p[tok.n - 1] == ',')
			tok.n--;
		ft__copy(fs->transport, sizeof(fs->transport), tok);
	}
	/* "3 ranks": every rank takes part in a bisection round and an incast */
	if (ft__token(&s, &tok) && ft__u64(tok, &n) && n <= UINT32_MAX)
		fs->nranks = (uint32_t)n;
}

/* "       0        -    3.569    4.031  vm": one matrix row. */
static void
matrix_row(struct ft__pctx *c, struct fstate *fs, uint32_t line, struct ft__span s)
{
	struct ft__span tok;
	uint64_t src;
	uint32_t d = 0;
	double *m = fs->matrix == 1 ? fs->bw : fs->lat;

	if (!ft__token(&s, &tok) || !ft__u64(tok, &src) || src >= MAXRANKS) {
		ft__skipped(c, line, "malformed fabtune pairs row", s);
		return;
	}
	while (d < MAXRANKS && ft__token(&s, &tok)) {
		double v;

		if (ft__eq(tok, "-")) {
			v = NAN;
		} else if (!ft__dbl(tok, &v)) {
			ft__copy(fs->host[src], sizeof(fs->host[0]), tok); /* it closes the row */
			break;
		}
		m[src * MAXRANKS + d++] = v;
	}
	if (src + 1 > fs->n)
		fs->n = (uint32_t)src + 1;
	if (d > fs->n)
		fs->n = d;
}

/* "h0/rank0" as the run labels its ends (bench/patterns.c ft__bench_rank_label), or
   "rank 0" where the matrix names no host */
static void
rank_label(const struct fstate *fs, uint32_t r, char *buf, size_t n)
{
	if (fs->host[r][0])
		snprintf(buf, n, "%.40s/rank%u", fs->host[r], r);
	else
		snprintf(buf, n, "rank %u", r);
}

static void
pairs_rows(struct ft__pctx *c, struct fstate *fs)
{
	uint32_t s, d;

	for (s = 0; s < fs->n; s++)
		for (d = 0; d < fs->n; d++) {
			struct ft_result_row r;
			double bw = fs->bw[s * MAXRANKS + d];

			if (s == d || isnan(bw))
				continue;
			ft_result_row_init(&r);
			ft_strlcpy(r.test, "pairs", sizeof(r.test));
			ft_strlcpy(r.transport, fs->transport, sizeof(r.transport));
			rank_label(fs, s, r.src, sizeof(r.src));
			rank_label(fs, d, r.dst, sizeof(r.dst));
			r.bytes = fs->max_bytes;
			r.nranks = 2; /* a pair, as the run's rows */
			r.algbw_GBps = r.busbw_GBps = bw;
			if (bw > 0)
				r.time_us = (double)r.bytes / (bw * 1e3);
			r.lat_p50_us = fs->lat[s * MAXRANKS + d];
			ft__add_row(c, &r);
		}
}

/*
 * copy_matrix (nvbandwidth's layout, one matrix per copy method): the line of
 * column names ("host gpu0 gpu1"), then a row per source, "-" on the
 * diagonal. Each cell is a row: test copy_matrix, algo ce or sm, src, dst,
 * algbw in GB/s, of the size the matrix's title gives.
 */
static void
copy_line(struct ft__pctx *c, struct fstate *fs, uint32_t line, struct ft__span s)
{
	struct ft__span tok, name;
	uint32_t d = 0;

	if (fs->ncols == 0) {
		while (fs->ncols < FT_ARRAY_SIZE(fs->cols) && ft__token(&s, &tok))
			ft__copy(fs->cols[fs->ncols++], sizeof(fs->cols[0]), tok);
		return;
	}
	if (!ft__token(&s, &name)) {
		ft__skipped(c, line, "malformed fabtune copy_matrix row", s);
		return;
	}
	while (ft__token(&s, &tok)) {
		struct ft_result_row r;
		double v;

		if (d >= fs->ncols || (!ft__eq(tok, "-") && !ft__dbl(tok, &v))) {
			ft__skipped(c, line, "malformed fabtune copy_matrix row", tok);
			return;
		}
		if (ft__eq(tok, "-")) {
			d++;
			continue;
		}
		ft_result_row_init(&r);
		ft_strlcpy(r.test, "copy_matrix", sizeof(r.test));
		ft_strlcpy(r.transport, fs->transport, sizeof(r.transport));
		ft_strlcpy(r.algo, fs->copy_algo, sizeof(r.algo));
		ft__copy(r.src, sizeof(r.src), name);
		ft_strlcpy(r.dst, fs->cols[d++], sizeof(r.dst));
		r.bytes = fs->copy_bytes;
		r.nranks = fs->nranks; /* "1 ranks": one process copies between its GPUs */
		r.algbw_GBps = r.busbw_GBps = v;
		if (v > 0)
			r.time_us = (double)r.bytes / (v * 1e3);
		ft__add_row(c, &r);
	}
}

/* "bisection  64KiB  52.539  23.179  round2  vm/rank0 <-> vm/rank1" and incast's rows. */
static void
table_row(struct ft__pctx *c, struct fstate *fs, uint32_t line, struct ft__span s)
{
	struct ft__span test, size, bw, third, rest;
	struct ft_result_row r;
	char buf[32];
	uint64_t bytes;
	double v1, v2;

	if (!ft__token(&s, &test) || !ft__token(&s, &size) || !ft__token(&s, &bw) ||
	    !ft__token(&s, &third)) {
		ft__skipped(c, line, "malformed fabtune bench row", s);
		return;
	}
	ft__copy(buf, sizeof(buf), size);
	/* the idle row of incast has no bandwidth: "nan" */
	if (ft__eq(bw, "nan"))
		v1 = NAN;
	else if (!ft__dbl(bw, &v1))
		bytes = UINT64_MAX;
	if (ft_parse_size(buf, &bytes, NULL) < 0 || bytes == UINT64_MAX || !ft__dbl(third, &v2)) {
		ft__skipped(c, line, "malformed fabtune bench row", test);
		return;
	}
	ft_result_row_init(&r);
	ft__copy(r.test, sizeof(r.test), test);
	ft_strlcpy(r.transport, fs->transport, sizeof(r.transport));
	r.bytes = bytes;
	r.nranks = fs->nranks;
	r.algbw_GBps = v1;
	if (strcmp(fs->pattern, "bisection") == 0) {
		r.busbw_GBps = v2; /* the weakest direction of the round */
		if (ft__token(&s, &third))
			ft__copy(r.algo, sizeof(r.algo), third);
		rest = ft__trim(s);
		/* "a <-> b" */
		if (ft__token(&rest, &third)) {
			ft__copy(r.src, sizeof(r.src), third);
			if (ft__token(&rest, &third) && ft__token(&rest, &third))
				ft__copy(r.dst, sizeof(r.dst), third);
		}
	} else {
		r.busbw_GBps = v1;
		r.lat_p50_us = v2;
		if (ft__token(&s, &third))
			ft__copy(r.src, sizeof(r.src), third);
		if (ft__token(&s, &third))
			ft__copy(r.dst, sizeof(r.dst), third);
	}
	ft__add_row(c, &r);
}

static void
comment(struct ft__pctx *c, struct fstate *fs, uint32_t line, struct ft__span s)
{
	const char *p;
	double v;

	if (ft__starts(s, "# fabtune bench ")) {
		header_line(fs, s);
	} else if (ft__starts(s, "# nThread") && (p = ft__find(s, "maxBytes ")) != NULL) {
		/* pairs streams -e bytes each way (bench/patterns_pairs.c), not -b */
		struct ft__span t = ft__skip(s, (size_t)(p - s.p) + 9), tok;

		if (ft__token(&t, &tok))
			(void)ft__u64(tok, &fs->max_bytes);
	} else if (ft__starts(s, "# memcpy CE bandwidth") || ft__starts(s, "# memcpy SM bandwidth")) {
		/* "# memcpy CE bandwidth (GB/s), 536870912 bytes, row = source, ..." */
		struct ft__span t = ft__skip(s, 7), tok;

		ft_strlcpy(fs->copy_algo, s.p[9] == 'C' ? "ce" : "sm", sizeof(fs->copy_algo));
		fs->ncols = 0;
		fs->copy_bytes = 0;
		p = ft__find(t, "), ");
		if (p) {
			t = ft__skip(t, (size_t)(p - t.p) + 3);
			if (ft__token(&t, &tok))
				(void)ft__u64(tok, &fs->copy_bytes);
		}
	} else if (ft__starts(s, "# bandwidth (GB/s)")) {
		fs->matrix = 1;
	} else if (ft__starts(s, "# latency (us")) {
		fs->matrix = 2;
	} else if (ft__starts(s, "# median pair bandwidth:")) {
		fs->matrix = 0;
		if (ft__lead_dbl(ft__trim(ft__skip(s, 24)), &v, NULL))
			ft__emit_num(c, line, "bench.median_pair_bw", v, "GBps");
	} else if (ft__starts(s, "# clock: ")) {
		/* "# clock: rank 2 tsc 2095.081 MHz, error 3.1 ppm": what timed its latencies */
		ft__emit_clock_line(c, line, ft__skip(s, 9));
	} else if (ft__starts(s, "# OUTLIER ")) {
		ft__emit_str(c, line, "bench.outlier", ft__trim(ft__skip(s, 10)));
	} else if (ft__starts(s, "# victim latency:") &&
	           (p = ft__find(s, "congestion impact ")) != NULL) {
		if (ft__lead_dbl(ft__skip(s, (size_t)(p - s.p) + 18), &v, NULL))
			ft__emit_num(c, line, "bench.congestion_impact", v, "ratio");
	}
}

/* No "# fabtune bench" line (the tables' header) and some line starting with '{'. */
static bool
is_document(const char *text, size_t len)
{
	static const char hdr[] = "# fabtune bench";
	bool brace = false;

	for (size_t k = 0; k < len;) {
		const char *nl = memchr(text + k, '\n', len - k);
		size_t e = nl ? (size_t)(nl - text) : len, b = k;

		while (b < e && (text[b] == ' ' || text[b] == '\t' || text[b] == '\r'))
			b++;
		if (e - b >= sizeof(hdr) - 1 && memcmp(text + b, hdr, sizeof(hdr) - 1) == 0)
			return false;
		brace = brace || (b < e && text[b] == '{');
		k = e + 1;
	}
	return brace;
}

int
ft__fabtune_bench_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it = ft__pctx_lines(c, text, len);
	struct ft__span s;
	struct fstate fs = { .matrix = 0 };

	/* the --json document rather than a table: no table's header line, and a line
	   that opens an object (a warning or a prompt may come first) */
	if (is_document(text, len))
		return ft__fabtune_bench_json(c, text, len);
	fs.bw = ft_calloc((size_t)MAXRANKS * MAXRANKS, sizeof(double));
	fs.lat = ft_calloc((size_t)MAXRANKS * MAXRANKS, sizeof(double));
	fs.host = ft_calloc(MAXRANKS, sizeof(*fs.host));
	if (!fs.bw || !fs.lat || !fs.host) {
		ft_free(fs.bw);
		ft_free(fs.lat);
		ft_free(fs.host);
		return c->rc = ft_error_set(c->err, FT_ENOMEM, "%s: out of memory", c->file);
	}
	ft__pctx_run_kind(c, "fabtune-bench");
	while (ft__next_line(c, &it, &s)) {
		if (s.p[0] == '#') {
			if (ft__starts(s, "#   rank"))
				continue;
			comment(c, &fs, it.lineno, s);
			continue;
		}
		if (fs.copy_algo[0]) {
			copy_line(c, &fs, it.lineno, s);
			continue;
		}
		if (fs.matrix && ft__is_digit(s.p[0])) {
			matrix_row(c, &fs, it.lineno, s);
			continue;
		}
		if (ft__starts(s, "test ") && ft__find(s, "size")) {
			fs.table = true;
			continue;
		}
		if (fs.table) {
			table_row(c, &fs, it.lineno, s);
			continue;
		}
		ft__skipped(c, it.lineno, "not fabtune bench output", s);
	}
	if (fs.n > 0)
		pairs_rows(c, &fs);
	ft_free(fs.bw);
	ft_free(fs.lat);
	ft_free(fs.host);
	return c->rc;
}

/* 99: above nccl-tests, whose rank lines and settings line these outputs share */
FT__PARSER(fabtune_bench, "fabtune-bench",
           "fabtune bench's pairs matrices, bisection and incast tables, copy matrices; "
           "fabtune bench --json",
           { 99,
             { "# fabtune bench pairs:|# fabtune bench bisection:|"
               "# fabtune bench incast:|# fabtune bench copy_matrix:" } },
           /* the schema the CLI stamps first; the library's document starts with "source" */
           { 99, { "\"fabtune.bench/1\"" } },
           { 90, { "\"source\":\"bench\"|\"source\": \"bench\"", "\"interrupted\"",
                   "\"rows\"" } });

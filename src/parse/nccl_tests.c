/* SPDX-License-Identifier: MIT */
/*
 * parse/nccl_tests.c - nccl-tests output (every *_perf binary; the 2.0-era
 * format without "root", the 2.1x format with "redop root ... #wrong", and
 * the 2.18 format with its "# nccl-tests version" and "# Collective test"
 * lines), and the engine shared with the NCCL log parser.
 *
 * Each data row becomes a result row (test, bytes, count, dtype, redop,
 * root, out-of-place and in-place time/algbw/busbw/#wrong; NT-PERF, NA-BUSBW)
 * and the observation `bench.busbw` (str: the size in bytes; the other
 * figures are in the row), plus `bench.wrong` when non-zero. "#  Rank N ... on HOST device
 * D [BUS] MODEL" lines become `bench.rank` (rank, host, device = bus id,
 * number = CUDA device, str = model), so a diagnosis sees two ranks on one
 * GPU. The trailer gives `bench.avg_busbw` and `bench.out_of_bounds`; when the
 * "# nThread" header was seen, `bench.rows` (at its line) counts the rows read,
 * so a test that hung after init shows as 0.
 *
 * The collective comes from "# Collective test starting: X_perf", from a
 * "*_perf" command in the text or the corpus header, or from the file name.
 */
#include "nccl_int.h"

static const char *const collectives[10];

void
ft__nccl_state_init(struct ft__nccl_state *st)
{
	memset(st, 0, sizeof(*st));
	for (int i = 0; i < NT_NCOLS; i++)
		st->col[i] = -1;
	st->algo_col = st->proto_col = st->bneck_col = -1;
	ft_strlcpy(st->transport, "nccl", sizeof(st->transport));
}

/*
 * fabtune model's lines over its table: "fabtune model: dgx-h100:16" (@s past
 * its "#"), then "all_reduce on 128 ranks, 18 channels" names the collective
 * and the ranks. The rows have no transport: a model has none.
 */
static bool
model_line(struct ft__nccl_state *st, struct ft__span s)
{
	struct ft__span tok, rest = s;
	uint64_t n;

	if (ft__starts(s, "fabtune model:")) {
		st->model = true;
		st->transport[0] = '\0';
		st->test_known = false;
		st->nranks = 0;
		return true;
	}
	if (!st->model || !ft__token(&rest, &tok))
		return false;
	for (size_t i = 0; i < FT_ARRAY_SIZE(collectives); i++) {
		struct ft__span on, nr;

		if (!ft__eq(tok, collectives[i]))
			continue;
		rest = ft__skip(s, tok.n);
		rest = ft__trim(rest);
		if (!ft__token(&rest, &on) || !ft__eq(on, "on") || !ft__token(&rest, &nr) ||
		    !ft__u64(nr, &n) || n == 0 || n > UINT32_MAX)
			return false;
		ft_strlcpy(st->test, collectives[i], sizeof(st->test));
		st->test_known = true;
		st->nranks = (uint32_t)n;
		return true;
	}
	return st->model && !st->have_header; /* the spec's description, before the table */
}

/*
 * fabtune bench's first line, "fabtune bench all_gather: transport shm, 2
 * ranks" (@s past its "#"): the rows keep that transport, so that they
 * match what `fabtune bench --save` stores (dev_memcpy's "cuda" too); anything
 * else leaves "nccl".
 */
static void
fabtune_banner(struct ft__nccl_state *st, struct ft__span s)
{
	static const char *const own[] = { "tcp", "shm", "mpi", "nccl", "ucx", "verbs", "cuda" };
	struct ft__span tok, pattern;

	if (!ft__token(&s, &tok) || !ft__token(&s, &tok) || !ft__token(&s, &pattern) ||
	    !ft__ends(pattern, ":") || !ft__token(&s, &tok) || !ft__eq(tok, "transport") ||
	    !ft__token(&s, &tok) || !ft__ends(tok, ","))
		return;
	/* the pattern names the collective (the classic layout has no "Collective test" line) */
	pattern.n--;
	for (size_t i = 0; i < FT_ARRAY_SIZE(collectives) && !st->test_known; i++)
		if (ft__eq(pattern, collectives[i])) {
			ft_strlcpy(st->test, collectives[i], sizeof(st->test));
			st->test_known = true;
		}
	/* dev_memcpy prints nccl-tests' table too, a row per size of one GPU's copies */
	if (!st->test_known && ft__eq(pattern, "dev_memcpy")) {
		ft_strlcpy(st->test, "dev_memcpy", sizeof(st->test));
		st->test_known = true;
	}
	tok.n--;
	for (size_t i = 0; i < FT_ARRAY_SIZE(own); i++)
		if (ft__eq(tok, own[i]))
			ft_strlcpy(st->transport, own[i], sizeof(st->transport));
}

static const char *const collectives[10] = {
	"all_reduce", "all_gather", "alltoall", "reduce_scatter", "broadcast",
	"reduce",     "sendrecv",   "scatter",  "gather",         "hypercube",
};

/* Find a collective name in @s ("all_reduce_perf", "all-reduce"); false if none. */
static bool
find_collective(struct ft__span s, char *out, size_t size)
{
	for (size_t i = 0; i < FT_ARRAY_SIZE(collectives); i++) {
		char alt[32];
		size_t k;

		if (ft__find(s, collectives[i])) {
			ft_strlcpy(out, collectives[i], size);
			return true;
		}
		k = ft_strlcpy(alt, collectives[i], sizeof(alt));
		for (size_t j = 0; j < k; j++)
			if (alt[j] == '_')
				alt[j] = '-';
		if (ft__find(s, alt)) {
			ft_strlcpy(out, collectives[i], size);
			return true;
		}
	}
	return false;
}

static void
set_test_from(struct ft__nccl_state *st, struct ft__span s)
{
	/* "all_reduce_perf"; "reduce_test", the NCCL 1 binaries' names */
	const char *perf = ft__find(s, "_perf");

	if (!perf)
		perf = ft__find(s, "_test");
	if (st->test_known || !perf)
		return;
	/* the word ending in _perf */
	{
		const char *b = perf;
		struct ft__span w;

		while (b > s.p && (isalnum((unsigned char)b[-1]) || b[-1] == '_'))
			b--;
		w = (struct ft__span){ b, (size_t)(perf - b) };
		for (size_t i = 0; i < FT_ARRAY_SIZE(collectives); i++)
			if (ft__eq(w, collectives[i])) {
				ft_strlcpy(st->test, collectives[i], sizeof(st->test));
				st->test_known = true;
				return;
			}
	}
}

/*
 * The column-name line. nccl-tests 1.x (and the NCCL 1 tests) name the
 * columns "bytes N type op root ... res", later ones "size count type redop
 * root ... #wrong" ("error" before 2.10); a benchmark mimicking nccl-tests
 * may put the in-place group first, as its banner line then says
 * (st->ip_first).
 */
static void
header_columns(struct ft__pctx *c, struct ft__nccl_state *st, struct ft__span s)
{
	struct ft__span tok;
	int i = 0, pass = 0;

	for (int k = 0; k < NT_NCOLS; k++)
		st->col[k] = -1;
	st->error_col = false;
	st->ntok_first = 0;
	st->algo_col = st->proto_col = st->bneck_col = -1;
	while (ft__token(&s, &tok)) {
		bool ip = st->ip_first ? pass == 0 : pass == 1;

		if (ft__eq(tok, "#")) {
			continue;
		} else if (ft__eq(tok, "size") || ft__eq(tok, "bytes")) {
			st->col[NT_SIZE] = i;
		} else if (ft__eq(tok, "count") || ft__eq(tok, "N")) {
			st->col[NT_COUNT] = i;
		} else if (ft__eq(tok, "type")) {
			st->col[NT_TYPE] = i;
		} else if (ft__eq(tok, "redop") || ft__eq(tok, "op")) {
			st->col[NT_REDOP] = i;
		} else if (ft__eq(tok, "root")) {
			st->col[NT_ROOT] = i;
		} else if (ft__eq(tok, "time")) {
			st->col[ip ? NT_IP_TIME : NT_TIME] = i;
		} else if (ft__eq(tok, "cputime")) {
			st->col[ip ? NT_IP_CPUTIME : NT_CPUTIME] = i;
		} else if (ft__eq(tok, "algbw")) {
			st->col[ip ? NT_IP_ALGBW : NT_ALGBW] = i;
		} else if (ft__eq(tok, "busbw")) {
			st->col[ip ? NT_IP_BUSBW : NT_BUSBW] = i;
		} else if (ft__eq(tok, "#wrong") || ft__eq(tok, "wrong") || ft__eq(tok, "error") ||
		           ft__eq(tok, "res")) {
			st->error_col = ft__eq(tok, "error") || ft__eq(tok, "res");
			st->col[ip ? NT_IP_WRONG : NT_WRONG] = i;
			if (!pass)
				st->ntok_first = i + 1;
			pass = 1;
		} else if (st->model && ft__eq(tok, "algo")) { /* fabtune model's own columns */
			st->algo_col = i;
		} else if (st->model && ft__eq(tok, "proto")) {
			st->proto_col = i;
		} else if (st->model && ft__eq(tok, "bottleneck")) {
			st->bneck_col = i;
		} else {
			continue; /* "#" glued to a name, or an unknown column: not counted */
		}
		i++;
	}
	st->ntok = i;
	st->have_header = true;
	st->time_scale = 0;
	st->table_row0 = c->run ? ft_run_nrows(c->run) : 0;
}

/* Column layout from a row's token count when no header was seen. */
static bool
guess_columns(struct ft__nccl_state *st, int ntok)
{
	static const int with_root[NT_NCOLS] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, -1, -1 };
	static const int no_root[NT_NCOLS] = { 0, 1, 2, 3, -1, 4, 5, 6, 7, 8, 9, 10, 11, -1, -1 };
	static const int no_redop[NT_NCOLS] = { 0, 1, 2, -1, -1, 3, 4, 5, 6, 7, 8, 9, 10, -1, -1 };
	const int *m;

	if (ntok == 13)
		m = with_root;
	else if (ntok == 12)
		m = no_root;
	else if (ntok == 11)
		m = no_redop;
	else
		return false;
	memcpy(st->col, m, sizeof(st->col));
	st->ntok = ntok;
	st->error_col = ntok != 13;
	return true;
}

#define NT_MAXTOK 24

/*
 * A row's observations. @cpu holds the "cputime" columns of a table printed
 * with -C 1 (out-of-place, in-place; NaN where absent): nccl-tests puts
 * there the host time of launching one operation (src/common.cu, timed
 * before the wait for completion), while algbw and busbw stay computed from
 * the wall time. The row's time_us is wall time and stays unknown; those
 * figures go to `bench.cputime` and `bench.cputime_ip` instead.
 */
static void
emit_rowobs(struct ft__pctx *c, uint32_t line, const struct ft_result_row *r, const double cpu[2])
{
	char size[24], *q = size + sizeof(size);
	uint64_t v = r->bytes;
	struct ft__span sz;

	/* the size as text, without printf: this runs once per table row */
	do {
		*--q = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	sz = (struct ft__span){ q, (size_t)(size + sizeof(size) - q) };
	if (!isnan(r->busbw_GBps))
		ft__emit(c, line, "bench.busbw", true, r->busbw_GBps, "GBps", sz);
	if (r->wrong > 0)
		ft__emit(c, line, "bench.wrong", true, (double)r->wrong, "count", sz);
	if (!isnan(cpu[0]))
		ft__emit(c, line, "bench.cputime", true, cpu[0], "us", sz);
	if (!isnan(cpu[1]))
		ft__emit(c, line, "bench.cputime_ip", true, cpu[1], "us", sz);
}

/*
 * How far the rank count from busbw/algbw may sit from a whole number: 0.1,
 * or what the printed figures' rounding (half a unit of the second decimal
 * on each) allows, the count moving by @dndr per unit of ratio (n^2 / 2 for
 * all_reduce's n = 2 / (2 - ratio); 128 ranks at 500 GB/s: 0.49); nothing
 * when that reaches half a rank, where the count cannot be told from its
 * neighbours.
 */
static double
rank_slack(const struct ft_result_row *r, double ratio, double dndr)
{
	double dratio = ratio * 0.005 * (1 / r->algbw_GBps + 1 / r->busbw_GBps);
	double dn = dndr * dratio;

	return dn >= 0.5 ? 0 : dn > 0.1 ? dn : 0.1;
}

/*
 * The collective of a row when nothing else names it (an excerpt pasted
 * without its header), from what nccl-tests prints (NT-PERF):
 * a root column >= 0 is broadcast (redop "none") or reduce; unrooted with a
 * reduction, busbw/algbw = 2(n-1)/n > 1 is all_reduce and (n-1)/n < 1 is
 * reduce_scatter. The rank count n follows from the ratio when it matches a
 * whole number within the rounding of the printed figures. all_gather and
 * alltoall (same factor, no reduction) and ratio 1 (all_reduce on 2 ranks or
 * sendrecv) stay unknown. Figures are printed with two decimals: rows below
 * 1 GB/s are too coarse to name the test, below 10 GB/s to count the ranks.
 */
static bool
infer_test(const struct ft_result_row *r, char *name, size_t len, uint32_t *nranks)
{
	bool reduces = r->redop[0] && strcmp(r->redop, "none") != 0;
	double ratio, n, dndr;

	*nranks = 0;
	if (!r->redop[0])
		return false;
	if (r->root >= 0) {
		ft_strlcpy(name, reduces ? "reduce" : "broadcast", len);
		return true;
	}
	if (!reduces || !(r->algbw_GBps >= 1.0) || !(r->busbw_GBps > 0))
		return false;
	ratio = r->busbw_GBps / r->algbw_GBps;
	if (ratio > 1.02 && ratio <= 2.0) {
		ft_strlcpy(name, "all_reduce", len);
		n = 2.0 / (2.0 - ratio);
		dndr = n * n / 2;
	} else if (ratio < 0.98 && ratio >= 0.45) {
		ft_strlcpy(name, "reduce_scatter", len);
		n = 1.0 / (1.0 - ratio);
		dndr = n * n;
	} else {
		return false;
	}
	if (r->algbw_GBps >= 10.0 && n < 1e6 && fabs(n - round(n)) < rank_slack(r, ratio, dndr) &&
	    round(n) >= 2)
		*nranks = (uint32_t)round(n);
	return true;
}

/*
 * The rank counts busbw/algbw = @f(n) allows for one printed pair: the
 * figures carry two decimals, so the ratio lies between (busbw - 0.005) /
 * (algbw + 0.005) and (busbw + 0.005) / (algbw - 0.005), and n between the
 * inverses of its ends (@twice: all_reduce's 2(n-1)/n, else (n-1)/n).
 * Narrows [*lo, *hi]; false when the pair is not two figures.
 */
static bool
ranks_interval(double algbw, double busbw, bool twice, double *lo, double *hi)
{
	double k = twice ? 2.0 : 1.0, rlo, rhi, nlo, nhi;

	if (!(algbw > 0.005) || !(busbw > 0.005) || !isfinite(algbw) || !isfinite(busbw))
		return false;
	rlo = (busbw - 0.005) / (algbw + 0.005);
	rhi = (busbw + 0.005) / (algbw - 0.005);
	nlo = rlo < k ? k / (k - rlo) : INFINITY;
	nhi = rhi < k ? k / (k - rhi) : INFINITY;
	*lo = FT_MAX(*lo, nlo);
	*hi = FT_MIN(*hi, nhi);
	return true;
}

/*
 * The rank count of the rows of this text that show none (no "# Rank"
 * lines, no count in a header), from what the output does show: NCCL's own
 * "comm ... nRanks N" line, else the bus factor nccl-tests applies
 * (NT-PERF): busbw = algbw x 2(n-1)/n for all_reduce, x (n-1)/n for
 * all_gather, reduce_scatter and alltoall. Every printed pair of every row,
 * out-of-place and in-place, must allow the same single whole n (within the
 * rounding of its two decimals, ranks_interval): figures that disagree, or
 * too coarse to tell n from n + 1, give no count. The rows take it and
 * `bench.nranks` says where it came from.
 */
static void
ranks_of_text(struct ft__pctx *c, struct ft__nccl_state *st)
{
	double lo = 2, hi = INFINITY;
	const char *test = NULL;
	char basis[160];
	size_t i, npairs = 0;
	uint32_t n = 0, line = st->row_line;
	bool twice;

	if (!c->run)
		return;
	for (i = st->text_row0; i < ft_run_nrows(c->run); i++) {
		const struct ft_result_row *r = ft_run_row(c->run, i);

		if (strcmp(r->transport, st->transport) != 0 || r->nranks)
			continue;
		if (test && strcmp(test, r->test) != 0)
			return; /* two collectives without a count: no one figure for both */
		test = r->test;
	}
	if (!test)
		return;
	if (st->log_nranks) {
		n = st->log_nranks;
		line = st->log_nranks_line;
		snprintf(basis, sizeof(basis), "nRanks %u of NCCL's communicator line", n);
	} else {
		twice = strcmp(test, "all_reduce") == 0;
		if (!twice && strcmp(test, "all_gather") != 0 && strcmp(test, "reduce_scatter") != 0 &&
		    strcmp(test, "alltoall") != 0)
			return; /* a bus factor of 1 (broadcast, reduce, sendrecv) says nothing of n */
		for (i = st->text_row0; i < ft_run_nrows(c->run); i++) {
			const struct ft_result_row *r = ft_run_row(c->run, i);

			if (strcmp(r->transport, st->transport) != 0 || r->nranks)
				continue;
			npairs += ranks_interval(r->algbw_GBps, r->busbw_GBps, twice, &lo, &hi);
			npairs += ranks_interval(r->ip_algbw_GBps, r->ip_busbw_GBps, twice, &lo, &hi);
		}
		/* exactly one whole count in what every pair allows */
		if (!npairs || !(hi < 1e6) || floor(hi) != ceil(lo) || floor(hi) < 2)
			return;
		n = (uint32_t)floor(hi);
		snprintf(basis, sizeof(basis), "busbw/algbw = %s(n-1)/n in %zu figure pair%s (n %.2f-%.2f)",
			 twice ? "2" : "", npairs, npairs == 1 ? "" : "s", lo, hi);
	}
	for (i = st->text_row0; i < ft_run_nrows(c->run); i++) {
		struct ft_result_row *r = ft_vec_at(&c->run->rows, i);

		if (strcmp(r->transport, st->transport) == 0 && !r->nranks && strcmp(r->test, test) == 0)
			r->nranks = n;
	}
	c->host[0] = c->device[0] = '\0';
	c->port = c->rank = -1;
	ft__emit(c, line, "bench.nranks", true, (double)n, "count", ft__span_c(basis));
}

/* Rows of this text read before the collective was known take its name. */
static void
name_earlier_rows(struct ft__pctx *c, const struct ft__nccl_state *st)
{
	size_t i;

	if (!c->run || !st->nrows)
		return;
	for (i = st->row0; i < ft_run_nrows(c->run); i++) {
		struct ft_result_row *row = ft_vec_at(&c->run->rows, i);

		if (strcmp(row->test, "unknown") == 0 && strcmp(row->transport, st->transport) == 0) {
			ft_strlcpy(row->test, st->test, sizeof(row->test));
			if (!row->nranks)
				row->nranks = st->inferred_nranks;
		}
	}
}

/*
 * The row's tokens, at most NT_MAXTOK (false past that): a Markdown table's
 * " | " cell separators are not tokens.
 */
static bool
row_tokens(struct ft__span s, struct ft__span *tok, int *n)
{
	struct ft__span t;

	*n = 0;
	while (ft__token(&s, &t)) {
		if (ft__eq(t, "|"))
			continue;
		if (*n == NT_MAXTOK)
			return false;
		tok[(*n)++] = t;
	}
	return true;
}

/*
 * Fit a row of @n tokens to the header of st->ntok columns: the row itself,
 * a row of alltoall or all_gather from before nccl-tests 2.10 whose redop
 * cell is printed empty (one token short, a number where the redop is), or
 * a row of only the first column group (a benchmark that prints one group).
 */
static bool
fit_row(const struct ft__nccl_state *st, struct ft__span *tok, int *n)
{
	int at = st->col[NT_REDOP];
	double d;

	if (*n == st->ntok)
		return true;
	if (*n == st->ntok - 1 && at >= 0 && at < *n && ft__dbl(tok[at], &d)) {
		memmove(tok + at + 1, tok + at, (size_t)(*n - at) * sizeof(*tok));
		tok[at] = (struct ft__span){ tok[at + 1].p, 0 };
		(*n)++;
		return true;
	}
	return st->ntok_first > 0 && *n == st->ntok_first;
}

/*
 * Whether @r's time is in microseconds (1) or milliseconds (1000), 0 when
 * the row cannot tell: nccl-tests 1.x and the NCCL 1 tests printed
 * milliseconds without a units line, later ones print microseconds. algbw
 * is the size over the time (GB/s = bytes / us / 1e3), so the unit is the
 * one under which the printed algbw (two decimals) follows from size and
 * time, when exactly one does; where neither does (an old table whose size
 * is not the one algbw was computed from) the time stays as printed.
 */
static int
time_unit(const struct ft_result_row *r)
{
	double us, ms, slack;
	bool is_us, is_ms;

	if (!r->bytes || !(r->time_us > 0) || isnan(r->algbw_GBps))
		return 0;
	us = (double)r->bytes / (r->time_us * 1e3);
	ms = us / 1e3;
	slack = 0.005 + 0.05 * r->algbw_GBps;
	is_us = fabs(us - r->algbw_GBps) <= slack;
	is_ms = fabs(ms - r->algbw_GBps) <= slack;
	return is_us == is_ms ? 0 : is_us ? 1 : 1000;
}

/* The first row that tells the time unit sets it for its table: rescale the rows read before. */
static void
settle_time_unit(struct ft__pctx *c, struct ft__nccl_state *st, struct ft_result_row *r)
{
	int unit = st->time_scale ? 0 : time_unit(r);

	if (unit == 1000 && c->run) {
		for (size_t i = st->table_row0; i < ft_run_nrows(c->run); i++) {
			struct ft_result_row *row = ft_vec_at(&c->run->rows, i);

			row->time_us *= 1e3;
			row->ip_time_us *= 1e3;
		}
	}
	if (unit)
		st->time_scale = unit;
	if (st->time_scale == 1000) {
		r->time_us *= 1e3;
		r->ip_time_us *= 1e3;
	}
}

static bool
data_row(struct ft__pctx *c, struct ft__nccl_state *st, struct ft__span s, uint32_t line)
{
	struct ft__span tok[NT_MAXTOK + 1];
	int n = 0;
	struct ft_result_row r;
	uint64_t u;
	int64_t iv;
	double d, cpu[2];

	if (!row_tokens(s, tok, &n) || n < 6)
		return false;
	if (!st->have_header && !guess_columns(st, n))
		return false;
	if (st->have_header && !fit_row(st, tok, &n))
		return false;
	/* A header may name columns without a size: such a table has no rows to read. */
	if (st->col[NT_SIZE] < 0 || st->col[NT_SIZE] >= n)
		return false;
	ft_result_row_init(&r);
	if (!ft__u64(tok[st->col[NT_SIZE]], &r.bytes))
		return false;
	/* a column the header names but this row does not reach is absent, as below */
#define HAS(which) (st->col[which] >= 0 && st->col[which] < n)
	if (HAS(NT_COUNT) && !ft__u64(tok[st->col[NT_COUNT]], &r.count))
		return false;
	if (HAS(NT_TYPE))
		ft__copy(r.dtype, sizeof(r.dtype), tok[st->col[NT_TYPE]]);
	if (HAS(NT_REDOP))
		ft__copy(r.redop, sizeof(r.redop), tok[st->col[NT_REDOP]]);
	if (HAS(NT_ROOT)) {
		if (!ft__i64(tok[st->col[NT_ROOT]], &iv))
			return false;
		r.root = (int)iv;
	}
	/* a column past the row's end: a row of one column group; N/A or nan (fabtune
	   bench's dev_memcpy, which has no in-place copy): not measured */
#define NUMCOL(which, field)                                            \
	do {                                                            \
		if (HAS(which)) {                                       \
			if (ft__dbl(tok[st->col[which]], &d))           \
				r.field = d;                            \
			else if (!ft__eq(tok[st->col[which]], "N/A") && \
			         !ft__eq(tok[st->col[which]], "nan"))   \
				return false;                           \
		}                                                       \
	} while (0)
	NUMCOL(NT_TIME, time_us);
	NUMCOL(NT_ALGBW, algbw_GBps);
	NUMCOL(NT_BUSBW, busbw_GBps);
	NUMCOL(NT_IP_TIME, ip_time_us);
	NUMCOL(NT_IP_ALGBW, ip_algbw_GBps);
	NUMCOL(NT_IP_BUSBW, ip_busbw_GBps);
#undef NUMCOL
#undef HAS
	if (st->algo_col >= 0 && st->algo_col < n)
		ft__copy(r.algo, sizeof(r.algo), tok[st->algo_col]);
	if (st->proto_col >= 0 && st->proto_col < n)
		ft__copy(r.proto, sizeof(r.proto), tok[st->proto_col]);
	if (st->bneck_col >= 0 && st->bneck_col < n)
		ft__copy(r.bottleneck, sizeof(r.bottleneck), tok[st->bneck_col]);
	for (int k = 0; k < 2; k++) {
		int at = st->col[k ? NT_IP_CPUTIME : NT_CPUTIME];

		cpu[k] = NAN;
		if (at >= 0 && at < n && !ft__dbl(tok[at], &cpu[k]) && !ft__eq(tok[at], "N/A"))
			return false;
	}
	r.wrong = -1;
	if (!st->error_col && st->col[NT_WRONG] >= 0 && st->col[NT_WRONG] < n) {
		struct ft__span w = tok[st->col[NT_WRONG]], w2;

		/* a float there is the old "error" column (largest deviation), not a count */
		if (ft__u64(w, &u))
			r.wrong = (int64_t)u;
		else if (!ft__eq(w, "N/A") && !ft__dbl(w, &d))
			return false;
		if (st->col[NT_IP_WRONG] >= 0 && st->col[NT_IP_WRONG] < n) {
			w2 = tok[st->col[NT_IP_WRONG]];
			if (ft__u64(w2, &u) && (int64_t)u > r.wrong)
				r.wrong = (int64_t)u;
		}
	}
	settle_time_unit(c, st, &r);
	if (!st->test_known) {
		char name[32];
		uint32_t nranks = 0;

		if (find_collective(ft__span_c(c->file), name, sizeof(name))) {
			ft_strlcpy(st->test, name, sizeof(st->test));
			st->test_known = true;
		} else if (infer_test(&r, name, sizeof(name), &nranks)) {
			/* a headerless excerpt: the row itself names the collective */
			ft_strlcpy(st->test, name, sizeof(st->test));
			st->test_known = true;
			if (!st->nranks)
				st->inferred_nranks = nranks;
			name_earlier_rows(c, st);
		} else {
			ft_strlcpy(st->test, "unknown", sizeof(st->test));
			if (!st->nrows && c->run)
				st->row0 = ft_run_nrows(c->run);
		}
	}
	ft_strlcpy(r.test, st->test, sizeof(r.test));
	ft_strlcpy(r.transport, st->transport, sizeof(r.transport));
	r.nranks = st->nranks ? st->nranks : st->inferred_nranks;
	if (st->ranks_cut) { /* only some rank lines were kept: the row, else the highest rank */
		char kind[32];
		uint32_t inferred = 0;

		r.nranks = infer_test(&r, kind, sizeof(kind), &inferred) && inferred ? inferred :
		                                                                      st->rank_end;
	}
	c->host[0] = c->device[0] = '\0';
	c->port = c->rank = -1;
	ft__add_row(c, &r);
	emit_rowobs(c, line, &r, cpu);
	if (!st->row_line)
		st->row_line = line;
	st->nrows++;
	return true;
}

/*
 * "#  Rank  0 Group  0 Pid  23654 on      gpu34 device  0 [0000:07:00] NVIDIA A100"
 * (@s past its "#"): the host is every word between "on" and "device" (a
 * name a poster typed may hold blanks), the first word after "on" when no
 * "device" follows; the NCCL 1 tests' "Rank 0 uses device 0 [0x3b] MODEL"
 * names none.
 */
static void
rank_line(struct ft__pctx *c, struct ft__nccl_state *st, struct ft__span s, uint32_t line)
{
	struct ft__span rest = s, tok = FT__NOSTR, host = FT__NOSTR, first = FT__NOSTR,
	                bus = FT__NOSTR;
	int64_t rank = -1, dev = -1;
	const char *close;
	bool on = false, device = false;

	while (ft__token(&rest, &tok)) {
		if (ft__eq(tok, "Rank") && ft__token(&rest, &tok)) {
			(void)ft__i64(tok, &rank);
		} else if (ft__eq(tok, "on")) {
			on = true;
		} else if (ft__eq(tok, "device")) {
			on = false;
			device = true;
			if (ft__token(&rest, &tok))
				(void)ft__i64(tok, &dev);
		} else if (tok.p[0] == '[') {
			break;
		} else if (on) {
			first = first.p ? first : tok;
			host = (struct ft__span){ first.p, (size_t)(tok.p + tok.n - first.p) };
		}
	}
	if (!device)
		host = first; /* no "device" word to end the name: its first word */
	if (rank < 0 || (!host.p && dev < 0)) {
		ft__skipped(c, line, "unreadable nccl-tests rank line", s);
		return;
	}
	close = tok.p && tok.p[0] == '[' ? memchr(tok.p, ']', tok.n) : NULL;
	if (close)
		bus = (struct ft__span){ tok.p + 1, (size_t)(close - tok.p - 1) };
	ft__copy(c->host, sizeof(c->host), host);
	ft__copy(c->device, sizeof(c->device), bus);
	c->port = -1;
	c->rank = (int)rank;
	ft__emit(c, line, "bench.rank", dev >= 0, (double)dev, NULL, ft__trim(rest));
	if ((uint64_t)rank != st->nranks)
		st->ranks_cut = true;
	if ((uint64_t)rank + 1 > st->rank_end && rank < UINT32_MAX)
		st->rank_end = (uint32_t)rank + 1;
	st->nranks++;
}

/*
 * The column-name line: the words "size" (or "bytes"), "time" ("cputime"
 * under -C 1) and "busbw"
 * in it, whole (a table of fabtune sim has "time(us)" and "busbw(GB/s)").
 */
static bool
is_column_names(struct ft__span s)
{
	struct ft__span tok;
	bool size = false, time = false, busbw = false;

	while (ft__token(&s, &tok)) {
		size = size || ft__eq(tok, "size") || ft__eq(tok, "bytes");
		time = time || ft__eq(tok, "time") || ft__eq(tok, "cputime"); /* -C 1 */
		busbw = busbw || ft__eq(tok, "busbw");
	}
	return size && time && busbw;
}

/*
 * A comment line of nccl-tests that lost its "#": Markdown removes it from
 * text pasted outside a code block, and the 2018 releases printed the
 * banner without it. Only the lines nccl-tests prints are taken.
 */
static bool
is_bare_comment(struct ft__span t)
{
	return ft__starts(t, "nThread ") || ft__starts(t, "Using devices") ||
	       (ft__starts(t, "Rank ") && ft__find(t, " device ")) ||
	       ft__starts(t, "Out of bounds values") || ft__starts(t, "Avg bus bandwidth") ||
	       ft__starts(t, "(B)") || ft__starts(t, "nccl-tests version ") ||
	       ft__starts(t, "Collective test ") || is_column_names(t) ||
	       (ft__find(t, "out-of-place") && ft__find(t, "in-place"));
}

/* A Markdown table rule, "-- | -- | --" or "|---|---|". */
static bool
is_pipe_rule(struct ft__span t)
{
	if (!memchr(t.p, '|', t.n))
		return false;
	for (size_t i = 0; i < t.n; i++)
		if (t.p[i] != '-' && t.p[i] != '|' && t.p[i] != ':' && !ft__is_space(t.p[i]))
			return false;
	return true;
}

/* "Avg bus bandwidth    : 6.6972", "Out of bounds values : 0 OK": what follows the colon. */
static bool
after_colon(struct ft__span s, struct ft__span *v)
{
	const char *colon = memchr(s.p, ':', s.n);

	if (!colon)
		return false;
	*v = ft__skip(s, (size_t)(colon - s.p) + 1);
	return true;
}

/* The banner over the column names: which group comes first. */
static void
banner_line(struct ft__nccl_state *st, struct ft__span rest)
{
	const char *oop = ft__find(rest, "out-of-place"), *ip = ft__find(rest, "in-place");

	st->ip_first = oop && ip && ip < oop;
	set_test_from(st, rest);
}

bool
ft__nccl_tests_line(struct ft__pctx *c, struct ft__nccl_state *st, struct ft__span s,
                    uint32_t lineno)
{
	struct ft__span t = ft__trim(s), rest, v, tok;
	double d;
	uint64_t u;

	if (!t.n)
		return false;
	if (t.n > 1 && t.p[0] == '\\' && t.p[1] == '#')
		t = ft__skip(t, 1); /* "\#": a "#" escaped for Markdown */
	if (t.p[0] != '#') {
		if (ft__is_digit(t.p[0]))
			return data_row(c, st, t, lineno);
		if (ft__starts(t, "rccl-tests: Version ")) { /* rccl-tests' own version line */
			v = ft__skip(t, 20);
			if (ft__token(&v, &tok))
				ft__emit_str(c, lineno, "bench.version", tok);
			return true;
		}
		if (is_pipe_rule(t))
			return true;
		if (!is_bare_comment(t))
			return false;
		rest = t;
	} else {
		rest = ft__trim(ft__skip(t, 1));
	}
	c->host[0] = c->device[0] = '\0';
	c->port = c->rank = -1;
	if (ft__starts(rest, "Rank ")) {
		rank_line(c, st, rest, lineno);
	} else if (ft__starts(rest, "fabtune bench ")) {
		fabtune_banner(st, rest);
	} else if (!is_column_names(rest) && model_line(st, rest)) {
		/* fabtune model's lines over its table */
	} else if (is_column_names(rest)) {
		header_columns(c, st, rest);
	} else if (ft__starts(rest, "nccl-tests version ")) {
		v = ft__skip(rest, 19);
		if (ft__token(&v, &tok))
			ft__emit_str(c, lineno, "bench.version", tok);
	} else if (ft__starts(rest, "Collective test starting:")) {
		set_test_from(st, rest);
	} else if (ft__starts(rest, "Avg bus bandwidth")) {
		if (after_colon(rest, &v) && ft__dbl(v, &d))
			ft__emit_num(c, lineno, "bench.avg_busbw", d, "GBps");
	} else if (ft__starts(rest, "Out of bounds values")) {
		if (after_colon(rest, &v) && ft__token(&v, &tok) && ft__u64(tok, &u))
			ft__emit(c, lineno, "bench.out_of_bounds", true, (double)u, "count",
			         ft__trim(v));
	} else if (ft__starts(rest, "nThread")) {
		if (!st->header_line)
			st->header_line = lineno;
	} else if (ft__find(rest, "out-of-place")) {
		banner_line(st, rest);
	} else if (ft__starts(rest, "Using devices") || ft__starts(rest, "(B)") || !rest.n ||
	           ft__starts(rest, "Collective test concluded")) {
		set_test_from(st, rest);
	} else {
		return false;
	}
	return true;
}

#define NT_LINE_MAX 4096

/*
 * @s without the tag a launcher puts on each line of a rank's output: Open
 * MPI's --tag-output "[1,0]<stdout>:", Slurm's srun --label "0: ", Intel
 * MPI's -prepend-rank "[0] ". The last tags each write, so the tag also
 * sits glued to a field inside a row ("-1[0]    1626.5"): those copies go
 * too (in @buf), not one after a blank, as the "[0]" of an NCCL INFO line.
 */
static struct ft__span
untag(struct ft__span s, char *buf, size_t cap)
{
	struct ft__span t = ft__trim(s), tag, rest;
	size_t i = 1, k = 0;

	if (t.n && ft__is_digit(t.p[0])) {
		while (i < t.n && ft__is_digit(t.p[i]))
			i++;
		/* "0: " but not a table row, whose first token is a bare number */
		return i + 1 < t.n && t.p[i] == ':' && t.p[i + 1] == ' ' ? ft__skip(t, i + 1) : s;
	}
	if (!t.n || t.p[0] != '[')
		return s;
	while (i < t.n && (ft__is_digit(t.p[i]) || t.p[i] == ','))
		i++;
	if (i == 1 || i == t.n || t.p[i] != ']')
		return s;
	tag = (struct ft__span){ t.p, i + 1 };
	rest = ft__skip(t, i + 1);
	if (ft__starts(rest, "<stdout>:") || ft__starts(rest, "<stderr>:"))
		return ft__skip(rest, 9);
	if (rest.n >= cap)
		return rest;
	for (i = 0; i < rest.n; i++) {
		struct ft__span at = ft__skip(rest, i);

		if (i && !ft__is_space(rest.p[i - 1]) && ft__starts(at, "[") && at.n >= tag.n &&
		    memcmp(at.p, tag.p, tag.n) == 0) {
			buf[k++] = ' ';
			i += tag.n - 1;
		} else {
			buf[k++] = rest.p[i];
		}
	}
	return (struct ft__span){ buf, k };
}

int
ft__nccl_engine(struct ft__pctx *c, const char *text, size_t len, bool tests_first)
{
	struct ft__nccl_state *st = ft_malloc(sizeof(*st));
	struct ft__lines it = ft__pctx_lines(c, text, len);
	struct ft__span raw, cmd;

	if (!st)
		return ft_error_set(c->err, FT_ENOMEM, "%s: out of memory", c->file);
	ft__nccl_state_init(st);
	if (c->hdr.p)
		set_test_from(st, c->hdr);
	ft__pctx_run_kind(c, "nccl-tests");
	st->text_row0 = c->run ? ft_run_nrows(c->run) : 0;
	while (ft__lines_next(&it, &raw) && !c->rc) {
		char buf[NT_LINE_MAX];
		bool done;

		raw = untag(ft__unquote(raw), buf, sizeof(buf));

		if (tests_first)
			done = ft__nccl_tests_line(c, st, raw, it.lineno) ||
			       ft__nccl_log_line(c, st, raw, it.lineno);
		else
			done = ft__nccl_log_line(c, st, raw, it.lineno) ||
			       ft__nccl_tests_line(c, st, raw, it.lineno);
		if (done || ft__is_blank(raw) || ft__torch_line(c, raw, it.lineno) ||
		    ft__xid_line(c, raw, it.lineno))
			continue;
		if (ft__is_prompt(raw, &cmd)) {
			set_test_from(st, cmd);
			continue;
		}
		set_test_from(st, raw);
		c->host[0] = c->device[0] = '\0';
		c->port = c->rank = -1;
		ft__skipped(c, it.lineno,
		            ft__is_digit(ft__trim(raw).p[0]) ? "malformed nccl-tests row" :
		                                               "not NCCL or nccl-tests output",
		            raw);
	}
	if (!c->rc)
		ranks_of_text(c, st);
	/* a test that started but printed no result (a hang, a crash): say so */
	if (st->header_line && !c->rc) {
		c->host[0] = c->device[0] = '\0';
		c->port = c->rank = -1;
		ft__emit_num(c, st->header_line, "bench.rows", (double)st->nrows, "count");
	}
	ft_free(st);
	return c->rc;
}

int
ft__nccl_tests_run(struct ft__pctx *c, const char *text, size_t len)
{
	return ft__nccl_engine(c, text, len, true);
}

/* Table rows: 11 to 13 tokens, the first two (size, count) integers; launcher tags left out. */
static int
count_rows(const char *text, size_t len)
{
	struct ft__lines it;
	struct ft__span line;
	int rows = 0;

	ft__lines_init(&it, text, len, 0);
	while (ft__lines_next(&it, &line)) {
		char buf[NT_LINE_MAX];
		struct ft__span tok[2];
		uint64_t u;
		int n = 0;
		struct ft__span rest = untag(line, buf, sizeof(buf)), t;

		while (ft__token(&rest, &t)) {
			if (ft__eq(t, "|"))
				continue;
			if (n < 2)
				tok[n] = t;
			n++;
		}
		if (n >= 11 && n <= 13 && ft__u64(tok[0], &u) && ft__u64(tok[1], &u))
			rows++;
	}
	return rows;
}

/*
 * The table header: a comment line naming both algbw and busbw (not prose
 * mentioning them), or one that lost its "#" but names the size and time
 * columns too.
 */
static bool
has_header(const char *text, size_t len)
{
	struct ft__lines it;
	struct ft__span line;

	ft__lines_init(&it, text, len, 0);
	while (ft__lines_next(&it, &line)) {
		struct ft__span t = ft__trim(line);

		if (!ft__find(t, "busbw") || !ft__find(t, "algbw"))
			continue;
		if (ft__starts(t, "#") || ft__starts(t, "\\#") || is_column_names(t))
			return true;
	}
	return false;
}

static int
nccl_tests_sniff(const char *text, size_t len)
{
	struct ft__span s = { text, len };

	if (has_header(text, len))
		return 95;
	if (count_rows(text, len) >= 3)
		return 93; /* above nccl-log: a table among INFO lines is a test's output */
	if (ft__find(s, "# nThread ") || ft__find(s, "# nccl-tests version") ||
	    (ft__find(s, "nThread ") && ft__find(s, " nGpus ")))
		return 80;
	if (ft__find(s, "out-of-place") || ft__find(s, "Avg bus bandwidth"))
		return 85;
	return 0;
}

FT__PARSER_SNIFF(nccl_tests, "nccl-tests",
                 "nccl-tests *_perf output: per-size time, algbw, busbw, #wrong; ranks",
                 nccl_tests_sniff);

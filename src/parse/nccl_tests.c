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

void
ft__nccl_state_init(struct ft__nccl_state *st)
{
	memset(st, 0, sizeof(*st));
	for (int i = 0; i < NT_NCOLS; i++)
		st->col[i] = -1;
}

static const char *const collectives[] = {
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
	const char *perf = ft__find(s, "_perf");

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

static void
header_columns(struct ft__nccl_state *st, struct ft__span s)
{
	struct ft__span tok;
	int i = 0, pass = 0;

	for (int k = 0; k < NT_NCOLS; k++)
		st->col[k] = -1;
	st->error_col = false;
	while (ft__token(&s, &tok)) {
		if (ft__eq(tok, "#")) {
			continue;
		} else if (ft__eq(tok, "size")) {
			st->col[NT_SIZE] = i;
		} else if (ft__eq(tok, "count")) {
			st->col[NT_COUNT] = i;
		} else if (ft__eq(tok, "type")) {
			st->col[NT_TYPE] = i;
		} else if (ft__eq(tok, "redop")) {
			st->col[NT_REDOP] = i;
		} else if (ft__eq(tok, "root")) {
			st->col[NT_ROOT] = i;
		} else if (ft__eq(tok, "time")) {
			st->col[pass ? NT_IP_TIME : NT_TIME] = i;
		} else if (ft__eq(tok, "algbw")) {
			st->col[pass ? NT_IP_ALGBW : NT_ALGBW] = i;
		} else if (ft__eq(tok, "busbw")) {
			st->col[pass ? NT_IP_BUSBW : NT_BUSBW] = i;
		} else if (ft__eq(tok, "#wrong") || ft__eq(tok, "error") || ft__eq(tok, "wrong")) {
			st->error_col = ft__eq(tok, "error");
			st->col[pass ? NT_IP_WRONG : NT_WRONG] = i;
			pass = 1;
		} else {
			continue; /* "#" glued to a name, or an unknown column: not counted */
		}
		i++;
	}
	st->ntok = i;
	st->have_header = true;
}

/* Column layout from a row's token count when no header was seen. */
static bool
guess_columns(struct ft__nccl_state *st, int ntok)
{
	static const int with_root[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
	static const int no_root[] = { 0, 1, 2, 3, -1, 4, 5, 6, 7, 8, 9, 10, 11 };
	static const int no_redop[] = { 0, 1, 2, -1, -1, 3, 4, 5, 6, 7, 8, 9, 10 };
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

static void
emit_rowobs(struct ft__pctx *c, uint32_t line, const struct ft_result_row *r)
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

/* Rows of this text read before the collective was known take its name. */
static void
name_earlier_rows(struct ft__pctx *c, const struct ft__nccl_state *st)
{
	size_t i;

	if (!c->run || !st->nrows)
		return;
	for (i = st->row0; i < ft_run_nrows(c->run); i++) {
		struct ft_result_row *row = ft_vec_at(&c->run->rows, i);

		if (strcmp(row->test, "unknown") == 0 && strcmp(row->transport, "nccl") == 0) {
			ft_strlcpy(row->test, st->test, sizeof(row->test));
			if (!row->nranks)
				row->nranks = st->inferred_nranks;
		}
	}
}

static bool
data_row(struct ft__pctx *c, struct ft__nccl_state *st, struct ft__span s, uint32_t line)
{
	struct ft__span tok[NT_MAXTOK], rest = s;
	int n = 0;
	struct ft_result_row r;
	uint64_t u;
	int64_t iv;
	double d;

	while (n < NT_MAXTOK && ft__token(&rest, &tok[n]))
		n++;
	if (ft__token(&rest, &tok[0]) || n < 6)
		return false;
	if (!st->have_header || n != st->ntok) {
		if (st->have_header && n != st->ntok)
			return false;
		if (!guess_columns(st, n))
			return false;
	}
	/* A header may name columns without a size: such a table has no rows to read. */
	if (st->col[NT_SIZE] < 0 || st->col[NT_SIZE] >= n)
		return false;
	ft_result_row_init(&r);
	if (!ft__u64(tok[st->col[NT_SIZE]], &r.bytes))
		return false;
	if (st->col[NT_COUNT] >= 0 && !ft__u64(tok[st->col[NT_COUNT]], &r.count))
		return false;
	if (st->col[NT_TYPE] >= 0)
		ft__copy(r.dtype, sizeof(r.dtype), tok[st->col[NT_TYPE]]);
	if (st->col[NT_REDOP] >= 0)
		ft__copy(r.redop, sizeof(r.redop), tok[st->col[NT_REDOP]]);
	if (st->col[NT_ROOT] >= 0) {
		if (!ft__i64(tok[st->col[NT_ROOT]], &iv))
			return false;
		r.root = (int)iv;
	}
#define NUMCOL(which, field)                                          \
	do {                                                          \
		if (st->col[which] >= 0) {                            \
			if (ft__dbl(tok[st->col[which]], &d))         \
				r.field = d;                          \
			else if (!ft__eq(tok[st->col[which]], "N/A")) \
				return false;                         \
		}                                                     \
	} while (0)
	NUMCOL(NT_TIME, time_us);
	NUMCOL(NT_ALGBW, algbw_GBps);
	NUMCOL(NT_BUSBW, busbw_GBps);
	NUMCOL(NT_IP_TIME, ip_time_us);
	NUMCOL(NT_IP_ALGBW, ip_algbw_GBps);
	NUMCOL(NT_IP_BUSBW, ip_busbw_GBps);
#undef NUMCOL
	r.wrong = -1;
	if (!st->error_col && st->col[NT_WRONG] >= 0) {
		struct ft__span w = tok[st->col[NT_WRONG]], w2;

		if (ft__u64(w, &u))
			r.wrong = (int64_t)u;
		else if (!ft__eq(w, "N/A"))
			return false;
		if (st->col[NT_IP_WRONG] >= 0) {
			w2 = tok[st->col[NT_IP_WRONG]];
			if (ft__u64(w2, &u) && (int64_t)u > r.wrong)
				r.wrong = (int64_t)u;
		}
	}
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
	ft_strlcpy(r.transport, "nccl", sizeof(r.transport));
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
	emit_rowobs(c, line, &r);
	st->nrows++;
	return true;
}

/* "#  Rank  0 Group  0 Pid  23654 on      gpu34 device  0 [0000:07:00] NVIDIA A100" */
static void
rank_line(struct ft__pctx *c, struct ft__nccl_state *st, struct ft__span s, uint32_t line)
{
	struct ft__span rest = ft__skip(s, 1), tok, host = FT__NOSTR, bus = FT__NOSTR;
	int64_t rank = -1, dev = -1;
	const char *close;

	while (ft__token(&rest, &tok)) {
		if (ft__eq(tok, "Rank") && ft__token(&rest, &tok))
			(void)ft__i64(tok, &rank);
		else if (ft__eq(tok, "on") && ft__token(&rest, &tok))
			host = tok;
		else if (ft__eq(tok, "device") && ft__token(&rest, &tok))
			(void)ft__i64(tok, &dev);
		else if (tok.p[0] == '[')
			break;
	}
	if (rank < 0 || !host.p) {
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

bool
ft__nccl_tests_line(struct ft__pctx *c, struct ft__nccl_state *st, struct ft__span s,
                    uint32_t lineno)
{
	struct ft__span t = ft__trim(s), rest;
	double d;

	if (!t.n)
		return false;
	if (t.p[0] != '#')
		return ft__is_digit(t.p[0]) && data_row(c, st, t, lineno);
	rest = ft__trim(ft__skip(t, 1));
	c->host[0] = c->device[0] = '\0';
	c->port = c->rank = -1;
	if (ft__starts(rest, "Rank ")) {
		rank_line(c, st, t, lineno);
	} else if (ft__find(rest, "size") && ft__find(rest, "time") && ft__find(rest, "busbw")) {
		header_columns(st, rest);
	} else if (ft__starts(rest, "nccl-tests version ")) {
		struct ft__span v = ft__skip(rest, 19), tok;

		if (ft__token(&v, &tok))
			ft__emit_str(c, lineno, "bench.version", tok);
	} else if (ft__starts(rest, "Collective test starting:")) {
		set_test_from(st, rest);
	} else if (ft__starts(rest, "Avg bus bandwidth")) {
		const char *colon = memchr(rest.p, ':', rest.n);

		if (colon && ft__dbl(ft__skip(rest, (size_t)(colon - rest.p) + 1), &d))
			ft__emit_num(c, lineno, "bench.avg_busbw", d, "GBps");
	} else if (ft__starts(rest, "Out of bounds values")) {
		const char *colon = memchr(rest.p, ':', rest.n);
		struct ft__span v = colon ? ft__skip(rest, (size_t)(colon - rest.p) + 1) : rest,
		                tok, verdict;
		uint64_t u;

		if (ft__token(&v, &tok) && ft__u64(tok, &u)) {
			verdict = ft__trim(v);
			ft__emit(c, lineno, "bench.out_of_bounds", true, (double)u, "count",
			         verdict);
		}
	} else if (ft__starts(rest, "nThread")) {
		if (!st->header_line)
			st->header_line = lineno;
	} else if (ft__starts(rest, "Using devices") || ft__starts(rest, "(B)") ||
	           ft__find(rest, "out-of-place") || !rest.n ||
	           ft__starts(rest, "Collective test concluded")) {
		set_test_from(st, rest);
	} else {
		return false;
	}
	return true;
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
	while (ft__lines_next(&it, &raw) && !c->rc) {
		bool done;

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

/* Table rows: 11 to 13 tokens, the first two (size, count) integers. */
static int
count_rows(const char *text, size_t len)
{
	struct ft__lines it;
	struct ft__span line;
	int rows = 0;

	ft__lines_init(&it, text, len, 0);
	while (ft__lines_next(&it, &line)) {
		struct ft__span tok[2];
		uint64_t u;
		int n = 0;
		struct ft__span rest = line, t;

		while (ft__token(&rest, &t)) {
			if (n < 2)
				tok[n] = t;
			n++;
		}
		if (n >= 11 && n <= 13 && ft__u64(tok[0], &u) && ft__u64(tok[1], &u))
			rows++;
	}
	return rows;
}

/* The table header: a comment line naming both algbw and busbw (not prose mentioning them). */
static bool
has_header(const char *text, size_t len)
{
	struct ft__lines it;
	struct ft__span line;

	ft__lines_init(&it, text, len, 0);
	while (ft__lines_next(&it, &line)) {
		struct ft__span t = ft__trim(line);

		if (ft__starts(t, "#") && ft__find(t, "busbw") && ft__find(t, "algbw"))
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
	if (ft__find(s, "# nThread ") || ft__find(s, "# nccl-tests version"))
		return 80;
	if (ft__find(s, "out-of-place") || ft__find(s, "Avg bus bandwidth"))
		return 85;
	return 0;
}

FT__PARSER_SNIFF(nccl_tests, "nccl-tests",
                 "nccl-tests *_perf output: per-size time, algbw, busbw, #wrong; ranks",
                 nccl_tests_sniff);

/* SPDX-License-Identifier: MIT */
/*
 * parse/fabtune_bench_json.c - the document `fabtune bench --json` prints
 * (and `--json-file` writes beside the table): {"schema":
 * "fabtune.bench/1", "pattern", "transport", "ranks": [...], "rows": [...],
 * and for pairs "pairs" and "outliers", for incast "incast"}, written by
 * ft_bench_report_json (src/bench/table.c).
 *
 * The records are those the table of the same run gives (fabtune_bench.c,
 * nccl_tests.c, perftest.c): a result row per element of "rows", with
 * every figure the document holds (the table prints fewer, and rounded);
 * for each rank whose "clock" is given, `bench.clock_hz` and
 * `bench.clock_error` of that rank (as the "Clock" and "# clock: rank R"
 * lines); `bench.median_pair_bw` (GBps) and `bench.outlier` (str: the
 * table's "# OUTLIER" text, with "; retest blames H" where a retest
 * blamed one); `bench.congestion_impact` (ratio). Several documents in a
 * row are read one after the other; invalid JSON is `parse.skipped` at the
 * line of the fault, what was read before it kept.
 */
#include "parse_int.h"

#include <math.h>

#define JMAXDEPTH 8

struct bw {
	struct ft__jcur j;
	char path[128];
	size_t plen[JMAXDEPTH + 1];
	int depth;
	/* the element of "rows" being read */
	struct ft_result_row row;
	/* the element of "ranks" being read and its clock, written when the element
	   closes: members come in any order, "clock" before "rank" too (jq -S) */
	int rank;
	bool clk_seen;
	char clk_src[16];
	double clk_hz, clk_ppm;
	uint32_t clk_line, rank_line;
	/* the element of "outliers" being read */
	char out_kind[16], out_text[256], out_blame[96];
	uint32_t out_line;
};

static void jvalue(struct ft__pctx *c, struct bw *w);

static void
path_push(struct bw *w, struct ft__span k)
{
	size_t l = w->plen[w->depth];
	int n = snprintf(w->path + l, sizeof(w->path) - l, "%s%.*s", l ? "." : "", (int)k.n, k.p);

	/* a name too long for the path: the path is left cut at its full length, which no
	   path read below has (the longest is 22 bytes), nor any under it; the parent's
	   path instead would make an object under that name a new row */
	if (n < 0 || (size_t)n >= sizeof(w->path) - l)
		n = (int)(sizeof(w->path) - 1 - l);
	w->plen[w->depth + 1] = l + (size_t)n;
}

static void
on_open(struct bw *w)
{
	if (strcmp(w->path, "rows") == 0) {
		ft_result_row_init(&w->row);
	} else if (strcmp(w->path, "ranks") == 0) {
		w->rank = -1;
		w->clk_seen = false;
		w->clk_src[0] = '\0';
		w->clk_hz = w->clk_ppm = NAN;
		w->rank_line = ft__jcur_line(&w->j, w->j.p);
	} else if (strcmp(w->path, "ranks.clock") == 0) {
		w->clk_seen = true;
		w->clk_line = ft__jcur_line(&w->j, w->j.p);
	} else if (strcmp(w->path, "outliers") == 0) {
		w->out_kind[0] = w->out_text[0] = w->out_blame[0] = '\0';
		w->out_line = ft__jcur_line(&w->j, w->j.p);
	}
}

static void
on_close(struct ft__pctx *c, struct bw *w)
{
	if (strcmp(w->path, "rows") == 0) {
		ft__add_row(c, &w->row);
	} else if (strcmp(w->path, "ranks") == 0 && w->clk_seen) {
		if (w->rank < 0)
			ft__skipped(c, w->rank_line, "ranks.rank: none, the clock has no rank",
			            ft__span_c(w->clk_src));
		else
			ft__emit_clock_at(c, w->clk_line, w->rank, ft__span_c(w->clk_src),
			                  w->clk_hz, w->clk_ppm);
	} else if (strcmp(w->path, "outliers") == 0 && w->out_text[0]) {
		char buf[384];

		if (strcmp(w->out_kind, "pair") == 0 && w->out_blame[0])
			snprintf(buf, sizeof(buf), "%s; retest blames %s", w->out_text,
			         w->out_blame);
		else
			ft_strlcpy(buf, w->out_text, sizeof(buf));
		ft__emit_cstr(c, w->out_line, "bench.outlier", buf);
	}
}

/*
 * A member of a row: the figures by name, null (not measured) left as
 * initialised. A known member whose value is of the wrong kind (a string for
 * a figure, a negative or fractional count) is `parse.skipped`, the rest of
 * the row kept; unknown members are passed over (later schemas add some).
 */
static void
row_field(struct ft__pctx *c, uint32_t line, struct ft_result_row *r, const char *k,
          struct ft__span v, bool is_str, bool num, double d)
{
	static const struct {
		const char *key;
		size_t off;
	} dbl[] = {
#define D(f) { #f, offsetof(struct ft_result_row, f) }
		D(time_us),       D(algbw_GBps),    D(busbw_GBps),  D(ip_time_us),
		D(ip_algbw_GBps), D(ip_busbw_GBps), D(lat_min_us),  D(lat_avg_us),
		D(lat_p50_us),    D(lat_p99_us),    D(lat_p999_us), D(lat_max_us),
		D(lat_stdev_us),  D(time_stdev_us), { "peak_GBps", offsetof(struct ft_result_row,
		                                                             ip_algbw_GBps) },
#undef D
	};
	static const struct {
		const char *key;
		size_t off, n;
	} str[] = {
#define S(k, f) { k, offsetof(struct ft_result_row, f), sizeof(((struct ft_result_row *)0)->f) }
		S("test", test), S("transport", transport), S("dtype", dtype), S("redop", redop),
		S("algo", algo), S("copy", algo), /* pt2pt_bw: the shm copy */
		S("src", src),   S("dst", dst),
#undef S
	};
	/* counts: the least each may be (root and wrong: -1, none or not checked) */
	static const struct {
		const char *key;
		double min, max;
	} cnt[] = {
		{ "bytes", 0, 18446744073709549568.0 }, { "count", 0, 18446744073709549568.0 },
		{ "nranks", 0, UINT32_MAX },            { "nsamples", 0, UINT32_MAX },
		{ "root", -1, INT32_MAX },              { "wrong", -1, 9007199254740992.0 },
	};
	char why[64];
	bool null = !is_str && ft__eq(v, "null");
	size_t i;

	for (i = 0; i < FT_ARRAY_SIZE(str); i++)
		if (strcmp(k, str[i].key) == 0) {
			if (is_str)
				ft__copy((char *)r + str[i].off, str[i].n, v);
			else if (!null)
				goto bad_str;
			return;
		}
	for (i = 0; i < FT_ARRAY_SIZE(dbl); i++)
		if (strcmp(k, dbl[i].key) == 0) {
			if (num)
				*(double *)(void *)((char *)r + dbl[i].off) = d;
			else if (!null)
				goto bad_num;
			return;
		}
	for (i = 0; i < FT_ARRAY_SIZE(cnt); i++)
		if (strcmp(k, cnt[i].key) == 0)
			break;
	if (i == FT_ARRAY_SIZE(cnt) || null)
		return;
	if (!num || d != floor(d) || d < cnt[i].min || d > cnt[i].max) {
		snprintf(why, sizeof(why), "rows.%s: not a count", k);
		ft__skipped(c, line, why, v);
		return;
	}
	if (strcmp(k, "bytes") == 0)
		r->bytes = (uint64_t)d;
	else if (strcmp(k, "count") == 0)
		r->count = (uint64_t)d;
	else if (strcmp(k, "nranks") == 0)
		r->nranks = (uint32_t)d;
	else if (strcmp(k, "nsamples") == 0)
		r->nsamples = (uint32_t)d;
	else if (strcmp(k, "root") == 0)
		r->root = (int)d;
	else
		r->wrong = (int64_t)d;
	return;
bad_str:
	snprintf(why, sizeof(why), "rows.%s: not a string", k);
	ft__skipped(c, line, why, v);
	return;
bad_num:
	snprintf(why, sizeof(why), "rows.%s: not a number", k);
	ft__skipped(c, line, why, v);
}

/* A JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool
json_number(struct ft__span v)
{
	const char *p = v.p, *e = v.p + v.n;

	if (p < e && *p == '-')
		p++;
	if (p >= e || !ft__is_digit(*p))
		return false;
	if (*p == '0')
		p++;
	else
		while (p < e && ft__is_digit(*p))
			p++;
	if (p < e && *p == '.') {
		if (++p >= e || !ft__is_digit(*p))
			return false;
		while (p < e && ft__is_digit(*p))
			p++;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		if (++p < e && (*p == '+' || *p == '-'))
			p++;
		if (p >= e || !ft__is_digit(*p))
			return false;
		while (p < e && ft__is_digit(*p))
			p++;
	}
	return p == e;
}

static void
on_scalar(struct ft__pctx *c, struct bw *w, struct ft__span v, bool is_str)
{
	const char *path = w->path;
	double d = NAN;
	bool num = !is_str && ft__dbl(v, &d);
	uint32_t line;

	if (strncmp(path, "rows.", 5) == 0) {
		row_field(c, ft__jcur_line(&w->j, v.p), &w->row, path + 5, v, is_str, num, d);
		return;
	}
	if (strcmp(path, "ranks.rank") == 0 && num && d >= 0 && d <= INT32_MAX) {
		w->rank = (int)d;
	} else if (strcmp(path, "ranks.clock.source") == 0 && is_str) {
		ft__copy(w->clk_src, sizeof(w->clk_src), v);
	} else if (strcmp(path, "ranks.clock.hz") == 0 && num) {
		w->clk_hz = d;
	} else if (strcmp(path, "ranks.clock.error_ppm") == 0 && num) {
		w->clk_ppm = d;
	} else if (strcmp(path, "outliers.kind") == 0 && is_str) {
		ft__copy(w->out_kind, sizeof(w->out_kind), v);
	} else if (strcmp(path, "outliers.text") == 0 && is_str) {
		ft__copy(w->out_text, sizeof(w->out_text), v);
	} else if (strcmp(path, "outliers.blame") == 0 && is_str) {
		ft__copy(w->out_blame, sizeof(w->out_blame), v);
	} else if (strcmp(path, "pairs.median_GBps") == 0 && num) {
		line = ft__jcur_line(&w->j, v.p);
		ft__emit_num(c, line, "bench.median_pair_bw", d, "GBps");
	} else if (strcmp(path, "incast.congestion_impact") == 0 && num) {
		line = ft__jcur_line(&w->j, v.p);
		ft__emit_num(c, line, "bench.congestion_impact", d, "ratio");
	}
}

static void
jvalue(struct ft__pctx *c, struct bw *w)
{
	struct ft__jcur *j = &w->j;
	struct ft__span s;

	ft__jcur_ws(j);
	if (j->p >= j->end || w->depth >= JMAXDEPTH)
		return ft__jcur_fail(j);
	if (*j->p == '{' || *j->p == '[') {
		bool obj = *j->p == '{';
		char close = obj ? '}' : ']';

		if (obj)
			on_open(w);
		if (!ft__jcur_open(j, close)) {
			if (obj)
				on_close(c, w);
			return;
		}
		while (j->p < j->end) {
			ft__jcur_ws(j);
			if (obj) {
				if (!ft__jcur_key(j, &s))
					return ft__jcur_fail(j);
				path_push(w, s);
			} else {
				/* an element stands at its array's path: "rows", "ranks" */
				w->plen[w->depth + 1] = w->plen[w->depth];
			}
			w->depth++;
			w->path[w->plen[w->depth]] = '\0';
			jvalue(c, w);
			w->depth--;
			w->path[w->plen[w->depth]] = '\0';
			if (j->bad)
				return;
			switch (ft__jcur_next(j, close)) {
			case 1:
				continue;
			case 0:
				if (obj)
					on_close(c, w);
				return;
			default:
				return;
			}
		}
		return ft__jcur_fail(j);
	}
	if (*j->p == '"') {
		if (!ft__jcur_string(j, &s))
			return ft__jcur_fail(j);
		on_scalar(c, w, s, true);
		return;
	}
	s.p = j->p;
	while (j->p < j->end &&
	       (isalnum((unsigned char)*j->p) || *j->p == '-' || *j->p == '+' || *j->p == '.'))
		j->p++;
	s.n = (size_t)(j->p - s.p);
	/* the bare words of JSON: numbers, true, false, null (not NaN, inf, 0x10, fast) */
	if (!json_number(s) && !ft__eq(s, "true") && !ft__eq(s, "false") && !ft__eq(s, "null")) {
		j->p = s.p;
		return ft__jcur_fail(j);
	}
	on_scalar(c, w, s, false);
}

int
ft__fabtune_bench_json(struct ft__pctx *c, const char *text, size_t len)
{
	struct bw *w = ft_calloc(1, sizeof(*w));

	if (!w)
		return c->rc = ft_error_set(c->err, FT_ENOMEM, "%s: out of memory", c->file);
	ft__jcur_init(&w->j, text, len, c->line0);
	ft__pctx_run_kind(c, "fabtune-bench");
	for (;;) {
		ft__jcur_ws(&w->j);
		if (w->j.p >= w->j.end || c->rc)
			break;
		if (*w->j.p != '{') {
			/* text around the document (a prompt, a warning): skip the line */
			uint32_t line = ft__jcur_line(&w->j, w->j.p);
			struct ft__span l = ft__jcur_skip_line(&w->j);

			ft__unread(c, line, "not fabtune bench JSON", l);
			continue;
		}
		w->depth = 0;
		w->plen[0] = 0;
		w->path[0] = '\0';
		jvalue(c, w);
		if (w->j.bad) {
			char why[64];

			snprintf(why, sizeof(why), "invalid JSON at line %u, column %u",
			         w->j.bad_line, w->j.bad_col);
			ft__skipped(c, w->j.bad_line, why,
			            ft__span_c("document truncated or malformed"));
			break;
		}
	}
	ft_free(w);
	return c->rc;
}

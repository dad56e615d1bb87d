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
 * blamed one); `bench.congestion_impact` (ratio); for each pt2pt_bw row
 * the `bench.bw_peak`, `bench.bw_avg` and `bench.msg_rate` its table line
 * gives (perftest.c). A known member of the wrong kind (a row's figure, a
 * rank's "rank") is `parse.skipped` by path, line and column. Several
 * documents in a row are read one after the other. The walk is jscan.c's
 * strict one: invalid JSON is `parse.skipped` at the line and column of
 * the fault, with what was wrong and its key path, what was read before it
 * kept.
 */
#include "parse_int.h"

#include <math.h>

#define JMAXDEPTH 8

/*
 * Depths (the document 0): its members 1 ("rows", "pairs"...), an element
 * of "rows", "ranks" or "outliers" 2, a member of one 3, a member of a
 * rank's "clock" 4. Every name is read at its depth only, and a member of
 * an element only while that element (an object directly in its list) is
 * open: an array's elements stand at the array's path, so a path alone
 * does not say where a value is ({"pairs":[{"median_GBps":1}]} has
 * "pairs.median_GBps" one level deeper than bench writes it).
 */
#define TOP_DEPTH 1
#define ELEMENT_DEPTH 2
#define MEMBER_DEPTH 3
#define CLOCK_DEPTH 4

/* the element open at ELEMENT_DEPTH, whose members are read */
enum elem { E_NONE, E_ROW, E_RANK, E_OUTLIER };

struct bw {
	struct ft__jwalk w;
	struct ft__pctx *c;
	enum elem in;
	/* the element of "rows" being read */
	struct ft_result_row row;
	uint32_t row_line;
	bool bytes_read; /* its "bytes" read as a count (pt2pt_bw's figures need it) */
	/* the element of "ranks" being read and its clock, written when the element
	   closes: members come in any order, "clock" before "rank" too (jq -S) */
	int rank;
	bool rank_named; /* a "rank" of the wrong kind, named already */
	bool clk_seen;
	char clk_src[16];
	double clk_hz, clk_ppm;
	uint32_t clk_line, rank_line;
	/* the element of "outliers" being read */
	char out_kind[16], out_text[256], out_blame[96];
	uint32_t out_line;
};

/* Is the walk at @path, @depth deep? */
static bool
at(const struct ft__jwalk *w, int depth, const char *path)
{
	return w->depth == depth && strcmp(w->path, path) == 0;
}

/* A known member @v at @path of the wrong kind (@want: "a count"...): named, where. */
static void
wrong_kind(struct bw *b, const char *path, const struct ft__jval *v, const char *want)
{
	char why[112];
	bool container = v->kind == FT__JOBJ || v->kind == FT__JARR;

	snprintf(why, sizeof(why), "%s: not %s (line %u, column %u)", path, want, v->line,
	         ft__jcur_col(&b->w.j, v->raw.p));
	ft__skipped(b->c, v->line, why, container ? ft__span_c(ft__jkind_name(v->kind)) : v->raw);
}

/*
 * "rows", "ranks" or "outliers" given as something else than an array (null:
 * none, as a document without them): named; true when @v is one of them, an
 * array or not ({"rows":{...}}: its members are no row's, passed over).
 */
static bool
list_value(struct bw *b, const struct ft__jval *v)
{
	const struct ft__jwalk *w = &b->w;

	if (!at(w, TOP_DEPTH, "rows") && !at(w, TOP_DEPTH, "ranks") &&
	    !at(w, TOP_DEPTH, "outliers"))
		return false;
	if (v->kind != FT__JARR && v->kind != FT__JNULL)
		wrong_kind(b, w->path, v, "an array");
	return true;
}

/* A rank's "rank": a count; null, none (its clock then named as rankless);
   of another kind named once. */
static void
rank_value(struct bw *b, const struct ft__jval *v)
{
	double d = v->num;

	if (v->kind == FT__JNUM && d == floor(d) && d >= 0 && d <= INT32_MAX) {
		b->rank = (int)d;
	} else if (v->kind != FT__JNULL && !b->rank_named) {
		wrong_kind(b, b->w.path, v, "a count");
		b->rank_named = true;
	}
}

static void row_field(struct bw *b, struct ft_result_row *r, const char *k,
                      const struct ft__jval *v);

static void
on_open(struct ft__jwalk *w, const struct ft__jval *v)
{
	struct bw *b = w->arg;

	if (list_value(b, v))
		return;
	if (b->in == E_ROW && w->depth == MEMBER_DEPTH) {
		/* an object or array for a member of a row: named if the member is known */
		row_field(b, &b->row, w->path + 5, v);
		return;
	}
	if (b->in == E_RANK && at(w, MEMBER_DEPTH, "ranks.rank")) {
		rank_value(b, v);
		return;
	}
	if (v->kind != FT__JOBJ)
		return;
	if (b->in == E_RANK && at(w, MEMBER_DEPTH, "ranks.clock")) {
		b->clk_seen = true;
		b->clk_line = v->line;
		return;
	}
	if (w->depth != ELEMENT_DEPTH || b->in != E_NONE)
		return;
	if (strcmp(w->path, "rows") == 0) {
		b->in = E_ROW;
		ft_result_row_init(&b->row);
		b->row_line = v->line;
		b->bytes_read = false;
	} else if (strcmp(w->path, "ranks") == 0) {
		b->in = E_RANK;
		b->rank = -1;
		b->rank_named = false;
		b->clk_seen = false;
		b->clk_src[0] = '\0';
		b->clk_hz = b->clk_ppm = NAN;
		b->rank_line = v->line;
	} else if (strcmp(w->path, "outliers") == 0) {
		b->in = E_OUTLIER;
		b->out_kind[0] = b->out_text[0] = b->out_blame[0] = '\0';
		b->out_line = v->line;
	}
}

/*
 * The figures perftest's layout gives on pt2pt_bw's lines besides the row,
 * from a row of the document, as perftest.c reads them from the table of
 * the same run (ft__perftest_bw_obs): the peak and the average (Gbps) and
 * the message rate (Mpps, from the average, as the table computes it),
 * under the size, at the row's line. (pt2pt_lat's are not: its table under
 * -D prints t_avg only, which the document does not say; its rows carry the
 * latencies.)
 */
static void
pt2pt_obs(struct ft__pctx *c, uint32_t line, const struct ft_result_row *r, bool bytes_read)
{
	/* no size (none, or one refused): no line of the table to stand for */
	if (strcmp(r->test, "pt2pt_bw") != 0 || isnan(r->algbw_GBps) || !bytes_read)
		return;
	ft__perftest_bw_obs(c, line, r->bytes, r->ip_algbw_GBps * 8, r->algbw_GBps * 8,
	                    r->bytes ? r->algbw_GBps * 1e3 / (double)r->bytes : NAN);
}

static void
on_close(struct ft__jwalk *w, const struct ft__jval *v)
{
	struct bw *b = w->arg;
	struct ft__pctx *c = b->c;
	enum elem in = b->in;

	if (v->kind != FT__JOBJ || w->depth != ELEMENT_DEPTH || in == E_NONE)
		return;
	b->in = E_NONE;
	if (in == E_ROW) {
		ft__add_row(c, &b->row);
		pt2pt_obs(c, b->row_line, &b->row, b->bytes_read);
	} else if (in == E_RANK && b->clk_seen) {
		if (b->rank < 0 && !b->rank_named)
			ft__skipped(c, b->rank_line, "ranks.rank: none, the clock has no rank",
			            ft__span_c(b->clk_src));
		else if (b->rank >= 0)
			ft__emit_clock_at(c, b->clk_line, b->rank, ft__span_c(b->clk_src),
			                  b->clk_hz, b->clk_ppm);
	} else if (in == E_OUTLIER && b->out_text[0]) {
		char buf[384];

		if (strcmp(b->out_kind, "pair") == 0 && b->out_blame[0])
			snprintf(buf, sizeof(buf), "%s; retest blames %s", b->out_text,
			         b->out_blame);
		else
			ft_strlcpy(buf, b->out_text, sizeof(buf));
		ft__emit_cstr(c, b->out_line, "bench.outlier", buf);
	}
}

/*
 * A member of a row: the figures by name, null (not measured) left as
 * initialised. A known member whose value is of the wrong kind (a string for
 * a figure, a negative or fractional count) is `parse.skipped`, the rest of
 * the row kept; unknown members are passed over (later schemas add some).
 */
static void
row_field(struct bw *b, struct ft_result_row *r, const char *k, const struct ft__jval *v)
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
	bool null = v->kind == FT__JNULL, is_str = v->kind == FT__JSTR, num = v->kind == FT__JNUM;
	double d = v->num;
	char path[80];
	size_t i;

	for (i = 0; i < FT_ARRAY_SIZE(str); i++)
		if (strcmp(k, str[i].key) == 0) {
			if (is_str)
				ft__copy((char *)r + str[i].off, str[i].n, v->str);
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
		snprintf(path, sizeof(path), "rows.%s", k);
		wrong_kind(b, path, v, "a count");
		return;
	}
	if (strcmp(k, "bytes") == 0) {
		r->bytes = (uint64_t)d;
		b->bytes_read = true;
	} else if (strcmp(k, "count") == 0)
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
	snprintf(path, sizeof(path), "rows.%s", k);
	wrong_kind(b, path, v, "a string");
	return;
bad_num:
	snprintf(path, sizeof(path), "rows.%s", k);
	wrong_kind(b, path, v, "a number");
}


static void
on_scalar(struct ft__jwalk *w, const struct ft__jval *v)
{
	struct bw *b = w->arg;
	bool is_str = v->kind == FT__JSTR, num = v->kind == FT__JNUM;
	double d = v->num;

	if (list_value(b, v))
		return;
	if (b->in == E_ROW && w->depth == MEMBER_DEPTH) {
		row_field(b, &b->row, w->path + 5, v);
	} else if (b->in == E_RANK && at(w, MEMBER_DEPTH, "ranks.rank")) {
		rank_value(b, v);
	} else if (b->in == E_RANK && b->clk_seen && w->depth == CLOCK_DEPTH) {
		if (strcmp(w->path, "ranks.clock.source") == 0 && is_str)
			ft__copy(b->clk_src, sizeof(b->clk_src), v->str);
		else if (strcmp(w->path, "ranks.clock.hz") == 0 && num)
			b->clk_hz = d;
		else if (strcmp(w->path, "ranks.clock.error_ppm") == 0 && num)
			b->clk_ppm = d;
	} else if (b->in == E_OUTLIER && w->depth == MEMBER_DEPTH && is_str) {
		if (strcmp(w->path, "outliers.kind") == 0)
			ft__copy(b->out_kind, sizeof(b->out_kind), v->str);
		else if (strcmp(w->path, "outliers.text") == 0)
			ft__copy(b->out_text, sizeof(b->out_text), v->str);
		else if (strcmp(w->path, "outliers.blame") == 0)
			ft__copy(b->out_blame, sizeof(b->out_blame), v->str);
	} else if (at(w, TOP_DEPTH + 1, "pairs.median_GBps") && num) {
		ft__emit_num(b->c, v->line, "bench.median_pair_bw", d, "GBps");
	} else if (at(w, TOP_DEPTH + 1, "incast.congestion_impact") && num) {
		ft__emit_num(b->c, v->line, "bench.congestion_impact", d, "ratio");
	}
}

int
ft__fabtune_bench_json(struct ft__pctx *c, const char *text, size_t len)
{
	struct bw *b = ft_calloc(1, sizeof(*b));
	struct ft__jwalk *w;

	if (!b)
		return c->rc = ft_error_set(c->err, FT_ENOMEM, "%s: out of memory", c->file);
	w = &b->w;
	b->c = c;
	ft__jwalk_init(w, text, len, c->line0, JMAXDEPTH);
	w->arg = b;
	w->scalar = on_scalar;
	w->open = on_open;
	w->close = on_close;
	ft__pctx_run_kind(c, "fabtune-bench");
	while (ft__jwalk_doc(c, w, "not fabtune bench JSON") > 0)
		;
	ft_free(b);
	return c->rc;
}

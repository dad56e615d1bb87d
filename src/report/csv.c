/* SPDX-License-Identifier: MIT */
/*
 * report/csv.c - the results as RFC 4180 CSV, one line per result row; with
 * a comparison, its columns are appended and baseline results the run lacks
 * follow as "missing" lines.
 */
#include "report_int.h"

static void
cell(struct ft_strbuf *out, const char *s, bool first)
{
	if (!first)
		ft_strbuf_addch(out, ',');
	if (strpbrk(s, ",\"\r\n")) {
		ft_strbuf_addch(out, '"');
		for (; *s; s++) {
			if (*s == '"')
				ft_strbuf_addch(out, '"');
			ft_strbuf_addch(out, *s);
		}
		ft_strbuf_addch(out, '"');
	} else {
		ft_strbuf_adds(out, s);
	}
}

static void
num(struct ft_strbuf *out, double v)
{
	char buf[40];

	if (isfinite(v))
		snprintf(buf, sizeof(buf), "%.10g", v);
	else
		buf[0] = '\0';
	cell(out, buf, false);
}

static const char *const result_cols[] = {
	"test",       "transport",  "bytes",      "nranks",   "src",
	"dst",        "dtype",      "redop",      "time_us",  "algbw_GBps",
	"busbw_GBps", "lat_p50_us", "lat_p99_us", "nsamples", "wrong",
};

static const char *const compare_cols[] = {
	"metric",    "baseline_mean", "baseline_stdev", "baseline_n",
	"delta_rel", "threshold_rel", "threshold",      "verdict",
};

static void
compare_cells(struct ft_strbuf *out, const struct ft_compare_row *c)
{
	char buf[32];

	cell(out, c ? c->metric : "", false);
	num(out, c ? c->base_mean : NAN);
	num(out, c ? c->base_stdev : NAN);
	snprintf(buf, sizeof(buf), "%u", c ? c->base_n : 0);
	cell(out, c ? buf : "", false);
	num(out, c ? c->delta_rel : NAN);
	num(out, c ? c->threshold_rel : NAN);
	cell(out, c ? (c->noise_aware ? "noise" : "stated") : "", false);
	cell(out, c ? ft_verdict_name(c->verdict) : "", false);
}

/* The first six cells of a line: what names a result (a row, or a baseline's missing one). */
static void
key_cells(struct ft_strbuf *out, const char *test, const char *transport, uint64_t bytes,
          uint32_t nranks, const char *src, const char *dst)
{
	char buf[32];

	cell(out, test, true);
	cell(out, transport, false);
	snprintf(buf, sizeof(buf), "%" PRIu64, bytes);
	cell(out, buf, false);
	snprintf(buf, sizeof(buf), "%" PRIu32, nranks);
	cell(out, buf, false);
	cell(out, src, false);
	cell(out, dst, false);
}

int
ft__report_csv(const struct ft_report_input *in, struct ft_strbuf *out)
{
	const struct ft_run *run = &in->run->run;
	struct rp_cmp_index ix;
	char buf[32];
	size_t i;

	if (ft__rp_cmp_index(in->cmp, &ix) < 0)
		return FT_ENOMEM;
	for (i = 0; i < FT_ARRAY_SIZE(result_cols); i++)
		cell(out, result_cols[i], i == 0);
	for (i = 0; in->cmp && i < FT_ARRAY_SIZE(compare_cols); i++)
		cell(out, compare_cols[i], false);
	ft_strbuf_adds(out, "\r\n");
	for (i = 0; i < ft_run_nrows(run); i++) {
		const struct ft_result_row *r = ft_run_row(run, i);

		key_cells(out, r->test, r->transport, r->bytes, r->nranks, r->src, r->dst);
		cell(out, r->dtype, false);
		cell(out, r->redop, false);
		num(out, r->time_us);
		num(out, r->algbw_GBps);
		num(out, r->busbw_GBps);
		num(out, r->lat_p50_us);
		num(out, r->lat_p99_us);
		snprintf(buf, sizeof(buf), "%" PRIu32, r->nsamples);
		cell(out, buf, false);
		snprintf(buf, sizeof(buf), "%" PRId64, r->wrong);
		cell(out, r->wrong >= 0 ? buf : "", false);
		if (in->cmp)
			compare_cells(out, ft__rp_cmp_find(&ix, r));
		ft_strbuf_adds(out, "\r\n");
	}
	for (i = 0; in->cmp && i < in->cmp->rows.len; i++) {
		const struct ft_compare_row *c = ft_vec_at(&in->cmp->rows, i);
		size_t k;

		if (c->verdict != FT_VERDICT_MISSING)
			continue;
		key_cells(out, c->test, c->transport, c->bytes, c->nranks, c->src, c->dst);
		for (k = 6; k < FT_ARRAY_SIZE(result_cols); k++)
			cell(out, "", false);
		compare_cells(out, c);
		ft_strbuf_adds(out, "\r\n");
	}
	ft__rp_cmp_index_release(&ix);
	return 0;
}

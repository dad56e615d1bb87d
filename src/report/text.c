/* SPDX-License-Identifier: MIT */
/*
 * report/text.c - the terminal report: the run, its results, the comparison
 * with the baseline, what changed in the fingerprint, findings by layer with
 * their evidence, observations.
 */
#include "report_int.h"

static bool
want(const struct ft_report_input *in, unsigned sec)
{
	return in->sections == 0 || (in->sections & sec);
}

static void
run_header(const struct ft_report_input *in, struct ft_strbuf *out)
{
	const struct ft_archive_record *r = in->run;
	char title[256], when[64];

	ft__rp_title(in, title, sizeof(title));
	ft_strbuf_addf(out, "%s\n", title);
	if (r->run.label[0])
		ft_strbuf_addf(out, "  label:       %s\n", r->run.label);
	if (r->run.spec[0])
		ft_strbuf_addf(out, "  spec:        %s\n", r->run.spec);
	if (r->run.seed)
		ft_strbuf_addf(out, "  seed:        %" PRIu64 "\n", r->run.seed);
	if (r->run.started_s > 0) {
		ft__rp_time(r->run.started_s, when, sizeof(when));
		ft_strbuf_addf(out, "  started:     %s\n", when);
	}
	if (!in->stable && r->info.created_s > 0) {
		ft__rp_time(r->info.created_s, when, sizeof(when));
		ft_strbuf_addf(out, "  saved:       %s\n", when);
	}
	if (ft__rp_is_computed(r)) {
		struct rp_twin tw;

		ft__rp_twin(r, &tw);
		if (tw.scenario)
			ft_strbuf_addf(out, "  scenario:    %s (engine %s, routing %s)\n", tw.scenario,
			               tw.engine ? tw.engine : "-", tw.routing ? tw.routing : "-");
		if (tw.description[0])
			ft_strbuf_addf(out, "  description: %s\n", tw.description);
		if (tw.scenario && !tw.nfaults)
			ft_strbuf_addf(out, "  faults:      none (the healthy twin)\n");
		for (size_t k = 0; k < tw.nfaults; k++) {
			char label[24];

			snprintf(label, sizeof(label), "fault %zu:", k + 1);
			ft_strbuf_addf(out, "  %-12s %s\n", label, tw.faults[k]);
		}
		/* the twin's figures do not depend on where it ran */
		if (r->info.host[0])
			ft_strbuf_addf(out, "  computed on: %s (not the cluster modelled)\n",
			               r->info.host);
	} else if (r->info.host[0]) {
		ft_strbuf_addf(out, "  host:        %s\n", r->info.host);
	}
	if (isfinite(r->run.wall_s) && r->run.wall_s > 0) {
		ft_strbuf_addf(out, "  usage:       %.1f s", r->run.wall_s);
		if (isfinite(r->run.cpu_s))
			ft_strbuf_addf(out, ", %.1f s CPU", r->run.cpu_s);
		if (isfinite(r->run.host_busy))
			ft_strbuf_addf(out, ", host %.0f%% busy", r->run.host_busy * 100);
		if (isfinite(r->run.load1))
			ft_strbuf_addf(out, ", load %.2f", r->run.load1);
		ft_strbuf_addf(out, "\n");
	}
	if (ft_fingerprint_len(&r->fp))
		ft_strbuf_addf(out, "  fingerprint: %s (%zu keys%s)\n", r->info.fp_digest,
		               ft_fingerprint_len(&r->fp),
		               ft__rp_is_computed(r) ? ", of the machine that computed it" : "");
	ft_strbuf_addf(out, "  contents:    %zu results, %zu observations, %zu findings\n",
	               ft_run_nrows(&r->run), ft_obs_set_len(&r->obs), r->findings.len);
}

/* Offset of the metric called @name in struct ft_result_row (see ft_result_row_metric). */
static size_t
metric_offset(const char *name)
{
	if (strcmp(name, "busbw") == 0)
		return offsetof(struct ft_result_row, busbw_GBps);
	if (strcmp(name, "algbw") == 0)
		return offsetof(struct ft_result_row, algbw_GBps);
	if (strcmp(name, "lat_p50") == 0)
		return offsetof(struct ft_result_row, lat_p50_us);
	if (strcmp(name, "lat_avg") == 0)
		return offsetof(struct ft_result_row, lat_avg_us);
	return offsetof(struct ft_result_row, time_us);
}

/* The model's row for @r: same test and size (the model has no transport). */
static const struct ft_result_row *
expected_row(const struct ft_run *expected, const struct ft_result_row *r)
{
	size_t i;

	for (i = 0; expected && i < ft_run_nrows(expected); i++) {
		const struct ft_result_row *e = ft_run_row(expected, i);

		if (e->bytes == r->bytes && strcmp(e->test, r->test) == 0)
			return e;
	}
	return NULL;
}

/* A table column: its header and alignment. */
struct col {
	const char *name;
	enum ft_align align;
};

static void
add_cols(struct ft_table *t, const struct col *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ft_table_col(t, c[i].name, c[i].align);
}

/* The columns that name a row, which key_cells() fills. */
static void
key_cols(struct ft_table *t)
{
	static const struct col key[] = {
		{ "test", FT_ALIGN_LEFT }, { "transport", FT_ALIGN_LEFT }, { "size", FT_ALIGN_RIGHT },
		{ "ranks", FT_ALIGN_RIGHT }, { "pair", FT_ALIGN_LEFT },
	};

	add_cols(t, key, FT_ARRAY_SIZE(key));
}

/* The results' columns after the key; the last two only beside the model's expectations. */
static const struct col result_cols[] = {
	{ "time_us", FT_ALIGN_RIGHT }, { "algbw_GB/s", FT_ALIGN_RIGHT }, { "busbw_GB/s", FT_ALIGN_RIGHT },
	{ "p50_us", FT_ALIGN_RIGHT },  { "p99_us", FT_ALIGN_RIGHT },     { "model", FT_ALIGN_RIGHT },
	{ "%model", FT_ALIGN_RIGHT },
};

/* A comparison's columns after the key. */
static const struct col compare_cols[] = {
	{ "metric", FT_ALIGN_LEFT },  { "baseline", FT_ALIGN_RIGHT }, { "n", FT_ALIGN_RIGHT },
	{ "current", FT_ALIGN_RIGHT }, { "change", FT_ALIGN_RIGHT },  { "band", FT_ALIGN_RIGHT },
	{ "verdict", FT_ALIGN_LEFT },
};

/* The cells that name a row: test, transport, size, ranks and the pair (src->dst). */
static void
key_cells(struct ft_table *t, const char *test, const char *transport, uint64_t bytes,
          uint32_t nranks, const char *src, const char *dst)
{
	char buf[32];

	ft_table_cell(t, test);
	ft_table_cell(t, transport[0] ? transport : "-");
	ft_table_cell(t, ft_format_size(bytes, buf, sizeof(buf)));
	ft_table_cellf(t, "%" PRIu32, nranks);
	if (src[0] && dst[0])
		ft_table_cellf(t, "%s->%s", src, dst);
	else if (src[0] || dst[0]) /* one end: a job or an endpoint */
		ft_table_cell(t, src[0] ? src : dst);
	else
		ft_table_cell(t, "-");
}

static void
results(const struct ft_report_input *in, struct ft_strbuf *out)
{
	const struct ft_run *run = &in->run->run;
	struct ft_table t;
	char b[5][32];
	size_t i;

	ft_strbuf_addf(out, "\nresults (%zu)\n", ft_run_nrows(run));
	if (ft_run_nrows(run) == 0)
		return;
	ft_table_init(&t);
	key_cols(&t);
	add_cols(&t, result_cols, in->expected ? FT_ARRAY_SIZE(result_cols) : 5);
	for (i = 0; i < ft_run_nrows(run); i++) {
		const struct ft_result_row *r = ft_run_row(run, i);
		const struct ft_result_row *e = expected_row(in->expected, r);

		key_cells(&t, r->test, r->transport, r->bytes, r->nranks, r->src, r->dst);
		ft_table_cell(&t, ft__rp_num(r->time_us, 2, b[0], sizeof(b[0])));
		ft_table_cell(&t, ft__rp_num(r->algbw_GBps, 2, b[1], sizeof(b[1])));
		ft_table_cell(&t, ft__rp_num(r->busbw_GBps, 2, b[2], sizeof(b[2])));
		ft_table_cell(&t, ft__rp_num(r->lat_p50_us, 2, b[3], sizeof(b[3])));
		ft_table_cell(&t, ft__rp_num(r->lat_p99_us, 2, b[4], sizeof(b[4])));
		if (in->expected) {
			const char *name;
			bool higher;
			double m = ft_result_row_metric(r, &name, &higher);
			double x = e ? ft__rp_field(e, metric_offset(name)) : NAN;

			ft_table_cell(&t, ft__rp_num(x, 2, b[0], sizeof(b[0])));
			ft_table_cell(&t, isfinite(x) && x > 0 && isfinite(m) ?
			                          ft__rp_num(m / x * 100.0, 0, b[1], sizeof(b[1])) :
			                          "-");
		}
	}
	ft_table_render(&t, out);
	ft_table_release(&t);
}

static void
comparison(const struct ft_report_input *in, struct ft_strbuf *out)
{
	const struct ft_compare *c = in->cmp;
	struct ft_table t;
	char b[6][48];
	size_t i;

	ft_strbuf_addf(out,
	               "\ncomparison with %s: %zu regressed, %zu improved, %zu unchanged, "
	               "%zu new, %zu missing\n",
	               in->baseline_label ? in->baseline_label : "the baseline",
	               c->count[FT_VERDICT_REGRESSED], c->count[FT_VERDICT_IMPROVED],
	               c->count[FT_VERDICT_UNCHANGED], c->count[FT_VERDICT_NEW],
	               c->count[FT_VERDICT_MISSING]);
	ft_strbuf_addf(out,
	               "  thresholds: %.3g sigma, by Student's t for the runs (floor %.3g%%), with %u+ "
	               "runs, else %.3g%% "
	               "or the per-iteration spread when wider\n",
	               c->opts.k_sigma, c->opts.floor_rel * 100, c->opts.min_samples,
	               c->opts.rel_threshold * 100);
	/* a run on a busier host than its baseline explains a band or a regression */
	{
		double sum = 0;
		size_t n = 0;

		for (i = 0; i < in->nbaseline; i++)
			if (isfinite(in->baseline[i]->host_busy)) {
				sum += in->baseline[i]->host_busy;
				n++;
			}
		if (isfinite(in->run->run.host_busy) || n)
			ft_strbuf_addf(out, "  host busy:  this run %s, baseline %s\n",
			               ft__rp_pct_abs(in->run->run.host_busy, b[0], sizeof(b[0])),
			               ft__rp_pct_abs(n ? sum / (double)n : NAN, b[1], sizeof(b[1])));
	}
	ft_strbuf_addf(out, "  matched:    %zu of %zu baseline results%s\n", c->nmatched,
	               c->nmatched + c->count[FT_VERDICT_MISSING],
	               ft_compare_is_incomplete(c) ? " (too few: incomplete)" : "");
	if (c->naside)
		ft_strbuf_addf(out,
		               "  set aside:  a disturbed baseline run at %zu results (n: runs used+set "
		               "aside): its iterations spread over %.3gx the other runs'\n",
		               c->naside, FT_COMPARE_DISTURBED);
	if (c->rows.len == 0)
		return;
	ft_table_init(&t);
	key_cols(&t);
	add_cols(&t, compare_cols, FT_ARRAY_SIZE(compare_cols));
	for (i = 0; i < c->rows.len; i++) {
		const struct ft_compare_row *r = ft_vec_at(&c->rows, i);

		key_cells(&t, r->test, r->transport, r->bytes, r->nranks, r->src, r->dst);
		ft_table_cellf(&t, "%s %s", r->metric, r->higher_is_better ? "GB/s" : "us");
		if (isfinite(r->base_stdev))
			ft_table_cellf(&t, "%s+-%s",
			               ft__rp_num(r->base_mean, 2, b[1], sizeof(b[1])),
			               ft__rp_num(r->base_stdev, 2, b[2], sizeof(b[2])));
		else
			ft_table_cell(&t, ft__rp_num(r->base_mean, 2, b[1], sizeof(b[1])));
		if (r->base_aside)
			ft_table_cellf(&t, "%u+%u", r->base_n, r->base_aside);
		else
			ft_table_cellf(&t, "%u", r->base_n);
		ft_table_cell(&t, ft__rp_num(r->current, 2, b[3], sizeof(b[3])));
		ft_table_cell(&t, ft__rp_pct(r->delta_rel, b[4], sizeof(b[4])));
		if (isfinite(r->threshold_rel))
			ft_table_cellf(&t, "%.1f%% %s", r->threshold_rel * 100,
			               ft_band_from_name(r->band_from));
		else
			ft_table_cell(&t, "-");
		if (in->color && ft_report_verdict_color(r->verdict)[0])
			ft_table_cellf(&t, "%s%s%s", ft_report_verdict_color(r->verdict),
			               ft_verdict_name(r->verdict), FT_ANSI_RESET);
		else
			ft_table_cell(&t, ft_verdict_name(r->verdict));
	}
	ft_table_render(&t, out);
	ft_table_release(&t);
}

static void
fingerprint_changes(const struct ft_report_input *in, struct ft_strbuf *out)
{
	struct ft_vec diff;
	struct ft_table t;
	size_t i;

	ft_vec_init(&diff, sizeof(struct ft_fingerprint_change));
	if (ft_fingerprint_diff(in->baseline_fp, &in->run->fp, &diff) < 0) {
		out->oom = true;
		return;
	}
	if (in->stable) {
		/* The fabtune version changes with every release: not a stable output. */
		for (i = 0; i < diff.len; i++) {
			struct ft_fingerprint_change *ch = ft_vec_at(&diff, i);

			if (strcmp(ch->key, "fabtune.version") == 0) {
				memmove(ch, ch + 1, (diff.len - i - 1) * sizeof(*ch));
				diff.len--;
				break;
			}
		}
	}
	ft_strbuf_addf(out, "\nfingerprint changes since the baseline (%zu)\n", diff.len);
	if (diff.len) {
		ft_table_init(&t);
		ft_table_col(&t, "key", FT_ALIGN_LEFT);
		ft_table_col(&t, "baseline", FT_ALIGN_LEFT);
		ft_table_col(&t, "this run", FT_ALIGN_LEFT);
		for (i = 0; i < diff.len; i++) {
			const struct ft_fingerprint_change *ch = ft_vec_at(&diff, i);

			ft_table_cell(&t, ch->key);
			ft_table_cell(&t, ch->before[0] ? ch->before : "(absent)");
			ft_table_cell(&t, ch->after[0] ? ch->after : "(absent)");
		}
		ft_table_render(&t, out);
		ft_table_release(&t);
	}
	ft_vec_release(&diff);
}

static void
obs_line(struct ft_strbuf *out, const char *indent, const struct ft_obs *o)
{
	char entity[200];

	ft_obs_entity(o, entity, sizeof(entity));
	ft_strbuf_addf(out, "%s%s %s =", indent, entity, o->key);
	if (o->has_num)
		ft_strbuf_addf(out, " %.6g%s%s", o->num, o->unit[0] ? " " : "", o->unit);
	if (o->str[0])
		ft_strbuf_addf(out, " %s", o->str);
	if (o->file[0] && o->line)
		ft_strbuf_addf(out, " (%s:%" PRIu32 ")", o->file, o->line);
	else if (o->file[0])
		ft_strbuf_addf(out, " (%s)", o->file);
	ft_strbuf_addch(out, '\n');
}

static void
findings(const struct ft_report_input *in, struct ft_strbuf *out)
{
	struct ft_vec sorted;
	int layer = -1;
	size_t i, k;

	ft_strbuf_addf(out, "\nfindings (%zu)\n", in->run->findings.len);
	ft_vec_init(&sorted, sizeof(const struct ft_finding *));
	if (ft__rp_findings_sorted(in->run, &sorted) < 0) {
		out->oom = true;
		return;
	}
	for (i = 0; i < sorted.len; i++) {
		const struct ft_finding *f = FT_VEC_AT(&sorted, const struct ft_finding *, i);

		if ((int)f->layer != layer) {
			layer = (int)f->layer;
			ft_strbuf_addf(out, "  %s\n", ft_layer_name(f->layer));
		}
		if (in->color)
			ft_strbuf_addf(out, "    [%s%s%s] %s: %s\n",
			               ft_report_severity_color(f->severity),
			               ft_severity_name(f->severity), FT_ANSI_RESET,
			               f->entity[0] ? f->entity : "-", f->rule_id);
		else
			ft_strbuf_addf(out, "    [%s] %s: %s\n", ft_severity_name(f->severity),
			               f->entity[0] ? f->entity : "-", f->rule_id);
		if (f->message[0])
			ft_strbuf_addf(out, "      %s\n", f->message);
		if (f->fix[0])
			ft_strbuf_addf(out, "      fix: %s\n", f->fix);
		if (f->kb[0])
			ft_strbuf_addf(out, "      see: %s\n", f->kb);
		for (k = 0; k < FT_MIN(f->nevidence, FT_FINDING_MAX_EVIDENCE); k++)
			obs_line(out, "      evidence: ", &f->evidence[k]);
	}
	ft_vec_release(&sorted);
}

static void
observations(const struct ft_report_input *in, struct ft_strbuf *out)
{
	size_t i;

	ft_strbuf_addf(out, "\nobservations (%zu)\n", ft_obs_set_len(&in->run->obs));
	for (i = 0; i < ft_obs_set_len(&in->run->obs); i++)
		obs_line(out, "  ", ft_obs_set_at(&in->run->obs, i));
}

static void
fingerprint(const struct ft_report_input *in, struct ft_strbuf *out)
{
	const struct ft_fingerprint *fp = &in->run->fp;
	size_t i;

	ft_strbuf_addf(out, "\nfingerprint (%zu)\n", ft_fingerprint_len(fp));
	for (i = 0; i < ft_fingerprint_len(fp); i++) {
		const struct ft_fingerprint_item *it = ft_fingerprint_at(fp, i);

		if (in->stable && strcmp(it->key, "fabtune.version") == 0)
			ft_strbuf_addf(out, "  %s = VERSION\n", it->key);
		else
			ft_strbuf_addf(out, "  %s = %s\n", it->key, it->value);
	}
}

int
ft__report_text(const struct ft_report_input *in, struct ft_strbuf *out)
{
	if (want(in, FT_REPORT_SEC_RUN))
		run_header(in, out);
	if (want(in, FT_REPORT_SEC_RESULTS))
		results(in, out);
	if (want(in, FT_REPORT_SEC_COMPARE) && in->cmp)
		comparison(in, out);
	if (want(in, FT_REPORT_SEC_COMPARE) && in->baseline_fp)
		fingerprint_changes(in, out);
	if (want(in, FT_REPORT_SEC_FINDINGS))
		findings(in, out);
	if (want(in, FT_REPORT_SEC_OBS) && ft_obs_set_len(&in->run->obs))
		observations(in, out);
	if (want(in, FT_REPORT_SEC_FINGERPRINT) && ft_fingerprint_len(&in->run->fp))
		fingerprint(in, out);
	return 0;
}

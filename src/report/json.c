/* SPDX-License-Identifier: MIT */
/*
 * report/json.c - the report as one JSON object: the run (as in an export),
 * the model's expectations, the comparison with the baseline and the
 * fingerprint changes.
 */
#include "report_int.h"

/* A string member only when the string is set. */
static void
kv_str_set(struct ft_json *j, const char *key, const char *s)
{
	if (s[0])
		ft_json_kv_str(j, key, s);
}

static void
compare_json(const struct ft_report_input *in, struct ft_json *j)
{
	const struct ft_compare *c = in->cmp;
	size_t i;

	ft_json_key(j, "comparison");
	ft_json_obj_begin(j);
	ft_json_kv_str(j, "baseline", in->baseline_label ? in->baseline_label : "");
	ft_json_key(j, "thresholds");
	ft_json_obj_begin(j);
	ft_json_kv_double(j, "k_sigma", c->opts.k_sigma);
	ft_json_kv_double(j, "floor_rel", c->opts.floor_rel);
	ft_json_kv_double(j, "rel_threshold", c->opts.rel_threshold);
	ft_json_kv_uint(j, "min_samples", c->opts.min_samples);
	ft_json_kv_double(j, "min_matched", c->opts.min_matched);
	ft_json_obj_end(j);
	ft_json_key(j, "counts");
	ft_json_obj_begin(j);
	for (i = 0; i < FT_VERDICT_COUNT; i++)
		ft_json_kv_uint(j, ft_verdict_name((enum ft_verdict)i), c->count[i]);
	ft_json_obj_end(j);
	ft_json_kv_uint(j, "matched", c->nmatched);
	ft_json_kv_bool(j, "regression", ft_compare_has_regression(c));
	ft_json_kv_bool(j, "incomplete", ft_compare_is_incomplete(c));
	ft_json_key(j, "rows");
	ft_json_arr_begin(j);
	for (i = 0; i < c->rows.len; i++) {
		const struct ft_compare_row *r = ft_vec_at(&c->rows, i);

		ft_json_obj_begin(j);
		ft_json_kv_str(j, "test", r->test);
		kv_str_set(j, "op", r->redop);
		kv_str_set(j, "dtype", r->dtype);
		ft_json_kv_str(j, "transport", r->transport);
		ft_json_kv_uint(j, "bytes", r->bytes);
		ft_json_kv_uint(j, "nranks", r->nranks);
		kv_str_set(j, "src", r->src);
		kv_str_set(j, "dst", r->dst);
		ft_json_kv_str(j, "metric", r->metric);
		ft_json_kv_bool(j, "higher_is_better", r->higher_is_better);
		ft_json_kv_double(j, "current", r->current);
		ft_json_kv_double(j, "baseline_mean", r->base_mean);
		ft_json_kv_double(j, "baseline_stdev", r->base_stdev);
		ft_json_kv_uint(j, "baseline_n", r->base_n);
		ft_json_kv_uint(j, "baseline_set_aside", r->base_aside);
		ft_json_kv_double(j, "delta_rel", r->delta_rel);
		ft_json_kv_double(j, "threshold_rel", r->threshold_rel);
		ft_json_kv_str(j, "threshold", r->noise_aware ? "noise" : "stated");
		ft_json_kv_str(j, "band_from", ft_band_from_name(r->band_from));
		ft_json_kv_double(j, "iter_cv", r->iter_cv);
		if (isfinite(r->current_p99) || isfinite(r->base_p99)) {
			ft_json_kv_double(j, "current_p99_us", r->current_p99);
			ft_json_kv_double(j, "baseline_p99_us", r->base_p99);
		}
		ft_json_kv_str(j, "verdict", ft_verdict_name(r->verdict));
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
	ft_json_obj_end(j);
}

static int
changes_json(const struct ft_report_input *in, struct ft_json *j)
{
	struct ft_vec diff;
	size_t i;

	ft_vec_init(&diff, sizeof(struct ft_fingerprint_change));
	if (ft_fingerprint_diff(in->baseline_fp, &in->run->fp, &diff) < 0)
		return FT_ENOMEM;
	ft_json_key(j, "fingerprint_changes");
	ft_json_arr_begin(j);
	for (i = 0; i < diff.len; i++) {
		const struct ft_fingerprint_change *ch = ft_vec_at(&diff, i);

		if (in->stable && strcmp(ch->key, "fabtune.version") == 0)
			continue;
		ft_json_obj_begin(j);
		ft_json_kv_str(j, "key", ch->key);
		ft_json_kv_str(j, "baseline", ch->before);
		ft_json_kv_str(j, "current", ch->after);
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
	ft_vec_release(&diff);
	return 0;
}

int
ft__report_json(const struct ft_report_input *in, struct ft_strbuf *out)
{
	struct ft_archive_record expected;
	struct ft_json j;
	int rc = 0;

	ft_json_init(&j, out, true);
	ft_json_obj_begin(&j);
	ft_json_kv_str(&j, "format", "fabtune-report");
	if (!in->stable)
		ft_json_kv_str(&j, "fabtune_version", ft_version());
	ft_json_key(&j, "run");
	ft_archive_record_json(in->run, &j, in->stable ? FT_EXPORT_STABLE : 0);
	if (in->expected) {
		/* The expectations as a record without fingerprint or findings. */
		memset(&expected, 0, sizeof(expected));
		expected.run = *in->expected;
		ft_obs_set_init(&expected.obs);
		ft_vec_init(&expected.findings, sizeof(struct ft_finding));
		ft_fingerprint_init(&expected.fp);
		ft_json_key(&j, "expected");
		ft_archive_record_json(&expected, &j, FT_EXPORT_STABLE);
	}
	if (in->cmp)
		compare_json(in, &j);
	if (in->baseline_fp)
		rc = changes_json(in, &j);
	ft_json_obj_end(&j);
	ft_strbuf_addch(out, '\n');
	return rc;
}

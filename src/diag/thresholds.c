/* SPDX-License-Identifier: MIT */
/*
 * diag/thresholds.c - the figures users hold a fabric to (utilisation of the
 * port rate, pause and ECN/CNP rates in steady state, overlap, recovery
 * time) and the limits of the heuristic rules (receive drops, ratios of
 * measured to expected figures): their defaults and the --thresholds file
 * that overrides them. Rules read them through c->thresholds, counter rules
 * by key (ft__diag_threshold).
 *
 * The file is a YAML or JSON mapping; every key is optional. Fractions take
 * 0.85 or "85%", ratios and bit error rates a positive number, durations
 * take seconds or "5min". The one document
 * reader (spec/doc.h) reads it by the table below; errors name
 * file:line:column and the key.
 */
#include "internal.h"

#include <float.h>
#include <stdio.h>
#include <string.h>

#include <fabtune/diag.h>

#include "diag/diag_int.h"
#include "spec/doc.h"

const struct ft_diag_thresholds ft__diag_default_thresholds = {
	.utilisation_min = 0.85,
	.pfc_rate_max = 0,
	.ecn_rate_max = 0,
	.overlap_min = 0.90,
	.recovery_max_s = 300,
	.pause_frames_max = 100000,
	.paused_fraction_max = 0.10,
	.ecn_mark_share_max = 0.01,
	.switch_drops_max = 1000,
	.rx_discards_max = 1000,
	.rx_discards_rate_max = 1,
	.rx_out_of_buffer_max = 1000,
	.rx_out_of_buffer_rate_max = 100,
	.busbw_model_min = 0.80,   /* NA-EXPECT */
	.busbw_model_error = 0.55, /* SYM-BW-HALF */
	.latency_model_max = 1.25,
	.latency_model_error = 2.0,
	.jitter_max = 2.0,
	.jitter_error = 10.0,
	.pair_outlier_min = 0.80,
	.scale_drop_min = 0.85, /* SYM-SCALE-DROP */
	.paused_fraction_error = 0.50, /* ROCE-PFC */
	.copy_bw_min = 0.85,
	.lane_error_share_min = 0.75,
	.effective_ber_max = 1e-12, /* IBDIAG-BER */
	.raw_ber_max = 1e-6,
	.module_temp_max = 70,
	/* roce-dcqcn-overreaction (CC-DCQCN) */
	.dcqcn_cnp_rate_min = 1 / 300e-6, /* one rate-increase step per rpg_time_reset, 300 us */
	.dcqcn_tx_share_max = 0.5,
	.dcqcn_rx_utilisation_max = 0.5,
	.dcqcn_mark_share_min = 0.05,
};

void
ft_diag_thresholds_init(struct ft_diag_thresholds *t)
{
	*t = ft__diag_default_thresholds;
}

/* Each key is optional; a key not in the file keeps its default (spec/doc.h). */
static const struct ft__doc_field keys[] = {
	{ "utilisation_min", FT__DOC_FRACTION, FT__DOC_AT(struct ft_diag_thresholds, utilisation_min) },
	{ "pfc_rate_max", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_diag_thresholds, pfc_rate_max), .lo = 0, .hi = DBL_MAX,
	  .what = "a non-negative rate per second" },
	{ "ecn_rate_max", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_diag_thresholds, ecn_rate_max), .lo = 0, .hi = DBL_MAX,
	  .what = "a non-negative rate per second" },
	{ "overlap_min", FT__DOC_FRACTION, FT__DOC_AT(struct ft_diag_thresholds, overlap_min) },
	{ "recovery_max", FT__DOC_DURATION, FT__DOC_AT(struct ft_diag_thresholds, recovery_max_s),
	  .what = "a duration like 300 or 5min" },
	{ "pause_frames_max", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_diag_thresholds, pause_frames_max), .lo = 0, .hi = DBL_MAX,
	  .what = "a non-negative count" },
	{ "paused_fraction_max", FT__DOC_FRACTION, FT__DOC_AT(struct ft_diag_thresholds, paused_fraction_max) },
	{ "ecn_mark_share_max", FT__DOC_FRACTION, FT__DOC_AT(struct ft_diag_thresholds, ecn_mark_share_max) },
	{ "switch_drops_max", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_diag_thresholds, switch_drops_max), .lo = 0, .hi = DBL_MAX,
	  .what = "a non-negative count" },
	{ "rx_discards_max", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_diag_thresholds, rx_discards_max), .lo = 0, .hi = DBL_MAX,
	  .what = "a non-negative count" },
	{ "rx_discards_rate_max", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_diag_thresholds, rx_discards_rate_max), .lo = 0, .hi = DBL_MAX,
	  .what = "a non-negative rate per second" },
	{ "rx_out_of_buffer_max", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_diag_thresholds, rx_out_of_buffer_max), .lo = 0, .hi = DBL_MAX,
	  .what = "a non-negative count" },
	{ "rx_out_of_buffer_rate_max", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_diag_thresholds, rx_out_of_buffer_rate_max), .lo = 0, .hi = DBL_MAX,
	  .what = "a non-negative rate per second" },
	{ "busbw_model_min", FT__DOC_FRACTION, FT__DOC_AT(struct ft_diag_thresholds, busbw_model_min) },
	{ "busbw_model_error", FT__DOC_FRACTION, FT__DOC_AT(struct ft_diag_thresholds, busbw_model_error) },
	{ "latency_model_max", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_diag_thresholds, latency_model_max), .lo = DBL_MIN, .hi = DBL_MAX,
	  .what = "a positive number like 1.25 or 1e-12" },
	{ "latency_model_error", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_diag_thresholds, latency_model_error), .lo = DBL_MIN, .hi = DBL_MAX,
	  .what = "a positive number like 1.25 or 1e-12" },
	{ "jitter_max", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_diag_thresholds, jitter_max), .lo = DBL_MIN, .hi = DBL_MAX,
	  .what = "a positive number like 1.25 or 1e-12" },
	{ "jitter_error", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_diag_thresholds, jitter_error), .lo = DBL_MIN, .hi = DBL_MAX,
	  .what = "a positive number like 1.25 or 1e-12" },
	{ "pair_outlier_min", FT__DOC_FRACTION, FT__DOC_AT(struct ft_diag_thresholds, pair_outlier_min) },
	{ "scale_drop_min", FT__DOC_FRACTION, FT__DOC_AT(struct ft_diag_thresholds, scale_drop_min) },
	{ "paused_fraction_error", FT__DOC_FRACTION, FT__DOC_AT(struct ft_diag_thresholds, paused_fraction_error) },
	{ "copy_bw_min", FT__DOC_FRACTION, FT__DOC_AT(struct ft_diag_thresholds, copy_bw_min) },
	{ "lane_error_share_min", FT__DOC_FRACTION, FT__DOC_AT(struct ft_diag_thresholds, lane_error_share_min) },
	{ "effective_ber_max", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_diag_thresholds, effective_ber_max), .lo = DBL_MIN, .hi = DBL_MAX,
	  .what = "a positive number like 1.25 or 1e-12" },
	{ "raw_ber_max", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_diag_thresholds, raw_ber_max), .lo = DBL_MIN, .hi = DBL_MAX,
	  .what = "a positive number like 1.25 or 1e-12" },
	{ "module_temp_max", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_diag_thresholds, module_temp_max), .lo = DBL_MIN, .hi = DBL_MAX,
	  .what = "a positive number like 1.25 or 1e-12" },
	{ "dcqcn_cnp_rate_min", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_diag_thresholds, dcqcn_cnp_rate_min), .lo = 0, .hi = DBL_MAX,
	  .what = "a non-negative rate per second" },
	{ "dcqcn_tx_share_max", FT__DOC_FRACTION, FT__DOC_AT(struct ft_diag_thresholds, dcqcn_tx_share_max) },
	{ "dcqcn_rx_utilisation_max", FT__DOC_FRACTION, FT__DOC_AT(struct ft_diag_thresholds, dcqcn_rx_utilisation_max) },
	{ "dcqcn_mark_share_min", FT__DOC_FRACTION, FT__DOC_AT(struct ft_diag_thresholds, dcqcn_mark_share_min) },
};

void
ft__diag_fmt_limit(double v, char *buf, size_t len)
{
	char *e;

	snprintf(buf, len, "%.2g", v);
	e = strchr(buf, 'e');
	if (e && (e[1] == '-' || e[1] == '+')) {
		char *d = e + 2;

		while (d[0] == '0' && d[1])
			memmove(d, d + 1, strlen(d));
		if (e[1] == '+')
			memmove(e + 1, e + 2, strlen(e + 1));
	}
}

double
ft__diag_threshold(const struct ft_diag_thresholds *t, const char *key, double dflt)
{
	size_t i;

	for (i = 0; key && t && i < FT_ARRAY_SIZE(keys); i++)
		if (strcmp(keys[i].key, key) == 0)
			return *(const double *)(const void *)((const char *)t + keys[i].off);
	return dflt;
}

int
ft_diag_thresholds_read(const char *path, struct ft_diag_thresholds *t, struct ft_error *err)
{
	struct ft__doc d = { 0 };
	yaml_node_t *root;
	int rc;

	rc = ft__doc_open_file(&d, path, err);
	if (rc < 0)
		return rc;
	root = ft__doc_root(&d);
	if (root) /* an empty file keeps every default */
		rc = ft__doc_walk(&d, root, "", keys, FT_ARRAY_SIZE(keys), t, NULL);
	ft__doc_close(&d);
	return rc;
}

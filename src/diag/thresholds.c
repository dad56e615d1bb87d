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
	/* Past the model's own spread: on the 41 published healthy curves of
	 * bench/model-fidelity.sh (--points), 64 of the 208 sizes up to 128 MiB measure
	 * over 1.25x the model and 23 over 1.5x (p90 1.51-1.53x). */
	.latency_model_max = 1.5,
	.latency_model_error = 2.0,
	.jitter_max = 2.0,
	.jitter_error = 10.0,
	.jitter_min_us = 1.0,
	.jitter_foreign_cpu_max = 0.25,
	.pair_outlier_min = 0.80,
	.scale_drop_min = 0.85,        /* SYM-SCALE-DROP */
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

/*
 * Each key is optional; a key not in the file keeps its default (spec/doc.h).
 * Its kind says what it accepts: a fraction (0.85 or "85%"), a positive
 * number, a non-negative count or a non-negative rate per second.
 */
#define THRESHOLD_AT(m) FT__DOC_AT(struct ft_diag_thresholds, m)
#define FRACTION(m) { #m, FT__DOC_FRACTION, THRESHOLD_AT(m) }
#define POSITIVE(m)                                                                                \
	{ #m, FT__DOC_DOUBLE, THRESHOLD_AT(m), .lo = DBL_MIN, .hi = DBL_MAX,                       \
	  .what = "a positive number like 1.25 or 1e-12" }
#define COUNT(m)                                                                                   \
	{ #m, FT__DOC_DOUBLE, THRESHOLD_AT(m), .lo = 0, .hi = DBL_MAX,                             \
	  .what = "a non-negative count" }
#define RATE(m)                                                                                    \
	{ #m, FT__DOC_DOUBLE, THRESHOLD_AT(m), .lo = 0, .hi = DBL_MAX,                             \
	  .what = "a non-negative rate per second" }

static const struct ft__doc_field keys[] = {
	FRACTION(utilisation_min),
	RATE(pfc_rate_max),
	RATE(ecn_rate_max),
	FRACTION(overlap_min),
	{ "recovery_max", FT__DOC_DURATION, THRESHOLD_AT(recovery_max_s),
	  .what = "a duration like 300 or 5min" },
	COUNT(pause_frames_max),
	FRACTION(paused_fraction_max),
	FRACTION(ecn_mark_share_max),
	COUNT(switch_drops_max),
	COUNT(rx_discards_max),
	RATE(rx_discards_rate_max),
	COUNT(rx_out_of_buffer_max),
	RATE(rx_out_of_buffer_rate_max),
	FRACTION(busbw_model_min),
	FRACTION(busbw_model_error),
	POSITIVE(latency_model_max),
	POSITIVE(latency_model_error),
	POSITIVE(jitter_max),
	POSITIVE(jitter_error),
	POSITIVE(jitter_min_us),
	FRACTION(jitter_foreign_cpu_max),
	FRACTION(pair_outlier_min),
	FRACTION(scale_drop_min),
	FRACTION(paused_fraction_error),
	FRACTION(copy_bw_min),
	FRACTION(lane_error_share_min),
	POSITIVE(effective_ber_max),
	POSITIVE(raw_ber_max),
	POSITIVE(module_temp_max),
	RATE(dcqcn_cnp_rate_min),
	FRACTION(dcqcn_tx_share_max),
	FRACTION(dcqcn_rx_utilisation_max),
	FRACTION(dcqcn_mark_share_min),
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

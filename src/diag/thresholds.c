/* SPDX-License-Identifier: MIT */
/*
 * diag/thresholds.c - the figures users hold a fabric to (utilisation of the
 * port rate, pause and ECN/CNP rates in steady state, overlap, recovery
 * time): their defaults and the --thresholds file that overrides them.
 *
 * The file is a YAML or JSON mapping; every key is optional. Fractions take
 * 0.85 or "85%", durations take seconds or "5min". The one document
 * reader (spec/doc.h) reads it by the table below; errors name
 * file:line:column and the key.
 */
#include "internal.h"

#include <float.h>

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
};

void
ft_diag_thresholds_init(struct ft_diag_thresholds *t)
{
	*t = ft__diag_default_thresholds;
}

/* Each key is optional; a key not in the file keeps its default (spec/doc.h). */
static const struct ft__doc_field keys[] = {
	{ "utilisation_min", FT__DOC_FRACTION,
	  FT__DOC_AT(struct ft_diag_thresholds, utilisation_min) },
	{ "pfc_rate_max", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_diag_thresholds, pfc_rate_max),
	  .lo = 0, .hi = DBL_MAX, .what = "a non-negative rate per second" },
	{ "ecn_rate_max", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_diag_thresholds, ecn_rate_max),
	  .lo = 0, .hi = DBL_MAX, .what = "a non-negative rate per second" },
	{ "overlap_min", FT__DOC_FRACTION, FT__DOC_AT(struct ft_diag_thresholds, overlap_min) },
	{ "recovery_max", FT__DOC_DURATION, FT__DOC_AT(struct ft_diag_thresholds, recovery_max_s),
	  .what = "a duration like 300 or 5min" },
	{ "pause_frames_max", FT__DOC_DOUBLE,
	  FT__DOC_AT(struct ft_diag_thresholds, pause_frames_max), .lo = 0, .hi = DBL_MAX,
	  .what = "a non-negative count" },
	{ "paused_fraction_max", FT__DOC_FRACTION,
	  FT__DOC_AT(struct ft_diag_thresholds, paused_fraction_max) },
	{ "ecn_mark_share_max", FT__DOC_FRACTION,
	  FT__DOC_AT(struct ft_diag_thresholds, ecn_mark_share_max) },
	{ "switch_drops_max", FT__DOC_DOUBLE,
	  FT__DOC_AT(struct ft_diag_thresholds, switch_drops_max), .lo = 0, .hi = DBL_MAX,
	  .what = "a non-negative count" },
};

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

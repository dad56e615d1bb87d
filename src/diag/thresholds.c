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
 * 0.85 or "85%", ratios a positive number, durations take seconds or "5min".
 * Errors name file:line:column and the key.
 */
#include "internal.h"

#include <yaml.h>

#include <fabtune/diag.h>
#include <fabtune/units.h>

#include "diag/diag_int.h"

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
};

void
ft_diag_thresholds_init(struct ft_diag_thresholds *t)
{
	*t = ft__diag_default_thresholds;
}

enum kind { FRACTION, RATE, DURATION, COUNT, RATIO };

static const struct {
	const char *key;
	enum kind kind;
	size_t off;
} keys[] = {
	{ "utilisation_min", FRACTION, offsetof(struct ft_diag_thresholds, utilisation_min) },
	{ "pfc_rate_max", RATE, offsetof(struct ft_diag_thresholds, pfc_rate_max) },
	{ "ecn_rate_max", RATE, offsetof(struct ft_diag_thresholds, ecn_rate_max) },
	{ "overlap_min", FRACTION, offsetof(struct ft_diag_thresholds, overlap_min) },
	{ "recovery_max", DURATION, offsetof(struct ft_diag_thresholds, recovery_max_s) },
	{ "pause_frames_max", COUNT, offsetof(struct ft_diag_thresholds, pause_frames_max) },
	{ "paused_fraction_max", FRACTION,
	  offsetof(struct ft_diag_thresholds, paused_fraction_max) },
	{ "ecn_mark_share_max", FRACTION, offsetof(struct ft_diag_thresholds, ecn_mark_share_max) },
	{ "switch_drops_max", COUNT, offsetof(struct ft_diag_thresholds, switch_drops_max) },
	{ "rx_discards_max", COUNT, offsetof(struct ft_diag_thresholds, rx_discards_max) },
	{ "rx_discards_rate_max", RATE, offsetof(struct ft_diag_thresholds, rx_discards_rate_max) },
	{ "rx_out_of_buffer_max", COUNT, offsetof(struct ft_diag_thresholds, rx_out_of_buffer_max) },
	{ "rx_out_of_buffer_rate_max", RATE,
	  offsetof(struct ft_diag_thresholds, rx_out_of_buffer_rate_max) },
	{ "busbw_model_min", FRACTION, offsetof(struct ft_diag_thresholds, busbw_model_min) },
	{ "busbw_model_error", FRACTION, offsetof(struct ft_diag_thresholds, busbw_model_error) },
	{ "latency_model_max", RATIO, offsetof(struct ft_diag_thresholds, latency_model_max) },
	{ "latency_model_error", RATIO, offsetof(struct ft_diag_thresholds, latency_model_error) },
	{ "jitter_max", RATIO, offsetof(struct ft_diag_thresholds, jitter_max) },
	{ "jitter_error", RATIO, offsetof(struct ft_diag_thresholds, jitter_error) },
	{ "pair_outlier_min", FRACTION, offsetof(struct ft_diag_thresholds, pair_outlier_min) },
	{ "scale_drop_min", FRACTION, offsetof(struct ft_diag_thresholds, scale_drop_min) },
	{ "paused_fraction_error", FRACTION,
	  offsetof(struct ft_diag_thresholds, paused_fraction_error) },
	{ "copy_bw_min", FRACTION, offsetof(struct ft_diag_thresholds, copy_bw_min) },
	{ "lane_error_share_min", FRACTION,
	  offsetof(struct ft_diag_thresholds, lane_error_share_min) },
};

double
ft__diag_threshold(const struct ft_diag_thresholds *t, const char *key, double dflt)
{
	size_t i;

	for (i = 0; key && t && i < FT_ARRAY_SIZE(keys); i++)
		if (strcmp(keys[i].key, key) == 0)
			return *(const double *)(const void *)((const char *)t + keys[i].off);
	return dflt;
}

/* "utilisation_min, pfc_rate_max, ...": every key, for error messages. */
static void
key_list(char *buf, size_t n)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < FT_ARRAY_SIZE(keys) && len < n; i++)
		len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? ", " : "", keys[i].key);
}

static int
at(struct ft_error *err, const char *path, const yaml_node_t *n, const char *key,
   const char *what, const char *got)
{
	return ft_error_set(err, FT_EPARSE, "%s:%zu:%zu: %s: %s, got '%.40s'", path,
			    n->start_mark.line + 1, n->start_mark.column + 1, key, what, got);
}

static int
read_value(const char *path, const yaml_node_t *v, size_t i, double *out, struct ft_error *err)
{
	const char *s = v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : NULL;
	size_t n = s ? strlen(s) : 0;
	char buf[64];

	if (!s || !n || n >= sizeof(buf))
		return at(err, path, v, keys[i].key, "expected a scalar", s ? s : "(not a scalar)");
	switch (keys[i].kind) {
	case FRACTION:
		memcpy(buf, s, n + 1);
		if (buf[n - 1] == '%')
			buf[n - 1] = '\0';
		if (ft_parse_double(buf, out) < 0 || !isfinite(*out) || *out < 0)
			return at(err, path, v, keys[i].key, "expected a fraction like 0.85 or 85%",
				  s);
		if (s[n - 1] == '%')
			*out /= 100;
		if (*out > 1)
			return at(err, path, v, keys[i].key, "a fraction cannot exceed 1 (100%)", s);
		return 0;
	case RATE:
		if (ft_parse_double(s, out) < 0 || !isfinite(*out) || *out < 0)
			return at(err, path, v, keys[i].key,
				  "expected a non-negative rate per second", s);
		return 0;
	case DURATION:
		if (ft_parse_duration(s, out, NULL) < 0 || !isfinite(*out) || *out < 0)
			return at(err, path, v, keys[i].key,
				  "expected a duration like 300 or 5min", s);
		return 0;
	case COUNT:
		if (ft_parse_double(s, out) < 0 || !isfinite(*out) || *out < 0)
			return at(err, path, v, keys[i].key, "expected a non-negative count", s);
		return 0;
	case RATIO:
		if (ft_parse_double(s, out) < 0 || !isfinite(*out) || *out <= 0)
			return at(err, path, v, keys[i].key, "expected a positive ratio like 1.25",
				  s);
		return 0;
	}
	return 0;
}

int
ft_diag_thresholds_read(const char *path, struct ft_diag_thresholds *t, struct ft_error *err)
{
	struct ft_strbuf sb;
	yaml_document_t doc;
	yaml_node_t *root;
	yaml_node_pair_t *p;
	char names[768];
	int rc;

	key_list(names, sizeof(names));
	ft_strbuf_init(&sb);
	rc = ft_strbuf_read_file(&sb, path, err);
	if (rc == 0)
		rc = ft__yaml_load(sb.buf, sb.len, path, &doc, err); /* limits, then the tree */
	if (rc < 0) {
		ft_strbuf_release(&sb);
		return rc;
	}
	root = yaml_document_get_root_node(&doc);
	rc = 0;
	if (!root) {
		/* an empty file keeps every default */
	} else if (root->type != YAML_MAPPING_NODE) {
		rc = ft_error_set(err, FT_EPARSE,
				  "%s:%zu:%zu: expected a mapping of thresholds (%s)", path,
				  root->start_mark.line + 1, root->start_mark.column + 1, names);
	} else {
		for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top && !rc;
		     p++) {
			const yaml_node_t *k = yaml_document_get_node(&doc, p->key);
			const yaml_node_t *v = yaml_document_get_node(&doc, p->value);
			const char *key = k && k->type == YAML_SCALAR_NODE ?
						  (const char *)k->data.scalar.value :
						  NULL;
			size_t i;

			if (!key || !v) {
				rc = ft_error_set(err, FT_EPARSE, "%s: malformed mapping", path);
				break;
			}
			for (i = 0; i < FT_ARRAY_SIZE(keys); i++)
				if (strcmp(key, keys[i].key) == 0)
					break;
			if (i == FT_ARRAY_SIZE(keys)) {
				rc = ft_error_set(err, FT_EPARSE,
						  "%s:%zu:%zu: unknown threshold '%.40s' (expected "
						  "%s)",
						  path, k->start_mark.line + 1,
						  k->start_mark.column + 1, key, names);
				break;
			}
			rc = read_value(path, v, i, (double *)((char *)t + keys[i].off), err);
		}
	}
	yaml_document_delete(&doc);
	ft_strbuf_release(&sb);
	return rc;
}

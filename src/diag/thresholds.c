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
 * 0.85 or "85%", ratios and bit error rates a positive number, durations take seconds or "5min".
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
	.effective_ber_max = 1e-12, /* IBDIAG-BER */
	.raw_ber_max = 1e-6,
	.module_temp_max = 70,
};

void
ft_diag_thresholds_init(struct ft_diag_thresholds *t)
{
	*t = ft__diag_default_thresholds;
}

enum kind { FRACTION, RATE, DURATION, COUNT, POSITIVE };

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
	{ "latency_model_max", POSITIVE, offsetof(struct ft_diag_thresholds, latency_model_max) },
	{ "latency_model_error", POSITIVE, offsetof(struct ft_diag_thresholds, latency_model_error) },
	{ "jitter_max", POSITIVE, offsetof(struct ft_diag_thresholds, jitter_max) },
	{ "jitter_error", POSITIVE, offsetof(struct ft_diag_thresholds, jitter_error) },
	{ "pair_outlier_min", FRACTION, offsetof(struct ft_diag_thresholds, pair_outlier_min) },
	{ "scale_drop_min", FRACTION, offsetof(struct ft_diag_thresholds, scale_drop_min) },
	{ "paused_fraction_error", FRACTION,
	  offsetof(struct ft_diag_thresholds, paused_fraction_error) },
	{ "copy_bw_min", FRACTION, offsetof(struct ft_diag_thresholds, copy_bw_min) },
	{ "lane_error_share_min", FRACTION,
	  offsetof(struct ft_diag_thresholds, lane_error_share_min) },
	{ "effective_ber_max", POSITIVE, offsetof(struct ft_diag_thresholds, effective_ber_max) },
	{ "raw_ber_max", POSITIVE, offsetof(struct ft_diag_thresholds, raw_ber_max) },
	{ "module_temp_max", POSITIVE, offsetof(struct ft_diag_thresholds, module_temp_max) },
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

/* Edit distance of @a and @b, both shorter than 64 bytes (else a large number). */
static size_t
distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev[64], cur[64];

	if (la >= 64 || lb >= 64)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		cur[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (lb + 1) * sizeof(prev[0]));
	}
	return prev[lb];
}

/* How many '_'-separated words of @key are (within a typo) words of @cand. */
static size_t
shared_words(const char *key, const char *cand)
{
	char a[64], b[64];
	char *sa = NULL, *sb, *wa, *wb;
	size_t n = 0;

	if (strlen(key) >= sizeof(a) || strlen(cand) >= sizeof(b))
		return 0;
	memcpy(a, key, strlen(key) + 1);
	for (wa = strtok_r(a, "_", &sa); wa; wa = strtok_r(NULL, "_", &sa)) {
		memcpy(b, cand, strlen(cand) + 1);
		for (wb = strtok_r(b, "_", &sb); wb; wb = strtok_r(NULL, "_", &sb))
			if (distance(wa, wb) <= 1 + strlen(wa) / 5) {
				n++;
				break;
			}
	}
	return n;
}

/*
 * What to say about unknown key @key: the key sharing most of its words
 * (then the nearest), and where every key is listed; the list itself no
 * longer fits in one error message.
 */
static void
key_hint(const char *key, char *buf, size_t n)
{
	size_t i, words = 1, best_w = 0, best_d = SIZE_MAX;
	const char *near = NULL, *p;

	for (p = key; *p; p++)
		words += *p == '_';
	for (i = 0; i < FT_ARRAY_SIZE(keys) && *key; i++) {
		size_t w = shared_words(key, keys[i].key), d = distance(key, keys[i].key);

		if (w > best_w || (w == best_w && w && d < best_d)) {
			best_w = w;
			best_d = d;
			near = keys[i].key;
		}
	}
	if (near && 2 * best_w >= words)
		snprintf(buf, n, "did you mean '%s'? %zu keys, listed in docs/cmd/diagnose.md", near,
			 FT_ARRAY_SIZE(keys));
	else
		snprintf(buf, n,
			 "%zu keys such as utilisation_min and pause_frames_max, listed in "
			 "docs/cmd/diagnose.md",
			 FT_ARRAY_SIZE(keys));
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
	case POSITIVE:
		if (ft_parse_double(s, out) < 0 || !isfinite(*out) || *out <= 0)
			return at(err, path, v, keys[i].key,
				  "expected a positive number like 1.25 or 1e-12", s);
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
	char names[160];
	int rc;

	key_hint("", names, sizeof(names));
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
				key_hint(key, names, sizeof(names));
				rc = ft_error_set(err, FT_EPARSE,
						  "%s:%zu:%zu: unknown threshold '%.40s' (%s)",
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

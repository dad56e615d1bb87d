/* SPDX-License-Identifier: MIT */
/*
 * fabtune/report.h - reports of a run: terminal tables, JSON, CSV, a
 * self-contained HTML page with SVG charts, and the Prometheus text format.
 *
 * A report renders one archived (or exported) run, optionally with the
 * model's expectations, a baseline and the comparison against it. Rendering
 * is pure: the same input gives the same bytes (with stable = true no ids,
 * save times or versions appear), and nothing is printed; the caller writes
 * the buffer where it wants. The HTML page needs no network and no script:
 * inline CSS and SVG drawn here.
 */
#ifndef FABTUNE_REPORT_H
#define FABTUNE_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include <fabtune/archive.h>
#include <fabtune/base.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FT_REPORT_FORMAT_MAP(X) \
	X(TEXT, "text")         \
	X(JSON, "json")         \
	X(CSV, "csv")           \
	X(HTML, "html")         \
	X(PROM, "prom")

enum ft_report_format {
#define FT_REPORT_FORMAT_ENUM_(n, s) FT_REPORT_##n,
	FT_REPORT_FORMAT_MAP(FT_REPORT_FORMAT_ENUM_)
#undef FT_REPORT_FORMAT_ENUM_
	FT_REPORT_FORMAT_COUNT
};

FT_API const char *ft_report_format_name(enum ft_report_format f);
/* FT_EINVAL naming the accepted formats when @name is none of them. */
FT_API int ft_report_format_from_name(const char *name, enum ft_report_format *out,
                                      struct ft_error *err) FT_MUST_CHECK;
/* From a file name's extension (.txt .json .csv .html .htm .prom); FT_EINVAL otherwise. */
FT_API int ft_report_format_from_path(const char *path, enum ft_report_format *out) FT_MUST_CHECK;
/*
 * The format a report is asked in: @name when given (FT_EINVAL otherwise, as
 * ft_report_format_from_name()), else JSON when @json, else from @path's
 * extension, else text.
 */
FT_API int ft_report_format_pick(const char *name, bool json, const char *path,
                                 enum ft_report_format *out, struct ft_error *err) FT_MUST_CHECK;

/* Sections of the text report; 0 means all. */
#define FT_REPORT_SEC_RUN         0x01u /* the run's metadata */
#define FT_REPORT_SEC_RESULTS     0x02u /* result rows */
#define FT_REPORT_SEC_COMPARE     0x04u /* comparison with the baseline, fingerprint changes */
#define FT_REPORT_SEC_FINDINGS    0x08u /* findings with evidence */
#define FT_REPORT_SEC_OBS         0x10u /* observations */
#define FT_REPORT_SEC_FINGERPRINT 0x20u /* the whole fingerprint */

struct ft_report_input {
	const struct ft_archive_record *run;  /* the run reported; required */
	const struct ft_run *expected;        /* the model's expectations, NULL for none */
	const struct ft_run *const *baseline; /* the runs of the baseline, for charts */
	size_t nbaseline;
	const char *baseline_label;               /* "baseline 'default' (3 runs)", NULL */
	const struct ft_compare *cmp;             /* run against baseline, NULL for none */
	const struct ft_fingerprint *baseline_fp; /* to list what changed, NULL for none */
	const char *title;                        /* NULL: derived from the run */
	bool stable;                              /* no ids, save times or versions */
	unsigned sections;                        /* FT_REPORT_SEC_* for text; 0 = all */
	bool color; /* text: ANSI colours for verdicts and severities (a terminal) */
};

/*
 * Append @n bytes of @s for a terminal as ft_strbuf_add_printable() does,
 * but let SGR sequences (ESC [ digits and semicolons m) through: they set
 * colours, as ft_report_verdict_color()'s do, and can neither move the
 * cursor nor rewrite the screen.
 */
FT_API void ft_report_add_printable_sgr(struct ft_strbuf *sb, const char *s, size_t n);
/*
 * Append to @doc the JSON object @json (@len bytes) with the member
 * "schema": @schema first, in the object's own layout: pretty (members on
 * their own lines, two spaces in) or compact. FT_EINVAL when @json is not an
 * object or already starts with a schema (nothing appended), FT_ENOMEM.
 */
FT_API int ft_report_add_schema(struct ft_strbuf *doc, const char *json, size_t len,
                                const char *schema);

/* The ANSI colour of a verdict or a severity in terminal output; "" for none. */
FT_API const char *ft_report_verdict_color(enum ft_verdict v);
FT_API const char *ft_report_severity_color(enum ft_severity s);

/*
 * Render @in in format @f, appending to @out. FT_EINVAL when @in has no run,
 * FT_ENOMEM when the buffer could not grow.
 */
FT_API int ft_report_render(const struct ft_report_input *in, enum ft_report_format f,
                            struct ft_strbuf *out, struct ft_error *err) FT_MUST_CHECK;

/*
 * A probe's observations (struct ft_obs_set) in the Prometheus text format:
 * port counters (InfiniBand, RoCE hw_counters, Ethernet, PFC per priority)
 * as counters named as node_exporter names them with "fabtune_" for
 * "node_", and their rates (from a probe with an interval) as gauges ending
 * in _per_second. Appends to @out; FT_ENOMEM.
 */
FT_API int ft_report_obs_prom(const struct ft_obs_set *set, struct ft_strbuf *out,
                              struct ft_error *err) FT_MUST_CHECK;

/*
 * Conventions the charts read (docs/internals/observations.md):
 * - the pairs heatmap: rows with test "pairs" (src, dst, busbw or algbw), or
 *   observations "bench.pair_bw" (device "a->b", GBps);
 * - link utilization from a simulation: observations "sim.link.util" (num in
 *   [0, 1], device = the link "a->b"), or rows with test "link_util" whose
 *   algbw_GBps is the carried rate and busbw_GBps the link capacity.
 */
#define FT_REPORT_TEST_PAIRS     "pairs"
#define FT_REPORT_TEST_LINK_UTIL "link_util"

#ifdef __cplusplus
}
#endif
#endif

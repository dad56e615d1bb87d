/* SPDX-License-Identifier: MIT */
/*
 * report/report_int.h - what the renderers share: the data prepared for
 * charts and tables (series, the pairs matrix, link utilization), number
 * formatting and escaping.
 */
#ifndef FT_REPORT_INT_H
#define FT_REPORT_INT_H

#include "internal.h"

#include <fabtune/archive.h>
#include <fabtune/report.h>
#include <fabtune/table.h>
#include <fabtune/units.h>
#include <fabtune/version.h>

/* A point of a chart: x = message size in bytes, y = the metric. */
struct rp_point {
	double x, y;
};

/* The metric of a row at byte offset @off (a double field of struct ft_result_row). */
double ft__rp_field(const struct ft_result_row *row, size_t off);

/*
 * Mean of the field at @off per message size over the rows of @runs with
 * test @test and, unless @transport is NULL, that transport. Points are
 * appended to @pts (struct rp_point) sorted by size; NaN values are skipped.
 */
int ft__rp_series(const struct ft_run *const *runs, size_t nruns, const char *test,
                  const char *transport, size_t off, struct ft_vec *pts);

/* True when some row of @run for @test has a finite field at @off. */
bool ft__rp_has(const struct ft_run *run, const char *test, size_t off);

/* Distinct values, in order of first appearance: tests (charts skip pairs and link_util)
 * and the transports of one test. Elements are const char * into the run's rows. */
int ft__rp_tests(const struct ft_run *run, struct ft_vec *out);
int ft__rp_transports(const struct ft_run *run, const char *test, struct ft_vec *out);

/* The pairs matrix: n endpoints sorted by name, values n*n row-major (NaN when absent). */
struct rp_pairs {
	size_t n;
	char (*names)[64];
	double *v;
	const char *metric;   /* "busbw GB/s", "algbw GB/s" or "median latency us" */
	bool lower_is_better; /* latency */
};
/* The bandwidth matrix, or with @latency the median latency matrix, of a run. */
int ft__rp_pairs(const struct ft_archive_record *rec, bool latency, struct rp_pairs *out);
void ft__rp_pairs_release(struct rp_pairs *p);

/* Link utilization, highest first (ties by name). */
struct rp_link {
	char name[132];
	double util;      /* fraction of capacity, [0, 1+] */
	double rate_GBps; /* carried, NaN when unknown */
};
int ft__rp_links(const struct ft_archive_record *rec, struct ft_vec *out);

/*
 * What a simulated run was (the sim.* string observations that fabtune sim
 * --save stores): scenario, engine, routing, its description (pieces
 * joined) and the faults injected. Pointers into the record.
 */
struct rp_twin {
	const char *scenario, *engine, *routing;
	char description[1024];
	const char *faults[32];
	size_t nfaults;
};
/* True when the record is a simulation or a model: its figures are computed, not measured. */
bool ft__rp_is_computed(const struct ft_archive_record *rec);
void ft__rp_twin(const struct ft_archive_record *rec, struct rp_twin *tw);

/* @v (a fraction) as "35%", or "-" when NaN. */
const char *ft__rp_pct_abs(double v, char *buf, size_t len);

/* Findings in report order: by layer, then severity (worst first), then index. */
int ft__rp_findings_sorted(const struct ft_archive_record *rec, struct ft_vec *out /* ptrs */);

/* "12.35", "-" for NaN: fixed decimals for tables. */
const char *ft__rp_num(double v, int decimals, char *buf, size_t len);
/* A relative change as "+4.2%" / "-12.0%", "-" for NaN. */
const char *ft__rp_pct(double v, char *buf, size_t len);
/* Run title: "run 3: bench (bench)" or the input's title. */
void ft__rp_title(const struct ft_report_input *in, char *buf, size_t len);
/* Save time as "2026-11-29 10:35:42 UTC". */
void ft__rp_time(double t, char *buf, size_t len);
/* Comparison rows sorted by key, to find the one of a result row in O(log n). */
struct rp_cmp_index {
	const struct ft_compare_row **v;
	size_t n;
};
int ft__rp_cmp_index(const struct ft_compare *cmp, struct rp_cmp_index *ix);
/* The comparison row matching @row's key, or NULL. */
const struct ft_compare_row *ft__rp_cmp_find(const struct rp_cmp_index *ix,
                                             const struct ft_result_row *row);
void ft__rp_cmp_index_release(struct rp_cmp_index *ix);

/* HTML text escaping (& < > " '). */
void ft__rp_html_escape(struct ft_strbuf *sb, const char *s);
/* An inline chart's <svg> tag, @w by @h pixels, with its <title> (escaped). */
void ft__rp_svg_open(struct ft_strbuf *sb, const char *id, double w, double h,
                     const char *title);

/* The names of the formats (ft__name_read; report.c). */
extern const struct ft__name_set ft__report_formats;

int ft__report_text(const struct ft_report_input *in, struct ft_strbuf *out);
int ft__report_json(const struct ft_report_input *in, struct ft_strbuf *out);
int ft__report_csv(const struct ft_report_input *in, struct ft_strbuf *out);
int ft__report_html(const struct ft_report_input *in, struct ft_strbuf *out);
int ft__report_prom(const struct ft_report_input *in, struct ft_strbuf *out);

/* ---- SVG charts (svg.c) -------------------------------------------------- */

enum rp_style {
	RP_SOLID,
	RP_DASHED,
	RP_DOTTED
};

struct rp_series {
	const char *name;
	const char *color;
	enum rp_style style;
	const struct rp_point *pts;
	size_t n;
};

/*
 * Bars, one per series, for results measured at a single size: a line
 * through one point shows nothing. Each bar is labelled with its value.
 */
void ft__svg_bar_chart(struct ft_strbuf *sb, const char *id, const char *title, const char *ylabel,
                       const struct rp_series *s, size_t ns);

/* A line chart over a log2 size axis; @logy for a log10 y axis. */
void ft__svg_line_chart(struct ft_strbuf *sb, const char *id, const char *title, const char *ylabel,
                        const struct rp_series *s, size_t ns, bool logy);
void ft__svg_heatmap(struct ft_strbuf *sb, const char *id, const struct rp_pairs *p);
/* The "Port traces" section (svg_trace.c): nothing when the run has no sim.trace.*. */
int ft__html_traces(const struct ft_report_input *in, struct ft_strbuf *sb);
void ft__svg_link_bars(struct ft_strbuf *sb, const char *id, const struct rp_link *links, size_t n,
                       size_t total);

#endif

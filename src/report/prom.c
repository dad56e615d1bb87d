/* SPDX-License-Identifier: MIT */
/*
 * report/prom.c - the Prometheus text exposition format (version 0.0.4) for
 * node_exporter's textfile collector.
 *
 * Every family is a gauge in base units (bytes per second, seconds, ratios)
 * with HELP and TYPE lines, written once with all its samples together.
 * Label values escape backslash, double quote and newline; HELP text escapes
 * backslash and newline. A label set appears once per family: repeated rows
 * of one result (same test, transport, size, ranks and pair) are averaged.
 */
#include "report_int.h"

static void
label_value(struct ft_strbuf *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			ft_strbuf_adds(out, "\\\\");
		else if (*s == '"')
			ft_strbuf_adds(out, "\\\"");
		else if (*s == '\n')
			ft_strbuf_adds(out, "\\n");
		else
			ft_strbuf_addch(out, *s);
	}
}

static void
family(struct ft_strbuf *out, const char *name, const char *help)
{
	const char *p;

	ft_strbuf_addf(out, "# HELP %s ", name);
	for (p = help; *p; p++) {
		if (*p == '\\')
			ft_strbuf_adds(out, "\\\\");
		else if (*p == '\n')
			ft_strbuf_adds(out, "\\n");
		else
			ft_strbuf_addch(out, *p);
	}
	ft_strbuf_addf(out, "\n# TYPE %s gauge\n", name);
}

/* Labels as alternating name, value; empty values are left out. */
static void
sample(struct ft_strbuf *out, const char *name, const char *const *labels, size_t nlabels, double v)
{
	bool first = true;
	size_t i;

	ft_strbuf_adds(out, name);
	for (i = 0; i + 1 < nlabels; i += 2) {
		if (!labels[i + 1] || !labels[i + 1][0])
			continue;
		ft_strbuf_addf(out, "%s%s=\"", first ? "{" : ",", labels[i]);
		label_value(out, labels[i + 1]);
		ft_strbuf_addch(out, '"');
		first = false;
	}
	if (!first)
		ft_strbuf_addch(out, '}');
	if (isnan(v))
		ft_strbuf_adds(out, " NaN\n");
	else if (isinf(v))
		ft_strbuf_adds(out, v > 0 ? " +Inf\n" : " -Inf\n");
	else
		ft_strbuf_addf(out, " %.10g\n", v);
}

struct metric {
	const char *name;
	const char *help;
	size_t off;   /* double field of struct ft_result_row */
	double scale; /* to base units */
};

static const struct metric row_metrics[] = {
	{ "fabtune_bus_bandwidth_bytes_per_second",
	  "Bus bandwidth as nccl-tests defines it (algbw times the collective's factor).",
	  offsetof(struct ft_result_row, busbw_GBps), 1e9 },
	{ "fabtune_algorithm_bandwidth_bytes_per_second",
	  "Algorithm bandwidth: message size divided by time.",
	  offsetof(struct ft_result_row, algbw_GBps), 1e9 },
	{ "fabtune_time_seconds", "Time of one operation (out of place).",
	  offsetof(struct ft_result_row, time_us), 1e-6 },
	{ "fabtune_latency_p50_seconds", "Median latency.",
	  offsetof(struct ft_result_row, lat_p50_us), 1e-6 },
	{ "fabtune_latency_p99_seconds", "99th percentile latency.",
	  offsetof(struct ft_result_row, lat_p99_us), 1e-6 },
};

/* A row with its position: sorting by key then position is a total order. */
struct ref {
	const struct ft_result_row *row;
	size_t idx;
};

/* Rows with one key: refs[lo, hi), the first at position @first in the run. */
struct group {
	size_t first, lo, hi;
};

static int
key_cmp(const struct ft_result_row *a, const struct ft_result_row *b)
{
	int c;

	if ((c = strcmp(a->test, b->test)) != 0 || (c = strcmp(a->transport, b->transport)) != 0)
		return c;
	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? -1 : 1;
	if (a->nranks != b->nranks)
		return a->nranks < b->nranks ? -1 : 1;
	if ((c = strcmp(a->src, b->src)) != 0)
		return c;
	return strcmp(a->dst, b->dst);
}

static int
ref_cmp(const void *pa, const void *pb)
{
	const struct ref *a = pa, *b = pb;
	int c = key_cmp(a->row, b->row);

	return c ? c : a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int
group_cmp(const void *pa, const void *pb)
{
	const struct group *a = pa, *b = pb;

	return a->first < b->first ? -1 : a->first > b->first;
}

/*
 * Group the run's rows by key in O(n log n), groups in order of their first
 * row. *@refs and *@groups are freed by the caller.
 */
static int
group_rows(const struct ft_run *run, struct ref **refs, struct group **groups, size_t *ngroups)
{
	size_t n = ft_run_nrows(run), i, g = 0;

	*refs = ft_reallocarray(NULL, n ? n : 1, sizeof(**refs));
	*groups = ft_reallocarray(NULL, n ? n : 1, sizeof(**groups));
	if (!*refs || !*groups)
		return FT_ENOMEM;
	for (i = 0; i < n; i++) {
		(*refs)[i].row = ft_run_row(run, i);
		(*refs)[i].idx = i;
	}
	qsort(*refs, n, sizeof(**refs), ref_cmp);
	for (i = 0; i < n; i++) {
		if (i == 0 || key_cmp((*refs)[i - 1].row, (*refs)[i].row) != 0) {
			(*groups)[g].first = (*refs)[i].idx;
			(*groups)[g].lo = i;
			g++;
		}
		(*groups)[g - 1].hi = i + 1;
	}
	qsort(*groups, g, sizeof(**groups), group_cmp);
	*ngroups = g;
	return 0;
}

static void
row_family(const struct ref *refs, const struct group *groups, size_t ngroups,
           const struct metric *m, const char *run_label, struct ft_strbuf *out)
{
	bool header = false;
	size_t i, k;

	for (i = 0; i < ngroups; i++) {
		const struct ft_result_row *r = refs[groups[i].lo].row;
		char bytes[24], nranks[16];
		double sum = 0;
		size_t n = 0;

		for (k = groups[i].lo; k < groups[i].hi; k++) {
			double v = ft__rp_field(refs[k].row, m->off);

			if (isfinite(v)) {
				sum += v;
				n++;
			}
		}
		if (!n)
			continue;
		if (!header) {
			family(out, m->name, m->help);
			header = true;
		}
		snprintf(bytes, sizeof(bytes), "%" PRIu64, r->bytes);
		snprintf(nranks, sizeof(nranks), "%" PRIu32, r->nranks);
		{
			const char *labels[] = { "run",       run_label,    "test",       r->test,
				                 "transport", r->transport, "size_bytes", bytes,
				                 "nranks",    nranks,       "src",        r->src,
				                 "dst",       r->dst };

			sample(out, m->name, labels, FT_ARRAY_SIZE(labels),
			       sum / (double)n * m->scale);
		}
	}
}

static void
compare_families(const struct ft_report_input *in, const char *run_label, struct ft_strbuf *out)
{
	const struct ft_compare *c = in->cmp;
	size_t i;

	family(out, "fabtune_compare_results",
	       "Results of the comparison with the baseline, by verdict.");
	for (i = 0; i < FT_VERDICT_COUNT; i++) {
		const char *labels[] = { "run", run_label, "verdict",
			                 ft_verdict_name((enum ft_verdict)i) };

		sample(out, "fabtune_compare_results", labels, FT_ARRAY_SIZE(labels),
		       (double)c->count[i]);
	}
	family(out, "fabtune_compare_change_ratio",
	       "Relative change of each result against the baseline mean (positive = higher).");
	for (i = 0; i < c->rows.len; i++) {
		const struct ft_compare_row *r = ft_vec_at(&c->rows, i);
		char bytes[24], nranks[16];
		const char *labels[] = { "run",        run_label,   "test",
			                 r->test,      "transport", r->transport,
			                 "size_bytes", bytes,       "nranks",
			                 nranks,       "src",       r->src,
			                 "dst",        r->dst,      "metric",
			                 r->metric,    "verdict",   ft_verdict_name(r->verdict) };

		if (!isfinite(r->delta_rel))
			continue;
		snprintf(bytes, sizeof(bytes), "%" PRIu64, r->bytes);
		snprintf(nranks, sizeof(nranks), "%" PRIu32, r->nranks);
		sample(out, "fabtune_compare_change_ratio", labels, FT_ARRAY_SIZE(labels),
		       r->delta_rel);
	}
}

int
ft__report_prom(const struct ft_report_input *in, struct ft_strbuf *out)
{
	const struct ft_archive_record *rec = in->run;
	struct ft_vec links;
	char run_label[24] = "";
	size_t i;
	int rc;

	if (rec->info.id > 0)
		snprintf(run_label, sizeof(run_label), "%" PRId64, rec->info.id);
	family(out, "fabtune_run_info", "The run reported; always 1.");
	{
		const char *labels[] = { "run",         run_label,
			                 "source",      ft_source_name(rec->run.source),
			                 "kind",        rec->run.kind,
			                 "host",        rec->info.host,
			                 "fingerprint", rec->info.fp_digest };

		sample(out, "fabtune_run_info", labels, FT_ARRAY_SIZE(labels), 1);
	}
	if (!in->stable && rec->info.created_s > 0) {
		const char *labels[] = { "run", run_label };

		family(out, "fabtune_run_saved_timestamp_seconds",
		       "When the run was saved to the archive, Unix time.");
		sample(out, "fabtune_run_saved_timestamp_seconds", labels, 2, rec->info.created_s);
	}
	{
		struct ref *refs = NULL;
		struct group *groups = NULL;
		size_t ngroups = 0;

		rc = group_rows(&rec->run, &refs, &groups, &ngroups);
		for (i = 0; rc == 0 && i < FT_ARRAY_SIZE(row_metrics); i++)
			row_family(refs, groups, ngroups, &row_metrics[i], run_label, out);
		ft_free(refs);
		ft_free(groups);
		if (rc < 0)
			return rc;
	}

	ft_vec_init(&links, sizeof(struct rp_link));
	rc = ft__rp_links(rec, &links);
	if (rc < 0)
		return rc;
	if (links.len)
		family(out, "fabtune_link_utilization_ratio",
		       "Utilization of a fabric link in a simulation, fraction of its capacity.");
	for (i = 0; i < links.len; i++) {
		const struct rp_link *l = ft_vec_at(&links, i);
		const char *labels[] = { "run", run_label, "link", l->name };

		sample(out, "fabtune_link_utilization_ratio", labels, 4, l->util);
	}
	ft_vec_release(&links);

	family(out, "fabtune_findings", "Findings of the diagnosis, by layer and severity.");
	for (i = 0; i < (size_t)FT_LAYER_COUNT * FT_SEV_COUNT; i++) {
		enum ft_layer layer = (enum ft_layer)(i / FT_SEV_COUNT);
		enum ft_severity sev = (enum ft_severity)(i % FT_SEV_COUNT);
		const char *labels[] = { "run",      run_label,
			                 "layer",    ft_layer_name(layer),
			                 "severity", ft_severity_name(sev) };
		size_t k, n = 0;

		for (k = 0; k < rec->findings.len; k++) {
			const struct ft_finding *f = ft_vec_at(&rec->findings, k);

			n += f->layer == layer && f->severity == sev;
		}
		sample(out, "fabtune_findings", labels, FT_ARRAY_SIZE(labels), (double)n);
	}
	if (in->cmp)
		compare_families(in, run_label, out);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * report/prom.c - the Prometheus text exposition format (version 0.0.4) for
 * node_exporter's textfile collector.
 *
 * Every family is in base units (bytes per second, seconds, ratios) with
 * HELP and TYPE lines, written once with all its samples together. Label
 * values escape backslash, double quote and newline; HELP text escapes
 * backslash and newline.
 *
 * Label sets are stable from run to run, so that a series is one result
 * over time and cardinality is bounded by what is measured, not by how
 * often: host, transport, test, op, dtype, size and ranks. No run id and
 * no verdict is a label (a run id makes a new series per run; a verdict
 * moves a series between label sets); the run id and the verdicts are
 * values. Rows of one result on several pairs are averaged. Bandwidth
 * families carry bandwidth tests only; latency tests are one summary,
 * fabtune_latency_seconds, with quantile labels (0.5, 0.99, 0.999) and its
 * _sum and _count from the mean and the number of samples.
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
family_typed(struct ft_strbuf *out, const char *name, const char *help, const char *type)
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
	ft_strbuf_addf(out, "\n# TYPE %s %s\n", name, type);
}

static void
family(struct ft_strbuf *out, const char *name, const char *help)
{
	family_typed(out, name, help, "gauge");
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

/* Bandwidth and time families: results of bandwidth tests (not latency tests). */
static const struct metric row_metrics[] = {
	{ "fabtune_bus_bandwidth_bytes_per_second",
	  "Bus bandwidth as nccl-tests defines it (algbw times the collective's factor).",
	  offsetof(struct ft_result_row, busbw_GBps), 1e9 },
	{ "fabtune_algorithm_bandwidth_bytes_per_second",
	  "Algorithm bandwidth: message size divided by time.",
	  offsetof(struct ft_result_row, algbw_GBps), 1e9 },
	{ "fabtune_time_seconds", "Time of one operation (out of place).",
	  offsetof(struct ft_result_row, time_us), 1e-6 },
};

/* The quantiles of fabtune_latency_seconds. */
static const struct {
	const char *q;
	size_t off;
} lat_quantiles[] = {
	{ "0.5", offsetof(struct ft_result_row, lat_p50_us) },
	{ "0.99", offsetof(struct ft_result_row, lat_p99_us) },
	{ "0.999", offsetof(struct ft_result_row, lat_p999_us) },
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

	if ((c = strcmp(a->test, b->test)) != 0 || (c = strcmp(a->transport, b->transport)) != 0 ||
	    (c = strcmp(a->redop, b->redop)) != 0 || (c = strcmp(a->dtype, b->dtype)) != 0)
		return c;
	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? -1 : 1;
	if (a->nranks != b->nranks)
		return a->nranks < b->nranks ? -1 : 1;
	return 0;
}

/* The stable labels of a result: host, transport, test, op, dtype, size, ranks. */
struct row_labels {
	char size[24], ranks[16];
	const char *v[14];
};

static void
row_labels(struct row_labels *l, const char *host, const struct ft_result_row *r)
{
	snprintf(l->size, sizeof(l->size), "%" PRIu64, r->bytes);
	snprintf(l->ranks, sizeof(l->ranks), "%" PRIu32, r->nranks);
	l->v[0] = "host", l->v[1] = host;
	l->v[2] = "transport", l->v[3] = r->transport;
	l->v[4] = "test", l->v[5] = r->test;
	l->v[6] = "op", l->v[7] = strcmp(r->redop, "none") == 0 ? "" : r->redop;
	l->v[8] = "dtype", l->v[9] = r->dtype;
	l->v[10] = "size", l->v[11] = l->size;
	l->v[12] = "ranks", l->v[13] = l->ranks;
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

/* Mean of the finite values at @off over a group; NaN when none. */
static double
group_mean(const struct ref *refs, const struct group *g, size_t off)
{
	double sum = 0;
	size_t n = 0;

	for (size_t k = g->lo; k < g->hi; k++) {
		double v = ft__rp_field(refs[k].row, off);

		if (isfinite(v)) {
			sum += v;
			n++;
		}
	}
	return n ? sum / (double)n : NAN;
}

static void
row_family(const struct ref *refs, const struct group *groups, size_t ngroups,
           const struct metric *m, const char *host, struct ft_strbuf *out)
{
	bool header = false;
	size_t i, k;

	for (i = 0; i < ngroups; i++) {
		const struct ft_result_row *r = refs[groups[i].lo].row;
		struct row_labels l;
		double sum = 0;
		size_t n = 0;

		if (ft_result_row_is_latency(r))
			continue;
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
		row_labels(&l, host, r);
		sample(out, m->name, l.v, FT_ARRAY_SIZE(l.v), sum / (double)n * m->scale);
	}
}

/* Latency tests: one summary with quantiles, _sum and _count. */
static void
latency_family(const struct ref *refs, const struct group *groups, size_t ngroups,
               const char *host, struct ft_strbuf *out)
{
	static const char name[] = "fabtune_latency_seconds";
	bool header = false;

	for (size_t i = 0; i < ngroups; i++) {
		const struct ft_result_row *r = refs[groups[i].lo].row;
		double avg = group_mean(refs, &groups[i], offsetof(struct ft_result_row, lat_avg_us));
		struct row_labels l;
		const char *ql[16];
		size_t k;

		if (!ft_result_row_is_latency(r))
			continue;
		if (!header) {
			family_typed(out, name,
			             "One-way latency of a latency test, by quantile (ping-pong: half "
			             "the round trip).",
			             "summary");
			header = true;
		}
		row_labels(&l, host, r);
		memcpy(ql, l.v, sizeof(l.v));
		ql[14] = "quantile";
		for (k = 0; k < FT_ARRAY_SIZE(lat_quantiles); k++) {
			double v = group_mean(refs, &groups[i], lat_quantiles[k].off);

			if (!isfinite(v))
				continue;
			ql[15] = lat_quantiles[k].q;
			sample(out, name, ql, FT_ARRAY_SIZE(ql), v * 1e-6);
		}
		if (isfinite(avg) && r->nsamples > 0) {
			sample(out, "fabtune_latency_seconds_sum", l.v, FT_ARRAY_SIZE(l.v),
			       avg * 1e-6 * r->nsamples);
			sample(out, "fabtune_latency_seconds_count", l.v, FT_ARRAY_SIZE(l.v),
			       (double)r->nsamples);
		}
	}
}

/*
 * The comparison: counts by verdict (a bounded label: five values), and per
 * result the change and whether it regressed, as values. A result compared
 * on several pairs gives its first pair's figures (pairs are not labels).
 */
static void
compare_families(const struct ft_report_input *in, const char *host, struct ft_strbuf *out)
{
	static const char *const fams[2][2] = {
		{ "fabtune_compare_change_ratio",
		  "Relative change of each result against the baseline mean, in the direction of "
		  "its metric's value (positive = higher)." },
		{ "fabtune_compare_regressed",
		  "1 when the result regressed against the baseline beyond its noise band, else 0." },
	};
	const struct ft_compare *c = in->cmp;
	size_t i, f;

	family(out, "fabtune_compare_results",
	       "Results of the comparison with the baseline, by verdict.");
	for (i = 0; i < FT_VERDICT_COUNT; i++) {
		const char *labels[] = { "host", host, "verdict", ft_verdict_name((enum ft_verdict)i) };

		sample(out, "fabtune_compare_results", labels, FT_ARRAY_SIZE(labels),
		       (double)c->count[i]);
	}
	family(out, "fabtune_compare_incomplete",
	       "1 when nothing or too little of the baseline matched (exit code 4), else 0.");
	{
		const char *labels[] = { "host", host };

		sample(out, "fabtune_compare_incomplete", labels, 2,
		       ft_compare_is_incomplete(c) ? 1 : 0);
	}
	for (f = 0; f < 2; f++) {
		family(out, fams[f][0], fams[f][1]);
		for (i = 0; i < c->rows.len; i++) {
			const struct ft_compare_row *r = ft_vec_at(&c->rows, i);
			struct ft_result_row key;
			struct row_labels l;
			size_t k;
			bool dup = false;

			if (!isfinite(r->delta_rel))
				continue;
			for (k = 0; k < i && !dup; k++) {
				const struct ft_compare_row *p = ft_vec_at(&c->rows, k);

				dup = isfinite(p->delta_rel) && strcmp(p->test, r->test) == 0 &&
				      strcmp(p->transport, r->transport) == 0 &&
				      strcmp(p->redop, r->redop) == 0 &&
				      strcmp(p->dtype, r->dtype) == 0 && p->bytes == r->bytes &&
				      p->nranks == r->nranks;
			}
			if (dup)
				continue;
			ft_result_row_init(&key);
			ft_strlcpy(key.test, r->test, sizeof(key.test));
			ft_strlcpy(key.transport, r->transport, sizeof(key.transport));
			ft_strlcpy(key.redop, r->redop, sizeof(key.redop));
			ft_strlcpy(key.dtype, r->dtype, sizeof(key.dtype));
			key.bytes = r->bytes;
			key.nranks = r->nranks;
			row_labels(&l, host, &key);
			sample(out, fams[f][0], l.v, FT_ARRAY_SIZE(l.v),
			       f == 0 ? r->delta_rel : r->verdict == FT_VERDICT_REGRESSED);
		}
	}
}

int
ft__report_prom(const struct ft_report_input *in, struct ft_strbuf *out)
{
	const struct ft_archive_record *rec = in->run;
	const char *host = rec->info.host;
	const char *id_labels[] = { "host", host, "source", ft_source_name(rec->run.source),
		                    "kind", rec->run.kind };
	struct ft_vec links;
	size_t i;
	int rc;

	/* which run: values of series whose labels do not change from run to run */
	family(out, "fabtune_run_info", "The run reported; always 1.");
	sample(out, "fabtune_run_info", id_labels, FT_ARRAY_SIZE(id_labels), 1);
	if (!in->stable && rec->info.id > 0) {
		family(out, "fabtune_run_id", "Archive id of the run reported.");
		sample(out, "fabtune_run_id", id_labels, FT_ARRAY_SIZE(id_labels),
		       (double)rec->info.id);
	}
	if (!in->stable && rec->run.started_s > 0) {
		family(out, "fabtune_run_start_timestamp_seconds",
		       "When the run started, Unix time (wall clock).");
		sample(out, "fabtune_run_start_timestamp_seconds", id_labels,
		       FT_ARRAY_SIZE(id_labels), rec->run.started_s);
	}
	if (!in->stable && isfinite(rec->run.host_busy)) {
		family(out, "fabtune_run_host_cpu_busy_ratio",
		       "Fraction of the host's CPU time that was busy during the run.");
		sample(out, "fabtune_run_host_cpu_busy_ratio", id_labels, FT_ARRAY_SIZE(id_labels),
		       rec->run.host_busy);
	}
	{
		struct ref *refs = NULL;
		struct group *groups = NULL;
		size_t ngroups = 0;

		rc = group_rows(&rec->run, &refs, &groups, &ngroups);
		for (i = 0; rc == 0 && i < FT_ARRAY_SIZE(row_metrics); i++)
			row_family(refs, groups, ngroups, &row_metrics[i], host, out);
		if (rc == 0)
			latency_family(refs, groups, ngroups, host, out);
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
		const char *labels[] = { "host", host, "link", l->name };

		sample(out, "fabtune_link_utilization_ratio", labels, 4, l->util);
	}
	ft_vec_release(&links);

	family(out, "fabtune_findings", "Findings of the diagnosis, by layer and severity.");
	for (i = 0; i < (size_t)FT_LAYER_COUNT * FT_SEV_COUNT; i++) {
		enum ft_layer layer = (enum ft_layer)(i / FT_SEV_COUNT);
		enum ft_severity sev = (enum ft_severity)(i % FT_SEV_COUNT);
		const char *labels[] = { "host",     host,
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
		compare_families(in, host, out);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * report/report.c - format names, the renderer dispatch, and the data that
 * every renderer shares: chart series, the pairs matrix, link utilization,
 * the order of findings, and number formatting.
 */
#include "report_int.h"

#include <strings.h>

FT__NAME_TABLE(format_names, FT_REPORT_FORMAT_MAP, FT_REPORT_FORMAT_COUNT);
FT__NAME_SET(ft__report_formats, format_names);

const char *
ft_report_format_name(enum ft_report_format f)
{
	return (unsigned)f < FT_REPORT_FORMAT_COUNT ? format_names[f] : "unknown";
}

int
ft_report_format_from_name(const char *name, enum ft_report_format *out, struct ft_error *err)
{
	int v, rc = ft__name_read(&ft__report_formats, "format", name, -1, &v, err);

	if (rc == 0)
		*out = (enum ft_report_format)v;
	return rc;
}

int
ft_report_format_from_path(const char *path, enum ft_report_format *out)
{
	static const struct {
		const char *ext;
		enum ft_report_format f;
	} exts[] = {
		{ ".txt", FT_REPORT_TEXT }, { ".json", FT_REPORT_JSON },
		{ ".csv", FT_REPORT_CSV },  { ".html", FT_REPORT_HTML },
		{ ".htm", FT_REPORT_HTML }, { ".prom", FT_REPORT_PROM },
	};
	const char *dot = path ? strrchr(path, '.') : NULL;
	size_t i;

	for (i = 0; dot && i < FT_ARRAY_SIZE(exts); i++) {
		if (strcasecmp(dot, exts[i].ext) == 0) {
			*out = exts[i].f;
			return 0;
		}
	}
	return FT_EINVAL;
}

/* The writer of each format. */
static int (*const writers[])(const struct ft_report_input *in, struct ft_strbuf *out) = {
	[FT_REPORT_TEXT] = ft__report_text, [FT_REPORT_JSON] = ft__report_json,
	[FT_REPORT_CSV] = ft__report_csv,   [FT_REPORT_HTML] = ft__report_html,
	[FT_REPORT_PROM] = ft__report_prom,
};
_Static_assert(FT_ARRAY_SIZE(writers) == FT_REPORT_FORMAT_COUNT, "a writer per format");

int
ft_report_format_pick(const char *name, bool json, const char *path,
                      enum ft_report_format *out, struct ft_error *err)
{
	if (name)
		return ft_report_format_from_name(name, out, err);
	if (json)
		*out = FT_REPORT_JSON;
	else if (!path || ft_report_format_from_path(path, out) < 0)
		*out = FT_REPORT_TEXT;
	return 0;
}

int
ft_report_render(const struct ft_report_input *in, enum ft_report_format f, struct ft_strbuf *out,
                 struct ft_error *err)
{
	int rc;

	if (!in || !in->run)
		return ft_error_set(err, FT_EINVAL, "report: no run to report");
	if ((unsigned)f >= FT_REPORT_FORMAT_COUNT)
		return ft_error_set(err, FT_EINVAL, "report: unknown format %d", (int)f);
	rc = writers[f](in, out);
	if (rc == 0 && out->oom)
		rc = FT_ENOMEM;
	if (rc < 0)
		return ft_error_set(err, rc, "report: %s", ft_strerror(rc));
	return 0;
}

/* ---- series -------------------------------------------------------------- */

double
ft__rp_field(const struct ft_result_row *row, size_t off)
{
	double v;

	memcpy(&v, (const char *)row + off, sizeof(v));
	return v;
}

static int
point_cmp(const void *pa, const void *pb)
{
	const struct rp_point *a = pa, *b = pb;

	return a->x < b->x ? -1 : a->x > b->x;
}

int
ft__rp_series(const struct ft_run *const *runs, size_t nruns, const char *test,
              const char *transport, size_t off, struct ft_vec *pts)
{
	struct ft_vec raw;
	size_t i, k;
	int rc = 0;

	ft_vec_init(&raw, sizeof(struct rp_point));
	for (i = 0; rc == 0 && i < nruns; i++) {
		for (k = 0; rc == 0 && k < ft_run_nrows(runs[i]); k++) {
			const struct ft_result_row *r = ft_run_row(runs[i], k);
			struct rp_point p = { (double)r->bytes, ft__rp_field(r, off) };

			if (strcmp(r->test, test) != 0 || r->bytes == 0 || !isfinite(p.y) ||
			    (transport && strcmp(r->transport, transport) != 0))
				continue;
			rc = ft_vec_push(&raw, &p);
		}
	}
	/* A stable sort is not needed: equal sizes are averaged in a fixed order. */
	if (rc == 0 && raw.len)
		qsort(raw.data, raw.len, sizeof(struct rp_point), point_cmp);
	for (i = 0; rc == 0 && i < raw.len;) {
		const struct rp_point *p = ft_vec_at(&raw, i);
		struct rp_point m = { p->x, 0 };
		size_t n = 0;

		for (k = i; k < raw.len && FT_VEC_AT(&raw, struct rp_point, k).x == p->x; k++) {
			m.y += FT_VEC_AT(&raw, struct rp_point, k).y;
			n++;
		}
		m.y /= (double)n;
		rc = ft_vec_push(pts, &m);
		i = k;
	}
	ft_vec_release(&raw);
	return rc;
}

bool
ft__rp_has(const struct ft_run *run, const char *test, size_t off)
{
	size_t i;

	for (i = 0; i < ft_run_nrows(run); i++)
		if (strcmp(ft_run_row(run, i)->test, test) == 0 &&
		    isfinite(ft__rp_field(ft_run_row(run, i), off)))
			return true;
	return false;
}

static int
push_distinct(struct ft_vec *out, const char *s)
{
	size_t i;

	for (i = 0; i < out->len; i++)
		if (strcmp(FT_VEC_AT(out, const char *, i), s) == 0)
			return 0;
	return ft_vec_push(out, &s);
}

int
ft__rp_tests(const struct ft_run *run, struct ft_vec *out)
{
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < ft_run_nrows(run); i++) {
		const char *t = ft_run_row(run, i)->test;

		if (strcmp(t, FT_REPORT_TEST_PAIRS) != 0 &&
		    strcmp(t, FT_REPORT_TEST_LINK_UTIL) != 0)
			rc = push_distinct(out, t);
	}
	return rc;
}

int
ft__rp_transports(const struct ft_run *run, const char *test, struct ft_vec *out)
{
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < ft_run_nrows(run); i++)
		if (strcmp(ft_run_row(run, i)->test, test) == 0)
			rc = push_distinct(out, ft_run_row(run, i)->transport);
	return rc;
}

/* ---- pairs matrix -------------------------------------------------------- */

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

static size_t
name_index(const struct rp_pairs *p, const char *name)
{
	char(*hit)[64] = bsearch(name, p->names, p->n, sizeof(*p->names), name_cmp);

	return hit ? (size_t)(hit - p->names) : SIZE_MAX;
}

/* One pair value: from a "pairs" row, or a bench.pair_bw observation "a->b". */
struct pair {
	char a[64], b[64];
	double v;
};

static int
collect_pairs(const struct ft_archive_record *rec, bool latency, struct ft_vec *pairs,
              bool *busbw)
{
	size_t i;
	int rc = 0;

	*busbw = false;
	for (i = 0; i < ft_run_nrows(&rec->run); i++) {
		const struct ft_result_row *r = ft_run_row(&rec->run, i);

		if (strcmp(r->test, FT_REPORT_TEST_PAIRS) == 0 && isfinite(r->busbw_GBps))
			*busbw = true;
	}
	for (i = 0; rc == 0 && i < ft_run_nrows(&rec->run); i++) {
		const struct ft_result_row *r = ft_run_row(&rec->run, i);
		struct pair p;

		if (strcmp(r->test, FT_REPORT_TEST_PAIRS) != 0 || !r->src[0] || !r->dst[0])
			continue;
		ft_strlcpy(p.a, r->src, sizeof(p.a));
		ft_strlcpy(p.b, r->dst, sizeof(p.b));
		p.v = latency ? r->lat_p50_us : *busbw ? r->busbw_GBps : r->algbw_GBps;
		if (isfinite(p.v) && (!latency || p.v > 0))
			rc = ft_vec_push(pairs, &p);
	}
	if (pairs->len || latency)
		return rc;
	for (i = 0; rc == 0 && i < ft_obs_set_len(&rec->obs); i++) {
		const struct ft_obs *o = ft_obs_set_at(&rec->obs, i);
		const char *arrow = strstr(o->device, "->");
		struct pair p;

		if (strcmp(o->key, "bench.pair_bw") != 0 || !o->has_num || !arrow ||
		    arrow == o->device || !arrow[2])
			continue;
		ft_strlcpy(p.a, o->device, FT_MIN(sizeof(p.a), (size_t)(arrow - o->device) + 1));
		ft_strlcpy(p.b, arrow + 2, sizeof(p.b));
		p.v = o->num;
		rc = ft_vec_push(pairs, &p);
	}
	return rc;
}

int
ft__rp_pairs(const struct ft_archive_record *rec, bool latency, struct rp_pairs *out)
{
	struct ft_vec pairs;
	size_t i, n = 0;
	bool busbw;
	int rc;

	memset(out, 0, sizeof(*out));
	ft_vec_init(&pairs, sizeof(struct pair));
	rc = collect_pairs(rec, latency, &pairs, &busbw);
	if (rc < 0 || pairs.len == 0)
		goto out;
	out->names = ft_reallocarray(NULL, 2 * pairs.len, sizeof(*out->names));
	if (!out->names) {
		rc = FT_ENOMEM;
		goto out;
	}
	for (i = 0; i < pairs.len; i++) {
		const struct pair *p = ft_vec_at(&pairs, i);

		memcpy(out->names[n++], p->a, sizeof(p->a));
		memcpy(out->names[n++], p->b, sizeof(p->b));
	}
	qsort(out->names, n, sizeof(*out->names), name_cmp);
	out->n = 0;
	for (i = 0; i < n; i++)
		if (out->n == 0 || strcmp(out->names[out->n - 1], out->names[i]) != 0)
			memmove(out->names[out->n++], out->names[i], sizeof(*out->names));
	out->v = ft_reallocarray(NULL, out->n * out->n, sizeof(double));
	if (!out->v) {
		rc = FT_ENOMEM;
		goto out;
	}
	for (i = 0; i < out->n * out->n; i++)
		out->v[i] = NAN;
	for (i = 0; i < pairs.len; i++) {
		const struct pair *p = ft_vec_at(&pairs, i);

		out->v[name_index(out, p->a) * out->n + name_index(out, p->b)] = p->v;
	}
	out->metric = latency ? "median latency us" : busbw ? "busbw GB/s" : "algbw GB/s";
	out->lower_is_better = latency;
out:
	ft_vec_release(&pairs);
	if (rc < 0)
		ft__rp_pairs_release(out);
	return rc;
}

void
ft__rp_pairs_release(struct rp_pairs *p)
{
	ft_free(p->names);
	ft_free(p->v);
	memset(p, 0, sizeof(*p));
}

/* ---- link utilization ---------------------------------------------------- */

static int
link_cmp(const void *pa, const void *pb)
{
	const struct rp_link *a = pa, *b = pb;

	if (a->util != b->util)
		return a->util > b->util ? -1 : 1;
	return strcmp(a->name, b->name);
}

int
ft__rp_links(const struct ft_archive_record *rec, struct ft_vec *out)
{
	size_t i, k;
	int rc = 0;

	for (i = 0; rc == 0 && i < ft_run_nrows(&rec->run); i++) {
		const struct ft_result_row *r = ft_run_row(&rec->run, i);
		struct rp_link l;

		if (strcmp(r->test, FT_REPORT_TEST_LINK_UTIL) != 0 || !(r->busbw_GBps > 0) ||
		    !isfinite(r->algbw_GBps))
			continue;
		snprintf(l.name, sizeof(l.name), "%s->%s", r->src, r->dst);
		l.util = r->algbw_GBps / r->busbw_GBps;
		l.rate_GBps = r->algbw_GBps;
		rc = ft_vec_push(out, &l);
	}
	for (i = 0; rc == 0 && i < ft_obs_set_len(&rec->obs); i++) {
		const struct ft_obs *o = ft_obs_set_at(&rec->obs, i);
		struct rp_link l;

		if (strcmp(o->key, "sim.link.util") != 0 || !o->has_num || !isfinite(o->num))
			continue;
		ft_strlcpy(l.name, o->device[0] ? o->device : o->host, sizeof(l.name));
		l.util = o->num;
		l.rate_GBps = NAN;
		/* A sim.link.rate observation of the same link gives the carried rate. */
		for (k = 0; k < ft_obs_set_len(&rec->obs); k++) {
			const struct ft_obs *q = ft_obs_set_at(&rec->obs, k);

			if (strcmp(q->key, "sim.link.rate") == 0 && q->has_num &&
			    strcmp(q->device, o->device) == 0 && strcmp(q->host, o->host) == 0)
				l.rate_GBps = q->num;
		}
		rc = ft_vec_push(out, &l);
	}
	if (rc == 0 && out->len)
		qsort(out->data, out->len, sizeof(struct rp_link), link_cmp);
	return rc;
}

/* ---- findings ------------------------------------------------------------ */

int
ft__rp_findings_sorted(const struct ft_archive_record *rec, struct ft_vec *out)
{
	int layer, sev;
	size_t i;
	int rc = 0;

	for (layer = 0; layer < FT_LAYER_COUNT; layer++)
		for (sev = FT_SEV_COUNT - 1; sev >= 0; sev--)
			for (i = 0; rc == 0 && i < rec->findings.len; i++) {
				const struct ft_finding *f = ft_vec_at(&rec->findings, i);

				if ((int)f->layer == layer && (int)f->severity == sev)
					rc = ft_vec_push(out, &f);
			}
	return rc;
}

/* ---- formatting ---------------------------------------------------------- */

const char *
ft__rp_num(double v, int decimals, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*f", decimals, v);
	return buf;
}

const char *
ft__rp_pct(double v, char *buf, size_t len)
{
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f%%", v * 100.0);
	return buf;
}

void
ft__rp_title(const struct ft_report_input *in, char *buf, size_t len)
{
	const struct ft_archive_record *r = in->run;

	if (in->title && in->title[0])
		ft_strlcpy(buf, in->title, len);
	else if (r->info.id > 0)
		snprintf(buf, len, "run %" PRId64 ": %s (%s)", r->info.id, r->run.kind,
		         ft_source_name(r->run.source));
	else
		snprintf(buf, len, "run: %s (%s)", r->run.kind, ft_source_name(r->run.source));
}

void
ft__rp_time(double t, char *buf, size_t len)
{
	time_t secs = (time_t)t;
	struct tm tm;

	if (t <= 0 || !gmtime_r(&secs, &tm)) {
		snprintf(buf, len, "-");
		return;
	}
	strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

static int
cmp_key(const struct ft_compare_row *c, const struct ft_result_row *r)
{
	int d;

	if ((d = strcmp(c->test, r->test)) != 0 || (d = strcmp(c->redop, r->redop)) != 0 ||
	    (d = strcmp(c->dtype, r->dtype)) != 0 || (d = strcmp(c->transport, r->transport)) != 0)
		return d;
	if (c->bytes != r->bytes)
		return c->bytes < r->bytes ? -1 : 1;
	if (c->nranks != r->nranks)
		return c->nranks < r->nranks ? -1 : 1;
	if ((d = strcmp(c->src, r->src)) != 0)
		return d;
	return strcmp(c->dst, r->dst);
}

static int
cmp_row_cmp(const void *pa, const void *pb)
{
	const struct ft_compare_row *a = *(const struct ft_compare_row *const *)pa;
	const struct ft_compare_row *b = *(const struct ft_compare_row *const *)pb;
	struct ft_result_row key;

	ft_result_row_init(&key);
	ft_strlcpy(key.test, b->test, sizeof(key.test));
	ft_strlcpy(key.transport, b->transport, sizeof(key.transport));
	ft_strlcpy(key.redop, b->redop, sizeof(key.redop));
	ft_strlcpy(key.dtype, b->dtype, sizeof(key.dtype));
	key.bytes = b->bytes;
	key.nranks = b->nranks;
	ft_strlcpy(key.src, b->src, sizeof(key.src));
	ft_strlcpy(key.dst, b->dst, sizeof(key.dst));
	return cmp_key(a, &key);
}

int
ft__rp_cmp_index(const struct ft_compare *cmp, struct rp_cmp_index *ix)
{
	size_t i;

	ix->n = cmp ? cmp->rows.len : 0;
	ix->v = ft_reallocarray(NULL, ix->n ? ix->n : 1, sizeof(*ix->v));
	if (!ix->v)
		return FT_ENOMEM;
	for (i = 0; i < ix->n; i++)
		ix->v[i] = ft_vec_at(&cmp->rows, i);
	qsort(ix->v, ix->n, sizeof(*ix->v), cmp_row_cmp);
	return 0;
}

const struct ft_compare_row *
ft__rp_cmp_find(const struct rp_cmp_index *ix, const struct ft_result_row *row)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_key(ix->v[mid], row);

		if (c == 0)
			return ix->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void
ft__rp_cmp_index_release(struct rp_cmp_index *ix)
{
	ft_free(ix->v);
	ix->v = NULL;
	ix->n = 0;
}

void
ft__rp_svg_open(struct ft_strbuf *sb, const char *id, double w, double h, const char *title)
{
	ft_strbuf_addf(sb,
	               "<svg id=\"%s\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
	               "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n",
	               id, w, h, w, h);
	ft_strbuf_adds(sb, "<title>");
	ft__rp_html_escape(sb, title);
	ft_strbuf_adds(sb, "</title>\n");
}

/* The characters HTML text and attribute values write as references. */
static const char *const html_refs[0x80] = {
	['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;", ['\''] = "&#39;",
};

void
ft__rp_html_escape(struct ft_strbuf *sb, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x80 && html_refs[c])
			ft_strbuf_adds(sb, html_refs[c]);
		else
			ft_strbuf_addch(sb, *s);
	}
}

const char *
ft_report_verdict_color(enum ft_verdict v)
{
	switch (v) {
	case FT_VERDICT_REGRESSED:
		return FT_ANSI_BOLD_RED;
	case FT_VERDICT_IMPROVED:
		return FT_ANSI_GREEN;
	case FT_VERDICT_MISSING:
	case FT_VERDICT_NEW:
		return FT_ANSI_YELLOW;
	default:
		return "";
	}
}

const char *
ft_report_severity_color(enum ft_severity s)
{
	switch (s) {
	case FT_SEV_CRITICAL:
		return FT_ANSI_BOLD_RED;
	case FT_SEV_ERROR:
		return FT_ANSI_RED;
	case FT_SEV_WARNING:
		return FT_ANSI_YELLOW;
	case FT_SEV_INFO:
		return FT_ANSI_CYAN;
	default:
		return "";
	}
}

bool
ft__rp_is_computed(const struct ft_archive_record *rec)
{
	return rec->run.source == FT_SOURCE_SIM || rec->run.source == FT_SOURCE_MODEL;
}

void
ft__rp_twin(const struct ft_archive_record *rec, struct rp_twin *tw)
{
	size_t i, n = 0;

	memset(tw, 0, sizeof(*tw));
	for (i = 0; i < ft_obs_set_len(&rec->obs); i++) {
		const struct ft_obs *o = ft_obs_set_at(&rec->obs, i);

		if (strncmp(o->key, "sim.", 4) != 0 || !o->str[0])
			continue;
		if (strcmp(o->key, "sim.scenario") == 0)
			tw->scenario = o->str;
		else if (strcmp(o->key, "sim.engine") == 0)
			tw->engine = o->str;
		else if (strcmp(o->key, "sim.routing") == 0)
			tw->routing = o->str;
		else if (strcmp(o->key, "sim.fault") == 0 && tw->nfaults < FT_ARRAY_SIZE(tw->faults))
			tw->faults[tw->nfaults++] = o->str;
		else if (strcmp(o->key, "sim.description") == 0 && n + 1 < sizeof(tw->description))
			n += (size_t)snprintf(tw->description + n, sizeof(tw->description) - n, "%s",
			                      o->str);
		n = FT_MIN(n, sizeof(tw->description) - 1);
	}
}

const char *
ft__rp_pct_abs(double v, char *buf, size_t len)
{
	if (isfinite(v))
		snprintf(buf, len, "%.0f%%", v * 100);
	else
		snprintf(buf, len, "-");
	return buf;
}

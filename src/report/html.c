/* SPDX-License-Identifier: MIT */
/*
 * report/html.c - the self-contained HTML report: one file, inline CSS and
 * SVG, no script and no network. Sections (ids are stable, tests look for
 * them): summary, comparison, changes, bandwidth, latency, pairs, links,
 * findings, results, observations, fingerprint. A section without data says
 * so, so the reader knows what the run did not cover.
 */
#include "report_int.h"

static const char css[] =
        "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;"
        "max-width:1100px;color:#1d2330;padding:0 16px}\n"
        "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;border-bottom:1px solid #d5d9e0;"
        "padding-bottom:4px;margin-top:28px}\n"
        "table{border-collapse:collapse;margin:8px 0}td,th{padding:3px 9px;border-bottom:1px solid "
        "#eceef2;text-align:left;vertical-align:top}th{background:#f4f5f8}\n"
        "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
        ".meta td:first-child{color:#5a6275}.note{color:#5a6275;font-style:italic}\n"
        ".badge{display:inline-block;border-radius:10px;padding:1px 10px;margin-right:6px;"
        "font-weight:600}\n"
        ".regressed,.critical,.error{background:#fde2e1;color:#9b1c1c}\n"
        ".improved{background:#dff5e3;color:#17622d}.unchanged,.info{background:#eef0f4}\n"
        ".new,.missing,.warning{background:#fff3cd;color:#7a5300}\n"
        ".chart{display:block;margin:10px 0;background:#fff}\n"
        ".plot{fill:#fbfbfd;stroke:#c9ced8}.grid{stroke:#e3e6ec;stroke-width:1}\n"
        ".series{fill:none;stroke-width:2}.tick{font-size:11px;fill:#4a5163}\n"
        ".axis{font-size:12px;fill:#1d2330}.title{font-size:14px;font-weight:600;fill:#1d2330}\n"
        ".legend{font-size:12px;fill:#1d2330}.cell{stroke:#fff;stroke-width:1}\n"
        ".cellv{font-size:10px;fill:#1d2330}.cellv.light{fill:#fff}\n"
        ".finding{border-left:4px solid #c9ced8;padding:4px 12px;margin:10px 0}\n"
        ".finding.critical,.finding.error{border-color:#d62728}.finding.warning{border-color:"
        "#e0a100}\n"
        ".finding .fix{margin:2px 0}.evidence{font-size:12px;color:#4a5163}\n";

static const char *const colors[] = { "#1f77b4", "#2ca02c", "#9467bd",
	                              "#8c564b", "#e377c2", "#17becf" };

static void
esc(struct ft_strbuf *sb, const char *s)
{
	ft__rp_html_escape(sb, s);
}

/* An id fragment from free text: lower-case letters, digits, '-'. */
static void
slug(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	for (; *s && n + 1 < len; s++)
		buf[n++] = isalnum((unsigned char)*s) ? (char)tolower((unsigned char)*s) : '-';
	buf[n] = '\0';
}

static void
meta_row(struct ft_strbuf *sb, const char *k, const char *v)
{
	ft_strbuf_adds(sb, "<tr><td>");
	esc(sb, k);
	ft_strbuf_adds(sb, "</td><td>");
	esc(sb, v);
	ft_strbuf_adds(sb, "</td></tr>\n");
}

static void
summary(const struct ft_report_input *in, struct ft_strbuf *sb)
{
	const struct ft_archive_record *r = in->run;
	size_t sev[FT_SEV_COUNT] = { 0 }, i;
	char buf[96];

	ft_strbuf_adds(sb, "<section id=\"summary\">\n<table class=\"meta\">\n");
	meta_row(sb, "source", ft_source_name(r->run.source));
	meta_row(sb, "kind", r->run.kind);
	if (r->run.label[0])
		meta_row(sb, "label", r->run.label);
	if (r->run.spec[0])
		meta_row(sb, "cluster spec", r->run.spec);
	if (r->run.seed) {
		snprintf(buf, sizeof(buf), "%" PRIu64, r->run.seed);
		meta_row(sb, "seed", buf);
	}
	if (r->run.started_s > 0) {
		ft__rp_time(r->run.started_s, buf, sizeof(buf));
		meta_row(sb, "started", buf);
	}
	if (!in->stable && r->info.created_s > 0) {
		ft__rp_time(r->info.created_s, buf, sizeof(buf));
		meta_row(sb, "saved", buf);
	}
	if (ft__rp_is_computed(r)) {
		struct rp_twin tw;

		ft__rp_twin(r, &tw);
		if (tw.scenario) {
			snprintf(buf, sizeof(buf), "%.40s (engine %.16s, routing %.16s)", tw.scenario,
			         tw.engine ? tw.engine : "-", tw.routing ? tw.routing : "-");
			meta_row(sb, "scenario", buf);
		}
		if (tw.description[0])
			meta_row(sb, "description", tw.description);
		if (tw.scenario && !tw.nfaults)
			meta_row(sb, "faults", "none (the healthy twin)");
		for (i = 0; i < tw.nfaults; i++) {
			snprintf(buf, sizeof(buf), "fault %zu", i + 1);
			meta_row(sb, buf, tw.faults[i]);
		}
		if (r->info.host[0])
			meta_row(sb, "computed on", r->info.host);
		if (ft_fingerprint_len(&r->fp)) {
			snprintf(buf, sizeof(buf), "%s (of the machine that computed it, not the "
			         "cluster modelled)", r->info.fp_digest);
			meta_row(sb, "fingerprint", buf);
		}
	} else {
		if (r->info.host[0])
			meta_row(sb, "host", r->info.host);
		if (ft_fingerprint_len(&r->fp))
			meta_row(sb, "fingerprint", r->info.fp_digest);
	}
	if (isfinite(r->run.wall_s) && r->run.wall_s > 0) {
		int n = snprintf(buf, sizeof(buf), "%.1f s", r->run.wall_s);

		if (isfinite(r->run.cpu_s) && n > 0 && (size_t)n < sizeof(buf))
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, ", %.1f s CPU", r->run.cpu_s);
		if (isfinite(r->run.host_busy) && n > 0 && (size_t)n < sizeof(buf))
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, ", host %.0f%% busy",
			              r->run.host_busy * 100);
		if (isfinite(r->run.load1) && n > 0 && (size_t)n < sizeof(buf))
			snprintf(buf + n, sizeof(buf) - (size_t)n, ", load %.2f", r->run.load1);
		meta_row(sb, "usage", buf);
	}
	if (in->expected)
		meta_row(sb, "expected by",
		         in->expected->label[0] ? in->expected->label : in->expected->kind);
	if (in->baseline_label)
		meta_row(sb, "baseline", in->baseline_label);
	ft_strbuf_adds(sb, "</table>\n<p>");
	ft_strbuf_addf(sb, "<span class=\"badge info\">%zu results</span>", ft_run_nrows(&r->run));
	for (i = 0; i < r->findings.len; i++)
		sev[FT_VEC_AT(&r->findings, struct ft_finding, i).severity]++;
	for (i = FT_SEV_COUNT; i-- > 0;)
		if (sev[i])
			ft_strbuf_addf(sb, "<span class=\"badge %s\">%zu %s</span>",
			               ft_severity_name((enum ft_severity)i), sev[i],
			               ft_severity_name((enum ft_severity)i));
	if (in->cmp) {
		for (i = 0; i < FT_VERDICT_COUNT; i++)
			if (in->cmp->count[i])
				ft_strbuf_addf(sb, "<span class=\"badge %s\">%zu %s</span>",
				               ft_verdict_name((enum ft_verdict)i),
				               in->cmp->count[i],
				               ft_verdict_name((enum ft_verdict)i));
	}
	ft_strbuf_adds(sb, "</p>\n</section>\n");
}

static void
td_num(struct ft_strbuf *sb, double v, int dec)
{
	char buf[32];

	ft_strbuf_addf(sb, "<td class=\"n\">%s</td>", ft__rp_num(v, dec, buf, sizeof(buf)));
}

static void
td(struct ft_strbuf *sb, const char *s)
{
	ft_strbuf_adds(sb, "<td>");
	esc(sb, s && s[0] ? s : "-");
	ft_strbuf_adds(sb, "</td>");
}

/* The cells that name a row: test, transport, size, ranks and the pair (src->dst). */
static void
key_cells(struct ft_strbuf *sb, const char *test, const char *transport, uint64_t bytes,
          uint32_t nranks, const char *src, const char *dst)
{
	char buf[32];

	td(sb, test);
	td(sb, transport);
	td(sb, ft_format_size(bytes, buf, sizeof(buf)));
	ft_strbuf_addf(sb, "<td class=\"n\">%" PRIu32 "</td>", nranks);
	if (src[0] && dst[0]) {
		ft_strbuf_adds(sb, "<td>");
		esc(sb, src);
		ft_strbuf_adds(sb, "&#8594;");
		esc(sb, dst);
		ft_strbuf_adds(sb, "</td>");
	} else {
		td(sb, src[0] ? src : dst); /* one end: a job or an endpoint */
	}
}

static void
comparison(const struct ft_report_input *in, struct ft_strbuf *sb)
{
	const struct ft_compare *c = in->cmp;
	char buf[48];
	size_t i;

	ft_strbuf_adds(sb, "<section id=\"comparison\">\n<h2>Comparison with ");
	esc(sb, in->baseline_label ? in->baseline_label : "the baseline");
	ft_strbuf_adds(sb, "</h2>\n");
	ft_strbuf_addf(sb,
	               "<p class=\"note\">A result regressed when it moved the wrong way by more "
	               "than its band: %.3g standard deviations of the baseline samples (never "
	               "under %.3g%%) with %u or more samples, else the stated %.3g%%.</p>\n",
	               c->opts.k_sigma, c->opts.floor_rel * 100, c->opts.min_samples,
	               c->opts.rel_threshold * 100);
	ft_strbuf_adds(sb, "<table><tr><th>test</th><th>transport</th><th>size</th><th>ranks</th>"
	                   "<th>pair</th><th>metric</th><th>baseline</th><th>&#963;</th><th>n</th>"
	                   "<th>current</th><th>change</th><th>band</th><th>verdict</th></tr>\n");
	for (i = 0; i < c->rows.len; i++) {
		const struct ft_compare_row *r = ft_vec_at(&c->rows, i);

		ft_strbuf_adds(sb, "<tr>");
		key_cells(sb, r->test, r->transport, r->bytes, r->nranks, r->src, r->dst);
		ft_strbuf_addf(sb, "<td>%s %s</td>", r->metric,
		               r->higher_is_better ? "GB/s" : "us");
		td_num(sb, r->base_mean, 2);
		td_num(sb, r->base_stdev, 2);
		ft_strbuf_addf(sb, "<td class=\"n\">%u</td>", r->base_n);
		td_num(sb, r->current, 2);
		ft_strbuf_addf(sb, "<td class=\"n\">%s</td>",
		               ft__rp_pct(r->delta_rel, buf, sizeof(buf)));
		if (isfinite(r->threshold_rel))
			ft_strbuf_addf(sb, "<td class=\"n\">&#177;%.1f%% %s</td>",
			               r->threshold_rel * 100, r->noise_aware ? "noise" : "stated");
		else
			td(sb, "");
		ft_strbuf_addf(sb, "<td><span class=\"badge %s\">%s</span></td></tr>\n",
		               ft_verdict_name(r->verdict), ft_verdict_name(r->verdict));
	}
	ft_strbuf_adds(sb, "</table>\n</section>\n");
}

static int
changes(const struct ft_report_input *in, struct ft_strbuf *sb)
{
	struct ft_vec diff;
	size_t i, shown = 0;

	ft_vec_init(&diff, sizeof(struct ft_fingerprint_change));
	if (ft_fingerprint_diff(in->baseline_fp, &in->run->fp, &diff) < 0)
		return FT_ENOMEM;
	ft_strbuf_adds(sb, "<section id=\"changes\">\n<h2>What changed since the baseline</h2>\n"
	                   "<table><tr><th>key</th><th>baseline</th><th>this run</th></tr>\n");
	for (i = 0; i < diff.len; i++) {
		const struct ft_fingerprint_change *ch = ft_vec_at(&diff, i);

		if (in->stable && strcmp(ch->key, "fabtune.version") == 0)
			continue;
		ft_strbuf_adds(sb, "<tr>");
		td(sb, ch->key);
		td(sb, ch->before[0] ? ch->before : "(absent)");
		td(sb, ch->after[0] ? ch->after : "(absent)");
		ft_strbuf_adds(sb, "</tr>\n");
		shown++;
	}
	ft_strbuf_adds(sb, "</table>\n");
	if (!shown)
		ft_strbuf_adds(sb, "<p class=\"note\">Same hardware, firmware, drivers and "
		                   "environment as the baseline.</p>\n");
	ft_strbuf_adds(sb, "</section>\n");
	ft_vec_release(&diff);
	return 0;
}

/* The field a chart plots for @test: the first of @offs the run has. */
static size_t
pick_field(const struct ft_run *run, const char *test, const size_t *offs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ft__rp_has(run, test, offs[i]))
			return offs[i];
	return SIZE_MAX;
}

struct chart_kind {
	const char *section;
	const char *heading;
	const char *idprefix;
	size_t offs[2];
	const char *labels[2];
	bool logy;
};

static const struct chart_kind chart_kinds[] = {
	{ "bandwidth",
	  "Bandwidth against message size",
	  "bw",
	  { offsetof(struct ft_result_row, busbw_GBps),
	    offsetof(struct ft_result_row, algbw_GBps) },
	  { "bus bandwidth, GB/s", "algorithm bandwidth, GB/s" },
	  false },
	{ "latency",
	  "Latency against message size",
	  "lat",
	  { offsetof(struct ft_result_row, lat_p50_us), offsetof(struct ft_result_row, time_us) },
	  { "median latency, us", "time, us" },
	  true },
};

/* One chart: measured per transport, the baseline per transport, the model. */
static int
chart(const struct ft_report_input *in, const struct chart_kind *k, const char *test,
      struct ft_strbuf *sb, size_t *ncharts)
{
	const struct ft_run *run = &in->run->run, *self[1] = { run };
	struct ft_vec transports, pts[16];
	struct rp_series s[16];
	char names[16][64], id[96], title[128], sl[40];
	size_t off, i, ns = 0;
	int rc = 0;

	off = pick_field(run, test, k->offs, 2);
	if (off == SIZE_MAX)
		return 0;
	ft_vec_init(&transports, sizeof(const char *));
	rc = ft__rp_transports(run, test, &transports);
	for (i = 0; i < FT_ARRAY_SIZE(pts); i++)
		ft_vec_init(&pts[i], sizeof(struct rp_point));
	for (i = 0; rc == 0 && i < transports.len && ns + 2 < FT_ARRAY_SIZE(s); i++) {
		const char *tr = FT_VEC_AT(&transports, const char *, i);
		const char *color = colors[i % FT_ARRAY_SIZE(colors)];

		rc = ft__rp_series(self, 1, test, tr, off, &pts[ns]);
		snprintf(names[ns], sizeof(names[ns]), "measured%s%s%s", tr[0] ? " (" : "", tr,
		         tr[0] ? ")" : "");
		s[ns] = (struct rp_series){ names[ns], color, RP_SOLID, pts[ns].data, pts[ns].len };
		ns++;
		if (rc == 0 && in->nbaseline) {
			rc = ft__rp_series(in->baseline, in->nbaseline, test, tr, off, &pts[ns]);
			if (pts[ns].len) {
				snprintf(names[ns], sizeof(names[ns]), "baseline%s%s%s",
				         tr[0] ? " (" : "", tr, tr[0] ? ")" : "");
				s[ns] = (struct rp_series){ names[ns], color, RP_DASHED,
					                    pts[ns].data, pts[ns].len };
				ns++;
			}
		}
	}
	if (rc == 0 && in->expected && ns < FT_ARRAY_SIZE(s)) {
		const struct ft_run *exp[1] = { in->expected };

		rc = ft__rp_series(exp, 1, test, NULL, off, &pts[ns]);
		if (pts[ns].len) {
			snprintf(names[ns], sizeof(names[ns]), "expected (model)");
			s[ns] = (struct rp_series){ names[ns], "#ff7f0e", RP_DOTTED, pts[ns].data,
				                    pts[ns].len };
			ns++;
		}
	}
	if (rc == 0) {
		slug(test, sl, sizeof(sl));
		snprintf(id, sizeof(id), "chart-%s-%s", k->idprefix, sl);
		snprintf(title, sizeof(title), "%s: %s", test,
		         k->labels[off == k->offs[0] ? 0 : 1]);
		size_t most = 0;

		for (i = 0; i < ns; i++)
			most = FT_MAX(most, s[i].n);
		/* one size measured: bars, since a line through one point shows nothing */
		if (most == 1) {
			char sz[32];

			for (i = 0; i < ns && !s[i].n; i++)
				;
			snprintf(title, sizeof(title), "%s at %s: %s", test,
			         ft_format_size(i < ns ? (uint64_t)s[i].pts[0].x : 0, sz, sizeof(sz)),
			         k->labels[off == k->offs[0] ? 0 : 1]);
			ft__svg_bar_chart(sb, id, title, k->labels[off == k->offs[0] ? 0 : 1], s, ns);
		}
		else
			ft__svg_line_chart(sb, id, title, k->labels[off == k->offs[0] ? 0 : 1], s,
			                   ns, k->logy);
		(*ncharts)++;
	}
	for (i = 0; i < FT_ARRAY_SIZE(pts); i++)
		ft_vec_release(&pts[i]);
	ft_vec_release(&transports);
	return rc;
}

static int
charts(const struct ft_report_input *in, struct ft_strbuf *sb)
{
	struct ft_vec tests;
	size_t i, k, n;
	int rc;

	ft_vec_init(&tests, sizeof(const char *));
	rc = ft__rp_tests(&in->run->run, &tests);
	for (k = 0; rc == 0 && k < FT_ARRAY_SIZE(chart_kinds); k++) {
		ft_strbuf_addf(sb, "<section id=\"%s\">\n<h2>%s</h2>\n", chart_kinds[k].section,
		               chart_kinds[k].heading);
		for (i = 0, n = 0; rc == 0 && i < tests.len; i++)
			rc = chart(in, &chart_kinds[k], FT_VEC_AT(&tests, const char *, i), sb, &n);
		if (n == 0)
			ft_strbuf_addf(sb, "<p class=\"note\">No %s figures in this run.</p>\n",
			               chart_kinds[k].section);
		ft_strbuf_adds(sb, "</section>\n");
	}
	ft_vec_release(&tests);
	return rc;
}

/*
 * The pairs matrices: bandwidth, and latency when measured. Colours are on
 * an absolute scale, the fraction of the best pair (the highest bandwidth,
 * the lowest latency), so a uniform fabric reads as uniform and one slow
 * pair stands out whatever the spread of the others.
 */
static int
pairs(const struct ft_report_input *in, struct ft_strbuf *sb)
{
	struct rp_pairs p, l;
	int rc = ft__rp_pairs(in->run, false, &p);

	if (rc < 0)
		return rc;
	rc = ft__rp_pairs(in->run, true, &l);
	if (rc < 0) {
		ft__rp_pairs_release(&p);
		return rc;
	}
	ft_strbuf_adds(sb, "<section id=\"pairs\">\n<h2>Pairs matrix</h2>\n");
	if (p.n) {
		ft_strbuf_adds(sb, "<p class=\"note\">Colour: each pair as a fraction of the best "
		                   "pair (100%). Hover a cell for its value.</p>\n");
		ft__svg_heatmap(sb, "pairs-heatmap", &p);
	} else {
		ft_strbuf_adds(sb, "<p class=\"note\">No pairs measured in this run (test "
		                   "\"pairs\" rows or bench.pair_bw observations).</p>\n");
	}
	if (l.n) {
		ft_strbuf_adds(sb, "<h3>Latency matrix</h3>\n");
		ft__svg_heatmap(sb, "pairs-latency", &l);
	}
	ft_strbuf_adds(sb, "</section>\n");
	ft__rp_pairs_release(&p);
	ft__rp_pairs_release(&l);
	return 0;
}

/*
 * A sweep's utilisation size by size (sim.size.util observations: the link
 * class in device, the size in str): a line per class over the size axis.
 * Returns how many sizes it drew (0: none in this run).
 */
static int
links_by_size(const struct ft_report_input *in, struct ft_strbuf *sb, size_t *nsizes)
{
	const struct ft_obs_set *obs = &in->run->obs;
	enum { MAX_CLASSES = 8 };
	struct ft_vec pts[MAX_CLASSES];
	char names[MAX_CLASSES][48];
	struct rp_series s[MAX_CLASSES];
	size_t ns = 0, i, c, maxn = 0;
	int rc = 0;

	for (i = 0; i < ft_obs_set_len(obs) && rc == 0; i++) {
		const struct ft_obs *o = ft_obs_set_at(obs, i);
		struct rp_point p;
		char *end;

		if (strcmp(o->key, "sim.size.util") != 0 || !o->has_num || !isfinite(o->num))
			continue;
		p.x = strtod(o->str, &end);
		if (end == o->str || !(p.x > 0))
			continue;
		p.y = o->num * 100;
		for (c = 0; c < ns && strcmp(names[c], o->device) != 0; c++)
			;
		if (c == ns) {
			if (ns == MAX_CLASSES)
				continue;
			ft_strlcpy(names[ns], o->device, sizeof(names[0]));
			ft_vec_init(&pts[ns], sizeof(struct rp_point));
			ns++;
		}
		rc = ft_vec_push(&pts[c], &p);
	}
	for (c = 0; c < ns; c++) {
		s[c] = (struct rp_series){ names[c], colors[c % FT_ARRAY_SIZE(colors)], RP_SOLID,
			                   pts[c].data, pts[c].len };
		maxn = FT_MAX(maxn, pts[c].len);
	}
	if (rc == 0 && ns) {
		ft_strbuf_adds(sb, "<p class=\"note\">Busiest link of each class, size by size "
		                   "(each size run alone on the same cluster).</p>\n");
		if (maxn > 1)
			ft__svg_line_chart(sb, "link-util-size", "link utilization by size",
			                   "busiest link (%)", s, ns, false);
		else
			ft__svg_bar_chart(sb, "link-util-size", "link utilization by size",
			                  "busiest link (%)", s, ns);
	}
	for (c = 0; c < ns; c++)
		ft_vec_release(&pts[c]);
	*nsizes = maxn;
	return rc;
}

#define MAX_LINK_BARS 40

static int
links(const struct ft_report_input *in, struct ft_strbuf *sb)
{
	struct ft_vec l;
	size_t nsized = 0;
	int rc;

	ft_vec_init(&l, sizeof(struct rp_link));
	rc = ft__rp_links(in->run, &l);
	if (rc < 0)
		return rc;
	ft_strbuf_adds(sb, "<section id=\"links\">\n<h2>Link utilization</h2>\n");
	rc = links_by_size(in, sb, &nsized);
	if (rc < 0) {
		ft_vec_release(&l);
		return rc;
	}
	if (l.len) {
		size_t k, nsizes = 0;
		uint64_t first = 0;

		for (k = 0; k < ft_run_nrows(&in->run->run); k++) {
			uint64_t b = ft_run_row(&in->run->run, k)->bytes;

			if (nsizes == 0 || (b != first && nsizes == 1)) {
				nsizes++;
				first = nsizes == 1 ? b : first;
			}
		}
		/* the twin's counters cover its whole run: say so rather than imply one size */
		if (nsizes > 1)
			ft_strbuf_adds(sb, "<p class=\"note\">The bars: utilization over the whole "
			                   "simulated run, every size and job together.</p>\n");
	}
	if (l.len)
		ft__svg_link_bars(sb, "link-util", l.data, FT_MIN(l.len, MAX_LINK_BARS), l.len);
	else if (!nsized)
		ft_strbuf_adds(sb, "<p class=\"note\">No link utilization in this run (it comes "
		                   "from a simulation: sim.link.util observations).</p>\n");
	ft_strbuf_adds(sb, "</section>\n");
	ft_vec_release(&l);
	return 0;
}

static void
evidence(struct ft_strbuf *sb, const struct ft_obs *o)
{
	char entity[200];

	ft_obs_entity(o, entity, sizeof(entity));
	ft_strbuf_adds(sb, "<tr><td>");
	esc(sb, entity);
	ft_strbuf_adds(sb, "</td><td>");
	esc(sb, o->key);
	ft_strbuf_adds(sb, "</td><td>");
	if (o->has_num)
		ft_strbuf_addf(sb, "%.6g ", o->num);
	esc(sb, o->unit);
	if (o->str[0]) {
		ft_strbuf_addch(sb, ' ');
		esc(sb, o->str);
	}
	ft_strbuf_adds(sb, "</td><td>");
	esc(sb, o->file);
	if (o->line)
		ft_strbuf_addf(sb, ":%" PRIu32, o->line);
	ft_strbuf_adds(sb, "</td></tr>\n");
}

static int
findings(const struct ft_report_input *in, struct ft_strbuf *sb)
{
	struct ft_vec sorted;
	int layer = -1;
	size_t i, k;

	ft_vec_init(&sorted, sizeof(const struct ft_finding *));
	if (ft__rp_findings_sorted(in->run, &sorted) < 0)
		return FT_ENOMEM;
	ft_strbuf_adds(sb, "<section id=\"findings\">\n<h2>Findings by layer</h2>\n");
	if (!sorted.len)
		ft_strbuf_adds(sb, "<p class=\"note\">No findings in this run.</p>\n");
	for (i = 0; i < sorted.len; i++) {
		const struct ft_finding *f = FT_VEC_AT(&sorted, const struct ft_finding *, i);
		const char *sev = ft_severity_name(f->severity);
		char sl[40];

		if ((int)f->layer != layer) {
			layer = (int)f->layer;
			slug(ft_layer_name(f->layer), sl, sizeof(sl));
			ft_strbuf_addf(sb, "<h3 id=\"layer-%s\">", sl);
			esc(sb, ft_layer_name(f->layer));
			ft_strbuf_adds(sb, "</h3>\n");
		}
		ft_strbuf_addf(sb,
		               "<div class=\"finding %s\"><p><span class=\"badge %s\">%s</span>"
		               "<b>",
		               sev, sev, sev);
		esc(sb, f->rule_id);
		ft_strbuf_adds(sb, "</b> &#8212; ");
		esc(sb, f->entity[0] ? f->entity : "-");
		ft_strbuf_adds(sb, "</p>\n<p>");
		esc(sb, f->message);
		ft_strbuf_adds(sb, "</p>\n");
		if (f->fix[0]) {
			ft_strbuf_adds(sb, "<p class=\"fix\"><b>Fix:</b> ");
			esc(sb, f->fix);
			ft_strbuf_adds(sb, "</p>\n");
		}
		if (f->kb[0]) {
			ft_strbuf_adds(sb, "<p class=\"evidence\">Knowledge base: ");
			esc(sb, f->kb);
			ft_strbuf_adds(sb, "</p>\n");
		}
		if (f->nevidence) {
			ft_strbuf_adds(sb,
			               "<table class=\"evidence\"><tr><th>entity</th><th>key</th>"
			               "<th>value</th><th>source</th></tr>\n");
			for (k = 0; k < FT_MIN(f->nevidence, FT_FINDING_MAX_EVIDENCE); k++)
				evidence(sb, &f->evidence[k]);
			ft_strbuf_adds(sb, "</table>\n");
		}
		ft_strbuf_adds(sb, "</div>\n");
	}
	ft_strbuf_adds(sb, "</section>\n");
	ft_vec_release(&sorted);
	return 0;
}

static void
results(const struct ft_report_input *in, struct ft_strbuf *sb)
{
	const struct ft_run *run = &in->run->run;
	size_t i;

	ft_strbuf_addf(sb, "<section id=\"results\">\n<h2>Results (%zu)</h2>\n", ft_run_nrows(run));
	ft_strbuf_adds(sb, "<table><tr><th>test</th><th>transport</th><th>size</th><th>ranks</th>"
	                   "<th>pair</th><th>time us</th><th>algbw GB/s</th><th>busbw GB/s</th>"
	                   "<th>p50 us</th><th>p99 us</th></tr>\n");
	for (i = 0; i < ft_run_nrows(run); i++) {
		const struct ft_result_row *r = ft_run_row(run, i);

		ft_strbuf_adds(sb, "<tr>");
		key_cells(sb, r->test, r->transport, r->bytes, r->nranks, r->src, r->dst);
		td_num(sb, r->time_us, 2);
		td_num(sb, r->algbw_GBps, 2);
		td_num(sb, r->busbw_GBps, 2);
		td_num(sb, r->lat_p50_us, 2);
		td_num(sb, r->lat_p99_us, 2);
		ft_strbuf_adds(sb, "</tr>\n");
	}
	ft_strbuf_adds(sb, "</table>\n</section>\n");
}

static void
details(const struct ft_report_input *in, struct ft_strbuf *sb)
{
	const struct ft_archive_record *r = in->run;
	size_t i;

	ft_strbuf_addf(sb,
	               "<section id=\"observations\">\n<details><summary>Observations (%zu)"
	               "</summary>\n<table><tr><th>entity</th><th>key</th><th>value</th>"
	               "<th>source</th></tr>\n",
	               ft_obs_set_len(&r->obs));
	for (i = 0; i < ft_obs_set_len(&r->obs); i++)
		evidence(sb, ft_obs_set_at(&r->obs, i));
	ft_strbuf_adds(sb, "</table></details>\n</section>\n");
	ft_strbuf_addf(sb,
	               "<section id=\"fingerprint\">\n<details><summary>Fingerprint (%zu keys)"
	               "</summary>\n<table>\n",
	               ft_fingerprint_len(&r->fp));
	for (i = 0; i < ft_fingerprint_len(&r->fp); i++) {
		const struct ft_fingerprint_item *it = ft_fingerprint_at(&r->fp, i);
		bool hide = in->stable && strcmp(it->key, "fabtune.version") == 0;

		meta_row(sb, it->key, hide ? "VERSION" : it->value);
	}
	ft_strbuf_adds(sb, "</table></details>\n</section>\n");
}

int
ft__report_html(const struct ft_report_input *in, struct ft_strbuf *sb)
{
	char title[256];
	int rc;

	ft__rp_title(in, title, sizeof(title));
	ft_strbuf_adds(sb,
	               "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	               "<title>fabtune: ");
	esc(sb, title);
	ft_strbuf_addf(sb, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", css);
	esc(sb, title);
	ft_strbuf_adds(sb, "</h1>\n");
	if (!in->stable)
		ft_strbuf_addf(sb, "<p class=\"note\">fabtune %s</p>\n", ft_version());
	summary(in, sb);
	if (in->cmp)
		comparison(in, sb);
	if (in->baseline_fp) {
		rc = changes(in, sb);
		if (rc < 0)
			return rc;
	}
	rc = charts(in, sb);
	if (rc == 0)
		rc = pairs(in, sb);
	if (rc == 0)
		rc = links(in, sb);
	if (rc == 0)
		rc = ft__html_traces(in, sb);
	if (rc == 0)
		rc = findings(in, sb);
	if (rc < 0)
		return rc;
	results(in, sb);
	details(in, sb);
	ft_strbuf_adds(sb, "</body>\n</html>\n");
	return 0;
}

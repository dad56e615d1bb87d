/* SPDX-License-Identifier: MIT */
/*
 * report/svg.c - the charts of the HTML report, drawn as inline SVG: line
 * charts against message size (log2 axis), the pairs heatmap and the link
 * utilization bars. Coordinates are printed with one decimal so the same
 * data gives the same bytes.
 */
#include "report_int.h"

#define W          680.0
#define H          340.0
#define ML         70.0 /* margins: left, right, top, bottom */
#define MR         20.0
#define MT         34.0
#define MB         52.0
#define LEGEND_ROW 18.0

static void
text(struct ft_strbuf *sb, double x, double y, const char *anchor, const char *cls, const char *s)
{
	ft_strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" class=\"%s\">", x, y,
	               anchor, cls);
	ft__rp_html_escape(sb, s);
	ft_strbuf_adds(sb, "</text>\n");
}

/* A "nice" step (1, 2 or 5 times a power of ten) giving about @n ticks over @range. */
static double
nice_step(double range, int n)
{
	double raw = range / n, p = pow(10, floor(log10(raw))), f = raw / p;

	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

static void
tick_label(double v, char *buf, size_t len)
{
	if (v != 0 && (fabs(v) >= 1e5 || fabs(v) < 1e-3))
		snprintf(buf, len, "%.0e", v);
	else
		snprintf(buf, len, "%.4g", v);
}

struct axes {
	double x0, x1; /* log2 of bytes */
	double y0, y1; /* metric, or log10 of it */
	bool logy;
};

static double
px(const struct axes *a, double bytes)
{
	return ML + (log2(bytes) - a->x0) / (a->x1 - a->x0) * (W - ML - MR);
}

static double
py(const struct axes *a, double v)
{
	double t = a->logy ? log10(v) : v;

	return H - MB - (t - a->y0) / (a->y1 - a->y0) * (H - MT - MB);
}

static bool
domain(const struct rp_series *s, size_t ns, bool logy, struct axes *a)
{
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
	size_t i, k;

	for (i = 0; i < ns; i++)
		for (k = 0; k < s[i].n; k++) {
			double x = s[i].pts[k].x, y = s[i].pts[k].y;

			if (!(x > 0) || !isfinite(y) || (logy && !(y > 0)))
				continue;
			xmin = FT_MIN(xmin, x);
			xmax = FT_MAX(xmax, x);
			ymin = FT_MIN(ymin, y);
			ymax = FT_MAX(ymax, y);
		}
	if (!isfinite(xmin))
		return false;
	a->logy = logy;
	a->x0 = floor(log2(xmin));
	a->x1 = ceil(log2(xmax));
	if (a->x1 - a->x0 < 2) {
		a->x0 -= 1;
		a->x1 += 1;
	}
	if (logy) {
		a->y0 = floor(log10(ymin));
		a->y1 = ceil(log10(ymax));
		if (a->y1 - a->y0 < 1)
			a->y1 = a->y0 + 1;
	} else {
		double step;

		a->y0 = 0;
		if (!(ymax > 0))
			ymax = 1;
		step = nice_step(ymax, 5);
		a->y1 = ceil(ymax * 1.05 / step) * step;
	}
	return true;
}

static void
grid(struct ft_strbuf *sb, const struct axes *a, const char *ylabel)
{
	char buf[32];
	double e, step, v;
	int xstep;

	ft_strbuf_addf(sb,
	               "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
	               "class=\"plot\"/>\n",
	               ML, MT, W - ML - MR, H - MT - MB);
	xstep = (int)ceil((a->x1 - a->x0) / 10);
	for (e = a->x0; e <= a->x1 + 1e-9; e += xstep) {
		double x = px(a, pow(2, e));

		ft_strbuf_addf(sb,
		               "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		               "class=\"grid\"/>\n",
		               x, MT, x, H - MB);
		ft_format_size((uint64_t)pow(2, e), buf, sizeof(buf));
		text(sb, x, H - MB + 16, "middle", "tick", buf);
	}
	if (a->logy) {
		for (e = a->y0; e <= a->y1 + 1e-9; e += 1) {
			double y = py(a, pow(10, e));

			ft_strbuf_addf(sb,
			               "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			               "class=\"grid\"/>\n",
			               ML, y, W - MR, y);
			tick_label(pow(10, e), buf, sizeof(buf));
			text(sb, ML - 6, y + 4, "end", "tick", buf);
		}
	} else {
		step = nice_step(a->y1 - a->y0, 5);
		for (v = a->y0; v <= a->y1 + step * 1e-9; v += step) {
			double y = py(a, v);

			ft_strbuf_addf(sb,
			               "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			               "class=\"grid\"/>\n",
			               ML, y, W - MR, y);
			tick_label(v, buf, sizeof(buf));
			text(sb, ML - 6, y + 4, "end", "tick", buf);
		}
	}
	text(sb, (ML + W - MR) / 2, H - MB + 36, "middle", "axis", "message size (log2)");
	ft_strbuf_addf(sb,
	               "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" class=\"axis\" "
	               "transform=\"rotate(-90 16 %.1f)\">",
	               (MT + H - MB) / 2, (MT + H - MB) / 2);
	ft__rp_html_escape(sb, ylabel);
	ft_strbuf_adds(sb, "</text>\n");
}

static const char *
dash(enum rp_style s)
{
	return s == RP_DASHED ? " stroke-dasharray=\"7 4\"" :
	       s == RP_DOTTED ? " stroke-dasharray=\"2 3\"" :
	                        "";
}

void
ft__svg_line_chart(struct ft_strbuf *sb, const char *id, const char *title, const char *ylabel,
                   const struct rp_series *s, size_t ns, bool logy)
{
	double height = H + 12 + LEGEND_ROW * (double)((ns + 2) / 3);
	struct axes a;
	size_t i, k;

	if (!domain(s, ns, logy, &a))
		return;
	ft__rp_svg_open(sb, id, W, height, title);
	text(sb, W / 2, 20, "middle", "title", title);
	grid(sb, &a, ylabel);
	for (i = 0; i < ns; i++) {
		bool any = false;

		for (k = 0; k < s[i].n; k++) {
			const struct rp_point *p = &s[i].pts[k];

			if (!(p->x > 0) || !isfinite(p->y) || (logy && !(p->y > 0)))
				continue;
			if (!any)
				ft_strbuf_addf(sb,
				               "<polyline class=\"series\" stroke=\"%s\"%s "
				               "points=\"",
				               s[i].color, dash(s[i].style));
			ft_strbuf_addf(sb, "%s%.1f,%.1f", any ? " " : "", px(&a, p->x),
			               py(&a, p->y));
			any = true;
		}
		if (any)
			ft_strbuf_adds(sb, "\"/>\n");
		for (k = 0; s[i].style == RP_SOLID && k < s[i].n; k++) {
			const struct rp_point *p = &s[i].pts[k];

			if (!(p->x > 0) || !isfinite(p->y) || (logy && !(p->y > 0)))
				continue;
			ft_strbuf_addf(sb,
			               "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.8\" fill=\"%s\"/>\n",
			               px(&a, p->x), py(&a, p->y), s[i].color);
		}
	}
	/* Legend: three entries a row under the axis label. */
	for (i = 0; i < ns; i++) {
		double x = ML + (double)(i % 3) * 200, y = H + 10 + LEGEND_ROW * (double)(i / 3);

		ft_strbuf_addf(sb,
		               "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		               "class=\"series\" stroke=\"%s\"%s/>\n",
		               x, y - 4, x + 26, y - 4, s[i].color, dash(s[i].style));
		text(sb, x + 32, y, "start", "legend", s[i].name);
	}
	ft_strbuf_adds(sb, "</svg>\n");
}

void
ft__svg_bar_chart(struct ft_strbuf *sb, const char *id, const char *title, const char *ylabel,
                  const struct rp_series *s, size_t ns)
{
	const double bw = 56, gap = 40, top = 44, plot_h = 220, left = 70;
	double vmax = 0, w, h;
	char buf[32];
	size_t i, nbars = 0;

	for (i = 0; i < ns; i++)
		if (s[i].n && isfinite(s[i].pts[0].y)) {
			vmax = FT_MAX(vmax, s[i].pts[0].y);
			nbars++;
		}
	if (!nbars || !(vmax > 0))
		return;
	w = FT_MAX(360.0, left + (double)nbars * (bw + gap) + gap);
	h = top + plot_h + 70;
	ft__rp_svg_open(sb, id, w, h, title);
	text(sb, w / 2, 20, "middle", "title", title);
	ft_strbuf_addf(sb,
	               "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"axis\"/>\n",
	               left, top + plot_h, w - gap / 2, top + plot_h);
	ft_strbuf_addf(sb,
	               "<text x=\"14\" y=\"%.1f\" class=\"axis-label\" text-anchor=\"middle\" "
	               "transform=\"rotate(-90 14 %.1f)\">",
	               top + plot_h / 2, top + plot_h / 2);
	ft__rp_html_escape(sb, ylabel);
	ft_strbuf_adds(sb, "</text>\n");
	for (i = 0, nbars = 0; i < ns; i++) {
		double v, bh, x;

		if (!s[i].n || !isfinite(s[i].pts[0].y))
			continue;
		v = s[i].pts[0].y;
		bh = plot_h * v / vmax;
		x = left + gap / 2 + (double)nbars * (bw + gap);
		ft_strbuf_addf(sb,
		               "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		               "fill=\"%s\"%s class=\"bar\"><title>",
		               x, top + plot_h - bh, bw, bh, s[i].color,
		               s[i].style == RP_SOLID ? "" : " fill-opacity=\"0.45\"");
		ft__rp_html_escape(sb, s[i].name);
		ft_strbuf_addf(sb, ": %.4g</title></rect>\n", v);
		snprintf(buf, sizeof(buf), "%.6g", v);
		text(sb, x + bw / 2, top + plot_h - bh - 6, "middle", "tick", buf);
		text(sb, x + bw / 2, top + plot_h + 18, "middle", "legend", s[i].name);
		nbars++;
	}
	ft_strbuf_adds(sb, "</svg>\n");
}

/* Three-stop sequential palette (dark purple, teal, yellow) at t in [0, 1]. */
static void
palette(double t, char *buf, size_t len, bool *dark)
{
	static const double stops[3][3] = { { 68, 1, 84 }, { 33, 145, 140 }, { 253, 231, 37 } };
	double c[3];
	int i, seg = t < 0.5 ? 0 : 1;
	double u = t < 0.5 ? t * 2 : (t - 0.5) * 2;

	for (i = 0; i < 3; i++)
		c[i] = stops[seg][i] + (stops[seg + 1][i] - stops[seg][i]) * u;
	snprintf(buf, len, "#%02x%02x%02x", (unsigned)lround(c[0]), (unsigned)lround(c[1]),
	         (unsigned)lround(c[2]));
	*dark = t < 0.55;
}

/*
 * A pairs matrix at a readable size (cells of 96 px for a few hosts, down
 * to 8 px for many), coloured on an absolute scale: the fraction of the best
 * pair, v / max for a bandwidth and min / v for a latency, from 0% (dark)
 * to 100% (light).
 */
void
ft__svg_heatmap(struct ft_strbuf *sb, const char *id, const struct rp_pairs *p)
{
	double cell = FT_MAX(8.0, FT_MIN(96.0, 640.0 / (double)p->n));
	double left = 140, top = 140, size = cell * (double)p->n;
	double vmin = INFINITY, vmax = -INFINITY, best, w, h;
	char color[16], buf[32];
	size_t i, k;
	bool dark;

	for (i = 0; i < p->n * p->n; i++)
		if (isfinite(p->v[i])) {
			vmin = FT_MIN(vmin, p->v[i]);
			vmax = FT_MAX(vmax, p->v[i]);
		}
	if (!isfinite(vmin))
		return;
	best = p->lower_is_better ? vmin : vmax;
	w = left + size + 170;
	h = top + size + 20;
	ft_strbuf_addf(sb,
	               "<svg id=\"%s\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
	               "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n",
	               id, w, h, w, h);
	ft_strbuf_addf(sb, "<title>pairs matrix, %s</title>\n", p->metric);
	text(sb, left + size / 2, 18, "middle", "title", "pairs: source (rows) to destination");
	for (i = 0; i < p->n; i++) {
		double c = (double)i * cell + cell / 2;

		text(sb, left - 6, top + c + 4, "end", "tick", p->names[i]);
		ft_strbuf_addf(sb,
		               "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"start\" class=\"tick\" "
		               "transform=\"rotate(-60 %.1f %.1f)\">",
		               left + c, top - 6, left + c, top - 6);
		ft__rp_html_escape(sb, p->names[i]);
		ft_strbuf_adds(sb, "</text>\n");
	}
	for (i = 0; i < p->n; i++)
		for (k = 0; k < p->n; k++) {
			double v = p->v[i * p->n + k];
			double t = !(best > 0) ? 1.0 : p->lower_is_better ? best / v : v / best;

			if (isfinite(v))
				palette(t, color, sizeof(color), &dark);
			else
				ft_strlcpy(color, "#e4e4e4", sizeof(color));
			ft_strbuf_addf(sb,
			               "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			               "fill=\"%s\" class=\"cell\"><title>",
			               left + (double)k * cell, top + (double)i * cell, cell, cell,
			               color);
			ft__rp_html_escape(sb, p->names[i]);
			ft_strbuf_adds(sb, " -&gt; ");
			ft__rp_html_escape(sb, p->names[k]);
			ft_strbuf_addf(sb, ": %s %s (%.0f%% of the best pair)</title></rect>\n",
			               ft__rp_num(v, 2, buf, sizeof(buf)), p->metric,
			               isfinite(v) ? t * 100 : 0);
			if (isfinite(v) && cell >= 36) {
				snprintf(buf, sizeof(buf), "%.0f%%", t * 100);
				text(sb, left + (double)k * cell + cell / 2,
				     top + (double)i * cell + cell / 2 + 4, "middle",
				     dark ? "cellv light" : "cellv", buf);
			}
		}
	/* Colour scale. */
	for (i = 0; i < 20; i++) {
		palette((double)i / 19.0, color, sizeof(color), &dark);
		ft_strbuf_addf(sb,
		               "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"%.1f\" "
		               "fill=\"%s\"/>\n",
		               left + size + 20, top + size - (double)(i + 1) * size / 20,
		               size / 20, color);
	}
	tick_label(best, buf, sizeof(buf));
	{
		char top_label[64];

		snprintf(top_label, sizeof(top_label), "100%% = %s", buf);
		text(sb, left + size + 38, top + 10, "start", "tick", top_label);
	}
	text(sb, left + size + 38, top + size / 2 + 4, "start", "tick", "50%");
	text(sb, left + size + 38, top + size, "start", "tick", "0%");
	text(sb, left + size + 38, top + size + 16, "start", "tick", p->metric);
	ft_strbuf_adds(sb, "</svg>\n");
}

void
ft__svg_link_bars(struct ft_strbuf *sb, const char *id, const struct rp_link *links, size_t n,
                  size_t total)
{
	const double left = 230, barw = 380, row = 20, top = 40;
	double h = top + row * (double)n + 30;
	char buf[48];
	size_t i;

	ft_strbuf_addf(sb,
	               "<svg id=\"%s\" class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" "
	               "width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n",
	               id, W, h, W, h);
	snprintf(buf, sizeof(buf), "link utilization: %zu busiest of %zu links", n, total);
	ft_strbuf_adds(sb, "<title>");
	ft__rp_html_escape(sb, buf);
	ft_strbuf_adds(sb, "</title>\n");
	text(sb, W / 2, 20, "middle", "title", buf);
	for (i = 0; i <= 4; i++) {
		double x = left + barw * (double)i / 4;

		ft_strbuf_addf(sb,
		               "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		               "class=\"grid\"/>\n",
		               x, top - 6, x, top + row * (double)n);
		snprintf(buf, sizeof(buf), "%zu%%", i * 25);
		text(sb, x, top + row * (double)n + 16, "middle", "tick", buf);
	}
	for (i = 0; i < n; i++) {
		double u = links[i].util, y = top + row * (double)i;
		const char *color = u >= 0.8 ? "#d62728" : u >= 0.5 ? "#ff7f0e" : "#2ca02c";

		text(sb, left - 8, y + 13, "end", "tick", links[i].name);
		ft_strbuf_addf(sb,
		               "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		               "fill=\"%s\"><title>",
		               left, y + 2, barw * FT_MIN(FT_MAX(u, 0.0), 1.0), row - 5, color);
		ft__rp_html_escape(sb, links[i].name);
		ft_strbuf_addf(sb, ": %.1f%%</title></rect>\n", u * 100);
		snprintf(buf, sizeof(buf), "%.1f%%", u * 100);
		text(sb, left + barw + 8, y + 13, "start", "tick", buf);
	}
	ft_strbuf_adds(sb, "</svg>\n");
}

/* SPDX-License-Identifier: MIT */
/*
 * report/svg_trace.c - the HTML report's port traces: for every port a
 * simulation traced (`fabtune sim --trace ... --save`, observations
 * sim.trace.interval, sim.trace.rate and sim.trace.queue), its sending rate
 * and its egress queue over time, as two inline SVG line charts on a linear
 * time axis. Coordinates are printed with one decimal so the same data gives
 * the same bytes.
 */
#include "report_int.h"

#include <fabtune/sim.h>

#define TW  680.0
#define TH  220.0
#define TML 70.0 /* margins: left, right, top, bottom */
#define TMR 20.0
#define TMT 34.0
#define TMB 40.0

#define MAX_TRACED 16 /* ports charted */

struct tr_port {
	char name[48];
	double interval_s;
	size_t n; /* points: 1 + the largest index seen */
	double rate_GBps[FT_SIM_TRACE_POINTS];
	double queue_bytes[FT_SIM_TRACE_POINTS];
};

/* A step of 1, 2 or 5 times a power of ten giving about @n ticks over @range. */
static double
tr_step(double range, int n)
{
	double raw = range / n, p = pow(10, floor(log10(raw))), f = raw / p;

	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

static void
tr_text(struct ft_strbuf *sb, double x, double y, const char *anchor, const char *cls,
        const char *s)
{
	ft_strbuf_addf(sb, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" class=\"%s\">", x, y,
	               anchor, cls);
	ft__rp_html_escape(sb, s);
	ft_strbuf_adds(sb, "</text>\n");
}

/* One series over time: point k at t = (k + 1) x @dt_us, y from 0 to its maximum. */
static void
time_chart(struct ft_strbuf *sb, const char *id, const char *title, const char *ylabel,
           const double *y, size_t n, double dt_us, double yscale, const char *color)
{
	double tmax = dt_us * (double)n, ymax = 0, step, v;
	char buf[32];
	size_t k;

	for (k = 0; k < n; k++)
		if (isfinite(y[k]))
			ymax = FT_MAX(ymax, y[k] * yscale);
	if (!(ymax > 0))
		ymax = 1;
	step = tr_step(ymax, 4);
	ymax = ceil(ymax / step) * step;
	ft__rp_svg_open(sb, id, TW, TH, title);
	tr_text(sb, TW / 2, 20, "middle", "title", title);
	ft_strbuf_addf(sb, "<rect class=\"plot\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
	                   "height=\"%.1f\"/>\n",
	               TML, TMT, TW - TML - TMR, TH - TMT - TMB);
	for (v = 0; v <= ymax * (1 + 1e-9); v += step) {
		double yy = TH - TMB - v / ymax * (TH - TMT - TMB);

		ft_strbuf_addf(sb, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		                   "y2=\"%.1f\"/>\n",
		               TML, yy, TW - TMR, yy);
		snprintf(buf, sizeof(buf), "%.6g", v);
		tr_text(sb, TML - 6, yy + 4, "end", "tick", buf);
	}
	step = tr_step(tmax, 6);
	for (v = 0; v <= tmax * (1 + 1e-9); v += step) {
		snprintf(buf, sizeof(buf), "%.4g", v);
		tr_text(sb, TML + v / tmax * (TW - TML - TMR), TH - TMB + 16, "middle", "tick", buf);
	}
	tr_text(sb, (TML + TW - TMR) / 2, TH - 8, "middle", "axis", "time (us)");
	ft_strbuf_addf(sb,
	               "<text x=\"14\" y=\"%.1f\" class=\"axis\" text-anchor=\"middle\" "
	               "transform=\"rotate(-90 14 %.1f)\">",
	               (TMT + TH - TMB) / 2, (TMT + TH - TMB) / 2);
	ft__rp_html_escape(sb, ylabel);
	ft_strbuf_adds(sb, "</text>\n");
	ft_strbuf_addf(sb, "<polyline class=\"series\" stroke=\"%s\" points=\"", color);
	for (k = 0; k < n; k++) {
		double yv = isfinite(y[k]) ? y[k] * yscale : 0;

		ft_strbuf_addf(sb, "%s%.1f,%.1f", k ? " " : "",
		               TML + dt_us * (double)(k + 1) / tmax * (TW - TML - TMR),
		               TH - TMB - yv / ymax * (TH - TMT - TMB));
	}
	ft_strbuf_adds(sb, "\"/>\n</svg>\n");
}

static struct tr_port *
port_of(struct ft_vec *ports, const char *name)
{
	struct tr_port *p;

	for (size_t i = 0; i < ports->len; i++) {
		p = ft_vec_at(ports, i);
		if (strcmp(p->name, name) == 0)
			return p;
	}
	if (ports->len >= MAX_TRACED)
		return NULL;
	p = ft_calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	ft_strlcpy(p->name, name, sizeof(p->name));
	if (ft_vec_push(ports, p) < 0) {
		ft_free(p);
		return NULL;
	}
	ft_free(p);
	return ft_vec_at(ports, ports->len - 1);
}

int
ft__html_traces(const struct ft_report_input *in, struct ft_strbuf *sb)
{
	const struct ft_obs_set *obs = &in->run->obs;
	struct ft_vec ports;
	size_t i;

	ft_vec_init(&ports, sizeof(struct tr_port));
	for (i = 0; i < ft_obs_set_len(obs); i++) {
		const struct ft_obs *o = ft_obs_set_at(obs, i);
		bool rate = strcmp(o->key, "sim.trace.rate") == 0;
		bool queue = strcmp(o->key, "sim.trace.queue") == 0;
		bool ival = strcmp(o->key, "sim.trace.interval") == 0;
		struct tr_port *p;

		if ((!rate && !queue && !ival) || !o->has_num || !o->device[0])
			continue;
		if (!ival && (o->port < 0 || o->port >= FT_SIM_TRACE_POINTS))
			continue;
		p = port_of(&ports, o->device);
		if (!p) {
			if (ports.len < MAX_TRACED) {
				ft_vec_release(&ports);
				return FT_ENOMEM;
			}
			continue;
		}
		if (ival) {
			p->interval_s = o->num;
			continue;
		}
		(rate ? p->rate_GBps : p->queue_bytes)[o->port] = o->num;
		p->n = FT_MAX(p->n, (size_t)o->port + 1);
	}
	if (ports.len) {
		ft_strbuf_adds(sb, "<section id=\"traces\">\n<h2>Port traces</h2>\n"
		                   "<p class=\"note\">Simulated ports traced with --trace: the rate "
		                   "each sent (wire bytes, headers included) and its egress queue, "
		                   "averaged over each interval.</p>\n");
		for (i = 0; i < ports.len; i++) {
			const struct tr_port *p = ft_vec_at(&ports, i);
			char id[48], title[128];
			double dt_us = p->interval_s * 1e6;

			if (!p->n || !(dt_us > 0))
				continue;
			snprintf(id, sizeof(id), "trace-rate-%zu", i);
			snprintf(title, sizeof(title), "%s: rate", p->name);
			time_chart(sb, id, title, "GB/s", p->rate_GBps, p->n, dt_us, 1, "#1f77b4");
			snprintf(id, sizeof(id), "trace-queue-%zu", i);
			snprintf(title, sizeof(title), "%s: egress queue", p->name);
			time_chart(sb, id, title, "KB", p->queue_bytes, p->n, dt_us, 1e-3, "#d62728");
		}
		ft_strbuf_adds(sb, "</section>\n");
	}
	ft_vec_release(&ports);
	return 0;
}

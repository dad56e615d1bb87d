/* SPDX-License-Identifier: MIT */
/*
 * report/svg_trace.c - the HTML report's traces: for every port a simulation
 * traced (`fabtune sim --trace ... --save`, observations sim.trace.interval,
 * sim.trace.rate and sim.trace.queue), its sending rate and its egress queue
 * over time, and for every QP it traced (--trace-qps, sim.trace.qp.interval
 * and sim.trace.qp.rate) its reaction point's rate: inline SVG line charts on
 * a linear time axis. Coordinates are printed with one decimal so the same
 * data gives the same bytes.
 */
#include "report_int.h"

#include <fabtune/sim.h>

#define TW  680.0
#define TH  220.0
#define TML 70.0 /* margins: left, right, top, bottom */
#define TMR 20.0
#define TMT 34.0
#define TMB 40.0

#define MAX_TRACED 16 /* ports charted, and QPs */

struct tr_port {
	char name[48];
	bool qp; /* a QP's reaction point (rate in Gb/s), else a port (GB/s, queue) */
	double interval_s;
	size_t n; /* points: 1 + the largest index seen */
	double rate[FT_SIM_TRACE_POINTS];
	double queue_bytes[FT_SIM_TRACE_POINTS];
};

/* What a trace observation holds, by its key. */
enum tr_kind { TR_NONE, TR_INTERVAL, TR_RATE, TR_QUEUE };

static enum tr_kind
tr_kind(const char *key, bool *qp)
{
	static const char *const keys[2][3] = {
		{ "sim.trace.interval", "sim.trace.rate", "sim.trace.queue" },
		{ "sim.trace.qp.interval", "sim.trace.qp.rate", "" },
	};

	for (size_t q = 0; q < 2; q++)
		for (size_t i = 0; i < 3; i++)
			if (keys[q][i][0] && strcmp(key, keys[q][i]) == 0) {
				*qp = q == 1;
				return (enum tr_kind)(TR_INTERVAL + i);
			}
	return TR_NONE;
}

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

/* The series of port (or QP) @name; NULL past MAX_TRACED of its kind (*@full) or out
 * of memory. */
static struct tr_port *
port_of(struct ft_vec *ports, const char *name, bool qp, bool *full)
{
	struct tr_port *p;
	size_t same = 0;

	for (size_t i = 0; i < ports->len; i++) {
		p = ft_vec_at(ports, i);
		if (p->qp == qp && strcmp(p->name, name) == 0)
			return p;
		same += p->qp == qp;
	}
	if ((*full = same >= MAX_TRACED))
		return NULL;
	p = ft_calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	ft_strlcpy(p->name, name, sizeof(p->name));
	p->qp = qp;
	if (ft_vec_push(ports, p) < 0) {
		ft_free(p);
		return NULL;
	}
	ft_free(p);
	return ft_vec_at(ports, ports->len - 1);
}

/* The charts of the series of one kind (@qp), after the section's heading. */
static void
tr_section(const struct ft_vec *ports, bool qp, struct ft_strbuf *sb)
{
	size_t i, k = 0;

	for (i = 0; i < ports->len; i++)
		k += ((const struct tr_port *)ft_vec_at(ports, i))->qp == qp;
	if (!k)
		return;
	if (qp)
		ft_strbuf_adds(sb, "<section id=\"qp-traces\">\n<h2>QP rates</h2>\n"
		                   "<p class=\"note\">QPs traced with --trace-qps: the rate their "
		                   "reaction point allows (DCQCN's current rate, InfiniBand CC's "
		                   "table rate; the line rate while not limited), averaged over "
		                   "each interval. A cut and its recovery make a saw-tooth.</p>\n");
	else
		ft_strbuf_adds(sb, "<section id=\"traces\">\n<h2>Port traces</h2>\n"
		                   "<p class=\"note\">Simulated ports traced with --trace: the rate "
		                   "each sent (wire bytes, headers included) and its egress queue, "
		                   "averaged over each interval.</p>\n");
	for (i = 0, k = 0; i < ports->len; i++) {
		const struct tr_port *p = ft_vec_at(ports, i);
		char id[48], title[128];
		double dt_us = p->interval_s * 1e6;

		if (p->qp != qp)
			continue;
		k++;
		if (!p->n || !(dt_us > 0))
			continue;
		snprintf(id, sizeof(id), qp ? "trace-qp-rate-%zu" : "trace-rate-%zu", k - 1);
		snprintf(title, sizeof(title), qp ? "%s: reaction-point rate" : "%s: rate", p->name);
		time_chart(sb, id, title, qp ? "Gb/s" : "GB/s", p->rate, p->n, dt_us, 1,
		           qp ? "#2ca02c" : "#1f77b4");
		if (qp)
			continue;
		snprintf(id, sizeof(id), "trace-queue-%zu", k - 1);
		snprintf(title, sizeof(title), "%s: egress queue", p->name);
		time_chart(sb, id, title, "KB", p->queue_bytes, p->n, dt_us, 1e-3, "#d62728");
	}
	ft_strbuf_adds(sb, "</section>\n");
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
		bool qp = false, full = false;
		enum tr_kind kind = tr_kind(o->key, &qp);
		struct tr_port *p;

		if (kind == TR_NONE || !o->has_num || !o->device[0])
			continue;
		if (kind != TR_INTERVAL && (o->port < 0 || o->port >= FT_SIM_TRACE_POINTS))
			continue;
		p = port_of(&ports, o->device, qp, &full);
		if (!p) {
			if (!full) {
				ft_vec_release(&ports);
				return FT_ENOMEM;
			}
			continue;
		}
		if (kind == TR_INTERVAL) {
			p->interval_s = o->num;
			continue;
		}
		(kind == TR_RATE ? p->rate : p->queue_bytes)[o->port] = o->num;
		p->n = FT_MAX(p->n, (size_t)o->port + 1);
	}
	tr_section(&ports, false, sb);
	tr_section(&ports, true, sb);
	ft_vec_release(&ports);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * plan/html.c - the page of `fabtune plan --html FILE`: a self-contained page (no
 * script, no external resource) with the plan's figures, a timeline of one
 * iteration (forward and backward passes per pipeline stage, the exposed
 * communication inside each, the data-parallel tail), the memory per GPU as
 * a stacked bar against the GPU's capacity, the communications table, and
 * the search's frontier (tokens/s against memory per GPU of the layouts
 * that fit, the plan marked) with the configurations it could not plan.
 * With virtual stages each box is one model chunk of a micro-batch.
 */
#include "plan_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define W 960.0

static void
esc(struct ft_strbuf *sb, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': ft_strbuf_adds(sb, "&lt;"); break;
		case '>': ft_strbuf_adds(sb, "&gt;"); break;
		case '&': ft_strbuf_adds(sb, "&amp;"); break;
		case '"': ft_strbuf_adds(sb, "&quot;"); break;
		default: ft_strbuf_addch(sb, *s);
		}
	}
}

static void
timeline(struct ft_strbuf *sb, const struct ft_plan *p, const struct ft_plan_event *ev, size_t n)
{
	uint32_t P = p->cfg.pp ? p->cfg.pp : 1, shown = P > 32 ? 32 : P, s;
	double end = 0, x0 = 70, row = P > 16 ? 12 : 22, scale, h;
	size_t i;

	for (i = 0; i < n; i++)
		end = FT_MAX(end, ev[i].t1_s);
	scale = end > 0 ? (W - x0 - 10) / end : 0;
	h = (shown + 1) * row + 40;
	ft_strbuf_addf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
	               "font-family=\"sans-serif\" font-size=\"11\">\n", W, h);
	for (s = 0; s < shown; s++)
		ft_strbuf_addf(sb, "<text x=\"4\" y=\"%.1f\">stage %u</text>\n", (s + 0.75) * row, s);
	ft_strbuf_addf(sb, "<text x=\"4\" y=\"%.1f\">dp</text>\n", (shown + 0.75) * row);
	for (i = 0; i < n; i++) {
		const struct ft_plan_event *e = &ev[i];
		double x = x0 + e->t0_s * scale, w = (e->t1_s - e->t0_s) * scale;
		double wc = e->comm_s * scale, y;
		const char *fill = e->kind == FT_EVENT_FWD ? "#4e79a7" :
		                   e->kind == FT_EVENT_BWD ? "#59a14f" : "#f28e2b";

		if (e->kind != FT_EVENT_DP && e->stage >= shown)
			continue;
		y = (e->kind == FT_EVENT_DP ? shown : e->stage) * row + 2;
		ft_strbuf_addf(sb, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
		               "fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.3\"/>\n",
		               x, y, FT_MAX(w, 0.2), row - 4, fill);
		if (e->kind != FT_EVENT_DP && wc > 0.05)
			ft_strbuf_addf(sb, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" "
			               "fill=\"#e15759\"/>\n", x + w - wc, y, wc, row - 4);
	}
	ft_strbuf_addf(sb, "<text x=\"%.0f\" y=\"%.1f\">0</text><text x=\"%.0f\" y=\"%.1f\" "
	               "text-anchor=\"end\">%.3f s</text>\n",
	               x0, h - 20, W - 10, h - 20, end);
	ft_strbuf_addf(sb, "<g transform=\"translate(%.0f,%.1f)\">"
	               "<rect width=\"10\" height=\"10\" fill=\"#4e79a7\"/><text x=\"14\" y=\"9\">forward"
	               "</text><rect x=\"80\" width=\"10\" height=\"10\" fill=\"#59a14f\"/><text x=\"94\" "
	               "y=\"9\">backward</text><rect x=\"170\" width=\"10\" height=\"10\" "
	               "fill=\"#e15759\"/><text x=\"184\" y=\"9\">exposed TP/CP/EP/PP</text><rect "
	               "x=\"320\" width=\"10\" height=\"10\" fill=\"#f28e2b\"/><text x=\"334\" y=\"9\">"
	               "exposed DP</text></g>\n</svg>\n",
	               x0, h - 14);
	if (shown < P)
		ft_strbuf_addf(sb, "<p>The first %u of %u stages are drawn.</p>\n", shown, P);
}

static void
memory(struct ft_strbuf *sb, const struct ft_plan_memory *mm)
{
	const struct { const char *name; uint64_t b; const char *fill; } it[] = {
		{ "weights", mm->weights, "#4e79a7" },
		{ "gradients", mm->grads, "#59a14f" },
		{ "optimizer", mm->optimizer, "#edc948" },
		{ "activations", mm->activations, "#e15759" },
		{ "buffers", mm->comm_buffers, "#76b7b2" },
		{ "reserve", mm->reserve, "#bab0ac" },
	};
	double top = (double)FT_MAX(mm->total, mm->capacity), x = 10, scale = (W - 20) / top;
	size_t i;

	ft_strbuf_addf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"80\" "
	               "font-family=\"sans-serif\" font-size=\"11\">\n", W);
	for (i = 0; i < FT_ARRAY_SIZE(it); i++) {
		double w = (double)it[i].b * scale;

		ft_strbuf_addf(sb, "<rect x=\"%.2f\" y=\"10\" width=\"%.2f\" height=\"30\" fill=\"%s\">"
		               "<title>%s %.1f GB</title></rect>\n",
		               x, w, it[i].fill, it[i].name, it[i].b / 1e9);
		ft_strbuf_addf(sb, "<rect x=\"%.0f\" y=\"55\" width=\"10\" height=\"10\" fill=\"%s\"/>"
		               "<text x=\"%.0f\" y=\"64\">%s %.1f GB</text>\n",
		               10 + i * 150.0, it[i].fill, 24 + i * 150.0, it[i].name, it[i].b / 1e9);
		x += w;
	}
	ft_strbuf_addf(sb, "<line x1=\"%.2f\" x2=\"%.2f\" y1=\"4\" y2=\"46\" stroke=\"#000\" "
	               "stroke-width=\"2\"/><text x=\"%.2f\" y=\"9\" text-anchor=\"end\">capacity "
	               "%.0f GB</text>\n</svg>\n",
	               10 + mm->capacity * scale, 10 + mm->capacity * scale,
	               10 + mm->capacity * scale - 4, mm->capacity / 1e9);
}

static void
frontier(struct ft_strbuf *sb, const struct ft_plan *p, const struct ft_plan_search_row *rows,
         size_t n)
{
	double tmax = p->tokens_per_s, mmax = (double)p->mem.capacity, H = 300, x0 = 60;
	size_t i;

	for (i = 0; i < n; i++)
		tmax = FT_MAX(tmax, rows[i].tokens_per_s);
	tmax *= 1.05;
	ft_strbuf_addf(sb, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
	               "font-family=\"sans-serif\" font-size=\"11\">\n"
	               "<line x1=\"%.0f\" y1=\"10\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#000\"/>"
	               "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"#000\"/>\n"
	               "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">memory per GPU (GB), up to "
	               "%.0f</text><text x=\"4\" y=\"20\">tokens/s</text><text x=\"4\" y=\"34\">"
	               "%.3g</text>\n",
	               W, H + 30, x0, x0, H, x0, H, W - 10, H, W - 10, H + 20, mmax / 1e9, tmax);
	for (i = 0; i < n; i++) {
		const struct ft_plan_config *c = &rows[i].cfg;
		double x = x0 + (double)rows[i].mem_bytes / mmax * (W - x0 - 20);
		double y = H - rows[i].tokens_per_s / tmax * (H - 20);

		ft_strbuf_addf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#4e79a7\">"
		               "<title>tp %u cp %u pp %u vpp %u dp %u ep %u mb %u ZeRO-%u %s: %.0f "
		               "tokens/s</title></circle>\n",
		               x, y, c->tp, c->cp, c->pp, c->vpp, c->dp, c->ep, c->micro_batch, c->zero,
		               ft_plan_recompute_name(c->recompute), rows[i].tokens_per_s);
	}
	ft_strbuf_addf(sb, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"none\" stroke=\"#e15759\" "
	               "stroke-width=\"2\"><title>this plan</title></circle>\n</svg>\n",
	               x0 + (double)p->mem.total / mmax * (W - x0 - 20),
	               H - p->tokens_per_s / tmax * (H - 20));
}

/*
 * The configurations the search could not plan, as the text's second comment line and the
 * JSON's failed / first_failure say them (render.c search_failures_text()): how many, the
 * first one's layout and the planner's error, escaped. Nothing where there were none.
 */
static void
failures(struct ft_strbuf *sb, const struct ft_plan_search_failures *f)
{
	const struct ft_plan_config *c;

	if (!f || !f->n)
		return;
	c = &f->first;
	ft_strbuf_addf(sb,
	               "<p>%zu configuration%s could not be planned; the first, tp %u cp %u pp %u "
	               "vpp %u dp %u ep %u mb %u ZeRO-%u recompute %s order ",
	               f->n, f->n == 1 ? "" : "s", c->tp, c->cp, c->pp, c->vpp, c->dp, c->ep,
	               c->micro_batch, c->zero, ft_plan_recompute_name(c->recompute));
	esc(sb, c->order[0] ? c->order : "tp-cp-pp-dp");
	ft_strbuf_addf(sb, " (%s): ", ft_err_name(f->first_err.code));
	esc(sb, f->first_err.msg);
	ft_strbuf_adds(sb, "</p>\n");
}

int
ft_plan_html(const char *spec_arg, const struct ft_plan *p, const struct ft_plan_event *ev,
              size_t nev, const struct ft_plan_search_row *rows, size_t nrows, size_t tried,
              const struct ft_plan_search_failures *failed, struct ft_strbuf *sb)
{
	size_t i;

	ft_strbuf_adds(sb, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>fabtune plan: ");
	esc(sb, p->model.name);
	ft_strbuf_adds(sb, "</title><style>body{font-family:sans-serif;margin:20px;max-width:1000px}"
	                   "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;"
	                   "text-align:right}th{background:#eee}</style></head><body>\n<h1>");
	esc(sb, p->model.name);
	ft_strbuf_adds(sb, " on ");
	esc(sb, spec_arg);
	ft_strbuf_addf(sb, "</h1>\n<p>%u GPUs; tp %u, cp %u, pp %u (vpp %u), dp %u, ep %u; batch %" PRIu64
	               " sequences of %u tokens in %u micro-batches of %u; %s, ZeRO-%u, recompute %s, "
	               "sp %s.</p>\n",
	               p->ngpus, p->cfg.tp, p->cfg.cp, p->cfg.pp, p->cfg.vpp, p->cfg.dp, p->cfg.ep,
	               p->cfg.global_batch, p->model.seq, p->m, p->cfg.micro_batch,
	               ft_plan_precision_name(p->cfg.precision), p->cfg.zero,
	               ft_plan_recompute_name(p->cfg.recompute),
	               p->cfg.sp && p->cfg.tp > 1 ? "on" : "off");
	ft_strbuf_addf(sb, "<table><tr><th>iteration</th><th>tokens/s</th><th>MFU</th><th>bubble</th>"
	               "<th>communication exposed</th><th>overlap</th><th>network cost</th>"
	               "<th>bottleneck</th></tr>\n<tr><td>%.3f s</td><td>%.0f</td><td>%.1f%%</td>"
	               "<td>%.1f%%</td><td>%.3f s</td><td>%.1f%%</td><td>%.1f%% = %.1f GPUs</td>"
	               "<td>%s</td></tr></table>\n",
	               p->iter_s, p->tokens_per_s, 100 * p->mfu, 100 * p->bubble_share,
	               p->comm_exposed_s, 100 * p->overlap, 100 * p->comm_share, p->gpus_worth,
	               p->bottleneck);
	ft_strbuf_adds(sb, "<h2>One iteration</h2>\n");
	timeline(sb, p, ev, nev);
	ft_strbuf_addf(sb, "<h2>Memory per GPU (stage %u): %.1f of %.0f GB, %s</h2>\n", p->mem.stage,
	               p->mem.total / 1e9, p->mem.capacity / 1e9,
	               p->mem.fits ? "fits" : "does not fit");
	memory(sb, &p->mem);
	ft_strbuf_adds(sb, "<h2>Communication per iteration (one GPU)</h2>\n<table><tr><th>group</th>"
	                   "<th>op</th><th>what</th><th>bytes</th><th>count</th><th>time/op (us)</th>"
	                   "<th>total (ms)</th><th>exposed (ms)</th><th>algo</th><th>bottleneck</th>"
	                   "</tr>\n");
	for (i = 0; i < p->ncomms; i++) {
		const struct ft_plan_comm *c = &p->comms[i];

		ft_strbuf_addf(sb, "<tr><td>%s</td><td>%s</td><td>", ft_plan_group_name(c->group),
		               ft_op_name(c->op));
		esc(sb, c->what);
		ft_strbuf_addf(sb, "</td><td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%.1f</td><td>%.2f"
		               "</td><td>%.2f</td><td>%s</td><td>%s</td></tr>\n",
		               c->bytes, c->count, c->op_s * 1e6, c->total_s * 1e3, c->exposed_s * 1e3,
		               c->algo, c->bottleneck);
	}
	ft_strbuf_adds(sb, "</table>\n");
	ft_strbuf_addf(sb, "<h2>Search frontier: the %zu best layouts of %zu tried</h2>\n", nrows,
	               tried);
	failures(sb, failed);
	frontier(sb, p, rows, nrows);
	ft_strbuf_adds(sb, "</body></html>\n");
	return 0;
}

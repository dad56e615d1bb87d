/* SPDX-License-Identifier: MIT */
/*
 * workflow/doctor_write.c - a doctor run as people and programs read it:
 * the summary (what was probed and measured, the results against the
 * baseline, the model's plateau, the findings, what was not checked, the
 * verdict) and the same as one JSON object.
 */
#include "internal.h"

#include <fabtune/json.h>
#include <fabtune/parse.h>
#include <fabtune/table.h>
#include <fabtune/units.h>
#include <fabtune/workflow.h>

static void
row_figure(const struct ft_result_row *r, char *buf, size_t len)
{
	if (r->lat_p50_us > 0 && isfinite(r->lat_p50_us))
		snprintf(buf, len, "p50 %.2f us, p99 %.2f us", r->lat_p50_us, r->lat_p99_us);
	else if (r->busbw_GBps > 0 && isfinite(r->busbw_GBps) && strncmp(r->test, "pt2pt", 5))
		snprintf(buf, len, "busbw %.2f GB/s (%.0f us)", r->busbw_GBps, r->time_us);
	else if (r->algbw_GBps > 0 && isfinite(r->algbw_GBps))
		snprintf(buf, len, "%.2f GB/s", r->algbw_GBps);
	else
		ft_strlcpy(buf, "-", len);
}

static size_t
count_sev(const struct ft_doctor_result *res, enum ft_severity s)
{
	size_t i, n = 0;

	for (i = 0; i < ft_findings_len(&res->findings); i++)
		n += ft_findings_at(&res->findings, i)->severity == s;
	return n;
}

void
ft_doctor_write_text(struct ft_strbuf *sb, const struct ft_doctor_result *res,
                     const struct ft_doctor_view *v)
{
	size_t i, nf = ft_findings_len(&res->findings);
	struct ft_table t;

	ft_strbuf_addf(sb, "fabtune doctor: %s\n\n", res->host);
	ft_strbuf_addf(sb,
	               "probe:     %zu observations from %zu host%s: %g GPU%s, %zu RDMA "
	               "device%s\n",
	               res->nprobe_obs, res->nhosts, res->nhosts == 1 ? "" : "s", res->ngpus,
	               res->ngpus == 1 ? "" : "s", res->nrdma, res->nrdma == 1 ? "" : "s");
	if (res->ntransports) {
		ft_strbuf_addf(sb, "bench:     %u %s ranks over", res->nranks,
		               res->under_mpi ? "MPI" : "local");
		for (i = 0; i < res->ntransports; i++)
			ft_strbuf_addf(sb, "%s%s", i ? ", " : " ", res->transports[i]);
		ft_strbuf_addf(sb, ": %zu results", ft_run_nrows(&res->rec.run));
		if (!v->stable)
			ft_strbuf_addf(sb, " in %.1f s", res->bench_s);
		ft_strbuf_adds(sb, "\n");
	}
	if (ft_run_nrows(&res->rec.run)) {
		ft_strbuf_adds(sb, "\n");
		ft_table_init(&t);
		ft_table_col(&t, "transport", FT_ALIGN_LEFT);
		ft_table_col(&t, "test", FT_ALIGN_LEFT);
		ft_table_col(&t, "size", FT_ALIGN_RIGHT);
		ft_table_col(&t, "result", FT_ALIGN_LEFT);
		ft_table_col(&t, "vs baseline", FT_ALIGN_LEFT);
		for (i = 0; i < ft_run_nrows(&res->rec.run); i++) {
			const struct ft_result_row *r = ft_run_row(&res->rec.run, i);
			char size[32], fig[96];

			ft_format_size(r->bytes, size, sizeof(size));
			row_figure(r, fig, sizeof(fig));
			(void)ft_table_cell(&t, r->transport);
			(void)ft_table_cell(&t, r->test);
			(void)ft_table_cell(&t, size);
			(void)ft_table_cell(&t, fig);
			if (res->have_cmp && i < res->cmp.rows.len) {
				const struct ft_compare_row *c = ft_vec_at(&res->cmp.rows, i);

				if (isfinite(c->delta_rel))
					(void)ft_table_cellf(&t, "%s %+.1f%%",
					                     ft_verdict_name(c->verdict),
					                     100.0 * c->delta_rel);
				else
					(void)ft_table_cell(&t, ft_verdict_name(c->verdict));
			} else {
				(void)ft_table_cell(&t, "-");
			}
		}
		ft_table_render(&t, sb);
		ft_table_release(&t);
		ft_strbuf_adds(sb, "\n");
	}
	if (res->have_spec) {
		ft_strbuf_addf(sb, "model:     %s", res->spec_name);
		if (isfinite(res->plateau_busbw_GBps))
			ft_strbuf_addf(
			        sb, ": all_reduce of 1GiB on %u GPUs should reach busbw %.1f GB/s",
			        res->plateau_ranks, res->plateau_busbw_GBps);
		ft_strbuf_addf(sb, "; %zu measured point%s compared\n", res->expect.len,
		               res->expect.len == 1 ? "" : "s");
	}
	ft_strbuf_addf(
	        sb, "diagnosis: %zu finding%s (%zu critical, %zu error, %zu warning, %zu info)\n",
	        nf, nf == 1 ? "" : "s", count_sev(res, FT_SEV_CRITICAL), count_sev(res, FT_SEV_ERROR),
	        count_sev(res, FT_SEV_WARNING), count_sev(res, FT_SEV_INFO));
	for (i = 0; i < nf; i++) {
		const struct ft_finding *f = ft_findings_at(&res->findings, i);

		/* a finding about a measurement names the run it comes from */
		ft_strbuf_addf(sb, "  [%s] %s %s: %s\n", ft_severity_name(f->severity), f->rule_id,
		               f->entity[0]                           ? f->entity :
		               f->nevidence && f->evidence[0].file[0] ? f->evidence[0].file :
		                                                        "-",
		               f->message);
	}
	if (v->archive_path) {
		if (v->no_save)
			ft_strbuf_addf(sb, "archive:   not saved (--no-save)\n");
		else if (v->stable)
			ft_strbuf_addf(sb, "archive:   saved run %" PRId64 "\n", res->run_id);
		else
			ft_strbuf_addf(sb, "archive:   saved run %" PRId64 " to %s\n", res->run_id,
			               v->archive_path);
		if (res->new_baseline)
			ft_strbuf_addf(
			        sb,
			        "baseline:  none yet for this host: this run is now baseline "
			        "'%s'\n",
			        res->baseline);
		else if (!res->have_cmp)
			ft_strbuf_addf(sb, "baseline:  none ('%s'), and this run was not saved\n",
			               res->baseline);
		else {
			ft_strbuf_addf(sb, "baseline:  compared with %s:", res->base_label);
			for (i = 0; i < FT_VERDICT_COUNT; i++)
				if (res->cmp.count[i])
					ft_strbuf_addf(sb, " %zu %s", res->cmp.count[i],
					               ft_verdict_name((enum ft_verdict)i));
			if (ft_compare_is_incomplete(&res->cmp))
				ft_strbuf_addf(sb, "; only %zu of %zu baseline results matched "
				                   "(other transports or sizes)",
				               res->cmp.nmatched,
				               res->cmp.nmatched + res->cmp.count[FT_VERDICT_MISSING]);
			if (res->forming)
				ft_strbuf_addf(sb, "; this run added to it (%zu of %d runs: changes are "
				                   "judged once it has them)\n",
				               res->base.len + 1, FT_DOCTOR_FORMING_RUNS);
			else
				ft_strbuf_adds(sb, res->added_to_baseline ? "; this run added to it\n" :
				                                            "\n");
		}
	}
	if (res->notes.len) {
		ft_strbuf_adds(sb, "not checked:\n");
		for (i = 0; i < res->notes.len; i++) {
			const struct ft_doctor_note *u = ft_vec_at(&res->notes, i);

			ft_strbuf_addf(sb, "  %s: %s\n", u->what, u->why);
		}
	}
	if (v->report)
		ft_strbuf_addf(sb, "report:    %s\n", v->report);
	ft_strbuf_addf(sb, "verdict:   %s%s%s\n",
	               !v->color       ? "" :
	               v->exit_code == 0 ? FT_ANSI_GREEN :
	                                         FT_ANSI_BOLD_RED,
	               v->exit_code == 0      ? "healthy" :
	               v->exit_code == 3 ? "incomplete (see the errors above)" :
	               ft_doctor_regressed(res) ?
	                                              "regression against the baseline" :
	                                              "findings to look at",
	               v->color ? FT_ANSI_RESET : "");
}

void
ft_doctor_write_json(struct ft_strbuf *sb, const struct ft_doctor_result *res,
                     const struct ft_doctor_view *v)
{
	struct ft_json j;
	size_t i;

	ft_json_init(&j, sb, true);
	ft_json_obj_begin(&j);
	ft_json_kv_str(&j, "host", res->host);
	ft_json_kv_str(&j, "status",
	               v->exit_code == 0      ? "healthy" :
	               v->exit_code == 1 ? "problems" :
	                                              "incomplete");
	ft_json_kv_int(&j, "exit", v->exit_code);
	ft_json_key(&j, "probe");
	ft_json_obj_begin(&j);
	ft_json_kv_uint(&j, "observations", res->nprobe_obs);
	ft_json_kv_uint(&j, "hosts", res->nhosts);
	ft_json_kv_double(&j, "gpus", res->ngpus);
	ft_json_kv_uint(&j, "rdma_devices", res->nrdma);
	ft_json_obj_end(&j);
	ft_json_key(&j, "bench");
	ft_json_obj_begin(&j);
	ft_json_kv_uint(&j, "ranks", res->ntransports ? res->nranks : 0);
	ft_json_kv_bool(&j, "mpi", res->under_mpi);
	ft_json_key(&j, "transports");
	ft_json_arr_begin(&j);
	for (i = 0; i < res->ntransports; i++)
		ft_json_str(&j, res->transports[i]);
	ft_json_arr_end(&j);
	if (!v->stable)
		ft_json_kv_double(&j, "seconds", res->bench_s);
	ft_json_key(&j, "rows");
	ft_parse_rows_to_json(&j, &res->rec.run);
	ft_json_obj_end(&j);
	ft_json_key(&j, "model");
	if (res->have_spec) {
		ft_json_obj_begin(&j);
		ft_json_kv_str(&j, "spec", res->spec_name);
		if (isfinite(res->plateau_busbw_GBps))
			ft_json_kv_double(&j, "plateau_busbw_GBps", res->plateau_busbw_GBps);
		ft_json_kv_uint(&j, "compared", res->expect.len);
		ft_json_key(&j, "rows");
		ft_parse_rows_to_json(&j, &res->model);
		ft_json_obj_end(&j);
	} else {
		ft_json_null(&j);
	}
	ft_json_key(&j, "diagnosis");
	ft_diag_json(&j, &res->findings, ft_obs_set_len(&res->rec.obs));
	ft_json_key(&j, "unchecked");
	ft_json_arr_begin(&j);
	for (i = 0; i < res->notes.len; i++) {
		const struct ft_doctor_note *u = ft_vec_at(&res->notes, i);

		ft_json_obj_begin(&j);
		ft_json_kv_str(&j, "what", u->what);
		ft_json_kv_str(&j, "why", u->why);
		ft_json_obj_end(&j);
	}
	ft_json_arr_end(&j);
	ft_json_key(&j, "archive");
	if (v->archive_path) {
		ft_json_obj_begin(&j);
		if (!v->stable)
			ft_json_kv_str(&j, "path", v->archive_path);
		if (v->no_save)
			ft_json_kv_str(&j, "saved", "no");
		else
			ft_json_kv_int(&j, "run", res->run_id);
		ft_json_kv_str(&j, "baseline", res->baseline);
		ft_json_kv_bool(&j, "new_baseline", res->new_baseline);
		ft_json_key(&j, "compare");
		if (res->have_cmp) {
			ft_json_obj_begin(&j);
			ft_json_kv_uint(&j, "baseline_runs", res->base.len);
			ft_json_kv_bool(&j, "forming", res->forming);
			ft_json_kv_uint(&j, "matched", res->cmp.nmatched);
			ft_json_kv_bool(&j, "incomplete", ft_compare_is_incomplete(&res->cmp));
			for (i = 0; i < FT_VERDICT_COUNT; i++)
				ft_json_kv_uint(&j, ft_verdict_name((enum ft_verdict)i),
				                res->cmp.count[i]);
			ft_json_key(&j, "regressions");
			ft_json_arr_begin(&j);
			for (i = 0; i < res->cmp.rows.len; i++) {
				const struct ft_compare_row *c = ft_vec_at(&res->cmp.rows, i);

				if (c->verdict != FT_VERDICT_REGRESSED)
					continue;
				ft_json_obj_begin(&j);
				ft_json_kv_str(&j, "test", c->test);
				ft_json_kv_str(&j, "transport", c->transport);
				ft_json_kv_uint(&j, "bytes", c->bytes);
				ft_json_kv_str(&j, "metric", c->metric);
				ft_json_kv_double(&j, "current", c->current);
				ft_json_kv_double(&j, "baseline", c->base_mean);
				ft_json_kv_double(&j, "delta_rel", c->delta_rel);
				ft_json_kv_double(&j, "threshold_rel", c->threshold_rel);
				ft_json_obj_end(&j);
			}
			ft_json_arr_end(&j);
			ft_json_obj_end(&j);
		} else {
			ft_json_null(&j);
		}
		ft_json_obj_end(&j);
	} else {
		ft_json_null(&j);
	}
	ft_json_key(&j, "report");
	if (v->report)
		ft_json_str(&j, v->report);
	else
		ft_json_null(&j);
	ft_json_obj_end(&j);
	ft_strbuf_addch(sb, '\n');
}


int
ft_doctor_write_html(struct ft_strbuf *sb, const struct ft_doctor_result *res, bool stable,
                     struct ft_error *err)
{
	struct ft_report_input in = { 0 };
	char title[160];

	snprintf(title, sizeof(title), "fabtune doctor: %s", res->host);
	in.run = &res->rec;
	in.expected = ft_run_nrows(&res->model) ? &res->model : NULL;
	in.baseline = res->bruns;
	if (res->have_cmp) {
		const struct ft_archive_record *newest = ft_vec_at(&res->base, res->base.len - 1);

		in.nbaseline = res->base.len;
		in.baseline_label = res->base_label;
		in.cmp = &res->cmp;
		in.baseline_fp = &newest->fp;
	}
	in.title = title;
	in.stable = stable;
	return ft_report_render(&in, FT_REPORT_HTML, sb, err);
}

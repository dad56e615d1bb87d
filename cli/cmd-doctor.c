/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-doctor.c - `fabtune doctor`: the whole loop in one command.
 *
 * The loop itself (probe, benchmark, expectations, diagnosis, archive and
 * baseline) is ft_doctor_run() in the workflow layer; this file checks the
 * options and the outputs before any work, then writes the HTML report and
 * says what the loop found (text or --json) and what it could not check.
 */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <fabtune/fabtune.h>
#include <fabtune/parse.h>
#include <fabtune/workflow.h>

#include "cli-archive.h"
#include "cli.h"

#define DOCTOR_DEFAULT_REPORT "fabtune-report.html"

struct doctor_opts {
	const char *spec, *output, *baseline, *transports, *root;
	bool quick, full, no_bench, no_save, no_report, no_tools, update_baseline;
	uint64_t np;
	double timeout;
};

struct doctor {
	struct cli_ctx *ctx;
	const struct doctor_opts *o;
	struct ft_doctor_result res;
	struct ft_archive *ar; /* opened before the loop (rank 0) */
	bool ran;	       /* res was filled (and must be released) */
	bool report_written;
	int exit_code;
};

static volatile sig_atomic_t stop_flag;

static void
on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* ---- report and summary --------------------------------------------------------- */

static int
report(struct doctor *d)
{
	const struct ft_doctor_result *res = &d->res;
	struct ft_report_input in;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	char title[160];
	int rc;

	if (d->o->no_report)
		return 0;
	memset(&in, 0, sizeof(in));
	snprintf(title, sizeof(title), "fabtune doctor: %s", res->host);
	in.run = &res->rec;
	in.expected = ft_run_nrows(&res->model) ? &res->model : NULL;
	in.baseline = res->bruns;
	in.nbaseline = res->have_cmp ? res->base.len : 0;
	in.baseline_label = res->have_cmp ? res->base_label : NULL;
	in.cmp = res->have_cmp ? &res->cmp : NULL;
	if (res->have_cmp)
		in.baseline_fp =
		        &((const struct ft_archive_record *)ft_vec_at(&res->base, res->base.len - 1))
		                 ->fp;
	in.title = title;
	in.stable = d->ctx->stable;
	ft_strbuf_init(&sb);
	rc = ft_report_render(&in, FT_REPORT_HTML, &sb, &err);
	if (rc == 0)
		rc = cli_write_output(d->o->output, &sb, &err);
	ft_strbuf_release(&sb);
	if (rc < 0)
		return cli_fail(d->ctx, rc, &err);
	d->report_written = true;
	return 0;
}

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
count_sev(const struct doctor *d, enum ft_severity s)
{
	const struct ft_doctor_result *res = &d->res;
	size_t i, n = 0;

	for (i = 0; i < ft_findings_len(&res->findings); i++)
		n += ft_findings_at(&res->findings, i)->severity == s;
	return n;
}

static void
render_text(struct doctor *d, struct ft_strbuf *sb)
{
	const struct ft_doctor_result *res = &d->res;
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
		if (!d->ctx->stable)
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
	        nf, nf == 1 ? "" : "s", count_sev(d, FT_SEV_CRITICAL), count_sev(d, FT_SEV_ERROR),
	        count_sev(d, FT_SEV_WARNING), count_sev(d, FT_SEV_INFO));
	for (i = 0; i < nf; i++) {
		const struct ft_finding *f = ft_findings_at(&res->findings, i);

		/* a finding about a measurement names the run it comes from */
		ft_strbuf_addf(sb, "  [%s] %s %s: %s\n", ft_severity_name(f->severity), f->rule_id,
		               f->entity[0]                           ? f->entity :
		               f->nevidence && f->evidence[0].file[0] ? f->evidence[0].file :
		                                                        "-",
		               f->message);
	}
	if (d->ar) {
		if (d->o->no_save)
			ft_strbuf_addf(sb, "archive:   not saved (--no-save)\n");
		else if (d->ctx->stable)
			ft_strbuf_addf(sb, "archive:   saved run %" PRId64 "\n", res->run_id);
		else
			ft_strbuf_addf(sb, "archive:   saved run %" PRId64 " to %s\n", res->run_id,
			               ft_archive_path(d->ar));
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
			ft_strbuf_adds(sb,
			               res->added_to_baseline ? "; this run added to it\n" : "\n");
		}
	}
	if (res->notes.len) {
		ft_strbuf_adds(sb, "not checked:\n");
		for (i = 0; i < res->notes.len; i++) {
			const struct ft_doctor_note *u = ft_vec_at(&res->notes, i);

			ft_strbuf_addf(sb, "  %s: %s\n", u->what, u->why);
		}
	}
	if (d->report_written)
		ft_strbuf_addf(sb, "report:    %s\n", d->o->output);
	ft_strbuf_addf(sb, "verdict:   %s%s%s\n",
	               !cli_color(d->ctx)       ? "" :
	               d->exit_code == EXIT_OK ? FT_ANSI_GREEN :
	                                         FT_ANSI_BOLD_RED,
	               d->exit_code == EXIT_OK      ? "healthy" :
	               d->exit_code == EXIT_RUNTIME ? "incomplete (see the errors above)" :
	               res->have_cmp && ft_compare_has_regression(&res->cmp) ?
	                                              "regression against the baseline" :
	                                              "findings to look at",
	               cli_color(d->ctx) ? FT_ANSI_RESET : "");
}

static void
render_json(struct doctor *d, struct ft_strbuf *sb)
{
	const struct ft_doctor_result *res = &d->res;
	struct ft_json j;
	size_t i;

	ft_json_init(&j, sb, true);
	ft_json_obj_begin(&j);
	ft_json_kv_str(&j, "host", res->host);
	ft_json_kv_str(&j, "status",
	               d->exit_code == EXIT_OK      ? "healthy" :
	               d->exit_code == EXIT_PROBLEM ? "problems" :
	                                              "incomplete");
	ft_json_kv_int(&j, "exit", d->exit_code);
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
	if (!d->ctx->stable)
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
	if (d->ar) {
		ft_json_obj_begin(&j);
		if (!d->ctx->stable)
			ft_json_kv_str(&j, "path", ft_archive_path(d->ar));
		if (d->o->no_save)
			ft_json_kv_str(&j, "saved", "no");
		else
			ft_json_kv_int(&j, "run", res->run_id);
		ft_json_kv_str(&j, "baseline", res->baseline);
		ft_json_kv_bool(&j, "new_baseline", res->new_baseline);
		ft_json_key(&j, "compare");
		if (res->have_cmp) {
			ft_json_obj_begin(&j);
			ft_json_kv_uint(&j, "baseline_runs", res->base.len);
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
	if (d->report_written)
		ft_json_str(&j, d->o->output);
	else
		ft_json_null(&j);
	ft_json_obj_end(&j);
	ft_strbuf_addch(sb, '\n');
}

/* ---- the command ---------------------------------------------------------------- */

/*
 * Before the probe and the benchmark (a quarter of a minute or more): the
 * launcher makes sense, the report can be written and the archive opens, so
 * a typo in -o or --archive fails at once with exit 2, having saved nothing.
 * Only the rank that writes them checks (rank 0, or the only process).
 */
static int
preflight(struct doctor *d)
{
	struct ft_error err = { 0 };
	unsigned rank = 0;
	int rc = ft_doctor_check_launch(&rank, &err);

	if (rc < 0)
		return cli_fail(d->ctx, rc, &err);
	if (rank != 0)
		return 0;
	if (!d->o->no_report && cli_check_output_path("--output", d->o->output, &err) < 0) {
		cli_error(d->ctx, "%s (checked before the benchmark; nothing was run or saved)",
		          err.msg);
		return EXIT_USAGE;
	}
	rc = cli_archive_open(d->ctx, &d->ar, &err);
	if (rc < 0) {
		cli_error(d->ctx, "%s (checked before the benchmark; nothing was run or saved)",
		          ft_error_msg(&err, rc));
		return EXIT_USAGE;
	}
	return 0;
}

static int
doctor_run(struct doctor *d)
{
	const struct doctor_opts *o = d->o;
	struct ft_doctor_cfg cfg = {
		.spec = o->spec,
		.transports = o->transports,
		.baseline = o->baseline,
		.root = o->root,
		.full = o->full,
		.no_bench = o->no_bench,
		.no_save = o->no_save,
		.no_tools = o->no_tools,
		.update_baseline = o->update_baseline,
		.stable = d->ctx->stable,
		.np = (uint32_t)o->np,
		.timeout_s = o->timeout,
	};
	const struct ft_doctor_result *res = &d->res;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	int rc;

	rc = preflight(d);
	if (rc)
		return rc;
	cfg.ar = d->ar;
	d->ran = true;
	rc = ft_doctor_run(&cfg, &d->ctx->progress, &stop_flag, &d->res, &err);
	ft_progress_bar_finish(&d->ctx->bar);
	if (rc < 0)
		return cli_fail(d->ctx, rc, &err);
	if (!res->root)
		return EXIT_OK; /* the other MPI ranks only take part */
	if (res->nbench_ok == 0 && !o->no_bench) {
		cli_error(d->ctx, "no benchmark could run (see 'not checked' below)");
		d->exit_code = EXIT_RUNTIME;
	}
	/* Without an archive or a report the findings still matter: say them, exit 3. */
	if (res->archive_rc < 0) {
		(void)cli_fail(d->ctx, res->archive_rc, &res->archive_err);
		d->exit_code = EXIT_RUNTIME;
	}
	if (!res->archived && d->ar) {
		ft_archive_close(d->ar);
		d->ar = NULL;
	}
	if (d->exit_code == 0 && (ft_findings_any(&res->findings, FT_SEV_WARNING) ||
	                          (res->have_cmp && ft_compare_has_regression(&res->cmp))))
		d->exit_code = EXIT_PROBLEM;
	if (report(d) != 0)
		d->exit_code = EXIT_RUNTIME;
	ft_strbuf_init(&sb);
	if (d->ctx->json)
		render_json(d, &sb);
	else
		render_text(d, &sb);
	cli_write(&sb);
	ft_strbuf_release(&sb);
	return d->exit_code;
}

int
cmd_doctor(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = {
		"fabtune doctor [--spec SPEC] [-o REPORT.html] [--quick|--full] [options]",
		"mpirun -np N fabtune doctor [options]",
		NULL,
	};
	struct doctor_opts o = { .output = DOCTOR_DEFAULT_REPORT, .np = 2, .timeout = 10 };
	const struct opt opts[] = {
		OPT_STRING(0, "spec", &o.spec, "SPEC",
		           "cluster spec or preset for the model's expectations (default: from "
		           "the GPUs found)"),
		OPT_STRING('o', "output", &o.output, "FILE",
		           "HTML report (default " DOCTOR_DEFAULT_REPORT ")"),
		OPT_BOOL(0, "quick", &o.quick, "short benchmark suite (default; about 10 s)"),
		OPT_BOOL(0, "full", &o.full, "longer suite: more sizes and iterations"),
		OPT_STRING(0, "transports", &o.transports, "LIST",
		           "measure these transports only (tcp,shm,mpi,verbs,nccl; default: every "
		           "usable one)"),
		OPT_U64(0, "np", &o.np, "N", "local ranks to start (default 2)"),
		OPT_DURATION(0, "timeout", &o.timeout,
		             "a rank silent this long has failed (default 10s)"),
		OPT_STRING(0, "baseline", &o.baseline, "NAME",
		           "baseline to compare with (default doctor-HOST)"),
		OPT_BOOL(0, "update-baseline", &o.update_baseline,
		         "add this run to the baseline (more samples: noise-aware thresholds)"),
		OPT_BOOL(0, "no-save", &o.no_save, "do not store the run in the archive"),
		OPT_BOOL(0, "no-bench", &o.no_bench, "probe and diagnose only"),
		OPT_BOOL(0, "no-report", &o.no_report, "do not write the HTML report"),
		OPT_BOOL(0, "no-tools", &o.no_tools,
		         "do not run nvidia-smi, ibv_devinfo or ethtool"),
		OPT_STRING(0, "root", &o.root, "DIR",
		           "probe a captured sysfs tree instead of this host (no tools)"),
		OPT_END(),
	};
	const struct cmd_usage usage = {
		"doctor",
		synopsis,
		"Check this host (or every host under mpirun) end to end: probe, a short benchmark "
		"over every usable transport, the model's expectations, the diagnosis, the archive "
		"and a comparison with the baseline, then a summary and an HTML report. Says what "
		"could not be checked and why. Exit 0 healthy, 1 findings of severity warning or "
		"worse or a regression, 2 usage, 3 runtime error.",
		opts,
	};
	struct sigaction sa, old_int, old_term;
	struct doctor d;
	int n, rc;

	n = opts_parse(&usage, ctx, argc, argv);
	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	if (n > 0) {
		cli_error(ctx, "unexpected argument '%s'", argv[1]);
		return EXIT_USAGE;
	}
	if (o.quick && o.full) {
		cli_error(ctx, "--quick and --full exclude each other");
		return EXIT_USAGE;
	}
	if (o.np < 2 || o.np > 64) {
		cli_error(ctx, "--np %" PRIu64 ": expected 2 to 64 local ranks", o.np);
		return EXIT_USAGE;
	}
	if (!(o.timeout > 0) || o.timeout > 3600) {
		cli_error(ctx, "--timeout: expected a duration above 0 and at most 1h");
		return EXIT_USAGE;
	}
	if (!o.output[0]) {
		cli_error(ctx, "--output: empty file name");
		return EXIT_USAGE;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	stop_flag = 0;
	memset(&d, 0, sizeof(d));
	d.ctx = ctx;
	d.o = &o;
	rc = doctor_run(&d);
	if (d.ran)
		ft_doctor_result_release(&d.res);
	if (d.ar)
		ft_archive_close(d.ar);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return rc;
}

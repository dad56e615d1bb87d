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
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <fabtune/fabtune.h>
#include <fabtune/workflow.h>

#include "cli-archive.h"
#include "cli.h"

#define DOCTOR_DEFAULT_REPORT "fabtune-report.html"

/* The options: what the loop takes (struct ft_doctor_cfg) and what this command does. */
struct doctor_opts {
	struct ft_doctor_cfg cfg;
	const char *output; /* the HTML report */
	bool quick, no_report;
	uint64_t np;
};

struct doctor {
	struct cli_ctx *ctx;
	struct doctor_opts *o;
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
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	int rc;

	if (d->o->no_report)
		return 0;
	ft_strbuf_init(&sb);
	rc = ft_doctor_write_html(&sb, &d->res, d->ctx->stable, &err);
	if (rc == 0)
		rc = cli_write_output(d->o->output, &sb, &err);
	ft_strbuf_release(&sb);
	if (rc < 0)
		return cli_fail(d->ctx, rc, &err);
	d->report_written = true;
	return 0;
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
	if (!d->o->no_report)
		rc = cli_check_output_path("--output", d->o->output, &err);
	if (rc == 0)
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
	struct doctor_opts *o = d->o;
	const struct ft_doctor_result *res = &d->res;
	struct ft_doctor_view view = { 0 };
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	int rc;

	rc = preflight(d);
	if (rc)
		return rc;
	o->cfg.ar = d->ar;
	o->cfg.np = (uint32_t)o->np;
	o->cfg.stable = d->ctx->stable;
	d->ran = true;
	rc = ft_doctor_run(&o->cfg, &d->ctx->progress, &stop_flag, &d->res, &err);
	ft_progress_bar_finish(&d->ctx->bar);
	if (rc < 0)
		return cli_fail(d->ctx, rc, &err);
	if (!res->root)
		return EXIT_OK; /* the other MPI ranks only take part */
	if (res->nbench_ok == 0 && !o->cfg.no_bench) {
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
	                          ft_doctor_regressed(res)))
		d->exit_code = EXIT_PROBLEM;
	if (report(d) != 0)
		d->exit_code = EXIT_RUNTIME;
	view.exit_code = d->exit_code;
	view.archive_path = d->ar ? ft_archive_path(d->ar) : NULL;
	view.report = d->report_written ? o->output : NULL;
	view.no_save = o->cfg.no_save;
	view.stable = d->ctx->stable;
	view.color = cli_color(d->ctx);
	ft_strbuf_init(&sb);
	if (d->ctx->json)
		ft_doctor_write_json(&sb, res, &view);
	else
		ft_doctor_write_text(&sb, res, &view);
	cli_write(&sb);
	ft_strbuf_release(&sb);
	return d->exit_code;
}

int
cmd_doctor(int argc, char **argv, struct cli_ctx *ctx)
{
	struct doctor_opts o = { .cfg.timeout_s = 10, .output = DOCTOR_DEFAULT_REPORT, .np = 2 };
	const struct opt opts[] = {
		OPT_STRING(0, "spec", &o.cfg.spec, "SPEC",
		           "cluster spec or preset for the model's expectations (default: from "
		           "the GPUs found)"),
		OPT_STRING('o', "output", &o.output, "FILE",
		           "HTML report (default " DOCTOR_DEFAULT_REPORT ")"),
		OPT_BOOL(0, "quick", &o.quick, "short benchmark suite (default; about 10 s)"),
		OPT_BOOL(0, "full", &o.cfg.full, "longer suite: more sizes and iterations"),
		OPT_STRING(0, "transports", &o.cfg.transports, "LIST",
		           "measure these transports only (tcp,shm,mpi,verbs,nccl; default: every "
		           "usable one)"),
		OPT_U64(0, "np", &o.np, "N", "local ranks to start (default 2)"),
		OPT_DURATION(0, "timeout", &o.cfg.timeout_s,
		             "a rank silent this long has failed (default 10s)"),
		OPT_STRING(0, "baseline", &o.cfg.baseline, "NAME",
		           "baseline to compare with (default doctor-HOST)"),
		OPT_BOOL(0, "update-baseline", &o.cfg.update_baseline,
		         "add this run to the baseline (more samples: noise-aware thresholds)"),
		OPT_BOOL(0, "no-save", &o.cfg.no_save, "do not store the run in the archive"),
		OPT_BOOL(0, "no-bench", &o.cfg.no_bench, "probe and diagnose only"),
		OPT_BOOL(0, "no-report", &o.no_report, "do not write the HTML report"),
		OPT_BOOL(0, "no-tools", &o.cfg.no_tools,
		         "do not run nvidia-smi, ibv_devinfo or ethtool"),
		OPT_STRING(0, "root", &o.cfg.root, "DIR",
		           "probe a captured sysfs tree instead of this host (no tools)"),
		OPT_END(),
	};
	const struct cmd_usage usage = CMD_USAGE(
		"doctor",
		"Check this host (or every host under mpirun) end to end: probe, a short benchmark "
		"over every usable transport, the model's expectations, the diagnosis, the archive "
		"and a comparison with the baseline, then a summary and an HTML report. Says what "
		"could not be checked and why. Exit 0 healthy, 1 findings of severity warning or "
		"worse or a regression, 2 usage, 3 runtime error.",
		opts, "fabtune doctor [--spec SPEC] [-o REPORT.html] [--quick|--full] [options]",
		"mpirun -np N fabtune doctor [options]");
	struct sigaction sa, old_int, old_term;
	struct doctor d;
	int n, rc;

	n = opts_parse_args(&usage, ctx, argc, argv, 0, &rc);
	if (n < 0)
		return rc;
	if (o.quick && o.cfg.full) {
		cli_error(ctx, "--quick and --full exclude each other");
		return EXIT_USAGE;
	}
	if (o.np < 2 || o.np > 64) {
		cli_error(ctx, "--np %" PRIu64 ": expected 2 to 64 local ranks", o.np);
		return EXIT_USAGE;
	}
	if (!(o.cfg.timeout_s > 0) || o.cfg.timeout_s > 3600) {
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

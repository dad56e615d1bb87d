/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-report.c - `fabtune report RUN [--vs BASELINE] -o report.html`:
 * a run as terminal tables, JSON, CSV, a self-contained HTML page or the
 * Prometheus text format.
 */
#include <stdio.h>
#include <string.h>

#include <fabtune/fabtune.h>
#include <fabtune/workflow.h>

#include "cli-archive.h"
#include "cli-run.h"
#include "cli.h"

/* Render @in as @f into @output (stdout for NULL or "-"), saying what a file got. */
static int
write_report(struct cli_ctx *ctx, struct ft_report_input *in, enum ft_report_format f,
             const char *output)
{
	bool file = output && strcmp(output, "-") != 0;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	int rc;

	in->color = !file && cli_color(ctx); /* colours only for a terminal, never in a file */
	ft_strbuf_init(&sb);
	rc = ft_report_render(in, f, &sb, &err);
	if (rc == 0)
		rc = cli_write_output(output, &sb, &err);
	if (rc == 0 && file)
		fprintf(stderr, "fabtune report: wrote %s (%s, %zu bytes)\n", output,
		        ft_report_format_name(f), sb.len);
	ft_strbuf_release(&sb);
	return rc < 0 ? cli_fail(ctx, rc, &err) : EXIT_OK;
}

int
cmd_report(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = {
		"fabtune report [RUN] [--vs BASELINE] [--expected RUN] [--format F] [-o FILE]", NULL
	};
	const char *vs = NULL, *expected = NULL, *format = NULL, *output = NULL, *title = NULL;
	struct cli_compare_args ca = { .min_samples = -1 };
	const struct opt opts[] = {
		OPT_STRING(0, "vs", &vs, "REF",
		           "compare with a baseline name, a run or an export file"),
		OPT_STRING(0, "expected", &expected, "RUN",
		           "the model's expectations (a model run or export file) drawn in the "
		           "charts"),
		OPT_STRING('f', "format", &format, "F",
		           "text, json, csv, html or prom (default: from -o's extension, else "
		           "text)"),
		OPT_OUTPUT(&output),
		OPT_STRING(0, "title", &title, "TEXT", "title of the report"),
		CLI_COMPARE_BAND_OPTS(ca),
		OPT_END(),
	};
	const struct cmd_usage usage = {
		"report", synopsis,
		"Report a run (default: latest; an id, latest~N or an export file): terminal\n"
		"tables, JSON, CSV, a self-contained HTML page with charts, or the Prometheus\n"
		"text format for node_exporter's textfile collector.",
		opts
	};
	enum ft_report_format f;
	struct ft_error err = { 0 };
	struct ft_compare_opts co;
	struct ft_archive *ar = NULL;
	struct ft_workflow_report r;
	int n, rc;

	n = opts_parse_args(&usage, ctx, argc, argv, 1, &rc);
	if (n < 0)
		return rc;
	if (ft_report_format_pick(format, ctx->json, output, &f, &err) < 0)
		return cli_fail(ctx, FT_EINVAL, &err);
	if (cli_compare_opts(ctx, &ca, &co) < 0)
		return EXIT_USAGE;
	if (cli_check_output_path("-o", output, &err) < 0)
		return cli_fail(ctx, FT_EINVAL, &err);
	rc = ft_workflow_report_prepare(&ar, cli_archive_path(ctx), n ? argv[1] : "latest", vs,
	                                expected, &co, ctx->stable, &r, &err);
	ft_archive_close(ar);
	r.in.title = title;
	rc = rc < 0 ? cli_fail(ctx, rc, &err) : write_report(ctx, &r.in, f, output);
	ft_workflow_report_release(&r);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-report.c - `fabtune report RUN [--vs BASELINE] -o report.html`:
 * a run as terminal tables, JSON, CSV, a self-contained HTML page or the
 * Prometheus text format.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <fabtune/fabtune.h>
#include <fabtune/workflow.h>

#include "cli-archive.h"
#include "cli.h"

void
cli_report_release(struct cli_report *r)
{
	if (r->have_cmp)
		ft_compare_release(&r->cmp);
	ft_free(r->bruns);
	ft_archive_records_release(&r->cur);
	ft_archive_records_release(&r->base);
	ft_archive_records_release(&r->expected);
	memset(r, 0, sizeof(*r));
}

int
cli_report_prepare(struct cli_ctx *ctx, struct ft_archive **ar, const char *run_ref,
                   const char *vs_ref, const char *expected_ref, const struct ft_compare_opts *opts,
                   struct cli_report *r)
{
	struct ft_error err = { 0 };
	char label[200];
	size_t i;
	int rc;

	memset(r, 0, sizeof(*r));
	ft_vec_init(&r->cur, sizeof(struct ft_archive_record));
	ft_vec_init(&r->base, sizeof(struct ft_archive_record));
	ft_vec_init(&r->expected, sizeof(struct ft_archive_record));
	rc = cli_load_ref(ctx, ar, run_ref, false, &r->cur, r->cur_label, sizeof(r->cur_label),
	                  &err);
	if (rc == 0 && vs_ref)
		rc = cli_load_ref(ctx, ar, vs_ref, true, &r->base, r->base_label,
		                  sizeof(r->base_label), &err);
	if (rc == 0 && expected_ref)
		rc = cli_load_ref(ctx, ar, expected_ref, false, &r->expected, label, sizeof(label),
		                  &err);
	if (rc < 0) {
		if (rc == FT_ENOENT && vs_ref && strcmp(vs_ref, "default") == 0 && !r->base.len &&
		    r->cur.len) {
			ft_error_clear(&err);
			ft_error_set(&err, rc,
			             "no baseline 'default' in the archive: name one with "
			             "'fabtune archive baseline add default RUN...', or give --vs");
		}
		return cli_fail(ctx, rc, &err);
	}
	r->in.run = ft_vec_at(&r->cur, 0);
	r->in.stable = ctx->stable;
	if (r->expected.len)
		r->in.expected = &FT_VEC_AT(&r->expected, struct ft_archive_record, 0).run;
	if (r->base.len) {
		const struct ft_archive_record *newest;

		r->bruns = ft_reallocarray(NULL, r->base.len, sizeof(*r->bruns));
		if (!r->bruns)
			return cli_fail(ctx, FT_ENOMEM, NULL);
		for (i = 0; i < r->base.len; i++)
			r->bruns[i] = &FT_VEC_AT(&r->base, struct ft_archive_record, i).run;
		rc = ft_compare_runs(&r->in.run->run, r->bruns, r->base.len, opts, &r->cmp, &err);
		if (rc < 0)
			return cli_fail(ctx, rc, &err);
		r->have_cmp = true;
		newest = ft_vec_at(&r->base, r->base.len - 1);
		r->in.baseline = r->bruns;
		r->in.nbaseline = r->base.len;
		r->in.baseline_label = r->base_label;
		r->in.cmp = &r->cmp;
		if (ft_fingerprint_len(&newest->fp) && ft_fingerprint_len(&r->in.run->fp))
			r->in.baseline_fp = &newest->fp;
	}
	return EXIT_OK;
}

int
cmd_report(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = {
		"fabtune report [RUN] [--vs BASELINE] [--expected RUN] [--format F] [-o FILE]", NULL
	};
	const char *vs = NULL, *expected = NULL, *format = NULL, *output = NULL, *title = NULL;
	struct cli_compare_args ca = { .min_samples = -1 };
	static struct opt opts[] = {
		OPT_STRING(0, "vs", NULL, "REF",
		           "compare with a baseline name, a run or an export "
		           "file"),
		OPT_STRING(0, "expected", NULL, "RUN",
		           "the model's expectations (a model run or "
		           "export file) drawn in the charts"),
		OPT_STRING('f', "format", NULL, "F",
		           "text, json, csv, html or prom (default: from "
		           "-o's extension, else text)"),
		OPT_STRING('o', "output", NULL, "FILE", "write to FILE instead of stdout"),
		OPT_STRING(0, "title", NULL, "TEXT", "title of the report"),
		OPT_STRING(0, "threshold", NULL, "PCT",
		           "stated threshold without repeated samples "
		           "(default 5%)"),
		OPT_DOUBLE(0, "sigma", NULL, "K",
		           "band of K standard deviations with samples "
		           "(default 3)"),
		OPT_END(),
	};
	const struct cmd_usage usage = {
		"report", synopsis,
		"Report a run (default: latest; an id, latest~N or an export file): terminal\n"
		"tables, JSON, CSV, a self-contained HTML page with charts, or the Prometheus\n"
		"text format for node_exporter's textfile collector.",
		opts
	};
	enum ft_report_format f = FT_REPORT_TEXT;
	struct ft_error err = { 0 };
	struct ft_compare_opts co;
	struct ft_archive *ar = NULL;
	struct cli_report r;
	struct ft_strbuf sb;
	int n, rc;

	opts[0].value = &vs;
	opts[1].value = &expected;
	opts[2].value = &format;
	opts[3].value = &output;
	opts[4].value = &title;
	opts[5].value = &ca.threshold;
	opts[6].value = &ca.sigma;
	n = opts_parse(&usage, ctx, argc, argv);
	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	if (n > 1) {
		cli_error(ctx, "unexpected argument '%s'", argv[2]);
		return EXIT_USAGE;
	}
	if (format) {
		if (ft_report_format_from_name(format, &f, &err) < 0)
			return cli_fail(ctx, FT_EINVAL, &err);
	} else if (ctx->json) {
		f = FT_REPORT_JSON;
	} else if (output && ft_report_format_from_path(output, &f) < 0) {
		f = FT_REPORT_TEXT;
	}
	if (cli_compare_opts(ctx, &ca, &co) < 0)
		return EXIT_USAGE;
	if (cli_check_output_path("-o", output, &err) < 0)
		return cli_fail(ctx, FT_EINVAL, &err);
	rc = cli_report_prepare(ctx, &ar, n ? argv[1] : "latest", vs, expected, &co, &r);
	ft_archive_close(ar);
	if (rc != EXIT_OK) {
		cli_report_release(&r);
		return rc;
	}
	r.in.title = title;
	/* colours only for a terminal, never in a file */
	r.in.color = (!output || strcmp(output, "-") == 0) && cli_color(ctx);
	ft_strbuf_init(&sb);
	rc = ft_report_render(&r.in, f, &sb, &err);
	if (rc == 0)
		rc = cli_write_output(output, &sb, &err);
	if (rc == 0 && output && strcmp(output, "-") != 0)
		fprintf(stderr, "fabtune report: wrote %s (%s, %zu bytes)\n", output,
		        ft_report_format_name(f), sb.len);
	ft_strbuf_release(&sb);
	cli_report_release(&r);
	return rc < 0 ? cli_fail(ctx, rc, &err) : EXIT_OK;
}

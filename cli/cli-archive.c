/* SPDX-License-Identifier: MIT */
/*
 * cli/cli-archive.c - what commands share around the archive and their
 * output files: opening the archive of --archive, the two runners of the
 * archive verbs (one that reads and prints an answer, one over arguments),
 * saving a result (--save), writing an output atomically, checking an
 * output path before long work, the comparison options (--threshold,
 * --floor...) and loading what a comparison or report needs.
 */
#include "cli-archive.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <fabtune/workflow.h>

const char *
cli_archive_path(const struct cli_ctx *ctx)
{
	return ctx->archive && ctx->archive[0] ? ctx->archive : NULL;
}

int
cli_archive_open(struct cli_ctx *ctx, struct ft_archive **ar, struct ft_error *err)
{
	return ft_archive_open(cli_archive_path(ctx), ar, err);
}

int
cli_archive_open_or_fail(struct cli_ctx *ctx, struct ft_archive **ar)
{
	struct ft_error err = { 0 };
	int rc = cli_archive_open(ctx, ar, &err);

	return rc < 0 ? cli_fail(ctx, rc, &err) : EXIT_OK;
}

int
cli_archive_read(struct cli_ctx *ctx, const struct cmd_usage *u, int argc, char **argv, int max,
                 cli_read_fn *fn, void *ud)
{
	struct ft_error err = { 0 };
	struct ft_archive *ar;
	struct ft_strbuf sb;
	int n, rc;

	n = opts_parse_args(u, ctx, argc, argv, max, &rc);
	if (n < 0)
		return rc;
	rc = cli_archive_open_or_fail(ctx, &ar);
	if (rc)
		return rc;
	ft_strbuf_init(&sb);
	rc = fn(ctx, ar, n, argv + 1, &sb, ud, &err);
	ft_archive_close(ar);
	if (rc == 0)
		return cli_emit(ctx, &sb);
	ft_strbuf_release(&sb);
	return rc > 0 ? rc : cli_fail(ctx, rc, &err);
}

int
cli_archive_each(struct cli_ctx *ctx, const struct cmd_usage *u, int argc, char **argv,
                 const char *expected, const char *key, cli_each_fn *fn, void *ud)
{
	struct ft_error err = { 0 };
	struct cli_answer a;
	struct ft_archive *ar;
	int n, rc;

	n = opts_parse_args(u, ctx, argc, argv, -1, &rc);
	if (n < 0)
		return rc;
	if (n < 1) {
		cli_error(ctx, "expected %s", expected);
		return EXIT_USAGE;
	}
	rc = cli_archive_open_or_fail(ctx, &ar);
	if (rc)
		return rc;
	cli_answer_begin(&a, key);
	for (int i = 1; rc == 0 && i <= n; i++)
		rc = fn(ctx, ar, argv[i], &a, ud, &err);
	ft_archive_close(ar);
	return cli_answer_end(ctx, &a, rc, &err);
}

int
cli_write_output(const char *path, const struct ft_strbuf *sb, struct ft_error *err)
{
	/* standard output on purpose; any other non-regular target is refused */
	if (!path || strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0) {
		cli_write(sb);
		return 0;
	}
	/* a JSON document keeps its schema in a file too */
	{
		struct ft_strbuf doc;
		int rc;

		if (cli_with_schema(sb, &doc))
			rc = ft_file_write(path, doc.buf, doc.len, err);
		else
			rc = ft_file_write(path, sb->buf, sb->len, err);
		ft_strbuf_release(&doc);
		return rc;
	}
}

int
cli_save_run(struct cli_ctx *ctx, const struct ft_run *run, const struct ft_obs_set *obs,
             const struct ft_finding *f, size_t nf)
{
	struct ft_error err = { 0 };
	struct ft_archive *ar = NULL;
	int64_t id = 0;
	int rc;

	rc = cli_archive_open(ctx, &ar, &err);
	if (rc == 0) {
		rc = ft_workflow_save_run(ar, run, obs, f, nf, &id, &err);
		if (rc == 0)
			fprintf(stderr, "fabtune %s: saved run %" PRId64 " to %s\n", ctx->cmd, id,
			        ft_archive_path(ar));
		ft_archive_close(ar);
	}
	if (rc < 0)
		cli_error(ctx, "--save: %s", ft_error_msg(&err, rc));
	return rc;
}

int
cli_check_output_path(const char *opt, const char *path, struct ft_error *err)
{
	return ft_file_check_writable(opt, path, err);
}

int
cli_report_prepare(struct cli_ctx *ctx, const char *ref, const char *vs, const char *expected,
                   const struct ft_compare_opts *co, struct ft_workflow_report *r)
{
	struct ft_error err = { 0 };
	struct ft_archive *ar = NULL;
	int rc = ft_workflow_report_prepare(&ar, cli_archive_path(ctx), ref ? ref : "latest", vs,
	                                    expected, co, ctx->stable, r, &err);

	ft_archive_close(ar);
	if (rc == 0)
		return EXIT_OK;
	ft_workflow_report_release(r);
	return cli_fail(ctx, rc, &err);
}

int
cli_compare_opts(struct cli_ctx *ctx, const struct cli_compare_args *a, struct ft_compare_opts *o)
{
	struct ft_error err = { 0 };
	int rc = ft_compare_opts_parse(o, a->threshold, a->floor, a->sigma, a->min_samples,
	                               a->min_matched, &err);

	if (rc < 0)
		cli_error(ctx, "%s", err.msg);
	return rc < 0 ? -1 : 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * cli/cli-archive.c - what commands share around the archive and their
 * output files: opening the archive of --archive, saving a result (--save),
 * writing an output atomically, checking an output path before long work,
 * and the comparison options (--threshold, --floor...).
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

void
cli_answer_begin(struct cli_answer *a, const char *key)
{
	ft_strbuf_init(&a->sb);
	ft_json_init(&a->j, &a->sb, false);
	ft_json_obj_begin(&a->j);
	a->in_array = false;
	if (key)
		cli_answer_array(a, key);
}

void
cli_answer_array(struct cli_answer *a, const char *key)
{
	ft_json_key(&a->j, key);
	ft_json_arr_begin(&a->j);
	a->in_array = true;
}

void
cli_answer_array_end(struct cli_answer *a)
{
	ft_json_arr_end(&a->j);
	a->in_array = false;
}

int
cli_answer_end(struct cli_ctx *ctx, struct cli_answer *a, int rc, const struct ft_error *err)
{
	if (a->in_array)
		cli_answer_array_end(a);
	ft_json_obj_end(&a->j);
	ft_strbuf_addch(&a->sb, '\n');
	if (rc == 0 && ctx->json)
		cli_write(&a->sb);
	ft_strbuf_release(&a->sb);
	return rc < 0 ? cli_fail(ctx, rc, err) : EXIT_OK;
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
cli_compare_opts(struct cli_ctx *ctx, const struct cli_compare_args *a, struct ft_compare_opts *o)
{
	struct ft_error err = { 0 };
	int rc = ft_compare_opts_parse(o, a->threshold, a->floor, a->sigma, a->min_samples,
	                               a->min_matched, &err);

	if (rc < 0)
		cli_error(ctx, "%s", err.msg);
	return rc < 0 ? -1 : 0;
}

/*
 * Global options may come before the verb ("fabtune --json archive list"
 * reaches us as "archive --json list"): move the verb first for dispatch.
 */
void
cli_verb_first(int argc, char **argv)
{
	char *verb;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++)
		if ((strcmp(argv[i], "--archive") == 0 || strcmp(argv[i], "--seed") == 0) &&
		    i + 1 < argc)
			i++;
	if (i <= 1 || i >= argc)
		return;
	verb = argv[i];
	memmove(argv + 2, argv + 1, (size_t)(i - 1) * sizeof(*argv));
	argv[1] = verb;
}

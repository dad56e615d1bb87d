/* SPDX-License-Identifier: MIT */
/*
 * cli/cli-archive.c - what commands share around the archive and their
 * output files: opening the archive of --archive, saving a result (--save),
 * writing an output atomically, checking an output path before long work,
 * and the comparison options (--threshold, --floor...).
 */
#include "cli-archive.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	char dir[4096];
	const char *slash;
	struct stat st;

	if (!path || strcmp(path, "-") == 0)
		return 0;
	if (!path[0])
		return ft_error_set(err, FT_EINVAL, "%s: empty file name", opt);
	if (strlen(path) >= sizeof(dir))
		return ft_error_set(err, FT_EINVAL, "%s %.64s...: path too long", opt, path);
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return ft_error_set(err, FT_EINVAL, "%s %s: is a folder, not a file", opt, path);
		if (access(path, W_OK) != 0)
			return ft_error_set(err, FT_EINVAL, "%s %s: the file is not writable", opt,
			                    path);
	}
	slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (stat(dir, &st) != 0)
		return ft_error_set(err, FT_ENOENT, "%s %s: folder %s does not exist", opt, path,
		                    dir);
	if (!S_ISDIR(st.st_mode))
		return ft_error_set(err, FT_EINVAL, "%s %s: %s is not a folder", opt, path, dir);
	if (access(dir, W_OK | X_OK) != 0)
		return ft_error_set(err, FT_EINVAL, "%s %s: folder %s is not writable", opt, path,
		                    dir);
	return 0;
}

int
cli_parse_fraction(struct cli_ctx *ctx, const char *opt, const char *text, double *out)
{
	size_t n = strlen(text);
	char buf[64];
	double v;

	if (n == 0 || n >= sizeof(buf))
		goto bad;
	memcpy(buf, text, n + 1);
	if (buf[n - 1] == '%') {
		buf[n - 1] = '\0';
		if (ft_parse_double(buf, &v) < 0 || !(v >= 0) || v > 1000)
			goto bad;
		*out = v / 100.0;
		return 0;
	}
	if (ft_parse_double(buf, &v) < 0 || !(v >= 0) || v > 1)
		goto bad;
	*out = v;
	return 0;
bad:
	cli_error(ctx, "%s: expected a percentage like 5%% or a fraction like 0.05, got '%s'", opt,
	          text);
	return -1;
}

int
cli_compare_opts(struct cli_ctx *ctx, const struct cli_compare_args *a, struct ft_compare_opts *o)
{
	ft_compare_opts_init(o);
	if (a->threshold &&
	    cli_parse_fraction(ctx, "--threshold", a->threshold, &o->rel_threshold) < 0)
		return -1;
	if (a->floor && cli_parse_fraction(ctx, "--floor", a->floor, &o->floor_rel) < 0)
		return -1;
	if (a->sigma < 0 || !isfinite(a->sigma)) {
		cli_error(ctx, "--sigma: expected a number >= 0, got %g", a->sigma);
		return -1;
	}
	if (a->sigma > 0)
		o->k_sigma = a->sigma;
	if (a->min_samples != -1 && a->min_samples < 2) {
		cli_error(ctx, "--min-samples: expected a count >= 2, got %d", a->min_samples);
		return -1;
	}
	if (a->min_samples > 0)
		o->min_samples = (unsigned)FT_MAX(a->min_samples, 2);
	if (a->min_matched &&
	    cli_parse_fraction(ctx, "--min-matched", a->min_matched, &o->min_matched) < 0)
		return -1;
	if (o->min_matched > 1) {
		cli_error(ctx, "--min-matched: at most 100%%, got '%s'", a->min_matched);
		return -1;
	}
	return 0;
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

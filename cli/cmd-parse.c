/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-parse.c - `fabtune parse FILE...`: read tool outputs (ibstat,
 * perfquery, ethtool -S, nvidia-smi topo -m, NCCL logs, nccl-tests, perftest,
 * ...) and print the observations and result rows they hold, as
 * ft_parse_write_file() and ft_parse_file_json() write them. A folder
 * stands for the files under it (ft_input_paths_expand()); those in no
 * known format are listed as skipped.
 */
#include <fabtune/fabtune.h>

#include "cli-archive.h"
#include "cli.h"

int
cmd_parse(int argc, char **argv, struct cli_ctx *ctx)
{
	const char *format = NULL;
	bool list = false, summary = false, save = false;
	const struct opt opts[] = {
		OPT_STRING('f', "format", &format, "NAME",
		           "read every FILE as this format (default: detect from the content)"),
		OPT_BOOL(0, "list", &list, "list the formats and exit"),
		OPT_BOOL(0, "summary", &summary,
		         "print a count per key instead of each observation"),
		OPT_SAVE(&save, "each file's rows and observations"),
		OPT_END(),
	};
	const struct cmd_usage usage = CMD_USAGE(
		"parse",
		"Read outputs of fabric, host and benchmark tools and print what they show. A FILE "
		"that is a folder stands for the files under it; those in no known format are "
		"listed as skipped.",
		opts, "fabtune parse FILE... [--format NAME] [--json]", "fabtune parse --list");
	struct ft_error err = { 0 };
	struct ft_vec paths, skipped;
	struct ft_obs_set set;
	struct ft_strbuf sb;
	struct ft_json j;
	size_t nread = 0;
	int n, rc = 0;

	n = opts_parse_args(&usage, ctx, argc, argv, -1, &rc);
	if (n < 0)
		return rc;
	if (list)
		return cli_emit_with(ctx, ft_parse_write_formats);
	if (n < 1) {
		cli_error(ctx, "no input file (fabtune parse FILE..., or --list)");
		return EXIT_USAGE;
	}
	if (format && !ft_parser_find(format)) {
		cli_error(ctx, "--format: unknown format '%s' (fabtune parse --list shows them)",
		          format);
		return EXIT_USAGE;
	}
	ft_obs_set_init(&set);
	ft_strbuf_init(&sb);
	ft_json_init(&j, &sb, false);
	ft_vec_init(&paths, sizeof(struct ft_input_path));
	ft_vec_init(&skipped, sizeof(const char *));
	if (ctx->json) {
		ft_json_obj_begin(&j);
		ft_json_key(&j, "files");
		ft_json_arr_begin(&j);
	}
	rc = ft_input_paths_expand((const char *const *)argv + 1, (size_t)n, &paths, &err);
	if (rc < 0)
		rc = cli_fail(ctx, rc, &err);
	for (size_t i = 0; rc == 0 && i < paths.len; i++) {
		const struct ft_input_path *p = ft_vec_at(&paths, i);
		struct ft_obs_set view;
		struct ft_run run;
		size_t from = ft_obs_set_len(&set);
		bool known = true;

		ft_run_init(&run, FT_SOURCE_IMPORT, "");
		if (p->dir)
			rc = ft_parse_file_known(p->path, format, &set, &run, &known, &err);
		else
			rc = ft_parse_file(p->path, format, &set, &run, &err);
		if (rc == 0 && !known) {
			ft_run_release(&run);
			if (ft_vec_push(&skipped, &p->path) < 0)
				rc = cli_fail(ctx, FT_ENOMEM, NULL);
			continue;
		}
		if (rc < 0)
			rc = cli_fail(ctx, rc, &err);
		view = ft_parse_obs_since(&set, from); /* only this file's observations */
		if (rc == 0 && format && ft_parse_read_nothing(&view, &run))
			rc = cli_fail(ctx,
			              ft_error_set(&err, FT_EPARSE,
			                           "%s: no line of it reads as %s (%zu passed over; "
			                           "without --format the format is detected)",
			                           p->path, format, ft_obs_set_len(&view)),
			              &err);
		if (rc == 0 && ctx->json) {
			ft_parse_file_json(&j, p->path, &view, &run);
		} else if (rc == 0) {
			if (nread)
				ft_strbuf_addch(&sb, '\n');
			ft_parse_write_file(&sb, p->path, &view, &run, summary);
		}
		nread += rc == 0;
		if (rc == 0 && save) {
			ft_strlcpy(run.label, p->path, sizeof(run.label));
			if (!run.kind[0])
				ft_strlcpy(run.kind, "import", sizeof(run.kind));
			if (cli_save_run(ctx, &run, &view, NULL, 0) < 0)
				rc = EXIT_RUNTIME;
		}
		ft_run_release(&run);
	}
	ft_obs_set_release(&set);
	if (rc == 0 && nread == 0) /* every FILE a folder, none of whose files was known */
		rc = cli_fail(ctx,
		              ft_input_paths_none((const char *const *)argv + 1, (size_t)n,
		                                  skipped.len, &err),
		              &err);
	if (rc == 0 && ctx->json) {
		ft_json_arr_end(&j);
		if (ft_input_paths_have_folder(&paths))
			ft_input_skipped_json(&j, &skipped);
		ft_json_obj_end(&j);
		ft_strbuf_addch(&sb, '\n');
	} else if (rc == 0 && skipped.len) {
		ft_strbuf_addch(&sb, '\n');
		ft_input_skipped_text(&sb, &skipped);
	}
	if (rc == 0)
		rc = cli_emit(ctx, &sb);
	ft_vec_release(&skipped);
	ft_input_paths_release(&paths);
	ft_strbuf_release(&sb);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-archive-baseline.c - `fabtune archive baseline list|add|set|rm`:
 * the named sets of runs that later runs are compared with.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fabtune/fabtune.h>
#include <fabtune/workflow.h>

#include "cli-archive.h"
#include "cli.h"

/* ---- archive baseline ---------------------------------------------------- */

static int
baseline_list(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = { "fabtune archive baseline list", NULL };
	static const struct opt opts[] = { OPT_END() };
	static const struct cmd_usage usage = { "archive baseline list", synopsis,
		                                "List the baselines and how many runs each has.",
		                                opts };
	struct ft_error err = { 0 };
	struct ft_archive *ar;
	struct ft_strbuf sb;
	struct ft_vec list;
	size_t i;
	int n, rc;

	n = opts_parse(&usage, ctx, argc, argv);
	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	rc = cli_archive_open(ctx, &ar, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	ft_vec_init(&list, sizeof(struct ft_baseline_info));
	rc = ft_archive_baseline_list(ar, &list, &err);
	ft_archive_close(ar);
	if (rc < 0) {
		ft_vec_release(&list);
		return cli_fail(ctx, rc, &err);
	}
	ft_strbuf_init(&sb);
	if (ctx->json) {
		struct ft_json j;

		ft_json_init(&j, &sb, true);
		ft_json_obj_begin(&j);
		ft_json_key(&j, "baselines");
		ft_json_arr_begin(&j);
		for (i = 0; i < list.len; i++) {
			const struct ft_baseline_info *b = ft_vec_at(&list, i);

			ft_json_obj_begin(&j);
			ft_json_kv_str(&j, "name", b->name);
			ft_json_kv_uint(&j, "runs", b->nruns);
			ft_json_kv_int(&j, "newest", b->newest);
			ft_json_obj_end(&j);
		}
		ft_json_arr_end(&j);
		ft_json_obj_end(&j);
		ft_strbuf_addch(&sb, '\n');
	} else if (!list.len) {
		ft_strbuf_adds(&sb, "no baselines (add one with 'fabtune archive baseline add NAME "
		                    "RUN')\n");
	} else {
		for (i = 0; i < list.len; i++) {
			const struct ft_baseline_info *b = ft_vec_at(&list, i);

			ft_strbuf_addf(&sb, "%s: %zu run%s, newest %" PRId64 "\n", b->name,
			               b->nruns, b->nruns == 1 ? "" : "s", b->newest);
		}
	}
	cli_write(&sb);
	ft_strbuf_release(&sb);
	ft_vec_release(&list);
	return EXIT_OK;
}

/* add, set and rm share one shape: NAME RUN... */
static int
baseline_edit(int argc, char **argv, struct cli_ctx *ctx, const char *verb)
{
	static const char *const syn_add[] = { "fabtune archive baseline add NAME RUN...", NULL };
	static const char *const syn_set[] = { "fabtune archive baseline set NAME RUN...", NULL };
	static const char *const syn_rm[] = { "fabtune archive baseline rm NAME [RUN...]", NULL };
	static const struct opt opts[] = { OPT_END() };
	const bool add = strcmp(verb, "add") == 0, set = strcmp(verb, "set") == 0;
	const struct cmd_usage usage = {
		add ? "archive baseline add" :
		set ? "archive baseline set" :
		      "archive baseline rm",
		add ? syn_add :
		set ? syn_set :
		      syn_rm,
		add ? "Add runs to a baseline (created on first use). Several runs of the same\n"
		      "tests make comparisons noise-aware." :
		set ? "Make a baseline exactly these runs." :
		      "Remove runs from a baseline, or the whole baseline.",
		opts
	};
	struct ft_error err = { 0 };
	struct ft_strbuf js;
	struct ft_json j;
	struct ft_archive *ar;
	int n, i, rc;

	n = opts_parse(&usage, ctx, argc, argv);
	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	if (n < 1 || (n < 2 && strcmp(verb, "rm") != 0)) {
		cli_error(ctx, "expected %s",
		          usage.synopsis[0] + strlen("fabtune archive baseline "));
		return EXIT_USAGE;
	}
	rc = cli_archive_open(ctx, &ar, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	if (set) {
		rc = ft_archive_baseline_remove(ar, argv[1], 0, &err);
		if (rc == FT_ENOENT) {
			ft_error_clear(&err);
			rc = 0;
		}
	}
	if (!add && !set && n == 1)
		rc = ft_archive_baseline_remove(ar, argv[1], 0, &err);
	ft_strbuf_init(&js);
	ft_json_init(&j, &js, false);
	ft_json_obj_begin(&j);
	ft_json_kv_str(&j, "baseline", argv[1]);
	ft_json_key(&j, add || set ? "added" : "removed");
	ft_json_arr_begin(&j);
	for (i = 2; rc == 0 && i <= n; i++) {
		int64_t id;

		rc = ft_archive_resolve(ar, argv[i], &id, &err);
		if (rc == 0 && (add || set))
			rc = ft_archive_baseline_add(ar, argv[1], id, &err);
		else if (rc == 0)
			rc = ft_archive_baseline_remove(ar, argv[1], id, &err);
		if (rc == 0)
			ft_json_int(&j, id);
		if (rc == 0 && !ctx->json)
			fprintf(stdout, "%s run %" PRId64 " %s baseline '%s'\n",
			        add || set ? "added" : "removed", id, add || set ? "to" : "from",
			        argv[1]);
	}
	ft_json_arr_end(&j);
	ft_json_kv_bool(&j, "whole_baseline", rc == 0 && !add && !set && n == 1);
	ft_json_obj_end(&j);
	ft_strbuf_addch(&js, '\n');
	if (rc == 0 && !add && !set && n == 1 && !ctx->json)
		fprintf(stdout, "removed baseline '%s'\n", argv[1]);
	if (rc == 0 && ctx->json)
		cli_write(&js);
	ft_strbuf_release(&js);
	ft_archive_close(ar);
	return rc < 0 ? cli_fail(ctx, rc, &err) : EXIT_OK;
}

static int
baseline_add(int argc, char **argv, struct cli_ctx *ctx)
{
	return baseline_edit(argc, argv, ctx, "add");
}

static int
baseline_set(int argc, char **argv, struct cli_ctx *ctx)
{
	return baseline_edit(argc, argv, ctx, "set");
}

static int
baseline_rm(int argc, char **argv, struct cli_ctx *ctx)
{
	return baseline_edit(argc, argv, ctx, "rm");
}

static const struct cmd baseline_cmds[] = {
	{ "add", baseline_add, "add runs to a baseline" },
	{ "list", baseline_list, "list the baselines" },
	{ "rm", baseline_rm, "remove runs from a baseline, or the baseline" },
	{ "set", baseline_set, "make a baseline exactly these runs" },
};

int
cmd_archive_baseline(int argc, char **argv, struct cli_ctx *ctx)
{
	cli_verb_first(argc, argv);
	return cli_dispatch(baseline_cmds, FT_ARRAY_SIZE(baseline_cmds), "archive baseline", argc,
	                    argv, ctx);
}

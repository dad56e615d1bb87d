/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-archive-baseline.c - `fabtune archive baseline list|add|set|rm`:
 * the named sets of runs that later runs are compared with.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <fabtune/fabtune.h>

#include "cli-archive.h"
#include "cli.h"

static int
list_baselines(struct cli_ctx *ctx, struct ft_archive *ar, int n, char **args,
               struct ft_strbuf *sb, void *ud, struct ft_error *err)
{
	struct ft_vec list;
	int rc;

	ft_vec_init(&list, sizeof(struct ft_baseline_info));
	rc = ft_archive_baseline_list(ar, &list, err);
	if (rc == 0)
		ft_archive_baseline_list_write(sb, list.data, list.len, ctx->json);
	ft_vec_release(&list);
	return rc;
}

static CLI_ARCHIVE_READ_VERB(baseline_list, list_baselines, "archive baseline list",
                             "List the baselines and how many runs each has.",
                             "fabtune archive baseline list")

/* What add, set and rm do to a baseline, and how they say it. */
struct baseline_verb {
	const char *name;     /* "archive baseline add" */
	const char *synopsis; /* "fabtune archive baseline add NAME RUN..." */
	const char *summary;
	bool adds;	      /* add the runs (add, set), or remove them (rm) */
	bool replaces;	      /* empty the baseline first (set) */
};

static const struct baseline_verb verb_add = {
	"archive baseline add", "fabtune archive baseline add NAME RUN...",
	"Add runs to a baseline (created on first use). Several runs of the same\n"
	"tests make comparisons noise-aware.",
	true, false,
};
static const struct baseline_verb verb_set = {
	"archive baseline set", "fabtune archive baseline set NAME RUN...",
	"Make a baseline exactly these runs.", true, true,
};
static const struct baseline_verb verb_rm = {
	"archive baseline rm", "fabtune archive baseline rm NAME [RUN...]",
	"Remove runs from a baseline, or the whole baseline.", false, false,
};

/* add, set and rm share one shape: NAME RUN... (rm NAME alone removes the baseline) */
static int
baseline_edit(int argc, char **argv, struct cli_ctx *ctx, const struct baseline_verb *v)
{
	const struct cmd_usage usage = CMD_USAGE(v->name, v->summary, NULL, v->synopsis);
	struct ft_error err = { 0 };
	struct cli_answer a;
	struct ft_archive *ar;
	bool whole;
	int n, rc;

	n = opts_parse_args(&usage, ctx, argc, argv, -1, &rc);
	if (n < 0)
		return rc;
	if (n < (v->adds ? 2 : 1)) {
		cli_error(ctx, "expected %s", v->synopsis + strlen("fabtune archive baseline "));
		return EXIT_USAGE;
	}
	rc = cli_archive_open_or_fail(ctx, &ar);
	if (rc)
		return rc;
	whole = !v->adds && n == 1;
	if (v->replaces) {
		rc = ft_archive_baseline_remove(ar, argv[1], 0, &err);
		if (rc == FT_ENOENT) {
			ft_error_clear(&err);
			rc = 0;
		}
	}
	if (whole)
		rc = ft_archive_baseline_remove(ar, argv[1], 0, &err);
	cli_answer_begin(&a, NULL);
	ft_json_kv_str(&a.j, "baseline", argv[1]);
	cli_answer_array(&a, v->adds ? "added" : "removed");
	for (int i = 2; rc == 0 && i <= n; i++) {
		int64_t id;

		rc = ft_archive_resolve(ar, argv[i], &id, &err);
		if (rc == 0 && v->adds)
			rc = ft_archive_baseline_add(ar, argv[1], id, &err);
		else if (rc == 0)
			rc = ft_archive_baseline_remove(ar, argv[1], id, &err);
		if (rc == 0)
			ft_json_int(&a.j, id);
		if (rc == 0 && !ctx->json)
			printf("%s run %" PRId64 " %s baseline '%s'\n", v->adds ? "added" : "removed",
			       id, v->adds ? "to" : "from", argv[1]);
	}
	cli_answer_array_end(&a);
	ft_json_kv_bool(&a.j, "whole_baseline", rc == 0 && whole);
	if (rc == 0 && whole && !ctx->json)
		printf("removed baseline '%s'\n", argv[1]);
	ft_archive_close(ar);
	return cli_answer_end(ctx, &a, rc, &err);
}

static int
baseline_add(int argc, char **argv, struct cli_ctx *ctx)
{
	return baseline_edit(argc, argv, ctx, &verb_add);
}

static int
baseline_set(int argc, char **argv, struct cli_ctx *ctx)
{
	return baseline_edit(argc, argv, ctx, &verb_set);
}

static int
baseline_rm(int argc, char **argv, struct cli_ctx *ctx)
{
	return baseline_edit(argc, argv, ctx, &verb_rm);
}

static const struct cmd baseline_cmds[] = {
	{ "add", baseline_add, "add runs to a baseline" },
	{ "list", baseline_list, "list the baselines" },
	{ "rm", baseline_rm, "remove runs from a baseline, or the baseline" },
	{ "set", baseline_set, "make a baseline exactly these runs" },
};

CLI_GROUP(cmd_archive_baseline, "archive baseline", baseline_cmds)

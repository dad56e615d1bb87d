/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-archive.c - `fabtune archive list|show|compare|baseline|export|
 * import|rm`: the run archive, the team's performance baseline file.
 *
 * This file holds the group's dispatch and list, show and compare; the
 * baseline verbs are in cmd-archive-baseline.c, export, import, rm and check
 * in cmd-archive-store.c. Run references resolve through
 * ft_workflow_load_ref(); the helpers other commands share live in
 * cli/cli-archive.c.
 */
#include <string.h>

#include <fabtune/fabtune.h>
#include <fabtune/workflow.h>

#include "cli-archive.h"
#include "cli.h"

/* ---- archive list -------------------------------------------------------- */

struct list_opts {
	struct ft_archive_query q;
	uint64_t limit; /* --limit, into q.limit */
};

static int
list_runs(struct cli_ctx *ctx, struct ft_archive *ar, int n, char **args, struct ft_strbuf *sb,
          void *opts, struct ft_error *err)
{
	struct list_opts *o = opts;
	struct ft_vec list;
	int rc;

	o->q.limit = (size_t)o->limit;
	ft_vec_init(&list, sizeof(struct ft_archive_info));
	rc = ft_archive_list(ar, &o->q, &list, err);
	if (rc == 0 && ctx->json)
		ft_archive_list_write_json(sb, list.data, list.len, ctx->stable);
	else if (rc == 0)
		ft_archive_list_write_text(sb, list.data, list.len, ctx->stable);
	ft_vec_release(&list);
	return rc;
}

static int
archive_list(int argc, char **argv, struct cli_ctx *ctx)
{
	struct list_opts o = { 0 };
	const struct opt opts[] = {
		OPT_STRING(0, "kind", &o.q.kind, "KIND",
		           "only runs of this kind (bench, nccl-tests, ...)"),
		OPT_STRING(0, "source", &o.q.source, "SRC",
		           "only runs of this source (bench, import, sim, "
		           "model)"),
		OPT_U64(0, "limit", &o.limit, "N", "only the N newest runs"),
		OPT_END(),
	};
	const struct cmd_usage usage =
		CMD_USAGE("archive list", "List the runs in the archive, oldest first.", opts,
		          "fabtune archive list [--kind K] [--source S] [--limit N]");

	return cli_archive_read(ctx, &usage, argc, argv, 0, list_runs, &o);
}

/* ---- archive show -------------------------------------------------------- */

static int
archive_show(int argc, char **argv, struct cli_ctx *ctx)
{
	const struct cmd_usage usage = CMD_USAGE(
		"archive show",
		"Show one run: its results, findings with evidence, observations and fingerprint.\n"
		"RUN is an id, latest (the default), latest~N, or an export file.",
		NULL, "fabtune archive show [RUN]");
	struct ft_archive *ar = NULL;
	struct ft_error err = { 0 };
	struct ft_vec records;
	struct ft_strbuf sb;
	char label[160];
	int n, rc;

	n = opts_parse_args(&usage, ctx, argc, argv, 1, &rc);
	if (n < 0)
		return rc;
	ft_vec_init(&records, sizeof(struct ft_archive_record));
	ft_strbuf_init(&sb);
	rc = ft_workflow_load_ref(&ar, cli_archive_path(ctx), n ? argv[1] : "latest", false,
	                          &records, label, sizeof(label), &err);
	ft_archive_close(ar);
	if (rc == 0)
		rc = ft_workflow_run_write(&sb, ft_vec_at(&records, 0), ctx->json, ctx->stable,
		                           cli_color(ctx), &err);
	if (rc == 0)
		cli_write(&sb);
	ft_strbuf_release(&sb);
	ft_archive_records_release(&records);
	return rc < 0 ? cli_fail(ctx, rc, &err) : EXIT_OK;
}

/* ---- archive compare ----------------------------------------------------- */

static int
archive_compare(int argc, char **argv, struct cli_ctx *ctx)
{
	struct cli_compare_args ca = { .min_samples = -1 };
	const char *vs = "default";
	const struct opt opts[] = {
		OPT_STRING(0, "vs", &vs, "REF",
		           "baseline name, run or export file (default: the "
		           "baseline 'default')"),
		CLI_COMPARE_BAND_OPTS(ca),
		OPT_STRING(0, "floor", &ca.floor, "PCT", "narrowest noise band (default 1%)"),
		OPT_INT(0, "min-samples", &ca.min_samples, "N",
		        "samples needed for a noise band (default 3)"),
		OPT_STRING(0, "min-matched", &ca.min_matched, "PCT",
		           "exit 4 when fewer of the baseline's results matched (default 50%)"),
		OPT_END(),
	};
	const struct cmd_usage usage = CMD_USAGE(
		"archive compare",
		"Compare a run (default: latest) with a baseline, result by result. Each result is\n"
		"improved, regressed or unchanged; exit code 1 when any regressed, 4 when nothing\n"
		"or too little of the baseline matched (see docs/cmd/archive.md).",
		opts, "fabtune archive compare [RUN] [--vs REF] [--threshold 5%] [--sigma 3]");
	struct ft_compare_opts co;
	struct ft_workflow_report r;
	struct ft_strbuf sb;
	int n, rc;

	n = opts_parse_args(&usage, ctx, argc, argv, 1, &rc);
	if (n < 0)
		return rc;
	if (cli_compare_opts(ctx, &ca, &co) < 0)
		return EXIT_USAGE;
	rc = cli_report_prepare(ctx, n ? argv[1] : NULL, vs, NULL, &co, &r);
	if (rc)
		return rc;
	ft_strbuf_init(&sb);
	r.in.sections = FT_REPORT_SEC_COMPARE;
	r.in.color = cli_color(ctx);
	if (ctx->json) {
		rc = ft_report_render(&r.in, FT_REPORT_JSON, &sb, NULL);
	} else {
		ft_strbuf_addf(&sb, "%s against %s\n", r.cur_label, r.base_label);
		rc = ft_report_render(&r.in, FT_REPORT_TEXT, &sb, NULL);
	}
	if (rc == 0)
		cli_write(&sb);
	ft_strbuf_release(&sb);
	rc = rc < 0                                ? EXIT_RUNTIME :
	     ft_compare_has_regression(&r.cmp)     ? EXIT_PROBLEM :
	     ft_compare_is_incomplete(&r.cmp)      ? EXIT_INCOMPLETE :
	                                             EXIT_OK;
	if (rc == EXIT_PROBLEM)
		cli_error(ctx, "%zu result%s regressed against %s",
		          r.cmp.count[FT_VERDICT_REGRESSED],
		          r.cmp.count[FT_VERDICT_REGRESSED] == 1 ? "" : "s", r.base_label);
	else if (rc == EXIT_INCOMPLETE)
		cli_error(ctx,
		          "only %zu of %zu results of %s matched (at least %.0f%% needed): "
		          "compare runs of the same tests, sizes, ranks and transports",
		          r.cmp.nmatched, r.cmp.nmatched + r.cmp.count[FT_VERDICT_MISSING],
		          r.base_label, r.cmp.opts.min_matched * 100);
	ft_workflow_report_release(&r);
	return rc;
}

static const struct cmd archive_cmds[] = {
	{ "baseline", cmd_archive_baseline, "name the runs that later runs are compared with" },
	{ "check", cmd_archive_check, "check the archive's integrity" },
	{ "compare", archive_compare, "compare a run with a baseline; exit 1 on regression" },
	{ "export", cmd_archive_export, "export runs as JSON" },
	{ "import", cmd_archive_import, "import a fabtune export or a tool's output" },
	{ "list", archive_list, "list the archived runs" },
	{ "rm", cmd_archive_rm, "delete runs" },
	{ "show", archive_show, "show one run" },
};

CLI_GROUP(cmd_archive, "archive", archive_cmds)

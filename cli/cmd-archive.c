/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-archive.c - `fabtune archive list|show|compare|baseline|export|
 * import|rm`: the run archive, the team's performance baseline file.
 *
 * Run references resolve through ft_workflow_load_ref(); the helpers other
 * commands share live in cli/cli-archive.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <fabtune/fabtune.h>
#include <fabtune/workflow.h>

#if defined(__has_include)
#if __has_include(<fabtune/parse.h>)
#include <fabtune/parse.h>
#define HAVE_PARSE 1
#endif
#endif

#include "cli-archive.h"
#include "cli.h"

/* ---- archive list -------------------------------------------------------- */

static void
info_json(struct ft_json *j, const struct ft_archive_info *in, bool stable)
{
	ft_json_obj_begin(j);
	ft_json_kv_int(j, "id", in->id);
	if (!stable)
		ft_json_kv_double(j, "created", in->created_s);
	ft_json_kv_str(j, "source", ft_source_name(in->source));
	ft_json_kv_str(j, "kind", in->kind);
	ft_json_kv_str(j, "label", in->label);
	ft_json_kv_str(j, "spec", in->spec);
	ft_json_kv_str(j, "host", in->host);
	ft_json_kv_str(j, "fingerprint", in->fp_digest);
	ft_json_kv_uint(j, "rows", in->nrows);
	ft_json_kv_uint(j, "observations", in->nobs);
	ft_json_kv_uint(j, "findings", in->nfindings);
	if (!stable && in->started_s > 0)
		ft_json_kv_double(j, "started", in->started_s);
	if (!stable && isfinite(in->wall_s)) {
		ft_json_key(j, "usage");
		ft_json_obj_begin(j);
		ft_json_kv_double(j, "wall_s", in->wall_s);
		ft_json_kv_double(j, "cpu_s", in->cpu_s);
		ft_json_kv_double(j, "host_busy", in->host_busy);
		ft_json_kv_double(j, "load1", in->load1);
		ft_json_obj_end(j);
	}
	ft_json_obj_end(j);
}

static void
when(double t, char *buf, size_t len)
{
	time_t secs = (time_t)t;
	struct tm tm;

	if (t > 0 && gmtime_r(&secs, &tm))
		strftime(buf, len, "%Y-%m-%d %H:%M:%SZ", &tm);
	else
		snprintf(buf, len, "-");
}

static int
archive_list(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = { "fabtune archive list [--kind K] [--source S] "
		                                "[--limit N]",
		                                NULL };
	struct ft_archive_query q = { 0 };
	uint64_t limit = 0;
	static struct opt opts[] = {
		OPT_STRING(0, "kind", NULL, "KIND",
		           "only runs of this kind (bench, nccl-tests, ...)"),
		OPT_STRING(0, "source", NULL, "SRC",
		           "only runs of this source (bench, import, sim, "
		           "model)"),
		OPT_U64(0, "limit", NULL, "N", "only the N newest runs"),
		OPT_END(),
	};
	const struct cmd_usage usage = { "archive list", synopsis,
		                         "List the runs in the archive, oldest first.", opts };
	struct ft_error err = { 0 };
	struct ft_archive *ar;
	struct ft_strbuf sb;
	struct ft_vec list;
	size_t i;
	int n, rc;

	opts[0].value = &q.kind;
	opts[1].value = &q.source;
	opts[2].value = &limit;
	n = opts_parse(&usage, ctx, argc, argv);
	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	if (n > 0) {
		cli_error(ctx, "unexpected argument '%s'", argv[1]);
		return EXIT_USAGE;
	}
	q.limit = (size_t)limit;
	rc = cli_archive_open(ctx, &ar, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	ft_vec_init(&list, sizeof(struct ft_archive_info));
	rc = ft_archive_list(ar, &q, &list, &err);
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
		ft_json_key(&j, "runs");
		ft_json_arr_begin(&j);
		for (i = 0; i < list.len; i++)
			info_json(&j, ft_vec_at(&list, i), ctx->stable);
		ft_json_arr_end(&j);
		ft_json_obj_end(&j);
		ft_strbuf_addch(&sb, '\n');
	} else if (list.len == 0) {
		ft_strbuf_adds(&sb, "no runs in the archive\n");
	} else {
		struct ft_table t;

		ft_table_init(&t);
		ft_table_col(&t, "id", FT_ALIGN_RIGHT);
		if (!ctx->stable)
			ft_table_col(&t, "saved", FT_ALIGN_LEFT);
		ft_table_col(&t, "source", FT_ALIGN_LEFT);
		ft_table_col(&t, "kind", FT_ALIGN_LEFT);
		ft_table_col(&t, "host", FT_ALIGN_LEFT);
		ft_table_col(&t, "rows", FT_ALIGN_RIGHT);
		ft_table_col(&t, "obs", FT_ALIGN_RIGHT);
		ft_table_col(&t, "findings", FT_ALIGN_RIGHT);
		ft_table_col(&t, "label", FT_ALIGN_LEFT);
		for (i = 0; i < list.len; i++) {
			const struct ft_archive_info *in = ft_vec_at(&list, i);
			char buf[32];

			ft_table_cellf(&t, "%" PRId64, in->id);
			if (!ctx->stable) {
				when(in->created_s, buf, sizeof(buf));
				ft_table_cell(&t, buf);
			}
			ft_table_cell(&t, ft_source_name(in->source));
			ft_table_cell(&t, in->kind);
			ft_table_cell(&t, in->host[0] ? in->host : "-");
			ft_table_cellf(&t, "%zu", in->nrows);
			ft_table_cellf(&t, "%zu", in->nobs);
			ft_table_cellf(&t, "%zu", in->nfindings);
			ft_table_cell(&t, in->label[0] ? in->label : "-");
		}
		ft_table_render(&t, &sb);
		ft_table_release(&t);
	}
	cli_write(&sb);
	ft_strbuf_release(&sb);
	ft_vec_release(&list);
	return EXIT_OK;
}

/* ---- archive show -------------------------------------------------------- */

static int
archive_show(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = { "fabtune archive show [RUN]", NULL };
	static const struct opt opts[] = { OPT_END() };
	static const struct cmd_usage usage = {
		"archive show", synopsis,
		"Show one run: its results, findings with evidence, observations and fingerprint.\n"
		"RUN is an id, latest (the default), latest~N, or an export file.",
		opts
	};
	struct ft_archive *ar = NULL;
	struct ft_error err = { 0 };
	struct ft_report_input in;
	struct ft_vec records;
	struct ft_strbuf sb;
	char label[160];
	int n, rc;

	n = opts_parse(&usage, ctx, argc, argv);
	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	if (n > 1) {
		cli_error(ctx, "unexpected argument '%s'", argv[2]);
		return EXIT_USAGE;
	}
	ft_vec_init(&records, sizeof(struct ft_archive_record));
	rc = ft_workflow_load_ref(&ar, cli_archive_path(ctx), n ? argv[1] : "latest", false,
	                          &records, label, sizeof(label), &err);
	ft_archive_close(ar);
	if (rc < 0) {
		ft_archive_records_release(&records);
		return cli_fail(ctx, rc, &err);
	}
	ft_strbuf_init(&sb);
	if (ctx->json) {
		struct ft_json j;

		ft_json_init(&j, &sb, true);
		ft_archive_record_json(ft_vec_at(&records, 0), &j,
		                       ctx->stable ? FT_EXPORT_STABLE : 0);
		ft_strbuf_addch(&sb, '\n');
	} else {
		memset(&in, 0, sizeof(in));
		in.run = ft_vec_at(&records, 0);
		in.stable = ctx->stable;
		in.color = cli_color(ctx);
		rc = ft_report_render(&in, FT_REPORT_TEXT, &sb, &err);
	}
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
	static const char *const synopsis[] = {
		"fabtune archive compare [RUN] [--vs REF] [--threshold 5%] [--sigma 3]", NULL
	};
	struct cli_compare_args ca = { .min_samples = -1 };
	const char *vs = "default";
	static struct opt opts[] = {
		OPT_STRING(0, "vs", NULL, "REF",
		           "baseline name, run or export file (default: the "
		           "baseline 'default')"),
		OPT_STRING(0, "threshold", NULL, "PCT",
		           "stated threshold without repeated samples "
		           "(default 5%)"),
		OPT_DOUBLE(0, "sigma", NULL, "K",
		           "band of K standard deviations with samples "
		           "(default 3)"),
		OPT_STRING(0, "floor", NULL, "PCT", "narrowest noise band (default 1%)"),
		OPT_INT(0, "min-samples", NULL, "N", "samples needed for a noise band (default 3)"),
		OPT_STRING(0, "min-matched", NULL, "PCT",
		           "exit 4 when fewer of the baseline's results matched (default 50%)"),
		OPT_END(),
	};
	const struct cmd_usage usage = {
		"archive compare", synopsis,
		"Compare a run (default: latest) with a baseline, result by result. Each result is\n"
		"improved, regressed or unchanged; exit code 1 when any regressed, 4 when nothing\n"
		"or too little of the baseline matched (see docs/cmd/archive.md).",
		opts
	};
	struct ft_compare_opts co;
	struct ft_archive *ar = NULL;
	struct ft_workflow_report r;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	int n, rc;

	opts[0].value = &vs;
	opts[1].value = &ca.threshold;
	opts[2].value = &ca.sigma;
	opts[3].value = &ca.floor;
	opts[4].value = &ca.min_samples;
	opts[5].value = &ca.min_matched;
	n = opts_parse(&usage, ctx, argc, argv);
	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	if (n > 1) {
		cli_error(ctx, "unexpected argument '%s'", argv[2]);
		return EXIT_USAGE;
	}
	if (cli_compare_opts(ctx, &ca, &co) < 0)
		return EXIT_USAGE;
	rc = ft_workflow_report_prepare(&ar, cli_archive_path(ctx), n ? argv[1] : "latest", vs,
	                                NULL, &co, ctx->stable, &r, &err);
	ft_archive_close(ar);
	if (rc < 0) {
		ft_workflow_report_release(&r);
		return cli_fail(ctx, rc, &err);
	}
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

/*
 * Global options may come before the verb ("fabtune --json archive list"
 * reaches us as "archive --json list"): move the verb first for dispatch.
 */
static void
verb_first(int argc, char **argv)
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

static const struct cmd baseline_cmds[] = {
	{ "add", baseline_add, "add runs to a baseline" },
	{ "list", baseline_list, "list the baselines" },
	{ "rm", baseline_rm, "remove runs from a baseline, or the baseline" },
	{ "set", baseline_set, "make a baseline exactly these runs" },
};

static int
archive_baseline(int argc, char **argv, struct cli_ctx *ctx)
{
	verb_first(argc, argv);
	return cli_dispatch(baseline_cmds, FT_ARRAY_SIZE(baseline_cmds), "archive baseline", argc,
	                    argv, ctx);
}

/* ---- archive export / import / rm ---------------------------------------- */

static int
archive_export(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = { "fabtune archive export [RUN...] [-o FILE]", NULL };
	const char *output = NULL;
	static struct opt opts[] = {
		OPT_STRING('o', "output", NULL, "FILE", "write to FILE instead of stdout"),
		OPT_END(),
	};
	const struct cmd_usage usage = {
		"archive export", synopsis,
		"Export runs (default: all) as JSON, to keep, share or import elsewhere.", opts
	};
	struct ft_error err = { 0 };
	struct ft_archive *ar;
	struct ft_strbuf sb;
	struct ft_vec ids, list;
	int n, i, rc;

	opts[0].value = &output;
	n = opts_parse(&usage, ctx, argc, argv);
	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	rc = cli_archive_open(ctx, &ar, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	ft_vec_init(&ids, sizeof(int64_t));
	ft_vec_init(&list, sizeof(struct ft_archive_info));
	for (i = 1; rc == 0 && i <= n; i++) {
		int64_t id;

		rc = ft_archive_resolve(ar, argv[i], &id, &err);
		if (rc == 0 && ft_vec_push(&ids, &id) < 0)
			rc = ft_error_set(&err, FT_ENOMEM, "out of memory");
	}
	if (rc == 0 && n == 0) {
		rc = ft_archive_list(ar, NULL, &list, &err);
		for (size_t k = 0; rc == 0 && k < list.len; k++)
			if (ft_vec_push(&ids, &FT_VEC_AT(&list, struct ft_archive_info, k).id) < 0)
				rc = ft_error_set(&err, FT_ENOMEM, "out of memory");
	}
	ft_strbuf_init(&sb);
	if (rc == 0)
		rc = ft_archive_export(ar, ids.data, ids.len, &sb,
		                       ctx->stable ? FT_EXPORT_STABLE : 0, &err);
	if (rc == 0)
		rc = cli_write_output(output, &sb, &err);
	if (rc == 0 && output)
		fprintf(stderr, "fabtune %s: wrote %zu run%s to %s\n", ctx->cmd, ids.len,
		        ids.len == 1 ? "" : "s", output);
	ft_archive_close(ar);
	ft_strbuf_release(&sb);
	ft_vec_release(&ids);
	ft_vec_release(&list);
	return rc < 0 ? cli_fail(ctx, rc, &err) : EXIT_OK;
}

/* Import a tool's text output through the parsers (nccl-tests, perftest, ...). */
static int
import_text(struct cli_ctx *ctx, struct ft_archive *ar, const char *path, const char *format,
            const char *text, size_t len, struct ft_vec *ids, struct ft_error *err)
{
#ifdef HAVE_PARSE
	const struct ft_parser *p = format ? ft_parser_find(format) : ft_parser_detect(text, len);
	struct ft_fingerprint fp;
	struct ft_obs_set obs;
	struct ft_run run;
	int64_t id;
	int rc;

	if (!p)
		return ft_error_set(
		        err, FT_EPARSE,
		        format ? "%s: unknown format '%s' (see 'fabtune parse --list')" :
		                 "%s: unrecognised format%s (not a fabtune export, and no "
		                 "parser knows it; give --format)",
		        path, format ? format : "");
	ft_run_init(&run, FT_SOURCE_IMPORT, p->name);
	ft_strlcpy(run.label, path, sizeof(run.label));
	ft_obs_set_init(&obs);
	ft_fingerprint_init(&fp);
	rc = ft_parse_buffer(text, len, path, p->name, &obs, &run, err);
	/* Where the output was taken, as far as it tells: not this host. */
	if (rc == 0 && ft_fingerprint_from_obs(&fp, &obs) < 0)
		rc = ft_error_set(err, FT_ENOMEM, "out of memory");
	if (rc == 0)
		rc = ft_archive_save(ar, &run, &obs, NULL, 0, &fp, &id, err);
	if (rc == 0 && ft_vec_push(ids, &id) < 0)
		rc = ft_error_set(err, FT_ENOMEM, "out of memory");
	ft_run_release(&run);
	ft_obs_set_release(&obs);
	ft_fingerprint_release(&fp);
	return rc;
#else
	(void)ctx;
	(void)ar;
	(void)format;
	(void)text;
	(void)len;
	(void)ids;
	return ft_error_set(err, FT_ENOTSUP,
	                    "%s: not a fabtune export, and this build has no parsers for tool "
	                    "outputs (nccl-tests, perftest)",
	                    path);
#endif
}

static int
archive_import(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = { "fabtune archive import FILE... [--format NAME]",
		                                NULL };
	const char *format = NULL;
	static struct opt opts[] = {
		OPT_STRING(0, "format", NULL, "NAME",
		           "the tool that wrote FILE (nccl-tests, "
		           "perftest, ...; default: detect)"),
		OPT_END(),
	};
	const struct cmd_usage usage = {
		"archive import", synopsis,
		"Import runs: a fabtune export (JSON), or the text output of nccl-tests or\n"
		"perftest (through the parsers). Each file is imported whole or not at all.",
		opts
	};
	struct ft_error err = { 0 };
	struct ft_strbuf js;
	struct ft_json j;
	struct ft_archive *ar;
	struct ft_vec ids;
	int n, i, rc;

	opts[0].value = &format;
	n = opts_parse(&usage, ctx, argc, argv);
	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	if (n < 1) {
		cli_error(ctx, "expected FILE... to import");
		return EXIT_USAGE;
	}
	rc = cli_archive_open(ctx, &ar, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	ft_vec_init(&ids, sizeof(int64_t));
	ft_strbuf_init(&js);
	ft_json_init(&j, &js, false);
	ft_json_obj_begin(&j);
	ft_json_key(&j, "imported");
	ft_json_arr_begin(&j);
	for (i = 1; rc == 0 && i <= n; i++) {
		struct ft_strbuf sb;
		size_t k, start = ids.len, skip = 0;

		ft_strbuf_init(&sb);
		rc = ft_strbuf_read_file(&sb, argv[i], &err);
		while (rc == 0 && skip < sb.len && strchr(" \t\r\n", sb.buf[skip]))
			skip++;
		if (rc == 0 && (!format || strcmp(format, "fabtune") == 0) && skip < sb.len &&
		    sb.buf[skip] == '{')
			rc = ft_archive_import(ar, sb.buf, sb.len, argv[i], &ids, &err);
		else if (rc == 0)
			rc = import_text(ctx, ar, argv[i], format, sb.buf, sb.len, &ids, &err);
		for (k = start; rc == 0 && k < ids.len; k++) {
			if (!ctx->json)
				fprintf(stdout, "imported %s as run %" PRId64 "\n", argv[i],
				        FT_VEC_AT(&ids, int64_t, k));
			ft_json_obj_begin(&j);
			ft_json_kv_str(&j, "file", argv[i]);
			ft_json_kv_int(&j, "run", FT_VEC_AT(&ids, int64_t, k));
			ft_json_obj_end(&j);
		}
		ft_strbuf_release(&sb);
	}
	ft_json_arr_end(&j);
	ft_json_obj_end(&j);
	ft_strbuf_addch(&js, '\n');
	if (rc == 0 && ctx->json)
		cli_write(&js);
	ft_strbuf_release(&js);
	ft_archive_close(ar);
	ft_vec_release(&ids);
	return rc < 0 ? cli_fail(ctx, rc, &err) : EXIT_OK;
}

static int
archive_rm(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = { "fabtune archive rm RUN...", NULL };
	static const struct opt opts[] = { OPT_END() };
	static const struct cmd_usage usage = { "archive rm", synopsis,
		                                "Delete runs (and their baseline memberships).",
		                                opts };
	struct ft_error err = { 0 };
	struct ft_strbuf js;
	struct ft_json j;
	struct ft_archive *ar;
	int n, i, rc;

	n = opts_parse(&usage, ctx, argc, argv);
	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	if (n < 1) {
		cli_error(ctx, "expected RUN... to delete");
		return EXIT_USAGE;
	}
	rc = cli_archive_open(ctx, &ar, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	ft_strbuf_init(&js);
	ft_json_init(&j, &js, false);
	ft_json_obj_begin(&j);
	ft_json_key(&j, "deleted");
	ft_json_arr_begin(&j);
	for (i = 1; rc == 0 && i <= n; i++) {
		int64_t id;

		rc = ft_archive_resolve(ar, argv[i], &id, &err);
		if (rc == 0)
			rc = ft_archive_delete(ar, id, &err);
		if (rc == 0 && !ctx->json)
			fprintf(stdout, "deleted run %" PRId64 "\n", id);
		if (rc == 0)
			ft_json_int(&j, id);
	}
	ft_json_arr_end(&j);
	ft_json_obj_end(&j);
	ft_strbuf_addch(&js, '\n');
	if (rc == 0 && ctx->json)
		cli_write(&js);
	ft_strbuf_release(&js);
	ft_archive_close(ar);
	return rc < 0 ? cli_fail(ctx, rc, &err) : EXIT_OK;
}

static int
archive_check(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = { "fabtune archive check", NULL };
	static const struct opt opts[] = { OPT_END() };
	static const struct cmd_usage usage = {
		"archive check", synopsis,
		"Check the archive: SQLite's integrity check, and that every run holds the\n"
		"results, observations and findings it records.",
		opts
	};
	struct ft_error err = { 0 };
	struct ft_archive *ar;
	size_t nruns = 0;
	int n, rc;

	n = opts_parse(&usage, ctx, argc, argv);
	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	rc = cli_archive_open(ctx, &ar, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	rc = ft_archive_check(ar, &nruns, &err);
	if (rc == 0 && ctx->json) {
		struct ft_strbuf js;
		struct ft_json j;

		ft_strbuf_init(&js);
		ft_json_init(&j, &js, false);
		ft_json_obj_begin(&j);
		ft_json_kv_bool(&j, "ok", true);
		ft_json_kv_uint(&j, "runs", nruns);
		ft_json_kv_int(&j, "schema_version", FT_ARCHIVE_SCHEMA_VERSION);
		ft_json_obj_end(&j);
		ft_strbuf_addch(&js, '\n');
		cli_write(&js);
		ft_strbuf_release(&js);
	} else if (rc == 0) {
		fprintf(stdout, "archive ok: %zu run%s, schema version %d\n", nruns,
		        nruns == 1 ? "" : "s", FT_ARCHIVE_SCHEMA_VERSION);
	}
	ft_archive_close(ar);
	if (rc < 0) {
		cli_error(ctx, "%s", ft_error_msg(&err, rc));
		return EXIT_PROBLEM;
	}
	return EXIT_OK;
}

static const struct cmd archive_cmds[] = {
	{ "baseline", archive_baseline, "name the runs that later runs are compared with" },
	{ "check", archive_check, "check the archive's integrity" },
	{ "compare", archive_compare, "compare a run with a baseline; exit 1 on regression" },
	{ "export", archive_export, "export runs as JSON" },
	{ "import", archive_import, "import a fabtune export, nccl-tests or perftest output" },
	{ "list", archive_list, "list the archived runs" },
	{ "rm", archive_rm, "delete runs" },
	{ "show", archive_show, "show one run" },
};

int
cmd_archive(int argc, char **argv, struct cli_ctx *ctx)
{
	verb_first(argc, argv);
	return cli_dispatch(archive_cmds, FT_ARRAY_SIZE(archive_cmds), "archive", argc, argv, ctx);
}

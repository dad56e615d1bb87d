/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-archive-store.c - `fabtune archive export|import|rm|check`: runs
 * in and out of the archive as JSON or tool outputs, deleting runs, and
 * the archive's integrity.
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

/* ---- archive export / import / rm ---------------------------------------- */

int
cmd_archive_export(int argc, char **argv, struct cli_ctx *ctx)
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

int
cmd_archive_import(int argc, char **argv, struct cli_ctx *ctx)
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
			rc = ft_workflow_import_text(ar, argv[i], format, sb.buf, sb.len, &ids, &err);
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

int
cmd_archive_rm(int argc, char **argv, struct cli_ctx *ctx)
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

int
cmd_archive_check(int argc, char **argv, struct cli_ctx *ctx)
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

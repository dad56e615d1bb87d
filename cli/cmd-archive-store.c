/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-archive-store.c - `fabtune archive export|import|rm|check`: runs
 * in and out of the archive as JSON or tool outputs, deleting runs, and
 * the archive's integrity.
 */
#include <inttypes.h>
#include <stdio.h>

#include <fabtune/fabtune.h>
#include <fabtune/workflow.h>

#include "cli-archive.h"
#include "cli.h"

/* The runs @args name (none: all) as JSON into @sb, or into the file *@output. */
static int
export_runs(struct cli_ctx *ctx, struct ft_archive *ar, int n, char **args, struct ft_strbuf *sb,
            void *output, struct ft_error *err)
{
	const char *path = *(const char **)output;
	struct ft_strbuf doc;
	struct ft_vec ids;
	int rc;

	ft_vec_init(&ids, sizeof(int64_t));
	ft_strbuf_init(&doc);
	rc = ft_workflow_resolve_runs(ar, (const char *const *)args, (size_t)n, &ids, err);
	if (rc == 0)
		rc = ft_archive_export(ar, ids.data, ids.len, path ? &doc : sb,
		                       ctx->stable ? FT_EXPORT_STABLE : 0, err);
	if (rc == 0 && path)
		rc = cli_write_output(path, &doc, err);
	if (rc == 0 && path)
		fprintf(stderr, "fabtune %s: wrote %zu run%s to %s\n", ctx->cmd, ids.len,
		        ids.len == 1 ? "" : "s", path);
	ft_strbuf_release(&doc);
	ft_vec_release(&ids);
	return rc;
}

int
cmd_archive_export(int argc, char **argv, struct cli_ctx *ctx)
{
	const char *output = NULL;
	const struct opt opts[] = {
		OPT_OUTPUT(&output),
		OPT_END(),
	};
	const struct cmd_usage usage = CMD_USAGE(
		"archive export",
		"Export runs (default: all) as JSON, to keep, share or import elsewhere.", opts,
		"fabtune archive export [RUN...] [-o FILE]");

	return cli_archive_read(ctx, &usage, argc, argv, -1, export_runs, &output);
}

/* Import one file whole (@format: the --format given, or NULL): "imported FILE as run N". */
static int
import_one(struct cli_ctx *ctx, struct ft_archive *ar, const char *path, struct cli_answer *a,
           void *format, struct ft_error *err)
{
	struct ft_vec ids;
	int rc;

	ft_vec_init(&ids, sizeof(int64_t));
	rc = ft_workflow_import_file(ar, path, *(const char **)format, &ids, err);
	for (size_t k = 0; rc == 0 && k < ids.len; k++) {
		int64_t id = FT_VEC_AT(&ids, int64_t, k);

		if (!ctx->json)
			printf("imported %s as run %" PRId64 "\n", path, id);
		ft_json_obj_begin(&a->j);
		ft_json_kv_str(&a->j, "file", path);
		ft_json_kv_int(&a->j, "run", id);
		ft_json_obj_end(&a->j);
	}
	ft_vec_release(&ids);
	return rc;
}

int
cmd_archive_import(int argc, char **argv, struct cli_ctx *ctx)
{
	const char *format = NULL;
	const struct opt opts[] = {
		OPT_STRING(0, "format", &format, "NAME",
		           "the tool that wrote FILE (nccl-tests, "
		           "perftest, ...; default: detect)"),
		OPT_END(),
	};
	const struct cmd_usage usage = CMD_USAGE(
		"archive import",
		"Import runs: a fabtune export (JSON), or the output of any tool that\n"
		"'fabtune parse --list' names (nccl-tests, perftest, OSU, ibstat, ...), through\n"
		"the parsers; a tool's JSON output (iperf3 --json, a profiler trace) needs\n"
		"--format. Each file is imported whole or not at all.",
		opts, "fabtune archive import FILE... [--format NAME]");

	return cli_archive_each(ctx, &usage, argc, argv, "FILE... to import", "imported",
	                        import_one, &format);
}

/* Delete the run @ref names: "deleted run N". */
static int
delete_one(struct cli_ctx *ctx, struct ft_archive *ar, const char *ref, struct cli_answer *a,
           void *ud, struct ft_error *err)
{
	int64_t id;
	int rc = ft_archive_resolve(ar, ref, &id, err);

	if (rc == 0)
		rc = ft_archive_delete(ar, id, err);
	if (rc < 0)
		return rc;
	if (!ctx->json)
		printf("deleted run %" PRId64 "\n", id);
	ft_json_int(&a->j, id);
	return 0;
}

int
cmd_archive_rm(int argc, char **argv, struct cli_ctx *ctx)
{
	const struct cmd_usage usage =
		CMD_USAGE("archive rm", "Delete runs (and their baseline memberships).", NULL,
		          "fabtune archive rm RUN...");

	return cli_archive_each(ctx, &usage, argc, argv, "RUN... to delete", "deleted",
	                        delete_one, NULL);
}

/* SQLite's check and the runs' own: "archive ok: N runs", or exit 1 naming the damage. */
static int
check_archive(struct cli_ctx *ctx, struct ft_archive *ar, int n, char **args,
              struct ft_strbuf *sb, void *ud, struct ft_error *err)
{
	size_t nruns = 0;
	int rc = ft_archive_check(ar, &nruns, err);
	struct ft_json j;

	if (rc < 0) {
		cli_error(ctx, "%s", ft_error_msg(err, rc));
		return EXIT_PROBLEM;
	}
	if (!ctx->json) {
		ft_strbuf_addf(sb, "archive ok: %zu run%s, schema version %d\n", nruns,
		               nruns == 1 ? "" : "s", FT_ARCHIVE_SCHEMA_VERSION);
		return 0;
	}
	ft_json_init(&j, sb, false);
	ft_json_obj_begin(&j);
	ft_json_kv_bool(&j, "ok", true);
	ft_json_kv_uint(&j, "runs", nruns);
	ft_json_kv_int(&j, "schema_version", FT_ARCHIVE_SCHEMA_VERSION);
	ft_json_obj_end(&j);
	ft_strbuf_addch(sb, '\n');
	return 0;
}

CLI_ARCHIVE_READ_VERB(cmd_archive_check, check_archive, "archive check",
                      "Check the archive: SQLite's integrity check, and that every run holds "
                      "the\nresults, observations and findings it records.",
                      "fabtune archive check")

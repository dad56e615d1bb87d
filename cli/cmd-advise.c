/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-advise.c - `fabtune advise INPUT...`: the concrete changes that the
 * observations call for (NCCL environment, MTU, PFC/ECN/DCQCN, routing, QPs,
 * channels, placement, hardware), with the evidence behind each and the
 * predicted gain where it can be computed; as a table, JSON, or `export`
 * lines to paste into a job script (--format env). The inputs are gathered
 * as for `fabtune diagnose`, the advice is ft_workflow_advise() and written
 * by ft_workflow_advice_write().
 */
#include <string.h>

#include <fabtune/fabtune.h>

#include "cli-diag.h"
#include "cli.h"

int
cmd_advise(int argc, char **argv, struct cli_ctx *ctx)
{
	const char *format = NULL;
	struct ft_workflow_sources src = { 0 };
	const struct opt opts[] = {
		OPT_STRING(0, "format", &format, "FMT",
			   "output: table (default), json, or env (export lines to paste)"),
		OPT_STRING(0, "input-format", &src.format, "NAME",
			   "read every INPUT as this format (default: detect)"),
		CLI_DIAG_SOURCE_OPTS(src, "what the fabric is held to (as for fabtune diagnose)"),
		OPT_END(),
	};
	const struct cmd_usage usage = CMD_USAGE(
		"advise",
		"Advise concrete changes (NCCL environment, MTU, PFC/ECN/DCQCN, adaptive routing, "
		"QPs per connection, channels, placement), each with its evidence and, where "
		"computable, the predicted gain.",
		opts,
		"fabtune advise INPUT... [--expect FILE] [--spec SPEC] [--thresholds FILE] "
		"[--input-format NAME] [--format table|json|env] [--json]",
		"fabtune advise --probe [--root DIR] [--interval TIME] [INPUT...] [options]");
	struct ft_workflow_inputs in;
	struct ft_advice_set s;
	struct ft_whatif_opts wo = { 0 };
	struct ft_error err = { 0 };
	enum ft_advice_form form;
	struct ft_strbuf sb;
	int n, rc;

	n = opts_parse_args(&usage, ctx, argc, argv, -1, &rc);
	if (n < 0)
		return rc;
	form = ctx->json ? FT_ADVICE_JSON : FT_ADVICE_TABLE;
	if (format && strcmp(format, "json") == 0) {
		form = FT_ADVICE_JSON;
	} else if (format && strcmp(format, "env") == 0) {
		form = FT_ADVICE_ENV;
	} else if (format && strcmp(format, "table") != 0) {
		cli_error(ctx, "--format: expected table, json or env, got '%s'", format);
		return EXIT_USAGE;
	}
	ft_advice_set_init(&s);
	rc = cli_diag_gather(ctx, &src, argv + 1, n, &in);
	if (rc == 0) {
		wo.spec = src.spec;
		rc = ft_workflow_advise(&in, &wo, &s, &err);
		rc = rc < 0 ? cli_fail(ctx, rc, &err) : EXIT_OK;
	}
	if (rc == 0) {
		ft_strbuf_init(&sb);
		ft_workflow_advice_write(&sb, &s, &in, &wo, form);
		rc = cli_emit(ctx, &sb);
	}
	ft_advice_set_release(&s);
	ft_workflow_inputs_release(&in);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-diagnose.c - `fabtune diagnose INPUT...`: parse tool outputs
 * (files, or folders of them),
 * run the layered rules and print the findings, ranked by severity and
 * layer, with the evidence lines behind each one. The inputs are gathered
 * by ft_workflow_inputs_gather() (cli/cli-diag.c), as for `fabtune advise`.
 */
#include <fabtune/fabtune.h>
#include <fabtune/workflow.h>

#include "cli-archive.h"
#include "cli-diag.h"
#include "cli.h"

int
cmd_diagnose(int argc, char **argv, struct cli_ctx *ctx)
{
	bool list = false, save = false;
	struct ft_workflow_sources src = { 0 };
	const struct opt opts[] = {
		OPT_STRING(
			'f', "format", &src.format, "NAME",
			"read every INPUT as this format (default: detect; fabtune parse --list)"),
		CLI_DIAG_SOURCE_OPTS(src, "what the fabric is held to (YAML/JSON: utilisation_min, "
		                          "pfc_rate_max, ecn_rate_max, overlap_min, recovery_max, "
		                          "pause_frames_max, paused_fraction_max, "
		                          "ecn_mark_share_max, switch_drops_max)"),
		OPT_BOOL(0, "list-rules", &list, "list the rules and exit"),
		OPT_SAVE(&save, "the inputs' results, observations and findings"),
		OPT_END(),
	};
	const struct cmd_usage usage = CMD_USAGE(
		"diagnose",
		"Locate the fault layer by layer (application, communication library, OS/driver, "
		"firmware/hardware, fabric) from tool outputs, with the evidence and the fix. "
		"An INPUT that is a folder stands for the files under it; those in no known "
		"format are listed as skipped. "
		"Exit 1 when a finding of severity warning or worse exists.",
		opts,
		"fabtune diagnose INPUT... [--expect FILE] [--spec SPEC] [--thresholds FILE] "
		"[--format NAME] [--json]",
		"fabtune diagnose --probe [--root DIR] [--interval TIME] [INPUT...] [options]",
		"fabtune diagnose --list-rules [--json]");
	struct ft_workflow_inputs in;
	struct ft_findings f;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	int n, rc;

	n = opts_parse_args(&usage, ctx, argc, argv, -1, &rc);
	if (n < 0)
		return rc;
	if (list)
		return cli_emit_with(ctx, ft_workflow_rules_write);
	ft_strbuf_init(&sb);
	ft_findings_init(&f);
	rc = cli_diag_gather(ctx, &src, argv + 1, n, &in);
	if (rc == 0) {
		rc = ft_diag_run(&in.din, &f, &err);
		rc = rc < 0 ? cli_fail(ctx, rc, &err) : EXIT_OK;
	}
	if (rc == 0) {
		ft_workflow_findings_write(&sb, &f, &in, ctx->json, cli_color(ctx));
		rc = cli_emit(ctx, &sb);
	}
	if (rc == 0 && ft_findings_any(&f, FT_SEV_WARNING))
		rc = EXIT_PROBLEM;
	if (save && (rc == EXIT_OK || rc == EXIT_PROBLEM)) {
		if (n > 0)
			ft_strlcpy(in.rows.label, argv[1], sizeof(in.rows.label));
		if (src.spec)
			ft_strlcpy(in.rows.spec, src.spec, sizeof(in.rows.spec));
		if (cli_save_run(ctx, &in.rows, &in.obs, f.v.len ? ft_findings_at(&f, 0) : NULL,
				 ft_findings_len(&f)) < 0)
			rc = EXIT_RUNTIME;
	}
	ft_strbuf_release(&sb);
	ft_findings_release(&f);
	ft_workflow_inputs_release(&in);
	return rc;
}

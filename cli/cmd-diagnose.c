/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-diagnose.c - `fabtune diagnose INPUT...`: parse tool outputs,
 * run the layered rules and print the findings, ranked by severity and
 * layer, with the evidence lines behind each one. The inputs are gathered
 * by ft_workflow_inputs_gather() (cli/cli-diag.c), as for `fabtune advise`.
 */
#include <stdio.h>
#include <string.h>

#include <fabtune/fabtune.h>
#include <fabtune/workflow.h>

#include "cli-archive.h"
#include "cli-diag.h"
#include "cli.h"

/* ---- listing the rules --------------------------------------------------- */

static int
list_rules(struct cli_ctx *ctx)
{
	struct ft_strbuf sb;
	size_t i;

	ft_strbuf_init(&sb);
	if (ctx->json) {
		struct ft_json j;

		ft_json_init(&j, &sb, false);
		ft_json_arr_begin(&j);
		for (i = 0; i < ft_rule_count(); i++) {
			const struct ft_rule *r = ft_rule_at(i);

			ft_json_obj_begin(&j);
			ft_json_kv_str(&j, "id", r->id);
			ft_json_kv_str(&j, "layer", ft_layer_name(r->layer));
			ft_json_kv_str(&j, "severity", ft_severity_name(r->severity));
			ft_json_kv_str(&j, "summary", r->summary);
			ft_json_kv_str(&j, "needs", r->needs);
			ft_json_kv_str(&j, "fix", r->fix);
			ft_json_kv_str(&j, "kb", r->kb);
			ft_json_obj_end(&j);
		}
		ft_json_arr_end(&j);
		ft_strbuf_addch(&sb, '\n');
	} else {
		struct ft_table t;
		bool bad = false;

		ft_table_init(&t);
		ft_table_col(&t, "rule", FT_ALIGN_LEFT);
		ft_table_col(&t, "layer", FT_ALIGN_LEFT);
		ft_table_col(&t, "severity", FT_ALIGN_LEFT);
		ft_table_col(&t, "checks", FT_ALIGN_LEFT);
		for (i = 0; i < ft_rule_count(); i++) {
			const struct ft_rule *r = ft_rule_at(i);

			bad |= 0 > ft_table_cell(&t, r->id);
			bad |= 0 > ft_table_cell(&t, ft_layer_name(r->layer));
			bad |= 0 > ft_table_cell(&t, ft_severity_name(r->severity));
			bad |= 0 > ft_table_cell(&t, r->summary);
		}
		ft_table_render(&t, &sb);
		ft_table_release(&t);
		sb.oom = sb.oom || bad;
	}
	if (sb.oom) {
		ft_strbuf_release(&sb);
		return cli_fail(ctx, FT_ENOMEM, NULL);
	}
	cli_write(&sb);
	ft_strbuf_release(&sb);
	return EXIT_OK;
}

/* ---- text output --------------------------------------------------------- */

static void
evidence_line(struct ft_strbuf *sb, const struct ft_obs *o)
{
	char v[200], e[160];

	ft_obs_value_text(o, v, sizeof(v));
	ft_obs_entity(o, e, sizeof(e));
	if (o->line)
		ft_strbuf_addf(sb, "    %s:%u: ", o->file, o->line);
	else
		ft_strbuf_addf(sb, "    %s: ", o->file[0] ? o->file : "-");
	ft_strbuf_addf(sb, "%s%s%s = %s%s%s\n", strcmp(e, "-") ? e : "", strcmp(e, "-") ? " " : "",
		       o->key, v, o->unit[0] ? " " : "", o->unit);
}

static void
render_text(struct ft_strbuf *sb, const struct ft_findings *f, const struct ft_workflow_inputs *in,
            bool color)
{
	size_t counts[FT_SEV_COUNT] = { 0 };
	struct ft_table t;
	size_t i, k;
	bool bad = false;

	ft_strbuf_addf(sb, "%zu observations from %zu input%s, %zu rules", ft_obs_set_len(&in->obs),
		       in->nfiles, in->nfiles == 1 ? "" : "s", ft_rule_count());
	if (in->expect.len)
		ft_strbuf_addf(sb, ", %zu expectation%s", in->expect.len,
			       in->expect.len == 1 ? "" : "s");
	if (in->nskipped)
		ft_strbuf_addf(sb, "; %zu input line%s not understood (see fabtune parse)",
			       in->nskipped, in->nskipped == 1 ? "" : "s");
	ft_strbuf_adds(sb, "\n");
	if (!ft_findings_len(f)) {
		ft_strbuf_adds(sb, "no findings\n");
		return;
	}
	ft_strbuf_adds(sb, "\n");
	ft_table_init(&t);
	ft_table_col(&t, "#", FT_ALIGN_RIGHT);
	ft_table_col(&t, "severity", FT_ALIGN_LEFT);
	ft_table_col(&t, "layer", FT_ALIGN_LEFT);
	ft_table_col(&t, "rule", FT_ALIGN_LEFT);
	ft_table_col(&t, "entity", FT_ALIGN_LEFT);
	for (i = 0; i < ft_findings_len(f); i++) {
		const struct ft_finding *x = ft_findings_at(f, i);

		counts[x->severity]++;
		bad |= 0 > ft_table_cellf(&t, "%zu", i + 1);
		if (color)
			bad |= 0 > ft_table_cellf(&t, "%s%s%s", ft_report_severity_color(x->severity),
			                          ft_severity_name(x->severity), FT_ANSI_RESET);
		else
			bad |= 0 > ft_table_cell(&t, ft_severity_name(x->severity));
		bad |= 0 > ft_table_cell(&t, ft_layer_name(x->layer));
		bad |= 0 > ft_table_cell(&t, x->rule_id);
		bad |= 0 > ft_table_cell(&t, x->entity);
	}
	ft_table_render(&t, sb);
	ft_table_release(&t);
	sb->oom = sb->oom || bad;
	for (i = 0; i < ft_findings_len(f); i++) {
		const struct ft_finding *x = ft_findings_at(f, i);

		ft_strbuf_addf(sb, "\n%zu. [%s] %s (%s) %s\n", i + 1, ft_severity_name(x->severity),
			       x->rule_id, ft_layer_name(x->layer), x->entity);
		ft_strbuf_addf(sb, "  %s\n", x->message);
		ft_strbuf_addf(sb, "  fix: %s\n", x->fix);
		ft_strbuf_addf(sb, "  kb: %s\n", x->kb);
		ft_strbuf_adds(sb, "  evidence:\n");
		for (k = 0; k < x->nevidence; k++)
			evidence_line(sb, &x->evidence[k]);
	}
	ft_strbuf_addf(sb, "\n%zu finding%s:", ft_findings_len(f),
		       ft_findings_len(f) == 1 ? "" : "s");
	for (i = FT_SEV_COUNT; i-- > 0;)
		ft_strbuf_addf(sb, " %zu %s%s", counts[i], ft_severity_name((enum ft_severity)i),
			       i ? "," : "\n");
}

int
cmd_diagnose(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = {
		"fabtune diagnose INPUT... [--expect FILE] [--spec SPEC] [--thresholds FILE] "
		"[--format NAME] [--json]",
		"fabtune diagnose --probe [--root DIR] [--interval TIME] [INPUT...] [options]",
		"fabtune diagnose --list-rules [--json]",
		NULL,
	};
	const char *format = NULL, *expect = NULL, *spec = NULL, *thresholds = NULL;
	bool list = false, save = false;
	struct ft_workflow_sources src = { 0 };
	const struct opt opts[] = {
		OPT_STRING(
			'f', "format", &format, "NAME",
			"read every INPUT as this format (default: detect; fabtune parse --list)"),
		OPT_STRING(0, "expect", &expect, "FILE",
			   "expectations: a YAML/JSON list of {test, bytes, busbw_GBps, lat_us}"),
		OPT_STRING(0, "spec", &spec, "SPEC", "cluster spec: expectations from the model"),
		OPT_STRING(0, "thresholds", &thresholds, "FILE",
			   "what the fabric is held to (YAML/JSON: utilisation_min, pfc_rate_max, "
			   "ecn_rate_max, overlap_min, recovery_max, pause_frames_max, "
			   "paused_fraction_max, ecn_mark_share_max, switch_drops_max)"),
		OPT_BOOL(0, "probe", &src.probe, "probe this host (sysfs, tools) as one more input"),
		OPT_STRING(0, "root", &src.root, "DIR",
			   "probe a captured tree instead of / (implies --probe)"),
		OPT_DURATION(
			0, "interval", &src.interval_s,
			"probe twice this far apart and judge counter rates (implies --probe)"),
		OPT_BOOL(0, "list-rules", &list, "list the rules and exit"),
		OPT_BOOL(0, "save", &save,
			 "store the inputs' results, observations and findings in the archive"),
		OPT_END(),
	};
	const struct cmd_usage usage = {
		"diagnose",
		synopsis,
		"Locate the fault layer by layer (application, communication library, OS/driver, "
		"firmware/hardware, fabric) from tool outputs, with the evidence and the fix. "
		"Exit 1 when a finding of severity warning or worse exists.",
		opts,
	};
	struct ft_workflow_inputs in;
	struct ft_findings f;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	int n, rc;

	n = opts_parse(&usage, ctx, argc, argv);
	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	if (list)
		return list_rules(ctx);
	src.files = (const char *const *)(argv + 1);
	src.nfiles = (size_t)n;
	src.format = format;
	src.expect_file = expect;
	src.spec = spec;
	src.thresholds = thresholds;
	ft_workflow_inputs_init(&in);
	ft_findings_init(&f);
	rc = cli_diag_gather(ctx, &src, &in);
	if (rc)
		goto out;
	rc = ft_diag_run(&in.din, &f, &err);
	if (rc < 0) {
		rc = cli_fail(ctx, rc, &err);
		goto out;
	}
	ft_strbuf_init(&sb);
	if (ctx->json) {
		struct ft_json j;

		ft_json_init(&j, &sb, false);
		ft_diag_json(&j, &f, ft_obs_set_len(&in.obs));
		ft_strbuf_addch(&sb, '\n');
	} else {
		render_text(&sb, &f, &in, cli_color(ctx));
	}
	if (sb.oom) {
		ft_strbuf_release(&sb);
		rc = cli_fail(ctx, FT_ENOMEM, NULL);
		goto out;
	}
	cli_write(&sb);
	ft_strbuf_release(&sb);
	rc = ft_findings_any(&f, FT_SEV_WARNING) ? EXIT_PROBLEM : EXIT_OK;
	if (save) {
		if (n > 0)
			ft_strlcpy(in.rows.label, argv[1], sizeof(in.rows.label));
		if (spec)
			ft_strlcpy(in.rows.spec, spec, sizeof(in.rows.spec));
		if (cli_save_run(ctx, &in.rows, &in.obs, f.v.len ? ft_findings_at(&f, 0) : NULL,
				 ft_findings_len(&f)) < 0)
			rc = EXIT_RUNTIME;
	}
out:
	ft_findings_release(&f);
	ft_workflow_inputs_release(&in);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-diagnose.c - `fabtune diagnose INPUT...`: parse tool outputs,
 * run the layered rules and print the findings, ranked by severity and
 * layer, with the evidence lines behind each one. Also holds the input
 * loading shared with `fabtune advise` (diag_cli.h).
 */
#include <stdio.h>
#include <string.h>

#include <fabtune/fabtune.h>
#include <fabtune/workflow.h>
#include <fabtune/parse.h>
#include <fabtune/probe.h>

#include "cli-archive.h"
#include "cli.h"
#include "diag_cli.h"

void
diag_inputs_init(struct diag_inputs *in)
{
	ft_obs_set_init(&in->obs);
	ft_vec_init(&in->expect, sizeof(struct ft_expectation));
	ft_run_init(&in->rows, FT_SOURCE_IMPORT, "diagnose");
	in->nfiles = 0;
	in->nskipped = 0;
}

void
diag_inputs_release(struct diag_inputs *in)
{
	ft_obs_set_release(&in->obs);
	ft_vec_release(&in->expect);
	ft_run_release(&in->rows);
}

/* The analytic model's busbw for the sizes and rank counts measured (kb NA-MODEL, NA-BUSBW). */
int
diag_expectations_from_spec(const char *spec, const struct ft_run *measured, struct ft_vec *out,
			    size_t *n, struct ft_error *err)
{
	struct ft_cluster_spec cs;
	int rc;

	rc = ft_spec_resolve(spec, &cs, err);
	if (rc < 0)
		return rc;
	rc = ft_workflow_model_expectations(&cs, measured, NULL, out, NULL, n, err);
	if (rc < 0 && rc != FT_ENOMEM)
		return ft_error_set(err, rc, "%s: the model: %s", spec, ft_error_msg(err, rc));
	return rc;
}

/*
 * Parse @nfiles files (format @format, NULL = detect), read @expect_file and
 * ask the model for @spec's expectations. Prints the error and returns the
 * exit code on failure, 0 on success.
 */
static int
diag_inputs_load(struct diag_inputs *in, char **files, size_t nfiles, const char *format,
		 const char *expect_file, const char *spec, struct cli_ctx *ctx)
{
	struct ft_error err = { 0 };
	size_t i;
	int rc;

	for (i = 0; i < nfiles; i++) {
		struct ft_run run;

		ft_run_init(&run, FT_SOURCE_IMPORT, "");
		rc = ft_parse_file(files[i], format, &in->obs, &run, &err);
		if (rc == 0)
			rc = ft_diag_obs_from_run(&run, files[i], &in->obs);
		for (size_t r = 0; rc == 0 && r < ft_run_nrows(&run); r++)
			if (ft_run_add(&in->rows, ft_run_row(&run, r)) < 0)
				rc = ft_error_set(&err, FT_ENOMEM, "out of memory");
		ft_run_release(&run);
		if (rc < 0)
			return cli_fail(ctx, rc, &err);
		in->nfiles++;
	}
	for (i = 0; i < ft_obs_set_len(&in->obs); i++)
		if (strcmp(ft_obs_set_at(&in->obs, i)->key, "parse.skipped") == 0)
			in->nskipped++;
	if (expect_file) {
		rc = ft_diag_expectations_read(expect_file, &in->expect, &err);
		if (rc < 0)
			return cli_fail(ctx, rc, &err);
	}
	if (spec) {
		struct ft_cluster_spec cs;
		size_t npoints = 0;

		rc = diag_expectations_from_spec(spec, &in->rows, &in->expect, &npoints, &err);
		if (rc < 0)
			return cli_fail(ctx, rc, &err);
		/* the fabric's structure, for the rules that judge it (PFC deadlock risk) */
		rc = ft_spec_resolve(spec, &cs, &err);
		if (rc == 0)
			rc = ft_diag_obs_from_spec(&cs, spec, &in->obs);
		if (rc < 0)
			return cli_fail(ctx, rc, &err);
		if (npoints == 0)
			cli_warn(ctx, "--spec %s: no collective results in the inputs, so nothing to "
				 "compare with the model", spec);
	}
	return 0;
}

static bool
diag_probe_wanted(const struct diag_probe_opts *po)
{
	return po->probe || po->root || po->interval_s > 0;
}

static int
diag_inputs_probe(struct diag_inputs *in, const struct diag_probe_opts *po, struct cli_ctx *ctx)
{
	struct ft_probe_cfg cfg = { 0 };
	struct ft_error err = { 0 };
	int rc;

	if (!diag_probe_wanted(po))
		return 0;
	cfg.root = po->root ? po->root : "/";
	/* Tools read the live host, not a captured tree. */
	cfg.run_tools = !po->root || strcmp(po->root, "/") == 0;
	cfg.interval_s = po->interval_s;
	cfg.host = NULL;
	rc = ft_probe_host(&cfg, &in->obs, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	in->nfiles++;
	return 0;
}

int
diag_inputs_gather(struct diag_inputs *in, char **files, size_t nfiles, const char *format,
		   const char *expect_file, const char *spec, const struct diag_probe_opts *po,
		   struct cli_ctx *ctx, struct ft_diag_input *din)
{
	int rc;

	if (nfiles == 0 && !diag_probe_wanted(po)) {
		cli_error(ctx, "no input files and no --probe (see fabtune %s --help)", ctx->cmd);
		return EXIT_USAGE;
	}
	rc = diag_inputs_load(in, files, nfiles, format, expect_file, spec, ctx);
	if (rc == 0)
		rc = diag_inputs_probe(in, po, ctx);
	if (rc)
		return rc;
	din->obs = &in->obs;
	din->expect = in->expect.data;
	din->nexpect = in->expect.len;
	din->thresholds = NULL;
	return 0;
}

int
diag_thresholds_load(const char *path, struct ft_diag_thresholds *t, struct cli_ctx *ctx,
		     struct ft_diag_input *din)
{
	struct ft_error err = { 0 };
	int rc;

	ft_diag_thresholds_init(t);
	if (!path)
		return 0;
	rc = ft_diag_thresholds_read(path, t, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	din->thresholds = t;
	return 0;
}

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
render_text(struct ft_strbuf *sb, const struct ft_findings *f, const struct diag_inputs *in,
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
	struct ft_diag_thresholds thr;
	bool list = false, save = false;
	struct diag_probe_opts po = { false, NULL, 0 };
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
		OPT_BOOL(0, "probe", &po.probe, "probe this host (sysfs, tools) as one more input"),
		OPT_STRING(0, "root", &po.root, "DIR",
			   "probe a captured tree instead of / (implies --probe)"),
		OPT_DURATION(
			0, "interval", &po.interval_s,
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
	struct diag_inputs in;
	struct ft_findings f;
	struct ft_diag_input din;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	int n, rc;

	n = opts_parse(&usage, ctx, argc, argv);
	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	if (list)
		return list_rules(ctx);
	diag_inputs_init(&in);
	ft_findings_init(&f);
	rc = diag_inputs_gather(&in, argv + 1, (size_t)n, format, expect, spec, &po, ctx, &din);
	if (rc == 0)
		rc = diag_thresholds_load(thresholds, &thr, ctx, &din);
	if (rc)
		goto out;
	rc = ft_diag_run(&din, &f, &err);
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
	diag_inputs_release(&in);
	return rc;
}

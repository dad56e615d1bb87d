/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-advise.c - `fabtune advise INPUT...`: the concrete changes that the
 * observations call for (NCCL environment, MTU, PFC/ECN/DCQCN, routing, QPs,
 * channels, placement, hardware), with the evidence behind each and the
 * predicted gain where it can be computed; as a table, JSON, or `export`
 * lines to paste into a job script (--format env).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <fabtune/fabtune.h>

#include "cli-diag.h"
#include "cli.h"

static void
gain_text(const struct ft_advice *x, char *buf, size_t len)
{
	if (isnan(x->gain_pct))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f%%", x->gain_pct);
}

static void
render_table(struct ft_strbuf *sb, const struct ft_advice_set *s,
             const struct ft_workflow_inputs *in, const struct ft_whatif_opts *w)
{
	struct ft_table t;
	size_t i, k;
	bool bad = false;

	ft_strbuf_addf(sb, "%zu observations from %zu input%s\n", ft_obs_set_len(&in->obs),
		       in->nfiles, in->nfiles == 1 ? "" : "s");
	if (w->calibrated || w->derived || (w->spec_used[0] && w->note[0]))
		ft_strbuf_addf(sb, "what-if cluster: %s%s%s\n", w->label, w->note[0] ? "; " : "",
			       w->note);
	if (!ft_advice_set_len(s)) {
		ft_strbuf_adds(sb, "no changes to advise\n");
		return;
	}
	ft_strbuf_adds(sb, "\n");
	ft_table_init(&t);
	ft_table_col(&t, "#", FT_ALIGN_RIGHT);
	ft_table_col(&t, "category", FT_ALIGN_LEFT);
	ft_table_col(&t, "setting", FT_ALIGN_LEFT);
	ft_table_col(&t, "value", FT_ALIGN_LEFT);
	ft_table_col(&t, "gain", FT_ALIGN_RIGHT);
	for (i = 0; i < ft_advice_set_len(s); i++) {
		const struct ft_advice *x = ft_advice_set_at(s, i);
		char g[32];

		gain_text(x, g, sizeof(g));
		bad |= 0 > ft_table_cellf(&t, "%zu", i + 1);
		bad |= 0 > ft_table_cell(&t, x->category);
		bad |= 0 > ft_table_cell(&t, x->setting);
		bad |= 0 > ft_table_cell(&t, x->unset ? "(unset)" : x->value);
		bad |= 0 > ft_table_cell(&t, g);
	}
	ft_table_render(&t, sb);
	ft_table_release(&t);
	sb->oom = sb->oom || bad;
	for (i = 0; i < ft_advice_set_len(s); i++) {
		const struct ft_advice *x = ft_advice_set_at(s, i);

		ft_strbuf_addf(sb, "\n%zu. %s: %s %s%s\n", i + 1, x->id, x->setting,
			       x->unset ? "(unset)" : "= ", x->unset ? "" : x->value);
		ft_strbuf_addf(sb, "  why: %s\n", x->reason);
		if (x->action[0])
			ft_strbuf_addf(sb, "  how: %s\n", x->action);
		if (!isnan(x->gain_pct))
			ft_strbuf_addf(sb, "  predicted gain: %+.1f%% (%s)\n", x->gain_pct,
				       x->gain_basis);
		else
			ft_strbuf_addf(sb, "  predicted gain: %s\n", x->gain_basis);
		if (x->findings[0])
			ft_strbuf_addf(sb, "  findings: %s\n", x->findings);
		ft_strbuf_addf(sb, "  kb: %s\n", x->kb);
		for (k = 0; k < x->nevidence; k++) {
			const struct ft_obs *o = &x->evidence[k];
			char v[200], e[160];

			ft_obs_value_text(o, v, sizeof(v));
			ft_obs_entity(o, e, sizeof(e));
			if (o->line)
				ft_strbuf_addf(sb, "    %s:%u: ", o->file, o->line);
			else
				ft_strbuf_addf(sb, "    %s: ", o->file[0] ? o->file : "-");
			ft_strbuf_addf(sb, "%s%s%s = %s\n", strcmp(e, "-") ? e : "",
				       strcmp(e, "-") ? " " : "", o->key, v);
		}
	}
}

/* Single-quote @s for a POSIX shell. */
static void
shell_quote(struct ft_strbuf *sb, const char *s)
{
	ft_strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			ft_strbuf_adds(sb, "'\\''");
		else
			ft_strbuf_addch(sb, *s);
	}
	ft_strbuf_addch(sb, '\'');
}

static void
render_env(struct ft_strbuf *sb, const struct ft_advice_set *s)
{
	size_t i, nsys = 0;

	ft_strbuf_adds(sb, "# NCCL environment advised by fabtune\n");
	for (i = 0; i < ft_advice_set_len(s); i++) {
		const struct ft_advice *x = ft_advice_set_at(s, i);

		if (!x->is_env) {
			nsys++;
			continue;
		}
		ft_strbuf_addf(sb, "# %s: %s\n", x->id, x->reason);
		if (x->unset) {
			ft_strbuf_addf(sb, "unset %s\n", x->setting);
		} else {
			ft_strbuf_addf(sb, "export %s=", x->setting);
			shell_quote(sb, x->value);
			ft_strbuf_addch(sb, '\n');
		}
	}
	if (!nsys)
		return;
	ft_strbuf_adds(sb, "# system changes (not environment variables):\n");
	for (i = 0; i < ft_advice_set_len(s); i++) {
		const struct ft_advice *x = ft_advice_set_at(s, i);

		if (!x->is_env)
			ft_strbuf_addf(sb, "#   %s: %s\n", x->id,
				       x->action[0] ? x->action : x->value);
	}
}

int
cmd_advise(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = {
		"fabtune advise INPUT... [--expect FILE] [--spec SPEC] [--thresholds FILE] "
		"[--input-format NAME] [--format table|json|env] [--json]",
		"fabtune advise --probe [--root DIR] [--interval TIME] [INPUT...] [options]",
		NULL,
	};
	const char *format = NULL, *in_format = NULL, *expect = NULL, *spec = NULL;
	const char *thresholds = NULL;
	struct ft_workflow_sources src = { 0 };
	const struct opt opts[] = {
		OPT_STRING(0, "format", &format, "FMT",
			   "output: table (default), json, or env (export lines to paste)"),
		OPT_STRING(0, "input-format", &in_format, "NAME",
			   "read every INPUT as this format (default: detect)"),
		OPT_STRING(0, "expect", &expect, "FILE",
			   "expectations: a YAML/JSON list of {test, bytes, busbw_GBps, lat_us}"),
		OPT_STRING(0, "spec", &spec, "SPEC", "cluster spec: expectations from the model"),
		OPT_STRING(0, "thresholds", &thresholds, "FILE",
			   "what the fabric is held to (as for fabtune diagnose)"),
		OPT_BOOL(0, "probe", &src.probe, "probe this host (sysfs, tools) as one more input"),
		OPT_STRING(0, "root", &src.root, "DIR",
			   "probe a captured tree instead of / (implies --probe)"),
		OPT_DURATION(
			0, "interval", &src.interval_s,
			"probe twice this far apart and judge counter rates (implies --probe)"),
		OPT_END(),
	};
	const struct cmd_usage usage = {
		"advise",
		synopsis,
		"Advise concrete changes (NCCL environment, MTU, PFC/ECN/DCQCN, adaptive routing, "
		"QPs per connection, channels, placement), each with its evidence and, where "
		"computable, the predicted gain.",
		opts,
	};
	struct ft_workflow_inputs in;
	struct ft_advice_set s;
	struct ft_whatif_opts wo;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	bool json = ctx->json, env = false;
	int n, rc;

	n = opts_parse(&usage, ctx, argc, argv);
	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	json = ctx->json;
	if (format) {
		if (strcmp(format, "json") == 0)
			json = true;
		else if (strcmp(format, "env") == 0)
			env = true;
		else if (strcmp(format, "table") != 0) {
			cli_error(ctx, "--format: expected table, json or env, got '%s'", format);
			return EXIT_USAGE;
		}
	}
	src.files = (const char *const *)(argv + 1);
	src.nfiles = (size_t)n;
	src.format = in_format;
	src.expect_file = expect;
	src.spec = spec;
	src.thresholds = thresholds;
	ft_workflow_inputs_init(&in);
	ft_advice_set_init(&s);
	rc = cli_diag_gather(ctx, &src, &in);
	if (rc)
		goto out;
	rc = ft_advise(&in.din, NULL, &s, &err);
	memset(&wo, 0, sizeof(wo));
	wo.spec = spec;
	wo.measured = &in.rows;
	if (rc == 0)
		rc = ft_advise_whatif_ex(&in.din, &wo, &s, &err);
	if (rc < 0) {
		rc = cli_fail(ctx, rc, &err);
		goto out;
	}
	ft_strbuf_init(&sb);
	if (env) {
		render_env(&sb, &s);
	} else if (json) {
		struct ft_json j;

		ft_json_init(&j, &sb, false);
		ft_advice_json_ex(&j, &s, &wo);
		ft_strbuf_addch(&sb, '\n');
	} else {
		render_table(&sb, &s, &in, &wo);
	}
	if (sb.oom) {
		ft_strbuf_release(&sb);
		rc = cli_fail(ctx, FT_ENOMEM, NULL);
		goto out;
	}
	cli_write(&sb);
	ft_strbuf_release(&sb);
	rc = EXIT_OK;
out:
	ft_advice_set_release(&s);
	ft_workflow_inputs_release(&in);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * workflow/diag_write.c - a diagnosis and its advice as people and programs
 * read them: the rule list, the findings ranked with their evidence lines,
 * the advised changes with their predicted gains, and the same advice as
 * shell lines to paste into a job script.
 */
#include "internal.h"

#include <fabtune/json.h>
#include <fabtune/table.h>
#include <fabtune/workflow.h>

/* "    file:line: entity key = value unit", one line of a finding's or advice's evidence. */
static void
evidence_line(struct ft_strbuf *sb, const struct ft_obs *o, bool with_unit)
{
	char v[200], e[160];
	bool entity;

	ft_obs_value_text(o, v, sizeof(v));
	ft_obs_entity(o, e, sizeof(e));
	entity = strcmp(e, "-") != 0;
	if (o->line)
		ft_strbuf_addf(sb, "    %s:%u: ", o->file, o->line);
	else
		ft_strbuf_addf(sb, "    %s: ", o->file[0] ? o->file : "-");
	ft_strbuf_addf(sb, "%s%s%s = %s", entity ? e : "", entity ? " " : "", o->key, v);
	if (with_unit && o->unit[0])
		ft_strbuf_addf(sb, " %s", o->unit);
	ft_strbuf_addch(sb, '\n');
}

/* A column of a table: its header and alignment. */
struct col {
	const char *name;
	enum ft_align align;
};

/*
 * The cells of row @i of a table of @items, added in column order; @color
 * asks for ANSI colours. 0, or negative when a cell could not be stored.
 */
typedef int row_fn(struct ft_table *t, const void *items, size_t i, bool color);

/* A table of @nrows rows of @items under @cols; a cell not stored marks @sb out of memory. */
static void
table_write(struct ft_strbuf *sb, const struct col *cols, size_t ncols, row_fn *row,
            const void *items, size_t nrows, bool color)
{
	struct ft_table t;
	int rc = 0;

	ft_table_init(&t);
	for (size_t i = 0; i < ncols; i++)
		ft_table_col(&t, cols[i].name, cols[i].align);
	for (size_t i = 0; i < nrows; i++)
		rc |= row(&t, items, i, color);
	ft_table_render(&t, sb);
	ft_table_release(&t);
	sb->oom = sb->oom || rc < 0;
}

static void
rules_json(struct ft_strbuf *sb)
{
	struct ft_json j;

	ft_json_init(&j, sb, false);
	ft_json_obj_begin(&j);
	ft_json_key(&j, "rules");
	ft_json_arr_begin(&j);
	for (size_t i = 0; i < ft_rule_count(); i++) {
		const struct ft_rule *r = ft_rule_at(i);
		const char *const fields[][2] = {
			{ "id", r->id },
			{ "layer", ft_layer_name(r->layer) },
			{ "severity", ft_severity_name(r->severity) },
			{ "summary", r->summary },
			{ "needs", r->needs },
			{ "fix", r->fix },
			{ "kb", r->kb },
		};

		ft_json_obj_begin(&j);
		for (size_t k = 0; k < FT_ARRAY_SIZE(fields); k++)
			ft_json_kv_str(&j, fields[k][0], fields[k][1]);
		if (r->source) /* a public source the kb has no entry for */
			ft_json_kv_str(&j, "source", r->source);
		ft_json_obj_end(&j);
	}
	ft_json_arr_end(&j);
	ft_json_obj_end(&j);
	ft_strbuf_addch(sb, '\n');
}

static int
rule_row(struct ft_table *t, const void *items, size_t i, bool color)
{
	const struct ft_rule *r = ft_rule_at(i);
	int rc = 0;

	rc |= ft_table_cell(t, r->id);
	rc |= ft_table_cell(t, ft_layer_name(r->layer));
	rc |= ft_table_cell(t, ft_severity_name(r->severity));
	rc |= ft_table_cell(t, r->summary);
	return rc;
}

void
ft_workflow_rules_write(struct ft_strbuf *sb, bool json)
{
	static const struct col cols[] = {
		{ "rule", FT_ALIGN_LEFT },
		{ "layer", FT_ALIGN_LEFT },
		{ "severity", FT_ALIGN_LEFT },
		{ "checks", FT_ALIGN_LEFT },
	};

	if (json)
		rules_json(sb);
	else
		table_write(sb, cols, FT_ARRAY_SIZE(cols), rule_row, NULL, ft_rule_count(), false);
}

/* "N observations from M inputs": how much a diagnosis or advice read. */
static void
inputs_line(struct ft_strbuf *sb, const struct ft_workflow_inputs *in)
{
	ft_strbuf_addf(sb, "%zu observations from %zu input%s", ft_obs_set_len(&in->obs),
	               in->nfiles, in->nfiles == 1 ? "" : "s");
}

static int
finding_row(struct ft_table *t, const void *items, size_t i, bool color)
{
	const struct ft_finding *x = ft_findings_at(items, i);
	int rc = ft_table_cellf(t, "%zu", i + 1);

	if (color)
		rc |= ft_table_cellf(t, "%s%s%s", ft_report_severity_color(x->severity),
		                     ft_severity_name(x->severity), FT_ANSI_RESET);
	else
		rc |= ft_table_cell(t, ft_severity_name(x->severity));
	rc |= ft_table_cell(t, ft_layer_name(x->layer));
	rc |= ft_table_cell(t, x->rule_id);
	rc |= ft_table_cell(t, x->entity);
	return rc;
}

static void
findings_text(struct ft_strbuf *sb, const struct ft_findings *f,
              const struct ft_workflow_inputs *in, bool color)
{
	static const struct col cols[] = {
		{ "#", FT_ALIGN_RIGHT },   { "severity", FT_ALIGN_LEFT }, { "layer", FT_ALIGN_LEFT },
		{ "rule", FT_ALIGN_LEFT }, { "entity", FT_ALIGN_LEFT },
	};
	size_t counts[FT_SEV_COUNT] = { 0 };
	size_t i, k;

	inputs_line(sb, in);
	ft_strbuf_addf(sb, ", %zu rules", ft_rule_count());
	if (in->expect.len)
		ft_strbuf_addf(sb, ", %zu expectation%s", in->expect.len,
		               in->expect.len == 1 ? "" : "s");
	if (in->nskipped)
		ft_strbuf_addf(sb, "; %zu input line%s not understood (see fabtune parse)",
		               in->nskipped, in->nskipped == 1 ? "" : "s");
	ft_strbuf_adds(sb, "\n");
	ft_input_skipped_text(sb, &in->unknown);
	if (!ft_findings_len(f)) {
		ft_strbuf_adds(sb, "no findings\n");
		return;
	}
	ft_strbuf_adds(sb, "\n");
	table_write(sb, cols, FT_ARRAY_SIZE(cols), finding_row, f, ft_findings_len(f), color);
	for (i = 0; i < ft_findings_len(f); i++) {
		const struct ft_finding *x = ft_findings_at(f, i);
		const struct ft_rule *rule = ft_rule_find(x->rule_id);

		counts[x->severity]++;
		ft_strbuf_addf(sb, "\n%zu. [%s] %s (%s) %s\n", i + 1, ft_severity_name(x->severity),
		               x->rule_id, ft_layer_name(x->layer), x->entity);
		ft_strbuf_addf(sb, "  %s\n", x->message);
		ft_strbuf_addf(sb, "  fix: %s\n", x->fix);
		if (x->kb[0])
			ft_strbuf_addf(sb, "  kb: %s\n", x->kb);
		if (rule && rule->source)
			ft_strbuf_addf(sb, "  source: %s\n", rule->source);
		ft_strbuf_adds(sb, "  evidence:\n");
		for (k = 0; k < x->nevidence; k++)
			evidence_line(sb, &x->evidence[k], true);
	}
	ft_strbuf_addf(sb, "\n%zu finding%s:", ft_findings_len(f),
	               ft_findings_len(f) == 1 ? "" : "s");
	for (i = FT_SEV_COUNT; i-- > 0;)
		ft_strbuf_addf(sb, " %zu %s%s", counts[i], ft_severity_name((enum ft_severity)i),
		               i ? "," : "\n");
}

void
ft_workflow_findings_write(struct ft_strbuf *sb, const struct ft_findings *f,
                           const struct ft_workflow_inputs *in, bool json, bool color)
{
	struct ft_json j;

	if (!json) {
		findings_text(sb, f, in, color);
		return;
	}
	ft_json_init(&j, sb, false);
	ft_json_obj_begin(&j);
	ft_diag_json_members(&j, f, ft_obs_set_len(&in->obs));
	if (ft_input_paths_have_folder(&in->paths))
		ft_input_skipped_json(&j, &in->unknown);
	ft_json_obj_end(&j);
	ft_strbuf_addch(sb, '\n');
}

int
ft_workflow_advise(const struct ft_workflow_inputs *in, struct ft_whatif_opts *w,
                   struct ft_advice_set *s, struct ft_error *err)
{
	int rc = ft_advise(&in->din, NULL, s, err);

	w->measured = &in->rows;
	return rc < 0 ? rc : ft_advise_whatif_ex(&in->din, w, s, err);
}

static int
advice_row(struct ft_table *t, const void *items, size_t i, bool color)
{
	const struct ft_advice *x = ft_advice_set_at(items, i);
	int rc = ft_table_cellf(t, "%zu", i + 1);

	rc |= ft_table_cell(t, x->category);
	rc |= ft_table_cell(t, x->setting);
	rc |= ft_table_cell(t, x->unset ? "(unset)" : x->value);
	if (isnan(x->gain_pct))
		rc |= ft_table_cell(t, "-");
	else
		rc |= ft_table_cellf(t, "%+.1f%%", x->gain_pct);
	return rc;
}

static void
advice_text(struct ft_strbuf *sb, const struct ft_advice_set *s,
            const struct ft_workflow_inputs *in, const struct ft_whatif_opts *w)
{
	static const struct col cols[] = {
		{ "#", FT_ALIGN_RIGHT },    { "category", FT_ALIGN_LEFT }, { "setting", FT_ALIGN_LEFT },
		{ "value", FT_ALIGN_LEFT }, { "gain", FT_ALIGN_RIGHT },
	};

	inputs_line(sb, in);
	ft_strbuf_adds(sb, "\n");
	ft_input_skipped_text(sb, &in->unknown);
	if (w->calibrated || w->derived || (w->spec_used[0] && w->note[0]))
		ft_strbuf_addf(sb, "what-if cluster: %s%s%s\n", w->label, w->note[0] ? "; " : "",
		               w->note);
	if (!ft_advice_set_len(s)) {
		ft_strbuf_adds(sb, "no changes to advise\n");
		return;
	}
	ft_strbuf_adds(sb, "\n");
	table_write(sb, cols, FT_ARRAY_SIZE(cols), advice_row, s, ft_advice_set_len(s), false);
	for (size_t i = 0; i < ft_advice_set_len(s); i++) {
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
		for (size_t k = 0; k < x->nevidence; k++)
			evidence_line(sb, &x->evidence[k], false);
	}
}

/* Single-quote @s for a POSIX shell: 'it'\''s'. */
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
advice_env(struct ft_strbuf *sb, const struct ft_advice_set *s)
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
			ft_strbuf_addf(sb, "#   %s: %s\n", x->id, x->action[0] ? x->action : x->value);
	}
}

void
ft_workflow_advice_write(struct ft_strbuf *sb, const struct ft_advice_set *s,
                         const struct ft_workflow_inputs *in, const struct ft_whatif_opts *w,
                         enum ft_advice_form form)
{
	struct ft_json j;

	switch (form) {
	case FT_ADVICE_ENV:
		advice_env(sb, s);
		break;
	case FT_ADVICE_JSON:
		ft_json_init(&j, sb, false);
		ft_advice_json_ex(&j, s, w);
		ft_strbuf_addch(sb, '\n');
		break;
	case FT_ADVICE_TABLE:
		advice_text(sb, s, in, w);
		break;
	}
}

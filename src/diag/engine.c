/* SPDX-License-Identifier: MIT */
/*
 * diag/engine.c - the rule registry, the findings container, ranking and the
 * JSON form of a diagnosis.
 *
 * The registry is the rule catalogue (rules_table.c). Every rule runs over
 * the whole observation set; findings are ranked afterwards, so the order of
 * the rules never shows in the findings.
 */
#include "internal.h"

#include <fabtune/diag.h>

#include "base/recset_int.h"
#include "diag/diag_int.h"

size_t
ft_rule_count(void)
{
	return ft__diag_nrules;
}

const struct ft_rule *
ft_rule_at(size_t i)
{
	return i < ft__diag_nrules ? &ft__diag_rules[i] : NULL;
}

const struct ft_rule *
ft_rule_find(const char *id)
{
	size_t i, n = ft_rule_count();

	for (i = 0; i < n; i++)
		if (strcmp(ft_rule_at(i)->id, id) == 0)
			return ft_rule_at(i);
	return NULL;
}

/* ---- findings ------------------------------------------------------------ */

FT__RECSET_DEFINE(ft_findings, struct ft_findings, struct ft_finding)

int
ft_findings_add(struct ft_findings *f, const struct ft_finding *x)
{
	return ft__recset_add(&f->v, &f->files, x, offsetof(struct ft_finding, evidence),
			      FT_MIN(x->nevidence, (size_t)FT_FINDING_MAX_EVIDENCE));
}

static int
cmp_finding(const void *pa, const void *pb)
{
	const struct ft_finding *a = pa, *b = pb;
	int c;

	if (a->severity != b->severity)
		return a->severity > b->severity ? -1 : 1;
	if (a->layer != b->layer)
		return a->layer < b->layer ? -1 : 1;
	c = strcmp(a->rule_id, b->rule_id);
	if (c)
		return c;
	c = strcmp(a->entity, b->entity);
	if (c)
		return c;
	if (a->nevidence && b->nevidence) {
		c = strcmp(a->evidence[0].file, b->evidence[0].file);
		if (c)
			return c;
		if (a->evidence[0].line != b->evidence[0].line)
			return a->evidence[0].line < b->evidence[0].line ? -1 : 1;
	}
	return strcmp(a->message, b->message);
}

void
ft_findings_sort(struct ft_findings *f)
{
	if (f->v.len > 1)
		qsort(f->v.data, f->v.len, sizeof(struct ft_finding), cmp_finding);
}

bool
ft_findings_any(const struct ft_findings *f, enum ft_severity sev)
{
	size_t i;

	for (i = 0; i < ft_findings_len(f); i++)
		if (ft_findings_at(f, i)->severity >= sev)
			return true;
	return false;
}

size_t
ft_findings_count_rule(const struct ft_findings *f, const char *rule_id)
{
	size_t i, n = 0;

	for (i = 0; i < ft_findings_len(f); i++)
		if (strcmp(ft_findings_at(f, i)->rule_id, rule_id) == 0)
			n++;
	return n;
}

/* ---- run ----------------------------------------------------------------- */

int
ft_diag_run(const struct ft_diag_input *in, struct ft_findings *out, struct ft_error *err)
{
	struct ft_diag_ctx ctx;
	size_t i, n = ft_rule_count();
	int rc;

	if (!in || !in->obs || !out || (in->nexpect && !in->expect))
		return ft_error_set(err, FT_EINVAL, "diagnose: no observations given");
	rc = ft__diag_ctx_init(&ctx, in);
	if (rc < 0)
		return ft_error_set(err, rc, "diagnose: %s", ft_strerror(rc));
	for (i = 0; i < n; i++) {
		ctx.rule = ft_rule_at(i);
		rc = ctx.rule->eval(&ctx, out);
		if (rc < 0) {
			ft__diag_ctx_release(&ctx);
			return ft_error_set(err, rc, "diagnose: rule %s: %s", ctx.rule->id,
					    ft_strerror(rc));
		}
	}
	ft__diag_ctx_release(&ctx);
	ft_findings_sort(out);
	return 0;
}

/* ---- JSON ---------------------------------------------------------------- */

void
ft_obs_value_text(const struct ft_obs *o, char *buf, size_t len)
{
	if (o->has_num && o->str[0])
		snprintf(buf, len, "%.10g (%s)", o->num, o->str);
	else if (o->has_num)
		snprintf(buf, len, "%.10g", o->num);
	else
		snprintf(buf, len, "%s", o->str);
}

static void
json_obs(struct ft_json *j, const struct ft_obs *o)
{
	char entity[160];

	ft_obs_entity(o, entity, sizeof(entity));
	ft_json_obj_begin(j);
	ft_json_kv_str(j, "file", o->file);
	ft_json_kv_uint(j, "line", o->line);
	ft_json_kv_str(j, "entity", entity);
	ft_json_kv_str(j, "key", o->key);
	if (o->has_num) {
		ft_json_key(j, "num");
		ft_json_double(j, o->num);
	}
	if (o->str[0])
		ft_json_kv_str(j, "str", o->str);
	if (o->unit[0])
		ft_json_kv_str(j, "unit", o->unit);
	ft_json_obj_end(j);
}

void
ft_diag_json(struct ft_json *j, const struct ft_findings *f, size_t nobs)
{
	ft_json_obj_begin(j);
	ft_diag_json_members(j, f, nobs);
	ft_json_obj_end(j);
}

void
ft_diag_json_members(struct ft_json *j, const struct ft_findings *f, size_t nobs)
{
	size_t counts[FT_SEV_COUNT] = { 0 };
	size_t i, k;

	ft_json_kv_uint(j, "observations", nobs);
	ft_json_kv_uint(j, "rules", ft_rule_count());
	ft_json_key(j, "findings");
	ft_json_arr_begin(j);
	for (i = 0; i < ft_findings_len(f); i++) {
		const struct ft_finding *x = ft_findings_at(f, i);

		counts[x->severity]++;
		ft_json_obj_begin(j);
		ft_json_kv_str(j, "rule", x->rule_id);
		ft_json_kv_str(j, "layer", ft_layer_name(x->layer));
		ft_json_kv_str(j, "severity", ft_severity_name(x->severity));
		ft_json_kv_str(j, "entity", x->entity);
		ft_json_kv_str(j, "message", x->message);
		ft_json_kv_str(j, "fix", x->fix);
		ft_json_kv_str(j, "kb", x->kb);
		ft_json_key(j, "evidence");
		ft_json_arr_begin(j);
		for (k = 0; k < x->nevidence; k++)
			json_obs(j, &x->evidence[k]);
		ft_json_arr_end(j);
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
	ft_json_key(j, "summary");
	ft_json_obj_begin(j);
	for (i = FT_SEV_COUNT; i-- > 0;)
		ft_json_kv_uint(j, ft_severity_name((enum ft_severity)i), counts[i]);
	ft_json_obj_end(j);
}

/* SPDX-License-Identifier: MIT */
/*
 * diag/advise.c - the advisor: from observations and the findings of a
 * diagnosis, the concrete changes (NCCL environment, MTU, PFC/ECN/DCQCN,
 * adaptive routing, QPs per connection, channels, placement, hardware), each
 * with the findings and observations that motivate it and, where knowledge-
 * base facts allow, the predicted gain.
 *
 * Every change is one entry of the table of templates in
 * diag/advise_table.c (id, triggering rules, setting, action, reason with
 * the evidence's figures, link layer, gain); this file is the engine that
 * walks it in order, builds each advice with its findings and evidence, and
 * renders the set as JSON.
 *
 * Gains are computed, never looked up (diag/advise_table.c, diag/whatif.c).
 * Where no figure can be derived the gain is NAN and the basis says why.
 */
#include "internal.h"

#include <fabtune/diag.h>

#include "base/fields.h"
#include "base/recset_int.h"
#include "diag/advise_int.h"
#include "diag/diag_int.h"

double
ft_diag_payload_efficiency(double mtu, double overhead)
{
	if (mtu <= 0 || overhead < 0)
		return 0;
	return mtu / (mtu + overhead);
}

FT__RECSET_DEFINE(ft_advice_set, struct ft_advice_set, struct ft_advice)

const struct ft_advice *
ft_advice_find(const struct ft_advice_set *s, const char *id)
{
	size_t i;

	for (i = 0; i < ft_advice_set_len(s); i++)
		if (strcmp(ft_advice_set_at(s, i)->id, id) == 0)
			return ft_advice_set_at(s, i);
	return NULL;
}

/* Is @id one of the space-separated rule ids in @rules? */
static bool
rule_listed(const char *rules, const char *id)
{
	const char *p = rules;
	size_t n = strlen(id);

	while (n && (p = strstr(p, id)) != NULL) {
		if ((p == rules || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
			return true;
		p += n;
	}
	return false;
}

/* First finding of any of the space-separated rule ids in @rules, or NULL. */
const struct ft_finding *
ft__adv_finding_of(const struct ft__adv_ctx *a, const char *rules)
{
	size_t i;

	for (i = 0; i < ft_findings_len(a->f); i++) {
		const struct ft_finding *x = ft_findings_at(a->f, i);

		if (rule_listed(rules, x->rule_id))
			return x;
	}
	return NULL;
}

/* Append " @word" (no space when @buf is empty) to @buf of @len bytes, truncating. */
static void
append_word(char *buf, size_t len, const char *word, size_t n)
{
	size_t used = strlen(buf);

	if (used && used + 1 < len)
		buf[used++] = ' ';
	if (used + 1 >= len)
		return;
	if (n > len - used - 1)
		n = len - used - 1;
	memcpy(buf + used, word, n);
	buf[used + n] = '\0';
}

/* The ids of the findings among @rules that exist, space separated (no allocation). */
static void
finding_ids(const struct ft__adv_ctx *a, const char *rules, char *buf, size_t len)
{
	const char *p = rules;
	char id[48];

	buf[0] = '\0';
	while (*p) {
		size_t n = strcspn(p, " ");

		if (n && n < sizeof(id)) {
			memcpy(id, p, n);
			id[n] = '\0';
			if (ft_findings_count_rule(a->f, id))
				append_word(buf, len, id, n);
		}
		p += n;
		p += strspn(p, " ");
	}
}

/* Start an advice from @t, motivated by the findings of @rules (evidence from the first ones). */
static void
advice_start(const struct ft__adv_ctx *a, struct ft_advice *x, const struct ft__adv_template *t,
	     const char *rules)
{
	size_t i, k;

	memset(x, 0, sizeof(*x));
	ft_strlcpy(x->id, t->id, sizeof(x->id));
	ft_strlcpy(x->category, t->category, sizeof(x->category));
	ft_strlcpy(x->setting, t->setting, sizeof(x->setting));
	ft_strlcpy(x->kb, t->kb, sizeof(x->kb));
	if (t->value)
		ft_strlcpy(x->value, t->value, sizeof(x->value));
	if (t->action)
		ft_strlcpy(x->action, t->action, sizeof(x->action));
	if (t->reason)
		ft_strlcpy(x->reason, t->reason, sizeof(x->reason));
	x->is_env = t->is_env;
	x->unset = t->unset;
	x->gain_pct = NAN;
	if (!rules)
		return;
	finding_ids(a, rules, x->findings, sizeof(x->findings));
	for (i = 0; i < ft_findings_len(a->f) && x->nevidence < FT_ADVICE_MAX_EVIDENCE; i++) {
		const struct ft_finding *f = ft_findings_at(a->f, i);

		if (!strstr(x->findings, f->rule_id))
			continue;
		for (k = 0; k < f->nevidence; k++)
			ft__adv_add_evidence(x, &f->evidence[k]);
	}
}

static int
advice_add(const struct ft__adv_ctx *a, const struct ft_advice *x)
{
	if (ft_advice_find(a->out, x->id))
		return 0;
	return ft__recset_add(&a->out->v, &a->out->files, x, offsetof(struct ft_advice, evidence),
			      FT_MIN(x->nevidence, (size_t)FT_ADVICE_MAX_EVIDENCE));
}

void
ft__adv_add_evidence(struct ft_advice *x, const struct ft_obs *o)
{
	size_t i;

	if (!o || x->nevidence >= FT_ADVICE_MAX_EVIDENCE)
		return;
	for (i = 0; i < x->nevidence; i++)
		if (x->evidence[i].line == o->line && strcmp(x->evidence[i].file, o->file) == 0 &&
		    strcmp(x->evidence[i].key, o->key) == 0 && ft__same_port(&x->evidence[i], o))
			return;
	x->evidence[x->nevidence++] = *o;
}

bool
ft__adv_roce_only(const struct ft__adv_ctx *a)
{
	return ft__diag_has_roce(a->c) && !ft__diag_has_active_ib(a->c);
}

/* ---- the engine ----------------------------------------------------------- */

/* Do the inputs belong to the link layer @link? */
static bool
link_applies(const struct ft__adv_ctx *a, enum ft__adv_link link)
{
	switch (link) {
	case FT_ADV_IB:
		return !ft__adv_roce_only(a);
	case FT_ADV_ROCE:
		return ft__diag_has_roce(a->c) || !ft__diag_has_active_ib(a->c);
	case FT_ADV_BOTH:
		break;
	}
	return true;
}

/* Build the advice of @t from finding @f (NULL with from_inputs) and add it. */
static int
apply(const struct ft__adv_ctx *a, const struct ft__adv_template *t, const struct ft_finding *f)
{
	struct ft_advice x;

	advice_start(a, &x, t, t->per_finding ? NULL : t->rules);
	if (t->per_finding)
		ft_strlcpy(x.findings, f->rule_id, sizeof(x.findings));
	if (t->fill && !t->fill(a, t, f, &x))
		return 0;
	if (t->gain)
		t->gain(a, t, f, &x);
	if (isnan(x.gain_pct) && !x.gain_basis[0] && t->no_gain)
		ft_strlcpy(x.gain_basis, t->no_gain, sizeof(x.gain_basis));
	return advice_add(a, &x);
}

static int
walk(const struct ft__adv_ctx *a, const struct ft__adv_template *t)
{
	const struct ft_finding *f = NULL;
	size_t i;
	int rc;

	if (!link_applies(a, t->link) || (t->unless && ft__adv_finding_of(a, t->unless)))
		return 0;
	if (t->from_inputs)
		return apply(a, t, NULL);
	if (!t->per_finding) {
		f = ft__adv_finding_of(a, t->rules);
		return f ? apply(a, t, f) : 0;
	}
	for (i = 0; i < ft_findings_len(a->f); i++) {
		f = ft_findings_at(a->f, i);
		if (!rule_listed(t->rules, f->rule_id))
			continue;
		rc = apply(a, t, f);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int
ft_advise(const struct ft_diag_input *in, const struct ft_findings *findings,
	  struct ft_advice_set *out, struct ft_error *err)
{
	const struct ft__adv_template *t;
	struct ft_findings own;
	struct ft_diag_ctx c;
	struct ft__adv_ctx a;
	size_t i, n;
	int rc = 0;

	if (!in || !in->obs || !out)
		return ft_error_set(err, FT_EINVAL, "advise: no observations given");
	ft_findings_init(&own);
	if (!findings) {
		rc = ft_diag_run(in, &own, err);
		if (rc < 0)
			goto done;
		findings = &own;
	}
	rc = ft__diag_ctx_init(&c, in);
	if (rc < 0) {
		ft_error_set(err, rc, "advise: %s", ft_strerror(rc));
		goto done;
	}
	a.c = &c;
	a.f = findings;
	a.out = out;
	t = ft__adv_templates(&n);
	for (i = 0; i < n; i++) {
		rc = walk(&a, &t[i]);
		if (rc < 0) {
			ft_error_set(err, rc, "advise: %s", ft_strerror(rc));
			break;
		}
	}
	ft__diag_ctx_release(&c);
done:
	ft_findings_release(&own);
	return rc;
}

void
ft_advice_json(struct ft_json *j, const struct ft_advice_set *s)
{
	ft_advice_json_ex(j, s, NULL);
}

void
ft_advice_json_ex(struct ft_json *j, const struct ft_advice_set *s,
		  const struct ft_whatif_opts *w)
{
	size_t i, k;

	ft_json_obj_begin(j);
	ft_json_key(j, "advice");
	ft_json_arr_begin(j);
	for (i = 0; i < ft_advice_set_len(s); i++) {
		const struct ft_advice *x = ft_advice_set_at(s, i);

		ft_json_obj_begin(j);
		ft_json_kv_str(j, "id", x->id);
		ft_json_kv_str(j, "category", x->category);
		ft_json_kv_str(j, "setting", x->setting);
		if (x->unset)
			ft_json_kv_str(j, "value", "(unset)");
		else
			ft_json_kv_str(j, "value", x->value);
		ft_json_kv_bool(j, "env", x->is_env);
		ft_json_kv_bool(j, "unset", x->unset);
		if (x->action[0])
			ft_json_kv_str(j, "action", x->action);
		ft_json_kv_str(j, "reason", x->reason);
		ft_json_kv_str(j, "findings", x->findings);
		ft_json_key(j, "gain_pct");
		if (isnan(x->gain_pct))
			ft_json_null(j);
		else
			ft_json_double_prec(j, x->gain_pct, 4);
		ft_json_kv_str(j, "gain_basis", x->gain_basis);
		ft__json_kv_str_or_null(j, "gain_engine", x->gain_engine);
		ft_json_kv_str(j, "kb", x->kb);
		ft_json_key(j, "evidence");
		ft_json_arr_begin(j);
		for (k = 0; k < x->nevidence; k++) {
			char v[200], e[160];

			ft_obs_value_text(&x->evidence[k], v, sizeof(v));
			ft_obs_entity(&x->evidence[k], e, sizeof(e));
			ft_json_obj_begin(j);
			ft_json_kv_str(j, "file", x->evidence[k].file);
			ft_json_kv_uint(j, "line", x->evidence[k].line);
			ft_json_kv_str(j, "entity", e);
			ft_json_kv_str(j, "key", x->evidence[k].key);
			ft_json_kv_str(j, "value", v);
			ft_json_obj_end(j);
		}
		ft_json_arr_end(j);
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
	if (w) {
		ft_json_key(j, "whatif");
		ft_json_obj_begin(j);
		ft__json_kv_str_or_null(j, "spec", w->spec_used);
		ft_json_kv_bool(j, "derived", w->derived);
		ft_json_kv_bool(j, "calibrated", w->calibrated);
		ft_json_kv_str(j, "label", w->label);
		ft_json_kv_str(j, "note", w->note);
		ft_json_obj_end(j);
	}
	ft_json_obj_end(j);
}

/* SPDX-License-Identifier: MIT */
/*
 * plan/load.c - the model description reader: YAML (libyaml's document
 * API) into a struct ft_plan_model, by a table of keys, every error naming
 * file:line:col and the key.
 *
 * A document is a mapping of the struct's field names; "preset: NAME"
 * starts from a preset (wherever the key appears) and the other keys
 * override it. Without a preset, layers, hidden, heads, ffn, vocab and seq
 * are required.
 */
#include "plan_int.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include <fabtune/base.h>

enum key_type { KEY_U32, KEY_U64, KEY_BOOL, KEY_DOUBLE, KEY_STR };

struct key {
	const char *name;
	enum key_type type;
	size_t off;
	double lo, hi;
	bool required; /* without a preset */
};

#define K(n, t, lo, hi, req) { #n, t, offsetof(struct ft_plan_model, n), lo, hi, req }

static const struct key keys[] = {
	K(name, KEY_STR, 0, 0, false),
	K(layers, KEY_U32, 1, 10000, true),
	K(hidden, KEY_U32, 1, 1 << 20, true),
	K(heads, KEY_U32, 1, 4096, true),
	K(kv_heads, KEY_U32, 1, 4096, false),
	K(head_dim, KEY_U32, 1, 4096, false),
	K(ffn, KEY_U32, 1, 1 << 22, true),
	K(vocab, KEY_U32, 1, 1 << 24, true),
	K(seq, KEY_U32, 1, 1 << 24, true),
	K(gated, KEY_BOOL, 0, 0, false),
	K(tied, KEY_BOOL, 0, 0, false),
	K(dropout, KEY_BOOL, 0, 0, false),
	K(experts, KEY_U32, 0, 65536, false),
	K(topk, KEY_U32, 0, 65536, false),
	K(shared_experts, KEY_U32, 0, 64, false),
	K(moe_ffn, KEY_U32, 0, 1 << 22, false),
	K(dense_layers, KEY_U32, 0, 10000, false),
	K(capacity, KEY_DOUBLE, 0, 64, false),
	K(attn_params, KEY_U64, 0, 1e15, false),
};

struct ld {
	const char *file;
	yaml_document_t doc;
	struct ft_error *err;
};

static int
fail(struct ld *l, const yaml_node_t *n, int code, const char *key, const char *fmt, ...)
        FT_PRINTF(5, 6);

static int
fail(struct ld *l, const yaml_node_t *n, int code, const char *key, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ft_error_set(l->err, code, "%s:%zu:%zu: %s: %s", l->file,
	                    n ? n->start_mark.line + 1 : 0, n ? n->start_mark.column + 1 : 0, key,
	                    msg);
}

static const char *
scalar(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int
set_key(struct ld *l, const struct key *k, yaml_node_t *v, struct ft_plan_model *m)
{
	const char *s = scalar(v);
	char *p = (char *)m + k->off;
	uint64_t u;
	double d;

	if (!s || !*s)
		return fail(l, v, FT_EPARSE, k->name, "expected %s, got %s",
		            k->type == KEY_BOOL ? "true or false" :
		            k->type == KEY_STR  ? "a name" :
		                                  "a number",
		            !s ? "a mapping or a list" : "nothing");
	switch (k->type) {
	case KEY_STR:
		if (strlen(s) >= sizeof(m->name))
			return fail(l, v, FT_ERANGE, k->name, "expected at most %zu characters",
			            sizeof(m->name) - 1);
		ft_strlcpy(p, s, sizeof(m->name));
		return 0;
	case KEY_BOOL:
		if (strcmp(s, "true") == 0 || strcmp(s, "yes") == 0)
			*(bool *)p = true;
		else if (strcmp(s, "false") == 0 || strcmp(s, "no") == 0)
			*(bool *)p = false;
		else
			return fail(l, v, FT_EPARSE, k->name, "expected true or false, got '%s'", s);
		return 0;
	case KEY_U32:
	case KEY_U64:
		if (ft_parse_u64(s, &u) < 0)
			return fail(l, v, FT_EPARSE, k->name, "expected a whole number, got '%s'", s);
		if ((double)u < k->lo || (double)u > k->hi)
			return fail(l, v, FT_ERANGE, k->name, "expected %.0f to %.0f, got %s", k->lo,
			            k->hi, s);
		if (k->type == KEY_U32)
			*(uint32_t *)p = (uint32_t)u;
		else
			*(uint64_t *)p = u;
		return 0;
	case KEY_DOUBLE:
		if (ft_parse_double(s, &d) < 0 || !isfinite(d))
			return fail(l, v, FT_EPARSE, k->name, "expected a number, got '%s'", s);
		if (d < k->lo || d > k->hi)
			return fail(l, v, FT_ERANGE, k->name, "expected %g to %g, got %s", k->lo, k->hi,
			            s);
		*(double *)p = d;
		return 0;
	}
	return FT_EINVAL;
}

static int
load_doc(struct ld *l, yaml_node_t *root, struct ft_plan_model *m)
{
	bool given[FT_ARRAY_SIZE(keys)] = { false };
	bool preset = false;
	yaml_node_pair_t *pr;
	size_t i;
	int rc;

	if (!root || root->type != YAML_MAPPING_NODE)
		return fail(l, root, FT_EPARSE, "model", "expected a mapping of model fields");
	memset(m, 0, sizeof(*m));
	/* The preset first, wherever it is written, so that the other keys override it. */
	for (pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(&l->doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(&l->doc, pr->value);
		const char *ks = scalar(k);

		if (ks && strcmp(ks, "preset") == 0) {
			const char *vs = scalar(v);
			struct ft_error e = { 0 };

			if (!vs || ft_plan_model_preset(vs, m, &e) < 0)
				return fail(l, v, FT_EPARSE, "preset", "%s",
				            vs ? e.msg : "expected a preset name");
			preset = true;
		}
	}
	for (pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(&l->doc, pr->key);
		yaml_node_t *v = yaml_document_get_node(&l->doc, pr->value);
		const char *ks = scalar(k);

		if (ks && strcmp(ks, "preset") == 0)
			continue;
		for (i = 0; i < FT_ARRAY_SIZE(keys); i++)
			if (ks && strcmp(ks, keys[i].name) == 0)
				break;
		if (i == FT_ARRAY_SIZE(keys))
			return fail(l, k, FT_EPARSE, ks ? ks : "model",
			            "unknown key: expected preset, name, layers, hidden, heads, "
			            "kv_heads, head_dim, ffn, vocab, seq, gated, tied, dropout, experts, topk, "
			            "shared_experts, moe_ffn, dense_layers, capacity or attn_params");
		if (given[i])
			return fail(l, k, FT_EPARSE, ks, "given twice");
		given[i] = true;
		rc = set_key(l, &keys[i], v, m);
		if (rc < 0)
			return rc;
	}
	if (!preset)
		for (i = 0; i < FT_ARRAY_SIZE(keys); i++)
			if (keys[i].required && !given[i])
				return fail(l, root, FT_EPARSE, keys[i].name,
				            "required without a preset");
	if (!m->name[0])
		ft_strlcpy(m->name, "model", sizeof(m->name));
	rc = ft_plan_model_validate(m, l->err);
	if (rc < 0)
		ft_error_prefix(l->err, "%s: ", l->file);
	return rc;
}

int
ft_plan_model_load_buffer(const char *text, size_t len, const char *file,
                          struct ft_plan_model *out, struct ft_error *err)
{
	struct ld l = { .file = file ? file : "<model>", .err = err };
	int rc;

	memset(out, 0, sizeof(*out));
	rc = ft__yaml_load(text, len, l.file, &l.doc, err); /* limits, then the tree */
	if (rc < 0)
		return rc;
	rc = load_doc(&l, yaml_document_get_root_node(&l.doc), out);
	yaml_document_delete(&l.doc);
	if (rc < 0)
		memset(out, 0, sizeof(*out));
	return rc;
}

int
ft_plan_model_load_file(const char *path, struct ft_plan_model *out, struct ft_error *err)
{
	struct ft_strbuf sb;
	int rc;

	memset(out, 0, sizeof(*out));
	ft_strbuf_init(&sb);
	rc = ft_strbuf_read_file(&sb, path, err);
	if (rc == 0)
		rc = ft_plan_model_load_buffer(sb.buf, sb.len, path, out, err);
	ft_strbuf_release(&sb);
	return rc;
}

int
ft_plan_model_resolve(const char *arg, struct ft_plan_model *out, struct ft_error *err)
{
	size_t n = strlen(arg);

	if (strchr(arg, '/') || (n > 5 && (strcmp(arg + n - 5, ".yaml") == 0 ||
	                                   strcmp(arg + n - 5, ".json") == 0)) ||
	    (n > 4 && strcmp(arg + n - 4, ".yml") == 0))
		return ft_plan_model_load_file(arg, out, err);
	return ft_plan_model_preset(arg, out, err);
}

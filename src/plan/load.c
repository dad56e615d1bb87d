/* SPDX-License-Identifier: MIT */
/*
 * plan/load.c - the model description reader: YAML or JSON into a struct
 * ft_plan_model by the one document reader (spec/doc.h) and the table of
 * keys below, every error naming file:line:col and the key.
 *
 * A document is a mapping of the struct's field names; "preset: NAME"
 * starts from a preset (wherever the key appears) and the other keys
 * override it. Without a preset, layers, hidden, heads, ffn, vocab and seq
 * are required.
 */
#include "plan_int.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <fabtune/base.h>

#include "spec/doc.h"

#define K(n, t, l, h, req) \
	{ #n, t, FT__DOC_AT(struct ft_plan_model, n), .lo = l, .hi = h, .required = req }

static const struct ft__doc_field keys[] = {
	{ "preset", FT__DOC_SKIP }, /* read first, wherever it is written */
	{ "name", FT__DOC_STR, FT__DOC_AT(struct ft_plan_model, name) },
	K(layers, FT__DOC_U32, 1, 10000, true),
	K(hidden, FT__DOC_U32, 1, 1 << 20, true),
	K(heads, FT__DOC_U32, 1, 4096, true),
	K(kv_heads, FT__DOC_U32, 1, 4096, false),
	K(head_dim, FT__DOC_U32, 1, 4096, false),
	K(ffn, FT__DOC_U32, 1, 1 << 22, true),
	K(vocab, FT__DOC_U32, 1, 1 << 24, true),
	K(seq, FT__DOC_U32, 1, 1 << 24, true),
	K(gated, FT__DOC_BOOL, 0, 0, false),
	K(tied, FT__DOC_BOOL, 0, 0, false),
	K(dropout, FT__DOC_BOOL, 0, 0, false),
	K(experts, FT__DOC_U32, 0, 65536, false),
	K(topk, FT__DOC_U32, 0, 65536, false),
	K(shared_experts, FT__DOC_U32, 0, 64, false),
	K(moe_ffn, FT__DOC_U32, 0, 1 << 22, false),
	K(dense_layers, FT__DOC_U32, 0, 10000, false),
	K(capacity, FT__DOC_DOUBLE, 0, 64, false),
	K(attn_params, FT__DOC_U64, 0, 1e15, false),
};

static int
load_doc(struct ft__doc *d, yaml_node_t *root, struct ft_plan_model *m)
{
	yaml_node_t *preset;
	uint64_t seen = 0;
	int rc;

	memset(m, 0, sizeof(*m));
	if (!root || root->type != YAML_MAPPING_NODE)
		return root ? ft__doc_expected(d, root, "model", "a mapping of model fields") :
		              ft__doc_fail(d, root, FT_EPARSE, "model",
		                           "expected a mapping of model fields, got nothing");
	/* The preset first, wherever it is written, so that the other keys override it. */
	preset = ft__doc_lookup(d, root, "preset");
	if (preset) {
		const char *vs = ft__doc_scalar(preset);
		struct ft_error e = { 0 };

		if (!vs || ft_plan_model_preset(vs, m, &e) < 0)
			return ft__doc_fail(d, preset, FT_EPARSE, "preset", "%s",
			                    vs ? e.msg : "expected a preset name");
	}
	rc = ft__doc_walk(d, root, "", keys, FT_ARRAY_SIZE(keys), m, &seen);
	if (rc == 0 && !preset)
		rc = ft__doc_check_required(d, root, "", keys, FT_ARRAY_SIZE(keys), seen,
		                            "required without a preset");
	if (rc < 0)
		return rc;
	if (!m->name[0])
		ft_strlcpy(m->name, "model", sizeof(m->name));
	rc = ft_plan_model_validate(m, d->err);
	if (rc < 0)
		ft_error_prefix(d->err, "%s: ", d->file);
	return rc;
}

int
ft_plan_model_load_buffer(const char *text, size_t len, const char *file,
                          struct ft_plan_model *out, struct ft_error *err)
{
	struct ft__doc d = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	rc = ft__doc_open(&d, text, len, file ? file : "<model>", err);
	if (rc < 0)
		return rc;
	rc = load_doc(&d, ft__doc_root(&d), out);
	ft__doc_close(&d);
	if (rc < 0)
		memset(out, 0, sizeof(*out));
	return rc;
}

static int
model_text(const char *text, size_t len, const char *path, void *out, struct ft_error *err)
{
	return ft_plan_model_load_buffer(text, len, path, out, err);
}

int
ft_plan_model_load_file(const char *path, struct ft_plan_model *out, struct ft_error *err)
{
	memset(out, 0, sizeof(*out));
	return ft__with_file_text(path, model_text, out, err);
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

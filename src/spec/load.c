/* SPDX-License-Identifier: MIT */
/*
 * spec/load.c - the spec loader: YAML (or JSON, which libyaml reads) into a
 * struct ft_cluster_spec.
 *
 * libyaml builds the document tree; we walk it with one table of keys per
 * section, so that unknown and duplicate keys, wrong types and bad values
 * are refused with "file:line:col: field: expected X, got Y" (libyaml's marks
 * are 0-based, ours 1-based). A node section may start from a preset and
 * override parts of it; derived figures (PCIe rates, placement) are
 * recomputed when what they derive from changes. The consistency checks of
 * validate.c run last, and their message points at the line of the field
 * they name (or of its closest given parent). The format is docs/spec.md;
 * the sections are read by load_node.c and load_fabric.c.
 */
#include "internal.h"
#include "load_int.h"

#include <fabtune/spec.h>
#include <fabtune/units.h>

/* ---- messages ----------------------------------------------------------------------------- */

int
ft__spec_perr(struct loader *L, const yaml_mark_t *m, int code, const char *path, const char *fmt,
              ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = ft__doc_vfail(&L->d, m, code, path, fmt, ap);
	va_end(ap);
	return rc;
}

/* Same, at the line of @field (or of its closest given parent). */
int
ft__spec_perr_field(struct loader *L, const char *field, int code, const char *fmt, ...)
{
	const struct mark *m = ft__spec_find_mark(L, field);
	yaml_mark_t at = { .line = m->line - 1, .column = m->col - 1 };
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = ft__doc_vfail(&L->d, &at, code, field, fmt, ap);
	va_end(ap);
	return rc;
}

void
ft__spec_remember(struct loader *L, const char *path, const yaml_mark_t *m)
{
	struct mark *k;

	if (L->nmarks >= MAX_MARKS)
		return;
	k = &L->marks[L->nmarks++];
	ft_strlcpy(k->path, path, sizeof(k->path));
	k->line = (unsigned)m->line + 1;
	k->col = (unsigned)m->column + 1;
}

/* The mark of @path, else of its closest remembered parent, else 1:1. */
const struct mark *
ft__spec_find_mark(const struct loader *L, const char *path)
{
	static const struct mark top = { "", 1, 1 };
	char p[FT_SPEC_FIELD_MAX];
	char *cut;
	size_t i;

	ft_strlcpy(p, path, sizeof(p));
	for (;;) {
		for (i = 0; i < L->nmarks; i++)
			if (strcmp(L->marks[i].path, p) == 0)
				return &L->marks[i];
		cut = strrchr(p, '[');
		if (!cut)
			cut = strrchr(p, '.');
		if (!cut)
			return &top;
		*cut = '\0';
	}
}

/* ---- scalars: the one reader's types, read strictly (L->d.strict) ------------------------ */

int
ft__spec_get_str(struct loader *L, yaml_node_t *v, const char *path, char *out, size_t size)
{
	const struct ft__doc_field f = { path, FT__DOC_STR, 0, size };

	return ft__doc_read(&L->d, &f, v, path, out);
}

int
ft__spec_get_u32(struct loader *L, yaml_node_t *v, const char *path, uint32_t min, uint32_t max,
                 uint32_t *out)
{
	const struct ft__doc_field f = { path, FT__DOC_U32, 0, sizeof(*out), .lo = min, .hi = max };

	return ft__doc_read(&L->d, &f, v, path, out);
}

int
ft__spec_get_double(struct loader *L, yaml_node_t *v, const char *path, double min, double max,
                    double *out)
{
	const struct ft__doc_field f = { path, FT__DOC_DOUBLE, 0, sizeof(*out), .lo = min,
		                         .hi = max };

	return ft__doc_read(&L->d, &f, v, path, out);
}

int
ft__spec_get_bool(struct loader *L, yaml_node_t *v, const char *path, bool *out)
{
	const struct ft__doc_field f = { path, FT__DOC_BOOL, 0, sizeof(*out) };

	return ft__doc_read(&L->d, &f, v, path, out);
}

int
ft__spec_get_rate(struct loader *L, yaml_node_t *v, const char *path, double *out)
{
	const struct ft__doc_field f = { path, FT__DOC_RATE, 0, sizeof(*out) };

	return ft__doc_read(&L->d, &f, v, path, out);
}

int
ft__spec_get_duration(struct loader *L, yaml_node_t *v, const char *path, double *out)
{
	const struct ft__doc_field f = { path, FT__DOC_DURATION, 0, sizeof(*out),
		                         .what = "a duration like 150ns or 2us" };

	return ft__doc_read(&L->d, &f, v, path, out);
}

int
ft__spec_get_link(struct loader *L, yaml_node_t *v, const char *path, char *out, size_t size)
{
	const char *s = ft__spec_scalar(v);

	if (!s || !ft_link_preset_find(s))
		return ft__spec_expected(
		        L, v, path,
		        "a link preset (hdr, ndr, xdr, roce100, roce200, roce400, roce800, spcx400, "
		        "efa100, tcpx200)");
	ft_strlcpy(out, s, size);
	return 0;
}

int
ft__spec_get_u32_list(struct loader *L, yaml_node_t *v, const char *path, const char *list,
                      const char *too_many, uint32_t cap, uint32_t lo, uint32_t hi, uint32_t *out,
                      uint32_t *n)
{
	char sub[FT_SPEC_FIELD_MAX];
	yaml_node_item_t *it;
	yaml_node_t *e;
	int rc;

	if (v->type != YAML_SEQUENCE_NODE)
		return ft__spec_expected(L, v, path, list);
	*n = 0;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, (*n)++) {
		e = yaml_document_get_node(L->doc, *it);
		if (*n >= cap)
			return ft__spec_expected(L, e, path, too_many);
		snprintf(sub, sizeof(sub), "%s[%u]", path, *n);
		ft__spec_remember(L, sub, &e->start_mark);
		rc = ft__spec_get_u32(L, e, sub, lo, hi, &out[*n]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- mappings ----------------------------------------------------------------------------- */

struct walk {
	struct loader *L;
	const struct field *fields;
	size_t n;
	unsigned kind_bit;
	const char *kind_name;
	void *obj; /* where typed fields' members are */
};

static bool
applies(const struct walk *w, size_t i)
{
	return !w->fields[i].kinds || (w->fields[i].kinds & w->kind_bit);
}

static int
walk_pair(struct ft__doc *d, yaml_node_t *k, yaml_node_t *v, const char *path, void *ctx)
{
	struct walk *w = ctx;
	const char *name = ft__doc_scalar(k), *known[64];
	char whose[64];
	size_t i, n = 0;

	for (i = 0; i < w->n; i++)
		if (strcmp(w->fields[i].key, name) == 0)
			break;
	if (i == w->n || !applies(w, i)) {
		for (i = 0; i < w->n && n < FT_ARRAY_SIZE(known); i++)
			if (applies(w, i))
				known[n++] = w->fields[i].key;
		if (w->kind_name)
			snprintf(whose, sizeof(whose), "a %s fabric", w->kind_name);
		return ft__doc_unknown(d, k, path, name, known, n, w->kind_name ? whose : NULL);
	}
	ft__spec_remember(w->L, path, &v->start_mark);
	if (w->fields[i].given)
		*(bool *)(void *)((char *)w->L + w->fields[i].given) = true;
	if (w->fields[i].fn)
		return w->fields[i].fn(w->L, v, path);
	if (w->fields[i].sub)
		return ft__spec_walk_in(w->L, v, path, w->fields[i].sub, w->fields[i].nsub, 0, NULL,
		                        w->obj);
	if (w->fields[i].doc.size)
		return ft__doc_read(d, &w->fields[i].doc, v, path, w->obj);
	return 0;
}

/*
 * Walk mapping @map at @path: every key must be a scalar named in @fields
 * (and apply to @kind_bit when the field says so), once.
 */
int
ft__spec_walk_in(struct loader *L, yaml_node_t *map, const char *path, const struct field *fields,
                 size_t n, unsigned kind_bit, const char *kind_name, void *obj)
{
	struct walk w = { L, fields, n, kind_bit, kind_name, obj };

	return ft__doc_each(&L->d, map, path, walk_pair, &w);
}

int
ft__spec_walk(struct loader *L, yaml_node_t *map, const char *path, const struct field *fields,
              size_t n, unsigned kind_bit, const char *kind_name)
{
	return ft__spec_walk_in(L, map, path, fields, n, kind_bit, kind_name, L->spec);
}

/* ---- document ----------------------------------------------------------------------------- */

static int
f_description(struct loader *L, yaml_node_t *v, const char *path)
{
	if (v->type != YAML_SCALAR_NODE)
		return ft__spec_expected(L, v, path, "a text");
	return 0;
}

/* ---- calibration: the blocks `fabtune model --calibrate` writes ---------------------------- */

static struct ft_calib_entry *
cur_calib(struct loader *L)
{
	return &L->spec->calib[L->spec->ncalib];
}

static int
f_calib_op(struct loader *L, yaml_node_t *v, const char *path)
{
	static const char *const ops[] = { "all_reduce", "all_gather", "reduce_scatter",
		                           "broadcast",  "reduce",     "alltoall",
		                           "sendrecv" };
	struct ft_calib_entry *c = cur_calib(L);
	size_t i;
	int rc = ft__spec_get_str(L, v, path, c->op, sizeof(c->op));

	if (rc < 0)
		return rc;
	for (i = 0; i < FT_ARRAY_SIZE(ops); i++)
		if (strcmp(c->op, ops[i]) == 0)
			return 0;
	return ft__spec_expected(L, v, path,
	                         "all_reduce, all_gather, reduce_scatter, broadcast, reduce, "
	                         "alltoall or sendrecv");
}

#define CALIB(m) FT__DOC_AT(struct ft_calib_entry, m)

static const struct field calib_fields[] = {
	{ "op", f_calib_op, 0 },
	{ "ranks", .doc = { "", FT__DOC_U32, CALIB(nranks), .lo = 0, .hi = UINT32_MAX } },
	{ "fixed", .doc = { "", FT__DOC_DURATION, CALIB(fixed_s),
	                    .what = "a duration like 150ns or 2us" } },
	{ "latency_scale", .doc = { "", FT__DOC_DOUBLE, CALIB(lat_scale), .lo = 0, .hi = 1000 } },
	{ "bandwidth_scale",
	  .doc = { "", FT__DOC_DOUBLE, CALIB(bw_scale), .lo = 0.01, .hi = 1000 } },
};

static int
f_calibration(struct loader *L, yaml_node_t *v, const char *path)
{
	yaml_node_item_t *it;
	char sub[FT_SPEC_FIELD_MAX];
	int rc;

	if (v->type != YAML_SEQUENCE_NODE)
		return ft__spec_expected(L, v, path,
		                         "a list of {op, ranks, fixed, latency_scale, "
		                         "bandwidth_scale} (fabtune model --calibrate writes it)");
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *e = yaml_document_get_node(L->doc, *it);
		struct ft_calib_entry *c;

		snprintf(sub, sizeof(sub), "%s[%u]", path, L->spec->ncalib);
		if (L->spec->ncalib >= FT_SPEC_MAX_CALIB)
			return ft__spec_expected(L, e, path, "at most 16 entries");
		c = cur_calib(L);
		memset(c, 0, sizeof(*c));
		c->lat_scale = c->bw_scale = 1.0;
		if (!e || e->type != YAML_MAPPING_NODE)
			return ft__spec_expected(L, e ? e : v, sub,
			                         "a mapping with op and the constants");
		ft__spec_remember(L, sub, &e->start_mark);
		rc = ft__spec_walk_in(L, e, sub, calib_fields, FT_ARRAY_SIZE(calib_fields), 0, NULL,
		                      c);
		if (rc < 0)
			return rc;
		if (!c->op[0])
			return ft__spec_perr(L, &e->start_mark, FT_EPARSE, sub,
			                     "expected an op, got none");
		L->spec->ncalib++;
	}
	return 0;
}

static const struct field top_fields[] = {
	{ "name", .doc = { "", FT__DOC_STR, FT__DOC_AT(struct ft_cluster_spec, name) } },
	{ "description", f_description, 0 },
	{ "nodes", NULL, 0 },
	{ "fabric", NULL, 0 },
	{ "calibration", f_calibration, 0 },
};

/* Name of a spec without name: the file's base name without its extension. */
static void
default_name(const char *file, char *out, size_t size)
{
	const char *base = strrchr(file, '/');
	char *dot;

	ft_strlcpy(out, base ? base + 1 : file, size);
	dot = strrchr(out, '.');
	if (dot && dot != out)
		*dot = '\0';
	if (!out[0])
		ft_strlcpy(out, "cluster", size);
}

/*
 * A scenario (cluster: and jobs:) handed where a cluster spec goes: say so at
 * its jobs: key, not "unknown key" at its first line.
 */
static int
not_a_scenario(struct loader *L, yaml_node_t *root)
{
	yaml_node_pair_t *pr;

	for (pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top; pr++) {
		yaml_node_t *k = yaml_document_get_node(L->doc, pr->key);

		if (k && k->type == YAML_SCALAR_NODE &&
		    strcmp((const char *)k->data.scalar.value, "jobs") == 0)
			return ft_error_set(L->err, FT_EPARSE,
			                    "%s:%u:%u: jobs: a scenario, not a cluster spec (run "
			                    "it with fabtune sim FILE, or give a spec file of its "
			                    "cluster: section)",
			                    L->file, (unsigned)k->start_mark.line + 1,
			                    (unsigned)k->start_mark.column + 1);
	}
	return 0;
}

static int
parse_root(struct loader *L, yaml_node_t *root)
{
	char field[FT_SPEC_FIELD_MAX];
	struct ft_error e = { 0 };
	const struct mark *m;
	yaml_node_t *nodes, *fab;
	int rc;

	if (root->type != YAML_MAPPING_NODE)
		return ft__spec_expected(L, root, "spec", "a mapping with name, nodes and fabric");
	rc = not_a_scenario(L, root);
	if (rc < 0)
		return rc;
	rc = ft__spec_walk(L, root, "", top_fields, FT_ARRAY_SIZE(top_fields), 0, NULL);
	if (rc < 0)
		return rc;
	nodes = ft__spec_lookup(L->doc, root, "nodes");
	if (!nodes)
		return ft__spec_perr(L, &root->start_mark, FT_EPARSE, "nodes",
		                     "expected a nodes: section (preset, count, ...), got nothing");
	rc = ft__spec_parse_nodes(L, nodes);
	if (rc < 0)
		return rc;
	fab = ft__spec_lookup(L->doc, root, "fabric");
	if (fab) {
		rc = ft__spec_parse_fabric(L, fab);
	} else if (L->spec->nnodes > 1 && L->has_preset) {
		rc = ft__spec_default_fabric(&L->spec->node, L->spec->nnodes, &L->spec->fabric,
		                             field, &e);
		if (rc < 0) {
			m = ft__spec_find_mark(L, field);
			return ft_error_set(L->err, rc, "%s:%u:%u: %s: %s", L->file, m->line,
			                    m->col, field, e.msg);
		}
	} else if (L->spec->nnodes > 1) {
		m = ft__spec_find_mark(L, "nodes.count");
		return ft_error_set(L->err, FT_EPARSE,
		                    "%s:%u:%u: fabric: expected a fabric: section to join %u "
		                    "nodes, got nothing",
		                    L->file, m->line, m->col, L->spec->nnodes);
	}
	if (rc < 0)
		return rc;
	if (!L->spec->name[0])
		default_name(L->file, L->spec->name, sizeof(L->spec->name));
	ft_strlcpy(L->spec->source, L->file, sizeof(L->spec->source));
	rc = ft__spec_check(L->spec, field, &e);
	if (rc < 0) {
		m = ft__spec_find_mark(L, field);
		return ft_error_set(L->err, rc, "%s:%u:%u: %s: %s", L->file, m->line, m->col, field,
		                    e.msg);
	}
	return 0;
}

static int
syntax_error(struct loader *L, const yaml_parser_t *p)
{
	if (p->error == YAML_MEMORY_ERROR)
		return ft_error_set(L->err, FT_ENOMEM, "%s: out of memory reading YAML", L->file);
	return ft_error_set(L->err, FT_EPARSE, "%s:%u:%u: yaml: %s%s%s", L->file,
	                    (unsigned)p->problem_mark.line + 1,
	                    (unsigned)p->problem_mark.column + 1,
	                    p->problem ? p->problem : "syntax error", p->context ? " " : "",
	                    p->context ? p->context : "");
}

int
ft_spec_load_buffer(const char *text, size_t len, const char *file, struct ft_cluster_spec *out,
                    struct ft_error *err)
{
	yaml_document_t extra;
	yaml_parser_t parser;
	struct loader *L;
	yaml_node_t *root;
	int rc;

	if (!out)
		return ft_error_set(err, FT_EINVAL, "no spec to fill");
	memset(out, 0, sizeof(*out));
	if (!text && len)
		return ft_error_set(err, FT_EINVAL, "no spec text");
	rc = ft_spec_yaml_check(text, len, file && *file ? file : "<spec>", err);
	if (rc < 0)
		return rc; /* too deep, or an alias bomb */
	L = ft_calloc(1, sizeof(*L));
	if (!L)
		return ft_error_set(err, FT_ENOMEM, "out of memory loading a spec");
	L->file = L->d.file = file && *file ? file : "<spec>";
	L->err = L->d.err = err;
	L->d.strict = true; /* "4" is a text, yes is not a boolean */
	L->spec = out;
	L->doc = &L->d.tree;
	if (!yaml_parser_initialize(&parser)) {
		ft_free(L);
		return ft_error_set(err, FT_ENOMEM, "out of memory starting the YAML parser");
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)(text ? text : ""), len);
	if (!yaml_parser_load(&parser, &L->d.tree)) {
		rc = syntax_error(L, &parser);
		goto out_parser;
	}
	L->d.loaded = true;
	root = ft__doc_root(&L->d);
	if (!root) {
		rc = ft_error_set(err, FT_EPARSE,
		                  "%s:1:1: spec: expected a mapping with name, nodes and fabric, "
		                  "got an empty document",
		                  L->file);
		goto out_doc;
	}
	rc = parse_root(L, root);
	if (rc == 0) {
		if (!yaml_parser_load(&parser, &extra)) {
			rc = syntax_error(L, &parser);
		} else {
			if (yaml_document_get_root_node(&extra))
				rc = ft_error_set(err, FT_EPARSE,
				                  "%s:%u:%u: spec: expected one YAML document, "
				                  "got a second one",
				                  L->file, (unsigned)extra.start_mark.line + 1,
				                  (unsigned)extra.start_mark.column + 1);
			yaml_document_delete(&extra);
		}
	}
out_doc:
	ft__doc_close(&L->d);
out_parser:
	yaml_parser_delete(&parser);
	ft_free(L);
	if (rc < 0)
		memset(out, 0, sizeof(*out));
	return rc;
}

static int
spec_text(const char *text, size_t len, const char *path, void *out, struct ft_error *err)
{
	return ft_spec_load_buffer(text, len, path, out, err);
}

int
ft_spec_load_file(const char *path, struct ft_cluster_spec *out, struct ft_error *err)
{
	if (!out)
		return ft_error_set(err, FT_EINVAL, "no spec to fill");
	memset(out, 0, sizeof(*out));
	if (!path)
		return ft_error_set(err, FT_EINVAL, "no spec file given");
	return ft__with_file_text(path, spec_text, out, err);
}

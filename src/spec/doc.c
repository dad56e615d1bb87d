/* SPDX-License-Identifier: MIT */
/*
 * spec/doc.c - the one document reader: typed fields from a YAML/JSON
 * tree by a table of keys, every error as "file:line:col: path: message".
 *
 * The document is loaded once through ft__yaml_load() (size, depth and
 * alias limits, then libyaml's tree); the walk matches each key of a
 * mapping against the table, refuses keys that are not scalars, keys given
 * twice and unknown keys (naming the closest known key when one is near,
 * by edit distance), and converts each value with the units parsers of
 * base/units.c. Numbers out of range are FT_ERANGE, anything that does not
 * read as the type is FT_EPARSE.
 */
#include "internal.h"
#include "spec/doc.h"

#include <fabtune/base.h>
#include <fabtune/units.h>

/* ---- documents ---------------------------------------------------------------------------- */

int
ft__doc_open(struct ft__doc *d, const char *text, size_t len, const char *file,
             struct ft_error *err)
{
	int rc;

	d->file = file ? file : "<document>";
	d->err = err;
	d->loaded = false;
	rc = ft__yaml_load(text, len, d->file, &d->tree, err); /* limits, then the tree */
	if (rc == 0)
		d->loaded = true;
	return rc;
}

int
ft__doc_open_file(struct ft__doc *d, const char *path, struct ft_error *err)
{
	struct ft_strbuf sb;
	int rc;

	d->loaded = false;
	ft_strbuf_init(&sb);
	rc = ft_strbuf_read_file(&sb, path, err);
	if (rc == 0)
		rc = ft__doc_open(d, sb.buf, sb.len, path, err);
	ft_strbuf_release(&sb);
	return rc;
}

void
ft__doc_close(struct ft__doc *d)
{
	if (d->loaded)
		yaml_document_delete(&d->tree);
	d->loaded = false;
}

yaml_node_t *
ft__doc_root(struct ft__doc *d)
{
	return d->loaded ? yaml_document_get_root_node(&d->tree) : NULL;
}

yaml_node_t *
ft__doc_node(struct ft__doc *d, int id)
{
	return yaml_document_get_node(&d->tree, id);
}

/* ---- messages ----------------------------------------------------------------------------- */

int
ft__doc_vfail(struct ft__doc *d, const yaml_mark_t *m, int code, const char *path,
              const char *fmt, va_list ap)
{
	char msg[FT_ERROR_MSG_MAX];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	return ft_error_set(d->err, code, "%s:%zu:%zu: %s%s%s", d->file, m ? m->line + 1 : 1,
	                    m ? m->column + 1 : 1, path && *path ? path : "",
	                    path && *path ? ": " : "", msg);
}

int
ft__doc_fail(struct ft__doc *d, const yaml_node_t *n, int code, const char *path, const char *fmt,
             ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = ft__doc_vfail(d, n ? &n->start_mark : NULL, code, path, fmt, ap);
	va_end(ap);
	return rc;
}

bool
ft__doc_is_null(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (n->data.scalar.length == 0 ||
	        strcmp((const char *)n->data.scalar.value, "~") == 0 ||
	        strcmp((const char *)n->data.scalar.value, "null") == 0);
}

const char *
ft__doc_describe(const yaml_node_t *n, char *buf, size_t len)
{
	const char *s;

	if (n->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (n->type == YAML_SEQUENCE_NODE)
		return "a list";
	if (ft__doc_is_null(n))
		return "nothing";
	s = (const char *)n->data.scalar.value;
	if (strlen(s) > 40)
		snprintf(buf, len, "'%.37s...'", s);
	else
		snprintf(buf, len, "'%s'", s);
	return buf;
}

int
ft__doc_expected(struct ft__doc *d, const yaml_node_t *n, const char *path, const char *what)
{
	char buf[64];

	return ft__doc_fail(d, n, FT_EPARSE, path, "expected %s, got %s", what,
	                    ft__doc_describe(n, buf, sizeof(buf)));
}

const char *
ft__doc_scalar(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* ---- values ------------------------------------------------------------------------------- */

/* The default wording of a type, for "expected ...". */
static const char *
type_what(const struct ft__doc_field *f)
{
	if (f->what)
		return f->what;
	switch (f->type) {
	case FT__DOC_STR:
		return "a name";
	case FT__DOC_ENUM:
		return "one of the names";
	case FT__DOC_BOOL:
		return "true or false";
	case FT__DOC_U32:
	case FT__DOC_U64:
		return "a whole number";
	case FT__DOC_DOUBLE:
		return "a number";
	case FT__DOC_FRACTION:
		return "a fraction like 0.85 or 85%";
	case FT__DOC_SIZE:
		return "a size like 200MB or 4KiB";
	case FT__DOC_RATE:
		return "a rate like 400Gbps or 50GB/s";
	case FT__DOC_DURATION:
		return "a duration like 20ms";
	case FT__DOC_FN:
	case FT__DOC_SKIP:
		break;
	}
	return "a value";
}

/* "expected a, b or c" from a NULL-terminated name list. */
static void
names_what(const char *const *names, char *buf, size_t len)
{
	size_t n = 0;

	while (names[n])
		n++;
	ft__names_expected(names, n, false, buf, len);
}

/*
 * A whole number or a number that does not read, or reads out of range:
 * "expected an integer from 1 to 64, got '0'" (the range is said either way).
 */
static int
number_error(struct ft__doc *d, const struct ft__doc_field *f, const yaml_node_t *v,
             const char *path, int code)
{
	char what[96], buf[64];
	bool whole = f->type == FT__DOC_U32 || f->type == FT__DOC_U64;

	if (f->what)
		snprintf(what, sizeof(what), "%s", f->what);
	else if (whole && f->hi == 0 && f->lo == 0)
		snprintf(what, sizeof(what), "a whole number");
	else if (whole && f->hi == 0)
		snprintf(what, sizeof(what), "an integer of at least %.0f", f->lo);
	else if (whole)
		snprintf(what, sizeof(what), "an integer from %.0f to %.0f", f->lo, f->hi);
	else
		snprintf(what, sizeof(what), "a number from %g to %g", f->lo, f->hi);
	return ft__doc_fail(d, v, code, path, "expected %s, got %s", what,
	                    ft__doc_describe(v, buf, sizeof(buf)));
}

static int
read_str(struct ft__doc *d, const struct ft__doc_field *f, const yaml_node_t *v, const char *path,
         const char *s, char *out)
{
	char buf[64];

	if (!*s)
		return ft__doc_expected(d, v, path, type_what(f));
	if (strlen(s) >= f->size)
		return ft__doc_fail(d, v, FT_ERANGE, path,
		                    "expected %s of at most %zu characters, got %s", type_what(f),
		                    f->size - 1, ft__doc_describe(v, buf, sizeof(buf)));
	ft_strlcpy(out, s, f->size);
	return 0;
}

static int
read_enum(struct ft__doc *d, const struct ft__doc_field *f, const yaml_node_t *v, const char *path,
          const char *s, int *out)
{
	char what[FT_ERROR_MSG_MAX / 2], buf[64];
	int i;

	for (i = 0; f->names[i]; i++)
		if (strcmp(s, f->names[i]) == 0) {
			*out = i;
			return 0;
		}
	if (f->what)
		return ft__doc_expected(d, v, path, f->what);
	names_what(f->names, what, sizeof(what));
	return ft__doc_fail(d, v, FT_EPARSE, path, "%s, got %s", what,
	                    ft__doc_describe(v, buf, sizeof(buf)));
}

static int
read_bool(struct ft__doc *d, const struct ft__doc_field *f, const yaml_node_t *v, const char *path,
          const char *s, bool *out)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes" };
	static const char *const no[] = { "false", "False", "FALSE", "no" };
	size_t i, n = d->strict ? FT_ARRAY_SIZE(yes) - 1 : FT_ARRAY_SIZE(yes);

	for (i = 0; i < n; i++) {
		if (strcmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return ft__doc_expected(d, v, path, type_what(f));
}

/* 0.85 or "85%" into @out; 1 when the text does not read, 2 when over 1. */
static int
parse_fraction(const char *s, double *out)
{
	size_t n = strlen(s);
	char buf[64];

	if (!n || n >= sizeof(buf))
		return 1;
	memcpy(buf, s, n + 1);
	if (buf[n - 1] == '%')
		buf[n - 1] = '\0';
	if (ft_parse_double(buf, out) < 0 || !isfinite(*out) || *out < 0)
		return 1;
	if (s[n - 1] == '%')
		*out /= 100;
	return *out > 1 ? 2 : 0;
}

static int
read_number(struct ft__doc *d, const struct ft__doc_field *f, const yaml_node_t *v,
            const char *path, const char *s, void *p)
{
	uint64_t u;
	double x;
	int rc;

	switch (f->type) {
	case FT__DOC_U32:
	case FT__DOC_U64:
		if (ft_parse_u64(s, &u) < 0)
			return number_error(d, f, v, path, FT_EPARSE);
		if ((double)u < f->lo || (f->hi > 0 && (double)u > f->hi) ||
		    (f->type == FT__DOC_U32 && u > UINT32_MAX))
			return number_error(d, f, v, path, FT_ERANGE);
		if (f->type == FT__DOC_U32) {
			uint32_t w = (uint32_t)u;

			memcpy(p, &w, sizeof(w));
		} else {
			memcpy(p, &u, sizeof(u));
		}
		return 0;
	case FT__DOC_DOUBLE:
		if (ft_parse_double(s, &x) < 0 || !isfinite(x))
			return number_error(d, f, v, path, FT_EPARSE);
		if (x < f->lo || x > f->hi)
			return number_error(d, f, v, path, FT_ERANGE);
		break;
	case FT__DOC_FRACTION:
		rc = parse_fraction(s, &x);
		if (rc == 1)
			return ft__doc_expected(d, v, path, type_what(f));
		if (rc == 2)
			return ft__doc_fail(d, v, FT_ERANGE, path,
			                    "a fraction cannot exceed 1 (100%%), got '%.40s'", s);
		break;
	case FT__DOC_SIZE:
		if (ft_parse_size(s, &u, NULL) < 0)
			return ft__doc_expected(d, v, path, type_what(f));
		if ((double)u < f->lo || (f->hi > 0 && (double)u > f->hi))
			return number_error(d, f, v, path, FT_ERANGE);
		memcpy(p, &u, sizeof(u));
		return 0;
	case FT__DOC_RATE:
		if (ft_parse_rate(s, &x, NULL) < 0 || !(x > 0) || !isfinite(x))
			return ft__doc_expected(d, v, path, type_what(f));
		break;
	case FT__DOC_DURATION:
		if (ft_parse_duration(s, &x, NULL) < 0 || !(x >= 0) || !isfinite(x))
			return ft__doc_expected(d, v, path, type_what(f));
		break;
	default:
		return FT_EINVAL;
	}
	memcpy(p, &x, sizeof(x));
	return 0;
}

/* The size of the member a type writes (strings: any). */
static size_t
member_size(enum ft__doc_type type)
{
	switch (type) {
	case FT__DOC_ENUM:
		return sizeof(int);
	case FT__DOC_BOOL:
		return sizeof(bool);
	case FT__DOC_U32:
		return sizeof(uint32_t);
	case FT__DOC_U64:
	case FT__DOC_SIZE:
		return sizeof(uint64_t);
	default:
		return sizeof(double);
	}
}

int
ft__doc_read(struct ft__doc *d, const struct ft__doc_field *f, yaml_node_t *v, const char *path,
             void *obj)
{
	char *p = (char *)obj + f->off;
	bool number, quoted;
	const char *s;

	if (f->type == FT__DOC_SKIP)
		return 0;
	if (f->type == FT__DOC_FN)
		return f->fn(d, v, path, obj);
	if (!FT_ALWAYS(f->type == FT__DOC_STR || f->size == member_size(f->type)))
		return ft_error_set(d->err, FT_EINVAL, "%s: field '%s' has the wrong size", d->file,
		                    path);
	s = ft__doc_scalar(v);
	number = f->type == FT__DOC_U32 || f->type == FT__DOC_U64 || f->type == FT__DOC_DOUBLE;
	/* a strict document takes numbers and booleans unquoted only: "4" is a text */
	quoted = s && v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
	if (number && (!s || ft__doc_is_null(v) || (d->strict && quoted)))
		return number_error(d, f, v, path, FT_EPARSE);
	if (!s || (ft__doc_is_null(v) && f->type != FT__DOC_STR) ||
	    (d->strict && quoted && f->type == FT__DOC_BOOL))
		return ft__doc_expected(d, v, path, type_what(f));
	switch (f->type) {
	case FT__DOC_STR:
		if (ft__doc_is_null(v))
			return ft__doc_expected(d, v, path, type_what(f));
		return read_str(d, f, v, path, s, p);
	case FT__DOC_ENUM: {
		int i = 0, rc = read_enum(d, f, v, path, s, &i);

		if (rc == 0)
			memcpy(p, &i, sizeof(i));
		return rc;
	}
	case FT__DOC_BOOL:
		return read_bool(d, f, v, path, s, (bool *)p);
	default:
		return read_number(d, f, v, path, s, p);
	}
}

/* ---- mappings ----------------------------------------------------------------------------- */

void
ft__doc_join(char *out, size_t len, const char *path, const char *key)
{
	snprintf(out, len, "%s%s%s", path, *path ? "." : "", key);
}

yaml_node_t *
ft__doc_lookup(struct ft__doc *d, const yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *p;
	yaml_node_t *k;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		k = ft__doc_node(d, p->key);
		if (k && k->type == YAML_SCALAR_NODE && strcmp(ft__doc_scalar(k), key) == 0)
			return ft__doc_node(d, p->value);
	}
	return NULL;
}

int
ft__doc_unknown(struct ft__doc *d, const yaml_node_t *k, const char *path, const char *key,
                const char *const *known, size_t n, const char *whose)
{
	char keys[FT_ERROR_MSG_MAX], hint[FT__DOC_PATH_MAX + 32] = "";
	const char *near = ft_name_closest(key, known, n);
	size_t i, used = 0;

	keys[0] = '\0';
	/* a long list stops at a whole key and says how many there are, so that the
	 * message (and its closing parenthesis) fits */
	for (i = 0; i < n; i++) {
		size_t len = strlen(known[i]) + (i ? 2 : 0);

		if (used + len + 32 >= sizeof(keys) / 2) {
			snprintf(keys + used, sizeof(keys) - used, ", ... (%zu keys)", n);
			break;
		}
		used += (size_t)snprintf(keys + used, sizeof(keys) - used, "%s%s", i ? ", " : "",
		                         known[i]);
	}
	if (near)
		snprintf(hint, sizeof(hint), "did you mean '%s'? ", near);
	return ft__doc_fail(d, k, FT_EPARSE, path, "unknown key (%sexpected one of%s%s: %s)", hint,
	                    whose ? " the keys of " : "", whose ? whose : "", keys);
}

int
ft__doc_each(struct ft__doc *d, yaml_node_t *map, const char *path, ft__doc_pair_fn *fn,
             void *ctx)
{
	yaml_node_pair_t *p, *q;
	char sub[FT__DOC_PATH_MAX], buf[64];
	int rc;

	if (map->type != YAML_MAPPING_NODE)
		return ft__doc_expected(d, map, path, "a mapping");
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = ft__doc_node(d, p->key), *v = ft__doc_node(d, p->value);
		const char *name;

		if (!k || !v)
			return ft__doc_fail(d, map, FT_EPARSE, path, "expected a key and value");
		if (k->type != YAML_SCALAR_NODE)
			return ft__doc_fail(d, k, FT_EPARSE, path, "expected a key name, got %s",
			                    ft__doc_describe(k, buf, sizeof(buf)));
		name = ft__doc_scalar(k);
		ft__doc_join(sub, sizeof(sub), path, name);
		for (q = map->data.mapping.pairs.start; q < p; q++) {
			yaml_node_t *k2 = ft__doc_node(d, q->key);

			if (k2 && k2->type == YAML_SCALAR_NODE && strcmp(ft__doc_scalar(k2), name) == 0)
				return ft__doc_fail(
				        d, k, FT_EPARSE, sub,
				        "expected each key once, got '%s' again (first at line %zu)",
				        name, k2->start_mark.line + 1);
		}
		rc = fn(d, k, v, sub, ctx);
		if (rc < 0)
			return rc;
	}
	return 0;
}

struct walk {
	const struct ft__doc_field *fields;
	size_t n;
	void *obj;
	uint64_t given;
};

static int
walk_pair(struct ft__doc *d, yaml_node_t *k, yaml_node_t *v, const char *path, void *ctx)
{
	struct walk *w = ctx;
	const char *name = ft__doc_scalar(k), *known[64];
	size_t i;

	for (i = 0; i < w->n; i++)
		if (strcmp(w->fields[i].key, name) == 0)
			break;
	if (i == w->n) {
		for (i = 0; i < w->n; i++)
			known[i] = w->fields[i].key;
		return ft__doc_unknown(d, k, path, name, known, w->n, NULL);
	}
	w->given |= UINT64_C(1) << i;
	return ft__doc_read(d, &w->fields[i], v, path, w->obj);
}

int
ft__doc_walk(struct ft__doc *d, yaml_node_t *map, const char *path,
             const struct ft__doc_field *fields, size_t n, void *obj, uint64_t *seen)
{
	struct walk w = { fields, n, obj, 0 };
	int rc;

	if (!FT_ALWAYS(n <= 64))
		return FT_EINVAL;
	rc = ft__doc_each(d, map, path, walk_pair, &w);
	if (rc == 0 && seen)
		*seen = w.given;
	return rc;
}

int
ft__doc_check_required(struct ft__doc *d, const yaml_node_t *map, const char *path,
                       const struct ft__doc_field *fields, size_t n, uint64_t seen,
                       const char *why)
{
	char sub[FT__DOC_PATH_MAX];
	size_t i;

	for (i = 0; i < n && i < 64; i++)
		if (fields[i].required && !(seen & (UINT64_C(1) << i))) {
			ft__doc_join(sub, sizeof(sub), path, fields[i].key);
			return ft__doc_fail(d, map, FT_EPARSE, sub, "%s", why ? why : "required");
		}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * spec/doc.h - the one document reader: a YAML or JSON document (JSON is
 * read as YAML's flow style) into typed fields, by a table of keys per
 * document kind, every error in one form:
 *
 *     file:line:col: field.path: message
 *
 * with libyaml's marks made 1-based. Readers of every module use it (specs,
 * scenarios, sweeps, expectations, thresholds, training models): spec is
 * the lowest module that reads documents, so they may all include it.
 *
 * A table is an array of struct ft__doc_field. A field names its key, its
 * type, where the value goes (offset and size of a member of the object the
 * walk fills) and, for numbers, the accepted range; @what replaces the
 * default "expected ..." wording where a reader describes a value its own
 * way. A field of type FT__DOC_FN hands its value node to a callback
 * (nested mappings, lists, values that need the rest of the document);
 * FT__DOC_SKIP accepts a key and leaves its value alone (a key read before
 * the walk, or a comment field). Adding a field is one table line:
 *
 *     { "radix", FT__DOC_U32, FT__DOC_AT(struct fabric, radix), .lo = 2, .hi = 512 },
 */
#ifndef FT_SPEC_DOC_H
#define FT_SPEC_DOC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include <fabtune/error.h>

/* The longest dotted field path a message carries ("jobs[3].ops[12].size"). */
#define FT__DOC_PATH_MAX 160

/*
 * One document being read. Owns the libyaml tree between open and close.
 * A reader that needs its own state in callbacks embeds this as the first
 * member of its state and casts back (spec/scenario.c).
 */
struct ft__doc {
	const char *file; /* as messages name it; borrowed */
	yaml_document_t tree;
	bool loaded;
	struct ft_error *err; /* borrowed, may be NULL */
	bool strict; /* numbers and booleans unquoted, booleans true/false only (cluster specs) */
};

enum ft__doc_type {
	FT__DOC_STR,      /* char[size]: a non-empty scalar shorter than size */
	FT__DOC_ENUM,     /* int: the index of the scalar in names (NULL-terminated) */
	FT__DOC_BOOL,     /* bool: true/yes or false/no (and True, TRUE, False, FALSE) */
	FT__DOC_U32,      /* uint32_t in [lo, hi] */
	FT__DOC_U64,      /* uint64_t in [lo, hi] (hi 0: no upper bound) */
	FT__DOC_DOUBLE,   /* double, finite, in [lo, hi] */
	FT__DOC_FRACTION, /* double: 0.85 or "85%", from 0 to 1 */
	FT__DOC_SIZE,     /* uint64_t bytes: 4096, 4KiB, 256M (ft_parse_size) */
	FT__DOC_RATE,     /* double bytes/s: 400Gbps, 50GB/s (ft_parse_rate), above 0 */
	FT__DOC_DURATION, /* double seconds: 2us, 5min (ft_parse_duration), from 0 */
	FT__DOC_FN,       /* the callback reads the node */
	FT__DOC_SKIP,     /* accepted, not read */
};

struct ft__doc_field;

/* Read value @v of field @f at @path into @obj: 0 or a negative FT_E* (error set). */
typedef int ft__doc_fn(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj);

struct ft__doc_field {
	const char *key;
	enum ft__doc_type type;
	size_t off, size;          /* the member of the walked object */
	double lo, hi;             /* numbers: accepted range */
	const char *what;          /* "expected <what>" instead of the type's wording */
	const char *const *names;  /* FT__DOC_ENUM: the spellings, NULL-terminated */
	ft__doc_fn *fn;            /* FT__DOC_FN */
	bool required;             /* checked by ft__doc_check_required() */
};

/* Offset and size of member @m of struct type @st, for a field entry. */
#define FT__DOC_AT(st, m) offsetof(st, m), sizeof(((st *)0)->m)

/*
 * Open: the limits and libyaml's tree (ft__yaml_load), from @text or from
 * the file @path (the bounded reader). @file / @path is kept, not copied.
 * On failure nothing needs closing; ft__doc_close() is safe either way.
 */
int ft__doc_open(struct ft__doc *d, const char *text, size_t len, const char *file,
                 struct ft_error *err) FT_MUST_CHECK;
int ft__doc_open_file(struct ft__doc *d, const char *path, struct ft_error *err) FT_MUST_CHECK;
void ft__doc_close(struct ft__doc *d);
/* The root node, or NULL for an empty document. */
yaml_node_t *ft__doc_root(struct ft__doc *d);
yaml_node_t *ft__doc_node(struct ft__doc *d, int id);

/*
 * The one error path: "file:line:col: path: message" at node @n (1:1 when
 * @n is NULL; no "path: " when @path is NULL or empty). Returns @code.
 */
int ft__doc_fail(struct ft__doc *d, const yaml_node_t *n, int code, const char *path,
                 const char *fmt, ...) FT_PRINTF(5, 6);
/* The same at mark @m (1:1 when NULL). */
int ft__doc_vfail(struct ft__doc *d, const yaml_mark_t *m, int code, const char *path,
                  const char *fmt, va_list ap);
/* "path: expected @what, got <what @n is>" (FT_EPARSE). */
int ft__doc_expected(struct ft__doc *d, const yaml_node_t *n, const char *path, const char *what);
/* What @n is, for "got ...": 'text' (cut at 40 characters), a mapping, a list or nothing. */
const char *ft__doc_describe(const yaml_node_t *n, char *buf, size_t len);

const char *ft__doc_scalar(const yaml_node_t *n); /* the text, NULL unless a scalar */
bool ft__doc_is_null(const yaml_node_t *n);       /* empty, ~ or null, unquoted */

/* Read @v as field @f into @obj (the member at f->off). */
int ft__doc_read(struct ft__doc *d, const struct ft__doc_field *f, yaml_node_t *v,
                 const char *path, void *obj);

/*
 * Walk mapping @map at @path (the prefix of every key's path; "" at the top)
 * into @obj: every key a scalar, given once, named in @fields (else an error
 * naming the keys, with the closest as "did you mean"), each value read by
 * its field. @seen (may be NULL) gets bit i for fields[i] given; at most 64
 * fields. A @map that is not a mapping is refused ("expected a mapping").
 */
int ft__doc_walk(struct ft__doc *d, yaml_node_t *map, const char *path,
                 const struct ft__doc_field *fields, size_t n, void *obj, uint64_t *seen);
/* Every required field of @fields in @seen, else "path.key: @why" at @map. */
int ft__doc_check_required(struct ft__doc *d, const yaml_node_t *map, const char *path,
                           const struct ft__doc_field *fields, size_t n, uint64_t seen,
                           const char *why);
/*
 * The structure of a mapping, for readers that match keys themselves: every
 * key a scalar, given once; @fn gets each key node, value node and the key's
 * path ("nodes.count"). ft__doc_walk is this with a table.
 */
typedef int ft__doc_pair_fn(struct ft__doc *d, yaml_node_t *k, yaml_node_t *v, const char *path,
                            void *ctx);
int ft__doc_each(struct ft__doc *d, yaml_node_t *map, const char *path, ft__doc_pair_fn *fn,
                 void *ctx);
/*
 * "path: unknown key (did you mean 'x'? expected one of: a, b)" at key @k;
 * @whose, when given, says whose keys they are ("the keys of a torus fabric").
 */
int ft__doc_unknown(struct ft__doc *d, const yaml_node_t *k, const char *path, const char *key,
                    const char *const *known, size_t n, const char *whose);
/* The value of @key in mapping @map, or NULL. */
yaml_node_t *ft__doc_lookup(struct ft__doc *d, const yaml_node_t *map, const char *key);
/* @path + "." + @key (or @key at the top) into @out. */
void ft__doc_join(char *out, size_t len, const char *path, const char *key);

#endif

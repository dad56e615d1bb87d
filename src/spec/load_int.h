/* SPDX-License-Identifier: MIT */
/*
 * spec/load_int.h - what the loader's files share: the loader state (what
 * a section gave explicitly, where each field was written), the table of
 * keys a section accepts, and the spec's words for the one document
 * reader (spec/doc.h): typed scalars and mapping walks with
 * "file:line:col: field: expected X, got Y" errors, read strictly (numbers
 * and booleans unquoted). load.c holds the walk and the document;
 * load_node.c the nodes section; load_fabric.c the fabric section.
 */
#ifndef FT_SPEC_LOAD_INT_H
#define FT_SPEC_LOAD_INT_H

#include "spec_int.h"
#include "spec/doc.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include <fabtune/spec.h>

/* Where a field's value was written, for the messages of the final check. */
struct mark {
	char path[FT_SPEC_FIELD_MAX];
	unsigned line, col;
};

#define MAX_MARKS 256

struct loader {
	struct ft__doc d; /* the document; file, doc and err below are its */
	const char *file;
	yaml_document_t *doc;
	struct ft_error *err;
	struct ft_cluster_spec *spec;
	struct mark marks[MAX_MARKS];
	size_t nmarks;
	/* What the nodes section gave explicitly (the rest comes from a preset or defaults). */
	bool has_preset, given_gpus, given_nics, given_switches, given_numa, given_nic_rate;
	bool given_nic_link, given_nic_lat, given_pcie_gen, given_gpu_width, given_nic_width;
	bool given_gpu_bw, given_nic_bw, given_nvlink_bw, given_nvlink_gen;
	bool given_model, given_tflops, given_memory, given_count, given_pcie;
	bool given_arch, given_gpu_attach;
	/* Placement lists given (bit per list). */
	unsigned given_place;
	/* What the fabric section gave. */
	bool given_link, given_rate, given_mtu, given_lat_switch, given_lat_cable, given_routing;
	bool given_tiers, given_radix, given_unit, given_over;
	uint32_t placement_len[6];
};

typedef int field_fn(struct loader *L, yaml_node_t *v, const char *path);

/*
 * A key of a section: read by @fn; or, a mapping of its own, walked with the
 * keys of @sub; or by the one reader as @doc says (type, member of the walk's
 * object, range). Any of them sets the loader's flag at offset @given
 * (offsetof(struct loader, given_x); 0 = none) first. A plain value is one
 * line:
 *
 *     { "radix", .doc = { "", FT__DOC_U32, SPEC_AT(fabric.radix), .lo = 4, .hi = 1024 },
 *       GIVEN(given_radix) },
 *
 * None of them: the key is accepted and read elsewhere.
 */
struct field {
	const char *key;
	field_fn *fn;
	unsigned kinds; /* fabric kinds (bit per enum ft_fabric_kind) the key applies to; 0 = any */
	struct ft__doc_field doc;
	size_t given;
	const struct field *sub; /* a nested mapping's keys, @nsub of them */
	size_t nsub;
};

/* Member @m of the spec ("fabric.radix", "node.ngpus"), for a field's @doc. */
#define SPEC_AT(m) FT__DOC_AT(struct ft_cluster_spec, m)
/* The loader's flag @flag is set when the key is given. */
#define GIVEN(flag) .given = offsetof(struct loader, flag)
/* A duration of the spec, in the wording of every spec duration. */
#define SPEC_DURATION(m) \
	.doc = { "", FT__DOC_DURATION, SPEC_AT(m), .what = "a duration like 150ns or 2us" }
/* A nested mapping read with the keys of table @t. */
#define SUB(t) .sub = t, .nsub = FT_ARRAY_SIZE(t)

#define KIND_BIT(k) (1u << (k))
#define FAT_KINDS                                                           \
	(KIND_BIT(FT_FABRIC_FAT_TREE) | KIND_BIT(FT_FABRIC_RAIL_FAT_TREE) | \
	 KIND_BIT(FT_FABRIC_MULTI_PLANE))

/* "file:line:col: path: <fmt>" at mark @m; returns @code. */
int ft__spec_perr(struct loader *L, const yaml_mark_t *m, int code, const char *path,
                  const char *fmt, ...) FT_PRINTF(5, 6);
/* Same, at the line of @field (or of its closest remembered parent). */
int ft__spec_perr_field(struct loader *L, const char *field, int code, const char *fmt, ...)
        FT_PRINTF(4, 5);
/* Remember where @path was written, for the final consistency check. */
void ft__spec_remember(struct loader *L, const char *path, const yaml_mark_t *m);
const struct mark *ft__spec_find_mark(const struct loader *L, const char *path);

/* "path: expected @what, got <what @v is>" (FT_EPARSE). */
static inline int
ft__spec_expected(struct loader *L, yaml_node_t *v, const char *path, const char *what)
{
	return ft__doc_expected(&L->d, v, path, what);
}

static inline const char *
ft__spec_scalar(const yaml_node_t *v) /* NULL unless a scalar */
{
	return ft__doc_scalar(v);
}

static inline bool
ft__spec_is_null(const yaml_node_t *v) /* empty, ~ or null */
{
	return ft__doc_is_null(v);
}

/* The value of @key in mapping @map of the loader's document @doc, or NULL. */
static inline yaml_node_t *
ft__spec_lookup(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
	/* @doc is always the tree of the loader's struct ft__doc */
	return ft__doc_lookup((struct ft__doc *)(void *)((char *)doc - offsetof(struct ft__doc, tree)),
	                      map, key);
}

/* Typed scalars (spec/doc.c reads them): 0, or an error naming @path. */
int ft__spec_get_str(struct loader *L, yaml_node_t *v, const char *path, char *out, size_t size);
int ft__spec_get_u32(struct loader *L, yaml_node_t *v, const char *path, uint32_t min, uint32_t max,
                     uint32_t *out);
int ft__spec_get_double(struct loader *L, yaml_node_t *v, const char *path, double min, double max,
                        double *out);
int ft__spec_get_bool(struct loader *L, yaml_node_t *v, const char *path, bool *out);
int ft__spec_get_rate(struct loader *L, yaml_node_t *v, const char *path, double *out);
int ft__spec_get_duration(struct loader *L, yaml_node_t *v, const char *path, double *out);
/* A link preset's name (hdr, ndr, ..., roce800) into @out. */
int ft__spec_get_link(struct loader *L, yaml_node_t *v, const char *path, char *out, size_t size);
/*
 * A list of at most @cap numbers in [@lo, @hi] into @out, their count in *@n; each
 * entry's place is remembered as path[i]. @list and @too_many word the errors
 * ("expected @list" for anything else than a list, "expected @too_many" past @cap).
 */
int ft__spec_get_u32_list(struct loader *L, yaml_node_t *v, const char *path, const char *list,
                          const char *too_many, uint32_t cap, uint32_t lo, uint32_t hi,
                          uint32_t *out, uint32_t *n);

/*
 * Walk mapping @map at @path: every key must be a scalar named in @fields
 * (and apply to @kind_bit when the field says so), once; each value is
 * remembered and handed to its field's function.
 */
int ft__spec_walk(struct loader *L, yaml_node_t *map, const char *path, const struct field *fields,
                  size_t n, unsigned kind_bit, const char *kind_name);
/* The same, with the typed fields' members in @obj rather than in the spec. */
int ft__spec_walk_in(struct loader *L, yaml_node_t *map, const char *path,
                     const struct field *fields, size_t n, unsigned kind_bit,
                     const char *kind_name, void *obj);

/* The sections. */
int ft__spec_parse_nodes(struct loader *L, yaml_node_t *nodes);
int ft__spec_parse_fabric(struct loader *L, yaml_node_t *fab);

#endif

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
 * they name (or of its closest given parent). The format is docs/spec.md.
 */
#include "internal.h"

#include <yaml.h>

#include <fabtune/spec.h>
#include <fabtune/units.h>

#include "spec_int.h"

/* Where a field's value was written, for the messages of the final check. */
struct mark {
	char path[FT_SPEC_FIELD_MAX];
	unsigned line, col;
};

#define MAX_MARKS 256

struct loader {
	const char *file;
	yaml_document_t *doc;
	struct ft_error *err;
	struct ft_cluster_spec *spec;
	struct mark marks[MAX_MARKS];
	size_t nmarks;
	/* What the nodes section gave explicitly (the rest comes from a preset or defaults). */
	bool has_preset, given_gpus, given_nics, given_switches, given_numa, given_nic_rate;
	bool given_nic_link, given_pcie_gen, given_gpu_width, given_nic_width;
	bool given_gpu_bw, given_nic_bw, given_nvlink_bw, given_nvlink_gen;
	bool given_model, given_tflops, given_memory, given_count, given_pcie;
	/* Placement lists given (bit per list). */
	unsigned given_place;
	/* What the fabric section gave. */
	bool given_link, given_rate, given_lat_switch, given_lat_cable, given_routing;
	bool given_tiers, given_radix, given_unit, given_over;
	uint32_t placement_len[6];
};

typedef int field_fn(struct loader *L, yaml_node_t *v, const char *path);

struct field {
	const char *key;
	field_fn *fn;
	unsigned kinds; /* fabric kinds (bit per enum ft_fabric_kind) the key applies to; 0 = any */
};

#define KIND_BIT(k) (1u << (k))
#define FAT_KINDS                                                                                  \
	(KIND_BIT(FT_FABRIC_FAT_TREE) | KIND_BIT(FT_FABRIC_RAIL_FAT_TREE) |                        \
	 KIND_BIT(FT_FABRIC_MULTI_PLANE))

/* ---- messages ----------------------------------------------------------------------------- */

static int FT_PRINTF(5, 6)
perr(struct loader *L, const yaml_mark_t *m, int code, const char *path, const char *fmt, ...)
{
	char msg[FT_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ft_error_set(L->err, code, "%s:%u:%u: %s: %s", L->file, (unsigned)m->line + 1,
			    (unsigned)m->column + 1, path, msg);
}

/* Same, at the line of @field (or of its closest given parent). */
static const struct mark *find_mark(const struct loader *L, const char *path);

static int FT_PRINTF(4, 5)
perr_field(struct loader *L, const char *field, int code, const char *fmt, ...)
{
	const struct mark *m = find_mark(L, field);
	char msg[FT_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ft_error_set(L->err, code, "%s:%u:%u: %s: %s", L->file, m->line, m->col, field,
			    msg);
}

static bool
is_null(const yaml_node_t *v)
{
	return v->type == YAML_SCALAR_NODE && v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (v->data.scalar.length == 0 || strcmp((const char *)v->data.scalar.value, "~") == 0 ||
		strcmp((const char *)v->data.scalar.value, "null") == 0);
}

/* What was found, for "got ...": 'text', a mapping, a list or nothing. */
static const char *
describe(const yaml_node_t *v, char *buf, size_t len)
{
	const char *s;

	if (v->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (v->type == YAML_SEQUENCE_NODE)
		return "a list";
	if (is_null(v))
		return "nothing";
	s = (const char *)v->data.scalar.value;
	if (strlen(s) > 40)
		snprintf(buf, len, "'%.37s...'", s);
	else
		snprintf(buf, len, "'%s'", s);
	return buf;
}

static int
expected(struct loader *L, yaml_node_t *v, const char *path, const char *what)
{
	char buf[64];

	return perr(L, &v->start_mark, FT_EPARSE, path, "expected %s, got %s", what,
		    describe(v, buf, sizeof(buf)));
}

static void
remember(struct loader *L, const char *path, const yaml_mark_t *m)
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
static const struct mark *
find_mark(const struct loader *L, const char *path)
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

/* ---- scalars ------------------------------------------------------------------------------ */

static const char *
scalar(const yaml_node_t *v)
{
	return v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : NULL;
}

static bool
is_plain(const yaml_node_t *v)
{
	return v->type == YAML_SCALAR_NODE && v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

static int
get_str(struct loader *L, yaml_node_t *v, const char *path, char *out, size_t size)
{
	const char *s = scalar(v);
	char what[48];

	if (!s || is_null(v) || !*s)
		return expected(L, v, path, "a name");
	if (strlen(s) >= size) {
		snprintf(what, sizeof(what), "a name of at most %zu characters", size - 1);
		return expected(L, v, path, what);
	}
	ft_strlcpy(out, s, size);
	return 0;
}

static int
get_u32(struct loader *L, yaml_node_t *v, const char *path, uint32_t min, uint32_t max,
	uint32_t *out)
{
	const char *s = scalar(v);
	char what[64];
	uint64_t x;

	snprintf(what, sizeof(what), "an integer from %u to %u", min, max);
	if (!s || !is_plain(v) || is_null(v) || ft_parse_u64(s, &x) < 0 || x < min || x > max)
		return expected(L, v, path, what);
	*out = (uint32_t)x;
	return 0;
}

static int
get_double(struct loader *L, yaml_node_t *v, const char *path, double min, double max,
	   double *out)
{
	const char *s = scalar(v);
	char what[64];
	double x;

	snprintf(what, sizeof(what), "a number from %g to %g", min, max);
	if (!s || !is_plain(v) || is_null(v) || ft_parse_double(s, &x) < 0 || !isfinite(x) ||
	    x < min || x > max)
		return expected(L, v, path, what);
	*out = x;
	return 0;
}

static int
get_bool(struct loader *L, yaml_node_t *v, const char *path, bool *out)
{
	const char *s = scalar(v);

	if (s && is_plain(v)) {
		if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE")) {
			*out = true;
			return 0;
		}
		if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE")) {
			*out = false;
			return 0;
		}
	}
	return expected(L, v, path, "true or false");
}

static int
get_rate(struct loader *L, yaml_node_t *v, const char *path, double *out)
{
	const char *s = scalar(v);

	if (!s || is_null(v) || ft_parse_rate(s, out, NULL) < 0 || !(*out > 0))
		return expected(L, v, path, "a rate like 400Gbps or 50GB/s");
	return 0;
}

static int
get_duration(struct loader *L, yaml_node_t *v, const char *path, double *out)
{
	const char *s = scalar(v);

	if (!s || is_null(v) || ft_parse_duration(s, out, NULL) < 0 || !(*out >= 0))
		return expected(L, v, path, "a duration like 150ns or 2us");
	return 0;
}

/* ---- mappings ----------------------------------------------------------------------------- */

static void
key_list(const struct field *fields, size_t n, unsigned kind_bit, char *buf, size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++) {
		if (fields[i].kinds && !(fields[i].kinds & kind_bit))
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
					 fields[i].key);
	}
}

/* The value of @key in mapping @map, or NULL. */
static yaml_node_t *
lookup(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *p;
	yaml_node_t *k;

	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		k = yaml_document_get_node(doc, p->key);
		if (k && k->type == YAML_SCALAR_NODE && strcmp(scalar(k), key) == 0)
			return yaml_document_get_node(doc, p->value);
	}
	return NULL;
}

/*
 * Walk mapping @map at @path: every key must be a scalar named in @fields
 * (and apply to @kind_bit when the field says so), once.
 */
static int
walk(struct loader *L, yaml_node_t *map, const char *path, const struct field *fields, size_t n,
     unsigned kind_bit, const char *kind_name)
{
	yaml_node_pair_t *p, *q;
	yaml_node_t *k, *v, *k2;
	char sub[FT_SPEC_FIELD_MAX], keys[512], buf[64];
	const char *name;
	size_t i;
	int rc;

	if (map->type != YAML_MAPPING_NODE)
		return expected(L, map, path, "a mapping");
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		k = yaml_document_get_node(L->doc, p->key);
		v = yaml_document_get_node(L->doc, p->value);
		if (!k || !v)
			return perr(L, &map->start_mark, FT_EPARSE, path, "expected a key and value");
		if (k->type != YAML_SCALAR_NODE)
			return perr(L, &k->start_mark, FT_EPARSE, path, "expected a key name, got %s",
				    describe(k, buf, sizeof(buf)));
		name = scalar(k);
		snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "", name);
		for (q = map->data.mapping.pairs.start; q < p; q++) {
			k2 = yaml_document_get_node(L->doc, q->key);
			if (k2 && k2->type == YAML_SCALAR_NODE && strcmp(scalar(k2), name) == 0)
				return perr(L, &k->start_mark, FT_EPARSE, sub,
					    "expected each key once, got '%s' again (first at "
					    "line %u)",
					    name, (unsigned)k2->start_mark.line + 1);
		}
		for (i = 0; i < n; i++)
			if (strcmp(fields[i].key, name) == 0)
				break;
		if (i == n || (fields[i].kinds && !(fields[i].kinds & kind_bit))) {
			key_list(fields, n, kind_bit, keys, sizeof(keys));
			return perr(L, &k->start_mark, FT_EPARSE, sub,
				    "expected one of the keys %s%s%s%s, got unknown key '%s'",
				    kind_name ? "of a " : "", kind_name ? kind_name : "",
				    kind_name ? " fabric: " : "", keys, name);
		}
		remember(L, sub, &v->start_mark);
		if (fields[i].fn) {
			rc = fields[i].fn(L, v, sub);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/* ---- nodes -------------------------------------------------------------------------------- */

#define NODE (&L->spec->node)

static int
f_count(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_count = true;
	return get_u32(L, v, path, 1, 1000000, &L->spec->nnodes);
}

static int
f_gpus(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_gpus = true;
	return get_u32(L, v, path, 1, FT_SPEC_MAX_GPUS, &NODE->ngpus);
}

static int
f_gpu_model(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_model = true;
	return get_str(L, v, path, NODE->gpu_model, sizeof(NODE->gpu_model));
}

static int
f_gpu_tflops(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_tflops = true;
	return get_double(L, v, path, 0.001, 1e6, &NODE->gpu_tflops);
}

static int
f_gpu_memory(struct loader *L, yaml_node_t *v, const char *path)
{
	const char *s = scalar(v);
	uint64_t bytes;

	L->given_memory = true;
	/* A bare number has no unit: refuse it rather than guess GB or GiB. */
	if (!s || is_null(v) || strspn(s, "0123456789.") == strlen(s) ||
	    ft_parse_size(s, &bytes, NULL) < 0 || bytes == 0)
		return expected(L, v, path, "a size like 80GB or 141GB");
	NODE->gpu_mem_GB = (double)bytes / 1e9;
	return 0;
}

static int
f_nv_gen(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_nvlink_gen = true;
	return get_u32(L, v, path, 1, 5, &NODE->nvlink_gen);
}

static int
f_nv_bw(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_nvlink_bw = true;
	return get_rate(L, v, path, &NODE->nvlink_Bps);
}

static int
f_nv_lat(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_duration(L, v, path, &NODE->lat_nvlink_s);
}

static int
f_nv_switch(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_bool(L, v, path, &NODE->nvswitch);
}

static int
f_nv_nvls(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_bool(L, v, path, &NODE->nvls);
}

static const struct field nvlink_fields[] = {
	{ "gen", f_nv_gen, 0 },		 { "bandwidth", f_nv_bw, 0 }, { "latency", f_nv_lat, 0 },
	{ "nvswitch", f_nv_switch, 0 }, { "nvls", f_nv_nvls, 0 },
};

static int
f_nvlink(struct loader *L, yaml_node_t *v, const char *path)
{
	const char *s = scalar(v);

	if (s && (strcmp(s, "none") == 0 || strcmp(s, "false") == 0)) {
		NODE->nvlink_gen = 0;
		NODE->nvlink_Bps = 0;
		NODE->lat_nvlink_s = 0;
		NODE->nvswitch = NODE->nvls = false;
		L->given_nvlink_gen = L->given_nvlink_bw = true;
		return 0;
	}
	if (v->type != YAML_MAPPING_NODE)
		return expected(L, v, path, "a mapping (gen, bandwidth, ...) or none");
	return walk(L, v, path, nvlink_fields, FT_ARRAY_SIZE(nvlink_fields), 0, NULL);
}

static int
get_width(struct loader *L, yaml_node_t *v, const char *path, uint32_t *out)
{
	int rc = get_u32(L, v, path, 1, 16, out);

	if (rc == 0 && (*out & (*out - 1)))
		return expected(L, v, path, "1, 2, 4, 8 or 16 lanes");
	return rc;
}

static int
f_pcie_gen(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_pcie_gen = true;
	return get_u32(L, v, path, 1, 6, &NODE->pcie_gen);
}

static int
f_pcie_gpu_width(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_gpu_width = true;
	return get_width(L, v, path, &NODE->pcie_width_gpu);
}

static int
f_pcie_nic_width(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_nic_width = true;
	return get_width(L, v, path, &NODE->pcie_width_nic);
}

static int
f_pcie_gpu_bw(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_gpu_bw = true;
	return get_rate(L, v, path, &NODE->pcie_Bps_gpu);
}

static int
f_pcie_nic_bw(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_nic_bw = true;
	return get_rate(L, v, path, &NODE->pcie_Bps_nic);
}

static int
f_pcie_lat(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_duration(L, v, path, &NODE->lat_pcie_s);
}

static int
f_pcie_switches(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_switches = true;
	return get_u32(L, v, path, 0, FT_SPEC_MAX_PCIE_SWITCHES, &NODE->npcie_switches);
}

static const struct field pcie_fields[] = {
	{ "gen", f_pcie_gen, 0 },
	{ "gpu_width", f_pcie_gpu_width, 0 },
	{ "nic_width", f_pcie_nic_width, 0 },
	{ "gpu_bandwidth", f_pcie_gpu_bw, 0 },
	{ "nic_bandwidth", f_pcie_nic_bw, 0 },
	{ "latency", f_pcie_lat, 0 },
	{ "switches", f_pcie_switches, 0 },
};

static int
f_pcie(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_pcie = true;
	return walk(L, v, path, pcie_fields, FT_ARRAY_SIZE(pcie_fields), 0, NULL);
}

static int
f_numa_domains(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_numa = true;
	return get_u32(L, v, path, 1, 64, &NODE->nnuma);
}

static int
f_numa_link(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_rate(L, v, path, &NODE->cpu_link_Bps);
}

static const struct field numa_fields[] = {
	{ "domains", f_numa_domains, 0 },
	{ "interconnect", f_numa_link, 0 },
};

static int
f_numa(struct loader *L, yaml_node_t *v, const char *path)
{
	return walk(L, v, path, numa_fields, FT_ARRAY_SIZE(numa_fields), 0, NULL);
}

static int
f_nic_count(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_nics = true;
	return get_u32(L, v, path, 0, FT_SPEC_MAX_NICS, &NODE->nnics);
}

static int
f_nic_model(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_str(L, v, path, NODE->nic_model, sizeof(NODE->nic_model));
}

static int
f_nic_link(struct loader *L, yaml_node_t *v, const char *path)
{
	const char *s = scalar(v);

	L->given_nic_link = true;
	if (!s || !ft_link_preset_find(s))
		return expected(L, v, path,
				"a link preset (hdr, ndr, xdr, roce100, roce200, roce400, roce800)");
	ft_strlcpy(NODE->nic_link, s, sizeof(NODE->nic_link));
	return 0;
}

static int
f_nic_rate(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_nic_rate = true;
	return get_rate(L, v, path, &NODE->nic_Bps);
}

static const struct field nic_fields[] = {
	{ "count", f_nic_count, 0 },
	{ "model", f_nic_model, 0 },
	{ "link", f_nic_link, 0 },
	{ "rate", f_nic_rate, 0 },
};

static int
f_nics(struct loader *L, yaml_node_t *v, const char *path)
{
	return walk(L, v, path, nic_fields, FT_ARRAY_SIZE(nic_fields), 0, NULL);
}

/* Placement lists: index into the node's arrays, with the count they must match. */
enum { PL_GPU_SWITCH, PL_GPU_NUMA, PL_GPU_NIC, PL_NIC_SWITCH, PL_NIC_NUMA, PL_SWITCH_NUMA };

static int
get_list(struct loader *L, yaml_node_t *v, const char *path, unsigned which)
{
	static const uint32_t caps[] = { FT_SPEC_MAX_GPUS, FT_SPEC_MAX_GPUS, FT_SPEC_MAX_GPUS,
					 FT_SPEC_MAX_NICS, FT_SPEC_MAX_NICS,
					 FT_SPEC_MAX_PCIE_SWITCHES };
	uint32_t *dst[] = { NODE->gpu_pcie_switch, NODE->gpu_numa,    NODE->gpu_nic,
			    NODE->nic_pcie_switch, NODE->nic_numa,    NODE->pcie_switch_numa };
	char sub[FT_SPEC_FIELD_MAX], what[64];
	yaml_node_item_t *it;
	yaml_node_t *e;
	uint32_t n = 0;
	int rc;

	if (v->type != YAML_SEQUENCE_NODE)
		return expected(L, v, path, "a list of indexes like [0, 0, 1, 1]");
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, n++) {
		e = yaml_document_get_node(L->doc, *it);
		snprintf(sub, sizeof(sub), "%s[%u]", path, n);
		if (n >= caps[which]) {
			snprintf(what, sizeof(what), "at most %u entries", caps[which]);
			return expected(L, e, path, what);
		}
		remember(L, sub, &e->start_mark);
		rc = get_u32(L, e, sub, 0, 63, &dst[which][n]);
		if (rc < 0)
			return rc;
	}
	L->given_place |= 1u << which;
	L->placement_len[which] = n;
	return 0;
}

static int
f_pl_gpu_switch(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_list(L, v, path, PL_GPU_SWITCH);
}

static int
f_pl_gpu_numa(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_list(L, v, path, PL_GPU_NUMA);
}

static int
f_pl_gpu_nic(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_list(L, v, path, PL_GPU_NIC);
}

static int
f_pl_nic_switch(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_list(L, v, path, PL_NIC_SWITCH);
}

static int
f_pl_nic_numa(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_list(L, v, path, PL_NIC_NUMA);
}

static int
f_pl_switch_numa(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_list(L, v, path, PL_SWITCH_NUMA);
}

static const struct field placement_fields[] = {
	{ "gpu_pcie_switch", f_pl_gpu_switch, 0 }, { "gpu_numa", f_pl_gpu_numa, 0 },
	{ "gpu_nic", f_pl_gpu_nic, 0 },		   { "nic_pcie_switch", f_pl_nic_switch, 0 },
	{ "nic_numa", f_pl_nic_numa, 0 },	   { "pcie_switch_numa", f_pl_switch_numa, 0 },
};

/* Placement is applied after the counts are known: see finish_node(). */
static yaml_node_t *placement_node(struct loader *L, yaml_node_t *nodes)
{
	return lookup(L->doc, nodes, "placement");
}

static const struct field node_fields[] = {
	{ "preset", NULL, 0 },	       { "count", f_count, 0 },
	{ "gpus", f_gpus, 0 },	       { "gpu_model", f_gpu_model, 0 },
	{ "gpu_tflops", f_gpu_tflops, 0 }, { "gpu_memory", f_gpu_memory, 0 },
	{ "nvlink", f_nvlink, 0 },     { "pcie", f_pcie, 0 },
	{ "numa", f_numa, 0 },	       { "nics", f_nics, 0 },
	{ "placement", NULL, 0 },
};

/* A node described without a preset must say what its GPUs and PCIe are. */
static int
require_node_fields(struct loader *L, yaml_node_t *nodes)
{
	static const char *const what[] = { "gpus", "gpu_model", "gpu_tflops", "gpu_memory",
					    "pcie" };
	bool given[] = { L->given_gpus, L->given_model, L->given_tflops, L->given_memory,
			 L->given_pcie_gen };
	char path[FT_SPEC_FIELD_MAX];
	size_t i;

	for (i = 0; i < FT_ARRAY_SIZE(what); i++) {
		if (given[i])
			continue;
		snprintf(path, sizeof(path), "nodes.%s", i == 4 ? "pcie.gen" : what[i]);
		return perr(L, &nodes->start_mark, FT_EPARSE, path,
			    "expected a value (or a preset: to start from), got nothing");
	}
	return 0;
}

static int
finish_node(struct loader *L, yaml_node_t *nodes)
{
	static const char *const list_name[] = { "gpu_pcie_switch", "gpu_numa", "gpu_nic",
						 "nic_pcie_switch", "nic_numa",
						 "pcie_switch_numa" };
	struct ft_node_spec *n = NODE;
	const struct ft_link_preset *lp;
	struct ft_node_spec base;
	yaml_node_t *pl;
	uint32_t want[6];
	char path[FT_SPEC_FIELD_MAX];
	unsigned i;
	int rc;

	if (!L->has_preset) {
		rc = require_node_fields(L, nodes);
		if (rc < 0)
			return rc;
	}
	if (L->given_nvlink_gen && n->nvlink_gen && !L->given_nvlink_bw &&
	    (!L->has_preset || ft_node_preset(n->preset, &base) < 0 ||
	     base.nvlink_gen != n->nvlink_gen))
		return perr_field(L, "nodes.nvlink.bandwidth", FT_EPARSE,
				  "expected a bandwidth per GPU and direction for NVLink %u, "
				  "got nothing",
				  n->nvlink_gen);
	/* PCIe rates follow generation and width unless given. */
	if (!L->given_gpu_bw && (!L->has_preset || L->given_pcie_gen || L->given_gpu_width))
		n->pcie_Bps_gpu = ft__spec_pcie_Bps(n->pcie_gen, n->pcie_width_gpu);
	if (!L->given_nic_bw && (!L->has_preset || L->given_pcie_gen || L->given_nic_width))
		n->pcie_Bps_nic = ft__spec_pcie_Bps(n->pcie_gen, n->pcie_width_nic);
	/* The NIC rate follows its link preset unless given; a rate alone drops the preset link. */
	lp = ft_link_preset_find(n->nic_link);
	if (L->given_nic_link && !L->given_nic_rate && lp)
		n->nic_Bps = lp->rate_Bps;
	else if (L->given_nic_rate && !L->given_nic_link && lp && lp->rate_Bps != n->nic_Bps)
		n->nic_link[0] = '\0';
	if (n->nnics && !(n->nic_Bps > 0))
		return perr_field(L, "nodes.nics.rate", FT_EPARSE,
				  "expected a link: preset or a rate: for the %u NICs, got nothing",
				  n->nnics);
	/* New counts invalidate the preset's placement: lay it out again. */
	if (!L->has_preset || L->given_gpus || L->given_nics || L->given_switches ||
	    L->given_numa)
		ft__spec_default_placement(n);
	pl = placement_node(L, nodes);
	if (pl) {
		rc = walk(L, pl, "nodes.placement", placement_fields,
			  FT_ARRAY_SIZE(placement_fields), 0, NULL);
		if (rc < 0)
			return rc;
		want[PL_GPU_SWITCH] = want[PL_GPU_NUMA] = want[PL_GPU_NIC] = n->ngpus;
		want[PL_NIC_SWITCH] = want[PL_NIC_NUMA] = n->nnics;
		want[PL_SWITCH_NUMA] = n->npcie_switches;
		for (i = 0; i < 6; i++) {
			if (!(L->given_place & (1u << i)) || L->placement_len[i] == want[i])
				continue;
			snprintf(path, sizeof(path), "nodes.placement.%s", list_name[i]);
			return perr(L, &lookup(L->doc, pl, list_name[i])->start_mark, FT_EPARSE,
				    path, "expected %u entries (one per %s), got %u", want[i],
				    i < 3 ? "GPU" : i < 5 ? "NIC" : "PCIe switch",
				    L->placement_len[i]);
		}
	}
	return 0;
}

static int
parse_nodes(struct loader *L, yaml_node_t *nodes)
{
	yaml_node_t *pv;
	const char *s;
	int rc;

	if (nodes->type != YAML_MAPPING_NODE)
		return expected(L, nodes, "nodes", "a mapping (preset, count, gpus, ...)");
	L->spec->nnodes = 1;
	pv = lookup(L->doc, nodes, "preset");
	if (pv) {
		s = scalar(pv);
		if (!s || ft_node_preset(s, NODE) < 0)
			return expected(L, pv, "nodes.preset",
					"a node preset (dgx-a100, dgx-b200, dgx-h100, hgx-h200, "
					"pcie-l40s)");
		L->has_preset = true;
	} else {
		/* Defaults of a hand-written node: x16 links, one NUMA domain, the preset latencies. */
		struct ft_node_spec ref;

		rc = ft_node_preset("dgx-h100", &ref);
		if (rc < 0)
			return rc;
		NODE->pcie_width_gpu = NODE->pcie_width_nic = 16;
		NODE->lat_pcie_s = ref.lat_pcie_s;
		NODE->lat_nvlink_s = ref.lat_nvlink_s;
		NODE->nnuma = 1;
	}
	rc = walk(L, nodes, "nodes", node_fields, FT_ARRAY_SIZE(node_fields), 0, NULL);
	if (rc < 0)
		return rc;
	if (NODE->nvlink_gen && NODE->lat_nvlink_s == 0 && !L->has_preset) {
		struct ft_node_spec ref;

		if (ft_node_preset("dgx-h100", &ref) == 0)
			NODE->lat_nvlink_s = ref.lat_nvlink_s;
	}
	return finish_node(L, nodes);
}

#undef NODE

/* ---- fabric ------------------------------------------------------------------------------- */

#define FAB (&L->spec->fabric)

static int
f_link(struct loader *L, yaml_node_t *v, const char *path)
{
	const char *s = scalar(v);

	L->given_link = true;
	if (!s || !ft_link_preset_find(s))
		return expected(L, v, path,
				"a link preset (hdr, ndr, xdr, roce100, roce200, roce400, roce800)");
	ft_strlcpy(FAB->link, s, sizeof(FAB->link));
	return 0;
}

static int
f_rate(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_rate = true;
	return get_rate(L, v, path, &FAB->link_Bps);
}

static int
f_lat_switch(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_lat_switch = true;
	return get_duration(L, v, path, &FAB->lat_switch_s);
}

static int
f_lat_cable(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_lat_cable = true;
	return get_duration(L, v, path, &FAB->lat_cable_s);
}

static int
f_routing(struct loader *L, yaml_node_t *v, const char *path)
{
	const char *s = scalar(v);

	L->given_routing = true;
	if (!s || ft_routing_from_name(s, &FAB->routing) < 0)
		return expected(L, v, path, ft__spec_routing_names());
	return 0;
}

static int
f_sharp(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_bool(L, v, path, &FAB->sharp);
}

static int
f_tiers(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_tiers = true;
	return get_u32(L, v, path, 2, 3, &FAB->tiers);
}

static int
f_radix(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_radix = true;
	return get_u32(L, v, path, 4, 1024, &FAB->radix);
}

/* 1, 2.5, or "2:1" (down:up). */
static int
f_over(struct loader *L, yaml_node_t *v, const char *path)
{
	const char *s = scalar(v), *colon;
	char num[32];
	double a, b;
	size_t len;

	L->given_over = true;
	if (s && (colon = strchr(s, ':')) != NULL && (len = (size_t)(colon - s)) < sizeof(num)) {
		memcpy(num, s, len);
		num[len] = '\0';
		if (ft_parse_double(num, &a) == 0 && ft_parse_double(colon + 1, &b) == 0 &&
		    isfinite(a) && isfinite(b) && b > 0 && a / b >= 1 && a / b <= 1000) {
			FAB->oversubscription = a / b;
			return 0;
		}
	} else if (s && ft_parse_double(s, &a) == 0 && isfinite(a) && a >= 1 && a <= 1000) {
		FAB->oversubscription = a;
		return 0;
	}
	return expected(L, v, path, "a down:up ratio of at least 1, like 1, 2 or \"3:1\"");
}

static int
f_unit(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_unit = true;
	return get_u32(L, v, path, 1, 1024, &FAB->nodes_per_unit);
}

static int
f_planes(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_u32(L, v, path, 1, FT_SPEC_MAX_NICS, &FAB->planes);
}

static int
f_groups(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_u32(L, v, path, 2, 100000, &FAB->groups);
}

static int
f_rpg(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_u32(L, v, path, 1, 1024, &FAB->routers_per_group);
}

static int
f_npr(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_u32(L, v, path, 1, 1024, &FAB->nodes_per_router);
}

static int
f_glpr(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_u32(L, v, path, 1, 1024, &FAB->global_links_per_router);
}

static int
f_dims(struct loader *L, yaml_node_t *v, const char *path)
{
	char sub[FT_SPEC_FIELD_MAX];
	yaml_node_item_t *it;
	yaml_node_t *e;
	uint32_t n = 0;
	int rc;

	if (v->type != YAML_SEQUENCE_NODE)
		return expected(L, v, path, "a list of 2 or 3 ring sizes like [8, 8, 8]");
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, n++) {
		e = yaml_document_get_node(L->doc, *it);
		if (n >= 3)
			return expected(L, e, path, "2 or 3 dimensions");
		snprintf(sub, sizeof(sub), "%s[%u]", path, n);
		remember(L, sub, &e->start_mark);
		rc = get_u32(L, e, sub, 2, 1024, &FAB->dims[n]);
		if (rc < 0)
			return rc;
	}
	if (n < 2)
		return expected(L, v, path, "2 or 3 dimensions");
	FAB->ndims = n;
	return 0;
}

static int
f_nps(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_u32(L, v, path, 0, 1024, &FAB->nodes_per_switch);
}

static const struct field fabric_fields[] = {
	{ "kind", NULL, 0 },
	{ "link", f_link, 0 },
	{ "rate", f_rate, 0 },
	{ "switch_latency", f_lat_switch, 0 },
	{ "cable_latency", f_lat_cable, 0 },
	{ "routing", f_routing, 0 },
	{ "sharp", f_sharp, FAT_KINDS },
	{ "tiers", f_tiers, FAT_KINDS },
	{ "radix", f_radix, FAT_KINDS | KIND_BIT(FT_FABRIC_DRAGONFLY) },
	{ "oversubscription", f_over, FAT_KINDS },
	{ "nodes_per_unit", f_unit, KIND_BIT(FT_FABRIC_RAIL_FAT_TREE) },
	{ "planes", f_planes, KIND_BIT(FT_FABRIC_MULTI_PLANE) },
	{ "groups", f_groups, KIND_BIT(FT_FABRIC_DRAGONFLY) },
	{ "routers_per_group", f_rpg, KIND_BIT(FT_FABRIC_DRAGONFLY) },
	{ "nodes_per_router", f_npr, KIND_BIT(FT_FABRIC_DRAGONFLY) },
	{ "global_links_per_router", f_glpr, KIND_BIT(FT_FABRIC_DRAGONFLY) },
	{ "dims", f_dims, KIND_BIT(FT_FABRIC_TORUS) },
	{ "nodes_per_switch", f_nps, KIND_BIT(FT_FABRIC_TORUS) },
};

/* Keys a kind cannot do without. */
static int
require_fabric_fields(struct loader *L, yaml_node_t *fab)
{
	static const char *const dragonfly[] = { "groups", "routers_per_group", "nodes_per_router",
						 "global_links_per_router" };
	static const char *const multi[] = { "planes" };
	static const char *const torus[] = { "dims" };
	const char *const *keys = NULL;
	char path[FT_SPEC_FIELD_MAX];
	size_t i, n = 0;

	switch (FAB->kind) {
	case FT_FABRIC_DRAGONFLY:
		keys = dragonfly;
		n = FT_ARRAY_SIZE(dragonfly);
		break;
	case FT_FABRIC_MULTI_PLANE:
		keys = multi;
		n = 1;
		break;
	case FT_FABRIC_TORUS:
		keys = torus;
		n = 1;
		break;
	default:
		break;
	}
	for (i = 0; i < n; i++) {
		if (lookup(L->doc, fab, keys[i]))
			continue;
		snprintf(path, sizeof(path), "fabric.%s", keys[i]);
		return perr(L, &fab->start_mark, FT_EPARSE, path,
			    "expected a value for a %s fabric, got nothing",
			    ft_fabric_kind_name(FAB->kind));
	}
	return 0;
}

/* Fill what the fabric section left out: link from the NICs, tiers that fit, routing. */
static int
finish_fabric(struct loader *L, yaml_node_t *fab)
{
	const struct ft_link_preset *lp;
	struct ft_fabric_spec *f = FAB;
	uint32_t down, up;

	if (!L->given_link && L->spec->node.nic_link[0])
		ft_strlcpy(f->link, L->spec->node.nic_link, sizeof(f->link));
	lp = ft_link_preset_find(f->link);
	if (lp) {
		if (!L->given_rate)
			f->link_Bps = lp->rate_Bps;
		if (!L->given_lat_switch)
			f->lat_switch_s = lp->lat_switch_s;
		if (!L->given_lat_cable)
			f->lat_cable_s = lp->lat_cable_s;
	} else if (!L->given_rate) {
		return perr(L, &fab->start_mark, FT_EPARSE, "fabric.rate",
			    "expected a link: preset or a rate: (the NICs name no link "
			    "preset), got nothing");
	}
	if (!L->given_routing)
		f->routing = ft__spec_default_routing(f->kind, lp ? lp->tech : FT_TECH_ROCE);
	if (f->kind == FT_FABRIC_FAT_TREE || f->kind == FT_FABRIC_RAIL_FAT_TREE ||
	    f->kind == FT_FABRIC_MULTI_PLANE) {
		if (!L->given_radix)
			f->radix = 64;
		if (!L->given_over)
			f->oversubscription = 1.0;
		if (f->kind != FT_FABRIC_MULTI_PLANE)
			f->planes = 1;
		ft_spec_leaf_ports(f, &down, &up);
		if (!L->given_unit && f->kind == FT_FABRIC_RAIL_FAT_TREE)
			f->nodes_per_unit = down;
		if (!L->given_tiers) {
			/* The fewest tiers that hold the nodes (3 if none does: the check says so). */
			for (f->tiers = 2; f->tiers < 3; f->tiers++)
				if (L->spec->nnodes <= ft_spec_fabric_capacity(L->spec))
					break;
		}
	}
	return 0;
}

static int
parse_fabric(struct loader *L, yaml_node_t *fab)
{
	yaml_node_t *kv;
	const char *s;
	int rc;

	s = scalar(fab);
	if (s && strcmp(s, "none") == 0) {
		FAB->kind = FT_FABRIC_NONE;
		return 0;
	}
	if (fab->type != YAML_MAPPING_NODE)
		return expected(L, fab, "fabric", "a mapping (kind, link, ...) or none");
	kv = lookup(L->doc, fab, "kind");
	if (!kv)
		return perr(L, &fab->start_mark, FT_EPARSE, "fabric.kind",
			    "expected %s, got nothing", ft__spec_kind_names());
	s = scalar(kv);
	if (!s || ft__spec_kind_from_name(s, &FAB->kind) < 0)
		return expected(L, kv, "fabric.kind", ft__spec_kind_names());
	if (FAB->kind == FT_FABRIC_NONE) {
		if (fab->data.mapping.pairs.top - fab->data.mapping.pairs.start > 1)
			return perr(L, &fab->start_mark, FT_EPARSE, "fabric",
				    "expected only kind: for a fabric of kind none, got more keys");
		return 0;
	}
	rc = walk(L, fab, "fabric", fabric_fields, FT_ARRAY_SIZE(fabric_fields),
		  KIND_BIT(FAB->kind), ft_fabric_kind_name(FAB->kind));
	if (rc < 0)
		return rc;
	rc = require_fabric_fields(L, fab);
	if (rc < 0)
		return rc;
	return finish_fabric(L, fab);
}

#undef FAB

/* ---- document ----------------------------------------------------------------------------- */

static int
f_name(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_str(L, v, path, L->spec->name, sizeof(L->spec->name));
}

static int
f_description(struct loader *L, yaml_node_t *v, const char *path)
{
	if (v->type != YAML_SCALAR_NODE)
		return expected(L, v, path, "a text");
	return 0;
}

static const struct field top_fields[] = {
	{ "name", f_name, 0 },
	{ "description", f_description, 0 },
	{ "nodes", NULL, 0 },
	{ "fabric", NULL, 0 },
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

static int
parse_root(struct loader *L, yaml_node_t *root)
{
	char field[FT_SPEC_FIELD_MAX];
	struct ft_error e = { 0 };
	const struct mark *m;
	yaml_node_t *nodes, *fab;
	int rc;

	if (root->type != YAML_MAPPING_NODE)
		return expected(L, root, "spec", "a mapping with name, nodes and fabric");
	rc = walk(L, root, "", top_fields, FT_ARRAY_SIZE(top_fields), 0, NULL);
	if (rc < 0)
		return rc;
	nodes = lookup(L->doc, root, "nodes");
	if (!nodes)
		return perr(L, &root->start_mark, FT_EPARSE, "nodes",
			    "expected a nodes: section (preset, count, ...), got nothing");
	rc = parse_nodes(L, nodes);
	if (rc < 0)
		return rc;
	fab = lookup(L->doc, root, "fabric");
	if (fab) {
		rc = parse_fabric(L, fab);
	} else if (L->spec->nnodes > 1 && L->has_preset) {
		rc = ft__spec_default_fabric(&L->spec->node, L->spec->nnodes, &L->spec->fabric,
					     field, &e);
		if (rc < 0) {
			m = find_mark(L, field);
			return ft_error_set(L->err, rc, "%s:%u:%u: %s: %s", L->file, m->line,
					    m->col, field, e.msg);
		}
	} else if (L->spec->nnodes > 1) {
		m = find_mark(L, "nodes.count");
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
		m = find_mark(L, field);
		return ft_error_set(L->err, rc, "%s:%u:%u: %s: %s", L->file, m->line, m->col,
				    field, e.msg);
	}
	return 0;
}

static int
syntax_error(struct loader *L, const yaml_parser_t *p)
{
	if (p->error == YAML_MEMORY_ERROR)
		return ft_error_set(L->err, FT_ENOMEM, "%s: out of memory reading YAML", L->file);
	return ft_error_set(L->err, FT_EPARSE, "%s:%u:%u: yaml: %s%s%s", L->file,
			    (unsigned)p->problem_mark.line + 1, (unsigned)p->problem_mark.column + 1,
			    p->problem ? p->problem : "syntax error", p->context ? " " : "",
			    p->context ? p->context : "");
}

int
ft_spec_load_buffer(const char *text, size_t len, const char *file, struct ft_cluster_spec *out,
		    struct ft_error *err)
{
	yaml_document_t doc, extra;
	yaml_parser_t parser;
	struct loader *L;
	yaml_node_t *root;
	int rc;

	if (!out)
		return ft_error_set(err, FT_EINVAL, "no spec to fill");
	memset(out, 0, sizeof(*out));
	if (!text && len)
		return ft_error_set(err, FT_EINVAL, "no spec text");
	L = ft_calloc(1, sizeof(*L));
	if (!L)
		return ft_error_set(err, FT_ENOMEM, "out of memory loading a spec");
	L->file = file && *file ? file : "<spec>";
	L->err = err;
	L->spec = out;
	L->doc = &doc;
	if (!yaml_parser_initialize(&parser)) {
		ft_free(L);
		return ft_error_set(err, FT_ENOMEM, "out of memory starting the YAML parser");
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)(text ? text : ""), len);
	if (!yaml_parser_load(&parser, &doc)) {
		rc = syntax_error(L, &parser);
		goto out_parser;
	}
	root = yaml_document_get_root_node(&doc);
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
	yaml_document_delete(&doc);
out_parser:
	yaml_parser_delete(&parser);
	ft_free(L);
	if (rc < 0)
		memset(out, 0, sizeof(*out));
	return rc;
}

int
ft_spec_load_file(const char *path, struct ft_cluster_spec *out, struct ft_error *err)
{
	struct ft_strbuf sb;
	int rc;

	if (!out)
		return ft_error_set(err, FT_EINVAL, "no spec to fill");
	memset(out, 0, sizeof(*out));
	if (!path)
		return ft_error_set(err, FT_EINVAL, "no spec file given");
	ft_strbuf_init(&sb);
	rc = ft_strbuf_read_file(&sb, path, err);
	if (rc == 0)
		rc = ft_spec_load_buffer(sb.buf, sb.len, path, out, err);
	ft_strbuf_release(&sb);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * topo/export.c - vertex names and the Graphviz dot and JSON exports.
 *
 * Names are stable and readable: "n3.gpu5", "n3.nic0", "n3.pcie1", "n3.cpu0",
 * "n3.nvswitch" inside nodes; "leaf12", "spine4.7" (pod 4, spine 7),
 * "core2.5" (group 2, core 5) on fat-trees, prefixed "p1." on plane 1 of a
 * multi-plane fabric; "router3.1" (group 3) on dragonflies; "sw1.2.0" (x.y.z)
 * on tori. Exports list each physical link once (dot) or every directed link
 * (JSON), in id order, so the same spec gives the same bytes.
 */
#include "topo_int.h"

#include <fabtune/json.h>
#include <fabtune/units.h>

#include "base/fields.h"

#define LINK(key, type) FT__FIELD(struct ft_link, #key, type, key)

/* A link of the export around its kind: the vertices it joins, then its figures. */
static const struct ft__field link_ends[] = { LINK(src, UINT), LINK(dst, UINT), LINK(rev, UINT) };
static const struct ft__field link_figures[] = {
	LINK(tier, UINT),
	LINK(up, BOOL),
	LINK(cap_Bps, DOUBLE),
	LINK(lat_s, DOUBLE),
};

#undef LINK

static void
switch_name(const struct ft_topo *t, const struct ft_vertex *v, uint32_t id, char *buf, size_t size)
{
	char pre[16] = "";

	switch (t->spec.fabric.kind) {
	case FT_FABRIC_DRAGONFLY:
		snprintf(buf, size, "router%" PRIu32 ".%" PRIu32, v->group, v->local);
		return;
	case FT_FABRIC_TORUS: {
		uint32_t i = id - t->switch_base, z = i % t->tor_dims[2];
		uint32_t y = i / t->tor_dims[2] % t->tor_dims[1];
		uint32_t x = i / (t->tor_dims[2] * t->tor_dims[1]);

		if (t->spec.fabric.ndims == 3)
			snprintf(buf, size, "sw%" PRIu32 ".%" PRIu32 ".%" PRIu32, x, y, z);
		else
			snprintf(buf, size, "sw%" PRIu32 ".%" PRIu32, x, y);
		return;
	}
	default:
		break;
	}
	if (t->ntrees > 1)
		snprintf(pre, sizeof(pre), "p%u.", (unsigned)v->plane);
	if (v->tier == 1)
		snprintf(buf, size, "%sleaf%" PRIu32, pre, v->local);
	else if (v->tier == 2 && t->trees[v->plane].core_groups == 0)
		snprintf(buf, size, "%sspine%" PRIu32, pre, v->local);
	else
		snprintf(buf, size, "%s%s%" PRIu32 ".%" PRIu32, pre,
		         v->tier == 2 ? "spine" : "core", v->group, v->local);
}

void
ft_topo_vertex_name(const struct ft_topo *t, uint32_t id, char *buf, size_t size)
{
	const struct ft_vertex *v;

	if (!size)
		return;
	if (!t || id >= t->nv) {
		snprintf(buf, size, "?");
		return;
	}
	v = &t->v[id];
	switch (v->kind) {
	case FT_V_SWITCH:
		switch_name(t, v, id, buf, size);
		break;
	case FT_V_NVSWITCH:
		snprintf(buf, size, "n%" PRIu32 ".nvswitch", v->node);
		break;
	case FT_V_PCIE_SWITCH:
		snprintf(buf, size, "n%" PRIu32 ".pcie%" PRIu32, v->node, v->local);
		break;
	default:
		snprintf(buf, size, "n%" PRIu32 ".%s%" PRIu32, v->node,
		         ft_vertex_kind_name((enum ft_vertex_kind)v->kind), v->local);
		break;
	}
}

/* Parse a decimal index at *@s, advancing it. */
static bool
parse_index(const char **s, uint32_t *out)
{
	uint64_t v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > UINT32_MAX)
			return false;
		p++;
	}
	*s = p;
	*out = (uint32_t)v;
	return true;
}

int
ft_topo_vertex_find(const struct ft_topo *t, const char *name, uint32_t *id)
{
	static const struct {
		const char *prefix;
		enum ft_vertex_kind kind;
	} kinds[] = {
		{ "gpu", FT_V_GPU }, { "nic", FT_V_NIC },           { "pcie", FT_V_PCIE_SWITCH },
		{ "cpu", FT_V_CPU }, { "nvswitch", FT_V_NVSWITCH },
	};
	const struct ft_node_layout *nl;
	const char *p = name;
	uint32_t node, idx = 0, first, count;

	if (!t || !name || !id)
		return FT_EINVAL;
	if (*p++ != 'n' || !parse_index(&p, &node) || *p++ != '.')
		return FT_EPARSE;
	for (size_t k = 0; k < FT_ARRAY_SIZE(kinds); k++) {
		size_t len = strlen(kinds[k].prefix);

		if (strncmp(p, kinds[k].prefix, len) != 0)
			continue;
		p += len;
		if (kinds[k].kind != FT_V_NVSWITCH && !parse_index(&p, &idx))
			return FT_EPARSE;
		if (*p != '\0')
			return FT_EPARSE;
		if (node >= t->spec.nnodes)
			return FT_ENOENT;
		nl = ft__topo_node_nl(t, node);
		switch (kinds[k].kind) {
		case FT_V_GPU:
			first = nl->gpu0, count = nl->ngpus;
			break;
		case FT_V_NIC:
			first = nl->nic0, count = nl->nnics;
			break;
		case FT_V_PCIE_SWITCH:
			first = nl->pcie0, count = nl->npcie;
			break;
		case FT_V_CPU:
			first = nl->cpu0, count = nl->ncpus;
			break;
		default:
			first = nl->nvs, count = nl->nvs == UINT32_MAX ? 0 : 1;
			break;
		}
		if (idx >= count)
			return FT_ENOENT;
		*id = ft__topo_node_base(t, node) + first + idx;
		return 0;
	}
	return FT_EPARSE;
}

static const char *
dot_shape(unsigned kind)
{
	switch (kind) {
	case FT_V_GPU:
		return "box";
	case FT_V_NIC:
		return "ellipse";
	case FT_V_CPU:
		return "octagon";
	case FT_V_SWITCH:
		return "diamond";
	default:
		return "hexagon";
	}
}

int
ft_topo_export_dot(const struct ft_topo *t, struct ft_strbuf *out)
{
	char a[48], b[48], rate[32];

	if (!t || !out)
		return FT_EINVAL;
	ft_strbuf_addf(out, "graph \"%s\" {\n", t->spec.name[0] ? t->spec.name : "cluster");
	ft_strbuf_adds(out, "\tnode [fontsize=10];\n");
	for (uint32_t v = 0; v < t->nv; v++) {
		ft_topo_vertex_name(t, v, a, sizeof(a));
		ft_strbuf_addf(out, "\t\"%s\" [shape=%s];\n", a, dot_shape(t->v[v].kind));
	}
	for (uint32_t l = 0; l < t->nl; l++) {
		const struct ft_link *k = &t->l[l];

		if (k->rev < l)
			continue;
		ft_topo_vertex_name(t, k->src, a, sizeof(a));
		ft_topo_vertex_name(t, k->dst, b, sizeof(b));
		ft_format_rate_bytes(k->cap_Bps, rate, sizeof(rate));
		ft_strbuf_addf(out, "\t\"%s\" -- \"%s\" [label=\"%s %s\"];\n", a, b,
		               ft_link_kind_name((enum ft_link_kind)k->kind), rate);
	}
	ft_strbuf_adds(out, "}\n");
	return out->oom ? FT_ENOMEM : 0;
}

int
ft_topo_export_json(const struct ft_topo *t, struct ft_strbuf *out)
{
	struct ft_json j;
	char name[48];

	if (!t || !out)
		return FT_EINVAL;
	ft_json_init(&j, out, false);
	ft_json_obj_begin(&j);
	ft_json_kv_str(&j, "name", t->spec.name);
	ft_json_key(&j, "vertices");
	ft_json_arr_begin(&j);
	for (uint32_t v = 0; v < t->nv; v++) {
		const struct ft_vertex *x = &t->v[v];

		ft_topo_vertex_name(t, v, name, sizeof(name));
		ft_json_obj_begin(&j);
		ft_json_kv_uint(&j, "id", v);
		ft_json_kv_str(&j, "name", name);
		ft_json_kv_str(&j, "kind", ft_vertex_kind_name((enum ft_vertex_kind)x->kind));
		ft_json_kv_uint(&j, "tier", x->tier);
		ft_json_kv_uint(&j, "plane", x->plane);
		if (x->node == FT_NO_NODE) {
			ft_json_key(&j, "node");
			ft_json_null(&j);
		} else {
			ft_json_kv_uint(&j, "node", x->node);
		}
		ft_json_kv_uint(&j, "local", x->local);
		ft_json_kv_uint(&j, "group", x->group);
		ft_json_obj_end(&j);
	}
	ft_json_arr_end(&j);
	ft_json_key(&j, "links");
	ft_json_arr_begin(&j);
	for (uint32_t l = 0; l < t->nl; l++) {
		const struct ft_link *k = &t->l[l];

		ft_json_obj_begin(&j);
		ft_json_kv_uint(&j, "id", l);
		ft__json_fields(&j, k, link_ends, FT_ARRAY_SIZE(link_ends));
		ft_json_kv_str(&j, "kind", ft_link_kind_name((enum ft_link_kind)k->kind));
		ft__json_fields(&j, k, link_figures, FT_ARRAY_SIZE(link_figures));
		ft_json_obj_end(&j);
	}
	ft_json_arr_end(&j);
	ft_json_obj_end(&j);
	ft_strbuf_addch(out, '\n');
	return out->oom ? FT_ENOMEM : 0;
}

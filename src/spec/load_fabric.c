/* SPDX-License-Identifier: MIT */
/*
 * spec/load_fabric.c - the fabric section of a spec: its kind, the keys
 * each kind accepts and requires, and the defaults that fill the rest (link
 * from the NICs, the fewest tiers that hold the nodes, the routing of the
 * kind) (docs/spec.md, "fabric").
 */
#include "internal.h"
#include "load_int.h"

#include <fabtune/spec.h>
#include <fabtune/units.h>

/* ---- fabric ------------------------------------------------------------------------------- */

#define FAB (&L->spec->fabric)

static int
f_link(struct loader *L, yaml_node_t *v, const char *path)
{
	const char *s = ft__spec_scalar(v);

	L->given_link = true;
	if (!s || !ft_link_preset_find(s))
		return ft__spec_expected(
		        L, v, path,
		        "a link preset (hdr, ndr, xdr, roce100, roce200, roce400, roce800, spcx400, "
		        "efa100, tcpx200)");
	ft_strlcpy(FAB->link, s, sizeof(FAB->link));
	return 0;
}

static int
f_rate(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_rate = true;
	return ft__spec_get_rate(L, v, path, &FAB->link_Bps);
}

static int
f_lat_switch(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_lat_switch = true;
	return ft__spec_get_duration(L, v, path, &FAB->lat_switch_s);
}

static int
f_lat_cable(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_lat_cable = true;
	return ft__spec_get_duration(L, v, path, &FAB->lat_cable_s);
}

static int
f_mtu(struct loader *L, yaml_node_t *v, const char *path)
{
	uint32_t m;
	int rc = ft__spec_get_u32(L, v, path, 256, 4096, &m);

	L->given_mtu = true;
	if (rc < 0)
		return rc;
	if (m & (m - 1))
		return ft__spec_expected(L, v, path,
		                         "an MTU of 256, 512, 1024, 2048 or 4096 bytes");
	L->spec->fabric.mtu_bytes = m;
	return 0;
}

static int
f_routing(struct loader *L, yaml_node_t *v, const char *path)
{
	const char *s = ft__spec_scalar(v);

	L->given_routing = true;
	if (!s || ft_routing_from_name(s, &FAB->routing) < 0)
		return ft__spec_expected(L, v, path, ft__spec_routing_names());
	return 0;
}

static int
f_sharp(struct loader *L, yaml_node_t *v, const char *path)
{
	return ft__spec_get_bool(L, v, path, &FAB->sharp);
}

static int
f_tiers(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_tiers = true;
	return ft__spec_get_u32(L, v, path, 2, 3, &FAB->tiers);
}

static int
f_radix(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_radix = true;
	return ft__spec_get_u32(L, v, path, 4, 1024, &FAB->radix);
}

/* 1, 2.5, or "2:1" (down:up). */
static int
f_over(struct loader *L, yaml_node_t *v, const char *path)
{
	const char *s = ft__spec_scalar(v), *colon;
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
	return ft__spec_expected(L, v, path, "a down:up ratio of at least 1, like 1, 2 or \"3:1\"");
}

static int
f_unit(struct loader *L, yaml_node_t *v, const char *path)
{
	L->given_unit = true;
	return ft__spec_get_u32(L, v, path, 1, 1024, &FAB->nodes_per_unit);
}

static int
f_planes(struct loader *L, yaml_node_t *v, const char *path)
{
	return ft__spec_get_u32(L, v, path, 1, FT_SPEC_MAX_NICS, &FAB->planes);
}

static int
f_groups(struct loader *L, yaml_node_t *v, const char *path)
{
	return ft__spec_get_u32(L, v, path, 2, 100000, &FAB->groups);
}

static int
f_rpg(struct loader *L, yaml_node_t *v, const char *path)
{
	return ft__spec_get_u32(L, v, path, 1, 1024, &FAB->routers_per_group);
}

static int
f_npr(struct loader *L, yaml_node_t *v, const char *path)
{
	return ft__spec_get_u32(L, v, path, 1, 1024, &FAB->nodes_per_router);
}

static int
f_glpr(struct loader *L, yaml_node_t *v, const char *path)
{
	return ft__spec_get_u32(L, v, path, 1, 1024, &FAB->global_links_per_router);
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
		return ft__spec_expected(L, v, path, "a list of 2 or 3 ring sizes like [8, 8, 8]");
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, n++) {
		e = yaml_document_get_node(L->doc, *it);
		if (n >= 3)
			return ft__spec_expected(L, e, path, "2 or 3 dimensions");
		snprintf(sub, sizeof(sub), "%s[%u]", path, n);
		ft__spec_remember(L, sub, &e->start_mark);
		rc = ft__spec_get_u32(L, e, sub, 2, 1024, &FAB->dims[n]);
		if (rc < 0)
			return rc;
	}
	if (n < 2)
		return ft__spec_expected(L, v, path, "2 or 3 dimensions");
	FAB->ndims = n;
	return 0;
}

static int
f_nps(struct loader *L, yaml_node_t *v, const char *path)
{
	return ft__spec_get_u32(L, v, path, 0, 1024, &FAB->nodes_per_switch);
}

static const struct field fabric_fields[] = {
	{ "kind", NULL, 0 },
	{ "link", f_link, 0 },
	{ "rate", f_rate, 0 },
	{ "switch_latency", f_lat_switch, 0 },
	{ "cable_latency", f_lat_cable, 0 },
	{ "mtu", f_mtu, 0 },
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
		if (ft__spec_lookup(L->doc, fab, keys[i]))
			continue;
		snprintf(path, sizeof(path), "fabric.%s", keys[i]);
		return ft__spec_perr(L, &fab->start_mark, FT_EPARSE, path,
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
		if (!L->given_mtu)
			f->mtu_bytes = lp->mtu_bytes;
	} else if (!L->given_rate) {
		return ft__spec_perr(L, &fab->start_mark, FT_EPARSE, "fabric.rate",
		                     "expected a link: preset or a rate: (the NICs name no link "
		                     "preset), got nothing");
	}
	if (!f->mtu_bytes)
		f->mtu_bytes = 4096; /* IB-MTU: the size NCCL traffic should run at */
	if (!L->given_routing)
		f->routing = ft__spec_default_routing(f->kind, lp);
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
			/* The fewest tiers that hold the nodes (3 if none: the check says so). */
			for (f->tiers = 2; f->tiers < 3; f->tiers++)
				if (L->spec->nnodes <= ft_spec_fabric_capacity(L->spec))
					break;
		}
	}
	return 0;
}

int
ft__spec_parse_fabric(struct loader *L, yaml_node_t *fab)
{
	yaml_node_t *kv;
	const char *s;
	int rc;

	s = ft__spec_scalar(fab);
	if (s && strcmp(s, "none") == 0) {
		FAB->kind = FT_FABRIC_NONE;
		return 0;
	}
	if (fab->type != YAML_MAPPING_NODE)
		return ft__spec_expected(L, fab, "fabric", "a mapping (kind, link, ...) or none");
	kv = ft__spec_lookup(L->doc, fab, "kind");
	if (!kv)
		return ft__spec_perr(L, &fab->start_mark, FT_EPARSE, "fabric.kind",
		                     "expected %s, got nothing", ft__spec_kind_names());
	s = ft__spec_scalar(kv);
	if (!s || ft__spec_kind_from_name(s, &FAB->kind) < 0)
		return ft__spec_expected(L, kv, "fabric.kind", ft__spec_kind_names());
	if (FAB->kind == FT_FABRIC_NONE) {
		if (fab->data.mapping.pairs.top - fab->data.mapping.pairs.start > 1)
			return ft__spec_perr(
			        L, &fab->start_mark, FT_EPARSE, "fabric",
			        "expected only kind: for a fabric of kind none, got more keys");
		return 0;
	}
	rc = ft__spec_walk(L, fab, "fabric", fabric_fields, FT_ARRAY_SIZE(fabric_fields),
	                   KIND_BIT(FAB->kind), ft_fabric_kind_name(FAB->kind));
	if (rc < 0)
		return rc;
	rc = require_fabric_fields(L, fab);
	if (rc < 0)
		return rc;
	return finish_fabric(L, fab);
}

#undef FAB

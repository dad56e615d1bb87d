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
	return ft__spec_get_link(L, v, path, FAB->link, sizeof(FAB->link));
}

static int
f_mtu(struct loader *L, yaml_node_t *v, const char *path)
{
	uint32_t m;
	int rc = ft__spec_get_u32(L, v, path, 256, 4096, &m);

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

	if (!s || ft_routing_from_name(s, &FAB->routing) < 0)
		return ft__spec_expected(L, v, path, ft__spec_routing_names());
	return 0;
}

/* 1, 2.5, or "2:1" (down:up). */
static int
f_over(struct loader *L, yaml_node_t *v, const char *path)
{
	const char *s = ft__spec_scalar(v), *colon;
	char num[32];
	double a, b;
	size_t len;

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
f_dims(struct loader *L, yaml_node_t *v, const char *path)
{
	int rc = ft__spec_get_u32_list(L, v, path, "a list of 2 or 3 ring sizes like [8, 8, 8]",
	                               "2 or 3 dimensions", 3, 2, 1024, FAB->dims, &FAB->ndims);

	if (rc == 0 && FAB->ndims < 2)
		return ft__spec_expected(L, v, path, "2 or 3 dimensions");
	return rc;
}

#define DRAGONFLY        KIND_BIT(FT_FABRIC_DRAGONFLY)
#define U32(m, min, max) .doc = { "", FT__DOC_U32, SPEC_AT(fabric.m), .lo = min, .hi = max }

static const struct field fabric_fields[] = {
	{ "kind", NULL, 0 },
	{ "link", f_link, 0, GIVEN(given_link) },
	{ "rate", .doc = { "", FT__DOC_RATE, SPEC_AT(fabric.link_Bps) }, GIVEN(given_rate) },
	{ "switch_latency", SPEC_DURATION(fabric.lat_switch_s), GIVEN(given_lat_switch) },
	{ "cable_latency", SPEC_DURATION(fabric.lat_cable_s), GIVEN(given_lat_cable) },
	{ "mtu", f_mtu, 0, GIVEN(given_mtu) },
	{ "routing", f_routing, 0, GIVEN(given_routing) },
	{ "sharp", .kinds = FAT_KINDS, .doc = { "", FT__DOC_BOOL, SPEC_AT(fabric.sharp) } },
	{ "tiers", .kinds = FAT_KINDS, U32(tiers, 2, 3), GIVEN(given_tiers) },
	{ "radix", .kinds = FAT_KINDS | DRAGONFLY, U32(radix, 4, 1024), GIVEN(given_radix) },
	{ "oversubscription", f_over, FAT_KINDS, GIVEN(given_over) },
	{ "nodes_per_unit", .kinds = KIND_BIT(FT_FABRIC_RAIL_FAT_TREE),
	  U32(nodes_per_unit, 1, 1024), GIVEN(given_unit) },
	{ "planes", .kinds = KIND_BIT(FT_FABRIC_MULTI_PLANE), U32(planes, 1, FT_SPEC_MAX_NICS) },
	{ "groups", .kinds = DRAGONFLY, U32(groups, 2, 100000) },
	{ "routers_per_group", .kinds = DRAGONFLY, U32(routers_per_group, 1, 1024) },
	{ "nodes_per_router", .kinds = DRAGONFLY, U32(nodes_per_router, 1, 1024) },
	{ "global_links_per_router", .kinds = DRAGONFLY, U32(global_links_per_router, 1, 1024) },
	{ "dims", f_dims, KIND_BIT(FT_FABRIC_TORUS) },
	{ "nodes_per_switch", .kinds = KIND_BIT(FT_FABRIC_TORUS), U32(nodes_per_switch, 0, 1024) },
};

#undef U32
#undef DRAGONFLY

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

/* SPDX-License-Identifier: MIT */
/*
 * spec/names.c - the spelling of fabric kinds, routings and link
 * technologies in specs, output and JSON, from one table each.
 */
#include "internal.h"
#include "spec_int.h"

#include <fabtune/spec.h>


#define KIND_MAP(X)                                 \
	X(FT_FABRIC_NONE, "none")                   \
	X(FT_FABRIC_FAT_TREE, "fat-tree")           \
	X(FT_FABRIC_RAIL_FAT_TREE, "rail-fat-tree") \
	X(FT_FABRIC_MULTI_PLANE, "multi-plane")     \
	X(FT_FABRIC_DRAGONFLY, "dragonfly")         \
	X(FT_FABRIC_TORUS, "torus")

#define ROUTING_MAP(X)                     \
	X(FT_ROUTING_ECMP, "ecmp")         \
	X(FT_ROUTING_DMODK, "dmodk")       \
	X(FT_ROUTING_ADAPTIVE, "adaptive") \
	X(FT_ROUTING_MINIMAL, "minimal")   \
	X(FT_ROUTING_VALIANT, "valiant")   \
	X(FT_ROUTING_DOR, "dor")           \
	X(FT_ROUTING_MINHOP, "minhop")

#define NAME_ENTRY(e, s) [e] = s,
static const char *const kind_names[] = { KIND_MAP(NAME_ENTRY) };
static const char *const routing_names[] = { ROUTING_MAP(NAME_ENTRY) };
#undef NAME_ENTRY

_Static_assert(FT_ARRAY_SIZE(kind_names) == FT_FABRIC_KIND_COUNT, "a fabric kind has no name");
_Static_assert(FT_ARRAY_SIZE(routing_names) == FT_ROUTING_COUNT, "a routing has no name");

const char *
ft_fabric_kind_name(enum ft_fabric_kind k)
{
	return (unsigned)k < FT_ARRAY_SIZE(kind_names) ? kind_names[k] : "?";
}

const char *
ft_routing_name(enum ft_routing r)
{
	return (unsigned)r < FT_ARRAY_SIZE(routing_names) ? routing_names[r] : "?";
}

const char *
ft_link_tech_name(enum ft_link_tech t)
{
	switch (t) {
	case FT_TECH_IB:
		return "infiniband";
	case FT_TECH_ROCE:
		return "roce";
	case FT_TECH_EFA:
		return "efa";
	case FT_TECH_TCP:
		return "tcp";
	}
	return "?";
}

const char *
ft_cpu_vendor_name(enum ft_cpu_vendor v)
{
	switch (v) {
	case FT_CPU_VENDOR_INTEL:
		return "intel";
	case FT_CPU_VENDOR_AMD:
		return "amd";
	case FT_CPU_VENDOR_UNKNOWN:
		break;
	}
	return "unknown";
}

const char *
ft_gpu_attach_name(enum ft_gpu_attach a)
{
	switch (a) {
	case FT_GPU_ATTACH_PCIE:
		return "pcie";
	case FT_GPU_ATTACH_C2C:
		return "c2c";
	case FT_GPU_ATTACH_AUTO:
		break;
	}
	return "auto";
}

/* NVLink 4 is Hopper's, 5 Blackwell's (the model's arch_of(), src/model/links.c). */
bool
ft_node_gpu_c2c(const struct ft_node_spec *n)
{
	if (n->gpu_attach != FT_GPU_ATTACH_AUTO)
		return n->gpu_attach == FT_GPU_ATTACH_C2C;
	return n->host_arm && n->nvlink_gen >= 4;
}

FT__NAME_SET(ft__spec_routings, routing_names);
FT__NAME_SET(ft__spec_kinds, kind_names);
/*
 * "updn" names minhop: on a fat tree OpenSM's updn engine ranks the switches from the
 * roots (the top tier) and keeps, among the min-hop ports, those of up*-down* paths,
 * which on a fat tree are all of them; the port it picks among them is minhop's
 * (linux-rdma/opensm osm_ucast_updn.c updn_lid_matrices() gives hop counts only; the
 * tables are osm_ucast_mgr.c ucast_mgr_build_lfts()'s, minhop's; kb IB-SM).
 */
int
ft_routing_from_name(const char *name, enum ft_routing *out)
{
	int v;

	if (name && strcmp(name, "updn") == 0) {
		*out = FT_ROUTING_MINHOP;
		return 0;
	}
	if (ft__name_lookup(&ft__spec_routings, name, &v) < 0)
		return FT_ENOENT;
	*out = (enum ft_routing)v;
	return 0;
}
FT__FROM_NAME(ft__spec_kind_from_name, enum ft_fabric_kind, ft__spec_kinds, FT_ENOENT)

int
ft_routing_from_arg(const char *opt, const char *name, enum ft_routing *out, struct ft_error *err)
{
	int v, rc;

	if (name && strcmp(name, "updn") == 0) {
		*out = FT_ROUTING_MINHOP; /* ft_routing_from_name() */
		return 0;
	}
	rc = ft__name_read(&ft__spec_routings, opt, name, -1, &v, err);
	if (rc == 0)
		*out = (enum ft_routing)v;
	return rc;
}

const char *
ft__spec_kind_names(void)
{
	return "fat-tree, rail-fat-tree, multi-plane, dragonfly, torus or none";
}

const char *
ft__spec_routing_names(void)
{
	return "ecmp, dmodk, minhop, updn, adaptive, minimal, valiant or dor";
}

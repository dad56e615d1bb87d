/* SPDX-License-Identifier: MIT */
/*
 * spec/validate.c - consistency checks of a filled cluster spec, and the
 * capacity arithmetic of the fabrics.
 *
 * ft__spec_check() names the offending field by its dotted path in the
 * spec format (docs/spec.md), so that the loader can point at its line and
 * column and ft_spec_validate() can name it for specs built in code.
 */
#include "internal.h"
#include "spec_int.h"

#include <fabtune/spec.h>

static int FT_PRINTF(5, 6) fail(char field[FT_SPEC_FIELD_MAX], struct ft_error *err, int code,
                                const char *path, const char *fmt, ...)
{
	va_list ap;

	ft_strlcpy(field, path, FT_SPEC_FIELD_MAX);
	va_start(ap, fmt);
	code = ft_error_setv(err, code, fmt, ap);
	va_end(ap);
	return code;
}

/* Same, with an index appended to the path: "nodes.placement.gpu_nic[3]". */
static int FT_PRINTF(6, 7) fail_at(char field[FT_SPEC_FIELD_MAX], struct ft_error *err, int code,
                                   const char *path, uint32_t i, const char *fmt, ...)
{
	va_list ap;

	snprintf(field, FT_SPEC_FIELD_MAX, "%s[%u]", path, i);
	va_start(ap, fmt);
	code = ft_error_setv(err, code, fmt, ap);
	va_end(ap);
	return code;
}

static bool
is_pos(double x)
{
	return isfinite(x) && x > 0;
}

static bool
is_nonneg(double x)
{
	return isfinite(x) && x >= 0;
}

static bool
is_lane_width(uint32_t w)
{
	return w == 1 || w == 2 || w == 4 || w == 8 || w == 16;
}

/* ---- capacity ----------------------------------------------------------------------------- */

void
ft_spec_leaf_ports(const struct ft_fabric_spec *f, uint32_t *down, uint32_t *up)
{
	double o = f->oversubscription >= 1 && isfinite(f->oversubscription) ? f->oversubscription :
	                                                                       1.0;
	uint32_t d;

	/* Round down: never more oversubscribed than asked. 1e-9 absorbs 64*3/4 = 47.999.. */
	d = (uint32_t)floor((double)f->radix * o / (1.0 + o) + 1e-9);
	if (d > f->radix)
		d = f->radix;
	*down = d;
	*up = f->radix - d;
}

/*
 * Host ports of a folded Clos of f->tiers levels (IB-SM: fat-trees). Two
 * tiers: at most radix leaves (one link from each leaf to each of its "up"
 * spines), each with "down" host ports. Three tiers: up to radix pods of
 * radix/2 leaves under radix/2 aggregation switches (non-blocking above the
 * leaf). The non-blocking 2-tier and 3-tier figures are k^2/2 and k^3/4.
 */
static uint64_t
fat_tree_ports(const struct ft_fabric_spec *f)
{
	uint32_t down, up;
	uint64_t ports;

	ft_spec_leaf_ports(f, &down, &up);
	if (up == 0 || f->tiers < 2 || f->tiers > 3)
		return 0;
	ports = (uint64_t)f->radix * down;
	if (f->tiers == 3)
		ports *= f->radix / 2;
	return ports;
}

uint64_t
ft_spec_fabric_capacity(const struct ft_cluster_spec *s)
{
	const struct ft_fabric_spec *f = &s->fabric;
	uint32_t nics = s->node.nnics, per_plane;
	uint64_t v;

	switch (f->kind) {
	case FT_FABRIC_NONE:
		return 1;
	case FT_FABRIC_FAT_TREE:
	case FT_FABRIC_RAIL_FAT_TREE:
		return nics ? fat_tree_ports(f) / nics : 0;
	case FT_FABRIC_MULTI_PLANE:
		per_plane = f->planes ? nics / f->planes : 0;
		return per_plane ? fat_tree_ports(f) / per_plane : 0;
	case FT_FABRIC_DRAGONFLY:
		return (uint64_t)f->groups * f->routers_per_group * f->nodes_per_router;
	case FT_FABRIC_TORUS:
		if (f->ndims < 2 || f->ndims > 3)
			return 0;
		v = (uint64_t)f->dims[0] * f->dims[1] * (f->ndims == 3 ? f->dims[2] : 1);
		return v * (f->nodes_per_switch ? f->nodes_per_switch : 1);
	case FT_FABRIC_KIND_COUNT:
		break;
	}
	return 0;
}

/* ---- node --------------------------------------------------------------------------------- */

static int
check_nvlink(const struct ft_node_spec *n, char *field, struct ft_error *err)
{
	if (n->nvlink_gen > 5)
		return fail(field, err, FT_ERANGE, "nodes.nvlink.gen",
		            "expected an NVLink generation from 1 to 5 (or none), got %u",
		            n->nvlink_gen);
	if (n->nvlink_gen == 0) {
		if (n->nvlink_Bps != 0)
			return fail(field, err, FT_EINVAL, "nodes.nvlink.bandwidth",
			            "expected no NVLink bandwidth on a node without NVLink, "
			            "got %g bytes/s",
			            n->nvlink_Bps);
		if (n->nvswitch)
			return fail(field, err, FT_EINVAL, "nodes.nvlink.nvswitch",
			            "expected false on a node without NVLink, got true");
		if (n->nvls)
			return fail(field, err, FT_EINVAL, "nodes.nvlink.nvls",
			            "expected false on a node without NVLink, got true");
		return 0;
	}
	if (!is_pos(n->nvlink_Bps))
		return fail(field, err, FT_ERANGE, "nodes.nvlink.bandwidth",
		            "expected a positive rate per GPU and direction, got %g bytes/s",
		            n->nvlink_Bps);
	if (!is_nonneg(n->lat_nvlink_s))
		return fail(field, err, FT_ERANGE, "nodes.nvlink.latency",
		            "expected a duration >= 0, got %g s", n->lat_nvlink_s);
	if (n->nvls && !n->nvswitch)
		return fail(field, err, FT_EINVAL, "nodes.nvlink.nvls",
		            "expected false without nvswitch (NVLink SHARP runs in NVSwitch), "
		            "got true");
	if (n->nvlink_domain_nodes > 1 && !n->nvswitch)
		return fail(field, err, FT_EINVAL, "nodes.nvlink.domain_nodes",
		            "expected 1 without nvswitch (a domain across nodes runs through NVLink "
		            "switches), got %u",
		            n->nvlink_domain_nodes);
	/* NVLink SHARP arrived with the third-generation NVSwitch of Hopper (NA-ALGO-NVLS). */
	if (n->nvls && n->nvlink_gen < 4)
		return fail(field, err, FT_EINVAL, "nodes.nvlink.nvls",
		            "expected false before NVLink 4 (NVLink SHARP needs Hopper's "
		            "NVSwitch), got true with NVLink %u",
		            n->nvlink_gen);
	return 0;
}

static int
check_pcie(const struct ft_node_spec *n, char *field, struct ft_error *err)
{
	if (n->pcie_gen < 1 || n->pcie_gen > 6)
		return fail(field, err, FT_ERANGE, "nodes.pcie.gen",
		            "expected a PCIe generation from 1 to 6, got %u", n->pcie_gen);
	if (!is_lane_width(n->pcie_width_gpu))
		return fail(field, err, FT_ERANGE, "nodes.pcie.gpu_width",
		            "expected 1, 2, 4, 8 or 16 lanes, got %u", n->pcie_width_gpu);
	if (n->nnics && !is_lane_width(n->pcie_width_nic))
		return fail(field, err, FT_ERANGE, "nodes.pcie.nic_width",
		            "expected 1, 2, 4, 8 or 16 lanes, got %u", n->pcie_width_nic);
	if (!is_pos(n->pcie_Bps_gpu))
		return fail(field, err, FT_ERANGE, "nodes.pcie.gpu_bandwidth",
		            "expected a positive rate, got %g bytes/s", n->pcie_Bps_gpu);
	if (n->nnics && !is_pos(n->pcie_Bps_nic))
		return fail(field, err, FT_ERANGE, "nodes.pcie.nic_bandwidth",
		            "expected a positive rate, got %g bytes/s", n->pcie_Bps_nic);
	if (!is_nonneg(n->lat_pcie_s))
		return fail(field, err, FT_ERANGE, "nodes.pcie.latency",
		            "expected a duration >= 0, got %g s", n->lat_pcie_s);
	if (n->npcie_switches > FT_SPEC_MAX_PCIE_SWITCHES)
		return fail(field, err, FT_ERANGE, "nodes.pcie.switches",
		            "expected at most %d PCIe switches, got %u", FT_SPEC_MAX_PCIE_SWITCHES,
		            n->npcie_switches);
	return 0;
}

/* Placement of GPU/NIC @i: switch index in range, NUMA domain that of its switch. */
static int
check_device(const struct ft_node_spec *n, const char *what, uint32_t i, uint32_t sw, uint32_t numa,
             char *field, struct ft_error *err)
{
	char path[48];

	snprintf(path, sizeof(path), "nodes.placement.%s_pcie_switch", what);
	if (n->npcie_switches == 0 && sw != 0)
		return fail_at(field, err, FT_ERANGE, path, i,
		               "expected 0 on a node without PCIe switches, got %u", sw);
	if (n->npcie_switches && sw >= n->npcie_switches)
		return fail_at(field, err, FT_ERANGE, path, i,
		               "expected a PCIe switch index below %u, got %u", n->npcie_switches,
		               sw);
	snprintf(path, sizeof(path), "nodes.placement.%s_numa", what);
	if (numa >= n->nnuma)
		return fail_at(field, err, FT_ERANGE, path, i,
		               "expected a NUMA domain below %u, got %u", n->nnuma, numa);
	if (n->npcie_switches && numa != n->pcie_switch_numa[sw])
		return fail_at(field, err, FT_EINVAL, path, i,
		               "expected %u (the NUMA domain of its PCIe switch %u), got %u",
		               n->pcie_switch_numa[sw], sw, numa);
	return 0;
}

static int
check_placement(const struct ft_node_spec *n, char *field, struct ft_error *err)
{
	uint32_t i;
	int rc;

	for (i = 0; i < n->npcie_switches; i++)
		if (n->pcie_switch_numa[i] >= n->nnuma)
			return fail_at(field, err, FT_ERANGE, "nodes.placement.pcie_switch_numa", i,
			               "expected a NUMA domain below %u, got %u", n->nnuma,
			               n->pcie_switch_numa[i]);
	for (i = 0; i < n->ngpus; i++) {
		rc = check_device(n, "gpu", i, n->gpu_pcie_switch[i], n->gpu_numa[i], field, err);
		if (rc < 0)
			return rc;
		if (n->nnics && n->nics_per_gpu > 1 && n->gpu_nic[i] + n->nics_per_gpu > n->nnics)
			return fail_at(field, err, FT_ERANGE, "nodes.placement.gpu_nic", i,
			               "GPU %u drives NICs %u to %u (nics.per_gpu %u), but the node "
			               "has %u",
			               i, n->gpu_nic[i], n->gpu_nic[i] + n->nics_per_gpu - 1,
			               n->nics_per_gpu, n->nnics);
		if (n->nnics && n->gpu_nic[i] >= n->nnics)
			return fail_at(field, err, FT_ERANGE, "nodes.placement.gpu_nic", i,
			               "expected a NIC index below %u, got %u", n->nnics,
			               n->gpu_nic[i]);
		if (!n->nnics && n->gpu_nic[i] != 0)
			return fail_at(field, err, FT_ERANGE, "nodes.placement.gpu_nic", i,
			               "expected 0 on a node without NICs, got %u", n->gpu_nic[i]);
	}
	for (i = 0; i < n->nnics; i++) {
		rc = check_device(n, "nic", i, n->nic_pcie_switch[i], n->nic_numa[i], field, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int
check_node(const struct ft_node_spec *n, char *field, struct ft_error *err)
{
	int rc;

	if (n->ngpus < 1 || n->ngpus > FT_SPEC_MAX_GPUS)
		return fail(field, err, FT_ERANGE, "nodes.gpus",
		            "expected 1 to %d GPUs per node, got %u", FT_SPEC_MAX_GPUS, n->ngpus);
	if (!is_pos(n->gpu_tflops))
		return fail(field, err, FT_ERANGE, "nodes.gpu_tflops",
		            "expected a positive dense FP16 TFLOP/s figure, got %g", n->gpu_tflops);
	if (!is_pos(n->gpu_mem_GB))
		return fail(field, err, FT_ERANGE, "nodes.gpu_memory",
		            "expected a positive memory size, got %g GB", n->gpu_mem_GB);
	/* FP8 tensor cores run at twice the 16-bit rate on every GPU that has them (TRAIN-GPU). */
	if (n->gpu_fp8_tflops != 0 && !(n->gpu_fp8_tflops >= n->gpu_tflops))
		return fail(field, err, FT_ERANGE, "nodes.gpu_fp8_tflops",
		            "expected 0 (no FP8) or at least the dense FP16 figure %g, got %g",
		            n->gpu_tflops, n->gpu_fp8_tflops);
	if (n->gpu_gemm_eff < 0 || n->gpu_gemm_eff > 1)
		return fail(field, err, FT_ERANGE, "nodes.gpu_gemm_efficiency",
		            "expected a share of the dense peak in (0, 1], got %g", n->gpu_gemm_eff);
	rc = check_nvlink(n, field, err);
	if (rc < 0)
		return rc;
	rc = check_pcie(n, field, err);
	if (rc < 0)
		return rc;
	if (n->nnuma < 1 || n->nnuma > 64)
		return fail(field, err, FT_ERANGE, "nodes.numa.domains",
		            "expected 1 to 64 NUMA domains, got %u", n->nnuma);
	if (!is_nonneg(n->cpu_link_Bps) || (n->nnuma > 1 && n->cpu_link_Bps <= 0))
		return fail(field, err, FT_ERANGE, "nodes.numa.interconnect",
		            "expected a positive rate between NUMA domains, got %g bytes/s",
		            n->cpu_link_Bps);
	if (n->nnics > FT_SPEC_MAX_NICS)
		return fail(field, err, FT_ERANGE, "nodes.nics.count",
		            "expected at most %d NICs per node, got %u", FT_SPEC_MAX_NICS,
		            n->nnics);
	if (n->nnics) {
		if (n->nic_link[0] && !ft_link_preset_find(n->nic_link))
			return fail(field, err, FT_EINVAL, "nodes.nics.link",
			            "expected a link preset (hdr, ndr, xdr, roce100, roce200, "
			            "roce400, roce800, spcx400, efa100, tcpx200), got '%s'",
			            n->nic_link);
		if (!is_nonneg(n->lat_nic_s))
			return fail(field, err, FT_ERANGE, "nodes.nics.latency",
			            "expected a duration >= 0, got %g s", n->lat_nic_s);
		if (!is_pos(n->nic_Bps))
			return fail(field, err, FT_ERANGE, "nodes.nics.rate",
			            "expected a positive rate, got %g bytes/s", n->nic_Bps);
	}
	return check_placement(n, field, err);
}

/* ---- fabric ------------------------------------------------------------------------------- */

static bool
is_fat_tree_family(enum ft_fabric_kind k)
{
	return k == FT_FABRIC_FAT_TREE || k == FT_FABRIC_RAIL_FAT_TREE ||
	       k == FT_FABRIC_MULTI_PLANE;
}

static bool
routing_fits(enum ft_fabric_kind k, enum ft_routing r)
{
	if (r == FT_ROUTING_ADAPTIVE)
		return true;
	if (is_fat_tree_family(k))
		return r == FT_ROUTING_ECMP || r == FT_ROUTING_DMODK || r == FT_ROUTING_MINHOP;
	if (k == FT_FABRIC_DRAGONFLY)
		return r == FT_ROUTING_MINIMAL || r == FT_ROUTING_VALIANT;
	return r == FT_ROUTING_DOR;
}

static const char *
routing_expect(enum ft_fabric_kind k)
{
	if (is_fat_tree_family(k))
		return "ecmp, dmodk, minhop (updn) or adaptive";
	if (k == FT_FABRIC_DRAGONFLY)
		return "minimal, valiant or adaptive";
	return "dor or adaptive";
}

static int
check_fat_tree(const struct ft_cluster_spec *s, char *field, struct ft_error *err)
{
	const struct ft_fabric_spec *f = &s->fabric;
	uint32_t down, up, per_node = s->node.nnics;
	uint64_t ports, cap;

	if (f->tiers < 2 || f->tiers > 3)
		return fail(field, err, FT_ERANGE, "fabric.tiers", "expected 2 or 3 tiers, got %u",
		            f->tiers);
	if (f->radix < 4 || f->radix > 1024 || f->radix % 2)
		return fail(field, err, FT_ERANGE, "fabric.radix",
		            "expected an even number of switch ports from 4 to 1024, got %u",
		            f->radix);
	/* 0 is an unset field of a spec built in code: non-blocking. */
	if (!isfinite(f->oversubscription) || (f->oversubscription != 0 && f->oversubscription < 1))
		return fail(field, err, FT_ERANGE, "fabric.oversubscription",
		            "expected a down:up ratio of at least 1 (1 = non-blocking), got %g",
		            f->oversubscription);
	ft_spec_leaf_ports(f, &down, &up);
	if (up == 0 || down == 0)
		return fail(field, err, FT_ERANGE, "fabric.oversubscription",
		            "expected a ratio that leaves a radix-%u leaf both up and down ports, "
		            "got %g",
		            f->radix, f->oversubscription);
	if (f->kind == FT_FABRIC_MULTI_PLANE) {
		if (f->planes < 1 || f->planes > s->node.nnics || s->node.nnics % f->planes)
			return fail(field, err, FT_ERANGE, "fabric.planes",
			            "expected a divisor of the %u NICs per node, got %u",
			            s->node.nnics, f->planes);
		per_node = s->node.nnics / f->planes;
	} else if (f->planes > 1) {
		return fail(field, err, FT_EINVAL, "fabric.planes",
		            "expected 1 for a %s (planes are for multi-plane), got %u",
		            ft_fabric_kind_name(f->kind), f->planes);
	}
	if (f->kind == FT_FABRIC_RAIL_FAT_TREE &&
	    f->nodes_per_unit > down) /* 0: a unit is as many nodes as a leaf has down ports */
		return fail(
		        field, err, FT_ERANGE, "fabric.nodes_per_unit",
		        "expected at most %u nodes per scalable unit (the down ports of a leaf), "
		        "got %u",
		        down, f->nodes_per_unit);
	if (f->sharp && f->link[0]) {
		const struct ft_link_preset *lp = ft_link_preset_find(f->link);

		if (lp && lp->tech != FT_TECH_IB)
			return fail(field, err, FT_EINVAL, "fabric.sharp",
			            "expected false on a RoCE fabric (SHARP runs in InfiniBand "
			            "switches, IB-SHARP), got true");
	}
	ports = fat_tree_ports(f);
	cap = ft_spec_fabric_capacity(s);
	if (s->nnodes > cap)
		return fail(field, err, FT_ERANGE, "nodes.count",
		            "expected at most %" PRIu64 " nodes on a %u-tier %s of radix-%u "
		            "switches (%" PRIu64 " host ports%s, %u NICs per node%s), got %u",
		            cap, f->tiers, ft_fabric_kind_name(f->kind), f->radix, ports,
		            f->kind == FT_FABRIC_MULTI_PLANE ? " per plane" : "", per_node,
		            f->kind == FT_FABRIC_MULTI_PLANE ? " and plane" : "", s->nnodes);
	return 0;
}

static int
check_dragonfly(const struct ft_cluster_spec *s, char *field, struct ft_error *err)
{
	const struct ft_fabric_spec *f = &s->fabric;
	uint64_t need, cap;

	if (f->groups < 2)
		return fail(field, err, FT_ERANGE, "fabric.groups",
		            "expected at least 2 groups, got %u", f->groups);
	if (f->routers_per_group < 1)
		return fail(field, err, FT_ERANGE, "fabric.routers_per_group",
		            "expected at least 1 router per group, got %u", f->routers_per_group);
	if (f->nodes_per_router < 1)
		return fail(field, err, FT_ERANGE, "fabric.nodes_per_router",
		            "expected at least 1 node per router, got %u", f->nodes_per_router);
	if (f->global_links_per_router < 1)
		return fail(field, err, FT_ERANGE, "fabric.global_links_per_router",
		            "expected at least 1 global link per router, got %u",
		            f->global_links_per_router);
	/* Every pair of groups needs a global link: g <= a*h + 1 (Kim et al., dragonfly). */
	if ((uint64_t)f->groups > (uint64_t)f->routers_per_group * f->global_links_per_router + 1)
		return fail(field, err, FT_ERANGE, "fabric.groups",
		            "expected at most %" PRIu64
		            " groups (routers_per_group x global_links_per_router + 1, so that "
		            "every pair of groups is linked), got %u",
		            (uint64_t)f->routers_per_group * f->global_links_per_router + 1,
		            f->groups);
	if (f->radix) {
		need = (uint64_t)f->nodes_per_router * s->node.nnics + f->routers_per_group - 1 +
		       f->global_links_per_router;
		if (need > f->radix)
			return fail(field, err, FT_ERANGE, "fabric.radix",
			            "expected at least %" PRIu64
			            " router ports (nodes x NICs + local + global links), got %u",
			            need, f->radix);
	}
	cap = ft_spec_fabric_capacity(s);
	if (s->nnodes > cap)
		return fail(field, err, FT_ERANGE, "nodes.count",
		            "expected at most %" PRIu64
		            " nodes (groups x routers_per_group x nodes_per_router), got %u",
		            cap, s->nnodes);
	return 0;
}

static int
check_torus(const struct ft_cluster_spec *s, char *field, struct ft_error *err)
{
	const struct ft_fabric_spec *f = &s->fabric;
	uint64_t cap;
	uint32_t i;

	if (f->ndims < 2 || f->ndims > 3)
		return fail(field, err, FT_ERANGE, "fabric.dims",
		            "expected 2 or 3 dimensions, got %u", f->ndims);
	for (i = 0; i < f->ndims; i++)
		if (f->dims[i] < 2 || f->dims[i] > 1024)
			return fail_at(field, err, FT_ERANGE, "fabric.dims", i,
			               "expected a ring of 2 to 1024 vertices, got %u", f->dims[i]);
	if (f->nodes_per_switch > 1024)
		return fail(field, err, FT_ERANGE, "fabric.nodes_per_switch",
		            "expected at most 1024 nodes per torus switch, got %u",
		            f->nodes_per_switch);
	cap = ft_spec_fabric_capacity(s);
	if (s->nnodes > cap)
		return fail(field, err, FT_ERANGE, "nodes.count",
		            "expected at most %" PRIu64 " nodes (%s), got %u", cap,
		            f->nodes_per_switch ? "torus vertices x nodes_per_switch" :
		                                  "one node per torus vertex",
		            s->nnodes);
	return 0;
}

static int
check_fabric(const struct ft_cluster_spec *s, char *field, struct ft_error *err)
{
	const struct ft_fabric_spec *f = &s->fabric;

	if ((unsigned)f->kind >= FT_FABRIC_KIND_COUNT)
		return fail(field, err, FT_EINVAL, "fabric.kind", "expected %s, got kind %d",
		            ft__spec_kind_names(), (int)f->kind);
	if (f->kind == FT_FABRIC_NONE) {
		if (s->nnodes != 1)
			return fail(field, err, FT_EINVAL, "fabric.kind",
			            "expected a fabric to join %u nodes, got none", s->nnodes);
		return 0;
	}
	if (s->node.nnics == 0)
		return fail(field, err, FT_EINVAL, "nodes.nics.count",
		            "expected at least 1 NIC per node to attach to a %s, got 0",
		            ft_fabric_kind_name(f->kind));
	if (f->link[0] && !ft_link_preset_find(f->link))
		return fail(field, err, FT_EINVAL, "fabric.link",
		            "expected a link preset (hdr, ndr, xdr, roce100, roce200, roce400, "
		            "roce800, spcx400, efa100, tcpx200), got '%s'",
		            f->link);
	if (f->link[0] && s->node.nic_link[0]) {
		const struct ft_link_preset *fl = ft_link_preset_find(f->link);
		const struct ft_link_preset *nl = ft_link_preset_find(s->node.nic_link);

		if (fl && nl && fl->tech != nl->tech)
			return fail(field, err, FT_EINVAL, "fabric.link",
			            "expected %s link like the NICs' %s (or set nodes.nics.link), "
			            "got %s",
			            nl->tech == FT_TECH_IB     ? "an InfiniBand" :
			            nl->tech == FT_TECH_ROCE   ? "an Ethernet (RoCE)" :
			            nl->tech == FT_TECH_EFA    ? "an EFA" :
			                                         "a TCP (GPUDirect-TCPX)",
			            nl->name, fl->name);
	}
	if (!is_pos(f->link_Bps))
		return fail(field, err, FT_ERANGE, "fabric.rate",
		            "expected a positive link rate, got %g bytes/s", f->link_Bps);
	if (!is_nonneg(f->lat_switch_s))
		return fail(field, err, FT_ERANGE, "fabric.switch_latency",
		            "expected a duration >= 0, got %g s", f->lat_switch_s);
	if (!is_nonneg(f->lat_cable_s))
		return fail(field, err, FT_ERANGE, "fabric.cable_latency",
		            "expected a duration >= 0, got %g s", f->lat_cable_s);
	if (f->mtu_bytes &&
	    (f->mtu_bytes < 256 || f->mtu_bytes > 4096 || (f->mtu_bytes & (f->mtu_bytes - 1))))
		return fail(field, err, FT_ERANGE, "fabric.mtu",
		            "expected an MTU of 256, 512, 1024, 2048 or 4096 bytes, got %u",
		            f->mtu_bytes);
	if ((unsigned)f->routing >= FT_ROUTING_COUNT || !routing_fits(f->kind, f->routing))
		return fail(field, err, FT_EINVAL, "fabric.routing", "expected %s for a %s, got %s",
		            routing_expect(f->kind), ft_fabric_kind_name(f->kind),
		            ft_routing_name(f->routing));
	if (f->routing == FT_ROUTING_MINHOP && ft__route_minhop_unfit(s))
		return fail(field, err, FT_EINVAL, "fabric.routing", "%s",
		            ft__route_minhop_unfit(s));
	if (f->sharp && !is_fat_tree_family(f->kind))
		return fail(field, err, FT_EINVAL, "fabric.sharp",
		            "expected false on a %s (SHARP aggregation trees need an InfiniBand "
		            "fat-tree), got true",
		            ft_fabric_kind_name(f->kind));
	if (is_fat_tree_family(f->kind))
		return check_fat_tree(s, field, err);
	if (f->kind == FT_FABRIC_DRAGONFLY)
		return check_dragonfly(s, field, err);
	return check_torus(s, field, err);
}

int
ft__spec_check(const struct ft_cluster_spec *s, char field[FT_SPEC_FIELD_MAX], struct ft_error *err)
{
	int rc;

	/* Names (cluster, GPU model) are descriptive: specs built in code may leave them empty. */
	field[0] = '\0';
	if (s->nnodes < 1)
		return fail(field, err, FT_ERANGE, "nodes.count",
		            "expected at least 1 node, got 0");
	rc = check_node(&s->node, field, err);
	if (rc < 0)
		return rc;
	if (s->ngroups == 1 || s->ngroups > FT_SPEC_MAX_GROUPS)
		return fail(field, err, FT_ERANGE, "nodes",
		            "expected 2 to %d node groups, got %u", FT_SPEC_MAX_GROUPS, s->ngroups);
	if (s->ngroups > 1) {
		uint64_t total = 0;

		for (uint32_t g = 0; g < s->ngroups; g++) {
			char sub[FT_SPEC_FIELD_MAX], path[2 * FT_SPEC_FIELD_MAX];

			rc = check_node(&s->groups[g].node, sub, err);
			if (rc < 0) {
				snprintf(path, sizeof(path), "nodes[%u]%s", g,
				         strncmp(sub, "nodes", 5) == 0 ? sub + 5 : sub);
				ft_strlcpy(field, path, FT_SPEC_FIELD_MAX);
				return rc;
			}
			if (s->fabric.kind != FT_FABRIC_NONE && s->groups[g].node.nnics == 0)
				return fail_at(field, err, FT_EINVAL, "nodes", g,
				               "expected at least 1 NIC per node to attach to a %s, "
				               "got 0",
				               ft_fabric_kind_name(s->fabric.kind));
			total += s->groups[g].count;
		}
		if (total != s->nnodes)
			return fail(field, err, FT_EINVAL, "nodes",
			            "expected the groups' counts to add up to %u nodes, got %llu",
			            s->nnodes, (unsigned long long)total);
	}
	return check_fabric(s, field, err);
}

int
ft__spec_check_node(const struct ft_node_spec *n, char field[FT_SPEC_FIELD_MAX],
                    struct ft_error *err)
{
	field[0] = '\0';
	return check_node(n, field, err);
}

const struct ft_node_spec *
ft_spec_node_at(const struct ft_cluster_spec *spec, uint32_t node)
{
	uint32_t g, first = 0;

	if (spec->ngroups < 2)
		return &spec->node;
	for (g = 0; g < spec->ngroups && g < FT_SPEC_MAX_GROUPS; g++) {
		if (node < first + spec->groups[g].count)
			return &spec->groups[g].node;
		first += spec->groups[g].count;
	}
	return &spec->groups[FT_MIN(spec->ngroups, FT_SPEC_MAX_GROUPS) - 1].node;
}

int
ft_spec_validate(const struct ft_cluster_spec *spec, struct ft_error *err)
{
	char field[FT_SPEC_FIELD_MAX];
	struct ft_error e = { 0 };
	int rc;

	if (!spec)
		return ft_error_set(err, FT_EINVAL, "no spec given");
	rc = ft__spec_check(spec, field, &e);
	if (rc < 0)
		return ft_error_set(err, rc, "%s%s%s: %s", spec->source[0] ? spec->source : "",
		                    spec->source[0] ? ": " : "", field, e.msg);
	return 0;
}

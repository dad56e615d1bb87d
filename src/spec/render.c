/* SPDX-License-Identifier: MIT */
/*
 * spec/render.c - a resolved cluster spec in words: every figure with its
 * unit as the terminal report, or as JSON; and the node and link presets as
 * tables or JSON.
 */
#include "spec_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <fabtune/json.h>
#include <fabtune/table.h>
#include <fabtune/units.h>

#include "base/fields.h"

static char *
rate_bytes(double Bps, char *buf, size_t len)
{
	return ft_format_rate_bytes(Bps, buf, len);
}

/* One row per GPU and NIC: its PCIe switch, NUMA domain and (for GPUs) its rail NIC. */
static void
text_placement(struct ft_strbuf *sb, const struct ft_node_spec *n)
{
	struct ft_table t;
	uint32_t i;

	ft_table_init(&t);
	t.line_prefix = "    ";
	ft_table_col(&t, "device", FT_ALIGN_LEFT);
	ft_table_col(&t, "pcie_switch", FT_ALIGN_RIGHT);
	ft_table_col(&t, "numa", FT_ALIGN_RIGHT);
	ft_table_col(&t, "nic", FT_ALIGN_RIGHT);
	for (i = 0; i < n->ngpus + n->nnics; i++) {
		bool gpu = i < n->ngpus;
		uint32_t k = gpu ? i : i - n->ngpus;

		(void)ft_table_cellf(&t, "%s%u", gpu ? "gpu" : "nic", k);
		if (n->npcie_switches)
			(void)ft_table_cellf(&t, "%u",
			                     gpu ? n->gpu_pcie_switch[k] : n->nic_pcie_switch[k]);
		else
			(void)ft_table_cell(&t, "-");
		(void)ft_table_cellf(&t, "%u", gpu ? n->gpu_numa[k] : n->nic_numa[k]);
		if (gpu && n->nnics)
			(void)ft_table_cellf(&t, "%u", n->gpu_nic[k]);
		else
			(void)ft_table_cell(&t, "-");
	}
	ft_table_render(&t, sb);
	ft_table_release(&t);
}

void
ft_spec_write_text(const struct ft_cluster_spec *s, struct ft_strbuf *sb)
{
	const struct ft_node_spec *n = &s->node;
	const struct ft_fabric_spec *f = &s->fabric;
	char a[32], b[32], c[32];
	uint32_t down, up, i;

	ft_strbuf_addf(sb, "cluster %s (%s)\n", s->name, s->source);
	for (i = 1; i < s->ngroups && i < FT_SPEC_MAX_GROUPS; i++)
		if (strcmp(s->groups[i].node.preset, n->preset) != 0)
			break;
	if (i < s->ngroups && i < FT_SPEC_MAX_GROUPS) /* groups of different kinds */
		ft_strbuf_addf(sb, "  nodes      %u in %u groups, %" PRIu64 " GPUs\n", s->nnodes,
		               s->ngroups, ft_spec_ngpus(s));
	else
		ft_strbuf_addf(sb, "  nodes      %u x %s, %" PRIu64 " GPUs\n", s->nnodes,
		               n->preset[0] ? n->preset : "custom node", ft_spec_ngpus(s));
	for (i = 0; i < s->ngroups && i < FT_SPEC_MAX_GROUPS; i++) {
		const struct ft_node_spec *g = &s->groups[i].node;

		ft_strbuf_addf(sb, "  group %-4u %u x %s: %u x %s, %u x %s NICs%s\n", i,
		               s->groups[i].count, g->preset[0] ? g->preset : "custom node",
		               g->ngpus, g->gpu_model, g->nnics,
		               ft_format_rate_bits(g->nic_Bps, a, sizeof(a)),
		               i == 0 ? " (detailed below)" : "");
	}
	ft_strbuf_addf(sb, "  gpu        %u x %s, %g TFLOPS dense fp16, %g GB\n", n->ngpus,
	               n->gpu_model, n->gpu_tflops, n->gpu_mem_GB);
	ft_strbuf_adds(sb, "  compute    ");
	if (n->gpu_fp8_tflops > 0)
		ft_strbuf_addf(sb, "%g TFLOPS dense fp8", n->gpu_fp8_tflops);
	else
		ft_strbuf_adds(sb, "no fp8");
	if (n->gpu_hbm_Bps > 0)
		ft_strbuf_addf(sb, ", HBM %s", rate_bytes(n->gpu_hbm_Bps, a, sizeof(a)));
	else
		ft_strbuf_adds(sb, ", HBM bandwidth unknown");
	if (n->gpu_gemm_eff > 0)
		ft_strbuf_addf(sb, ", GEMMs at %g%% of peak\n", 100 * n->gpu_gemm_eff);
	else
		ft_strbuf_adds(sb, ", GEMM efficiency unknown\n");
	if (n->nvlink_gen)
		ft_strbuf_addf(
		        sb, "  nvlink     NVLink %u, %s per GPU per direction, %s, %s%s per hop\n",
		        n->nvlink_gen, rate_bytes(n->nvlink_Bps, a, sizeof(a)),
		        n->nvswitch ? "NVSwitch" : "no NVSwitch", n->nvls ? "NVLS, " : "",
		        ft_format_duration(n->lat_nvlink_s, b, sizeof(b)));
	else
		ft_strbuf_adds(sb, "  nvlink     none\n");
	if (n->nvlink_domain_nodes > 1)
		ft_strbuf_addf(sb, "  domain     NVLink domain of %u nodes (%u GPUs)\n",
		               n->nvlink_domain_nodes, n->nvlink_domain_nodes * n->ngpus);
	ft_strbuf_addf(sb, "  pcie       Gen%u, GPU x%u %s, NIC x%u %s, %u switches, %s per hop\n",
	               n->pcie_gen, n->pcie_width_gpu, rate_bytes(n->pcie_Bps_gpu, a, sizeof(a)),
	               n->pcie_width_nic, rate_bytes(n->pcie_Bps_nic, b, sizeof(b)),
	               n->npcie_switches, ft_format_duration(n->lat_pcie_s, c, sizeof(c)));
	ft_strbuf_addf(sb, "  numa       %u domains, %s between sockets%s\n", n->nnuma,
	               rate_bytes(n->cpu_link_Bps, a, sizeof(a)),
	               n->cpu_vendor == FT_CPU_VENDOR_INTEL ? ", Intel CPUs" :
	               n->cpu_vendor == FT_CPU_VENDOR_AMD   ? ", AMD CPUs" :
	                                                      "");
	if (n->nnics)
		ft_strbuf_addf(sb, "  nics       %u x %s, %s, %s each, %s latency\n", n->nnics,
		               n->nic_model[0] ? n->nic_model : "NIC",
		               n->nic_link[0] ? n->nic_link : "custom link",
		               ft_format_rate_bits(n->nic_Bps, a, sizeof(a)),
		               ft_format_duration(n->lat_nic_s, b, sizeof(b)));
	else
		ft_strbuf_adds(sb, "  nics       none\n");
	if (n->nccl_buffsize || n->nccl_ll_buffsize || n->nccl_ll128_buffsize ||
	    n->nccl_nvls_chunksize || n->nccl_nvlstree_max_chunksize || n->nccl_pxn_disable) {
		static const char *const env[] = { "NCCL_BUFFSIZE", "NCCL_LL_BUFFSIZE",
			                           "NCCL_LL128_BUFFSIZE", "NCCL_NVLS_CHUNKSIZE",
			                           "NCCL_NVLSTREE_MAX_CHUNKSIZE" };
		const uint64_t val[] = { n->nccl_buffsize, n->nccl_ll_buffsize,
			                 n->nccl_ll128_buffsize, n->nccl_nvls_chunksize,
			                 n->nccl_nvlstree_max_chunksize };
		const char *sep = "  nccl       ";
		size_t k;

		for (k = 0; k < FT_ARRAY_SIZE(env); k++) {
			if (!val[k])
				continue;
			ft_strbuf_addf(sb, "%s%s %s", sep, env[k],
			               ft_format_size(val[k], a, sizeof(a)));
			sep = ", ";
		}
		if (n->nccl_pxn_disable)
			ft_strbuf_addf(sb, "%sNCCL_PXN_DISABLE 1", sep);
		ft_strbuf_adds(sb, "\n");
	}
	ft_strbuf_adds(sb, "  placement\n");
	text_placement(sb, n);

	ft_strbuf_addf(sb, "  fabric     %s\n", ft_fabric_kind_name(f->kind));
	if (f->kind == FT_FABRIC_NONE)
		return;
	ft_strbuf_addf(sb, "  link       %s, %s, switch %s, cable %s, mtu %u\n",
	               f->link[0] ? f->link : "custom",
	               ft_format_rate_bits(f->link_Bps, a, sizeof(a)),
	               ft_format_duration(f->lat_switch_s, b, sizeof(b)),
	               ft_format_duration(f->lat_cable_s, c, sizeof(c)), f->mtu_bytes);
	switch (f->kind) {
	case FT_FABRIC_FAT_TREE:
	case FT_FABRIC_RAIL_FAT_TREE:
	case FT_FABRIC_MULTI_PLANE:
		ft_spec_leaf_ports(f, &down, &up);
		ft_strbuf_addf(sb, "  tiers      %u, radix %u, leaf %u down / %u up (%g:1)\n",
		               f->tiers, f->radix, down, up, f->oversubscription);
		if (f->kind == FT_FABRIC_RAIL_FAT_TREE)
			ft_strbuf_addf(sb, "  units      %u nodes per scalable unit\n",
			               f->nodes_per_unit);
		if (f->kind == FT_FABRIC_MULTI_PLANE)
			ft_strbuf_addf(sb, "  planes     %u\n", f->planes);
		break;
	case FT_FABRIC_DRAGONFLY:
		ft_strbuf_addf(
		        sb,
		        "  dragonfly  %u groups x %u routers, %u nodes and %u global links per "
		        "router",
		        f->groups, f->routers_per_group, f->nodes_per_router,
		        f->global_links_per_router);
		if (f->radix)
			ft_strbuf_addf(sb, ", radix %u", f->radix);
		ft_strbuf_addch(sb, '\n');
		break;
	case FT_FABRIC_TORUS:
		ft_strbuf_adds(sb, "  torus      ");
		for (i = 0; i < f->ndims; i++)
			ft_strbuf_addf(sb, "%s%u", i ? "x" : "", f->dims[i]);
		if (f->nodes_per_switch)
			ft_strbuf_addf(sb, ", %u nodes per switch", f->nodes_per_switch);
		else
			ft_strbuf_adds(sb, ", one node per vertex");
		ft_strbuf_addch(sb, '\n');
		break;
	default:
		break;
	}
	ft_strbuf_addf(sb, "  routing    %s, sharp %s\n", ft_routing_name(f->routing),
	               f->sharp ? "yes" : "no");
	ft_strbuf_addf(sb, "  capacity   %" PRIu64 " nodes\n", ft_spec_fabric_capacity(s));
}

static void
json_list(struct ft_json *j, const char *key, const uint32_t *v, uint32_t n)
{
	uint32_t i;

	ft_json_key(j, key);
	ft_json_arr_begin(j);
	for (i = 0; i < n; i++)
		ft_json_uint(j, v[i]);
	ft_json_arr_end(j);
}

/* A node's figures, its key named after its member; nvlink_domain_nodes between the two
 * parts only where several nodes share a domain. */
#define NODE(type, m) FT__FIELD(struct ft_node_spec, #m, type, m)

static const struct ft__field node_gpu_fields[] = {
	NODE(STR, preset),         NODE(STR, gpu_model),       NODE(UINT, ngpus),
	NODE(DOUBLE, gpu_tflops),  NODE(DOUBLE, gpu_mem_GB),   NODE(DOUBLE, gpu_fp8_tflops),
	NODE(DOUBLE, gpu_hbm_Bps), NODE(DOUBLE, gpu_gemm_eff), NODE(UINT, nvlink_gen),
	NODE(DOUBLE, nvlink_Bps),  NODE(DOUBLE, lat_nvlink_s),
};

static const struct ft__field node_host_fields[] = {
	NODE(BOOL, nvswitch),       NODE(BOOL, nvls),           NODE(UINT, pcie_gen),
	NODE(UINT, pcie_width_gpu), NODE(UINT, pcie_width_nic), NODE(DOUBLE, pcie_Bps_gpu),
	NODE(DOUBLE, pcie_Bps_nic), NODE(DOUBLE, lat_pcie_s),   NODE(UINT, npcie_switches),
	NODE(UINT, nnuma),          NODE(DOUBLE, cpu_link_Bps), NODE(UINT, nnics),
	NODE(STR, nic_model),       NODE(STR, nic_link),        NODE(DOUBLE, nic_Bps),
	NODE(DOUBLE, lat_nic_s),
};

#undef NODE

static void
json_node(struct ft_json *j, const struct ft_node_spec *n)
{
	ft_json_obj_begin(j);
	ft__json_fields(j, n, node_gpu_fields, FT_ARRAY_SIZE(node_gpu_fields));
	if (n->nvlink_domain_nodes > 1)
		ft_json_kv_uint(j, "nvlink_domain_nodes", n->nvlink_domain_nodes);
	ft__json_fields(j, n, node_host_fields, FT_ARRAY_SIZE(node_host_fields));
	if (n->host_arch != FT_HOST_ARCH_X86)
		ft_json_kv_str(j, "host_arch", n->host_arch == FT_HOST_ARCH_ARM ? "arm" : "power");
	if (n->cpu_vendor != FT_CPU_VENDOR_UNKNOWN)
		ft_json_kv_str(j, "host_cpu_vendor", ft_cpu_vendor_name(n->cpu_vendor));
	if (n->gpu_attach != FT_GPU_ATTACH_AUTO)
		ft_json_kv_str(j, "gpu_attach", ft_gpu_attach_name(n->gpu_attach));
	if (n->nccl_buffsize)
		ft_json_kv_uint(j, "nccl_buffsize", n->nccl_buffsize);
	if (n->nccl_ll_buffsize)
		ft_json_kv_uint(j, "nccl_ll_buffsize", n->nccl_ll_buffsize);
	if (n->nccl_ll128_buffsize)
		ft_json_kv_uint(j, "nccl_ll128_buffsize", n->nccl_ll128_buffsize);
	if (n->nccl_nvls_chunksize)
		ft_json_kv_uint(j, "nccl_nvls_chunksize", n->nccl_nvls_chunksize);
	if (n->nccl_nvlstree_max_chunksize)
		ft_json_kv_uint(j, "nccl_nvlstree_max_chunksize", n->nccl_nvlstree_max_chunksize);
	if (n->nccl_pxn_disable)
		ft_json_kv_bool(j, "nccl_pxn_disable", true);
	ft_json_key(j, "placement");
	ft_json_obj_begin(j);
	json_list(j, "gpu_pcie_switch", n->gpu_pcie_switch, n->ngpus);
	json_list(j, "gpu_numa", n->gpu_numa, n->ngpus);
	json_list(j, "gpu_nic", n->gpu_nic, n->ngpus);
	json_list(j, "nic_pcie_switch", n->nic_pcie_switch, n->nnics);
	json_list(j, "nic_numa", n->nic_numa, n->nnics);
	json_list(j, "pcie_switch_numa", n->pcie_switch_numa, n->npcie_switches);
	ft_json_obj_end(j);
	ft_json_obj_end(j);
}

void
ft_spec_write_json(const struct ft_cluster_spec *s, struct ft_json *j)
{
	const struct ft_fabric_spec *f = &s->fabric;
	uint32_t down, up;

	ft_json_obj_begin(j);
	ft_json_kv_str(j, "name", s->name);
	ft_json_kv_str(j, "source", s->source);
	ft_json_kv_uint(j, "nnodes", s->nnodes);
	ft_json_kv_uint(j, "ngpus", ft_spec_ngpus(s));
	ft_json_key(j, "node");
	json_node(j, &s->node);
	if (s->ngroups > 1) {
		ft_json_key(j, "groups");
		ft_json_arr_begin(j);
		for (uint32_t i = 0; i < s->ngroups && i < FT_SPEC_MAX_GROUPS; i++) {
			ft_json_obj_begin(j);
			ft_json_kv_uint(j, "count", s->groups[i].count);
			ft_json_key(j, "node");
			json_node(j, &s->groups[i].node);
			ft_json_obj_end(j);
		}
		ft_json_arr_end(j);
	}
	ft_json_key(j, "fabric");
	ft_json_obj_begin(j);
	ft_json_kv_str(j, "kind", ft_fabric_kind_name(f->kind));
	if (f->kind != FT_FABRIC_NONE) {
		ft_json_kv_str(j, "link", f->link);
		ft_json_kv_double(j, "link_Bps", f->link_Bps);
		ft_json_kv_double(j, "lat_switch_s", f->lat_switch_s);
		ft_json_kv_double(j, "lat_cable_s", f->lat_cable_s);
		ft_json_kv_uint(j, "mtu_bytes", f->mtu_bytes);
		ft_json_kv_str(j, "routing", ft_routing_name(f->routing));
		ft_json_kv_bool(j, "sharp", f->sharp);
	}
	switch (f->kind) {
	case FT_FABRIC_FAT_TREE:
	case FT_FABRIC_RAIL_FAT_TREE:
	case FT_FABRIC_MULTI_PLANE:
		ft_spec_leaf_ports(f, &down, &up);
		ft_json_kv_uint(j, "tiers", f->tiers);
		ft_json_kv_uint(j, "radix", f->radix);
		ft_json_kv_double(j, "oversubscription", f->oversubscription);
		ft_json_kv_uint(j, "leaf_down_ports", down);
		ft_json_kv_uint(j, "leaf_up_ports", up);
		if (f->kind == FT_FABRIC_RAIL_FAT_TREE)
			ft_json_kv_uint(j, "nodes_per_unit", f->nodes_per_unit);
		ft_json_kv_uint(j, "planes", f->planes);
		break;
	case FT_FABRIC_DRAGONFLY:
		ft_json_kv_uint(j, "groups", f->groups);
		ft_json_kv_uint(j, "routers_per_group", f->routers_per_group);
		ft_json_kv_uint(j, "nodes_per_router", f->nodes_per_router);
		ft_json_kv_uint(j, "global_links_per_router", f->global_links_per_router);
		ft_json_kv_uint(j, "radix", f->radix);
		break;
	case FT_FABRIC_TORUS:
		json_list(j, "dims", f->dims, f->ndims);
		ft_json_kv_uint(j, "nodes_per_switch", f->nodes_per_switch);
		break;
	default:
		break;
	}
	ft_json_kv_uint(j, "capacity_nodes", ft_spec_fabric_capacity(s));
	ft_json_obj_end(j);
	ft_json_obj_end(j);
}

#define LINK(type, m) FT__FIELD(struct ft_link_preset, #m, type, m)

/* A link preset's figures after its name and technology. */
static const struct ft__field link_fields[] = {
	LINK(DOUBLE, signal_gbps), LINK(DOUBLE, raw_gbps),     LINK(DOUBLE, rate_Bps),
	LINK(DOUBLE, lat_nic_s),   LINK(DOUBLE, lat_switch_s), LINK(DOUBLE, lat_cable_s),
	LINK(UINT, mtu_bytes),
};

#undef LINK

static const struct ft__col link_cols[] = {
	{ "name", FT_ALIGN_LEFT },      { "tech", FT_ALIGN_LEFT }, { "data rate", FT_ALIGN_RIGHT },
	{ "raw rate", FT_ALIGN_RIGHT }, { "nic", FT_ALIGN_RIGHT }, { "switch", FT_ALIGN_RIGHT },
	{ "cable", FT_ALIGN_RIGHT },    { "mtu", FT_ALIGN_RIGHT },
};

void
ft_spec_presets_write_json(struct ft_strbuf *sb)
{
	const struct ft_link_preset *lp;
	struct ft_node_spec n;
	struct ft_json j;
	size_t i;

	ft_json_init(&j, sb, false);
	ft_json_obj_begin(&j);
	ft_json_key(&j, "node_presets");
	ft_json_arr_begin(&j);
	for (i = 0; i < ft_node_preset_count(); i++) {
		if (ft_node_preset(ft_node_preset_name(i), &n) < 0)
			continue;
		json_node(&j, &n);
	}
	ft_json_arr_end(&j);
	ft_json_key(&j, "link_presets");
	ft_json_arr_begin(&j);
	for (i = 0; (lp = ft_link_preset_at(i)) != NULL; i++) {
		ft_json_obj_begin(&j);
		ft_json_kv_str(&j, "name", lp->name);
		ft_json_kv_str(&j, "tech", ft_link_tech_name(lp->tech));
		ft__json_fields(&j, lp, link_fields, FT_ARRAY_SIZE(link_fields));
		if (lp->adaptive)
			ft_json_kv_bool(&j, "adaptive", true);
		ft_json_obj_end(&j);
	}
	ft_json_arr_end(&j);
	ft_json_obj_end(&j);
	ft_strbuf_addch(sb, '\n');
}

void
ft_spec_presets_write_text(struct ft_strbuf *sb)
{
	const struct ft_link_preset *lp;
	struct ft_table t;
	char a[32], b[32], c[32], d[32];
	size_t i;

	ft_strbuf_adds(sb,
	               "node presets (use PRESET for one node, PRESET:N for N nodes on its "
	               "default fabric):\n");
	ft_table_init(&t);
	t.line_prefix = "  ";
	t.no_header = true;
	ft_table_col(&t, "name", FT_ALIGN_LEFT);
	ft_table_col(&t, "summary", FT_ALIGN_LEFT);
	for (i = 0; i < ft_node_preset_count(); i++) {
		(void)ft_table_cell(&t, ft_node_preset_name(i));
		(void)ft_table_cell(&t, ft_node_preset_summary(i));
	}
	ft_table_render(&t, sb);
	ft_table_release(&t);
	ft_strbuf_adds(sb, "\nlink presets:\n");
	ft_table_init(&t);
	t.line_prefix = "  ";
	ft__table_cols(&t, link_cols, FT_ARRAY_SIZE(link_cols));
	for (i = 0; (lp = ft_link_preset_at(i)) != NULL; i++) {
		(void)ft_table_cell(&t, lp->name);
		(void)ft_table_cell(&t, ft_link_tech_name(lp->tech));
		(void)ft_table_cell(&t, ft_format_rate_bits(lp->rate_Bps, a, sizeof(a)));
		(void)ft_table_cellf(&t, "%gGbps", lp->raw_gbps);
		(void)ft_table_cell(&t, ft_format_duration(lp->lat_nic_s, b, sizeof(b)));
		(void)ft_table_cell(&t, ft_format_duration(lp->lat_switch_s, c, sizeof(c)));
		(void)ft_table_cell(&t, ft_format_duration(lp->lat_cable_s, d, sizeof(d)));
		(void)ft_table_cellf(&t, "%u", lp->mtu_bytes);
	}
	ft_table_render(&t, sb);
	ft_table_release(&t);
}

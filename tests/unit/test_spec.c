/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_spec.c - cluster specs: presets and their figures, preset
 * shorthands, fabric capacity, the YAML/JSON loader and its error messages
 * (every bad input names file:line:col and the field), and the shipped
 * examples.
 */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* cmocka.h needs the headers above it. */
/* clang-format off */
#include <cmocka.h>
/* clang-format on */

#include "source_root.h"

#include <fabtune/fabtune.h>

#include "spec/scenario.h"

static bool
is_zero(const void *p, size_t n)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (c[i])
			return false;
	return true;
}

static int
load(const char *yaml, struct ft_cluster_spec *s, struct ft_error *err)
{
	ft_error_clear(err);
	return ft_spec_load_buffer(yaml, strlen(yaml), "t.yaml", s, err);
}

/* ---- presets ------------------------------------------------------------------------------ */

static void
test_node_presets_validate(void **state)
{
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };
	const char *prev = "";
	size_t i;

	assert_int_equal(ft_node_preset_count(), 12);
	for (i = 0; i < ft_node_preset_count(); i++) {
		const char *name = ft_node_preset_name(i);

		assert_non_null(name);
		assert_true(strcmp(prev, name) < 0); /* sorted, unique */
		prev = name;
		assert_non_null(ft_node_preset_summary(i));
		memset(&s, 0, sizeof(s));
		assert_int_equal(ft_node_preset(name, &s.node), 0);
		assert_string_equal(s.node.preset, name);
		ft_strlcpy(s.name, name, sizeof(s.name));
		s.nnodes = 1;
		s.fabric.kind = FT_FABRIC_NONE;
		if (ft_spec_validate(&s, &err) < 0)
			fail_msg("preset %s: %s", name, err.msg);
		/* Every NIC link names a link preset whose rate the node carries. */
		assert_non_null(ft_link_preset_find(s.node.nic_link));
		assert_true(ft_link_preset_find(s.node.nic_link)->rate_Bps == s.node.nic_Bps);
		assert_true(ft_link_preset_find(s.node.nic_link)->lat_nic_s == s.node.lat_nic_s);
	}
	assert_null(ft_node_preset_name(i));
	assert_int_equal(ft_node_preset("dgx-h999", &s.node), FT_ENOENT);
	assert_true(is_zero(&s.node, sizeof(s.node)));
}

static void
test_node_preset_figures(void **state)
{
	struct ft_node_spec n;

	/* DGX H100: 900 GB/s bidirectional NVLink 4 = 450 GB/s per direction. */
	assert_int_equal(ft_node_preset("dgx-h100", &n), 0);
	assert_int_equal(n.ngpus, 8);
	assert_int_equal(n.nvlink_gen, 4);
	assert_true(n.nvlink_Bps == 450e9);
	assert_true(n.nvswitch && n.nvls);
	assert_int_equal(n.pcie_gen, 5);
	assert_int_equal(n.nnics, 8);
	assert_true(n.nic_Bps == 50e9); /* 400 Gb/s */
	assert_int_equal(n.npcie_switches, 4);
	assert_int_equal(n.gpu_pcie_switch[3], n.nic_pcie_switch[n.gpu_nic[3]]);
	assert_true(fabs(n.gpu_tflops - 989.4) < 1e-9);
	/* DGX A100: NVLink 3 300 GB/s per direction, no NVLS, HDR 200 Gb/s, Gen4. */
	assert_int_equal(ft_node_preset("dgx-a100", &n), 0);
	assert_true(n.nvlink_Bps == 300e9);
	assert_true(n.nvswitch && !n.nvls);
	assert_true(n.nic_Bps == 25e9);
	assert_int_equal(n.pcie_gen, 4);
	assert_true(n.pcie_Bps_gpu == 24e9);
	assert_int_equal(n.nnuma, 8);
	/* DGX B200: NVLink 5 900 GB/s per direction. */
	assert_int_equal(ft_node_preset("dgx-b200", &n), 0);
	assert_int_equal(n.nvlink_gen, 5);
	assert_true(n.nvlink_Bps == 900e9);
	assert_true(n.nvls);
	/* HGX H200: H100 fabric, 141 GB. */
	assert_int_equal(ft_node_preset("hgx-h200", &n), 0);
	assert_true(n.gpu_mem_GB == 141);
	assert_true(n.nvlink_Bps == 450e9);
	/* PCIe L40S: no NVLink, 2 NICs, GPUs 0-3 on NIC 0. */
	assert_int_equal(ft_node_preset("pcie-l40s", &n), 0);
	assert_int_equal(n.nvlink_gen, 0);
	assert_false(n.nvswitch);
	assert_int_equal(n.nnics, 2);
	assert_int_equal(n.gpu_nic[3], 0);
	assert_int_equal(n.gpu_nic[4], 1);
	assert_int_equal(n.gpu_numa[7], 1);
}

static void
test_link_presets(void **state)
{
	static const struct {
		const char *name;
		enum ft_link_tech tech;
		double gbps;
	} want[] = {
		{ "hdr", FT_TECH_IB, 200 },       { "ndr", FT_TECH_IB, 400 },
		{ "xdr", FT_TECH_IB, 800 },       { "roce100", FT_TECH_ROCE, 100 },
		{ "roce200", FT_TECH_ROCE, 200 }, { "roce400", FT_TECH_ROCE, 400 },
		{ "roce800", FT_TECH_ROCE, 800 }, { "spcx400", FT_TECH_ROCE, 400 },
		{ "efa100", FT_TECH_EFA, 100 },   { "tcpx200", FT_TECH_TCP, 200 },
	};
	const struct ft_link_preset *lp;
	size_t i;

	assert_int_equal(ft_link_preset_count(), FT_ARRAY_SIZE(want));
	for (i = 0; i < FT_ARRAY_SIZE(want); i++) {
		lp = ft_link_preset_find(want[i].name);
		assert_non_null(lp);
		assert_ptr_equal(lp, ft_link_preset_at(i));
		assert_int_equal(lp->tech, want[i].tech);
		/* Data rate after encoding: the nominal Gb/s / 8 (IB-SPEED). */
		assert_true(lp->rate_Bps == want[i].gbps * 1e9 / 8);
		/* EFA and TCPX don't publish their lane rates: raw is the data rate there */
		if (lp->tech == FT_TECH_EFA || lp->tech == FT_TECH_TCP)
			assert_true(lp->raw_gbps == lp->signal_gbps);
		else
			assert_true(lp->raw_gbps > lp->signal_gbps);
		assert_true(lp->lat_nic_s > 0 && lp->lat_switch_s > 0 && lp->lat_cable_s > 0);
		assert_int_equal(lp->mtu_bytes, 4096);
	}
	assert_null(ft_link_preset_at(i));
	assert_null(ft_link_preset_find("edr"));
	assert_null(ft_link_preset_find(NULL));
}

/*
 * Cloud instances as presets (docs/presets.md): AWS p5/p5e drive 32 EFA cards
 * of 100 Gb/s, four per GPU (3,200 Gb/s); Google Cloud's a3-highgpu-8g has 4
 * GPU NICs of 200 Gb/s (two GPUs each) and a3-megagpu-8g 8; the Spectrum-X
 * node a 400 Gb/s SuperNIC per GPU. Fabrics of transports that spray packets
 * over every path (EFA's SRD, Spectrum-X) default to adaptive routing, TCP to
 * ECMP.
 */
static void
test_cloud_presets(void **state)
{
	static const struct {
		const char *name, *link, *gpu;
		uint32_t nnics, per_gpu;
		double gbps, total_gbps; /* per NIC; the instance's GPU NICs together */
		enum ft_routing routing;
		double net_lat_us; /* the network plugin's reported latency (PS-EFA-NETLAT) */
	} want[] = {
		{ "aws-p5", "efa100", "H100-SXM5-80GB", 32, 4, 100, 3200, FT_ROUTING_ADAPTIVE, 75 },
		{ "aws-p5e", "efa100", "H200-SXM-141GB", 32, 4, 100, 3200, FT_ROUTING_ADAPTIVE,
		  75 },
		{ "gcp-a3-high", "tcpx200", "H100-SXM5-80GB", 4, 1, 200, 800, FT_ROUTING_ECMP, 0 },
		{ "gcp-a3-mega", "tcpx200", "H100-SXM5-80GB", 8, 1, 200, 1600, FT_ROUTING_ECMP, 0 },
		{ "hgx-h100-spcx", "spcx400", "H100-SXM5-80GB", 8, 1, 400, 3200,
		  FT_ROUTING_ADAPTIVE, 0 },
	};
	struct ft_error err = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < FT_ARRAY_SIZE(want); i++) {
		struct ft_cluster_spec s;
		char name[64];
		uint32_t g;

		snprintf(name, sizeof(name), "%s:4", want[i].name);
		assert_int_equal(ft_spec_resolve(name, &s, &err), 0);
		assert_string_equal(s.node.preset, want[i].name);
		assert_string_equal(s.node.gpu_model, want[i].gpu);
		assert_int_equal(s.node.ngpus, 8);
		assert_int_equal(s.node.nnics, want[i].nnics);
		assert_int_equal(FT_MAX(s.node.nics_per_gpu, 1u), want[i].per_gpu);
		assert_string_equal(s.node.nic_link, want[i].link);
		assert_true(s.node.nic_Bps == want[i].gbps * 1e9 / 8);
		assert_true(s.node.nnics * s.node.nic_Bps * 8 / 1e9 == want[i].total_gbps);
		assert_true(fabs(s.node.net_lat_s - want[i].net_lat_us * 1e-6) < 1e-15);
		for (g = 0; g < 8; g++) {
			uint32_t r = s.node.gpu_nic[g];

			assert_int_equal(r, g * want[i].nnics / 8);
			/* a GPU's NICs hang off its own PCIe switch */
			assert_int_equal(s.node.nic_pcie_switch[r], s.node.gpu_pcie_switch[g]);
		}
		assert_int_equal(s.fabric.routing, want[i].routing);
		assert_string_equal(s.fabric.link, want[i].link);
	}
	/* A spec may set the plugin's latency over the preset's (aws-ofi-nccl's p5en: 35 us). */
	{
		static const char y[] =
		        "name: x\nnodes:\n  preset: aws-p5\n  nics: { net_latency: 35us }\n";
		struct ft_cluster_spec s;

		assert_int_equal(ft_spec_load_buffer(y, strlen(y), "t.yaml", &s, &err), 0);
		assert_true(fabs(s.node.net_lat_s - 35e-6) < 1e-15);
		assert_int_equal(s.node.nnics, 32);
	}
	/* The rendezvous of aws-ofi-nccl's RDMA protocol (PS-EFA-RDV): 23 us on the p5 and
	 * p5e presets, none on other nodes, the spec's own over the preset's. */
	{
		static const char y[] =
		        "name: x\nnodes:\n  preset: aws-p5\n  nics: { rendezvous: 18us }\n";
		static const char bad[] =
		        "name: x\nnodes:\n  preset: aws-p5\n  nics: { rendezvous: soon }\n";
		struct ft_cluster_spec s;

		assert_int_equal(ft_spec_resolve("aws-p5", &s, &err), 0);
		assert_true(fabs(s.node.rdv_s - 23e-6) < 1e-15);
		assert_int_equal(ft_spec_resolve("aws-p5e", &s, &err), 0);
		assert_true(fabs(s.node.rdv_s - 23e-6) < 1e-15);
		assert_int_equal(ft_spec_resolve("gcp-a3-mega", &s, &err), 0);
		assert_true(s.node.rdv_s == 0);
		assert_int_equal(ft_spec_resolve("dgx-h100", &s, &err), 0);
		assert_true(s.node.rdv_s == 0);
		assert_int_equal(ft_spec_load_buffer(y, strlen(y), "t.yaml", &s, &err), 0);
		assert_true(fabs(s.node.rdv_s - 18e-6) < 1e-15);
		assert_int_equal(ft_spec_load_buffer(bad, strlen(bad), "t.yaml", &s, &err), FT_EPARSE);
		assert_string_equal(err.msg, "t.yaml:4:23: nodes.nics.rendezvous: expected a duration "
		                             "like 150ns or 2us, got 'soon'");
	}
}

/*
 * aws-ofi-nccl's "p5/p5e" platform entry (docs/presets.md PS-EFA-P2P) sets NCCL_BUFFSIZE,
 * NCCL_NVLS_CHUNKSIZE and NCCL_NVLSTREE_MAX_CHUNKSIZE unless the job sets them: the presets
 * carry all three, the other cloud presets none, and a spec's own value wins, each variable
 * on its own; spec text prints them as the nccl line.
 */
static void
test_cloud_preset_nccl_env(void **state)
{
	static const char *const p5[] = { "aws-p5:2", "aws-p5e:2" };
	static const char *const other[] = { "gcp-a3-high:2", "gcp-a3-mega:2", "hgx-h100-spcx:2",
		                             "dgx-h100:2" };
	static const char own[] = "name: x\nnodes:\n  preset: aws-p5\n  count: 4\n  nccl:\n"
	                          "    nvls_chunksize: 128KiB\n";
	static const char both[] = "name: x\nnodes:\n  preset: aws-p5e\n  nccl:\n"
	                           "    nvls_chunksize: 1MiB\n    nvlstree_max_chunksize: 64KiB\n"
	                           "    buffsize: 4MiB\n";
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	size_t i;

	(void)state;
	for (i = 0; i < FT_ARRAY_SIZE(p5); i++) {
		assert_int_equal(ft_spec_resolve(p5[i], &s, &err), 0);
		assert_int_equal(s.node.nccl_buffsize, 8u << 20);
		assert_int_equal(s.node.nccl_nvls_chunksize, 512u << 10);
		assert_int_equal(s.node.nccl_nvlstree_max_chunksize, 512u << 10);
	}
	for (i = 0; i < FT_ARRAY_SIZE(other); i++) {
		assert_int_equal(ft_spec_resolve(other[i], &s, &err), 0);
		assert_int_equal(s.node.nccl_nvls_chunksize, 0);
		assert_int_equal(s.node.nccl_nvlstree_max_chunksize, 0);
	}
	/* the spec sets one: the plugin leaves it and sets the other */
	assert_int_equal(ft_spec_load_buffer(own, strlen(own), "t.yaml", &s, &err), 0);
	assert_int_equal(s.node.nccl_nvls_chunksize, 128u << 10);
	assert_int_equal(s.node.nccl_nvlstree_max_chunksize, 512u << 10);
	assert_int_equal(s.node.nccl_buffsize, 8u << 20);
	assert_int_equal(ft_spec_load_buffer(both, strlen(both), "t.yaml", &s, &err), 0);
	assert_int_equal(s.node.nccl_nvls_chunksize, 1u << 20);
	assert_int_equal(s.node.nccl_nvlstree_max_chunksize, 64u << 10);
	assert_int_equal(s.node.nccl_buffsize, 4u << 20);

	assert_int_equal(ft_spec_resolve("aws-p5:2", &s, &err), 0);
	ft_strbuf_init(&sb);
	ft_spec_write_text(&s, &sb);
	assert_non_null(strstr(sb.buf,
	                       "  nccl       NCCL_BUFFSIZE 8MiB, NCCL_NVLS_CHUNKSIZE 512KiB, "
	                       "NCCL_NVLSTREE_MAX_CHUNKSIZE 512KiB\n"));
	ft_strbuf_release(&sb);
}

/* nodes.nccl.pxn_disable: NCCL_PXN_DISABLE=1, off by default (NCCL's PXN on), printed on the
 * nccl line; a value other than a boolean names its file, line, column and field. */
static void
test_nccl_pxn_disable(void **state)
{
	static const char on[] = "name: x\nnodes:\n  preset: dgx-h100\n  count: 2\n  nccl:\n"
	                         "    pxn_disable: true\n";
	static const char bad[] = "name: x\nnodes:\n  preset: dgx-h100\n  count: 2\n  nccl:\n"
	                          "    pxn_disable: 2\n";
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &s, &err), 0);
	assert_false(s.node.nccl_pxn_disable);
	assert_int_equal(ft_spec_load_buffer(on, strlen(on), "t.yaml", &s, &err), 0);
	assert_true(s.node.nccl_pxn_disable);
	ft_strbuf_init(&sb);
	ft_spec_write_text(&s, &sb);
	assert_non_null(strstr(sb.buf, "  nccl       NCCL_PXN_DISABLE 1\n"));
	ft_strbuf_release(&sb);
	assert_true(ft_spec_load_buffer(bad, strlen(bad), "t.yaml", &s, &err) < 0);
	assert_non_null(strstr(err.msg, "t.yaml:6:18: nodes.nccl.pxn_disable"));
}

/* Load @text as t.yaml into @s; 0 or the loader's code, its message in @err. */
static int
load_text(const char *text, struct ft_cluster_spec *s, struct ft_error *err)
{
	ft_error_clear(err);
	return ft_spec_load_buffer(text, strlen(text), "t.yaml", s, err);
}

/*
 * nodes.gpu_attach: how the GPUs reach their CPU. Not given, the rule the model had
 * (c2c on an ARM host with Hopper or later GPUs); the Grace presets say c2c, which goes
 * with their host when numa.arch changes; pcie turns an ARM Hopper host's C2C off; c2c
 * where NCCL cannot read a C2C link (an x86 or POWER host, GPUs before Hopper) and any
 * other word name file, line, column and field.
 */
static void
test_gpu_attach(void **state)
{
	static const struct {
		const char *spec; /* a preset, or a spec's text */
		enum ft_gpu_attach attach;
		bool c2c;
	} rows[] = {
		{ "dgx-h100:2", FT_GPU_ATTACH_AUTO, false },
		{ "gb200-nvl72:18", FT_GPU_ATTACH_C2C, true },
		{ "gb300-nvl72:18", FT_GPU_ATTACH_C2C, true },
		{ "nodes: {preset: dgx-h100, numa: {arch: arm}}\n", FT_GPU_ATTACH_AUTO, true },
		{ "nodes: {preset: dgx-a100, numa: {arch: arm}}\n", FT_GPU_ATTACH_AUTO, false },
		{ "nodes: {preset: dgx-h100, gpu_attach: pcie, numa: {arch: arm}}\n",
		  FT_GPU_ATTACH_PCIE, false },
		{ "nodes: {preset: dgx-h100, gpu_attach: c2c, numa: {arch: arm}}\n",
		  FT_GPU_ATTACH_C2C, true },
		{ "nodes: {preset: gb200-nvl72, numa: {arch: x86}}\n", FT_GPU_ATTACH_AUTO, false },
		{ "nodes: {preset: gb200-nvl72, gpu_attach: pcie}\n", FT_GPU_ATTACH_PCIE, false },
	};
	static const char *const bad[][2] = {
		{ "nodes:\n  preset: dgx-h100\n  gpu_attach: nvlink\n",
		  "t.yaml:3:15: nodes.gpu_attach: expected pcie or c2c, got 'nvlink'" },
		{ "nodes:\n  preset: dgx-h100\n  gpu_attach: c2c\n",
		  "t.yaml:3:15: nodes.gpu_attach: c2c needs an ARM host (Grace; numa.arch: arm), "
		  "got numa.arch x86" },
		{ "nodes:\n  preset: gb200-nvl72\n  gpu_attach: c2c\n  numa: {arch: power}\n",
		  "t.yaml:3:15: nodes.gpu_attach: c2c needs an ARM host (Grace; numa.arch: arm), "
		  "got numa.arch power" },
		{ "nodes:\n  preset: dgx-a100\n  gpu_attach: c2c\n  numa: {arch: arm}\n",
		  "t.yaml:3:15: nodes.gpu_attach: c2c needs Hopper or later GPUs (nvlink.gen 4 or "
		  "more; NCCL reads C2C links from sm_90 on), got an older NVLink" },
		{ "nodes:\n  - {preset: dgx-h100, count: 1}\n"
		  "  - {preset: dgx-h100, count: 1, gpu_attach: c2c}\n",
		  "nodes[1].gpu_attach: c2c needs an ARM host" },
	};
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	struct ft_json j;
	size_t i;

	(void)state;
	for (i = 0; i < FT_ARRAY_SIZE(rows); i++) {
		if (strchr(rows[i].spec, '\n'))
			assert_int_equal(load_text(rows[i].spec, &s, &err), 0);
		else
			assert_int_equal(ft_spec_resolve(rows[i].spec, &s, &err), 0);
		assert_int_equal(s.node.gpu_attach, rows[i].attach);
		assert_int_equal(ft_node_gpu_c2c(&s.node), rows[i].c2c);
		ft_strbuf_init(&sb);
		ft_json_init(&j, &sb, false);
		ft_spec_write_json(&s, &j);
		if (rows[i].attach == FT_GPU_ATTACH_AUTO)
			assert_null(strstr(sb.buf, "gpu_attach"));
		else
			assert_non_null(strstr(sb.buf, rows[i].attach == FT_GPU_ATTACH_C2C ?
			                                       "\"gpu_attach\":\"c2c\"" :
			                                       "\"gpu_attach\":\"pcie\""));
		ft_strbuf_release(&sb);
	}
	for (i = 0; i < FT_ARRAY_SIZE(bad); i++) {
		assert_int_equal(load_text(bad[i][0], &s, &err), FT_EPARSE);
		assert_non_null(strstr(err.msg, bad[i][1]));
	}
	assert_string_equal(ft_gpu_attach_name(FT_GPU_ATTACH_PCIE), "pcie");
	assert_string_equal(ft_gpu_attach_name(FT_GPU_ATTACH_C2C), "c2c");
	assert_string_equal(ft_gpu_attach_name(FT_GPU_ATTACH_AUTO), "auto");
}

static void
test_names(void **state)
{
	enum ft_routing r;
	int i;

	for (i = 0; i < FT_ROUTING_COUNT; i++) {
		assert_int_equal(ft_routing_from_name(ft_routing_name((enum ft_routing)i), &r), 0);
		assert_int_equal(r, i);
	}
	assert_int_equal(ft_routing_from_name("ospf", &r), FT_ENOENT);
	assert_string_equal(ft_fabric_kind_name(FT_FABRIC_RAIL_FAT_TREE), "rail-fat-tree");
	assert_string_equal(ft_fabric_kind_name(FT_FABRIC_KIND_COUNT), "?");
	assert_string_equal(ft_link_tech_name(FT_TECH_ROCE), "roce");
}

/* ---- shorthands --------------------------------------------------------------------------- */

static void
test_resolve_shorthand(void **state)
{
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };

	assert_int_equal(ft_spec_resolve("dgx-h100", &s, &err), 0);
	assert_int_equal(s.nnodes, 1);
	assert_int_equal(s.fabric.kind, FT_FABRIC_NONE);
	assert_int_equal(ft_spec_ngpus(&s), 8);
	assert_string_equal(s.name, "dgx-h100");

	assert_int_equal(ft_spec_resolve("dgx-h100:64", &s, &err), 0);
	assert_int_equal(s.nnodes, 64);
	assert_int_equal(ft_spec_ngpus(&s), 512);
	assert_int_equal(s.fabric.kind, FT_FABRIC_RAIL_FAT_TREE);
	assert_int_equal(s.fabric.tiers, 2);
	assert_int_equal(s.fabric.radix, 64);
	assert_int_equal(s.fabric.nodes_per_unit, 32);
	assert_true(s.fabric.oversubscription == 1.0);
	assert_string_equal(s.fabric.link, "ndr");
	assert_true(s.fabric.link_Bps == 50e9);
	assert_int_equal(s.fabric.routing, FT_ROUTING_DMODK);
	assert_string_equal(s.source, "dgx-h100:64");

	/* 2 tiers of radix 64 hold 32 * 64 = 2048 NIC ports: 256 nodes of 8 NICs. */
	assert_int_equal(ft_spec_resolve("dgx-h100:256", &s, &err), 0);
	assert_int_equal(s.fabric.tiers, 2);
	assert_int_equal(ft_spec_resolve("dgx-h100:257", &s, &err), 0);
	assert_int_equal(s.fabric.tiers, 3);
	/* 3 tiers: 64^3 / 4 = 65536 ports = 8192 nodes; 4096 DGX (32k GPUs) fit. */
	assert_int_equal(ft_spec_resolve("dgx-h100:4096", &s, &err), 0);
	assert_int_equal(ft_spec_ngpus(&s), 32768);
	assert_int_equal(ft_spec_fabric_capacity(&s), 8192);

	/* The PCIe server: a plain RoCE fat-tree, 2 NICs per node: 1024 nodes in 2 tiers. */
	assert_int_equal(ft_spec_resolve("pcie-l40s:1024", &s, &err), 0);
	assert_int_equal(s.fabric.kind, FT_FABRIC_FAT_TREE);
	assert_string_equal(s.fabric.link, "roce200");
	assert_int_equal(s.fabric.routing, FT_ROUTING_ECMP);
	assert_int_equal(s.fabric.tiers, 2);
	assert_int_equal(ft_spec_resolve("pcie-l40s:1025", &s, &err), 0);
	assert_int_equal(s.fabric.tiers, 3);
	/* A path is a file; its name defaults to the base name. */
	assert_int_equal(ft_spec_resolve("examples/torus.json", &s, &err), 0);
	assert_string_equal(s.name, "h100-torus");
	assert_string_equal(s.source, "examples/torus.json");
	assert_int_equal(s.fabric.kind, FT_FABRIC_TORUS);
	assert_int_equal(s.fabric.ndims, 3);
	assert_int_equal(ft_spec_resolve("dgx-a100:1", &s, &err), 0);
	assert_int_equal(s.fabric.kind, FT_FABRIC_RAIL_FAT_TREE);
	assert_string_equal(s.fabric.link, "hdr");
}

static void
test_resolve_bad(void **state)
{
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };

	assert_int_equal(ft_spec_resolve("dgx-h100:x", &s, &err), FT_EPARSE);
	assert_string_equal(err.msg, "dgx-h100:x: expected a node count after ':', got 'x'");
	assert_true(is_zero(&s, sizeof(s)));
	ft_error_clear(&err);
	assert_int_equal(ft_spec_resolve("dgx-h100:0", &s, &err), FT_ERANGE);
	assert_string_equal(err.msg,
	                    "dgx-h100:0: expected a node count of at least 1, got 0");
	ft_error_clear(&err);
	assert_int_equal(ft_spec_resolve("dgx-h100:", &s, &err), FT_EPARSE);
	ft_error_clear(&err);
	assert_int_equal(ft_spec_resolve("dgx-h100:8193", &s, &err), FT_ERANGE);
	assert_string_equal(err.msg, "dgx-h100:8193: nodes.count: expected at most 8192 nodes of 8 "
	                             "NICs on the default fabric (3-tier fat-tree of radix-64 "
	                             "switches), got 8193");
	assert_true(is_zero(&s, sizeof(s)));
	ft_error_clear(&err);
	assert_int_equal(ft_spec_resolve("mi300x", &s, &err), FT_ENOENT);
	assert_string_equal(err.msg, "mi300x: expected a spec file or a node preset (aws-p5, "
	                             "aws-p5e, dgx-a100, dgx-b200, dgx-h100, gb200-nvl72, "
	                             "gb300-nvl72, gcp-a3-high, gcp-a3-mega, hgx-h100-spcx, "
	                             "hgx-h200, pcie-l40s), optionally with ':NODES', got neither");
	ft_error_clear(&err);
	/* a near preset is named; the count after ':' plays no part */
	assert_int_equal(ft_spec_resolve("dgx-h10:4", &s, &err), FT_ENOENT);
	assert_non_null(strstr(err.msg, "got neither; did you mean 'dgx-h100'?"));
	ft_error_clear(&err);
	assert_int_equal(ft_spec_resolve("gb200-nlv72", &s, &err), FT_ENOENT);
	assert_non_null(strstr(err.msg, "got neither; did you mean 'gb200-nvl72'?"));
	assert_true(is_zero(&s, sizeof(s)));
	ft_error_clear(&err);
	assert_int_equal(ft_spec_resolve("no/such/spec.yaml", &s, &err), FT_ENOENT);
	assert_non_null(strstr(err.msg, "no/such/spec.yaml"));
	ft_error_clear(&err);
	assert_int_equal(ft_spec_resolve("", &s, &err), FT_EINVAL);
	assert_int_equal(ft_spec_resolve(NULL, &s, NULL), FT_EINVAL);
}

/* ---- capacity ----------------------------------------------------------------------------- */

static void
test_capacity(void **state)
{
	struct ft_cluster_spec s;
	uint32_t down, up;

	memset(&s, 0, sizeof(s));
	s.node.nnics = 1;
	s.fabric.kind = FT_FABRIC_FAT_TREE;
	s.fabric.radix = 64;
	s.fabric.oversubscription = 1;
	s.fabric.tiers = 2;
	ft_spec_leaf_ports(&s.fabric, &down, &up);
	assert_int_equal(down, 32);
	assert_int_equal(up, 32);
	assert_int_equal(ft_spec_fabric_capacity(&s), 64 * 64 / 2); /* k^2/2 */
	s.fabric.tiers = 3;
	assert_int_equal(ft_spec_fabric_capacity(&s), 64 * 64 * 64 / 4); /* k^3/4 */
	s.fabric.oversubscription = 3;                                   /* 48 down : 16 up */
	ft_spec_leaf_ports(&s.fabric, &down, &up);
	assert_int_equal(down, 48);
	assert_int_equal(up, 16);
	assert_int_equal(ft_spec_fabric_capacity(&s), 64 * 32 * 48);
	s.fabric.oversubscription = 2; /* 42:22, never worse than asked */
	ft_spec_leaf_ports(&s.fabric, &down, &up);
	assert_int_equal(down, 42);
	assert_int_equal(up, 22);
	/* Multi-plane: 8 NICs on 4 planes = 2 ports per node per plane. */
	s.node.nnics = 8;
	s.fabric.kind = FT_FABRIC_MULTI_PLANE;
	s.fabric.planes = 4;
	s.fabric.oversubscription = 1;
	s.fabric.tiers = 2;
	assert_int_equal(ft_spec_fabric_capacity(&s), 2048 / 2);
	s.fabric.kind = FT_FABRIC_DRAGONFLY;
	s.fabric.groups = 9;
	s.fabric.routers_per_group = 4;
	s.fabric.nodes_per_router = 2;
	assert_int_equal(ft_spec_fabric_capacity(&s), 72);
	s.fabric.kind = FT_FABRIC_TORUS;
	s.fabric.ndims = 3;
	s.fabric.dims[0] = 4;
	s.fabric.dims[1] = 4;
	s.fabric.dims[2] = 2;
	assert_int_equal(ft_spec_fabric_capacity(&s), 32);
	s.fabric.nodes_per_switch = 2;
	assert_int_equal(ft_spec_fabric_capacity(&s), 64);
	s.fabric.kind = FT_FABRIC_NONE;
	assert_int_equal(ft_spec_fabric_capacity(&s), 1);
}

/* ---- loader ------------------------------------------------------------------------------- */

static void
test_load_full(void **state)
{
	static const char yaml[] = "name: lab\n"
	                           "nodes:\n"
	                           "  preset: dgx-h100\n"
	                           "  count: 128\n"
	                           "  nics: { count: 8, rate: 400Gbps, model: ConnectX-7 }\n"
	                           "fabric:\n"
	                           "  kind: rail-fat-tree\n"
	                           "  link: ndr\n"
	                           "  tiers: 2\n"
	                           "  radix: 64\n"
	                           "  oversubscription: 1\n"
	                           "  routing: ecmp\n"
	                           "  sharp: true\n"
	                           "  switch_latency: 200ns\n"
	                           "  mtu: 2048\n";
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };

	if (load(yaml, &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(s.name, "lab");
	assert_string_equal(s.source, "t.yaml");
	assert_int_equal(s.nnodes, 128);
	assert_string_equal(s.node.nic_link, "ndr"); /* 400 Gb/s is the ndr rate: link kept */
	assert_int_equal(s.fabric.kind, FT_FABRIC_RAIL_FAT_TREE);
	assert_int_equal(s.fabric.routing, FT_ROUTING_ECMP);
	assert_true(s.fabric.sharp);
	assert_true(fabs(s.fabric.lat_switch_s - 200e-9) < 1e-18);
	assert_true(s.fabric.lat_cable_s == ft_link_preset_find("ndr")->lat_cable_s);
	assert_int_equal(s.fabric.nodes_per_unit, 32);
	assert_int_equal(s.fabric.mtu_bytes, 2048);
}

static void
test_load_overrides(void **state)
{
	static const char yaml[] = "nodes:\n"
	                           "  preset: pcie-l40s\n"
	                           "  count: 8\n"
	                           "  gpus: 4\n"
	                           "  pcie: { gen: 5 }\n"
	                           "  nics: { count: 4, link: roce400, latency: 1.5us }\n"
	                           "fabric:\n"
	                           "  kind: fat-tree\n"
	                           "  oversubscription: \"3:1\"\n";
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };
	uint32_t i;

	if (load(yaml, &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(s.name, "t"); /* from the file name */
	assert_int_equal(s.node.ngpus, 4);
	assert_true(s.node.pcie_Bps_gpu == 48e9); /* re-derived for Gen5 x16 */
	assert_true(s.node.nic_Bps == 50e9);      /* from roce400 */
	assert_true(fabs(s.node.lat_nic_s - 1.5e-6) < 1e-15);
	assert_string_equal(s.fabric.link, "roce400");
	assert_int_equal(s.fabric.mtu_bytes, 4096); /* from the link preset */
	assert_int_equal(s.fabric.routing, FT_ROUTING_ECMP);
	assert_true(s.fabric.oversubscription == 3.0);
	/* The placement was laid out again for 4 GPUs and 4 NICs on 2 switches. */
	for (i = 0; i < 4; i++) {
		assert_int_equal(s.node.gpu_nic[i], i);
		assert_int_equal(s.node.gpu_pcie_switch[i], i / 2);
		assert_int_equal(s.node.nic_pcie_switch[i], i / 2);
	}
}

static void
test_load_json(void **state)
{
	static const char json[] =
	        "{\"name\": \"j\", \"nodes\": {\"preset\": \"dgx-b200\", \"count\": 16,"
	        " \"nics\": {\"link\": \"roce800\"}},"
	        " \"fabric\": {\"kind\": \"dragonfly\", \"link\": \"roce800\", \"groups\": 4,"
	        " \"routers_per_group\": 2, \"nodes_per_router\": 2,"
	        " \"global_links_per_router\": 2, \"routing\": \"valiant\"}}";
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };

	if (ft_spec_load_buffer(json, strlen(json), "t.json", &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(s.name, "j");
	assert_int_equal(s.nnodes, 16);
	assert_int_equal(s.fabric.kind, FT_FABRIC_DRAGONFLY);
	assert_int_equal(s.fabric.routing, FT_ROUTING_VALIANT);
	assert_true(s.fabric.link_Bps == 100e9);
	assert_int_equal(ft_spec_fabric_capacity(&s), 16);
}

static void
test_load_custom_node(void **state)
{
	static const char yaml[] = "name: c\n"
	                           "nodes:\n"
	                           "  gpus: 2\n"
	                           "  gpu_model: X1\n"
	                           "  gpu_tflops: 100\n"
	                           "  gpu_memory: 32GB\n"
	                           "  pcie: { gen: 4 }\n";
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };

	if (load(yaml, &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(s.nnodes, 1);
	assert_int_equal(s.fabric.kind, FT_FABRIC_NONE);
	assert_int_equal(s.node.nvlink_gen, 0);
	assert_true(s.node.lat_nvlink_s == 0);
	assert_true(s.node.lat_pcie_s > 0);
	assert_int_equal(s.node.nnics, 0);
	assert_int_equal(s.node.pcie_width_gpu, 16);
	assert_true(s.node.pcie_Bps_gpu == 24e9);
	assert_true(s.node.gpu_mem_GB == 32);
	assert_string_equal(s.node.preset, "");
	/* Compute figures left out are unknown (0); the planner then states its fallbacks. */
	assert_true(s.node.gpu_fp8_tflops == 0 && s.node.gpu_hbm_Bps == 0 &&
	            s.node.gpu_gemm_eff == 0);
}

/* The GPU compute figures the planner reads: hand-written, and overriding a preset's. */
static void
test_load_gpu_compute(void **state)
{
	static const char custom[] = "name: c\n"
	                             "nodes:\n"
	                             "  gpus: 4\n"
	                             "  gpu_model: H100-NVL-94GB\n"
	                             "  gpu_tflops: 835\n"
	                             "  gpu_memory: 94GB\n"
	                             "  gpu_fp8_tflops: 1670\n"
	                             "  gpu_hbm_bandwidth: 3.9TB/s\n"
	                             "  gpu_gemm_efficiency: 0.55\n"
	                             "  pcie: { gen: 5 }\n";
	static const char over[] = "nodes:\n"
	                           "  preset: dgx-a100\n"
	                           "  gpu_hbm_bandwidth: 1555GB/s\n"
	                           "  gpu_gemm_efficiency: 0.7\n";
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };

	(void)state;
	if (load(custom, &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(s.node.gpu_tflops == 835 && s.node.gpu_fp8_tflops == 1670);
	assert_true(s.node.gpu_hbm_Bps == 3.9e12);
	assert_true(s.node.gpu_gemm_eff == 0.55);
	assert_true(s.node.gpu_mem_GB == 94);
	if (load(over, &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_true(s.node.gpu_hbm_Bps == 1555e9 && s.node.gpu_gemm_eff == 0.7);
	assert_true(s.node.gpu_tflops == 312 && s.node.gpu_fp8_tflops == 0); /* the preset's */
}

/* Each bad input: the exact message, with file:line:col and the field. */
static const struct bad_case {
	const char *yaml;
	int code;
	const char *msg;
} bad_cases[] = {
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: abc\n", FT_EPARSE,
	  "t.yaml:4:10: nodes.count: expected an integer from 1 to 1000000, got 'abc'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  gpuz: 4\n", FT_EPARSE,
	  "t.yaml:4:3: nodes.gpuz: unknown key (did you mean 'gpus'? expected one of: preset, "
	  "count, gpus, gpu_model, gpu_tflops, gpu_memory, gpu_fp8_tflops, gpu_hbm_bandwidth, "
	  "gpu_gemm_efficiency, gpu_attach, nvlink, pcie, numa, nics, nccl, placement)" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 2\n  count: 3\n", FT_EPARSE,
	  "t.yaml:5:3: nodes.count: expected each key once, got 'count' again (first at line 4)" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 300\nfabric:\n  kind: rail-fat-tree\n"
	  "  tiers: 2\n",
	  FT_ERANGE,
	  "t.yaml:4:10: nodes.count: expected at most 256 nodes on a 2-tier rail-fat-tree of "
	  "radix-64 switches (2048 host ports, 8 NICs per node), got 300" },
	{ "name: x\nnodes: [1, 2\n", FT_EPARSE,
	  "t.yaml:3:1: yaml: did not find expected ',' or ']' while parsing a flow sequence" },
	{ "name: x\nnodes:\n  preset: dgx-h999\n", FT_EPARSE,
	  "t.yaml:3:11: nodes.preset: expected a node preset (dgx-a100, dgx-b200, dgx-h100, "
	  "hgx-h200, pcie-l40s), got 'dgx-h999'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 4\nfabric:\n  kind: torus\n"
	  "  dims: [4, 4]\n  tiers: 2\n",
	  FT_EPARSE,
	  "t.yaml:8:3: fabric.tiers: unknown key (expected one of the keys of a torus fabric: "
	  "kind, link, rate, switch_latency, cable_latency, mtu, routing, dims, "
	  "nodes_per_switch)" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 4\n  nics: { link: roce400 }\n"
	  "fabric:\n  kind: fat-tree\n  link: roce400\n  sharp: true\n",
	  FT_EINVAL,
	  "t.yaml:9:10: fabric.sharp: expected false on a RoCE fabric (SHARP runs in InfiniBand "
	  "switches, IB-SHARP), got true" },
	{ "name: x\nnodes:\n  gpus: 8\n", FT_EPARSE,
	  "t.yaml:3:3: nodes.gpu_model: expected a value (or a preset: to start from), got "
	  "nothing" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  nics: { rate: fast }\n", FT_EPARSE,
	  "t.yaml:4:17: nodes.nics.rate: expected a rate like 400Gbps or 50GB/s, got 'fast'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  placement: { gpu_nic: [0, 1, 2] }\n", FT_EPARSE,
	  "t.yaml:4:25: nodes.placement.gpu_nic: expected 8 entries (one per GPU), got 3" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n"
	  "  placement: { gpu_nic: [0, 1, 2, 3, 4, 5, 6, 9] }\n",
	  FT_ERANGE,
	  "t.yaml:4:47: nodes.placement.gpu_nic[7]: expected a NIC index below 8, got 9" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 4\nfabric:\n  kind: dragonfly\n"
	  "  groups: 20\n  routers_per_group: 2\n  nodes_per_router: 1\n"
	  "  global_links_per_router: 2\n",
	  FT_ERANGE,
	  "t.yaml:7:11: fabric.groups: expected at most 5 groups (routers_per_group x "
	  "global_links_per_router + 1, so that every pair of groups is linked), got 20" },
	{ "name: x\nnodes:\n  preset: dgx-a100\n  nvlink: { nvls: true }\n", FT_EINVAL,
	  "t.yaml:4:19: nodes.nvlink.nvls: expected false before NVLink 4 (NVLink SHARP needs "
	  "Hopper's NVSwitch), got true with NVLink 3" },
	{ "", FT_EPARSE,
	  "t.yaml:1:1: spec: expected a mapping with name, nodes and fabric, got an empty "
	  "document" },
	{ "- a\n- b\n", FT_EPARSE,
	  "t.yaml:1:1: spec: expected a mapping with name, nodes and fabric, got a list" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 4\nfabric:\n  kind: fat-tree\n"
	  "  oversubscription: \"1:2\"\n",
	  FT_EPARSE,
	  "t.yaml:7:21: fabric.oversubscription: expected a down:up ratio of at least 1, like 1, "
	  "2 or \"3:1\", got '1:2'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 4\nfabric:\n  kind: fat-tree\n"
	  "  routing: minimal\n",
	  FT_EINVAL,
	  "t.yaml:7:12: fabric.routing: expected ecmp, dmodk, minhop (updn) or adaptive for a "
	  "fat-tree, got minimal" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 4\n  nics:\n    link: roce400\n"
	  "fabric:\n  kind: fat-tree\n  link: roce400\n  routing: updn\n",
	  FT_EINVAL,
	  "t.yaml:10:12: fabric.routing: minhop is an InfiniBand subnet manager's routing "
	  "(OpenSM); on RoCE the switches hash (ecmp) or route adaptively" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 4\nfabric:\n  kind: fat-tree\n"
	  "  radix: 63\n",
	  FT_ERANGE,
	  "t.yaml:7:10: fabric.radix: expected an even number of switch ports from 4 to 1024, "
	  "got 63" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 4\nfabric:\n  kind: multi-plane\n"
	  "  planes: 3\n",
	  FT_ERANGE,
	  "t.yaml:7:11: fabric.planes: expected a divisor of the 8 NICs per node, got 3" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  gpu_memory: 80\n", FT_EPARSE,
	  "t.yaml:4:15: nodes.gpu_memory: expected a size like 80GB or 141GB, got '80'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: \"4\"\n", FT_EPARSE,
	  "t.yaml:4:10: nodes.count: expected an integer from 1 to 1000000, got '4'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n---\nname: y\n", FT_EPARSE,
	  "t.yaml:4:1: spec: expected one YAML document, got a second one" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 2\n  nics: { count: 0 }\n", FT_EINVAL,
	  "t.yaml:5:18: nodes.nics.count: expected at least 1 NIC per node for the default "
	  "fabric of 2 nodes, got 0" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  nvlink: { gen: 5 }\n", FT_EPARSE,
	  "t.yaml:4:11: nodes.nvlink.bandwidth: expected a bandwidth per GPU and direction for "
	  "NVLink 5, got nothing" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n"
	  "  placement: { gpu_numa: [0, 0, 0, 0, 1, 1, 1, 0] }\n",
	  FT_EINVAL,
	  "t.yaml:4:48: nodes.placement.gpu_numa[7]: expected 1 (the NUMA domain of its PCIe "
	  "switch 3), got 0" },
	{ "name: x\nnodes:\n  count: 3\n  preset: dgx-h100\nfabric:\n  kind: torus\n", FT_EPARSE,
	  "t.yaml:6:3: fabric.dims: expected a value for a torus fabric, got nothing" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 100\nfabric:\n  kind: torus\n"
	  "  dims: [4, 4]\n",
	  FT_ERANGE,
	  "t.yaml:4:10: nodes.count: expected at most 16 nodes (one node per torus vertex), got "
	  "100" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 4\nfabric:\n  kind: torus\n"
	  "  dims: [4, 1]\n",
	  FT_ERANGE, "t.yaml:7:13: fabric.dims[1]: expected an integer from 2 to 1024, got '1'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 4\nfabric:\n  kind: mesh\n", FT_EPARSE,
	  "t.yaml:6:9: fabric.kind: expected fat-tree, rail-fat-tree, multi-plane, dragonfly, "
	  "torus or none, got 'mesh'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 4\nfabric: none\n", FT_EINVAL,
	  "t.yaml:5:9: fabric.kind: expected a fabric to join 4 nodes, got none" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  nvlink: { nvswitch: yes }\n", FT_EPARSE,
	  "t.yaml:4:23: nodes.nvlink.nvswitch: expected true or false, got 'yes'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  pcie: { gpu_width: 12 }\n", FT_EPARSE,
	  "t.yaml:4:22: nodes.pcie.gpu_width: expected 1, 2, 4, 8 or 16 lanes, got '12'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 8\nfabric:\n  kind: fat-tree\n"
	  "  switch_latency: soon\n",
	  FT_EPARSE,
	  "t.yaml:7:19: fabric.switch_latency: expected a duration like 150ns or 2us, got "
	  "'soon'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 2\n", 0, NULL }, /* control: fine */
	{ "name: x\nnodes:\n  preset: dgx-h100\n  gpu_gemm_efficiency: 53\n", FT_ERANGE,
	  "t.yaml:4:24: nodes.gpu_gemm_efficiency: expected a number from 0.01 to 1, got '53'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  gpu_hbm_bandwidth: 3.35\n", FT_EPARSE,
	  "t.yaml:4:22: nodes.gpu_hbm_bandwidth: expected a rate like 400Gbps or 50GB/s, got "
	  "'3.35'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  gpu_fp8_tflops: -1\n", FT_ERANGE,
	  "t.yaml:4:19: nodes.gpu_fp8_tflops: expected a number from 0 to 1e+06, got '-1'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  gpu_fp8_tflops: 900\n", FT_ERANGE,
	  "t.yaml:4:19: nodes.gpu_fp8_tflops: expected 0 (no FP8) or at least the dense FP16 "
	  "figure 989.4, got 900" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 4\nfabric:\n  kind: fat-tree\n"
	  "  link: roce400\n",
	  FT_EINVAL,
	  "t.yaml:7:9: fabric.link: expected an InfiniBand link like the NICs' ndr (or set "
	  "nodes.nics.link), got roce400" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 2\nfabric:\n  kind: fat-tree\n"
	  "  mtu: 1500\n",
	  FT_EPARSE,
	  "t.yaml:7:8: fabric.mtu: expected an MTU of 256, 512, 1024, 2048 or 4096 bytes, got "
	  "'1500'" },
	{ "name: [x]\nnodes:\n  preset: dgx-h100\n", FT_EPARSE,
	  "t.yaml:1:7: name: expected a name, got a list" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 2\nfabric:\n  kind: fat-tree\n"
	  "  link: ndr\n  link: hdr\n",
	  FT_EPARSE,
	  "t.yaml:8:3: fabric.link: expected each key once, got 'link' again (first at "
	  "line 7)" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 2\nfabric:\n  kind: rail-fat-tree\n"
	  "  nodes_per_unit: 40\n",
	  FT_ERANGE,
	  "t.yaml:7:19: fabric.nodes_per_unit: expected at most 32 nodes per scalable unit "
	  "(the down ports of a leaf), got 40" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 8\nfabric:\n  kind: dragonfly\n"
	  "  groups: 2\n  routers_per_group: 2\n  nodes_per_router: 2\n"
	  "  global_links_per_router: 1\n  radix: 16\n",
	  FT_ERANGE,
	  "t.yaml:11:10: fabric.radix: expected at least 18 router ports (nodes x NICs + local + "
	  "global links), got 16" },
	/* The lists of the nodes and fabric sections share one reader: each of its refusals. */
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 4\nfabric:\n  kind: torus\n"
	  "  dims: [2, 2, 2, 2]\n",
	  FT_EPARSE, "t.yaml:7:19: fabric.dims: expected 2 or 3 dimensions, got '2'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 4\nfabric:\n  kind: torus\n  dims: 8\n",
	  FT_EPARSE,
	  "t.yaml:7:9: fabric.dims: expected a list of 2 or 3 ring sizes like [8, 8, 8], got '8'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 4\nfabric:\n  kind: torus\n  dims: [4]\n",
	  FT_EPARSE, "t.yaml:7:9: fabric.dims: expected 2 or 3 dimensions, got a list" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  placement: { gpu_nic: 3 }\n", FT_EPARSE,
	  "t.yaml:4:25: nodes.placement.gpu_nic: expected a list of indexes like [0, 0, 1, 1], "
	  "got '3'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  placement: { pcie_switch_numa: "
	  "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }\n",
	  FT_EPARSE,
	  "t.yaml:4:83: nodes.placement.pcie_switch_numa: expected at most 16 entries, got '0'" },
	/* Nested tables of the nodes section: their keys, types and ranges. */
	{ "name: x\nnodes:\n  preset: dgx-h100\n  pcie: 5\n", FT_EPARSE,
	  "t.yaml:4:9: nodes.pcie: expected a mapping, got '5'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  pcie: { gen: 7 }\n", FT_ERANGE,
	  "t.yaml:4:16: nodes.pcie.gen: expected an integer from 1 to 6, got '7'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  nics: { modl: CX7 }\n", FT_EPARSE,
	  "t.yaml:4:11: nodes.nics.modl: unknown key (did you mean 'model'? expected one of: "
	  "count, model, link, rate, latency, per_gpu, vm_overhead, net_latency, rendezvous)" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  nics: { link: edr }\n", FT_EPARSE,
	  "t.yaml:4:17: nodes.nics.link: expected a link preset (hdr, ndr, xdr, roce100, roce200, "
	  "roce400, roce800, spcx400, efa100, tcpx200), got 'edr'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  nics: { latency: soon }\n", FT_EPARSE,
	  "t.yaml:4:20: nodes.nics.latency: expected a duration like 150ns or 2us, got 'soon'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  numa: { domains: 0 }\n", FT_ERANGE,
	  "t.yaml:4:20: nodes.numa.domains: expected an integer from 1 to 64, got '0'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  nvlink: { domain_nodes: 0 }\n", FT_ERANGE,
	  "t.yaml:4:27: nodes.nvlink.domain_nodes: expected an integer from 1 to 1024, got '0'" },
	{ "name: x\nnodes:\n  preset: dgx-h100\n  count: 4\nfabric:\n  kind: dragonfly\n"
	  "  routers_per_group: 0\n",
	  FT_ERANGE,
	  "t.yaml:7:22: fabric.routers_per_group: expected an integer from 1 to 1024, got '0'" },
};

static void
test_load_errors(void **state)
{
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };
	size_t i;
	int rc;

	for (i = 0; i < FT_ARRAY_SIZE(bad_cases); i++) {
		rc = load(bad_cases[i].yaml, &s, &err);
		if (rc != bad_cases[i].code)
			fail_msg("case %zu: rc %d, expected %d (%s)", i, rc, bad_cases[i].code,
			         err.msg);
		if (!bad_cases[i].msg)
			continue;
		if (strcmp(err.msg, bad_cases[i].msg) != 0)
			fail_msg("case %zu:\n got: %s\nwant: %s", i, err.msg, bad_cases[i].msg);
		assert_true(is_zero(&s, sizeof(s)));
	}
}

/* Calibration entries: typed fields of the one reader, in an entry of their own. */
static void
test_load_calibration(void **state)
{
	static const char good[] = "name: x\nnodes:\n  preset: dgx-h100\ncalibration:\n"
	                           "  - {op: all_reduce, ranks: 16, fixed: 5us, latency_scale: 1.5,\n"
	                           "     bandwidth_scale: 0.8}\n"
	                           "  - {op: alltoall, fixed: 2ms}\n";
	static const char bad[] = "name: x\nnodes:\n  preset: dgx-h100\ncalibration:\n"
	                          "  - {op: all_reduce, ranks: \"16\"}\n";
	static const char range[] = "name: x\nnodes:\n  preset: dgx-h100\ncalibration:\n"
	                            "  - op: all_reduce\n    bandwidth_scale: 0\n";
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };

	(void)state;
	assert_int_equal(load(good, &s, &err), 0);
	assert_int_equal(s.ncalib, 2);
	assert_string_equal(s.calib[0].op, "all_reduce");
	assert_int_equal(s.calib[0].nranks, 16);
	assert_true(fabs(s.calib[0].fixed_s - 5e-6) < 1e-18);
	assert_true(s.calib[0].lat_scale == 1.5 && s.calib[0].bw_scale == 0.8);
	/* not given: the neutral constants */
	assert_int_equal(s.calib[1].nranks, 0);
	assert_true(fabs(s.calib[1].fixed_s - 2e-3) < 1e-15);
	assert_true(s.calib[1].lat_scale == 1 && s.calib[1].bw_scale == 1);
	memset(&err, 0, sizeof(err));
	assert_int_equal(load(bad, &s, &err), FT_EPARSE);
	assert_string_equal(err.msg, "t.yaml:5:29: calibration[0].ranks: expected an integer from 0 "
	                             "to 4294967295, got '16'");
	memset(&err, 0, sizeof(err));
	assert_int_equal(load(range, &s, &err), FT_ERANGE);
	assert_string_equal(err.msg, "t.yaml:6:22: calibration[0].bandwidth_scale: expected a "
	                             "number from 0.01 to 1000, got '0'");
}

static void
test_load_file_missing(void **state)
{
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };

	assert_int_equal(ft_spec_load_file("tests/fixtures/spec/none.yaml", &s, &err), FT_ENOENT);
	assert_non_null(strstr(err.msg, "tests/fixtures/spec/none.yaml"));
	assert_int_equal(ft_spec_load_buffer("x", 1, "t", NULL, NULL), FT_EINVAL);
}

/* Every line of a larger file: truncated prefixes are refused, never crash. */
static void
test_load_truncations(void **state)
{
	struct ft_cluster_spec s;
	struct ft_strbuf sb;
	struct ft_error err;
	size_t len;

	ft_strbuf_init(&sb);
	assert_int_equal(ft_strbuf_read_file(&sb, "examples/custom-node.yaml", NULL), 0);
	for (len = 0; len <= sb.len; len++) {
		ft_error_clear(&err);
		if (ft_spec_load_buffer(sb.buf, len, "t.yaml", &s, &err) < 0)
			assert_true(strncmp(err.msg, "t.yaml:", 7) == 0);
	}
	ft_strbuf_release(&sb);
}

static void
test_validate_names_field(void **state)
{
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };

	assert_int_equal(ft_spec_resolve("dgx-h100:4", &s, &err), 0);
	s.node.gpu_nic[2] = 12;
	assert_int_equal(ft_spec_validate(&s, &err), FT_ERANGE);
	assert_string_equal(err.msg, "dgx-h100:4: nodes.placement.gpu_nic[2]: expected a NIC index "
	                             "below 8, got 12");
	ft_error_clear(&err);
	s.node.gpu_nic[2] = 2;
	s.fabric.routing = FT_ROUTING_DOR;
	assert_int_equal(ft_spec_validate(&s, &err), FT_EINVAL);
	assert_string_equal(err.msg, "dgx-h100:4: fabric.routing: expected ecmp, dmodk, minhop "
	                             "(updn) or adaptive for a rail-fat-tree, got dor");
	assert_int_equal(ft_spec_validate(NULL, NULL), FT_EINVAL);

	/* A spec built in code may leave these at 0: non-blocking, units of a leaf. */
	ft_error_clear(&err);
	s.fabric.routing = FT_ROUTING_ECMP;
	s.fabric.oversubscription = 0;
	s.fabric.nodes_per_unit = 0;
	s.name[0] = '\0'; /* names are descriptive */
	s.node.gpu_model[0] = '\0';
	assert_int_equal(ft_spec_validate(&s, &err), 0);
	s.fabric.oversubscription = 0.5;
	assert_int_equal(ft_spec_validate(&s, &err), FT_ERANGE);
	assert_non_null(strstr(err.msg, "fabric.oversubscription"));
}

/*
 * Node groups: nodes: as a list, each a node kind of its own; nodes are numbered
 * group by group. An error inside a group names the group and its line.
 */
static void
test_node_groups(void **state)
{
	static const char ok[] = "name: mixed\n"
	                         "nodes:\n"
	                         "  - { preset: dgx-h100, count: 3 }\n"
	                         "  - preset: dgx-h100\n"
	                         "    count: 2\n"
	                         "    nics: { count: 8, rate: 200Gbps }\n"
	                         "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n";
	static const char bad_group[] = "name: mixed\n"
	                                "nodes:\n"
	                                "  - { preset: dgx-h100, count: 2 }\n"
	                                "  - preset: dgx-h100\n"
	                                "    count: 2\n"
	                                "    nics: { count: 8, per_gpu: 4 }\n"
	                                "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n";
	static const char one[] = "name: x\nnodes:\n  - { preset: dgx-h100, count: 2 }\n";
	static const char no_model[] = "name: x\nnodes:\n  - { preset: dgx-h100, count: 2 }\n"
	                               "  - { gpus: 4 }\n";
	static const char scalar[] = "name: x\nnodes:\n  - dgx-h100\n  - dgx-h100\n";
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };

	(void)state;
	assert_int_equal(load(ok, &s, &err), 0);
	assert_int_equal(s.ngroups, 2);
	assert_int_equal(s.nnodes, 5);
	assert_int_equal(s.groups[0].count, 3);
	assert_int_equal(s.groups[1].count, 2);
	assert_ptr_equal(ft_spec_node_at(&s, 0), &s.groups[0].node);
	assert_ptr_equal(ft_spec_node_at(&s, 2), &s.groups[0].node);
	assert_ptr_equal(ft_spec_node_at(&s, 3), &s.groups[1].node);
	assert_ptr_equal(ft_spec_node_at(&s, 4), &s.groups[1].node);
	assert_true(fabs(ft_spec_node_at(&s, 4)->nic_Bps - 25e9) < 1);
	assert_true(ft_spec_node_at(&s, 0)->nic_Bps > 49e9);
	assert_int_equal(ft_spec_validate(&s, &err), 0);

	assert_true(load(bad_group, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "t.yaml:"));
	assert_non_null(strstr(err.msg, "nodes[1].placement.gpu_nic["));
	assert_non_null(strstr(err.msg, "nics.per_gpu 4"));
	assert_true(load(one, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "t.yaml:3:3: nodes: expected a list of 2 to 8 node groups"));
	assert_true(load(no_model, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "t.yaml:4:5: nodes[1].gpu_model: expected a value"));
	assert_true(load(scalar, &s, &err) < 0);
	assert_non_null(strstr(err.msg, "t.yaml:3:5: nodes[0]: expected a node group"));
}

/* examples/ ships specs; each must load (and the directory must not be empty). */
static void
test_examples_load(void **state)
{
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };
	struct dirent *d;
	char path[512];
	size_t n = 0, len;
	DIR *dir = opendir("examples");

	assert_non_null(dir);
	while ((d = readdir(dir)) != NULL) {
		len = strlen(d->d_name);
		if (!((len > 5 && strcmp(d->d_name + len - 5, ".yaml") == 0) ||
		      (len > 5 && strcmp(d->d_name + len - 5, ".json") == 0)))
			continue;
		snprintf(path, sizeof(path), "examples/%s", d->d_name);
		ft_error_clear(&err);
		if (ft_spec_load_file(path, &s, &err) < 0)
			fail_msg("%s: %s", path, err.msg);
		assert_int_equal(ft_spec_validate(&s, &err), 0);
		assert_true(s.nnodes >= 1 && s.name[0]);
		n++;
	}
	closedir(dir);
	assert_true(n >= 7);
}

/* A spec in words: a 2-tier tree of radix 64 at 3:1 says its leaf split (48 down, 16 up) and
 * its capacity (k^2/2 x 3/2 = 3072 nodes: 64 leaves of 48 hosts); one node stops at "fabric
 * none". The JSON carries the same figures. */
static void
test_write_spec(void **state)
{
	struct ft_cluster_spec s;
	struct ft_strbuf sb;
	struct ft_json j;

	(void)state;
	memset(&s, 0, sizeof(s));
	ft_strlcpy(s.name, "tiny", sizeof(s.name));
	ft_strlcpy(s.source, "tiny.yaml", sizeof(s.source));
	s.nnodes = 2;
	s.node.ngpus = 4;
	ft_strlcpy(s.node.gpu_model, "X1", sizeof(s.node.gpu_model));
	s.node.gpu_tflops = 100;
	s.node.gpu_mem_GB = 80;
	s.node.nnuma = 1;
	s.node.nnics = 1;
	ft_strbuf_init(&sb);
	ft_spec_write_text(&s, &sb);
	assert_non_null(strstr(sb.buf, "cluster tiny (tiny.yaml)\n"
	                                "  nodes      2 x custom node, 8 GPUs\n"
	                                "  gpu        4 x X1, 100 TFLOPS dense fp16, 80 GB\n"
	                                "  compute    no fp8, HBM bandwidth unknown, "
	                                "GEMM efficiency unknown\n"
	                                "  nvlink     none\n"));
	assert_string_equal(sb.buf + sb.len - strlen("  fabric     none\n"), "  fabric     none\n");
	s.fabric.kind = FT_FABRIC_FAT_TREE;
	s.fabric.radix = 64;
	s.fabric.oversubscription = 3;
	s.fabric.tiers = 2;
	ft_strbuf_reset(&sb);
	ft_spec_write_text(&s, &sb);
	assert_non_null(strstr(sb.buf, "  fabric     fat-tree\n"));
	assert_non_null(strstr(sb.buf, "  tiers      2, radix 64, leaf 48 down / 16 up (3:1)\n"));
	assert_non_null(strstr(sb.buf, "  routing    ecmp, sharp no\n  capacity   3072 nodes\n"));
	ft_strbuf_reset(&sb);
	ft_json_init(&j, &sb, false);
	ft_spec_write_json(&s, &j);
	assert_non_null(strstr(sb.buf, "{\"name\":\"tiny\",\"source\":\"tiny.yaml\",\"nnodes\":2,"
	                                "\"ngpus\":8,\"node\":{"));
	assert_non_null(strstr(sb.buf, "\"tiers\":2,\"radix\":64,\"oversubscription\":3,"
	                                "\"leaf_down_ports\":48,\"leaf_up_ports\":16,"));
	assert_non_null(strstr(sb.buf, "\"capacity_nodes\":3072}}"));
	ft_strbuf_release(&sb);
}

/* Every node preset and link preset is listed, in both forms. */
static void
test_write_presets(void **state)
{
	struct ft_strbuf sb;
	size_t i, n = 0;

	(void)state;
	ft_strbuf_init(&sb);
	ft_spec_presets_write_text(&sb);
	for (i = 0; i < ft_node_preset_count(); i++) {
		char want[80];

		snprintf(want, sizeof(want), "  %s ", ft_node_preset_name(i));
		assert_non_null(strstr(sb.buf, want));
	}
	assert_non_null(strstr(sb.buf, "\nlink presets:\n"));
	ft_strbuf_reset(&sb);
	ft_spec_presets_write_json(&sb);
	for (const char *p = strstr(sb.buf, "\"gpu_model\":"); p; p = strstr(p + 1, "\"gpu_model\":"))
		n++;
	assert_int_equal(n, ft_node_preset_count());
	for (i = 0; ft_link_preset_at(i) != NULL; i++) {
		char want[80];

		snprintf(want, sizeof(want), "{\"name\":\"%s\",", ft_link_preset_at(i)->name);
		assert_non_null(strstr(sb.buf, want));
	}
	assert_int_equal(sb.buf[sb.len - 1], '\n');
	ft_strbuf_release(&sb);
}

/* A routing given as an option's value: the name read, or the option and the choices named. */
static void
test_routing_from_arg(void **state)
{
	enum ft_routing r;
	struct ft_error err = { 0 };

	(void)state;
	assert_int_equal(ft_routing_from_arg("--routing", "dmodk", &r, &err), 0);
	assert_int_equal(r, FT_ROUTING_DMODK);
	assert_int_equal(ft_routing_from_arg("--routing", "random", &r, &err), FT_EINVAL);
	assert_string_equal(err.msg, "--routing: expected ecmp, dmodk, adaptive, minimal, valiant, "
	                             "dor or minhop, got 'random'");
	assert_int_equal(ft_routing_from_arg("--routing", "updn", &r, &err), 0);
	assert_int_equal(r, FT_ROUTING_MINHOP);
	assert_int_equal(ft_routing_from_name("minhop", &r), 0);
	assert_int_equal(r, FT_ROUTING_MINHOP);
}

/* ---- the NCCL release in scenario and sweep files ----------------------------------------- */

static int
scenario_nccl(const char *nccl_line, struct ft_scenario **sc, struct ft_error *err)
{
	char text[512];

	snprintf(text, sizeof(text),
	         "cluster: dgx-h100:2\nengine: analytic\n%s"
	         "jobs:\n  - {name: ar, ops: [{op: all_reduce, size: 1GiB, algo: tree, "
	         "proto: simple}]}\n",
	         nccl_line);
	ft_error_clear(err);
	return ft_scenario_load_buffer(text, strlen(text), "r.yaml", sc, err);
}

/* The release the run reports (rep.nccl_version), with --nccl @cli (0: none) and --cluster
 * @cluster (NULL: none); the run's first row's time in @time_us. */
static uint32_t
run_release(const struct ft_scenario *sc, uint32_t cli, const char *cluster, double *time_us)
{
	struct ft_sim_overrides ov;
	struct ft_sim_report rep;
	struct ft_error err = { 0 };
	uint32_t v;

	ft_sim_overrides_init(&ov);
	ov.nccl_version = cli;
	ov.cluster = cluster;
	ft_sim_report_init(&rep);
	assert_int_equal(ft_scenario_run(sc, &ov, NULL, &rep, &err), 0);
	v = rep.nccl_version;
	*time_us = ft_run_row(&rep.run, 0)->time_us;
	ft_sim_report_release(&rep);
	return v;
}

/* The model's time in us of scenario_nccl()'s job (a forced tree/Simple all-reduce of 1 GiB)
 * on @cluster at release @version (0: the newest). */
static double
model_tree_us(const char *cluster, uint32_t version)
{
	struct ft_cluster_spec *spec = calloc(1, sizeof(*spec));
	struct ft_model_query q;
	struct ft_model_result m;
	struct ft_error err = { 0 };
	double us;

	assert_non_null(spec);
	assert_int_equal(ft_spec_resolve(cluster, spec, &err), 0);
	ft_model_query_init(&q, FT_OP_ALL_REDUCE, 1u << 30);
	q.force_algo = q.force_proto = true;
	q.algo = FT_ALGO_TREE;
	q.proto = FT_PROTO_SIMPLE;
	q.nccl_version = version;
	assert_int_equal(ft_model_eval(spec, &q, &m, &err), 0);
	us = m.time_s * 1e6;
	free(spec);
	return us;
}

/*
 * A scenario's nccl: {version: V} reads V as `fabtune sim --nccl` does ("2.21", the line's
 * newest patch, 22199; "2.23.4", 22304), refuses what --nccl refuses with the same words
 * after file:line:col and the field, and rides on the cluster's spec copy: the run reports
 * it, --nccl replaces it, --cluster keeps it. The job, a forced tree/Simple all-reduce of
 * 1 GiB, takes ft_model_eval()'s time at the run's release and cluster (the analytic engine
 * is the model), --cluster dgx-h100:4's at the file's 2.18. Over 2 DGX H100 2.18 runs 32
 * tree channels, the newest 16 (test_engines_take_the_release), so 2.18's run is the slower.
 */
static void
test_scenario_nccl_version(void **state)
{
	static const struct {
		const char *line, *msg;
	} bad[] = {
		{ "nccl: {version: \"3.1\"}\n",
		  "r.yaml:3:17: nccl.version: expected a version like 2.21 or 2.23.4, got '3.1'" },
		{ "nccl: {version: 2.17}\n",
		  "r.yaml:3:17: nccl.version: expected 2.18 to 2.30 (the releases the model "
		  "knows), got '2.17'" },
		{ "nccl: {version: 2.31}\n",
		  "r.yaml:3:17: nccl.version: expected 2.18 to 2.30 (the releases the model "
		  "knows), got '2.31'" },
		{ "nccl: {version: \"2.30.99\"}\n",
		  "r.yaml:3:17: nccl.version: expected a version like 2.21 or 2.23.4, got "
		  "'2.30.99'" },
		{ "nccl: {version: }\n", "r.yaml:3:" },
		{ "nccl: \"2.21\"\n", "r.yaml:3:7: nccl: expected a mapping like {version: " },
		{ "nccl: {release: 2.21}\n", "r.yaml:3:8: nccl.release" },
	};
	struct ft_scenario *sc = NULL;
	struct ft_error err = { 0 };
	double t_file, t_cli, t_new, t_four;

	(void)state;
	assert_int_equal(scenario_nccl("nccl: {version: 2.21}\n", &sc, &err), 0);
	assert_int_equal(sc->spec.nccl_version, 22199);
	ft_scenario_free(sc);
	assert_int_equal(scenario_nccl("nccl:\n  version: \"2.23.4\"\n", &sc, &err), 0);
	assert_int_equal(sc->spec.nccl_version, 22304);
	ft_scenario_free(sc);
	assert_int_equal(scenario_nccl("", &sc, &err), 0);
	assert_int_equal(sc->spec.nccl_version, 0);
	ft_scenario_free(sc);
	for (size_t i = 0; i < FT_ARRAY_SIZE(bad); i++) {
		sc = NULL;
		assert_true(scenario_nccl(bad[i].line, &sc, &err) < 0);
		assert_null(sc);
		if (strncmp(err.msg, bad[i].msg, strlen(bad[i].msg)) != 0)
			fail_msg("%s: got '%s', want '%s...'", bad[i].line, err.msg, bad[i].msg);
	}

	/* the file's release runs; --nccl wins; another cluster keeps the file's: each run
	 * the model's time at its release and cluster */
	assert_int_equal(scenario_nccl("nccl: {version: \"2.18\"}\n", &sc, &err), 0);
	assert_int_equal(run_release(sc, 0, NULL, &t_file), 21899);
	assert_int_equal(run_release(sc, 23099, NULL, &t_cli), 23099);
	assert_int_equal(run_release(sc, 0, "dgx-h100:4", &t_four), 21899);
	ft_scenario_free(sc);
	assert_int_equal(scenario_nccl("", &sc, &err), 0);
	assert_int_equal(run_release(sc, 0, NULL, &t_new), 0);
	ft_scenario_free(sc);
	assert_true(fabs(t_file / model_tree_us("dgx-h100:2", 21899) - 1) < 1e-9);
	assert_true(fabs(t_cli / model_tree_us("dgx-h100:2", 23099) - 1) < 1e-9);
	assert_true(fabs(t_new / model_tree_us("dgx-h100:2", 0) - 1) < 1e-9);
	assert_true(fabs(t_four / model_tree_us("dgx-h100:4", 21899) - 1) < 1e-9);
	/* the 4-node run is at 2.18, not the newest (7,445.4 against 7,453.8 us, 0.11 %
	 * apart), and not the 2-node time (7,005.4 us) */
	assert_true(fabs(t_four / model_tree_us("dgx-h100:4", 0) - 1) > 5e-4);
	assert_true(t_four > 1.05 * t_file);
	/* 2.30 and the newest are one release here; 2.18's 32 channels make it the slower */
	assert_true(fabs(t_cli - t_new) <= 1e-9 * t_new);
	assert_true(t_file > 1.05 * t_new);
}

/* A sweep over releases: vary.nccl, each point at its release (params and report name it),
 * values refused as --nccl refuses them (ft_model_nccl_read_field()'s words and code after
 * file:line:col and the field), and --nccl with the axis refused. */
static void
test_sweep_nccl_axis(void **state)
{
	const char *root = ft_test_build_root();
	char scen[512], sweep[512];
	static const struct {
		const char *line, *msg;
		int rc;
	} bad[] = {
		{ "nccl: [2.18, 2.17]",
		  "spec-nccl-sweep.yaml:3:16: vary.nccl: expected 2.18 to 2.30 (the releases the "
		  "model knows), got '2.17'",
		  FT_ERANGE },
		{ "nccl: [\"3.1\"]",
		  "spec-nccl-sweep.yaml:3:10: vary.nccl: expected a version like 2.21 or 2.23.4, "
		  "got '3.1'",
		  FT_EINVAL },
		{ "engine: [flow, spray]",
		  "spec-nccl-sweep.yaml:3:18: vary.engine: expected analytic, flow, ideal or "
		  "packet, got 'spray'",
		  FT_EPARSE },
	};
	struct ft_sim_overrides ov;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	bool is_root = false;
	FILE *fp;

	(void)state;
	snprintf(scen, sizeof(scen), "%s/spec-nccl-scen.yaml", root);
	snprintf(sweep, sizeof(sweep), "%s/spec-nccl-sweep.yaml", root);
	fp = fopen(scen, "w");
	assert_non_null(fp);
	fputs("cluster: dgx-h100:2\nengine: analytic\nnccl: {version: \"2.21\"}\n"
	      "jobs:\n  - {name: ar, ops: [{op: all_reduce, algo: tree, size: 1GiB}]}\n",
	      fp);
	fclose(fp);
	fp = fopen(sweep, "w");
	assert_non_null(fp);
	fputs("scenario: spec-nccl-scen.yaml\nvary:\n  nccl: [\"2.18\", 2.23.4]\n", fp);
	fclose(fp);
	ft_sim_overrides_init(&ov);
	ft_strbuf_init(&sb);
	assert_int_equal(ft_sim_sweep_run(sweep, &ov, true, NULL, &sb, NULL, &is_root, &err), 0);
	assert_true(is_root);
	assert_non_null(strstr(sb.buf, "\"params\":{\"nccl\":\"2.18\"}"));
	assert_non_null(strstr(sb.buf, "\"params\":{\"nccl\":\"2.23.4\"}"));
	assert_non_null(strstr(sb.buf, "\"nccl\":\"2.18\",")); /* point 0's report */
	assert_non_null(strstr(sb.buf, "\"nccl\":\"2.23.4\","));
	assert_null(strstr(sb.buf, "\"nccl\":\"2.21\"")); /* the axis wins over the file */
	ft_strbuf_release(&sb);

	ov.nccl_version = 22199;
	ft_strbuf_init(&sb);
	assert_int_equal(ft_sim_sweep_run(sweep, &ov, true, NULL, &sb, NULL, &is_root, &err), FT_EINVAL);
	assert_non_null(strstr(err.msg, "--nccl: not with "));
	assert_non_null(strstr(err.msg, "which varies nccl"));
	ft_strbuf_release(&sb);

	/* a bad value: the place, the field and --nccl's words (its code too); an engine's
	 * choices name every engine a point can run */
	for (size_t i = 0; i < FT_ARRAY_SIZE(bad); i++) {
		fp = fopen(sweep, "w");
		assert_non_null(fp);
		fprintf(fp, "scenario: spec-nccl-scen.yaml\nvary:\n  %s\n", bad[i].line);
		fclose(fp);
		ft_sim_overrides_init(&ov);
		ft_error_clear(&err);
		ft_strbuf_init(&sb);
		assert_int_equal(ft_sim_sweep_run(sweep, &ov, true, NULL, &sb, NULL, &is_root, &err),
		                 bad[i].rc);
		if (!strstr(err.msg, bad[i].msg))
			fail_msg("%s: got '%s', want '%s'", bad[i].line, err.msg, bad[i].msg);
		if (strncmp(bad[i].line, "engine", 6) == 0)
			for (size_t k = 0; k < ft_sim_engine_count(); k++)
				assert_non_null(strstr(err.msg, ft_sim_engine_at(k)->name));
		ft_strbuf_release(&sb);
	}
	remove(sweep);
	remove(scen);
}

/* A release older than the cluster's GPUs, named by where it came from: a scenario's
 * nccl.version by its file:line:col (the run's report), a sweep's vary.nccl value by its
 * own, each such value said once in the sweep's notes and carried by its point's report;
 * a release that knows the GPUs says nothing. */
static void
test_nccl_note_places(void **state)
{
	const char *root = ft_test_build_root();
	char scen[512], sweep[512], want[640];
	struct ft_sim_overrides ov;
	struct ft_sim_report rep;
	struct ft_scenario *sc = NULL;
	struct ft_error err = { 0 };
	struct ft_strbuf sb, notes;
	bool is_root = false;
	const char *p;
	size_t lines = 0;
	FILE *fp;

	(void)state;
	snprintf(scen, sizeof(scen), "%s/spec-note-scen.yaml", root);
	snprintf(sweep, sizeof(sweep), "%s/spec-note-sweep.yaml", root);
	fp = fopen(scen, "w");
	assert_non_null(fp);
	fputs("cluster: dgx-b200:1\nengine: analytic\nnccl:\n  version: \"2.18\"\n"
	      "jobs:\n  - {name: ar, ops: [{op: all_reduce, algo: ring, size: 1MiB}]}\n",
	      fp);
	fclose(fp);
	fp = fopen(sweep, "w");
	assert_non_null(fp);
	fputs("scenario: spec-note-scen.yaml\nvary:\n  nccl: [\"2.18\", \"2.27\", \"2.24\"]\n", fp);
	fclose(fp);

	assert_int_equal(ft_scenario_load_file(scen, &sc, &err), 0);
	ft_sim_overrides_init(&ov);
	ft_sim_report_init(&rep);
	assert_int_equal(ft_scenario_run(sc, &ov, NULL, &rep, &err), 0);
	assert_int_equal(rep.nccl_note.first, 22501);
	assert_string_equal(rep.nccl_field, "nccl.version");
	snprintf(want, sizeof(want), "%s:4:12", scen);
	assert_string_equal(rep.nccl_where, want);
	ft_sim_report_release(&rep);
	/* --nccl: the option, no place */
	ov.nccl_version = 22403;
	ft_sim_report_init(&rep);
	assert_int_equal(ft_scenario_run(sc, &ov, NULL, &rep, &err), 0);
	assert_string_equal(rep.nccl_field, "--nccl");
	assert_string_equal(rep.nccl_where, "");
	ft_sim_report_release(&rep);
	ft_scenario_free(sc);

	ft_sim_overrides_init(&ov);
	ft_strbuf_init(&sb);
	ft_strbuf_init(&notes);
	assert_int_equal(ft_sim_sweep_run(sweep, &ov, true, NULL, &sb, &notes, &is_root, &err),
	                 0);
	assert_false(notes.oom);
	for (p = notes.buf; p && (p = strchr(p, '\n')); p++)
		lines++;
	assert_int_equal(lines, 2); /* 2.18 and 2.24, not 2.27 */
	snprintf(want, sizeof(want), "%s:3:10: vary.nccl 2.18: NCCL 2.18 predates the B200", sweep);
	assert_non_null(strstr(notes.buf, want));
	snprintf(want, sizeof(want), "%s:3:26: vary.nccl 2.24: NCCL 2.24 predates", sweep);
	assert_non_null(strstr(notes.buf, want));
	/* each point's report: its own value's place, not --nccl */
	snprintf(want, sizeof(want), "\"field\":\"vary.nccl\",\"where\":\"%s:3:26\"", sweep);
	assert_non_null(strstr(sb.buf, want));
	assert_null(strstr(sb.buf, "\"field\":\"--nccl\""));
	ft_strbuf_release(&sb);
	ft_strbuf_release(&notes);

	/* without the axis: the scenario's own release, by its place */
	fp = fopen(sweep, "w");
	assert_non_null(fp);
	fputs("scenario: spec-note-scen.yaml\nvary:\n  seed: [1, 2]\n", fp);
	fclose(fp);
	ft_strbuf_init(&sb);
	ft_strbuf_init(&notes);
	assert_int_equal(ft_sim_sweep_run(sweep, &ov, true, NULL, &sb, &notes, &is_root, &err),
	                 0);
	snprintf(want, sizeof(want), "%s:4:12: nccl.version 2.18: NCCL 2.18 predates", scen);
	assert_non_null(strstr(notes.buf, want));
	assert_ptr_equal(strchr(notes.buf, '\n'), notes.buf + notes.len - 1); /* once */
	ft_strbuf_release(&sb);
	ft_strbuf_release(&notes);
	remove(sweep);
	remove(scen);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node_presets_validate),
		cmocka_unit_test(test_node_preset_figures),
		cmocka_unit_test(test_link_presets),
		cmocka_unit_test(test_nccl_pxn_disable),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_resolve_shorthand),
		cmocka_unit_test(test_resolve_bad),
		cmocka_unit_test(test_capacity),
		cmocka_unit_test(test_load_full),
		cmocka_unit_test(test_load_overrides),
		cmocka_unit_test(test_load_json),
		cmocka_unit_test(test_load_custom_node),
		cmocka_unit_test(test_load_gpu_compute),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_load_calibration),
		cmocka_unit_test(test_load_file_missing),
		cmocka_unit_test(test_load_truncations),
		cmocka_unit_test(test_validate_names_field),
		cmocka_unit_test(test_examples_load),
		cmocka_unit_test(test_node_groups),
		cmocka_unit_test(test_write_spec),
		cmocka_unit_test(test_write_presets),
		cmocka_unit_test(test_cloud_presets),
		cmocka_unit_test(test_cloud_preset_nccl_env),
		cmocka_unit_test(test_routing_from_arg),
		cmocka_unit_test(test_gpu_attach),
		cmocka_unit_test(test_scenario_nccl_version),
		cmocka_unit_test(test_sweep_nccl_axis),
		cmocka_unit_test(test_nccl_note_places),
	};

	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

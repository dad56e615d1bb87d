/* SPDX-License-Identifier: MIT */
/*
 * spec/presets_cloud.c - node presets for GPU instances whose scale-out
 * network is the provider's (AWS EFA, Google Cloud GPUDirect-TCPX/TCPXO) or
 * NVIDIA Spectrum-X: an HGX board preset (GPUs, NVLink, PCIe, sockets) with
 * the instance's NICs, their count, rate and transport. docs/presets.md
 * names the public source of every figure (PS-* entries) and what is not
 * published; the NICs' PCIe placement inside a VM is not published, so it
 * is the board's, GPU g on NIC g x NICs / GPUs (NICs per GPU from there on).
 */
#include "internal.h"
#include "spec_int.h"

#include <fabtune/spec.h>

struct cloud_preset {
	const char *name;
	const char *summary;
	const char *base;      /* the board preset the instance is built on */
	const char *nic_model; /* what the instance exposes */
	const char *nic_link;  /* a link preset: rate, latency, transport */
	uint32_t nnics;        /* scale-out NICs for GPU traffic */
	uint32_t nics_per_gpu; /* NICs each GPU drives (NCCL puts channels on all) */
	double net_lat_s;      /* the network plugin's reported latency (PS-EFA-NETLAT) */
	/* The wait for the receiver's control message before a send's first write
	 * (PS-EFA-RDV): aws-ofi-nccl gives its RDMA protocol, the one with that message,
	 * to p5/p5e, p5en and later and trn2 only (src/platform-aws.cpp, v1.16.3), and its
	 * tuner model prices one p5/p5e message at net_lat 20 us plus a completion handed to
	 * the host at 3 us (src/tuner/nccl_ofi_model.cpp model_platform_params,
	 * include/nccl_ofi_param.h TUNER_NET_COMP_OVERHEAD). */
	double rdv_s;
	/* The instance's host CPUs where they differ from the board preset's (PS-EFA-CPU),
	 * else FT_CPU_VENDOR_UNKNOWN: the board's. */
	enum ft_cpu_vendor cpu_vendor;
	/* NCCL_BUFFSIZE as the instance's network plugin sets it (PS-EFA-P2P), bytes; 0:
	 * NCCL's default. */
	uint64_t nccl_buffsize;
	/* NCCL_NVLS_CHUNKSIZE and NCCL_NVLSTREE_MAX_CHUNKSIZE as the same plugin sets them
	 * (PS-EFA-P2P), bytes; 0: NCCL's default. A spec's own nodes.nccl values win, as the
	 * plugin leaves a variable the job sets alone. */
	uint64_t nccl_nvls_chunksize;
	uint64_t nccl_nvlstree_max_chunksize;
};

/* Sorted by name (ft_node_preset_name() merges them with the board presets). */
static const struct cloud_preset cloud_presets[] = {
	/* PS-EFA: p5.48xlarge, 8x H100 80GB, 32 network cards, 3,200 Gb/s */
	{ "aws-p5", "AWS p5.48xlarge: 8x H100-SXM5 80GB, NVLink 4, 32x EFA 100G (4 per GPU, SRD)",
	  "dgx-h100", "EFA", "efa100", 32, 4, 75e-6, 23e-6, FT_CPU_VENDOR_AMD, 8u << 20,
	  512u << 10, 512u << 10 },
	/* PS-EFA: p5e.48xlarge, 8x H200 141GB, the same 32 cards */
	{ "aws-p5e", "AWS p5e.48xlarge: 8x H200-SXM 141GB, NVLink 4, 32x EFA 100G (4 per GPU, SRD)",
	  "hgx-h200", "EFA", "efa100", 32, 4, 75e-6, 23e-6, FT_CPU_VENDOR_AMD, 8u << 20,
	  512u << 10, 512u << 10 },
	/* PS-TCPX: a3-highgpu-8g, 4 GPU NICs of 200 Gb/s (GPUDirect-TCPX) */
	{ "gcp-a3-high",
	  "Google Cloud a3-highgpu-8g: 8x H100-SXM5 80GB, NVLink 4, 4x 200G GPUDirect-TCPX",
	  "dgx-h100", "gVNIC (GPUDirect-TCPX)", "tcpx200", 4, 1 },
	/* PS-TCPX: a3-megagpu-8g, 8 GPU NICs of 200 Gb/s (GPUDirect-TCPXO) */
	{ "gcp-a3-mega",
	  "Google Cloud a3-megagpu-8g: 8x H100-SXM5 80GB, NVLink 4, 8x 200G GPUDirect-TCPXO",
	  "dgx-h100", "gVNIC (GPUDirect-TCPXO)", "tcpx200", 8, 1 },
	/* PS-SPCX: an HGX H100 with a BlueField-3 SuperNIC per GPU on Spectrum-X */
	{ "hgx-h100-spcx",
	  "HGX H100 on Spectrum-X: 8x H100-SXM5 80GB, NVLink 4, 8x BlueField-3 SuperNIC 400G, "
	  "adaptive routing",
	  "dgx-h100", "BlueField-3 SuperNIC", "spcx400", 8, 1 },
};

size_t
ft__spec_cloud_preset_count(void)
{
	return FT_ARRAY_SIZE(cloud_presets);
}

const char *
ft__spec_cloud_preset_name(size_t i, const char **summary)
{
	if (i >= FT_ARRAY_SIZE(cloud_presets))
		return NULL;
	if (summary)
		*summary = cloud_presets[i].summary;
	return cloud_presets[i].name;
}

/* The instance's NICs on @n: count, link, rate, and each GPU's first NIC. */
static void
place_nics(const struct cloud_preset *c, const struct ft_link_preset *lp, struct ft_node_spec *n)
{
	uint32_t g, i, nsw = n->npcie_switches;

	n->nnics = c->nnics;
	n->nics_per_gpu = c->nics_per_gpu;
	ft_strlcpy(n->nic_model, c->nic_model, sizeof(n->nic_model));
	ft_strlcpy(n->nic_link, lp->name, sizeof(n->nic_link));
	n->nic_Bps = lp->rate_Bps;
	n->lat_nic_s = lp->lat_nic_s;
	n->net_lat_s = c->net_lat_s;
	n->rdv_s = c->rdv_s;
	n->nccl_buffsize = c->nccl_buffsize;
	n->nccl_nvls_chunksize = c->nccl_nvls_chunksize;
	n->nccl_nvlstree_max_chunksize = c->nccl_nvlstree_max_chunksize;
	if (c->cpu_vendor != FT_CPU_VENDOR_UNKNOWN)
		n->cpu_vendor = c->cpu_vendor;
	for (g = 0; g < n->ngpus && g < FT_SPEC_MAX_GPUS; g++)
		n->gpu_nic[g] = g * c->nnics / n->ngpus;
	for (i = 0; i < FT_SPEC_MAX_NICS; i++) {
		n->nic_pcie_switch[i] = i < c->nnics && nsw ? i * nsw / c->nnics : 0;
		n->nic_numa[i] = i < c->nnics && nsw ? n->pcie_switch_numa[n->nic_pcie_switch[i]] : 0;
	}
}

int
ft__spec_cloud_preset(const char *name, struct ft_node_spec *out)
{
	size_t i;

	for (i = 0; name && i < FT_ARRAY_SIZE(cloud_presets); i++) {
		const struct cloud_preset *c = &cloud_presets[i];
		const struct ft_link_preset *lp = ft_link_preset_find(c->nic_link);
		struct ft_node_spec n;

		if (strcmp(c->name, name) != 0)
			continue;
		if (!lp || ft__spec_board_preset(c->base, &n) < 0)
			return FT_ENOENT; /* a table error: the unit tests load every preset */
		ft_strlcpy(n.preset, c->name, sizeof(n.preset));
		place_nics(c, lp, &n);
		if (out)
			*out = n;
		return 0;
	}
	return FT_ENOENT;
}

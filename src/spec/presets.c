/* SPDX-License-Identifier: MIT */
/*
 * spec/presets.c - node and link presets with their published figures, and
 * the default fabric that a "preset:N" shorthand gets.
 *
 * Every figure names where it comes from: a vendor datasheet or user guide
 * (described in our own words), or an entry of the project's knowledge base
 * (HOST-PCIE, IB-SPEED, NA-MODEL, ...). Figures that are engineering
 * estimates rather than published numbers say so. Rates are bytes/s per
 * direction after line encoding; latencies are seconds, one way.
 */
#include "internal.h"
#include "spec_int.h"

#include <fabtune/spec.h>
#include <fabtune/units.h>

/* ---- link presets ------------------------------------------------------------------------ */

/*
 * Adapter latency: NVIDIA's ConnectX-6/ConnectX-7 product briefs quote
 * sub-microsecond (about 0.6 us) adapter latency; we take 0.6 us one way for
 * every preset (IB and RoCE use the same silicon).
 */
#define LAT_NIC 0.6e-6
/*
 * Cable: light in fibre or copper travels about 5 ns per metre; a typical
 * in-row leaf-to-spine run of 10 m gives 50 ns per hop (estimate).
 */
#define LAT_CABLE 50e-9

/*
 * Shared packet buffer of the switch each link preset stands for, from the
 * vendors' product briefs (docs/presets.md "Switch buffers"; MB read as MiB):
 * NVIDIA Spectrum (SN2000 series, 100GbE) 16 MB, Spectrum-2 (SN3000, 200GbE)
 * 42 MB, Spectrum-3 (SN4000, 400GbE) 64 MB, Spectrum-4 (SN5000, 800GbE, and
 * Spectrum-X) 160 MB. NVIDIA publishes no buffer size for its Quantum
 * InfiniBand switches, nor AWS and Google for their fabrics: 0, and the packet
 * engine then takes the HPCC simulator's 32 MB switch (kb CC-PFC-ECN).
 */
#define BUF_SPECTRUM  (16ull << 20)
#define BUF_SPECTRUM2 (42ull << 20)
#define BUF_SPECTRUM3 (64ull << 20)
#define BUF_SPECTRUM4 (160ull << 20)

/* A link preset: its data rate is its signalling rate's name (200 for HDR); MTU 4096. */
#define LINK(name_, tech_, gbps, raw, lat_switch, buf)                                    \
	{                                                                                 \
		.name = name_, .tech = tech_, .signal_gbps = gbps, .raw_gbps = raw,       \
		.rate_Bps = FT_GBPS_TO_BPS(gbps), .lat_nic_s = LAT_NIC,                   \
		.lat_switch_s = lat_switch, .lat_cable_s = LAT_CABLE, .mtu_bytes = 4096,  \
		.switch_buffer_bytes = buf                                                \
	}

/*
 * InfiniBand data rates are the 4x data rates of IB-SPEED (from HDR on the
 * marketed number is the data rate after 64b/66b-class encoding and FEC);
 * the raw rate is 4 lanes x the per-lane signalling rate of the same table.
 * Switch latency: NVIDIA's Quantum (HDR, QM8700) brief quotes 130 ns
 * port-to-port; published summaries of Quantum-2 (NDR, QM9700) put it under
 * 150 ns; Quantum-X800 (XDR) is taken as Quantum-2 (estimate). IB MTU 4096
 * (IB-MTU).
 *
 * Ethernet: 100/200/400/800GbE carry their nominal MAC data rate after the
 * 64b/66b (256b/257b) PCS encoding; the raw lane rates are 4x25.78125 (100GBASE-SR4),
 * 4x53.125 (200G PAM4), 8x53.125 (400G) and 8x106.25 (800G). Switch latency:
 * Spectrum-class Ethernet switches are quoted at a few hundred ns cut-through;
 * we take 300 ns at 100/200G and 450 ns at 400/800G, whose deeper pipelines and
 * larger shared buffers cost more (estimates; set switch_latency in a spec
 * when the switch is known). RoCE MTU 4096 with jumbo frames (ROCE-MTU).
 */
/*
 * NVIDIA Spectrum-X (docs/presets.md PS-SPCX): RoCE between BlueField-3
 * SuperNICs at 400 Gb/s, through Spectrum-4 switches (SN5600: 64 ports of
 * 800GbE) that route adaptively, packet by packet, with the SuperNIC putting
 * the data in order: 400GbE lanes and framing as roce400. Switch latency is
 * not published: the 400G estimate above.
 */
#define SPCX_400                                                                               \
	{ .name = "spcx400", .tech = FT_TECH_ROCE, .signal_gbps = 400,                         \
	  .raw_gbps = 8 * 53.125, .rate_Bps = FT_GBPS_TO_BPS(400), .lat_nic_s = LAT_NIC,      \
	  .lat_switch_s = 450e-9, .lat_cable_s = LAT_CABLE, .mtu_bytes = 4096,                \
	  .adaptive = true, .switch_buffer_bytes = BUF_SPECTRUM4 }
/*
 * AWS Elastic Fabric Adapter (docs/presets.md PS-EFA): 100 Gb/s per network
 * card (P5/P5e: 32 cards, 3,200 Gb/s). SRD sprays a flow's packets over many
 * paths and delivers them out of order. The lane rate, adapter and switch
 * latencies and SRD's headers are not published: raw = data rate, the
 * ConnectX adapter figure and the 100G switch estimate stand in (calibrate),
 * and the model counts no header bytes.
 */
#define EFA_100                                                                                \
	{ .name = "efa100", .tech = FT_TECH_EFA, .signal_gbps = 100, .raw_gbps = 100,          \
	  .rate_Bps = FT_GBPS_TO_BPS(100), .lat_nic_s = LAT_NIC, .lat_switch_s = 300e-9,       \
	  .lat_cable_s = LAT_CABLE, .mtu_bytes = 4096, .adaptive = true }
/*
 * Google Cloud GPUDirect-TCPX/TCPXO (docs/presets.md PS-TCPX): 200 Gb/s per
 * GPU NIC (A3 High 4, A3 Mega 8). TCP flows hashed over the fabric; latencies
 * and the lane rate are not published (as efa100).
 */
#define TCPX_200                                                                               \
	{ .name = "tcpx200", .tech = FT_TECH_TCP, .signal_gbps = 200, .raw_gbps = 200,         \
	  .rate_Bps = FT_GBPS_TO_BPS(200), .lat_nic_s = LAT_NIC, .lat_switch_s = 300e-9,       \
	  .lat_cable_s = LAT_CABLE, .mtu_bytes = 4096 }

static const struct ft_link_preset link_presets[] = {
	LINK("hdr", FT_TECH_IB, 200, 4 * 53.125, 130e-9, 0),
	LINK("ndr", FT_TECH_IB, 400, 4 * 106.25, 150e-9, 0),
	LINK("xdr", FT_TECH_IB, 800, 4 * 212.5, 150e-9, 0),
	LINK("roce100", FT_TECH_ROCE, 100, 4 * 25.78125, 300e-9, BUF_SPECTRUM),
	LINK("roce200", FT_TECH_ROCE, 200, 4 * 53.125, 300e-9, BUF_SPECTRUM2),
	LINK("roce400", FT_TECH_ROCE, 400, 8 * 53.125, 450e-9, BUF_SPECTRUM3),
	LINK("roce800", FT_TECH_ROCE, 800, 8 * 106.25, 450e-9, BUF_SPECTRUM4),
	/* The transports of cloud and AI Ethernet fabrics: docs/presets.md gives each
	 * figure's public source and says which are not published. */
	SPCX_400,
	EFA_100,
	TCPX_200,
};

size_t
ft_link_preset_count(void)
{
	return FT_ARRAY_SIZE(link_presets);
}

const struct ft_link_preset *
ft_link_preset_at(size_t i)
{
	return i < FT_ARRAY_SIZE(link_presets) ? &link_presets[i] : NULL;
}

const struct ft_link_preset *
ft_link_preset_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < FT_ARRAY_SIZE(link_presets); i++)
		if (strcmp(link_presets[i].name, name) == 0)
			return &link_presets[i];
	return NULL;
}

/* ---- PCIe --------------------------------------------------------------------------------- */

/*
 * NCCL's estimate of a PCIe link, which we use as the effective DMA rate:
 * width x per-lane code / 80 GB/s, codes 15/30/60/120/240/480 for Gen1..Gen6
 * (HOST-PCIE). Gen4 x16 = 24 GB/s, Gen5 x16 = 48 GB/s: about 76% of the raw
 * 128b/130b payload rate, in line with the TLP and completion overheads that
 * HOST-PCIE describes.
 */
double
ft__spec_pcie_Bps(uint32_t gen, uint32_t width)
{
	static const double code[] = { 0, 15, 30, 60, 120, 240, 480 };

	if (gen < 1 || gen >= FT_ARRAY_SIZE(code))
		return 0;
	return (double)width * code[gen] / 80.0 * 1e9;
}

/*
 * One PCIe switch traversal. PCIe Gen4/Gen5 switches (Broadcom PEX88000 /
 * PEX89000 class) are cut-through with port-to-port latencies of the order
 * of 100-150 ns; we take 150 ns (estimate).
 */
#define LAT_PCIE 150e-9

/*
 * One NVLink hop through NVSwitch: NCCL's tuner charges 0.6 us per NVLink
 * ring step with the LL protocol (NA-MODEL, hwLatencies), its lowest NVLink
 * figure; we use it as the per-hop latency of all NVLink generations.
 */
#define LAT_NVLINK 0.6e-6

/*
 * Socket-to-socket bandwidth per direction: the constants NCCL's topology
 * code uses (NA-MODEL "Other constants"): Sapphire Rapids 22 GB/s, Emerald
 * Rapids 40 GB/s, AMD 16 GB/s.
 */
#define CPU_LINK_SPR 22e9
#define CPU_LINK_ERP 40e9
#define CPU_LINK_AMD 16e9

/*
 * The host CPUs' vendor (node.cpu_vendor) is the one each datasheet names:
 * AMD EPYC on DGX A100, Intel Xeon on DGX B200, DGX H100 and the HGX H200
 * reference server. The NVL72 trays' Grace is ARM, where NCCL does not look
 * at the vendor, and the L40S reference server names no CPU: both stay
 * unknown, which NCCL's tuner prices as Intel (kb NA-MODEL, getNetOverhead).
 */

void
ft__spec_node_defaults(struct ft_node_spec *n)
{
	memset(n, 0, sizeof(*n));
	n->pcie_width_gpu = n->pcie_width_nic = 16;
	n->lat_pcie_s = LAT_PCIE;
	n->lat_nvlink_s = LAT_NVLINK;
	n->lat_nic_s = LAT_NIC;
	n->nnuma = 1;
}

/* ---- node presets ------------------------------------------------------------------------- */

/*
 * The share of dense peak that a transformer layer's matrix work (GEMMs and
 * attention) sustains in training, for the training planner (kb TRAIN-GPU:
 * an explicit, overridable assumption; plan --gemm-eff overrides it; the
 * memory-bound kernels between the GEMMs are timed apart, from the HBM
 * bandwidth). Engineering estimates, one per GPU generation: public cuBLAS
 * microbenchmarks put large BF16 GEMMs (m, n, k >= 4096) at about 80% of
 * dense peak on A100 and 65-75% on H100 SXM, whose 700 W budget lowers the
 * clock under sustained tensor load; training's shapes, attention kernels
 * and launch gaps run at about four fifths of that. The A100 and H100
 * figures were set with Megatron-LM's and Llama 3's published throughput in
 * view, so those runs are not held out in the planner's accuracy check.
 * H200 is the H100 die and takes its figure; for B200 and L40S no comparable
 * public microbenchmarks were at hand, so they take the Hopper figure
 * rounded down. The planner applies the same share to FP8 GEMMs against the
 * FP8 peak.
 */
#define GEMM_EFF_A100 0.62
#define GEMM_EFF_H100 0.53
#define GEMM_EFF_H200 0.53
#define GEMM_EFF_B200 0.50
#define GEMM_EFF_L40S 0.50

struct node_preset {
	const char *summary;
	struct ft_node_spec node;
};

/*
 * The blocks presets share. NVLINK: generation, bandwidth per GPU and
 * direction, through NVSwitch chips, with NVLink SHARP (NVLS) or not.
 * PCIE_X16: generation, the x16 rate of GPUs and NICs, the PCIe switches.
 * NICS: count, model, link preset and its data rate in Gb/s.
 */
#define NVLS    true
#define NO_NVLS false
#define NVLINK(gen, Bps, nvls_)                                                             \
	.nvlink_gen = gen, .nvlink_Bps = Bps, .lat_nvlink_s = LAT_NVLINK, .nvswitch = true, \
	.nvls = nvls_
#define PCIE_X16(gen, Bps, nswitches)                                                     \
	.pcie_gen = gen, .pcie_width_gpu = 16, .pcie_width_nic = 16, .pcie_Bps_gpu = Bps, \
	.pcie_Bps_nic = Bps, .lat_pcie_s = LAT_PCIE, .npcie_switches = nswitches
#define NICS(n, model, link, gbps)                                                         \
	.nnics = n, .nic_model = model, .nic_link = link, .nic_Bps = FT_GBPS_TO_BPS(gbps), \
	.lat_nic_s = LAT_NIC

/* An NVL72 compute tray: GPUs 0-1 and NICs 0-1 on Grace 0, 2-3 on Grace 1 (ARM hosts),
 * each GPU on its Grace by NVLink-C2C, the NICs on Grace's PCIe; 18 trays one NVLink
 * domain. */
#define PLACE_NVL72_TRAY                                                                          \
	.gpu_pcie_switch = { 0, 0, 1, 1 }, .gpu_numa = { 0, 0, 1, 1 }, .gpu_nic = { 0, 1, 2, 3 }, \
	.nic_pcie_switch = { 0, 0, 1, 1 }, .nic_numa = { 0, 0, 1, 1 },                            \
	.pcie_switch_numa = { 0, 1 }, .nvlink_domain_nodes = 18, .host_arm = true,             \
	.host_arch = FT_HOST_ARCH_ARM, .gpu_attach = FT_GPU_ATTACH_C2C

/* GPU g and NIC g on PCIe switch g / 2, switch s on socket s / 2, GPU g on rail g. */
#define PLACE_4SW_2SOCKET                                                                      \
	.gpu_pcie_switch = { 0, 0, 1, 1, 2, 2, 3, 3 }, .gpu_numa = { 0, 0, 0, 0, 1, 1, 1, 1 }, \
	.gpu_nic = { 0, 1, 2, 3, 4, 5, 6, 7 }, .nic_pcie_switch = { 0, 0, 1, 1, 2, 2, 3, 3 },  \
	.nic_numa = { 0, 0, 0, 0, 1, 1, 1, 1 }, .pcie_switch_numa = { 0, 0, 1, 1 }

static const struct node_preset node_presets[] = {
	/*
	 * NVIDIA DGX A100 (DGX A100 datasheet and user guide): 8x A100 SXM4 80 GB,
	 * 312 TFLOPS FP16/BF16 dense each (A100 datasheet; 624 with sparsity).
	 * Third-generation NVLink, 12 links, 600 GB/s bidirectional = 300 GB/s per
	 * direction, through 6 second-generation NVSwitch chips (no NVLink SHARP).
	 * Dual AMD EPYC 7742 (PCIe 4.0); 8 single-port ConnectX-6 HDR 200 Gb/s for
	 * the compute fabric on four PCIe Gen4 switches with two GPUs and two NICs
	 * each (the PXB pairs in nvidia-smi topo -m, e.g. the corpus files
	 * nvidia-smi-topo/a100-sxm4-8gpu-*). With the EPYC in NPS4 mode each
	 * socket is 4 NUMA domains and the four switches hang off domains 3, 1,
	 * 7 and 5 (HOST-NUMA; corpus nvidia-smi-topo/a100-...-epyc-nps4).
	 * HBM2e at 2,039 GB/s; no FP8 tensor cores (A100 datasheet).
	 */
	{ "8x A100-SXM4 80GB, NVLink 3 300GB/s/dir, NVSwitch, PCIe Gen4, "
	  "8x ConnectX-6 HDR 200G, 2 sockets NPS4",
	  { .preset = "dgx-a100",
	    .gpu_model = "A100-SXM4-80GB",
	    .ngpus = 8,
	    .gpu_tflops = 312,
	    .gpu_mem_GB = 80,
	    .gpu_fp8_tflops = 0,
	    .gpu_hbm_Bps = 2039e9,
	    .gpu_gemm_eff = GEMM_EFF_A100,
	    NVLINK(3, 300e9, NO_NVLS),
	    PCIE_X16(4, 24e9, 4),
	    .nnuma = 8,
	    .cpu_link_Bps = CPU_LINK_AMD,
	    .cpu_vendor = FT_CPU_VENDOR_AMD,
	    NICS(8, "ConnectX-6", "hdr", 200),
	    .gpu_pcie_switch = { 0, 0, 1, 1, 2, 2, 3, 3 },
	    .gpu_numa = { 3, 3, 1, 1, 7, 7, 5, 5 },
	    .gpu_nic = { 0, 1, 2, 3, 4, 5, 6, 7 },
	    .nic_pcie_switch = { 0, 0, 1, 1, 2, 2, 3, 3 },
	    .nic_numa = { 3, 3, 1, 1, 7, 7, 5, 5 },
	    .pcie_switch_numa = { 3, 1, 7, 5 } } },
	/*
	 * NVIDIA DGX B200 (DGX B200 datasheet; DGX BasePOD reference architecture):
	 * 8x B200, 1,440 GB in all = 180 GB each; the HGX B200 datasheet gives
	 * 36 PFLOPS FP16/BF16 with sparsity for 8 GPUs, i.e. 2,250 TFLOPS dense per
	 * GPU. Fifth-generation NVLink, 1.8 TB/s bidirectional = 900 GB/s per
	 * direction, through 2 NVLink switch chips with NVLS. Dual Xeon Platinum
	 * 8570 (Emerald Rapids, PCIe 5.0); 8 single-port ConnectX-7 400 Gb/s
	 * (PCIe Gen5 x16) on the compute fabric. The B200 itself has a Gen6 host
	 * interface, but the HGX B200 specification lists PCIe Gen5 (128 GB/s
	 * bidirectional) for the platform, as the CPUs and NICs are Gen5: we
	 * take Gen5 for GPUs and NICs. The datasheet does not draw the PCIe tree; we take the
	 * layout of our dgx-h100 preset (two GPUs and two ConnectX-7 per Gen5 switch, four
	 * switches, one NIC per GPU). FP8: 72 PFLOPS sparse for 8 GPUs, 4,500
	 * dense per GPU; HBM3e at 8 TB/s per GPU (HGX B200 datasheet).
	 */
	{ "8x B200 180GB, NVLink 5 900GB/s/dir, 2 NVSwitch (NVLS), PCIe Gen5, "
	  "8x ConnectX-7 NDR 400G, 2 sockets",
	  { .preset = "dgx-b200",
	    .gpu_model = "B200-180GB",
	    .ngpus = 8,
	    .gpu_tflops = 2250,
	    .gpu_mem_GB = 180,
	    .gpu_fp8_tflops = 4500,
	    .gpu_hbm_Bps = 8000e9,
	    .gpu_gemm_eff = GEMM_EFF_B200,
	    NVLINK(5, 900e9, NVLS),
	    PCIE_X16(5, 48e9, 4),
	    .nnuma = 2,
	    .cpu_link_Bps = CPU_LINK_ERP,
	    .cpu_vendor = FT_CPU_VENDOR_INTEL,
	    NICS(8, "ConnectX-7", "ndr", 400),
	    PLACE_4SW_2SOCKET } },
	/*
	 * NVIDIA DGX H100 (DGX H100 datasheet and user guide; DGX BasePOD
	 * reference architecture): 8x H100 SXM5 80 GB; H100 SXM datasheet gives
	 * 1,979 TFLOPS FP16/BF16 tensor with sparsity, 989.4 dense. 18 NVLink 4
	 * links per GPU, 900 GB/s bidirectional = 450 GB/s per direction, through
	 * 4 third-generation NVSwitch chips with NVLink SHARP (NVLS, NA-ALGO-NVLS).
	 * Dual Xeon Platinum 8480C (Sapphire Rapids, PCIe 5.0). Eight single-port
	 * ConnectX-7 (400 Gb/s NDR) for the compute fabric, in two network modules
	 * between the CPUs and the GPU tray; the user guide's port table pairs
	 * each GPU with one ConnectX-7 (its rail), four per socket. The guide does
	 * not draw the PCIe tree: we place two GPUs and their two ConnectX-7 on
	 * each of four Gen5 switches, all x16, as in the DGX A100 layout. The two
	 * storage ConnectX-7 are not compute NICs and are left out. FP8: 3,958
	 * TFLOPS sparse, 1,978.9 dense; HBM3 at 3.35 TB/s (H100 SXM datasheet).
	 */
	{ "8x H100-SXM5 80GB, NVLink 4 450GB/s/dir, 4 NVSwitch (NVLS), PCIe Gen5, "
	  "8x ConnectX-7 NDR 400G, 2 sockets",
	  { .preset = "dgx-h100",
	    .gpu_model = "H100-SXM5-80GB",
	    .ngpus = 8,
	    .gpu_tflops = 989.4,
	    .gpu_mem_GB = 80,
	    .gpu_fp8_tflops = 1978.9,
	    .gpu_hbm_Bps = 3350e9,
	    .gpu_gemm_eff = GEMM_EFF_H100,
	    NVLINK(4, 450e9, NVLS),
	    PCIE_X16(5, 48e9, 4),
	    .nnuma = 2,
	    .cpu_link_Bps = CPU_LINK_SPR,
	    .cpu_vendor = FT_CPU_VENDOR_INTEL,
	    NICS(8, "ConnectX-7", "ndr", 400),
	    PLACE_4SW_2SOCKET } },
	/*
	 * NVIDIA GB200 NVL72 (GB200 NVL72 product page and datasheet): one rack of
	 * 18 compute trays, each 2 GB200 superchips = 2 Grace CPUs and 4 Blackwell
	 * GPUs of 186 GB HBM3e (13.4 TB for 72); 360 PFLOPS FP16/BF16 with
	 * sparsity for the rack, i.e. 2,500 TFLOPS dense per GPU. Fifth-generation
	 * NVLink, 1.8 TB/s bidirectional = 900 GB/s per direction per GPU, through
	 * 9 NVLink switch trays that join all 72 GPUs into one NVLink domain (with
	 * NVLink SHARP): a node here is a compute tray, and nodes.nvlink.
	 * domain_nodes = 18 makes 18 of them one domain. Scale-out: one ConnectX-7
	 * 400 Gb/s per GPU on the Grace's PCIe Gen5 x16. The datasheet draws no
	 * PCIe tree: GPUs 0-1 and NICs 0-1 on Grace 0, 2-3 on Grace 1. NVL36x2
	 * (two racks of 9 trays cabled into one 72-GPU domain) is the same spec.
	 */
	{ "4x GB200 186GB per tray, NVLink 5 900GB/s/dir, 72-GPU NVLink domain (18 trays), "
	  "4x ConnectX-7 NDR 400G",
	  { .preset = "gb200-nvl72",
	    .gpu_model = "GB200-186GB",
	    .ngpus = 4,
	    .gpu_tflops = 2500,
	    .gpu_mem_GB = 186,
	    .gpu_fp8_tflops = 5000,
	    .gpu_hbm_Bps = 8000e9,
	    .gpu_gemm_eff = GEMM_EFF_B200,
	    NVLINK(5, 900e9, NVLS),
	    PCIE_X16(5, 48e9, 2),
	    .nnuma = 2,
	    .cpu_link_Bps = CPU_LINK_ERP,
	    NICS(4, "ConnectX-7", "ndr", 400),
	    PLACE_NVL72_TRAY } },
	/*
	 * NVIDIA GB300 NVL72 (GB300 NVL72 product page): as GB200 NVL72 with
	 * Blackwell Ultra GPUs of 288 GB HBM3e (20.7 TB for 72) and one
	 * ConnectX-8 SuperNIC at 800 Gb/s per GPU (XDR InfiniBand; PCIe Gen6 x16
	 * on the tray). FP16/BF16 and FP8 dense per GPU are taken equal to GB200's.
 * For both racks: FP8 dense 5,000 TFLOPS and HBM3e at 8 TB/s per GPU (576 TB/s
 * over 72 GPUs, NVL72 product pages; kb TRAIN-GPU); large GEMMs are taken to
 * reach the share B200 reaches.
	 */
	{ "4x GB300 288GB per tray, NVLink 5 900GB/s/dir, 72-GPU NVLink domain (18 trays), "
	  "4x ConnectX-8 XDR 800G",
	  { .preset = "gb300-nvl72",
	    .gpu_model = "GB300-288GB",
	    .ngpus = 4,
	    .gpu_tflops = 2500,
	    .gpu_mem_GB = 288,
	    .gpu_fp8_tflops = 5000,
	    .gpu_hbm_Bps = 8000e9,
	    .gpu_gemm_eff = GEMM_EFF_B200,
	    NVLINK(5, 900e9, NVLS),
	    PCIE_X16(6, 96e9, 2),
	    .nnuma = 2,
	    .cpu_link_Bps = CPU_LINK_ERP,
	    NICS(4, "ConnectX-8", "xdr", 800),
	    PLACE_NVL72_TRAY } },
	/*
	 * NVIDIA HGX H200 (H200 datasheet): H200 SXM with 141 GB HBM3e; same
	 * Hopper compute as H100 (989.4 TFLOPS FP16/BF16 dense), same NVLink 4
	 * (900 GB/s bidirectional) and 4 NVSwitch chips on the baseboard. The
	 * server around the baseboard follows NVIDIA's HGX reference design that
	 * DGX H200 implements (DGX BasePOD reference architecture: dual Xeon 8480C,
	 * 8 single-port ConnectX-7 400 Gb/s, the DGX H100 PCIe layout).
	 * FP8 1,978.9 TFLOPS dense as H100; HBM3e at 4.8 TB/s (H200 datasheet).
	 */
	{ "8x H200-SXM 141GB, NVLink 4 450GB/s/dir, 4 NVSwitch (NVLS), PCIe Gen5, "
	  "8x ConnectX-7 NDR 400G, 2 sockets",
	  { .preset = "hgx-h200",
	    .gpu_model = "H200-SXM-141GB",
	    .ngpus = 8,
	    .gpu_tflops = 989.4,
	    .gpu_mem_GB = 141,
	    .gpu_fp8_tflops = 1978.9,
	    .gpu_hbm_Bps = 4800e9,
	    .gpu_gemm_eff = GEMM_EFF_H200,
	    NVLINK(4, 450e9, NVLS),
	    PCIE_X16(5, 48e9, 4),
	    .nnuma = 2,
	    .cpu_link_Bps = CPU_LINK_SPR,
	    .cpu_vendor = FT_CPU_VENDOR_INTEL,
	    NICS(8, "ConnectX-7", "ndr", 400),
	    PLACE_4SW_2SOCKET } },
	/*
	 * An 8-GPU PCIe server with L40S (L40S datasheet: 48 GB GDDR6, PCIe Gen4
	 * x16, no NVLink, 362 TFLOPS FP16/BF16 tensor dense, 733 with sparsity).
	 * Reference design: dual-socket, one 96-lane PCIe Gen4 switch per socket
	 * (PEX88096 class) carrying four GPUs x16, one NIC x16 and a x16 uplink
	 * (4x16 + 16 + 16 = 96 lanes), which is the common single-root-per-socket
	 * layout of 8-GPU L40S servers. Two NICs, one per switch: 200 Gb/s RoCE
	 * (ConnectX-7 at 200GbE), because a Gen4 x16 slot carries at most about
	 * 200-230 Gb/s of DMA and cannot feed a 400G port (HOST-PCIE); public
	 * L40S sizing notes also recommend a 200 Gb/s RoCE or IB network. GPUs
	 * 0-3 use NIC 0, GPUs 4-7 NIC 1. Socket link: Sapphire Rapids (NA-MODEL).
	 * FP8 733 TFLOPS dense (1,466 sparse); GDDR6 at 864 GB/s (datasheet).
	 */
	{ "8x L40S 48GB on PCIe Gen4 x16 (no NVLink), 2 PCIe switches, "
	  "2x ConnectX-7 RoCE 200G, 2 sockets",
	  { .preset = "pcie-l40s",
	    .gpu_model = "L40S-48GB",
	    .ngpus = 8,
	    .gpu_tflops = 362,
	    .gpu_mem_GB = 48,
	    .gpu_fp8_tflops = 733,
	    .gpu_hbm_Bps = 864e9,
	    .gpu_gemm_eff = GEMM_EFF_L40S,
	    /* no NVLink: its figures stay 0 */
	    PCIE_X16(4, 24e9, 2),
	    .nnuma = 2,
	    .cpu_link_Bps = CPU_LINK_SPR,
	    NICS(2, "ConnectX-7", "roce200", 200),
	    .gpu_pcie_switch = { 0, 0, 0, 0, 1, 1, 1, 1 },
	    .gpu_numa = { 0, 0, 0, 0, 1, 1, 1, 1 },
	    .gpu_nic = { 0, 0, 0, 0, 1, 1, 1, 1 },
	    .nic_pcie_switch = { 0, 1 },
	    .nic_numa = { 0, 1 },
	    .pcie_switch_numa = { 0, 1 } } },
};

/*
 * Node presets in name order: the boards above and the cloud instances built
 * on them (presets_cloud.c), merged. The name of the @i-th, its summary into
 * @summary; NULL past the end.
 */
static const char *
preset_at(size_t i, const char **summary)
{
	size_t a = 0, b = 0;

	for (;;) {
		const char *cs = NULL;
		const char *x = a < FT_ARRAY_SIZE(node_presets) ? node_presets[a].node.preset : NULL;
		const char *y = ft__spec_cloud_preset_name(b, &cs);
		bool board = x && (!y || strcmp(x, y) < 0);

		if (!x && !y)
			return NULL;
		if (i == 0) {
			*summary = board ? node_presets[a].summary : cs;
			return board ? x : y;
		}
		i--;
		if (board)
			a++;
		else
			b++;
	}
}

size_t
ft_node_preset_count(void)
{
	return FT_ARRAY_SIZE(node_presets) + ft__spec_cloud_preset_count();
}

const char *
ft_node_preset_name(size_t i)
{
	const char *summary;

	return preset_at(i, &summary);
}

const char *
ft_node_preset_summary(size_t i)
{
	const char *summary = NULL;

	return preset_at(i, &summary) ? summary : NULL;
}

int
ft__spec_board_preset(const char *name, struct ft_node_spec *out)
{
	size_t i;

	for (i = 0; name && i < FT_ARRAY_SIZE(node_presets); i++) {
		if (strcmp(node_presets[i].node.preset, name) == 0) {
			if (out)
				*out = node_presets[i].node;
			return 0;
		}
	}
	return FT_ENOENT;
}

int
ft_node_preset(const char *name, struct ft_node_spec *out)
{
	if (ft__spec_board_preset(name, out) == 0 || ft__spec_cloud_preset(name, out) == 0)
		return 0;
	if (out)
		memset(out, 0, sizeof(*out));
	return FT_ENOENT;
}

/* ---- placement ---------------------------------------------------------------------------- */

void
ft__spec_default_placement(struct ft_node_spec *n)
{
	uint32_t i, nsw = n->npcie_switches, nnuma = n->nnuma ? n->nnuma : 1;

	for (i = 0; i < FT_SPEC_MAX_PCIE_SWITCHES; i++)
		n->pcie_switch_numa[i] = i < nsw ? i * nnuma / nsw : 0;
	for (i = 0; i < FT_SPEC_MAX_GPUS; i++) {
		if (i >= n->ngpus) {
			n->gpu_pcie_switch[i] = n->gpu_numa[i] = n->gpu_nic[i] = 0;
			continue;
		}
		n->gpu_pcie_switch[i] = nsw ? i * nsw / n->ngpus : 0;
		n->gpu_numa[i] =
		        nsw ? n->pcie_switch_numa[n->gpu_pcie_switch[i]] : i * nnuma / n->ngpus;
		n->gpu_nic[i] = n->nnics ? i * n->nnics / n->ngpus : 0;
	}
	for (i = 0; i < FT_SPEC_MAX_NICS; i++) {
		if (i >= n->nnics) {
			n->nic_pcie_switch[i] = n->nic_numa[i] = 0;
			continue;
		}
		n->nic_pcie_switch[i] = nsw ? i * nsw / n->nnics : 0;
		n->nic_numa[i] =
		        nsw ? n->pcie_switch_numa[n->nic_pcie_switch[i]] : i * nnuma / n->nnics;
	}
}

/* ---- default fabric ----------------------------------------------------------------------- */

void
ft__spec_fabric_use_link(struct ft_fabric_spec *f, const struct ft_link_preset *lp)
{
	ft_strlcpy(f->link, lp->name, sizeof(f->link));
	f->link_Bps = lp->rate_Bps;
	f->lat_switch_s = lp->lat_switch_s;
	f->lat_cable_s = lp->lat_cable_s;
	f->mtu_bytes = lp->mtu_bytes;
}

enum ft_routing
ft__spec_default_routing(enum ft_fabric_kind kind, const struct ft_link_preset *lp)
{
	enum ft_link_tech tech = lp ? lp->tech : FT_TECH_ROCE;

	switch (kind) {
	case FT_FABRIC_DRAGONFLY:
		return FT_ROUTING_MINIMAL;
	case FT_FABRIC_TORUS:
		return FT_ROUTING_DOR;
	default:
		/*
		 * InfiniBand fat-trees are routed by the subnet manager; OpenSM's
		 * ftree engine is destination-based D-mod-K (IB-SM). Ethernet
		 * spreads flows by hashing the 5-tuple (ROCE-ECMP), unless the
		 * switches or the transport spray packets over every path
		 * (Spectrum-X, EFA's SRD: lp->adaptive).
		 */
		if (lp && lp->adaptive)
			return FT_ROUTING_ADAPTIVE;
		return tech == FT_TECH_IB ? FT_ROUTING_DMODK : FT_ROUTING_ECMP;
	}
}

/* The switch that the default fabrics use: 64 ports (Quantum-2 QM9700 class). */
#define DEFAULT_RADIX 64

int
ft__spec_default_fabric(const struct ft_node_spec *n, uint32_t nnodes, struct ft_fabric_spec *f,
                        char field[FT_SPEC_FIELD_MAX], struct ft_error *err)
{
	const struct ft_link_preset *lp = ft_link_preset_find(n->nic_link);
	struct ft_cluster_spec probe;
	uint64_t cap = 0;

	memset(f, 0, sizeof(*f));
	field[0] = '\0';
	if (n->nnics == 0) {
		ft_strlcpy(field, "nodes.nics.count", FT_SPEC_FIELD_MAX);
		return ft_error_set(err, FT_EINVAL,
		                    "expected at least 1 NIC per node for the default fabric of "
		                    "%u nodes, got 0",
		                    nnodes);
	}
	if (!lp) {
		ft_strlcpy(field, "nodes.nics.link", FT_SPEC_FIELD_MAX);
		return ft_error_set(err, FT_EINVAL,
		                    "expected a link preset for the default fabric of %u nodes "
		                    "(or a fabric: section), got a NIC without one",
		                    nnodes);
	}
	/*
	 * Nodes with a NIC per GPU (the DGX/HGX designs) are cabled
	 * rail-optimized: NIC r of every node in a scalable unit on leaf r, as
	 * the DGX SuperPOD reference architecture does; others get a plain
	 * fat-tree.
	 */
	f->kind = n->nnics >= 2 && n->nnics == n->ngpus ? FT_FABRIC_RAIL_FAT_TREE :
	                                                  FT_FABRIC_FAT_TREE;
	ft__spec_fabric_use_link(f, lp);
	f->routing = ft__spec_default_routing(f->kind, lp);
	f->radix = DEFAULT_RADIX;
	f->oversubscription = 1.0;
	f->planes = 1;
	f->nodes_per_unit = DEFAULT_RADIX / 2;

	memset(&probe, 0, sizeof(probe));
	probe.node = *n;
	probe.nnodes = nnodes;
	for (f->tiers = 2; f->tiers <= 3; f->tiers++) {
		probe.fabric = *f;
		cap = ft_spec_fabric_capacity(&probe);
		if (nnodes <= cap)
			return 0;
	}
	f->tiers = 3;
	ft_strlcpy(field, "nodes.count", FT_SPEC_FIELD_MAX);
	return ft_error_set(err, FT_ERANGE,
	                    "expected at most %" PRIu64
	                    " nodes of %u NICs on the default fabric (3-tier fat-tree of "
	                    "radix-%u switches), got %u",
	                    cap, n->nnics, DEFAULT_RADIX, nnodes);
}

/* SPDX-License-Identifier: MIT */
/*
 * fabtune/spec.h - cluster specs: what a cluster is made of.
 *
 * A cluster is a number of identical nodes (GPUs, NVLink/NVSwitch, PCIe
 * switches, NICs, NUMA domains) joined by one fabric (fat-tree, rail-optimized
 * fat-tree, multi-plane, dragonfly, torus). Specs come from YAML files (JSON is
 * accepted) or from presets: "dgx-h100" is one node, "dgx-h100:64" is 64 nodes
 * on the preset's default fabric. The structs are plain data, filled by the
 * loader and read by topo, model and sim. All rates are bytes/s per direction,
 * all latencies seconds.
 */
#ifndef FABTUNE_SPEC_H
#define FABTUNE_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fabtune/error.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FT_SPEC_MAX_GPUS 16 /* GPUs per node */
#define FT_SPEC_MAX_NICS 32 /* NICs per node (AWS p5: 32 EFA NICs for 8 GPUs) */
#define FT_SPEC_MAX_PCIE_SWITCHES 16
/* Channels of one collective: NCCL's MAXCHANNELS (kb ENV-NCHANNELS). */
#define FT_SPEC_MAX_CHANNELS 64
/* A --channels that was not given (the tuner's or the engine's own count): 0 is a value,
 * refused as NCCL refuses it. */
#define FT_SPEC_CHANNELS_UNSET UINT64_MAX
/* NCCL_BUFFSIZE's default, and the range a spec's nccl.buffsize takes (kb ENV-BUFFSIZE;
 * NVIDIA/nccl src/init.cc DEFAULT_BUFFSIZE): at least a 8 KiB slot of each of the
 * NCCL_STEPS (8), at most 1 GiB a connection. */
#define FT_SPEC_NCCL_BUFFSIZE     (4ull << 20)
#define FT_SPEC_NCCL_BUFFSIZE_MIN (64ull << 10)
#define FT_SPEC_NCCL_BUFFSIZE_MAX (1ull << 30)
/* NCCL_NVLS_CHUNKSIZE's default and the range a spec's nccl.nvls_chunksize takes
 * (NVIDIA/nccl src/transport/nvls.cc NCCL_PARAM NvlsChunkSize, read from v2.21.5-1 on;
 * docs/internals/model.md "Buffers and chunks"). */
#define FT_SPEC_NCCL_NVLS_CHUNKSIZE     (128u << 10)
#define FT_SPEC_NCCL_NVLS_CHUNKSIZE_MIN (4ull << 10)
#define FT_SPEC_NCCL_NVLS_CHUNKSIZE_MAX (64ull << 20)
/* The range a spec's nccl.nvlstree_max_chunksize takes (NCCL_NVLSTREE_MAX_CHUNKSIZE: NVIDIA/nccl
 * src/enqueue.cc NCCL_PARAM NvlsTreeChunkSize from v2.20.3-1, NvlsTreeMaxChunkSize from
 * v2.21.5-1, src/transport/nvls.cc from v2.30.3-1). NCCL checks no range; the spec takes
 * nccl.nvls_chunksize's, so a chunk stays a whole number of 4 KiB pages. */
#define FT_SPEC_NCCL_NVLSTREE_MAX_MIN FT_SPEC_NCCL_NVLS_CHUNKSIZE_MIN
#define FT_SPEC_NCCL_NVLSTREE_MAX_MAX FT_SPEC_NCCL_NVLS_CHUNKSIZE_MAX

enum ft_link_tech {
	FT_TECH_IB,   /* InfiniBand */
	FT_TECH_ROCE, /* RoCEv2 over Ethernet */
	FT_TECH_EFA,  /* AWS Elastic Fabric Adapter: SRD over Ethernet, lossy, multi-path */
	FT_TECH_TCP,  /* GPUDirect-TCPX/TCPXO: TCP over Ethernet to and from GPU memory */
};

/* A link preset: "hdr", "ndr", "xdr", "roce100" ... "roce800", "spcx400", "efa100",
 * "tcpx200". */
struct ft_link_preset {
	char name[16];
	enum ft_link_tech tech;
	double signal_gbps; /* nominal line rate, Gb/s (e.g. 400) */
	double raw_gbps;    /* bit rate on the wire before encoding/FEC, all lanes (NDR 4x: 425) */
	double rate_Bps;    /* data rate after encoding, bytes/s per direction */
	double lat_nic_s;   /* NIC processing latency, one way */
	double lat_switch_s;/* switch traversal latency */
	double lat_cable_s; /* cable propagation latency (per hop) */
	uint32_t mtu_bytes; /* default MTU (IB 4096; RoCE 4096 payload) */
	/* The transport or the switches spread each flow's packets over the equal-cost
	 * paths (EFA's SRD, Spectrum-X adaptive routing): a fabric of this link
	 * defaults to adaptive routing. */
	bool adaptive;
	/* Shared packet buffer of the switch class this link runs on, bytes, from its
	 * datasheet (docs/presets.md "Switch buffers"); 0 = not published. */
	uint64_t switch_buffer_bytes;
};

/*
 * The host CPUs' vendor as NCCL's topology reads it (CPUID): NCCL's tuner
 * prices a network message at 2 us on AMD x86 hosts, 1 us on Intel x86 and
 * on every other host (getNetOverhead, kb NA-MODEL). Unknown is priced as
 * NCCL prices a host it does not recognise: 1 us. The model does not take the
 * AMD figure yet: measured AMD hosts run faster than NCCL's estimate for them.
 */
enum ft_cpu_vendor {
	FT_CPU_VENDOR_UNKNOWN = 0,
	FT_CPU_VENDOR_INTEL,
	FT_CPU_VENDOR_AMD,
};

/* The host CPUs' architecture (numa.arch), as NCCL's topology tells them apart
 * (NCCL_TOPO_CPU_ARCH_X86, _POWER, _ARM; src/graph/topo.h). */
enum ft_host_arch {
	FT_HOST_ARCH_X86 = 0,
	FT_HOST_ARCH_ARM,
	FT_HOST_ARCH_POWER,
};

/*
 * How a node's GPUs reach their host CPU (gpu_attach), and through it the NICs on the
 * CPU's PCIe. NCCL adds a GPU's C2C link to its CPU only where NVML counts active C2C
 * links, which it asks of sm_90 and later GPUs alone (NVIDIA/nccl src/graph/xml.cc
 * ncclTopoGetXmlFromGpu, src/graph/topo.cc ncclTopoAddC2c), and names such a GPU's path
 * to a NIC on its CPU P2C (src/graph/paths.cc, v2.27.3-1 on). Auto: the rule the model
 * had before the field, C2C on an ARM host with Hopper or later GPUs (Grace), else PCIe.
 */
enum ft_gpu_attach {
	FT_GPU_ATTACH_AUTO = 0,
	FT_GPU_ATTACH_PCIE, /* PCIe, to a switch or the CPU's root port (x86, Altra + H100 PCIe) */
	FT_GPU_ATTACH_C2C,  /* NVLink-C2C to a Grace CPU (GH200, GB200, GB300) */
};

struct ft_node_spec {
	char preset[32];      /* preset it came from, "" if hand-written */
	char gpu_model[32];   /* "H100-SXM5" */
	uint32_t ngpus;
	double gpu_tflops;    /* dense fp16/bf16 TFLOP/s per GPU */
	double gpu_mem_GB;
	double gpu_fp8_tflops; /* dense FP8 TFLOP/s per GPU, 0 = no FP8 tensor cores (kb TRAIN-GPU) */
	double gpu_hbm_Bps;    /* HBM bandwidth per GPU, bytes/s (0 = unknown) */
	double gpu_gemm_eff;   /* share of dense peak large training GEMMs sustain (0 = unknown) */
	uint32_t nvlink_gen;  /* 0 = no NVLink (PCIe-only GPUs), 3 = A100, 4 = H100/H200, 5 = B200 */
	double nvlink_Bps;    /* per GPU, per direction, bytes/s (H100: 450e9) */
	double lat_nvlink_s;  /* one NVLink hop */
	bool nvswitch;        /* GPUs are all-to-all through NVSwitch */
	bool nvls;            /* NVSwitch supports in-switch reduction (NVLink SHARP) */
	uint32_t pcie_gen;    /* PCIe generation of GPU and NIC links (4, 5, 6) */
	uint32_t pcie_width_gpu; /* lanes */
	uint32_t pcie_width_nic;
	double pcie_Bps_gpu;  /* effective per direction, derived from gen × width unless given */
	double pcie_Bps_nic;
	double lat_pcie_s;    /* one PCIe switch hop */
	uint32_t npcie_switches;
	uint32_t nnuma;       /* NUMA domains (CPU sockets / NPS) */
	double cpu_link_Bps;  /* socket-to-socket interconnect, per direction */
	bool host_arm;        /* ARM host CPUs (Grace: GB200, GB300), else x86 */
	enum ft_host_arch host_arch; /* numa.arch: x86 (default), arm or power */
	enum ft_cpu_vendor cpu_vendor; /* the host CPUs' vendor (numa.vendor) */
	enum ft_gpu_attach gpu_attach; /* gpu_attach: pcie, c2c, or auto (the arch rule) */
	uint32_t nnics;       /* scale-out NICs (compute fabric) */
	char nic_model[32];   /* "ConnectX-7" */
	char nic_link[16];    /* link preset name of the NICs ("ndr") */
	double nic_Bps;       /* per NIC per direction, bytes/s (after encoding) */
	double lat_nic_s;     /* NIC processing latency, one way (default: the link preset's) */
	/* NICs each GPU drives: gpu_nic[g] .. gpu_nic[g] + nics_per_gpu - 1 (AWS p5: 4 EFA
	 * NICs per H100); 0 or 1: one. Several GPUs may share one NIC through gpu_nic. */
	uint32_t nics_per_gpu;
	/* Host cost added to every network message (work request) when the NICs are reached
	 * through a hypervisor or passthrough (doorbells, interrupt remapping); 0 on bare
	 * metal. */
	double vm_msg_s;
	/* The latency the NCCL network plugin reports for each NIC (ncclNetProperties_t
	 * .latency; aws-ofi-nccl on AWS p5/p5e: 75 us). NCCL's tuner adds it to every step
	 * between nodes, twice for Simple; 0 for NCCL's own IB and socket transports,
	 * which report none. */
	double net_lat_s;
	/* The wait before a send's first write between nodes for the receiver's control
	 * message (nics.rendezvous; aws-ofi-nccl's RDMA protocol on AWS p5/p5e: 23 us, an
	 * upper bound); 0 where the transport sends without one, the default. */
	double rdv_s;
	/* NCCL_BUFFSIZE as the node's jobs run with it (nccl.buffsize), bytes: the Simple
	 * protocol's buffer per connection, cut into NCCL_STEPS (8) slots, that sets the
	 * Simple chunk of every collective (kb ENV-BUFFSIZE); 0: NCCL's default, 4 MiB
	 * (FT_SPEC_NCCL_BUFFSIZE). aws-ofi-nccl sets 8 MiB on AWS p5 and p5e. */
	uint64_t nccl_buffsize;
	/* NCCL_LL_BUFFSIZE and NCCL_LL128_BUFFSIZE (nccl.ll_buffsize, nccl.ll128_buffsize),
	 * bytes: the LL and LL128 buffers per connection, NCCL_STEPS slots each, which
	 * NCCL_BUFFSIZE leaves alone (kb ENV-BUFFSIZE); 0: NCCL's defaults, 512 KiB and
	 * 4,915,200 bytes. */
	uint64_t nccl_ll_buffsize;
	uint64_t nccl_ll128_buffsize;
	/* NCCL_NVLS_CHUNKSIZE (nccl.nvls_chunksize), bytes: the most an NVLS or NVLS tree
	 * chunk carries (NCCL 2.21 on); 0: NCCL's 128 KiB (FT_SPEC_NCCL_NVLS_CHUNKSIZE). */
	uint64_t nccl_nvls_chunksize;
	/* NCCL_NVLSTREE_MAX_CHUNKSIZE (nccl.nvlstree_max_chunksize), bytes: the most an NVLS
	 * tree chunk carries (NCCL 2.20 on); 0: NCCL's default, 64 KiB from 4 nodes on, else
	 * the NVLS chunk, from 2.30.3 on Blackwell across nodes what NCCL's tuning picks. */
	uint64_t nccl_nvlstree_max_chunksize;
	/* NCCL_PXN_DISABLE=1 (nccl.pxn_disable): a send between nodes leaves through its own
	 * GPU's NIC even where the peer's GPU sits on another rail; false (NCCL's default): a
	 * point-to-point send to a peer on another rail goes over NVLink to the local GPU of
	 * the peer's rail and out of that GPU's NIC (PXN; NVIDIA/nccl src/graph/search.cc
	 * ncclTopoGetNetDev(), v2.27.7-1; kb ENV-PXN). */
	bool nccl_pxn_disable;
	/* Placement, index per GPU / NIC. */
	uint32_t gpu_pcie_switch[FT_SPEC_MAX_GPUS];
	uint32_t gpu_numa[FT_SPEC_MAX_GPUS];
	uint32_t gpu_nic[FT_SPEC_MAX_GPUS]; /* the NIC closest to each GPU (its rail) */
	uint32_t nic_pcie_switch[FT_SPEC_MAX_NICS];
	uint32_t nic_numa[FT_SPEC_MAX_NICS];
	uint32_t pcie_switch_numa[FT_SPEC_MAX_PCIE_SWITCHES];
	/* Nodes that share one NVLink domain through NVLink switch trays (GB200/GB300 NVL72:
	 * 18 trays of 4 GPUs); 0 or 1: the domain is the node. */
	uint32_t nvlink_domain_nodes;
};

enum ft_fabric_kind {
	FT_FABRIC_NONE,          /* a single node, no scale-out fabric */
	FT_FABRIC_FAT_TREE,      /* 2- or 3-tier folded Clos, NICs of a node on any leaf */
	FT_FABRIC_RAIL_FAT_TREE, /* rail-optimized: NIC r of every node in a unit on leaf r */
	FT_FABRIC_MULTI_PLANE,   /* several independent fat-trees, NIC r on plane r % planes */
	FT_FABRIC_DRAGONFLY,     /* groups of routers, all-to-all global links between groups */
	FT_FABRIC_TORUS,         /* 2D/3D torus of switches (or nodes) */
	FT_FABRIC_KIND_COUNT
};

enum ft_routing {
	FT_ROUTING_ECMP,     /* hash of the flow tuple with a per-switch salt */
	FT_ROUTING_DMODK,    /* destination mod k (OpenSM ftree) */
	FT_ROUTING_ADAPTIVE, /* least-loaded equal-cost port (decided by the simulator) */
	FT_ROUTING_MINIMAL,  /* dragonfly minimal */
	FT_ROUTING_VALIANT,  /* dragonfly Valiant (random intermediate group) */
	FT_ROUTING_DOR,      /* torus dimension order */
	FT_ROUTING_MINHOP,   /* OpenSM minhop / updn LFTs: least-used min-hop port (InfiniBand) */
	FT_ROUTING_COUNT
};

struct ft_fabric_spec {
	enum ft_fabric_kind kind;
	char link[16];          /* link preset name: "ndr", "roce400" */
	double link_Bps;        /* switch-to-switch and host link rate, bytes/s per direction */
	double lat_switch_s;
	double lat_cable_s;
	uint32_t mtu_bytes;     /* path MTU (IB MTU 256-4096; RoCE: the IB MTU inside the Ethernet
				   frame, ROCE-MTU); from the link preset unless given; 0 = 4096 */
	enum ft_routing routing;
	bool sharp;             /* in-network reduction (SHARP) available */
	/* fat-tree family */
	uint32_t tiers;         /* 2 or 3 */
	uint32_t radix;         /* switch ports */
	double oversubscription; /* leaf down:up ratio, 1.0 = non-blocking (0 is read as 1) */
	uint32_t nodes_per_unit; /* rail-optimized: nodes per scalable unit (0 = the leaf's down
				    ports, radix/2 when non-blocking; the loader fills it) */
	uint32_t planes;        /* multi-plane: independent planes (>= 1) */
	/* dragonfly */
	uint32_t groups;
	uint32_t routers_per_group;
	uint32_t nodes_per_router;
	uint32_t global_links_per_router;
	/* torus */
	uint32_t ndims;         /* 2 or 3 */
	uint32_t dims[3];
	uint32_t nodes_per_switch; /* torus: nodes per torus vertex (0 = the node is the vertex) */
};

/*
 * A calibration of the model from measured runs (`fabtune model --calibrate`
 * writes them): time = fixed_s + lat_scale x latency + bw_scale x size /
 * bandwidth over the model's own terms, for an operation on a rank count.
 */
struct ft_calib_entry {
	char op[24];      /* "all_reduce", ... (nccl-tests names) */
	uint32_t nranks;  /* the measured rank count; 0 = any */
	double fixed_s;   /* per-operation cost the model lacks */
	double lat_scale; /* on the latency term */
	double bw_scale;  /* on the bandwidth term */
};

#define FT_SPEC_MAX_CALIB 16
#define FT_SPEC_MAX_GROUPS 8 /* node groups of a heterogeneous cluster */

/* A node group: @count nodes of one kind (nodes: as a list in a spec file). */
struct ft_node_group {
	uint32_t count;
	struct ft_node_spec node;
};

struct ft_cluster_spec {
	char name[64];
	char source[128];     /* file or preset shorthand it came from */
	struct ft_node_spec node; /* every node's, or the first group's */
	uint32_t nnodes;      /* all nodes, every group's */
	struct ft_fabric_spec fabric;
	uint32_t ncalib;      /* calibration: entries, in file order */
	struct ft_calib_entry calib[FT_SPEC_MAX_CALIB];
	/* 0: every node is @node; 2 or more: nodes numbered group by group (group 0's
	 * first), each group's kind in groups[g].node. */
	uint32_t ngroups;
	struct ft_node_group groups[FT_SPEC_MAX_GROUPS];
	/* The NCCL release the cluster's jobs run, in ft_model_query's encoding (major x 10000
	 * + minor x 100 + patch; 22199 for the 2.21 line); 0: the newest the model knows. No
	 * spec key sets it: `fabtune sim --nccl` (ft_sim_overrides.nccl_version) or a scenario's
	 * `nccl.version` does, and
	 * ft_model_links_get() and ft_model_eval() (where the query names none) follow it. */
	uint32_t nccl_version;
};

/* The kind of node @node (0-based, group by group); @spec->node for a single kind. */
FT_API const struct ft_node_spec *ft_spec_node_at(const struct ft_cluster_spec *spec,
                                                  uint32_t node);

/*
 * Limits on every YAML/JSON document fabtune reads (specs, scenarios, sweeps,
 * expectations), checked before the document is built: nesting depth, and
 * the nodes that aliases (*name) may add when expanded, which stops alias
 * bombs. See docs/guarantees.md.
 */
#define FT_YAML_MAX_DEPTH	64
#define FT_YAML_MAX_ALIAS_NODES 100000
#define FT_YAML_MAX_ANCHORS	10000
/*
 * Check @text against the limits above: FT_ERANGE naming file:line:col of the
 * node that crosses one. Syntax errors are not reported here (0): the loader
 * reports them.
 */
FT_API int ft_spec_yaml_check(const char *text, size_t len, const char *file,
                              struct ft_error *err) FT_MUST_CHECK;

/*
 * Load a spec from a YAML/JSON file. Unknown keys and bad values are errors
 * that name "file:line:col: field: expected X, got Y" (FT_EPARSE, FT_ERANGE);
 * a missing file is FT_ENOENT. On error *out is left zeroed.
 */
FT_API int ft_spec_load_file(const char *path, struct ft_cluster_spec *out, struct ft_error *err)
	FT_MUST_CHECK;
FT_API int ft_spec_load_buffer(const char *text, size_t len, const char *file,
			       struct ft_cluster_spec *out, struct ft_error *err) FT_MUST_CHECK;

/*
 * Resolve what a user typed: a path to a spec file, a node preset ("dgx-h100",
 * one node) or a preset with a node count ("dgx-h100:64", the preset's default
 * fabric sized for that many nodes).
 */
FT_API int ft_spec_resolve(const char *arg, struct ft_cluster_spec *out, struct ft_error *err)
	FT_MUST_CHECK;

/* Check a filled spec for consistency (counts, indexes, rates). */
FT_API int ft_spec_validate(const struct ft_cluster_spec *spec, struct ft_error *err)
	FT_MUST_CHECK;

/* Presets. NULL / FT_ENOENT for an unknown name. */
FT_API size_t ft_node_preset_count(void);
FT_API const char *ft_node_preset_name(size_t i);
FT_API int ft_node_preset(const char *name, struct ft_node_spec *out);
FT_API const struct ft_link_preset *ft_link_preset_find(const char *name);
FT_API size_t ft_link_preset_count(void);
FT_API const struct ft_link_preset *ft_link_preset_at(size_t i);

/* One line saying what a node preset is ("8x H100-SXM5 80GB, NVLink 4 ..."). */
FT_API const char *ft_node_preset_summary(size_t i);

/*
 * Ports of a fat-tree leaf switch: @down to hosts and @up to the next tier,
 * with down/up as close to f->oversubscription as whole ports allow without
 * exceeding it (radix 64, 1:1 gives 32/32; 2:1 gives 42/22).
 */
FT_API void ft_spec_leaf_ports(const struct ft_fabric_spec *f, uint32_t *down, uint32_t *up);

/*
 * Most nodes of @s->node the fabric of @s can attach: NIC ports of a fat-tree
 * of its tiers, radix and leaf oversubscription (per plane for multi-plane);
 * routers x nodes per router for a dragonfly; vertices x nodes per vertex for
 * a torus; 1 for FT_FABRIC_NONE.
 */
FT_API uint64_t ft_spec_fabric_capacity(const struct ft_cluster_spec *s);

FT_API const char *ft_link_tech_name(enum ft_link_tech t);
/* "intel", "amd" or "unknown" (the spec's numa.vendor values). */
FT_API const char *ft_cpu_vendor_name(enum ft_cpu_vendor v);
/* "pcie", "c2c" or "auto" (the spec's gpu_attach values). */
FT_API const char *ft_gpu_attach_name(enum ft_gpu_attach a);
/* Whether @n's GPUs reach their CPU, and the NICs on its PCIe, over C2C: gpu_attach, or
 * where that is auto, an ARM host (numa.arch) with Hopper or later GPUs (NVLink 4 on). */
FT_API bool ft_node_gpu_c2c(const struct ft_node_spec *n);
FT_API const char *ft_fabric_kind_name(enum ft_fabric_kind k);
FT_API const char *ft_routing_name(enum ft_routing r);
FT_API int ft_routing_from_name(const char *name, enum ft_routing *out);
/* The same for the value @name of option @opt: FT_EINVAL naming the option and the routings. */
FT_API int ft_routing_from_arg(const char *opt, const char *name, enum ft_routing *out,
                               struct ft_error *err) FT_MUST_CHECK;

/* Total GPUs in the cluster (every node group's). */
static inline uint64_t
ft_spec_ngpus(const struct ft_cluster_spec *s)
{
	uint64_t n = 0;

	if (s->ngroups < 2)
		return (uint64_t)s->nnodes * s->node.ngpus;
	for (uint32_t g = 0; g < s->ngroups && g < FT_SPEC_MAX_GROUPS; g++)
		n += (uint64_t)s->groups[g].count * s->groups[g].node.ngpus;
	return n;
}

/* ---- a spec in words ----------------------------------------------------- */

struct ft_strbuf;
struct ft_json;

/*
 * @s with every figure and its unit: the terminal report (cluster, GPUs,
 * NVLink, PCIe, NUMA, NICs, placement table, fabric and its shape, routing,
 * capacity) appended to @sb; or one JSON object (node, fabric, capacity)
 * into @j.
 */
FT_API void ft_spec_write_text(const struct ft_cluster_spec *s, struct ft_strbuf *sb);
FT_API void ft_spec_write_json(const struct ft_cluster_spec *s, struct ft_json *j);
/*
 * The node presets (name and summary) and link presets (rates, latencies,
 * MTU) as two tables, or as one JSON object (node_presets, link_presets)
 * and a newline, appended to @sb.
 */
FT_API void ft_spec_presets_write_text(struct ft_strbuf *sb);
FT_API void ft_spec_presets_write_json(struct ft_strbuf *sb);

#ifdef __cplusplus
}
#endif
#endif

/* SPDX-License-Identifier: MIT */
/*
 * fabtune/model.h - the analytic engine: what a collective should achieve on
 * a cluster, size by size, and why.
 *
 * The model is NCCL's own cost model (kb NA-MODEL): for every algorithm and
 * protocol it derives a latency and a bandwidth from the cluster's link
 * classes (NVLink or PCIe inside a node, NICs and fabric tiers across
 * nodes), then picks the pair with the least `lat + bytes / bw`, as NCCL's
 * tuner does, unless the caller forces one (NCCL_ALGO / NCCL_PROTO). Results
 * use nccl-tests' definitions (kb NA-BUSBW). It is also the analytic engine
 * behind the simulator's engine table, and the base of a small data-parallel
 * training-job model. Everything here is pure computation: no allocation
 * except the rows of ft_model_sweep(), deterministic, thread-safe.
 */
#ifndef FABTUNE_MODEL_H
#define FABTUNE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fabtune/base.h>
#include <fabtune/coll.h>
#include <fabtune/error.h>
#include <fabtune/json.h>
#include <fabtune/result.h>
#include <fabtune/spec.h>

#ifdef __cplusplus
extern "C" {
#endif

/* GPU generations NCCL's constant tables are indexed by (kb NA-MODEL). */
enum ft_model_arch {
	FT_ARCH_VOLTA,
	FT_ARCH_AMPERE,
	FT_ARCH_HOPPER,
	FT_ARCH_BLACKWELL,
	FT_ARCH_COUNT
};

/*
 * The link classes the model sees for one placement of ranks on a cluster.
 * Bandwidths are bytes/s per direction, latencies seconds.
 */
/*
 * The busiest in-node link a pattern of sends crosses (a PCIe switch's up-link, the socket
 * link, a NIC or its PCIe link, a GPU's own PCIe link where its sends in the node and to
 * the network meet; NVLink left out, priced on NCCL's graph), on the node's own topology
 * as the flow engine routes it (model/share.c). All zero where the op's sends cross no
 * such link.
 */
struct ft_model_shared_link {
	double s;              /* seconds a byte of S there: the bytes it carries over its rate */
	double load;           /* bytes it carries a byte of S (S: what each rank sends in all) */
	double cap_Bps;        /* its rate, one direction */
	char what[16];         /* its class: "cpu_link", "pcie", or the NIC's (nic_what) */
	char from[16], to[16]; /* its ends in the node ("cpu0", "pcie1", "nic0"; "net") */
	uint32_t senders;      /* local GPUs whose sends cross it */
	uint32_t receivers;    /* local GPUs whose receives cross it */
	bool from_net, to_net; /* it carries bytes from the network, to it */
};

/* The room for ft_model_links shared_error and ft_model_result shared_error. */
#define FT_MODEL_SHARED_ERROR_LEN 160

struct ft_model_links {
	uint32_t nranks; /* GPUs taking part */
	uint32_t nnodes;
	uint32_t ppn;       /* ranks per node */
	uint32_t nchannels; /* NCCL channels of the ring/tree graphs */
	/* The ring graph NCCL's search keeps, after ncclTopoDupChannels: its channels and one
	 * channel's bwIntra, GB/s (ft_model_run_nchannels() runs from them, and on NVSwitch
	 * nodes the tuner's per-channel caps read them; NVSwitch nodes alone or joined by NICs,
	 * one GPU a node, NVLink domains); 0 where nchannels already stands for the channels
	 * NCCL runs (PCIe, NVLink without an NVSwitch, a forced count). */
	uint32_t graph_nchannels;
	double graph_GBps;
	/* The channels were forced (NCCL_MIN/MAX_NCHANNELS, ft_model_links_force_channels()) */
	bool channels_forced;
	enum ft_model_arch arch;
	bool nvlink;         /* intra-node traffic over NVLink (else PCIe) */
	bool nvswitch;       /* NVLink through an NVSwitch: NCCL's graph is searched on it */
	bool nvls;           /* NVSwitch with NVLink SHARP */
	bool nvls_off;       /* NCCL_NVLS_ENABLE=0 (the query's nvls_off): no NVLS channels */
	bool sharp;          /* in-network reduction in the fabric */
	/* The NICs carry GPUDirect-TCPX/O (docs/presets.md PS-TCPX): across nodes NCCL runs
	 * the Simple protocol alone and no NVLink SHARP, as the platform's NCCL profile sets. */
	bool tcpx;
	/* A forced CollNet's algorithm: NCCL_ALGO=CollNetDirect or CollNetChain, or AUTO (the
	 * tuner picks between them, as NCCL_ALGO=CollNet lets it). */
	enum ft_collnet_variant collnet;
	uint32_t nvlinks;    /* NVLink links per GPU */
	double intra_Bps;    /* ring graph bandwidth per GPU inside a node (all channels) */
	char intra_what[16]; /* "nvlink", "pcie", "cpu_link" */
	double p2p_Bps;      /* one GPU to its peers inside the node (all-to-all, send/recv) */
	uint32_t nrails;     /* NICs the ranks of a node use */
	/* NICs the ranks of the root's node use (rank 0's: the first node, the first group's)
	 * where node groups differ; 0: nrails. A ring broadcast's crossings read it
	 * (ft__model_chain_net_hops()): nrails is the least of the groups'. */
	uint32_t root_rails;
	/* Every NIC the ranks of the root's node use is one the root's GPU drives (its gpu_nic
	 * and the nics_per_gpu after it: two NICs every GPU drives). Every ring channel then
	 * enters that node at the root, as on one NIC (ft__model_chain_net_hops()). */
	bool root_nics_own;
	double nic_Bps;      /* one NIC's usable rate: min(NIC, its PCIe link, fabric link) */
	char nic_what[16];   /* "nic" or "pcie" */
	double inter_Bps;    /* ring graph bandwidth of a node across nodes (nrails × nic_Bps) */
	double a2a_factor;   /* share of all-to-all inter-node bandwidth the fabric delivers */
	char a2a_what[16];   /* the fabric tier that sets a2a_factor ("tier1", "global") */
	/* Share of the direct all-to-all's NIC rate that the leaves' up-links to the spine
	 * deliver where some sends cross rails from their own NIC (no PXN relay) on a
	 * rail-optimized fat-tree: the NICs' time over the busiest up-link's, as the fabric
	 * routes those sends (D-mod-K, ECMP's expected busiest, adaptive's ceil(k / up) of a
	 * leaf's k flows on its up links); 1 where no send crosses rails through a spine or the
	 * up-links keep pace. */
	double a2a_spine_factor;
	/* The same for a send/recv (rank i to i + 1): one flow a node pair, from the node's
	 * last local rank to the next node's first; its NIC's share the busiest up-link
	 * leaves it (1 where no flow goes up, or more than one NIC a GPU, or NVLink domains).
	 * Only the time of a pick reads it (time_run_channels). */
	double sr_spine_factor;
	/* Switch and cable latency of the paths between two nodes the op's sends take: on a
	 * rail-optimized fat-tree a ring's, a tree's or a send/recv's stay on one rail
	 * (fabric_rail_lat_s), a direct all-to-all's cross rails (fabric_xrail_lat_s; the
	 * model's query sets it, ft_model_links_get() gives the in-rail one). */
	double fabric_lat_s;
	/* The longest path between two of the job's nodes that stays on one rail, and the
	 * longest one from a NIC of one rail to a NIC of another: on a rail-optimized
	 * fat-tree leaf, spine, leaf where all nodes share their rails' leaves (3 switches
	 * against 1); elsewhere the two are equal. */
	double fabric_rail_lat_s, fabric_xrail_lat_s;
	/* Which of a node's first rail_ppn GPUs leave by the same NIC (node.gpu_nic): bit h of
	 * same_rail[g] for GPUs g and h; local rank i of a node (or of an NVLink domain of
	 * trays) is GPU i % rail_ppn. On nodes of several groups, the pairs every group
	 * shares. */
	uint16_t same_rail[FT_SPEC_MAX_GPUS];
	uint32_t rail_ppn;
	/* NCCL's PXN for point-to-point sends (spec nccl.pxn_disable unset, NVLink between the
	 * node's GPUs): a send to a peer on another rail goes over NVLink to the local GPU of
	 * the peer's rail and out of its NIC, so it stays on the rail and pays one NVLink hop
	 * (nvlink_hop_s, nodes.nvlink.latency) on top (NVIDIA/nccl src/graph/search.cc
	 * ncclTopoGetNetDev(), v2.27.7-1 to v2.30.7-1; kb ENV-PXN). */
	bool pxn;
	double nvlink_hop_s;
	/* Whether PXN relays: bit h of pxn_relay[g] where local rank g's send to a peer of
	 * local rank h goes through another GPU of the node, the first of the job's GPUs on
	 * h's NIC (ncclTopoGetLocalGpu()): every cross-rail pair, and on nodes whose GPUs
	 * share a NIC the sends of a GPU that is not its NIC's first, its own rail's too. On
	 * nodes of several groups, the pairs any group relays. */
	uint16_t pxn_relay[FT_SPEC_MAX_GPUS];
	double ring_tier_factor; /* share of a ring's inter-node bandwidth the fabric delivers */
	uint32_t nccl_version;   /* whose latency constants (0: the kb's, 2.28 and later) */
	/* Nodes per NVLink domain the job spans (GB200 NVL72: up to 18), 0 when the domain is
	 * the node; then nnodes counts domains and ppn GPUs per domain. */
	uint32_t domain_nodes;
	/* Host cost of each network message through a hypervisor (spec nics.vm_overhead). */
	double vm_msg_s;
	/* The most a send/recv or all-to-all between nodes waits, once, before its first
	 * write for the receiver's control message (spec nics.rendezvous,
	 * ft_model_efa_rdv_s()); 0 where the node gives none and on one node. */
	double rdv_s;
	/* The network plugin's reported latency (spec nics.net_latency), 0 on one node: where
	 * given it is NCCL's latencyInter in place of fabric_lat_s. */
	double net_lat_s;
	/* NICs one GPU drives (nics.per_gpu, at most nrails): a send/recv between nodes
	 * spreads over them, a channel or QP on each. */
	uint32_t gpu_nics;
	/* NCCL's netCount and netBw of a GPU (ft_model_p2p_net_nics()): the NICs, and their
	 * bandwidth summed in GB/s, that set a network peer's p2p channels from v2.29. */
	uint32_t p2p_net_count;
	double p2p_net_GBps;
	/* NCCL doubles NCCL_P2P_NET_CHUNKSIZE here: ARM hosts, Blackwell GPUs (GB200,
	 * GB300; ft_model_p2p_net_chunk_x2(), kb ENV-BUFFSIZE). */
	bool p2p_net_chunk_x2;
	/* Some node is an ARM host that leaves NCCL_BUFFSIZE unset: NCCL before 2.19 gives
	 * its Simple buffer 1 MiB there, not 4 MiB (src/init.cc DEFAULT_BUFFSIZE_ARM,
	 * v2.10.3-1 to v2.18.6-1); the query's release applies it. */
	bool arm_buff_default;
	/* NCCL_P2P_NET_CHUNKSIZE as the node's network plugin sets it, bytes, 0 where it
	 * leaves NCCL's default (ft_model_p2p_net_chunk_env(): aws-ofi-nccl on AWS p5, p5e). */
	uint32_t p2p_net_chunk;
	/* NCCL_BUFFSIZE, bytes: the Simple buffer of a connection, whose NCCL_STEPS slots set
	 * the Simple chunk of every collective and cap the p2p chunk (ft_model_buffsize():
	 * nccl.buffsize, 8 MiB on AWS p5 and p5e, else NCCL's 4 MiB; kb ENV-BUFFSIZE). */
	uint64_t buffsize;
	/* NCCL_LL_BUFFSIZE, NCCL_LL128_BUFFSIZE and NCCL_NVLS_CHUNKSIZE, bytes, as
	 * ft_model_buffs_get() gives them: the LL and LL128 buffers whose slots set those
	 * protocols' chunks, and the most an NVLS or NVLS tree chunk carries. */
	uint64_t ll_buffsize, ll128_buffsize, nvls_chunk;
	/* NCCL_NVLSTREE_MAX_CHUNKSIZE (nccl.nvlstree_max_chunksize), bytes, the least a node
	 * sets; 0: NCCL's default by version (ft_model_nvls_chunk()). */
	uint64_t nvls_tree_max;
	/* A node sets NCCL_NVLS_CHUNKSIZE (nccl.nvls_chunksize): from 2.30 it overrides the
	 * chunk NCCL's Blackwell NVLS tuning picks (ft_model_nvls_chunk()). */
	bool nvls_chunk_set;
	/* A GPU reaches its NIC through its host's C2C link, NCCL's PATH_P2C (node.gpu_attach
	 * c2c; where not given, node.host_arm with Hopper or later GPUs: Grace; NCCL reads no
	 * C2C link below sm_90: ft_node_gpu_c2c()); otherwise through PCIe switches
	 * (PATH_PIX/PXB). docs/internals/model.md. */
	bool nic_c2c;
	/* Every node the job takes is an x86 host (node.host_arch; arm and power are not): NCCL's
	 * comm->cpuArch is NCCL_TOPO_CPU_ARCH_X86, which its NVLS tree correction asks for
	 * (src/graph/tuning.cc ncclTopoGetAlgoTime, v2.29.2-1 on). The job's nodes are its
	 * first in spec order (ft_model_links_get()), not every node group of the cluster.
	 * Ranks whose hosts differ make it NCCL_TOPO_CPU_ARCH_MIXED (src/init.cc
	 * initTransportsRank), not x86. */
	bool cpu_x86;
	/* GPUs of the least and the most populated node: equal to ppn but on a cluster
	 * whose node groups differ in GPUs per node and that runs every GPU, where ppn
	 * is NCCL's nRanks / nNodes. */
	uint32_t ppn_min, ppn_max;
	/* The nodes are AWS p5 or p5e instances (node presets aws-p5, aws-p5e), whose
	 * all-reduce aws-ofi-nccl's tuner plugin has regions for (model/tuner_ofi.c). */
	bool aws_p5;
	/* NCCL flushes a GPUDirect receive before handing it on (src/graph/paths.cc
	 * ncclTopoNeedFlush): on Ampere and older, and on C2C hosts (Grace); not on Hopper
	 * or later behind an x86 host. Its tuner prices the flush on Simple either way. */
	bool net_flush;
	/* Set on a copy of the links that times a pick, not prices it: where net_flush is
	 * false the Simple protocol's step across nodes pays latencyInter once, not twice. */
	bool time_unflushed;
	/* Every node is an AMD x86 host (spec numa.vendor amd, not arm): NCCL's tuner prices
	 * a network post at 2 us there, not 1, and caps multi-node LL at its AMD row (kb
	 * NA-MODEL "Other constants", NA-PROTO-LL; src/graph/tuning.cc getNetOverhead and
	 * llMaxBws). cpu_mixed: the nodes name different vendors, NCCL's MIXED (v2.24.3-1
	 * on), which takes the AMD LL row and the 1 us overhead. */
	bool cpu_amd, cpu_mixed;
	enum ft_cpu_vendor cpu_vendor; /* a named x86 vendor of the nodes, else unknown */
	/* Set on a copy of the links that times a pick: the vendor's figures price NCCL's
	 * pick (and --tuner-only's time) but not the time (docs/internals/model.md). */
	bool time_any_vendor;
	/* Set on a copy of the links that times a pick: NCCL's tuner caps LL128 and the tree
	 * per channel of its search graph (graph_nchannels), its kernel runs the run-time
	 * channels (ft_model_run_nchannels()), each under that cap (model/tuner.c). */
	bool time_run_channels;
	/* The busiest in-node link of the direct all-to-all (S/n to every peer, in the node
	 * and across nodes at once), of the hierarchical one's phase in the node (S/ppn to
	 * every local peer) and of either one's sends between nodes ((n - ppn)/n of S out of
	 * each GPU and into it), and of a send/recv (rank i to i + 1): model/share.c. The
	 * model's all-to-all and send/recv queries fill them (ft_model_eval());
	 * ft_model_links_get() leaves them zero. */
	struct ft_model_shared_link a2a_shared, a2a_node_shared, a2a_net_shared, sr_shared;
	/* Why those links are all zero on a node whose topology graph did not build or route
	 * (ft_topo_build()'s error, "nodes.numa.domains: expected 0..16, got 32"): each part
	 * then keeps one GPU's share of its link class; empty where the graph built, and where
	 * the op reads no shared link (model/share.c). */
	char shared_error[FT_MODEL_SHARED_ERROR_LEN];
};

/*
 * Derive the link classes of @spec for @ngpus GPUs (0 = all) on @nnodes
 * nodes (0 = the spec's count) with @ppn ranks per node (0 = fill nodes:
 * @ngpus at most the GPUs per node stays on one node, above that it must be
 * a whole number of nodes; else the first @ppn GPUs of each node, so @ngpus
 * must be a multiple of it), at the NCCL release @spec's jobs run (spec nccl_version, 0:
 * the newest: its channels, NVLink figure and latencies, as ft_model_eval() at that
 * release). FT_EINVAL / FT_ERANGE naming the field. The spine's shares
 * (a2a_spine_factor, sr_spine_factor) are left 1: ft_model_eval() counts them for an
 * all-to-all or a send/recv query, where its time reads them.
 */
FT_API int ft_model_links_get(const struct ft_cluster_spec *spec, uint32_t ngpus, uint32_t nnodes,
                              uint32_t ppn, struct ft_model_links *out,
                              struct ft_error *err) FT_MUST_CHECK;

/*
 * @l with @nch channels forced (NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS = @nch, kb
 * ENV-NCHANNELS; a query's nchannels, --channels): the communicator runs @nch channels,
 * each with its share of the graph's bandwidth inside a node and one NIC across nodes;
 * NCCL still drops channels at small sizes (ft_model_pipe_terms()' nchannels). 0: no change.
 */
FT_API void ft_model_links_force_channels(struct ft_model_links *l, uint32_t nch);

/*
 * The share of a link's raw rate that NCCL's traffic reaches on @spec, per
 * link class (enum ft_link_kind of topo.h): NVLink, NCCL's own per-link figure
 * over the raw 25 / 50 GB/s (kb NA-MODEL, SRC src/graph/topo.h: H100 20.6 of
 * 25); NIC host links and fabric links, the payload share of a packet at the
 * fabric's MTU (fabric.mtu): IB 26 header bytes per packet (kb IB-MTU), RoCEv2
 * 62 + 20 of preamble and gap (kb ROCE-WIRE); 1 for PCIe (the spec's rates are
 * already what a GPU or NIC reaches) and the socket link.
 */
FT_API double ft_model_link_efficiency(const struct ft_cluster_spec *spec, int link_kind);

/*
 * The most a send/recv or an all-to-all between nodes of @spec waits, once, before its
 * first write for the receiver's control message, seconds: the node's nics.rendezvous
 * (aws-ofi-nccl's RDMA protocol; aws-p5, aws-p5e: one message at the plugin's own p5/p5e
 * price, 20 us of network latency plus 3 us of completion, docs/presets.md PS-EFA-RDV).
 * 0 where the node gives none, as on every fabric but those presets'.
 */
FT_API double ft_model_efa_rdv_s(const struct ft_cluster_spec *spec);

/* NCCL's NVLS efficiency on @spec's GPUs (kb NA-ALGO-NVLS nvlsEfficiency); 0 where a
 * node (of any group) has no NVLS: no NVSwitch, GPUs before Hopper, or
 * nodes.nvlink.nvls: false. */
FT_API double ft_model_nvls_efficiency(const struct ft_cluster_spec *spec);

/* What NCCL's NVLS graph keeps of a channel's share of the NVLink graph when @heads GPUs of
 * one node (or NVLink domain) head its channels: every channel runs at one speed of NCCL's
 * list (src/graph/search.cc), links / (heads + 1) rounded down to it, against the ring
 * graph / (heads + 1). 1 on 8 H100s or B200s (40 and 80 GB/s exactly), 20 / 21.8 = 0.917
 * on the 32 heads of an NVL72 rack; 1 where the node has no NVLS. */
FT_API double ft_model_nvls_channel_share(const struct ft_cluster_spec *spec, uint32_t heads);

/* NCCL's cap on one NVLSTree channel's bus bandwidth for a job of @l's GPUs and nodes,
 * bytes/s (kb NA-ALGO-NVLS perChMaxNVLSTreeBws: 57.7 GB/s on Hopper over 2 nodes, 45.5
 * beyond); 0 where the GPUs have no NVLS. NCCL runs one NVLSTree channel per GPU of a
 * node. */
FT_API double ft_model_nvls_tree_channel_Bps(const struct ft_model_links *l);

/* NCCL's cap on one tree channel's bus bandwidth with protocol @p for a job of @l's
 * nodes, bytes/s (kb NA-MODEL perChMaxTreeBws; LL128 also perChMaxTreeLL128Bws:
 * 24 GB/s on Blackwell over more than 2 nodes). */
FT_API double ft_model_tree_channel_Bps(const struct ft_model_links *l, enum ft_proto p);

/* How much faster than NCCL's tuner charges it a (NVLS) tree all-reduce @a really
 * moves its bytes between nodes (kb NA-ALGO-TREE): 2 for the tree over 2 nodes (each
 * tree a single edge), 4/3 for either over 3 (the busiest node carries 1.5S, not
 * 2S); 1 elsewhere (the NVLS tree's own formula already doubles 2 nodes). */
FT_API double ft_model_tree_carried_factor(const struct ft_model_links *l, enum ft_algo a);

/* The algorithm bandwidth NCCL's per-channel cap allows a (NVLS) tree all-reduce @a
 * with protocol @p over @l's nodes, bytes/s: the tuner's channels x cap converted as
 * the tuner converts it (x0.5 for the tree, n / 2(n - 1) for the NVLS tree), times
 * ft_model_tree_carried_factor(). 0 on one node or for another algorithm. */
FT_API double ft_model_tree_cap_algbw(const struct ft_model_links *l, enum ft_algo a,
                                      enum ft_proto p);

/* The share of the links NCCL's tuner counts a CollNetDirect all-reduce to reach on
 * @spec's GPUs: 0.85 on sm_90 and later, 1 before (kb NA-MODEL; NVIDIA/nccl
 * src/graph/tuning.cc, v2.18.3-1 to v2.30.7-1: busBw x .85 where minCompCap >= 90). */
FT_API double ft_model_collnet_direct_efficiency(const struct ft_cluster_spec *spec);

/* The share of @l's links (the chain's NVLink term and the NICs) a CollNetChain all-reduce
 * reaches by NCCL's tuner: its chain graph's speed, nChannels x bwIntra x 0.5, over the
 * links' bound where the graph is the slower, else 1 (the model's cost_collnet_chain();
 * NVIDIA/nccl src/graph/tuning.cc ncclTopoTuneModel(), v2.18.3-1 and v2.27.7-1). 8 H100
 * with 8 x 400G: 192 / 205.7 GB/s. */
FT_API double ft_model_collnet_chain_efficiency(const struct ft_model_links *l);

/* The share of the links NCCL's tuner counts PAT to reach at release @version
 * (ft_model_query's nccl_version; 0 the kb's): busBw x .85 at 2.23 (NVIDIA/nccl
 * v2.23.4-1 src/graph/tuning.cc ncclTopoTuneModel()), x .75 from 2.24 (v2.24.3-1 to
 * v2.30.7-1), not converted to an algorithm bandwidth (kb NA-ALGO-PAT). The model's
 * cost_pat() takes it, and the simulator's PAT pace through the model (sim/nccl.c
 * ft__sim_pat_cap()). */
FT_API double ft_model_pat_busbw_share(uint32_t version);
/* How much faster than NCCL's tuner charges it a PAT all-gather or reduce-scatter @op over
 * @l's ranks (one a node) moves its bytes: n / (n - 1). The tuner prices the whole output S
 * over busBw (no conversion to algorithm bandwidth, src/graph/tuning.cc); the kernel moves
 * (n - 1) / n of S a rank (src/include/collectives.h PatAGAlgorithm, PatRSAlgorithm). The
 * model's pick keeps the tuner's price, its time takes this (ft__model_carried()); 1 for
 * another op or one rank. */
FT_API double ft_model_pat_carried_factor(const struct ft_model_links *l, enum ft_op op);
/* The first NCCL release with PAT, in ft_model_query's nccl_version encoding: 2.23
 * (NVIDIA/nccl v2.23.4-1 adds NCCL_ALGO_PAT; kb NA-ALGO-PAT). */
#define FT_MODEL_PAT_FROM 22300

/*
 * The fixed cost of one step of a collective between nodes on top of NCCL's per-hop
 * network latency (hwLat NET), seconds: NCCL's latencyInter (the network plugin's
 * reported latency where the spec gives one, nics.net_latency, in place of the fabric's
 * switches and cables, fabric_lat_s), twice with @p Simple where the receive is flushed,
 * plus the hypervisor's cost of a network message (nics.vm_overhead). The tuner prices
 * the flush on every Simple step; with @l's time_unflushed set, only where NCCL flushes
 * (net_flush), as the time of a pick pays it. 0 on one node (@l's
 * latencies are 0 there). What the model's ring, tree, NVLS tree, CollNet, PAT and
 * send/recv costs charge a step between nodes, and the simulator's engines too.
 */
FT_API double ft_model_net_step_s(const struct ft_model_links *l, enum ft_proto p);

/*
 * The least a step inside a node of a ring across nodes lasts, seconds: NCCL's network
 * post overhead, 1 us (2 us on AMD x86 hosts where @l prices a pick, not its time:
 * time_any_vendor), x3 for Simple, since each such step waits for a network post further
 * along the ring (src/graph/tuning.cc ncclTopoTuneModel(), getNetOverhead, the ring's
 * intraHw; read at v2.18.6-1, v2.21.5-1 and v2.27.7-1; kb NA-MODEL "Other constants"); 0
 * on one node (@l nnodes). The model's ring all-reduce, all-gather and reduce-scatter (not broadcast nor
 * reduce) take max(intraLat, it) a step inside a node, and so do the simulator's engines.
 */
FT_API double ft_model_ring_intra_floor_s(const struct ft_model_links *l, enum ft_proto p);

/*
 * NCCL's latency constants at release @nccl_version (major x 10000 + minor x 100 + patch;
 * 0: the newest), seconds, as the model's costs take them (kb NA-MODEL; the releases
 * before 2.28 from NVIDIA/nccl src/graph/tuning.cc at their tags): the per-hop latency
 * hwLat[@link][@a][@p] and the base latency baseLat[@a][@p]. The simulator's engines
 * price their steps and launches with them at the jobs' release.
 */
FT_API double ft_model_hw_latency(uint32_t nccl_version, enum ft_hw_link link, enum ft_algo a,
                                  enum ft_proto p);
FT_API double ft_model_base_latency(uint32_t nccl_version, enum ft_algo a, enum ft_proto p);

/* Whether NCCL's tuner at release @nccl_version counts 2 x nNodes of a ring all-reduce's
 * steps as network steps (before 2.23), not 2 x (nNodes - 1) (nInterSteps,
 * src/graph/tuning.cc at v2.22.3-1 and v2.23.4-1). */
FT_API bool ft_model_ring_inter_2n(uint32_t nccl_version);

/* The per-hop network latency hwLat[NET] a step between nodes of @op by @a with @p pays at
 * release @nccl_version, seconds, as NCCL's tuner takes it (its interLat less the graph's
 * latencyInter): from 2.23 on, where every node holds one rank (@one_rank_a_node: nRanks ==
 * nNodes), every algorithm of NCCL's tuner (ring, tree, CollNet direct and chain, NVLS,
 * NVLS tree, PAT) reads Tree's row (interLat = ppn == 1 ? hwLat[NET][TREE][p] :
 * hwLat[NET][a][p], src/graph/tuning.cc ncclTopoTuneModel() at v2.23.4-1 and v2.27.7-1;
 * kb NA-MODEL hwLatencies); before, its own row (v2.18.6-1, v2.21.5-1, v2.22.3-1). A ring's
 * broadcast and reduce do not take interLat: NCCL charges them hwLat[NET][RING][p] once
 * where the channels are the same, else nsteps = nRanks times, Tree's row for Simple; the
 * model's chain (and this) keeps the ring's row at every release. The model's own
 * halving/doubling, direct and hierarchical costs keep their rows. The model and the
 * simulator's engines both price a step between nodes with it. */
FT_API double ft_model_net_hop_latency(uint32_t nccl_version, enum ft_op op, enum ft_algo a,
                                       enum ft_proto p, bool one_rank_a_node);

/* The hop latencies of a CollNetDirect all-reduce over @ppn ranks a node at release
 * @nccl_version, seconds, as NCCL's tuner prices them and the model's CollNetDirect takes
 * them: 2 (min(1, ppn - 1) hwLat[NVLINK] + 0.4 us x (ppn - 1), 0.5 us before 2.19) +
 * hwLat[NET] (ft_model_net_hop_latency(): Tree's row from 2.23 where @one_rank_a_node),
 * without what the model adds to a network step (ft_model_net_step_s()); the simulator's
 * CollNetDirect steps hold it (src/graph/tuning.cc ncclTopoTuneModel(); kb NA-MODEL). */
FT_API double ft_model_collnet_direct_hops_s(uint32_t nccl_version, uint32_t ppn,
                                             bool one_rank_a_node);

/* The hop latencies of a CollNetChain all-reduce over @ppn ranks a node at release
 * @nccl_version, seconds, as NCCL's tuner prices them and the model's CollNetChain takes
 * them: 2 (ppn - 1) x CollNetChain's hwLat[NVLINK] where @nvlink, else its hwLat[PCI], +
 * its hwLat[NET] (Tree's row from 2.23 where @one_rank_a_node), without
 * ft_model_net_step_s(); the simulator's CollNetChain steps hold it. The rows: 4.75 us
 * (NVLink), 8.0 (PCI) and 14 (network) at v2.18.3-1, 2.8, 2.8 and 30 from v2.19.1-1
 * (src/graph/tuning.cc ncclTopoTuneModel(); kb NA-MODEL). */
FT_API double ft_model_collnet_chain_hops_s(uint32_t nccl_version, uint32_t ppn,
                                            bool one_rank_a_node, bool nvlink);

/* NCCL's correction of a tree's bandwidth for the all-reduce of @bytes with protocol @p
 * (kb NA-MODEL treeCorrectionFactor, by log2(bytes / 64); src/graph/tuning.cc
 * ncclTopoGetAlgoTime): the tree's to 256 MiB; the NVLS tree's to 512 MiB from NCCL 2.29.2
 * on Blackwell behind x86 hosts (@l arch, cpu_x86, nccl_version); 1 elsewhere and for
 * every other collective. The model's time and the simulator's tree flows both take it. */
FT_API double ft_model_tree_correction(const struct ft_model_links *l, enum ft_op op,
                                       enum ft_algo a, enum ft_proto p, uint64_t bytes);

/* NCCL's tree efficiency: the share of the graph bandwidth its tree reaches across
 * nodes (kb NA-ALGO-TREE, NA-MODEL: busBw x 0.92). */
FT_API double ft_model_tree_efficiency(void);

struct ft_model_query {
	enum ft_op op;
	uint64_t bytes;  /* operation size as nccl-tests defines it (kb NA-BUSBW) */
	uint32_t ngpus;  /* 0 = all GPUs of the spec */
	uint32_t nnodes; /* 0 = the spec's node count */
	uint32_t ppn;    /* ranks per node; 0 = fill nodes (see ft_model_links_get) */
	bool force_algo; /* NCCL_ALGO */
	enum ft_algo algo;
	/* With algo FT_ALGO_COLLNET forced: CollNetDirect or CollNetChain alone, or both, the
	 * faster at the size (FT_COLLNET_AUTO, NCCL_ALGO=CollNet). */
	enum ft_collnet_variant collnet;
	bool force_proto; /* NCCL_PROTO */
	enum ft_proto proto;
	uint32_t nchannels; /* 0 = the model's channel count */
	/* NCCL release whose constants to use, NCCL's code major x 10000 + minor x 100 + patch
	 * (23003 for 2.30.3; a release line from --nccl 2.30, its newest: 23099); 0 = the kb's
	 * (2.28 and later). 2.18, 2.19-2.20, 2.21-2.22 and 2.23-2.27 differ in
	 * their tree, CollNet and NVLS latencies, and in LL caps, the one-GPU-per-node LL128
	 * ring and Blackwell's per-channel caps (docs/internals/model.md). */
	uint32_t nccl_version;
	/* Iterations replayed from a CUDA graph (nccl-tests -G): no host launch per operation. */
	bool cuda_graph;
	/* GPUs one host thread drives (nccl-tests -g): it launches the operation on each of
	 * them in turn, so the host's floor is that many launches; 0 or 1 = one GPU. */
	uint32_t gpus_per_thread;
	/* NCCL's tuner figure alone: latency + size / bandwidth, without the pipeline terms. */
	bool tuner_only;
	/* NCCL_NVLS_ENABLE=0: NVLink SHARP off, neither NVLS nor NVLSTree is a candidate. */
	bool nvls_off;
	/* The caller has no schedule for NVLS across nodes (NVLS with CollNet; the flow engine):
	 * the tuner leaves it out and picks among the others, as NCCL does where it is off. */
	bool no_nvls_net;
	/* Some node holds more than one of the ranks although @ppn reads 1 (a caller that
	 * flattens spread, random or uneven placements): NCCL's nNodes < nRanks, so the tuner
	 * leaves PAT out (NVIDIA/nccl src/graph/tuning.cc ncclPatEnable(); kb NA-ALGO-PAT). */
	bool no_pat;
	/* NCCL_TUNER_PLUGIN is aws-ofi-nccl's tuner: on AWS p5/p5e its regions pick the
	 * all-reduce's algorithm and protocol where it has them (model/tuner_ofi.c). */
	bool ofi_tuner;
	/* Where the in-node links an all-to-all's or a send/recv's sends share (ft_model_links
	 * a2a_shared and after) are kept between queries (ft_model_cache_new()); NULL: each
	 * query lays out its node's topology again. */
	struct ft_model_cache *cache;
};

/*
 * What the model keeps between queries on one cluster: the in-node links an all-to-all's
 * and a send/recv's sends share, one entry per distinct node, job shape and PXN setting
 * (model/share.c), so a sweep, a plan search, the simulator's analytic engine or
 * advise's what-ifs lay out each node's topology once for their run. Its queries give
 * the same results as without it. Not thread-safe: one cache serves one thread at a
 * time (give each thread its own).
 */
struct ft_model_cache;

/* A new empty cache; NULL when out of memory. */
FT_API struct ft_model_cache *ft_model_cache_new(void);
/* Free @c (NULL: nothing). */
FT_API void ft_model_cache_free(struct ft_model_cache *c);
/* Queries @c answered from an entry (@hits) and that laid out a node (@misses); 0 and 0
 * for a NULL @c. Either pointer may be NULL: that count is not written. */
FT_API void ft_model_cache_stats(const struct ft_model_cache *c, uint64_t *hits,
                                 uint64_t *misses);

/* An all_reduce query of @bytes on every GPU of the spec, nothing forced. */
FT_API void ft_model_query_init(struct ft_model_query *q, enum ft_op op, uint64_t bytes);

/*
 * A query as the user asks it (`fabtune model`'s options): names and numbers still to check.
 * ft_model_args_init() sets the defaults.
 */
struct ft_model_args {
	const char *op;	   /* NULL: all_reduce */
	const char *algo;  /* NCCL_ALGO's names; NULL: the tuner's choice */
	const char *proto; /* NCCL_PROTO's names; NULL: the tuner's choice */
	const char *nccl;  /* "2.21" or "2.23.4"; NULL: the kb's constants */
	uint64_t gpus, nodes, ppn; /* 0: the spec's */
	uint64_t channels;         /* FT_SPEC_CHANNELS_UNSET: the tuner's; 0 is refused */
	uint64_t gpus_per_thread;            /* nccl-tests -g; 0: one */
	bool cuda_graph, tuner_only;
	bool no_nvls; /* NCCL_NVLS_ENABLE=0 */
	const char *tuner_plugin; /* NCCL_TUNER_PLUGIN: "aws-ofi-nccl"; NULL: none */
};

/*
 * @a checked into @q (bytes 0). FT_EINVAL naming the option and what it
 * expects ("--nccl: expected a version like 2.21 or 2.23.4, got '3.0'").
 */
/* Nothing given: every field 0 or NULL but channels (FT_SPEC_CHANNELS_UNSET). */
FT_API void ft_model_args_init(struct ft_model_args *a);

FT_API int ft_model_args_query(const struct ft_model_args *a, struct ft_model_query *q,
                               struct ft_error *err) FT_MUST_CHECK;

/*
 * --nccl's text, "2.23.4" or a release line "2.21", into ft_model_query's encoding (NCCL's
 * NCCL_VERSION code; a line's newest patch, 22199); FT_EINVAL "--nccl: expected a version
 * like 2.21 or 2.23.4, got 'x'"; FT_ERANGE "--nccl: expected 2.18 to 2.30 ..." for a release
 * the model does not know (2.17, 2.31). `fabtune model` and `fabtune sim` read it alike.
 */
FT_API int ft_model_nccl_read(const char *text, uint32_t *out, struct ft_error *err)
        FT_MUST_CHECK;
/* The same with another prefix: the message begins "@field: expected ...", @field naming
 * where the text came from (ft_model_nccl_read(): "--nccl"), or "expected ..." where @field
 * is NULL, as a file's reader passes it (a scenario's nccl.version, a sweep's vary.nccl),
 * which puts its own file:line:col and field before the message. */
FT_API int ft_model_nccl_read_field(const char *field, const char *text, uint32_t *out,
                                    struct ft_error *err) FT_MUST_CHECK;
/* FT_ERANGE for a release outside the model's constants (2.18 to 2.30); 0 for 0 (the newest). */
FT_API int ft_model_nccl_check(uint32_t version, struct ft_error *err) FT_MUST_CHECK;
/*
 * The GPU of node @n that NCCL's PXN makes the proxy of a send through NIC @nic, among the
 * GPUs 0 to @ngpus - 1 whose bit is set in @job (the job's GPUs of the node): the first of
 * them on @nic under the NIC's own PCIe switch, else the first of them on @nic (NVIDIA/nccl
 * src/graph/topo.cc ncclTopoGetLocalGpu(), v2.27.7-1 and v2.30.7-1); UINT32_MAX when no GPU
 * of the job is on @nic. The model's links, the flow engine and the packet engine ask it.
 */
FT_API uint32_t ft_model_pxn_proxy(const struct ft_node_spec *n, uint32_t ngpus, uint32_t job,
                                   uint32_t nic);
/*
 * The GPU through which NCCL's PXN relays a send that leaves by NIC @nic, or UINT32_MAX
 * where NCCL sends from the sender's own NIC instead: ft_model_pxn_proxy(), kept where
 * NCCL_P2P_PXN_LEVEL 2 (the default) admits it at release @nccl_version (ft_model_query's
 * encoding, 0: the newest; NVIDIA/nccl src/graph/search.cc ncclTopoGetNetDev(), v2.27.7-1
 * to v2.30.7-1): the node has NVLink (the proxy's path to the sender is PATH_NVL) and the
 * proxy sits under @nic's own PCIe switch (its path to the NIC is PATH_PIX or PATH_PXB).
 * On a node whose GPUs reach that PCIe over C2C (ft_node_gpu_c2c()) the path is PATH_P2C,
 * admitted by NCCL_PXN_C2C, whose default is 1 from v2.28.3-1 only (0 in v2.27, and no
 * PATH_P2C before). A proxy that reaches the NIC only through a CPU (PATH_PHB, PATH_SYS)
 * relays nothing, nor does any GPU of a node without PCIe switches, where each GPU and
 * NIC sits on a CPU root port, unless over C2C.
 */
FT_API uint32_t ft_model_pxn_relay(const struct ft_node_spec *n, uint32_t ngpus, uint32_t job,
                                   uint32_t nic, uint32_t nccl_version);
/* @version as the user writes it: "2.21" (a line), "2.23.4", or "newest" for 0. */
FT_API void ft_model_nccl_name(uint32_t version, char *buf, size_t len);

/*
 * An NCCL release older than the GPUs it is asked to run on: NCCL before the first release
 * that knows a compute capability takes the newest one it knows for it (src/graph/topo.h
 * ncclTopoNVLinkBw(): cudaCompCap >= 90 ? SM90_NVLINK_BW; src/graph/tuning.cc compCapIndex),
 * and so does the model (model/links.c ft__model_nvlink_link_Bps_at()). NVIDIA/nccl at the
 * tags: Hopper (compute capability 9.0) from v2.15.1-1 (makefiles/common.mk sm_90, tuning.cc
 * HOPPER_COMPCAP_IDX), Blackwell (10.0) from v2.25.1-1 (topo.h SM100_NVLINK_BW, tuning.cc
 * BLACKWELL_COMPCAP_IDX, common.mk compute_100). See docs/internals/model.md.
 */
struct ft_model_nccl_note {
	uint32_t version;  /* the release asked for (ft_model_query's encoding) */
	uint32_t first;    /* the first release that knows the GPU; 0: no note */
	char gpu[32];      /* the GPU model of the nodes (nodes' gpu_model) */
	const char *arch;  /* "Blackwell", "Hopper" */
	const char *taken; /* the architecture whose constants the release takes: "Hopper" */
};

/* The note for @spec's nodes (every node group's; the newest GPU the release does not know)
 * at release @version (0: the newest, no note): true where one is due, @out filled. */
FT_API bool ft_model_nccl_note_get(const struct ft_cluster_spec *spec, uint32_t version,
                                   struct ft_model_nccl_note *out);
/* The note's words into @buf, @field naming where the release came from ("--nccl",
 * "nccl.version", "vary.nccl") and @where, when not NULL or "", the file:line:col of its
 * value: "--nccl 2.18: NCCL 2.18 predates the B200-180GB GPUs (Blackwell): NCCL knows them
 * from 2.25.1; the model prices them with Hopper's constants, as 2.18 does", or with
 * @where "s.yaml:5:19: nccl.version 2.18: NCCL 2.18 predates ...". */
FT_API void ft_model_nccl_note_text(const struct ft_model_nccl_note *n, const char *where,
                                    const char *field, char *buf, size_t len);
/* The note as one element of a "warnings" array: {"field", "where" (only with @where),
 * "gpu", "nccl", "first_nccl", "message"}. */
FT_API void ft_model_nccl_note_json(struct ft_json *j, const struct ft_model_nccl_note *n,
                                    const char *where, const char *field);
/*
 * Whether q->nnodes nodes fit @spec's fabric, grown to 3 tiers as a preset
 * of that many nodes would be (the check a spec's own node count meets).
 * FT_EINVAL saying how many fit.
 */
FT_API int ft_model_query_check_nodes(const struct ft_cluster_spec *spec,
                                      const struct ft_model_query *q,
                                      struct ft_error *err) FT_MUST_CHECK;

/*
 * What the tuner's latency + size / bandwidth leaves out at small and middle
 * sizes (docs/internals/model.md, "The pipeline"): the channels NCCL
 * launches at this size, its chunks, the ramp before the pipeline is full,
 * the proxy thread's messages and the host launch of the operation.
 */
struct ft_model_pipeline {
	uint32_t nchannels;   /* channels NCCL launches at this size (enqueue.cc channel tuning) */
	double bw_share;      /* nchannels / the graph's channels: the bandwidth they give */
	uint64_t chunk_bytes; /* NCCL's chunk size at this size */
	uint64_t loops;       /* chunks each pipeline moves one after another */
	uint32_t stages;      /* hops a chunk crosses in sequence (1: none, a ring) */
	double ramp_s;        /* pipeline fill: the first chunk through every stage */
	uint32_t net_hops;    /* of those stages, hops between nodes an LL or LL128 step
	                       * crosses whole (the proxy sends it as one message) */
	double messages;      /* network messages one channel's connections carry in series */
	double proxy_s;       /* messages x the per-message cost: a floor under the time */
	double launch_s;      /* host launch of one operation: a floor (0 with a CUDA graph) */
	/* Simple pipelines of stages (trees, chains, NVLS): one round (every pipe's chunk) at
	 * the operation's pace, and the first round through every stage at the stages' rates
	 * (ramp_s = fill_s - round_s where it is positive); 0 elsewhere */
	double round_s, fill_s;
	/* LL128 chains and trees: the first grain's pass through one stage inside a node at
	 * the channel's share of the node's class (model/pipeline.c ll128_ramp(), a term of
	 * ramp_s on each such stage; the packet engine's LL128 chain takes it out of what its
	 * hops walk, sim/pkt_setup.c walk_back_s()); 0 elsewhere */
	double grain_s;
};

/*
 * The pipeline terms NCCL's run of (@op, @a, @p) pays at @bytes on @l's ranks beyond the
 * tuner's latency and bandwidth terms, as ft_model_eval() times that pick (its result's
 * pipe; model/pipeline.c): the channels launched at this size, the chunks, the ramp of a
 * chain or tree (the first chunk through every stage), the network messages a channel's
 * proxy posts in series and their floor (messages x (1 us + nics.vm_overhead)), the host
 * launch. All zero where the pair does not run on @l even forced (one rank, NVLS without
 * NVLink SHARP, NVLS across nodes) or has no bandwidth. The flow engine, which runs a ring
 * or tree's flows whole, pays the ramp and the proxy floor from here on every transport
 * (docs/internals/sim.md); forced channels come in through @l
 * (ft_model_links_force_channels()). Returns 0, or FT_ENOMEM (an NVLS tree's fill across
 * nodes walks NCCL's double binary tree) with @out all zero and @err "model: NCCL's
 * pipeline: out of memory".
 */
FT_API int ft_model_pipe_terms(const struct ft_model_links *l, enum ft_op op, enum ft_algo a,
                               enum ft_proto p, uint64_t bytes, struct ft_model_pipeline *out,
                               struct ft_error *err) FT_MUST_CHECK;

/*
 * The algorithm bandwidth NCCL's kernels reach on a ring or tree (@op, @a, @p) at @bytes on
 * @l where the protocol or the channels launched, not the links, set it, bytes/s: on LL and
 * LL128 the rate NCCL's tuner gives the protocol (kb NA-PROTO-LL, NA-PROTO-LL128: a ring's
 * LL share of the graph and LL's absolute cap, the tree's 1/3.8 and 7/9, the per-channel
 * caps), on every protocol the share of the channels NCCL launches at @bytes (the pipeline's
 * bw_share: 3 of 32 on a GB200 NVL72 rack's LL ring at 1 MiB), with the tree's correction
 * at @bytes: the bytes over the bandwidth term of the time ft_model_eval() gives that pick.
 * 0 for other algorithms, where the pair does not run on @l, and where nothing but the
 * links binds (Simple on all its channels). The flow engine, whose flows reach the links'
 * rates at the protocol's wire efficiency, caps a ring's or tree's connections by it
 * (docs/internals/sim.md); forced channels come in through @l.
 */
FT_API double ft_model_kernel_algbw(const struct ft_model_links *l, enum ft_op op, enum ft_algo a,
                                    enum ft_proto p, uint64_t bytes);

/*
 * How NCCL cuts one channel's traffic on a connection (kb NA-CONCEPTS,
 * ENV-BUFFSIZE): the connection buffer of the protocol has NCCL_STEPS (8)
 * slots; a chunk is CHUNKSTEPS slots of payload (what a channel moves per
 * ring step of one loop, at most), a slice SLICESTEPS slots (one network
 * message the proxy posts). Simple ring all-reduce, all-gather and
 * reduce-scatter: chunk 4 slots (2 MiB of NCCL_BUFFSIZE's default 4 MiB, 4 of
 * 8 MiB), slice 2 (1 MiB); otherwise one slot each (Simple 512 KiB, LL 32 KiB
 * of payload, LL128 562.5 KiB).
 */
struct ft_model_chunking {
	uint64_t chunk_bytes; /* payload per ring step and loop of one channel, at most */
	uint64_t slice_bytes; /* payload of one network message */
	uint32_t slots;       /* messages in flight per connection: NCCL_STEPS / slice steps */
};

/*
 * A connection's buffer per protocol and the NVLS chunk, bytes (NVIDIA/nccl src/init.cc
 * computeBuffSizes, src/transport/nvls.cc; kb ENV-BUFFSIZE): each protocol reads its own
 * variable (NCCL_LL_BUFFSIZE, NCCL_LL128_BUFFSIZE, NCCL_BUFFSIZE) and NCCL_BUFFSIZE
 * touches only Simple's; NCCL_NVLS_CHUNKSIZE is read from 2.21 on. A 0 is NCCL's default:
 * Simple 4 MiB, LL 512 KiB, LL128 4,915,200, NVLS chunk 128 KiB.
 */
struct ft_model_buffs {
	uint64_t simple, ll, ll128, nvls_chunk;
	/* NCCL_NVLSTREE_MAX_CHUNKSIZE (nccl.nvlstree_max_chunksize), the least a node sets;
	 * 0 where none does (NCCL's -2: its default by version, ft_model_nvls_chunk()). */
	uint64_t nvls_tree_max;
	/* the NCCL release (major x 10000 + minor x 100 + patch; 0: the newest's rules), for
	 * the Simple tree's depth rule before 2.20 (ft_model_chunking_sized()) */
	uint32_t nccl_version;
};

/* @spec's buffers as its jobs run with them: nodes.nccl.buffsize, ll_buffsize,
 * ll128_buffsize, nvls_chunksize, NCCL's defaults where a node leaves them, the smallest
 * where node groups differ (ft_model_buffsize() for Simple's). */
FT_API void ft_model_buffs_get(const struct ft_cluster_spec *spec, struct ft_model_buffs *out);

/* NCCL's chunking of (@op, @algo, @proto) into @out, with the buffers @buffs (NULL or a
 * 0 field: NCCL's default): a slot of the protocol's own buffer, LL half of it, LL128
 * 15/16 of it (src/enqueue.cc calcCollChunking). */
FT_API void ft_model_chunking_get(enum ft_op op, enum ft_algo algo, enum ft_proto proto,
                                  const struct ft_model_buffs *buffs,
                                  struct ft_model_chunking *out);

/*
 * NCCL_BUFFSIZE as @spec's jobs run with it, bytes (kb ENV-BUFFSIZE; NVIDIA/nccl
 * src/init.cc computeBuffSizes): the nodes' nccl.buffsize (aws-p5, aws-p5e: 8 MiB, as
 * aws-ofi-nccl sets it, docs/presets.md PS-EFA-P2P), NCCL's default 4 MiB
 * (FT_SPEC_NCCL_BUFFSIZE) where a node leaves it; the smallest where node groups differ.
 */
FT_API uint64_t ft_model_buffsize(const struct ft_cluster_spec *spec);

/*
 * The same for an operation of @bytes on @nchannels channels, @nranks ranks on
 * @nnodes nodes, where NCCL sizes the chunk by the operation
 * (src/enqueue.cc calcCollChunking): a tree all-reduce or a chain moves one
 * buffer slot per chunk and per message (Simple 512 KiB, LL 32 KiB of
 * payload, LL128 562.5 KiB) with 8 in flight per connection, and an LL128
 * tree halves its chunk while each channel would carry too few for the
 * tree's depth (down to 128 KiB, then 32 KiB); before 2.20 (@buffs nccl_version) a Simple
 * tree halves it the same way by its depth (down to 128 KiB, 64 KiB, then 32 KiB), the
 * model's own rule (its pipeline's chunk, one function for both).
 */
FT_API void ft_model_chunking_sized(enum ft_op op, enum ft_algo algo, enum ft_proto proto,
                                    const struct ft_model_buffs *buffs, uint64_t bytes,
                                    uint32_t nchannels, uint32_t nnodes, uint32_t nranks,
                                    struct ft_model_chunking *out);

/*
 * The payload a hop over NVLink is taken to pass on before the rest of its step has come,
 * where protocol @p flags its lines, the grain of the model's LL and LL128 ramps and of
 * the packet engine's chains: one 16-byte store by each of a channel's threads (LL128 640
 * threads of 15 data bytes, 9,600; LL 512 of 8, 4,096). For LL that is a round of its
 * threads (prims_ll.h LLGenericOp); for LL128 NCCL's round is 4 times it, 20 warps of 2 KiB
 * of wire (1,920 data bytes) each, every warp waiting for all its lines' flags
 * (NVIDIA/nccl src/device/prims_ll128.h GenericOp, WireWordPerSlice). 0 for Simple, whose
 * hops pass on whole steps.
 */
FT_API uint64_t ft_model_line_grain(enum ft_proto p);

/*
 * The channels NCCL runs NVLS and NVLS tree collectives on for a job of @l's GPUs and nodes
 * (comm->nvlsChannels, NVIDIA/nccl src/transport/nvls.cc ncclNvlsTuning; kb NA-ALGO-NVLS):
 * 16 on Hopper, and on Blackwell before NCCL 2.25 (@l nccl_version), which had no figure of
 * its own for it; on Blackwell 24 in one node (32 before 2.27) and 32 across nodes, from
 * 2.30 by the GPU's path to its NIC and the ranks a node: 32 on 2 nodes,
 * 24 on more behind 48 GB/s (PCIe Gen5) paths, 24 (8 ranks a node or fewer) or 32 behind
 * 96 GB/s. Every NVLS tree channel carries every head's share.
 */
FT_API uint32_t ft_model_nvls_nchannels(const struct ft_model_links *l);

/*
 * The chunk NCCL starts an NVLS or NVLS tree operation's chunking from, bytes, before its
 * size steps it down (src/enqueue.cc calcCollChunking): NCCL_NVLS_CHUNKSIZE (128 KiB), the
 * tree's at most 64 KiB from 4 nodes; from NCCL 2.30.3 on Blackwell across nodes what
 * ncclNvlsTreeSm100Tuning sets (src/transport/nvls.cc): 256 KiB with 4 ranks a node or
 * fewer on 2 nodes or 8 or fewer behind 96 GB/s NIC paths, a tree chunk of 64 or 128 KiB
 * by ranks a node and the GPU's path to its NIC. 0 for other algorithms.
 */
FT_API uint64_t ft_model_nvls_chunk(const struct ft_model_links *l, enum ft_algo a);

/*
 * The same for an NVLS tree all-reduce of @bytes on @l (src/enqueue.cc
 * calcCollChunking): NVLS_CHUNKSIZE (128 KiB; 64 KiB from 4 nodes on), cut
 * while the operation gives each of NCCL's NVLS channels x heads fewer than
 * 32, 16, 4 or 1 chunks; one chunk per message, 8 in flight per connection.
 * Returns the chunks each head's pipeline in a channel moves one after
 * another: ceil(bytes / (channels x heads x chunk)), at least 1 (the NVLS
 * tree kernel's loop over the channel's part, src/device/all_reduce.h).
 */
FT_API uint64_t ft_model_nvls_tree_chunking(const struct ft_model_links *l, uint64_t bytes,
                                            struct ft_model_chunking *out);

/*
 * The same for NVLS across nodes (NVLS with CollNet) all-reduce of @bytes on @l: the NVLS
 * chunk (ft_model_nvls_chunk(), 32 KiB where NCCL's NVLS price is under 150 GB/s), cut
 * while the operation gives each of the channels NVLS launches across nodes
 * (ft_model_run_nchannels()) x heads (one per NIC) fewer than 64, 8 or 2 chunks. Returns
 * ceil(bytes / (channels x heads x chunk)), at least 1: the loops of the kernel's
 * multi-node branch (NVIDIA/nccl src/device/all_reduce.h, RunWorkColl NVLS, loopSize =
 * nChannels x nHeads x chunkSize), each head's share of a loop going through the switch,
 * out to the network and back, and out of the switch.
 */
FT_API uint64_t ft_model_nvls_net_chunking(const struct ft_model_links *l, uint64_t bytes,
                                           struct ft_model_chunking *out);

/*
 * NCCL's pipeline of a CollNet all-reduce (NVIDIA/nccl src/enqueue.cc calcCollChunking;
 * kb NA-ALGO-COLLNET), Simple, on @l's channels: CollNetDirect halves a Simple slot while
 * each of its channels x heads (one per local rank) would get fewer than 128 or 16
 * chunks (down to 128 KiB, then 32 KiB); CollNetChain (@chain) starts from 256 KiB and
 * halves while a channel gets fewer than ppn x 64, x 8 or x 1 chunks, one chunk per loop.
 * Returns the chunks each pipeline moves one after another: ceil(bytes / (channels x
 * heads x chunk)), at least 1.
 */
FT_API uint64_t ft_model_collnet_chunking(const struct ft_model_links *l, uint64_t bytes,
                                          bool chain, struct ft_model_chunking *out);

/*
 * CollNetDirect's stages as its kernel runs them at @bytes on @l's ranks (model/pipeline.c
 * ft__model_collnet_stages(); NVIDIA/nccl src/device/all_reduce.h, CollNetDirect's warp
 * groups): the time a loop's NVLink stage (the scatter or the broadcast) takes alone, in
 * *@nv, and a loop's way through the network, in *@net, each in periods of NCCL's price
 * (a loop with every stage busy: the scatter and the broadcast side by side on NVLink).
 * Where NVLink binds *@nv is 0.5: a stage alone runs at twice the pace. Returns true, or
 * false with both 0 where CollNetDirect does not run on @l (forced or not) or has no
 * stage rates.
 */
FT_API bool ft_model_collnet_direct_stages(const struct ft_model_links *l, uint64_t bytes,
                                           double *nv, double *net);

/*
 * How NCCL cuts one send/recv (a send of an all-to-all, or a point-to-point
 * transfer) at its defaults (NVIDIA/nccl src/init.cc, src/enqueue.cc,
 * src/graph/paths.cc; kb ENV-BUFFSIZE, ENV-NCH_NET_PEER): the communicator's
 * p2p chunk is NCCL_P2P_NET_CHUNKSIZE (128 KiB) when it spans nodes,
 * NCCL_P2P_NVL_CHUNKSIZE (512 KiB) inside one NVLink node,
 * NCCL_P2P_PCI_CHUNKSIZE (128 KiB) inside one node of PCIe GPUs; a network send
 * shorter than one chunk uses a quarter of it, shorter than 8 chunks half.
 * Each connection keeps NCCL_STEPS (8) chunks in flight. A send is striped
 * over a few channels (each its own connection) and every channel runs up to
 * NCCL_MAX_DEV_WORK_P2P_PER_BATCH (8) sends at once, so a rank has
 * p2p channels / channels per send x 8 peers in progress.
 */
struct ft_model_p2p_chunking {
	enum ft_proto proto;     /* LL at most NCCL_P2P_LL_THRESHOLD (16 KiB) a channel, in a node */
	uint64_t chunk_bytes;    /* payload of one network message */
	uint32_t slots;          /* messages in flight per connection (NCCL_STEPS) */
	uint32_t channels;       /* channels (connections) the send is striped over */
	uint32_t peers_inflight; /* sends a rank keeps in progress at once */
	/* NCCL release whose p2p channel placement and work batches the send follows
	 * (ft_model_p2p_share_slots(); ft_model_query's encoding, 0: the newest) */
	uint32_t nccl_version;
};

/*
 * NCCL's p2p channels for a communicator of @nchannels collective channels
 * (NVIDIA/nccl src/graph/paths.cc ncclTopoComputeP2pChannels; kb
 * ENV-NCHANNELS): min(nChannels, NCCL_MAX_P2P_NCHANNELS = MAXCHANNELS = 64),
 * at least NCCL_MIN_P2P_NCHANNELS (1), rounded up to a power of two (p2p
 * peers are mapped to channels by bit tricks). The collective channel count
 * is the communicator's (ft_model_comm_nchannels(): 32 over GB200 NVL72
 * racks or in one, 24 on one DGX H100 or A100, 16 on DGX H100s joined by NICs;
 * elsewhere the model's one per NVLink, at most 32, or 2 over PCIe): 24 and 18
 * give 32, 16 gives 16, 12 gives 16, PCIe 2. ft_model_p2p_nchannels_of() is the
 * count the model takes for a communicator.
 */
FT_API uint32_t ft_model_p2p_nchannels(uint32_t nchannels);

/*
 * The channels NCCL's communicator runs on @l (comm->nChannels), what its p2p channels
 * come from: ft_model_run_nchannels() of the ring.
 */
FT_API uint32_t ft_model_comm_nchannels(const struct ft_model_links *l);

/*
 * The channels NCCL runs algorithm @a on for @l at release @l nccl_version
 * (model/channels.c; docs/internals/model.md, "Channels"): the ring and tree run the
 * communicator's channels, the graph's (graph_nchannels) doubled by ncclTopoPostset
 * within MAXCHANNELS (32 before 2.25, 64 from it), doubled again across nodes on
 * Hopper and later where a graph channel takes more than 45 GB/s and fewer than 16
 * are left, and on GPUDirect-TCPX (NCCL_NET_DEVICE_UNPACK) where fewer than 16 are
 * left; CollNet half as many more with several GPUs a node; NVLS and NVLSTree their
 * own (ft_model_nvls_nchannels()), NVLS across nodes at most the ring's from 2.28;
 * where NVLS runs, the ring and tree at least the NVLS channels from 2.22 to 2.27, forced
 * or not (ft_model_nvls_copy_nchannels(); the communicator's count from 2.20). Each ring or
 * tree channel carries the graph's bandwidth over this count. One DGX H100 12 x 30 ->
 * 24; DGX H100s joined by 8 x 400G 8 x 48 -> 16 (32 on 2.18-2.19); GB200 NVL72 across
 * racks: 15 x 48 -> 30 on
 * 2.25-2.26 (32 with NVLS), 16 x 45.1 -> 32 from 2.27; one rack 8 x 90 -> 16 x 45 -> 32.
 * Where graph_nchannels is 0, nchannels as it is (forced: with the copy above).
 */
FT_API uint32_t ft_model_run_nchannels(const struct ft_model_links *l, enum ft_algo a);

/*
 * Whether NCCL sets NVLS up for @l's communicator at release @l nccl_version (NVIDIA/nccl
 * src/transport/nvls.cc ncclNvlsInit): NVLink SHARP on the nodes, not NCCL_NVLS_ENABLE=0,
 * enough GPUs on every node, one node only with 2.20, not on GPUDirect-TCPX across nodes.
 * Where it does, v2.20.3-1 to v2.27.7-1 copy the communicator's channels up to the NVLS
 * channels (ft_model_nvls_nchannels()) after NCCL_MIN/MAX_NCHANNELS.
 */
FT_API bool ft_model_nvls_runs(const struct ft_model_links *l);

/*
 * NCCL releases (ft_model_query's encoding) of the copy up to the NVLS channels that
 * ncclTopoPostset() makes where NVLS runs (NVIDIA/nccl src/graph/connect.cc): from
 * v2.20.3-1 comm->nChannels takes the copies (the p2p channels come from it); from
 * v2.22.3-1 the ring and tree launch on them too (src/enqueue.cc topoGetAlgoInfo: nc =
 * comm->nChannels; at v2.20.3-1 and v2.21.5-1 on comm->collChannels, set before the
 * copy); v2.28.3-1 drops the copy.
 */
#define FT_NCCL_NVLS_COPY_COMM 22000u
#define FT_NCCL_NVLS_COPY_RUN 22200u
#define FT_NCCL_NVLS_COPY_END 22800u

/*
 * The channels of @nch (after NCCL_MIN/MAX_NCHANNELS) at release @version (0: the newest)
 * where NVLS runs on @nvls channels (0 where it does not): max(@nch, @nvls) from
 * FT_NCCL_NVLS_COPY_RUN (@run: what a ring or tree launches on) or FT_NCCL_NVLS_COPY_COMM
 * (the communicator's count) up to FT_NCCL_NVLS_COPY_END, else @nch. NCCL_MAX_NCHANNELS=4
 * on a DGX H100 at 2.25 launches 16 channels.
 */
FT_API uint32_t ft_model_nvls_copy_nchannels(uint32_t nch, uint32_t nvls, uint32_t version,
                                             bool run);

/*
 * The p2p channels of @l's communicator: ft_model_p2p_nchannels() of its channels
 * (ft_model_comm_nchannels()), except on NVSwitch nodes joined by NICs, where they stay
 * those of one channel per NVLink (model/channels.c says why). The model's all-to-all,
 * the flow and the packet engines take this count.
 */
FT_API uint32_t ft_model_p2p_nchannels_of(const struct ft_model_links *l);

/*
 * The same count before NCCL rounds it up to a power of two: min(nChannels, 64), at least
 * 1. NVIDIA/nccl v2.20.3-1 to v2.28.9-1 src/graph/paths.cc ncclTopoComputeP2pChannels()
 * asks ncclTopoGetNchannels() for each peer's channels, whose halving reads
 * comm->p2pnChannels, before its pow2Up(): 24 channels stay 24 there, 32 later.
 */
FT_API uint32_t ft_model_p2p_nchannels_raw_of(const struct ft_model_links *l);

/* The p2p channels of a node of 18 NVLinks (ft_model_p2p_nchannels(18)): what
 * ft_model_p2p_chunking_get() takes where no cluster is named. */
#define FT_MODEL_P2P_NCHANNELS 32

/*
 * What every send of a communicator shares, fixed by NCCL at init (src/init.cc
 * computeBuffSizes, src/graph/paths.cc): the Simple chunk (NCCL_P2P_NET_CHUNKSIZE
 * once the communicator spans nodes, doubled on ARM hosts with Blackwell GPUs; else
 * NCCL_P2P_NVL_CHUNKSIZE, or NCCL_P2P_PCI_CHUNKSIZE without NVLink), the part sizes a send is cut into and the channels per
 * peer. @nnodes counts NVLink domains: above 1 these are the network's for every
 * send, to an NVLink peer too.
 */
struct ft_model_p2p_comm {
	uint32_t nranks;
	uint32_t nnodes;
	double nic_GBps;        /* how fast a GPU reaches the network (0: 50) */
	uint32_t p2p_nchannels; /* ft_model_p2p_nchannels(); 0: FT_MODEL_P2P_NCHANNELS */
	bool net_chunk_x2;      /* ft_model_p2p_net_chunk_x2() */
	bool pci_chunk;         /* ft_model_p2p_pci_chunk() */
	uint32_t net_chunk;     /* ft_model_p2p_net_chunk_env(); 0: NCCL's default */
	/* ft_model_buffsize(); 0: 4 MiB. NCCL caps the p2p chunk at a slot of it
	 * (NCCL_BUFFSIZE / NCCL_STEPS). */
	uint64_t buffsize;
	/* NCCL release (ft_model_query's encoding, 0: the newest), copied into the
	 * chunking for ft_model_p2p_share_slots() */
	uint32_t nccl_version;
	/* The communicator's p2p channels before NCCL rounds them up to a power of two,
	 * min(nChannels, 64) (ft_model_p2p_nchannels_raw_of(); 0: p2p_nchannels): what the
	 * v2.20-v2.28 per-peer halving compares with. */
	uint32_t p2p_nchannels_raw;
	/* The NICs a GPU's network channels take and their bandwidth summed, GB/s, as NCCL
	 * counts them from v2.29 (ft_model_p2p_net_nics()); net_count 0: one NIC of
	 * nic_GBps. */
	uint32_t net_count;
	double net_GBps;
};

/*
 * NCCL's netCount and netBw for a GPU of @spec's nodes (v2.29.2-1 src/graph/topo.cc
 * getLocalNetCountByBw(), ncclTopoGetLocalNetCountByBw() in v2.30.7-1): the GPU's own NICs
 * (@l gpu_nics) taken one by one, each at its path's bandwidth from the GPU (the least of
 * the NIC's rate and the PCIe links on the way, at NCCL's width x speed / 80: Gen5 x16 48
 * GB/s), until they reach the GPU's bandwidth to its CPU (its PCIe link; through C2C, @l
 * nic_c2c, every NIC). NCCL gives a network peer max(netCount, ceil(netBw / 14)) p2p
 * channels from v2.29 (src/graph/paths.cc ncclTopoGetNchannels()). 2 x 200G NICs a GPU
 * on Gen5: 2 NICs, 50 GB/s; one 400G NIC: 1, 48; AWS p5's 4 x 100G EFA: 4, 50. The first
 * node group's nodes.
 */
FT_API void ft_model_p2p_net_nics(const struct ft_cluster_spec *spec,
                                  const struct ft_model_links *l, uint32_t *count,
                                  double *GBps);

/* Whether NCCL doubles NCCL_P2P_NET_CHUNKSIZE on @spec's nodes: ARM hosts
 * (node.host_arm: Grace) with Blackwell GPUs (NVLink 5; NCCL's minCompCap >= 100),
 * kb ENV-BUFFSIZE. */
FT_API bool ft_model_p2p_net_chunk_x2(const struct ft_cluster_spec *spec);

/* NCCL_P2P_NET_CHUNKSIZE as the network plugin of @spec's nodes sets it, bytes, or 0
 * where it leaves NCCL's default: aws-ofi-nccl sets 512 KiB (with NCCL_BUFFSIZE 8 MiB,
 * which keeps that chunk under NCCL's buffer / NCCL_STEPS cap) on every AWS p5 and
 * p5e instance (node presets aws-p5, aws-p5e; src/platform-aws.cpp at v1.16.3,
 * docs/presets.md PS-EFA-P2P). */
FT_API uint32_t ft_model_p2p_net_chunk_env(const struct ft_cluster_spec *spec);

/* Whether NCCL cuts the sends of a one-node communicator on @spec's nodes at
 * NCCL_P2P_PCI_CHUNKSIZE (128 KiB), not NCCL_P2P_NVL_CHUNKSIZE (512 KiB): some
 * node's GPUs are not all joined by NVLink (NCCL's isAllNvlink, false on any rank
 * makes it false for all; src/init.cc computeBuffSizes, src/graph/paths.cc
 * ncclTopoPathAllNVLink; kb ENV-BUFFSIZE). */
FT_API bool ft_model_p2p_pci_chunk(const struct ft_cluster_spec *spec);

/*
 * NCCL's cutting of a @bytes send of communicator @c on one connection (addP2pToPlan,
 * src/enqueue.cc): @net when the connection crosses the network (NCCL's net
 * transport), false for an NVLink (or PCIe) peer, in a multi-node all-to-all too.
 * The connection decides the protocol (a network connection has no LL buffers for
 * send/recv unless NCCL_ALLOC_P2P_NET_LL_BUFFERS=1) and the network's smaller
 * chunks for short sends; the communicator decides the rest.
 */
FT_API void ft_model_p2p_chunking_conn(const struct ft_model_p2p_comm *c, uint64_t bytes,
                                       bool net, struct ft_model_p2p_chunking *out);

/*
 * NCCL's window on one send cut as @ch whose round trip is @rtt_s (kb NA-CONCEPTS,
 * ENV-BUFFSIZE, ENV-NCH_NET_PEER): on each of its ch->channels channels the Simple
 * connection buffer holds ch->slots (NCCL_STEPS) chunks of ch->chunk_bytes, and the sender
 * reuses a slot only once the receiver has emptied it and said so (v2.27.7-1
 * src/transport/net.cc sendProxyProgress()/recvProxyProgress(); over NVLink the
 * receiver's head pointer, which the sender polls). So a send carries at most
 * channels x slots x chunk bytes of payload a round trip. Returns that rate, bytes/s;
 * 0 without a round trip or a chunk. The model's send/recv and both simulator engines
 * rest on it.
 */
FT_API double ft_model_p2p_window_Bps(const struct ft_model_p2p_chunking *ch, double rtt_s);

/*
 * The slots the send of p2p round @round keeps in flight when every rank of a communicator
 * of @nnodes nodes of @ppn ranks sends to all the others (an all-to-all), each send cut as
 * @ch, on @nch_all p2p channels (0: FT_MODEL_P2P_NCHANNELS). Round r is taken as the peer
 * r / ppn nodes and r % ppn ranks ahead, so the rounds r < ppn stay in the node. That is
 * src/init.cc's p2p schedule before v2.28.7. From v2.28.7 ncclP2pSchedule() walks schedule
 * groups of gcd(8, ppn) ranks in a quadratic order (ft_model_p2p_schedule()): the send to
 * peer @round is the p2p round that schedule gives rank 0 for it, its channel and batch
 * those of that round, and a batch's network ops those whose peer is on another node (3
 * nodes of 6: rank 0's rounds 4, 5 go to node 1, rounds 14, 15 stay in node 0). Rank 0
 * stands for every rank (another rank's groups start elsewhere in its node). NCCL puts
 * part k of round r's send on
 * a channel from the round's base and the part, and a channel's ops into work batches of at most 8 (src/enqueue.cc
 * addWorkBatchToPlan(); its 1024-byte budget holds 21), as the release ch->nccl_version
 * does (0: the newest): v2.18-v2.21 base node delta + local delta / 8, channel rev(base) +
 * k, a new batch at every 8th place of NCCL's walk; v2.22-v2.27 (ncclP2pChannelBaseForRound()
 * and ncclP2pChannelForPart()) base node delta x ceil(ppn / 8) + local delta / 8, channel
 * base + rev(k); v2.28.3 rev(base) + k; v2.28.7 and later the base over schedule groups of
 * gcd(8, ppn), rev(base) + k, one group of 8 rounds a batch. The network sends of a batch
 * share an opCount and run as the subs of one proxy op (src/proxy.cc ProxyAppend()), each
 * posting at most min(NCCL_STEPS, NCCL_SHARED_STEPS 16 / subs) chunks
 * (src/transport/net.cc sendProxyProgress()). The send's equal parts end with its slowest
 * channel: it keeps the fewest of its channels' slots. On 4 DGX H100 (8 ranks a node, 4
 * channels a send) every network send is one of 8 subs in every release: 2 slots; 18 nodes
 * of 1 rank on 32 channels at v2.27.7: rounds 1, 9, 17 share their channels (3 subs, 5
 * slots), the others 2 (8); from v2.28.7 all 8. A send inside the node, or @nnodes < 2,
 * keeps ch->slots. Sets ch->slots to that (never above what it was) and returns it (a
 * count, >= 0); ft_model_p2p_window_Bps() of @ch then is the send's window. It is rank 0's
 * entry of ft_model_p2p_share_slots_rank() (one walk of every round). Returns FT_ENOMEM,
 * ch->slots left as it was, where that walk's memory cannot be had.
 */
FT_API int ft_model_p2p_share_slots(struct ft_model_p2p_chunking *ch, uint32_t nch_all,
                                    uint32_t nnodes, uint32_t ppn, uint32_t round) FT_MUST_CHECK;

/*
 * The peer rank @rank sends to in each p2p round of NCCL's schedule at release
 * @nccl_version (ft_model_query's encoding, 0: the newest), for @nnodes nodes of @ppn ranks
 * numbered node by node, into @peer (nnodes x ppn entries); returns how many it wrote (0
 * on bad arguments). Before v2.28.7 (and on one node) round r goes r / ppn nodes and
 * r % ppn ranks ahead. From v2.28.7-1 (src/init.cc ncclP2pSchedule()) the ranks form
 * schedule groups of gs = NCCL_P2P_SCHEDULE_GROUP_SIZE (8), cut to gcd(8, ppn) where ppn
 * is not a multiple of 8, numbered over the nodes in turn; the group deltas follow the
 * quadratic walk d += step (mod the groups rounded up to a power of two, those past the
 * groups skipped), and inside a delta the gs rounds go to local + 0 .. gs - 1 of the
 * group d ahead. The send to rank 0's peer @round of ft_model_p2p_share_slots() is the
 * round whose entry is that peer. On one node this gives the linear order at every release,
 * where NCCL v2.28.7-1 walks the groups there too (the one-node guard arrives in v2.28.9-1);
 * no caller reads it: ft_model_p2p_share_slots() ends early on one node.
 */
FT_API uint32_t ft_model_p2p_schedule(uint32_t nnodes, uint32_t ppn, uint32_t rank,
                                      uint32_t nccl_version, uint32_t *peer);

/*
 * How many views of the all-to-all's slots the ranks of a node have at release
 * @nccl_version (0: the newest) on @nnodes nodes of @ppn ranks: 1 where every rank's send
 * to the peer d ranks ahead (node-major) keeps what rank 0's does, else @ppn (one a local
 * rank). Before v2.28.7 every rank's round r goes r / ppn nodes and r % ppn ranks ahead and
 * a round's channels follow from r alone: 1. From v2.28.7 (src/init.cc ncclP2pSchedule())
 * the channels still follow the round, but which rounds leave the node depends on the
 * rank's schedule group within its node where a node holds more than one group of
 * gs = gcd(8, ppn) (ppn 3, 5, 6, 7, 12, 16, 72...): then @ppn.
 */
FT_API uint32_t ft_model_p2p_sched_views(uint32_t nnodes, uint32_t ppn, uint32_t nccl_version);

/*
 * The slots of each of rank @rank's sends in that all-to-all (cut as @ch, on @nch_all p2p
 * channels, 0: FT_MODEL_P2P_NCHANNELS), into @slots[d] for the peer d ranks ahead
 * node-major (d / ppn nodes, d % ppn local ranks; nnodes x ppn entries, at most 255), in
 * one walk of the rank's ops in NCCL's order at that release: each round's peer from
 * rank @rank's own schedule (ft_model_p2p_schedule(); before v2.28.7 round r's peer is
 * r ahead for every rank, so every rank's row is rank 0's), its parts' channels and
 * batches as ft_model_p2p_share_slots() tells, a batch's network ops those whose peer is
 * off @rank's node. For rank 0 it equals ft_model_p2p_share_slots() at every d.
 * Returns 0, FT_EINVAL for @rank out of range or no nodes, FT_ENOMEM.
 */
FT_API int ft_model_p2p_share_slots_rank(const struct ft_model_p2p_chunking *ch, uint32_t nch_all,
                                         uint32_t nnodes, uint32_t ppn, uint32_t rank,
                                         uint8_t *slots);

/* NCCL's cutting of a @bytes send in a communicator of @nranks ranks on @nnodes nodes
 * whose GPUs reach the network at @nic_GBps (GB/s, 0: 50), with @p2p_nchannels p2p
 * channels (ft_model_p2p_nchannels(); 0: FT_MODEL_P2P_NCHANNELS) into @out: the send
 * crosses the network when @nnodes > 1 (ft_model_p2p_chunking_conn() for a send
 * between NVLink peers of a multi-node communicator), x86 hosts. */
FT_API void ft_model_p2p_chunking_on(uint64_t bytes, uint32_t nranks, uint32_t nnodes,
                                     double nic_GBps, uint32_t p2p_nchannels,
                                     struct ft_model_p2p_chunking *out);
/* The same with FT_MODEL_P2P_NCHANNELS p2p channels. */
FT_API void ft_model_p2p_chunking_get(uint64_t bytes, uint32_t nranks, uint32_t nnodes,
                                      double nic_GBps, struct ft_model_p2p_chunking *out);

struct ft_model_result {
	enum ft_op op;
	enum ft_algo algo; /* the winner, or the forced one */
	enum ft_proto proto;
	/* The algorithm as printed: ft_algo_name(), or for CollNet the variant NCCL runs,
	 * "collnet_direct" or "collnet_chain" (ft_model_algo_label). */
	char algo_label[24];
	uint32_t nranks, nnodes, ppn, nchannels;
	uint32_t ppn_min, ppn_max; /* ft_model_links: they differ on nodes of unequal GPUs */
	uint64_t bytes;
	double time_s;    /* max(lat_s + bytes / bw_Bps + ramp, proxy, launch): see pipe */
	double lat_s;     /* latency term */
	double bw_Bps;    /* algorithm bandwidth of the bandwidth term, bytes/s */
	double algbw_Bps; /* bytes / time_s (nccl-tests algbw) */
	double busbw_Bps; /* algbw × bus factor (nccl-tests busbw) */
	/* What limits it: "nvlink", "pcie", "cpu_link", "nic", "tier1", "global" (hardware),
	 * "channels" (NCCL's per-channel cap), "protocol" (LL's absolute cap), or "latency"
	 * when the latency term is larger than the bandwidth term. */
	char bottleneck[16];
	bool calibrated; /* the spec's calibration: block was applied */
	struct ft_model_pipeline pipe; /* the pipeline terms inside time_s (uncalibrated) */
	/* The uncalibrated time in two parts that add up to it, the terms a calibration
	 * scales (docs/internals/model.md, "Calibration from measured runs"): what moves
	 * bytes (bytes / bandwidth at the channels launched), and the rest, paid once an
	 * operation (the latency term, the pipeline's ramp, and what a proxy or launch
	 * floor adds over the GPU's time). Without calibration time_s = lat_part_s +
	 * bw_part_s; with it, time_s = fixed + latency_scale x lat_part_s +
	 * bandwidth_scale x bw_part_s. */
	double lat_part_s, bw_part_s;
	/* An all-to-all or a send/recv on a node whose topology graph did not build: why (links
	 * shared_error), the time priced on one GPU's share of each link; else empty. */
	char shared_error[FT_MODEL_SHARED_ERROR_LEN];
};

/* Why @r's in-node shared links are not priced (@r shared_error set: its node's topology
 * graph did not build or route), in words, into @buf. */
FT_API void ft_model_shared_note_text(const struct ft_model_result *r, char *buf, size_t len);

/* Where @spec's fabric routes by OpenSM's minhop tables on 3 tiers, which the model prices at
 * the leaf up-links only (model/spine.c), not at the core links minhop's spines can crowd
 * (topo/route.c; kb IB-SM): true with the note in words in @buf; else false. */
FT_API bool ft_model_routing_note_text(const struct ft_cluster_spec *spec, char *buf, size_t len);

/* @a as the model prints it: ft_algo_name(@a), or "collnet_" @variant for CollNet's
 * "direct" or "chain" (NCCL's CollNetDirect, CollNetChain); into @buf. */
FT_API const char *ft_model_algo_label(enum ft_algo a, const char *variant, char *buf,
                                       size_t len);

/*
 * Evaluate one collective. FT_EINVAL for a bad query, FT_ENOTSUP when a
 * forced algorithm or protocol does not exist for the op or the cluster
 * (NVLS without NVLink SHARP, CollNet without SHARP), each with a message.
 */
FT_API int ft_model_eval(const struct ft_cluster_spec *spec, const struct ft_model_query *q,
                         struct ft_model_result *out, struct ft_error *err) FT_MUST_CHECK;

/*
 * Evaluate @q at sizes @min_bytes, × @factor, ... up to @max_bytes (as
 * nccl-tests -b/-e/-f; factor >= 2) and append one row per size to @run
 * (initialized by the caller, source FT_SOURCE_MODEL). Rows carry bytes,
 * count and dtype "float" (4-byte elements; for all_gather, reduce_scatter
 * and alltoall the count per rank as nccl-tests prints it), redop "sum",
 * time_us, algbw/busbw in GB/s (1e9), algo, proto and bottleneck.
 */
FT_API int ft_model_sweep(const struct ft_cluster_spec *spec, const struct ft_model_query *q,
                          uint64_t min_bytes, uint64_t max_bytes, uint64_t factor,
                          struct ft_run *run, struct ft_error *err) FT_MUST_CHECK;

/* One (algorithm, protocol) the tuner weighed: its cost, or why it was not available. */
struct ft_model_candidate {
	enum ft_algo algo;
	enum ft_proto proto;
	char algo_label[24]; /* as ft_model_result's; ft_algo_name() when not available */
	bool available;
	char why[96];     /* when not available */
	double time_s;    /* lat_s x lat_factor + bytes / (bw_Bps x bw_factor) */
	double lat_s;     /* latency term before the size-dependent factor */
	double bw_Bps;    /* algorithm bandwidth before the size-dependent factor */
	double base_s;    /* NCCL's base latency of the algorithm and protocol (part of lat_s) */
	double lat_factor; /* ring/Simple plateau multiplier (1 when none, kb NA-MODEL) */
	double bw_factor;  /* tree correction factor (1 when none, kb NA-MODEL) */
	char bottleneck[16];
};

#define FT_MODEL_MAX_CANDIDATES (FT_ALGO_COUNT * FT_PROTO_COUNT)

/* Why a collective takes the time it does (ft_model_explain). */
struct ft_model_explain {
	struct ft_model_links links;   /* the link classes of the placement */
	struct ft_model_result result; /* the pick, as ft_model_eval() */
	size_t pick;                   /* index of the pick in cand[] */
	/* The pick's algorithm bandwidth once timed by the bytes its tree really
	 * carries over 2 or 3 nodes (the tuner charges 2S per node), or PAT's kernel
	 * (n - 1) / n of S a rank (the tuner charges S); 0 if unchanged. */
	double carried_Bps;
	/* A send/recv between nodes: the algorithm bandwidth NCCL's window allows
	 * (ft_model_p2p_window_Bps(), the round trip twice links.fabric_lat_s) where the time
	 * takes it, below the links; 0 where it does not bind. */
	double p2p_window_Bps;
	/* The latency the tuner's estimate of the pick holds for a flush NCCL does not do
	 * here (links net_flush false, Simple across nodes), seconds: the time leaves it
	 * out; 0 where none. */
	double unflushed_s;
	/* The latency the time adds to the tuner's estimate for the rendezvous (links
	 * rdv_s: once for a send/recv or an all-to-all between nodes), seconds; 0 where none
	 * and with --tuner-only. */
	double rdv_s;
	/* The pick's algorithm bandwidth once the per-channel caps NCCL's tuner reads on its
	 * search graph's channels (graph_nchannels) are read on the channels the kernel runs
	 * (ft_model_run_nchannels()), before the tree's carried bytes; 0 if unchanged. */
	double run_channels_Bps;
	/* The pick is aws-ofi-nccl's tuner plugin's (--tuner-plugin), not the cheapest. */
	bool plugin_pick;
	/* NVLS across nodes picked (NVLS with CollNet): NCCL's NVLS graph its tuner prices it
	 * from, channels 0 otherwise. efficiency is the nvlsEfficiency the release applies
	 * (2.28 on), 0 where it takes 5/6 of nChannels x min(bwIntra, bwInter) (2.19 to 2.27). */
	struct {
		uint32_t nchannels;
		double bw_intra_Bps, bw_inter_Bps, efficiency;
	} nvls_net;
	size_t ncandidates;
	struct ft_model_candidate cand[FT_MODEL_MAX_CANDIDATES];
};

/*
 * ft_model_eval() with its working: the link classes, every (algorithm,
 * protocol) the tuner weighed with its latency and bandwidth terms, or why
 * it was left out. Same errors as ft_model_eval().
 */
FT_API int ft_model_explain(const struct ft_cluster_spec *spec, const struct ft_model_query *q,
                            struct ft_model_explain *out, struct ft_error *err) FT_MUST_CHECK;

/* Fill @row from @r (test, bytes, count, times, bandwidths, names). */
FT_API void ft_model_result_to_row(const struct ft_model_result *r, struct ft_result_row *row);

/* ---- calibration from measured runs ------------------------------------------------------ */

/* One measured size of a calibrated curve. */
struct ft_model_calib_point {
	uint64_t bytes;
	double time_s;    /* measured (nccl-tests out-of-place time) */
	double model_s;   /* the model before calibration */
	double lat_s;     /* the model's latency part (ft_model_result.lat_part_s) */
	double bw_s;      /* the model's bandwidth part (ft_model_result.bw_part_s) */
	double fit_s;     /* fixed + lat_scale x lat_s + bw_scale x bw_s */
	double loo_s;     /* predicted with this point left out of the fit */
	double loo_err;   /* |loo_s / time_s - 1| */
	/* Its time carries a one-off cost: the next size took too little more (see
	 * ft_model_calibrate()). Left out of the fit and of the residual table; its
	 * leave-one-out error is still counted. */
	bool one_off;
};

/*
 * A curve's calibration: time(S) = fixed_s + lat_scale x latency(S) +
 * bw_scale x bandwidth(S), with the two parts of the model's own time at each
 * size (ft_model_result.lat_part_s, bw_part_s: its algorithm and protocol
 * choice, pipeline and floors included, so 0, 1, 1 is the model itself),
 * fitted by least squares on the relative error and never worse than the
 * model on it; the constants are those the block prints, so a spec that
 * includes the block gives fit_s at each measured size. Then, as NCCL corrects
 * its tree bandwidth by a table over log2(size), a residual factor per measured
 * size, interpolated in log(size) between them (the nearest one beyond the ends).
 */
struct ft_model_calib {
	enum ft_op op;
	uint32_t nranks;
	double fixed_s;   /* per-operation cost the model lacks (launch, host, VM, proxy) */
	double lat_scale; /* multiplies the model's latency term */
	double bw_scale;  /* multiplies the bandwidth term (1/bw_scale: achieved bandwidth share) */
	size_t npoints;
	size_t n_one_off; /* points left out of the fit as one-off costs */
	struct ft_model_calib_point *pts; /* ascending sizes; owned */
	double model_median_err; /* |model / measured - 1|, median over the points */
	double fit_median_err;   /* the same for the three-constant fit */
	double loo_median_err;   /* leave-one-out, median */
	double loo_max_err;
};

/*
 * Fit @q's collective (op, ranks, placement; its size is ignored) on @spec to
 * the rows of @measured whose test is @q's op and rank count is @q's (all
 * ranks when q->ngpus is 0; rows with a size of 0 or no time are skipped).
 * At least 4 sizes are needed. A size whose time the next measured size
 * outgrows by less than half the curve's own bytes-per-second between sizes
 * (where the model's time is mostly its bandwidth part on both), the pairs
 * beside it in line, carries a one-off cost no rate explains, and is left out
 * of the fit (its one_off).
 * FT_EINVAL naming what is missing, and the rank counts the rows have when
 * none are on q->ngpus; @out is released with ft_model_calib_release().
 */
FT_API int ft_model_calibrate(const struct ft_cluster_spec *spec, const struct ft_model_query *q,
                              const struct ft_run *measured, struct ft_model_calib *out,
                              struct ft_error *err) FT_MUST_CHECK;
FT_API void ft_model_calib_release(struct ft_model_calib *c);

/* The calibrated time of @q (its size) on @spec; FT_E* as ft_model_eval(). */
FT_API int ft_model_calib_predict(const struct ft_model_calib *c,
                                  const struct ft_cluster_spec *spec,
                                  const struct ft_model_query *q, double *time_s,
                                  struct ft_error *err) FT_MUST_CHECK;

/* ---- the model's results in words ----------------------------------------------------------- */

/*
 * A sweep of ft_model_sweep() (@run, its rows) whose largest size @first
 * ft_model_eval() returned, on @spec: the nccl-tests-shaped table with the
 * cluster's header (time, algbw, busbw, algorithm, protocol, bottleneck per
 * size), or one JSON object (spec, op, ranks, nodes, channels, rows) and a
 * newline, appended to @sb.
 */
FT_API void ft_model_sweep_write_text(const struct ft_cluster_spec *spec,
                                      const struct ft_model_result *first,
                                      const struct ft_run *run, struct ft_strbuf *sb);
FT_API void ft_model_sweep_write_json(const struct ft_cluster_spec *spec,
                                      const struct ft_model_result *first,
                                      const struct ft_run *run, struct ft_strbuf *sb);
/*
 * `fabtune model`'s table: @q swept from @min_bytes to @max_bytes
 * (ft_model_sweep(), rows into @run, initialised by the caller) and written
 * with the largest size's pick as its header, in JSON when @json, into @sb.
 * @largest, where not NULL, gets that size's result, whose shared_error says
 * where the node's shared links went unpriced (the same at every size), even
 * when a later size fails; zeroed where its own query failed. The model's
 * errors (FT_ENOTSUP for a combination it does not cover).
 */
FT_API int ft_model_sweep_report(const struct ft_cluster_spec *spec,
                                 const struct ft_model_query *q, uint64_t min_bytes,
                                 uint64_t max_bytes, uint64_t factor, bool json,
                                 struct ft_run *run, struct ft_strbuf *sb,
                                 struct ft_model_result *largest,
                                 struct ft_error *err) FT_MUST_CHECK;
/*
 * The working of ft_model_explain() on @spec: the link classes, the pick's
 * latency and bandwidth terms, what binds it and its pipeline terms, then
 * every (algorithm, protocol) weighed or why it was left out; as comment
 * lines, or as one JSON object and a newline, appended to @sb.
 */
FT_API void ft_model_explain_write_text(const struct ft_cluster_spec *spec,
                                        const struct ft_model_explain *ex, struct ft_strbuf *sb);
FT_API void ft_model_explain_write_json(const struct ft_cluster_spec *spec,
                                        const struct ft_model_explain *ex, struct ft_strbuf *sb);
/*
 * A calibration @c fitted to the measured @file: the fit, its median errors
 * and one line per size (measured, model, fit, leave-one-out) appended to
 * @sb; or the same as one JSON object into @j, an array's element or a
 * member's value. ft_model_calib_write_block() appends @c's entry of a
 * spec's `calibration:` block ("  - {op: ..., ranks: ...}" and a newline).
 */
FT_API void ft_model_calib_write_text(const char *file, const struct ft_model_calib *c,
                                      struct ft_strbuf *sb);
FT_API void ft_model_calib_write_json(const char *file, const struct ft_model_calib *c,
                                      struct ft_json *j);
FT_API void ft_model_calib_write_block(const struct ft_model_calib *c, struct ft_strbuf *sb);

/* ---- data-parallel training job ------------------------------------------------------------ */

struct ft_train_job {
	uint32_t ngpus;       /* 0 = all GPUs of the spec */
	double flops_per_gpu; /* FLOPs each GPU computes per iteration (forward + backward) */
	double mfu;           /* model FLOPs utilization, 0 < mfu <= 1 (e.g. 0.4) */
	uint64_t grad_bytes;  /* gradient bytes all-reduced per iteration */
	double overlap;       /* share of the compute time that hides communication, 0..1 */
};

struct ft_train_result {
	double compute_s;      /* flops_per_gpu / (gpu_tflops × 1e12 × mfu) */
	double comm_s;         /* gradient all-reduce time */
	double exposed_comm_s; /* max(0, comm_s - overlap × compute_s) */
	double iter_s;         /* compute_s + exposed_comm_s */
	double scale_eff;      /* compute_s / iter_s: 1 = communication fully hidden */
	struct ft_model_result allreduce;
};

/* Iteration time of a data-parallel job. FT_EINVAL naming the bad field. */
FT_API int ft_model_train_dp(const struct ft_cluster_spec *spec, const struct ft_train_job *job,
                             struct ft_train_result *out, struct ft_error *err) FT_MUST_CHECK;

#ifdef __cplusplus
}
#endif
#endif

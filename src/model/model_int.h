/* SPDX-License-Identifier: MIT */
/*
 * model/model_int.h - what the files of the model module share: NCCL's
 * tuner constants and the per-(algorithm, protocol) cost function.
 */
#ifndef FT_MODEL_INT_H
#define FT_MODEL_INT_H

#include "internal.h"

#include <fabtune/model.h>

/* Effective NVLink bandwidth per link that NCCL's topology uses, bytes/s (kb NA-MODEL). */
/* The hops between nodes of @l's longest ring broadcast or reduce chain of @op on the
 * first @nch channels launched (tuner.c). */
uint32_t ft__model_chain_net_hops(const struct ft_model_links *l, enum ft_op op, uint32_t nch);
/* Channels NCCL launches for @bytes of algorithm @a in protocol @p (pipeline.c). */
uint32_t ft__model_launched_channels(const struct ft_model_links *l, enum ft_algo a,
                                     enum ft_proto p, uint64_t bytes);
double ft__model_nvlink_link_Bps(enum ft_model_arch arch);
/* The same in NCCL release @version (NCCL_VERSION: major x 10000 + minor x 100 + patch;
 * 0: the newest). */
double ft__model_nvlink_link_Bps_at(enum ft_model_arch arch, uint32_t version);
/* The ring graph bandwidth NCCL release @version's search finds on NVLink of @total bytes/s a
 * GPU (links.c; @version 0: the newest). */
double ft__model_ring_graph_Bps(enum ft_model_arch arch, uint32_t version, double total);
/* An NVLS channel's bandwidth in one node of @heads heads on NVLink of @links bytes/s a GPU:
 * the fastest of release @version's Intra list that fits heads + 1 times in the links
 * (links.c). */
double ft__model_nvls_channel_Bps(enum ft_model_arch arch, uint32_t version, double links,
                                  double heads);
/* The NVLS graph NCCL 2.19-2.27 finds across nodes on @heads GPUs with NICs of @nic_Bps, on
 * NVLink of @links bytes/s a GPU: its channels, and its bwIntra and bwInter, bytes/s
 * (links.c). */
double ft__model_nvls_net_graph(enum ft_model_arch arch, uint32_t version, double links,
                                double heads, double nic_Bps, double *bw_intra,
                                double *bw_inter);
/* NCCL's NVLS all-reduce bandwidth across nodes as its tuner stores it, bytes/s; 0 where
 * NVLS does not run across nodes (tuner.c). */
double ft__model_nvls_net_algbw(const struct ft_model_links *l);
/* The NVLS graph across nodes NCCL's tuner prices NVLS with CollNet from: its channels
 * (0: none), @bw_intra and @bw_inter bytes/s, and the nvlsEfficiency @l's release applies
 * (0 before 2.28) into @eff (tuner.c). */
uint32_t ft__model_nvls_net_terms(const struct ft_model_links *l, double *bw_intra,
                                  double *bw_inter, double *eff);
/* NCCL's tree graph across 2 nodes as its tuner reads it, nChannels x bwIntra, bytes/s, and
 * its channels (@nchannels): the network ring graph on @nics NICs of @nic_Bps and NVLink of
 * @links a GPU, bwIntra raised (links.c); 0 where there is none. */
double ft__model_tree_net_graph_Bps(enum ft_model_arch arch, uint32_t version, double links,
                                    double ppn, uint32_t nics, double nic_Bps,
                                    uint32_t *nchannels);
/* MAXCHANNELS of NCCL release @version (0: the newest): 32 before 2.25, 64 from it
 * (channels.c). */
uint32_t ft__model_max_channels(uint32_t version);
/* NCCL's ring graph on NVLink alone, after ncclTopoDupChannels: its channels, and a
 * channel's bwIntra in @speed_GBps (links.c); 0 where none fits. */
uint32_t ft__model_intra_graph(enum ft_model_arch arch, uint32_t version, double total,
                               double *speed_GBps);
/* NCCL's ring graph of one GPU a node on @nics NICs of @nic_Bps, after
 * ncclTopoDupChannels: its channels, and a channel's speed in @speed_GBps (links.c). */
uint32_t ft__model_net_graph(enum ft_model_arch arch, uint32_t version, double nic_Bps,
                             uint32_t nics, double *speed_GBps);
/* @l's graph of release @version for one GPU a node (ft__model_net_graph()), and for one
 * NVLink domain of several trays (ft__model_intra_graph()); links.c. */
void ft__model_net_channels(struct ft_model_links *l, uint32_t version);
/* Nodes whose NICs of one rail share a leaf switch, and the leaf's up ports in
 * @up_ports (links.c). */
uint32_t ft__model_nodes_per_leaf(const struct ft_cluster_spec *s, uint32_t *up_ports);
/* The spine's share of a direct all-to-all's and a send/recv's NIC rate where sends cross
 * rails from their own NIC, in @f (links a2a_spine_factor, sr_spine_factor; spine.c): 0, or
 * FT_ENOMEM where the ECMP count runs out of memory (@f then 1, not to be used). */
int ft__model_spine_factor(const struct ft_cluster_spec *spec, const struct ft_model_links *l,
                           double *f) FT_MUST_CHECK;
int ft__model_sr_spine_factor(const struct ft_cluster_spec *spec, const struct ft_model_links *l,
                              double *f) FT_MUST_CHECK;
/* ft_model_links_get() at release @version (0: the newest) whatever @spec's: the model's
 * query takes its own release, else the spec's. @spine: count the leaves' up-links to the
 * spine (a2a_spine_factor, sr_spine_factor; else 1) and the in-node links the sends share
 * (a2a_shared and after, kept in @cache where not NULL), which only an all-to-all's and a
 * send/recv's time read. */
int ft__model_links_get_at(const struct ft_cluster_spec *spec, uint32_t ngpus, uint32_t nnodes,
                           uint32_t ppn, uint32_t version, bool spine, struct ft_model_links *l,
                           struct ft_model_cache *cache, struct ft_error *err);
void ft__model_rack_channels(struct ft_model_links *l, uint32_t version);
/* NCCL's ring graph in an NVLink domain with NICs to other domains: its channels, and a
 * channel's speed in @speed_Bps (links.c); 0 where there is none. */
uint32_t ft__model_domain_net_graph(enum ft_model_arch arch, uint32_t version, double links,
                                    double ppn, uint32_t nics, double nic_Bps,
                                    double *speed_Bps);
/* @l across NVLink domains: the channels and graph rate of release @version's ring graph
 * there (0: the newest); nothing elsewhere (links.c). */
void ft__model_domain_channels(struct ft_model_links *l, uint32_t version);
/* @l on one NVSwitch node: the channels and a channel's bwIntra of release @version's
 * ring graph (0: the newest); nothing elsewhere (links.c). */
void ft__model_node_channels(struct ft_model_links *l, uint32_t version);
/* A node's NICs as NCCL's search sees them: their count into @nics, one's speed (links.c). */
double ft__model_nic_as_nccl_sees(const struct ft_model_links *l, uint32_t *nics);
/* The least nonzero of @spec's node's and node groups' @off field (a uint64_t of struct
 * ft_node_spec, its offsetof()), 0 where all leave it (pipeline.c). */
uint64_t ft__model_least_set(const struct ft_cluster_spec *spec, size_t off);
/* The fewest GPUs on a node NCCL release @version (0: the newest) sets NVLS up with: 3
 * from 2.18 to 2.28.3, 2 before and after (channels.c). */
uint32_t ft__model_nvls_min_gpus(uint32_t version);
/* Whether every node of @l has the GPUs its release sets NVLS up with (channels.c). */
bool ft__model_nvls_gpus_ok(const struct ft_model_links *l);
/* Whether NCCL 2.20 turns NVLS off on @l: a communicator of more than one node, or across
 * an NVLink domain's trays (NVIDIA/nccl v2.20.3-1, v2.20.5-1 src/transport/nvls.cc,
 * ncclNvlsInit(): comm->nNodes > 1 || comm->MNNVL; not before, not from v2.21.5-1). */
bool ft__model_nvls_nodes_off(const struct ft_model_links *l);
/* kb NA-ALGO-NVLS nvlsEfficiency of @arch (0 before Hopper). */
double ft__model_nvls_eff(enum ft_model_arch arch);
/*
 * NCCL_MAX_NVLS_ARITY (NVIDIA/nccl src/include/device.h): an NVLS graph has at
 * most 32 channels, each headed by its own GPU (src/graph/search.cc: maxChannels
 * = min(32, GPUs)), so an NVLink domain of more GPUs (GB200 NVL72, whose trays'
 * topologies NCCL fuses into one node, src/graph/topo.cc) runs NVLS on 32 heads.
 */
#define FT__MODEL_NVLS_MAX_HEADS 32u

/* Latency and bandwidth of one (op, algo, proto) on @l; false when NCCL would not use it. */
struct ft__model_cost {
	double lat_s;
	double bw_Bps; /* algorithm bandwidth, before the size-dependent tree correction */
	/* NVLSTree: the algorithm bandwidth its NVLS stages and its network hops would each
	 * allow alone (the pipeline's ramp crosses both); CollNetDirect: its scatter's or its
	 * broadcast's NVLink alone and its network stage alone, bytes of S a second; 0
	 * elsewhere. */
	double stage_intra_Bps, stage_inter_Bps;
	/* A tree on 2 nodes: the algorithm bandwidth its links give at NCCL's x0.5, where
	 * bw_Bps is NCCL's own figure from its tree graph (the time of a picked tree starts
	 * from this one, ft__model_carried()); 0 elsewhere. */
	double links_bw_Bps;
	/* LL's absolute cap over the bandwidth the channels would carry without it, when it
	 * binds (< 1); 0 when it does not. */
	double cap_ratio;
	char bottleneck[16];
	/* CollNet: "direct" (CollNetDirect) or "chain" (CollNetChain), the one NCCL's tuner
	 * runs; "" elsewhere. */
	char variant[8];
};

/* NCCL's cutting of a @bytes send among @l's ranks (its whole communicator), over the
 * network or not (@net: per connection, ft_model_p2p_chunking_conn()). */
void ft__model_p2p_chunking(const struct ft_model_links *l, uint64_t bytes, bool net,
                            struct ft_model_p2p_chunking *out);
/* Why (op, algo, proto) is unavailable on @l, or NULL when it is available. */
const char *ft__model_unavailable(const struct ft_model_links *l, enum ft_op op, enum ft_algo a,
                                  enum ft_proto p, bool algo_forced, bool proto_forced);
/* The cost of (op, a, p) on @l; @bytes matters to the all-to-all only (how its sends
 * are posted, ft_model_p2p_chunking_on()). */
void ft__model_cost(const struct ft_model_links *l, enum ft_op op, enum ft_algo a, enum ft_proto p,
                    uint64_t bytes, struct ft__model_cost *out);
/* The picked (NVLS) tree's bandwidth from the bytes it carries on 2 or 3 nodes, not the
 * tuner's 2S per node, and PAT's from its kernel's (n - 1) / n of S a rank, not the tuner's
 * S (ft_model_pat_carried_factor()); ft__model_cost keeps the tuner's for the choice. */
void ft__model_carried(const struct ft_model_links *l, enum ft_op op, enum ft_algo a,
                       struct ft__model_cost *c);
/* Size-dependent corrections (tree correction table, ring plateau), then the time. */
double ft__model_time(const struct ft_model_links *l, enum ft_op op, enum ft_algo a,
                      enum ft_proto p, const struct ft__model_cost *c, uint64_t bytes);
/* @l's busiest in-node links under the all-to-all's and the send/recv's sends (links
 * a2a_shared, a2a_node_shared, a2a_net_shared, sr_shared) on one node of @spec's kind, from
 * its topology graph (share.c), from @cache's entry where it has one for the node and the
 * job (NULL: none): 0, or FT_ENOMEM. A node the topology cannot lay out or route leaves
 * them zero and its error in links shared_error. */
int ft__model_shared_links(const struct ft_cluster_spec *spec, struct ft_model_links *l,
                           struct ft_model_cache *cache, struct ft_error *err) FT_MUST_CHECK;
/* The shared links (links a2a_shared and after) that set a part of @op by @a on @l, slower
 * than the model's own term for it (cost_alltoall(), cost_sendrecv()), into @out: the
 * hierarchical all-to-all's phase in the node and its phase between nodes, else one; their
 * count (tuner.c). */
uint32_t ft__model_shared_binding(const struct ft_model_links *l, enum ft_op op, enum ft_algo a,
                                  const struct ft_model_shared_link *out[2]);
/* An all-to-all's network term (cost_alltoall()): seconds per byte of S (what each rank sends
 * in all) that the node's rails, at the fabric's all-to-all share, take to carry the
 * ppn (n - ppn) / n of S a node sends across nodes, before the protocol's efficiency; 0 on
 * one node. */
double ft__model_a2a_net_s(const struct ft_model_links *l);
/* The rendezvous (links rdv_s) the time of @op by @a of @bytes adds to the tuner's
 * latency: at most once for a send/recv or an all-to-all between nodes; 0 elsewhere. */
double ft__model_rdv_lat_s(const struct ft_model_links *l, enum ft_op op, enum ft_algo a,
                           uint64_t bytes);
/* The factors ft__model_time() applies to the latency and the bandwidth at @bytes. */
void ft__model_factors(const struct ft_model_links *l, enum ft_op op, enum ft_algo a,
                       enum ft_proto p, uint64_t bytes, double *lat_factor, double *bw_factor);
/* NCCL's base latency inside the latency of (op, a, p) (kb NA-MODEL baseLatencies). */
double ft__model_base_lat(const struct ft_model_links *l, enum ft_op op, enum ft_algo a,
                          enum ft_proto p);

/* The algorithm and protocol aws-ofi-nccl's tuner plugin gives @q on @l (q->ofi_tuner):
 * true with *@algo and *@proto set where one of its regions holds the call, false where
 * NCCL's own tuner decides (model/tuner_ofi.c). */
bool ft__model_ofi_region(const struct ft_model_links *l, const struct ft_model_query *q,
                          enum ft_algo *algo, enum ft_proto *proto);

/* What the busiest NIC moves, in buffers S, summed over the hops of NCCL's double binary
 * tree over @nnodes nodes, for the first of @loops loops, its hops shared with the chunks
 * behind it, one hop back per loop (model/dtree.c): over 2 nodes 1 in one loop, 1.5 from
 * two on; 0 for fewer than 2. In *@load; returns 0 or FT_ENOMEM (*@load 0). */
int ft__model_dtree_fill_load(uint32_t nnodes, uint64_t loops, double *load) FT_MUST_CHECK;

/* A tree on forced channels, Simple, across nodes: its ramp holds NCCL's fill. */
bool ft__model_forced_fill(const struct ft_model_links *l, enum ft_algo a, enum ft_proto p);

/* CollNetDirect's stage times over its period: a loop's NVLink stage alone in *@nv, its
 * network stage in *@net (model/pipeline.c); false where @c has no stage rates. */
bool ft__model_collnet_stages(const struct ft_model_links *l, const struct ft__model_cost *c,
                              double *nv, double *net);

/* The pipeline terms of (op, a, p) costing @c at @bytes (model/pipeline.c): 0, or
 * FT_ENOMEM where the NVLS tree's fill could not be walked (@out then partial). */
int ft__model_pipe(const struct ft_model_links *l, enum ft_op op, enum ft_algo a, enum ft_proto p,
                   const struct ft__model_cost *c, uint64_t bytes, bool cuda_graph,
                   struct ft_model_pipeline *out) FT_MUST_CHECK;
/* The time with them: max(lat x lf + bytes / (bw x bf x share) + ramp, proxy, launch). */
/* How a calibration block prints its constants (render.c) and so the precision
 * ft_model_calibrate() keeps them to: a spec that includes the block gives the fit. */
#define FT__CALIB_FIXED_US_FMT "%.4f"
#define FT__CALIB_SCALE_FMT    "%.6f"
void ft__model_calib_round(double k[3]);

double ft__model_pipe_time(const struct ft__model_cost *c, double lat_factor, double bw_factor,
                           uint64_t bytes, const struct ft_model_pipeline *pl);

#endif

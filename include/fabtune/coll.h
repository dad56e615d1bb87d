/* SPDX-License-Identifier: MIT */
/*
 * fabtune/coll.h - collective operations, algorithms and protocols, and
 * their compilation into transfer schedules.
 *
 * A schedule is what the flow-level twin runs: phases in order, each a set of
 * concurrent flows between ranks. Inside a phase NCCL pipelines chunks, so
 * the flows of a phase run at once and the phase costs its slowest flow plus
 * `steps` sequential per-step latencies. A phase starts when the previous one
 * has finished (hierarchical algorithms: intra-node, then inter-node, then
 * intra-node again; all-to-all rounds). Ranks are 0..nranks-1; the caller
 * maps them to GPUs (placement).
 */
#ifndef FABTUNE_COLL_H
#define FABTUNE_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fabtune/base.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FT_OP_MAP(X)                        \
	X(ALL_REDUCE, "all_reduce")         \
	X(ALL_GATHER, "all_gather")         \
	X(REDUCE_SCATTER, "reduce_scatter") \
	X(BROADCAST, "broadcast")           \
	X(REDUCE, "reduce")                 \
	X(ALLTOALL, "alltoall")             \
	X(SENDRECV, "sendrecv")             \
	X(GATHER, "gather")                 \
	X(SCATTER, "scatter")               \
	X(HYPERCUBE, "hypercube")           \
	X(PT2PT_BW, "pt2pt_bw")             \
	X(PT2PT_LAT, "pt2pt_lat")           \
	X(PAIRS, "pairs")                   \
	X(BISECTION, "bisection")           \
	X(INCAST, "incast")                 \
	X(DEV_MEMCPY, "dev_memcpy")         \
	X(COPY_MATRIX, "copy_matrix")

/*
 * Operations: one vocabulary for the twin (model, schedules, simulator) and
 * the measurement engine (bench rows and patterns). The first seven are the
 * collectives the twin schedules (ft_op_is_modelled); gather, scatter and
 * hypercube (an all-gather by recursive doubling) are nccl-tests collectives
 * that only bench runs; the rest are bench's point-to-point and fabric tests:
 * pt2pt_bw/pt2pt_lat (perftest-style bandwidth and latency between two ranks),
 * pairs (every pair, with outliers), bisection (random matchings), incast
 * (many to one, with a victim's latency), dev_memcpy (cudaMemcpy device to
 * device on each rank's GPU) and copy_matrix (an nvbandwidth-like matrix of
 * copy bandwidths between host memory and every GPU).
 */
enum ft_op {
#define FT_OP_ENUM_(n, s) FT_OP_##n,
	FT_OP_MAP(FT_OP_ENUM_)
#undef FT_OP_ENUM_
	FT_OP_COUNT
};

#define FT_ALGO_MAP(X)                                                                 \
	X(RING, "ring")                                                                \
	X(TREE, "tree") /* double binary tree */                                       \
	X(HALVING_DOUBLING, "halving_doubling")                                        \
	X(DIRECT, "direct")             /* all-to-all: every pair at once */           \
	X(HIERARCHICAL, "hierarchical") /* NVLink first, then across nodes per rail */ \
	X(NVLS, "nvls")                 /* NVLink SHARP in-switch reduction */         \
	X(COLLNET, "collnet")           /* SHARP in-network reduction */               \
	X(PAT, "pat")                                                                  \
	X(NVLS_TREE, "nvls_tree") /* NVLS inside nodes, double binary tree across them */

enum ft_algo {
#define FT_ALGO_ENUM_(n, s) FT_ALGO_##n,
	FT_ALGO_MAP(FT_ALGO_ENUM_)
#undef FT_ALGO_ENUM_
	FT_ALGO_COUNT
};

#define FT_PROTO_MAP(X)     \
	X(SIMPLE, "simple") \
	X(LL, "ll")         \
	X(LL128, "ll128")

enum ft_proto {
#define FT_PROTO_ENUM_(n, s) FT_PROTO_##n,
	FT_PROTO_MAP(FT_PROTO_ENUM_)
#undef FT_PROTO_ENUM_
	FT_PROTO_COUNT
};

FT_API const char *ft_op_name(enum ft_op op);
FT_API const char *ft_algo_name(enum ft_algo a);
FT_API const char *ft_proto_name(enum ft_proto p);
/* Case-insensitive; also accepts NCCL spellings ("Ring", "Tree", "LL128", "allreduce"),
 * and for operations bench's short names ("pt2pt", "bw", "lat", "latency", "bcast"). */
FT_API int ft_op_from_name(const char *s, enum ft_op *out);
FT_API int ft_algo_from_name(const char *s, enum ft_algo *out);
FT_API int ft_proto_from_name(const char *s, enum ft_proto *out);

/* Which CollNet algorithm a forced CollNet runs: NCCL_ALGO=CollNet lets NCCL's tuner choose
 * between CollNetDirect and CollNetChain, NCCL_ALGO=CollNetDirect or CollNetChain forces one. */
enum ft_collnet_variant {
	FT_COLLNET_AUTO,   /* "collnet", "sharp": the tuner's choice */
	FT_COLLNET_DIRECT, /* "collnet_direct", NCCL's "CollNetDirect" */
	FT_COLLNET_CHAIN,  /* "collnet_chain", NCCL's "CollNetChain" */
};
/* The variant an --algo name @s asks for (any case, '_', '-' or none between the words);
 * FT_COLLNET_AUTO for every other name and for NULL. */
FT_API enum ft_collnet_variant ft_collnet_variant_from_name(const char *s);
/* "collnet", "collnet_direct" or "collnet_chain". */
FT_API const char *ft_collnet_variant_name(enum ft_collnet_variant v);
/* The collectives the twin can schedule and model (all_reduce .. sendrecv); the model,
 * schedules and simulator refuse the others with a message naming the operation. */
FT_API bool ft_op_is_modelled(enum ft_op op);
/* The collective a result row's test names ("all_reduce" or nccl-tests' "all_reduce_perf")
 * when the twin models it: 0, else FT_EINVAL (an unknown name or a bench-only test). */
FT_API int ft_op_from_test(const char *test, enum ft_op *out);
/* The collectives bench sweeps as nccl-tests does (all_reduce .. hypercube). */
FT_API bool ft_op_is_coll(enum ft_op op);

/* nccl-tests bus-bandwidth factor of @op on @nranks (kb NA-BUSBW): gather, scatter and
 * hypercube move (n-1)/n of the data through each rank's link as all_gather does; the
 * point-to-point tests (sendrecv, pt2pt, pairs, ...) 1. */
FT_API double ft_coll_busbw_factor(enum ft_op op, uint32_t nranks);

struct ft_result_row;
/* nccl-tests' arguments of a row of @op at @row->bytes on @row->nranks, as its
 * table prints them: the count of floats (per rank for all_gather,
 * reduce_scatter and alltoall, whose size is the whole array), the type, the
 * reduction ("sum" or "none") and the root (0 for broadcast and reduce, else -1). */
FT_API void ft_coll_row_args(struct ft_result_row *row, enum ft_op op);

/*
 * Link classes of NCCL's latency table: the intra-node link is NVLINK when
 * the GPUs talk over NVLink, else PCI; across nodes it is NET (kb NA-MODEL).
 */
enum ft_hw_link {
	FT_HW_NVLINK,
	FT_HW_PCI,
	FT_HW_NET,
	FT_HW_COUNT
};

/* Payload share of the bytes a protocol puts on the wire: Simple 1, LL 8/16,
 * LL128 120/128 (kb NA-PROTO-*). */
FT_API double ft_proto_efficiency(enum ft_proto p);
/* NCCL tuner base latency of @a with @p, seconds (kb NA-MODEL baseLatencies). Algorithms
 * NCCL has no entry for (halving-doubling, direct, hierarchical) use Ring's. */
FT_API double ft_coll_base_latency(enum ft_algo a, enum ft_proto p);
/* NCCL tuner per-hop latency of @a with @p over @link, seconds (kb NA-MODEL hwLatencies);
 * 0 where NCCL has no entry. */
FT_API double ft_coll_hw_latency(enum ft_hw_link link, enum ft_algo a, enum ft_proto p);
/* NCCL tuner per-hop latency of CollNetChain (Simple, baseLat 0) over @link, seconds: kb
 * NA-MODEL hwLatencies, 2.8 us over NVLink and PCI, 30 us through the network, NCCL's rows
 * from v2.19.1-1 (src/graph/tuning.cc); the model's releases before read their own. */
FT_API double ft_coll_collnet_chain_hw_latency(enum ft_hw_link link);
/*
 * Whether a schedule exists for (@op, @a, @p): e.g. tree is all_reduce only, NVLS and
 * CollNet are Simple only, alltoall is direct or hierarchical, PAT is all_gather and
 * reduce_scatter with Simple (and one rank a node, which the schedule checks).
 */
FT_API bool ft_coll_supports(enum ft_op op, enum ft_algo a, enum ft_proto p);
/*
 * NCCL's PAT (coll/pat.c, kb NA-ALGO-PAT): its dimensions over @n ranks, ceil(log2 n),
 * one phase each; the blocks of S / n a rank sends on dimension @d (the offsets 1 .. n - 1
 * whose lowest set bit is d); NCCL's latency on top of its base, floor(log2 n) x
 * @inter_s / 3.5 + 2.8 us x n (interLat: its per-hop network latency and what a step
 * between nodes adds to it), seconds, which the model's tuner prices (one rank a node:
 * n ranks, n nodes); and that latency spread over the phases, what each one pays on top
 * of its path.
 */
FT_API uint32_t ft_coll_pat_dims(uint32_t n);
FT_API uint32_t ft_coll_pat_blocks(uint32_t n, uint32_t d);
FT_API double ft_coll_pat_lat_s(uint32_t n, double inter_s);
FT_API double ft_coll_pat_phase_s(uint32_t n, double inter_s);
/* The algorithm NCCL would use for @op when nothing is forced and no tuning applies. */
FT_API enum ft_algo ft_coll_default_algo(enum ft_op op);

/*
 * Flow endpoint standing for the in-network reduction engine: the NVSwitch of
 * the rank's node for NVLS, the fabric's aggregation (SHARP) tree for CollNet.
 * A flow rank -> FT_SCHED_INNET carries data to be reduced by the network; a
 * flow FT_SCHED_INNET -> rank carries reduced or multicast data back.
 */
#define FT_SCHED_INNET UINT32_MAX
/* struct ft_sched_flow nic: the named NIC's index also on the receiving node */
#define FT_SCHED_NIC_IN 0x80u

/*
 * Peers an all-to-all keeps in progress at once per rank: its shift rounds
 * run this many at a time, each one message per connection with a fixed
 * per-message cost (the model and the flow engine both charge it).
 */
#define FT_COLL_A2A_WINDOW 4

/* One flow of a schedule. */
struct ft_sched_flow {
	uint32_t src; /* rank */
	uint32_t dst; /* rank */
	uint64_t
	        bytes; /* payload bytes this flow carries in its phase (before protocol overhead) */
	uint32_t phase;
	/*
	 * A tree's or a chain's flows (NCCL's tree all-reduce, chain broadcast and
	 * reduce) say where they sit in it, so that an engine can pipeline them
	 * chunk by chunk as NCCL does: pipe is 1 + the tree copy the flow belongs
	 * to (a channel's tree 0 or 1; each copy a tree of its own), 0 for a flow
	 * of no tree; dir says FT_SCHED_UP (toward the root: the reduction) or
	 * FT_SCHED_DOWN (away from it: the broadcast); relay is 1 for a flow that
	 * carries on the one listed just before it (a PXN leg through a proxy GPU),
	 * 0 for one that starts at the flow's own source.
	 *
	 * An NVLS tree all-reduce labels its flows with the NVLS head they serve:
	 * head is 1 + h for head h of a node (its in-node flows to and from
	 * FT_SCHED_INNET, which carry its shard on top of the rank's own S, and its
	 * network tree edges), 0 for a rank that is no head. Head h's network
	 * trees are the copies 2h + 1 and 2h + 2 (pipe; NCCL's channels alternate
	 * between the double binary tree's two trees), each with half of its
	 * shard. An in-node flow has dir FT_SCHED_UP into the switch (the
	 * reduction), FT_SCHED_DOWN out of it (the multicast), and pipe 0 for a
	 * rank that is no head, or 2h + 1 for head h (the first of its copies);
	 * a node's in-node flows come together, its head 1's first. Copied per
	 * channel (sim/), pipes are renumbered channel by channel, so a head's
	 * in-node flows name its own channel's copies. An engine can then
	 * pipeline chunk c of each copy through the switch, across the tree and
	 * back.
	 */
	uint16_t pipe;
	uint8_t dir;
	uint8_t relay;
	uint16_t head;
	/*
	 * 1 where FT_SCHED_INNET on this flow is the fabric's in-network reduction
	 * (CollNet, SHARP) in a schedule whose other FT_SCHED_INNET flows are the
	 * node's NVSwitch: NVLS across nodes, where a head sends its reduced share
	 * through its NIC to the switches and gets the network's result back. 0 for
	 * every flow of every other schedule (the algorithm says which it is).
	 */
	uint8_t net;
	/*
	 * 1 + the NIC of its source's node by which a flow between nodes leaves where that is
	 * not its GPU's own (a ring's channel NIC that NCCL reaches from the GPU
	 * over its own PCIe switch, or over C2C and its CPU: sim/ add_channel_flow()); the
	 * flow takes its GPU's path to that NIC, then the NIC's route. 0: its GPU's NIC.
	 * With FT_SCHED_NIC_IN set, it also arrives through the NIC of that index on the
	 * receiving node, where the receiver reaches that NIC by its own path and it is not
	 * the receiver's own (a tree's connection on its channel's NIC at both ends); without
	 * it, the flow arrives by the receiver's own NIC.
	 */
	uint8_t nic;
	/* When the flow starts, in nanoseconds after its phase could start (0: at once): an
	 * on/off source's start jitter. Engines that model no start times may ignore it. */
	uint32_t start_ns;
};

enum { FT_SCHED_UP = 1, FT_SCHED_DOWN = 2 };

struct ft_sched_phase {
	uint32_t steps;      /* sequential pipeline steps: each costs one path latency */
	uint32_t first_flow; /* flows of this phase: first_flow .. first_flow + nflows - 1 */
	uint32_t nflows;
	char what[32]; /* "intra reduce-scatter", "inter all-reduce", "round 3" */
	/*
	 * Implicit all-to-all phase (nflows = 0): the flows are not stored but
	 * generated on the fly by ft_sched_phase_flow(), so a 4,096-rank direct
	 * all-to-all (16.7M flows) costs a few bytes. The ranks form groups of
	 * a2a_group_size members spaced a2a_stride apart (stride 1: consecutive
	 * ranks; stride ppn: one rank per node on the same rail) and inside each
	 * group every rank sends bytes_per_pair to every other member.
	 */
	bool implicit_alltoall;
	uint32_t a2a_group_size;
	uint32_t a2a_stride;
	uint64_t bytes_per_pair;
	uint64_t npairs; /* flows of the phase, explicit (= nflows) or implicit */
};

struct ft_schedule {
	enum ft_op op;
	enum ft_algo algo;
	enum ft_proto proto;
	uint32_t nranks;
	uint32_t ranks_per_node; /* for hierarchical algorithms; 1 if flat */
	uint64_t bytes;          /* operation size as nccl-tests defines it (NA-BUSBW) */
	double proto_eff;        /* payload share on the wire (Simple 1, LL 0.5, LL128 120/128) */
	double step_lat_s;       /* protocol per-step overhead added to each step's path latency */
	/* The link a step inside a node takes, NCCL's graph typeIntra: FT_HW_NVLINK, or
	 * FT_HW_PCI on nodes without NVLink (ft_coll_args intra; the simulator sets the
	 * node's at the jobs' release). The hwLat row of the steps (a send/recv's one step
	 * among them) and of the all-to-all's messages inside a node (src/graph/tuning.cc
	 * ncclTopoTuneModel()). */
	enum ft_hw_link intra;
	double base_lat_s;       /* fixed launch latency of the operation (kb NA-MODEL base) */
	double net_lat_s;        /* NCCL's per-hop network latency hwLat[NET] a step between
	                          * nodes pays (kb NA-MODEL; the simulator sets it at the
	                          * jobs' release) */
	bool ring_inter_2n;      /* a ring all-reduce counts 2 x nNodes network steps (NCCL's
	                          * tuner before 2.23), not 2 x (nNodes - 1) */
	double ring_intra_floor_s; /* the least a ring's step inside a node lasts when the
	                          * ring crosses nodes (the simulator sets it at the release) */
	double net_step_s;       /* what a step between nodes pays on top of hwLat[NET] and the
	                          * path (the simulator sets it at the release) */
	bool release_set;        /* the simulator set the two above at the jobs' release; an
	                          * engine handed a schedule without works them out itself */
	bool collnet_chain;      /* CollNet all-reduce as NCCL's CollNetChain, not CollNetDirect */
	uint32_t root;           /* broadcast/reduce: the rank the chain starts (ends) at */
	/* NCCL's tree correction the flows' bytes carry (1 / it more each, set by the flow
	 * engines' ft__sim_nccl_efficiency()); 0 or 1: none */
	double tree_corr;
	struct ft_vec phases;    /* struct ft_sched_phase */
	struct ft_vec flows;     /* struct ft_sched_flow, grouped by phase */
};

struct ft_coll_args {
	enum ft_op op;
	enum ft_algo algo;
	enum ft_proto proto;
	uint32_t nranks;
	uint32_t ranks_per_node; /* GPUs per node taking part (hierarchical algorithms) */
	uint64_t bytes;
	uint32_t root; /* broadcast/reduce */
	/* 0 = default; schedules ignore it: channels split every flow evenly. */
	uint32_t nchannels;
	/* CollNet all-reduce as NCCL's CollNetChain (a chain through each node's GPUs to the
	 * NIC of its head, the in-network reduction, the chain back) rather than
	 * CollNetDirect; what NCCL's tuner picks (ft_model_eval()'s collnet_chain). Ignored
	 * by every other algorithm and operation. */
	bool collnet_chain;
	/* The link a step inside a node takes: FT_HW_NVLINK (0, the default) or FT_HW_PCI
	 * for nodes without NVLink, whose steps NCCL prices at hwLat[PCI] (src/graph/
	 * tuning.cc ncclTopoTuneModel(): hwLat by the graph's typeIntra; kb NA-MODEL).
	 * NVLS and its tree keep NVLink's row, being NVLink's. FT_HW_NET is refused. */
	enum ft_hw_link intra;
};

FT_API void ft_schedule_init(struct ft_schedule *s);
FT_API void ft_schedule_release(struct ft_schedule *s);
/* Compile @args into @out (initialized by the caller). FT_EINVAL / FT_ENOTSUP for
 * combinations that don't exist (e.g. NVLS for alltoall). */
FT_API int ft_coll_schedule(const struct ft_coll_args *args, struct ft_schedule *out,
                            struct ft_error *err) FT_MUST_CHECK;

/* Phase @i of @s (i < s->phases.len). */
static inline const struct ft_sched_phase *
ft_sched_phase_at(const struct ft_schedule *s, size_t i)
{
	return (const struct ft_sched_phase *)ft_vec_at(&s->phases, i);
}

/*
 * Flow @k (k < phase->npairs) of phase @ph of @s, explicit or generated.
 * Flows come in a fixed order (by group, then source, then destination).
 */
FT_API void ft_sched_phase_flow(const struct ft_schedule *s, const struct ft_sched_phase *ph,
                                uint64_t k, struct ft_sched_flow *out);
/* Total payload bytes of all flows of @s (explicit and implicit). */
FT_API uint64_t ft_schedule_total_bytes(const struct ft_schedule *s);
/* Total flows of @s (explicit and implicit). */
FT_API uint64_t ft_schedule_total_flows(const struct ft_schedule *s);

#ifdef __cplusplus
}
#endif
#endif

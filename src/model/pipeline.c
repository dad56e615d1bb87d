/* SPDX-License-Identifier: MIT */
/*
 * model/pipeline.c - what NCCL's tuner leaves out and a measured collective
 * pays at small and middle sizes: the channels NCCL actually launches, the
 * chunks it cuts the buffer into, the ramp before the pipeline is full, the
 * proxy thread's per-message work, and the host launch of each operation.
 *
 * NCCL picks the algorithm and protocol with its own cost model (tuner.c);
 * this file says what that pick then costs. Every rule restates NCCL's
 * enqueue and tuning code (NVIDIA/nccl src/enqueue.cc: the channel tuning of
 * topoGetAlgoInfo and calcCollChunking; src/include/collectives.h: the chunk
 * and slice steps; src/init.cc, src/include/device.h: buffer sizes;
 * src/graph/tuning.cc: thread thresholds and the network overhead;
 * src/transport/nvls.cc: NVLS channels and chunk size), at v2.30.7 unless a
 * release is named; docs/internals/model.md has the derivation.
 */
#include <string.h>

#include "model_int.h"

#define US 1e-6

/* NCCL_STEPS: slots of a connection's buffer (kb NA-CONCEPTS). */
#define NSTEPS 8
/* Default buffer per protocol (src/init.cc DEFAULT_LL_BUFFSIZE, DEFAULT_LL128_BUFFSIZE,
 * DEFAULT_BUFFSIZE at v2.18.3-1 to v2.30.7-1): Simple NCCL_BUFFSIZE 4 MiB
 * (FT_SPEC_NCCL_BUFFSIZE); LL 8 lines per thread x 512 threads x 8 steps x 16 bytes; LL128
 * 120 elements per thread x 640 threads x 8 steps x 8. computeBuffSizes takes each from its
 * own variable (NCCL_BUFFSIZE, NCCL_LL_BUFFSIZE, NCCL_LL128_BUFFSIZE; a spec's nccl.buffsize,
 * ll_buffsize, ll128_buffsize, ft_model_buffs_get()), so NCCL_BUFFSIZE leaves LL and LL128
 * alone. */
#define LL_BUFF (8u * 512u * NSTEPS * 16u)
#define LL128_BUFF (120u * 640u * NSTEPS * 8u)
/* NCCL_NVLS_CHUNKSIZE's default (src/transport/nvls.cc, v2.21.5-1 on; before it the same
 * 128 KiB fixed in src/enqueue.cc, v2.18.3-1 to v2.20.5-1). */
#define NVLS_CHUNK FT_SPEC_NCCL_NVLS_CHUNKSIZE
/* CollNetChain's largest chunk (src/enqueue.cc, v2.18.3-1 to v2.30.7-1: 256 x 1024). */
#define COLLNET_CHAIN_CHUNK (256u << 10)
/*
 * The host cost of one NCCL operation launched on its own (enqueue plus kernel launch),
 * seconds. A 1 KiB all-reduce on four NVLink H800s took 3.5 us per operation launched one by
 * one and 0.5 us replayed from a CUDA graph (NVIDIA/nccl issue 1984): the host, not the GPU,
 * set the pace. nccl-tests launches its iterations back to back, so this bounds the time of
 * an iteration from below unless -G replays them from a graph.
 */
#define LAUNCH_S (3.5 * US)
/* kb NA-MODEL network overhead per message the proxy posts (Intel hosts; tuning.cc). */
#define NET_MSG_S (1.0 * US)

static uint32_t
ceil_log2(uint32_t v)
{
	uint32_t k = 0;

	while ((1ull << k) < v)
		k++;
	return k;
}

/* log2 of @v rounded down, NCCL's log2i (src/include/utils.h): the tree's depth in its
 * chunking and tuning formulas is this, 1 at 3 nodes and 2 at 5 to 7, though the double
 * binary tree over 3 nodes is two hops deep (ceil_log2(): model/dtree.c walks it). */
static uint32_t
floor_log2(uint32_t v)
{
	uint32_t k = 0;

	while (v >>= 1)
		k++;
	return k;
}

/* The bytes of payload one step of @p carries (its buffer / NCCL_STEPS, less LL's and
 * LL128's flags), with the buffers @b (NULL or 0: NCCL's defaults). src/enqueue.cc
 * calcCollChunking takes comm->buffSizes[protocol] / NCCL_STEPS, halves it for LL and
 * keeps NCCL_LL128_DATAELEMS of every NCCL_LL128_LINEELEMS for LL128. */
static uint64_t
step_of(enum ft_proto p, const struct ft_model_buffs *b)
{
	uint64_t ll = b && b->ll ? b->ll : LL_BUFF, ll128 = b && b->ll128 ? b->ll128 : LL128_BUFF;

	switch (p) {
	case FT_PROTO_LL:
		return ll / NSTEPS / 2; /* 8 data bytes per 16-byte line */
	case FT_PROTO_LL128:
		return ll128 / NSTEPS / 16 * 15; /* 120 of every 128 bytes */
	default:
		return (b && b->simple ? b->simple : FT_SPEC_NCCL_BUFFSIZE) / NSTEPS;
	}
}

/* The same with only a Simple buffer of @buff bytes (0: NCCL's default). */
static uint64_t
step_payload(enum ft_proto p, uint64_t buff)
{
	struct ft_model_buffs b = { buff, 0, 0, 0, 0, 0 };

	return step_of(p, &b);
}

/* @l's buffers. */
static struct ft_model_buffs
buffs_of(const struct ft_model_links *l)
{
	struct ft_model_buffs b = { l->buffsize,   l->ll_buffsize,   l->ll128_buffsize,
		                    l->nvls_chunk, l->nvls_tree_max, l->nccl_version };

	return b;
}

/* The least NCCL_BUFFSIZE of @spec's node and node groups, 0 where all leave it. */
uint64_t
ft_model_buffsize(const struct ft_cluster_spec *spec)
{
	uint64_t b = spec->node.nccl_buffsize ? spec->node.nccl_buffsize : FT_SPEC_NCCL_BUFFSIZE;
	uint32_t g;

	for (g = 0; g < spec->ngroups && g < FT_SPEC_MAX_GROUPS; g++) {
		uint64_t x = spec->groups[g].node.nccl_buffsize;

		b = FT_MIN(b, x ? x : FT_SPEC_NCCL_BUFFSIZE);
	}
	return b;
}

uint64_t
ft__model_least_set(const struct ft_cluster_spec *spec, size_t off)
{
	uint64_t b = *(const uint64_t *)((const char *)&spec->node + off);
	uint32_t g;

	for (g = 0; g < spec->ngroups && g < FT_SPEC_MAX_GROUPS; g++) {
		uint64_t x = *(const uint64_t *)((const char *)&spec->groups[g].node + off);

		b = !b ? x : !x ? b : FT_MIN(b, x);
	}
	return b;
}

void
ft_model_buffs_get(const struct ft_cluster_spec *spec, struct ft_model_buffs *out)
{
	out->simple = ft_model_buffsize(spec);
#define LEAST(field) ft__model_least_set(spec, offsetof(struct ft_node_spec, field))
	out->ll = LEAST(nccl_ll_buffsize);
	out->ll128 = LEAST(nccl_ll128_buffsize);
	out->nvls_chunk = LEAST(nccl_nvls_chunksize);
	out->nvls_tree_max = LEAST(nccl_nvlstree_max_chunksize);
	out->nccl_version = spec->nccl_version;
#undef LEAST
	if (!out->ll)
		out->ll = LL_BUFF;
	if (!out->ll128)
		out->ll128 = LL128_BUFF;
	if (!out->nvls_chunk)
		out->nvls_chunk = NVLS_CHUNK;
}

/* Payload of one 16-byte store by each of a channel's threads: LL128, 640 threads, 15/16
 * of it data (one flag word per 128-byte line), 9,600 bytes; LL, one 16-byte line per
 * thread of 512, half of it data, 4,096 (kb ENV-NTHREADS; prims_ll.h, LLGenericOp's
 * eltPerTrip). LL's is a round of its threads; LL128's is not: each of its 20 warps takes
 * 32 x 8 words of wire at a time (src/device/prims_ll128.h GenericOp, WireWordPerSlice,
 * 1,920 data bytes) and waits for all their flags before it stores them on, so NCCL's
 * round is 38,400 bytes, a fifteenth of a step. The finer grain stays here pending the
 * round's checks (sim-log.md, "Chains at NCCL's grain, second reading"). */
static uint64_t
grain_of(enum ft_proto p)
{
	return p == FT_PROTO_LL ? 512u * 8u : 640u * 15u;
}

uint64_t
ft_model_line_grain(enum ft_proto p)
{
	return p == FT_PROTO_LL || p == FT_PROTO_LL128 ? grain_of(p) : 0;
}

/* Threads per channel and the bytes per thread below which NCCL drops a channel. */
static void
threads_of(enum ft_algo a, enum ft_proto p, uint32_t nranks, uint32_t *nt, uint32_t *thr)
{
	switch (p) {
	case FT_PROTO_LL:
		*nt = 512;
		*thr = 8 * (a == FT_ALGO_RING ? nranks : 1);
		break;
	case FT_PROTO_LL128:
		*nt = 640;
		*thr = 8;
		break;
	default:
		*nt = 512;
		*thr = 64;
		break;
	}
}

static bool
is_nvls(enum ft_algo a)
{
	return a == FT_ALGO_NVLS || a == FT_ALGO_NVLS_TREE;
}

/*
 * NCCL's version code of v2.30.3-1, NCCL_VERSION(2, 30, 3) = 2 x 10000 + 30 x 100 + 3
 * (src/nccl.h.in; makefiles/version.mk at the tag), the first release with
 * ncclNvlsTreeSm100Tuning (src/transport/nvls.cc): no 2.29 tag has it (v2.29.2-1 to
 * v2.29.7-1), and it came in the squashed 2.30 development commit that v2.30.3-1 is the
 * first tag of; v2.30.4-1 and v2.30.7-1 carry the same rules.
 */
#define NCCL_SM100_NVLS_TUNING 23003u

/* What ncclNvlsTreeSm100Tuning sets: NVLS channels, NVLS chunk, NVLS tree's largest chunk
 * (0: left to ncclNvlsTuning's fallback). */
struct nvls_tuning {
	uint32_t nch;
	uint64_t chunk, tree_max;
};

/*
 * NVLS channels per GPU (NVIDIA/nccl src/transport/nvls.cc ncclNvlsTuning; kb NA-ALGO-NVLS):
 * NVLS_NCHANNELS_SM90 16; SM100 NVLS_NCHANNELS_SM100 32 across nodes, NVLS_NCHANNELS_SM100_NVL
 * 24 in one (32 there too before v2.27.3-1). From v2.30.3-1, Blackwell across nodes
 * (minCompCap >= 100, nNodes > 1) takes ncclNvlsTreeSm100Tuning's count by the slowest
 * path from a GPU to its NIC (comm->minNetBw, GB/s: ncclTopoGetMinNetBw, 48 behind PCIe
 * Gen5, 96 behind Gen6) and the fewest ranks a node (minLocalRanks): 2 nodes at 48 or more
 * keep 32; more nodes at 96 or more take 24 with 8 ranks a node or fewer, 32 with more; at
 * 48 to 96, 24; below 48 the 32 stand. The nodes are NVLink domains: 2 GB200 NVL72 racks
 * (400G NICs behind Gen5) run 32, 4 of them 24; 4 DGX B200 24; GB300 NVL72 racks 32.
 *
 * The same function sets the NVLS chunk (nvlsChunkSize, 128 KiB before) and the NVLS tree's
 * largest chunk (nvlsTreeMaxChunkSize; before 2.30 NCCL_NVLSTREE_MAX_CHUNKSIZE's default in
 * src/enqueue.cc, 64 KiB from 4 nodes, else the NVLS chunk; ncclNvlsTuning keeps that as
 * its fallback): 2 nodes, 256 KiB both with 4 ranks a node or fewer, else a 128 KiB tree
 * chunk, 64 KiB with 16 ranks a node or more or with 8 or fewer behind PCIe switches
 * (graphs[NCCL_ALGO_NVLS].typeInter <= PATH_PXB) under 96 GB/s; more nodes at 96 GB/s or
 * more, 256 KiB both with 8 ranks a node or fewer, else a tree chunk of 128 KiB under 32
 * ranks a node, 64 KiB from 32; at 48 to 96 GB/s 128 KiB, 64 KiB behind PCIe switches.
 * A Grace host's GPU reaches its NIC over C2C (PATH_P2C, above PATH_PXB). src/enqueue.cc
 * (calcCollChunking at v2.30.7-1) starts NVLS from min(a Simple slot, nvlsChunkSize) and
 * the NVLS tree from min(nvlsChunkSize, nvlsTreeMaxChunkSize). False, @t at NCCL's
 * defaults, where the function does not run.
 */
static bool
nvls_sm100_tuning(const struct ft_model_links *l, struct nvls_tuning *t)
{
	uint32_t nics, ppn = l->ppn_min ? FT_MIN(l->ppn_min, l->ppn) : l->ppn;
	double gbps;
	bool pxb = !l->nic_c2c;

	t->nch = 32;
	t->chunk = NVLS_CHUNK;
	t->tree_max = 0;
	if (l->arch < FT_ARCH_BLACKWELL || l->nnodes < 2 ||
	    (l->nccl_version && l->nccl_version < NCCL_SM100_NVLS_TUNING))
		return false;
	gbps = ft__model_nic_as_nccl_sees(l, &nics) / 1e9 * (1 + 1e-9);
	if (l->nnodes == 2 && gbps >= 48.0) {
		t->tree_max = 128u << 10;
		if (ppn <= 4)
			t->chunk = t->tree_max = 256u << 10;
		else if (ppn >= 16 || (ppn <= 8 && pxb && gbps < 96.0))
			t->tree_max = 64u << 10;
	} else if (gbps >= 96.0) {
		if (ppn <= 8) {
			t->nch = 24;
			t->chunk = t->tree_max = 256u << 10;
		} else {
			t->tree_max = ppn < 32 ? 128u << 10 : 64u << 10;
		}
	} else if (gbps >= 48.0) {
		t->nch = 24;
		t->tree_max = pxb ? 64u << 10 : 128u << 10;
	}
	return true;
}

uint32_t
ft_model_nvls_nchannels(const struct ft_model_links *l)
{
	bool before_nvl = l->nccl_version && l->nccl_version < 22700;
	struct nvls_tuning t;

	/* Hopper's 16, and Blackwell's before NCCL knew it: NVLS_NCHANNELS_SM100 (32) and the
	 * compCap >= 100 choice come in v2.25.1-1 (src/transport/nvls.cc ncclNvlsInit(); at
	 * v2.24.3-1 NCCL_NVLS_NCHANNELS defaults to 16 on every GPU) */
	if (l->arch < FT_ARCH_BLACKWELL || (l->nccl_version && l->nccl_version < 22500))
		return 16;
	if (l->nnodes > 1)
		return nvls_sm100_tuning(l, &t) ? t.nch : 32;
	return before_nvl ? 32 : 24;
}

/*
 * NCCL versions of the NVLS chunk rules below (NCCL_VERSION codes, src/nccl.h.in):
 * v2.19.3-1 is the first tag whose chunking (src/enqueue.cc computeColl) caps NVLS across
 * nodes at 32 KiB on a slow network and the NVLS tree at 64 KiB from 4 nodes (neither at
 * v2.19.1-1 nor any 2.18 tag); v2.20.3-1 the first to read NCCL_NVLSTREE_MAX_CHUNKSIZE
 * (NCCL_PARAM NvlsTreeChunkSize, NvlsTreeMaxChunkSize from v2.21.5-1; moved to
 * src/transport/nvls.cc at v2.30.3-1).
 */
#define NCCL_NVLS_2_19_3 21903u
#define NCCL_NVLSTREE_MAX_ENV 22003u
/* The 32 KiB cap and the NVLS bandwidth under which it applies, GB/s. */
#define NVLS_NET_CAP_CHUNK (32u << 10)
#define NVLS_NET_CAP_GBPS 150.0

/*
 * Whether NCCL cuts @l's NVLS chunk to 32 KiB: src/enqueue.cc (calcCollChunking at
 * v2.21.5-1, v2.23.4-1, v2.27.7-1, v2.30.7-1; computeColl at v2.19.3-1) lowers the
 * largest NVLS chunk to 32 KiB where the communicator spans nodes (nNodes > 1) and its
 * tuner's NVLS all-reduce bandwidth, comm->bandwidths[ncclFuncAllReduce][NCCL_ALGO_NVLS]
 * [NCCL_PROTO_SIMPLE] in GB/s, is under 150, whatever the operation. That figure is 0
 * where NVLS is off across nodes (src/graph/tuning.cc zeroes a disabled algorithm's
 * bandwidths: NVLS across nodes needs CollNet), otherwise NCCL's own price of NVLS with
 * CollNet across nodes from its NVLS graph (ft__model_nvls_net_algbw()), so a slow NIC
 * path drops it under 150. kb NA-ALGO-NVLS.
 */
static bool
nvls_net_capped(const struct ft_model_links *l)
{
	uint32_t v = l->nccl_version;

	if (l->nnodes < 2 || (v && v < NCCL_NVLS_2_19_3))
		return false;
	return ft__model_nvls_net_algbw(l) / 1e9 < NVLS_NET_CAP_GBPS;
}

/*
 * The NVLS tree's largest chunk before its size rules (NCCL_NVLSTREE_MAX_CHUNKSIZE, -2
 * unset): 2.18 and v2.19.1-1 have none; v2.19.3-1 and v2.19.4-1 fix 64 KiB from 4 nodes
 * on; v2.20.3-1 to v2.29.7-1 take the variable where set, else 64 KiB from 4 nodes on and
 * no cap on fewer (src/enqueue.cc, the tree's branch of calcCollChunking); from v2.30.3-1
 * ncclNvlsTuning (src/transport/nvls.cc) takes the variable, else what
 * ncclNvlsTreeSm100Tuning set (@tuned), else the same fallback. 0: no cap.
 */
static uint64_t
nvls_tree_max(const struct ft_model_links *l, uint64_t tuned)
{
	uint32_t v = l->nccl_version;

	if (v && v < NCCL_NVLS_2_19_3)
		return 0;
	if (l->nvls_tree_max && (v == 0 || v >= NCCL_NVLSTREE_MAX_ENV))
		return l->nvls_tree_max;
	if (tuned)
		return tuned;
	return l->nnodes >= 4 ? 65536u : 0;
}

/*
 * The chunk NCCL starts @a's chunking from, before the size steps it down (src/enqueue.cc
 * calcCollChunking): NCCL_NVLS_CHUNKSIZE (read from 2.21 on: src/transport/nvls.cc at
 * v2.21.5-1; 2.18 to 2.20 fix 128 KiB in src/enqueue.cc), from v2.30.3-1 on Blackwell across
 * nodes ncclNvlsTreeSm100Tuning's unless a node sets the variable (nvls_sm100_tuning());
 * NVLS at most a Simple slot (@slot), 32 KiB across nodes where NCCL's NVLS bandwidth is
 * under 150 GB/s (nvls_net_capped()); the NVLS tree at most its largest chunk
 * (nvls_tree_max(); min(nvlsChunkSize, nvlsTreeMaxChunkSize) at v2.26.2-1 and v2.30.7-1).
 * 2.18 to 2.20 start the tree from a Simple step (src/enqueue.cc at v2.18.5-1, v2.20.5-1).
 */
static uint64_t
nvls_start_chunk(const struct ft_model_links *l, enum ft_algo a, uint64_t slot)
{
	uint32_t v = l->nccl_version;
	uint64_t chunk = v && v < 22100 ? NVLS_CHUNK : l->nvls_chunk ? l->nvls_chunk : NVLS_CHUNK;
	uint64_t max;
	struct nvls_tuning t;
	bool tuned = nvls_sm100_tuning(l, &t);

	if (tuned && !l->nvls_chunk_set)
		chunk = t.chunk;
	if (a == FT_ALGO_NVLS) {
		if (chunk > NVLS_NET_CAP_CHUNK && nvls_net_capped(l))
			chunk = NVLS_NET_CAP_CHUNK;
		return FT_MIN(slot, chunk);
	}
	if (v && v < 22100)
		chunk = slot;
	max = nvls_tree_max(l, tuned ? t.tree_max : 0);
	return max ? FT_MIN(chunk, max) : chunk;
}

uint64_t
ft_model_nvls_chunk(const struct ft_model_links *l, enum ft_algo a)
{
	struct ft_model_buffs bu = buffs_of(l);

	if (!is_nvls(a))
		return 0;
	return nvls_start_chunk(l, a, step_of(FT_PROTO_SIMPLE, &bu));
}

/* NVLS heads: every GPU in one node; across nodes one per NIC the node uses; at most 32
 * (FT__MODEL_NVLS_MAX_HEADS). */
static uint32_t
nvls_heads(const struct ft_model_links *l)
{
	uint32_t heads = l->nnodes <= 1 ? l->ppn : FT_MIN(l->ppn, l->nrails);

	return FT_MAX(FT_MIN(heads, FT__MODEL_NVLS_MAX_HEADS), 1u);
}

/* Channels NCCL launches for @bytes: the communicator's at run time (ft_model_run_nchannels(),
 * twice the graph's), one fewer while a thread would get less than its threshold
 * (enqueue.cc); NVLS runs on its own channel count; CollNet keeps all here. */
uint32_t
ft__model_launched_channels(const struct ft_model_links *l, enum ft_algo a, enum ft_proto p,
                            uint64_t bytes)
{
	uint32_t nc = ft_model_run_nchannels(l, a), nt, thr;

	if (is_nvls(a))
		return nc;
	if (a == FT_ALGO_COLLNET)
		return nc;
	threads_of(a, p, l->nranks, &nt, &thr);
	while (nc >= 2 && (double)bytes < (double)nc * nt * thr)
		nc--;
	return nc;
}

static uint64_t
halve_while(uint64_t chunk, bool (*below)(uint64_t, const void *), const void *ctx,
            uint64_t floor)
{
	while (chunk > floor && below(chunk, ctx))
		chunk /= 2;
	return chunk;
}

struct ll128_ctx {
	double per_ch; /* bytes per channel */
	double limit;
};

static bool
ll128_below(uint64_t chunk, const void *ctx)
{
	const struct ll128_ctx *c = ctx;

	return floor(c->per_ch / (double)chunk) < c->limit;
}

/* A tree's LL128 chunk at @bytes on @nch channels, @nranks ranks on @nnodes nodes
 * (calcCollChunking): halved while each channel would get too few chunks for the tree's
 * depth, down to 128 KiB, then (fewer still) to 32 KiB. The depth is NCCL's
 * nstepsLL128 = 1 + log2i(nNodes) + 0.1 ppn, log2 rounded down (src/enqueue.cc at
 * v2.18.3-1 and v2.29.7-1; kb NA-MODEL). */
static uint64_t
tree_ll128_chunk(uint64_t chunk, uint64_t bytes, uint32_t nch, uint32_t nnodes, uint32_t nranks)
{
	double ppn = (double)nranks / FT_MAX(nnodes, 1u);
	double steps = 1 + floor_log2(FT_MAX(nnodes, 1u)) + 0.1 * ppn;
	struct ll128_ctx c = { (double)bytes / FT_MAX(nch, 1u), steps * 64 / ppn };

	chunk = halve_while(chunk, ll128_below, &c, 131072);
	c.limit = steps * 16 / ppn;
	return halve_while(chunk, ll128_below, &c, 32768);
}

/*
 * The Simple tree's chunk at @bytes on @nch channels of @ppn ranks a node over @nnodes
 * nodes, at release @version: 2.18 and 2.19 shrank it with the tree's depth (gone from
 * src/enqueue.cc at v2.20.3-1), channel.tree.depth = nRanks / nNodes - 1 + log2i(nNodes)
 * (src/graph/connect.cc at v2.18.3-1 and v2.19.4-1), halving while each channel would
 * carry fewer than depth x 8 chunks (down to 128 KiB), depth x 4 (64 KiB) and depth (32
 * KiB). The model's pipeline (chunk_of()) and the engines' (ft_model_chunking_sized())
 * take it here. @version 0: the newest's rule, none.
 */
static uint64_t
tree_simple_chunk(uint64_t chunk, uint64_t bytes, uint32_t nch, uint32_t ppn, uint32_t nnodes,
                  uint32_t version)
{
	double depth = (double)(ppn - 1) + floor_log2(nnodes), per = (double)bytes / nch;

	if (!version || version >= 22000)
		return chunk;
	while (chunk > 131072 && floor(per / (double)chunk) < depth * 8)
		chunk /= 2;
	while (chunk > 65536 && floor(per / (double)chunk) < depth * 4)
		chunk /= 2;
	while (chunk > 32768 && floor(per / (double)chunk) < depth)
		chunk /= 2;
	return chunk;
}

/* NVLS / NVLSTree: steps down to a smaller chunk while the buffer holds fewer than k chunks
 * per concurrent operation (channels x heads). */
static uint64_t
nvls_step_down(uint64_t chunk, double bytes, double ops, const uint64_t (*rule)[2], size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (bytes < (double)rule[i][0] * ops * (double)chunk && chunk > rule[i][1])
			chunk = rule[i][1];
	return chunk;
}

/* collectives.h: all-reduce, all-gather, reduce-scatter take NCCL_STEPS/2 steps per chunk
 * and NCCL_STEPS/4 per slice on a Simple ring (@simple_ring of them); broadcast, reduce
 * and the other protocols one. */
static uint32_t
ring_steps(enum ft_op op, enum ft_algo a, enum ft_proto p, uint32_t simple_ring)
{
	bool ring_simple = a == FT_ALGO_RING && p == FT_PROTO_SIMPLE;

	return ring_simple && (op == FT_OP_ALL_REDUCE || op == FT_OP_ALL_GATHER ||
	                       op == FT_OP_REDUCE_SCATTER) ?
	               simple_ring :
	               1;
}

void
ft_model_chunking_get(enum ft_op op, enum ft_algo algo, enum ft_proto proto,
                      const struct ft_model_buffs *buffs, struct ft_model_chunking *out)
{
	uint32_t slice_steps = ring_steps(op, algo, proto, NSTEPS / 4);
	uint64_t step = step_of(proto, buffs);

	out->chunk_bytes = step * ring_steps(op, algo, proto, NSTEPS / 2);
	out->slice_bytes = step * slice_steps;
	out->slots = NSTEPS / slice_steps;
}

void
ft_model_chunking_sized(enum ft_op op, enum ft_algo algo, enum ft_proto proto,
                        const struct ft_model_buffs *buffs, uint64_t bytes, uint32_t nchannels,
                        uint32_t nnodes, uint32_t nranks, struct ft_model_chunking *out)
{
	ft_model_chunking_get(op, algo, proto, buffs, out);
	if (algo == FT_ALGO_TREE && proto == FT_PROTO_LL128 && nranks > 0)
		out->chunk_bytes = out->slice_bytes =
		        tree_ll128_chunk(out->chunk_bytes, bytes, nchannels, nnodes, nranks);
	if (algo == FT_ALGO_TREE && proto == FT_PROTO_SIMPLE && buffs && nranks > 0 && nnodes > 0)
		out->chunk_bytes = out->slice_bytes =
		        tree_simple_chunk(out->chunk_bytes, bytes, nchannels, nranks / nnodes,
		                          nnodes, buffs->nccl_version);
}

/* NCCL_P2P_NET_CHUNKSIZE (doubled on ARM hosts with Blackwell GPUs, kb ENV-BUFFSIZE),
 * NCCL_P2P_NVL_CHUNKSIZE, NCCL_P2P_PCI_CHUNKSIZE, NCCL_P2P_LL_THRESHOLD, NCCL_P2P_PER_CHANNEL_NET_BW
 * (GB/s) and NCCL_MAX_DEV_WORK_P2P_PER_BATCH at their defaults (src/init.cc, enqueue.cc,
 * graph/paths.cc, include/device.h). */
#define P2P_NET_CHUNK (128u << 10)
#define P2P_NVL_CHUNK (512u << 10)
#define P2P_PCI_CHUNK (128u << 10)
#define P2P_LL_THRESHOLD 16384u
#define P2P_CHANNEL_NET_GBPS 14.0
#define P2P_PER_BATCH 8u

static uint32_t
pow2_up(uint32_t v)
{
	return 1u << ceil_log2(v);
}

/* NCCL_MAX_P2P_NCHANNELS' default, MAXCHANNELS (src/graph/paths.cc, device.h). */
#define P2P_MAX_NCHANNELS 64u

uint32_t
ft_model_p2p_nchannels(uint32_t nchannels)
{
	return pow2_up(FT_MIN(FT_MAX(nchannels, 1u), P2P_MAX_NCHANNELS));
}

void
ft_model_p2p_chunking_get(uint64_t bytes, uint32_t nranks, uint32_t nnodes, double nic_GBps,
                          struct ft_model_p2p_chunking *out)
{
	ft_model_p2p_chunking_on(bytes, nranks, nnodes, nic_GBps, FT_MODEL_P2P_NCHANNELS, out);
}

void
ft_model_p2p_chunking_on(uint64_t bytes, uint32_t nranks, uint32_t nnodes, double nic_GBps,
                         uint32_t p2p_nchannels, struct ft_model_p2p_chunking *out)
{
	struct ft_model_p2p_comm c = { nranks, nnodes, nic_GBps, p2p_nchannels, false };

	ft_model_p2p_chunking_conn(&c, bytes, nnodes > 1, out);
}

/* NCCL's bandwidth of a PCIe link of @width lanes of generation @gen, GB/s: its speed
 * (15, 30, 60, 120, 240, 480 for 2.5 to 64 GT/s) x width / 80 (src/graph/topo.cc
 * kvDictPciGen, ncclTopoAddPci(), v2.29.2-1): Gen4 x16 24, Gen5 x16 48. 0 unknown. */
static double
nccl_pci_GBps(uint32_t gen, uint32_t width)
{
	if (gen == 0 || gen > 6 || width == 0)
		return 0;
	return width * 15.0 * (double)(1u << (gen - 1)) / 80.0;
}

void
ft_model_p2p_net_nics(const struct ft_cluster_spec *spec, const struct ft_model_links *l,
                      uint32_t *count, double *GBps)
{
	const struct ft_node_spec *n = &spec->node;
	double gpu_pci = nccl_pci_GBps(n->pcie_gen, n->pcie_width_gpu);
	double nic_pci = nccl_pci_GBps(n->pcie_gen, n->pcie_width_nic);
	double nic = n->nic_Bps > 0 ? n->nic_Bps / 1e9 : l->nic_Bps / 1e9, total = 0;
	/* the GPU's bandwidth to its CPU: its PCIe link, or C2C past every NIC set */
	double gpu = l->nic_c2c ? INFINITY : gpu_pci;
	uint32_t k = 0, nics = FT_MAX(l->gpu_nics, 1u);

	if (nic_pci > 0)
		nic = FT_MIN(nic, nic_pci);
	if (gpu_pci > 0 && !l->nic_c2c)
		nic = FT_MIN(nic, gpu_pci);
	/* NCCL adds a NIC while the sum is below the GPU's; an unknown PCIe link stops at one */
	do {
		total += nic;
		k++;
	} while (k < nics && total < gpu);
	*count = k;
	*GBps = total;
}

/* Whether @pred holds for the node of @spec and of each of its node groups. */
static bool
every_node(const struct ft_cluster_spec *spec, bool (*pred)(const struct ft_node_spec *))
{
	uint32_t g;

	if (!pred(&spec->node))
		return false;
	for (g = 0; g < spec->ngroups && g < FT_SPEC_MAX_GROUPS; g++)
		if (!pred(&spec->groups[g].node))
			return false;
	return true;
}

/* init.cc computeBuffSizes: cpuArch == ARM && minCompCap >= 100, over every rank (a
 * cluster of ARM and x86 hosts is NCCL's MIXED); Blackwell is the first GPU on NVLink 5. */
static bool
arm_blackwell(const struct ft_node_spec *n)
{
	return n->host_arm && n->nvlink_gen >= 5;
}

bool
ft_model_p2p_net_chunk_x2(const struct ft_cluster_spec *spec)
{
	return every_node(spec, arm_blackwell);
}

/* aws-ofi-nccl's platform table (src/platform-aws.cpp at v1.16.3) gives the "p5/p5e"
 * instances NCCL_BUFFSIZE 8 MiB and NCCL_P2P_NET_CHUNKSIZE 512 KiB; EFA has no NCCL
 * transport of its own, so that plugin carries every job there. */
#define OFI_P5_P2P_NET_CHUNK (512u << 10)

static bool
aws_p5_node(const struct ft_node_spec *n)
{
	return strcmp(n->preset, "aws-p5") == 0 || strcmp(n->preset, "aws-p5e") == 0;
}

uint32_t
ft_model_p2p_net_chunk_env(const struct ft_cluster_spec *spec)
{
	return every_node(spec, aws_p5_node) ? OFI_P5_P2P_NET_CHUNK : 0;
}

static bool
node_all_nvlink(const struct ft_node_spec *n)
{
	return n->nvlink_gen > 0 && n->nvlink_Bps > 0;
}

bool
ft_model_p2p_pci_chunk(const struct ft_cluster_spec *spec)
{
	return !every_node(spec, node_all_nvlink);
}

/*
 * The channels NCCL gives each network peer (p2pnChannelsPerPeer) at release
 * @c->nccl_version, NCCL_NCHANNELS_PER_NET_PEER at its default:
 * - before v2.20 the variable's default, 2 (src/graph/paths.cc at v2.18.6-1, v2.19.4-1);
 * - v2.20 to v2.28 (default -1: paths.cc ncclTopoGetNchannels() at v2.20.3-1 to v2.28.9-1):
 *   2, halved while 2 x nRanks exceeds 4 x p2pnChannels, at least the NICs the GPU needs
 *   to match its own link (getLocalNetCountByBw(); one here: the model knows one rate a
 *   GPU reaches the network at). ncclTopoComputeP2pChannels() asks for it before it rounds
 *   p2pnChannels up to a power of two, so the halving reads the count as it was,
 *   @c->p2p_nchannels_raw: 24 channels and 64 ranks give 1 (128 > 96), not 2 (128 > 128
 *   fails on 32);
 * - v2.29 and later (and 0): one per NCCL_P2P_PER_CHANNEL_NET_BW (14 GB/s) of the GPU's
 *   NICs, at least one per NIC: max(netCount, ceil((int)netBw / 14))
 *   (ft_model_p2p_net_nics(); paths.cc ncclTopoGetNchannels() at v2.29.2-1 to v2.30.7-1),
 *   so one 100G NIC gives 1, 2 x 200G 4; a power of two, then cut while the peers would
 *   not fit in one round of all channels (ncclTopoComputeP2pChannels(): per peer x
 *   ceil(nRanks / 8) <= p2pnChannels).
 * Then a power of two (ncclTopoComputeP2pChannels()).
 */
/* NCCL's max(netCount, divUp((int)netBw, 14)) from v2.29 for @c's GPU: its NICs' count and
 * bandwidth (ft_model_p2p_net_nics()), else one NIC of nic_GBps (0: 50). */
static uint32_t
net_channels_2_29(const struct ft_model_p2p_comm *c)
{
	double bw = c->net_count ? c->net_GBps : c->nic_GBps > 0 ? c->nic_GBps : 50;
	uint32_t count = c->net_count ? c->net_count : 1;
	uint32_t by_bw = ((uint32_t)FT_MAX(bw, 0.0) + (uint32_t)P2P_CHANNEL_NET_GBPS - 1) /
	                 (uint32_t)P2P_CHANNEL_NET_GBPS;

	return FT_MAX(count, by_bw);
}

/* Where NCCL's p2p channels per peer and the split of a send changed (the releases'
 * encoding of ft_model_query): v2.18.3-1's one-node cuts, v2.20.3-1's network peers and
 * cuts, v2.22.3-1's split (addP2pToPlan()), v2.29.2-1's network channels a peer and LL
 * threshold. */
#define P2P_SPLIT_ONE_NODE 21803u
#define P2P_SPLIT_2_20     22000u
#define P2P_SPLIT_2_22     22200u
#define P2P_2_29           22900u

static uint32_t
p2p_net_per_peer(const struct ft_model_p2p_comm *c, uint32_t nch_all, uint32_t groups)
{
	uint32_t v = c->nccl_version, n;

	if (v && v < P2P_SPLIT_2_20)
		return 2;
	if (v && v < P2P_2_29) {
		uint32_t raw = c->p2p_nchannels_raw ? c->p2p_nchannels_raw : nch_all;

		for (n = 2; n > 1 && (uint64_t)n * c->nranks > (uint64_t)raw * 4; n /= 2)
			;
		return n;
	}
	n = pow2_up(net_channels_2_29(c));
	while (n > 1 && n * groups > nch_all)
		n /= 2;
	return n;
}

/*
 * How a send is split over its channels (NVIDIA/nccl src/enqueue.cc
 * scheduleP2pTasksToPlan(), calcP2pChunkSize() to v2.21.5-1, addP2pToPlan() from
 * v2.22.3-1). Every release starts from p2pnChannelsPerPeer and doubles a send's channels
 * while a part exceeds the largest (one chunk across nodes, 32 inside a node) up to the
 * most (nChannelsMax); the cuts differ by release:
 * - up to v2.18.1-1 (read at v2.16.5-1, v2.17.1-1, v2.18.1-1), on any communicator, the
 *   fewest (nChannelsMin) is halved while it times the ranks exceeds p2pnChannels and the
 *   most while it times the ranks exceeds 4 x p2pnChannels ("avoid overloading channels
 *   with 8+ operations");
 * - from v2.18.3-1 to v2.19.4-1 both cuts apply on one node only (the block under
 *   comm->nNodes == 1, first in v2.18.3-1);
 * - from v2.20.3-1 the fewest is cut everywhere and the most never.
 * The smallest part (minSize) is an eighth of a chunk before v2.20 and half a chunk across
 * nodes from it. Up to v2.21.5-1 calcP2pChunkSize() starts at nChannelsMin channels with a
 * part of at least the smallest, doubles, then rounds the part up to a multiple of the
 * smallest, and the send is cut into ceil(bytes / part) parts; from v2.22.3-1 the start
 * is min(nChannelsMin, ceil(bytes / smallest)) channels and the part is not rounded. On
 * one DGX A100 (8 ranks, 32 p2p channels) a 1 GiB send takes 16 channels at 2.18 and
 * 2.19, 32 from 2.20; a 300 KiB one 3 before 2.22 (75 KiB rounded to 128 KiB), 4 from it.
 */
void
ft_model_p2p_chunking_conn(const struct ft_model_p2p_comm *c, uint64_t bytes, bool net,
                           struct ft_model_p2p_chunking *out)
{
	bool multi = c->nnodes > 1;
	uint64_t step = multi && c->net_chunk ? c->net_chunk :
	                multi       ? P2P_NET_CHUNK * (c->net_chunk_x2 ? 2u : 1u) :
	                c->pci_chunk ? P2P_PCI_CHUNK :
	                               P2P_NVL_CHUNK;
	uint64_t min_part, max_part, part = 0, slot = step_payload(FT_PROTO_SIMPLE, c->buffsize);
	uint32_t nranks = c->nranks, v = c->nccl_version;
	uint32_t nch_all = c->p2p_nchannels ? c->p2p_nchannels : FT_MODEL_P2P_NCHANNELS;
	uint32_t per_peer, nmin, nmax, nch = 1;
	uint32_t groups = (FT_MAX(nranks, 1u) + P2P_PER_BATCH - 1) / P2P_PER_BATCH;
	/* the cuts by release (above) */
	bool before_2_20 = v && v < P2P_SPLIT_2_20;
	bool halve_min = !before_2_20 || v < P2P_SPLIT_ONE_NODE || !multi;
	bool halve_max = before_2_20 && (v < P2P_SPLIT_ONE_NODE || !multi);
	bool split_2_22 = !v || v >= P2P_SPLIT_2_22, ll;

	/* computeBuffSizes: the chunk never exceeds a slot of the Simple buffer. */
	step = FT_MIN(step, slot);

	/* The communicator's (init.cc, paths.cc): across nodes the network chunk, and channels
	 * per peer the fewest any peer gets, a network one's (p2p_net_per_peer(), by
	 * release); inside an NVLink node all of them. */
	per_peer = multi ? p2p_net_per_peer(c, nch_all, groups) : nch_all;
	per_peer = FT_MIN(per_peer, nch_all);
	/* Channels of this send (enqueue.cc): one per smallest part, fewer when every
	 * rank's sends could not each have one, more while a part exceeds the largest, at
	 * most nmax; before v2.22 the rounded part's count (the cuts and splits by release,
	 * above). */
	for (nmin = per_peer; halve_min && nmin > 1 && (uint64_t)nmin * nranks > nch_all; nmin /= 2)
		;
	for (nmax = per_peer; halve_max && nmax > 1 && (uint64_t)nmax * nranks > 4ull * nch_all;
	     nmax /= 2)
		;
	min_part = multi && !before_2_20 ? step / 2 : step / 8;
	max_part = multi ? step : step * 32;
	if (bytes > 0) {
		nch = nmin;
		if (split_2_22)
			nch = (uint32_t)FT_MIN((uint64_t)nmin, (bytes + min_part - 1) / min_part);
		part = FT_MAX(min_part, (bytes + nch - 1) / nch);
		while (part > max_part && nch <= nmax / 2) {
			nch *= 2;
			part = (bytes + nch - 1) / nch;
		}
		if (!split_2_22) {
			part = (part + min_part - 1) / min_part * min_part;
			nch = (uint32_t)((bytes + part - 1) / part);
		}
	}
	out->channels = nch;
	/* LL up to NCCL_P2P_LL_THRESHOLD: before v2.22 a part (addP2pToPlan() tests each, so
	 * all of them: the largest, min(bytes, part)); v2.22.3-1 to v2.28.9-1 the send up to
	 * p2pnChannelsPerPeer thresholds (thresholdLL = nChannelsMax x threshold, whatever
	 * channels the send takes); from v2.29.2-1 up to its own channels' thresholds. */
	if (!split_2_22)
		ll = FT_MIN(bytes, part) <= P2P_LL_THRESHOLD;
	else if (v && v < P2P_2_29)
		ll = bytes <= (uint64_t)per_peer * P2P_LL_THRESHOLD;
	else
		ll = bytes <= (uint64_t)nch * P2P_LL_THRESHOLD;
	/* The connection's: LL needs LL buffers, which a network one has only with
	 * NCCL_ALLOC_P2P_NET_LL_BUFFERS=1 (default 0; init.cc, transport/net.cc); an NVLink
	 * or PCIe one has them, inside a multi-node communicator too. */
	out->proto = !net && ll ? FT_PROTO_LL : FT_PROTO_SIMPLE;
	out->chunk_bytes = out->proto == FT_PROTO_LL ? step_payload(FT_PROTO_LL, 0) : step;
	/* A network send shorter than 8 chunks uses smaller ones. */
	if (net && out->proto == FT_PROTO_SIMPLE && bytes < step)
		out->chunk_bytes = step / 4;
	else if (net && bytes < 8 * step)
		out->chunk_bytes /= 2;
	out->slots = NSTEPS;
	out->peers_inflight = nch_all / nch * P2P_PER_BATCH;
	out->nccl_version = c->nccl_version;
}

double
ft_model_p2p_window_Bps(const struct ft_model_p2p_chunking *ch, double rtt_s)
{
	if (!(rtt_s > 0) || ch->channels == 0 || ch->slots == 0 || ch->chunk_bytes == 0)
		return 0;
	return (double)ch->channels * ch->slots * (double)ch->chunk_bytes / rtt_s;
}

/* NCCL_SHARED_STEPS: the slots of a channel's shared p2p buffer (src/transport/net.cc). */
#define P2P_SHARED_STEPS 16u

/*
 * A channel's p2p work batch holds at most P2P_PER_BATCH (8) ops in every release. From
 * v2.22 (NVIDIA/nccl v2.22.3-1 to v2.30.7-1 src/include/device.h, src/enqueue.cc
 * addWorkBatchToPlan()) the cap is NCCL_MAX_DEV_WORK_P2P_PER_BATCH (8); the batch's byte
 * budget, NCCL_MAX_DEV_WORK_BATCH_BYTES (1024) of 48-byte struct ncclDevWorkP2p (two
 * pointers, two size_t, two int, six uint8_t and a byte of flags, 47, aligned to 16),
 * would hold 21 and never binds (v2.29's ncclMaxDevWorkBatchBytes(), 1 to 16 KiB by arch,
 * sizes the device's buffer; the host still tests the 1024). Before v2.22 a batch was an
 * ncclWork of NCCL_MAX_WORK_ELEMENTS_P2P (16) elements, sends on the odd ones: 8 sends.
 */

/* Where NCCL's p2p placement changed (ft_model_query's release encoding). */
enum p2p_rule {
	P2P_RULE_2_18,   /* v2.18.1-1 to v2.21.5-1: ncclChannelCompute() */
	P2P_RULE_2_22,   /* v2.22.3-1 to v2.27.7-1: base + reversed part */
	P2P_RULE_2_28,   /* v2.28.3-1: reversed base + part */
	P2P_RULE_2_28_7, /* v2.28.7-1 and later (and 0): schedule groups, batch groups */
};

static enum p2p_rule
p2p_rule_of(uint32_t v)
{
	return v == 0 || v >= 22807 ? P2P_RULE_2_28_7 :
	       v >= 22800           ? P2P_RULE_2_28 :
	       v >= 22200           ? P2P_RULE_2_22 :
	                              P2P_RULE_2_18;
}

/* The bottom @nbits bits of @x reversed, the others dropped (NCCL's reverseBits(), and
 * mirrorBits() of src/graph/paths.cc before v2.22). */
static uint32_t
rev_bits(uint32_t x, uint32_t nbits)
{
	uint32_t r = 0, i;

	for (i = 0; i < nbits; i++)
		r |= ((x >> i) & 1u) << (nbits - 1 - i);
	return r;
}

static uint32_t
gcd_u32(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* v2.28.7-1 src/init.cc ncclP2pSchedule(): across nodes the ranks are scheduled in groups of
 * NCCL_P2P_SCHEDULE_GROUP_SIZE (default NCCL_MAX_DEV_WORK_P2P_PER_BATCH, 8), cut to
 * gcd(8, ppn) where ppn is not a multiple of 8. */
static uint32_t
p2p_group_size(uint32_t ppn)
{
	uint32_t g = P2P_PER_BATCH;

	if (ppn % g || ppn < g)
		g = gcd_u32(g, ppn);
	return FT_MAX(g, 1u);
}

uint32_t
ft_model_p2p_schedule(uint32_t nnodes, uint32_t ppn, uint32_t rank, uint32_t nccl_version,
                      uint32_t *peer)
{
	uint32_t n = nnodes * ppn, gs, ng, ng2, group, local, gd = 0, step = 0, pos = 0, d;

	if (nnodes == 0 || ppn == 0 || rank >= n)
		return 0;
	if (p2p_rule_of(nccl_version) != P2P_RULE_2_28_7 || nnodes < 2) {
		/* round r: r / ppn nodes and r % ppn ranks ahead */
		for (pos = 0; pos < n; pos++)
			peer[pos] = (rank / ppn + pos / ppn) % nnodes * ppn +
			            (rank % ppn + pos) % ppn;
		return n;
	}
	gs = p2p_group_size(ppn);
	ng = n / gs;
	ng2 = pow2_up(ng);
	group = rank / gs; /* groups numbered over the nodes in turn, gs ranks each */
	local = rank % gs;
	do {
		if (gd < ng) {
			uint32_t to = (group + gd) % ng;

			for (d = 0; d < gs; d++)
				peer[pos++] = to * gs + (local + d) % gs;
		}
		step++;
		gd = (gd + step) & (ng2 - 1);
	} while (step != ng2);
	return pos;
}

/*
 * The channel of part @part of the send of p2p round @round (the peer round / ppn nodes and
 * round % ppn ranks ahead) under @rule, on @nch_all channels (a power of two, b bits):
 * - v2.18-v2.21 (src/include/channel.h ncclChannelComputeBase() and
 *   ncclChannelComputeFromBase(), src/graph/paths.cc p2pChannels[] = mirrorBits()): base
 *   node delta + local delta / 8, channel rev_b(base) + part;
 * - v2.22-v2.27 (channel.h ncclP2pChannelBaseForRound(), device.h ncclP2pChannelForPart()):
 *   base node delta x ceil(ppn / 8) + local delta / 8, channel base + rev_b(part);
 * - v2.28.3: that base, channel rev_b(base) + part;
 * - v2.28.7 and later: the base over schedule groups (p2p_group_size()) in place of nodes,
 *   channel rev_b(base) + part.
 * On one node the base is the round itself.
 */
static uint32_t
p2p_channel_of(enum p2p_rule rule, uint32_t round, uint32_t part, uint32_t nch_all,
               uint32_t nnodes, uint32_t ppn)
{
	uint32_t base = round, bits = 0, gs;

	while ((1u << bits) < nch_all)
		bits++;
	if (nnodes > 1 && rule == P2P_RULE_2_18) {
		base = round / ppn + round % ppn / P2P_PER_BATCH;
	} else if (nnodes > 1) {
		gs = rule == P2P_RULE_2_28_7 ? p2p_group_size(ppn) : ppn;
		base = round / gs * ((gs + P2P_PER_BATCH - 1) / P2P_PER_BATCH) +
		       round % gs / P2P_PER_BATCH;
	}
	switch (rule) {
	case P2P_RULE_2_18:
		return (rev_bits(base % nch_all, bits) + part) % nch_all;
	case P2P_RULE_2_22:
		return ((base & 0xff) + rev_bits(part, bits)) % nch_all;
	default:
		return (rev_bits(base & 0xff, bits) + part) % nch_all;
	}
}

/*
 * The order NCCL walks the rounds in, as (node delta, local step) (src/init.cc): from
 * v2.22 round by round; before, node deltas 0, d, -d, N/2 - d, -(N/2 - d) for d = 0 ..
 * N/4, each without repeats, and in each ALIGN_POWER(ppn, 8) steps (a power of two below
 * 8, else ppn rounded up to 8), those past ppn empty.
 */
struct p2p_order {
	enum p2p_rule rule;
	uint32_t nnodes, ppn, steps, i, d, index, step;
	uint32_t deltas[4];
};

static void
p2p_order_init(struct p2p_order *o, enum p2p_rule rule, uint32_t nnodes, uint32_t ppn)
{
	memset(o, 0, sizeof(*o));
	o->rule = rule;
	o->nnodes = nnodes;
	o->ppn = ppn;
	o->steps = ppn > P2P_PER_BATCH ? (ppn + P2P_PER_BATCH - 1) / P2P_PER_BATCH * P2P_PER_BATCH :
	                                 P2P_PER_BATCH / (P2P_PER_BATCH / ppn);
	o->deltas[0] = 0;
}

static void
p2p_order_deltas(struct p2p_order *o)
{
	uint32_t n = o->nnodes, d = o->d;

	o->deltas[0] = d % n;
	o->deltas[1] = (n - d % n) % n;
	o->deltas[2] = (n / 2 - d) % n;
	o->deltas[3] = (n - (n / 2 - d) % n) % n;
}

/* The next op's position @i (its place in NCCL's walk) and round; false at the end. */
static bool
p2p_order_next(struct p2p_order *o, uint32_t *i, uint32_t *round)
{
	if (o->rule != P2P_RULE_2_18 || o->nnodes < 2) {
		if (o->i >= o->nnodes * o->ppn)
			return false;
		*i = *round = o->i++;
		return true;
	}
	for (;;) {
		if (o->d > o->nnodes / 4)
			return false;
		if (o->step == 0 && o->index == 0)
			p2p_order_deltas(o);
		if (o->step < o->steps) {
			uint32_t s = o->step++;

			*i = o->i++;
			if (s >= o->ppn)
				continue;
			*round = o->deltas[o->index] * o->ppn + s;
			return true;
		}
		o->step = 0;
		/* the next delta of this d, as init.cc skips the repeats */
		o->index++;
		if (o->index == 1 && o->deltas[1] == o->deltas[0])
			o->index++;
		if (o->index == 2 && o->deltas[2] == o->deltas[0])
			o->index++;
		if (o->index == 3 && o->deltas[3] == o->deltas[2])
			o->index++;
		if (o->index == 3 && o->deltas[3] == o->deltas[1])
			o->index++;
		if (o->index >= 4) {
			o->index = 0;
			o->d++;
		}
	}
}

/*
 * Whether op @i (round @round) opens a new batch on a channel whose open batch holds @n ops,
 * the first of round @first: full (P2P_PER_BATCH); before v2.22 at every eighth position of
 * the walk (src/enqueue.cc scheduleP2pTasksToPlan(): fuseOk false when i % 8 == 0); from
 * v2.28.7 at another group of 8 rounds (addWorkBatchToPlan(): p2pRound / 8). From v2.22 NCCL
 * also cuts where a round would come twice (the same connection); that never happens here:
 * a send's parts (at most @nch_all) land on distinct channels.
 */
static bool
p2p_new_batch(enum p2p_rule rule, uint32_t n, uint32_t i, uint32_t round, uint32_t first)
{
	if (n == 0)
		return false;
	if (n >= P2P_PER_BATCH)
		return true;
	if (rule == P2P_RULE_2_18)
		return i % P2P_PER_BATCH == 0;
	if (rule == P2P_RULE_2_28_7)
		return round / P2P_PER_BATCH != first / P2P_PER_BATCH;
	return false;
}

/*
 * The slots of each of rank @rank's sends (cut as @ch on @nch_all channels, @nnodes nodes of
 * @ppn ranks, m of them) into @slots[d], d the peer's place ahead node-major: one walk of
 * the rank's ops in NCCL's order (p2p_order_next(); the peer of each round from the rank's
 * own schedule, ft_model_p2p_schedule(), which before v2.28.7 is round r's r / ppn nodes
 * and r % ppn ranks ahead for every rank), each part on its channel (p2p_channel_of()),
 * cut into batches as that release cuts them (p2p_new_batch()). The network ops of one
 * batch share an opCount and so run as the subs of one proxy op (src/proxy.cc
 * ProxyAppend()); each sub posts at most NCCL_SHARED_STEPS / subs chunks ahead
 * (src/transport/net.cc sendProxyProgress()); a send's equal parts end with its slowest
 * channel, so it keeps the fewest of its parts' batches' slots. A send inside the node
 * (and every send on one node, or with no channel) keeps ch->slots. At most 255 each.
 * Returns 0, FT_ENOMEM, or FT_EINVAL where the schedule comes short (never: @rank is in
 * range).
 */
static int
p2p_slots_row(const struct ft_model_p2p_chunking *ch, uint32_t nch_all, uint32_t nnodes,
              uint32_t ppn, uint32_t rank, uint8_t *slots)
{
	enum p2p_rule rule = p2p_rule_of(ch->nccl_version);
	uint32_t m = nnodes * ppn, r, i, p, c, node = rank / ppn, nb = 0;
	uint32_t *pos = NULL, *open_n = NULL, *first = NULL, *cur = NULL, *subs = NULL;
	uint32_t *batch = NULL;
	struct p2p_order o;
	int rc = FT_ENOMEM;

	if (nnodes < 2 || ch->channels == 0) {
		memset(slots, (int)FT_MIN(ch->slots, 255u), m);
		return 0;
	}
	pos = ft_calloc(m, sizeof(*pos));
	open_n = ft_calloc(nch_all, sizeof(*open_n));
	first = ft_calloc(nch_all, sizeof(*first));
	cur = ft_calloc(nch_all, sizeof(*cur));
	subs = ft_calloc((size_t)m * ch->channels + 1, sizeof(*subs));
	batch = ft_calloc((size_t)m * ch->channels, sizeof(*batch));
	if (!pos || !open_n || !first || !cur || !subs || !batch)
		goto out;
	/* the schedule of a rank in range always has m rounds */
	if (FT_NEVER(ft_model_p2p_schedule(nnodes, ppn, rank, ch->nccl_version, pos) != m)) {
		rc = FT_EINVAL;
		goto out;
	}
	for (c = 0; c < nch_all; c++)
		cur[c] = UINT32_MAX;
	p2p_order_init(&o, rule, nnodes, ppn);
	while (p2p_order_next(&o, &i, &r))
		for (p = 0; p < ch->channels; p++) {
			c = p2p_channel_of(rule, r, p, nch_all, nnodes, ppn);
			if (cur[c] == UINT32_MAX ||
			    p2p_new_batch(rule, open_n[c], i, r, first[c])) {
				cur[c] = nb++;
				open_n[c] = 0;
			}
			if (open_n[c]++ == 0)
				first[c] = r;
			batch[(size_t)r * ch->channels + p] = cur[c];
			subs[cur[c]] += pos[r] / ppn != node;
		}
	for (r = 0; r < m; r++) {
		uint32_t peer = pos[r], s = ch->slots;
		uint32_t off = (peer / ppn + nnodes - node) % nnodes * ppn +
		               (peer % ppn + ppn - rank % ppn) % ppn;

		/* only a send over the network runs through the proxy's shared buffer */
		if (peer / ppn != node)
			for (p = 0; p < ch->channels; p++) {
				uint32_t n = subs[batch[(size_t)r * ch->channels + p]];

				s = FT_MIN(s, P2P_SHARED_STEPS / FT_MAX(n, 1u));
			}
		slots[off] = (uint8_t)FT_MIN(s, 255u);
	}
	rc = 0;
out:
	ft_free(pos);
	ft_free(open_n);
	ft_free(first);
	ft_free(cur);
	ft_free(subs);
	ft_free(batch);
	return rc;
}

int
ft_model_p2p_share_slots(struct ft_model_p2p_chunking *ch, uint32_t nch_all, uint32_t nnodes,
                         uint32_t ppn, uint32_t round)
{
	uint32_t rounds;
	uint8_t *row;
	int rc;

	if (nch_all == 0)
		nch_all = FT_MODEL_P2P_NCHANNELS;
	ppn = FT_MAX(ppn, 1u);
	rounds = nnodes * ppn;
	/* only a send over the network runs through the proxy's shared buffer */
	if (nnodes < 2 || round >= rounds || round / ppn == 0 || ch->channels == 0)
		return (int)FT_MIN(ch->slots, (uint32_t)INT_MAX);
	/* rank 0's row (p2p_slots_row()); a network send's count is at most
	 * NCCL_SHARED_STEPS, never cut at 255 */
	row = ft_calloc(rounds, sizeof(*row));
	if (!row)
		return FT_ENOMEM;
	rc = p2p_slots_row(ch, nch_all, nnodes, ppn, 0, row);
	if (rc == 0) {
		ch->slots = row[round];
		rc = (int)ch->slots;
	}
	ft_free(row);
	return rc;
}

uint32_t
ft_model_p2p_sched_views(uint32_t nnodes, uint32_t ppn, uint32_t nccl_version)
{
	/* Before v2.28.7 round r is the peer r / ppn nodes and r % ppn ranks ahead for every
	 * rank, and a round's channels follow from r alone: every rank sees rank 0's rounds.
	 * From v2.28.7 the channels still follow the round (ncclP2pChannelBaseForRound()), but
	 * a rank's round r goes to the group r / gs places ahead in the quadratic walk
	 * (ncclP2pSchedule()): where a node holds q = ppn / gs > 1 groups, the rounds that
	 * leave the node depend on the rank's group within it, and the round of a peer on its
	 * place in the group, so each local rank has a view of its own. */
	if (nnodes < 2 || ppn < 2 || p2p_rule_of(nccl_version) != P2P_RULE_2_28_7)
		return 1;
	return p2p_group_size(ppn) < ppn ? ppn : 1;
}

int
ft_model_p2p_share_slots_rank(const struct ft_model_p2p_chunking *ch, uint32_t nch_all,
                              uint32_t nnodes, uint32_t ppn, uint32_t rank, uint8_t *slots)
{
	if (nch_all == 0)
		nch_all = FT_MODEL_P2P_NCHANNELS;
	ppn = FT_MAX(ppn, 1u);
	if (nnodes == 0 || rank >= nnodes * ppn)
		return FT_EINVAL;
	return p2p_slots_row(ch, nch_all, nnodes, ppn, rank, slots);
}

void
ft__model_p2p_chunking(const struct ft_model_links *l, uint64_t bytes, bool net,
                       struct ft_model_p2p_chunking *out)
{
	struct ft_model_p2p_comm c = { l->nranks,
		                       l->nnodes,
		                       l->nic_Bps / 1e9,
		                       ft_model_p2p_nchannels_of(l),
		                       l->p2p_net_chunk_x2,
		                       !l->nvlink,
		                       l->p2p_net_chunk,
		                       l->buffsize,
		                       l->nccl_version,
		                       ft_model_p2p_nchannels_raw_of(l),
		                       l->p2p_net_count,
		                       l->p2p_net_GBps };

	ft_model_p2p_chunking_conn(&c, bytes, net, out);
}

/*
 * CollNetChain's chunk at @bytes on @nch channels of a chain @depth GPUs deep (the GPUs per
 * node: src/graph/connect.cc sets collnetChain.depth to nRanks / nNodes). src/enqueue.cc
 * (calcCollChunking; computeColl before v2.20.3-1) starts from min(256 KiB, a Simple slot)
 * and halves it while each channel would get fewer than depth x 64 chunks (down to 128 KiB),
 * depth x 8 (down to 64 KiB) and depth (down to 32 KiB); the same rule at v2.18.3-1,
 * v2.19.3-1, v2.20.3-1, v2.21.5-1, v2.23.4-1, v2.26.2-1, v2.27.3-1 and v2.30.7-1. Unlike
 * CollNetDirect's it does not divide among heads: a chain moves one chunk per loop.
 */
static uint64_t
collnet_chain_chunk(uint64_t slot, uint64_t bytes, uint32_t nch, uint32_t depth)
{
	uint64_t chunk = FT_MIN(slot, (uint64_t)COLLNET_CHAIN_CHUNK), per = bytes / FT_MAX(nch, 1u);

	while (chunk > 131072 && per / chunk < (uint64_t)depth * 64)
		chunk /= 2;
	while (chunk > 65536 && per / chunk < (uint64_t)depth * 8)
		chunk /= 2;
	while (chunk > 32768 && per / chunk < (uint64_t)depth)
		chunk /= 2;
	return chunk;
}

/* NCCL's chunk size for (op, a, p) at @bytes on @nch channels (calcCollChunking); @chain:
 * CollNet as CollNetChain. */
static uint64_t
chunk_of(const struct ft_model_links *l, enum ft_op op, enum ft_algo a, enum ft_proto p,
         uint64_t bytes, uint32_t nch, uint32_t heads, bool chain)
{
	struct ft_model_buffs bu = buffs_of(l);
	uint64_t chunk = step_of(p, &bu) * ring_steps(op, a, p, NSTEPS / 2);
	double b = (double)bytes, ops = (double)nch * heads;

	if (a == FT_ALGO_NVLS) {
		static const uint64_t rule[][2] = { { 64, 65536 }, { 8, 32768 }, { 2, 16384 } };

		/* a slot of the Simple buffer, at most the NVLS chunk */
		chunk = nvls_start_chunk(l, a, chunk);
		return nvls_step_down(chunk, b, ops, rule, FT_ARRAY_SIZE(rule));
	}
	if (a == FT_ALGO_NVLS_TREE) {
		static const uint64_t rule[][2] = {
			{ 32, 262144 }, { 16, 131072 }, { 4, 65536 }, { 1, 32768 }
		};

		chunk = nvls_start_chunk(l, a, chunk);
		return nvls_step_down(chunk, b, ops, rule, FT_ARRAY_SIZE(rule));
	}
	if (a == FT_ALGO_COLLNET && chain)
		return collnet_chain_chunk(step_of(FT_PROTO_SIMPLE, &bu), bytes, nch,
		                           FT_MAX(l->ppn, 1u));
	if (a == FT_ALGO_COLLNET) {
		double depth = 2, per = b / ops;

		while (chunk > 131072 && floor(per / (double)chunk) < depth * 64)
			chunk /= 2;
		while (chunk > 32768 && floor(per / (double)chunk) < depth * 8)
			chunk /= 2;
		return chunk;
	}
	if (a == FT_ALGO_TREE && p == FT_PROTO_LL128)
		return tree_ll128_chunk(chunk, bytes, nch, l->nnodes, l->nranks);
	if (a == FT_ALGO_TREE && p == FT_PROTO_SIMPLE)
		return tree_simple_chunk(chunk, bytes, nch, l->ppn, l->nnodes, l->nccl_version);
	return chunk;
}

uint64_t
ft_model_nvls_tree_chunking(const struct ft_model_links *l, uint64_t bytes,
                            struct ft_model_chunking *out)
{
	uint32_t nch = ft_model_nvls_nchannels(l), heads = nvls_heads(l);
	uint64_t per_loop;

	struct ft_model_buffs bu = buffs_of(l);

	ft_model_chunking_get(FT_OP_ALL_REDUCE, FT_ALGO_NVLS_TREE, FT_PROTO_SIMPLE, &bu, out);
	out->chunk_bytes = out->slice_bytes = chunk_of(l, FT_OP_ALL_REDUCE, FT_ALGO_NVLS_TREE,
	                                               FT_PROTO_SIMPLE, bytes, nch, heads, false);
	per_loop = (uint64_t)nch * heads * out->chunk_bytes;
	return FT_MAX((bytes + per_loop - 1) / per_loop, 1u);
}

uint64_t
ft_model_nvls_net_chunking(const struct ft_model_links *l, uint64_t bytes,
                           struct ft_model_chunking *out)
{
	uint32_t nch = FT_MAX(ft_model_run_nchannels(l, FT_ALGO_NVLS), 1u), heads = nvls_heads(l);
	struct ft_model_buffs bu = buffs_of(l);
	uint64_t per_loop;

	ft_model_chunking_get(FT_OP_ALL_REDUCE, FT_ALGO_NVLS, FT_PROTO_SIMPLE, &bu, out);
	out->chunk_bytes = out->slice_bytes = chunk_of(l, FT_OP_ALL_REDUCE, FT_ALGO_NVLS,
	                                               FT_PROTO_SIMPLE, bytes, nch, heads, false);
	per_loop = (uint64_t)nch * heads * FT_MAX(out->chunk_bytes, 1u);
	return FT_MAX((bytes + per_loop - 1) / per_loop, 1u);
}

uint64_t
ft_model_collnet_chunking(const struct ft_model_links *l, uint64_t bytes, bool chain,
                          struct ft_model_chunking *out)
{
	uint32_t nch = ft__model_launched_channels(l, FT_ALGO_COLLNET, FT_PROTO_SIMPLE, bytes);
	uint32_t heads = chain ? 1 : FT_MAX(l->ppn, 1u);
	struct ft_model_buffs bu = buffs_of(l);
	uint64_t per_loop;

	ft_model_chunking_get(FT_OP_ALL_REDUCE, FT_ALGO_COLLNET, FT_PROTO_SIMPLE, &bu, out);
	out->chunk_bytes = out->slice_bytes = chunk_of(l, FT_OP_ALL_REDUCE, FT_ALGO_COLLNET,
	                                               FT_PROTO_SIMPLE, bytes, nch, heads, chain);
	per_loop = (uint64_t)nch * heads * out->chunk_bytes;
	return FT_MAX((bytes + per_loop - 1) / per_loop, 1u);
}

/* The ranks of the longest chain a tree's chunk crosses inside a node: the biggest node's. */
static uint32_t
tree_chain(const struct ft_model_links *l)
{
	return FT_MAX(FT_MAX(l->ppn_max, l->ppn), 1u);
}

/*
 * Stages a chunk crosses one after another, and chunks per loop per channel
 * (NCCL's nchunksPerLoop). A ring moves every rank's chunk at every step, so
 * its links are busy from the first step: no ramp. A chain, a tree or an
 * NVLS tree passes each chunk from hop to hop.
 */
static void
shape_of(const struct ft_model_links *l, enum ft_op op, enum ft_algo a, uint32_t heads,
         uint32_t *stages, uint32_t *per_loop)
{
	uint32_t up = ceil_log2(l->nnodes);

	*stages = 1;
	*per_loop = 1;
	switch (a) {
	case FT_ALGO_RING:
		if (op == FT_OP_BROADCAST || op == FT_OP_REDUCE) {
			*stages = l->nranks - 1; /* the chain from (to) the root */
		} else {
			*per_loop = l->nranks;
		}
		break;
	case FT_ALGO_TREE:
		/* Up the chain inside the node and the tree across nodes, then down. Over nodes
		 * of different GPU counts each node chains its own ranks on every channel
		 * (NVIDIA/nccl src/graph/connect.cc ncclTopoPreset(): a node's chain is its
		 * ranks in the tree graph's order; the engines' ft__sim_tree_uneven()), and the
		 * first chunk's sum reaches every rank once the biggest node's part is in and
		 * back out: its ppn_max - 1 hops up and as many down. */
		*stages = 2 * ((tree_chain(l) - 1) + up);
		break;
	case FT_ALGO_NVLS:
		/* NCCL's one-node NVLS kernel (src/device/all_reduce.h) splits its warps in three
		 * groups, each handing a whole Simple step to the next: the scatter into the
		 * heads' NVLS buffers, the reduce and multicast through the switch (one
		 * primitive), the gather out of them. Across nodes (NVLS with CollNet, the same
		 * kernel's other branch) the reduce hands its step to the network and a fourth
		 * group multicasts what comes back: scatter, reduce and send, the switches,
		 * receive and multicast, gather. */
		*stages = l->nnodes > 1 ? 5 : 3;
		*per_loop = heads;
		break;
	case FT_ALGO_NVLS_TREE:
		*stages = 2 + 2 * up;
		*per_loop = heads;
		break;
	case FT_ALGO_COLLNET:
		*stages = 3; /* reduce-scatter in the node, the switches, all-gather */
		*per_loop = heads;
		break;
	default:
		/* PAT, halving-doubling, hierarchical: no pipeline of this kind modelled. */
		break;
	}
	*stages = FT_MAX(*stages, 1u);
}

/*
 * Hops between nodes the first chunk of a chain or tree crosses one after
 * another: a chain's N, N - 1 with one GPU a node or a broadcast on channel 0
 * alone, on one NIC of the root's node or on NICs its root's GPU all drives
 * (ft__model_chain_net_hops(), on the @nch channels launched), a
 * tree's ceil(log2 N) up and as many down. On such a hop LL and LL128 are
 * store-and-forward for a whole step: for
 * LL128 the GPU raises the connection's tail after the step's last line
 * (src/device/prims_ll128.h, postSend after GenericOp's closing barrier)
 * and the send proxy posts the step as one message once the tail has passed
 * it (src/transport/net.cc, sendProxyProgress); for LL the proxy waits until
 * every line of the step carries its flag (ll_ramp()).
 */
static uint32_t
net_hops(const struct ft_model_links *l, enum ft_op op, enum ft_algo a, uint32_t nch)
{
	if (l->nnodes <= 1)
		return 0;
	if (a == FT_ALGO_TREE)
		return 2 * ceil_log2(l->nnodes);
	if (a == FT_ALGO_RING && (op == FT_OP_BROADCAST || op == FT_OP_REDUCE))
		return ft__model_chain_net_hops(l, op, nch);
	return 0;
}

/*
 * The ramp of LL128, which flags every line: a hop inside a node forwards what
 * has arrived without waiting for the chunk, so the first data through those
 * stages is taken as one 16-byte store of each of the channel's threads
 * (grain_of(), 9,600 bytes; NCCL's warps pass on a round of 38,400), at the
 * channel's share of the node's own class (intra_Bps) less the flags: a GPU
 * stores each line on to the next as its flag arrives (src/device/prims_ll128.h,
 * recvReduceSendCopy(): readLL128Lines(), then storeLL128()), whatever paces the
 * channel further on. A hop between nodes waits for the whole chunk (net_hops())
 * and sends it at the channel's share of the graph's slowest class (the network
 * where it is slower than the node): one chunk less a round more at that rate
 * each. Before, every stage took the grain at that graph share: gcp-a3-high:2's
 * broadcast chain paid 14 grains at a channel's 5.86 GB/s of the network (22.9
 * us at 1 MiB) where its NVLink stages move one at 21.1 GB/s (docs/internals/sim.md,
 * "An LL128 grain crosses NVLink at NVLink's share"). With every hop whole this is
 * the Simple form, stages - 1 chunks. LL's round (4 KiB) over NVLink is the size
 * NCCL's per-hop LL latencies were measured at, so LL's NVLink hops add nothing
 * to them; its hops between nodes are whole steps (ll_ramp()).
 */
static double
ll128_ramp(const struct ft_model_links *l, uint32_t stages, uint32_t net, double c_eff,
           double *grain_s)
{
	double grain = FT_MIN(c_eff, (double)grain_of(FT_PROTO_LL128));
	double graph = l->nnodes > 1 ? FT_MIN(l->intra_Bps, l->inter_Bps * l->ring_tier_factor) :
	                               l->intra_Bps;
	double per_ch = ft_proto_efficiency(FT_PROTO_LL128) /
	                ft_model_run_nchannels(l, FT_ALGO_RING);
	double in_Bps = l->intra_Bps * per_ch, net_Bps = graph * per_ch;

	*grain_s = 0;
	if (in_Bps <= 0 || net_Bps <= 0)
		return 0;
	*grain_s = grain / in_Bps;
	return (double)(stages - 1 - net) * *grain_s + net * c_eff / net_Bps;
}

/*
 * The ramp of LL, whose hops between nodes are whole steps as LL128's are.
 * LLGenericOp (src/device/prims_ll.h) writes the step's size into the
 * connection's FIFO before its lines, and a network connection's LL buffer
 * lives in host memory (src/transport/net.cc: never on the GPU for LL); the
 * send proxy posts nothing until every line of the step carries the step's
 * flag, then sends the step as one message (sendProxyProgress). The
 * receiving GPU polls the lines in place, without the proxy. So each of the
 * @net network hops waits for the chunk (@c_eff bytes) less the round the
 * per-hop latency already holds, at @ch_Bps: the rate one channel moves its
 * chunks at LL's capped pace (kb NA-PROTO-LL), as a Simple step's round is
 * timed. A hop whose
 * input comes over NVLink may fill its step faster than that pace (LL's
 * one-node cap is higher), so this is the longest such a hop waits.
 */
static double
ll_ramp(uint32_t net, double c_eff, double ch_Bps)
{
	double grain = (double)grain_of(FT_PROTO_LL);

	return c_eff > grain && ch_Bps > 0 ? net * (c_eff - grain) / ch_Bps : 0;
}

/*
 * Network messages one channel's connections carry one after another: per
 * loop a send and a receive per slice that crosses the network. The
 * per-message cost is NCCL's network post overhead (kb NA-MODEL, "Network
 * post overhead per inter-node ring step"), which NCCL's tuner charges per
 * step of a channel and never times the channel count (NVIDIA/nccl
 * src/graph/tuning.cc, ncclTopoTuneModel at v2.18.5-1 and v2.27.7-1: a
 * multi-node ring's intra-node steps take max(intraLat, netOverhead), with
 * no nChannels factor): each channel posts on its own connections, whose
 * steps go out while the other channels' are in flight, so the channels a
 * GPU's NIC carries do not add their messages up.
 */
static double
proxy_messages(const struct ft_model_links *l, enum ft_op op, enum ft_algo a, enum ft_proto p,
               uint64_t loops)
{
	double per_loop;

	if (l->nnodes <= 1)
		return 0;
	switch (a) {
	case FT_ALGO_RING:
		/* One slice per step: Simple all-reduce and gathers cut a chunk in two. */
		per_loop = (op == FT_OP_ALL_REDUCE ? 2.0 * (l->nranks - 1) :
		            op == FT_OP_BROADCAST || op == FT_OP_REDUCE ? 1.0 :
		                                                          (double)(l->nranks - 1)) *
		           (p == FT_PROTO_SIMPLE && op != FT_OP_BROADCAST && op != FT_OP_REDUCE ? 2 :
		                                                                                 1);
		break;
	case FT_ALGO_TREE:
	case FT_ALGO_NVLS_TREE:
	case FT_ALGO_COLLNET:
	case FT_ALGO_NVLS: /* across nodes: a head's send to CollNet and its receive */
		per_loop = 1;
		break;
	default:
		return 0;
	}
	return 2.0 * per_loop * (double)loops;
}

/*
 * NCCL before 2.20 hands an NVLS or NVLS-tree buffer to its channels in
 * blocks of heads x chunk: channel b of a loop takes the block at b x heads x
 * chunk, whatever the size (src/collectives/device/all_reduce.h at v2.18.5-1,
 * src/device/all_reduce.h at v2.19.4-1: the NVLS kernels' scatter, reduce and
 * gather offsets are gridOffset + bid x nHeads x chunkSize). A buffer of less
 * than a loop leaves the last channels idle and channel 0 with a whole block;
 * from v2.20.3-1 the enqueue splits the count evenly over the channels
 * (workCount, workOffset). The bytes channel 0 carries over @loops loops.
 */
static double
nvls_block_bytes(const struct ft_model_links *l, enum ft_algo a, uint64_t bytes, uint32_t nch,
                 uint32_t heads, uint64_t chunk, uint64_t loops)
{
	double block = (double)heads * (double)chunk, loop = block * nch;
	double last = (double)bytes - (double)(loops - 1) * loop;

	if (!is_nvls(a) || l->nccl_version == 0 || l->nccl_version >= 22000 || loops == 0)
		return 0;
	return (double)(loops - 1) * block + FT_MIN(block, last);
}

/*
 * NCCL 2.17 to 2.19's ring all-reduce kernel cuts an LL or LL128 loop of less than
 * channels x ranks x step into blocks of a whole number of its minimum chunk, nthreads x
 * the protocol's bytes per grain (LL128 halved: 640 x 60 / 2 = 19,200 bytes of floats, two
 * grain_of(); LL 512 x 8 = 4,096, one), and deals them out chunk by chunk, block (chunk x
 * nChannels + bid), so the last blocks of the loop are empty and channel 0 carries the most
 * (src/collectives/device/all_reduce.h runRing at v2.17.1-1 to v2.18.6-1,
 * src/device/all_reduce.h at v2.19.4-1: minChunkSize, realChunkSize, calcOffset). From
 * v2.20.3-1 the enqueue splits the count over the channels (workCount, workOffset).
 *
 * On a channel the rank at ring index i sends every chunk of the loop once (the
 * reduce-scatter and the reduce-copy-send of chunk i), then all but chunks i and i + 1
 * again (the all-gather): 2 sum - s(i) - s(i + 1) bytes, the most for the rank whose two
 * chunks are the least. LL and LL128 forward line by line, so that rank's sends set the
 * channel's time. Returns channel 0's busiest rank's bytes over the loops, in the even
 * split's units (x n / 2(n - 1), which a full loop's n chunks give); 0 where this does not
 * apply.
 */
static double
ring_ll_block_bytes(const struct ft_model_links *l, enum ft_op op, enum ft_algo a,
                    enum ft_proto p, uint64_t bytes, uint32_t nch, uint64_t chunk)
{
	uint64_t minc = (p == FT_PROTO_LL128 ? 2u : 1u) * grain_of(p);
	uint64_t loop, rem, c, k, sum = 0, first = 0, prev = 0, pair = UINT64_MAX;
	uint32_t n = l->nranks;

	if (op != FT_OP_ALL_REDUCE || a != FT_ALGO_RING ||
	    (p != FT_PROTO_LL && p != FT_PROTO_LL128) || l->nccl_version == 0 ||
	    l->nccl_version >= 22000 || nch == 0 || n < 2 || chunk == 0 || bytes == 0)
		return 0;
	loop = (uint64_t)nch * n * chunk;
	rem = bytes % loop;
	if (rem > 0) {
		c = (rem + (uint64_t)nch * n * minc - 1) / ((uint64_t)nch * n * minc);
		c = FT_MIN(chunk, c * minc);
		for (k = 0; k < n; k++) {
			uint64_t off = k * nch * c, s_k = off < rem ? FT_MIN(c, rem - off) : 0;

			sum += s_k;
			if (k == 0)
				first = s_k;
			else
				pair = FT_MIN(pair, prev + s_k);
			prev = s_k;
		}
		pair = FT_MIN(pair, prev + first);
	}
	return (double)(bytes / loop * n * chunk) +
	       (rem > 0 ? (double)(2 * sum - pair) * n / (2.0 * (n - 1)) : 0);
}

/*
 * The network hops of an NVLS tree's first loop, the fill of its pipeline: the first chunk
 * (one per channel and head) crosses the hops in turn, each at the rate of its busiest NIC,
 * as the flow engine runs them (sim/engine_flow.c). A hop's busiest NIC moves S / 2 per
 * edge of the double binary tree it serves in that hop; from two loops on it moves, beside
 * the first chunk, the chunks behind it, one hop back per loop (ft__model_dtree_fill_load():
 * over 2 nodes S / 2 then S, 1.5S per loop in all where the whole operation's pace charged
 * 2S; over 4, 3S in one loop, 3.5S in two, 5.5S from four on, against 8S). NCCL's NVLSTree
 * kernel runs each stage as a warp group of its own, looping over the channel's chunks
 * (NVIDIA/nccl src/device/all_reduce.h, RunWorkColl for NCCL_ALGO_NVLS_TREE: the scatter,
 * the reduce that sends up the tree, the receive from it that broadcasts, the gather), so
 * chunk c + 1 enters a hop while chunk c is in the next. Each head sends its shard through
 * its own NICs, so the rails of the heads move @loop_bytes x load: all of a node's where
 * every GPU with a NIC heads a tree, 32 of 72 in an NVL72 domain (NCCL_MAX_NVLS_ARITY,
 * FT__MODEL_NVLS_MAX_HEADS). The seconds the hops take in *@net_s; 0 where this does not
 * apply. Returns 0 or FT_ENOMEM (the tree's walk out of memory: no fill to fall back on).
 */
static int
fill_net_s(const struct ft_model_links *l, enum ft_algo a, uint64_t loops, double loop_bytes,
           double *net_s)
{
	double share = (double)nvls_heads(l) / FT_MAX(FT_MIN(l->ppn, l->nrails), 1u);
	double net_Bps = l->inter_Bps * l->ring_tier_factor * FT_MIN(share, 1.0), load;
	int rc;

	*net_s = 0;
	if (a != FT_ALGO_NVLS_TREE || loops == 0 || l->nnodes < 2 || !(net_Bps > 0) ||
	    !isfinite(net_Bps))
		return 0;
	if ((rc = ft__model_dtree_fill_load(l->nnodes, loops, &load)) < 0)
		return rc;
	*net_s = load > 0 ? load * loop_bytes / net_Bps : 0;
	return 0;
}

/*
 * CollNetDirect's pipeline, round by round, from NCCL's kernel (NVIDIA/nccl
 * src/device/all_reduce.h, RunWork for NCCL_ALGO_COLLNET_DIRECT, read at
 * v2.21.5-1 and v2.27.7-1): in round r stage s works on loop r - s, and a
 * round lasts as long as its busiest link class takes: NVLink for the stages
 * inside the node, together, the NICs for the network's.
 *
 * The kernel's warp groups each loop over the channel's chunks: the scatter
 * into the heads, the heads' reduce-and-send to the network and receive-and-
 * broadcast back, the gather (which, direct, only waits for the broadcast's
 * writes into it): a stage on NVLink each side of the network. The scatter and
 * the broadcast each move (ppn - 1)/ppn of a loop on a GPU's NVLink, and the
 * pace counts both (cost_collnet_direct(), x ppn / 2(ppn - 1)): in the first
 * round and the last one of them runs alone, at twice the pace where NVLink
 * binds (@c->stage_intra_Bps), in the second and the next to last beside the
 * network alone (@c->stage_inter_Bps), from the third to the loops'th every
 * stage. The tuner's x0.85 (Hopper on) is read as the kernel's on every stage:
 * the stage times are scaled so that a round with every stage busy lasts a
 * period (NCCL's price, c->bw_Bps). ft__model_collnet_stages() gives a loop's
 * NVLink stage alone (t_nv) and its network stage (t_net) in periods: t_nv /
 * max(2 t_nv, t_net) and t_net / max(2 t_nv, t_net) (@nv 0 with one GPU a
 * node); false where the cost has no stage rates. The engines take the same
 * (sim/nccl.c ft__sim_collnet_stages()). collnet_rounds_s() sums the rounds of
 * @loops loops at @t_pace a period: 2 t_nv + 2 max(t_nv, t_net) + (loops - 2)
 * periods; one loop, the three stages one after another.
 */
bool
ft__model_collnet_stages(const struct ft_model_links *l, const struct ft__model_cost *c,
                         double *nv, double *net)
{
	double t_nv, t_net, full;

	*nv = *net = 0;
	if (!(c->stage_intra_Bps > 0) || !(c->stage_inter_Bps > 0))
		return false;
	t_nv = l->ppn > 1 ? 1.0 / c->stage_intra_Bps : 0;
	t_net = 1.0 / c->stage_inter_Bps;
	full = FT_MAX(2.0 * t_nv, t_net);
	if (!(full > 0) || !isfinite(full))
		return false;
	*nv = t_nv / full;
	*net = t_net / full;
	return true;
}

static double
collnet_rounds_s(const struct ft_model_links *l, const struct ft__model_cost *c, uint64_t loops,
                 double t_pace)
{
	double nv, net, k = (double)loops, sum;

	if (!ft__model_collnet_stages(l, c, &nv, &net) || loops == 0)
		return k * t_pace;
	if (loops == 1)
		sum = 2.0 * nv + net;
	else
		sum = 2.0 * nv + 2.0 * FT_MAX(nv, net) + (k - 2);
	return sum * t_pace;
}

/*
 * A tree on forced channels, Simple, across nodes: NCCL's kernel rate binds there (the
 * channels' share, kb NA-MODEL perChMaxTreeBws), and every stage moves a chunk a period
 * (src/device/all_reduce.h runTreeSplit(), one step a Simple tree chunk in src/enqueue.cc,
 * NVIDIA/nccl v2.27.7-1), so chunk m leaves stage s s periods after the first stage: the
 * op takes (loops + stages - 1) periods and its latency (kb NA-ALGO-TREE). The ramp is then
 * (stages - 1) periods at the bandwidth term's pace, and the time takes no tree correction:
 * NCCL's tuner divides the tree's bandwidth by it below 1 GiB (src/graph/tuning.cc,
 * treeCorrectionFactor, kb NA-MODEL) for the same fill, which the ramp already holds. On
 * NCCL's own channels the stages keep their links' rates and the correction.
 */
bool
ft__model_forced_fill(const struct ft_model_links *l, enum ft_algo a, enum ft_proto p)
{
	return l->channels_forced && a == FT_ALGO_TREE && p == FT_PROTO_SIMPLE && l->nnodes > 1;
}

/*
 * The stages of a forced tree's fill, s: each channel is a CUDA block with its own chunk
 * pipeline, all of them at once (NVIDIA/nccl v2.27.7-1 src/enqueue.cc gives each channel its
 * own share of the buffer and loop count; src/device/prims_simple.h waits for a step only on
 * its own channel's connections), so the first chunk of every channel crosses a stage at
 * the rate the channels get there, not at the whole operation's pace. The first chunk
 * crosses the longest chain: over nodes of different GPU counts each node chains its own
 * ranks (the schedule the engines run, ft__sim_tree_uneven()), so the biggest node's
 * ppn_max - 1 hops up and as many down, beside the 2 x ceil(log2(nodes)) hops between
 * nodes, as @stages counts them (shape_of()). A hop of
 * the chain inside a node runs at its stage rate up to the whole operation's
 * algorithm-rate cap for the tree (nChannels x perChMaxTreeBw x 0.5,
 * ft_model_tree_cap_algbw(), kb NA-MODEL perChMaxTreeBws). A hop
 * between nodes shares its NICs between the channels, and the stage rate is the tree's
 * algorithm rate there, the NICs' bus rate x 0.5 as every byte crosses them up and then
 * down (src/graph/tuning.cc, the tree's ratio): during the fill a hop carries the first
 * chunks one way alone, so at twice that, never faster than a chain hop (one connection's
 * rate). The two rates differ by source: a NIC's direction carries the tree's way down
 * beside its way up (a node is inside one of NCCL's two trees and a leaf of the other,
 * src/graph/trees.cc ncclGetDtree(), connect.cc connectTrees()), which the x0.5 counts and
 * the fill's first chunks do not meet; a chain hop moves at the kernel's reduce group,
 * which keeps its own fixed share of the channel's threads whether the broadcast group
 * below has work or not (src/device/all_reduce.h runTreeSplit(), NVIDIA/nccl v2.27.7-1),
 * so its rate does not grow in the fill. The @nch channels are independent pipelines,
 * and the k = ceil(nch / nrails) of them on one NIC of the node with the fewest stream
 * their first chunks through the hops between nodes one behind another: the last leaves
 * the last hop after (hops + k - 1) of its chunks' times there, not hops whole loops.
 * @loop: one loop's bytes of every channel; @t_pace: a loop at the operation's pace,
 * the most a stage takes. Where the NVLink share binds (DGX H100 nodes alike) every stage
 * keeps @t_pace (docs/internals/model-log.md, "forced channels' fill").
 */
static double
forced_fill_sum(const struct ft_model_links *l, enum ft_algo a, enum ft_proto p,
                const struct ft__model_cost *c, uint32_t stages, uint32_t nch, double loop,
                double t_pace)
{
	double cap = ft_model_tree_cap_algbw(l, a, p), inside, intra, inter, sum, k;
	uint32_t chain = tree_chain(l);

	if (!(cap > 0) || !(c->stage_intra_Bps > 0) || !(c->stage_inter_Bps > 0) ||
	    !isfinite(cap))
		return stages * t_pace;
	inside = FT_MIN(2.0 * (chain > 0 ? chain - 1 : 0), (double)stages);
	intra = FT_MIN(c->stage_intra_Bps, cap);
	inter = FT_MIN(2.0 * c->stage_inter_Bps, intra);
	k = ceil((double)FT_MAX(nch, 1u) / FT_MAX(l->nrails, 1u));
	sum = inside * loop / intra + (stages - inside + k - 1) * (loop / k) / inter;
	/* at least the one loop at the pace, at most every stage at it */
	return FT_MIN(FT_MAX(sum, t_pace), stages * t_pace);
}

int
ft__model_pipe(const struct ft_model_links *l, enum ft_op op, enum ft_algo a, enum ft_proto p,
               const struct ft__model_cost *c, uint64_t bytes, bool cuda_graph,
               struct ft_model_pipeline *out)
{
	/* CollNetChain (the cost's variant): one chunk per loop (src/enqueue.cc getLoopInfo,
	 * ncclPatternCollnetChain), not one per head as CollNetDirect's */
	bool chain = a == FT_ALGO_COLLNET && strcmp(c->variant, "chain") == 0;
	uint32_t heads = is_nvls(a) ? nvls_heads(l) :
	                 a == FT_ALGO_COLLNET && !chain ? FT_MAX(l->ppn, 1u) :
	                                                  1;
	uint32_t stages, per_loop;
	double loop_bytes, c_eff, pipes, pace_Bps, t_pace, sum, block0, block_share = 1.0;

	memset(out, 0, sizeof(*out));
	out->launch_s = cuda_graph ? 0 : LAUNCH_S;
	out->bw_share = 1.0;
	if (op == FT_OP_ALLTOALL || op == FT_OP_SENDRECV || l->nranks < 2)
		return 0;
	out->nchannels = ft__model_launched_channels(l, a, p, bytes);
	if (!is_nvls(a) && a != FT_ALGO_COLLNET && l->nchannels) {
		/* The channels' share of the bandwidth before LL's absolute cap: fewer
		 * channels still reach the cap while they carry more than it. */
		double ratio = c->cap_ratio > 0 ? c->cap_ratio : 1.0;

		out->bw_share = FT_MIN(1.0, (double)out->nchannels /
		                                    ft_model_run_nchannels(l, a) / ratio);
	}
	out->chunk_bytes = chunk_of(l, op, a, p, bytes, out->nchannels, heads, chain);
	shape_of(l, op, a, heads, &stages, &per_loop);
	out->stages = stages;
	pipes = (double)out->nchannels * per_loop;
	loop_bytes = pipes * (double)out->chunk_bytes;
	out->loops = bytes ? (uint64_t)ceil((double)bytes / loop_bytes) : 0;
	if (out->loops == 0)
		return 0;
	/* NCCL spreads the buffer over its chunks; the average chunk is what crosses a hop. */
	c_eff = (double)bytes / (pipes * (double)out->loops);
	pace_Bps = c->bw_Bps * out->bw_share;
	/* Before 2.20, NVLS channels take whole blocks: channel 0 sets the time, its chunks
	 * cross the stages, and the channels' bandwidth counts at bytes / (nch x its bytes). */
	block0 = nvls_block_bytes(l, a, bytes, out->nchannels, heads, out->chunk_bytes, out->loops);
	if (block0 > 0) {
		c_eff = block0 / ((double)heads * (double)out->loops);
		block_share = (double)bytes / (block0 * out->nchannels);
	}
	/* Before 2.20, a ring's LL and LL128 blocks are whole minimum chunks: channel 0 carries
	 * the most of a short loop, and the channels' bandwidth counts at its bytes. */
	block0 = ring_ll_block_bytes(l, op, a, p, bytes, out->nchannels, out->chunk_bytes);
	if (block0 > 0)
		block_share = (double)bytes / (block0 * out->nchannels);
	if (stages > 1 && (p == FT_PROTO_LL128 || p == FT_PROTO_LL))
		out->net_hops = FT_MIN(net_hops(l, op, a, out->nchannels), stages - 1);
	if (stages > 1 && p == FT_PROTO_LL128) {
		out->ramp_s = ll128_ramp(l, stages, out->net_hops, c_eff, &out->grain_s);
	} else if (stages > 1 && p == FT_PROTO_LL && isfinite(pace_Bps)) {
		out->ramp_s = ll_ramp(out->net_hops, c_eff, pace_Bps / pipes);
	} else if (stages > 1 && p == FT_PROTO_SIMPLE && pace_Bps > 0 && isfinite(pace_Bps)) {
		/* Every pipe moves one chunk per round; a round at the pace of the whole. */
		t_pace = c_eff * pipes / pace_Bps;
		if (ft__model_forced_fill(l, a, p)) {
			sum = forced_fill_sum(l, a, p, c, stages, out->nchannels, c_eff * pipes,
			                      t_pace);
		} else if ((a == FT_ALGO_NVLS_TREE || a == FT_ALGO_TREE) &&
		           c->stage_intra_Bps > 0 && c->stage_inter_Bps > 0) {
			/* The stages inside a node at its rate (NVLS's two, or the tree's
			 * longest chain up and down), the hops between nodes at the network's. */
			double inside = a == FT_ALGO_TREE ? 2.0 * (tree_chain(l) - 1) : 2.0;
			double net;
			int rc = fill_net_s(l, a, out->loops, c_eff * pipes, &net);

			if (rc < 0)
				return rc;
			sum = inside * c_eff * pipes / c->stage_intra_Bps +
			      (net > 0 ? net : (stages - inside) * c_eff * pipes / c->stage_inter_Bps);
		} else if (a == FT_ALGO_COLLNET && !chain && c->stage_intra_Bps > 0 &&
		           c->stage_inter_Bps > 0) {
			/* the rounds of every loop, less the loops at the pace */
			double rounds = collnet_rounds_s(l, c, out->loops, t_pace);

			sum = t_pace + FT_MAX(0.0, rounds - (double)out->loops * t_pace);
		} else {
			sum = stages * t_pace;
		}
		out->ramp_s = FT_MAX(0.0, sum - t_pace);
		out->round_s = t_pace;
		out->fill_s = sum;
	}
	out->bw_share *= block_share;
	out->messages = proxy_messages(l, op, a, p, out->loops);
	out->proxy_s = out->messages * (NET_MSG_S + l->vm_msg_s);
	return 0;
}

double
ft__model_pipe_time(const struct ft__model_cost *c, double lat_factor, double bw_factor,
                    uint64_t bytes, const struct ft_model_pipeline *pl)
{
	double share = pl->bw_share > 0 ? pl->bw_share : 1.0;
	double gpu = c->lat_s * lat_factor + (double)bytes / (c->bw_Bps * bw_factor * share) +
	             pl->ramp_s;

	gpu = FT_MAX(gpu, pl->proxy_s);
	return FT_MAX(gpu, pl->launch_s);
}

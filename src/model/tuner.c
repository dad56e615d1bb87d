/* SPDX-License-Identifier: MIT */
/*
 * model/tuner.c - latency and bandwidth of each (operation, algorithm,
 * protocol) on a set of link classes: NCCL's tuner model.
 *
 * Constants are NCCL's (kb NA-MODEL and NA-PROTO-*, which copy them from
 * NVIDIA/nccl src/graph/tuning.cc at commit 5067397c, v2.30.7). Where NCCL
 * has no model (halving-doubling, hierarchical all-reduce, all-to-all) the
 * cost is the alpha-beta form of the schedule in coll/schedule.c with the
 * same per-hop latencies. docs/internals/model.md lists every formula.
 */
#include "model_int.h"

#define GB 1e9
#define US 1e-6

/* kb NA-PROTO-LL llMaxBws, GB/s: one node by GPU generation. */
static const double ll_max_1node[FT_ARCH_COUNT] = { 39.0, 87.7, 141.0, 282.0 };
/* kb NA-PROTO-LL llMaxBws, GB/s: several nodes (2 nodes, > 2 nodes), Intel or other hosts,
 * then AMD's (and from v2.24.3-1 on hosts of mixed vendors'; src/graph/tuning.cc index1). */
static const double ll_max_multi[2][2] = { { 39.0, 20.4 }, { 22.5, 19.0 } };
/* NCCL_TOPO_CPU_VENDOR_MIXED's first release (src/graph/tuning.cc, v2.24.3-1). */
#define MIXED_FROM 22400
/* kb NA-PROTO-LL128 perChMaxRingLL128Bws, GB/s per channel. */
static const double ring_ll128_per_ch[FT_ARCH_COUNT] = { 20.0, 20.0, 36.7, 40.0 };
/* kb NA-PROTO-LL128 perChMaxTreeLL128Bws, GB/s per channel, [1 node, 2 nodes, > 2 nodes]. */
static const double tree_ll128_per_ch[FT_ARCH_COUNT][3] = {
	{ 20.0, 20.0, 20.0 },
	{ 20.0, 20.0, 20.0 },
	{ 36.7, 36.7, 29.0 },
	{ 55.6, 31.67, 20.0 },
};
/* kb NA-MODEL perChMaxTreeBws, GB/s per channel, [1 node, 2 nodes, > 2 nodes]. */
static const double tree_per_ch[FT_ARCH_COUNT][3] = {
	{ 26.5, 18.5, 10.0 },
	{ 24.0, 23.6, 17.8 },
	{ 38.7, 41.4, 36.0 },
	{ 70.0, 42.8, 24.0 },
};
/* kb NA-ALGO-NVLS perChMaxNVLSTreeBws, GB/s per channel, [2 nodes, > 2 nodes] (none before
 * Hopper: NVLS needs NVLink SHARP). */
static const double nvls_tree_per_ch[FT_ARCH_COUNT][2] = {
	{ 0, 0 },
	{ 0, 0 },
	{ 57.7, 45.5 },
	{ 96.0, 80.0 },
};
/* kb NA-ALGO-NVLS nvlsEfficiency. */
static const double nvls_eff[FT_ARCH_COUNT] = { 0.0, 0.0, 0.85, 0.74 };

double
ft__model_nvls_eff(enum ft_model_arch arch)
{
	return nvls_eff[arch];
}
/*
 * kb NA-MODEL tree correction factors, index log2(bytes/64), rows in enum ft_proto order:
 * NCCL's treeCorrectionFactor (src/graph/tuning.cc), 64 B to 512 MiB, 24 columns from
 * v2.29.2-1 (23, to 256 MiB, in v2.28.9-1 and before; the columns they share are equal).
 */
static const double tree_corr[FT_PROTO_COUNT][24] = {
	[FT_PROTO_SIMPLE] = { .9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
	                      .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9 },
	[FT_PROTO_LL] = { 1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6,  .5,
	                  .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0 },
	[FT_PROTO_LL128] = { 1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6,  .6,
	                     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0, 1.0 },
};
/*
 * Latency constants of the NCCL releases before the kb's (2.28 and later: the
 * tables of coll/names.c, kb NA-MODEL), where they differ: Simple protocol
 * only (LL and LL128 are the same in all), from NVIDIA/nccl
 * src/graph/tuning.cc at tags v2.18.6-1, v2.19.4-1, v2.21.5-1 and v2.23.4-1
 * (baseLat and hwLat; the ring's are the same in all). From one entry's
 * version up to the next's. Until 2.22 the ring all-reduce's latency also
 * counted 2 x nNodes of its 2(n - 1) steps as network steps (nInterSteps;
 * 2 x (nNodes - 1) from v2.23.4-1 on).
 */
struct lat_set {
	uint32_t from;      /* first release: major x 10000 + minor x 100 */
	double tree_base;   /* baseLat Tree Simple, us */
	double nvls_base;   /* baseLat NVLS and NVLSTree Simple, us */
	double hw[3][4];    /* hwLat [NVLINK, PCI, NET][Tree, CollNetDirect, NVLS, NVLSTree] Simple */
	bool ring_inter_2n; /* a ring all-reduce counts 2 x nNodes network steps, not 2 x (nNodes - 1) */
	double chain_hw[3]; /* hwLat [NVLINK, PCI, NET][CollNetChain] Simple */
};

static const struct lat_set lat_sets[] = {
	{ 21800, 0.0, 23.0, { { 4.0, 8.0, 0, 0 }, { 6.0, 8.0, 0, 0 }, { 14.0, 10.7, 18.0, 19.0 } }, true,
	  { 4.75, 8.0, 14.0 } },
	{ 21900, 0.0, 0.0, { { 28.0, 3.7, 23.0, 23.0 }, { 28.0, 3.7, 0, 0 }, { 28.0, 31.0, 18.0, 14.0 } },
	  true, { 2.8, 2.8, 30.0 } },
	{ 22100, 0.0, 0.0, { { 28.0, 3.7, 25.0, 25.0 }, { 28.0, 3.7, 0, 0 }, { 28.0, 31.0, 18.0, 14.0 } },
	  true, { 2.8, 2.8, 30.0 } },
	{ 22300, 8.4, 0.0, { { 4.0, 3.7, 25.0, 25.0 }, { 4.0, 3.7, 0, 0 }, { 14.0, 31.0, 18.0, 14.0 } },
	  false, { 2.8, 2.8, 30.0 } },
};

#define LAT_SETS_END 22800 /* from here on: the kb's constants */
#define NVLS_TREE_NET_LAT_FROM 22809 /* v2.28.9-1: NET NVLSTree Simple 20.9 us (14 before) */
#define NVLS_TREE_NET_LAT_2_28 14.0

static const struct lat_set *
lat_set_of(const struct ft_model_links *l)
{
	const struct lat_set *set = NULL;
	size_t i;

	if (l->nccl_version == 0 || l->nccl_version >= LAT_SETS_END)
		return NULL;
	for (i = 0; i < FT_ARRAY_SIZE(lat_sets); i++)
		if (l->nccl_version >= lat_sets[i].from)
			set = &lat_sets[i];
	return set;
}

static int
lat_set_column(enum ft_algo a)
{
	switch (a) {
	case FT_ALGO_TREE:
		return 0;
	case FT_ALGO_COLLNET:
		return 1;
	case FT_ALGO_NVLS:
		return 2;
	case FT_ALGO_NVLS_TREE:
		return 3;
	default:
		return -1;
	}
}

/* baseLat of (a, p) for @l's NCCL version. */
static double
base_lat(const struct ft_model_links *l, enum ft_algo a, enum ft_proto p)
{
	const struct lat_set *set = lat_set_of(l);

	if (set && p == FT_PROTO_SIMPLE && a == FT_ALGO_TREE)
		return set->tree_base * US;
	if (set && (a == FT_ALGO_NVLS || a == FT_ALGO_NVLS_TREE))
		return set->nvls_base * US;
	return ft_coll_base_latency(a, p);
}

/* hwLat of (link, a, p) for @l's NCCL version. */
static double
hw_lat(const struct ft_model_links *l, enum ft_hw_link link, enum ft_algo a, enum ft_proto p)
{
	const struct lat_set *set = lat_set_of(l);
	int col = lat_set_column(a);

	if (set && col >= 0 && p == FT_PROTO_SIMPLE && (unsigned)link < 3)
		return set->hw[link][col] * US;
	/* The NVLS tree's network step: 14 us, as before 2.28, until v2.28.7-1; 20.9 (the kb's)
	 * from v2.28.9-1 (src/graph/tuning.cc, hwLatencies NET NVLSTree Simple, at the tags). */
	if (link == FT_HW_NET && a == FT_ALGO_NVLS_TREE && p == FT_PROTO_SIMPLE &&
	    l->nccl_version >= LAT_SETS_END && l->nccl_version < NVLS_TREE_NET_LAT_FROM)
		return NVLS_TREE_NET_LAT_2_28 * US;
	return ft_coll_hw_latency(link, a, p);
}

/*
 * Bandwidth constants of the releases before the kb's (2.28 and later), where
 * they differ, from NVIDIA/nccl src/graph/tuning.cc at the release tags
 * (v2.18.6-1, v2.19.4-1, v2.20.3-1, v2.21.5-1, v2.22.3-1, v2.23.4-1,
 * v2.25.1-1, v2.27.7-1; kb NA-PROTO-LL, NA-PROTO-LL128, NA-MODEL): the LL cap
 * on one node (Hopper's rose from 87.7 to 141 GB/s in 2.21), the LL128 ring
 * efficiency with one GPU per node (0.7 until 2.22, then 0.92 as for the
 * rest), the LL ring's share of the graph (until 2.20: 1/4 for all-reduce,
 * reduce and every operation across nodes, 1/3 for the others on one node;
 * 1/2 from v2.21.5-1 on), and the per-channel caps of Blackwell, which had no row of its own
 * before 2.25 (it took Hopper's) and twice Hopper's in 2.25-2.27. From one
 * entry's version up to the next's; the multi-node LL caps of Intel hosts
 * (39, 20.4) and Hopper's per-channel caps are the same in all.
 */
enum bw_blackwell { BW_KB, BW_AS_HOPPER, BW_TWICE_HOPPER };

struct bw_set {
	uint32_t from;
	double ll_1node[FT_ARCH_COUNT]; /* llMaxBws, one node, GB/s */
	double ring_ll128_ppn1;         /* Ring LL128 busBw factor with one GPU per node */
	bool ring_ll_by_op;             /* Ring LL busBw factor 1/4 or 1/3 by operation, not 1/2 */
	enum bw_blackwell blackwell;
};

static const struct bw_set bw_sets[] = {
	{ 21800, { 39.0, 87.7, 87.7, 87.7 }, 0.7, true, BW_AS_HOPPER },
	{ 22100, { 39.0, 87.7, 141.0, 141.0 }, 0.7, false, BW_AS_HOPPER },
	{ 22300, { 39.0, 87.7, 141.0, 141.0 }, 0.92, false, BW_AS_HOPPER },
	{ 22500, { 39.0, 87.7, 141.0, 282.0 }, 0.92, false, BW_TWICE_HOPPER },
};

static const struct bw_set *
bw_set_of(const struct ft_model_links *l)
{
	const struct bw_set *set = NULL;
	size_t i;

	if (l->nccl_version == 0 || l->nccl_version >= LAT_SETS_END)
		return NULL;
	for (i = 0; i < FT_ARRAY_SIZE(bw_sets); i++)
		if (l->nccl_version >= bw_sets[i].from)
			set = &bw_sets[i];
	return set;
}

/* The GPU generation whose per-channel caps @l's release applies, and their multiplier. */
static enum ft_model_arch
cap_arch(const struct ft_model_links *l, double *mult)
{
	const struct bw_set *set = bw_set_of(l);

	*mult = 1.0;
	if (!set || l->arch != FT_ARCH_BLACKWELL || set->blackwell == BW_KB)
		return l->arch;
	if (set->blackwell == BW_TWICE_HOPPER)
		*mult = 2.0;
	return FT_ARCH_HOPPER;
}

/*
 * Blackwell's figures NCCL 2.28 and 2.29 set apart from the kb's (v2.30.7-1's), read in
 * ncclTunerConstantsDefaults (src/graph/tuning.cc) at v2.28.3-1, v2.28.7-1, v2.28.9-1,
 * v2.29.2-1, v2.29.3-1, v2.29.7-1 and v2.30.3-1: the ring's LL128 cap a channel
 * (perChMaxRingLL128Bws), twice Hopper's 36.7 still in 2.28.3, 34.6 on 2 nodes from 2.28.7,
 * 34.5 on 1 and > 2 nodes from 2.29.2, 40.0 on all from 2.29.7; the NVLS tree's cap a
 * channel beyond 2 nodes (perChMaxNVLSTreeBws), 43.1 until 2.28.7, 43.8 from 2.28.9, 80.0
 * from 2.30.3. A change is dated at the first tag that shows it. 2.25-2.27 are the bw_sets'
 * (twice Hopper's; NVLS trees there take no per-channel cap); from 2.30.3 the kb's
 * (NA-PROTO-LL128, NA-ALGO-NVLS).
 */
struct sm100_set {
	uint32_t from;
	double ring_ll128[3]; /* perChMaxRingLL128Bws, Blackwell, [1 node, 2, > 2], GB/s */
	double nvls_tree_n4;  /* perChMaxNVLSTreeBws, Blackwell, > 2 nodes, GB/s */
};

static const struct sm100_set sm100_sets[] = {
	{ 22800, { 2 * 36.7, 2 * 36.7, 2 * 36.7 }, 43.1 },
	{ 22807, { 2 * 36.7, 34.6, 2 * 36.7 }, 43.1 },
	{ 22809, { 2 * 36.7, 34.6, 2 * 36.7 }, 43.8 },
	{ 22902, { 34.5, 34.6, 34.5 }, 43.8 },
	{ 22907, { 40.0, 40.0, 40.0 }, 43.8 },
};
#define SM100_SETS_END 23003 /* v2.30.3-1: the kb's from here on */

static const struct sm100_set *
sm100_set_of(const struct ft_model_links *l)
{
	const struct sm100_set *set = NULL;
	size_t i;

	if (l->arch != FT_ARCH_BLACKWELL || l->nccl_version == 0 ||
	    l->nccl_version >= SM100_SETS_END)
		return NULL;
	for (i = 0; i < FT_ARRAY_SIZE(sm100_sets); i++)
		if (l->nccl_version >= sm100_sets[i].from)
			set = &sm100_sets[i];
	return set;
}

static uint32_t node_bucket(uint32_t nnodes);

/* NCCL's ring LL128 cap a channel for @l's GPUs, release and node count, GB/s. */
static double
ring_ll128_cap(const struct ft_model_links *l)
{
	const struct sm100_set *set = sm100_set_of(l);
	double m;
	enum ft_model_arch a;

	if (set)
		return set->ring_ll128[node_bucket(l->nnodes)];
	a = cap_arch(l, &m);
	return ring_ll128_per_ch[a] * m;
}

static double
tree_cap(const struct ft_model_links *l, uint32_t bucket, bool ll128)
{
	double m;
	enum ft_model_arch a = cap_arch(l, &m);

	return (ll128 ? tree_ll128_per_ch[a][bucket] : tree_per_ch[a][bucket]) * m;
}

/*
 * The channels NCCL's tuner multiplies its per-channel caps by (perChMaxRingLL128Bw,
 * perChMaxTreeBw, perChMaxTreeLL128Bw): graphs[a]->nChannels (src/graph/tuning.cc,
 * ncclTopoTuneModel, the same at v2.18.6-1, v2.21.5-1, v2.23.4-1, v2.27.7-1 and
 * v2.30.7-1), the ring graph as ncclTopoCompute left it, after ncclTopoDupChannels and
 * before ncclTopoPostset copies it (which changes comm->nChannels, never the graph's
 * count); init gives the tree graph the same count (src/init.cc). On NVSwitch nodes the
 * model has that graph (ft__model_node_channels()): 12 on one DGX H100, 8 on DGX H100s or
 * A100s joined by NICs. One GPU a node has that graph too (ft__model_net_channels(): the
 * channels its search packs on the GPU's NICs), nchannels being the communicator's, twice
 * it: the pick reads the graph's, the time the communicator's (one HDR NIC: 1 channel
 * priced, 2 run). Elsewhere nchannels (a forced count: NCCL_MIN/MAX_NCHANNELS, which
 * clears the graph's).
 *
 * A cap is what one channel of the kernel moves with the protocol; the kernel runs the
 * run-time channels, the graph's copied by Postset (16 on DGX H100s), each under it. So
 * the copy of the links that times a pick (time_run_channels) reads that count: the pick
 * is NCCL's, the time the kernel's. On 32 AWS p5 instances the all-gather's ring/LL128
 * measured 321 GB/s of bus bandwidth between 1 and 2 GiB, above the 8 x 36.7 = 293.6 its
 * tuner prices (docs/internals/model-log.md, "The channels of NVSwitch nodes joined by
 * NICs").
 */
static double
caps_nchannels(const struct ft_model_links *l)
{
	if (l->graph_nchannels && l->ppn == 1 && l->nnodes > 1 && l->domain_nodes <= 1)
		return l->time_run_channels ? l->nchannels : l->graph_nchannels;
	if (!l->graph_nchannels || !l->nvswitch || l->ppn < 2 || l->domain_nodes > 1)
		return l->nchannels;
	if (l->time_run_channels)
		return FT_MAX(ft_model_run_nchannels(l, FT_ALGO_RING), l->graph_nchannels);
	return FT_MIN(l->graph_nchannels, l->nchannels ? l->nchannels : l->graph_nchannels);
}

/* kb NA-MODEL: network post overhead per inter-node step, x3 for Simple: 2 us on AMD x86
 * hosts, 1 us on any other, mixed included (src/graph/tuning.cc getNetOverhead, the same at
 * v2.18.6-1 and v2.30.7-1). */
#define NET_OVERHEAD_S (1.0 * US)
#define NET_OVERHEAD_AMD_S (2.0 * US)

static double
net_overhead(const struct ft_model_links *l)
{
	return l->cpu_amd && !l->cpu_mixed && !l->time_any_vendor ? NET_OVERHEAD_AMD_S :
	                                                              NET_OVERHEAD_S;
}
/* kb NA-MODEL: CollNetDirect charges 0.4 us per local rank from 2.19; 0.5 before. */
#define COLLNET_PER_RANK_S (0.4 * US)
/* v2.18.6-1 charges 0.5 us a local rank (src/graph/tuning.cc), 0.4 from v2.19.1-1. */
#define COLLNET_PER_RANK_2_18_S (0.5 * US)
#define COLLNET_PER_RANK_FROM 21900

static uint32_t
node_bucket(uint32_t nnodes)
{
	return nnodes <= 1 ? 0 : nnodes == 2 ? 1 : 2;
}

/* The share of the graph's busBw NCCL's tuner gives a ring on LL before its cap. */
static double
ring_ll_share(const struct ft_model_links *l, enum ft_op op)
{
	const struct bw_set *set = bw_set_of(l);

	if (!set || !set->ring_ll_by_op)
		return 0.5;
	return l->nnodes > 1 || op == FT_OP_ALL_REDUCE || op == FT_OP_REDUCE ? 0.25 : 1.0 / 3.0;
}

/* NCCL's tuner takes its AMD row of llMaxBws: AMD hosts, or hosts of mixed vendors where
 * the release knows them (kb NA-PROTO-LL; src/graph/tuning.cc at v2.18.6-1 and v2.30.7-1). */
static bool
amd_row(const struct ft_model_links *l)
{
	if (l->time_any_vendor)
		return false;
	return l->cpu_amd ||
	       (l->cpu_mixed && (l->nccl_version == 0 || l->nccl_version >= MIXED_FROM));
}

static double
ll_max_Bps(const struct ft_model_links *l)
{
	const struct bw_set *set = bw_set_of(l);

	if (l->nnodes <= 1)
		return (set ? set->ll_1node[l->arch] : ll_max_1node[l->arch]) * GB;
	return ll_max_multi[amd_row(l) ? 1 : 0][l->nnodes == 2 ? 0 : 1] * GB;
}

static uint32_t
log2_floor(uint64_t v)
{
	uint32_t k = 0;

	while (v > 1) {
		v >>= 1;
		k++;
	}
	return k;
}

static bool
is_pow2(uint32_t n)
{
	return n && (n & (n - 1)) == 0;
}

/* NCCL's first release whose NVLS graph search across nodes the model follows
 * (ft__model_nvls_net_graph()): the second pass that raises bwInter alone for the NVLS
 * pattern is in src/graph/search.cc from v2.19.1-1 on ("pass 3" there, folded into pass 2
 * at v2.19.3-1 with the same condition); v2.18.6-1 raises bwIntra only. Versions are
 * encoded major x 10000 + minor x 100 + patch (2.19.1 = 21901). */
#define NVLS_NET_FROM 21900
/* NCCL_MAX_DIRECT_ARITY + 1 (src/include/device.h, 7 + 1 at v2.18.6-1 to v2.30.7-1): up to
 * v2.22.3-1 CollNet is off where a node has more local ranks (src/init.cc: "CollNet
 * currently only supports up to %d GPUs per node"); from v2.23.4-1 init.cc keeps CollNet on
 * and only skips CollNetDirect's buffers there (maxLocalRanks <= NCCL_MAX_DIRECT_ARITY + 1).
 * The first release without the refusal: */
#define COLLNET_MAX_LOCAL_RANKS 8u
#define COLLNET_ANY_LOCAL_RANKS_FROM 22300
/* The tuner skips NVLS on a graph of fewer than 2 channels from v2.28.3-1
 * (src/graph/tuning.cc, ncclTopoTuneModel: "NVLS/NVLStree needs at least 2 channels");
 * before, only a graph of none turns NVLS off (src/init.cc: nvlsSupport = 0). */
#define NVLS_TWO_CHANNELS_FROM 22800

/* NCCL's NVLS graph across nodes and the price its tuner makes of it (nvls_net_bw()). */
struct nvls_net_terms {
	double nch, bw_intra, bw_inter; /* the graph: channels, GB/s as bytes/s */
	double eff;                     /* nvlsEfficiency (0 before 2.28, which has none) */
	bool nvlink_binds;              /* bwIntra's term is the smaller */
};

static double nvls_net_bw(const struct ft_model_links *l, struct nvls_net_terms *t);

/* Why NVLS or NVLSTree (@a, its name) does not run on nodes of 2 GPUs with NCCL 2.18.1 to
 * 2.28.3: its setup returns before NVLS is on where the node has 2 GPUs or fewer
 * (src/transport/nvls.cc, ncclNvlsInit(); ft__model_nvls_min_gpus()). */
#define NVLS_2GPUS_OFF(a) \
	a " needs more than 2 GPUs per node with NCCL 2.18 to 2.28.3 (NCCL's NVLS setup)"
#define NVLS_NODES_OFF(a) a " is off across nodes with NCCL 2.20 (NCCL's NVLS setup)"

/*
 * Why NCCL would not run NVLS across the nodes of @l (NULL: it does). Across nodes NCCL's
 * NVLS is NVLS with CollNet: the tuner disables NCCL_ALGO_NVLS when nNodes > 1 and CollNet
 * is off (src/graph/tuning.cc, ncclTopoTuneModel: collNetSupport == 0 up to v2.26.6-1,
 * config.collnetEnable == 0 from v2.27.3-1; kb NA-ALGO-NVLS, NA-ALGO-COLLNET), and CollNet
 * needs the network's in-network reduction (fabric.sharp: the SHARP plugin,
 * NCCL_COLLNET_ENABLE=1) and, before 2.23, at most 8 local ranks on every node
 * (src/init.cc). NVLS itself needs 2 GPUs or more on every node (src/transport/nvls.cc) and
 * its graph a channel, 2 from 2.28 (NVLS_TWO_CHANNELS_FROM). Not modelled: NVLink domains
 * across nodes, and nodes of different GPU counts (NCCL has no such refusal; the model's
 * one head a GPU with a NIC assumes every node alike). All-reduce only: NCCL prices NVLS
 * all-gather and reduce-scatter across nodes only where the CollNet plugin has
 * iallgather/ireducescatter, and the model does not.
 */
static const char *
nvls_net_unavailable(const struct ft_model_links *l, enum ft_op op)
{
	struct nvls_net_terms t;
	uint32_t v = l->nccl_version;

	if (op != FT_OP_ALL_REDUCE)
		return "nvls across nodes is modelled for all_reduce only";
	if (!l->sharp)
		return "nvls across nodes runs with CollNet: needs in-network reduction "
		       "(fabric.sharp)";
	if (l->domain_nodes > 1)
		return "nvls across NVLink domains is not modelled";
	if (l->ppn < 2 || l->ppn_min < 2)
		return "nvls needs at least 2 GPUs per node";
	if (!ft__model_nvls_gpus_ok(l))
		return NVLS_2GPUS_OFF("nvls");
	if (l->ppn_min != l->ppn_max)
		return "nvls across nodes of different GPU counts is not modelled";
	if (v && v < COLLNET_ANY_LOCAL_RANKS_FROM &&
	    (l->ppn_max > COLLNET_MAX_LOCAL_RANKS || l->ppn > COLLNET_MAX_LOCAL_RANKS))
		return "collnet runs on at most 8 GPUs per node before NCCL 2.23 "
		       "(NCCL turns it off above)";
	if (v && v < NVLS_NET_FROM)
		return "nvls across nodes is modelled from NCCL 2.19 on";
	if (!(nvls_net_bw(l, &t) > 0))
		return v && v < NVLS_TWO_CHANNELS_FROM ?
		               "nvls across nodes: NCCL's NVLS graph has no channel here" :
		               "nvls across nodes: NCCL's NVLS graph has fewer than 2 channels "
		               "here (NCCL 2.28 on skips it)";
	return NULL;
}

/*
 * LL128 across nodes on a C2C host before NCCL 2.27. NCCL enables LL128 by default only
 * where the graph's GPU-to-NIC path type (typeInter) is at most PATH_PXB, or PATH_PXN on
 * compute capability 9.0 and later (src/graph/tuning.cc, the protocol-enable loop of
 * ncclTopoTuneModel, the same from v2.18.5-1 to v2.26.6-1; kb NA-PROTO-LL128). On a Grace
 * host (GH200, GB200, GB300: links nic_c2c) the GPU reaches its NIC over C2C to the CPU and
 * the CPU's PCIe, which ncclTopoSetPaths (src/graph/paths.cc) types PATH_PHB: a PCIe link
 * from a CPU. v2.27.3-1 retypes that path PATH_P2C (paths.cc, "update the GPU -> NIC path
 * in the case of C2C + PHB") and enables LL128 up to it while NCCL_LL128_C2C (default 1)
 * holds. One node (or NVLink domain) is unaffected: where the ranks' NVLink domain holds
 * every rank, ncclTopoTrimSystem (src/graph/paths.cc) drops the GPUs outside it and sets
 * system->inter to 0, and ncclTopoCompute (src/graph/search.cc) then reads no GPU-to-NET
 * path and keeps typeInter at PATH_PIX (the NET nodes stay in the system, unused).
 * @l nccl_version 0 is 2.28+.
 */
static bool
ll128_off_c2c(const struct ft_model_links *l)
{
	return l->nic_c2c && l->nnodes > 1 && l->nccl_version && l->nccl_version < 22700;
}

const char *
ft__model_unavailable(const struct ft_model_links *l, enum ft_op op, enum ft_algo a,
                      enum ft_proto p, bool algo_forced, bool proto_forced)
{
	if (a == FT_ALGO_PAT) {
		/* kb NA-ALGO-PAT: all-gather and reduce-scatter, Simple, one GPU per node. */
		if (op != FT_OP_ALL_GATHER && op != FT_OP_REDUCE_SCATTER)
			return "pat is for all_gather and reduce_scatter";
		if (p != FT_PROTO_SIMPLE)
			return "pat is modelled for the simple protocol only";
		if (l->ppn != 1 || l->ppn_max > 1)
			return "pat needs one GPU per node";
		if (l->nccl_version && l->nccl_version < FT_MODEL_PAT_FROM)
			return "pat needs NCCL 2.23 or later";
		return NULL;
	}
	if (!ft_coll_supports(op, a, p))
		return "this operation has no such algorithm and protocol";
	if (a == FT_ALGO_NVLS) {
		const char *why;

		if (!l->nvls)
			return "nvls needs NVSwitch with NVLink SHARP (Hopper or later)";
		why = l->nnodes > 1 ? nvls_net_unavailable(l, op) : NULL; /* one graph search */
		if (why)
			return why;
		if (l->ppn < 2)
			return "nvls needs at least 2 GPUs";
		if (!ft__model_nvls_gpus_ok(l))
			return NVLS_2GPUS_OFF("nvls");
		if (ft__model_nvls_nodes_off(l))
			return NVLS_NODES_OFF("nvls");
	}
	if (a == FT_ALGO_NVLS_TREE) {
		if (!l->nvls)
			return "nvls_tree needs NVSwitch with NVLink SHARP (Hopper or later)";
		if (l->nnodes < 2)
			return "nvls_tree needs more than one node (NCCL disables it on one)";
		/* NCCL turns NVLS off where a node has one GPU (src/transport/nvls.cc) */
		if (l->ppn < 2 || l->ppn_min < 2)
			return "nvls_tree needs at least 2 GPUs per node";
		if (!ft__model_nvls_gpus_ok(l))
			return NVLS_2GPUS_OFF("nvls_tree");
		if (ft__model_nvls_nodes_off(l))
			return NVLS_NODES_OFF("nvls_tree");
	}
	if (a == FT_ALGO_COLLNET) {
		/* NCCL runs CollNetChain for all-reduce only (src/device/all_reduce.h) */
		if (l->collnet == FT_COLLNET_CHAIN && op != FT_OP_ALL_REDUCE)
			return "collnet_chain is for all_reduce only";
		if (!l->sharp)
			return l->collnet == FT_COLLNET_CHAIN ?
			               "collnet_chain needs in-network reduction (fabric.sharp)" :
			       l->collnet == FT_COLLNET_DIRECT ?
			               "collnet_direct needs in-network reduction (fabric.sharp)" :
			               "collnet needs in-network reduction (fabric.sharp)";
		if (l->nnodes < 2)
			return l->collnet == FT_COLLNET_CHAIN ?
			               "collnet_chain needs more than one node" :
			       l->collnet == FT_COLLNET_DIRECT ?
			               "collnet_direct needs more than one node" :
			               "collnet needs more than one node";
		/* NCCL maps CollNet ranks as node x localRanks and gives CollNet no
		 * bandwidth where a node has more ranks than heads (src/transport/
		 * coll_net.cc, src/graph/tuning.cc); not modelled on uneven nodes. */
		if (l->ppn_min != l->ppn_max)
			return "collnet needs the same GPUs on every node";
	}
	if (a == FT_ALGO_HALVING_DOUBLING && !is_pow2(l->nranks))
		return "halving_doubling needs a power-of-two rank count";
	/* NCCL's tuner has no halving-doubling or hierarchical all-reduce: force them. */
	if (!algo_forced && op != FT_OP_ALLTOALL &&
	    (a == FT_ALGO_HALVING_DOUBLING || a == FT_ALGO_HIERARCHICAL))
		return "not considered by NCCL's tuner";
	/* kb NA-PROTO-LL128: on by default only where the intra-node path is NVLink. */
	if (!proto_forced && p == FT_PROTO_LL128 && !l->nvlink)
		return "ll128 is off by default without NVLink";
	if (!proto_forced && p == FT_PROTO_LL128 && ll128_off_c2c(l))
		return "ll128 is off across nodes on C2C hosts before NCCL 2.27 (GPU-NIC path PHB)";
	/* docs/presets.md PS-TCPX: GPUDirect-TCPX/O moves Simple only; the platform's NCCL
	 * profile sets NCCL_PROTO=Simple, NCCL_ALGO=Ring,Tree and NCCL_NVLS_ENABLE=0. */
	if (l->tcpx && l->nnodes > 1) {
		if (!proto_forced && p != FT_PROTO_SIMPLE)
			return "gpudirect-tcpx/o carries the simple protocol only";
		if (!algo_forced && (a == FT_ALGO_NVLS || a == FT_ALGO_NVLS_TREE))
			return "nvlink sharp is off on gpudirect-tcpx/o hosts";
	}
	return NULL;
}

/* The ring/tree graph bandwidth of the job and what sets it (kb NA-MODEL busBw). */
static double
graph_Bps(const struct ft_model_links *l, char *what, size_t len)
{
	double inter = l->inter_Bps * l->ring_tier_factor;

	if (l->nnodes <= 1 || (l->ppn > 1 && l->intra_Bps < inter)) {
		ft_strlcpy(what, l->intra_what, len);
		return l->intra_Bps;
	}
	ft_strlcpy(what, l->ring_tier_factor < 1.0 ? "tier1" : l->nic_what, len);
	return inter;
}

/*
 * min(@bw, @limit); when the limit binds, it becomes the bottleneck: "protocol"
 * for LL's absolute cap, "channels" for a per-channel cap (more channels lift it).
 */
static double
cap(double bw, double limit, const char *what, struct ft__model_cost *c)
{
	if (limit < bw) {
		ft_strlcpy(c->bottleneck, what, sizeof(c->bottleneck));
		if (strcmp(what, "protocol") == 0)
			c->cap_ratio = limit / bw;
		return limit;
	}
	return bw;
}

struct lats {
	double intra, inter;
};

/* NCCL's graph latencyInter for @l (kb NA-MODEL): the network plugin's reported
 * latency where it gives one (spec nics.net_latency), else the fabric's. */
static double
inter_lat(const struct ft_model_links *l)
{
	return l->net_lat_s > 0 ? l->net_lat_s : l->fabric_lat_s;
}

/*
 * What a step between nodes pays on top of NCCL's per-hop network latency: the
 * topology's own latency, twice for Simple (flush): NCCL's graph latencyInter, the
 * latency the network plugin reports (aws-ofi-nccl: 75 us on p5, docs/presets.md
 * PS-EFA-NETLAT), else the fabric's switches and cables. The tuner prices the flush on
 * every Simple step (src/graph/tuning.cc, v2.27.7-1); the time of a pick pays it only
 * where NCCL flushes (links net_flush, src/graph/paths.cc ncclTopoNeedFlush). A step
 * across nodes is one network message: through a hypervisor it pays the host's extra
 * cost once (spec nics.vm_overhead). The one definition the model's costs and the
 * simulator's steps between nodes share (sim/nccl.c ft__sim_far_steps()).
 */
double
ft_model_net_step_s(const struct ft_model_links *l, enum ft_proto p)
{
	bool flush = p == FT_PROTO_SIMPLE && !(l->time_unflushed && !l->net_flush);

	return inter_lat(l) * (flush ? 2.0 : 1.0) + l->vm_msg_s;
}

/* The release's constants alone: what base_lat(), hw_lat() and lat_set_of() read. */
static struct ft_model_links
links_at(uint32_t nccl_version)
{
	struct ft_model_links l;

	memset(&l, 0, sizeof(l));
	l.nccl_version = nccl_version;
	return l;
}

double
ft_model_hw_latency(uint32_t nccl_version, enum ft_hw_link link, enum ft_algo a, enum ft_proto p)
{
	struct ft_model_links l = links_at(nccl_version);

	return hw_lat(&l, link, a, p);
}

double
ft_model_base_latency(uint32_t nccl_version, enum ft_algo a, enum ft_proto p)
{
	struct ft_model_links l = links_at(nccl_version);

	return base_lat(&l, a, p);
}

bool
ft_model_ring_inter_2n(uint32_t nccl_version)
{
	struct ft_model_links l = links_at(nccl_version);

	return lat_set_of(&l) && lat_set_of(&l)->ring_inter_2n;
}

/* The first release whose tuner reads Tree's hwLat[NET] row for every algorithm where
 * nRanks == nNodes (src/graph/tuning.cc, ncclTopoTuneModel(): not at v2.22.3-1, there at
 * v2.23.4-1 and v2.27.7-1; kb NA-MODEL hwLatencies). */
#define NET_ROW_TREE_PPN1_FROM 22300

/*
 * Whether a step between nodes of @op by @a pays Tree's hwLat[NET] row in place of its own:
 * NCCL's interLat, which from NET_ROW_TREE_PPN1_FROM its tuner takes from Tree's row for
 * every algorithm where nRanks == nNodes (@one_rank_a_node; ring, tree, CollNetDirect,
 * CollNetChain, NVLS, NVLS tree and PAT alike). A ring's broadcast and reduce do not take
 * interLat (their per-hop lat is hwLat[NET][RING][p], Tree's row for Simple where the
 * channels differ, which the model's chain leaves out). The model's own halving/doubling,
 * direct and hierarchical costs, which NCCL's tuner does not time, keep their rows.
 */
static bool
tree_net_row(const struct ft_model_links *l, enum ft_op op, enum ft_algo a, bool one_rank_a_node)
{
	if (!one_rank_a_node || (l->nccl_version != 0 && l->nccl_version < NET_ROW_TREE_PPN1_FROM))
		return false;
	if (a == FT_ALGO_RING)
		return op != FT_OP_BROADCAST && op != FT_OP_REDUCE;
	return a == FT_ALGO_TREE || a == FT_ALGO_COLLNET || a == FT_ALGO_NVLS ||
	       a == FT_ALGO_NVLS_TREE || a == FT_ALGO_PAT;
}

static double
net_hop_lat(const struct ft_model_links *l, enum ft_op op, enum ft_algo a, enum ft_proto p,
            bool one_rank_a_node)
{
	return hw_lat(l, FT_HW_NET, tree_net_row(l, op, a, one_rank_a_node) ? FT_ALGO_TREE : a, p);
}

double
ft_model_net_hop_latency(uint32_t nccl_version, enum ft_op op, enum ft_algo a, enum ft_proto p,
                         bool one_rank_a_node)
{
	struct ft_model_links l = links_at(nccl_version);

	return net_hop_lat(&l, op, a, p, one_rank_a_node);
}

/* Per-hop latencies of @a with @p in @op (kb NA-MODEL hwLatencies and "Other constants"). */
static struct lats
hop_lats_of(const struct ft_model_links *l, enum ft_op op, enum ft_algo a, enum ft_proto p)
{
	struct lats h;

	h.intra = hw_lat(l, l->nvlink ? FT_HW_NVLINK : FT_HW_PCI, a, p);
	h.inter = net_hop_lat(l, op, a, p, l->nranks == l->nnodes) + ft_model_net_step_s(l, p);
	return h;
}

static struct lats
hop_lats(const struct ft_model_links *l, enum ft_algo a, enum ft_proto p)
{
	return hop_lats_of(l, FT_OP_ALL_REDUCE, a, p);
}

/*
 * @h with a ring's intra-node step floored at the network post overhead (1 us, x3 for
 * Simple) when the ring crosses nodes: each step inside a node waits for a network post
 * further along the ring. NCCL's tuner applies it to the ring's all-reduce, all-gather
 * and reduce-scatter only, not to ring broadcast/reduce nor to Tree, CollNet, NVLS or
 * PAT (src/graph/tuning.cc, ncclTopoTuneModel, getNetOverhead, v2.18.5-1 and v2.27.7-1;
 * kb NA-MODEL "Other constants"). The halving/doubling, hierarchical and all-to-all
 * costs, which NCCL's tuner does not time, keep the ring's rule.
 */
double
ft_model_ring_intra_floor_s(const struct ft_model_links *l, enum ft_proto p)
{
	return l->nnodes > 1 ? net_overhead(l) * (p == FT_PROTO_SIMPLE ? 3.0 : 1.0) : 0;
}

static struct lats
ring_floor(const struct ft_model_links *l, enum ft_proto p, struct lats h)
{
	h.intra = FT_MAX(h.intra, ft_model_ring_intra_floor_s(l, p));
	return h;
}

/*
 * The hops between nodes of the longest chain of a ring broadcast or reduce of @op on
 * the first @nch channels NCCL launches (ft__model_launched_channels(); 0: all). Every
 * channel's chain follows the channel's ring for nranks - 1 hops (NVIDIA/nccl v2.27.7-1
 * src/device/broadcast.h runRing(): from the root, the rank whose ring successor is the
 * root only receiving; reduce.h runRing(): from the root's successor, ending at the root;
 * v2.21.5-1 and v2.29.7-1 alike), and a node's ring enters at its intra[0] and leaves at
 * its intra[last] (src/graph/connect.cc ncclTopoPreset(), connectRings()). So the broadcast
 * skips the ring's hop into the root, a crossing where the root is where the channel's ring
 * enters its node, and the reduce the hop out of the root, a crossing where the root is
 * where the ring leaves it: N - 1 hops between nodes there, else N. The search tries
 * channel 0's ring from GPU 0 first (src/graph/search.cc ncclTopoSearchRecNet(): the PCI
 * order on a host without NVSwitch, else NIC 0's localGpu, GPU 0's own NIC), so channel 0
 * enters the root's node (root 0, nccl-tests' default) at the root and leaves it elsewhere
 * with several GPUs a node: its broadcast crosses N - 1 times, its reduce N. A later channel
 * first replays the last channel's GPU order on the next NIC of the list,
 * nets[(c + i) % netCount] (FORCED_ORDER_REPLAY from ncclTopoReplayGetGpu(graph, -1): the
 * same first GPU, while the search keeps sameChannels). With one NIC on the root's node
 * (l->root_rails, or l->nrails where the nodes are of one kind, 1) every channel is on that
 * NIC: the replay enters at the root, and where the NIC holds one channel only the others
 * are its copies (ncclTopoDupChannels(), ncclTopoPostset()), entering there too; so every
 * launched channel's broadcast crosses N - 1 times; so too where the root's GPU drives
 * every NIC of its node (l->root_nics_own: the replay's path from the root to each NIC is
 * its own, as good as channel 0's). Only the root's node counts: each node
 * keeps its own search's GPU orders (src/init.cc initTransportsRank() takes the least
 * channel count of all ranks, not their orders), so a root's node of several NICs beside
 * nodes of one has channel 1 enter elsewhere (the least of the groups' nrails is 1). With
 * several NICs the replay fails where a GPU reaches another GPU's NIC only on a slower
 * path (a NIC per GPU, or per pair, behind its own PCIe switch), and the search drops
 * sameChannels and starts channel c at its NIC's localGpu: channel 1 enters elsewhere, so
 * with two channels launched or more some channel's broadcast crosses N times, and the op
 * lasts as long as that channel (the packet engine's rings, sim/nccl.c channel_perm(), the
 * same). A reduce crosses N - 1 times only where every launched channel leaves the root's
 * node at the root: with one GPU a node, where every ring enters and leaves at the root;
 * with several, channel 0 leaves elsewhere, N. NCCL's tuner counts no crossing for these
 * ops (nInterSteps = nNodes at v2.18.6-1 and v2.21.5-1 but unused there,
 * src/graph/tuning.cc ncclTopoTuneModel(): it charges them base + lat where the channels
 * are alike, else nsteps x lat of the NET row, never interLat).
 */
uint32_t
ft__model_chain_net_hops(const struct ft_model_links *l, enum ft_op op, uint32_t nch)
{
	if (l->nnodes <= 1)
		return 0;
	if (l->nranks <= l->nnodes)
		return l->nnodes - 1;
	if (op == FT_OP_BROADCAST &&
	    (nch == 1 || (l->root_rails ? l->root_rails : l->nrails) <= 1 || l->root_nics_own))
		return l->nnodes - 1;
	return l->nnodes;
}

/*
 * The hops between nodes of a ring broadcast's or reduce's chain that cost_ring() prices on
 * @nch launched channels: the kernel's (ft__model_chain_net_hops()) in the time's cost
 * (l->time_run_channels); in the pick's, N where only one NIC a node brings every channel's
 * broadcast to N - 1. NCCL's tuner counts no crossing for these ops (above), so where its
 * channels enter a node moves none of its picks, nor the model's (with the kernel's count
 * in the price a broadcast of 1 MiB on two 4-GPU nodes of one NIC would go from LL to
 * Simple); the time takes the crossings the kernel makes.
 */
static uint32_t
priced_chain_hops(const struct ft_model_links *l, enum ft_op op, uint32_t nch)
{
	uint32_t x = ft__model_chain_net_hops(l, op, nch);

	if (!l->time_run_channels && op == FT_OP_BROADCAST && nch > 1 && l->nnodes > 1 &&
	    l->nranks > l->nnodes)
		return l->nnodes;
	return x;
}

static void
cost_ring(const struct ft_model_links *l, enum ft_op op, enum ft_proto p, uint64_t bytes,
          struct ft__model_cost *c)
{
	double n = l->nranks, N = l->nnodes,
	       bus = graph_Bps(l, c->bottleneck, sizeof(c->bottleneck));
	double nsteps, ninter, ratio;
	struct lats h = hop_lats_of(l, op, FT_ALGO_RING, p);

	if (p == FT_PROTO_LL)
		bus = cap(bus * ring_ll_share(l, op), ll_max_Bps(l), "protocol", c);
	else if (p == FT_PROTO_LL128)
		bus = cap(bus * (l->ppn < 2 && bw_set_of(l) ? bw_set_of(l)->ring_ll128_ppn1 : 0.92),
		          caps_nchannels(l) * ring_ll128_cap(l) * GB, "channels",
		          c);
	switch (op) {
	case FT_OP_ALL_REDUCE:
		nsteps = 2 * (n - 1);
		h = ring_floor(l, p, h);
		ninter = N > 1 && ft_model_ring_inter_2n(l->nccl_version) ? 2 * N : 2 * (N - 1);
		ratio = n / nsteps;
		break;
	case FT_OP_ALL_GATHER:
	case FT_OP_REDUCE_SCATTER:
		nsteps = n - 1;
		ninter = N - 1;
		h = ring_floor(l, p, h);
		ratio = n / nsteps;
		break;
	default:
		/* Broadcast, reduce: a pipelined chain, nsteps = n (kb NA-MODEL). NCCL's tuner
		 * charges one hop when all channels are alike; the first chunk still crosses
		 * every hop of the chain before the last rank has it, n - 1 of them, the
		 * longest launched channel's ft__model_chain_net_hops() between nodes (kb
		 * NA-MODEL "else base + nsteps·lat"), the pick's as priced_chain_hops() says. */
		ninter = priced_chain_hops(l, op,
		                           ft__model_launched_channels(l, FT_ALGO_RING, p, bytes));
		c->bw_Bps = bus;
		c->lat_s = base_lat(l, FT_ALGO_RING, p) + (n - 1 - ninter) * h.intra +
		           ninter * h.inter;
		return;
	}
	c->bw_Bps = bus * ratio;
	c->lat_s = base_lat(l, FT_ALGO_RING, p) + (nsteps - ninter) * h.intra +
	           ninter * h.inter;
}

/* A tree's busBw from the graph's @bus on @nch channels: NCCL's refinements per protocol
 * (kb NA-MODEL). */
static double
tree_bus(const struct ft_model_links *l, enum ft_proto p, double bus, double nch,
         struct ft__model_cost *c)
{
	uint32_t b = node_bucket(l->nnodes);

	bus = cap(bus * ft_model_tree_efficiency(), nch * tree_cap(l, b, false) * GB, "channels", c);
	if (p == FT_PROTO_LL)
		bus = cap(bus / 3.8, ll_max_Bps(l), "protocol", c);
	else if (p == FT_PROTO_LL128)
		bus = cap(bus * (l->nnodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
		          nch * tree_cap(l, b, true) * GB, "channels", c);
	/* Inside one node the tree is a plain chain (kb NA-MODEL: x0.85 for the plain pattern). */
	if (l->nnodes == 1)
		bus *= 0.85;
	return bus;
}

/*
 * On 2 nodes NCCL's tuner reads the tree graph's bwIntra (src/graph/tuning.cc: bwIntra
 * when nNodes <= 2, at v2.18.1-1 to v2.28.3-1), which its search raises above the NIC's
 * speed while NVLink holds it (ft__model_tree_net_graph_Bps()): what it prices is the
 * tree's two-node effect, a node sending S once each way. 0 where that graph is not the
 * one of NVLink nodes on NICs (one GPU a node, PCIe, NVLink domains).
 */
static double
tree_net_graph_Bps(const struct ft_model_links *l, uint32_t *nch)
{
	uint32_t nics;
	double nic = ft__model_nic_as_nccl_sees(l, &nics), graph;

	*nch = 0;
	if (l->nnodes < 2 || l->ppn < 2 || !l->nvlink || l->nvlinks == 0 || l->domain_nodes)
		return 0;
	graph = ft__model_tree_net_graph_Bps(l->arch, l->nccl_version,
	                                     l->nvlinks * ft__model_nvlink_link_Bps_at(
	                                                      l->arch, l->nccl_version),
	                                     l->ppn, nics, nic, nch);
	/* --channels (NCCL_MIN/MAX_NCHANNELS) bounds the graph's channels too */
	if (*nch > l->nchannels) {
		graph *= (double)l->nchannels / *nch;
		*nch = l->nchannels;
	}
	return graph;
}

static double
tree_two_node_graph_Bps(const struct ft_model_links *l, uint32_t *nch)
{
	*nch = 0;
	return l->nnodes == 2 ? tree_net_graph_Bps(l, nch) : 0;
}

static void
cost_tree(const struct ft_model_links *l, enum ft_proto p, struct ft__model_cost *c)
{
	double bus = tree_bus(l, p, graph_Bps(l, c->bottleneck, sizeof(c->bottleneck)),
	                      caps_nchannels(l), c);
	uint32_t nch2;
	double graph2 = tree_two_node_graph_Bps(l, &nch2);
	struct lats h = hop_lats(l, FT_ALGO_TREE, p);

	c->bw_Bps = bus * 0.5;
	/* A hop of the chain inside the node moves at the NVLink (PCIe) graph's rate, a hop
	 * between nodes at the network's, both with the factors above (the ramp's stages). */
	if (l->nnodes > 1) {
		double inter = l->inter_Bps * l->ring_tier_factor;
		double scale = c->bw_Bps / FT_MIN(l->intra_Bps, inter);

		c->stage_intra_Bps = l->intra_Bps * scale;
		c->stage_inter_Bps = inter * scale;
	}
	/* The tuner's figure on 2 nodes: NCCL's own graph; the stages above stay the links'
	 * (the time of a picked tree, ft__model_carried()); its per-channel caps on NCCL's
	 * channels. */
	if (graph2 > 0) {
		struct ft__model_cost t = *c;

		c->links_bw_Bps = c->bw_Bps;
		c->bw_Bps = tree_bus(l, p, graph2, nch2, &t) * 0.5;
		c->cap_ratio = t.cap_ratio;
	}
	c->lat_s = base_lat(l, FT_ALGO_TREE, p) +
	           2.0 * ((l->ppn - 1) * h.intra + log2_floor(l->nnodes) * h.inter);
}

/*
 * The channels of NCCL's NVLS graph: one per GPU, each GPU heading one, up to
 * 32 (FT__MODEL_NVLS_MAX_HEADS). Every channel crosses every GPU's NVSwitch
 * link once and its head's twice (src/graph/search.cc, ncclTopoSearchTryNvls),
 * so a head's link carries nCh + 1 channels: links / (nCh + 1) each. In one
 * node (or NVLink domain) the search gives every channel one speed of its
 * Intra list (ncclTopoCompute, minChannels = maxChannels = heads), the
 * fastest that fits: 370.8 / 9 = 41.2 -> 40 GB/s on 8 H100s, 721.8 / 33 =
 * 21.9 -> 20 on the 32 heads of an NVL72 rack, 721.8 / 5 = 144 -> 90 on a
 * 4-GPU GB200 tray (the list's top). Across nodes the speed comes from the
 * Inter list and NCCL raises bwInter apart from bwIntra; left continuous.
 */
static double
nvls_graph(const struct ft_model_links *l, double ppn, double *per_ch)
{
	double nch = FT_MIN(ppn, (double)FT__MODEL_NVLS_MAX_HEADS), links, graph;

	*per_ch = l->intra_Bps / (nch + 1.0);
	if (l->nnodes > 1 || !l->nvlink || l->nvlinks == 0)
		return nch;
	/* the links at the release's per-link figure, less what lowered the ring graph */
	links = l->nvlinks * ft__model_nvlink_link_Bps_at(l->arch, l->nccl_version);
	graph = ft__model_ring_graph_Bps(l->arch, l->nccl_version, links);
	if (graph > 0 && l->intra_Bps < graph)
		links *= l->intra_Bps / graph;
	*per_ch = ft__model_nvls_channel_Bps(l->arch, l->nccl_version, links, nch);
	return nch;
}

/*
 * NVLS (kb NA-ALGO-NVLS): the tuner takes eff × (nCh-1)/nCh of the graph's
 * per-channel bandwidth, x2 for all-reduce. With nCh = ppn this is
 * intra × eff × 2(ppn-1)/(ppn+1): the (n-1)/(n+1) in-network busbw of kb
 * NA-BUSBW; over 32 GPUs, intra × eff × 2 × 31/33.
 */
static void
cost_nvls(const struct ft_model_links *l, enum ft_op op, struct ft__model_cost *c)
{
	double ppn = l->ppn, n = l->nranks, per_ch, bus, nsteps;
	double nch = nvls_graph(l, ppn, &per_ch);

	per_ch *= nvls_eff[l->arch] * (nch - 1) / nch;
	per_ch *= op == FT_OP_ALL_REDUCE ? 2.0 : (ppn - 1) / ppn;
	bus = per_ch * nch;
	nsteps = op == FT_OP_ALL_REDUCE ? 2 * (n - 1) : n - 1;
	c->bw_Bps = bus * n / nsteps;
	c->lat_s = base_lat(l, FT_ALGO_NVLS, FT_PROTO_SIMPLE) +
	           hw_lat(l, FT_HW_NVLINK, FT_ALGO_NVLS, FT_PROTO_SIMPLE);
	ft_strlcpy(c->bottleneck, "nvlink", sizeof(c->bottleneck));
}

double
ft_model_nvls_tree_channel_Bps(const struct ft_model_links *l)
{
	const struct sm100_set *set = sm100_set_of(l);

	if (set && l->nnodes > 2)
		return set->nvls_tree_n4 * GB;
	return l->arch < FT_ARCH_COUNT ? nvls_tree_per_ch[l->arch][l->nnodes <= 2 ? 0 : 1] * GB : 0;
}

double
ft_model_tree_channel_Bps(const struct ft_model_links *l, enum ft_proto p)
{
	uint32_t b = node_bucket(l->nnodes);
	double c = tree_cap(l, b, false) * GB;

	return p == FT_PROTO_LL128 ? FT_MIN(c, tree_cap(l, b, true) * GB) : c;
}

double
ft_model_tree_carried_factor(const struct ft_model_links *l, enum ft_algo a)
{
	if (a == FT_ALGO_TREE && l->nnodes == 2)
		return 2.0;
	if ((a == FT_ALGO_TREE || a == FT_ALGO_NVLS_TREE) && l->nnodes == 3)
		return 4.0 / 3.0;
	return 1.0;
}

/*
 * NCCL's tuner prices a PAT all-gather or reduce-scatter at nBytes, the whole output
 * (src/enqueue.cc ncclFuncMaxSendRecvCount()), over busBw: "Convert bus BW to algorithm
 * BW" is skipped for a non-ring all-gather or reduce-scatter (src/graph/tuning.cc
 * ncclTopoTuneModel(), read at v2.23.4-1, v2.24.3-1 and v2.27.7-1). Its kernel moves
 * (n - 1) / n of it a rank: each of the other n - 1 ranks' blocks of S / n is received
 * once, (rank + s) % nranks for s < nranks (src/include/collectives.h PatAGAlgorithm and
 * PatRSAlgorithm getNextOp(), run by src/device/all_gather.h and reduce_scatter.h
 * runPat...()), and a rank sends what the others receive, so its bandwidth term is
 * (n - 1) / n of the tuner's: n / (n - 1) faster (kb NA-ALGO-PAT; .75 or .85 of the
 * links, NCCL's measured share, stays).
 */
double
ft_model_pat_carried_factor(const struct ft_model_links *l, enum ft_op op)
{
	if ((op != FT_OP_ALL_GATHER && op != FT_OP_REDUCE_SCATTER) || l->nranks < 2)
		return 1.0;
	return l->nranks / (l->nranks - 1.0);
}

/*
 * How far the tree's carried bytes lift the per-channel cap, as ft__model_carried() lifts
 * it: the network stage by ft_model_tree_carried_factor(), the chain inside a node of
 * @l->ppn GPUs by ppn / (ppn - 1) of the capped figure scaled to the node's links (the
 * stage's rate where NVLink is the slower link class, more where the NICs are). So over 2
 * GB200 NVL72 domains, whose chains of 72 GPUs bind, the cap allows 72/71 of the tuner's
 * figure, not twice it.
 */
static double
tree_cap_factor(const struct ft_model_links *l, enum ft_algo a)
{
	double f = ft_model_tree_carried_factor(l, a), inter, chain;

	if (a != FT_ALGO_TREE || f == 1.0 || l->ppn < 2 || !(l->intra_Bps > 0))
		return f;
	inter = l->inter_Bps * l->ring_tier_factor;
	chain = l->ppn / (l->ppn - 1.0) *
	        (inter > 0 && inter < l->intra_Bps ? l->intra_Bps / inter : 1.0);
	return FT_MIN(f, chain);
}

double
ft_model_tree_cap_algbw(const struct ft_model_links *l, enum ft_algo a, enum ft_proto p)
{
	double n = l->nranks, bus;

	if (l->nnodes < 2 || n < 2)
		return 0;
	if (a == FT_ALGO_NVLS_TREE)
		/* one channel per GPU of a node, NCCL's ratio n / 2(n - 1) */
		bus = n / l->nnodes * ft_model_nvls_tree_channel_Bps(l) * n / (2.0 * (n - 1));
	else if (a == FT_ALGO_TREE)
		/* the tuner's x0.5 for a tree (src/graph/tuning.cc) */
		bus = l->nchannels * ft_model_tree_channel_Bps(l, p) * 0.5;
	else
		return 0;
	return bus * tree_cap_factor(l, a);
}

/*
 * NVLSTree as NCCL 2.19 to 2.27 price it (src/graph/tuning.cc at v2.19.4-1 to v2.27.7-1):
 * from the NVLS graph alone, nChannels x min(bwIntra, bwInter) on 2 nodes and
 * nChannels x min(bwIntra, bwInter / 2) on more, times 5/6 to algorithm bandwidth; the
 * nvlsEfficiency, the per-channel NVLSTree caps and the nRanks / nSteps conversion are
 * 2.28's. The graph is NCCL's NVLS search across nodes (ft__model_nvls_net_graph()): one
 * head per GPU with a NIC of its own, each NIC as NCCL sees it
 * (ft__model_nic_as_nccl_sees(): on p5 a GPU's four EFA cards are one device of their
 * summed speed). 2 x 8 H100 on 400G NICs: 8 x min(40, 48) x 5/6 = 266.7 GB/s where
 * 2.28 gives 8 x 57.7 x 16/30 = 246.2; on more nodes 8 x 24 x 5/6 = 160 against 182.
 */
static double
nvls_net_graph_of(const struct ft_model_links *l, double ppn, double *intra, double *inter)
{
	double heads = FT_MIN(FT_MIN(ppn, (double)FT_MAX(l->nrails, 1u)),
	                      (double)FT__MODEL_NVLS_MAX_HEADS);
	uint32_t nics;
	double nic = ft__model_nic_as_nccl_sees(l, &nics);
	double links = l->nvlinks * ft__model_nvlink_link_Bps_at(l->arch, l->nccl_version);

	return ft__model_nvls_net_graph(l->arch, l->nccl_version, links, heads, nic, intra,
	                                inter);
}

static void
nvls_tree_graph_bw(const struct ft_model_links *l, double ppn, struct ft__model_cost *c)
{
	double bw_intra, bw_inter, inter, nch;

	if (!l->nvlink || l->nvlinks == 0)
		return;
	nch = nvls_net_graph_of(l, ppn, &bw_intra, &bw_inter);
	if (nch < 1)
		return;
	inter = l->nnodes <= 2 ? bw_inter : bw_inter / 2.0;
	c->bw_Bps = nch * FT_MIN(bw_intra, inter) * 5.0 / 6.0;
	ft_strlcpy(c->bottleneck, bw_intra <= inter ? "nvlink" : l->nic_what,
	           sizeof(c->bottleneck));
}

/*
 * NCCL's NVLS all-reduce bandwidth across nodes, what its tuner stores in
 * bandwidths[ncclFuncAllReduce][NCCL_ALGO_NVLS][NCCL_PROTO_SIMPLE] (src/graph/tuning.cc,
 * ncclTopoTuneModel), bytes/s: 0 where NVLS does not run across nodes (CollNet off, as
 * without in-network reduction; the tuner zeroes a disabled algorithm's figures) or where
 * the NVLS graph has no channel (fewer than 2 from v2.28.3-1: NVLS_TWO_CHANNELS_FROM).
 * Otherwise from NCCL's NVLS graph across nodes (ft__model_nvls_net_graph()), its terms
 * into @t: v2.19.1-1 to v2.27.7-1 nChannels x min(bwIntra, bwInter)
 * x 5/6; from v2.28.3-1 nChannels x min(bwIntra x nvlsEfficiency x (nCh - 1)/nCh x 2,
 * bwInter) x nRanks / 2(nRanks - 1). NCCL reads it to cap the NVLS chunk (src/enqueue.cc
 * calcCollChunking, model/pipeline.c nvls_net_capped()). 2 x 8 H100 on 8 x 400G NICs:
 * 8 x min(40, 48) x 5/6 = 266.7 GB/s at 2.27, 8 x min(40 x 0.85 x 7/8 x 2, 48) x 16/30 =
 * 204.8 at 2.28; on 8 x 200G NICs (bwIntra = bwInter = 24), 160 and 102.4. kb NA-ALGO-NVLS
 * (multi-node NVLS needs CollNet; nvlsEfficiency).
 */
static double
nvls_net_bw(const struct ft_model_links *l, struct nvls_net_terms *t)
{
	double n = l->nranks, nch;
	uint32_t v = l->nccl_version;

	memset(t, 0, sizeof(*t));
	if (l->nnodes < 2 || !l->sharp || !l->nvls || !l->nvlink || l->nvlinks == 0 || n < 2)
		return 0;
	nch = nvls_net_graph_of(l, n / FT_MAX(l->nnodes, 1u), &t->bw_intra, &t->bw_inter);
	t->nch = nch;
	if (nch < (v && v < NVLS_TWO_CHANNELS_FROM ? 1 : 2))
		return 0;
	if (v && v < 22800) {
		t->nvlink_binds = t->bw_intra <= t->bw_inter;
		return nch * FT_MIN(t->bw_intra, t->bw_inter) * 5.0 / 6.0;
	}
	t->eff = nvls_eff[l->arch];
	t->nvlink_binds = t->bw_intra * t->eff * (nch - 1) / nch * 2.0 <= t->bw_inter;
	return nch * FT_MIN(t->bw_intra * t->eff * (nch - 1) / nch * 2.0, t->bw_inter) * n /
	       (2.0 * (n - 1));
}

uint32_t
ft__model_nvls_net_terms(const struct ft_model_links *l, double *bw_intra, double *bw_inter,
                         double *eff)
{
	struct nvls_net_terms t;

	*bw_intra = *bw_inter = *eff = 0;
	if (!(nvls_net_bw(l, &t) > 0))
		return 0;
	*bw_intra = t.bw_intra;
	*bw_inter = t.bw_inter;
	*eff = t.eff;
	return (uint32_t)t.nch;
}

double
ft__model_nvls_net_algbw(const struct ft_model_links *l)
{
	struct nvls_net_terms t;

	return nvls_net_bw(l, &t);
}

/*
 * NVLS across nodes, NVLS with CollNet (kb NA-ALGO-NVLS, NA-ALGO-COLLNET; NVIDIA/nccl
 * src/device/all_reduce.h, the NVLS all-reduce when not oneNode): inside each node an NVLS
 * reduce-scatter leaves every head GPU its share of each loop (1/heads), the head sends it
 * through its NIC to the switches (CollNet: SHARP reduces it across nodes), receives the
 * result and multicasts it back through NVLink SHARP, and the node's GPUs gather it. A node
 * moves S each way through its NICs, as CollNetDirect does. NCCL's tuner prices it from its
 * NVLS graph across nodes (nvls_net_bw(): 5/6 of nChannels x min(bwIntra, bwInter) at
 * v2.19.1-1 to v2.27.7-1; the 2.28 form with nvlsEfficiency, (nCh - 1)/nCh, the x2 of
 * all-reduce and nRanks / nSteps from v2.28.3-1), and its latency as intraLat + interLat
 * (src/graph/tuning.cc: the NVLS latency is set, not added to baseLat, from v2.19.1-1):
 * hwLat[NVLINK][NVLS] + hwLat[NET][NVLS] + latencyInter twice (the Simple flush).
 * 2 x 8 H100 on 8 x 400G: 204.8 GB/s at 2.28, 266.7 at 2.21; latency 25 + 18 + 2 x lat.
 */
static void
cost_nvls_net(const struct ft_model_links *l, struct ft__model_cost *c)
{
	struct nvls_net_terms t;
	struct lats h = hop_lats(l, FT_ALGO_NVLS, FT_PROTO_SIMPLE);

	c->bw_Bps = nvls_net_bw(l, &t);
	ft_strlcpy(c->bottleneck, t.nvlink_binds ? "nvlink" : l->nic_what, sizeof(c->bottleneck));
	c->lat_s = h.intra + h.inter;
}

/*
 * NVLSTree (kb NA-ALGO-NVLS): the NVLS bandwidth inside the node (as above),
 * limited by the network and by NCCL's per-channel NVLSTree cap (one channel
 * per GPU). With 2 nodes each node's tree is a single edge that carries its
 * shards both ways at once, so the network allows twice the rails' rate.
 */
static void
cost_nvls_tree(const struct ft_model_links *l, struct ft__model_cost *c)
{
	/* NCCL's ppn is nRanks / nNodes, a fraction on nodes of different GPU counts */
	double n = l->nranks, ppn = n / FT_MAX(l->nnodes, 1u), per_ch;
	double nch = nvls_graph(l, ppn, &per_ch);
	double intra = per_ch * nch * nvls_eff[l->arch] * (nch - 1) / nch * 2.0;
	double inter = l->inter_Bps * l->ring_tier_factor * (l->nnodes <= 2 ? 2.0 : 1.0);
	double bus = intra;
	struct lats h = hop_lats(l, FT_ALGO_NVLS_TREE, FT_PROTO_SIMPLE);

	ft_strlcpy(c->bottleneck, "nvlink", sizeof(c->bottleneck));
	if (inter < bus) {
		bus = inter;
		ft_strlcpy(c->bottleneck, l->ring_tier_factor < 1.0 ? "tier1" : l->nic_what,
		           sizeof(c->bottleneck));
	}
	bus = cap(bus, nch * ft_model_nvls_tree_channel_Bps(l), "channels", c);
	c->bw_Bps = bus * n / (2.0 * (n - 1));
	if (l->nccl_version >= 21900 && l->nccl_version < 22800)
		nvls_tree_graph_bw(l, ppn, c);
	/* The NVLS stages run inside one node: at what an NVLS all-reduce of its ppn GPUs
	 * alone reaches (cost_nvls()), not at the whole communicator's n / 2(n - 1). */
	c->stage_intra_Bps = ppn > 1 ? intra * ppn / (2.0 * (ppn - 1)) : intra;
	c->stage_inter_Bps = inter * n / (2.0 * (n - 1));
	c->lat_s = base_lat(l, FT_ALGO_NVLS_TREE, FT_PROTO_SIMPLE) +
	           hw_lat(l, FT_HW_NVLINK, FT_ALGO_NVLS_TREE, FT_PROTO_SIMPLE) +
	           2.0 * log2_floor(l->nnodes) * h.inter;
}

/*
 * PAT (kb NA-ALGO-PAT): busBw × the release's share (ft_model_pat_busbw_share(): .85 at
 * 2.23, .75 from 2.24), not converted to algorithm bandwidth (NCCL leaves non-ring
 * all-gather/reduce-scatter as they are); latency 8 us + floor(log2 nNodes) x NET / 3.5 +
 * 2.8 us x nRanks, coll's ft_coll_pat_lat_s() after the base (one rank a node: nNodes ==
 * nRanks), the term the simulator's phases share.
 */
static void
cost_pat(const struct ft_model_links *l, struct ft__model_cost *c)
{
	struct lats h = hop_lats(l, FT_ALGO_PAT, FT_PROTO_SIMPLE);

	c->bw_Bps = graph_Bps(l, c->bottleneck, sizeof(c->bottleneck)) *
	            ft_model_pat_busbw_share(l->nccl_version);
	c->lat_s =
	        base_lat(l, FT_ALGO_PAT, FT_PROTO_SIMPLE) + ft_coll_pat_lat_s(l->nranks, h.inter);
}

/* CollNetDirect's latency over @ppn ranks a node from its hops' @intra and @inter at @l's
 * release: 2 (min(1, ppn - 1) intraLat + arity x (ppn - 1)) + interLat, the arity 0.4 us
 * from v2.19.1-1 (read at v2.19.1-1, v2.21.5-1 and v2.27.7-1), 0.5 us at v2.18.6-1
 * (kb NA-MODEL; src/graph/tuning.cc ncclTopoTuneModel()). */
static double
collnet_direct_lat(const struct ft_model_links *l, double ppn, double intra, double inter)
{
	double arity = l->nccl_version != 0 && l->nccl_version < COLLNET_PER_RANK_FROM ?
	                       COLLNET_PER_RANK_2_18_S :
	                       COLLNET_PER_RANK_S;

	return 2.0 * (FT_MIN(1.0, ppn - 1) * intra + arity * (ppn - 1)) + inter;
}

double
ft_model_collnet_direct_hops_s(uint32_t nccl_version, uint32_t ppn, bool one_rank_a_node)
{
	struct ft_model_links l = links_at(nccl_version);

	ppn = FT_MAX(ppn, 1u);
	return collnet_direct_lat(&l, ppn,
	                          hw_lat(&l, FT_HW_NVLINK, FT_ALGO_COLLNET, FT_PROTO_SIMPLE),
	                          net_hop_lat(&l, FT_OP_ALL_REDUCE, FT_ALGO_COLLNET,
	                                      FT_PROTO_SIMPLE, one_rank_a_node));
}

/* CollNet's link terms, direct and chain alike, bytes of S a second: NVLink's,
 * 2(ppn - 1)/ppn x S a GPU (infinite with one rank a node), and the NICs', S a node, at
 * the tier's share. */
static void
collnet_links(const struct ft_model_links *l, double *intra, double *inter)
{
	double ppn = l->ppn;

	*inter = l->inter_Bps * l->ring_tier_factor;
	*intra = ppn > 1 ? l->intra_Bps * ppn / (2.0 * (ppn - 1)) : INFINITY;
}

/*
 * CollNet (SHARP): reduce-scatter and all-gather inside the node, each rank's
 * shard reduced by the switches; a node sends and receives S through its
 * rails. The stages pipeline, so the slower sets the pace; x0.85 on sm_90+
 * (kb NA-MODEL CollNetDirect).
 */
static void
cost_collnet_direct(const struct ft_model_links *l, struct ft__model_cost *c)
{
	double ppn = l->ppn, inter, intra;
	struct lats h = hop_lats(l, FT_ALGO_COLLNET, FT_PROTO_SIMPLE);

	collnet_links(l, &intra, &inter);
	if (intra < inter) {
		c->bw_Bps = intra;
		ft_strlcpy(c->bottleneck, l->intra_what, sizeof(c->bottleneck));
	} else {
		c->bw_Bps = inter;
		ft_strlcpy(c->bottleneck, l->ring_tier_factor < 1 ? "tier1" : l->nic_what,
		           sizeof(c->bottleneck));
	}
	if (l->arch >= FT_ARCH_HOPPER)
		c->bw_Bps *= 0.85;
	/* A stage alone (the pipeline's fill and drain, model/pipeline.c collnet_rounds_s()):
	 * the scatter or the broadcast, each (ppn - 1)/ppn of S a GPU on NVLink where the pace
	 * counts both (NVIDIA/nccl src/device/all_reduce.h, the CollNetDirect kernel's scatter
	 * and receive-and-broadcast warp groups, v2.21.5-1 and v2.27.7-1), and the network's S
	 * a node through its NICs. */
	c->stage_intra_Bps = 2.0 * intra;
	c->stage_inter_Bps = inter;
	ft_strlcpy(c->variant, "direct", sizeof(c->variant));
	c->lat_s = collnet_direct_lat(l, ppn, h.intra, h.inter);
}

/* CollNetChain's hop latency over @link: the release's row, else coll's (the kb's). */
static double
chain_hw_s(const struct ft_model_links *l, enum ft_hw_link link)
{
	const struct lat_set *set = lat_set_of(l);

	return set ? set->chain_hw[link] * US : ft_coll_collnet_chain_hw_latency(link);
}

/* CollNetChain's hop latencies, 2 (ppn - 1) hwLat[NVLINK or PCI] + hwLat[NET], its own
 * rows (the release's or coll's) but Tree's NET row where NCCL's tuner takes it with one
 * rank a node (tree_net_row()), without the model's network step (header). */
static double
collnet_chain_lat(const struct ft_model_links *l, double ppn, bool one_rank_a_node)
{
	double inter = tree_net_row(l, FT_OP_ALL_REDUCE, FT_ALGO_COLLNET, one_rank_a_node) ?
	                       hw_lat(l, FT_HW_NET, FT_ALGO_TREE, FT_PROTO_SIMPLE) :
	                       chain_hw_s(l, FT_HW_NET);

	return 2.0 * (ppn - 1) * chain_hw_s(l, l->nvlink ? FT_HW_NVLINK : FT_HW_PCI) + inter;
}

double
ft_model_collnet_chain_hops_s(uint32_t nccl_version, uint32_t ppn, bool one_rank_a_node,
                              bool nvlink)
{
	struct ft_model_links l = links_at(nccl_version);

	/* the intra row by the node's path, as cost_collnet_chain() reads it: NVLink and PCI
	 * differ at 2.18 (4.75 and 8.0 us) */
	l.nvlink = nvlink;
	return collnet_chain_lat(&l, FT_MAX(ppn, 1u), one_rank_a_node);
}

/*
 * CollNetChain (kb NA-ALGO-COLLNET; src/graph/tuning.cc): a chain through the node's GPUs
 * to the head, whose NIC hands each channel's chunk to the switches, and the result back
 * down the chain. NCCL searches its graph as a tree with CollNet (src/init.cc: pattern
 * TREE, the ring's channels; src/graph/search.cc raises its bwIntra in the second pass, as
 * for a tree on 2 nodes: tree_net_graph_Bps()), reads bwIntra for CollNet at any node
 * count, and takes nChannels x bwIntra x 0.5 to algorithm bandwidth, Simple only, with
 * neither CollNetDirect's GPU/NIC factor nor its x0.85 on sm_90+. The links bound it too: a
 * GPU sends 2(ppn - 1)/ppn x S over NVLink (each chunk up once and down once, the head
 * rotating over the channels) and the node S through its NICs. Latency 2(ppn - 1) x
 * intraLat + interLat. 8 x H100 on 8 x 400G: 8 channels x 48 x 0.5 = 192 GB/s, where
 * CollNetDirect gives min(360 x 8/14, 384) x 0.85 = 175.
 */
static void
cost_collnet_chain(const struct ft_model_links *l, struct ft__model_cost *c)
{
	double ppn = l->ppn, inter, intra;
	uint32_t nch;
	double graph = tree_net_graph_Bps(l, &nch), links;

	collnet_links(l, &intra, &inter);
	links = FT_MIN(intra, inter);

	/* NCCL's graph runs at a speed of its list on the NICs' path */
	ft_strlcpy(c->bottleneck, l->nic_what, sizeof(c->bottleneck));
	if (graph <= 0)
		graph = graph_Bps(l, c->bottleneck, sizeof(c->bottleneck));
	ft_strlcpy(c->variant, "chain", sizeof(c->variant));
	c->bw_Bps = graph * 0.5;
	if (links < c->bw_Bps) {
		c->bw_Bps = links;
		ft_strlcpy(c->bottleneck, intra < inter ? l->intra_what :
		                          l->ring_tier_factor < 1 ? "tier1" : l->nic_what,
		           sizeof(c->bottleneck));
	}
	/* the chain's own hop latencies in place of CollNetDirect's, and a network step */
	c->lat_s = collnet_chain_lat(l, ppn, l->nranks == l->nnodes) +
	           ft_model_net_step_s(l, FT_PROTO_SIMPLE);
}

double
ft_model_collnet_chain_efficiency(const struct ft_model_links *l)
{
	struct ft__model_cost c;
	double inter, intra, links;

	collnet_links(l, &intra, &inter);
	links = FT_MIN(intra, inter);
	memset(&c, 0, sizeof(c));
	cost_collnet_chain(l, &c);
	return links > 0 && isfinite(links) && c.bw_Bps > 0 && c.bw_Bps < links ? c.bw_Bps / links
	                                                                          : 1.0;
}

/*
 * CollNet as NCCL runs it: CollNetDirect and, for all-reduce, CollNetChain, whichever
 * its tuner finds faster at @bytes (both Simple; NCCL_ALGO=COLLNET allows both). The
 * chain wins on large all-reduces (no x0.85), the direct one on small ones (one NVLink
 * hop where the chain has ppn - 1). NCCL_ALGO=CollNetDirect or CollNetChain (links
 * collnet) leaves the tuner that one alone.
 */
static void
cost_collnet(const struct ft_model_links *l, enum ft_op op, uint64_t bytes,
             struct ft__model_cost *c)
{
	struct ft__model_cost chain;

	if (l->collnet == FT_COLLNET_CHAIN) {
		cost_collnet_chain(l, c);
		return;
	}
	cost_collnet_direct(l, c);
	if (op != FT_OP_ALL_REDUCE || l->collnet == FT_COLLNET_DIRECT)
		return;
	memset(&chain, 0, sizeof(chain));
	cost_collnet_chain(l, &chain);
	if (chain.lat_s + (double)bytes / chain.bw_Bps < c->lat_s + (double)bytes / c->bw_Bps)
		*c = chain;
}

/* Two sequential or overlapped transfer terms, in seconds per byte of S. */
static void
pick_terms(const struct ft_model_links *l, double t_intra, double t_inter, bool overlap,
           const char *inter_what, struct ft__model_cost *c)
{
	double t = overlap ? FT_MAX(t_intra, t_inter) : t_intra + t_inter;

	c->bw_Bps = t > 0 ? 1.0 / t : INFINITY;
	ft_strlcpy(c->bottleneck, t_intra >= t_inter ? l->intra_what : inter_what,
	           sizeof(c->bottleneck));
}

static const char *
inter_name(const struct ft_model_links *l, double factor, const char *tier)
{
	return factor < 1.0 ? tier : l->nic_what;
}

/* Recursive halving/doubling: log2(N) rounds cross nodes, log2(ppn) stay inside. */
static void
cost_hd(const struct ft_model_links *l, enum ft_op op, enum ft_proto p, struct ft__model_cost *c)
{
	double ppn = l->ppn, N = l->nnodes, reps = op == FT_OP_ALL_REDUCE ? 2.0 : 1.0;
	double inter = l->inter_Bps * l->ring_tier_factor / ppn, eff = ft_proto_efficiency(p);
	double t_inter = N > 1 ? (N - 1) / N / inter : 0;
	double t_intra = (ppn - 1) / ppn / N / l->intra_Bps;
	struct lats h = ring_floor(l, p, hop_lats(l, FT_ALGO_HALVING_DOUBLING, p));

	pick_terms(l, reps * t_intra / eff, reps * t_inter / eff, false,
	           inter_name(l, l->ring_tier_factor, "tier1"), c);
	c->lat_s = base_lat(l, FT_ALGO_RING, p) +
	           reps * (log2_floor(l->ppn) * h.intra + log2_floor(l->nnodes) * h.inter);
}

/* Hierarchical all-reduce: intra reduce-scatter, inter ring per rail, intra all-gather. */
static void
cost_hier_allreduce(const struct ft_model_links *l, enum ft_proto p, struct ft__model_cost *c)
{
	double ppn = l->ppn, N = l->nnodes, eff = ft_proto_efficiency(p);
	double t_intra = 2.0 * (ppn - 1) / ppn / l->intra_Bps;
	double t_inter = N > 1 ? 2.0 * (N - 1) / N / (l->inter_Bps * l->ring_tier_factor) : 0;
	struct lats h = ring_floor(l, p, hop_lats(l, FT_ALGO_RING, p));

	pick_terms(l, t_intra / eff, t_inter / eff, false,
	           inter_name(l, l->ring_tier_factor, "tier1"), c);
	c->lat_s = base_lat(l, FT_ALGO_RING, p) + 2.0 * (ppn - 1) * h.intra +
	           2.0 * (N - 1) * h.inter;
}

/* The windows of sends an all-to-all phase among @m members, @per_pair bytes to each
 * peer, runs one after the other: ceil((m - 1) / W), W its sends in flight
 * (ft_model_p2p_chunking_on()'s peers_inflight; @net: a phase across nodes); *@ch the
 * chunking of its sends. */
static double
a2a_windows(const struct ft_model_links *l, uint32_t m, uint64_t per_pair, bool net,
            struct ft_model_p2p_chunking *ch)
{
	struct ft_model_links comm = *l;

	/* The communicator is the job's (its nodes set the chunk and the channels per
	 * peer), the connection this phase's. */
	comm.nranks = m;
	ft__model_p2p_chunking(&comm, per_pair, net, ch);
	return m < 2 ? 0 : ceil((double)(m - 1) / FT_MAX(ch->peers_inflight, 1u));
}

/* aws-ofi-nccl's eager limit: a message of at most OFI_NCCL_EAGER_MAX_SIZE (8 KiB,
 * include/nccl_ofi_param.h, v1.16.3) goes without waiting for the control message where
 * no write of its communicator is in flight (src/nccl_ofi_rdma.cpp send()). */
#define EFA_EAGER_MAX 8192u

/* The rendezvous over EFA (links rdv_s) a send of @bytes chunked as @ch waits before its
 * first message: none where that message, a channel's part up to a chunk, goes eagerly. */
static double
rdv_wait(const struct ft_model_links *l, const struct ft_model_p2p_chunking *ch,
         uint64_t bytes)
{
	uint64_t msg = ch->channels ? (bytes + ch->channels - 1) / ch->channels : bytes;

	if (!(l->rdv_s > 0) || l->nnodes < 2)
		return 0;
	return FT_MIN(msg, ch->chunk_bytes) > EFA_EAGER_MAX ? l->rdv_s : 0;
}

/*
 * The fixed costs of an all-to-all phase among @m members, @per_pair bytes
 * to each peer, posted as NCCL's send/recv path posts it (kb NA-MODEL;
 * ft_model_p2p_chunking_on(), the definition the flow and packet engines
 * follow too): a rank keeps peers_inflight sends in progress on the p2p
 * channels of its node (ft_model_p2p_nchannels()). On a fabric without
 * congestion the sends in flight share the rank's bottleneck link evenly,
 * so they end together and then pay their per-message cost together: the
 * phase moves its bytes at the link's rate and pays that cost once per
 * window, ceil((m - 1) / W) times (docs/internals/model.md, "All-to-all").
 */
static double
a2a_fixed(const struct ft_model_links *l, enum ft_proto p, uint32_t m, uint64_t per_pair,
          bool net)
{
	struct ft_model_p2p_chunking ch;
	struct lats h;
	double w;

	if (m < 2)
		return 0;
	/* The NVLink sends of a multi-node all-to-all keep LL below NCCL_P2P_LL_THRESHOLD a
	 * channel while the network ones are Simple (addP2pToPlan), unless a protocol is
	 * forced on every send. */
	w = a2a_windows(l, m, per_pair, net, &ch);
	if (!net && l->nnodes > 1 && p == FT_PROTO_SIMPLE)
		p = ch.proto;
	h = ring_floor(l, p, hop_lats(l, FT_ALGO_RING, p));
	return w * (net ? h.inter : h.intra);
}

/*
 * Once an op, an upper bound. NCCL's receiving proxy posts its irecvs when the op starts,
 * up to maxDepth steps ahead, without waiting on the GPU (recvProxyProgress(), and the
 * plugin's recv() sends the control message at once), while the sender's isend waits for
 * the GPU to fill the slot (sendProxyProgress(); src/transport/net.cc, v2.27.7-1). The
 * first control message crosses while the sender's GPU fills its first chunk, so at most
 * the whole message is exposed; the later windows' peers are proxy ops of the same launch,
 * their control messages already there. Collectives go through the same isend/irecv but
 * their price is the plugin's own: its tuner charges no rendezvous
 * (src/tuner/nccl_ofi_model.cpp, num_internode_steps * net_lat), and the published p5
 * all-gathers fit the 75 us step with none (docs/presets.md PS-EFA-NETLAT, PS-EFA-RDV).
 * Send/recv and all-to-all have no price from it: NCCL's tuner prices collectives only.
 */
double
ft__model_rdv_lat_s(const struct ft_model_links *l, enum ft_op op, enum ft_algo a,
                    uint64_t bytes)
{
	struct ft_model_p2p_chunking ch;
	uint32_t m = a == FT_ALGO_DIRECT ? l->nranks : l->nnodes;
	uint64_t per_pair = bytes / FT_MAX(m, 1u);

	if (!(l->rdv_s > 0) || l->nnodes < 2)
		return 0;
	if (op == FT_OP_SENDRECV) {
		ft__model_p2p_chunking(l, bytes, true, &ch);
		return rdv_wait(l, &ch, bytes);
	}
	if (op != FT_OP_ALLTOALL || !(a2a_windows(l, m, per_pair, true, &ch) > 0))
		return 0;
	return rdv_wait(l, &ch, per_pair);
}

/* Whether shared link @sh is slower than term @t, beyond rounding: where the two are one
 * link seen twice (a GPU's PCIe link that carries just its NIC's bytes), the term's. */
static bool
shared_slower(const struct ft_model_shared_link *sh, double t)
{
	return sh->s > t * (1 + 1e-9);
}

/*
 * @t, a term of the model's all-to-all or send/recv in seconds a byte of S, or the busiest
 * in-node link the op's sends share where that one is slower (links a2a_shared and after,
 * model/share.c): its bytes over its rate, *@name then its class.
 */
static double
shared_term(double t, const struct ft_model_shared_link *sh, const char **name)
{
	if (!shared_slower(sh, t))
		return t;
	if (name)
		*name = sh->what;
	return sh->s;
}

/* ft__model_a2a_net_s(), the class that sets it in *@name. */
static double
a2a_net_s(const struct ft_model_links *l, const char **name)
{
	double n = l->nranks, ppn = l->ppn;

	if (l->nnodes < 2)
		return 0;
	return shared_term(ppn * (n - ppn) / n / (l->inter_Bps * l->a2a_factor),
	                   &l->a2a_net_shared, name);
}

/*
 * All-to-all (kb NA-BUSBW: S is what each rank sends in all). Direct: the
 * NVLink part ((ppn-1)/n of S per GPU) and the network part (ppn(n-ppn)/n of
 * S per node through its rails, times the fabric's all-to-all share) run at
 * once. Hierarchical (PXN): NVLink first, (ppn-1)/ppn of S per GPU, then the
 * same network volume rail-local. Each part is held to the busiest in-node link its
 * sends share where that is slower than one GPU's share (links a2a_shared: a PCIe
 * switch's up-link, the socket link, a NIC; on a node of two sockets of four GPUs,
 * 16 pairs of S/8 cross the socket link each way, 2S, not one GPU's 7/8 S).
 */
double
ft__model_a2a_net_s(const struct ft_model_links *l)
{
	return a2a_net_s(l, NULL);
}

static void
cost_alltoall(const struct ft_model_links *l, enum ft_algo a, enum ft_proto p, uint64_t bytes,
              struct ft__model_cost *c)
{
	double n = l->nranks, ppn = l->ppn, N = l->nnodes, eff = ft_proto_efficiency(p);
	const char *intra = l->intra_what, *inter = inter_name(l, l->a2a_factor, l->a2a_what);
	double t_intra, t_inter = a2a_net_s(l, &inter);

	if (a == FT_ALGO_DIRECT)
		t_intra = shared_term((ppn - 1) / n / l->p2p_Bps, &l->a2a_shared, &intra);
	else if (N > 1)
		t_intra = shared_term((ppn - 1) / ppn / l->p2p_Bps, &l->a2a_node_shared, &intra);
	else
		t_intra = shared_term((ppn - 1) / n / l->p2p_Bps, &l->a2a_shared, &intra);
	pick_terms(l, t_intra / eff, t_inter / eff, a == FT_ALGO_DIRECT, inter, c);
	if (t_intra >= t_inter)
		ft_strlcpy(c->bottleneck, intra, sizeof(c->bottleneck));
	/* Direct: one phase over all n ranks, S/n to each. Hierarchical: ppn members
	 * inside the node, S/ppn to each, then N per rail, S/N to each. */
	c->lat_s = base_lat(l, FT_ALGO_RING, p);
	if (a == FT_ALGO_DIRECT)
		c->lat_s += a2a_fixed(l, p, l->nranks, bytes / FT_MAX(l->nranks, 1u), N > 1);
	else
		c->lat_s += a2a_fixed(l, p, l->ppn, bytes / FT_MAX(l->ppn, 1u), false) +
		            a2a_fixed(l, p, l->nnodes, bytes / FT_MAX(l->nnodes, 1u), true);
}

/* Whether a send/recv's time pays the leaves' up-links to the spine where its sends change
 * leaves (links sr_spine_factor); NCCL prices no send/recv, --tuner-only leaves it. */
static bool
sr_spine(const struct ft_model_links *l)
{
	return l->time_run_channels && l->sr_spine_factor < l->ring_tier_factor;
}

uint32_t
ft__model_shared_binding(const struct ft_model_links *l, enum ft_op op, enum ft_algo a,
                         const struct ft_model_shared_link *out[2])
{
	double n = l->nranks, ppn = l->ppn;
	bool hier = a == FT_ALGO_HIERARCHICAL && l->nnodes > 1;
	double rails = l->nnodes > 1 ? ppn * (n - ppn) / n / (l->inter_Bps * l->a2a_factor) : 0;
	uint32_t k = 0;
	/* the send/recv's NIC term as cost_sendrecv() takes it */
	double nic = l->nic_Bps * FT_MAX(l->gpu_nics, 1u) *
	             (sr_spine(l) ? l->sr_spine_factor : l->ring_tier_factor);

	if (op == FT_OP_SENDRECV &&
	    shared_slower(&l->sr_shared, FT_MAX(1.0 / l->p2p_Bps, l->nnodes > 1 ? 1.0 / nic : 0)))
		out[k++] = &l->sr_shared;
	if (op != FT_OP_ALLTOALL)
		return k;
	if (!hier && shared_slower(&l->a2a_shared, FT_MAX((ppn - 1) / n / l->p2p_Bps, rails)))
		out[k++] = &l->a2a_shared;
	if (hier && shared_slower(&l->a2a_node_shared, (ppn - 1) / ppn / l->p2p_Bps))
		out[k++] = &l->a2a_node_shared;
	if (hier && shared_slower(&l->a2a_net_shared, rails))
		out[k++] = &l->a2a_net_shared;
	return k;
}

/* nccl-tests sendrecv: rank i sends S to i+1; across nodes one rank per node uses its
 * NIC, or all of its NICs when it drives several (nics.per_gpu, AWS p5: 4). */
static void
cost_sendrecv(const struct ft_model_links *l, enum ft_proto p, uint64_t bytes,
              struct ft__model_cost *c)
{
	bool spine = sr_spine(l);
	double eff = ft_proto_efficiency(p),
	       f = spine ? l->sr_spine_factor : l->ring_tier_factor,
	       nic = l->nic_Bps * FT_MAX(l->gpu_nics, 1u) * f;
	struct lats h = hop_lats(l, FT_ALGO_RING, p);
	/* the pairs' links in the node: one GPU's, or the busiest several share */
	const char *intra = l->intra_what;
	double p2p = 1.0 / shared_term(1.0 / l->p2p_Bps, &l->sr_shared, &intra);

	if (l->nnodes > 1 && nic < p2p) {
		c->bw_Bps = nic * eff;
		ft_strlcpy(c->bottleneck, inter_name(l, f, spine ? "spine" : "tier1"),
		           sizeof(c->bottleneck));
	} else {
		c->bw_Bps = p2p * eff;
		ft_strlcpy(c->bottleneck, intra, sizeof(c->bottleneck));
	}
	if (p == FT_PROTO_LL)
		c->bw_Bps = cap(c->bw_Bps, ll_max_Bps(l), "protocol", c);
	c->lat_s = base_lat(l, FT_ALGO_RING, p) + (l->nnodes > 1 ? h.inter : h.intra);
}

void
ft__model_cost(const struct ft_model_links *l, enum ft_op op, enum ft_algo a, enum ft_proto p,
               uint64_t bytes, struct ft__model_cost *c)
{
	memset(c, 0, sizeof(*c));
	if (op == FT_OP_ALLTOALL) {
		cost_alltoall(l, a, p, bytes, c);
		return;
	}
	if (op == FT_OP_SENDRECV) {
		cost_sendrecv(l, p, bytes, c);
		return;
	}
	switch (a) {
	case FT_ALGO_TREE:
		cost_tree(l, p, c);
		break;
	case FT_ALGO_NVLS:
		if (l->nnodes > 1)
			cost_nvls_net(l, c);
		else
			cost_nvls(l, op, c);
		break;
	case FT_ALGO_COLLNET:
		cost_collnet(l, op, bytes, c);
		break;
	case FT_ALGO_NVLS_TREE:
		cost_nvls_tree(l, c);
		break;
	case FT_ALGO_PAT:
		cost_pat(l, c);
		break;
	case FT_ALGO_HALVING_DOUBLING:
		cost_hd(l, op, p, c);
		break;
	case FT_ALGO_HIERARCHICAL:
		cost_hier_allreduce(l, p, c);
		break;
	default:
		cost_ring(l, op, p, bytes, c);
		break;
	}
}

/*
 * How many of tree_corr's columns NCCL's ncclTopoGetAlgoTime (src/graph/tuning.cc) reads:
 * the tree's while logSize < 23, to 256 MiB (index 22), at every tag from v2.18.5-1 to
 * v2.30.7-1, so its 24th column is never read for the tree; the NVLS tree's while
 * logSize < 24, to 512 MiB, from v2.29.2-1 (ft_model_tree_correction() says where).
 */
#define TREE_CORR_TREE_COLS 23
#define TREE_CORR_NVLS_TREE_COLS FT_ARRAY_SIZE(tree_corr[0])

/*
 * tree_corr's factor for @p and @bytes, 1 from column @cols on. NCCL's column is
 * log2i(nBytes >> 6), read where it is >= 0 and below the end: from v2.22.3-1 log2i is
 * log2Down(), -1 for 0 (src/include/utils.h, bitops.h), so under 64 B no column is read
 * (factor 1); to v2.21.5-1 its log2i counted shifts, 0 for 0, and column 0 was read
 * there. @low_col0: read column 0 under 64 B (the tree on those releases).
 */
static double
tree_corr_at(int p, uint64_t bytes, size_t cols, bool low_col0)
{
	uint32_t idx;

	if (bytes < 64 && !low_col0)
		return 1.0;
	idx = log2_floor(bytes >> 6);
	return idx < cols && p >= 0 && p < FT_PROTO_COUNT ? tree_corr[p][idx] : 1.0;
}

/*
 * NCCL's corrections of a tree's bandwidth in ncclTopoGetAlgoTime (src/graph/tuning.cc;
 * kb NA-MODEL), both of the all-reduce only (coll == ncclFuncAllReduce):
 * - the tree's, to 256 MiB. The test of the collective is there from v2.23.4-1; v2.22.3-1
 *   and before test the algorithm alone, but their tuner gives the tree no bandwidth for
 *   another collective (and ft_coll_supports() gives it none but the all-reduce).
 * - the NVLS tree's, to 512 MiB, from v2.29.2-1 (read there and at v2.30.7-1), where every
 *   GPU is Blackwell or later (comm->minCompCap >= 100) and every host x86 (comm->cpuArch
 *   NCCL_TOPO_CPU_ARCH_X86; ARM, POWER and a mix, NCCL's MIXED, are not).
 * Both from 64 B: under it NCCL reads no column from v2.22.3-1 (tree_corr_at()). @l
 * nccl_version 0 is the newest release, as the simulator's engines follow.
 */
double
ft_model_tree_correction(const struct ft_model_links *l, enum ft_op op, enum ft_algo a,
                         enum ft_proto p, uint64_t bytes)
{
	if (op != FT_OP_ALL_REDUCE)
		return 1.0;
	if (a == FT_ALGO_TREE)
		return tree_corr_at(p, bytes, TREE_CORR_TREE_COLS,
		                    l->nccl_version != 0 && l->nccl_version < 22200);
	if (a == FT_ALGO_NVLS_TREE && l->arch >= FT_ARCH_BLACKWELL && l->cpu_x86 &&
	    (l->nccl_version == 0 || l->nccl_version >= 22902))
		return tree_corr_at(p, bytes, TREE_CORR_NVLS_TREE_COLS, false);
	return 1.0;
}

void
ft__model_factors(const struct ft_model_links *l, enum ft_op op, enum ft_algo a, enum ft_proto p,
                  uint64_t bytes, double *lat_factor, double *bw_factor)
{
	*lat_factor = 1.0;
	*bw_factor = ft_model_tree_correction(l, op, a, p, bytes);
	/* kb NA-MODEL: ring/Simple all-reduce across nodes, once every rank/channel slice holds
	 * 64 bytes, pays 1.4x (sm_80+) or 1.9x the latency (plateau effect); the channels are
	 * the communicator's, not the graph's (src/graph/tuning.cc, comm->nChannels). */
	if (a == FT_ALGO_RING && p == FT_PROTO_SIMPLE && op == FT_OP_ALL_REDUCE && l->nnodes > 1 &&
	    (double)bytes >= (double)l->nranks * ft_model_comm_nchannels(l) * 64.0)
		*lat_factor = l->arch >= FT_ARCH_AMPERE ? 1.4 : 1.9;
}

/*
 * What NCCL's (NVLS) tree all-reduce really carries, for its time once the
 * tuner has picked it: the tuner charges every node 2S between nodes (an
 * interior node of one tree, a leaf of the other: exact from 4 nodes up),
 * but over 2 nodes each tree is a single edge and a node sends S, over 3
 * (trees 0-2-1 and 1-0-2, src/graph/trees.cc) the busiest node 1.5S (kb
 * NA-ALGO-TREE). The network stage of @c goes 2 or 4/3 times faster, and
 * the in-node stage (the chain, or NVLS) may then bind. The tuner's own
 * NVLS tree formula already doubles the network over 2 nodes.
 *
 * Inside a node the plain tree is a chain per channel, and NCCL's tree graph
 * starts each channel's chain at the GPU of that channel's NIC
 * (src/graph/search.cc: sameChannels is given up for the most local GPU of
 * each NIC), so over ppn channels every GPU is the chain's first GPU once
 * (it sends only down the chain) and its last once (only up): a GPU sends
 * 2(ppn - 1)/ppn x S over NVLink, each chunk up once and down once
 * (src/device/all_reduce.h, runTreeSplit), not the tuner's 2S (its x0.5 of
 * the graph's bandwidth, src/graph/tuning.cc). The in-node stage goes
 * ppn / (ppn - 1) times faster: 8/7 on 8 GPUs.
 *
 * PAT's all-gather and reduce-scatter: the tuner prices S, the kernel moves
 * (n - 1) / n of it a rank (ft_model_pat_carried_factor()).
 */
void
ft__model_carried(const struct ft_model_links *l, enum ft_op op, enum ft_algo a,
                  struct ft__model_cost *c)
{
	double f = ft_model_tree_carried_factor(l, a), bw;

	/* PAT: the tuner's S over busBw made the pick, the kernel's (n - 1) / n of S the time */
	if (a == FT_ALGO_PAT) {
		c->bw_Bps *= ft_model_pat_carried_factor(l, op);
		return;
	}
	if (f == 1.0 || c->stage_inter_Bps <= 0 || (a == FT_ALGO_TREE && op != FT_OP_ALL_REDUCE))
		return;
	if (a == FT_ALGO_TREE && l->ppn > 1 && c->stage_intra_Bps > 0)
		c->stage_intra_Bps *= l->ppn / (l->ppn - 1.0);
	bw = FT_MIN((c->links_bw_Bps > 0 ? c->links_bw_Bps : c->bw_Bps) * f, c->stage_inter_Bps * f);
	if (c->stage_intra_Bps > 0 && c->stage_intra_Bps < bw) {
		bw = c->stage_intra_Bps;
		ft_strlcpy(c->bottleneck, l->intra_what, sizeof(c->bottleneck));
	}
	c->stage_inter_Bps *= f;
	/* never below the links' own figure; NCCL's graph figure of a 2-node tree is the pick's,
	 * not the time's */
	c->bw_Bps = FT_MAX(bw, c->links_bw_Bps > 0 ? c->links_bw_Bps : c->bw_Bps);
}

double
ft__model_time(const struct ft_model_links *l, enum ft_op op, enum ft_algo a, enum ft_proto p,
               const struct ft__model_cost *c, uint64_t bytes)
{
	double lf, bf;

	ft__model_factors(l, op, a, p, bytes, &lf, &bf);
	return c->lat_s * lf + (double)bytes / (c->bw_Bps * bf);
}

double
ft__model_base_lat(const struct ft_model_links *l, enum ft_op op, enum ft_algo a, enum ft_proto p)
{
	if (op == FT_OP_ALLTOALL || op == FT_OP_SENDRECV)
		return base_lat(l, FT_ALGO_RING, p);
	switch (a) {
	case FT_ALGO_COLLNET:
		return 0;
	case FT_ALGO_NVLS:
	case FT_ALGO_NVLS_TREE:
		return base_lat(l, a, FT_PROTO_SIMPLE);
	case FT_ALGO_TREE:
		return base_lat(l, a, p);
	case FT_ALGO_PAT:
		return base_lat(l, FT_ALGO_PAT, FT_PROTO_SIMPLE);
	default:
		return base_lat(l, FT_ALGO_RING, p);
	}
}

/* SPDX-License-Identifier: MIT */
/*
 * model/channels.c - the channels NCCL runs a collective on, from the ring graph its
 * search keeps: the one count the model's pipeline and the flow engine both take.
 *
 * NCCL builds its channels in three places (NVIDIA/nccl, read at v2.18.6-1, v2.26.6-1,
 * v2.27.7-1 and v2.30.7-1; kb NA-CONCEPTS, ENV-NCHANNELS):
 *
 *  - the graph search (src/graph/search.cc ncclTopoCompute) packs channels of one speed
 *    on the links, at most MAXCHANNELS / 2 (src/init.cc ringGraph->maxChannels), and
 *    ncclTopoDupChannels doubles them at half the speed when a channel takes 25 GB/s or
 *    more, except on Hopper and later under 50 GB/s with more than 4 channels (links.c);
 *  - init (src/init.cc) gives the communicator the fewer of the ring's and the tree's
 *    channels, the least over the ranks; the tuner prices nChannels x bwIntra of that
 *    graph (kb NA-MODEL);
 *  - ncclTopoPostset (src/graph/connect.cc) then copies every channel once more, at
 *    most MAXCHANNELS (32 before v2.25.1-1, 64 from it: src/include/device.h); with
 *    CollNet on, several GPUs a node and the CollNetChain graph faster inside a node
 *    than across it, it adds half as many again (applied here where the model prices
 *    CollNet); on Hopper (and from
 *    v2.25.1-1 on any compute capability of 9 or more) across nodes, where the ring
 *    graph's channel takes more than 45 GB/s, it doubles them again while fewer than 16
 *    are left (before v2.20.3-1: while twice fits in MAXCHANNELS); on a network of
 *    device type UNPACK (GPUDirect-TCPX) across nodes, from v2.22.3-1, it doubles them
 *    while fewer than 16 are left (NCCL_UNPACK_DOUBLE_NCHANNELS=1); last
 *    NCCL_MAX_NCHANNELS and NCCL_MIN_NCHANNELS (or the CTA bounds) cut or copy them;
 *    from v2.20.3-1 to v2.27.7-1, where NVLS runs, it copies them up to the NVLS
 *    channels (src/transport/nvls.cc: 16 on Hopper, 24 or 32 on Blackwell); v2.28.3-1
 *    drops that copy and caps NVLS across nodes at the communicator's channels instead
 *    (src/enqueue.cc, min(nvlsChannels, nChannels); NVLSTree keeps its own).
 *
 * The graphs come from the search on the node's links (links.c): on one NVSwitch node
 * the Intra list (DGX H100: 6 x 60 -> 12 x 30 -> 24), on NVSwitch nodes joined by NICs
 * the Inter list from a NIC's path (DGX H100s: 8 x 48 -> 16), with one GPU a node the
 * Inter list on its NICs, in an NVLink domain of several trays the one or the other.
 *
 * The enqueue (src/enqueue.cc) launches a ring or tree on the communicator's channels,
 * one fewer while a thread would get less than its threshold (pipeline.c), CollNet on
 * them too, NVLS and NVLSTree on the NVLS channels of src/transport/nvls.cc (NVLS
 * across nodes at most the communicator's from v2.28.3-1). The
 * copies share the graph's links, so a run-time channel carries the graph's bandwidth
 * over the run-time count: 720 GB/s over 30 channels of 24 GB/s on GB200 NVL72 racks
 * with 2.26, where the search kept 15 x 48.
 */
#include "model_int.h"

/* NVIDIA/nccl src/transport/nvls.cc, ncclNvlsInit(): NVLS is set up where the node's
 * topology holds more than 2 GPUs (gpuCount <= 2 returns with nvlsSupport 0) at
 * v2.18.1-1 to v2.28.3-1 (v2.21.5-1 to v2.24.3-1: with MNNVL, the clique's size), more
 * than 1 before (v2.17.1-1: localRanks <= 1) and from v2.28.7-1 (gpuCount < 2). */
#define NVLS_3GPUS_FROM  21800
#define NVLS_3GPUS_UNTIL 22807

uint32_t
ft__model_max_channels(uint32_t version)
{
	return version && version < 22500 ? 32u : 64u;
}

/* The compute capabilities ncclTopoPostset doubles the channels of across nodes: 9.0
 * alone before v2.25.1-1 (minCompCap == 90), 9.0 and later from it. */
static bool
postset_doubles_arch(enum ft_model_arch arch, uint32_t version)
{
	if (arch == FT_ARCH_HOPPER)
		return true;
	return arch > FT_ARCH_HOPPER && (version == 0 || version >= 22500);
}

uint32_t
ft__model_nvls_min_gpus(uint32_t version)
{
	return version >= NVLS_3GPUS_FROM && version < NVLS_3GPUS_UNTIL ? 3 : 2;
}

bool
ft__model_nvls_gpus_ok(const struct ft_model_links *l)
{
	uint32_t least = ft__model_nvls_min_gpus(l->nccl_version);

	return l->ppn >= least && (l->ppn_min == 0 || l->ppn_min >= least);
}

bool
ft__model_nvls_nodes_off(const struct ft_model_links *l)
{
	uint32_t v = l->nccl_version;

	return v >= 22000 && v < 22100 && (l->nnodes > 1 || l->domain_nodes > 1);
}

/* Whether NCCL runs NVLS on @l (src/transport/nvls.cc: an NVSwitch with NVLink SHARP,
 * Hopper or later, enough GPUs on every node, ft__model_nvls_gpus_ok(), and with 2.20 one
 * node, ft__model_nvls_nodes_off(); off with NCCL_NVLS_ENABLE=0 and on GPUDirect-TCPX
 * hosts). */
bool
ft_model_nvls_runs(const struct ft_model_links *l)
{
	return l->nvls && !l->nvls_off && ft__model_nvls_gpus_ok(l) &&
	       !ft__model_nvls_nodes_off(l) && !(l->tcpx && l->nnodes > 1);
}

static uint32_t ring_nchannels(const struct ft_model_links *l, enum ft_algo a, bool run);

uint32_t
ft_model_run_nchannels(const struct ft_model_links *l, enum ft_algo a)
{
	uint32_t v = l->nccl_version, nv;

	if (a != FT_ALGO_NVLS && a != FT_ALGO_NVLS_TREE)
		return ring_nchannels(l, a, true);
	nv = ft_model_nvls_nchannels(l);
	/* From v2.28.3-1 the enqueue runs NVLS across nodes on min(nvlsChannels, nChannels),
	 * the communicator's ring count; NVLSTree keeps its own (src/enqueue.cc). */
	if (a == FT_ALGO_NVLS && l->nnodes > 1 && (v == 0 || v >= 22800))
		nv = FT_MIN(nv, ring_nchannels(l, FT_ALGO_RING, false));
	return nv;
}

uint32_t
ft_model_nvls_copy_nchannels(uint32_t nch, uint32_t nvls, uint32_t version, bool run)
{
	uint32_t first = run ? FT_NCCL_NVLS_COPY_RUN : FT_NCCL_NVLS_COPY_COMM;

	if (version >= first && version < FT_NCCL_NVLS_COPY_END && nvls > nch)
		return nvls;
	return nch;
}

/* The ring's channels on @l: what a ring or tree launches on (@run) or the communicator's
 * count (ft_model_nvls_copy_nchannels() says where the two part). */
static uint32_t
ring_nchannels(const struct ft_model_links *l, enum ft_algo a, bool run)
{
	uint32_t v = l->nccl_version, maxch = ft__model_max_channels(v), n;
	uint32_t nvls = ft_model_nvls_runs(l) ? ft_model_nvls_nchannels(l) : 0;

	if (l->graph_nchannels == 0) {
		uint32_t nch = FT_MAX(l->nchannels, 1u);

		return l->channels_forced ? ft_model_nvls_copy_nchannels(nch, nvls, v, run) : nch;
	}
	n = FT_MIN(2 * l->graph_nchannels, maxch);
	/* CollNet on (the model turns it on where it prices CollNet) */
	if (a == FT_ALGO_COLLNET && l->nnodes > 1 && l->ppn > 1)
		n = FT_MIN(n + n / 2, maxch);
	/* "4 compute channels per search channel" */
	if (l->nnodes > 1 && postset_doubles_arch(l->arch, v) && l->graph_GBps > 45.0 &&
	    (v && v < 22000 ? 2 * n <= maxch : n < 16))
		n *= 2;
	if (l->tcpx && l->nnodes > 1 && n < 16 && (v == 0 || v >= 22200))
		n *= 2;
	/* where NVLS runs, at least the NVLS channels, copied from its own (connect.cc, after
	 * NCCL_MIN/MAX_NCHANNELS): the communicator from v2.20.3-1, the ring and tree's launch
	 * from v2.22.3-1 (enqueue.cc) */
	return ft_model_nvls_copy_nchannels(n, nvls, v, run);
}

uint32_t
ft_model_comm_nchannels(const struct ft_model_links *l)
{
	return ring_nchannels(l, FT_ALGO_RING, false);
}

/*
 * NCCL's p2p channels are pow2Up(min(comm->nChannels, NCCL_MAX_P2P_NCHANNELS)), at least
 * NCCL_MIN_P2P_NCHANNELS (src/graph/paths.cc ncclTopoComputeP2pChannels, read at
 * v2.18.6-1, v2.23.4-1 and v2.30.7-1, called in src/init.cc right after ncclTopoPostset);
 * what the NVLink or PCIe path and the NICs set is the channels per peer
 * (ncclTopoGetNchannels), which ft_model_p2p_chunking_conn() takes. On NVSwitch nodes joined
 * by NICs the model keeps the p2p channels of one collective channel per NVLink (18 on
 * Hopper: 32; 12 on an A100: 16), not those of the run-time count of NCCL's ring graph
 * there (8 x 48 -> 16 on DGX H100s from 2.20, whose p2p count NCCL makes 16): the
 * all-to-all's sends in flight follow this count, and its halving is left for a check of
 * its own against measured all-to-all curves (docs/internals/model-log.md, "The channels
 * of NVSwitch nodes joined by NICs"). NCCL's count there is 32 on 2.18-2.19 and 16 from
 * 2.20 (test_nccl_p2p_channels_version_boundary); with 16 the flow engine's ECMP
 * all-to-all pays a full pass per deferral window in each wave of rounds after the first
 * (model-log.md, "The p2p channels of NVSwitch nodes joined by NICs, measured").
 */
uint32_t
ft_model_p2p_nchannels_of(const struct ft_model_links *l)
{
	return ft_model_p2p_nchannels(ft_model_p2p_nchannels_raw_of(l));
}

uint32_t
ft_model_p2p_nchannels_raw_of(const struct ft_model_links *l)
{
	uint32_t n = ft_model_comm_nchannels(l);

	if (l->graph_nchannels && l->nnodes > 1 && l->nvswitch && l->ppn > 1 &&
	    l->domain_nodes < 2)
		n = l->nchannels;
	/* NCCL_MAX_P2P_NCHANNELS' default, MAXCHANNELS (64) */
	return FT_MIN(FT_MAX(n, 1u), 64u);
}

/* SPDX-License-Identifier: MIT */
/*
 * model/links.c - from a cluster spec to the link classes the cost model
 * reads: NVLink or PCIe inside a node, rails (NICs) across nodes, and the
 * fabric tier an all-to-all or a ring may saturate.
 *
 * Inside a node NCCL's graph search packs ring channels until a GPU's links
 * are full, so the ring graph bandwidth of a GPU is its NVLink count times
 * NCCL's effective per-link figure (kb NA-MODEL, SRC src/graph/topo.h: SM80
 * 20, SM90 20.6, SM100 40.1 GB/s), or its PCIe rate (bounded by the socket
 * link when the ring crosses sockets). Across nodes each channel leaves a
 * node through one NIC (kb NA-ALGO-RING), so a node's ring bandwidth is its
 * rails times the NIC rate (kb NA-EXPECT). docs/internals/model.md explains
 * the assumptions.
 */
#include "model_int.h"

#include <fabtune/json.h>
#include <fabtune/topo.h>

/* NVLink raw rate per link and direction: 25 GB/s for NVLink 2-4, 50 GB/s for NVLink 5. */
static double
nvlink_raw_link_Bps(uint32_t gen)
{
	return gen >= 5 ? 50e9 : 25e9;
}

double
ft__model_nvlink_link_Bps(enum ft_model_arch arch)
{
	/* kb NA-MODEL "Topology bandwidth constants" (SRC src/graph/topo.h). */
	static const double gBps[FT_ARCH_COUNT] = { 20.0, 20.0, 20.6, 40.1 };

	return gBps[arch] * 1e9;
}

/*
 * The same figure in an older NCCL release @version (NCCL_VERSION's code, patch
 * included; 0: the newest). NVIDIA/nccl src/graph/topo.h at the tags: SM90_NVLINK_BW 20.0 until v2.19.4-1,
 * 20.6 from v2.20.3-1; Blackwell had no constant of its own before v2.25.1-1 (compute
 * capability 10 took SM90's), SM100_NVLINK_BW 40.0 from v2.25.1-1 to v2.27.3-1 and 40.1 from
 * v2.27.5-1 (2.27 is taken as 40.1).
 */
double
ft__model_nvlink_link_Bps_at(enum ft_model_arch arch, uint32_t version)
{
	double hopper = version && version < 22000 ? 20.0e9 : 20.6e9;

	if (version == 0 || arch < FT_ARCH_HOPPER)
		return ft__model_nvlink_link_Bps(arch);
	if (arch == FT_ARCH_HOPPER || version < 22500)
		return hopper;
	return version < 22700 ? 40.0e9 : ft__model_nvlink_link_Bps(arch);
}

/* GB/s with a little slack, so that 9 channels of 40 fill 360 exactly. */
static double
slack_GBps(double Bps)
{
	return Bps / 1e9 * (1 + 1e-9);
}

/*
 * NCCL's per-channel search speeds, GB/s, fastest first (NVIDIA/nccl src/graph/search.cc,
 * speedArrayIntra and speedArrayInter before Hopper, sm90SpeedArray* for Hopper,
 * sm100SpeedArray* for Blackwell). ncclTopoCompute takes an Intra list when the
 * communicator has no network (one node, or one NVLink domain) and an Inter list otherwise,
 * by the least compute capability of its GPUs (ccMin >= 100, >= 90, else the oldest).
 */
struct speeds {
	const double *v;
	size_t n;
};

#define SPEEDS(a) { a, FT_ARRAY_SIZE(a) }

static const double intra_sm80[] = { 40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3 };
static const double inter_sm80[] = { 48, 30, 28, 24, 20, 18, 15, 12, 10, 9,
	                              7,  6,  5,  4,  3,  2.4, 1.2, 0.24, 0.12 };
static const double intra_sm90_218[] = { 60, 40, 30, 24, 20, 15, 12, 6, 3 };
static const double intra_sm90_219[] = { 60, 50, 40, 30, 24, 20, 15, 12, 6, 3 };
static const double intra_sm90[] = { 60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3 };
static const double inter_sm90_218[] = { 48, 45, 42, 40, 30, 24, 20, 17.5,
	                                 15, 12, 6,  3,  2.4, 1.2, 0.24, 0.12 };
static const double inter_sm90[] = { 48, 45, 42, 40, 30, 24, 22, 20, 17.5,
	                             15, 12, 6,  3,  2.4, 1.2, 0.24, 0.12 };
static const double intra_sm100_225[] = { 90, 80, 70, 60, 50, 40, 30, 24, 20, 19 };
static const double intra_sm100_227[] = { 90, 80, 70, 60, 50, 40, 30, 24, 20, 19, 18 };
static const double intra_sm100[] = { 90, 80, 70, 60, 50, 45, 40, 30, 24, 20, 19, 18 };
static const double inter_sm100_227[] = { 96, 48, 45.1, 42, 40, 30, 24, 22, 20, 17.5,
	                                  15, 12, 6,    3,  2.4, 1.2, 0.24, 0.12 };
static const double inter_sm100_229[] = { 96, 80, 48, 45.1, 42, 40,  30,  24,   22,  20,
	                                  17.5, 15, 12, 6,  3, 2.4, 1.2, 0.24, 0.12 };
static const double inter_sm100[] = { 96, 86, 80, 48, 45.1, 42,  40,  30,   24,  22,
	                              20, 17.5, 15, 12, 6,  3, 2.4, 1.2, 0.24, 0.12 };

/*
 * The lists of each NCCL release from 2.18 (the oldest the model takes) on, read at the tag
 * named; a release holds from its version up to the next row's. A minor release is read at
 * its last patch tag (the model's versions carry no patch): 2.18.1 lacked 20 and 17.5 in
 * the Hopper Inter list, 2.19.1 lacked 22, and 2.27.3 and 2.27.5 started Blackwell's Inter
 * list at 47.9 and at 48, 45.1 without 96. Blackwell took the Hopper lists (ccMin >= 90)
 * until sm100 lists of its own came in 2.25.1, whose Inter list was still Hopper's.
 */
struct speed_release {
	uint32_t from;              /* first release: major x 10000 + minor x 100 */
	struct speeds intra[3];     /* before Hopper, Hopper, Blackwell */
	struct speeds inter[3];
};

static const struct speed_release speed_releases[] = {
	/* v2.18.6-1 */
	{ 21800,
	  { SPEEDS(intra_sm80), SPEEDS(intra_sm90_218), SPEEDS(intra_sm90_218) },
	  { SPEEDS(inter_sm80), SPEEDS(inter_sm90_218), SPEEDS(inter_sm90_218) } },
	/* v2.19.4-1, v2.20.5-1: 50 Intra and 22 Inter on Hopper */
	{ 21900,
	  { SPEEDS(intra_sm80), SPEEDS(intra_sm90_219), SPEEDS(intra_sm90_219) },
	  { SPEEDS(inter_sm80), SPEEDS(inter_sm90), SPEEDS(inter_sm90) } },
	/* v2.21.5-1 to v2.24.3-1: 11 Intra on Hopper */
	{ 22100,
	  { SPEEDS(intra_sm80), SPEEDS(intra_sm90), SPEEDS(intra_sm90) },
	  { SPEEDS(inter_sm80), SPEEDS(inter_sm90), SPEEDS(inter_sm90) } },
	/* v2.25.1-1, v2.26.6-1: Blackwell's own Intra list */
	{ 22500,
	  { SPEEDS(intra_sm80), SPEEDS(intra_sm90), SPEEDS(intra_sm100_225) },
	  { SPEEDS(inter_sm80), SPEEDS(inter_sm90), SPEEDS(inter_sm90) } },
	/* v2.27.7-1, v2.28.9-1: 18 Intra; Blackwell's Inter list from 96, 45.1 for 45 */
	{ 22700,
	  { SPEEDS(intra_sm80), SPEEDS(intra_sm90), SPEEDS(intra_sm100_227) },
	  { SPEEDS(inter_sm80), SPEEDS(inter_sm90), SPEEDS(inter_sm100_227) } },
	/* v2.29.7-1: 45 Intra and 80 Inter on Blackwell */
	{ 22900,
	  { SPEEDS(intra_sm80), SPEEDS(intra_sm90), SPEEDS(intra_sm100) },
	  { SPEEDS(inter_sm80), SPEEDS(inter_sm90), SPEEDS(inter_sm100_229) } },
	/* v2.30.7-1, the newest: 86 Inter on Blackwell */
	{ 23000,
	  { SPEEDS(intra_sm80), SPEEDS(intra_sm90), SPEEDS(intra_sm100) },
	  { SPEEDS(inter_sm80), SPEEDS(inter_sm90), SPEEDS(inter_sm100) } },
};

/* The speed list NCCL release @version (NCCL_VERSION's code; 0: the newest) searches
 * on GPUs of @arch: the Inter list when @inter (a communicator with a network). */
static struct speeds
nccl_speeds(enum ft_model_arch arch, uint32_t version, bool inter)
{
	size_t r = FT_ARRAY_SIZE(speed_releases) - 1, col;

	if (version != 0)
		while (r > 0 && speed_releases[r].from > version)
			r--;
	col = arch >= FT_ARCH_BLACKWELL ? 2 : arch == FT_ARCH_HOPPER ? 1 : 0;
	return inter ? speed_releases[r].inter[col] : speed_releases[r].intra[col];
}

/* The index of the fastest speed of @s not above @max_GBps; the slowest when none is. */
static size_t
first_speed(struct speeds s, double max_GBps)
{
	size_t i = 0;

	while (i < s.n - 1 && s.v[i] > max_GBps)
		i++;
	return i;
}

/* How many channels of @speed GB/s a graph packs on the links @ctx describes. */
typedef double (*channel_fit)(double speed, const void *ctx);

/*
 * NCCL's first search pass (ncclTopoCompute): from the fastest speed of @s not above
 * @max_GBps, the graph of the most channels x speed (the first of equals), lowering the
 * speed while the next one is above 0.49 of the kept graph's. Returns the index of the
 * kept speed, @s.n when no speed packs a channel; @nch gets its channels.
 */
static size_t
search_speeds(struct speeds s, double max_GBps, channel_fit fit, const void *ctx, double *nch)
{
	size_t i, kept = s.n;
	double best = 0;

	*nch = 0;
	for (i = first_speed(s, max_GBps);
	     i < s.n && !(kept < s.n && s.v[i] / s.v[kept] <= 0.49); i++) {
		double c = fit(s.v[i], ctx);

		if (c >= 1 && c * s.v[i] > best) {
			best = c * s.v[i];
			kept = i;
			*nch = c;
		}
	}
	return kept;
}

/* ncclTopoDupChannels: the channels doubled (at most the graph's MAXCHANNELS / 2 of release
 * @version: 16 before 2.25, 32 from it) at the speed divided alike, from 25 GB/s, and on
 * Hopper and later not under 50 GB/s with more than 4 channels. */
static void
dup_channels(enum ft_model_arch arch, uint32_t version, double *speed, double *nch)
{
	double dup;

	if (*speed < 25 || (arch >= FT_ARCH_HOPPER && *speed < 50 && *nch > 4))
		return;
	dup = FT_MIN(2 * *nch, ft__model_max_channels(version) / 2.0);
	if (dup <= *nch)
		return;
	*speed /= ceil(dup / *nch);
	*nch = dup;
}

/* Channels on a GPU's NICs alone: floor(path / speed) a NIC, at least one, at most 32. */
struct nic_fit {
	double path;
	uint32_t nics;
};

static double
fit_nics(double speed, const void *ctx)
{
	const struct nic_fit *f = ctx;

	return FT_MIN(FT_MAX(floor(f->path / speed), 1.0) * f->nics, 32.0);
}

/*
 * The channels of a graph whose ranks are one GPU a node (NVIDIA/nccl
 * src/graph/search.cc, ncclTopoCompute). No NVLink hop is in it, so the
 * search takes the Inter list of release @version and packs channels on the
 * GPU's NICs alone, at the first speed not above a NIC's path and as many of
 * it as the NICs hold; ncclTopoDupChannels then doubles them, and
 * ncclTopoPostset (src/graph/connect.cc) doubles them again. One 400G NIC
 * gives 1 x 48, 2 x 24, then 4 channels; one HDR NIC 1 x 24, not duplicated,
 * then 2; four 100G EFA NICs 4 x 12, then 8; a 10 GbE NIC (1.25 GB/s) 1 x 1.2,
 * then 2; an 8 Gb/s one 4 x 0.24, then 8.
 */
uint32_t
ft__model_net_graph(enum ft_model_arch arch, uint32_t version, double nic_Bps, uint32_t nics,
                    double *speed_GBps)
{
	struct speeds s = nccl_speeds(arch, version, true);
	struct nic_fit f = { slack_GBps(nic_Bps), nics };
	double nch, speed;
	size_t kept = search_speeds(s, f.path, fit_nics, &f, &nch);

	if (kept == s.n)
		kept = s.n - 1;
	speed = s.v[kept];
	nch = FT_MAX(nch, 1.0);
	dup_channels(arch, version, &speed, &nch);
	*speed_GBps = speed;
	return (uint32_t)nch;
}

/*
 * One GPU a node: the net graph of release @version on the GPU's NICs; the model's nchannels
 * the communicator's (twice the graph's), which the tuner has read so far.
 */
void
ft__model_net_channels(struct ft_model_links *l, uint32_t version)
{
	l->graph_nchannels = ft__model_net_graph(l->arch, version, l->nic_Bps, l->gpu_nics,
	                                         &l->graph_GBps);
	l->nchannels = FT_MIN(2 * l->graph_nchannels, (uint32_t)FT_SPEC_MAX_CHANNELS);
}

/* The fastest of NCCL's Intra speeds not above @max_Bps; the slowest of the list when none is. */
static double
graph_speed_Bps(enum ft_model_arch arch, uint32_t version, double max_Bps)
{
	struct speeds s = nccl_speeds(arch, version, false);

	return s.v[first_speed(s, slack_GBps(max_Bps))] * 1e9;
}

static double
fit_links(double speed, const void *ctx)
{
	return FT_MIN(floor(*(const double *)ctx / speed), 32.0);
}

/*
 * The ring graph NCCL's search finds on NVLink of @total bytes/s a GPU (its links times the
 * per-link figure). The search tries one bandwidth per channel from its Intra list,
 * fastest first, and packs as many channels of that speed as the GPU's links hold, at most
 * MAXCHANNELS/2 = 32 (search_speeds()). Duplicating channels afterwards
 * (ncclTopoDupChannels) halves the speed and doubles the channels, so the total is what
 * this returns. An H100's 18 x 20.6 = 370.8 GB/s gives 6 x 60 = 360 (NCCL_DEBUG_SUBSYS=GRAPH
 * prints 12 x 30 after duplication), an A100's 12 x 20 = 240 gives 6 x 40 = 240, a Blackwell
 * GPU's 18 x 40.1 = 721.8 gives 8 x 90 = 720.
 */
double
ft__model_ring_graph_Bps(enum ft_model_arch arch, uint32_t version, double total)
{
	struct speeds s = nccl_speeds(arch, version, false);
	double gbps = slack_GBps(total), nch;
	size_t kept = search_speeds(s, gbps, fit_links, &gbps, &nch);

	return kept < s.n ? nch * s.v[kept] * 1e9 : total;
}

/*
 * The same search as ft__model_ring_graph_Bps() on NVLink alone, then ncclTopoDupChannels
 * (at most MAXCHANNELS / 2 of release @version): the channels, and a channel's bwIntra
 * into @speed_GBps; 0 where no speed fits. A Blackwell GPU's 18 x 40.0 (2.25, 2.26) or
 * 18 x 40.1 (2.27 on): 8 x 90 -> 16 x 45 on Blackwell's own Intra list; before 2.25 it
 * took Hopper's figure and list, as an H100's 18 x 20.6: 6 x 60 -> 12 x 30. An A100's
 * 12 x 20: 6 x 40 -> 12 x 20.
 */
uint32_t
ft__model_intra_graph(enum ft_model_arch arch, uint32_t version, double total, double *speed_GBps)
{
	struct speeds s = nccl_speeds(arch, version, false);
	double gbps = slack_GBps(total), nch, speed;
	size_t kept = search_speeds(s, gbps, fit_links, &gbps, &nch);

	*speed_GBps = 0;
	if (kept == s.n)
		return 0;
	speed = s.v[kept];
	nch = FT_MIN(nch, ft__model_max_channels(version) / 2.0);
	dup_channels(arch, version, &speed, &nch);
	*speed_GBps = speed;
	return (uint32_t)nch;
}

static enum ft_model_arch arch_of(const struct ft_node_spec *n);

/* NVLink links of a GPU of @n: its NVLink rate over the raw rate of one link. */
static uint32_t
nvlink_count(const struct ft_node_spec *n)
{
	uint32_t links = (uint32_t)(n->nvlink_Bps / nvlink_raw_link_Bps(n->nvlink_gen) + 0.5);

	return links ? links : 1;
}

/*
 * The share of NVLink's raw rate that NCCL reaches: its ring graph on the GPU's links at
 * its per-link figure (kb NA-MODEL), 360 of 450 GB/s on an H100, 720 of 900 on a B200.
 * The flow and packet engines run NVLink at it; the model's intra rate is the same.
 */
static double
nvlink_efficiency(const struct ft_node_spec *n)
{
	uint32_t links;

	if (n->nvlink_gen == 0 || !(n->nvlink_Bps > 0))
		return 1.0;
	links = nvlink_count(n);
	return ft__model_ring_graph_Bps(arch_of(n), 0, links * ft__model_nvlink_link_Bps(arch_of(n))) /
	       (links * nvlink_raw_link_Bps(n->nvlink_gen));
}

static enum ft_model_arch
arch_of(const struct ft_node_spec *n)
{
	switch (n->nvlink_gen) {
	case 2:
		return FT_ARCH_VOLTA;
	case 4:
		return FT_ARCH_HOPPER;
	case 5:
		return FT_ARCH_BLACKWELL;
	default:
		/* NVLink 3 is Ampere; PCIe-only GPUs (Ada, Ampere) fall in NCCL's Ampere row. */
		return n->nvlink_gen >= 6 ? FT_ARCH_BLACKWELL : FT_ARCH_AMPERE;
	}
}

/*
 * The first NCCL release that knows each architecture's compute capability (ft_model_query's
 * encoding; 0: every release the model reads): NVIDIA/nccl at the tags, Hopper (9.0) from
 * v2.15.1-1 (makefiles/common.mk -gencode sm_90, src/graph/tuning.cc HOPPER_COMPCAP_IDX;
 * absent at v2.14.3-1), Blackwell (10.0) from v2.25.1-1 (src/graph/topo.h SM100_NVLINK_BW
 * and cudaCompCap >= 100, tuning.cc BLACKWELL_COMPCAP_IDX, common.mk compute_100; at
 * v2.24.3-1 cudaCompCap >= 90 takes SM90_NVLINK_BW and HOPPER_COMPCAP_IDX for it).
 */
static const uint32_t arch_first[FT_ARCH_COUNT] = { [FT_ARCH_HOPPER] = 21501,
	                                            [FT_ARCH_BLACKWELL] = 22501 };
static const char *const arch_names[FT_ARCH_COUNT] = { "Volta", "Ampere", "Hopper",
	                                               "Blackwell" };

/* @n's GPUs into @out where release @out->version predates them and they are the newest. */
static void
note_node(const struct ft_node_spec *n, struct ft_model_nccl_note *out)
{
	enum ft_model_arch a = arch_of(n);

	if (arch_first[a] <= out->version || arch_first[a] <= out->first)
		return;
	out->first = arch_first[a];
	ft_strlcpy(out->gpu, n->gpu_model, sizeof(out->gpu));
	out->arch = arch_names[a];
	out->taken = arch_names[a - 1];
}

bool
ft_model_nccl_note_get(const struct ft_cluster_spec *spec, uint32_t version,
                       struct ft_model_nccl_note *out)
{
	memset(out, 0, sizeof(*out));
	out->version = version;
	if (version == 0)
		return false;
	note_node(&spec->node, out);
	for (uint32_t g = 0; g < spec->ngroups && g < FT_SPEC_MAX_GROUPS; g++)
		note_node(&spec->groups[g].node, out);
	return out->first != 0;
}

void
ft_model_nccl_note_text(const struct ft_model_nccl_note *n, const char *where,
                        const char *field, char *buf, size_t len)
{
	char v[16], first[16];
	bool at = where && *where;

	ft_model_nccl_name(n->version, v, sizeof(v));
	ft_model_nccl_name(n->first, first, sizeof(first));
	snprintf(buf, len,
	         "%s%s%s %s: NCCL %s predates the %s GPUs (%s): NCCL knows them from %s; the "
	         "model prices them with %s's constants, as %s does",
	         at ? where : "", at ? ": " : "", field, v, v, n->gpu, n->arch ? n->arch : "?",
	         first, n->taken ? n->taken : "?", v);
}

void
ft_model_nccl_note_json(struct ft_json *j, const struct ft_model_nccl_note *n,
                        const char *where, const char *field)
{
	char v[16], first[16], msg[640];

	ft_model_nccl_name(n->version, v, sizeof(v));
	ft_model_nccl_name(n->first, first, sizeof(first));
	ft_model_nccl_note_text(n, where, field, msg, sizeof(msg));
	ft_json_obj_begin(j);
	ft_json_kv_str(j, "field", field);
	if (where && *where)
		ft_json_kv_str(j, "where", where);
	ft_json_kv_str(j, "gpu", n->gpu);
	ft_json_kv_str(j, "nccl", v);
	ft_json_kv_str(j, "first_nccl", first);
	ft_json_kv_str(j, "message", msg);
	ft_json_obj_end(j);
}

/* The technology of the NIC links: the fabric's link preset, else the NIC's; -1 unknown. */
static int
wire_tech(const struct ft_cluster_spec *s)
{
	const struct ft_link_preset *lp = NULL;

	if (s->fabric.link[0])
		lp = ft_link_preset_find(s->fabric.link);
	if (!lp && s->node.nic_link[0])
		lp = ft_link_preset_find(s->node.nic_link);
	return lp ? (int)lp->tech : -1;
}

/*
 * AWS EFA's SRD header is not published; the share of the card's rate that RDMA writes
 * reach is: 3,108.283 of 3,200 Gb/s over the 32 cards of a p5 at once (libfabric
 * fi_writemsg, docs/presets.md PS-EFA-RATE).
 */
#define EFA_ACHIEVED_SHARE (3108.283 / 3200.0)

/*
 * aws-ofi-nccl's RDMA protocol: recv() sends the sender a control message, and send()
 * writes only once that message is in its message buffer (src/nccl_ofi_rdma.cpp recv(),
 * send(), v1.16.3). The protocol is the plugin's platform's, not the fabric's: the node's
 * nics.rendezvous (aws-p5, aws-p5e: 23 us; docs/presets.md PS-EFA-RDV), 0 elsewhere, as
 * on the instances the plugin runs SENDRECV on.
 */
double
ft_model_efa_rdv_s(const struct ft_cluster_spec *spec)
{
	return spec->node.rdv_s;
}

/* Payload share of a packet of the fabric's MTU (kb IB-MTU, ROCE-WIRE); EFA's achieved. */
static double
wire_efficiency(const struct ft_cluster_spec *s)
{
	double mtu = s->fabric.mtu_bytes ? s->fabric.mtu_bytes : 4096;

	switch (wire_tech(s)) {
	case FT_TECH_IB:
		return mtu / (mtu + 26.0); /* LRH 8 + BTH 12 + ICRC 4 + VCRC 2 */
	case FT_TECH_ROCE:
		return mtu / (mtu + 82.0); /* Eth 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4
		                            * + preamble and inter-frame gap 20 */
	case FT_TECH_EFA:
		return EFA_ACHIEVED_SHARE;
	default:
		return 1.0;
	}
}

double
ft_model_link_efficiency(const struct ft_cluster_spec *spec, int link_kind)
{
	const struct ft_node_spec *n = &spec->node;

	switch (link_kind) {
	case FT_L_NVLINK:
		return nvlink_efficiency(n);
	case FT_L_HOST:
	case FT_L_FABRIC:
		return wire_efficiency(spec);
	default:
		return 1.0;
	}
}

/* Whether a node of @n runs NCCL's NVLS: NVLink through an NVSwitch with NVLink SHARP
 * (nodes.nvlink.nvls), Hopper or later. */
static bool
node_nvls(const struct ft_node_spec *n)
{
	return n->nvlink_gen > 0 && n->nvlink_Bps > 0 && n->nvswitch && n->nvls &&
	       arch_of(n) >= FT_ARCH_HOPPER;
}

double
ft__model_nvls_channel_Bps(enum ft_model_arch arch, uint32_t version, double links, double heads)
{
	return graph_speed_Bps(arch, version, links / (heads + 1.0));
}

/* NVLS channels across nodes: (k + 1) x speed within a head's links, at most @heads. */
struct nvls_fit {
	double links, heads;
};

static double
fit_nvls(double speed, const void *ctx)
{
	const struct nvls_fit *f = ctx;

	return FT_MIN(floor(f->links / speed) - 1.0, f->heads);
}

/*
 * The NVLS graph NCCL release @version (2.19 to 2.27) finds on a node with a network
 * (src/graph/search.cc, ncclTopoCompute and ncclTopoSearchTryNvls): one channel per head, a
 * head being a GPU with a NIC of its own, at most @heads; every channel takes its bwIntra
 * off each GPU's NVSwitch link in each direction and twice off its head's, so k channels
 * fit where (k + 1) x bwIntra <= @links. The search runs the release's Inter list from the
 * GPU's path to its NIC (@nic_Bps; search_speeds()); its second pass then raises bwInter
 * alone, a step of the list at a time with the channels fixed, while the NIC holds the
 * next step and bwInter is still under twice bwIntra. 8 H100s with a 400G NIC
 * each: 6 x 48, 7 x 45, 7 x 42, 8 x 40 -> 8 channels, bwIntra 40, bwInter 48. Returns the
 * channels; @bw_intra and @bw_inter get the graph's speeds, bytes/s.
 */
double
ft__model_nvls_net_graph(enum ft_model_arch arch, uint32_t version, double links, double heads,
                         double nic_Bps, double *bw_intra, double *bw_inter)
{
	struct speeds s = nccl_speeds(arch, version, true);
	struct nvls_fit f = { slack_GBps(links), heads };
	double nic = slack_GBps(nic_Bps), nch;
	size_t kept = search_speeds(s, nic, fit_nvls, &f, &nch), j;

	if (kept == s.n) {
		*bw_intra = *bw_inter = 0;
		return 0;
	}
	j = kept;
	while (j > 0 && s.v[j - 1] <= nic && s.v[j] < 2 * s.v[kept])
		j--;
	*bw_intra = s.v[kept] * 1e9;
	*bw_inter = s.v[j] * 1e9;
	return nch;
}

/* Ring channels of a node on a network: floor(path / speed) a NIC, within what NVLink
 * carries (nCh x speed x share), at most 32. */
struct node_fit {
	double path, nv, share;
	uint32_t nics;
};

static double
fit_node(double speed, const void *ctx)
{
	const struct node_fit *f = ctx;

	return FT_MIN(FT_MIN(floor(f->path / speed) * f->nics, floor(f->nv / (speed * f->share))),
	              32.0);
}

/*
 * The ring graph's search on @s for a node that @f describes, then ncclTopoDupChannels
 * of release @version (at most MAXCHANNELS / 2): the kept speed into @speed (GB/s) and
 * the channels into @nch. Returns false where no speed of the list fits.
 */
static bool
ring_graph(enum ft_model_arch arch, uint32_t version, struct speeds s, const struct node_fit *f,
           double *speed, double *nch)
{
	size_t kept = search_speeds(s, f->path, fit_node, f, nch);

	if (kept == s.n)
		return false;
	*speed = s.v[kept];
	dup_channels(arch, version, speed, nch);
	return true;
}

/*
 * NCCL's tree graph across 2 nodes, as its tuner reads it there (nChannels x bwIntra;
 * src/graph/tuning.cc takes bwIntra when nNodes <= 2). The ring graph comes first
 * (src/graph/search.cc, ncclTopoCompute): on the Inter list of release @version from a
 * NIC's path (@nic_Bps), as many channels as the node's @nics hold (floor(path / speed)
 * each) and the GPUs' NVLink carries (a channel crosses NVLink from all its @ppn GPUs but
 * the one that leaves by the NIC: nCh x speed x (ppn - 1) / ppn <= @links), at most 32
 * (search_speeds()); then ncclTopoDupChannels. The tree is searched with the ring's
 * channels at most, the same graph, and its second pass raises bwIntra alone, a step of
 * the list at a time, while the NVLink holds the next step and bwIntra is under twice
 * bwInter. GCP A3 Mega (8 x 200G, 8 H100s): the ring 8 x 24, the tree's bwIntra 24 -> 48,
 * 384 GB/s; DGX H100 (8 x 400G behind Gen5): 8 x 48, no step above 48 on Hopper's list,
 * 384; DGX B200 from 2.27 on: 8 x 48 -> 96 on Blackwell's, 768; DGX A100 (8 x HDR, Gen4):
 * 8 x 24 -> 30 (48 would need 336 of 240), 240. Returns nChannels x bwIntra, bytes/s, and
 * the channels in @nchannels; 0 without NVLink or NICs.
 */
double
ft__model_tree_net_graph_Bps(enum ft_model_arch arch, uint32_t version, double links,
                             double ppn, uint32_t nics, double nic_Bps, uint32_t *nchannels)
{
	struct speeds s = nccl_speeds(arch, version, true);
	struct node_fit f = { slack_GBps(nic_Bps), slack_GBps(links), (ppn - 1) / ppn, nics };
	double nch, speed, intra;
	size_t j;

	*nchannels = 0;
	if (ppn < 2 || nics == 0 || links <= 0 || nic_Bps <= 0 ||
	    !ring_graph(arch, version, s, &f, &speed, &nch))
		return 0;
	for (j = 0; j < s.n && s.v[j] > speed; j++)
		;
	intra = speed;
	while (j > 0 && intra < 2 * speed && nch * s.v[j - 1] * f.share <= f.nv) {
		j--;
		intra = s.v[j];
	}
	*nchannels = (uint32_t)nch;
	return nch * intra * 1e9;
}

/*
 * The ring graph NCCL builds in an NVLink domain (MNNVL) that reaches other domains through
 * its NICs (src/graph/search.cc, ncclTopoCompute): the fused system of the domain keeps its
 * NICs, so the search runs the Inter list of release @version from a NIC's path (@nic_Bps),
 * as many channels of a speed as the domain's @nics hold (floor(path / speed) each) and a
 * GPU's NVLink (@links) carries, at most 32 (search_speeds()); then ncclTopoDupChannels,
 * which on Blackwell leaves more than 4 channels under 50 GB/s alone. The tree graph takes
 * the ring's channels (src/init.cc). GB200 NVL72 (48 GB/s from a GPU to its NIC, 72 NICs):
 * 15 x 48 = 720 on 2.25-2.26 (18 x 40.0 of NVLink, the search stops at the first graph
 * that fills it), 16 x 45.1 = 721.6 from 2.27 (18 x 40.1: 15 x 48 leaves 1.8 GB/s, and
 * the search goes on down the list while a speed is above 0.49 of the kept one). GB300
 * NVL72 (96 GB/s PCIe Gen6 path to an 800G NIC) the same: 7 x 96 = 672 falls short of 9 x
 * 80, 15 x 48 and 16 x 45.1. Returns the channels; @speed_Bps gets a channel's bwIntra
 * (= bwInter), bytes/s; 0 without NVLink or NICs.
 */
uint32_t
ft__model_domain_net_graph(enum ft_model_arch arch, uint32_t version, double links, double ppn,
                           uint32_t nics, double nic_Bps, double *speed_Bps)
{
	struct speeds s = nccl_speeds(arch, version, true);
	struct node_fit f = { slack_GBps(nic_Bps), slack_GBps(links), (ppn - 1) / ppn, nics };
	double nch, speed;

	*speed_Bps = 0;
	if (ppn < 2 || nics == 0 || links <= 0 || nic_Bps <= 0 ||
	    !ring_graph(arch, version, s, &f, &speed, &nch))
		return 0;
	*speed_Bps = speed * 1e9;
	return (uint32_t)nch;
}

double
ft_model_nvls_channel_share(const struct ft_cluster_spec *spec, uint32_t heads)
{
	const struct ft_node_spec *n = &spec->node;
	enum ft_model_arch arch = arch_of(n);
	double links, h = FT_MIN(heads, FT__MODEL_NVLS_MAX_HEADS);

	if (!node_nvls(n) || h < 1)
		return 1.0;
	links = nvlink_count(n) * ft__model_nvlink_link_Bps(arch);
	return ft__model_nvls_channel_Bps(arch, 0, links, h) /
	       (ft__model_ring_graph_Bps(arch, 0, links) / (h + 1.0));
}

double
ft_model_nvls_efficiency(const struct ft_cluster_spec *spec)
{
	uint32_t g;

	if (!node_nvls(&spec->node))
		return 0;
	for (g = 0; g < spec->ngroups && g < FT_SPEC_MAX_GROUPS; g++)
		if (!node_nvls(&spec->groups[g].node))
			return 0;
	return ft__model_nvls_eff(arch_of(&spec->node));
}

double
ft_model_collnet_direct_efficiency(const struct ft_cluster_spec *spec)
{
	return arch_of(&spec->node) >= FT_ARCH_HOPPER ? 0.85 : 1.0;
}

/* busBw x .85 at v2.23.4-1, x .75 from v2.24.3-1 (src/graph/tuning.cc; kb NA-ALGO-PAT) */
double
ft_model_pat_busbw_share(uint32_t version)
{
	return version && version < 22400 ? 0.85 : 0.75;
}

double
ft_model_tree_efficiency(void)
{
	return 0.92;
}

/* Nodes whose NICs of one rail share a leaf switch (1 for a dragonfly router's share). */
uint32_t
ft__model_nodes_per_leaf(const struct ft_cluster_spec *s, uint32_t *up_ports)
{
	const struct ft_fabric_spec *f = &s->fabric;
	uint32_t down = 0, up = 0, nics = FT_MAX(s->node.nnics, 1u), per;

	*up_ports = 0;
	switch (f->kind) {
	case FT_FABRIC_FAT_TREE:
	case FT_FABRIC_RAIL_FAT_TREE:
	case FT_FABRIC_MULTI_PLANE:
		if (f->radix == 0)
			return UINT32_MAX;
		ft_spec_leaf_ports(f, &down, &up);
		*up_ports = up;
		if (f->kind == FT_FABRIC_RAIL_FAT_TREE) {
			per = f->nodes_per_unit ? f->nodes_per_unit : down;
			return FT_MAX(FT_MIN(per, down), 1u);
		}
		if (f->kind == FT_FABRIC_MULTI_PLANE)
			nics = FT_MAX(nics / FT_MAX(f->planes, 1u), 1u);
		return FT_MAX(down / nics, 1u);
	default:
		return UINT32_MAX;
	}
}

/*
 * The fabric's share of a node's all-to-all and ring bandwidth. In a fat-tree
 * the leaf uplinks carry what leaves the leaf: for an all-to-all over N
 * nodes with L of them per leaf, (N - L)/(N - 1) of every node's traffic;
 * for a ring one NIC's worth per rail. In a dragonfly the global links of a
 * group carry (G - 1)/G of its nodes' all-to-all traffic.
 */
static void
fabric_factors(const struct ft_cluster_spec *s, struct ft_model_links *l)
{
	const struct ft_fabric_spec *f = &s->fabric;
	uint32_t up = 0, L, N = l->nnodes, nics_per_leaf;
	double link = f->link_Bps > 0 ? f->link_Bps * wire_efficiency(s) : l->nic_Bps;
	double demand, cap, leave;

	l->a2a_factor = 1.0;
	l->a2a_spine_factor = 1.0;
	l->sr_spine_factor = 1.0;
	l->ring_tier_factor = 1.0;
	ft_strlcpy(l->a2a_what, "tier1", sizeof(l->a2a_what));
	if (N < 2)
		return;
	if (f->kind == FT_FABRIC_DRAGONFLY && f->groups > 1 && f->routers_per_group &&
	    f->nodes_per_router) {
		uint32_t per_group = f->routers_per_group * f->nodes_per_router;
		uint32_t G = (N + per_group - 1) / per_group;

		ft_strlcpy(l->a2a_what, "global", sizeof(l->a2a_what));
		if (G < 2)
			return;
		cap = (double)f->routers_per_group * f->global_links_per_router * link;
		demand = (double)FT_MIN(per_group, N) * l->nrails * l->nic_Bps * (G - 1) / G;
		if (demand > cap)
			l->a2a_factor = cap / demand;
		return;
	}
	L = ft__model_nodes_per_leaf(s, &up);
	if (L == UINT32_MAX || N <= L || up == 0)
		return;
	/* Per leaf switch: rail-optimized leaves see one NIC per node, plain leaves all of them. */
	nics_per_leaf = f->kind == FT_FABRIC_RAIL_FAT_TREE ? L : L * FT_MAX(l->nrails, 1u);
	cap = (double)up * link;
	leave = (double)(N - L) / (double)(N - 1);
	demand = (double)nics_per_leaf * l->nic_Bps * leave;
	if (demand > cap)
		l->a2a_factor = cap / demand;
	if (f->kind == FT_FABRIC_RAIL_FAT_TREE && l->nic_Bps > cap)
		l->ring_tier_factor = cap / l->nic_Bps;
	else if (f->kind != FT_FABRIC_RAIL_FAT_TREE && l->nrails * l->nic_Bps > cap)
		l->ring_tier_factor = cap / (l->nrails * l->nic_Bps);
}

/*
 * Switch and cable latency of the longest path between two of the job's nodes; @cross_rail:
 * from a NIC of one rail to a NIC of another. A rail-optimized fat-tree puts NIC r of every
 * node of a scalable unit on the unit's leaf r (topo/fattree.c), so a path that stays on
 * its rail inside a unit crosses that leaf alone, and one between rails goes up to a spine
 * and down to the other rail's leaf: 3 switches and 4 cables (a unit's leaves share their
 * pod's spines on 3 tiers too). Between units either path is the tree's longest. On the
 * other fabrics a node's NICs share their leaves, and the rail does not change the path.
 */
static double
fabric_latency(const struct ft_cluster_spec *s, uint32_t nnodes, bool cross_rail)
{
	const struct ft_fabric_spec *f = &s->fabric;
	uint32_t up, sw = 1, d, far;

	if (nnodes < 2)
		return 0;
	switch (f->kind) {
	case FT_FABRIC_FAT_TREE:
	case FT_FABRIC_RAIL_FAT_TREE:
	case FT_FABRIC_MULTI_PLANE:
		far = 2 * FT_MAX(f->tiers, 2u) - 1;
		sw = nnodes > ft__model_nodes_per_leaf(s, &up) ? far : 1;
		if (cross_rail && f->kind == FT_FABRIC_RAIL_FAT_TREE)
			sw = FT_MAX(sw, 3u);
		break;
	case FT_FABRIC_DRAGONFLY:
		sw = 3; /* local, global, local (minimal route) */
		break;
	case FT_FABRIC_TORUS:
		for (sw = 1, d = 0; d < f->ndims && d < 3; d++)
			sw += f->dims[d] / 2;
		break;
	default:
		sw = 1;
		break;
	}
	return sw * f->lat_switch_s + (sw + 1) * f->lat_cable_s;
}

/* Distinct NICs and NUMA domains of the first @ppn GPUs of a node. */
static void
count_rails(const struct ft_node_spec *n, uint32_t ppn, uint32_t *nrails, uint32_t *nnuma)
{
	bool nic[FT_SPEC_MAX_NICS] = { false }, numa[64] = { false };
	uint32_t g, k;

	*nrails = 0;
	*nnuma = 0;
	for (g = 0; g < ppn && g < FT_SPEC_MAX_GPUS; g++) {
		uint32_t j, per = FT_MAX(n->nics_per_gpu, 1u);

		/* A GPU drives nics_per_gpu NICs from its own (AWS p5: 4); GPUs that share one
		 * (gpu_nic equal) count it once. */
		for (j = 0; j < per; j++) {
			k = n->gpu_nic[g] + j;
			if (n->nnics && k < n->nnics && k < FT_SPEC_MAX_NICS && !nic[k]) {
				nic[k] = true;
				(*nrails)++;
			}
		}
		k = n->gpu_numa[g];
		if (k < 64 && !numa[k]) {
			numa[k] = true;
			(*nnuma)++;
		}
	}
	if (*nrails == 0 && n->nnics)
		*nrails = 1;
}

/* Whether @n's first GPU drives every one of the @nrails NICs its ranks use: the NICs from
 * its gpu_nic, nics_per_gpu of them (count_rails()). */
static bool
root_drives_all(const struct ft_node_spec *n, uint32_t nrails)
{
	uint32_t per = FT_MAX(n->nics_per_gpu, 1u), k, own = 0;

	for (k = n->gpu_nic[0]; k < n->gpu_nic[0] + per && k < n->nnics; k++)
		own++;
	return nrails <= FT_MAX(own, 1u);
}

_Static_assert(FT_SPEC_MAX_GPUS <= 16, "same_rail holds a node's GPUs in 16 bits");

uint32_t
ft_model_pxn_proxy(const struct ft_node_spec *n, uint32_t ngpus, uint32_t job, uint32_t nic)
{
	uint32_t g, p = UINT32_MAX;

	ngpus = FT_MIN(ngpus, (uint32_t)FT_SPEC_MAX_GPUS);
	for (g = 0; g < ngpus && nic < FT_SPEC_MAX_NICS; g++) {
		if (n->gpu_nic[g] != nic || !((job >> g) & 1u))
			continue;
		if (p == UINT32_MAX)
			p = g;
		if (n->gpu_pcie_switch[g] == n->nic_pcie_switch[nic])
			return g;
	}
	return p;
}

/* NCCL_PXN_C2C's default is 1 from v2.28.3-1 (src/graph/paths.cc; 0 in v2.27.3-1 to
 * v2.27.7-1, and before v2.27 no PATH_P2C, so a GPU on C2C reaches the NIC at PATH_PHB). */
#define PXN_C2C_FROM 22803

uint32_t
ft_model_pxn_relay(const struct ft_node_spec *n, uint32_t ngpus, uint32_t job, uint32_t nic,
                   uint32_t nccl_version)
{
	uint32_t p = ft_model_pxn_proxy(n, ngpus, job, nic);
	bool c2c = ft_node_gpu_c2c(n);

	/* search.cc ncclTopoGetNetDev(), NCCL_P2P_PXN_LEVEL 2: the proxy's path to the sender
	 * at most PATH_NVL, its path to the NIC at most PATH_PXB, or PATH_P2C where
	 * NCCL_PXN_C2C is set; else the sender keeps its own NIC (NCCL_CROSS_NIC 2). A GPU on
	 * C2C reaches a NIC on its CPU's PCIe at PATH_P2C (paths.cc ncclTopoComputePaths(),
	 * mergePathType()): admitted from v2.28.3-1 (PXN_C2C_FROM) by default. A node with no
	 * PCIe switches hangs each GPU and NIC on a CPU root port (PATH_PHB): no proxy
	 * qualifies unless its GPU reaches the CPU by C2C. */
	if (p == UINT32_MAX || !(n->nvlink_gen > 0 && n->nvlink_Bps > 0) ||
	    (n->npcie_switches == 0 && !c2c) || n->gpu_pcie_switch[p] != n->nic_pcie_switch[nic] ||
	    (c2c && nccl_version != 0 && nccl_version < PXN_C2C_FROM))
		return UINT32_MAX;
	return p;
}

/*
 * Whether local rank @g's send to local rank @h, both among the first @ng GPUs of @n, PXN
 * relays: the proxy of h's NIC among them (ft_model_pxn_relay()) is another GPU than g.
 */
static bool
pxn_relays(const struct ft_node_spec *n, uint32_t ng, uint32_t g, uint32_t h, uint32_t version)
{
	uint32_t p =
	        ft_model_pxn_relay(n, ng, (uint32_t)((1ull << ng) - 1), n->gpu_nic[h], version);

	return p != UINT32_MAX && p != g;
}

/*
 * Which of the first @ppn GPUs of @n leave by the same NIC (links same_rail, rail_ppn), and
 * which sends PXN relays (pxn_relay): those whose proxy (pxn_relays(), among the job's
 * GPUs 0 to ppn - 1 of the node) is not the sender. Local ranks past the node's GPUs (an
 * NVLink domain of trays) relay where their rails differ.
 */
static void
rail_pairs(const struct ft_node_spec *n, uint32_t ppn, uint32_t version, struct ft_model_links *l)
{
	uint32_t g, h, ng;

	l->rail_ppn = FT_MIN(FT_MAX(ppn, 1u), (uint32_t)FT_SPEC_MAX_GPUS);
	ng = FT_MIN(l->rail_ppn, n->ngpus);
	for (g = 0; g < l->rail_ppn; g++) {
		l->same_rail[g] = 0;
		for (h = 0; h < l->rail_ppn; h++)
			if (n->gpu_nic[g] == n->gpu_nic[h])
				l->same_rail[g] |= (uint16_t)(1u << h);
	}
	for (g = 0; g < l->rail_ppn; g++) {
		l->pxn_relay[g] = 0;
		for (h = 0; h < l->rail_ppn; h++) {
			bool relay = g < ng && h < ng ? pxn_relays(n, ng, g, h, version) :
			                                !((l->same_rail[g] >> h) & 1u);

			if (relay)
				l->pxn_relay[g] |= (uint16_t)(1u << h);
		}
	}
}

/*
 * Several NVLink domains: the channels and rate of NCCL release @version's ring graph in a
 * domain that has NICs (ft__model_domain_net_graph()), not one channel per NVLink; the
 * graph's rate is channels x speed (15 x 48 = 720 GB/s on GB200 NVL72 with 2.26).
 */
void
ft__model_domain_channels(struct ft_model_links *l, uint32_t version)
{
	double speed;
	uint32_t nch;

	if (!l->nvlink || l->domain_nodes < 2 || l->nnodes < 2 || l->nvlinks == 0)
		return;
	nch = ft__model_domain_net_graph(l->arch, version,
	                                 l->nvlinks * ft__model_nvlink_link_Bps_at(l->arch, version),
	                                 l->ppn, l->nrails, l->nic_Bps, &speed);
	if (nch == 0)
		return;
	l->nchannels = nch;
	l->graph_nchannels = nch;
	l->graph_GBps = speed / 1e9;
	l->intra_Bps = nch * speed;
}

/*
 * A node's NICs as NCCL's search sees them: their count in @nics and the speed of one,
 * bytes/s. aws-ofi-nccl's RDMA protocol shows a p5 GPU's EFA cards as one device of their
 * summed speed (nccl_ofi_rdma.c).
 */
double
ft__model_nic_as_nccl_sees(const struct ft_model_links *l, uint32_t *nics)
{
	if (l->aws_p5 && l->gpu_nics > 1) {
		*nics = FT_MAX(l->nrails / l->gpu_nics, 1u);
		return l->nic_Bps * l->gpu_nics;
	}
	*nics = l->nrails;
	return l->nic_Bps;
}

/*
 * Nodes of several GPUs on one NVSwitch (DGX/HGX H100, H200, A100, B200, one GB200 tray),
 * not NVLink domains of several trays: the ring graph NCCL release @version's search finds
 * (src/graph/search.cc ncclTopoCompute, then ncclTopoDupChannels), not one channel per
 * NVLink; ft_model_run_nchannels() copies it at run time and the tuner's per-channel caps
 * read its channels (graphs[a]->nChannels, src/graph/tuning.cc).
 *
 * One node has no network, so the search runs the Intra list on a GPU's NVLink
 * (ft__model_intra_graph()): 6 x 60 -> 12 x 30 on an H100 or H200, 6 x 40 -> 12 x 20 on an
 * A100, 8 x 90 -> 16 x 45 on a B200 or a GB200 tray from 2.25. Nodes joined by NICs run
 * the Inter list from a NIC's path, as many channels as the NICs (as NCCL sees them) and
 * NVLink hold (ft__model_domain_net_graph()): 8 x 48 on DGX H100s (8 x 400G; 48 < 50 with
 * more than 4 channels, so no duplication), 8 x 24 on DGX A100s (8 x HDR; under 25, none),
 * 4 x 48 -> 8 x 24 on 4 NICs. nchannels keeps one per NVLink, the count a channel forced by
 * NCCL_MIN/MAX_NCHANNELS and the flow engine's channel shares read; the graph's rate
 * stays the links' (intra_Bps, inter_Bps).
 */
void
ft__model_node_channels(struct ft_model_links *l, uint32_t version)
{
	double speed, links, nic, Bps;
	uint32_t nch, nics;

	if (!l->nvlink || !l->nvswitch || l->domain_nodes > 1 || l->ppn < 2 || l->nvlinks == 0 ||
	    l->nnodes < 1)
		return;
	links = l->nvlinks * ft__model_nvlink_link_Bps_at(l->arch, version);
	if (l->nnodes == 1) {
		nch = ft__model_intra_graph(l->arch, version, links, &speed);
	} else {
		nic = ft__model_nic_as_nccl_sees(l, &nics);
		nch = ft__model_domain_net_graph(l->arch, version, links, l->ppn, nics, nic, &Bps);
		speed = Bps / 1e9;
	}
	if (nch == 0)
		return;
	l->graph_nchannels = nch;
	l->graph_GBps = speed;
}

/*
 * One NVLink domain of several trays (one GB200/GB300 NVL72 rack): no network, so NCCL's
 * search runs release @version's Intra list on a GPU's NVLink (ft__model_intra_graph()):
 * 8 x 90 -> 16 x 45 from 2.25, not one channel per NVLink. The graph's rate stays the
 * links' (ft__model_ring_graph_Bps(), 720 GB/s).
 */
void
ft__model_rack_channels(struct ft_model_links *l, uint32_t version)
{
	double speed;
	uint32_t nch;

	if (!l->nvlink || l->domain_nodes < 2 || l->nnodes != 1 || l->nvlinks == 0)
		return;
	nch = ft__model_intra_graph(l->arch, version,
	                            l->nvlinks * ft__model_nvlink_link_Bps_at(l->arch, version),
	                            &speed);
	if (nch == 0)
		return;
	l->nchannels = nch;
	l->graph_nchannels = nch;
	l->graph_GBps = speed;
}

/*
 * A multi-node NVLink domain (GB200/GB300 NVL72: 18 trays of 4 GPUs behind
 * NVLink switch trays): NCCL sees one NVLink "node" of all the domain's GPUs
 * (MNNVL), so the cost model's node becomes the domain. Its GPUs reach each
 * other at their NVLink rate, NVLS spans the domain, and the domain leaves
 * through the NICs of all its trays; the fabric's shares and latency stay
 * those computed per tray. A job on part of a domain uses the trays it
 * covers, which must be whole domains beyond one.
 */
static int
nvlink_domain(const struct ft_cluster_spec *spec, struct ft_model_links *l,
              struct ft_error *err)
{
	uint32_t per = spec->node.nvlink_domain_nodes, trays, ndom;

	if (per <= 1 || !l->nvlink || l->nnodes < 2)
		return 0;
	trays = FT_MIN(per, l->nnodes);
	if (l->nnodes % trays != 0)
		return ft_error_set(err, FT_EINVAL,
		                    "%s: nodes: %u nodes do not fill whole NVLink domains of %u "
		                    "nodes (nodes.nvlink.domain_nodes)",
		                    spec->name, l->nnodes, per);
	ndom = l->nnodes / trays;
	l->ppn *= trays;
	l->nnodes = ndom;
	l->nrails *= trays;
	l->inter_Bps = l->nrails * l->nic_Bps;
	l->domain_nodes = trays;
	if (ndom < 2) {
		l->fabric_lat_s = l->net_lat_s = 0;
		l->fabric_rail_lat_s = l->fabric_xrail_lat_s = 0;
		ft__model_rack_channels(l, 0);
	} else {
		ft__model_domain_channels(l, 0);
	}
	return 0;
}

/* Ranks, nodes and ranks per node of the job (see ft_model_links_get()). */
static int
placement(const struct ft_cluster_spec *spec, uint32_t ngpus, uint32_t nnodes, uint32_t ppn,
          struct ft_model_links *l, struct ft_error *err)
{
	uint32_t gpn = spec->node.ngpus;
	uint64_t total;

	if (nnodes == 0)
		nnodes = spec->nnodes ? spec->nnodes : 1;
	if (ppn > gpn)
		return ft_error_set(err, FT_ERANGE,
		                    "ppn: expected at most %u GPUs per node, got %u", gpn, ppn);
	if (ppn == 0 && ngpus > gpn && ngpus % gpn != 0)
		return ft_error_set(
		        err, FT_EINVAL,
		        "gpus: expected at most %u or a multiple of %u GPUs per node, got %u", gpn,
		        gpn, ngpus);
	if (ppn && ngpus % ppn != 0)
		return ft_error_set(err, FT_EINVAL,
		                    "gpus: expected a multiple of %u (ranks per node), got %u", ppn,
		                    ngpus);
	total = (uint64_t)nnodes * (ppn ? ppn : gpn);
	if (ngpus == 0)
		ngpus = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
	if (ngpus > total)
		return ft_error_set(err, FT_ERANGE,
		                    "gpus: expected at most %" PRIu64
		                    " (%u node%s of %u GPUs), got %u",
		                    total, nnodes, nnodes == 1 ? "" : "s", ppn ? ppn : gpn, ngpus);
	l->nranks = ngpus;
	if (ppn)
		l->ppn = FT_MIN(ppn, ngpus);
	else
		l->ppn = ngpus > gpn ? gpn : ngpus;
	l->nnodes = ngpus / l->ppn;
	return 0;
}

static int
links_get_one(const struct ft_cluster_spec *spec, uint32_t ngpus, uint32_t nnodes, uint32_t ppn,
              uint32_t version, bool spine, struct ft_model_links *l, struct ft_model_cache *cache,
              struct ft_error *err)
{
	const struct ft_node_spec *n = &spec->node;
	struct ft_model_buffs bu;
	uint32_t gpn = n->ngpus, nnuma = 0;
	int rc;

	memset(l, 0, sizeof(*l));
	if (gpn == 0 || gpn > FT_SPEC_MAX_GPUS)
		return ft_error_set(err, FT_EINVAL, "%s: node.gpus: expected 1 to %d, got %u",
		                    spec->name, FT_SPEC_MAX_GPUS, gpn);
	rc = placement(spec, ngpus, nnodes, ppn, l, err);
	if (rc < 0)
		return rc;
	l->arch = arch_of(n);
	l->nvlink = n->nvlink_gen > 0 && n->nvlink_Bps > 0;
	l->nvswitch = l->nvlink && n->nvswitch;
	l->nvls = node_nvls(n);
	l->sharp = spec->fabric.sharp;
	l->tcpx = wire_tech(spec) == FT_TECH_TCP;
	l->aws_p5 = strcmp(n->preset, "aws-p5") == 0 || strcmp(n->preset, "aws-p5e") == 0;
	l->net_flush = l->arch < FT_ARCH_HOPPER || n->host_arm;
	/* NCCL links a GPU to its CPU by C2C only where NVML counts active C2C links, which it
	 * asks of sm_90 and later alone (src/graph/xml.cc ncclTopoGetXmlFromGpu, topo.cc
	 * ncclTopoAddC2c; v2.30.7-1): node.gpu_attach, else an ARM host with Hopper or later
	 * GPUs (ft_node_gpu_c2c()); an ARM host with older GPUs has PCIe paths. */
	l->nic_c2c = ft_node_gpu_c2c(n);
	l->cpu_x86 = n->host_arch == FT_HOST_ARCH_X86;
	count_rails(n, l->ppn, &l->nrails, &nnuma);

	if (l->nvlink) {
		l->nvlinks = nvlink_count(n);
		l->intra_Bps = ft__model_ring_graph_Bps(
		        l->arch, 0, l->nvlinks * ft__model_nvlink_link_Bps(l->arch));
		ft_strlcpy(l->intra_what, "nvlink", sizeof(l->intra_what));
		l->nchannels = FT_MIN(l->nvlinks, 32u);
	} else {
		l->intra_Bps = n->pcie_Bps_gpu;
		ft_strlcpy(l->intra_what, "pcie", sizeof(l->intra_what));
		/* A ring over GPUs of several sockets crosses the socket link once each way. */
		if (nnuma > 1 && n->cpu_link_Bps > 0 && n->cpu_link_Bps < l->intra_Bps) {
			l->intra_Bps = n->cpu_link_Bps;
			ft_strlcpy(l->intra_what, "cpu_link", sizeof(l->intra_what));
		}
		l->nchannels = 2;
	}
	l->p2p_Bps = l->intra_Bps;

	/* The wire less packet headers at the fabric's MTU (kb IB-MTU, ROCE-WIRE). */
	l->nic_Bps = n->nic_Bps * wire_efficiency(spec);
	ft_strlcpy(l->nic_what, "nic", sizeof(l->nic_what));
	if (n->pcie_Bps_nic > 0 && n->pcie_Bps_nic < l->nic_Bps) {
		l->nic_Bps = n->pcie_Bps_nic;
		ft_strlcpy(l->nic_what, "pcie", sizeof(l->nic_what));
	}
	if (spec->fabric.kind != FT_FABRIC_NONE && spec->fabric.link_Bps > 0 &&
	    spec->fabric.link_Bps * wire_efficiency(spec) < l->nic_Bps) {
		l->nic_Bps = spec->fabric.link_Bps * wire_efficiency(spec);
		ft_strlcpy(l->nic_what, "tier1", sizeof(l->nic_what));
	}
	l->inter_Bps = l->nrails * l->nic_Bps;
	l->gpu_nics = FT_MAX(FT_MIN(FT_MAX(n->nics_per_gpu, 1u), l->nrails), 1u);
	if (l->ppn > 1 && !(l->intra_Bps > 0 && l->intra_Bps < INFINITY))
		return ft_error_set(
		        err, FT_EINVAL, "%s: node.%s: expected a positive rate, got %g bytes/s",
		        spec->name, l->nvlink ? "nvlink_Bps" : "pcie_Bps_gpu", l->intra_Bps);
	if (l->nnodes > 1 && !(l->inter_Bps > 0 && l->inter_Bps < INFINITY))
		return ft_error_set(
		        err, FT_EINVAL,
		        "%s: node.nics: %u nodes need scale-out NICs, the node has none",
		        spec->name, l->nnodes);
	fabric_factors(spec, l);
	l->fabric_rail_lat_s = fabric_latency(spec, l->nnodes, false);
	l->fabric_xrail_lat_s = fabric_latency(spec, l->nnodes, true);
	l->fabric_lat_s = l->fabric_rail_lat_s;
	rail_pairs(n, l->ppn, version, l);
	l->pxn = l->nvlink && !n->nccl_pxn_disable;
	l->nvlink_hop_s = l->nvlink ? n->lat_nvlink_s : 0;
	l->vm_msg_s = l->nnodes > 1 ? spec->node.vm_msg_s : 0;
	l->rdv_s = l->nnodes > 1 ? ft_model_efa_rdv_s(spec) : 0;
	l->net_lat_s = l->nnodes > 1 ? spec->node.net_lat_s : 0;
	l->p2p_net_chunk_x2 = ft_model_p2p_net_chunk_x2(spec);
	l->arm_buff_default = n->host_arm && n->nccl_buffsize == 0;
	l->cpu_amd = !n->host_arm && n->cpu_vendor == FT_CPU_VENDOR_AMD;
	l->cpu_vendor = n->host_arm ? FT_CPU_VENDOR_UNKNOWN : n->cpu_vendor;
	l->p2p_net_chunk = ft_model_p2p_net_chunk_env(spec);
	ft_model_buffs_get(spec, &bu);
	l->buffsize = bu.simple;
	l->ll_buffsize = bu.ll;
	l->ll128_buffsize = bu.ll128;
	l->nvls_chunk = bu.nvls_chunk;
	l->nvls_tree_max = bu.nvls_tree_max;
	/* whether the node or a node group sets NCCL_NVLS_CHUNKSIZE (nccl.nvls_chunksize) */
	l->nvls_chunk_set =
	        ft__model_least_set(spec, offsetof(struct ft_node_spec, nccl_nvls_chunksize)) != 0;
	rc = nvlink_domain(spec, l, err);
	/* (an NVLink domain's rails are its trays' NICs: another tray's are not the root's) */
	l->root_nics_own = root_drives_all(n, l->nrails);
	/* the spine counts only where the op reads them (a direct all-to-all, a send/recv) */
	if (rc == 0 && spine) {
		int src = ft__model_spine_factor(spec, l, &l->a2a_spine_factor);

		if (src == 0)
			src = ft__model_sr_spine_factor(spec, l, &l->sr_spine_factor);
		if (src == FT_ENOMEM)
			return ft_error_set(err, src, "model: the spine count: out of memory");
		if (src < 0)
			return ft_error_set(err, src,
			                    "model: the spine count: the fabric lays out no leaf for "
			                    "the job's %" PRIu32 " nodes (nodes.count %" PRIu32 ")",
			                    l->nnodes * FT_MAX(l->domain_nodes, 1u), spec->nnodes);
	}
	/* and the in-node links the all-to-all's and the send/recv's sends share */
	if (rc == 0 && spine)
		rc = ft__model_shared_links(spec, l, cache, err);
	if (rc == 0 && l->ppn == 1 && l->nnodes > 1)
		ft__model_net_channels(l, 0);
	if (rc == 0)
		ft__model_node_channels(l, 0);
	return rc;
}

/* The least and most GPUs of a node over @spec's groups. */
static void
group_gpus(const struct ft_cluster_spec *spec, uint32_t *lo, uint32_t *hi)
{
	uint32_t i;

	*lo = *hi = spec->groups[0].node.ngpus;
	for (i = 1; i < spec->ngroups && i < FT_SPEC_MAX_GROUPS; i++) {
		*lo = FT_MIN(*lo, spec->groups[i].node.ngpus);
		*hi = FT_MAX(*hi, spec->groups[i].node.ngpus);
	}
}

/* @a takes @b where @b's link is the slower a byte of S. */
static void
shared_take_max(struct ft_model_shared_link *a, const struct ft_model_shared_link *b)
{
	if (b->s > a->s)
		*a = *b;
}

/* @l takes the slower of each of its link classes and @g's. */
static void
links_take_min(struct ft_model_links *l, const struct ft_model_links *g)
{
	uint32_t i;

	if (g->intra_Bps < l->intra_Bps) {
		l->intra_Bps = g->intra_Bps;
		memcpy(l->intra_what, g->intra_what, sizeof(l->intra_what));
	}
	if (g->nic_Bps < l->nic_Bps) {
		l->nic_Bps = g->nic_Bps;
		memcpy(l->nic_what, g->nic_what, sizeof(l->nic_what));
	}
	l->p2p_Bps = FT_MIN(l->p2p_Bps, g->p2p_Bps);
	l->nrails = FT_MIN(l->nrails, g->nrails);
	l->gpu_nics = FT_MIN(l->gpu_nics, g->gpu_nics);
	l->nchannels = FT_MIN(l->nchannels, g->nchannels);
	l->graph_nchannels = FT_MIN(l->graph_nchannels, g->graph_nchannels);
	l->graph_GBps = FT_MIN(l->graph_GBps, g->graph_GBps);
	l->nvlinks = FT_MIN(l->nvlinks, g->nvlinks);
	l->nvlink = l->nvlink && g->nvlink;
	l->nvswitch = l->nvswitch && g->nvswitch;
	l->nvls = l->nvls && g->nvls;
	l->arch = FT_MIN(l->arch, g->arch);
	l->net_flush = l->net_flush || g->net_flush;
	l->a2a_factor = FT_MIN(l->a2a_factor, g->a2a_factor);
	l->a2a_spine_factor = FT_MIN(l->a2a_spine_factor, g->a2a_spine_factor);
	l->sr_spine_factor = FT_MIN(l->sr_spine_factor, g->sr_spine_factor);
	shared_take_max(&l->a2a_shared, &g->a2a_shared);
	shared_take_max(&l->a2a_node_shared, &g->a2a_node_shared);
	shared_take_max(&l->a2a_net_shared, &g->a2a_net_shared);
	shared_take_max(&l->sr_shared, &g->sr_shared);
	/* (a group whose node the graph refuses: the first such group's reason) */
	if (!l->shared_error[0])
		memcpy(l->shared_error, g->shared_error, sizeof(l->shared_error));
	l->ring_tier_factor = FT_MIN(l->ring_tier_factor, g->ring_tier_factor);
	l->fabric_lat_s = FT_MAX(l->fabric_lat_s, g->fabric_lat_s);
	l->fabric_rail_lat_s = FT_MAX(l->fabric_rail_lat_s, g->fabric_rail_lat_s);
	l->fabric_xrail_lat_s = FT_MAX(l->fabric_xrail_lat_s, g->fabric_xrail_lat_s);
	for (i = 0; i < FT_MIN(l->rail_ppn, g->rail_ppn); i++) {
		l->same_rail[i] &= g->same_rail[i];
		l->pxn_relay[i] |= g->pxn_relay[i];
	}
	l->rail_ppn = FT_MIN(l->rail_ppn, g->rail_ppn);
	l->pxn = l->pxn && g->pxn;
	l->nvlink_hop_s = FT_MAX(l->nvlink_hop_s, g->nvlink_hop_s);
	l->vm_msg_s = FT_MAX(l->vm_msg_s, g->vm_msg_s);
	l->rdv_s = FT_MAX(l->rdv_s, g->rdv_s);
	l->net_lat_s = FT_MAX(l->net_lat_s, g->net_lat_s);
	l->p2p_net_chunk_x2 = l->p2p_net_chunk_x2 && g->p2p_net_chunk_x2;
	l->arm_buff_default = l->arm_buff_default || g->arm_buff_default;
	/* NCCL's MIXED: ranks whose CPUs differ (src/graph/topo.cc, v2.24.3-1 on); a
	 * vendor the spec does not name differs from none */
	if (l->cpu_vendor != g->cpu_vendor && l->cpu_vendor != FT_CPU_VENDOR_UNKNOWN &&
	    g->cpu_vendor != FT_CPU_VENDOR_UNKNOWN)
		l->cpu_mixed = true;
	if (l->cpu_vendor == FT_CPU_VENDOR_UNKNOWN)
		l->cpu_vendor = g->cpu_vendor;
	l->cpu_mixed = l->cpu_mixed || g->cpu_mixed;
	l->cpu_amd = l->cpu_amd && g->cpu_amd;
	l->p2p_net_chunk = l->p2p_net_chunk == g->p2p_net_chunk ? l->p2p_net_chunk : 0;
	l->buffsize = FT_MIN(l->buffsize, g->buffsize);
	l->ll_buffsize = FT_MIN(l->ll_buffsize, g->ll_buffsize);
	l->ll128_buffsize = FT_MIN(l->ll128_buffsize, g->ll128_buffsize);
	l->nvls_chunk = FT_MIN(l->nvls_chunk, g->nvls_chunk);
	l->nvls_tree_max = !l->nvls_tree_max ? g->nvls_tree_max :
	                   !g->nvls_tree_max ? l->nvls_tree_max :
	                                       FT_MIN(l->nvls_tree_max, g->nvls_tree_max);
	l->nvls_chunk_set = l->nvls_chunk_set || g->nvls_chunk_set;
	/* NCCL's NVLS graph takes the farthest GPU-to-NIC path of its ranks */
	l->nic_c2c = l->nic_c2c || g->nic_c2c;
	l->cpu_x86 = l->cpu_x86 && g->cpu_x86; /* the job's: ft_model_links_get() */
}

/*
 * The part of @spec (nodes of different GPU counts) that @ngpus ranks packed on
 * its first @nnodes nodes take (either 0: all): nodes in spec order, group by
 * group, every GPU of each in turn, as the simulator places a packed job
 * (sim/run.c) and NCCL numbers ranks launched one per GPU; a last node
 * partly filled becomes a group of its own with the GPUs it holds. Into @part.
 */
static int
first_nodes(const struct ft_cluster_spec *spec, uint32_t ngpus, uint32_t nnodes,
            struct ft_cluster_spec *part, struct ft_error *err)
{
	uint32_t g, k, taken = 0, left = ngpus ? ngpus : UINT32_MAX;
	uint32_t from[FT_SPEC_MAX_GROUPS]; /* the spec's group of each of @part's */

	*part = *spec;
	part->ngroups = 0;
	part->nnodes = 0;
	for (g = 0; g < spec->ngroups && g < FT_SPEC_MAX_GROUPS && left; g++) {
		const struct ft_node_group *grp = &spec->groups[g];

		for (k = 0; k < grp->count && left && (!nnodes || taken < nnodes); k++) {
			uint32_t use = FT_MIN(grp->node.ngpus, left), n = part->ngroups;

			if (n && from[n - 1] == g && part->groups[n - 1].node.ngpus == use) {
				part->groups[n - 1].count++;
			} else if (n == FT_SPEC_MAX_GROUPS) {
				return ft_error_set(err, FT_ERANGE,
				                    "%s: gpus: %u GPUs end inside a node beyond %d "
				                    "node groups",
				                    spec->name, ngpus, FT_SPEC_MAX_GROUPS);
			} else {
				from[n] = g;
				part->groups[n].count = 1;
				part->groups[n].node = grp->node;
				part->groups[n].node.ngpus = use;
				part->ngroups++;
			}
			left -= ngpus ? use : 0;
			taken++;
		}
	}
	if ((ngpus && left) || (nnodes && taken != nnodes))
		return ft_error_set(err, FT_ERANGE,
		                    "%s: gpus: %u GPUs on %u nodes don't fit the first nodes of "
		                    "the spec, filled in order (%u nodes, %" PRIu64 " GPUs)",
		                    spec->name, ngpus, nnodes ? nnodes : taken, spec->nnodes,
		                    ft_spec_ngpus(spec));
	part->nnodes = taken;
	part->node = part->groups[0].node;
	if (part->ngroups == 1)
		part->ngroups = 0;
	return 0;
}

/*
 * Whether every host of the nodes a job takes is x86, NCCL's comm->cpuArch
 * NCCL_TOPO_CPU_ARCH_X86 (src/init.cc initTransportsRank: the ranks' own hosts; ARM,
 * POWER or a mix, MIXED, are not): the first nodes of @spec in spec order, @nnodes of
 * them, else as many as @ngpus take at @ppn (0: each node's GPUs) per node, as a job
 * packed on the cluster is placed; @ngpus and @nnodes 0: every node.
 */
static bool
job_hosts_x86(const struct ft_cluster_spec *spec, uint32_t ngpus, uint32_t nnodes, uint32_t ppn)
{
	uint64_t left = ngpus ? ngpus : UINT64_MAX;
	uint32_t g, k, taken = 0;

	for (g = 0; g < spec->ngroups && g < FT_SPEC_MAX_GROUPS; g++) {
		const struct ft_node_spec *n = &spec->groups[g].node;
		uint32_t per = ppn ? FT_MIN(ppn, n->ngpus) : n->ngpus;

		for (k = 0; k < spec->groups[g].count; k++) {
			if (nnodes ? taken >= nnodes : left == 0)
				return true;
			if (n->host_arch != FT_HOST_ARCH_X86)
				return false;
			taken++;
			left -= FT_MIN(left, (uint64_t)per);
		}
	}
	return true;
}

/*
 * Node groups (a heterogeneous cluster): every group's link classes as if the whole
 * cluster were of its kind, then the slowest of each, since a ring (or tree) across
 * the groups moves at the pace of its slowest member: the least intra-node, NIC and
 * inter-node bandwidth, the fewest rails and channels, the longest latencies. NCCL
 * does the same: every rank takes the least channel count and graph bandwidths of
 * all ranks (NVIDIA/nccl src/init.cc, after the third all-gather; kb NA-MODEL).
 *
 * Groups of different GPU counts per node run either the same @ppn ranks on every
 * node (at most the smallest group's GPUs), or every GPU of the cluster (@ngpus 0 or
 * all of them, @ppn 0): then NCCL's ring visits each node's own GPUs and leaves it
 * once per channel, so each group is priced with its own GPUs per node, and the
 * ranks per node are NCCL's nRanks / nNodes (src/graph/tuning.cc), with the least
 * and the most in ppn_min and ppn_max. A part of such a cluster (@ngpus or @nnodes
 * short of all, @ppn 0) is its first nodes in spec order filled GPU by GPU, as a
 * job packed on it is placed (first_nodes()).
 */
static int
links_get_all(const struct ft_cluster_spec *spec, uint32_t ngpus, uint32_t nnodes, uint32_t ppn,
              uint32_t version, bool spine, struct ft_model_links *l, struct ft_model_cache *cache,
              struct ft_error *err)
{
	struct ft_cluster_spec *one;
	struct ft_model_links g;
	uint32_t i, lo, hi, gn, root = 0;
	uint64_t total = ft_spec_ngpus(spec);
	bool mixed;
	int rc;

	if (spec->ngroups < 2) {
		rc = links_get_one(spec, ngpus, nnodes, ppn, version, spine, l, cache, err);
		l->ppn_min = l->ppn_max = l->ppn;
		return rc;
	}
	group_gpus(spec, &lo, &hi);
	mixed = lo != hi && ppn == 0;
	one = ft_malloc(sizeof(*one));
	if (!one)
		return ft_error_set(err, FT_ENOMEM, "out of memory for node groups");
	if (mixed && ((ngpus != 0 && ngpus != total) || (nnodes != 0 && nnodes != spec->nnodes))) {
		rc = first_nodes(spec, ngpus, nnodes, one, err);
		if (rc == 0)
			rc = links_get_all(one, 0, 0, 0, version, spine, l, cache, err);
		ft_free(one);
		return rc;
	}
	*one = *spec;
	one->ngroups = 0;
	for (i = 0; i < spec->ngroups && i < FT_SPEC_MAX_GROUPS; i++) {
		one->node = spec->groups[i].node;
		gn = one->node.ngpus;
		rc = mixed ? links_get_one(one, gn * spec->nnodes, spec->nnodes, gn, version, spine,
		                           i ? &g : l, cache, err) :
		             links_get_one(one, ngpus, nnodes, ppn, version, spine, i ? &g : l, cache,
		                           err);
		if (rc < 0) {
			ft_free(one);
			return rc;
		}
		if (i)
			links_take_min(l, &g);
		else
			root = l->nrails;
	}
	l->root_rails = root;
	/* NCCL's host architecture is the job's, not the cluster's */
	l->cpu_x86 = job_hosts_x86(spec, ngpus, nnodes, ppn);
	l->inter_Bps = l->nrails * l->nic_Bps;
	l->ppn_min = l->ppn_max = l->ppn;
	if (mixed) {
		l->nranks = (uint32_t)FT_MIN(total, (uint64_t)UINT32_MAX);
		l->nnodes = spec->nnodes;
		l->ppn = l->nranks / FT_MAX(l->nnodes, 1u);
		l->ppn_min = lo;
		l->ppn_max = hi;
	}
	ft_free(one);
	return 0;
}

/*
 * NVLink at the per-link figure of @l's NCCL release: NCCL sizes its graphs with it. The
 * ring graph is searched again on the release's links (a channel's share kept, as forced).
 */
static void
release_nvlink(struct ft_model_links *l)
{
	double scale;

	if (!l->nvlink || l->nccl_version == 0 || strcmp(l->intra_what, "nvlink") != 0)
		return;
	scale = ft__model_ring_graph_Bps(l->arch, l->nccl_version,
	                                 l->nvlinks * ft__model_nvlink_link_Bps_at(
	                                         l->arch, l->nccl_version)) /
	        ft__model_ring_graph_Bps(l->arch, 0,
	                                 l->nvlinks * ft__model_nvlink_link_Bps(l->arch));
	/* across NVLink domains the graph is the release's already (ft__model_links_get_at()) */
	if (!(l->domain_nodes > 1 && l->nnodes > 1))
		l->intra_Bps *= scale;
	l->p2p_Bps *= scale;
}

/*
 * NCCL 2.10 to 2.18 default the Simple buffer of an ARM host to 1 MiB, not 4 MiB
 * (src/init.cc computeBuffSizes, DEFAULT_BUFFSIZE_ARM, v2.10.3-1 to v2.18.6-1; gone at
 * v2.19.1-1; the 4 MiB: kb ENV-BUFFSIZE): a Simple step carries a quarter of the bytes
 * and a ring chunk is 512 KiB, not 2 MiB. As for NCCL_BUFFSIZE, the least over the
 * nodes holds for the job.
 */
#define ARM_BUFFSIZE (1u << 20)
#define ARM_BUFF_UNTIL 21900

/*
 * @l, sized on the newest release, at release @version (0: as it is): one GPU a node, the
 * channels of the release's Inter list; across NVLink domains the ring graph of the
 * release's Inter list, already on the release's NVLink figure; in one domain of several
 * trays the release's Intra list; one NVSwitch node the release's Intra graph; then the
 * release's ARM buffer and NVLink figure.
 */
static void
links_at_release(struct ft_model_links *l, uint32_t version)
{
	if (version == 0)
		return;
	if (l->ppn == 1 && l->nnodes > 1)
		ft__model_net_channels(l, version);
	ft__model_domain_channels(l, version);
	ft__model_rack_channels(l, version);
	ft__model_node_channels(l, version);
	l->nccl_version = version;
	if (l->arm_buff_default && version < ARM_BUFF_UNTIL)
		l->buffsize = FT_MIN(l->buffsize, (uint64_t)ARM_BUFFSIZE);
	release_nvlink(l);
}

int
ft__model_links_get_at(const struct ft_cluster_spec *spec, uint32_t ngpus, uint32_t nnodes,
                       uint32_t ppn, uint32_t version, bool spine, struct ft_model_links *l,
                       struct ft_model_cache *cache, struct ft_error *err)
{
	int rc = links_get_all(spec, ngpus, nnodes, ppn, version, spine, l, cache, err);

	if (rc < 0)
		return rc;
	ft_model_p2p_net_nics(spec, l, &l->p2p_net_count, &l->p2p_net_GBps);
	links_at_release(l, version);
	return 0;
}

int
ft_model_links_get(const struct ft_cluster_spec *spec, uint32_t ngpus, uint32_t nnodes,
                   uint32_t ppn, struct ft_model_links *l, struct ft_error *err)
{
	/* the spine is counted by the model's own all-to-all and send/recv queries only */
	return ft__model_links_get_at(spec, ngpus, nnodes, ppn, spec->nccl_version, false, l, NULL,
	                              err);
}

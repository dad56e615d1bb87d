/* SPDX-License-Identifier: MIT */
/*
 * model/eval.c - pick the algorithm and protocol of a collective the way
 * NCCL's tuner does (the least lat + bytes / bw over what is enabled), or
 * evaluate the forced ones, and sweep sizes into nccl-tests-shaped rows.
 */
#include "model_int.h"

#include <fabtune/units.h>

#include "coll/coll_int.h"

void
ft_model_query_init(struct ft_model_query *q, enum ft_op op, uint64_t bytes)
{
	memset(q, 0, sizeof(*q));
	q->op = op;
	q->bytes = bytes;
}

const char *
ft_model_algo_label(enum ft_algo a, const char *variant, char *buf, size_t len)
{
	if (a == FT_ALGO_COLLNET && variant && variant[0])
		snprintf(buf, len, "%s_%s", ft_algo_name(a), variant);
	else
		ft_strlcpy(buf, ft_algo_name(a), len);
	return buf;
}

static void
fill(const struct ft_model_links *l, const struct ft_model_query *q, enum ft_algo a,
     enum ft_proto p, const struct ft__model_cost *c, double t, struct ft_model_result *out)
{
	memset(out, 0, sizeof(*out));
	out->op = q->op;
	out->algo = a;
	out->proto = p;
	ft_model_algo_label(a, c->variant, out->algo_label, sizeof(out->algo_label));
	out->nranks = l->nranks;
	out->nnodes = l->nnodes;
	out->ppn = l->ppn;
	out->ppn_min = l->ppn_min;
	out->ppn_max = l->ppn_max;
	out->nchannels = l->nchannels;
	out->bytes = q->bytes;
	out->time_s = t;
	out->lat_s = c->lat_s;
	out->bw_Bps = q->bytes ? (double)q->bytes / (t - c->lat_s) : c->bw_Bps;
	out->algbw_Bps = t > 0 ? (double)q->bytes / t : 0;
	out->busbw_Bps = out->algbw_Bps * ft_coll_busbw_factor(q->op, l->nranks);
	if (t - c->lat_s < c->lat_s && strcmp(c->bottleneck, "proxy") != 0 &&
	    strcmp(c->bottleneck, "launch") != 0)
		ft_strlcpy(out->bottleneck, "latency", sizeof(out->bottleneck));
	else
		ft_strlcpy(out->bottleneck, c->bottleneck, sizeof(out->bottleneck));
}

/* A single rank moves nothing: NCCL still pays its launch latency (a local copy). */
static int
eval_one_rank(const struct ft_model_links *l, const struct ft_model_query *q,
              struct ft_model_result *out)
{
	struct ft__model_cost c = { .lat_s = ft_coll_base_latency(FT_ALGO_RING, FT_PROTO_SIMPLE),
		                    .bw_Bps = INFINITY };

	ft_strlcpy(c.bottleneck, "latency", sizeof(c.bottleneck));
	fill(l, q, q->force_algo ? q->algo : ft_coll_default_algo(q->op),
	     q->force_proto ? q->proto : FT_PROTO_SIMPLE, &c, c.lat_s, out);
	ft_strlcpy(out->bottleneck, "latency", sizeof(out->bottleneck));
	out->lat_part_s = out->time_s;
	return 0;
}

static int
check_query(const struct ft_model_query *q, struct ft_error *err)
{
	int rc = ft__coll_check_choice(q->op, q->force_algo ? &q->algo : NULL,
	                               q->force_proto ? &q->proto : NULL, "", "the model computes",
	                               err);

	if (rc < 0)
		return rc;
	if (ft_model_nccl_check(q->nccl_version, err) < 0)
		return FT_ERANGE;
	if (q->nchannels > FT_SPEC_MAX_CHANNELS)
		return ft_error_set(err, FT_ERANGE,
		                    "channels: expected 1 to %d (MAXCHANNELS), got %u",
		                    FT_SPEC_MAX_CHANNELS, q->nchannels);
	return 0;
}

static bool
algo_exists(enum ft_op op, enum ft_algo a)
{
	enum ft_proto p;

	for (p = 0; p < FT_PROTO_COUNT; p++)
		if (ft_coll_supports(op, a, p))
			return true;
	return false;
}

/* "broadcast has no tree algorithm (it has ring)". */
static int
no_such_algo(const struct ft_model_query *q, struct ft_error *err)
{
	char list[160] = "";
	size_t len = 0;
	enum ft_algo a;

	for (a = 0; a < FT_ALGO_COUNT; a++) {
		if (!algo_exists(q->op, a) || len >= sizeof(list))
			continue;
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "",
		                        ft_algo_name(a));
	}
	return ft_error_set(err, FT_ENOTSUP, "%s has no %s algorithm (it has %s)",
	                    ft_op_name(q->op), ft_algo_name(q->algo), list);
}

/*
 * NCCL_MIN/MAX_NCHANNELS (kb ENV-NCHANNELS): @nch channels instead of the graph's. A
 * channel is one ring (or tree) with its share of the graph's bandwidth inside a node
 * (busBw = nChannels x per-channel bandwidth, kb NA-MODEL), and it leaves a node through
 * one NIC (kb NA-ALGO-RING): fewer channels than rails leave NICs idle; more than the
 * graph's add nothing. The count is the communicator's, so the pipeline's channels,
 * chunks, loops, ramp and proxy messages start from it (model/pipeline.c).
 */
void
ft_model_links_force_channels(struct ft_model_links *l, uint32_t nch)
{
	uint32_t graph = l->nchannels ? l->nchannels : 1;

	if (nch == 0)
		return;
	if (nch < graph)
		l->intra_Bps *= (double)nch / graph;
	if (nch < l->nrails) {
		l->nrails = nch;
		l->inter_Bps = nch * l->nic_Bps;
	}
	if (nch < l->root_rails)
		l->root_rails = nch;
	l->nchannels = nch;
	/* NCCL_MIN/MAX_NCHANNELS set the communicator's count itself */
	l->graph_nchannels = 0;
	l->channels_forced = true;
}

/*
 * Point-to-point operations (all-to-all, send/recv) do not go through NCCL's
 * collective tuner: each send picks its protocol as ft_model_p2p_chunking_on()
 * says, the one definition the flow and packet engines follow too. LL up to
 * NCCL_P2P_LL_THRESHOLD (16 KiB) a part before v2.22, a channel of the peer's
 * at v2.22 to v2.28, a channel of the send's from v2.29, where the connection
 * has LL buffers, Simple otherwise, never LL128 (kb ENV-BUFFSIZE). A network
 * connection has no LL buffers for send/recv unless NCCL_ALLOC_P2P_NET_LL_BUFFERS=1
 * (default 0; NVIDIA/nccl src/enqueue.cc addP2pToPlan, src/transport/net.cc),
 * so every send across nodes is Simple. Why @p is not what NCCL would use for
 * @q, or NULL.
 */
static const char *
p2p_protocol(const struct ft_model_links *l, const struct ft_model_query *q, enum ft_proto p)
{
	struct ft_model_p2p_chunking ch;
	uint64_t per_peer;

	if (q->op != FT_OP_ALLTOALL && q->op != FT_OP_SENDRECV)
		return NULL;
	if (p == FT_PROTO_LL128)
		return "point-to-point operations use LL or Simple, not LL128";
	per_peer = q->op == FT_OP_ALLTOALL && l->nranks ? q->bytes / l->nranks : q->bytes;
	/* Across nodes the network sends bind (an all-to-all's NVLink ones keep their own
	 * protocol: a2a_fixed()). */
	ft__model_p2p_chunking(l, per_peer, l->nnodes > 1, &ch);
	if (p == ch.proto)
		return NULL;
	if (p == FT_PROTO_LL && l->nnodes > 1)
		return "sends across nodes use Simple (no LL buffers on the network)";
	if (p == FT_PROTO_LL)
		return "messages above NCCL_P2P_LL_THRESHOLD (16 KiB) a channel use Simple";
	return "messages up to NCCL_P2P_LL_THRESHOLD (16 KiB) a channel use LL";
}

/* PXN relays some send of a node's ranks through another GPU (links pxn_relay). */
static bool
relays(const struct ft_model_links *l)
{
	uint32_t n = FT_MIN(l->rail_ppn, l->ppn), all = (1u << n) - 1, g;

	for (g = 0; g < n; g++)
		if (l->pxn_relay[g] & all)
			return true;
	return false;
}

/*
 * Some send between nodes leaves by its sender's own NIC for a peer on another rail: PXN
 * off and the two GPUs on different NICs, or PXN on where NCCL relays it through no proxy
 * (links pxn_relay: C2C nodes before 2.28.3, a proxy past the CPU; ft_model_pxn_relay()).
 */
static bool
own_nic_cross(const struct ft_model_links *l)
{
	uint32_t n = FT_MIN(l->rail_ppn, l->ppn), all = (1u << n) - 1, g;

	for (g = 0; g < n; g++)
		if ((~l->same_rail[g] & ~(l->pxn ? l->pxn_relay[g] : 0u) & all) != 0)
			return true;
	return false;
}

/*
 * The longest way the direct all-to-all's sends between nodes take: the rail's path plus
 * the NVLink hop where PXN relays one, the path that crosses rails (leaf, spine, leaf) where
 * one leaves by its own NIC for another rail (own_nic_cross()), else the rail's.
 */
static double
a2a_path_lat(const struct ft_model_links *l)
{
	double lat = l->fabric_rail_lat_s;

	if (l->pxn && relays(l))
		lat = FT_MAX(lat, l->fabric_rail_lat_s + l->nvlink_hop_s);
	if (own_nic_cross(l))
		lat = FT_MAX(lat, l->fabric_xrail_lat_s);
	return lat;
}

/*
 * The links @a is priced on for @q: the direct all-to-all sends from every GPU to every
 * other GPU, so most of its sends go to a peer on another rail. By NCCL's default (PXN,
 * links pxn; NVIDIA/nccl src/graph/search.cc ncclTopoGetNetDev(), NCCL_P2P_PXN_LEVEL 2;
 * kb ENV-PXN) such a send goes over NVLink to the local GPU of the peer's rail and out of
 * that GPU's NIC: the rail's path plus one NVLink hop; where GPUs share a NIC, so do a
 * GPU's sends to its own rail unless it is its NIC's first GPU (links pxn_relay). With
 * NCCL_PXN_DISABLE=1 (spec nccl.pxn_disable) or a v4 network plugin, or where PXN finds
 * no proxy (C2C nodes before 2.28.3, ft_model_pxn_relay()), it leaves by the sender's own
 * NIC and crosses rails (through the spine of a rail-optimized fat-tree, as the flow and
 * packet engines route it): the candidate takes the longest of those paths
 * (a2a_path_lat()), a copy in @buf. With @spine (the pick's
 * time, not NCCL's tuner, which has no such term), where sends cross rails from their own
 * NIC the direct all-to-all's fabric share is the spine's share of its NIC rate (links
 * a2a_spine_factor) where that is the less. A send/recv runs rank i to
 * i + 1, so its sends between nodes go from a node's last local rank to the next node's
 * first: with PXN through the GPU of the peer's rail, on that rail (the relay's NVLink
 * leg left out, as the engines' windows leave it); with PXN off, or no proxy, from the
 * sender's own NIC, across rails where the two GPUs' NICs differ (as the flow engine routes it,
 * ft__sim_channelize() with own_nics). A ring's, a tree's and the hierarchical
 * all-to-all's stay on their rails, on @l as it is.
 */
static const struct ft_model_links *
algo_links(const struct ft_model_links *l, const struct ft_model_query *q, enum ft_algo a,
           bool spine, struct ft_model_links *buf)
{
	uint32_t n = l->rail_ppn, g = l->ppn > 0 ? l->ppn - 1 : 0;

	if (q->op == FT_OP_SENDRECV && n > 0 && !(l->pxn && (l->pxn_relay[g % n] & 1u)) &&
	    !(l->same_rail[g % n] & 1u)) {
		*buf = *l;
		buf->fabric_lat_s = buf->fabric_xrail_lat_s;
		return buf;
	}
	if (q->op != FT_OP_ALLTOALL || a != FT_ALGO_DIRECT)
		return l;
	if (!(l->pxn && relays(l)) && !own_nic_cross(l)) {
		if (!spine || !(l->a2a_spine_factor < l->a2a_factor))
			return l;
		*buf = *l;
	} else {
		*buf = *l;
		buf->fabric_lat_s = a2a_path_lat(l);
	}
	/* the sends that cross rails from their own NIC load the leaves' up-links (links
	 * a2a_spine_factor): the direct all-to-all's fabric share is the less of the two */
	if (spine && l->a2a_spine_factor < l->a2a_factor) {
		buf->a2a_factor = l->a2a_spine_factor;
		ft_strlcpy(buf->a2a_what, "spine", sizeof(buf->a2a_what));
	}
	return buf;
}

/*
 * Weigh every (algorithm, protocol) @q allows on @l, as NCCL's tuner does;
 * fill @ex's candidates when it is not NULL. The pick goes to *@best_a,
 * *@best_p, *@best_c, its time to *@best_t (INFINITY: none), the first
 * reason one was unavailable to *@why.
 */
static void
weigh(const struct ft_model_links *l, const struct ft_model_query *q, struct ft_model_explain *ex,
      enum ft_algo *best_a, enum ft_proto *best_p, struct ft__model_cost *best_c,
      double *best_t, const char **why)
{
	struct ft__model_cost c;
	struct ft_model_links buf;
	enum ft_algo a, pin_a = FT_ALGO_RING;
	enum ft_proto p, pin_p = FT_PROTO_SIMPLE;
	/* A tuner plugin's pick wins over the costs, as its cost of zero does in NCCL. */
	bool pin = ft__model_ofi_region(l, q, &pin_a, &pin_p), pinned = false;
	double t;

	*best_t = INFINITY;
	*best_a = FT_ALGO_RING;
	*best_p = FT_PROTO_SIMPLE;
	*why = NULL;
	memset(best_c, 0, sizeof(*best_c));
	for (a = 0; a < FT_ALGO_COUNT; a++) {
		const struct ft_model_links *la;

		if (q->force_algo && a != q->algo)
			continue;
		la = algo_links(l, q, a, false, &buf);
		for (p = 0; p < FT_PROTO_COUNT; p++) {
			struct ft_model_candidate *k = NULL;
			const char *no;

			if (q->force_proto && p != q->proto)
				continue;
			no = ft__model_unavailable(la, q->op, a, p, q->force_algo, q->force_proto);
			if (!no && q->nvls_off && (a == FT_ALGO_NVLS || a == FT_ALGO_NVLS_TREE))
				no = "nvlink sharp is off (--no-nvls: NCCL_NVLS_ENABLE=0)";
			if (!no && q->no_nvls_net && a == FT_ALGO_NVLS && l->nnodes > 1)
				no = "nvls across nodes has no schedule here";
			if (!no && q->no_pat && a == FT_ALGO_PAT)
				no = "pat needs one GPU per node";
			if (!no && !q->force_proto)
				no = p2p_protocol(la, q, p);
			/* PAT listed where it applies (its schedule checks one rank a node) */
			if (ex && (a == FT_ALGO_PAT ? !no : ft_coll_supports(q->op, a, p)) &&
			    ex->ncandidates < FT_MODEL_MAX_CANDIDATES) {
				k = &ex->cand[ex->ncandidates++];
				memset(k, 0, sizeof(*k));
				k->algo = a;
				k->proto = p;
				ft_strlcpy(k->algo_label, ft_algo_name(a), sizeof(k->algo_label));
			}
			if (no) {
				if (!*why)
					*why = no;
				if (k)
					ft_strlcpy(k->why, no, sizeof(k->why));
				continue;
			}
			ft__model_cost(la, q->op, a, p, q->bytes, &c);
			t = ft__model_time(la, q->op, a, p, &c, q->bytes);
			if (k) {
				ft_model_algo_label(a, c.variant, k->algo_label,
				                    sizeof(k->algo_label));
				k->available = true;
				k->time_s = t;
				k->lat_s = c.lat_s;
				k->bw_Bps = c.bw_Bps;
				k->base_s = ft__model_base_lat(la, q->op, a, p);
				ft__model_factors(la, q->op, a, p, q->bytes, &k->lat_factor,
				                  &k->bw_factor);
				ft_strlcpy(k->bottleneck, c.bottleneck, sizeof(k->bottleneck));
			}
			/* The plugin's pick, once met, stands; else strictly less: ties
			 * keep the earlier (algorithm, protocol), deterministically. */
			if (pinned)
				continue;
			if (pin && a == pin_a && p == pin_p) {
				pinned = true;
				if (ex)
					ex->plugin_pick = true;
			}
			else if (!(t < *best_t))
				continue;
			*best_t = t;
			*best_a = a;
			*best_p = p;
			*best_c = c;
			if (ex)
				ex->pick = ex->ncandidates - 1;
		}
	}
}

/* The link classes of @q on @spec, with its channels; the first checks of a query. */
static int
query_links(const struct ft_cluster_spec *spec, const struct ft_model_query *q,
            struct ft_model_links *l, struct ft_error *err)
{
	int rc = check_query(q, err);

	if (rc < 0)
		return rc;
	/* the query's release, else the one the spec's jobs run (`fabtune sim --nccl`) */
	rc = ft__model_links_get_at(spec, q->ngpus, q->nnodes, q->ppn,
	                            q->nccl_version ? q->nccl_version : spec->nccl_version,
	                            q->op == FT_OP_ALLTOALL || q->op == FT_OP_SENDRECV, l,
	                            q->cache, err);
	if (rc < 0)
		return rc;
	/* (after the release's channels: forcing scales the ring graph by the count, the
	 * release's NVLink figure by its own factor) */
	if (q->nchannels)
		ft_model_links_force_channels(l, q->nchannels);
	l->nvls_off = q->nvls_off;
	l->collnet = q->force_algo && q->algo == FT_ALGO_COLLNET ? q->collnet : FT_COLLNET_AUTO;
	return 0;
}

/* The forced algorithm's name: a forced CollNet variant's own. */
static const char *
forced_algo_name(const struct ft_model_query *q)
{
	return q->algo == FT_ALGO_COLLNET ? ft_collnet_variant_name(q->collnet) :
	                                    ft_algo_name(q->algo);
}

static int
no_pick(const struct ft_model_query *q, const char *why, struct ft_error *err)
{
	if (q->force_algo && q->force_proto)
		return ft_error_set(err, FT_ENOTSUP, "%s with algo %s and proto %s: %s",
		                    ft_op_name(q->op), forced_algo_name(q),
		                    ft_proto_name(q->proto), why ? why : "not available");
	if (q->force_algo)
		return ft_error_set(err, FT_ENOTSUP, "%s with algo %s: %s", ft_op_name(q->op),
		                    forced_algo_name(q), why ? why : "not available");
	return ft_error_set(err, FT_ENOTSUP, "%s with proto %s: %s", ft_op_name(q->op),
	                    ft_proto_name(q->proto), why ? why : "not available");
}

/*
 * The spec's calibration entry for @q: the same op and rank count, else the
 * same op, else the first; NULL when the spec has none.
 */
static const struct ft_calib_entry *
calib_for(const struct ft_cluster_spec *spec, const struct ft_model_query *q, uint32_t nranks)
{
	const struct ft_calib_entry *same_op = NULL;
	uint32_t i;

	for (i = 0; i < spec->ncalib && i < FT_SPEC_MAX_CALIB; i++) {
		const struct ft_calib_entry *c = &spec->calib[i];

		if (strcmp(c->op, ft_op_name(q->op)) != 0)
			continue;
		if (c->nranks == 0 || c->nranks == nranks)
			return c;
		if (!same_op)
			same_op = c;
	}
	if (same_op)
		return same_op;
	return spec->ncalib ? &spec->calib[0] : NULL;
}

/*
 * The model's time @t of the pick split in the two parts a calibration scales
 * (ft_model_result.lat_part_s, bw_part_s): the bytes' part, size over the
 * pick's bandwidth at the channels launched (ft__model_pipe_time()), and the
 * rest, paid once an operation whatever its size: the latency term, the
 * pipeline's ramp (the first chunk through every stage) and what a proxy or
 * launch floor adds over the GPU's time. They add up to @t.
 */
static void
split(const struct ft_model_links *l, const struct ft_model_query *q, enum ft_algo a,
      enum ft_proto p, const struct ft__model_cost *c, const struct ft_model_pipeline *pl,
      double t, struct ft_model_result *out)
{
	double lf, bf, share = pl->bw_share > 0 ? pl->bw_share : 1.0, bw;

	ft__model_factors(l, q->op, a, p, q->bytes, &lf, &bf);
	if (ft__model_forced_fill(l, a, p))
		bf = 1.0;
	bw = (double)q->bytes / (c->bw_Bps * bf * share);
	if (!(bw >= 0) || bw > t)
		bw = FT_MAX(0.0, FT_MIN(bw, t));
	out->bw_part_s = bw;
	out->lat_part_s = t - bw;
}

/*
 * Apply the spec's calibration to the model's time of the pick (NCCL picks
 * with its own constants; the calibration says what that pick costs on this
 * cluster): fixed + lat_scale x latency part + bw_scale x bandwidth part,
 * the parts of split(), in the order ft_model_calibrate() computes its fit.
 */
static void
calibrate(const struct ft_cluster_spec *spec, const struct ft_model_links *l,
          const struct ft_model_query *q, struct ft__model_cost *c, double *t,
          const struct ft_model_result *parts)
{
	const struct ft_calib_entry *e = calib_for(spec, q, l->nranks);

	if (!e)
		return;
	*t = e->fixed_s + e->lat_scale * parts->lat_part_s + e->bw_scale * parts->bw_part_s;
	c->lat_s = e->fixed_s + e->lat_scale * parts->lat_part_s;
}

/*
 * What NCCL's pick then costs (model/pipeline.c): the tuner's terms with the
 * bandwidth of the channels NCCL launches at this size, the pipeline's ramp,
 * and the floors of the proxy thread and of the host launch. The latency
 * term stays the tuner's; fill() charges the rest to the bandwidth term.
 */
static int
pipeline(const struct ft_model_links *l, const struct ft_model_query *q, enum ft_algo a,
         enum ft_proto p, struct ft__model_cost *c, double *t, struct ft_model_pipeline *pl)
{
	double lf_tuner, bf;
	int rc = ft__model_pipe(l, q->op, a, p, c, q->bytes, q->cuda_graph, pl);

	if (rc < 0)
		return rc;
	/* nccl-tests -g N: one thread launches the operation on its N GPUs in turn
	 * (one group over N communicators), N host launches per iteration. */
	if (q->gpus_per_thread > 1)
		pl->launch_s *= q->gpus_per_thread;
	/* Only the bandwidth factor is the run's. The latency factor (the ring's plateau,
	 * x 1.4 on a ring/Simple all-reduce across nodes, kb NA-MODEL) is the tuner's
	 * price, steering its pick off ring/Simple where the pipeline binds; the run does
	 * not pay it: the ramp and the proxy's floor above are that cost, so the pick's
	 * time here pays its latency once. */
	ft__model_factors(l, q->op, a, p, q->bytes, &lf_tuner, &bf);
	/* the ramp holds the fill NCCL's tree correction stands for (ft__model_forced_fill()) */
	if (ft__model_forced_fill(l, a, p))
		bf = 1.0;
	*t = ft__model_pipe_time(c, 1.0, bf, q->bytes, pl);
	if (*t <= pl->launch_s)
		ft_strlcpy(c->bottleneck, "launch", sizeof(c->bottleneck));
	else if (*t <= pl->proxy_s)
		ft_strlcpy(c->bottleneck, "proxy", sizeof(c->bottleneck));
	return 0;
}

/*
 * The pipeline terms of (op, a, p) at @bytes on @l: what eval_into() adds to the tuner's
 * terms when it times that pick (pipeline()), from the cost its time takes (the receive
 * flushed only where NCCL flushes, every vendor's network overhead, the bytes the tree
 * carries). The engines of the simulator that run flows whole take the ramp and the
 * proxy floor from here, so both price them from one definition (model/pipeline.c).
 */
/* The cost (op, a, p) takes on @l when it is timed, in @c, and the links it is timed on in
 * @t: the receive flushed only where NCCL flushes, every vendor's network overhead, the
 * bytes the tree carries. False where the pair does not run on @l or has no bandwidth. */
static bool
timed_cost(const struct ft_model_links *l, enum ft_op op, enum ft_algo a, enum ft_proto p,
           uint64_t bytes, struct ft_model_links *t, struct ft__model_cost *c)
{
	*t = *l;
	if (t->nranks < 2 || ft__model_unavailable(t, op, a, p, true, true))
		return false;
	if (t->nnodes > 1) {
		t->time_unflushed = p == FT_PROTO_SIMPLE && !t->net_flush;
		t->time_any_vendor = t->cpu_amd || t->cpu_mixed;
	}
	t->time_run_channels = true;
	ft__model_cost(t, op, a, p, bytes, c);
	ft__model_carried(t, op, a, c);
	return c->bw_Bps > 0;
}

int
ft_model_pipe_terms(const struct ft_model_links *l, enum ft_op op, enum ft_algo a, enum ft_proto p,
                    uint64_t bytes, struct ft_model_pipeline *out, struct ft_error *err)
{
	struct ft_model_links t;
	struct ft__model_cost c;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (timed_cost(l, op, a, p, bytes, &t, &c))
		rc = ft__model_pipe(&t, op, a, p, &c, bytes, false, out);
	if (rc < 0) {
		memset(out, 0, sizeof(*out));
		return ft_error_set(err, rc, "model: NCCL's pipeline: %s", ft_strerror(rc));
	}
	return 0;
}

bool
ft_model_collnet_direct_stages(const struct ft_model_links *l, uint64_t bytes, double *nv,
                               double *net)
{
	struct ft_model_links t = *l;
	struct ft_model_links u;
	struct ft__model_cost c;

	*nv = *net = 0;
	t.collnet = FT_COLLNET_DIRECT;
	if (!timed_cost(&t, FT_OP_ALL_REDUCE, FT_ALGO_COLLNET, FT_PROTO_SIMPLE, bytes, &u, &c) ||
	    strcmp(c.variant, "direct") != 0)
		return false;
	return ft__model_collnet_stages(&u, &c, nv, net);
}

double
ft_model_kernel_algbw(const struct ft_model_links *l, enum ft_op op, enum ft_algo a,
                      enum ft_proto p, uint64_t bytes)
{
	struct ft_model_links t;
	struct ft__model_cost c;
	struct ft_model_pipeline pl;
	double lf, bf, share;

	if ((a != FT_ALGO_RING && a != FT_ALGO_TREE) || op == FT_OP_ALLTOALL ||
	    op == FT_OP_SENDRECV || !timed_cost(l, op, a, p, bytes, &t, &c))
		return 0;
	/* only the NVLS tree's fill walk can fail (out of memory), and a ring or tree never
	 * takes it: fill_net_s() returns before the walk unless the algorithm is NVLS_TREE */
	if (FT_NEVER(ft__model_pipe(&t, op, a, p, &c, bytes, false, &pl) < 0))
		return 0;
	share = pl.bw_share > 0 && pl.bw_share < 1 ? pl.bw_share : 1.0;
	if (p == FT_PROTO_SIMPLE && share == 1.0)
		return 0;
	ft__model_factors(&t, op, a, p, bytes, &lf, &bf);
	return c.bw_Bps * bf * share;
}

/*
 * A send between nodes moves no faster than NCCL's window lets it
 * (ft_model_p2p_window_Bps()): its channels' chunks in flight per round trip, the round
 * trip twice the switches and cables between the nodes (fabric_lat_s: with PXN off the
 * cross-rail path where the send/recv's sends change rails, algo_links()). NCCL's tuner
 * does not price send/recv, so the time takes the window where it is below the links'
 * rate, and names it; on the preset fabrics it is far above (4 channels x 8 x 128 KiB
 * a few microseconds). The flow and packet engines hold each send to the same window.
 * Returns the window where it binds, else 0.
 */
static double
p2p_window(const struct ft_model_links *l, uint64_t bytes, struct ft__model_cost *c)
{
	struct ft_model_p2p_chunking ch;
	double w;

	if (l->nnodes < 2)
		return 0;
	ft__model_p2p_chunking(l, bytes, true, &ch);
	w = ft_model_p2p_window_Bps(&ch, 2 * l->fabric_lat_s);
	if (!(w > 0 && w < c->bw_Bps))
		return 0;
	c->bw_Bps = w;
	ft_strlcpy(c->bottleneck, "p2p:window", sizeof(c->bottleneck));
	return w;
}

/*
 * The round trip of a send from local rank @g of a node to local rank @h of another. With
 * PXN (links pxn, algo_links()) where NCCL relays it (links pxn_relay: the peer's rail is
 * another, or @g shares its NIC and is not the NIC's first GPU), the sender hands its
 * chunks over NVLink to the first GPU of the peer's NIC, whose NIC sends them: twice the
 * rail's path plus the one NVLink hop of the data (the credits come back to the proxy's
 * NIC and, through host memory, to the sender: no NVLink hop back). Else twice the path
 * that stays on its rail where both GPUs leave by the same NIC (links
 * fabric_rail_lat_s); without PXN, on different NICs, twice the path that
 * crosses rails (fabric_xrail_lat_s: leaf, spine, leaf on a rail-optimized fat-tree), the
 * sender's NIC to the receiver's (topo/route.c). Links without a rail map (built by hand)
 * have one latency, fabric_lat_s.
 */
static double
send_rtt(const struct ft_model_links *l, uint32_t g, uint32_t h)
{
	uint32_t n = l->rail_ppn;

	if (n == 0)
		return 2 * l->fabric_lat_s;
	if (l->pxn && ((l->pxn_relay[g % n] >> (h % n)) & 1u))
		return 2 * l->fabric_rail_lat_s + l->nvlink_hop_s;
	if ((l->same_rail[g % n] >> (h % n)) & 1u)
		return 2 * l->fabric_rail_lat_s;
	return 2 * l->fabric_xrail_lat_s;
}

/*
 * An all-to-all's sends between nodes are held to NCCL's window as a send/recv's are, with
 * the slots each shares with the sends NCCL puts in its proxy op (ft_model_p2p_share_slots(),
 * by the release ch.nccl_version: placement and work batches as that release's NVIDIA/nccl
 * does; src/proxy.cc ProxyAppend(), src/transport/net.cc sendProxyProgress(): each of a
 * proxy op's subs posts at most min(NCCL_STEPS 8, NCCL_SHARED_STEPS 16 / subs) chunks). The
 * network phase is the direct one over all n ranks (n - ppn of a rank's sends leave its
 * node, S / n each) or the hierarchical one over the N nodes of a rail (N - 1 sends, S / N
 * each); either way (n - ppn) / n of S leaves each rank. At most k = min(peers_inflight,
 * its network sends) of them are in flight, send i at its own window w_i, whose round trip
 * is that of the path it takes (send_rtt()): in each local rank's own view of src/init.cc's
 * p2p schedule (ft_model_p2p_sched_views(), ft_model_p2p_share_slots_rank(): one view up
 * to v2.28.6 and where a node is one schedule group, rank 0's, whose round r goes r / ppn
 * nodes and r mod ppn local ranks ahead), local rank g sends to a local rank on its own
 * rail, or another: through the GPU of that rail (NCCL's PXN,
 * one NVLink hop more) or, with PXN off, across rails (leaf, spine, leaf on a
 * rail-optimized fat-tree); the hierarchical phase stays on its rail. The
 * sends of local rank g take at least t_w(g) = max(max_i 1 / (m w_i), sum_i 1 / (m w_i) / k)
 * a byte of S (m the phase's ranks; with equal windows (n - ppn) / n / (k w)), and the op
 * ends with the slowest rank: t_w = max_g t_w(g), as the engines run each send at its own
 * path's window. Where t_w is above the rails' term (ft__model_a2a_net_s()) it replaces it:
 * the direct phase overlaps its NVLink part (time the larger), the hierarchical one
 * follows it (times add). The flow and packet engines hold each send to the same window
 * (ft__sim_a2a_window()). Sets *@w_Bps to 1 / t_w, the algorithm bandwidth the window
 * alone allows, where it binds, else 0; returns 0, or FT_ENOMEM where the slots could not
 * be had (the window unknown: no answer, not one without it).
 */
static int
a2a_window(const struct ft_model_links *l, enum ft_algo a, enum ft_proto p, uint64_t bytes,
           struct ft__model_cost *c, double *w_Bps)
{
	struct ft_model_links comm = *l;
	struct ft_model_p2p_chunking ch;
	bool direct = a == FT_ALGO_DIRECT;
	uint32_t m = direct ? l->nranks : l->nnodes;
	uint32_t net = direct ? l->nranks - l->ppn : l->nnodes - 1, k, ppn, r, g, nr, nv, nch;
	uint8_t *slots;
	double t_w = 0, t_net, t;
	int rc = 0;

	*w_Bps = 0;
	if (l->nnodes < 2 || l->nranks <= l->ppn || !(c->bw_Bps > 0))
		return 0;
	comm.nranks = m;
	ft__model_p2p_chunking(&comm, bytes / m, true, &ch);
	k = FT_MIN(FT_MAX(ch.peers_inflight, 1u), net);
	/* each network send (rounds ppn..m-1) at its own window, S / m bytes: k at a time,
	 * the slowest at least its own time; the local ranks a rail map tells apart (a
	 * node's rails repeat every rail_ppn ranks, as do an NVLink domain's trays), and
	 * those whose p2p schedule differs from rank 0's (ft_model_p2p_sched_views(): from
	 * v2.28.7 where a node holds several schedule groups), each its own slots */
	ppn = m / l->nnodes;
	nch = ft_model_p2p_nchannels_of(l);
	nr = direct && l->rail_ppn ? FT_MIN(FT_MIN(l->rail_ppn, ppn), FT_SPEC_MAX_GPUS) : 1;
	nv = ft_model_p2p_sched_views(l->nnodes, ppn, ch.nccl_version);
	slots = ft_calloc(m, sizeof(*slots));
	if (!slots)
		return FT_ENOMEM;
	for (g = 0; g < FT_MAX(nr, nv); g++) {
		/* local rank g of the first node: t_w(g) of its own sends, the slowest and
		 * their sum over the k in flight */
		double t_max = 0, t_sum = 0;

		/* one view: rank 0's slots for all */
		if (g == 0 || nv > 1) {
			rc = ft_model_p2p_share_slots_rank(&ch, nch, l->nnodes, ppn, nv > 1 ? g : 0,
			                                   slots);
			if (rc < 0)
				goto out;
		}
		for (r = ppn; r < m; r++) {
			struct ft_model_p2p_chunking mine = ch;
			uint32_t h = direct ? (g + r % ppn) % ppn : g;
			double w;

			mine.slots = slots[r];
			w = ft_model_p2p_window_Bps(&mine, send_rtt(l, g, h));
			if (!(w > 0))
				goto out; /* (no window: none binds) */
			t_max = FT_MAX(t_max, 1.0 / (m * w));
			t_sum += 1.0 / (m * w);
		}
		t_w = FT_MAX(t_w, FT_MAX(t_max, t_sum / k));
	}
	t_net = ft__model_a2a_net_s(l) / ft_proto_efficiency(p);
	if (!(t_w > t_net))
		goto out;
	t = 1.0 / c->bw_Bps;
	t = direct ? FT_MAX(t, t_w) : t - t_net + t_w;
	if (direct && t_w < 1.0 / c->bw_Bps)
		goto out; /* (the NVLink part still binds) */
	c->bw_Bps = 1.0 / t;
	if (direct || t_w >= t - t_w)
		ft_strlcpy(c->bottleneck, "p2p:window", sizeof(c->bottleneck));
	*w_Bps = 1.0 / t_w;
out:
	ft_free(slots);
	return rc;
}

static int
eval_into(const struct ft_cluster_spec *spec, const struct ft_model_query *q,
          struct ft_model_result *out, struct ft_model_explain *ex, struct ft_error *err)
{
	struct ft_model_links l;
	struct ft__model_cost best_c;
	struct ft_model_pipeline pl;
	struct ft_model_result parts = { 0 };
	enum ft_algo best_a;
	enum ft_proto best_p;
	double best_t;
	const char *why;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = query_links(spec, q, &l, err);
	if (rc < 0)
		return rc;
	if (ex)
		ex->links = l;
	if (l.nranks == 1)
		return eval_one_rank(&l, q, out);
	if (q->force_algo && !algo_exists(q->op, q->algo))
		return no_such_algo(q, err);
	weigh(&l, q, ex, &best_a, &best_p, &best_c, &best_t, &why);
	if (best_t == INFINITY)
		return no_pick(q, why, err);
	/* from here on the pick's path: a direct all-to-all's crosses rails (algo_links()) */
	{
		struct ft_model_links buf;
		const struct ft_model_links *al = algo_links(&l, q, best_a, !q->tuner_only, &buf);

		l.fabric_lat_s = al->fabric_lat_s;
		/* the spine's share (links a2a_spine_factor): NCCL's tuner does not see it, the
		 * time does, the pick's cost on those links */
		if (al->a2a_factor != l.a2a_factor) {
			l.a2a_factor = al->a2a_factor;
			memcpy(l.a2a_what, al->a2a_what, sizeof(l.a2a_what));
			ft__model_cost(&l, q->op, best_a, best_p, q->bytes, &best_c);
		}
		if (ex) {
			ex->links.fabric_lat_s = l.fabric_lat_s;
			ex->links.a2a_factor = al->a2a_factor;
			memcpy(ex->links.a2a_what, al->a2a_what, sizeof(ex->links.a2a_what));
		}
	}
	/* NCCL's per-channel caps priced the pick on its search graph's channels; the kernel
	 * runs the run-time channels, each under the cap (model/tuner.c caps_nchannels()). */
	if (!q->tuner_only) {
		struct ft__model_cost tuner = best_c;

		l.time_run_channels = true;
		ft__model_cost(&l, q->op, best_a, best_p, q->bytes, &best_c);
		if (ex && (best_c.bw_Bps != tuner.bw_Bps ||
		           best_c.links_bw_Bps != tuner.links_bw_Bps))
			ex->run_channels_Bps =
			        best_c.links_bw_Bps > 0 ? best_c.links_bw_Bps : best_c.bw_Bps;
	}
	/* The tuner's cost made the pick, a flush on every Simple step across nodes included;
	 * the time pays it only where NCCL flushes a GPUDirect receive: not on Hopper or
	 * later behind an x86 host (src/graph/paths.cc ncclTopoNeedFlush, v2.27.7-1). */
	if (!q->tuner_only && best_p == FT_PROTO_SIMPLE && l.nnodes > 1 && !l.net_flush) {
		struct ft_model_links t = l;
		struct ft__model_cost c;

		t.time_unflushed = true;
		ft__model_cost(&t, q->op, best_a, best_p, q->bytes, &c);
		if (ex) {
			double lf, bf;

			ft__model_factors(&l, q->op, best_a, best_p, q->bytes, &lf, &bf);
			ex->unflushed_s = (best_c.lat_s - c.lat_s) * lf;
		}
		best_c.lat_s = c.lat_s;
	}
	/* NCCL's AMD figures (network post overhead, multi-node LL caps) made the pick; the
	 * time takes every host's: the EPYC hosts measured run faster than NCCL's AMD
	 * estimate (docs/internals/model.md, "The tuner"). */
	if (!q->tuner_only && l.nnodes > 1 && (l.cpu_amd || l.cpu_mixed)) {
		struct ft__model_cost c;
		struct ft_model_links t;

		l.time_any_vendor = true;
		t = l;
		t.time_unflushed = best_p == FT_PROTO_SIMPLE && !l.net_flush;
		ft__model_cost(&t, q->op, best_a, best_p, q->bytes, &c);
		best_c = c;
	}
	/* The tuner's cost made the pick; the time follows the bytes the pick carries. */
	{
		double tuner_Bps = best_c.bw_Bps;

		ft__model_carried(&l, q->op, best_a, &best_c);
		if (ex && best_c.bw_Bps != tuner_Bps)
			ex->carried_Bps = best_c.bw_Bps;
	}
	if (!q->tuner_only && (q->op == FT_OP_SENDRECV || q->op == FT_OP_ALLTOALL)) {
		double w = 0;

		if (q->op == FT_OP_SENDRECV)
			w = p2p_window(&l, q->bytes, &best_c);
		else if ((rc = a2a_window(&l, best_a, best_p, q->bytes, &best_c, &w)) < 0)
			return ft_error_set(err, rc, "model: the all-to-all's window: %s",
			                    ft_strerror(rc));
		if (ex)
			ex->p2p_window_Bps = w;
	}
	/* The rendezvous (links rdv_s): a wait of the run NCCL's tuner does not price, so the
	 * time adds it and the pick stands (model/tuner.c ft__model_rdv_lat_s()). */
	if (!q->tuner_only && l.rdv_s > 0) {
		double rdv = ft__model_rdv_lat_s(&l, q->op, best_a, q->bytes), lf, bf;

		ft__model_factors(&l, q->op, best_a, best_p, q->bytes, &lf, &bf);
		best_c.lat_s += rdv;
		if (ex)
			ex->rdv_s = rdv * lf;
	}
	if (ex && best_a == FT_ALGO_NVLS && l.nnodes > 1)
		ex->nvls_net.nchannels = ft__model_nvls_net_terms(&l, &ex->nvls_net.bw_intra_Bps,
		                                                  &ex->nvls_net.bw_inter_Bps,
		                                                  &ex->nvls_net.efficiency);
	best_t = ft__model_time(&l, q->op, best_a, best_p, &best_c, q->bytes);
	if (q->tuner_only)
		memset(&pl, 0, sizeof(pl));
	else if ((rc = pipeline(&l, q, best_a, best_p, &best_c, &best_t, &pl)) < 0)
		return ft_error_set(err, rc, "model: NCCL's pipeline: %s",
		                    ft_strerror(rc));
	split(&l, q, best_a, best_p, &best_c, &pl, best_t, &parts);
	/* The calibration was fitted on the two parts of this time: it scales them. */
	if (spec->ncalib > 0)
		calibrate(spec, &l, q, &best_c, &best_t, &parts);
	fill(&l, q, best_a, best_p, &best_c, best_t, out);
	out->pipe = pl;
	out->lat_part_s = parts.lat_part_s;
	out->bw_part_s = parts.bw_part_s;
	out->calibrated = spec->ncalib > 0;
	memcpy(out->shared_error, l.shared_error, sizeof(out->shared_error));
	return 0;
}

int
ft_model_eval(const struct ft_cluster_spec *spec, const struct ft_model_query *q,
              struct ft_model_result *out, struct ft_error *err)
{
	return eval_into(spec, q, out, NULL, err);
}

int
ft_model_explain(const struct ft_cluster_spec *spec, const struct ft_model_query *q,
                 struct ft_model_explain *out, struct ft_error *err)
{
	memset(out, 0, sizeof(*out));
	out->pick = SIZE_MAX;
	return eval_into(spec, q, &out->result, out, err);
}

void
ft_model_result_to_row(const struct ft_model_result *r, struct ft_result_row *row)
{
	ft_result_row_init(row);
	ft_strlcpy(row->test, ft_op_name(r->op), sizeof(row->test));
	row->bytes = r->bytes;
	row->nranks = r->nranks;
	ft_coll_row_args(row, r->op);
	row->time_us = r->time_s * 1e6;
	row->algbw_GBps = r->algbw_Bps / 1e9;
	row->busbw_GBps = r->busbw_Bps / 1e9;
	ft_strlcpy(row->algo, r->algo_label, sizeof(row->algo));
	ft_strlcpy(row->proto, ft_proto_name(r->proto), sizeof(row->proto));
	ft_strlcpy(row->bottleneck, r->bottleneck, sizeof(row->bottleneck));
}

int
ft_model_sweep(const struct ft_cluster_spec *spec, const struct ft_model_query *q,
               uint64_t min_bytes, uint64_t max_bytes, uint64_t factor, struct ft_run *run,
               struct ft_error *err)
{
	struct ft_model_query one = *q;
	struct ft_model_cache *own = NULL;
	struct ft_model_result r;
	struct ft_result_row row;
	uint64_t b;
	int rc;

	if (factor < 2)
		return ft_error_set(err, FT_EINVAL, "stepfactor: expected at least 2, got %" PRIu64,
		                    factor);
	if (min_bytes > max_bytes)
		return ft_error_set(err, FT_EINVAL,
		                    "minbytes: %" PRIu64 " is above maxbytes %" PRIu64, min_bytes,
		                    max_bytes);
	/* every size on the same node and job: its shared links laid out once (a cache of
	 * the sweep's own where the caller gives none; without memory for it, each size
	 * lays them out, as uncached) */
	if (!one.cache)
		one.cache = own = ft_model_cache_new();
	for (b = min_bytes;;) {
		one.bytes = b;
		rc = ft_model_eval(spec, &one, &r, err);
		if (rc == 0) {
			ft_model_result_to_row(&r, &row);
			rc = ft_run_add(run, &row);
			if (rc < 0)
				ft_error_set(err, rc, "model sweep: out of memory");
		}
		if (rc < 0)
			break;
		if (b == 0) {
			b = 1;
		} else {
			if (b > max_bytes / factor)
				break;
			b *= factor;
		}
		if (b > max_bytes)
			break;
	}
	ft_model_cache_free(own);
	return rc < 0 ? rc : 0;
}

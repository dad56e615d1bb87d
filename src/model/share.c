/* SPDX-License-Identifier: MIT */
/*
 * model/share.c - the in-node links an all-to-all's and a send/recv's sends share: a PCIe
 * switch's up-link to its CPU, the socket link (UPI/xGMI), a NIC and its PCIe link, a
 * GPU's own PCIe link where its sends inside the node and to the network meet. The bytes
 * each link carries come from the node's own topology graph, the one the flow engine
 * routes on (ft_topo_build() of one node: topo/node.c), along the in-node paths it routes
 * (ft_route_next_hops(): the shortest), so a link that several GPUs' sends cross is priced
 * on all of them, not on one GPU's share. A node's graph offers one shortest hop at every
 * vertex between its GPUs and NICs (a tree under CPUs joined pairwise, NVLink cheaper than
 * any PCIe way: topo/node.c), so the flow engine, which hashes a flow onto one of several
 * equal hops (topo/route.c choose()), routes each send as this walk does; were there
 * several, the even split below would be the mean, under the busiest link's expectation
 * under hashing (test_shared_links_single_paths guards it).
 * docs/internals/model.md, "the links a node's GPUs share".
 */
#include "model_int.h"

#include <string.h>

#include <fabtune/topo.h>

/* What one pattern of sends puts on a node's links, bytes a byte of S (what each rank
 * sends in all, or the send/recv's message). */
struct share_load {
	const struct ft_topo *t;
	double *load; /* per link */
	/* per link: the local GPUs whose sends cross it, and receive by it; NET the network */
	uint32_t *src, *dst;
	double nic_out[FT_SPEC_MAX_NICS], nic_in[FT_SPEC_MAX_NICS];
	uint32_t nic_src[FT_SPEC_MAX_NICS], nic_dst[FT_SPEC_MAX_NICS];
	int rc;
};

/* The network's bit in share_load's GPU masks (local GPUs: bits 0 to 15). */
#define NET (1u << 16)

/* Hops in a node are few; a path longer than this is a topology the walk refuses. */
#define SHARE_MAX_DEPTH 16

/* @bytes from vertex @at to in-node vertex @to, split evenly over the equal-cost next
 * hops at every vertex, onto @sl; @sg and @rg the local GPU bits of the sender and the
 * receiver (NET for the network). */
static void
route_add(struct share_load *sl, uint32_t at, uint32_t to, double bytes, uint32_t sg, uint32_t rg,
          unsigned depth)
{
	uint32_t hops[16];
	int n, i;

	if (sl->rc < 0 || at == to)
		return;
	n = ft_route_next_hops(sl->t, at, to, hops, FT_ARRAY_SIZE(hops));
	if (n <= 0 || depth >= SHARE_MAX_DEPTH) {
		sl->rc = n < 0 ? n : FT_EINVAL;
		return;
	}
	n = FT_MIN(n, (int)FT_ARRAY_SIZE(hops));
	for (i = 0; i < n; i++) {
		const struct ft_link *k = ft_topo_link(sl->t, hops[i]);

		sl->load[hops[i]] += bytes / n;
		sl->src[hops[i]] |= sg;
		sl->dst[hops[i]] |= rg;
		route_add(sl, k->dst, to, bytes / n, sg, rg, depth + 1);
	}
}

/* @bytes onto NIC @k's way out of the node (@out) from local GPU @src (GPU @g's sends), or
 * in from it to @g. */
static void
nic_add(struct share_load *sl, uint32_t k, uint32_t src, uint32_t g, double bytes, bool out)
{
	uint32_t gv = ft_topo_gpu(sl->t, 0, out ? src : g), nv = ft_topo_nic(sl->t, 0, k);

	if (out) {
		route_add(sl, gv, nv, bytes, 1u << g, NET, 0);
		sl->nic_out[k] += bytes;
		sl->nic_src[k] |= 1u << g;
	} else {
		route_add(sl, nv, gv, bytes, NET, 1u << g, 0);
		sl->nic_in[k] += bytes;
		sl->nic_dst[k] |= 1u << g;
	}
}

/*
 * Local GPU @g's @bytes to local rank @h of other nodes (@out), or from them into @g (@h
 * then @g's own). A send leaves by its own NIC (node.gpu_nic) unless PXN relays it (links
 * pxn, pxn_relay; NVIDIA/nccl src/graph/search.cc ncclTopoGetNetDev()): then over NVLink
 * (not priced here) to the proxy GPU of @h's NIC (ft_model_pxn_proxy()) and out of that NIC,
 * as model/spine.c send_nic() and the flow engine send it. A receive comes in by @g's own
 * NIC. A GPU of several NICs (nics.per_gpu) spreads over its lanes from its first, as the
 * flow engine does (sim/node.c ft__sim_conn_lanes()).
 */
static void
net_add(struct share_load *sl, const struct ft_node_spec *n, const struct ft_model_links *l,
        uint32_t ppn, uint32_t g, uint32_t h, double bytes, bool out)
{
	uint32_t per = FT_MAX(n->nics_per_gpu, 1u), r = FT_MAX(l->rail_ppn, 1u);
	uint32_t nic = n->gpu_nic[g], src = g, j;

	if (out && l->pxn && ((l->pxn_relay[g % r] >> (h % r)) & 1u)) {
		nic = n->gpu_nic[h];
		src = ft_model_pxn_proxy(n, n->ngpus, (1u << ppn) - 1u, nic);
		src = src < ppn ? src : h;
	}
	/* its lanes that are NICs of the node, as links count_rails() counts them */
	per = FT_MIN(per, n->nnics > nic ? n->nnics - nic : 0u);
	for (j = 0; j < per && bytes > 0; j++)
		nic_add(sl, nic + j, src, g, bytes / per, out);
}

static void
pair_add(struct share_load *sl, uint32_t g, uint32_t h, double bytes)
{
	route_add(sl, ft_topo_gpu(sl->t, 0, g), ft_topo_gpu(sl->t, 0, h), bytes, 1u << g, 1u << h,
	          0);
}

/* The local GPUs of mask @v (NET left out). */
static uint32_t
gpus_of(uint32_t v)
{
	uint32_t c = 0;

	for (v &= NET - 1; v; v &= v - 1)
		c++;
	return c;
}

/* @out's ends' counts from the masks @src and @dst of its link. */
static void
ends(struct ft_model_shared_link *out, uint32_t src, uint32_t dst)
{
	out->senders = gpus_of(src);
	out->receivers = gpus_of(dst);
	out->from_net = (src & NET) != 0;
	out->to_net = (dst & NET) != 0;
}

/* @name's part after the node's "n0." */
static void
local_name(const struct ft_topo *t, uint32_t v, char *buf, size_t size)
{
	char full[48];
	const char *dot;

	ft_topo_vertex_name(t, v, full, sizeof(full));
	dot = strchr(full, '.');
	ft_strlcpy(buf, dot ? dot + 1 : full, size);
}

/* The busiest of @sl's links into @out: its time a byte of S at its rate (NVLink left out:
 * the model prices it on NCCL's graph, links p2p_Bps), and the NICs at @nic_Bps. */
static void
busiest(const struct share_load *sl, const struct ft_model_links *l,
        struct ft_model_shared_link *out)
{
	uint32_t i, nl = ft_topo_nlinks(sl->t);

	memset(out, 0, sizeof(*out));
	for (i = 0; i < nl; i++) {
		const struct ft_link *k = ft_topo_link(sl->t, i);

		if (k->kind == FT_L_NVLINK || !(sl->load[i] > 0) || !(k->cap_Bps > 0) ||
		    !(sl->load[i] / k->cap_Bps > out->s))
			continue;
		out->s = sl->load[i] / k->cap_Bps;
		out->load = sl->load[i];
		out->cap_Bps = k->cap_Bps;
		ft_strlcpy(out->what, k->kind == FT_L_CPU ? "cpu_link" : "pcie", sizeof(out->what));
		local_name(sl->t, k->src, out->from, sizeof(out->from));
		local_name(sl->t, k->dst, out->to, sizeof(out->to));
		ends(out, sl->src[i], sl->dst[i]);
	}
	for (i = 0; i < FT_SPEC_MAX_NICS && l->nic_Bps > 0; i++) {
		bool up = sl->nic_out[i] >= sl->nic_in[i];
		double b = up ? sl->nic_out[i] : sl->nic_in[i];

		if (!(b / l->nic_Bps > out->s))
			continue;
		out->s = b / l->nic_Bps;
		out->load = b;
		out->cap_Bps = l->nic_Bps;
		ft_strlcpy(out->what, l->nic_what, sizeof(out->what));
		snprintf(up ? out->from : out->to, sizeof(out->from), "nic%u", i);
		ft_strlcpy(up ? out->to : out->from, "net", sizeof(out->to));
		ends(out, up ? sl->nic_src[i] : NET, up ? NET : sl->nic_dst[i]);
	}
}

/* The patterns the model prices (ft_model_links a2a_shared and after). */
enum share_pattern {
	SHARE_A2A,      /* the direct all-to-all: S/n to every peer, in the node and out */
	SHARE_A2A_NODE, /* the hierarchical one's phase in the node: S/ppn to every local peer */
	SHARE_A2A_NET,  /* either one's sends between nodes: (n - ppn)/n of S out and in */
	SHARE_SENDRECV, /* rank i sends S to i + 1 */
};

/* @p's sends of the node's @ppn first GPUs onto @sl: a job of @l's ranks on its nodes (an
 * NVLink domain of several of them one node of l->ppn GPUs, the sends between its trays
 * NVLink's). */
static void
pattern_add(struct share_load *sl, const struct ft_node_spec *nd, enum share_pattern p,
            uint32_t ppn, const struct ft_model_links *l)
{
	double n = l->nranks, dppn = l->ppn, net = (n - dppn) / n;
	uint32_t g, h, nnodes = l->nnodes;

	if (p == SHARE_A2A || p == SHARE_A2A_NODE)
		for (g = 0; g < ppn; g++)
			for (h = 0; h < ppn; h++)
				if (g != h)
					pair_add(sl, g, h, p == SHARE_A2A ? 1.0 / n : 1.0 / dppn);
	/* the direct one's sends between nodes at once with those in the node: (n - dppn)/n
	 * of S out of each GPU, to each local rank's peers alike, and as much in */
	if ((p == SHARE_A2A || p == SHARE_A2A_NET) && nnodes > 1)
		for (g = 0; g < ppn; g++) {
			for (h = 0; h < ppn; h++)
				net_add(sl, nd, l, ppn, g, h, net / ppn, true);
			net_add(sl, nd, l, ppn, g, g, net, false);
		}
	if (p != SHARE_SENDRECV)
		return;
	for (g = 0; g + 1 < ppn; g++)
		pair_add(sl, g, g + 1, 1.0);
	if (nnodes == 1 && ppn > 1)
		pair_add(sl, ppn - 1, 0, 1.0);
	if (nnodes > 1) {
		net_add(sl, nd, l, ppn, ppn - 1, 0, 1.0, true);
		net_add(sl, nd, l, ppn, 0, 0, 1.0, false);
	}
}

static int
share_of(const struct ft_topo *t, const struct ft_node_spec *nd, const struct ft_model_links *l,
         enum share_pattern p, uint32_t ppn, struct ft_model_shared_link *out)
{
	uint32_t nl = ft_topo_nlinks(t);
	struct share_load sl = { .t = t };

	sl.load = ft_calloc(nl ? nl : 1, sizeof(*sl.load));
	sl.src = ft_calloc(nl ? nl : 1, sizeof(*sl.src));
	sl.dst = ft_calloc(nl ? nl : 1, sizeof(*sl.dst));
	if (!sl.load || !sl.src || !sl.dst)
		sl.rc = FT_ENOMEM;
	if (sl.rc == 0)
		pattern_add(&sl, nd, p, ppn, l);
	if (sl.rc == 0)
		busiest(&sl, l, out);
	ft_free(sl.load);
	ft_free(sl.src);
	ft_free(sl.dst);
	return sl.rc;
}

/*
 * What the shared links of a query are a function of, whole: the one-node spec the
 * topology is laid out from (the node itself and the fabric block, whose link rate a NIC
 * without its own takes: topo/graph.c ft__topo_host_Bps_node(); its kind set to none, the
 * node count to 1, as ft__model_shared_links() lays it out), and what pattern_add(),
 * net_add() and busiest() read of the links: the job's ranks, nodes, ranks a node and a
 * domain's nodes (the GPUs of one node it takes), PXN and the GPUs it relays for, the rails'
 * GPUs, and the NICs' rate and class. Made on a zeroed key, compared as bytes: two
 * queries whose keys match get the same links; specs equal in value but not in their
 * padding bytes (the node is copied whole) only miss, never match wrongly.
 */
struct share_key {
	struct ft_node_spec node;
	struct ft_fabric_spec fabric;
	uint32_t nranks, nnodes, ppn, domain_nodes, rail_ppn;
	bool pxn;
	uint16_t pxn_relay[FT_SPEC_MAX_GPUS];
	double nic_Bps;
	char nic_what[sizeof(((struct ft_model_links *)0)->nic_what)];
};

/* One node's shared links, as ft__model_shared_links() leaves them in the links. */
struct share_entry {
	struct share_key key;
	struct ft_model_shared_link a2a, a2a_node, a2a_net, sr;
	char error[FT_MODEL_SHARED_ERROR_LEN];
	bool used;
};

/* Distinct nodes and job shapes a cache holds, the oldest given up first: a plan search
 * asks a few per group placement. */
#define SHARE_CACHE_ENTRIES 32

struct ft_model_cache {
	struct share_entry e[SHARE_CACHE_ENTRIES];
	uint32_t next; /* the entry the next miss takes */
	uint64_t hits, misses;
};

struct ft_model_cache *
ft_model_cache_new(void)
{
	return ft_calloc(1, sizeof(struct ft_model_cache));
}

void
ft_model_cache_free(struct ft_model_cache *c)
{
	ft_free(c);
}

void
ft_model_cache_stats(const struct ft_model_cache *c, uint64_t *hits, uint64_t *misses)
{
	if (hits)
		*hits = c ? c->hits : 0;
	if (misses)
		*misses = c ? c->misses : 0;
}

static void
key_of(const struct ft_cluster_spec *spec, const struct ft_model_links *l, struct share_key *k)
{
	memset(k, 0, sizeof(*k));
	memcpy(&k->node, &spec->node, sizeof(k->node));
	memcpy(&k->fabric, &spec->fabric, sizeof(k->fabric));
	k->fabric.kind = FT_FABRIC_NONE;
	k->nranks = l->nranks;
	k->nnodes = l->nnodes;
	k->ppn = l->ppn;
	k->domain_nodes = l->domain_nodes;
	k->rail_ppn = l->rail_ppn;
	k->pxn = l->pxn;
	memcpy(k->pxn_relay, l->pxn_relay, sizeof(k->pxn_relay));
	k->nic_Bps = l->nic_Bps;
	memcpy(k->nic_what, l->nic_what, sizeof(k->nic_what));
}

/* @c's entry for @k, NULL where it has none. */
static const struct share_entry *
cache_find(const struct ft_model_cache *c, const struct share_key *k)
{
	for (uint32_t i = 0; i < SHARE_CACHE_ENTRIES; i++) {
		const struct share_entry *e = &c->e[i];

		/* (the job's shape first: it tells most entries apart cheaply) */
		if (e->used && e->key.nranks == k->nranks && e->key.ppn == k->ppn &&
		    e->key.nnodes == k->nnodes && memcmp(&e->key, k, sizeof(*k)) == 0)
			return e;
	}
	return NULL;
}

static void
entry_get(const struct share_entry *e, struct ft_model_links *l)
{
	l->a2a_shared = e->a2a;
	l->a2a_node_shared = e->a2a_node;
	l->a2a_net_shared = e->a2a_net;
	l->sr_shared = e->sr;
	memcpy(l->shared_error, e->error, sizeof(l->shared_error));
}

static void
entry_put(struct ft_model_cache *c, const struct share_key *k, const struct ft_model_links *l)
{
	struct share_entry *e = &c->e[c->next];

	c->next = (c->next + 1) % SHARE_CACHE_ENTRIES;
	e->key = *k;
	e->a2a = l->a2a_shared;
	e->a2a_node = l->a2a_node_shared;
	e->a2a_net = l->a2a_net_shared;
	e->sr = l->sr_shared;
	memcpy(e->error, l->shared_error, sizeof(e->error));
	e->used = true;
}

/* The shared links of @spec's node under @l's job, laid out and routed afresh. */
static int
shared_links_build(const struct ft_cluster_spec *spec, struct ft_model_links *l, uint32_t ppn,
                   struct ft_error *err)
{
	struct ft_cluster_spec *one;
	struct ft_topo *t = NULL;
	struct ft_error terr = { 0 };
	int rc;

	one = ft_malloc(sizeof(*one));
	if (!one)
		return ft_error_set(err, FT_ENOMEM, "model: the node's links: out of memory");
	/* one node of @spec's kind, alone: its interior is the graph's, the fabric none */
	*one = *spec;
	one->nnodes = 1;
	one->ngroups = 0;
	one->fabric.kind = FT_FABRIC_NONE;
	rc = ft_topo_build(one, &t, &terr);
	ft_free(one);
	if (rc == 0)
		rc = share_of(t, &spec->node, l, SHARE_A2A, ppn, &l->a2a_shared);
	if (rc == 0)
		rc = share_of(t, &spec->node, l, SHARE_A2A_NODE, ppn, &l->a2a_node_shared);
	if (rc == 0)
		rc = share_of(t, &spec->node, l, SHARE_A2A_NET, ppn, &l->a2a_net_shared);
	if (rc == 0)
		rc = share_of(t, &spec->node, l, SHARE_SENDRECV, ppn, &l->sr_shared);
	if (rc == FT_ENOMEM) {
		ft_topo_free(t);
		return ft_error_set(err, rc, "model: the node's links: out of memory");
	}
	/* A node the topology cannot lay out (a spec the loader takes whose node the graph
	 * refuses: more than 16 NUMA domains; one built by hand that leaves a rate the
	 * loader would fill, nodes.numa.interconnect, nodes.pcie.nic_bandwidth) or route
	 * has no graph to share links on: the model's own terms price it alone, as they did
	 * before, and say why (shared_error); the flow engine refuses it with the
	 * topology's error. */
	if (rc < 0) {
		memset(&l->a2a_shared, 0, sizeof(l->a2a_shared));
		l->a2a_node_shared = l->a2a_net_shared = l->sr_shared = l->a2a_shared;
		if (!t)
			snprintf(l->shared_error, sizeof(l->shared_error), "%s",
			         ft_error_msg(&terr, rc));
		else
			snprintf(l->shared_error, sizeof(l->shared_error),
			         "the node's graph routes no path between its GPUs and NICs (%s)",
			         ft_strerror(rc));
	}
	ft_topo_free(t);
	return 0;
}

int
ft__model_shared_links(const struct ft_cluster_spec *spec, struct ft_model_links *l,
                       struct ft_model_cache *cache, struct ft_error *err)
{
	/* the GPUs of one node the job takes: an NVLink domain's ppn is its trays' */
	uint32_t ppn = l->ppn / FT_MAX(l->domain_nodes, 1u);
	const struct share_entry *e;
	struct share_key k;
	int rc;

	l->shared_error[0] = '\0';
	if (ppn == 0 || ppn > spec->node.ngpus || ppn > FT_SPEC_MAX_GPUS)
		return 0;
	if (!cache)
		return shared_links_build(spec, l, ppn, err);
	key_of(spec, l, &k);
	e = cache_find(cache, &k);
	if (e) {
		cache->hits++;
		entry_get(e, l);
		return 0;
	}
	rc = shared_links_build(spec, l, ppn, err);
	if (rc == 0) {
		cache->misses++;
		entry_put(cache, &k, l);
	}
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * sim/engine_flow.c - the flow-level engine: collective schedules run as
 * dependent flows over the topology, with max-min fair sharing.
 *
 * Each op becomes: a start barrier (waits for the op it follows, then its
 * compute delay), then per phase its flows (every connection split into
 * qps_per_conn flows, as NCCL_IB_QPS_PER_CONNECTION splits traffic, times
 * the NICs a GPU drives between nodes, nics.per_gpu, one lane each) and an
 * end-of-phase barrier. The phase barrier adds the schedule's per-step costs:
 * steps x step overhead + (steps - 1) x the longest path latency of the
 * phase, so a pipelined phase costs its slowest flow plus one path latency
 * per step, as coll.h defines it (a ring or NVLS tree across nodes pays the
 * longest path only on the steps that cross them: ft__sim_far_steps).
 * Flows are routed when they start: ECMP
 * hashes (src, dst, qp), D-mod-K follows the destination, and adaptive
 * routing takes the least-loaded equal-cost link at every hop (load = active
 * flows / capacity), optionally again at every flowlet boundary. Under
 * D-mod-K a route memo keeps each GPU's way up to its leaf and each (leaf,
 * destination) rest, so an all-to-all routes L x N pieces, not N^2 paths;
 * under ECMP it keeps the ways up and the ways in, and walks only the
 * fabric's switches (ecmp_walk()).
 */
#include "sim_int.h"

#include <fabtune/model.h>
#include <fabtune/rng.h>
#include <fabtune/sim.h>
#include <fabtune/units.h>

struct flow_op {
	uint32_t start; /* barrier task */
	uint32_t end;   /* barrier task */
	uint32_t job;
	double base_lat_s; /* launch latency inside the start barrier */
};

/*
 * Route memo, D-mod-K and ECMP. Under D-mod-K every hop is a function of (vertex, destination):
 * no hash, no load. A path from a GPU (or NIC) to another node is then its way up to its
 * leaf through its rail NIC, the same for every destination, followed by the way from that
 * leaf, which depends only on (leaf, destination). Both pieces are kept, so a flat
 * all-to-all over N GPUs and L leaves routes about L x N pieces instead of N^2 paths.
 * Off when a link is down (routing then checks the whole way first).
 *
 * Under ECMP a path's switch hops depend on the flow's hash, so no rest is shared; but its
 * ends do not: the way up (source to its leaf) and the way in (from the NIC the fabric
 * delivers to, to the destination) are the same for every flow of the pair, as long as
 * no vertex on them offers a choice, which learning them checks (ecmp_learn()). A flow
 * then costs its way up, one equal-cost query and one hash per switch, and its way in:
 * the in-node routing, exit and entry NICs, which are most of a fresh path's cost, are
 * paid once per GPU.
 */
struct memo_slot {
	uint64_t key; /* leaf << 32 | destination; MEMO_EMPTY when free */
	uint32_t first, n; /* into route_memo.links */
};

#define MEMO_EMPTY UINT64_MAX
#define MEMO_PREFETCH 8 /* spawned flows ahead whose memo slot is fetched early */
#define MEMO_MAX_SLOTS (UINT32_C(1) << 21) /* half full at most: 1M pieces, about 60 MB */

struct route_memo {
	bool on;
	uint32_t *up_first; /* per vertex: its way up in links, n in up_n (0: not known) */
	uint8_t *up_n;
	uint32_t *up_leaf; /* per vertex: the leaf its way up ends at */
	uint32_t *dense; /* per vertex: index among GPUs and NICs (keys of neighbours are close),
	                  * UINT32_MAX for other vertices */
	uint32_t *vnode; /* per vertex: its node */
	struct memo_slot *slots; /* open addressing, power-of-two size */
	size_t nslots, used;
	struct ft_vec links; /* uint32_t */
	uint64_t hits, misses;
	/* ECMP: per vertex, its switch salt, and (as a destination) its way in: in_n links
	 * from m->links[in_first] starting at vertex in_entry (UINT32_MAX: not known) */
	bool ecmp;
	uint64_t *salt;
	uint32_t *in_first, *in_entry;
	uint8_t *in_n;
};

struct flow_engine {
	struct ft_engine base;
	const struct ft_topo *topo;
	struct ft_sim_cfg cfg;
	struct fs_sim core;
	struct ft_vec ops; /* struct flow_op */
	/* counters storage */
	struct ft_sim_op_result *op_results;
	uint32_t *link_maxflows;
	uint64_t cur_hash; /* tie-break of the flow being routed adaptively */
	/* All-to-all phases whose rounds are spawned when they start. */
	struct ft_vec a2a;        /* struct a2a_phase */
	struct ft_vec a2a_rounds; /* struct a2a_round, indexed by the spawner's argument */
	uint64_t nplanned;        /* flows the spawners will add (progress total) */
	/* FCT figures of a finished run of retired flows only, once their arrays are used up. */
	struct ft_sim_counters fct;
	bool fct_consumed;
	struct route_memo memo;
	enum ft_pkt_chunking chunking; /* the scenario's packet.chunking (a2a_posting()) */
};

/* An implicit all-to-all phase, kept until its rounds have run. */
struct a2a_phase {
	uint32_t *rank_gpu; /* a copy of the op's placement */
	uint32_t m, stride, ngroups, tag;
	uint32_t channels;  /* connections a send is striped over (NCCL's p2p channels) */
	double wire;        /* wire bytes per pair */
	double msg_net_s;   /* per-message cost of a round that leaves a node */
	double msg_local_s; /* per-message cost of a round inside the nodes */
};

struct a2a_round {
	uint32_t phase, k;
	uint32_t end; /* the round's end barrier */
};

static uint32_t
choose_least_loaded(void *ud, uint32_t at, const uint32_t *links, uint32_t n)
{
	const struct flow_engine *fe = ud;
	const struct fs_sim *s = &fe->core;
	uint32_t i, best = 0, nbest = 0;
	double best_load = INFINITY;

	FT_UNUSED(at);
	/* Least loaded by active flows per capacity; ties spread by the flow's hash. */
	for (i = 0; i < n; i++) {
		double load = (s->lk[links[i]].nactive + 1.0) / s->cap_Bps[links[i]];

		if (load < best_load * (1 - 1e-12)) {
			best_load = load;
			best = i;
			nbest = 1;
		} else if (load <= best_load * (1 + 1e-12)) {
			nbest++;
		}
	}
	if (nbest > 1) {
		uint32_t pick = (uint32_t)(ft_mix64(fe->cur_hash ^ at) % nbest), k = 0;

		for (i = 0; i < n; i++) {
			double load = (s->lk[links[i]].nactive + 1.0) / s->cap_Bps[links[i]];

			if (load <= best_load * (1 + 1e-12) && k++ == pick)
				return i;
		}
	}
	return best;
}

/*
 * The host link between a NIC of node @node and switch @sw (@up: NIC to switch, else
 * switch to NIC), preferring NIC @pref; UINT32_MAX when none of the node's NICs is
 * cabled to @sw. *@nic is that NIC's vertex.
 */
static uint32_t
host_link_to(const struct ft_topo *topo, uint32_t node, uint32_t pref, uint32_t sw, bool up,
             uint32_t *nic)
{
	uint32_t nnics = ft__sim_node_nnics(topo, node), k, r, first, count, i;

	for (k = 0; k <= nnics; k++) {
		r = k == 0 ? pref : k - 1;
		if (k > 0 && r == pref)
			continue;
		*nic = ft_topo_nic(topo, node, r);
		if (*nic == UINT32_MAX)
			continue;
		ft_topo_out_links(topo, up ? *nic : sw, &first, &count);
		for (i = first; i < first + count; i++) {
			const struct ft_link *l = ft_topo_link(topo, i);

			if (l->kind == FT_L_HOST && (up ? l->dst == sw : l->dst == *nic))
				return i;
		}
	}
	return UINT32_MAX;
}

/*
 * A path between a GPU and the switch that reduces in the network (CollNet / SHARP: the
 * first switch of the GPU's NIC, ft__sim_innet_vertex): inside the node to the NIC, then
 * its host link, or the reverse. Switches are no destination of ft_route_path.
 */
static int
route_innet(const struct ft_topo *topo, const struct ft_route_policy *pol, uint32_t src,
            uint32_t dst, struct ft_path *path)
{
	bool up = ft_topo_vertex(topo, dst)->kind == FT_V_SWITCH;
	const struct ft_vertex *g = ft_topo_vertex(topo, up ? src : dst);
	uint32_t sw = up ? dst : src, nic = UINT32_MAX, hl, pref = 0;
	int rc;

	if (g->kind == FT_V_GPU && ft__sim_gpu_nic_index(topo, up ? src : dst) != UINT32_MAX)
		pref = ft__sim_gpu_nic_index(topo, up ? src : dst);
	hl = host_link_to(topo, g->node, pref, sw, up, &nic);
	if (hl == UINT32_MAX || !(ft_topo_link_scale(topo, hl) > 0))
		return FT_ENOENT;
	if (up) {
		rc = ft_route_path(topo, src, nic, pol, path);
		if (rc < 0)
			return rc;
		if (path->nlinks >= FT_PATH_MAX)
			return FT_ERANGE;
		path->links[path->nlinks++] = hl;
		path->lat_s += ft_topo_link(topo, hl)->lat_s;
		return 0;
	}
	rc = ft_route_path(topo, nic, dst, pol, path);
	if (rc < 0)
		return rc;
	if (path->nlinks >= FT_PATH_MAX)
		return FT_ERANGE;
	memmove(path->links + 1, path->links, path->nlinks * sizeof(uint32_t));
	path->links[0] = hl;
	path->nlinks++;
	path->lat_s += ft_topo_link(topo, hl)->lat_s;
	return 0;
}

int
ft__sim_route(const struct ft_topo *topo, const struct ft_sim_cfg *cfg, uint32_t src, uint32_t dst,
              uint32_t qp, ft_route_choose_fn *choose, void *ud, struct ft_path *path,
              struct ft_error *err)
{
	struct ft_route_policy pol = { 0 };
	int rc;

	pol.routing = cfg->routing;
	pol.flow_hash = ft_route_flow_hash(src, dst, qp);
	pol.lane = qp / 1024; /* the QP index (q * 1024 + flowlet): one NIC of the GPU's */
	pol.salt_seed = cfg->seed;
	if (cfg->routing == FT_ROUTING_ADAPTIVE) {
		pol.choose = choose;
		pol.ud = ud;
	}
	if (ft_topo_vertex(topo, src)->kind == FT_V_SWITCH ||
	    ft_topo_vertex(topo, dst)->kind == FT_V_SWITCH)
		rc = route_innet(topo, &pol, src, dst, path);
	else if ((rc = ft__sim_route_nvlink_domain(topo, src, dst, path)) > 0)
		rc = ft_route_path(topo, src, dst, &pol, path);
	if (rc < 0) {
		const struct ft_vertex *a = ft_topo_vertex(topo, src);
		const struct ft_vertex *b = ft_topo_vertex(topo, dst);

		return ft_error_set(err, rc,
		                    "sim: no route from node %u %s %u to node %u %s %u (%s)",
		                    a->node, ft_vertex_kind_name(a->kind), a->local, b->node,
		                    ft_vertex_kind_name(b->kind), b->local, ft_strerror(rc));
	}
	return 0;
}

static int
memo_init(struct route_memo *m, const struct ft_topo *topo, const struct ft_sim_cfg *cfg)
{
	uint32_t nv = ft_topo_nvertices(topo), nl = ft_topo_nlinks(topo), l;

	memset(m, 0, sizeof(*m));
	ft_vec_init(&m->links, sizeof(uint32_t));
	/* the memo knows fabric routes only: not where NVLink joins nodes */
	if ((cfg->routing != FT_ROUTING_DMODK && cfg->routing != FT_ROUTING_ECMP) ||
	    ft__sim_nvlink_domain_spans_nodes(topo))
		return 0;
	/* nor ways up that depend on the QP (a GPU driving several NICs) */
	for (uint32_t node = 0; node < ft_topo_spec(topo)->nnodes; node++)
		if (ft__sim_node(topo, node)->nics_per_gpu > 1)
			return 0;
	for (l = 0; l < nl; l++)
		if (!(ft_topo_link_scale(topo, l) > 0))
			return 0;
	m->up_first = ft_calloc(nv ? nv : 1, sizeof(uint32_t));
	m->up_n = ft_calloc(nv ? nv : 1, sizeof(uint8_t));
	m->up_leaf = ft_calloc(nv ? nv : 1, sizeof(uint32_t));
	m->dense = ft_calloc(nv ? nv : 1, sizeof(uint32_t));
	m->vnode = ft_calloc(nv ? nv : 1, sizeof(uint32_t));
	m->nslots = 1024;
	m->slots = ft_calloc(m->nslots, sizeof(*m->slots));
	if (!m->up_first || !m->up_n || !m->up_leaf || !m->dense || !m->vnode || !m->slots)
		return FT_ENOMEM;
	for (uint32_t v = 0, k = 0; v < nv; v++) {
		uint8_t kind = ft_topo_vertex(topo, v)->kind;

		m->dense[v] = kind == FT_V_GPU || kind == FT_V_NIC ? k++ : UINT32_MAX;
		m->vnode[v] = ft_topo_vertex(topo, v)->node;
	}
	for (size_t i = 0; i < m->nslots; i++)
		m->slots[i].key = MEMO_EMPTY;
	m->on = true;
	m->ecmp = cfg->routing == FT_ROUTING_ECMP;
	if (!m->ecmp)
		return 0;
	m->salt = ft_calloc(nv ? nv : 1, sizeof(uint64_t));
	m->in_first = ft_calloc(nv ? nv : 1, sizeof(uint32_t));
	m->in_entry = ft_calloc(nv ? nv : 1, sizeof(uint32_t));
	m->in_n = ft_calloc(nv ? nv : 1, sizeof(uint8_t));
	if (!m->salt || !m->in_first || !m->in_entry || !m->in_n)
		return FT_ENOMEM;
	for (uint32_t v = 0; v < nv; v++) {
		m->salt[v] = ft__route_switch_salt(cfg->seed, v);
		m->in_entry[v] = UINT32_MAX;
	}
	return 0;
}

static void
memo_release(struct route_memo *m)
{
	void *const arrays[] = { m->up_first, m->up_n, m->up_leaf,  m->dense,    m->vnode,
		                 m->slots,    m->salt, m->in_first, m->in_entry, m->in_n };

	ft__free_all(arrays, FT_ARRAY_SIZE(arrays));
	ft_vec_release(&m->links);
	memset(m, 0, sizeof(*m));
}

/*
 * Open addressing, linear probing: (leaf, destination / MEMO_GROUP) hashes to a group of
 * MEMO_GROUP slots and the destination's low bits pick the first slot tried in it, so
 * consecutive destinations from one leaf share cache lines: the order an all-to-all's
 * rounds ask for them in.
 */
#define MEMO_GROUP 16

static size_t
memo_home(const struct route_memo *m, uint64_t key)
{
	uint64_t h = key / MEMO_GROUP;

	/* ft_mix64's rounds, inlined here (the slot's place, not a result, depends on it). */
	h ^= h >> 30;
	h *= UINT64_C(0xbf58476d1ce4e5b9);
	h ^= h >> 27;
	h *= UINT64_C(0x94d049bb133111eb);
	h ^= h >> 31;
	return ((size_t)h * MEMO_GROUP + key % MEMO_GROUP) & (m->nslots - 1);
}

static struct memo_slot *
memo_find(const struct route_memo *m, uint64_t key)
{
	size_t mask = m->nslots - 1, i = memo_home(m, key);

	while (m->slots[i].key != key && m->slots[i].key != MEMO_EMPTY)
		i = (i + 1) & mask;
	return &m->slots[i];
}

/* Room for one more slot (the table doubles when half full): 1, 0 when the memo is full
 * (it stops growing), or FT_ENOMEM. */
static int
memo_room(struct route_memo *m)
{
	size_t ns = m->nslots * 2;
	struct memo_slot *old = m->slots, *nw;

	if (2 * (m->used + 1) <= m->nslots)
		return 1;
	if (ns > MEMO_MAX_SLOTS)
		return 0;
	nw = ft_calloc(ns, sizeof(*nw));
	if (!nw)
		return FT_ENOMEM;
	ft__sim_advise_huge(nw, ns * sizeof(*nw));
	for (size_t i = 0; i < ns; i++)
		nw[i].key = MEMO_EMPTY;
	m->slots = nw;
	m->nslots = ns;
	for (size_t i = 0; i < ns / 2; i++)
		if (old[i].key != MEMO_EMPTY)
			*memo_find(m, old[i].key) = old[i];
	ft_free(old);
	return 1;
}

/* Keep the way from @leaf to dense destination @dst (@n links); a full memo stops growing. */
static int
memo_put(struct route_memo *m, uint32_t leaf, uint32_t dst, const uint32_t *links, uint32_t n)
{
	uint64_t key = (uint64_t)leaf << 32 | dst;
	struct memo_slot *sl;
	int rc = memo_room(m);

	if (rc <= 0)
		return rc;
	if (ft_vec_reserve(&m->links, n) < 0)
		return FT_ENOMEM;
	sl = memo_find(m, key);
	if (sl->key != MEMO_EMPTY)
		return 0;
	sl->key = key;
	sl->first = (uint32_t)m->links.len;
	sl->n = n;
	memcpy(&FT_VEC_AT(&m->links, uint32_t, m->links.len), links, n * sizeof(uint32_t));
	m->links.len += n;
	m->used++;
	return 0;
}

/*
 * The memo's way from @src to @dst: its way up (@up links from m->up_first[src]) and the
 * slot of the rest, or NULL when it has none. *@can: the pair is one the memo covers.
 */
static const struct memo_slot *
memo_get(struct flow_engine *fe, uint32_t src, uint32_t dst, uint32_t *up, bool *can)
{
	struct route_memo *m = &fe->memo;
	const struct memo_slot *sl;

	*can = false;
	/* From a GPU or NIC to a GPU or NIC of another node. */
	if (!m->on || m->dense[src] == UINT32_MAX || m->dense[dst] == UINT32_MAX ||
	    m->vnode[src] == m->vnode[dst])
		return NULL;
	*can = true;
	if (m->ecmp)
		return NULL; /* ecmp_walk() */
	*up = m->up_n[src];
	if (*up == 0)
		return NULL;
	sl = memo_find(m, (uint64_t)m->up_leaf[src] << 32 | m->dense[dst]);
	if (sl->key == MEMO_EMPTY || *up + sl->n > FT_PATH_MAX)
		return NULL;
	m->hits++;
	return sl;
}

/* Write the memo's path @up + @sl of @src into @links. */
static uint32_t
memo_copy(const struct route_memo *m, uint32_t src, uint32_t up, const struct memo_slot *sl,
          uint32_t *links)
{
	const uint32_t *a = &FT_VEC_AT(&m->links, uint32_t, m->up_first[src]);
	const uint32_t *b = &FT_VEC_AT(&m->links, uint32_t, sl->first);
	uint32_t i;

	/* A few links: a loop beats a call to memcpy. */
	for (i = 0; i < up; i++)
		links[i] = a[i];
	for (i = 0; i < sl->n; i++)
		links[up + i] = b[i];
	return up + sl->n;
}

/* The slot a lookup of @src -> @dst will look at first (NULL: none), for the caller to
 * prefetch (FS_PREFETCH). */
static const struct memo_slot *
memo_first_slot(const struct flow_engine *fe, uint32_t src, uint32_t dst)
{
	const struct route_memo *m = &fe->memo;
	uint64_t key;

	if (!m->on || m->ecmp || !m->up_n[src] || m->dense[dst] == UINT32_MAX)
		return NULL;
	key = (uint64_t)m->up_leaf[src] << 32 | m->dense[dst];
	return m->slots + memo_home(m, key);
}

/* Append @n links to the memo's store: where they start, or FT_ENOMEM. */
static int64_t
memo_keep(struct route_memo *m, const uint32_t *links, uint32_t n)
{
	size_t first = m->links.len;

	if (ft_vec_reserve(&m->links, n) < 0)
		return FT_ENOMEM;
	memcpy(&FT_VEC_AT(&m->links, uint32_t, first), links, n * sizeof(uint32_t));
	m->links.len += n;
	return (int64_t)first;
}

/* The vertex link @l leads to. */
static uint32_t
link_head(const struct flow_engine *fe, uint32_t l)
{
	return ft_topo_link(fe->topo, l)->dst;
}

static bool
is_switch(const struct flow_engine *fe, uint32_t v)
{
	return ft_topo_vertex(fe->topo, v)->kind == FT_V_SWITCH;
}

/*
 * Keep @src's way up, the @up first links of its fresh path (the last one enters a fabric
 * switch). 1: kept, or the same as kept; 0: not the same (the memo stops).
 */
static int
up_learn(struct flow_engine *fe, uint32_t src, const uint32_t *links, uint32_t up)
{
	struct route_memo *m = &fe->memo;
	int64_t first;

	if (m->up_n[src] == 0) {
		first = memo_keep(m, links, up);
		if (first < 0)
			return (int)first;
		m->up_first[src] = (uint32_t)first;
		m->up_n[src] = (uint8_t)up;
		m->up_leaf[src] = link_head(fe, links[up - 1]);
		return 1;
	}
	if (m->up_n[src] != up ||
	    memcmp(&FT_VEC_AT(&m->links, uint32_t, m->up_first[src]), links,
	           up * sizeof(uint32_t)) != 0) {
		m->on = false; /* the way up depends on the destination after all: stop */
		return 0;
	}
	return 1;
}

/* How many links of a fresh path lead up to its first fabric switch; 0: none do. */
static uint32_t
up_count(const struct flow_engine *fe, const uint32_t *links, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (is_switch(fe, link_head(fe, links[i])))
			break;
	return i == n || i + 1 > UINT8_MAX ? 0 : i + 1; /* 0: never leaves the node's side */
}

/* Split a fresh path of @src at its first fabric switch and keep both pieces. */
static int
memo_learn(struct flow_engine *fe, uint32_t src, uint32_t dst, const uint32_t *links, uint32_t n)
{
	struct route_memo *m = &fe->memo;
	uint32_t up = up_count(fe, links, n);
	int rc;

	m->misses++;
	if (up == 0)
		return 0;
	rc = up_learn(fe, src, links, up);
	if (rc <= 0)
		return rc;
	return memo_put(m, link_head(fe, links[up - 1]), m->dense[dst], links + up, n - up);
}

/*
 * Whether every hop of @links (@n) is the only equal-cost link from where it starts toward
 * @to (UINT32_MAX: toward the vertex the last link leaves from, then @dst for that one:
 * a way up, as ft_route_path() walks it to the exit NIC and then out).
 */
static bool
no_choice(const struct flow_engine *fe, const uint32_t *links, uint32_t n, uint32_t to,
          uint32_t dst)
{
	uint32_t buf[2];

	for (uint32_t h = 0; h < n; h++) {
		uint32_t at = ft_topo_link(fe->topo, links[h])->src;
		uint32_t tgt = to != UINT32_MAX ? to :
		               h + 1 < n        ? ft_topo_link(fe->topo, links[n - 1])->src :
		                                  dst;

		if (ft_route_next_hops(fe->topo, at, tgt, buf, 2) != 1)
			return false;
	}
	return true;
}

/*
 * ECMP: keep a fresh path's ends, its way up for @src and its way in (after its last
 * switch) for @dst, each once and only if no vertex on it offers a choice (the flow's hash
 * would pick among them); a way that does stops the memo.
 */
static int
ecmp_learn(struct flow_engine *fe, uint32_t src, uint32_t dst, const uint32_t *links, uint32_t n)
{
	struct route_memo *m = &fe->memo;
	uint32_t up = up_count(fe, links, n), last;
	int64_t first;
	int rc;

	m->misses++;
	if (up == 0)
		return 0;
	if (m->up_n[src] == 0 && !no_choice(fe, links, up, UINT32_MAX, dst)) {
		m->on = false;
		return 0;
	}
	rc = up_learn(fe, src, links, up);
	if (rc <= 0 || m->in_entry[dst] != UINT32_MAX)
		return rc;
	for (last = n; last-- > up;)
		if (is_switch(fe, ft_topo_link(fe->topo, links[last])->src))
			break;
	if (n - last - 1 > UINT8_MAX || !no_choice(fe, links + last + 1, n - last - 1, dst, dst)) {
		m->on = false;
		return 0;
	}
	first = memo_keep(m, links + last + 1, n - last - 1);
	if (first < 0)
		return (int)first;
	m->in_first[dst] = (uint32_t)first;
	m->in_n[dst] = (uint8_t)(n - last - 1);
	m->in_entry[dst] = link_head(fe, links[last]);
	return 0;
}

#define ECMP_CHOICES_MAX 1024 /* equal-cost links asked for at a switch (as ft_route_path) */

/*
 * Switch @at's equal-cost links toward destination @dst (ft_route_next_hops(), at most
 * ECMP_CHOICES_MAX), or 0 when there are none. A fat-tree's are consecutive link ids (a
 * vertex's out-links are contiguous), and under ECMP the memo's slots hold no rests of
 * paths: they keep such a set as (first, n) for its (switch, destination), so an
 * all-to-all asks the topology once per pair instead of once per flow and switch. The
 * links are *@first + i, or buf[i] when *@first is UINT32_MAX (a set that is not a run of
 * ids is asked for every time; so is every set once the memo is full).
 */
static uint32_t
ecmp_hops(struct flow_engine *fe, uint32_t at, uint32_t dst, uint32_t *buf, uint32_t *first)
{
	struct route_memo *m = &fe->memo;
	uint64_t key = (uint64_t)at << 32 | m->dense[dst];
	struct memo_slot *sl = memo_find(m, key);
	uint32_t n, i;
	int c;

	*first = UINT32_MAX;
	if (sl->key == key) {
		*first = sl->first;
		return sl->n;
	}
	c = ft_route_next_hops(fe->topo, at, dst, buf, ECMP_CHOICES_MAX);
	if (c <= 0)
		return 0;
	n = (uint32_t)FT_MIN(c, ECMP_CHOICES_MAX);
	for (i = 1; i < n && buf[i] == buf[0] + i; i++)
		;
	/* out of memory: the set is not kept, and asked for again next time */
	if (i < n || memo_room(m) <= 0)
		return n;
	sl = memo_find(m, key); /* the table may have grown */
	*sl = (struct memo_slot){ .key = key, .first = buf[0], .n = n };
	m->used++;
	*first = buf[0];
	return n;
}

/*
 * ECMP: the path of flow (@src, @dst, @qp) from the memo: @src's way up, then from its
 * leaf one equal-cost query per switch and the flow's pick among the links (the hash and
 * salts of ft_route_path()), then @dst's way in. Its length, or 0 when the memo lacks a
 * piece or the walk ends elsewhere than where the way in starts (then route afresh).
 */
static uint32_t
ecmp_walk(struct flow_engine *fe, uint32_t src, uint32_t dst, uint32_t qp, uint32_t *links,
          uint32_t max)
{
	struct route_memo *m = &fe->memo;
	uint32_t buf[ECMP_CHOICES_MAX], at = m->up_leaf[src], k = m->up_n[src], i, first, n;
	uint64_t h;

	if (!m->on || k == 0 || m->in_entry[dst] == UINT32_MAX || k > max)
		return 0;
	h = ft_route_flow_hash(src, dst, qp);
	for (i = 0; i < k; i++)
		links[i] = FT_VEC_AT(&m->links, uint32_t, m->up_first[src] + i);
	while (is_switch(fe, at)) {
		n = ecmp_hops(fe, at, dst, buf, &first);
		if (n == 0 || k >= max)
			return 0;
		i = n == 1 ? 0 : ft__route_ecmp_index(h, m->salt[at], n);
		links[k] = first != UINT32_MAX ? first + i : buf[i];
		at = link_head(fe, links[k++]);
	}
	if (at != m->in_entry[dst] || k + m->in_n[dst] > max)
		return 0;
	for (i = 0; i < m->in_n[dst]; i++)
		links[k + i] = FT_VEC_AT(&m->links, uint32_t, m->in_first[dst] + i);
	m->hits++;
	return k + m->in_n[dst];
}

static int
route_cb(void *ud, const struct fs_sim *s, uint32_t id, uint32_t *links, uint32_t max,
         struct ft_error *err)
{
	struct flow_engine *fe = ud;
	const struct fs_task *t = ft__fs_task(s, id);
	const struct memo_slot *sl;
	struct ft_path path;
	uint32_t up = 0;
	bool can;
	int rc;

	sl = memo_get(fe, t->src, t->dst, &up, &can);
	if (sl && up + sl->n <= max)
		return (int)memo_copy(&fe->memo, t->src, up, sl, links);
	if (can && fe->memo.ecmp && (up = ecmp_walk(fe, t->src, t->dst, t->qp, links, max)) > 0)
		return (int)up;
	fe->cur_hash = ft_route_flow_hash(t->src, t->dst, t->qp);
	rc = ft__sim_route(fe->topo, &fe->cfg, t->src, t->dst, t->qp, choose_least_loaded, fe,
	                   &path, err);
	if (rc < 0)
		return rc;
	if (path.nlinks > max)
		return ft_error_set(err, FT_ERANGE, "sim: path of %u links is too long",
		                    path.nlinks);
	memcpy(links, path.links, path.nlinks * sizeof(uint32_t));
	if (can && (fe->memo.ecmp ? ecmp_learn : memo_learn)(fe, t->src, t->dst, path.links,
	                                                     path.nlinks) < 0)
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory for routes");
	return (int)path.nlinks;
}

static fs_spawn_fn spawn_cb;

static int
flow_create(const struct ft_topo *topo, const struct ft_sim_cfg *cfg, struct ft_engine **out,
            struct ft_error *err)
{
	struct flow_engine *fe;
	uint32_t n = ft_topo_nlinks(topo), l;

	*out = NULL;
	fe = ft_calloc(1, sizeof(*fe));
	if (!fe || ft__fs_init(&fe->core, n) < 0) {
		ft_free(fe);
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory for %u links", n);
	}
	fe->base.ops = &ft_flow_engine;
	fe->topo = topo;
	fe->cfg = *cfg;
	if (fe->cfg.qps_per_conn == 0)
		fe->cfg.qps_per_conn = 1;
	fe->chunking = cfg->packet ? cfg->packet->chunking : FT_PKT_CHUNK_AUTO;
	fe->cfg.packet = NULL; /* borrowed for this call only */
	for (l = 0; l < n; l++) {
		const struct ft_link *lk = ft_topo_link(topo, l);

		fe->core.cap_Bps[l] = lk->cap_Bps * ft_topo_link_scale(topo, l);
		fe->core.lat_s[l] = lk->lat_s;
	}
	if (memo_init(&fe->memo, topo, &fe->cfg) < 0) {
		memo_release(&fe->memo);
		ft__fs_release(&fe->core);
		ft_free(fe);
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory for routes");
	}
	fe->core.route = route_cb;
	fe->core.need_counts = fe->cfg.routing == FT_ROUTING_ADAPTIVE; /* the chooser's load */
	{
		/* how rates are recomputed, for comparisons (bench/sim-alltoall-ecmp.sh):
		 * "full" every rate every time, "level" every flow above the level,
		 * "local" the components a change reaches; "grow" (the default) the
		 * flows around a change, grown until the max-min conditions hold */
		const char *how = getenv("FABTUNE_SIM_RATES");

		fe->core.full_rates = how && strcmp(how, "full") == 0;
		fe->core.level_only = how && strcmp(how, "level") == 0;
		fe->core.comp_only = how && strcmp(how, "local") == 0;
	}
	fe->core.route_ud = fe;
	fe->core.spawn = spawn_cb;
	fe->core.spawn_ud = fe;
	ft_vec_init(&fe->ops, sizeof(struct flow_op));
	ft_vec_init(&fe->a2a, sizeof(struct a2a_phase));
	ft_vec_init(&fe->a2a_rounds, sizeof(struct a2a_round));
	*out = &fe->base;
	return 0;
}

/*
 * NICs a connection between two nodes spreads over: the most either GPU drives
 * (nics.per_gpu). QP q uses lane q (ft_route_policy.lane), so each NIC of a p5-like
 * GPU carries qps_per_conn QPs, as NCCL gives every NIC of a GPU its own channels.
 */
static uint32_t
conn_lanes(const struct flow_engine *fe, uint32_t src, uint32_t dst)
{
	const struct ft_vertex *a = ft_topo_vertex(fe->topo, src), *b = ft_topo_vertex(fe->topo, dst);

	if (a->kind != FT_V_GPU || b->kind != FT_V_GPU || a->node == b->node)
		return 1;
	return FT_MAX(ft__sim_gpu_lanes(fe->topo, src), ft__sim_gpu_lanes(fe->topo, dst));
}

/* How many flowlets a QP of @per bytes is cut into: several under adaptive routing with a
 * flowlet size (at most 1024), else one. */
static uint32_t
flowlets(const struct flow_engine *fe, double per)
{
	if (fe->cfg.routing == FT_ROUTING_ADAPTIVE && fe->cfg.flowlet_bytes > 0 &&
	    per > (double)fe->cfg.flowlet_bytes)
		return (uint32_t)FT_MIN(ceil(per / (double)fe->cfg.flowlet_bytes), 1024.0);
	return 1;
}

/* A connection of @wire bytes from @src to @dst, split into QPs (and flowlets), each QP at
 * most @cap_Bps / QPs (0: no cap). */
static int
add_conn(struct flow_engine *fe, double wire, uint32_t src, uint32_t dst, uint32_t prev,
         uint32_t bar, uint32_t tag, double cap_Bps)
{
	struct fs_sim *s = &fe->core;
	uint32_t q, nq = fe->cfg.qps_per_conn * conn_lanes(fe, src, dst);
	double per = wire / nq;
	int rc;

	for (q = 0; q < nq; q++) {
		uint32_t nchunks = flowlets(fe, per), c, last = prev;

		for (c = 0; c < nchunks; c++) {
			int64_t id = ft__fs_add_flow(s, per / nchunks, src, dst, q * 1024 + c, NULL,
			                             0, tag);

			if (id < 0 || ft__fs_add_dep(s, last, (uint32_t)id) < 0)
				return FT_ENOMEM;
			if (cap_Bps > 0) {
				rc = ft__fs_set_cap(s, (uint32_t)id, cap_Bps / nq);
				if (rc < 0)
					return rc;
			}
			last = (uint32_t)id;
		}
		if (ft__fs_add_dep(s, last, bar) < 0)
			return FT_ENOMEM;
	}
	return 0;
}

/*
 * The vertex a schedule endpoint stands for: the rank's GPU, or for the
 * in-network reduction engine (FT_SCHED_INNET) the NVSwitch of the node
 * (NVLS, and NVLSTree's in-node part) or the first switch of the GPU's NIC (CollNet / SHARP).
 */
uint32_t
ft__sim_innet_vertex(const struct ft_topo *topo, uint32_t gpu_v, enum ft_algo algo)
{
	uint32_t first, count, i, nic;

	if (algo == FT_ALGO_NVLS || algo == FT_ALGO_NVLS_TREE) {
		ft_topo_out_links(topo, gpu_v, &first, &count);
		for (i = first; i < first + count; i++) {
			const struct ft_link *l = ft_topo_link(topo, i);

			if (ft_topo_vertex(topo, l->dst)->kind == FT_V_NVSWITCH)
				return l->dst;
		}
		return gpu_v;
	}
	nic = ft__sim_gpu_nic(topo, gpu_v);
	if (nic == UINT32_MAX)
		return gpu_v;
	ft_topo_out_links(topo, nic, &first, &count);
	for (i = first; i < first + count; i++) {
		const struct ft_link *l = ft_topo_link(topo, i);

		if (l->kind == FT_L_HOST)
			return l->dst;
	}
	return gpu_v;
}

/*
 * How an implicit all-to-all phase posts its sends (@ap: window, channels,
 * wire bytes and per-message costs). As NCCL's send/recv path does
 * (ft_model_p2p_chunking_on() on the cluster's p2p channels,
 * ft__sim_p2p_nchannels(): the definition the packet engine and the model
 * follow too; NVIDIA/nccl src/enqueue.cc, src/init.cc, src/graph/paths.cc):
 * a rank keeps peers_inflight sends in progress, each striped over its p2p
 * channels, in the protocol NCCL picks for a send of that size. With
 * packet.chunking: off, and for background patterns unless it is nccl (the
 * packet engine's rule, ft__pk_is_p2p()), as waves of FT_COLL_A2A_WINDOW
 * peers over the schedule's protocol, one connection per send. Returns the
 * window.
 *
 * Each send is one message per channel, and a message has a fixed cost on
 * top of its bytes: the proxy posts it, the receiver's clear-to-send comes
 * back, the completion is polled. NCCL's tuner prices that cost as the
 * hardware latency of the link class (kb NA-MODEL hwLatencies: NET 14 us for
 * Simple), the figure its p2p path shares with a ring step's network hop.
 */
static uint32_t
a2a_posting(const struct flow_engine *fe, const struct ft_sim_op *op,
            const struct ft_sched_phase *ph, double eff, struct a2a_phase *ap)
{
	const struct ft_cluster_spec *spec = ft_topo_spec(fe->topo);
	const struct ft_schedule *sc = op->sched;
	struct ft_model_p2p_chunking ch, local;
	struct ft_model_p2p_comm comm;
	double nic_Bps = spec->node.nic_Bps > 0 ? spec->node.nic_Bps : spec->fabric.link_Bps;
	bool multi;

	if (fe->chunking == FT_PKT_CHUNK_OFF ||
	    (op->job == UINT32_MAX && fe->chunking != FT_PKT_CHUNK_NCCL)) {
		ap->channels = 1;
		ap->wire = (double)ph->bytes_per_pair / eff;
		ap->msg_net_s = ft_coll_hw_latency(FT_HW_NET, sc->algo, sc->proto);
		ap->msg_local_s = sc->step_lat_s;
		return FT_COLL_A2A_WINDOW;
	}
	multi = ft__sim_spans_nodes(fe->topo, op->rank_gpu, ap->m, ap->stride);
	ft__sim_p2p_comm(fe->topo, ap->m, multi, nic_Bps, &comm);
	ft_model_p2p_chunking_conn(&comm, ph->bytes_per_pair, multi, &ch);
	/* Per connection: an NVLink send keeps LL inside a multi-node all-to-all. */
	ft_model_p2p_chunking_conn(&comm, ph->bytes_per_pair, false, &local);
	ap->channels = FT_MAX(ch.channels, 1u);
	ap->wire = (double)ph->bytes_per_pair / ft_proto_efficiency(ch.proto);
	ap->msg_net_s = ft_coll_hw_latency(FT_HW_NET, sc->algo, ch.proto);
	ap->msg_local_s = ft_coll_hw_latency(FT_HW_NVLINK, sc->algo, local.proto);
	return FT_MAX(ch.peers_inflight, 1u);
}

/*
 * An implicit all-to-all phase runs as shift rounds: in round k (1..m-1)
 * member i of every group sends to member i + k. A window of rounds is in
 * flight at once (round k waits for round k - window), NCCL's sends in
 * progress per rank (a2a_posting()).
 *
 * A round is a spawner and an end barrier: its flows are made when the
 * spawner starts and their slots are recycled when they are done, so memory
 * holds the rounds in flight, not the n(n-1) pairs of the phase.
 *
 * The round's end barrier waits the per-message cost of the link class the
 * round uses: NET when any of its pairs leaves an NVLink domain, else
 * NVLink's (a2a_posting()). While one round waits, the other rounds of the
 * window keep the links busy, so the cost only shows when the messages are
 * small: a flat all-to-all over n ranks pays it (n - 1) / window times.
 */
static int
submit_a2a(struct flow_engine *fe, const struct ft_sim_op *op, const struct ft_sched_phase *ph,
           double eff, uint32_t start, uint32_t bar, uint32_t tag)
{
	struct fs_sim *s = &fe->core;
	uint32_t m = ph->a2a_group_size, k, win, nranks = op->sched->nranks;
	struct a2a_phase ap = { 0 };
	uint32_t *ends;
	int rc = 0;

	if (m < 2 || ph->bytes_per_pair == 0)
		return 0;
	ap.m = m;
	ap.stride = ph->a2a_stride;
	ap.ngroups = (uint32_t)(ph->npairs / ((uint64_t)m * (m - 1)));
	ap.tag = tag;
	win = a2a_posting(fe, op, ph, eff, &ap);
	ap.rank_gpu = ft_calloc(nranks, sizeof(uint32_t));
	ends = ft_calloc(m, sizeof(uint32_t));
	if (!ap.rank_gpu || !ends || ft_vec_push(&fe->a2a, &ap) < 0) {
		ft_free(ap.rank_gpu);
		ft_free(ends);
		return FT_ENOMEM;
	}
	memcpy(ap.rank_gpu, op->rank_gpu, nranks * sizeof(uint32_t));
	fe->nplanned += ph->npairs * ap.channels * fe->cfg.qps_per_conn *
	                FT_MAX(ft_topo_spec(fe->topo)->node.nics_per_gpu, 1u);
	for (k = 1; k < m && rc == 0; k++) {
		uint32_t prev = k > win ? ends[k - win] : start;
		struct a2a_round rd = { (uint32_t)fe->a2a.len - 1, k, 0 };
		int64_t sp = ft__fs_add_spawner(s, (uint32_t)fe->a2a_rounds.len, tag);
		int64_t e = ft__fs_add_barrier(s, 0, 0, tag);

		if (sp < 0 || e < 0 || ft__fs_add_dep(s, prev, (uint32_t)sp) < 0 ||
		    ft__fs_add_dep(s, (uint32_t)sp, (uint32_t)e) < 0 ||
		    ft__fs_add_dep(s, (uint32_t)e, bar) < 0) {
			rc = FT_ENOMEM;
			break;
		}
		rd.end = (uint32_t)e;
		if (ft_vec_push(&fe->a2a_rounds, &rd) < 0)
			rc = FT_ENOMEM;
		ends[k] = (uint32_t)e;
	}
	ft_free(ends);
	return rc;
}

/* Spawn the connections of one send of an all-to-all round, one per channel of
 * @nch: qps_per_conn flows each (flowlets chained). */
static int
spawn_conn(struct flow_engine *fe, double wire, uint32_t nch, uint32_t src, uint32_t dst,
           uint32_t end, uint32_t tag)
{
	struct fs_sim *s = &fe->core;
	uint32_t q, nq = nch * fe->cfg.qps_per_conn * conn_lanes(fe, src, dst);
	double per = wire / nq;

	for (q = 0; q < nq; q++) {
		uint32_t nchunks = flowlets(fe, per), c, next = end;

		/* Last flowlet first: each names the next one as its successor. */
		for (c = nchunks; c-- > 0;) {
			int64_t id = ft__fs_spawn_flow(s, per / nchunks, src, dst, q * 1024 + c,
			                               c == 0, next, tag);
			const struct memo_slot *sl;
			uint32_t up = 0, *room;
			bool can;

			if (id < 0)
				return (int)id;
			next = (uint32_t)id;
			/* A memo path is known now: it starts routed (D-mod-K ignores load). */
			sl = memo_get(fe, src, dst, &up, &can);
			if (sl) {
				room = ft__fs_path_room(s, next, up + sl->n);
				if (!room)
					return FT_ENOMEM;
				memo_copy(&fe->memo, src, up, sl, room);
			}
		}
	}
	return 0;
}

/* A round's spawner starts: member i of every group sends to member i + k. */
static int
spawn_cb(void *ud, struct fs_sim *s, uint32_t id, struct ft_error *err)
{
	struct flow_engine *fe = ud;
	uint32_t arg = ft__fs_task(s, id)->qp, g, i;
	const struct a2a_round *rd;
	const struct a2a_phase *ap;
	bool net = false;

	if (arg >= fe->a2a_rounds.len)
		return ft_error_set(err, FT_EINVAL, "sim: spawner %u names no round", id);
	rd = ft_vec_at(&fe->a2a_rounds, arg);
	ap = ft_vec_at(&fe->a2a, rd->phase);
	for (g = 0; g < ap->ngroups; g++) {
		uint32_t base =
		        (uint32_t)((g / ap->stride) * ((uint64_t)ap->stride * ap->m) + g % ap->stride);

		for (i = 0; i < ap->m; i++) {
			uint32_t a = ap->rank_gpu[base + i * ap->stride];
			uint32_t b = ap->rank_gpu[base + ((i + rd->k) % ap->m) * ap->stride];
			uint32_t ahead = i + MEMO_PREFETCH;
			int rc;

			if (ahead < ap->m) {
				uint32_t pa = ap->rank_gpu[base + ahead * ap->stride];
				uint32_t pb = ap->rank_gpu[base + ((ahead + rd->k) % ap->m) *
				                                          ap->stride];
				const struct memo_slot *sl = memo_first_slot(fe, pa, pb);

				if (sl)
					FS_PREFETCH(sl);
			}
			if (a == b)
				continue;
			if (!net && !ft__sim_same_nvlink_domain(fe->topo,
			                                        ft_topo_vertex(fe->topo, a)->node,
			                                        ft_topo_vertex(fe->topo, b)->node))
				net = true;
			rc = spawn_conn(fe, ap->wire, ap->channels, a, b, rd->end, ap->tag);
			if (rc < 0)
				return ft_error_set(err, rc, "sim: out of memory spawning a round");
		}
	}
	/* The end barrier is not ready before its flows are done: its wait can still be set. */
	ft__fs_task(s, rd->end)->delay_s = net ? ap->msg_net_s : ap->msg_local_s;
	return 0;
}

static int64_t
flow_submit(struct ft_engine *e, const struct ft_sim_op *op, struct ft_error *err)
{
	struct flow_engine *fe = ft_container_of(e, struct flow_engine, base);
	struct fs_sim *s = &fe->core;
	const struct ft_schedule *sc = op->sched;
	struct flow_op rec = { 0 };
	uint32_t tag = (uint32_t)fe->ops.len, p, nv = ft_topo_nvertices(fe->topo);
	double eff = sc->proto_eff > 0 ? sc->proto_eff : 1.0;
	int64_t id;
	int rc;

	if (op->after >= (int64_t)fe->ops.len)
		return ft_error_set(err, FT_EINVAL, "sim: op waits for op %lld, not submitted",
		                    (long long)op->after);
	for (p = 0; p < sc->nranks; p++)
		if (op->rank_gpu[p] >= nv)
			return ft_error_set(err, FT_EINVAL, "sim: rank %u placed on no vertex", p);
	id = ft__fs_add_barrier(s, op->delay_s + sc->base_lat_s, 0, tag);
	if (id < 0)
		goto oom;
	rec.start = (uint32_t)id;
	rec.job = op->job;
	rec.base_lat_s = sc->base_lat_s;
	if (op->after >= 0 &&
	    ft__fs_add_dep(s, FT_VEC_AT(&fe->ops, struct flow_op, op->after).end, rec.start) < 0)
		goto oom;
	rec.end = rec.start;
	for (p = 0; p < sc->phases.len; p++) {
		const struct ft_sched_phase *ph = ft_vec_at(&sc->phases, p);
		double steps = ph->steps ? ph->steps : 1, extra = 0;
		uint32_t f, far = ft__sim_far_steps(fe->topo, sc, op->rank_gpu, (uint32_t)steps,
		                                    &extra);
		int64_t bar = ft__fs_add_barrier(s, steps * sc->step_lat_s + extra,
		                                 far ? far : steps - 1, tag);

		if (bar < 0 || ft__fs_add_dep(s, rec.end, (uint32_t)bar) < 0)
			goto oom;
		if (ph->implicit_alltoall) {
			if (submit_a2a(fe, op, ph, eff, rec.end, (uint32_t)bar, tag) < 0)
				goto oom;
		} else {
			for (f = 0; f < ph->nflows; f++) {
				struct ft_sched_flow fl;
				uint32_t a = 0, b = 0;

				ft_sched_phase_flow(sc, ph, f, &fl);
				rc = ft__sim_flow_ends(fe->topo, sc, op, &fl, &a, &b, err);
				if (rc < 0)
					return rc;
				if (a == b || fl.bytes == 0)
					continue;
				rc = add_conn(fe, (double)fl.bytes / eff, a, b, rec.end,
				              (uint32_t)bar, tag, op->conn_cap_Bps);
				if (rc == FT_ERANGE)
					return ft_error_set(err, rc,
					                    "sim: more than %d distinct channel caps",
					                    FS_MAX_CAPS);
				if (rc < 0)
					goto oom;
			}
		}
		rec.end = (uint32_t)bar;
	}
	if (ft_vec_push(&fe->ops, &rec) < 0)
		goto oom;
	return (int64_t)fe->ops.len - 1;
oom:
	return ft_error_set(err, FT_ENOMEM, "sim: out of memory submitting an op");
}

static int
flow_run(struct ft_engine *e, double until_s, struct ft_error *err)
{
	struct flow_engine *fe = ft_container_of(e, struct flow_engine, base);
	struct fs_sim *s = &fe->core;
	int rc;

	if (!s->started) {
		/* Room for every spawned flow's FCT and ideal time, taken once. */
		if (ft_vec_reserve(&s->retired_fct, fe->nplanned) < 0 ||
		    ft_vec_reserve(&s->retired_ideal, fe->nplanned) < 0)
			return ft_error_set(err, FT_ENOMEM, "sim: out of memory for %llu flows",
			                    (unsigned long long)fe->nplanned);
		ft__sim_advise_huge(s->retired_fct.data, s->retired_fct.cap * sizeof(double));
		ft__sim_advise_huge(s->retired_ideal.data, s->retired_ideal.cap * sizeof(double));
		rc = ft__fs_start(s, err);
		if (rc < 0)
			return rc;
	}
	while ((rc = ft__fs_step(s, err)) > 0) {
		if ((s->nevents & 1023) == 0)
			ft_progress_update(fe->cfg.progress, "simulating", s->ndone,
			                   ft__fs_ntasks(s) + fe->nplanned);
		if (until_s > 0 && s->now_s >= until_s)
			return 0;
	}
	if (rc < 0)
		return rc;
	ft_progress_update(fe->cfg.progress, "simulating", s->ndone, s->ncreated);
	if (s->ndone != s->ncreated)
		return ft_error_set(err, FT_EINVAL,
		                    "sim: %llu tasks never started (dependency cycle)",
		                    (unsigned long long)(s->ncreated - s->ndone));
	return 0;
}

/* Nearest-rank percentile of sorted @v. */
double
ft__sim_pct(const double *v, size_t n, double q)
{
	size_t k;

	if (n == 0)
		return NAN;
	k = (size_t)ceil(q * (double)n);
	return v[k ? k - 1 : 0];
}

/* Nearest-rank index of quantile @q among @n values. */
static size_t
pct_index(size_t n, double q)
{
	size_t k = (size_t)ceil(q * (double)n);

	return k ? k - 1 : 0;
}

/*
 * The @k-th smallest of @v[0..n) (0-based), reordering @v: Hoare quickselect with a
 * median-of-three pivot, O(n) on average (equal values split evenly). It gives exactly what
 * sorting then indexing gives, without the O(n log n) sort of millions of flows.
 */
static double
select_kth2(double *v, double *u, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
		double a = v[lo], b = v[mid], c = v[hi], pivot, tmp;

		pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		for (;;) {
			while (v[i] < pivot)
				i++;
			while (pivot < v[j])
				j--;
			if (i >= j)
				break;
			tmp = v[i];
			v[i] = v[j];
			v[j] = tmp;
			if (u) { /* the companion array moves along: pairs stay pairs */
				tmp = u[i];
				u[i] = u[j];
				u[j] = tmp;
			}
			i++;
			j--;
		}
		/* v[lo..j] <= pivot <= v[j+1..hi] */
		if (k <= j)
			hi = j;
		else
			lo = j + 1;
	}
	return v[k];
}

static double
select_kth(double *v, size_t n, size_t k)
{
	return select_kth2(v, NULL, n, k);
}

static void
min_max(const double *v, size_t n, double *lo, double *hi)
{
	*lo = *hi = v[0];
	for (size_t i = 1; i < n; i++) {
		if (v[i] < *lo)
			*lo = v[i];
		if (v[i] > *hi)
			*hi = v[i];
	}
}

int
ft__sim_fct_stats(const double *fct, const double *ideal, size_t n, struct ft_sim_counters *c)
{
	double *w, unused;
	size_t i;

	if (n == 0) {
		c->fct_min_s = c->fct_p50_s = c->fct_p99_s = c->fct_max_s = NAN;
		c->ideal_min_s = c->ideal_p50_s = c->ideal_max_s = NAN;
		c->slowdown_p50 = c->slowdown_p99 = c->slowdown_max = NAN;
		return 0;
	}
	w = ft_calloc(n, sizeof(double));
	if (!w)
		return FT_ENOMEM;
	ft__sim_advise_huge(w, n * sizeof(double));
	memcpy(w, fct, n * sizeof(double));
	min_max(w, n, &c->fct_min_s, &c->fct_max_s);
	c->fct_p50_s = select_kth(w, n, pct_index(n, 0.5));
	c->fct_p99_s = select_kth(w, n, pct_index(n, 0.99));
	memcpy(w, ideal, n * sizeof(double));
	min_max(w, n, &c->ideal_min_s, &c->ideal_max_s);
	c->ideal_p50_s = select_kth(w, n, pct_index(n, 0.5));
	for (i = 0; i < n; i++)
		w[i] = ideal[i] > 0 ? fct[i] / ideal[i] : 1;
	min_max(w, n, &unused, &c->slowdown_max);
	c->slowdown_p50 = select_kth(w, n, pct_index(n, 0.5));
	c->slowdown_p99 = select_kth(w, n, pct_index(n, 0.99));
	ft_free(w);
	return 0;
}

/*
 * ft__sim_fct_stats() without the copy, consuming @fct and @ideal: the ideal times are
 * selected with their FCTs moving along, then overwritten by the slowdowns. The same
 * values, since selection gives the k-th smallest whatever the order. For the FCTs of
 * millions of flows at the end of a run, where a copy would be as large as both.
 */
static void
fct_stats_consume(double *fct, double *ideal, size_t n, struct ft_sim_counters *c)
{
	double unused;
	size_t i;

	min_max(fct, n, &c->fct_min_s, &c->fct_max_s);
	min_max(ideal, n, &c->ideal_min_s, &c->ideal_max_s);
	c->ideal_p50_s = select_kth2(ideal, fct, n, pct_index(n, 0.5));
	for (i = 0; i < n; i++)
		ideal[i] = ideal[i] > 0 ? fct[i] / ideal[i] : 1;
	min_max(ideal, n, &unused, &c->slowdown_max);
	c->slowdown_p50 = select_kth(ideal, n, pct_index(n, 0.5));
	c->slowdown_p99 = select_kth(ideal, n, pct_index(n, 0.99));
	c->fct_p50_s = select_kth(fct, n, pct_index(n, 0.5));
	c->fct_p99_s = select_kth(fct, n, pct_index(n, 0.99));
}

static int
flow_counters(struct ft_engine *e, struct ft_sim_counters *c, struct ft_error *err)
{
	struct flow_engine *fe = ft_container_of(e, struct flow_engine, base);
	struct fs_sim *s = &fe->core;
	uint32_t n = ft__fs_ntasks(s), i;
	size_t nf = 0, nr;
	double *fct, *ideal;
	int rc;

	memset(c, 0, sizeof(*c));
	nr = s->retired_fct.len;
	ft_free(fe->op_results);
	fe->op_results = ft_calloc(fe->ops.len ? fe->ops.len : 1, sizeof(*fe->op_results));
	if (!fe->op_results)
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory for counters");
	for (i = 0; i < n; i++) {
		const struct fs_task *t = ft__fs_task(s, i);

		if (t->spawned)
			continue; /* a recycled slot: its flows were retired */
		if (t->t_done > c->makespan_s)
			c->makespan_s = t->t_done;
		if (t->kind != FS_FLOW || t->bytes <= 0 || t->state != FS_DONE)
			continue;
		nf++;
	}
	if (s->retired_makespan_s > c->makespan_s)
		c->makespan_s = s->retired_makespan_s;
	if (nf == 0 && nr > 0 && (fe->fct_consumed || s->ndone == s->ncreated)) {
		/* Only retired flows (a flat all-to-all) and the run is over: their arrays are
		 * used up once, the figures kept for later calls. */
		if (!fe->fct_consumed) {
			fct_stats_consume(s->retired_fct.data, s->retired_ideal.data, nr, &fe->fct);
			fe->fct_consumed = true;
		}
		fct = ideal = NULL;
		nf = nr;
		c->fct_min_s = fe->fct.fct_min_s;
		c->fct_p50_s = fe->fct.fct_p50_s;
		c->fct_p99_s = fe->fct.fct_p99_s;
		c->fct_max_s = fe->fct.fct_max_s;
		c->ideal_min_s = fe->fct.ideal_min_s;
		c->ideal_p50_s = fe->fct.ideal_p50_s;
		c->ideal_max_s = fe->fct.ideal_max_s;
		c->slowdown_p50 = fe->fct.slowdown_p50;
		c->slowdown_p99 = fe->fct.slowdown_p99;
		c->slowdown_max = fe->fct.slowdown_max;
		rc = 0;
	} else if (nf == 0) {
		/* Only retired flows, run not over: read their arrays as they are. */
		fct = s->retired_fct.data;
		ideal = s->retired_ideal.data;
		nf = nr;
		rc = ft__sim_fct_stats(fct, ideal, nf, c);
	} else {
		size_t k = 0;

		fct = ft_calloc(nf + nr, sizeof(double));
		ideal = ft_calloc(nf + nr, sizeof(double));
		if (!fct || !ideal) {
			ft_free(fct);
			ft_free(ideal);
			return ft_error_set(err, FT_ENOMEM, "sim: out of memory for counters");
		}
		for (i = 0; i < n; i++) {
			const struct fs_task *t = ft__fs_task(s, i);

			if (t->spawned || t->kind != FS_FLOW || t->bytes <= 0 ||
			    t->state != FS_DONE)
				continue;
			fct[k] = t->t_done - t->t_start;
			ideal[k] = t->ideal_s;
			k++;
		}
		if (nr) {
			memcpy(fct + k, s->retired_fct.data, nr * sizeof(double));
			memcpy(ideal + k, s->retired_ideal.data, nr * sizeof(double));
		}
		nf = k + nr;
		rc = ft__sim_fct_stats(fct, ideal, nf, c);
		ft_free(fct);
		ft_free(ideal);
	}
	if (rc < 0)
		return ft_error_set(err, rc, "sim: out of memory for counters");
	/* Each op's slowest flow names its bottleneck (the op index is the flow's tag). */
	for (i = 0; i < fe->ops.len; i++)
		fe->op_results[i].bottleneck_link = UINT32_MAX;
	{
		double *slowest = ft_calloc(fe->ops.len ? fe->ops.len : 1, sizeof(double));

		if (!slowest)
			return ft_error_set(err, FT_ENOMEM, "sim: out of memory for counters");
		for (i = 0; i < n; i++) {
			const struct fs_task *t = ft__fs_task(s, i);

			if (t->kind != FS_FLOW || t->spawned || t->tag >= fe->ops.len ||
			    t->bott_link == FS_NONE)
				continue;
			if (t->t_done > slowest[t->tag]) {
				slowest[t->tag] = t->t_done;
				fe->op_results[t->tag].bottleneck_link = t->bott_link;
			}
		}
		for (i = 0; i < s->tag_slowest.len && i < fe->ops.len; i++) {
			const struct fs_tag_slowest *ts = ft_vec_at(&s->tag_slowest, i);

			if (ts->t_done > slowest[i]) {
				slowest[i] = ts->t_done;
				fe->op_results[i].bottleneck_link = ts->bott_link;
			}
		}
		ft_free(slowest);
	}
	for (i = 0; i < fe->ops.len; i++) {
		const struct flow_op *o = ft_vec_at(&fe->ops, i);

		fe->op_results[i].job = o->job;
		fe->op_results[i].t_start_s = ft__fs_task(s, o->start)->t_done - o->base_lat_s;
		fe->op_results[i].t_end_s = ft__fs_task(s, o->end)->t_done;
	}
	c->nflows = nf;
	c->nevents = s->nevents;
	c->nrecompute = s->nrecompute;
	c->nrecompute_full = s->nrecompute_full;
	c->bytes = s->bytes_delivered;
	c->nops = fe->ops.len;
	c->ops = fe->op_results;
	c->nlinks = s->nlinks;
	if (ft__fs_link_export(s) < 0)
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory for counters");
	c->link_bytes = s->link_bytes;
	c->link_max_flows = s->link_maxflows;
	return 0;
}

static void
flow_destroy(struct ft_engine *e)
{
	struct flow_engine *fe;

	if (!e)
		return;
	fe = ft_container_of(e, struct flow_engine, base);
	ft__fs_release(&fe->core);
	memo_release(&fe->memo);
	ft_vec_release(&fe->ops);
	for (size_t i = 0; i < fe->a2a.len; i++)
		ft_free(((struct a2a_phase *)ft_vec_at(&fe->a2a, i))->rank_gpu);
	ft_vec_release(&fe->a2a);
	ft_vec_release(&fe->a2a_rounds);
	ft_free(fe->op_results);
	ft_free(fe);
}

const struct ft_engine_ops ft_flow_engine = {
	.name = "flow",
	.summary = "event-driven, max-min fair sharing of every link",
	.create = flow_create,
	.submit = flow_submit,
	.run = flow_run,
	.counters = flow_counters,
	.destroy = flow_destroy,
};

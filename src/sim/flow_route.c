/* SPDX-License-Identifier: MIT */
/*
 * sim/flow_route.c - routing a flow of the flow-level engine (engine_flow.c):
 * ECMP, D-mod-K, adaptive routing at every hop, and the route memo that keeps
 * the shared pieces of paths (engine_flow_int.h holds its lookups).
 */
#include "engine_flow_int.h"

#include <fabtune/model.h>
#include <fabtune/rng.h>
#include <fabtune/sim.h>
#include <fabtune/units.h>

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

int
ft__sim_memo_init(struct route_memo *m, const struct ft_topo *topo, const struct ft_sim_cfg *cfg)
{
	uint32_t nv = ft_topo_nvertices(topo), nl = ft_topo_nlinks(topo), l;

	memset(m, 0, sizeof(*m));
	ft_vec_init(&m->links, sizeof(uint32_t));
	/* the memo knows fabric routes only: not where NVLink joins nodes */
	if ((cfg->routing != FT_ROUTING_DMODK && cfg->routing != FT_ROUTING_MINHOP &&
	     cfg->routing != FT_ROUTING_ECMP) ||
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
	m->dlid = ft__route_by_dlid(topo);
	m->salt = ft_calloc(nv ? nv : 1, sizeof(uint64_t));
	m->in_first = ft_calloc(nv ? nv : 1, sizeof(uint32_t));
	m->in_entry = ft_calloc(nv ? nv : 1, sizeof(uint32_t));
	m->in_n = ft_calloc(nv ? nv : 1, sizeof(uint8_t));
	m->sw = ft_calloc(nv ? nv : 1, sizeof(uint8_t));
	m->head = ft_calloc(nl ? nl : 1, sizeof(uint32_t));
	if (!m->salt || !m->in_first || !m->in_entry || !m->in_n || !m->sw || !m->head)
		return FT_ENOMEM;
	for (uint32_t v = 0; v < nv; v++) {
		m->salt[v] = ft__route_switch_salt(cfg->seed, v);
		m->in_entry[v] = UINT32_MAX;
		m->sw[v] = ft_topo_vertex(topo, v)->kind == FT_V_SWITCH;
	}
	for (l = 0; l < nl; l++)
		m->head[l] = ft_topo_link(topo, l)->dst;
	return 0;
}

void
ft__sim_memo_release(struct route_memo *m)
{
	void *const arrays[] = { m->up_first, m->up_n,     m->up_leaf,  m->dense,
		                 m->vnode,    m->slots,    m->salt,     m->in_first,
		                 m->in_entry, m->in_n,     m->sw,       m->head };

	ft__free_all(arrays, FT_ARRAY_SIZE(arrays));
	ft_vec_release(&m->links);
	memset(m, 0, sizeof(*m));
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
			*fe_memo_find(m, old[i].key) = old[i];
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
	sl = fe_memo_find(m, key);
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
	if (m->up_n[src] != up || memcmp(&FT_VEC_AT(&m->links, uint32_t, m->up_first[src]), links,
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
	struct memo_slot *sl = fe_memo_find(m, key);
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
	sl = fe_memo_find(m, key); /* the table may have grown */
	*sl = (struct memo_slot){ .key = key, .first = buf[0], .n = n };
	m->used++;
	*first = buf[0];
	return n;
}

/* @path's links into @links of @max; its link count, or FT_ERANGE where they do not fit. */
static int
path_out(const struct ft_path *path, uint32_t *links, uint32_t max, struct ft_error *err)
{
	if (path->nlinks > max)
		return ft_error_set(err, FT_ERANGE, "sim: path of %u links is too long",
		                    path->nlinks);
	memcpy(links, path->links, path->nlinks * sizeof(uint32_t));
	return (int)path->nlinks;
}

/*
 * ECMP: the path of flow (@src, @dst, @qp) from the memo: @src's way up, then from its
 * leaf one equal-cost query per switch and the flow's pick among the links (the hash and
 * salts of ft_route_path()), then @dst's way in. On InfiniBand (m->dlid) the pick hashes
 * the port the way in starts at, @dst's NIC, as route.c choose() does (the switches of a
 * walk that ends there are all of that NIC's plane, whose entry NIC it is). Its length, or
 * 0 when the memo lacks a piece or the walk ends elsewhere than where the way in starts
 * (then route afresh).
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
	h = m->dlid ? ft__route_dlid_hash(m->in_entry[dst]) : ft_route_flow_hash(src, dst, qp);
	for (i = 0; i < k; i++)
		links[i] = FT_VEC_AT(&m->links, uint32_t, m->up_first[src] + i);
	while (m->sw[at]) {
		n = ecmp_hops(fe, at, dst, buf, &first);
		if (n == 0 || k >= max)
			return 0;
		i = n == 1 ? 0 : ft__route_ecmp_index(h, m->salt[at], n);
		links[k] = first != UINT32_MAX ? first + i : buf[i];
		at = m->head[links[k++]];
	}
	if (at != m->in_entry[dst] || k + m->in_n[dst] > max)
		return 0;
	for (i = 0; i < m->in_n[dst]; i++)
		links[k + i] = FT_VEC_AT(&m->links, uint32_t, m->in_first[dst] + i);
	m->hits++;
	return k + m->in_n[dst];
}

int
ft__sim_flow_route_pair(struct flow_engine *fe, uint32_t src, uint32_t dst, uint32_t qp,
                        uint32_t *links, uint32_t max, struct ft_error *err)
{
	const struct memo_slot *sl;
	struct ft_path path;
	uint32_t up = 0;
	bool can;
	int rc;

	sl = fe_memo_get(fe, src, dst, &up, &can);
	if (sl && up + sl->n <= max)
		return (int)fe_memo_copy(&fe->memo, src, up, sl, links);
	if (can && fe->memo.ecmp && (up = ecmp_walk(fe, src, dst, qp, links, max)) > 0)
		return (int)up;
	fe->cur_hash = ft_route_flow_hash(src, dst, qp);
	rc = ft__sim_route(fe->topo, &fe->cfg, src, dst, qp, choose_least_loaded, fe, &path, err);
	if (rc < 0)
		return rc;
	rc = path_out(&path, links, max, err);
	if (rc < 0)
		return rc;
	if (can && (fe->memo.ecmp ? ecmp_learn : memo_learn)(fe, src, dst, path.links,
	                                                     path.nlinks) < 0)
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory for routes");
	return (int)path.nlinks;
}

/*
 * The path of a PXN send's flow (ft__sim_pxn_proxy_in()): @src to the proxy @via over
 * NVLink, then the proxy's route to @dst (its NIC, the peer's rail). One flow carries the
 * send over both: NCCL's proxy forwards each chunk as it lands, so the send moves at the
 * slower of the two legs and pays both latencies.
 */
int
ft__sim_flow_pxn_links(struct flow_engine *fe, uint32_t src, uint32_t via, uint32_t dst,
                       uint32_t qp, uint32_t *links, uint32_t max, struct ft_error *err)
{
	int n1, n2;

	n1 = ft__sim_flow_route_pair(fe, src, via, qp, links, max, err);
	if (n1 < 0)
		return n1;
	/* the proxy's leg hashes as its own QP (each sender's connection through the proxy
	 * is one: NCCL's proxy connects per peer and channel), its lane (qp / 1024 modulo
	 * the GPU's NICs) kept */
	qp += (ft_topo_vertex(fe->topo, src)->local + 1) * 1024u *
	      ft__sim_gpu_lanes(fe->topo, via);
	n2 = ft__sim_flow_route_pair(fe, via, dst, qp, links + n1, max - (uint32_t)n1, err);
	if (n2 < 0)
		return n2;
	return n1 + n2;
}

/* One leg of a named NIC's route (ft__sim_nic_route()) as the flow engine routes a pair. */
static int
nic_leg(void *ud, uint32_t a, uint32_t b, uint32_t qp, struct ft_path *path, struct ft_error *err)
{
	int n = ft__sim_flow_route_pair(ud, a, b, qp, path->links, FT_PATH_MAX, err);

	path->nlinks = n > 0 ? (uint32_t)n : 0;
	path->lat_s = 0;
	return n < 0 ? n : 0;
}

/* The path of a flow that leaves its node by NIC @nic, not its GPU's own (ft__sim_flow_nic()):
 * the three engines' one rule, ft__sim_nic_route(). */
static int
nic_links(struct flow_engine *fe, uint32_t src, uint32_t nic, uint32_t dst, uint32_t qp,
          uint32_t *links, uint32_t max, struct ft_error *err)
{
	struct ft_path path = { 0 };
	int rc = ft__sim_nic_route(fe->topo, src, nic, dst, qp, nic_leg, fe, &path, err);

	return rc < 0 ? rc : path_out(&path, links, max, err);
}

int
ft__sim_flow_links(struct flow_engine *fe, uint32_t src, uint32_t dst, uint32_t nic, uint32_t qp,
                   uint32_t *links, uint32_t max, struct ft_error *err)
{
	if (nic != UINT32_MAX && ft_topo_vertex(fe->topo, FT_SIM_NIC_VERTEX(nic))->kind == FT_V_NIC)
		return nic_links(fe, src, nic, dst, qp, links, max, err);
	return ft__sim_flow_route_pair(fe, src, dst, qp, links, max, err);
}

int
ft__sim_flow_route(void *ud, const struct fs_sim *s, uint32_t id, uint32_t *links, uint32_t max,
                   struct ft_error *err)
{
	struct flow_engine *fe = ud;
	const struct fs_task *t = ft__fs_task(s, id);

	if (id < fe->pxn_via.len && FT_VEC_AT(&fe->pxn_via, uint32_t, id) != UINT32_MAX) {
		uint32_t via = FT_VEC_AT(&fe->pxn_via, uint32_t, id);

		FT_VEC_AT(&fe->pxn_via, uint32_t, id) = UINT32_MAX;
		if (ft_topo_vertex(fe->topo, FT_SIM_NIC_VERTEX(via))->kind == FT_V_NIC)
			return nic_links(fe, t->src, via, t->dst, t->qp, links, max, err);
		return ft__sim_flow_pxn_links(fe, t->src, via, t->dst, t->qp, links, max, err);
	}
	return ft__sim_flow_route_pair(fe, t->src, t->dst, t->qp, links, max, err);
}

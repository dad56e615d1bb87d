/* SPDX-License-Identifier: MIT */
/*
 * sim/engine_flow_int.h - internals of the flow-level engine, shared by its
 * three files: engine_flow.c (ops and schedules to tasks, connections and
 * QPs, all-to-all rounds, counters), flow_route.c (routing a flow: ECMP,
 * D-mod-K, adaptive, and the route memo) and flow_stats.c (percentiles and
 * FCT figures). The memo lookups are static inline here: both a flow's
 * routing and an all-to-all round's spawning are hot paths through them.
 */
#ifndef FT_ENGINE_FLOW_INT_H
#define FT_ENGINE_FLOW_INT_H

#include <fabtune/model.h>

#include "sim_int.h"

struct flow_op {
	uint32_t start; /* barrier task */
	uint32_t end;   /* barrier task */
	uint32_t next;  /* the barrier an op waiting for it waits for: end, or its nominal end */
	uint32_t job;
	double base_lat_s; /* launch latency inside the start barrier */
	double shift_s;    /* how much later than its nominal end `next` is (its largest offset) */
	bool acked;        /* `next` counts each flow's end one path latency later (end_acked) */
	bool piped;        /* a phase ran in NCCL's chunks: its longest flow names the bottleneck */
	/* what its connections' cap is (struct ft_sim_op conn_cap_what), named where the cap
	 * held its slowest flow; "" for none */
	char cap_what[16];
	double cap_Bps; /* that cap, bytes/s a connection (0: none) */
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
	 * from m->links[in_first] starting at vertex in_entry (UINT32_MAX: not known);
	 * @dlid: an InfiniBand fabric, whose switches hash the destination port (the NIC
	 * in_entry), not the flow (ft__route_by_dlid()) */
	bool ecmp, dlid;
	uint64_t *salt;
	uint32_t *in_first, *in_entry;
	uint8_t *in_n;
	/* ECMP's walk, read once per hop of every flow: per vertex, whether it is a switch;
	 * per link, the vertex it leads to (the topology's records are larger and colder) */
	uint8_t *sw;
	uint32_t *head;
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
	/* Under adaptive routing a PXN send's flow is routed when it starts, as any flow
	 * (ft__sim_flow_route()): its proxy by task id (uint32_t, UINT32_MAX for none), taken
	 * when it is routed, so that a recycled slot finds none. A flow that leaves by
	 * another NIC than its GPU's (ft__sim_flow_nic()) has that NIC here, under any
	 * routing. */
	struct ft_vec pxn_via;
};

/* An implicit all-to-all phase, kept until its rounds have run. */
struct a2a_phase {
	uint32_t *rank_gpu; /* a copy of the op's placement */
	uint32_t m, stride, ngroups, tag;
	uint32_t channels;  /* connections a send is striped over (NCCL's p2p channels) */
	double wire;        /* wire bytes per pair that leaves a node (or NVLink domain) */
	double wire_local;  /* wire bytes per pair inside one, at its connection's protocol */
	double msg_net_s;   /* per-message cost of a round that leaves a node */
	double msg_local_s; /* per-message cost of a round inside the nodes */
	/* NCCL's window on a send over the network, where it binds anywhere
	 * (ft__sim_a2a_window()): its cutting with the slots it shares, caps per send */
	bool windowed;
	struct ft_model_p2p_chunking ch_net;
	/* a send's slots by view and p2p round (ft__sim_a2a_send_ch()), allocated by
	 * ft__sim_a2a_window() and freed with the phase; row NULL: every send keeps ch_net's */
	struct ft__sim_a2a_slots slots;
	/* NCCL's posting (not packet.chunking: off, nor a background's): a send to a peer on
	 * another rail goes through that rail's GPU (ft__sim_pxn_proxy_in()) */
	bool pxn;
	/* the job's GPUs a node (ft__sim_comm_gpus(), by node id, ncomm of them): a PXN proxy
	 * is one of them (ft__sim_pxn_proxy_in()) */
	uint32_t *comm_gpus, ncomm;
};

struct a2a_round {
	uint32_t phase, k;
	uint32_t end; /* the round's end barrier */
};

/*
 * Open addressing, linear probing: (leaf, destination / MEMO_GROUP) hashes to a group of
 * MEMO_GROUP slots and the destination's low bits pick the first slot tried in it, so
 * consecutive destinations from one leaf share cache lines: the order an all-to-all's
 * rounds ask for them in.
 */
#define MEMO_GROUP 16

static inline size_t
fe_memo_home(const struct route_memo *m, uint64_t key)
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

static inline struct memo_slot *
fe_memo_find(const struct route_memo *m, uint64_t key)
{
	size_t mask = m->nslots - 1, i = fe_memo_home(m, key);

	while (m->slots[i].key != key && m->slots[i].key != MEMO_EMPTY)
		i = (i + 1) & mask;
	return &m->slots[i];
}

/*
 * The memo's way from @src to @dst: its way up (@up links from m->up_first[src]) and the
 * slot of the rest, or NULL when it has none. *@can: the pair is one the memo covers.
 */
static inline const struct memo_slot *
fe_memo_get(struct flow_engine *fe, uint32_t src, uint32_t dst, uint32_t *up, bool *can)
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
	sl = fe_memo_find(m, (uint64_t)m->up_leaf[src] << 32 | m->dense[dst]);
	if (sl->key == MEMO_EMPTY || *up + sl->n > FT_PATH_MAX)
		return NULL;
	m->hits++;
	return sl;
}

/* Write the memo's path @up + @sl of @src into @links. */
static inline uint32_t
fe_memo_copy(const struct route_memo *m, uint32_t src, uint32_t up, const struct memo_slot *sl,
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
static inline const struct memo_slot *
fe_memo_first_slot(const struct flow_engine *fe, uint32_t src, uint32_t dst)
{
	const struct route_memo *m = &fe->memo;
	uint64_t key;

	/* ECMP's first equal-cost query, at the leaf, has D-mod-K's key (ecmp_walk()) */
	if (!m->on || !m->up_n[src] || m->dense[dst] == UINT32_MAX)
		return NULL;
	key = (uint64_t)m->up_leaf[src] << 32 | m->dense[dst];
	return m->slots + fe_memo_home(m, key);
}

/* flow_route.c */
int ft__sim_memo_init(struct route_memo *m, const struct ft_topo *topo,
                      const struct ft_sim_cfg *cfg) FT_MUST_CHECK;
void ft__sim_memo_release(struct route_memo *m);
/* The path from vertex @src to @dst for QP @qp, as the router takes it (memo, ECMP walk or
 * a fresh route), into @links (at most @max): its length, or a negative FT_E*. */
int ft__sim_flow_route_pair(struct flow_engine *fe, uint32_t src, uint32_t dst, uint32_t qp,
                            uint32_t *links, uint32_t max, struct ft_error *err);
/* The path of a flow of QP @qp from @src to @dst that leaves its node by NIC vertex @nic
 * (ft__sim_flow_nic(); UINT32_MAX: its GPU's own), as ft__sim_flow_route() takes it when
 * the flow starts, into @links (at most @max): its length, or a negative FT_E*. */
int ft__sim_flow_links(struct flow_engine *fe, uint32_t src, uint32_t dst, uint32_t nic,
                       uint32_t qp, uint32_t *links, uint32_t max, struct ft_error *err);
int ft__sim_flow_route(void *ud, const struct fs_sim *s, uint32_t id, uint32_t *links, uint32_t max,
                       struct ft_error *err);
/* The path of a PXN send's flow of QP @qp: @src to its proxy @via, then the proxy's route to
 * @dst, into @links (at most @max): its length, or a negative FT_E*. */
int ft__sim_flow_pxn_links(struct flow_engine *fe, uint32_t src, uint32_t via, uint32_t dst,
                           uint32_t qp, uint32_t *links, uint32_t max, struct ft_error *err);

/* flow_stats.c */
void ft__sim_fct_stats_consume(double *fct, double *ideal, size_t n, struct ft_sim_counters *c);

#endif

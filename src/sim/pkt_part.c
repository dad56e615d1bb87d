/* SPDX-License-Identifier: MIT */
/*
 * sim/pkt_part.c - the packet engine split across MPI ranks.
 *
 * Under mpirun with more than one process (and MPI not yet started by a
 * sweep, which shares its points out instead), one packet run is divided by
 * vertex: each rank owns the vertices of some pods (a fat-tree's leaf and
 * spine switches by pod, each node with a leaf its NICs hang from, shared out
 * evenly when its rails' leaves have several owners, the core switches in
 * turn) and handles only the events that happen at its
 * vertices. An event that happens at another rank's vertex (a packet reaching
 * the far end of a link between partitions, a PFC frame or a credit update
 * going back over one) is sent there, and every such link is at least the
 * lookahead long: the smallest latency of a link between partitions, or the
 * shortest wait of a barrier after flows when that is shorter (below). So the
 * ranks run in windows of one lookahead (conservative synchronisation): nothing sent during a
 * window can take effect before its end; at the end the ranks swap what they
 * sent, and agree on the next event time (idle stretches are skipped).
 *
 * Ties between events at the same picosecond pop by (vertex that queued
 * them, its count) (pkt_int.h), which does not depend on the split, so any
 * number of ranks gives the bytes of one process. At the end every rank gets
 * the whole result: each port's sending side from the owner of its source,
 * its receiving side (ingress buffer, pause frames sent) from the owner of its
 * destination, each flow's completion from the owner of its receiver, the
 * completions in the one-process order of (time, tie key): each rank sorts its own, and
 * rank 0 merges them a piece at a time as it asks for them (ft__pk_part_merge), keeping
 * none of the other ranks' once taken into the result. A rank holds the port and
 * priority records of the links with an end at its vertices alone (pp_keep_ports),
 * rank 0 the others' too once they send them at the end (pp_all_ports), and the
 * congestion control state of the flows with an end there (pp_keep_cc). Told its rank by
 * the launcher before anything is built, it keeps whole only the records of the flows
 * with a vertex of it on their path (ft__pk_part_plan, ft__pk_part_add_flow), and of
 * their tasks (of the others' tasks, what it reads: struct pk_tfar), rank 0 every
 * flow's path besides.
 *
 * Supported: background patterns (on/off bursts, with start jitter or not), jobs and
 * multi-phase ops, whose flows wait for barriers (an op's start, a phase's or an op's
 * end before the next): every rank runs them, told of the flows that finished
 * elsewhere at each window's end (pp_replay), and the windows are no longer than their
 * waits (from the routed paths: an all-to-all send's end waits one path latency of its
 * flows and its notice the path from its receiver back to the next sender, built whole
 * as the lazy form would build it, pkt_nccl.c; an on/off burst's end each flow's own
 * path latency, its sender's ACK, pkt_setup.c add_timed_conn; an alltoall background's
 * round its link class's message cost, or inside a node, where none is priced, its flows'
 * ACK, pkt_setup.c submit_a2a); on lossless fabrics (PFC or credits) or lossy ones
 * (go-back-N: NAKs and ACKs travel back one path latency, as messages when they cross;
 * the sender reads only its own side), with static or ECMP routing, with or without congestion
 * control (CNPs, BECNs and RTT samples travel back one path latency, as
 * messages when they cross; a reaction point's state lives at the source's
 * NIC, RED draws per port), with bit errors (drawn per port, from the port's
 * own generator), and with adaptive routing per packet or per flowlet (a
 * switch reads its own egress queues; a flowlet's choice at a hop is kept in
 * its flow's rows, laid out before the run, by the owner of that hop), and
 * NCCL's chunked pipelines: a flow that waits for a flow ending where it leaves starts there (local), one that
 * waits for a flow ending elsewhere (a slot's clear-to-send) learns of it one
 * path latency later (PK_EV_PRED, a message when it crosses), and a QP's
 * next message waits for its previous one to leave the NIC, which the
 * source's rank alone tells it (pk_flow_sent, no barrier between); an NVLS
 * tree's read learns that a chunk reached another switch of its node through a
 * barrier that waits one path latency (pkt_tree.c). Such a
 * flow starts on its source's rank alone: every rank routes every flow
 * before the run and keeps the paths that cross its vertices (rank 0 all of
 * them), a packet that crosses takes its path's offset in the receiving
 * rank's table (pp_path_here), and carries its flow's start. A NIC's send pipeline and its QP-context cache count run on the
 * rank that owns the NIC; a flow's end reaches the count one path latency after
 * the receiver took its last packet (PK_EV_QP_END, a message when it crosses).
 * The rest is refused with the reason: a barrier after flows
 * with no wait (split data on QPs), and links inside a node
 * between partitions (which this ownership never makes). --trace and
 * --trace-qps sample on every rank; rank 0 keeps each port's samples from the
 * owner of its source and each QP's from the owner of its sending NIC (pp_trace).
 */
#include "pkt_int.h"

#include <fabtune/launch.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if FT_HAVE_MPI
#include <mpi.h>
#endif

/* A bit of the task graph: what partitioned runs allow. */
#define PP_ROOT 1u /* a barrier with no predecessor: every rank runs it */
#define PP_LEAF 2u /* a barrier with no successor, after flows and roots: replayed from the
                    * completions */
#define PP_MID  3u /* a barrier between flows (a phase's end, an op after another): every
                    * rank runs it, told of its flows' completions at each window's end */
#define PP_SUCC 8u  /* (while checking) a task with successors */
#define PP_FEED 16u /* (while checking) a flow another flow waits for */

struct pk_part {
	int rank, size;
	bool mpi_inited; /* this engine started MPI: it finalizes it */
	uint32_t *owner; /* per vertex (nvertices + 1: the last, no vertex, is everyone's) */
	uint64_t lookahead_ps;
	uint64_t end_ps; /* the window's end: no message may take effect before it */
	uint8_t *task_kind; /* PP_* per task */
	/* Per flow record kept here (pp_skey: the flow's slot in e->flows, the spare's
	 * shared by every flow not kept): the tie key of the event that started it. Only a
	 * rank with a vertex on a flow's path reads or writes it (its source's starts the
	 * flow, a crossing packet carries it to the others), so a rank holds nkey of them,
	 * not one per flow. */
	uint64_t *start_key;
	size_t nkey;
	/* and the critical path it started with (struct pk_cp, pkt_flow.c start_task()): its
	 * receiver's rank ends it on that path (pk_flow_cp0()) */
	struct pk_cp *start_cp;
	uint64_t nroot;     /* root and middle barriers: events every rank handled */
	uint64_t nmid;      /* middle barriers: completions are swapped at window ends */
	/* --trace: every rank samples at the same times (its own ports' figures are the
	 * right ones), until no flow is left at a window's end; rank 0 keeps the samples
	 * one process takes. */
	uint64_t ndone_all; /* flows finished on all ranks at the last window's end */
	uint64_t ntrace_ev; /* trace samples taken here */
	uint64_t t_last_ps; /* the last other event handled here */
	struct ft_vec out;  /* struct pk_msg, with its destination in dst */
	struct ft_vec done; /* struct pk_done: this window's completions, for the replay
	                     * (only with middle barriers) */
	struct ft_vec ends; /* struct pk_end: this rank's completions, for rank 0 at the end */
	/* Rank 0, at the end: per flow, whether NCCL's window held it (pk_flow held, marked
	 * on the ranks that ran its pace, its sender's: its end is its receiver's). */
	uint8_t *held;
};

/* An event for another rank: packets travel with their record. */
struct pk_msg {
	struct pk_event ev;
	struct pk_pkt pkt;
	uint64_t t_start_ps, start_key; /* a packet's flow's start (its source's rank may
	                                 * alone have started it) and its event's tie key */
	/* a packet's: its flow's critical path to its start; a PK_EV_PRED's (has_cp): the
	 * path its wait carries (its argument's slot is this rank's, ft__pk_cp_arg()) */
	struct pk_cp cp;
	uint32_t dst, has_cp;
};

struct pk_done {
	uint64_t t_ps, seq;
	uint64_t t_start_ps, start_key; /* the flow's start, its event's tie key */
	double ideal; /* (its FCT is the time from its start) */
	uint32_t task, prio;
	uint64_t lat_ps; /* the flow's path latency (its barriers' wait) */
	uint64_t vbase;  /* its receiver's count when it finished (the keys its barriers get) */
	uint32_t origin, pad; /* its receiver */
	struct pk_cp cp; /* the critical path to its end (what it tells its barriers) */
};

static int
pp_refuse(struct ft_error *err, const char *why)
{
	return ft_error_set(err, FT_EINVAL,
	                    "sim: packet engine under mpirun: %s; run it in one process "
	                    "(without mpirun) instead",
	                    why);
}

/* A barrier fed by flows and feeding flows refused: by name where a GPU's several NICs
 * split a message (pkt_nccl.c add_message(): its parts meet at barriers). */
static int
pp_refuse_join(const struct pk_engine *e, struct ft_error *err)
{
	if (e->max_qps > e->cfg.qps_per_conn)
		return pp_refuse(err, "a GPU's several NICs (nics.per_gpu) each carry a share of "
		                      "every chunked message, whose parts meet at barriers between "
		                      "flows");
	return pp_refuse(err, "a flow starts a barrier after a flow");
}

/* The rank that owns vertex @v of split @e (0 when not split). */
uint32_t
ft__pk_part_owner(const struct pk_engine *e, uint32_t v)
{
	return e->part && v < e->nvertices ? e->part->owner[v] : 0;
}

bool
ft__pk_part_owns(const struct pk_engine *e, uint32_t v)
{
	return !e->part || v >= e->nvertices || e->part->owner[v] == (uint32_t)e->part->rank;
}

/*
 * Of the ranks @cand (@ncand, in NIC order) whose switches a node's NICs reach, the one
 * it goes to: the earliest with fewer than @share nodes (@load per rank), or when every
 * one has its share, the least loaded (the earliest on a tie). UINT32_MAX for none.
 */
static uint32_t
pp_pick(const uint32_t *cand, uint32_t ncand, const uint32_t *load, uint32_t share)
{
	uint32_t best = UINT32_MAX;

	for (uint32_t i = 0; i < ncand; i++) {
		if (load[cand[i]] < share)
			return cand[i];
		if (best == UINT32_MAX || load[cand[i]] < load[best])
			best = cand[i];
	}
	return best;
}

/*
 * The rank of each node (@node_owner, @nnodes entries; UINT32_MAX where its NICs reach no
 * owned switch), from @pp's switch owners. A node goes with a switch its NIC links reach,
 * so its in-node links never cross. When they all reach one rank's switches (one leaf, or
 * the leaves of one pod), that rank; when they reach several ranks' (a
 * rail-optimized fabric: NIC j of every node hangs from rail j's leaf, and the rails'
 * leaves go to ranks in blocks), the first of those, in NIC order, that owns fewer than
 * its share of the nodes (nodes / ranks, rounded up), else the least loaded (pp_pick).
 * Such a node's links to the other ranks' leaves cross whichever it takes, so the links
 * between partitions, and the lookahead, are the same kinds of link; by its first NIC's
 * leaf alone every node went to rail 0's rank. The trays of a multi-node NVLink domain go
 * with its first tray: a packet between two of them leaves one tray's NVSwitch and enters
 * the other's (ft__sim_route_nvlink_domain), a step that is no link, so no message
 * between partitions could carry it.
 */
static int
pp_node_owners(const struct pk_engine *e, const struct pk_part *pp, uint32_t *node_owner,
               uint32_t nnodes)
{
	uint32_t n = (uint32_t)pp->size, share = (nnodes + n - 1) / n, *at, *load, *cand;

	at = ft_calloc((size_t)nnodes + 1, sizeof(uint32_t));
	load = ft_calloc(n, sizeof(uint32_t));
	cand = ft_calloc((size_t)e->nlinks + 1, sizeof(uint32_t));
	if (!at || !load || !cand) {
		ft_free(at);
		ft_free(load);
		ft_free(cand);
		return FT_ENOMEM;
	}
	/* The rank at the far end of each NIC link to an owned switch, by node (a counting
	 * sort: link order, its first NIC's first). */
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t l = 0; l < e->nlinks; l++) {
			const struct pk_link *lk = &e->links[l];
			uint32_t node = ft_topo_vertex(e->topo, lk->src)->node;

			if (node >= nnodes || pp->owner[lk->dst] == UINT32_MAX ||
			    ft_topo_vertex(e->topo, lk->dst)->node != FT_NO_NODE)
				continue;
			if (pass == 0)
				at[node + 1]++;
			else
				cand[at[node]++] = pp->owner[lk->dst];
		}
		for (uint32_t k = 0; pass == 0 && k < nnodes; k++)
			at[k + 1] += at[k];
	}
	/* at[k] is now the end of node k's ranks, where node k + 1's begin. */
	for (uint32_t k = 0; k < nnodes; k++) {
		uint32_t per = ft__sim_node(e->topo, k)->nvlink_domain_nodes, from = k ? at[k - 1] : 0;

		node_owner[k] = per > 1 && k % per != 0 ? node_owner[k - k % per] :
		                                          pp_pick(cand + from, at[k] - from, load, share);
		if (node_owner[k] != UINT32_MAX)
			load[node_owner[k]]++;
	}
	ft_free(at);
	ft_free(load);
	ft_free(cand);
	return 0;
}

/*
 * Vertex owners: fat-tree pods (group of the leaf and spine switches) in contiguous
 * blocks of ranks, or the leaves themselves when there are fewer pods than ranks; a
 * node's vertices with a switch its NIC links reach (pp_node_owners); other switches
 * (cores) in turn by id.
 */
static int
pp_owners(struct pk_engine *e, struct pk_part *pp)
{
	uint32_t nv = e->nvertices, v, npods = 0, nleaves = 0, n = (uint32_t)pp->size;
	uint32_t nnodes = ft_topo_spec(e->topo)->nnodes, *node_owner;
	bool by_pod;
	int rc;

	for (v = 0; v < nv; v++) {
		const struct ft_vertex *x = ft_topo_vertex(e->topo, v);

		if (x->kind == FT_V_SWITCH && x->tier == 1) {
			npods = FT_MAX(npods, x->group + 1);
			nleaves++;
		}
	}
	by_pod = npods >= n;
	for (v = 0; v < nv; v++) {
		const struct ft_vertex *x = ft_topo_vertex(e->topo, v);

		pp->owner[v] = UINT32_MAX;
		if (x->kind == FT_V_SWITCH && x->node == FT_NO_NODE && (x->tier == 1 || x->tier == 2))
			pp->owner[v] = by_pod ? (uint32_t)((uint64_t)x->group * n / npods) :
			                        (x->tier == 1 ? (uint32_t)((uint64_t)x->local * n /
			                                                   FT_MAX(nleaves, 1u)) :
			                                        UINT32_MAX);
	}
	node_owner = ft_calloc((size_t)nnodes + 1, sizeof(uint32_t));
	if (!node_owner)
		return FT_ENOMEM;
	rc = pp_node_owners(e, pp, node_owner, nnodes);
	for (v = 0; v < nv && rc == 0; v++) {
		const struct ft_vertex *x = ft_topo_vertex(e->topo, v);

		if (pp->owner[v] != UINT32_MAX)
			continue;
		if (x->node < nnodes && node_owner[x->node] != UINT32_MAX)
			pp->owner[v] = node_owner[x->node];
		else
			pp->owner[v] = v % n;
	}
	ft_free(node_owner);
	pp->owner[nv] = (uint32_t)pp->rank; /* no vertex: every rank's */
	return rc;
}

/*
 * Barrier @b after flows: the others learn of a flow's completion at the window's end, so
 * the barrier may not fire before: the windows are no longer than its wait (its delay, and
 * its share of @lat, the longest path latency among its flows, which every flow's route
 * gives before the run; an on/off burst's end after a flow inside one node, or an
 * alltoall background's round there, waits that flow's path, shorter than a link between
 * partitions may be). A barrier with no wait
 * leaves no window: refused.
 */
static int
pp_check_wait(struct pk_engine *e, struct pk_part *pp, uint32_t b, uint64_t lat,
              struct ft_error *err)
{
	const struct pk_task *k = task_at(e, b);
	uint64_t wait = k->delay_ps + (uint64_t)(k->lat_mult * (double)lat);

	if (wait > 0) {
		pp->lookahead_ps = FT_MIN(pp->lookahead_ps, wait);
		return 0;
	}
	/* A pure join (no delay, no path latency): a chunked message's parts meet there when
	 * split_data_on_qps splits it (pkt_nccl.c add_message). */
	if (e->max_qps > e->cfg.qps_per_conn)
		return pp_refuse(err, "a GPU's several NICs each carry a share of every chunked "
		                      "message, whose parts meet at barriers with no wait (the "
		                      "message's arrival, the next message's start)");
	if (e->pc.split_data_on_qps && e->max_qps > 1)
		return pp_refuse(err, "split_data_on_qps splits each chunked message over its QPs, "
		                      "whose parts meet at barriers with no wait (the message's "
		                      "arrival, the next message's start)");
	return pp_refuse(err, "a barrier after flows has no wait (no lookahead)");
}

/*
 * Flow @b waits for flow @a: at @a's receiver (the vertex @b leaves), or, from another
 * vertex, one path latency of @a later (engine_packet.c flow_feeds), which a message
 * between partitions may take if it is at least the lookahead.
 */
static int
pp_check_feed(struct pk_engine *e, const struct pk_part *pp, uint32_t a, uint32_t b,
              struct ft_error *err)
{
	uint32_t a_dst = pk_flow_dst(e, a), b_src = pk_flow_src(e, b);
	uint64_t a_lat = pk_flow_lat(e, a);

	if (a_dst == b_src || pp->owner[a_dst] == pp->owner[b_src] || a_lat >= pp->lookahead_ps)
		return 0;
	return ft_error_set(err, FT_EINVAL,
	                    "sim: packet engine under mpirun: a flow waits for the clear-to-send "
	                    "of a flow whose path latency (%.3f us) is less than the lookahead "
	                    "(%.3f us, the shortest link between partitions); run it in one "
	                    "process (without mpirun) instead",
	                    (double)a_lat / 1e6, (double)pp->lookahead_ps / 1e6);
}

/* What the run may not do split, and the task graph's shape; the lookahead. */
static int
pp_check(struct pk_engine *e, struct pk_part *pp, struct ft_error *err)
{
	size_t nt = pk_ntasks(e);
	uint64_t la = UINT64_MAX, *plat;
	uint32_t *nin;
	int rc;

	for (uint32_t l = 0; l < e->nlinks; l++) {
		const struct pk_link *lk = &e->links[l];

		if (pp->owner[lk->src] == pp->owner[lk->dst])
			continue;
		if (!lk->net)
			return pp_refuse(err, "a link inside a node joins two partitions");
		la = FT_MIN(la, lk->lat_ps);
	}
	if (la == 0)
		return pp_refuse(err, "a link between partitions has no latency (no lookahead)");
	pp->lookahead_ps = la;
	pp->task_kind = ft_calloc(nt + 1, 1);
	nin = ft_calloc(nt + 1, sizeof(uint32_t));
	plat = ft_calloc(nt + 1, sizeof(uint64_t));
	if (!pp->task_kind || !nin || !plat) {
		ft_free(nin);
		ft_free(plat);
		return FT_ENOMEM;
	}
	/* Successors are counted here: the run has not started (pk_start counts them). */
	for (size_t i = 0; i < e->edges.len; i++) {
		const uint32_t *pr = ft_vec_at(&e->edges, i);

		pp->task_kind[pr[0]] = PP_SUCC;
		nin[pr[1]]++;
	}
	for (size_t i = 0; i < nt; i++) {
		const struct pk_task *k;
		bool has_succ = pp->task_kind[i] == PP_SUCC;

		pp->task_kind[i] = 0;
		if (pk_task_kind(e, (uint32_t)i) != PK_T_BARRIER)
			continue;
		k = task_at(e, (uint32_t)i);
		if (k->npred == nin[i])
			pp->task_kind[i] = k->npred == 0 ? PP_ROOT : has_succ ? PP_MID : PP_LEAF;
	}
	/* (A QP's next message waits for its previous one to leave the NIC with no barrier
	 * between: the source's rank alone tells it, pk_flow_sent.) */
	rc = 0;
	/* nin now: per middle barrier, 1 after a flow; plat: its flows' longest path latency. */
	memset(nin, 0, (nt + 1) * sizeof(uint32_t));
	/* (Built for this split: those two checks were made as each dependency was built,
	 * on every rank, ft__pk_part_dep, which kept a flow's on a flow only where read.) */
	if (e->plan_owner && e->plan_dep_err.code) {
		*err = e->plan_dep_err;
		rc = err->code;
	}
	for (size_t i = 0; i < e->edges.len && rc == 0; i++) {
		const uint32_t *pr = ft_vec_at(&e->edges, i);
		uint32_t a_flow = pk_task_flow(e, pr[0]);

		if (pk_task_kind(e, pr[0]) == PK_T_BARRIER)
			continue; /* every rank runs it (a send's: the source's rank) */
		if (pk_task_kind(e, pr[1]) == PK_T_FLOW) {
			pp->task_kind[pr[0]] = PP_FEED;
			if (!e->plan_owner)
				rc = pp_check_feed(e, pp, a_flow, pk_task_flow(e, pr[1]), err);
			continue;
		}
		/* A flow's barriers are told at the window's end with the keys they would
		 * have had: before the flows it starts (task_done takes them in order). */
		if (pp->task_kind[pr[0]] == PP_FEED && !e->plan_owner)
			rc = pp_refuse_join(e, err);
		if (pp->task_kind[pr[1]] != PP_LEAF) { /* leaves are replayed */
			nin[pr[1]] = 1;
			plat[pr[1]] = FT_MAX(plat[pr[1]], pk_flow_lat(e, a_flow));
		}
	}
	for (size_t i = 0; i < nt && rc == 0; i++)
		rc = nin[i] ? pp_check_wait(e, pp, (uint32_t)i, plat[i], err) : 0;
	ft_free(nin);
	ft_free(plat);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < nt; i++) {
		if (pp->task_kind[i] == PP_ROOT || pp->task_kind[i] == PP_MID)
			pp->nroot++;
		if (pp->task_kind[i] == PP_MID)
			pp->nmid++;
	}
	return 0;
}

static int pp_setup(struct pk_engine *e, struct pk_part *pp, const uint32_t *owner,
                    struct ft_error *err);

/* Whether this process is one of several mpirun started for one run (not a sweep's). */
bool
ft__pk_part_wanted(void)
{
	struct ft_launch l;

	if (ft_launch_detect(NULL, &l, NULL) < 0 || l.launcher == FT_LAUNCHER_NONE || !l.mpi ||
	    l.size == 1)
		return false;
#if FT_HAVE_MPI
	{
		int inited = 0;

		MPI_Initialized(&inited);
		return !inited;
	}
#else
	return true; /* refused at the run, naming the launcher */
#endif
}

/*
 * A paced run built for a split (cc_later) that runs in one process after all (MPI was
 * started in between, as by a sweep): a record per flow, as add_flow would have made.
 */
static int
pp_cc_whole(struct pk_engine *e)
{
	struct pk_dcqcn d0 = ft__pk_cc0(e);

	if (!e->qp_cc || !e->cc_later)
		return 0;
	e->cc_later = false;
	for (size_t f = e->flow_cc.len; f < e->flows.len; f++)
		if (ft_vec_push(&e->flow_cc, &d0) < 0)
			return FT_ENOMEM;
	return 0;
}

int
ft__pk_part_init(struct pk_engine *e, struct ft_error *err)
{
	if (!ft__pk_part_wanted()) {
		/* (MPI started in between, as by a sweep: this rank holds its flows alone) */
		if (e->fsplit)
			return ft_error_set(err, FT_EINVAL,
			                    "sim: packet engine: built as rank %d of %d of a split "
			                    "run, but MPI was started before the run",
			                    e->plan_rank, e->plan_size);
		return pp_cc_whole(e);
	}
#if FT_HAVE_MPI
	{
		struct pk_part *pp = ft_calloc(1, sizeof(*pp));

		if (!pp)
			return FT_ENOMEM;
		if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
			ft_free(pp);
			return ft_error_set(err, FT_EMPI, "sim: packet engine: MPI_Init failed");
		}
		pp->mpi_inited = true;
		MPI_Comm_rank(MPI_COMM_WORLD, &pp->rank);
		MPI_Comm_size(MPI_COMM_WORLD, &pp->size);
		return pp_setup(e, pp, NULL, err);
	}
#else
	{
		struct ft_launch l;

		(void)ft_launch_detect(NULL, &l, NULL);
		return ft_error_set(err, FT_EINVAL,
		                    "sim: packet engine: started by %s with %u processes, but "
		                    "built without MPI",
		                    ft_launcher_name(l.launcher), l.size);
	}
#endif
}

/* Whether rank @r handles events at either end of link @l (its port or its ingress). */
static bool
pp_port_of(const struct pk_engine *e, const struct pk_part *pp, uint32_t l, uint32_t r)
{
	return pp->owner[e->links[l].src] == r || pp->owner[e->links[l].dst] == r;
}

/*
 * A rank keeps the port records of the links it handles events at: those whose source
 * vertex it owns (the sending side: queues, rings, pauses and credits received) and
 * those whose destination it owns (the ingress buffer, the pauses and credit updates it
 * sends, drops). Every other link maps to one spare record, which stays empty: no
 * event of this rank happens at either end of it (where an event about a link happens
 * is read from the link, ft__pk_ev_where). What a flow's start and end touch on every
 * rank that runs them goes there and is never read: the count of flows over a port
 * (which rank 0 counts again from the completions, pp_take_end) and a NIC's count of
 * its QPs (which the NIC's rank keeps). Before the run starts.
 */
static int
pp_keep_ports(struct pk_engine *e, const struct pk_part *pp)
{
	uint32_t n = 0, j = 0, *slot;
	struct pk_port *ports;
	void *mem;

	if (FT_NEVER(e->started || e->port_slot))
		return FT_EINVAL;
	for (uint32_t l = 0; l < e->nlinks; l++)
		n += pp_port_of(e, pp, l, (uint32_t)pp->rank);
	slot = ft_calloc((size_t)e->nlinks + 1, sizeof(*slot));
	ports = ft__pk_lines_alloc((size_t)n + 1, sizeof(*ports), &mem);
	if (!slot || !ports) {
		ft_free(slot);
		ft_free(mem);
		return FT_ENOMEM;
	}
	for (uint32_t l = 0; l < e->nlinks; l++) {
		slot[l] = pp_port_of(e, pp, l, (uint32_t)pp->rank) ? j++ : n;
		if (slot[l] != n)
			ports[slot[l]] = e->ports[l];
	}
	ports[n].rel_link = PK_NONE;
	ft_free(e->ports_mem);
	e->ports_mem = mem;
	e->ports = ports;
	e->port_slot = slot;
	e->nports = n + 1;
	return 0;
}

/* Whether rank @r handles events at either end of flow @f (its source's or receiver's). */
static bool
pp_flow_of(const struct pk_part *pp, const struct pk_flow *f, uint32_t r)
{
	return pp->owner[f->src] == r || pp->owner[f->dst] == r;
}

/*
 * A paced run's rank keeps the congestion control state of the flows it sends or
 * receives alone: the reaction point's (rate, alpha, timers, CCTI, the RTT gradient) is
 * read and written only at the source's NIC, the notification point's (the last CNP)
 * only at the receiver's. Every other flow maps to one spare record, which only what
 * every rank samples reads (--trace-qps, whose samples rank 0 takes from the source's
 * rank). Before the run, nothing has changed them: each starts as a new QP. A run built
 * for MPI made none yet (cc_later); the tests' split of a run built in one process
 * drops the ones it made.
 */
static int
pp_keep_cc(struct pk_engine *e, const struct pk_part *pp)
{
	uint32_t n = 0, j = 0, *slot;
	struct pk_dcqcn d0 = ft__pk_cc0(e);

	if (!e->qp_cc)
		return 0;
	if (FT_NEVER(e->started || e->cc_slot))
		return FT_EINVAL;
	/* (By record: a rank built for the split holds the flows it keeps alone.) */
	for (size_t f = 0; f < e->flows.len; f++)
		n += pp_flow_of(pp, ft_vec_at(&e->flows, f), (uint32_t)pp->rank);
	slot = ft_calloc(e->flows.len + 1, sizeof(*slot));
	if (!slot)
		return FT_ENOMEM;
	ft_vec_release(&e->flow_cc);
	for (uint32_t i = 0; i <= n; i++) {
		if ((i == 0 && ft_vec_reserve(&e->flow_cc, (size_t)n + 1) < 0) ||
		    ft_vec_push(&e->flow_cc, &d0) < 0) {
			ft_free(slot);
			return FT_ENOMEM;
		}
	}
	for (size_t f = 0; f < e->flows.len; f++)
		slot[f] = pp_flow_of(pp, ft_vec_at(&e->flows, f), (uint32_t)pp->rank) ? j++ : n;
	e->cc_slot = slot;
	return 0;
}

/*
 * Whether rank @pp keeps the fixed path of flow @f, just routed into the path table from
 * @mark on. A packet follows such a path link by link, so only the ranks that own a
 * vertex on it read it: those handle events there, and a packet that crosses to one takes
 * its path offset from that rank's own record of the flow (pp_exchange). Rank 0 keeps
 * every path: it counts the flows per port again from the completions and walks every
 * flow's links for each op's bottleneck. Flowlet rows and paths routed per hop (adaptive
 * routing) are kept whole: a packet may take any equal-cost port there.
 */
static bool
pp_keep_path(const struct pk_engine *e, const struct pk_part *pp, const struct pk_flow *f,
             size_t mark)
{
	uint32_t r = (uint32_t)pp->rank;

	if (r == 0 || f->npath == 0 || f->fl_off != PK_NONE || f->path_off != mark ||
	    (size_t)f->path_off + f->npath != e->paths.len)
		return true;
	for (uint32_t j = 0; j < f->npath; j++)
		if (pp_port_of(e, pp, FT_VEC_AT(&e->paths, uint32_t, f->path_off + j), r))
			return true;
	return false;
}

/*
 * Before anything is built: the partition this process will run as rank @rank of
 * @nranks, with vertex owners @owner (NULL: from the launcher, by pod, when mpirun started
 * this process for a split; pp_owners needs the fabric alone), so that the rank keeps
 * whole only the records of the flows with a vertex of it on their path
 * (ft__pk_part_add_flow); rank 0 keeps every flow's path and task besides (it walks every
 * path for the recount of flows per port and for each op's bottleneck). Every flow is
 * kept whole where any rank may read it: adaptive routing (any switch may be a hop),
 * --list-flows and --trace-qps. pp_setup checks that MPI gives the rank and size planned
 * for.
 */
int
ft__pk_part_plan(struct pk_engine *e, const uint32_t *owner, int nranks, int rank)
{
	struct pk_part pp = { 0 };
	struct pk_flow spare = { 0 };
	int rc;

	if (!owner) {
		struct ft_launch l;

		if (!ft__pk_part_wanted() || ft_launch_detect(NULL, &l, NULL) < 0)
			return 0;
		nranks = (int)l.size;
		rank = (int)l.rank;
	}
	if (rank < 0 || nranks < 2 || rank >= nranks || e->flows.len || e->plan_owner ||
	    e->cfg.routing == FT_ROUTING_ADAPTIVE || e->spray || e->pc.list_flows ||
	    e->ntrace_qps)
		return 0;
	pp.rank = rank;
	pp.size = nranks;
	pp.owner = ft_calloc((size_t)e->nvertices + 1, sizeof(uint32_t));
	if (!pp.owner)
		return FT_ENOMEM;
	if (owner) {
		memcpy(pp.owner, owner, (size_t)e->nvertices * sizeof(uint32_t));
		pp.owner[e->nvertices] = (uint32_t)rank;
	} else if ((rc = pp_owners(e, &pp)) < 0) {
		ft_free(pp.owner);
		return rc;
	}
	/* It keeps the tasks of the flows it keeps (and every other task): the ids of any
	 * built before map to their records. */
	for (uint32_t t = 0; t < e->tasks.len; t++)
		if (ft_vec_push(&e->tslot, &t) < 0) {
			e->tslot.len = 0;
			ft_free(pp.owner);
			return FT_ENOMEM;
		}
	/* Record 0: the spare, which every flow not kept maps to. */
	spare.path_off = spare.fl_off = spare.sent_task = spare.ring_next = PK_NONE;
	spare.nic_link = spare.nic_rx_link = spare.task = PK_NONE;
	if (!e->sack)
		spare.nak_for = PK_NONE; /* (SRD: sack_bits NULL) */
	if (ft_vec_push(&e->flows, &spare) < 0) {
		ft_free(pp.owner);
		return FT_ENOMEM;
	}
	/* The lookahead the links give (pp_check), for the checks made as each
	 * dependency is built (ft__pk_part_dep). */
	e->plan_la = UINT64_MAX;
	for (uint32_t l = 0; l < e->nlinks; l++)
		if (pp.owner[e->links[l].src] != pp.owner[e->links[l].dst])
			e->plan_la = FT_MIN(e->plan_la, e->links[l].lat_ps);
	e->tsplit = true;
	e->plan_owner = pp.owner;
	e->plan_rank = rank;
	e->plan_size = nranks;
	e->fsplit = true;
	return 0;
}

/*
 * A dependency of task @to on flow task @from (or on another task that is not a barrier),
 * built on a rank planned for a split: whether the rank keeps it (1; 0: dropped, FT_E*).
 * A flow's dependency on a flow is read only where the first flow ends, at its receiver
 * (task_done there tells the second flow at once or sends it the clear-to-send,
 * flow_feeds), so only the rank that owns that receiver keeps it; the wait it makes is
 * counted on every rank (ft__pk_add_dep), and a dependency that ends at a barrier is
 * kept on every rank (every rank tells its barriers of each completion). What pp_check
 * reads of such dependencies is checked here instead, on every rank, in the order they
 * are built (the order it reads them in): a flow waited for across the partitions by a
 * path shorter than the lookahead of the links (pp_check_feed), and a flow that starts a
 * barrier after a flow; the first refusal is kept for pp_check to return.
 */
int
ft__pk_part_dep(struct pk_engine *e, uint32_t from, uint32_t to)
{
	uint32_t a = pk_task_flow(e, from), b;
	size_t w = from / 64;
	uint64_t bit = (uint64_t)1 << (from % 64), *feeds;
	struct pk_part pp = { .owner = e->plan_owner, .lookahead_ps = e->plan_la };

	while (e->plan_feeds.len <= w) {
		uint64_t zero = 0;

		if (ft_vec_push(&e->plan_feeds, &zero) < 0)
			return FT_ENOMEM;
	}
	feeds = ft_vec_at(&e->plan_feeds, w);
	if (pk_task_kind(e, to) != PK_T_FLOW) {
		if ((*feeds & bit) && !e->plan_dep_err.code)
			pp_refuse_join(e, &e->plan_dep_err);
		return 1;
	}
	*feeds |= bit;
	b = pk_task_flow(e, to);
	if (!e->plan_dep_err.code)
		pp_check_feed(e, &pp, a, b, &e->plan_dep_err);
	if (pk_task_kind(e, from) != PK_T_FLOW)
		return 1;
	return e->plan_owner[pk_flow_dst(e, a)] == (uint32_t)e->plan_rank;
}

/*
 * Flow @rec, built on a rank planned for a split: routed now, in flow order (every rank
 * routes every flow, as pp_setup did after the build: its path latency, which the checks
 * and the barriers read), and kept whole only when a vertex of the rank is on its path
 * (an end, or a hop: the ranks that handle its packets' events), its path with it;
 * otherwise its ends and path latency alone (struct pk_far, 16 bytes against the 144 of
 * a record), and on rank 0 its path and task (struct pk_fpath, 12). Its id, or FT_E*. A flow that cannot be routed is kept, and pp_setup
 * routes it again for the error.
 */
int64_t
ft__pk_part_add_flow(struct pk_engine *e, const struct pk_flow *rec)
{
	uint32_t id = (uint32_t)e->fslot.len, at = (uint32_t)e->flows.len;
	uint32_t r = (uint32_t)e->plan_rank;
	size_t mark = e->paths.len;
	const struct pk_flow *f;
	struct pk_far far;
	bool keep;
	int rc;

	if (ft_vec_reserve(&e->far, 1) < 0 || (r == 0 && ft_vec_reserve(&e->fpath, 1) < 0) ||
	    ft_vec_push(&e->flows, rec) < 0)
		return FT_ENOMEM;
	if (ft_vec_push(&e->fslot, &at) < 0) {
		e->flows.len = at;
		return FT_ENOMEM;
	}
	rc = ft__pk_route_flow(e, id);
	if (rc == FT_ENOMEM)
		return rc;
	f = flow_at(e, id);
	far = (struct pk_far){ f->lat_ps, f->src, f->dst };
	keep = rc < 0 || f->npath == 0 || f->fl_off != PK_NONE || e->plan_owner[f->src] == r ||
	       e->plan_owner[f->dst] == r;
	for (uint32_t j = 0; !keep && j < f->npath; j++) {
		const struct pk_link *lk =
		        &e->links[FT_VEC_AT(&e->paths, uint32_t, f->path_off + j)];

		keep = e->plan_owner[lk->src] == r || e->plan_owner[lk->dst] == r;
	}
	if (rc < 0 && e->plan_err_flow == PK_NONE)
		e->plan_err_flow = id;
	if (ft_vec_push(&e->far, &far) < 0)
		return FT_ENOMEM; /* (reserved: cannot fail) */
	/* Every path on rank 0: it walks them all at the end. */
	if (r == 0) {
		struct pk_fpath fp = { f->npath ? f->path_off : PK_NONE, f->task, f->npath };

		if (ft_vec_push(&e->fpath, &fp) < 0)
			return FT_ENOMEM; /* (reserved) */
	}
	if (!keep) {
		if (r != 0)
			e->paths.len = mark;
		e->flows.len = at;
		FT_VEC_AT(&e->fslot, uint32_t, id) = 0;
	}
	return id;
}

/*
 * The split @pp of @e: vertex owners (@owner, or by pod), every flow routed, what may
 * not be split refused.
 */
static int
pp_setup(struct pk_engine *e, struct pk_part *pp, const uint32_t *owner, struct ft_error *err)
{
	int rc;

	ft_vec_init(&pp->out, sizeof(struct pk_msg));
	ft_vec_init(&pp->done, sizeof(struct pk_done));
	ft_vec_init(&pp->ends, sizeof(struct pk_end));
	e->part = pp;
	pp->owner = ft_calloc((size_t)e->nvertices + 1, sizeof(uint32_t));
	if (!pp->owner)
		return FT_ENOMEM;
	if (owner) {
		memcpy(pp->owner, owner, (size_t)e->nvertices * sizeof(uint32_t));
		pp->owner[e->nvertices] = (uint32_t)pp->rank;
	} else if ((rc = pp_owners(e, pp)) < 0) {
		return rc;
	}
	pp->nkey = e->flows.len ? e->flows.len : 1; /* (split: the spare is one of them) */
	pp->start_key = ft_calloc(pp->nkey, sizeof(uint64_t));
	pp->start_cp = ft_calloc(pp->nkey, sizeof(struct pk_cp));
	if (!pp->start_key || !pp->start_cp)
		return FT_ENOMEM;
	/* Built for this split: routed as built (ft__pk_part_add_flow), for the same rank
	 * and owners (a launcher that numbers the ranks as MPI does not would own the wrong
	 * flows). */
	if (e->plan_owner) {
		if (pp->rank != e->plan_rank || pp->size != e->plan_size ||
		    memcmp(pp->owner, e->plan_owner, (size_t)e->nvertices * sizeof(uint32_t)))
			return ft_error_set(err, FT_EINVAL,
			                    "sim: packet engine under mpirun: built as rank %d of "
			                    "%d (from the launcher's environment), but MPI says "
			                    "rank %d of %d",
			                    e->plan_rank, e->plan_size, pp->rank, pp->size);
		if (e->plan_err_flow != PK_NONE &&
		    (rc = ft__pk_route_flow(e, e->plan_err_flow)) < 0)
			return rc == FT_ENOMEM ? rc : ft_error_set(err, rc, "%s", e->route_err.msg);
	}
	/* Every flow routed, in flow order (its path latency, which the checks and the
	 * barriers read); its path kept where this rank may need it (pp_keep_path). */
	for (uint32_t f = 0; !e->plan_owner && f < e->flows.len; f++) {
		size_t mark = e->paths.len;

		if ((rc = ft__pk_route_flow(e, f)) < 0)
			return rc == FT_ENOMEM ? rc : ft_error_set(err, rc, "%s", e->route_err.msg);
		if (!pp_keep_path(e, pp, flow_at(e, f), mark)) {
			struct pk_flow *x = flow_at(e, f);

			e->paths.len = mark;
			x->path_off = PK_NONE;
			x->npath = x->path_cap = 0;
		}
	}
	rc = pp_check(e, pp, err);
	if (rc < 0 || (rc = pp_keep_ports(e, pp)) < 0 || (rc = pp_keep_cc(e, pp)) < 0)
		return rc;
	/* Leaf barriers never start during the run: they are replayed at the end. */
	for (size_t i = 0; i < pk_ntasks(e); i++)
		if (pp->task_kind[i] == PP_LEAF)
			task_at(e, (uint32_t)i)->npred = UINT32_MAX;
	return 0;
}

/*
 * What a split of @e's submitted run into @nranks ranks with these vertex owners (one
 * per vertex) would refuse, without MPI: the checks ft__pk_part_init() makes, as rank 0
 * (the tests' way to every refusal, some of which no builder's graph reaches). @e is
 * left split (its flows routed) until ft__pk_part_free().
 */
int
ft__pk_part_check(struct pk_engine *e, const uint32_t *owner, int nranks, struct ft_error *err)
{
	return ft__pk_part_check_as(e, owner, nranks, 0, err);
}

/* The same as rank @rank: what that rank keeps (its ports, paths and records). */
int
ft__pk_part_check_as(struct pk_engine *e, const uint32_t *owner, int nranks, int rank,
                     struct ft_error *err)
{
	struct pk_part *pp = ft_calloc(1, sizeof(*pp));

	if (!pp)
		return FT_ENOMEM;
	pp->size = nranks;
	pp->rank = rank;
	return pp_setup(e, pp, owner, err);
}

void
ft__pk_part_free(struct pk_engine *e)
{
	struct pk_part *pp = e->part;

	if (!pp)
		return;
	ft_free(pp->owner);
	ft_free(pp->task_kind);
	ft_free(pp->start_key);
	ft_free(pp->start_cp);
	ft_vec_release(&pp->out);
	ft_vec_release(&pp->done);
	ft_vec_release(&pp->ends);
	ft_free(pp->held);
#if FT_HAVE_MPI
	if (pp->mpi_inited)
		MPI_Finalize();
#endif
	ft_free(pp);
	e->part = NULL;
}

/* Flow @f's start key: in its record's slot (the spare's for a flow not kept here, which
 * nothing reads back), so a rank holds one per record it keeps (test_part_keeps_own_flows). */
static inline uint64_t *
pp_skey(const struct pk_engine *e, uint32_t f)
{
	size_t i = e->fsplit ? FT_VEC_AT(&e->fslot, uint32_t, f) : f;

	return &e->part->start_key[i < e->part->nkey ? i : 0];
}

/* Flow @f's critical path to its start, the same way. */
static inline struct pk_cp *
pp_scp(const struct pk_engine *e, uint32_t f)
{
	size_t i = e->fsplit ? FT_VEC_AT(&e->fslot, uint32_t, f) : f;

	return &e->part->start_cp[i < e->part->nkey ? i : 0];
}

struct pk_cp
ft__pk_part_start_cp(const struct pk_engine *e, uint32_t fid)
{
	return *pp_scp(e, fid);
}

size_t
ft__pk_part_nkeys(const struct pk_engine *e)
{
	return e->part ? e->part->nkey : 0;
}

uint64_t *
ft__pk_part_skey(const struct pk_engine *e, uint32_t f)
{
	return pp_skey(e, f);
}

/* Queue @ev here, or for the rank that owns where it happens. */
int
ft__pk_part_push(struct pk_engine *e, const struct pk_event *ev)
{
	struct pk_part *pp = e->part;
	uint32_t type = ev->aux & 15u, where = ft__pk_ev_where(e, type, ev->id, ev->aux >> 4);
	struct pk_msg m = { 0 };

	if (pp->owner[where] == (uint32_t)pp->rank)
		return pk_evq_push(&e->evq, ev);
	if (FT_NEVER(type != PK_EV_ARRIVE && type != PK_EV_PAUSE && type != PK_EV_CREDIT &&
	             type != PK_EV_CNP && type != PK_EV_RTT && type != PK_EV_ACK &&
	             type != PK_EV_NAK && type != PK_EV_PRED && type != PK_EV_QP_END))
		return FT_EINVAL; /* pp_check lets no other kind cross */
	if (FT_NEVER(ev->t_ps < pp->end_ps))
		return FT_EINVAL; /* a message inside its window: the lookahead is wrong */
	m.ev = *ev;
	m.dst = pp->owner[where];
	if (type == PK_EV_ARRIVE) {
		m.pkt = e->pkts[ev->id];
		m.t_start_ps = flow_at(e, m.pkt.flow)->t_start_ps;
		m.start_key = *pp_skey(e, m.pkt.flow);
		m.cp = *pp_scp(e, m.pkt.flow);
		ft__pk_pkt_free(e, ev->id);
	} else if (type == PK_EV_PRED) {
		/* (its path leaves with it: the slot is this rank's, freed here) */
		m.has_cp = ft__pk_cp_out(e, ev->aux >> 4, &m.cp);
		m.ev.aux = type;
	}
	return ft_vec_push(&pp->out, &m);
}

uint32_t
ft__pk_part_rank(const struct pk_engine *e)
{
	return e->part ? (uint32_t)e->part->rank : 0;
}

/* Flow @fid starts now, in the event of tie key cur_seq (0 before the first). */
void
ft__pk_part_flow_start(struct pk_engine *e, uint32_t fid)
{
	*pp_skey(e, fid) = e->cur_seq;
	*pp_scp(e, fid) = e->cp; /* (its task's, start_task()) */
}

bool
ft__pk_part_more(const struct pk_engine *e)
{
	return e->part && e->part->ndone_all < pk_nflows(e);
}

/* Flow @fid's receiver took its last packet now, in the event of tie key @seq. */
int
ft__pk_part_flow_done(struct pk_engine *e, uint32_t fid)
{
	struct pk_part *pp = e->part;
	const struct pk_flow *f = flow_at(e, fid);
	struct pk_done d = { e->now_ps, e->cur_seq, f->t_start_ps, *pp_skey(e, fid),
		             f->ideal_s, f->task, f->prio, f->lat_ps, e->vseq[e->origin],
		             e->origin, 0, *pp_scp(e, fid) };
	struct pk_end end;

	/* (the path to its end, as task_done() takes it in one process) */
	pk_cp_msg(e, &d.cp, f, e->now_ps - f->t_start_ps);
	end = (struct pk_end){ d.t_ps, d.seq, d.t_start_ps, d.start_key, d.ideal, d.task, d.prio,
		               d.cp };

	/* Its successors start (pp_replay) with keys from here, as in one process: the
	 * counts are kept for them, so this vertex's later events stay after them. */
	e->vseq[e->origin] += task_at(e, f->task)->nsucc;
	/* The window's record, swapped at its end, only where middle barriers read it; what
	 * rank 0 reads at the end, kept until then (48 bytes, not 72). */
	if (pp->nmid && ft_vec_push(&pp->done, &d) < 0)
		return FT_ENOMEM;
	return ft_vec_push(&pp->ends, &end);
}

/* One source's completions, read a piece at a time: @n in all, @off read so far, the
 * piece's @len of them at @buf, the next to take at @pos. */
struct pp_stream {
	struct pk_end *buf;
	size_t n, off, len, pos;
};

/* Stream @s's next record (its next piece read first when the last is taken), or NULL. */
static const struct pk_end *
pp_head(struct pp_stream *s, int src, bool starts, ft__pk_pull_fn pull, void *pctx,
        size_t piece)
{
	if (s->pos == s->len) {
		if (s->off == s->n)
			return NULL;
		s->len = FT_MIN(piece, s->n - s->off);
		pull(pctx, src, starts, s->off, s->buf, s->len);
		s->off += s->len;
		s->pos = 0;
	}
	return &s->buf[s->pos];
}

/* Whether @a comes before @b: by end (time, tie key) or by start. */
static bool
pp_before(const struct pk_end *a, const struct pk_end *b, bool starts)
{
	uint64_t ta = starts ? a->t_start_ps : a->t_ps, tb = starts ? b->t_start_ps : b->t_ps;
	uint64_t ka = starts ? a->start_key : a->seq, kb = starts ? b->start_key : b->seq;

	return ta < tb || (ta == tb && ka < kb);
}

/* The first of @nsrc streams' heads (the lowest source at a tie), its index in @at. */
static const struct pk_end *
pp_first(struct pp_stream *ss, int nsrc, bool starts, ft__pk_pull_fn pull, void *pctx,
         size_t piece, int *at)
{
	const struct pk_end *best = NULL;

	for (int r = 0; r < nsrc; r++) {
		const struct pk_end *h = pp_head(&ss[r], r, starts, pull, pctx, piece);

		if (h && (!best || pp_before(h, best, starts))) {
			best = h;
			*at = r;
		}
	}
	return best;
}

/*
 * Rank 0's merge of every rank's completions (@nsrc sources, @count each), without
 * holding them all: each source gives them sorted twice, by end and by its flows'
 * starts, read @piece at a time (pull), so rank 0 holds 2 x @nsrc pieces at most
 * whatever the number of flows. take() sees every start and every end in one process's
 * order: ends by (time, tie key), starts by theirs, and at one tie key a completion
 * before the starts it causes (what the recount of flows per port needs). 0, FT_ENOMEM,
 * FT_EINVAL (no source or an empty piece) or what take() returned.
 */
int
ft__pk_part_merge(int nsrc, const size_t *count, size_t piece, ft__pk_pull_fn pull,
                  void *pctx, ft__pk_take_fn take, void *tctx)
{
	struct pp_stream *ss;
	struct pk_end *mem;
	int rc = 0;

	if (FT_NEVER(piece == 0 || nsrc <= 0))
		return FT_EINVAL;
	ss = ft_calloc((size_t)2 * nsrc + 1, sizeof(*ss));
	mem = ss ? ft_calloc((size_t)2 * nsrc * piece + 1, sizeof(*mem)) : NULL;
	if (!mem) {
		ft_free(ss);
		ft_free(mem);
		return FT_ENOMEM;
	}
	for (int r = 0; r < 2 * nsrc; r++) {
		ss[r].buf = mem + (size_t)r * piece;
		ss[r].n = count[r % nsrc];
	}
	while (rc == 0) {
		int ie = 0, is = 0;
		const struct pk_end *d = pp_first(ss, nsrc, false, pull, pctx, piece, &ie);
		const struct pk_end *s = pp_first(ss + nsrc, nsrc, true, pull, pctx, piece, &is);

		if (!d && !s)
			break;
		if (!s || (d && (d->t_ps < s->t_start_ps ||
		                 (d->t_ps == s->t_start_ps && d->seq <= s->start_key)))) {
			rc = take(tctx, d, true);
			ss[ie].pos++;
		} else {
			rc = take(tctx, s, false);
			ss[nsrc + is].pos++;
		}
	}
	ft_free(mem);
	ft_free(ss);
	return rc;
}

#if FT_HAVE_MPI
/*
 * Packet @k came from another rank with its path offset in that rank's path table: the
 * same path's (or flowlet row's) offset in this rank's (pp_keep_path keeps every path
 * that crosses a vertex of this rank, and the row of every flowlet).
 */
static void
pp_path_here(const struct pk_engine *e, struct pk_pkt *k)
{
	const struct pk_flow *f = flow_at(e, k->flow);

	if (k->path_off == PK_NONE)
		return;
	k->path_off = f->npath ? f->path_off : pk_flowlet_row(e, f, k->seq);
}

static int
pp_cmp_out(const void *a, const void *b)
{
	const struct pk_msg *x = a, *y = b;

	return (x->dst > y->dst) - (x->dst < y->dst);
}

/* Swap the window's messages; queue those for here. */
static int
pp_exchange(struct pk_engine *e)
{
	struct pk_part *pp = e->part;
	int n = pp->size, *sc = ft_calloc((size_t)4 * n, sizeof(int)), *rc_, *sd, *rd, total = 0;
	struct pk_msg *in = NULL;
	const int sz = (int)sizeof(struct pk_msg);
	int rc = 0;

	if (!sc)
		return FT_ENOMEM;
	rc_ = sc + n;
	sd = rc_ + n;
	rd = sd + n;
	/* Stable order per destination is not needed: the receiver orders by key. */
	if (pp->out.len > 1)
		qsort(pp->out.data, pp->out.len, sizeof(struct pk_msg), pp_cmp_out);
	for (size_t i = 0; i < pp->out.len; i++)
		sc[FT_VEC_AT(&pp->out, struct pk_msg, i).dst] += sz;
	MPI_Alltoall(sc, 1, MPI_INT, rc_, 1, MPI_INT, MPI_COMM_WORLD);
	for (int r = 0; r < n; r++) {
		sd[r] = r ? sd[r - 1] + sc[r - 1] : 0;
		rd[r] = total;
		total += rc_[r];
	}
	in = ft_calloc((size_t)total / (size_t)sz + 1, sizeof(*in));
	if (!in) {
		ft_free(sc);
		return FT_ENOMEM;
	}
	MPI_Alltoallv(pp->out.data, sc, sd, MPI_BYTE, in, rc_, rd, MPI_BYTE, MPI_COMM_WORLD);
	pp->out.len = 0;
	for (int i = 0; i < total / sz && rc == 0; i++) {
		struct pk_event ev = in[i].ev;

		if ((ev.aux & 15u) == PK_EV_ARRIVE) {
			uint32_t id = ft__pk_pkt_alloc(e);

			if (id == PK_NONE) {
				rc = FT_ENOMEM;
				break;
			}
			e->pkts[id] = in[i].pkt;
			ev.id = id;
			pp_path_here(e, &e->pkts[id]);
			flow_at(e, in[i].pkt.flow)->t_start_ps = in[i].t_start_ps;
			*pp_skey(e, in[i].pkt.flow) = in[i].start_key;
			*pp_scp(e, in[i].pkt.flow) = in[i].cp;
		} else if (in[i].has_cp) { /* (a PK_EV_PRED's path, in a slot of this rank) */
			int64_t arg = ft__pk_cp_arg(e, in[i].cp);

			if (arg < 0) {
				rc = (int)arg;
				break;
			}
			ev.aux = (ev.aux & 15u) | ((uint32_t)arg << 4);
		}
		rc = pk_evq_push(&e->evq, &ev);
	}
	ft_free(in);
	ft_free(sc);
	return rc;
}

static uint64_t
pp_next_t(struct pk_engine *e, int *rc)
{
	const struct pk_event *m;
	uint64_t t = UINT64_MAX, all = UINT64_MAX;

	if (e->evq.n) {
		m = pk_evq_min(&e->evq);
		if (!m)
			*rc = FT_ENOMEM;
		else
			t = m->t_ps;
	}
	MPI_Allreduce(&t, &all, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
	return all;
}

/* Rank @from's @n bytes at @src into rank 0's @buf (in chunks: counts are ints). */
static void
pp_to_root(int from, int rank, const void *src, void *buf, size_t n)
{
	const size_t chunk = (size_t)1 << 30;

	for (size_t off = 0; off < n; off += chunk) {
		int len = (int)FT_MIN(chunk, n - off);

		if (rank == from)
			MPI_Send((const char *)src + off, len, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
		else if (rank == 0)
			MPI_Recv((char *)buf + off, len, MPI_BYTE, from, 0, MPI_COMM_WORLD,
			         MPI_STATUS_IGNORE);
	}
}

/* Records that begin with a time and the tie key of the event it happened in (pk_done,
 * pk_end), in one process's order. */
static int
pp_cmp_done(const void *a, const void *b)
{
	uint64_t x[2], y[2];

	memcpy(x, a, sizeof(x));
	memcpy(y, b, sizeof(y));
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return (x[1] > y[1]) - (x[1] < y[1]);
}

/*
 * @n records of @size bytes at @mine from every rank, on rank 0 (@everyone: on every rank),
 * unsorted; their count in @count. NULL when out of memory. The counts and offsets MPI
 * takes are ints: they count records (one MPI type of @size bytes), not bytes, so a rank
 * may send up to INT_MAX records (2^31 - 1, about 100 GB of 48-byte ones), not the 44
 * million that fit in INT_MAX bytes.
 */
static void *
pp_collect(const struct pk_part *pp, const void *mine, size_t n, size_t size, bool everyone,
           size_t *count)
{
	int nr = pp->size, *cnt = ft_calloc((size_t)2 * nr + 1, sizeof(int)), *dis, my;
	size_t all = 0;
	MPI_Datatype rec;
	void *dn = NULL;

	if (!cnt)
		return NULL;
	my = (int)FT_MIN(n, (size_t)INT_MAX);
	dis = cnt + nr;
	if (everyone)
		MPI_Allgather(&my, 1, MPI_INT, cnt, 1, MPI_INT, MPI_COMM_WORLD);
	else
		MPI_Gather(&my, 1, MPI_INT, cnt, 1, MPI_INT, 0, MPI_COMM_WORLD);
	for (int r = 0; r < nr; r++) {
		dis[r] = (int)FT_MIN(all, (size_t)INT_MAX);
		all += (size_t)cnt[r];
	}
	if (n > INT_MAX || all > INT_MAX) {
		/* More records than MPI's int counts reach: no rank may wait for the rest. */
		fprintf(stderr, "fabtune: sim: rank %d: %zu records to gather (%zu here) are more "
		        "than MPI's counts reach (%d); split the run across more ranks\n",
		        pp->rank, all, n, INT_MAX);
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
	MPI_Type_contiguous((int)size, MPI_BYTE, &rec);
	MPI_Type_commit(&rec);
	dn = ft_calloc(all + 1, size);
	if (dn && everyone)
		MPI_Allgatherv(my ? mine : NULL, my, rec, dn, cnt, dis, rec, MPI_COMM_WORLD);
	else if (dn)
		MPI_Gatherv(my ? mine : NULL, my, rec, dn, cnt, dis, rec, 0, MPI_COMM_WORLD);
	MPI_Type_free(&rec);
	ft_free(cnt);
	*count = all;
	return dn;
}

/* Flow @task's path (its kept path, or its fixed links under adaptive routing,
 * pk_flow_ports()): one more flow over each of its ports (@d 1) or one less (-1). */
static void
pp_count_path(struct pk_engine *e, uint32_t task, int d)
{
	uint32_t flow = task_at(e, task)->flow, off, t;
	uint32_t n = e->fpath.len ? pk_flow_path(e, flow, &off, &t) :
	                            pk_flow_ports(flow_at(e, flow), &off);

	for (uint32_t j = 0; j < n; j++) {
		struct pk_port *p = pk_port_at(e, FT_VEC_AT(&e->paths, uint32_t, off + j));

		p->nactive = d > 0 ? p->nactive + 1 : p->nactive - 1;
		p->maxflows = FT_MAX(p->maxflows, p->nactive);
	}
}

/* Whether completion @a's flow started before @b's (time, then tie key). */
static bool
pp_started_before(const struct pk_end *dn, uint32_t a, uint32_t b)
{
	return dn[a].t_start_ps < dn[b].t_start_ps ||
	       (dn[a].t_start_ps == dn[b].t_start_ps && dn[a].start_key < dn[b].start_key);
}

/*
 * The @n completions of @dn in the order of their flows' starts, as indices: a merge sort
 * (bottom up, stable) of @idx (0 to n - 1) through @tmp, both of @n; the one that holds
 * the result.
 */
static uint32_t *
pp_sort_starts(const struct pk_end *dn, uint32_t *idx, uint32_t *tmp, size_t n)
{
	for (size_t w = 1; w < n; w *= 2) {
		uint32_t *t;

		for (size_t lo = 0; lo < n; lo += 2 * w) {
			size_t mid = FT_MIN(lo + w, n), hi = FT_MIN(lo + 2 * w, n);
			size_t a = lo, b = mid, k = lo;

			while (a < mid || b < hi)
				tmp[k++] = b == hi || (a < mid && !pp_started_before(dn, idx[b], idx[a])) ?
				                   idx[a++] :
				                   idx[b++];
		}
		t = idx;
		idx = tmp;
		tmp = t;
	}
	return idx;
}

static void
pp_take_rx_cls(struct pk_cls *to, const struct pk_cls *from)
{
	to->in_bytes = from->in_bytes;
	to->xoff_at = from->xoff_at;
	to->xoff_sent = from->xoff_sent;
	to->t_xoff_ps = from->t_xoff_ps;
	to->pause_tx = from->pause_tx;
	to->fc_freed = from->fc_freed;
	to->fc_snap = from->fc_snap;
	to->fc_until = from->fc_until;
	to->fc_flush = from->fc_flush;
	to->drops = from->drops;
	to->drops_corrupt = from->drops_corrupt;
	to->ecn_rx = from->ecn_rx;
	to->cnp_sent = from->cnp_sent;
}

/* The receiving side of port @to from @from (with its priorities, when @cls). */
static void
pp_take_rx(const struct pk_engine *e, struct pk_port *to, const struct pk_port *from,
           struct pk_cls *tc, const struct pk_cls *fc, bool cls)
{
	to->in_bytes = from->in_bytes;
	to->in_max_bytes = from->in_max_bytes;
	to->drops = from->drops;
	to->rx_pkts = from->rx_pkts;
	to->cnp_sent = from->cnp_sent;
	to->ecn_rx = from->ecn_rx;
	to->rq_oos = from->rq_oos;
	to->rq_dup = from->rq_dup;
	to->rq_writes = from->rq_writes;
	for (uint32_t c = 0; cls && c < e->ncls; c++)
		pp_take_rx_cls(&tc[c], &fc[c]);
}

/* The vertex whose owner's samples of traced port @i are right: its source. */
static uint32_t
pp_trace_port_at(const struct pk_engine *e, size_t i)
{
	return e->links[e->trace_links[i]].src;
}

/* Of traced QP @i: its sending NIC's vertex, where its reaction point's state lives. */
static uint32_t
pp_trace_qp_at(const struct pk_engine *e, size_t i)
{
	return pk_flow_src(e, e->trace_qps[i]);
}

/*
 * The first @k samples of @nt entries each in @v (three doubles an entry a sample), each
 * entry's from the rank that owns the vertex @at names, on rank 0; @v keeps @k there.
 */
static int
pp_trace_take(struct pk_engine *e, struct ft_vec *v, size_t nt, size_t k,
              uint32_t (*at)(const struct pk_engine *, size_t))
{
	struct pk_part *pp = e->part;
	size_t len = v->len * 3 * sizeof(double);
	double *buf = pp->rank == 0 ? ft_calloc(len + 1, 1) : NULL;

	if (pp->rank == 0 && !buf)
		return FT_ENOMEM;
	for (int r = 1; r < pp->size; r++) {
		pp_to_root(r, pp->rank, v->data, buf, len);
		if (pp->rank != 0)
			continue;
		for (size_t s = 0; s < k && (s + 1) * nt <= v->len; s++)
			for (size_t i = 0; i < nt; i++)
				if (pp->owner[at(e, i)] == (uint32_t)r)
					memcpy(ft_vec_at(v, s * nt + i), buf + 3 * (s * nt + i),
					       3 * sizeof(double));
	}
	ft_free(buf);
	if (pp->rank == 0)
		v->len = FT_MIN(v->len, k * nt);
	return 0;
}

/*
 * --trace: one process samples at k x interval for k = 1, 2, ... while flows are left
 * (a sample pops after every other event of its picosecond: its tie key has the highest
 * vertex), so it takes K samples, K the first with K x interval at or after the last
 * completion (@t_end). Every rank took at least those; rank 0 keeps K, each port's from the owner
 * of its source and each --trace-qps QP's from the owner of its sending NIC (the only
 * ranks whose figures for them are right), and counts K events.
 */
static int
pp_trace(struct pk_engine *e, uint64_t t_end)
{
	struct pk_part *pp = e->part;
	size_t k = 1;

	while ((uint64_t)k * e->trace_ps < t_end)
		k++;
	if (pp_trace_take(e, &e->trace_samples, e->ntrace, k, pp_trace_port_at) < 0 ||
	    pp_trace_take(e, &e->qp_samples, e->ntrace_qps, k, pp_trace_qp_at) < 0)
		return FT_ENOMEM;
	if (pp->rank == 0) {
		e->nevents += k;
		e->now_ps = FT_MAX(e->now_ps, (uint64_t)k * e->trace_ps);
	}
	return 0;
}

/*
 * Rank 0 learns which flows NCCL's window held (pk_flow held): a paced message's mark is
 * set where its pace barrier fed it, on the ranks that keep its record and ran that
 * barrier (its sender's), while the flow ends on its receiver's rank (pp_take_end reads
 * it there). A byte per flow, or'ed over the ranks. Every rank calls it.
 */
static int
pp_gather_held(struct pk_engine *e)
{
	size_t nf = pk_nflows(e);
	uint8_t *mine = ft_calloc(nf + 1, 1);
	int ok = mine != NULL, all = 0;

	if (e->part->rank == 0 && ok) {
		/* (a second run on this engine gathers afresh) */
		ft_free(e->part->held);
		e->part->held = ft_calloc(nf + 1, 1);
		ok = e->part->held != NULL;
	}
	/* (every rank goes on to the reduce or none: a rank out of memory stops them all) */
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
	if (!all) {
		ft_free(mine);
		return FT_ENOMEM;
	}
	for (size_t f = 0; f < nf; f++)
		if (pk_flow_kept(e, (uint32_t)f))
			mine[f] = flow_at(e, (uint32_t)f)->held;
	if (FT_NEVER(nf > INT_MAX)) {
		ft_free(mine);
		return FT_ERANGE;
	}
	MPI_Reduce(mine, e->part->held, (int)nf, MPI_UINT8_T, MPI_BOR, 0, MPI_COMM_WORLD);
	ft_free(mine);
	return 0;
}

/* Each op's counters, summed over the ranks on rank 0 (FCT figures come from the
 * completions); and each flow's window mark (pp_gather_held). */
static int
pp_gather_ops(struct pk_engine *e)
{
	size_t n = e->ops.len, k = 7 * n + 1;
	uint64_t *mine = ft_calloc(k, sizeof(uint64_t)), *tot = ft_calloc(k, sizeof(uint64_t));
	int rc;

	if (!mine || !tot) {
		ft_free(mine);
		ft_free(tot);
		return FT_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct ft_sim_op_counters *o = &e->op_acc[i];
		uint64_t *m = mine + 7 * i;

		m[0] = o->nflows, m[1] = o->npackets, m[2] = o->ndrops, m[3] = o->nretx;
		m[4] = o->necn, m[5] = o->ncnp, m[6] = o->bytes;
	}
	MPI_Reduce(mine, tot, (int)(7 * n), MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	ft_free(mine);
	rc = pp_gather_held(e);
	if (rc < 0) {
		ft_free(tot);
		return rc;
	}
	for (size_t i = 0; i < n && e->part->rank == 0; i++) {
		struct ft_sim_op_counters *o = &e->op_acc[i];
		const uint64_t *t = tot + 7 * i;

		o->nflows = t[0], o->npackets = t[1], o->ndrops = t[2], o->nretx = t[3];
		o->necn = t[4], o->ncnp = t[5], o->bytes = t[6];
	}
	ft_free(tot);
	return 0;
}

/* Rank 0, gathering the result: a record for every link, its own ones copied in. */
static int
pp_all_ports(struct pk_engine *e)
{
	void *pm = NULL, *cm = NULL;
	struct pk_port *ports = ft__pk_lines_alloc(e->nlinks, sizeof(*ports), &pm);
	struct pk_cls *cls =
	        ports ? ft__pk_lines_alloc((size_t)e->nlinks * e->ncls, sizeof(*cls), &cm) : NULL;

	if (!cls) {
		ft_free(pm);
		return FT_ENOMEM;
	}
	for (uint32_t l = 0; l < e->nlinks; l++) {
		if (pk_port_kept(e, l)) {
			ports[l] = *pk_port_at(e, l);
			memcpy(&cls[(size_t)l * e->ncls], pk_port_at(e, l)->cls,
			       e->ncls * sizeof(*cls));
		}
		ports[l].cls = &cls[(size_t)l * e->ncls];
	}
	ft_free(e->ports_mem);
	ft_free(e->cls_mem);
	ft_free(e->port_slot);
	e->ports_mem = pm;
	e->ports = ports;
	e->cls_mem = cm;
	e->cls_pool = cls;
	e->port_slot = NULL;
	e->nports = e->nlinks;
	return 0;
}

/* Rank @r's record of link @l (@q, its priorities @qc, its histogram bins past the first
 * @qb, NULL when it has none) into rank 0's: the sending side when @r owns its source,
 * the receiving side when @r owns its destination. */
static int
pp_merge_port(struct pk_engine *e, uint32_t l, uint32_t r, const struct pk_port *q,
              const struct pk_cls *qc, const uint64_t *qb)
{
	const struct pk_part *pp = e->part;
	struct pk_port *p = pk_port_at(e, l);
	struct pk_cls *pc = p->cls;

	if (pp->owner[e->links[l].src] == r) {
		/* The sending side: everything but the receiving side's fields. */
		struct pk_port keep = *p;

		*p = *q;
		p->cls = keep.cls;
		p->q_bins = qb ? ft__pk_qbins_new(e) : NULL;
		if (qb && !p->q_bins)
			return FT_ENOMEM;
		if (qb)
			memcpy(p->q_bins, qb, (PK_QBINS - 1) * sizeof(*qb));
		pp_take_rx(e, p, &keep, pc, pc, false);
		for (uint32_t c = 0; c < e->ncls; c++) {
			struct pk_cls k = pc[c];

			pc[c] = qc[c];
			pp_take_rx_cls(&pc[c], &k);
			/* (its queue record, with its bins, points into the piece's buffers) */
			if (qc[c].cq) {
				if (!(pc[c].cq = ft__pk_cq_new(e)))
					return FT_ENOMEM;
				*pc[c].cq = *qc[c].cq;
				if (qc[c].cq->q_bins && !(pc[c].cq->q_bins = ft__pk_qbins_new(e)))
					return FT_ENOMEM;
				if (qc[c].cq->q_bins)
					memcpy(pc[c].cq->q_bins, qc[c].cq->q_bins,
					       (PK_QBINS - 1) * sizeof(*qb));
			}
		}
	}
	if (pp->owner[e->links[l].dst] == r)
		pp_take_rx(e, p, q, pc, qc, true);
	return 0;
}

/* Records of ports (and their priorities) sent to rank 0 at a time: its buffers. */
#define PP_PIECE 1024u

/*
 * The priority queue records (struct pk_cq) of a piece's priority records @cls (@n of
 * them) to rank 0, packed in their order into @bq, then their histogram bins into @bb
 * (room for @n of each); rank 0 counts both from what it received (a record's pointers
 * are not NULL there either) and points its records at them. Only a run with several
 * priorities in use has such records.
 */
static void
pp_cq_to_root(struct pk_engine *e, int r, struct pk_cls *cls, size_t n, struct pk_cq *bq,
              uint64_t *bb)
{
	const size_t nb = PK_QBINS - 1;
	int rank = e->part->rank;
	size_t nq = 0, nbins = 0;

	for (size_t i = 0; i < n; i++) {
		if (!cls[i].cq)
			continue;
		if (rank != 0)
			bq[nq] = *cls[i].cq;
		nq++;
	}
	pp_to_root(r, rank, bq, bq, nq * sizeof(*bq));
	for (size_t i = 0; i < nq; i++) {
		if (!bq[i].q_bins)
			continue;
		if (rank != 0)
			memcpy(bb + nbins * nb, bq[i].q_bins, nb * sizeof(*bb));
		nbins++;
	}
	pp_to_root(r, rank, bb, bb, nbins * nb * sizeof(*bb));
	nq = nbins = 0;
	for (size_t i = 0; rank == 0 && i < n; i++) {
		if (!cls[i].cq)
			continue;
		cls[i].cq = &bq[nq++];
		if (cls[i].cq->q_bins)
			cls[i].cq->q_bins = bb + nb * nbins++;
	}
}

/*
 * Rank @r's port records (those it keeps, in link order, pp_keep_ports) to rank 0, in
 * pieces of PP_PIECE into @bp and @bc, each merged there before the next comes. The
 * histogram bins of the piece's ports that have them follow, packed in their order into
 * @bb (rank 0 counts them from the records: their q_bins is not NULL there either), then
 * their priorities' queue records into @bq and their bins into @bb (pp_cq_to_root).
 */
static int
pp_ports_to_root(struct pk_engine *e, int r, struct pk_port *bp, struct pk_cls *bc,
                 uint64_t *bb, struct pk_cq *bq, uint64_t *bqb)
{
	const struct pk_part *pp = e->part;
	const size_t nb = PK_QBINS - 1;
	uint32_t nr = pp->rank ? e->nports - 1 : 0, l = 0;
	int rc = 0;

	for (uint32_t m = 0; pp->rank == 0 && m < e->nlinks; m++)
		nr += pp_port_of(e, pp, m, (uint32_t)r);
	/* Out of memory on rank 0, it still takes every piece (the sender waits on each). */
	for (uint32_t off = 0; off < nr; off += PP_PIECE) {
		uint32_t k = FT_MIN(PP_PIECE, nr - off);
		size_t nbins = 0;

		pp_to_root(r, pp->rank, e->ports + off, bp, (size_t)k * sizeof(*bp));
		pp_to_root(r, pp->rank, e->cls_pool + (size_t)off * e->ncls, bc,
		           (size_t)k * e->ncls * sizeof(*bc));
		for (uint32_t i = 0; i < k; i++) {
			const struct pk_port *q = pp->rank == 0 ? &bp[i] : &e->ports[off + i];

			if (!q->q_bins)
				continue;
			if (pp->rank != 0)
				memcpy(bb + nbins * nb, q->q_bins, nb * sizeof(*bb));
			nbins++;
		}
		pp_to_root(r, pp->rank, bb, bb, nbins * nb * sizeof(*bb));
		if (e->ncls > 1)
			pp_cq_to_root(e, r,
			              pp->rank == 0 ? bc : e->cls_pool + (size_t)off * e->ncls,
			              (size_t)k * e->ncls, bq, bqb);
		nbins = 0;
		for (uint32_t i = 0; pp->rank == 0 && i < k; i++, l++) {
			const uint64_t *qb = bp[i].q_bins ? bb + nb * nbins++ : NULL;

			while (!pp_port_of(e, pp, l, (uint32_t)r))
				l++;
			if (rc == 0)
				rc = pp_merge_port(e, l, (uint32_t)r, &bp[i],
				                   &bc[(size_t)i * e->ncls], qb);
		}
	}
	return rc;
}

/*
 * Flow task @t, of which this rank keeps no record, ended at @t_ps (its completion): its
 * leaf barriers wait for it no more, start no earlier and take its path latency.
 */
static void
pp_leaf_done(struct pk_engine *e, uint32_t t, uint64_t t_ps)
{
	const struct pk_task *k = task_at(e, t);
	uint32_t off = k->succ_off, n = k->nsucc, flow = k->flow; /* (k: the spare) */

	for (uint32_t j = 0; j < n; j++) {
		uint32_t u = e->succ[off + j];
		struct pk_task *b;

		if (e->part->task_kind[u] != PP_LEAF)
			continue;
		b = task_at(e, u);
		b->npred--;
		b->t_start_ps = FT_MAX(b->t_start_ps, t_ps);
		b->pred_lat_ps = FT_MAX(b->pred_lat_ps, pk_flow_lat(e, flow));
	}
}

/* Completions a rank sends rank 0 at a time (48 bytes each), for each of its two orders. */
#define PP_ENDS_PIECE 4096u
#define PP_TAG_ENDS   1

/* This rank's completions in the two orders rank 0 merges: by end and by start. */
struct pp_own {
	const struct pk_end *dn;
	const uint32_t *by_start; /* indices into dn */
	size_t n;
};

/* Completion @i of @o in the order of ends (@starts false) or of starts. */
static const struct pk_end *
pp_own_at(const struct pp_own *o, bool starts, size_t i)
{
	return &o->dn[starts ? o->by_start[i] : i];
}

/* Rank 0's pull (ft__pk_part_merge): its own records from memory, the others' asked for. */
struct pp_pull {
	const struct pp_own *own;
};

static void
pp_pull_rank(void *ctx, int src, bool starts, size_t off, struct pk_end *buf, size_t n)
{
	const struct pp_pull *p = ctx;
	uint64_t req[3] = { starts, off, n };

	if (src == 0) {
		for (size_t i = 0; i < n; i++)
			buf[i] = *pp_own_at(p->own, starts, off + i);
		return;
	}
	MPI_Send(req, 3, MPI_UINT64_T, src, PP_TAG_ENDS, MPI_COMM_WORLD);
	MPI_Recv(buf, (int)(n * sizeof(*buf)), MPI_BYTE, src, PP_TAG_ENDS, MPI_COMM_WORLD,
	         MPI_STATUS_IGNORE);
}

/* A rank other than 0: its pieces as rank 0 asks for them, until it asks for none. */
static int
pp_serve_ends(const struct pp_own *own)
{
	struct pk_end *buf = ft_calloc(PP_ENDS_PIECE, sizeof(*buf));

	for (;;) {
		uint64_t req[3];

		MPI_Recv(req, 3, MPI_UINT64_T, 0, PP_TAG_ENDS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (req[0] > 1)
			break;
		for (size_t i = 0; buf && i < req[2]; i++)
			buf[i] = *pp_own_at(own, req[0] != 0, req[1] + i);
		if (!buf) /* (rank 0 waits for the bytes: a rank out of memory stops them all) */
			MPI_Abort(MPI_COMM_WORLD, 3);
		MPI_Send(buf, (int)(req[2] * sizeof(*buf)), MPI_BYTE, 0, PP_TAG_ENDS,
		         MPI_COMM_WORLD);
	}
	ft_free(buf);
	return 0;
}

/* Rank 0 takes each completion of the merge in one process's order. */
struct pp_take {
	struct pk_engine *e;
	size_t i; /* ends taken */
};

/*
 * A flow's start or end: one more or one less flow over each port of its path (the most
 * each port carried at once, counted again here: a flow started by another starts on its
 * source's rank alone, and ends on its receiver's rank alone); at its end, its FCT, and
 * its task done (or its leaf barriers told, where rank 0 keeps no record of it).
 */
static int
pp_take_end(void *ctx, const struct pk_end *d, bool end)
{
	struct pp_take *c = ctx;
	struct pk_engine *e = c->e;
	struct pk_task *k;
	size_t i = c->i;

	pp_count_path(e, d->task, end ? -1 : 1);
	if (!end)
		return 0;
	if (FT_NEVER(i >= e->nflows_done || i >= e->nfct))
		return FT_ERANGE;
	k = task_at(e, d->task);
	e->fct[i] = (double)(d->t_ps - d->t_start_ps) / PK_PS_PER_S;
	e->ideal[i] = d->ideal;
	e->fct_prio[i] = (uint8_t)d->prio;
	if (e->fct_op)
		e->fct_op[i] = k->op;
	/* its op's last end and whether the window held that flow, as one process marks
	 * them (pkt_flow.c ft__pk_flow_done()): the merge takes the ends in its order */
	if (k->op < e->ops.len) {
		struct pk_op *o = ft_vec_at(&e->ops, k->op);
		bool held = e->part->held[pk_task_flow(e, d->task)] != 0;

		if (d->t_ps >= o->last_end_ps) {
			o->last_end_ps = d->t_ps;
			o->last_held = held && !o->coll;
			o->cp = d->cp; /* (its critical path, pkt_report.c crit_pace()) */
		}
	}
	if (pk_task_far_id(e, d->task))
		pp_leaf_done(e, d->task, d->t_ps);
	else
		k->done = 1, k->t_done_ps = d->t_ps;
	c->i++;
	return 0;
}

/*
 * This rank's completions in order of their ends (as they happened: sorted only if not)
 * and, as indices in @o, of their flows' starts; @mem holds the indices.
 */
static int
pp_own_sort(struct pk_part *pp, struct pp_own *o, uint32_t **mem)
{
	struct pk_end *dn = pp->ends.data;
	size_t n = pp->ends.len;

	if (FT_NEVER(n >= UINT32_MAX))
		return FT_ERANGE;
	for (size_t i = 1; i < n; i++) {
		if (pp_cmp_done(&dn[i - 1], &dn[i]) > 0) {
			qsort(dn, n, sizeof(*dn), pp_cmp_done);
			break;
		}
	}
	*mem = ft_calloc(2 * n + 1, sizeof(uint32_t));
	if (!*mem)
		return FT_ENOMEM;
	for (size_t k = 0; k < n; k++)
		(*mem)[k] = (uint32_t)k;
	o->dn = dn;
	o->n = n;
	o->by_start = n ? pp_sort_starts(dn, *mem, *mem + n, n) : *mem;
	return 0;
}

/* Rank 0 gets the whole result (see the top of the file); the others only sum in. */
static int
pp_gather(struct pk_engine *e)
{
	struct pk_part *pp = e->part;
	uint64_t sums[] = { e->nevents,         e->npackets,     e->ndrops,     e->nretx,
		              e->npause,          e->necn,         e->ncnp,       e->nwdog,
		              e->bytes_delivered, pp->ntrace_ev,   e->nic_msgs,   e->nic_missed,
		              e->nic_wait_ps,     e->nwd_restores, e->nwd_drops,  e->ntcp_fast,
		              e->nsrd_probes,     e->ntcp_sack,    e->ntcp_delack, e->ntcp_rto,
		              /* (ft__pk_tcp_counters(), below) */
		              0, 0, 0, 0, 0 };
	uint64_t *tcp_ctr = sums + FT_ARRAY_SIZE(sums) - PK_TCP_NCTR;
	static_assert(FT_ARRAY_SIZE(sums) == 20 + PK_TCP_NCTR, "a zero for each TCP counter");
	uint64_t tot[FT_ARRAY_SIZE(sums)] = { 0 }, now = e->now_ps;
	struct pk_port *bp;
	struct pk_cls *bc;
	uint64_t *bsw, *bb, *bqb;
	struct pk_cq *bq;
	int n = pp->size, rc = 0;
	uint64_t t_end = 0, my, *cnt;
	uint32_t *mem = NULL;
	struct pp_own own;

	if (pp->rank == 0 && pp_all_ports(e) < 0)
		return FT_ENOMEM;
	/* (widened for the report alone: it frees them once its counters are filled) */
	e->drop_ports = pp->rank == 0;
	bp = ft_calloc(PP_PIECE, sizeof(*bp));
	bc = ft_calloc((size_t)PP_PIECE * e->ncls, sizeof(*bc));
	bb = ft_calloc((size_t)PP_PIECE * (PK_QBINS - 1), sizeof(*bb));
	bsw = ft_calloc((size_t)e->nvertices + 1, sizeof(uint64_t));
	/* (priority queue records exist only where a port had several priorities queue) */
	bq = e->ncls > 1 ? ft_calloc((size_t)PP_PIECE * e->ncls, sizeof(*bq)) : NULL;
	bqb = e->ncls > 1 ? ft_calloc((size_t)PP_PIECE * e->ncls * (PK_QBINS - 1), sizeof(*bqb)) :
	                    NULL;
	if (!bp || !bc || !bb || !bsw || (e->ncls > 1 && (!bq || !bqb))) {
		ft_free(bp);
		ft_free(bc);
		ft_free(bb);
		ft_free(bsw);
		ft_free(bq);
		ft_free(bqb);
		return FT_ENOMEM;
	}
	ft__pk_tcp_counters(e, tcp_ctr); /* (each connection's, on its sender's rank) */
	MPI_Reduce(sums, tot, (int)FT_ARRAY_SIZE(sums), MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	rc = pp_gather_ops(e);
	if (rc < 0) {
		ft_free(bp);
		ft_free(bc);
		ft_free(bb);
		ft_free(bsw);
		ft_free(bq);
		ft_free(bqb);
		return rc;
	}
	MPI_Reduce(e->ntrace ? &pp->t_last_ps : &e->now_ps, &now, 1, MPI_UINT64_T, MPI_MAX, 0,
	           MPI_COMM_WORLD);
	/* Root barriers were handled on every rank: one process handles them once; trace
	 * samples are counted apart (pp_trace). */
	e->nevents = tot[0] - tot[9] - (uint64_t)(n - 1) * pp->nroot;
	e->npackets = tot[1];
	e->ndrops = tot[2];
	e->nretx = tot[3];
	e->ntcp_fast = tot[15]; /* (each sender's, on its rank) */
	e->nsrd_probes = tot[16];
	e->ntcp_sack = tot[17];
	e->ntcp_delack = tot[18];
	e->ntcp_rto = tot[19];
	memcpy(e->tcp_ctr, tot + FT_ARRAY_SIZE(sums) - PK_TCP_NCTR, sizeof(e->tcp_ctr));
	e->tcp_ctr_all = true;
	e->npause = tot[4];
	e->necn = tot[5];
	e->ncnp = tot[6];
	e->nwdog = tot[7];
	e->bytes_delivered = tot[8];
	e->nic_msgs = tot[10]; /* each NIC's pipeline runs on its owner's rank */
	e->nic_missed = tot[11];
	e->nic_wait_ps = tot[12];
	e->nwd_restores = tot[13];
	e->nwd_drops = tot[14];
	e->now_ps = now;
	for (int r = 1; r < n; r++) {
		if (pp_ports_to_root(e, r, bp, bc, bb, bq, bqb) < 0)
			rc = FT_ENOMEM;
		pp_to_root(r, pp->rank, e->sw_used, bsw, (size_t)e->nvertices * sizeof(uint64_t));
		if (pp->rank != 0)
			continue;
		for (uint32_t v = 0; v < e->nvertices; v++)
			if (pp->owner[v] == (uint32_t)r)
				e->sw_used[v] = bsw[v];
	}
	ft_free(bp);
	ft_free(bc);
	ft_free(bb);
	ft_free(bsw);
	ft_free(bq);
	ft_free(bqb);
	if (rc < 0)
		return rc;
	/* The completions, in one process's order: each rank sorts its own, and rank 0
	 * merges them a piece at a time (it keeps none of the others'). */
	cnt = ft_calloc((size_t)n + 1, sizeof(*cnt));
	if (!cnt || pp_own_sort(pp, &own, &mem) < 0) {
		/* (the others would wait for this rank's records) */
		fprintf(stderr, "fabtune: sim: rank %d: out of memory gathering completions\n",
		        pp->rank);
		MPI_Abort(MPI_COMM_WORLD, 3);
	}
	for (size_t i = 0; i < own.n; i++)
		t_end = FT_MAX(t_end, own.dn[i].t_ps);
	my = own.n;
	MPI_Allreduce(MPI_IN_PLACE, &t_end, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
	MPI_Gather(&my, 1, MPI_UINT64_T, cnt, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	/* Every rank knows how many flows finished (a stalled run fails on all of them). */
	MPI_Allreduce(&my, &e->nflows_done, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	if (e->ntrace && pp_trace(e, t_end) < 0) {
		ft_free(mem);
		ft_free(cnt);
		return FT_ENOMEM;
	}
	if (pp->rank != 0) {
		rc = pp_serve_ends(&own);
		ft_free(mem);
		ft_free(cnt);
		ft_vec_release(&pp->ends);
		return rc;
	}
	for (uint32_t l = 0; l < e->nlinks; l++)
		pk_port_at(e, l)->nactive = pk_port_at(e, l)->maxflows = 0;
	/* (each op's last end, marked again from every rank's completions: pp_take_end) */
	for (size_t i = 0; i < e->ops.len; i++) {
		struct pk_op *o = ft_vec_at(&e->ops, i);

		o->last_end_ps = 0, o->last_held = false;
	}
	/* Leaf barriers: started by their last flow, done after their wait (task_done and
	 * start_task in one process). */
	for (size_t i = 0; i < pk_ntasks(e); i++) {
		if (pp->task_kind[i] == PP_LEAF) {
			struct pk_task *b = task_at(e, (uint32_t)i);

			b->npred = 0, b->t_start_ps = 0, b->pred_lat_ps = 0;
		}
	}
	/* A flow's task this rank keeps no record of is done where its completion says:
	 * each of its leaf barriers waits for it until then. */
	pk_task_flush(e);
	for (size_t i = 0; i < e->tfar.len; i++) {
		const struct pk_tfar *r = &FT_VEC_AT(&e->tfar, struct pk_tfar, i);

		for (uint32_t j = 0; j < r->nsucc; j++)
			if (pp->task_kind[e->succ[r->succ_off + j]] == PP_LEAF)
				task_at(e, e->succ[r->succ_off + j])->npred++;
	}
	{
		struct pp_pull pull = { &own };
		struct pp_take take = { e, 0 };
		uint64_t stop[3] = { 2, 0, 0 };

		static_assert(sizeof(size_t) == sizeof(uint64_t), "counts as size_t");
		rc = ft__pk_part_merge(n, (const size_t *)cnt, PP_ENDS_PIECE, pp_pull_rank, &pull, pp_take_end,
		                       &take);
		for (int r = 1; r < n; r++)
			MPI_Send(stop, 3, MPI_UINT64_T, r, PP_TAG_ENDS, MPI_COMM_WORLD);
	}
	ft_free(mem);
	ft_free(cnt);
	ft_vec_release(&pp->ends);
	if (rc < 0)
		return rc;
	/* (From the successor lists: the edges are gone, ft__pk_start.) */
	for (size_t i = 0; i < pk_ntasks(e); i++) {
		const struct pk_task *a;

		if (pk_task_far_id(e, (uint32_t)i))
			continue; /* (above) */
		a = task_at(e, (uint32_t)i);
		for (uint32_t j = 0; j < a->nsucc; j++) {
			uint32_t u = e->succ[a->succ_off + j];
			struct pk_task *b;

			if (pp->task_kind[u] != PP_LEAF)
				continue;
			b = task_at(e, u); /* (a barrier: its own record on every rank) */
			if (!a->done) {
				b->npred++;
				continue;
			}
			b->t_start_ps = FT_MAX(b->t_start_ps, a->t_done_ps);
			if (a->kind == PK_T_FLOW) /* a barrier passes no path latency on */
				b->pred_lat_ps = FT_MAX(b->pred_lat_ps, pk_flow_lat(e, a->flow));
		}
	}
	for (size_t i = 0; i < pk_ntasks(e); i++) {
		struct pk_task *b;

		if (pp->task_kind[i] != PP_LEAF || (b = task_at(e, (uint32_t)i))->npred)
			continue;
		b->t_done_ps = b->t_start_ps + b->delay_ps +
		               (uint64_t)(b->lat_mult * (double)b->pred_lat_ps);
		b->done = 1;
		e->nevents++;
		e->now_ps = FT_MAX(e->now_ps, b->t_done_ps);
	}
	return 0;
}

/*
 * The window's completions from every rank, in one process's order: each tells the
 * middle barriers after its flow, on every rank, what task_done tells them in one
 * process, with its receiver's keys (ft__pk_part_flow_done kept them); they fire no
 * earlier than the next window (pp_check_wait).
 */
static int
pp_replay(struct pk_engine *e)
{
	struct pk_part *pp = e->part;
	uint64_t now = e->now_ps;
	uint32_t origin = e->origin;
	struct pk_cp cp = e->cp;
	size_t ndone;
	struct pk_done *dn = pp_collect(pp, pp->done.len ? pp->done.data : NULL, pp->done.len,
	                                sizeof(*dn), true, &ndone);
	int rc = 0;

	if (!dn)
		return FT_ENOMEM;
	pp->done.len = 0; /* swapped: every rank has them now */
	qsort(dn, ndone, sizeof(*dn), pp_cmp_done);
	for (size_t i = 0; i < ndone && rc == 0; i++) {
		const struct pk_done *d = &dn[i];
		struct pk_task *k = task_at(e, d->task);
		uint64_t keep = e->vseq[d->origin];
		/* (copied: on a rank that keeps no record of the flow's task, k is the spare) */
		uint32_t off = k->succ_off, nsucc = k->nsucc;

		k->done = 1;
		k->t_done_ps = d->t_ps;
		e->now_ps = d->t_ps;
		e->origin = d->origin;
		e->vseq[d->origin] = d->vbase;
		e->cp = d->cp; /* (the path its end tells them, pkt_flow.c task_done()) */
		for (uint32_t j = 0; j < nsucc && rc == 0; j++) {
			uint32_t u = e->succ[off + j];
			const struct pk_task *b;
			uint64_t wait;

			if (pp->task_kind[u] != PP_MID)
				continue;
			b = task_at(e, u);
			wait = b->delay_ps +
			       (uint64_t)(b->lat_mult * (double)FT_MAX(b->pred_lat_ps, d->lat_ps));
			/* It fires in a window already run: the lookahead would be wrong. */
			if (FT_NEVER(b->npred == 1 && d->t_ps + wait < pp->end_ps))
				rc = FT_EINVAL;
			else
				rc = ft__pk_pred_done(e, u, d->lat_ps);
		}
		e->vseq[d->origin] = keep;
	}
	e->now_ps = now;
	e->origin = origin;
	e->cp = cp;
	ft_free(dn);
	return rc;
}

int
ft__pk_part_run(struct pk_engine *e)
{
	int rc = 0, all;
	uint64_t t = pp_next_t(e, &rc);

	while (t != UINT64_MAX) {
		uint64_t end = t + e->part->lookahead_ps;

		e->part->end_ps = end;
		while (rc == 0 && e->evq.n) {
			const struct pk_event *m = pk_evq_min(&e->evq);

			if (!m) {
				rc = FT_ENOMEM;
				break;
			}
			if (m->t_ps >= end)
				break;
			if ((m->aux & 15u) == PK_EV_TRACE)
				e->part->ntrace_ev++;
			else
				e->part->t_last_ps = m->t_ps;
			rc = ft__pk_step(e);
		}
		/* A failure anywhere stops every rank at the same window. */
		MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
		if (all < 0)
			return rc < 0 ? rc : FT_EMPI;
		rc = pp_exchange(e);
		if (rc == 0 && e->part->nmid)
			rc = pp_replay(e);
		if (rc < 0)
			return rc;
		if (e->ntrace) {
			uint64_t mine = e->part->ends.len;

			MPI_Allreduce(&mine, &e->part->ndone_all, 1, MPI_UINT64_T, MPI_SUM,
			              MPI_COMM_WORLD);
		}
		t = pp_next_t(e, &rc);
		if (rc < 0)
			return rc;
	}
	return pp_gather(e);
}
#else
int
ft__pk_part_run(struct pk_engine *e)
{
	(void)e;
	return FT_EINVAL;
}
#endif

/* SPDX-License-Identifier: MIT */
/*
 * sim/pkt_flow.c - the packet engine's task graph and flows, once per task or flow: a
 * task starts when its predecessors are done (a barrier after its wait, a flow at
 * once, a lazy all-to-all phase by building its first sends) and, once done, tells
 * its successors; a flow is routed (its path, path latency and ideal time), counted
 * on the ports it crosses, handed to its first port to send, and when its receiver
 * has every packet, its completion time is recorded and its task is done.
 *
 * What runs per packet (sending, queues, flow control, receiving) is engine_packet.c;
 * it calls in here when a flow's last packet arrives and when a barrier's wait ends.
 */
#include "pkt_int.h"

#include <math.h>

/* ---- tasks ---------------------------------------------------------------- */

static int start_flow(struct pk_engine *e, uint32_t fid);

static int
start_task(struct pk_engine *e, uint32_t t)
{
	struct pk_task *k = task_at(e, t);

	k->t_start_ps = e->now_ps;
	k->cp = e->cp; /* (the path of the wait that was over last: this one) */
	if (k->kind == PK_T_FLOW)
		return start_flow(e, k->flow);
	if (k->kind == PK_T_A2A)
		return ft__pk_lazy_start(e, t);
	if (k->kind == PK_T_TREE)
		return ft__pk_tree_start(e, t);
	return ev_push(e,
	               e->now_ps + k->delay_ps + (uint64_t)(k->lat_mult * (double)k->pred_lat_ps),
	               PK_EV_TASK, t, 0);
}

int64_t
ft__pk_cp_arg(struct pk_engine *e, struct pk_cp cp)
{
	uint32_t slot;

	if (e->cp_free.len) {
		slot = FT_VEC_AT(&e->cp_free, uint32_t, --e->cp_free.len);
		FT_VEC_AT(&e->cp_ev, struct pk_cp, slot) = cp;
	} else {
		slot = (uint32_t)e->cp_ev.len;
		/* (the slots are those of events under way: far fewer than an argument holds;
		 * ft__pk_run() reports the message) */
		if (slot + 1 >= PK_CP_SLOTS)
			return ft_error_set(&e->route_err, FT_ERANGE,
			                    "sim: packet engine: more than %u waits under way at "
			                    "once carry a critical path (an event's argument holds "
			                    "%d bits, ev_push())",
			                    PK_CP_SLOTS - 1, 28);
		/* (the free list holds every slot at most: its room reserved with each) */
		if (ft_vec_reserve(&e->cp_free, slot + 1 - e->cp_free.len) < 0 ||
		    ft_vec_push(&e->cp_ev, &cp) < 0)
			return FT_ENOMEM;
	}
	return (int64_t)slot + 1;
}

bool
ft__pk_cp_out(struct pk_engine *e, uint32_t arg, struct pk_cp *cp)
{
	if (arg == 0 || FT_NEVER(arg > e->cp_ev.len))
		return false;
	*cp = FT_VEC_AT(&e->cp_ev, struct pk_cp, arg - 1);
	/* (room reserved with the slot, ft__pk_cp_arg()) */
	FT_VEC_AT(&e->cp_free, uint32_t, e->cp_free.len++) = arg - 1;
	return true;
}

void
ft__pk_cp_take(struct pk_engine *e, uint32_t arg)
{
	ft__pk_cp_out(e, arg, &e->cp);
}

/* A predecessor of task @u is done now (a flow's passes its path latency @lat_ps on). */
int
ft__pk_pred_done(struct pk_engine *e, uint32_t u, uint64_t lat_ps)
{
	struct pk_task *s;

	if (u >= PK_VIRT) /* a lazy phase's task, not built yet */
		return ft__pk_tree_pred(e, u, lat_ps);
	s = task_at(e, u);

	s->pred_lat_ps = FT_MAX(s->pred_lat_ps, lat_ps);
	if (FT_NEVER(s->npred == 0) || --s->npred > 0)
		return 0;
	return start_task(e, u);
}

/*
 * Flow @fid is done at its receiver and task @u, a flow, waited for it: a flow that leaves
 * the receiver starts now (NCCL forwards what has arrived); one that leaves another vertex
 * (the sender, whose message `slots` on waits for the receiver's free slot) learns of it
 * one path latency later, when the receiver's clear-to-send reaches it. That delay is what
 * lets a run split across MPI ranks carry it as a message (pkt_part.c).
 */
static int
flow_feeds(struct pk_engine *e, uint32_t fid, uint32_t u)
{
	const struct pk_flow *f = flow_at(e, fid);
	struct pk_cp cp = e->cp;
	int64_t arg;

	if (pk_flow_src(e, task_at(e, u)->flow) == f->dst)
		return ft__pk_pred_done(e, u, f->lat_ps);
	cp.chain_ps += f->lat_ps; /* (the clear-to-send's way back: the chain's) */
	arg = ft__pk_cp_arg(e, cp);
	return arg < 0 ? (int)arg : ev_push(e, e->now_ps + f->lat_ps, PK_EV_PRED, u, (uint32_t)arg);
}

/* A barrier (or a task that is no flow) is done and task @u waited for it: a paced message
 * (struct pk_flow paced) whose last wait it was is held by NCCL's window (its pace). */
static int
barrier_feeds(struct pk_engine *e, uint32_t u, uint64_t lat_ps)
{
	if (u < PK_VIRT && task_at(e, u)->kind == PK_T_FLOW && task_at(e, u)->npred == 1 &&
	    pk_flow_kept(e, task_at(e, u)->flow)) {
		struct pk_flow *f = flow_at(e, task_at(e, u)->flow);

		f->held = f->paced;
	}
	return ft__pk_pred_done(e, u, lat_ps);
}

static int
task_done(struct pk_engine *e, uint32_t t, uint64_t lat_ps)
{
	struct pk_task *k;
	uint32_t i, u;
	bool flow;
	int rc;

	if (t >= PK_VIRT) /* a lazy phase's barrier: a QP's next message may go */
		return ft__pk_tree_sent(e, t);
	k = task_at(e, t);
	flow = k->kind == PK_T_FLOW;
	k->done = 1;
	k->t_done_ps = e->now_ps;
	/* the critical path of what it ends: its own, and its message's time or its pace (a
	 * split run's receiver has the message's start from its sender, pk_flow_cp0()) */
	if (flow) {
		const struct pk_flow *f = flow_at(e, k->flow);

		e->cp = pk_flow_cp0(e, f);
		pk_cp_msg(e, &e->cp, f, e->now_ps - (e->part ? f->t_start_ps : k->t_start_ps));
	} else {
		e->cp = k->cp;
		if (k->pace)
			e->cp.pace_ps += e->now_ps - k->t_start_ps;
	}
	if (k->lazy) /* its successors are not built: the tree names them */
		return ft__pk_tree_done(e, t, lat_ps);
	/* (A successor's start may build lazy sends, moving the tasks: @k is read anew.) */
	for (i = 0; i < (k = task_at(e, t))->nsucc; i++) {
		u = e->succ[k->succ_off + i];
		if (flow && task_at(e, u)->kind == PK_T_FLOW)
			rc = flow_feeds(e, k->flow, u);
		else if (flow && e->part)
			continue; /* told on every rank at the window's end (pkt_part.c) */
		else
			rc = barrier_feeds(e, u, lat_ps);
		if (rc < 0)
			return rc;
	}
	if (k->kind == PK_T_A2A_CTS)
		return ft__pk_lazy_notice(e, t);
	return k->kind == PK_T_A2A_END ? ft__pk_lazy_end(e, t) : 0;
}

int
ft__pk_start_task(struct pk_engine *e, uint32_t t)
{
	return start_task(e, t);
}

/* A barrier's wait is over, or, when @t is a flow's, the message before it on its QP has
 * left the NIC (pk_flow_sent): one wait less, as that barrier's end once told it. */
int
ft__pk_task_done(struct pk_engine *e, uint32_t t)
{
	if (t < PK_VIRT && task_at(e, t)->kind == PK_T_FLOW)
		return ft__pk_pred_done(e, t, 0);
	return task_done(e, t, 0);
}

/* ---- flows ---------------------------------------------------------------- */

/*
 * Adaptive routing's path at a flow's start (its first link, its latency for the
 * notifications that travel back and its ideal time): the equal-cost port by hash alone,
 * as the least-queued choice is among ports all empty. Reading the queues of every hop
 * there would read other MPI ranks' ports in a split run (pkt_part.c); the packets
 * themselves then choose per hop, by the queues of the switch they are at.
 */
static uint32_t
choose_by_hash(void *ud, uint32_t at, const uint32_t *links, uint32_t n)
{
	const struct choose_ctx *c = ud;

	(void)links;
	return (uint32_t)(ft_mix64(c->hash ^ at) % n);
}

/* Whether flow @f joins GPUs of two nodes of one NVLink domain (GB200 NVL72: its path
 * is the two GPUs' NVLink ports, ft__sim_route_nvlink_domain). */
static bool
nvlink_domain_flow(const struct pk_engine *e, const struct pk_flow *f)
{
	return ft__sim_nvlink_peers(e->topo, f->src, f->dst);
}

/*
 * Whether flow @f goes to or comes from the switch that reduces in the network (CollNet /
 * SHARP, NVLS across nodes: flow_route.c route_innet()): its path is its host's links and
 * its NIC's host link into that switch, the first one, so no switch of the fabric chooses
 * along it (kb IB-AR: the AR group is a switch's). It is kept whole under adaptive
 * routing: no hop-by-hop route leads to a switch (topo/route.c next_hops() takes GPUs,
 * NICs and in-node vertices).
 */
static bool
innet_flow(const struct pk_engine *e, const struct pk_flow *f)
{
	return ft_topo_vertex(e->topo, f->src)->kind == FT_V_SWITCH ||
	       ft_topo_vertex(e->topo, f->dst)->kind == FT_V_SWITCH;
}

/*
 * Adaptive routing with flowlets, decided at each switch (as switches that balance
 * flowlets do: the port a flow's packets leave by is chosen by the switch that owns it,
 * from its own queues): flowlet n of a QP is its packets from byte n x flowlet_bytes on.
 * The first of its packets to reach a hop picks the least-queued equal-cost port there
 * and the flowlet's later packets follow it. The choices are kept per flow, one row of
 * its path's length per flowlet (its first @fixed links are the flow's), PK_NONE until
 * chosen; the rows are laid out when the flow is routed, so that in a run split across
 * MPI ranks every rank has them at the same place and the owner of each hop fills its
 * own. Without flowlets (any flow between nodes under per-packet adaptive routing, its
 * host links fixed: host_fixed()) there is one row,
 * whose PK_NONE hops each packet chooses for itself (engine_packet.c next_link()).
 */
static int
flowlet_room(struct pk_engine *e, struct pk_flow *f, const struct ft_path *path, uint32_t fixed)
{
	uint64_t nfl = e->cfg.flowlet_bytes ?
	                       ((uint64_t)(f->npkts ? f->npkts - 1 : 0) * e->mtu) /
	                                       e->cfg.flowlet_bytes + 1 :
	                       1;
	uint64_t n = nfl * path->nlinks;
	uint32_t *row;

	if (n >= UINT32_MAX || e->paths.len + n >= UINT32_MAX)
		return FT_ERANGE;
	if (f->fl_off == PK_NONE || f->fl_cap < n) {
		if (ft_vec_reserve(&e->paths, (size_t)n) < 0)
			return FT_ENOMEM;
		f->fl_off = (uint32_t)e->paths.len;
		f->fl_cap = (uint32_t)n;
		e->paths.len += (size_t)n;
	}
	f->fl_hops = (uint8_t)path->nlinks;
	f->fl_fixed = (uint8_t)fixed;
	/* The first row, then each flowlet's a copy of it. */
	row = &FT_VEC_AT(&e->paths, uint32_t, f->fl_off);
	memcpy(row, path->links, fixed * sizeof(uint32_t));
	for (uint32_t i = fixed; i < path->nlinks; i++)
		row[i] = PK_NONE;
	for (uint64_t i = path->nlinks; i < n; i += path->nlinks)
		memcpy(row + i, row, path->nlinks * sizeof(uint32_t));
	return 0;
}

/*
 * How many of flow @f's first links (@path; a PXN flow's through its proxy) stay fixed
 * under adaptive routing: those inside the sending host (GPU, PCIe switch, a PXN send's
 * NVLink leg to its proxy) and the NIC's port onto the fabric (nic_link), as the host
 * and NCCL chose them. Adaptive routing is the fabric switches' own: each picks its
 * output port per packet (or flowlet) whatever port the packet came in by (kb IB-AR;
 * Spectrum-X); no switch of the fabric moves a QP to another NIC of its host. The
 * switches choose from there on. 0 when the path has no NIC port onto the fabric (it
 * stays inside a node) or ends there.
 */
static uint32_t
host_fixed(const struct pk_flow *f, const struct ft_path *path)
{
	for (uint32_t j = 0; j < path->nlinks; j++)
		if (path->links[j] == f->nic_link)
			return j + 1 < path->nlinks ? j + 1 : 0;
	return 0;
}

/*
 * The topology as if every link were up (those scaled keep their scale), built once:
 * where links are down and a flow has no live path, it is routed there, so that it
 * sends into the dead link as a QP whose path failed does.
 */
static int
topo_up(struct pk_engine *e, struct ft_error *err)
{
	struct ft_topo *t = NULL;
	int rc;

	if (e->topo_up)
		return 0;
	rc = ft_topo_build(ft_topo_spec(e->topo), &t, err);
	for (uint32_t l = 0; rc == 0 && l < e->nlinks; l++) {
		double s = ft_topo_link_scale(e->topo, l);

		if (s > 0 && s != 1.0)
			rc = ft_topo_set_link_scale(t, l, s);
	}
	if (rc == 0 && ft_topo_nlinks(t) != e->nlinks)
		rc = ft_error_set(err, FT_EINVAL, "sim: the topology rebuilt has other links");
	if (rc < 0) {
		ft_topo_free(t);
		return rc;
	}
	e->topo_up = t;
	return 0;
}

/*
 * A flow from @src to @dst found no live path (@err says why): its path as if the links
 * down were up, when all it crosses down is host and fabric links (a QP's transport
 * times out there); else the first error stands.
 */
static int
route_dead(struct pk_engine *e, uint32_t src, uint32_t dst, uint32_t qp, struct choose_ctx *cc,
           struct ft_path *path, struct ft_error *err)
{
	struct ft_sim_cfg cfg = e->cfg;
	struct ft_error up_err = { 0 };
	int rc;

	if (!e->ndown || err->code != FT_ENOENT || topo_up(e, &up_err) < 0)
		return err->code;
	cfg.routing = cfg.routing == FT_ROUTING_ADAPTIVE ? FT_ROUTING_ECMP : cfg.routing;
	rc = ft__sim_route(e->topo_up, &cfg, src, dst, qp, choose_by_hash, cc, path, &up_err);
	if (rc < 0)
		return err->code;
	for (uint32_t j = 0; j < path->nlinks; j++)
		if (!(ft_topo_link_scale(e->topo, path->links[j]) > 0) &&
		    !e->links[path->links[j]].down)
			return err->code;
	return 0;
}

/* The packet engine's one leg of a route (ft__sim_leg_fn): hashed by @ud's choose_ctx, and,
 * where no live path is left, route_dead()'s. */
static int
pk_leg(void *ud, uint32_t a, uint32_t b, uint32_t qp, struct ft_path *path, struct ft_error *err)
{
	struct choose_ctx *cc = ud;
	int rc = ft__sim_route(cc->e->topo, &cc->e->cfg, a, b, qp, choose_by_hash, cc, path, err);

	return rc < 0 ? route_dead(cc->e, a, b, qp, cc, path, err) : rc;
}

/*
 * The path of a flow from @src to @dst on QP @fqp through its PXN proxy @via
 * (ft__sim_pxn_proxy_in()): its source to the
 * proxy over NVLink, then the proxy's route to the receiver (the proxy's NIC, the
 * receiver's rail), as the flow engine routes a PXN send (engine_flow.c pxn_path()): one
 * flow over both legs, since NCCL's proxy forwards each chunk as it lands. The proxy's
 * leg hashes as a QP of its own per sender (NCCL's proxy connects per peer and channel),
 * on the same NIC lane. A flow that leaves by another NIC than its GPU's (struct pk_flow nic)
 * takes the same two legs with that NIC as @via: its GPU's path to it, then its route.
 * Into @path; FT_ERANGE past FT_PATH_MAX links.
 */
static int
route_via(struct pk_engine *e, uint32_t src, uint32_t dst, uint32_t fqp, uint32_t via,
          struct choose_ctx *cc, struct ft_path *path, struct ft_error *err)
{
	struct ft_path leg;
	uint32_t qp;
	int rc;

	/* a NIC of the source's node, not a proxy: the three engines' rule, the flow's own QP
	 * on */
	if (ft_topo_vertex(e->topo, FT_SIM_NIC_VERTEX(via))->kind == FT_V_NIC)
		return ft__sim_nic_route(e->topo, src, via, dst, fqp, pk_leg, cc, path, err);
	qp = fqp + (ft_topo_vertex(e->topo, src)->local + 1) * 1024u *
	                   ft__sim_gpu_lanes(e->topo, via);
	if ((rc = pk_leg(cc, src, via, fqp, path, err)) < 0 ||
	    (rc = pk_leg(cc, via, dst, qp, &leg, err)) < 0)
		return rc;
	if (path->nlinks + leg.nlinks > FT_PATH_MAX)
		return ft_error_set(err, FT_ERANGE, "sim: the PXN path of a flow is longer than %d "
		                    "links", FT_PATH_MAX);
	memcpy(path->links + path->nlinks, leg.links, leg.nlinks * sizeof(uint32_t));
	path->nlinks += leg.nlinks;
	path->lat_s += leg.lat_s;
	return 0;
}

/*
 * Route flow @fid: its first link, its path (kept unless routed per hop), its path latency
 * and its ideal time. At its start in one process; a run split across MPI ranks routes
 * every flow before it starts, in flow order, since a flow started by another flow starts
 * on its source's rank alone; a rank keeps the paths that cross its vertices (pkt_part.c).
 */
/* What flow @f is routed through before its route (route_via()): its PXN proxy's GPU, or
 * the NIC it leaves by where that is not its GPU's own; UINT32_MAX none. */
static uint32_t
flow_via(const struct pk_engine *e, const struct pk_flow *f)
{
	/* (its proxy was chosen among the job's GPUs when it was built, pkt_nccl.c a2a_via()) */
	if (f->pxn)
		return ft_topo_gpu(e->topo, ft_topo_vertex(e->topo, f->src)->node, f->pxn - 1u);
	if (f->nic)
		return ft_topo_nic(e->topo, ft_topo_vertex(e->topo, f->src)->node, f->nic - 1u) |
		       (f->nic_in ? FT_SIM_NIC_IN : 0);
	return UINT32_MAX;
}

/* Flow @f's route at its start into @path (over links down where no other is left);
 * FT_E* with @err naming both ends where there is none. */
static int
flow_path(struct pk_engine *e, const struct pk_flow *f, struct ft_path *path,
          struct ft_error *err)
{
	struct choose_ctx cc = { e, f->hash };
	uint32_t via = flow_via(e, f);
	int rc;

	if (via != UINT32_MAX)
		return route_via(e, f->src, f->dst, f->qp, via, &cc, path, err);
	if ((rc = ft__sim_route(e->topo, &e->cfg, f->src, f->dst, f->qp, choose_by_hash, &cc,
	                        path, err)) < 0)
		rc = route_dead(e, f->src, f->dst, f->qp, &cc, path, err);
	return rc;
}

uint64_t
ft__pk_flow_fill_ps(struct pk_engine *e, const struct pk_flow *f)
{
	struct ft_path path;
	struct ft_error err = { 0 };
	const uint32_t *links = path.links;
	uint32_t n;
	double one = (double)FT_MIN(f->bytes, (uint64_t)e->mtu), sum = 0, max = 0;

	if (f->npath) {
		links = &FT_VEC_AT(&e->paths, uint32_t, f->path_off);
		n = f->npath;
	} else if (flow_path(e, f, &path, &err) < 0) {
		return 0;
	} else {
		n = path.nlinks;
	}
	for (uint32_t j = 0; j < n; j++) {
		const struct pk_link *lk = &e->links[links[j]];
		double t = (one + lk->hdr) * lk->ps_per_byte;

		if (!isfinite(t))
			continue; /* (a link down: the path's walk is no pipeline) */
		sum += t;
		max = FT_MAX(max, t);
	}
	return (uint64_t)(sum - max);
}

int
ft__pk_route_flow(struct pk_engine *e, uint32_t fid)
{
	struct pk_flow *f = flow_at(e, fid);
	struct ft_path path;
	struct ft_error err = { 0 };
	double slow = 0;
	uint32_t j;
	bool dead; /* routed over links down: its path is kept, adaptive or not */
	uint32_t fixed = 0; /* under adaptive routing: its links kept (host_fixed()) */
	uint32_t via = flow_via(e, f);
	int rc = flow_path(e, f, &path, &err);

	if (rc < 0) {
		e->route_err = err; /* the message names both endpoints */
		return rc;
	}
	dead = rc == 0 && err.code;
	f = flow_at(e, fid);
	f->lat_ps = 0;
	f->first_link = path.links[0];
	f->nic_link = f->nic_rx_link = PK_NONE;
	for (j = 0; j < path.nlinks; j++) {
		if (!e->links[path.links[j]].net)
			continue;
		if (f->nic_link == PK_NONE &&
		    ft_topo_vertex(e->topo, e->links[path.links[j]].src)->kind == FT_V_NIC)
			f->nic_link = path.links[j];
		f->nic_rx_link = path.links[j];
	}
	/* Adaptive routing chooses per hop among equal-cost ports; a path across a
	 * multi-node NVLink domain has one way (sender's NVLink port, receiver's), and
	 * its second link leaves the far node's NVSwitch, which no hop-by-hop route
	 * reaches: it stays fixed. SRD's spraying chooses per packet too (flowlets are
	 * adaptive routing's: not under it). Under adaptive routing a flow's row keeps its
	 * links up to its NIC's port onto the fabric (host_fixed()): the fabric's switches
	 * choose the rest. No hop-by-hop route leads through a PXN flow's proxy: with no
	 * such port its path is kept whole, as it is under spraying (whose lanes are the
	 * sender's NICs). */
	f->fl_hops = f->fl_fixed = 0; /* no row unless laid out below (a reused record's is
	                               * stale) */
	if (e->cfg.routing == FT_ROUTING_ADAPTIVE && !e->spray && !dead &&
	    !nvlink_domain_flow(e, f))
		fixed = host_fixed(f, &path);
	if ((e->cfg.routing != FT_ROUTING_ADAPTIVE && !e->spray) || nvlink_domain_flow(e, f) ||
	    dead || (via != UINT32_MAX && !fixed) || innet_flow(e, f)) {
		/* A reused record (a lazy send's) keeps its room when the path fits. */
		if (f->path_cap < path.nlinks) {
			if (ft_vec_reserve(&e->paths, path.nlinks) < 0)
				return FT_ENOMEM;
			f->path_off = (uint32_t)e->paths.len;
			f->path_cap = (uint16_t)path.nlinks;
			e->paths.len += path.nlinks;
		}
		f->npath = (uint16_t)path.nlinks;
		memcpy(&FT_VEC_AT(&e->paths, uint32_t, f->path_off), path.links,
		       path.nlinks * sizeof(uint32_t));
	} else if ((fixed || (e->cfg.flowlet_bytes && !e->spray)) &&
	           (rc = flowlet_room(e, f, &path, fixed ? fixed : 1)) < 0) {
		return rc;
	}
	for (j = 0; j < path.nlinks; j++) {
		const struct pk_link *lk = &e->links[path.links[j]];
		double full = (double)f->bytes + (double)f->npkts * lk->hdr;
		double t = full * lk->ps_per_byte / PK_PS_PER_S;

		f->lat_ps += lk->lat_ps;
		if (t > slow)
			slow = t;
	}
	f->ideal_s = slow + (double)f->lat_ps / PK_PS_PER_S;
	return 0;
}

/*
 * The route from @src to @dst as a flow of tie-break @hash on QP @qp would be routed at its
 * start (QP q leaves by its GPU's NIC of lane q, ft__pk_conn_qps()), through @nic as
 * ft__pk_path_lat() says, into @path; FT_E* when there is none.
 */
int
ft__pk_path(struct pk_engine *e, uint32_t src, uint32_t dst, uint32_t nic, uint64_t hash,
            uint32_t qp, struct ft_path *path)
{
	struct choose_ctx cc = { e, hash };
	struct ft_error err = { 0 };
	int rc;

	if (nic != UINT32_MAX)
		return route_via(e, src, dst, qp, nic, &cc, path, &err);
	if ((rc = ft__sim_route(e->topo, &e->cfg, src, dst, qp, choose_by_hash, &cc, path,
	                        &err)) < 0)
		rc = route_dead(e, src, dst, qp, &cc, path, &err);
	return rc;
}

/*
 * The path latency from @src to @dst (ps) as a flow of tie-break @hash would be routed at
 * its start: what a notice the receiver's NIC writes back to another sender takes (an
 * all-to-all's clear-to-send, pkt_nccl.c). A flow that leaves by NIC vertex @nic, not its
 * GPU's own (ft__sim_flow_nic(); UINT32_MAX none), is routed as the engine routes it
 * (route_via(): its GPU's path to that NIC, then the NIC's GPU's route from the NIC on);
 * one that a PXN proxy relays, @nic that proxy's GPU vertex, as its flow is (route_via():
 * its NVLink leg, then the proxy's route). Into @lat_ps; FT_E* when there is no path.
 */
int
ft__pk_path_lat(struct pk_engine *e, uint32_t src, uint32_t dst, uint32_t nic, uint64_t hash,
                uint64_t *lat_ps)
{
	struct ft_path path;
	int rc = ft__pk_path(e, src, dst, nic, hash, 0, &path);

	if (rc < 0)
		return rc;
	*lat_ps = 0;
	for (uint32_t j = 0; j < path.nlinks; j++)
		*lat_ps += e->links[path.links[j]].lat_ps;
	return 0;
}

static int
start_flow(struct pk_engine *e, uint32_t fid)
{
	struct pk_flow *f;
	uint32_t j, off, n;
	int rc = e->part ? 0 : ft__pk_route_flow(e, fid);

	if (rc < 0)
		return rc;
	if (e->part)
		ft__pk_part_flow_start(e, fid);
	/* A split rank that has no vertex on the flow's path keeps no record of it: it
	 * only starts it where one process would, at its source. */
	if (!pk_flow_kept(e, fid)) {
		e->origin = pk_flow_src(e, fid);
		return 0;
	}
	f = flow_at(e, fid);
	f->t_start_ps = e->now_ps;
	f->t_una_ps = e->now_ps;
	/* Every rank of a split run that owns a vertex on a flow's path keeps the path (the
	 * others count nothing for it); the one that owns its source sends it, with tie keys
	 * from there. */
	e->origin = f->src;
	n = pk_flow_ports(f, &off);
	for (j = 0; j < n; j++) {
		struct pk_port *p = pk_port_at(e, FT_VEC_AT(&e->paths, uint32_t, off + j));

		if (++p->nactive > p->maxflows)
			p->maxflows = p->nactive;
	}
	if (f->nic_link != PK_NONE)
		pk_port_at(e, f->nic_link)->nqps++;
	if (!ft__pk_part_owns(e, f->src))
		return 0;
	/* an LL chain's next message on its hop leaves a period after this one (pkt_tree.c
	 * rank_edge()): told here, on its source's rank, as its QP's next one is */
	if (ft__pk_pace_next(e, fid) != PK_NONE) {
		uint32_t u = ft__pk_pace_next(e, fid);
		uint64_t d_ps = ft__pk_pace_next_ps(e, u);
		/* (its critical path: this message's start, and the pace) */
		struct pk_cp cp = pk_flow_cp0(e, f);
		int64_t arg;

		cp.pace_ps += d_ps;
		arg = ft__pk_cp_arg(e, cp);

		if (arg < 0)
			return (int)arg;
		rc = ev_push(e, e->now_ps + d_ps, PK_EV_PRED, u, (uint32_t)arg);
		if (rc < 0)
			return rc;
	}
	return ft__pk_flow_send(e, fid);
}

int
ft__pk_flow_done(struct pk_engine *e, uint32_t fid)
{
	struct pk_flow *f = flow_at(e, fid);
	uint32_t j, off, n, op = task_at(e, f->task)->op;
	struct ft_sim_op_counters *oc = &e->op_acc[op];

	/* (A split run's rank other than 0 keeps no FCTs: rank 0 takes every one from the
	 * gathered completions, pkt_part.c pp_take_end.) */
	if (e->nflows_done < e->nfct) {
		e->fct[e->nflows_done] = (double)(e->now_ps - f->t_start_ps) / PK_PS_PER_S;
		e->ideal[e->nflows_done] = f->ideal_s;
		e->fct_prio[e->nflows_done] = f->prio;
		if (e->fct_op)
			e->fct_op[e->nflows_done] = op;
	}
	if (e->tcp_rack)
		ft__pk_tcp_rack_drop(e, fid); /* (RACK is of no more use: every packet arrived) */
	if (op < e->ops.len) {
		struct pk_op *o = ft_vec_at(&e->ops, op);

		if (e->now_ps >= o->last_end_ps) {
			o->last_end_ps = e->now_ps;
			o->cp = pk_flow_cp0(e, f); /* (its critical path, pkt_report.c) */
			pk_cp_msg(e, &o->cp, f, e->now_ps - f->t_start_ps);
			o->last_held = f->held && !o->coll;
		}
	}
	oc->nflows++;
	oc->npackets += f->npkts;
	oc->bytes += f->bytes;
	e->nflows_done++;
	/* The QP leaves the sending NIC's cache count when the end reaches the NIC, one
	 * path latency on (the last packet's acknowledgement completes the send): an
	 * event at the sender, a message when it crosses MPI ranks (pkt_part.c). Queued
	 * before the split's record of the end, which keeps keys for the successors. */
	if (f->nic_link != PK_NONE && e->nic_qp_cache &&
	    ev_push(e, e->now_ps + f->lat_ps, PK_EV_QP_END, f->nic_link, 0) < 0)
		return FT_ENOMEM;
	if (e->part && ft__pk_part_flow_done(e, fid) < 0)
		return FT_ENOMEM;
	n = pk_flow_ports(f, &off);
	for (j = 0; j < n; j++)
		pk_port_at(e, FT_VEC_AT(&e->paths, uint32_t, off + j))->nactive--;
	if (f->nic_link != PK_NONE && !e->nic_qp_cache)
		pk_port_at(e, f->nic_link)->nqps--; /* (read by nothing but the cache) */
	/* its QP's next message is in sequence now (struct pk_qpseq) */
	if (e->nqseq) {
		int rc = ft__pk_qp_seq_end(e, fid);

		if (rc < 0)
			return rc;
	}
	return task_done(e, f->task, f->lat_ps);
}

/* SPDX-License-Identifier: MIT */
/*
 * sim/pkt_nccl.c - the packet engine's task graph (tasks, dependencies,
 * connections split into QPs), NCCL's chunking of ring phases, and NCCL's
 * send/recv path for all-to-alls and point-to-point phases (at the end).
 *
 * A ring phase of the schedule (coll/: a ring all-reduce, all-gather or
 * reduce-scatter) says what each connection carries in all and how many
 * ring steps it takes, not the chunk by chunk choreography. NCCL runs it as
 * a pipeline (kb NA-CONCEPTS, NA-ALGO-RING; NVIDIA/nccl
 * src/include/collectives.h and device.h): each channel moves, per loop,
 * one chunk per rank through every ring step; the chunk is cut into slices,
 * and each slice is one network message the proxy posts on the connection;
 * a connection's buffer has NCCL_STEPS slots, so only so many slices are in
 * flight before the receiver has taken the first; a rank sends the slice of
 * step s only once it has received the slice of step s - 1 from its ring
 * predecessor. The sizes are the model's (ft_model_chunking_get()), so the
 * two use one definition.
 *
 * Here a message is one flow per QP, and the dependencies are the ones
 * above: message (loop l, step s, slice j) of a connection waits for
 * message (l, s - 1, j) of the connection that feeds its source, for the
 * message `slots` before it on its own connection (the receiver's
 * clear-to-send for that slot reaches the sender one path latency after the
 * message arrived: engine_packet.c flow_feeds), and for the previous
 * message on its QP to have left the NIC (a QP sends its work requests in
 * order). QPs (NCCL_IB_QPS_PER_CONNECTION, kb ENV-IB_QPS) take the
 * messages round robin, or with NCCL_IB_SPLIT_DATA_ON_QPS every message is
 * split evenly over all of them (kb ENV-IB_SPLIT). The phase's path
 * latencies are then in the simulated pipeline itself: its end barrier
 * keeps only the protocol's per-step overhead.
 *
 * Which connection feeds which: a connection leaving vertex v is fed by an
 * arrival at v; the k-th connection leaving v (in schedule order) is paired
 * with the k-th one arriving there, which is the ring's predecessor when
 * channels are listed channel by channel, as coll/ and sim/nccl.c list
 * them. A connection with no arrival to pair with is fed by nothing (it
 * starts the phase).
 */
#include "pkt_int.h"

#include <stdlib.h>

#include <fabtune/model.h>

static inline struct pk_task *
task_of(struct pk_engine *e, uint32_t t)
{
	return task_at(e, t);
}

/*
 * A lazy all-to-all (see "Lazy all-to-alls" below) builds a send into a slot: the
 * records of a send that has ended, reused, or new ones at the end of the vectors. While
 * it builds, the records go where the cursors say (PK_NONE: append) and the dependencies
 * into the slot's own list.
 */
struct pk_lazy {
	struct ft_vec phases; /* struct lazy_phase */
	struct ft_vec slots;  /* struct lazy_slot */
	struct ft_vec edges;  /* uint32_t pairs: the send being built */
	bool building;
	uint32_t cur_task, cur_flow; /* the next record to overwrite, PK_NONE: append */
	size_t succ_cap;             /* entries e->succ has room for */
	uint32_t nrunning;           /* phases started and not yet done */
	/* Where the records of a new slot go: appended (!rewound), or from the first task,
	 * flow and successor entry any slot ever had on (base_*), those of the phases that
	 * have all ended, once none of their CNPs or RTT samples is still on its way
	 * (after rewind_ps); next_* advance as slots are built there. */
	bool rewound, based, fresh;
	uint32_t base_task, base_flow, base_succ, next_task, next_flow, next_succ;
	uint64_t rewind_ps, last_free_ps;
	/* A lossy run's: per flow record, the slot whose send it is (ft__pk_lazy_release());
	 * the slots whose send has ended with a flow record still named (struct pk_refs). */
	uint32_t *fslot;
	size_t nfslot;
	uint32_t nheld;
};

/* A record of @vec at @cursor (advanced: at the end, appended), or a new one at the end
 * (PK_NONE); its index or FT_E*. */
static int64_t
put_record(struct ft_vec *vec, uint32_t *cursor, const void *rec)
{
	if (*cursor == PK_NONE || *cursor == vec->len) {
		if (ft_vec_push(vec, rec) < 0)
			return FT_ENOMEM;
		if (*cursor != PK_NONE)
			(*cursor)++;
		return (int64_t)vec->len - 1;
	}
	if (FT_NEVER(*cursor > vec->len))
		return FT_EINVAL;
	memcpy(ft_vec_at(vec, *cursor), rec, vec->elem_size);
	return (int64_t)(*cursor)++;
}

static inline bool
building(const struct pk_engine *e)
{
	return e->lazy && e->lazy->building;
}

/* A task into the record at @cursor (see put_record()). */
static int64_t
task_rec(struct pk_engine *e, enum pk_task_kind kind, uint64_t delay_ps, double lat_mult,
         uint32_t op, uint32_t *cursor)
{
	struct pk_task t = { 0 };

	t.kind = (uint8_t)kind;
	t.delay_ps = delay_ps;
	t.lat_mult = lat_mult;
	t.flow = PK_NONE;
	t.op = op;
	/* (ids from PK_VIRT name a lazy phase's tasks not built yet) */
	if (pk_ntasks(e) >= PK_VIRT)
		return FT_ERANGE;
	if (e->tsplit) { /* a split rank: the id maps to its record (flow_rec may drop it) */
		uint32_t at = (uint32_t)e->tasks.len;

		if (FT_NEVER(*cursor != PK_NONE))
			return FT_EINVAL; /* a split run builds every task whole, in order */
		if (ft_vec_reserve(&e->tslot, 1) < 0 || ft_vec_push(&e->tasks, &t) < 0 ||
		    ft_vec_push(&e->tslot, &at) < 0) /* (reserved: cannot fail) */
			return FT_ENOMEM;
		return (int64_t)e->tslot.len - 1;
	}
	return put_record(&e->tasks, cursor, &t);
}

/*
 * Task @t of flow @id, just built on a split rank (tsplit) that keeps no record of the
 * flow: its record, the last one, is dropped for a struct pk_tfar (pk_task_far()).
 */
static int
task_far(struct pk_engine *e, uint32_t t, uint32_t id)
{
	struct pk_tfar r = { id, 0, 0, 0, 0 };
	uint32_t at = (uint32_t)e->tfar.len | PK_VIRT, *slot = ft_vec_at(&e->tslot, t);

	if (FT_NEVER(*slot + 1 != e->tasks.len || e->tfar.len >= PK_VIRT))
		return FT_EINVAL;
	r.npred = task_at(e, t)->npred;
	r.op = task_at(e, t)->op;
	if (ft_vec_push(&e->tfar, &r) < 0)
		return FT_ENOMEM;
	e->tasks.len--;
	*slot = at;
	return 0;
}

int64_t
ft__pk_add_task(struct pk_engine *e, enum pk_task_kind kind, uint64_t delay_ps, double lat_mult,
                uint32_t op)
{
	uint32_t append = PK_NONE;

	return task_rec(e, kind, delay_ps, lat_mult, op,
	                building(e) ? &e->lazy->cur_task : &append);
}

int64_t
ft__pk_task_into(struct pk_engine *e, enum pk_task_kind kind, uint64_t delay_ps, double lat_mult,
                 uint32_t op, uint32_t task_rec_at)
{
	return task_rec(e, kind, delay_ps, lat_mult, op, &task_rec_at);
}

struct pk_dcqcn
ft__pk_cc0(const struct pk_engine *e)
{
	struct pk_dcqcn d = { 0 };

	d.rc_Bps = d.rt_Bps = e->line_Bps;
	d.alpha = PK_DCQCN_ALPHA0;
	return d;
}

int
ft__pk_add_dep(struct pk_engine *e, uint32_t from, uint32_t to)
{
	uint32_t pair[2] = { from, to };

	task_of(e, to)->npred++;
	e->ndeps++;
	/* A rank built for a split keeps a flow's dependency on a flow only where it reads
	 * it (pkt_part.c); the waits are counted on every rank all the same. */
	if (e->plan_owner && !building(e) && pk_task_kind(e, from) != PK_T_BARRIER) {
		int keep = ft__pk_part_dep(e, from, to);

		if (keep <= 0)
			return keep;
	}
	return ft_vec_push(building(e) ? &e->lazy->edges : &e->edges, pair);
}

/* The congestion control state of flow record @id (new or reused) at its start: the line
 * rate, DCQCN's initial alpha (ft__pk_cc0); e->flow_cc follows e->flows record for record. */
static int
flow_cc_init(struct pk_engine *e, uint32_t id)
{
	struct pk_dcqcn d = ft__pk_cc0(e);

	if (id < e->flow_cc.len) {
		*pk_flow_cc(e, flow_at(e, id)) = d;
		return 0;
	}
	return FT_NEVER(id != e->flow_cc.len) ? FT_EINVAL : ft_vec_push(&e->flow_cc, &d);
}

/* One flow: QP @qp of a connection, @bytes from @src to @dst (through its PXN proxy when
 * @pxn, struct pk_flow pxn; out by NIC @nic, struct pk_flow nic), its task and record at
 * @tcur and @cursor (see put_record()), counted in the run's flows and bytes when @count;
 * its task, or FT_E*. */
static int64_t
flow_rec(struct pk_engine *e, uint64_t bytes, uint32_t src, uint32_t dst, uint8_t pxn, uint8_t nic,
         uint32_t qp, uint32_t op, uint32_t *tcur, uint32_t *cursor, bool count)
{
	struct pk_flow f = { 0 };
	int64_t t, id;

	if (bytes / e->mtu >= UINT32_MAX)
		return FT_ERANGE;
	t = task_rec(e, PK_T_FLOW, 0, 0, op, tcur);
	if (t < 0)
		return t;
	f.bytes = bytes;
	f.src = src;
	f.dst = dst;
	f.pxn = pxn & 31u;
	f.nic = nic & 63u;
	f.nic_in = (nic & FT_SCHED_NIC_IN) != 0;
	f.task = (uint32_t)t;
	f.npkts = (uint32_t)((bytes + e->mtu - 1) / e->mtu);
	f.last_payload = (uint16_t)(bytes - (uint64_t)(f.npkts - 1) * e->mtu);
	if (!e->sack)
		f.nak_for = PK_NONE; /* (SRD: sack_bits NULL) */
	f.ring_next = PK_NONE;
	f.fl_off = PK_NONE;
	f.sent_task = PK_NONE;
	f.nic_link = f.nic_rx_link = PK_NONE;
	f.qp = qp * 1024;
	/* The op's: a lazy all-to-all's sends are built during the run, after later ops
	 * were submitted (the op being submitted has no record yet). */
	f.prio = op < e->ops.len ? FT_VEC_AT(&e->ops, struct pk_op, op).prio : e->sub_prio;
	f.hash = ft_route_flow_hash(src, dst, f.qp);
	if (*cursor != PK_NONE && *cursor < e->flows.len) { /* a reused record keeps its path room */
		const struct pk_flow *old = flow_at(e, *cursor);

		/* (and a lossy run's timer generations go on: a timer of its last flow finds
		 * the record not its own, pkt_tree.c lossy_release()) */
		f.rto_gen = e->may_drop ? old->rto_gen + 1 : 0;
		f.path_off = old->path_off;
		f.path_cap = old->path_cap;
		f.fl_off = old->fl_off;
		f.fl_cap = old->fl_cap;
		ft_free(old->ooo_bits);
		if (e->sack)
			ft_free(old->sack_bits);
		if (*cursor < e->nqseq) /* (its links went with its message's end) */
			e->qseq[*cursor] = (struct pk_qpseq){ PK_NONE, PK_NONE, 0 };
		/* (nor an LL chain's next message its start told: whoever builds the flow names
		 * its own, pkt_tree.c rank_edge() and build_message(); cannot fail for none) */
		if (ft__pk_pace_set(e, *cursor, PK_NONE) < 0)
			return FT_ENOMEM;
	} else if (count) { /* (a lazy phase counted its flows and bytes) */
		e->bytes_submitted += bytes;
		e->nflows_all++;
	}
	if (FT_NEVER(e->cc_slot))
		return FT_EINVAL; /* a split run builds every flow before it starts */
	if (e->plan_owner && FT_NEVER(*cursor != PK_NONE))
		return FT_EINVAL; /* a split run builds every flow whole, in flow order */
	/* A rank built for a split keeps the record of a flow that has a vertex of it on
	 * its path alone (pkt_part.c). */
	id = e->plan_owner ? ft__pk_part_add_flow(e, &f) : put_record(&e->flows, cursor, &f);
	if (id < 0 || (e->qp_cc && !e->cc_later && flow_cc_init(e, (uint32_t)id) < 0))
		return id < 0 ? id : FT_ENOMEM;
	task_of(e, (uint32_t)t)->flow = (uint32_t)id;
	/* ... and its task's record alone. */
	if (e->tsplit && !pk_flow_kept(e, (uint32_t)id)) {
		int rc = task_far(e, (uint32_t)t, (uint32_t)id);

		if (rc < 0)
			return rc;
	}
	return t;
}

static int64_t
add_flow(struct pk_engine *e, uint64_t bytes, uint32_t src, uint32_t dst, uint8_t pxn, uint8_t nic,
         uint32_t qp, uint32_t op)
{
	uint32_t append = PK_NONE, append2 = PK_NONE;

	if (building(e))
		return flow_rec(e, bytes, src, dst, pxn, nic, qp, op, &e->lazy->cur_task,
		                &e->lazy->cur_flow, false);
	return flow_rec(e, bytes, src, dst, pxn, nic, qp, op, &append, &append2, true);
}

int64_t
ft__pk_flow_into(struct pk_engine *e, uint64_t bytes, uint32_t src, uint32_t dst, uint8_t nic,
                 uint32_t qp, uint32_t op, uint32_t task_at_rec, uint32_t flow_at_rec)
{
	return flow_rec(e, bytes, src, dst, 0, nic, qp, op, &task_at_rec, &flow_at_rec, false);
}

/* Share @i of @n of @bytes: the remainder goes to the first ones. */
static uint64_t
share(uint64_t bytes, uint64_t n, uint64_t i)
{
	return ft__sim_share(bytes, n, i);
}

uint64_t
ft__pk_share(uint64_t bytes, uint64_t n, uint64_t i)
{
	return share(bytes, n, i);
}

/*
 * The wire bytes of message @m of connection @c: its share of the connection's, or where a
 * chunk is two messages (struct ring_conn lead_at) the chunk's share cut into its unit,
 * first or last, and the rest.
 */
uint64_t
ft__pk_msg_wire(const struct ring_conn *c, uint32_t m)
{
	uint64_t chunk, unit;

	if (!c->lead_at)
		return share(c->wire, c->nmsg, m);
	chunk = share(c->wire, c->nmsg / 2, m / 2);
	unit = FT_MIN((uint64_t)c->lead, chunk / 2);
	return (m % 2 == 0) == (c->lead_at == PK_LEAD_FIRST) ? unit : chunk - unit;
}

int
ft__pk_add_conn(struct pk_engine *e, uint64_t bytes, uint32_t src, uint32_t dst, uint32_t prev,
                uint32_t bar, uint32_t op)
{
	return ft__pk_add_conn_nic(e, bytes, src, dst, 0, prev, bar, op);
}

int
ft__pk_add_conn_nic(struct pk_engine *e, uint64_t bytes, uint32_t src, uint32_t dst, uint8_t nic,
                    uint32_t prev, uint32_t bar, uint32_t op)
{
	return ft__pk_add_conn_qps(e, bytes, src, dst, nic, 0, prev, bar, op);
}

int
ft__pk_add_conn_qps(struct pk_engine *e, uint64_t bytes, uint32_t src, uint32_t dst, uint8_t nic,
                    uint32_t qp0, uint32_t prev, uint32_t bar, uint32_t op)
{
	uint32_t q, nq = ft__pk_conn_qps(e, src, dst);

	for (q = 0; q < nq; q++) {
		uint64_t b = share(bytes, nq, q);
		int64_t t;

		if (b == 0)
			continue;
		t = add_flow(e, b, src, dst, 0, nic, qp0 + q, op);
		if (t < 0)
			return (int)t;
		if (ft__pk_add_dep(e, prev, (uint32_t)t) < 0 ||
		    ft__pk_add_dep(e, (uint32_t)t, bar) < 0)
			return FT_ENOMEM;
	}
	return 0;
}

struct pk_flow *
ft__pk_qp_next(struct pk_engine *e, const struct pk_flow *f)
{
	const struct pk_task *k;

	/* The task its last packet's leaving tells: the QP's next flow. */
	if (f->sent_task == PK_NONE || f->sent_task >= PK_VIRT)
		return NULL; /* (a lazy phase's next message is not built: ft__pk_tree_cc()) */
	k = task_of(e, f->sent_task);
	return k->kind == PK_T_FLOW ? flow_at(e, k->flow) : NULL;
}

/* ---- NCCL's chunking of a ring phase --------------------------------------------- */

/* Endpoint keys (vertex, connection) in a total order. */
static int
cmp_key(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* Pair the k-th connection leaving every vertex with the k-th arriving there. */
static int
pair_feeds(struct ring_conn *c, uint32_t n)
{
	uint64_t *out = ft_calloc((size_t)n * 2, sizeof(uint64_t)), *in;
	uint32_t i, a = 0, b = 0;

	if (!out)
		return FT_ENOMEM;
	in = out + n;
	for (i = 0; i < n; i++) {
		out[i] = (uint64_t)c[i].src << 32 | i;
		in[i] = (uint64_t)c[i].dst << 32 | i;
		c[i].up = PK_NONE;
	}
	qsort(out, n, sizeof(*out), cmp_key);
	qsort(in, n, sizeof(*in), cmp_key);
	while (a < n && b < n) {
		uint32_t va = (uint32_t)(out[a] >> 32), vb = (uint32_t)(in[b] >> 32);

		if (va == vb)
			c[(uint32_t)out[a++]].up = (uint32_t)in[b++];
		else if (va < vb)
			a++;
		else
			b++;
	}
	ft_free(out);
	return 0;
}

static uint64_t
div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

void
ft__pk_cut(struct ring_conn *c, uint64_t payload, uint32_t steps, const struct ft_model_chunking *ch)
{
	uint64_t per_step = div_up(payload, steps), loops = div_up(per_step, ch->chunk_bytes);
	uint64_t per_loop = div_up(per_step, FT_MAX(loops, 1));

	c->loops = (uint32_t)FT_MAX(loops, 1);
	c->slices = (uint32_t)FT_MAX(div_up(per_loop, ch->slice_bytes), 1);
	c->nmsg = steps * c->loops * c->slices;
}

/* A flow of message @m of connection @c on QP @qp: in order after the QP's last one. */
static int
add_part(struct ring_build *rb, const struct ring_conn *c, uint64_t bytes, uint32_t qp,
         uint32_t *task)
{
	struct pk_engine *e = rb->e;
	int64_t t = add_flow(e, bytes, c->src, c->dst, c->pxn, c->nic, c->qp0 + qp, rb->tag);

	if (t < 0)
		return (int)t;
	*task = (uint32_t)t;
	if (rb->last[qp] != PK_NONE) {
		/* It waits for the previous flow's last packet to leave the NIC, which the
		 * send path tells it (pk_flow_sent): a wait with no edge, no barrier between
		 * (one task, one edge and one successor entry less per message). */
		task_of(e, (uint32_t)t)->npred++;
		flow_at(e, rb->last[qp])->sent_task = (uint32_t)t;
		/* and follows it in the QP's sequence (struct pk_qpseq) */
		if (pk_psn_qp(e) &&
		    ft__pk_qp_link(e, rb->last[qp], task_of(e, (uint32_t)t)->flow) < 0)
			return FT_ENOMEM;
	}
	rb->last[qp] = task_of(e, (uint32_t)t)->flow;
	return 0;
}

/* Task @t (a message's arrival) comes before connection @c's end and its notice, if any. */
static int
add_ends(struct pk_engine *e, const struct ring_conn *c, uint32_t t)
{
	if (ft__pk_add_dep(e, t, c->end) < 0)
		return FT_ENOMEM;
	return c->notice ? ft__pk_add_dep(e, t, c->notice - 1) : 0;
}

/*
 * Part @k of a split message of connection @c, task @t: an LL chain's rank moves its
 * rounds at its channel's pace whatever carries them (pkt_tree.c rank_pace(), NVIDIA/nccl
 * v2.27.7-1 src/device/prims_ll.h LLGenericOp()), so on an edge's first leg part k of
 * message m >= 1 starts no sooner than rank_ps after part k of message m - 1 started: the
 * same wait as a whole message's (pkt_tree.c rank_edge()), told by that part's start
 * (ft__pk_pace_next(), pkt_flow.c start_flow()), lane by lane. Before, a message split
 * over a GPU's NICs or its QPs kept the cap's pace alone, and after a crossing its rounds
 * left at the links' rate.
 */
static int
rank_part(struct ring_build *rb, const struct ring_conn *c, uint32_t k, uint32_t t)
{
	struct pk_engine *e = rb->e;
	uint32_t prev;

	if (!rb->rank_ps || !c->rank_paced || !rb->rank_last || pk_task_kind(e, t) != PK_T_FLOW)
		return 0;
	prev = rb->rank_last[k];
	if (prev != PK_NONE) {
		if (ft__pk_pace_set(e, prev, t) < 0)
			return FT_ENOMEM;
		task_of(e, t)->delay_ps = rb->rank_ps;
		task_of(e, t)->npred++;
	}
	rb->rank_last[k] = task_of(e, t)->flow;
	return 0;
}

/*
 * The flows of message @m of connection @c: its ready and recv tasks. A ring's or tree's
 * message (lane_split) over several NICs (lanes, ft__pk_conn_lanes()) is split evenly
 * over them: NCCL binds a channel to one NIC and gives each NIC of a GPU its own
 * channels, so each NIC carries its share of every step at once (the flow engine's split
 * of a connection, kb ENV-IB_QPS). Within a NIC its QPs take the messages round robin,
 * or each share split over them with NCCL_IB_SPLIT_DATA_ON_QPS (kb ENV-IB_SPLIT). QP q
 * is on lane q mod lanes.
 */
/* Task @to, where it is a flow's this process keeps, waits for a pace: held where that is
 * its last wait (pkt_flow.c barrier_feeds(); a split run's rank marks the records it
 * keeps). */
void
ft__pk_mark_paced(struct pk_engine *e, uint32_t to)
{
	if (to < PK_VIRT && !pk_task_far_id(e, to) && task_of(e, to)->kind == PK_T_FLOW &&
	    pk_flow_kept(e, task_of(e, to)->flow))
		flow_at(e, task_of(e, to)->flow)->paced = true;
}

static int
add_message(struct ring_build *rb, const struct ring_conn *c, uint32_t m)
{
	struct pk_engine *e = rb->e;
	uint32_t nq = c->nq, lanes = rb->lane_split ? ft__pk_conn_lanes(e, c) : 1;
	uint32_t per = nq / lanes, q, t;
	bool split = e->pc.split_data_on_qps && per > 1;
	uint64_t bytes = ft__pk_msg_wire(c, m);
	/* (a chunk's two messages on one QP, in order: ft__pk_msg_chunk()) */
	uint32_t mq = ft__pk_msg_chunk(c, m);
	int64_t ready, recv;
	int rc;

	if (lanes == 1 && !split) {
		rc = add_part(rb, c, bytes, mq % nq, &t);
		rb->ready[c->first + m] = rb->recv[c->first + m] = t;
		return rc < 0 ? rc : add_ends(e, c, t);
	}
	ready = ft__pk_add_task(e, PK_T_BARRIER, 0, 0, rb->tag);
	recv = ft__pk_add_task(e, PK_T_BARRIER, 0, 0, rb->tag);
	if (ready < 0 || recv < 0 || add_ends(e, c, (uint32_t)recv) < 0)
		return FT_ENOMEM;
	rb->ready[c->first + m] = (uint32_t)ready;
	rb->recv[c->first + m] = (uint32_t)recv;
	for (uint32_t l = 0; l < lanes; l++) {
		uint64_t bl = share(bytes, lanes, l);

		for (uint32_t i = 0; i < (split ? per : 1); i++) {
			uint64_t b = split ? share(bl, per, i) : bl;

			if (b == 0)
				continue;
			q = l + lanes * (split ? i : mq % per);
			rc = add_part(rb, c, b, q, &t);
			if (rc < 0 || ft__pk_add_dep(e, (uint32_t)ready, t) < 0 ||
			    ft__pk_add_dep(e, t, (uint32_t)recv) < 0 ||
			    rank_part(rb, c, l * (split ? per : 1) + i, t) < 0)
				return rc < 0 ? rc : FT_ENOMEM;
		}
	}
	return 0;
}

/* The dependencies into message @m of connection @i (see the file's comment). */
static int
link_message(struct ring_build *rb, uint32_t i, uint32_t m, uint32_t slots)
{
	const struct ring_conn *c = &rb->c[i];
	uint32_t per_loop = rb->steps * c->slices;
	uint32_t lanes = rb->lane_split ? ft__pk_conn_lanes(rb->e, c) : 1, nq = c->nq / lanes;
	uint32_t loop = m / per_loop, s = m % per_loop / c->slices, j = m % c->slices;
	uint32_t to = rb->ready[c->first + m];
	/* a message split over lanes or QPs starts at a barrier of its own (add_message()),
	 * which no QP's previous flow holds back */
	bool whole = lanes == 1 && !(rb->e->pc.split_data_on_qps && nq > 1);
	int rc = 0;

	if (s > 0 && c->up != PK_NONE) {
		const struct ring_conn *u = &rb->c[c->up];
		uint32_t um = (FT_MIN(loop, u->loops - 1) * rb->steps + s - 1) * u->slices +
		              FT_MIN(j, u->slices - 1);

		rc = ft__pk_add_dep(rb->e, rb->recv[u->first + um], to);
	}
	/* under a cap, message m >= 1 waits for its pace (ft__pk_cap_period_ps()), or for
	 * its send's own (send_pace()) */
	if (rc == 0 && m > 0 && rb->pace && m < rb->pace_msgs) {
		rc = ft__pk_add_dep(rb->e, rb->pace[m - 1], to);
		/* the last pace: held where it is the last wait (a send's window, last_held) */
		if (rc == 0 && m + 1 == rb->pace_msgs)
			ft__pk_mark_paced(rb->e, to);
	}
	if (rc == 0 && m > 0 && m <= c->npace) {
		rc = ft__pk_add_dep(rb->e, c->pace0 + m - 1, to);
		/* a whole message (its pace its only barrier): told when the pace held it
		 * (pkt_flow.c task_done()); a split run's rank marks the records it keeps */
		if (rc == 0 && whole)
			ft__pk_mark_paced(rb->e, to);
	}
	if (c->slots)
		slots = c->slots;
	if (rc == 0 && m >= slots)
		rc = ft__pk_add_dep(rb->e, rb->recv[c->first + m - slots], to);
	/* The first message on each QP waits for the phase; the others follow it (a
	 * message is on every lane, on QP m mod nq of each). A split message that waits
	 * for nothing else (a send's first slots) waits for the phase too. */
	if (rc == 0 && (m < (rb->e->pc.split_data_on_qps ? 1 : nq) ||
	                (!whole && m < slots && !(s > 0 && c->up != PK_NONE))))
		rc = ft__pk_add_dep(rb->e, c->start, to);
	return rc;
}

/*
 * A ring's phases of several steps, and PAT's dimensions: NCCL's PAT kernel moves a
 * dimension's blocks in its chunks through the step slots of each connection (NVIDIA/nccl
 * src/device/all_gather.h and reduce_scatter.h runPat(), on the ncclPatShmem steps), so a
 * dimension is a phase of one step cut into them, and the model's time of PAT
 * (ft__sim_pat_cap(), the op's cap) paces its messages as a ring's (ft__pk_cap_period_ps()).
 * Whole, its flows ran at their links' rate: nothing held them to the pace.
 */
bool
ft__pk_is_chunked(const struct pk_engine *e, const struct ft_schedule *sc,
                  const struct ft_sched_phase *ph)
{
	return e->pc.chunking != FT_PKT_CHUNK_OFF && ft__sim_ring_chunks(sc, ph);
}

/*
 * The rings a ring phase of @op runs on each of the schedule's: reps = launched / copies,
 * where NCCL launches more channels at the op's size (the model's count,
 * ft__sim_pipe_model(), read by pkt_setup.c pipe_read(); src/enqueue.cc
 * topoGetAlgoInfo()) than the phase has rings (copies: its flows over the ranks, one a
 * channel of the schedule: 1 on one DGX H100, 8 on 2). NCCL's ring all-reduce kernel
 * moves each channel's own part in loops of one chunk a rank, the channels side by side
 * (NVIDIA/nccl v2.27.7-1 src/device/all_reduce.h runRing(): a block's loop over
 * its channel's range, 2 (n - 1) steps a loop; LL's chunk one step, 32 KiB of data,
 * src/enqueue.cc computeColl()), so one DGX H100's one ring at 1 MiB moved four loops of
 * 14 steps in series where NCCL's 24 channels move one loop each. Each of a connection's
 * reps carries 1 / reps of its bytes as a connection of its own (ring_conns(), rep r fed
 * by rep r: pair_feeds()); the cap's pace (S over the cap a message of a rep) is the
 * same. Every protocol: runRing() takes its channel's part from ncclCollCbdPart() in LL,
 * LL128 and Simple alike (src/include/device.h: the part is the channel's, the protocol
 * sets only its grain and chunk); LL alone ran so before, and one DGX H100's one ring
 * carried LL128's 64 MiB in loops of its chunk, each loop's 14 steps in turn, 506.18 us
 * where the flow engine takes 395.79, Simple's 1 MiB 66.19 us against 61.70, and 4 MiB
 * 84.79 against 76.99 (sim.md, "LL128 and Simple rings"). Chains keep their own rule
 * (pkt_tree.c chain_channels(): LL only). Forced channels are NCCL's own: 1.
 */
static uint32_t
ring_reps(const struct pk_engine *e, const struct ft_sim_op *op, const struct ft_sched_phase *ph)
{
	return ft__sim_ring_reps(op, ph, e->op_pl_read ? e->op_pl.nchannels : 0);
}

/*
 * The connections of phase @ph, cut (@reps a flow, ring_reps()); 1 when one carries fewer
 * bytes than messages. Copy r of a connection is NCCL's launched channel of its own, whose
 * connect opened NCCL_IB_QPS_PER_CONNECTION QPs of its own (NVIDIA/nccl v2.27.7-1
 * src/transport/net_ib.cc ncclIbConnect()): where the routing hashes per QP
 * (ft__sim_qp_hashed(): ECMP over RoCE, where each QP's UDP source port differs, kb
 * ROCE-WIRE) its QPs are c x nq to c x nq + nq - 1, c NCCL's channel: graph ring i's copy r
 * is channel i + r x rings (ft__sim_flow_chans(): src/graph/connect.cc ncclTopoPostset()
 * copies channel i to i + nChannels), so that ECMP may put each copy, and each of two rings
 * between the same two GPUs, on a path of its own. The flow engine cuts the connection
 * into the same parts on the same QPs where their paths differ (engine_flow.c
 * chan_parts()). Elsewhere the copies keep QP 0's numbers: D-mod-K and adaptive routing do
 * not read them, nor InfiniBand's LFTs (by destination LID), SRD's spraying or TCPX's
 * sockets.
 */
static int
ring_conns(struct ring_build *rb, const struct ft_sim_op *op, const struct ft_sched_phase *ph,
           double eff, const struct ft_model_chunking *ch, uint32_t reps, uint32_t *nmsg,
           struct ft_error *err)
{
	const struct ft_schedule *sc = op->sched;
	bool own = ft__sim_qp_hashed(rb->e->topo, &rb->e->cfg);
	struct ft__sim_phase_chans pc;
	struct ft__sim_chans chans = { 0 };
	uint32_t f, edge = 0;
	int rc;

	*nmsg = 0;
	ft__sim_phase_chans_get(op, ph, NULL, &pc);
	for (f = 0; f < ph->nflows * reps; f++) {
		struct ft_sched_flow fl;
		struct ring_conn *c = &rb->c[rb->n];
		uint64_t bytes;

		ft_sched_phase_flow(sc, ph, f / reps, &fl);
		if (f % reps == 0) { /* its graph ring: a relay leg carries the edge before on */
			edge += !fl.relay;
			chans = ft__sim_flow_chans(op, ph, &pc, &fl, edge - 1u);
		}
		rc = ft__sim_flow_ends(rb->e->topo, sc, op, &fl, &c->src, &c->dst, err);
		if (rc < 0)
			return rc;
		bytes = share(fl.bytes, reps, f % reps);
		if (c->src == c->dst || bytes == 0)
			continue;
		c->wire = (uint64_t)((double)bytes / eff + 0.5);
		c->nic = ft__sim_flow_nic_id(rb->e->topo, &fl, c->src, c->dst);
		ft__pk_cut(c, bytes, rb->steps, ch);
		c->start = rb->start;
		c->end = rb->bar;
		c->nq = ft__pk_conn_qps(rb->e, c->src, c->dst);
		c->qp0 = own ? (chans.chan0 + f % reps * chans.stride) * c->nq : 0;
		if (c->wire < c->nmsg || (uint64_t)*nmsg + c->nmsg >= UINT32_MAX)
			return 1;
		c->first = *nmsg;
		*nmsg += c->nmsg;
		rb->n++;
	}
	return pair_feeds(rb->c, rb->n);
}

int
ft__pk_add_messages(struct ring_build *rb, uint32_t nmsg)
{
	struct pk_engine *e = rb->e;
	uint32_t i, m;
	int rc = 0;

	rb->last = ft_calloc((size_t)e->max_qps * 2, sizeof(uint32_t));
	rb->rank_last = rb->last ? rb->last + e->max_qps : NULL;
	rb->ready = ft_calloc((size_t)nmsg * 2 + 1, sizeof(uint32_t));
	rb->recv = rb->ready ? rb->ready + nmsg : NULL;
	if (!rb->last || !rb->ready)
		rc = FT_ENOMEM;
	for (i = 0; i < rb->n && rc == 0; i++) {
		for (m = 0; m < e->max_qps * 2; m++)
			rb->last[m] = PK_NONE;
		for (m = 0; m < rb->c[i].nmsg && rc == 0; m++)
			rc = add_message(rb, &rb->c[i], m);
	}
	return rc;
}

void
ft__pk_build_release(struct ring_build *rb)
{
	ft_free(rb->c);
	ft_free(rb->last);
	ft_free(rb->ready);
	ft_free(rb->pace);
}

/* The messages of the @rb->n connections (@nmsg in all), @slots in flight on each. */
static int
build_messages(struct ring_build *rb, uint32_t nmsg, uint32_t slots)
{
	uint32_t i, m;
	int rc = ft__pk_pace_tasks(rb);

	if (rc == 0)
		rc = ft__pk_add_messages(rb, nmsg);
	for (i = 0; i < rb->n && rc == 0; i++)
		for (m = 0; m < rb->c[i].nmsg && rc == 0; m++)
			rc = link_message(rb, i, m, slots);
	ft__pk_build_release(rb);
	return rc;
}

int
ft__pk_submit_ring(struct pk_engine *e, const struct ft_sim_op *op, const struct ft_sched_phase *ph,
                   double eff, uint32_t start, uint32_t bar, uint32_t tag, struct ft_error *err)
{
	struct ft_model_chunking ch;
	struct ring_build rb = { .e = e,
		                 .steps = ph->steps,
		                 .tag = tag,
		                 .start = start,
		                 .bar = bar,
		                 .lane_split = true };
	struct ft_model_buffs bu;
	uint32_t nmsg = 0, reps = ring_reps(e, op, ph);
	int rc;

	/* the protocol's own buffer: NCCL_BUFFSIZE, NCCL_LL_BUFFSIZE or NCCL_LL128_BUFFSIZE */
	ft_model_buffs_get(ft_topo_spec(e->topo), &bu);
	ft_model_chunking_get(op->sched->op, op->sched->algo, op->sched->proto, &bu, &ch);
	rb.c = ft_calloc(ph->nflows ? (size_t)ph->nflows * reps : 1, sizeof(*rb.c));
	rc = rb.c ? ring_conns(&rb, op, ph, eff, &ch, reps, &nmsg, err) : FT_ENOMEM;
	if (rc == 0 && nmsg == 0)
		rc = 1;
	if (rc != 0) {
		ft_free(rb.c);
		return rc;
	}
	/* NCCL's per-channel caps: a connection's message m >= 1 no earlier than m periods
	 * after the phase's start (pkt_tree.c cap_pace()) */
	for (uint32_t i = 0; i < rb.n; i++)
		rb.pace_msgs = FT_MAX(rb.pace_msgs, rb.c[i].nmsg);
	rb.pace_ps = ft__pk_cap_period_ps(op, ph, eff, rb.pace_msgs);
	/* (built as its messages may start where it can be, pkt_tree.c; else whole) */
	rc = ft__pk_lazy_ring(e, &rb, nmsg, ch.slots);
	if (rc == 1)
		rc = build_messages(&rb, nmsg, ch.slots);
	else if (rc < 0)
		ft__pk_build_release(&rb);
	if (rc == 0) /* the path latencies are simulated now: the barrier keeps the rest */
		task_of(e, bar)->lat_mult = 0;
	return rc;
}

/* ---- NCCL's send/recv: point-to-point phases and all-to-alls ---------------------- */

struct p2p_build {
	struct ring_build rb;
	uint32_t cap;   /* connections rb.c holds */
	uint32_t nmsg;  /* messages so far */
	uint32_t slots; /* messages in flight per connection */
	uint32_t notice; /* the next send's notice task + 1 (0: none) */
};

/* Whether the send from vertex @a to @b goes over the network: two nodes, unless two GPUs
 * of one NVLink domain (NCCL's MNNVL, ft__sim_over_network()). */
static inline uint32_t
crosses_nodes(const struct ft_topo *t, uint32_t a, uint32_t b)
{
	return ft__sim_over_network(t, a, b);
}

/* The connections of a send of @payload from @a to @b through PXN proxy @via (PK_NONE:
 * none), over NCCL's channels of @ch, whose first messages wait for @start and whose end
 * is @end. */
static int
p2p_send(struct p2p_build *pb, uint64_t payload, uint32_t a, uint32_t b, uint32_t via,
         const struct ft_model_p2p_chunking *ch, uint32_t start, uint32_t end)
{
	struct ft_model_chunking by = { ch->chunk_bytes, ch->chunk_bytes, ch->slots };
	double eff = ft_proto_efficiency(ch->proto);
	uint32_t k;

	pb->slots = ch->slots;
	for (k = 0; k < ch->channels; k++) {
		uint64_t part = share(payload, ch->channels, k);
		struct ring_conn *c = &pb->rb.c[pb->rb.n];

		if (part == 0)
			continue;
		if (pb->rb.n == pb->cap)
			return FT_ERANGE;
		c->src = a;
		c->dst = b;
		c->start = start;
		c->end = end;
		c->up = PK_NONE;
		c->notice = pb->notice;
		/* channel k's QPs: qps_per_conn on each NIC the send spreads over, each message
		 * split over them (lane_split), as a ring's connection's are. NCCL binds a
		 * channel to one NIC (ncclTopoGetLocalNet(): the channel id modulo the GPU's
		 * NICs) and gives a network peer at least as many channels as the GPU has NICs
		 * (NCCL_NCHANNELS_PER_NET_PEER, kb ENV-NCH_NET_PEER), so each NIC carries its
		 * share of the send; the flow engine splits each channel over every lane
		 * (engine_flow.c spawn_conn()), and the model's channels per peer (2 at 100
		 * Gb/s) can be fewer than the NICs: the even split keeps both engines alike. */
		c->pxn = via == PK_NONE ? 0
		                        : (uint8_t)(ft_topo_vertex(pb->rb.e->topo, via)->local + 1);
		c->nic = 0;
		/* (through a PXN proxy, the proxy's NICs carry it: spawn_conn()'s rule) */
		c->nq = ft__pk_conn_qps(pb->rb.e, via == PK_NONE ? a : via, b);
		c->qp0 = k * c->nq;
		c->wire = FT_MAX((uint64_t)((double)part / eff + 0.5), 1);
		ft__pk_cut(c, part, 1, &by);
		if ((uint64_t)pb->nmsg + c->nmsg >= UINT32_MAX)
			return FT_ERANGE;
		c->nmsg = (uint32_t)FT_MIN((uint64_t)c->nmsg, c->wire);
		c->first = pb->nmsg;
		c->slots = ch->slots;
		pb->nmsg += c->nmsg;
		pb->rb.n++;
	}
	return 0;
}

/*
 * A send's own pace: message m >= 1 of each of the channels of connections @first to
 * pb->rb.n (one send's, their start its start) no earlier than m x @pace_ps after that
 * start (a barrier each, shared by its channels). NCCL's window holds each channel of a
 * send to its slots' chunks a round trip, counted from the send's first post, not its
 * phase's: a send that starts later is paced from then.
 */
static int
send_pace(struct p2p_build *pb, uint32_t first, uint64_t pace_ps)
{
	uint32_t n = 0, k, m, pace0 = 0;

	for (k = first; k < pb->rb.n; k++)
		n = FT_MAX(n, pb->rb.c[k].nmsg);
	for (m = 1; m < n; m++) {
		int64_t b = ft__pk_add_task(pb->rb.e, PK_T_BARRIER, m * pace_ps, 0, pb->rb.tag);

		if (b < 0 || ft__pk_add_dep(pb->rb.e, pb->rb.c[first].start, (uint32_t)b) < 0)
			return FT_ENOMEM;
		task_of(pb->rb.e, (uint32_t)b)->pace = 1; /* (struct pk_cp) */
		if (m == 1)
			pace0 = (uint32_t)b;
		else if (FT_NEVER((uint32_t)b != pace0 + m - 1))
			return FT_EINVAL;
	}
	for (k = first; k < pb->rb.n && n > 1; k++) {
		pb->rb.c[k].pace0 = pace0;
		pb->rb.c[k].npace = pb->rb.c[k].nmsg - 1;
	}
	return 0;
}

/*
 * The period of a send from @a to @b cut as @ch under NCCL's window
 * (ft__sim_p2p_send_window(), its slots those it shares): a channel's chunk every
 * channels x chunk / window, which is the round trip over its slots, ps; 0 where the
 * send has no window.
 */
static uint64_t
send_period_ps(const struct pk_engine *e, const struct ft_model_p2p_chunking *ch, uint32_t a,
               uint32_t b, uint32_t via)
{
	double w = ft__sim_p2p_send_window_via(e->topo, ch, a, b,
	                                       via == PK_NONE ? UINT32_MAX : via, NULL);
	double p = w > 0 ? (double)ch->channels * (double)ch->chunk_bytes / w * PK_PS_PER_S : 0;

	return p >= 1 && p < 1e18 ? (uint64_t)(p + 0.5) : 0;
}

/* A PXN proxy's GPU index + 1 fits struct pk_flow pxn (5 bits). */
_Static_assert(FT_SPEC_MAX_GPUS < 31, "struct pk_flow pxn holds a GPU index + 1 in 5 bits");
_Static_assert(FT_SPEC_MAX_NICS < 63, "struct pk_flow nic holds a NIC index + 1 in 6 bits");

/* The PXN proxy of a send from @a to @b among the job's GPUs of @a's node (@comm by node
 * id, @ncomm of them: ft__sim_comm_gpus_by_node()): ft__sim_pxn_proxy_in(), as NCCL
 * chooses it on the communicator's own topology; UINT32_MAX where @a sends from its own
 * NIC. */
static uint32_t
job_proxy(const struct pk_engine *e, uint32_t a, uint32_t b, const uint32_t *comm,
          uint32_t ncomm)
{
	uint32_t na = ft_topo_vertex(e->topo, a)->node;

	return ft__sim_pxn_proxy_in(e->topo, a, b, na < ncomm ? comm[na] : 0);
}

/* The clear-to-send of a receiver @b for its next sender @a2: a task of @kind after the
 * send to @b that waits the path latency from @b back to @a2: NCCL's receiver posts its
 * buffer by an RDMA write into the sender's FIFO (src/transport/net_ib.cc). Where @a2
 * sends through a PXN proxy (job_proxy() among the job's GPUs @comm), that FIFO is the
 * proxy's, whose NIC sends: the write crosses @b's rail to it, and the sender reads it
 * over NVLink. */
static int64_t
notice_task(struct pk_engine *e, enum pk_task_kind kind, uint32_t b, uint32_t a2, uint32_t tag,
            const uint32_t *comm, uint32_t ncomm)
{
	uint32_t via = job_proxy(e, a2, b, comm, ncomm);
	uint64_t lat = 0, hop = 0, h = ft_mix64(((uint64_t)b << 32) | a2);
	int rc;

	if (via == UINT32_MAX)
		rc = ft__pk_path_lat(e, b, a2, UINT32_MAX, h, &lat);
	else if ((rc = ft__pk_path_lat(e, b, via, UINT32_MAX, h, &lat)) == 0)
		rc = ft__pk_path_lat(e, via, a2, UINT32_MAX,
		                     ft_mix64(((uint64_t)via << 32) | a2), &hop);
	return rc < 0 ? rc : ft__pk_add_task(e, kind, lat + hop, 0, tag);
}

/* The PXN proxy of a send from @a to @b over the network among the job's GPUs @comm
 * (job_proxy(); NCCL's PXN, kb ENV-PXN), PK_NONE where it leaves by @a's own NIC or stays
 * in the node. */
static uint32_t
a2a_via(const struct pk_engine *e, uint32_t a, uint32_t b, uint32_t net, const uint32_t *comm,
        uint32_t ncomm)
{
	uint32_t v = net ? job_proxy(e, a, b, comm, ncomm) : UINT32_MAX;

	return v == UINT32_MAX ? PK_NONE : v;
}

/* What a message from @a to @b between nodes pays on top of what the model adds to a
 * network step: NCCL's per-hop network latency @hw_s less the path its packets walk (the
 * relay's through @via where PXN relays, ft__pk_pair_path_s()), where that is shorter, as
 * a ring's step (pkt_setup.c walk_back_s()); eager (p2p_alltoall()) and lazy (lazy_send())
 * sends alike. */
static double
a2a_floor_s(struct pk_engine *e, double hw_s, uint32_t a, uint32_t b, uint32_t via)
{
	return FT_MAX(0.0, hw_s - ft__pk_pair_path_s(e, a, b, via));
}

/* NCCL's window on the sends over the network of all-to-all phase @ph of @op, cut as
 * @ch on the channels of @comm: @s set to what a send's slots come from
 * (ft__sim_a2a_send_ch(); its buffer new, the caller's to free; none on one node, where
 * no send crosses the network); @windowed whether the window binds (ft__sim_a2a_window(),
 * the flow engine's rule). Returns 0 or FT_ENOMEM. */
static int
a2a_windowed(const struct pk_engine *e, const struct ft_sim_op *op,
             const struct ft_sched_phase *ph, const struct ft_model_p2p_comm *comm,
             const struct ft_model_p2p_chunking *ch, struct ft__sim_a2a_slots *s,
             bool *windowed)
{
	int rc;

	*windowed = false;
	s->row = NULL;
	if (comm->nnodes < 2)
		return 0;
	rc = ft__sim_a2a_window(e->topo, op->rank_gpu, ph->a2a_group_size, ph->a2a_stride,
	                        comm->p2p_nchannels, ch, s, true);
	if (rc < 0)
		return rc;
	*windowed = rc > 0;
	return 0;
}

/*
 * An all-to-all phase as NCCL schedules its sends: rank i of a group sends to i + k in
 * round k; up to peers_inflight rounds are in progress per rank at once, each round in
 * one of as many lanes (a channel's batch slot), so the send of round k starts once the
 * send of round k - W of the same rank is done (its lane is free) and the receiver's
 * receive of round k - W too (the send of rank i + W). The sender learns of its send's
 * end one path latency of it after its last byte arrived (its end barrier waits it: the
 * completion coming back); the other sender by the receiver's clear-to-send for its next
 * receive, which travels the path from the receiver back to it (the send's notice, a
 * second barrier after its flows). Those delays are also what let a run split across MPI
 * ranks tell every rank of the end (pkt_part.c). Every send pays the
 * per-message cost of its link class at its start (kb NA-MODEL hwLat), and is cut at its
 * connection's protocol: an NVLink send keeps LL inside a multi-node all-to-all.
 */
static int
p2p_alltoall(struct p2p_build *pb, const struct ft_sim_op *op, const struct ft_sched_phase *ph)
{
	struct pk_engine *e = pb->rb.e;
	const struct ft_schedule *sc = op->sched;
	struct ft_model_p2p_chunking ch[2];
	struct ft_model_p2p_comm comm;
	uint32_t m = ph->a2a_group_size, ngroups, w, nbuf, k, g, i, *ends, first;
	uint32_t *comm_mask, ncomm = 0;
	/* (set by ft__sim_a2a_window(), its row ours to free; NULL: ch[1]'s for all) */
	struct ft__sim_a2a_slots slots = { 0 };
	size_t per_round;
	double net_step = 0;
	bool windowed = false;
	int rc = 0;

	ngroups = (uint32_t)(ph->npairs / ((uint64_t)m * (m - 1)));
	/* Per connection ([net]): an NVLink send keeps LL inside a multi-node all-to-all; the
	 * channels are the communicator's, the same for both. */
	rc = ft__sim_p2p_comm(e->topo, m,
	                      ft__sim_spans_nodes(e->topo, op->rank_gpu, m, ph->a2a_stride),
	                      e->line_Bps, &comm);
	if (rc < 0)
		return rc;
	ft_model_p2p_chunking_conn(&comm, ph->bytes_per_pair, false, &ch[0]);
	ft_model_p2p_chunking_conn(&comm, ph->bytes_per_pair, comm.nnodes > 1, &ch[1]);
	w = ch[1].peers_inflight;
	/* a send over the network shares its channels' slots with the sends of its proxy op;
	 * where that window binds, each such send is paced from its own start (send_pace()) */
	rc = a2a_windowed(e, op, ph, &comm, &ch[1], &slots, &windowed);
	if (rc < 0)
		return rc;
	/* the job's GPUs a node: its PXN proxies' choice (a2a_via()) */
	comm_mask = ft__sim_comm_gpus_by_node(e->topo, op->rank_gpu, sc->nranks, &ncomm);
	nbuf = FT_MIN(w, m - 1) + 1;
	per_round = (size_t)ngroups * m;
	if ((uint64_t)ph->npairs * ch[1].channels >= UINT32_MAX) {
		ft_free(slots.row);
		ft_free(comm_mask);
		return FT_ERANGE;
	}
	pb->cap = (uint32_t)(ph->npairs * ch[1].channels);
	pb->rb.c = ft_calloc(pb->cap, sizeof(*pb->rb.c));
	ends = ft_calloc(2 * (size_t)nbuf * per_round, sizeof(uint32_t));
	if (!pb->rb.c || !ends || !comm_mask)
		rc = FT_ENOMEM;
	/* a send between nodes also pays what the model adds to a network hop (the plugin's
	 * latency, the flush, a hypervisor's cost: ft__sim_net_step_s()), as the flow
	 * engine's do */
	if (rc == 0)
		rc = ft__sim_net_step_s(e->topo, ch[1].proto, &net_step);
	for (k = 1; k < m && rc == 0; k++) {
		for (g = 0; g < ngroups && rc == 0; g++) {
			uint32_t base =
			        (uint32_t)((g / ph->a2a_stride) * ((uint64_t)ph->a2a_stride * m) +
			                   g % ph->a2a_stride);
			uint32_t *now = ends + (size_t)(k % nbuf) * per_round + (size_t)g * m;
			uint32_t *then = ends + (size_t)((k + nbuf - w % nbuf) % nbuf) * per_round +
			                 (size_t)g * m;

			for (i = 0; i < m && rc == 0; i++) {
				uint32_t a = op->rank_gpu[base + i * ph->a2a_stride];
				uint32_t b = op->rank_gpu[base + ((i + k) % m) * ph->a2a_stride];
				uint32_t net = crosses_nodes(e->topo, a, b);
				/* a send to another rail through its PXN proxy (a2a_via()) */
				uint32_t via = a2a_via(e, a, b, net, comm_mask, ncomm);
				/* inside a node the row of its link (the schedule's intra) */
				double hw = ft_coll_hw_latency(net ? FT_HW_NET : sc->intra,
				                               sc->algo, ch[net].proto);
				double cost = net ? a2a_floor_s(e, hw, a, b, via) + net_step : hw;
				struct ft_model_p2p_chunking mine;
				int64_t s0 = ft__pk_add_task(e, PK_T_BARRIER, s_to_ps(cost), 0,
				                             pb->rb.tag);
				int64_t end = ft__pk_add_task(e, PK_T_BARRIER, 0, 1, pb->rb.tag);
				int64_t cts = notice_task(
				        e, PK_T_BARRIER, b,
				        op->rank_gpu[base + ((i + m - w % m) % m) * ph->a2a_stride],
				        pb->rb.tag, comm_mask, ncomm);

				if (s0 < 0 || end < 0 || cts < 0 ||
				    ft__pk_add_dep(e, (uint32_t)end, pb->rb.bar) < 0)
					rc = FT_ENOMEM;
				else if (k <= w)
					rc = ft__pk_add_dep(e, pb->rb.start, (uint32_t)s0);
				else if (ft__pk_add_dep(e, then[i], (uint32_t)s0) < 0 ||
				         ft__pk_add_dep(e, then[nbuf * per_round + (i + w) % m],
				                        (uint32_t)s0) < 0)
					rc = FT_ENOMEM;
				now[i] = (uint32_t)end;
				now[nbuf * per_round + i] = (uint32_t)cts;
				pb->notice = (uint32_t)cts + 1;
				first = pb->rb.n;
				/* its own slots: those of the proxy op NCCL puts it in */
				ft__sim_a2a_send_ch(&ch[1], net ? &slots : NULL, i, (i + k) % m,
				                    &mine);
				if (rc == 0)
					rc = p2p_send(pb, ph->bytes_per_pair, a, b, via,
					              net ? &mine : &ch[0], (uint32_t)s0,
					              (uint32_t)end);
				if (rc == 0 && net && windowed)
					rc = send_pace(pb, first,
					               send_period_ps(e, &mine, a, b, via));
			}
		}
	}
	ft_free(slots.row);
	ft_free(ends);
	ft_free(comm_mask);
	return rc;
}

/*
 * A point-to-point phase: every flow one send, starting with the phase or its offset after
 * it (struct ft_sched_flow.start_ns: a barrier that long after the phase's start). Under
 * NCCL's window (the op's conn_cap_Bps, which the runner sets from ft__sim_p2p_cap() where
 * the window is below a send's path), message m >= 1 of each of a send's channels starts
 * no earlier than m periods after the send's own start (send_pace(), the period
 * ft__pk_cap_period_ps() over the messages of a channel: the send's bytes at the cap, as
 * the flow engine caps the send's rate from whenever it starts). The slots alone (m waits
 * for message m - NCCL_STEPS to arrive) would count only the way there, not the
 * clear-to-send's way back.
 */
static int
p2p_flows(struct p2p_build *pb, const struct ft_sim_op *op, const struct ft_sched_phase *ph,
          struct ft_error *err)
{
	const struct ft_schedule *sc = op->sched;
	bool multi = ft__sim_spans_nodes(pb->rb.e->topo, op->rank_gpu, sc->nranks, 1);
	uint32_t f, nch, *first, nsend = 0, msgs = 0;
	struct ft_model_p2p_comm comm;
	uint64_t pace_ps;
	int rc;

	/* NCCL's p2p channels on the engine's cluster (the model's channel count, the
	 * communicator's, ft__sim_p2p_comm()): the model's error the op's */
	rc = ft__sim_p2p_comm(pb->rb.e->topo, sc->nranks, multi, pb->rb.e->line_Bps, &comm);
	if (rc < 0)
		return rc;
	nch = comm.p2p_nchannels;

	pb->cap = ph->nflows * nch;
	pb->rb.c = ft_calloc(pb->cap ? pb->cap : 1, sizeof(*pb->rb.c));
	first = ft_calloc((size_t)ph->nflows + 1, sizeof(uint32_t));
	if (!pb->rb.c || !first) {
		ft_free(first);
		return FT_ENOMEM;
	}
	for (f = 0; f < ph->nflows && rc == 0; f++) {
		struct ft_model_p2p_chunking ch;
		struct ft_sched_flow fl;
		uint32_t a = 0, b = 0, start = pb->rb.start;
		int64_t at;

		ft_sched_phase_flow(sc, ph, f, &fl);
		rc = ft__sim_flow_ends(pb->rb.e->topo, sc, op, &fl, &a, &b, err);
		if (rc < 0 || a == b || fl.bytes == 0)
			continue;
		if (fl.start_ns > 0) {
			at = ft__pk_add_task(pb->rb.e, PK_T_BARRIER,
			                     (uint64_t)fl.start_ns * 1000, 0, pb->rb.tag);
			if (at < 0 || ft__pk_add_dep(pb->rb.e, start, (uint32_t)at) < 0) {
				rc = FT_ENOMEM;
				break;
			}
			start = (uint32_t)at;
		}
		/* Per connection: a send to an NVLink peer keeps LL in a multi-node job. */
		ft_model_p2p_chunking_conn(&comm, fl.bytes, crosses_nodes(pb->rb.e->topo, a, b), &ch);
		first[nsend++] = pb->rb.n;
		rc = p2p_send(pb, fl.bytes, a, b, PK_NONE, &ch, start, pb->rb.bar);
	}
	first[nsend] = pb->rb.n;
	for (f = 0; f < pb->rb.n && rc == 0; f++)
		msgs = FT_MAX(msgs, pb->rb.c[f].nmsg);
	pace_ps = rc == 0 ? ft__pk_cap_period_ps(op, ph, sc->proto_eff > 0 ? sc->proto_eff : 1,
	                                         msgs) :
	                    0;
	for (f = 0; f < nsend && pace_ps && rc == 0; f++) {
		uint32_t n = pb->rb.n;

		pb->rb.n = first[f + 1]; /* (send f's connections) */
		rc = send_pace(pb, first[f], pace_ps);
		pb->rb.n = n;
	}
	ft_free(first);
	return rc;
}

bool
ft__pk_is_p2p(const struct pk_engine *e, const struct ft_sim_op *op,
              const struct ft_sched_phase *ph)
{
	/* Send/recv ops and background patterns are the engine's traffic generators too
	 * (incasts, permutations, synthetic all-to-alls): cut only when NCCL's chunking is
	 * asked for by name. */
	bool traffic = op->job == UINT32_MAX || op->sched->op == FT_OP_SENDRECV;
	/* A send/recv under NCCL's window (conn_cap_Bps: the runner sets it only where the
	 * window binds, ft__sim_p2p_cap()) is cut as NCCL cuts it, which paces it. */
	bool windowed = op->sched->op == FT_OP_SENDRECV && op->conn_cap_Bps > 0;

	if (e->pc.chunking == FT_PKT_CHUNK_OFF ||
	    (traffic && e->pc.chunking != FT_PKT_CHUNK_NCCL && !windowed))
		return false;
	return ph->implicit_alltoall ? ph->a2a_group_size > 1 && ph->bytes_per_pair > 0 :
	                               op->sched->op == FT_OP_SENDRECV;
}

static int lazy_submit(struct pk_engine *e, const struct ft_sim_op *op,
                       const struct ft_sched_phase *ph, uint32_t start, uint32_t bar,
                       uint32_t tag);

/* The NICs a send between nodes of @op spreads over (ft__pk_conn_qps()), the same for
 * every pair of its ranks; 0 when two of its GPUs drive different numbers of NICs. */
static uint32_t
net_lanes(const struct pk_engine *e, const struct ft_sim_op *op)
{
	uint32_t l = ft__sim_gpu_lanes(e->topo, op->rank_gpu[0]);

	for (uint32_t r = 1; r < op->sched->nranks; r++)
		if (ft__sim_gpu_lanes(e->topo, op->rank_gpu[r]) != l)
			return 0;
	return e->spray ? 1 : l;
}

int
ft__pk_submit_p2p(struct pk_engine *e, const struct ft_sim_op *op, const struct ft_sched_phase *ph,
                  uint32_t start, uint32_t bar, uint32_t tag, struct ft_error *err)
{
	struct p2p_build pb = { .rb = { .e = e,
		                        .steps = 1,
		                        .tag = tag,
		                        .start = start,
		                        .bar = bar,
		                        .lane_split = true } };
	int rc;

	/* (lazy sends reuse records from where their first slot was: not beside the records
	 * of a lazy NVLS tree, which has its own; and every send of a shape must have as many
	 * records: its NICs the same for all) */
	if (ph->implicit_alltoall && !e->a2a_eager && !e->tlazy && net_lanes(e, op) > 0) {
		rc = lazy_submit(e, op, ph, start, bar, tag);
		if (rc == 0) /* the path latencies are simulated: the barrier keeps the rest */
			task_of(e, bar)->lat_mult = 0;
		return rc;
	}
	/* Built whole (a2a_eager: a split run, the tests; beside a lazy NVLS tree, tree or
	 * ring), the sends are those lazy_send() builds. */
	rc = ph->implicit_alltoall ? p2p_alltoall(&pb, op, ph) : p2p_flows(&pb, op, ph, err);
	if (rc < 0) {
		ft_free(pb.rb.c);
		return rc;
	}
	rc = build_messages(&pb.rb, pb.nmsg, pb.slots);
	if (rc == 0) /* the path latencies are simulated now: the barrier keeps the rest */
		task_of(e, bar)->lat_mult = 0;
	return rc;
}

/*
 * ---- Lazy all-to-alls ------------------------------------------------------------------
 *
 * A flat all-to-all over n ranks is n(n - 1) sends, each a few tasks and flows: 16.8M
 * sends over 4,096 GPUs. A rank never has more than its W sends in progress, so an
 * all-to-all phase of NCCL's sends is one task in the graph (PK_T_A2A): starting it
 * builds the sends of the first W rounds; when a send has ended (its PK_T_A2A_END
 * barrier, whose flow field names its slot) the sends that waited for it and are now
 * free to start are built, into the records of an ended send when one is free. The
 * sends, their records and their dependencies are exactly those p2p_alltoall() builds,
 * and they start in the order its graph starts them (the successors of an end in the
 * order it adds them), so the run is the same. An ended send's records wait twice its
 * path latency (and for its notice, PK_T_A2A_CTS, whose end tells the send that waited
 * for the receiver's clear-to-send) before reuse: a CNP or an RTT sample for its last packets is still on
 * its way back until one path latency after the end. A lossy run's NAKs, resent packets
 * and timers outlive a flow by no bounded time: there a send's records wait for its
 * notice and until nothing names its flows (struct pk_refs, pkt_tree.c lossy_release(),
 * slot_put()), and a reused flow record takes its timer generations on. What the records
 * do not keep: the links its
 * flows crossed, for the op's bottleneck, kept per link as the first flow that crossed
 * it (the order of the whole graph's flows). A send has one of two shapes, its
 * connection's (an NVLink peer's protocol or the network's: ft_model_p2p_chunking_conn()),
 * and an ended send's records are reused by a send of the same shape.
 */
struct lazy_slot {
	uint32_t phase;
	uint32_t net;          /* its shape (a2a_shape()): 0 in the node */
	uint32_t task0, flow0; /* its records */
	uint32_t succ0;        /* its successor entries in e->succ, PK_NONE: none yet */
	uint32_t next;         /* the next ended slot, PK_NONE */
	uint32_t held;         /* a lossy run's: its flows still named once it has ended */
	uint64_t send;         /* round-major: ((k - 1) x groups + g) x m + i */
	uint64_t free_ps;      /* reusable after */
};

/* A send's shape: its records and their dependencies. One in the node; over the network
 * one per slot count a send can keep (ft_model_p2p_share_slots(): 8, 5, 4, 3, 2), since a
 * chunk waits for the one its slots before it. */
#define PK_A2A_SHAPES 6

static uint32_t
a2a_shape(uint32_t net, uint32_t slots)
{
	return !net ? 0 : slots >= 8 ? 1 : slots >= 5 ? 2 : slots == 4 ? 3 : slots == 3 ? 4 : 5;
}

struct lazy_phase {
	uint32_t task, tag;
	uint32_t m, ngroups, stride, w;
	uint32_t *gpu; /* the op's ranks */
	/* the op's GPUs a node (ft__sim_comm_gpus_by_node()): its PXN proxies' */
	uint32_t *comm, ncomm;
	uint64_t payload;
	/* Per shape [net]: in the node, over the network. */
	struct ft_model_p2p_chunking ch[2];
	bool windowed;               /* a send over the network paced (a2a_windowed()) */
	/* by view and p2p round (ft__sim_a2a_send_ch()); row NULL: ch[1]'s for all */
	struct ft__sim_a2a_slots slots;
	uint64_t cost_ps[2];         /* per-message cost (between nodes: over net_hw_s's floor) */
	double net_hw_s;             /* hwLat[NET] a message between nodes pays, less its path */
	/* Per send shape (a2a_shape()): in the node, or over the network at its slots. */
	uint32_t ntask[PK_A2A_SHAPES], nsucc[PK_A2A_SHAPES]; /* records per send (the first
	                                                        one built says) */
	uint32_t nflow[PK_A2A_SHAPES];
	uint32_t free_head[PK_A2A_SHAPES], free_tail[PK_A2A_SHAPES]; /* ended slots, oldest
	                                                                first */
	uint32_t key_nflow;          /* the most flows a send has: their keys' stride */
	uint8_t *pending;            /* per send: the ends it still waits for */
	uint64_t nsends, ndone;
	uint32_t at_flow;            /* flows built before it were submitted */
	uint64_t *first;             /* per link: the first flow to cross it (key), or UINT64_MAX */
};

static struct lazy_phase *
phase_of(struct pk_engine *e, uint32_t i)
{
	return ft_vec_at(&e->lazy->phases, i);
}

static struct lazy_slot *
slot_of(struct pk_engine *e, uint32_t i)
{
	return ft_vec_at(&e->lazy->slots, i);
}

/* Whether the @n flow records from @flow0 (those that exist) may take another message: a
 * lossy run's timer generations go on in a reused record, and would wrap at 2^28. */
static bool
gens_left(struct pk_engine *e, uint32_t flow0, uint32_t n)
{
	for (uint32_t f = flow0; e->may_drop && f < e->flows.len && f - flow0 < n; f++)
		if (flow_at(e, f)->rto_gen >= 1u << 27)
			return false;
	return true;
}

/* The oldest ended slot of shape @net of phase @pi if it may be reused now, else a new one. */
static int64_t
take_slot(struct pk_engine *e, uint32_t pi, uint64_t send, uint32_t net)
{
	struct pk_lazy *lz = e->lazy;
	struct lazy_phase *ph = phase_of(e, pi);
	struct lazy_slot sl = { pi, net, (uint32_t)e->tasks.len, (uint32_t)e->flows.len,
		                PK_NONE, PK_NONE, 0, send, 0 };
	uint32_t id = ph->free_head[net];

	if (id != PK_NONE && slot_of(e, id)->free_ps < e->now_ps &&
	    !gens_left(e, slot_of(e, id)->flow0, ph->nflow[net])) {
		ph->free_head[net] = slot_of(e, id)->next; /* (dropped: a new slot) */
		id = PK_NONE;
	}
	if (id != PK_NONE && slot_of(e, id)->free_ps < e->now_ps) {
		ph->free_head[net] = slot_of(e, id)->next;
		slot_of(e, id)->send = send;
		lz->cur_task = slot_of(e, id)->task0;
		lz->cur_flow = slot_of(e, id)->flow0;
		lz->fresh = false;
		return id;
	}
	if (!lz->based) {
		lz->based = true;
		lz->base_task = sl.task0;
		lz->base_flow = sl.flow0;
		lz->base_succ = e->nsucc_len;
	}
	/* (too early, or a lossy run's ended sends still named: appended, as before the
	 * phases ended) */
	if (lz->rewound && (lz->rewind_ps >= e->now_ps || lz->nheld ||
	                    !gens_left(e, lz->next_flow, ph->nflow[net])))
		lz->rewound = false;
	lz->cur_task = lz->cur_flow = PK_NONE;
	if (lz->rewound) {
		sl.task0 = lz->cur_task = lz->next_task;
		sl.flow0 = lz->cur_flow = lz->next_flow;
	}
	if (lz->slots.len >= PK_NONE || ft_vec_push(&lz->slots, &sl) < 0)
		return FT_ENOMEM;
	lz->fresh = true;
	return (int64_t)lz->slots.len - 1;
}

/* The successor lists of slot @si's tasks, from the dependencies just built (in order). */
static int
slot_succ(struct pk_engine *e, uint32_t si)
{
	struct pk_lazy *lz = e->lazy;
	struct lazy_slot *sl = slot_of(e, si);
	const struct lazy_phase *ph = phase_of(e, sl->phase);
	uint32_t n = (uint32_t)lz->edges.len, ntask, i, t, *cnt;

	if (sl->succ0 == PK_NONE) {
		size_t at = lz->rewound ? lz->next_succ : e->nsucc_len;

		if (at + (size_t)n >= PK_NONE)
			return FT_ERANGE;
		if (at + (size_t)n > lz->succ_cap) {
			size_t cap = FT_MAX(lz->succ_cap * 2, at + (size_t)n + 1024);
			uint32_t *p = ft_reallocarray(e->succ, cap, sizeof(uint32_t));

			if (!p)
				return FT_ENOMEM;
			e->succ = p;
			lz->succ_cap = cap;
		}
		sl->succ0 = (uint32_t)at;
		e->nsucc_len = FT_MAX(e->nsucc_len, (uint32_t)(at + n));
		if (lz->rewound)
			lz->next_succ = (uint32_t)(at + n);
	}
	ntask = ph->ntask[sl->net];
	cnt = ft_calloc(ntask + 1, sizeof(uint32_t));
	if (!cnt)
		return FT_ENOMEM;
	for (i = 0; i < n; i++) {
		uint32_t from = FT_VEC_AT(&lz->edges, uint32_t, 2 * i) - sl->task0;

		if (FT_NEVER(from >= ntask)) {
			ft_free(cnt);
			return FT_EINVAL;
		}
		cnt[from + 1]++;
	}
	for (t = 0; t < ntask; t++) {
		struct pk_task *k = task_of(e, sl->task0 + t);

		k->nsucc = cnt[t + 1];
		k->succ_off = sl->succ0 + cnt[t];
		cnt[t + 1] += cnt[t];
	}
	for (i = 0; i < n; i++) {
		uint32_t from = FT_VEC_AT(&lz->edges, uint32_t, 2 * i) - sl->task0;

		e->succ[sl->succ0 + cnt[from]++] = FT_VEC_AT(&lz->edges, uint32_t, 2 * i + 1);
	}
	ft_free(cnt);
	lz->edges.len = 0;
	return 0;
}

/* A lossy run's: slot @si's @n flow records are its. */
static int
slot_flows(struct pk_engine *e, uint32_t si, uint32_t n)
{
	struct pk_lazy *lz = e->lazy;
	uint32_t flow0 = slot_of(e, si)->flow0;

	if (flow0 + (size_t)n > lz->nfslot) {
		size_t cap = FT_MAX(FT_MAX(2 * lz->nfslot, flow0 + (size_t)n), (size_t)1024);
		uint32_t *p = ft_reallocarray(lz->fslot, cap, sizeof(uint32_t));

		if (!p)
			return FT_ENOMEM;
		lz->fslot = p;
		lz->nfslot = cap;
	}
	for (uint32_t f = 0; f < n; f++)
		lz->fslot[flow0 + f] = si;
	return 0;
}

/* Build send @send of phase @pi and start it (its per-message cost first), at its
 * connection's shape. */
static int
lazy_send(struct pk_engine *e, uint32_t pi, uint64_t send)
{
	struct pk_lazy *lz = e->lazy;
	struct lazy_phase *ph = phase_of(e, pi);
	uint64_t per_round = (uint64_t)ph->ngroups * ph->m, rest = send % per_round;
	uint32_t k = (uint32_t)(send / per_round) + 1, g = (uint32_t)(rest / ph->m);
	uint32_t i = (uint32_t)(rest % ph->m), m = ph->m;
	uint32_t base = (g / ph->stride) * ph->stride * m + g % ph->stride;
	uint32_t a = ph->gpu[base + i * ph->stride], b = ph->gpu[base + (i + k) % m * ph->stride];
	uint32_t net = crosses_nodes(e->topo, a, b), shape;
	uint32_t via = a2a_via(e, a, b, net, ph->comm, ph->ncomm);
	struct p2p_build pb = { .rb = { .e = e, .steps = 1, .tag = ph->tag, .lane_split = true } };
	struct ft_model_p2p_chunking mine;
	int64_t si, s0, end, cts;
	uint32_t ntask, nflow;
	uint64_t cost;
	int rc;

	/* its own slots: those of the proxy op NCCL puts it in (p2p_alltoall()'s) */
	ft__sim_a2a_send_ch(&ph->ch[net], net ? &ph->slots : NULL, i, (i + k) % m, &mine);
	shape = a2a_shape(net, mine.slots);
	si = take_slot(e, pi, send, shape);
	if (si < 0)
		return (int)si;
	lz->building = true;
	/* the rest of the cost, and between nodes the floor (a2a_floor_s()) on top */
	cost = ph->cost_ps[net];
	if (net)
		cost += s_to_ps(a2a_floor_s(e, ph->net_hw_s, a, b, via));
	s0 = ft__pk_add_task(e, PK_T_BARRIER, cost, 0, ph->tag);
	end = ft__pk_add_task(e, PK_T_A2A_END, 0, 1, ph->tag);
	/* (a notice no send waits for is a plain barrier: it outlives its phase) */
	cts = notice_task(e, k + ph->w <= m - 1 ? PK_T_A2A_CTS : PK_T_BARRIER, b,
	                  ph->gpu[base + (i + m - ph->w % m) % m * ph->stride], ph->tag,
	                  ph->comm, ph->ncomm);
	pb.cap = ph->ch[net].channels;
	pb.rb.c = ft_calloc(pb.cap, sizeof(*pb.rb.c));
	rc = s0 < 0 || end < 0 || !pb.rb.c ? FT_ENOMEM : cts < 0 ? (int)cts : 0;
	if (rc == 0) {
		task_of(e, (uint32_t)end)->flow = (uint32_t)si;
		task_of(e, (uint32_t)cts)->flow = (uint32_t)si;
		pb.notice = (uint32_t)cts + 1;
		rc = p2p_send(&pb, ph->payload, a, b, via, &mine, (uint32_t)s0, (uint32_t)end);
	}
	if (rc == 0 && net && ph->windowed) /* (p2p_alltoall()'s pace) */
		rc = send_pace(&pb, 0, send_period_ps(e, &mine, a, b, via));
	if (rc == 0)
		rc = build_messages(&pb.rb, pb.nmsg, pb.slots);
	else
		ft_free(pb.rb.c);
	lz->building = false;
	if (rc < 0)
		return rc;
	/* Every send of a phase's shape has its records: the first one built sets them. */
	ntask = lz->cur_task == PK_NONE ? (uint32_t)e->tasks.len - slot_of(e, (uint32_t)si)->task0 :
	                                  lz->cur_task - slot_of(e, (uint32_t)si)->task0;
	nflow = lz->cur_flow == PK_NONE ? (uint32_t)e->flows.len - slot_of(e, (uint32_t)si)->flow0 :
	                                  lz->cur_flow - slot_of(e, (uint32_t)si)->flow0;
	if (!ph->ntask[shape]) {
		ph->ntask[shape] = ntask;
		ph->nsucc[shape] = (uint32_t)lz->edges.len;
	}
	if (FT_NEVER(ntask != ph->ntask[shape] || nflow != ph->nflow[shape] ||
	             lz->edges.len != ph->nsucc[shape]))
		return FT_EINVAL;
	if (lz->rewound && lz->fresh) {
		lz->next_task = lz->cur_task;
		lz->next_flow = lz->cur_flow;
	}
	if (e->may_drop) /* (its flows' slot, for when nothing names them) */
		rc = slot_flows(e, (uint32_t)si, nflow);
	rc = rc < 0 ? rc : slot_succ(e, (uint32_t)si);
	return rc < 0 ? rc : ft__pk_start_task(e, (uint32_t)s0);
}

int
ft__pk_lazy_start(struct pk_engine *e, uint32_t t)
{
	uint32_t pi = task_of(e, t)->flow;
	const struct lazy_phase *ph = phase_of(e, pi);
	uint64_t n = FT_MIN(ph->w, ph->m - 1) * (uint64_t)ph->ngroups * ph->m, s;
	int rc = 0;

	e->lazy->nrunning++;
	for (s = 0; s < n && rc == 0; s++)
		rc = lazy_send(e, pi, s);
	return rc;
}

/*
 * Slot @si's send has ended and a lossy run's flows of it (@held of them counted) are no
 * longer named: one less; with none left, its records may go to the phase's next send
 * of its shape (or, its phase done, to the next phase's once no phase runs).
 */
static int
slot_put(struct pk_engine *e, uint32_t si)
{
	struct pk_lazy *lz = e->lazy;
	struct lazy_slot *sl = slot_of(e, si);
	struct lazy_phase *ph = phase_of(e, sl->phase);

	if (FT_NEVER(sl->held == 0))
		return FT_EINVAL;
	if (--sl->held > 0)
		return 0;
	if (e->may_drop && --lz->nheld == 0 && lz->nrunning == 0)
		lz->slots.len = 0; /* (phase_done() kept them while a flow was named) */
	if (!ph->pending)
		return 0; /* its phase has ended: no send of it takes the slot */
	sl->free_ps = FT_MAX(sl->free_ps, e->now_ps);
	sl->next = PK_NONE;
	if (ph->free_head[sl->net] == PK_NONE)
		ph->free_head[sl->net] = si;
	else
		slot_of(e, ph->free_tail[sl->net])->next = si;
	ph->free_tail[sl->net] = si;
	return 0;
}

int
ft__pk_lazy_release(struct pk_engine *e, uint32_t fid)
{
	struct pk_lazy *lz = e->lazy;

	if (FT_NEVER(!lz || fid >= lz->nfslot || lz->fslot[fid] >= lz->slots.len))
		return FT_EINVAL;
	return slot_put(e, lz->fslot[fid]);
}

/* Slot @si's send has ended: note the links its flows crossed; reusable later (a lossy
 * run's once nothing names its flows: struct pk_refs). */
static int
slot_ended(struct pk_engine *e, uint32_t si)
{
	struct lazy_slot *sl = slot_of(e, si);
	struct lazy_phase *ph = phase_of(e, sl->phase);
	uint64_t lat = 0;
	uint32_t f, j;

	if (!ph->first) {
		ph->first = ft_calloc(e->nlinks ? e->nlinks : 1, sizeof(uint64_t));
		if (!ph->first)
			return FT_ENOMEM;
		for (j = 0; j < e->nlinks; j++)
			ph->first[j] = UINT64_MAX;
	}
	for (f = 0; f < ph->nflow[sl->net]; f++) {
		const struct pk_flow *fl = flow_at(e, sl->flow0 + f);
		uint64_t key = (sl->send * ph->key_nflow + f) << 8;

		lat = FT_MAX(lat, fl->lat_ps);
		for (j = 0; j < fl->npath; j++) {
			uint32_t l = FT_VEC_AT(&e->paths, uint32_t, fl->path_off + j);

			ph->first[l] = FT_MIN(ph->first[l], key | j);
		}
	}
	/* (and after its notice, which may travel a longer path than its flows; a lossy
	 * run's flows are counted instead, their CNPs and RTT samples with them) */
	sl->free_ps = e->now_ps + FT_MAX(e->may_drop ? 0 : 2 * lat,
	                                 task_of(e, sl->task0 + 2)->delay_ps);
	e->lazy->last_free_ps = FT_MAX(e->lazy->last_free_ps, sl->free_ps);
	sl->held = 1; /* (one more than its flows, while they are marked) */
	if (e->may_drop) {
		uint32_t n = ph->nflow[sl->net], flow0 = sl->flow0;

		e->lazy->nheld++;
		sl->held += n;
		for (f = 0; f < n; f++) {
			int rc = ft__pk_ref_ended(e, flow0 + f);

			if (rc < 0)
				return rc;
		}
	}
	return slot_put(e, si);
}

/*
 * Phase @ph's last send has ended: what only its sends read is freed, and when no other
 * phase is running, every slot's records are free to take: the next slot built (of any
 * phase) goes to the first records slots ever had, once the last CNP or RTT sample of
 * the ended sends is in (else it is appended, as before). Only the links each phase's
 * flows first crossed stay (for its bottleneck).
 */
static void
phase_done(struct pk_engine *e, struct lazy_phase *ph)
{
	struct pk_lazy *lz = e->lazy;

	ft_free(ph->pending);
	ft_free(ph->gpu);
	ft_free(ph->comm);
	ft_free(ph->slots.row);
	ph->pending = NULL;
	ph->gpu = NULL;
	ph->comm = NULL;
	ph->slots.row = NULL;
	for (uint32_t sh = 0; sh < PK_A2A_SHAPES; sh++)
		ph->free_head[sh] = ph->free_tail[sh] = PK_NONE;
	if (FT_NEVER(lz->nrunning == 0) || --lz->nrunning > 0)
		return;
	/* (a lossy run's slots whose flows are still named stay until none is: slot_put();
	 * the records are not reused before, take_slot()) */
	if (lz->nheld == 0)
		lz->slots.len = 0;
	lz->rewound = true;
	lz->next_task = lz->base_task;
	lz->next_flow = lz->base_flow;
	lz->next_succ = lz->base_succ;
	lz->rewind_ps = lz->last_free_ps;
}

/*
 * Send @send of phase @pi has told the send of round k + W that waits for it: rank i's
 * (@other 0: its lane is free) or rank i - W's (1: the receiver's clear-to-send), which
 * starts once both have.
 */
static int
lazy_next(struct pk_engine *e, uint32_t pi, uint64_t send, int other)
{
	struct lazy_phase *ph = phase_of(e, pi);
	uint64_t per_round = (uint64_t)ph->ngroups * ph->m, k = send / per_round + 1, row;
	uint32_t m = ph->m, w = ph->w, i = (uint32_t)(send % m), x;

	if (k + w > m - 1)
		return 0;
	row = (k + w - 1) * per_round + send % per_round - i;
	x = other ? (i + m - w) % m : i;
	if (FT_NEVER(ph->pending[row + x] == 0))
		return FT_EINVAL;
	return --ph->pending[row + x] == 0 ? lazy_send(e, pi, row + x) : 0;
}

int
ft__pk_lazy_end(struct pk_engine *e, uint32_t t)
{
	uint32_t si = task_of(e, t)->flow, pi = slot_of(e, si)->phase;
	struct lazy_phase *ph = phase_of(e, pi);
	uint64_t send = slot_of(e, si)->send;
	int rc = slot_ended(e, si);

	if (rc < 0)
		return rc;
	if (++ph->ndone == ph->nsends) {
		phase_done(e, ph);
		return ft__pk_task_done(e, ph->task);
	}
	/* The send of round k + W of the same rank waited for this one (its lane). */
	return lazy_next(e, pi, send, 0);
}

int
ft__pk_lazy_notice(struct pk_engine *e, uint32_t t)
{
	uint32_t si = task_of(e, t)->flow;
	const struct lazy_slot *sl = slot_of(e, si);

	/* The send of round k + W of rank i - W waited for this receiver's clear-to-send. */
	return lazy_next(e, sl->phase, sl->send, 1);
}

bool
ft__pk_lazy_any(const struct pk_engine *e)
{
	return e->lazy && e->lazy->phases.len > 0;
}

/* A link by the first flow to cross it (the key first: cmp_key() orders them). */
struct first_link {
	uint64_t key;
	uint32_t link;
};

int
ft__pk_first_links(struct pk_engine *e, uint32_t op, const uint64_t *first)
{
	uint32_t l, n = 0;
	struct first_link *order = ft_calloc(e->nlinks ? e->nlinks : 1, sizeof(*order));

	if (!order)
		return FT_ENOMEM; /* the op's bottleneck is the report's: the run's error */
	for (l = 0; l < e->nlinks; l++)
		if (first[l] != UINT64_MAX)
			order[n++] = (struct first_link){ first[l], l };
	qsort(order, n, sizeof(*order), cmp_key);
	for (l = 0; l < n; l++)
		ft__pk_bottleneck_link(e, op, order[l].link);
	ft_free(order);
	return 0;
}

int
ft__pk_lazy_bottleneck(struct pk_engine *e, uint32_t i)
{
	size_t p;

	for (p = 0; e->lazy && p < e->lazy->phases.len; p++) {
		const struct lazy_phase *ph = phase_of(e, (uint32_t)p);

		if (ph->at_flow == i && ph->first && ft__pk_first_links(e, ph->tag, ph->first) < 0)
			return FT_ENOMEM;
	}
	return 0;
}

void
ft__pk_lazy_free(struct pk_engine *e)
{
	size_t p;

	if (!e->lazy)
		return;
	for (p = 0; p < e->lazy->phases.len; p++) {
		ft_free(phase_of(e, (uint32_t)p)->gpu);
		ft_free(phase_of(e, (uint32_t)p)->comm);
		ft_free(phase_of(e, (uint32_t)p)->pending);
		ft_free(phase_of(e, (uint32_t)p)->first);
		ft_free(phase_of(e, (uint32_t)p)->slots.row);
	}
	ft_vec_release(&e->lazy->phases);
	ft_vec_release(&e->lazy->slots);
	ft_vec_release(&e->lazy->edges);
	ft_free(e->lazy->fslot);
	ft_free(e->lazy);
	e->lazy = NULL;
}

/* The flows and payload bytes of one send of @payload over @ch (as build_messages() cuts
 * it: each message split over the @lanes NICs its connections spread over, one between
 * GPUs of a node), or FT_E*. */
static int
send_shape(struct pk_engine *e, uint64_t payload, const struct ft_model_p2p_chunking *ch,
           uint32_t lanes, uint32_t *nflow, uint64_t *bytes)
{
	struct p2p_build pb = { .rb = { .e = e, .steps = 1 }, .cap = ch->channels };
	uint32_t per = FT_MAX(e->cfg.qps_per_conn, 1u), c, m, l, q;
	bool split = e->pc.split_data_on_qps && per > 1;
	int rc;

	pb.rb.c = ft_calloc(pb.cap, sizeof(*pb.rb.c));
	if (!pb.rb.c)
		return FT_ENOMEM;
	rc = p2p_send(&pb, payload, 0, 1, PK_NONE, ch, 0, 0);
	*nflow = 0;
	*bytes = 0;
	for (c = 0; c < pb.rb.n && rc == 0; c++) {
		for (m = 0; m < pb.rb.c[c].nmsg; m++) {
			uint64_t part = share(pb.rb.c[c].wire, pb.rb.c[c].nmsg, m);

			for (l = 0; l < lanes; l++) {
				uint64_t bl = share(part, lanes, l);

				for (q = 0; q < (split ? per : 1); q++) {
					uint64_t b = split ? share(bl, per, q) : bl;

					*nflow += b > 0;
					*bytes += b;
				}
			}
		}
	}
	ft_free(pb.rb.c);
	return rc;
}

/* How many of phase @p's sends cross nodes (the others stay in one), into @nnet: every
 * ordered pair of a group's ranks on two of NCCL's nodes (ft__sim_nccl_node(): the trays of
 * one NVLink domain are one, as crosses_nodes() has it): all m^2 pairs less those within a
 * node, counted from the group's nodes sorted (m log m, not a compare a pair). */
static int
net_sends(const struct pk_engine *e, const struct lazy_phase *p, uint64_t *nnet)
{
	uint32_t *node = ft_calloc(p->m, sizeof(uint32_t)), g, i, j;

	if (!node)
		return FT_ENOMEM;
	*nnet = 0;
	for (g = 0; g < p->ngroups; g++) {
		uint32_t base = (g / p->stride) * p->stride * p->m + g % p->stride;
		uint64_t same = 0;

		for (i = 0; i < p->m; i++)
			node[i] = ft__sim_nccl_node(e->topo, p->gpu[base + i * p->stride]);
		/* Pairs on one of NCCL's nodes (a multi-node NVLink domain is one): the square
		 * of each node's GPU count, summed. */
		ft__fs_sort_u32(node, p->m);
		for (i = 0; i < p->m; i = j) {
			for (j = i; j < p->m && node[j] == node[i]; j++)
				;
			same += (uint64_t)(j - i) * (j - i);
		}
		*nnet += (uint64_t)p->m * p->m - same;
	}
	ft_free(node);
	return 0;
}

/* Phase @ph of @op as a lazy all-to-all: one task after @start, before @bar. */
static int
lazy_submit(struct pk_engine *e, const struct ft_sim_op *op, const struct ft_sched_phase *ph,
            uint32_t start, uint32_t bar, uint32_t tag)
{
	const struct ft_schedule *sc = op->sched;
	struct lazy_phase p = { 0 };
	struct ft_model_p2p_comm comm;
	uint64_t bytes[2], nnet, s;
	uint32_t net;
	int64_t t;
	int rc = 0;

	if (!e->lazy) {
		e->lazy = ft_calloc(1, sizeof(*e->lazy));
		if (!e->lazy)
			return FT_ENOMEM;
		ft_vec_init(&e->lazy->phases, sizeof(struct lazy_phase));
		ft_vec_init(&e->lazy->slots, sizeof(struct lazy_slot));
		ft_vec_init(&e->lazy->edges, sizeof(uint32_t) * 2);
	}
	p.m = ph->a2a_group_size;
	p.stride = ph->a2a_stride;
	p.ngroups = (uint32_t)(ph->npairs / ((uint64_t)p.m * (p.m - 1)));
	p.payload = ph->bytes_per_pair;
	p.tag = tag;
	for (net = 0; net < PK_A2A_SHAPES; net++)
		p.free_head[net] = p.free_tail[net] = PK_NONE;
	p.at_flow = (uint32_t)e->flows.len;
	p.nsends = (uint64_t)p.ngroups * p.m * (p.m - 1);
	rc = ft__sim_p2p_comm(e->topo, p.m,
	                      ft__sim_spans_nodes(e->topo, op->rank_gpu, p.m, p.stride),
	                      e->line_Bps, &comm);
	if (rc < 0)
		return rc;
	/* Per connection: an NVLink send keeps LL inside a multi-node all-to-all (its cost at
	 * its own protocol too); the channels, so W, are the communicator's, one for both. */
	ft_model_p2p_chunking_conn(&comm, ph->bytes_per_pair, false, &p.ch[0]);
	ft_model_p2p_chunking_conn(&comm, ph->bytes_per_pair, comm.nnodes > 1, &p.ch[1]);
	p.w = p.ch[1].peers_inflight;
	/* p.slots: set by ft__sim_a2a_window(), its row the phase's to free (NULL: p.ch[1]'s) */
	rc = a2a_windowed(e, op, ph, &comm, &p.ch[1], &p.slots, &p.windowed);
	if (rc < 0)
		return rc;
	/* a message inside a node at the row of the node's link, NVLink's or PCI's (the
	 * schedule's intra, ft__sim_release_lats()), as the flow engine's a2a_posting() */
	p.cost_ps[0] = s_to_ps(ft_coll_hw_latency(sc->intra, sc->algo, p.ch[0].proto));
	/* a message between nodes also pays what the model adds to a network hop (the plugin's
	 * latency, the flush, a hypervisor's cost: ft__sim_net_step_s()), as the flow
	 * engine's sends do */
	p.net_hw_s = ft_coll_hw_latency(FT_HW_NET, sc->algo, p.ch[1].proto);
	{
		double step;

		rc = ft__sim_net_step_s(e->topo, p.ch[1].proto, &step);
		p.cost_ps[1] = s_to_ps(step);
	}
	for (net = 0; net < 2 && rc == 0; net++)
		rc = send_shape(e, p.payload, &p.ch[net], net ? net_lanes(e, op) : 1, &p.nflow[net],
		                &bytes[net]);
	for (net = 2; net < PK_A2A_SHAPES; net++)
		p.nflow[net] = p.nflow[1]; /* (the slots change no flow) */
	p.key_nflow = FT_MAX(p.nflow[0], p.nflow[1]);
	if (rc == 0 && p.nsends * p.key_nflow >= UINT32_MAX)
		rc = FT_ERANGE;
	if (rc < 0) {
		ft_free(p.slots.row);
		return rc;
	}
	p.gpu = ft_calloc(sc->nranks, sizeof(uint32_t));
	p.pending = ft_calloc(p.nsends, 1);
	if (p.gpu)
		memcpy(p.gpu, op->rank_gpu, sc->nranks * sizeof(uint32_t));
	p.comm = ft__sim_comm_gpus_by_node(e->topo, op->rank_gpu, sc->nranks, &p.ncomm);
	t = ft__pk_add_task(e, PK_T_A2A, 0, 0, tag);
	if (!p.gpu || !p.pending || !p.comm || t < 0 || net_sends(e, &p, &nnet) < 0 ||
	    ft_vec_push(&e->lazy->phases, &p) < 0) {
		ft_free(p.gpu);
		ft_free(p.comm);
		ft_free(p.pending);
		ft_free(p.slots.row);
		return FT_ENOMEM;
	}
	for (s = FT_MIN(p.w, p.m - 1) * (uint64_t)p.ngroups * p.m; s < p.nsends; s++)
		p.pending[s] = 2;
	phase_of(e, (uint32_t)e->lazy->phases.len - 1)->task = (uint32_t)t;
	task_of(e, (uint32_t)t)->flow = (uint32_t)e->lazy->phases.len - 1;
	e->nflows_all += nnet * p.nflow[1] + (p.nsends - nnet) * p.nflow[0];
	e->bytes_submitted += nnet * bytes[1] + (p.nsends - nnet) * bytes[0];
	if (ft__pk_add_dep(e, start, (uint32_t)t) < 0 || ft__pk_add_dep(e, (uint32_t)t, bar) < 0)
		return FT_ENOMEM;
	return 0;
}

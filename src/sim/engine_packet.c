/* SPDX-License-Identifier: MIT */
/*
 * sim/engine_packet.c - the packet-level engine: collective schedules and
 * background patterns run as packets through ports, queues and buffers.
 *
 * The same ops as the flow engine become the same tasks (a start barrier,
 * per phase its flows and an end barrier with the per-step costs;
 * all-to-all phases as NCCL's sends, pkt_nccl.c, or with chunking off as
 * shift rounds FT_COLL_A2A_WINDOW at a time with their per-message cost), so
 * result rows mean the same thing. A flow (one QP of
 * a connection) is cut into packets of the MTU's payload when its first
 * port is free to send one: a NIC packetises lazily and round-robins over
 * its flows, so nothing waits in memory at the source. On host and fabric
 * links every packet carries the real header and framing bytes (IB: LRH,
 * BTH, ICRC, VCRC; RoCEv2: Ethernet, IPv4, UDP, BTH, ICRC, FCS, preamble and
 * inter-frame gap); in-node links (PCIe, NVLink) carry the payload.
 *
 * A packet is serialised at the link's rate and reaches the next vertex the
 * link's latency later (its cable and switch traversal). Switches forward
 * cut-through: the next port may start once the head has arrived, but may
 * not finish before the tail has (the next link starts no earlier than
 * tail - its own serialisation). Store-and-forward is a knob.
 *
 * Flow control works per link between the sender's port and the ingress
 * buffer at the link's destination:
 * - credits (IB, kb IB-FC; and every in-node link, whose PCIe and NVLink
 *   flow control is credit based as well): the sender spends 64-byte
 *   blocks per packet and gets them back one link latency after the packet
 *   left the downstream buffer, so the buffer never overflows;
 * - PFC (RoCE, kb ROCE-PFC, CC-PFC-ECN): the ingress buffer sends XOFF one
 *   link latency upstream when it holds xoff bytes and XON when it is back
 *   at xon; above xoff it can still take the headroom, which by default is
 *   what can arrive meanwhile: 2 x (rate x latency + a wire MTU); a packet
 *   that would overflow xoff + headroom is dropped (never with the default);
 * - none (lossy): a packet that finds its ingress port above its limit or the
 *   switch's shared buffer full is dropped, and the transport recovers by
 *   go-back-N: the receiver takes packets in order only and NAKs the first
 *   gap once; a sender whose last packet is out and unacknowledged goes back
 *   after the retransmit timeout (NCCL_IB_TIMEOUT, kb CC-IB). The sender
 *   knows of the receiver only what comes back one path latency later: the
 *   NAK, and a cumulative ACK every PK_ACK_SEG packets and at the last one.
 * A link bit error rate drops corrupted packets at the receiver (same
 * recovery). When nothing is left to happen while flows are unfinished (a
 * cyclic buffer dependency), the run stops with an error naming a port.
 *
 * Routing: ECMP (per QP hash; per destination port on InfiniBand, route.c)
 * and D-mod-K paths are fixed when a flow
 * starts, through the same ft_route_path() as the flow engine; adaptive
 * routing chooses at every switch, per packet, the equal-cost port with the
 * fewest queued bytes (ties broken by the flow's hash), or with flowlets
 * per flowlet: the first of a flowlet's packets to reach a switch chooses for
 * the flowlet there (flowlet_room, pkt_flow.c).
 *
 * This file is the event loop and what it runs per packet; the engine's construction,
 * submit and destroy are pkt_setup.c, its counters and a stall's diagnosis pkt_report.c,
 * what runs once per task or flow (start, routing, completion) pkt_flow.c.
 */
#include "pkt_int.h"

#include <math.h>

#include <fabtune/rng.h>
#include <fabtune/sim.h>
#include <fabtune/units.h>

/* ---- packets -------------------------------------------------------------- */

static uint32_t
pkt_alloc(struct pk_engine *e)
{
	uint32_t id;

	if (e->free_pkt == PK_NONE) {
		uint32_t cap = e->npkts_cap ? e->npkts_cap * 2 : 4096, i;
		struct pk_pkt *p;

		if (cap <= e->npkts_cap)
			return PK_NONE;
		p = ft_reallocarray(e->pkts, cap, sizeof(*p));
		if (!p)
			return PK_NONE;
		e->pkts = p;
		ft__sim_advise_huge(p, (size_t)cap * sizeof(*p)); /* read at random, as ports */
		for (i = e->npkts_cap; i < cap; i++)
			p[i].next = i + 1 < cap ? i + 1 : PK_NONE;
		e->free_pkt = e->npkts_cap;
		e->npkts_cap = cap;
	}
	id = e->free_pkt;
	e->free_pkt = e->pkts[id].next;
	e->npkts_live++;
	return id;
}

/* Whether a lossy run's lazy phases count what names a flow record (pkt_tree.c). */
static inline bool
refs_on(const struct pk_engine *e)
{
	return (e->tlazy || e->lazy) && e->may_drop;
}

static void
pkt_free_raw(struct pk_engine *e, uint32_t id)
{
	e->pkts[id].next = e->free_pkt;
	e->free_pkt = id;
	e->npkts_live--;
}

static void
pkt_free(struct pk_engine *e, uint32_t id)
{
	if (refs_on(e)) /* (an error is kept: the event loop returns it) */
		ft__pk_unref(e, e->pkts[id].flow);
	pkt_free_raw(e, id);
}

/* An event about flow @fid (an ACK, NAK, CNP or RTT sample on its way back to its
 * sender): it names the flow's record until handled (step()). */
static int
ev_push_flow(struct pk_engine *e, uint64_t t_ps, uint32_t type, uint32_t fid, uint32_t arg)
{
	if (refs_on(e) && ft__pk_ref(e, fid) < 0)
		return FT_ENOMEM;
	return ev_push(e, t_ps, type, fid, arg);
}

int
ft__pk_ev_flow(struct pk_engine *e, uint64_t t_ps, uint32_t type, uint32_t fid, uint32_t arg)
{
	return ev_push_flow(e, t_ps, type, fid, arg);
}

uint32_t
ft__pk_pkt_alloc(struct pk_engine *e)
{
	return pkt_alloc(e);
}

void
ft__pk_pkt_free(struct pk_engine *e, uint32_t id)
{
	pkt_free(e, id);
}

/* ---- flows, tasks and ports: small accessors ---------------------------------- */

/* Flow control of link @l: in-node links use credits, network links the configured one. */
static enum ft_pkt_fc
link_fc(const struct pk_engine *e, uint32_t l)
{
	return pk_port_at(e, l)->net ? e->pc.fc : FT_PKT_FC_CREDIT;
}

/* Flow control of priority @c on link @l: a lossy priority of a PFC fabric drops. */
static enum ft_pkt_fc
cls_fc(const struct pk_engine *e, uint32_t l, uint32_t c)
{
	enum ft_pkt_fc fc = link_fc(e, l);

	return fc == FT_PKT_FC_PFC && (e->pc.lossy_prios >> c & 1u) ? FT_PKT_FC_NONE : fc;
}

static uint32_t
blocks(uint32_t wire)
{
	return (wire + PK_BLOCK - 1) / PK_BLOCK;
}

/* A queue of @q_bytes since *@t_q_ps: into its time integral @area and its histogram
 * (*@hist0 for bin 0, the bins past it taken from the pool the first time they gain any). */
static int
depth_account(struct pk_engine *e, uint64_t q_bytes, double *area, uint64_t *hist0,
              uint64_t **bins, uint64_t *t_q_ps)
{
	uint64_t dt = e->now_ps - *t_q_ps;
	uint32_t b = pk_qbin(q_bytes);

	*area += (double)q_bytes * (double)dt;
	if (b == 0) {
		*hist0 += dt;
	} else if (dt) {
		if (!*bins && !(*bins = ft__pk_qbins_new(e)))
			return FT_ENOMEM;
		(*bins)[b - 1] += dt;
	}
	*t_q_ps = e->now_ps;
	return 0;
}

/* Port @p's queue stayed at its depth since t_q_ps. */
static inline int
q_account(struct pk_engine *e, struct pk_port *p)
{
	return depth_account(e, p->q_bytes, &p->q_area, &p->q_hist0, &p->q_bins, &p->t_q_ps);
}

/* Priority record @c's queue stayed at its depth since its t_q_ps (one priority of a
 * shared queue). */
static inline int
cq_account(struct pk_engine *e, struct pk_cq *c)
{
	return depth_account(e, c->q_bytes, &c->q_area, &c->q_hist0, &c->q_bins, &c->t_q_ps);
}

/* Priority @prio (record @q) queues at port @p, whose figures are accounted to now: its own
 * record once the queue is shared (pk_port q_solo says how and why this is exact). */
static int
cq_enter(struct pk_engine *e, struct pk_port *p, uint32_t prio, struct pk_cls *q)
{
	if (p->q_solo == PK_QSOLO_NONE) {
		p->q_solo = (uint8_t)(1u + prio);
		return 0;
	}
	if (p->q_solo != PK_QSOLO_SHARED) {
		/* The second priority: the first one's record takes the port's figures. */
		struct pk_cls *f = pk_port_cls(e, p, p->q_solo - 1u);
		struct pk_cq *c = ft__pk_cq_new(e);

		if (!c)
			return FT_ENOMEM;
		*c = (struct pk_cq){ .q_bytes = p->q_bytes,
			             .q_area = p->q_area,
			             .t_q_ps = p->t_q_ps,
			             .q_max_bytes = p->q_max_bytes,
			             .q_hist0 = p->q_hist0 };
		if (p->q_bins) {
			if (!(c->q_bins = ft__pk_qbins_new(e)))
				return FT_ENOMEM;
			memcpy(c->q_bins, p->q_bins, (PK_QBINS - 1) * sizeof(*c->q_bins));
		}
		f->cq = c;
		p->q_solo = PK_QSOLO_SHARED;
	}
	if (!q->cq) {
		/* Empty from the run's start to now. */
		if (!(q->cq = ft__pk_cq_new(e)))
			return FT_ENOMEM;
		*q->cq = (struct pk_cq){ .t_q_ps = e->now_ps, .q_hist0 = e->now_ps };
	}
	return 0;
}

/* Keep port @l's cls_live bit of priority @c in step with its record @q. */
static inline void
cls_live_note(struct pk_engine *e, uint32_t l, uint32_t c, const struct pk_cls *q)
{
	uint8_t bit = (uint8_t)(1u << c);

	if (q->head != PK_NONE || q->nring)
		pk_port_at(e, l)->cls_live |= bit;
	else
		pk_port_at(e, l)->cls_live &= (uint8_t)~bit;
}

static void
ring_add(struct pk_engine *e, uint32_t l, uint32_t fid)
{
	struct pk_flow *f = flow_at(e, fid);
	struct pk_cls *p = pk_cls_at(e, l, f->prio);

	if (f->in_ring)
		return;
	f->in_ring = true;
	if (p->nring == 0) {
		f->ring_next = fid;
	} else {
		f->ring_next = flow_at(e, p->ring)->ring_next;
		flow_at(e, p->ring)->ring_next = fid;
	}
	p->ring = fid;
	p->nring++;
	cls_live_note(e, l, f->prio, p);
}

/* Take the ring's head out (it has nothing left to send). */
static void
ring_pop(struct pk_engine *e, uint32_t l, uint32_t c)
{
	struct pk_cls *p = pk_cls_at(e, l, c);
	uint32_t head = flow_at(e, p->ring)->ring_next;

	flow_at(e, head)->in_ring = false;
	if (--p->nring == 0)
		p->ring = PK_NONE;
	else
		flow_at(e, p->ring)->ring_next = flow_at(e, head)->ring_next;
	cls_live_note(e, l, c, p);
}

static int try_send(struct pk_engine *e, uint32_t l);
static int stripe_first(struct pk_engine *e, uint32_t fid, const struct pk_flow *f);

/*
 * SRD's retransmit timeout for flow @f: RFC 6298 2.3's SRTT + 4 RTTVAR from its QP's
 * estimate (pkt_cc.c srd_rtt_est()), floored at the run's timer (100 us, or
 * retransmit_timeout: pkt_setup.c); the floor alone before any sample. The estimate is
 * kept whatever the rate control (congestion_control none too: SRD's receiver ACKs
 * every packet). A deep queue's round trip above the floor
 * then stretches the timer past it, as a late packet's ACK would under RFC 6298, rather
 * than resending what is only queued.
 */
uint64_t
ft__pk_srd_rto(struct pk_engine *e, const struct pk_flow *f)
{
	const struct pk_dcqcn *d;

	if (!e->sack || !(d = ft__pk_qp_cc(e, f))->srtt_ns)
		return e->rto_ps;
	return FT_MAX(e->rto_ps, ((uint64_t)d->srtt_ns + 4 * (uint64_t)d->rttvar_ns) * 1000);
}

/* Flow @f's retransmit timeout: the run's, SRD's (ft__pk_srd_rto()), or (TCP) its
 * connection's RFC 6298 estimate over the floor, backed off by its timeouts in a row. */
static uint64_t
rto_of(struct pk_engine *e, const struct pk_flow *f)
{
	const struct pk_tcp *c;

	if (e->sack)
		return ft__pk_srd_rto(e, f);
	if (!pk_flow_tcp(e, f) || !(c = ft__pk_tcp_conn(e, f)))
		return e->rto_ps;
	return ft__pk_tcp_rto_ps(c, f->retries);
}

/* Start (or restart) flow @fid's retransmit timer. */
static int
arm_rto(struct pk_engine *e, uint32_t fid)
{
	struct pk_flow *f = flow_at(e, fid);
	struct pk_rack *r = e->tcp_rack ? ft__pk_tcp_rack_of(e, fid) : NULL;

	if (!e->sack) /* (SRD's timer reads the last ACK's time, ev_rto()) */
		f->rto_una = f->snd_una;
	if (r)
		r->held = false; /* (tcp_hold()) */
	e->nrto_queued++;
	return ev_push(e, e->now_ps + rto_of(e, f), PK_EV_RTO, fid, ++f->rto_gen & PK_RTO_GEN);
}

/*
 * TCP: whether connection @t is in Linux's Open or CWR state, the only ones in which
 * tcp_schedule_loss_probe() arms a probe: no recovery (Recovery), no timeout's go-back-N
 * under way on any of its messages (Loss), and no packet SACKed, marked lost or resent
 * and not yet acknowledged (Disorder, tcp_try_to_open(): tcp_left_out(),
 * tcp_any_retrans_done()). One message at a time has the scoreboard and RACK's marks
 * (sb_flow), so its state is the connection's.
 */
static bool
tcp_open(struct pk_engine *e, const struct pk_tcp *t)
{
	const struct pk_rack *r;

	if (t->rec_flow != PK_NONE)
		return false;
	if (t->rto_flow != PK_NONE && flow_at(e, t->rto_flow)->snd_una < t->rto_recover)
		return false;
	if (t->sb_flow == PK_NONE)
		return true;
	r = e->tcp_rack ? ft__pk_tcp_rack_of(e, t->sb_flow) : NULL;
	return !t->sacked && !(r && (r->lost_out || r->rtx_out));
}

/*
 * TCP: whether flow @fid (@f, connection @t) may have a tail-loss probe armed (Linux's
 * tcp_schedule_loss_probe(), RFC 8985 7.2): SACK on, packets out, the connection Open or
 * CWR (tcp_open()), and no probe of it out (Linux arms one then, which sends nothing and
 * arms the RTO: the RTO here at once).
 */
static bool
tcp_tlp_ok(struct pk_engine *e, uint32_t fid, const struct pk_flow *f, const struct pk_tcp *t)
{
	return e->tcp_sack && f->npkts <= PK_ACK_SEQ && pk_tcp_snd_max(t, fid, f) > f->snd_una &&
	       t->tlp_flow == PK_NONE && tcp_open(e, t);
}

/* Whether flow @fid's timer armed now is of kind @kind (PK_TMR_TLP: tcp_xmit_timer(),
 * PK_TMR_REO: arm_reo()); a plain RTO otherwise. */
static inline bool
tcp_tmr_is(struct pk_engine *e, uint32_t fid, const struct pk_flow *f, uint8_t kind)
{
	const struct pk_rack *r = e->tcp_rack ? ft__pk_tcp_rack_of(e, fid) : NULL;

	return r && r->tmr_kind == kind && r->tmr_gen == (f->rto_gen & PK_RTO_GEN);
}

/*
 * TCP: flow @fid's timer was armed as the RTO (arm_rto(), which clears the mark, or
 * tcp_xmit_timer()) where a probe was due: if connection @t is not Open (tcp_open()),
 * the timer is held, and the ACK that opens it re-arms it as a probe (tcp_reopen()).
 * One whose own probe went (tcp_tlp()) is not held: its RTO stands. Nor is one that a
 * SACK reached while another message had the scoreboard (tcp_acked()): in Linux's one
 * byte stream that SACK would keep the connection in Disorder, so no probe.
 */
static int
tcp_hold(struct pk_engine *e, uint32_t fid, struct pk_tcp *t, uint64_t due_ps)
{
	struct pk_rack *r = e->tcp_rack ? ft__pk_tcp_rack_of(e, fid) : NULL;

	if (r && e->tcp_sack && !tcp_open(e, t)) {
		r->held = t->rto_held = true;
		r->held_ps = due_ps;
		if (!r->listed) {
			if (ft__pk_tcp_held_add(t, fid) < 0)
				return FT_ENOMEM;
			r->listed = true;
		}
	}
	return 0;
}

/*
 * TCP: whether a retransmit timer of flow @fid that ACKs moved on (ev_rto()) becomes a
 * tail-loss probe: one may be armed now, and its time, counted from the last of those
 * ACKs, is still ahead. One whose time has passed stays the RTO: the connection could
 * not probe then (another message of it in recovery), and a probe now would put the
 * RTO off by one more RTO.
 */
static bool
tcp_tlp_ahead(struct pk_engine *e, uint32_t fid, const struct pk_flow *f)
{
	const struct pk_tcp *t = ft__pk_tcp_conn(e, f);

	return t && tcp_tlp_ok(e, fid, f, t) &&
	       f->t_una_ps + ft__pk_tcp_pto_ps(t, pk_tcp_snd_max(t, fid, f) - f->snd_una,
	                                       rto_of(e, f)) >
	               e->now_ps;
}

/*
 * TCP: flow @fid's timer as Linux sets it after a send or an ACK (tcp_set_xmit_timer(),
 * tcp_event_new_data_sent()): the tail-loss probe's timeout where one may be armed (*@tlp,
 * ft__pk_tcp_pto_ps(): 2 SRTT and some, at most the RTO), else the RTO, counted from
 * @from_ps. 1 when that time has come already (nothing armed: the caller acts now).
 */
static int
tcp_xmit_timer(struct pk_engine *e, uint32_t fid, uint64_t from_ps, bool *tlp)
{
	struct pk_flow *f = flow_at(e, fid);
	struct pk_tcp *t = ft__pk_tcp_conn(e, f);
	struct pk_rack *r = e->tcp_rack ? ft__pk_tcp_rack_of(e, fid) : NULL;
	uint64_t d;

	if (!t)
		return FT_ENOMEM;
	d = rto_of(e, f);
	*tlp = tcp_tlp_ok(e, fid, f, t);
	if (*tlp)
		d = ft__pk_tcp_pto_ps(t, pk_tcp_snd_max(t, fid, f) - f->snd_una, d);
	if (from_ps + d <= e->now_ps)
		return 1;
	f->rto_una = f->snd_una;
	e->nrto_queued++;
	++f->rto_gen;
	if (r)
		r->held = false;
	if (!*tlp && tcp_hold(e, fid, t, from_ps + d) < 0)
		return FT_ENOMEM;
	if (*tlp && r) {
		/* (none once the receiver has every packet: then nothing is lazy) */
		r->tmr_kind = PK_TMR_TLP;
		r->tmr_gen = f->rto_gen & PK_RTO_GEN;
		r->tmr_due_ps = from_ps + d;
		r->tlp_tx_ps = from_ps;
	}
	return ev_push(e, from_ps + d, PK_EV_RTO, fid,
	               (f->rto_gen & PK_RTO_GEN) | (*tlp ? PK_RTO_TLP : 0));
}

/*
 * TCP: connection @t is Open (tcp_open()) at an ACK of flow @fid after a message of it had
 * its timer held at the RTO (tcp_hold()). Linux keeps one timer for the socket, which
 * that ACK re-arms as a probe (tcp_ack() -> tcp_set_xmit_timer() ->
 * tcp_schedule_loss_probe(), net/ipv4/tcp_input.c, tcp_output.c): the PTO from now, at
 * most the RTO. The engine keeps one per message, and an ACK re-arms its own message's
 * (tcp_acked()): so each other message of @t with data in flight and its RTO held has it
 * re-armed so here (tcp_xmit_timer() from now), in the order of their flows. @t's held
 * list names them (and maybe some no longer held: dropped here); those still held after
 * this stay in it.
 */
static int
tcp_reopen(struct pk_engine *e, uint32_t fid, struct pk_tcp *t)
{
	uint32_t n = ft__pk_tcp_held_sort(t), kept = 0;

	t->rto_held = false;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t g = t->held[k];
		struct pk_rack *r = ft__pk_tcp_rack_of(e, g);
		struct pk_flow *h = flow_at(e, g);
		bool tlp;
		int rc;

		if (!r || !r->held || ft__pk_tcp_conn(e, h) != t) {
			if (r && ft__pk_tcp_conn(e, h) == t)
				r->listed = false;
			continue;
		}
		if (g != fid && h->snd_una < h->npkts && !tcp_tmr_is(e, g, h, PK_TMR_TLP) &&
		    !tcp_tmr_is(e, g, h, PK_TMR_REO) && tcp_tlp_ok(e, g, h, t) &&
		    e->now_ps + ft__pk_tcp_pto_ps(t, pk_tcp_snd_max(t, g, h) - h->snd_una,
		                                  rto_of(e, h)) <
		            r->held_ps &&
		    (rc = tcp_xmit_timer(e, g, e->now_ps, &tlp)) < 0)
			return rc;
		if (r->held)
			t->held[kept++] = g;
		else
			r->listed = false;
	}
	/* (none is added while this runs: tcp_xmit_timer() arms a probe, never a hold) */
	if (FT_NEVER(t->nheld != n))
		return FT_EINVAL;
	t->nheld = kept;
	return 0;
}

/*
 * SRD's tail-loss probe timeout for flow @f: RFC 8985 7.2's PTO, 2 SRTT (taken as the
 * model: SRD's own tail recovery is not published), SRTT being its QP's RFC 6298
 * estimate over every sample so far (pkt_cc.c srd_rtt_est(), the QP's state wherever it
 * is now: ft__pk_qp_cc()), at most the retransmit timeout (ft__pk_srd_rto()); before
 * any sample the retransmit timeout itself, as RFC 8985 7.2 takes 1 s capped by it.
 */
uint64_t
ft__pk_srd_pto(struct pk_engine *e, const struct pk_flow *f)
{
	uint64_t rto = ft__pk_srd_rto(e, f);

	if (e->sack) {
		const struct pk_dcqcn *d = ft__pk_qp_cc(e, f);

		if (d->srtt_ns)
			return FT_MIN((uint64_t)d->srtt_ns * 2000, rto);
	}
	return rto;
}

/* Whether SRD's sender holds a selective ACK for packet @seq of @f. */
static inline bool
sack_has(const struct pk_flow *f, uint32_t seq)
{
	return seq < f->snd_una ||
	       (f->sack_bits && (f->sack_bits[PK_SACK_HDR + seq / 64] >> (seq % 64) & 1));
}

/* SRD's sender's marks of flow @f (struct pk_flow sack_bits), made now if not yet. */
static int
sack_make(struct pk_flow *f)
{
	if (!f->sack_bits) {
		f->sack_bits = ft_calloc(PK_SACK_HDR + (f->npkts + 63) / 64, sizeof(uint64_t));
		if (!f->sack_bits)
			return FT_ENOMEM;
	}
	return 0;
}

/*
 * SRD's sender put packet snd_nxt - 1 on the wire: one it sent before is a resend
 * (counted in its op and the run), and the next one to send is the next that no ACK has
 * named, so a recovery pass (go_back(), sack_hint()) sends only the packets not
 * acknowledged; at the pass's end (PK_SACK_END) it goes on with the packets never sent.
 */
static void
sack_sent(struct pk_engine *e, uint32_t fid, struct pk_flow *f)
{
	uint64_t max = f->sack_bits ? f->sack_bits[PK_SACK_MAX] : 0, end;

	if (f->snd_nxt > max)
		return; /* (a first send: the next packet is the next one) */
	e->nretx++;
	pk_op_acc(e, fid)->nretx++;
	pk_op_acc(e, fid)->npackets++;
	end = f->sack_bits[PK_SACK_END];
	while (f->snd_nxt < end && sack_has(f, f->snd_nxt))
		f->snd_nxt++;
	if (f->snd_nxt >= end)
		f->snd_nxt = (uint32_t)max;
}

/* Packet @id is lost, counted by the caller at its port: counted in its op and the run;
 * a sender with nothing left to send times out. */
static int
drop_pkt(struct pk_engine *e, uint32_t id)
{
	uint32_t fid = e->pkts[id].flow;
	const struct pk_flow *f = flow_at(e, fid);

	pk_op_acc(e, fid)->ndrops++;
	e->ndrops++;
	pkt_free(e, id);
	if (f->snd_nxt == f->npkts && !e->may_drop)
		return arm_rto(e, fid);
	return 0;
}

/* Packet @id is lost at the ingress buffer of port @l's destination (no room, a bit
 * error): counted there. */
static int
drop(struct pk_engine *e, uint32_t l, uint32_t id)
{
	struct pk_cls *q = pk_cls_at(e, l, pk_prio(&e->pkts[id]));

	pk_port_at(e, l)->drops++;
	q->drops++;
	q->drops_corrupt += (e->pkts[id].flags & PK_F_CORRUPT) ? 1 : 0;
	return drop_pkt(e, id);
}

/* ---- flows: adaptive routing per hop, the first port ---------------------- */

/*
 * Adaptive routing: of the @n equal-cost ports @links at vertex @at, the index of the one
 * with the fewest bytes queued (all priorities), a port sending a packet counting one byte
 * more than an idle one with the same queue, so that an idle port wins; among equals,
 * the (hash ^ at) mod (number of equals)-th of them in @links' order. The switch's choice
 * by load among the ports of the destination's AR group (kb IB-AR; NVIDIA's adaptive
 * routing, NV-AR, and Spectrum-X's per-packet load balancing pick by egress load).
 */
uint32_t
ft__pk_choose_least_queued(void *ud, uint32_t at, const uint32_t *links, uint32_t n)
{
	const struct choose_ctx *c = ud;
	uint64_t best = UINT64_MAX;
	uint32_t i, nbest = 0, pick, k = 0;

	for (i = 0; i < n; i++) {
		const struct pk_port *p = pk_port_at(c->e, links[i]);
		uint64_t q = p->q_bytes + (p->busy ? 1 : 0);

		if (q < best) {
			best = q;
			nbest = 1;
		} else if (q == best) {
			nbest++;
		}
	}
	pick = (uint32_t)(ft_mix64(c->hash ^ at) % nbest);
	for (i = 0; i < n; i++) {
		const struct pk_port *p = pk_port_at(c->e, links[i]);

		if (p->q_bytes + (p->busy ? 1 : 0) == best && k++ == pick)
			return i;
	}
	return 0;
}

/* Flow @fid has packets to send: into its first port's ring, which may send now. */
int
ft__pk_flow_send(struct pk_engine *e, uint32_t fid)
{
	uint32_t l = flow_at(e, fid)->first_link;

	ring_add(e, l, fid);
	return try_send(e, l);
}

/* ---- a QP's sequence across its messages (struct pk_qpseq) ------------------------- */

int
ft__pk_qp_link(struct pk_engine *e, uint32_t a, uint32_t b)
{
	size_t n = (size_t)FT_MAX(a, b) + 1;

	if (n > e->nqseq) {
		size_t cap = FT_MAX(FT_MAX(n, 2 * e->nqseq), (size_t)1024);
		struct pk_qpseq *q = ft_reallocarray(e->qseq, cap, sizeof(*q));

		if (!q)
			return FT_ENOMEM;
		for (size_t i = e->nqseq; i < cap; i++)
			q[i] = (struct pk_qpseq){ PK_NONE, PK_NONE, 0 };
		e->qseq = q;
		e->nqseq = cap;
	}
	e->qseq[a].next = b;
	e->qseq[b].prev = a;
	e->qseq[b].wait = 0;
	return 0;
}

int
ft__pk_qp_seq_end(struct pk_engine *e, uint32_t fid)
{
	uint32_t b = fid < e->nqseq ? e->qseq[fid].next : PK_NONE;

	if (fid < e->nqseq)
		e->qseq[fid] = (struct pk_qpseq){ PK_NONE, PK_NONE, 0 };
	if (b == PK_NONE || e->qseq[b].prev != fid)
		return 0;
	e->qseq[b].prev = PK_NONE;
	if (!e->qseq[b].wait)
		return 0;
	e->qseq[b].wait = 0; /* (its packets go on: the receiver now takes them) */
	return ft__pk_flow_send(e, b);
}

/* Whether flow @fid must wait to send: the message before it on its QP has packets to
 * send again (a go-back-N pass), which go first on the QP. */
static bool
qp_held(const struct pk_engine *e, uint32_t fid)
{
	uint32_t a = pk_qp_prev(e, fid);

	return a != PK_NONE && flow_at(e, a)->snd_nxt < flow_at(e, a)->npkts;
}

/* Flow @fid sent its last packet (again): the QP's next message, if it waited for that,
 * goes back into its ring; its port, where another than @l. */
static uint32_t
qp_release(struct pk_engine *e, uint32_t fid, uint32_t l)
{
	uint32_t b = fid < e->nqseq ? e->qseq[fid].next : PK_NONE;

	if (b == PK_NONE || !e->qseq[b].wait || e->qseq[b].prev != fid)
		return PK_NONE;
	e->qseq[b].wait = 0;
	ring_add(e, flow_at(e, b)->first_link, b);
	return flow_at(e, b)->first_link != l ? flow_at(e, b)->first_link : PK_NONE;
}

/* ---- ports ---------------------------------------------------------------- */

/*
 * When the first packet of a message may leave NIC port @p at the earliest, not
 * before @t0: the NIC's send pipeline takes one message per nic_msg_ps, or per
 * nic_miss_ps while the QPs with messages in flight through the NIC (the flows that
 * leave by its port and whose end has not come back to it, under any routing: nqps,
 * PK_EV_QP_END) outnumber the contexts it caches. A pipelined stage: its time overlaps
 * the wire's, and only a pipeline slower than the wire holds the port.
 */
static uint64_t
nic_pipeline(struct pk_engine *e, struct pk_port *p, uint64_t t0)
{
	bool miss = e->nic_qp_cache && p->nqps > e->nic_qp_cache;
	uint64_t start = p->nic_free_ps > t0 ? p->nic_free_ps : t0;

	e->nic_msgs++;
	e->nic_missed += miss;
	e->nic_wait_ps += start - t0;
	p->nic_free_ps = start + (miss ? e->nic_miss_ps : e->nic_msg_ps);
	return start;
}

/* Put packet @id on the wire of link @l now. */
static int
transmit(struct pk_engine *e, uint32_t l, uint32_t id)
{
	struct pk_port *p = pk_port_at(e, l);
	struct pk_pkt *k = &e->pkts[id];
	struct pk_cls *q = pk_cls_at(e, l, pk_prio(k));
	uint32_t wire = k->payload + p->hdr;
	uint64_t ser = pk_port_ser_ps(p, wire), t0 = e->now_ps, tail, ready;
	uint32_t rel = pk_ev_link_arg(e, k->link);
	bool last;

	if (!e->pc.store_forward && k->link != PK_NONE && k->tail_ps > t0 + ser)
		t0 = k->tail_ps - ser; /* a faster link may not outrun the tail */
	if (p->nic && k->seq == 0)
		t0 = nic_pipeline(e, p, t0);
	p->busy = true;
	p->rel_link = k->link;
	p->rel_bytes = k->link != PK_NONE ? k->payload + pk_port_at(e, k->link)->hdr : 0;
	p->rel_prio = (uint8_t)pk_prio(k);
	if (e->ndown && e->links[l].down) {
		/* Sent onto a link that is down: it never leaves, and is lost where it
		 * would arrive (drop(): PortXmitDiscards counts outbound packets
		 * discarded because the port is down or congested, kb IB-COUNTERS). */
		k->flags |= PK_F_DOWN;
	} else {
		p->tx_bytes += wire;
		p->tx_payload += k->payload;
		p->tx_pkts++;
		q->tx_bytes += wire;
		q->tx_pkts++;
	}
	if (link_fc(e, l) == FT_PKT_FC_CREDIT)
		q->credits -= blocks(wire);
	if (p->net && e->pc.ber > 0) {
		double pok = pow(1 - e->pc.ber, 8.0 * wire);

		if (ft_rng_unit(&e->ber_rng[l]) >= pok)
			k->flags |= PK_F_CORRUPT;
	}
	k->hop++;
	k->link = l;
	tail = t0 + ser + p->lat_ps;
	k->tail_ps = tail;
	last = p->dst == k->dst;
	ready = last || e->pc.store_forward ? tail : t0 + p->lat_ps;
	if (ev_push(e, t0 + ser, PK_EV_TX_DONE, l, rel) < 0 ||
	    ev_push(e, ready, PK_EV_ARRIVE, id, pk_ev_link_arg(e, l)) < 0)
		return FT_ENOMEM;
	return 0;
}

/* The payload of packet @seq of flow @f. */
static uint32_t
pkt_payload(const struct pk_engine *e, const struct pk_flow *f, uint32_t seq)
{
	return seq + 1 == f->npkts ? f->last_payload : e->mtu;
}

/* Priority record @q's flow control let go (credits came, a pause ended): its XmitWait. */
static inline void
cls_unheld(struct pk_engine *e, struct pk_cls *q)
{
	if (q->held) {
		q->xmit_wait_ps += e->now_ps - q->t_held_ps;
		q->held = false;
	}
}

static bool
fc_blocks(struct pk_engine *e, uint32_t l, uint32_t c, uint32_t wire)
{
	const struct pk_cls *p = pk_cls_at(e, l, c);

	switch (cls_fc(e, l, c)) {
	case FT_PKT_FC_CREDIT:
		return p->credits < (int64_t)blocks(wire);
	case FT_PKT_FC_PFC:
		return p->paused;
	default:
		return false;
	}
}

/* What priority @c of port @l would send next (pkt_int.h). */
int
ft__pk_cls_ready(struct pk_engine *e, uint32_t l, uint32_t c, bool *src, unsigned *why,
                 uint32_t *wire)
{
	struct pk_cls *p;
	uint32_t payload;

	if (!(pk_port_at(e, l)->cls_live >> c & 1u))
		return 0; /* no transit packets, no sourced flows: the record is not read */
	p = pk_cls_at(e, l, c);
	*src = p->nring > 0 && (p->head == PK_NONE || p->turn_src);
	if (*src && e->paced) {
		int rc = ft__pk_pick_paced(e, l, c);

		if (rc < 0)
			return rc;
		if (rc == 0) { /* every sourced flow waits for its rate */
			if (p->head == PK_NONE) {
				*why |= PK_PACED;
				return 0;
			}
			*src = false;
		}
	}
	if (*src) {
		const struct pk_flow *f = flow_at(e, flow_at(e, p->ring)->ring_next);

		payload = pkt_payload(e, f, f->snd_nxt);
	} else {
		payload = e->pkts[p->head].payload;
	}
	*wire = payload + pk_port_at(e, l)->hdr;
	if (fc_blocks(e, l, c, *wire)) {
		*why |= PK_HELD;
		if (!p->held) {
			p->held = true;
			p->t_held_ps = e->now_ps;
		}
		return 0;
	}
	return 1;
}

/*
 * Arbitration wait. Whether priority @c of port @l could send now but for the arbiter: it
 * has a packet (a transit one, or a sourced flow its rate lets send) and its flow control
 * lets it go. Unlike ft__pk_cls_ready() this only reads: a priority the arbiter did not
 * reach neither starts its XmitWait nor wakes its paced flows.
 */
static bool
cls_arb_ready(struct pk_engine *e, uint32_t l, uint32_t c)
{
	const struct pk_port *pp = pk_port_at(e, l);
	const struct pk_cls *p;
	uint32_t payload;
	bool src;

	if (!(pp->cls_live >> c & 1u))
		return false;
	p = pk_cls_at(e, l, c);
	src = p->nring > 0 && (p->head == PK_NONE || p->turn_src);
	if (src && e->paced && !ft__pk_paced_ready(e, l, c))
		src = false;
	if (src) {
		const struct pk_flow *f = flow_at(e, flow_at(e, p->ring)->ring_next);

		payload = pkt_payload(e, f, f->snd_nxt);
	} else if (p->head != PK_NONE) {
		payload = e->pkts[p->head].payload;
	} else {
		return false;
	}
	return !fc_blocks(e, l, c, payload + pp->hdr);
}

/*
 * Port @l sends (or is about to send) a packet of priority @cur: every other priority that
 * could send now waits for the arbiter from now until the port's next pick
 * (arb_wait_close()). Called at each pick, and while the port is busy whenever a priority's
 * state changes (a packet queued, credits, a pause ended), so that a packet that comes
 * during another priority's packet waits from when it came.
 */
static void
arb_wait_open(struct pk_engine *e, uint32_t l, uint32_t cur)
{
	struct pk_port *p = pk_port_at(e, l);
	uint32_t m = p->cls_live & ~(uint32_t)p->arb_wait & ~(1u << cur);

	while (m) {
		uint32_t c = (uint32_t)__builtin_ctz(m);

		m &= m - 1;
		if (cls_arb_ready(e, l, c)) {
			pk_cls_at(e, l, c)->t_arb_ps = e->now_ps;
			p->arb_wait |= (uint8_t)(1u << c);
		}
	}
}

/* Port @l picks again: the priorities that waited for it have waited until now. */
static void
arb_wait_close(struct pk_engine *e, uint32_t l)
{
	struct pk_port *p = pk_port_at(e, l);
	uint32_t m = p->arb_wait;

	while (m) {
		struct pk_cls *q = pk_cls_at(e, l, (uint32_t)__builtin_ctz(m));

		m &= m - 1;
		q->arb_wait_ps += e->now_ps - q->t_arb_ps;
	}
	p->arb_wait = 0;
}

/*
 * The priority port @l sends from next (kb ROCE-QOS, IB-VL): strict: the highest ready one;
 * WRR: the one whose turn it is while it is ready and has sent fewer than its weight
 * in packets this turn, else the next ready one in turn. PK_NONE when none is ready.
 */
static int
arbitrate(struct pk_engine *e, uint32_t l, uint32_t *cls, bool *src, unsigned *why)
{
	struct pk_port *p = pk_port_at(e, l);
	uint32_t n = e->nprio, i, wire;
	int rc;

	*cls = PK_NONE;
	if (e->vlarb)
		return ft__pk_vlarb_pick(e, l, cls, src, why);
	if (e->pc.arb == FT_PKT_ARB_STRICT || n == 1) {
		for (i = e->ncls; i-- > 0;) {
			rc = ft__pk_cls_ready(e, l, e->cls_prio[i], src, why, &wire);
			if (rc != 0) {
				*cls = e->cls_prio[i];
				return rc < 0 ? rc : 0;
			}
		}
		return 0;
	}
	/* Priorities not in use are never ready; the turn starts at priority 0, which may be
	 * one (its count of packets sent is then 0). */
	for (i = 0; i <= n; i++) {
		uint32_t c = (p->wrr_cur + i) % n;
		uint32_t w = e->pc.prio_weight[c] ? e->pc.prio_weight[c] : 1;

		if (!pk_prio_used(e, c))
			continue;
		if (i == 0 && pk_port_cls(e, p, c)->wrr_sent >= w)
			continue; /* its turn is over */
		rc = ft__pk_cls_ready(e, l, c, src, why, &wire);
		if (rc < 0)
			return rc;
		if (rc > 0) {
			if (c != p->wrr_cur) {
				if (pk_prio_used(e, p->wrr_cur))
					pk_port_cls(e, p, p->wrr_cur)->wrr_sent = 0;
				p->wrr_cur = (uint8_t)c;
			}
			pk_port_cls(e, p, c)->wrr_sent++;
			*cls = c;
			return 0;
		}
	}
	return 0;
}

/*
 * TCP: flow @fid, the head of the ring of priority @c of port @l, is picked to send: its
 * connection in @t, and in @rtx the packet fast retransmit or a partial ACK asked to
 * resend first (tcp_acked()), PK_NONE. 1 when it has nothing it may send (all sent and
 * not resent, or its window full): it leaves the ring (an ACK brings it back).
 */
static int
tcp_pick(struct pk_engine *e, uint32_t l, uint32_t c, uint32_t fid, struct pk_tcp **t,
         uint32_t *rtx)
{
	struct pk_flow *f = flow_at(e, fid);

	*t = ft__pk_tcp_conn(e, f);
	if (!*t)
		return FT_ENOMEM;
	if (e->tcp_pace)
		ft__pk_tcp_pace(e, *t, f);
	if ((*t)->rtx_flow == fid) {
		(*t)->rtx_flow = PK_NONE;
		if ((*t)->rtx_seq >= f->snd_una && (*t)->rtx_seq < f->npkts) {
			*rtx = (*t)->rtx_seq;
			return 0;
		}
	}
	/* (a timeout went back, and an ACK covered what it had sent before) */
	if (f->snd_nxt < f->snd_una)
		f->snd_nxt = f->snd_una;
	if ((*t)->rec_sack && (*t)->rec_flow == fid) {
		/* SACK's recovery (RFC 6675 NextSeg): while the pipe is below cwnd, the next
		 * packet RACK marked lost and not yet resent, then new data */
		uint32_t snd_max = pk_tcp_snd_max(*t, fid, f);
		const struct pk_rack *r = ft__pk_tcp_rack_of(e, fid);
		uint32_t h = ft__pk_tcp_sack_next(r, f, snd_max);

		if (h != PK_NONE &&
		    (double)ft__pk_tcp_pipe(*t, fid, r, f, snd_max) < FT_MAX((*t)->cwnd, 1.0)) {
			*rtx = h; /* (marked resent as it leaves, tcp_sent()) */
			return 0;
		}
	}
	if (f->snd_nxt >= f->npkts) {
		ring_pop(e, l, c);
		return 1;
	}
	if ((*t)->tlp_force == fid) {
		(*t)->tlp_force = PK_NONE; /* a tail-loss probe of new data: past the window */
		return 0;
	}
	if (ft__pk_tcp_full(*t, fid, ft__pk_tcp_rack_of(e, fid), f)) {
		ring_pop(e, l, c);
		f->wnd_held = true;
		return 1;
	}
	return 0;
}

/*
 * TCP: flow @fid sent packet @seq, again when @resent (fast retransmit, a partial ACK):
 * counted as a resend, and the round trip it was timing, if any, dropped (Karn's rule,
 * RFC 6298 3); a packet sent for the first time starts a measurement when none runs. A
 * lossy run's timer starts with the flow's first packet (RFC 6298 5.1).
 */
static int
tcp_sent(struct pk_engine *e, uint32_t fid, struct pk_flow *f, struct pk_tcp *t, uint32_t seq,
         bool resent)
{
	if (t->max_flow != fid) {
		t->max_flow = fid;
		t->snd_max = 0;
	}
	if (t->tlp_wait && t->tlp_flow == fid && seq + 1 == t->tlp_high) {
		t->tlp_wait = false;
		t->ntlp++; /* the tail-loss probe left (tcp_send_loss_probe()'s probe_sent) */
	}
	if (t->rec_sack && t->rec_flow == fid)
		t->prr_out++; /* (PRR's count of what a recovery sent: pkt_tcp.c) */
	if (e->tcp_sack && f->npkts <= PK_ACK_SEQ && f->rcv_nxt < f->npkts) {
		/* RACK's record of when it left (pkt_tcp.c) */
		struct pk_rack **rp = ft__pk_tcp_rack_slot(e, fid);
		int rc = rp ? ft__pk_tcp_rack_sent(t, rp, f, seq, e->now_ps,
		                                   resent || seq < t->snd_max, resent) :
		              FT_ENOMEM;

		if (rc < 0)
			return rc;
	}
	if (resent || seq < t->snd_max) {
		if (resent) {
			e->nretx++;
			pk_op_acc(e, fid)->nretx++;
			pk_op_acc(e, fid)->npackets++;
		}
		if (t->timed_flow == fid && seq <= t->timed_seq)
			t->timed_flow = PK_NONE;
		return 0;
	}
	t->snd_max = seq + 1;
	if (t->timed_flow == PK_NONE) {
		t->timed_flow = fid;
		t->timed_seq = seq;
		t->t_timed_ps = e->now_ps;
	}
	if (e->may_drop || e->ndrops) {
		/* Linux schedules the tail-loss probe after new data leaves
		 * (tcp_write_xmit(): tcp_schedule_loss_probe()); the flow's first packet
		 * starts its timer in any case (RFC 6298 5.1). A probe armed already moves on
		 * lazily (ev_rto()), unless the packets out now call for an earlier one (one
		 * out: the delayed-ACK allowance; two: not), as does a reordering timer. */
		struct pk_rack *r = ft__pk_tcp_rack_of(e, fid);
		uint32_t out = pk_tcp_snd_max(t, fid, f) - f->snd_una;
		bool tlp;
		int rc = 0;

		if (tcp_tmr_is(e, fid, f, PK_TMR_TLP) &&
		    e->now_ps + ft__pk_tcp_pto_ps(t, out, rto_of(e, f)) >= r->tmr_due_ps)
			r->tlp_tx_ps = e->now_ps;
		else if (seq == 0 ||
		         (!tcp_tmr_is(e, fid, f, PK_TMR_REO) && tcp_tlp_ok(e, fid, f, t)))
			rc = tcp_xmit_timer(e, fid, e->now_ps, &tlp);
		return rc < 0 ? rc : 0;
	}
	return 0;
}

/* The unit tests' deterministic losses (pk_engine lose): packet @k, if listed, is lost
 * (the receiver drops it as corrupted), once. */
static void
lose_note(struct pk_engine *e, struct pk_pkt *k)
{
	for (uint32_t i = 0; i < e->nlose; i += 2) {
		if (e->lose[i] != k->flow || e->lose[i + 1] != k->seq)
			continue;
		k->flags |= PK_F_CORRUPT;
		e->lose[i] = e->lose[e->nlose - 2];
		e->lose[i + 1] = e->lose[e->nlose - 1];
		e->nlose -= 2;
		return;
	}
}

/* Port @l is free: send the next packet, transit and sourced in turn within a priority,
 * if flow control lets. */
static int
try_send(struct pk_engine *e, uint32_t l)
{
	struct pk_port *p = pk_port_at(e, l);
	struct pk_cls *q;
	bool src = false;
	unsigned why = 0;
	uint32_t payload, id, c, wake = PK_NONE;
	struct pk_flow *f = NULL;
	int rc;

	if (p->busy) {
		if (e->ncls > 1)
			arb_wait_open(e, l, p->rel_prio);
		return 0;
	}
	if (p->arb_wait)
		arb_wait_close(e, l);
	rc = arbitrate(e, l, &c, &src, &why);
	if (rc < 0)
		return rc;
	if (c == PK_NONE) {
		if ((why & PK_HELD) && !p->blocked) {
			p->blocked = true;
			p->t_blocked_ps = e->now_ps;
		} else if (!why && p->blocked) {
			p->xmit_wait_ps += e->now_ps - p->t_blocked_ps;
			p->blocked = false;
		}
		return 0;
	}
	if (p->blocked) {
		p->xmit_wait_ps += e->now_ps - p->t_blocked_ps;
		p->blocked = false;
	}
	if (e->ncls > 1)
		arb_wait_open(e, l, c);
	q = pk_cls_at(e, l, c);
	q->turn_src = !src;
	if (src) {
		uint32_t fid = flow_at(e, q->ring)->ring_next, rtx = PK_NONE;
		struct pk_tcp *t = NULL;
		struct pk_pkt *k;

		if (e->nqseq && qp_held(e, fid)) {
			/* its QP resends an earlier message first: out until that one's last
			 * packet has left again (qp_release()) */
			ring_pop(e, l, c);
			e->qseq[fid].wait = 1;
			return try_send(e, l);
		}
		if (pk_flow_tcp(e, flow_at(e, fid))) {
			rc = tcp_pick(e, l, c, fid, &t, &rtx);
			if (rc != 0)
				return rc < 0 ? rc : try_send(e, l);
		}
		id = pkt_alloc(e);
		if (id == PK_NONE)
			return FT_ENOMEM;
		if (refs_on(e) && ft__pk_ref(e, fid) < 0) {
			pkt_free_raw(e, id);
			return FT_ENOMEM;
		}
		f = flow_at(e, fid);
		payload = pkt_payload(e, f, f->snd_nxt);
		k = &e->pkts[id];
		k->flow = fid;
		k->dst = f->dst;
		k->path_off = f->npath ? f->path_off : pk_flowlet_row(e, f, f->snd_nxt);
		k->seq = rtx != PK_NONE ? rtx : f->snd_nxt++;
		/* (its first send of packet 0: before a resend pass, which marks the highest
		 * packet sent) */
		if (e->spray && k->seq == 0 && rtx == PK_NONE && f->nic_link != PK_NONE &&
		    f->nic_rx_link != PK_NONE &&
		    !(e->sack && f->sack_bits && f->sack_bits[PK_SACK_MAX]) &&
		    (rc = stripe_first(e, fid, f)) < 0) {
			pkt_free_raw(e, id);
			return rc;
		}
		if (t) {
			rc = tcp_sent(e, fid, f, t, k->seq, rtx != PK_NONE);
			if (rc < 0) {
				pkt_free_raw(e, id);
				return rc;
			}
		}
		if (e->sack) {
			/* SRD's tail-loss probe: armed when the tail first leaves (srd_probe()) */
			bool tail = k->seq + 1 == f->npkts && e->may_drop &&
			            !(f->sack_bits && k->seq < f->sack_bits[PK_SACK_MAX]);

			if (tail) {
				e->nrto_queued++;
				rc = ev_push(e, e->now_ps + ft__pk_srd_pto(e, f), PK_EV_RTO, fid,
				             (f->rto_gen & PK_RTO_GEN) | PK_RTO_PROBE);
				if (rc < 0) {
					pkt_free_raw(e, id);
					return rc;
				}
			}
			/* SRD's timer runs from the flow's first packet (RFC 6298 5.1: started
			 * with the first send, restarted when snd_una moves, ev_rto()) */
			if (k->seq == 0 && (e->may_drop || e->ndrops) &&
			    !(f->sack_bits && f->sack_bits[PK_SACK_MAX]) &&
			    (rc = arm_rto(e, fid)) < 0) {
				pkt_free_raw(e, id);
				return rc;
			}
			sack_sent(e, fid, f);
		}
		k->payload = (uint16_t)payload;
		k->link = PK_NONE;
		k->hop = 0;
		k->flags = (uint8_t)(c << PK_F_PRIO_SHIFT);
		k->tail_ps = 0;
		k->t_sent_ps = e->now_ps;
		k->next = PK_NONE;
		if (e->nlose)
			lose_note(e, k);
		e->npackets++;
		/* The reaction point meters the bytes its NIC puts on the fabric: a QP
		 * sourced at a GPU is paced where its data leaves (the NIC pulls it over
		 * PCIe only as its limiter serves the QP), but by the packet's size on
		 * the NIC's wire, headers included, not on the PCIe hop (no fabric
		 * headers): its rate R is then R on the NIC's link (kb CC-DCQCN). */
		if (e->paced)
			ft__pk_dcqcn_sent(e, f,
			                  payload + (f->nic_link != PK_NONE ?
			                                     pk_port_at(e, f->nic_link)->hdr :
			                                     p->hdr));
		if (f->snd_nxt == f->npkts) {
			ring_pop(e, l, c);
			rc = pk_flow_sent(e, f);
			if (rc < 0)
				return rc;
			if (e->nqseq)
				wake = qp_release(e, fid, l);
			/* The tail may be lost (a drop, a bit error): time it out. (SRD's
			 * timer already runs on a lossy fabric: from the first packet, re-armed
			 * at each timeout.) */
			if ((e->may_drop || e->ndrops) && !(e->sack && e->may_drop)) {
				bool tlp;

				/* (TCP: the tail-loss probe, where one may be armed) */
				rc = t ? tcp_xmit_timer(e, fid, e->now_ps, &tlp) : arm_rto(e, fid);
				if (rc < 0)
					return rc;
			}
		} else if (t && ft__pk_tcp_full(t, fid, ft__pk_tcp_rack_of(e, fid), f)) {
			/* TCP: a full window waits out of the ring for an ACK (ev_acked) */
			ring_pop(e, l, c);
			f->wnd_held = true;
		} else {
			q->ring = fid; /* round robin: the next flow goes first next time */
		}
	} else {
		id = q->head;
		payload = e->pkts[id].payload;
		q->head = e->pkts[id].next;
		if (q->head == PK_NONE) {
			q->tail = PK_NONE;
			cls_live_note(e, l, c, q);
		} else { /* read at this port's next turn, a serialisation time from now */
			__builtin_prefetch(&e->pkts[q->head]);
		}
		if (q_account(e, p) < 0)
			return FT_ENOMEM;
		p->q_bytes -= payload + p->hdr;
		if (q->cq) {
			if (cq_account(e, q->cq) < 0)
				return FT_ENOMEM;
			q->cq->q_bytes -= payload + p->hdr;
		}
	}
	rc = transmit(e, l, id);
	/* (a message its QP held, back in the ring of another port than this one) */
	return rc < 0 || wake == PK_NONE ? rc : try_send(e, wake);
}

static int
enqueue(struct pk_engine *e, uint32_t l, uint32_t id)
{
	struct pk_port *p = pk_port_at(e, l);
	struct pk_cls *q = pk_cls_at(e, l, pk_prio(&e->pkts[id]));

	if (e->marking && p->net && p->q_bytes > 0)
		ft__pk_ecn_mark(e, l, &e->pkts[id]);

	e->pkts[id].next = PK_NONE;
	if (q->tail == PK_NONE)
		q->head = id;
	else
		e->pkts[q->tail].next = id;
	q->tail = id;
	p->cls_live |= (uint8_t)(1u << pk_prio(&e->pkts[id]));
	if (q_account(e, p) < 0)
		return FT_ENOMEM;
	if (__builtin_expect(p->q_solo != 1u + pk_prio(&e->pkts[id]), 0) &&
	    cq_enter(e, p, pk_prio(&e->pkts[id]), q) < 0)
		return FT_ENOMEM;
	p->q_bytes += e->pkts[id].payload + p->hdr;
	if (p->q_bytes > p->q_max_bytes)
		p->q_max_bytes = p->q_bytes;
	if (q->cq) {
		if (cq_account(e, q->cq) < 0)
			return FT_ENOMEM;
		q->cq->q_bytes += e->pkts[id].payload + p->hdr;
		q->cq->q_max_bytes = FT_MAX(q->cq->q_max_bytes, q->cq->q_bytes);
	}
	return try_send(e, l);
}

/*
 * SRD's spraying at vertex @v (EFA), among the @n equal-cost ports @cand that are up: the
 * sender picks each packet's path, spreading a flow over as many paths as it can while
 * steering away from loaded ones (the IEEE Micro 2020 paper on SRD; how it rates a path
 * is not published). Here: the ports with the fewest whole packets queued (a port with
 * less than one wire MTU waiting is as free as an idle one), and among those a flow's
 * packets take them in turn, packet after packet, from a place its hash sets at each
 * vertex: with no queue anywhere, every run of n packets of a flow covers each of n
 * ports once. SRD varies the entropy of each packet's encapsulation that the switches'
 * ECMP hashes (docs/internals/sim.md, "EFA and GPUDirect-TCPX/O").
 */
static uint32_t
spray_pick(const struct pk_engine *e, uint32_t id, uint32_t v, const uint32_t *cand, uint32_t n)
{
	const struct pk_pkt *k = &e->pkts[id];
	uint64_t best = UINT64_MAX, wire = (uint64_t)e->mtu + e->hdr;
	uint32_t i, nbest = 0, pick, j = 0;

	for (i = 0; i < n; i++) {
		uint64_t q = pk_port_at(e, cand[i])->q_bytes / wire;

		if (q < best) {
			best = q;
			nbest = 1;
		} else if (q == best) {
			nbest++;
		}
	}
	pick = (uint32_t)((ft_mix64(flow_at(e, k->flow)->hash ^ v) + k->seq) % nbest);
	for (i = 0; i < n; i++)
		if (pk_port_at(e, cand[i])->q_bytes / wire == best && j++ == pick)
			return i;
	return 0;
}

/* The NIC of GPU vertex @g for @lane: its first NIC + lane mod its NICs (nics.per_gpu),
 * as ft__sim_route() numbers lanes; a NIC vertex is its own. */
static uint32_t
lane_nic(const struct pk_engine *e, uint32_t g, uint32_t lane)
{
	const struct ft_vertex *vx = ft_topo_vertex(e->topo, g);
	uint32_t first = ft__sim_gpu_nic_index(e->topo, g);

	if (vx->kind == FT_V_NIC)
		return g;
	if (first == UINT32_MAX)
		return UINT32_MAX;
	return ft_topo_nic(e->topo, vx->node, first + lane % ft__sim_gpu_lanes(e->topo, g));
}

/* The NICs a flow between two GPUs stripes over: the more of its ends' (lane k of one
 * GPU and of the other share a rail). */
static uint32_t
stripe_lanes(const struct pk_engine *e, const struct pk_flow *f)
{
	uint32_t a = ft__sim_gpu_lanes(e->topo, f->src), b = ft__sim_gpu_lanes(e->topo, f->dst);

	return FT_MAX(FT_MAX(a, b), 1u);
}

/*
 * aws-ofi-nccl's threshold scheduler as released in v1.7.0 to v1.7.3 (aws/aws-ofi-nccl
 * src/nccl_ofi_scheduler.c set_schedule_by_threshold(); one per device, nccl_ofi_rdma.c
 * device->scheduler) sends a message of at most OFI_NCCL_ROUND_ROBIN_THRESHOLD bytes
 * (8 KiB by default then) whole on one rail, the next of a round-robin counter, and cuts
 * a larger one into equal stripes, one per rail from rail 0, the counter left as it is
 * (nccl_net_ofi_set_multiplexing_schedule(), 128-byte aligned for LL128). The engine
 * keeps whole packets: a small message's packets all take the GPU's next lane, and the
 * counter moves on by one; a larger one's take the lanes in turn, packet by packet, from
 * the counter, which moves on by its packets (the engine's, so that every rail carries
 * its share of the GPU's bytes over a few messages, as the stripes give it within
 * each). Later releases differ: v1.7.4 to v1.12 raised the threshold to 256 KiB, and
 * from v1.13 (v1.16.3, the release modelled elsewhere, get_num_stripes()) a message
 * takes one stripe per OFI_NCCL_MIN_STRIPE_SIZE (128 KiB) on consecutive rails from the
 * counter, which moves on by the stripes: an LL128 message of 10,240 bytes goes whole
 * on one rail (sim.md Limits). Lanes restarted at each message (hash + seq) would leave
 * a rail idle under LL128's 3-packet messages (sim-log.md, 2026-12-07). Called at flow
 * @fid's first send of its packet 0; 0 or FT_ENOMEM.
 */
#define PK_OFI_RR_BYTES 8192u
static int
stripe_first(struct pk_engine *e, uint32_t fid, const struct pk_flow *f)
{
	uint32_t lanes = stripe_lanes(e, f), *rr = &e->lane_rr[f->src];

	while (e->lane0.len <= fid)
		if (ft_vec_push(&e->lane0, NULL) < 0)
			return FT_ENOMEM;
	FT_VEC_AT(&e->lane0, uint8_t, fid) = (uint8_t)(*rr % FT_MIN(lanes, 256u));
	*rr = (*rr + (f->bytes <= PK_OFI_RR_BYTES ? 1 : f->npkts)) % lanes;
	return 0;
}

/* The lane of packet @seq of flow @fid (@f) (stripe_first()). */
static uint32_t
stripe_lane(const struct pk_engine *e, uint32_t fid, const struct pk_flow *f, uint32_t seq)
{
	uint32_t l0 = fid < e->lane0.len ? FT_VEC_AT(&e->lane0, uint8_t, fid) : 0;

	return (l0 + (f->bytes <= PK_OFI_RR_BYTES ? 0 : seq)) % stripe_lanes(e, f);
}

/*
 * Where a sprayed packet at vertex @v heads for. SRD sprays over the fabric between two
 * NICs, and aws-ofi-nccl stripes a GPU's transfers over all the NICs it groups for the
 * GPU (docs/internals/sim.md, "EFA and GPUDirect-TCPX/O"): a flow between GPUs that drive
 * several NICs takes the lane of its packet (stripe_lane()) on both ends, else its
 * route's NICs. Inside the sending node the packet heads for its NIC, from there through
 * the fabric's switches for the receiving NIC, inside the receiving node for its
 * destination.
 */
static uint32_t
spray_target(const struct pk_engine *e, const struct pk_pkt *k, uint32_t v)
{
	const struct pk_flow *f = flow_at(e, k->flow);
	const struct ft_vertex *vx = ft_topo_vertex(e->topo, v);
	uint32_t snic, dnic, lane;

	if (f->nic_link == PK_NONE || f->nic_rx_link == PK_NONE)
		return k->dst;
	lane = stripe_lane(e, k->flow, f, k->seq);
	snic = lane_nic(e, f->src, lane);
	dnic = lane_nic(e, k->dst, lane);
	if (snic == UINT32_MAX || dnic == UINT32_MAX) {
		snic = e->links[f->nic_link].src;
		dnic = e->links[f->nic_rx_link].dst;
	}
	if (vx->kind == FT_V_SWITCH || v == snic)
		return dnic;
	if (vx->node == ft_topo_vertex(e->topo, f->src)->node &&
	    vx->node != ft_topo_vertex(e->topo, k->dst)->node)
		return snic;
	return k->dst;
}

/*
 * Where packet @k at vertex @v heads for under adaptive routing: at a switch, the NIC its
 * flow's route enters the receiving node by (the last fabric link's end, nic_rx_link),
 * since a switch's AR group is one per destination LID, the receiving HCA port, and
 * holds the min-hop ports toward it (kb IB-AR); inside the receiving node, the packet's
 * destination. That NIC is not always the one the destination's own route enters by: a
 * balanced tree's second GPU receives through its channel's NIC (node.c far_nic()), and
 * heading for the GPU instead would walk a packet to its own rail's NIC, over more hops
 * than its flow's row holds (flowlet_room()).
 */
static uint32_t
ar_target(const struct pk_engine *e, const struct pk_pkt *k, uint32_t v)
{
	const struct pk_flow *f = flow_at(e, k->flow);

	if (f->nic_rx_link == PK_NONE || ft_topo_vertex(e->topo, v)->kind != FT_V_SWITCH)
		return k->dst;
	return e->links[f->nic_rx_link].dst;
}

/*
 * Packet @id at vertex @v found no next hop toward @target (@rc: ft_route_next_hops()'s
 * error, or FT_ENOENT with @ndown equal-cost ports all down): @rc, the run's error
 * (route_err, engine_packet.c's end of the run reports it) naming the flow by its ends
 * (vertex names: node, GPU or NIC), its op, where the packet was and why.
 */
static int
hop_error(struct pk_engine *e, uint32_t id, uint32_t v, uint32_t target, int rc, int ndown)
{
	const struct pk_pkt *k = &e->pkts[id];
	const struct pk_flow *f = flow_at(e, k->flow);
	char a[64], b[64], at[64], to[64], why[256];

	ft_topo_vertex_name(e->topo, f->src, a, sizeof(a));
	ft_topo_vertex_name(e->topo, f->dst, b, sizeof(b));
	ft_topo_vertex_name(e->topo, v, at, sizeof(at));
	ft_topo_vertex_name(e->topo, target, to, sizeof(to));
	if (ndown > 0)
		snprintf(why, sizeof(why), "its %d equal-cost port%s toward %s %s down", ndown,
		         ndown == 1 ? "" : "s", to, ndown == 1 ? "is" : "are");
	else if (rc == FT_EINVAL)
		snprintf(why, sizeof(why),
		         "%s is a %s, and a route per hop leads only to GPUs, "
		         "NICs and the vertices inside a node (topo/route.c next_hops())",
		         to, ft_vertex_kind_name(ft_topo_vertex(e->topo, target)->kind));
	else if ((rc == FT_ENOENT || rc == 0) && e->ndown)
		snprintf(why, sizeof(why),
		         "no port there leads toward %s over links that are up "
		         "(%u link%s down)",
		         to, e->ndown, e->ndown == 1 ? "" : "s");
	else if (rc == FT_ENOENT || rc == 0)
		snprintf(why, sizeof(why), "no port there leads toward %s", to);
	else
		snprintf(why, sizeof(why), "routing toward %s: %s", to, ft_strerror(rc));
	rc = rc < 0 ? rc : FT_ENOENT;
	if (!e->route_err.code)
		ft_error_set(&e->route_err, rc,
		             "sim: packet engine: flow %u (%s -> %s, op %u, %s) has no next "
		             "hop at %s at %.3f us: %s",
		             k->flow, a, b, task_at(e, f->task)->op,
		             e->spray ? "sprayed by SRD" : "adaptive routing", at,
		             (double)e->now_ps / 1e6, why);
	return rc;
}

/* Adaptive routing at vertex @v: the equal-cost port that is up with the fewest queued
 * bytes; under SRD's spraying the next one of the flow's rotation (spray_pick()). */
static int
least_queued_hop(struct pk_engine *e, uint32_t id, uint32_t v, uint32_t *out)
{
	const struct pk_pkt *k = &e->pkts[id];
	uint32_t cand[64], target = e->spray ? spray_target(e, k, v) : ar_target(e, k, v);
	int n;

	n = ft_route_next_hops(e->topo, v, target, cand, FT_ARRAY_SIZE(cand));
	if (n <= 0)
		return hop_error(e, id, v, target, n, 0);
	{
		struct choose_ctx cc = { e, flow_at(e, k->flow)->hash ^ k->seq };
		uint32_t m = (uint32_t)FT_MIN((size_t)n, FT_ARRAY_SIZE(cand)), i, nup = 0;

		/* Links that are down are not candidates. */
		for (i = 0; i < m; i++)
			if (e->links[cand[i]].ps_per_byte < INFINITY)
				cand[nup++] = cand[i];
		if (nup == 0)
			return hop_error(e, id, v, target, FT_ENOENT, (int)m);
		*out = e->spray ? cand[spray_pick(e, id, v, cand, nup)] :
		                  cand[ft__pk_choose_least_queued(&cc, v, cand, nup)];
	}
	return 0;
}

/* The next link of packet @id at vertex @v. */
static int
next_link(struct pk_engine *e, uint32_t id, uint32_t v, uint32_t *out)
{
	const struct pk_pkt *k = &e->pkts[id];
	int n;

	if (k->path_off != PK_NONE) {
		*out = FT_VEC_AT(&e->paths, uint32_t, k->path_off + k->hop);
		if (*out != PK_NONE)
			return 0;
		/* The first of its flowlet's packets here: this switch picks for all of them
		 * (flowlet_room; every hop of the row is on a shortest path, so the packet
		 * is delivered at its last). Without flowlets the row is the flow's links to
		 * its NIC's port (host_fixed()): each packet picks here for itself. */
		n = least_queued_hop(e, id, v, out);
		if (n == 0 && e->cfg.flowlet_bytes)
			FT_VEC_AT(&e->paths, uint32_t, k->path_off + k->hop) = *out;
		return n;
	}
	return least_queued_hop(e, id, v, out);
}

/* ---- the go-back-N receiver and sender ------------------------------------ */

/*
 * Go-back-N on a QP resends from the missing PSN all that followed it, the QP's later
 * messages' packets included (IBTA vol. 1 9.7.5; struct pk_qpseq): each later message
 * of flow @fid's QP that has sent packets past its acknowledged ones sends them again, and
 * one that has sent all of them waits out of its ring until the message before it has
 * sent its last packet again (qp_release()). Its timer is stale now (rto_gen), as the
 * go-back's own; the tail's next leaving arms it anew.
 */
static void
qp_rewind(struct pk_engine *e, uint32_t fid)
{
	uint32_t b = e->qseq[fid].next, a = fid;

	while (b != PK_NONE && e->qseq[b].prev == a) {
		struct pk_flow *g = flow_at(e, b);
		uint32_t n = g->snd_nxt > g->snd_una ? g->snd_nxt - g->snd_una : 0;

		if (n == 0)
			return;
		e->nretx += n;
		pk_op_acc(e, b)->nretx += n;
		pk_op_acc(e, b)->npackets += n;
		g->snd_nxt = g->snd_una;
		g->rto_gen++;
		if (!g->in_ring)
			e->qseq[b].wait = 1;
		a = b;
		b = e->qseq[b].next;
	}
}

/*
 * The sender's side reads only its own fields (snd_*, rto_*): what it knows of the
 * receiver came back in an ACK or a NAK, one path latency after the receiver sent it, so
 * a run split across MPI ranks carries both as messages (pkt_part.c).
 */
static int
go_back(struct pk_engine *e, uint32_t fid, uint32_t seq)
{
	struct pk_flow *f = flow_at(e, fid);

	if (f->snd_una >= f->npkts || seq >= f->snd_nxt)
		return 0;
	if (e->sack) { /* SRD: a pass over the packets not acknowledged (sack_sent()) */
		uint64_t *b;

		if (sack_make(f) < 0)
			return FT_ENOMEM;
		b = f->sack_bits;
		b[PK_SACK_MAX] = FT_MAX(b[PK_SACK_MAX], (uint64_t)f->snd_nxt);
		b[PK_SACK_END] = b[PK_SACK_MAX];
		/* every packet sent before this pass has one now: no gap hint resends them */
		b[PK_SACK_HINT] = FT_MAX(b[PK_SACK_HINT], b[PK_SACK_MAX]);
		f->snd_nxt = seq;
		f->rto_gen++;
		ring_add(e, f->first_link, fid);
		return try_send(e, f->first_link);
	}
	e->nretx += f->snd_nxt - seq;
	pk_op_acc(e, fid)->nretx += f->snd_nxt - seq;
	pk_op_acc(e, fid)->npackets += f->snd_nxt - seq;
	f->snd_nxt = seq;
	f->rto_gen++;
	if (e->nqseq)
		qp_rewind(e, fid);
	ring_add(e, f->first_link, fid);
	return try_send(e, f->first_link);
}

/*
 * SRD's gap hint: an ACK named a packet PK_SRD_REORDER or more places past packets that
 * no ACK has named, so those are taken as lost, not late, and resent at once, ahead of
 * the timer: one pass over the packets below @end not acknowledged and not yet passed
 * over (by a hint or a timeout: PK_SACK_HINT), each resent at most once so; a resend
 * lost again waits for the timer, which the hint leaves as it runs (from the last move
 * of snd_una). A pass under way is stretched to @end instead.
 */
static int
sack_hint(struct pk_engine *e, uint32_t fid, struct pk_flow *f, uint32_t end)
{
	uint64_t *b;
	uint32_t from;

	if (sack_make(f) < 0)
		return FT_ENOMEM;
	b = f->sack_bits;
	from = (uint32_t)FT_MAX((uint64_t)f->snd_una, b[PK_SACK_HINT]);
	if (from >= end)
		return 0;
	b[PK_SACK_HINT] = end;
	if (f->snd_nxt < b[PK_SACK_MAX]) { /* a pass under way: on to @end */
		b[PK_SACK_END] = FT_MAX(b[PK_SACK_END], (uint64_t)end);
		return 0;
	}
	while (from < end && sack_has(f, from))
		from++;
	if (from == end)
		return 0;
	e->nsrd_hints++;
	b[PK_SACK_MAX] = FT_MAX(b[PK_SACK_MAX], (uint64_t)f->snd_nxt);
	b[PK_SACK_END] = end;
	f->snd_nxt = from;
	ring_add(e, f->first_link, fid);
	return try_send(e, f->first_link);
}

/*
 * SRD's ACK for packet @seq reached the sender: that packet arrived (whatever came
 * before it). The sender marks it and moves snd_una past every packet marked; only a
 * move of snd_una is progress for its retransmit timer. The marks need a bitmap only
 * once an ACK comes past a gap (npkts bits, freed with the last ACK).
 */
static int
sack_rx(struct pk_engine *e, uint32_t fid, uint32_t seq)
{
	struct pk_flow *f = flow_at(e, fid);

	if (seq >= f->npkts || sack_has(f, seq))
		return 0; /* (no ACK is lost, so none comes twice; a resent packet's is one) */
	if (seq != f->snd_una && sack_make(f) < 0)
		return FT_ENOMEM;
	if (f->sack_bits) {
		f->sack_bits[PK_SACK_HDR + seq / 64] |= UINT64_C(1) << (seq % 64);
		f->sack_bits[PK_SACK_TACK] = e->now_ps;
	}
	if (seq == f->snd_una) {
		/* The oldest packet not acknowledged moved: the timer restarts and the
		 * retries count again (RFC 6298 5.3's rule, our choice for SRD, whose timer
		 * is not published). An ACK past a gap restarts neither: packets that keep
		 * trickling in past a lost one do not hold off its resend. */
		f->retries = 0;
		f->t_una_ps = e->now_ps;
		do
			f->snd_una++;
		while (f->snd_una < f->npkts && sack_has(f, f->snd_una));
	}
	if (f->snd_una >= f->npkts) {
		ft_free(f->sack_bits);
		f->sack_bits = NULL;
		return 0;
	}
	if (seq >= f->snd_una + PK_SRD_REORDER)
		return sack_hint(e, fid, f, seq + 1 - PK_SRD_REORDER);
	return 0;
}

/* TCP: flow @fid's sender is to send packet @seq again before new data (tcp_pick()). */
static int
tcp_resend(struct pk_engine *e, uint32_t fid, struct pk_tcp *t, uint32_t seq)
{
	struct pk_flow *f = flow_at(e, fid);

	t->rtx_flow = fid;
	t->rtx_seq = seq;
	f->wnd_held = false;
	ring_add(e, f->first_link, fid);
	return try_send(e, f->first_link);
}

/* TCP's SACK recovery of flow @fid: back into its port's ring when its pipe lets it send a
 * hole or new data (tcp_pick() picks which). */
static int
tcp_sack_kick(struct pk_engine *e, uint32_t fid, struct pk_flow *f, struct pk_tcp *t)
{
	uint32_t snd_max = pk_tcp_snd_max(t, fid, f);
	const struct pk_rack *r = ft__pk_tcp_rack_of(e, fid);

	if (f->in_ring || (double)ft__pk_tcp_pipe(t, fid, r, f, snd_max) >= FT_MAX(t->cwnd, 1.0) ||
	    (ft__pk_tcp_sack_next(r, f, snd_max) == PK_NONE &&
	     (f->snd_nxt >= f->npkts || ft__pk_tcp_full(t, fid, r, f))))
		return 0;
	f->wnd_held = false;
	ring_add(e, f->first_link, fid);
	return try_send(e, f->first_link);
}

/*
 * Packets of flow @fid are marked lost (pkt_tcp.c ft__pk_tcp_rack_detect()) outside a
 * recovery, newly or left so by the one that just ended: one starts (Linux's
 * tcp_time_to_recover(), lost_out not zero, "the loss is proven"), with
 * CUBIC's cut (ssthresh), recover one past the highest sent, and PRR's counts from zero
 * (tcp_enter_recovery(), tcp_init_cwnd_reduction(): cwnd as it was). The ACK that found
 * the loss sets cwnd by PRR (tcp_acked()); RACK's reordering timer (@timer) counts as
 * one packet delivered, as Linux's tcp_rack_reo_timeout() does. The caller then sends
 * what the pipe lets out (tcp_sack_kick(): the first lost packet first, tcp_pick()).
 */
static void
tcp_rack_recover(struct pk_engine *e, uint32_t fid, struct pk_flow *f, struct pk_tcp *t,
                 uint32_t pipe, bool timer)
{
	e->ntcp_fast++;
	e->ntcp_sack++;
	ft__pk_tcp_cut(t);
	/* the recovery's cut ends the probe's episode (tcp_init_cwnd_reduction():
	 * tlp_high_seq = 0), so its ACK cuts no second time */
	t->tlp_flow = PK_NONE;
	t->tlp_wait = false;
	t->rec_flow = fid;
	t->recover = pk_tcp_snd_max(t, fid, f);
	t->inflate = 0;
	t->dupacks = 0;
	t->rec_sack = true;
	ft__pk_tcp_prr_start(t);
	if (timer)
		ft__pk_tcp_prr(t, pipe, 1, 0, false);
}

/*
 * RACK's reordering timer on flow @fid: packets left before the latest delivered one
 * but within its round trip and the reordering window of now; @wait_ps until the last
 * of them is past it, fired as Linux does (whole jiffies and TCP_TIMEOUT_MIN more, at
 * most the RTO: tcp_rack_mark_lost()). Linux's retransmit timer slot holds it in place
 * of the RTO (ICSK_TIME_REO_TIMEOUT): so does the flow's timer here (PK_RTO_PROBE).
 */
static int
arm_reo(struct pk_engine *e, uint32_t fid, uint64_t wait_ps)
{
	struct pk_flow *f = flow_at(e, fid);
	uint64_t d = FT_MIN(ft__pk_tcp_reo_timer_ps(wait_ps), rto_of(e, f));
	struct pk_rack *r = ft__pk_tcp_rack_of(e, fid); /* (there: tcp_rack()) */

	f->rto_una = f->snd_una;
	e->nrto_queued++;
	r->tmr_kind = PK_TMR_REO;
	r->tmr_gen = ++f->rto_gen & PK_RTO_GEN;
	return ev_push(e, e->now_ps + d, PK_EV_RTO, fid, r->tmr_gen | PK_RTO_PROBE);
}

/* RACK on flow @fid after an ACK (tcp_acked()) or at its reordering timer (@timer): the
 * packets past their time marked lost (*@lost of them), a recovery started while any is
 * marked lost (the ACK that ends one with marked packets not resent starts the next, as
 * Linux's does) or fed, the timer armed for the others (an ACK's only: Linux's timeout
 * handler arms no second one).
 * Not while a timeout's resends below rto_recover go out: the engine's own simplification
 * (go-back-N resends them all); Linux's Loss state runs RACK there too
 * (tcp_fastretrans_alert(): tcp_identify_packet_loss() after tcp_process_loss()), so a
 * lost go-back-N resend waits here for the next timeout. */
static int
tcp_rack(struct pk_engine *e, uint32_t fid, struct pk_flow *f, struct pk_tcp *t, bool timer,
         uint32_t *lost)
{
	uint32_t snd_max = pk_tcp_snd_max(t, fid, f);
	bool rec = t->rec_flow == fid;
	struct pk_rack *r = ft__pk_tcp_rack_of(e, fid);
	uint32_t before, after;
	uint64_t wait;

	*lost = 0;
	if (!r || t->sb_flow != fid || (t->rto_flow == fid && f->snd_una < t->rto_recover))
		return 0;
	/* an ACK that moved RACK on nothing marks nothing (tcp_rack_mark_lost(): only when
	 * rack.advanced); time alone is the reordering timer's */
	before = after = ft__pk_tcp_pipe(t, fid, r, f, snd_max);
	wait = 0;
	if (timer || r->advanced) {
		if (!timer)
			r->advanced = false;
		wait = ft__pk_tcp_rack_detect(t, r, fid, f, snd_max, e->now_ps,
		                              ft__pk_tcp_reo_wnd_ps(t, rec, t->sacked));
		after = ft__pk_tcp_pipe(t, fid, r, f, snd_max);
	}
	if (after != before) {
		*lost = before > after ? before - after : 0;
		if (timer)
			t->nreo++;
	}
	/* a recovery starts whenever packets are marked lost outside one, newly or not:
	 * Linux's tcp_time_to_recover() is lost_out != 0, asked at every ACK outside
	 * Recovery, the one that ends a recovery included (tcp_fastretrans_alert(): its
	 * step D leaves Recovery for Open, step E's default case enters it again) */
	if (!rec && r->lost_out) {
		tcp_rack_recover(e, fid, f, t, after, timer);
		return 0;
	}
	return wait && !timer ? arm_reo(e, fid, wait) : 0;
}

/* Flow @fid's reordering timer fired: RACK again, the retransmit timer back. */
static int
tcp_reo_timeout(struct pk_engine *e, uint32_t fid)
{
	struct pk_flow *f = flow_at(e, fid);
	struct pk_tcp *t = ft__pk_tcp_conn(e, f);
	uint32_t lost;
	int rc;

	if (!t)
		return FT_ENOMEM;
	if ((rc = arm_rto(e, fid)) < 0 || (rc = tcp_rack(e, fid, f, t, true, &lost)) < 0)
		return rc;
	return t->rec_sack && t->rec_flow == fid ? tcp_sack_kick(e, fid, f, t) : 0;
}

/*
 * TCP's ACK @arg reached flow @fid's sender: a cumulative ACK of every packet before it,
 * or (PK_ACK_SACK) one that selectively acknowledges a packet past a gap, or (PK_ACK_DELAY)
 * the receiver's delayed-ACK timer's, stale when an ACK went out since (pkt_tcp.c).
 * New data acknowledged: the round trip timed, if covered, is a sample (RFC 6298); out
 * of fast recovery the window grows (slow start, CUBIC: pkt_tcp.c); in NewReno's, a partial
 * ACK (below `recover`) resends the next packet missing and deflates the window by what it
 * acknowledged, less one (RFC 6582 3.2 step 5), a full one ends it with cwnd = ssthresh
 * (step 3's first option). The same ACK again while packets are out is a duplicate (a SACK
 * is one): the third starts fast retransmit (RFC 5681 3.2: ssthresh and W_max from CUBIC's
 * cut, the missing packet resent, cwnd = ssthresh + 3), unless a timeout went back over it
 * since (RFC 6582 step 1); each further one in recovery inflates the window by one. With a
 * scoreboard (SACK), the recovery is RFC 6675's with PRR's window instead (RFC 6937): no
 * inflation, cwnd = pipe + what PRR lets this ACK send (pkt_tcp.c ft__pk_tcp_prr()), the
 * lost packets resent first while the pipe is below it, then new data (tcp_pick()),
 * partial ACKs moving the scoreboard on; the end leaves cwnd = ssthresh.
 */
static int
tcp_acked(struct pk_engine *e, uint32_t fid, uint32_t arg)
{
	struct pk_flow *f = flow_at(e, fid);
	struct pk_tcp *t = ft__pk_tcp_conn(e, f);
	bool flags = f->npkts <= PK_ACK_SEQ; /* (a longer flow's ACKs carry no flags) */
	bool sack = flags && (arg & PK_ACK_SACK);
	bool dsack = flags && (arg & PK_ACK_DSACK);
	uint32_t seq = flags ? arg & PK_ACK_SEQ : arg;
	struct pk_rack *r = e->tcp_rack ? ft__pk_tcp_rack_of(e, fid) : NULL;
	uint32_t delivered = 0, lost, gen0 = f->rto_gen;
	bool una_moved = false;
	int rc;

	if (!t)
		return FT_ENOMEM;
	if (flags && (arg & PK_ACK_DELAY)) {
		if (seq <= f->snd_una)
			return 0; /* an ACK went out since the timer was armed: it was stopped */
		e->ntcp_delack++;
	}
	if (dsack)
		ft__pk_tcp_dsack(t);
	if (!sack && ft__pk_tcp_tlp_ack(t, fid, seq, dsack) && t->rec_flow == PK_NONE) {
		/* the tail-loss probe mended a loss: one cut, as Linux's CWR state makes it
		 * (tcp_init_cwnd_reduction(), tcp_end_cwnd_reduction(): cwnd = ssthresh) */
		t->ntlp_rec++;
		ft__pk_tcp_cut(t);
		t->cwnd = t->ssthresh;
	}
	if (sack) {
		rc = ft__pk_tcp_sack_mark(t, fid, r, f, seq);
		if (rc < 0)
			return rc;
		if (r && t->sb_flow != fid)
			r->held = false; /* (a SACK the scoreboard could not take: tcp_hold()) */
		if (rc > 0 && r)
			ft__pk_tcp_rack_deliver(t, r, f, seq, e->now_ps);
		delivered = rc > 0;
		seq = f->snd_una; /* (its cumulative ACK: the last one) */
	}
	if (seq > f->snd_una) {
		uint32_t acked = seq - f->snd_una;
		uint32_t sacked = t->sb_flow == fid ? t->sacked : 0;

		f->retries = 0;
		t->rtx_ps = 0; /* (Linux's retrans_stamp: tcp_gives_up()) */
		f->t_una_ps = e->now_ps;
		ft__pk_tcp_rack_ack(t, fid, r, f, seq, e->now_ps);
		ft__pk_tcp_sack_advance(t, fid, r, f, seq);
		/* (delivered now: those acknowledged less those SACKed before) */
		delivered = acked - (sacked - (t->sb_flow == fid ? t->sacked : 0));
		una_moved = true;
		f->snd_una = seq;
		if (t->timed_flow == fid && seq > t->timed_seq) {
			ft__pk_tcp_rtt(t, e->now_ps - t->t_timed_ps);
			t->timed_flow = PK_NONE;
		}
		t->dupacks = 0;
		if (t->rec_flow == fid) {
			if (seq >= t->recover || seq >= f->npkts) {
				t->rec_flow = PK_NONE;
				t->cwnd = t->ssthresh;
				t->inflate = 0;
				t->rec_sack = false;
			} else if (t->rec_sack) {
				if ((rc = arm_rto(e, fid)) < 0) /* RFC 6298 5.3 */
					return rc;
			} else {
				t->inflate = FT_MAX(t->inflate - acked, 0.0) + 1;
				if ((rc = arm_rto(e, fid)) < 0)
					return rc;
				return tcp_resend(e, fid, t, seq);
			}
		} else {
			ft__pk_tcp_grow(t, acked, e->now_ps, (double)t->srtt_ps / PK_PS_PER_S);
		}
		if (f->snd_nxt < f->snd_una)
			f->snd_nxt = f->snd_una;
		if (r && f->snd_una >= f->npkts) {
			ft__pk_tcp_rack_drop(e, fid);
			r = NULL;
		}
	} else if (seq == f->snd_una && (sack || f->snd_nxt > f->snd_una) && seq < f->npkts) {
		if (t->rec_flow == fid) {
			if (!t->rec_sack)
				t->inflate += 1;
		} else if (!(r && t->sb_flow == fid) && ++t->dupacks == PK_TCP_DUPACKS &&
		           !(t->rto_flow == fid && seq < t->rto_recover)) {
			/* (with a scoreboard, RACK decides: tcp_rack()) */
			e->ntcp_fast++;
			ft__pk_tcp_cut(t);
			t->tlp_flow = PK_NONE; /* (tcp_init_cwnd_reduction(), as RACK's) */
			t->tlp_wait = false;
			t->rec_flow = fid;
			t->recover = pk_tcp_snd_max(t, fid, f);
			t->cwnd = t->ssthresh;
			t->inflate = PK_TCP_DUPACKS;
			return tcp_resend(e, fid, t, seq);
		}
	}
	if ((rc = tcp_rack(e, fid, f, t, false, &lost)) < 0)
		return rc;
	if (una_moved && f->snd_una < f->npkts && (e->may_drop || e->ndrops) &&
	    f->rto_gen == gen0 && !tcp_tmr_is(e, fid, f, PK_TMR_TLP) && tcp_tlp_ok(e, fid, f, t)) {
		/* Linux re-arms the probe at each ACK that acknowledges data unless RACK
		 * armed its reordering timer on it (tcp_set_xmit_timer(), FLAG_SET_XMIT_TIMER);
		 * a probe armed already moves on lazily (ev_rto()) */
		bool tlp;

		if ((rc = tcp_xmit_timer(e, fid, e->now_ps, &tlp)) < 0)
			return rc;
	}
	if (t->rto_held && tcp_open(e, t) && (rc = tcp_reopen(e, fid, t)) < 0)
		return rc; /* (the connection's other messages' timers: Linux's one) */
	if (t->rec_sack && t->rec_flow == fid) {
		uint32_t snd_max = pk_tcp_snd_max(t, fid, f);

		/* PRR sets the window for what this ACK lets out (Linux's tcp_cong_control()
		 * after tcp_fastretrans_alert()) */
		ft__pk_tcp_prr(t, ft__pk_tcp_pipe(t, fid, r, f, snd_max), delivered, lost,
		               una_moved);
	}
	if (e->tcp_pace) {
		ft__pk_tcp_pace(e, t, f);
		/* a waiting flow's next departure moves with its rate */
		if (f->in_ring && (rc = try_send(e, f->first_link)) < 0)
			return rc;
	}
	if (t->rec_sack && t->rec_flow == fid)
		return tcp_sack_kick(e, fid, f, t);
	if (f->wnd_held && !ft__pk_tcp_full(t, fid, r, f) && f->snd_nxt < f->npkts) {
		/* the ACK opens the window again */
		f->wnd_held = false;
		ring_add(e, f->first_link, fid);
		return try_send(e, f->first_link);
	}
	return 0;
}

/* An ACK or a NAK for packet @seq reached the sender: every packet before it arrived. */
static int
ev_acked(struct pk_engine *e, uint32_t fid, uint32_t seq, bool nak)
{
	struct pk_flow *f = flow_at(e, fid);

	if (e->sack && !nak)
		return sack_rx(e, fid, seq);
	if (pk_flow_tcp(e, f))
		return tcp_acked(e, fid, seq);

	if (seq > f->snd_una) {
		f->retries = 0; /* progress: the QP's retry counter starts again */
		f->t_una_ps = e->now_ps;
	}
	f->snd_una = FT_MAX(f->snd_una, seq);
	if (f->wnd_held && f->snd_nxt - f->snd_una < e->wnd_pkts) {
		int rc;

		/* TCP: the ACK opens the window again */
		f->wnd_held = false;
		ring_add(e, f->first_link, fid);
		rc = try_send(e, f->first_link);
		if (rc < 0)
			return rc;
	}
	if (!nak)
		return 0;
	/* mlx5 packet_seq_err: a NAK-sequence-error the requester received (kb ROCE-COUNTERS) */
	pk_port_at(e, ft__pk_nic_port(f, true, f->first_link))->qp_naks++;
	return go_back(e, fid, seq);
}

/*
 * The receiver acknowledges in-order progress from @before to rcv_nxt, when it crossed a
 * multiple of PK_ACK_SEG or reached the end; only where packets may be lost (a run that
 * never drops never reads them, and sends none). A TCP flow acknowledges through
 * ft__pk_tcp_rx() (receive_ooo()), so TCPX's window does not call for these: a flow
 * inside a node of such a cluster (pk_flow_tcp() false) sends none, as on any node.
 */
static int
send_ack(struct pk_engine *e, uint32_t fid, uint32_t before)
{
	const struct pk_flow *f = flow_at(e, fid);

	if (!(e->may_drop || e->ndrops) ||
	    (f->rcv_nxt / PK_ACK_SEG == before / PK_ACK_SEG && f->rcv_nxt < f->npkts))
		return 0;
	return ev_push_flow(e, e->now_ps + f->lat_ps, PK_EV_ACK, fid, f->rcv_nxt);
}

/*
 * Adaptive routing sprays a QP's packets over several paths, so they arrive out of order;
 * receivers that support it (NVIDIA's adaptive routing needs ConnectX's out-of-order
 * placement) take every packet as it comes and mark it in a bitmap, rcv_nxt being the
 * first one missing. Losses are then recovered by the sender's timeout alone.
 */
static int
receive_ooo(struct pk_engine *e, uint32_t fid, uint32_t seq, uint32_t payload, struct pk_port *rq)
{
	struct pk_flow *f = flow_at(e, fid);
	uint32_t before = f->rcv_nxt;
	uint64_t *bm;
	int rc;

	if (!f->ooo_bits && pk_flow_tcp(e, f) && seq == f->rcv_nxt) {
		/* TCP in order (its one path, every packet so on a fabric that does not
		 * drop): no bitmap */
		f->rcv_nxt++;
		e->bytes_delivered += payload;
		if ((rc = ft__pk_tcp_rx(e, fid, seq, before, false)) < 0)
			return rc;
		if (f->rcv_nxt < f->npkts)
			return 0;
		rq->rq_writes++;
		return ft__pk_flow_done(e, fid);
	}
	if (!f->ooo_bits) {
		/* (one word more: one past the highest packet taken, pk_rcv_ooo()) */
		f->ooo_bits = ft_calloc(PK_OOO_WORDS(f->npkts) + 1, sizeof(uint64_t));
		if (!f->ooo_bits)
			return FT_ENOMEM;
	}
	bm = f->ooo_bits;
	if (seq < f->rcv_nxt || (bm[seq / 64] >> (seq % 64) & 1)) {
		rq->rq_dup++; /* a duplicate */
		/* TCP: acknowledged at once (RFC 5681 4.2), a duplicate ACK */
		return pk_flow_tcp(e, f) ? ft__pk_tcp_rx(e, fid, seq, f->rcv_nxt, true) : 0;
	}
	bm[seq / 64] |= UINT64_C(1) << (seq % 64);
	bm[PK_OOO_WORDS(f->npkts)] = FT_MAX(bm[PK_OOO_WORDS(f->npkts)], (uint64_t)seq + 1);
	e->bytes_delivered += payload;
	while (f->rcv_nxt < f->npkts && (bm[f->rcv_nxt / 64] >> (f->rcv_nxt % 64) & 1))
		f->rcv_nxt++;
	if (pk_flow_tcp(e, f)) {
		/* TCP's receiver (RFC 5681 4.2; delayed ACKs, SACK: pkt_tcp.c). One path
		 * latency back, not queued or lost. */
		if ((rc = ft__pk_tcp_rx(e, fid, seq, before, false)) < 0)
			return rc;
	} else if (e->sack) {
		/* SRD: an ACK per packet, naming it, one path latency back (sack_rx()) */
		if ((e->may_drop || e->ndrops) &&
		    (rc = ev_push_flow(e, e->now_ps + f->lat_ps, PK_EV_ACK, fid, seq)) < 0)
			return rc;
	} else if ((rc = send_ack(e, fid, before)) < 0) {
		return rc;
	}
	if (f->rcv_nxt == f->npkts) {
		ft_free(f->ooo_bits);
		f->ooo_bits = NULL;
		rq->rq_writes++;
		return ft__pk_flow_done(e, fid);
	}
	return 0;
}

/*
 * A packet of a message whose message @a before it on its QP still misses packets at the
 * receiver: its PSN is past the one the QP expects (struct pk_qpseq), so the responder
 * takes nothing of it, counts it out of sequence and NAKs the gap with a sequence error,
 * once until the packet it waits for arrives (IBTA vol. 1 9.7.5; RoCEv2 the same; the
 * requester's packet_seq_err, kb ROCE-COUNTERS): a message's lost tail is so found by
 * the QP's next message one round trip on, not by the requester's timer, which a QP's
 * last message alone still waits for. The PSN expected is the QP's first message still
 * missing packets (@a's own message before it, where @a took nothing yet either): a
 * later message's packet NAKs that gap, not @a's first PSN (Linux
 * drivers/infiniband/sw/rxe/rxe_resp.c check_psn(): one NAK, then silence until the
 * expected PSN; test_qp_one_nak_per_gap).
 */
static int
receive_past_gap(struct pk_engine *e, uint32_t a, struct pk_port *rp)
{
	struct pk_flow *g;

	while (pk_qp_prev(e, a) != PK_NONE)
		a = pk_qp_prev(e, a);
	g = flow_at(e, a);
	rp->rq_oos++;
	if (g->nak_for == g->rcv_nxt)
		return 0;
	g->nak_for = g->rcv_nxt;
	return ev_push_flow(e, e->now_ps + g->lat_ps, PK_EV_NAK, a, g->rcv_nxt);
}

static int
receive(struct pk_engine *e, uint32_t id)
{
	const struct pk_pkt *k = &e->pkts[id];
	uint32_t fid = k->flow, seq = k->seq, payload = k->payload;
	struct pk_flow *f = flow_at(e, fid);
	/* the receiving NIC's port, where its responder counts (kb ROCE-COUNTERS) */
	uint32_t rl = ft__pk_nic_port(f, false, k->link);
	struct pk_port *rp = pk_port_at(e, rl);

	if ((k->flags & PK_F_CE) && e->marking) {
		/* Notification point: at most one CNP per QP per min_time_between_cnps; CNPs
		 * travel back at high priority (no queueing), one path latency. */
		struct pk_dcqcn *d = pk_flow_cc(e, f);

		rp->ecn_rx++;
		pk_cls_at(e, rl, pk_prio(k))->ecn_rx++;
		if (e->ibcc || !d->cnp_sent || e->now_ps - d->t_last_cnp_ps >= e->cnp_gap_ps) {
			int rc;

			d->cnp_sent = true;
			d->t_last_cnp_ps = e->now_ps;
			rp->cnp_sent++;
			pk_cls_at(e, rl, pk_prio(k))->cnp_sent++;
			e->ncnp++;
			pk_op_acc(e, fid)->ncnp++;
			rc = ev_push_flow(e, e->now_ps + f->lat_ps, PK_EV_CNP, fid, 0);
			if (rc < 0) {
				pkt_free(e, id);
				return rc;
			}
		}
	}
	if (e->timely || e->srd || e->sack) {
		/* An RTT sample per packet, as the HPCC simulator acknowledges every packet
		 * (kb CC-TIMELY-HPCC); the sender keeps one per round trip (ft__pk_ev_rtt()).
		 * Samples every 16 packets left a QP cut to its floor a sample per 0.5 ms
		 * (64 KiB at 1 Gb/s) to climb back by. Its RTT is the packet's one-way time
		 * plus the way back at high priority (one path latency). SRD's ACK per
		 * packet feeds its RTT estimate whatever its rate control (pkt_cc.c). */
		uint64_t rtt = e->now_ps - e->pkts[id].t_sent_ps + f->lat_ps;
		int rc = ev_push_flow(e, e->now_ps + f->lat_ps, PK_EV_RTT, fid,
		                 (uint32_t)FT_MIN(rtt / 1000, (uint64_t)0x0fffffff));

		if (rc < 0) {
			pkt_free(e, id);
			return rc;
		}
	}
	pkt_free(e, id);
	if (e->ooo || e->sack || pk_flow_tcp(e, f))
		return receive_ooo(e, fid, seq, payload, rp);
	if (e->nqseq && pk_qp_prev(e, fid) != PK_NONE)
		return receive_past_gap(e, pk_qp_prev(e, fid), rp);
	if (seq == f->rcv_nxt) {
		int rc;

		f->rcv_nxt++;
		e->bytes_delivered += payload;
		if ((rc = send_ack(e, fid, seq)) < 0)
			return rc;
		if (f->rcv_nxt == f->npkts) {
			rp->rq_writes++;
			return ft__pk_flow_done(e, fid);
		}
		return 0;
	}
	/* mlx5's responder counts a packet past a gap as out_of_sequence, one sent again
	 * that it already took as duplicate_request */
	if (seq > f->rcv_nxt)
		rp->rq_oos++;
	else
		rp->rq_dup++;
	/* One NAK per gap: the receiver NAKs again only once the gap moved (or the sender
	 * timed out), as an RC responder in its NAK-sent state. */
	if (seq > f->rcv_nxt && f->nak_for != f->rcv_nxt) {
		f->nak_for = f->rcv_nxt;
		return ev_push_flow(e, e->now_ps + f->lat_ps, PK_EV_NAK, fid, f->rcv_nxt);
	}
	return 0;
}

/* ---- credits --------------------------------------------------------------- */

/*
 * Credits go back in flow-control updates, one in flight per link at a time, each
 * carrying the blocks freed since the one before: an update leaves when blocks are
 * freed and none is in flight, and when one lands while more were freed meanwhile, the
 * next one leaves then. No credit comes back before its blocks were freed plus the link
 * latency, and none later than twice that. The receiving end alone decides, from what
 * it knows by then (when its update lands: a FC_FLUSH event there), and the update
 * carries its count, so the sender reads nothing of the receiver's state and an update
 * leaves at least one link latency before it lands: a link between two MPI partitions
 * carries updates as messages (pkt_part.c).
 */
#define PK_FC_DELTA_MAX (PK_EV_ARG_MAX >> 3) /* blocks an update carries beside its priority */

/* Send the blocks freed on priority @c of link @l since the last update, landing at @t. */
static int
credit_send(struct pk_engine *e, uint32_t l, uint32_t c, uint64_t t)
{
	struct pk_cls *q = pk_cls_at(e, l, c);
	uint64_t n = FT_MIN(q->fc_freed - q->fc_snap, (uint64_t)PK_FC_DELTA_MAX);

	q->fc_snap += n;
	q->fc_until = FT_MAX(t, e->now_ps);
	return ev_push(e, q->fc_until, PK_EV_CREDIT, l, c | (uint32_t)n << 3);
}

static int
credit_free(struct pk_engine *e, uint32_t l, uint32_t c, uint32_t nblocks)
{
	struct pk_cls *q = pk_cls_at(e, l, c);

	q->fc_freed += nblocks;
	if (q->fc_flush)
		return 0;
	if (e->now_ps >= q->fc_until)
		return credit_send(e, l, c, e->now_ps + pk_port_at(e, l)->lat_ps);
	q->fc_flush = true;
	return ev_push(e, q->fc_until, PK_EV_FC_FLUSH, l, c);
}

/* The update in flight on priority @c of link @l landed: send what was freed meanwhile. */
static int
credit_flush(struct pk_engine *e, uint32_t l, uint32_t c)
{
	struct pk_cls *q = pk_cls_at(e, l, c);

	q->fc_flush = false;
	if (q->fc_freed == q->fc_snap)
		return 0;
	return credit_send(e, l, c, e->now_ps + pk_port_at(e, l)->lat_ps);
}

/* An update reached the sender of link @l: @arg = priority | blocks << 3. */
static int
credit_update(struct pk_engine *e, uint32_t l, uint32_t arg)
{
	struct pk_cls *q = pk_cls_at(e, l, arg & 7u);

	q->credits += (int64_t)(arg >> 3);
	cls_unheld(e, q); /* (held again at once if still short: try_send) */
	return try_send(e, l);
}

/* ---- PFC thresholds (kb CC-PFC-ECN, ROCE-PFC) ------------------------------------ */

/*
 * XOFF of the ingress buffer of link @l: given, or dynamic as in the HPCC simulator's
 * switch: an eighth of the switch's shared buffer still free (so a congested switch
 * pauses sooner); a NIC's ingress uses its port buffer.
 */
static uint64_t
pfc_xoff(const struct pk_engine *e, uint32_t l)
{
	const struct pk_link *lk = &e->links[l];

	if (!e->pfc_dyn)
		return e->xoff;
	if (!lk->sw_dst)
		return e->port_limit;
	return (e->sw_limit - FT_MIN(e->sw_used[lk->dst], e->sw_limit)) / 8;
}

/*
 * What a lossy queue at the ingress of link @l may hold: at a switch alpha x its free
 * shared buffer (the dynamic threshold), capped by a given port_buffer, and at least one
 * wire MTU (the queue's reserved minimum: the HPCC simulator reserves 4 KB per queue, kb
 * CC-PFC-ECN); at a NIC its port buffer.
 */
static uint64_t
lossy_limit(const struct pk_engine *e, uint32_t l)
{
	const struct pk_link *lk = &e->links[l];
	uint64_t dt;

	if (!lk->sw_dst)
		return e->port_limit;
	dt = (uint64_t)(e->lossy_alpha *
	                (double)(e->sw_limit - FT_MIN(e->sw_used[lk->dst], e->sw_limit)));
	return FT_MAX(FT_MIN(dt, e->lossy_cap), (uint64_t)e->mtu + lk->hdr);
}

/* XON: given, or two wire MTUs below the XOFF it paused at. */
static uint64_t
pfc_xon(const struct pk_engine *e, const struct pk_cls *p)
{
	uint64_t hyst = 2ull * (e->mtu + PK_HDR_ROCE);

	if (!e->pfc_dyn)
		return e->xon;
	return p->xoff_at > hyst ? p->xoff_at - hyst : 0;
}

/* Headroom: what can still arrive after XOFF: the bytes on the wire both ways (the
 * pause frame's trip and the data already sent) plus a packet being sent at each end. */
static uint64_t
pfc_headroom(const struct pk_engine *e, uint32_t l)
{
	const struct pk_link *lk = &e->links[l];

	return 2 * ((uint64_t)((double)lk->lat_ps / lk->ps_per_byte) + pk_wire(lk, e->mtu));
}

/* ---- events --------------------------------------------------------------- */

static int wd_discard(struct pk_engine *e, uint32_t l, uint32_t id, bool held);

/* Packet @id reached the far end of link @arg - 1 (0: the link is read from the packet). */
static int
ev_arrive(struct pk_engine *e, uint32_t id, uint32_t arg)
{
	struct pk_pkt *k = &e->pkts[id];
	uint32_t l = pk_ev_link_of(arg, k->link), nl = 0;
	struct pk_port *p = pk_port_at(e, l);
	uint32_t v = p->dst;
	uint32_t c = pk_prio(k);
	struct pk_cls *q = pk_cls_at(e, l, c);
	uint32_t wire = k->payload + p->hdr;
	enum ft_pkt_fc fc = cls_fc(e, l, c);
	bool have_nl = false;
	int rc;

	p->rx_pkts++;

	if (k->path_off != PK_NONE && (size_t)k->path_off + k->hop < e->paths.len) {
		/* The port it goes to next (a valid port even past its last hop): fetched
		 * while its ingress is accounted here. */
		uint32_t n = FT_VEC_AT(&e->paths, uint32_t, k->path_off + k->hop);

		if (n != PK_NONE) { /* (a flowlet's hop not chosen yet) */
			__builtin_prefetch(pk_port_at(e, n));
			__builtin_prefetch(pk_cls_at(e, n, c));
		}
	}

	if ((k->flags & (PK_F_CORRUPT | PK_F_DOWN)) || v == k->dst) {
		/* Delivered (the endpoint takes it at once), or corrupted or sent onto a
		 * link down, and dropped. */
		if (fc == FT_PKT_FC_CREDIT && (rc = credit_free(e, l, c, blocks(wire))) < 0)
			return rc;
		if (k->flags & (PK_F_CORRUPT | PK_F_DOWN))
			return drop(e, l, id);
		return receive(e, id);
	}
	if (e->nwd_dropping && fc == FT_PKT_FC_PFC) {
		/* A stormed queue under the watchdog's action drop takes nothing: what comes
		 * for it is discarded before the ingress buffer holds it, so it sends no
		 * pause upstream (the port it goes to is looked up once, here). */
		rc = next_link(e, id, v, &nl);
		if (rc < 0)
			return rc;
		if (pk_cls_at(e, nl, c)->wd_storm)
			return wd_discard(e, nl, id, false);
		have_nl = true;
	}
	if (fc == FT_PKT_FC_PFC) {
		/* Once paused a port still takes its headroom (reserved apart from the shared
		 * buffer) above the level it paused at; before, a packet over the threshold
		 * is taken and sends the pause. */
		if (q->xoff_sent) {
			uint64_t room = e->pc.pfc_headroom_bytes ? e->pc.pfc_headroom_bytes :
			                                           pfc_headroom(e, l);

			if (q->in_bytes + wire > q->xoff_at + room)
				return drop(e, l, id);
		}
	} else if (fc == FT_PKT_FC_NONE) {
		/* A lossy priority has its own threshold: the lossless ones' bytes do not
		 * count against it (they have PFC's thresholds), only in the free buffer. */
		if (q->in_bytes + wire > lossy_limit(e, l) ||
		    (p->sw_dst && e->sw_used[v] + wire > e->sw_limit))
			return drop(e, l, id);
	}
	p->in_bytes += wire;
	q->in_bytes += wire;
	if (p->in_bytes > p->in_max_bytes)
		p->in_max_bytes = p->in_bytes;
	if (p->sw_dst)
		e->sw_used[v] += wire;
	if (fc == FT_PKT_FC_PFC && !q->xoff_sent && q->in_bytes >= pfc_xoff(e, l)) {
		q->xoff_at = q->in_bytes;
		q->xoff_sent = true;
		q->t_xoff_ps = e->now_ps;
		q->pause_tx++;
		e->npause++;
		if ((rc = ev_push(e, e->now_ps + p->lat_ps, PK_EV_PAUSE, l, 1u | c << 1)) < 0)
			return rc;
	}
	if (!have_nl && (rc = next_link(e, id, v, &nl)) < 0)
		return rc;
	return enqueue(e, nl, id);
}

/* @bytes of priority @c leave the ingress buffer of link @r (at its destination): its
 * packet went on, or a stormed queue discarded it; a PFC buffer back at XON says so. */
static int
ingress_release(struct pk_engine *e, uint32_t r, uint32_t c, uint32_t bytes)
{
	struct pk_port *rp = pk_port_at(e, r);
	struct pk_cls *rq = pk_cls_at(e, r, c);

	rp->in_bytes -= bytes;
	rq->in_bytes -= bytes;
	if (rp->sw_dst)
		e->sw_used[rp->dst] -= bytes;
	switch (cls_fc(e, r, c)) {
	case FT_PKT_FC_CREDIT:
		return credit_free(e, r, c, blocks(bytes));
	case FT_PKT_FC_PFC:
		if (rq->xoff_sent && rq->in_bytes <= pfc_xon(e, rq)) {
			/* The XOFF's refreshes meanwhile, and the XON. */
			uint64_t n = pk_pfc_refreshes(e->now_ps - rq->t_xoff_ps,
			                              pk_pfc_refresh_ps(e, rp), false) +
			             1;

			rq->xoff_sent = false;
			rq->pause_tx += n;
			e->npause += n;
			return ev_push(e, e->now_ps + rp->lat_ps, PK_EV_PAUSE, r, c << 1);
		}
		return 0;
	default:
		return 0;
	}
}

/* Port @l's packet has left; it came in over link @arg - 1 (0: none, PK_EV_ARG_MAX: read
 * from the port). */
static int
ev_tx_done(struct pk_engine *e, uint32_t l, uint32_t arg)
{
	struct pk_port *p = pk_port_at(e, l);
	uint32_t r = arg == PK_EV_ARG_MAX ? p->rel_link : arg - 1;
	int rc;

	p->busy = false;
	if (r != PK_NONE) {
		rc = ingress_release(e, r, p->rel_prio, p->rel_bytes);
		if (rc < 0)
			return rc;
		p->rel_link = PK_NONE;
	}
	return try_send(e, l);
}

/*
 * PFC watchdog action drop (SONiC pfcwd's default action, kb ROCE-PFC): packet @id, of
 * stormed priority @c at port @l, is discarded, one it held when the storm was detected
 * (@held) or one that came for it since. Counted as the port's drops and apart as the
 * watchdog's (SONiC's show pfcwd stats TX DROP).
 */
static int
wd_discard(struct pk_engine *e, uint32_t l, uint32_t id, bool held)
{
	struct pk_port *p = pk_port_at(e, l);

	if (held)
		p->wd_drops_held++;
	else
		p->wd_drops_arrived++;
	/* The sending side's count: the port's drops are its far end's (a split run takes
	 * them from the rank that owns it), these are added to them in the report. */
	pk_cls_at(e, l, pk_prio(&e->pkts[id]))->wd_drops++;
	e->nwd_drops++;
	return drop_pkt(e, id);
}

/* Action drop, at the storm's detection: priority @c of port @l discards its FIFO, each
 * packet giving back the ingress buffer it held (which then sends its XON upstream). */
static int
wd_flush(struct pk_engine *e, uint32_t l, uint32_t c)
{
	struct pk_port *p = pk_port_at(e, l);
	struct pk_cls *q = pk_cls_at(e, l, c);
	int rc;

	while (q->head != PK_NONE) {
		uint32_t id = q->head, in = e->pkts[id].link;
		uint32_t payload = e->pkts[id].payload;

		q->head = e->pkts[id].next;
		if (q->head == PK_NONE)
			q->tail = PK_NONE;
		if (q_account(e, p) < 0)
			return FT_ENOMEM;
		p->q_bytes -= payload + p->hdr;
		if (q->cq) {
			if (cq_account(e, q->cq) < 0)
				return FT_ENOMEM;
			q->cq->q_bytes -= payload + p->hdr;
		}
		if (in != PK_NONE &&
		    (rc = ingress_release(e, in, c, payload + pk_port_at(e, in)->hdr)) < 0)
			return rc;
		if ((rc = wd_discard(e, l, id, true)) < 0)
			return rc;
	}
	cls_live_note(e, l, c, q);
	return 0;
}

enum { PK_WD_CHECK = 0, PK_WD_RESTORE = 1, PK_WD_REFRESH = 2 };
#define PK_WD_ARG(kind, c) ((uint32_t)(c) | (uint32_t)(kind) << 20)
static int cls_pause(struct pk_engine *e, uint32_t l, uint32_t c);

/*
 * A PFC frame for priority @c of port @l's sender: XOFF (@on) or XON. The XOFF's refreshes
 * are not events: they come a link latency after the buffer sent them, every
 * pk_pfc_refresh_ps(), so the sender counts them when the XON comes (the same number the
 * buffer counted), and they keep it paused until then.
 */
static int
ev_pause(struct pk_engine *e, uint32_t l, uint32_t c, bool on)
{
	struct pk_cls *p = pk_cls_at(e, l, c);

	p->t_frame_rx_ps = e->now_ps;
	if (on) {
		p->pause_rx++;
		p->xoff_rx = true;
		p->t_xoff_rx_ps = e->now_ps;
	} else if (p->xoff_rx) {
		p->pause_rx += pk_pfc_refreshes(e->now_ps - p->t_xoff_rx_ps,
		                                pk_pfc_refresh_ps(e, pk_port_at(e, l)), false) +
		               1;
		p->xoff_rx = false;
	}
	if (on && e->now_ps < p->wd_until_ps)
		return 0; /* the watchdog has this port ignore pauses until it restores it */
	if (on && !p->paused) {
		return cls_pause(e, l, c);
	} else if (!on && p->paused) {
		p->paused = false;
		cls_unheld(e, p);
		pk_port_at(e, l)->npaused--;
		p->paused_ps += e->now_ps - p->t_paused_ps;
		/* action alert: the storm it saw can end now that the pause has */
		if (p->wd_storm && e->pc.pfc_watchdog_action == FT_PKT_WD_ALERT) {
			int rc = ev_push(e, e->now_ps, PK_EV_WDOG, l, PK_WD_ARG(PK_WD_RESTORE, c));

			if (rc < 0)
				return rc;
		}
	}
	return on ? 0 : try_send(e, l);
}

/*
 * PFC watchdog (kb ROCE-PFC), one event kind with three jobs (the argument's top bits):
 * a port paused without a break for the watchdog's time stops honouring pauses (a storm
 * detected), so a stuck priority drains (the buffers beyond it then drop what they cannot
 * hold, and the transport retransmits). It is restored, honouring pauses again, once
 * wd_restore_ps has passed without a PFC frame reaching it (SONiC pfcwd's
 * restoration_time: the storm is over when the pause frames stop); the buffer's
 * refreshes count as frames, so a storm whose buffer stays above XON is restored only
 * when the refresh period is longer than the restore time, and then its next refresh
 * pauses the sender again, which the watchdog catches again after its time.
 * packet.pfc_watchdog_action (SONiC's `config pfcwd start --action`) picks what a storm
 * does: forward, the above; drop, the above and the stormed queue discards the packets
 * it holds (their ingress buffers freed, which sends XONs upstream) and every packet
 * that comes for it until restored, before an ingress buffer takes it, so the storm
 * sends no pause upstream (wd_flush(), ev_arrive()); alert, the storm counted and
 * nothing else: the pause still holds the priority, which stays stormed until its XON
 * and then the restore time without a frame.
 */

/* Priority @c of port @l's sender paused now (an XOFF, or a refresh after a restore). */
static int
cls_pause(struct pk_engine *e, uint32_t l, uint32_t c)
{
	struct pk_cls *p = pk_cls_at(e, l, c);

	p->paused = true;
	pk_port_at(e, l)->npaused++;
	p->t_paused_ps = e->now_ps;
	if (e->wd_ps)
		return ev_push(e, e->now_ps + e->wd_ps, PK_EV_WDOG, l, PK_WD_ARG(PK_WD_CHECK, c));
	return 0;
}

/* The last PFC frame that reached priority @p's sender by now: an XOFF or XON event, or
 * (while the buffer holds XOFF) the latest of its refreshes, one every @period_ps. */
static uint64_t
pfc_last_frame(const struct pk_engine *e, const struct pk_cls *p, uint64_t period_ps)
{
	if (!p->xoff_rx)
		return p->t_frame_rx_ps;
	return p->t_xoff_rx_ps + (e->now_ps - p->t_xoff_rx_ps) / period_ps * period_ps;
}

/*
 * The last storm's figures (SONiC's show pfcwd stats TX/RX LAST OK/DROP: the queue's
 * counts from the storm's detection to its restoration, kept until the next storm; kb
 * ROCE-PFC): at a detection on port @l the counters they start from, at its
 * restoration what they counted since. Per port: a second priority stormed on it
 * starts the port's figures again.
 */
static void
wd_last_open(struct pk_engine *e, uint32_t l)
{
	struct pk_port *p = pk_port_at(e, l);

	pk_wd_now(e, l, p->wd_base);
	p->wd_open = true;
}

static void
wd_last_close(struct pk_engine *e, uint32_t l)
{
	struct pk_port *p = pk_port_at(e, l);
	uint64_t now[PK_WDL_N];

	if (!p->wd_open)
		return;
	pk_wd_now(e, l, now);
	for (int i = 0; i < PK_WDL_N; i++)
		p->wd_last[i] = now[i] - p->wd_base[i];
	p->wd_open = false;
}

static int
ev_wdog(struct pk_engine *e, uint32_t l, uint32_t arg)
{
	uint32_t c = arg & 0xFFFFFu, kind = arg >> 20;
	struct pk_cls *p = pk_cls_at(e, l, c);
	uint64_t period = pk_pfc_refresh_ps(e, pk_port_at(e, l)), last;

	if (kind == PK_WD_REFRESH) {
		/* A refresh reaches a restored sender that its buffer still holds. */
		if (p->paused || !p->xoff_rx || e->now_ps < p->wd_until_ps)
			return 0;
		return cls_pause(e, l, c);
	}
	if (kind == PK_WD_RESTORE) {
		if (!p->wd_storm)
			return 0;
		/* action alert: a priority still paused is still stormed (its XON, in
		 * ev_pause(), looks again) */
		if (e->pc.pfc_watchdog_action == FT_PKT_WD_ALERT && p->paused)
			return 0;
		last = pfc_last_frame(e, p, period);
		if (e->now_ps - last < e->wd_restore_ps)
			return ev_push(e, last + e->wd_restore_ps, PK_EV_WDOG, l,
			               PK_WD_ARG(PK_WD_RESTORE, c));
		p->wd_until_ps = 0;
		p->wd_storm = false;
		if (e->pc.pfc_watchdog_action == FT_PKT_WD_DROP)
			e->nwd_dropping--;
		wd_last_close(e, l);
		pk_port_at(e, l)->wd_restores++;
		e->nwd_restores++;
		if (!p->xoff_rx || e->pc.pfc_watchdog_action == FT_PKT_WD_ALERT)
			return 0;
		return ev_push(e, last + period, PK_EV_WDOG, l, PK_WD_ARG(PK_WD_REFRESH, c));
	}
	if (!p->paused || p->wd_storm || e->now_ps - p->t_paused_ps < e->wd_ps)
		return 0;
	pk_port_at(e, l)->wd_fires++;
	e->nwdog++;
	p->wd_storm = true;
	wd_last_open(e, l);
	last = pfc_last_frame(e, p, period);
	{
		int rc = ev_push(e, last + e->wd_restore_ps > e->now_ps ? last + e->wd_restore_ps :
		                                                          e->now_ps,
		                 PK_EV_WDOG, l, PK_WD_ARG(PK_WD_RESTORE, c));

		if (rc < 0)
			return rc;
	}
	if (e->pc.pfc_watchdog_action == FT_PKT_WD_ALERT)
		return 0; /* counted only: the pause still holds it */
	p->paused = false;
	cls_unheld(e, p);
	pk_port_at(e, l)->npaused--;
	p->paused_ps += e->now_ps - p->t_paused_ps;
	p->wd_until_ps = UINT64_MAX;
	if (e->pc.pfc_watchdog_action == FT_PKT_WD_DROP) {
		int rc;

		e->nwd_dropping++;
		if ((rc = wd_flush(e, l, c)) < 0)
			return rc;
	}
	return try_send(e, l);
}

/* Whether retransmit timer @gen of flow @fid fires nothing: a later one was armed, or
 * its sender has every ACK (a reused record of a lazy phase: another generation). */
static inline bool
rto_stale(struct pk_engine *e, uint32_t fid, uint32_t gen)
{
	const struct pk_flow *f = flow_at(e, fid);

	return (gen & PK_RTO_GEN) != (f->rto_gen & PK_RTO_GEN) || f->snd_una >= f->npkts;
}

/*
 * SRD's tail-loss probe (armed when flow @fid's tail first left, ft__pk_srd_pto()): RFC 8985's
 * TLP taken as the model, SRD's own tail recovery not being published. No ACK for a
 * probe timeout while packets are out means that the ones no ACK named are lost, not
 * late (the ACKs of packets still on their way would keep coming): one recovery pass
 * resends them (RACK-TLP sends a probe whose ACK has RACK mark the losses; SRD's ACK
 * per packet names every packet that arrived, so the pass goes straight to what the
 * probe's ACK would show). It fires once per tail: the pass restarts the retransmit
 * timer, which takes over if a resend is lost again. An ACK within the timeout moves
 * it on to a timeout after that ACK (RFC 8985 7.2 re-arms at each ACK).
 */
static int
srd_probe(struct pk_engine *e, uint32_t fid, uint32_t gen)
{
	struct pk_flow *f = flow_at(e, fid);
	uint64_t last = f->t_una_ps, pto = ft__pk_srd_pto(e, f);
	int rc;

	if (f->sack_bits)
		last = FT_MAX(last, f->sack_bits[PK_SACK_TACK]);
	if (last + pto > e->now_ps) {
		e->nrto_queued++;
		return ev_push(e, last + pto, PK_EV_RTO, fid, gen);
	}
	e->nsrd_probes++;
	rc = go_back(e, fid, f->snd_una);
	return rc < 0 || f->snd_una >= f->npkts ? rc : arm_rto(e, fid);
}

/*
 * TCP's tail-loss probe on flow @fid (RFC 8985 7.3; Linux's tcp_send_loss_probe(),
 * net/ipv4/tcp_output.c): no ACK for a probe timeout while packets are out. One packet
 * goes: new data if the flow has some, past the congestion window (tcp_write_xmit()'s
 * push_one 2), else the last packet sent again. Its ACK does the rest: a SACK past the
 * holes has RACK mark them lost and recover (no timeout, no go-back-N), an ACK of all
 * ends the episode (ft__pk_tcp_tlp_ack()). One probe per episode; the RTO is armed
 * after it (tcp_rearm_rto()).
 */
static int
tcp_tlp(struct pk_engine *e, uint32_t fid)
{
	struct pk_flow *f = flow_at(e, fid);
	struct pk_tcp *t = ft__pk_tcp_conn(e, f);
	uint32_t snd_max;
	int rc;

	if (!t)
		return FT_ENOMEM;
	if (!tcp_tlp_ok(e, fid, f, t)) {
		if ((rc = arm_rto(e, fid)) >= 0)
			rc = tcp_hold(e, fid, t, e->now_ps + rto_of(e, f));
		return rc;
	}
	snd_max = pk_tcp_snd_max(t, fid, f);
	t->tlp_flow = fid;
	t->tlp_wait = true; /* (counted as it leaves, tcp_sent(): TCPLossProbes at probe_sent) */
	if ((rc = arm_rto(e, fid)) < 0)
		return rc;
	if (f->snd_nxt < f->npkts && f->snd_nxt >= snd_max && pk_flow_out(f) < t->rwnd) {
		t->tlp_rtx = false;
		t->tlp_high = f->snd_nxt + 1;
		t->tlp_force = fid;
		f->wnd_held = false;
		ring_add(e, f->first_link, fid);
		return try_send(e, f->first_link);
	}
	t->tlp_rtx = true;
	t->tlp_high = snd_max;
	return tcp_resend(e, fid, t, snd_max - 1);
}

/*
 * TCP's retransmit timeout on flow @fid (RFC 5681 3.1, RFC 9438 4.8): ssthresh and
 * W_max from CUBIC's cut, a loss window of one packet, fast recovery over, and the
 * sender goes back to the first packet not acknowledged (no SACK: NewReno resends from
 * there); the duplicate ACKs the resends draw start no fast retransmit below what was
 * sent (RFC 6582 3.2 step 1). The timer restarts, backed off (RFC 6298 5.5-5.6).
 */
static int
tcp_timeout(struct pk_engine *e, uint32_t fid)
{
	struct pk_flow *f = flow_at(e, fid);
	struct pk_tcp *t = ft__pk_tcp_conn(e, f);
	int rc;

	if (!t)
		return FT_ENOMEM;
	e->ntcp_rto++;
	ft__pk_tcp_cut(t);
	/* (go-back-N from snd_una: the scoreboard and RACK's marks start again) */
	ft__pk_tcp_sack_reset(t, e->tcp_rack ? ft__pk_tcp_rack_of(e, fid) : NULL);
	t->cwnd = 1;
	t->inflate = 0;
	t->dupacks = 0;
	if (t->rec_flow == fid)
		t->rec_flow = PK_NONE;
	if (t->rtx_flow == fid)
		t->rtx_flow = PK_NONE;
	if (t->timed_flow == fid)
		t->timed_flow = PK_NONE;
	t->rto_flow = fid;
	t->rto_recover = t->max_flow == fid ? t->snd_max : f->snd_nxt;
	/* a timeout ends the probe's episode (tcp_enter_loss(): tlp_high_seq = 0): the ACK
	 * of its go-back-N resends is no probe's, and the cut above the only one */
	t->tlp_flow = t->tlp_force = PK_NONE;
	t->tlp_wait = false;
	f->wnd_held = false;
	rc = go_back(e, fid, f->snd_una);
	return rc < 0 || f->snd_una >= f->npkts ? rc : arm_rto(e, fid);
}

/*
 * Whether TCP gives flow @f's connection up at this timeout (@out): Linux's
 * tcp_write_timeout() fails it once tcp_retries2's modelled time (924.6 s,
 * ft__pk_tcp_give_up_ps()) has passed since its first resend by a timeout, its
 * retrans_stamp (retransmits_timed_out(), net/ipv4/tcp_timer.c): a time, not a count of
 * timeouts, so the count depends on the RTO it backs off from. Else this timeout counts,
 * backing the timer off, and the first one stamps the connection.
 */
static int
tcp_gives_up(struct pk_engine *e, struct pk_flow *f, bool *out)
{
	struct pk_tcp *t = ft__pk_tcp_conn(e, f);

	if (!t)
		return FT_ENOMEM;
	*out = t->rtx_ps && e->now_ps - t->rtx_ps >= ft__pk_tcp_give_up_ps(PK_TCP_RETRIES2);
	if (!*out) {
		if (!t->rtx_ps)
			t->rtx_ps = e->now_ps;
		if (f->retries < UINT8_MAX)
			f->retries++;
	}
	return 0;
}

static int
ev_rto(struct pk_engine *e, uint32_t fid, uint32_t gen)
{
	struct pk_flow *f = flow_at(e, fid);

	if ((gen & PK_RTO_GEN) != (f->rto_gen & PK_RTO_GEN) || f->snd_una >= f->npkts)
		return 0;
	if (gen & PK_RTO_PROBE)
		return pk_flow_tcp(e, f) ? tcp_reo_timeout(e, fid) : srd_probe(e, fid, gen);
	if (gen & PK_RTO_TLP) {
		/* TCP's tail-loss probe, or where ACKs or new data came since it was armed,
		 * the timer they would have set (tcp_set_xmit_timer()) */
		const struct pk_rack *r = e->tcp_rack ? ft__pk_tcp_rack_of(e, fid) : NULL;
		uint64_t from = r ? r->tlp_tx_ps : 0;
		bool tlp;
		int rc;

		if (f->snd_una > f->rto_una) {
			f->retries = 0;
			from = FT_MAX(from, f->t_una_ps);
		}
		if ((rc = tcp_xmit_timer(e, fid, from, &tlp)) != 1)
			return rc;
		if (tlp)
			return tcp_tlp(e, fid);
		/* (no probe may go, and the RTO is due: a timeout, below) */
	} else if (e->sack) {
		/* SRD's counts from the last ACK that moved snd_una (sack_rx()): the oldest
		 * packet not acknowledged times out rto after it became the oldest, however
		 * many packets past it are acknowledged meanwhile */
		uint64_t rto = ft__pk_srd_rto(e, f);

		if (f->t_una_ps + rto > e->now_ps) {
			e->nrto_queued++;
			return ev_push(e, f->t_una_ps + rto, PK_EV_RTO, fid, gen);
		}
	} else if (f->snd_una > f->rto_una) {
		/*
		 * Acknowledged progress since it was armed: like an HCA's ACK timer, which
		 * counts from the last ACK that moved the window, it fires one timeout after
		 * that ACK (kb ENV-IB_TIMEOUT), not a whole timeout after this expiry. TCP's
		 * is the tail-loss probe's or the RTO, as that ACK would have set it
		 * (tcp_set_xmit_timer()).
		 */
		f->rto_una = f->snd_una;
		f->retries = 0;
		if (pk_flow_tcp(e, f) && tcp_tlp_ahead(e, fid, f)) {
			bool tlp;
			int rc = tcp_xmit_timer(e, fid, f->t_una_ps, &tlp);

			return rc < 0 ? rc : 0;
		}
		if (f->t_una_ps + rto_of(e, f) > e->now_ps) {
			e->nrto_queued++;
			return ev_push(e, f->t_una_ps + rto_of(e, f), PK_EV_RTO, fid, gen);
		}
	}
	/*
	 * A timeout without progress: the QP retries NCCL_IB_RETRY_CNT times, and at the
	 * next one goes to the error state, its send completing with IBV_WC_RETRY_EXC_ERR
	 * (kb ENV-IB_RETRY_CNT, SYM-ERR-12): the run ends there (ft__pk_run names it). A TCP
	 * connection fails by Linux's rule instead (tcp_gives_up(): ETIMEDOUT).
	 */
	pk_port_at(e, ft__pk_nic_port(f, true, f->first_link))->qp_timeouts++;
	if (pk_flow_tcp(e, f)) {
		bool fail;
		int rc = tcp_gives_up(e, f, &fail);

		if (rc < 0)
			return rc;
		if (!fail)
			return tcp_timeout(e, fid);
	}
	if (pk_flow_tcp(e, f) || ++f->retries > e->retry_cnt) {
		pk_port_at(e, ft__pk_nic_port(f, true, f->first_link))->qp_retry_exc++;
		e->qp_err_flow = fid;
		e->qp_err_ps = e->now_ps;
		return FT_EIO;
	}
	/* From the first packet not acknowledged; the receiver keeps its NAK-sent state
	 * until the packet it waits for arrives (it is not the sender's to clear). */
	if (e->sack && e->may_drop) {
		/* SRD: the timer restarts with the pass (RFC 6298 5.6) */
		int rc = go_back(e, fid, f->snd_una);

		return rc < 0 || f->snd_una >= f->npkts ? rc : arm_rto(e, fid);
	}
	return go_back(e, fid, f->snd_una);
}

/* The first link down on flow @f's kept path, PK_NONE. */
static uint32_t
link_down_on(struct pk_engine *e, const struct pk_flow *f)
{
	for (uint32_t j = 0; j < f->npath; j++) {
		uint32_t l = FT_VEC_AT(&e->paths, uint32_t, f->path_off + j);

		if (e->links[l].down)
			return l;
	}
	return PK_NONE;
}

void
ft__pk_qp_error(struct pk_engine *e, struct ft_sim_qp_error *q)
{
	const struct pk_flow *f;
	uint32_t l;

	memset(q, 0, sizeof(*q));
	if (e->qp_err_flow == PK_NONE)
		return;
	f = flow_at(e, e->qp_err_flow);
	l = link_down_on(e, f);
	q->failed = true;
	q->src = f->src;
	q->dst = f->dst;
	q->nic = f->nic_link != PK_NONE ? e->links[f->nic_link].src : UINT32_MAX;
	q->qp = f->qp / 1024;
	q->op = task_at(e, f->task)->op;
	q->link_down = l == PK_NONE ? UINT32_MAX : l;
	q->timeouts = e->retry_cnt + 1;
	q->retry_cnt = e->retry_cnt;
	if (pk_flow_tcp(e, f)) { /* (tcp_gives_up(): it failed at the timeout after its retries) */
		const struct pk_tcp *c = ft__pk_tcp_conn(e, f);

		q->tcp = true;
		q->timeouts = f->retries + 1u;
		q->retry_cnt = PK_TCP_RETRIES2;
		q->rtx_s = c ? (double)c->rtx_ps / PK_PS_PER_S : 0;
	}
	q->ib_timeout = e->pc.rto_s > 0 ? 0 : e->pc.ib_timeout;
	q->t_s = (double)e->qp_err_ps / PK_PS_PER_S;
	q->timeout_s = (double)e->rto_ps / PK_PS_PER_S;
	q->partial = e->part != NULL;
}

/*
 * The error of the QP that ran out of retries (ev_rto): when, its ends and the NIC it
 * leaves by, the retries and the timeout they took, and the link down on its path if
 * one is. NCCL reports it as its send's completion status (kb SYM-ERR-12).
 */
static int
qp_error(struct pk_engine *e, struct ft_error *err)
{
	struct ft_sim_qp_error q;
	char a[64] = "?", b[64] = "?", nic[80] = "", why[200] = "", tmo[40], t[32], dt[32];

	ft__pk_qp_error(e, &q);
	ft_topo_vertex_name(e->topo, q.src, a, sizeof(a));
	ft_topo_vertex_name(e->topo, q.dst, b, sizeof(b));
	if (q.nic != UINT32_MAX && q.nic != q.src) {
		char v[64] = "?";

		ft_topo_vertex_name(e->topo, q.nic, v, sizeof(v));
		snprintf(nic, sizeof(nic), " (by %s)", v);
	}
	if (q.link_down != UINT32_MAX) {
		char la[64] = "?", lb[64] = "?";

		ft_topo_vertex_name(e->topo, e->links[q.link_down].src, la, sizeof(la));
		ft_topo_vertex_name(e->topo, e->links[q.link_down].dst, lb, sizeof(lb));
		snprintf(why, sizeof(why), ": link %s -> %s is down and no other path is left",
		         la, lb);
	}
	if (q.ib_timeout)
		snprintf(tmo, sizeof(tmo), "NCCL_IB_TIMEOUT %u", q.ib_timeout);
	else
		snprintf(tmo, sizeof(tmo), "packet.retransmit_timeout");
	ft_format_duration(q.t_s, t, sizeof(t));
	ft_format_duration(q.timeout_s, dt, sizeof(dt));
	if (q.tcp) {
		char t1[32], g[32];

		ft_format_duration(q.rtx_s, t1, sizeof(t1));
		ft_format_duration((double)ft__pk_tcp_give_up_ps(q.retry_cnt) / PK_PS_PER_S, g,
		                   sizeof(g));
		return ft_error_set(err, FT_EIO,
		                    "sim: packet engine: TCP connection %u from %s%s to %s timed "
		                    "out at %s (%s, status %u): %u retransmit timeouts in a row "
		                    "without an ACK, the first resend at %s, tcp_retries2 %u's %s "
		                    "since then passed%s",
		                    q.qp, a, nic, b, t, FT_SIM_TCP_ERR_NAME, FT_SIM_TCP_ERR_STATUS,
		                    q.timeouts, t1, q.retry_cnt, g, why);
	}
	return ft_error_set(err, FT_EIO,
	                    "sim: packet engine: QP %u from %s%s to %s failed at %s with "
	                    "IBV_WC_RETRY_EXC_ERR (status 12, transport retry counter "
	                    "exceeded): %u retransmit timeouts of %s in a row without an ACK "
	                    "(NCCL_IB_RETRY_CNT %u, %s)%s",
	                    q.qp, a, nic, b, t, q.timeouts, dt, q.retry_cnt, tmo, why);
}

/* Sample every traced port: its rate over the last interval and its queue now. */
static int
ev_trace(struct pk_engine *e)
{
	uint32_t i;

	for (i = 0; i < e->ntrace; i++) {
		const struct pk_port *p = pk_port_at(e, e->trace_links[i]);
		double v[3];

		v[0] = (double)e->now_ps / PK_PS_PER_S;
		v[1] = (double)(p->tx_bytes - e->trace_last[i]) * PK_PS_PER_S / (double)e->trace_ps;
		v[2] = (double)p->q_bytes;
		e->trace_last[i] = p->tx_bytes;
		if (ft_vec_push(&e->trace_samples, v) < 0)
			return FT_ENOMEM;
	}
	for (i = 0; i < e->ntrace_qps; i++) {
		/* The QP's state is with the message it sends now (pk_flow_sent()). */
		const struct pk_flow *f = flow_at(e, e->trace_qps[i]), *next;
		double v[3];

		while (f->snd_nxt >= f->npkts && (next = ft__pk_qp_next(e, f)) != NULL)
			f = next;
		v[0] = (double)e->now_ps / PK_PS_PER_S;
		/* (an unpaced QP runs at the line rate, DCQCN's alpha where it starts) */
		v[1] = e->paced ? pk_flow_cc(e, f)->rc_Bps : e->line_Bps;
		v[2] = e->paced ? pk_flow_cc(e, f)->alpha : PK_DCQCN_ALPHA0;
		if (ft_vec_push(&e->qp_samples, v) < 0)
			return FT_ENOMEM;
	}
	if (e->part ? ft__pk_part_more(e) : e->nflows_done < e->nflows_all)
		return ev_push(e, e->now_ps + e->trace_ps, PK_EV_TRACE, 0, 0);
	return 0;
}

/* An end of link @l (@dst: its destination): from its port's first line, which the
 * event's handling reads next, or from the link where a split run keeps no record of it
 * (a packet's arrival sent to the rank that owns the link's far end, pkt_part.c). */
static inline uint32_t
link_end(const struct pk_engine *e, uint32_t l, bool dst)
{
	if (e->port_slot)
		return dst ? e->links[l].dst : e->links[l].src;
	return dst ? e->ports[l].dst : e->ports[l].src;
}

/* The vertex where an event happens: the events it queues have their tie key from it. */
uint32_t
ft__pk_ev_where(const struct pk_engine *e, uint32_t type, uint32_t id, uint32_t arg)
{
	switch (type) {
	case PK_EV_ARRIVE:
		return link_end(e, pk_ev_link_of(arg, e->pkts[id].link), true);
	case PK_EV_TX_DONE:
	case PK_EV_CREDIT:
	case PK_EV_PAUSE:
	case PK_EV_WAKE:
	case PK_EV_WDOG:
	case PK_EV_QP_END:
		return link_end(e, id, false);
	case PK_EV_FC_FLUSH:
		return link_end(e, id, true);
	case PK_EV_NAK:
	case PK_EV_ACK:
	case PK_EV_RTO:
	case PK_EV_CNP:
	case PK_EV_RTT:
		return pk_flow_src(e, id);
	case PK_EV_PRED:
		if (id >= PK_VIRT)
			return ft__pk_tree_src(e, id);
		return pk_flow_src(e, pk_task_flow(e, id));
	default: /* a barrier, a trace sample: not at one vertex */
		return e->nvertices;
	}
}

/*
 * Start fetching what event @ev will read first, while the one before it is handled: a
 * hop's port, priority record and packet are cache misses on large fabrics, and each is
 * addressed from the event alone, so they are fetched together instead of one after the
 * other. Only a hint: nothing is read. Always inlined: GCC takes a function whose only
 * effect is a prefetch for a pure one and drops the call (sim_int.h).
 */
static inline __attribute__((always_inline)) void
prefetch_event(const struct pk_engine *e, const struct pk_event *ev)
{
	uint32_t type = ev->aux & 15u, arg = ev->aux >> 4, l = PK_NONE, r = PK_NONE;
	uint32_t c = e->nprio - 1; /* the event does not say: the highest, often the only one */

	switch (type) {
	case PK_EV_ARRIVE:
		__builtin_prefetch(&e->pkts[ev->id]);
		l = pk_ev_link_of(arg, PK_NONE);
		break;
	case PK_EV_TX_DONE:
		l = ev->id;
		r = pk_ev_link_of(arg, PK_NONE);
		break;
	case PK_EV_CREDIT:
	case PK_EV_PAUSE:
	case PK_EV_WAKE:
		l = ev->id;
		break;
	default:
		return;
	}
	if (l != PK_NONE) {
		__builtin_prefetch(pk_port_at(e, l));
		__builtin_prefetch((const char *)pk_port_at(e, l) + 64);
		__builtin_prefetch(pk_cls_at(e, l, c));
	}
	if (r != PK_NONE) {
		__builtin_prefetch(pk_port_at(e, r));
		__builtin_prefetch(pk_cls_at(e, r, c));
	}
}

static int step_event(struct pk_engine *e, uint32_t type, uint32_t id, uint32_t arg, uint64_t t_ps);

static int
step(struct pk_engine *e)
{
	struct pk_event ev;
	uint32_t type, arg;
	int rc;

	if (pk_evq_pop(&e->evq, &ev) < 0)
		return FT_ENOMEM;
	if (e->evq.n) {
		/* The next event is known now (the queue brings it forward; it would at
		 * the next pop anyway): fetch its records during this one. */
		const struct pk_event *next = pk_evq_min(&e->evq);

		if (!next)
			return FT_ENOMEM;
		prefetch_event(e, next);
	}
	type = ev.aux & 15u;
	arg = ev.aux >> 4;
	if (type == PK_EV_RTO) {
		e->nrto_queued--;
		/* (a timer that fires nothing is no event of the run: not counted, and the
		 * run's clock stays at its last event) */
		if (rto_stale(e, ev.id, arg))
			return 0;
	}
	e->now_ps = ev.t_ps;
	e->nevents++;
	e->origin = ft__pk_ev_where(e, type, ev.id, arg);
	e->cur_seq = ev.seq;
	rc = step_event(e, type, ev.id, arg, ev.t_ps);
	if (!refs_on(e))
		return rc;
	/* (a flow's event no longer names its record once handled) */
	if (type == PK_EV_NAK || type == PK_EV_ACK || type == PK_EV_CNP || type == PK_EV_RTT)
		ft__pk_unref(e, ev.id);
	return rc < 0 ? rc : ft__pk_ref_err(e);
}

static int
step_event(struct pk_engine *e, uint32_t type, uint32_t id, uint32_t arg, uint64_t t_ps)
{
	struct pk_event ev = { .t_ps = t_ps, .id = id };

	switch (type) {
	case PK_EV_TX_DONE:
		return ev_tx_done(e, ev.id, arg);
	case PK_EV_ARRIVE:
		return ev_arrive(e, ev.id, arg);
	case PK_EV_TASK:
		ft__pk_cp_take(e, arg); /* (what the wait's critical path was) */
		return ft__pk_task_done(e, ev.id);
	case PK_EV_PRED:
		ft__pk_cp_take(e, arg);
		return ft__pk_pred_done(e, ev.id, 0);
	case PK_EV_CREDIT:
		return credit_update(e, ev.id, arg);
	case PK_EV_FC_FLUSH:
		return credit_flush(e, ev.id, arg);
	case PK_EV_PAUSE:
		return ev_pause(e, ev.id, arg >> 1, arg & 1u);
	case PK_EV_NAK:
	case PK_EV_ACK:
		return ev_acked(e, ev.id, arg, type == PK_EV_NAK);
	case PK_EV_RTO:
		return ev_rto(e, ev.id, arg);
	case PK_EV_CNP:
		return ft__pk_ev_cnp(e, ev.id);
	case PK_EV_TRACE:
		return ev_trace(e);
	case PK_EV_WDOG:
		return ev_wdog(e, ev.id, arg);
	case PK_EV_RTT:
		return ft__pk_ev_rtt(e, ev.id, arg);
	case PK_EV_QP_END:
		pk_port_at(e, ev.id)->nqps--;
		return 0;
	case PK_EV_WAKE:
		if (pk_port_at(e, ev.id)->t_wake_ps == ev.t_ps)
			pk_port_at(e, ev.id)->wake_pending = false;
		return try_send(e, ev.id);
	default:
		return FT_EINVAL;
	}
}

int
ft__pk_step(struct pk_engine *e)
{
	return step(e);
}


int
ft__pk_run(struct ft_engine *eng, double until_s, struct ft_error *err)
{
	struct pk_engine *e = ft_container_of(eng, struct pk_engine, base);
	uint64_t until = until_s > 0 ? s_to_ps(until_s) : UINT64_MAX;
	int rc = 0;

	if (!e->started) {
		rc = ft__pk_part_init(e, err);
		if (rc == FT_EINVAL)
			return rc; /* the reason is in @err */
		if (rc == 0 && e->part && FT_NEVER(ft__pk_lazy_any(e)))
			return FT_EINVAL; /* a split run builds all-to-alls whole (pkt_setup.c) */
		for (uint32_t i = 0; rc == 0 && i < e->ntrace_qps; i++)
			if (e->trace_qps[i] >= pk_nflows(e))
				return ft_error_set(
				        err, FT_ERANGE,
				        "--trace-qps: expected flow ids below %zu, got %u "
				        "(--list-flows N lists them)",
				        pk_nflows(e), e->trace_qps[i]);
		if (rc < 0 || (rc = ft__pk_start(e)) < 0)
			goto fail;
	}
	if (e->part) {
		if (until != UINT64_MAX)
			return ft_error_set(err, FT_EINVAL,
			                    "sim: packet engine under mpirun: runs to the end only");
		rc = ft__pk_part_run(e);
	}
	while (!e->part && e->evq.n > 0 && rc == 0) {
		const struct pk_event *next = pk_evq_min(&e->evq);

		/* Every flow has ended and only retransmit timers are left: each flow's
		 * last ACK is in (an ACK is an event), so every one of them fires nothing
		 * (rto_stale()): the run ends at its last event. */
		if (e->nflows_done == e->nflows_all && e->evq.n == e->nrto_queued)
			break;
		if (!next) {
			rc = FT_ENOMEM;
			break;
		}
		if (next->t_ps > until)
			return 0;
		rc = step(e);
		if ((e->nevents & 0xffff) == 0)
			ft_progress_update(e->cfg.progress, "simulating packets", e->nflows_done,
			                   e->nflows_all);
	}
	if (rc < 0)
		goto fail;
	if (e->nflows_done < e->nflows_all && until == UINT64_MAX) {
		uint32_t l = ft__pk_stuck_port(e);
		char a[64] = "?", b[64] = "?";

		/* Nothing more can happen: the counters stand as they are now (a split run
		 * reports its stall from each rank, without them). */
		e->stalled = !e->part;
		e->stall_ps = e->now_ps;

		if (l != PK_NONE) {
			struct ft_strbuf cyc;

			ft_strbuf_init(&cyc);
			/* (A split run's FIFOs hold other ranks' packet ids: no cycle walk.) */
			for (uint32_t m = 0; !e->part && m < e->nlinks && !cyc.len; m++)
				if (ft__pk_port_has(e, m, true) && pk_port_at(e, m)->blocked)
					ft__pk_name_cycle(e, m, &cyc);
			if (cyc.len) {
				rc = ft_error_set(
				        err, FT_EINVAL,
				        "sim: packet engine: buffer deadlock with %llu of "
				        "%zu flows unfinished: the cycle %s waits on itself "
				        "(a cyclic buffer dependency: give the routing "
				        "virtual lanes, or break the loop)",
				        (unsigned long long)(e->nflows_all - e->nflows_done),
				        (size_t)e->nflows_all, cyc.buf);
				ft_strbuf_release(&cyc);
				return rc;
			}
			ft_strbuf_release(&cyc);
			ft_topo_vertex_name(e->topo, e->links[l].src, a, sizeof(a));
			ft_topo_vertex_name(e->topo, e->links[l].dst, b, sizeof(b));
			return ft_error_set(
			        err, FT_EINVAL,
			        "sim: packet engine stalled with %llu of %zu flows "
			        "unfinished: port %s -> %s holds packets that can never "
			        "leave (a cyclic buffer dependency)",
			        (unsigned long long)(e->nflows_all - e->nflows_done),
			        (size_t)e->nflows_all,
			        a, b);
		}
		return ft_error_set(err, FT_EINVAL,
		                    "sim: packet engine stalled with %llu of %zu flows unfinished "
		                    "and no packet in any queue",
		                    (unsigned long long)(e->nflows_all - e->nflows_done),
		                    (size_t)e->nflows_all);
	}
	return 0;
fail:
	if (e->qp_err_flow != PK_NONE)
		return qp_error(e, err);
	if (e->route_err.code)
		return ft_error_set(err, rc, "%s", e->route_err.msg);
	if (rc == FT_ENOENT)
		return ft_error_set(err, rc, "sim: packet engine: a packet found no route on");
	return ft_error_set(err, rc, "sim: packet engine: %s", ft_strerror(rc));
}

/* SPDX-License-Identifier: MIT */
/*
 * sim/pkt_cc.c - the packet engine's congestion control: ECN marking at
 * switch egress (RED, or FECN for InfiniBand CC), and the reaction points
 * at the sending NICs that pace each QP: DCQCN (kb CC-DCQCN), InfiniBand CC
 * (kb CC-IB) and TIMELY (kb CC-TIMELY-HPCC). Their timers are applied when
 * a rate is read, not by periodic events; a port whose paced flows all wait
 * queues one wake-up. engine_packet.c calls in only for runs that pace or
 * mark, so an uncontrolled run never leaves that file.
 */
#include "pkt_int.h"

#include <math.h>

#include <fabtune/rng.h>

/* ---- DCQCN (kb CC-DCQCN): the reaction point at the sender's NIC ---------------- */

/*
 * Alpha's update, once per alpha period (dce_tcp_rtt, kb CC-DCQCN): x (1 - g) for a
 * period without a CNP, (1 - g) alpha + g for one with a CNP, never both. The periods
 * are counted from the QP's first CNP (before it the QP is not rate limited and alpha
 * holds initial_alpha_value); t_alpha_ps is the start of the first period not yet
 * updated. Applied when alpha is read, at a CNP: the whole periods since then had none.
 */
static void
dcqcn_alpha_cnp(struct pk_engine *e, struct pk_dcqcn *d)
{
	const double g = e->pc.dcqcn_g;

	if (!d->t_alpha_ps)
		d->t_alpha_ps = e->now_ps; /* the first CNP starts the periods */
	if (e->now_ps >= d->t_alpha_ps) {
		uint64_t n = (e->now_ps - d->t_alpha_ps) / e->dcq_alpha_ps;

		d->alpha *= pow(1 - g, (double)n);
		/* this CNP's period takes the raise instead of the decay */
		d->t_alpha_ps += (n + 1) * e->dcq_alpha_ps;
	}
	d->alpha = (1 - g) * d->alpha + g;
}

/* One rate-increase event (timer or byte counter): fast recovery for the first F
 * (rpg_threshold = 1), hyper increase once both counters are past F, else additive. */
static void
dcqcn_increase(struct pk_engine *e, struct pk_dcqcn *d)
{
	const uint32_t F = 1;

	if (d->it > F && d->ib > F)
		d->rt_Bps += (double)(FT_MIN(d->it, d->ib) - F) * e->pc.dcqcn_hai_bps / 8;
	else if (d->it > F || d->ib > F)
		d->rt_Bps += e->pc.dcqcn_ai_bps / 8;
	d->rt_Bps = FT_MIN(d->rt_Bps, e->line_Bps);
	d->rc_Bps = (d->rt_Bps + d->rc_Bps) / 2;
	if (d->rc_Bps >= e->line_Bps * (1 - 1e-9)) {
		d->rc_Bps = e->line_Bps;
		d->limited = false;
	}
}

/* The increase timer's expiries up to now (applied when the rate is needed). */
static void
dcqcn_timers(struct pk_engine *e, struct pk_dcqcn *d)
{
	uint32_t guard = 0;

	if (e->timely || e->srd || e->tcp)
		return; /* its rate moves only on RTT samples (TCP: its ACKs, pkt_tcp.c) */
	if (e->ibcc) {
		/* CCTI_Timer: one step back down the table per expiry, to CCTI_Min. */
		uint64_t n = d->limited ? (e->now_ps - d->t_timer_ps) / e->ccti_timer_ps : 0;
		uint32_t floor = FT_MIN(e->pc.ccti_min, d->ccti);

		if (n) {
			d->ccti -= (uint32_t)FT_MIN(n, (uint64_t)(d->ccti - floor));
			d->t_timer_ps += n * e->ccti_timer_ps;
			d->rc_Bps = ft__pk_cct_rate(e, d->ccti);
			d->limited = d->ccti > e->pc.ccti_min || d->rc_Bps < e->line_Bps;
		}
		return;
	}
	while (d->limited && e->now_ps - d->t_timer_ps >= e->dcq_timer_ps && guard++ < 4096) {
		d->t_timer_ps += e->dcq_timer_ps;
		d->it++;
		dcqcn_increase(e, d);
	}
	if (d->limited && e->now_ps - d->t_timer_ps >= e->dcq_timer_ps)
		d->t_timer_ps = e->now_ps; /* a very long idle time: restart the count */
}

/* When a paced flow may send its next packet, at its current rate. */
static uint64_t
dcqcn_next(const struct pk_dcqcn *d)
{
	return d->t_last_tx_ps + (uint64_t)((double)d->last_wire * PK_PS_PER_S / d->rc_Bps + 0.5);
}

/* A packet of @wire bytes left: pace the next one, run the timer and the byte counter. */
void
ft__pk_dcqcn_sent(struct pk_engine *e, struct pk_flow *f, uint32_t wire)
{
	struct pk_dcqcn *d = pk_flow_cc(e, f);
	uint32_t guard = 0;

	if (e->ibcc && !d->limited && d->ccti < e->pc.ccti_min) {
		/* CCTI_Min: the delay of its entry follows every packet, the first one on. */
		d->ccti = e->pc.ccti_min;
		d->rc_Bps = ft__pk_cct_rate(e, d->ccti);
		d->limited = true;
		d->t_timer_ps = e->now_ps;
	}
	if (!d->limited)
		return;
	dcqcn_timers(e, d);
	d->t_last_tx_ps = e->now_ps;
	d->last_wire = wire;
	if (e->ibcc || e->timely || e->srd || e->tcp)
		return;
	d->bytes_since += wire;
	while (d->limited && d->bytes_since >= e->pc.dcqcn_byte_counter && guard++ < 1024) {
		d->bytes_since -= e->pc.dcqcn_byte_counter;
		d->ib++;
		dcqcn_increase(e, d);
	}
}

/* Whether message @f has handed its QP's state on: its last packet left. On SRD its
 * task's mark says so (pk_flow_sent()), whatever a resend pass has done to snd_nxt since
 * (go_back() and sack_hint() move it back below npkts); elsewhere, and for a message
 * with no next one built (a lazy phase's), the tail in flight is the sign (sim.md,
 * Limits). */
static bool
pk_qp_handed(struct pk_engine *e, const struct pk_flow *f)
{
	return f->snd_nxt >= f->npkts || (e->sack && task_at(e, f->task)->sent);
}

/* The state of message @f's QP now: it moved on with the QP's next message once @f's
 * last packet left (pk_flow_sent()); a lazy phase's QP keeps it where no built message
 * does (ft__pk_tree_cc()). */
struct pk_dcqcn *
ft__pk_qp_cc(struct pk_engine *e, const struct pk_flow *f)
{
	struct pk_dcqcn *d = pk_qp_handed(e, f) && e->tlazy ? ft__pk_tree_cc(e, f) : NULL;
	const struct pk_flow *next;

	while (!d && pk_qp_handed(e, f) && (next = ft__pk_qp_next(e, f)) != NULL)
		f = next;
	return d ? d : pk_flow_cc(e, f);
}

/* A CNP reached the sender: cut the rate (at most once per rate_reduce_monitor_period). */
int
ft__pk_ev_cnp(struct pk_engine *e, uint32_t fid)
{
	struct pk_flow *f = flow_at(e, fid);
	struct pk_dcqcn *d;

	{
		struct pk_port *np = pk_port_at(e, ft__pk_nic_port(f, true, f->first_link));

		np->cnp_handled++;
		if (np->cls) /* (its priority records exist once the run starts) */
			pk_port_cls(e, np, f->prio)->cnp_handled++;
	}
	d = ft__pk_qp_cc(e, f);
	if (e->ibcc) {
		/*
		 * A BECN raises the CCTI by CCTI_Increase (from at least CCTI_Min), to
		 * CCTI_Limit; the source then waits the entry's inter-packet delay after
		 * each packet (the table: pkt_phys.c).
		 */
		dcqcn_timers(e, d);
		if (!d->limited)
			d->t_timer_ps = e->now_ps;
		d->ccti = FT_MIN(FT_MAX(d->ccti, e->pc.ccti_min) + e->pc.ccti_increase,
		                 e->ncct - 1);
		d->rc_Bps = ft__pk_cct_rate(e, d->ccti);
		d->limited = true; /* the timer runs until the index is back at CCTI_Min */
		if (!d->last_wire)
			d->t_last_tx_ps = e->now_ps;
		return 0;
	}
	dcqcn_alpha_cnp(e, d);
	if (d->limited && e->now_ps - d->t_last_dec_ps < e->dcq_dec_ps)
		return 0;
	d->t_last_dec_ps = e->now_ps;
	d->rt_Bps = d->rc_Bps;
	d->rc_Bps = FT_MAX(d->rc_Bps * FT_MAX(1 - d->alpha / 2, e->pc.dcqcn_min_dec),
	                   1e6 / 8); /* rpg_min_rate 1 Mb/s */
	d->limited = true;
	d->it = d->ib = 0;
	d->bytes_since = 0;
	d->t_timer_ps = e->now_ps;
	if (!d->last_wire) { /* not paced yet: the next packet may leave now */
		d->t_last_tx_ps = e->now_ps;
		d->last_wire = 0;
	}
	return 0;
}

/*
 * TIMELY (kb CC-TIMELY-HPCC, the HPCC simulator's defaults): per RTT sample, the
 * gradient (EWMA weight 0.875 of the new difference, normalised by the 20 us minimum
 * RTT) drives the rate: additive increase below T_low (50 us), multiplicative
 * decrease above T_high (500 us), and in between increase on a falling gradient (five
 * steps at once after five in a row) or decrease by beta (0.8) x gradient.
 *
 * At most one update per round trip, as the HPCC simulator's TIMELY does (its rate moves
 * only on an ACK past the data sent before its last update): a sample whose packet left
 * before the last update carries no news of it and is dropped. Taken sample by sample
 * instead, one RTT of a deep queue brings as many cuts as completions (a 500 us queue
 * holds about a hundred 64 KiB segments at 100 Gb/s), and the senders crawl.
 */
/*
 * EFA's SRD (the IEEE Micro 2020 paper on SRD): the sender's NIC limits each flow's rate
 * from the round trips it measures, and sprays its packets (spray_pick(), engine_packet.c).
 * The paper gives no law, so this one is ours, an AIMD on delay: once a round trip (the
 * guard TIMELY has), a sample at or below T = the lowest RTT the flow has seen plus a
 * target queueing delay (srd_target_s: 8 wire MTUs at line rate) adds 1 % of line rate;
 * one above it multiplies the rate by 1 - beta (1 - T / RTT), beta 1/2: the more the
 * queue exceeds the target the deeper the cut, at most by half (TIMELY's form above its
 * T_high, kb CC-TIMELY-HPCC, with TCP's halving as the limit). The rate stays between
 * the 1 Gb/s floor TIMELY has and line rate. An idle path never cuts: a flow alone sends
 * at line rate.
 */
static int
srd_rtt(struct pk_engine *e, struct pk_dcqcn *d, uint32_t rtt_ns)
{
	const double beta = 0.5, step = 0.01 * e->line_Bps;
	double rtt = rtt_ns * 1e-9, r = d->rc_Bps, t;

	if (!(d->prev_rtt_s > 0) || rtt < d->prev_rtt_s)
		d->prev_rtt_s = rtt;
	t = d->prev_rtt_s + e->srd_target_s;
	d->rtt_diff_s = rtt - d->prev_rtt_s; /* the queueing delay the sample saw */
	r = rtt > t ? r * (1 - beta * (1 - t / rtt)) : r + step;
	d->rc_Bps = FT_MIN(FT_MAX(r, e->tm_min_Bps), e->line_Bps);
	if (d->rc_Bps < e->line_Bps && !d->limited && !d->last_wire)
		d->t_last_tx_ps = e->now_ps;
	d->limited = d->rc_Bps < e->line_Bps;
	return 0;
}

/*
 * SRD's round-trip estimate from sample @rtt_ns, every sample (one per packet, the
 * model's receiver acknowledging each): RFC 6298 2.2 and 2.3, SRTT and RTTVAR with alpha
 * 1/8 and beta 1/4, the first sample setting SRTT = R and RTTVAR = R / 2. SRD's own
 * estimator is not published (Shalev et al., IEEE Micro 2020: the sender paces from the
 * round trips it measures); RFC 6298's is the model. A resent packet's sample is its own
 * (the engine knows which copy arrived: Karn's ambiguity does not arise). The tail-loss
 * probe and the retransmit timer read it (engine_packet.c ft__pk_srd_pto(), ft__pk_srd_rto()).
 */
static void
srd_rtt_est(struct pk_dcqcn *d, uint32_t rtt_ns)
{
	int64_t r = rtt_ns, srtt = d->srtt_ns;

	if (!d->srtt_ns) {
		d->srtt_ns = FT_MAX(rtt_ns, 1u);
		d->rttvar_ns = rtt_ns / 2;
		return;
	}
	/* (in whole ns: SRTT rounded to the nearest, RTTVAR down, so that a constant R
	 * leaves SRTT = R and RTTVAR 0, as the exact recursion tends to) */
	d->rttvar_ns =
	        (uint32_t)((3 * (int64_t)d->rttvar_ns + (r > srtt ? r - srtt : srtt - r)) / 4);
	d->srtt_ns = (uint32_t)FT_MAX((7 * srtt + r + 4) / 8, 1);
}

int
ft__pk_ev_rtt(struct pk_engine *e, uint32_t fid, uint32_t rtt_ns)
{
	struct pk_flow *f = flow_at(e, fid);
	/* (SRD's rate control too is the QP's, handed on with its state; TIMELY's stays
	 * with the message) */
	struct pk_dcqcn *d = e->srd ? ft__pk_qp_cc(e, f) : pk_flow_cc(e, f);
	const double alpha = 0.875, beta = 0.8, t_low = 50e-6, t_high = 500e-6;
	const double min_rtt = 20e-6, step = e->tm_step_Bps;
	double rtt = rtt_ns * 1e-9, diff, grad, r = d->rc_Bps;
	/* The sample's packet left one RTT ago (the completion is back now). */
	uint64_t t_sent_ps = e->now_ps - FT_MIN((uint64_t)rtt_ns * 1000, e->now_ps);

	if (e->sack) /* (SRD's estimate, whatever its rate control: the QP's) */
		srd_rtt_est(e->srd ? d : ft__pk_qp_cc(e, f), rtt_ns);
	if (!e->timely && !e->srd)
		return 0; /* (no rate control reads it) */
	if (d->t_last_dec_ps && t_sent_ps < d->t_last_dec_ps)
		return 0; /* sent before the last update: already counted */
	d->t_last_dec_ps = FT_MAX(e->now_ps, 1);
	if (e->srd)
		return srd_rtt(e, d, rtt_ns);
	diff = d->prev_rtt_s > 0 ? rtt - d->prev_rtt_s : 0;
	d->prev_rtt_s = rtt;
	d->rtt_diff_s = (1 - alpha) * d->rtt_diff_s + alpha * diff;
	grad = d->rtt_diff_s / min_rtt;
	if (rtt < t_low) {
		r += step;
		d->hai_n = 0;
	} else if (rtt > t_high) {
		r *= 1 - beta * (1 - t_high / rtt);
		d->hai_n = 0;
	} else if (grad <= 0) {
		r += (++d->hai_n >= 5 ? 5 : 1) * step;
	} else {
		r *= FT_MAX(1 - beta * grad, 0.0);
		d->hai_n = 0;
	}
	d->rc_Bps = FT_MIN(FT_MAX(r, e->tm_min_Bps), e->line_Bps);
	if (d->rc_Bps < e->line_Bps && !d->limited) {
		d->limited = true;
		if (!d->last_wire)
			d->t_last_tx_ps = e->now_ps;
	}
	d->limited = d->rc_Bps < e->line_Bps;
	return 0;
}

/* Whether a sourced flow of priority @c of port @l may send now (pkt_int.h). The increase
 * timers that have not run yet are left out: they only raise a rate, so a flow they would
 * free counts from the next pick on. */
bool
ft__pk_paced_ready(const struct pk_engine *e, uint32_t l, uint32_t c)
{
	const struct pk_cls *p = pk_cls_at(e, l, c);
	uint32_t fid = p->ring, i;

	for (i = 0; i < p->nring; i++) {
		const struct pk_dcqcn *d;

		fid = flow_at(e, fid)->ring_next;
		d = pk_flow_cc(e, flow_at(e, fid));
		if (!d->limited || dcqcn_next(d) <= e->now_ps)
			return true;
	}
	return false;
}

/*
 * Make the ring's head a flow whose rate lets it send now. Returns 1 when there is one,
 * 0 when all wait (a wake-up is then queued for the earliest), or FT_E*.
 */
int
ft__pk_pick_paced(struct pk_engine *e, uint32_t l, uint32_t c)
{
	struct pk_port *pp = pk_port_at(e, l);
	struct pk_cls *p = pk_port_cls(e, pp, c);
	uint32_t prev = p->ring, i;
	uint64_t tmin = UINT64_MAX;

	for (i = 0; i < p->nring; i++) {
		uint32_t fid = flow_at(e, prev)->ring_next;
		struct pk_dcqcn *d = pk_flow_cc(e, flow_at(e, fid));
		uint64_t t;

		dcqcn_timers(e, d);
		t = d->limited ? dcqcn_next(d) : 0;
		if (t <= e->now_ps) {
			p->ring = prev;
			return 1;
		}
		/* Wake when it may send, or when its timer raises its rate first. */
		if (e->timely || e->srd || e->tcp)
			tmin = FT_MIN(tmin, t);
		else
			tmin = FT_MIN(tmin, FT_MIN(t, d->t_timer_ps + (e->ibcc ? e->ccti_timer_ps :
			                                                         e->dcq_timer_ps)));
		prev = fid;
	}
	if (!pp->wake_pending || tmin < pp->t_wake_ps) {
		pp->wake_pending = true;
		pp->t_wake_ps = tmin;
		return ev_push(e, tmin, PK_EV_WAKE, l, 0) < 0 ? FT_ENOMEM : 0;
	}
	return 0;
}

/* ECN at egress (RED on the queue the packet joins, kb CC-PFC-ECN). */
void
ft__pk_ecn_mark(struct pk_engine *e, uint32_t l, struct pk_pkt *k)
{
	const struct pk_link *lk = &e->links[l];
	uint64_t q = pk_port_at(e, l)->q_bytes;
	double pr;

	if (e->ibcc) {
		/* FECN: above the threshold, one of every Marking_Rate packets of at least
		 * Packet_Size (512 bytes) (kb CC-IB). Only a switch marks, and only as the
		 * root of the congestion: a VL that waits for credits is the victim of a
		 * port further down, and with the Victim_Mask clear (the default) it does
		 * not mark, so the flows that merely share its link are not throttled
		 * (kb CC-IB, Victim / credit masks). */
		struct pk_port *p = pk_port_at(e, l);

		if (q <= e->pc.ibcc_threshold_bytes || k->payload < 512 || (k->flags & PK_F_CE))
			return;
		if (!e->links[lk->rev].sw_dst || pk_cls_at(e, l, pk_prio(k))->held)
			return;
		if (++p->fecn_skip < e->pc.ibcc_marking_rate)
			return;
		p->fecn_skip = 0;
		p->ecn_marks++;
		pk_cls_at(e, l, pk_prio(k))->ecn_marks++;
		e->necn++;
		pk_op_acc(e, k->flow)->necn++;
		k->flags |= PK_F_CE;
		return;
	}
	if (q <= lk->kmin)
		return;
	pr = q >= lk->kmax ?
	             1.0 :
	             e->pc.ecn_pmax * (double)(q - lk->kmin) / (double)(lk->kmax - lk->kmin);
	if (pr >= 1.0 || ft_rng_unit(&e->ecn_rng[l]) < pr) {
		if (!(k->flags & PK_F_CE)) {
			pk_port_at(e, l)->ecn_marks++;
			pk_cls_at(e, l, pk_prio(k))->ecn_marks++;
			e->necn++;
			pk_op_acc(e, k->flow)->necn++;
		}
		k->flags |= PK_F_CE;
	}
}

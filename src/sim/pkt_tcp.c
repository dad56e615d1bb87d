/* SPDX-License-Identifier: MIT */
/*
 * sim/pkt_tcp.c - TCP's sender for the GPUDirect-TCPX/O transport of the packet
 * engine: a congestion window per connection (CUBIC, RFC 9438, with RFC 5681's
 * slow start and RFC 6582's NewReno fast retransmit and fast recovery), and the
 * retransmit timer as Linux sets it (SRTT plus its floor). engine_packet.c calls in from
 * its sender (a packet sent, an ACK, a timeout); the functions on struct pk_tcp
 * alone are the law, which the unit tests drive by hand.
 *
 * Why CUBIC: it is Linux's default congestion control (net.ipv4.tcp_congestion_control),
 * and GPUDirect-TCPX/O runs over the host's (TCPX) or the NIC's offloaded (TCPXO) Linux
 * sockets with that default (docs/presets.md PS-TCPX). At data-centre round trips of a
 * few microseconds its cubic curve regrows over seconds (K below), so CUBIC runs in its
 * Reno-friendly region (RFC 9438 4.3): an AIMD with a cut to 0.7 and a growth of
 * 3 (1 - 0.7) / (1 + 0.7) packets per round trip.
 *
 * Three more of Linux's defaults, each a packet.* knob (docs/cmd/sim.md):
 *
 * - SACK (RFC 2018; net.ipv4.tcp_sack 1). Each ACK the receiver sends at once for a packet
 *   past a gap names that packet: RFC 2018's first block holds the segment that drew the
 *   ACK, and the other blocks repeat what earlier ACKs said, which this engine's ACKs
 *   (never lost, never reordered) have told already. The sender keeps a scoreboard and
 *   recovers as RFC 6675 does (a pipe of the packets in flight, the next lost packet
 *   resent while pipe < cwnd, new data after), cwnd set at each ACK by PRR (RFC 6937,
 *   Linux's tcp_cwnd_reduction(): ft__pk_tcp_prr()), with the loss marking of RACK (RFC 8985),
 *   Linux's default loss detection (net.ipv4.tcp_recovery 1, net/ipv4/tcp_recovery.c):
 *   a packet is lost once a packet sent after it was delivered and RACK.rtt (that
 *   packet's round trip) and the reordering window have passed since it left. The window
 *   is Linux's with no reordering seen (tcp_rack_reo_wnd(); the engine's TCP runs one
 *   path through FIFO queues, so none is): zero in recovery and
 *   once three packets are SACKed, else a quarter of min_rtt; a packet still within it
 *   waits for RACK's reordering timer, which Linux arms in whole jiffies and
 *   TCP_TIMEOUT_MIN more (3 ms at HZ 1000 for a data-centre wait of microseconds), in
 *   place of the retransmit timer. A resend is timed as any packet: one that a packet
 *   sent after it overtakes is lost again (tcp_rack_detect_loss(), TCPLostRetransmit),
 *   found without a timeout. A recovery starts whenever a packet is marked lost outside one
 *   (Linux's tcp_time_to_recover(): lost_out not zero), not at a count of duplicate
 *   ACKs; the ACK that ends a recovery with packets marked lost and not yet resent (new
 *   data sent in it, lost and marked meanwhile) starts the next at once, with its own
 *   cut, as Linux's tcp_fastretrans_alert() does. A lost tail, which no SACK
 *   follows, draws the tail-loss probe (RFC 8985 7: ft__pk_tcp_pto_ps(), engine_packet.c
 *   tcp_tlp()), whose SACK or ACK does the rest; a duplicate draws a D-SACK (RFC 2883),
 *   which is counted and, as in Linux with no reordering seen (tcp_dsack_seen()), leaves
 *   RACK's window as it is (ft__pk_tcp_dsack()). Not modelled: RACK while a
 *   timeout's go-back-N resends go out (Linux runs it in its Loss
 *   state too).
 * - Delayed ACKs (RFC 1122 4.2.3.2, RFC 5681 4.2): the receiver acknowledges every second
 *   full-sized packet, or when its delayed-ACK timer fires, 40 ms (Linux's TCP_DELACK_MIN)
 *   after the packet it left unacknowledged; a packet past a gap, a duplicate, or one that
 *   fills a gap or part of one (packets past it held) is acknowledged at once; the first
 *   16 ACKs of a connection go at once (Linux's quick-ACK mode, TCP_MAX_QUICKACKS), and
 *   16 again after in-order data comes more than the receiver's RTO after the last
 *   (tcp_event_data_recv()); each in-order packet ACKed at once spends one. Linux's slow
 *   start counts the packets an ACK covers (tcp_slow_start(), RFC 3465 with no limit L):
 *   with an ACK per two packets the window still doubles per round trip (one per ACK
 *   would make it 1.5x).
 * - Pacing (Linux's internal pacing, tcp_update_pacing_rate()): packets leave a flow at
 *   most at 200 % of cwnd x MSS / SRTT while cwnd < ssthresh / 2, 120 % after
 *   (net.ipv4.tcp_pacing_ss_ratio, tcp_pacing_ca_ratio), spaced rather than in bursts; the
 *   rate is set at every ACK and every send, on the flow's QP's pacing state (the one
 *   DCQCN's rate limiter uses, engine_packet.c: the next packet waits wire bytes / rate
 *   after the last one). Like Linux it takes max(cwnd, packets out), the flow's packets
 *   out standing for the connection's.
 */
#include "pkt_int.h"

#include <math.h>
#include <string.h>

/* ---- the law ---------------------------------------------------------------------- */

void
ft__pk_tcp_init(struct pk_tcp *c, double rwnd)
{
	memset(c, 0, sizeof(*c));
	c->cwnd = PK_TCP_IW;
	c->ssthresh = INFINITY; /* RFC 5681 3.1: arbitrarily high at first */
	c->rwnd = rwnd;
	c->rec_flow = c->rtx_flow = c->timed_flow = c->max_flow = c->sb_flow = PK_NONE;
	c->rcv_quick = PK_TCP_QUICKACKS;
	c->rcv_dl_flow = PK_NONE;
	c->min_rtt_ps = UINT64_MAX;
	c->rto_min_ps = s_to_ps(0.2); /* TCP_RTO_MIN (the engine's: tcp_rto_min_ps) */
	c->tlp_flow = c->tlp_force = PK_NONE;
}

double
ft__pk_cubic_k(double w_max, double cwnd_epoch)
{
	/* RFC 9438 4.2, equation 2: the time the cubic takes back to W_max */
	return w_max > cwnd_epoch ? cbrt((w_max - cwnd_epoch) / PK_CUBIC_C) : 0;
}

double
ft__pk_cubic_w(const struct pk_tcp *c, double t_s)
{
	double d = t_s - c->k_s;

	return PK_CUBIC_C * d * d * d + c->w_max; /* RFC 9438 4.2, equation 1 */
}

/* Congestion avoidance (RFC 9438 4.2-4.5): @n packets newly acknowledged at @now_ps,
 * round trip @rtt_s. */
static void
cubic_avoid(struct pk_tcp *c, double n, uint64_t now_ps, double rtt_s)
{
	double t, target, alpha;

	if (!c->epoch) {
		/* A congestion avoidance stage starts (4.2): its epoch, K from where the
		 * window is now, the Reno estimate from there (4.3). With no congestion
		 * event yet, W_max is the window now: the cubic starts flat. */
		c->epoch = true;
		c->t_epoch_ps = now_ps;
		if (c->w_max < c->cwnd)
			c->w_max = c->cwnd;
		c->k_s = ft__pk_cubic_k(c->w_max, c->cwnd);
		c->w_est = c->cwnd;
	}
	t = (double)(now_ps - c->t_epoch_ps) / PK_PS_PER_S;
	/* 4.3: alpha 3 (1 - beta) / (1 + beta) packets per round trip while the Reno
	 * estimate is below the window before the last cut (cwnd_prior), 1 after (and
	 * before any cut) */
	alpha = c->prior > 0 && c->w_est >= c->prior ?
	                1 :
	                3 * (1 - PK_CUBIC_BETA) / (1 + PK_CUBIC_BETA);
	c->w_est += alpha * n / c->cwnd;
	if (ft__pk_cubic_w(c, t) < c->w_est) {
		c->cwnd = c->w_est; /* 4.3: the Reno-friendly region */
		return;
	}
	/* 4.4, 4.5: towards W_cubic(t + RTT), at most 1.5 x cwnd, one step per packet */
	target = ft__pk_cubic_w(c, t + rtt_s);
	target = FT_MIN(FT_MAX(target, c->cwnd), 1.5 * c->cwnd);
	c->cwnd += (target - c->cwnd) / c->cwnd * n;
}

void
ft__pk_tcp_grow(struct pk_tcp *c, uint32_t acked, uint64_t now_ps, double rtt_s)
{
	double n = acked;

	if (c->cwnd >= c->rwnd)
		return; /* not limited by its window: Linux grows it no further
		         * (tcp_is_cwnd_limited()) */
	if (c->cwnd < c->ssthresh) {
		/* slow start (RFC 5681 3.1): one packet per packet acknowledged (Linux counts
		 * what a stretched ACK covers, RFC 3465 without its limit), up to ssthresh;
		 * the rest goes on in congestion avoidance */
		double ss = FT_MIN(n, c->ssthresh - c->cwnd);

		c->cwnd += ss;
		n -= ss;
	}
	if (n > 0)
		cubic_avoid(c, n, now_ps, rtt_s);
	c->cwnd = FT_MIN(c->cwnd, c->rwnd);
}

void
ft__pk_tcp_cut(struct pk_tcp *c)
{
	/* RFC 9438 4.6 (multiplicative decrease) and 4.7 (fast convergence): a window
	 * lost below the last W_max gives up a further share of it */
	c->prior = c->cwnd;
	if (c->epoch && c->cwnd < c->w_max)
		c->w_max = c->cwnd * (1 + PK_CUBIC_BETA) / 2;
	else
		c->w_max = c->cwnd;
	c->ssthresh = FT_MAX(c->cwnd * PK_CUBIC_BETA, 2.0);
	c->epoch = false;
}

void
ft__pk_tcp_prr_start(struct pk_tcp *c)
{
	/* Linux's tcp_init_cwnd_reduction(): cwnd itself is left as it was */
	c->prr_delivered = 0;
	c->prr_out = 0;
}

void
ft__pk_tcp_prr(struct pk_tcp *c, uint32_t pipe, uint32_t delivered, uint32_t newly_lost,
               bool una_moved)
{
	/* RFC 6937 3 as Linux's tcp_cwnd_reduction() (net/ipv4/tcp_input.c, since v5.12) does
	 * it, in whole packets (Linux's snd_ssthresh and prior_cwnd are integers): while the
	 * pipe is above ssthresh, the sends follow the deliveries in the ratio
	 * ssthresh / prior cwnd, ceil(ssthresh x prr_delivered / prior) - prr_out in all;
	 * at or below it, the slow-start reduction bound lets out what was delivered (at
	 * least what this ACK delivered), one more when the ACK moved snd_una and found no
	 * new loss, never past ssthresh; the first ACK of a recovery sends at least one (the
	 * fast retransmit). */
	int64_t ssth = (int64_t)c->ssthresh, prior = FT_MAX((int64_t)c->prior, (int64_t)1);
	int64_t delta = ssth - (int64_t)pipe, snd;

	if (!delivered)
		return;
	c->prr_delivered += delivered;
	if (delta < 0) {
		snd = (ssth * c->prr_delivered + prior - 1) / prior - c->prr_out;
	} else {
		snd = FT_MAX((int64_t)c->prr_delivered - c->prr_out, (int64_t)delivered);
		if (una_moved && !newly_lost)
			snd++;
		snd = FT_MIN(delta, snd);
	}
	snd = FT_MAX(snd, c->prr_out ? (int64_t)0 : (int64_t)1);
	c->cwnd = (double)FT_MAX((int64_t)pipe + snd, (int64_t)1);
}

uint64_t
ft__pk_tcp_rto_ps(const struct pk_tcp *c, uint32_t backoff)
{
	/* Linux's __tcp_set_rto(): SRTT plus rttvar, which the estimator keeps at least
	 * TCP_RTO_MIN (ft__pk_tcp_rtt()), in jiffies rounded up (usecs_to_jiffies()); 1 s
	 * (TCP_TIMEOUT_INIT) before a sample. RFC 6298 2.3 would add 4 RTTVAR and then
	 * floor the sum at the minimum: at a data-centre round trip Linux's is the floor
	 * plus SRTT, one jiffy more once rounded. tcp_retransmit_timer() doubles it per
	 * timeout, at most TCP_RTO_MAX (120 s). */
	const uint64_t j = s_to_ps(PK_TCP_JIFFY_S), max = s_to_ps(120.0);
	uint64_t r = c->srtt_ps ? c->srtt_ps + c->rttvar_ps : s_to_ps(1.0);

	r = (r + j - 1) / j * j;
	for (uint32_t i = 0; i < backoff && r < max; i++)
		r *= 2;
	return FT_MIN(r, max);
}

uint64_t
ft__pk_tcp_give_up_ps(uint32_t retries)
{
	/* Linux's tcp_model_timeout() (net/ipv4/tcp_timer.c): the time @retries timeouts
	 * take from TCP_RTO_MIN (200 ms) doubling up to TCP_RTO_MAX (120 s), the timeout
	 * retransmits_timed_out() gives a connection whatever its own RTO: the doublings up
	 * to the last below TCP_RTO_MAX (ilog2(120 s / 200 ms) = 9), then TCP_RTO_MAX each.
	 * tcp_retries2 = 15: (2^10 - 1) x 200 ms + 6 x 120 s = 924.6 s. */
	const uint64_t min = s_to_ps(0.2), max = s_to_ps(120.0);
	uint32_t thresh = 0;

	while ((min << (thresh + 1)) <= max)
		thresh++;
	if (retries <= thresh)
		return ((UINT64_C(2) << retries) - 1) * min;
	return ((UINT64_C(2) << thresh) - 1) * min + (uint64_t)(retries - thresh) * max;
}

void
ft__pk_tcp_rtt(struct pk_tcp *c, uint64_t r_ps)
{
	/* Linux's tcp_rtt_estimator() (net/ipv4/tcp_input.c) in picoseconds: SRTT moves an
	 * eighth of the way to the sample; mdev (four times the mean deviation) a quarter of
	 * the way to four times the error, an eighth of that when the sample is below SRTT
	 * (a falling round trip barely widens it); rttvar follows the round trip's highest
	 * mdev up at once and decays a quarter of the gap per round trip, never below the
	 * floor. The first sample sets SRTT to it, mdev to twice it (RTO = 3 RTT, RFC 6298
	 * 2.2's RTTVAR = R / 2). The engine times one packet per round trip (Karn's rule),
	 * so each sample ends a round (Linux's rtt_seq test). */
	uint64_t floor = c->rto_min_ps;

	c->min_rtt_ps = FT_MIN(c->min_rtt_ps, r_ps);
	if (!c->srtt_ps) {
		c->srtt_ps = FT_MAX(r_ps, (uint64_t)1);
		c->mdev_ps = 2 * r_ps;
		c->rttvar_ps = FT_MAX(c->mdev_ps, floor);
		c->mdev_max_ps = c->rttvar_ps;
		return;
	}
	{
		int64_t err = (int64_t)r_ps - (int64_t)c->srtt_ps;
		int64_t m = err < 0 ? -err : err;

		m -= (int64_t)(c->mdev_ps / 4);
		if (err < 0 && m > 0)
			m /= 8;
		c->mdev_ps = (uint64_t)((int64_t)c->mdev_ps + m);
		c->srtt_ps = FT_MAX((7 * c->srtt_ps + r_ps) / 8, (uint64_t)1);
	}
	if (c->mdev_ps > c->mdev_max_ps) {
		c->mdev_max_ps = c->mdev_ps;
		c->rttvar_ps = FT_MAX(c->rttvar_ps, c->mdev_max_ps);
	}
	/* the round ends: rttvar a quarter of the way down to its highest mdev */
	if (c->mdev_max_ps < c->rttvar_ps)
		c->rttvar_ps -= (c->rttvar_ps - c->mdev_max_ps) / 4;
	c->mdev_max_ps = floor;
}

/* ---- connections ------------------------------------------------------------------- */

static uint64_t
conn_key(const struct pk_flow *f)
{
	return (uint64_t)f->src << 40 ^ (uint64_t)f->dst << 16 ^ (uint64_t)(f->qp / 1024) ^
	       (uint64_t)1 << 63;
}

static uint64_t
key_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= UINT64_C(0xff51afd7ed558ccd);
	k ^= k >> 33;
	return k;
}

static int
conn_grow(struct pk_engine *e)
{
	uint32_t cap = e->tcp_cap ? 2 * e->tcp_cap : 64;
	struct pk_tcp *n = ft_calloc(cap, sizeof(*n)), *o = e->tcp_conns;

	if (!n)
		return FT_ENOMEM;
	for (uint32_t i = 0; i < e->tcp_cap; i++) {
		uint32_t j;

		if (!o[i].key)
			continue;
		for (j = (uint32_t)key_hash(o[i].key) & (cap - 1); n[j].key;
		     j = (j + 1) & (cap - 1))
			;
		n[j] = o[i];
	}
	ft_free(o);
	e->tcp_conns = n;
	e->tcp_cap = cap;
	return 0;
}

struct pk_tcp *
ft__pk_tcp_conn(struct pk_engine *e, const struct pk_flow *f)
{
	uint64_t k = conn_key(f);
	uint32_t j;

	if (e->tcp_cap) {
		for (j = (uint32_t)key_hash(k) & (e->tcp_cap - 1); e->tcp_conns[j].key;
		     j = (j + 1) & (e->tcp_cap - 1))
			if (e->tcp_conns[j].key == k)
				return &e->tcp_conns[j];
	}
	if (2 * (e->tcp_n + 1) > e->tcp_cap && conn_grow(e) < 0)
		return NULL;
	for (j = (uint32_t)key_hash(k) & (e->tcp_cap - 1); e->tcp_conns[j].key;
	     j = (j + 1) & (e->tcp_cap - 1))
		;
	ft__pk_tcp_init(&e->tcp_conns[j], e->wnd_pkts);
	if (e->tcp_rto_min_ps)
		e->tcp_conns[j].rto_min_ps = e->tcp_rto_min_ps;
	/* the connection's handshake measured its round trip before any data (RFC 6298
	 * 2.2's first sample): the path's latency both ways */
	ft__pk_tcp_rtt(&e->tcp_conns[j], 2 * f->lat_ps);
	/* the receiving end's RTO (its quick-ACK re-entry, ft__pk_tcp_rx()): that sample's
	 * alone, the passive side timing nothing after it */
	e->tcp_conns[j].rcv_rto_ps = ft__pk_tcp_rto_ps(&e->tcp_conns[j], 0);
	e->tcp_conns[j].key = k;
	e->tcp_n++;
	return &e->tcp_conns[j];
}

uint32_t
ft__pk_tcp_wnd(const struct pk_tcp *c)
{
	double w = FT_MIN(c->cwnd + c->inflate, c->rwnd);

	return w < 1 ? 1 : (uint32_t)w;
}

/* ---- SACK: the sender's scoreboard ---------------------------------------------------- */

static inline bool
sb_has(const struct pk_tcp *c, uint32_t s)
{
	return s / 64 < c->sb_words && (c->sb[s / 64] >> (s % 64) & 1);
}

/* Flow @f's RACK slot of packet @s, NULL where it keeps none (no SACK, or out of the
 * ring's reach of snd_una) */
static inline struct pk_seg *
seg_of(const struct pk_rack *r, const struct pk_flow *f, uint32_t s)
{
	if (!r || s < f->snd_una || s - f->snd_una > r->mask)
		return NULL;
	return (struct pk_seg *)&r->seg[s & r->mask];
}

/* Packet @s's marks dropped: SACKed, or acknowledged */
static void
seg_clear(struct pk_rack *r, const struct pk_flow *f, uint32_t s)
{
	struct pk_seg *g = seg_of(r, f, s);

	if (!g)
		return;
	if (g->st & PK_SEG_LOST)
		r->lost_out--;
	if (g->st & PK_SEG_RTX)
		r->rtx_out--;
	g->st &= PK_SEG_EVER; /* (whether it was resent: RACK's ambiguity test still reads it) */
}

void
ft__pk_tcp_sack_reset(struct pk_tcp *c, struct pk_rack *r)
{
	if (c->sb)
		memset(c->sb, 0, (size_t)c->sb_words * sizeof(*c->sb));
	c->sb_flow = PK_NONE;
	c->sacked = 0;
	c->rec_sack = false;
	if (r) {
		for (uint32_t i = 0; i <= r->mask; i++)
			r->seg[i].st &= PK_SEG_EVER;
		r->lost_out = r->rtx_out = 0;
		r->lost_lo = 0;
	}
}

int
ft__pk_tcp_sack_mark(struct pk_tcp *c, uint32_t fid, struct pk_rack *r, const struct pk_flow *f,
                     uint32_t seq)
{
	uint32_t words = (f->npkts + 63) / 64;

	if (seq < f->snd_una || seq >= f->npkts)
		return 0;
	if (c->sb_flow != fid) {
		/* one scoreboard per connection: another flow's holes keep it (this flow's
		 * duplicate ACKs then count as NewReno's) */
		if (c->sb_flow != PK_NONE && (c->sacked || c->rec_sack))
			return 0;
		c->sb_flow = fid;
		c->sacked = 0;
	}
	if (words > c->sb_words) {
		uint64_t *n = ft_reallocarray(c->sb, words, sizeof(*n));

		if (!n)
			return FT_ENOMEM;
		memset(n + c->sb_words, 0, (size_t)(words - c->sb_words) * sizeof(*n));
		c->sb = n;
		c->sb_words = words;
	}
	if (sb_has(c, seq))
		return 0;
	c->sb[seq / 64] |= UINT64_C(1) << (seq % 64);
	c->sacked++;
	/* (Linux's tcp_sacktag_one(): a SACKed packet is neither lost nor a resend out) */
	seg_clear(r, f, seq);
	return 1;
}

void
ft__pk_tcp_sack_advance(struct pk_tcp *c, uint32_t fid, struct pk_rack *r, const struct pk_flow *f,
                        uint32_t to)
{
	for (uint32_t s = f->snd_una; r && s < to; s++)
		seg_clear(r, f, s);
	if (c->sb_flow != fid || !c->sacked)
		return;
	for (uint32_t s = f->snd_una; s < to; s++) {
		if (sb_has(c, s)) {
			c->sb[s / 64] &= ~(UINT64_C(1) << (s % 64));
			c->sacked--;
		}
	}
}

uint32_t
ft__pk_tcp_sack_next(const struct pk_rack *r, const struct pk_flow *f, uint32_t snd_max)
{
	if (!r || r->lost_out <= r->rtx_out)
		return PK_NONE;
	for (uint32_t s = FT_MAX(r->lost_lo, f->snd_una); s < snd_max; s++) {
		const struct pk_seg *g = seg_of(r, f, s);

		if (!g)
			break;
		if ((g->st & (PK_SEG_LOST | PK_SEG_RTX)) == PK_SEG_LOST)
			return s;
	}
	return PK_NONE;
}

uint32_t
ft__pk_tcp_pipe(const struct pk_tcp *c, uint32_t fid, const struct pk_rack *r,
                const struct pk_flow *f, uint32_t snd_max)
{
	/* RFC 6675's SetPipe with RACK's marks (Linux's tcp_packets_in_flight()): the
	 * packets out, less those SACKed and those marked lost, plus the lost ones resent */
	uint32_t out = snd_max > f->snd_una ? snd_max - f->snd_una : 0;
	uint32_t gone = (c->sb_flow == fid ? c->sacked : 0) + (r ? r->lost_out : 0);

	return (out > gone ? out - gone : 0) + (r ? r->rtx_out : 0);
}

/* ---- RACK: loss by time (RFC 8985, Linux's tcp_recovery.c) ------------------------------ */

int
ft__pk_tcp_rack_sent(struct pk_tcp *c, struct pk_rack **rp, const struct pk_flow *f, uint32_t seq,
                     uint64_t now_ps, bool again, bool rtx)
{
	struct pk_rack *r = *rp;
	struct pk_seg *g;

	if (!r) {
		/* a ring above the receive window (what may be out past snd_una) */
		uint32_t n = 1, want = (uint32_t)FT_MIN(c->rwnd + 1, (double)f->npkts);

		while (n < want)
			n *= 2;
		r = ft_calloc(1, sizeof(*r) + (size_t)n * sizeof(struct pk_seg));
		if (!r)
			return FT_ENOMEM;
		r->mask = n - 1;
		r->end_seq = PK_NONE;
		r->t_start_ps = f->t_start_ps;
		*rp = r;
	}
	g = seg_of(r, f, seq);
	if (!g)
		return 0;
	if (!again)
		g->st = 0; /* (a slot a packet before it left) */
	g->tx_ps = now_ps;
	if (again)
		g->st |= PK_SEG_EVER;
	if (rtx && (g->st & (PK_SEG_LOST | PK_SEG_RTX)) == PK_SEG_LOST) {
		g->st |= PK_SEG_RTX;
		r->rtx_out++;
		r->lost_lo = seq + 1;
	}
	return 0;
}

void
ft__pk_tcp_rack_free(struct pk_rack **rp)
{
	ft_free(*rp);
	*rp = NULL;
}

/* RACK's order of departures (tcp_rack_sent_after()): @t1 after @t2, or at the same time
 * with a higher sequence */
static inline bool
sent_after(uint64_t t1, uint64_t t2, uint32_t s1, uint32_t s2)
{
	return t1 > t2 || (t1 == t2 && s1 > s2);
}

void
ft__pk_tcp_rack_deliver(struct pk_tcp *c, struct pk_rack *r, const struct pk_flow *f, uint32_t seq,
                        uint64_t now_ps)
{
	const struct pk_seg *g = seg_of(r, f, seq);
	uint64_t rtt;

	if (!g)
		return;
	rtt = now_ps - g->tx_ps;
	if (g->st & PK_SEG_EVER) {
		/* which copy arrived is ambiguous: a resend's round trip counts only from
		 * min_rtt up (tcp_rack_advance()) */
		if (rtt < c->min_rtt_ps)
			return;
	} else if (rtt < c->min_rtt_ps) {
		c->min_rtt_ps = rtt; /* (Linux's tcp_update_rtt_min(), from the same ACK) */
	}
	/* RACK.rtt from every delivery; RACK.xmit_ts and .end_seq only from one that left
	 * after the packet they name (tcp_rack_advance(), RFC 8985 6.2 step 2) */
	r->rtt_ps = rtt;
	r->advanced = true;
	if (r->end_seq == PK_NONE || sent_after(g->tx_ps, r->xmit_ps, seq, r->end_seq)) {
		r->xmit_ps = g->tx_ps;
		r->end_seq = seq;
	}
}

void
ft__pk_tcp_rack_ack(struct pk_tcp *c, uint32_t fid, struct pk_rack *r, const struct pk_flow *f,
                    uint32_t to, uint64_t now_ps)
{
	/* a packet SACKed before was delivered then (tcp_clean_rtx_queue() skips
	 * TCPCB_SACKED_ACKED) */
	for (uint32_t s = f->snd_una; r && s < to; s++)
		if (c->sb_flow != fid || !sb_has(c, s))
			ft__pk_tcp_rack_deliver(c, r, f, s, now_ps);
}

uint64_t
ft__pk_tcp_reo_wnd_ps(const struct pk_tcp *c, bool recovery, uint32_t sacked)
{
	/* tcp_rack_reo_wnd() with no reordering seen (reord_seen: the engine's TCP runs one
	 * path through FIFO queues, so none is): none in recovery or once PK_TCP_REORDERING
	 * packets are SACKed (RFC 8985 6.2's DupThresh rule), else a quarter of min_rtt (one
	 * step: D-SACKs widen it only after reordering, ft__pk_tcp_dsack()), at most SRTT */
	if (recovery || sacked >= PK_TCP_REORDERING)
		return 0;
	return FT_MIN(c->min_rtt_ps / 4, c->srtt_ps);
}

void
ft__pk_tcp_counters(const struct pk_engine *e, uint64_t *v)
{
	memset(v, 0, PK_TCP_NCTR * sizeof(*v));
	for (uint32_t k = 0; k < e->tcp_cap; k++) {
		const struct pk_tcp *t = &e->tcp_conns[k];

		if (!t->key)
			continue;
		v[PK_TCP_CTR_TLP] += t->ntlp;
		v[PK_TCP_CTR_TLP_REC] += t->ntlp_rec;
		v[PK_TCP_CTR_REO] += t->nreo;
		v[PK_TCP_CTR_LOST_RTX] += t->nlost_rtx;
		v[PK_TCP_CTR_DSACK] += t->ndsack;
	}
}

int
ft__pk_tcp_held_add(struct pk_tcp *c, uint32_t fid)
{
	if (c->nheld == c->held_cap) {
		uint32_t cap = c->held_cap ? 2 * c->held_cap : 8;
		uint32_t *v = ft_reallocarray(c->held, cap, sizeof(*v));

		if (!v)
			return FT_ENOMEM;
		c->held = v;
		c->held_cap = cap;
	}
	c->held[c->nheld++] = fid;
	return 0;
}

static int
fid_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

uint32_t
ft__pk_tcp_held_sort(struct pk_tcp *c)
{
	uint32_t n = 0;

	if (c->nheld > 1)
		qsort(c->held, c->nheld, sizeof(*c->held), fid_cmp);
	for (uint32_t k = 0; k < c->nheld; k++)
		if (!n || c->held[n - 1] != c->held[k])
			c->held[n++] = c->held[k];
	return c->nheld = n;
}

void
ft__pk_tcp_dsack(struct pk_tcp *c)
{
	/* tcp_check_dsack() counts it (TCPDSACKRecv). tcp_dsack_seen() sets rack.dsack_seen,
	 * which widens RACK's reordering window (tcp_rack_update_reo_wnd(),
	 * net/ipv4/tcp_recovery.c), only when tp->reord_seen is set and the D-SACK is not
	 * for the tail-loss probe's copy (FLAG_DSACK_TLP): a D-SACK after a spurious
	 * timeout or probe says nothing of reordering. The engine's TCP runs one path
	 * through FIFO queues, so reord_seen is never set and the window stays one step. */
	c->ndsack++;
}

uint64_t
ft__pk_tcp_pto_ps(const struct pk_tcp *c, uint32_t out, uint64_t rto_ps)
{
	/* tcp_schedule_loss_probe() (net/ipv4/tcp_output.c): twice SRTT, with one packet out
	 * the floor more (its ACK may wait for the receiver's delayed-ACK timer), else
	 * TCP_TIMEOUT_MIN more (timer slack), in whole jiffies; TCP_TIMEOUT_INIT (1 s) before
	 * a sample; never later than the RTO (RFC 8985 7.2) */
	const uint64_t j = s_to_ps(PK_TCP_JIFFY_S);
	uint64_t pto;

	if (!c->srtt_ps)
		return FT_MIN(s_to_ps(1.0), rto_ps);
	pto = 2 * c->srtt_ps + (out == 1 ? c->rto_min_ps : PK_TCP_TIMEOUT_MIN_J * j);
	pto = (pto + j - 1) / j * j;
	return FT_MIN(pto, rto_ps);
}

int
ft__pk_tcp_tlp_ack(struct pk_tcp *c, uint32_t fid, uint32_t ack, bool dsack)
{
	/* tcp_process_tlp_ack() (net/ipv4/tcp_input.c): the episode ends at an ACK that
	 * covers what was out when the probe left. A probe of new data, or a resend that a
	 * D-SACK shows arrived twice (FLAG_DSACK_TLP), mended nothing; a resend with no
	 * D-SACK did (TCPLossProbeRecovery: Linux then cuts the window once, CWR). Linux
	 * waits for an ACK past tlp_high_seq, which comes with the next data the connection
	 * sends; here a flow's last ACK ends its episode, the next message being another
	 * flow. */
	if (c->tlp_flow != fid || ack < c->tlp_high)
		return 0;
	c->tlp_flow = PK_NONE;
	return c->tlp_rtx && !dsack;
}

uint64_t
ft__pk_tcp_rack_detect(struct pk_tcp *c, struct pk_rack *r, uint32_t fid, const struct pk_flow *f,
                       uint32_t snd_max, uint64_t now_ps, uint64_t reo_ps)
{
	uint64_t wait = 0;

	if (!r || r->end_seq == PK_NONE)
		return 0;
	for (uint32_t s = f->snd_una; s < snd_max; s++) {
		struct pk_seg *g = seg_of(r, f, s);
		uint64_t due;

		if (!g)
			break;
		if ((c->sb_flow == fid && sb_has(c, s)) ||
		    (g->st & (PK_SEG_LOST | PK_SEG_RTX)) == PK_SEG_LOST)
			continue; /* delivered, or lost and not resent yet */
		if (!sent_after(r->xmit_ps, g->tx_ps, r->end_seq, s)) {
			/* left after RACK's packet: so did every later first send, and every
			 * resend of a later packet; only a resend below may still be older */
			if (!(g->st & PK_SEG_EVER))
				break;
			continue;
		}
		/* lost once RACK.rtt + reo_wnd has passed since it left (RFC 8985 6.2) */
		due = g->tx_ps + r->rtt_ps + reo_ps;
		if (due <= now_ps) {
			if (!(g->st & PK_SEG_LOST))
				r->lost_out++;
			if (g->st & PK_SEG_RTX) {
				r->rtx_out--; /* a resend lost again (tcp_mark_skb_lost()) */
				c->nlost_rtx++;
			}
			g->st = (g->st | PK_SEG_LOST) & ~PK_SEG_RTX;
			r->lost_lo = FT_MIN(r->lost_lo, s);
		} else {
			wait = FT_MAX(wait, due - now_ps);
		}
	}
	return wait;
}

uint64_t
ft__pk_tcp_reo_timer_ps(uint64_t wait_ps)
{
	/* tcp_rack_mark_lost(): usecs_to_jiffies() rounds up, TCP_TIMEOUT_MIN more */
	const uint64_t j = s_to_ps(PK_TCP_JIFFY_S);

	return ((wait_ps + j - 1) / j + PK_TCP_TIMEOUT_MIN_J) * j;
}

bool
ft__pk_tcp_full(const struct pk_tcp *c, uint32_t fid, const struct pk_rack *r,
                const struct pk_flow *f)
{
	uint32_t out = pk_flow_out(f);

	if (c->rec_sack && c->rec_flow == fid) {
		uint32_t snd_max = pk_tcp_snd_max(c, fid, f);

		return (double)ft__pk_tcp_pipe(c, fid, r, f, snd_max) >= FT_MAX(c->cwnd, 1.0) ||
		       out >= c->rwnd;
	}
	return out >= ft__pk_tcp_wnd(c);
}

void
ft__pk_tcp_free(struct pk_engine *e)
{
	for (uint32_t i = 0; i < e->tcp_cap; i++) {
		ft_free(e->tcp_conns[i].sb);
		ft_free(e->tcp_conns[i].held);
	}
	for (uint32_t i = 0; i < e->tcp_nrack; i++)
		ft_free(e->tcp_rack[i]);
	ft_free(e->tcp_rack);
}

struct pk_rack *
ft__pk_tcp_rack_of(struct pk_engine *e, uint32_t fid)
{
	struct pk_rack *r = fid < e->tcp_nrack ? e->tcp_rack[fid] : NULL;

	if (r && r->t_start_ps != flow_at(e, fid)->t_start_ps)
		ft__pk_tcp_rack_free(&e->tcp_rack[fid]); /* a reused record's last flow's */
	return fid < e->tcp_nrack ? e->tcp_rack[fid] : NULL;
}

struct pk_rack **
ft__pk_tcp_rack_slot(struct pk_engine *e, uint32_t fid)
{
	if (fid >= e->tcp_nrack) {
		uint32_t n = FT_MAX(fid + 1, 2 * e->tcp_nrack);
		struct pk_rack **v = ft_reallocarray(e->tcp_rack, n, sizeof(*v));

		if (!v)
			return NULL;
		memset(v + e->tcp_nrack, 0, (size_t)(n - e->tcp_nrack) * sizeof(*v));
		e->tcp_rack = v;
		e->tcp_nrack = n;
	}
	(void)ft__pk_tcp_rack_of(e, fid);
	return &e->tcp_rack[fid];
}

void
ft__pk_tcp_rack_drop(struct pk_engine *e, uint32_t fid)
{
	if (fid < e->tcp_nrack)
		ft__pk_tcp_rack_free(&e->tcp_rack[fid]);
}

/* ---- pacing --------------------------------------------------------------------------- */

double
ft__pk_tcp_pace_Bps(const struct pk_tcp *c, double wire, uint32_t out)
{
	/* tcp_update_pacing_rate(): max(cwnd, packets_out) MSS per SRTT, so that a window
	 * cut in recovery leaves the packets still out their pace */
	double ratio = c->cwnd < c->ssthresh / 2 ? PK_TCP_PACE_SS : PK_TCP_PACE_CA;

	if (!c->srtt_ps)
		return INFINITY;
	return ratio / 100 * FT_MAX(FT_MAX(c->cwnd, (double)out), 1.0) * wire /
	       ((double)c->srtt_ps / PK_PS_PER_S);
}

void
ft__pk_tcp_pace(struct pk_engine *e, const struct pk_tcp *c, struct pk_flow *f)
{
	struct pk_dcqcn *d = pk_flow_cc(e, f);
	/* a full packet on the wire of its NIC (what the limiter meters, ft__pk_dcqcn_sent) */
	double wire = e->mtu + (f->nic_link != PK_NONE ? pk_port_at(e, f->nic_link)->hdr : e->hdr);
	double r =
	        ft__pk_tcp_pace_Bps(c, wire, pk_flow_out(f));

	d->limited = r < e->line_Bps;
	d->rc_Bps = d->limited ? r : e->line_Bps;
}

/* ---- the receiver's ACKs ---------------------------------------------------------------- */

int
ft__pk_tcp_rx(struct pk_engine *e, uint32_t fid, uint32_t seq, uint32_t before, bool dup)
{
	struct pk_flow *f = flow_at(e, fid);
	uint64_t back = e->now_ps + f->lat_ps;
	bool flags = f->npkts <= PK_ACK_SEQ;
	struct pk_tcp *c = NULL;
	uint32_t acked;
	int rc;

	if (e->tcp_delack && flags) {
		c = ft__pk_tcp_conn(e, f);
		if (!c)
			return FT_ENOMEM;
		if (c->rcv_dl_flow == fid && e->now_ps >= c->rcv_dl_ps) {
			/* its delayed-ACK timer fired meanwhile (its ACK is on its way) */
			f->nak_for = c->rcv_dl_seq;
			c->rcv_dl_flow = PK_NONE;
		}
	}
	if (c && !dup && seq == before) {
		/* Linux's tcp_event_data_recv() (net/ipv4/tcp_input.c): data in order after a
		 * silence longer than the receiver's RTO (icsk_rto; lrcvtime, refreshed by
		 * every packet in order) puts it back in quick-ACK mode (tcp_incr_quickack():
		 * min(rcv_wnd / 2 MSS, TCP_MAX_QUICKACKS), 16 here). The receiving end times
		 * nothing but the handshake: its RTO is the estimator's from that sample
		 * (rcv_rto_ps, ft__pk_tcp_conn()) */
		if (c->rcv_last_ps && e->now_ps - c->rcv_last_ps > c->rcv_rto_ps)
			c->rcv_quick = FT_MAX(c->rcv_quick, PK_TCP_QUICKACKS);
		c->rcv_last_ps = e->now_ps;
	}
	/* (TCP's receiver keeps its last cumulative ACK in nak_for, which go-back-N's NAK
	 * state is elsewhere; PK_NONE: none yet) */
	acked = f->nak_for == PK_NONE ? 0 : f->nak_for;
	if (c && !dup && seq == before) {
		/* In order. Alone (nothing else unacknowledged, no packet past a gap held)
		 * and out of quick-ACK mode: the delayed-ACK timer, armed now (a second packet
		 * before it fires draws the ACK). Else at once: in quick-ACK mode, the second
		 * of a pair, or one that fills a gap or part of one (packets past it held),
		 * which RFC 5681 4.2 acknowledges at once, as Linux's __tcp_ack_snd_check()
		 * does while its out-of-order queue is not empty (net/ipv4/tcp_input.c). Each
		 * ACK of new data sent at once spends a quick ACK (tcp_event_ack_sent() ->
		 * tcp_dec_quickack_mode(), net/ipv4/tcp_output.c) */
		if (!c->rcv_quick && f->rcv_nxt == before + 1 &&
		    f->rcv_nxt - acked < PK_TCP_ACK_SEG && !pk_rcv_ooo(f)) {
			c->rcv_dl_flow = fid;
			c->rcv_dl_ps = e->now_ps + e->tcp_delack_ps;
			c->rcv_dl_seq = f->rcv_nxt;
			return ft__pk_ev_flow(e, back + e->tcp_delack_ps, PK_EV_ACK, fid,
			                      f->rcv_nxt | PK_ACK_DELAY);
		}
		if (c->rcv_quick)
			c->rcv_quick--;
	}
	if (c && c->rcv_dl_flow == fid)
		c->rcv_dl_flow = PK_NONE; /* an ACK goes now: the timer stops */
	if (!dup && seq > before) {
		/* past a gap: at once (RFC 5681 4.2), after what in-order packets the timer
		 * held; with SACK naming the packet, else a duplicate ACK */
		if (before > acked && (rc = ft__pk_ev_flow(e, back, PK_EV_ACK, fid, before)) < 0)
			return rc;
		f->nak_for = before;
		return ft__pk_ev_flow(e, back, PK_EV_ACK, fid,
		                      e->tcp_sack && flags ? seq | PK_ACK_SACK : before);
	}
	f->nak_for = f->rcv_nxt;
	/* a duplicate's ACK carries a D-SACK block for it (RFC 2883; Linux's tcp_dsack_set()
	 * with net.ipv4.tcp_dsack 1): the sender learns it came twice */
	return ft__pk_ev_flow(e, back, PK_EV_ACK, fid,
	                      f->rcv_nxt | (dup && e->tcp_sack && flags ? PK_ACK_DSACK : 0));
}

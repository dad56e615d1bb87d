/* SPDX-License-Identifier: MIT */
/*
 * sim/pkt_tcp.c - TCP's sender for the GPUDirect-TCPX/O transport of the packet
 * engine: a congestion window per connection (CUBIC, RFC 9438, with RFC 5681's
 * slow start and RFC 6582's NewReno fast retransmit and fast recovery), and the
 * retransmit timer of RFC 6298 with Linux's floor. engine_packet.c calls in from
 * its sender (a packet sent, an ACK, a timeout); the functions on struct pk_tcp
 * alone are the law, which the unit tests drive by hand.
 *
 * Why CUBIC: it is Linux's default congestion control (net.ipv4.tcp_congestion_control),
 * and GPUDirect-TCPX/O runs over the host's (TCPX) or the NIC's offloaded (TCPXO) Linux
 * sockets with that default (docs/presets.md PS-TCPX). At data-centre round trips of a
 * few microseconds its cubic curve regrows over seconds (K below), so CUBIC runs in its
 * Reno-friendly region (RFC 9438 4.3): an AIMD with a cut to 0.7 and a growth of
 * 3 (1 - 0.7) / (1 + 0.7) packets per round trip.
 */
#include "pkt_int.h"

#include <math.h>

/* ---- the law ---------------------------------------------------------------------- */

void
ft__pk_tcp_init(struct pk_tcp *c, double rwnd)
{
	memset(c, 0, sizeof(*c));
	c->cwnd = PK_TCP_IW;
	c->ssthresh = INFINITY; /* RFC 5681 3.1: arbitrarily high at first */
	c->rwnd = rwnd;
	c->rec_flow = c->rtx_flow = c->timed_flow = c->max_flow = PK_NONE;
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

uint64_t
ft__pk_tcp_rto_ps(const struct pk_tcp *c, uint64_t min_ps, uint32_t backoff)
{
	/* RFC 6298 2.1-2.4: 1 s until a round trip is measured, then SRTT + 4 RTTVAR
	 * (the clock granularity G taken as 0: the engine's clock is the picosecond),
	 * at least min_ps (Linux's TCP_RTO_MIN, 200 ms); 5.5: doubled at each timeout in
	 * a row, at most 120 s (Linux's TCP_RTO_MAX) */
	uint64_t r = c->srtt_ps ? c->srtt_ps + 4 * c->rttvar_ps : s_to_ps(1.0);
	const uint64_t max = s_to_ps(120.0);

	r = FT_MAX(r, min_ps);
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
	/* RFC 6298 2.2, 2.3: alpha 1/8, beta 1/4 */
	if (!c->srtt_ps) {
		c->srtt_ps = FT_MAX(r_ps, (uint64_t)1);
		c->rttvar_ps = r_ps / 2;
		return;
	}
	{
		uint64_t d = c->srtt_ps > r_ps ? c->srtt_ps - r_ps : r_ps - c->srtt_ps;

		c->rttvar_ps = (3 * c->rttvar_ps + d) / 4;
		c->srtt_ps = FT_MAX((7 * c->srtt_ps + r_ps) / 8, (uint64_t)1);
	}
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
	/* the connection's handshake measured its round trip before any data (RFC 6298
	 * 2.2's first sample): the path's latency both ways */
	ft__pk_tcp_rtt(&e->tcp_conns[j], 2 * f->lat_ps);
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

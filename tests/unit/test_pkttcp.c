/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_pkttcp.c - the packet engine's TCP for GPUDirect-TCPX/O (pkt_tcp.c)
 * and SRD's tail-loss probe against closed forms: CUBIC's K and cut, the Reno-friendly
 * sawtooth's average, slow start's doublings, a window-bound flow's rate, a single loss
 * recovered by fast retransmit with no timeout, a lost tail by the timeout, RACK's
 * reordering window, timer and lost resends (by hand and on the wire), a recovery that
 * ends with packets marked lost started again at once, the receiver's quick ACKs (spent by
 * every in-order packet ACKed at once, back after a silence past its RTO), and SRD's lost
 * tail by the probe within a probe timeout and a round trip.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cmocka.h needs the headers above it. */
/* clang-format off */
#include <cmocka.h>
/* clang-format on */

#include <fabtune/fabtune.h>

#include "base/alloc_int.h"
#include "sim/pkt_int.h"
#include "spec/scenario.h"

#include "pk_net.h"

#define PS 1e12

/*
 * CUBIC by hand (RFC 9438): a cut at cwnd 100 gives W_max 100 and ssthresh 70 (beta
 * 0.7); a second cut below W_max (at 80) gives up more of it (fast convergence: W_max
 * 80 x 1.7 / 2 = 68). From the first cut, on a path of 100 ms round trip (where the cubic
 * grows faster than the Reno estimate), acknowledging a window per round trip, the window
 * is back at W_max about K = cbrt(W_max (1 - beta) / C) = cbrt(75) = 4.217 s later (the
 * step aims one round trip ahead: within two round trips).
 */
static void
test_cubic_k(void **state)
{
	struct pk_tcp c;
	const double rtt = 0.1, K = cbrt(100 * (1 - PK_CUBIC_BETA) / PK_CUBIC_C);
	double t = 0, t_back = -1;

	(void)state;
	ft__pk_tcp_init(&c, 1e9);
	assert_double_equal(c.cwnd, 10, 0);
	c.cwnd = 100;
	ft__pk_tcp_cut(&c);
	assert_double_equal(c.w_max, 100, 0);
	assert_double_equal(c.ssthresh, 70, 1e-12);
	assert_double_equal(ft__pk_cubic_k(100, 70), K, 1e-12);
	assert_double_equal(K, 4.2171633265, 1e-9);
	c.cwnd = c.ssthresh;
	for (int i = 0; i < 200 && t_back < 0; i++) {
		t += rtt;
		ft__pk_tcp_grow(&c, (uint32_t)c.cwnd, s_to_ps(t), rtt);
		if (c.cwnd >= 100)
			t_back = t - rtt; /* (the stage started at the first ACK, one rtt in) */
	}
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("cubic: back at W_max after %.3f s, K %.3f s\n", t_back, K);
	assert_true(c.epoch);
	assert_double_equal(c.k_s, K, 1e-12);
	assert_double_equal(t_back, K, 2 * rtt);
	/* fast convergence */
	c.cwnd = 80;
	ft__pk_tcp_cut(&c);
	assert_double_equal(c.w_max, 68, 1e-12);
	assert_double_equal(c.ssthresh, 56, 1e-12);
}

/*
 * The Reno-friendly region (RFC 9438 4.3): at a data-centre round trip (10 us) the cubic
 * stays flat for K ~ 4 s, so the window grows as the Reno estimate, alpha = 3 (1 - 0.7) /
 * 1.7 = 0.5294 packets per round trip, and is cut to 0.7 of W at each loss: a loss each
 * time it reaches W = 200 packets (a buffer that holds that) makes a sawtooth of period
 * 0.3 W / alpha = 113.3 round trips whose time average is (1 + 0.7) / 2 W = 0.85 W = 170
 * (Reno's 3/4 W with its beta of 0.5).
 */
static void
test_cubic_sawtooth(void **state)
{
	struct pk_tcp c;
	const double rtt = 10e-6, W = 200, alpha = 3 * (1 - PK_CUBIC_BETA) / (1 + PK_CUBIC_BETA);
	double t = 0, sum = 0, n = 0, csum = 0, cn = 0;
	int cuts = 0, first = -1, last = -1;

	(void)state;
	ft__pk_tcp_init(&c, 1e9);
	c.cwnd = W;
	ft__pk_tcp_cut(&c);
	c.cwnd = c.ssthresh;
	for (int i = 0; i < 20000; i++) {
		t += rtt;
		ft__pk_tcp_grow(&c, (uint32_t)c.cwnd, s_to_ps(t), rtt);
		csum += c.cwnd;
		cn++;
		if (c.cwnd >= W) {
			ft__pk_tcp_cut(&c);
			c.cwnd = c.ssthresh;
			cuts++;
			if (cuts == 2)
				first = i;
			last = i;
			if (cuts > 2) { /* whole periods, from the second cut on */
				sum += csum;
				n += cn;
			}
			csum = cn = 0;
		}
	}
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("sawtooth: %d cuts, period %.2f rtt, mean %.2f of W %g\n", cuts,
		              (double)(last - first) / (cuts - 2), sum / n, W);
	assert_true(cuts > 100);
	/* each epoch starts from 0.7 W, the Reno estimate from the window: the whole
	 * sawtooth, so the period and the mean to a packet's rounding */
	assert_double_equal((double)(last - first) / (cuts - 2), 0.3 * W / alpha, 1.5);
	assert_double_equal(sum / n / W, (1 + PK_CUBIC_BETA) / 2, 0.01);
}

/* Slow start by hand: a window per round trip acknowledged, from the initial window 10
 * (RFC 6928) the window doubles each round trip: it reaches W after ceil(log2(W / 10)). */
static void
test_slow_start_doublings(void **state)
{
	static const double targets[] = { 11, 20, 21, 100, 256, 1000, 4096 };

	(void)state;
	for (size_t k = 0; k < FT_ARRAY_SIZE(targets); k++) {
		struct pk_tcp c;
		int rounds = 0;

		ft__pk_tcp_init(&c, 1e9);
		while (c.cwnd < targets[k]) {
			ft__pk_tcp_grow(&c, (uint32_t)c.cwnd, s_to_ps(1e-5 * ++rounds), 1e-5);
			assert_false(c.epoch); /* no ssthresh yet: slow start throughout */
		}
		assert_int_equal(rounds, (int)ceil(log2(targets[k] / PK_TCP_IW)));
	}
}

/* Linux's timer by hand (tcp_rtt_estimator(), __tcp_set_rto()): 1 s before a sample; the
 * first sample R sets SRTT R, mdev 2R, so RTO = 3R; a sample below SRTT moves mdev an
 * eighth as far; rttvar decays a quarter of the way to the round's highest mdev; the
 * 200 ms floor plus SRTT at a data-centre round trip, rounded up to the jiffy; doubled
 * per timeout, at most 120 s. */
static void
test_tcp_rto(void **state)
{
	struct pk_tcp c;
	const uint64_t min = s_to_ps(0.2);

	(void)state;
	ft__pk_tcp_init(&c, 1e9);
	assert_int_equal(ft__pk_tcp_rto_ps(&c, 0), s_to_ps(1.0));
	ft__pk_tcp_rtt(&c, s_to_ps(1.0)); /* R = 1 s: 1 + 2 = 3 s */
	assert_int_equal(c.mdev_ps, s_to_ps(2.0));
	assert_int_equal(ft__pk_tcp_rto_ps(&c, 0), s_to_ps(3.0));
	/* R = 0.2 s, error -0.8 s: mdev += (0.8 - 2 / 4) / 8 = 0.0375, rttvar follows it up
	 * (RFC 6298 would give RTTVAR 0.575 s, RTO 0.9 + 2.3 = 3.2 s) */
	ft__pk_tcp_rtt(&c, s_to_ps(0.2));
	assert_int_equal(c.srtt_ps, s_to_ps(0.9));
	assert_int_equal(c.mdev_ps, s_to_ps(2.0375));
	assert_int_equal(c.rttvar_ps, s_to_ps(2.0375));
	assert_int_equal(c.mdev_max_ps, min);
	/* 2.9375 s: 2.938 s in jiffies */
	assert_int_equal(ft__pk_tcp_rto_ps(&c, 0), s_to_ps(2.938));
	/* R = SRTT: mdev loses a quarter (1.528125 s), rttvar a quarter of its gap to it:
	 * 2.0375 - 0.509375 / 4 = 1.91015625 s; 2.81015625 s rounds up to 2.811 s */
	ft__pk_tcp_rtt(&c, s_to_ps(0.9));
	assert_int_equal(c.mdev_ps, s_to_ps(1.528125));
	assert_int_equal(c.rttvar_ps, s_to_ps(1.91015625));
	assert_int_equal(ft__pk_tcp_rto_ps(&c, 0), s_to_ps(2.811));
	/* a data-centre round trip: the floor plus SRTT, 200.010 ms, is 201 jiffies */
	ft__pk_tcp_init(&c, 1e9);
	ft__pk_tcp_rtt(&c, s_to_ps(10e-6));
	assert_int_equal(c.rttvar_ps, min);
	assert_int_equal(ft__pk_tcp_rto_ps(&c, 0), s_to_ps(0.201));
	for (int i = 0; i < 50; i++)
		ft__pk_tcp_rtt(&c, s_to_ps(10e-6));
	assert_int_equal(c.rttvar_ps, min); /* never below the floor */
	assert_int_equal(ft__pk_tcp_rto_ps(&c, 3), 8 * s_to_ps(0.201));
	assert_int_equal(ft__pk_tcp_rto_ps(&c, 12), s_to_ps(120.0));
	/* a 1 ms floor (packet.retransmit_timeout): 1.010 ms rounds up to 2 ms */
	ft__pk_tcp_init(&c, 1e9);
	c.rto_min_ps = s_to_ps(1e-3);
	ft__pk_tcp_rtt(&c, s_to_ps(10e-6));
	assert_int_equal(ft__pk_tcp_rto_ps(&c, 0), s_to_ps(2e-3));
}

/* gcp-a3-mega:2 (TCPX) with @cable_s of cable latency per hop: NIC 0 of each node. */
static void
a3_pair(struct net *n, double cable_s, uint32_t *ends)
{
	struct ft_error err = { 0 };

	assert_int_equal(ft_spec_resolve("gcp-a3-mega:2", &n->spec, &err), 0);
	if (cable_s > 0)
		n->spec.fabric.lat_cable_s = cable_s;
	n->t = NULL;
	assert_int_equal(ft_topo_build(&n->spec, &n->t, &err), 0);
	ends[0] = ft_topo_nic(n->t, 0, 0);
	ends[1] = ft_topo_nic(n->t, 1, 0);
}

/* One flow of @npk packets, the packets listed in @lose lost at their first send; its
 * counters in @c, the engine. */
static struct ft_engine *
tcp_flow(const struct net *n, const uint32_t *ends, struct ft_packet_cfg *pc, uint32_t npk,
         const uint32_t *lose, uint32_t nlose, struct ft_sim_counters *c)
{
	struct ft_sim_cfg cfg;
	struct ft_schedule s;
	struct ft_error err = { 0 };
	struct ft_engine *e;
	struct pk_engine *pe;

	ft_sim_cfg_init(&cfg);
	cfg.packet = pc;
	e = submit_pairs(&ft_packet_engine, n, &cfg, ends, 1, (uint64_t)npk * 4096, &s);
	pe = ft_container_of(e, struct pk_engine, base);
	for (uint32_t i = 0; i < nlose; i++) {
		pe->lose[pe->nlose++] = 0;
		pe->lose[pe->nlose++] = lose[i];
	}
	if (ft_packet_engine.run(e, 0, &err) != 0)
		fail_msg("run: %s", err.msg);
	assert_int_equal(ft_packet_engine.counters(e, c, &err), 0);
	ft_schedule_release(&s);
	return e;
}

/* The lossless times a closed form is built from: the makespans of one flow of 1 packet
 * (@m1) and of @npk packets (@mn) under @pc, and the path's latency (@lat), seconds; the
 * @npk run's counters in @c. */
static void
clean_times(const struct net *n, const uint32_t *ends, struct ft_packet_cfg *pc, uint32_t npk,
            double *m1, double *mn, double *lat, struct ft_sim_counters *c)
{
	struct ft_engine *e = tcp_flow(n, ends, pc, 1, NULL, 0, c);

	*m1 = c->makespan_s;
	*lat = (double)((const struct pk_flow *)ft_vec_at(&pk(e)->flows, 0))->lat_ps / PS;
	ft_packet_engine.destroy(e);
	e = tcp_flow(n, ends, pc, npk, NULL, 0, c);
	*mn = c->makespan_s;
	ft_packet_engine.destroy(e);
}

/*
 * Slow start on the wire, unpaced (tcp_pacing off: the bursts are the point): on a path
 * whose round trip (2 x 4 cable hops of 20 us) dwarfs a window's serialisation, a flow of
 * 10 (2^r - 1) packets goes in r bursts of 10, 20, 40, ..., one round trip apart: it ends
 * the first r - 1 bursts' round trips after the first burst left, its last burst's
 * serialisation and a path latency later; one packet more takes a round trip more
 * (tcp_window 4 MiB, not reached). A burst's round trip is two path latencies and the
 * time its first ACK waits: one packet's serialisation when every packet is acknowledged
 * (delayed ACKs off, or the first 16 ACKs of quick-ACK mode: bursts 1 and 2, packets 0 to
 * 15), two with delayed ACKs (an ACK per two packets, from packet 16 on: bursts 3 on start
 * at an even packet, 30, 70, ...). Either way the window doubles per round trip (Linux
 * counts the packets an ACK covers). Then, once grown to a receive window of 64 packets
 * (tcp_window 256 KiB), the flow sends a window per round trip: 256 packets more take 4
 * round trips more, to 1 %, a rate of min(line rate, W / RTT).
 */
static void
test_tcp_slow_start_wire(void **state)
{
	struct net n;
	uint32_t ends[2];
	struct ft_packet_cfg pc = { .tcp_window_bytes = 1024 * 4096, .tcp_pacing = FT_PKT_OFF };
	struct ft_sim_counters c;
	struct ft_engine *e;
	double lat, T, rtt, want, fct[4];
	const struct pk_flow *f;

	(void)state;
	a3_pair(&n, 20e-6, ends);
	for (int delack = 0; delack < 2; delack++) {
		pc.tcp_delayed_ack = delack ? FT_PKT_ON : FT_PKT_OFF;
		for (int r = 1; r <= 5; r++) {
			uint32_t N = 10 * ((1u << r) - 1);

			for (int more = 0; more < 2; more++) {
				double start = 0; /* the last burst's */

				e = tcp_flow(&n, ends, &pc, N + (uint32_t)more, NULL, 0, &c);
				f = ft_vec_at(&pk(e)->flows, 0);
				lat = (double)f->lat_ps / PS;
				T = 4096 / pk(e)->line_Bps;
				for (int i = 1; i < r + more; i++) {
					uint32_t first = 10 * ((1u << (i - 1)) - 1);

					start += 2 * lat +
					         (delack && first >= PK_TCP_QUICKACKS ? 2 : 1) * T;
				}
				/* last burst: 10 x 2^(r-1) packets; one more packet, a round
				 * trip more */
				want = start + (more ? 1 : 10 * (1 << (r - 1))) * T + lat;
				if (getenv("FT_PKTTCP_PRINT"))
					print_message("slow start (delayed ACKs %s): %u packets in "
					              "%.3f us (closed form %.3f)\n",
					              delack ? "on" : "off", N + more,
					              c.makespan_s * 1e6, want * 1e6);
				assert_double_equal(c.makespan_s, want, T / 2);
				assert_int_equal(c.nretx, 0);
				ft_packet_engine.destroy(e);
			}
		}
	}
	/* window-bound: 64 packets per round trip */
	pc.tcp_window_bytes = 64 * 4096;
	for (int k = 0; k < 2; k++) {
		e = tcp_flow(&n, ends, &pc, 1024 + 256 * (uint32_t)k, NULL, 0, &c);
		fct[k] = c.makespan_s;
		f = ft_vec_at(&pk(e)->flows, 0);
		/* (an ACK per PK_TCP_ACK_SEG packets: delayed ACKs, on) */
		rtt = 2 * (double)f->lat_ps / PS + PK_TCP_ACK_SEG * 4096 / pk(e)->line_Bps;
		ft_packet_engine.destroy(e);
	}
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("window-bound: 256 packets more take %.3f us, 4 rtt %.3f us\n",
		              (fct[1] - fct[0]) * 1e6, 4 * rtt * 1e6);
	assert_double_equal((fct[1] - fct[0]) / (4 * rtt), 1, 0.01);
	ft_topo_free(n.t);
}

/* The engine's connection of flow 0. */
static const struct pk_tcp *
conn0(struct ft_engine *e)
{
	struct pk_engine *pe = ft_container_of(e, struct pk_engine, base);

	return ft__pk_tcp_conn(pe, ft_vec_at(&pe->flows, 0));
}

/*
 * Loss recovery on a lossy TCPX fabric (flow_control: none), one flow of 2,000 packets
 * (a few us of round trip; the window grows to tcp_window, 256 packets): packet 500 lost
 * is found by three duplicate ACKs (fast retransmit), resent once, and the flow ends
 * within a few round trips of the run without the loss, with no timeout; its window
 * after it is CUBIC's cut, 0.7 of what it was, grown back. The last packet lost draws no
 * duplicate ACK: the tail-loss probe resends it. After the 16 quick ACKs packets go in
 * pairs from 16 on: 1998 waits at the receiver for its pair (delayed ACK), so 1997's ACK
 * leaves two packets out and the probe goes 2 SRTT + 2 ms later (3 ms in jiffies); it
 * completes the pair, whose ACK ends the flow 3 ms and a few round trips after the run
 * without the loss (where RFC 6298's timer took 200 ms and the 40 ms of the delayed ACK
 * it waited for), with no timeout and no delayed ACK.
 */
static void
test_tcp_recovery(void **state)
{
	struct net n;
	uint32_t ends[2], one = 500, tail = 1999;
	struct ft_packet_cfg pc = { .fc = FT_PKT_FC_NONE };
	struct ft_sim_counters c0, c;
	struct ft_engine *e;
	double base, lat, T;

	(void)state;
	a3_pair(&n, 0, ends);
	e = tcp_flow(&n, ends, &pc, 2000, NULL, 0, &c0);
	assert_true(pk(e)->tcp && pk(e)->may_drop);
	assert_int_equal(c0.ndrops, 0);
	assert_int_equal(pk(e)->ntcp_fast, 0);
	base = c0.makespan_s;
	lat = (double)((const struct pk_flow *)ft_vec_at(&pk(e)->flows, 0))->lat_ps / PS;
	T = 4096 / pk(e)->line_Bps;
	ft_packet_engine.destroy(e);

	e = tcp_flow(&n, ends, &pc, 2000, &one, 1, &c);
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("one loss: %.3f us against %.3f us, %llu fast retransmits, %llu "
		              "timeouts, cwnd %.1f ssthresh %.1f\n",
		              c.makespan_s * 1e6, base * 1e6, (unsigned long long)pk(e)->ntcp_fast,
		              (unsigned long long)pk(e)->ntcp_rto, conn0(e)->cwnd,
		              conn0(e)->ssthresh);
	assert_int_equal(c.ndrops, 1);
	assert_int_equal(c.nretx, 1);
	assert_int_equal(pk(e)->ntcp_fast, 1);
	assert_int_equal(c.nfast_retx, 1); /* (the counters' --json fast_retransmits) */
	assert_int_equal(pk(e)->ntcp_rto, 0);
	assert_true(c.makespan_s > base && c.makespan_s < base + 20 * 2 * lat);
	assert_double_equal(conn0(e)->ssthresh, 0.7 * 256, 1e-9);
	{
		uint64_t sub, del;

		ft__pk_bytes(e, &sub, &del);
		assert_int_equal(sub, del);
	}
	ft_packet_engine.destroy(e);

	e = tcp_flow(&n, ends, &pc, 2000, &tail, 1, &c);
	if (getenv("FT_PKTTCP_PRINT"))
		print_message(
		        "tail loss (lat %.3f us): %.6f ms, %llu fast retransmits, %llu timeouts, "
		        "%llu packets, %llu resent, %llu dropped\n",
		        lat * 1e6, c.makespan_s * 1e3, (unsigned long long)pk(e)->ntcp_fast,
		        (unsigned long long)pk(e)->ntcp_rto, (unsigned long long)c.npackets,
		        (unsigned long long)c.nretx, (unsigned long long)c.ndrops);
	assert_int_equal(c.ndrops, 1);
	assert_int_equal(c.nretx, 1);
	assert_int_equal(pk(e)->ntcp_fast, 0);
	assert_int_equal(pk(e)->ntcp_rto, 0);
	assert_int_equal(c.nloss_probes, 1);
	assert_int_equal(c.nloss_probe_recoveries, 1);
	assert_int_equal((tail - PK_TCP_QUICKACKS) % 2, 1);
	assert_int_equal(c.ndelayed_acks, 0); /* (--json delayed_acks) */
	assert_true(c.makespan_s > 3e-3 + base &&
	            c.makespan_s < 3e-3 + base + 3 * (2 * lat + 2 * T));
	ft_packet_engine.destroy(e);

	/* The whole initial window lost: nothing comes back. The tail-loss probe, 2 SRTT +
	 * 2 ms (3 ms in jiffies) after the tenth packet left, sends new data past the
	 * window (packet 10); its SACK has RACK mark the ten lost (sent a probe timeout
	 * before it), and a SACK recovery resends them: no timeout (RFC 6298's 200 ms
	 * before), the ten resent once each, ssthresh max(0.7 x 10, 2) = 7. */
	{
		uint32_t iw[10];

		for (uint32_t i = 0; i < 10; i++)
			iw[i] = i;
		e = tcp_flow(&n, ends, &pc, 200, iw, 10, &c);
		if (getenv("FT_PKTTCP_PRINT"))
			print_message("initial window lost: %.6f ms, %llu timeouts, %llu resent\n",
			              c.makespan_s * 1e3, (unsigned long long)pk(e)->ntcp_rto,
			              (unsigned long long)c.nretx);
		assert_int_equal(c.ndrops, 10);
		assert_int_equal(c.nretx, 10);
		assert_int_equal(pk(e)->ntcp_rto, 0);
		assert_int_equal(c.nloss_probes, 1);
		assert_int_equal(c.nloss_probe_recoveries, 0); /* (new data: mended nothing) */
		assert_int_equal(c.nsack_recoveries, 1);
		assert_double_equal(conn0(e)->ssthresh, 7, 1e-12);
		assert_true(c.makespan_s > 3e-3 && c.makespan_s < 4e-3);
		ft_packet_engine.destroy(e);
	}
	ft_topo_free(n.t);
}

/*
 * SACK against NewReno, k = 5 packets lost in the last window of a flow of 966 (a round
 * trip of 2 x 4 cable hops of 20 us, a receive window of 64 packets, reached; pacing and
 * delayed ACKs off, the closed form's terms alone). Once window-bound each window leaves
 * as the one before is acknowledged, from packet 70 on (after bursts of 10, 20 and 40):
 * the last, packets 902 to 965, leaves together; it loses 920, 928, ..., 952. The third
 * duplicate ACK past 920 (923's) starts the recovery at about the time the run without
 * losses ends (the last packet is 42 wire times later). NewReno learns of one hole per
 * round trip (each partial ACK names the next): the flow ends about k round trips after
 * the run without losses. With SACK every hole below the highest SACKed packet is known
 * lost: the first is resent at once, the others as the pipe falls below cwnd, all within
 * the first round trip of the recovery: the flow ends about one round trip after. Each
 * resends the k packets once, one fast recovery, no timeout.
 */
static void
test_tcp_sack_holes(void **state)
{
	struct net n;
	uint32_t ends[2], lose[5];
	struct ft_packet_cfg pc = { .fc = FT_PKT_FC_NONE,
		                    .tcp_window_bytes = 64 * 4096,
		                    .tcp_pacing = FT_PKT_OFF,
		                    .tcp_delayed_ack = FT_PKT_OFF };
	struct ft_sim_counters c0, c;
	struct ft_engine *e;
	double base, rtt, d[2];
	const uint32_t k = FT_ARRAY_SIZE(lose);

	(void)state;
	for (uint32_t i = 0; i < k; i++)
		lose[i] = 920 + 8 * i;
	a3_pair(&n, 20e-6, ends);
	e = tcp_flow(&n, ends, &pc, 966, NULL, 0, &c0);
	base = c0.makespan_s;
	rtt = 2 * (double)((const struct pk_flow *)ft_vec_at(&pk(e)->flows, 0))->lat_ps / PS +
	      4096 / pk(e)->line_Bps;
	ft_packet_engine.destroy(e);
	for (int sack = 0; sack < 2; sack++) {
		pc.tcp_sack = sack ? FT_PKT_ON : FT_PKT_OFF;
		e = tcp_flow(&n, ends, &pc, 966, lose, k, &c);
		d[sack] = (c.makespan_s - base) / rtt;
		if (getenv("FT_PKTTCP_PRINT"))
			print_message("%u holes, SACK %s: %.3f us against %.3f us, %.2f rtt more "
			              "(rtt %.3f us), %llu resent, %llu fast, %llu SACK-led, %llu "
			              "timeouts\n",
			              k, sack ? "on" : "off", c.makespan_s * 1e6, base * 1e6,
			              d[sack], rtt * 1e6, (unsigned long long)c.nretx,
			              (unsigned long long)c.nfast_retx,
			              (unsigned long long)c.nsack_recoveries,
			              (unsigned long long)pk(e)->ntcp_rto);
		assert_int_equal(c.ndrops, k);
		assert_int_equal(c.nretx, k);
		assert_int_equal(c.nfast_retx, 1);
		assert_int_equal(c.nsack_recoveries, (uint64_t)sack); /* (--json) */
		assert_int_equal(pk(e)->ntcp_rto, 0);
		ft_packet_engine.destroy(e);
	}
	assert_double_equal(d[0], k, 0.5);
	assert_double_equal(d[1], 1, 0.5);
	ft_topo_free(n.t);
}

/*
 * PRR by hand (RFC 6937 3, Linux's tcp_cwnd_reduction()), CUBIC's beta 0.7: a window of
 * 20 packets (0 to 19) out, cut to ssthresh 14. One loss (packet 0), found at the first
 * SACK: each of the 19 SACKs delivers one packet; what the ACK lets out leaves at once,
 * the resend first. While the pipe is above ssthresh the sends follow the deliveries,
 * ceil(14 d / 20) in all after d of them: 1 1 1 0 1 1 0 1 1 0 1 1 1 0 over the first 14
 * ACKs (10 packets; RFC 6675's pipe rule sends the resend and then nothing until the
 * pipe falls below 14, five ACKs on). The 15th finds the pipe at ssthresh, 19 - 15 + 10
 * = 14, and sends nothing; from then on the slow-start reduction bound sends one per ACK,
 * keeping it there: 14 sent in all, the pipe 14 at the last SACK, and the cumulative ACK
 * of the resend ends the recovery with cwnd = ssthresh = 14. Twelve losses (0 to 11),
 * found at the first of 8 SACKs: the pipe, 20 - 1 - 12 = 7, is below ssthresh, and the
 * bound lets out what is delivered, one per SACK (never the 7 a window of 14 would let go
 * at once); a cumulative ACK that moves snd_una with no new loss sends one more, two, the
 * pipe 7 then 8 (slow start back towards ssthresh); with a new loss, one.
 */
static void
test_prr_law(void **state)
{
	static const uint32_t want[19] = { 1, 1, 1, 0, 1, 1, 0, 1, 1, 0,
		                           1, 1, 1, 0, 0, 1, 1, 1, 1 };
	struct pk_tcp c;
	uint32_t pipe, sent = 0;

	(void)state;
	ft__pk_tcp_init(&c, 256);
	c.cwnd = 20;
	ft__pk_tcp_cut(&c);
	assert_double_equal(c.ssthresh, 14, 1e-12);
	ft__pk_tcp_prr_start(&c);
	ft__pk_tcp_prr(&c, 10, 0, 0, false); /* (nothing delivered: nothing changes) */
	assert_double_equal(c.cwnd, 20, 0);
	for (uint32_t n = 1; n <= 19; n++) {
		uint32_t before;

		pipe = 20 - n - 1 + sent; /* out 20 + new, less n SACKed, less 1 lost, plus 1 */
		ft__pk_tcp_prr(&c, pipe, 1, n == 1, false);
		before = sent;
		for (; (double)pipe < c.cwnd; pipe++) {
			sent++;
			c.prr_out++; /* (the engine's tcp_sent()) */
		}
		assert_int_equal(sent - before, want[n - 1]);
		if (n <= 14)
			assert_int_equal(sent, (14 * n + 19) / 20);
	}
	assert_int_equal(sent, 14);
	assert_int_equal(pipe, 14);
	assert_int_equal(c.prr_delivered, 19);

	ft__pk_tcp_init(&c, 256);
	c.cwnd = 20;
	ft__pk_tcp_cut(&c);
	ft__pk_tcp_prr_start(&c);
	sent = 0;
	for (uint32_t n = 1; n <= 8; n++) {
		pipe = 20 - n - 12 + sent;
		assert_int_equal(pipe, 7);
		ft__pk_tcp_prr(&c, pipe, 1, n == 1 ? 12 : 0, false);
		assert_double_equal(c.cwnd, 8, 0);
		sent++;
		c.prr_out++;
	}
	/* resend 0's ACK: 1 delivered, snd_una moved, the pipe 7 - 1 */
	ft__pk_tcp_prr(&c, 6, 1, 0, true);
	assert_double_equal(c.cwnd, 8, 0);
	c.prr_out += 2;
	ft__pk_tcp_prr(&c, 7, 1, 1, true); /* (a new loss: no extra one) */
	assert_double_equal(c.cwnd, 8, 0);
	ft__pk_tcp_prr(&c, 13, 1, 0, true); /* (the bound: never past ssthresh) */
	assert_double_equal(c.cwnd, 14, 0);
}

/*
 * RACK's law by hand (RFC 8985 6.2, Linux's tcp_recovery.c), times in us: every round
 * trip 10 (min_rtt and SRTT), packets 0 to 9 leaving 1 apart from 0. Packets 0 to 3
 * acknowledged at 13; packet 5 SACKed at 15, one SACK: RACK.rtt is 10, the reordering
 * window min(10 / 4, 10) = 2.5, so packet 4 (left at 4, before 5) is lost at 4 + 10 +
 * 2.5 = 16.5, not before: at 15 nothing is marked and the timer waits 1.5, which Linux
 * fires a jiffy and TCP_TIMEOUT_MIN (2 jiffies) on, 3 ms. Reordered, not lost: 4 arrives
 * at 16 and nothing is ever resent. Lost: at 16.5 the timer marks it, the one packet to
 * resend, the pipe 10 - 4 out, less 1 SACKed and 1 lost = 4. With two SACKs more (7, 8
 * at 15) DupThresh's rule zeroes the window and 4 and 6 are lost at once, as they are in
 * recovery. The resend leaves at 17; packet 10 leaves at 18 and is SACKed at 28: the
 * resend, older than it and 11 past, is lost again (a lost retransmission) with no
 * timeout: resent 0, lost 5 (4, and 6 to 9, all left before 10), 4 the next to resend.
 * A resend's SACK sooner than min_rtt after it left moves RACK on not (which copy
 * arrived is ambiguous); a packet that left before RACK's, SACKed late, sets RACK.rtt
 * but not RACK.xmit_ts.
 */
static void
test_rack_law(void **state)
{
	const uint64_t us = 1000000;
	struct pk_tcp c;
	struct pk_flow f;
	struct pk_rack *r = NULL;
	uint64_t wait;

	(void)state;
	for (int lost = 0; lost < 3; lost++) {
		ft__pk_tcp_init(&c, 64);
		ft__pk_tcp_rtt(&c, 10 * us);
		memset(&f, 0, sizeof(f));
		f.npkts = 100;
		for (uint32_t i = 0; i < 10; i++) {
			assert_int_equal(ft__pk_tcp_rack_sent(&c, &r, &f, i, i * us, false, false),
			                 0);
			f.snd_nxt = i + 1;
		}
		assert_int_equal(r->mask, 127); /* (above the window of 64) */
		for (uint32_t i = 0; i < 4; i++)
			ft__pk_tcp_rack_deliver(&c, r, &f, i, 13 * us);
		ft__pk_tcp_sack_advance(&c, 0, r, &f, 4);
		f.snd_una = 4;
		assert_int_equal(ft__pk_tcp_sack_mark(&c, 0, r, &f, 5), 1);
		ft__pk_tcp_rack_deliver(&c, r, &f, 5, 15 * us);
		assert_int_equal(r->rtt_ps, 10 * us);
		assert_int_equal(c.min_rtt_ps, 10 * us);
		assert_int_equal(ft__pk_tcp_reo_wnd_ps(&c, false, c.sacked), 2500000);
		assert_int_equal(ft__pk_tcp_reo_wnd_ps(&c, true, c.sacked), 0);
		assert_int_equal(ft__pk_tcp_reo_wnd_ps(&c, false, PK_TCP_REORDERING), 0);
		if (lost == 2) {
			/* two SACKs more: DupThresh's rule, no window, 4 lost at once */
			assert_int_equal(ft__pk_tcp_sack_mark(&c, 0, r, &f, 7), 1);
			assert_int_equal(ft__pk_tcp_sack_mark(&c, 0, r, &f, 8), 1);
			ft__pk_tcp_rack_deliver(&c, r, &f, 8, 15 * us);
			wait = ft__pk_tcp_rack_detect(&c, r, 0, &f, 10, 15 * us,
			                              ft__pk_tcp_reo_wnd_ps(&c, false, c.sacked));
			assert_int_equal(wait, 0);
			assert_int_equal(r->lost_out, 2); /* 4 and 6 */
			assert_int_equal(ft__pk_tcp_sack_next(r, &f, 10), 4);
			ft__pk_tcp_rack_free(&r);
			ft__pk_tcp_sack_reset(&c, NULL);
			ft_free(c.sb);
			continue;
		}
		wait = ft__pk_tcp_rack_detect(&c, r, 0, &f, 10, 15 * us,
		                              ft__pk_tcp_reo_wnd_ps(&c, false, c.sacked));
		assert_int_equal(wait, 1500000);
		assert_int_equal(r->lost_out, 0);
		assert_int_equal(ft__pk_tcp_sack_next(r, &f, 10), PK_NONE);
		assert_int_equal(ft__pk_tcp_reo_timer_ps(wait), s_to_ps(3e-3));
		assert_int_equal(ft__pk_tcp_reo_timer_ps(s_to_ps(1e-3) + 1), s_to_ps(4e-3));
		if (!lost) {
			/* reordered: 4 arrives at 16, the cumulative ACK covers 4 to 5 */
			ft__pk_tcp_rack_deliver(&c, r, &f, 4, 16 * us);
			ft__pk_tcp_sack_advance(&c, 0, r, &f, 6);
			f.snd_una = 6;
			wait = ft__pk_tcp_rack_detect(&c, r, 0, &f, 10, 16500000, 2500000);
			assert_int_equal(wait, 0);
			assert_int_equal(r->lost_out, 0);
			assert_int_equal(ft__pk_tcp_sack_next(r, &f, 10), PK_NONE);
			assert_int_equal(ft__pk_tcp_pipe(&c, 0, r, &f, 10), 4);
			ft__pk_tcp_rack_free(&r);
			ft_free(c.sb);
			continue;
		}
		/* the timer at 16.5: 4 lost */
		wait = ft__pk_tcp_rack_detect(&c, r, 0, &f, 10, 16500000,
		                              ft__pk_tcp_reo_wnd_ps(&c, false, c.sacked));
		assert_int_equal(wait, 0);
		assert_int_equal(r->lost_out, 1);
		assert_int_equal(ft__pk_tcp_sack_next(r, &f, 10), 4);
		assert_int_equal(ft__pk_tcp_pipe(&c, 0, r, &f, 10), 4);
		/* resent at 17: out again, nothing left to resend */
		assert_int_equal(ft__pk_tcp_rack_sent(&c, &r, &f, 4, 17 * us, true, true), 0);
		assert_int_equal(r->rtx_out, 1);
		assert_int_equal(ft__pk_tcp_pipe(&c, 0, r, &f, 10), 5);
		assert_int_equal(ft__pk_tcp_sack_next(r, &f, 10), PK_NONE);
		/* 10 leaves at 18, SACKed at 28: the resend is lost again */
		assert_int_equal(ft__pk_tcp_rack_sent(&c, &r, &f, 10, 18 * us, false, false), 0);
		assert_int_equal(ft__pk_tcp_sack_mark(&c, 0, r, &f, 10), 1);
		ft__pk_tcp_rack_deliver(&c, r, &f, 10, 28 * us);
		assert_int_equal(r->rtt_ps, 10 * us);
		wait = ft__pk_tcp_rack_detect(&c, r, 0, &f, 11, 28 * us, 0);
		assert_int_equal(wait, 0);
		assert_int_equal(c.nlost_rtx, 1);
		assert_int_equal(r->rtx_out, 0);
		assert_int_equal(r->lost_out, 5); /* 4, and 6 to 9 (left before 10) */
		assert_int_equal(ft__pk_tcp_sack_next(r, &f, 11), 4);
		/* resent again at 29; its SACK at 30 (1 us: below min_rtt) leaves RACK as it is,
		 * through the scoreboard as the engine takes it */
		assert_int_equal(ft__pk_tcp_rack_sent(&c, &r, &f, 4, 29 * us, true, true), 0);
		assert_int_equal(ft__pk_tcp_sack_mark(&c, 0, r, &f, 4), 1);
		r->advanced = false; /* (the engine's look at the ACK before) */
		ft__pk_tcp_rack_deliver(&c, r, &f, 4, 30 * us);
		assert_false(r->advanced); /* so this ACK marks nothing (rack.advanced) */
		assert_int_equal(r->end_seq, 10);
		assert_int_equal(r->rtt_ps, 10 * us);
		assert_int_equal(c.min_rtt_ps, 10 * us);
		/* 9 (left at 9, before 10) SACKed at 31: RACK.rtt is its 22 us, RACK.xmit_ts
		 * stays 10's (tcp_rack_advance()) */
		assert_int_equal(ft__pk_tcp_sack_mark(&c, 0, r, &f, 9), 1);
		ft__pk_tcp_rack_deliver(&c, r, &f, 9, 31 * us);
		assert_true(r->advanced);
		assert_int_equal(r->rtt_ps, 22 * us);
		assert_int_equal(r->end_seq, 10);
		assert_int_equal(r->xmit_ps, 18 * us);
		ft__pk_tcp_rack_free(&r);
		assert_null(r);
		ft_free(c.sb);
	}
}

/*
 * RACK on the wire (a flow of 2,000 packets as test_tcp_recovery's, Linux's defaults):
 * packet 1998 lost draws one SACK (1999's), below DupThresh: RACK's reordering window
 * (a quarter of min_rtt) holds it, and its timer, whole jiffies and TCP_TIMEOUT_MIN,
 * 3 ms, marks it lost: one recovery, one resend, no timeout, the flow ending 3 ms and
 * about a round trip after the run without the loss (the retransmit timer's 200 ms
 * before). Packet 500 lost and its resend lost too: the packets sent after the resend
 * and SACKed show it lost again (RACK's lost retransmission): resent twice, one
 * recovery, no timeout, the flow ending within a round trip of the run without the
 * losses (before: 200 ms later, when the timer found it).
 */
static void
test_tcp_rack_wire(void **state)
{
	struct net n;
	uint32_t ends[2], near_tail = 1998, twice[2] = { 500, 500 };
	struct ft_packet_cfg pc = { .fc = FT_PKT_FC_NONE };
	struct ft_sim_counters c0, c;
	struct ft_engine *e;
	double base, lat, T, d;

	(void)state;
	a3_pair(&n, 0, ends);
	e = tcp_flow(&n, ends, &pc, 2000, NULL, 0, &c0);
	base = c0.makespan_s;
	lat = (double)((const struct pk_flow *)ft_vec_at(&pk(e)->flows, 0))->lat_ps / PS;
	T = 4096 / pk(e)->line_Bps;
	ft_packet_engine.destroy(e);

	e = tcp_flow(&n, ends, &pc, 2000, &near_tail, 1, &c);
	d = c.makespan_s - base;
	if (getenv("FT_PKTTCP_PRINT"))
		print_message(
		        "near-tail loss: %.6f ms against %.6f ms, %.3f ms more, %llu "
		        "reordering timers, %llu fast, %llu timeouts\n",
		        c.makespan_s * 1e3, base * 1e3, d * 1e3, (unsigned long long)conn0(e)->nreo,
		        (unsigned long long)pk(e)->ntcp_fast, (unsigned long long)pk(e)->ntcp_rto);
	assert_int_equal(c.ndrops, 1);
	assert_int_equal(c.nretx, 1);
	assert_int_equal(conn0(e)->nreo, 1);
	assert_int_equal(pk(e)->ntcp_fast, 1);
	assert_int_equal(c.nsack_recoveries, 1);
	assert_int_equal(pk(e)->ntcp_rto, 0);
	assert_true(d > 3e-3 && d < 3e-3 + 3 * (2 * lat + 2 * T));
	ft_packet_engine.destroy(e);

	e = tcp_flow(&n, ends, &pc, 2000, twice, 2, &c);
	d = c.makespan_s - base;
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("resend lost: %.3f us against %.3f us, %.2f rtt more, %llu lost "
		              "resends, %llu resent, %llu timeouts\n",
		              c.makespan_s * 1e6, base * 1e6, d / (2 * lat + T),
		              (unsigned long long)conn0(e)->nlost_rtx, (unsigned long long)c.nretx,
		              (unsigned long long)pk(e)->ntcp_rto);
	assert_int_equal(c.ndrops, 2);
	assert_int_equal(c.nretx, 2);
	assert_int_equal(conn0(e)->nlost_rtx, 1);
	assert_int_equal(pk(e)->ntcp_fast, 1);
	assert_int_equal(pk(e)->ntcp_rto, 0);
	assert_true(d > 0 && d < 2 * lat + 2 * T); /* (measured: a third of a round trip) */
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/*
 * The tail-loss probe's laws by hand (Linux's tcp_schedule_loss_probe(),
 * tcp_process_tlp_ack()): PTO = 2 SRTT + 2 ms with two packets out, + the 200 ms floor
 * with one, in jiffies rounded up, at most the RTO, 1 s before a sample; the episode
 * ends at an ACK of all that was out, a loss mended only by a resent probe whose ACK
 * carries no D-SACK.
 */
static void
test_tlp_law(void **state)
{
	struct pk_tcp c;
	const uint64_t ms = s_to_ps(1e-3);

	(void)state;
	ft__pk_tcp_init(&c, 1e9);
	assert_int_equal(ft__pk_tcp_pto_ps(&c, 2, s_to_ps(3.0)), s_to_ps(1.0));
	ft__pk_tcp_rtt(&c, s_to_ps(10e-6));
	assert_int_equal(ft__pk_tcp_pto_ps(&c, 2, 201 * ms), 3 * ms);     /* 2.02 ms */
	assert_int_equal(ft__pk_tcp_pto_ps(&c, 5, 201 * ms), 3 * ms);
	assert_int_equal(ft__pk_tcp_pto_ps(&c, 1, 300 * ms), 201 * ms);   /* 200.02 ms */
	assert_int_equal(ft__pk_tcp_pto_ps(&c, 1, 201 * ms), 201 * ms);   /* the RTO */
	assert_int_equal(ft__pk_tcp_pto_ps(&c, 2, 2 * ms), 2 * ms);
	ft__pk_tcp_init(&c, 1e9);
	ft__pk_tcp_rtt(&c, s_to_ps(0.6e-3));
	assert_int_equal(ft__pk_tcp_pto_ps(&c, 2, s_to_ps(1.0)), 4 * ms); /* 3.2 ms */

	c.tlp_flow = 3;
	c.tlp_high = 10;
	c.tlp_rtx = true;
	assert_int_equal(ft__pk_tcp_tlp_ack(&c, 4, 10, false), 0); /* another flow's */
	assert_int_equal(ft__pk_tcp_tlp_ack(&c, 3, 9, false), 0);  /* below: goes on */
	assert_int_equal(c.tlp_flow, 3);
	assert_int_equal(ft__pk_tcp_tlp_ack(&c, 3, 10, true), 0); /* both copies came */
	assert_int_equal(c.tlp_flow, PK_NONE);
	c.tlp_flow = 3;
	assert_int_equal(ft__pk_tcp_tlp_ack(&c, 3, 10, false), 1); /* it mended a loss */
	assert_int_equal(c.tlp_flow, PK_NONE);
	c.tlp_flow = 3;
	c.tlp_rtx = false;
	assert_int_equal(ft__pk_tcp_tlp_ack(&c, 3, 11, false), 0); /* new data */
	assert_int_equal(c.tlp_flow, PK_NONE);
}

/*
 * D-SACK and RACK's reordering window by hand (tcp_dsack_seen(), tcp_rack_reo_wnd()):
 * min_rtt = SRTT = 100 us gives a window of 25 us. Linux widens it for a D-SACK only once
 * reordering was seen (reord_seen) and not for the probe's copy; the engine sees none, so
 * D-SACKs are counted and the window stays 25 us. Zero in recovery and at 3 packets
 * SACKed.
 */
static void
test_dsack_law(void **state)
{
	struct pk_tcp c;
	const uint64_t us = s_to_ps(1e-6);

	(void)state;
	ft__pk_tcp_init(&c, 1e9);
	ft__pk_tcp_rtt(&c, 100 * us);
	assert_int_equal(ft__pk_tcp_reo_wnd_ps(&c, false, 0), 25 * us);
	for (int i = 0; i < 5; i++)
		ft__pk_tcp_dsack(&c);
	assert_int_equal(c.ndsack, 5);
	assert_int_equal(ft__pk_tcp_reo_wnd_ps(&c, false, 0), 25 * us);
	assert_int_equal(ft__pk_tcp_reo_wnd_ps(&c, false, PK_TCP_REORDERING - 1), 25 * us);
	assert_int_equal(ft__pk_tcp_reo_wnd_ps(&c, true, 0), 0);
	assert_int_equal(ft__pk_tcp_reo_wnd_ps(&c, false, PK_TCP_REORDERING), 0);
	/* SRTT caps it: min_rtt 100 us, SRTT brought down to 20 us */
	c.srtt_ps = 20 * us;
	assert_int_equal(ft__pk_tcp_reo_wnd_ps(&c, false, 0), 20 * us);
}

/*
 * The tail-loss probe on the wire (RFC 8985 7; Linux's tcp_schedule_loss_probe(),
 * tcp_send_loss_probe()), to the picosecond, pacing off, delayed ACKs on: m(n) the
 * lossless run of n packets (its last arrival), lat the path latency, which an ACK takes.
 * - One packet, lost: nothing comes back; with one packet out the probe timeout is 2 SRTT
 *   + 200 ms, 201 ms in jiffies (and the RTO, SRTT + 200 ms, too): the probe resends it
 *   at 201 ms, and it arrives m(1) later; its ACK shows it mended a loss (one cut).
 * - 18 packets, the last lost: 16 waits at the receiver for its pair, so 15's ACK (the
 *   last quick ACK, at m(16) + lat) leaves two out: the probe goes 3 ms later (2 SRTT +
 *   2 ms in jiffies), resends 17, which completes the pair: m(16) + lat + 3 ms + m(1).
 * - 18 packets, 16 and 17 lost: the same probe arrives past the hole; its SACK (a latency
 *   back) has RACK mark 16 lost (it left 3 ms before), a SACK recovery resends it at once:
 *   m(16) + lat + 3 ms + m(1) + lat + m(1). No timeout in any; before, each waited for
 *   RFC 6298's 200 ms timer (and the second and third for the 40 ms delayed ACK).
 */
static void
test_tcp_tlp_wire(void **state)
{
	struct net n;
	uint32_t ends[2], first = 0, last = 17, two[2] = { 16, 17 };
	struct ft_packet_cfg pc = { .fc = FT_PKT_FC_NONE, .tcp_pacing = FT_PKT_OFF };
	struct ft_sim_counters c;
	struct ft_engine *e;
	const struct pk_tcp *t;
	double m1, m16, lat, want;

	(void)state;
	a3_pair(&n, 0, ends);
	e = tcp_flow(&n, ends, &pc, 1, NULL, 0, &c);
	m1 = c.makespan_s;
	lat = (double)((const struct pk_flow *)ft_vec_at(&pk(e)->flows, 0))->lat_ps / PS;
	assert_int_equal(c.nloss_probes, 0);
	ft_packet_engine.destroy(e);
	e = tcp_flow(&n, ends, &pc, 16, NULL, 0, &c);
	m16 = c.makespan_s;
	ft_packet_engine.destroy(e);

	e = tcp_flow(&n, ends, &pc, 1, &first, 1, &c);
	t = conn0(e);
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("one packet lost: %.9f ms (m(1) %.9f ms), %llu probes, %llu "
		              "timeouts\n",
		              c.makespan_s * 1e3, m1 * 1e3, (unsigned long long)c.nloss_probes,
		              (unsigned long long)c.ntcp_timeouts);
	assert_int_equal(ft__pk_tcp_pto_ps(t, 1, ft__pk_tcp_rto_ps(t, 0)),
	                 s_to_ps(0.201));
	assert_double_equal(c.makespan_s, 0.201 + m1, 1e-12);
	assert_int_equal(c.ndrops, 1);
	assert_int_equal(c.nretx, 1);
	assert_int_equal(c.nloss_probes, 1);
	assert_int_equal(c.nloss_probe_recoveries, 1);
	assert_int_equal(c.ntcp_timeouts, 0);
	/* one cut (0.7 x the initial 10), the ACK then grows it in congestion avoidance */
	assert_double_equal(t->ssthresh, 7, 1e-12);
	assert_true(t->cwnd >= t->ssthresh && t->cwnd < t->ssthresh + 1);
	ft_packet_engine.destroy(e);

	e = tcp_flow(&n, ends, &pc, 18, &last, 1, &c);
	t = conn0(e);
	want = m16 + lat + 3e-3 + m1;
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("last of 18 lost: %.9f ms, want %.9f ms\n", c.makespan_s * 1e3,
		              want * 1e3);
	assert_double_equal(c.makespan_s, want, 1e-12);
	assert_int_equal(c.nretx, 1);
	assert_int_equal(c.nloss_probes, 1);
	assert_int_equal(c.nloss_probe_recoveries, 1);
	assert_int_equal(c.ntcp_timeouts, 0);
	assert_int_equal(c.nsack_recoveries, 0);
	assert_int_equal(c.ndelayed_acks, 0);
	assert_true(t->cwnd >= t->ssthresh && t->cwnd < t->ssthresh + 1); /* (cut once) */
	ft_packet_engine.destroy(e);

	e = tcp_flow(&n, ends, &pc, 18, two, 2, &c);
	want = m16 + lat + 3e-3 + m1 + lat + m1;
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("last two of 18 lost: %.9f ms, want %.9f ms\n", c.makespan_s * 1e3,
		              want * 1e3);
	assert_double_equal(c.makespan_s, want, 1e-12);
	assert_int_equal(c.nretx, 2);
	assert_int_equal(c.nloss_probes, 1);
	assert_int_equal(c.nloss_probe_recoveries, 0);
	assert_int_equal(c.nsack_recoveries, 1);
	assert_int_equal(c.ntcp_timeouts, 0);
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/*
 * A tail of two packets, both lost: nothing comes back, and with two out the probe
 * timeout is 3 ms (2 SRTT + 2 ms in jiffies) from the last departure, one wire time T
 * after the first, not the 201 ms of one packet out. The probe resends 1, whose SACK (a
 * latency back) has RACK mark 0 lost and a recovery resend it:
 * T + 3 ms + m(1) + lat + m(1), with no timeout.
 */
static void
test_tcp_tlp_two_lost(void **state)
{
	struct net n;
	uint32_t ends[2], lose[2] = { 0, 1 };
	struct ft_packet_cfg pc = { .fc = FT_PKT_FC_NONE, .tcp_pacing = FT_PKT_OFF };
	struct ft_sim_counters c;
	struct ft_engine *e;
	double m1, lat, T, want;

	(void)state;
	a3_pair(&n, 0, ends);
	e = tcp_flow(&n, ends, &pc, 1, NULL, 0, &c);
	m1 = c.makespan_s;
	lat = (double)((const struct pk_flow *)ft_vec_at(&pk(e)->flows, 0))->lat_ps / PS;
	T = (4096.0 + pk(e)->hdr) / pk(e)->line_Bps;
	ft_packet_engine.destroy(e);

	e = tcp_flow(&n, ends, &pc, 2, lose, 2, &c);
	want = T + 3e-3 + m1 + lat + m1;
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("two packets lost: %.9f ms, want %.9f ms\n", c.makespan_s * 1e3,
		              want * 1e3);
	assert_double_equal(c.makespan_s, want, 1e-12);
	assert_int_equal(c.nretx, 2);
	assert_int_equal(c.nloss_probes, 1);
	assert_int_equal(c.nloss_probe_recoveries, 0);
	assert_int_equal(c.nsack_recoveries, 1);
	assert_int_equal(c.ntcp_timeouts, 0);
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/* Two messages on one connection (one pair of ends): @na packets at 0, @nb at @start_s
 * (ops 0 and 1, flows 0 and 1), the (flow, packet) pairs in @lose (@nlose of them) lost
 * at their first send; submitted to a new engine, not run. */
static struct ft_engine *
tcp_two(const struct net *n, const uint32_t *ends, struct ft_packet_cfg *pc, uint32_t na,
        uint32_t nb, double start_s, const uint32_t *lose, uint32_t nlose)
{
	struct ft_sim_cfg cfg;
	struct ft_engine *e = NULL;
	struct ft_error err = { 0 };
	struct pk_engine *pe;
	uint32_t np[2] = { na, nb };

	ft_sim_cfg_init(&cfg);
	cfg.packet = pc;
	assert_int_equal(ft_packet_engine.create(n->t, &cfg, &e, &err), 0);
	for (uint32_t o = 0; o < 2; o++) {
		struct ft_schedule s;
		struct ft_sched_phase ph = { .steps = 1, .nflows = 1, .npairs = 1 };
		struct ft_sched_flow f = { .src = 0, .dst = 1, .bytes = (uint64_t)np[o] * 4096 };
		struct ft_sim_op op = { .rank_gpu = ends, .after = -1, .delay_s = o ? start_s : 0 };

		ft_schedule_init(&s);
		s.op = FT_OP_SENDRECV;
		s.algo = FT_ALGO_DIRECT;
		s.nranks = 2;
		s.ranks_per_node = 1;
		s.proto_eff = 1;
		s.bytes = f.bytes;
		assert_int_equal(ft_vec_push(&s.flows, &f), 0);
		assert_int_equal(ft_vec_push(&s.phases, &ph), 0);
		op.sched = &s;
		assert_true(ft_packet_engine.submit(e, &op, &err) >= 0);
		ft_schedule_release(&s);
	}
	pe = ft_container_of(e, struct pk_engine, base);
	for (uint32_t i = 0; i < 2 * nlose; i++)
		pe->lose[pe->nlose++] = lose[i];
	return e;
}

/* Run engine @e to @until_s (0: the end). */
static void
run_until(struct ft_engine *e, double until_s)
{
	struct ft_error err = { 0 };

	if (ft_packet_engine.run(e, until_s, &err) != 0)
		fail_msg("run: %s", err.msg);
}

/*
 * A message that starts while another of its connection recovers has its lost tail
 * probed once the connection is Open again, as Linux's next ACK re-arms the socket's
 * timer (tcp_set_xmit_timer() -> tcp_schedule_loss_probe()), not at the RTO. Message A,
 * 10 packets, loses packet 0; its packets leave back to back, k at kT (T a wire time).
 * The SACK of 1 puts the connection in Disorder; the SACK of 2 (3T + 2 lat) has RACK mark
 * 0 lost (2T past its round trip, over the window of min_rtt / 4 = lat / 2); the resend
 * follows 7 on the wire at 8T, and its ACK (of 0 to 7) at 9T + 2 lat ends the recovery
 * and clears the scoreboard: the connection is Open (Linux's tcp_try_to_open()). Message
 * B, 2 packets, both lost, starts at 1.9 us, after A's 9 left (11T) and before that ACK:
 * its timer is armed as the RTO (201 ms), no probe being allowed then, and that ACK
 * re-arms it as the probe, 3 ms later (2 SRTT + 2 ms in jiffies, two packets out). The
 * probe resends B's 1, whose SACK (a latency back) has RACK mark 0 lost and a recovery
 * resend it: 9T + 2 lat + 3 ms + m(1) + lat + m(1), with no timeout (the RTO's
 * go-back-N 201 ms after B's last send before). A B of one packet, lost, keeps its RTO:
 * its probe (201 ms, one packet out) would come after it; no probe, one timeout,
 * 1.9 us + 201 ms + m(1).
 */
static void
test_tcp_tlp_reopen(void **state)
{
	struct net n;
	uint32_t ends[2], lose[6] = { 0, 0, 1, 0, 1, 1 };
	struct ft_packet_cfg pc = { .fc = FT_PKT_FC_NONE, .tcp_pacing = FT_PKT_OFF };
	struct ft_sim_counters c;
	struct ft_error err = { 0 };
	struct ft_engine *e;
	struct pk_engine *pe;
	const struct pk_flow *b;
	const struct pk_rack *r;
	double m1, lat, T, open, want;

	(void)state;
	a3_pair(&n, 0, ends);
	e = tcp_flow(&n, ends, &pc, 1, NULL, 0, &c);
	m1 = c.makespan_s;
	lat = (double)((const struct pk_flow *)ft_vec_at(&pk(e)->flows, 0))->lat_ps / PS;
	T = (4096.0 + pk(e)->hdr) / pk(e)->line_Bps;
	ft_packet_engine.destroy(e);
	open = 9 * T + 2 * lat;
	assert_true(11 * T < 1.9e-6 && 1.9e-6 + T < open); /* (B's sends: between) */

	e = tcp_two(&n, ends, &pc, 10, 2, 1.9e-6, lose, 3);
	pe = ft_container_of(e, struct pk_engine, base);
	/* B's two packets out, the connection not Open: its timer is the RTO */
	run_until(e, (1.9e-6 + T + open) / 2);
	b = ft_vec_at(&pe->flows, 1);
	assert_ptr_equal(ft__pk_tcp_conn(pe, b),
	                 ft__pk_tcp_conn(pe, ft_vec_at(&pe->flows, 0)));
	assert_int_equal(b->snd_nxt, 2);
	assert_true(ft__pk_tcp_conn(pe, b)->sacked > 0);
	r = ft__pk_tcp_rack_of(pe, 1);
	assert_non_null(r);
	assert_false(r->tmr_kind == PK_TMR_TLP && r->tmr_gen == (b->rto_gen & PK_RTO_GEN));
	/* the ACK that opens it: the probe, 3 ms from then */
	run_until(e, open + T / 2);
	b = ft_vec_at(&pe->flows, 1);
	r = ft__pk_tcp_rack_of(pe, 1);
	assert_non_null(r);
	assert_int_equal(r->tmr_kind, PK_TMR_TLP);
	assert_int_equal(r->tmr_gen, b->rto_gen & PK_RTO_GEN);
	assert_int_equal(r->tmr_due_ps, s_to_ps(open) + s_to_ps(3e-3));
	run_until(e, 0);
	assert_int_equal(ft_packet_engine.counters(e, &c, &err), 0);
	want = open + 3e-3 + m1 + lat + m1;
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("tail lost while another message recovers: %.9f ms, want %.9f ms\n",
		              c.makespan_s * 1e3, want * 1e3);
	assert_double_equal(c.makespan_s, want, 1e-12);
	assert_int_equal(c.ndrops, 3);
	assert_int_equal(c.nretx, 3);
	assert_int_equal(c.nloss_probes, 1);
	assert_int_equal(c.nsack_recoveries, 2);
	assert_int_equal(c.ntcp_timeouts, 0);
	ft_packet_engine.destroy(e);

	/* B of one packet, lost: its probe (201 ms from the ACK that opens the connection)
	 * would come after its RTO (201 ms from its send): the RTO stands, and its go-back-N
	 * resend arrives m(1) after it */
	e = tcp_two(&n, ends, &pc, 10, 1, 1.9e-6, lose, 2);
	run_until(e, 0);
	assert_int_equal(ft_packet_engine.counters(e, &c, &err), 0);
	want = 1.9e-6 + 0.201 + m1;
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("one-packet tail lost while another recovers: %.9f ms, want %.9f ms\n",
		              c.makespan_s * 1e3, want * 1e3);
	assert_double_equal(c.makespan_s, want, 1e-12);
	assert_int_equal(c.nloss_probes, 0);
	assert_int_equal(c.ntcp_timeouts, 1);
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/*
 * A lost tail whose probe is lost too: 18 packets, 17 lost twice (its first send and the
 * probe's copy). The probe goes at m(16) + lat + 3 ms as in test_tcp_tlp_wire and arms
 * the RTO; 16, alone at the receiver, is acknowledged by the 40 ms delayed-ACK timer
 * (m(17) + 40 ms, a latency back), which restarts the RTO, 201 ms, from there; it fires,
 * go-back-N resends 17, which arrives m(1) later: m(17) + 40 ms + lat + 201 ms + m(1).
 * The timeout ends the probe's episode (Linux's tcp_enter_loss(): tlp_high_seq = 0), so
 * the ACK of the resend is no probe's: no probe recovery counted, and the window cut
 * once, by the timeout: 17 packets acknowledged in slow start from the initial 10 make
 * cwnd 27, ssthresh 0.7 x 27 = 18.9 (a second cut at that ACK, from the loss window of
 * 1, would leave 2). The resent 17 comes 241 ms after the receiver last took a packet in
 * order, past its RTO (201 ms): Linux's receiver is back in quick-ACK mode
 * (tcp_event_data_recv()) and ACKs it at once, a path latency back, not 40 ms later.
 */
static void
test_tcp_tlp_lost_probe(void **state)
{
	struct net n;
	uint32_t ends[2], lose[2] = { 17, 17 };
	struct ft_packet_cfg pc = { .fc = FT_PKT_FC_NONE, .tcp_pacing = FT_PKT_OFF };
	struct ft_sim_counters c;
	struct ft_engine *e;
	const struct pk_tcp *t;
	double m1, m17, lat, want;

	(void)state;
	a3_pair(&n, 0, ends);
	clean_times(&n, ends, &pc, 17, &m1, &m17, &lat, &c);

	e = tcp_flow(&n, ends, &pc, 18, lose, 2, &c);
	t = conn0(e);
	want = m17 + 40e-3 + lat + 0.201 + m1;
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("tail and probe lost: %.9f ms, want %.9f ms, ssthresh %.3f\n",
		              c.makespan_s * 1e3, want * 1e3, t->ssthresh);
	assert_double_equal(c.makespan_s, want, 1e-12);
	assert_int_equal(c.ndrops, 2);
	assert_int_equal(c.nretx, 2);
	assert_int_equal(c.nloss_probes, 1);
	assert_int_equal(c.ntcp_timeouts, 1);
	assert_int_equal(c.nloss_probe_recoveries, 0);
	assert_int_equal(c.nsack_recoveries, 0);
	assert_int_equal(c.ndelayed_acks, 1); /* 16's; the resent 17's at once */
	assert_double_equal(
	        (double)((const struct pk_flow *)ft_vec_at(&pk(e)->flows, 0))->t_una_ps / PS,
	        want + lat, 1e-12);
	assert_double_equal(t->ssthresh, 0.7 * 27, 1e-12);
	assert_int_equal(t->tlp_flow, PK_NONE);
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/*
 * A spurious probe and its D-SACK on the wire: 17 packets, none lost, a 1 ms floor
 * (retransmit_timeout; at the 200 ms one the probe would wait 201 ms, after the delayed
 * ACK): the last waits at the receiver for the 40 ms delayed-ACK timer, while the
 * sender, one packet out, probes 2 ms after 15's ACK (2 SRTT + 1 ms in jiffies). The
 * copy is a duplicate: the receiver answers at once with a D-SACK (its timer stopped).
 * The probe mended nothing (no cut), the run ends when it did without the probe, and
 * the D-SACK, the probe's own, is counted but leaves RACK's reordering window at one
 * step, min(min_rtt / 4, SRTT) (Linux's tcp_dsack_seen(): FLAG_DSACK_TLP, and no
 * reordering seen). The counters (--json loss_probes, dsacks; the text's TCP line) say
 * so.
 */
static void
test_tcp_dsack_wire(void **state)
{
	struct net n;
	uint32_t ends[2];
	struct ft_packet_cfg pc = { .fc = FT_PKT_FC_NONE, .tcp_pacing = FT_PKT_OFF };
	struct ft_sim_counters c0, c;
	struct ft_engine *e;
	const struct pk_tcp *t;

	(void)state;
	a3_pair(&n, 0, ends);
	/* the 200 ms floor: the probe would wait 201 ms, the delayed ACK comes first */
	e = tcp_flow(&n, ends, &pc, PK_TCP_QUICKACKS + 1, NULL, 0, &c0);
	assert_int_equal(c0.nloss_probes, 0);
	assert_int_equal(c0.ndelayed_acks, 1);
	ft_packet_engine.destroy(e);
	pc.rto_s = 1e-3;
	e = tcp_flow(&n, ends, &pc, PK_TCP_QUICKACKS + 1, NULL, 0, &c);
	t = conn0(e);
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("spurious probe: %.9f ms against %.9f ms, %llu probes, %llu "
		              "D-SACKs, reordering window %.3f us\n",
		              c.makespan_s * 1e3, c0.makespan_s * 1e3,
		              (unsigned long long)c.nloss_probes, (unsigned long long)c.ndsacks,
		              (double)ft__pk_tcp_reo_wnd_ps(t, false, 0) / 1e6);
	assert_double_equal(c.makespan_s, c0.makespan_s, 1e-12);
	assert_int_equal(c.ndrops, 0);
	assert_int_equal(c.nretx, 1);
	assert_int_equal(c.nloss_probes, 1);
	assert_int_equal(c.nloss_probe_recoveries, 0);
	assert_int_equal(c.ndsacks, 1);
	assert_int_equal(c.ndelayed_acks, 0);
	assert_int_equal(c.ntcp_timeouts, 0);
	assert_true(isinf(t->ssthresh)); /* no cut */
	assert_int_equal(ft__pk_tcp_reo_wnd_ps(t, false, 0), FT_MIN(t->min_rtt_ps / 4, t->srtt_ps));
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/*
 * A connection's list of messages with their timers held (ft__pk_tcp_held_add(),
 * ft__pk_tcp_held_sort()): what was added, past the first room (8), comes back sorted by
 * flow and each once.
 */
static void
test_tcp_held_list(void **state)
{
	struct pk_tcp c;
	const uint32_t add[] = { 9, 3, 7, 3, 12, 0, 9, 9, 5, 11, 2, 7 };
	const uint32_t want[] = { 0, 2, 3, 5, 7, 9, 11, 12 };

	(void)state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(ft__pk_tcp_held_sort(&c), 0);
	for (size_t k = 0; k < sizeof(add) / sizeof(add[0]); k++)
		assert_int_equal(ft__pk_tcp_held_add(&c, add[k]), 0);
	assert_int_equal(c.nheld, 12);
	assert_true(c.held_cap >= 12);
	assert_int_equal(ft__pk_tcp_held_sort(&c), 8);
	assert_int_equal(c.nheld, 8);
	assert_memory_equal(c.held, want, sizeof(want));
	/* sorted already: unchanged */
	assert_int_equal(ft__pk_tcp_held_sort(&c), 8);
	assert_memory_equal(c.held, want, sizeof(want));
	ft_free(c.held);
}

/*
 * The connections' counters summed (ft__pk_tcp_counters(), what the report and a split
 * run's ranks add up): a free slot (key 0) counts nothing, whatever it holds.
 */
static void
test_tcp_counters_sum(void **state)
{
	static struct pk_engine pe;
	struct pk_tcp conns[4];
	uint64_t v[PK_TCP_NCTR];

	(void)state;
	memset(conns, 0, sizeof(conns));
	for (int k = 0; k < 4; k++) {
		conns[k].key = k == 2 ? 0 : 1 + (uint64_t)k;
		conns[k].ntlp = 1u << k;
		conns[k].ntlp_rec = 10u << k;
		conns[k].nreo = 100u << k;
		conns[k].nlost_rtx = 1000u << k;
		conns[k].ndsack = 10000u << k;
	}
	pe.tcp_conns = conns;
	pe.tcp_cap = 4;
	ft__pk_tcp_counters(&pe, v);
	/* slots 0, 1 and 3: 1 + 2 + 8 = 11 times each counter's unit */
	assert_int_equal(v[PK_TCP_CTR_TLP], 11);
	assert_int_equal(v[PK_TCP_CTR_TLP_REC], 110);
	assert_int_equal(v[PK_TCP_CTR_REO], 1100);
	assert_int_equal(v[PK_TCP_CTR_LOST_RTX], 11000);
	assert_int_equal(v[PK_TCP_CTR_DSACK], 110000);
	pe.tcp_cap = 0;
	ft__pk_tcp_counters(&pe, v);
	for (int k = 0; k < PK_TCP_NCTR; k++)
		assert_int_equal(v[k], 0);
}

/*
 * Delayed ACKs (Linux's: an ACK per two packets after 16 quick ACKs, else the 40 ms
 * timer): a flow of 17 packets leaves its last one alone (16 quick ACKs, packet 16 the
 * first of a pair that never completes): the sender hears of it when the timer fires,
 * 40 ms after it arrived, a path latency later, where 18 packets end with an ACK a path
 * latency after the last arrived. One delayed ACK, then none; none with delayed ACKs off.
 */
static void
test_tcp_delayed_ack(void **state)
{
	struct net n;
	uint32_t ends[2];
	struct ft_packet_cfg pc = { 0 };
	struct ft_sim_counters c;
	struct ft_engine *e;

	(void)state;
	a3_pair(&n, 0, ends);
	for (int off = 0; off < 2; off++) {
		pc.tcp_delayed_ack = off ? FT_PKT_OFF : FT_PKT_ON;
		for (uint32_t npk = PK_TCP_QUICKACKS + 1; npk <= PK_TCP_QUICKACKS + 2; npk++) {
			const struct pk_flow *f;
			double lat, last_ack, want;
			bool alone = !off && npk % 2;

			e = tcp_flow(&n, ends, &pc, npk, NULL, 0, &c);
			f = ft_vec_at(&pk(e)->flows, 0);
			lat = (double)f->lat_ps / PS;
			last_ack = (double)f->t_una_ps / PS;
			/* (the run ends when the last packet arrives: makespan) */
			want = c.makespan_s + (alone ? PK_TCP_DELACK_S : 0) + lat;
			if (getenv("FT_PKTTCP_PRINT"))
				print_message(
				        "delayed ACKs %s, %u packets: last packet at %.6f ms, "
				        "its ACK at %.6f ms (%llu by the timer)\n",
				        off ? "off" : "on", npk, c.makespan_s * 1e3, last_ack * 1e3,
				        (unsigned long long)c.ndelayed_acks);
			assert_int_equal(f->snd_una, npk);
			assert_double_equal(last_ack, want, 1e-9);
			assert_int_equal(c.ndelayed_acks, alone ? 1 : 0);
			ft_packet_engine.destroy(e);
		}
	}
	ft_topo_free(n.t);
}

/*
 * A resend that fills part of a gap is acknowledged at once (RFC 5681 4.2; Linux's
 * __tcp_ack_snd_check() sends at once while its out-of-order queue is not empty), not
 * left to the delayed-ACK timer. A flow of 40 packets, NewReno (SACK off: one hole
 * learnt per partial ACK), delayed ACKs on, pacing off, loses packets 35 and 36 (past
 * the 16 quick ACKs). 37 to 39 arrive as in the run without losses, which ends at m(40),
 * and draw three duplicate ACKs: the third reaches the sender a path latency later and
 * 35 is resent, arriving m(1) after; 36 is still missing and 37 to 39 held past it, so
 * the partial ACK goes at once, 36 is resent a latency later and arrives m(1) after:
 * m(40) + 2 lat + 2 m(1), to the picosecond, no timer's ACK, no timeout. (Before: the
 * partial ACK waited for the 40 ms delayed-ACK timer, 40 ms more.)
 */
static void
test_tcp_partial_fill_ack(void **state)
{
	struct net n;
	uint32_t ends[2], lose[2] = { 35, 36 };
	struct ft_packet_cfg pc = { .fc = FT_PKT_FC_NONE,
		                    .tcp_sack = FT_PKT_OFF,
		                    .tcp_pacing = FT_PKT_OFF };
	struct ft_sim_counters c;
	struct ft_engine *e;
	double m1, m40, lat, want;

	(void)state;
	a3_pair(&n, 0, ends);
	clean_times(&n, ends, &pc, 40, &m1, &m40, &lat, &c);
	assert_int_equal(c.ndelayed_acks, 0);

	e = tcp_flow(&n, ends, &pc, 40, lose, 2, &c);
	want = m40 + 2 * lat + 2 * m1;
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("35 and 36 of 40 lost, NewReno: %.9f ms, want %.9f ms, %llu timer "
		              "ACKs\n",
		              c.makespan_s * 1e3, want * 1e3, (unsigned long long)c.ndelayed_acks);
	assert_double_equal(c.makespan_s, want, 1e-12);
	assert_int_equal(c.ndrops, 2);
	assert_int_equal(c.nretx, 2);
	assert_int_equal(pk(e)->ntcp_fast, 1);
	assert_int_equal(pk(e)->ntcp_rto, 0);
	assert_int_equal(c.ndelayed_acks, 0);
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/* Hands flow 0's receiver of engine @e, at @t_ps, the next packet in order (past the
 * run's last: the receiver's ACK logic alone, ft__pk_tcp_rx()). */
static void
rx_next_at(struct ft_engine *e, uint64_t t_ps)
{
	struct pk_engine *pe = ft_container_of(e, struct pk_engine, base);
	struct pk_flow *f = ft_vec_at(&pe->flows, 0);

	pe->now_ps = t_ps;
	f->rcv_nxt++;
	assert_int_equal(ft__pk_tcp_rx(pe, 0, f->rcv_nxt - 1, f->rcv_nxt - 1, false), 0);
}

/*
 * Quick-ACK re-entry (Linux's tcp_event_data_recv(): in-order data more than icsk_rto
 * after lrcvtime, the last in-order packet, gives 16 quick ACKs again). The receiver's RTO
 * is the estimator's after the handshake's sample alone, R = 2 lat: ceil(R + max(2 R,
 * 200 ms)) in jiffies, 201 ms at a microsecond path. A flow of 20 packets, delayed ACKs on,
 * spends the 16 quick ACKs and ends with the last packet's arrival (the makespan) as the
 * last in-order one. A packet exactly R after it is no silence longer than the RTO: its
 * ACK is delayed, no quick ACK back; the next, R + 1 ps after that one (not after the
 * run's last: each in-order packet refreshes the mark), re-enters quick-ACK mode and spends
 * one of its 16: 15 left. On a second run two packets 3/4 R apart each stay delayed (1.5 R
 * after the run's last, but 3/4 R after the one before).
 */
static void
test_tcp_quick_reentry(void **state)
{
	struct net n;
	uint32_t ends[2];
	struct ft_packet_cfg pc = { .fc = FT_PKT_FC_NONE, .tcp_delayed_ack = FT_PKT_ON };
	struct ft_sim_counters c;
	struct ft_engine *e;
	const struct pk_tcp *t;
	const uint64_t j = s_to_ps(PK_TCP_JIFFY_S);
	uint64_t lat, r, rto, last;

	(void)state;
	a3_pair(&n, 0, ends);
	for (int run = 0; run < 2; run++) {
		e = tcp_flow(&n, ends, &pc, 20, NULL, 0, &c);
		t = conn0(e);
		lat = ((const struct pk_flow *)ft_vec_at(&pk(e)->flows, 0))->lat_ps;
		r = 2 * lat;
		rto = (r + FT_MAX(2 * r, s_to_ps(0.2)) + j - 1) / j * j;
		if (getenv("FT_PKTTCP_PRINT"))
			print_message("receiver's RTO %.6f ms (lat %.6f us), last in order at "
			              "%.6f us, makespan %.6f us\n",
			              (double)t->rcv_rto_ps / 1e9, (double)lat / 1e6,
			              (double)t->rcv_last_ps / 1e6, c.makespan_s * 1e6);
		assert_true(lat < s_to_ps(1e-3));
		assert_int_equal(t->rcv_rto_ps, rto);
		assert_int_equal(rto, s_to_ps(0.201));
		assert_int_equal(t->rcv_quick, 0);
		assert_double_equal((double)t->rcv_last_ps, c.makespan_s * PS, 1);
		last = t->rcv_last_ps;
		if (!run) {
			rx_next_at(e, last + rto);
			assert_int_equal(t->rcv_quick, 0);
			assert_int_equal(t->rcv_dl_flow, 0); /* its ACK delayed */
			rx_next_at(e, last + 2 * rto + 1);
			assert_int_equal(t->rcv_quick, PK_TCP_QUICKACKS - 1);
			assert_int_equal(t->rcv_dl_flow, PK_NONE);
		} else {
			rx_next_at(e, last + rto * 3 / 4);
			assert_int_equal(t->rcv_quick, 0);
			rx_next_at(e, last + rto * 3 / 2);
			assert_int_equal(t->rcv_quick, 0);
			assert_int_equal(t->rcv_dl_flow, 0);
			assert_int_equal(t->rcv_last_ps, last + rto * 3 / 2);
		}
		ft_packet_engine.destroy(e);
	}
	ft_topo_free(n.t);
}

/*
 * Every in-order packet ACKed at once spends a quick ACK (Linux's tcp_event_ack_sent() ->
 * tcp_dec_quickack_mode()), gap fills too: 12 packets, NewReno (SACK off), pacing off,
 * delayed ACKs on, 3 and 4 lost. 0 to 2 spend three quick ACKs; 5 to 11, past the gap,
 * draw duplicate ACKs (no quick ACK spent); 3's resend fills part of the gap (4 missing,
 * 5 to 11 held) and 4's the rest, each ACKed at once: 16 - 3 - 2 = 11 left, with no
 * timeout. (Before, the fills spent none: 13.)
 */
static void
test_tcp_fill_spends_quick(void **state)
{
	struct net n;
	uint32_t ends[2], lose[2] = { 3, 4 };
	struct ft_packet_cfg pc = { .fc = FT_PKT_FC_NONE,
		                    .tcp_sack = FT_PKT_OFF,
		                    .tcp_pacing = FT_PKT_OFF,
		                    .tcp_delayed_ack = FT_PKT_ON };
	struct ft_sim_counters c;
	struct ft_engine *e;

	(void)state;
	a3_pair(&n, 0, ends);
	e = tcp_flow(&n, ends, &pc, 12, lose, 2, &c);
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("3 and 4 of 12 lost: %u quick ACKs left\n", conn0(e)->rcv_quick);
	assert_int_equal(pk(e)->ntcp_fast, 1);
	assert_int_equal(pk(e)->ntcp_rto, 0);
	assert_int_equal(c.nretx, 2);
	assert_int_equal(c.ndelayed_acks, 0);
	assert_int_equal(conn0(e)->rcv_quick, PK_TCP_QUICKACKS - 3 - 2);
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/*
 * A SACK recovery that ends with a packet marked lost and not resent (golden 8448's last
 * message): 30 packets, unpaced, on the short path, where ACKs come one serialisation
 * (T) apart and the sender's line never idles: packet k leaves at k T. 20 is lost, and
 * its first resend too; RACK finds 20 lost at the second SACK past it (a recovery,
 * recover 28) and 20 is resent in slot 28, so new data 28 (lost) and 29 go a slot late.
 * 29's SACK, at m(30) + T + lat, has RACK mark 28 lost and 20's resend lost again (29
 * left after both); PRR lets one packet out, the lower: 20. Its ACK, m(1) + lat later,
 * covers recover and ends the recovery with 28 marked lost and not resent. Linux asks
 * tcp_time_to_recover() at that ACK (lost_out 1: true) and enters Recovery again
 * (tcp_fastretrans_alert(), net/ipv4/tcp_input.c), resending 28 at once: it arrives
 * m(1) later, m(30) + T + 2 lat + 2 m(1), to the picosecond, no timeout. Two recoveries,
 * each with its cut: ssthresh 0.7 x 0.7 x 30 (cwnd 30 at the first, ssthresh 21 at the
 * second's start). Before, no recovery started (RACK marked nothing new) and the RTO, 201
 * ms after that ACK, resent 28: 201 ms later.
 */
static void
test_tcp_rerecover(void **state)
{
	struct net n;
	uint32_t ends[2], lose[3] = { 20, 28, 20 };
	struct ft_packet_cfg pc = { .fc = FT_PKT_FC_NONE, .tcp_pacing = FT_PKT_OFF };
	struct ft_sim_counters c;
	struct ft_engine *e;
	double m1, m30, lat, T, want;

	(void)state;
	a3_pair(&n, 0, ends);
	e = tcp_flow(&n, ends, &pc, 1, NULL, 0, &c);
	m1 = c.makespan_s;
	lat = (double)((const struct pk_flow *)ft_vec_at(&pk(e)->flows, 0))->lat_ps / PS;
	T = 4096 / pk(e)->line_Bps;
	ft_packet_engine.destroy(e);
	e = tcp_flow(&n, ends, &pc, 30, NULL, 0, &c);
	m30 = c.makespan_s;
	assert_double_equal(m30, 30 * T + lat, 1e-12); /* (the line never idles) */
	ft_packet_engine.destroy(e);

	e = tcp_flow(&n, ends, &pc, 30, lose, 3, &c);
	want = m30 + T + 2 * lat + 2 * m1;
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("20 (twice) and 28 of 30 lost: %.6f us, want %.6f us, %llu "
		              "recoveries, %llu timeouts\n",
		              c.makespan_s * 1e6, want * 1e6,
		              (unsigned long long)c.nsack_recoveries,
		              (unsigned long long)c.ntcp_timeouts);
	assert_double_equal(c.makespan_s, want, 1e-12);
	assert_int_equal(c.ndrops, 3);
	assert_int_equal(c.nretx, 3);
	assert_int_equal(c.ntcp_timeouts, 0);
	assert_int_equal(c.nsack_recoveries, 2);
	assert_int_equal(conn0(e)->nlost_rtx, 1);
	assert_double_equal(conn0(e)->ssthresh, 0.7 * 0.7 * 30, 1e-12);
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/*
 * A lost last packet without SACK (golden 8476's last messages): no later packet draws a
 * duplicate ACK and no tail-loss probe may go (Linux's tcp_schedule_loss_probe() wants
 * SACK), so the retransmit timer resends it, Linux's RTO (200 ms + SRTT in jiffies: 201
 * ms) after the last ACK that moved snd_una (RFC 6298 5.3): 18 packets, the last lost,
 * delayed ACKs and pacing off, end at m(17) + lat + 201 ms + m(1), to the picosecond,
 * one timeout, the timer never outliving the flow.
 */
static void
test_tcp_newreno_tail_rto(void **state)
{
	struct net n;
	uint32_t ends[2], last = 17;
	struct ft_packet_cfg pc = { .fc = FT_PKT_FC_NONE,
		                    .tcp_sack = FT_PKT_OFF,
		                    .tcp_delayed_ack = FT_PKT_OFF,
		                    .tcp_pacing = FT_PKT_OFF };
	struct ft_sim_counters c;
	struct ft_engine *e;
	double m1, m17, lat, want;

	(void)state;
	a3_pair(&n, 0, ends);
	clean_times(&n, ends, &pc, 17, &m1, &m17, &lat, &c);

	e = tcp_flow(&n, ends, &pc, 18, &last, 1, &c);
	want = m17 + lat + 0.201 + m1;
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("last of 18 lost, NewReno: %.9f ms, want %.9f ms\n",
		              c.makespan_s * 1e3, want * 1e3);
	assert_int_equal(ft__pk_tcp_rto_ps(conn0(e), 0), s_to_ps(0.201));
	assert_double_equal(c.makespan_s, want, 1e-12);
	assert_int_equal(c.nretx, 1);
	assert_int_equal(c.nloss_probes, 0);
	assert_int_equal(pk(e)->ntcp_fast, 0);
	assert_int_equal(pk(e)->ntcp_rto, 1);
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/*
 * Pacing (Linux's internal pacing): the initial window of 10 packets leaves at 200 % of
 * cwnd x MSS / SRTT (slow start), the SRTT the handshake's 2 path latencies: one packet
 * each SRTT / 20, so 10 packets end 9 gaps after 1 packet would (a round trip of 2 x 4
 * cable hops of 20 us: a gap of 8 us, far above a packet's 0.16 us on the wire). The rate
 * by hand: 120 % once cwnd >= ssthresh / 2.
 */
static void
test_tcp_pacing_gap(void **state)
{
	struct net n;
	uint32_t ends[2];
	struct ft_packet_cfg pc = { .tcp_delayed_ack = FT_PKT_OFF };
	struct ft_sim_counters c1, c;
	struct ft_engine *e;
	struct pk_tcp t;
	double srtt, gap;

	(void)state;
	ft__pk_tcp_init(&t, 1e9);
	ft__pk_tcp_rtt(&t, s_to_ps(1e-3));
	assert_double_equal(ft__pk_tcp_pace_Bps(&t, 4096, 0), 2.0 * 10 * 4096 / 1e-3, 1e-3);
	t.cwnd = 100;
	t.ssthresh = 150; /* cwnd >= ssthresh / 2: congestion avoidance's ratio */
	assert_double_equal(ft__pk_tcp_pace_Bps(&t, 4096, 60), 1.2 * 100 * 4096 / 1e-3, 1e-3);
	/* more out than cwnd (a recovery's cut): paced by what is out (tcp_update_pacing_rate()) */
	assert_double_equal(ft__pk_tcp_pace_Bps(&t, 4096, 140), 1.2 * 140 * 4096 / 1e-3, 1e-3);

	a3_pair(&n, 20e-6, ends);
	e = tcp_flow(&n, ends, &pc, 1, NULL, 0, &c1);
	assert_true(pk(e)->tcp_pace && pk(e)->paced);
	ft_packet_engine.destroy(e);
	e = tcp_flow(&n, ends, &pc, 10, NULL, 0, &c);
	srtt = 2 * (double)((const struct pk_flow *)ft_vec_at(&pk(e)->flows, 0))->lat_ps / PS;
	gap = srtt / (PK_TCP_PACE_SS / 100 * PK_TCP_IW);
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("paced: 10 packets end %.3f us after 1 does, 9 gaps of %.3f us: "
		              "%.3f us\n",
		              (c.makespan_s - c1.makespan_s) * 1e6, gap * 1e6, 9 * gap * 1e6);
	assert_double_equal(c.makespan_s - c1.makespan_s, 9 * gap, 1e-9);
	ft_packet_engine.destroy(e);
	pc.tcp_pacing = FT_PKT_OFF;
	e = tcp_flow(&n, ends, &pc, 10, NULL, 0, &c);
	assert_false(pk(e)->paced);
	/* unpaced: back to back, 9 wire times */
	assert_true(c.makespan_s - c1.makespan_s < 9 * gap / 10);
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/* Over every TCP connection of @e: the resends RACK found lost again (@what 0), or the
 * reordering timers that found packets lost (1). */
static uint64_t
tcp_sum(struct ft_engine *e, int what)
{
	const struct pk_engine *pe = pk(e);
	uint64_t n = 0;

	for (uint32_t i = 0; i < pe->tcp_cap; i++)
		if (pe->tcp_conns[i].key)
			n += what ? pe->tcp_conns[i].nreo : pe->tcp_conns[i].nlost_rtx;
	return n;
}

/*
 * Incast of short messages on a lossy fabric with a small shared buffer (256 KiB per
 * switch: 32 KiB, 8 packets, a queue): seven senders of 80 KiB (20 packets) each to one
 * NIC (gcp-a3-mega:8, NIC 0 of each node, a round trip of 2 x 4 cable hops of 5 us).
 * Unpaced, each opens with its initial window at once, 70 packets into one port: most
 * are lost, each flow recovers once and none waits for the 200 ms timer: a hole with
 * fewer than three packets SACKed past it is lost by RACK's clock when it left more than
 * a quarter of min_rtt (10 us) before the latest of them, and the tails' did (before
 * RACK, two tails waited for the timer: 200 ms). Paced, each sends a packet per SRTT
 * / 20 (2 us), 3.5 packets per us together, below the port's 6: nothing is lost. (Longer
 * flows are another matter: docs/internals/sim.md gives the figures.)
 */
static void
test_tcp_pacing_incast(void **state)
{
	struct net n;
	struct ft_error err = { 0 };
	uint32_t ends[14];
	struct ft_packet_cfg pc = { .fc = FT_PKT_FC_NONE, .switch_buffer_bytes = 256 << 10 };
	struct ft_sim_cfg cfg;
	struct ft_sim_counters c[2];
	struct ft_engine *e;
	uint64_t rto[2], nrec[2];

	(void)state;
	assert_int_equal(ft_spec_resolve("gcp-a3-mega:8", &n.spec, &err), 0);
	n.spec.fabric.lat_cable_s = 5e-6;
	n.t = NULL;
	assert_int_equal(ft_topo_build(&n.spec, &n.t, &err), 0);
	for (uint32_t i = 0; i < 7; i++) {
		ends[2 * i] = ft_topo_nic(n.t, i + 1, 0);
		ends[2 * i + 1] = ft_topo_nic(n.t, 0, 0);
	}
	ft_sim_cfg_init(&cfg);
	cfg.packet = &pc;
	for (int paced = 0; paced < 2; paced++) {
		pc.tcp_pacing = paced ? FT_PKT_ON : FT_PKT_OFF;
		e = run_pairs(&ft_packet_engine, &n, &cfg, ends, 7, 20 * 4096, &c[paced]);
		if (getenv("FT_PKTTCP_PRINT"))
			print_message("incast 7 x 80 KiB, pacing %s: %llu drops, %llu resent, %llu "
			              "timeouts, %llu resends lost again, %llu reordering timers, "
			              "%llu recoveries, %.3f us\n",
			              paced ? "on" : "off", (unsigned long long)c[paced].ndrops,
			              (unsigned long long)c[paced].nretx,
			              (unsigned long long)pk(e)->ntcp_rto,
			              (unsigned long long)tcp_sum(e, 0),
			              (unsigned long long)tcp_sum(e, 1),
			              (unsigned long long)pk(e)->ntcp_fast,
			              c[paced].makespan_s * 1e6);
		rto[paced] = pk(e)->ntcp_rto;
		nrec[paced] = pk(e)->ntcp_fast;
		ft_packet_engine.destroy(e);
	}
	assert_true(c[0].ndrops >= 35);
	assert_int_equal(rto[0], 0);
	assert_int_equal(nrec[0], 7);
	assert_true(c[0].makespan_s < 100e-6);
	assert_int_equal(c[1].ndrops, 0);
	assert_int_equal(rto[1] + nrec[1], 0);
	assert_true(c[1].makespan_s < c[0].makespan_s);
	ft_topo_free(n.t);
}

/*
 * SRD's tail-loss probe (RFC 8985's PTO as the model): one EFA flow of 256 packets, no
 * rate control, its packet 250 lost (within the last 64: no ACK comes 64 places past it,
 * so no gap hint). SRD's ACKs feed the QP's RTT estimate whatever its rate control: alone
 * on its paths every sample is R = floor((2 path latencies + one wire packet time) / 1
 * ns), SRTT = R. The sender's last ACK (packet 255's) comes back a path latency after
 * that packet arrived; 2 SRTT later the probe's pass resends packet 250, which arrives
 * one wire time and a path latency later: the flow ends 2 R + RTT after it would have,
 * to the picosecond, where the 100 us timer would have taken 100 us. Nothing times out,
 * one probe, one resend.
 */
static void
test_srd_tail_probe(void **state)
{
	struct net n;
	uint32_t ends[2], lost = 250;
	struct ft_packet_cfg pc = { .cc = FT_PKT_CC_NONE };
	struct ft_sim_counters c0, c;
	struct ft_engine *e;
	double base, lat, T, pto;

	(void)state;
	net_build(&n, "aws-p5:2", NULL);
	ends[0] = ft_topo_nic(n.t, 0, 0);
	ends[1] = ft_topo_nic(n.t, 1, 0);
	e = tcp_flow(&n, ends, &pc, 256, NULL, 0, &c0);
	assert_true(pk(e)->sack && pk(e)->may_drop);
	base = c0.makespan_s;
	lat = (double)((const struct pk_flow *)ft_vec_at(&pk(e)->flows, 0))->lat_ps / PS;
	T = (double)(uint64_t)((4096.0 + pk(e)->hdr) / pk(e)->line_Bps * PS + 0.5) / PS;
	pto = 2 * floor((2 * lat + T) * 1e9) * 1e-9;
	assert_int_equal(pk_flow_cc(pk(e), ft_vec_at(&pk(e)->flows, 0))->srtt_ns,
	                 (uint64_t)(pto * 1e9 / 2 + 0.5));
	ft_packet_engine.destroy(e);
	e = tcp_flow(&n, ends, &pc, 256, &lost, 1, &c);
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("srd tail: %.3f us against %.3f us, PTO %.3f us, rtt %.3f us, "
		              "%llu probes, %llu hints\n",
		              c.makespan_s * 1e6, base * 1e6, pto * 1e6, (2 * lat + T) * 1e6,
		              (unsigned long long)pk(e)->nsrd_probes,
		              (unsigned long long)pk(e)->nsrd_hints);
	assert_int_equal(c.ndrops, 1);
	assert_int_equal(c.nretx, 1);
	assert_int_equal(pk(e)->nsrd_probes, 1);
	assert_int_equal(c.ntail_probes, 1); /* (--json tail_probes) */
	assert_int_equal(pk(e)->nsrd_hints, 0);
	for (uint32_t l = 0; l < ft_topo_nlinks(n.t); l++)
		assert_int_equal(c.port[l].ack_timeouts, 0);
	/* the last ACK at base + lat, the probe PTO later, the resend T + lat after it */
	assert_double_equal(c.makespan_s, base + lat + pto + T + lat, 2e-12);
	assert_true(c.makespan_s < base + 100e-6 / 5);
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/*
 * SRD's tail-loss probe with its rate control on (congestion_control srd, EFA's default),
 * whose samples feed the QP's RFC 6298 estimate (pkt_cc.c srd_rtt_est()): the flow of
 * test_srd_tail_probe, its packet 250 lost. Alone on its paths every packet's sample is
 * the same, one wire time and a path latency out and a path latency back, in whole ns
 * (R = floor((T + 2 lat) / 1 ns)): SRTT = R to the ns (RFC 6298 2.2 and 2.3 from a
 * constant R), RTTVAR halved at the first sample and down by a quarter at each of the
 * 255 after it, to 0. The probe fires 2 SRTT after the last ACK (RFC 8985 7.2) and its
 * pass resends packet 250: the flow ends at base + lat + 2 R + T + lat, to the
 * picosecond, one probe, one resend, no timeout.
 */
static void
test_srd_tail_probe_srtt(void **state)
{
	struct net n;
	uint32_t ends[2], lost = 250;
	struct ft_packet_cfg pc = { .cc = FT_PKT_CC_SRD };
	struct ft_sim_counters c0, c;
	struct ft_engine *e;
	const struct pk_dcqcn *d;
	uint64_t lat_ps, t_ps, r_ns;
	double base;

	(void)state;
	net_build(&n, "aws-p5:2", NULL);
	ends[0] = ft_topo_nic(n.t, 0, 0);
	ends[1] = ft_topo_nic(n.t, 1, 0);
	e = tcp_flow(&n, ends, &pc, 256, NULL, 0, &c0);
	assert_true(pk(e)->srd && pk(e)->sack && pk(e)->may_drop);
	base = c0.makespan_s;
	lat_ps = ((const struct pk_flow *)ft_vec_at(&pk(e)->flows, 0))->lat_ps;
	t_ps = (uint64_t)((4096.0 + pk(e)->hdr) / pk(e)->line_Bps * PS + 0.5);
	r_ns = (t_ps + 2 * lat_ps) / 1000;
	d = pk_flow_cc(pk(e), (const struct pk_flow *)ft_vec_at(&pk(e)->flows, 0));
	assert_int_equal(d->srtt_ns, r_ns);
	assert_int_equal(d->rttvar_ns, 0);
	assert_int_equal(c0.nretx, 0);
	ft_packet_engine.destroy(e);
	e = tcp_flow(&n, ends, &pc, 256, &lost, 1, &c);
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("srd tail, paced: %.6f us against %.6f us, SRTT %llu ns\n",
		              c.makespan_s * 1e6, base * 1e6, (unsigned long long)r_ns);
	assert_int_equal(c.ndrops, 1);
	assert_int_equal(c.nretx, 1);
	assert_int_equal(c.ntail_probes, 1);
	assert_int_equal(pk(e)->nsrd_hints, 0);
	for (uint32_t l = 0; l < ft_topo_nlinks(n.t); l++)
		assert_int_equal(c.port[l].ack_timeouts, 0);
	assert_double_equal(c.makespan_s,
	                    base + (double)(2 * lat_ps + 2 * r_ns * 1000 + t_ps) / PS, 2e-12);
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/*
 * SRD's estimator on samples that vary, and the timers read from it (RFC 6298 2.2 and
 * 2.3 with alpha 1/8 and beta 1/4, SRTT rounded to the nearest ns and RTTVAR down): R =
 * 3000 ns sets SRTT 3000 and RTTVAR 1500; R = 12000 gives RTTVAR 3/4 1500 + 1/4 9000 =
 * 3375 and SRTT 7/8 3000 + 12000 / 8 = 4125; R = 3000 again gives RTTVAR 3/4 3375 + 1/4
 * 1125 = 2812.5, 2812, and SRTT 3609.375 + 375 = 3984.375, 3984. The probe timeout is
 * then 2 SRTT, 7968 ns (twice the lowest RTT plus the last sample's queueing would be
 * 6000 ns), and the retransmit timeout SRTT + 4 RTTVAR = 15232 ns over a 5 us
 * retransmit_timeout, or the 100 us floor where none is given. A fresh record has no
 * estimate: both timers are the retransmit timeout (RFC 8985 7.2's fallback).
 */
static void
test_srd_rtt_estimator(void **state)
{
	static const uint32_t r[] = { 3000, 12000, 3000 };
	static const uint32_t srtt[] = { 3000, 4125, 3984 }, rttvar[] = { 1500, 3375, 2812 };
	struct net n;
	uint32_t ends[2];
	struct ft_packet_cfg pc = { .cc = FT_PKT_CC_SRD };
	struct ft_sim_counters c;
	struct ft_engine *e;
	struct pk_engine *pe;
	struct pk_flow *f;
	struct pk_dcqcn *d;

	(void)state;
	net_build(&n, "aws-p5:2", NULL);
	ends[0] = ft_topo_nic(n.t, 0, 0);
	ends[1] = ft_topo_nic(n.t, 1, 0);
	for (int floor = 0; floor < 2; floor++) {
		pc.rto_s = floor ? 0 : 5e-6;
		e = tcp_flow(&n, ends, &pc, 4, NULL, 0, &c);
		pe = ft_container_of(e, struct pk_engine, base);
		f = ft_vec_at(&pe->flows, 0);
		d = pk_flow_cc(pe, f);
		assert_true(pe->srd && pe->sack);
		d->srtt_ns = d->rttvar_ns = 0;
		assert_int_equal(ft__pk_srd_rto(pe, f), pe->rto_ps);
		assert_int_equal(ft__pk_srd_pto(pe, f), pe->rto_ps);
		for (size_t i = 0; i < FT_ARRAY_SIZE(r); i++) {
			assert_int_equal(ft__pk_ev_rtt(pe, 0, r[i]), 0);
			assert_int_equal(d->srtt_ns, srtt[i]);
			assert_int_equal(d->rttvar_ns, rttvar[i]);
		}
		assert_int_equal(ft__pk_srd_pto(pe, f), 7968000);
		assert_int_equal(ft__pk_srd_rto(pe, f), floor ? 100000000 : 15232000);
		ft_packet_engine.destroy(e);
	}
	ft_topo_free(n.t);
}

/* The knobs: packet.tcp_sack, tcp_delayed_ack and tcp_pacing read on or off, on when not
 * given; anything else is an error that names the file, line and column, and the key. */
static void
test_tcp_knobs(void **state)
{
	static const char head[] = "cluster: gcp-a3-mega:2\nengine: packet\n"
	                           "jobs: [{ops: [{op: all_reduce, size: 1M}]}]\npacket:\n";
	struct ft_scenario *sc = NULL;
	struct ft_error err = { 0 };
	char text[512];

	(void)state;
	snprintf(text, sizeof(text), "%s  tcp_window: 1MiB\n", head);
	assert_int_equal(ft_scenario_load_buffer(text, strlen(text), "t.yaml", &sc, &err), 0);
	assert_int_equal(sc->packet.tcp_sack, FT_PKT_ON);
	assert_int_equal(sc->packet.tcp_delayed_ack, FT_PKT_ON);
	assert_int_equal(sc->packet.tcp_pacing, FT_PKT_ON);
	ft_scenario_free(sc);
	sc = NULL;
	snprintf(text, sizeof(text),
	         "%s  tcp_sack: off\n  tcp_delayed_ack: off\n  tcp_pacing: on\n", head);
	assert_int_equal(ft_scenario_load_buffer(text, strlen(text), "t.yaml", &sc, &err), 0);
	assert_int_equal(sc->packet.tcp_sack, FT_PKT_OFF);
	assert_int_equal(sc->packet.tcp_delayed_ack, FT_PKT_OFF);
	assert_int_equal(sc->packet.tcp_pacing, FT_PKT_ON);
	ft_scenario_free(sc);
	sc = NULL;
	snprintf(text, sizeof(text), "%s  tcp_sack: on\n  tcp_pacing: fast\n", head);
	assert_true(ft_scenario_load_buffer(text, strlen(text), "t.yaml", &sc, &err) < 0);
	if (getenv("FT_PKTTCP_PRINT"))
		print_message("bad knob: %s\n", err.msg);
	assert_non_null(strstr(err.msg, "t.yaml:6:"));
	assert_non_null(strstr(err.msg, "tcp_pacing"));
	assert_non_null(strstr(err.msg, "off"));
	ft_scenario_free(sc);
}

/*
 * A blackholed TCP connection fails by Linux's rule (net/ipv4/tcp_timer.c
 * tcp_write_timeout(), retransmits_timed_out(), tcp_model_timeout()): at the first timeout
 * that comes at least tcp_retries2's modelled time after its first resend, 15 timeouts'
 * doublings from TCP_RTO_MIN up to TCP_RTO_MAX, (2^10 - 1) x 200 ms + 6 x 120 s = 924.6 s
 * (8: 102.2 s, RFC 1122's "at least 100 seconds"). One flow of TCPX (A3 Mega) whose
 * sender's link to the fabric is down: each packet dies there, a tail-loss probe goes
 * first (and dies), the timer doubles from its RTO r (Linux's: SRTT plus the 200 ms
 * floor, then a 250 ms one, in jiffies: 201 and 251 ms) to 120 s, and the run fails with
 * ETIMEDOUT at the time the rule gives, to the picosecond: with r = 201 ms the 16th
 * timeout comes 925.422 s after the first resend, past the budget, and fails the
 * connection (with RFC 6298's r = 200 ms, 924.4 s: the 17th failed); with 251 ms the
 * 16th too. Before, TCP ran out at an InfiniBand QP's 8 timeouts: 51 s.
 */
static void
test_tcp_blackhole_fails(void **state)
{
	static const double floors[] = { 0, 0.25 };
	static const uint32_t want_k[] = { 16, 16 };

	(void)state;
	assert_int_equal(ft__pk_tcp_give_up_ps(15), s_to_ps(924.6));
	assert_int_equal(ft__pk_tcp_give_up_ps(8), s_to_ps(102.2));
	assert_int_equal(ft__pk_tcp_give_up_ps(9), s_to_ps(204.6));
	assert_int_equal(ft__pk_tcp_give_up_ps(10), s_to_ps(324.6));
	for (size_t i = 0; i < FT_ARRAY_SIZE(floors); i++) {
		struct net n;
		uint32_t ends[2], l, k;
		struct ft_packet_cfg pc = { .rto_s = floors[i] };
		struct ft_sim_cfg cfg;
		struct ft_schedule s;
		struct ft_error err = { 0 };
		struct ft_sim_counters c;
		struct ft_engine *e;
		const struct pk_flow *f;
		uint64_t r, t, T, first, give_up = ft__pk_tcp_give_up_ps(PK_TCP_RETRIES2);

		a3_pair(&n, 0, ends);
		l = nic_uplink(&n, ends[0]);
		assert_int_equal(ft_topo_set_link_scale(n.t, l, 0), 0);
		assert_int_equal(ft_topo_set_link_scale(n.t, ft_topo_link(n.t, l)->rev, 0), 0);
		ft_sim_cfg_init(&cfg);
		cfg.packet = &pc;
		e = submit_pairs(&ft_packet_engine, &n, &cfg, ends, 1, 64 * 4096, &s);
		assert_true(pk(e)->tcp);
		assert_int_equal(ft_packet_engine.run(e, 0, &err), FT_EIO);
		assert_int_equal(ft_packet_engine.counters(e, &c, &err), 0);
		f = ft_vec_at(&pk(e)->flows, 0);
		r = ft__pk_tcp_rto_ps(conn0(e), 0);
		/* Linux's: the handshake's SRTT (2 path latencies) over the floor, in jiffies */
		assert_int_equal(r, (uint64_t)ceil((double)(2 * f->lat_ps + s_to_ps(floors[i] > 0 ?
		                                                                  floors[i] :
		                                                                  0.2)) /
		                                   1e9) *
		                            (uint64_t)1e9);
		/* the rule, apart: timeout j at t; the first resends, the one give_up after
		 * it fails. The tail-loss probe came first (new data, packet 10: it too is
		 * lost), 3 ms (2 SRTT + 2 ms, in jiffies) after the initial window's last
		 * packet left, 9 wire packet times T after the start; the RTO r after it. */
		assert_int_equal(conn0(e)->ntlp, 1);
		assert_int_equal(c.nloss_probes, 1);
		T = (uint64_t)llround((4096.0 + pk(e)->hdr) / pk(e)->line_Bps * PS);
		first = t = 9 * T + s_to_ps(3e-3) + r;
		for (k = 1; t - first < give_up; k++)
			t += ft__pk_tcp_rto_ps(conn0(e), k);
		if (getenv("FT_PKTTCP_PRINT"))
			print_message("floor %.0f ms: failed at %.6f s, timeout %u (rule %.6f s)\n",
			              (double)r / 1e9, c.qp_error.t_s, c.qp_error.timeouts,
			              (double)t / PS);
		assert_int_equal(k, want_k[i]);
		assert_true(c.qp_error.failed && c.qp_error.tcp);
		assert_int_equal(pk(e)->now_ps, t);
		assert_int_equal(c.qp_error.timeouts, k);
		assert_int_equal(c.qp_error.retry_cnt, 15);
		assert_double_equal(c.qp_error.rtx_s, (double)first / PS, 1e-12);
		assert_double_equal(c.qp_error.t_s, (double)t / PS, 1e-12);
		assert_non_null(strstr(err.msg, "ETIMEDOUT"));
		assert_non_null(strstr(err.msg, "is down and no other path is left"));
		ft_packet_engine.destroy(e);
		ft_schedule_release(&s);
		ft_topo_free(n.t);
	}
}

/* The line of @text that starts with @prefix, without its newline, into @line ("" if none) */
static void
line_of(const char *text, const char *prefix, char *line, size_t len)
{
	const char *p = text;
	size_t n;

	line[0] = '\0';
	while (p && *p) {
		if (strncmp(p, prefix, strlen(prefix)) == 0) {
			n = strcspn(p, "\n");
			assert_true(n < len);
			memcpy(line, p, n);
			line[n] = '\0';
			return;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
}

/*
 * The TCP line and the NIC send pipelines line of a packet run's text report: each count
 * takes its noun's singular at 1 and the plural otherwise ("led by SACK" and "mended a
 * loss" take none); without any TCP recovery counted the TCP line is left out.
 */
static void
test_tcp_line_text(void **state)
{
	static const struct {
		uint64_t n;
		const char *tcp, *nic;
	} cases[] = {
		{ 1,
		  "TCP: 1 fast retransmit (1 led by SACK), 1 timeout, 1 tail-loss probe (1 mended a "
		  "loss), 1 reordering timeout, 1 resend lost again, 1 D-SACK, 1 delayed ACK",
		  "NIC send pipelines: 1 message, 1 with their QP context not cached, 0.500 us "
		  "waited in all" },
		{ 2,
		  "TCP: 2 fast retransmits (2 led by SACK), 2 timeouts, 2 tail-loss probes (2 "
		  "mended a loss), 2 reordering timeouts, 2 resends lost again, 2 D-SACKs, 2 "
		  "delayed ACKs",
		  "NIC send pipelines: 2 messages, 2 with their QP context not cached, 0.500 us "
		  "waited in all" },
	};
	struct ft_sim_report rep;
	struct ft_strbuf out;
	char line[512];

	(void)state;
	for (size_t i = 0; i < FT_ARRAY_SIZE(cases); i++) {
		struct ft_sim_counters *c = &rep.c;
		uint64_t n = cases[i].n;

		ft_sim_report_init(&rep);
		snprintf(rep.scenario, sizeof(rep.scenario), "s");
		snprintf(rep.engine, sizeof(rep.engine), "packet");
		snprintf(rep.routing, sizeof(rep.routing), "ecmp");
		snprintf(rep.cluster, sizeof(rep.cluster), "c");
		c->nfast_retx = c->nsack_recoveries = c->ntcp_timeouts = n;
		c->nloss_probes = c->nloss_probe_recoveries = c->nreo_timeouts = n;
		c->nlost_retransmits = c->ndsacks = c->ndelayed_acks = n;
		c->nic_msgs = c->nic_missed = n;
		c->nic_wait_s = 0.5e-6;
		ft_strbuf_init(&out);
		ft_sim_report_text(&rep, true, &out);
		line_of(out.buf, "TCP: ", line, sizeof(line));
		assert_string_equal(line, cases[i].tcp);
		line_of(out.buf, "NIC send pipelines: ", line, sizeof(line));
		assert_string_equal(line, cases[i].nic);
		ft_strbuf_release(&out);

		/* nothing recovered (only delayed ACKs): no TCP line */
		c->nfast_retx = c->nsack_recoveries = c->ntcp_timeouts = 0;
		c->nloss_probes = c->nloss_probe_recoveries = c->nreo_timeouts = 0;
		c->nlost_retransmits = c->ndsacks = 0;
		ft_strbuf_init(&out);
		ft_sim_report_text(&rep, true, &out);
		line_of(out.buf, "TCP: ", line, sizeof(line));
		assert_string_equal(line, "");
		line_of(out.buf, "makespan: ", line, sizeof(line));
		assert_string_equal(line, "makespan: 0.00 us");
		ft_strbuf_release(&out);
		ft_sim_report_release(&rep);
	}
}

/*
 * The model's pipeline terms of an op (pkt_setup.c pipe_terms(): the ramp and the proxy's
 * floor on GPUDirect-TCPX/O) are read before the op adds its first task: a reading that
 * fails (out of memory; on nodes of different GPU counts the model reads its links per
 * node group, an allocation) leaves the engine as it was, no task or edge of an op that
 * was never submitted. A ring all-reduce of 1 MiB, Simple, on a 4-GPU and a 2-GPU
 * gcp-a3-mega node: every allocation of its submission failed in turn; where the model's
 * reading failed ("the model's links") the engine's tasks and edges are those before the
 * submission; past the last allocation the op is submitted.
 */
static void
test_tcp_pipe_read_first(void **state)
{
	static const char text[] =
	        "name: tcpx-mixed\n"
	        "nodes:\n"
	        "  - { preset: gcp-a3-mega, count: 1, gpus: 4, nics: { count: 4 } }\n"
	        "  - { preset: gcp-a3-mega, count: 1, gpus: 2, nics: { count: 2 } }\n"
	        "fabric: { kind: fat-tree, link: tcpx200, tiers: 2, radix: 64 }\n";
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
		                  .algo = FT_ALGO_RING,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 6,
		                  .bytes = 1u << 20 };
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };
	struct ft_topo *t = NULL;
	struct ft_schedule s;
	struct ft_sim_cfg cfg;
	uint32_t ends[6];
	unsigned long n, read_failed = 0;

	(void)state;
	assert_int_equal(ft_spec_load_buffer(text, sizeof(text) - 1, "t.yaml", &spec, &err), 0);
	assert_int_equal(ft_topo_build(&spec, &t, &err), 0);
	for (uint32_t r = 0; r < 6; r++)
		ends[r] = ft_topo_gpu(t, r < 4 ? 0 : 1, r < 4 ? r : r - 4);
	ft_schedule_init(&s);
	assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
	ft_sim_cfg_init(&cfg);
	for (n = 1; n < 10000; n++) {
		struct ft_sim_op op = { .sched = &s, .rank_gpu = ends, .after = -1 };
		struct ft_engine *e = NULL;
		const struct pk_engine *pe;
		size_t ntasks, nedges;
		int64_t id;
		bool fired;

		assert_int_equal(ft_packet_engine.create(t, &cfg, &e, &err), 0);
		pe = pk(e);
		assert_true(pe->tcp);
		ntasks = pk_ntasks(pe);
		nedges = pe->edges.len;
		memset(&err, 0, sizeof(err));
		ft__alloc_fail_at(n);
		id = ft_packet_engine.submit(e, &op, &err);
		fired = ft__alloc_failed();
		ft__alloc_fail_at(0);
		if (!fired) {
			assert_int_equal(id, 0);
			assert_true(pk_ntasks(pe) > ntasks);
			ft_packet_engine.destroy(e);
			break;
		}
		assert_int_equal(id, FT_ENOMEM);
		if (strstr(err.msg, "the model's links")) {
			read_failed++;
			if (pk_ntasks(pe) != ntasks || pe->edges.len != nedges)
				fail_msg("allocation %lu failed (%s): %zu tasks and %zu edges, %zu "
				         "and %zu before",
				         n, err.msg, pk_ntasks(pe), pe->edges.len, ntasks, nedges);
		}
		ft_packet_engine.destroy(e);
	}
	print_message("# %lu allocations, %lu of them the model's readings\n", n - 1, read_failed);
	assert_true(n > 1 && n < 10000);
	/* the net step's links (ft__sim_link_lats()) and the pipeline's */
	assert_true(read_failed >= 2);
	ft_schedule_release(&s);
	ft_topo_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cubic_k),
		cmocka_unit_test(test_cubic_sawtooth),
		cmocka_unit_test(test_slow_start_doublings),
		cmocka_unit_test(test_tcp_rto),
		cmocka_unit_test(test_tcp_slow_start_wire),
		cmocka_unit_test(test_tcp_recovery),
		cmocka_unit_test(test_tcp_sack_holes),
		cmocka_unit_test(test_prr_law),
		cmocka_unit_test(test_rack_law),
		cmocka_unit_test(test_tcp_rack_wire),
		cmocka_unit_test(test_tlp_law),
		cmocka_unit_test(test_dsack_law),
		cmocka_unit_test(test_tcp_tlp_wire),
		cmocka_unit_test(test_tcp_tlp_lost_probe),
		cmocka_unit_test(test_tcp_tlp_two_lost),
		cmocka_unit_test(test_tcp_tlp_reopen),
		cmocka_unit_test(test_tcp_dsack_wire),
		cmocka_unit_test(test_tcp_counters_sum),
		cmocka_unit_test(test_tcp_held_list),
		cmocka_unit_test(test_tcp_delayed_ack),
		cmocka_unit_test(test_tcp_partial_fill_ack),
		cmocka_unit_test(test_tcp_quick_reentry),
		cmocka_unit_test(test_tcp_fill_spends_quick),
		cmocka_unit_test(test_tcp_rerecover),
		cmocka_unit_test(test_tcp_newreno_tail_rto),
		cmocka_unit_test(test_tcp_pacing_gap),
		cmocka_unit_test(test_tcp_pacing_incast),
		cmocka_unit_test(test_tcp_knobs),
		cmocka_unit_test(test_srd_tail_probe),
		cmocka_unit_test(test_srd_tail_probe_srtt),
		cmocka_unit_test(test_srd_rtt_estimator),
		cmocka_unit_test(test_tcp_blackhole_fails),
		cmocka_unit_test(test_tcp_line_text),
		cmocka_unit_test(test_tcp_pipe_read_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

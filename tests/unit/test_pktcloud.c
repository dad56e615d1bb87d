/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_pktcloud.c - the packet engine on EFA (SRD) and GPUDirect-TCPX/O
 * fabrics against closed forms: one flow at line rate less the header share, SRD's
 * spraying even over equal paths, an incast on a lossy sprayed fabric that completes
 * within its buffers resending only what dropped, SRD's selective retransmission in
 * closed form, SRD's delay rule by hand, TCP's window, the proxy's floor, and
 * agreement with the flow engine where nothing contends.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* cmocka.h needs the headers above it. */
/* clang-format off */
#include <cmocka.h>
/* clang-format on */

#include <fabtune/fabtune.h>

#include "sim/pkt_int.h"

#include "pk_net.h"

/*
 * One flow from NIC 0 of one node to NIC 0 of the other. On aws-p5:2 the two NICs hang
 * under different leaves and the packets are sprayed over the spines (64 switch-to-switch
 * links carry them); on gcp-a3-mega:2 they share a leaf (NIC -> leaf -> NIC). Every link
 * runs at one rate and every switch cuts through, so the last byte arrives after the
 * packets' serialisation on one link plus the path's latency, at line rate x payload /
 * (payload + header), however many paths the packets take. EFA: the header is the share
 * the model gives the link (3,108 of 3,200 Gb/s: 121 bytes at MTU 4096); TCP: none (the
 * model counts none, PS-TCPX), so exactly line rate, the default 1 MiB window not binding
 * on a path of a few us.
 */
static void
test_one_flow_line_rate(void **state)
{
	static const char *const presets[] = { "aws-p5:2", "gcp-a3-mega:2" };

	(void)state;
	for (size_t k = 0; k < FT_ARRAY_SIZE(presets); k++) {
		struct net n;
		struct ft_sim_cfg cfg;
		struct ft_sim_counters c;
		struct ft_engine *e;
		uint32_t ends[2], mtu = 4096, npk = 256, hdr;
		uint64_t bytes = (uint64_t)npk * mtu, ser, want_ps;
		double cap = 0, lat = 0, rate;

		net_build(&n, presets[k], NULL);
		ends[0] = ft_topo_nic(n.t, 0, 0);
		ends[1] = ft_topo_nic(n.t, 1, 0);
		ft_sim_cfg_init(&cfg);
		e = run_pairs(&ft_packet_engine, &n, &cfg, ends, 1, bytes, &c);
		hdr = pk(e)->hdr;
		assert_int_equal(hdr, k == 0 ? 121 : 0);
		assert_int_equal(pk(e)->ooo, k == 0);
		assert_int_equal(pk(e)->spray, k == 0);
		assert_int_equal(pk(e)->pc.fc, k == 0 ? FT_PKT_FC_NONE : FT_PKT_FC_CREDIT);
		{
			const struct pk_flow *f = ft_vec_at(&pk(e)->flows, 0);
			uint32_t l = nic_uplink(&n, ends[0]);

			cap = ft_topo_link(n.t, l)->cap_Bps;
			lat = (double)f->lat_ps * 1e-12;
			assert_true(lat > 0);
		}
		ser = (uint64_t)((mtu + hdr) * (1e12 / cap) + 0.5);
		want_ps = npk * ser + (uint64_t)(lat * 1e12 + 0.5);
		assert_int_equal(c.nflows, 1);
		assert_double_equal(c.fct_max_s, (double)want_ps * 1e-12, 1.5e-12);
		rate = (double)bytes / (c.fct_max_s - lat);
		assert_double_equal(rate / (cap * mtu / (mtu + hdr)), 1.0, 1e-6);
		if (k == 0) /* the model's share, to its rounding of the header to a byte */
			assert_double_equal(rate / cap, 3108.283 / 3200, 5e-5);
		assert_int_equal(c.npackets, npk);
		assert_int_equal(c.ndrops, 0);
		assert_int_equal(c.nretx, 0);
		{ /* switch-to-switch links: EFA's 64 (sprayed over the spines), none for
		   * TCP (one leaf) */
			uint32_t nsw = 0;

			for (uint32_t l = 0; l < ft_topo_nlinks(n.t); l++) {
				const struct ft_link *lk = ft_topo_link(n.t, l);

				nsw += lk->kind == FT_L_FABRIC && c.port[l].tx_bytes > 0 &&
				       ft_topo_vertex(n.t, lk->src)->kind == FT_V_SWITCH &&
				       ft_topo_vertex(n.t, lk->dst)->kind == FT_V_SWITCH;
			}
			if (getenv("FT_PKTCLOUD_PRINT"))
				print_message("%s: %u switch links carried the flow\n", presets[k],
				              nsw);
			assert_int_equal(nsw, k == 0 ? 64 : 0);
		}
		ft_packet_engine.destroy(e);
		ft_topo_free(n.t);
	}
}

/* The leaf port ids out of the leaf above NIC @nic towards the spines (fabric links). */
static uint32_t
leaf_uplinks(const struct net *n, uint32_t nic, uint32_t *out, uint32_t max)
{
	uint32_t leaf = ft_topo_link(n->t, nic_uplink(n, nic))->dst, first, count, k = 0;

	ft_topo_out_links(n->t, leaf, &first, &count);
	for (uint32_t i = first; i < first + count && k < max; i++)
		if (ft_topo_link(n->t, i)->kind == FT_L_FABRIC &&
		    ft_topo_vertex(n->t, ft_topo_link(n->t, i)->dst)->kind == FT_V_SWITCH)
			out[k++] = i;
	return k;
}

/*
 * SRD's spraying over K equal paths (dgx-h100:4 with its links taken as EFA: rails
 * cross the spines between different rails): N flows from N NICs under one leaf to
 * NICs of other rails each send 64 x K packets; each flow takes its leaf's K uplinks
 * in turn (a port with a whole packet queued is passed over), so the uplinks carry N x
 * 64 packets' wire bytes each, within 6 % (measured: -5.1 % to +2.7 %; the sum exact),
 * and the flows, alike in everything, end together (within 4 packet times). ECMP on the
 * same fabric (spraying off: InfiniBand) puts each flow on one uplink.
 */
static void
test_spray_even(void **state)
{
	struct net n;
	uint32_t up[64], K, N = 4, ends[8];
	uint64_t npk = 0;

	(void)state;
	net_build(&n, "dgx-h100:4", "efa100");
	K = leaf_uplinks(&n, ft_topo_nic(n.t, 0, 0), up, FT_ARRAY_SIZE(up));
	assert_true(K >= 2);
	for (uint32_t i = 0; i < N; i++) {
		ends[2 * i] = ft_topo_nic(n.t, i, 0);          /* rail 0 */
		ends[2 * i + 1] = ft_topo_nic(n.t, (i + 1) % N, 1 + i % 3); /* another rail */
	}
	npk = 64ull * K;
	{
		struct ft_sim_cfg cfg;
		struct ft_sim_counters c;
		struct ft_engine *e;
		uint64_t want, sum = 0;
		double t_pkt;

		ft_sim_cfg_init(&cfg);
		cfg.routing = FT_ROUTING_ECMP;
		e = run_pairs(&ft_packet_engine, &n, &cfg, ends, N, npk * 4096, &c);
		assert_true(pk(e)->spray);
		want = N * 64ull * (4096 + pk(e)->hdr);
		for (uint32_t j = 0; j < K; j++) {
			assert_true(c.port[up[j]].tx_bytes >= want * 0.94);
			assert_true(c.port[up[j]].tx_bytes <= want * 1.06);
			sum += c.port[up[j]].tx_bytes;
		}
		assert_int_equal(sum, K * want);
		assert_int_equal(c.ndrops, 0);
		t_pkt = (4096.0 + pk(e)->hdr) / ft_topo_link(n.t, up[0])->cap_Bps;
		assert_true(c.fct_max_s - c.fct_min_s <= 4 * t_pkt);
		ft_packet_engine.destroy(e);
	}
	ft_topo_free(n.t);
	/* The same flows under ECMP on InfiniBand: whole flows per uplink, so not all K
	 * carry the same bytes unless the hash happens to spread them one per port. */
	net_build(&n, "dgx-h100:4", NULL);
	{
		struct ft_sim_cfg cfg;
		struct ft_sim_counters c;
		struct ft_engine *e;
		uint32_t used = 0;

		ft_sim_cfg_init(&cfg);
		cfg.routing = FT_ROUTING_ECMP;
		e = run_pairs(&ft_packet_engine, &n, &cfg, ends, N, npk * 4096, &c);
		assert_false(pk(e)->spray);
		for (uint32_t j = 0; j < K; j++)
			used += c.port[up[j]].tx_bytes > 0;
		assert_true(used <= N && used < K);
		ft_packet_engine.destroy(e);
	}
	ft_topo_free(n.t);
}

/* 15 NICs of nodes 1-3 each sending to NIC 0 of node 0. */
static uint32_t
incast_ends(const struct net *n, uint32_t *ends)
{
	uint32_t k = 0;

	for (uint32_t node = 1; node < 4; node++)
		for (uint32_t r = 0; r < 8; r++)
			if (k / 2 < 15) {
				ends[k++] = ft_topo_nic(n->t, node, r);
				ends[k++] = ft_topo_nic(n->t, 0, 0);
			}
	return k / 2;
}

/* A second run of the same flows (@b) gave the first's (@a) counters and makespan
 * exactly: the packet engine is deterministic. */
static void
assert_same_run(const struct ft_sim_counters *a, const struct ft_sim_counters *b)
{
	assert_int_equal(b->ndrops, a->ndrops);
	assert_int_equal(b->nretx, a->nretx);
	assert_int_equal(b->npackets, a->npackets);
	assert_int_equal(b->nevents, a->nevents);
	assert_true(b->makespan_s == a->makespan_s);
}

/* The timeouts the senders' NICs counted in @c. */
static uint64_t
timeouts_of(const struct net *n, const struct ft_sim_counters *c)
{
	uint64_t t = 0;

	for (uint32_t l = 0; l < ft_topo_nlinks(n->t); l++)
		t += c->port[l].ack_timeouts;
	return t;
}

/*
 * An incast on a lossy sprayed fabric (EFA): 15 senders of 1 MiB into one NIC, with the
 * default switch buffer (32 MiB) and with 2 MiB. The receiver's port is the bottleneck:
 * its queue never holds more than the switch's buffer. With 32 MiB the buffer holds
 * what arrives faster than the port drains (under 15 MiB) and nothing is lost; with 2 MiB
 * the excess is dropped at the receiver's leaf and nowhere else (the sprayed spines carry
 * no excess), every drop is sent again after the timeout, and every byte arrives: the
 * run completes, no sooner than the receiver's link takes all 15 MiB. Every sender had
 * RTT samples for SRD's delay rule. SRD resends only what no ACK named: every packet
 * sent either drops or arrives, first or again, so resends = drops + duplicates at the
 * receivers exactly. A flow's timer runs 100 us (or SRTT + 4 RTTVAR, if more) from the
 * last ACK that moved its snd_una, and a gap hint resends a packet 64 ACKs past it. A
 * timeout's pass resends every packet no ACK named, some of them still queued (the hot
 * port's queue holds 1.7 MB, 138 us at line rate): the duplicates are those, at most
 * one per timeout; a probe or a hint that resent packets only late would show as more
 * (measured: 4,715 drops of 8,561 packets sent, 4,721 resends, 6 duplicates from 4 of
 * the 17 timeouts, 28 hints, 11 probes, 374.9 us). The run is the same twice.
 */
static void
test_efa_incast(void **state)
{
	static const uint64_t bufs[] = { 0, 2u << 20 };
	struct net n;
	uint32_t ends[64], np, hot, leaf;

	(void)state;
	net_build(&n, "dgx-h100:4", "efa100");
	np = incast_ends(&n, ends);
	hot = ft_topo_link(n.t, nic_uplink(&n, ends[1]))->rev;
	leaf = ft_topo_link(n.t, hot)->src;
	for (size_t k = 0; k < FT_ARRAY_SIZE(bufs); k++) {
		struct ft_sim_cfg cfg;
		struct ft_packet_cfg pc = { .switch_buffer_bytes = bufs[k] };
		struct ft_sim_counters c;
		struct ft_engine *e;
		const struct pk_engine *pe;
		struct ft_sim_counters c2;
		uint64_t sub, del, leaf_drops = 0, dups = 0;
		uint32_t nsampled = 0;
		double cap;

		ft_sim_cfg_init(&cfg);
		cfg.packet = &pc;
		e = run_pairs(&ft_packet_engine, &n, &cfg, ends, np, 1u << 20, &c);
		pe = pk(e);
		assert_true(pe->srd && pe->spray && pe->may_drop);
		ft__pk_bytes(e, &sub, &del);
		assert_int_equal(sub, del);
		assert_int_equal(c.nflows, np);
		for (uint32_t l = 0; l < ft_topo_nlinks(n.t); l++)
			if (ft_topo_link(n.t, l)->dst == leaf)
				leaf_drops += c.port[l].drops;
		assert_int_equal(leaf_drops, c.ndrops);
		for (uint32_t l = 0; l < ft_topo_nlinks(n.t); l++)
			dups += c.port[l].dup_requests;
		assert_int_equal(c.nretx, c.ndrops + dups);
		assert_true(dups <= timeouts_of(&n, &c)); /* still queued at a timeout */
		assert_true(c.port[hot].q_max_bytes <= pe->sw_limit);
		if (k == 0)
			assert_int_equal(c.ndrops, 0);
		else
			assert_true(c.ndrops > 0);
		cap = ft_topo_link(n.t, hot)->cap_Bps;
		assert_true(c.makespan_s >= (double)np * (1u << 20) / cap);
		for (size_t i = 0; i < pe->flows.len; i++)
			if (pk_flow_cc(pe, (const struct pk_flow *)ft_vec_at(&pe->flows, i))
			            ->prev_rtt_s > 0)
				nsampled++;
		assert_int_equal(nsampled, np);
		if (getenv("FT_PKTCLOUD_PRINT"))
			print_message(
			        "incast, buffer %llu B: makespan %.1f us (floor %.1f us), "
			        "drops %llu of %llu packets, retx %llu (%llu duplicates), "
			        "q_max %llu B, %llu gap hints, %llu tail probes, %llu timeouts\n",
			        (unsigned long long)pe->sw_limit, c.makespan_s * 1e6,
			        (double)np * (1u << 20) / cap * 1e6, (unsigned long long)c.ndrops,
			        (unsigned long long)c.npackets, (unsigned long long)c.nretx,
			        (unsigned long long)dups,
			        (unsigned long long)c.port[hot].q_max_bytes,
			        (unsigned long long)pe->nsrd_hints,
			        (unsigned long long)pe->nsrd_probes,
			        (unsigned long long)timeouts_of(&n, &c));
		ft_packet_engine.destroy(e);
		e = run_pairs(&ft_packet_engine, &n, &cfg, ends, np, 1u << 20, &c2);
		assert_same_run(&c, &c2);
		ft_packet_engine.destroy(e);
	}
	ft_topo_free(n.t);
}

/*
 * SRD's timer runs from the flow's first packet and restarts only when snd_una moves: a
 * flow whose ACKs keep trickling in past a lost packet still times out. One flow of 64
 * packets, store and forward with one-packet ingress buffers (the closed form below:
 * the odd packets drop at the sender's leaf, the even ones arrive, each ACKed), a 5 us
 * timeout: the sender's NIC takes 64 x 0.337 us = 21.6 us to put the flow on the wire,
 * snd_una stops at packet 1 once packet 0's ACK is back (a path latency, about 2 us),
 * and the timer fires 5 us after that, at about 7 us, while the ACKs of the even packets
 * are still coming: by 15 us the flow has timed out and resent. (Before, the timer was
 * armed at the tail's departure and restarted by every ACK: no timeout until the ACKs
 * stopped, after 21.6 us.) No gap hint fires (64 packets: none is PK_SRD_REORDER past
 * another). Run to the end every byte arrives and resends = drops + duplicates, exactly.
 */
static void
test_srd_timer_oldest(void **state)
{
	struct net n;
	uint32_t ends[2];
	struct ft_sim_cfg cfg;
	struct ft_packet_cfg pc = { .cc = FT_PKT_CC_NONE, .rto_s = 5e-6, .store_forward = true,
		                    .port_buffer_bytes = 4096 + 121 };
	struct ft_sim_counters c;
	struct ft_schedule s;
	struct ft_error err = { 0 };
	struct ft_engine *e;
	uint64_t sub, del, dups = 0;

	(void)state;
	net_build(&n, "aws-p5:2", NULL);
	ends[0] = ft_topo_nic(n.t, 0, 0);
	ends[1] = ft_topo_nic(n.t, 1, 0);
	ft_sim_cfg_init(&cfg);
	cfg.packet = &pc;
	e = submit_pairs(&ft_packet_engine, &n, &cfg, ends, 1, 64 * 4096, &s);
	assert_int_equal(ft_packet_engine.run(e, 15e-6, &err), 0);
	assert_int_equal(ft_packet_engine.counters(e, &c, &err), 0);
	if (getenv("FT_PKTCLOUD_PRINT"))
		print_message("timer: by 15 us %llu timeouts, %llu drops, %llu resends\n",
		              (unsigned long long)timeouts_of(&n, &c),
		              (unsigned long long)c.ndrops, (unsigned long long)c.nretx);
	assert_true(c.ndrops > 0);
	assert_int_equal(timeouts_of(&n, &c), 1);
	assert_true(c.nretx > 0);
	if (ft_packet_engine.run(e, 0, &err) != 0)
		fail_msg("run: %s", err.msg);
	assert_int_equal(ft_packet_engine.counters(e, &c, &err), 0);
	ft__pk_bytes(e, &sub, &del);
	assert_int_equal(sub, del);
	for (uint32_t l = 0; l < ft_topo_nlinks(n.t); l++)
		dups += c.port[l].dup_requests;
	assert_int_equal(c.nretx, c.ndrops + dups);
	assert_int_equal(pk(e)->nsrd_hints, 0);
	if (getenv("FT_PKTCLOUD_PRINT"))
		print_message("timer: makespan %.1f us, %llu timeouts, %llu drops, %llu resends, "
		              "%llu duplicates\n",
		              c.makespan_s * 1e6, (unsigned long long)timeouts_of(&n, &c),
		              (unsigned long long)c.ndrops, (unsigned long long)c.nretx,
		              (unsigned long long)dups);
	ft_packet_engine.destroy(e);
	ft_schedule_release(&s);
	ft_topo_free(n.t);
}

/*
 * SRD's gap hint: an ACK that names a packet PK_SRD_REORDER (64) places past one not
 * acknowledged resends that one at once, ahead of the timer. One flow of N = 1024
 * packets (345 us on the wire) over a link with a bit error rate of 1e-7, no rate
 * control: 18 packets are lost. With the hint every loss but those among the last 64
 * packets is resent within 64 packet times and a round trip, so when the tail has left
 * (350 us) every packet more than 64 before the last one sent has arrived (measured:
 * snd_una 990, snd_nxt 1021). With the timer alone the first loss still holds snd_una
 * (726) until the next timeout. Every byte arrives, each resend is a drop or a
 * duplicate, no timeout fires (a loss among the last 64 packets is found by the tail-loss
 * probe, srd_probe(): 359.9 us to the end, where the timer took 448.4 us), and the run is
 * the same twice.
 */
static void
test_srd_gap_hint(void **state)
{
	struct net n;
	uint32_t ends[2], N = 1024;
	struct ft_sim_cfg cfg;
	struct ft_packet_cfg pc = { .cc = FT_PKT_CC_NONE, .ber = 1e-7 };
	struct ft_sim_counters c, c2;
	struct ft_schedule s;
	struct ft_error err = { 0 };
	struct ft_engine *e;
	const struct pk_flow *f;
	uint64_t sub, del, dups = 0, hints;

	(void)state;
	net_build(&n, "aws-p5:2", NULL);
	ends[0] = ft_topo_nic(n.t, 0, 0);
	ends[1] = ft_topo_nic(n.t, 1, 0);
	ft_sim_cfg_init(&cfg);
	cfg.packet = &pc;
	e = submit_pairs(&ft_packet_engine, &n, &cfg, ends, 1, (uint64_t)N * 4096, &s);
	assert_int_equal(ft_packet_engine.run(e, 350e-6, &err), 0);
	f = ft_vec_at(&pk(e)->flows, 0);
	if (getenv("FT_PKTCLOUD_PRINT"))
		print_message("gap hint: at 350 us snd_una %u, snd_nxt %u\n", f->snd_una,
		              f->snd_nxt);
	assert_true(pk(e)->nsrd_hints > 0);
	assert_true(f->snd_nxt > N - 8 && f->snd_una + PK_SRD_REORDER > f->snd_nxt);
	if (ft_packet_engine.run(e, 0, &err) != 0)
		fail_msg("run: %s", err.msg);
	assert_int_equal(ft_packet_engine.counters(e, &c, &err), 0);
	ft__pk_bytes(e, &sub, &del);
	assert_int_equal(sub, del);
	for (uint32_t l = 0; l < ft_topo_nlinks(n.t); l++)
		dups += c.port[l].dup_requests;
	hints = pk(e)->nsrd_hints;
	if (getenv("FT_PKTCLOUD_PRINT"))
		print_message("gap hint: makespan %.1f us, %llu hints, %llu timeouts, %llu drops, "
		              "%llu resends, %llu duplicates\n",
		              c.makespan_s * 1e6, (unsigned long long)hints,
		              (unsigned long long)timeouts_of(&n, &c),
		              (unsigned long long)c.ndrops, (unsigned long long)c.nretx,
		              (unsigned long long)dups);
	assert_true(c.ndrops > 0);
	assert_int_equal(c.nretx, c.ndrops + dups);
	assert_int_equal(timeouts_of(&n, &c), 0);
	assert_int_equal(pk(e)->nsrd_probes, 1);
	ft_packet_engine.destroy(e);
	ft_schedule_release(&s);
	e = run_pairs(&ft_packet_engine, &n, &cfg, ends, 1, (uint64_t)N * 4096, &c2);
	assert_same_run(&c, &c2);
	assert_int_equal(pk(e)->nsrd_hints, hints);
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/*
 * SRD's selective retransmission in closed form: one flow of N packets between two
 * nodes, no rate control, store and forward, each switch ingress queue holding one wire
 * packet (port_buffer). At the sender's leaf packet i arrives whole as packet i - 1
 * finishes leaving (one wire time T apart, at line rate on both links); the arrival
 * was queued by the sender's NIC, which ties break ahead of the leaf's departure, so it
 * finds the buffer full and drops, and the one after it finds the buffer free. Of a run
 * of m packets sent back to back the floor(m / 2) in odd places drop; each timeout resends
 * exactly those, as one run, until a run of one goes through: k = floor(N / 2) +
 * floor(N / 4) + ... = N - popcount(N) drops over floor(log2 N) passes (the first
 * the tail-loss probe's, a few us after the tail, the others timeouts), and a resend
 * for each drop (a packet lost twice is resent twice), none for a packet that arrived.
 * Go-back-N would resend every packet from the first lost one (N = 4: 1, 2, 3, then 3
 * again). With the default buffers nothing drops and nothing is resent. The same run
 * twice gives the same counters to the bit.
 */
static void
test_srd_selective_closed_form(void **state)
{
	static const uint32_t sizes[] = { 1, 2, 3, 4, 5, 7, 8, 17, 64 };
	struct net n;
	uint32_t ends[2];

	(void)state;
	net_build(&n, "aws-p5:2", NULL);
	ends[0] = ft_topo_nic(n.t, 0, 0);
	ends[1] = ft_topo_nic(n.t, 1, 0);
	for (size_t s = 0; s < FT_ARRAY_SIZE(sizes); s++) {
		for (int tiny = 0; tiny < 2; tiny++) {
			struct ft_sim_cfg cfg;
			struct ft_packet_cfg pc = { .cc = FT_PKT_CC_NONE };
			struct ft_sim_counters c, c2;
			struct ft_engine *e;
			uint64_t N = sizes[s], k = N - (uint64_t)__builtin_popcountll(N), sub, del;
			uint64_t timeouts = 0, P = 0;

			for (uint64_t m = N; m > 1; m /= 2)
				P++;
			if (tiny) {
				pc.store_forward = true;
				pc.port_buffer_bytes = 4096 + 121;
			}
			ft_sim_cfg_init(&cfg);
			cfg.packet = &pc;
			e = run_pairs(&ft_packet_engine, &n, &cfg, ends, 1, N * 4096, &c);
			assert_true(pk(e)->sack && pk(e)->may_drop && !pk(e)->srd);
			ft__pk_bytes(e, &sub, &del);
			assert_int_equal(sub, del);
			for (uint32_t l = 0; l < ft_topo_nlinks(n.t); l++)
				timeouts += c.port[l].ack_timeouts;
			assert_int_equal(c.ndrops, tiny ? k : 0);
			assert_int_equal(c.nretx, tiny ? k : 0);
			/* the first pass is the tail-loss probe's, the others the timer's */
			assert_int_equal(pk(e)->nsrd_probes, tiny && P > 0 ? 1 : 0);
			assert_int_equal(timeouts, tiny && P > 0 ? P - 1 : 0);
			assert_int_equal(c.npackets, N + c.nretx);
			if (getenv("FT_PKTCLOUD_PRINT"))
				print_message("selective N %llu: makespan %.3f us, %llu probes, "
				              "%llu timeouts\n",
				              (unsigned long long)N, c.makespan_s * 1e6,
				              (unsigned long long)pk(e)->nsrd_probes,
				              (unsigned long long)timeouts);
			/* the probe within 20 us of the tail's last ACK (the flow on the wire:
			 * N x 0.337 us), 100 us later where the tail left before any ACK was
			 * back (N <= 8: within 2.7 us, under the round trip of store and
			 * forward) and the probe's timeout is then the timer's (no RTT sample,
			 * RFC 8985 7.2); each timeout 100 us after the last ACK of the pass
			 * before it (a pass of at most N / 2 packets and a round trip) */
			if (tiny) {
				double first = P > 0 && N <= 8 ? 100e-6 : 0;

				assert_true(c.makespan_s >
				                    (double)(P > 0 ? P - 1 : 0) * 100e-6 + first &&
				            c.makespan_s < (double)(P > 0 ? P - 1 : 0) *
				                                           (100e-6 + 3e-6 +
				                                            (double)N * 0.2e-6) +
				                                   first + 20e-6 + (double)N * 0.4e-6);
			}
			ft_packet_engine.destroy(e);
			e = run_pairs(&ft_packet_engine, &n, &cfg, ends, 1, N * 4096, &c2);
			assert_same_run(&c, &c2);
			ft_packet_engine.destroy(e);
		}
	}
	ft_topo_free(n.t);
}

/*
 * SRD's delay rule by hand (pkt_cc.c srd_rtt()), one QP, 100 Gb/s line rate (12.5e9
 * B/s), target 8 x 4217 B / 12.5e9 = 2.69888 us over the lowest RTT. Samples (us):
 *  5: the lowest yet, T = 7.69888: + 1 % of line, capped at line rate: 12.5e9;
 * 20: above T: x (1 - 0.5 (1 - 7.69888 / 20)) = x 0.692472: 8,655,900,000;
 *  6: below T: + 125e6 = 8,780,900,000;
 *  4: a new lowest (T = 6.69888), below it: + 125e6 = 8,905,900,000;
 *  7: above T: x (1 - 0.5 (1 - 6.69888 / 7)) = x 0.978491: 8,714,346,813.714;
 * then a sample whose packet left before the last update is dropped (one update per
 * round trip).
 */
static void
test_srd_rule(void **state)
{
	static const struct {
		double rtt_us, want;
	} s[] = { { 5, 12.5e9 },
		  { 20, 8655900000.0 },
		  { 6, 8780900000.0 },
		  { 4, 8905900000.0 },
		  { 7, 8714346813.714285 } };
	struct net n;
	uint32_t ends[2];
	struct ft_sim_cfg cfg;
	struct ft_sim_counters c;
	struct ft_engine *e;
	struct pk_engine *pe;
	struct pk_dcqcn *d;

	(void)state;
	net_build(&n, "aws-p5:2", NULL);
	ends[0] = ft_topo_nic(n.t, 0, 0);
	ends[1] = ft_topo_nic(n.t, 1, 0);
	ft_sim_cfg_init(&cfg);
	e = run_pairs(&ft_packet_engine, &n, &cfg, ends, 1, 4096, &c);
	pe = ft_container_of(e, struct pk_engine, base);
	assert_double_equal(pe->line_Bps, 12.5e9, 1);
	assert_double_equal(pe->srd_target_s, 8 * 4217.0 / 12.5e9, 1e-15);
	d = pk_flow_cc(pe, (const struct pk_flow *)ft_vec_at(&pe->flows, 0));
	*d = ft__pk_cc0(pe);
	for (size_t i = 0; i < FT_ARRAY_SIZE(s); i++) {
		pe->now_ps += 1000000000ull; /* 1 ms later: past the last update */
		assert_int_equal(ft__pk_ev_rtt(pe, 0, (uint32_t)(s[i].rtt_us * 1000)), 0);
		assert_double_equal(d->rc_Bps, s[i].want, 1e-3);
		assert_int_equal(d->limited, s[i].want < 12.5e9);
	}
	/* a sample sent before the last update: no news of it */
	pe->now_ps += 1000;
	assert_int_equal(ft__pk_ev_rtt(pe, 0, 20000), 0);
	assert_double_equal(d->rc_Bps, 8714346813.714285, 1e-3);
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/*
 * TCP's window (gcp-a3-mega:4, tcpx200): 15 senders of 1 MiB into one NIC with 4 MiB of
 * room per ingress port (credits never hold a sender back). Nothing is lost (the fabric
 * is taken as loss-free), every byte arrives, and the receiver's port never queues more
 * than the senders may have unacknowledged: 15 windows of 32 packets. Without the window
 * the queue there grows past it (each sender's congestion window grows past 32 packets in
 * slow start, and nothing is lost to cut it).
 */
static void
test_tcp_window(void **state)
{
	struct net n;
	uint32_t ends[64], np, hot;
	uint64_t qmax[2];

	(void)state;
	net_build(&n, "gcp-a3-mega:4", NULL);
	np = incast_ends(&n, ends);
	hot = ft_topo_link(n.t, nic_uplink(&n, ends[1]))->rev;
	for (int k = 0; k < 2; k++) {
		struct ft_sim_cfg cfg;
		struct ft_packet_cfg pc = { 0 };
		struct ft_sim_counters c;
		struct ft_engine *e;
		uint64_t sub, del;

		ft_sim_cfg_init(&cfg);
		pc.port_buffer_bytes = 4u << 20;
		pc.switch_buffer_bytes = 256u << 20;
		pc.tcp_window_bytes = k == 0 ? 32 * 4096 : 64u << 20;
		cfg.packet = &pc;
		e = run_pairs(&ft_packet_engine, &n, &cfg, ends, np, 1u << 20, &c);
		assert_true(pk(e)->tcp);
		assert_int_equal(pk(e)->wnd_pkts, k == 0 ? 32 : 16384);
		ft__pk_bytes(e, &sub, &del);
		assert_int_equal(sub, del);
		assert_int_equal(c.ndrops, 0);
		assert_int_equal(c.nretx, 0);
		qmax[k] = c.port[hot].q_max_bytes;
		ft_packet_engine.destroy(e);
	}
	assert_true(qmax[0] <= (uint64_t)np * 32 * 4096);
	assert_true(qmax[1] > (uint64_t)np * 32 * 4096);
	ft_topo_free(n.t);
}

/* A window shorter than two ACK strides is refused, naming the knob. */
static void
test_tcp_window_too_small(void **state)
{
	struct net n;
	struct ft_sim_cfg cfg;
	struct ft_packet_cfg pc = { .tcp_window_bytes = 64 * 1024 };
	struct ft_engine *e = NULL;
	struct ft_error err = { 0 };

	(void)state;
	net_build(&n, "gcp-a3-mega:2", NULL);
	ft_sim_cfg_init(&cfg);
	cfg.packet = &pc;
	assert_int_equal(ft_packet_engine.create(n.t, &cfg, &e, &err), FT_ERANGE);
	assert_non_null(strstr(err.msg, "packet.tcp_window"));
	assert_null(e);
	ft_topo_free(n.t);
}

/* The wire bytes out of node @node's NICs onto the fabric ("nN.nicK -> leaf" ports) in
 * report @rep: how many carried any, the least and the most. */
static uint32_t
nic_out_bytes(const struct ft_sim_report *rep, uint32_t node, uint64_t *min, uint64_t *max)
{
	char pre[16];
	uint32_t n = 0;

	snprintf(pre, sizeof(pre), "n%u.nic", node);
	*min = UINT64_MAX;
	*max = 0;
	for (size_t i = 0; i < rep->ports.len; i++) {
		const struct ft_sim_hot_link *h = ft_vec_at(&rep->ports, i);

		if (strncmp(h->name, pre, strlen(pre)) || !strstr(h->name, "-> leaf") ||
		    !h->has_port || !h->port.tx_bytes)
			continue;
		n++;
		*min = FT_MIN(*min, h->port.tx_bytes);
		*max = FT_MAX(*max, h->port.tx_bytes);
	}
	return n;
}

/* @engine's time of @op of @bytes over every GPU of @cluster (NCCL's tuner); its
 * counters in *@c and its protocol in @proto (12 bytes) where not NULL; the NICs of
 * node 0 that sent onto the fabric in *@nics, and the least and most wire bytes one of
 * them sent in @nic_min and @nic_max, where @nics is not NULL. */
static double
op_run_nics(const char *cluster, enum ft_op op, uint64_t bytes, const char *engine,
            struct ft_sim_counters *c, char *proto, uint32_t *nics, uint64_t *nic_min,
            uint64_t *nic_max)
{
	struct ft_sim_sweep_args sw = { .spec = cluster,
		                        .op = op,
		                        .algo = FT_ALGO_COUNT,
		                        .proto = FT_PROTO_COUNT,
		                        .min_bytes = bytes,
		                        .max_bytes = bytes };
	struct ft_scenario *sc = NULL;
	struct ft_sim_overrides ov;
	struct ft_sim_report rep;
	struct ft_error err = { 0 };
	double t;
	int rc;

	assert_int_equal(ft_scenario_from_op(&sw, &sc, &err), 0);
	ft_sim_overrides_init(&ov);
	ov.engine = engine;
	ft_sim_report_init(&rep);
	rc = ft_scenario_run(sc, &ov, NULL, &rep, &err);
	if (rc < 0)
		fail_msg("%s on %s: %s", engine, cluster, err.msg);
	assert_true(ft_run_nrows(&rep.run) >= 1);
	t = ft_run_row(&rep.run, 0)->time_us * 1e-6;
	if (c)
		*c = rep.c;
	if (proto)
		snprintf(proto, 12, "%s", ft_run_row(&rep.run, 0)->proto);
	if (nics)
		*nics = nic_out_bytes(&rep, 0, nic_min, nic_max);
	ft_sim_report_release(&rep);
	ft_scenario_free(sc);
	return t;
}

static double
op_run(const char *cluster, enum ft_op op, uint64_t bytes, const char *engine,
       struct ft_sim_counters *c, char *proto)
{
	return op_run_nics(cluster, op, bytes, engine, c, proto, NULL, NULL, NULL);
}

/* @engine's time of @op of @bytes over every GPU of @cluster (NCCL's tuner). */
static double
op_time(const char *cluster, enum ft_op op, uint64_t bytes, const char *engine)
{
	return op_run(cluster, op, bytes, engine, NULL, NULL);
}

/*
 * Packets that are late are not lost: the broadcast of 4 MiB over aws-p5:2, the tuner's
 * ring with LL128, sends each channel's chain as messages of 3 packets over a GPU's 4
 * NICs. Nothing drops (the default buffers), so nothing is to be resent: no tail-loss
 * probe fires and no packet goes twice (the probe's timeout is twice the QP's SRTT,
 * which its later samples keep up to date whichever of its messages sends). The packet
 * engine is within 5 % of the flow engine (measured +3.09 %; +11.19 % while each
 * message restarted its lanes and a GPU's messages queued at 3 of its 4 NICs:
 * test_srd_stripe_rails()).
 */
static void
test_srd_late_not_lost(void **state)
{
	struct ft_sim_counters c;
	char proto[12];
	double tf = op_time("aws-p5:2", FT_OP_BROADCAST, 4u << 20, "flow");
	double tp = op_run("aws-p5:2", FT_OP_BROADCAST, 4u << 20, "packet", &c, proto);

	(void)state;
	if (getenv("FT_PKTCLOUD_PRINT"))
		print_message("aws-p5:2 broadcast 4 MiB (%s): flow %.2f us, packet %.2f us "
		              "(%+.2f %%), %llu packets, %llu resent, %llu probes\n",
		              proto, tf * 1e6, tp * 1e6, (tp / tf - 1) * 100,
		              (unsigned long long)c.npackets, (unsigned long long)c.nretx,
		              (unsigned long long)c.ntail_probes);
	assert_string_equal(proto, "ll128");
	assert_int_equal(c.ndrops, 0);
	assert_int_equal(c.ntail_probes, 0);
	assert_int_equal(c.nretx, 0);
	assert_true(tp > tf);
	assert_true(tp / tf < 1.05);
}

/*
 * aws-ofi-nccl's scheduler spreads a GPU's messages over all of its NICs (engine_packet.c
 * stripe_first()): the 4 MiB broadcast over aws-p5:2 (ring, LL128: messages of 4,096 +
 * 4,096 + 2,048 bytes, one QP per channel) sends out of node 0 over all 32 NICs, each
 * within one wire MTU of the others (measured 144,891 to 144,893 bytes, 42 packets
 * each), as the flow engine's 4 x 100 Gb/s per GPU has it. With the lanes restarted at
 * each message (hash + seq) every QP left one of its GPU's NICs idle and gave two of
 * them twice the third's bytes: at 64 MiB 8 of the 32 sent nothing, 16 sent 3,604,480
 * bytes and 8 1,738,890, and their queues (74 KB on average) held the chain back
 * (+29.8 % over the flow engine, sim-log.md 2026-12-07).
 */
static void
test_srd_stripe_rails(void **state)
{
	uint32_t nics = 0;
	uint64_t lo = 0, hi = 0;

	(void)state;
	op_run_nics("aws-p5:2", FT_OP_BROADCAST, 4u << 20, "packet", NULL, NULL, &nics, &lo, &hi);
	if (getenv("FT_PKTCLOUD_PRINT"))
		print_message("aws-p5:2 broadcast 4 MiB: %u NICs of node 0 sent, %llu to %llu "
		              "wire bytes each\n",
		              nics, (unsigned long long)lo, (unsigned long long)hi);
	assert_int_equal(nics, 32);
	assert_true(hi - lo <= 4096 + 121);
}

/*
 * Agreement with the flow engine where nothing contends: an all-reduce of 64 MiB over
 * aws-p5:2 (EFA, 16 GPUs, sprayed over each GPU's 4 NICs) and gcp-a3-mega:2 (TCPXO, with
 * the model's ramp and the proxy's floor), the packet engine within 3 % of the flow
 * engine on EFA (measured +0.30 %) and 5 % on TCPXO (-3.88 %; -1.14 % unpaced: NCCL's tree
 * cap, 50.6 GB/s a connection, binds on the NVLink chains in each node, not on the NICs;
 * paced at it, pkt_tree.c cap_pace(), the chains hand the NICs their loops 10 us apart
 * and TCP queues less, where the flow engine's fluid rates do not see it; more sizes in
 * docs/internals/sim.md, "EFA and GPUDirect-TCPX/O").
 * Both used to be refused by the packet engine.
 */
static void
test_agrees_with_flow(void **state)
{
	static const char *const clusters[] = { "aws-p5:2", "gcp-a3-mega:2" };
	static const double bound[] = { 0.03, 0.05 };

	(void)state;
	for (size_t k = 0; k < FT_ARRAY_SIZE(clusters); k++) {
		double tf = op_time(clusters[k], FT_OP_ALL_REDUCE, 64u << 20, "flow");
		double tp = op_time(clusters[k], FT_OP_ALL_REDUCE, 64u << 20, "packet");

		if (getenv("FT_PKTCLOUD_PRINT"))
			print_message("%s all_reduce 64 MiB: flow %.1f us, packet %.1f us "
			              "(%+.2f %%)\n",
			              clusters[k], tf * 1e6, tp * 1e6, (tp / tf - 1) * 100);
		assert_double_equal(tp / tf, 1.0, bound[k]);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_flow_line_rate),
		cmocka_unit_test(test_spray_even),
		cmocka_unit_test(test_efa_incast),
		cmocka_unit_test(test_srd_selective_closed_form),
		cmocka_unit_test(test_srd_timer_oldest),
		cmocka_unit_test(test_srd_gap_hint),
		cmocka_unit_test(test_srd_rule),
		cmocka_unit_test(test_tcp_window),
		cmocka_unit_test(test_tcp_window_too_small),
		cmocka_unit_test(test_agrees_with_flow),
		cmocka_unit_test(test_srd_late_not_lost),
		cmocka_unit_test(test_srd_stripe_rails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

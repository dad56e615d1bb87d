/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_pktnccl.c - NCCL's chunking in the packet engine
 * (sim/pkt_nccl.c) against closed forms: a ring all-reduce on an
 * uncongested fabric completes at the pipelined time of its messages, the
 * messages per connection are what NCCL's slices make of it, QPs share
 * them as NCCL_IB_QPS_PER_CONNECTION and NCCL_IB_SPLIT_DATA_ON_QPS say;
 * and the MoE all-to-all lab's small form (scenarios/lab/).
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

#include "source_root.h"

#include <fabtune/fabtune.h>

#include "base/alloc_int.h"
#include "sim/pkt_int.h"
#include "spec/scenario.h"

#include "pk_run.h"

#define MiB (1024.0 * 1024.0)

/*
 * The fixed cost of @r's op of @steps steps with one rank a node, every step between nodes
 * (a ring all-reduce's, or a send/recv's one step, which pays the same far step,
 * ft__sim_far_steps()): the launch, and on each step what the model adds to a network
 * step (ft__sim_net_step_s()) and NCCL's network per-hop latency (ring, Simple) less the
 * path @d the packets walk where that is shorter (pkt_setup.c phase_cost(),
 * walk_back_s()), in place of the NVLink step overhead.
 */
static double
ring_fixed_s(const struct pk_run *r, uint32_t steps, double d)
{
	double hw = ft_model_hw_latency(0, FT_HW_NET, FT_ALGO_RING, FT_PROTO_SIMPLE);

	return r->s.base_lat_s +
	       steps * (net_step_s_of(r->t, FT_PROTO_SIMPLE) + FT_MAX(0.0, hw - d));
}

/*
 * ring_fixed_s() where a ring phase's walk does not show past the span of its bytes on
 * the links or at the cap (pkt_setup.c walk_back_s(): the walk past the span comes back,
 * here none): each step pays NCCL's network per-hop latency whole, its path walked under
 * the bytes, as NCCL's price (latency, then the bytes) and the flow engine have it.
 */
static double
ring_fixed_whole_s(const struct pk_run *r, uint32_t steps)
{
	double hw = ft_model_hw_latency(0, FT_HW_NET, FT_ALGO_RING, FT_PROTO_SIMPLE);

	return r->s.base_lat_s + steps * (net_step_s_of(r->t, FT_PROTO_SIMPLE) + hw);
}

/* A ring all-reduce of @bytes (Simple) over the first NIC of @n nodes: every ring hop is
 * NIC -> leaf -> NIC, nothing shared. On one channel (NCCL_MAX_NCHANNELS=1): the tests
 * count one ring's messages, where NCCL's launched channels would each carry a share of
 * them (pkt_nccl.c ring_reps()). */
static void
ring_run(struct pk_run *r, uint32_t n, uint64_t bytes, const struct ft_packet_cfg *pc,
         uint32_t qps)
{
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
		                  .algo = FT_ALGO_RING,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = n,
		                  .ranks_per_node = 1,
		                  .bytes = bytes };

	pk_run_nchannels = 1;
	pk_run_op(r, &a, n, pc, qps, true); /* (whole: the tests read every message's record) */
	pk_run_nchannels = 0;
}

/*
 * 4 ranks, 8 MiB: each connection carries 2 x 3/4 x 8 MiB = 12 MiB over 6 ring steps,
 * 2 MiB per step = one Simple chunk, two 1 MiB slices: 12 messages (bytes / slice).
 * Two slices per step keep the NIC busy while a slice crosses the hop (its latency is
 * well below a slice's time), so every NIC sends its 12 messages back to back: the op
 * takes 12 messages' serialisation, plus the last one's path latency, plus the fixed
 * per-op and per-step costs (ring_fixed_whole_s(): each step between nodes hwLat[NET]
 * whole, its walk under the bytes' span on the NIC's link); within one packet time per
 * hop. Before the span counted (a Simple ring had no cap, so none), each step took back
 * its path d though the bytes hid it, 6 d under NCCL's price.
 *
 * 4 ranks, 4 MiB: 1 MiB per step, one slice: a rank can send step s only once step s - 1
 * has arrived, so each of the 6 steps costs a slice's time plus the path latency. The
 * take-back counts the walk (6 d) as under the bytes' span (6 slices) too, so the steps
 * pay hwLat[NET] whole beside their walk: a serial pipeline of one slice a step on one
 * channel shows its walk past the bytes, which the span's estimate does not see (sim.md,
 * Limits).
 */
static void
test_ring_pipelined(void **state)
{
	(void)state;
	for (int half = 0; half < 2; half++) {
		struct pk_run r;
		uint64_t bytes = half ? 4u << 20 : 8u << 20;
		uint32_t n = 4, steps = 2 * (n - 1), per_conn = half ? 6 : 12, i;
		double t_pkt, d, t_msg, want, got, fixed;

		ring_run(&r, n, bytes, NULL, 1);
		pk_hop_times(&r, &t_pkt, &d);
		assert_int_equal(r.c.nflows, n * per_conn);
		assert_int_equal(pk(r.e)->flows.len, n * per_conn);
		for (i = 0; i < pk(r.e)->flows.len; i++) {
			const struct pk_flow *f = ft_vec_at(&pk(r.e)->flows, i);

			assert_int_equal(f->bytes, 1u << 20);
			assert_int_equal(f->npkts, 256);
		}
		t_msg = 256 * t_pkt;
		fixed = ring_fixed_whole_s(&r, steps);
		want = half ? steps * (t_msg + d) : per_conn * t_msg + d;
		got = r.c.ops[0].t_end_s - r.c.ops[0].t_start_s - fixed;
		if (!(fabs(got - want) <= 2 * t_pkt))
			fail_msg("op %.9g s, closed form %.9g s (packet %.3g s)", got, want, t_pkt);
		/* Not a barrier per step: that would add a path latency per step. */
		if (!half)
			assert_true(got < per_conn * t_msg + steps * d - d / 2);
		pk_run_free(&r);
	}
}

/*
 * NCCL's per-channel caps (a forced channel count's, LL's and LL128's: the op's
 * conn_cap_Bps) as a pace on a ring (pkt_nccl.c, pkt_tree.c ft__pk_cap_period_ps()): 4
 * ranks, 64 MiB: each connection carries w = 96 MiB in n = 96 messages of 1 MiB (t_msg =
 * 256 packet times, path latency d), capped so that a period P = w / (cap n) is longer
 * than a message's way over its hop (t_msg + d). Message m leaves at m P (the one it
 * waits for a step before, on the connection feeding its source, left at (m - 2) P and
 * has come), so the op takes (n - 1) P + t_msg + d, within two packet times, for P and
 * 2P; the two apart by (n - 1) P. Unpaced it is n t_msg + d: the cap is what holds it.
 * Built as its messages may start, the same time to the picosecond. The flow engine, each
 * connection at the cap, takes w / cap = n P (within 2 %), and the two engines agree
 * within 3 %.
 */
static void
test_ring_paced(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
		                  .algo = FT_ALGO_RING,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 4,
		                  .ranks_per_node = 1,
		                  .bytes = 64u << 20 };
	const uint32_t n = 96;
	double t_pkt, d, t_msg, P, w = 96 * MiB, want, got[2], flow_t[2], fixed;
	struct pk_run r, lz;

	(void)state;
	ring_run(&r, 4, a.bytes, NULL, 1);
	pk_hop_times(&r, &t_pkt, &d);
	assert_int_equal(pk(r.e)->flows.len, 4 * n);
	pk_run_free(&r);
	t_msg = 256 * t_pkt;
	for (int k = 0; k < 2; k++) {
		P = (k + 1) * 2 * t_msg;
		pk_run_conn_cap_Bps = w / (P * n);
		pk_run_nchannels = 1; /* (ring_run()'s one channel) */
		pk_run_op(&r, &a, 4, NULL, 1, true);
		pk_run_op(&lz, &a, 4, NULL, 1, false);
		pk_run_nchannels = 0;
		pk_run_conn_cap_Bps = 0;
		assert_null(pk(r.e)->tlazy);
		assert_non_null(pk(lz.e)->tlazy);
		fixed = ring_fixed_whole_s(&r, ft_sched_phase_at(&r.s, 0)->steps);
		got[k] = r.c.ops[0].t_end_s - r.c.ops[0].t_start_s - fixed;
		want = (n - 1) * P + t_msg + d;
		flow_t[k] = flow_engine_time(&r, w / (P * n));
		if (getenv("FT_PKTNCCL_PRINT"))
			print_message("ring paced P %.3f us: %.4f us, closed form %.4f us "
			              "(%+.3f packets); flow %.4f us, n P %.4f us\n",
			              P * 1e6, got[k] * 1e6, want * 1e6, (got[k] - want) / t_pkt,
			              flow_t[k] * 1e6, n * P * 1e6);
		if (!(fabs(got[k] - want) <= 2 * t_pkt))
			fail_msg("paced ring: %.9g s, closed form %.9g s (packet %.3g s)", got[k],
			         want, t_pkt);
		if (!(fabs(flow_t[k] - n * P) <= 0.02 * n * P))
			fail_msg("flow engine, capped ring: %.9g s, n P %.9g s", flow_t[k], n * P);
		if (!(fabs(got[k] - flow_t[k]) <= 0.03 * flow_t[k]))
			fail_msg("paced ring: packet %.9g s, flow %.9g s", got[k], flow_t[k]);
		if (!(got[k] > 1.5 * (n * t_msg + d)))
			fail_msg("paced ring: %.9g s, not held past the unpaced %.9g s", got[k],
			         n * t_msg + d);
		assert_true(lz.c.ops[0].t_end_s == r.c.ops[0].t_end_s);
		assert_int_equal(lz.c.npackets, r.c.npackets);
		pk_run_free(&lz);
		pk_run_free(&r);
	}
	/* the flow engine's fill is the cap's alone: from P to 2P it takes n P more */
	if (!(fabs(flow_t[1] - flow_t[0] - n * 2 * t_msg) <= 1e-9))
		fail_msg("flow engine, P to 2P: %.9g s more, n P %.9g s", flow_t[1] - flow_t[0],
		         n * 2 * t_msg);
	if (!(fabs(got[1] - got[0] - (n - 1) * 2 * t_msg) <= 1e-9))
		fail_msg("P to 2P: %.9g s more, (n - 1) P %.9g s", got[1] - got[0],
		         (n - 1) * 2 * t_msg);
}

/*
 * The critical path (struct pk_cp, pkt_report.c crit_pace()) in closed form, on ring_run()'s
 * 4 ranks, one message of 1 MiB a step (t_msg = 256 packet times, path latency d).
 *
 * A dependency chain, not a port, holds the op: at 4 MiB each of the 6 steps' message
 * waits for the one a step before to arrive (test_ring_pipelined()), under a cap whose
 * period P = t_msg + d / 2 never comes after that: the path is the 6 messages, 6 (t_msg
 * + d) within a packet time each, each within what the cap lets it take (P + d), so no
 * pace and no port on it; the op names the cap's class, as the flow engine names a flow
 * its cap holds (the rule before, "its last pace was a message's last wait", named its
 * most-waited port: the pace was no message's last wait).
 *
 * The pace holds it: test_ring_paced()'s 64 MiB, n = 96 messages a connection, P = 2
 * t_msg: the last message leaves on its pace, (n - 1) P after the start, and takes t_msg
 * + d; nothing queues. Built lazily (records reused), the same path.
 */
static void
test_crit_path_ring(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
		                  .algo = FT_ALGO_RING,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 4,
		                  .ranks_per_node = 1,
		                  .bytes = 4u << 20 };
	double t_pkt, d, t_msg, P, ps = 1e-12;
	struct pk_run r;
	struct pk_cp c;
	uint32_t n = 96;

	(void)state;
	ring_run(&r, 4, a.bytes, NULL, 1);
	pk_hop_times(&r, &t_pkt, &d);
	pk_run_free(&r);
	t_msg = 256 * t_pkt;
	P = t_msg + d / 2;
	pk_run_conn_cap_Bps = MiB / P;
	pk_run_conn_cap_what = "nvlink";
	pk_run_nchannels = 1;
	pk_run_op(&r, &a, 4, NULL, 1, true);
	c = ft__pk_op_cp(ft_container_of(r.e, struct pk_engine, base), 0);
	if (getenv("FT_PKTNCCL_PRINT"))
		print_message("chain: pace %.4f us, chain %.4f us, fabric %.4f us; 6 (t_msg + d) "
		              "%.4f us\n", c.pace_ps * ps * 1e6, c.chain_ps * ps * 1e6,
		              c.fab_ps * ps * 1e6, 6 * (t_msg + d) * 1e6);
	assert_int_equal(c.pace_ps, 0);
	assert_true(c.fab_ps * ps <= 6 * t_pkt);
	if (!(fabs(c.chain_ps * ps - 6 * (t_msg + d)) <= 6 * t_pkt))
		fail_msg("chain: %.9g s, 6 (t_msg + d) %.9g s", c.chain_ps * ps, 6 * (t_msg + d));
	assert_string_equal(r.c.ops[0].bottleneck, "nvlink");
	pk_run_free(&r);

	a.bytes = 64u << 20;
	P = 2 * t_msg;
	pk_run_conn_cap_Bps = 96 * MiB / (P * n);
	for (int lazy = 0; lazy < 2; lazy++) {
		pk_run_op(&r, &a, 4, NULL, 1, !lazy);
		assert_true(lazy == (pk(r.e)->tlazy != NULL));
		c = ft__pk_op_cp(ft_container_of(r.e, struct pk_engine, base), 0);
		if (getenv("FT_PKTNCCL_PRINT"))
			print_message("paced%s: pace %.4f us ((n - 1) P %.4f), chain %.4f us "
			              "(t_msg + d %.4f), fabric %.4f us\n", lazy ? " (lazy)" : "",
			              c.pace_ps * ps * 1e6, (n - 1) * P * 1e6,
			              c.chain_ps * ps * 1e6, (t_msg + d) * 1e6, c.fab_ps * ps * 1e6);
		if (!(fabs(c.pace_ps * ps - (n - 1) * P) <= t_pkt))
			fail_msg("paced: pace %.9g s, (n - 1) P %.9g s", c.pace_ps * ps,
			         (n - 1) * P);
		if (!(fabs(c.chain_ps * ps - (t_msg + d)) <= 2 * t_pkt))
			fail_msg("paced: chain %.9g s, t_msg + d %.9g s", c.chain_ps * ps, t_msg + d);
		assert_true(c.fab_ps * ps <= t_pkt);
		assert_string_equal(r.c.ops[0].bottleneck, "nvlink");
		pk_run_free(&r);
	}
	pk_run_nchannels = 0;
	pk_run_conn_cap_Bps = 0;
	pk_run_conn_cap_what = NULL;
}

/*
 * The critical paths that events under way carry (ft__pk_cp_arg()) take a slot each, its
 * number + 1 in the event's 28-bit argument (ev_push()): past PK_CP_SLOTS - 1 slots the run
 * stops with FT_ERANGE and says what ran out (the message ft__pk_run() reports), not the
 * bare error's text. Here the slot vector's length is set to the last one (no free slot, no
 * memory touched: the check comes first) on a finished run of ring_run().
 */
static void
test_crit_path_slots(void **state)
{
	struct pk_run r;
	struct pk_engine *e;
	struct pk_cp cp = { 0 };
	size_t nev, nfree;

	(void)state;
	ring_run(&r, 4, 4u << 20, NULL, 1);
	e = ft_container_of(r.e, struct pk_engine, base);
	nev = e->cp_ev.len;
	nfree = e->cp_free.len;
	e->cp_ev.len = PK_CP_SLOTS - 1;
	e->cp_free.len = 0;
	assert_int_equal(ft__pk_cp_arg(e, cp), FT_ERANGE);
	e->cp_ev.len = nev;
	e->cp_free.len = nfree;
	assert_int_equal(e->route_err.code, FT_ERANGE);
	if (!strstr(e->route_err.msg, "more than 268435455 waits under way at once"))
		fail_msg("route_err: \"%s\"", e->route_err.msg);
	/* (the length restored: a path is carried again) */
	e->route_err.code = 0;
	assert_true(ft__pk_cp_arg(e, cp) > 0);
	pk_run_free(&r);
}

/*
 * NCCL's sizes (collectives.h, device.h; kb NA-CONCEPTS, ENV-BUFFSIZE): 8 slots of the
 * protocol's buffer per connection; a Simple ring all-reduce / all-gather / reduce-scatter
 * chunk is 4 slots of 512 KiB and its slice 2; everything else one slot; LL carries 8
 * data bytes per 16-byte line of its 512 KiB buffer, LL128 120 of every 128 of its
 * 4,915,200 bytes.
 */
static void
test_chunk_sizes(void **state)
{
	static const struct {
		enum ft_op op;
		enum ft_proto proto;
		uint64_t chunk, slice;
		uint32_t slots;
	} want[] = {
		{ FT_OP_ALL_REDUCE, FT_PROTO_SIMPLE, 2u << 20, 1u << 20, 4 },
		{ FT_OP_REDUCE_SCATTER, FT_PROTO_SIMPLE, 2u << 20, 1u << 20, 4 },
		{ FT_OP_BROADCAST, FT_PROTO_SIMPLE, 512u << 10, 512u << 10, 8 },
		{ FT_OP_ALL_REDUCE, FT_PROTO_LL, 32u << 10, 32u << 10, 8 },
		{ FT_OP_ALL_GATHER, FT_PROTO_LL128, 576000, 576000, 8 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct ft_model_chunking ch;

		ft_model_chunking_get(want[i].op, FT_ALGO_RING, want[i].proto, NULL, &ch);
		assert_int_equal(ch.chunk_bytes, want[i].chunk);
		assert_int_equal(ch.slice_bytes, want[i].slice);
		assert_int_equal(ch.slots, want[i].slots);
	}
}

/*
 * An LL ring takes its chunk from the LL buffer (NCCL_LL_BUFFSIZE, nodes.nccl.ll_buffsize;
 * src/init.cc computeBuffSizes, src/enqueue.cc calcCollChunking at v2.30.7-1): 4 ranks,
 * 1 MiB, 256 KiB a connection and ring step over 6 steps; NCCL's 512 KiB buffer gives
 * 32 KiB of data a message, 8 a step, 48 a connection; 1 MiB gives 64 KiB, 24 a connection.
 */
static void
test_ring_ll_buffsize(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
		                  .algo = FT_ALGO_RING,
		                  .proto = FT_PROTO_LL,
		                  .nranks = 4,
		                  .ranks_per_node = 1,
		                  .bytes = 1u << 20 };
	struct pk_run r;

	(void)state;
	for (int big = 0; big < 2; big++) {
		pk_run_ll_buffsize = big ? 1u << 20 : 0;
		pk_run_op(&r, &a, 4, NULL, 1, true);
		assert_int_equal(r.c.nflows, 4 * (big ? 24 : 48));
		pk_run_free(&r);
	}
	pk_run_ll_buffsize = 0;
}

/* Chunking off: one flow per connection carrying all of it, as the flow engine does. */
static void
test_ring_unchunked(void **state)
{
	struct ft_packet_cfg pc = { .chunking = FT_PKT_CHUNK_OFF };
	struct pk_run r;

	(void)state;
	ring_run(&r, 4, 8u << 20, &pc, 1);
	assert_int_equal(r.c.nflows, 4);
	assert_int_equal(((const struct pk_flow *)ft_vec_at(&pk(r.e)->flows, 0))->bytes, 12u << 20);
	pk_run_free(&r);
}

/*
 * QPs: round robin (NCCL_IB_SPLIT_DATA_ON_QPS=0, the default) puts message m on QP
 * m mod 4, whole; split mode cuts every message into 4 equal flows, one per QP. Both
 * move the same bytes; with QPs in turn the op takes what one QP does (the NIC is the
 * bottleneck either way), within a packet time per message boundary.
 */
static void
test_ring_qps(void **state)
{
	struct ft_packet_cfg pc = { 0 };
	struct pk_run r;
	double t_one = 0;

	(void)state;
	for (int mode = 0; mode < 3; mode++) {
		uint32_t nq = mode ? 4 : 1, i;
		uint64_t total = 0;

		pc.split_data_on_qps = mode == 2;
		ring_run(&r, 4, 8u << 20, &pc, nq);
		assert_int_equal(pk(r.e)->flows.len, (mode == 2 ? 4 : 1) * 4 * 12);
		for (i = 0; i < pk(r.e)->flows.len; i++) {
			const struct pk_flow *f = ft_vec_at(&pk(r.e)->flows, i);
			uint32_t m = i % (mode == 2 ? 48 : 12);

			total += f->bytes;
			if (mode == 1)
				assert_int_equal(f->qp, (m % 4) * 1024);
			/* Each QP hashes on its own (a UDP source port of its own on RoCE). */
			if (mode && m % 4)
				assert_true(f->hash != ((const struct pk_flow *)ft_vec_at(
				                                &pk(r.e)->flows, i - 1))
				                               ->hash);
			if (mode == 2) {
				assert_int_equal(f->qp, (m % 4) * 1024);
				assert_int_equal(f->bytes, 256u << 10);
			}
		}
		assert_int_equal(total, 4 * (12u << 20));
		if (mode == 0)
			t_one = r.c.ops[0].t_end_s;
		else
			assert_true(fabs(r.c.ops[0].t_end_s - t_one) < 0.02 * t_one);
		pk_run_free(&r);
	}
}

/*
 * A NIC keeps congestion control state per QP, not per message: the message after
 * another on its QP is the one that takes it over (pk_flow_sent(), and CNPs for a
 * message already sent go on to it). With one QP, the 12 messages of a connection
 * follow each other; the last has no successor.
 */
static void
test_qp_next(void **state)
{
	struct pk_run r;
	struct pk_engine *e;
	uint32_t i;

	(void)state;
	ring_run(&r, 4, 8u << 20, NULL, 1);
	e = ft_container_of(r.e, struct pk_engine, base);
	for (i = 0; i < e->flows.len; i++) {
		struct pk_flow *f = ft_vec_at(&e->flows, i), *next = ft__pk_qp_next(e, f);

		if (i % 12 == 11)
			assert_null(next);
		else
			assert_ptr_equal(next, ft_vec_at(&e->flows, i + 1));
	}
	pk_run_free(&r);
}

/*
 * SRD's QP state stays with the message it was handed to even where a resend pass moves
 * a message's snd_nxt back below its packets (go_back() and sack_hint() do, after the
 * tail left): ft__pk_qp_cc() of any of a connection's 12 messages is the record of the
 * connection's last one (all sent), whatever its snd_nxt reads, not its own.
 */
static void
test_qp_cc_after_resend(void **state)
{
	struct ft_packet_cfg pc = { .cc = FT_PKT_CC_IBCC };
	struct pk_run r;
	struct pk_engine *e;
	uint32_t i;

	(void)state;
	ring_run(&r, 4, 8u << 20, &pc, 1);
	e = ft_container_of(r.e, struct pk_engine, base);
	assert_true(e->paced);
	e->sack = true; /* (SRD's resend passes are the ones that move snd_nxt back) */
	for (i = 0; i < e->flows.len; i++) {
		struct pk_flow *f = ft_vec_at(&e->flows, i);
		const struct pk_flow *last = ft_vec_at(&e->flows, i - i % 12 + 11);
		uint32_t nxt = f->snd_nxt;

		assert_int_equal(nxt, f->npkts);
		f->snd_nxt = f->npkts / 2; /* a resend pass from the middle */
		assert_ptr_equal(ft__pk_qp_cc(e, f), pk_flow_cc(e, last));
		f->snd_nxt = nxt;
	}
	e->sack = false;
	pk_run_free(&r);
}

/*
 * NCCL's cutting of a send (src/init.cc, enqueue.cc, graph/paths.cc at their defaults;
 * kb ENV-BUFFSIZE, ENV-NCH_NET_PEER), worked by hand:
 * - 2 ranks on 2 nodes, 64 MiB, 50 GB/s NICs: ceil(50 / 14) = 4 channels per peer, the
 *   send cut in 4 parts of 16 MiB (more than a 128 KiB chunk each, but 4 is the most),
 *   128 KiB chunks; 32 channels / 4 x 8 = 64 sends in flight;
 * - 512 ranks on 64 nodes, 32 KiB: 4 x ceil(512 / 8) > 32 halves the channels per peer
 *   to 1; Simple (over 16 KiB), a quarter chunk (under one chunk): 32 KiB; 256 in flight;
 * - 4,096 ranks, 4 KiB: still Simple (a network connection has no LL buffers unless
 *   NCCL_ALLOC_P2P_NET_LL_BUFFERS=1), a quarter chunk: 32 KiB;
 * - 8 ranks on one node, 8 KiB: LL (at most 16 KiB a channel, NVLink), one channel,
 *   a slot of LL's buffer: 32 KiB of data; 256 in flight;
 * - 64 ranks on 8 nodes, 256 KiB: 4 channels per peer, one for this send (64 ranks x 2
 *   > 32), doubled to 2 since 256 KiB is more than a chunk: 128 in flight; 64 KiB chunks
 *   (under 8 chunks: half);
 * - 8 ranks on one NVLink node, 1 MiB: 32 channels per peer, halved to 4 (4 x 8 ranks
 *   fit in 32), 4 parts of 256 KiB, 512 KiB chunks (NCCL_P2P_NVL_CHUNKSIZE); 64 in flight.
 */
static void
test_p2p_sizes(void **state)
{
	static const struct {
		uint64_t bytes;
		uint32_t nranks, nnodes;
		enum ft_proto proto;
		uint64_t chunk;
		uint32_t channels, inflight;
	} want[] = {
		{ 64u << 20, 2, 2, FT_PROTO_SIMPLE, 128u << 10, 4, 64 },
		{ 32u << 10, 512, 64, FT_PROTO_SIMPLE, 32u << 10, 1, 256 },
		{ 4u << 10, 4096, 512, FT_PROTO_SIMPLE, 32u << 10, 1, 256 },
		{ 8u << 10, 8, 1, FT_PROTO_LL, 32u << 10, 1, 256 },
		{ 256u << 10, 64, 8, FT_PROTO_SIMPLE, 64u << 10, 2, 128 },
		{ 1u << 20, 8, 1, FT_PROTO_SIMPLE, 512u << 10, 4, 64 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct ft_model_p2p_chunking ch;

		ft_model_p2p_chunking_get(want[i].bytes, want[i].nranks, want[i].nnodes, 50, &ch);
		assert_int_equal(ch.proto, want[i].proto);
		assert_int_equal(ch.chunk_bytes, want[i].chunk);
		assert_int_equal(ch.channels, want[i].channels);
		assert_int_equal(ch.slots, 8);
		assert_int_equal(ch.peers_inflight, want[i].inflight);
	}
}

/*
 * A send/recv of 8 MiB between two nodes (each rank sends to the other; `chunking:
 * nccl`, as `auto` sends a send/recv whole): 4 channels of
 * 2 MiB, 16 chunks of 128 KiB each, 8 in flight per channel, far more than the path's
 * bandwidth-delay product: each NIC sends its 2,048 packets back to back, so the op
 * takes their serialisation plus the last one's path latency plus the fixed per-op and
 * per-step costs (ring_fixed_s(): its one step between nodes max(hwLat[NET], d), as a
 * ring's; before, NVLink's step overhead), within two packet times.
 */
static void
test_p2p_pipelined(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_SENDRECV,
		                  .algo = FT_ALGO_RING,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 2,
		                  .ranks_per_node = 1,
		                  .bytes = 8u << 20 };
	struct ft_packet_cfg pc = { .chunking = FT_PKT_CHUNK_NCCL };
	struct pk_run r;
	double t_pkt, d, want, got;
	uint32_t i;

	(void)state;
	pk_run_op(&r, &a, 2, &pc, 1, false);
	pk_hop_times(&r, &t_pkt, &d);
	assert_int_equal(pk(r.e)->flows.len, 2 * 4 * 16);
	for (i = 0; i < pk(r.e)->flows.len; i++) {
		const struct pk_flow *f = ft_vec_at(&pk(r.e)->flows, i);

		assert_int_equal(f->bytes, 128u << 10);
		assert_int_equal(f->qp / 1024, i / 16 % 4); /* a channel's connection, its QP */
	}
	want = 2048 * t_pkt + d;
	got = r.c.ops[0].t_end_s - r.c.ops[0].t_start_s - ring_fixed_s(&r, 1, d);
	if (!(fabs(got - want) <= 2 * t_pkt))
		fail_msg("op %.9g s, closed form %.9g s (packet %.3g s)", got, want, t_pkt);
	pk_run_free(&r);
}

/*
 * NCCL's window on a send (ft_model_p2p_window_Bps(), model/pipeline.c): 4 channels x 8 chunks
 * (NCCL_STEPS) of 128 KiB per round trip; at a round trip of 200 us, 4 MiB / 200 us =
 * 20.97 GB/s. A send/recv of 32 MiB between two nodes (each rank sends to the other) at
 * that cap (the op's conn_cap_Bps, which the runner takes from ft__sim_p2p_cap() where it
 * is below the link) is cut as NCCL cuts it even under chunking: auto, which sends an
 * uncapped send/recv whole: 4 channels of n = 64 chunks of 128 KiB, chunk m >= 1 of each
 * channel no earlier than m P after the start, P = the round trip / 8 = 25 us. The 4
 * channels share the rank's one NIC, so their last chunks, which leave together, take 4
 * t_msg (t_msg: a chunk's 32 packets) and the op takes (n - 1) P + 4 t_msg + d (d: the
 * path latency) within two packet times. The flow engine, the send capped at the window,
 * takes 32 MiB / the window = n P (within 1 %); the two agree within 2 %. Uncapped, the
 * send is one flow per rank at the NIC's rate, under half that time (698 us against 1,586).
 */
static void
test_p2p_windowed(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_SENDRECV,
		                  .algo = FT_ALGO_RING,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 2,
		                  .ranks_per_node = 1,
		                  .bytes = 32u << 20 };
	struct ft_model_p2p_chunking ch = { .channels = 4, .slots = 8, .chunk_bytes = 128u << 10 };
	const double rtt = 200e-6, P = rtt / 8;
	const uint32_t n = 64;
	double cap = ft_model_p2p_window_Bps(&ch, rtt), t_pkt, d, want, got, flow_t, whole;
	struct pk_run r;
	uint32_t i;

	(void)state;
	assert_true(fabs(cap - 4.0 * 8 * 131072 / rtt) <= 1e-6 * cap);
	assert_true(fabs(cap - 20.97152e9) <= 1e3);
	assert_true(ft_model_p2p_window_Bps(&ch, 0) == 0);
	/* uncapped: whole, one flow a rank */
	pk_run_op(&r, &a, 2, NULL, 1, false);
	assert_int_equal(pk(r.e)->flows.len, 2);
	whole = r.c.ops[0].t_end_s - r.c.ops[0].t_start_s;
	/* and NCCL's window binds nowhere on the preset's fabric */
	{
		double cap_Bps = -1;

		assert_int_equal(ft__sim_p2p_cap(r.t, &r.s, r.ends, &cap_Bps), 0);
		assert_true(cap_Bps == 0);
	}
	pk_run_free(&r);

	pk_run_conn_cap_Bps = cap;
	pk_run_op(&r, &a, 2, NULL, 1, false);
	pk_run_conn_cap_Bps = 0;
	pk_hop_times(&r, &t_pkt, &d);
	assert_int_equal(pk(r.e)->flows.len, 2 * 4 * n);
	for (i = 0; i < pk(r.e)->flows.len; i++)
		assert_int_equal(((const struct pk_flow *)ft_vec_at(&pk(r.e)->flows, i))->bytes,
		                 128u << 10);
	got = r.c.ops[0].t_end_s - r.c.ops[0].t_start_s - ring_fixed_s(&r, 1, d);
	want = (n - 1) * P + 4 * 32 * t_pkt + d;
	flow_t = flow_engine_time(&r, cap);
	if (getenv("FT_PKTNCCL_PRINT"))
		print_message("p2p window: %.4f us, closed form %.4f us (%+.3f packets); flow "
		              "%.4f us, n P %.4f us; whole %.4f us\n",
		              got * 1e6, want * 1e6, (got - want) / t_pkt, flow_t * 1e6,
		              n * P * 1e6, whole * 1e6);
	if (!(fabs(got - want) <= 2 * t_pkt))
		fail_msg("windowed send: %.9g s, closed form %.9g s (packet %.3g s)", got, want,
		         t_pkt);
	if (!(fabs(flow_t - n * P) <= 0.01 * n * P))
		fail_msg("flow engine, windowed send: %.9g s, n P %.9g s", flow_t, n * P);
	if (!(fabs(got - flow_t) <= 0.02 * flow_t))
		fail_msg("windowed send: packet %.9g s, flow %.9g s", got, flow_t);
	assert_true(whole < got / 2);
	pk_run_free(&r);
}

/*
 * NCCL's window counts from a send's own first post: a send/recv of 32 MiB between two
 * nodes at test_p2p_windowed()'s window (20.97 GB/s: 4 channels x 8 x 128 KiB a 200 us
 * round trip), rank 1's send starting D = 500 us after rank 0's (struct
 * ft_sched_flow.start_ns). Each send is paced from its own start (pkt_nccl.c
 * send_pace()): the two sends cross the link in opposite directions and share nothing,
 * so the op ends with rank 1's, at D + (n - 1) P + 4 t_msg + d (n = 64 chunks a channel,
 * P = 25 us; the closed form of test_p2p_windowed() moved by D), within two packet
 * times; the flow engine, each send capped from its start, at D + n P (within 1 %).
 * Paced from the phase's start, or unpaced (whole flows, as before), rank 1's send would
 * end near D + 698 us.
 */
static void
test_p2p_staggered(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_SENDRECV,
		                  .algo = FT_ALGO_RING,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 2,
		                  .ranks_per_node = 1,
		                  .bytes = 32u << 20 };
	struct ft_model_p2p_chunking ch = { .channels = 4, .slots = 8, .chunk_bytes = 128u << 10 };
	const double rtt = 200e-6, P = rtt / 8, D = 500e-6;
	const uint32_t n = 64;
	double cap = ft_model_p2p_window_Bps(&ch, rtt), t_pkt, d, want, got, flow_t;
	struct pk_run r;

	(void)state;
	pk_run_conn_cap_Bps = cap;
	pk_run_rank1_start_ns = 500000;
	pk_run_op(&r, &a, 2, NULL, 1, false);
	pk_run_conn_cap_Bps = 0;
	pk_run_rank1_start_ns = 0;
	pk_hop_times(&r, &t_pkt, &d);
	assert_int_equal(pk(r.e)->flows.len, 2 * 4 * n);
	got = r.c.ops[0].t_end_s - r.c.ops[0].t_start_s - ring_fixed_s(&r, 1, d);
	want = D + (n - 1) * P + 4 * 32 * t_pkt + d;
	flow_t = flow_engine_time(&r, cap);
	if (getenv("FT_PKTNCCL_PRINT"))
		print_message("staggered window: %.4f us, closed form %.4f us (%+.3f packets); "
		              "flow %.4f us, D + n P %.4f us\n",
		              got * 1e6, want * 1e6, (got - want) / t_pkt, flow_t * 1e6,
		              (D + n * P) * 1e6);
	if (!(fabs(got - want) <= 2 * t_pkt))
		fail_msg("staggered send: %.9g s, closed form %.9g s (packet %.3g s)", got, want,
		         t_pkt);
	if (!(fabs(flow_t - D - n * P) <= 0.01 * n * P))
		fail_msg("flow engine, staggered send: %.9g s, D + n P %.9g s", flow_t, D + n * P);
	pk_run_free(&r);
}

/*
 * An all-to-all over 16 nodes (one rank each, 256 KiB per pair): each send on 2
 * channels (4 per peer, halved once since 16 ranks x 4 > 32) of two 64 KiB chunks, so
 * 15 peers fit in NCCL's 32 / 2 x 8 = 128 sends in flight: every rank sends to all at
 * once; every NIC sends 15 x 64 packets and every NIC port receives as many.
 * No rank can finish before its 960 packets have left it (plus the per-op, per-send
 * and per-step costs and a path latency); the fabric is not oversubscribed, so the
 * incast costs only a few percent on top.
 */
static void
test_p2p_alltoall(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_ALLTOALL,
		                  .algo = FT_ALGO_DIRECT,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 16,
		                  .ranks_per_node = 1,
		                  .bytes = 16u * (256u << 10) };
	struct pk_run r;
	double t_pkt, d, floor_s, got;

	(void)state;
	pk_run_op(&r, &a, 16, NULL, 1, false);
	pk_hop_times(&r, &t_pkt, &d);
	assert_int_equal(pk(r.e)->nflows_all, 16 * 15 * 4);
	floor_s = 15 * 64 * t_pkt + d + ft_coll_hw_latency(FT_HW_NET, a.algo, a.proto);
	got = r.c.ops[0].t_end_s - r.c.ops[0].t_start_s - r.s.base_lat_s - r.s.step_lat_s;
	print_message("# all-to-all %.3f us, floor %.3f us\n", got * 1e6, floor_s * 1e6);
	assert_true(got >= floor_s - 2 * t_pkt);
	assert_true(got <= 1.05 * floor_s);
	pk_run_free(&r);
}

/*
 * A message between nodes pays NCCL's hwLat[NET] as a ring's step does: the packets walk
 * their path d, and the message waits max(0, hwLat[NET] - d) on top (pkt_setup.c
 * walk_back_s(), ft__pk_pair_path_s()), max(hwLat[NET], d) in all, since NCCL's figure is
 * its whole measured network step. An all-to-all over 2 nodes, one rank each, 4 KiB a
 * pair (one packet t), on 5 us and 25 us cables (d 10.15 and 50.15 us against hwLat[NET]
 * 14 us): as NCCL's sends (chunking: auto; the receiver's notice back, d more) the op
 * less its launch and step overheads takes max(hwLat[NET], d) + d + t, run whole
 * (chunking: off) max(hwLat[NET], d) + t, within a packet time. Before, the sends paid
 * hwLat[NET] + d (34.30 us at 5 us, 114.38 at 25 us as NCCL's sends; 24.15 and 64.15
 * whole, and 100.38 at 25 us where the floor left the round unpriced).
 */
static void
test_a2a_net_floor_long_cables(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_ALLTOALL,
		                  .algo = FT_ALGO_DIRECT,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 2,
		                  .ranks_per_node = 1,
		                  .bytes = 2u * (4u << 10) };
	static const double cables[] = { 5e-6, 25e-6 };
	static const enum ft_pkt_chunking chunking[] = { FT_PKT_CHUNK_AUTO, FT_PKT_CHUNK_OFF };
	const double hw = ft_coll_hw_latency(FT_HW_NET, a.algo, a.proto);

	(void)state;
	for (size_t k = 0; k < FT_ARRAY_SIZE(chunking); k++)
		for (size_t c = 0; c < FT_ARRAY_SIZE(cables); c++) {
			struct ft_packet_cfg pc = { .chunking = chunking[k] };
			struct pk_run r;
			double t_pkt, d, got, want;

			pk_run_cable_lat_s = cables[c];
			pk_run_op(&r, &a, 2, &pc, 1, false);
			pk_run_cable_lat_s = 0;
			pk_hop_times(&r, &t_pkt, &d);
			got = r.c.ops[0].t_end_s - r.c.ops[0].t_start_s - r.s.base_lat_s -
			      r.s.step_lat_s;
			want = FT_MAX(hw, d) + (chunking[k] == FT_PKT_CHUNK_AUTO ? d : 0) + t_pkt;
			print_message("# a2a 4 KiB, chunking %s, cables %.0f us: %.3f us, path %.3f, "
			              "closed form %.3f\n",
			              k ? "off" : "auto", cables[c] * 1e6, got * 1e6, d * 1e6,
			              want * 1e6);
			assert_true(d > 2 * cables[c] && d < 3 * cables[c]);
			if (!(fabs(got - want) <= t_pkt))
				fail_msg("op %.9g s, closed form %.9g s (packet %.3g s)", got, want,
				         t_pkt);
			pk_run_free(&r);
		}
}

/* The lazy all-to-all case: 260 ranks of 8 KiB per pair, IB congestion control. */
static const struct ft_coll_args lazy_a2a = { .op = FT_OP_ALLTOALL,
	                                      .algo = FT_ALGO_DIRECT,
	                                      .proto = FT_PROTO_SIMPLE,
	                                      .nranks = 260,
	                                      .ranks_per_node = 1,
	                                      .bytes = 260u * (8u << 10) };
static const struct ft_packet_cfg lazy_pc = { .cc = FT_PKT_CC_IBCC };

/* Runs @a and @b of lazy_a2a, @nops of them, one built whole, the other lazily, gave every
 * figure the same. */
static void
lazy_runs_same(const struct pk_run *a, const struct pk_run *b, uint32_t nops)
{
	for (uint32_t k = 0; k < nops; k++) {
		assert_true(a->c.ops[k].t_end_s == b->c.ops[k].t_end_s);
		assert_true(a->c.ops[k].t_start_s == b->c.ops[k].t_start_s);
		assert_int_equal(a->c.ops[k].bottleneck_link, b->c.ops[k].bottleneck_link);
	}
	assert_int_equal(a->c.nevents, b->c.nevents);
	assert_int_equal(a->c.npackets, b->c.npackets);
	assert_int_equal(a->c.necn, b->c.necn);
	assert_int_equal(a->c.ncnp, b->c.ncnp);
	assert_true(a->c.bytes == b->c.bytes);
	assert_true(a->c.fct_p50_s == b->c.fct_p50_s);
	assert_true(a->c.fct_p99_s == b->c.fct_p99_s);
	assert_true(a->c.fct_max_s == b->c.fct_max_s);
	assert_true(a->c.slowdown_p99 == b->c.slowdown_p99);
}

/*
 * Where ranks' views differ, ft__sim_a2a_window() hands back a row of slots per local rank:
 * 3 DGX H100 nodes with 6 ranks each (GPUs 0-5), 4 channels a send on 4 p2p channels,
 * NCCL v2.28.7, the closed form of test_p2p_share_slots_every_rank (test_model.c). Local
 * rank 0's sends d ranks ahead keep 8 slots inside the node, 4 at d = 6, 7, 12, 13, 8 at
 * d >= 16 and 2 otherwise; local rank 4's keep 2 at every d >= 6. The buffer is the
 * function's (6 x 18 bytes) and the caller's to free; the caller's prior pointer (here a
 * stack array, which the function once freed) is neither read nor freed. The views are
 * decided there, once: ft__sim_a2a_send_ch() reads them.
 */
static void
test_a2a_window_views_own_buffer(void **state)
{
	struct ft_cluster_spec spec;
	struct ft_topo *t = NULL;
	struct ft_error err = { 0 };
	struct ft_model_p2p_chunking ch = { .channels = 4,
		                            .slots = 8,
		                            .chunk_bytes = 128u << 10,
		                            .proto = FT_PROTO_SIMPLE,
		                            .nccl_version = 22807 };
	struct ft_model_p2p_chunking out;
	struct ft__sim_a2a_slots s;
	uint32_t gpu[18], d;
	uint8_t stack[18], *sp;

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100:3", &spec, &err), 0);
	assert_int_equal(ft_topo_build(&spec, &t, &err), 0);
	for (d = 0; d < 18; d++)
		gpu[d] = ft_topo_gpu(t, d / 6, d % 6);
	memset(stack, 0xa5, sizeof(stack));
	s.row = stack;
	assert_true(ft__sim_a2a_window(t, gpu, 18, 1, 4, &ch, &s, false) >= 0);
	sp = s.row;
	assert_int_equal(s.ppn, 6);
	assert_int_equal(s.m, 18);
	assert_int_equal(s.views, 6);
	assert_non_null(sp);
	assert_ptr_not_equal(sp, stack);
	for (d = 0; d < 18; d++) {
		uint32_t want0 = d < 6 ? 8 : d == 6 || d == 7 || d == 12 || d == 13 ? 4 :
		                 d >= 16 ? 8 : 2;

		assert_int_equal(sp[0 * 18 + d], want0);
		assert_int_equal(sp[4 * 18 + d], d < 6 ? 8 : 2);
		assert_int_equal(stack[d], 0xa5);
	}
	/* rank 0 to 6 (round 6 of view 0): 4; rank 4 to 10 (round 6 of view 4): 2; rank 16
	 * (local 4 of node 2) to rank 4 (one node ahead, local delta 0): round 6, 2 */
	ft__sim_a2a_send_ch(&ch, &s, 0, 6, &out);
	assert_int_equal(out.slots, 4);
	ft__sim_a2a_send_ch(&ch, &s, 4, 10, &out);
	assert_int_equal(out.slots, 2);
	ft__sim_a2a_send_ch(&ch, &s, 16, 4, &out);
	assert_int_equal(out.slots, 2);
	ft_free(sp);
	/* v2.27.7: one view, an 18-byte buffer: every rank's send d ahead keeps rank 0's. By
	 * hand (src/enqueue.cc of v2.27: rounds walked 0..17 in order, round r's 4 parts on
	 * channels node delta + rev(k) mod 4, i.e. all 4, a batch cut only when full at 8):
	 * each channel's batches hold rounds 0-7, 8-15, 16-17; their network subs 2 (6, 7),
	 * 8, 2: slots 16 / 2 = 8 (capped at 8), 2, 8 */
	ch.nccl_version = 22707;
	s.row = stack;
	assert_true(ft__sim_a2a_window(t, gpu, 18, 1, 4, &ch, &s, false) >= 0);
	sp = s.row;
	assert_int_equal(s.views, 1);
	assert_non_null(sp);
	assert_ptr_not_equal(sp, stack);
	for (d = 0; d < 18; d++)
		assert_int_equal(sp[d], d >= 8 && d < 16 ? 2 : 8);
	ft__sim_a2a_send_ch(&ch, &s, 4, 10, &out);
	assert_int_equal(out.slots, sp[6]);
	ft_free(sp);
	/* no group: nothing allocated */
	s.row = stack;
	assert_int_equal(ft__sim_a2a_window(t, gpu, 0, 1, 4, &ch, &s, false), 0);
	assert_null(s.row);
	/* out of memory at any of its allocations (the buffer, the row, each view's walk):
	 * an error, nothing left to free, never "the window does not bind" */
	ch.nccl_version = 22807;
	for (unsigned long n = 1;; n++) {
		int rc;
		bool fired;

		s.row = stack;
		ft__alloc_fail_at(n);
		rc = ft__sim_a2a_window(t, gpu, 18, 1, 4, &ch, &s, false);
		fired = ft__alloc_failed();
		ft__alloc_fail_at(0);
		if (!fired) {
			assert_true(n > 6 * 6); /* the buffer, the row, 6 views of 6 each */
			assert_true(rc >= 0);
			ft_free(s.row);
			break;
		}
		assert_int_equal(rc, FT_ENOMEM);
		assert_null(s.row);
		assert_true(ft__sim_a2a_window(t, gpu, 18, 1, 4, &ch, NULL, false) >= 0);
	}
	ft_topo_free(t);
}

/*
 * Out of memory anywhere in the packet engine's submit of an all-to-all under NCCL's
 * window (3 PCIe nodes of 6 at v2.28.7, six views of the slots: the flow engine's
 * test_flow_alltoall_window_every_view in test_sim.c), built lazily (lazy_submit()) and
 * whole (p2p_alltoall()): every failed allocation, the window's slots and each view's
 * walk included (a2a_windowed()), is FT_ENOMEM in the return and in err, never a phase
 * run without its window; once none fails the submit succeeds.
 */
static void
test_a2a_window_submit_oom(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_ALLTOALL,
		                  .algo = FT_ALGO_DIRECT,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 18,
		                  .ranks_per_node = 6,
		                  .bytes = 18 * (8u << 20) };
	struct ft_packet_cfg pc = { .chunking = FT_PKT_CHUNK_NCCL };
	struct ft_sim_op op = { .after = -1 };
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };
	struct ft_topo *t = NULL;
	struct ft_schedule sch;
	struct ft_sim_cfg cfg;
	uint32_t rank_gpu[18];

	(void)state;
	assert_int_equal(ft_spec_load_file("tests/fixtures/spec/pcie-3x6.yaml", &spec, &err), 0);
	spec.nccl_version = 22807;
	assert_int_equal(ft_topo_build(&spec, &t, &err), 0);
	for (uint32_t r = 0; r < 18; r++)
		rank_gpu[r] = ft_topo_gpu(t, r / 6, r % 6);
	ft_sim_cfg_init(&cfg);
	cfg.packet = &pc;
	ft_schedule_init(&sch);
	assert_int_equal(ft_coll_schedule(&a, &sch, &err), 0);
	op.sched = &sch;
	op.rank_gpu = rank_gpu;
	for (int eager = 0; eager < 2; eager++) {
		unsigned long n;

		for (n = 1;; n++) {
			struct ft_engine *e = NULL;
			bool fired;
			int64_t rc;

			assert_int_equal(ft_packet_engine.create(t, &cfg, &e, &err), 0);
			ft_container_of(e, struct pk_engine, base)->a2a_eager = eager;
			memset(&err, 0, sizeof(err));
			ft__alloc_fail_at(n);
			rc = ft_packet_engine.submit(e, &op, &err);
			fired = ft__alloc_failed();
			ft__alloc_fail_at(0);
			ft_packet_engine.destroy(e);
			if (!fired) {
				if (rc < 0)
					fail_msg("%s: the submit failed with no allocation failed: %s",
					         eager ? "whole" : "lazy", err.msg);
				break;
			}
			if (rc != FT_ENOMEM || err.code != FT_ENOMEM)
				fail_msg("%s: allocation %lu of the submit failed: %s (%s)",
				         eager ? "whole" : "lazy", n,
				         rc < 0 ? ft_err_name((int)rc) : "success", err.msg);
		}
		print_message("# %s: %lu allocations swept\n", eager ? "whole" : "lazy", n - 1);
		/* the slots' buffer, its row and six views' walks of six buffers each at least */
		assert_true(n - 1 > 2 + 6 * 6);
	}
	ft_schedule_release(&sch);
	ft_topo_free(t);
}

/*
 * NCCL's window on an all-to-all's sends (ft_model_p2p_share_slots(),
 * ft__sim_a2a_window()): 18 nodes, one rank each on NIC 0 (one leaf), 4 MiB per pair,
 * 500 us cables (a round trip of 2 ms). A send is striped over 4 of the 32 p2p channels
 * (8 chunks of 128 KiB each). The engines follow the newest release (NCCL v2.28.7 and
 * later): round r's on channels rev5(r) + {0, 1, 2, 3}, and a work batch holds one group
 * of 8 rounds, whose channels are disjoint here, so every send is alone in its proxy op
 * and keeps NCCL_STEPS 8 chunks in flight: a window of 4 x 8 x 128 KiB = 4 MiB a round
 * trip. (Under v2.27.7 rounds 1, 9 and 17 share channel 1 and one proxy op of 3 subs,
 * 16 / 3 = 5 chunks each: checked below through the chunking's release.) A rank keeps
 * 32 / 4 x 8 = 64 sends going, so all 17 start at once, and 17 such windows a round trip
 * (35.7 GB/s) stay under the NIC: the window binds.
 *
 * The packet engine holds a channel's chunk m >= 1 to m P after its send's start (P =
 * the round trip / 8); with 8 chunks a channel no chunk waits for a clear-to-send. So
 * the last wave (chunk 7 of every channel of the 17 sends: 68 messages of t_msg = 32
 * packets) is released at 7 P and leaves the NIC within 68 t_msg (a wave, 177 us, is
 * shorter than P, 250 us: waves do not queue into each other); its way there and the
 * completion back add d + d (an all-to-all's send ends when its sender knows). The op
 * lies between cost + 7 P + t_msg + 2 d and cost + 7 P + 68 t_msg + 2 d -- 3,767 to 3,944
 * us; it takes 3,944, the whole last wave queued (4,975 us at the v2.27.7 counts: 5
 * slots, P = 400 us, past the bound). The flow engine, each send capped at its window, takes the
 * cost + 4 MiB / the window (one round trip, 8 P) + d within 1 %: it has no completion back nor
 * queue in its window. Built as its sends start, the same run to the picosecond.
 */
static void
test_p2p_alltoall_window(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_ALLTOALL,
		                  .algo = FT_ALGO_DIRECT,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 18,
		                  .ranks_per_node = 1,
		                  .bytes = 18u * (4u << 20) };
	struct ft_model_p2p_chunking ch;
	struct ft_model_p2p_comm comm;
	struct pk_run r, lz;
	double t_pkt, d, rtt, P, w, rate, cost, want, upper, got, flow_t, flow_want;

	(void)state;
	pk_run_cable_lat_s = 500e-6;
	pk_run_op(&r, &a, 18, NULL, 1, true);
	pk_run_op(&lz, &a, 18, NULL, 1, false);
	pk_run_cable_lat_s = 0;
	pk_hop_times(&r, &t_pkt, &d);
	rtt = 2 * d;
	assert_int_equal(ft__sim_p2p_comm(r.t, 18, true, r.spec.node.nic_Bps, &comm), 0);
	assert_int_equal(comm.p2p_nchannels, 32);
	ft_model_p2p_chunking_conn(&comm, 4u << 20, true, &ch);
	assert_int_equal(ch.channels, 4);
	assert_int_equal(ch.chunk_bytes, 128u << 10);
	assert_int_equal(ch.slots, 8);
	assert_int_equal(ch.peers_inflight, 64);
	{
		/* the function allocates the slots (one view at 1 rank a node: 18 bytes) and
		 * the caller frees them; what *sp held before is never read nor freed */
		uint8_t stack[18], *sp;
		struct ft__sim_a2a_slots s = { .row = stack };

		assert_int_equal(ft__sim_a2a_window(r.t, r.ends, 18, 1, 32, &ch, &s, false), 1);
		sp = s.row;
		assert_non_null(sp);
		assert_ptr_not_equal(sp, stack);
		assert_int_equal(s.ppn, 1);
		assert_int_equal(ch.slots, 8);
		for (uint32_t k = 1; k < 18; k++)
			assert_int_equal(sp[k], 8);
		ft_free(sp);
		/* at v2.27.7: rounds 1, 9, 17 keep 5; rank 3's send to rank 12 is round 9,
		 * its send to 5 round 2 */
		ch.nccl_version = 22707;
		s.row = NULL;
		assert_int_equal(ft__sim_a2a_window(r.t, r.ends, 18, 1, 32, &ch, &s, false), 1);
		sp = s.row;
		assert_non_null(sp);
		for (uint32_t k = 1; k < 18; k++)
			assert_int_equal(sp[k], k % 8 == 1 ? 5 : 8);
		ft__sim_a2a_send_ch(&ch, &s, 3, 12, &ch);
		assert_int_equal(ch.slots, 5);
		ch.slots = 8;
		ft__sim_a2a_send_ch(&ch, &s, 3, 5, &ch);
		assert_int_equal(ch.slots, 8);
		ft_free(sp);
		/* no buffer asked for: the same answer, nothing to free */
		assert_int_equal(ft__sim_a2a_window(r.t, r.ends, 18, 1, 32, &ch, NULL, false), 1);
		ch.nccl_version = 0;
	}
	w = ft__sim_p2p_send_window(r.t, &ch, r.ends[0], r.ends[1], &rate);
	if (!(fabs(w - 4.0 * 8 * 131072 / rtt) <= 1e-9 * w))
		fail_msg("window %.9g B/s, 4 x 8 x 128 KiB / %.9g s", w, rtt);
	assert_true(17 * w < rate * ft_proto_efficiency(FT_PROTO_SIMPLE));
	P = rtt / 8;
	assert_true(68 * 32 * t_pkt < P);
	cost = ft_coll_hw_latency(FT_HW_NET, a.algo, a.proto);
	got = r.c.ops[0].t_end_s - r.c.ops[0].t_start_s - r.s.base_lat_s - r.s.step_lat_s;
	want = cost + 7 * P + 32 * t_pkt + 2 * d;
	upper = cost + 7 * P + 68 * 32 * t_pkt + 2 * d;
	flow_t = flow_engine_time(&r, 0);
	flow_want = cost + 8 * P + d;
	if (getenv("FT_PKTNCCL_PRINT"))
		print_message("a2a window: %.4f us, bounds %.4f to %.4f us; flow %.4f us, "
		              "cost + 8 P + d %.4f us; P %.3f us\n",
		              got * 1e6, want * 1e6, upper * 1e6, flow_t * 1e6, flow_want * 1e6,
		              P * 1e6);
	if (!(got >= want - 2 * t_pkt && got <= upper + 2 * t_pkt))
		fail_msg("windowed all-to-all: %.9g s, not within %.9g s to %.9g s", got, want,
		         upper);
	if (!(fabs(flow_t - flow_want) <= 0.01 * flow_want))
		fail_msg("flow engine, windowed all-to-all: %.9g s, closed form %.9g s", flow_t,
		         flow_want);
	lazy_runs_same(&r, &lz, 1);
	pk_run_free(&r);
	pk_run_free(&lz);
}

/*
 * Two all-to-alls one after the other, the first at priority 3, the second at 1: each
 * send runs at its own op's priority, built lazily (the first op's sends are built at
 * the run's start, after the second op was submitted) as built whole, and both runs
 * give every figure the same.
 */
static void
test_lazy_prio(void **state)
{
	static const struct ft_coll_args a = { .op = FT_OP_ALLTOALL,
		                               .algo = FT_ALGO_DIRECT,
		                               .proto = FT_PROTO_SIMPLE,
		                               .nranks = 16,
		                               .ranks_per_node = 1,
		                               .bytes = 16u * (256u << 10) };
	static const uint8_t prio[2] = { 3, 1 };
	struct pk_run r[2];

	(void)state;
	for (uint32_t i = 0; i < 2; i++) { /* the first built whole before the run */
		pk_run_prio_ops_on(&r[i], &a, 16, 0, NULL, 1, i == 0, 2, FT_ROUTING_ECMP, prio);
		assert_int_equal(r[i].c.nprio_fct, 2);
		for (uint32_t k = 0; k < 2; k++) {
			assert_int_equal(r[i].c.prio_fct[k].prio, prio[1 - k]);
			assert_int_equal(r[i].c.prio_fct[k].nflows, 16 * 15 * 4);
			assert_true(r[i].c.prio_fct[k].fct_max_s == r[0].c.prio_fct[k].fct_max_s);
		}
	}
	lazy_runs_same(&r[0], &r[1], 2);
	for (uint32_t i = 0; i < 2; i++)
		pk_run_free(&r[i]);
}

/* The rows of @a's and @b's results that differ: per link its bytes, wire packets and
 * bytes, marks, CNPs and queue, and per op its counters and times (@nops ops). */
static size_t
rows_differ(const struct ft_sim_counters *a, const struct ft_sim_counters *b, uint32_t nops)
{
	size_t n = 0;

	assert_int_equal(a->nlinks, b->nlinks);
	assert_non_null(a->link_bytes);
	assert_non_null(a->port);
	for (uint32_t i = 0; i < a->nlinks; i++) {
		const struct ft_sim_port_counters *x = &a->port[i], *y = &b->port[i];

		n += a->link_bytes[i] != b->link_bytes[i] || x->tx_bytes != y->tx_bytes ||
		     x->tx_pkts != y->tx_pkts || x->drops != y->drops ||
		     x->ecn_marked != y->ecn_marked || x->ecn_rx != y->ecn_rx ||
		     x->cnp_sent != y->cnp_sent || x->cnp_handled != y->cnp_handled ||
		     x->q_max_bytes != y->q_max_bytes || x->q_mean_bytes != y->q_mean_bytes ||
		     x->xmit_wait_s != y->xmit_wait_s;
	}
	assert_non_null(a->op_counters);
	for (uint32_t k = 0; k < nops; k++) {
		const struct ft_sim_op_counters *x = &a->op_counters[k], *y = &b->op_counters[k];

		n += a->ops[k].t_start_s != b->ops[k].t_start_s ||
		     a->ops[k].t_end_s != b->ops[k].t_end_s || x->nflows != y->nflows ||
		     x->npackets != y->npackets || x->necn != y->necn || x->ncnp != y->ncnp ||
		     x->bytes != y->bytes || x->fct_p50_s != y->fct_p50_s ||
		     x->fct_p99_s != y->fct_p99_s || x->fct_max_s != y->fct_max_s;
	}
	return n;
}

/*
 * An all-to-all whose sends are built as they start (the default) runs exactly as the
 * whole graph built before the run: 260 ranks of 8 KiB per pair on one NIC of 260 nodes
 * each, IB congestion control on (BECNs return after a send's end, for the records its
 * slot is reused with), so that the 256 sends a rank has in flight (1 channel a send)
 * are fewer than its 259 peers and rounds 257 to 259 wait for ends. Every figure the run
 * gives is the same, and so is every row: each link's bytes, packets, marks, CNPs and
 * queue, the op's flows, bytes and times, to the bit. The comparison itself is checked: one link's bytes moved by one
 * in a copy of the lazy result is one row that differs.
 */
static void
test_lazy_same(void **state)
{
	struct pk_run r[2];
	struct ft_sim_counters c;
	double *bytes;
	uint32_t i, busy = 0;

	(void)state;
	for (i = 0; i < 2; i++) /* the first built whole before the run */
		pk_run_op(&r[i], &lazy_a2a, 260, &lazy_pc, 1, i == 0);
	assert_int_equal(pk(r[0].e)->flows.len, 260 * 259);
	assert_int_equal(pk(r[1].e)->nflows_all, 260 * 259);
	/* (records are reused by a send of the same shape, its slots too: rounds 257 to 259
	 * sit in the last, short batches of their channels and keep more slots than the ended
	 * sends of rounds 1 to 3, which keep 2, so here none is reused) */
	assert_true(pk(r[1].e)->flows.len <= 260 * 259);
	print_message("# lazy: %zu flow records for %llu flows; %llu CNPs\n", pk(r[1].e)->flows.len,
	              (unsigned long long)pk(r[1].e)->nflows_all,
	              (unsigned long long)r[1].c.ncnp);
	assert_true(r[1].c.ncnp > 0);
	lazy_runs_same(&r[0], &r[1], 1);
	assert_int_equal(r[0].c.op_counters[0].nflows, 260 * 259);
	assert_true(r[0].c.op_counters[0].bytes == 260ull * 259 * (8u << 10));
	assert_int_equal(rows_differ(&r[0].c, &r[1].c, 1), 0);
	/* the comparison fails on a result one byte off on one link */
	c = r[1].c;
	bytes = malloc(c.nlinks * sizeof(*bytes));
	assert_non_null(bytes);
	memcpy(bytes, c.link_bytes, c.nlinks * sizeof(*bytes));
	for (i = 0; i < c.nlinks; i++)
		busy = bytes[i] > 0 ? i : busy;
	assert_true(bytes[busy] > 0);
	bytes[busy] += 1;
	c.link_bytes = bytes;
	assert_int_equal(rows_differ(&r[0].c, &c, 1), 1);
	free(bytes);
	for (i = 0; i < 2; i++)
		pk_run_free(&r[i]);
}

/*
 * test_lazy_same on a job with NVLink peers: 288 ranks, 8 GPUs on each of 36 DGX H100
 * nodes, 8 KiB per pair, so that rounds 257 to 287 wait for ends (W = 256). A send's
 * shape is its connection's: to an NVLink peer LL (at most 16 KiB a channel; its flags
 * double the wire bytes, kb NA-PROTO-LL), over the network Simple (no LL buffers there).
 * Built whole, each of the 36 x 56 in-node sends is one 16 KiB flow, each network send
 * one of 8 KiB; built lazily, each send takes its own shape too (and an ended send's
 * records go to a send of its shape), so both runs move those bytes and are the same.
 */
static void
test_lazy_same_nvlink(void **state)
{
	const uint32_t nodes = 36, gpn = 8, n = nodes * gpn;
	const uint64_t pair = 8u << 10, nloc = (uint64_t)nodes * gpn * (gpn - 1);
	const uint64_t nsends = (uint64_t)n * (n - 1);
	const struct ft_coll_args a = { .op = FT_OP_ALLTOALL,
		                        .algo = FT_ALGO_DIRECT,
		                        .proto = FT_PROTO_SIMPLE,
		                        .nranks = n,
		                        .ranks_per_node = gpn,
		                        .bytes = n * pair };
	struct pk_run r[2];
	uint32_t i;

	(void)state;
	for (i = 0; i < 2; i++) /* the first built whole before the run */
		pk_run_ops_on(&r[i], &a, nodes, gpn, &lazy_pc, 1, i == 0, 1, FT_ROUTING_ECMP);
	assert_int_equal(pk(r[0].e)->flows.len, nsends);
	for (i = 0; i < pk(r[0].e)->flows.len; i++) {
		const struct pk_flow *f = ft_vec_at(&pk(r[0].e)->flows, i);
		bool local = ft_topo_vertex(r[0].t, f->src)->node == ft_topo_vertex(r[0].t, f->dst)->node;

		assert_int_equal(f->bytes, local ? 2 * pair : pair);
	}
	assert_int_equal(pk(r[1].e)->nflows_all, nsends);
	assert_true(pk(r[1].e)->flows.len < nsends);
	print_message("# lazy: %zu flow records for %llu flows; %llu CNPs\n", pk(r[1].e)->flows.len,
	              (unsigned long long)pk(r[1].e)->nflows_all,
	              (unsigned long long)r[1].c.ncnp);
	for (i = 0; i < 2; i++) {
		assert_true(r[i].c.bytes == (double)(nloc * 2 * pair + (nsends - nloc) * pair));
		assert_int_equal(pk(r[i].e)->bytes_submitted, nloc * 2 * pair + (nsends - nloc) * pair);
	}
	lazy_runs_same(&r[0], &r[1], 1);
	for (i = 0; i < 2; i++)
		pk_run_free(&r[i]);
}

/* The path latency of @r's flows from each rank to each other (@m ranks), into @lat
 * (m x m): the same for every flow of a pair, else fails. */
static void
pair_lat(const struct pk_run *r, uint32_t m, uint64_t *lat)
{
	for (size_t f = 0; f < pk(r->e)->flows.len; f++) {
		const struct pk_flow *fl = ft_vec_at(&pk(r->e)->flows, f);
		uint32_t x = m, y = m;

		for (uint32_t q = 0; q < m; q++) {
			x = r->ends[q] == fl->src ? q : x;
			y = r->ends[q] == fl->dst ? q : y;
		}
		assert_true(x < m && y < m && fl->lat_ps > 0);
		if (lat[x * m + y] == 0)
			lat[x * m + y] = fl->lat_ps;
		assert_int_equal(fl->lat_ps, lat[x * m + y]);
	}
}

/*
 * The clear-to-send a receiver writes into its next sender's FIFO travels from the
 * receiver back to that sender, not along the ended send. 288 ranks, 8 GPUs on each of
 * 36 DGX H100 nodes, 8 KiB a pair: W = 256 sends in flight per rank, so the send of
 * round k + 256 of rank j (k <= 31) waits for the end of its own round k send and for
 * the clear-to-send of its receiver b = j + k + 256 after b's round k receive, from rank
 * i = j + 256. Built whole, each send's end waits the path latency of its flows i -> b
 * and its notice exactly that of the path from b back to j (the latency of the send
 * j -> b, over the same links), whatever path the ended send took: NVLink when b is on
 * j's node, one leaf on j's rail, or a spine. The send of round k + 256 starts at the
 * later of its lane's end and that notice. Some notices are longer than the ended send's
 * path and hold a send back. Built lazily, the run is the same.
 */
static void
test_a2a_notice_path(void **state)
{
	const uint32_t nodes = 36, gpn = 8, m = nodes * gpn, w = 256;
	const struct ft_coll_args a = { .op = FT_OP_ALLTOALL,
		                        .algo = FT_ALGO_DIRECT,
		                        .proto = FT_PROTO_SIMPLE,
		                        .nranks = m,
		                        .ranks_per_node = gpn,
		                        .bytes = m * (8u << 10) };
	struct pk_run r[2];
	uint32_t *send = ft_calloc((size_t)m * (m - 1), sizeof(uint32_t)), n = 0, i, k;
	uint32_t held = 0, longer = 0;
	uint64_t *lat = ft_calloc((size_t)m * m, sizeof(uint64_t));
	const struct pk_task *t;

	(void)state;
	assert_non_null(send);
	assert_non_null(lat);
	for (i = 0; i < 2; i++) /* the first built whole before the run */
		pk_run_ops_on(&r[i], &a, nodes, gpn, NULL, 1, i == 0, 1, FT_ROUTING_ECMP);
	pair_lat(&r[0], m, lat);
	/* Each send's tasks: its start, its end (one path latency of its flows), its notice. */
	t = pk(r[0].e)->tasks.data;
	for (size_t j = 1; j + 1 < pk(r[0].e)->tasks.len; j++)
		if (t[j - 1].kind == PK_T_BARRIER && t[j].kind == PK_T_BARRIER &&
		    t[j].lat_mult == 1.0 && t[j + 1].kind == PK_T_BARRIER && t[j + 1].lat_mult == 0) {
			assert_true(n < m * (m - 1));
			send[n++] = (uint32_t)j - 1;
		}
	assert_int_equal(n, m * (m - 1));
	for (k = 1; k + w <= m - 1; k++) {
		for (i = 0; i < m; i++) {
			uint32_t b = (i + k) % m, j = (i + m - w) % m;
			const struct pk_task *end = &t[send[(k - 1) * m + i] + 1];
			const struct pk_task *cts = end + 1;
			const struct pk_task *own = &t[send[(k - 1) * m + j] + 1];
			const struct pk_task *next = &t[send[(k + w - 1) * m + j]];
			uint64_t back = lat[j * m + b], fwd = lat[i * m + b];

			assert_int_equal(cts->t_start_ps, end->t_start_ps); /* its last byte in */
			assert_int_equal(cts->t_done_ps - cts->t_start_ps, back);
			assert_int_equal(end->t_done_ps - end->t_start_ps, fwd);
			assert_int_equal(next->t_start_ps, FT_MAX(own->t_done_ps, cts->t_done_ps));
			longer += back > fwd;
			held += back > fwd && cts->t_done_ps > own->t_done_ps;
		}
	}
	print_message("# notices: %u of %u longer than the ended send's path, %u held a send\n",
	              longer, (m - 1 - w) * m, held);
	assert_true(held > 0);
	lazy_runs_same(&r[0], &r[1], 1);
	for (i = 0; i < 2; i++)
		pk_run_free(&r[i]);
	ft_free(send);
	ft_free(lat);
}

/* The ops' counters of a run add up to its own. */
static void
op_counters_add_up(const struct ft_sim_counters *c)
{
	struct ft_sim_op_counters sum = { 0 };

	assert_non_null(c->op_counters);
	for (size_t k = 0; k < c->nops; k++) {
		const struct ft_sim_op_counters *o = &c->op_counters[k];

		sum.nflows += o->nflows;
		sum.npackets += o->npackets;
		sum.ndrops += o->ndrops;
		sum.nretx += o->nretx;
		sum.necn += o->necn;
		sum.ncnp += o->ncnp;
		sum.bytes += o->bytes;
	}
	assert_int_equal(sum.nflows, c->nflows);
	assert_int_equal(sum.npackets, c->npackets);
	assert_int_equal(sum.ndrops, c->ndrops);
	assert_int_equal(sum.nretx, c->nretx);
	assert_int_equal(sum.necn, c->necn);
	assert_int_equal(sum.ncnp, c->ncnp);
	assert_true((double)sum.bytes == c->bytes);
}

static void
op_counters_same(const struct ft_sim_op_counters *a, const struct ft_sim_op_counters *b)
{
	assert_int_equal(a->nflows, b->nflows);
	assert_int_equal(a->npackets, b->npackets);
	assert_int_equal(a->necn, b->necn);
	assert_int_equal(a->ncnp, b->ncnp);
	assert_int_equal(a->bytes, b->bytes);
	assert_true(a->fct_p50_s == b->fct_p50_s);
	assert_true(a->fct_p99_s == b->fct_p99_s);
	assert_true(a->fct_max_s == b->fct_max_s);
}

/*
 * Two all-to-alls one after the other, as test_lazy_same's: the second one's sends are
 * built into the records the first one's had (all of them ended, and their CNPs in, by
 * then), so the run holds the records of one phase, not two; and both ops still run
 * exactly as the whole graph built before the run. Each op's counters are its own flows':
 * they add up to the run's, and the first op's are those of the op run alone.
 */
static void
test_lazy_phases_share(void **state)
{
	struct pk_run one, r[2];
	uint32_t i, k;

	(void)state;
	pk_run_op(&one, &lazy_a2a, 260, &lazy_pc, 1, false);
	for (i = 0; i < 2; i++) /* the first built whole before the run */
		pk_run_ops(&r[i], &lazy_a2a, 260, &lazy_pc, 1, i == 0, 2);
	assert_int_equal(pk(r[0].e)->flows.len, 2 * 260 * 259);
	assert_int_equal(pk(r[1].e)->nflows_all, 2 * 260 * 259);
	print_message("# lazy: %zu flow records, %zu tasks for two ops; one op: %zu, %zu\n",
	              pk(r[1].e)->flows.len, pk(r[1].e)->tasks.len, pk(one.e)->flows.len,
	              pk(one.e)->tasks.len);
	assert_int_equal(pk(r[1].e)->flows.len, pk(one.e)->flows.len);
	assert_true(r[1].c.ops[1].t_start_s >= r[1].c.ops[0].t_end_s);
	lazy_runs_same(&r[0], &r[1], 2);
	op_counters_add_up(&r[1].c);
	assert_non_null(one.c.op_counters);
	assert_int_equal(one.c.nops, 1);
	assert_true(one.c.op_counters[0].fct_p99_s == one.c.fct_p99_s);
	for (k = 0; k < 2; k++) {
		const struct ft_sim_op_counters *o = &r[1].c.op_counters[k];

		assert_int_equal(o->nflows, 260 * 259);
		assert_true(o->ncnp > 0);
	}
	op_counters_same(&r[1].c.op_counters[0], &one.c.op_counters[0]);
	op_counters_same(&r[0].c.op_counters[1], &r[1].c.op_counters[1]);
	pk_run_free(&one);
	for (i = 0; i < 2; i++)
		pk_run_free(&r[i]);
}

/*
 * A lossy all-to-all (PFC off, bit errors, a 200 us retransmit timeout) is built as its
 * sends may start too. Its records outlive a send's end by what still names them: resent
 * packets, ACKs, NAKs, CNPs and RTT samples on their way (struct pk_refs); a timer still
 * armed finds the record's next flow of another generation. test_lazy_same's 260 ranks
 * (67,340 flows whole, one a send), unpaced with 2 QPs and under DCQCN with switches
 * marking every packet that queues, one op and two in a row: every figure and every
 * port's counters are the whole build's, drops and resends with them. One op holds
 * fewer records than it has flows (256 of its 259 rounds start at once: little to
 * reuse); two in a row hold one op's at most, the second op's sends going to the first
 * op's records once nothing names them (built whole: both ops', 134,680).
 */
static void
test_lazy_lossy(void **state)
{
	const struct {
		enum ft_pkt_cc cc;
		uint32_t qps, nops;
	} runs[] = { { FT_PKT_CC_NONE, 2, 1 },
		     { FT_PKT_CC_DCQCN, 1, 1 },
		     { FT_PKT_CC_DCQCN, 1, 2 } };

	(void)state;
	for (size_t k = 0; k < FT_ARRAY_SIZE(runs); k++) {
		struct ft_packet_cfg pc = { .cc = runs[k].cc,
			                    .ecn_kmin_bytes = 1,
			                    .ecn_kmax_bytes = 2,
			                    .ecn_pmax = 1,
			                    .fc = FT_PKT_FC_NONE,
			                    .ber = 1e-7,
			                    .rto_s = 200e-6 };
		/* (8 KiB: one message a send) */
		const size_t whole = (size_t)runs[k].nops * 260 * 259;
		struct pk_run r[2];

		for (int i = 0; i < 2; i++) /* the first built whole before the run */
			pk_run_ops(&r[i], &lazy_a2a, 260, &pc, runs[k].qps, i == 0, runs[k].nops);
		assert_true(pk(r[1].e)->may_drop);
		assert_non_null(pk(r[1].e)->lazy);
		assert_int_equal(pk(r[0].e)->flows.len, whole);
		assert_int_equal(pk(r[1].e)->nflows_all, whole);
		print_message("# lazy lossy all-to-all, run %zu: %zu flow records (whole: %zu), "
		              "%llu drops, %llu resent, %llu CNPs\n", k, pk(r[1].e)->flows.len,
		              whole, (unsigned long long)r[1].c.ndrops,
		              (unsigned long long)r[1].c.nretx, (unsigned long long)r[1].c.ncnp);
		assert_true(pk(r[1].e)->flows.len < whole);
		if (pk(r[1].e)->flows.len > (size_t)260 * 259)
			fail_msg("run %zu: %zu flow records, more than one op's %u flows", k,
			         pk(r[1].e)->flows.len, 260 * 259);
		assert_true(r[0].c.ndrops > 0 && r[0].c.nretx > 0);
		assert_int_equal(r[0].c.ndrops, r[1].c.ndrops);
		assert_int_equal(r[0].c.nretx, r[1].c.nretx);
		assert_true(runs[k].cc == FT_PKT_CC_NONE || r[0].c.ncnp > 0);
		lazy_runs_same(&r[0], &r[1], runs[k].nops);
		assert_int_equal(r[0].c.nlinks, r[1].c.nlinks);
		for (uint32_t l = 0; l < r[0].c.nlinks; l++) {
			const struct ft_sim_port_counters *p = &r[0].c.port[l];
			const struct ft_sim_port_counters *q = &r[1].c.port[l];

			assert_int_equal(p->tx_bytes, q->tx_bytes);
			assert_int_equal(p->drops, q->drops);
			assert_int_equal(p->ack_timeouts, q->ack_timeouts);
			assert_int_equal(p->seq_naks, q->seq_naks);
			assert_int_equal(p->q_max_bytes, q->q_max_bytes);
			assert_memory_equal(&p->q_mean_bytes, &q->q_mean_bytes, sizeof(double));
		}
		for (int i = 0; i < 2; i++)
			pk_run_free(&r[i]);
	}
}

/* The rail leaf of NIC 0 of node 0 in @t, and the capacity of its uplinks, bytes/s. */
static double
leaf_uplinks(const struct ft_topo *t)
{
	uint32_t nic = ft_topo_nic(t, 0, 0), first, n, leaf = UINT32_MAX, l;
	double cap = 0;

	ft_topo_out_links(t, nic, &first, &n);
	for (l = first; l < first + n; l++)
		if (ft_topo_link(t, l)->kind == FT_L_HOST)
			leaf = ft_topo_link(t, l)->dst;
	assert_true(leaf != UINT32_MAX);
	ft_topo_out_links(t, leaf, &first, &n);
	for (l = first; l < first + n; l++)
		if (ft_topo_link(t, l)->up)
			cap += ft_topo_link(t, l)->cap_Bps;
	return cap;
}

/* Bytes the run of @rep carried over links of other kinds than NVLink. */
static double
off_nvlink_bytes(const struct ft_sim_report *rep)
{
	double b = 0;

	for (size_t i = 0; i < rep->tiers.len; i++) {
		const struct ft_sim_tier_stat *t = ft_vec_at(&rep->tiers, i);

		if (strcmp(t->kind, "nvlink") != 0)
			b += t->bytes;
	}
	return b;
}

/*
 * An all-to-all job over the 8 GPUs of the two trays of one GB200 NVL72 domain
 * (gb200-nvl72:2), NCCL's send/recv chunks: NCCL sees one node (MNNVL), so every send is
 * an NVLink peer's, at its protocol and per-message cost, and no byte goes through a NIC,
 * in both engines (one rule, ft__sim_over_network()). The two engines then differ only by
 * what the packet engine adds: each send's end waits its completion back, one NVLink path
 * latency L (GPU port in, the far tray's GPU port out), once since all 7 peers are in
 * flight at once; and whole packets, up to one packet's time on each of a path's two
 * ports per round (2 x 7 packet times). Before, the packet engine took the pairs of two
 * trays as leaving the node: network chunks and NET's 14 us per-message cost, 27.75 us
 * against the flow engine's 17.07 at 1 MiB.
 */
static void
test_alltoall_across_trays(void **state)
{
	static const char text[] = "name: t\n"
	                           "cluster: gb200-nvl72:2\n"
	                           "packet: {mtu: 4096}\n"
	                           "jobs:\n"
	                           "  - name: a\n"
	                           "    ops:\n"
	                           "      - {op: alltoall, size: 1MiB}\n"
	                           "      - {op: alltoall, size: 16MiB}\n";
	static const char *const engines[2] = { "flow", "packet" };
	struct ft_sim_report rep[2];
	struct ft_error err = { 0 };
	struct ft_topo *t = NULL;
	struct ft_scenario *sc = NULL;
	struct ft_model_p2p_chunking ch;
	struct ft_model_p2p_comm comm;
	uint32_t port, first, count, gpu[8];
	double lat, t_pkt;

	(void)state;
	assert_int_equal(ft_scenario_load_buffer(text, strlen(text), "t.yaml", &sc, &err), 0);
	assert_int_equal(ft_topo_build(&sc->spec, &t, &err), 0);
	for (uint32_t i = 0; i < 8; i++)
		gpu[i] = ft_topo_gpu(t, i / 4, i % 4);
	assert_false(ft__sim_spans_nodes(t, gpu, 8, 1));
	assert_true(ft__sim_nvlink_peers(t, gpu[0], gpu[4]));
	assert_false(ft__sim_over_network(t, gpu[0], gpu[4]));
	assert_true(ft__sim_over_network(t, ft_topo_nic(t, 0, 0), ft_topo_nic(t, 1, 0)));
	/* every peer in flight at once: one completion wait */
	assert_int_equal(ft__sim_p2p_comm(t, 8, false, sc->spec.node.nic_Bps, &comm), 0);
	ft_model_p2p_chunking_conn(&comm, 1u << 20, false, &ch);
	assert_true(ch.peers_inflight >= 7);
	ft_topo_out_links(t, gpu[0], &first, &count);
	for (port = first; ft_topo_link(t, port)->kind != FT_L_NVLINK; port++)
		assert_true(port + 1 < first + count);
	lat = ft_topo_link(t, port)->lat_s + ft_topo_link(t, ft_topo_link(t, port)->rev)->lat_s;
	t_pkt = 4096 / ft_topo_link(t, port)->cap_Bps;
	for (int k = 0; k < 2; k++) {
		struct ft_sim_overrides ov;

		ft_sim_overrides_init(&ov);
		ov.engine = engines[k];
		ft_sim_report_init(&rep[k]);
		if (ft_scenario_run(sc, &ov, NULL, &rep[k], &err) != 0)
			fail_msg("run: %s", err.msg);
		assert_int_equal(ft_run_nrows(&rep[k].run), 2);
		assert_true(off_nvlink_bytes(&rep[k]) == 0);
	}
	for (size_t i = 0; i < 2; i++) {
		const struct ft_result_row *f = ft_vec_at(&rep[0].run.rows, i);
		const struct ft_result_row *p = ft_vec_at(&rep[1].run.rows, i);
		double d = (p->time_us - f->time_us) * 1e-6;

		print_message("# %llu B: flow %.2f us, packet %.2f us, L %.3f us, packet %.2f ns\n",
		              (unsigned long long)f->bytes, f->time_us, p->time_us, lat * 1e6,
		              t_pkt * 1e9);
		assert_true(fabs(d - lat) <= 2 * 7 * t_pkt);
	}
	for (int k = 0; k < 2; k++)
		ft_sim_report_release(&rep[k]);
	ft_topo_free(t);
	ft_scenario_free(sc);
}

/*
 * Lab 5, small form (scenarios/lab/moe-alltoall.yaml): on a rail-optimized fabric with
 * oversubscribed leaves, the flat all-to-all sends every cross-rail byte up through its
 * rail leaf's uplinks, so it can take no less than those bytes over their capacity; the
 * hierarchical one regroups over NVLink and stays on the rail's leaf, so it is not
 * bound by them at all: it must finish before the flat one's floor, and the flat one
 * must mark ECN on its way (congestion), as the page says.
 */
static void
test_lab_moe(void **state)
{
	struct ft_scenario *sc = NULL;
	struct ft_sim_report rep;
	struct ft_sim_overrides ov;
	struct ft_error err = { 0 };
	struct ft_topo *t = NULL;
	const struct ft_result_row *flat, *hier;
	double up_Bps, per_pair, up_bytes, floor_s;
	uint32_t nodes, gpn;

	(void)state;
	assert_int_equal(ft_scenario_load_file("scenarios/lab/moe-alltoall.yaml", &sc, &err), 0);
	ft_sim_report_init(&rep);
	ft_sim_overrides_init(&ov);
	ov.counters = true;
	if (ft_scenario_run(sc, &ov, NULL, &rep, &err) != 0)
		fail_msg("run: %s", err.msg);
	assert_int_equal(ft_topo_build(&sc->spec, &t, &err), 0);
	assert_int_equal(ft_run_nrows(&rep.run), 2);
	flat = ft_vec_at(&rep.run.rows, 0);
	hier = ft_vec_at(&rep.run.rows, 1);
	assert_string_equal(flat->algo, "direct");
	assert_string_equal(hier->algo, "hierarchical");
	nodes = rep.nnodes;
	gpn = (uint32_t)(rep.ngpus / nodes);
	/* Every GPU of the rail sends to the GPUs of the other rails on the other nodes. */
	per_pair = (double)flat->bytes / (double)rep.ngpus;
	up_bytes = (double)nodes * (nodes - 1) * (gpn - 1) * per_pair;
	up_Bps = leaf_uplinks(t);
	floor_s = up_bytes / up_Bps;
	print_message("# flat %.1f us, floor %.1f us, hierarchical %.1f us\n", flat->time_us,
	              floor_s * 1e6, hier->time_us);
	assert_true(flat->time_us * 1e-6 >= floor_s);
	assert_true(hier->time_us * 1e-6 < floor_s);
	assert_true(rep.c.necn > 0);
	/* The NICs count the marks, CNPs sent and CNPs handled (ethtool -S) on their
	 * links to and from the fabric, though the flows end at GPUs behind them: their
	 * files add up to the run's counts. */
	{
		static const char *const keys[3] = { "np_ecn_marked_roce_packets:",
			                             "np_cnp_sent:", "rp_cnp_handled:" };
		uint64_t sum[3] = { 0 };

		for (size_t i = 0; i < rep.counter_files.len; i++) {
			const struct ft_sim_file *fl = ft_vec_at(&rep.counter_files, i);

			for (int k = 0; k < 3; k++) {
				const char *at = strstr(fl->text, keys[k]);

				if (at)
					sum[k] += strtoull(at + strlen(keys[k]), NULL, 10);
			}
		}
		assert_int_equal(sum[0], rep.c.necn);
		assert_int_equal(sum[1], rep.c.ncnp);
		assert_int_equal(sum[2], rep.c.ncnp);
	}
	ft_topo_free(t);
	ft_sim_report_release(&rep);
	ft_scenario_free(sc);
}

/*
 * The NIC's send pipeline (packet.nic_msg_rate): 16 ranks on 16 NICs exchange 4 KiB per
 * pair, one packet a message, all 15 sends of a rank posted at once. At 100,000
 * messages a second (10 us a message, a thousand times a packet's wire time) the NIC
 * sends one message per 10 us: the all-to-all takes the per-send start cost, 14
 * pipeline times, NCCL's network latency (the packets' way inside it: max(hwLat[NET], d))
 * and the way back (the sender learns of its send's end one path latency later),
 * whatever the wire allows. With a QP cache
 * of 4 contexts and a miss rate of half, message k of a NIC (k = 0..14) finds 15 - k
 * sends in flight (the earlier ones have arrived, a microsecond after leaving): the
 * first 11 miss (20 us each), the last 4 hit (10 us). Under adaptive routing (no
 * path kept per flow) the QPs are counted on the NIC port they leave by alike: the same
 * misses and times.
 */
static void
test_nic_msg_rate(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_ALLTOALL,
		                  .algo = FT_ALGO_DIRECT,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 16,
		                  .ranks_per_node = 1,
		                  .bytes = 16u * (4u << 10) };
	const struct {
		uint32_t cache;
		double miss_rate;
		uint64_t missed;    /* per NIC */
		double pipeline_s; /* until the last message's start */
	} cases[] = {
		{ 0, 0, 0, 14 * 10e-6 },
		{ 15, 0.5e5, 0, 14 * 10e-6 },
		{ 4, 0.5e5, 11, 11 * 20e-6 + 3 * 10e-6 },
	};
	const uint32_t nc = FT_ARRAY_SIZE(cases);
	double t_pkt = 0, d = 0; /* the hops of ECMP's paths, the first cases (adaptive keeps none) */
	uint32_t i;

	(void)state;
	for (i = 0; i < 2 * nc; i++) {
		bool ar = i >= nc;
		struct ft_packet_cfg pc = { .nic_msg_rate = 1e5,
			                    .nic_msg_rate_miss = cases[i % nc].miss_rate,
			                    .nic_qp_cache = cases[i % nc].cache };
		struct pk_run r;
		double want, got;

		pk_run_op_routed(&r, &a, 16, &pc, 1, false,
		                 ar ? FT_ROUTING_ADAPTIVE : FT_ROUTING_ECMP);
		if (!ar)
			pk_hop_times(&r, &t_pkt, &d);
		/* the last message waits hwLat[NET] less its path, walks the path, and its end
		 * comes back: max(hwLat[NET], d) + d (test_a2a_net_floor_long_cables) */
		want = cases[i % nc].pipeline_s + t_pkt + d +
		       FT_MAX(ft_coll_hw_latency(FT_HW_NET, a.algo, a.proto), d);
		got = r.c.ops[0].t_end_s - r.c.ops[0].t_start_s - r.s.base_lat_s - r.s.step_lat_s;
		print_message("# %s, cache %u: %.3f us, expected %.3f us, %llu of %llu missed\n",
		              ar ? "adaptive" : "ECMP", cases[i % nc].cache, got * 1e6, want * 1e6,
		              (unsigned long long)r.c.nic_missed, (unsigned long long)r.c.nic_msgs);
		assert_int_equal(r.c.nic_msgs, 16 * 15);
		assert_int_equal(r.c.nic_missed, 16 * cases[i % nc].missed);
		assert_true(fabs(got - want) <= 2 * t_pkt);
		pk_run_free(&r);
	}
}

/* The NIC pipeline's knobs are checked together: a miss rate above the rate, a miss
 * rate or cache without a rate. */
static void
test_nic_msg_rate_errors(void **state)
{
	const struct {
		struct ft_packet_cfg pc;
		enum ft_routing routing;
		const char *msg;
	} cases[] = {
		{ { .nic_msg_rate = 1e8, .nic_msg_rate_miss = 2e8 }, FT_ROUTING_ECMP,
		  "packet.nic_msg_rate_miss: expected at most nic_msg_rate (1e+08), got 2e+08" },
		{ { .nic_qp_cache = 64 }, FT_ROUTING_ECMP,
		  "packet.nic_msg_rate: needed by nic_msg_rate_miss and nic_qp_cache" },
	};
	struct ft_cluster_spec spec;
	struct ft_topo *t = NULL;
	struct ft_error err = { 0 };
	uint32_t i;

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &spec, &err), 0);
	assert_int_equal(ft_topo_build(&spec, &t, &err), 0);
	for (i = 0; i < FT_ARRAY_SIZE(cases); i++) {
		struct ft_sim_cfg cfg;
		struct ft_engine *e = NULL;

		err = (struct ft_error){ 0 };
		ft_sim_cfg_init(&cfg);
		cfg.packet = &cases[i].pc;
		cfg.routing = cases[i].routing;
		assert_true(ft_packet_engine.create(t, &cfg, &e, &err) < 0);
		assert_null(e);
		assert_string_equal(err.msg, cases[i].msg);
	}
	ft_topo_free(t);
}

/* The bytes the run put on the links into GPU vertex @dst of kind @kind (all: @dst
 * UINT32_MAX), and on the fabric's links of @tier. */
static double
bytes_into(const struct ft_topo *t, const struct ft_sim_counters *c, int kind, uint32_t dst)
{
	double b = 0;

	for (uint32_t l = 0; l < c->nlinks; l++) {
		const struct ft_link *lk = ft_topo_link(t, l);

		if (lk->kind == kind && (dst == UINT32_MAX || lk->dst == dst))
			b += c->link_bytes[l];
	}
	return b;
}

static double
bytes_tier(const struct ft_topo *t, const struct ft_sim_counters *c, uint32_t tier)
{
	double b = 0;

	for (uint32_t l = 0; l < c->nlinks; l++)
		if (ft_topo_link(t, l)->tier == tier && ft_topo_link(t, l)->kind != FT_L_NVLINK &&
		    ft_topo_link(t, l)->kind != FT_L_PCIE)
			b += c->link_bytes[l];
	return b;
}

/* GPUs 0 and 1 of nodes 0 and 1 of @spec's cluster (@ends, ranks 0-3) run @a on the
 * packet engine, its messages built whole (@eager) or lazily: the topology in @t, the
 * schedule in @s, the counters in @c; the engine returned. */
static struct ft_engine *
pxn_pair_run(const struct ft_cluster_spec *spec, const struct ft_coll_args *a, int eager,
             struct ft_topo **t, struct ft_schedule *s, uint32_t *ends, struct ft_sim_counters *c)
{
	struct ft_error err = { 0 };
	struct ft_sim_cfg cfg;
	struct ft_sim_op op = { .after = -1 };
	struct ft_engine *e = NULL;

	assert_int_equal(ft_topo_build(spec, t, &err), 0);
	for (uint32_t r = 0; r < 4; r++)
		ends[r] = ft_topo_gpu(*t, r / 2, r % 2);
	ft_schedule_init(s);
	assert_int_equal(ft_coll_schedule(a, s, &err), 0);
	ft_sim_cfg_init(&cfg);
	op.sched = s;
	op.rank_gpu = ends;
	assert_int_equal(ft_packet_engine.create(*t, &cfg, &e, &err), 0);
	ft_container_of(e, struct pk_engine, base)->a2a_eager = eager;
	assert_true(ft_packet_engine.submit(e, &op, &err) >= 0);
	if (ft_packet_engine.run(e, 0, &err) != 0)
		fail_msg("run: %s", err.msg);
	assert_int_equal(ft_packet_engine.counters(e, c, &err), 0);
	return e;
}

/*
 * NCCL's PXN in the packet engine (ncclTopoGetNetDev(), NVIDIA/nccl src/graph/search.cc
 * v2.27.7-1; kb ENV-PXN): four ranks of a direct all-to-all of 32 MiB on GPUs 0 and 1 of
 * nodes 0 and 1 of four DGX H100 on a rail fat-tree (tests/fixtures/spec/pxn-on-rail.yaml),
 * P = 8 MiB a pair at Simple (every byte on the wire). The 4 sends between the nodes to
 * another rail (GPU 0 to the other node's GPU 1 and back, GPU 1 to GPU 0) cross NVLink to
 * the job's GPU of the peer's rail in their own node, which sends them from its NIC:
 * into GPU 1 of node 0 over NVLink its NIC-mate's send to it and the relayed one, 2P; on
 * NVLink in all 8P for the 4 sends inside the nodes and 8P for the relays (two links a
 * send); none on the spine. With nodes.nccl.pxn_disable each leaves by its own NIC and
 * the 4 cross the spine: 8P on leaf-spine links (up and down a send), 8P on NVLink.
 * Either way the 8 sends between the nodes put 16P on the NICs' host links. Built whole
 * and lazily alike. (A job of one GPU a node has no proxy: NCCL's topology holds the
 * job's GPUs alone, test_pxn_job_gpus.)
 */
static void
test_pxn_links(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_ALLTOALL,
		                  .algo = FT_ALGO_DIRECT,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 4,
		                  .ranks_per_node = 2,
		                  .bytes = 32u << 20 };
	const double P = 8u << 20;

	(void)state;
	for (int off = 0; off < 2; off++) {
		for (int eager = 0; eager < 2; eager++) {
			struct ft_cluster_spec spec;
			struct ft_error err = { 0 };
			struct ft_topo *t = NULL;
			struct ft_schedule s;
			struct ft_sim_counters c;
			struct ft_engine *e = NULL;
			uint32_t ends[4];

			assert_int_equal(ft_spec_load_file("tests/fixtures/spec/pxn-on-rail.yaml",
			                                   &spec, &err),
			                 0);
			spec.node.nccl_pxn_disable = off;
			e = pxn_pair_run(&spec, &a, eager, &t, &s, ends, &c);
			print_message("# pxn %s, %s: NVLink into n0.gpu1 %.0f, all %.0f, "
			              "spine %.0f, host %.0f\n", off ? "off" : "on",
			              eager ? "whole" : "lazy",
			              bytes_into(t, &c, FT_L_NVLINK, ft_topo_gpu(t, 0, 1)),
			              bytes_into(t, &c, FT_L_NVLINK, UINT32_MAX),
			              bytes_tier(t, &c, 2), bytes_tier(t, &c, 1));
			assert_true(bytes_into(t, &c, FT_L_NVLINK, ft_topo_gpu(t, 0, 1)) ==
			            (off ? P : 2 * P));
			assert_true(bytes_into(t, &c, FT_L_NVLINK, ft_topo_gpu(t, 1, 0)) ==
			            (off ? P : 2 * P));
			assert_true(bytes_into(t, &c, FT_L_NVLINK, UINT32_MAX) ==
			            (off ? 8 * P : 16 * P));
			assert_true(bytes_tier(t, &c, 2) == (off ? 8 * P : 0));
			/* either way each send crosses its NICs' host links, there and back */
			assert_true(bytes_tier(t, &c, 1) == 16 * P);
			ft_packet_engine.destroy(e);
			ft_schedule_release(&s);
			ft_topo_free(t);
		}
	}
}

/*
 * A send PXN relays pays hwLat[NET] less the path it walks, the relay's (its NVLink leg to
 * the proxy, the proxy's NIC, the peer's rail), not its own NIC's route (pkt_nccl.c
 * p2p_alltoall() and lazy_send(), ft__pk_pair_path_s()). The four ranks of test_pxn_links
 * (GPUs 0 and 1 of nodes 0 and 1 of tests/fixtures/spec/pxn-on-rail.yaml) with 1 us
 * cables and 2 us NVLink hops, 4 KiB a pair: a cross-rail send's own route (its rail's
 * leaf, the spine, the peer's leaf: 4 cables) is 2 us longer in cables than the relay's
 * 2, while the relay crosses two NVLink hops (4 us) it does not; each path below
 * hwLat[NET] (14 us at Simple). The relayed sends are the op's last: it takes, less its
 * launch and step overheads, max(hwLat[NET], d) + d + t (test_a2a_net_floor_long_cables'
 * closed form), d the relayed flows' path, t the tail of a send's packets (under 0.2 us
 * here), built whole and lazily alike. Before, the floor took the own route's path, d'
 * (about 2 us shorter than d), and the op took hwLat[NET] - d' + 2d: some 2 us more.
 */
static void
test_pxn_floor_relay_path(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_ALLTOALL,
		                  .algo = FT_ALGO_DIRECT,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 4,
		                  .ranks_per_node = 2,
		                  .bytes = 4u * (4u << 10) };
	const double hw = ft_coll_hw_latency(FT_HW_NET, a.algo, a.proto);
	uint64_t d_ps = 0, own_ps = 0;

	(void)state;
	/* (whole first: its flow records all kept, a lazy run's reused) */
	for (int eager = 1; eager >= 0; eager--) {
		struct ft_cluster_spec spec;
		struct ft_error err = { 0 };
		struct ft_topo *t = NULL;
		struct ft_schedule s;
		struct ft_sim_counters c;
		struct ft_engine *e = NULL;
		uint32_t ends[4], nrelay = 0;
		double d, own, got, want;

		assert_int_equal(
		        ft_spec_load_file("tests/fixtures/spec/pxn-on-rail.yaml", &spec, &err), 0);
		spec.fabric.lat_cable_s = 1e-6;
		spec.node.lat_nvlink_s = 4e-6;
		e = pxn_pair_run(&spec, &a, eager, &t, &s, ends, &c);
		/* the relayed flows' path as routed, and the sender's own route to the same
		 * peer */
		for (size_t f = 0; f < pk(e)->flows.len && eager; f++) {
			const struct pk_flow *fl = ft_vec_at(&pk(e)->flows, f);
			uint64_t lat;

			if (!fl->pxn)
				continue;
			nrelay++;
			d_ps = FT_MAX(d_ps, fl->lat_ps);
			assert_int_equal(ft__pk_path_lat(ft_container_of(e, struct pk_engine, base),
			                                 fl->src, fl->dst, UINT32_MAX, 0, &lat),
			                 0);
			own_ps = FT_MAX(own_ps, lat);
		}
		assert_true(nrelay > 0 || !eager);
		d = (double)d_ps / PK_PS_PER_S;
		own = (double)own_ps / PK_PS_PER_S;
		got = c.ops[0].t_end_s - c.ops[0].t_start_s - s.base_lat_s - s.step_lat_s;
		want = FT_MAX(hw, d) + d;
		print_message("# pxn relay, %s: %.3f us, relay path %.3f, own route %.3f, "
		              "closed form %.3f + tail\n",
		              eager ? "whole" : "lazy", got * 1e6, d * 1e6, own * 1e6, want * 1e6);
		/* the case's premise: both paths under hwLat[NET], apart by more than the
		 * tail */
		assert_true(d < hw && own < hw && fabs(d - own) > 1e-6);
		if (!(got >= want && got <= want + 0.2e-6))
			fail_msg("op %.9g s, closed form %.9g s + tail", got, want);
		ft_packet_engine.destroy(e);
		ft_schedule_release(&s);
		ft_topo_free(t);
	}
}

/* One run of a direct all-to-all of @bytes over the 16 GPUs of the two nodes of @t under
 * @routing (with flowlets of @flowlet bytes, 0 none): its bytes a link into @lb (made,
 * ft_free), its makespan (s) returned. */
static double pxn_ar_run_mf(struct ft_topo *t, uint64_t bytes, enum ft_routing routing,
                            uint64_t flowlet, double **lb, uint32_t **mf);

static double
pxn_ar_run(struct ft_topo *t, uint64_t bytes, enum ft_routing routing, uint64_t flowlet,
           double **lb)
{
	return pxn_ar_run_mf(t, bytes, routing, flowlet, lb, NULL);
}

/* pxn_ar_run(), with the most flows at once a link into @mf (made, ft_free) unless NULL. */
static double
pxn_ar_run_mf(struct ft_topo *t, uint64_t bytes, enum ft_routing routing, uint64_t flowlet,
              double **lb, uint32_t **mf)
{
	struct ft_sim_counters c;
	struct ft_coll_args a = { .op = FT_OP_ALLTOALL,
		                  .algo = FT_ALGO_DIRECT,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 16,
		                  .ranks_per_node = 8,
		                  .bytes = bytes };
	struct ft_error err = { 0 };
	struct ft_schedule s;
	struct ft_sim_cfg cfg;
	struct ft_engine *e = NULL;
	struct ft_sim_op op = { .after = -1 };
	uint32_t ends[16];
	double ms;

	for (uint32_t r = 0; r < 16; r++)
		ends[r] = ft_topo_gpu(t, r / 8, r % 8);
	ft_schedule_init(&s);
	assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
	ft_sim_cfg_init(&cfg);
	cfg.routing = routing;
	cfg.flowlet_bytes = flowlet;
	op.sched = &s;
	op.rank_gpu = ends;
	assert_int_equal(ft_packet_engine.create(t, &cfg, &e, &err), 0);
	assert_true(ft_packet_engine.submit(e, &op, &err) >= 0);
	if (ft_packet_engine.run(e, 0, &err) != 0)
		fail_msg("run: %s", err.msg);
	assert_int_equal(ft_packet_engine.counters(e, &c, &err), 0);
	ms = c.makespan_s;
	*lb = ft_calloc(c.nlinks, sizeof(double)); /* (the engine's own until destroyed) */
	assert_non_null(*lb);
	memcpy(*lb, c.link_bytes, c.nlinks * sizeof(double));
	if (mf) {
		*mf = ft_calloc(c.nlinks, sizeof(uint32_t));
		assert_non_null(*mf);
		memcpy(*mf, c.link_max_flows, c.nlinks * sizeof(uint32_t));
	}
	ft_packet_engine.destroy(e);
	ft_schedule_release(&s);
	return ms;
}

/*
 * Adaptive routing is the fabric switches' (kb IB-AR): it never moves an ordinary send to
 * another NIC of its host, whose path GPU, PCIe switch, NIC is the host's. Two DGX H100
 * of tests/fixtures/spec/h100-4node-roce100-radix16.yaml with NCCL's default PXN (two
 * GPUs and two NICs a PCIe switch), a direct all-to-all of 8 MiB over the 16 GPUs,
 * P = 512 KiB a pair: NIC g of node 0 sends the 8 sends of node 0's GPUs to GPU g of node
 * 1 (one its own GPU's, 7 relayed), so each NIC's port onto the fabric carries exactly 8P
 * of payload under ECMP, under per-packet adaptive routing and under 64 KiB flowlets
 * alike, and every PCIe link what it carries under ECMP (the host legs do not move).
 * Before, the flowlets of a GPU's own-rail send could leave by the other NIC of its PCIe
 * switch.
 */
static void
test_adaptive_host_legs_fixed(void **state)
{
	const double P = 512u << 10;
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };
	struct ft_topo *t = NULL;
	double *b[3] = { NULL, NULL, NULL };
	uint32_t nnic = 0, l;

	(void)state;
	assert_int_equal(ft_spec_load_file("tests/fixtures/spec/h100-4node-roce100-radix16.yaml",
	                                   &spec, &err),
	                 0);
	spec.node.nccl_pxn_disable = false;
	spec.nnodes = 2;
	assert_int_equal(ft_topo_build(&spec, &t, &err), 0);
	pxn_ar_run(t, 8u << 20, FT_ROUTING_ECMP, 0, &b[0]);
	pxn_ar_run(t, 8u << 20, FT_ROUTING_ADAPTIVE, 0, &b[1]);
	pxn_ar_run(t, 8u << 20, FT_ROUTING_ADAPTIVE, 64u << 10, &b[2]);
	for (l = 0; l < ft_topo_nlinks(t); l++) {
		const struct ft_link *lk = ft_topo_link(t, l);
		bool nic_up = lk->kind == FT_L_HOST && ft_topo_vertex(t, lk->src)->kind == FT_V_NIC;

		for (int k = 0; k < 3; k++) {
			if (nic_up && ft_topo_vertex(t, lk->src)->node == 0 && b[k][l] != 8 * P)
				fail_msg("run %d: NIC port %u carries %.0f bytes, not 8P", k, l,
				         b[k][l]);
			if ((nic_up || lk->kind == FT_L_PCIE) && b[k][l] != b[0][l])
				fail_msg("run %d: host link %u carries %.0f bytes, ECMP %.0f", k, l,
				         b[k][l], b[0][l]);
		}
		nnic += nic_up && ft_topo_vertex(t, lk->src)->node == 0;
	}
	assert_int_equal(nnic, 8);
	for (int k = 0; k < 3; k++)
		ft_free(b[k]);
	ft_topo_free(t);
}

/*
 * The link table's "max flows" counts, under adaptive routing, the flows that cross a
 * link the sender's host fixes (pkt_flow.c host_fixed(): GPU, PCIe switch, a PXN send's
 * NVLink leg, the NIC's port onto the fabric), which every packet crosses whatever the
 * switches choose; before, it counted kept paths alone, so those links read 0. The run
 * of test_adaptive_host_legs_fixed (two DGX H100, PXN, 8 MiB direct all-to-all over 16
 * GPUs): those legs are the same under ECMP, whose kept paths count them, so under
 * per-packet adaptive routing and under 64 KiB flowlets each such link counts what it
 * counts under ECMP (each send two flows here): 16 on each GPU's PCIe link, PCIe switch to
 * NIC and NIC port (the 8 sends it carries),
 * 14 on each GPU's NVLink up and down (its 7 sends off its rail, relayed, and the 7
 * relayed through it), the same on every node.
 */
static void
test_adaptive_host_max_flows(void **state)
{
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };
	struct ft_topo *t = NULL;
	double *b[3] = { NULL, NULL, NULL };
	uint32_t *m[3] = { NULL, NULL, NULL }, l, nfixed = 0;

	(void)state;
	assert_int_equal(ft_spec_load_file("tests/fixtures/spec/h100-4node-roce100-radix16.yaml",
	                                   &spec, &err),
	                 0);
	spec.node.nccl_pxn_disable = false;
	spec.nnodes = 2;
	assert_int_equal(ft_topo_build(&spec, &t, &err), 0);
	pxn_ar_run_mf(t, 8u << 20, FT_ROUTING_ECMP, 0, &b[0], &m[0]);
	pxn_ar_run_mf(t, 8u << 20, FT_ROUTING_ADAPTIVE, 0, &b[1], &m[1]);
	pxn_ar_run_mf(t, 8u << 20, FT_ROUTING_ADAPTIVE, 64u << 10, &b[2], &m[2]);
	for (l = 0; l < ft_topo_nlinks(t); l++) {
		const struct ft_link *lk = ft_topo_link(t, l);
		int sk = ft_topo_vertex(t, lk->src)->kind, dk = ft_topo_vertex(t, lk->dst)->kind;
		/* the sender's fixed legs: out of a GPU, into a NIC, out of a NIC onto the
		 * fabric, and NVLink (a PXN send's leg to its proxy) */
		bool pcie = lk->kind == FT_L_PCIE && (sk == FT_V_GPU || dk == FT_V_NIC);
		bool nic_up = lk->kind == FT_L_HOST && sk == FT_V_NIC;
		uint32_t want = lk->kind == FT_L_NVLINK ? 14 : 16;

		if (!pcie && !nic_up && lk->kind != FT_L_NVLINK)
			continue;
		nfixed++;
		for (int k = 0; k < 3; k++)
			if (m[k][l] != want)
				fail_msg("run %d: link %u (kind %d) counts %u flows at most, "
				         "not %u (ECMP %u)",
				         k, l, (int)lk->kind, m[k][l], want, m[0][l]);
	}
	/* per node: 8 GPUs' PCIe links, 8 PCIe-to-NIC, 8 NIC ports, 16 NVLinks */
	assert_int_equal(nfixed, 2 * 40);
	for (int k = 0; k < 3; k++) {
		ft_free(b[k]);
		ft_free(m[k]);
	}
	ft_topo_free(t);
}

/*
 * Adaptive routing moves the network leg of a PXN send (kb IB-AR: the switch picks the
 * output port per packet, whatever NIC the packet came from) and keeps its NVLink leg:
 * two DGX H100 of tests/fixtures/spec/h100-4node-roce100-radix16.yaml with NCCL's
 * default PXN (a 2-tier fat-tree of radix-16 switches, not rail-optimised: each node's
 * 8 NICs under one leaf, 8 uplinks a leaf), a direct all-to-all of 8 MiB over the 16
 * GPUs, P = 512 KiB a pair. Each GPU of node 0 sends 8 sends to node 1, 7 of them
 * through the proxy on the peer's rail: leaf 0's uplinks carry 64P, 8P each when even.
 * Per-QP ECMP hashes whole sends, so its uplinks carry multiples of P, the most loaded
 * at least 10P (two PXN sends or more beyond the mean on one uplink: 5, 8, 11, 12, 10,
 * 9, 4, 5 P here). Adaptive routing spreads them packet by packet: every uplink exactly
 * 8P (the least-queued port, ties broken, takes the packets in turn); every NVLink,
 * PCIe and NIC-to-leaf link carries exactly the bytes it carries under ECMP (the NVLink
 * leg and the proxy's NIC stay fixed); the run takes at least the NICs' time, 8P at
 * 12.5 GB/s (335.5 us), and at most 15% more (headers, NCCL's window and each send's
 * start: 370.1 us; ECMP 804.6 us). With 64 KiB flowlets the uplinks carry 64P,
 * each within 5 flowlets of 8P (7.625 to 8.625 P; 7.875 to 8.125 when the relayed sends
 * started as if they left by their own NICs), every NVLink ECMP's bytes (there a
 * PCIe switch may move an ordinary flow's flowlet to the other NIC under it), and the run
 * between the NICs' time and 25% more (409.8 us; 405.2 before). With a
 * PXN path kept whole from its start, adaptive routing would move nothing: the uplinks
 * would be ECMP's.
 */
static void
test_pxn_adaptive_spreads(void **state)
{
	const double P = 512u << 10;
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };
	struct ft_topo *t = NULL;
	double *be = NULL, *ba = NULL, *bf = NULL, sum_f = 0, max_f = 0, tf;
	uint32_t nic, leaf = UINT32_MAX, nl = UINT32_MAX, first, n, l;
	double te, ta, sum_e = 0, sum_a = 0, max_e = 0, nic_s;

	(void)state;
	assert_int_equal(ft_spec_load_file("tests/fixtures/spec/h100-4node-roce100-radix16.yaml",
	                                   &spec, &err),
	                 0);
	spec.node.nccl_pxn_disable = false;
	spec.nnodes = 2;
	assert_int_equal(ft_topo_build(&spec, &t, &err), 0);
	te = pxn_ar_run(t, 8u << 20, FT_ROUTING_ECMP, 0, &be);
	ta = pxn_ar_run(t, 8u << 20, FT_ROUTING_ADAPTIVE, 0, &ba);
	tf = pxn_ar_run(t, 8u << 20, FT_ROUTING_ADAPTIVE, 64u << 10, &bf);
	nic = ft_topo_nic(t, 0, 0);
	ft_topo_out_links(t, nic, &first, &n);
	for (l = first; l < first + n; l++)
		if (ft_topo_link(t, l)->kind == FT_L_HOST) {
			leaf = ft_topo_link(t, l)->dst;
			nl = l;
		}
	assert_true(leaf != UINT32_MAX);
	for (uint32_t g = 1; g < 8; g++) { /* (every NIC of node 0 under that leaf) */
		ft_topo_out_links(t, ft_topo_nic(t, 0, g), &first, &n);
		for (l = first; l < first + n; l++)
			if (ft_topo_link(t, l)->kind == FT_L_HOST)
				assert_int_equal(ft_topo_link(t, l)->dst, leaf);
	}
	ft_topo_out_links(t, leaf, &first, &n);
	for (l = first; l < first + n; l++) {
		if (!ft_topo_link(t, l)->up)
			continue;
		print_message("# uplink %u: ecmp %.0f P, adaptive 8P %+.0f bytes, "
		              "64 KiB flowlets %.3f P\n", l, be[l] / P, ba[l] - 8 * P, bf[l] / P);
		assert_true(fmod(be[l], P) == 0);
		assert_true(ba[l] == 8 * P);
		sum_e += be[l];
		sum_a += ba[l];
		max_e = FT_MAX(max_e, be[l]);
		sum_f += bf[l];
		max_f = FT_MAX(max_f, bf[l]);
	}
	assert_true(sum_e == 64 * P);
	assert_true(sum_a == 64 * P);
	assert_true(max_e >= 10 * P);
	assert_true(sum_f == 64 * P);
	/* within 5 flowlets of even (each of the 8 senders' own-rail send keeps its NIC; the
	 * relayed sends start at hwLat[NET] less their relay's path, which the NVLink leg
	 * makes longer than the own NIC's: 8.625 P at most, 8.125 P when they started as
	 * the own-rail sends do) */
	assert_true(max_f <= 8 * P + 5 * (64u << 10));
	for (l = 0; l < ft_topo_nlinks(t); l++) {
		const struct ft_link *lk = ft_topo_link(t, l);

		if (lk->kind == FT_L_NVLINK || lk->kind == FT_L_PCIE ||
		    (lk->kind == FT_L_HOST && ft_topo_vertex(t, lk->src)->kind == FT_V_NIC))
			assert_true(ba[l] == be[l]);
		if (lk->kind == FT_L_NVLINK)
			assert_true(bf[l] == be[l]);
	}
	nic_s = 8 * P / ft_topo_link(t, nl)->cap_Bps;
	print_message("# pxn under ecmp %.1f us, adaptive %.1f us (flowlets %.1f), NIC bound "
	              "%.1f us\n", te * 1e6, ta * 1e6, tf * 1e6, nic_s * 1e6);
	assert_true(ta >= nic_s && ta <= 1.15 * nic_s);
	assert_true(te > ta);
	/* flowlets: the NICs' time at least; a port keeps a flowlet until its gap, so the
	 * queues even out later than packet by packet (405.2 us), yet far under ECMP's */
	assert_true(tf >= nic_s && tf <= 1.25 * nic_s && tf >= ta);
	ft_free(be);
	ft_free(ba);
	ft_free(bf);
	ft_topo_free(t);
}

/* @engine's time of a direct all-to-all of @bytes over every GPU of @spec. */
static double
a2a_time(const char *spec, uint64_t bytes, const char *engine, char *bott, size_t len)
{
	struct ft_sim_sweep_args sw = { .spec = spec,
		                        .op = FT_OP_ALLTOALL,
		                        .algo = FT_ALGO_DIRECT,
		                        .proto = FT_PROTO_COUNT,
		                        .min_bytes = bytes,
		                        .max_bytes = bytes };
	struct ft_scenario *sc = NULL;
	struct ft_sim_overrides ov;
	struct ft_sim_report rep;
	struct ft_error err = { 0 };
	double t;

	assert_int_equal(ft_scenario_from_op(&sw, &sc, &err), 0);
	ft_sim_overrides_init(&ov);
	ov.engine = engine;
	ft_sim_report_init(&rep);
	if (ft_scenario_run(sc, &ov, NULL, &rep, &err) < 0)
		fail_msg("%s on %s: %s", engine, spec, err.msg);
	assert_int_equal(ft_run_nrows(&rep.run), 1);
	t = ft_run_row(&rep.run, 0)->time_us;
	if (bott)
		snprintf(bott, len, "%s", ft_run_row(&rep.run, 0)->bottleneck);
	ft_sim_report_release(&rep);
	ft_scenario_free(sc);
	return t;
}

/*
 * The engines agree on PXN: the direct all-to-all over four DGX H100 on a rail fat-tree
 * with 500 us cables, 16 MiB and 1 MiB, the packet engine within 10 % of the flow engine
 * with PXN (NCCL's window over the rail's round trip: the flow engine 3,028 and 2,028 us;
 * the packet engine took twice that, over the spine, before it sent through the proxy)
 * and without (pxn-off-rail.yaml: over the spine, twice the round trip). At 16 MiB the
 * window holds the last message of both engines' slowest send: both name it (p2p:window;
 * the packet engine named a port before: nvlink with PXN, nic without).
 */
static void
test_pxn_agrees_with_flow(void **state)
{
	static const char *const specs[] = { "tests/fixtures/spec/pxn-on-rail.yaml",
		                             "tests/fixtures/spec/pxn-off-rail.yaml" };
	static const uint64_t sizes[] = { 16u << 20, 1u << 20 };

	(void)state;
	for (size_t k = 0; k < FT_ARRAY_SIZE(specs); k++) {
		for (size_t i = 0; i < FT_ARRAY_SIZE(sizes); i++) {
			char bf[64], bp[64];
			double tf = a2a_time(specs[k], sizes[i], "flow", bf, sizeof(bf));
			double tp = a2a_time(specs[k], sizes[i], "packet", bp, sizeof(bp));

			print_message("# %s %llu MiB: flow %.2f us (%s), packet %.2f us (%s), "
			              "%+.2f %%\n",
			              specs[k], (unsigned long long)(sizes[i] >> 20), tf, bf, tp,
			              bp, (tp / tf - 1) * 100);
			assert_true(fabs(tp / tf - 1) <= 0.10);
			/* at 16 MiB NCCL's window holds both engines' last sends */
			if (sizes[i] == 16u << 20) {
				assert_string_equal(bf, "p2p:window");
				assert_string_equal(bp, "p2p:window");
			}
		}
	}
}

/* Bytes on NIC vertex @nic's links, both ways, and on GPU vertex @g's (UINT32_MAX: none). */
static double
nic_gpu_bytes(const struct ft_topo *t, const struct ft_sim_counters *c, uint32_t nic, uint32_t g)
{
	double b = 0;

	for (uint32_t l = 0; l < c->nlinks; l++) {
		const struct ft_link *lk = ft_topo_link(t, l);

		if (lk->src == nic || lk->dst == nic || lk->src == g || lk->dst == g)
			b += c->link_bytes[l];
	}
	return b;
}

/* A direct all-to-all of @bytes at Simple over @nranks ranks on @rank_gpu of @t, on
 * @engine (the packet engine built lazily unless @eager): into @nic[n * nnics + r] the
 * bytes on NIC r of node n (nic_gpu_bytes()), and into @gpu the same for each GPU and its
 * own NIC, (n * ngpus + g). */
static void
a2a_nic_bytes(const struct ft_topo *t, const struct ft_engine_ops *engine, bool eager,
              uint32_t *rank_gpu, uint32_t nranks, uint32_t per_node, uint64_t bytes,
              double *nic, double *gpu)
{
	const struct ft_cluster_spec *spec = ft_topo_spec(t);
	struct ft_coll_args a = { .op = FT_OP_ALLTOALL,
		                  .algo = FT_ALGO_DIRECT,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = nranks,
		                  .ranks_per_node = per_node,
		                  .bytes = bytes };
	struct ft_error err = { 0 };
	struct ft_schedule s;
	struct ft_sim_cfg cfg;
	struct ft_sim_counters c;
	struct ft_engine *e = NULL;
	struct ft_sim_op op = { .rank_gpu = rank_gpu, .after = -1 };

	ft_schedule_init(&s);
	assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
	ft_sim_cfg_init(&cfg);
	cfg.routing = spec->fabric.routing;
	op.sched = &s;
	assert_int_equal(engine->create(t, &cfg, &e, &err), 0);
	if (engine == &ft_packet_engine)
		ft_container_of(e, struct pk_engine, base)->a2a_eager = eager;
	assert_true(engine->submit(e, &op, &err) >= 0);
	if (engine->run(e, 0, &err) != 0)
		fail_msg("run: %s", err.msg);
	assert_int_equal(engine->counters(e, &c, &err), 0);
	for (uint32_t n = 0; n < spec->nnodes; n++) {
		for (uint32_t r = 0; r < spec->node.nnics; r++)
			nic[n * spec->node.nnics + r] =
			        nic_gpu_bytes(t, &c, ft_topo_nic(t, n, r), UINT32_MAX);
		for (uint32_t g = 0; g < spec->node.ngpus; g++)
			gpu[n * spec->node.ngpus + g] =
			        nic_gpu_bytes(t, &c, ft_topo_nic(t, n, spec->node.gpu_nic[g]),
			                      ft_topo_gpu(t, n, g));
	}
	engine->destroy(e);
	ft_schedule_release(&s);
}

/*
 * The packet engine's PXN proxy is one of the job's GPUs (ft__sim_pxn_proxy_in(), NCCL's
 * choice on the communicator's topology: NVIDIA/nccl v2.27.7-1 src/graph/topo.cc
 * ncclTopoGetSystem() holds the comm's GPUs alone; search.cc ncclTopoGetNetDev(); kb
 * ENV-PXN), as the flow engine's. Two cases, 64 KiB a pair at Simple, built whole and
 * lazily:
 *  - tests/fixtures/sim/pxn-job-split.yaml: 8 ranks on GPUs 0-3 of node 0 and 4-7 of
 *    node 1 of two DGX H100. No sender's node has a rank on its peer's device index, so
 *    no send has a proxy: GPU g's 4 sends to the other node leave by its own NIC and its
 *    4 receives come in on it, 8 x 64 KiB on NIC g's links (up and down each way: 2 x 8
 *    x 64 KiB in all); the 8 idle GPUs and their NICs carry exactly 0 bytes (the whole
 *    node's view relayed node 0's sends through its GPUs 4-7 and their NICs);
 *  - two DGX A100 with 4 NICs, GPUs 2r and 2r + 1 on NIC r, the job on GPUs 1-7 of
 *    both nodes (14 ranks): NIC 0's first GPU of the job is GPU 1, which sends its own
 *    and takes no relay; idle GPU 0 carries 0 bytes (the whole node's view relayed GPU
 *    1's sends to a peer's GPU 1 through it). A send to the other node's GPU g leaves
 *    by NIC g / 2 and comes in on it, each byte over the NIC's PCIe and host links:
 *    2 x (7 + 7) x 64 KiB on NIC 0 (one GPU of the job), 2 x (14 + 14) on the others.
 * Every NIC's bytes equal the flow engine's, exactly.
 */
static void
test_pxn_job_gpus(void **state)
{
	const double P = 64u << 10;
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };
	struct ft_topo *t = NULL;
	uint32_t rank_gpu[14];
	double nic_f[16], nic_p[16], gpu_f[16], gpu_p[16];

	(void)state;
	/* pxn-job-split.yaml's job */
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &spec, &err), 0);
	assert_int_equal(ft_topo_build(&spec, &t, &err), 0);
	for (uint32_t r = 0; r < 8; r++)
		rank_gpu[r] = ft_topo_gpu(t, r / 4, r % 4 + (r / 4) * 4);
	for (int eager = 0; eager < 2; eager++) {
		a2a_nic_bytes(t, &ft_flow_engine, false, rank_gpu, 8, 4, 8 * (uint64_t)P, nic_f,
		              gpu_f);
		a2a_nic_bytes(t, &ft_packet_engine, eager, rank_gpu, 8, 4, 8 * (uint64_t)P, nic_p,
		              gpu_p);
		for (uint32_t n = 0; n < 2; n++) {
			for (uint32_t g = 0; g < 8; g++) {
				bool busy = n == 0 ? g < 4 : g >= 4;

				assert_true(nic_p[n * 8 + g] == nic_f[n * 8 + g]);
				assert_true(nic_p[n * 8 + g] == (busy ? 2 * 8 * P : 0));
				if (!busy)
					assert_true(gpu_p[n * 8 + g] == 0);
			}
		}
	}
	ft_topo_free(t);
	/* GPUs sharing a NIC: the NIC's first GPU of the job proxies */
	assert_int_equal(ft_spec_resolve("dgx-a100:2", &spec, &err), 0);
	spec.node.nnics = 4;
	for (uint32_t g = 0; g < 8; g++)
		spec.node.gpu_nic[g] = g / 2;
	for (uint32_t k = 0; k < 4; k++) /* NIC k on its GPUs' switch: PXN's relay admitted */
		spec.node.nic_pcie_switch[k] = spec.node.gpu_pcie_switch[2 * k];
	assert_int_equal(ft_topo_build(&spec, &t, &err), 0);
	for (uint32_t r = 0; r < 14; r++)
		rank_gpu[r] = ft_topo_gpu(t, r / 7, r % 7 + 1);
	for (int eager = 0; eager < 2; eager++) {
		a2a_nic_bytes(t, &ft_flow_engine, false, rank_gpu, 14, 7, 14 * (uint64_t)P, nic_f,
		              gpu_f);
		a2a_nic_bytes(t, &ft_packet_engine, eager, rank_gpu, 14, 7, 14 * (uint64_t)P,
		              nic_p, gpu_p);
		for (uint32_t i = 0; i < 8; i++) {
			print_message("# NIC %u of node %u: flow %.0f, packet %.0f\n", i % 4, i / 4,
			              nic_f[i], nic_p[i]);
			assert_true(nic_p[i] == nic_f[i]);
			/* NIC r's sends and receives, each over its PCIe and host links */
			assert_true(nic_p[i] == (i % 4 == 0 ? 2 * (7 + 7) * P : 2 * (14 + 14) * P));
		}
		assert_true(gpu_p[0] - nic_p[0] == 0 && gpu_p[8] - nic_p[4] == 0);
	}
	ft_topo_free(t);
}

/*
 * The release in the packet engine (a scenario's nccl.version): a send/recv of 32 MiB
 * between GPU 0 of two DGX H100 (one rank a node, one 400G NIC at the GPU's 48 GB/s Gen5
 * path) over 100 us cables, where NCCL's window binds. Each send runs on the channels its
 * release gives a network peer (ft_model_p2p_chunking_conn(); kb [ENV-NCH_NET_PEER]): 2 at
 * 2.18, NCCL_NCHANNELS_PER_NET_PEER's default then (NVIDIA/nccl v2.18.6-1 src/graph/paths.cc:
 * ncclTopoGetNchannels() gives a peer off the node that parameter, default 2); 4 at 2.30
 * (v2.29.2-1 to v2.30.7-1 ncclTopoGetNchannels(): at least one a NIC and one per
 * NCCL_P2P_PER_CHANNEL_NET_BW, 14 GB/s, of the GPU's NICs, ceil(48 / 14) = 4; then
 * ncclTopoComputeP2pChannels() keeps a power of two while per peer x ceil(nRanks / 8)
 * <= the p2p channels, 4 x 1 <= 32). The 32 p2p channels: NCCL's count rounded up to a
 * power of two (pow2Up() there) from the model's 18 on NVSwitch nodes joined by NICs, one
 * collective channel per NVLink of an H100 (ft_model_p2p_nchannels_raw_of(),
 * model/channels.c, which says where that departs from NCCL's run-time count). Each send
 * keeps NCCL_STEPS 8 chunks of 128 KiB in flight a round trip R.
 * So a send's n = 32 MiB / (c x 128 KiB) chunks a channel (128 at 2.18, 64 at 2.30) leave
 * one every P = R / 8: the window's n P, then one path latency R / 2 for the last chunk,
 * and the op's fixed costs (its base latency, the last chunks' serialisation: 25 to 38 us
 * here), so the op takes n P + R / 2 and at most 50 us more at both releases (the model:
 * 6,627 and 3,425 us). What the release changes is n: 2.18's run takes 128 - 64 = 64
 * chunk periods more than 2.30's, 64 P, within 1 % (3,207 us at R = 401 us, 4 x 100 us of
 * cable and the switch there and back). R is the round trip of the route both sends take
 * (ft__sim_p2p_send_window() of one byte a round trip: 1 / R), the same at both releases.
 */
static double
p2p_release_time(const char *version, double *rtt, uint32_t *channels)
{
	static const char fmt[] =
	        "cluster:\n"
	        "  nodes: {preset: dgx-h100, count: 2}\n"
	        "  fabric: {kind: fat-tree, link: ndr, tiers: 2, radix: 64, cable_latency: 100us}\n"
	        "engine: packet\n"
	        "nccl: {version: \"%s\"}\n"
	        "jobs:\n"
	        "  - {name: p2p, ranks: 2, gpus_per_node: 1, ops: [{op: sendrecv, size: 32MiB}]}\n";
	struct ft_model_p2p_chunking unit = { .channels = 1, .slots = 1, .chunk_bytes = 1 }, ch;
	struct ft_model_p2p_comm c;
	struct ft_scenario *sc = NULL;
	struct ft_topo *t = NULL;
	struct ft_sim_report rep;
	struct ft_error err = { 0 };
	char text[512];
	double us;

	snprintf(text, sizeof(text), fmt, version);
	assert_int_equal(ft_scenario_load_buffer(text, strlen(text), "rel.yaml", &sc, &err), 0);
	assert_int_equal(ft_topo_build(&sc->spec, &t, &err), 0);
	*rtt = 1 /
	       ft__sim_p2p_send_window(t, &unit, ft_topo_gpu(t, 0, 0), ft_topo_gpu(t, 1, 0), NULL);
	/* the p2p channels, unrounded and NCCL's, and the channels a network peer's send takes */
	assert_int_equal(ft__sim_p2p_comm(t, 2, true, 50e9, &c), 0);
	assert_int_equal(c.p2p_nchannels_raw, 18);
	assert_int_equal(c.p2p_nchannels, 32);
	ft_model_p2p_chunking_conn(&c, 32u << 20, true, &ch);
	*channels = ch.channels;
	ft_topo_free(t);
	ft_sim_report_init(&rep);
	assert_int_equal(ft_scenario_run(sc, NULL, NULL, &rep, &err), 0);
	assert_int_equal(rep.nccl_version, sc->spec.nccl_version);
	us = ft_run_row(&rep.run, 0)->time_us;
	ft_sim_report_release(&rep);
	ft_scenario_free(sc);
	return us * 1e-6;
}

static void
test_p2p_window_by_release(void **state)
{
	const double chunk = 128 << 10, bytes = 32 << 20;
	uint32_t c18, c30;
	double rtt18, rtt30, t18 = p2p_release_time("2.18", &rtt18, &c18);
	double t30 = p2p_release_time("2.30", &rtt30, &c30);
	double P = rtt18 / 8, n18 = bytes / (2 * chunk), n30 = bytes / (4 * chunk);
	double want18 = n18 * P + rtt18 / 2, want30 = n30 * P + rtt18 / 2;

	(void)state;
	assert_int_equal(c18, 2);
	assert_int_equal(c30, 4);
	assert_true(rtt18 == rtt30 && rtt18 > 400e-6);
	print_message("# send/recv 32 MiB, R %.2f us: 2.18 %.2f us (window %.2f), 2.30 %.2f us "
	              "(%.2f); 2.18 - 2.30 %.2f us, 64 P %.2f us\n",
	              rtt18 * 1e6, t18 * 1e6, want18 * 1e6, t30 * 1e6, want30 * 1e6,
	              (t18 - t30) * 1e6, (n18 - n30) * P * 1e6);
	assert_true(t18 >= want18 && t18 <= want18 + 50e-6);
	assert_true(t30 >= want30 && t30 <= want30 + 50e-6);
	assert_true(fabs((t18 - t30) / ((n18 - n30) * P) - 1) <= 0.01);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_pipelined),
		cmocka_unit_test(test_ring_paced),
		cmocka_unit_test(test_crit_path_slots),
		cmocka_unit_test(test_crit_path_ring),
		cmocka_unit_test(test_chunk_sizes),
		cmocka_unit_test(test_ring_ll_buffsize),
		cmocka_unit_test(test_ring_unchunked),
		cmocka_unit_test(test_ring_qps),
		cmocka_unit_test(test_qp_next),
		cmocka_unit_test(test_qp_cc_after_resend),
		cmocka_unit_test(test_p2p_sizes),
		cmocka_unit_test(test_p2p_pipelined),
		cmocka_unit_test(test_p2p_windowed),
		cmocka_unit_test(test_p2p_staggered),
		cmocka_unit_test(test_p2p_window_by_release),
		cmocka_unit_test(test_p2p_alltoall),
		cmocka_unit_test(test_a2a_net_floor_long_cables),
		cmocka_unit_test(test_a2a_window_views_own_buffer),
		cmocka_unit_test(test_p2p_alltoall_window),
		cmocka_unit_test(test_lazy_same),
		cmocka_unit_test(test_alltoall_across_trays),
		cmocka_unit_test(test_lazy_prio),
		cmocka_unit_test(test_lazy_same_nvlink),
		cmocka_unit_test(test_a2a_notice_path),
		cmocka_unit_test(test_lazy_phases_share),
		cmocka_unit_test(test_lazy_lossy),
		cmocka_unit_test(test_lab_moe),
		cmocka_unit_test(test_pxn_links),
		cmocka_unit_test(test_pxn_floor_relay_path),
		cmocka_unit_test(test_pxn_agrees_with_flow),
		cmocka_unit_test(test_pxn_adaptive_spreads),
		cmocka_unit_test(test_adaptive_host_legs_fixed),
		cmocka_unit_test(test_adaptive_host_max_flows),
		cmocka_unit_test(test_pxn_job_gpus),
		cmocka_unit_test(test_nic_msg_rate),
		cmocka_unit_test(test_nic_msg_rate_errors),
		cmocka_unit_test(test_a2a_window_submit_oom),
	};

	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

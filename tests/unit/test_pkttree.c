/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_pkttree.c - NCCL's tree all-reduce and chain broadcast /
 * reduce in the packet engine (sim/pkt_tree.c) against closed forms: a chain
 * over k nodes ends at (k - 2 + n) message times plus k - 1 path latencies
 * for n messages; a 2-node tree all-reduce keeps both directions of the link
 * busy and ends at the bytes' serialisation plus a path latency or two; a
 * rank sends chunk c down only once it has come up; the chunk sizes are
 * NCCL's (calcCollChunking); NCCL's p2p channel count from its channel count.
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

#include "sim/pkt_int.h"

#include "pk_run.h"

static const struct pk_flow *
flow(const struct pk_run *r, uint32_t i)
{
	return ft_vec_at(&pk(r->e)->flows, i);
}

static double
op_time(const struct pk_run *r)
{
	double fixed = r->s.base_lat_s + ft_sched_phase_at(&r->s, 0)->steps * r->s.step_lat_s;

	return r->c.ops[0].t_end_s - r->c.ops[0].t_start_s - fixed;
}

/*
 * A chain over k nodes of n messages of 512 KiB (one Simple buffer slot, NCCL's chunk
 * outside rings): message m reaches the end of hop h at (m + h) message times plus h path
 * latencies (each hop forwards a message once it has all arrived, back to back while the
 * next has already come), so the last one at (n + k - 2) t_msg + (k - 1) d; within two
 * packet times per hop. Broadcast runs down from the root, reduce up to it: the same.
 */
static void
test_chain(void **state)
{
	(void)state;
	for (int reduce = 0; reduce < 2; reduce++) {
		struct ft_coll_args a = { .op = reduce ? FT_OP_REDUCE : FT_OP_BROADCAST,
			                  .algo = FT_ALGO_RING,
			                  .proto = FT_PROTO_SIMPLE,
			                  .nranks = 4,
			                  .ranks_per_node = 1,
			                  .bytes = 4u << 20 };
		uint32_t k = 4, n = 8;
		struct pk_run r;
		double t_pkt, d, t_msg, want, got;

		pk_run_op(&r, &a, k, NULL, 1, false);
		pk_hop_times(&r, &t_pkt, &d);
		assert_int_equal(pk(r.e)->flows.len, (k - 1) * n);
		for (uint32_t i = 0; i < pk(r.e)->flows.len; i++)
			assert_int_equal(flow(&r, i)->bytes, 512u << 10);
		t_msg = 128 * t_pkt;
		want = (n + k - 2) * t_msg + (k - 1) * d;
		got = op_time(&r);
		if (!(fabs(got - want) <= 2 * (k - 1) * t_pkt))
			fail_msg("%s: %.9g s, closed form %.9g s (packet %.3g s)",
			         reduce ? "reduce" : "broadcast", got, want, t_pkt);
		/* whole flows would end after one hop's serialisation of it all */
		assert_true(got > n * t_msg + (k - 1) * t_msg / 2);
		pk_run_free(&r);
	}
}

/*
 * 2 nodes, 16 MiB: NCCL's double binary tree is two trees of 8 MiB each, node 1 the
 * root of one, node 0 of the other, so each direction of the link carries one tree's
 * reduction and the other's broadcast: 2 x 16 messages of 512 KiB. The reduction keeps
 * the link busy from the start and the broadcast joins one message later; sharing the
 * link, the broadcast stays about a message (far more than a path latency) behind, so the
 * link never idles and the op takes the 32 messages' serialisation plus the last one's
 * path latency, within two packet times; and no chunk goes down before it has come up.
 * (Whole flows, up and down at once, would end at the same time: the closed form alone
 * does not tell the pipeline from them, the start times do.)
 */
static void
test_tree_two_nodes(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
		                  .algo = FT_ALGO_TREE,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 2,
		                  .ranks_per_node = 1,
		                  .bytes = 16u << 20 };
	uint32_t n = 16, e, m;
	struct pk_run r;
	double t_pkt, d, t_msg, lo, hi, got;

	(void)state;
	pk_run_op(&r, &a, 2, NULL, 1, false);
	pk_hop_times(&r, &t_pkt, &d);
	/* edges in schedule order: tree 0 up, down; tree 1 up, down; n messages each */
	assert_int_equal(pk(r.e)->flows.len, 4 * n);
	for (e = 0; e < 4; e += 2) {
		for (m = 0; m < n; m++) {
			const struct pk_flow *up = flow(&r, e * n + m), *down = flow(&r, (e + 1) * n + m);

			assert_int_equal(up->bytes, 512u << 10);
			assert_int_equal(down->src, up->dst);
			assert_true((double)(down->t_start_ps - up->t_start_ps) / PK_PS_PER_S >=
			            128 * t_pkt + d - t_pkt);
		}
	}
	t_msg = 128 * t_pkt;
	lo = 2 * n * t_msg + d - 2 * t_pkt;
	hi = 2 * n * t_msg + d + 2 * t_pkt;
	got = op_time(&r);
	if (!(got >= lo && got <= hi))
		fail_msg("tree: %.9g s, closed form [%.9g, %.9g] s (packet %.3g s)", got, lo, hi,
		         t_pkt);
	pk_run_free(&r);
}

/*
 * What the runner hands the engine for a tree all-reduce on 4 DGX H100 nodes (a chain in
 * each node, the double binary tree over the nodes, 8 rail-aligned channels with PXN legs):
 * every flow names its tree copy (1 .. 2 x 8) and direction; a relay leg starts where the
 * flow before it ends; per copy, each rank sends up to at most one parent, exactly one
 * rank (the root) sends up to none, each up flow has its down flow back, and every rank
 * of the job takes part.
 */
static void
test_tree_sched_marks(void **state)
{
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
		                  .algo = FT_ALGO_TREE,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 32,
		                  .ranks_per_node = 1,
		                  .bytes = 64u << 20 };
	uint32_t first[5] = { 0, 8, 16, 24, 32 }, nch = 8, npipe = 2 * nch, p, f, relays = 0;
	struct ft_schedule s, out;
	const struct ft_sched_phase *ph;

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100:4", &spec, &err), 0);
	ft_schedule_init(&s);
	assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
	assert_int_equal(ft__sim_tree_uneven(&s, 4, first), 0);
	assert_int_equal(ft__sim_channelize(&s, nch, 8, 8, ft_spec_node_at(&spec, 0), false, &out),
	                 0);
	ph = ft_sched_phase_at(&out, 0);
	for (p = 1; p <= npipe; p++) {
		uint32_t parent[32], roots = 0, ups = 0, downs = 0, r;
		const struct ft_sched_flow *last = NULL;

		for (r = 0; r < 32; r++)
			parent[r] = UINT32_MAX;
		for (f = 0; f < ph->nflows; f++) {
			const struct ft_sched_flow *fl =
			        ft_vec_at(&out.flows, ph->first_flow + f);

			assert_true(fl->pipe >= 1 && fl->pipe <= npipe);
			assert_true(fl->dir == FT_SCHED_UP || fl->dir == FT_SCHED_DOWN);
			if (fl->relay) {
				assert_non_null(last);
				assert_int_equal(fl->src, last->dst);
				assert_int_equal(fl->pipe, last->pipe);
				relays += p == 1;
			} else if (fl->pipe == p && fl->dir == FT_SCHED_UP) {
				assert_int_equal(parent[fl->src], UINT32_MAX);
				parent[fl->src] = fl->dst; /* the first leg's end: a proxy or the parent */
				ups++;
			} else if (fl->pipe == p) {
				downs++;
			}
			last = fl;
		}
		for (r = 0; r < 32; r++)
			roots += parent[r] == UINT32_MAX;
		assert_int_equal(roots, 1);
		assert_int_equal(ups, 31);
		assert_int_equal(downs, 31);
	}
	assert_true(relays > 0); /* the channels change rails between nodes: PXN legs */
	ft_schedule_release(&out);
	ft_schedule_release(&s);
}

/* Chunking off: one flow per edge carrying all of it, as the flow engine does. */
static void
test_tree_unchunked(void **state)
{
	struct ft_packet_cfg pc = { .chunking = FT_PKT_CHUNK_OFF };
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
		                  .algo = FT_ALGO_TREE,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 2,
		                  .ranks_per_node = 1,
		                  .bytes = 16u << 20 };
	struct pk_run r;

	(void)state;
	pk_run_op(&r, &a, 2, &pc, 1, false);
	assert_int_equal(pk(r.e)->flows.len, 4);
	assert_int_equal(flow(&r, 0)->bytes, 8u << 20);
	pk_run_free(&r);
}

/*
 * NCCL's sizes outside rings (src/enqueue.cc calcCollChunking): one buffer slot per
 * chunk and message, 8 in flight; an LL128 tree of 1 MiB on 2 channels, 16 ranks on 2
 * nodes (ppn 8, 1 + log2 2 + 0.8 = 2.8 steps) halves 576,000 while a channel's 512 KiB
 * holds fewer than 2.8 x 64 / 8 = 22.4 chunks, down to 72,000 (no longer above
 * 128 KiB), which it holds 7 of: at least 2.8 x 16 / 8 = 5.6, so it stays.
 */
static void
test_tree_chunk_sizes(void **state)
{
	struct ft_model_chunking ch;

	(void)state;
	ft_model_chunking_sized(FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_SIMPLE, 1u << 30, 16, 4,
	                        32, &ch);
	assert_int_equal(ch.chunk_bytes, 512u << 10);
	assert_int_equal(ch.slice_bytes, 512u << 10);
	assert_int_equal(ch.slots, 8);
	ft_model_chunking_sized(FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_LL, 1u << 30, 16, 4, 32,
	                        &ch);
	assert_int_equal(ch.chunk_bytes, 32u << 10);
	ft_model_chunking_sized(FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_LL128, 1u << 20, 2, 2, 16,
	                        &ch);
	assert_int_equal(ch.chunk_bytes, 72000);
	assert_int_equal(ch.slice_bytes, 72000);
	/* large enough: the full slot */
	ft_model_chunking_sized(FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_LL128, 1ull << 33, 2, 2,
	                        16, &ch);
	assert_int_equal(ch.chunk_bytes, 576000);
}

/*
 * NCCL's p2p channels (src/graph/paths.cc ncclTopoComputeP2pChannels): the collective
 * channel count, clamped to 1 .. 64 (NCCL_MIN/MAX_P2P_NCHANNELS), rounded up to a power of
 * two; from the model's channel count of a preset's node: 18 NVLinks on an H100 node give
 * 32 (the figure the send/recv path used to take bare), 12 on an A100 node 16, a PCIe
 * node's 2 stay 2. With 2 p2p channels a 16-rank, 2-node communicator at 50 GB/s a NIC
 * gives a peer one channel (4 = ceil(50 / 14) rounded up, halved while 2 groups of 8 peers
 * would not fit) and keeps 2 / 1 x 8 = 16 sends in flight, where 32 channels keep 32 / 4
 * x 8 = 64.
 */
static void
test_p2p_nchannels(void **state)
{
	static const struct {
		const char *preset;
		uint32_t want;
	} node[] = { { "dgx-h100:2", 32 }, { "dgx-a100:2", 16 }, { "pcie-l40s:2", 2 } };
	struct ft_model_p2p_chunking ch;

	(void)state;
	assert_int_equal(ft_model_p2p_nchannels(0), 1);
	assert_int_equal(ft_model_p2p_nchannels(2), 2);
	assert_int_equal(ft_model_p2p_nchannels(12), 16);
	assert_int_equal(ft_model_p2p_nchannels(18), FT_MODEL_P2P_NCHANNELS);
	assert_int_equal(ft_model_p2p_nchannels(33), 64);
	assert_int_equal(ft_model_p2p_nchannels(100), 64);
	for (size_t i = 0; i < sizeof(node) / sizeof(node[0]); i++) {
		struct ft_cluster_spec spec;
		struct ft_model_links l;
		struct ft_error err = { 0 };

		assert_int_equal(ft_spec_resolve(node[i].preset, &spec, &err), 0);
		assert_int_equal(ft_model_links_get(&spec, 0, 0, 0, &l, &err), 0);
		if (ft_model_p2p_nchannels(l.nchannels) != node[i].want)
			fail_msg("%s: %u channels -> %u p2p channels, want %u", node[i].preset,
			         l.nchannels, ft_model_p2p_nchannels(l.nchannels), node[i].want);
	}
	ft_model_p2p_chunking_on(1u << 20, 16, 2, 50, 2, &ch);
	assert_int_equal(ch.channels, 1);
	assert_int_equal(ch.peers_inflight, 16);
	ft_model_p2p_chunking_on(1u << 20, 16, 2, 50, 32, &ch);
	assert_int_equal(ch.channels, 4);
	assert_int_equal(ch.peers_inflight, 64);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_tree_two_nodes),
		cmocka_unit_test(test_tree_unchunked),
		cmocka_unit_test(test_tree_sched_marks),
		cmocka_unit_test(test_tree_chunk_sizes),
		cmocka_unit_test(test_p2p_nchannels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

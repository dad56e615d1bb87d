/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_simmodel.c - the flow engine as NCCL runs a collective and
 * as the model predicts it: channels on every rail, NVLS on a part of a node,
 * CollNet through the SHARP switches, the tuner's choice, link rates as NCCL
 * achieves them, routing disciplines honoured, and the flow engine agreeing
 * with the model where nothing is congested.
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

#include "spec/scenario.h"
#include "sim/prep.h"
#include "sim/sim_int.h"
#include "sim_lats.h"
#include "base/alloc_int.h"

static void
assert_close_(double a, double b, double tol, const char *file, int line)
{
	if (!(fabs(a - b) <= tol)) {
		print_error("%s:%d: %.9g != %.9g (tolerance %.3g)\n", file, line, a, b, tol);
		fail();
	}
}
#define assert_close(a, b, tol) assert_close_((a), (b), (tol), __FILE__, __LINE__)

static struct ft_scenario *
load_text(const char *text)
{
	struct ft_scenario *sc = NULL;
	struct ft_error err = { 0 };
	int rc = ft_scenario_load_buffer(text, strlen(text), "t.yaml", &sc, &err);

	if (rc < 0)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	return sc;
}

static int
run_text(const char *text, const char *engine, struct ft_sim_report *rep, struct ft_error *err)
{
	struct ft_scenario *sc = load_text(text);
	struct ft_sim_overrides ov;
	int rc;

	ft_sim_overrides_init(&ov);
	ov.engine = engine;
	ft_sim_report_init(rep);
	rc = ft_scenario_run(sc, &ov, NULL, rep, err);
	ft_scenario_free(sc);
	return rc;
}

static void
run_ok(const char *text, const char *engine, struct ft_sim_report *rep)
{
	struct ft_error err = { 0 };
	int rc = run_text(text, engine, rep, &err);

	if (rc < 0)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
}

/* Bytes a port carried, by its name ("n0.nic2 -> leaf0"); 0 when it carried none. */
static double
port_bytes(const struct ft_sim_report *rep, const char *name)
{
	size_t i;

	for (i = 0; i < rep->ports.len; i++) {
		const struct ft_sim_hot_link *h = ft_vec_at(&rep->ports, i);

		if (strcmp(h->name, name) == 0)
			return h->stat.bytes;
	}
	return 0;
}

/* Bytes carried by the links of @kind at tier @tier ("host" 1, "fabric" 2: leaf-spine). */
static double
tier_bytes(const struct ft_sim_report *rep, const char *kind, uint32_t tier)
{
	double b = 0;
	size_t i;

	for (i = 0; i < rep->tiers.len; i++) {
		const struct ft_sim_tier_stat *t = ft_vec_at(&rep->tiers, i);

		if (t->tier == tier && strcmp(t->kind, kind) == 0)
			b += t->bytes;
	}
	return b;
}

static const char four_nic_ring[] =
        "name: t\n"
        "cluster:\n"
        "  name: h100-4nic\n"
        "  nodes: { preset: dgx-h100, count: 4, nics: { count: 4 } }\n"
        "  fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n"
        "jobs:\n"
        "  - name: a\n"
        "    ops:\n"
        "      - {op: all_reduce, size: 256MiB, algo: ring, proto: simple}\n";

/*
 * Four NICs for eight GPUs: four channels, one per NIC, so every NIC of
 * every node sends one channel's ring traffic, 2(n-1)/n of S/4 (a rotation
 * of the ranks by one GPU per channel put two channels on NICs 0 and 1 and
 * none on NICs 2 and 3).
 */
static void
test_channels_use_every_nic(void **state)
{
	struct ft_sim_report rep;
	double want = 2.0 * 31 / 32 * (256.0 * 1048576) / 4;
	char name[64];
	uint32_t node, nic;

	(void)state;
	run_ok(four_nic_ring, "flow", &rep);
	for (node = 0; node < 4; node++)
		for (nic = 0; nic < 4; nic++) {
			snprintf(name, sizeof(name), "n%u.nic%u -> leaf0", node, nic);
			assert_close(port_bytes(&rep, name), want, want * 1e-5);
		}
	ft_sim_report_release(&rep);
}

/* A ring all-reduce of 256 MiB on two DGX H100 under one leaf, its ranks placed as @place. */
static void
run_placed(const char *place, const char *engine, struct ft_sim_report *rep)
{
	char text[768];

	snprintf(text, sizeof(text),
	         "name: t\n"
	         "cluster:\n"
	         "  name: h100-2\n"
	         "  nodes: { preset: dgx-h100, count: 2 }\n"
	         "  fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n"
	         "jobs:\n"
	         "  - name: a\n"
	         "    %s\n"
	         "    ops:\n"
	         "      - {op: all_reduce, size: 256MiB, algo: ring, proto: simple}\n",
	         place);
	run_ok(text, engine, rep);
}

/*
 * Ranks on GPUs 0, 2, 4, 6 of each node (the data-parallel group of a
 * tensor-parallel-2 job, as `fabtune plan` places it): four local ranks per
 * node, four channels, each leaving and entering the node through the NIC
 * of one of the placed GPUs (GPU g owns NIC g on a DGX H100), so NICs 0, 2,
 * 4, 6 each send 2 (n - 1) / n of S / 4 and the others nothing; the time is
 * that of the same job on GPUs 0 to 3 (gpus_per_node: 4), the same shape on
 * other NICs, to rounding. Listed in any order, the ranks are grouped node
 * by node (NCCL's ring visits a node's ranks together).
 */
static void
test_channels_strided_gpus(void **state)
{
	static const char *const placed[] = {
		"placement: ['0:0', '0:2', '0:4', '0:6', '1:0', '1:2', '1:4', '1:6']",
		"placement: ['1:6', '0:2', '1:0', '0:0', '0:6', '1:4', '0:4', '1:2']",
	};
	struct ft_sim_report rep, packed;
	double want = 2.0 * 7 / 8 * (256.0 * 1048576) / 4;
	char name[64];
	uint32_t node, nic, i;

	(void)state;
	run_placed("gpus_per_node: 4", "flow", &packed);
	for (i = 0; i < 2; i++) {
		run_placed(placed[i], "flow", &rep);
		assert_int_equal(ft_run_row(&rep.run, 0)->nranks, 8);
		for (node = 0; node < 2; node++)
			for (nic = 0; nic < 8; nic++) {
				snprintf(name, sizeof(name), "n%u.nic%u -> leaf0", node, nic);
				assert_close(port_bytes(&rep, name), nic % 2 ? 0 : want,
				             want * 1e-5);
				snprintf(name, sizeof(name), "n%u.nic%u -> leaf0", node, nic / 2);
				assert_close(port_bytes(&packed, name), want, want * 1e-5);
			}
		assert_close(ft_run_row(&rep.run, 0)->time_us, ft_run_row(&packed.run, 0)->time_us,
		             ft_run_row(&packed.run, 0)->time_us * 1e-9);
		ft_sim_report_release(&rep);
	}
	ft_sim_report_release(&packed);
}

/*
 * Nodes of an explicit placement that hold different GPUs (0 and 2 on node 0,
 * 1 and 3 on node 1) keep their own rails: each node's channels leave it
 * through its placed GPUs' NICs. A GPU placed twice is refused, naming both.
 */
static void
test_channels_placed_gpus_differ(void **state)
{
	struct ft_sim_report rep;
	struct ft_error err = { 0 };
	double want = 2.0 * 3 / 4 * (256.0 * 1048576) / 2;
	char text[512], name[64];
	uint32_t nic;

	(void)state;
	run_placed("placement: ['0:0', '0:2', '1:1', '1:3']", "flow", &rep);
	for (nic = 0; nic < 8; nic++) {
		snprintf(name, sizeof(name), "n0.nic%u -> leaf0", nic);
		assert_close(port_bytes(&rep, name), nic == 0 || nic == 2 ? want : 0, want * 1e-5);
		snprintf(name, sizeof(name), "n1.nic%u -> leaf0", nic);
		assert_close(port_bytes(&rep, name), nic == 1 || nic == 3 ? want : 0, want * 1e-5);
	}
	ft_sim_report_release(&rep);
	snprintf(text, sizeof(text),
	         "name: t\ncluster: dgx-h100:2\njobs:\n  - name: a\n"
	         "    placement: ['0:0', '0:2', '0:0']\n"
	         "    ops:\n      - {op: all_reduce, size: 1MiB}\n");
	assert_int_equal(run_text(text, "flow", &rep, &err), FT_EINVAL);
	assert_non_null(strstr(err.msg, "jobs[0].placement[2]: GPU 0:0 is placed twice "
	                                "(placement[0] too)"));
	ft_sim_report_release(&rep);
}

/*
 * On a rail-optimized fat-tree every channel's node-to-node hop stays on its
 * rail: nothing crosses a spine. With eight NICs for eight GPUs the last rank
 * of a channel is not on the channel's rail and reaches it over NVLink (PXN).
 */
static void
test_channels_stay_on_rail(void **state)
{
	static const char text[] = "name: t\n"
	                           "cluster: dgx-h100:4\n"
	                           "routing: ecmp\n"
	                           "jobs:\n"
	                           "  - name: a\n"
	                           "    ops:\n"
	                           "      - {op: all_reduce, size: 64MiB, algo: ring}\n"
	                           "      - {op: all_reduce, size: 64MiB, algo: tree}\n"
	                           "      - {op: all_reduce, size: 64MiB, algo: nvls_tree}\n"
	                           "      - {op: all_gather, size: 64MiB, algo: ring}\n";
	struct ft_sim_report rep;

	(void)state;
	run_ok(text, "flow", &rep);
	assert_true(tier_bytes(&rep, "host", 1) > 0);
	assert_close(tier_bytes(&rep, "fabric", 2), 0, 0);
	ft_sim_report_release(&rep);
}

/* The op @op under ECMP at seed @seed over two DGX H100 nodes of @nics NICs of link preset
 * @link on a 2-tier fat-tree of radix-@radix switches (two spines), of @ranks ranks (0:
 * every GPU; 2: GPU 0 of each node), @qps QPs a connection. */
static void
ecmp_link_op_text(char *text, size_t n, const char *link, uint32_t nics, uint32_t radix,
                  uint32_t ranks, uint32_t seed, uint32_t qps, const char *op)
{
	snprintf(text, n,
	         "name: t\nseed: %u\nrouting: ecmp\nqps_per_connection: %u\n"
	         "cluster:\n"
	         "  name: two-%s\n"
	         "  nodes: { preset: dgx-h100, count: 2, nics: { count: %u, link: %s } }\n"
	         "  fabric: { kind: fat-tree, link: %s, tiers: 2, radix: %u }\n"
	         "jobs:\n"
	         "  - name: a\n%s"
	         "    ops:\n"
	         "      - %s\n",
	         seed, qps, link, nics, link, link, radix,
	         ranks == 2 ? "    ranks: 2\n    placement: ['0:0', '1:0']\n" : "", op);
}

/* ecmp_link_op_text() on RoCE (roce400), one QP a connection. */
static void
ecmp_op_text(char *text, size_t n, uint32_t nics, uint32_t radix, uint32_t ranks, uint32_t seed,
             const char *op)
{
	ecmp_link_op_text(text, n, "roce400", nics, radix, ranks, seed, 1, op);
}

/* A ring all-reduce of 64 MiB of ecmp_link_op_text(). */
static void
ecmp_link_ring_text(char *text, size_t n, const char *link, uint32_t nics, uint32_t radix,
                    uint32_t ranks, uint32_t seed, uint32_t qps)
{
	ecmp_link_op_text(text, n, link, nics, radix, ranks, seed, qps,
	                  "{op: all_reduce, algo: ring, size: 64MiB}");
}

/* ecmp_link_ring_text() on RoCE (roce400), one QP a connection. */
static void
ecmp_ring_text(char *text, size_t n, uint32_t nics, uint32_t radix, uint32_t ranks, uint32_t seed)
{
	ecmp_link_ring_text(text, n, "roce400", nics, radix, ranks, seed, 1);
}

/* Every link carries the same bytes in the flow engine's report @f as in the packet
 * engine's @k (by link id: a leaf's two links to a spine share a name); returns the spine
 * links seen. */
static size_t
ports_agree(const struct ft_sim_report *f, const struct ft_sim_report *k, const char *what,
            uint32_t seed)
{
	size_t i, spine = 0;

	assert_true(f->ports.len > 0 && f->ports.len == k->ports.len);
	for (i = 0; i < f->ports.len; i++) {
		const struct ft_sim_hot_link *a = ft_vec_at(&f->ports, i);
		const struct ft_sim_hot_link *b = ft_vec_at(&k->ports, i);

		assert_string_equal(a->name, b->name);
		spine += strstr(a->name, "spine") != NULL;
		if (fabs(a->stat.bytes - b->stat.bytes) > 1e-6 * a->stat.bytes)
			fail_msg("%s, seed %u: %s carries %.0f bytes in the flow engine, %.0f in "
			         "the packet engine",
			         what, seed, a->name, a->stat.bytes, b->stat.bytes);
	}
	return spine;
}

/*
 * The two engines route a ring's launched channels alike under ECMP: two DGX H100 nodes of
 * eight NICs on two spines (radix 8: four leaves, two links from each to each spine), where
 * NCCL launches 2 channels for each of the ring graph's (the model's count): each copy of a
 * connection on QPs of its own, hashed to a path of its own (NVIDIA/nccl v2.27.7-1
 * src/transport/net_ib.cc ncclIbConnect(); pkt_nccl.c ring_conns(), engine_flow.c
 * chan_parts()). Every link carries the same bytes in both engines, at three seeds (the
 * ECMP salts). It guards the pair: an engine that gives the copies QPs of their own while
 * the other keeps QP 0's (or splits its bytes otherwise) loads other spine links. Before
 * the copies had QPs of their own, both engines put every copy on QP 0's path and agreed
 * too: test_ecmp_ring_copies_spread is the one that fails there.
 */
static void
test_ecmp_ring_copies_agree(void **state)
{
	(void)state;
	for (uint32_t seed = 1; seed <= 3; seed++) {
		struct ft_sim_report f, k;
		char text[1024];

		ecmp_ring_text(text, sizeof(text), 8, 8, 0, seed);
		run_ok(text, "flow", &f);
		run_ok(text, "packet", &k);
		assert_true(ports_agree(&f, &k, "ring", seed) > 0);
		ft_sim_report_release(&f);
		ft_sim_report_release(&k);
	}
}

/*
 * A two-node ring on two spines, closed form: two ranks, GPU 0 of two DGX H100 nodes of
 * four RoCE NICs (radix 4: two NICs a leaf, four leaves, one link from each to each
 * spine), 64 MiB: each rank sends S = 2 (n - 1) / n x 64 MiB = 64 MiB to the other, on 4
 * launched channels (NCCL's count at this size), S / 4 each, each on its own QP (QPs 0 to
 * 3). At seed 1 QP 0 hashes n0.nic0's connection to spine 1, and two of QPs 1 to 3 with
 * it, the third to spine 0: leaf0's uplinks carry S / 4 and 3 S / 4, in both engines.
 * Before, every copy took QP 0's path: S on leaf0 -> spine1, none on leaf0 -> spine0.
 */
static void
test_ecmp_ring_copies_spread(void **state)
{
	const char *engs[] = { "flow", "packet" };
	const double s = 64.0 * 1024 * 1024;
	char text[1024];

	(void)state;
	ecmp_ring_text(text, sizeof(text), 4, 4, 2, 1);
	for (size_t e = 0; e < FT_ARRAY_SIZE(engs); e++) {
		struct ft_sim_report r;

		run_ok(text, engs[e], &r);
		/* (port counters in whole bytes of the wire's payload: within 64 bytes) */
		assert_close(port_bytes(&r, "leaf0 -> spine0"), s / 4, 64);
		assert_close(port_bytes(&r, "leaf0 -> spine1"), 3 * s / 4, 64);
		assert_close(port_bytes(&r, "leaf0 -> spine0") + port_bytes(&r, "leaf0 -> spine1"),
		             s, 64);
		ft_sim_report_release(&r);
	}
}

/* A tree all-reduce in Simple, an LL128 chain (a broadcast) and an NVLS tree all-reduce
 * (every GPU of a node alone: NVLS needs several) under ECMP. */
static const char *const ecmp_chan_ops[] = {
	"{op: all_reduce, algo: tree, proto: simple, size: 64MiB}",
	"{op: broadcast, algo: ring, proto: ll128, size: 4MiB}",
	"{op: all_reduce, algo: nvls_tree, size: 64MiB}",
};

/*
 * The two engines route a tree's copies and a chain's launched channels alike under ECMP,
 * each channel's connection on QPs of its own (NVIDIA/nccl v2.27.7-1
 * src/transport/net_ib.cc ncclIbConnect(); ft__sim_chan_qp0(), ft__sim_flow_chans()): a
 * tree all-reduce of 64 MiB in Simple and an LL128 broadcast of 4 MiB (a chain, on NCCL's
 * launched channels: pkt_tree.c chain_channels(), engine_flow.c chan_parts()) carry the same
 * bytes on every link in both engines at seeds 1 to 3, over every GPU of two DGX H100 of 8
 * RoCE NICs (radix 8; an NVLS tree of 64 MiB too, its trees between the nodes' heads on
 * their copies' QPs, engine_flow.c submit_chunked()) and over GPU 0 of each of two nodes
 * of 4 (radix 4), where the
 * channels' connections join the same two NICs. There the channels spread over both spines
 * from leaf0 at seed 1 in both engines; before, every channel's connection took QP 0's path
 * and leaf0 sent on one spine alone (the test failed so).
 */
static void
test_ecmp_tree_chain_copies_agree(void **state)
{
	(void)state;
	for (size_t o = 0; o < FT_ARRAY_SIZE(ecmp_chan_ops); o++)
		for (uint32_t seed = 1; seed <= 3; seed++)
			for (uint32_t two = 0; two < (o < 2 ? 2u : 1u); two++) {
				struct ft_sim_report f, k;
				char text[1024];

				ecmp_op_text(text, sizeof(text), two ? 4 : 8, two ? 4 : 8,
				             two ? 2 : 0, seed, ecmp_chan_ops[o]);
				run_ok(text, "flow", &f);
				run_ok(text, "packet", &k);
				assert_true(ports_agree(&f, &k, ecmp_chan_ops[o], seed) > 0);
				if (two && seed == 1) {
					assert_true(port_bytes(&f, "leaf0 -> spine0") > 0);
					assert_true(port_bytes(&f, "leaf0 -> spine1") > 0);
				}
				ft_sim_report_release(&f);
				ft_sim_report_release(&k);
			}
}

/*
 * Closed form of the spread, two ranks (GPU 0 of two DGX H100 of four RoCE NICs, radix 4:
 * two NICs a leaf, one link from each leaf to each spine), seed 1. The tree all-reduce of
 * 64 MiB in Simple runs on 2 copies (NCCL's channel of each tree of the double binary
 * tree), one connection each way on each, the copies' QPs 0 and 1: at seed 1 QP 0 hashes
 * n0.nic0's connection to spine 1 and QP 1 to spine 0, so leaf0's uplinks carry half of
 * what n0.nic0 sends each. The LL128 broadcast of 4 MiB runs on 4 launched channels (the
 * model's count; a copy cut into 4: ft__sim_chain_reps()), QPs 0 to 3, as the ring's
 * copies of test_ecmp_ring_copies_spread: S / 4 on spine 0 and 3 S / 4 on spine 1 (S the
 * wire bytes, 4 MiB / LL128's 15 / 16). The tree with packet.chunking off, its flows
 * whole in both engines, splits in halves alike. In both engines; before, every channel
 * took QP 0's path: all of it on spine 1.
 */
static void
test_ecmp_tree_chain_copies_spread(void **state)
{
	const char *engs[] = { "flow", "packet" };
	const double s = 4.0 * 1024 * 1024 * 16 / 15;
	char text[1024];

	(void)state;
	for (size_t e = 0; e < FT_ARRAY_SIZE(engs); e++) {
		struct ft_sim_report r;
		double nic, up0, up1;

		ecmp_op_text(text, sizeof(text), 4, 4, 2, 1, ecmp_chan_ops[0]);
		run_ok(text, engs[e], &r);
		nic = port_bytes(&r, "n0.nic0 -> leaf0");
		up0 = port_bytes(&r, "leaf0 -> spine0");
		up1 = port_bytes(&r, "leaf0 -> spine1");
		assert_true(nic > 64e6);
		assert_close(up0, nic / 2, 64);
		assert_close(up1, nic / 2, 64);
		ft_sim_report_release(&r);

		ecmp_op_text(text, sizeof(text), 4, 4, 2, 1, ecmp_chan_ops[1]);
		run_ok(text, engs[e], &r);
		assert_close(port_bytes(&r, "leaf0 -> spine0"), s / 4, 64);
		assert_close(port_bytes(&r, "leaf0 -> spine1"), 3 * s / 4, 64);
		ft_sim_report_release(&r);

		/* the tree's flows whole (pkt_setup.c add_timed_conn()): the same halves */
		ecmp_op_text(text, sizeof(text), 4, 4, 2, 1, ecmp_chan_ops[0]);
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
		         "packet:\n  chunking: off\n");
		run_ok(text, engs[e], &r);
		nic = port_bytes(&r, "n0.nic0 -> leaf0");
		assert_true(nic > 64e6);
		assert_close(port_bytes(&r, "leaf0 -> spine0"), nic / 2, 64);
		assert_close(port_bytes(&r, "leaf0 -> spine1"), nic / 2, 64);
		ft_sim_report_release(&r);
	}
}

/* Four ranks, GPUs 0 and 1 of two DGX H100 nodes of four RoCE NICs (both on NIC 0), radix 4
 * (two NICs a leaf, one link from each leaf to each of two spines), a ring all-reduce of
 * 64 MiB under ECMP at seed @seed on @channels forced channels (0: NCCL's). */
static void
ecmp_rings_text(char *text, size_t n, uint32_t channels, uint32_t seed)
{
	char op[128];

	if (channels)
		snprintf(op, sizeof(op), "{op: all_reduce, algo: ring, size: 64MiB, channels: %u}",
		         channels);
	else
		snprintf(op, sizeof(op), "{op: all_reduce, algo: ring, size: 64MiB}");
	snprintf(text, n,
	         "name: t\nseed: %u\nrouting: ecmp\n"
	         "cluster:\n"
	         "  name: two-roce\n"
	         "  nodes: { preset: dgx-h100, count: 2, nics: { count: 4, link: roce400 } }\n"
	         "  fabric: { kind: fat-tree, link: roce400, tiers: 2, radix: 4 }\n"
	         "jobs:\n"
	         "  - name: a\n"
	         "    ranks: 4\n"
	         "    placement: ['0:0', '0:1', '1:0', '1:1']\n"
	         "    ops:\n"
	         "      - %s\n",
	         seed, op);
}

/*
 * Two rings between the same two GPUs are two NCCL channels, each its own connection on QPs
 * of its own (NVIDIA/nccl v2.27.7-1 src/graph/connect.cc ncclTopoPostset(): channel c +
 * nChannels a copy of c; src/transport/net_ib.cc ncclIbConnect()): GPUs 0 and 1 of two DGX
 * H100 nodes of four RoCE NICs (ecmp_rings_text(): both GPUs on NIC 0, two graph rings) on 4
 * forced channels, channels 2 and 3 copies of rings 0 and 1, so each node-crossing pair of
 * GPUs carries two channels, S' / 4 each (S' = 2 (n - 1) / n x 64 MiB = 96 MiB from node 0's
 * NIC). Channel c takes QP c (ft__sim_flow_chans()): at seed 1 three of n0.nic0's four
 * connections hash to spine 0, one to spine 1, in both engines. Before, a ring's QPs counted
 * from 0 in each graph ring, so on these forced channels (one copy a ring) all four took
 * QP 0 and its path: S' up spine 0, none up spine 1. On NCCL's own channels (4 launched on the 2 graph
 * rings, ring i's copy r channel i + 2 r) and at seeds 1 to 3 every link carries the same
 * bytes in both engines.
 */
static void
test_ecmp_ring_graph_rings_own_qps(void **state)
{
	const char *engs[] = { "flow", "packet" };
	const double s = 96.0 * 1024 * 1024;
	char text[1024];

	(void)state;
	ecmp_rings_text(text, sizeof(text), 4, 1);
	for (size_t e = 0; e < FT_ARRAY_SIZE(engs); e++) {
		struct ft_sim_report r;

		run_ok(text, engs[e], &r);
		/* (port counters in whole bytes of the wire's payload: within 64 bytes) */
		assert_close(port_bytes(&r, "n0.nic0 -> leaf0"), s, 64);
		assert_close(port_bytes(&r, "leaf0 -> spine0"), 3 * s / 4, 64);
		assert_close(port_bytes(&r, "leaf0 -> spine1"), s / 4, 64);
		ft_sim_report_release(&r);
	}
	for (uint32_t ch = 0; ch <= 4; ch += 4)
		for (uint32_t seed = 1; seed <= 3; seed++) {
			struct ft_sim_report f, k;

			ecmp_rings_text(text, sizeof(text), ch, seed);
			run_ok(text, "flow", &f);
			run_ok(text, "packet", &k);
			assert_true(ports_agree(&f, &k, "rings", seed) > 0);
			ft_sim_report_release(&f);
			ft_sim_report_release(&k);
		}
}

/*
 * An LL chain on fewer launched channels than the graph's copies runs on the launched ones
 * alone, in both engines, as NCCL does (launched channel c runs graph channel c, and the
 * bytes are cut over the launched channels: src/device/broadcast.h runRing(),
 * ncclCollCbdPart(); ft__sim_chain_keep()): an LL broadcast of 128 KiB over every GPU of two
 * DGX H100 of 8 RoCE NICs (radix 8) launches 2 of the 8 copies (the model's count), so
 * node 0's NICs 0 and 1 carry S each on the wire (half the op's 128 KiB each, LL's 8-byte
 * lines of 4 data bytes doubling it) and its other six none, under ECMP as under D-mod-K;
 * the same bytes on every link in both engines at seeds 1 to 3, the reduce too. Before, the
 * flow engine spread the bytes over all 8 copies (S / 4 on every NIC of node 0, as the
 * packet engine's chain did not) and the links disagreed.
 */
static void
test_ecmp_ll_chain_launched_copies(void **state)
{
	static const char *const ops[] = { "{op: broadcast, algo: ring, proto: ll, size: 128KiB}",
		                           "{op: reduce, algo: ring, proto: ll, size: 128KiB}" };
	const char *engs[] = { "flow", "packet" };
	const double s = 128.0 * 1024;
	char text[1024], name[64];

	(void)state;
	for (size_t e = 0; e < FT_ARRAY_SIZE(engs); e++)
		for (uint32_t dmodk = 0; dmodk < 2; dmodk++) {
			struct ft_sim_report r;

			ecmp_op_text(text, sizeof(text), 8, 8, 0, 1, ops[0]);
			if (dmodk) { /* the same text under D-mod-K */
				char *at = strstr(text, "routing: ecmp\n"), rest[1024];

				assert_non_null(at);
				ft_strlcpy(rest, at + strlen("routing: ecmp\n"), sizeof(rest));
				snprintf(at, sizeof(text) - (size_t)(at - text),
				         "routing: dmodk\n%s", rest);
			}
			run_ok(text, engs[e], &r);
			for (uint32_t nic = 0; nic < 8; nic++) {
				snprintf(name, sizeof(name), "n0.nic%u -> leaf%u", nic, nic / 4);
				assert_close(port_bytes(&r, name), nic < 2 ? s : 0, 64);
			}
			ft_sim_report_release(&r);
		}
	for (size_t o = 0; o < FT_ARRAY_SIZE(ops); o++)
		for (uint32_t seed = 1; seed <= 3; seed++) {
			struct ft_sim_report f, k;

			ecmp_op_text(text, sizeof(text), 8, 8, 0, seed, ops[o]);
			run_ok(text, "flow", &f);
			run_ok(text, "packet", &k);
			assert_true(ports_agree(&f, &k, ops[o], seed) > 0);
			ft_sim_report_release(&f);
			ft_sim_report_release(&k);
		}
}

/*
 * 4 QPs a connection on InfiniBand against RoCE under ECMP: the two-rank ring of
 * test_ecmp_ring_copies_spread (GPU 0 of two DGX H100 nodes of four NICs, radix 4: two
 * NICs a leaf, one link from each leaf to each of two spines, 64 MiB: S = 64 MiB from
 * each rank to the other) with NCCL_IB_QPS_PER_CONNECTION=4. An IB switch forwards by the
 * destination's LID alone (kb IB-SM; NVIDIA/nccl v2.27.7-1 src/transport/net_ib.cc
 * ncclIbRtrQp(): every QP's address handle holds the peer port's LID), so leaf0 sends all of
 * S up one spine link, whatever the QP or launched channel, in both engines; on RoCE each
 * QP's UDP source port is hashed (kb ROCE-WIRE) and the 4 channels x 4 QPs spread over
 * both. Before, IB hashed each QP as RoCE does and loaded both spine links.
 */
static void
test_ecmp_ib_qps_one_spine(void **state)
{
	const char *engs[] = { "flow", "packet" }, *links[] = { "hdr", "roce400" };
	const double s = 64.0 * 1024 * 1024;
	char text[1024];

	(void)state;
	for (size_t k = 0; k < FT_ARRAY_SIZE(links); k++) {
		ecmp_link_ring_text(text, sizeof(text), links[k], 4, 4, 2, 1, 4);
		for (size_t e = 0; e < FT_ARRAY_SIZE(engs); e++) {
			struct ft_sim_report r;
			double b0, b1;

			run_ok(text, engs[e], &r);
			b0 = port_bytes(&r, "leaf0 -> spine0");
			b1 = port_bytes(&r, "leaf0 -> spine1");
			/* (port counters in whole bytes of the wire's payload: within 64 bytes) */
			assert_close(b0 + b1, s, 64);
			if (k == 0 && FT_MIN(b0, b1) > 64)
				fail_msg("%s engine, IB: leaf0's spine links carry %.0f and %.0f "
				         "bytes, not all on one",
				         engs[e], b0, b1);
			if (k == 1 && FT_MIN(b0, b1) < s / 16)
				fail_msg("%s engine, RoCE: leaf0's spine links carry %.0f and "
				         "%.0f bytes, not spread",
				         engs[e], b0, b1);
			ft_sim_report_release(&r);
		}
	}
}

/*
 * The two engines agree link by link on InfiniBand under ECMP, where neither splits a
 * connection over its launched channels' QPs (ft__sim_qp_hashed() false: a switch forwards
 * by destination LID, kb IB-SM) and every route to a NIC is the switches' one per
 * destination (topo/route.c ecmp_hash(), engine_flow's memo walk flow_route.c
 * ecmp_walk()): the ring all-reduce of 64 MiB and the ops of ecmp_chan_ops (a tree, an
 * LL128 chain, an NVLS tree) with 4 QPs a connection, over every GPU of two DGX H100 of 8
 * HDR NICs (radix 8) and over GPU 0 of each of two nodes of 4 (radix 4), at seeds 1 to 3.
 * An engine that hashed a channel's or a QP's own path on IB while the other did not (the
 * memo walk hashing the flow, a copy's QPs split in one engine alone) loads other spine
 * links and fails here.
 */
static void
test_ecmp_ib_engines_agree(void **state)
{
	const char *ops[FT_ARRAY_SIZE(ecmp_chan_ops) + 1];

	(void)state;
	ops[0] = "{op: all_reduce, algo: ring, size: 64MiB}";
	for (size_t o = 0; o < FT_ARRAY_SIZE(ecmp_chan_ops); o++)
		ops[o + 1] = ecmp_chan_ops[o];
	for (size_t o = 0; o < FT_ARRAY_SIZE(ops); o++)
		for (uint32_t seed = 1; seed <= 3; seed++)
			for (uint32_t two = 0; two < (o < 3 ? 2u : 1u); two++) {
				struct ft_sim_report f, k;
				char text[1024];

				ecmp_link_op_text(text, sizeof(text), "hdr", two ? 4 : 8,
				                  two ? 4 : 8, two ? 2 : 0, seed, 4, ops[o]);
				run_ok(text, "flow", &f);
				run_ok(text, "packet", &k);
				assert_true(ports_agree(&f, &k, ops[o], seed) > 0);
				ft_sim_report_release(&f);
				ft_sim_report_release(&k);
			}
}

/*
 * NVLS on 2 to 7 GPUs of one node runs (it spans one NVSwitch domain). Its channels run at
 * a speed of NCCL's list (ft_model_nvls_channel_share: 370.8 / (n + 1) down to 60, 50, 40
 * GB/s), which is not monotonic in n (6 GPUs: 53 -> 50, 7: 46 -> 40); the rest is.
 */
static void
test_nvls_part_of_a_node(void **state)
{
	char text[512];
	struct ft_sim_report rep;
	struct ft_cluster_spec cs;
	struct ft_error err = { 0 };
	double prev = 0;
	uint32_t n;

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100", &cs, &err), 0);
	for (n = 2; n <= 8; n++) {
		const struct ft_result_row *r;

		snprintf(text, sizeof(text),
		         "name: t\ncluster: dgx-h100\njobs:\n  - name: a\n    ranks: %u\n"
		         "    ops:\n      - {op: all_reduce, size: 256MiB, algo: nvls}\n",
		         n);
		run_ok(text, "flow", &rep);
		r = ft_run_row(&rep.run, 0);
		assert_int_equal(r->nranks, n);
		assert_string_equal(r->algo, "nvls");
		/* busbw grows with the ranks: the switch reduces, each GPU moves ~S out and in. */
		assert_true(r->busbw_GBps / ft_model_nvls_channel_share(&cs, n) > prev);
		prev = r->busbw_GBps / ft_model_nvls_channel_share(&cs, n);
		ft_sim_report_release(&rep);
	}
}

/*
 * CollNet with SHARP: each rank sends its shard (S / 8) to the leaf switch
 * that reduces it and gets the reduced shard back, so every NIC host link
 * carries S / 8 each way, and nothing crosses a spine. The engines run the
 * variant NCCL's tuner picks, here CollNetChain (each GPU heads the chain of
 * one NIC's channels, S / 8 into the network), and the row says so. NCCL's chain graph's
 * speed, below the links' (ft_model_collnet_chain_efficiency(), 192 against 205.7 GB/s), is
 * a pace on its flows (ft__sim_collnet_cap()), so a NIC's port counts the S / 8 NCCL moves.
 * Before, the flows carried it as wire bytes: S / 8 / (192 / 205.7), 7.1% more.
 */
static void
test_collnet_sharp_runs(void **state)
{
	static const char text[] =
	        "name: t\n"
	        "cluster:\n"
	        "  name: sharp\n"
	        "  nodes: { preset: dgx-h100, count: 4 }\n"
	        "  fabric: { kind: rail-fat-tree, link: ndr, tiers: 2, radix: 64, sharp: true }\n"
	        "jobs:\n"
	        "  - name: a\n"
	        "    ops:\n"
	        "      - {op: all_reduce, size: 256MiB, algo: collnet}\n";
	struct ft_sim_report rep;
	double shard = 256.0 * 1048576 / 8, eff = 0;

	(void)state;
	{
		static const char spec[] =
		        "name: sharp\n"
		        "nodes: { preset: dgx-h100, count: 4 }\n"
		        "fabric: { kind: rail-fat-tree, link: ndr, tiers: 2, radix: 64, sharp: true }\n";
		struct ft_cluster_spec cs;
		struct ft_model_query q;
		struct ft_model_result r;
		struct ft_model_links l;
		struct ft_error err = { 0 };

		assert_int_equal(ft_spec_load_buffer(spec, strlen(spec), "t.yaml", &cs, &err), 0);
		ft_model_query_init(&q, FT_OP_ALL_REDUCE, 256u << 20);
		q.force_algo = true;
		q.algo = FT_ALGO_COLLNET;
		assert_int_equal(ft_model_eval(&cs, &q, &r, &err), 0);
		assert_string_equal(r.algo_label, "collnet_chain");
		assert_int_equal(ft_model_links_get(&cs, 0, 0, 0, &l, &err), 0);
		eff = ft_model_collnet_chain_efficiency(&l);
		assert_close(eff, 192.0 / (360.0 * 8 / 14), 1e-3);
	}
	run_ok(text, "flow", &rep);
	assert_string_equal(ft_run_row(&rep.run, 0)->algo, "collnet_chain");
	assert_close(port_bytes(&rep, "n0.nic0 -> leaf0"), shard, shard * 1e-6);
	assert_close(port_bytes(&rep, "n3.nic7 -> leaf7"), shard, shard * 1e-6);
	assert_close(tier_bytes(&rep, "fabric", 2), 0, 0);
	ft_sim_report_release(&rep);
}

/*
 * NVLS across nodes (NVLS with CollNet) where the model's tuner picks it (4 DGX H100 with
 * SHARP, 1 GiB): the flow engine runs it (ft__sim_nvls_collnet()) and its row names it
 * as the model does; the packet engine's pick is it too (4 MiB on 8 nodes), not where
 * packet.chunking is off, which has no whole-flow form of it (forced: FT_ENOTSUP, saying
 * so). Where it is not built (ft__sim_pick_algo() without it: NVLink
 * domains, nodes of different GPU counts) the tuner's best among the others runs, as NCCL
 * does where NVLS is off for CollNet: here a CollNet variant, never the ring fallback.
 */
static void
test_nvls_net_is_the_pick(void **state)
{
	static const char spec[] =
	        "name: sharp\n"
	        "nodes: { preset: dgx-h100, count: 4 }\n"
	        "fabric: { kind: rail-fat-tree, link: ndr, tiers: 2, radix: 64, sharp: true }\n";
	static const char text[] =
	        "name: t\n"
	        "cluster:\n"
	        "  name: sharp\n"
	        "  nodes: { preset: dgx-h100, count: 4 }\n"
	        "  fabric: { kind: rail-fat-tree, link: ndr, tiers: 2, radix: 64, sharp: true }\n"
	        "jobs:\n"
	        "  - name: a\n"
	        "    ops:\n"
	        "      - {op: all_reduce, size: 1GiB}\n";
	static const char pick4m[] = "name: t\n"
	                             "cluster: examples/dgx-h100-sharp.yaml\n"
	                             "jobs:\n"
	                             "  - name: a\n"
	                             "    ops:\n"
	                             "      - {op: all_reduce, size: 4MiB}\n";
	static const char pick4m_off[] = "name: t\n"
	                                 "cluster: examples/dgx-h100-sharp.yaml\n"
	                                 "packet: { chunking: off }\n"
	                                 "jobs:\n"
	                                 "  - name: a\n"
	                                 "    ops:\n"
	                                 "      - {op: all_reduce, size: 4MiB}\n";
	static const char forced_off[] = "name: t\n"
	                                 "cluster: tests/fixtures/spec/sharp-2x8.yaml\n"
	                                 "packet: { chunking: off }\n"
	                                 "jobs:\n"
	                                 "  - name: a\n"
	                                 "    ops:\n"
	                                 "      - {op: all_reduce, size: 64MiB, algo: nvls}\n";
	struct ft_cluster_spec cs;
	struct ft_model_query q;
	struct ft_model_result r;
	struct ft_error err = { 0 };
	struct ft_sim_report rep;

	(void)state;
	assert_int_equal(ft_spec_load_buffer(spec, strlen(spec), "t.yaml", &cs, &err), 0);
	ft_model_query_init(&q, FT_OP_ALL_REDUCE, 1u << 30);
	assert_int_equal(ft_model_eval(&cs, &q, &r, &err), 0);
	assert_string_equal(r.algo_label, "nvls");
	run_ok(text, "flow", &rep);
	assert_string_equal(ft_run_row(&rep.run, 0)->algo, "nvls");
	ft_sim_report_release(&rep);
	/* the packet engine picks it as well (4 MiB on 8 DGX H100 with SHARP); with
	 * packet.chunking: off it does not build it (its flows would run whole and
	 * unordered): the pick leaves it, and forced it is refused, saying why */
	run_ok(pick4m, "packet", &rep);
	assert_string_equal(ft_run_row(&rep.run, 0)->algo, "nvls");
	ft_sim_report_release(&rep);
	run_ok(pick4m_off, "packet", &rep);
	assert_string_not_equal(ft_run_row(&rep.run, 0)->algo, "nvls");
	ft_sim_report_release(&rep);
	assert_int_equal(run_text(forced_off, "packet", &rep, &err), FT_ENOTSUP);
	assert_non_null(strstr(err.msg, "ops[0].algo: nvls across nodes is NCCL's NVLS with "
	                                "CollNet"));
	assert_non_null(strstr(err.msg, "which the packet engine builds in NCCL's chunks only, "
	                                "not with packet.chunking: off"));
	ft_sim_report_release(&rep);
	q.no_nvls_net = true;
	assert_int_equal(ft_model_eval(&cs, &q, &r, &err), 0);
	assert_int_equal(r.algo, FT_ALGO_COLLNET);
	{
		struct sc_op o = { .op = FT_OP_ALL_REDUCE, .algo = SC_ALGO_AUTO,
			           .proto = SC_PROTO_AUTO, .bytes = 1u << 30 };
		struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE, .nranks = 32,
			                  .ranks_per_node = 8, .bytes = 1u << 30 };

		assert_int_equal(ft__sim_pick_algo(&cs, &o, 1u << 30, 32, 8, false, NULL, &a), 0);
		assert_int_equal(a.algo, FT_ALGO_COLLNET);
		assert_int_equal(ft__sim_pick_algo_net(&cs, &o, 1u << 30, 32, 8, false, true, true,
		                                       NULL, &a),
		                 0);
		assert_int_equal(a.algo, FT_ALGO_NVLS);
		/* NCCL_NVLS_ENABLE=0: no NVLS at all */
		assert_int_equal(
		        ft__sim_pick_algo_net(&cs, &o, 1u << 30, 32, 8, true, true, true, NULL, &a),
		        0);
		assert_int_equal(a.algo, FT_ALGO_COLLNET);
	}
}

/*
 * The tuner's pick of a scenario's ops (ft__sim_pick_algo_net()) reads the run's model cache:
 * an all-to-all's and a send/recv's pick lay out the node's shared links (model/share.c) on
 * their first size and read them back on the others, the picks those of the uncached tuner
 * (2 PCIe L40S nodes, 1 KiB to 1 GiB by 4, one node's 8 ranks and both nodes' 16).
 */
static void
test_pick_cached(void **state)
{
	static const enum ft_op ops[] = { FT_OP_ALLTOALL, FT_OP_SENDRECV };
	static const uint32_t ranks[] = { 8, 16 };
	struct ft_model_cache *cache = ft_model_cache_new();
	struct ft_cluster_spec cs;
	struct ft_error err = { 0 };
	uint64_t hits, misses, picks = 0;

	(void)state;
	assert_non_null(cache);
	assert_int_equal(ft_spec_resolve("pcie-l40s:2", &cs, &err), 0);
	for (size_t i = 0; i < FT_ARRAY_SIZE(ops); i++) {
		for (size_t n = 0; n < FT_ARRAY_SIZE(ranks); n++) {
			for (uint64_t b = 1024; b <= (1ull << 30); b *= 4) {
				struct sc_op o = { .op = ops[i],
					           .algo = SC_ALGO_AUTO,
					           .proto = SC_PROTO_AUTO,
					           .bytes = b };
				struct ft_coll_args a = { 0 }, c = { 0 };

				assert_int_equal(ft__sim_pick_algo_net(&cs, &o, b, ranks[n], 8,
				                                       false, false, true, NULL,
				                                       &a),
				                 0);
				assert_int_equal(ft__sim_pick_algo_net(&cs, &o, b, ranks[n], 8,
				                                       false, false, true, cache,
				                                       &c),
				                 0);
				assert_int_equal(c.algo, a.algo);
				assert_int_equal(c.proto, a.proto);
				assert_int_equal(c.collnet_chain, a.collnet_chain);
				picks++;
			}
		}
	}
	ft_model_cache_stats(cache, &hits, &misses);
	print_message("# %" PRIu64 " picks: %" PRIu64 " hits, %" PRIu64 " misses\n", picks, hits,
	              misses);
	/* a layout per op and job shape at most, every other pick read from the cache */
	assert_true(misses >= 1 && misses <= FT_ARRAY_SIZE(ops) * FT_ARRAY_SIZE(ranks));
	assert_int_equal(hits + misses, picks);
	ft_model_cache_free(cache);
}

/*
 * CollNetChain in both engines against a closed form (NVIDIA/nccl src/device/all_reduce.h
 * collnet chain, src/graph/tuning.cc; kb NA-ALGO-COLLNET). On 2 x 8 H100 with SHARP a
 * 64 MiB all-reduce is CollNetChain (the tuner's pick, and the row's), 16 MiB
 * CollNetDirect. The chain's links: every GPU sends 2(ppn - 1)/ppn x S over NVLink (up
 * the chains it is not the head of, down all but the one it starts) and S / ppn through
 * its NIC, so on an uncontended fabric NVLink would bind, at the model's link term for
 * the chain, intra_Bps x ppn / (2(ppn - 1)) = 205.7 GB/s; NCCL's tuner counts its chain
 * graph's speed, 8 channels x 48 GB/s x 0.5 = 192 GB/s (tuner.c cost_collnet_chain()),
 * which paces the flows (ft__sim_collnet_cap()), as CollNetDirect's x0.85. The op takes
 * S / 192 GB/s + NCCL's latency for the chain, 2(ppn - 1) x 2.8 us + 30 us (hwLat
 * CollNetChain NVLink and NET: ft_model_collnet_chain_hops_s()) spread over the schedule's
 * 2(ppn - 1) + 2 steps, plus at most a path latency a step (the engines' per-step barrier;
 * longest path bounded by the sum of the node's and fabric's element latencies) and, in
 * the packet engine, a packet's serialisation at each end. The pace holds the loops'
 * middles alone: the stages' first chunks fill the pipeline at the links' rate, inside
 * that bound (440.13 us flow, 429.74 packet, against 418.73 to 454.14). Paced at every
 * chunk, the 15 stages after the first would each wait a period, S / 192 GB/s over NCCL's
 * 43 loops (8.13 us): 550.8 us, which this bound refuses. Before, each step paid
 * 2.8 us, the network's 30 left out, at NVLink's rate: 375.49 us against 349.54 + 69.2.
 */
static void
test_collnet_chain_closed_form(void **state)
{
	static const char spec[] =
	        "name: sharp\n"
	        "nodes: { preset: dgx-h100, count: 2 }\n"
	        "fabric: { kind: rail-fat-tree, link: ndr, tiers: 2, radix: 64, sharp: true }\n";
	static const char text[] =
	        "name: t\n"
	        "cluster:\n"
	        "  name: sharp\n"
	        "  nodes: { preset: dgx-h100, count: 2 }\n"
	        "  fabric: { kind: rail-fat-tree, link: ndr, tiers: 2, radix: 64, sharp: true }\n"
	        "jobs:\n"
	        "  - name: a\n"
	        "    ops:\n"
	        "      - {op: all_reduce, size: 16MiB, algo: collnet}\n"
	        "      - {op: all_reduce, size: 64MiB, algo: collnet}\n";
	static const char *const engines[] = { "flow", "packet" };
	struct ft_cluster_spec cs;
	struct ft_model_links l;
	struct ft_error err = { 0 };
	double S = 64.0 * 1048576, ppn = 8, steps = 2 * (ppn - 1) + 2, t_bw, t_lat, d_max, pkt, eff;

	(void)state;
	assert_int_equal(ft_spec_load_buffer(spec, strlen(spec), "t.yaml", &cs, &err), 0);
	assert_int_equal(ft_model_links_get(&cs, 0, 0, 0, &l, &err), 0);
	/* the chain graph's 8 channels x 48 GB/s x 0.5 bind, not NVLink's 360 x 8/14 */
	eff = ft_model_collnet_chain_efficiency(&l);
	assert_close(l.intra_Bps * ppn / (2 * (ppn - 1)) * eff, 192e9, 1e3);
	t_bw = S / 192e9;
	t_lat = 2 * (ppn - 1) * 2.8e-6 + 30e-6;
	assert_close(ft_model_collnet_chain_hops_s(0, 8, false, true), t_lat, 1e-12);
	d_max = 2 * cs.node.lat_nvlink_s + 2 * cs.node.lat_pcie_s + cs.node.lat_nic_s +
	        2 * cs.fabric.lat_cable_s + cs.fabric.lat_switch_s;
	pkt = 2.0 * cs.fabric.mtu_bytes / cs.node.nic_Bps;
	for (size_t e = 0; e < FT_ARRAY_SIZE(engines); e++) {
		struct ft_sim_report rep;
		const struct ft_result_row *r;
		double t;

		run_ok(text, engines[e], &rep);
		assert_string_equal(ft_run_row(&rep.run, 0)->algo, "collnet_direct");
		r = ft_run_row(&rep.run, 1);
		assert_string_equal(r->algo, "collnet_chain");
		t = r->time_us * 1e-6;
		if (!(t >= t_bw + t_lat - 1e-9 && t <= t_bw + t_lat + (steps - 1) * d_max + pkt))
			fail_msg("%s: %.3f us, closed form %.3f + %.3f us, at most %.3f more",
			         engines[e], t * 1e6, t_bw * 1e6, t_lat * 1e6,
			         ((steps - 1) * d_max + pkt) * 1e6);
		ft_sim_report_release(&rep);
	}
}

/*
 * CollNetDirect in the flow engine against a closed form (NVIDIA/nccl
 * src/device/all_reduce.h RunWorkColl for NCCL_ALGO_COLLNET_DIRECT, src/graph/tuning.cc;
 * kb NA-ALGO-COLLNET, NA-MODEL). NCCL's channel scatters to the heads, reduces into the
 * network, takes the result back and broadcasts it at once, chunk after chunk: a GPU sends
 * 2(ppn - 1)/ppn x S over NVLink (scatter and broadcast together) and S / ppn through its
 * NIC, and NCCL's price, 0.85 of NVLink's rate on Hopper, paces it (ft__sim_collnet_cap()):
 * a NIC's port counts the S / ppn NCCL moves (before, as wire bytes, S / ppn / 0.85). The
 * op takes the link term
 * S / (0.85 x intra_Bps x ppn / (2(ppn - 1))) + NCCL's latency for it over its 4 steps,
 * 2 (3.7 + 0.4 x 7) + 31 us (kb NA-MODEL hwLat CollNetDirect), plus at most its ramp
 * (three stages after the first, a chunk time each: the link term / NCCL's loops) and a
 * path latency a step. The three steps one after another would add the network's S / ppn
 * at the NIC rate (here a third more).
 */
static void
test_collnet_direct_closed_form(void **state)
{
	static const char spec[] =
	        "name: sharp\n"
	        "nodes: { preset: dgx-h100, count: 2 }\n"
	        "fabric: { kind: rail-fat-tree, link: ndr, tiers: 2, radix: 64, sharp: true }\n";
	static const char text[] =
	        "name: t\n"
	        "cluster:\n"
	        "  name: sharp\n"
	        "  nodes: { preset: dgx-h100, count: 2 }\n"
	        "  fabric: { kind: rail-fat-tree, link: ndr, tiers: 2, radix: 64, sharp: true }\n"
	        "jobs:\n"
	        "  - name: a\n"
	        "    ops:\n"
	        "      - {op: all_reduce, size: 256MiB, algo: collnet_direct}\n";
	struct ft_cluster_spec cs;
	struct ft_model_links l;
	struct ft_model_chunking ch;
	struct ft_error err = { 0 };
	struct ft_sim_report rep;
	const struct ft_result_row *r;
	double S = 256.0 * 1048576, ppn = 8, steps = 4, t_bw, t_lat, t_net, d_max, ramp, t;
	uint64_t loops;

	(void)state;
	assert_int_equal(ft_spec_load_buffer(spec, strlen(spec), "t.yaml", &cs, &err), 0);
	assert_int_equal(ft_model_links_get(&cs, 0, 0, 0, &l, &err), 0);
	assert_close(ft_model_collnet_direct_efficiency(&cs), 0.85, 1e-12);
	t_bw = S / (0.85 * l.intra_Bps * ppn / (2 * (ppn - 1)));
	t_net = S / ppn / cs.node.nic_Bps;
	t_lat = (2 * (3.7 + 0.4 * 7) + 31) * 1e-6;
	l.nnodes = 2;
	l.ppn = 8;
	l.nranks = 16;
	loops = ft_model_collnet_chunking(&l, (uint64_t)S, false, &ch);
	assert_true(loops > 1);
	ramp = 3 * t_bw / (double)loops;
	d_max = 2 * cs.node.lat_nvlink_s + 2 * cs.node.lat_pcie_s + cs.node.lat_nic_s +
	        2 * cs.fabric.lat_cable_s + cs.fabric.lat_switch_s;
	run_ok(text, "flow", &rep);
	r = ft_run_row(&rep.run, 0);
	assert_string_equal(r->algo, "collnet_direct");
	t = r->time_us * 1e-6;
	if (!(t >= t_bw + t_lat - 1e-9 && t <= t_bw + t_lat + ramp + steps * d_max))
		fail_msg("flow: %.3f us, closed form %.3f + %.3f us, at most %.3f more (one after "
		         "another: %.3f more)",
		         t * 1e6, t_bw * 1e6, t_lat * 1e6, (ramp + steps * d_max) * 1e6,
		         t_net * 1e6);
	assert_true(ramp + steps * d_max < 0.5 * t_net);
	assert_close(port_bytes(&rep, "n0.nic0 -> leaf0"), S / ppn, S / ppn * 1e-6);
	assert_close(port_bytes(&rep, "n1.nic7 -> leaf7"), S / ppn, S / ppn * 1e-6);
	ft_sim_report_release(&rep);
}

/*
 * NVLS across nodes, NVLS with CollNet (ft__sim_nvls_collnet(); NVIDIA/nccl
 * src/device/all_reduce.h RunWorkColl NVLS, the branch with nvls->out, src/graph/connect.cc
 * connectNvls), on 2 DGX H100 with SHARP, all-reduce of S = 256 MiB: every GPU is the head
 * of its NIC, so each of the 16 NICs' host links carries its head's share S / 8 once up to
 * the switches and once down (4 S on the host links, nothing on the leaf-spine links:
 * SHARP reduces at the switches), each GPU's PCIe link to its NIC S / 8 each way, and each
 * GPU's NVLink to the NVSwitch S + S / 8 each way (its scatter and gather of S, its load of
 * the reduced share and its multicast store) over NCCL's NVLS efficiency and channel
 * share. The op takes at least S over NCCL's price of it (ft__sim_nvls_net_cap(): the
 * model's tuner bandwidth) plus its latency, and at most its ramp more (three stages
 * after the first, a loop at that pace each) and a path latency per step.
 */
static void
test_nvls_net_closed_form(void **state)
{
	static const char text[] =
	        "name: t\n"
	        "cluster:\n"
	        "  name: sharp\n"
	        "  nodes: { preset: dgx-h100, count: 2 }\n"
	        "  fabric: { kind: rail-fat-tree, link: ndr, sharp: true }\n"
	        "jobs:\n"
	        "  - name: a\n"
	        "    ops:\n"
	        "      - {op: all_reduce, size: 256MiB, algo: nvls}\n";
	static const char spec[] = "name: sharp\n"
	                           "nodes: { preset: dgx-h100, count: 2 }\n"
	                           "fabric: { kind: rail-fat-tree, link: ndr, sharp: true }\n";
	double S = 256.0 * 1048576, e, nvl = 0, t, t_bw, loop;
	struct ft_cluster_spec cs;
	struct ft_model_query q;
	struct ft_model_result m;
	struct ft_sim_report rep;
	struct ft_error err = { 0 };
	const struct ft_result_row *r;
	uint32_t host = 0, pcie = 0, nvlinks = 0;
	size_t i;

	(void)state;
	assert_int_equal(ft_spec_load_buffer(spec, strlen(spec), "t.yaml", &cs, &err), 0);
	/* NCCL's loops (ft_model_nvls_net_chunking()): 16 channels x 8 heads of a 128 KiB
	 * chunk at 1 GiB (64 loops); below 64 chunks a pipe 64 KiB (256 MiB: 32 loops);
	 * below 2, 16 KiB (1 MiB: one loop) */
	{
		static const uint64_t b[] = { 1u << 30, 256u << 20, 1u << 20 };
		static const uint64_t chunk[] = { 131072, 65536, 16384 }, loops[] = { 64, 32, 1 };
		struct ft_model_links l;
		struct ft_model_chunking ch;

		assert_int_equal(ft_model_links_get(&cs, 16, 2, 8, &l, &err), 0);
		for (i = 0; i < FT_ARRAY_SIZE(b); i++) {
			assert_int_equal(ft_model_nvls_net_chunking(&l, b[i], &ch), loops[i]);
			assert_int_equal(ch.chunk_bytes, chunk[i]);
		}
	}
	e = ft_model_nvls_efficiency(&cs) * ft_model_nvls_channel_share(&cs, 16);
	assert_true(e > 0.5 && e < 1);
	run_ok(text, "flow", &rep);
	r = ft_run_row(&rep.run, 0);
	assert_string_equal(r->algo, "nvls");
	for (i = 0; i < rep.ports.len; i++) {
		const struct ft_sim_hot_link *h = ft_vec_at(&rep.ports, i);

		if (strcmp(h->kind, "host") == 0) {
			assert_close(h->stat.bytes, S / 8, 1e-6 * S);
			host++;
		} else if (strcmp(h->kind, "pcie") == 0) {
			assert_close(h->stat.bytes, S / 8, 1e-6 * S);
			pcie++;
		} else if (strcmp(h->kind, "nvlink") == 0) {
			assert_close(h->stat.bytes, (S + S / 8) / e, 1e-6 * S);
			nvl += h->stat.bytes;
			nvlinks++;
		} else {
			fail_msg("%s (%s) carried %.0f bytes", h->name, h->kind, h->stat.bytes);
		}
	}
	/* 16 NICs up and down; 16 GPUs to their NICs and back (PCIe); 16 GPUs to the
	 * NVSwitch and back */
	assert_int_equal(host, 32);
	assert_int_equal(pcie, 64);
	assert_int_equal(nvlinks, 32);
	assert_close(tier_bytes(&rep, "host", 1), 4 * S, 1e-6 * S);
	assert_true(tier_bytes(&rep, "fabric", 2) == 0);
	assert_close(nvl, 32 * (S + S / 8) / e, 1e-5 * S);
	/* the time: NCCL's price of it, its latency, at most its ramp and a path a step */
	ft_model_query_init(&q, FT_OP_ALL_REDUCE, (uint64_t)S);
	q.ngpus = 16;
	q.ppn = 8;
	q.nnodes = 2;
	q.force_algo = q.force_proto = q.tuner_only = true;
	q.algo = FT_ALGO_NVLS;
	q.proto = FT_PROTO_SIMPLE;
	assert_int_equal(ft_model_eval(&cs, &q, &m, &err), 0);
	t_bw = S / m.bw_Bps;
	loop = t_bw / 32; /* 32 loops of 16 channels x 8 heads x 64 KiB */
	t = r->time_us * 1e-6;
	if (!(t >= t_bw + m.lat_s - 1e-9 && t <= t_bw + m.lat_s + 3 * loop + 4e-6))
		fail_msg("flow: %.3f us, closed form %.3f + %.3f us, ramp %.3f us", t * 1e6,
		         t_bw * 1e6, m.lat_s * 1e6, 3 * loop * 1e6);
	ft_sim_report_release(&rep);
}

/* Whether the flow engine pays @m's pipeline: it runs an NVLS tree or a CollNet all-reduce
 * in NCCL's chunks (engine_flow.c pipe_chunks()), and a ring's or tree's ramp and proxy
 * floor over its whole flows on every transport, NVLS's ramp inside one node or NVLink
 * domain (whole_pipe()), and a send/recv or an all-to-all between nodes at NCCL's window. */
static bool
model_pipelines(const struct ft_cluster_spec *spec, const struct ft_model_result *m)
{
	(void)spec;
	if (m->op == FT_OP_ALL_REDUCE &&
	    (m->algo == FT_ALGO_NVLS_TREE || m->algo == FT_ALGO_COLLNET))
		return true;
	if (m->algo == FT_ALGO_NVLS)
		return true; /* in one node its ramp; across nodes NCCL's loops (pipe_chunks()) */
	if (m->op == FT_OP_SENDRECV && m->nnodes > 1)
		return true; /* both engines hold a send to NCCL's window (p2p_window(), eval.c) */
	if (m->op == FT_OP_ALLTOALL && m->nnodes > 1)
		return true; /* and an all-to-all's sends, sharing slots (a2a_window(), eval.c) */
	return (m->algo == FT_ALGO_RING || m->algo == FT_ALGO_TREE) && m->op != FT_OP_ALLTOALL &&
	       m->op != FT_OP_SENDRECV;
}

/*
 * Without --algo the flow engine runs what NCCL's tuner picks, the model's
 * choice, size by size: at 1,984 ranks (248 DGX H100) a 256 MiB all-reduce
 * is NVLSTree (about 295 GB/s busbw in both), not a ring of 3,966 steps
 * (37 GB/s); small sizes take the tree, as in the model.
 */
static void
test_flow_picks_as_the_tuner(void **state)
{
	static const uint64_t sizes[] = { 4096, 1u << 20, 256u << 20 };
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };
	size_t i;

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100:248", &spec, &err), 0);
	for (i = 0; i < FT_ARRAY_SIZE(sizes); i++) {
		struct ft_sim_sweep_args sw = { .spec = "dgx-h100:248",
			                        .op = FT_OP_ALL_REDUCE,
			                        .algo = FT_ALGO_COUNT,
			                        .proto = FT_PROTO_COUNT,
			                        .min_bytes = sizes[i],
			                        .max_bytes = sizes[i] };
		struct ft_scenario *sc = NULL;
		struct ft_sim_overrides ov;
		struct ft_sim_report rep;
		struct ft_model_query q;
		struct ft_model_result m;
		const struct ft_result_row *r;

		ft_model_query_init(&q, FT_OP_ALL_REDUCE, sizes[i]);
		q.tuner_only = true; /* the pick; an NVLS tree's time with its pipeline */
		assert_int_equal(ft_model_eval(&spec, &q, &m, &err), 0);
		if (model_pipelines(&spec, &m)) {
			q.tuner_only = false;
			assert_int_equal(ft_model_eval(&spec, &q, &m, &err), 0);
		}
		assert_int_equal(ft_scenario_from_op(&sw, &sc, &err), 0);
		ft_sim_overrides_init(&ov);
		ft_sim_report_init(&rep);
		assert_int_equal(ft_scenario_run(sc, &ov, NULL, &rep, &err), 0);
		r = ft_run_row(&rep.run, 0);
		assert_string_equal(r->algo, ft_algo_name(m.algo));
		assert_string_equal(r->proto, ft_proto_name(m.proto));
		if (sizes[i] >= (256u << 20)) {
			assert_string_equal(r->algo, "nvls_tree");
			assert_close(r->busbw_GBps, m.busbw_Bps / 1e9, 0.1 * m.busbw_Bps / 1e9);
		}
		ft_sim_report_release(&rep);
		ft_scenario_free(sc);
	}
}

static char model_bottleneck[16]; /* of the last busbw() by the model */
static char flow_bottleneck[32];  /* of the last busbw() by an engine: its row's column */
static char flow_algo[32];        /* of the last busbw() by an engine: its row's algo */
static uint32_t busbw_channels;   /* NCCL channels busbw() asks for (0: the default) */
static uint32_t busbw_ranks;      /* ranks busbw() asks for (0: every GPU) */
static bool busbw_no_nvls;        /* busbw() with NVLink SHARP off (NCCL_NVLS_ENABLE=0) */
/* busbw() of FT_ALGO_COLLNET: the variant forced, or the tuner's (FT_COLLNET_AUTO) */
static enum ft_collnet_variant busbw_collnet = FT_COLLNET_AUTO;
static bool busbw_tuner_only;     /* busbw()'s model without its pipeline, whatever the pick */
static double busbw_time_us;      /* the time of busbw()'s last answer, us */
static int busbw_routing = -1;     /* the flow engine's routing (enum ft_routing; -1: the spec's) */
/* busbw()'s NCCL release, ft_model_query's encoding, the model's and the engine's
 * (--nccl); 0: the newest */
static uint32_t busbw_nccl;

/* The last busbw() asked: what an agreement check names. */
static char busbw_last[160];

/* The flow engine's worst disagreement with the model in the agreement sweeps (flow busbw /
 * model busbw - 1), and what it was, since agree_reset(). */
static double agree_worst;
static char agree_what[160];

static void
agree_reset(void)
{
	agree_worst = 0;
	agree_what[0] = '\0';
}

/* flow @f against model @m (busbw): within 10%, the worst one noted. */
static void
assert_agree_(double f, double m, const char *file, int line)
{
	if (fabs(f / m - 1) > fabs(agree_worst)) {
		agree_worst = f / m - 1;
		snprintf(agree_what, sizeof(agree_what), "%s", busbw_last);
	}
	assert_close_(f, m, 0.10 * m, file, line);
}
#define assert_agree(f, m) assert_agree_((f), (m), __FILE__, __LINE__)

/* busbw of one op of @bytes on @spec by @engine ("flow") or, for NULL, the model. */
static double
busbw(const char *spec, enum ft_op op, int algo, int proto, uint64_t bytes, const char *engine)
{
	struct ft_error err = { 0 };
	double bw;
	const char *base = strrchr(spec, '/');

	snprintf(busbw_last, sizeof(busbw_last), "%s %s %s %llu B, %u channels (0: NCCL's)",
	         base ? base + 1 : spec, ft_op_name(op),
	         algo >= 0 ? ft_algo_name((enum ft_algo)algo) : "(tuner)",
	         (unsigned long long)bytes, busbw_channels);

	if (!engine) {
		struct ft_cluster_spec cs;
		struct ft_model_query q;
		struct ft_model_result m;

		assert_int_equal(ft_spec_resolve(spec, &cs, &err), 0);
		ft_model_query_init(&q, op, bytes);
		/* The flow engine runs an NVLS tree or CollNet all-reduce in NCCL's chunks, the
		 * first chunk through every stage, and a ring or tree whole with the model's ramp
		 * and proxy floor: the model's time with its pipeline (model_pipelines()); other
		 * picks (NVLS in one node, PAT, all-to-all, send/recv) the tuner's time. */
		q.tuner_only = true;
		q.force_algo = algo >= 0;
		q.algo = algo >= 0 ? (enum ft_algo)algo : FT_ALGO_RING;
		q.force_proto = proto >= 0;
		q.proto = proto >= 0 ? (enum ft_proto)proto : FT_PROTO_SIMPLE;
		q.nchannels = busbw_channels;
		q.ngpus = busbw_ranks;
		q.nvls_off = busbw_no_nvls;
		q.collnet = busbw_collnet;
		q.nccl_version = busbw_nccl;
		if (ft_model_eval(&cs, &q, &m, &err) < 0)
			print_error("%s\n", err.msg);
		if (model_pipelines(&cs, &m) && !busbw_tuner_only) {
			q.tuner_only = false; /* the same pick, with its pipeline */
			if (ft_model_eval(&cs, &q, &m, &err) < 0)
				print_error("%s\n", err.msg);
		}
		assert_true(m.time_s > 0);
		memcpy(model_bottleneck, m.bottleneck, sizeof(model_bottleneck));
		busbw_time_us = m.time_s * 1e6;
		return m.busbw_Bps / 1e9;
	}
	{
		struct ft_sim_sweep_args sw = {
			.spec = spec,
			.op = op,
			.algo = algo >= 0 ? (enum ft_algo)algo : FT_ALGO_COUNT,
			.proto = proto >= 0 ? (enum ft_proto)proto : FT_PROTO_COUNT,
			.min_bytes = bytes,
			.max_bytes = bytes,
			.channels = busbw_channels,
			.nranks = busbw_ranks,
			.collnet = busbw_collnet
		};
		struct ft_scenario *sc = NULL;
		struct ft_sim_overrides ov;
		struct ft_sim_report rep;
		int rc;

		assert_int_equal(ft_scenario_from_op(&sw, &sc, &err), 0);
		ft_sim_overrides_init(&ov);
		ov.engine = engine;
		ov.no_nvls = busbw_no_nvls;
		ov.routing = busbw_routing;
		ov.nccl_version = busbw_nccl;
		ft_sim_report_init(&rep);
		rc = ft_scenario_run(sc, &ov, NULL, &rep, &err);
		if (rc < 0)
			print_error("%s: %s\n", spec, err.msg);
		assert_int_equal(rc, 0);
		bw = ft_run_row(&rep.run, 0)->busbw_GBps;
		busbw_time_us = ft_run_row(&rep.run, 0)->time_us;
		ft_strlcpy(flow_bottleneck, ft_run_row(&rep.run, 0)->bottleneck,
		           sizeof(flow_bottleneck));
		ft_strlcpy(flow_algo, ft_run_row(&rep.run, 0)->algo, sizeof(flow_algo));
		ft_sim_report_release(&rep);
		ft_scenario_free(sc);
	}
	return bw;
}

static struct ft_model_result model_pick(const char *spec, enum ft_op op, enum ft_algo algo,
                                         uint64_t bytes);

/*
 * On one DGX H100 the flow engine runs NVLink at the ring graph NCCL packs on
 * its 18 links of 20.6 GB/s (kb NA-MODEL; 6 channels of 60 = 360 GB/s), not the
 * raw 450: a 1 GiB ring reaches about 360 GB/s busbw, and NVLS 360 x 0.85 x 2 x
 * 7/9 = 476 (kb NA-ALGO-NVLS), not 700, once the time leaves out NVLS's ramp (the
 * model's, 1 GiB: 123.4 us of 4,096.5).
 */
static void
test_nvlink_at_nccl_rates(void **state)
{
	double ring = busbw("dgx-h100", FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30,
	                    "flow");
	struct ft_model_result m = model_pick("dgx-h100", FT_OP_ALL_REDUCE, FT_ALGO_NVLS, 1u << 30);
	double nvls = busbw("dgx-h100", FT_OP_ALL_REDUCE, FT_ALGO_NVLS, FT_PROTO_SIMPLE, 1u << 30,
	                    "flow");

	(void)state;
	assert_true(m.pipe.ramp_s > 0);
	print_message("# nvls 1 GiB: flow %.1f us, ramp %.1f us\n", busbw_time_us,
	              m.pipe.ramp_s * 1e6);
	nvls *= busbw_time_us / (busbw_time_us - m.pipe.ramp_s * 1e6);
	assert_close(ring, 360, 360 * 0.02);
	assert_close(nvls, 360 * 0.85 * 14 / 9, 360 * 0.85 * 14 / 9 * 0.02);
}

/*
 * On nodes without NVLink a step inside a node costs hwLat[PCI], as NCCL's tuner reads the
 * graph's intra link (src/graph/tuning.cc ncclTopoTuneModel(): typeIntra; kb NA-MODEL) and
 * the model's hop_lats_of() takes it: 1.0 us a ring LL step where NVLink's is 0.6. The flow
 * engine's ring steps pay the same, so on PCIe L40S nodes its LL times stay within
 * [-2, +1] us of the model's (the 1.8 us it runs under on 2 nodes is the share dgx-a100:2
 * shows too). With NVLink's figure on every node it ran 7.4 us under on 2 nodes' reduce of
 * 64 KiB (15 steps x 0.4 us less, and the pipeline's), 5.2 us under on one node's
 * all-reduce of 8 KiB.
 */
static void
test_pcie_steps_at_pci_latency(void **state)
{
	static const struct {
		const char *spec;
		enum ft_op op;
		uint64_t bytes;
	} cases[] = { { "pcie-l40s:2", FT_OP_REDUCE, 64u << 10 },
		      { "pcie-l40s:2", FT_OP_BROADCAST, 64u << 10 },
		      { "pcie-l40s:1", FT_OP_ALL_REDUCE, 8u << 10 },
		      { "pcie-l40s:1", FT_OP_REDUCE, 64u << 10 } };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double f, m;

		busbw(cases[i].spec, cases[i].op, FT_ALGO_RING, FT_PROTO_LL, cases[i].bytes,
		      "flow");
		f = busbw_time_us;
		busbw(cases[i].spec, cases[i].op, FT_ALGO_RING, FT_PROTO_LL, cases[i].bytes, NULL);
		m = busbw_time_us;
		print_message("# %s: flow %.2f us, model %.2f us\n", busbw_last, f, m);
		if (f < m - 2.0 || f > m + 1.0)
			fail_msg("%s: flow %.2f us against the model's %.2f, want [-2, +1] us",
			         busbw_last, f, m);
	}
}

/* The time of an all-to-all of 8 KiB among the 8 GPUs of one PCIe L40S node on @ops, LL,
 * its schedule as the runner releases it (steps at hwLat[PCI]) but its intra, the row its
 * messages inside the node read, @intra, seconds; @eager: the packet engine builds it whole
 * (p2p_alltoall(), FABTUNE_SIM_EAGER=1) rather than as its sends start (lazy_submit()). */
static double
pcie_a2a_time(const struct ft_engine_ops *ops, enum ft_hw_link intra, bool eager)
{
	struct ft_coll_args a = { .op = FT_OP_ALLTOALL,
		                  .algo = FT_ALGO_DIRECT,
		                  .proto = FT_PROTO_LL,
		                  .nranks = 8,
		                  .ranks_per_node = 8,
		                  .bytes = 8u << 10 };
	struct ft_cluster_spec cs;
	struct ft_error err = { 0 };
	struct ft_topo *t = NULL;
	struct ft_engine *e = NULL;
	struct ft_sim_counters c;
	struct ft_schedule s;
	struct ft_sim_cfg cfg;
	uint32_t gpus[8];
	struct ft_sim_op op = { .sched = &s, .rank_gpu = gpus, .after = -1 };
	double time_s;

	assert_int_equal(ft_spec_resolve("pcie-l40s:1", &cs, &err), 0);
	assert_int_equal(ft_topo_build(&cs, &t, &err), 0);
	assert_int_equal(ft__sim_prepare_topo(t, ops, &err), 0);
	for (uint32_t i = 0; i < 8; i++)
		gpus[i] = ft_topo_gpu(t, 0, i);
	ft_schedule_init(&s);
	assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
	assert_int_equal(ft__sim_release_lats(&cs, &s, false), 0);
	assert_int_equal(s.intra, FT_HW_PCI);
	s.intra = intra;
	ft_sim_cfg_init(&cfg);
	if (eager)
		setenv("FABTUNE_SIM_EAGER", "1", 1);
	assert_int_equal(ops->create(t, &cfg, &e, &err), 0);
	unsetenv("FABTUNE_SIM_EAGER");
	assert_true(ops->submit(e, &op, &err) >= 0);
	if (ops->run(e, 0, &err) != 0)
		fail_msg("run: %s", err.msg);
	assert_int_equal(ops->counters(e, &c, &err), 0);
	time_s = c.ops[0].t_end_s - c.ops[0].t_start_s;
	ops->destroy(e);
	ft_schedule_release(&s);
	ft_topo_free(t);
	return time_s;
}

/*
 * An all-to-all's message inside a node costs hwLat of the node's intra link, as NCCL's
 * tuner reads the graph's typeIntra (src/graph/tuning.cc ncclTopoTuneModel(); kb NA-MODEL)
 * and the model's a2a_fixed() prices each window: on a PCIe node 1.0 us a message on LL
 * where NVLink's is 0.6. The flow and packet engines read the schedule's intra, which the
 * release sets from the node: the same all-to-all of 8 KiB on one pcie-l40s node (its steps
 * at hwLat[PCI] both times) runs one window, 0.4 us, longer with the PCI row than with
 * NVLink's (the 7 peers all in flight), on the flow engine and on the packet engine built
 * as its sends start (lazy_submit()) or whole (p2p_alltoall()). Both engines took NVLink's
 * row on every node before, the two times equal (10.14 us the flow engine's).
 */
static void
test_pcie_a2a_messages_at_pci_latency(void **state)
{
	static const struct {
		const struct ft_engine_ops *ops;
		bool eager;
		const char *name;
	} runs[] = { { &ft_flow_engine, false, "flow" },
		     { &ft_packet_engine, false, "packet, lazy" },
		     { &ft_packet_engine, true, "packet, eager" } };
	double d_row = ft_coll_hw_latency(FT_HW_PCI, FT_ALGO_DIRECT, FT_PROTO_LL) -
	               ft_coll_hw_latency(FT_HW_NVLINK, FT_ALGO_DIRECT, FT_PROTO_LL);

	(void)state;
	assert_close(d_row, 0.4e-6, 1e-12);
	for (size_t k = 0; k < FT_ARRAY_SIZE(runs); k++) {
		double nv = pcie_a2a_time(runs[k].ops, FT_HW_NVLINK, runs[k].eager),
		       pci = pcie_a2a_time(runs[k].ops, FT_HW_PCI, runs[k].eager);

		print_message("# %s: NVLink row %.3f us, PCI row %.3f us\n", runs[k].name, nv * 1e6,
		              pci * 1e6);
		if (fabs(pci - nv - d_row) > 1e-11)
			fail_msg("%s: PCI row %.3f us against NVLink's %.3f, want one window "
			         "of %.1f us more",
			         runs[k].name, pci * 1e6, nv * 1e6, d_row * 1e6);
	}
}

/*
 * The simulator's runner builds every schedule with the step of the node's intra link
 * (ft__sim_intra_link(), the release's reading): the schedule's own step_lat_s, which an
 * engine reads before the release, is hwLat[PCI] on a PCIe node and the release sets the
 * same intra; NVLink's on a DGX H100 and for NVLS. Before, the schedule took NVLink's
 * on every node until the release replaced it.
 */
static void
test_release_reads_the_node_link(void **state)
{
	static const struct {
		const char *spec;
		enum ft_algo algo;
		enum ft_proto proto;
		enum ft_hw_link want;
	} cases[] = { { "pcie-l40s:1", FT_ALGO_RING, FT_PROTO_LL, FT_HW_PCI },
		      { "pcie-l40s:2", FT_ALGO_RING, FT_PROTO_SIMPLE, FT_HW_PCI },
		      { "dgx-h100:2", FT_ALGO_RING, FT_PROTO_LL, FT_HW_NVLINK },
		      { "dgx-h100:1", FT_ALGO_NVLS, FT_PROTO_SIMPLE, FT_HW_NVLINK } };

	(void)state;
	for (size_t i = 0; i < FT_ARRAY_SIZE(cases); i++) {
		struct ft_cluster_spec cs;
		struct ft_error err = { 0 };
		struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
			                  .algo = cases[i].algo,
			                  .proto = cases[i].proto,
			                  .nranks = 8,
			                  .ranks_per_node = 8,
			                  .bytes = 1u << 20 };
		struct ft_schedule s;
		double before;

		assert_int_equal(ft_spec_resolve(cases[i].spec, &cs, &err), 0);
		assert_int_equal(ft__sim_intra_link(&cs, cases[i].algo, &a.intra), 0);
		assert_int_equal(a.intra, cases[i].want);
		ft_schedule_init(&s);
		assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
		before = s.step_lat_s;
		assert_close(before, ft_coll_hw_latency(cases[i].want, cases[i].algo, cases[i].proto),
		             1e-15);
		assert_int_equal(ft__sim_release_lats(&cs, &s, false), 0);
		assert_int_equal(s.intra, cases[i].want);
		/* the release's rows are the newest release's, the kb's: the same step */
		assert_close(s.step_lat_s, before, 1e-15);
		ft_schedule_release(&s);
	}
}

/*
 * Where the flow engine's kernel cap binds (ft__sim_kernel_cap(): the model's bandwidth term
 * as the rate of each ring or tree connection, ft_model_kernel_algbw()), the bottleneck
 * column names it, "kernel:" and the protocol, not the first link of the capped flows. One
 * GB200 NVL72 rack, ring all-reduce of 1 GiB: on LL NCCL's kernel moves min(720 x 0.5,
 * llMaxBws 282) = 282 GB/s busbw (kb NA-PROTO-LL), which the links' 720 x 0.5 wire share
 * would pass, so the cap holds every flow; on LL128 the tuner's rate holds too. On Simple
 * over all its channels there is no cap and NVLink binds; 2 DGX H100 on Simple, the NICs'
 * or NVLink's class as before.
 */
static void
test_flow_names_the_kernel_cap(void **state)
{
	double bw;

	(void)state;
	bw = busbw("gb200-nvl72:18", FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_LL, 1u << 30,
	           "flow");
	assert_string_equal(flow_bottleneck, "kernel:ll");
	assert_close(bw, 282, 282 * 0.02);
	busbw("gb200-nvl72:18", FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_LL128, 1u << 30, "flow");
	assert_string_equal(flow_bottleneck, "kernel:ll128");
	busbw("gb200-nvl72:18", FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30,
	      "flow");
	assert_string_equal(flow_bottleneck, "nvlink");
	busbw("dgx-h100:2", FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30, "flow");
	assert_true(strncmp(flow_bottleneck, "kernel:", 7) != 0);
	assert_true(flow_bottleneck[0] != '\0');
}

static const char mtu_spec[] = "name: roce-mtu\n"
                               "nodes: { preset: dgx-h100, count: 2, pcie: { gen: 6 },\n"
                               "         nics: { count: 1, link: roce400 } }\n"
                               "fabric: { kind: rail-fat-tree, link: roce400, tiers: 2,\n"
                               "          radix: 64, mtu: %u }\n";

/* Write @mtu_spec with @mtu into a file under the build's temporary folder; its path. */
static const char *
mtu_file(uint32_t mtu, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/simmodel-mtu-%u.yaml", ft_test_build_root(), mtu);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, mtu_spec, mtu);
	fclose(f);
	return path;
}

/*
 * fabric.mtu sets the payload share of every packet on the NIC and fabric
 * links (kb ROCE-WIRE: 62 header bytes + 20 of preamble and gap on RoCEv2):
 * with one 400G NIC per node binding, a ring at MTU 1024 runs at
 * (1024/1106) / (4096/4178) = 0.944 of its rate at 4096, in both engines.
 */
static void
test_fabric_mtu_counts(void **state)
{
	char p1[512], p4[512];
	double want = (1024.0 / 1106) / (4096.0 / 4178), f1, f4, m1, m4;

	(void)state;
	mtu_file(1024, p1, sizeof(p1));
	mtu_file(4096, p4, sizeof(p4));
	f1 = busbw(p1, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30, "flow");
	f4 = busbw(p4, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30, "flow");
	m1 = busbw(p1, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30, NULL);
	m4 = busbw(p4, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30, NULL);
	assert_close(f1 / f4, want, 0.003);
	assert_close(m1 / m4, want, 0.003);
	/* One NIC per node: the model and the flow engine agree (the NIC binds). */
	assert_close(f4, m4, 0.02 * m4);
	assert_close(busbw(p4, FT_OP_SENDRECV, -1, -1, 1u << 30, "flow"),
	             busbw(p4, FT_OP_SENDRECV, -1, -1, 1u << 30, NULL), 0.02 * m4);
	remove(p1);
	remove(p4);
}

/* Write @text to a spec file under the build root; its path into @path. */
static void
spec_file(const char *name, const char *text, char *path, size_t len)
{
	FILE *fp;

	snprintf(path, len, "%s/%s", ft_test_build_root(), name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* @nodes DGX H100 with SHARP on an NDR rail fat-tree (name sharp-@nodes) written to the spec
 * file @name; its path into @path. */
static void
sharp_spec(unsigned nodes, const char *name, char *path, size_t len)
{
	char text[256];

	snprintf(text, sizeof(text),
	         "name: sharp-%u\n"
	         "nodes: { preset: dgx-h100, count: %u }\n"
	         "fabric: { kind: rail-fat-tree, link: ndr, sharp: true }\n",
	         nodes, nodes);
	spec_file(name, text, path, len);
}

/* Two one-GPU DGX H100 nodes on an NDR fat-tree with @cable of cable latency (a YAML
 * duration) written to the spec file @name; its path into @path. */
static void
two_gpus_file(const char *name, const char *cable, char *path, size_t len)
{
	char text[256];

	snprintf(text, sizeof(text),
	         "name: two-gpus\n"
	         "nodes: { preset: dgx-h100, count: 2, gpus: 1 }\n"
	         "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64, "
	         "cable_latency: %s }\n",
	         cable);
	spec_file(name, text, path, len);
}

/* Two 8-GPU nodes on 50G NICs: one NIC per GPU, or four (nics.per_gpu, the AWS p5 layout);
 * one leaf holds every NIC, so no ECMP collision on the spines hides the NICs' rate. */
static const char one_nic_per_gpu[] =
        "name: one-per-gpu\n"
        "nodes: { preset: dgx-h100, count: 2, nics: { count: 8, rate: 50Gbps } }\n"
        "fabric: { kind: fat-tree, radix: 128, tiers: 2, rate: 50Gbps }\n";
static const char four_nics_per_gpu[] =
        "name: p5-like\n"
        "nodes: { preset: dgx-h100, count: 2, nics: { count: 32, rate: 50Gbps, per_gpu: 4 } }\n"
        "fabric: { kind: fat-tree, radix: 128, tiers: 2, rate: 50Gbps }\n";

/* One DGX H100 beside four 4-GPU H100 nodes with two 200G NICs each. */
static const char mixed_five_text[] =
        "name: mixed-five\n"
        "nodes:\n"
        "  - { preset: dgx-h100, count: 1 }\n"
        "  - { preset: dgx-h100, count: 4, gpus: 4, nics: { count: 2, rate: 200Gbps } }\n"
        "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n";

/*
 * Nodes of different GPU counts (1 x 8 + 4 x 4 GPUs): the tuner's pick, which
 * the flow engine runs too (an NVLS tree for the all-reduce, rings for the
 * others), at 256 MiB and 1 GiB: the two agree within 10%.
 */
static void
flow_agrees_on_uneven_nodes(void)
{
	static const enum ft_op ops[] = { FT_OP_ALL_REDUCE, FT_OP_ALL_GATHER, FT_OP_REDUCE_SCATTER,
		                          FT_OP_BROADCAST };
	char five[512];
	size_t j, k;

	spec_file("simmodel-five.yaml", mixed_five_text, five, sizeof(five));
	for (j = 0; j < FT_ARRAY_SIZE(ops); j++)
		for (k = 0; k < 2; k++) {
			uint64_t b = k ? 1u << 30 : 256u << 20;
			double m = busbw(five, ops[j], -1, -1, b, NULL);
			double f = busbw(five, ops[j], -1, -1, b, "flow");

			if (fabs(f / m - 1) > 0.10)
				print_error("uneven %s %llu: flow %.2f model %.2f GB/s\n",
				            ft_op_name(ops[j]), (unsigned long long)b, f, m);
			assert_agree(f, m);
		}
	remove(five);
}

/*
 * The tree on 4 forced channels (NCCL_MIN/MAX_NCHANNELS=4), Simple, 2 and 4 DGX H100: NCCL
 * puts tree 0 on all 4 (src/graph/connect.cc ncclTopoPostset(): tree 1 only from channel
 * 8, the graph's count), each carrying S / 4, a connection at half the channel's share (the
 * tree's x0.5 in src/graph/tuning.cc), lifted by 8/7 on 2 nodes as the model's own carried
 * factor lifts a 2-node chain (no rule of NCCL's; without it the 2-node flow times are
 * 10.8-14.0 % over the model's). Both engines within 10 % of the model with its pipeline.
 * Before, both trees on every channel (S / 8
 * a copy, each connection at the whole share): 2 nodes 256 MiB flow 2,308.6 us against
 * the model's 7,223.5 (3.1 x).
 */
static void
test_flow_agrees_on_forced_trees(void **state)
{
	static const char *const specs[] = { "dgx-h100:2", "dgx-h100:4" };
	static const uint64_t sizes[] = { 64u << 20, 256u << 20, 1u << 30 };
	static const char *const engines[] = { "flow", "packet" };
	static const uint32_t releases[] = { 0, 21899 };
	size_t i, k, e, v;

	(void)state;
	busbw_channels = 4;
	for (v = 0; v < FT_ARRAY_SIZE(releases); v++)
		for (i = 0; i < FT_ARRAY_SIZE(specs); i++)
			for (k = 0; k < FT_ARRAY_SIZE(sizes); k++) {
				double m, mt, f[2], t[2];

				/* 2.18 at 64 and 256 MiB: the depth rule's chunk on the forced channels */
				busbw_nccl = releases[v];
				if (releases[v] && sizes[k] > (256u << 20))
					continue;

				m = busbw(specs[i], FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_SIMPLE,
				          sizes[k], NULL);
				mt = busbw_time_us;
				for (e = 0; e < 2; e++) {
					f[e] = busbw(specs[i], FT_OP_ALL_REDUCE, FT_ALGO_TREE,
					             FT_PROTO_SIMPLE, sizes[k], engines[e]);
					t[e] = busbw_time_us;
				}
				print_message("# %s tree 4 channels %4llu MiB, release %u: model %.1f, flow "
				              "%.2f (%+.1f%%), packet %.2f us (%+.1f%%)\n",
				              specs[i], (unsigned long long)(sizes[k] >> 20), releases[v],
				              mt, t[0], 100 * (t[0] / mt - 1), t[1],
				              100 * (t[1] / mt - 1));
				assert_agree(f[0], m);
				assert_close(f[1], m, 0.10 * m);
			}
	busbw_channels = 0;
	busbw_nccl = 0;
}

/*
 * The tree on 4 and 12 forced channels over nodes of different GPU counts (one DGX H100,
 * four 4-GPU nodes of two 200G NICs: ft__sim_tree_uneven(), channelized one tree a channel,
 * test_forced_trees_on_uneven_nodes in test_pkttree.c): the small nodes' NICs bind, and the
 * flow and packet engines agree within 10 % at 64 and 256 MiB (1 GiB: flow alone), and the
 * model within 10 % of the flow engine everywhere. Before, at 64 MiB on 12 channels the
 * model was 48 % slower (5,963.6 against 4,034.0 us): its ramp timed every stage, NVLink
 * hops too, at a channel's share of the binding NIC and grew by ~250 us a channel; each
 * channel's pipeline now fills at its NVLink share inside the nodes and its NICs' rate one
 * way between them (model/pipeline.c forced_fill_sum()): 3,892.7 us, the flow engine 3.6 %
 * slower. The forced channels now run on their graph channel's NIC on every node
 * (ft__sim_channelize_uneven(), the graph's 2 channels: the DGX's NICs 0 and 1), so 12
 * channels load the small nodes' NICs as 4 do, and the engines' 12-channel times match
 * their 4-channel ones; the model's fill streams the channels on a NIC through the network
 * hops (12 channels, 64 MiB: model 3,778.7, flow 3,789.3 us, packet 3,596.5).
 */
static void
test_agree_on_uneven_forced_trees(void **state)
{
	static const uint64_t sizes[] = { 64u << 20, 256u << 20, 1u << 30 };
	static const uint32_t counts[] = { 4, 12 };
	char five[512];
	size_t i, k;

	(void)state;
	spec_file("simmodel-five-forced.yaml", mixed_five_text, five, sizeof(five));
	for (i = 0; i < FT_ARRAY_SIZE(counts); i++)
		for (k = 0; k < FT_ARRAY_SIZE(sizes); k++) {
			double m, mt, f, ft, p = 0, pt = 0;

			busbw_channels = counts[i];
			m = busbw(five, FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_SIMPLE, sizes[k],
			          NULL);
			mt = busbw_time_us;
			f = busbw(five, FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_SIMPLE, sizes[k],
			          "flow");
			ft = busbw_time_us;
			if (sizes[k] < (1u << 30)) {
				p = busbw(five, FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_SIMPLE,
				          sizes[k], "packet");
				pt = busbw_time_us;
			}
			print_message("# mixed-five tree %u channels %4llu MiB: model %.1f, flow "
			              "%.2f (%+.1f%%), packet %.2f us\n",
			              counts[i], (unsigned long long)(sizes[k] >> 20), mt, ft,
			              100 * (ft / mt - 1), pt);
			if (p > 0)
				assert_close(p, f, 0.10 * f);
			assert_agree(f, m);
		}
	busbw_channels = 0;
	remove(five);
}

/*
 * NCCL_MIN/MAX_NCHANNELS under the copy up to the NVLS channels (ft_model_nvls_copy_nchannels()):
 * from v2.22.3-1 to v2.27.7-1, where NVLS runs, ncclTopoPostset() (src/graph/connect.cc)
 * copies the forced channels up to nvlsChannels and the tree launches on them
 * (src/enqueue.cc topoGetAlgoInfo: nc = comm->nChannels), so on 2 DGX H100 (16 NVLS
 * channels) the model's run count is max(forced, 16); v2.20.3-1 and v2.21.5-1 launch the
 * tree on collChannels (the forced count) while the communicator, which the p2p channels
 * come from, takes the copies (2.20 runs no NVLS across nodes: no copy); 2.19, 2.28 and the
 * newest make none, nor does NCCL_NVLS_ENABLE=0.
 */
static void
test_model_forced_channels_nvls_copy(void **state)
{
	static const struct {
		uint32_t version, forced, run, comm;
		bool nvls_off;
	} rows[] = {
		{ 21904, 4, 4, 4, false },   { 22003, 4, 4, 4, false },
		{ 22105, 4, 4, 16, false },  { 22203, 4, 16, 16, false },
		{ 22501, 4, 16, 16, false }, { 22501, 12, 16, 16, false },
		{ 22501, 24, 24, 24, false }, { 22707, 4, 16, 16, false },
		{ 22501, 4, 4, 4, true },    { 22803, 4, 4, 4, false },
		{ 0, 4, 4, 4, false },
	};
	struct ft_cluster_spec cs;
	struct ft_error err = { 0 };
	size_t i;

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &cs, &err), 0);
	for (i = 0; i < FT_ARRAY_SIZE(rows); i++) {
		struct ft_model_query q;
		struct ft_model_result r;
		struct ft_model_links l;

		ft_model_query_init(&q, FT_OP_ALL_REDUCE, 256u << 20);
		q.force_algo = true;
		q.algo = FT_ALGO_TREE;
		q.force_proto = true;
		q.proto = FT_PROTO_SIMPLE;
		q.nchannels = rows[i].forced;
		q.nccl_version = rows[i].version;
		q.nvls_off = rows[i].nvls_off;
		assert_int_equal(ft_model_eval(&cs, &q, &r, &err), 0);
		print_message("# dgx-h100:2 tree, %u forced, v%u%s: %u channels\n",
		              rows[i].forced, rows[i].version, rows[i].nvls_off ? " no nvls" : "",
		              r.pipe.nchannels);
		assert_int_equal(r.pipe.nchannels, rows[i].run);
		assert_int_equal(ft_model_links_get(&cs, 16, 0, 8, &l, &err), 0);
		l.nccl_version = rows[i].version;
		l.nvls_off = rows[i].nvls_off;
		ft_model_links_force_channels(&l, rows[i].forced);
		assert_int_equal(ft_model_run_nchannels(&l, FT_ALGO_TREE), rows[i].run);
		assert_int_equal(ft_model_comm_nchannels(&l), rows[i].comm);
	}
}

/*
 * NVLS across nodes: NCCL runs it only with CollNet (NVIDIA/nccl v2.27.7-1
 * src/graph/tuning.cc: NVLS with more than one node is disabled where collnetEnable is 0),
 * each node's heads sending their reduced shards to SHARP and multicasting the result
 * (src/device/all_reduce.h, the NVLS kernel with nvls->out). On a SHARP fabric both
 * engines run its all-reduce (ft__sim_nvls_collnet(); the packet engine in NCCL's chunks,
 * pkt_tree.c), within 10 % of each other at 64 MiB over 2 DGX H100; both refuse an
 * all-gather, with what NCCL does: that they do not build it and the model prices it
 * (FT_ENOTSUP); elsewhere, nodes of different GPU counts included, both refuse it as
 * NCCL needs CollNet (FT_EINVAL: NCCL itself finds no NVLS algorithm), naming the
 * algorithms that run the op (all_gather: the ring alone); NVLS inside one node or one
 * NVLink domain of trays still runs.
 */
static void
test_nvls_across_nodes_refused(void **state)
{
	static const char *const engines[] = { "flow", "packet" };
	static const char job[] = "name: t\n"
	                          "cluster: %s\n"
	                          "jobs:\n"
	                          "  - name: a\n"
	                          "    ops:\n"
	                          "      - {op: all_reduce, size: 64MiB, algo: nvls}\n";
	static const char gather[] = "name: t\n"
	                             "cluster: %s\n"
	                             "jobs:\n"
	                             "  - name: a\n"
	                             "    ops:\n"
	                             "      - {op: all_gather, size: 64MiB, algo: nvls}\n";
	char text[512];
	struct ft_sim_report rep;
	struct ft_error err;
	double t[2];
	size_t e;

	(void)state;
	for (e = 0; e < FT_ARRAY_SIZE(engines); e++) {
		memset(&err, 0, sizeof(err));
		snprintf(text, sizeof(text), job, "tests/fixtures/spec/sharp-2x8.yaml");
		run_ok(text, engines[e], &rep);
		assert_string_equal(ft_run_row(&rep.run, 0)->algo, "nvls");
		t[e] = ft_run_row(&rep.run, 0)->time_us;
		ft_sim_report_release(&rep);
		memset(&err, 0, sizeof(err));
		snprintf(text, sizeof(text), job, "dgx-h100:2");
		assert_int_equal(run_text(text, engines[e], &rep, &err), FT_EINVAL);
		assert_non_null(strstr(err.msg, "only with CollNet, which needs in-network "
		                                "reduction (fabric.sharp); nvls_tree, tree and "
		                                "ring run here"));
		ft_sim_report_release(&rep);
		/* nodes of different GPU counts: the same refusal, not the schedule's */
		memset(&err, 0, sizeof(err));
		snprintf(text, sizeof(text), job, "examples/mixed-gpus.yaml");
		assert_int_equal(run_text(text, engines[e], &rep, &err), FT_EINVAL);
		assert_non_null(strstr(err.msg, "ops[0].algo: NCCL runs nvls across nodes only "
		                                "with CollNet"));
		ft_sim_report_release(&rep);
		/* an all-gather: only the ring runs it here */
		memset(&err, 0, sizeof(err));
		snprintf(text, sizeof(text), gather, "examples/dgx-h100-sharp.yaml");
		assert_int_equal(run_text(text, engines[e], &rep, &err), FT_ENOTSUP);
		assert_non_null(strstr(err.msg, "the model prices it (fabtune model), and ring "
		                                "runs here"));
		ft_sim_report_release(&rep);
	}
	/* the packet engine's within 10 % of the flow engine's (504.27 and 517.94 us) */
	if (!(fabs(t[1] - t[0]) <= 0.1 * t[0]))
		fail_msg("nvls across nodes, 64 MiB: packet %.2f us, flow %.2f us", t[1], t[0]);
	snprintf(text, sizeof(text), job, "dgx-h100");
	run_ok(text, "flow", &rep);
	assert_string_equal(ft_run_row(&rep.run, 0)->algo, "nvls");
	ft_sim_report_release(&rep);
	snprintf(text, sizeof(text), job, "gb200-nvl72:2");
	run_ok(text, "flow", &rep);
	assert_string_equal(ft_run_row(&rep.run, 0)->algo, "nvls");
	ft_sim_report_release(&rep);
}

/*
 * NVLS across nodes on 8 DGX H100 with SHARP (examples/dgx-h100-sharp.yaml): the engines
 * within 5 % of each other at 256 KiB, 1 MiB (NCCL's one loop, ft_model_nvls_net_chunking())
 * and 16 MiB (8 loops). In one loop the packet engine, too, takes the 4 stages a period
 * each at NCCL's price (P = S / algbw of the tuner, pkt_tree.c cap_pace()): its 1 MiB
 * lasts at least 3 P more than its 8 KiB (the fixed cost the same, the last stage's own
 * way on top), as the flow engine's (L + 3) P has it. Unpaced in one loop it crossed the
 * stages at the links' rates: 57.51 us against the flow engine's 65.65, 13.01 us over
 * its 8 KiB where 3 P is 16.13.
 */
static void
test_nvls_net_one_loop_paced(void **state)
{
	static const uint64_t sizes[] = { 256u << 10, 1u << 20, 16u << 20 };
	static const char job[] = "name: t\n"
	                          "cluster: examples/dgx-h100-sharp.yaml\n"
	                          "jobs:\n"
	                          "  - name: a\n"
	                          "    ops:\n"
	                          "      - {op: all_reduce, size: %llu, algo: nvls}\n";
	static const char *const engines[] = { "flow", "packet" };
	struct ft_cluster_spec cs;
	struct ft_model_query q;
	struct ft_model_result r;
	struct ft_error err = { 0 };
	struct ft_sim_report rep;
	char text[512];
	double t[FT_ARRAY_SIZE(sizes) + 1][2], P;
	size_t i, e;

	(void)state;
	for (i = 0; i <= FT_ARRAY_SIZE(sizes); i++)
		for (e = 0; e < FT_ARRAY_SIZE(engines); e++) {
			snprintf(text, sizeof(text), job,
			         (unsigned long long)(i < FT_ARRAY_SIZE(sizes) ? sizes[i] : 8192u));
			run_ok(text, engines[e], &rep);
			assert_string_equal(ft_run_row(&rep.run, 0)->algo, "nvls");
			t[i][e] = ft_run_row(&rep.run, 0)->time_us;
			ft_sim_report_release(&rep);
		}
	for (i = 0; i < FT_ARRAY_SIZE(sizes); i++) {
		print_message("# nvls across nodes %llu B: flow %.2f packet %.2f us (%+.1f %%)\n",
		              (unsigned long long)sizes[i], t[i][0], t[i][1],
		              100 * (t[i][1] / t[i][0] - 1));
		if (!(fabs(t[i][1] - t[i][0]) <= 0.05 * t[i][0]))
			fail_msg("nvls across nodes, %llu B: packet %.2f us, flow %.2f us",
			         (unsigned long long)sizes[i], t[i][1], t[i][0]);
	}
	assert_int_equal(ft_spec_load_file("examples/dgx-h100-sharp.yaml", &cs, &err), 0);
	ft_model_query_init(&q, FT_OP_ALL_REDUCE, 1u << 20);
	q.force_algo = q.force_proto = true;
	q.algo = FT_ALGO_NVLS;
	q.proto = FT_PROTO_SIMPLE;
	q.tuner_only = true;
	assert_int_equal(ft_model_eval(&cs, &q, &r, &err), 0);
	P = (double)(1u << 20) / r.bw_Bps * 1e6;
	print_message("# 1 MiB: P %.2f us, packet %.2f over 8 KiB, flow %.2f\n", P,
	              t[1][1] - t[3][1], t[1][0] - t[3][0]);
	assert_true(t[1][1] - t[3][1] >= 3 * P);
	assert_true(t[1][0] - t[3][0] >= 3 * P);
}

/*
 * NVLS inside one node pays NCCL's NVLS latency once, reduce and multicast pipelined
 * (ft__sim_far_steps(), as NCCL's model has it), in both engines: at 8 KiB on one DGX
 * H100, where the bytes take well under a microsecond, the packet engine paid the step
 * overhead on each of the phase's 2 steps (50.63 us against the flow engine's 25.69).
 */
static void
test_nvls_one_node_latency_once(void **state)
{
	static const char job[] = "name: t\n"
	                          "cluster: dgx-h100\n"
	                          "jobs:\n"
	                          "  - name: a\n"
	                          "    ops:\n"
	                          "      - {op: all_reduce, size: 8KiB, algo: nvls}\n";
	static const char *const engines[] = { "flow", "packet" };
	struct ft_sim_report rep;
	double t[2];

	(void)state;
	for (size_t e = 0; e < FT_ARRAY_SIZE(engines); e++) {
		run_ok(job, engines[e], &rep);
		assert_string_equal(ft_run_row(&rep.run, 0)->algo, "nvls");
		t[e] = ft_run_row(&rep.run, 0)->time_us;
		ft_sim_report_release(&rep);
	}
	if (!(fabs(t[1] - t[0]) <= 0.1 * t[0]))
		fail_msg("nvls on one node, 8 KiB: packet %.2f us, flow %.2f us", t[1], t[0]);
}

/*
 * NCCL's tree and NVLS tree all-reduce (forced, Simple) on nodes of the same
 * GPU count, 16 MiB to 4 GiB: the flow engine runs NCCL's trees (a chain or
 * NVLS in each node, the double binary tree over the nodes) and the model
 * times the bytes they carry (the busiest node sends 1.5S over 3 nodes, 2S
 * from 4 up; ft__model_carried). Before, a flat tree over every rank was
 * 20-28% slow on 4 and 8 nodes, and the model charged 3 nodes 2S (the flow
 * engine 37% faster with NVLS trees). Below 1 GiB both take NCCL's tree
 * correction (kb NA-MODEL; x0.8 at 64 MiB, x0.9 at 256 MiB), the flow engine
 * as wire bytes on the tree's flows (ft__sim_nccl_efficiency), and the tree's
 * steps between nodes pay the network's latency, its chain's NVLink's
 * (ft__sim_far_steps): without them the flow engine was up to 25% faster at
 * 64 MiB and 16 MiB. On 2 nodes the plain tree's chains carry 1.75S per GPU
 * over NVLink (each channel's chain starts at its NIC's GPU), which the
 * model now times too (it charged the tuner's 2S: 8/7 slow, 314 GB/s where
 * the flow engine gives 359 at 1 GiB). The NVLS tree on 2 nodes is held by
 * NCCL's per-channel NVLSTree cap (8 x 57.7 GB/s busbw, kb NA-ALGO-NVLS),
 * which the flow engine applies to its connections (ft__sim_tree_cap;
 * test_flow_nvls_tree_2node_measured). The plain tree at 16, 32 and 64 MiB
 * (run whole by the flow engine, the tuner's time in the model): flow time /
 * model time 1.00 on 2 nodes, 1.05-1.06 on 3, 0.95-0.97 on 4, 0.98-0.99 on 8.
 */
static void
flow_agrees_on_trees(void)
{
	static const char *const specs[] = { "dgx-h100:2", "dgx-h100:3", "dgx-h100:4",
		                             "dgx-h100:8", NULL };
	static const uint64_t sizes[] = { 16u << 20, 32u << 20, 64u << 20, 256u << 20, 1u << 30,
		                          4ull << 30 };
	char four_nics[512];
	size_t i, k, a;

	spec_file("simmodel-trees4nic.yaml",
	          "name: h100-4nic\nnodes: { preset: dgx-h100, count: 4, nics: { count: 4 } }\n"
	          "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n",
	          four_nics, sizeof(four_nics));
	for (i = 0; i < FT_ARRAY_SIZE(specs); i++)
		for (k = 0; k < FT_ARRAY_SIZE(sizes); k++)
			for (a = 0; a < 2; a++) {
				const char *spec = specs[i] ? specs[i] : four_nics;
				int algo = a ? FT_ALGO_NVLS_TREE : FT_ALGO_TREE;
				double m, f, mt, pk;

				m = busbw(spec, FT_OP_ALL_REDUCE, algo, FT_PROTO_SIMPLE,
				          sizes[k], NULL);
				f = busbw(spec, FT_OP_ALL_REDUCE, algo, FT_PROTO_SIMPLE, sizes[k],
				          "flow");
				if (a && sizes[k] < (256u << 20)) {
					/* between the model with its ramp and without it */
					busbw_tuner_only = true;
					mt = busbw(spec, FT_OP_ALL_REDUCE, algo, FT_PROTO_SIMPLE,
					           sizes[k], NULL);
					busbw_tuner_only = false;
					print_message("# %s nvls_tree %llu: flow %.2f model %.2f, "
					              "without its ramp %.2f GB/s\n",
					              specs[i] ? specs[i] : "4 NICs",
					              (unsigned long long)sizes[k], f, m, mt);
					assert_true(f >= 0.9 * m && f <= 1.1 * mt);
					continue;
				}
				if (fabs(f / m - 1) > 0.10)
					print_error("%s %s %llu: flow %.2f model %.2f GB/s\n",
					            specs[i] ? specs[i] : "4 NICs", ft_algo_name(algo),
					            (unsigned long long)sizes[k], f, m);
				assert_agree(f, m);
				/* the packet engine's plain tree on NCCL's channels, to 256 MiB
				 * on 2 and 4 nodes (pkt_tree.c nccl_fill()) */
				if (a || sizes[k] > (256u << 20) || !specs[i] ||
				    (strcmp(specs[i], "dgx-h100:2") &&
				     strcmp(specs[i], "dgx-h100:4")))
					continue;
				pk = busbw(spec, FT_OP_ALL_REDUCE, algo, FT_PROTO_SIMPLE, sizes[k],
				           "packet");
				print_message("# %s tree %llu: packet %.2f flow %.2f GB/s\n", spec,
				              (unsigned long long)sizes[k], pk, f);
				if (!(fabs(pk / f - 1) <= 0.10))
					fail_msg("%s tree %llu: packet %.2f, flow %.2f GB/s", spec,
					         (unsigned long long)sizes[k], pk, f);
			}
	remove(four_nics);
}

/* The loops NCCL's NVLS tree all-reduce of @bytes takes on @spec (the model's pipeline). */
static uint64_t
nvls_tree_loops(const char *spec, uint64_t bytes)
{
	struct ft_error err = { 0 };
	struct ft_cluster_spec cs;
	struct ft_model_query q;
	struct ft_model_result m;

	assert_int_equal(ft_spec_resolve(spec, &cs, &err), 0);
	ft_model_query_init(&q, FT_OP_ALL_REDUCE, bytes);
	q.force_algo = q.force_proto = true;
	q.algo = FT_ALGO_NVLS_TREE;
	q.proto = FT_PROTO_SIMPLE;
	assert_int_equal(ft_model_eval(&cs, &q, &m, &err), 0);
	return m.pipe.loops;
}

/*
 * NCCL's NVLS-tree correction (src/graph/tuning.cc ncclTopoGetAlgoTime, v2.29.2-1 on; kb
 * NA-MODEL) on four DGX B200 (Blackwell behind x86 hosts), the NVLS tree all-reduce forced:
 * the model's bandwidth and the flow engine's wire bytes take the same factor of
 * ft_model_tree_correction(), x0.7 at 4 and 16 MiB (log2(bytes / 64) 16 and 18) and x0.9 at
 * 256 MiB (22: inside the NVLS tree's 24 columns, where the plain tree's 23 end). Before the
 * flow engine took it, the model alone did: the tuner's pick at 256 MiB (this NVLS tree)
 * had the flow engine 11.7% faster than the model.
 */
static void
flow_agrees_on_b200_nvls_tree(void)
{
	static const uint64_t sizes[] = { 4u << 20, 16u << 20, 256u << 20 };
	size_t k;

	for (k = 0; k < FT_ARRAY_SIZE(sizes); k++) {
		double m = busbw("dgx-b200:4", FT_OP_ALL_REDUCE, FT_ALGO_NVLS_TREE, FT_PROTO_SIMPLE,
		                 sizes[k], NULL);
		double f = busbw("dgx-b200:4", FT_OP_ALL_REDUCE, FT_ALGO_NVLS_TREE, FT_PROTO_SIMPLE,
		                 sizes[k], "flow");

		print_message("# dgx-b200:4 nvls_tree %llu: flow %.2f model %.2f GB/s busbw\n",
		              (unsigned long long)sizes[k], f, m);
		assert_agree(f, m);
		/* one loop: the factor on the bandwidth term alone in both (48.28 against
		 * 48.04 GB/s; 44.28 before, every byte of every stage slowed: -7.8%) */
		if (sizes[k] == (4u << 20))
			assert_close(f, m, 0.02 * m);
	}
}

/*
 * The NVLS tree all-reduce from 1 to 64 MiB on 2 to 16 DGX H100, flow engine against the
 * model with its pipeline (flow time / model time, flow_agrees_on_trees() covers 16 MiB
 * on from the bandwidth side). Where the buffer is one loop of chunks (1 to 8 MiB here)
 * the flow engine runs the stages one after another and each network hop at its busiest
 * NIC's rate, which the model prices too (model/dtree.c): within 5% (before, the
 * model charged every hop the whole operation's 2S: the flow engine 16-25% faster at 4
 * MiB from 3 nodes up, 30% at 8 MiB; then, with NCCL's per-channel cap slowing both NVLS
 * stages of the one chunk, up to 12% slower at 8 MiB from 4 nodes on:
 * test_flow_nvls_tree_one_loop_uncapped). From two loops on (16 to 64 MiB) the model's
 * fill prices each hop at its busiest NIC with the chunks behind the first one hop back
 * (ft__model_dtree_fill_load()) and the flow engine runs the first and last chunk of each
 * stage at its links' rates: within 10% (flow time / model time 0.92 to 1.02). Before, the
 * model charged every hop of the fill the operation's pace and the flow engine capped
 * every chunk: the flow engine 3-25% faster from 3 nodes on (0.75 on 16 nodes at 16 MiB,
 * 0.78 on 3).
 */
static void
flow_agrees_on_nvls_tree_by_loops(void)
{
	static const char *const specs[] = { "dgx-h100:2", "dgx-h100:3", "dgx-h100:4",
		                             "dgx-h100:8", "dgx-h100:16" };
	static const uint64_t sizes[] = { 1u << 20, 4u << 20, 8u << 20, 16u << 20, 32u << 20,
		                          64u << 20 };
	size_t i, k;

	for (i = 0; i < FT_ARRAY_SIZE(specs); i++)
		for (k = 0; k < FT_ARRAY_SIZE(sizes); k++) {
			uint64_t loops = nvls_tree_loops(specs[i], sizes[k]);
			double m = busbw(specs[i], FT_OP_ALL_REDUCE, FT_ALGO_NVLS_TREE,
			                 FT_PROTO_SIMPLE, sizes[k], NULL);
			double f = busbw(specs[i], FT_OP_ALL_REDUCE, FT_ALGO_NVLS_TREE,
			                 FT_PROTO_SIMPLE, sizes[k], "flow");
			double slow = m / f; /* flow time / model time */

			print_message("# %s nvls_tree %llu (%llu loops): flow %.2f model %.2f GB/s, "
			              "time x%.3f\n",
			              specs[i], (unsigned long long)sizes[k],
			              (unsigned long long)loops, f, m, slow);
			assert_true(fabs(slow - 1) <= (loops == 1 ? 0.05 : 0.10));
		}
}

/*
 * One loop of the NVLS tree (1 to 8 MiB on DGX H100) runs its stages one after another, and
 * NCCL's per-channel NVLSTree cap, a pace for the chunks of a pipeline, has none to keep:
 * the flow engine runs the one chunk at its links' rates, as the model prices one loop
 * (model/pipeline.c: its stages at their links' rates, the cap's S / algbw taken out
 * again): within 3% of the model on 2 to 16 nodes at 4 and 8 MiB. Before, the flow engine capped each stage's
 * connections at S / algbw: both NVLS stages (8 channels x 45.5 GB/s x 32 / 62 from 3 nodes
 * on) took 45 us at 8 MiB on 4 nodes where NVLink takes 31, 29.4 us (12.4%) over the
 * model, 3.4 us per MiB; 8.8% at 4 MiB.
 */
static void
test_flow_nvls_tree_one_loop_uncapped(void **state)
{
	static const char *const specs[] = { "dgx-h100:2", "dgx-h100:3", "dgx-h100:4",
		                             "dgx-h100:8", "dgx-h100:16" };
	size_t i, k;

	(void)state;
	for (i = 0; i < FT_ARRAY_SIZE(specs); i++)
		for (k = 0; k < 2; k++) {
			uint64_t bytes = (4u << 20) << k;
			double m = busbw(specs[i], FT_OP_ALL_REDUCE, FT_ALGO_NVLS_TREE,
			                 FT_PROTO_SIMPLE, bytes, NULL);
			double f = busbw(specs[i], FT_OP_ALL_REDUCE, FT_ALGO_NVLS_TREE,
			                 FT_PROTO_SIMPLE, bytes, "flow");

			assert_int_equal(nvls_tree_loops(specs[i], bytes), 1);
			print_message("# %s nvls_tree %llu: flow %.2f model %.2f GB/s busbw\n",
			              specs[i], (unsigned long long)bytes, f, m);
			assert_close(f, m, 0.03 * m);
		}
}

/*
 * The one multi-node measurement (2 x 8 H100, 8 ConnectX-7 400G each; NVIDIA/nccl-tests
 * issue 309, tests/fixtures corpus h100-2node): all_reduce busbw 466.7 GB/s at 8 GiB
 * with NCCL's NVLS tree. The flow engine, held by NCCL's per-channel NVLSTree cap
 * (8 x 57.7 GB/s busbw), gives 460.7, within 3%; its links alone gave 525.
 */
static void
test_flow_nvls_tree_2node_measured(void **state)
{
	double f;

	(void)state;
	f = busbw("dgx-h100:2", FT_OP_ALL_REDUCE, FT_ALGO_NVLS_TREE, FT_PROTO_SIMPLE, 8ull << 30,
	          "flow");
	assert_close(f, 466.7, 0.03 * 466.7);
	/* the cap, not a link: 8 channels x 57.7 GB/s of bus bandwidth */
	assert_true(f <= 8 * 57.7 * 1.001);
}

/*
 * Several NVL72 domains joined by their NICs (2 and 4 x 72 GPUs): NCCL sees
 * each domain as one node, the flow engine runs a channel per NIC of the
 * domain (72) and the model counts the domain's 72 NICs. A 288-rank ring has
 * 287 steps (all-gather) or 574 (all-reduce), of which only 3 or 6 cross
 * domains: the flow engine charges the network's per-hop latency and path on
 * those steps alone, as NCCL's model does (kb NA-MODEL ring latency), not
 * the longest path on every step (which left a 288-rank all-gather 10% slow
 * at 1 GiB, 21% at 256 MiB and 28% at 64 MiB). Swept from 64 MiB, where the
 * ring is latency-bound, to 4 GiB, with the tuner's pick and with a ring.
 */
static void
flow_agrees_across_domains(void)
{
	static const char *const specs[] = { "gb200-nvl72:36", "gb200-nvl72:72",
		                             "gb300-nvl72:72" };
	static const enum ft_op ops[] = { FT_OP_ALL_REDUCE, FT_OP_ALL_GATHER, FT_OP_REDUCE_SCATTER,
		                          FT_OP_BROADCAST, FT_OP_SENDRECV };
	static const uint64_t sizes[] = { 64u << 20, 256u << 20, 1u << 30, 4ull << 30 };
	size_t i, j, k, a;

	for (i = 0; i < FT_ARRAY_SIZE(specs); i++)
		for (j = 0; j < FT_ARRAY_SIZE(ops); j++)
			for (k = 0; k < FT_ARRAY_SIZE(sizes); k++)
				for (a = 0; a < 2; a++) {
					int algo = a ? FT_ALGO_RING : -1;
					double m, f;

					if (a && (ops[j] == FT_OP_SENDRECV || ops[j] == FT_OP_BROADCAST))
						continue;
					m = busbw(specs[i], ops[j], algo, -1, sizes[k], NULL);
					f = busbw(specs[i], ops[j], algo, -1, sizes[k], "flow");
					if (fabs(f / m - 1) > 0.10)
						print_error("%s %s %s %llu: flow %.2f model %.2f GB/s\n",
						            specs[i], ft_op_name(ops[j]),
						            a ? "ring" : "auto",
						            (unsigned long long)sizes[k], f, m);
					assert_agree(f, m);
				}
}

/*
 * GB200 / GB300 NVL72: one NVLink domain of 18 trays and 2 or 4 domains
 * joined by their NICs (MNNVL), with NVLink SHARP and without it (--no-nvls,
 * NCCL_NVLS_ENABLE=0, as in CoreWeave's published GB200 runs): the tuner's
 * pick, and NVLS (one domain) or the NVLS tree and the tree (several)
 * forced. Before, the flow engine ran NVLS with 72 heads in a domain (NCCL
 * has at most 32), had no --no-nvls, and ran a flat tree over all the ranks
 * of several domains: 74% faster than the model at 64 MiB over 2 domains,
 * 24% at 1 GiB; NCCL builds a chain in each domain and the double binary
 * tree over the domains (ft__sim_tree_uneven), as over physical nodes. Left
 * out before: the tree over 4 domains, whose bound is NCCL's per-channel tree
 * cap (perChMaxTreeBw), which the flow engine did not apply (635 GB/s busbw
 * against 417 at 4 GiB); it now does (ft__sim_tree_cap), and all 90 run.
 */
static void
flow_agrees_on_nvl72(void)
{
	static const char *const specs[] = { "gb200-nvl72:18", "gb300-nvl72:18", "gb200-nvl72:36",
		                             "gb200-nvl72:72" };
	static const enum ft_op ops[] = { FT_OP_ALL_REDUCE, FT_OP_ALL_GATHER, FT_OP_REDUCE_SCATTER };
	static const uint64_t sizes[] = { 256u << 20, 1u << 30, 4ull << 30 };
	size_t i, j, k, v, nrun = 0;

	for (i = 0; i < FT_ARRAY_SIZE(specs); i++)
		for (j = 0; j < FT_ARRAY_SIZE(ops); j++)
			for (k = 0; k < FT_ARRAY_SIZE(sizes); k++)
				for (v = 0; v < 4; v++) {
					bool one = i < 2;
					int algo = v < 2  ? -1 :
					           v == 3 ? FT_ALGO_TREE :
					           one    ? FT_ALGO_NVLS :
					                    FT_ALGO_NVLS_TREE;
					double m, f;

					if ((v >= 2 && ops[j] != FT_OP_ALL_REDUCE) || (v == 3 && one))
						continue;
					busbw_no_nvls = v == 1;
					m = busbw(specs[i], ops[j], algo, -1, sizes[k], NULL);
					f = busbw(specs[i], ops[j], algo, -1, sizes[k], "flow");
					nrun++;
					if (fabs(f / m - 1) > 0.10)
						print_error("%s %s %s %llu: flow %.2f model %.2f GB/s\n",
						            specs[i], ft_op_name(ops[j]),
						            v == 1  ? "no-nvls" :
						            algo < 0 ? "auto" :
						                       ft_algo_name((enum ft_algo)algo),
						            (unsigned long long)sizes[k], f, m);
					assert_agree(f, m);
				}
	busbw_no_nvls = false;
	assert_int_equal(nrun, 90);
}

/*
 * The all-to-all across nodes, flat (direct) and hierarchical, on fabrics
 * that D-mod-K routes without congestion: both post NCCL's send/recv way
 * (peers_inflight sends in flight per rank, ft_model_p2p_chunking_on()) and
 * agree within 10%, also at 16 MiB, where the fixed cost of each window of
 * sends is a large part of the time (the model's old waves of four peers
 * were 2.3x the flow engine's time on 16 nodes there).
 */
static void
flow_agrees_on_alltoall(const char *four_nics)
{
	const char *const specs[] = { "dgx-h100:2", "dgx-h100:4", "dgx-h100:16", four_nics };
	static const enum ft_algo algos[] = { FT_ALGO_DIRECT, FT_ALGO_HIERARCHICAL };
	static const uint64_t sizes[] = { 16u << 20, 256u << 20 };
	size_t i, j, k;

	for (i = 0; i < FT_ARRAY_SIZE(specs); i++)
		for (j = 0; j < FT_ARRAY_SIZE(algos); j++)
			for (k = 0; k < FT_ARRAY_SIZE(sizes); k++) {
				double f = busbw(specs[i], FT_OP_ALLTOALL, (int)algos[j], -1,
				                 sizes[k], "flow");
				double m = busbw(specs[i], FT_OP_ALLTOALL, (int)algos[j], -1,
				                 sizes[k], NULL);

				if (fabs(f / m - 1) > 0.10)
					print_error("%s alltoall %s %llu: flow %.2f model %.2f GB/s\n",
					            specs[i], ft_algo_name(algos[j]),
					            (unsigned long long)sizes[k], f, m);
				assert_agree(f, m);
			}
}

/*
 * The p2p channels are the cluster's (ft_model_p2p_nchannels() of NCCL's
 * channel count): 16 on a DGX A100 (12 NVLinks), 2 on a PCIe L40S node,
 * not the 32 of a Hopper node. With one channel per send that is 16 x 8 =
 * 128 and 2 x 8 = 16 sends in flight per rank (32 x 8 = 256 on Hopper), so
 * a flat all-to-all over 256 A100 pays 2 windows of per-message cost, over
 * 128 L40S 8; both engines and the model post so, and the flow engine and
 * the model agree within 10% where the windows are a large part of the
 * time (with Hopper's 32 the flow engine paid 1 window on both: 15% faster
 * than the model on 128 L40S at 4 MiB, 3% on 256 A100 at 8 MiB).
 */
static void
test_flow_posts_on_p2p_channels(void **state)
{
	static const struct {
		const char *spec;
		uint64_t bytes;
	} cases[] = { { "dgx-a100:32", 8u << 20 }, { "pcie-l40s:16", 4u << 20 },
		      { "pcie-l40s:16", 16u << 20 } };
	size_t i;

	(void)state;
	assert_int_equal(ft_model_p2p_nchannels(12), 16);
	assert_int_equal(ft_model_p2p_nchannels(2), 2);
	for (i = 0; i < FT_ARRAY_SIZE(cases); i++) {
		double f = busbw(cases[i].spec, FT_OP_ALLTOALL, FT_ALGO_DIRECT, -1, cases[i].bytes,
		                 "flow");
		double m = busbw(cases[i].spec, FT_OP_ALLTOALL, FT_ALGO_DIRECT, -1, cases[i].bytes,
		                 NULL);

		print_message("# %s %llu: flow %.2f model %.2f GB/s\n", cases[i].spec,
		              (unsigned long long)cases[i].bytes, f, m);
		assert_agree(f, m);
	}
}

/*
 * The all-to-all where a node's GPUs share links (model/share.c): on pcie-l40s 16 pairs of
 * S/8 cross the socket link each way (2 x 64 MiB / 22 GB/s = 6,100 us), and on two nodes
 * the hierarchical one pays that phase before its NICs'; on a DGX H100 of one NIC on the
 * first socket, what the GPUs of the other receive crosses the socket link. The model takes
 * the bytes each shared link carries on the topology the flow engine routes: both within
 * 2% (the model priced one GPU's share before: 2,683 us on pcie-l40s:1, 8,290 us
 * hierarchical on :2, and the NIC on the one-NIC DGX, 10% under the flow engine).
 */
static void
test_flow_agrees_on_shared_links(void **state)
{
	static const struct {
		const char *spec;
		int algo;
	} cases[] = { { "pcie-l40s:1", FT_ALGO_DIRECT },
		      { "pcie-l40s:1", FT_ALGO_HIERARCHICAL },
		      { "pcie-l40s:2", FT_ALGO_DIRECT },
		      { "pcie-l40s:2", FT_ALGO_HIERARCHICAL },
		      { NULL, FT_ALGO_DIRECT } };
	char one_nic[512];
	size_t i;

	(void)state;
	mtu_file(4096, one_nic, sizeof(one_nic));
	for (i = 0; i < FT_ARRAY_SIZE(cases); i++) {
		const char *spec = cases[i].spec ? cases[i].spec : one_nic;
		double f = busbw(spec, FT_OP_ALLTOALL, cases[i].algo, -1, 64u << 20, "flow");
		double m = busbw(spec, FT_OP_ALLTOALL, cases[i].algo, -1, 64u << 20, NULL);

		print_message("# %s alltoall %s 64 MiB: flow %.2f model %.2f GB/s\n", spec,
		              ft_algo_name((enum ft_algo)cases[i].algo), f, m);
		assert_close(f, m, 0.02 * f);
	}
	remove(one_nic);
}

/*
 * The flow engine and the model agree within 10% wherever both apply and
 * nothing is congested: every collective, NCCL's choice of algorithm and
 * protocol, at bandwidth-bound sizes, on one and several nodes of several
 * GPU generations and NIC counts, and on a whole GB200 and GB300 NVL72
 * NVLink domain (18 trays that NVLink joins into one NCCL node); the all-to-all
 * across nodes where D-mod-K leaves the fabric without congestion
 * (flow_agrees_on_alltoall()). Where the model's bound is one of NCCL's
 * per-channel caps (kb NA-MODEL perChMax*: software limits, not links), the
 * flow engine applies the tree's and the NVLS tree's (ft__sim_tree_cap) and
 * the others do not bind at these sizes: nothing is left out.
 */
/*
 * CollNetDirect on 8 DGX H100 with SHARP (examples/dgx-h100-sharp.yaml): the flow engine
 * pipelines NCCL's scatter, in-network all-reduce and broadcast chunk by chunk, as the
 * model prices them (kb NA-ALGO-COLLNET); both within 10% from 128 MiB to 1 GiB. And on 4
 * from 4 to 64 MiB, a few loops, where the kernel's first and last rounds run the scatter
 * or the broadcast without the other beside it on the GPU's NVLink (model/pipeline.c
 * collnet_rounds_s(), sim/nccl.c ft__sim_collnet_stages()), the packet engine too at 16
 * MiB (3 loops). Before both engines held those chunks at the pace: 16 MiB took 161.48 us
 * (flow) and 165.38 (packet) against the model's 142.5, -12 and -14 % of its busbw.
 */
/* CollNetDirect on 4 DGX H100 with SHARP at @bytes by @engine against the model (the
 * comment below). */
static void
collnet_direct_agrees(const char *path, uint64_t bytes, const char *engine)
{
	double m, f, tm;

	busbw_collnet = FT_COLLNET_DIRECT;
	m = busbw(path, FT_OP_ALL_REDUCE, FT_ALGO_COLLNET, FT_PROTO_SIMPLE, bytes, NULL);
	tm = busbw_time_us;
	f = busbw(path, FT_OP_ALL_REDUCE, FT_ALGO_COLLNET, FT_PROTO_SIMPLE, bytes, engine);
	busbw_collnet = FT_COLLNET_AUTO;
	print_message("# collnet_direct 4 nodes %llu: %s %.2f us model %.2f us\n",
	              (unsigned long long)bytes, engine, busbw_time_us, tm);
	assert_agree(f, m);
}

/*
 * CollNetDirect in one and two loops (64 KiB to 8 MiB on 4 DGX H100 with SHARP): the
 * model's three stages one after another (scatter, the switches' all-reduce, broadcast),
 * each a round at the kernel's rate for it; the flow engine's 0 to 3.5 % over it (its
 * pieces' path latencies, about 1.3 us), within 5 % of its bus bandwidth. The switches
 * stream the reduction, a step's send and receive one iallreduce (NVIDIA/nccl v2.27.7-1
 * src/transport/coll_net.cc collNetIallreduce(); kb IB-SHARP), so the flows out of them
 * share the stage of the flows into them (engine_flow.c phase_stages()), and a stage's
 * first and last chunks take the model's round for it (collnet_edge()). Counted as a stage
 * of its own, after the flows up, the network's time came twice: 1, 2 and 4 MiB took
 * 56.31, 66.87 and 87.98 us against the model's 53.46, 62.67 and 81.09 (+5.3, +6.7 and
 * +8.5 %).
 */
static void
collnet_direct_one_loop(const char *path)
{
	static const uint64_t sizes[] = { 64u << 10, 1u << 20, 2u << 20, 4u << 20, 8u << 20 };

	for (size_t k = 0; k < FT_ARRAY_SIZE(sizes); k++) {
		double m, f, tm;

		busbw_collnet = FT_COLLNET_DIRECT;
		m = busbw(path, FT_OP_ALL_REDUCE, FT_ALGO_COLLNET, FT_PROTO_SIMPLE, sizes[k], NULL);
		tm = busbw_time_us;
		f = busbw(path, FT_OP_ALL_REDUCE, FT_ALGO_COLLNET, FT_PROTO_SIMPLE, sizes[k],
		          "flow");
		busbw_collnet = FT_COLLNET_AUTO;
		print_message("# collnet_direct 4 nodes %llu: flow %.2f us model %.2f us\n",
		              (unsigned long long)sizes[k], busbw_time_us, tm);
		assert_close(f, m, 0.05 * m);
		/* over the model by its pieces' path latencies alone (about 1.3 us: 64 KiB
		 * +2.9 %, 8 MiB +1.8 %), never under it: a network stage counted twice was
		 * +5.3 % at 1 MiB, fill and drain at the links' rates went under */
		if (!(busbw_time_us >= tm && busbw_time_us <= 1.035 * tm))
			fail_msg("flow %.2f us, model %.2f us: not 0 to 3.5 %% over", busbw_time_us,
			         tm);
	}
}

static void
collnet_direct_rounds(void)
{
	static const uint64_t sizes[] = { 4u << 20, 8u << 20, 16u << 20, 64u << 20 };
	char path[512];

	sharp_spec(4, "simmodel-collnet-rounds.yaml", path, sizeof(path));
	collnet_direct_one_loop(path);
	for (size_t k = 0; k < FT_ARRAY_SIZE(sizes); k++)
		collnet_direct_agrees(path, sizes[k], "flow");
	collnet_direct_agrees(path, 16u << 20, "packet");
	remove(path);
}

static void
flow_agrees_on_collnet_direct(void)
{
	static const char spec[] =
	        "name: dgx-h100-sharp\n"
	        "nodes: { preset: dgx-h100, count: 8 }\n"
	        "fabric: { kind: rail-fat-tree, link: ndr, sharp: true }\n";
	static const uint64_t sizes[] = { 128u << 20, 256u << 20, 512u << 20, 1u << 30 };
	char path[512];

	spec_file("simmodel-sharp.yaml", spec, path, sizeof(path));
	for (size_t k = 0; k < FT_ARRAY_SIZE(sizes); k++) {
		double m, f;

		busbw_collnet = FT_COLLNET_DIRECT;
		m = busbw(path, FT_OP_ALL_REDUCE, FT_ALGO_COLLNET, FT_PROTO_SIMPLE, sizes[k], NULL);
		f = busbw(path, FT_OP_ALL_REDUCE, FT_ALGO_COLLNET, FT_PROTO_SIMPLE, sizes[k],
		          "flow");
		busbw_collnet = FT_COLLNET_AUTO;
		if (fabs(f / m - 1) > 0.10)
			print_error("collnet_direct %llu: flow %.2f model %.2f GB/s\n",
			            (unsigned long long)sizes[k], f, m);
		assert_agree(f, m);
	}
	remove(path);
	collnet_direct_rounds();
}

/*
 * CollNetChain forced (NCCL_ALGO=CollNetChain) on 4 and 16 DGX H100 with SHARP, all-reduce
 * from 1 to 256 MiB: the flow engine runs the chain's own schedule (per NIC's channels a
 * chain through the node's GPUs to the GPU of that NIC, the switches' all-reduce, the
 * chain back; coll sched_collnet_chain()) in NCCL's chunks, against the model's chain
 * (tuner.c cost_collnet_chain() with its pipeline): within 10% (busbw -7.0% at 1 MiB,
 * -5.7% at 4, -2.8% at 16, -1.1% at 64, 0.0% at 256 MiB, the chain graph's speed a pace:
 * ft__sim_collnet_cap(); as wire bytes -7.4% to +8.6%, +8.6% at 16 MiB). Before that, its
 * steps paid 2.8 us each and none of NCCL's 30 us through the network, and its links ran
 * faster than NCCL's chain graph (NVLink's 205.7 GB/s against the tuner's 192): +10.8% to
 * +34.1%, and -7.0 to +12.7% with the latency alone.
 */
static void
flow_agrees_on_collnet_chain(void)
{
	static const uint64_t sizes[] = { 1u << 20, 4u << 20, 16u << 20, 64u << 20, 256u << 20 };
	static const unsigned nodes[] = { 4, 16 };
	char path[512];

	for (size_t n = 0; n < FT_ARRAY_SIZE(nodes); n++) {
		sharp_spec(nodes[n], "simmodel-collnet-chain.yaml", path, sizeof(path));
		for (size_t k = 0; k < FT_ARRAY_SIZE(sizes); k++) {
			double m, f, tm;

			busbw_collnet = FT_COLLNET_CHAIN;
			m = busbw(path, FT_OP_ALL_REDUCE, FT_ALGO_COLLNET, FT_PROTO_SIMPLE, sizes[k],
			          NULL);
			tm = busbw_time_us;
			f = busbw(path, FT_OP_ALL_REDUCE, FT_ALGO_COLLNET, FT_PROTO_SIMPLE, sizes[k],
			          "flow");
			busbw_collnet = FT_COLLNET_AUTO;
			if (fabs(f / m - 1) > 0.10)
				print_error("collnet_chain %u nodes %llu: flow %.2f us model %.2f us\n",
				            nodes[n], (unsigned long long)sizes[k], busbw_time_us, tm);
			assert_agree(f, m);
		}
		remove(path);
	}
}

/*
 * CollNetChain at NCCL's price as a pace (ft__sim_collnet_cap()), forced, on DGX H100 with
 * SHARP: the tuner's chain runs at nChannels x bwIntra x 0.5 (8 x 48 x 0.5 = 192 GB/s,
 * the speed NCCL's search found on the NICs' PCIe path, so the model names pcie), below the
 * 205.7 GB/s NVLink carries the chain at. Both engines run within 10% of the model, the
 * flow engine names the class the model names, and a forced channel count (--channels:
 * nChannels in the tuner's price, the model's links at those channels' share) holds the op
 * as the model prices it: on 2 nodes at 64 MiB 4 channels 1560.4 us in the model, 2
 * channels 3028.4. Before, the flows carried 192 / 205.7 more wire bytes: the flow engine
 * named nvlink, the NVLink its extra bytes filled, where the model names pcie (2 nodes at
 * 64 MiB, 8 at 256 MiB), and the channels changed nothing (423.19 us at 4 and 2 channels
 * as at NCCL's 24). The packet engine names the pace's class too where its last pace held
 * a message (pkt_report.c): nvlink at 4 channels on 2 nodes, where it named the port its
 * messages waited at most, the NICs' PCIe.
 */
static void
test_collnet_chain_paced(void **state)
{
	static const struct {
		unsigned nodes;
		uint32_t channels;
		uint64_t bytes;
		const char *engine;
	} cases[] = {
		{ 2, 0, 64u << 20, "flow" },   { 8, 0, 256u << 20, "flow" },
		{ 2, 4, 64u << 20, "flow" },   { 2, 2, 64u << 20, "flow" },
		{ 2, 0, 64u << 20, "packet" }, { 2, 4, 64u << 20, "packet" },
	};
	char path[512];

	(void)state;
	for (size_t i = 0; i < FT_ARRAY_SIZE(cases); i++) {
		double m, f, tm;

		sharp_spec(cases[i].nodes, "simmodel-collnet-paced.yaml", path, sizeof(path));
		busbw_collnet = FT_COLLNET_CHAIN;
		busbw_channels = cases[i].channels;
		m = busbw(path, FT_OP_ALL_REDUCE, FT_ALGO_COLLNET, FT_PROTO_SIMPLE, cases[i].bytes,
		          NULL);
		tm = busbw_time_us;
		f = busbw(path, FT_OP_ALL_REDUCE, FT_ALGO_COLLNET, FT_PROTO_SIMPLE, cases[i].bytes,
		          cases[i].engine);
		busbw_collnet = FT_COLLNET_AUTO;
		busbw_channels = 0;
		print_message("# %u nodes, %u channels, %llu B: model %.2f us (%s), %s %.2f us "
		              "(%s)\n",
		              cases[i].nodes, cases[i].channels, (unsigned long long)cases[i].bytes,
		              tm, model_bottleneck, cases[i].engine, busbw_time_us,
		              flow_bottleneck);
		assert_string_equal(flow_algo, "collnet_chain");
		assert_agree(f, m);
		/* (both engines name the pace's class where it held the op: the packet engine
		 * where the cap held its critical path, pkt_report.c crit_pace()) */
		assert_string_equal(flow_bottleneck, model_bottleneck);
		remove(path);
	}
}

/*
 * NVLS across nodes with SHARP (NVLS with CollNet, ft__sim_nvls_collnet()) in the flow
 * engine against the model, whose time is NCCL's tuner price plus its pipeline's ramp
 * (5 stages) and floors: on 2 and 4 DGX H100 at 1 MiB (one loop: the stages take turns,
 * latency-bound), 64 MiB (8 loops, the ramp a third of the time) and 1 GiB, within 10%.
 */
static void
flow_agrees_on_nvls_net(void)
{
	static const uint64_t sizes[] = { 1u << 20, 64u << 20, 1u << 30 };
	static const unsigned nodes[] = { 2, 4 };
	char path[512];

	for (size_t n = 0; n < FT_ARRAY_SIZE(nodes); n++) {
		sharp_spec(nodes[n], "simmodel-nvls-net.yaml", path, sizeof(path));
		for (size_t k = 0; k < FT_ARRAY_SIZE(sizes); k++) {
			double m = busbw(path, FT_OP_ALL_REDUCE, FT_ALGO_NVLS, FT_PROTO_SIMPLE,
			                 sizes[k], NULL);
			double f = busbw(path, FT_OP_ALL_REDUCE, FT_ALGO_NVLS, FT_PROTO_SIMPLE,
			                 sizes[k], "flow");

			if (fabs(f / m - 1) > 0.10)
				print_error("nvls %u nodes %llu: flow %.2f model %.2f GB/s\n",
				            nodes[n], (unsigned long long)sizes[k], f, m);
			assert_agree(f, m);
		}
		remove(path);
	}
}

/*
 * The analytic engine prices the CollNet variant the schedule was built as: forced
 * collnet_direct and collnet_chain take the model's time for that variant (at 1 GiB on
 * 8 DGX H100 with SHARP, 6400.4 and 5686.4 us); before, both took the tuner's pick.
 */
static void
analytic_prices_the_collnet_variant(void)
{
	static const char spec[] =
	        "name: dgx-h100-sharp\n"
	        "nodes: { preset: dgx-h100, count: 8 }\n"
	        "fabric: { kind: rail-fat-tree, link: ndr, sharp: true }\n";
	static const enum ft_collnet_variant vs[] = { FT_COLLNET_DIRECT, FT_COLLNET_CHAIN };
	double got[2];
	char path[512];

	spec_file("simmodel-sharp-an.yaml", spec, path, sizeof(path));
	for (size_t k = 0; k < FT_ARRAY_SIZE(vs); k++) {
		double m, a;

		busbw_collnet = vs[k];
		m = busbw(path, FT_OP_ALL_REDUCE, FT_ALGO_COLLNET, FT_PROTO_SIMPLE, 1u << 30, NULL);
		a = busbw(path, FT_OP_ALL_REDUCE, FT_ALGO_COLLNET, FT_PROTO_SIMPLE, 1u << 30,
		          "analytic");
		busbw_collnet = FT_COLLNET_AUTO;
		if (fabs(a / m - 1) > 1e-6)
			print_error("%s: analytic %.3f model %.3f GB/s\n",
			            ft_collnet_variant_name(vs[k]), a, m);
		assert_close(a, m, 1e-6 * m);
		got[k] = a;
	}
	/* the two variants differ here (nvlink-bound direct, pcie-bound chain) */
	assert_true(got[1] > got[0] * 1.05);
	remove(path);
}

/* Two DGX H100 whose NICs a hypervisor passes through: 10 us of host cost per network
 * message (nics.vm_overhead), the fabric's own latency under a microsecond. */
static const char vm_text[] =
        "name: h100-vm\n"
        "nodes: { preset: dgx-h100, count: 2, nics: { vm_overhead: 10us } }\n"
        "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n";

/*
 * The network's fixed costs per step between nodes (ft_model_net_step_s()): aws-ofi-nccl's
 * reported 75 us on AWS p5 (twice on Simple in the tuner), GPUDirect-TCPX/O's Simple-only
 * ring and tree on Google's A3 High and Mega, Spectrum-X, and a hypervisor's 10 us per
 * message: the flow engine pays them on every step that crosses nodes, as the model does,
 * and the two agree within 10% from 4 MiB to 1 GiB with the tuner's pick for all-reduce,
 * all-gather and reduce-scatter (on A3 High and Mega against the model with its pipeline,
 * whose ramp and proxy floor the flow engine pays there: flow_pays_the_tcpx_pipeline()).
 * Before, the flow engine left them out: 111.6 us against
 * the model's 399.3 for a 4 MiB all-reduce on 4 p5 (the tree's 4 steps between nodes).
 */
static void
flow_pays_the_network_step_costs(void)
{
	static const enum ft_op ops[] = { FT_OP_ALL_REDUCE, FT_OP_ALL_GATHER,
		                          FT_OP_REDUCE_SCATTER };
	static const uint64_t sizes[] = { 4u << 20, 16u << 20, 64u << 20, 256u << 20, 1u << 30 };
	const char *specs[] = { "aws-p5:4", "aws-p5:2", "gcp-a3-mega:2", "gcp-a3-mega:4",
		                "gcp-a3-high:2", "hgx-h100-spcx:4", NULL };
	char vm[512];
	size_t i, j, k, nrun = 0;
	double worst = 0;

	spec_file("simmodel-vm.yaml", vm_text, vm, sizeof(vm));
	specs[FT_ARRAY_SIZE(specs) - 1] = vm;
	/* D-mod-K: no two of a collective's flows share a fabric link (the model's premise);
	 * adaptive routing, p5's default, puts two of the tree's on one spine link of 4 p5
	 * (219.4 GB/s busbw at 256 MiB, tier2 binding; 261.5 under D-mod-K). */
	busbw_routing = FT_ROUTING_DMODK;
	for (i = 0; i < FT_ARRAY_SIZE(specs); i++)
		for (j = 0; j < FT_ARRAY_SIZE(ops); j++)
			for (k = 0; k < FT_ARRAY_SIZE(sizes); k++) {
				double f, m;

				m = busbw(specs[i], ops[j], -1, -1, sizes[k], NULL);
				f = busbw(specs[i], ops[j], -1, -1, sizes[k], "flow");
				nrun++;
				if (fabs(f / m - 1) > fabs(worst))
					worst = f / m - 1;
				if (fabs(f / m - 1) > 0.10)
					print_error("%s %s %llu: flow %.2f model %.2f GB/s\n",
					            specs[i], ft_op_name(ops[j]),
					            (unsigned long long)sizes[k], f, m);
				assert_agree(f, m);
			}
	busbw_routing = -1;
	remove(vm);
	assert_int_equal(nrun, 105);
	print_message("# network step costs: %zu cases, worst %+.1f%%\n", nrun, 100 * worst);
}

/*
 * GPUDirect-TCPX/O's pipeline (ft_model_pipe_terms()): the flow engine runs a ring's or
 * tree's flows whole and pays, on A3 High and Mega across nodes, the model's ramp of the
 * tree (the first chunk through its 2((ppn - 1) + log2 N) stages) and the proxy's floor
 * (a channel's messages x 1 us). The flow engine and the model with its pipeline agree
 * within 10% for the tuner's all-reduce, all-gather and reduce-scatter on 2 A3 Mega and 2
 * A3 High at 4, 16, 64, 128 MiB and 1 GiB. Before, the flow engine paid neither: 2 A3 Mega,
 * all-reduce 8 MiB, 151 us against the model's 816; 128 MiB, 905 against 1,614.
 */
static void
flow_pays_the_tcpx_pipeline(void)
{
	static const enum ft_op ops[] = { FT_OP_ALL_REDUCE, FT_OP_ALL_GATHER,
		                          FT_OP_REDUCE_SCATTER };
	static const uint64_t sizes[] = { 4u << 20, 16u << 20, 64u << 20, 128u << 20, 1u << 30 };
	static const char *const specs[] = { "gcp-a3-mega:2", "gcp-a3-high:2" };
	size_t i, j, k, nrun = 0;
	double worst = 0;

	busbw_routing = FT_ROUTING_DMODK; /* no two flows on one fabric link: the model's premise */
	for (i = 0; i < FT_ARRAY_SIZE(specs); i++)
		for (j = 0; j < FT_ARRAY_SIZE(ops); j++)
			for (k = 0; k < FT_ARRAY_SIZE(sizes); k++) {
				double f, m, tm;

				m = busbw(specs[i], ops[j], -1, -1, sizes[k], NULL);
				tm = busbw_time_us;
				f = busbw(specs[i], ops[j], -1, -1, sizes[k], "flow");
				nrun++;
				print_message("# %s %s %llu: flow %.1f model %.1f us (%+.1f%%)\n",
				              specs[i], ft_op_name(ops[j]),
				              (unsigned long long)sizes[k], busbw_time_us, tm,
				              100 * (m / f - 1));
				if (fabs(m / f - 1) > fabs(worst))
					worst = m / f - 1; /* flow time / model time - 1 */
				if (fabs(f / m - 1) > 0.10)
					print_error("%s %s %llu: flow %.2f model %.2f GB/s\n",
					            specs[i], ft_op_name(ops[j]),
					            (unsigned long long)sizes[k], f, m);
				assert_agree(f, m);
			}
	busbw_routing = -1;
	assert_int_equal(nrun, 30);
	print_message("# tcpx pipeline: %zu cases, worst time %+.1f%%\n", nrun, 100 * worst);
}

/* The flow engine's time of one @op (@algo, Simple) of @bytes on @spec on @channels
 * (--channels; 0: NCCL's), us, with the scenario's packet.chunking @chunking. */
static double
flow_time_ch_us(const char *spec, enum ft_op op, enum ft_algo algo, uint64_t bytes,
                uint32_t channels, enum ft_pkt_chunking chunking)
{
	struct ft_sim_sweep_args sw = { .spec = spec,
		                        .op = op,
		                        .algo = algo,
		                        .proto = FT_PROTO_SIMPLE,
		                        .min_bytes = bytes,
		                        .max_bytes = bytes,
		                        .channels = channels };
	struct ft_error err = { 0 };
	struct ft_scenario *sc = NULL;
	struct ft_sim_overrides ov;
	struct ft_sim_report rep;
	double t;

	assert_int_equal(ft_scenario_from_op(&sw, &sc, &err), 0);
	sc->packet.chunking = chunking;
	ft_sim_overrides_init(&ov);
	ov.engine = "flow";
	ov.routing = FT_ROUTING_DMODK;
	ft_sim_report_init(&rep);
	assert_int_equal(ft_scenario_run(sc, &ov, NULL, &rep, &err), 0);
	t = ft_run_row(&rep.run, 0)->time_us;
	ft_sim_report_release(&rep);
	ft_scenario_free(sc);
	return t;
}

/* flow_time_ch_us() on NCCL's channels. */
static double
flow_time_us(const char *spec, enum ft_op op, enum ft_algo algo, uint64_t bytes,
             enum ft_pkt_chunking chunking)
{
	return flow_time_ch_us(spec, op, algo, bytes, 0, chunking);
}

/* The model's pick (@op, @algo, Simple) at @bytes on @spec on @channels (0: NCCL's). */
static struct ft_model_result
model_pick_ch(const char *spec, enum ft_op op, enum ft_algo algo, uint64_t bytes,
              uint32_t channels)
{
	struct ft_cluster_spec cs;
	struct ft_model_query q;
	struct ft_model_result m;
	struct ft_error err = { 0 };

	assert_int_equal(ft_spec_resolve(spec, &cs, &err), 0);
	ft_model_query_init(&q, op, bytes);
	q.force_algo = q.force_proto = true;
	q.algo = algo;
	q.proto = FT_PROTO_SIMPLE;
	q.nchannels = channels;
	assert_int_equal(ft_model_eval(&cs, &q, &m, &err), 0);
	return m;
}

/* The model's pipeline terms of (@op, @algo, Simple) at @bytes on @spec. */
static struct ft_model_result
model_pick(const char *spec, enum ft_op op, enum ft_algo algo, uint64_t bytes)
{
	return model_pick_ch(spec, op, algo, bytes, 0);
}

/*
 * The closed forms of the two terms in the flow engine. The ramp is a fixed cost after the
 * flows: a tree all-reduce of 128 MiB on 2 A3 Mega takes the model's ramp longer than the
 * same flows with packet.chunking: off, which pays no pipeline (the proxy's 2 x loops
 * messages do not bind). The proxy's floor binds where a message costs more than the bytes
 * take: with 20 us of nics.vm_overhead a ring all-reduce of 4 MiB over 2 A3 Mega posts
 * 2 x 2(n - 1) x 2 slices a loop, 120 messages of 21 us, and the flow engine's time is the
 * floor, the model's 2,520 us, not the 400-odd us of its flows.
 */
static void
test_flow_tcpx_closed_forms(void **state)
{
	static const char vm[] = "name: a3-vm\n"
	                         "nodes: { preset: gcp-a3-mega, count: 2, "
	                         "nics: { vm_overhead: 20us } }\n";
	struct ft_model_result m;
	double on, off;
	char path[512];

	(void)state;
	m = model_pick("gcp-a3-mega:2", FT_OP_ALL_REDUCE, FT_ALGO_TREE, 128u << 20);
	assert_true(m.pipe.ramp_s > 100e-6);
	assert_true(m.pipe.proxy_s < m.time_s / 2);
	on = flow_time_us("gcp-a3-mega:2", FT_OP_ALL_REDUCE, FT_ALGO_TREE, 128u << 20,
	                  FT_PKT_CHUNK_AUTO);
	off = flow_time_us("gcp-a3-mega:2", FT_OP_ALL_REDUCE, FT_ALGO_TREE, 128u << 20,
	                   FT_PKT_CHUNK_OFF);
	print_message("# tree 128 MiB: %.3f - %.3f us, ramp %.3f\n", on, off, m.pipe.ramp_s * 1e6);
	assert_close(on - off, m.pipe.ramp_s * 1e6, 0.01);

	spec_file("simmodel-a3-vm.yaml", vm, path, sizeof(path));
	m = model_pick(path, FT_OP_ALL_REDUCE, FT_ALGO_RING, 4u << 20);
	assert_string_equal(m.bottleneck, "proxy");
	assert_close(m.pipe.proxy_s, m.pipe.messages * 21e-6, 1e-12);
	on = flow_time_us(path, FT_OP_ALL_REDUCE, FT_ALGO_RING, 4u << 20, FT_PKT_CHUNK_AUTO);
	off = flow_time_us(path, FT_OP_ALL_REDUCE, FT_ALGO_RING, 4u << 20, FT_PKT_CHUNK_OFF);
	print_message("# ring 4 MiB, 20 us a message: %.3f us (%.3f without), floor %.3f\n", on,
	              off, m.pipe.proxy_s * 1e6);
	assert_true(off < m.pipe.proxy_s * 1e6 / 2);
	assert_close(on, m.pipe.proxy_s * 1e6, 0.01);
	remove(path);
}

/* One case of the sweeps below: the flow engine's time of (@op, @algo, @proto; -1 the
 * tuner's) at @b on @spec against the model's with its pipeline, within 10%; the worst
 * into @worst and @where. */
static void
pipeline_case(const char *spec, enum ft_op op, enum ft_algo algo, int proto, uint64_t b,
              double *worst, char *where, size_t len)
{
	struct ft_cluster_spec cs;
	struct ft_model_query q;
	struct ft_model_result m;
	struct ft_error err = { 0 };
	double f, mt;

	assert_int_equal(ft_spec_resolve(spec, &cs, &err), 0);
	ft_model_query_init(&q, op, b);
	q.force_algo = true;
	q.algo = algo;
	q.force_proto = proto >= 0;
	q.proto = q.force_proto ? (enum ft_proto)proto : FT_PROTO_SIMPLE;
	assert_int_equal(ft_model_eval(&cs, &q, &m, &err), 0);
	busbw(spec, op, (int)algo, (int)m.proto, b, "flow");
	f = busbw_time_us;
	mt = m.time_s * 1e6;
	print_message("# %s %s %s/%s %llu: flow %.1f model %.1f us (ramp %.1f, floor %.1f, "
	              "%u channels) %+.2f%%\n",
	              spec, ft_op_name(op), ft_algo_name(m.algo), ft_proto_name(m.proto),
	              (unsigned long long)b, f, mt, m.pipe.ramp_s * 1e6, m.pipe.proxy_s * 1e6,
	              m.pipe.nchannels, 100 * (f / mt - 1));
	if (fabs(f / mt - 1) > fabs(*worst)) {
		*worst = f / mt - 1;
		snprintf(where, len, "%s %s %s/%s %llu", spec, ft_op_name(op), ft_algo_name(m.algo),
		         ft_proto_name(m.proto), (unsigned long long)b);
	}
	assert_close(f, mt, 0.10 * mt);
}

/*
 * NCCL's pipeline on every transport (ft__sim_pipe_terms()): the flow engine runs a ring's or
 * tree's flows whole and pays the model's ramp and proxy floor on InfiniBand (2 and 4 DGX
 * H100), RoCE (2 HGX H100 on Spectrum-X) and EFA (2 AWS p5): a forced ring's all-reduce,
 * all-gather and reduce-scatter and a forced tree's all-reduce at the tuner's protocol, and
 * the tree on Simple (whose ramp is most of its time at mid sizes: 624 of 843 us at 16 MiB
 * on 2 DGX H100), 1 MiB to 1 GiB. On one GB200 NVL72 rack (NVLink alone) the rings on
 * Simple, LL and LL128 and the tree all-reduce on LL and LL128: NCCL launches 3 of its 32
 * channels on the LL ring at 1 MiB (a thread's threshold of 8 B x 72 ranks) and its LL and
 * LL128 kernels move at the rates its tuner gives them (LL's 282 GB/s cap, the tree's 1/3.8
 * and 7/9 of the graph), which the flow engine takes from the model
 * (ft__sim_kernel_cap()). NVLS inside one node (DGX H100, DGX B200, the rack) pays the
 * model's ramp over its three stages. The flow engine's time is within 10% of the model's
 * with its pipeline in all 192 cases (worst in the docs, sim internals). Before, the flow
 * engine paid neither term off GPUDirect-TCPX/O and 25 cases were more than 10% off: the
 * Simple tree of 16 MiB on 2 DGX H100 took 221 us against the model's 843, on 2 p5 370
 * against 1,615 (-77.1%, the worst); the rack's LL ring at 1 MiB 98.1 against 153.1 (all
 * 32 channels at the wire's rate), its LL tree at 1 GiB 6,577 against 14,586 (-54.9%),
 * NVLS on the rack at 64 MiB 167.3 against 265.4 (no ramp).
 */
static void
test_flow_pays_the_pipeline_everywhere(void **state)
{
	static const char *const specs[] = { "dgx-h100:2", "dgx-h100:4", "hgx-h100-spcx:2",
		                             "aws-p5:2", "gb200-nvl72:18" };
	static const char *const nodes[] = { "dgx-h100", "dgx-b200", "gb200-nvl72:18" };
	static const struct {
		enum ft_op op;
		enum ft_algo algo;
		int proto; /* -1: the tuner's */
		bool nvl72; /* run on the NVL72 rack too */
	} runs[] = { { FT_OP_ALL_REDUCE, FT_ALGO_RING, -1, false },
		     { FT_OP_ALL_GATHER, FT_ALGO_RING, -1, false },
		     { FT_OP_REDUCE_SCATTER, FT_ALGO_RING, -1, false },
		     { FT_OP_ALL_REDUCE, FT_ALGO_TREE, -1, false },
		     { FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_SIMPLE, false },
		     { FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, true },
		     { FT_OP_ALL_GATHER, FT_ALGO_RING, FT_PROTO_SIMPLE, true },
		     { FT_OP_REDUCE_SCATTER, FT_ALGO_RING, FT_PROTO_SIMPLE, true },
		     { FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_LL, true },
		     { FT_OP_ALL_GATHER, FT_ALGO_RING, FT_PROTO_LL, true },
		     { FT_OP_REDUCE_SCATTER, FT_ALGO_RING, FT_PROTO_LL, true },
		     { FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_LL128, true },
		     { FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_LL, true },
		     { FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_LL128, true } };
	size_t i, j, nrun = 0;
	double worst = 0;
	char where[160] = "";
	uint64_t b;

	(void)state;
	busbw_routing = FT_ROUTING_DMODK; /* no two flows on one fabric link: the model's premise */
	for (i = 0; i < FT_ARRAY_SIZE(specs); i++)
		for (j = 0; j < FT_ARRAY_SIZE(runs); j++)
			for (b = 1u << 20; b <= (1u << 30); b *= 4) {
				bool rack = strncmp(specs[i], "gb200", 5) == 0;

				if (rack != runs[j].nvl72)
					continue;
				pipeline_case(specs[i], runs[j].op, runs[j].algo, runs[j].proto, b,
				              &worst, where, sizeof(where));
				nrun++;
			}
	for (i = 0; i < FT_ARRAY_SIZE(nodes); i++)
		for (b = 1u << 20; b <= (1u << 30); b *= 4) {
			pipeline_case(nodes[i], FT_OP_ALL_REDUCE, FT_ALGO_NVLS, FT_PROTO_SIMPLE, b,
			              &worst, where, sizeof(where));
			nrun++;
		}
	busbw_routing = -1;
	assert_int_equal(nrun, 4 * 5 * 6 + 9 * 6 + 3 * 6);
	print_message("# pipeline everywhere: %zu cases, worst time %+.2f%% (%s)\n", nrun,
	              100 * worst, where);
}

/*
 * Where the flow engine and the model differed by more than the pipeline. A ring all-reduce
 * on Simple across nodes (2 and 4 DGX H100, 2 HGX H100 on Spectrum-X, 2 AWS p5), 1 MiB to
 * 1 GiB: NCCL's tuner prices its latency x 1.4 (kb NA-MODEL, the ring's plateau) to steer
 * its pick, the run does not pay it, and the model's time no longer does (model/eval.c).
 * Before, the model was up to 28% slower (2 AWS p5 at 1 MiB: 399.7 us against the flow
 * engine's 288.7; 2 DGX H100, 190.4 against 138.9). One GB200 NVL72 rack (72 ranks in one
 * NVLink domain): NCCL's tree inside a node is a chain (src/graph/connect.cc), 2 x 71
 * steps at NVLink's per-hop latency, the model's; the flow engine ran a binary tree of
 * 2 x 7 steps and was 47% fast on Simple at 1 MiB (588.0 us against 1,109.0), 62% on
 * LL128. On Simple 1 MiB to 1 GiB, on LL128 1 to 16 MiB (above, the tree's LL128
 * bandwidth differs, not its latency). All within 10% of the model with its pipeline.
 */
static void
test_flow_pays_the_latency_everywhere(void **state)
{
	static const struct {
		const char *spec;
		enum ft_algo algo;
		enum ft_proto proto;
		uint64_t max;
	} runs[] = { { "dgx-h100:2", FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30 },
		     { "dgx-h100:4", FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30 },
		     { "hgx-h100-spcx:2", FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30 },
		     { "aws-p5:2", FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30 },
		     { "gb200-nvl72:18", FT_ALGO_TREE, FT_PROTO_SIMPLE, 1u << 30 },
		     { "gb200-nvl72:18", FT_ALGO_TREE, FT_PROTO_LL128, 1u << 30 } };
	size_t j, nrun = 0;
	double worst = 0;
	char where[160] = "";
	uint64_t b;

	(void)state;
	busbw_routing = FT_ROUTING_DMODK; /* no two flows on one fabric link: the model's premise */
	for (j = 0; j < FT_ARRAY_SIZE(runs); j++)
		for (b = 1u << 20; b <= runs[j].max; b *= 4) {
			struct ft_cluster_spec cs;
			struct ft_model_query q;
			struct ft_model_result m;
			struct ft_error err = { 0 };
			double f, mt;

			assert_int_equal(ft_spec_resolve(runs[j].spec, &cs, &err), 0);
			ft_model_query_init(&q, FT_OP_ALL_REDUCE, b);
			q.force_algo = true;
			q.algo = runs[j].algo;
			q.force_proto = true;
			q.proto = runs[j].proto;
			assert_int_equal(ft_model_eval(&cs, &q, &m, &err), 0);
			busbw(runs[j].spec, FT_OP_ALL_REDUCE, (int)runs[j].algo, (int)runs[j].proto, b,
			      "flow");
			f = busbw_time_us;
			mt = m.time_s * 1e6;
			nrun++;
			print_message("# %s all_reduce %s/%s %llu: flow %.1f model %.1f us (ramp "
			              "%.1f) %+.2f%%\n",
			              runs[j].spec, ft_algo_name(m.algo), ft_proto_name(m.proto),
			              (unsigned long long)b, f, mt, m.pipe.ramp_s * 1e6,
			              100 * (f / mt - 1));
			if (fabs(f / mt - 1) > fabs(worst)) {
				worst = f / mt - 1;
				snprintf(where, sizeof(where), "%s all_reduce %s/%s %llu", runs[j].spec,
				         ft_algo_name(m.algo), ft_proto_name(m.proto),
				         (unsigned long long)b);
			}
			assert_close(f, mt, 0.10 * mt);
		}
	busbw_routing = -1;
	assert_int_equal(nrun, 6 * 6);
	print_message("# latency everywhere: %zu cases, worst time %+.2f%% (%s)\n", nrun,
	              100 * worst, where);
}

/*
 * The closed form of the ramp over whole flows: a forced ring broadcast (Simple) is NCCL's
 * chain from the root, n - 1 stages, one 512 KiB chunk (a Simple slot) per channel and
 * loop; its ramp is the n - 2 loops the first chunk takes to reach the last stage, (n - 2)
 * x (bytes / bandwidth) / loops, with loops = bytes / (channels x 512 KiB) rounded up. The
 * flow engine's time is that of the same flows without the pipeline (packet.chunking:
 * off) plus the ramp, to 1e-6 us, on 2 DGX H100 (16 ranks) at 64 MiB; the proxy posts
 * 2 x loops messages of 1 us, a floor that does not bind. --channels (NCCL_MIN_NCHANNELS =
 * NCCL_MAX_NCHANNELS, kb ENV-NCHANNELS) sets the loops, so the ramp and the floor, in both
 * engines: 2 channels make 64 loops, 8 make 16, and at 1 MiB (one loop whatever the count)
 * the ramp is (n - 2) x bytes / bandwidth, twice as long on 4 channels as on 8 (each
 * channel a ring of its share of the bandwidth).
 */
static void
test_flow_ramp_closed_form(void **state)
{
	static const struct {
		uint64_t bytes;
		uint32_t channels, loops;
	} cases[] = { { 64u << 20, 0, 0 },  { 64u << 20, 2, 64 }, { 64u << 20, 8, 16 },
		      { 1u << 20, 4, 1 },   { 1u << 20, 8, 1 } };
	const uint32_t n = 16;
	double ramp_us[FT_ARRAY_SIZE(cases)];
	size_t k;

	(void)state;
	for (k = 0; k < FT_ARRAY_SIZE(cases); k++) {
		struct ft_model_result m = model_pick_ch("dgx-h100:2", FT_OP_BROADCAST, FT_ALGO_RING,
		                                         cases[k].bytes, cases[k].channels);
		uint64_t chunk = 512u << 10, loops;
		double on, off, ramp;

		assert_int_equal(m.pipe.stages, n - 1);
		assert_int_equal(m.pipe.chunk_bytes, chunk);
		if (cases[k].channels) {
			assert_int_equal(m.pipe.nchannels, cases[k].channels);
			assert_int_equal(m.pipe.loops, cases[k].loops);
		}
		loops = (cases[k].bytes + m.pipe.nchannels * chunk - 1) /
		        (m.pipe.nchannels * chunk);
		assert_int_equal(m.pipe.loops, loops);
		ramp = (n - 2) * m.bw_part_s / (double)loops;
		assert_close(m.pipe.ramp_s, ramp, 1e-9 * ramp);
		assert_close(m.pipe.messages, 2.0 * loops, 0);
		assert_close(m.pipe.proxy_s, 2.0 * loops * 1e-6, 1e-12);
		on = flow_time_ch_us("dgx-h100:2", FT_OP_BROADCAST, FT_ALGO_RING, cases[k].bytes,
		                     cases[k].channels, FT_PKT_CHUNK_AUTO);
		off = flow_time_ch_us("dgx-h100:2", FT_OP_BROADCAST, FT_ALGO_RING, cases[k].bytes,
		                      cases[k].channels, FT_PKT_CHUNK_OFF);
		print_message("# broadcast %llu B, %u channels (%llu loops): flow %.6f = %.6f + "
		              "ramp %.6f us (model %.3f us)\n",
		              (unsigned long long)cases[k].bytes, m.pipe.nchannels,
		              (unsigned long long)loops, on, off, ramp * 1e6, m.time_s * 1e6);
		assert_true(m.pipe.proxy_s * 1e6 < off);
		assert_close(on - off, ramp * 1e6, 1e-6);
		ramp_us[k] = on - off;
	}
	/* one loop: the ramp follows the channels' bandwidth */
	assert_close(ramp_us[3], 2 * ramp_us[4], 1e-6);
	/* 2 channels: 4 times the loops of 8, each a quarter as fast: the same ramp */
	assert_close(ramp_us[1], ramp_us[2], 1e-6 * ramp_us[2]);
}

/*
 * The closed form of a step's fixed cost: a forced ring all-reduce (Simple) over 2 DGX
 * H100 crosses the network on 2 of its 30 steps (2(N - 1), kb NA-ALGO-RING), and a forced
 * tree on 2 of its steps (2 log2 N), so 10 us of hypervisor cost per message
 * (nics.vm_overhead) makes the flow engine's 20 us slower at any size, as it adds 20 us
 * to the steps of the model's latency term (124.2 -> 144.2 us at 4 MiB for the ring,
 * before the model's ring plateau factor). The packet engine pays the same on the same
 * steps, exactly (pkt_setup.c phase_cost()); before, it paid none of the network's step
 * costs, and ran as fast with the hypervisor as without.
 */
static void
test_vm_overhead_per_network_step(void **state)
{
	static const struct {
		const char *engine;
		enum ft_algo algo;
		uint64_t bytes;
	} cases[] = { { "flow", FT_ALGO_RING, 4u << 20 },   { "flow", FT_ALGO_RING, 256u << 20 },
		      { "flow", FT_ALGO_TREE, 4u << 20 },   { "packet", FT_ALGO_RING, 1u << 20 },
		      { "packet", FT_ALGO_RING, 4u << 20 }, { "packet", FT_ALGO_TREE, 4u << 20 } };
	char bare[512], vm[512];
	double floor_us;
	size_t k;

	(void)state;
	spec_file("simmodel-bare.yaml",
	          "name: h100-bare\n"
	          "nodes: { preset: dgx-h100, count: 2 }\n"
	          "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n",
	          bare, sizeof(bare));
	spec_file("simmodel-vm1.yaml", vm_text, vm, sizeof(vm));
	for (k = 0; k < FT_ARRAY_SIZE(cases); k++) {
		double t0, t1;

		busbw(bare, FT_OP_ALL_REDUCE, cases[k].algo, FT_PROTO_SIMPLE, cases[k].bytes,
		      cases[k].engine);
		t0 = busbw_time_us;
		busbw(vm, FT_OP_ALL_REDUCE, cases[k].algo, FT_PROTO_SIMPLE, cases[k].bytes,
		      cases[k].engine);
		t1 = busbw_time_us;
		/* the flow engine: the proxy's floor too, messages x 11 us, where it binds; the
		 * packet engine's rings too (pkt_setup.c proxy_paid(): every protocol's ring on
		 * NCCL's launched channels), its trees not */
		floor_us = strcmp(cases[k].engine, "flow") != 0 && cases[k].algo != FT_ALGO_RING ?
		                   0 :
		           model_pick(vm, FT_OP_ALL_REDUCE, cases[k].algo, cases[k].bytes)
		                           .pipe.proxy_s * 1e6;
		print_message("# %s %s %llu: %.4f -> %.4f us (floor %.1f)\n", cases[k].engine,
		              ft_algo_name(cases[k].algo), (unsigned long long)cases[k].bytes, t0,
		              t1, floor_us);
		assert_close(t1, FT_MAX(t0 + 20.0, floor_us), 0.05);
	}
	remove(bare);
	remove(vm);
}

/*
 * NCCL's window by release, in closed form: a direct all-to-all of S = 64 MiB over two
 * nodes of one DGX H100 GPU each (one 400G NIC at the GPU's 48 GB/s Gen5 path), 500 us
 * cables on one rail. Each rank's one network send, S / 2, runs on the channels its
 * release gives a network peer (kb [ENV-NCH_NET_PEER]; NVIDIA/nccl src/graph/paths.cc
 * ncclTopoGetNchannels(), ncclTopoComputeP2pChannels()): 2 up to v2.28, before v2.20
 * NCCL_NCHANNELS_PER_NET_PEER's default (v2.18.6-1), from v2.20 its 2 halved only while
 * 2 x nRanks > 4 x the unrounded p2p channels (v2.20.3-1 to v2.28.9-1), kept here since
 * 2 x 2 <= 4 x 4; 4 from v2.29 (v2.29.2-1: one per NCCL_P2P_PER_CHANNEL_NET_BW, 14 GB/s,
 * of the GPU's NICs, ceil(48 / 14) = 4; kept while 4 x ceil(2 / 8) <= 4). The 4 p2p
 * channels: min(nChannels, 64) and its pow2Up() (ncclTopoComputeP2pChannels()), nChannels
 * the model's ring channels of this cluster, 4 (ft_model_comm_nchannels(); with one GPU a
 * node the NVSwitch nodes' one per NVLink, 18, does not apply: model/channels.c,
 * ft_model_p2p_nchannels_raw_of()). Each keeps NCCL_STEPS 8 chunks of
 * 128 KiB in flight a round trip R = 2 x 1,000.15 = 2,000.30 us (twice the fabric's
 * one-way latency: the rail's two 500 us cables and 0.15 us more), alone in its proxy op
 * (no slots shared), so its window is w = c x 8 x 128 KiB / R and the send takes
 * (S / 2) / w = S R / (c x 2 MiB): 16 R at c = 2, 8 R at c = 4; the op adds R / 2 (the
 * last chunk's way there) and its fixed costs (tens of us). Every other term of the time
 * is the same at each release (latencies, launch), so the model's time at c = 2 less the
 * newest's is 8 R (16,002.4 us) to the rounding, and at 2.18 and 2.28 the same time; the
 * flow engine agrees with the model at each release.
 */
static void
window_by_release_closed_form(void)
{
	static const char text[] = "name: one-gpu-rail\n"
	                           "nodes: { preset: dgx-h100, count: 2, gpus: 1 }\n"
	                           "fabric: { kind: rail-fat-tree, link: ndr, tiers: 2, radix: 64, "
	                           "cable_latency: 500us }\n";
	static const struct {
		uint32_t version, channels;
	} rel[] = { { 0, 4 }, { 21899, 2 }, { 22899, 2 }, { 23099, 4 } };
	const double S = 64 << 20, chunk = 128 << 10;
	struct ft_cluster_spec cs;
	struct ft_model_links l;
	struct ft_error err = { 0 };
	char path[512];
	double R, t_new = 0;

	spec_file("simmodel-window.yaml", text, path, sizeof(path));
	assert_int_equal(ft_spec_resolve(path, &cs, &err), 0);
	assert_int_equal(ft_model_links_get(&cs, 0, 0, 0, &l, &err), 0);
	R = 2 * l.fabric_lat_s;
	assert_close(R, 2 * (2 * 500e-6), 1e-6); /* the rail's two cables, there and back */
	/* the p2p channels the network peer's count is weighed against, unrounded and NCCL's */
	assert_int_equal(ft_model_comm_nchannels(&l), 4);
	assert_int_equal(ft_model_p2p_nchannels_raw_of(&l), 4);
	assert_int_equal(ft_model_p2p_nchannels_of(&l), 4);
	for (size_t i = 0; i < FT_ARRAY_SIZE(rel); i++) {
		double m, f, t, send = S / 2 / (rel[i].channels * 8 * chunk / R);

		busbw_nccl = rel[i].version;
		m = busbw(path, FT_OP_ALLTOALL, FT_ALGO_DIRECT, -1, 64u << 20, NULL);
		t = busbw_time_us * 1e-6;
		assert_string_equal(model_bottleneck, "p2p:window");
		f = busbw(path, FT_OP_ALLTOALL, FT_ALGO_DIRECT, -1, 64u << 20, "flow");
		print_message("# nccl %u alltoall 64 MiB, one GPU a node, 500 us cables: %u "
		              "channels, window %.2f us of %.2f; flow %.3f model %.3f GB/s\n",
		              rel[i].version, rel[i].channels, send * 1e6, t * 1e6, f, m);
		assert_agree(f, m);
		if (i == 0) {
			t_new = t;
			/* the rest: the last chunk's way there, R / 2, and the op's fixed costs
			 * (base latency, launch: 22.4 us) */
			assert_true(t > send + R / 2 && t < send + R / 2 + 50e-6);
		}
		assert_close(t - t_new, send - S / 2 / (4 * 8 * chunk / R), 1e-8);
	}
	busbw_nccl = 0;
	remove(path);
}

/*
 * `fabtune model --nccl V` and `fabtune sim --nccl V` (flow) price the same release: 2.18,
 * 2.21, 2.23, 2.27 and the newest on 2 DGX H100, the tuner's all-reduce at 64 MiB and 1 GiB
 * (2.18-2.19 run 32 ring channels there, later releases 16; the tree, NVLS and their
 * latencies by release), and a direct all-to-all on 4 at 64 MiB (v2.22-v2.27 place the p2p
 * rounds on other channels, v2.28.7 schedules groups of 8): within 10%.
 */
static void
flow_agrees_by_release(void)
{
	static const uint32_t releases[] = { 21899, 22199, 22399, 22799, 0 };
	static const uint64_t sizes[] = { 64u << 20, 1u << 30 };
	size_t i, k;

	for (i = 0; i < FT_ARRAY_SIZE(releases); i++) {
		double f, m;

		busbw_nccl = releases[i];
		for (k = 0; k < FT_ARRAY_SIZE(sizes); k++) {
			m = busbw("dgx-h100:2", FT_OP_ALL_REDUCE, -1, -1, sizes[k], NULL);
			f = busbw("dgx-h100:2", FT_OP_ALL_REDUCE, -1, -1, sizes[k], "flow");
			print_message("# nccl %u all_reduce %llu: flow %.2f model %.2f GB/s\n",
			              releases[i], (unsigned long long)sizes[k], f, m);
			assert_agree(f, m);
		}
		m = busbw("dgx-h100:4", FT_OP_ALLTOALL, FT_ALGO_DIRECT, -1, 64u << 20, NULL);
		f = busbw("dgx-h100:4", FT_OP_ALLTOALL, FT_ALGO_DIRECT, -1, 64u << 20, "flow");
		print_message("# nccl %u alltoall 64 MiB: flow %.2f model %.2f GB/s\n", releases[i],
		              f, m);
		assert_agree(f, m);
	}
	/* Where the window binds (500 us cables, PXN off): 2 channels a network peer before
	 * v2.29, 4 from it (18,026 against 10,025 us in the model); the flow engine's window
	 * follows the release. */
	for (i = 3; i < FT_ARRAY_SIZE(releases); i++) {
		double f, m;

		busbw_nccl = releases[i];
		m = busbw("tests/fixtures/spec/pxn-off-rail.yaml", FT_OP_ALLTOALL, FT_ALGO_DIRECT, -1,
		          64u << 20, NULL);
		f = busbw("tests/fixtures/spec/pxn-off-rail.yaml", FT_OP_ALLTOALL, FT_ALGO_DIRECT, -1,
		          64u << 20, "flow");
		print_message("# nccl %u alltoall 64 MiB, 500 us cables: flow %.2f model %.2f GB/s\n",
		              releases[i], f, m);
		assert_agree(f, m);
		/* the model's figures (2 and 4 channels a peer, their slots shared among the
		 * proxy op's sends by release); the window alone in closed form below */
		assert_close(m, releases[i] ? 3.61 : 6.49, 0.01);
	}
	busbw_nccl = 0;
	window_by_release_closed_form();
}

/*
 * Blackwell's ring LL128 cap a channel by release (model/tuner.c sm100_sets: 73.4 GB/s through
 * 2.28, 34.5 on one node in 2.29.2-2.29.3, 40.0 from 2.29.7) on one GB200 tray, a ring/LL128
 * all-reduce of 64 MiB and 1 GiB: the flow engine, which takes the kernel's cap from the
 * model (ft__sim_kernel_cap()), within 10% of the model with its pipeline at each release.
 * The kernel runs 32 channels (NCCL's 16 of the graph, copied), so the cap binds the time
 * nowhere here (32 x 34.5 = 1,104 GB/s above 720 x 0.92 = 662.4): the busbw stays within 5%
 * of 662.4 at 1 GiB, where only the tuner's pick reads 16 x 34.5 = 552. On a forced channel
 * count the kernel's channels are the tuner's, and 2.28.7's 2-node cap binds both engines.
 */
static void
test_flow_blackwell_ll128_by_release(void **state)
{
	static const uint32_t releases[] = { 22599, 22803, 22902, 22907, 0 };
	static const uint64_t sizes[] = { 64u << 20, 1u << 30 };
	size_t i, k;

	(void)state;
	for (i = 0; i < FT_ARRAY_SIZE(releases); i++) {
		busbw_nccl = releases[i];
		for (k = 0; k < FT_ARRAY_SIZE(sizes); k++) {
			double f, m;

			m = busbw("gb200-nvl72", FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_LL128,
			          sizes[k], NULL);
			f = busbw("gb200-nvl72", FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_LL128,
			          sizes[k], "flow");
			print_message("# nccl %u tray ring/ll128 %llu: flow %.2f model %.2f GB/s\n",
			              releases[i], (unsigned long long)sizes[k], f, m);
			assert_agree(f, m);
			if (sizes[k] == 1u << 30)
				assert_close(m, 662.4, 0.05 * 662.4);
		}
	}
	/* Where it binds the kernel: 2 DGX B200 on one forced channel of 40 GB/s, LL128's
	 * 0.92 x 40 = 36.8 GB/s busbw through 2.28.3, the 2-node cap 34.6 from 2.28.7 */
	busbw_channels = 1;
	for (i = 0; i < 2; i++) {
		double f, m, want = i == 0 ? 36.8 : 34.6;

		busbw_nccl = i == 0 ? 22803 : 22807;
		m = busbw("dgx-b200:2", FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_LL128, 1u << 30,
		          NULL);
		f = busbw("dgx-b200:2", FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_LL128, 1u << 30,
		          "flow");
		print_message("# nccl %u 2 x dgx-b200 ring/ll128 1 channel: flow %.2f model %.2f\n",
		              busbw_nccl, f, m);
		assert_agree(f, m);
		assert_close(m, want, 0.01 * want);
	}
	busbw_channels = 0;
	busbw_nccl = 0;
}

static void
test_flow_agrees_with_model(void **state)
{
	static const char *const specs[] = { "dgx-h100",    "dgx-h100:2", "dgx-h100:4",
		                             "dgx-h100:16", "dgx-a100:4", "dgx-b200:4",
		                             "hgx-h200:8",  "pcie-l40s:4",
		                             /* one NVLink domain over 18 trays */
		                             "gb200-nvl72:18", "gb300-nvl72:18" };
	static const enum ft_op ops[] = { FT_OP_ALL_REDUCE, FT_OP_ALL_GATHER, FT_OP_REDUCE_SCATTER,
		                          FT_OP_BROADCAST,  FT_OP_SENDRECV,   FT_OP_ALLTOALL };
	static const uint64_t sizes[] = { 256u << 20, 1u << 30 };
	size_t i, j, k, nrun = 0;
	char four_nics[512], one_nic[512], p5[512];
	const char *files[3];
	FILE *fp;

	(void)state;
	agree_reset();
	/* Four NICs for eight GPUs, and one 400G RoCE NIC per node (the NIC binds). */
	snprintf(four_nics, sizeof(four_nics), "%s/simmodel-4nic.yaml", ft_test_build_root());
	fp = fopen(four_nics, "w");
	assert_non_null(fp);
	fputs("name: h100-4nic\nnodes: { preset: dgx-h100, count: 4, nics: { count: 4 } }\n"
	      "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n",
	      fp);
	fclose(fp);
	mtu_file(4096, one_nic, sizeof(one_nic));
	/* and four NICs per GPU (AWS p5): every GPU's traffic spread over its four */
	spec_file("simmodel-p5.yaml", four_nics_per_gpu, p5, sizeof(p5));
	files[0] = four_nics;
	files[1] = one_nic;
	files[2] = p5;
	for (i = 0; i < FT_ARRAY_SIZE(files); i++)
		for (j = 0; j < FT_ARRAY_SIZE(ops); j++) {
			double fl, m;

			if (ops[j] == FT_OP_ALLTOALL)
				continue;
			m = busbw(files[i], ops[j], -1, -1, 1u << 30, NULL);
			fl = busbw(files[i], ops[j], -1, -1, 1u << 30, "flow");
			if (fabs(fl / m - 1) > 0.10)
				print_error("%s %s: flow %.2f model %.2f GB/s\n", files[i],
				            ft_op_name(ops[j]), fl, m);
			assert_agree(fl, m);
		}
	flow_agrees_on_alltoall(four_nics);
	flow_agrees_by_release();
	flow_agrees_on_collnet_direct();
	flow_agrees_on_collnet_chain();
	flow_agrees_on_nvls_net();
	analytic_prices_the_collnet_variant();
	remove(four_nics);
	remove(one_nic);
	remove(p5);
	for (i = 0; i < FT_ARRAY_SIZE(specs); i++)
		for (j = 0; j < FT_ARRAY_SIZE(ops); j++)
			for (k = 0; k < FT_ARRAY_SIZE(sizes); k++) {
				double f, m;

				if (ops[j] == FT_OP_ALLTOALL && strchr(specs[i], ':'))
					continue;
				m = busbw(specs[i], ops[j], -1, -1, sizes[k], NULL);
				f = busbw(specs[i], ops[j], -1, -1, sizes[k], "flow");
				nrun++;
				if (fabs(f / m - 1) > 0.10)
					print_error("%s %s %llu: flow %.2f model %.2f GB/s\n",
					            specs[i], ft_op_name(ops[j]),
					            (unsigned long long)sizes[k], f, m);
				assert_agree(f, m);
			}
	assert_true(nrun >= 70);
	flow_agrees_across_domains();
	flow_agrees_on_nvl72();
	flow_agrees_on_uneven_nodes();
	flow_agrees_on_trees();
	flow_agrees_on_nvls_tree_by_loops();
	flow_agrees_on_b200_nvls_tree();
	flow_pays_the_network_step_costs();
	flow_pays_the_tcpx_pipeline();
	print_message("# flow against model, every sweep: worst busbw %+.1f%% (%s)\n",
	              100 * agree_worst, agree_what);
}

/*
 * Four GB200 NVL72 domains (288 GPUs): NCCL's ring enters and leaves each
 * domain through one NIC per channel, and its channels are those of its ring
 * graph in a domain with NICs (src/graph/search.cc: 16 x 45.1 GB/s on the
 * newest release), not one per NIC of the domain (72): the search hands
 * channel c the domain's NIC c (ncclTopoSearchRecNet tries the NICs from the
 * channel's index), the NICs of GPUs 0 to 15, trays 0 to 3. So in a ring
 * all-gather of S those 16 NICs of every domain send exactly one channel's
 * hop out of its domain, (n - 1) / n x S / 16 with n = 288, and receive as
 * much, and the other 56 carry nothing; NVLink carries the rest (nothing
 * leaves a domain but through its NICs). Before, the flow engine ran 72
 * channels, S / 72 on every NIC.
 */
static void
test_nvl72_domains_use_graph_nics(void **state)
{
	static const char text[] = "name: t\n"
	                           "cluster: gb200-nvl72:72\n"
	                           "jobs:\n"
	                           "  - name: a\n"
	                           "    ops:\n"
	                           "      - {op: all_gather, size: 1GiB, algo: ring, proto: simple}\n";
	struct ft_error err = { 0 };
	struct ft_cluster_spec cs;
	struct ft_model_links l;
	struct ft_sim_report rep;
	uint32_t node, nic;
	double want;

	(void)state;
	assert_int_equal(ft_spec_resolve("gb200-nvl72:72", &cs, &err), 0);
	assert_int_equal(ft_model_links_get(&cs, 0, 0, 0, &l, &err), 0);
	assert_int_equal(l.nchannels, 16);
	want = 287.0 / 288 * (double)(1u << 30) / l.nchannels;
	run_ok(text, "flow", &rep);
	assert_int_equal(ft_run_row(&rep.run, 0)->nranks, 288);
	for (node = 0; node < 72; node++)
		for (nic = 0; nic < 4; nic++) {
			char out[64], in[64];
			double b_out = 0, b_in = 0, w = node % 18 < 4 ? want : 0;
			size_t i;

			snprintf(out, sizeof(out), "n%u.nic%u -> ", node, nic);
			snprintf(in, sizeof(in), " -> n%u.nic%u", node, nic);
			for (i = 0; i < rep.ports.len; i++) {
				const struct ft_sim_hot_link *h = ft_vec_at(&rep.ports, i);
				const char *arrow = strstr(h->name, " -> ");

				if (strncmp(h->name, out, strlen(out)) == 0 &&
				    strncmp(arrow + 4, "n", 1) != 0)
					b_out += h->stat.bytes;
				if (arrow && strcmp(arrow, in) == 0 &&
				    strncmp(h->name, "n", 1) != 0)
					b_in += h->stat.bytes;
			}
			assert_close(b_out, w, want * 1e-5);
			assert_close(b_in, w, want * 1e-5);
		}
	/* host links (NIC <-> leaf) carry nothing else: 4 x 16 NICs, both ways */
	assert_close(tier_bytes(&rep, "host", 1), 2 * 64 * want, 2 * 64 * want * 1e-5);
	ft_sim_report_release(&rep);
}

/*
 * A GPU that drives four NICs spreads its traffic over all four, a QP on each
 * as NCCL puts channels on every NIC of a GPU: in a 256 MiB ring all-reduce over
 * 16 GPUs every one of the 32 NICs of a node sends 2 x 15/16 x S / 32 (8
 * channels, one per GPU's NIC set, each split four ways), and the bus bandwidth
 * is 4x that of one 50G NIC per GPU (the NICs bind: 4 x 8 x 6.25 = 200 GB/s
 * per node, under NVLink's 370), as the model has it.
 */
static void
test_nics_per_gpu_spread(void **state)
{
	static const char text[] =
	        "name: t\n"
	        "cluster:\n"
	        "  name: p5-like\n"
	        "  nodes: { preset: dgx-h100, count: 2, nics: { count: 32, rate: 50Gbps, "
	        "per_gpu: 4 } }\n"
	        "  fabric: { kind: fat-tree, radix: 128, tiers: 2, rate: 50Gbps }\n"
	        "jobs:\n"
	        "  - name: a\n"
	        "    ops:\n"
	        "      - {op: all_reduce, size: 256MiB, algo: ring, proto: simple}\n";
	double want = 2.0 * 15 / 16 * (256.0 * 1048576) / 32, one, four, m;
	char one_path[512], four_path[512];
	struct ft_sim_report rep;
	uint32_t node, nic;
	size_t i;

	(void)state;
	run_ok(text, "flow", &rep);
	for (node = 0; node < 2; node++)
		for (nic = 0; nic < 32; nic++) {
			char prefix[64];
			double b = 0;

			snprintf(prefix, sizeof(prefix), "n%u.nic%u -> leaf", node, nic);
			for (i = 0; i < rep.ports.len; i++) {
				const struct ft_sim_hot_link *h = ft_vec_at(&rep.ports, i);

				if (strncmp(h->name, prefix, strlen(prefix)) == 0)
					b += h->stat.bytes;
			}
			assert_close(b, want, want * 1e-5);
		}
	ft_sim_report_release(&rep);

	spec_file("simmodel-1pergpu.yaml", one_nic_per_gpu, one_path, sizeof(one_path));
	spec_file("simmodel-4pergpu.yaml", four_nics_per_gpu, four_path, sizeof(four_path));
	one = busbw(one_path, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30, "flow");
	four = busbw(four_path, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30, "flow");
	m = busbw(four_path, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30, NULL);
	assert_close(four / one, 4.0, 0.4);
	assert_agree(four, m);
	remove(one_path);
	remove(four_path);
}

/* The capacity of NIC @r of node @node's host link in @spec's topology. */
static double
host_cap(const struct ft_cluster_spec *spec, uint32_t node, uint32_t r)
{
	struct ft_error err = { 0 };
	struct ft_topo *t = NULL;
	uint32_t first, count, i;
	double cap = 0;

	assert_int_equal(ft_topo_build(spec, &t, &err), 0);
	ft_topo_out_links(t, ft_topo_nic(t, node, r), &first, &count);
	for (i = first; i < first + count; i++)
		if (ft_topo_link(t, i)->kind == FT_L_HOST)
			cap = ft_topo_link(t, i)->cap_Bps;
	ft_topo_free(t);
	return cap;
}

/*
 * Node groups: two DGX H100 with 400G NICs and two with 200G NICs on one
 * fabric. A ring across them moves at the pace of its slowest member: the
 * model gives exactly the bus bandwidth of four 200G nodes, and the flow
 * engine, whose topology gives each node its group's NIC rate, agrees with it
 * (and with the all-200G cluster) where a uniform 400G cluster is twice as fast.
 */
static void
test_node_groups_slowest_member(void **state)
{
	static const char mixed_text[] =
	        "name: mixed\n"
	        "nodes:\n"
	        "  - { preset: dgx-h100, count: 2 }\n"
	        "  - { preset: dgx-h100, count: 2, nics: { count: 8, rate: 200Gbps } }\n"
	        "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n";
	static const char slow_text[] =
	        "name: slow\n"
	        "nodes: { preset: dgx-h100, count: 4, nics: { count: 8, rate: 200Gbps } }\n"
	        "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n";
	static const char fast_text[] = "name: fast\n"
	                                "nodes: { preset: dgx-h100, count: 4 }\n"
	                                "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n";
	char mixed[512], slow[512], fast[512];
	struct ft_cluster_spec cs;
	struct ft_error err = { 0 };
	double mm, ms, mf, fm, fs;

	(void)state;
	spec_file("simmodel-mixed.yaml", mixed_text, mixed, sizeof(mixed));
	spec_file("simmodel-slow.yaml", slow_text, slow, sizeof(slow));
	spec_file("simmodel-fast.yaml", fast_text, fast, sizeof(fast));
	mm = busbw(mixed, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30, NULL);
	ms = busbw(slow, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30, NULL);
	mf = busbw(fast, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30, NULL);
	assert_close(mm, ms, 1e-9 * ms);
	assert_true(mf > 1.5 * mm);
	fm = busbw(mixed, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30, "flow");
	fs = busbw(slow, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30, "flow");
	assert_close(fm, fs, 0.02 * fs);
	assert_agree(fm, mm);
	/* each node's NICs at its group's rate */
	assert_int_equal(ft_spec_resolve(mixed, &cs, &err), 0);
	assert_close(host_cap(&cs, 2, 0), 25e9, 1);
	assert_close(host_cap(&cs, 3, 7), 25e9, 1);
	assert_true(host_cap(&cs, 1, 0) > 1.9 * 25e9);
	remove(mixed);
	remove(slow);
	remove(fast);
}

/* A scenario of one job of one op (@2) on the cluster of spec file @1. */
/* One DGX H100 beside two 4-GPU H100 nodes with two 200G NICs each (examples/mixed-gpus.yaml). */
static const char mixed_gpus_text[] =
        "name: mixed-gpus\n"
        "nodes:\n"
        "  - { preset: dgx-h100, count: 1 }\n"
        "  - { preset: dgx-h100, count: 2, gpus: 4, nics: { count: 2, rate: 200Gbps } }\n"
        "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n";

static const char job_on[] = "name: t\n"
                             "cluster: %s\n"
                             "jobs:\n"
                             "  - name: a\n"
                             "    ops:\n"
                             "      - {%s}\n";

/*
 * Out of memory while the runner sets a schedule's release latencies is the caller's error:
 * on node groups the model's links of the cluster, from which ft__sim_release_lats() works
 * out the ring's floor inside nodes and the net step once a schedule, take an allocation.
 * Before, ft__sim_far_steps() read them per phase and a failed allocation gave 0, the run
 * going on shorter. A ring all-reduce (LL: the floor, 1 us, above NVLink's 0.6) over the
 * three nodes of examples/mixed-gpus.yaml: every failed allocation gives FT_ENOMEM; without
 * one, the floor and the net step are the model's own (ft_model_ring_intra_floor_s() at the
 * model's time, ft_model_net_step_s() less the fabric latency, unflushed).
 */
static void
test_release_lats_oom_is_the_callers(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE, .algo = FT_ALGO_RING,
		                  .proto = FT_PROTO_LL, .nranks = 16, .ranks_per_node = 1,
		                  .bytes = 1u << 20 };
	struct ft_cluster_spec cs;
	struct ft_model_links l;
	struct ft_error err = { 0 };
	char mixed[512];
	double floor_s, step_s;
	unsigned long n;

	(void)state;
	spec_file("simmodel-oom.yaml", mixed_gpus_text, mixed, sizeof(mixed));
	assert_int_equal(ft_spec_resolve(mixed, &cs, &err), 0);
	assert_true(cs.ngroups >= 2);
	assert_int_equal(ft_model_links_get(&cs, 0, 0, 0, &l, NULL), 0);
	l.time_any_vendor = true;
	floor_s = ft_model_ring_intra_floor_s(&l, FT_PROTO_LL);
	l.time_any_vendor = false;
	l.time_unflushed = true;
	step_s = ft_model_net_step_s(&l, FT_PROTO_LL) - l.fabric_lat_s;
	assert_close(floor_s, 1e-6, 1e-12);
	for (n = 1; n < 1000; n++) {
		struct ft_schedule sc;
		bool fired;
		int rc;

		ft_schedule_init(&sc);
		assert_int_equal(ft_coll_schedule(&a, &sc, &err), 0);
		ft__alloc_fail_at(n);
		rc = ft__sim_release_lats(&cs, &sc, false);
		fired = ft__alloc_failed();
		ft__alloc_fail_at(0);
		if (!fired) {
			assert_int_equal(rc, 0);
			assert_true(sc.release_set);
			assert_close(sc.ring_intra_floor_s, floor_s, 1e-15);
			assert_close(sc.net_step_s, FT_MAX(0.0, step_s), 1e-15);
			ft_schedule_release(&sc);
			break;
		}
		assert_int_equal(rc, FT_ENOMEM);
		ft_schedule_release(&sc);
	}
	assert_true(n > 1); /* an allocation was failed */
	remove(mixed);
}

/* two node groups, as few ranks as they take: a 4-GPU node and a 2-GPU one */
static const char small_mixed[] =
        "name: small-mixed\n"
        "nodes:\n"
        "  - { preset: dgx-h100, count: 1, gpus: 4, nics: { count: 2 } }\n"
        "  - { preset: dgx-h100, count: 1, gpus: 2, nics: { count: 1 } }\n"
        "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n";

/*
 * NCCL's pipeline of an op on a 4-GPU node and a 2-GPU one (ft__sim_pipe_model()): the
 * model's terms for the ranks laid out over the cluster (no ranks per node), as the tuner
 * is asked there, to the bit. The 6 ranks divide evenly over the 2 nodes; asked for 3 a
 * node, the model refused (a node of 2 GPUs) and the op had no terms: the flow engine's
 * ramp and the packet tree's fill and chain channels never applied on such clusters.
 */
static void
test_pipe_model_on_node_groups(void **state)
{
	static const enum ft_algo algos[] = { FT_ALGO_RING, FT_ALGO_TREE };
	char mixed[512];
	struct ft_cluster_spec cs;
	struct ft_error err = { 0 };
	struct ft_topo *t = NULL;
	uint32_t gpus[6];
	size_t i;

	(void)state;
	spec_file("simmodel-pipe.yaml", small_mixed, mixed, sizeof(mixed));
	assert_int_equal(ft_spec_resolve(mixed, &cs, &err), 0);
	assert_int_equal(ft_topo_build(&cs, &t, &err), 0);
	for (i = 0; i < 6; i++)
		gpus[i] = ft_topo_gpu(t, i < 4 ? 0 : 1, (uint32_t)(i < 4 ? i : i - 4));
	for (i = 0; i < FT_ARRAY_SIZE(algos); i++) {
		struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
			                  .algo = algos[i],
			                  .proto = FT_PROTO_SIMPLE,
			                  .nranks = 6,
			                  .ranks_per_node = 1,
			                  .bytes = 1u << 20 };
		struct ft_model_pipeline pl, want;
		struct ft_model_links l;
		struct ft_schedule s;
		struct ft_sim_op op = { .sched = &s, .rank_gpu = gpus };

		ft_schedule_init(&s);
		assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
		assert_int_equal(ft__sim_pipe_model(t, &op, &pl, NULL), 0);
		assert_int_equal(ft__sim_links(&cs, 6, 0, 0, &l), 1);
		assert_int_equal(ft_model_pipe_terms(&l, FT_OP_ALL_REDUCE, algos[i],
		                                     FT_PROTO_SIMPLE, 1u << 20, &want, NULL),
		                 0);
		assert_true(want.nchannels > 0 && want.chunk_bytes > 0);
		assert_true(algos[i] != FT_ALGO_TREE || want.fill_s > 0);
		assert_int_equal(pl.nchannels, want.nchannels);
		assert_int_equal(pl.chunk_bytes, want.chunk_bytes);
		assert_int_equal(pl.loops, want.loops);
		assert_int_equal(pl.stages, want.stages);
		assert_true(pl.fill_s == want.fill_s && pl.round_s == want.round_s);
		assert_true(pl.messages == want.messages && pl.proxy_s == want.proxy_s);
		ft_schedule_release(&s);
	}
	ft_topo_free(t);
	remove(mixed);
}

/* Bytes that NIC @r of node @node sent into the fabric (its host link up). */
static double
nic_sent(const struct ft_sim_report *rep, uint32_t node, uint32_t r)
{
	char prefix[64];
	double b = 0;
	size_t i;

	snprintf(prefix, sizeof(prefix), "n%u.nic%u -> leaf", node, r);
	for (i = 0; i < rep->ports.len; i++) {
		const struct ft_sim_hot_link *h = ft_vec_at(&rep->ports, i);

		if (strncmp(h->name, prefix, strlen(prefix)) == 0)
			b += h->stat.bytes;
	}
	return b;
}

/*
 * Nodes of different GPU counts: one DGX H100 (8 GPUs, 8 x 400G NICs) beside
 * two 4-GPU H100 nodes with 2 x 200G NICs. NCCL builds one ring over the 16
 * ranks: each channel visits a node's own GPUs over NVLink and leaves it
 * once, so a ring all-reduce has 2(n-1) = 30 steps of which 2(N-1) = 4 cross
 * nodes, and every rank (hence every node) sends 2(n-1)/n x S over the
 * network; the 4-GPU nodes have the fewest rails, 2 x 25 GB/s less IB
 * headers at MTU 4096, and they bind: busbw 49.7 GB/s, algbw x 16/30. NCCL
 * aligns every rank on the least channels and graph bandwidths (src/init.cc)
 * and its tuner takes nRanks / nNodes = 5 ranks per node. The latency, by
 * hand from kb NA-MODEL: base 8.4 us + 26 NVLink hops x 3.4 + 4 network hops
 * x (14 + twice the fabric's path latency), then x 1.4 in the time (ring/Simple
 * all-reduce across nodes). The flow engine runs the same ring and agrees within 10%,
 * and each of the small nodes' NICs sends exactly half of their share.
 */
static void
test_node_groups_of_different_gpu_counts(void **state)
{
	static const enum ft_op ops[] = { FT_OP_ALL_REDUCE, FT_OP_ALL_GATHER,
		                          FT_OP_REDUCE_SCATTER, FT_OP_BROADCAST };
	static const uint64_t sizes[] = { 64u << 20, 256u << 20, 1u << 30 };
	double S = (double)(1u << 30), bus = 2 * 25e9 * 4096 / 4122, lat;
	char mixed[512], text[1024];
	struct ft_cluster_spec cs;
	struct ft_error err = { 0 };
	struct ft_model_links l;
	struct ft_model_query q;
	struct ft_model_result m;
	struct ft_sim_report rep;
	size_t i, k;
	uint32_t node, r;

	(void)state;
	spec_file("simmodel-gpus.yaml", mixed_gpus_text, mixed, sizeof(mixed));
	assert_int_equal(ft_spec_resolve(mixed, &cs, &err), 0);
	assert_int_equal(ft_model_links_get(&cs, 0, 0, 0, &l, &err), 0);
	assert_int_equal(l.nranks, 16);
	assert_int_equal(l.nnodes, 3);
	assert_int_equal(l.ppn, 5);
	assert_int_equal(l.ppn_min, 4);
	assert_int_equal(l.ppn_max, 8);
	assert_int_equal(l.nrails, 2);
	assert_close(l.inter_Bps, bus, 1);
	{
		struct ft_topo *t = NULL;

		assert_int_equal(ft_topo_build(&cs, &t, &err), 0);
		assert_int_not_equal(ft_topo_gpu(t, 0, 7), UINT32_MAX);
		assert_int_not_equal(ft_topo_gpu(t, 2, 3), UINT32_MAX);
		assert_int_equal(ft_topo_gpu(t, 1, 4), UINT32_MAX);
		assert_int_equal(ft_topo_nic(t, 1, 2), UINT32_MAX);
		ft_topo_free(t);
	}

	ft_model_query_init(&q, FT_OP_ALL_REDUCE, 1u << 30);
	q.tuner_only = true; /* NCCL's own cost: no pipeline terms */
	q.force_algo = q.force_proto = true;
	q.algo = FT_ALGO_RING;
	q.proto = FT_PROTO_SIMPLE;
	assert_int_equal(ft_model_eval(&cs, &q, &m, &err), 0);
	assert_string_equal(m.bottleneck, "nic");
	assert_int_equal(m.ppn_min, 4);
	assert_int_equal(m.ppn_max, 8);
	lat = 8.4e-6 + 26 * 3.4e-6 + 4 * (14e-6 + 2 * l.fabric_lat_s);
	assert_close(m.lat_s, lat, 1e-12);
	assert_close(m.time_s, 1.4 * lat + S / (bus * 16 / 30), 1e-9 * m.time_s);
	/* a part of the cluster: the same ranks on every node, or all of it */
	q.ppn = 4;
	assert_int_equal(ft_model_eval(&cs, &q, &m, &err), 0);
	assert_int_equal(m.nranks, 12);
	assert_int_equal(m.nnodes, 3);
	q.ppn = 0;
	/* CollNet maps ranks as node x GPUs per node in NCCL: left out here */
	q.algo = FT_ALGO_COLLNET;
	memset(&err, 0, sizeof(err));
	cs.fabric.sharp = true;
	assert_int_equal(ft_model_eval(&cs, &q, &m, &err), FT_ENOTSUP);
	assert_non_null(strstr(err.msg, "same GPUs on every node"));

	for (i = 0; i < FT_ARRAY_SIZE(ops); i++)
		for (k = 0; k < FT_ARRAY_SIZE(sizes); k++) {
			double f = busbw(mixed, ops[i], FT_ALGO_RING, FT_PROTO_SIMPLE, sizes[k],
			                 "flow");
			double mm = busbw(mixed, ops[i], FT_ALGO_RING, FT_PROTO_SIMPLE, sizes[k],
			                  NULL);

			if (fabs(f / mm - 1) > 0.10)
				print_error("%s %llu: flow %.2f model %.2f GB/s\n",
				            ft_op_name(ops[i]), (unsigned long long)sizes[k], f, mm);
			assert_agree(f, mm);
		}

	/* the flow engine's own pick (the tuner's protocol, a ring): every rank of
	 * a 4-GPU node sends (n-1)/n x S out of it, over its two NICs */
	snprintf(text, sizeof(text), job_on, mixed, "op: all_gather, size: 1GiB");
	run_ok(text, "flow", &rep);
	assert_int_equal(ft_run_row(&rep.run, 0)->nranks, 16);
	assert_string_equal(ft_run_row(&rep.run, 0)->algo, "ring");
	for (node = 1; node < 3; node++)
		for (r = 0; r < 2; r++)
			assert_close(nic_sent(&rep, node, r), 15.0 / 16 * S / 2, S * 1e-5);
	ft_sim_report_release(&rep);
	remove(mixed);
}

/* The latency of the route from GPU 0 of node 0 to GPU @g of node @node on @spec, s: the
 * sum of its links' latencies (NVLink, PCIe, cables, switches), as the engines walk it. */
static double
gpu_path_s(const char *spec, uint32_t node, uint32_t g)
{
	struct ft_route_policy pol = { .routing = FT_ROUTING_DMODK };
	struct ft_cluster_spec cs;
	struct ft_error err = { 0 };
	struct ft_topo *t = NULL;
	struct ft_path path;

	assert_int_equal(ft_spec_resolve(spec, &cs, &err), 0);
	assert_int_equal(ft_topo_build(&cs, &t, &err), 0);
	assert_int_equal(ft_route_path(t, ft_topo_gpu(t, 0, 0), ft_topo_gpu(t, node, g), &pol, &path),
	                 0);
	ft_topo_free(t);
	return path.lat_s;
}

/*
 * A send/recv between nodes: its one step pays NCCL's network per-hop latency and what the
 * model adds to it (the flush where NCCL flushes), as the model's cost_sendrecv() prices it
 * (model/tuner.c: base + hwLat[NET] + its net step) and as an all-to-all's sends pay it
 * (ft__sim_far_steps()). On gb200-nvl64x2 (two NVLink domains, each send/recv's two sends
 * between them on the network) at NCCL 2.27.7 and 2.28.3, 8 KiB, 64 KiB and 1 MiB: the flow
 * and packet engines within 10 % of the model. Before, the engines' step paid NVLink's
 * step overhead (3.4 us) in place of hwLat[NET] (14 us) and the net step: 12.92 us against
 * the model's 23.87 at 8 KiB, 2.27.7 (-46 %).
 */
static void
test_sendrecv_net_step_gb200(void **state)
{
	static const uint32_t releases[] = { 22707, 22803 };
	static const uint64_t sizes[] = { 8u << 10, 64u << 10, 1u << 20 };
	static const char *const engines[] = { "flow", "packet" };

	(void)state;
	for (size_t v = 0; v < FT_ARRAY_SIZE(releases); v++) {
		busbw_nccl = releases[v];
		for (size_t k = 0; k < FT_ARRAY_SIZE(sizes); k++) {
			double m, tm;

			m = busbw("examples/gb200-nvl64x2.yaml", FT_OP_SENDRECV, -1, -1, sizes[k],
			          NULL);
			tm = busbw_time_us;
			for (size_t e = 0; e < FT_ARRAY_SIZE(engines); e++) {
				double f = busbw("examples/gb200-nvl64x2.yaml", FT_OP_SENDRECV, -1,
				                 -1, sizes[k], engines[e]);

				if (getenv("FT_SIMMODEL_PRINT"))
					print_message("gb200-nvl64x2 send/recv %u, %llu B: %s %.2f "
					              "us, model %.2f us\n",
					              releases[v], (unsigned long long)sizes[k],
					              engines[e], busbw_time_us, tm);
				assert_agree(f, m);
			}
		}
	}
	busbw_nccl = 0;
}

/*
 * The packet engine's step between nodes costs max(hwLat[NET], path): NCCL's per-hop
 * network latency (14 us, ring Simple, kb NA-MODEL) where the packets' own path is
 * shorter, the path where it is longer. A ring all-reduce of 64 KiB over two nodes of one
 * DGX H100 GPU each crosses the network on both its steps, so its time is
 * C + 2 max(14 us, p) with p the route's latency (GPU to GPU: PCIe, NICs, cables, the leaf)
 * and C the rest (launch, bytes, what the model adds to a network step), the same C at
 * every cable latency within twice the span of its bytes (1.4 us, below): from 0.1 to 5 us
 * the time does not move, from 10 to 25 us it moves with the path. Before, the path stood for hwLat[NET] (the time was C' + 2p): 64 KiB
 * with 0.1 us cables ran 14 us a step faster than NCCL's figure.
 */
static void
test_packet_net_step_floor(void **state)
{
	static const char *const cable[] = { "100ns", "2us", "5us", "10us", "25us" };
	const double hw = ft_model_hw_latency(0, FT_HW_NET, FT_ALGO_RING, FT_PROTO_SIMPLE);
	/* the ring's two 32 KiB steps on its busiest link, the GPU's 48 GB/s to its PCIe
	 * switch, headers in: 1.37 us, and a little more */
	const double span_us = 1.4;
	double cs[5], lo = 1e300;
	size_t i;

	(void)state;
	assert_close(hw, 14e-6, 1e-12);
	for (i = 0; i < FT_ARRAY_SIZE(cable); i++) {
		char path[512];
		double p, t, c;

		two_gpus_file("simmodel-floor.yaml", cable[i], path, sizeof(path));
		p = gpu_path_s(path, 1, 0);
		busbw(path, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 64u << 10, "packet");
		t = busbw_time_us;
		c = t - 2 * FT_MAX(hw, p) * 1e6;
		print_message("# cables %s: path %.3f us, packet %.3f us, rest %.3f us\n", cable[i],
		              p * 1e6, t, c);
		cs[i] = c;
		lo = FT_MIN(lo, c);
		remove(path);
	}
	/* the walk past the span of the bytes comes back (pkt_setup.c walk_back_s()): where
	 * the path is the shorter the walk counts as under the bytes, 1.4 us, though one
	 * message a step walks in series with them; where it is the longer the bytes hide
	 * under the walk (sim.md, Limits): the rest moves by at most the span either way */
	for (i = 0; i < FT_ARRAY_SIZE(cable); i++)
		if (!(cs[i] <= lo + 2 * span_us + 0.05))
			fail_msg("cables %s: rest %.3f us, at most %.3f + 2 x %.3f", cable[i], cs[i],
			         lo, span_us);
}

/*
 * The engines' step latencies follow the jobs' release as the model's do (kb NA-MODEL;
 * NVIDIA/nccl src/graph/tuning.cc at v2.21.5-1 and v2.23.4-1, model/tuner.c lat_sets):
 * a tree all-reduce (Simple, 1 KiB) at 2.21 has baseLat 0 and hwLat 28 us over NVLink and
 * the network, the newest 8.4, 4 and 14. The model's tree latency is base + 2((ppn - 1)
 * intra + log2 N inter): on one DGX H100 2.21 costs 14 x 24 - 8.4 = 327.6 us more, on two
 * 327.6 + 2 x 14 = 355.6, and so do both engines. A ring all-reduce (16 MiB) counts
 * 2 x nNodes network steps before 2.23, 2 x (nNodes - 1) after: at 2.18 two of its steps
 * more pay the network in place of NVLink, in the model 2 (hwLat[NET] + its network step -
 * max(3.4, 3) us); in the flow engine 2 (max(hwLat[NET], its phase's longest path) - 3.4
 * us; hwLat[NET] + the path before it took the floor, 22.4 us), and in the packet engine
 * 2 (max(hwLat[NET], p) - 3.4 us - p), p the network path the packets walk (those 2 steps
 * are counted, not walked). Before,
 * the engines ran every release at the newest's latencies (the ring 220.78 us in the flow
 * engine at 2.18 and 2.27, the model 241.2 and 219.5).
 */
static void
test_step_latencies_follow_the_release(void **state)
{
	static const char *const engines[] = { NULL, "flow", "packet" };
	const double hw = 14e-6, step = 3.4e-6;
	struct ft_cluster_spec cs;
	struct ft_model_links l;
	struct ft_error err = { 0 };
	double p, nvl, t[2], net_model;
	size_t e, i;

	(void)state;
	for (e = 0; e < FT_ARRAY_SIZE(engines); e++)
		for (i = 0; i < 2; i++) {
			const char *spec = i ? "dgx-h100:2" : "dgx-h100";

			busbw_nccl = 22199;
			busbw(spec, FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_SIMPLE, 1024, engines[e]);
			t[0] = busbw_time_us;
			busbw_nccl = 0;
			busbw(spec, FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_SIMPLE, 1024, engines[e]);
			t[1] = busbw_time_us;
			print_message("# %s tree 1 KiB on %s: 2.21 %.3f, newest %.3f us\n",
			              engines[e] ? engines[e] : "model", spec, t[0], t[1]);
			assert_close(t[0] - t[1], i ? 355.6 : 327.6, 0.005);
		}
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &cs, &err), 0);
	assert_int_equal(ft_model_links_get(&cs, 0, 0, 0, &l, &err), 0);
	l.time_unflushed = true; /* the time of a pick: no flush on Hopper */
	net_model = ft_model_net_step_s(&l, FT_PROTO_SIMPLE);
	p = gpu_path_s("dgx-h100:2", 1, 0);
	/* the flow engine's step lasts max(hwLat[NET], its phase's longest path), NVLink's
	 * (2 x 0.3 us) here */
	nvl = gpu_path_s("dgx-h100:2", 0, 1);
	assert_true(p < hw && nvl < hw);
	for (e = 0; e < FT_ARRAY_SIZE(engines); e++) {
		double want;

		busbw_nccl = 21899;
		busbw("dgx-h100:2", FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 16u << 20,
		      engines[e]);
		t[0] = busbw_time_us;
		busbw_nccl = 22799;
		busbw("dgx-h100:2", FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 16u << 20,
		      engines[e]);
		t[1] = busbw_time_us;
		busbw_nccl = 0;
		want = e == 0 ? 2 * (hw + net_model - step) :
		       e == 1 ? 2 * (FT_MAX(hw, FT_MAX(p, nvl)) - step) :
		                2 * (FT_MAX(hw, p) - step - p);
		print_message("# %s ring 16 MiB on 2 DGX H100: 2.18 %.3f, 2.27 %.3f us "
		              "(difference %.3f, closed form %.3f; path %.3f us)\n",
		              engines[e] ? engines[e] : "model", t[0], t[1], t[0] - t[1],
		              want * 1e6, p * 1e6);
		/* the packet engine takes back of its steps only the walk past the span of the
		 * bytes (pkt_setup.c walk_back_s()), so of the 2 steps counted, not walked, at
		 * most their path: between the closed form and the closed form + 2 p */
		if (e == 2)
			assert_true(t[0] - t[1] >= want * 1e6 - 0.01 &&
			            t[0] - t[1] <= (want + 2 * p) * 1e6 + 0.01);
		else
			assert_close(t[0] - t[1], want * 1e6, 0.01);
	}
}

/*
 * CollNetChain on PCIe-only nodes (4 x pcie-l40s, 8 GPUs a node, their NICs on NDR with
 * SHARP; a forced chain of 1 MiB): NCCL's tuner prices the chain's hops by the node's
 * path, the PCI row where the GPUs have no NVLink (src/graph/tuning.cc ncclTopoTuneModel(); kb
 * NA-MODEL): 8.0 us at v2.18.3-1 where NVLink's is 4.75, 2.8 us for both from v2.19.1-1.
 * The flow engine's steps hold the model's hop latencies (ft_model_collnet_chain_hops_s()),
 * so the model's lead over the engine is the same at both releases. Before, the engine
 * took NVLink's row on every node: 14 x 3.25 = 45.5 us less than the model at 2.18 (model
 * 245.7 us in `fabtune model`, flow 180.04; at 2.27.7: 188.9 and 168.74); now flow 225.54
 * at 2.18.
 */
static void
test_collnet_chain_pcie_rows(void **state)
{
	static const uint32_t releases[] = { 21803, 22707 };
	static const char text[] = "name: pcie-sharp\n"
	                           "nodes: { preset: pcie-l40s, count: 4, nics: { link: ndr } }\n"
	                           "fabric: { kind: rail-fat-tree, link: ndr, tiers: 2, radix: 64, "
	                           "sharp: true }\n";
	double gap[2];
	char path[512];
	size_t i;

	(void)state;
	spec_file("simmodel-pcie-sharp.yaml", text, path, sizeof(path));
	for (i = 0; i < FT_ARRAY_SIZE(releases); i++) {
		struct ft_sim_sweep_args sw = { .spec = path,
			                        .op = FT_OP_ALL_REDUCE,
			                        .algo = FT_ALGO_COLLNET,
			                        .collnet = FT_COLLNET_CHAIN,
			                        .proto = FT_PROTO_COUNT,
			                        .min_bytes = 1u << 20,
			                        .max_bytes = 1u << 20 };
		struct ft_cluster_spec cs;
		struct ft_scenario *sc = NULL;
		struct ft_sim_overrides ov;
		struct ft_sim_report rep;
		struct ft_model_query q;
		struct ft_model_result m;
		struct ft_error err = { 0 };
		const struct ft_result_row *r;

		assert_int_equal(ft_scenario_from_op(&sw, &sc, &err), 0);
		ft_sim_overrides_init(&ov);
		ov.engine = "flow";
		ov.nccl_version = releases[i];
		ft_sim_report_init(&rep);
		assert_int_equal(ft_scenario_run(sc, &ov, NULL, &rep, &err), 0);
		r = ft_run_row(&rep.run, 0);
		assert_string_equal(r->algo, "collnet_chain");
		assert_int_equal(ft_spec_load_buffer(text, strlen(text), "t.yaml", &cs, &err), 0);
		ft_model_query_init(&q, FT_OP_ALL_REDUCE, 1u << 20);
		q.force_algo = q.tuner_only = true;
		q.algo = FT_ALGO_COLLNET;
		q.collnet = FT_COLLNET_CHAIN;
		q.nccl_version = releases[i];
		assert_int_equal(ft_model_eval(&cs, &q, &m, &err), 0);
		gap[i] = m.time_s - r->time_us * 1e-6;
		print_message("# %u: model %.2f us, flow %.2f us\n", releases[i], m.time_s * 1e6,
		              r->time_us);
		ft_sim_report_release(&rep);
		ft_scenario_free(sc);
	}
	remove(path);
	/* the engine's pipeline and paths are the same at both releases: the hops alone move */
	assert_close(gap[0], gap[1], 1e-6);
}

/* A spec of @count nodes of one DGX H100 GPU each on a two-tier fat tree, in @path. */
static void
one_gpu_nodes(uint32_t count, char *path, size_t len)
{
	char text[256];

	snprintf(text, sizeof(text),
	         "name: one-gpu-nodes\n"
	         "nodes: { preset: dgx-h100, count: %u, gpus: 1 }\n"
	         "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n",
	         count);
	spec_file("simmodel-onegpu.yaml", text, path, len);
}

/*
 * PAT (coll/pat.c; kb NA-ALGO-PAT) in both engines against a closed form: an all-gather
 * and a reduce-scatter of 64 MiB forced to pat on 8 one-GPU H100 nodes of a two-tier
 * fat tree (D-mod-K: no two flows on one fabric link). Its 3 phases, rank to rank +- 1,
 * 2, 4, carry 4, 2 and 1 blocks of S / 8: a rank sends 7/8 S through its NIC, one flow at
 * a time, paced at the model's time of PAT (ft__sim_pat_cap()): the NIC's path x .75 from
 * 2.24 (ft_model_pat_busbw_share()) over the kernel's 7/8 S, not over the S NCCL's tuner
 * prices (ft_model_pat_carried_factor()), so the bytes take 7/8 S / (0.75 x the link).
 * The op takes that + 8 us of base + NCCL's floor(log2 8) x interLat / 3.5 + 2.8 us x 8
 * (interLat: hwLat[NET] of Tree's row from 2.23 with one rank a node, 14 us, and the
 * network step the engines add to it, ft__sim_net_step_s()), plus at most a path latency
 * a phase and, in the packet engine, a packet's serialisation at each end (1,676.37 us
 * in both, the closed form 1,674.08 to 1,680.69). Paced at the tuner's price over S, both
 * took 1,909.39, the closed form's S / (0.75 x the link) 1,864.14 + 42.96; before that, with
 * the share as wire bytes on 7/8 S, 1,676.37; before that, the schedules had no PAT and a
 * forced pat was refused ("all_gather has no pat algorithm with the simple protocol").
 */
static void
test_pat_closed_form(void **state)
{
	static const char *const engines[] = { "flow", "packet" };
	static const enum ft_op ops[] = { FT_OP_ALL_GATHER, FT_OP_REDUCE_SCATTER };
	struct ft_cluster_spec cs;
	struct ft_model_links l;
	struct ft_error err = { 0 };
	char path[512];
	double S = 64.0 * 1048576, n = 8, hw, net, t_bw, t_lat, d_max, pkt;
	size_t e, o;

	(void)state;
	one_gpu_nodes(8, path, sizeof(path));
	assert_int_equal(ft_spec_resolve(path, &cs, &err), 0);
	assert_int_equal(ft_model_links_get(&cs, 0, 0, 0, &l, &err), 0);
	hw = ft_model_net_hop_latency(0, FT_OP_ALL_GATHER, FT_ALGO_PAT, FT_PROTO_SIMPLE, true);
	assert_close(hw, 14e-6, 1e-12);
	net = FT_MAX(0.0, ft_model_net_step_s(&l, FT_PROTO_SIMPLE) - l.fabric_lat_s);
	assert_close(l.ring_tier_factor, 1.0, 1e-12);
	t_bw = S * (n - 1) / n / (0.75 * l.inter_Bps);
	t_lat = 8e-6 + 3 * (hw + net) / 3.5 + 2.8e-6 * n;
	d_max = 2 * cs.node.lat_pcie_s + 2 * cs.node.lat_nic_s + 4 * cs.fabric.lat_cable_s +
	        3 * cs.fabric.lat_switch_s;
	pkt = 2.0 * cs.fabric.mtu_bytes / cs.node.nic_Bps;
	busbw_routing = FT_ROUTING_DMODK;
	for (o = 0; o < FT_ARRAY_SIZE(ops); o++)
		for (e = 0; e < FT_ARRAY_SIZE(engines); e++) {
			double t;

			busbw(path, ops[o], FT_ALGO_PAT, FT_PROTO_SIMPLE, 64u << 20, engines[e]);
			t = busbw_time_us * 1e-6;
			print_message("# pat %s 64 MiB on 8 one-GPU nodes: %s %.3f us, closed form "
			              "%.3f + %.3f us, at most %.3f more\n",
			              ft_op_name(ops[o]), engines[e], t * 1e6, t_bw * 1e6,
			              t_lat * 1e6, (3 * d_max + pkt) * 1e6);
			if (!(t >= t_bw + t_lat - 1e-9 && t <= t_bw + t_lat + 3 * d_max + pkt))
				fail_msg("%s %s: %.3f us, closed form %.3f + %.3f us, at most %.3f "
				         "more",
				         ft_op_name(ops[o]), engines[e], t * 1e6, t_bw * 1e6,
				         t_lat * 1e6, (3 * d_max + pkt) * 1e6);
		}
	busbw_routing = -1;
	remove(path);
}

/*
 * Where NCCL's tuner picks PAT (all-gather and reduce-scatter, Simple, one rank a node,
 * from 2.23: small sizes on many nodes), the flow engine runs PAT, the tuner's pick, and
 * comes within 10 % of the model: 16 and 64 one-GPU H100 nodes, 64 KiB to 64 MiB, every
 * size the tuner gives to PAT (worst -3.11 %: 16 nodes, 64 KiB; -2.96 % with PAT's share as
 * wire bytes). Before, the flow engine
 * ran PAT's picks as rings (the row's algo "ring"), a ring's n - 1 steps: 16 nodes, 64 KiB
 * all-gather 0.28 GB/s busbw against the model's 0.85 (-67 %); 64 nodes, 893.09 us
 * against 216.00 (sim-log.md).
 */
static void
test_pat_agrees_on_one_gpu_nodes(void **state)
{
	static const uint32_t counts[] = { 16, 64 };
	static const enum ft_op ops[] = { FT_OP_ALL_GATHER, FT_OP_REDUCE_SCATTER };
	char path[512];
	size_t i, o, npat = 0;
	uint64_t b;

	(void)state;
	agree_reset();
	busbw_routing = FT_ROUTING_DMODK; /* no two flows on one fabric link: the model's premise */
	for (i = 0; i < FT_ARRAY_SIZE(counts); i++) {
		struct ft_cluster_spec cs;
		struct ft_error err = { 0 };

		one_gpu_nodes(counts[i], path, sizeof(path));
		assert_int_equal(ft_spec_resolve(path, &cs, &err), 0);
		for (o = 0; o < FT_ARRAY_SIZE(ops); o++)
			for (b = 64u << 10; b <= (64u << 20); b *= 4) {
				struct ft_model_query q;
				struct ft_model_result pick;
				double m, f;

				ft_model_query_init(&q, ops[o], b);
				q.tuner_only = true;
				assert_int_equal(ft_model_eval(&cs, &q, &pick, &err), 0);
				if (pick.algo != FT_ALGO_PAT)
					continue;
				m = busbw(path, ops[o], -1, -1, b, NULL);
				f = busbw(path, ops[o], -1, -1, b, "flow");
				print_message("# %u one-GPU nodes %s %llu: model %.2f, flow %.2f GB/s "
				              "(%+.2f%%)\n",
				              counts[i], ft_op_name(ops[o]), (unsigned long long)b, m, f,
				              100 * (f / m - 1));
				assert_string_equal(flow_algo, "pat");
				assert_agree(f, m);
				npat++;
			}
		remove(path);
	}
	busbw_routing = -1;
	/* PAT is the pick at the small sizes on both counts */
	assert_true(npat >= 4);
	print_message("# pat on one-GPU nodes: %zu cases, worst %+.2f%% (%s)\n", npat,
	              100 * agree_worst, agree_what);
}

/*
 * A forced pat on a release without PAT (NCCL before 2.23: NCCL_ALGO=PAT finds no
 * algorithm; the model refuses it too, kb NA-ALGO-PAT) is refused by build_op_on(), an
 * invalid argument naming the release it needs; from 2.23 it runs. Before PAT had a
 * schedule, coll/ refused a forced pat at every release ("--op: schedule: all_gather has
 * no pat algorithm with the simple protocol", FT_ENOTSUP).
 */
static void
test_pat_refused_before_2_23(void **state)
{
	static const uint32_t releases[] = { 21803, 22304 };
	char path[512];
	size_t i;

	(void)state;
	one_gpu_nodes(16, path, sizeof(path));
	for (i = 0; i < FT_ARRAY_SIZE(releases); i++) {
		struct ft_sim_sweep_args sw = { .spec = path,
			                        .op = FT_OP_ALL_GATHER,
			                        .algo = FT_ALGO_PAT,
			                        .proto = FT_PROTO_COUNT,
			                        .min_bytes = 64u << 10,
			                        .max_bytes = 64u << 10 };
		struct ft_scenario *sc = NULL;
		struct ft_sim_overrides ov;
		struct ft_sim_report rep;
		struct ft_error err = { 0 };
		int rc;

		assert_int_equal(ft_scenario_from_op(&sw, &sc, &err), 0);
		ft_sim_overrides_init(&ov);
		ov.engine = "flow";
		ov.nccl_version = releases[i];
		ft_sim_report_init(&rep);
		rc = ft_scenario_run(sc, &ov, NULL, &rep, &err);
		if (releases[i] < FT_MODEL_PAT_FROM) {
			assert_int_equal(rc, FT_EINVAL);
			assert_string_equal(err.msg, "--algo: pat needs NCCL 2.23 or later");
		} else {
			assert_int_equal(rc, 0);
			assert_string_equal(ft_run_row(&rep.run, 0)->algo, "pat");
		}
		ft_sim_report_release(&rep);
		ft_scenario_free(sc);
	}
	remove(path);
}

/* One all-gather of op @o on @spec at @bytes (@factor 4 up to @max), @nranks ranks placed
 * @placement (-1: packed), the flow engine: its rc, its error into @msg, each row's algo
 * into @algos (up to 4). */
static int
pat_run(const char *spec, enum ft_algo algo, uint32_t nranks, int placement, uint64_t bytes,
        uint64_t max, char msg[256], char algos[4][16], size_t *nrows)
{
	struct ft_sim_sweep_args sw = { .spec = spec,
		                        .op = FT_OP_ALL_GATHER,
		                        .algo = algo,
		                        .proto = FT_PROTO_COUNT,
		                        .min_bytes = bytes,
		                        .max_bytes = max > bytes ? max : bytes,
		                        .factor = max > bytes ? 4 : 0,
		                        .nranks = nranks };
	struct ft_scenario *sc = NULL;
	struct ft_sim_overrides ov;
	struct ft_sim_report rep;
	struct ft_error err = { 0 };
	size_t i;
	int rc;

	assert_int_equal(ft_scenario_from_op(&sw, &sc, &err), 0);
	ft_sim_overrides_init(&ov);
	ov.engine = "flow";
	ov.placement = placement;
	ft_sim_report_init(&rep);
	rc = ft_scenario_run(sc, &ov, NULL, &rep, &err);
	ft_strlcpy(msg, rc < 0 ? err.msg : "", 256);
	*nrows = 0;
	for (i = 0; rc == 0 && i < rep.run.rows.len && i < 4; i++)
		ft_strlcpy(algos[(*nrows)++], ft_run_row(&rep.run, i)->algo, 16);
	ft_sim_report_release(&rep);
	ft_scenario_free(sc);
	return rc;
}

/*
 * PAT only where every node holds one rank (NCCL's ncclPatEnable(): nNodes == nRanks,
 * src/graph/tuning.cc v2.23.4-1 to v2.30.7-1), read from where the ranks are, not from
 * the job's GPUs per node, which read 1 for 12 packed ranks on 2 DGX H100 (8 + 4) and for
 * 12 spread (6 + 6) too. There the tuner picks among the others (ring, as `fabtune
 * model` for an all-gather across nodes) and a forced pat is an invalid argument in the
 * model's words; 8 ranks placed at random on 16 one-GPU nodes are one a node and run it.
 * Before, build_op_on() asked the tuner with 1 rank a node on 12 nodes: 12 packed ranks at
 * 64 KiB ran pat (59.07 us) and a forced pat ran.
 */
static void
test_pat_one_rank_a_node(void **state)
{
	static const char *const refused =
	        "--algo: pat needs one GPU per node (NCCL enables it only where nNodes == nRanks)";
	char msg[256], algos[4][16], path[512];
	size_t i, n;

	(void)state;
	/* 12 packed ranks: 8 + 4 */
	assert_int_equal(
	        pat_run("dgx-h100:2", FT_ALGO_COUNT, 12, -1, 64u << 10, 1u << 20, msg, algos, &n),
	        0);
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++)
		assert_string_equal(algos[i], "ring");
	assert_int_equal(pat_run("dgx-h100:2", FT_ALGO_PAT, 12, -1, 64u << 10, 0, msg, algos, &n),
	                 FT_EINVAL);
	assert_string_equal(msg, refused);
	/* 12 ranks spread over the 2 nodes: 6 a node, every other rank */
	assert_int_equal(pat_run("dgx-h100:2", FT_ALGO_COUNT, 12, 1, 64u << 10, 0, msg, algos, &n),
	                 0);
	assert_int_equal(n, 1);
	assert_string_equal(algos[0], "ring");
	assert_int_equal(pat_run("dgx-h100:2", FT_ALGO_PAT, 12, 1, 64u << 10, 0, msg, algos, &n),
	                 FT_EINVAL);
	assert_string_equal(msg, refused);
	/* 8 ranks placed at random on 16 one-GPU nodes: one a node, though not packed */
	one_gpu_nodes(16, path, sizeof(path));
	assert_int_equal(pat_run(path, FT_ALGO_PAT, 8, 2, 64u << 10, 0, msg, algos, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(algos[0], "pat");
	remove(path);
}

/*
 * NCCL's tuner counts PAT at busBw x .85 at 2.23 (v2.23.4-1 src/graph/tuning.cc) and x .75
 * from 2.24 (v2.24.3-1): 64 MiB less 32 MiB forced pat on 8 one-GPU nodes, the latency
 * cancelled, takes .85 / .75 as long at 2.24.3 as at 2.23.4, in the model (exactly) and in
 * the flow engine (within 1 %: its flows are paced at the release's price,
 * ft__sim_pat_cap(); they carried 1 / share of their bytes before). Before, both ran .75 at
 * 2.23 too (the ratio 1).
 */
static void
test_pat_share_by_release(void **state)
{
	static const char *const engines[] = { NULL, "flow" };
	static const uint32_t releases[] = { 22304, 22403 };
	char path[512];
	size_t e, v;

	(void)state;
	one_gpu_nodes(8, path, sizeof(path));
	busbw_routing = FT_ROUTING_DMODK;
	for (e = 0; e < FT_ARRAY_SIZE(engines); e++) {
		double d[2];

		for (v = 0; v < FT_ARRAY_SIZE(releases); v++) {
			double t64;

			busbw_nccl = releases[v];
			busbw(path, FT_OP_ALL_GATHER, FT_ALGO_PAT, FT_PROTO_SIMPLE, 64u << 20,
			      engines[e]);
			t64 = busbw_time_us;
			busbw(path, FT_OP_ALL_GATHER, FT_ALGO_PAT, FT_PROTO_SIMPLE, 32u << 20,
			      engines[e]);
			d[v] = t64 - busbw_time_us;
		}
		print_message("# pat 64 - 32 MiB on 8 one-GPU nodes, %s: 2.23.4 %.3f us, 2.24.3 "
		              "%.3f us (x%.4f)\n",
		              engines[e] ? engines[e] : "model", d[0], d[1], d[1] / d[0]);
		assert_close(d[1] / d[0], 0.85 / 0.75, engines[e] ? 0.01 : 1e-6);
	}
	busbw_nccl = 0;
	busbw_routing = -1;
	remove(path);
}

/* One op forced to pat on @path at @bytes by @engine into @rep (released by the caller). */
static void
pat_report(const char *path, enum ft_op op, uint64_t bytes, const char *engine,
           struct ft_sim_report *rep)
{
	struct ft_sim_sweep_args sw = { .spec = path,
		                        .op = op,
		                        .algo = FT_ALGO_PAT,
		                        .proto = FT_PROTO_SIMPLE,
		                        .min_bytes = bytes,
		                        .max_bytes = bytes };
	struct ft_scenario *sc = NULL;
	struct ft_sim_overrides ov;
	struct ft_error err = { 0 };
	int rc;

	assert_int_equal(ft_scenario_from_op(&sw, &sc, &err), 0);
	ft_sim_overrides_init(&ov);
	ov.engine = engine;
	ov.routing = FT_ROUTING_DMODK;
	ft_sim_report_init(rep);
	rc = ft_scenario_run(sc, &ov, NULL, rep, &err);
	if (rc < 0)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	ft_scenario_free(sc);
}

/*
 * The model's time (@tm, us) and the flow engine's (@tf) of a PAT @op of 1 GiB on the 2
 * one-GPU nodes of @path against the bytes PAT's kernel moves: a rank's (n - 1) / n of S
 * (src/include/collectives.h PatAGAlgorithm, PatRSAlgorithm), half of it here, at NCCL's
 * .75 of the NIC's path (ft_model_pat_busbw_share()), + NCCL's latency: 8 us + floor(log2 2)
 * x interLat / 3.5 + 2.8 us x 2 (interLat: Tree's hwLat[NET], 14 us, and the network step).
 * Within 0.1 %: the rest is the engine's path and the model's pipeline floors. Not the S
 * NCCL's tuner prices (src/graph/tuning.cc: no conversion to algorithm bandwidth for a
 * non-ring all-gather or reduce-scatter), which both took before: 29,844 us for 14,931.
 */
static void
pat_kernel_bytes(const char *path, enum ft_op op, double tm, double tf)
{
	struct ft_cluster_spec cs;
	struct ft_model_links l;
	struct ft_error err = { 0 };
	const double S = 1073741824.0, n = 2;
	double hw, net, want;

	assert_int_equal(ft_spec_resolve(path, &cs, &err), 0);
	assert_int_equal(ft_model_links_get(&cs, 0, 0, 0, &l, &err), 0);
	hw = ft_model_net_hop_latency(0, op, FT_ALGO_PAT, FT_PROTO_SIMPLE, true);
	net = FT_MAX(0.0, ft_model_net_step_s(&l, FT_PROTO_SIMPLE) - l.fabric_lat_s);
	want = (S * (n - 1) / n / (ft_model_pat_busbw_share(0) * l.inter_Bps) + 8e-6 +
	        (hw + net) / 3.5 + 2.8e-6 * n) *
	       1e6;
	print_message("# pat %s 1 GiB on 2 one-GPU nodes: model %.2f, flow %.2f us, the "
	              "kernel's bytes %.2f us\n",
	              ft_op_name(op), tm, tf, want);
	assert_close(tm, want, 1e-3 * want);
	assert_close(tf, want, 1e-3 * want);
}

/*
 * PAT's share of its links (.75 from 2.24, ft_model_pat_busbw_share(); kb NA-ALGO-PAT) is a
 * pace at the model's time of PAT (ft__sim_pat_cap()), not wire bytes: the NICs' host
 * links carry the bytes NCCL moves, S (n - 1) / n a rank each way (2 S (n - 1) over the 2n
 * of them), in both engines; the packet engine's op counter reads the n (n - 1) blocks of
 * S / n; the flow engine's row names the class the model's time binds on; both engines
 * come within 10 % of the model from 2 to 16 one-GPU nodes, 1 MiB to 1 GiB (the flow
 * engine, worst -2.32 %; the packet engine at 1 MiB on 2 and 4 nodes, its time the flow
 * engine's), the flow engine within 2 % from 64 MiB, where the bandwidth term is the
 * time; at 2 nodes and 1 GiB both are the kernel's bytes, (n - 1) / n of S at .75 of the
 * NIC's path (pat_kernel_bytes()); and a forced channel count (--channels: nChannels of
 * NCCL's busBw, src/graph/tuning.cc) is the model's, the op as the model times it (which
 * on one NIC a node reads the NIC's path at any count: 1,425.6 us at 64 MiB over 4 nodes
 * on 2 channels as on NCCL's 4). Before, every flow carried 1 / .75 of its bytes: the host
 * links 4/3 of NCCL's, the op counter 1,310,720 B for 983,040 at 64 KiB on 16 ranks; the
 * packet engine's dimensions ran whole, at their links' rate; --channels 2 changed
 * nothing. Paced at the tuner's price of S (ft_model_pat_carried_factor() not applied),
 * the model and both engines took n / (n - 1) of the kernel's time: 29,844 us at 1 GiB on
 * 2 nodes.
 */
static void
test_pat_paced(void **state)
{
	static const uint32_t counts[] = { 2, 4, 16 };
	static const uint64_t sizes[] = { 1u << 20, 64u << 20, 1u << 30 };
	static const enum ft_op ops[] = { FT_OP_ALL_GATHER, FT_OP_REDUCE_SCATTER };
	char path[512];
	size_t i, j, o;

	(void)state;
	agree_reset();
	busbw_routing = FT_ROUTING_DMODK;
	for (i = 0; i < FT_ARRAY_SIZE(counts); i++) {
		one_gpu_nodes(counts[i], path, sizeof(path));
		for (o = 0; o < FT_ARRAY_SIZE(ops); o++)
			for (j = 0; j < FT_ARRAY_SIZE(sizes); j++) {
				double m, f, tm;

				m = busbw(path, ops[o], FT_ALGO_PAT, FT_PROTO_SIMPLE, sizes[j], NULL);
				tm = busbw_time_us;
				f = busbw(path, ops[o], FT_ALGO_PAT, FT_PROTO_SIMPLE, sizes[j], "flow");
				print_message("# pat %s %u nodes %llu B: model %.2f us (%s), flow %.2f us "
				              "(%s, %+.2f%%)\n",
				              ft_op_name(ops[o]), counts[i],
				              (unsigned long long)sizes[j], tm, model_bottleneck,
				              busbw_time_us, flow_bottleneck, 100 * (f / m - 1));
				assert_string_equal(flow_algo, "pat");
				assert_string_equal(flow_bottleneck, model_bottleneck);
				assert_agree(f, m);
				if (counts[i] == 2 && sizes[j] == (1u << 30))
					pat_kernel_bytes(path, ops[o], tm, busbw_time_us);
				if (sizes[j] >= (64u << 20))
					assert_close(busbw_time_us, tm, 0.02 * tm);
				if (sizes[j] > (16u << 20) || counts[i] == 16)
					continue;
				f = busbw(path, ops[o], FT_ALGO_PAT, FT_PROTO_SIMPLE, sizes[j], "packet");
				print_message("# pat %s %u nodes %llu B: packet %.2f us (%s, %+.2f%%)\n",
				              ft_op_name(ops[o]), counts[i],
				              (unsigned long long)sizes[j], busbw_time_us,
				              flow_bottleneck, 100 * (f / m - 1));
				assert_agree(f, m);
			}
		remove(path);
	}
	/* forced channels: 2 of NCCL's 4 on 4 nodes at 64 MiB */
	one_gpu_nodes(4, path, sizeof(path));
	busbw_channels = 2;
	{
		double tm;

		busbw(path, FT_OP_ALL_GATHER, FT_ALGO_PAT, FT_PROTO_SIMPLE, 64u << 20, NULL);
		tm = busbw_time_us;
		busbw(path, FT_OP_ALL_GATHER, FT_ALGO_PAT, FT_PROTO_SIMPLE, 64u << 20, "flow");
		print_message("# pat all_gather 4 nodes 64 MiB, 2 channels: model %.2f us (%s), "
		              "flow %.2f us (%s)\n",
		              tm, model_bottleneck, busbw_time_us, flow_bottleneck);
		assert_string_equal(flow_bottleneck, model_bottleneck);
		assert_close(busbw_time_us, tm, 0.02 * tm);
		busbw_channels = 0;
	}
	busbw_routing = -1;
	/* the counters: NCCL's bytes, in both engines */
	for (i = 0; i < 2; i++) {
		static const char *const engines[] = { "flow", "packet" };
		const double S = 1048576, n = 8;
		struct ft_sim_report rep;

		one_gpu_nodes(8, path, sizeof(path));
		pat_report(path, FT_OP_ALL_GATHER, 1u << 20, engines[i], &rep);
		print_message("# pat all_gather 1 MiB on 8 one-GPU nodes, %s: host links %.0f B, "
		              "NCCL's 2 S (n - 1) %.0f\n",
		              engines[i], tier_bytes(&rep, "host", 1), 2 * S * (n - 1));
		assert_close(tier_bytes(&rep, "host", 1), 2 * S * (n - 1), 1);
		if (i == 1) {
			const struct ft_sim_op_counters *oc = ft_vec_at(&rep.op_counters, 0);

			assert_int_equal(rep.op_counters.len, 1);
			assert_int_equal(oc->bytes, (uint64_t)(S * (n - 1)));
		}
		ft_sim_report_release(&rep);
	}
	remove(path);
	print_message("# pat paced: worst %+.2f%% (%s)\n", 100 * agree_worst, agree_what);
}

/*
 * PAT's pace in the packet engine with packet.chunking: off, each dimension's connections
 * one flow each (pkt_setup.c ft__pk_submit()): the dimension still lasts the model's time
 * (pat_span()), as in NCCL's chunks. 16 MiB all-gather forced to pat on 2 one-GPU nodes:
 * both within 1 % of the model (250.7 us; 251.17 in both). Before, pat_span() held only
 * the chunked dimensions, and unchunked the op ran at its links' rate: 192.91 us (-23 %).
 */
static void
test_pat_paced_unchunked(void **state)
{
	static const char *const chunking[] = { "nccl", "off" };
	char path[512], text[1024];
	size_t k;
	double m;

	(void)state;
	one_gpu_nodes(2, path, sizeof(path));
	(void)busbw(path, FT_OP_ALL_GATHER, FT_ALGO_PAT, FT_PROTO_SIMPLE, 16u << 20, NULL);
	m = busbw_time_us;
	for (k = 0; k < FT_ARRAY_SIZE(chunking); k++) {
		struct ft_sim_report rep;
		double t;

		snprintf(text, sizeof(text),
		         "name: t\n"
		         "cluster: %s\n"
		         "packet: { chunking: %s }\n"
		         "jobs:\n"
		         "  - name: a\n"
		         "    ops:\n"
		         "      - {op: all_gather, size: 16MiB, algo: pat, proto: simple}\n",
		         path, chunking[k]);
		run_ok(text, "packet", &rep);
		assert_string_equal(ft_run_row(&rep.run, 0)->algo, "pat");
		t = ft_run_row(&rep.run, 0)->time_us;
		print_message("# pat all_gather 16 MiB on 2 one-GPU nodes, packet.chunking %s: "
		              "%.2f us, the model %.2f\n",
		              chunking[k], t, m);
		assert_close(t, m, 0.01 * m);
		ft_sim_report_release(&rep);
	}
	remove(path);
}

/*
 * Before 2.23 NCCL's tuner counts 2 x nNodes network steps of a ring all-reduce, more than
 * its 2(nNodes - 1) steps where each node holds one GPU, and charges (nsteps - nInterSteps)
 * intraLat, negative, + nInterSteps interLat (src/graph/tuning.cc at v2.22.3-1): 2.18 costs
 * 2(interLat - intraLat) more than 2.27, in the model (interLat: hwLat[NET] + its network
 * step) and in both engines (hwLat[NET] + the network step they add over the fabric's own
 * latency, ft__sim_net_step_s()). Before, the engines capped the count at the phase's
 * steps: 4 one-GPU nodes, 64 KiB, flow 99.80 us at both releases, the model 98.0 and 119.7.
 */
static void
test_ring_inter_steps_exceed_steps(void **state)
{
	static const char *const engines[] = { NULL, "flow", "packet" };
	const double hw = ft_model_hw_latency(21899, FT_HW_NET, FT_ALGO_RING, FT_PROTO_SIMPLE);
	const double step = ft_model_hw_latency(21899, FT_HW_NVLINK, FT_ALGO_RING, FT_PROTO_SIMPLE);
	struct ft_cluster_spec cs;
	struct ft_model_links l;
	struct ft_error err = { 0 };
	char path[512];
	double net_model, net_engine, t[2];
	size_t e;

	(void)state;
	assert_close(hw, ft_model_hw_latency(22799, FT_HW_NET, FT_ALGO_RING, FT_PROTO_SIMPLE),
	             1e-12);
	one_gpu_nodes(4, path, sizeof(path));
	assert_int_equal(ft_spec_resolve(path, &cs, &err), 0);
	assert_int_equal(ft_model_links_get(&cs, 0, 0, 0, &l, &err), 0);
	l.time_unflushed = true;
	net_model = ft_model_net_step_s(&l, FT_PROTO_SIMPLE);
	net_engine = FT_MAX(0.0, net_model - l.fabric_lat_s);
	for (e = 0; e < FT_ARRAY_SIZE(engines); e++) {
		double want = 2 * (hw + (e ? net_engine : net_model) - step);

		busbw_nccl = 21899;
		busbw(path, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 64u << 10, engines[e]);
		t[0] = busbw_time_us;
		busbw_nccl = 22799;
		busbw(path, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 64u << 10, engines[e]);
		t[1] = busbw_time_us;
		busbw_nccl = 0;
		print_message("# %s ring 64 KiB on 4 one-GPU nodes: 2.18 %.3f, 2.27 %.3f us "
		              "(difference %.3f, closed form %.3f)\n",
		              engines[e] ? engines[e] : "model", t[0], t[1], t[0] - t[1], want * 1e6);
		assert_close(t[0] - t[1], want * 1e6, 0.01);
	}
	remove(path);
}

/*
 * A ring phase of one step between nodes pays NCCL's network latency on it, as every step
 * between nodes does (NCCL's model: nInterSteps interLat): an all-gather of 8 KiB over 2
 * one-GPU nodes is one step, across the network. Both engines come within 5 % of the
 * model. Before, a phase of one step paid no network latency (hwLat[NET], 14 us): flow
 * 12.69 us, packet 12.44, the model 22.99.
 */
static void
test_one_step_phase_pays_the_network(void **state)
{
	static const char *const engines[] = { "flow", "packet" };
	char path[512];
	double m;
	size_t e;

	(void)state;
	one_gpu_nodes(2, path, sizeof(path));
	busbw(path, FT_OP_ALL_GATHER, FT_ALGO_RING, FT_PROTO_SIMPLE, 8192, NULL);
	m = busbw_time_us;
	for (e = 0; e < FT_ARRAY_SIZE(engines); e++) {
		busbw(path, FT_OP_ALL_GATHER, FT_ALGO_RING, FT_PROTO_SIMPLE, 8192, engines[e]);
		print_message("# all-gather 8 KiB on 2 one-GPU nodes: model %.2f, %s %.2f us\n", m,
		              engines[e], busbw_time_us);
		assert_close(busbw_time_us, m, 0.05 * m);
	}
	remove(path);
}

/*
 * Where each node holds one GPU, a step between nodes pays the hwLat[NET] NCCL's tuner
 * takes for it (src/graph/tuning.cc ncclTopoTuneModel() at v2.18.6-1, v2.21.5-1,
 * v2.23.4-1, v2.27.7-1): a ring's or tree's interLat reads Tree's row with nRanks ==
 * nNodes from 2.23 on, its own before. A ring's broadcast does not take interLat: NCCL
 * charges it hwLat[NET][RING][p] once where the channels are the same, else nsteps =
 * nRanks times, Tree's row for Simple; the model's chain pays the ring's row a hop at every
 * release, and the broadcast closed form below is that chain's, the model's own, not
 * NCCL's formula. The constants are the source's tables at the tags (us). On 4 one-GPU
 * nodes, for ring all-reduce, all-gather and broadcast and tree all-reduce at 8 and 64 KiB,
 * Simple and LL, at 2.18, 2.21 and 2.27: the model's latency term is the closed form; both
 * engines move from one release to the next as the model does, within 0.6 us (the model's
 * network step holds the fabric latency the engines' packets walk: 0.25 us on each of the
 * 2 network steps 2.18 counts more); and on Simple the flow engine's time comes within 5 %
 * of the model's, the packet engine's at 8 KiB (at 64 KiB its own tree pipeline and
 * broadcast chain take up to 17 % less, and its LL more or less: sim-log.md).
 * Before, the model took Tree's row at every release (ring all-reduce 64 KiB Simple at
 * 2.21: 231.7 us against the closed form's 115.6 + its bytes), the engines the op's own
 * row at every release (ring LL at 2.27: 2.7 us a network step, not Tree's 5.0).
 */
struct one_gpu_rel {
	uint32_t v;
	double tree_net_simple, tree_base_simple; /* hwLat[NET][TREE], baseLat[TREE], Simple */
};

/* The closed form of one case's latency (us) and the model's, flow's and packet's times
 * (us, into @t) on the @N one-GPU nodes of @path (@cs). */
static void
one_gpu_case(const char *path, const struct ft_cluster_spec *cs, double N,
             const struct one_gpu_rel *rel, enum ft_op op, enum ft_algo algo, enum ft_proto p,
             uint64_t bytes, double t[3])
{
	static const char *const engines[] = { "flow", "packet" };
	struct ft_error err = { 0 };
	bool ll = p == FT_PROTO_LL, ring = algo == FT_ALGO_RING;
	/* hwLat[NET] Ring and Tree, baseLat (us) */
	double net_ring = ll ? 2.7 : 14.0, net_tree = ll ? 5.0 : rel->tree_net_simple;
	double base = ring ? (ll ? 6.6 : 8.4) : (ll ? 6.8 : rel->tree_base_simple);
	bool tree_row = rel->v >= 22300 && op != FT_OP_BROADCAST;
	double hw = ring && !tree_row ? net_ring : net_tree, x, intra, want, ni;
	struct ft_model_links l;
	struct ft_model_query q;
	struct ft_model_result m;

	assert_int_equal(ft_model_links_get(cs, 0, 0, 0, &l, &err), 0);
	l.nccl_version = rel->v;
	l.time_unflushed = true;
	x = ft_model_net_step_s(&l, p) * 1e6; /* the model's latencyInter */
	/* hwLat Ring NVLink or PCI, at least the network post overhead (x3 Simple) */
	intra = FT_MAX(l.nvlink ? (ll ? 0.6 : 3.4) : (ll ? 1.0 : 5.7), ll ? 1.0 : 3.0);
	if (!ring) {
		want = base + 2 * log2(N) * (hw + x);
	} else if (op == FT_OP_ALL_REDUCE) {
		ni = rel->v < 22300 ? 2 * N : 2 * (N - 1);
		want = base + (2 * (N - 1) - ni) * intra + ni * (hw + x);
	} else {
		/* all-gather: N - 1 steps, all between nodes; broadcast: the model's own chain
		 * of N - 1 hops between nodes, each at the ring's row (not NCCL's formula,
		 * which charges the hop once or nRanks times) */
		want = base + (N - 1) * (hw + x);
	}
	ft_model_query_init(&q, op, bytes);
	q.tuner_only = true;
	q.force_algo = q.force_proto = true;
	q.algo = algo;
	q.proto = p;
	q.nccl_version = rel->v;
	assert_int_equal(ft_model_eval(cs, &q, &m, &err), 0);
	if (model_pipelines(cs, &m)) {
		q.tuner_only = false;
		assert_int_equal(ft_model_eval(cs, &q, &m, &err), 0);
	}
	t[0] = m.time_s * 1e6;
	for (size_t e = 0; e < FT_ARRAY_SIZE(engines); e++) {
		busbw_nccl = rel->v;
		busbw(path, op, (int)algo, (int)p, bytes, engines[e]);
		busbw_nccl = 0;
		t[1 + e] = busbw_time_us;
	}
	print_message("# %u %s %s %s %llu B: model lat %.2f us, closed form %.2f; time %.2f, "
	              "flow %.2f, packet %.2f\n",
	              rel->v, ft_op_name(op), ft_algo_name(algo), ft_proto_name(p),
	              (unsigned long long)bytes, m.lat_s * 1e6, want, t[0], t[1], t[2]);
	assert_close(m.lat_s * 1e6, want, 1e-3 * want);
}

static void
test_one_gpu_node_step_latencies(void **state)
{
	/* the newest last: the engines' moves are taken against it */
	static const struct one_gpu_rel rel[] = {
		{ 21806, 14.0, 0.0 }, { 22105, 28.0, 0.0 }, { 22707, 14.0, 8.4 }
	};
	static const struct {
		enum ft_op op;
		enum ft_algo algo;
	} cases[] = { { FT_OP_ALL_REDUCE, FT_ALGO_RING },
		      { FT_OP_ALL_GATHER, FT_ALGO_RING },
		      { FT_OP_BROADCAST, FT_ALGO_RING },
		      { FT_OP_ALL_REDUCE, FT_ALGO_TREE } };
	static const enum ft_proto protos[] = { FT_PROTO_SIMPLE, FT_PROTO_LL };
	static const uint64_t sizes[] = { 8u << 10, 64u << 10 };
	const size_t last = FT_ARRAY_SIZE(rel) - 1;
	struct ft_cluster_spec cs;
	struct ft_error err = { 0 };
	char path[512];

	(void)state;
	one_gpu_nodes(4, path, sizeof(path));
	assert_int_equal(ft_spec_resolve(path, &cs, &err), 0);
	for (size_t c = 0; c < FT_ARRAY_SIZE(cases); c++)
		for (size_t k = 0; k < FT_ARRAY_SIZE(protos); k++)
			for (size_t z = 0; z < FT_ARRAY_SIZE(sizes); z++) {
				double t[FT_ARRAY_SIZE(rel)][3];

				for (size_t r = 0; r < FT_ARRAY_SIZE(rel); r++)
					one_gpu_case(path, &cs, 4, &rel[r], cases[c].op,
					             cases[c].algo, protos[k], sizes[z], t[r]);
				for (size_t r = 0; r < FT_ARRAY_SIZE(rel); r++) {
					bool simple = protos[k] == FT_PROTO_SIMPLE;

					/* the packet engine's LL at 2.18 differs from the model's in
					 * its bandwidth, not its steps (sim-log.md); its plain Simple
					 * tree of 64 KiB cuts a copy's bytes with NCCL's tree
					 * efficiency still on them, two messages at 2.18 where NCCL
					 * runs one chunk a channel (sim.md Limits: 73.57 / 74.13 us
					 * at 2.18 / 2.27 against the model's 72.83 / 81.23; cut at
					 * NCCL's data, 65.73 at 2.18) */
					bool fill = cases[c].algo == FT_ALGO_TREE && simple &&
					            sizes[z] > (8u << 10);

					for (size_t e = 1; e < 3 && r < last; e++)
						if ((e == 1 || simple || rel[r].v >= 22100) &&
						    !(e == 2 && fill))
							assert_close(t[r][e] - t[last][e],
							             t[r][0] - t[last][0], 0.6);
					if (simple)
						assert_close(t[r][1], t[r][0], 0.05 * t[r][0]);
					if (simple && z == 0)
						assert_close(t[r][2], t[r][0], 0.05 * t[r][0]);
				}
			}
	remove(path);
}

/*
 * The engines read the release from the op's schedule alone (ft__sim_release_lats(): its
 * step, launch and network latencies and the 2 x nNodes rule), not from the topology's
 * spec: a ring all-reduce on 4 one-GPU nodes whose topology was built at 2.27 but whose
 * schedule was set at 2.18 counts 2.18's 2 x nNodes = 8 network steps at 2.18's
 * hwLat[NET][RING] (14 us) in ft__sim_far_steps(). Before, ft__sim_far_steps() read the
 * topology's release for the rule and for hwLat[NET]: 6 steps, and Tree's row where 2.27
 * takes it.
 */
static void
test_release_from_schedule(void **state)
{
	struct ft_cluster_spec cs, at;
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE, .algo = FT_ALGO_RING,
		                  .proto = FT_PROTO_LL, .nranks = 4, .ranks_per_node = 1,
		                  .bytes = 64u << 10 };
	struct ft_schedule sc;
	struct ft_topo *t = NULL;
	struct ft_error err = { 0 };
	uint32_t ranks[4], net = 0, steps;
	double extra, step, want;
	char path[512];

	(void)state;
	one_gpu_nodes(4, path, sizeof(path));
	assert_int_equal(ft_spec_resolve(path, &cs, &err), 0);
	cs.nccl_version = 22707;
	assert_int_equal(ft_topo_build(&cs, &t, &err), 0);
	for (uint32_t r = 0; r < 4; r++)
		ranks[r] = ft_topo_gpu(t, r, 0);
	ft_schedule_init(&sc);
	assert_int_equal(ft_coll_schedule(&a, &sc, &err), 0);
	at = cs;
	at.nccl_version = 21806;
	assert_int_equal(ft__sim_release_lats(&at, &sc, true), 0);
	steps = ft_sched_phase_at(&sc, 0)->steps;
	step = ft_model_hw_latency(21806, FT_HW_NVLINK, FT_ALGO_RING, FT_PROTO_LL);
	assert_close(sc.step_lat_s, step, 1e-12);
	/* hwLat[NET][RING] LL at 2.18 (v2.18.6-1 src/graph/tuning.cc), its own row before 2.23 */
	assert_close(ft__sim_hw_net_s(&sc), 2.7e-6, 1e-12);
	(void)far_steps_of(t, &sc, ranks, steps, &extra, &net);
	/* 2.18's 2 x nNodes of the all-reduce's 2(n - 1) steps, 4 of every 3 (2.27: 2 of 3);
	 * the steps inside nodes, (n - 1) - that count of them, negative as NCCL's tuner
	 * counts them, at max(NVLink's 0.6 us, NCCL's 1 us network post overhead) */
	want = (steps * 4 + 1) / 3 * (2.7e-6 + net_step_s_of(t, FT_PROTO_LL) - step) +
	       ((double)steps - (steps * 4 + 1) / 3) * (1.0e-6 - step);
	print_message("# schedule at 2.18 on a 2.27 topology: %u steps, extra %.3f us (want %.3f)\n",
	              steps, extra * 1e6, want * 1e6);
	assert_close(extra, want, 1e-12);
	ft_schedule_release(&sc);
	ft_topo_free(t);
	remove(path);
}

/*
 * The flow engine's step between nodes costs max(hwLat[NET], p), as the packet engine's: a
 * ring all-reduce of 8 KiB (LL) over two nodes of one DGX H100 GPU each crosses the network
 * on both its steps, each at Tree's 5.0 us row (one rank a node, kb NA-MODEL) or the
 * route's latency p where that is longer, so both engines take C + 2 max(5 us, p) with the
 * same C (launch, bytes, what the model adds to a network step) at 0.1, 5 and 25 us
 * cables (p 0.65, 10.45 and 50.45 us). Before, the flow engine's far step paid hwLat[NET]
 * + its phase's longest path: 2 min(5 us, p) more, 1.3 us at 0.1 us cables, 10 us at 5 and
 * 25 us (flow 19.27 / 38.87 / 118.87 us, packet 16.95 / 27.85 / 107.85). The packet
 * engine's C is the flow engine's within 0.5 us where hwLat[NET] is the longer: its ring's
 * messages walk p under the cap's pace, and what the barrier takes back is the walk past
 * the bytes' span (pkt_setup.c walk_back_s()), so the step pays hwLat[NET] and the bytes
 * once each (before, the whole walk came back and the bytes hid under it: C 1.0 us under
 * the flow engine's). Where p is the longer the step is the walk, and the pace, which
 * counts from the phase's start, leaves the bytes under it: C is the flow engine's less
 * those bytes at LL's cap (1.02 us: packet C 6.95 against 7.97, sim.md Limits), never
 * more than 1.1 us under it nor over it, and the same from 5 to 25 us cables; a step that
 * paid hwLat[NET] beside a longer path would be 10 us over.
 */
static void
test_flow_net_step_floor(void **state)
{
	static const char *const cable[] = { "100ns", "5us", "25us" };
	static const char *const engines[] = { "flow", "packet" };
	const double hw = ft_model_net_hop_latency(0, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_LL,
	                                           true);
	double c0[2] = { 0, 0 }, c1 = 0;

	(void)state;
	assert_close(hw, 5.0e-6, 1e-12);
	for (size_t i = 0; i < FT_ARRAY_SIZE(cable); i++) {
		char path[512];
		double p;

		two_gpus_file("simmodel-flowfloor.yaml", cable[i], path, sizeof(path));
		p = gpu_path_s(path, 1, 0);
		for (size_t e = 0; e < FT_ARRAY_SIZE(engines); e++) {
			double c;

			busbw(path, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_LL, 8u << 10,
			      engines[e]);
			c = busbw_time_us - 2 * FT_MAX(hw, p) * 1e6;
			print_message("# cables %s: path %.3f us, %s %.3f us, rest %.3f us\n",
			              cable[i], p * 1e6, engines[e], busbw_time_us, c);
			if (i == 0)
				c0[e] = c;
			if (e == 0) {
				assert_close(c, c0[e], 0.05);
			} else if (i == 0) {
				assert_close(c, c0[0], 0.5);
			} else {
				assert_true(c <= c0[0] + 0.05 && c >= c0[0] - 1.1);
				if (i == 1)
					c1 = c;
				else
					assert_close(c, c1, 0.05);
			}
		}
		remove(path);
	}
}

/*
 * A ring's steps inside a node, when the ring crosses nodes, last max(NVLink's per-hop
 * latency, NCCL's network post overhead) in both engines, as in NCCL's tuner and the
 * model's ring_floor() (src/graph/tuning.cc ncclTopoTuneModel(): intraLat = max(intraLat,
 * netOverhead), 1 us, x3 for Simple, for a ring's all-reduce, all-gather and reduce-scatter,
 * not its broadcast nor reduce; kb NA-MODEL "Other constants"). On 2 DGX H100 (16 ranks) a
 * ring all-reduce's phase of 2(n - 1) = 30 steps has 2 far steps and 28 inside nodes: on LL
 * (NVLink 0.6 us) ft__sim_far_steps() adds 28 x 0.4 us over 2 (hwLat[NET] + its network
 * step - 0.6); an all-gather's 15 steps, 1 far, 14 x 0.4; Simple (3.4 us over 3) and
 * the ring's broadcast nothing. So a 1 MiB LL all-reduce and all-gather take the model's
 * time within 5 % in both engines (all-reduce: flow 91.01, packet 88.57, the model 90.91
 * us; before 81.01 and 77.37; all-gather: 49.11, 47.22 and 48.76, before 44.11 and 41.62).
 * At 8 KiB the flow engine sits on the model's proxy floor (60.00 us) either way.
 */
static void
test_ring_intra_floor(void **state)
{
	static const struct {
		enum ft_op op;
		enum ft_proto proto;
		double floor_us; /* what NCCL's tuner floors a step inside a node at */
	} cases[] = { { FT_OP_ALL_REDUCE, FT_PROTO_LL, 1.0 },
		      { FT_OP_ALL_GATHER, FT_PROTO_LL, 1.0 },
		      { FT_OP_REDUCE_SCATTER, FT_PROTO_LL, 1.0 },
		      { FT_OP_ALL_REDUCE, FT_PROTO_SIMPLE, 3.0 },
		      { FT_OP_BROADCAST, FT_PROTO_LL, 0.0 } };
	static const char *const engines[] = { "flow", "packet" };
	struct ft_cluster_spec cs;
	struct ft_topo *t = NULL;
	struct ft_error err = { 0 };
	uint32_t ranks[16];

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &cs, &err), 0);
	assert_int_equal(ft_topo_build(&cs, &t, &err), 0);
	for (uint32_t r = 0; r < 16; r++)
		ranks[r] = ft_topo_gpu(t, r / 8, r % 8);
	for (size_t c = 0; c < FT_ARRAY_SIZE(cases); c++) {
		struct ft_coll_args a = { .op = cases[c].op, .algo = FT_ALGO_RING,
			                  .proto = cases[c].proto, .nranks = 16,
			                  .ranks_per_node = 8, .bytes = 8u << 10 };
		struct ft_schedule sc;
		uint32_t steps, far, net = 0;
		double extra, step, hw, want;

		ft_schedule_init(&sc);
		assert_int_equal(ft_coll_schedule(&a, &sc, &err), 0);
		assert_int_equal(ft__sim_release_lats(&cs, &sc, false), 0);
		steps = ft_sched_phase_at(&sc, 0)->steps;
		step = ft_model_hw_latency(0, FT_HW_NVLINK, FT_ALGO_RING, cases[c].proto);
		hw = ft_model_net_hop_latency(0, cases[c].op, FT_ALGO_RING, cases[c].proto, false);
		assert_close(sc.step_lat_s, step, 1e-12);
		(void)far_steps_of(t, &sc, ranks, steps, &extra, &net);
		/* a ring over 2 nodes crosses them on 1 of every 15 steps; the broadcast's chain
		 * from the root the same */
		far = (uint32_t)(steps / 15.0 + 0.5);
		assert_int_equal(net, far);
		want = far * (hw + net_step_s_of(t, cases[c].proto) - step) +
		       (steps - far) * FT_MAX(0.0, cases[c].floor_us * 1e-6 - step);
		print_message("# %s %s: %u steps, %u far, extra %.3f us (closed form %.3f)\n",
		              ft_op_name(cases[c].op), ft_proto_name(cases[c].proto), steps, far,
		              extra * 1e6, want * 1e6);
		assert_close(extra, want, 1e-12);
		ft_schedule_release(&sc);
	}
	ft_topo_free(t);
	for (size_t c = 0; c < 2; c++) {
		double m;

		busbw("dgx-h100:2", cases[c].op, FT_ALGO_RING, FT_PROTO_LL, 1u << 20, NULL);
		m = busbw_time_us;
		for (size_t e = 0; e < FT_ARRAY_SIZE(engines); e++) {
			busbw("dgx-h100:2", cases[c].op, FT_ALGO_RING, FT_PROTO_LL, 1u << 20,
			      engines[e]);
			print_message("# %s LL 1 MiB on 2 DGX H100: model %.2f, %s %.2f us\n",
			              ft_op_name(cases[c].op), m, engines[e], busbw_time_us);
			assert_close(busbw_time_us, m, 0.05 * m);
		}
	}
}

/*
 * CollNetDirect's steps in both engines hold NCCL's latency for it at the jobs' release,
 * as the model's: 2 (min(1, ppn - 1) hwLat[NVLINK] + arity x (ppn - 1)) + interLat
 * (src/graph/tuning.cc ncclTopoTuneModel(): arity 0.5 us at v2.18.6-1, 0.4 at v2.19.1-1,
 * v2.21.5-1 and v2.27.7-1), interLat Tree's
 * hwLat[NET] row from 2.23 where every node holds one rank (kb NA-MODEL hwLatencies). The
 * CollNetDirect rows are 8.0 / 10.7 us (NVLink / network) at 2.18 and 3.7 / 31 from 2.19;
 * Tree's network row 14. So 2.18 costs, over the newest: with 8 GPUs a node 2 (8.0 - 3.7)
 * + 2 x 7 x (0.5 - 0.4) + 10.7 - 31 = -10.3 us, with one 10.7 - 14 = -3.3 us, in the model
 * and both engines.
 * Before, the engines kept the kb's rows at every release (no move), and with one rank a
 * node 4 x 3.7 us on the steps where the model takes interLat alone (4 one-GPU nodes, 8
 * KiB: flow 15.75 us at both releases, the model 14.85 and 11.55).
 */
static void
test_collnet_release_rows(void **state)
{
	static const char *const engines[] = { NULL, "flow", "packet" };
	static const struct {
		uint32_t count, gpus;
		double move_us; /* 2.18 less the newest */
	} specs[] = { { 4, 1, 10.7 - 14.0 },
		      { 2, 8, 2 * (8.0 - 3.7) + 2 * 7 * (0.5 - 0.4) + 10.7 - 31.0 } };

	(void)state;
	for (size_t k = 0; k < FT_ARRAY_SIZE(specs); k++) {
		char text[256], path[512];

		snprintf(text, sizeof(text),
		         "name: sharp\n"
		         "nodes: { preset: dgx-h100, count: %u, gpus: %u }\n"
		         "fabric: { kind: rail-fat-tree, link: ndr, tiers: 2, radix: 64, "
		         "sharp: true }\n",
		         specs[k].count, specs[k].gpus);
		spec_file("simmodel-collnet-rows.yaml", text, path, sizeof(path));
		assert_close(ft_model_collnet_direct_hops_s(21806, specs[k].gpus, specs[k].gpus == 1) -
		                     ft_model_collnet_direct_hops_s(0, specs[k].gpus,
		                                                    specs[k].gpus == 1),
		             specs[k].move_us * 1e-6, 1e-12);
		for (size_t e = 0; e < FT_ARRAY_SIZE(engines); e++) {
			double t18, tnew;

			busbw_collnet = FT_COLLNET_DIRECT;
			busbw_nccl = 21806;
			busbw(path, FT_OP_ALL_REDUCE, FT_ALGO_COLLNET, FT_PROTO_SIMPLE, 8u << 10,
			      engines[e]);
			t18 = busbw_time_us;
			busbw_nccl = 0;
			busbw(path, FT_OP_ALL_REDUCE, FT_ALGO_COLLNET, FT_PROTO_SIMPLE, 8u << 10,
			      engines[e]);
			tnew = busbw_time_us;
			busbw_collnet = FT_COLLNET_AUTO;
			print_message("# CollNetDirect 8 KiB, %u x %u GPUs, %s: 2.18 %.2f, newest "
			              "%.2f us (closed form %.2f)\n",
			              specs[k].count, specs[k].gpus, engines[e] ? engines[e] : "model",
			              t18, tnew, specs[k].move_us);
			assert_close(t18 - tnew, specs[k].move_us, 0.01);
		}
		remove(path);
	}
}

/*
 * A job whose ranks share nodes pays its own hwLat[NET] row, however they are placed: NCCL
 * takes Tree's row only where nRanks == nNodes (src/graph/tuning.cc ncclTopoTuneModel() at
 * v2.23.4-1). A ring LL all-reduce of 16 ranks on 2 DGX H100 at 2.27 spread over the nodes
 * (rank r on node r mod 2), which the runner hands over as ranks without a node structure
 * (1 a "node"), pays the ring's 2.7 us, as packed; 2 ranks on 2 nodes pay Tree's 5.0.
 * Before, the runner read one rank a node from that 1: spread 16 ranks paid Tree's 5.0
 * (`fabtune sim dgx-h100:2` 8 KiB: spread 120.94 us against packed 60.00).
 */
static void
test_spread_ranks_keep_their_row(void **state)
{
	struct ft_cluster_spec spec;
	struct ft_topo *t = NULL;
	struct ft_error err = { 0 };
	struct sc_op o = { .op = FT_OP_ALL_REDUCE, .algo = FT_ALGO_RING, .proto = FT_PROTO_LL,
		           .bytes = 8u << 10, .repeat = 1 };
	uint32_t spread[16], packed[16], pair[2];
	struct {
		const uint32_t *ranks;
		uint32_t n, gpn;
		double want;
	} cases[3] = { { spread, 16, 1, 2.7e-6 }, { packed, 16, 8, 2.7e-6 }, { pair, 2, 1, 5.0e-6 } };

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &spec, &err), 0);
	spec.nccl_version = 22707;
	assert_int_equal(ft_topo_build(&spec, &t, &err), 0);
	assert_int_equal(ft__sim_prepare_topo(t, &ft_flow_engine, &err), 0);
	for (uint32_t r = 0; r < 16; r++) {
		spread[r] = ft_topo_gpu(t, r % 2, r / 2);
		packed[r] = ft_topo_gpu(t, r / 8, r % 8);
	}
	pair[0] = ft_topo_gpu(t, 0, 0);
	pair[1] = ft_topo_gpu(t, 1, 0);
	for (size_t i = 0; i < FT_ARRAY_SIZE(cases); i++) {
		struct ft_schedule sch;
		double cap;

		assert_int_equal(ft__sim_prepare_op(t, &ft_flow_engine, &o, cases[i].ranks,
		                                    cases[i].n, cases[i].gpn, &sch, &cap, &err),
		                 0);
		print_message("# %u ranks, %u a node given: hwLat[NET] %.2f us (want %.2f)\n",
		              cases[i].n, cases[i].gpn, ft__sim_hw_net_s(&sch) * 1e6,
		              cases[i].want * 1e6);
		assert_close(ft__sim_hw_net_s(&sch), cases[i].want, 1e-12);
		ft_schedule_release(&sch);
	}
	ft_topo_free(t);
}

/*
 * The packet engine's plain tree all-reduce on NCCL's own channels follows the model's
 * pipeline as the flow engine does (pkt_tree.c nccl_fill(): its copies' messages in
 * rounds of NCCL's launched channels' chunks, the first round through the stages at the
 * model's stage rates, the loops after it at the links' with NCCL's tree correction on
 * the wire, the chunk by release): packet within 10 % of the flow engine, Simple, on 2 DGX
 * B200 and 2 DGX H100 at 64 MiB, at 2.18 and 2.27, and at 1 GiB. Before, it ran its own
 * fill at the links' idle rate and no correction: 316.79 us against the flow engine's
 * 999.62 on 2 DGX B200 at 64 MiB and 2.27 (-68 %), 451.98 against 1,161.14 and 443.58
 * against 684.96 on 2 DGX H100 at 2.27 and 2.18.
 */
static void
test_packet_tree_follows_the_pipeline(void **state)
{
	static const struct {
		const char *spec;
		uint32_t version;
		uint64_t bytes;
	} rows[] = {
		{ "dgx-b200:2", 21899, 64u << 20 }, { "dgx-b200:2", 22799, 64u << 20 },
		{ "dgx-h100:2", 21899, 64u << 20 }, { "dgx-h100:2", 22799, 64u << 20 },
		{ "dgx-b200:2", 22799, 1u << 30 },
	};

	(void)state;
	for (size_t i = 0; i < FT_ARRAY_SIZE(rows); i++) {
		double f, p;

		busbw_nccl = rows[i].version;
		f = busbw(rows[i].spec, FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_SIMPLE,
		          rows[i].bytes, "flow");
		p = busbw(rows[i].spec, FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_SIMPLE,
		          rows[i].bytes, "packet");
		busbw_nccl = 0;
		print_message("# %s tree %llu at %u: packet %.2f flow %.2f GB/s busbw (%+.1f%%)\n",
		              rows[i].spec, (unsigned long long)rows[i].bytes, rows[i].version, p,
		              f, 100 * (p / f - 1));
		if (!(fabs(p / f - 1) <= 0.10))
			fail_msg("%s tree %llu at %u: packet %.2f, flow %.2f GB/s", rows[i].spec,
			         (unsigned long long)rows[i].bytes, rows[i].version, p, f);
	}
}

/*
 * A gap left open (docs/internals/sim.md, Limits): the packet engine's plain Simple tree
 * on NCCL's channels over 2 pcie-l40s nodes, all-reduce 256 MiB, is slower than the flow
 * engine: the GPUs' PCIe links bind both, and the flow engine keeps them 95.3 % busy, the
 * packet engine 87.4 %: flow 28,337.85 us, packet 30,894.55 (+9.0 %, busbw packet / flow
 * 0.917). About 1.6 ms of it is credit backpressure on the PCIe switch's in-node ports
 * (with 16 MiB port buffers 29,280.36 us), the rest the paced fill and the drain. The band
 * pins that ratio, so that a change that closes the gap, or widens it, shows here and the
 * Limits entry moves with it.
 */
#define PCIE_GAP_LO 0.89
#define PCIE_GAP_HI 0.94

static void
test_packet_tree_pcie_gap(void **state)
{
	double f, p;

	(void)state;
	f = busbw("pcie-l40s:2", FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_SIMPLE, 256u << 20,
	          "flow");
	p = busbw("pcie-l40s:2", FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_SIMPLE, 256u << 20,
	          "packet");
	print_message("# pcie-l40s:2 tree 256 MiB: packet %.3f flow %.3f GB/s busbw (%.4f)\n", p,
	              f, p / f);
	if (!(p / f >= PCIE_GAP_LO && p / f <= PCIE_GAP_HI))
		fail_msg("pcie-l40s:2 tree 256 MiB: packet / flow busbw %.4f, pinned [%.2f, %.2f]",
		         p / f, PCIE_GAP_LO, PCIE_GAP_HI);
}

/*
 * Where the fixed cost is most of the time, the packet engine agrees with the flow engine,
 * each case within its own tolerance, a little over what it measured, so that a step's
 * latency gone astray shows: a ring all-reduce of 16 MiB on 2 DGX H100 at 2.18 and 2.27
 * within 3 % (packet 235.07 and 214.97 us, flow 235.27 and 214.07: -0.1 and +0.4 %; the
 * packet ring at 2.18 was -9.2 % when it ran 2.27's latencies), a tree of 1 KiB there at
 * 2.21 within 3 % (+1.7 %) and at the newest within 9 % (+8.3 %: the tree's chunks are
 * the packets' own; the flow engine's 93.10 us is the model's 93.00, its far steps at
 * max(hwLat[NET], path), 94.30 and +6.9 % when they paid hwLat[NET] + the path), and NVLS
 * across nodes (SHARP) at 8 KiB on 8 DGX H100 within 2 %
 * (44.50 against 44.32, +0.4 %). Before, the packet engine's steps between nodes paid none
 * of NCCL's hwLat[NET] (NVLS at 8 KiB some 18 us under the flow engine's) and no engine
 * followed the release.
 */
static void
test_packet_agrees_on_step_latencies(void **state)
{
	static const struct {
		const char *spec;
		int algo;
		uint64_t bytes;
		uint32_t nccl;
		double tol;
	} cases[] = {
		{ "dgx-h100:2", FT_ALGO_RING, 16u << 20, 21899, 0.03 },
		{ "dgx-h100:2", FT_ALGO_RING, 16u << 20, 22799, 0.03 },
		{ "dgx-h100:2", FT_ALGO_TREE, 1024, 22199, 0.03 },
		{ "dgx-h100:2", FT_ALGO_TREE, 1024, 0, 0.09 },
		{ "examples/dgx-h100-sharp.yaml", FT_ALGO_NVLS, 8192, 0, 0.02 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < FT_ARRAY_SIZE(cases); i++) {
		double f, p;

		busbw_nccl = cases[i].nccl;
		busbw(cases[i].spec, FT_OP_ALL_REDUCE, cases[i].algo, FT_PROTO_SIMPLE,
		      cases[i].bytes, "flow");
		f = busbw_time_us;
		busbw(cases[i].spec, FT_OP_ALL_REDUCE, cases[i].algo, FT_PROTO_SIMPLE,
		      cases[i].bytes, "packet");
		p = busbw_time_us;
		print_message("# %s %s %llu B, nccl %u: flow %.2f packet %.2f us (%+.1f %%)\n",
		              cases[i].spec, ft_algo_name((enum ft_algo)cases[i].algo),
		              (unsigned long long)cases[i].bytes, cases[i].nccl, f, p,
		              (p / f - 1) * 100);
		assert_close(p, f, cases[i].tol * f);
	}
	busbw_nccl = 0;
}

/*
 * NVLS inside one node is one pass through the NVSwitch (reduce and multicast
 * pipelined): NCCL's model charges its base and one NVLink NVLS latency, and so
 * does the flow engine, not one per step. At 1 KiB the data adds well under a
 * microsecond; the model's tuner time is the same.
 */
static void
test_nvls_latency_once(void **state)
{
	static const char text[] = "name: t\n"
	                           "cluster: dgx-h100\n"
	                           "jobs:\n"
	                           "  - name: a\n"
	                           "    ops:\n"
	                           "      - {op: all_reduce, size: 1KiB, algo: nvls, proto: simple}\n";
	double lat = (ft_coll_base_latency(FT_ALGO_NVLS, FT_PROTO_SIMPLE) +
	              ft_coll_hw_latency(FT_HW_NVLINK, FT_ALGO_NVLS, FT_PROTO_SIMPLE)) *
	             1e6;
	struct ft_sim_report rep;
	double t, m;

	(void)state;
	run_ok(text, "flow", &rep);
	t = ft_run_row(&rep.run, 0)->time_us;
	ft_sim_report_release(&rep);
	assert_true(lat > 10);
	assert_true(t >= lat && t < lat + 1.0);
	m = busbw("dgx-h100", FT_OP_ALL_REDUCE, FT_ALGO_NVLS, FT_PROTO_SIMPLE, 1024, NULL);
	assert_close(busbw("dgx-h100", FT_OP_ALL_REDUCE, FT_ALGO_NVLS, FT_PROTO_SIMPLE, 1024,
	                   "flow"),
	             m, 0.03 * m);
}

/*
 * A part of a cluster of nodes of different GPU counts is its first nodes in
 * spec order, filled GPU by GPU (a packed job): on mixed-gpus 8 GPUs are the
 * DGX H100 alone, 12 the DGX and one 4-GPU node (its two 200G rails bind),
 * 10 the DGX and GPUs 0-1 of a 4-GPU node, which share that node's first NIC
 * (one rail binds: half the bus bandwidth). The model and the flow engine
 * place them alike and agree; what does not fit the first nodes is refused.
 */
static void
test_part_of_uneven_nodes(void **state)
{
	static const struct {
		uint32_t ngpus, nnodes, want_nodes, lo, hi, rails;
	} parts[] = {
		{ 8, 0, 1, 8, 8, 8 }, { 12, 0, 2, 4, 8, 2 }, { 0, 2, 2, 4, 8, 2 },
		{ 10, 0, 2, 2, 8, 1 }, { 10, 2, 2, 2, 8, 1 },
	};
	double rail = 25e9 * 4096 / 4122;
	char mixed[512];
	struct ft_cluster_spec cs;
	struct ft_error err = { 0 };
	struct ft_model_links l;
	size_t i;

	(void)state;
	spec_file("simmodel-part.yaml", mixed_gpus_text, mixed, sizeof(mixed));
	assert_int_equal(ft_spec_resolve(mixed, &cs, &err), 0);
	for (i = 0; i < FT_ARRAY_SIZE(parts); i++) {
		assert_int_equal(ft_model_links_get(&cs, parts[i].ngpus, parts[i].nnodes, 0, &l, &err),
		                 0);
		assert_int_equal(l.nnodes, parts[i].want_nodes);
		assert_int_equal(l.ppn_min, parts[i].lo);
		assert_int_equal(l.ppn_max, parts[i].hi);
		assert_int_equal(l.nrails, parts[i].rails);
		if (parts[i].want_nodes > 1)
			assert_close(l.inter_Bps, parts[i].rails * rail, 1);
	}
	assert_int_equal(ft_model_links_get(&cs, 20, 0, 0, &l, &err), FT_ERANGE);
	assert_int_equal(ft_model_links_get(&cs, 4, 2, 0, &l, &err), FT_ERANGE);
	assert_non_null(strstr(err.msg, "don't fit the first nodes"));
	for (busbw_ranks = 10; busbw_ranks <= 12; busbw_ranks += 2) {
		double f = busbw(mixed, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30,
		                 "flow");
		double m = busbw(mixed, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30,
		                 NULL);

		assert_close(f, m, 0.02 * m);
		assert_close(m, (busbw_ranks == 10 ? 1 : 2) * rail / 1e9, 0.03 * m);
	}
	busbw_ranks = 0;
	remove(mixed);
}

/*
 * NCCL's tree all-reduce over nodes of different GPU counts (src/graph/
 * connect.cc, trees.cc): a chain inside each node, a double binary tree over
 * the nodes, half the data in each tree. Over the 3 nodes of mixed-gpus the
 * trees are 0-2-1 and 1-0-2 (node 0 the root of tree 0, tree 1 shifted by one
 * node), so node 2 (4 GPUs, two 200G NICs) has three tree edges and node 1 two:
 * node 2 sends 3 x S/2 and node 1 S, at NCCL's tree efficiency (S / 0.92 on
 * the wire per S), and node 2's NICs bind: algbw = 2 x NIC x 0.92 / 1.5.
 * NCCL's tuner (and the model) charge every node 2S (the busiest node of a tree
 * over 4 or more nodes), so on 3 nodes the flow engine is a third faster; over
 * 5 nodes (1 x 8 + 4 x 4 GPUs, a 4-GPU node interior in one tree) the two agree.
 * NCCL's NVLS tree (connect.cc connectNvls) runs the same trees between the
 * nodes' heads, two per node here (one per NIC, the least over the nodes),
 * each with a shard of S / 2: the node traffic is the same, without the 0.92.
 */
static void
test_tree_over_uneven_nodes(void **state)
{
	static const uint64_t sizes[] = { 1u << 30, 4ull << 30 };
	double S = (double)(1u << 30), wire = S / 0.92, nic = 25e9 * 4096 / 4122;
	char mixed[512], five[512], text[1024];
	const struct ft_result_row *row;
	struct ft_sim_report rep;
	double ramp_us;
	size_t k;

	(void)state;
	spec_file("simmodel-tree3.yaml", mixed_gpus_text, mixed, sizeof(mixed));
	spec_file("simmodel-tree5.yaml", mixed_five_text, five, sizeof(five));
	snprintf(text, sizeof(text), job_on, mixed,
	         "op: all_reduce, size: 1GiB, algo: tree, proto: simple");
	run_ok(text, "flow", &rep);
	row = ft_run_row(&rep.run, 0);
	assert_int_equal(row->nranks, 16);
	assert_string_equal(row->algo, "tree");
	assert_close(nic_sent(&rep, 1, 0) + nic_sent(&rep, 1, 1), wire, wire * 1e-6);
	assert_close(nic_sent(&rep, 2, 0) + nic_sent(&rep, 2, 1), 1.5 * wire, wire * 1e-6);
	/* the flows' time: the run's less the model's ramp of the tree (whole_pipe()) */
	ramp_us = model_pick(mixed, FT_OP_ALL_REDUCE, FT_ALGO_TREE, 1u << 30).pipe.ramp_s * 1e6;
	assert_true(ramp_us > 0);
	assert_close(S / ((row->time_us - ramp_us) * 1e3), 2 * nic * 0.92 / 1.5 / 1e9,
	             0.01 * 2 * nic / 1.5 / 1e9);
	ft_sim_report_release(&rep);
	/* NVLS trees: two heads per node (the 4-GPU nodes' NICs), each with S / 2 */
	snprintf(text, sizeof(text), job_on, mixed,
	         "op: all_reduce, size: 1GiB, algo: nvls_tree, proto: simple");
	run_ok(text, "flow", &rep);
	row = ft_run_row(&rep.run, 0);
	assert_string_equal(row->algo, "nvls_tree");
	assert_close(nic_sent(&rep, 1, 0) + nic_sent(&rep, 1, 1), S, S * 1e-6);
	assert_close(nic_sent(&rep, 2, 0) + nic_sent(&rep, 2, 1), 1.5 * S, S * 1e-6);
	assert_close(row->algbw_GBps, 2 * nic / 1.5 / 1e9, 0.01 * 2 * nic / 1.5 / 1e9);
	ft_sim_report_release(&rep);
	for (k = 0; k < 2 * FT_ARRAY_SIZE(sizes); k++) {
		enum ft_algo a = k < FT_ARRAY_SIZE(sizes) ? FT_ALGO_TREE : FT_ALGO_NVLS_TREE;
		uint64_t b = sizes[k % FT_ARRAY_SIZE(sizes)];
		double f = busbw(five, FT_OP_ALL_REDUCE, a, FT_PROTO_SIMPLE, b, "flow");
		double m = busbw(five, FT_OP_ALL_REDUCE, a, FT_PROTO_SIMPLE, b, NULL);

		if (fabs(f / m - 1) > 0.10)
			print_error("%s %llu: flow %.2f model %.2f GB/s\n", ft_algo_name(a),
			            (unsigned long long)b, f, m);
		assert_agree(f, m);
	}
	/* the tuner's pick at 64 MiB is an NVLS tree, and the flow engine runs it */
	snprintf(text, sizeof(text), job_on, mixed, "op: all_reduce, size: 64MiB");
	run_ok(text, "flow", &rep);
	assert_string_equal(ft_run_row(&rep.run, 0)->algo, "nvls_tree");
	ft_sim_report_release(&rep);
	remove(mixed);
	remove(five);
}

/*
 * NCCL's tree on nodes of the same GPU count is the one above (connect.cc,
 * trees.cc; kb NA-ALGO-TREE): a chain in each node and the double binary tree
 * over the nodes, not a flat tree over every rank. Over 2 nodes each tree is
 * one edge, so each node sends S (S / 2 per tree) at NCCL's tree efficiency,
 * S / 0.92 on the wire. Over 4 nodes tree 0 is 0-2-{1,3} and tree 1 its
 * mirror 3-1-{2,0}: nodes 1 and 2 are interior in one tree (up S / 2, down
 * S / 2 to two children) and a leaf in the other, 2S in all; nodes 0 and 3
 * send S. Eight NICs, one channel each, share a node's bytes equally. The
 * NVLS tree runs the same trees between its heads, one per NIC (8 here),
 * each with a shard of S / 8: the same node bytes without the 0.92. With
 * four NICs for eight GPUs the channels, and the NVLS heads, are four.
 */
static void
test_tree_on_same_size_nodes(void **state)
{
	static const double sends[2][4] = { { 1, 1 }, { 1, 2, 2, 1 } };
	double S = (double)(1u << 30);
	char text[1024], four_nics[512];
	struct ft_sim_report rep;
	uint32_t c, node, nic;

	(void)state;
	spec_file("simmodel-tree4nic.yaml",
	          "name: h100-4nic\nnodes: { preset: dgx-h100, count: 4, nics: { count: 4 } }\n"
	          "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n",
	          four_nics, sizeof(four_nics));
	for (c = 0; c < 6; c++) {
		bool nvls = c % 2, four = c >= 4;
		uint32_t nn = c < 2 ? 2 : 4, nnics = four ? 4 : 8;
		double unit = nvls ? S : S / 0.92;

		snprintf(text, sizeof(text), job_on,
		         four ? four_nics : c < 2 ? "dgx-h100:2" : "dgx-h100:4",
		         nvls ? "op: all_reduce, size: 1GiB, algo: nvls_tree, proto: simple"
		              : "op: all_reduce, size: 1GiB, algo: tree, proto: simple");
		run_ok(text, "flow", &rep);
		assert_string_equal(ft_run_row(&rep.run, 0)->algo, nvls ? "nvls_tree" : "tree");
		for (node = 0; node < nn; node++)
			for (nic = 0; nic < nnics; nic++)
				assert_close(nic_sent(&rep, node, nic),
				             sends[nn / 4][node] * unit / nnics, unit * 1e-6);
		ft_sim_report_release(&rep);
	}
	remove(four_nics);
}

/*
 * NCCL's NVLS tree keeps its heads on the GPUs that own the NICs, the same on
 * every channel (search.cc: one NVLS channel per NIC, its head the NIC's local
 * GPU; connect.cc connectNvls: every compute channel splits its data between
 * all the heads, channel c on tree c mod 2), and a head sends through its own
 * NIC (getNvlsNetDev). An all-reduce of S over 2 nodes of 8 GPUs, H heads per
 * node: every GPU sends S into the NVSwitch and gets S back, a head S / H more
 * each way (its shard), all at NVLS efficiency; over 2 nodes each tree is one
 * edge, so a head sends its shard of S / H once (half up tree 0, half down
 * tree 1) over its PCIe link and its NIC, and a GPU that heads nothing sends
 * nothing there. With 8 NICs the heads are GPUs 0 to 7; with 4 NICs (two GPUs
 * per NIC) GPUs 0, 2, 4 and 6, each NIC S / 4. The heads rotated with the
 * ring's channels before: with 4 NICs every GPU headed some channels and
 * handed its shard over NVLink to its NIC's GPU (heads 1.4596 S, others
 * 1.3125 S on NVLink, against 1.4706 and 1.1765).
 */
static void
test_nvls_tree_heads_own_nics(void **state)
{
	double S = (double)(256u << 20), eff;
	char text[1024], four_nics[512];
	struct ft_cluster_spec cs;
	struct ft_error err = { 0 };
	struct ft_sim_report rep;
	uint32_t c, node, g;

	(void)state;
	spec_file("simmodel-heads4nic.yaml",
	          "name: h100-4nic\nnodes: { preset: dgx-h100, count: 2, nics: { count: 4 } }\n"
	          "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n",
	          four_nics, sizeof(four_nics));
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &cs, &err), 0);
	eff = ft_model_nvls_efficiency(&cs);
	assert_true(eff > 0 && eff < 1);
	for (c = 0; c < 2; c++) {
		uint32_t heads = c ? 4 : 8, per = 8 / heads;

		snprintf(text, sizeof(text), job_on, c ? four_nics : "dgx-h100:2",
		         "op: all_reduce, size: 256MiB, algo: nvls_tree");
		run_ok(text, "flow", &rep);
		assert_string_equal(ft_run_row(&rep.run, 0)->algo, "nvls_tree");
		for (node = 0; node < 2; node++) {
			for (g = 0; g < 8; g++) {
				bool head = g % per == 0;
				double nvl = (head ? S + S / heads : S) / eff,
				       pci = head ? S / heads : 0;
				char up[64], down[64], pcie[64];

				snprintf(up, sizeof(up), "n%u.gpu%u -> n%u.nvswitch", node, g,
				         node);
				snprintf(down, sizeof(down), "n%u.nvswitch -> n%u.gpu%u", node,
				         node, g);
				snprintf(pcie, sizeof(pcie), "n%u.gpu%u -> n%u.pcie%u", node, g,
				         node, g / 2);
				assert_close(port_bytes(&rep, up), nvl, nvl * 1e-6);
				assert_close(port_bytes(&rep, down), nvl, nvl * 1e-6);
				assert_close(port_bytes(&rep, pcie), pci, S * 1e-6);
			}
			for (g = 0; g < heads; g++)
				assert_close(nic_sent(&rep, node, g), S / heads, S * 1e-6);
		}
		ft_sim_report_release(&rep);
	}
	remove(four_nics);
}

/*
 * Node groups of different shapes: two DGX H100 (8 GPUs, 8 x 400G NICs)
 * beside two HGX H200 with 4 x 200G NICs (two GPUs per NIC). The topology
 * gives each node its own NICs and PCIe placement, and a GPU of an H200
 * node leaves through NIC g / 2. A 1 GiB ring all-reduce over the 32 GPUs
 * runs 8 channels; every node sends 2 (n - 1) / n x S through its NICs, an
 * H100 NIC an eighth of it and an H200 NIC a quarter, so the H200 NICs bind:
 * bus bandwidth = 4 x 25 GB/s x 4096 / 4122 (IB headers at MTU 4096, kb
 * IB-MTU) = 99.4 GB/s, less the 62 steps' latencies (about 1%), as on a
 * cluster of H200 nodes alone; the model (the slowest member) agrees.
 */
static void
test_node_groups_of_other_shapes(void **state)
{
	static const char mixed_text[] =
	        "name: mixed-shapes\n"
	        "nodes:\n"
	        "  - { preset: dgx-h100, count: 2 }\n"
	        "  - { preset: hgx-h200, count: 2, nics: { count: 4, rate: 200Gbps } }\n"
	        "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n";
	double sent = 2.0 * 31 / 32 * (double)(1u << 30);
	double bound = 4 * 25e9 * 4096 / 4122 / 1e9, fm, mm;
	char mixed[512], text[1024];
	struct ft_cluster_spec cs;
	struct ft_error err = { 0 };
	struct ft_sim_report rep;
	struct ft_topo *t = NULL;
	struct ft_path path;
	uint32_t g, r;

	(void)state;
	spec_file("simmodel-shapes.yaml", mixed_text, mixed, sizeof(mixed));
	assert_int_equal(ft_spec_resolve(mixed, &cs, &err), 0);
	assert_int_equal(ft_topo_build(&cs, &t, &err), 0);
	/* 8 NICs on the H100 nodes, 4 on the H200 nodes, at their own rates */
	assert_int_not_equal(ft_topo_nic(t, 1, 7), UINT32_MAX);
	assert_int_not_equal(ft_topo_nic(t, 2, 3), UINT32_MAX);
	assert_int_equal(ft_topo_nic(t, 2, 4), UINT32_MAX);
	assert_int_equal(ft_topo_nic(t, 3, 4), UINT32_MAX);
	assert_close(host_cap(&cs, 2, 3), 25e9, 1);
	assert_close(host_cap(&cs, 0, 7), 50e9, 1);
	/* an H200 GPU leaves its node through NIC g / 2, an H100 GPU through NIC g */
	for (g = 0; g < 8; g++) {
		struct ft_route_policy pol = { .routing = FT_ROUTING_DMODK };

		assert_int_equal(ft_route_path(t, ft_topo_gpu(t, 2, g), ft_topo_gpu(t, 0, g), &pol,
		                               &path),
		                 0);
		assert_true(path.nlinks > 2);
		for (r = 0; r < path.nlinks; r++)
			if (ft_topo_link(t, path.links[r])->kind == FT_L_HOST)
				break;
		assert_true(r < path.nlinks);
		assert_int_equal(ft_topo_link(t, path.links[r])->src, ft_topo_nic(t, 2, g / 2));
		assert_int_equal(ft_topo_link(t, path.links[path.nlinks - 1])->dst,
		                 ft_topo_gpu(t, 0, g));
	}
	ft_topo_free(t);

	snprintf(text, sizeof(text), job_on, mixed,
	         "op: all_reduce, size: 1GiB, algo: ring, proto: simple");
	run_ok(text, "flow", &rep);
	for (r = 0; r < 8; r++) {
		assert_close(nic_sent(&rep, 0, r), sent / 8, sent * 1e-5);
		assert_close(nic_sent(&rep, 1, r), sent / 8, sent * 1e-5);
	}
	for (r = 0; r < 4; r++) {
		assert_close(nic_sent(&rep, 2, r), sent / 4, sent * 1e-5);
		assert_close(nic_sent(&rep, 3, r), sent / 4, sent * 1e-5);
	}
	fm = ft_run_row(&rep.run, 0)->busbw_GBps;
	ft_sim_report_release(&rep);
	assert_true(fm <= bound);
	assert_true(fm >= 0.97 * bound);
	mm = busbw(mixed, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30, NULL);
	assert_close(fm, mm, 0.02 * mm);
	remove(mixed);
}

/*
 * Google Cloud's A3 instances bind on their GPU NICs: a ring all-reduce over
 * 4 nodes moves each node's 2 (n - 1) / n x S through its NICs, so the bus
 * bandwidth is the NICs' sum, 4 x 200 Gb/s = 100 GB/s on a3-highgpu-8g and 8
 * x 200 Gb/s = 200 GB/s on a3-megagpu-8g (TCP headers are not modelled),
 * less the 62 steps' latencies (2-6%), in the flow engine and the model.
 * An AWS p5 has 32 x 100 Gb/s = 400 GB/s of EFA, more than NVLink's 360
 * GB/s at NCCL's ring graph (kb NA-MODEL), so NVLink binds there; its
 * network steps carry the 75 us aws-ofi-nccl reports (twice on Simple, 6 x
 * 150 us: docs/presets.md PS-EFA-NETLAT), 12% of 1 GiB's time, so it is
 * held at 8 GiB. The packet engine refuses EFA and TCP links, which it does
 * not model.
 */
static void
test_cloud_presets_bind_on_nics(void **state)
{
	static const struct {
		const char *spec;
		double bound_GBps;
		const char *binds; /* the model's bottleneck */
		uint64_t bytes;
	} cases[] = { { "gcp-a3-high:4", 100, "nic", 1u << 30 },
		      { "gcp-a3-mega:4", 200, "nic", 1u << 30 },
		      { "aws-p5:4", 360, "nvlink", 8ull << 30 } };
	struct ft_sim_report rep;
	struct ft_error err = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < FT_ARRAY_SIZE(cases); i++) {
		double f = busbw(cases[i].spec, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE,
		                 cases[i].bytes, "flow");
		double m = busbw(cases[i].spec, FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE,
		                 cases[i].bytes, NULL);

		assert_true(f <= cases[i].bound_GBps * (1 + 1e-9));
		assert_true(f >= 0.93 * cases[i].bound_GBps);
		assert_true(m <= cases[i].bound_GBps * (1 + 1e-9));
		assert_true(m >= 0.93 * cases[i].bound_GBps);
		assert_string_equal(model_bottleneck, cases[i].binds);
	}
	/* The packet engine runs EFA (SRD) and TCPX/O too; it refused them before. */
	for (i = 0; i < 2; i++) {
		char text[160];

		snprintf(text, sizeof(text),
		         "name: t\ncluster: %s\njobs:\n  - name: a\n    ops:\n"
		         "      - {op: all_reduce, size: 1MiB}\n",
		         i == 0 ? "aws-p5:2" : "gcp-a3-mega:2");
		assert_int_equal(run_text(text, "packet", &rep, &err), 0);
		assert_true(ft_run_nrows(&rep.run) >= 1);
		assert_true(ft_run_row(&rep.run, 0)->time_us > 0);
		ft_sim_report_release(&rep);
	}
}

/*
 * An all-to-all's sends share their channels' slots with the sends NCCL puts in the same
 * proxy op (ft_model_p2p_share_slots(): NCCL_SHARED_STEPS 16 over the network sends of one
 * work batch of a channel, each at most NCCL_STEPS 8). Counted by hand for NCCL v2.27.7
 * (--nccl 2.27.7; test_a2a_shared_slots_by_release has the other releases) from
 * ncclP2pChannelBaseForRound() / ncclP2pChannelForPart() (a round's base is its node delta
 * times ceil(ppn / 8) plus its local delta / 8, part k adds k bit-reversed):
 *  - 4 nodes of 8 (DGX H100), 4 channels a send of 16 (or 32): the 8 sends of node delta d
 *    all sit on channels d + {0, 8, 4, 12}, one batch of 8 subs: 2 slots, all 24 (the
 *    model's former even spread said 5);
 *  - 18 nodes of 1, 4 of 32 channels: round r on r + {0, 16, 8, 24}, so channel 1 carries
 *    rounds 1, 9, 17 (3 subs, 5 slots), channel 2 rounds 2 and 10 (8 slots), channel 0
 *    rounds 0 (the rank itself, not a network send), 8, 16 (2 subs: 8);
 *  - 16 nodes of 8 (golden 0816's L40S), 2 channels a send of 16 or 32: delta d's part 1
 *    lands where delta d + 8's part 0 does, but in the next batch: 2 slots, every send;
 *  - 4 nodes of 4, 4 of 16 channels: batches of 4 network sends: 4 slots;
 *  - 121 nodes of 1 on 2 PCIe channels, 1 a send: odd rounds fill channel 1 in batches of 8
 *    (2 slots), the last batch 113..119 of 4 (4 slots); channel 0's first batch is rounds
 *    0..14, 7 network (2), its last 112..120, 5 (3);
 *  - a send inside the node, or on one node, keeps its 8.
 * A window at s slots is s / 8 of a send/recv's.
 */
static void
test_a2a_shared_slots(void **state)
{
	static const struct {
		uint32_t channels, nch_all, nnodes, ppn, round, slots;
	} want[] = { { 4, 16, 4, 8, 8, 2 },     { 4, 16, 4, 8, 31, 2 },   { 4, 32, 4, 8, 20, 2 },
		     { 4, 16, 4, 8, 3, 8 },     { 4, 32, 18, 1, 1, 5 },   { 4, 32, 18, 1, 9, 5 },
		     { 4, 32, 18, 1, 17, 5 },   { 4, 32, 18, 1, 2, 8 },   { 4, 32, 18, 1, 10, 8 },
		     { 4, 32, 18, 1, 8, 8 },    { 4, 32, 18, 1, 16, 8 },  { 4, 0, 18, 1, 9, 5 },
		     { 2, 16, 16, 8, 8, 2 },    { 2, 16, 16, 8, 79, 2 },  { 2, 32, 16, 8, 127, 2 },
		     { 4, 16, 4, 4, 5, 4 },     { 1, 2, 121, 1, 1, 2 },   { 1, 2, 121, 1, 119, 4 },
		     { 1, 2, 121, 1, 113, 4 },  { 1, 2, 121, 1, 111, 2 }, { 1, 2, 121, 1, 14, 2 },
		     { 1, 2, 121, 1, 120, 3 },  { 4, 32, 1, 8, 3, 8 } };
	uint32_t n5 = 0, n8 = 0;

	(void)state;
	for (size_t i = 0; i < FT_ARRAY_SIZE(want); i++) {
		struct ft_model_p2p_chunking ch = { .channels = want[i].channels,
			                            .slots = 8,
			                            .chunk_bytes = 128u << 10,
			                            .nccl_version = 22707 };
		double w8 = ft_model_p2p_window_Bps(&ch, 1e-3);
		int got = ft_model_p2p_share_slots(&ch, want[i].nch_all, want[i].nnodes, want[i].ppn,
		                                   want[i].round);

		if (got != (int)want[i].slots)
			fail_msg("case %zu: %d slots, %u by hand", i, got, want[i].slots);
		assert_int_equal(ch.slots, want[i].slots);
		assert_true(fabs(ft_model_p2p_window_Bps(&ch, 1e-3) - w8 * want[i].slots / 8) <=
		            1e-9 * w8);
	}
	/* 18 x 1: 3 sends keep 5, the 14 others 8; 4 x 8: all 24 keep 2 */
	for (uint32_t r = 1; r < 18; r++) {
		struct ft_model_p2p_chunking ch = { .channels = 4,
		                                    .slots = 8,
		                                    .chunk_bytes = 1,
		                                    .nccl_version = 22707 };
		int got = ft_model_p2p_share_slots(&ch, 32, 18, 1, r);

		assert_int_equal(got, ch.slots);
		n5 += ch.slots == 5;
		n8 += ch.slots == 8;
	}
	assert_int_equal(n5, 3);
	assert_int_equal(n8, 14);
	for (uint32_t r = 8; r < 32; r++) {
		struct ft_model_p2p_chunking ch = { .channels = 4,
		                                    .slots = 8,
		                                    .chunk_bytes = 1,
		                                    .nccl_version = 22707 };

		assert_int_equal(ft_model_p2p_share_slots(&ch, 16, 4, 8, r), 2);
	}
	/* never above what the send had */
	{
		struct ft_model_p2p_chunking ch = { .channels = 4,
		                                    .slots = 3,
		                                    .chunk_bytes = 1,
		                                    .nccl_version = 22707 };

		assert_int_equal(ft_model_p2p_share_slots(&ch, 32, 18, 1, 2), 3);
	}
}

/*
 * The same counts release by release (--nccl; ft_model_p2p_share_slots()), each by hand
 * from that release's NVIDIA/nccl source:
 *  - v2.21.5 (ncclChannelComputeBase(): base = node delta + local delta / 8, channel
 *    mirrorBits(base) + part; src/init.cc walks the node deltas 0, d, -d, N/2 - d, ...; a
 *    new ncclWork at every 8th position): 18 nodes of 1, 4 of 32 channels, walk r0 r9 r1
 *    r17 r8 r10 r2 r16 | r7 r11 r3 r15 r6 r12 r4 r14 | r5 r13, round r on rev5(r) + 0..3:
 *    channel 17 holds r1, r17, r14 in one batch (3 subs: 5), channel 4 r8, r16, r4 (5);
 *    r5 opens a new batch at position 16, so channels 20-23 hold it with r13 at most (8):
 *    rounds 1, 4, 8, 9, 14, 16, 17 keep 5, the 10 others 8. 17 nodes of 1 on one channel:
 *    the batch of positions 0-7 holds r0 r8 r9 r1 r16 r7 r10 r2 (7 network: 2 slots), r13
 *    at position 16 is alone (8), where v2.27.7 cuts at rounds 8 and 16 (r13 2, r16 8).
 *  - v2.28.3 (channel rev_b(base) + part): 18 x 1 on the same channels as v2.21.5 but
 *    batched in round order only: r5 shares channel 20 with r9 and r17 (5), r13 stays at
 *    2 subs (8): rounds 1, 4, 5, 8, 9, 14, 16, 17 keep 5.
 *  - v2.28.7 and the default (a batch holds one group of 8 rounds, the base over schedule
 *    groups of gcd(8, ppn)): 18 x 1: each group's rounds sit on disjoint channels, 1 sub,
 *    8 slots each; 121 x 1 on 2 channels: ncclP2pSchedule()'s quadratic walk sends rank 0's
 *    rounds 0-7 to peers 0 1 3 6 10 15 21 28 and round 120 to peer 64
 *    (ft_model_p2p_schedule()); group 0's odd rounds share channel 1 (peers 1 3 15 28: 4
 *    subs, 4 slots), its even ones channel 0 with the rank itself (peers 6 10 21: 3 subs,
 *    5), peer 2 is round 109 and peer 120 round 15, both odd rounds of a full group (4),
 *    peer 64 is round 120, alone (8); 3 nodes of 6, 2 of 16 channels: a pair of rounds a
 *    base (gcd 2), 2 subs (8) where v2.27.7 puts a node delta's 6 on one base (2). Before
 *    v2.28.7 round r is the peer r / ppn nodes ahead, node-major.
 *  - 4 nodes of 8, 4 of 16 channels: a node delta's 8 sends one batch in every release (2).
 * The work-byte budget never binds: 1024 bytes of 48-byte p2p work structs is 21 ops, the
 * count cap 8 (17 x 1 on one channel: batches of 8).
 */
static void
test_a2a_shared_slots_by_release(void **state)
{
	static const struct {
		uint32_t version, channels, nch_all, nnodes, ppn, round, slots;
	} want[] = {
		{ 22105, 4, 32, 18, 1, 1, 5 },   { 22105, 4, 32, 18, 1, 17, 5 },
		{ 22105, 4, 32, 18, 1, 14, 5 },  { 22105, 4, 32, 18, 1, 4, 5 },
		{ 22105, 4, 32, 18, 1, 5, 8 },   { 22105, 4, 32, 18, 1, 13, 8 },
		{ 22105, 4, 32, 18, 1, 7, 8 },   { 22105, 1, 1, 17, 1, 13, 8 },
		{ 22105, 1, 1, 17, 1, 16, 2 },   { 22707, 1, 1, 17, 1, 13, 2 },
		{ 22707, 1, 1, 17, 1, 16, 8 },   { 22707, 4, 32, 18, 1, 14, 8 },
		{ 22803, 4, 32, 18, 1, 5, 5 },   { 22803, 4, 32, 18, 1, 13, 8 },
		{ 22803, 4, 32, 18, 1, 2, 8 },   { 22807, 4, 32, 18, 1, 1, 8 },
		{ 0, 4, 32, 18, 1, 17, 8 },      { 0, 1, 2, 121, 1, 1, 4 },
		{ 0, 1, 2, 121, 1, 2, 4 },       { 0, 1, 2, 121, 1, 120, 4 },
		{ 0, 1, 2, 121, 1, 64, 8 },      { 0, 1, 2, 121, 1, 3, 5 },
		{ 22707, 1, 2, 121, 1, 1, 2 },   { 0, 2, 16, 3, 6, 6, 8 },
		{ 22707, 2, 16, 3, 6, 6, 2 },    { 22105, 2, 16, 3, 6, 17, 2 },
		{ 0, 1, 1, 17, 1, 8, 2 },        { 0, 1, 1, 17, 1, 16, 8 },
	};
	static const uint32_t versions[] = { 22105, 22707, 22803, 22807, 0 };
	static const uint32_t n5_18[] = { 7, 3, 8, 0, 0 };

	(void)state;
	for (size_t i = 0; i < FT_ARRAY_SIZE(want); i++) {
		struct ft_model_p2p_chunking ch = { .channels = want[i].channels,
			                            .slots = 8,
			                            .chunk_bytes = 1,
			                            .nccl_version = want[i].version };
		int got = ft_model_p2p_share_slots(&ch, want[i].nch_all, want[i].nnodes, want[i].ppn,
		                                   want[i].round);

		if (got != (int)want[i].slots)
			fail_msg("case %zu (v%u): %d slots, %u by hand", i, want[i].version, got,
			         want[i].slots);
	}
	for (size_t v = 0; v < FT_ARRAY_SIZE(versions); v++) {
		uint32_t n5 = 0, n2 = 0;

		for (uint32_t r = 1; r < 18; r++) {
			struct ft_model_p2p_chunking ch = { .channels = 4,
				                            .slots = 8,
				                            .chunk_bytes = 1,
				                            .nccl_version = versions[v] };

			n5 += ft_model_p2p_share_slots(&ch, 32, 18, 1, r) == 5;
		}
		assert_int_equal(n5, n5_18[v]);
		for (uint32_t r = 8; r < 32; r++) {
			struct ft_model_p2p_chunking ch = { .channels = 4,
				                            .slots = 8,
				                            .chunk_bytes = 1,
				                            .nccl_version = versions[v] };

			n2 += ft_model_p2p_share_slots(&ch, 16, 4, 8, r) == 2;
		}
		assert_int_equal(n2, 24);
	}
}

/*
 * NCCL's window on a send (ft_model_p2p_window_Bps(), model/pipeline.c): each send
 * between the two nodes runs on 4 channels (400 Gb/s / 14 GB/s, a power of two), each holding 8
 * chunks of 128 KiB (NCCL_STEPS, NCCL_P2P_NET_CHUNKSIZE) in flight per round trip. With
 * 50 us cables (host - leaf - host: about 100 us each way) that is 4 MiB per ~200 us,
 * about 21 GB/s, where the link alone (PCIe at 48 GB/s) would allow more than twice as
 * much: a 256 MiB send/recv moves at the window in both engines (the flow engine within
 * 2 % below it, the packet engine within 4 %: its fill and last message), and the flow
 * engine names the window as what bound. Before, both ran at the link's 47.6 GB/s. The
 * model holds the send to the same window. On the same nodes with the fabric's own cables
 * the window (4 MiB per ~1 us) binds nowhere and both engines stay within 10 % of the
 * model.
 */
static void
test_sendrecv_at_p2p_window(void **state)
{
	static const char far[] = "name: far\n"
	                          "nodes: { preset: dgx-h100, count: 2 }\n"
	                          "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64,\n"
	                          "          cable_latency: 50us }\n";
	struct ft_route_policy pol = { .routing = FT_ROUTING_DMODK };
	struct ft_cluster_spec cs;
	struct ft_error err = { 0 };
	struct ft_topo *t = NULL;
	struct ft_path there, back;
	double window, f, pk, m;
	char path[512];

	(void)state;
	spec_file("simmodel-far.yaml", far, path, sizeof(path));
	assert_int_equal(ft_spec_resolve(path, &cs, &err), 0);
	assert_int_equal(ft_topo_build(&cs, &t, &err), 0);
	/* rank 7 (node 0, GPU 7) sends to rank 8 (node 1, GPU 0) */
	assert_int_equal(ft_route_path(t, ft_topo_gpu(t, 0, 7), ft_topo_gpu(t, 1, 0), &pol,
	                               &there), 0);
	assert_int_equal(ft_route_path(t, ft_topo_gpu(t, 1, 0), ft_topo_gpu(t, 0, 7), &pol,
	                               &back), 0);
	ft_topo_free(t);
	assert_true(there.lat_s + back.lat_s > 200e-6);
	assert_true(there.lat_s + back.lat_s < 205e-6);
	window = 4.0 * 8 * (128 << 10) / (there.lat_s + back.lat_s) / 1e9;
	f = busbw(path, FT_OP_SENDRECV, -1, -1, 256u << 20, "flow");
	assert_string_equal(flow_bottleneck, "p2p:window");
	pk = busbw(path, FT_OP_SENDRECV, -1, -1, 256u << 20, "packet");
	m = busbw(path, FT_OP_SENDRECV, -1, -1, 256u << 20, NULL);
	if (getenv("FT_SIMMODEL_PRINT"))
		print_message("send/recv at the window: %.3f GB/s; flow %.3f, packet %.3f, "
		              "model %.3f\n", window, f, pk, m);
	assert_true(f <= window * (1 + 1e-9));
	assert_true(f >= 0.98 * window);
	assert_true(pk <= window * (1 + 1e-9));
	assert_true(pk >= 0.96 * window);
	/* the model holds the send to the same window (its round trip twice the fabric's
	 * switches and cables, the engines' the path's links too: 0.3% apart) */
	assert_true(m <= 1.01 * window);
	assert_true(m >= 0.98 * window);
	assert_agree(f, m);
	remove(path);
	/* where the window is far above the links, nothing changes */
	f = busbw("dgx-h100:2", FT_OP_SENDRECV, -1, -1, 256u << 20, "flow");
	m = busbw("dgx-h100:2", FT_OP_SENDRECV, -1, -1, 256u << 20, NULL);
	assert_string_not_equal(flow_bottleneck, "p2p:window");
	assert_agree(f, m);
}

/*
 * ECMP where a spine has one cable to each leaf: 8 DGX H100, one unit of radix-12 leaves at
 * 2:1 (8 down, 4 up-links to 4 spines), NCCL_PXN_DISABLE=1; the send/recv's 8 flows go from
 * leaf 7 (node s's GPU 7) to leaf 0 (node s + 1's GPU 0). Each flow's up-link names its
 * spine, and that spine's one cable to leaf 0 carries it down: the down-cables carry what
 * the up-links do, and the flow engine waits for the busiest of one draw of 8 flows on 4
 * links (E 3.54 flows, 5.4 ms of 256 MiB a flow at the link's rate). The model priced a
 * second, independent draw onto the down-cables (3.94, +11 %); it now agrees with the
 * engine's mean over the seeds (the scenario's seed: one draw of the switches' salts).
 */
static void
test_sendrecv_spine_ecmp_one_cable(void **state)
{
	static const char fmt[] =
	        "name: sr\n"
	        "seed: %u\n"
	        "cluster:\n"
	        "  name: one-cable\n"
	        "  nodes: { preset: dgx-h100, count: 8, nccl: { pxn_disable: true } }\n"
	        "  fabric: { kind: rail-fat-tree, link: ndr, tiers: 2, radix: 12,\n"
	        "            oversubscription: 2, routing: ecmp }\n"
	        "jobs:\n"
	        "  - name: a\n"
	        "    ops:\n"
	        "      - {op: sendrecv, size: 256MiB}\n";
	const uint32_t seeds = 40;
	struct ft_model_query q;
	struct ft_model_result m;
	struct ft_scenario *sc;
	struct ft_error err = { 0 };
	char text[1024];
	double sum = 0, mean;

	(void)state;
	for (uint32_t seed = 1; seed <= seeds; seed++) {
		struct ft_sim_report rep;

		snprintf(text, sizeof(text), fmt, seed);
		run_ok(text, "flow", &rep);
		sum += ft_run_row(&rep.run, 0)->time_us * 1e-6;
		ft_sim_report_release(&rep);
	}
	mean = sum / seeds;
	sc = load_text(text);
	ft_model_query_init(&q, FT_OP_SENDRECV, 256u << 20);
	assert_int_equal(ft_model_eval(&sc->spec, &q, &m, &err), 0);
	ft_scenario_free(sc);
	if (getenv("FT_SIMMODEL_PRINT"))
		print_message("send/recv, one cable a spine-leaf pair: model %.1f us, flow mean "
		              "%.1f us over %u seeds\n",
		              m.time_s * 1e6, mean * 1e6, seeds);
	assert_string_equal(m.bottleneck, "spine");
	assert_true(fabs(m.time_s - mean) < 0.05 * mean);
}

/*
 * An all-to-all at NCCL's window with shared slots (ft_model_p2p_share_slots()), priced
 * by the model as the flow engine runs it: 4 DGX H100 on one leaf with 500 us cables
 * (host - leaf - host: a round trip of 2 ms), 256 MiB (8 MiB a pair). Each of a rank's
 * 24 sends over the network keeps 4 channels x 2 chunks of 128 KiB in flight, so the
 * 24/32 of S leaving a rank moves at 24 x 0.524 GB/s: an algorithm bandwidth of 16.78 GB/s,
 * where the links would allow 64. Measured: model 17,025 us, flow 17,033.5. On a rail
 * fat-tree 21 of a rank's 24 sends go to another rail: by NCCL's PXN through the GPU of
 * that rail, on the leaf (a round trip of 2 ms and an NVLink hop), with PXN off from the
 * rank's NIC through the spine, a round trip of 4 ms: the model takes each send's path
 * (model/eval.c a2a_window()), and both engines' slowest sends end the op (model 34,030
 * us, flow 34,038.6 with PXN off; before the model's per-path round trip 17,025). The
 * flow engine names the window where it binds, as the model does, not the first link of
 * the capped flows' paths (pcie). With 50 us cables the window binds nowhere in the model
 * and the two stay within 10 %.
 */
static void
test_alltoall_at_p2p_window(void **state)
{
	static const char far[] = "name: far-a2a\n"
	                          "nodes: { preset: dgx-h100, count: 4 }\n"
	                          "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64,\n"
	                          "          cable_latency: 500us }\n";
	static const char rail[] = "name: rail-a2a\n"
	                           "nodes: { preset: dgx-h100, count: 4 }\n"
	                           "fabric: { kind: rail-fat-tree, link: ndr, tiers: 2,\n"
	                           "          radix: 64, cable_latency: 500us }\n";
	static const char rail_off[] = "name: rail-a2a-off\n"
	                               "nodes: { preset: dgx-h100, count: 4,\n"
	                               "         nccl: { pxn_disable: true } }\n"
	                               "fabric: { kind: rail-fat-tree, link: ndr, tiers: 2,\n"
	                               "          radix: 64, cable_latency: 500us }\n";
	static const char near[] = "name: near-a2a\n"
	                           "nodes: { preset: dgx-h100, count: 4 }\n"
	                           "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64,\n"
	                           "          cable_latency: 50us }\n";
	const double window = 32.0 * 4 * 2 * 131072 / 2000.3e-6 / 1e9;
	double f, m;
	char path[512];

	(void)state;
	spec_file("simmodel-far-a2a.yaml", far, path, sizeof(path));
	m = busbw(path, FT_OP_ALLTOALL, -1, -1, 256u << 20, NULL);
	/* the model's time is S at the window's algbw plus its fixed costs (about 1 ms) */
	assert_string_equal(model_bottleneck, "p2p:window");
	assert_true(busbw_time_us > (256u << 20) / (window * 1e3));
	assert_true(busbw_time_us < (256u << 20) / (window * 1e3) + 1100);
	f = busbw(path, FT_OP_ALLTOALL, -1, -1, 256u << 20, "flow");
	if (getenv("FT_SIMMODEL_PRINT"))
		print_message("all-to-all at the window: %.3f GB/s algbw; busbw flow %.3f, "
		              "model %.3f\n", window, f, m);
	assert_string_equal(flow_bottleneck, "p2p:window");
	assert_agree(f, m);
	/* hierarchical: 3 sends of 64 MiB a rank, 8 slots each, after the NVLink phase
	 * (model 33,683 us, flow 33,700.5; 5,872.7 before the model's window) */
	m = busbw(path, FT_OP_ALLTOALL, FT_ALGO_HIERARCHICAL, -1, 256u << 20, NULL);
	assert_string_equal(model_bottleneck, "p2p:window");
	f = busbw(path, FT_OP_ALLTOALL, FT_ALGO_HIERARCHICAL, -1, 256u << 20, "flow");
	assert_agree(f, m);
	remove(path);
	/* a rail fat-tree: by NCCL's PXN 21 of 24 sends go over NVLink to the GPU of the
	 * peer's rail and stay on the leaf, the round trip one NVLink hop (0.6 us) above the
	 * leaf's (model 17,030 us, flow 17,038.85); with NCCL_PXN_DISABLE=1 they go through
	 * the spine, twice the round trip (model 34,030 us, flow 34,038.55) */
	spec_file("simmodel-rail-a2a.yaml", rail, path, sizeof(path));
	m = busbw(path, FT_OP_ALLTOALL, FT_ALGO_DIRECT, -1, 256u << 20, NULL);
	assert_string_equal(model_bottleneck, "p2p:window");
	assert_true(busbw_time_us > (256u << 20) / (window * 1e3));
	assert_true(busbw_time_us < (256u << 20) / (window * 1e3) + 1100);
	f = busbw(path, FT_OP_ALLTOALL, FT_ALGO_DIRECT, -1, 256u << 20, "flow");
	assert_string_equal(flow_bottleneck, "p2p:window");
	if (getenv("FT_SIMMODEL_PRINT"))
		print_message("rail fat-tree all-to-all: busbw flow %.3f, model %.3f\n", f, m);
	assert_agree(f, m);
	remove(path);
	spec_file("simmodel-rail-a2a-off.yaml", rail_off, path, sizeof(path));
	m = busbw(path, FT_OP_ALLTOALL, FT_ALGO_DIRECT, -1, 256u << 20, NULL);
	assert_string_equal(model_bottleneck, "p2p:window");
	assert_true(busbw_time_us > (256u << 20) / (window / 2 * 1e3));
	f = busbw(path, FT_OP_ALLTOALL, FT_ALGO_DIRECT, -1, 256u << 20, "flow");
	assert_string_equal(flow_bottleneck, "p2p:window");
	assert_agree(f, m);
	remove(path);
	spec_file("simmodel-near-a2a.yaml", near, path, sizeof(path));
	m = busbw(path, FT_OP_ALLTOALL, -1, -1, 256u << 20, NULL);
	assert_string_not_equal(model_bottleneck, "p2p:window");
	f = busbw(path, FT_OP_ALLTOALL, -1, -1, 256u << 20, "flow");
	assert_string_not_equal(flow_bottleneck, "p2p:window");
	if (getenv("FT_SIMMODEL_PRINT"))
		print_message("50 us cables: busbw flow %.3f (%s), model %.3f (%s)\n", f,
		              flow_bottleneck, m, model_bottleneck);
	assert_true(m > 1.2 * window);
	assert_agree(f, m);
	remove(path);
}

/*
 * The direct all-to-all of 4 DGX H100 on a rail fat-tree with 500 us cables, by NCCL's
 * default (PXN: a send to another rail through the GPU of that rail) and with
 * NCCL_PXN_DISABLE=1 (through the spine): the flow engine within 10 % of the model at 256,
 * 16 and 1 MiB (measured, PXN: model 17,030 / 3,024.0 / 2,023.6 us, flow 17,038.85 /
 * 3,028.35 / 2,027.60; PXN off: 34,030 / 6,023.8 / 4,023.3 and 34,038.55 / 6,028.05 /
 * 4,027.30). PXN halves the window's round trip, so the time at 256 MiB is at most 0.55
 * of PXN off's in both.
 */
static void
test_alltoall_pxn_sweep(void **state)
{
	static const char *const text[] = {
		"name: rail-pxn\n"
		"nodes: { preset: dgx-h100, count: 4 }\n"
		"fabric: { kind: rail-fat-tree, link: ndr, tiers: 2, radix: 64,\n"
		"          cable_latency: 500us }\n",
		"name: rail-pxn-off\n"
		"nodes: { preset: dgx-h100, count: 4, nccl: { pxn_disable: true } }\n"
		"fabric: { kind: rail-fat-tree, link: ndr, tiers: 2, radix: 64,\n"
		"          cable_latency: 500us }\n"
	};
	static const uint64_t sizes[] = { 256u << 20, 16u << 20, 1u << 20 };
	double worst = 0, big[2][2] = { { 0 } };
	char where[160] = "", path[512];

	(void)state;
	for (size_t i = 0; i < FT_ARRAY_SIZE(text); i++) {
		spec_file(i ? "simmodel-pxn-off.yaml" : "simmodel-pxn.yaml", text[i], path,
		          sizeof(path));
		for (size_t k = 0; k < FT_ARRAY_SIZE(sizes); k++) {
			pipeline_case(path, FT_OP_ALLTOALL, FT_ALGO_DIRECT, -1, sizes[k], &worst,
			              where, sizeof(where));
			if (k == 0) {
				big[i][0] = busbw_time_us;
				busbw(path, FT_OP_ALLTOALL, FT_ALGO_DIRECT, -1, sizes[k], NULL);
				big[i][1] = busbw_time_us;
			}
		}
		remove(path);
	}
	print_message("# direct all-to-all, PXN on and off: worst %+.2f%% (%s)\n", 100 * worst,
	              where);
	assert_true(big[0][0] < 0.55 * big[1][0]);
	assert_true(big[0][1] < 0.55 * big[1][1]);
}

/*
 * The spine under ECMP on InfiniBand, which forwards by destination LID (topo/route.c
 * ecmp_hash(), kb IB-SM): dgx-h100:36, PXN off, the direct all-to-all's sends that cross
 * rails go leaf, spine, leaf, and every flow into one NIC leaves a switch by one port. The
 * model counts each destination NIC's flows through a leaf as one weighted ball
 * (model/spine.c uplinks_ecmp_wmax()), and on the way down the flows of several source
 * leaves that one spine sends down one cable as sharing a ball (down_balls(): a spine's
 * table picks one of its cables to the leaf per destination LID): at 64 and 16 MiB within
 * 5 % of the flow engine (-2.9 % and -1.4 %), where a ball a flow, as on RoCE, left it 52 %
 * and 47 % short (1,433 against 2,977 us), and the source leaves' balls thrown apart on the
 * way down 13.6 % and 11.8 % (2,573.9 and 671.7 us; the flow engine's 64 MiB over seeds 1
 * to 8 averages 2,978.4, its seed 1 2,977.4: the draw was not the gap). On roce400, each QP
 * hashed on its own, the model keeps its ball a flow and agrees as before (-3.1 %).
 */
static void
test_alltoall_spine_ecmp_ib_by_dlid(void **state)
{
	static const char *const text[] = {
		"name: a2a-ecmp-ib\n"
		"nodes: { preset: dgx-h100, count: 36, nccl: { pxn_disable: true } }\n"
		"fabric: { kind: rail-fat-tree, link: ndr, tiers: 2, radix: 64, routing: ecmp }\n",
		"name: a2a-ecmp-roce\n"
		"nodes: { preset: dgx-h100, count: 36, nics: { link: roce400 },\n"
		"         nccl: { pxn_disable: true } }\n"
		"fabric: { kind: rail-fat-tree, link: roce400, tiers: 2, radix: 64,\n"
		"          routing: ecmp }\n"
	};
	static const uint64_t sizes[] = { 64u << 20, 16u << 20 };
	char path[512];

	(void)state;
	for (size_t i = 0; i < FT_ARRAY_SIZE(text); i++) {
		spec_file(i ? "simmodel-ecmp-roce.yaml" : "simmodel-ecmp-ib.yaml", text[i], path,
		          sizeof(path));
		for (size_t k = 0; k < (i ? 1 : FT_ARRAY_SIZE(sizes)); k++) {
			double m, f;

			busbw(path, FT_OP_ALLTOALL, FT_ALGO_DIRECT, FT_PROTO_SIMPLE, sizes[k], NULL);
			m = busbw_time_us;
			busbw(path, FT_OP_ALLTOALL, FT_ALGO_DIRECT, FT_PROTO_SIMPLE, sizes[k], "flow");
			f = busbw_time_us;
			print_message("# %s %llu MiB: model %.1f us, flow %.1f us (%+.1f%%)\n",
			              i ? "roce400" : "ndr", (unsigned long long)(sizes[k] >> 20), m,
			              f, 100 * (m / f - 1));
			if (fabs(m / f - 1) > 0.05)
				fail_msg("model %.1f us against the flow engine's %.1f", m, f);
		}
		remove(path);
	}
}

/*
 * One channel carries what one NVLink path and one SM's copies do: the model
 * gives each channel the graph's intra-node bandwidth / its channels (kb
 * NA-MODEL: 360 / 18 = 20 GB/s on Hopper), and the flow engine caps each channel's
 * flows at that, so the two agree at any channel count (they were 47.9 and
 * 20.6 GB/s at one channel before the cap, PCIe binding the flow engine),
 * and the bus bandwidth grows with the channels until the NVLinks bind.
 */
static void
test_channel_caps_agree_with_model(void **state)
{
	static const uint32_t nch[] = { 1, 2, 4, 8, 16 };
	static const char *const specs[] = { "dgx-h100:4", "dgx-a100:2" };
	size_t i, k;

	(void)state;
	for (i = 0; i < FT_ARRAY_SIZE(specs); i++) {
		double prev = 0;

		for (k = 0; k < FT_ARRAY_SIZE(nch); k++) {
			double f, m;

			busbw_channels = nch[k];
			m = busbw(specs[i], FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30,
			          NULL);
			f = busbw(specs[i], FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30,
			          "flow");
			if (fabs(f / m - 1) > 0.10)
				print_error("%s, %u channels: flow %.2f model %.2f GB/s\n", specs[i],
				            nch[k], f, m);
			assert_agree(f, m);
			assert_true(f > prev);
			prev = f;
		}
		busbw_channels = 0;
	}
	/* one channel on a DGX H100: 360 / 18 = 20 GB/s (less the ring's latencies) */
	busbw_channels = 1;
	assert_close(busbw("dgx-h100:4", FT_OP_ALL_REDUCE, FT_ALGO_RING, FT_PROTO_SIMPLE, 1u << 30,
	                   "flow"),
	             20.0, 0.3);
	busbw_channels = 0;
}

/*
 * NCCL's tree at a forced channel count's cap (2 DGX H100, 4 channels, Simple): every
 * stage is a kernel moving a chunk a period, so the op takes (loops + stages - 1) periods
 * and its latency. The packet engine paces stage s's loop m at (m + s) periods
 * (pkt_tree.c cap_pace()), the flow engine adds (stages - 1) periods after its flows
 * (ft__sim_cap_fill_s()), and neither takes NCCL's tree correction there, which stands
 * for the same fill. Each of the 4 channels runs tree 0 alone (ncclTopoPostset(): tree 1
 * from channel 8), so a connection carries size / 4 on the wire at NCCL's 0.92, cut in n
 * messages of 512 KiB, at half the forced channel's 320 / 16 = 20 GB/s (the tree's x0.5 in
 * NVIDIA/nccl v2.27.7-1 src/graph/tuning.cc:325) lifted by 8/7 as the model's own carried
 * factor lifts a 2-node chain (ft_model_tree_carried_factor(); NCCL has no such rule):
 * 11.43 GB/s. P = wire / (11.43 GB/s n); the pipeline's closed form at that rate is
 * (n + 15) P and the tuner's latency (93.4 us, the model's: test_model.c), the model's own
 * time (its ramp 15 P, its bandwidth 4 x 11.43 x 0.92 = 42.06 GB/s). 256 MiB: n = 140 at
 * 45.586 us, 155 periods, 7,159.2 us;
 * flow 7,160.7 (within 0.1 %), packet 7,095.4 (its last chunk leaves the last stage at
 * (n + 14) P, under 2 P short). Before, both trees on every channel at 20 GB/s a
 * connection: 2,308.6 and 2,262.8 us, a third of the model's 7,223.5. 64 MiB (n = 35):
 * 2,372.9 us, flow 2,373.7, packet 2,308.4; 1 GiB (n = 557): 26,310.4, flow 26,312.3,
 * packet 26,246.7.
 */
static void
test_forced_tree_fill_engines_agree(void **state)
{
	static const uint64_t sizes[] = { 64u << 20, 256u << 20, 1u << 30 };
	static const double within[] = { 0.035, 0.015, 0.005 };

	struct ft_cluster_spec cs;
	struct ft_model_query q;
	struct ft_model_explain *ex = calloc(1, sizeof(*ex));
	struct ft_error err = { 0 };

	(void)state;
	assert_non_null(ex);
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &cs, &err), 0);
	for (size_t k = 0; k < FT_ARRAY_SIZE(sizes); k++) {
		double wire = (double)(sizes[k] / 4) / 0.92, n = ceil(wire / (512 << 10));
		double rate = 20e9 * 0.5 * 8 / 7, P = wire / rate / n * 1e6, lat, cf, f, p;

		ft_model_query_init(&q, FT_OP_ALL_REDUCE, sizes[k]);
		q.force_algo = q.force_proto = true;
		q.algo = FT_ALGO_TREE;
		q.proto = FT_PROTO_SIMPLE;
		q.nchannels = 4;
		assert_int_equal(ft_model_explain(&cs, &q, ex, &err), 0);
		lat = ex->cand[ex->pick].lat_s * 1e6;
		cf = (n + 15) * P + lat;

		busbw_channels = 4;
		busbw("dgx-h100:2", FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_SIMPLE, sizes[k],
		      "flow");
		f = busbw_time_us;
		busbw("dgx-h100:2", FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_SIMPLE, sizes[k],
		      "packet");
		p = busbw_time_us;
		busbw_channels = 0;
		print_message("# forced tree %llu MiB, 4 channels: flow %.2f us, packet %.2f us "
		              "(%+.2f%%); closed form (%.0f + 15) x %.3f + %.1f = %.2f us\n",
		              (unsigned long long)(sizes[k] >> 20), f, p, (p / f - 1) * 100, n, P,
		              lat, cf);
		assert_true(fabs(p / f - 1) <= within[k]);
		assert_true(fabs(f / cf - 1) <= 1e-3);
		assert_true(p <= cf && p >= cf - 2 * P);
	}
	free(ex);
}

static const char dragonfly_sc[] =
        "name: df\n"
        "cluster:\n"
        "  name: small-dragonfly\n"
        "  nodes: { preset: hgx-h200, count: 8, nics: { link: roce400 } }\n"
        "  fabric: { kind: dragonfly, groups: 4, routers_per_group: 2, nodes_per_router: 1,\n"
        "            global_links_per_router: 2, radix: 32, routing: %s }\n"
        "jobs:\n"
        "  - name: a\n"
        "    gpus_per_node: 1\n"
        "    ops:\n"
        "      - {op: alltoall, size: 64MiB}\n";

/* Bytes on the dragonfly's global links (tier 3) of the all-to-all above under @routing. */
static double
global_bytes(const char *routing, char *name, size_t len)
{
	char text[1024];
	struct ft_sim_report rep;
	double b;

	snprintf(text, sizeof(text), dragonfly_sc, routing);
	run_ok(text, "flow", &rep);
	snprintf(name, len, "%s", rep.routing);
	b = tier_bytes(&rep, "fabric", 3);
	ft_sim_report_release(&rep);
	return b;
}

/*
 * The fabric's routing is honoured: a dragonfly's Valiant routing sends every
 * flow between groups through a third group, so the global links carry twice
 * the bytes of minimal routing; a torus routes in dimension order; a routing
 * that does not fit the fabric is refused with the ones that do.
 */
static void
test_routing_is_honoured(void **state)
{
	static const char torus[] =
	        "name: t\n"
	        "cluster:\n"
	        "  name: tor\n"
	        "  nodes: { preset: hgx-h200, count: 8, nics: { link: roce400 } }\n"
	        "  fabric: { kind: torus, dims: [2, 2, 2] }\n"
	        "routing: %s\n"
	        "jobs:\n"
	        "  - name: a\n"
	        "    ops:\n"
	        "      - {op: all_reduce, size: 1MiB}\n";
	char name[32], text[1024];
	struct ft_sim_report rep;
	struct ft_error err = { 0 };
	double valiant, minimal;

	(void)state;
	valiant = global_bytes("valiant", name, sizeof(name));
	assert_string_equal(name, "valiant");
	minimal = global_bytes("minimal", name, sizeof(name));
	assert_string_equal(name, "minimal");
	assert_true(minimal > 0);
	assert_close(valiant, 2 * minimal, minimal * 1e-6);

	snprintf(text, sizeof(text), torus, "dor");
	run_ok(text, "flow", &rep);
	assert_string_equal(rep.routing, "dor");
	ft_sim_report_release(&rep);
	snprintf(text, sizeof(text), torus, "valiant");
	assert_int_equal(run_text(text, "flow", &rep, &err), FT_EINVAL);
	assert_non_null(strstr(err.msg, "valiant does not apply to a torus fabric"));
	assert_non_null(strstr(err.msg, "dor"));
	ft_sim_report_release(&rep);
}

/*
 * NVLS on a whole GB200 NVL72 domain: NCCL has at most 32 NVLS heads
 * (NCCL_MAX_NVLS_ARITY), the domain's GPUs 0 to 31 (trays 0 to 7, intra-node
 * NVLS tries GPU c for channel c, src/graph/search.cc). Every GPU sends S
 * into the switch and gets S back from the multicast, a head S / 32 more
 * each way (its shard loaded reduced and stored back), all at NVLS
 * efficiency: the head's NVLink carries 33/32 S / eff, the others' S / eff
 * (it was 73/72 S / eff on every GPU: 72 heads), both over the share of a
 * channel NCCL's NVLS graph keeps (20 of 21.8 GB/s, ft_model_nvls_channel_share).
 */
static void
test_nvls_heads_on_nvl72(void **state)
{
	struct ft_cluster_spec cs;
	char text[512];
	struct ft_error err = { 0 };
	struct ft_sim_report rep;
	double S = (double)(1u << 30), eff;
	uint32_t node, g;

	(void)state;
	assert_int_equal(ft_spec_resolve("gb200-nvl72:18", &cs, &err), 0);
	eff = ft_model_nvls_efficiency(&cs);
	assert_true(eff > 0 && eff < 1);
	snprintf(text, sizeof(text), job_on, "gb200-nvl72:18",
	         "op: all_reduce, size: 1GiB, algo: nvls");
	run_ok(text, "flow", &rep);
	for (node = 0; node < 18; node++)
		for (g = 0; g < 4; g++) {
			char up[64], down[64];
			double want = (node < 8 ? S + S / 32 : S) / eff /
			              ft_model_nvls_channel_share(&cs, 72);

			snprintf(up, sizeof(up), "n%u.gpu%u -> n%u.nvswitch", node, g, node);
			snprintf(down, sizeof(down), "n%u.nvswitch -> n%u.gpu%u", node, node, g);
			assert_close(port_bytes(&rep, up), want, want * 1e-6);
			assert_close(port_bytes(&rep, down), want, want * 1e-6);
		}
	ft_sim_report_release(&rep);
}

/*
 * NVLink SHARP off (NCCL_NVLS_ENABLE=0: --no-nvls, or a job's nvls: false):
 * the tuner's pick leaves NVLS and the NVLS tree out, as the model's does
 * (a ring on one NVL72 domain at 1 GiB, a tree or ring across domains), and
 * forcing either is refused, naming the op.
 */
static void
test_no_nvls(void **state)
{
	static const char text[] = "name: t\n"
	                           "cluster: %s\n"
	                           "jobs:\n"
	                           "  - name: a\n"
	                           "    nvls: false\n"
	                           "    ops:\n"
	                           "      - {op: all_reduce, size: 1GiB%s}\n";
	static const char *const specs[] = { "gb200-nvl72:18", "gb200-nvl72:36", "dgx-h100:4" };
	char buf[512];
	struct ft_sim_report rep;
	struct ft_error err = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < FT_ARRAY_SIZE(specs); i++) {
		struct ft_cluster_spec cs;
		struct ft_model_query q;
		struct ft_model_result m;
		const char *algo;

		assert_int_equal(ft_spec_resolve(specs[i], &cs, &err), 0);
		ft_model_query_init(&q, FT_OP_ALL_REDUCE, 1u << 30);
		q.tuner_only = true;
		q.nvls_off = true;
		assert_int_equal(ft_model_eval(&cs, &q, &m, &err), 0);
		snprintf(buf, sizeof(buf), text, specs[i], "");
		run_ok(buf, "flow", &rep);
		algo = ft_run_row(&rep.run, 0)->algo;
		assert_string_equal(algo, ft_algo_name(m.algo));
		assert_string_not_equal(algo, "nvls");
		assert_string_not_equal(algo, "nvls_tree");
		ft_sim_report_release(&rep);
	}
	/* the same job with NVLS on picks it */
	snprintf(buf, sizeof(buf), "name: t\ncluster: gb200-nvl72:18\njobs:\n  - name: a\n"
	                           "    ops:\n      - {op: all_reduce, size: 1GiB}\n");
	run_ok(buf, "flow", &rep);
	assert_string_equal(ft_run_row(&rep.run, 0)->algo, "nvls");
	ft_sim_report_release(&rep);
	snprintf(buf, sizeof(buf), text, "gb200-nvl72:36", ", algo: nvls_tree");
	assert_int_equal(run_text(buf, "flow", &rep, &err), FT_EINVAL);
	assert_non_null(strstr(err.msg, "jobs[0].ops[0].algo"));
	assert_non_null(strstr(err.msg, "nvls_tree: NVLink SHARP is off"));
	ft_sim_report_release(&rep);
}

/*
 * A spec whose nodes have no NVLink SHARP (nodes.nvlink.nvls: false): NCCL
 * has no NVLS there, so the model's NVLS efficiency is 0 and a forced NVLS or
 * NVLS tree is refused, naming the op and the spec's field (the flow engine
 * ran it, 487 GB/s busbw on one DGX H100 at 1 GiB, as if the switch reduced);
 * the tuner's pick leaves both out.
 */
static void
test_spec_without_nvls(void **state)
{
	static const char text[] = "name: t\n"
	                           "cluster:\n"
	                           "  name: h100-no-nvls\n"
	                           "  nodes: { preset: dgx-h100, count: %u, nvlink: { nvls: false } }\n"
	                           "  fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n"
	                           "jobs:\n"
	                           "  - name: a\n"
	                           "    ops:\n"
	                           "      - {op: all_reduce, size: 1GiB%s}\n";
	static const char *const algos[] = { ", algo: nvls", ", algo: nvls_tree" };
	struct ft_error err = { 0 };
	struct ft_cluster_spec cs;
	struct ft_sim_report rep;
	char buf[640];
	size_t a;

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100", &cs, &err), 0);
	assert_true(ft_model_nvls_efficiency(&cs) > 0.8);
	cs.node.nvls = false;
	assert_true(ft_model_nvls_efficiency(&cs) == 0);
	for (a = 0; a < FT_ARRAY_SIZE(algos); a++) {
		memset(&err, 0, sizeof(err));
		snprintf(buf, sizeof(buf), text, a ? 2u : 1u, algos[a]);
		assert_int_equal(run_text(buf, "flow", &rep, &err), FT_EINVAL);
		assert_non_null(strstr(err.msg, "jobs[0].ops[0].algo"));
		assert_non_null(strstr(err.msg, "nodes.nvlink.nvls: false"));
		ft_sim_report_release(&rep);
	}
	snprintf(buf, sizeof(buf), text, 1u, "");
	run_ok(buf, "flow", &rep);
	assert_string_equal(ft_run_row(&rep.run, 0)->algo, "ring");
	ft_sim_report_release(&rep);
}

/*
 * A flat all-to-all over 2 DGX H100 with 4 KiB to each peer: NCCL's sends to
 * the 7 NVLink peers of a node go LL (its connection has LL buffers; 4 KiB is
 * under NCCL_P2P_LL_THRESHOLD), the 8 to the other node Simple (a network
 * connection has none), so per connection. NVLink then carries each of
 * the 112 in-node sends at LL's efficiency (its flags: twice the bytes) on
 * 2 links (GPU to NVSwitch to GPU); a network send to the peer's own rail
 * leaves through the GPU's PCIe switch and NIC, and the 7 of each GPU's 8 to
 * another rail cross NVLink first, Simple, to the GPU of that rail (NCCL's
 * PXN): 16 x 7 sends more on 2 links each. Before, every pair took the
 * network's protocol (Simple), so the in-node sends carried half their wire
 * bytes.
 */
static void
test_alltoall_protocol_per_pair(void **state)
{
	double p = 4096, ll = ft_proto_efficiency(FT_PROTO_LL);
	double want = 112 * 2 * p / ll + 16 * 7 * 2 * p;
	char text[512];
	struct ft_sim_report rep;

	(void)state;
	assert_true(ll < 0.6);
	snprintf(text, sizeof(text), job_on, "dgx-h100:2",
	         "op: alltoall, size: 64KiB, algo: direct");
	run_ok(text, "flow", &rep);
	assert_close(tier_bytes(&rep, "nvlink", 0), want, want * 1e-6);
	ft_sim_report_release(&rep);
}

/*
 * The flow engine runs NCCL's run-time channels (ft_model_run_nchannels(), the model's
 * pipeline count): twice the graph's, each copy on its graph channel's NIC and order
 * (ncclTopoPostset, src/graph/connect.cc). A ring all-gather over 2 GB200 NVL72 racks runs
 * 32 channels, copies of the graph's 16 (16 x 45.1), so it has exactly twice the flows of
 * the 16 channels asked for (NCCL_MIN/MAX_NCHANNELS=16) and the same bytes on every NIC;
 * 4 racks alike. Before, it ran the graph's 16. (Inside one rack the flow engine runs the
 * ring without channel copies: fluid flows over the same links take the same time.)
 */
static void
test_flow_runs_postset_channels(void **state)
{
	static const char *const specs[] = { "gb200-nvl72:36", "gb200-nvl72:72" };
	char text[512];
	struct ft_sim_report rep;
	uint64_t nflows[2];
	size_t i, k;

	(void)state;
	for (i = 0; i < FT_ARRAY_SIZE(specs); i++) {
		for (k = 0; k < 2; k++) {
			snprintf(text, sizeof(text), job_on, specs[i],
			         k ? "op: all_gather, size: 1GiB, algo: ring, proto: simple, "
			             "channels: 16" :
			             "op: all_gather, size: 1GiB, algo: ring, proto: simple");
			run_ok(text, "flow", &rep);
			nflows[k] = rep.c.nflows;
			if (i == 0 && k == 0)
				/* 16 NICs of a rack carry the ring, 2 channels each */
				assert_close(nic_sent(&rep, 0, 0),
				             143.0 / 144 * (double)(1u << 30) / 16,
				             (double)(1u << 30) * 1e-6);
			ft_sim_report_release(&rep);
		}
		assert_true(nflows[1] > 0);
		assert_int_equal(nflows[0], 2 * nflows[1]);
	}
}

/*
 * Trees over two GB200 NVL72 domains (2 x 72 GPUs, 36 trays of 4 NICs):
 * NCCL sees each domain as one node (MNNVL) and builds a chain over its 72
 * GPUs and the double binary tree over the 2 domains, one edge per tree: a
 * domain sends S across (S / 2 per tree), at NCCL's tree efficiency (S /
 * 0.92 on the wire), spread over the 16 channels of its graph (the ring's:
 * 16 x 45.1 GB/s), each on NIC c of the domain: S / 0.92 / 16 on the NICs of
 * trays 0 to 3, none on the others (S / 0.92 / 72 on every NIC while the
 * flow engine ran a channel per NIC). The NVLS tree sends the same S per domain without the 0.92,
 * but only through its heads' NICs: NCCL's NVLS graph takes the domain's NICs
 * in GPU order (ncclTopoSelectNets), one head per NIC, at most 32, so the
 * heads are GPUs 0 to 31 (trays 0 to 7 of each domain), each sending S / 32
 * through its own NIC, and the NICs of trays 8 to 17 carry none of it (S / 72
 * on every NIC while the heads rotated with the channels). The flat tree over
 * all 144 ranks before sent 2S from its interior ranks.
 */
static void
test_trees_over_nvl72_domains(void **state)
{
	double S = (double)(1u << 30);
	char text[512];
	struct ft_sim_report rep;
	uint32_t a, node, nic;

	(void)state;
	for (a = 0; a < 2; a++) {
		snprintf(text, sizeof(text), job_on, "gb200-nvl72:36",
		         a ? "op: all_reduce, size: 1GiB, algo: nvls_tree"
		           : "op: all_reduce, size: 1GiB, algo: tree, proto: simple");
		run_ok(text, "flow", &rep);
		assert_string_equal(ft_run_row(&rep.run, 0)->algo, a ? "nvls_tree" : "tree");
		for (node = 0; node < 36; node++)
			for (nic = 0; nic < 4; nic++) {
				double want = !a ? (node % 18 < 4 ? S / 0.92 / 16 : 0) :
				              node % 18 < 8 ? S / 32 :
				                              0;

				assert_close(nic_sent(&rep, node, nic), want, S * 1e-7);
			}
		ft_sim_report_release(&rep);
	}
}

/*
 * Four GB200 NVL72 domains (288 GPUs): NCCL's tuner gives the tree all-reduce
 * its graph's 16 channels (16 x 45.1 GB/s, links.c ft__model_domain_net_graph)
 * of at most 24 GB/s of bus bandwidth each over more than 2 nodes (kb NA-MODEL
 * perChMaxTreeBws, Blackwell), 16 x 24 x 0.5 = 192 GB/s of algorithm
 * bandwidth (216 while the model counted one channel per NVLink), where the
 * NVLink chains alone would allow 318 (what the flow engine gave before it
 * honoured the cap: 635 GB/s busbw against the model's 417 at 4 GiB). The
 * flow engine's time is that bound plus the tree's latency (base + 2 x (71
 * NVLink + 2 network hops), 3% of it). Over 2 domains the tree's carried
 * bytes lift the cap on the network edge twofold but not on the chain of 72
 * GPUs in each domain, where NVLink is the slower link class: 72/71 of the
 * tuner's figure, as the model's own time takes it (ft__model_carried()),
 * 16 x 31.67 x 0.5 x 72/71 GB/s on LL128 (twice the tuner's before: the flow
 * engine then ran a 256 MiB tree 17% faster than the model on 16 channels).
 */
static void
test_tree_channel_cap_over_nvl72_domains(void **state)
{
	double S = (double)(4ull << 30), bound = 16 * 24e9 * 0.5;
	struct ft_error err = { 0 };
	struct ft_cluster_spec cs;
	struct ft_model_links l;
	struct ft_sim_report rep;
	char text[512];
	double t, ramp;

	(void)state;
	assert_int_equal(ft_spec_resolve("gb200-nvl72:72", &cs, &err), 0);
	assert_int_equal(ft_model_links_get(&cs, 0, 0, 0, &l, &err), 0);
	assert_int_equal(l.nchannels, 16);
	assert_int_equal(l.nnodes, 4);
	assert_close(ft_model_tree_channel_Bps(&l, FT_PROTO_SIMPLE), 24e9, 1);
	assert_close(ft_model_tree_cap_algbw(&l, FT_ALGO_TREE, FT_PROTO_SIMPLE), bound, 1);
	/* no cap on one domain; none for a ring */
	assert_true(ft_model_tree_cap_algbw(&l, FT_ALGO_RING, FT_PROTO_SIMPLE) == 0);
	/* 2 domains: the chain's 72/71, not the network edge's 2; the NVLS tree keeps 1 */
	assert_int_equal(ft_spec_resolve("gb200-nvl72:36", &cs, &err), 0);
	assert_int_equal(ft_model_links_get(&cs, 0, 0, 0, &l, &err), 0);
	assert_close(ft_model_tree_cap_algbw(&l, FT_ALGO_TREE, FT_PROTO_LL128),
	             16 * 31.67e9 * 0.5 * 72 / 71, 1);
	assert_close(ft_model_tree_cap_algbw(&l, FT_ALGO_NVLS_TREE, FT_PROTO_SIMPLE),
	             72 * 96e9 * 144 / (2.0 * 143), 1);
	snprintf(text, sizeof(text), job_on, "gb200-nvl72:72",
	         "op: all_reduce, size: 4GiB, algo: tree, proto: simple");
	run_ok(text, "flow", &rep);
	/* the flows' time: the run's less the model's ramp of the tree (whole_pipe()) */
	ramp = model_pick("gb200-nvl72:72", FT_OP_ALL_REDUCE, FT_ALGO_TREE, 4ull << 30).pipe.ramp_s;
	t = ft_run_row(&rep.run, 0)->time_us * 1e-6 - ramp;
	print_message("# 4 domains, tree 4 GiB: %.1f us of flows, %.1f of ramp, bound %.1f\n",
	              t * 1e6, ramp * 1e6, S / bound * 1e6);
	assert_true(t >= S / bound);
	assert_true(t <= S / bound * 1.04);
	ft_sim_report_release(&rep);
}

/*
 * A ring inside one NVLink domain (a GB200 NVL72 of 18 trays without NVLS,
 * 72 GPUs) or one DGX H100: NCCL counts the domain as one node and charges
 * each of the ring's steps its NVLink per-hop latency alone (tuning.cc:
 * base + nsteps x intraLat), and so does the flow engine now. Before, each
 * step also paid the path between two trays (0.6 us): a 64 MiB all-reduce's
 * 142 steps came out 85 us (13%) slower than the model, 174.2 GB/s busbw
 * against 196.2; one DGX H100's 14 steps 8.4 us.
 */
static void
test_ring_in_one_domain_pays_nvlink_hops(void **state)
{
	static const char *const specs[] = { "gb200-nvl72:18", "dgx-h100" };
	static const enum ft_op ops[] = { FT_OP_ALL_REDUCE, FT_OP_ALL_GATHER };
	size_t i, j;

	(void)state;
	busbw_no_nvls = true;
	for (i = 0; i < FT_ARRAY_SIZE(specs); i++)
		for (j = 0; j < FT_ARRAY_SIZE(ops); j++) {
			double m = busbw(specs[i], ops[j], FT_ALGO_RING, FT_PROTO_SIMPLE, 64u << 20,
			                 NULL);
			double f = busbw(specs[i], ops[j], FT_ALGO_RING, FT_PROTO_SIMPLE, 64u << 20,
			                 "flow");

			print_message("# %s %s: flow %.2f model %.2f GB/s\n", specs[i],
			              ft_op_name(ops[j]), f, m);
			assert_close(f, m, 0.01 * m);
		}
	busbw_no_nvls = false;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_channels_use_every_nic),
		cmocka_unit_test(test_channels_stay_on_rail),
		cmocka_unit_test(test_ecmp_ring_copies_agree),
		cmocka_unit_test(test_ecmp_ib_qps_one_spine),
		cmocka_unit_test(test_ecmp_ib_engines_agree),
		cmocka_unit_test(test_ecmp_ring_copies_spread),
		cmocka_unit_test(test_ecmp_tree_chain_copies_agree),
		cmocka_unit_test(test_ecmp_ring_graph_rings_own_qps),
		cmocka_unit_test(test_ecmp_ll_chain_launched_copies),
		cmocka_unit_test(test_ecmp_tree_chain_copies_spread),
		cmocka_unit_test(test_channels_strided_gpus),
		cmocka_unit_test(test_channels_placed_gpus_differ),
		cmocka_unit_test(test_nvls_part_of_a_node),
		cmocka_unit_test(test_collnet_sharp_runs),
		cmocka_unit_test(test_nvls_net_is_the_pick),
		cmocka_unit_test(test_pick_cached),
		cmocka_unit_test(test_collnet_chain_closed_form),
		cmocka_unit_test(test_collnet_chain_pcie_rows),
		cmocka_unit_test(test_collnet_chain_paced),
		cmocka_unit_test(test_collnet_direct_closed_form),
		cmocka_unit_test(test_nvls_net_closed_form),
		cmocka_unit_test(test_flow_picks_as_the_tuner),
		cmocka_unit_test(test_nvlink_at_nccl_rates),
		cmocka_unit_test(test_pcie_steps_at_pci_latency),
		cmocka_unit_test(test_pcie_a2a_messages_at_pci_latency),
		cmocka_unit_test(test_release_reads_the_node_link),
		cmocka_unit_test(test_flow_names_the_kernel_cap),
		cmocka_unit_test(test_fabric_mtu_counts),
		cmocka_unit_test(test_flow_agrees_with_model),
		cmocka_unit_test(test_flow_blackwell_ll128_by_release),
		cmocka_unit_test(test_vm_overhead_per_network_step),
		cmocka_unit_test(test_flow_tcpx_closed_forms),
		cmocka_unit_test(test_flow_pays_the_pipeline_everywhere),
		cmocka_unit_test(test_flow_pays_the_latency_everywhere),
		cmocka_unit_test(test_flow_ramp_closed_form),
		cmocka_unit_test(test_flow_posts_on_p2p_channels),
		cmocka_unit_test(test_flow_agrees_on_shared_links),
		cmocka_unit_test(test_flow_nvls_tree_2node_measured),
		cmocka_unit_test(test_flow_nvls_tree_one_loop_uncapped),
		cmocka_unit_test(test_nvl72_domains_use_graph_nics),
		cmocka_unit_test(test_nvls_heads_on_nvl72),
		cmocka_unit_test(test_no_nvls),
		cmocka_unit_test(test_trees_over_nvl72_domains),
		cmocka_unit_test(test_flow_runs_postset_channels),
		cmocka_unit_test(test_spec_without_nvls),
		cmocka_unit_test(test_alltoall_protocol_per_pair),
		cmocka_unit_test(test_tree_channel_cap_over_nvl72_domains),
		cmocka_unit_test(test_ring_in_one_domain_pays_nvlink_hops),
		cmocka_unit_test(test_nics_per_gpu_spread),
		cmocka_unit_test(test_node_groups_slowest_member),
		cmocka_unit_test(test_release_lats_oom_is_the_callers),
		cmocka_unit_test(test_pipe_model_on_node_groups),
		cmocka_unit_test(test_node_groups_of_other_shapes),
		cmocka_unit_test(test_node_groups_of_different_gpu_counts),
		cmocka_unit_test(test_tree_over_uneven_nodes),
		cmocka_unit_test(test_tree_on_same_size_nodes),
		cmocka_unit_test(test_nvls_tree_heads_own_nics),
		cmocka_unit_test(test_part_of_uneven_nodes),
		cmocka_unit_test(test_nvls_latency_once),
		cmocka_unit_test(test_packet_net_step_floor),
		cmocka_unit_test(test_sendrecv_net_step_gb200),
		cmocka_unit_test(test_step_latencies_follow_the_release),
		cmocka_unit_test(test_packet_agrees_on_step_latencies),
		cmocka_unit_test(test_packet_tree_follows_the_pipeline),
		cmocka_unit_test(test_packet_tree_pcie_gap),
		cmocka_unit_test(test_pat_closed_form),
		cmocka_unit_test(test_pat_agrees_on_one_gpu_nodes),
		cmocka_unit_test(test_pat_refused_before_2_23),
		cmocka_unit_test(test_pat_one_rank_a_node),
		cmocka_unit_test(test_pat_share_by_release),
		cmocka_unit_test(test_pat_paced),
		cmocka_unit_test(test_pat_paced_unchunked),
		cmocka_unit_test(test_ring_inter_steps_exceed_steps),
		cmocka_unit_test(test_one_step_phase_pays_the_network),
		cmocka_unit_test(test_one_gpu_node_step_latencies),
		cmocka_unit_test(test_release_from_schedule),
		cmocka_unit_test(test_flow_net_step_floor),
		cmocka_unit_test(test_ring_intra_floor),
		cmocka_unit_test(test_collnet_release_rows),
		cmocka_unit_test(test_spread_ranks_keep_their_row),
		cmocka_unit_test(test_cloud_presets_bind_on_nics),
		cmocka_unit_test(test_channel_caps_agree_with_model),
		cmocka_unit_test(test_forced_tree_fill_engines_agree),
		cmocka_unit_test(test_flow_agrees_on_forced_trees),
		cmocka_unit_test(test_agree_on_uneven_forced_trees),
		cmocka_unit_test(test_nvls_across_nodes_refused),
		cmocka_unit_test(test_nvls_net_one_loop_paced),
		cmocka_unit_test(test_nvls_one_node_latency_once),
		cmocka_unit_test(test_model_forced_channels_nvls_copy),
		cmocka_unit_test(test_sendrecv_at_p2p_window),
		cmocka_unit_test(test_sendrecv_spine_ecmp_one_cable),
		cmocka_unit_test(test_alltoall_at_p2p_window),
		cmocka_unit_test(test_alltoall_pxn_sweep),
		cmocka_unit_test(test_alltoall_spine_ecmp_ib_by_dlid),
		cmocka_unit_test(test_a2a_shared_slots),
		cmocka_unit_test(test_a2a_shared_slots_by_release),
		cmocka_unit_test(test_routing_is_honoured),
	};

	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

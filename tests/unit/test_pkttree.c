/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_pkttree.c - NCCL's tree all-reduce and chain broadcast /
 * reduce in the packet engine (sim/pkt_tree.c) against closed forms: a chain
 * over k nodes ends at (k - 2 + n) message times plus k - 1 path latencies
 * for n messages; a 2-node tree all-reduce keeps both directions of the link
 * busy and ends at the bytes' serialisation plus a path latency or two; a
 * rank sends chunk c down only once it has come up; the chunk sizes are
 * NCCL's (calcCollChunking); an NVLS tree's chunks through the switch, the
 * heads' trees and back end at its closed form and carry what whole flows
 * do, its records hold no congestion control state unless paced and no dependency
 * list once running, built as its messages may start it holds those in flight and gives
 * the whole build's counters, and its labels tie each head to its channel's trees; NVLS
 * across nodes (NVLS with CollNet) through the switch, the heads' NICs and back at its
 * closed form, unpaced and paced, beside the flow engine; NCCL's
 * p2p channel count from its channel count; a lossy ring's trace ends with its last
 * message, not with the stale retransmit timers after it.
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
#include "sim/prep.h"

#include "pk_run.h"

static const struct pk_flow *
flow(const struct pk_run *r, uint32_t i)
{
	return ft_vec_at(&pk(r->e)->flows, i);
}

/* The longest path latency of @r's flows between nodes, as their packets walk it (the sum
 * of the latencies of the links recorded on the flow's path). */
static double
net_path_s(const struct pk_run *r)
{
	double most = 0;

	for (size_t i = 0; i < pk(r->e)->flows.len; i++) {
		const struct pk_flow *f = flow(r, (uint32_t)i);
		double d = 0;

		if (!ft__sim_over_network(r->t, f->src, f->dst))
			continue;
		for (uint32_t j = 0; j < f->npath; j++)
			d += ft_topo_link(r->t, FT_VEC_AT(&pk(r->e)->paths, uint32_t, f->path_off + j))
			             ->lat_s;
		most = FT_MAX(most, d);
	}
	return most;
}

/*
 * The fixed cost the packet engine adds to @r's op (pkt_setup.c phase_cost()): NCCL's
 * launch latency, the NVLink step overhead on each step inside a node, and on each step
 * between nodes (ft__sim_far_steps()) what the model adds to a network step and NCCL's
 * hwLat[NET] less the packets' path where that is shorter: max(hwLat[NET], d) in all with
 * the path d the packets walk (a ring or tree; an NVLS tree keeps its step overheads).
 */
static double
op_fixed_s(const struct pk_run *r)
{
	const struct ft_sched_phase *ph = ft_sched_phase_at(&r->s, 0);
	uint32_t steps = ph->steps ? ph->steps : 1, net = 0;
	double extra, hw = ft_model_hw_latency(0, FT_HW_NET, r->s.algo, r->s.proto);

	(void)far_steps_of(r->t, &r->s, r->ends, steps, &extra, &net);
	/* an NVLS tree: every step's overhead, and on its steps between nodes only what the
	 * model adds to a network step */
	if (r->s.algo != FT_ALGO_RING && r->s.algo != FT_ALGO_TREE)
		return r->s.base_lat_s + steps * r->s.step_lat_s +
		       net * net_step_s_of(r->t, r->s.proto);
	return r->s.base_lat_s + (steps - net) * r->s.step_lat_s +
	       net * (net_step_s_of(r->t, r->s.proto) + FT_MAX(0.0, hw - net_path_s(r)));
}

static double
op_time(const struct pk_run *r)
{
	return r->c.ops[0].t_end_s - r->c.ops[0].t_start_s - op_fixed_s(r);
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

		/* on one forced channel, the schedule's copy NCCL's one channel: neither the
		 * channels NCCL launches (pkt_tree.c chain_channels()) nor their fill */
		pk_run_nchannels = 1;
		pk_run_op(&r, &a, k, NULL, 1, true); /* (whole: every message's record is read) */
		pk_run_nchannels = 0;
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
 * NCCL runs a broadcast's chain on every channel from the root along that channel's ring,
 * and a reduce's the same way round to the root (NVIDIA/nccl src/device/broadcast.h and
 * reduce.h runRing(), v2.21.5-1, v2.27.7-1). On 2 DGX H100 nodes on 8 rail-aligned
 * channels, whose rings enter node 0 at 8 different GPUs, every channel's broadcast chain
 * leaves the root's GPU first and never comes back to it, and every channel's reduce chain
 * never leaves the root and ends there, for root 0 and root 5; and each channel's chain
 * visits every other rank once, along its ring: n - 1 hops, each hop's source the last
 * hop's destination.
 */
static void
test_chain_starts_at_root(void **state)
{
	static const uint32_t roots[] = { 0, 5 };
	const uint32_t n = 16, nch = 8;
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &spec, &err), 0);
	for (int reduce = 0; reduce < 2; reduce++)
		for (size_t i = 0; i < FT_ARRAY_SIZE(roots); i++) {
			struct ft_coll_args a = { .op = reduce ? FT_OP_REDUCE : FT_OP_BROADCAST,
				                  .algo = FT_ALGO_RING,
				                  .proto = FT_PROTO_SIMPLE,
				                  .nranks = n,
				                  .ranks_per_node = 8,
				                  .bytes = 4u << 20,
				                  .root = roots[i] };
			struct ft_coll_args ga = a;
			struct ft_schedule s, out, g, gout;
			uint32_t first[8], last[8], hops[8], seen[8] = { 0 }, firsts = 0, c, f;
			uint32_t cross[8] = { 0 }, next[8][16], k;
			const struct ft_sched_phase *gp, *gop;

			/* each channel's ring: the first step of a ring all-gather on the same
			 * channels, every rank sending to its successor, channel by channel */
			ga.op = FT_OP_ALL_GATHER;
			ga.root = 0;
			ft_schedule_init(&g);
			assert_int_equal(ft_coll_schedule(&ga, &g, &err), 0);
			assert_int_equal(ft__sim_channelize(&g, nch, 0, 8, 8, NULL,
			                                    ft_spec_node_at(&spec, 0), 0, false,
			                                    true, NULL, &gout),
			                 0);
			gp = ft_sched_phase_at(&g, 0);
			gop = ft_sched_phase_at(&gout, 0);
			assert_int_equal(gp->nflows, n);
			assert_int_equal(gop->nflows, nch * n);
			for (k = 0; k < gop->nflows; k++) {
				const struct ft_sched_flow *fl = ft_vec_at(&gout.flows, gop->first_flow + k);

				assert_int_equal(fl->relay, 0);
				next[k / n][fl->src] = fl->dst;
			}
			ft_schedule_init(&s);
			assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
			assert_int_equal(ft__sim_channelize(&s, nch, 0, 8, 8, NULL,
			                                    ft_spec_node_at(&spec, 0), 0, false,
			                                    true, NULL, &out),
			                 0);
			memset(hops, 0, sizeof(hops));
			for (f = 0; f < out.flows.len; f++) {
				const struct ft_sched_flow *fl = ft_vec_at(&out.flows, f);

				c = fl->pipe - 1u;
				assert_true(c < nch);
				assert_int_equal(fl->relay, 0);
				if (hops[c] == 0)
					first[c] = fl->src;
				else
					assert_int_equal(fl->src, last[c]);
				/* a broadcast's root never receives, a reduce's never sends */
				assert_int_not_equal(reduce ? fl->src : fl->dst, roots[i]);
				/* each hop is one of the channel's ring */
				assert_int_equal(next[c][fl->src], fl->dst);
				cross[c] += fl->src / 8 != fl->dst / 8;
				seen[c] |= 1u << fl->dst;
				last[c] = fl->dst;
				hops[c]++;
			}
			for (c = 0; c < nch; c++) {
				/* the ring's hop the chain leaves out: into a broadcast's root, out of
				 * a reduce's; the chain crosses both nodes' borders but that one */
				uint32_t skip = reduce ? roots[i] : last[c], to = next[c][skip];

				assert_int_equal(hops[c], n - 1);
				assert_int_equal(reduce ? next[c][roots[i]] : next[c][last[c]],
				                 reduce ? first[c] : roots[i]);
				assert_int_equal(cross[c], 2u - (skip / 8 != to / 8));
				/* a broadcast from GPU 0: channel 0's ring enters node 0 at GPU 0, so
				 * its chain crosses once; every other channel's enters elsewhere,
				 * twice, nNodes times */
				if (!reduce && roots[i] == 0)
					assert_int_equal(cross[c], c == 0 ? 1u : 2u);
				assert_int_equal(reduce ? last[c] : first[c], roots[i]);
				assert_int_equal(seen[c] | 1u << first[c], (1u << n) - 1);
				firsts |= 1u << first[c];
			}
			/* (the rings differ: the reduce chains start at different GPUs) */
			if (reduce)
				assert_true(__builtin_popcount(firsts) > 1);
			ft_schedule_release(&out);
			ft_schedule_release(&s);
			ft_schedule_release(&gout);
			ft_schedule_release(&g);
		}
}

/*
 * The fill of run @r's plain tree on NCCL's channels (pkt_tree.c nccl_fill()): the model's
 * pipeline for its op (ft__sim_pipe_model()), F its fill over the schedule's @S stages
 * (the time of a round through a stage) and k its launched channels over the phase's
 * copies, its largest pipe (a round is k messages of a copy; whole channels a copy, the
 * case nccl_fill() covers).
 */
static void
tree_fill(const struct pk_run *r, uint32_t S, double *F, uint32_t *k)
{
	struct ft_sim_op op = { .sched = &r->s, .rank_gpu = r->ends };
	const struct ft_sched_phase *ph = ft_sched_phase_at(&r->s, 0);
	struct ft_model_pipeline pl;
	uint32_t pipes = 0;

	/* the phase's copies, as the engine counts them (pkt_tree.c phase_pipes()) */
	for (uint32_t f = 0; f < ph->nflows; f++) {
		struct ft_sched_flow fl;

		ft_sched_phase_flow(&r->s, ph, f, &fl);
		pipes = FT_MAX(pipes, (uint32_t)fl.pipe);
	}
	assert_true(pipes > 0);
	assert_int_equal(ft__sim_pipe_model(r->t, &op, &pl, NULL), 0);
	assert_true(pl.fill_s > 0 && pl.nchannels > 0);
	*F = pl.fill_s / S;
	*k = FT_MAX(pl.nchannels / pipes, 1u);
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
 * does not tell the pipeline from them, the start times do.) That is the engine's own
 * pipeline, its channels forced (one). On NCCL's own channels it follows the model's
 * (pkt_tree.c nccl_fill()): a round of k messages a copy goes up (stage 0) at 0, F / k,
 * .., and down (stage 1) from F, and every later message waits for the fill's end, F
 * (S = 2 stages, F the model's fill over them, k its launched channels over the 2
 * copies). With F / k at least a message's time the k first messages up cross the link
 * before F, which is then busy from F with the 2n - k others: F + (2n - k) t_msg + d.
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
	pk_run_nchannels = 1;
	pk_run_op(&r, &a, 2, NULL, 1, true); /* (whole: every message's record is read) */
	pk_run_nchannels = 0;
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
	/* on NCCL's own channels: the model's fill first */
	pk_run_op(&r, &a, 2, NULL, 1, false);
	{
		double F;
		uint32_t k;

		tree_fill(&r, 2, &F, &k);
		assert_true(F / k >= t_msg);
		lo = F + (2 * n - k) * t_msg + d - 2 * t_pkt;
		hi = lo + 4 * t_pkt;
		got = op_time(&r);
		if (!(got >= lo && got <= hi))
			fail_msg("tree, NCCL's channels: %.9g s, F + (2n - k) t_msg + d [%.9g, "
			         "%.9g] s (F %.9g s, k %u)",
			         got, lo, hi, F, k);
	}
	pk_run_free(&r);
}

/*
 * NCCL's tree correction c on a plain tree (sc->tree_corr, its flows carrying 1 / c wire
 * bytes as ft__sim_nccl_efficiency() leaves them): the packet engine cuts the messages at
 * the bytes NCCL's chunks carry, c of the flow's (pkt_tree.c), so the two-node tree of
 * test_tree_two_nodes on NCCL's channels at c = 0.8 has as many messages as without it,
 * each 1 / c of the packets, and takes F + (2n - k) t_msg / c + d (F and k as there:
 * the first round's k messages a copy still cross the link before F).
 */
static void
test_tree_corr_cut(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
		                  .algo = FT_ALGO_TREE,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 2,
		                  .ranks_per_node = 1,
		                  .bytes = 16u << 20 };
	const double c = 0.8;
	uint32_t n = 16, k, i;
	uint64_t plain = 0, cut = 0;
	size_t nflows;
	struct pk_run r;
	double t_pkt, d, t_msg, lo, hi, got, F;

	(void)state;
	pk_run_op(&r, &a, 2, NULL, 1, true);
	nflows = pk(r.e)->flows.len;
	for (i = 0; i < nflows; i++)
		plain += flow(&r, i)->bytes;
	pk_run_free(&r);
	pk_run_tree_corr = c;
	pk_run_op(&r, &a, 2, NULL, 1, true);
	pk_run_tree_corr = 0;
	assert_int_equal(pk(r.e)->flows.len, nflows);
	for (i = 0; i < nflows; i++)
		cut += flow(&r, i)->bytes;
	/* every message 1 / c of its bytes (within a byte of rounding each) */
	if (!(fabs((double)cut - (double)plain / c) <= (double)nflows))
		fail_msg("corrected messages carry %llu bytes, %llu / c = %.0f",
		         (unsigned long long)cut, (unsigned long long)plain, (double)plain / c);
	pk_hop_times(&r, &t_pkt, &d);
	t_msg = 128 * t_pkt;
	tree_fill(&r, 2, &F, &k);
	assert_true(F / k >= t_msg / c);
	lo = F + (2 * n - k) * t_msg / c + d - 2 * t_pkt;
	hi = lo + 4 * t_pkt;
	got = op_time(&r);
	if (!(got >= lo && got <= hi))
		fail_msg("tree at c = %.2f: %.9g s, F + (2n - k) t_msg / c + d [%.9g, %.9g] s "
		         "(F %.9g s, k %u)",
		         c, got, lo, hi, F, k);
	pk_run_free(&r);
}

/*
 * NCCL's per-channel caps (the tree's, a forced channel count's, LL's and LL128's: the op's
 * conn_cap_Bps) as a pace on a plain tree (pkt_tree.c cap_pace()): the two-rank tree of
 * test_tree_two_nodes at 64 MiB (n = 64 messages of 512 KiB an edge, a message t_msg = 128
 * packet times, path latency d) with its connections capped so that a loop's period P =
 * w / (cap n) (w = S / 2 an edge) is longer than a loop's way over a NIC (its up message,
 * then the other copy's down: 2 t_msg + d). The tree has S = 2 stages (up, then the
 * root's way down: tree_depths()); at the cap each is a kernel moving a chunk a period,
 * so NCCL takes (n + S - 1) P. The packet engine starts loop m of stage s at (m + s) P:
 * its last loop down leaves at n P, and the op takes n P + t_msg + d, within two packet
 * times, for P and 2P; the two apart by n P; NCCL's less P - t_msg - d, under 1 / (n + S
 * - 1) = 1.6 % of it. The flow engine, each connection at the cap, takes n P and (S - 1)
 * P of fill (ft__sim_cap_fill_s()): (n + S - 1) P within 0.1 %, and the two engines agree
 * within 2 %. The stages are paced where the op's channels are forced (one here,
 * ft__sim_cap_staged()); on NCCL's own channels the first round (k messages a copy) goes
 * through the stages at the model's fill (pkt_tree.c nccl_fill(): F a stage) and loop m
 * >= k of every stage waits for the fill's end, F, and m - k + 1 periods: the last
 * message goes up and down from F + (n - k) P, F + (n - k) P + 2 (t_msg + d) (before
 * the fill, loop m at m P: (n - 1) P + 2 (t_msg + d)). Unpaced it is 2n t_msg + d (half of
 * it at P = 4 t_msg): the cap is what holds it. Built as its messages may start, the same
 * time to the picosecond.
 */
static void
test_tree_paced(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
		                  .algo = FT_ALGO_TREE,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 2,
		                  .ranks_per_node = 1,
		                  .bytes = 64u << 20 };
	const uint32_t n = 64, S = 2;
	double t_pkt, d, t_msg, P, w = (double)(a.bytes / 2), want, nccl, got[2], flow_t[2];
	struct pk_run r, lz;

	(void)state;
	pk_run_op(&r, &a, 2, NULL, 1, true);
	pk_hop_times(&r, &t_pkt, &d);
	assert_int_equal(pk(r.e)->flows.len, 4 * n);
	pk_run_free(&r);
	t_msg = 128 * t_pkt;
	pk_run_nchannels = 1;
	for (int k = 0; k < 2; k++) {
		P = (k + 1) * 4 * t_msg;
		pk_run_conn_cap_Bps = w / (P * n);
		pk_run_op(&r, &a, 2, NULL, 1, true);
		pk_run_op(&lz, &a, 2, NULL, 1, false);
		pk_run_conn_cap_Bps = 0;
		assert_null(pk(r.e)->tlazy);
		assert_non_null(pk(lz.e)->tlazy);
		got[k] = op_time(&r);
		want = n * P + t_msg + d;
		nccl = (n + S - 1) * P;
		{
			/* the flow engine's fill: (S - 1) P, forced channels and Simple only */
			struct ft_sim_op op = { .sched = &r.s, .rank_gpu = r.ends, .nchannels = 1,
				                .conn_cap_Bps = w / (P * n) };

			assert_true(ft__sim_cap_staged(&op));
			assert_true(fabs(ft__sim_cap_fill_s(r.t, &op, S) - (S - 1) * P) <= 1e-15);
			assert_true(fabs(ft__sim_cap_fill_s(r.t, &op, 5) - 4 * P) <= 1e-15);
			op.nchannels = 0;
			assert_false(ft__sim_cap_staged(&op));
			assert_true(ft__sim_cap_fill_s(r.t, &op, S) == 0);
			op.nchannels = 1;
			r.s.proto = FT_PROTO_LL;
			assert_false(ft__sim_cap_staged(&op));
			r.s.proto = FT_PROTO_SIMPLE;
		}
		flow_t[k] = flow_engine_time(&r, w / (P * n));
		if (getenv("FT_PKTTREE_PRINT"))
			print_message("tree paced P %.3f us: %.4f us, closed form %.4f us "
			              "(%+.3f packets); flow %.4f us; (n + S - 1) P %.4f us\n",
			              P * 1e6, got[k] * 1e6, want * 1e6, (got[k] - want) / t_pkt,
			              flow_t[k] * 1e6, nccl * 1e6);
		if (!(fabs(got[k] - want) <= 2 * t_pkt))
			fail_msg("paced tree: %.9g s, closed form %.9g s (packet %.3g s)", got[k],
			         want, t_pkt);
		if (!(fabs(got[k] - nccl) <= nccl / (n + S - 1)))
			fail_msg("paced tree: %.9g s, NCCL's %.9g s", got[k], nccl);
		if (!(fabs(flow_t[k] - nccl) <= 1e-3 * nccl))
			fail_msg("flow engine, capped tree: %.9g s, (n + S - 1) P %.9g s",
			         flow_t[k], nccl);
		if (!(fabs(got[k] - flow_t[k]) <= 0.02 * flow_t[k]))
			fail_msg("paced tree: packet %.9g s, flow %.9g s", got[k], flow_t[k]);
		if (!(got[k] > 1.5 * (2 * n * t_msg + d)))
			fail_msg("paced tree: %.9g s, not held past the unpaced %.9g s", got[k],
			         2 * n * t_msg + d);
		assert_true(lz.c.ops[0].t_end_s == r.c.ops[0].t_end_s);
		assert_int_equal(lz.c.npackets, r.c.npackets);
		pk_run_free(&lz);
		pk_run_free(&r);
	}
	pk_run_nchannels = 0;
	/* both engines' time is the cap's alone: from P to 2P each takes its periods more */
	if (!(fabs(flow_t[1] - flow_t[0] - (n + S - 1) * 4 * t_msg) <= 1e-9))
		fail_msg("flow engine, P to 2P: %.9g s more, (n + S - 1) P %.9g s",
		         flow_t[1] - flow_t[0], (n + S - 1) * 4 * t_msg);
	if (!(fabs(got[1] - got[0] - n * 4 * t_msg) <= 1e-9))
		fail_msg("P to 2P: %.9g s more, n P %.9g s", got[1] - got[0], n * 4 * t_msg);
	/* on NCCL's own channels (none forced): the model's fill, then loop m >= k at the
	 * fill's end and m - k + 1 periods on every stage */
	P = 4 * t_msg;
	pk_run_conn_cap_Bps = w / (P * n);
	pk_run_op(&r, &a, 2, NULL, 1, false);
	pk_run_conn_cap_Bps = 0;
	{
		double F;
		uint32_t k;

		tree_fill(&r, S, &F, &k);
		want = F + (n - k) * P + 2 * (t_msg + d);
		if (!(fabs(op_time(&r) - want) <= 2 * t_pkt))
			fail_msg("paced tree, NCCL's channels: %.9g s, F + (n - k) P + 2 (t_msg + "
			         "d) %.9g s (F %.9g s, k %u)",
			         op_time(&r), want, F, k);
	}
	pk_run_free(&r);
}

/*
 * The fill at the cap on a deeper pipeline: a broadcast chain over 4 nodes (one rank
 * each, NIC to NIC through one leaf, one channel forced; S = 3 stages, tree_depths() 0,
 * 1, 2), 64 MiB: n =
 * 128 messages of 512 KiB an edge, t_msg = 128 packet times, path latency d, each
 * connection capped at a period P = S / (cap n) of 2 and 4 t_msg. NCCL takes (n + S - 1)
 * P. The packet engine starts loop m of stage s at (m + s) P, so its last message leaves
 * the last stage at (n + S - 2) P: (n + S - 2) P + t_msg + d within two packet times, on
 * the whole graph and the lazy one to the picosecond; the flow engine n P and (S - 1) P
 * of fill besides its latency terms (the chain's steps between nodes, 22 us here), (n +
 * S - 1) P within 1 % and exactly (n + S - 1) P more from P to 2P; the two engines within
 * 2 %. Paced
 * alike on every stage (loop m at m P) the chain filled at the links' rates and took
 * (n - 1) P + S (t_msg + d), (S - 1) P - (S - 1) (t_msg + d) short of it, over 800
 * packet times: the closed form tells the two apart. The reduce chain, the same way up.
 */
static void
test_chain_paced_fill(void **state)
{
	const uint32_t k = 4, S = 3, n = 128;

	(void)state;
	for (int reduce = 0; reduce < 2; reduce++) {
		struct ft_coll_args a = { .op = reduce ? FT_OP_REDUCE : FT_OP_BROADCAST,
			                  .algo = FT_ALGO_RING,
			                  .proto = FT_PROTO_SIMPLE,
			                  .nranks = k,
			                  .ranks_per_node = 1,
			                  .bytes = 64u << 20 };
		double t_pkt, d, t_msg, P, want, nccl, got, lazy, ft, w = (double)a.bytes, ft1 = 0;
		struct pk_run r, lz;

		pk_run_op(&r, &a, k, NULL, 1, true);
		pk_hop_times(&r, &t_pkt, &d);
		assert_int_equal(pk(r.e)->flows.len, (k - 1) * n);
		pk_run_free(&r);
		t_msg = 128 * t_pkt;
		pk_run_nchannels = 1;
		for (int x = 1; x <= 2; x++) {
			P = 2 * x * t_msg;
			pk_run_conn_cap_Bps = w / (P * n);
			pk_run_op(&r, &a, k, NULL, 1, true);
			pk_run_op(&lz, &a, k, NULL, 1, false);
			pk_run_conn_cap_Bps = 0;
			assert_null(pk(r.e)->tlazy);
			assert_non_null(pk(lz.e)->tlazy);
			got = op_time(&r);
			lazy = op_time(&lz);
			ft = flow_engine_time(&r, w / (P * n));
			want = (n + S - 2) * P + t_msg + d;
			nccl = (n + S - 1) * P;
			if (getenv("FT_PKTTREE_PRINT"))
				print_message("%s chain P %.3f us: packet %.4f us, closed form "
				              "%.4f us (%+.3f packets); flow %.4f us; NCCL's "
				              "%.4f us\n",
				              reduce ? "reduce" : "broadcast", P * 1e6, got * 1e6,
				              want * 1e6, (got - want) / t_pkt, ft * 1e6,
				              nccl * 1e6);
			if (!(fabs(got - want) <= 2 * t_pkt))
				fail_msg("paced chain: %.9g s, closed form %.9g s (packet %.3g s)",
				         got, want, t_pkt);
			assert_true(lazy == got);
			assert_int_equal(lz.c.npackets, r.c.npackets);
			if (!(fabs(ft - nccl) <= 0.01 * nccl))
				fail_msg("flow engine, capped chain: %.9g s, (n + S - 1) P %.9g s",
				         ft, nccl);
			if (x == 2 && !(fabs(ft - ft1 - nccl / 2) <= 1e-9))
				fail_msg("flow engine, P to 2P: %.9g s more, (n + S - 1) P %.9g s",
				         ft - ft1, nccl / 2);
			ft1 = ft;
			if (!(fabs(got - ft) <= 0.02 * ft))
				fail_msg("paced chain: packet %.9g s, flow %.9g s", got, ft);
			pk_run_free(&lz);
			pk_run_free(&r);
		}
		pk_run_nchannels = 0;
	}
}

/*
 * A Simple chain on NCCL's own channels follows the model's pipeline up to the fill's end
 * (pkt_tree.c nccl_fill(), pace_of()): a broadcast chain over 8 nodes (one rank each, NIC
 * to NIC through one leaf; S = 7 stages, tree_depths() 0 to 6), 64 MiB. The model launches
 * its channels (k of them a copy of the schedule's, F its fill over the S stages, a round
 * of k messages through a stage); the packet engine starts loop m of a copy's edge at
 * stage s no earlier than min(m + s k, (S - 1) k) F / k, each round a stage behind the
 * one before as in the model's pipeline, then at the links' rate once the first round has
 * reached the last stage. So at (S - 1) F the last stage has the first round and the next
 * ones right behind it (F / k is at least a message's way over a hop, t_msg + d: the pace
 * binds), and its NIC is busy from there with the copy's n messages: (S - 1) F + n t_msg +
 * d, within two packet times. Before, the loops after the first round waited at every
 * stage for the fill's end, so the first stage sent them from there and the next one
 * reached the last stage S - 1 hops later, after its k messages had gone: 6 (t_msg + d)
 * against 4 t_msg here, the link idle between. The reduce chain, the same way up; the
 * whole graph and the lazy one the same to the picosecond.
 */
static void
test_chain_fill_rounds(void **state)
{
	const uint32_t N = 8, S = 7;

	(void)state;
	for (int reduce = 0; reduce < 2; reduce++) {
		struct ft_coll_args a = { .op = reduce ? FT_OP_REDUCE : FT_OP_BROADCAST,
			                  .algo = FT_ALGO_RING,
			                  .proto = FT_PROTO_SIMPLE,
			                  .nranks = N,
			                  .ranks_per_node = 1,
			                  .bytes = 64u << 20 };
		double t_pkt, d, t_msg, F, want, got, lazy;
		uint32_t k, pipes = 0, n;
		struct pk_run r, lz;
		const struct ft_sched_phase *ph;

		pk_run_op(&r, &a, N, NULL, 1, true);
		pk_run_op(&lz, &a, N, NULL, 1, false);
		assert_null(pk(r.e)->tlazy);
		assert_non_null(pk(lz.e)->tlazy);
		pk_hop_times(&r, &t_pkt, &d);
		t_msg = 128 * t_pkt;
		ph = ft_sched_phase_at(&r.s, 0);
		for (uint32_t f = 0; f < ph->nflows; f++) {
			struct ft_sched_flow fl;

			ft_sched_phase_flow(&r.s, ph, f, &fl);
			pipes = FT_MAX(pipes, (uint32_t)fl.pipe);
		}
		tree_fill(&r, S, &F, &k);
		/* every copy's message of 512 KiB on every hop */
		n = (uint32_t)(a.bytes / pipes / (512u << 10));
		assert_int_equal(pk(r.e)->flows.len, (size_t)(N - 1) * pipes * n);
		assert_true(n > k);
		want = (S - 1) * F + n * t_msg + d;
		got = op_time(&r);
		lazy = op_time(&lz);
		if (getenv("FT_PKTTREE_PRINT"))
			print_message("%s chain: %u copies, k %u, n %u, F %.3f us, t_msg %.3f us: "
			              "packet %.4f us, closed form %.4f us (%+.3f packets); flow "
			              "%.4f us\n",
			              reduce ? "reduce" : "broadcast", pipes, k, n, F * 1e6,
			              t_msg * 1e6, got * 1e6, want * 1e6, (got - want) / t_pkt,
			              flow_engine_time(&r, 0) * 1e6);
		assert_true(F / k >= pipes * (t_msg + d));
		if (!(fabs(got - want) <= 2 * t_pkt))
			fail_msg("%s chain, NCCL's channels: %.9g s, (S - 1) F + n t_msg + d %.9g "
			         "s (F %.9g s, k %u, n %u)",
			         reduce ? "reduce" : "broadcast", got, want, F, k, n);
		assert_true(lazy == got);
		assert_int_equal(lz.c.npackets, r.c.npackets);
		pk_run_free(&lz);
		pk_run_free(&r);
	}
}

/*
 * The pace at the cap on a branching tree: an all-reduce tree over 8 nodes (one rank each,
 * NIC to NIC through one leaf, one channel forced), where interior ranks have two
 * children and NCCL's double binary tree is 3 edges deep: S = 2 x 3 = 6 stages
 * (ft__sim_tree_depths(): up from the leaves, down from the roots; checked against the
 * trees' heights), more than the chain's 3, with stages that wait for two edges each. 64
 * MiB: n = 64 messages of 512 KiB an edge, t_msg = 128 packet times, each connection
 * capped at a period P = (S / 2) / (cap n) of 8 t_msg: a rank that is interior in both
 * copies sends up to 6 messages a loop over its NIC (each copy's way up and its two
 * children's way down), so at 4 t_msg the links, not the cap, would set the pace.
 * The last message leaves the last stage at (n + S - 2) P: the op takes (n + S - 2) P +
 * t_msg + d, and up to 2 t_msg more where a rank's two children's messages share its
 * NIC. The whole graph and the lazy one (pace number m tells loop m - s of every edge at
 * stage s) give the same time to the picosecond and the same packets.
 */
static void
test_tree_paced_branching(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
		                  .algo = FT_ALGO_TREE,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 8,
		                  .ranks_per_node = 1,
		                  .bytes = 64u << 20 };
	const uint32_t k = 8, n = 64;
	double t_pkt, d, t_msg, P, want, got, lazy, w = (double)(a.bytes / 2);
	uint32_t S = 0, h = 0, parent[8], at, up, p, r0, f;
	struct pk_run r, lz;

	(void)state;
	pk_run_op(&r, &a, k, NULL, 1, true);
	pk_hop_times(&r, &t_pkt, &d);
	/* two trees of 7 edges each, up and down: 28 edges of n messages */
	assert_int_equal(pk(r.e)->flows.len, 28 * n);
	/* S = 2 h, h the most edges from a rank up to its copy's root */
	for (p = 1; p <= 2; p++) {
		for (r0 = 0; r0 < k; r0++)
			parent[r0] = UINT32_MAX;
		for (f = 0; f < r.s.flows.len; f++) {
			const struct ft_sched_flow *fl = ft_vec_at(&r.s.flows, f);

			if (fl->pipe == p && fl->dir == FT_SCHED_UP)
				parent[fl->src] = fl->dst;
		}
		for (r0 = 0; r0 < k; r0++) {
			for (at = r0, up = 0; parent[at] != UINT32_MAX && up <= k; up++)
				at = parent[at];
			h = FT_MAX(h, up);
		}
	}
	assert_int_equal(ft__sim_tree_depths(&r.s, ft_sched_phase_at(&r.s, 0), NULL, &S), 0);
	assert_int_equal(S, 2 * h);
	assert_true(S > 3);
	pk_run_free(&r);
	t_msg = 128 * t_pkt;
	P = 8 * t_msg;
	pk_run_nchannels = 1;
	pk_run_conn_cap_Bps = w / (P * n);
	pk_run_op(&r, &a, k, NULL, 1, true);
	pk_run_op(&lz, &a, k, NULL, 1, false);
	pk_run_conn_cap_Bps = 0;
	pk_run_nchannels = 0;
	assert_null(pk(r.e)->tlazy);
	assert_non_null(pk(lz.e)->tlazy);
	got = op_time(&r);
	lazy = op_time(&lz);
	want = (n + S - 2) * P + t_msg + d;
	if (getenv("FT_PKTTREE_PRINT"))
		print_message("branching tree P %.3f us, S %u: packet %.4f us, lazy %.4f us, "
		              "(n + S - 2) P + t_msg + d %.4f us (%+.3f packets)\n",
		              P * 1e6, S, got * 1e6, lazy * 1e6, want * 1e6, (got - want) / t_pkt);
	if (!(got >= want - 2 * t_pkt && got <= want + 2 * t_msg + 2 * t_pkt))
		fail_msg("paced branching tree: %.9g s, closed form %.9g s to 2 t_msg more "
		         "(packet %.3g s)",
		         got, want, t_pkt);
	assert_true(lazy == got);
	assert_int_equal(lz.c.npackets, r.c.npackets);
	pk_run_free(&lz);
	pk_run_free(&r);
}

/*
 * The schedule the runner builds for @a on DGX H100 nodes of 8 ranks each, @nnodes of
 * them: NCCL's tree, or with @heads NCCL's NVLS tree with that many heads a node, in
 * @out copied on @nch rail-aligned channels (@s the one before); its phase.
 */
static const struct ft_sched_phase *
runner_sched(const struct ft_coll_args *a, uint32_t nnodes, uint32_t nch, uint32_t heads,
             struct ft_schedule *s, struct ft_schedule *out)
{
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };
	uint32_t first[9], k;
	char preset[32];

	assert_true(nnodes < FT_ARRAY_SIZE(first));
	for (k = 0; k <= nnodes; k++)
		first[k] = 8 * k;
	snprintf(preset, sizeof(preset), "dgx-h100:%u", nnodes);
	assert_int_equal(ft_spec_resolve(preset, &spec, &err), 0);
	ft_schedule_init(s);
	assert_int_equal(ft_coll_schedule(a, s, &err), 0);
	if (heads)
		assert_int_equal(ft__sim_nvls_tree_uneven(s, nnodes, first, heads), 0);
	else
		assert_int_equal(ft__sim_tree_uneven(s, nnodes, first), 0);
	assert_int_equal(ft__sim_channelize(s, nch, 0, 8, 8, NULL, ft_spec_node_at(&spec, 0), 0,
	                                    false, true, NULL, out),
	                 0);
	return ft_sched_phase_at(out, 0);
}

/*
 * The stages both engines pace a tree at its cap with (ft__sim_tree_depths(), nccl.c),
 * counted on the runner's schedule for 2 and 4 DGX H100 nodes (8 ranks each, 4 channels):
 * a chunk goes up from the deepest leaf to the root and down again, the root's way down
 * waiting for its children's way up, so S = 2 h, h the most edges from a rank to its
 * copy's root (walked here on the up edges' parents, relay legs included). On 2 nodes that
 * is the model's 2 (ppn - 1 + log2 nodes) = 16; on 4 nodes 20, two more than the model's
 * 18, where a node's first child joins its chain at local rank 1 (NCCL's child0Index,
 * src/graph/connect.cc). A leaf's way up is stage 0 and every edge's stage is below S.
 */
static void
test_tree_depths_sched(void **state)
{
	static const uint32_t nodes[] = { 2, 4 }, want[] = { 16, 20 };

	(void)state;
	for (size_t i = 0; i < FT_ARRAY_SIZE(nodes); i++) {
		struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
			                  .algo = FT_ALGO_TREE,
			                  .proto = FT_PROTO_SIMPLE,
			                  .nranks = 8 * nodes[i],
			                  .ranks_per_node = 1,
			                  .bytes = 64u << 20 };
		struct ft_schedule s, out;
		const struct ft_sched_phase *ph = runner_sched(&a, nodes[i], 4, 0, &s, &out);
		uint32_t *depth = calloc(ph->nflows, sizeof(uint32_t)), stages = 0, h = 0;
		uint32_t parent[32], pipes = 0, p, f, r;

		assert_non_null(depth);
		assert_int_equal(ft__sim_tree_depths(&out, ph, depth, &stages), 0);
		for (f = 0; f < ph->nflows; f++) {
			const struct ft_sched_flow *fl = ft_vec_at(&out.flows, ph->first_flow + f);

			pipes = FT_MAX(pipes, (uint32_t)fl->pipe);
		}
		for (p = 1; p <= pipes; p++) {
			uint32_t src = UINT32_MAX;

			for (r = 0; r < a.nranks; r++)
				parent[r] = UINT32_MAX;
			for (f = 0; f < ph->nflows; f++) {
				const struct ft_sched_flow *fl =
				        ft_vec_at(&out.flows, ph->first_flow + f);

				if (fl->pipe != p || fl->dir != FT_SCHED_UP)
					continue;
				if (!fl->relay)
					src = fl->src;
				parent[src] = fl->dst;
			}
			for (r = 0; r < a.nranks; r++) {
				uint32_t up = 0, at = r;

				while (parent[at] != UINT32_MAX && up <= a.nranks) {
					at = parent[at];
					up++;
				}
				assert_true(up <= a.nranks);
				h = FT_MAX(h, up);
			}
		}
		assert_int_equal(stages, 2 * h);
		assert_int_equal(stages, want[i]);
		for (f = 0; f < ph->nflows; f++) {
			const struct ft_sched_flow *fl = ft_vec_at(&out.flows, ph->first_flow + f);

			assert_true(depth[f] < stages);
			if (fl->dir == FT_SCHED_DOWN)
				assert_true(depth[f] >= 1);
		}
		free(depth);
		ft_schedule_release(&out);
		ft_schedule_release(&s);
	}
}

/*
 * What the runner hands the engine for a tree all-reduce on 4 DGX H100 nodes (a chain in
 * each node, the double binary tree over the nodes, 8 rail-aligned channels):
 * every flow names its tree copy (1 .. 2 x 8) and direction; a relay leg starts where the
 * flow before it ends; per copy, each rank sends up to at most one parent, exactly one
 * rank (the root) sends up to none, each up flow has its down flow back, and every rank
 * of the job takes part.
 */
static void
test_tree_sched_marks(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
		                  .algo = FT_ALGO_TREE,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 32,
		                  .ranks_per_node = 1,
		                  .bytes = 64u << 20 };
	uint32_t nch = 8, npipe = 2 * nch, p, f, relays = 0;
	struct ft_schedule s, out;
	const struct ft_sched_phase *ph = runner_sched(&a, 4, nch, 0, &s, &out);

	(void)state;
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
	/* every connection between nodes on its channel's NIC, the tree's second GPU by its own
	 * PCIe path (nccl.c tree_second()): no PXN leg */
	assert_int_equal(relays, 0);
	ft_schedule_release(&out);
	ft_schedule_release(&s);
}

/*
 * The runner's send/recv of 16 ranks on 2 DGX H100 nodes (rank i to i + 1, one channel, ranks
 * in place): the sends 7 -> 8 and 15 -> 0 cross nodes and rails (GPU 7 to GPU 0 of the
 * other node). By NCCL's PXN each goes over NVLink to the GPU of the peer's rail (local 0
 * of its own node), which sends it on: 18 flows, 2 of them relay legs. With
 * nodes.nccl.pxn_disable (NCCL_PXN_DISABLE=1) every send leaves by its own GPU's NIC: the
 * 16 sends as scheduled, no relay (NVIDIA/nccl src/graph/paths.cc ncclPxnDisable(); kb
 * ENV-PXN).
 */
static void
test_sendrecv_pxn_disable(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_SENDRECV,
		                  .algo = FT_ALGO_RING,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 16,
		                  .ranks_per_node = 8,
		                  .bytes = 1u << 20 };
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };
	struct ft_schedule s;

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &spec, &err), 0);
	ft_schedule_init(&s);
	assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
	for (int off = 0; off < 2; off++) {
		struct ft_node_spec node = *ft_spec_node_at(&spec, 0);
		struct ft_schedule out;
		const struct ft_sched_phase *ph;
		uint32_t f, relays = 0, cross = 0;

		node.nccl_pxn_disable = off != 0;
		assert_int_equal(
		        ft__sim_channelize(&s, 1, 0, 8, 8, NULL, &node, 0, true, true, NULL, &out), 0);
		ph = ft_sched_phase_at(&out, 0);
		assert_int_equal(ph->nflows, off ? 16 : 18);
		for (f = 0; f < ph->nflows; f++) {
			const struct ft_sched_flow *fl = ft_vec_at(&out.flows, ph->first_flow + f);

			relays += fl->relay;
			if (fl->src / 8 == fl->dst / 8)
				continue;
			cross++;
			/* between nodes: from rail 0's GPU (PXN) or the sender itself */
			if (off) {
				assert_int_equal(fl->dst, (fl->src + 1) % 16);
				assert_int_equal(fl->src % 8, 7);
			} else {
				assert_true(fl->relay);
				assert_int_equal(fl->src % 8, 0);
				assert_int_equal(fl->dst % 8, 0);
			}
		}
		assert_int_equal(cross, 2);
		assert_int_equal(relays, off ? 0 : 2);
		ft_schedule_release(&out);
	}
	ft_schedule_release(&s);
}

/*
 * The channel maps' senders follow the jobs' release on C2C nodes (ft_model_pxn_relay(),
 * NCCL_PXN_C2C 1 from v2.28.3-1 only, src/graph/paths.cc): a send/recv of 8 ranks on two
 * GB200 trays (gb200-nvl72:36's node, its GPUs on C2C, GPU g on NIC g) relays rank 3's
 * send to rank 4 through local 0, the proxy of rank 4's NIC (10 flows, 2 relay legs), at
 * the newest and 2.28.3, and at 2.27.7 sends it from local 3's own NIC (8 flows, none
 * relayed). A DGX H100 (PCIe switches, each GPU under its NIC's switch) relays at every
 * release, 2.27.7 too: 16 ranks, rank 7's send through local 0 (18 flows, 2 relays).
 */
static void
test_sendrecv_pxn_c2c_release(void **state)
{
	static const struct {
		const char *preset;
		uint32_t ppn;
		bool c2c;
	} nodes[] = { { "gb200-nvl72:36", 4, true }, { "dgx-h100:2", 8, false } };
	static const uint32_t versions[] = { 0, 22803, 22707 };
	uint32_t k, i;

	(void)state;
	for (k = 0; k < FT_ARRAY_SIZE(nodes); k++) {
		uint32_t ppn = nodes[k].ppn;
		struct ft_coll_args a = { .op = FT_OP_SENDRECV,
			                  .algo = FT_ALGO_RING,
			                  .proto = FT_PROTO_SIMPLE,
			                  .nranks = 2 * ppn,
			                  .ranks_per_node = ppn,
			                  .bytes = 1u << 20 };
		struct ft_cluster_spec spec;
		struct ft_error err = { 0 };
		struct ft_schedule s;

		assert_int_equal(ft_spec_resolve(nodes[k].preset, &spec, &err), 0);
		assert_int_equal(ft_node_gpu_c2c(ft_spec_node_at(&spec, 0)), nodes[k].c2c);
		ft_schedule_init(&s);
		assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
		for (i = 0; i < FT_ARRAY_SIZE(versions); i++) {
			uint32_t v = versions[i], f, relays = 0;
			bool relay = !nodes[k].c2c || v == 0 || v >= 22803;
			struct ft_schedule out;
			const struct ft_sched_phase *ph;

			assert_int_equal(ft__sim_channelize(&s, 1, 0, ppn, ppn, NULL,
			                                    ft_spec_node_at(&spec, 0), v, true, true,
			                                    NULL, &out),
			                 0);
			ph = ft_sched_phase_at(&out, 0);
			assert_int_equal(ph->nflows, 2 * ppn + (relay ? 2 : 0));
			for (f = 0; f < ph->nflows; f++) {
				const struct ft_sched_flow *fl =
				        ft_vec_at(&out.flows, ph->first_flow + f);

				relays += fl->relay;
				if (fl->src / ppn != fl->dst / ppn)
					assert_int_equal(fl->src % ppn, relay ? 0 : ppn - 1);
			}
			assert_int_equal(relays, relay ? 2 : 0);
			ft_schedule_release(&out);
		}
		ft_schedule_release(&s);
	}
}

/*
 * A ring's or tree's channel leaves a node by its graph channel's NIC at every release
 * (NVIDIA/nccl src/graph/search.cc ncclTopoGetNetDev() with a graph reads graph->inter[];
 * NCCL_PXN_C2C only decides how the bytes reach that NIC): on two GB200 NVL72 racks
 * (gb200-nvl72:36, one NCCL node of 72 ranks per rack, 18 trays of 4) at 2.27.7, 2.28.3
 * and the newest, every flow between the racks leaves on its destination's rail (the same
 * tray and GPU in the other rack): from the rail's own GPU, or from another GPU of the tray
 * through the rail's NIC that it names (a ring's last rank, test_ring_c2c_nic_by_release()),
 * or through a relay leg over NVLink (a tree's ranks other than its first).
 */
static void
test_ring_tree_rail_any_release(void **state)
{
	static const enum ft_algo algos[] = { FT_ALGO_RING, FT_ALGO_TREE };
	static const uint32_t versions[] = { 22707, 22803, 0 };
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };
	uint32_t k, i;

	(void)state;
	assert_int_equal(ft_spec_resolve("gb200-nvl72:36", &spec, &err), 0);
	assert_true(ft_node_gpu_c2c(ft_spec_node_at(&spec, 0)));
	for (k = 0; k < FT_ARRAY_SIZE(algos); k++) {
		struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
			                  .algo = algos[k],
			                  .proto = FT_PROTO_SIMPLE,
			                  .nranks = 144,
			                  .ranks_per_node = 72,
			                  .bytes = 1u << 24 };
		struct ft_schedule s;

		ft_schedule_init(&s);
		assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
		for (i = 0; i < FT_ARRAY_SIZE(versions); i++) {
			struct ft_schedule out;
			uint32_t p, f, cross = 0, relays = 0;

			assert_int_equal(ft__sim_channelize(&s, 4, 0, 72, 4, NULL,
			                                    ft_spec_node_at(&spec, 0), versions[i],
			                                    false, true, NULL, &out),
			                 0);
			for (p = 0; p < out.phases.len; p++) {
				const struct ft_sched_phase *ph = ft_sched_phase_at(&out, p);

				for (f = 0; f < ph->nflows; f++) {
					const struct ft_sched_flow *fl =
					        ft_vec_at(&out.flows, ph->first_flow + f);

					relays += fl->relay;
					if (fl->src / 72 == fl->dst / 72)
						continue;
					cross++;
					/* out of the sender's tray by the NIC it names, else its
					 * GPU's own (GPU g of a tray on NIC g) */
					assert_int_equal(fl->src % 72 / 4, fl->dst % 72 / 4);
					assert_int_equal(fl->nic ? fl->nic - 1u : fl->src % 4,
					                 fl->dst % 4);
				}
			}
			assert_true(cross > 0);
			/* a ring's last rank sits on its NIC's CPU: no relay; a tree's other
			 * ranks reach its first rank's NIC over NVLink */
			assert_true(algos[k] == FT_ALGO_RING ? relays == 0 : relays > 0);
			ft_schedule_release(&out);
		}
		ft_schedule_release(&s);
	}
}

/*
 * A ring's channel leaves a DGX H100 node as NCCL's search and paths send it (NVIDIA/nccl
 * src/graph/search.cc ncclTopoCompute(), ncclTopoSearchRecGpu(); paths.cc
 * ncclTopoComputePaths(), the PXN step; v2.21.5-1 to v2.28.3-1). On whole nodes channel c
 * on rail r = c enters at GPU r and leaves from its neighbour r ^ 1 under NIC r's own PCIe
 * switch (PATH_PIX, the search's first path type): through NIC r over the switch, one flow
 * naming NIC r (nic r + 1), no NVLink leg. A job on GPUs 0, 2, 4, 6 has no rank under the
 * NIC's switch but GPU r: channel r leaves from the rank before, across the CPUs from NIC r
 * (beyond PATH_PXN), and PXN relays it over NVLink through GPU r, which sends from its own
 * NIC. At 2.21.5, 2.27.7 and the newest.
 */
static void
test_ring_leaves_by_pcie_or_pxn(void **state)
{
	static const uint32_t versions[] = { 22105, 22707, 0 };
	static const uint32_t even[4] = { 0, 2, 4, 6 };
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };
	uint32_t i, job;

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &spec, &err), 0);
	for (job = 0; job < 2; job++) {
		uint32_t ppn = job ? 4 : 8;
		struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
			                  .algo = FT_ALGO_RING,
			                  .proto = FT_PROTO_SIMPLE,
			                  .nranks = 2 * ppn,
			                  .ranks_per_node = ppn,
			                  .bytes = 1u << 24 };
		struct ft_schedule s;

		ft_schedule_init(&s);
		assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
		for (i = 0; i < FT_ARRAY_SIZE(versions); i++) {
			struct ft_schedule out;
			uint32_t p, f, named[8] = { 0 }, relayed[8] = { 0 }, r;

			assert_int_equal(ft__sim_channelize(&s, ppn, 0, ppn, 8, job ? even : NULL,
			                                    ft_spec_node_at(&spec, 0), versions[i],
			                                    false, true, NULL, &out),
			                 0);
			for (p = 0; p < out.phases.len; p++) {
				const struct ft_sched_phase *ph = ft_sched_phase_at(&out, p);

				for (f = 0; f < ph->nflows; f++) {
					const struct ft_sched_flow *fl =
					        ft_vec_at(&out.flows, ph->first_flow + f);
					const struct ft_sched_flow *leg;
					uint32_t g = job ? even[fl->src % ppn] : fl->src % ppn;

					if (fl->src / ppn == fl->dst / ppn)
						continue;
					/* the receiver: rail r's GPU */
					r = job ? even[fl->dst % ppn] : fl->dst % ppn;
					if (fl->relay) {
						leg = ft_vec_at(&out.flows, ph->first_flow + f - 1);
						assert_int_equal(leg->dst, fl->src);
						g = job ? even[leg->src % ppn] : leg->src % ppn;
						assert_int_not_equal(g / 2, r / 2);
						assert_int_equal(fl->nic, 0);
						relayed[r]++;
					} else {
						assert_int_equal(g, r ^ 1);
						assert_int_equal(fl->nic, 1 + r);
						named[r]++;
					}
				}
			}
			for (r = 0; r < 8; r++) {
				bool used = !job || r % 2 == 0;

				assert_true(!job ? named[r] > 0 : named[r] == 0);
				assert_true(job && used ? relayed[r] > 0 : relayed[r] == 0);
			}
			ft_schedule_release(&out);
		}
		ft_schedule_release(&s);
	}
}

/*
 * Before v2.28.3-1 a GB200 ring's bytes reach their channel's NIC over C2C and the CPUs
 * where the channel's last GPU is not on the NIC's CPU (NVIDIA/nccl src/graph/paths.cc
 * ncclTopoComputePaths(): NCCL_PXN_C2C 0 in v2.27, so the proxy's PATH_P2C is beyond
 * pxnType PATH_PXB and no PXN step is added). Two GB200 NVL72 racks (gb200-nvl72:36, trays
 * of 4: GPUs and NICs 0-1 on Grace 0, 2-3 on Grace 1). On whole trays (72 ranks a rack, 4
 * channels) channel c leaves from GPU c ^ 1 on NIC c's own CPU (PATH_P2C, the search's
 * first type): through NIC c by C2C at every release, nic c + 1, no relay. A job on GPUs 0
 * and 2 of each tray (36 ranks a rack, 2 channels): channel 1 on tray 0's NIC 2 leaves from
 * GPU 0 on Grace 0, by its own path over C2C and both CPUs at 2.27.7 (nic 3) and through
 * GPU 2 over NVLink from 2.28.3 (NCCL_PXN_C2C 1).
 */
static void
test_ring_c2c_nic_by_release(void **state)
{
	static const uint32_t versions[] = { 22707, 22803, 0 };
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };
	uint32_t i, job, gpus[36];

	(void)state;
	assert_int_equal(ft_spec_resolve("gb200-nvl72:36", &spec, &err), 0);
	for (i = 0; i < 36; i++)
		gpus[i] = 2 * (i % 2);
	for (job = 0; job < 2; job++) {
		uint32_t ppn = job ? 36 : 72, tray = job ? 2 : 4, nch = job ? 2 : 4;
		struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
			                  .algo = FT_ALGO_RING,
			                  .proto = FT_PROTO_SIMPLE,
			                  .nranks = 2 * ppn,
			                  .ranks_per_node = ppn,
			                  .bytes = 1u << 24 };
		struct ft_schedule s;

		ft_schedule_init(&s);
		assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
		for (i = 0; i < FT_ARRAY_SIZE(versions); i++) {
			bool c2c = versions[i] == 22707; /* the bytes over C2C and the CPUs */
			struct ft_schedule out;
			uint32_t p, f, own[4] = { 0 }, relayed = 0, c2c_sends = 0;

			assert_int_equal(ft__sim_channelize(&s, nch, 0, ppn, tray, job ? gpus : NULL,
			                                    ft_spec_node_at(&spec, 0), versions[i],
			                                    false, true, NULL, &out),
			                 0);
			for (p = 0; p < out.phases.len; p++) {
				const struct ft_sched_phase *ph = ft_sched_phase_at(&out, p);

				for (f = 0; f < ph->nflows; f++) {
					const struct ft_sched_flow *fl =
					        ft_vec_at(&out.flows, ph->first_flow + f);
					uint32_t g = fl->src % ppn, d = fl->dst % ppn;

					if (fl->src / ppn == fl->dst / ppn || fl->src >= ppn ||
					    g >= tray)
						continue;
					if (!job) {
						/* whole trays: from GPU c ^ 1 through NIC c */
						assert_false(fl->relay);
						assert_int_equal(g, d ^ 1);
						assert_int_equal(fl->nic, d + 1);
						own[d]++;
					} else if (fl->relay && g == 1) {
						/* through GPU 2, from GPU 0 over NVLink */
						const struct ft_sched_flow *leg = ft_vec_at(
						        &out.flows, ph->first_flow + f - 1);

						assert_int_equal(leg->src % ppn, 0);
						assert_int_equal(fl->nic, 0);
						relayed++;
					} else if (!fl->relay && g == 0 && d == 1) {
						/* GPU 0 out of NIC 2 by its own path */
						assert_int_equal(fl->nic, 3);
						c2c_sends++;
					}
				}
			}
			if (!job)
				for (uint32_t c = 0; c < 4; c++)
					assert_true(own[c] > 0);
			else
				assert_true(c2c ? c2c_sends > 0 && relayed == 0 :
				                  c2c_sends == 0 && relayed > 0);
			ft_schedule_release(&out);
		}
		ft_schedule_release(&s);
	}
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
	ft_model_chunking_sized(FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_SIMPLE, NULL, 1u << 30, 16,
	                        4, 32, &ch);
	assert_int_equal(ch.chunk_bytes, 512u << 10);
	assert_int_equal(ch.slice_bytes, 512u << 10);
	assert_int_equal(ch.slots, 8);
	ft_model_chunking_sized(FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_LL, NULL, 1u << 30, 16, 4,
	                        32, &ch);
	assert_int_equal(ch.chunk_bytes, 32u << 10);
	ft_model_chunking_sized(FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_LL128, NULL, 1u << 20, 2,
	                        2, 16, &ch);
	assert_int_equal(ch.chunk_bytes, 72000);
	assert_int_equal(ch.slice_bytes, 72000);
	/* large enough: the full slot */
	ft_model_chunking_sized(FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_LL128, NULL, 1ull << 33, 2,
	                        2, 16, &ch);
	assert_int_equal(ch.chunk_bytes, 576000);
	/* Before 2.20 the Simple tree's chunk shrinks with the tree's depth (the model's rule,
	 * one function): 64 MiB on 32 channels of 2 nodes of 8, depth 8 - 1 + log2 2 = 8, a
	 * channel 2 MiB: 512 KiB halves while it carries fewer than 64 chunks, to 128 KiB (16),
	 * then while fewer than 32, to 64 KiB (32); 2.20 and later keep the slot. */
	{
		struct ft_model_buffs b = { 0 };

		b.nccl_version = 21899;
		ft_model_chunking_sized(FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_SIMPLE, &b,
		                        64u << 20, 32, 2, 16, &ch);
		assert_int_equal(ch.chunk_bytes, 64u << 10);
		assert_int_equal(ch.slice_bytes, 64u << 10);
		b.nccl_version = 22003;
		ft_model_chunking_sized(FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_SIMPLE, &b,
		                        64u << 20, 32, 2, 16, &ch);
		assert_int_equal(ch.chunk_bytes, 512u << 10);
	}
}

/* Run @op (a line of a job's ops) alone on cluster @spec with the packet engine. */
static void
run_on(const char *spec, const char *op, struct ft_sim_report *rep)
{
	char text[256];
	struct ft_scenario *sc = NULL;
	struct ft_sim_overrides ov;
	struct ft_error err = { 0 };

	snprintf(text, sizeof(text), "name: t\ncluster: %s\njobs:\n  - name: a\n    ops:\n"
	         "      - %s\n", spec, op);
	assert_int_equal(ft_scenario_load_buffer(text, strlen(text), "t.yaml", &sc, &err), 0);
	ft_sim_overrides_init(&ov);
	ov.engine = "packet";
	ft_sim_report_init(rep);
	if (ft_scenario_run(sc, &ov, NULL, rep, &err) != 0)
		fail_msg("%s: %s", spec, err.msg);
	ft_scenario_free(sc);
}

/* Run @op alone on cluster @spec with @engine ("packet" or "flow"), listing @list flows
 * (a packet engine's graph built whole where not 0): its time, us, and its packets. */
static double
time_listed(const char *spec, const char *op, const char *engine, uint32_t list,
            uint64_t *npackets)
{
	char text[256];
	struct ft_scenario *sc = NULL;
	struct ft_sim_overrides ov;
	struct ft_sim_report rep;
	struct ft_error err = { 0 };
	double t;

	snprintf(text, sizeof(text), "name: t\ncluster: %s\njobs:\n  - name: a\n    ops:\n"
	         "      - %s\n", spec, op);
	assert_int_equal(ft_scenario_load_buffer(text, strlen(text), "t.yaml", &sc, &err), 0);
	ft_sim_overrides_init(&ov);
	ov.engine = engine;
	ov.list_flows = list;
	ft_sim_report_init(&rep);
	if (ft_scenario_run(sc, &ov, NULL, &rep, &err) != 0)
		fail_msg("%s: %s", spec, err.msg);
	assert_int_equal(ft_run_nrows(&rep.run), 1);
	t = ((const struct ft_result_row *)ft_vec_at(&rep.run.rows, 0))->time_us;
	if (npackets)
		*npackets = rep.c.npackets;
	ft_sim_report_release(&rep);
	ft_scenario_free(sc);
	return t;
}

static double
time_on(const char *spec, const char *op, const char *engine)
{
	return time_listed(spec, op, engine, 0, NULL);
}

/*
 * An LL128 chain across two nodes built lazily (a hop between nodes told by its step's
 * last round: pkt_tree.c step_next()) runs as the whole graph (wait_msg()) does: the same
 * time and packets, on 2 DGX H100 and 2 DGX A100, broadcast and reduce at 4 MiB; so does
 * an LL chain at 64 and 256 KiB, each rank's rounds a period apart (rank_edge() built
 * whole, build_message() lazily: with the lazy phase's paces per rank left out, its wait
 * and its link, dgx-h100:2's broadcast at 64 KiB ran 24.85 us lazily against 26.20 whole).
 */
static void
test_chain_lines_lazy(void **state)
{
	static const char *const specs[] = { "dgx-h100:2", "dgx-a100:2" };
	static const char *const ops[] = { "{op: broadcast, size: 4MiB}",
		                           "{op: reduce, size: 4MiB}",
		                           "{op: broadcast, size: 64KiB}",
		                           "{op: reduce, size: 64KiB}",
		                           "{op: broadcast, size: 256KiB}" };

	(void)state;
	for (size_t i = 0; i < FT_ARRAY_SIZE(specs); i++)
		for (size_t o = 0; o < FT_ARRAY_SIZE(ops); o++) {
			uint64_t np[2];
			double lazy = time_listed(specs[i], ops[o], "packet", 0, &np[0]);
			double whole = time_listed(specs[i], ops[o], "packet", 1, &np[1]);

			if (!(lazy == whole) || np[0] != np[1])
				fail_msg("%s %s: lazy %.6f us, %llu packets; whole %.6f us, %llu",
				         specs[i], ops[o], lazy, (unsigned long long)np[0], whole,
				         (unsigned long long)np[1]);
		}
}

/*
 * @op (a scenario's op line: @name of @size) on @spec in the packet and the flow engine,
 * each time into @pkt and @fl; FT_PKTTREE_PRINT=1 prints both and the gap.
 */
static void
both_engines(const char *spec, const char *name, const char *size, const char *op, double *pkt,
             double *fl)
{
	*pkt = time_on(spec, op, "packet");
	*fl = time_on(spec, op, "flow");
	if (getenv("FT_PKTTREE_PRINT"))
		print_message("# %s %s %s: packet %.2f us, flow %.2f us (%+.1f %%)\n", spec, name,
		              size, *pkt, *fl, (*pkt / *fl - 1) * 100);
}

/*
 * A ring @op (all_reduce, all_gather, ...) in @proto of @size on @spec: the packet engine
 * within @band of the flow engine, or the test fails naming both times.
 */
static void
ring_agrees(const char *spec, const char *op, const char *proto, const char *size, double band)
{
	char yaml[96];
	double pkt, fl;

	snprintf(yaml, sizeof(yaml), "{op: %s, algo: ring, proto: %s, size: %s}", op, proto,
	         size);
	both_engines(spec, op, size, yaml, &pkt, &fl);
	if (!(fabs(pkt - fl) <= band * fl))
		fail_msg("%s %s %s %s ring: packet %.2f us, flow %.2f us, band %.1f %%", spec, op,
		         proto, size, pkt, fl, 100 * band);
}

/* The packet engine's @op on @spec, built lazily and whole: the same time and packets. */
static void
lazy_is_whole(const char *spec, const char *op)
{
	uint64_t np[2];
	double lazy = time_listed(spec, op, "packet", 0, &np[0]);
	double whole = time_listed(spec, op, "packet", 1, &np[1]);

	if (!(lazy == whole) || np[0] != np[1])
		fail_msg("%s %s: lazy %.6f us, %llu packets; whole %.6f us, %llu", spec, op, lazy,
		         (unsigned long long)np[0], whole, (unsigned long long)np[1]);
}

/*
 * A broadcast's and a reduce's chain as NCCL runs it agrees with the flow engine (the
 * model's pipeline) within 3 % where nothing congests: at 4 MiB (LL128) every hop over
 * NVLink passes on its lines at the model's grain as they come and a hop between nodes
 * its whole step (pkt_tree.c chain_lines(), wait_msg()); at 32 to 256 MiB (Simple) the
 * schedule's copies move their rounds a stage apart at the model's fill until the first
 * reaches the last stage, then at the links' rate (chain_fill_on(), nccl_fill(): loop m
 * at stage s at pace min(m + s, the fill's end)): within 0.2 %. Before, the loops after
 * the first round waited for it to reach the last stage, so the first stage (the root's)
 * sent them from there and the last one crossed the stages after it once more at the
 * links' rate: 2 DGX H100 64 MiB 659.65 us against 571.54 (+15.4 %), 256 MiB +11.0 %,
 * 2 DGX A100 32 MiB +10.9 %.
 * Before that, every hop forwarded a whole 512 KiB message and the chain ran as the
 * schedule's copies alone: dgx-h100:2 4 MiB 137.21 us against the flow engine's 88.78,
 * one DGX H100 256 MiB 790.81 against 981.81, dgx-a100:2 256 MiB 1,620.77 against
 * 2,081.13.
 */
/* Two nodes of 4 PCIe GPUs and one NIC (a ring's channels all on it). */
#define PCIE_1NIC "tests/fixtures/spec/pcie-1nic.yaml"
/* Four DGX H100 on the SHARP example's fabric (examples/dgx-h100-sharp.yaml). */
#define SHARP_4                                                                            \
	"{nodes: {preset: dgx-h100, count: 4}, fabric: {kind: rail-fat-tree, link: ndr, "  \
	"sharp: true}}"

static void
test_chain_engines_agree(void **state)
{
	static const struct {
		const char *spec, *op, *size;
		double band;     /* |packet / flow - 1| at most */
		const char *why; /* past 3 %: the open gap it shows */
		double lo, hi;   /* or, where lo < hi, packet / flow - 1 within [lo, hi]: a
		                  * documented gap, which fails whether it closes or widens */
	} row[] = {
		{ "dgx-h100:1", "broadcast", "4MiB", 0.04,
		  "LL128 at 4 MiB on one node: +2.9 %, not traced" },
		{ "dgx-h100:1", "reduce", "4MiB", 0.04,
		  "LL128 at 4 MiB on one node: +2.9 %, not traced" },
		{ "dgx-h100:1", "broadcast", "64MiB", 0.03, NULL },
		{ "dgx-h100:1", "broadcast", "256MiB", 0.03, NULL },
		{ "dgx-h100:1", "reduce", "256MiB", 0.03, NULL },
		{ "dgx-h100:2", "broadcast", "4MiB", 0.03, NULL },
		{ "dgx-h100:2", "reduce", "4MiB", 0.03, NULL },
		{ "dgx-h100:2", "broadcast", "64MiB", 0.03, NULL },
		{ "dgx-h100:2", "reduce", "64MiB", 0.03, NULL },
		{ "dgx-h100:2", "broadcast", "128MiB", 0.03, NULL },
		{ "dgx-h100:2", "broadcast", "256MiB", 0.03, NULL },
		{ "dgx-h100:2", "reduce", "256MiB", 0.03, NULL },
		{ "dgx-a100:2", "broadcast", "4MiB", 0.03, NULL },
		{ "dgx-a100:2", "reduce", "4MiB", 0.03, NULL },
		{ "dgx-a100:2", "broadcast", "32MiB", 0.03, NULL },
		{ "dgx-a100:2", "broadcast", "64MiB", 0.03, NULL },
		{ "dgx-a100:2", "broadcast", "256MiB", 0.03, NULL },
		{ "dgx-a100:2", "reduce", "256MiB", 0.03, NULL },
		{ "dgx-b200:2", "broadcast", "64MiB", 0.03, NULL },
		/* LL, one round of lines a hop: a hop inside a node takes max(the model's per-hop
		 * latency, its path), not both (pkt_setup.c walk_back_s()); before +20.5 % (19.00
		 * against 15.77 us). -6.1 %: 0.60 us of it the flow engine's one NVLink path beside
		 * the model's latency, the other 0.37 mostly the packet engine's S as 7 periods of the
		 * cap (3.82 us) where the flow engine's is 8 (4.37), less its path walk past the
		 * overhead (7 hops x 0.02 us) */
		{ "dgx-h100:1", "broadcast", "64KiB", 0, "LL on one node: -6.1 % (see above)", -0.07,
		  -0.05 },
		{ "dgx-h100:1", "reduce", "64KiB", 0, "LL on one node: -6.1 % (see above)", -0.07,
		  -0.05 },
		/* LL on NCCL's launched channels across nodes (chain_channels(), keep), each
		 * rank's rounds a period of the channel's LL pace apart (rank_pace()). At 64 KiB
		 * the broadcast runs on channel 0 alone (one launched), whose ring enters the
		 * root's node at the root: its chain crosses once, and the flow engine's ramp (the
		 * model's, ft__model_chain_net_hops() on the launched channels) counts one
		 * crossing too; the reduce (into the root) crosses twice on both. Before, the
		 * model priced every channel's 2 crossings at any size: -10.3 % (dgx-h100:2),
		 * -13.5 % (dgx-a100:2) and -10.5 % (dgx-b200:2); before the pace per rank
		 * -15.0 %, -19.7 % and -12.9 % */
		{ "dgx-h100:2", "broadcast", "64KiB", 0.02, NULL },
		{ "dgx-a100:2", "broadcast", "64KiB", 0.02, NULL },
		{ "dgx-b200:2", "broadcast", "64KiB", 0.03, NULL },
		{ "dgx-a100:2", "reduce", "64KiB", 0.01, NULL },
		{ "dgx-h100:2", "reduce", "64KiB", 0.02, NULL },
		{ "dgx-a100:2", "broadcast", "256KiB", 0.01, NULL },
		/* LL128 at 4 and 64 KiB: a hop inside a node pays NCCL's hwLat[NVLINK][RING][LL128]
		 * and the model's grain at the channel's share, its path inside them
		 * (pkt_setup.c walk_back_s(), chain_grain_s(); test_chain_ll128_hop_once). Before,
		 * the path (0.6 us through an NVSwitch) was paid beside hwLat on each of 14 hops:
		 * dgx-a100:2 4 KiB 53.05 us against 49.72 (+6.7 %), dgx-h100:2 4 KiB 53.03 against
		 * 48.12 (+10.2 %), 64 KiB 54.04 and 53.90 against 49.09 (+10.1 %, +9.8 %) */
		{ "dgx-a100:2", "broadcast, proto: ll128", "4KiB", 0.03, NULL },
		{ "dgx-h100:2", "broadcast, proto: ll128", "4KiB", 0.025, NULL },
		{ "dgx-h100:2", "broadcast, proto: ll128", "64KiB", 0.01, NULL },
		{ "dgx-h100:2", "reduce, proto: ll128", "64KiB", 0.01, NULL },
		/* Several channels on one NIC a node: every channel's ring enters the root's node
		 * at the root (NCCL's search replays channel 0's order, or copies it), so every
		 * chain crosses once in the packet engine and in the model's ramp the flow engine
		 * takes (ft__model_chain_net_hops()). Before, the model counted 2 crossings once
		 * two channels launched: 1 MiB flow 177.81 us against packet 130.96 (-26.3 %),
		 * 16 MiB 896.37 against 846.06 (-5.6 %); the reduce (2 crossings) agreed */
		{ PCIE_1NIC, "broadcast, proto: ll128", "1MiB", 0.02, NULL },
		{ PCIE_1NIC, "broadcast, proto: ll128", "16MiB", 0.01, NULL },
		{ PCIE_1NIC, "reduce, proto: ll128", "1MiB", 0.01, NULL },
		/* GPUDirect-TCPX and TCPXO: an LL or LL128 chain's messages are its pipeline, the
		 * model's ramp not added on top (pkt_tree.c chain_ramp_own(); on other
		 * transports it never was). Before, both were paid: gcp-a3-high:2 LL broadcast 1
		 * MiB 92.47 us against 68.81 (+34.4 %), its reduce at 64 KiB 75.11 against 57.72
		 * (+30.1 %), LL128 16 MiB 610.94 against 426.28 (+43.3 %); gcp-a3-mega:2 LL128 1
		 * MiB 90.93 against 72.01 (+26.3 %), 16 MiB reduce 332.77 against 235.79 */
		{ "gcp-a3-high:2", "broadcast, proto: ll", "1MiB", 0.02, NULL },
		{ "gcp-a3-high:2", "reduce, proto: ll", "64KiB", 0.03, NULL },
		/* LL128's first grain crosses a hop inside a node at the channel's share of
		 * NVLink (model/pipeline.c ll128_ramp()), as the packet engine's chain passes it
		 * on; before, the model's ramp, which the flow engine takes whole, moved it at
		 * the network's share: gcp-a3-high:2 1 MiB 84.61 us against 98.73 (-14.3 %), 16
		 * MiB -3.3 %, gcp-a3-mega:2 1 MiB -2.9 %. A hop inside a node pays its path
		 * inside hwLat (above, dgx-h100:2 at 4 KiB): gcp-a3-mega:2 64 KiB +9.5 % -> -0.6
		 * %, 1 MiB +3.4 % -> -0.2 %; gcp-a3-high:2 64 KiB +6.6 % -> -3.1 %, 1 MiB +0.1 %
		 * -> -2.8 % (reduce +0.5 -> -2.4 %): the same 14 hops came back on both A3s, and
		 * what gcp-a3-high:2 is left (its 4 NICs of 25 GB/s; gcp-a3-mega:2's 8 agree) is
		 * the crossings' step, the model's at a channel's share of the network (5.86
		 * GB/s) where the packet engine's copies share a NIC: not traced */
		{ "gcp-a3-high:2", "broadcast, proto: ll128", "1MiB", 0,
		  "LL128 on gcp-a3-high:2 at 1 MiB: -2.8 %, its crossings' step", -0.033, -0.023 },
		{ "gcp-a3-high:2", "reduce, proto: ll128", "1MiB", 0,
		  "LL128 on gcp-a3-high:2 at 1 MiB: -2.4 %, its crossings' step", -0.029, -0.019 },
		{ "gcp-a3-high:2", "broadcast, proto: ll128", "16MiB", 0.01, NULL },
		{ "gcp-a3-high:2", "broadcast, proto: ll128", "64KiB", 0,
		  "LL128 on gcp-a3-high:2 at 64 KiB: -3.1 %, its crossings' step", -0.036,
		  -0.026 },
		{ "gcp-a3-mega:2", "reduce, proto: ll", "1MiB", 0.02, NULL },
		{ "gcp-a3-mega:2", "broadcast, proto: ll128", "1MiB", 0.01, NULL },
		{ "gcp-a3-mega:2", "broadcast, proto: ll128", "64KiB", 0.01, NULL },
		{ "gcp-a3-mega:2", "reduce, proto: ll128", "16MiB", 0.02, NULL },
		/* LL over PCIe: a hop inside a node takes back its round's time at the hop, its
		 * path and its 8 KiB on the wire at 24 GB/s (pkt_setup.c chain_round_bytes()), not
		 * its path alone (0.15 of 0.49 us). Before, pcie-l40s:2's broadcast of 4 KiB 29.75
		 * us against 24.74 (+20.3 %), its reduce of 64 KiB 51.90 against 46.34 (+12.0 %);
		 * pcie-1nic's broadcast 4 KiB +9.7 %, 64 KiB +8.1 % */
		{ "pcie-l40s:2", "broadcast, proto: ll", "4KiB", 0.02, NULL },
		{ "pcie-l40s:2", "reduce, proto: ll", "64KiB", 0.025, NULL },
		{ PCIE_1NIC, "broadcast, proto: ll", "4KiB", 0.03, NULL },
		{ PCIE_1NIC, "broadcast, proto: ll", "64KiB", 0.01, NULL },
		/* LL on forced channels runs on the launched ones too (chain_channels():
		 * topoGetAlgoInfo() drops channels from the forced count as from NCCL's own, 1
		 * of 2 or 4 at 64 KiB). Before, every forced channel ran its share: the broadcast
		 * on 2 channels 56.86 us against 41.13 (+38.2 %), on 4 80.93 against 58.26
		 * (+38.9 %); the reduce 57.35 against 46.34 and 80.85 against 68.68 */
		{ "pcie-l40s:2", "broadcast, proto: ll, channels: 2", "64KiB", 0.02, NULL },
		{ "pcie-l40s:2", "broadcast, proto: ll, channels: 4", "64KiB", 0.02, NULL },
		{ "pcie-l40s:2", "reduce, proto: ll, channels: 2", "64KiB", 0.025, NULL },
		{ "pcie-l40s:2", "reduce, proto: ll, channels: 4", "64KiB", 0.02, NULL },
		/* From 256 KiB NCCL keeps all 4 forced channels (the model's count: 2 at 128 KiB,
		 * 4 at 256 KiB), and so does the chain: on fewer the packet engine would run
		 * the op's bytes at a fraction of the channels' rate. What is left, +7.2 % and
		 * +5.9 %, is queueing: the channels' rings share the CPU link and the GPUs'
		 * PCIe uplinks (3 to 5 flows a link), each channel's round of 8 KiB on the wire
		 * leaves at its pace together with the others', and they queue there (fct p50
		 * 0.82 us against 0.49 alone, p99 3.1x), where the flow engine shares the link's
		 * rate with no queue. On 1 forced channel the engines agree (+0.3 % at 256 KiB,
		 * +0.1 % at 1 MiB), on 2 +4.9 % at 256 KiB: left (sim.md, Limits) */
		{ "pcie-l40s:2", "broadcast, proto: ll, channels: 4", "256KiB", 0,
		  "LL on 4 forced channels at 256 KiB, all launched: +7.2 %, the rounds queue "
		  "on shared links", 0.067, 0.077 },
		{ "pcie-l40s:2", "broadcast, proto: ll, channels: 4", "1MiB", 0,
		  "LL on 4 forced channels at 1 MiB, all launched: +5.9 %, the rounds queue on "
		  "shared links", 0.054, 0.064 },
		{ "pcie-l40s:2", "broadcast, proto: ll, channels: 1", "256KiB", 0.01, NULL },
		{ "pcie-l40s:2", "broadcast, proto: ll, channels: 1", "1MiB", 0.01, NULL },
		/* The LL128 tree all-reduce: its hops inside a node pass lines on as the chain's
		 * (pkt_tree.c ft__pk_lines(), all_reduce.h runTreeSplit), pay their path inside
		 * hwLat[NVLINK][TREE][LL128] (walk_back_s(); test_tree_ll128_hop_once) and its
		 * last loop a period at the kernel's cap (tree_last_loop()). Before, whole steps
		 * a hop, their path paid beside hwLat: dgx-h100:2 4 KiB 56.93 us against 52.47
		 * (+8.5 %), 64 KiB +6.5 %; dgx-a100:2 4 KiB +4.9 %, 256 KiB -7.4 %; gcp-a3-mega:2
		 * 4 KiB +13.7 %, 64 KiB +13.7 %; aws-p5:2 64 MiB +8.4 %; dgx-h100:4 4 KiB +7.5 % */
		{ "dgx-h100:2", "all_reduce, algo: tree, proto: ll128", "4KiB", 0.025, NULL },
		{ "dgx-h100:2", "all_reduce, algo: tree, proto: ll128", "64KiB", 0.02, NULL },
		{ "dgx-h100:2", "all_reduce, algo: tree, proto: ll128", "1MiB", 0.02, NULL },
		{ "dgx-h100:2", "all_reduce, algo: tree, proto: ll128", "64MiB", 0.01, NULL },
		{ "dgx-a100:2", "all_reduce, algo: tree, proto: ll128", "4KiB", 0.03, NULL },
		{ "dgx-a100:2", "all_reduce, algo: tree, proto: ll128", "256KiB", 0.03, NULL },
		{ "gcp-a3-mega:2", "all_reduce, algo: tree, proto: ll128", "4KiB", 0.03, NULL },
		{ "gcp-a3-mega:2", "all_reduce, algo: tree, proto: ll128", "64KiB", 0.025, NULL },
		{ "aws-p5:2", "all_reduce, algo: tree, proto: ll128", "64MiB", 0.01, NULL },
		{ "dgx-h100:4", "all_reduce, algo: tree, proto: ll128", "4KiB", 0.01, NULL },
		/* The LL tree all-reduce: its lines passed on as the LL128 tree's (pkt_tree.c
		 * ft__pk_lines()), its last loop a period at the kernel's cap
		 * (tree_last_loop()), and each crossing's step at the channel's LL pace again
		 * past it (ll_cross_depths(), the model's ll_ramp()). Before, whole steps a hop
		 * and no pace on a connection of one message: dgx-h100:2 4 KiB 33.65 us
		 * against 27.68 (+21.6 %), 64 KiB +11.9 %, 1 MiB -37.2 %, 4 MiB -17.0 %;
		 * dgx-h100:4 1 MiB -41 % */
		{ "dgx-h100:2", "all_reduce, algo: tree, proto: ll", "4KiB", 0.025, NULL },
		{ "dgx-h100:2", "all_reduce, algo: tree, proto: ll", "64KiB", 0.01, NULL },
		{ "dgx-h100:2", "all_reduce, algo: tree, proto: ll", "1MiB", 0.035,
		  "LL tree at 1 MiB: -3.2 %, a crossing's ramp in whole periods of the cap" },
		{ "dgx-h100:2", "all_reduce, algo: tree, proto: ll", "4MiB", 0.01, NULL },
		{ "dgx-h100:2", "all_reduce, algo: tree, proto: ll", "16MiB", 0.01, NULL },
		{ "dgx-h100:4", "all_reduce, algo: tree, proto: ll", "1MiB", 0.01, NULL },
		{ "aws-p5:2", "all_reduce, algo: tree, proto: ll", "1MiB", 0.03, NULL },
		/* at 256 KiB a connection is 5 messages of 5.9 us at the cap, and a crossing's
		 * ramp (the model's 8.8 us) is 1.5 of them: whole periods miss it (sim.md,
		 * Limits) */
		{ "dgx-h100:2", "all_reduce, algo: tree, proto: ll", "256KiB", 0,
		  "LL tree on dgx-h100:2 at 256 KiB: -16.0 %, a crossing's ramp in whole periods",
		  -0.17, -0.15 },
		/* gcp-a3-high:2 (4 NICs of 25 GB/s, two copies on each) runs under the flow
		 * engine where its chains do too (rows above): its crossings' step, not traced */
		{ "gcp-a3-high:2", "all_reduce, algo: tree, proto: ll128", "256KiB", 0,
		  "LL128 tree on gcp-a3-high:2 at 256 KiB: -6.5 %, its crossings' step", -0.07,
		  -0.06 },
		/* CollNetDirect in two loops (4 DGX H100 with SHARP, 8 MiB): the scatter's loop 1
		 * starts after nv periods, the kernel's first round, as in three and more
		 * (pkt_tree.c collnet_fill()); before, two loops kept the pace's 1 period: 107.02
		 * us against the flow engine's 95.59 (+12.0 %, the model 93.94). What is left is
		 * the fill and drain at the links' rates (sim.md, Limits; -6.5 % at 4 MiB) */
		{ SHARP_4, "all_reduce, algo: collnet_direct", "8MiB", 0,
		  "CollNetDirect 8 MiB: -6.9 %, its fill and drain at the links' rates", -0.075,
		  -0.06 },
		/* one pcie-l40s node: +10.3 % before (16.32 against 14.79 us), -5.8 % since, as
		 * one DGX H100's LL chain at 64 KiB (above); not traced (sim.md, Limits) */
		{ "pcie-l40s:1", "broadcast, proto: ll", "4KiB", 0,
		  "LL on one pcie-l40s node at 4 KiB: -5.8 %", -0.07, -0.045 },
	};

	(void)state;
	for (size_t i = 0; i < FT_ARRAY_SIZE(row); i++) {
		char op[96];
		double pkt, fl;

		/* (a row past 3 % names its reason) */
		assert_true((row[i].band <= 0.03 && row[i].lo >= row[i].hi) || row[i].why != NULL);
		snprintf(op, sizeof(op), "{op: %s, size: %s}", row[i].op, row[i].size);
		both_engines(row[i].spec, row[i].op, row[i].size, op, &pkt, &fl);
		if (row[i].lo < row[i].hi) {
			if (!(pkt / fl - 1 >= row[i].lo && pkt / fl - 1 <= row[i].hi))
				fail_msg("%s %s %s: packet %.2f us, flow %.2f us (%+.1f %%), window "
				         "%+.1f to %+.1f %%: %s: the gap moved, the docs follow it",
				         row[i].spec, row[i].op, row[i].size, pkt, fl,
				         (pkt / fl - 1) * 100, row[i].lo * 100, row[i].hi * 100,
				         row[i].why);
		} else if (!(fabs(pkt - fl) <= row[i].band * fl))
			fail_msg("%s %s %s: packet %.2f us, flow %.2f us, band %.0f %%%s%s",
			         row[i].spec, row[i].op, row[i].size, pkt, fl, row[i].band * 100,
			         row[i].why ? ": " : "", row[i].why ? row[i].why : "");
	}
}

/* The packet engine's time, us, for the 4 KiB LL128 op @job on 2 DGX H100 whose NVLink
 * hop (a GPU to the NVSwitch) has latency @lat. */
static double
ll128_at(const char *job, const char *lat)
{
	char spec[128];

	snprintf(spec, sizeof(spec), "{nodes: {preset: dgx-h100, count: 2, nvlink: {latency: %s}}}",
	         lat);
	return time_on(spec, job, "packet");
}

/* The LL128 chain broadcast of 4 KiB (ll128_at()). */
static double
ll128_chain_at(const char *lat)
{
	return ll128_at("{op: broadcast, algo: ring, proto: ll128, size: 4KiB}", lat);
}

/*
 * An LL128 chain's hop inside a node pays NCCL's per-hop latency once, its path in it:
 * the barrier charges hwLat[NVLINK][RING][LL128] (1.9 us, NVIDIA/nccl v2.27.7-1
 * src/graph/tuning.cc, the hop's whole latency as NCCL measured it) and takes back what
 * each of the 14 steps inside the nodes walks past the grain's pass at the channel's
 * share (the model's ll128_ramp() term, the pipeline's grain_s), never more than the
 * charge (pkt_setup.c walk_back_s()). So on 2 DGX H100 at 4 KiB the op does not grow
 * while a hop's walk stays under that: NVLink's latency (the path through the NVSwitch,
 * the preset's 0.6 us) 0.3 -> 0.8 us moves it by 0 to -0.5 us (the copy that crosses
 * twice walks 13 hops where 14 come back); past the charge each of the longest copy's
 * 14 hops pays its walk alone: 2.5 -> 3 us adds 14 x 0.5 us. Before, the path was paid
 * beside hwLat at any latency (49.10 -> 55.83 us from 0.3 to 0.8 us; at the
 * preset's 0.6, 53.03 us where the flow engine runs 48.12).
 */
static void
test_chain_ll128_hop_once(void **state)
{
	double lo = ll128_chain_at("0.3us"), hi = ll128_chain_at("0.8us");
	double over = ll128_chain_at("2.5us"), more = ll128_chain_at("3us");

	(void)state;
	if (!(hi - lo <= 0.05 && hi - lo >= -0.55))
		fail_msg("NVLink 0.3 -> 0.8 us: %.2f -> %.2f us, not within hwLat", lo, hi);
	if (!(fabs(more - over - 14 * 0.5) <= 0.05))
		fail_msg("NVLink 2.5 -> 3 us: %.2f -> %.2f us, not 14 hops x 0.5 us", over, more);
}

/* The LL128 tree all-reduce of 4 KiB (ll128_at()). */
static double
ll128_tree_at(const char *lat)
{
	return ll128_at("{op: all_reduce, algo: tree, proto: ll128, size: 4KiB}", lat);
}

/*
 * An LL128 tree's hop inside a node pays NCCL's per-hop latency once, its path in it, as
 * the LL128 chain's (test_chain_ll128_hop_once): its ranks pass lines on as their flags
 * come (pkt_tree.c ft__pk_lines(); NVIDIA/nccl v2.27.7-1 src/device/all_reduce.h
 * runTreeSplit, prims_ll128.h), the barrier charges hwLat[NVLINK][TREE][LL128] (1.25 us,
 * src/graph/tuning.cc) on each of the 14 steps inside the nodes (7 up, 7 down) and takes
 * back what each hop walks (its path and a grain of 9,600 bytes at the link's rate) past
 * the model's grain at the channel's share (0.19 us at 4 KiB), never more than the charge
 * (pkt_setup.c walk_back_s()). So the op does not move while NVLink's latency goes 0.3 ->
 * 0.8 us, and past the charge (a walk over 1.25 + 0.19 us) each of the critical copy's 14
 * hops pays its walk alone: 2 -> 2.5 us adds 14 x 0.5 us. Before, every hop paid its path
 * beside hwLat (0.3 -> 0.8 us: 52.73 -> 59.73 us, 14 x 0.5).
 */
static void
test_tree_ll128_hop_once(void **state)
{
	double lo = ll128_tree_at("0.3us"), hi = ll128_tree_at("0.8us");
	double over = ll128_tree_at("2us"), more = ll128_tree_at("2.5us");

	(void)state;
	print_message("# LL128 tree 4 KiB: NVLink 0.3 / 0.8 / 2 / 2.5 us: %.2f %.2f %.2f %.2f us\n",
	              lo, hi, over, more);
	if (!(fabs(hi - lo) <= 0.05))
		fail_msg("NVLink 0.3 -> 0.8 us: %.2f -> %.2f us, not within hwLat", lo, hi);
	if (!(fabs(more - over - 14 * 0.5) <= 0.05))
		fail_msg("NVLink 2 -> 2.5 us: %.2f -> %.2f us, not 14 hops x 0.5 us", over, more);
}

/* The packet engine's time of the last of @ops (YAML flow items, one a line) run one after
 * another in one job on cluster @spec, us; the run's events into *@nevents. */
static double
last_of_ops(const char *spec, const char *const *ops, size_t nops, uint64_t *nevents)
{
	char text[1024];
	struct ft_scenario *sc = NULL;
	struct ft_sim_overrides ov;
	struct ft_sim_report rep;
	struct ft_error err = { 0 };
	size_t n;
	double t;

	n = (size_t)snprintf(text, sizeof(text), "name: t\ncluster: %s\njobs:\n  - name: a\n"
	                     "    ops:\n", spec);
	for (size_t i = 0; i < nops && n < sizeof(text); i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "      - %s\n", ops[i]);
	assert_true(n < sizeof(text));
	assert_int_equal(ft_scenario_load_buffer(text, strlen(text), "t.yaml", &sc, &err), 0);
	ft_sim_overrides_init(&ov);
	ov.engine = "packet";
	ft_sim_report_init(&rep);
	if (ft_scenario_run(sc, &ov, NULL, &rep, &err) != 0)
		fail_msg("%s: %s", spec, err.msg);
	assert_int_equal(ft_run_nrows(&rep.run), nops);
	t = ((const struct ft_result_row *)ft_vec_at(&rep.run.rows, nops - 1))->time_us;
	*nevents = rep.c.nevents;
	ft_sim_report_release(&rep);
	ft_scenario_free(sc);
	return t;
}

/*
 * One node of GPUDirect-TCPX/O runs as one DGX H100 (the same H100s under NVSwitches): no
 * step of its ops crosses the network, so none takes the model's ramp the engine adds
 * after unpaced stages across such nodes (pkt_setup.c spans_nodes(), pipe_paid()), and
 * none of its flows is TCP (pkt_int.h pk_flow_tcp(): only a flow that leaves by a NIC).
 * Before the ramp's rule, one gcp-a3-high or gcp-a3-mega node paid it: the tree
 * all-reduce in LL128 at 4 KiB 43.79 us against one DGX H100's 40.00 (the flow engine
 * 37.01), at 64 KiB 46.81 against 41.76; the LL128 chain at 1 MiB 40.81 against 36.71
 * before it took its ramp as its own (chain_ramp_own()). Before the flows' rule, every
 * NVLink flow opened a TCP connection and left in slow start (an initial window of 10
 * packets, its ACK clock): the Simple broadcast at 1 MiB 67.99 us against 53.19, the
 * tree all-reduce in LL128 at 1 MiB 61.52 against 58.25, and 61.26 after a 4 KiB one in
 * the same job (the connections' windows grown by the op before).
 */
static void
test_tcpx_one_node(void **state)
{
	static const char *const ops[] = {
		"{op: all_reduce, algo: tree, proto: ll128, size: 4KiB}",
		"{op: all_reduce, algo: tree, proto: ll128, size: 64KiB}",
		"{op: broadcast, algo: ring, proto: ll128, size: 1MiB}",
		"{op: all_reduce, algo: tree, proto: ll128, size: 1MiB}",
		"{op: broadcast, algo: ring, proto: simple, size: 1MiB}",
	};
	static const char *const seq[] = {
		"{op: all_reduce, algo: tree, proto: ll128, size: 4KiB}",
		"{op: all_reduce, algo: tree, proto: ll128, size: 1MiB}",
	};
	static const char *const specs[] = { "gcp-a3-high:1", "gcp-a3-mega:1" };
	uint64_t ref_ev;
	double ref;

	(void)state;
	for (size_t o = 0; o < FT_ARRAY_SIZE(ops); o++) {
		ref = time_on("dgx-h100:1", ops[o], "packet");
		for (size_t s = 0; s < FT_ARRAY_SIZE(specs); s++) {
			double t = time_on(specs[s], ops[o], "packet");

			if (!(fabs(t - ref) <= 1e-9 * ref))
				fail_msg("%s %s: packet %.2f us, one DGX H100 %.2f us", specs[s],
				         ops[o], t, ref);
		}
	}
	ref = last_of_ops("dgx-h100:1", seq, FT_ARRAY_SIZE(seq), &ref_ev);
	for (size_t s = 0; s < FT_ARRAY_SIZE(specs); s++) {
		uint64_t ev;
		double t = last_of_ops(specs[s], seq, FT_ARRAY_SIZE(seq), &ev);

		if (!(fabs(t - ref) <= 1e-9 * ref))
			fail_msg("%s: 1 MiB after 4 KiB: packet %.2f us, one DGX H100 %.2f us",
			         specs[s], t, ref);
		/* nor any event a DGX H100 has not: no ACK of a flow inside the node
		 * (send_ack(); before, one every PK_ACK_SEG packets, which nothing read) */
		if (ev != ref_ev)
			fail_msg("%s: 1 MiB after 4 KiB: %llu events, one DGX H100 %llu", specs[s],
			         (unsigned long long)ev, (unsigned long long)ref_ev);
	}
}

/*
 * An LL ring all-reduce, all-gather and reduce-scatter inside one node agrees with the
 * flow engine within 5 % from 8 KiB to 4 MiB, an all-reduce across nodes within 1 to 2 %
 * (one pcie-l40s node within 4.5 %). (1) It runs on the channels NCCL launches
 * at its size (pkt_nccl.c ring_reps(): the model's 24 on one DGX H100 at 1 MiB, where the
 * schedule has one ring), each channel's part one loop of 14 steps. Before, the one ring
 * carried 1 MiB in four loops of 32 KiB steps, each loop's 14 steps walked in series (the
 * next loop's first message after the last one's on the connection): 56.99 us against
 * 28.61 (+99.2 %), 4 MiB 181.18 against 67.66, all-gather 1 MiB 30.90 against 17.91.
 * (2) Its steps' walk past the cap's span comes back from their overhead (pkt_setup.c
 * walk_back_s()): at 8 KiB the 14 steps' paths (0.6 us each through the NVSwitch)
 * and NCCL's per-step latency were both paid, 23.48 us against 17.51 (+34.1 %). Both hold
 * where no step crosses the network, the 18 nodes of one GB200 NVL72 NVLink domain too
 * (72 ranks, 142 steps: 8 KiB 177.04 us against 93.84, 1 MiB 182.74 against 153.67).
 * (3) Across nodes over the network its steps pay their latency once too, those inside a
 * node as well as those between nodes (pkt_setup.c walk_back_s(): the walk past the span,
 * at most each step's min(charge, path)), and the op waits for the proxy's floor as the
 * flow engine's does (proxy_paid()). Before, 2 DGX H100 ran 8 KiB in 56.77 us against 60.00
 * (the floor) and 512 KiB and 1 MiB 2.7 % under the flow engine (its steps between nodes
 * took their walk back under the bytes' span, which held it); pcie-l40s:2 at 8 KiB ran
 * 48.39 against 60.00; one pcie-l40s node at 8 KiB +6.2 %, its ring's hops over the CPU
 * (0.45 us) counted at the shortest hop's path (0.15). Their bands hold those errors out.
 * The proxy's floor holds 2 DGX H100 at 8 and 64 KiB (60.00 us, NCCL's price 40.89), so
 * the take-back at a small size shows where NCCL's price is above the floor: aws-p5:2 (EFA,
 * the plugin's 75 us a network step) at 8 KiB, 207.95 us before against 190.57 (+9.1 %),
 * the in-node walk paid twice, now 192.51 (+1.0 %); GPUDirect-TCPX (gcp-a3-mega:2), whose
 * pipeline terms were paid before, 1 MiB 88.69 against 91.11 (-2.7 %), now 90.09.
 * Built lazily or whole, the same time and packets.
 */
static void
test_ll_ring_engines_agree(void **state)
{
	static const struct {
		const char *spec, *op, *size;
		double band;
	} row[] = {
		{ "dgx-h100:1", "all_reduce", "8KiB", 0.05 },
		{ "dgx-h100:1", "all_reduce", "64KiB", 0.05 },
		{ "dgx-h100:1", "all_reduce", "256KiB", 0.05 },
		{ "dgx-h100:1", "all_reduce", "1MiB", 0.05 },
		{ "dgx-h100:1", "all_reduce", "4MiB", 0.05 },
		{ "dgx-h100:1", "all_gather", "8KiB", 0.05 },
		{ "dgx-h100:1", "all_gather", "1MiB", 0.05 },
		{ "dgx-h100:1", "reduce_scatter", "4MiB", 0.05 },
		{ "dgx-a100:1", "all_reduce", "8KiB", 0.05 },
		{ "gb200-nvl72:18", "all_reduce", "8KiB", 0.05 },
		{ "gb200-nvl72:18", "all_reduce", "1MiB", 0.05 },
		{ "dgx-h100:2", "all_reduce", "8KiB", 0.01 },
		{ "dgx-h100:2", "all_reduce", "64KiB", 0.01 },
		{ "dgx-h100:2", "all_reduce", "512KiB", 0.015 },
		{ "dgx-h100:2", "all_reduce", "1MiB", 0.02 },
		{ "dgx-a100:2", "all_reduce", "1MiB", 0.02 },
		{ "pcie-l40s:2", "all_reduce", "8KiB", 0.01 },
		{ "pcie-l40s:1", "all_reduce", "8KiB", 0.045 },
		{ "aws-p5:2", "all_reduce", "8KiB", 0.015 },
		{ "gcp-a3-mega:2", "all_reduce", "1MiB", 0.02 },
	};

	(void)state;
	for (size_t i = 0; i < FT_ARRAY_SIZE(row); i++)
		ring_agrees(row[i].spec, row[i].op, "ll", row[i].size, row[i].band);
	lazy_is_whole("dgx-h100:1", "{op: all_reduce, algo: ring, proto: ll, size: 1MiB}");
}

/*
 * LL128 and Simple rings take the LL ring's rules (pkt_setup.c walk_back_s(), proxy_paid();
 * pkt_nccl.c ring_reps()): they run on the channels NCCL launches at their size, each
 * step pays its latency once, the walk past the span of the bytes coming back from the
 * barrier (the cap's span, or where no cap binds, a Simple ring, the busiest link's), and
 * the op waits for the proxy's floor. Within 3 % of the flow engine where it and the model
 * agree. Before, the walk of every step inside a node was paid in the pipeline and in the
 * barrier's hwLat[NVLINK] (0.6 us a step through the NVSwitch, 28 steps on 2 DGX H100, 14
 * on one), and the schedule's one ring on one DGX H100 carried a whole step a message,
 * one after another: 2 DGX H100 all-reduce LL128 8 KiB 91.96 us against 76.54 (+20.1 %),
 * 1 MiB 94.03 against 81.74, Simple 8 KiB 148.36 against 132.88, 1 MiB 149.97 against
 * 137.27; one DGX H100 LL128 8 KiB 49.04 against 42.24, 64 MiB 506.18 against 395.79
 * (+27.9 %), Simple 1 MiB 69.50 against 61.70. Built lazily or whole, the same time and
 * packets.
 */
static void
test_ring_engines_agree(void **state)
{
	static const struct {
		const char *spec, *op, *proto, *size;
	} row[] = {
		{ "dgx-h100:1", "all_reduce", "ll128", "8KiB" },
		{ "dgx-h100:1", "all_reduce", "ll128", "1MiB" },
		{ "dgx-h100:1", "all_reduce", "ll128", "64MiB" },
		{ "dgx-h100:1", "all_reduce", "simple", "8KiB" },
		{ "dgx-h100:1", "all_reduce", "simple", "1MiB" },
		{ "dgx-h100:2", "all_reduce", "ll128", "8KiB" },
		{ "dgx-h100:2", "all_reduce", "ll128", "1MiB" },
		{ "dgx-h100:2", "all_reduce", "simple", "8KiB" },
		{ "dgx-h100:2", "all_reduce", "simple", "1MiB" },
		{ "dgx-h100:2", "all_reduce", "simple", "4MiB" },
		{ "dgx-h100:2", "all_reduce", "simple", "64MiB" },
		{ "dgx-h100:2", "all_gather", "ll128", "8KiB" },
		{ "dgx-h100:2", "reduce_scatter", "simple", "1MiB" },
		{ "dgx-a100:2", "all_reduce", "ll128", "8KiB" },
	};

	(void)state;
	for (size_t i = 0; i < FT_ARRAY_SIZE(row); i++)
		ring_agrees(row[i].spec, row[i].op, row[i].proto, row[i].size, 0.03);
	lazy_is_whole("dgx-h100:1", "{op: all_reduce, algo: ring, proto: simple, size: 1MiB}");
}

/*
 * The links' span of a ring where no cap binds counts each connection's bytes in shares on
 * its QPs, each on its lane's NIC (pkt_setup.c link_span_s()), as the engine sends them:
 * an AWS P5 GPU's connection across nodes spreads over its EFA NICs (SRD's spraying takes
 * them in turn). Counted on one NIC whole, the span at 512 KiB (20.2 us) held the steps'
 * walk (28 x 0.6 us inside the nodes, 2 x 1.4 between them) and none of it came back: LL128
 * 250.47 us against the flow engine's 227.37 (+10.2 %), Simple 306.24 against 283.36
 * (+8.1 %); on its NICs' shares (10.1 us) the walk past it comes back, 241.66 (+6.3 %) and
 * 296.78 (+4.7 %). Within 7 %.
 */
static void
test_ring_span_nic_lanes(void **state)
{
	static const char *const proto[] = { "ll128", "simple" };

	(void)state;
	for (size_t i = 0; i < FT_ARRAY_SIZE(proto); i++)
		ring_agrees("aws-p5:2", "all_reduce", proto[i], "512KiB", 0.07);
}

/*
 * An LL chain where NCCL launches fewer channels than the schedule has copies runs on the
 * launched ones alone (pkt_tree.c chain_channels(), keep): 2 DGX A100 at 64 KiB launch one
 * of 12 (the model's --explain: "1 channel launched, chunk 32768 B, 2 loops"), so the
 * broadcast crosses between the nodes on channel 0's ring only, one NIC of each node and
 * their two links to the leaf, 64 KiB of data (128 KiB on the wire in LL, headers beside)
 * each way it goes. Before, each of the schedule's 8 copies carried 8 KiB and crossed on
 * its own rail: 16 of the leaf's links carried bytes.
 */
static void
test_chain_ll_launched_channels(void **state)
{
	struct ft_sim_report rep;
	uint32_t used = 0;

	(void)state;
	run_on("dgx-a100:2", "{op: broadcast, size: 64KiB}", &rep);
	for (size_t i = 0; i < rep.ports.len; i++) {
		const struct ft_sim_hot_link *h = ft_vec_at(&rep.ports, i);

		if (h->tier != 1 || !(h->stat.bytes > 0))
			continue;
		used++;
		/* every crossing link carries the whole op: 2 x 64 KiB of lines, and its
		 * packets' headers (at most 1 %) */
		if (!(h->stat.bytes >= 2.0 * 65536 && h->stat.bytes <= 2.0 * 65536 * 1.01))
			fail_msg("%s: %.0f bytes, expected 131072 and headers", h->name,
			         h->stat.bytes);
	}
	ft_sim_report_release(&rep);
	assert_int_equal(used, 2);
}

/*
 * An LL chain's rank passes its rounds on at its channel's LL pace after a crossing too
 * (pkt_tree.c rank_pace(), NVIDIA/nccl src/device/prims_ll.h LLGenericOp(): the rank's
 * threads read, flag-check and store each line themselves). On 2 DGX A100 at 64 KiB the
 * broadcast runs on channel 0 alone, 16 rounds a hop: the hop between the nodes waits for
 * each step's last round (wait_msg()), then sends the step's 8 rounds; they leave as far
 * apart as the root's own rounds (the cap's pace, one round at one channel's pace), and
 * the rank after the crossing forwards them so too: no nearer than the root's period (a
 * pace missed) and, inside a step (its rounds already there), no further than 1 % past it
 * (a round that waits for more than its pace: its own end, or a period paid twice). The
 * first round of a step may wait for the step too (wait_msg()). That the period itself is
 * the cap's, test_chain_engines_agree holds (a period twice as long fails there, not
 * here: the root's rounds take it too). Before, the crossing sent each step's rounds at
 * the links' rate (0.17 to 0.34 us apart where the root's are 0.68) and the test fails at
 * its second round.
 */
static void
test_chain_ll_rank_pace(void **state)
{
	static const char *const hops[][2] = { { "n0.gpu0", "n0." }, { "n0.", "n1." },
		                               { "n1.gpu0", "n1." } };
	double start[3][16], root;
	uint32_t n[3] = { 0 };
	struct ft_sim_report rep;
	char text[256];
	struct ft_scenario *sc = NULL;
	struct ft_sim_overrides ov;
	struct ft_error err = { 0 };

	(void)state;
	snprintf(text, sizeof(text), "name: t\ncluster: dgx-a100:2\njobs:\n  - name: a\n"
	         "    ops:\n      - {op: broadcast, size: 64KiB}\n");
	assert_int_equal(ft_scenario_load_buffer(text, strlen(text), "t.yaml", &sc, &err), 0);
	ft_sim_overrides_init(&ov);
	ov.engine = "packet";
	ov.list_flows = 1000;
	ft_sim_report_init(&rep);
	if (ft_scenario_run(sc, &ov, NULL, &rep, &err) != 0)
		fail_msg("%s", err.msg);
	ft_scenario_free(sc);
	/* the root's hop (from n0.gpu0), the crossing (n0 to n1), the hop after it (from
	 * n1.gpu0), each flow's start in the order listed (a connection's messages in turn) */
	for (size_t i = 0; i < rep.flows.len; i++) {
		const struct ft_sim_flow_text *f = ft_vec_at(&rep.flows, i);

		for (size_t h = 0; h < FT_ARRAY_SIZE(hops); h++) {
			if (strncmp(f->src, hops[h][0], strlen(hops[h][0])) != 0 ||
			    strncmp(f->dst, hops[h][1], strlen(hops[h][1])) != 0)
				continue;
			assert_true(n[h] < 16);
			start[h][n[h]++] = f->row.start_s;
		}
	}
	ft_sim_report_release(&rep);
	for (size_t h = 0; h < FT_ARRAY_SIZE(hops); h++)
		assert_int_equal(n[h], 16);
	root = (start[0][15] - start[0][0]) / 15;
	assert_true(root > 0);
	for (size_t h = 1; h < FT_ARRAY_SIZE(hops); h++)
		for (uint32_t m = 1; m < 16; m++)
			if (!(start[h][m] - start[h][m - 1] >= 0.99 * root &&
			      (m % 8 == 0 || start[h][m] - start[h][m - 1] <= 1.01 * root)))
				fail_msg("%s -> %s round %u: %.3f us after round %u, the root's "
				         "rounds %.3f us apart", hops[h][0], hops[h][1], m,
				         (start[h][m] - start[h][m - 1]) * 1e6, m - 1, root * 1e6);
}

/* The distinct connections between nodes of @op on @spec in the packet engine, "src>dst"
 * each, into @out (up to @max); their count. */
static size_t
net_conns(const char *spec, const char *op, char (*out)[112], size_t max)
{
	struct ft_sim_report rep;
	char text[256];
	struct ft_scenario *sc = NULL;
	struct ft_sim_overrides ov;
	struct ft_error err = { 0 };
	size_t n = 0;

	snprintf(text, sizeof(text), "name: t\ncluster: %s\njobs:\n  - name: a\n    ops:\n"
	         "      - %s\n", spec, op);
	assert_int_equal(ft_scenario_load_buffer(text, strlen(text), "t.yaml", &sc, &err), 0);
	ft_sim_overrides_init(&ov);
	ov.engine = "packet";
	ov.list_flows = 1u << 20;
	ft_sim_report_init(&rep);
	if (ft_scenario_run(sc, &ov, NULL, &rep, &err) != 0)
		fail_msg("%s", err.msg);
	ft_scenario_free(sc);
	for (size_t i = 0; i < rep.flows.len; i++) {
		const struct ft_sim_flow_text *f = ft_vec_at(&rep.flows, i);
		char c[112];
		size_t k;

		if (strncmp(f->src, f->dst, 3) == 0) /* "nK." the same node */
			continue;
		snprintf(c, sizeof(c), "%s>%s", f->src, f->dst);
		for (k = 0; k < n && strcmp(out[k], c) != 0; k++)
			;
		if (k == n && n < max)
			memcpy(out[n++], c, sizeof(c));
	}
	ft_sim_report_release(&rep);
	return n;
}

/* Whether connection @want ("src>dst") is among the @n of @c. */
static bool
has_conn(char (*c)[112], size_t n, const char *want)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(c[i], want) == 0)
			return true;
	return false;
}

/*
 * Channels forced on nodes of one NIC (NCCL_MIN_NCHANNELS) run channel 0's ring: NCCL's
 * search replays channel 0's GPU order on the one NIC, or the others copy it
 * (src/graph/search.cc ncclTopoSearchRecNet() FORCED_ORDER_REPLAY; sim/nccl.c ring_turn()),
 * so every channel's ring enters a node at GPU 0 and leaves from GPU 1 (under the NIC's
 * switch), and a broadcast from rank 0 takes one connection between the nodes, n0.gpu1 to
 * n1.gpu0, its reduce that one and n1.gpu1 to the root, a ring all-reduce the same two
 * (NCCL_MIN_NCHANNELS copies the search's channels, src/graph/connect.cc ncclTopoPostset()).
 * Before, channel c entered at GPU c mod 4: the broadcast on 4 channels took 7 connections
 * between the nodes, the reduce 7, the all-reduce 8.
 */
static void
test_chain_one_nic_forced(void **state)
{
	char c[16][112];
	size_t n;

	(void)state;
	n = net_conns(PCIE_1NIC, "{op: broadcast, size: 1MiB, channels: 4}", c, 16);
	assert_int_equal(n, 1);
	assert_string_equal(c[0], "n0.gpu1>n1.gpu0");
	n = net_conns(PCIE_1NIC, "{op: reduce, size: 1MiB, channels: 4}", c, 16);
	assert_int_equal(n, 2);
	assert_true(has_conn(c, n, "n0.gpu1>n1.gpu0") && has_conn(c, n, "n1.gpu1>n0.gpu0"));
	n = net_conns(PCIE_1NIC, "{op: all_reduce, size: 1MiB, algo: ring, channels: 4}", c, 16);
	assert_int_equal(n, 2);
	assert_true(has_conn(c, n, "n0.gpu1>n1.gpu0") && has_conn(c, n, "n1.gpu1>n0.gpu0"));
}

/*
 * @op on 2 DGX A100 in the packet engine, each message split over @qps QPs
 * (split_data_on_qps, NCCL_IB_SPLIT_DATA_ON_QPS) where @split, listing its first 1,000
 * flows into @rep.
 */
static void
run_split(const char *op, uint32_t qps, bool split, struct ft_sim_report *rep)
{
	char text[320];
	struct ft_scenario *sc = NULL;
	struct ft_sim_overrides ov;
	struct ft_error err = { 0 };

	snprintf(text, sizeof(text),
	         "name: t\ncluster: dgx-a100:2\npacket: {split_data_on_qps: %s}\njobs:\n"
	         "  - name: a\n    ops:\n      - %s\n",
	         split ? "true" : "false", op);
	assert_int_equal(ft_scenario_load_buffer(text, strlen(text), "t.yaml", &sc, &err), 0);
	ft_sim_overrides_init(&ov);
	ov.engine = "packet";
	ov.qps_per_conn = qps;
	ov.list_flows = 1000;
	ft_sim_report_init(rep);
	if (ft_scenario_run(sc, &ov, NULL, rep, &err) != 0)
		fail_msg("%s", err.msg);
	ft_scenario_free(sc);
}

/*
 * An LL chain's pace per rank holds where its messages are split over QPs (or a GPU's
 * NICs): each part of a round on a hop's first leg waits for the same part of the round
 * before, a period later (pkt_nccl.c rank_part()), as a whole round waits for the round
 * before (pkt_tree.c rank_edge()), so a rank moves its rounds at its channel's LL pace
 * whatever carries them (NVIDIA/nccl src/device/prims_ll.h LLGenericOp()). On 2 DGX A100
 * at 64 KiB, 2 QPs a connection, each message split over both: every round's QP 0 part at
 * the crossing (n0 to n1) leaves no nearer than the root's period after the one before,
 * and the broadcast and the reduce take the time they take with whole messages (2 QPs in
 * turn). Before, a split message kept the cap's pace alone: after the crossing's wait for
 * its step the step's rounds left 0.17 us apart where the root's are 0.68, and the
 * broadcast took 31.15 us against 33.54 whole (-7.1 %).
 */
static void
test_chain_ll_rank_pace_split(void **state)
{
	static const char *const ops[] = { "{op: broadcast, size: 64KiB}",
		                           "{op: reduce, size: 64KiB}" };
	struct ft_sim_report rep;
	double root[2] = { -1, -1 }, period = 0;

	(void)state;
	for (size_t o = 0; o < FT_ARRAY_SIZE(ops); o++) {
		double t[2], prev = -1;
		uint32_t n = 0;

		for (int k = 1; k >= 0; k--) {
			run_split(ops[o], 2, k == 1, &rep);
			assert_int_equal(ft_run_nrows(&rep.run), 1);
			t[k] = ((const struct ft_result_row *)ft_vec_at(&rep.run.rows, 0))->time_us;
			for (size_t i = 0; k == 1 && o == 0 && i < rep.flows.len && root[1] < 0;
			     i++) {
				const struct ft_sim_flow_text *f = ft_vec_at(&rep.flows, i);

				/* the period: the broadcast root's first two rounds (the cap's pace,
				 * the same S over the same algbw in the reduce) */
				if (strcmp(f->src, "n0.gpu0") == 0 && f->row.qp == 0)
					root[root[0] < 0 ? 0 : 1] = f->row.start_s;
			}
			period = root[1] - root[0];
			assert_true(period > 0);
			for (size_t i = 0; k == 1 && i < rep.flows.len; i++) {
				const struct ft_sim_flow_text *f = ft_vec_at(&rep.flows, i);

				if (strncmp(f->src, "n0.", 3) != 0 || strncmp(f->dst, "n1.", 3) != 0 ||
				    f->row.qp != 0)
					continue;
				if (prev >= 0 && !(f->row.start_s - prev >= 0.99 * period))
					fail_msg("%s: crossing round %u: %.3f us after the one before, "
					         "the root's rounds %.3f us apart", ops[o], n,
					         (f->row.start_s - prev) * 1e6, period * 1e6);
				prev = f->row.start_s;
				n++;
			}
			ft_sim_report_release(&rep);
		}
		assert_int_equal(n, 16);
		if (!(fabs(t[1] - t[0]) <= 1e-3 * t[0]))
			fail_msg("%s: split over 2 QPs %.2f us, whole %.2f us", ops[o], t[1], t[0]);
	}
}

/*
 * The two trays of one GB200 NVL72 domain (gb200-nvl72:2, 4 GPUs each) are one node to
 * NCCL (MNNVL), so a tree's chunks are sized for one node of 8 ranks (LL128's
 * 1 + log2(nodes) + 0.1 x ppn steps: 1.8, not 2.4 for two nodes of 4): the packet engine
 * runs an LL128 tree all-reduce over them exactly as over one 8-GPU B200 node, whose
 * NVLink ports are as fast (900 GB/s): the same messages, packets and time. Before, it
 * counted the trays as two nodes (smaller chunks: 4 MiB took 36.61 us in 840 flows, not
 * 38.07 us in 420).
 */
static void
test_tree_one_domain_one_node(void **state)
{
	static const char op[] = "{op: all_reduce, algo: tree, proto: ll128, size: 4MiB}";
	struct ft_sim_report rep[2];
	const struct ft_result_row *row[2];

	(void)state;
	run_on("gb200-nvl72:2", op, &rep[0]);
	run_on("dgx-b200:1", op, &rep[1]);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(ft_run_nrows(&rep[k].run), 1);
		row[k] = ft_vec_at(&rep[k].run.rows, 0);
		assert_string_equal(row[k]->algo, "tree");
		assert_int_equal(rep[k].ngpus, 8);
	}
	print_message("# two trays %.2f us in %llu flows, one node %.2f us in %llu flows\n",
	              row[0]->time_us, (unsigned long long)rep[0].c.nflows, row[1]->time_us,
	              (unsigned long long)rep[1].c.nflows);
	assert_int_equal(rep[0].c.nflows, rep[1].c.nflows);
	assert_int_equal(rep[0].c.npackets, rep[1].c.npackets);
	assert_true(row[0]->time_us == row[1]->time_us);
	for (int k = 0; k < 2; k++)
		ft_sim_report_release(&rep[k]);
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

/* The smallest capacity and the latency of flow @f's path, and the header bytes a packet
 * carries on its bottleneck (none on NVLink). */
static void
path_of(const struct pk_run *r, const struct pk_flow *f, double *cap, double *lat, double *hdr)
{
	*cap = INFINITY;
	*lat = *hdr = 0;
	for (uint32_t j = 0; j < f->npath; j++) {
		const struct ft_link *lk =
		        ft_topo_link(r->t, FT_VEC_AT(&pk(r->e)->paths, uint32_t, f->path_off + j));

		if (lk->cap_Bps < *cap) {
			*cap = lk->cap_Bps;
			*hdr = lk->kind == FT_L_HOST || lk->kind == FT_L_FABRIC ? PK_HDR_IB : 0;
		}
		*lat += lk->lat_s;
	}
}

/* Bytes of the flows from vertex @a to vertex @b. */
static uint64_t
bytes_between(const struct pk_run *r, uint32_t a, uint32_t b)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < pk(r->e)->flows.len; i++)
		if (flow(r, i)->src == a && flow(r, i)->dst == b)
			sum += flow(r, i)->bytes;
	return sum;
}

/* An NVLS tree all-reduce of 32 MiB over 2 DGX H100 nodes x 4 GPUs, a head per GPU. */
static const struct ft_coll_args nvls_2x4 = { .op = FT_OP_ALL_REDUCE,
	                                      .algo = FT_ALGO_NVLS_TREE,
	                                      .proto = FT_PROTO_SIMPLE,
	                                      .nranks = 8,
	                                      .ranks_per_node = 4,
	                                      .bytes = 32u << 20 };

/*
 * An NVLS tree all-reduce of S = 32 MiB on 2 DGX H100 nodes x 4 GPUs, one QP a connection:
 * every GPU is head j of its node (its rail, NIC j), so each copy of a head (tree 0 or 1,
 * S / 8) is NCCL's pipeline of L = 4 chunks of M = 1 MiB (128 KiB x 16 NVLS channels x
 * 4 heads a loop, ft_model_nvls_tree_chunking()), and nothing but its own traffic meets
 * on a NIC. Chunk c goes up the node (every rank's S / 2L into the switch per copy, head
 * j reads its M back), across (node 0 is the root of tree 1, node 1 of tree 0) and down
 * (the head's multicast of M, every rank's gather of 4M). A NIC carries S / 4 each way
 * (tree 0 up, tree 1 down): the bottleneck. Closed form: the first chunk's way in (both
 * copies' scatters of S / 2L share a GPU's NVLink, both reads of M the switch's link to
 * the head), the NIC busy with 2L messages, the last one's network path, and its way
 * out (multicast M, gather 4M): within 5 % of a NIC message. Chunk by chunk it is slower
 * than whole flows (every stage at once, the flow engine's time) by that fill and tail,
 * within it; whole flows miss the closed form. Bytes are conserved link by link: every
 * GPU puts S + S/4 into the switch and gets as much back, each NIC S / 4 each way.
 */
static void
test_nvls_tree_closed_form(void **state)
{
	struct ft_coll_args a = nvls_2x4;
	struct ft_packet_cfg off = { .chunking = FT_PKT_CHUNK_OFF };
	const uint64_t S = a.bytes, L = 4, M = S / 8 / L;
	double nvl, nic, d_nvl, d_net, h_nvl, h_nic, t_net, fill, tail, want, got, whole;
	struct pk_run r, w;
	struct ft_sim_cfg cfg;
	struct ft_sim_counters cf;
	struct ft_engine *ef = NULL;
	struct ft_error err = { 0 };
	struct ft_sim_op op = { .after = -1 };
	uint32_t i, sw = UINT32_MAX;
	const struct pk_flow *net = NULL;

	(void)state;
	/* (built whole: every message's record is read back) */
	pk_run_ops_on(&r, &a, 2, 4, NULL, 1, true, 1, FT_ROUTING_ECMP);
	for (i = 0; i < pk(r.e)->flows.len; i++) {
		const struct pk_flow *f = flow(&r, i);

		assert_true(f->bytes <= S / 2 / L);
		if (ft_topo_vertex(r.t, f->dst)->kind == FT_V_NVSWITCH && sw == UINT32_MAX)
			sw = i;
		if (ft_topo_vertex(r.t, f->dst)->kind == FT_V_GPU &&
		    ft_topo_vertex(r.t, f->src)->kind == FT_V_GPU && !net)
			net = f;
	}
	assert_int_not_equal(sw, UINT32_MAX);
	assert_non_null(net);
	assert_int_equal(net->bytes, M);
	path_of(&r, flow(&r, sw), &nvl, &d_nvl, &h_nvl);
	path_of(&r, net, &nic, &d_net, &h_nic);
	assert_true(nic < nvl);
	t_net = ((double)M + ceil((double)M / 4096) * h_nic) / nic;
	fill = (double)(S / L) / nvl + 2.0 * M / nvl + 2 * d_nvl; /* chunk 0 in */
	tail = (double)M / nvl + 4.0 * M / nvl + 2 * d_nvl;       /* the last chunk out */
	want = fill + 2 * L * t_net + d_net + tail;
	got = op_time(&r);
	if (!(fabs(got - want) <= 0.05 * t_net))
		fail_msg("nvls tree: %.9g s, closed form %.9g s (a NIC message %.3g s)", got, want,
		         t_net);
	/* bytes link by link, as whole flows carry them */
	pk_run_ops_on(&w, &a, 2, 4, &off, 1, false, 1, FT_ROUTING_ECMP);
	for (i = 0; i < 8; i++) {
		uint32_t g = r.ends[i], s = ft__sim_innet_vertex(r.t, g, FT_ALGO_NVLS_TREE);
		uint32_t peer = r.ends[(i + 4) % 8];

		assert_int_equal(bytes_between(&r, g, s), S + S / 4);
		assert_int_equal(bytes_between(&r, s, g), S + S / 4);
		assert_int_equal(bytes_between(&r, g, peer), S / 4);
		assert_int_equal(bytes_between(&w, g, s), S + S / 4);
		assert_int_equal(bytes_between(&w, g, peer), S / 4);
	}
	whole = op_time(&w);
	pk_run_free(&w);
	/* the flow engine on the same schedule, whole (chunking off: it would cut NCCL's
	 * chunks too): every stage at once, no fill */
	ft_sim_cfg_init(&cfg);
	cfg.packet = &off;
	op.sched = &r.s;
	op.rank_gpu = r.ends;
	assert_int_equal(ft_flow_engine.create(r.t, &cfg, &ef, &err), 0);
	assert_true(ft_flow_engine.submit(ef, &op, &err) >= 0);
	assert_int_equal(ft_flow_engine.run(ef, 0, &err), 0);
	assert_int_equal(ft_flow_engine.counters(ef, &cf, &err), 0);
	if (!(fabs(got - cf.fct_max_s - fill - tail) <= 0.05 * t_net + d_net))
		fail_msg("nvls tree: %.9g s, the flow engine's longest flow %.9g s + fill %.9g s + "
		         "tail %.9g s",
		         got, cf.fct_max_s, fill, tail);
	if (!(fabs(whole - want) > fill / 2))
		fail_msg("whole flows: %.9g s, as the chunks' closed form %.9g s", whole, want);
	ft_flow_engine.destroy(ef);
	pk_run_free(&r);
}

/* The largest flow of @r's phase 0, bytes. */
static double
max_flow_bytes(const struct pk_run *r)
{
	const struct ft_sched_phase *ph = ft_sched_phase_at(&r->s, 0);
	double w = 0;

	for (uint32_t f = 0; f < ph->nflows; f++) {
		struct ft_sched_flow fl;

		ft_sched_phase_flow(&r->s, ph, f, &fl);
		w = FT_MAX(w, (double)fl.bytes);
	}
	return w;
}

/*
 * NCCL's per-channel NVLSTree cap as a pace (pkt_tree.c cap_pace()): the NVLS tree of
 * test_nvls_tree_closed_form (L = 4 loops, every GPU a head, NIC message t_net) with its
 * connections capped so that a loop's period P = w / (cap x L) (w the largest flow, a
 * head's S + S / 4) is longer than anything a loop does on one link (its scatter, its 2
 * NIC messages, its gather). Loop m starts at m P and crosses the pipeline alone: the op
 * takes (L - 1) P plus one loop's way through it: chunk 0 in (the scatter of S / L from a
 * GPU, both copies' reads of M), the NIC's 2 messages (up, then the other copy's down
 * once the far node's up has come: t_net + d_net + t_net), the last path latency, and the
 * way out (multicast M, gather 4M). Within 1 % of a NIC message, for P and 2P alike; so
 * the times of the two differ by (L - 1) P. Built as its messages may start, the same
 * time to the picosecond. Without the pace the 4 loops overlap (test_nvls_tree_closed_form,
 * 2L t_net at the NIC): the cap is what holds it.
 */
static void
test_nvls_tree_paced(void **state)
{
	struct ft_coll_args a = nvls_2x4;
	const uint64_t S = a.bytes, L = 4, M = S / 8 / L;
	double nvl, nic, d_nvl, d_net, h_nvl, h_nic, t_net, fill, tail, w, P, want, got[2];
	const struct pk_flow *net = NULL;
	struct pk_run r, lz;
	uint32_t i, sw = UINT32_MAX;

	(void)state;
	pk_run_ops_on(&r, &a, 2, 4, NULL, 1, true, 1, FT_ROUTING_ECMP);
	for (i = 0; i < pk(r.e)->flows.len; i++) {
		const struct pk_flow *f = flow(&r, i);

		if (ft_topo_vertex(r.t, f->dst)->kind == FT_V_NVSWITCH && sw == UINT32_MAX)
			sw = i;
		if (ft_topo_vertex(r.t, f->dst)->kind == FT_V_GPU &&
		    ft_topo_vertex(r.t, f->src)->kind == FT_V_GPU && !net)
			net = f;
	}
	assert_non_null(net);
	assert_int_not_equal(sw, UINT32_MAX);
	path_of(&r, flow(&r, sw), &nvl, &d_nvl, &h_nvl);
	path_of(&r, net, &nic, &d_net, &h_nic);
	t_net = ((double)M + ceil((double)M / 4096) * h_nic) / nic;
	fill = (double)(S / L) / nvl + 2.0 * M / nvl + 2 * d_nvl;
	tail = (double)M / nvl + 4.0 * M / nvl + 2 * d_nvl;
	w = max_flow_bytes(&r);
	assert_true(w == (double)(S + S / 4));
	pk_run_free(&r);
	for (int k = 0; k < 2; k++) {
		P = (k + 1) * 4 * t_net;
		pk_run_conn_cap_Bps = w / (P * L);
		pk_run_ops_on(&r, &a, 2, 4, NULL, 1, true, 1, FT_ROUTING_ECMP);
		pk_run_ops_on(&lz, &a, 2, 4, NULL, 1, false, 1, FT_ROUTING_ECMP);
		pk_run_conn_cap_Bps = 0;
		got[k] = op_time(&r);
		want = (L - 1) * P + fill + 2 * t_net + 2 * d_net + tail;
		if (getenv("FT_PKTTREE_PRINT"))
			print_message("paced P %.3f us: %.4f us, closed form %.4f us "
			              "(%+.3f t_net)\n",
			              P * 1e6, got[k] * 1e6, want * 1e6, (got[k] - want) / t_net);
		if (!(fabs(got[k] - want) <= 0.01 * t_net))
			fail_msg("paced nvls tree: %.9g s, closed form %.9g s (NIC message %.3g s)",
			         got[k], want, t_net);
		assert_true(lz.c.ops[0].t_end_s == r.c.ops[0].t_end_s);
		assert_int_equal(lz.c.npackets, r.c.npackets);
		pk_run_free(&lz);
		pk_run_free(&r);
	}
	if (!(fabs(got[1] - got[0] - (L - 1) * 4 * t_net) <= 1e-9))
		fail_msg("P to 2P: %.9g s more, (L - 1) P %.9g s", got[1] - got[0],
		         (L - 1) * 4 * t_net);
}

/*
 * NVLS across nodes, NVLS with CollNet (ft__sim_nvls_collnet(); NVIDIA/nccl
 * src/device/all_reduce.h, the NVLS kernel's branch with nvls->out), all-reduce of
 * S = 32 MiB on 2 DGX H100 nodes x 4 GPUs, every GPU the head of its NIC, one QP a
 * connection, no NVLS efficiency (the bytes as the schedule has them): NCCL's loops
 * (ft_model_nvls_net_chunking(): 16 NVLS channels x 4 heads, the chunk 32 KiB as NCCL's
 * enqueue cuts it where NVLS spans nodes below 150 GB/s, L = 16 loops) cut each head's
 * share into L chunks of M = S / 4L. In loop c every rank scatters S / L into the switch,
 * head h reads its M back reduced, sends it up its NIC to its leaf (the fabric's switches,
 * SHARP's reduction there costing nothing), which sends it down to both nodes' head h once
 * it has come from both; the head multicasts it and every rank gathers 4M. The NIC, a
 * message t_net each way per loop, binds (NVLink moves a loop's 5M in less), and its up
 * and down links run at once, so the op takes the first chunk's way in (the scatter of
 * S / L, the read of M, 2 NVLink path latencies), the L messages up, one down, 2 network
 * path latencies (up to the leaf and back), and the last chunk's way out (multicast M,
 * gather 4M, 2 NVLink path latencies): within 3 packet times (a packet's store and
 * forward on the hops between GPU and leaf); the lazy build the same run to the
 * picosecond. Paced at a cap of period P = 4 t_net a loop (a price of the test's own,
 * slower than the NIC, given as the runner gives ft__sim_nvls_net_cap()'s: a cap on each
 * connection), its 4 stages paced as many as the flow engine's (into the switch, up,
 * down, out: stage s of loop m at (m + s) P), the
 * last loop's multicast leaves at (L + 2) P: it ends its way out later, within 3 packet
 * times; the flow engine on the same schedule and cap within 10 % of it (4.7 %: its
 * stages take their periods whole). Bytes: every GPU puts
 * S + S / 4 into the switch and gets as much back, each NIC S / 4 up and S / 4 down, nothing
 * between the leaves. Built as its messages may start, the same run to the picosecond.
 * The times are less the fixed cost the packet engine charges, exactly NCCL's base
 * latency, its intraLat once (the switch's pass) and what a step between nodes pays on
 * top of the path the packets simulate (ft__sim_net_step_s()), by the rule a ring's far
 * steps follow (pkt_setup.c phase_cost()): not the NVLS step overhead on each of the 4
 * steps (3 x 25 us more), nor NCCL's interLat (hwLat[NET][NVLS], 18 us), which stands for
 * the path latencies the packets have.
 */
static void
nvls_net_run(struct pk_run *r, bool eager)
{
	static const uint32_t heads[] = { 0, 1, 2, 3 };
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE, .algo = FT_ALGO_RING,
		                  .proto = FT_PROTO_SIMPLE, .nranks = 8, .ranks_per_node = 4,
		                  .bytes = 32u << 20 };
	struct ft_sim_cfg cfg;
	struct ft_error err = { 0 };
	struct ft_sim_op op = { .after = -1 };

	assert_int_equal(ft_spec_resolve("dgx-h100:2", &r->spec, &err), 0);
	r->spec.fabric.sharp = true;
	r->t = NULL;
	assert_int_equal(ft_topo_build(&r->spec, &r->t, &err), 0);
	for (uint32_t i = 0; i < 8; i++)
		r->ends[i] = ft_topo_gpu(r->t, i / 4, i % 4);
	ft_schedule_init(&r->s);
	assert_int_equal(ft_coll_schedule(&a, &r->s, &err), 0);
	assert_int_equal(ft__sim_nvls_collnet(&r->s, 2, 4, heads, 4), 0);
	ft_sim_cfg_init(&cfg);
	cfg.qps_per_conn = 1;
	op.sched = &r->s;
	op.rank_gpu = r->ends;
	op.conn_cap_Bps = pk_run_conn_cap_Bps;
	r->e = NULL;
	assert_int_equal(ft_packet_engine.create(r->t, &cfg, &r->e, &err), 0);
	ft_container_of(r->e, struct pk_engine, base)->tree_eager = eager;
	assert_true(ft_packet_engine.submit(r->e, &op, &err) >= 0);
	if (ft_packet_engine.run(r->e, 0, &err) != 0)
		fail_msg("run: %s", err.msg);
	assert_int_equal(ft_packet_engine.counters(r->e, &r->c, &err), 0);
}

static void
test_nvls_net_closed_form(void **state)
{
	const uint64_t S = 32u << 20, L = 16, M = S / 4 / L;
	double nvl, nic, d_nvl, d_net, h_nvl, h_nic, t_net, pkt, fill, tail, want, got, w, P, fl;
	double extra, fixed;
	uint32_t nsteps;
	const struct pk_flow *up = NULL;
	struct ft_model_links l;
	struct ft_model_chunking ch;
	struct ft_error err = { 0 };
	struct pk_run r, lz;
	uint32_t i, sw = UINT32_MAX;

	(void)state;
	nvls_net_run(&r, true);
	nvls_net_run(&lz, false);
	assert_true(lz.c.ops[0].t_end_s == r.c.ops[0].t_end_s);
	assert_int_equal(lz.c.npackets, r.c.npackets);
	pk_run_free(&lz);
	/* NCCL's loops of it: 16 channels x 4 heads of 32 KiB */
	assert_int_equal(ft_model_links_get(&r.spec, 8, 2, 4, &l, &err), 0);
	l.nrails = 4;
	assert_int_equal(ft_model_run_nchannels(&l, FT_ALGO_NVLS), 16);
	assert_int_equal(ft_model_nvls_net_chunking(&l, S, &ch), L);
	assert_int_equal(ch.chunk_bytes, 32768);
	/* per node 4 ranks' scatter and gather, 4 heads' read and multicast; 4 heads x 2 nodes
	 * up and down: 48 connections of L chunks */
	assert_int_equal(pk(r.e)->flows.len, (2 * 4 * 4 + 4 * 2 * 2) * L);
	for (i = 0; i < pk(r.e)->flows.len; i++) {
		const struct pk_flow *f = flow(&r, i);

		if (ft_topo_vertex(r.t, f->dst)->kind == FT_V_NVSWITCH && sw == UINT32_MAX)
			sw = i;
		if (ft_topo_vertex(r.t, f->dst)->kind == FT_V_SWITCH && !up)
			up = f;
	}
	assert_int_not_equal(sw, UINT32_MAX);
	assert_non_null(up);
	assert_int_equal(up->bytes, M);
	path_of(&r, flow(&r, sw), &nvl, &d_nvl, &h_nvl);
	path_of(&r, up, &nic, &d_net, &h_nic);
	assert_true(nic < nvl);
	/* the fixed cost the packet engine charges: NCCL's base, intraLat (the switch's
	 * pass, 25 us) and one step between nodes' cost over the path (ft__sim_net_step_s()
	 * and NCCL's interLat, 18 us, less the packets' path, net_floor_s());
	 * the flow engine's (4 steps' overheads and what ft__sim_far_steps() adds to them)
	 * has NCCL's interLat (18 us) in place of the path's latency */
	(void)far_steps_of(r.t, &r.s, r.ends, 4, &extra, &nsteps);
	assert_int_equal(nsteps, 1);
	assert_true(r.s.step_lat_s == ft_coll_hw_latency(FT_HW_NVLINK, FT_ALGO_NVLS,
	                                                   FT_PROTO_SIMPLE));
	assert_true(fabs(extra - (-3 * r.s.step_lat_s +
	                          ft_coll_hw_latency(FT_HW_NET, FT_ALGO_NVLS, FT_PROTO_SIMPLE) +
	                          net_step_s_of(r.t, FT_PROTO_SIMPLE))) < 1e-15);
	fixed = r.s.base_lat_s + r.s.step_lat_s + net_step_s_of(r.t, FT_PROTO_SIMPLE) +
	        FT_MAX(0.0, ft_model_hw_latency(0, FT_HW_NET, FT_ALGO_NVLS, FT_PROTO_SIMPLE) -
	                            net_path_s(&r));
	t_net = ((double)M + ceil((double)M / 4096) * h_nic) / nic;
	pkt = (4096 + h_nic) / nic;
	fill = (double)(S / L) / nvl + (double)M / nvl + 2 * d_nvl; /* chunk 0 in */
	tail = (double)M / nvl + 4.0 * M / nvl + 2 * d_nvl;         /* the last chunk out */
	want = fill + (L + 1) * t_net + 2 * d_net + tail;
	got = r.c.ops[0].t_end_s - r.c.ops[0].t_start_s - fixed;
	if (getenv("FT_PKTTREE_PRINT"))
		print_message("nvls net: %.4f us, closed form %.4f us (%+.3f t_net)\n", got * 1e6,
		              want * 1e6, (got - want) / t_net);
	if (!(fabs(got - want) <= 3 * pkt))
		fail_msg("nvls across nodes: %.9g s, closed form %.9g s (a packet %.3g s)", got,
		         want, pkt);
	for (i = 0; i < 8; i++) {
		uint32_t g = r.ends[i], s = ft__sim_innet_vertex(r.t, g, FT_ALGO_NVLS);
		uint32_t leaf = ft__sim_innet_vertex(r.t, g, FT_ALGO_COLLNET);

		assert_int_equal(bytes_between(&r, g, s), S + S / 4);
		assert_int_equal(bytes_between(&r, s, g), S + S / 4);
		assert_int_equal(bytes_between(&r, g, leaf), S / 4);
		assert_int_equal(bytes_between(&r, leaf, g), S / 4);
		assert_int_equal(bytes_between(&r, g, r.ends[(i + 4) % 8]), 0);
	}
	w = max_flow_bytes(&r);
	assert_true(w == (double)(S + S / 4));
	pk_run_free(&r);
	/* paced: a loop every P */
	P = 4 * t_net;
	pk_run_conn_cap_Bps = w / (P * L);
	nvls_net_run(&r, true);
	nvls_net_run(&lz, false);
	pk_run_conn_cap_Bps = 0;
	got = r.c.ops[0].t_end_s - r.c.ops[0].t_start_s - fixed;
	want = (L + 2) * P + tail;
	fl = flow_engine_time(&r, w / (P * L)); /* (it takes off its fixed cost, extra too) */
	if (getenv("FT_PKTTREE_PRINT"))
		print_message("nvls net paced: %.4f us, closed form %.4f us (%+.3f t_net), "
		              "flow engine %.4f us\n",
		              got * 1e6, want * 1e6, (got - want) / t_net, fl * 1e6);
	if (!(fabs(got - want) <= 3 * pkt))
		fail_msg("paced nvls across nodes: %.9g s, closed form %.9g s (a packet %.3g s)",
		         got, want, pkt);
	if (!(fabs(fl - got) <= 0.1 * got))
		fail_msg("paced nvls across nodes: packet %.9g s, flow %.9g s", got, fl);
	assert_true(lz.c.ops[0].t_end_s == r.c.ops[0].t_end_s);
	assert_int_equal(lz.c.npackets, r.c.npackets);
	pk_run_free(&lz);
	pk_run_free(&r);
}

/*
 * What an NVLS tree's chunks hold while it runs: one flow record per message, 144 bytes
 * with no congestion control state in an unpaced run (InfiniBand, no IB CC), and no list
 * of dependencies once the run has its successor lists. With IB CC every record has its
 * QP's state, and the time is the unpaced run's (the tree's own traffic marks nothing
 * here, so no rate is cut).
 */
static void
test_nvls_tree_records(void **state)
{
	struct ft_coll_args a = nvls_2x4;
	struct ft_packet_cfg ibcc = { .cc = FT_PKT_CC_IBCC };
	struct pk_run r, c;
	uint32_t i;

	(void)state;
	assert_true(sizeof(struct pk_flow) <= 144);
	pk_run_ops_on(&r, &a, 2, 4, NULL, 1, true, 1, FT_ROUTING_ECMP); /* (whole) */
	/* per node 4 stages x 4 ranks x 2 copies, 4 heads x 2 copies x 2 ways over the
	 * network; each of those 80 connections 4 chunks */
	assert_int_equal(pk(r.e)->flows.len, (2 * 4 * 4 * 2 + 4 * 2 * 2) * 4);
	assert_false(pk(r.e)->paced);
	assert_int_equal(pk(r.e)->flow_cc.cap, 0);
	assert_int_equal(pk(r.e)->edges.cap, 0);
	assert_non_null(pk(r.e)->succ);
	pk_run_ops_on(&c, &a, 2, 4, &ibcc, 1, false, 1, FT_ROUTING_ECMP);
	assert_true(pk(c.e)->paced);
	assert_int_equal(pk(c.e)->flow_cc.len, pk(c.e)->flows.len);
	for (i = 0; i < pk(c.e)->flows.len; i++)
		assert_true(pk_flow_cc(pk(c.e), flow(&c, i))->alpha == PK_DCQCN_ALPHA0);
	assert_int_equal(c.c.necn, 0);
	assert_true(op_time(&c) == op_time(&r));
	pk_run_free(&c);
	pk_run_free(&r);
}

/* The results of two runs of one op, the same to the bit: every counter the run reports. */
static void
assert_same_run(const struct pk_run *a, const struct pk_run *b)
{
	const struct ft_sim_counters *x = &a->c, *y = &b->c;

	assert_int_equal(x->nflows, y->nflows);
	assert_int_equal(x->nevents, y->nevents);
	assert_int_equal(x->npackets, y->npackets);
	assert_memory_equal(&x->makespan_s, &y->makespan_s, sizeof(double));
	assert_memory_equal(&x->ops[0], &y->ops[0], sizeof(x->ops[0]));
	assert_memory_equal(&x->fct_min_s, &y->fct_min_s, 4 * sizeof(double));
	assert_memory_equal(&x->slowdown_p50, &y->slowdown_p50, 3 * sizeof(double));
	assert_int_equal(x->nlinks, y->nlinks);
	assert_memory_equal(x->link_bytes, y->link_bytes, x->nlinks * sizeof(double));
	assert_memory_equal(x->link_max_flows, y->link_max_flows, x->nlinks * sizeof(uint32_t));
	for (uint32_t l = 0; l < x->nlinks; l++) {
		const struct ft_sim_port_counters *p = &x->port[l], *q = &y->port[l];

		assert_int_equal(p->tx_bytes, q->tx_bytes);
		assert_int_equal(p->tx_pkts, q->tx_pkts);
		assert_int_equal(p->q_max_bytes, q->q_max_bytes);
		assert_memory_equal(&p->q_mean_bytes, &q->q_mean_bytes, sizeof(double));
		assert_memory_equal(&p->xmit_wait_s, &q->xmit_wait_s, sizeof(double));
		for (uint32_t k = 0; k < FT_PKT_NPRIO; k++)
			assert_memory_equal(&p->prio[k].arb_wait_s, &q->prio[k].arb_wait_s,
			                    sizeof(double));
	}
}

/*
 * An NVLS tree built as its messages may start holds the messages in flight, not the
 * phase: 256 MiB over 2 DGX H100 nodes x 4 GPUs is 80 connections (test_nvls_tree_records)
 * of L = 32 messages (128 KiB x 16 channels x 4 heads a loop), 2,560 flow records built
 * whole. A connection has at most NCCL_STEPS (8) messages in flight (message m waits for
 * message m - 8 to have arrived), and an ended message's records wait twice the phase's
 * longest path latency before reuse: at most 80 x 2 x 8 = 1,280 records, fewer than
 * half. Every counter of the run is the whole build's, to the bit; so with 2 QPs a
 * connection (a QP's next message waits for the one before it to leave) and under
 * adaptive routing.
 */
static void
test_nvls_tree_lazy(void **state)
{
	struct ft_coll_args a = nvls_2x4;
	const uint32_t nconn = 2 * 4 * 4 * 2 + 4 * 2 * 2, L = 32, slots = 8;
	const struct {
		uint32_t qps;
		enum ft_routing routing;
	} runs[] = { { 1, FT_ROUTING_ECMP }, { 2, FT_ROUTING_ECMP }, { 1, FT_ROUTING_ADAPTIVE } };

	(void)state;
	a.bytes = 256u << 20;
	for (size_t k = 0; k < FT_ARRAY_SIZE(runs); k++) {
		struct pk_run r[2];

		for (int i = 0; i < 2; i++)
			pk_run_ops_on(&r[i], &a, 2, 4, NULL, runs[k].qps, i == 0, 1,
			              runs[k].routing);
		assert_int_equal(pk(r[0].e)->flows.len, nconn * L);
		assert_null(pk(r[0].e)->tlazy);
		assert_non_null(pk(r[1].e)->tlazy);
		assert_int_equal(pk(r[1].e)->nflows_built, 0);
		assert_int_equal(r[1].c.nflows, nconn * L);
		if (pk(r[1].e)->flows.len > nconn * 2 * slots)
			fail_msg("run %zu: %zu flow records for %u connections of %u in flight",
			         k, pk(r[1].e)->flows.len, nconn, slots);
		print_message("# lazy NVLS tree, run %zu: %zu flow records (whole: %u)\n", k,
		              pk(r[1].e)->flows.len, nconn * L);
		assert_same_run(&r[0], &r[1]);
		pk_run_free(&r[1]);
		pk_run_free(&r[0]);
	}
}

/*
 * Rings and trees are built as their messages may start too, and hold the messages in
 * flight, not the phase. 64 MiB over 2 DGX H100 nodes x 4 GPUs: the ring all-reduce, on
 * one channel (NCCL_MAX_NCHANNELS=1: the rings of the schedule, not split over NCCL's
 * launched channels, pkt_nccl.c ring_reps()), is 8 connections of 14 steps x 8 messages (896 flow records built whole; the all-gather 7
 * steps, 448), NCCL's ring has 4 slots on a connection (slices of 2 of its 8 steps), so
 * at most 8 x 2 x 4 = 64 records; the tree is 28 connections of 64 chunks (1,792), 8
 * slots, at most 28 x 2 x 8 = 448. Every counter of the run is the whole build's to the
 * bit, with 2 QPs a connection, under adaptive routing, and for two ops in a row (the
 * second reuses the first's records).
 */
static void
test_ring_tree_lazy(void **state)
{
	const struct {
		enum ft_op op;
		enum ft_algo algo;
		uint32_t qps, nops;
		enum ft_routing routing;
		size_t whole, most;
	} runs[] = {
		{ FT_OP_ALL_REDUCE, FT_ALGO_RING, 1, 1, FT_ROUTING_ECMP, 896, 64 },
		{ FT_OP_ALL_REDUCE, FT_ALGO_RING, 2, 1, FT_ROUTING_ECMP, 896, 64 },
		{ FT_OP_ALL_REDUCE, FT_ALGO_RING, 1, 1, FT_ROUTING_ADAPTIVE, 896, 64 },
		{ FT_OP_ALL_REDUCE, FT_ALGO_RING, 1, 2, FT_ROUTING_ECMP, 2 * 896, 64 },
		{ FT_OP_ALL_GATHER, FT_ALGO_RING, 1, 1, FT_ROUTING_ECMP, 448, 64 },
		{ FT_OP_ALL_REDUCE, FT_ALGO_TREE, 1, 1, FT_ROUTING_ECMP, 1792, 448 },
		{ FT_OP_ALL_REDUCE, FT_ALGO_TREE, 2, 1, FT_ROUTING_ADAPTIVE, 1792, 448 },
	};

	(void)state;
	for (size_t k = 0; k < FT_ARRAY_SIZE(runs); k++) {
		struct ft_coll_args a = { .op = runs[k].op,
			                  .algo = runs[k].algo,
			                  .proto = FT_PROTO_SIMPLE,
			                  .nranks = 8,
			                  .ranks_per_node = 4,
			                  .bytes = 64u << 20 };
		struct pk_run r[2];

		/* (a ring on one channel: NCCL's launched channels would split each
		 * connection, pkt_nccl.c ring_reps()) */
		pk_run_nchannels = runs[k].algo == FT_ALGO_RING;
		for (int i = 0; i < 2; i++)
			pk_run_ops_on(&r[i], &a, 2, 4, NULL, runs[k].qps, i == 0, runs[k].nops,
			              runs[k].routing);
		pk_run_nchannels = 0;
		assert_int_equal(pk(r[0].e)->flows.len, runs[k].whole);
		assert_null(pk(r[0].e)->tlazy);
		assert_non_null(pk(r[1].e)->tlazy);
		assert_int_equal(r[1].c.nflows, runs[k].whole);
		if (pk(r[1].e)->flows.len > runs[k].most)
			fail_msg("run %zu: %zu flow records, at most %zu in flight", k,
			         pk(r[1].e)->flows.len, runs[k].most);
		print_message("# lazy %s, run %zu: %zu flow records (whole: %zu)\n",
		              runs[k].algo == FT_ALGO_RING ? "ring" : "tree", k,
		              pk(r[1].e)->flows.len, runs[k].whole);
		assert_same_run(&r[0], &r[1]);
		if (runs[k].nops > 1)
			assert_memory_equal(&r[0].c.ops[1], &r[1].c.ops[1], sizeof(r[0].c.ops[1]));
		pk_run_free(&r[1]);
		pk_run_free(&r[0]);
	}
}

/*
 * Built whole (as a split run builds them, or FABTUNE_SIM_EAGER=1), a ring's or a tree's
 * message waits for the one before it on its QP to leave the NIC with no task between
 * them: the send path tells the next message's task itself. 64 MiB over 2 DGX H100 nodes
 * x 4 GPUs, as test_ring_tree_lazy cuts it: the ring all-reduce's 896 messages on 8
 * connections, with 1 and 2 QPs (8 or 16 QPs, each a chain of messages), and the tree's
 * 1,792 on 28. A task that is no message is a barrier of the op or of a phase, or a
 * connection's end: at most one per connection and 4 more, 12 and 32 here (2 are made:
 * the op's start and end), where a barrier per message but a QP's first made 888 (880
 * with 2 QPs) and 1,764 more. The tree on NCCL's channels has its fill's paces besides
 * (pkt_tree.c nccl_fill()): one a message of the first round at each stage after the
 * first, k (S - 1), and one a later message, n - k (n = 64 an edge, S = 8 stages: a chain
 * of 4 up and down in each node, 2 (4 - 1 + 1); k the model's launched channels over the
 * tree's 2 copies). Every counter is the lazy build's to the bit.
 */
static void
test_ring_tree_whole_tasks(void **state)
{
	const struct {
		enum ft_algo algo;
		uint32_t qps, nconn;
		size_t whole;
	} runs[] = {
		{ FT_ALGO_RING, 1, 8, 896 },
		{ FT_ALGO_RING, 2, 8, 896 },
		{ FT_ALGO_TREE, 1, 28, 1792 },
	};

	(void)state;
	for (size_t k = 0; k < FT_ARRAY_SIZE(runs); k++) {
		struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
			                  .algo = runs[k].algo,
			                  .proto = FT_PROTO_SIMPLE,
			                  .nranks = 8,
			                  .ranks_per_node = 4,
			                  .bytes = 64u << 20 };
		struct pk_run r[2];
		size_t nflow = 0, nbar = 0, most = (size_t)runs[k].nconn + 4;
		const struct pk_engine *w;

		pk_run_nchannels = runs[k].algo == FT_ALGO_RING; /* (test_ring_tree_lazy's) */
		for (int i = 0; i < 2; i++)
			pk_run_ops_on(&r[i], &a, 2, 4, NULL, runs[k].qps, i == 0, 1,
			              FT_ROUTING_ECMP);
		pk_run_nchannels = 0;
		w = pk(r[0].e);
		assert_int_equal(w->flows.len, runs[k].whole);
		for (size_t t = 0; t < w->tasks.len; t++) {
			const struct pk_task *tk = &FT_VEC_AT(&w->tasks, struct pk_task, t);

			nflow += tk->kind == PK_T_FLOW;
			nbar += tk->kind != PK_T_FLOW;
		}
		print_message("# whole %s, %u QPs: %zu tasks, %zu of them no message (at most %zu)\n",
		              runs[k].algo == FT_ALGO_RING ? "ring" : "tree", runs[k].qps,
		              w->tasks.len, nbar, most);
		assert_int_equal(nflow, runs[k].whole);
		if (runs[k].algo == FT_ALGO_TREE) {
			double F;
			uint32_t kk, S = 8, n = 64;

			tree_fill(&r[0], S, &F, &kk);
			most += (size_t)kk * (S - 1) + (n - kk);
		}
		if (nbar > most)
			fail_msg("run %zu: %zu tasks besides the %zu messages, at most %zu", k, nbar,
			         nflow, most);
		assert_same_run(&r[0], &r[1]);
		pk_run_free(&r[1]);
		pk_run_free(&r[0]);
	}
}

/*
 * A paced or lossy run's rings and trees are built as their messages may start as well. What
 * outlives a message there is its QP's congestion control state: handed on to the QP's
 * next message when its last packet leaves, which may not be built yet (the phase keeps
 * the state until it is, and CNPs in between move it there), and the CNPs and RTT
 * samples for its packets, back within one path latency of its end (its records wait
 * twice the longest). A lossy run's records wait until nothing names them: resent
 * packets, ACKs, NAKs, CNPs and RTT samples are counted, a timer still armed finds the
 * record's next message of another generation, and a CNP walks the QP's later messages,
 * one of which may be sending again. The runs of test_ring_tree_lazy under DCQCN and IB
 * CC, switches marking every packet that queues behind another (the thresholds below one
 * packet), and lossy (bit errors, a 200 us timeout) with DCQCN and without: the same
 * records at most, and every counter the whole build's to the bit, drops and resends
 * with them. The tree's fan-in queues at a parent's port, so its QPs take CNPs (70 under
 * DCQCN, 2,198 under IB CC with 2 QPs) and their rates move across messages; a ring's
 * hops share no port here.
 */
static void
test_ring_tree_lazy_lossy_paced(void **state)
{
	const struct {
		enum ft_algo algo;
		enum ft_pkt_cc cc;
		bool lossy;
		uint32_t qps;
		enum ft_routing routing;
		size_t whole, most;
	} runs[] = {
		{ FT_ALGO_RING, FT_PKT_CC_DCQCN, false, 1, FT_ROUTING_ECMP, 896, 64 },
		{ FT_ALGO_RING, FT_PKT_CC_DCQCN, false, 2, FT_ROUTING_ECMP, 896, 64 },
		{ FT_ALGO_RING, FT_PKT_CC_DCQCN, false, 1, FT_ROUTING_ADAPTIVE, 896, 64 },
		{ FT_ALGO_RING, FT_PKT_CC_IBCC, false, 1, FT_ROUTING_ECMP, 896, 64 },
		{ FT_ALGO_TREE, FT_PKT_CC_DCQCN, false, 1, FT_ROUTING_ECMP, 1792, 448 },
		{ FT_ALGO_TREE, FT_PKT_CC_IBCC, false, 2, FT_ROUTING_ECMP, 1792, 448 },
		{ FT_ALGO_RING, FT_PKT_CC_DCQCN, true, 1, FT_ROUTING_ECMP, 896, 64 },
		{ FT_ALGO_RING, FT_PKT_CC_NONE, true, 2, FT_ROUTING_ECMP, 896, 64 },
		{ FT_ALGO_RING, FT_PKT_CC_DCQCN, true, 1, FT_ROUTING_ADAPTIVE, 896, 64 },
		{ FT_ALGO_TREE, FT_PKT_CC_DCQCN, true, 1, FT_ROUTING_ECMP, 1792, 448 },
		{ FT_ALGO_TREE, FT_PKT_CC_NONE, true, 2, FT_ROUTING_ECMP, 1792, 448 },
	};

	(void)state;
	for (size_t k = 0; k < FT_ARRAY_SIZE(runs); k++) {
		struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
			                  .algo = runs[k].algo,
			                  .proto = FT_PROTO_SIMPLE,
			                  .nranks = 8,
			                  .ranks_per_node = 4,
			                  .bytes = 64u << 20 };
		struct ft_packet_cfg pc = { .cc = runs[k].cc,
			                    .ecn_kmin_bytes = 1,
			                    .ecn_kmax_bytes = 2,
			                    .ecn_pmax = 1,
			                    .ibcc_threshold_bytes = 1,
			                    .ibcc_marking_rate = 1,
			                    .fc = runs[k].lossy ? FT_PKT_FC_NONE : FT_PKT_FC_AUTO,
			                    .ber = runs[k].lossy ? 1e-7 : 0,
			                    .rto_s = runs[k].lossy ? 200e-6 : 0 };
		struct pk_run r[2];

		pk_run_nchannels = runs[k].algo == FT_ALGO_RING; /* (test_ring_tree_lazy's) */
		for (int i = 0; i < 2; i++)
			pk_run_ops_on(&r[i], &a, 2, 4, &pc, runs[k].qps, i == 0, 1, runs[k].routing);
		pk_run_nchannels = 0;
		assert_true(pk(r[1].e)->paced == (runs[k].cc != FT_PKT_CC_NONE));
		assert_true(pk(r[1].e)->may_drop == runs[k].lossy);
		assert_int_equal(pk(r[0].e)->flows.len, runs[k].whole);
		assert_null(pk(r[0].e)->tlazy);
		assert_non_null(pk(r[1].e)->tlazy);
		assert_int_equal(r[1].c.nflows, runs[k].whole);
		if (pk(r[1].e)->flows.len > runs[k].most)
			fail_msg("run %zu: %zu flow records, at most %zu in flight", k,
			         pk(r[1].e)->flows.len, runs[k].most);
		print_message("# lazy %s %s, run %zu: %zu flow records (whole: %zu), %llu CNPs, "
		              "%llu drops, %llu resent\n", runs[k].lossy ? "lossy" : "paced",
		              runs[k].algo == FT_ALGO_RING ? "ring" : "tree", k,
		              pk(r[1].e)->flows.len, runs[k].whole,
		              (unsigned long long)r[1].c.ncnp, (unsigned long long)r[1].c.ndrops,
		              (unsigned long long)r[1].c.nretx);
		assert_true(r[0].c.ndrops > 0 || !runs[k].lossy);
		assert_int_equal(r[0].c.ndrops, r[1].c.ndrops);
		assert_int_equal(r[0].c.nretx, r[1].c.nretx);
		if (runs[k].algo == FT_ALGO_TREE && runs[k].cc != FT_PKT_CC_NONE)
			assert_true(r[0].c.ncnp > 0); /* (a ring's hops share no queue here) */
		assert_int_equal(r[0].c.ncnp, r[1].c.ncnp);
		assert_int_equal(r[0].c.necn, r[1].c.necn);
		assert_same_run(&r[0], &r[1]);
		pk_run_free(&r[1]);
		pk_run_free(&r[0]);
	}
}

/*
 * A lossy run arms a retransmit timer at each message's tail, one timeout (here 100 ms)
 * after its last packet left; a timer whose message was acknowledged meanwhile fires
 * nothing. The trace samples while a message is unfinished and stops at the first sample
 * that finds them all ended: the ring all-reduce of test_ring_tree_lazy under DCQCN with
 * bit errors (1e-9: 7 drops, none a message's tail), traced every microsecond on rank 0's
 * first link, has at most its makespan over the interval plus one samples, the last
 * within 100 intervals of the makespan (its fixed latencies come after the last message):
 * not one every microsecond up to the last timer, 100 ms after the op's end.
 */
static void
test_lossy_trace_ends_with_op(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
		                  .algo = FT_ALGO_RING,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 8,
		                  .ranks_per_node = 4,
		                  .bytes = 64u << 20 };
	const double dt = 1e-6, rto = 0.1;
	const uint32_t link = 0; /* n0.gpu0 -> n0.pcie0: rank 0's data leaves by it */
	struct ft_packet_cfg pc = { .cc = FT_PKT_CC_DCQCN,
		                    .fc = FT_PKT_FC_NONE,
		                    .ber = 1e-9,
		                    .rto_s = rto,
		                    .trace_links = &link,
		                    .ntrace_links = 1,
		                    .trace_interval_s = dt };
	struct pk_run r;
	const struct ft_sim_trace *t;

	(void)state;
	pk_run_nchannels = 1; /* (test_ring_tree_lazy's ring) */
	pk_run_ops_on(&r, &a, 2, 4, &pc, 1, false, 1, FT_ROUTING_ECMP);
	pk_run_nchannels = 0;
	assert_true(pk(r.e)->may_drop);
	assert_true(r.c.ndrops > 0);
	assert_true(r.c.makespan_s < rto);
	assert_int_equal(r.c.ntrace, 1);
	t = &r.c.trace[0];
	print_message("# lossy ring: makespan %.3f ms, %llu drops, %zu trace samples, the last at "
	              "%.3f ms\n", r.c.makespan_s * 1e3, (unsigned long long)r.c.ndrops,
	              t->nsamples, t->nsamples ? t->t_s[t->nsamples - 1] * 1e3 : 0.0);
	assert_true(t->nsamples > 0);
	if ((double)t->nsamples > r.c.makespan_s / dt + 1)
		fail_msg("%zu samples of %g s for a makespan of %g s", t->nsamples, dt,
		         r.c.makespan_s);
	assert_true(t->t_s[t->nsamples - 1] <= r.c.makespan_s + dt);
	assert_true(t->t_s[t->nsamples - 1] >= r.c.makespan_s - 100 * dt);
	pk_run_free(&r);
}

/*
 * The labels of the NVLS tree the runner builds (sim/nccl.c: 8 heads a node, one per NIC,
 * on 2 DGX H100 nodes), copied on 4 channels: a node's in-node flows come together, its
 * head 1's first; every in-node flow of a head names the first of its own channel's two
 * copies, and that head sends up or down the network on exactly those two; a rank that is
 * no head has none; every copy of every channel is some head's, once per node.
 */
static void
test_nvls_tree_labels(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
		                  .algo = FT_ALGO_NVLS_TREE,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 16,
		                  .ranks_per_node = 8,
		                  .bytes = 64u << 20 };
	uint32_t nch = 4, heads = 4, f, g, groups = 0;
	uint32_t owner[64][2]; /* [pipe][node]: the rank whose in-node flows name it, + 1 */
	struct ft_schedule s, out;
	const struct ft_sched_phase *ph = runner_sched(&a, 2, nch, heads, &s, &out);

	(void)state;
	memset(owner, 0, sizeof(owner));
	for (f = 0; f < ph->nflows; f++) {
		const struct ft_sched_flow *fl = ft_vec_at(&out.flows, ph->first_flow + f);
		bool in = fl->dst == FT_SCHED_INNET, innet = in || fl->src == FT_SCHED_INNET;
		uint32_t rank = in ? fl->src : fl->dst;

		if (!innet)
			continue;
		assert_int_equal(fl->dir, in ? FT_SCHED_UP : FT_SCHED_DOWN);
		groups += in && fl->head == 1;
		if (fl->head == 0) {
			assert_int_equal(fl->pipe, 0);
			continue;
		}
		assert_true(fl->head <= heads);
		assert_int_equal((fl->pipe - 1) % 2, 0);
		/* channel c's copies come after channel c - 1's: 2 x heads each */
		assert_int_equal((fl->pipe - 1) / 2 % heads, fl->head - 1);
		assert_int_equal(groups, (fl->pipe - 1) / (2 * heads) * 2 + rank / 8 + 1);
		owner[fl->pipe][rank / 8] = rank + 1;
	}
	assert_int_equal(groups, nch * 2);
	for (f = 0; f < ph->nflows; f++) {
		const struct ft_sched_flow *fl = ft_vec_at(&out.flows, ph->first_flow + f);
		uint32_t base;

		if (fl->src == FT_SCHED_INNET || fl->dst == FT_SCHED_INNET || fl->relay)
			continue;
		base = fl->pipe - (fl->pipe - 1) % 2;
		/* a network edge leaves the head that names its copy, on its node */
		assert_int_equal(owner[base][fl->src / 8], fl->src + 1);
		assert_int_equal(fl->head, (fl->pipe - 1) / 2 % heads + 1);
	}
	for (g = 1; g <= 2 * heads * nch; g += 2)
		assert_true(owner[g][0] && owner[g][1]);
	ft_schedule_release(&out);
	ft_schedule_release(&s);
}

/*
 * A CollNet pipeline in the packet engine (NCCL's chunks, kb NA-ALGO-COLLNET; the count
 * op->pipe_chunks sets, else ft_model_collnet_chunking()): a chain of two NVLink hops of
 * S = 64 MiB up to the switches, one copy, as test_flow_pipelines_chunks_closed_form
 * gives the flow engine. In k = 8 chunks the second hop forwards chunk c once it has all
 * arrived, so the last chunk ends at (k + 1) chunk times plus the two hops' path
 * latencies; in one chunk the hops take turns, 2 (S / R + L). Within packet granularity:
 * a packet's store and forward at the NVSwitch on each hop, up to 4 packet times over,
 * and a packet time under (the engine's clock counts picoseconds, each packet's
 * serialisation rounded). Whole
 * flows (packet.chunking: off, or CollNet sent whole) run both hops at once, S / R + 2 L,
 * a chunk time short of 8 chunks. The flow engine's chunks pay a path latency for each of
 * a flow's three pieces: it is 2 L slower at k = 8 and the same at k = 1, within those
 * packet times.
 */
static void
test_collnet_closed_form(void **state)
{
	static const uint32_t ks[] = { 8, 1, 0 }; /* 0: whole */
	struct ft_cluster_spec spec;
	struct ft_topo *t = NULL;
	struct ft_error err = { 0 };
	struct ft_path path;
	uint32_t rank_gpu[3];
	const uint64_t S = 64u << 20;
	double R = INFINITY, L, pkt;
	struct ft_sim_cfg cfg;

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100", &spec, &err), 0);
	assert_int_equal(ft_topo_build(&spec, &t, &err), 0);
	for (uint32_t r = 0; r < 3; r++)
		rank_gpu[r] = ft_topo_gpu(t, 0, r);
	ft_sim_cfg_init(&cfg);
	assert_int_equal(ft__sim_route(t, &cfg, rank_gpu[0], rank_gpu[1], 0, NULL, NULL, &path,
	                               &err),
	                 0);
	for (uint32_t i = 0; i < path.nlinks; i++)
		R = fmin(R, ft_topo_link(t, path.links[i])->cap_Bps);
	L = path.lat_s;
	for (size_t i = 0; i < FT_ARRAY_SIZE(ks); i++) {
		uint32_t k = ks[i];
		double c = k ? (double)S / k / R : 0;
		double want = k == 8 ? (k + 1) * c + 2 * L : k == 1 ? 2 * (c + L) : S / R + 2 * L;
		double flow_extra = k == 8 ? 2 * L : 0;
		struct ft_schedule sch;
		struct ft_sched_phase ph = { .steps = 2, .first_flow = 0, .nflows = 2, .npairs = 2 };
		struct ft_sched_flow fl[2] = {
			{ .src = 0, .dst = 1, .bytes = S, .pipe = 1, .dir = FT_SCHED_UP },
			{ .src = 1, .dst = 2, .bytes = S, .pipe = 1, .dir = FT_SCHED_UP },
		};
		struct ft_packet_cfg pc = { .chunking = k ? FT_PKT_CHUNK_AUTO : FT_PKT_CHUNK_OFF };
		struct ft_engine *e = NULL, *ef = NULL;
		struct ft_sim_op op = { .rank_gpu = rank_gpu, .after = -1, .pipe_chunks = k };
		struct ft_sim_counters cn, cf;

		ft_schedule_init(&sch);
		sch.op = FT_OP_ALL_REDUCE;
		sch.algo = FT_ALGO_COLLNET;
		sch.proto = FT_PROTO_SIMPLE;
		sch.nranks = 3;
		sch.ranks_per_node = 3;
		sch.bytes = S;
		sch.proto_eff = 1.0;
		ft_strlcpy(ph.what, "chain", sizeof(ph.what));
		assert_int_equal(ft_vec_push(&sch.phases, &ph), 0);
		assert_int_equal(ft_vec_push(&sch.flows, &fl[0]), 0);
		assert_int_equal(ft_vec_push(&sch.flows, &fl[1]), 0);
		op.sched = &sch;
		cfg.packet = &pc;
		assert_int_equal(ft_packet_engine.create(t, &cfg, &e, &err), 0);
		/* (built whole: every chunk's record stays to be counted) */
		ft_container_of(e, struct pk_engine, base)->tree_eager = true;
		assert_true(ft_packet_engine.submit(e, &op, &err) >= 0);
		assert_int_equal(ft_packet_engine.run(e, 0, &err), 0);
		assert_int_equal(ft_packet_engine.counters(e, &cn, &err), 0);
		pkt = (double)pk(e)->mtu / R;
		/* every chunk a flow: k per hop */
		assert_int_equal(pk(e)->flows.len, 2 * (k ? k : 1));
		assert_true(fabs(cn.bytes - 2.0 * (double)S) <= 1.0);
		print_message("# %u chunks: %.3f us, by hand %.3f us (a packet %.4f us)\n", k,
		              cn.makespan_s * 1e6, want * 1e6, pkt * 1e6);
		if (!(cn.makespan_s >= want - pkt && cn.makespan_s <= want + 4 * pkt))
			fail_msg("%u chunks: %.9g s, closed form %.9g s - 1 to + 4 packets of %.3g s",
			         k, cn.makespan_s, want, pkt);
		if (k == 8 && !(fabs(cn.makespan_s - (S / R + 2 * L)) > c / 2))
			fail_msg("8 chunks: %.9g s, as whole flows", cn.makespan_s);
		/* the flow engine on the same schedule and chunks */
		assert_int_equal(ft_flow_engine.create(t, &cfg, &ef, &err), 0);
		assert_true(ft_flow_engine.submit(ef, &op, &err) >= 0);
		assert_int_equal(ft_flow_engine.run(ef, 0, &err), 0);
		assert_int_equal(ft_flow_engine.counters(ef, &cf, &err), 0);
		print_message("# %u chunks: flow engine %.3f us\n", k, cf.makespan_s * 1e6);
		if (!(fabs(cf.makespan_s - flow_extra - cn.makespan_s) <= 4 * pkt))
			fail_msg("%u chunks: packet %.9g s, flow %.9g s (%.3g s apart by hand)", k,
			         cn.makespan_s, cf.makespan_s, flow_extra);
		ft_flow_engine.destroy(ef);
		ft_packet_engine.destroy(e);
		ft_schedule_release(&sch);
	}
	ft_topo_free(t);
}

/*
 * CollNetDirect's hops inside a node are cut into NCCL's chunks too, not sent whole
 * (NVIDIA/nccl src/device/all_reduce.h: the scatter and broadcast warps work on the same
 * loop as the ones that feed the network, kb NA-ALGO-COLLNET). On 2 DGX H100 x 8 GPUs on
 * a SHARP fabric, made ready as `fabtune sim` makes it (ft__sim_prepare_op(): 8 channels,
 * NCCL's link rates and efficiency), every connection of the phase, the 2 x 8 x 7
 * scatters to the heads and broadcasts back of each channel as well as the 2 x 8 up into
 * the switches and down, moves k = ft_model_collnet_chunking() chunks (1 MiB: 1, 4 MiB: 1,
 * 64 MiB: 11 on this cluster, whose CollNet runs 24 channels in NCCL: the ring graph's 8 x
 * 48 copied to 16 by ncclTopoPostset, half as many again for CollNet), each a message of
 * its own. Against the flow engine in the
 * same chunks (the times of `fabtune sim tests/fixtures/spec/sharp-2x8.yaml --algo
 * collnet_direct`): in one loop (k = 1) the four hops take turns in both, and the packet
 * engine is ahead (52.23 against 54.76 us at 1 MiB, 75.84 against 82.39 at 4 MiB): each
 * copy of a channel goes on to its next hop once its own chunk is in, where the flow
 * engine waits for a wave of the whole stage. In 11 chunks both run the kernel's first and
 * last rounds (ft__sim_collnet_stages()) and each is held to the model's pipeline, which
 * sums those rounds (model/pipeline.c collnet_rounds_s()): the flow engine within 3% on
 * either side, the packet engine 5 % under to 3 % over: packet 413.54, flow 432.53
 * against the model's 430.53 us (-3.9 and +0.5 %). The packet engine's switches stream
 * a chunk (pkt_tree.c stream_switch()), as the model's one network stage has it; before,
 * they held it whole, a chunk's time more in its fill and drain (419.93, -2.5 %), which
 * hid part of the drain below: its last loops cross at the links' rates. They hold
 * the rounds between differently, so they bracket the model rather than meet: the packet
 * engine starts a loop no earlier than its pace and lets the data carry the network and
 * the broadcast, its last loops at the links' rates where the model's rounds run at the
 * kernel's x0.85 of them; the flow engine paces each stage's middle chunks as one flow
 * from the end of the whole stage's first chunks and starts its last chunks after all of
 * them. Before the engines ran those rounds at the pace (packet 455.70, flow 448.18: +5.8
 * and +4.1 %, both outside 3%).
 */
/* The model's time of a CollNetDirect all-reduce of @bytes on @spec's 16 ranks, its
 * pipeline's rounds in (model/pipeline.c collnet_rounds_s()), seconds. */
static double
collnet_direct_model_s(const struct ft_cluster_spec *spec, uint64_t bytes)
{
	struct ft_model_query q;
	struct ft_model_result m;
	struct ft_error err = { 0 };

	ft_model_query_init(&q, FT_OP_ALL_REDUCE, bytes);
	q.force_algo = true;
	q.algo = FT_ALGO_COLLNET;
	q.force_proto = true;
	q.proto = FT_PROTO_SIMPLE;
	q.collnet = FT_COLLNET_DIRECT;
	q.ngpus = 16;
	assert_int_equal(ft_model_eval(spec, &q, &m, &err), 0);
	assert_true(m.time_s > 0);
	return m.time_s;
}

static void
test_collnet_direct_chunks_in_node(void **state)
{
	static const uint64_t sizes[] = { 1u << 20, 4u << 20, 64u << 20 };
	const struct ft_engine_ops *eng[2] = { &ft_packet_engine, &ft_flow_engine };
	struct ft_cluster_spec spec;
	struct ft_topo *t[2] = { NULL, NULL };
	struct ft_error err = { 0 };
	uint32_t rank_gpu[16];
	struct ft_sim_cfg cfg;

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &spec, &err), 0);
	spec.fabric.sharp = true;
	for (uint32_t x = 0; x < 2; x++) {
		assert_int_equal(ft_topo_build(&spec, &t[x], &err), 0);
		assert_int_equal(ft__sim_prepare_topo(t[x], eng[x], &err), 0);
	}
	for (uint32_t r = 0; r < 16; r++)
		rank_gpu[r] = ft_topo_gpu(t[0], r / 8, r % 8);
	ft__sim_prepare_cfg(&spec, &cfg);
	for (size_t i = 0; i < FT_ARRAY_SIZE(sizes); i++) {
		struct sc_op o = { .op = FT_OP_ALL_REDUCE,
			           .algo = FT_ALGO_COLLNET,
			           .collnet = FT_COLLNET_DIRECT,
			           .proto = SC_PROTO_AUTO,
			           .bytes = sizes[i],
			           .repeat = 1 };
		struct ft_sim_counters c[2];
		struct ft_model_links l;
		struct ft_model_chunking ch;
		size_t conns = 0;
		uint64_t k;

		assert_int_equal(ft_model_links_get(&spec, 0, 0, 0, &l, &err), 0);
		l.nranks = 16;
		l.nnodes = 2;
		l.ppn = 8;
		k = ft_model_collnet_chunking(&l, sizes[i], false, &ch);
		assert_int_equal(k, i < 2 ? 1 : 11);
		for (uint32_t x = 0; x < 2; x++) {
			struct ft_schedule sch;
			struct ft_engine *e = NULL;
			struct ft_sim_op op = { .rank_gpu = rank_gpu, .after = -1, .sched = &sch };
			size_t f, in_node = 0;

			assert_int_equal(ft__sim_prepare_op(t[x], eng[x], &o, rank_gpu, 16, 8, &sch,
			                                    &op.conn_cap_Bps, &err),
			                 0);
			assert_false(sch.collnet_chain);
			for (f = 0; f < sch.flows.len; f++) {
				const struct ft_sched_flow *fl = ft_vec_at(&sch.flows, f);

				in_node += fl->src != FT_SCHED_INNET && fl->dst != FT_SCHED_INNET;
			}
			conns = sch.flows.len;
			/* 8 channels, each with every hop of both nodes */
			assert_int_equal(in_node, 8 * 2 * 2 * 8 * 7);
			assert_int_equal(conns - in_node, 8 * 2 * 2 * 8);
			assert_int_equal(eng[x]->create(t[x], &cfg, &e, &err), 0);
			/* (built whole: every chunk's record stays to be counted) */
			if (x == 0)
				ft_container_of(e, struct pk_engine, base)->tree_eager = true;
			assert_true(eng[x]->submit(e, &op, &err) >= 0);
			assert_int_equal(eng[x]->run(e, 0, &err), 0);
			assert_int_equal(eng[x]->counters(e, &c[x], &err), 0);
			/* (a connection into or out of the switches: two messages a chunk, its
			 * unit and the rest, pkt_tree.c stream_switch()) */
			if (x == 0)
				assert_int_equal(pk(e)->flows.len,
				                 (in_node + 2 * (conns - in_node)) * k);
			eng[x]->destroy(e);
			ft_schedule_release(&sch);
		}
		print_message("# CollNetDirect %llu MiB: %llu chunks a connection; packet %.2f us, "
		              "flow %.2f us\n",
		              (unsigned long long)(sizes[i] >> 20), (unsigned long long)k,
		              c[0].makespan_s * 1e6, c[1].makespan_s * 1e6);
		if (k == 1) {
			assert_true(c[0].makespan_s < c[1].makespan_s &&
			            c[0].makespan_s > 0.9 * c[1].makespan_s);
		} else {
			/* each engine near the model's pipeline (the comment above) */
			double m = collnet_direct_model_s(&spec, sizes[i]);

			print_message("# CollNetDirect %llu MiB: model %.2f us\n",
			              (unsigned long long)(sizes[i] >> 20), m * 1e6);
			assert_true(c[0].makespan_s / m - 1 >= -0.05 &&
			            c[0].makespan_s / m - 1 <= 0.03);
			assert_true(fabs(c[1].makespan_s / m - 1) <= 0.03);
		}
	}
	ft_topo_free(t[0]);
	ft_topo_free(t[1]);
}

/*
 * One switch, two children: 2 DGX H100 nodes with SHARP, one rank each on GPU 0 (both NICs
 * on one leaf), a CollNet all-reduce of one chunk of @S each way, uncapped, built whole
 * (every message's record stays to be read) and run in the packet engine. The two tests
 * below read it; switch_free() releases it.
 */
struct switch_run {
	struct ft_topo *t;
	struct ft_sim_cfg cfg;
	uint32_t rank_gpu[2], sw;
	struct ft_schedule sch;
	struct ft_sim_op op;
	struct ft_engine *e;
};

static void
switch_run(struct switch_run *r, uint64_t S)
{
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };
	struct ft_sched_phase ph = { .steps = 2, .first_flow = 0, .nflows = 4, .npairs = 4 };
	struct ft_sched_flow fl[4] = {
		{ .src = 0, .dst = FT_SCHED_INNET, .bytes = S, .pipe = 1, .dir = FT_SCHED_UP },
		{ .src = 1, .dst = FT_SCHED_INNET, .bytes = S, .pipe = 1, .dir = FT_SCHED_UP },
		{ .src = FT_SCHED_INNET, .dst = 0, .bytes = S, .pipe = 1, .dir = FT_SCHED_DOWN },
		{ .src = FT_SCHED_INNET, .dst = 1, .bytes = S, .pipe = 1, .dir = FT_SCHED_DOWN },
	};

	memset(r, 0, sizeof(*r));
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &spec, &err), 0);
	spec.fabric.sharp = true;
	assert_int_equal(ft_topo_build(&spec, &r->t, &err), 0);
	ft_sim_cfg_init(&r->cfg);
	for (uint32_t k = 0; k < 2; k++)
		r->rank_gpu[k] = ft_topo_gpu(r->t, k, 0);
	r->sw = ft__sim_innet_vertex(r->t, r->rank_gpu[0], FT_ALGO_COLLNET);
	assert_int_equal(ft__sim_innet_vertex(r->t, r->rank_gpu[1], FT_ALGO_COLLNET), r->sw);
	ft_schedule_init(&r->sch);
	r->sch.op = FT_OP_ALL_REDUCE;
	r->sch.algo = FT_ALGO_COLLNET;
	r->sch.proto = FT_PROTO_SIMPLE;
	r->sch.nranks = 2;
	r->sch.ranks_per_node = 1;
	r->sch.bytes = S;
	r->sch.proto_eff = 1.0;
	ft_strlcpy(ph.what, "collnet", sizeof(ph.what));
	assert_int_equal(ft_vec_push(&r->sch.phases, &ph), 0);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(ft_vec_push(&r->sch.flows, &fl[i]), 0);
	r->op = (struct ft_sim_op){ .rank_gpu = r->rank_gpu, .after = -1, .pipe_chunks = 1,
		                    .sched = &r->sch };
	assert_int_equal(ft_packet_engine.create(r->t, &r->cfg, &r->e, &err), 0);
	ft_container_of(r->e, struct pk_engine, base)->tree_eager = true;
	assert_true(ft_packet_engine.submit(r->e, &r->op, &err) >= 0);
	assert_int_equal(ft_packet_engine.run(r->e, 0, &err), 0);
}

static void
switch_free(struct switch_run *r)
{
	ft_packet_engine.destroy(r->e);
	ft_schedule_release(&r->sch);
	ft_topo_free(r->t);
}

/*
 * SHARP's switches stream a chunk (pkt_tree.c stream_switch(); kb IB-SHARP, streaming
 * aggregation; NVIDIA/nccl v2.27.7-1 src/transport/coll_net.cc collNetIallreduce(): a
 * step's send and receive posted as one iallreduce). One switch, two children
 * (switch_run()), one chunk of S = 4 MiB each way at the path's rate R (its slowest link),
 * uncapped.
 * The last child's first unit (one packet, pkt = MTU / R) is at the switch at L_up plus
 * one packet per hop at most; the first byte down leaves then, within a packet: not S / R
 * later, as a switch that holds the chunk whole sends it. The last unit down leaves once
 * the last byte up is in, so the op ends at S / R + L_up + L_down within a few packets,
 * not 2 S / R. Before the switches streamed, the first byte down left at 87.58 us (S / R
 * 87.38) and the op took 2 S / R (175.31 us; now 88.02 against 87.93 by hand).
 */
static void
test_collnet_switch_streams(void **state)
{
	const uint64_t S = 4u << 20;
	struct switch_run r;
	struct ft_error err = { 0 };
	struct ft_path path;
	double R = INFINITY, L_up, L_dn, pkt, first_in = 0, first_down = INFINITY, t0 = INFINITY;
	double end = 0, want;
	uint32_t hops, nup = 0, ndown = 0, sw;
	struct ft_engine *e;
	struct pk_engine *pe;

	(void)state;
	switch_run(&r, S);
	e = r.e;
	sw = r.sw;
	assert_int_equal(ft__sim_route(r.t, &r.cfg, r.rank_gpu[0], sw, 0, NULL, NULL, &path, &err),
	                 0);
	for (uint32_t i = 0; i < path.nlinks; i++)
		R = fmin(R, ft_topo_link(r.t, path.links[i])->cap_Bps);
	L_up = path.lat_s;
	hops = path.nlinks;
	assert_int_equal(ft__sim_route(r.t, &r.cfg, sw, r.rank_gpu[0], 0, NULL, NULL, &path, &err),
	                 0);
	L_dn = path.lat_s;
	pe = ft_container_of(e, struct pk_engine, base);
	pkt = (double)pk(e)->mtu / R;
	/* the last child's first unit in: a unit's own message's arrival, or where a chunk is
	 * one message its first packet's, L_up + pkt after it starts */
	for (uint32_t unit = 2; unit-- > 0 && first_in == 0;) {
		for (size_t i = 0; i < pk(e)->flows.len; i++) {
			const struct pk_flow *f = ft_vec_at(&pk(e)->flows, i);
			double st = (double)f->t_start_ps / PK_PS_PER_S;
			double done = (double)task_at(pe, f->task)->t_done_ps / PK_PS_PER_S;

			if (f->dst == sw && unit == (f->bytes == pk(e)->mtu)) {
				nup++;
				t0 = fmin(t0, st);
				first_in = fmax(first_in, unit ? done : st + L_up + pkt);
			}
		}
	}
	for (size_t i = 0; i < pk(e)->flows.len; i++) {
		const struct pk_flow *f = ft_vec_at(&pk(e)->flows, i);

		if (f->src == sw) {
			ndown++;
			first_down = fmin(first_down, (double)f->t_start_ps / PK_PS_PER_S);
			end = fmax(end, (double)task_at(pe, f->task)->t_done_ps / PK_PS_PER_S);
		}
	}
	assert_true(nup >= 2 && ndown >= 2);
	first_in -= t0;
	first_down -= t0;
	end -= t0;
	want = (double)S / R + L_up + L_dn;
	print_message("# S / R %.3f us, a packet %.4f us, L up %.3f down %.3f us: last first "
	              "unit in at %.3f us, first byte down at %.3f us; end %.3f us (by hand "
	              "%.3f)\n",
	              S / R * 1e6, pkt * 1e6, L_up * 1e6, L_dn * 1e6, first_in * 1e6,
	              first_down * 1e6, end * 1e6, want * 1e6);
	if (!(first_in <= L_up + 2 * pkt && first_down >= first_in - pkt / 2 &&
	      first_down <= first_in + pkt))
		fail_msg("first byte down at %.9g s: not within a packet (%.3g s) of the last "
		         "child's first unit in (%.9g s)",
		         first_down, pkt, first_in);
	if (!(end >= want - pkt && end <= want + (hops + 4) * pkt))
		fail_msg("end %.9g s: closed form S / R + L_up + L_down = %.9g s, - 1 to + %u "
		         "packets of %.3g s",
		         end, want, hops + 4, pkt);
	switch_free(&r);
}

/*
 * The flows into SHARP's switch of switch_run()'s op (one switch, two children, one chunk
 * of @S each way, uncapped), into @nin, and of them those of one packet (a streamed
 * chunk's first unit, pkt_tree.c stream_switch()) into @nunit.
 */
static void
switch_flows(uint64_t S, uint32_t *nin, uint32_t *nunit)
{
	struct switch_run r;

	switch_run(&r, S);
	assert_int_equal(pk(r.e)->mtu, 4096); /* (the sizes below are in its packets) */
	*nin = *nunit = 0;
	for (size_t i = 0; i < pk(r.e)->flows.len; i++) {
		const struct pk_flow *f = ft_vec_at(&pk(r.e)->flows, i);

		if (f->dst == r.sw) {
			(*nin)++;
			*nunit += f->bytes == pk(r.e)->mtu;
		}
	}
	switch_free(&r);
}

/*
 * A chunk under two packets goes through SHARP's switches whole (pkt_tree.c
 * stream_switch(): a unit and a rest of at least a packet each, or one message): at 1.5
 * packets each child sends its chunk up as one message, none of one packet; at 3 packets,
 * as two, the first of one packet. With the fallback taken out, the 1.5-packet chunk went
 * up as two messages of 0.75 packet (the unit capped at half the chunk) and the test fails.
 */
static void
test_collnet_switch_small_whole(void **state)
{
	uint32_t nin, nunit;

	(void)state;
	switch_flows(4096 * 3 / 2, &nin, &nunit);
	print_message("# 1.5 packets: %u flows into the switch, %u of one packet\n", nin, nunit);
	assert_int_equal(nin, 2);
	assert_int_equal(nunit, 0);
	switch_flows(4096 * 3, &nin, &nunit);
	print_message("# 3 packets: %u flows into the switch, %u of one packet\n", nin, nunit);
	assert_int_equal(nin, 4);
	assert_int_equal(nunit, 2);
}

/*
 * The packet and flow engines on NCCL's CollNet schedules (sim/nccl.c, coll/schedule.c)
 * over 2 DGX H100 nodes x 8 GPUs on a SHARP fabric, both in the same chunks
 * (ft_model_collnet_chunking()), uncapped: CollNetDirect and CollNetChain all-reduces of 1
 * to 64 MiB end within AGREE_PCT of each other. Both stream a chunk through the
 * switches: the flow engine's flows out of them in the stage of the flows into them
 * (engine_flow.c phase_stages()), the packet engine's way down leaving once every rank's
 * first unit is up (pkt_tree.c stream_switch(); kb IB-SHARP, NCCL's one iallreduce a
 * step). Before, the packet engine's switches sent a chunk down once all of it was up,
 * one network stage more in its fill: CollNetDirect 1 MiB 55.39 against 52.36 us
 * (+5.8 %, where the test then fails), 16 MiB 125.96 against 112.27 (+12.2 %). Now
 * within 1.1 % at every size (CollNetChain 64 MiB 330.98 against 334.64, the widest).
 */
#define AGREE_PCT 2.0

static void
test_collnet_engines_agree(void **state)
{
	static const uint64_t sizes[] = { 1u << 20, 4u << 20, 8u << 20, 16u << 20, 64u << 20 };
	struct ft_cluster_spec spec;
	struct ft_topo *t = NULL;
	struct ft_error err = { 0 };
	uint32_t rank_gpu[16];
	struct ft_sim_cfg cfg;

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &spec, &err), 0);
	spec.fabric.sharp = true;
	assert_int_equal(ft_topo_build(&spec, &t, &err), 0);
	for (uint32_t r = 0; r < 16; r++)
		rank_gpu[r] = ft_topo_gpu(t, r / 8, r % 8);
	ft_sim_cfg_init(&cfg);
	for (uint32_t chain = 0; chain < 2; chain++) {
		for (size_t i = 0; i < FT_ARRAY_SIZE(sizes); i++) {
			struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
				                  .algo = FT_ALGO_COLLNET,
				                  .proto = FT_PROTO_SIMPLE,
				                  .nranks = 16,
				                  .ranks_per_node = 8,
				                  .bytes = sizes[i],
				                  .collnet_chain = chain };
			struct ft_schedule sch;
			struct ft_engine *e = NULL, *ef = NULL;
			struct ft_sim_op op = { .rank_gpu = rank_gpu, .after = -1 };
			struct ft_sim_counters cn, cf;
			double gap;

			ft_schedule_init(&sch);
			assert_int_equal(ft_coll_schedule(&a, &sch, &err), 0);
			assert_true(sch.collnet_chain == (chain != 0));
			op.sched = &sch;
			assert_int_equal(ft_packet_engine.create(t, &cfg, &e, &err), 0);
			assert_true(ft_packet_engine.submit(e, &op, &err) >= 0);
			assert_int_equal(ft_packet_engine.run(e, 0, &err), 0);
			assert_int_equal(ft_packet_engine.counters(e, &cn, &err), 0);
			assert_int_equal(ft_flow_engine.create(t, &cfg, &ef, &err), 0);
			assert_true(ft_flow_engine.submit(ef, &op, &err) >= 0);
			assert_int_equal(ft_flow_engine.run(ef, 0, &err), 0);
			assert_int_equal(ft_flow_engine.counters(ef, &cf, &err), 0);
			print_message("# %s %llu MiB: packet %.3f us, flow %.3f us\n",
			              chain ? "CollNetChain" : "CollNetDirect",
			              (unsigned long long)(sizes[i] >> 20), cn.makespan_s * 1e6,
			              cf.makespan_s * 1e6);
			gap = fabs(cn.makespan_s - cf.makespan_s) / cf.makespan_s;
			if (!(gap <= AGREE_PCT / 100))
				fail_msg("%s %llu MiB: packet %.9g s, flow %.9g s: more than "
				         "%.1f %% apart",
				         chain ? "CollNetChain" : "CollNetDirect",
				         (unsigned long long)(sizes[i] >> 20), cn.makespan_s,
				         cf.makespan_s, AGREE_PCT);
			ft_flow_engine.destroy(ef);
			ft_packet_engine.destroy(e);
			ft_schedule_release(&sch);
		}
	}
	ft_topo_free(t);
}

/*
 * A CollNet phase streamed through SHARP's switches (pkt_tree.c stream_switch(): a
 * connection into or out of them two messages a chunk on one QP) is built as its messages
 * may start, as a plain tree's is (lazy_tree(); a chunk's two messages told by the chunk
 * they wait for, same_next(), and paced, started and sequenced on their QP by chunk), and
 * holds the messages in flight, not the phase. CollNetDirect and CollNetChain all-reduces
 * on 2 DGX H100 x 8 GPUs with SHARP, 1 and 16 MiB, with 1 and 2 QPs a connection, under
 * DCQCN and lossy (test_ring_tree_lazy_lossy_paced's marking and losses): every counter of
 * the run is the whole build's to the bit, and the lazy run keeps fewer flow records than
 * the whole one (CollNetChain 16 MiB: 304 to 336 against 3,168; CollNetDirect 1 MiB 160
 * against 288). Before, lazy_tree_ok() refused a streamed connection and the phase was
 * built whole (no lazy phase: the test fails there).
 */
static void
test_collnet_streamed_lazy(void **state)
{
	static const uint64_t sizes[] = { 1u << 20, 16u << 20 };
	const struct {
		uint32_t qps;
		enum ft_pkt_cc cc;
		bool lossy;
	} runs[] = { { 1, FT_PKT_CC_NONE, false },
		     { 2, FT_PKT_CC_NONE, false },
		     { 2, FT_PKT_CC_DCQCN, false },
		     { 1, FT_PKT_CC_DCQCN, true },
		     { 2, FT_PKT_CC_NONE, true } };

	(void)state;
	pk_run_sharp = true;
	for (uint32_t chain = 0; chain < 2; chain++)
		for (size_t i = 0; i < FT_ARRAY_SIZE(sizes); i++)
			for (size_t k = 0; k < FT_ARRAY_SIZE(runs); k++) {
				struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
					                  .algo = FT_ALGO_COLLNET,
					                  .proto = FT_PROTO_SIMPLE,
					                  .nranks = 16,
					                  .ranks_per_node = 8,
					                  .bytes = sizes[i],
					                  .collnet_chain = chain };
				/* (test_ring_tree_lazy_lossy_paced's marking and losses) */
				struct ft_packet_cfg pc = {
					.cc = runs[k].cc,
					.ecn_kmin_bytes = 1,
					.ecn_kmax_bytes = 2,
					.ecn_pmax = 1,
					.fc = runs[k].lossy ? FT_PKT_FC_NONE : FT_PKT_FC_AUTO,
					.ber = runs[k].lossy ? 1e-7 : 0,
					.rto_s = runs[k].lossy ? 200e-6 : 0
				};
				struct pk_run r[2];
				size_t whole;

				for (int w = 0; w < 2; w++)
					pk_run_ops_on(&r[w], &a, 2, 8, &pc, runs[k].qps, w == 0, 1,
					              FT_ROUTING_ECMP);
				whole = pk(r[0].e)->flows.len;
				print_message("# lazy %s %llu MiB, run %zu: %zu flow records "
				              "(whole: %zu), %llu CNPs, %llu drops\n",
				              chain ? "CollNetChain" : "CollNetDirect",
				              (unsigned long long)(sizes[i] >> 20), k,
				              pk(r[1].e)->flows.len, whole,
				              (unsigned long long)r[1].c.ncnp,
				              (unsigned long long)r[1].c.ndrops);
				assert_null(pk(r[0].e)->tlazy);
				assert_non_null(pk(r[1].e)->tlazy);
				assert_int_equal(r[1].c.nflows, whole);
				if (!(pk(r[1].e)->flows.len < whole))
					fail_msg("%s %llu MiB run %zu: %zu flow records lazily, %zu "
					         "whole", chain ? "CollNetChain" : "CollNetDirect",
					         (unsigned long long)(sizes[i] >> 20), k,
					         pk(r[1].e)->flows.len, whole);
				assert_int_equal(r[0].c.ndrops, r[1].c.ndrops);
				assert_int_equal(r[0].c.nretx, r[1].c.nretx);
				assert_int_equal(r[0].c.ncnp, r[1].c.ncnp);
				assert_same_run(&r[0], &r[1]);
				pk_run_free(&r[1]);
				pk_run_free(&r[0]);
			}
	pk_run_sharp = false;
}

/*
 * The tree of each of @nch forced channels as NVIDIA/nccl v2.27.7-1 builds them, step by
 * step, for a search graph of @g channels (src/graph/connect.cc): ncclTopoPreset() and
 * connectTrees() give channel c tree 0 and c + g tree 1; ncclTopoPostset() doubles the
 * count (within 64), doubles it again by copyChannels() on Hopper across nodes while under
 * 16 (@dbl), keeps the first NCCL_MAX_NCHANNELS and copies channel c - n to c up to
 * NCCL_MIN_NCHANNELS. Into @tree[nch]; the channels NCCL would run in @run.
 */
static void
nccl_channel_trees(uint32_t g, bool dbl, uint32_t nch, uint32_t *tree, uint32_t *run)
{
	uint32_t t[128], n, c;

	for (c = 0; c < g; c++) {
		t[c] = 0;
		t[c + g] = 1;
	}
	n = FT_MIN(2 * g, 64u);
	if (dbl && n < 16) {
		for (c = n; c < 2 * n; c++)
			t[c] = t[c - n];
		n *= 2;
	}
	*run = n;
	n = FT_MIN(n, nch);
	for (c = n; c < nch; c++)
		t[c] = t[c - n];
	memcpy(tree, t, nch * sizeof(*t));
}

/*
 * NCCL's channels after NCCL_MIN/MAX_NCHANNELS = @nch, by release @v (ft_model_query's
 * encoding, 0 the newest), rebuilt from NVIDIA/nccl's steps apart from the code under test:
 * nccl_channel_trees() above, then (connect.cc ncclTopoPostset, v2.20.3-1 to v2.27.7-1,
 * not v2.19.4-1 nor v2.28.3-1) collChannels = nChannels and, where NVLS runs with @nvls
 * channels, copyChannels() from nChannels up to them, one channel at a time from c - nch;
 * the ring or tree launches on collChannels at v2.20-v2.21 (enqueue.cc
 * getChannnelThreadInfo) and on nChannels from v2.22.3-1 (topoGetAlgoInfo). Into
 * @tree[] the tree of each launched channel; returns their count.
 */
static uint32_t
nccl_launched_trees(uint32_t g, bool dbl, uint32_t nch, uint32_t nvls, uint32_t v,
                    uint32_t *tree)
{
	uint32_t run, count = nch, coll = nch;

	nccl_channel_trees(g, dbl, nch, tree, &run);
	if (v >= 22000 && v < 22800)
		for (; count < nvls; count++)
			tree[count] = tree[count - nch];
	return v >= 22200 && v < 22800 ? count : coll;
}

/* ft_model_nvls_copy_nchannels() and ft__sim_forced_tree() against nccl_launched_trees(). */
static void
check_launched(uint32_t g, bool dbl, uint32_t n, uint32_t nvls, uint32_t v)
{
	uint32_t tree[128], run, c, want, got;

	want = nccl_launched_trees(g, dbl, n, nvls, v, tree);
	got = ft_model_nvls_copy_nchannels(n, nvls, v, true);
	if (got != want)
		fail_msg("v%u nvls %u graph %u%s, %u forced: %u channels, NCCL %u", v, nvls, g,
		         dbl ? "x2" : "", n, got, want);
	nccl_channel_trees(g, dbl, n, tree + 64, &run);
	for (c = 0; c < want; c++)
		if (ft__sim_forced_tree(c, n, g, run) != tree[c])
			fail_msg("v%u nvls %u graph %u%s, %u forced: channel %u: tree %u", v, nvls,
			         g, dbl ? "x2" : "", n, c, tree[c]);
}

/*
 * From v2.20.3-1 to v2.27.7-1 NCCL copies the clamped channels up to its NVLS channels
 * (16 on Hopper, 24 or 32 on Blackwell), and from v2.22.3-1 its ring and tree launch on
 * them: ft_model_nvls_copy_nchannels() and ft__sim_forced_tree() past the forced count against
 * nccl_launched_trees() for graphs of 1 to 16 channels, doubled or not, NVLS channels 0,
 * 16, 24 and 32, 1 to 64 forced, at 2.19.4, 2.20.3, 2.21.5, 2.22.3, 2.25.1, 2.27.7, 2.28.3
 * and the newest. By hand, 2 DGX H100 (8 graph channels, 16 run, 16 NVLS) at 2.25:
 * NCCL_MAX_NCHANNELS=4 launches 16 channels, all tree 0; 12 launches 16, channels 12-15
 * copies of 0-3 (tree 0), so tree 1 keeps 4 of 16; 24 stays 24. At 2.21 and 2.28 4 stay 4.
 * The engines follow the newest release: on dgx-h100:2 the forced count stays as given.
 */
static void
test_forced_tree_nvls_copy(void **state)
{
	static const uint32_t vers[] = { 21904, 22003, 22105, 22203, 22501, 22707, 22803, 0 };
	static const uint32_t nvls[] = { 0, 16, 24, 32 };
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE, .algo = FT_ALGO_TREE,
		                  .proto = FT_PROTO_SIMPLE, .nranks = 16, .ranks_per_node = 8,
		                  .bytes = 256u << 20 };
	struct ft__sim_forced_trees ft;
	struct ft_cluster_spec spec;
	struct ft_schedule s;
	struct ft_error err = { 0 };
	uint32_t g, n, c, vi, ni, ones;
	int dbl;

	(void)state;
	for (vi = 0; vi < FT_ARRAY_SIZE(vers); vi++)
		for (ni = 0; ni < FT_ARRAY_SIZE(nvls); ni++)
			for (g = 1; g <= 16; g++)
				for (dbl = 0; dbl < 2; dbl++)
					for (n = 1; n <= 64; n++)
						check_launched(g, dbl, n, nvls[ni], vers[vi]);
	/* by hand: 2 DGX H100 */
	assert_int_equal(ft_model_nvls_copy_nchannels(4, 16, 22501, true), 16);
	assert_int_equal(ft_model_nvls_copy_nchannels(12, 16, 22707, true), 16);
	assert_int_equal(ft_model_nvls_copy_nchannels(24, 16, 22501, true), 24);
	assert_int_equal(ft_model_nvls_copy_nchannels(4, 16, 22105, true), 4);
	assert_int_equal(ft_model_nvls_copy_nchannels(4, 16, 22803, true), 4);
	assert_int_equal(ft_model_nvls_copy_nchannels(4, 16, 0, true), 4);
	assert_int_equal(ft_model_nvls_copy_nchannels(4, 0, 22501, true), 4);
	/* 2.21: the communicator takes the copies, the ring and tree do not; 2.22: both */
	assert_int_equal(ft_model_nvls_copy_nchannels(4, 16, 22105, false), 16);
	assert_int_equal(ft_model_nvls_copy_nchannels(4, 16, 22003, false), 16);
	assert_int_equal(ft_model_nvls_copy_nchannels(4, 16, 22203, true), 16);
	assert_int_equal(ft_model_nvls_copy_nchannels(4, 16, 22203, false), 16);
	assert_int_equal(ft_model_nvls_copy_nchannels(4, 16, 21904, false), 4);
	assert_int_equal(ft_model_nvls_copy_nchannels(4, 16, 22803, false), 4);
	for (c = 0, ones = 0; c < 16; c++) {
		assert_int_equal(ft__sim_forced_tree(c, 4, 8, 16), 0);
		ones += ft__sim_forced_tree(c, 12, 8, 16);
		if (c >= 12)
			assert_int_equal(ft__sim_forced_tree(c, 12, 8, 16), 0);
	}
	assert_int_equal(ones, 4);
	/* the engines: the newest release, no copy */
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &spec, &err), 0);
	ft_schedule_init(&s);
	assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
	assert_true(ft__sim_forced_trees_get(&spec, &s, 16, 8, 4, &ft));
	assert_int_equal(ft.graph, 8);
	assert_int_equal(ft.run, 16);
	ft_schedule_release(&s);
}

/*
 * On forced channels each channel runs the one tree NCCL puts on it (ft__sim_forced_tree()),
 * checked against NCCL's construction (nccl_channel_trees()) for every graph of 1 to 32
 * channels, with and without Hopper's doubling, and 1 to 64 forced channels; by hand on 2
 * DGX H100 (8 graph channels, 16 run): 4 forced all tree 0, 12 tree 0 then 4 of tree 1, 24
 * tree 0, 1, then copies of the first 8. The schedule of 12 forced channels on 2 nodes:
 * channel c holds its tree's 30 flows (a chain of 8 up and down in each node, one pair
 * between), tree 0 rooted at node 0 and tree 1 at node 1 (NCCL's double binary tree over 2
 * nodes, src/graph/trees.cc), each connection carrying 1/12 of both trees' wire bytes.
 */
static void
test_forced_tree_channels(void **state)
{
	static const uint32_t want12[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 };
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE, .algo = FT_ALGO_TREE,
		                  .proto = FT_PROTO_SIMPLE, .nranks = 2, .ranks_per_node = 1,
		                  .bytes = 256u << 20 };
	struct ft__sim_forced_trees ft;
	struct ft_cluster_spec spec;
	struct ft_schedule s, out;
	struct ft_error err = { 0 };
	const struct ft_sched_phase *ph;
	uint32_t tree[64], run, g, n, c, f, flows[12] = { 0 }, first[3] = { 0, 8, 16 };
	uint64_t wire = ft__sim_tree_wire(a.bytes), up_bytes = 0;
	int dbl;

	(void)state;
	for (g = 1; g <= 32; g++)
		for (dbl = 0; dbl < 2; dbl++)
			for (n = 1; n <= 64; n++) {
				nccl_channel_trees(g, dbl, n, tree, &run);
				for (c = 0; c < n; c++)
					if (ft__sim_forced_tree(c, n, g, run) != tree[c])
						fail_msg("graph %u%s, %u forced: "
						         "channel %u: tree %u",
						         g, dbl ? "x2" : "", n, c, tree[c]);
			}
	for (c = 0; c < 24; c++) {
		assert_int_equal(ft__sim_forced_tree(c, 4, 8, 16), 0);
		assert_int_equal(ft__sim_forced_tree(c, 24, 8, 16), (c % 16) >= 8);
		if (c < 12)
			assert_int_equal(ft__sim_forced_tree(c, 12, 8, 16), want12[c]);
	}

	assert_int_equal(ft_spec_resolve("dgx-h100:2", &spec, &err), 0);
	ft_schedule_init(&s);
	assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
	s.nranks = 16;
	assert_int_equal(ft__sim_tree_uneven(&s, 2, first), 0);
	assert_true(ft__sim_forced_trees_get(&spec, &s, 16, 8, 12, &ft));
	assert_int_equal(ft.graph, 8);
	assert_int_equal(ft.run, 16);
	assert_false(ft__sim_forced_trees_get(&spec, &s, 16, 8, 0, &ft));
	ft.graph = 8;
	ft.run = 16;
	assert_int_equal(ft__sim_channelize(&s, 12, 8, 8, 8, NULL, ft_spec_node_at(&spec, 0), 0,
	                                    false, true, &ft, &out),
	                 0);
	ph = ft_sched_phase_at(&out, 0);
	for (f = 0; f < ph->nflows; f++) {
		struct ft_sched_flow fl;

		ft_sched_phase_flow(&out, ph, f, &fl);
		if (fl.relay)
			continue;
		assert_true(fl.pipe >= 1 && fl.pipe <= 24);
		c = (fl.pipe - 1u) / 2;
		assert_int_equal((fl.pipe - 1u) % 2, want12[c]);
		flows[c]++;
		assert_true(fl.bytes == wire / 12 || fl.bytes == wire / 12 + 1);
		if (fl.src / 8 != fl.dst / 8 && fl.dir == FT_SCHED_UP) {
			/* the child node sends up to the root's */
			assert_int_equal(fl.dst / 8, want12[c]);
			up_bytes += fl.bytes;
		}
	}
	for (c = 0; c < 12; c++)
		assert_int_equal(flows[c], 30);
	assert_int_equal(up_bytes, wire);
	assert_int_equal(ft__sim_pipe_channels(&out, 24), 12);
	assert_int_equal(ft__sim_pipe_channels(&out, 23), 12);
	ft_schedule_release(&out);
	ft_schedule_release(&s);
}

/* One DGX H100 beside four 4-GPU H100 nodes with two 200G NICs each. */
static const char five_text[] =
        "name: mixed-five\n"
        "nodes:\n"
        "  - { preset: dgx-h100, count: 1 }\n"
        "  - { preset: dgx-h100, count: 4, gpus: 4, nics: { count: 2, rate: 200Gbps } }\n"
        "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n";

static uint32_t
node_of(const uint32_t *first, uint32_t nnodes, uint32_t r)
{
	uint32_t k = 0;

	while (k + 1 < nnodes && r >= first[k + 1])
		k++;
	return k;
}

/*
 * Forced tree channels on nodes of different GPU counts (one DGX H100, four 4-GPU nodes:
 * ft__sim_tree_uneven() and ft__sim_channelize_uneven()): each of 4 and 12 forced channels
 * holds the one tree NCCL puts on it (ft__sim_forced_tree() of the job's graph and run
 * counts), its chains and tree edges whole (the 24 ranks' flows of one tree: 2 x 23), each
 * flow 1/nch of both trees' wire bytes; between every pair of nodes a tree's bytes are what
 * the one-channel schedule gives both of its copies there, times the share of channels that
 * run it (n_t / nch), so the node traffic is conserved, and the total between nodes is the
 * unforced schedule's (the two trees have as many edges). The job's graph has 2 channels
 * and NCCL runs 4 (the 4-GPU nodes' two rails): channels 0, 1 tree 0, 2, 3 tree 1, the
 * rest copies of those, so half the channels run each tree at 4 and 12.
 */
static void
test_forced_trees_on_uneven_nodes(void **state)
{
	static const uint32_t counts[] = { 4, 12 };
	static const uint32_t first[6] = { 0, 8, 12, 16, 20, 24 };
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE, .algo = FT_ALGO_TREE,
		                  .proto = FT_PROTO_SIMPLE, .nranks = 24, .ranks_per_node = 1,
		                  .bytes = 256u << 20 };
	const struct ft_node_spec *kind[5];
	struct ft__sim_forced_trees ft;
	struct ft_cluster_spec spec;
	struct ft_schedule s, out;
	struct ft_error err = { 0 };
	const struct ft_sched_phase *ph;
	uint64_t wire = ft__sim_tree_wire(a.bytes);
	double plain[2][5][5] = { { { 0 } } }, forced[2][5][5], total_plain = 0, total;
	uint32_t i, k, f, c, t, ntree[2], flows[12];

	(void)state;
	assert_int_equal(ft_spec_load_buffer(five_text, strlen(five_text), "five.yaml", &spec,
	                                     &err),
	                 0);
	for (k = 0; k < 5; k++)
		kind[k] = ft_spec_node_at(&spec, k);
	ft_schedule_init(&s);
	assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
	assert_int_equal(ft__sim_tree_uneven(&s, 5, first), 0);
	ph = ft_sched_phase_at(&s, 0);
	for (f = 0; f < ph->nflows; f++) {
		struct ft_sched_flow fl;
		uint32_t x, y;

		ft_sched_phase_flow(&s, ph, f, &fl);
		if (fl.relay || fl.src >= 24 || fl.dst >= 24)
			continue;
		assert_true(fl.pipe == 1 || fl.pipe == 2);
		x = node_of(first, 5, fl.src);
		y = node_of(first, 5, fl.dst);
		if (x != y) {
			plain[fl.pipe - 1][x][y] += (double)fl.bytes;
			total_plain += (double)fl.bytes;
		}
	}
	assert_true(total_plain > 0);
	assert_true(ft__sim_forced_trees_get(&spec, &s, 24, 0, 4, &ft));
	/* the 4-GPU nodes' two rails: 2 graph channels, doubled to 4 */
	assert_int_equal(ft.graph, 2);
	assert_int_equal(ft.run, 4);
	for (i = 0; i < FT_ARRAY_SIZE(counts); i++) {
		uint32_t n = counts[i];

		assert_true(ft__sim_forced_trees_get(&spec, &s, 24, 0, n, &ft));
		assert_int_equal(ft__sim_channelize_uneven(&s, n, ft.graph, 5, first, kind, 0, NULL,
		                                           &ft, &out),
		                 0);
		memset(forced, 0, sizeof(forced));
		memset(flows, 0, sizeof(flows));
		ntree[0] = ntree[1] = 0;
		for (c = 0; c < n; c++)
			ntree[ft__sim_forced_tree(c, n, ft.graph, ft.run)]++;
		ph = ft_sched_phase_at(&out, 0);
		total = 0;
		for (f = 0; f < ph->nflows; f++) {
			struct ft_sched_flow fl;
			uint32_t x, y;

			ft_sched_phase_flow(&out, ph, f, &fl);
			assert_true(fl.src < 24 && fl.dst < 24);
			assert_true(fl.pipe >= 1 && fl.pipe <= 2 * n);
			c = (fl.pipe - 1u) / 2;
			t = (fl.pipe - 1u) % 2;
			assert_int_equal(t, ft__sim_forced_tree(c, n, ft.graph, ft.run));
			assert_true(fl.bytes == wire / n || fl.bytes == wire / n + 1);
			/* a PXN hand-over's legs are one flow of the tree (relay: a leg after
			 * the first), the leg between nodes counted once as any other */
			flows[c] += !fl.relay;
			x = node_of(first, 5, fl.src);
			y = node_of(first, 5, fl.dst);
			if (x != y) {
				forced[t][x][y] += (double)fl.bytes;
				total += (double)fl.bytes;
			}
		}
		for (c = 0; c < n; c++)
			assert_int_equal(flows[c], 2 * 23);
		for (t = 0; t < 2; t++)
			for (k = 0; k < 25; k++) {
				double want = plain[t][k / 5][k % 5] * 2 * ntree[t] / n;

				assert_true(fabs(forced[t][k / 5][k % 5] - want) <= n);
			}
		/* 2 graph channels, 4 run: 4 forced are tree 0, 0, 1, 1; 12 copies of those */
		assert_int_equal(ntree[1], n / 2);
		assert_true(fabs(total - total_plain) <= 2.0 * n);
		ft_schedule_release(&out);
	}
	ft_schedule_release(&s);
}

/*
 * Forced tree channels arrive on their graph channel's NIC (nccl.c chan_nic; NVIDIA/nccl
 * src/graph/search.cc ncclTopoGetNetDev(): a channel's connections between nodes take the
 * graph's inter[] NIC, the chain's first rank's): on test_forced_trees_on_uneven_nodes'
 * nodes (graph 2 channels) every flow of channel c between nodes lands on NIC c mod 2 of
 * its destination node, through that NIC's first GPU (the DGX's GPU c mod 2, a small
 * node's GPU 2 (c mod 2)), a tree child on another rail handed on over NVLink; NICs 2 to
 * 7 of the DGX take nothing. Channels 4k to 4k + 3 run trees 0, 0, 1, 1, so each node's
 * NICs 0 and 1 take one channel of each tree per 4 and their bytes are equal.
 */
static void
test_forced_trees_arrive_on_channel_nic(void **state)
{
	static const uint32_t counts[] = { 4, 12 };
	static const uint32_t first[6] = { 0, 8, 12, 16, 20, 24 };
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
		                  .algo = FT_ALGO_TREE,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 24,
		                  .ranks_per_node = 1,
		                  .bytes = 256u << 20 };
	const struct ft_node_spec *kind[5];
	struct ft__sim_forced_trees ft;
	struct ft_cluster_spec spec;
	struct ft_schedule s, out;
	struct ft_error err = { 0 };
	uint32_t i, k, f;

	(void)state;
	assert_int_equal(
	        ft_spec_load_buffer(five_text, strlen(five_text), "five.yaml", &spec, &err), 0);
	for (k = 0; k < 5; k++)
		kind[k] = ft_spec_node_at(&spec, k);
	ft_schedule_init(&s);
	assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
	assert_int_equal(ft__sim_tree_uneven(&s, 5, first), 0);
	for (i = 0; i < FT_ARRAY_SIZE(counts); i++) {
		double in[5][8] = { { 0 } };
		const struct ft_sched_phase *ph;
		uint32_t n = counts[i], crossing = 0;

		assert_true(ft__sim_forced_trees_get(&spec, &s, 24, 0, n, &ft));
		assert_int_equal(ft.graph, 2);
		assert_int_equal(ft__sim_channelize_uneven(&s, n, ft.graph, 5, first, kind, 0, NULL,
		                                           &ft, &out),
		                 0);
		ph = ft_sched_phase_at(&out, 0);
		for (f = 0; f < ph->nflows; f++) {
			struct ft_sched_flow fl;
			uint32_t x, y, c, local, nic;

			ft_sched_phase_flow(&out, ph, f, &fl);
			x = node_of(first, 5, fl.src);
			y = node_of(first, 5, fl.dst);
			if (x == y)
				continue;
			c = (fl.pipe - 1u) / 2;
			local = fl.dst - first[y];
			nic = kind[y]->gpu_nic[local];
			assert_int_equal(nic, c % 2);
			assert_int_equal(local, y == 0 ? c % 2 : 2 * (c % 2));
			in[y][nic] += (double)fl.bytes;
			crossing++;
		}
		assert_true(crossing > 0);
		for (k = 0; k < 5; k++) {
			assert_true(in[k][0] > 0);
			assert_true(fabs(in[k][1] - in[k][0]) <= 1e-9 * in[k][0] + 2.0 * n);
		}
		for (k = 2; k < 8; k++)
			assert_true(in[0][k] == 0);
		ft_schedule_release(&out);
	}
	ft_schedule_release(&s);
}

/*
 * Forced ring channels on nodes of different GPU counts (one DGX H100 of 8 NICs, four 4-GPU
 * nodes of 2): every rank's graph is cut to the fewest channels a node's search finds (2,
 * the small nodes' rails; NVIDIA/nccl src/init.cc), and a forced channel c takes graph
 * channel c mod 2's NIC (src/graph/search.cc ncclTopoGetNetDev()), so on 12 channels every
 * flow between nodes leaves and enters the DGX on GPU 0 or 1 (rails 0 and 1), each on 6
 * channels' bytes, and every 4-GPU node on both its rails. With each channel on its own
 * rail (graph 0) the DGX's other six NICs carry a third of its crossings, each NIC's share
 * pinned (8, 8, 2, 2, 1, 1, 1, 1 of 24).
 */
static void
test_forced_rails_on_uneven_nodes(void **state)
{
	static const uint32_t first[6] = { 0, 8, 12, 16, 20, 24 };
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE, .algo = FT_ALGO_RING,
		                  .proto = FT_PROTO_SIMPLE, .nranks = 24, .ranks_per_node = 1,
		                  .bytes = 240u << 20 };
	const struct ft_node_spec *kind[5];
	struct ft_cluster_spec spec;
	struct ft_schedule s, out;
	struct ft_error err = { 0 };
	uint32_t k, graph, pass;

	(void)state;
	assert_int_equal(ft_spec_load_buffer(five_text, strlen(five_text), "five.yaml", &spec,
	                                     &err),
	                 0);
	for (k = 0; k < 5; k++)
		kind[k] = ft_spec_node_at(&spec, k);
	assert_int_equal(ft__sim_uneven_graph(&spec, 24, &graph), 0);
	assert_int_equal(graph, 2);
	ft_schedule_init(&s);
	assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
	for (pass = 0; pass < 2; pass++) {
		double dgx[8] = { 0 }, small[4][2] = { { 0 } }, tot;
		size_t p;

		assert_int_equal(ft__sim_channelize_uneven(&s, 12, pass ? 0 : graph, 5, first, kind,
		                                           0, NULL, NULL, &out),
		                 0);
		for (p = 0; p < out.phases.len; p++) {
			const struct ft_sched_phase *ph = ft_sched_phase_at(&out, p);
			uint32_t f;

			for (f = 0; f < ph->nflows; f++) {
				struct ft_sched_flow fl;
				uint32_t x, y, r, i;

				ft_sched_phase_flow(&out, ph, f, &fl);
				/* (between nodes of other shapes no sender names a NIC: each
				 * leaves by its GPU's, through the rail's proxy where PXN
				 * puts one) */
				assert_int_equal(fl.nic, 0);
				x = node_of(first, 5, fl.src);
				y = node_of(first, 5, fl.dst);
				if (x == y)
					continue;
				for (i = 0; i < 2; i++) {
					/* the NIC: its GPU's (DGX GPU g on NIC g) */
					r = i ? fl.dst : fl.src;
					if ((i ? y : x) == 0)
						dgx[r] += (double)fl.bytes;
					else /* two GPUs a NIC */
						small[(i ? y : x) - 1][(r - first[i ? y : x]) / 2] +=
						        (double)fl.bytes;
				}
			}
		}
		/* the ring enters and leaves the DGX once a channel: 2 x 2 (n - 1) / n x S */
		tot = 0;
		for (k = 0; k < 8; k++)
			tot += dgx[k];
		assert_true(fabs(tot - 4.0 * 23 / 24 * (double)a.bytes) <= 1e-6 * tot + 4096);
		for (k = 0; k < 8; k++) {
			/* graph 2: rails 0 and 1 six channels each, others idle. Graph 0: channel
			 * c enters the DGX on its own rail c mod 8 (rails 0-3 two channels, 4-7
			 * one) and leaves on the next node's rail c mod 2, from that rail's GPU
			 * (by PXN where the sender is another), so of the 24 crossings rails 0
			 * and 1 carry 2 + 6 each, rails 2 and 3 two, rails 4 to 7 one. */
			static const double share[2][8] = { { 12, 12, 0, 0, 0, 0, 0, 0 },
				                            { 8, 8, 2, 2, 1, 1, 1, 1 } };

			assert_true(fabs(dgx[k] - tot * share[pass][k] / 24) <= 1e-6 * tot + 4096);
		}
		for (k = 0; k < 4; k++) /* six channels on each of a small node's two rails */
			assert_true(small[k][0] > 0 &&
			            fabs(small[k][1] - small[k][0]) <= 1e-6 * small[k][0] + 4096);
		ft_schedule_release(&out);
	}
	ft_schedule_release(&s);
}

/* Reading @which of an op's before its first task (pkt_setup.c pipe_read()): 0 the net
 * step's links, 1 the model's pipeline, 2 the cluster's links a tree is shaped on. */
static int
tree_reading(uint32_t which, const struct ft_topo *t, const struct ft_sim_op *op)
{
	struct ft__sim_link_lats ll;
	struct ft_model_pipeline pl;
	struct ft_model_links l;

	if (which == 0)
		return ft__sim_link_lats(t, op->sched, &ll);
	if (which == 1)
		return ft__sim_pipe_model(t, op, &pl, NULL);
	return ft__sim_links(ft_topo_spec(t), 0, 0, 0, &l);
}

/* The allocations reading @which makes: each failed in turn, FT_ENOMEM, until none is. */
static unsigned long
reading_allocs(uint32_t which, const struct ft_topo *t, const struct ft_sim_op *op)
{
	unsigned long n;

	for (n = 1; n < 10000; n++) {
		bool fired;
		int rc;

		ft__alloc_fail_at(n);
		rc = tree_reading(which, t, op);
		fired = ft__alloc_failed();
		ft__alloc_fail_at(0);
		if (!fired) {
			assert_true(rc >= 0);
			break;
		}
		assert_int_equal(rc, FT_ENOMEM);
	}
	assert_true(n < 10000);
	return n - 1;
}

/*
 * A tree's and a chain's readings of the model (the pipeline nccl_fill() paces the fill
 * at and chain_channels() takes NCCL's channels from; the cluster's links an NVLS or
 * CollNet tree is shaped on) are read before the op's first task, with the net step's
 * links (pkt_setup.c pipe_read()): a reading that fails (out of memory; on nodes of
 * different GPU counts the model reads its links per node group) fails the submit in the
 * model's words and leaves the engine as it was, no task, edge or priority of an op that
 * was never submitted. A tree all-reduce and a chain broadcast of 1 MiB, Simple, on NCCL's
 * channels, priority 1, on a 4-GPU and a 2-GPU DGX H100: every allocation of the submit
 * failed in turn; the first ones, as many as the three readings make on their own, are
 * the readings' (they were "out of memory submitting an op", after the op's start and
 * phase barriers); past the last the op is submitted.
 */
static void
test_tree_reads_first(void **state)
{
	static const char text[] =
	        "name: small-mixed\n"
	        "nodes:\n"
	        "  - { preset: dgx-h100, count: 1, gpus: 4, nics: { count: 2 } }\n"
	        "  - { preset: dgx-h100, count: 1, gpus: 2, nics: { count: 1 } }\n"
	        "fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n";
	static const struct ft_coll_args cases[] = {
		{ .op = FT_OP_ALL_REDUCE,
		  .algo = FT_ALGO_TREE,
		  .proto = FT_PROTO_SIMPLE,
		  .nranks = 6,
		  .bytes = 1u << 20 },
		{ .op = FT_OP_BROADCAST,
		  .algo = FT_ALGO_RING,
		  .proto = FT_PROTO_SIMPLE,
		  .nranks = 6,
		  .bytes = 1u << 20 },
	};
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };
	struct ft_topo *t = NULL;
	struct ft_sim_cfg cfg;
	uint32_t ends[6];

	(void)state;
	assert_int_equal(ft_spec_load_buffer(text, sizeof(text) - 1, "t.yaml", &spec, &err), 0);
	assert_int_equal(ft_topo_build(&spec, &t, &err), 0);
	for (uint32_t r = 0; r < 6; r++)
		ends[r] = ft_topo_gpu(t, r < 4 ? 0 : 1, r < 4 ? r : r - 4);
	ft_sim_cfg_init(&cfg);
	for (size_t i = 0; i < FT_ARRAY_SIZE(cases); i++) {
		struct ft_schedule s;
		struct ft_sim_op op = { .rank_gpu = ends, .after = -1, .prio = 1 };
		unsigned long n, read_failed = 0, reads;

		ft_schedule_init(&s);
		assert_int_equal(ft_coll_schedule(&cases[i], &s, &err), 0);
		op.sched = &s;
		/* each reading once whole first: what a first call builds and keeps (out of
		 * the count) is then there for the counts and the submits alike */
		for (uint32_t w = 0; w < 3; w++)
			assert_true(tree_reading(w, t, &op) >= 0);
		reads = reading_allocs(0, t, &op) + reading_allocs(1, t, &op) +
		        reading_allocs(2, t, &op);
		/* the pipeline's reading allocates here (the links per node group) */
		assert_true(reading_allocs(1, t, &op) > 0);
		for (n = 1; n < 10000; n++) {
			struct ft_engine *e = NULL;
			const struct pk_engine *pe;
			size_t ntasks, nedges;
			uint32_t nprio;
			uint8_t prio_used;
			int64_t id;
			bool fired;

			assert_int_equal(ft_packet_engine.create(t, &cfg, &e, &err), 0);
			pe = pk(e);
			ntasks = pk_ntasks(pe);
			nedges = pe->edges.len;
			nprio = pe->nprio;
			prio_used = pe->prio_used;
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
			if (strstr(err.msg, "the model's links") || strstr(err.msg, "NCCL's pipeline")) {
				read_failed++;
				if (pk_ntasks(pe) != ntasks || pe->edges.len != nedges ||
				    pe->nprio != nprio || pe->prio_used != prio_used)
					fail_msg("allocation %lu failed (%s): %zu tasks, %zu edges, "
					         "priorities %u (%#x); %zu, %zu, %u (%#x) before",
					         n, err.msg, pk_ntasks(pe), pe->edges.len, pe->nprio,
					         pe->prio_used, ntasks, nedges, nprio, prio_used);
			} else if (n <= reads) {
				fail_msg("allocation %lu of the model's readings failed: %s", n,
				         err.msg);
			}
			ft_packet_engine.destroy(e);
		}
		print_message("# %s: %lu allocations, %lu of them the model's readings (%lu)\n",
		              ft_op_name(cases[i].op), n - 1, read_failed, reads);
		assert_true(n > 1 && n < 10000);
		assert_int_equal(read_failed, reads);
		ft_schedule_release(&s);
	}
	ft_topo_free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_chain_starts_at_root),
		cmocka_unit_test(test_chain_engines_agree),
		cmocka_unit_test(test_chain_ll128_hop_once),
		cmocka_unit_test(test_tree_ll128_hop_once),
		cmocka_unit_test(test_tcpx_one_node),
		cmocka_unit_test(test_ll_ring_engines_agree),
		cmocka_unit_test(test_ring_engines_agree),
		cmocka_unit_test(test_ring_span_nic_lanes),
		cmocka_unit_test(test_chain_lines_lazy),
		cmocka_unit_test(test_chain_ll_launched_channels),
		cmocka_unit_test(test_chain_one_nic_forced),
		cmocka_unit_test(test_chain_ll_rank_pace),
		cmocka_unit_test(test_chain_ll_rank_pace_split),
		cmocka_unit_test(test_forced_tree_channels),
		cmocka_unit_test(test_forced_tree_nvls_copy),
		cmocka_unit_test(test_forced_trees_on_uneven_nodes),
		cmocka_unit_test(test_forced_trees_arrive_on_channel_nic),
		cmocka_unit_test(test_forced_rails_on_uneven_nodes),
		cmocka_unit_test(test_tree_two_nodes),
		cmocka_unit_test(test_tree_corr_cut),
		cmocka_unit_test(test_tree_unchunked),
		cmocka_unit_test(test_tree_sched_marks),
		cmocka_unit_test(test_sendrecv_pxn_disable),
		cmocka_unit_test(test_sendrecv_pxn_c2c_release),
		cmocka_unit_test(test_ring_tree_rail_any_release),
		cmocka_unit_test(test_ring_leaves_by_pcie_or_pxn),
		cmocka_unit_test(test_ring_c2c_nic_by_release),
		cmocka_unit_test(test_tree_chunk_sizes),
		cmocka_unit_test(test_tree_one_domain_one_node),
		cmocka_unit_test(test_nvls_tree_closed_form),
		cmocka_unit_test(test_nvls_tree_paced),
		cmocka_unit_test(test_nvls_net_closed_form),
		cmocka_unit_test(test_tree_paced),
		cmocka_unit_test(test_tree_paced_branching),
		cmocka_unit_test(test_tree_depths_sched),
		cmocka_unit_test(test_chain_paced_fill),
		cmocka_unit_test(test_chain_fill_rounds),
		cmocka_unit_test(test_nvls_tree_records),
		cmocka_unit_test(test_collnet_closed_form),
		cmocka_unit_test(test_collnet_switch_streams),
		cmocka_unit_test(test_collnet_switch_small_whole),
		cmocka_unit_test(test_collnet_engines_agree),
		cmocka_unit_test(test_collnet_streamed_lazy),
		cmocka_unit_test(test_collnet_direct_chunks_in_node),
		cmocka_unit_test(test_nvls_tree_lazy),
		cmocka_unit_test(test_ring_tree_lazy),
		cmocka_unit_test(test_ring_tree_whole_tasks),
		cmocka_unit_test(test_ring_tree_lazy_lossy_paced),
		cmocka_unit_test(test_lossy_trace_ends_with_op),
		cmocka_unit_test(test_nvls_tree_labels),
		cmocka_unit_test(test_p2p_nchannels),
		cmocka_unit_test(test_tree_reads_first),
	};

	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

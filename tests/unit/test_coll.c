/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_coll.c - names, bus-bandwidth factors, protocol constants
 * and the schedules: flow counts, byte conservation, tree shape, implicit
 * all-to-all generation and scale.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "source_root.h"

#include <fabtune/fabtune.h>

/* |a - b| <= tol, printing both on failure (this cmocka has no double asserts). */
#define assert_double_equal(a, b, tol)                                                         \
	do {                                                                                   \
		double a_ = (a), b_ = (b);                                                     \
		if (!(fabs(a_ - b_) <= (tol))) {                                               \
			print_error("%.17g != %.17g (tolerance %g)\n", a_, b_, (double)(tol)); \
			fail();                                                                \
		}                                                                              \
	} while (0)

static void
test_names(void **state)
{
	enum ft_op op;
	enum ft_algo a;
	enum ft_proto p;

	assert_string_equal(ft_op_name(FT_OP_ALL_REDUCE), "all_reduce");
	assert_string_equal(ft_algo_name(FT_ALGO_HALVING_DOUBLING), "halving_doubling");
	assert_string_equal(ft_proto_name(FT_PROTO_LL128), "ll128");
	assert_int_equal(ft_op_from_name("allreduce", &op), 0);
	assert_int_equal(op, FT_OP_ALL_REDUCE);
	assert_int_equal(ft_op_from_name("All-Gather", &op), 0);
	assert_int_equal(op, FT_OP_ALL_GATHER);
	assert_int_equal(ft_op_from_name("alltoall", &op), 0);
	assert_int_equal(op, FT_OP_ALLTOALL);
	assert_int_equal(ft_algo_from_name("Ring", &a), 0);
	assert_int_equal(a, FT_ALGO_RING);
	assert_int_equal(ft_algo_from_name("NVLS", &a), 0);
	assert_int_equal(a, FT_ALGO_NVLS);
	assert_int_equal(ft_algo_from_name("NVLSTree", &a), 0);
	assert_int_equal(a, FT_ALGO_NVLS_TREE);
	assert_int_equal(ft_algo_from_name("CollNetDirect", &a), 0);
	assert_int_equal(a, FT_ALGO_COLLNET);
	assert_int_equal(ft_proto_from_name("LL128", &p), 0);
	assert_int_equal(p, FT_PROTO_LL128);
	assert_int_equal(ft_proto_from_name("Simple", &p), 0);
	assert_int_equal(p, FT_PROTO_SIMPLE);
	assert_int_equal(ft_proto_from_name("LL64", &p), FT_EINVAL);
	assert_int_equal(ft_algo_from_name("", &a), FT_EINVAL);
	assert_int_equal(ft_op_from_name(NULL, &op), FT_EINVAL);
	assert_string_equal(ft_op_name((enum ft_op)99), "?");
}

/* kb NA-BUSBW table. */
static void
test_busbw_factors(void **state)
{
	assert_double_equal(ft_coll_busbw_factor(FT_OP_ALL_REDUCE, 8), 14.0 / 8.0, 1e-15);
	assert_double_equal(ft_coll_busbw_factor(FT_OP_ALL_GATHER, 8), 7.0 / 8.0, 1e-15);
	assert_double_equal(ft_coll_busbw_factor(FT_OP_REDUCE_SCATTER, 16), 15.0 / 16.0, 1e-15);
	assert_double_equal(ft_coll_busbw_factor(FT_OP_ALLTOALL, 4), 3.0 / 4.0, 1e-15);
	assert_double_equal(ft_coll_busbw_factor(FT_OP_BROADCAST, 8), 1.0, 0);
	assert_double_equal(ft_coll_busbw_factor(FT_OP_REDUCE, 8), 1.0, 0);
	assert_double_equal(ft_coll_busbw_factor(FT_OP_SENDRECV, 2), 1.0, 0);
	assert_double_equal(ft_coll_busbw_factor(FT_OP_ALL_REDUCE, 1), 0.0, 0);
	assert_double_equal(ft_coll_busbw_factor(FT_OP_ALL_REDUCE, 0), 0.0, 0);
	/* bench's collectives and point-to-point tests share the table */
	assert_double_equal(ft_coll_busbw_factor(FT_OP_GATHER, 4), 3.0 / 4.0, 1e-15);
	assert_double_equal(ft_coll_busbw_factor(FT_OP_HYPERCUBE, 8), 7.0 / 8.0, 1e-15);
	assert_double_equal(ft_coll_busbw_factor(FT_OP_PT2PT_BW, 2), 1.0, 0);
}

/* The twin refuses bench-only operations by name instead of scheduling them wrong. */
static void
test_bench_only_refused(void **state)
{
	struct ft_coll_args a = { .op = FT_OP_PAIRS,
		                  .algo = FT_ALGO_RING,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 4,
		                  .bytes = 1 << 20 };
	struct ft_schedule s;
	struct ft_error err = { 0 };

	(void)state;
	ft_schedule_init(&s);
	assert_int_equal(ft_coll_schedule(&a, &s, &err), FT_ENOTSUP);
	assert_non_null(strstr(err.msg, "pairs is measured by bench only"));
	assert_int_equal(s.phases.len, 0);
	ft_schedule_release(&s);
	assert_false(ft_coll_supports(FT_OP_GATHER, FT_ALGO_RING, FT_PROTO_SIMPLE));
}

/* kb NA-PROTO-* and NA-MODEL tables. */
static void
test_proto_constants(void **state)
{
	assert_double_equal(ft_proto_efficiency(FT_PROTO_SIMPLE), 1.0, 0);
	assert_double_equal(ft_proto_efficiency(FT_PROTO_LL), 0.5, 0);
	assert_double_equal(ft_proto_efficiency(FT_PROTO_LL128), 0.9375, 0);
	assert_double_equal(ft_coll_base_latency(FT_ALGO_RING, FT_PROTO_SIMPLE), 8.4e-6, 1e-18);
	assert_double_equal(ft_coll_base_latency(FT_ALGO_TREE, FT_PROTO_LL), 6.8e-6, 1e-18);
	assert_double_equal(ft_coll_base_latency(FT_ALGO_NVLS, FT_PROTO_SIMPLE), 0, 0);
	assert_double_equal(ft_coll_hw_latency(FT_HW_NVLINK, FT_ALGO_RING, FT_PROTO_SIMPLE), 3.4e-6,
	                    1e-18);
	assert_double_equal(ft_coll_hw_latency(FT_HW_NET, FT_ALGO_TREE, FT_PROTO_LL128), 8.5e-6,
	                    1e-18);
	assert_double_equal(ft_coll_hw_latency(FT_HW_PCI, FT_ALGO_RING, FT_PROTO_LL128), 2.5e-6,
	                    1e-18);
	assert_double_equal(ft_coll_hw_latency(FT_HW_NVLINK, FT_ALGO_NVLS, FT_PROTO_SIMPLE), 25e-6,
	                    1e-18);
	assert_double_equal(ft_coll_hw_latency(FT_HW_NET, FT_ALGO_COLLNET, FT_PROTO_SIMPLE), 31e-6,
	                    1e-18);
	assert_true(ft_coll_supports(FT_OP_ALL_REDUCE, FT_ALGO_TREE, FT_PROTO_LL));
	assert_false(ft_coll_supports(FT_OP_ALL_GATHER, FT_ALGO_TREE, FT_PROTO_SIMPLE));
	assert_false(ft_coll_supports(FT_OP_ALL_REDUCE, FT_ALGO_NVLS, FT_PROTO_LL));
	assert_false(ft_coll_supports(FT_OP_ALLTOALL, FT_ALGO_NVLS, FT_PROTO_SIMPLE));
	assert_true(ft_coll_supports(FT_OP_ALLTOALL, FT_ALGO_HIERARCHICAL, FT_PROTO_SIMPLE));
	assert_int_equal(ft_coll_default_algo(FT_OP_ALLTOALL), FT_ALGO_DIRECT);
}

static int
compile(enum ft_op op, enum ft_algo algo, uint32_t n, uint32_t ppn, uint64_t bytes,
        struct ft_schedule *s)
{
	struct ft_coll_args a = { .op = op,
		                  .algo = algo,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = n,
		                  .ranks_per_node = ppn,
		                  .bytes = bytes };
	struct ft_error err = { 0 };

	ft_schedule_init(s);
	return ft_coll_schedule(&a, s, &err);
}

/* Every rank sends and receives the same number of bytes in a symmetric pattern. */
static void
check_balanced(const struct ft_schedule *s)
{
	uint64_t *out = calloc(s->nranks, sizeof(*out)), *in = calloc(s->nranks, sizeof(*in));
	size_t i;
	uint64_t k;

	assert_non_null(out);
	assert_non_null(in);
	for (i = 0; i < s->phases.len; i++) {
		const struct ft_sched_phase *ph = ft_sched_phase_at(s, i);

		for (k = 0; k < ph->npairs; k++) {
			struct ft_sched_flow f;

			ft_sched_phase_flow(s, ph, k, &f);
			assert_int_equal(f.phase, i);
			assert_true(f.src < s->nranks && f.dst < s->nranks);
			assert_int_not_equal(f.src, f.dst);
			out[f.src] += f.bytes;
			in[f.dst] += f.bytes;
		}
	}
	for (i = 1; i < s->nranks; i++) {
		assert_int_equal(out[i], out[0]);
		assert_int_equal(in[i], in[0]);
	}
	free(out);
	free(in);
}

static void
test_ring_allreduce(void **state)
{
	struct ft_schedule s;
	const struct ft_sched_phase *ph;
	struct ft_sched_flow f;
	uint32_t i;

	assert_int_equal(compile(FT_OP_ALL_REDUCE, FT_ALGO_RING, 8, 8, 1u << 20, &s), 0);
	assert_int_equal(s.phases.len, 1);
	ph = ft_sched_phase_at(&s, 0);
	assert_int_equal(ph->nflows, 8);
	assert_int_equal(ph->steps, 14);
	for (i = 0; i < 8; i++) {
		ft_sched_phase_flow(&s, ph, i, &f);
		assert_int_equal(f.src, i);
		assert_int_equal(f.dst, (i + 1) % 8);
		assert_int_equal(f.bytes, 2 * 7 * (1u << 20) / 8);
	}
	/* Total traffic: n × 2(n-1)/n × S = 2(n-1)S. */
	assert_int_equal(ft_schedule_total_bytes(&s), 2ull * 7 * (1u << 20));
	assert_double_equal(s.base_lat_s, 8.4e-6, 1e-18);
	assert_double_equal(s.step_lat_s, 3.4e-6, 1e-18);
	ft_schedule_release(&s);

	/* Not divisible: bytes rounded down per flow, never above the exact share. */
	assert_int_equal(compile(FT_OP_ALL_REDUCE, FT_ALGO_RING, 3, 1, 1000, &s), 0);
	ft_sched_phase_flow(&s, ft_sched_phase_at(&s, 0), 0, &f);
	assert_int_equal(f.bytes, 1333);
	ft_schedule_release(&s);
}

static void
test_ring_ag_rs_bcast(void **state)
{
	struct ft_schedule s;
	struct ft_sched_flow f;

	assert_int_equal(compile(FT_OP_ALL_GATHER, FT_ALGO_RING, 16, 8, 1600, &s), 0);
	assert_int_equal(ft_sched_phase_at(&s, 0)->steps, 15);
	assert_int_equal(ft_schedule_total_bytes(&s), 16 * 1500);
	check_balanced(&s);
	ft_schedule_release(&s);
	assert_int_equal(compile(FT_OP_REDUCE_SCATTER, FT_ALGO_RING, 4, 4, 4000, &s), 0);
	assert_int_equal(ft_schedule_total_bytes(&s), 4 * 3000);
	ft_schedule_release(&s);

	{
		struct ft_coll_args a = { .op = FT_OP_BROADCAST,
			                  .algo = FT_ALGO_RING,
			                  .proto = FT_PROTO_LL,
			                  .nranks = 5,
			                  .ranks_per_node = 5,
			                  .bytes = 100,
			                  .root = 3 };

		ft_schedule_init(&s);
		assert_int_equal(ft_coll_schedule(&a, &s, NULL), 0);
		assert_int_equal(ft_schedule_total_flows(&s), 4);
		ft_sched_phase_flow(&s, ft_sched_phase_at(&s, 0), 0, &f);
		assert_int_equal(f.src, 3);
		assert_int_equal(f.dst, 4);
		ft_sched_phase_flow(&s, ft_sched_phase_at(&s, 0), 3, &f);
		assert_int_equal(f.dst, 2); /* the chain ends just before the root */
		assert_double_equal(s.proto_eff, 0.5, 0);
		ft_schedule_release(&s);
		a.op = FT_OP_REDUCE;
		assert_int_equal(ft_coll_schedule(&a, &s, NULL), 0);
		ft_sched_phase_flow(&s, ft_sched_phase_at(&s, 0), 3, &f);
		assert_int_equal(f.dst, 3); /* reduce ends at the root */
		ft_schedule_release(&s);
	}
}

/* Walk tree edges: every rank but the root of each tree has exactly one parent. */
static void
test_tree(void **state)
{
	static const uint32_t sizes[] = { 2, 3, 5, 8, 13, 16, 64, 100 };
	/* Pipeline steps: up and down the deepest path (8 ranks: 1-2-4-8, 3 edges). */
	static const uint32_t steps[] = { 2, 2, 4, 6, 6, 8, 12, 12 };
	size_t i;

	for (i = 0; i < FT_ARRAY_SIZE(sizes); i++) {
		uint32_t n = sizes[i], r, t;
		struct ft_schedule s;
		const struct ft_sched_phase *ph;
		uint32_t *nparent = calloc(2 * n, sizeof(*nparent));
		uint32_t *nchild = calloc(2 * n, sizeof(*nchild));
		uint32_t leaves_both = 0, depth_bound = 0;

		assert_non_null(nparent);
		assert_non_null(nchild);
		assert_int_equal(compile(FT_OP_ALL_REDUCE, FT_ALGO_TREE, n, 1, 1000, &s), 0);
		ph = ft_sched_phase_at(&s, 0);
		/* 2 trees × (n-1) edges × up and down. */
		assert_int_equal(ph->nflows, 4 * (n - 1));
		/* Same total traffic as a ring: 2(n-1) × S. */
		assert_int_equal(ft_schedule_total_bytes(&s), 2ull * (n - 1) * 1000);
		for (r = 0; r < ph->nflows; r += 2) {
			struct ft_sched_flow up, down;

			ft_sched_phase_flow(&s, ph, r, &up);
			ft_sched_phase_flow(&s, ph, r + 1, &down);
			assert_int_equal(up.src, down.dst);
			assert_int_equal(up.dst, down.src);
			t = r < ph->nflows / 2 ? 0 : 1;
			nparent[t * n + up.src]++;
			nchild[t * n + up.dst]++;
		}
		for (t = 0; t < 2; t++) {
			uint32_t roots = 0;

			for (r = 0; r < n; r++) {
				assert_true(nparent[t * n + r] <= 1);
				assert_true(nchild[t * n + r] <= 2);
				roots += nparent[t * n + r] == 0;
			}
			assert_int_equal(roots, 1);
		}
		/* Double binary tree: for even n no rank is a leaf in both trees. */
		for (r = 0; r < n; r++)
			leaves_both += nchild[r] == 0 && nchild[n + r] == 0;
		if (n % 2 == 0)
			assert_int_equal(leaves_both, 0);
		/* Depth is floor(log2 n) (the root is the largest power of two <= n) or one more. */
		while ((2u << depth_bound) <= n)
			depth_bound++;
		assert_true(ph->steps == 2 * depth_bound || ph->steps == 2 * depth_bound + 2);
		assert_int_equal(ph->steps, steps[i]);
		assert_true(ph->steps >= 2);
		free(nparent);
		free(nchild);
		ft_schedule_release(&s);
	}
}

static void
test_halving_doubling(void **state)
{
	struct ft_schedule s;
	struct ft_sched_flow f;
	struct ft_error err = { 0 };
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
		                  .algo = FT_ALGO_HALVING_DOUBLING,
		                  .nranks = 6,
		                  .ranks_per_node = 1,
		                  .bytes = 64 };

	assert_int_equal(compile(FT_OP_ALL_REDUCE, FT_ALGO_HALVING_DOUBLING, 8, 1, 8000, &s), 0);
	assert_int_equal(s.phases.len, 6);
	ft_sched_phase_flow(&s, ft_sched_phase_at(&s, 0), 1, &f);
	assert_int_equal(f.src, 1);
	assert_int_equal(f.dst, 5);
	assert_int_equal(f.bytes, 4000);
	ft_sched_phase_flow(&s, ft_sched_phase_at(&s, 2), 0, &f);
	assert_int_equal(f.bytes, 1000);
	assert_int_equal(f.dst, 1);
	/* Same per-rank traffic as ring: 2(n-1)/n × S each. */
	assert_int_equal(ft_schedule_total_bytes(&s), 8ull * 2 * 7 * 1000);
	check_balanced(&s);
	ft_schedule_release(&s);

	assert_int_equal(compile(FT_OP_ALL_GATHER, FT_ALGO_HALVING_DOUBLING, 4, 1, 400, &s), 0);
	assert_int_equal(s.phases.len, 2);
	assert_int_equal(ft_schedule_total_bytes(&s), 4 * 300);
	ft_schedule_release(&s);

	ft_schedule_init(&s);
	assert_int_equal(ft_coll_schedule(&a, &s, &err), FT_ENOTSUP);
	assert_non_null(strstr(err.msg, "power-of-two"));
	assert_int_equal(s.phases.len, 0);
	ft_schedule_release(&s);
}

/* Lowest set bit of @s > 0. */
static uint32_t
low_bit(uint32_t s)
{
	uint32_t d = 0;

	while (!(s & (1u << d)))
		d++;
	return d;
}

/*
 * NCCL's PAT (src/include/collectives.h PatAGAlgorithm / PatRSAlgorithm, src/transport/
 * generic.cc ncclTransportPatConnect(), v2.27.7-1): a binomial tree per block whose edge
 * into offset s spans 2^lowbit(s). Replayed here block by block over the schedule's
 * phases in their order: every flow carries the blocks its source holds (all-gather) or
 * has summed in full (reduce-scatter) for that dimension, as many as the flow's bytes say,
 * and in the end every rank holds every block (all-gather) or the sum of all n
 * contributions to its own (reduce-scatter). ceil(log2 n) phases of one step, rank to
 * rank +- 2^d, S/n x (the offsets with lowest bit d) each; NCCL's latency, 8 us +
 * floor(log2 n) x 14 us / 3.5 + 2.8 us x n (kb NA-ALGO-PAT), once over the phases.
 */
static void
test_pat(void **state)
{
	static const uint32_t ns[] = { 2, 3, 4, 5, 8, 16 };
	const uint64_t S = 720720; /* a multiple of every n */
	size_t i, op;

	(void)state;
	for (op = 0; op < 2; op++) {
		bool ag = op == 0;

		for (i = 0; i < FT_ARRAY_SIZE(ns); i++) {
			uint32_t n = ns[i], dims = 0, lg = 0, r, b, p, k, all = (1u << n) - 1;
			uint32_t have[16][16]; /* AG: 1 if rank r holds block b; RS: contributors */
			uint64_t total = 0;
			struct ft_schedule s;

			while ((1u << dims) < n)
				dims++;
			while ((2u << lg) <= n)
				lg++;
			for (r = 0; r < n; r++)
				for (b = 0; b < n; b++)
					have[r][b] = ag ? r == b : 1u << r;
			assert_int_equal(compile(ag ? FT_OP_ALL_GATHER : FT_OP_REDUCE_SCATTER,
			                         FT_ALGO_PAT, n, 1, S, &s),
			                 0);
			assert_int_equal(s.phases.len, dims);
			assert_int_equal(ft_schedule_total_flows(&s), (uint64_t)n * dims);
			assert_true(fabs(s.base_lat_s - 8e-6) < 1e-12);
			assert_true(fabs(s.step_lat_s * dims - (lg * 14e-6 / 3.5 + 2.8e-6 * n)) <
			            1e-12);
			for (p = 0; p < dims; p++) {
				const struct ft_sched_phase *ph = ft_sched_phase_at(&s, p);
				/* all-gather: the farthest dimension first; reduce-scatter: 0 first */
				uint32_t d = ag ? dims - 1 - p : p, m = 1u << d;
				uint32_t next[16][16];

				assert_int_equal(ph->steps, 1);
				assert_int_equal(ph->nflows, n);
				memcpy(next, have, sizeof(next));
				for (k = 0; k < n; k++) {
					struct ft_sched_flow f;
					uint64_t sent = 0;

					ft_sched_phase_flow(&s, ph, k, &f);
					r = f.src;
					assert_int_equal(f.dst, ag ? (r + m) % n : (r + n - m) % n);
					for (b = 0; b < n; b++) {
						/* the offset of the receiver from the block's owner (AG) or
						 * of the sender from the block's destination (RS) */
						uint32_t off = ag ? (f.dst + n - b) % n : (r + n - b) % n;

						if (off == 0 || low_bit(off) != d)
							continue;
						sent++;
						if (ag) {
							assert_true(have[r][b]); /* held before it is sent */
							next[f.dst][b] = 1;
						} else {
							next[f.dst][b] |= have[r][b];
						}
					}
					assert_int_equal(f.bytes, sent * (S / n));
					total += f.bytes;
				}
				memcpy(have, next, sizeof(have));
			}
			for (r = 0; r < n; r++)
				for (b = 0; b < n; b++)
					if (ag)
						assert_int_equal(have[r][b], 1);
					else if (b == r)
						assert_int_equal(have[r][r], all);
			/* every rank sends n - 1 blocks, as a ring does */
			assert_int_equal(total, (uint64_t)n * (n - 1) * (S / n));
			check_balanced(&s);
			ft_schedule_release(&s);
		}
	}
}

/*
 * PAT's shape and latency directly: ceil(log2 n) dimensions (none for one rank); on
 * dimension d the offsets 1 .. n - 1 whose lowest set bit is d (n = 5: 1 and 3 on 0, 2 on
 * 1, 4 on 2; none beyond); NCCL's latency after its base, floor(log2 n) x interLat / 3.5 +
 * 2.8 us x n (src/graph/tuning.cc, kb NA-ALGO-PAT: 5 ranks at 14 us, 2 x 4 + 14 = 22 us),
 * and each of the dims phases a dims-th of it.
 */
static void
test_pat_shape(void **state)
{
	(void)state;
	assert_int_equal(ft_coll_pat_dims(1), 0);
	assert_int_equal(ft_coll_pat_dims(2), 1);
	assert_int_equal(ft_coll_pat_dims(5), 3);
	assert_int_equal(ft_coll_pat_dims(8), 3);
	assert_int_equal(ft_coll_pat_blocks(5, 0), 2);
	assert_int_equal(ft_coll_pat_blocks(5, 1), 1);
	assert_int_equal(ft_coll_pat_blocks(5, 2), 1);
	assert_int_equal(ft_coll_pat_blocks(5, 3), 0);
	assert_int_equal(ft_coll_pat_blocks(8, 0), 4);
	assert_int_equal(ft_coll_pat_blocks(1, 0), 0);
	assert_int_equal(ft_coll_pat_blocks(5, 40), 0);
	assert_true(fabs(ft_coll_pat_lat_s(5, 14e-6) - 22e-6) < 1e-12);
	assert_true(fabs(ft_coll_pat_lat_s(1, 14e-6) - 2.8e-6) < 1e-12);
	assert_true(fabs(ft_coll_pat_lat_s(16, 7e-6) - (4 * 2e-6 + 16 * 2.8e-6)) < 1e-12);
	assert_true(fabs(ft_coll_pat_phase_s(5, 14e-6) - 22e-6 / 3) < 1e-12);
	assert_true(ft_coll_pat_phase_s(1, 14e-6) == 0);
}

/* PAT where NCCL does not run it: more than one rank a node, LL or LL128, all_reduce. */
static void
test_pat_refused(void **state)
{
	struct ft_schedule s;
	struct ft_error err = { 0 };
	struct ft_coll_args a = { .op = FT_OP_ALL_GATHER,
		                  .algo = FT_ALGO_PAT,
		                  .nranks = 8,
		                  .ranks_per_node = 2,
		                  .bytes = 8192 };

	(void)state;
	ft_schedule_init(&s);
	assert_int_equal(ft_coll_schedule(&a, &s, &err), FT_ENOTSUP);
	assert_non_null(strstr(err.msg, "schedule: pat needs one GPU per node"));
	assert_int_equal(s.phases.len, 0);
	ft_error_clear(&err);
	a.ranks_per_node = 1;
	a.proto = FT_PROTO_LL;
	assert_int_equal(ft_coll_schedule(&a, &s, &err), FT_ENOTSUP);
	assert_string_equal(err.msg,
	                    "schedule: all_gather has no pat algorithm with the ll protocol");
	ft_error_clear(&err);
	a.proto = FT_PROTO_SIMPLE;
	a.op = FT_OP_ALL_REDUCE;
	assert_int_equal(ft_coll_schedule(&a, &s, &err), FT_ENOTSUP);
	assert_false(ft_coll_supports(FT_OP_REDUCE_SCATTER, FT_ALGO_PAT, FT_PROTO_LL128));
	assert_true(ft_coll_supports(FT_OP_REDUCE_SCATTER, FT_ALGO_PAT, FT_PROTO_SIMPLE));
	ft_schedule_release(&s);
}

static void
test_hierarchical_allreduce(void **state)
{
	struct ft_schedule s;
	struct ft_sched_flow f;
	const uint64_t S = 8 * 4 * 1000;

	assert_int_equal(compile(FT_OP_ALL_REDUCE, FT_ALGO_HIERARCHICAL, 32, 8, S, &s), 0);
	assert_int_equal(s.phases.len, 3);
	assert_int_equal(ft_sched_phase_at(&s, 0)->nflows, 32);
	assert_int_equal(ft_sched_phase_at(&s, 0)->steps, 7);
	assert_int_equal(ft_sched_phase_at(&s, 1)->steps, 6);
	/* Inter phase: rail j ring over nodes: rank 8a+j -> 8(a+1)+j, S/ppn × 2(N-1)/N. */
	ft_sched_phase_flow(&s, ft_sched_phase_at(&s, 1), 0, &f);
	assert_int_equal(f.src, 0);
	assert_int_equal(f.dst, 8);
	assert_int_equal(f.bytes, S / 8 * 6 / 4);
	ft_sched_phase_flow(&s, ft_sched_phase_at(&s, 1), 7, &f);
	assert_int_equal(f.src, 24 + 1);
	assert_int_equal(f.dst, 1);
	/* 2·N·(ppn-1)·S intra + 2·(N-1)·S inter. */
	assert_int_equal(ft_schedule_total_bytes(&s), 2ull * 4 * 7 * S + 2ull * 3 * S);
	check_balanced(&s);
	ft_schedule_release(&s);
}

static void
test_innet(void **state)
{
	struct ft_schedule s;
	struct ft_sched_flow f;
	struct ft_error err = { 0 };
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
		                  .algo = FT_ALGO_NVLS,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = 16,
		                  .ranks_per_node = 8,
		                  .bytes = 800 };

	assert_int_equal(compile(FT_OP_ALL_REDUCE, FT_ALGO_NVLS, 8, 8, 800, &s), 0);
	assert_int_equal(ft_sched_phase_at(&s, 0)->nflows, 16);
	ft_sched_phase_flow(&s, ft_sched_phase_at(&s, 0), 0, &f);
	assert_int_equal(f.dst, FT_SCHED_INNET);
	assert_int_equal(f.bytes, 900); /* S(n+1)/n */
	ft_schedule_release(&s);

	ft_schedule_init(&s);
	assert_int_equal(ft_coll_schedule(&a, &s, &err), FT_ENOTSUP);
	assert_non_null(strstr(err.msg, "nvls"));
	ft_schedule_release(&s);

	/* CollNetDirect on 2 nodes x 8, 800 B: NCCL's scatter to the heads, in-network
	 * all-reduce and broadcast pipelined in one phase of 4 hops; head j's share (S / 8)
	 * comes from the 7 others, goes up and down through j's NIC and out to the 7 others,
	 * so every rank sends 2 x 7 x 100 B over NVLink and 100 B to the network. */
	assert_int_equal(compile(FT_OP_ALL_REDUCE, FT_ALGO_COLLNET, 16, 8, 800, &s), 0);
	assert_int_equal(s.phases.len, 1);
	assert_int_equal(ft_sched_phase_at(&s, 0)->steps, 4);
	assert_int_equal(ft_sched_phase_at(&s, 0)->nflows, 2 * 8 * (7 + 2 + 7));
	{
		uint64_t nvl[16] = { 0 }, net[16] = { 0 };

		for (uint32_t i = 0; i < ft_sched_phase_at(&s, 0)->nflows; i++) {
			ft_sched_phase_flow(&s, ft_sched_phase_at(&s, 0), i, &f);
			assert_int_equal(f.bytes, 100);
			if (f.dst == FT_SCHED_INNET)
				net[f.src] += f.bytes;
			else if (f.src != FT_SCHED_INNET)
				nvl[f.src] += f.bytes;
		}
		for (uint32_t r = 0; r < 16; r++) {
			assert_int_equal(nvl[r], 1400);
			assert_int_equal(net[r], 100);
		}
	}
	/* head 0: 1 -> 0 up first, 0 -> network up, network -> 0 down, 0 -> 1 down */
	ft_sched_phase_flow(&s, ft_sched_phase_at(&s, 0), 0, &f);
	assert_true(f.src == 1 && f.dst == 0 && f.pipe == 1 && f.dir == FT_SCHED_UP);
	ft_sched_phase_flow(&s, ft_sched_phase_at(&s, 0), 7, &f);
	assert_true(f.src == 0 && f.dst == FT_SCHED_INNET && f.dir == FT_SCHED_UP);
	ft_sched_phase_flow(&s, ft_sched_phase_at(&s, 0), 8, &f);
	assert_true(f.src == FT_SCHED_INNET && f.dst == 0 && f.dir == FT_SCHED_DOWN);
	ft_sched_phase_flow(&s, ft_sched_phase_at(&s, 0), 9, &f);
	assert_true(f.src == 0 && f.dst == 1 && f.pipe == 1 && f.dir == FT_SCHED_DOWN);
	ft_schedule_release(&s);
	assert_int_equal(compile(FT_OP_ALL_REDUCE, FT_ALGO_COLLNET, 8, 8, 800, &s), FT_ENOTSUP);
	ft_schedule_release(&s);

	/* CollNetChain on 2 nodes x 4, 800 B: one pipelined phase of 2(4 - 1) + 2 steps; each
	 * rank heads one copy of S/4 (3 hops up, to the network and back, 3 down): it sends
	 * 2(ppn - 1)/ppn x S = 1200 B to GPUs of its node and S/4 = 200 B to the network,
	 * and gets as much back; the hops hold NCCL's latency for the chain, 2(ppn - 1) x 2.8 us
	 * over NVLink + 30 us through the network, (6 x 2.8 + 30) / 8 = 5.85 us a hop. */
	{
		struct ft_coll_args ca = { .op = FT_OP_ALL_REDUCE,
			                   .algo = FT_ALGO_COLLNET,
			                   .proto = FT_PROTO_SIMPLE,
			                   .nranks = 8,
			                   .ranks_per_node = 4,
			                   .bytes = 800,
			                   .collnet_chain = true };
		uint64_t peer_out[8] = { 0 }, peer_in[8] = { 0 }, net_out[8] = { 0 },
		         net_in[8] = { 0 };
		uint32_t r;

		ft_schedule_init(&s);
		assert_int_equal(ft_coll_schedule(&ca, &s, &err), 0);
		assert_true(s.collnet_chain);
		assert_int_equal(s.phases.len, 1);
		assert_int_equal(ft_sched_phase_at(&s, 0)->steps, 8);
		assert_int_equal(ft_sched_phase_at(&s, 0)->nflows, 2 * 4 * 8);
		assert_double_equal(s.step_lat_s, 5.85e-6, 1e-12);
		for (size_t i = 0; i < s.flows.len; i++) {
			const struct ft_sched_flow *fl = ft_vec_at(&s.flows, i);

			assert_int_equal(fl->bytes, 200);
			if (fl->dst == FT_SCHED_INNET) {
				net_out[fl->src] += fl->bytes;
			} else if (fl->src == FT_SCHED_INNET) {
				net_in[fl->dst] += fl->bytes;
			} else {
				assert_int_equal(fl->src / 4, fl->dst / 4); /* inside the node */
				peer_out[fl->src] += fl->bytes;
				peer_in[fl->dst] += fl->bytes;
			}
		}
		for (r = 0; r < 8; r++) {
			assert_int_equal(peer_out[r], 1200);
			assert_int_equal(peer_in[r], 1200);
			assert_int_equal(net_out[r], 200);
			assert_int_equal(net_in[r], 200);
		}
		ft_schedule_release(&s);
		/* only a CollNet all-reduce has the chain: elsewhere the flag is dropped */
		ca.op = FT_OP_REDUCE_SCATTER;
		ca.algo = FT_ALGO_RING;
		ft_schedule_init(&s);
		assert_int_equal(ft_coll_schedule(&ca, &s, &err), 0);
		assert_false(s.collnet_chain);
		ft_schedule_release(&s);
	}

	/* NVLSTree on 4 nodes × 8: 2 switch flows per rank, then per rail a double binary
	 * tree over the 4 nodes (2 trees × 3 edges × 2 directions) with S/ppn. */
	assert_int_equal(compile(FT_OP_ALL_REDUCE, FT_ALGO_NVLS_TREE, 32, 8, 8000, &s), 0);
	assert_int_equal(s.phases.len, 1);
	assert_int_equal(ft_sched_phase_at(&s, 0)->nflows, 2 * 32 + 8 * 12);
	assert_int_equal(ft_sched_phase_at(&s, 0)->steps, 2 + 2 * 2);
	ft_sched_phase_flow(&s, ft_sched_phase_at(&s, 0), 0, &f);
	assert_int_equal(f.bytes, 9000); /* S(ppn+1)/ppn */
	ft_sched_phase_flow(&s, ft_sched_phase_at(&s, 0), 64, &f);
	assert_int_equal(f.src % 8, f.dst % 8); /* rail-local */
	assert_int_not_equal(f.src / 8, f.dst / 8);
	/* Switch traffic 2·n·S(ppn+1)/ppn plus trees 8 rails × 2(N-1) × S/ppn. */
	assert_int_equal(ft_schedule_total_bytes(&s), 2ull * 32 * 9000 + 8ull * 2 * 3 * 1000);
	ft_schedule_release(&s);
	assert_int_equal(compile(FT_OP_ALL_REDUCE, FT_ALGO_NVLS_TREE, 8, 8, 800, &s), FT_ENOTSUP);
	ft_schedule_release(&s);
}

/*
 * CollNetChain's schedule carries NCCL's chain (NVIDIA/nccl src/graph/connect.cc
 * ncclTopoPreset() at v2.18.3-1 and v2.27.7-1: a channel's collnetChain.up is the GPU
 * before it in the chain graph's order, the network for the first one, its down[0] the
 * GPU after it; all_reduce.h's CollNetChain kernel reduces up that chain and sends the
 * network's result back down it; kb NA-ALGO-COLLNET). On 3 nodes x 4, 1200 B, share j
 * (S / 4 = 300 B a hop, pipe j + 1) of every node goes up one path through all 4 GPUs
 * that ends at GPU j, the head, which alone sends to and gets from the network; each
 * GPU has one parent and one child but the ends. Played as data, each rank holding
 * 1 << rank in every share: adding along the up flows in their order, the switches adding
 * what the heads send, and copying down, every rank ends with the sum of all 12 in every
 * share, each counted once. CollNetDirect's schedule (every GPU straight to its head,
 * in 4 steps) fails the chain's shape and its step count.
 */
static void
test_collnet_chain_order_and_sums(void **state)
{
	enum { NN = 3, PPN = 4, N = NN * PPN };
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
		                  .algo = FT_ALGO_COLLNET,
		                  .proto = FT_PROTO_SIMPLE,
		                  .nranks = N,
		                  .ranks_per_node = PPN,
		                  .bytes = 1200,
		                  .collnet_chain = true };
	struct ft_schedule s;
	struct ft_error err = { 0 };
	uint64_t have[N][PPN], innet[PPN] = { 0 }, all = (1u << N) - 1;
	uint32_t r, j, g, pass;

	(void)state;
	ft_schedule_init(&s);
	assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
	assert_int_equal(s.phases.len, 1);
	assert_int_equal(ft_sched_phase_at(&s, 0)->steps, 2 * (PPN - 1) + 2);
	for (r = 0; r < N; r++)
		for (j = 0; j < PPN; j++)
			have[r][j] = 1ull << r;
	/* the chain's shape, copy by copy and node by node */
	for (g = 0; g < NN; g++) {
		for (j = 0; j < PPN; j++) {
			uint32_t up_out[PPN] = { 0 }, up_in[PPN] = { 0 }, dn_out[PPN] = { 0 },
			         dn_in[PPN] = { 0 }, to_net = 0, from_net = 0, head = g * PPN + j;

			for (size_t i = 0; i < s.flows.len; i++) {
				const struct ft_sched_flow *f = ft_vec_at(&s.flows, i);
				uint32_t rk = f->src == FT_SCHED_INNET ? f->dst : f->src;

				if (f->pipe != j + 1 || rk / PPN != g)
					continue;
				assert_int_equal(f->bytes, 1200 / PPN);
				if (f->dst == FT_SCHED_INNET) {
					assert_int_equal(f->src, head);
					assert_int_equal(f->dir, FT_SCHED_UP);
					to_net++;
				} else if (f->src == FT_SCHED_INNET) {
					assert_int_equal(f->dst, head);
					assert_int_equal(f->dir, FT_SCHED_DOWN);
					from_net++;
				} else {
					assert_int_equal(f->dst / PPN, g);
					(f->dir == FT_SCHED_UP ? up_out : dn_out)[f->src % PPN]++;
					(f->dir == FT_SCHED_UP ? up_in : dn_in)[f->dst % PPN]++;
				}
			}
			assert_int_equal(to_net, 1);
			assert_int_equal(from_net, 1);
			for (r = 0; r < PPN; r++) {
				/* up: all but the head send once; down: all but the head get once */
				assert_int_equal(up_out[r], r == j ? 0 : 1);
				assert_int_equal(dn_in[r], r == j ? 0 : 1);
				/* a chain: one GPU (the leaf) gets nothing up and sends nothing down */
				assert_true(up_in[r] <= 1 && dn_out[r] <= 1);
				assert_int_equal(up_in[r], dn_out[r]);
			}
		}
	}
	/* the data: up the chains in their order, into the switches, back, down the chains */
	for (pass = 0; pass < 4; pass++) {
		for (size_t i = 0; i < s.flows.len; i++) {
			const struct ft_sched_flow *f = ft_vec_at(&s.flows, i);
			bool net_up = f->dst == FT_SCHED_INNET, net_dn = f->src == FT_SCHED_INNET;

			j = f->pipe - 1u;
			if (pass == 0 && f->dir == FT_SCHED_UP && !net_up)
				have[f->dst][j] += have[f->src][j];
			else if (pass == 1 && net_up)
				innet[j] += have[f->src][j];
			else if (pass == 2 && net_dn)
				have[f->dst][j] = innet[j];
			else if (pass == 3 && f->dir == FT_SCHED_DOWN && !net_dn)
				have[f->dst][j] = have[f->src][j];
		}
	}
	for (r = 0; r < N; r++)
		for (j = 0; j < PPN; j++)
			assert_int_equal(have[r][j], all);
	ft_schedule_release(&s);
}

static void
test_alltoall(void **state)
{
	struct ft_schedule s;
	struct ft_sched_flow f;
	const struct ft_sched_phase *ph;
	uint64_t k;
	uint32_t n = 16;
	uint8_t *seen = calloc((size_t)n * n, 1);

	assert_non_null(seen);
	assert_int_equal(compile(FT_OP_ALLTOALL, FT_ALGO_DIRECT, n, 4, 1600, &s), 0);
	ph = ft_sched_phase_at(&s, 0);
	assert_true(ph->implicit_alltoall);
	assert_int_equal(ph->nflows, 0);
	assert_int_equal(ph->npairs, n * (n - 1));
	assert_int_equal(s.flows.len, 0);
	for (k = 0; k < ph->npairs; k++) {
		ft_sched_phase_flow(&s, ph, k, &f);
		assert_int_equal(f.bytes, 100);
		assert_int_equal(seen[f.src * n + f.dst], 0);
		seen[f.src * n + f.dst] = 1;
	}
	/* (n-1)/n of each rank's S leaves it (kb NA-BUSBW). */
	assert_int_equal(ft_schedule_total_bytes(&s), n * 1500);
	ft_schedule_release(&s);

	/* Hierarchical: intra groups of 4 consecutive ranks, then rails (stride 4). */
	assert_int_equal(compile(FT_OP_ALLTOALL, FT_ALGO_HIERARCHICAL, n, 4, 1600, &s), 0);
	assert_int_equal(s.phases.len, 2);
	ph = ft_sched_phase_at(&s, 0);
	assert_int_equal(ph->npairs, 4 * 4 * 3);
	assert_int_equal(ph->bytes_per_pair, 400);
	for (k = 0; k < ph->npairs; k++) {
		ft_sched_phase_flow(&s, ph, k, &f);
		assert_int_equal(f.src / 4, f.dst / 4);
	}
	ph = ft_sched_phase_at(&s, 1);
	assert_int_equal(ph->npairs, 4 * 4 * 3);
	assert_int_equal(ph->bytes_per_pair, 400);
	for (k = 0; k < ph->npairs; k++) {
		ft_sched_phase_flow(&s, ph, k, &f);
		assert_int_equal(f.src % 4, f.dst % 4);
		assert_int_not_equal(f.src / 4, f.dst / 4);
	}
	check_balanced(&s);
	ft_schedule_release(&s);
	free(seen);
}

/* Memory stays lean: a 100,000-rank ring is n flows; a 4,096-rank all-to-all stores none. */
static void
test_scale(void **state)
{
	struct ft_schedule s;

	assert_int_equal(compile(FT_OP_ALL_REDUCE, FT_ALGO_RING, 100000, 8, 1ull << 30, &s), 0);
	assert_int_equal(s.flows.len, 100000);
	ft_schedule_release(&s);
	assert_int_equal(compile(FT_OP_ALLTOALL, FT_ALGO_DIRECT, 4096, 8, 1ull << 30, &s), 0);
	assert_int_equal(ft_schedule_total_flows(&s), 4096ull * 4095);
	assert_int_equal(s.flows.len, 0);
	ft_schedule_release(&s);
}

/*
 * A step inside a node at hwLat of the node's intra link (src/graph/tuning.cc
 * ncclTopoTuneModel(): hwLat by the graph's typeIntra; kb NA-MODEL): a ring LL step 1.0 us
 * on PCI where NVLink's is 0.6, Simple 5.7 where it is 3.4; NVLS keeps NVLink's, being
 * NVLink's; the network's row is no node's link and is refused. Before, every schedule
 * took NVLink's row.
 */
static void
test_step_at_the_node_link(void **state)
{
	struct ft_schedule s;
	struct ft_error err = { 0 };
	struct ft_coll_args a = { .op = FT_OP_ALL_REDUCE,
		                  .algo = FT_ALGO_RING,
		                  .proto = FT_PROTO_LL,
		                  .nranks = 8,
		                  .ranks_per_node = 8,
		                  .bytes = 1u << 20,
		                  .intra = FT_HW_PCI };

	(void)state;
	ft_schedule_init(&s);
	assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
	assert_int_equal(s.intra, FT_HW_PCI);
	assert_double_equal(s.step_lat_s, 1.0e-6, 1e-12);
	a.proto = FT_PROTO_SIMPLE;
	assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
	assert_double_equal(s.step_lat_s, 5.7e-6, 1e-12);
	a.intra = FT_HW_NVLINK;
	assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
	assert_double_equal(s.step_lat_s, 3.4e-6, 1e-12);
	a.algo = FT_ALGO_NVLS;
	a.intra = FT_HW_PCI;
	assert_int_equal(ft_coll_schedule(&a, &s, &err), 0);
	assert_int_equal(s.intra, FT_HW_NVLINK);
	assert_double_equal(s.step_lat_s, 25.0e-6, 1e-12);
	a.algo = FT_ALGO_RING;
	a.intra = FT_HW_NET;
	assert_int_equal(ft_coll_schedule(&a, &s, &err), FT_EINVAL);
	assert_non_null(strstr(err.msg, "intra"));
	ft_schedule_release(&s);
}

static void
test_bad_args(void **state)
{
	struct ft_schedule s;
	struct ft_error err = { 0 };
	struct ft_coll_args a = { .op = FT_OP_BROADCAST,
		                  .algo = FT_ALGO_RING,
		                  .nranks = 4,
		                  .ranks_per_node = 4,
		                  .bytes = 8,
		                  .root = 4 };

	ft_schedule_init(&s);
	assert_int_equal(ft_coll_schedule(&a, &s, &err), FT_EINVAL);
	assert_non_null(strstr(err.msg, "root"));
	ft_error_clear(&err);
	a.root = 0;
	a.ranks_per_node = 3;
	assert_int_equal(ft_coll_schedule(&a, &s, &err), FT_EINVAL);
	assert_non_null(strstr(err.msg, "ranks_per_node"));
	ft_error_clear(&err);
	a.ranks_per_node = 4;
	a.algo = FT_ALGO_TREE;
	assert_int_equal(ft_coll_schedule(&a, &s, &err), FT_ENOTSUP);
	assert_string_equal(err.msg,
	                    "schedule: broadcast has no tree algorithm with the simple protocol");
	ft_error_clear(&err);
	a.nranks = 0;
	assert_int_equal(ft_coll_schedule(&a, &s, &err), FT_EINVAL);
	a.nranks = 1;
	a.ranks_per_node = 1;
	a.algo = FT_ALGO_RING;
	assert_int_equal(ft_coll_schedule(&a, &s, NULL), 0);
	assert_int_equal(s.phases.len, 0);
	ft_schedule_release(&s);
}

/* A result row's test names a modelled collective with or without nccl-tests' "_perf". */
static void
test_op_from_test(void **state)
{
	enum ft_op op = FT_OP_COUNT;

	(void)state;
	assert_int_equal(ft_op_from_test("all_reduce_perf", &op), 0);
	assert_int_equal(op, FT_OP_ALL_REDUCE);
	assert_int_equal(ft_op_from_test("alltoall", &op), 0);
	assert_int_equal(op, FT_OP_ALLTOALL);
	assert_int_equal(ft_op_from_test("sendrecv_perf", &op), 0);
	assert_int_equal(op, FT_OP_SENDRECV);
	/* bench-only tests and unknown names are not the model's */
	assert_int_equal(ft_op_from_test("pt2pt_bw", &op), FT_EINVAL);
	assert_int_equal(ft_op_from_test("gather_perf", &op), FT_EINVAL);
	assert_int_equal(ft_op_from_test("_perf", &op), FT_EINVAL);
	assert_int_equal(ft_op_from_test("", &op), FT_EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_busbw_factors),
		cmocka_unit_test(test_bench_only_refused),
		cmocka_unit_test(test_proto_constants),
		cmocka_unit_test(test_ring_allreduce),
		cmocka_unit_test(test_ring_ag_rs_bcast),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_halving_doubling),
		cmocka_unit_test(test_pat),
		cmocka_unit_test(test_pat_shape),
		cmocka_unit_test(test_pat_refused),
		cmocka_unit_test(test_hierarchical_allreduce),
		cmocka_unit_test(test_innet),
		cmocka_unit_test(test_collnet_chain_order_and_sums),
		cmocka_unit_test(test_alltoall),
		cmocka_unit_test(test_scale),
		cmocka_unit_test(test_step_at_the_node_link),
		cmocka_unit_test(test_bad_args),
		cmocka_unit_test(test_op_from_test),
	};

	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * coll/pat.c - NCCL's PAT (Parallel Aggregated Trees) all-gather and
 * reduce-scatter as phases of concurrent flows.
 *
 * What NCCL runs (NVIDIA/nccl v2.23.4-1 to v2.30.7-1; read at v2.27.7-1):
 * src/transport/generic.cc ncclTransportPatConnect() connects every rank, for
 * each power of two m = 2^d below nranks (one "dimension" d), to rank + m and
 * rank - m: the all-gather sends to rank + m and receives from rank - m, the
 * reduce-scatter the other way round. src/include/collectives.h PatAGAlgorithm
 * and PatRSAlgorithm walk, for each chunk of a channel's part, every offset s
 * (1 .. nranks - 1, the distance between a block's owner and a rank) and move
 * the block of offset s over the dimension of s's lowest set bit: a binomial
 * tree per block, rooted at its owner, whose edge into offset s spans 2^d for
 * d that lowest bit. So every rank sends each of the nranks - 1 blocks it does
 * not end with (all-gather) or does not keep (reduce-scatter) exactly once,
 * and on dimension d it sends as many blocks as there are s in 1 .. n - 1 with
 * lowest set bit d: n/2, n/4, .. 1 for n a power of two, the far dimensions
 * the fewest. The all-gather starts with the farthest dimension (a tree's top
 * edges: one block each) and ends on dimension 0 (half the blocks); the
 * reduce-scatter, the same trees run backwards with the partial sums
 * aggregated at each rank, starts on dimension 0 and ends on the farthest.
 * NCCL aggregates the offsets that share a dimension into one send when
 * buffers allow (aggFactor, from its step size and depth) and pipelines the
 * chunks; here a dimension is one phase of one step, its flows rank to rank
 * +- 2^d with that dimension's blocks, the phases in NCCL's order.
 *
 * Its latency is NCCL's tuner's (src/graph/tuning.cc ncclTopoTuneModel(),
 * v2.23.4-1 to v2.30.7-1; kb NA-ALGO-PAT): 8 us of base, floor(log2 nNodes) x
 * interLat / 3.5 over the network, and 2.8 us per rank for the kernel's walk
 * over every offset (NCCL's "still a linear part"): ft_coll_pat_phase_s()
 * spreads the last two over the ceil(log2 n) phases, as CollNetDirect's four
 * hops share NCCL's latency for it (schedule.c).
 */
#include "coll_int.h"

/* NCCL's per-rank PAT latency (src/graph/tuning.cc, nRanks x 2.8; kb NA-ALGO-PAT), s */
#define PAT_PER_RANK_S 2.8e-6

/* Dimensions of PAT over @n ranks: ceil(log2 n) (NCCL's log2Up(nranks)). */
uint32_t
ft_coll_pat_dims(uint32_t n)
{
	uint32_t d = 0;

	while (d < 32 && ((uint64_t)1 << d) < n)
		d++;
	return d;
}

/* Offsets s in 1 .. @n - 1 whose lowest set bit is @d: the blocks a rank sends on
 * dimension d. */
uint32_t
ft_coll_pat_blocks(uint32_t n, uint32_t d)
{
	uint64_t m = (uint64_t)1 << d;

	if (d >= 32 || n < 2 || m > n - 1)
		return 0;
	return (uint32_t)((n - 1 - m) / (2 * m) + 1);
}

double
ft_coll_pat_phase_s(uint32_t n, double inter_s)
{
	uint32_t dims = ft_coll_pat_dims(n), lg = 0;

	if (dims == 0)
		return 0;
	while (lg < 31 && (2u << lg) <= n)
		lg++;
	return (lg * inter_s / 3.5 + PAT_PER_RANK_S * n) / dims;
}

int
ft__coll_sched_pat(struct ft_schedule *s, struct ft_error *err)
{
	uint32_t n = s->nranks, dims = ft_coll_pat_dims(n), k, r;
	bool gather = s->op == FT_OP_ALL_GATHER;

	if (s->ranks_per_node != 1)
		return ft_error_set(err, FT_ENOTSUP,
		                    "schedule: pat needs one rank a node (NCCL enables it only "
		                    "where nNodes == nRanks), got %u ranks a node",
		                    s->ranks_per_node);
	for (k = 0; k < dims; k++) {
		uint32_t d = gather ? dims - 1 - k : k, m = 1u << d;
		uint64_t bytes = ft__coll_muldiv(s->bytes, ft_coll_pat_blocks(n, d), n);
		struct ft_sched_phase ph;

		memset(&ph, 0, sizeof(ph));
		ph.steps = 1;
		ph.first_flow = (uint32_t)s->flows.len;
		ph.nflows = n;
		ph.npairs = n;
		snprintf(ph.what, sizeof(ph.what), "pat dimension %u", d);
		if (s->flows.len + n > UINT32_MAX)
			return ft_error_set(err, FT_ERANGE, "schedule: more than 2^32 flows");
		if (ft_vec_push(&s->phases, &ph) < 0 || ft_vec_reserve(&s->flows, n) < 0)
			return ft_error_set(err, FT_ENOMEM, "schedule: out of memory");
		for (r = 0; r < n; r++) {
			struct ft_sched_flow f = {
				.src = r,
				.dst = gather ? (uint32_t)(((uint64_t)r + m) % n) :
				                (uint32_t)(((uint64_t)r + n - m) % n),
				.bytes = bytes,
				.phase = (uint32_t)(s->phases.len - 1),
			};

			if (ft_vec_push(&s->flows, &f) < 0)
				return ft_error_set(err, FT_ENOMEM, "schedule: out of memory");
		}
	}
	return 0;
}

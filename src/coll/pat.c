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
 * over every offset (NCCL's "still a linear part"): ft_coll_pat_lat_s(), the
 * last two, which the model's tuner adds to the base (model/tuner.c cost_pat())
 * and ft_coll_pat_phase_s() spreads over the ceil(log2 n) phases, as
 * CollNetDirect's four hops share NCCL's latency for it. The phases themselves
 * are built in schedule.c (sched_pat()), as the other algorithms are.
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

/* NCCL's floor(log2 n) (its log2i()): the dimensions a block's tree spans in full. */
static uint32_t
log2_floor(uint32_t n)
{
	uint32_t lg = 0;

	while (lg < 31 && (2u << lg) <= n)
		lg++;
	return lg;
}

double
ft_coll_pat_lat_s(uint32_t n, double inter_s)
{
	return log2_floor(n) * inter_s / 3.5 + PAT_PER_RANK_S * n;
}

double
ft_coll_pat_phase_s(uint32_t n, double inter_s)
{
	uint32_t dims = ft_coll_pat_dims(n);

	return dims ? ft_coll_pat_lat_s(n, inter_s) / dims : 0;
}

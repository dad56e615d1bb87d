/* SPDX-License-Identifier: MIT */
/*
 * coll/schedule.c - compile a collective into phases of concurrent flows.
 *
 * Each algorithm becomes the traffic it puts on the links, not its chunk by
 * chunk choreography: NCCL pipelines chunks inside a phase, so a phase is the
 * set of flows that run at once, and `steps` counts the sequential per-step
 * latencies the pipeline pays (kb NA-ALGO-RING: 2(n-1) for a ring
 * all-reduce). The traffic per rank is the textbook one (kb NA-BUSBW "why"
 * column): a ring all-reduce moves 2(n-1)/n of the buffer over each link.
 * All-to-all phases are implicit (generated on demand) so that their n(n-1)
 * flows cost no memory; see docs/internals/model.md.
 */
#include "coll_int.h"

struct builder {
	struct ft_schedule *s;
	struct ft_error *err;
	uint32_t phase; /* index of the phase being filled */
};

static int
phase_begin(struct builder *b, const char *what, uint32_t steps)
{
	struct ft_sched_phase ph;

	memset(&ph, 0, sizeof(ph));
	ph.steps = steps;
	ph.first_flow = (uint32_t)b->s->flows.len;
	ft_strlcpy(ph.what, what, sizeof(ph.what));
	if (ft_vec_push(&b->s->phases, &ph) < 0)
		return ft_error_set(b->err, FT_ENOMEM, "schedule: out of memory");
	b->phase = (uint32_t)(b->s->phases.len - 1);
	return 0;
}

static struct ft_sched_phase *
cur_phase(struct builder *b)
{
	return (struct ft_sched_phase *)ft_vec_at(&b->s->phases, b->phase);
}

static int
add_flow(struct builder *b, uint32_t src, uint32_t dst, uint64_t bytes)
{
	struct ft_sched_flow f = { .src = src, .dst = dst, .bytes = bytes, .phase = b->phase };
	struct ft_sched_phase *ph;

	if (b->s->flows.len >= UINT32_MAX)
		return ft_error_set(b->err, FT_ERANGE, "schedule: more than 2^32 flows");
	if (ft_vec_push(&b->s->flows, &f) < 0)
		return ft_error_set(b->err, FT_ENOMEM, "schedule: out of memory");
	ph = cur_phase(b);
	ph->nflows++;
	ph->npairs++;
	return 0;
}

/* Mark the flow added last as one of tree copy @pipe (1-based), going @dir. */
static void
tag_last(struct builder *b, uint32_t pipe, uint8_t dir)
{
	struct ft_sched_flow *f = &FT_VEC_AT(&b->s->flows, struct ft_sched_flow, b->s->flows.len - 1);

	f->pipe = (uint16_t)FT_MIN(pipe, (uint32_t)UINT16_MAX);
	f->dir = dir;
}

/* Mark the flows from @first on as serving NVLS head @head (0-based). */
static void
tag_head(struct builder *b, size_t first, uint32_t head)
{
	for (; first < b->s->flows.len; first++)
		FT_VEC_AT(&b->s->flows, struct ft_sched_flow, first).head =
		        (uint16_t)FT_MIN(head + 1, (uint32_t)UINT16_MAX);
}

static int
implicit_a2a(struct builder *b, const char *what, uint32_t group_size, uint32_t stride,
             uint64_t bytes_per_pair)
{
	struct ft_sched_phase *ph;
	uint32_t ngroups = b->s->nranks / group_size;
	int rc = phase_begin(b, what, 1);

	if (rc < 0)
		return rc;
	ph = cur_phase(b);
	ph->implicit_alltoall = true;
	ph->a2a_group_size = group_size;
	ph->a2a_stride = stride;
	ph->bytes_per_pair = bytes_per_pair;
	ph->npairs = (uint64_t)ngroups * group_size * (group_size - 1);
	return 0;
}

/* Rank of member @m of the ring of @n members starting at @base, spaced @stride. */
static inline uint32_t
member(uint32_t base, uint32_t stride, uint32_t n, uint32_t m)
{
	return base + (m % n) * stride;
}

/*
 * One ring per group: groups of @n members spaced @stride apart, @ngroups of
 * them (groups are consecutive blocks when stride is 1, rails when stride is
 * the ranks per node). Member i sends @bytes to member i+1.
 */
static int
rings(struct builder *b, uint32_t ngroups, uint32_t n, uint32_t stride, uint64_t bytes)
{
	uint32_t g, i, base;
	int rc;

	if (n < 2)
		return 0;
	if (ft_vec_reserve(&b->s->flows, (size_t)ngroups * n) < 0)
		return ft_error_set(b->err, FT_ENOMEM, "schedule: out of memory");
	for (g = 0; g < ngroups; g++) {
		base = stride == 1 ? g * n : g;
		for (i = 0; i < n; i++) {
			rc = add_flow(b, member(base, stride, n, i), member(base, stride, n, i + 1),
			              bytes);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

static bool
is_pow2(uint32_t n)
{
	return n && (n & (n - 1)) == 0;
}

static uint32_t
ilog2(uint32_t n)
{
	uint32_t k = 0;

	while ((1u << (k + 1)) <= n && k < 31)
		k++;
	return k;
}

/*
 * Parent of in-order position @q (1-based) in the binary tree over 1..@n
 * whose root is the largest power of two <= n: the node with lowest set bit L
 * hangs below q-L or q+L; parents beyond n are skipped upwards (kb
 * NA-ALGO-TREE, BLOG-2.4). Returns 0 for the root.
 */
static uint32_t
tree_parent(uint32_t q, uint32_t n)
{
	uint64_t root = 1, p = q;

	while (root * 2 <= n)
		root *= 2;
	if (q == root)
		return 0;
	do {
		uint64_t low = p & (~p + 1);

		p = (p & (low << 1)) ? p - low : p + low;
	} while (p > n);
	return (uint32_t)p;
}

/* Depth of the tree above: edges from the deepest node (a leaf: odd position) to the root. */
static uint32_t
tree_depth(uint32_t n)
{
	uint32_t q, d, p, best = 0;

	for (q = 1; q <= n; q += 2) {
		for (d = 0, p = tree_parent(q, n); p != 0; d++)
			p = tree_parent(p, n);
		if (d > best)
			best = d;
	}
	return best;
}

/*
 * Double binary tree over @n members spaced @stride apart from @base, each
 * tree carrying half of @bytes up and down at once (flows of tree 0, then
 * tree 1; each edge up, then down).
 */
static int
tree_flows(struct builder *b, uint32_t n, uint32_t base, uint32_t stride, uint64_t bytes,
           uint32_t pipe0)
{
	uint32_t t, p, par, m, pm;
	uint64_t half[2] = { bytes / 2, bytes - bytes / 2 };
	int rc;

	if (ft_vec_reserve(&b->s->flows, 4 * (size_t)(n - 1)) < 0)
		return ft_error_set(b->err, FT_ENOMEM, "schedule: out of memory");
	for (t = 0; t < 2; t++) {
		for (p = 0; p < n; p++) {
			par = tree_parent(p + 1, n);
			if (par == 0)
				continue;
			/* Tree 1 is tree 0 shifted by one rank (n even) or mirrored (n odd),
			 * so that tree 0's leaves are tree 1's interior nodes. */
			if (t == 0) {
				m = p;
				pm = par - 1;
			} else if (n % 2 == 0) {
				m = (p + 1) % n;
				pm = par % n;
			} else {
				m = n - 1 - p;
				pm = n - par;
			}
			rc = add_flow(b, base + m * stride, base + pm * stride, half[t]);
			if (rc == 0) {
				tag_last(b, pipe0 + t + 1, FT_SCHED_UP);
				rc = add_flow(b, base + pm * stride, base + m * stride, half[t]);
			}
			if (rc < 0)
				return rc;
			tag_last(b, pipe0 + t + 1, FT_SCHED_DOWN);
		}
	}
	return 0;
}

/* Double binary tree all-reduce: two trees, each with half of the data, up and down at once. */
static int
sched_tree(struct builder *b)
{
	int rc = phase_begin(b, "tree reduce+broadcast", 2 * tree_depth(b->s->nranks));

	return rc < 0 ? rc : tree_flows(b, b->s->nranks, 0, 1, b->s->bytes, 0);
}

/*
 * NVLSTree all-reduce (kb NA-ALGO-NVLSTREE): inside each node the NVSwitch
 * reduces (each rank sends S, gets back its S/ppn shard) and multicasts
 * (sends S/ppn, gets S); across nodes rank j of every node joins the double
 * binary tree of rail j with its S/ppn shard. NCCL pipelines the three, so
 * they form one phase. Every rank is head j of its node, j its rail; the
 * flows carry the labels struct ft_sched_flow describes.
 */
static int
sched_nvls_tree(struct builder *b)
{
	uint32_t ppn = b->s->ranks_per_node, nn = b->s->nranks / ppn, r, j;
	uint64_t S = b->s->bytes, each = ft__coll_muldiv(S, ppn + 1, ppn);
	int rc;

	if (ppn < 2 || nn < 2)
		return ft_error_set(
		        b->err, FT_ENOTSUP,
		        "schedule: nvls_tree needs 2 or more GPUs per node on 2 or more "
		        "nodes, got %u on %u",
		        ppn, nn);
	rc = phase_begin(b, "nvls in node + tree per rail", 2 + 2 * tree_depth(nn));
	for (r = 0; rc == 0 && r < b->s->nranks; r++) {
		size_t first = b->s->flows.len;

		/* every rank is a head: the one of its rail, whose copies are 2j + 1 and 2j + 2 */
		rc = add_flow(b, r, FT_SCHED_INNET, each);
		if (rc == 0) {
			tag_last(b, 2 * (r % ppn) + 1, FT_SCHED_UP);
			rc = add_flow(b, FT_SCHED_INNET, r, each);
		}
		if (rc == 0) {
			tag_last(b, 2 * (r % ppn) + 1, FT_SCHED_DOWN);
			tag_head(b, first, r % ppn);
		}
	}
	for (j = 0; rc == 0 && j < ppn; j++) {
		size_t first = b->s->flows.len;

		rc = tree_flows(b, nn, j, ppn, S / ppn, 2 * j);
		if (rc == 0)
			tag_head(b, first, j);
	}
	return rc;
}

/*
 * Recursive halving (reduce-scatter) and/or doubling (all-gather), log2(n)
 * rounds each, one phase per round: in round k of the halving every rank
 * swaps S/2^(k+1) with the rank n/2^(k+1) away (Rabenseifner).
 */
static int
sched_hd(struct builder *b, bool halving, bool doubling)
{
	uint32_t n = b->s->nranks, L = ilog2(n), k, r;
	uint64_t S = b->s->bytes;
	char what[32];
	int rc;

	if (!is_pow2(n))
		return ft_error_set(b->err, FT_ENOTSUP,
		                    "halving_doubling needs a power-of-two rank count, got %u", n);
	for (k = 0; halving && k < L; k++) {
		uint32_t dist = n >> (k + 1);
		uint64_t bytes = ft__coll_muldiv(S, 1u << (L - 1 - k), n);

		snprintf(what, sizeof(what), "halving round %u", k + 1);
		rc = phase_begin(b, what, 1);
		for (r = 0; rc == 0 && r < n; r++)
			rc = add_flow(b, r, r ^ dist, bytes);
		if (rc < 0)
			return rc;
	}
	for (k = 0; doubling && k < L; k++) {
		uint32_t dist = 1u << k;
		uint64_t bytes = ft__coll_muldiv(S, 1u << k, n);

		snprintf(what, sizeof(what), "doubling round %u", k + 1);
		rc = phase_begin(b, what, 1);
		for (r = 0; rc == 0 && r < n; r++)
			rc = add_flow(b, r, r ^ dist, bytes);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Ring all-reduce, all-gather and reduce-scatter over all ranks (kb NA-ALGO-RING). */
static int
sched_ring(struct builder *b)
{
	uint32_t n = b->s->nranks;
	uint64_t S = b->s->bytes;
	int rc;

	if (b->s->op == FT_OP_ALL_REDUCE) {
		rc = phase_begin(b, "ring all-reduce", 2 * (n - 1));
		return rc < 0 ? rc : rings(b, 1, n, 1, ft__coll_muldiv(S, 2 * (n - 1), n));
	}
	rc = phase_begin(
	        b, b->s->op == FT_OP_ALL_GATHER ? "ring all-gather" : "ring reduce-scatter", n - 1);
	return rc < 0 ? rc : rings(b, 1, n, 1, ft__coll_muldiv(S, n - 1, n));
}

/* Broadcast (root first) and reduce (root last) as a pipelined chain along the ring. */
static int
sched_chain(struct builder *b, uint32_t root)
{
	uint32_t n = b->s->nranks, k;
	bool bcast = b->s->op == FT_OP_BROADCAST;
	int rc = phase_begin(b, bcast ? "ring broadcast" : "ring reduce", n - 1);

	for (k = 0; rc == 0 && k + 1 < n; k++) {
		uint32_t off = bcast ? k : k + 1;

		rc = add_flow(b, (root + off) % n, (root + off + 1) % n, b->s->bytes);
		if (rc == 0)
			tag_last(b, 1, bcast ? FT_SCHED_DOWN : FT_SCHED_UP);
	}
	return rc;
}

/* Hierarchical all-reduce: intra-node reduce-scatter, inter-node all-reduce per rail, all-gather.
 */
static int
sched_hier_allreduce(struct builder *b)
{
	uint32_t ppn = b->s->ranks_per_node, nn = b->s->nranks / ppn;
	uint64_t S = b->s->bytes, shard = S / ppn;
	int rc = 0;

	if (ppn > 1) {
		rc = phase_begin(b, "intra reduce-scatter", ppn - 1);
		if (rc == 0)
			rc = rings(b, nn, ppn, 1, ft__coll_muldiv(S, ppn - 1, ppn));
	}
	if (rc == 0 && nn > 1) {
		rc = phase_begin(b, "inter all-reduce per rail", 2 * (nn - 1));
		if (rc == 0)
			rc = rings(b, ppn, nn, ppn, ft__coll_muldiv(shard, 2 * (nn - 1), nn));
	}
	if (rc == 0 && ppn > 1) {
		rc = phase_begin(b, "intra all-gather", ppn - 1);
		if (rc == 0)
			rc = rings(b, nn, ppn, 1, ft__coll_muldiv(S, ppn - 1, ppn));
	}
	return rc;
}

/*
 * CollNetDirect all-reduce (NVIDIA/nccl src/device/all_reduce.h, RunWorkColl for
 * NCCL_ALGO_COLLNET_DIRECT, v2.18.3-1 to v2.30.7-1; kb NA-ALGO-COLLNET): every local rank
 * heads a share of S / ppn, which goes to the network through its NIC. A channel's warps
 * are split into four groups that work on the same loop at once: scatter (every rank
 * writes its piece of each head's share to that head over NVLink), reduce (the head sums
 * the pieces and sends the sum into the network), receive-and-broadcast (the head takes
 * the reduced share back and writes it to every other local rank) and gather (a rank takes
 * the shares in). So the three steps of a hierarchical all-reduce pipeline chunk by chunk
 * rather than one after another: one phase of four hops (scatter, up into the switches,
 * down out of them, broadcast). A rank sends 2(ppn - 1)/ppn x S over NVLink, as a
 * reduce-scatter and an all-gather would, and S / ppn to the network. Flows of head j's
 * share carry pipe j + 1 and dir FT_SCHED_UP (towards and into the network) or
 * FT_SCHED_DOWN.
 */
static int
sched_collnet_direct(struct builder *b)
{
	uint32_t ppn = b->s->ranks_per_node, nn = b->s->nranks / ppn, g, j, k;
	uint64_t share = b->s->bytes / ppn;
	int rc = phase_begin(b, "scatter to the heads, in-network all-reduce, broadcast back", 4);

	for (g = 0; rc == 0 && g < nn; g++) {
		uint32_t base = g * ppn;

		for (j = 0; rc == 0 && j < ppn; j++) {
			for (k = 1; rc == 0 && k < ppn; k++) {
				rc = add_flow(b, base + (j + k) % ppn, base + j, share);
				if (rc == 0)
					tag_last(b, j + 1, FT_SCHED_UP);
			}
			if (rc == 0)
				rc = add_flow(b, base + j, FT_SCHED_INNET, share);
			if (rc == 0) {
				tag_last(b, j + 1, FT_SCHED_UP);
				rc = add_flow(b, FT_SCHED_INNET, base + j, share);
			}
			if (rc == 0)
				tag_last(b, j + 1, FT_SCHED_DOWN);
			for (k = 1; rc == 0 && k < ppn; k++) {
				rc = add_flow(b, base + j, base + (j + k) % ppn, share);
				if (rc == 0)
					tag_last(b, j + 1, FT_SCHED_DOWN);
			}
		}
	}
	return rc;
}

/*
 * CollNetChain all-reduce (NVIDIA/nccl src/device/all_reduce.h runTreeUpDown over the
 * collnetChain ring, src/graph/connect.cc, src/graph/tuning.cc; kb NA-ALGO-COLLNET): each
 * channel is a chain through the node's GPUs up to the GPU whose NIC reaches the
 * switches (the channel's head), which sends the chain's partial sums into the network
 * and gets the reduced result back; the result then goes back down the chain. The heads
 * rotate over the channels, one per NIC, so here every local rank j heads one copy with
 * S / ppn: up from j + 1 through j + ppn - 1 to j, j to the network and back, and down
 * again, all pipelined in one phase (2(ppn - 1) hops inside the node, 2 through the
 * network). A rank sends 2(ppn - 1)/ppn x S over NVLink and S / ppn to the network.
 * Flows of copy j carry pipe j + 1 and dir FT_SCHED_UP (towards and into the network)
 * or FT_SCHED_DOWN.
 */
static int
sched_collnet_chain(struct builder *b)
{
	uint32_t ppn = b->s->ranks_per_node, nn = b->s->nranks / ppn, g, j, k;
	uint64_t share = b->s->bytes / ppn;
	int rc = phase_begin(b, "chain to the head's NIC, in-network all-reduce, chain back",
	                     2 * (ppn - 1) + 2);

	for (g = 0; rc == 0 && g < nn; g++) {
		uint32_t base = g * ppn;

		for (j = 0; rc == 0 && j < ppn; j++) {
			for (k = 1; rc == 0 && k < ppn; k++) {
				rc = add_flow(b, base + (j + k) % ppn, base + (j + k + 1) % ppn,
				              share);
				if (rc == 0)
					tag_last(b, j + 1, FT_SCHED_UP);
			}
			if (rc == 0)
				rc = add_flow(b, base + j, FT_SCHED_INNET, share);
			if (rc == 0) {
				tag_last(b, j + 1, FT_SCHED_UP);
				rc = add_flow(b, FT_SCHED_INNET, base + j, share);
			}
			if (rc == 0)
				tag_last(b, j + 1, FT_SCHED_DOWN);
			for (k = ppn - 1; rc == 0 && k >= 1; k--) {
				rc = add_flow(b, base + (j + k + 1) % ppn, base + (j + k) % ppn,
				              share);
				if (rc == 0)
					tag_last(b, j + 1, FT_SCHED_DOWN);
			}
		}
	}
	return rc;
}

/*
 * NVLS inside one NVSwitch domain: the switch reads every rank's buffer and
 * reduces (multimem.ld_reduce), then multicasts each rank's reduced shard
 * (multimem.st). Per rank: all-reduce S(n+1)/n out and in; all-gather S/n
 * out, S in; reduce-scatter S out, S/n in (kb NA-ALGO-NVLS).
 */
static int
sched_nvls(struct builder *b)
{
	uint32_t n = b->s->nranks, r;
	uint64_t S = b->s->bytes, up, down;
	int rc;

	switch (b->s->op) {
	case FT_OP_ALL_REDUCE:
		up = down = ft__coll_muldiv(S, n + 1, n);
		break;
	case FT_OP_ALL_GATHER:
		up = S / n;
		down = S;
		break;
	default:
		up = S;
		down = S / n;
		break;
	}
	rc = phase_begin(b, "nvls switch reduce/multicast", 2);
	for (r = 0; rc == 0 && r < n; r++) {
		rc = add_flow(b, r, FT_SCHED_INNET, up);
		if (rc == 0)
			rc = add_flow(b, FT_SCHED_INNET, r, down);
	}
	return rc;
}

static int
sched_alltoall(struct builder *b)
{
	uint32_t n = b->s->nranks, ppn = b->s->ranks_per_node, nn = n / ppn;
	uint64_t S = b->s->bytes;
	int rc = 0;

	if (b->s->algo == FT_ALGO_DIRECT)
		return implicit_a2a(b, "direct all-to-all", n, 1, S / n);
	/* PXN style (kb NA-CONCEPTS, BLOG-PXN): over NVLink first, each rank hands a local
	 * peer j everything bound for rail j (nn × S/n); then rail j carries, between
	 * nodes, what the node's ppn ranks have for each remote rank of that rail. */
	if (ppn > 1)
		rc = implicit_a2a(b, "intra all-to-all (nvlink)", ppn, 1,
		                  ft__coll_muldiv(S, nn, n));
	if (rc == 0 && nn > 1)
		rc = implicit_a2a(b, "inter all-to-all per rail", nn, ppn,
		                  ft__coll_muldiv(S, ppn, n));
	return rc;
}

static int
sched_sendrecv(struct builder *b)
{
	int rc = phase_begin(b, "send/recv to next rank", 1);

	return rc < 0 ? rc : rings(b, 1, b->s->nranks, 1, b->s->bytes);
}

int
ft__coll_check_choice(enum ft_op op, const enum ft_algo *algo, const enum ft_proto *proto,
                      const char *where, const char *who, struct ft_error *err)
{
	if ((unsigned)op >= FT_OP_COUNT)
		return ft_error_set(err, FT_EINVAL, "%sop: unknown operation %d", where, (int)op);
	if (!ft_op_is_modelled(op))
		return ft_error_set(
		        err, FT_ENOTSUP,
		        "%sop: %s is measured by bench only; %s all_reduce, all_gather, "
		        "reduce_scatter, broadcast, reduce, alltoall and sendrecv",
		        where, ft_op_name(op), who);
	if (algo && (unsigned)*algo >= FT_ALGO_COUNT)
		return ft_error_set(err, FT_EINVAL, "%salgo: unknown algorithm %d", where,
		                    (int)*algo);
	if (proto && (unsigned)*proto >= FT_PROTO_COUNT)
		return ft_error_set(err, FT_EINVAL, "%sproto: unknown protocol %d", where,
		                    (int)*proto);
	return 0;
}

/*
 * NCCL's PAT all-gather or reduce-scatter over ranks one a node (coll/pat.c, kb
 * NA-ALGO-PAT): one phase of one step a dimension d, in NCCL's order (the all-gather the
 * farthest first, the reduce-scatter dimension 0 first), each rank sending to rank + 2^d
 * (all-gather) or rank - 2^d (reduce-scatter) the S / n blocks of the offsets whose
 * lowest set bit is d. FT_ENOTSUP for more than one rank a node: NCCL enables PAT only
 * where nNodes == nRanks (src/graph/tuning.cc ncclPatEnable()).
 */
static int
sched_pat(struct builder *b)
{
	const struct ft_schedule *s = b->s;
	uint32_t n = s->nranks, dims = ft_coll_pat_dims(n), k, r;
	bool gather = s->op == FT_OP_ALL_GATHER;
	char what[32];
	int rc;

	if (s->ranks_per_node != 1)
		return ft_error_set(b->err, FT_ENOTSUP,
		                    "schedule: pat needs one GPU per node (NCCL enables it only "
		                    "where nNodes == nRanks), got %u ranks a node",
		                    s->ranks_per_node);
	for (k = 0; k < dims; k++) {
		uint32_t d = gather ? dims - 1 - k : k, m = 1u << d;
		uint64_t bytes = ft__coll_muldiv(s->bytes, ft_coll_pat_blocks(n, d), n);

		snprintf(what, sizeof(what), "pat dimension %u", d);
		rc = phase_begin(b, what, 1);
		if (rc == 0 && ft_vec_reserve(&b->s->flows, n) < 0)
			rc = ft_error_set(b->err, FT_ENOMEM, "schedule: out of memory");
		for (r = 0; r < n && rc == 0; r++)
			rc = add_flow(b, r,
			              gather ? (uint32_t)(((uint64_t)r + m) % n) :
			                       (uint32_t)(((uint64_t)r + n - m) % n),
			              bytes);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int
check_args(const struct ft_coll_args *a, struct ft_error *err)
{
	int rc = ft__coll_check_choice(a->op, &a->algo, &a->proto, "schedule: ",
	                               "the twin schedules", err);

	if (rc < 0)
		return rc;
	if (a->nranks == 0)
		return ft_error_set(err, FT_EINVAL, "schedule: nranks: expected at least 1, got 0");
	if (a->ranks_per_node > a->nranks || (a->ranks_per_node && a->nranks % a->ranks_per_node))
		return ft_error_set(
		        err, FT_EINVAL,
		        "schedule: ranks_per_node: expected a divisor of %u ranks, got %u",
		        a->nranks, a->ranks_per_node);
	if ((a->op == FT_OP_BROADCAST || a->op == FT_OP_REDUCE) && a->root >= a->nranks)
		return ft_error_set(err, FT_EINVAL,
		                    "schedule: root: expected a rank below %u, got %u", a->nranks,
		                    a->root);
	if (a->bytes > (UINT64_MAX >> 2))
		return ft_error_set(err, FT_ERANGE, "schedule: bytes: %" PRIu64 " is too large",
		                    a->bytes);
	if (a->intra != FT_HW_NVLINK && a->intra != FT_HW_PCI)
		return ft_error_set(err, FT_EINVAL,
		                    "schedule: intra: expected FT_HW_NVLINK or FT_HW_PCI, got %d",
		                    (int)a->intra);
	if (!ft_coll_supports(a->op, a->algo, a->proto))
		return ft_error_set(
		        err, FT_ENOTSUP, "schedule: %s has no %s algorithm with the %s protocol",
		        ft_op_name(a->op), ft_algo_name(a->algo), ft_proto_name(a->proto));
	return 0;
}

void
ft_schedule_init(struct ft_schedule *s)
{
	memset(s, 0, sizeof(*s));
	ft_vec_init(&s->phases, sizeof(struct ft_sched_phase));
	ft_vec_init(&s->flows, sizeof(struct ft_sched_flow));
}

void
ft_schedule_release(struct ft_schedule *s)
{
	ft_vec_release(&s->phases);
	ft_vec_release(&s->flows);
}

int
ft_coll_schedule(const struct ft_coll_args *args, struct ft_schedule *out, struct ft_error *err)
{
	struct builder b = { .s = out, .err = err };
	uint32_t ppn;
	int rc;

	ft_vec_release(&out->phases);
	ft_vec_release(&out->flows);
	ft_schedule_init(out);
	rc = check_args(args, err);
	if (rc < 0)
		return rc;
	ppn = args->ranks_per_node ? args->ranks_per_node : 1;
	out->op = args->op;
	out->algo = args->algo;
	out->proto = args->proto;
	out->nranks = args->nranks;
	out->ranks_per_node = ppn;
	out->bytes = args->bytes;
	out->root = args->root;
	out->proto_eff = ft_proto_efficiency(args->proto);
	/* NCCL's per-hop latency inside a node is almost all protocol overhead (the
	 * wire adds well under a microsecond), so it serves as the per-step cost
	 * on top of the path latency the simulator computes (kb NA-MODEL): the row of
	 * the node's intra link, NVLink's or PCI's (src/graph/tuning.cc
	 * ncclTopoTuneModel(): hwLat by graphs[a]->typeIntra), as the model's
	 * hop_lats_of() and the simulator's release (ft__sim_release_lats()). NVLS and
	 * its tree are NVLink's. Before, NVLink's on every node. */
	out->intra = args->algo == FT_ALGO_NVLS || args->algo == FT_ALGO_NVLS_TREE ? FT_HW_NVLINK :
	                                                                             args->intra;
	out->step_lat_s = ft_coll_hw_latency(out->intra, args->algo, args->proto);
	out->base_lat_s = ft_coll_base_latency(args->algo, args->proto);
	out->net_lat_s = ft_coll_hw_latency(FT_HW_NET, args->algo, args->proto);
	out->collnet_chain = args->collnet_chain && args->algo == FT_ALGO_COLLNET &&
	                     args->op == FT_OP_ALL_REDUCE;
	/* CollNetChain's 2 (ppn - 1) + 2 hops cost NCCL's latency for it (src/graph/tuning.cc
	 * ncclTopoTuneModel()): 2 (ppn - 1) intraLat + interLat, kb NA-MODEL hwLatencies
	 * CollNetChain Simple 2.8 us over NVLink and 30 us through the network (baseLat 0),
	 * NCCL's rows from v2.19.1-1 (v2.18.3-1: 4.75 us NVLink, 8.0 PCI, 14 network), spread
	 * over the hops; the simulator's runner sets the release's and the node's path
	 * (ft__sim_release_lats(), the model's ft_model_collnet_chain_hops_s()). */
	if (out->collnet_chain)
		out->step_lat_s = (2.0 * (ppn - 1) * ft_coll_collnet_chain_hw_latency(out->intra) +
		                   ft_coll_collnet_chain_hw_latency(FT_HW_NET)) /
		                  (2.0 * (ppn - 1) + 2);
	/* CollNetDirect's four hops cost NCCL's latency for it (kb NA-MODEL, src/graph/
	 * tuning.cc): 2 (intraLat + 0.4 us x (ppn - 1)) + interLat, hwLat Simple 3.7 us over
	 * NVLink and 31 us through the network, spread over the four. The kb's default, for a
	 * schedule handed to an engine as it is (the public engine API); the simulator's runner
	 * replaces it with the jobs' release's rows at every ppn (sim ft__sim_release_lats(),
	 * the model's ft_model_collnet_direct_hops_s()), which coll cannot call. */
	if (args->algo == FT_ALGO_COLLNET && args->op == FT_OP_ALL_REDUCE && !out->collnet_chain &&
	    ppn > 1)
		out->step_lat_s =
		        (2 * (out->step_lat_s + 0.4e-6 * (ppn - 1)) +
		         ft_coll_hw_latency(FT_HW_NET, FT_ALGO_COLLNET, FT_PROTO_SIMPLE)) /
		        4;
	/* PAT's phases share NCCL's latency for it but the base (coll/pat.c) */
	if (args->algo == FT_ALGO_PAT)
		out->step_lat_s = ft_coll_pat_phase_s(args->nranks, out->net_lat_s);
	if (args->nranks == 1)
		return 0; /* nothing moves */

	switch (args->op) {
	case FT_OP_ALL_REDUCE:
		if (args->algo == FT_ALGO_RING)
			rc = sched_ring(&b);
		else if (args->algo == FT_ALGO_TREE)
			rc = sched_tree(&b);
		else if (args->algo == FT_ALGO_HALVING_DOUBLING)
			rc = sched_hd(&b, true, true);
		else if (args->algo == FT_ALGO_HIERARCHICAL)
			rc = sched_hier_allreduce(&b);
		else if (args->algo == FT_ALGO_COLLNET && ppn == args->nranks)
			rc = ft_error_set(err, FT_ENOTSUP,
			                  "schedule: collnet needs ranks on more than one node");
		else if (args->algo == FT_ALGO_COLLNET && out->collnet_chain)
			rc = sched_collnet_chain(&b);
		else if (args->algo == FT_ALGO_COLLNET)
			rc = sched_collnet_direct(&b);
		else if (args->algo == FT_ALGO_NVLS_TREE)
			rc = sched_nvls_tree(&b);
		else
			rc = sched_nvls(&b);
		break;
	case FT_OP_ALL_GATHER:
	case FT_OP_REDUCE_SCATTER:
		if (args->algo == FT_ALGO_RING)
			rc = sched_ring(&b);
		else if (args->algo == FT_ALGO_HALVING_DOUBLING)
			rc = sched_hd(&b, args->op == FT_OP_REDUCE_SCATTER,
			              args->op == FT_OP_ALL_GATHER);
		else if (args->algo == FT_ALGO_PAT)
			rc = sched_pat(&b);
		else
			rc = sched_nvls(&b);
		break;
	case FT_OP_BROADCAST:
	case FT_OP_REDUCE:
		rc = sched_chain(&b, args->root);
		break;
	case FT_OP_ALLTOALL:
		rc = sched_alltoall(&b);
		break;
	case FT_OP_SENDRECV:
	default:
		rc = sched_sendrecv(&b);
		break;
	}
	if (rc == 0 && args->algo == FT_ALGO_NVLS && ppn != args->nranks)
		rc = ft_error_set(
		        err, FT_ENOTSUP,
		        "schedule: nvls spans one NVSwitch domain; %u ranks on %u nodes need "
		        "collnet or hierarchical",
		        args->nranks, args->nranks / ppn);
	if (rc < 0) {
		ft_schedule_release(out);
		ft_schedule_init(out);
	}
	return rc;
}

void
ft_sched_phase_flow(const struct ft_schedule *s, const struct ft_sched_phase *ph, uint64_t k,
                    struct ft_sched_flow *out)
{
	uint64_t size, pairs, gi, pi, block;
	uint32_t src_m, d, dst_m, base, stride;

	if (!ph->implicit_alltoall) {
		*out = FT_VEC_AT(&s->flows, struct ft_sched_flow, ph->first_flow + k);
		return;
	}
	size = ph->a2a_group_size;
	stride = ph->a2a_stride;
	pairs = size * (size - 1);
	gi = k / pairs;
	pi = k % pairs;
	block = (uint64_t)stride * size;
	/* Groups: stride 1 -> consecutive blocks; stride > 1 -> offsets within one block. */
	base = (uint32_t)((gi / stride) * block + gi % stride);
	src_m = (uint32_t)(pi / (size - 1));
	d = (uint32_t)(pi % (size - 1));
	dst_m = d < src_m ? d : d + 1;
	*out = (struct ft_sched_flow){
		.src = base + src_m * stride,
		.dst = base + dst_m * stride,
		.bytes = ph->bytes_per_pair,
		.phase = (uint32_t)(ph - (const struct ft_sched_phase *)s->phases.data),
	};
}

uint64_t
ft_schedule_total_bytes(const struct ft_schedule *s)
{
	uint64_t total = 0;
	size_t i, f;

	for (i = 0; i < s->phases.len; i++) {
		const struct ft_sched_phase *ph = ft_sched_phase_at(s, i);

		if (ph->implicit_alltoall) {
			total += ph->npairs * ph->bytes_per_pair;
			continue;
		}
		for (f = 0; f < ph->nflows; f++)
			total += FT_VEC_AT(&s->flows, struct ft_sched_flow, ph->first_flow + f)
			                 .bytes;
	}
	return total;
}

uint64_t
ft_schedule_total_flows(const struct ft_schedule *s)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < s->phases.len; i++)
		total += ft_sched_phase_at(s, i)->npairs;
	return total;
}

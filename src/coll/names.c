/* SPDX-License-Identifier: MIT */
/*
 * coll/names.c - names of operations, algorithms and protocols, which
 * combinations exist, protocol efficiencies, NCCL's latency table and the
 * nccl-tests bus-bandwidth factors.
 *
 * The numbers come from the knowledge base (kb ids in comments), which copies
 * them from NVIDIA/nccl src/graph/tuning.cc and src/include/device.h at commit
 * 5067397c (v2.30.7), and from nccl-tests doc/PERFORMANCE.md. They are NCCL's
 * tuning constants, not measurements: they change between NCCL releases.
 */
#include "coll/names.h"

#include <inttypes.h>

#include <fabtune/result.h>
#include <fabtune/spec.h>

#include "coll_int.h"

FT__NAME_TABLE(op_names, FT_OP_MAP, FT_OP_COUNT);
FT__NAME_TABLE(algo_names, FT_ALGO_MAP, FT_ALGO_COUNT);
FT__NAME_TABLE(proto_names, FT_PROTO_MAP, FT_PROTO_COUNT);

FT__NAME_GETTER(ft_op_name, enum ft_op, op_names, FT_OP_COUNT)
FT__NAME_GETTER(ft_algo_name, enum ft_algo, algo_names, FT_ALGO_COUNT)
FT__NAME_GETTER(ft_proto_name, enum ft_proto, proto_names, FT_PROTO_COUNT)

static const struct ft__name_alias op_aliases[] = {
	{ "alltoallv", FT_OP_ALLTOALL },
	{ "a2a", FT_OP_ALLTOALL },
	{ "bcast", FT_OP_BROADCAST },
	{ "p2p", FT_OP_SENDRECV },
	{ "pt2pt", FT_OP_PT2PT_BW },
	{ "bw", FT_OP_PT2PT_BW },
	{ "lat", FT_OP_PT2PT_LAT },
	{ "latency", FT_OP_PT2PT_LAT },
	{ NULL, 0 },
};

/* NCCL_ALGO spellings (kb NA-MODEL) and common short names. */
static const struct ft__name_alias algo_aliases[] = {
	{ "collnetdirect", FT_ALGO_COLLNET },
	{ "collnetchain", FT_ALGO_COLLNET },
	{ "sharp", FT_ALGO_COLLNET },
	{ "hd", FT_ALGO_HALVING_DOUBLING },
	{ "rabenseifner", FT_ALGO_HALVING_DOUBLING },
	{ "doublebinarytree", FT_ALGO_TREE },
	{ "pxn", FT_ALGO_HIERARCHICAL },
	{ NULL, 0 },
};

const struct ft__name_set ft__coll_ops = { op_names, FT_OP_COUNT, 0, op_aliases };
const struct ft__name_set ft__coll_modelled_ops = { op_names, FT_OP_COUNT, FT_OP_SENDRECV + 1,
	                                            op_aliases };
const struct ft__name_set ft__coll_algos = { algo_names, FT_ALGO_COUNT, 0, algo_aliases };
const struct ft__name_set ft__coll_protos = { proto_names, FT_PROTO_COUNT, 0, NULL };

FT__FROM_NAME(ft_op_from_name, enum ft_op, ft__coll_ops, FT_EINVAL)

enum ft_collnet_variant
ft_collnet_variant_from_name(const char *s)
{
	char w[32];
	size_t n = 0;

	for (; s && *s && n + 1 < sizeof(w); s++)
		if (*s != '_' && *s != '-' && *s != ' ')
			w[n++] = (char)tolower((unsigned char)*s);
	w[n] = '\0';
	if (s && *s)
		return FT_COLLNET_AUTO; /* longer than any name */
	return strcmp(w, "collnetdirect") == 0 ? FT_COLLNET_DIRECT :
	       strcmp(w, "collnetchain") == 0  ? FT_COLLNET_CHAIN :
	                                         FT_COLLNET_AUTO;
}

const char *
ft_collnet_variant_name(enum ft_collnet_variant v)
{
	return v == FT_COLLNET_DIRECT ? "collnet_direct" :
	       v == FT_COLLNET_CHAIN  ? "collnet_chain" :
	                                "collnet";
}

bool
ft_op_is_modelled(enum ft_op op)
{
	return (unsigned)op <= FT_OP_SENDRECV;
}

int
ft_op_from_test(const char *test, enum ft_op *out)
{
	char name[32];
	size_t n;

	ft_strlcpy(name, test, sizeof(name));
	n = strlen(name);
	if (n > 5 && strcmp(name + n - 5, "_perf") == 0)
		name[n - 5] = '\0';
	if (ft_op_from_name(name, out) < 0 || !ft_op_is_modelled(*out))
		return FT_EINVAL;
	return 0;
}

bool
ft_op_is_coll(enum ft_op op)
{
	return (unsigned)op <= FT_OP_HYPERCUBE;
}

FT__FROM_NAME(ft_algo_from_name, enum ft_algo, ft__coll_algos, FT_EINVAL)

FT__FROM_NAME(ft_proto_from_name, enum ft_proto, ft__coll_protos, FT_EINVAL)

double
ft_coll_busbw_factor(enum ft_op op, uint32_t nranks)
{
	double n = nranks;

	/* kb NA-BUSBW (nccl-tests doc/PERFORMANCE.md and the *GetBw functions of src). */
	if (nranks == 0)
		return 0.0;
	switch (op) {
	case FT_OP_ALL_REDUCE:
		return 2.0 * (n - 1.0) / n;
	case FT_OP_ALL_GATHER:
	case FT_OP_REDUCE_SCATTER:
	case FT_OP_ALLTOALL:
	case FT_OP_GATHER:
	case FT_OP_SCATTER:
	case FT_OP_HYPERCUBE:
		return (n - 1.0) / n;
	case FT_OP_BROADCAST:
	case FT_OP_REDUCE:
	case FT_OP_SENDRECV:
	case FT_OP_PT2PT_BW:
	case FT_OP_PT2PT_LAT:
	case FT_OP_PAIRS:
	case FT_OP_BISECTION:
	case FT_OP_INCAST:
	case FT_OP_DEV_MEMCPY:
	case FT_OP_COPY_MATRIX:
		return 1.0;
	default:
		return 0.0;
	}
}

double
ft_proto_efficiency(enum ft_proto p)
{
	switch (p) {
	case FT_PROTO_LL:
		return 0.5; /* kb NA-PROTO-LL: 8 data bytes per 16-byte line */
	case FT_PROTO_LL128:
		return 120.0 / 128.0; /* kb NA-PROTO-LL128: 15 of 16 8-byte words carry data */
	case FT_PROTO_SIMPLE:
	default:
		return 1.0; /* kb NA-PROTO-SIMPLE */
	}
}

/* Rows of NCCL's latency tables: the algorithms NCCL's tuner knows. */
enum nccl_algo {
	NA_TREE,
	NA_RING,
	NA_COLLNET_DIRECT,
	NA_NVLS,
	NA_PAT,
	NA_NVLS_TREE,
	NA_COUNT
};

static enum nccl_algo
nccl_row(enum ft_algo a)
{
	switch (a) {
	case FT_ALGO_TREE:
		return NA_TREE;
	case FT_ALGO_COLLNET:
		return NA_COLLNET_DIRECT;
	case FT_ALGO_NVLS:
		return NA_NVLS;
	case FT_ALGO_PAT:
		return NA_PAT;
	case FT_ALGO_NVLS_TREE:
		return NA_NVLS_TREE;
	default:
		return NA_RING; /* ring and the algorithms NCCL doesn't tune */
	}
}

/*
 * kb NA-MODEL "Base latencies", microseconds, columns in enum ft_proto order
 * (Simple, LL, LL128). SRC tuning.cc baseLatencies.
 */
static const double base_lat_us[NA_COUNT][FT_PROTO_COUNT] = {
	[NA_TREE] = { 8.4, 6.8, 14.0 },    [NA_RING] = { 8.4, 6.6, 14.0 },
	[NA_COLLNET_DIRECT] = { 0, 0, 0 }, [NA_NVLS] = { 0, 0, 0 },
	[NA_PAT] = { 8.0, 8.0, 8.0 },      [NA_NVLS_TREE] = { 0, 0, 0 },
};

/*
 * kb NA-MODEL "Hardware latencies", microseconds, [link][algo][Simple, LL, LL128].
 * SRC tuning.cc hwLatencies. 0 = combination not used by NCCL.
 */
static const double hw_lat_us[FT_HW_COUNT][NA_COUNT][FT_PROTO_COUNT] = {
	[FT_HW_NVLINK] = {
		[NA_TREE] = { 4.0, 0.6, 1.25 },
		[NA_RING] = { 3.4, 0.6, 1.9 },
		[NA_COLLNET_DIRECT] = { 3.7, 0, 0 },
		[NA_NVLS] = { 25.0, 0, 0 },
		[NA_PAT] = { 4.0, 0, 0 },
		[NA_NVLS_TREE] = { 25.0, 0, 0 },
	},
	[FT_HW_PCI] = {
		[NA_TREE] = { 4.0, 1.0, 1.9 },
		[NA_RING] = { 5.7, 1.0, 2.5 },
		[NA_COLLNET_DIRECT] = { 3.7, 0, 0 },
		[NA_NVLS] = { 0, 0, 0 },
		[NA_PAT] = { 4.0, 0, 0 },
	},
	[FT_HW_NET] = {
		[NA_TREE] = { 14.0, 5.0, 8.5 },
		[NA_RING] = { 14.0, 2.7, 4.0 },
		[NA_COLLNET_DIRECT] = { 31.0, 0, 0 },
		[NA_NVLS] = { 18.0, 0, 0 },
		[NA_PAT] = { 14.0, 0, 0 },
		[NA_NVLS_TREE] = { 20.9, 0, 0 },
	},
};

double
ft_coll_base_latency(enum ft_algo a, enum ft_proto p)
{
	if ((unsigned)p >= FT_PROTO_COUNT)
		return 0.0;
	return base_lat_us[nccl_row(a)][p] * 1e-6;
}

double
ft_coll_hw_latency(enum ft_hw_link link, enum ft_algo a, enum ft_proto p)
{
	if ((unsigned)link >= FT_HW_COUNT || (unsigned)p >= FT_PROTO_COUNT)
		return 0.0;
	return hw_lat_us[link][nccl_row(a)][p] * 1e-6;
}

/* kb NA-MODEL hwLatencies of CollNetChain, Simple, us: NVLINK, PCI, NET */
static const double chain_hw_us[FT_HW_COUNT] = { 2.8, 2.8, 30.0 };

double
ft_coll_collnet_chain_hw_latency(enum ft_hw_link link)
{
	return (unsigned)link < FT_HW_COUNT ? chain_hw_us[link] * 1e-6 : 0.0;
}

bool
ft_coll_supports(enum ft_op op, enum ft_algo a, enum ft_proto p)
{
	bool simple = p == FT_PROTO_SIMPLE;

	if ((unsigned)op >= FT_OP_COUNT || (unsigned)a >= FT_ALGO_COUNT ||
	    (unsigned)p >= FT_PROTO_COUNT)
		return false;
	switch (op) {
	case FT_OP_ALL_REDUCE:
		/* kb NA-MODEL "algorithms considered"; NVLS(Tree) and CollNet are Simple only. */
		if (a == FT_ALGO_NVLS || a == FT_ALGO_NVLS_TREE || a == FT_ALGO_COLLNET)
			return simple;
		return a == FT_ALGO_RING || a == FT_ALGO_TREE || a == FT_ALGO_HALVING_DOUBLING ||
		       a == FT_ALGO_HIERARCHICAL;
	case FT_OP_ALL_GATHER:
	case FT_OP_REDUCE_SCATTER:
		/* PAT: Simple only (src/graph/tuning.cc; kb NA-ALGO-PAT), one rank a node */
		if (a == FT_ALGO_NVLS || a == FT_ALGO_PAT)
			return simple;
		return a == FT_ALGO_RING || a == FT_ALGO_HALVING_DOUBLING;
	case FT_OP_BROADCAST:
	case FT_OP_REDUCE:
	case FT_OP_SENDRECV:
		return a == FT_ALGO_RING;
	case FT_OP_ALLTOALL:
		return a == FT_ALGO_DIRECT || a == FT_ALGO_HIERARCHICAL;
	default:
		return false;
	}
}

enum ft_algo
ft_coll_default_algo(enum ft_op op)
{
	return op == FT_OP_ALLTOALL ? FT_ALGO_DIRECT : FT_ALGO_RING;
}

int
ft__channels_read(uint64_t given, uint32_t *out, struct ft_error *err)
{
	*out = 0;
	if (given == FT_SPEC_CHANNELS_UNSET)
		return 0;
	if (given == 0 || given > FT_SPEC_MAX_CHANNELS)
		return ft_error_set(err, FT_EINVAL,
		                    "--channels: expected 1 to %d (NCCL's MAXCHANNELS), got %" PRIu64,
		                    FT_SPEC_MAX_CHANNELS, given);
	*out = (uint32_t)given;
	return 0;
}

void
ft_coll_row_args(struct ft_result_row *row, enum ft_op op)
{
	uint64_t elems = row->bytes / 4;

	/* nccl-tests prints per-rank counts for the ops whose size is the total array. */
	if (op == FT_OP_ALL_GATHER || op == FT_OP_REDUCE_SCATTER || op == FT_OP_ALLTOALL)
		elems = row->nranks ? elems / row->nranks : elems;
	row->count = elems;
	ft_strlcpy(row->dtype, "float", sizeof(row->dtype));
	ft_strlcpy(row->redop,
	           op == FT_OP_ALL_REDUCE || op == FT_OP_REDUCE || op == FT_OP_REDUCE_SCATTER ?
	                   "sum" :
	                   "none",
	           sizeof(row->redop));
	row->root = op == FT_OP_BROADCAST || op == FT_OP_REDUCE ? 0 : -1;
}

/* SPDX-License-Identifier: MIT */
/*
 * model/eval.c - pick the algorithm and protocol of a collective the way
 * NCCL's tuner does (the least lat + bytes / bw over what is enabled), or
 * evaluate the forced ones, and sweep sizes into nccl-tests-shaped rows.
 */
#include "model_int.h"

#include <fabtune/units.h>

void
ft_model_query_init(struct ft_model_query *q, enum ft_op op, uint64_t bytes)
{
	memset(q, 0, sizeof(*q));
	q->op = op;
	q->bytes = bytes;
}

static void
fill(const struct ft_model_links *l, const struct ft_model_query *q, enum ft_algo a,
     enum ft_proto p, const struct ft__model_cost *c, double t, struct ft_model_result *out)
{
	memset(out, 0, sizeof(*out));
	out->op = q->op;
	out->algo = a;
	out->proto = p;
	out->nranks = l->nranks;
	out->nnodes = l->nnodes;
	out->ppn = l->ppn;
	out->nchannels = l->nchannels;
	out->bytes = q->bytes;
	out->time_s = t;
	out->lat_s = c->lat_s;
	out->bw_Bps = q->bytes ? (double)q->bytes / (t - c->lat_s) : c->bw_Bps;
	out->algbw_Bps = t > 0 ? (double)q->bytes / t : 0;
	out->busbw_Bps = out->algbw_Bps * ft_coll_busbw_factor(q->op, l->nranks);
	if (t - c->lat_s < c->lat_s)
		ft_strlcpy(out->bottleneck, "latency", sizeof(out->bottleneck));
	else
		ft_strlcpy(out->bottleneck, c->bottleneck, sizeof(out->bottleneck));
}

/* A single rank moves nothing: NCCL still pays its launch latency (a local copy). */
static int
eval_one_rank(const struct ft_model_links *l, const struct ft_model_query *q,
              struct ft_model_result *out)
{
	struct ft__model_cost c = { .lat_s = ft_coll_base_latency(FT_ALGO_RING, FT_PROTO_SIMPLE),
		                    .bw_Bps = INFINITY };

	ft_strlcpy(c.bottleneck, "latency", sizeof(c.bottleneck));
	fill(l, q, q->force_algo ? q->algo : ft_coll_default_algo(q->op),
	     q->force_proto ? q->proto : FT_PROTO_SIMPLE, &c, c.lat_s, out);
	ft_strlcpy(out->bottleneck, "latency", sizeof(out->bottleneck));
	return 0;
}

static int
check_query(const struct ft_model_query *q, struct ft_error *err)
{
	if ((unsigned)q->op >= FT_OP_COUNT)
		return ft_error_set(err, FT_EINVAL, "op: unknown operation %d", (int)q->op);
	if (q->force_algo && (unsigned)q->algo >= FT_ALGO_COUNT)
		return ft_error_set(err, FT_EINVAL, "algo: unknown algorithm %d", (int)q->algo);
	if (q->force_proto && (unsigned)q->proto >= FT_PROTO_COUNT)
		return ft_error_set(err, FT_EINVAL, "proto: unknown protocol %d", (int)q->proto);
	if (q->nchannels > 64)
		return ft_error_set(err, FT_ERANGE,
		                    "channels: expected 1 to 64 (MAXCHANNELS), got %u",
		                    q->nchannels);
	return 0;
}

static bool
algo_exists(enum ft_op op, enum ft_algo a)
{
	enum ft_proto p;

	for (p = 0; p < FT_PROTO_COUNT; p++)
		if (ft_coll_supports(op, a, p))
			return true;
	/* PAT has no schedule but a cost model (kb NA-ALGO-PAT). */
	return a == FT_ALGO_PAT && (op == FT_OP_ALL_GATHER || op == FT_OP_REDUCE_SCATTER);
}

/* "broadcast has no tree algorithm (it has ring)". */
static int
no_such_algo(const struct ft_model_query *q, struct ft_error *err)
{
	char list[160] = "";
	size_t len = 0;
	enum ft_algo a;

	for (a = 0; a < FT_ALGO_COUNT; a++) {
		if (!algo_exists(q->op, a) || len >= sizeof(list))
			continue;
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s", len ? ", " : "",
		                        ft_algo_name(a));
	}
	return ft_error_set(err, FT_ENOTSUP, "%s has no %s algorithm (it has %s)",
	                    ft_op_name(q->op), ft_algo_name(q->algo), list);
}

/*
 * NCCL_MIN/MAX_NCHANNELS: @nch channels instead of the graph's. A channel is
 * one ring (or tree) with its share of the graph's bandwidth inside a node
 * (busBw = nChannels x per-channel bandwidth, kb NA-MODEL), and it leaves a
 * node through one NIC (kb NA-ALGO-RING): fewer channels than rails leave
 * NICs idle; more than the graph's add nothing.
 */
static void
force_channels(struct ft_model_links *l, uint32_t nch)
{
	uint32_t graph = l->nchannels ? l->nchannels : 1;

	if (nch < graph)
		l->intra_Bps *= (double)nch / graph;
	if (nch < l->nrails) {
		l->nrails = nch;
		l->inter_Bps = nch * l->nic_Bps;
	}
	l->nchannels = nch;
}

int
ft_model_eval(const struct ft_cluster_spec *spec, const struct ft_model_query *q,
              struct ft_model_result *out, struct ft_error *err)
{
	struct ft_model_links l;
	struct ft__model_cost c, best_c;
	enum ft_algo a, best_a = FT_ALGO_RING;
	enum ft_proto p, best_p = FT_PROTO_SIMPLE;
	double t, best_t = INFINITY;
	const char *why = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = check_query(q, err);
	if (rc < 0)
		return rc;
	rc = ft_model_links_get(spec, q->ngpus, q->nnodes, q->ppn, &l, err);
	if (rc < 0)
		return rc;
	if (q->nchannels)
		force_channels(&l, q->nchannels);
	if (l.nranks == 1)
		return eval_one_rank(&l, q, out);
	if (q->force_algo && !algo_exists(q->op, q->algo))
		return no_such_algo(q, err);
	memset(&best_c, 0, sizeof(best_c));
	for (a = 0; a < FT_ALGO_COUNT; a++) {
		if (q->force_algo && a != q->algo)
			continue;
		for (p = 0; p < FT_PROTO_COUNT; p++) {
			const char *no;

			if (q->force_proto && p != q->proto)
				continue;
			no = ft__model_unavailable(&l, q->op, a, p, q->force_algo, q->force_proto);
			if (no) {
				if (!why)
					why = no;
				continue;
			}
			ft__model_cost(&l, q->op, a, p, &c);
			t = ft__model_time(&l, q->op, a, p, &c, q->bytes);
			/* Strictly less: ties keep the earlier (algorithm, protocol),
			 * deterministically. */
			if (t < best_t) {
				best_t = t;
				best_a = a;
				best_p = p;
				best_c = c;
			}
		}
	}
	if (best_t == INFINITY) {
		if (q->force_algo && q->force_proto)
			return ft_error_set(err, FT_ENOTSUP, "%s with algo %s and proto %s: %s",
			                    ft_op_name(q->op), ft_algo_name(q->algo),
			                    ft_proto_name(q->proto), why ? why : "not available");
		if (q->force_algo)
			return ft_error_set(err, FT_ENOTSUP, "%s with algo %s: %s",
			                    ft_op_name(q->op), ft_algo_name(q->algo),
			                    why ? why : "not available");
		return ft_error_set(err, FT_ENOTSUP, "%s with proto %s: %s", ft_op_name(q->op),
		                    ft_proto_name(q->proto), why ? why : "not available");
	}
	fill(&l, q, best_a, best_p, &best_c, best_t, out);
	return 0;
}

void
ft_model_result_to_row(const struct ft_model_result *r, struct ft_result_row *row)
{
	uint64_t elems = r->bytes / 4;

	ft_result_row_init(row);
	ft_strlcpy(row->test, ft_op_name(r->op), sizeof(row->test));
	row->bytes = r->bytes;
	/* nccl-tests prints per-rank counts for the ops whose size is the total array. */
	if (r->op == FT_OP_ALL_GATHER || r->op == FT_OP_REDUCE_SCATTER || r->op == FT_OP_ALLTOALL)
		elems = r->nranks ? elems / r->nranks : elems;
	row->count = elems;
	ft_strlcpy(row->dtype, "float", sizeof(row->dtype));
	ft_strlcpy(row->redop,
	           r->op == FT_OP_ALL_REDUCE || r->op == FT_OP_REDUCE ||
	                           r->op == FT_OP_REDUCE_SCATTER ?
	                   "sum" :
	                   "none",
	           sizeof(row->redop));
	row->root = r->op == FT_OP_BROADCAST || r->op == FT_OP_REDUCE ? 0 : -1;
	row->nranks = r->nranks;
	row->time_us = r->time_s * 1e6;
	row->algbw_GBps = r->algbw_Bps / 1e9;
	row->busbw_GBps = r->busbw_Bps / 1e9;
	ft_strlcpy(row->algo, ft_algo_name(r->algo), sizeof(row->algo));
	ft_strlcpy(row->proto, ft_proto_name(r->proto), sizeof(row->proto));
	ft_strlcpy(row->bottleneck, r->bottleneck, sizeof(row->bottleneck));
}

int
ft_model_sweep(const struct ft_cluster_spec *spec, const struct ft_model_query *q,
               uint64_t min_bytes, uint64_t max_bytes, uint64_t factor, struct ft_run *run,
               struct ft_error *err)
{
	struct ft_model_query one = *q;
	struct ft_model_result r;
	struct ft_result_row row;
	uint64_t b;
	int rc;

	if (factor < 2)
		return ft_error_set(err, FT_EINVAL, "stepfactor: expected at least 2, got %" PRIu64,
		                    factor);
	if (min_bytes > max_bytes)
		return ft_error_set(err, FT_EINVAL,
		                    "minbytes: %" PRIu64 " is above maxbytes %" PRIu64, min_bytes,
		                    max_bytes);
	for (b = min_bytes;;) {
		one.bytes = b;
		rc = ft_model_eval(spec, &one, &r, err);
		if (rc < 0)
			return rc;
		ft_model_result_to_row(&r, &row);
		rc = ft_run_add(run, &row);
		if (rc < 0)
			return ft_error_set(err, rc, "model sweep: out of memory");
		if (b == 0) {
			b = 1;
		} else {
			if (b > max_bytes / factor)
				break;
			b *= factor;
		}
		if (b > max_bytes)
			break;
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * model/args.c - a model query as the user asks it, checked: the
 * collective, forced algorithm and protocol, NCCL release, rank layout.
 */
#include "model_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "coll/names.h"

/* The releases the model's constants cover: 2.18 to the 2.30 line (kb and src/model/tuning). */
#define NCCL_OLDEST 21800u
#define NCCL_NEWEST 23099u

/*
 * "2.23.4" into NCCL's own code, NCCL_VERSION(2, 23, 4) = major x 10000 + minor x 100 +
 * patch (src/nccl.h.in, from 2.9); "2.21", a release line, into its newest patch
 * (major x 10000 + minor x 100 + 99), every release of it: the rules that came in the
 * middle of a line (ncclNvlsTreeSm100Tuning from 2.30.3, the first 2.30 tag) hold for it.
 * Patch 99 is that line's code, not a release: refused as text. FT_EINVAL for text that is
 * no 2.x version, FT_ERANGE for a release the model does not know (older than 2.18, newer
 * than the 2.30 line). The message begins with @field and ": " where @field names where the
 * text came from (ft_model_nccl_read() passes "--nccl"), or with "expected" where @field is
 * NULL: the file readers (a scenario's nccl.version, a sweep's vary.nccl) pass NULL and
 * ft__doc_fail() puts file:line:col and the field before it.
 */
int
ft_model_nccl_read_field(const char *field, const char *text, uint32_t *out, struct ft_error *err)
{
	unsigned major = 0, minor = 0, patch = 0;
	char tail = 0;
	int n = sscanf(text, "%u.%u.%u%c", &major, &minor, &patch, &tail);
	const char *sep = field ? ": " : "";
	uint32_t v;

	if (!field)
		field = "";
	if ((n != 2 && n != 3) || major != 2 || minor > 99 || patch > 98)
		return ft_error_set(err, FT_EINVAL,
		                    "%s%sexpected a version like 2.21 or 2.23.4, got '%s'", field,
		                    sep, text);
	v = major * 10000 + minor * 100 + (n == 3 ? patch : 99);
	if (v < NCCL_OLDEST || v > NCCL_NEWEST)
		return ft_error_set(err, FT_ERANGE,
		                    "%s%sexpected 2.18 to 2.30 (the releases the model knows), "
		                    "got '%s'",
		                    field, sep, text);
	*out = v;
	return 0;
}

int
ft_model_nccl_read(const char *text, uint32_t *out, struct ft_error *err)
{
	return ft_model_nccl_read_field("--nccl", text, out, err);
}

int
ft_model_nccl_check(uint32_t version, struct ft_error *err)
{
	if (version && (version < NCCL_OLDEST || version > NCCL_NEWEST))
		return ft_error_set(err, FT_ERANGE,
		                    "nccl: expected 2.18 to 2.30 (the releases the model knows), "
		                    "got %u.%u",
		                    version / 10000, version / 100 % 100);
	return 0;
}

void
ft_model_nccl_name(uint32_t version, char *buf, size_t len)
{
	if (version == 0)
		snprintf(buf, len, "newest");
	else if (version % 100 == 99)
		snprintf(buf, len, "%u.%u", version / 10000, version / 100 % 100);
	else
		snprintf(buf, len, "%u.%u.%u", version / 10000, version / 100 % 100, version % 100);
}

void
ft_model_args_init(struct ft_model_args *a)
{
	memset(a, 0, sizeof(*a));
	a->channels = FT_SPEC_CHANNELS_UNSET;
}

int
ft_model_args_query(const struct ft_model_args *a, struct ft_model_query *q, struct ft_error *err)
{
	int op, algo = 0, proto = 0;
	int rc = ft__name_read(&ft__coll_modelled_ops, "--op", a->op ? a->op : "all_reduce", -1,
	                       &op, err);

	if (rc == 0 && a->algo)
		rc = ft__name_read(&ft__coll_algos, "--algo", a->algo, -1, &algo, err);
	if (rc == 0 && a->proto)
		rc = ft__name_read(&ft__coll_protos, "--proto", a->proto, -1, &proto, err);
	if (rc < 0)
		return rc;
	ft_model_query_init(q, (enum ft_op)op, 0);
	q->force_algo = a->algo != NULL;
	q->force_proto = a->proto != NULL;
	if (a->algo)
		q->algo = (enum ft_algo)algo;
	/* NCCL_ALGO=CollNetDirect or CollNetChain: that one; collnet, sharp: the tuner's */
	q->collnet = ft_collnet_variant_from_name(a->algo);
	if (a->proto)
		q->proto = (enum ft_proto)proto;
	if (a->ppn > UINT32_MAX)
		return ft_error_set(err, FT_EINVAL, "--ppn: value out of range");
	if (a->gpus_per_thread > FT_SPEC_MAX_GPUS)
		return ft_error_set(err, FT_EINVAL,
		                    "--gpus-per-thread: expected 1 to %d (nccl-tests -g), got %" PRIu64,
		                    FT_SPEC_MAX_GPUS, a->gpus_per_thread);
	if (ft__channels_read(a->channels, &q->nchannels, err) < 0)
		return FT_EINVAL;
	if (a->gpus > UINT32_MAX || a->nodes > UINT32_MAX)
		return ft_error_set(err, FT_EINVAL, "%s: value out of range",
		                    a->gpus > UINT32_MAX ? "--gpus" : "--nodes");
	if (a->nccl && ft_model_nccl_read(a->nccl, &q->nccl_version, err) < 0)
		return FT_EINVAL;
	q->ngpus = (uint32_t)a->gpus;
	q->nnodes = (uint32_t)a->nodes;
	q->ppn = (uint32_t)a->ppn;
	q->cuda_graph = a->cuda_graph;
	q->gpus_per_thread = (uint32_t)a->gpus_per_thread;
	q->tuner_only = a->tuner_only;
	q->nvls_off = a->no_nvls;
	if (a->tuner_plugin && strcmp(a->tuner_plugin, "aws-ofi-nccl") != 0)
		return ft_error_set(err, FT_EINVAL,
		                    "--tuner-plugin: expected aws-ofi-nccl, got '%s'",
		                    a->tuner_plugin);
	q->ofi_tuner = a->tuner_plugin != NULL;
	/* NCCL_ALGO=NVLS with NCCL_NVLS_ENABLE=0 leaves NCCL no algorithm to run */
	if (a->no_nvls && a->algo && (q->algo == FT_ALGO_NVLS || q->algo == FT_ALGO_NVLS_TREE))
		return ft_error_set(err, FT_EINVAL, "--algo %s: NVLink SHARP is off (--no-nvls)",
		                    a->algo);
	return 0;
}

int
ft_model_query_check_nodes(const struct ft_cluster_spec *spec, const struct ft_model_query *q,
                           struct ft_error *err)
{
	struct ft_cluster_spec grown = *spec;
	uint64_t cap;

	if (!q->nnodes || q->nnodes == spec->nnodes)
		return 0;
	/* as a preset of that many nodes would, grow the fat-tree to 3 tiers */
	grown.nnodes = q->nnodes;
	grown.fabric.tiers = FT_MAX(spec->fabric.tiers, 3u);
	cap = ft_spec_fabric_capacity(&grown);
	if (q->nnodes > cap)
		return ft_error_set(err, FT_EINVAL,
		                    "--nodes: expected at most %" PRIu64 " nodes on %s's fabric "
		                    "(%u-tier %s of radix-%u switches), got %u",
		                    cap, spec->name, grown.fabric.tiers,
		                    ft_fabric_kind_name(spec->fabric.kind), spec->fabric.radix,
		                    q->nnodes);
	return 0;
}

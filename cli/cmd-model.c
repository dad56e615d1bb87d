/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-model.c - `fabtune model`: what each size of a collective should
 * achieve on a cluster, as an nccl-tests-shaped table (or JSON), with the
 * algorithm and protocol NCCL's tuner would pick and the bottleneck.
 */
#include <stdio.h>
#include <stdlib.h>

#include <fabtune/fabtune.h>

#include "cli-archive.h"
#include "cli-run.h"
#include "cli.h"

/* The model's errors: a combination it does not cover is a usage error. */
static int
model_fail(struct cli_ctx *ctx, int rc, const struct ft_error *err)
{
	cli_error(ctx, "%s", ft_error_msg(err, rc));
	return rc == FT_ENOTSUP ? EXIT_USAGE : cli_exit_for(rc);
}

/* A warning where --nccl's release predates the nodes' GPUs: NCCL, and the model, then
 * price them with the constants of the newest GPUs it knows (model.h). */
static void
nccl_note(const struct ft_cluster_spec *spec, struct cli_ctx *ctx)
{
	struct ft_model_nccl_note note;
	char msg[256];

	if (!ft_model_nccl_note_get(spec, spec->nccl_version, &note))
		return;
	ft_model_nccl_note_text(&note, NULL, "--nccl", msg, sizeof(msg));
	cli_warn(ctx, "%s", msg);
}

/* A warning where the fabric routes by OpenSM's minhop tables on 3 tiers, whose core links
 * the model does not price (ft_model_routing_note_text()). */
static void
routing_note(const struct ft_cluster_spec *spec, struct cli_ctx *ctx)
{
	char msg[256];

	if (ft_model_routing_note_text(spec, msg, sizeof(msg)))
		cli_warn(ctx, "fabric.routing: %s", msg);
}

/* A warning where the op's in-node shared links could not be priced: the node's topology
 * graph does not build (ft_model_result shared_error); the model goes on with one GPU's
 * share of each link class. */
static void
shared_note(const char *arg, const struct ft_model_result *r, struct cli_ctx *ctx)
{
	char msg[FT_MODEL_SHARED_ERROR_LEN + 256];

	if (!r->shared_error[0])
		return;
	ft_model_shared_note_text(r, msg, sizeof(msg));
	cli_warn(ctx, "%s: %s", arg, msg);
}

/* `fabtune model SPEC --explain SIZE`: one size, with its working. */
static int
run_explain(const char *arg, const struct ft_cluster_spec *spec, struct ft_model_query *q,
            uint64_t bytes, struct cli_ctx *ctx)
{
	struct ft_model_explain *ex = calloc(1, sizeof(*ex));
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	int rc;

	if (!ex) {
		cli_error(ctx, "out of memory");
		return EXIT_RUNTIME;
	}
	q->bytes = bytes;
	rc = ft_model_explain(spec, q, ex, &err);
	if (rc == 0)
		shared_note(arg, &ex->result, ctx);
	ft_strbuf_init(&sb);
	if (rc == 0 && ctx->json)
		ft_model_explain_write_json(spec, ex, &sb);
	else if (rc == 0)
		ft_model_explain_write_text(spec, ex, &sb);
	free(ex);
	if (rc < 0) {
		ft_strbuf_release(&sb);
		return model_fail(ctx, rc, &err);
	}
	return cli_finish(ctx, &sb, 0, &err);
}

int
cmd_model(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = {
		"fabtune model SPEC [--op OP] [-b SIZE] [-e SIZE] [-f N] [--gpus N] [--nodes N] [--ppn N] "
		"[--algo ALGO] [--proto PROTO] [--channels N]",
		"fabtune model SPEC --explain SIZE [--op OP] [--gpus N] [--nodes N] [--ppn N] ...",
		"fabtune model SPEC --calibrate FILE... [--op OP] [--gpus N] [--nodes N] [--ppn N]",
		NULL,
	};
	bool save = false, calibrate = false;
	/* -b and -e: one given alone is the one size (opts_size_alone); neither, 8 to 8G */
	uint64_t minbytes = UINT64_MAX, maxbytes = UINT64_MAX, factor = 2;
	uint64_t explain = UINT64_MAX; /* --explain SIZE; UINT64_MAX: not asked */
	struct ft_model_args o;
	struct ft_model_result largest; /* the sweep's header: its note */
	const struct opt opts[] = {
		OPT_STRING(0, "op", &o.op, "OP",
		           "all_reduce (default), all_gather, reduce_scatter, broadcast, reduce, "
		           "alltoall, sendrecv"),
		OPT_SIZE_RANGE(&minbytes, &maxbytes, "default 8; alone: the one size",
		               "default 8G, or -b"),
		OPT_U64('f', "stepfactor", &factor, "N",
		        "multiply the size by N each row (default 2)"),
		OPT_U64(0, "gpus", &o.gpus, "N",
		        "use the first N GPUs (N <= GPUs per node: one node)"),
		OPT_U64(0, "nodes", &o.nodes, "N", "override the spec's node count"),
		OPT_U64(0, "ppn", &o.ppn, "N", "ranks per node: the first N GPUs of each node"),
		OPT_STRING(
		        0, "algo", &o.algo, "ALGO",
		        "force an algorithm, as NCCL_ALGO: ring, tree, nvls, nvls_tree, collnet, "
		        "halving_doubling, direct, hierarchical"),
		OPT_STRING(0, "proto", &o.proto, "PROTO",
		           "force a protocol, as NCCL_PROTO: simple, ll, ll128"),
		OPT_U64(0, "channels", &o.channels, "N",
		        "NCCL channels (default: NCCL's graph on NVSwitch nodes, one GPU a node "
		        "and NVLink domains; elsewhere one per NVLink)"),
		OPT_STRING(0, "nccl", &o.nccl, "VERSION",
		           "constants of an NCCL release, X.Y or X.Y.Z: 2.18 ... 2.30 "
		           "(default: the newest)"),
		OPT_U64(0, "gpus-per-thread", &o.gpus_per_thread, "N",
		        "GPUs one host thread drives (nccl-tests -g): N launches per operation"),
		OPT_BOOL(0, "cuda-graph", &o.cuda_graph,
		         "iterations replayed from a CUDA graph (nccl-tests -G): no host launch"),
		OPT_BOOL(0, "no-nvls", &o.no_nvls,
		         "NVLink SHARP off (NCCL_NVLS_ENABLE=0): no nvls or nvls_tree"),
		OPT_STRING(0, "tuner-plugin", &o.tuner_plugin, "NAME",
		           "NCCL_TUNER_PLUGIN: aws-ofi-nccl (its AWS p5/p5e all-reduce regions)"),
		OPT_BOOL(0, "tuner-only", &o.tuner_only,
		         "NCCL's own cost model alone, without the pipeline terms"),
		OPT_BOOL(0, "calibrate", &calibrate,
		         "fit the model to nccl-tests outputs FILE... given after SPEC"),
		OPT_SIZE(0, "explain", &explain,
		         "for one size: the terms of its time, every algorithm and protocol"),
		OPT_SAVE(&save, "the expected rows"),
		OPT_END(),
	};
	const struct cmd_usage usage = {
		"model",
		synopsis,
		"Expected time, algbw and busbw of a collective on a cluster, size by size, "
		"with the algorithm and protocol NCCL's tuner picks and the bottleneck.",
		opts,
	};
	struct ft_cluster_spec spec;
	struct ft_model_query q;
	struct ft_error err = { 0 };
	struct ft_run run;
	struct ft_strbuf sb;
	int n, rc;

	ft_model_args_init(&o);
	n = opts_parse_args(&usage, ctx, argc, argv, -1, &rc);
	if (n < 0)
		return rc;
	if (calibrate && n < 2) {
		cli_error(ctx, "--calibrate: expected SPEC then one or more nccl-tests outputs");
		return EXIT_USAGE;
	}
	if (!calibrate && n != 1) {
		cli_error(ctx,
		          n == 0 ? "expected a SPEC (a spec file or a preset like dgx-h100:64)" :
		                   "expected one SPEC, got %d arguments",
		          n);
		return EXIT_USAGE;
	}
	opts_size_alone(&minbytes, &maxbytes, UINT64_MAX);
	if (minbytes == UINT64_MAX) {
		minbytes = 8;
		maxbytes = 8ull << 30;
	}
	if (explain == 0) {
		cli_error(ctx, "--explain: must be at least 1 byte");
		return EXIT_USAGE;
	}
	if (!calibrate && (minbytes == 0 || maxbytes == 0 || minbytes > maxbytes)) {
		cli_error(ctx, "%s",
		          minbytes == 0 ? "-b/--minbytes: must be at least 1 byte" :
		          maxbytes == 0 ? "-e/--maxbytes: must be at least 1 byte" :
		                          "-b/--minbytes: larger than -e/--maxbytes");
		return EXIT_USAGE;
	}
	rc = ft_model_args_query(&o, &q, &err);
	if (rc == 0)
		rc = ft_spec_resolve(argv[1], &spec, &err);
	if (rc == 0 && !calibrate)
		rc = ft_model_query_check_nodes(&spec, &q, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	/* --nccl's release rides on the spec, as the model reads it where the query names
	 * none; one older than the nodes' GPUs is said once (ft_model_nccl_note_get()) */
	if (q.nccl_version)
		spec.nccl_version = q.nccl_version;
	nccl_note(&spec, ctx);
	routing_note(&spec, ctx);
	if (calibrate) { /* each nccl-tests output fitted, with its residuals, and the block */
		ft_strbuf_init(&sb);
		rc = ft_workflow_model_calibrate_write(&spec, &q, o.op != NULL,
		                                       (const char *const *)argv + 2, (size_t)n - 1,
		                                       ctx->json, &sb, &err);
		return cli_finish(ctx, &sb, rc, &err);
	}
	if (explain != UINT64_MAX)
		return run_explain(argv[1], &spec, &q, explain, ctx);
	ft_run_init(&run, FT_SOURCE_MODEL, "model");
	ft_strlcpy(run.spec, spec.name, sizeof(run.spec));
	ft_strbuf_init(&sb);
	rc = ft_model_sweep_report(&spec, &q, minbytes, maxbytes, factor, ctx->json, &run, &sb,
	                           &largest, &err);
	/* the note of a sweep from its largest size, the query its header ran: the links are
	 * the same at every size (a query the model refused is the sweep's error) */
	if (q.op == FT_OP_ALLTOALL || q.op == FT_OP_SENDRECV)
		shared_note(argv[1], &largest, ctx);
	if (rc < 0) {
		ft_strbuf_release(&sb);
		ft_run_release(&run);
		return model_fail(ctx, rc, &err);
	}
	rc = cli_finish(ctx, &sb, 0, &err);
	if (save) {
		snprintf(run.label, sizeof(run.label), "model %s --op %s", argv[1],
		         o.op ? o.op : "all_reduce");
		if (cli_save_run(ctx, &run, NULL, NULL, 0) < 0)
			rc = EXIT_RUNTIME;
	}
	ft_run_release(&run);
	return rc;
}

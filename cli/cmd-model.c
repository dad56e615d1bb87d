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

/* `fabtune model SPEC --explain SIZE`: one size, with its working. */
static int
run_explain(const struct ft_cluster_spec *spec, struct ft_model_query *q, uint64_t bytes,
            struct cli_ctx *ctx)
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

/*
 * `fabtune model SPEC --calibrate FILE...`: fit each nccl-tests output to the
 * model (its op and rank count from the file, --op when it holds several),
 * print the fit with its residuals and leave-one-out errors, and the
 * calibration block.
 */
static int
run_calibrate(const struct ft_cluster_spec *spec, bool op_given, struct ft_model_query *q,
              int nfiles, char **files, struct cli_ctx *ctx)
{
	struct ft_strbuf sb, block;
	struct ft_json j;
	int i, rc = EXIT_OK;

	ft_strbuf_init(&sb);
	ft_strbuf_init(&block);
	if (ctx->json) {
		ft_json_init(&j, &sb, false);
		ft_json_obj_begin(&j);
		ft_json_kv_str(&j, "spec", spec->name);
		ft_json_key(&j, "curves");
		ft_json_arr_begin(&j);
	} else {
		ft_strbuf_addf(&sb, "# fabtune model --calibrate: %s\n#\n", spec->name);
	}
	ft_strbuf_adds(&block, "calibration:\n");
	for (i = 0; i < nfiles && rc == EXIT_OK; i++) {
		struct ft_model_calib c;
		struct ft_error err = { 0 };
		int prc = ft_workflow_model_calibrate_file(spec, q, op_given, files[i], &c, &err);

		if (prc < 0) {
			cli_error(ctx, "%s: %s", files[i], ft_error_msg(&err, prc));
			rc = cli_exit_for(prc);
		} else {
			if (ctx->json)
				ft_model_calib_write_json(files[i], &c, &j);
			else
				ft_model_calib_write_text(files[i], &c, &sb);
			ft_model_calib_write_block(&c, &block);
			ft_model_calib_release(&c);
		}
	}
	if (rc == EXIT_OK) {
		if (ctx->json) {
			ft_json_arr_end(&j);
			ft_json_kv_str(&j, "calibration_block", block.buf);
			ft_json_obj_end(&j);
			ft_strbuf_addch(&sb, '\n');
		} else {
			ft_strbuf_adds(&sb, "# calibration block:\n");
			ft_strbuf_adds(&sb, block.buf);
		}
		cli_write(&sb);
	}
	ft_strbuf_release(&sb);
	ft_strbuf_release(&block);
	return rc;
}

int
cmd_model(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = {
		"fabtune model SPEC [--op OP] [-b SIZE] [-e SIZE] [-f N] [--gpus N] [--nodes N] [--ppn N] "
		"[--algo ALGO] [--proto PROTO] [--channels N]",
		"fabtune model SPEC --explain SIZE [--op OP] [--gpus N] [--nodes N] [--ppn N] ...",
		"fabtune model SPEC --calibrate FILE... [--op OP] [--nodes N] [--ppn N]",
		NULL,
	};
	bool save = false, calibrate = false;
	uint64_t minbytes = 8, maxbytes = 8ull << 30, factor = 2;
	uint64_t explain = 0; /* --explain SIZE; 0: not asked */
	struct ft_model_args o = { 0 };
	const struct opt opts[] = {
		OPT_STRING(0, "op", &o.op, "OP",
		           "all_reduce (default), all_gather, reduce_scatter, broadcast, reduce, "
		           "alltoall, sendrecv"),
		OPT_SIZE('b', "minbytes", &minbytes, "smallest size (default 8)"),
		OPT_SIZE('e', "maxbytes", &maxbytes, "largest size (default 8G)"),
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
		OPT_U64(0, "channels", &o.channels, "N", "NCCL channels (default: one per NVLink)"),
		OPT_STRING(0, "nccl", &o.nccl, "VERSION",
		           "constants of an NCCL release: 2.18 ... 2.27 (default: 2.28+)"),
		OPT_BOOL(0, "cuda-graph", &o.cuda_graph,
		         "iterations replayed from a CUDA graph (nccl-tests -G): no host launch"),
		OPT_BOOL(0, "tuner-only", &o.tuner_only,
		         "NCCL's own cost model alone, without the pipeline terms"),
		OPT_BOOL(0, "calibrate", &calibrate,
		         "fit the model to nccl-tests outputs FILE... given after SPEC"),
		OPT_SIZE(0, "explain", &explain,
		         "for one size: the terms of its time, every algorithm and protocol"),
		OPT_BOOL(0, "save", &save, "store the expected rows in the archive"),
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
	struct ft_model_result first;
	struct ft_error err = { 0 };
	struct ft_run run;
	struct ft_strbuf sb;
	int n, rc;

	n = opts_parse(&usage, ctx, argc, argv);
	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
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
	if (calibrate)
		return run_calibrate(&spec, o.op != NULL, &q, n - 1, argv + 2, ctx);
	if (explain)
		return run_explain(&spec, &q, explain, ctx);
	q.bytes = maxbytes;
	rc = ft_model_eval(&spec, &q, &first, &err);
	ft_run_init(&run, FT_SOURCE_MODEL, "model");
	ft_strlcpy(run.spec, spec.name, sizeof(run.spec));
	if (rc == 0)
		rc = ft_model_sweep(&spec, &q, minbytes, maxbytes, factor, &run, &err);
	if (rc < 0) {
		ft_run_release(&run);
		return model_fail(ctx, rc, &err);
	}
	ft_strbuf_init(&sb);
	if (ctx->json)
		ft_model_sweep_write_json(&spec, &first, &run, &sb);
	else
		ft_model_sweep_write_text(&spec, &first, &run, &sb);
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

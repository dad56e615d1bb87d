/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-plan.c - `fabtune plan`: what a training job needs from the
 * network. Memory per GPU, the communications of one iteration per parallel
 * group, overlap, iteration time, tokens/s, MFU and what the network costs;
 * or, with --search, the best parallel configurations; with --checkpoint,
 * the job's interruptions and goodput.
 */
#include <stdio.h>

#include <fabtune/fabtune.h>

#include "cli-archive.h"
#include "cli-run.h"
#include "cli.h"

/* --save: one row per communication and one for the iteration. */
static int
save_plan(struct cli_ctx *ctx, const char *spec_arg, const struct ft_plan *p)
{
	struct ft_run run;
	int rc = ft_plan_to_run(p, spec_arg, &run);

	if (rc < 0)
		cli_error(ctx, "--save: out of memory");
	else
		rc = cli_save_run(ctx, &run, NULL, NULL, 0);
	ft_run_release(&run);
	return rc;
}

/* --html: the page of @p into @path. */
static int
write_html(struct cli_ctx *ctx, const struct ft_plan_job *job, const struct ft_plan *p,
           const char *path)
{
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	int rc;

	ft_strbuf_init(&sb);
	rc = ft_plan_job_html(job, p, &sb, &err);
	if (rc == 0)
		rc = cli_write_output(path, &sb, &err);
	if (rc < 0)
		cli_error(ctx, "--html: %s", ft_error_msg(&err, rc));
	ft_strbuf_release(&sb);
	return rc;
}

/* The plan (or the search) of a prepared job, its report, page and record. */
static int
plan_job(struct cli_ctx *ctx, const struct ft_plan_job *job, const struct ft_plan_args *a,
         const char *html, bool search, bool save)
{
	struct ft_plan *plan;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	size_t shown = 0;
	int rc;

	if (search) {
		ft_strbuf_init(&sb);
		rc = ft_plan_job_search(job, a, ctx->json, &sb, &shown, &err);
		rc = cli_finish(ctx, &sb, rc, &err);
		return rc == EXIT_OK && !shown ? EXIT_PROBLEM : rc;
	}
	plan = ft_calloc(2, sizeof(*plan));
	if (!plan) {
		cli_error(ctx, "out of memory");
		return EXIT_RUNTIME;
	}
	rc = ft_plan_job_compute(job, a, plan, &err);
	if (rc < 0) {
		ft_free(plan);
		return cli_fail(ctx, rc, &err);
	}
	ft_strbuf_init(&sb);
	ft_plan_job_write(job, a, plan, ctx->json, &sb);
	(void)cli_finish(ctx, &sb, 0, &err);
	rc = plan->mem.fits ? EXIT_OK : EXIT_PROBLEM;
	if (html && write_html(ctx, job, plan, html) < 0)
		rc = EXIT_RUNTIME;
	if (save && save_plan(ctx, job->spec_label, plan) < 0)
		rc = EXIT_RUNTIME;
	ft_free(plan);
	return rc;
}

int
cmd_plan(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = {
		"fabtune plan SPEC --model MODEL [--gpus N] [--batch N] [--micro-batch N] [--tp N] "
		"[--cp N] [--pp N] [--vpp N] [--ep N] [--dp N] [--zero N] [--recompute MODE] "
		"[--precision P] [--engine flow|packet] [--search [--top N]] [--checkpoint TIME] [--save] "
		"[--html FILE]",
		"fabtune plan --models",
		NULL,
	};
	bool save = false, list = false, search = false;
	const char *html = NULL;
	struct ft_plan_args o;
	const struct opt opts[] = {
		OPT_STRING(0, "model", &o.model, "MODEL", "a model preset (see --models) or a YAML file"),
		OPT_BOOL(0, "models", &list, "list the model presets"),
		OPT_U64(0, "gpus", &o.gpus, "N", "GPUs of the job (default: every GPU of SPEC)"),
		OPT_U64(0, "batch", &o.batch, "N", "global batch in sequences (default: 2^22 tokens)"),
		OPT_U64(0, "micro-batch", &o.mb, "N", "sequences per micro-batch (default 1)"),
		OPT_U64(0, "tp", &o.tp, "N", "tensor-parallel degree (inside a node)"),
		OPT_U64(0, "cp", &o.cp, "N", "context-parallel degree"),
		OPT_U64(0, "pp", &o.pp, "N", "pipeline stages"),
		OPT_U64(0, "vpp", &o.vpp, "N", "virtual stages per GPU (> 1: interleaved 1F1B)"),
		OPT_U64(0, "ep", &o.ep, "N", "expert-parallel degree (MoE)"),
		OPT_U64(0, "dp", &o.dp, "N", "data-parallel degree (default: the GPUs left)"),
		OPT_U64(0, "zero", &o.zero, "N", "ZeRO stage 0-3 (3 = FSDP full shard; default 1)"),
		OPT_STRING(0, "recompute", &o.recompute, "MODE", "none (default), selective or full"),
		OPT_STRING(0, "precision", &o.precision, "P", "bf16 (default) or fp8"),
		OPT_STRING(0, "optimizer", &o.optimizer, "O", "adam (default) or sgd"),
		OPT_BOOL(0, "no-sp", &o.no_sp, "no sequence parallelism with TP"),
		OPT_BOOL(0, "no-flash", &o.no_flash, "store the attention matrix (no FlashAttention)"),
		OPT_BOOL(0, "tp-overlap", &o.cfg.tp_overlap, "overlap TP collectives with GEMMs"),
		OPT_BOOL(0, "pp-balance", &o.cfg.pp_balance,
		         "first and last stages one layer fewer (embedding, output layer)"),
		OPT_BOOL(0, "no-dp-overlap", &o.no_dp_overlap,
		         "reduce gradients after the backward pass, not during it"),
		OPT_DOUBLE(0, "ep-overlap", &o.cfg.ep_overlap, "X",
		           "share of the MoE all-to-all hidden behind compute (0-1, default 0)"),
		OPT_SIZE(0, "bucket", &o.cfg.bucket_bytes, "DP gradient bucket (default 25MB)"),
		OPT_SIZE(0, "reserve", &o.cfg.reserve_bytes,
		         "runtime memory reserve per GPU (default 3GiB)"),
		OPT_DOUBLE(0, "gemm-eff", &o.cfg.gemm_eff, "X",
		           "share of peak large GEMMs reach (default: the GPU preset's)"),
		OPT_DOUBLE(0, "peak-tflops", &o.cfg.peak_tflops, "X",
		           "dense peak per GPU (default: the spec's)"),
		OPT_RATE(0, "hbm", &o.cfg.hbm_Bps,
		         "HBM bandwidth per GPU (default: the GPU preset's, else 2TB/s)"),
		OPT_BOOL(0, "fp8-attention", &o.cfg.fp8_attention,
		         "with fp8: the attention core in fp8 too (default bf16)"),
		OPT_DOUBLE(0, "fp8-cast-bytes", &o.cfg.fp8_cast_bytes, "B",
		           "with fp8: HBM bytes per element cast to fp8 (default 4)"),
		OPT_DOUBLE(0, "zipf", &o.cfg.zipf, "S",
		           "MoE routing skew: Zipf exponent (0 = uniform)"),
		OPT_STRING(0, "expert-load", &o.expert_load, "LOADS",
		           "measured tokens per routed expert: n1,n2,... or a file of them"),
		OPT_BOOL(0, "place-by-heat", &o.cfg.place_by_heat,
		         "place experts by heat, hottest spread first"),
		OPT_U64(0, "replicas", &o.replicas, "N",
		        "with --place-by-heat: give the N hottest experts a second copy"),
		OPT_STRING(0, "order", &o.order, "ORDER",
		           "rank layout, fastest first (default tp-cp-pp-dp; e.g. tp-cp-dp-pp)"),
		OPT_STRING(0, "engine", &o.engine, "NAME",
		           "analytic (default), flow or packet: every group instance at once on "
		           "the topology (packet: as packets, headers on the wire)"),
		OPT_BOOL(0, "search", &search, "rank the configurations that fit by tokens/s"),
		OPT_U64(0, "top", &o.top, "N", "configurations --search shows (default 10)"),
		OPT_U64(0, "scale-from", &o.scale_from, "N",
		        "scale-out efficiency from N GPUs (same per-replica batch)"),
		OPT_DURATION(0, "checkpoint", &o.ckpt_s, "time to write a checkpoint: adds failures "
		             "and goodput"),
		OPT_DURATION(0, "recovery", &o.recover_s, "time to restart after a failure (default 10min)"),
		OPT_DOUBLE(0, "fail-gpu", &o.fail_gpu, "R", "interruptions per GPU per day (default 2.89e-4)"),
		OPT_DOUBLE(0, "fail-nic", &o.fail_nic, "R", "interruptions per NIC per day (default 7.91e-6)"),
		OPT_DOUBLE(0, "fail-link", &o.fail_link, "R",
		           "switch and cable interruptions per fabric port per day (default 3.96e-5)"),
		OPT_DOUBLE(0, "fail-node", &o.fail_node, "R",
		           "other interruptions per node per day: host, software (default 1.09e-3)"),
		OPT_SAVE(&save, "the plan's communications"),
		OPT_STRING(0, "html", &html, "FILE",
		           "write an HTML report: timeline, memory, communications, search frontier"),
		OPT_END(),
	};
	const struct cmd_usage usage = {
		"plan",
		synopsis,
		"What a training job needs from the network: memory, parallelism, communication per "
		"iteration, overlap, iteration time, and what the network costs in GPUs.",
		opts,
	};
	struct ft_plan_job job;
	struct ft_error err = { 0 };
	int n, rc;

	ft_plan_args_init(&o);
	n = opts_parse_args(&usage, ctx, argc, argv, -1, &rc);
	if (n < 0)
		return rc;
	if (list) {
		struct ft_strbuf sb;

		ft_strbuf_init(&sb);
		ft_plan_model_presets_write(ctx->json, &sb);
		cli_write(&sb);
		ft_strbuf_release(&sb);
		return EXIT_OK;
	}
	if (n != 1) {
		cli_error(ctx, n == 0 ? "expected a SPEC (a spec file or a preset like dgx-h100:256)" :
		                        "expected one SPEC, got %d arguments",
		          n);
		return EXIT_USAGE;
	}
	rc = ft_plan_job_prepare(&o, argv[1], &job, &err);
	rc = rc < 0 ? cli_fail(ctx, rc, &err) : plan_job(ctx, &job, &o, html, search, save);
	ft_plan_job_release(&job);
	return rc;
}

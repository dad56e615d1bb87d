/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-plan.c - `fabtune plan`: what a training job needs from the
 * network. Memory per GPU, the communications of one iteration per parallel
 * group, overlap, iteration time, tokens/s, MFU and what the network costs;
 * or, with --search, the best parallel configurations; with --checkpoint,
 * the job's interruptions and goodput.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <fabtune/fabtune.h>

#include "cli-archive.h"
#include "cli.h"

struct plan_opts {
	const char *model, *recompute, *precision, *optimizer, *engine, *order, *html, *eload;
	uint64_t gpus, batch, mb, tp, cp, ep, pp, dp, vpp, zero, top, scale_from;
	uint64_t bucket, reserve, replicas;
	double *load; /* parsed --expert-load */
	uint32_t nload;
	bool no_sp, no_flash, tp_overlap, no_dp_overlap, pp_balance, fp8_attn, heat, search, list;
	double ep_overlap, gemm_eff, peak, hbm, zipf, ckpt_s, recover_s, fp8_cast;
	double fail_gpu, fail_nic, fail_link, fail_node; /* per component per day; < 0 = default */
};

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

static int
list_models(struct cli_ctx *ctx)
{
	struct ft_strbuf sb;
	struct ft_json j;
	size_t i;

	ft_strbuf_init(&sb);
	if (ctx->json) {
		ft_json_init(&j, &sb, false);
		ft_json_arr_begin(&j);
	}
	for (i = 0; i < ft_plan_model_preset_count(); i++) {
		const struct ft_plan_model *m = ft_plan_model_preset_at(i);
		struct ft_plan_params pp;

		ft_plan_model_params(m, &pp);
		if (ctx->json) {
			ft_json_obj_begin(&j);
			ft_json_kv_str(&j, "name", m->name);
			ft_json_kv_uint(&j, "params", pp.total);
			ft_json_kv_uint(&j, "params_active", pp.active);
			ft_json_kv_str(&j, "summary", ft_plan_model_preset_summary(i));
			ft_json_obj_end(&j);
		} else {
			ft_strbuf_addf(&sb, "%-14s %7.1fB  %s\n", m->name, pp.total / 1e9,
			               ft_plan_model_preset_summary(i));
		}
	}
	if (ctx->json) {
		ft_json_arr_end(&j);
		ft_strbuf_addch(&sb, '\n');
	}
	cli_write(&sb);
	ft_strbuf_release(&sb);
	return EXIT_OK;
}

static int
build_config(const struct plan_opts *o, const struct ft_plan_model *m, struct ft_plan_config *c,
             struct cli_ctx *ctx)
{
	const uint64_t lim = 1u << 20;

	ft_plan_config_init(c);
	if ((o->recompute && ft_plan_recompute_from_name(o->recompute, &c->recompute) < 0) ||
	    (o->precision && ft_plan_precision_from_name(o->precision, &c->precision) < 0) ||
	    (o->optimizer && ft_plan_optimizer_from_name(o->optimizer, &c->optimizer) < 0)) {
		cli_error(ctx, "%s",
		          o->recompute && ft_plan_recompute_from_name(o->recompute, &c->recompute) < 0 ?
		                  "--recompute: expected none, selective or full" :
		          o->precision && ft_plan_precision_from_name(o->precision, &c->precision) < 0 ?
		                  "--precision: expected bf16 or fp8" :
		                  "--optimizer: expected adam or sgd");
		return EXIT_USAGE;
	}
	if (o->gpus > UINT32_MAX || o->mb > lim || o->tp > lim || o->cp > lim || o->ep > lim ||
	    o->pp > lim || o->dp > lim || o->vpp > lim || o->zero > 3) {
		cli_error(ctx, "%s: value out of range",
		          o->zero > 3 ? "--zero (0 to 3)" : o->gpus > UINT32_MAX ? "--gpus" :
		                                                                  "a parallel degree");
		return EXIT_USAGE;
	}
	c->ngpus = (uint32_t)o->gpus;
	c->micro_batch = (uint32_t)o->mb;
	c->tp = (uint32_t)o->tp;
	c->cp = (uint32_t)o->cp;
	c->ep = (uint32_t)o->ep;
	c->pp = (uint32_t)o->pp;
	c->dp = (uint32_t)o->dp;
	c->vpp = (uint32_t)o->vpp;
	c->zero = (uint32_t)o->zero;
	c->sp = !o->no_sp;
	c->pp_balance = o->pp_balance;
	c->flash_attn = !o->no_flash;
	c->tp_overlap = o->tp_overlap;
	c->dp_overlap = !o->no_dp_overlap;
	c->ep_overlap = o->ep_overlap;
	c->bucket_bytes = o->bucket;
	c->reserve_bytes = o->reserve;
	c->gemm_eff = o->gemm_eff;
	c->peak_tflops = o->peak;
	c->hbm_Bps = o->hbm;
	c->fp8_attention = o->fp8_attn;
	c->fp8_cast_bytes = o->fp8_cast;
	c->zipf = o->zipf;
	c->place_by_heat = o->heat;
	c->replicas = (uint32_t)FT_MIN(o->replicas, (uint64_t)UINT32_MAX);
	c->expert_load = o->load;
	c->nexpert_load = o->nload;
	if (o->engine && strlen(o->engine) >= sizeof(c->engine)) {
		cli_error(ctx, "--engine: expected analytic, flow or packet, got '%s'", o->engine);
		return EXIT_USAGE;
	}
	if (o->engine)
		ft_strlcpy(c->engine, o->engine, sizeof(c->engine));
	if (o->order && strlen(o->order) >= sizeof(c->order)) {
		cli_error(ctx, "--order: expected tp, cp, pp and dp joined by '-', got '%s'", o->order);
		return EXIT_USAGE;
	}
	if (o->order)
		ft_strlcpy(c->order, o->order, sizeof(c->order));
	/* Default batch: about 4M tokens (2^22), a power of two of sequences. */
	c->global_batch = o->batch ? o->batch : FT_MAX(1u, (1u << 22) / m->seq);
	return EXIT_OK;
}

static int
run_search(struct cli_ctx *ctx, const char *spec_arg, const struct ft_cluster_spec *spec,
           const struct ft_plan_model *m, const struct ft_plan_config *base,
           const struct plan_opts *o)
{
	struct ft_plan_search_opts so = { .top = (uint32_t)(o->top ? FT_MIN(o->top, 1000u) : 10) };
	struct ft_plan_search_row *rows;
	size_t n, tried, fit;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	struct ft_json j;
	int rc;

	so.fixed_mb = o->mb != 1;
	so.fixed_zero = false;
	so.fixed_recompute = o->recompute != NULL;
	so.fixed_order = o->order != NULL;
	rc = ft_plan_search(spec, m, base, &so, &rows, &n, &tried, &fit, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	ft_strbuf_init(&sb);
	if (ctx->json)
		ft_json_init(&j, &sb, false);
	ft_plan_search_write(m->name, spec_arg, base->global_batch, rows, n, tried, fit,
	                     ctx->json ? &j : NULL, &sb);
	cli_write(&sb);
	ft_strbuf_release(&sb);
	ft_free(rows);
	return n ? EXIT_OK : EXIT_PROBLEM;
}

/* Interruptions and goodput, for the recovery given and for 5 and 30 minutes. */
static void
render_goodput(const struct plan_opts *o, uint32_t ngpus, uint32_t gpn, struct ft_strbuf *sb,
               struct ft_json *j)
{
	struct ft_plan_failure_rates r;

	ft_plan_failure_rates_default(&r);
	if (o->fail_gpu >= 0)
		r.gpu_per_day = o->fail_gpu;
	if (o->fail_nic >= 0)
		r.nic_per_day = o->fail_nic;
	if (o->fail_link >= 0)
		r.link_per_day = o->fail_link;
	if (o->fail_node >= 0)
		r.host_per_day = o->fail_node;
	ft_plan_goodput_write(&r, o->fail_gpu < 0 && o->fail_nic < 0 && o->fail_link < 0 &&
	                              o->fail_node < 0,
	                      ngpus, gpn, o->ckpt_s, o->recover_s, j, sb);
}

/* --html: the timeline of @p, and a search (top 40) for the frontier. */
static int
write_html(struct cli_ctx *ctx, const char *spec_arg, const struct ft_cluster_spec *spec,
           const struct ft_plan_model *m, const struct ft_plan *p, const char *path)
{
	struct ft_plan_search_opts so = { .top = 40 };
	struct ft_plan_search_row *rows = NULL;
	struct ft_plan_event *ev = NULL;
	struct ft_plan_config base = p->cfg;
	struct ft_error err = { 0 };
	size_t nev = 0, nrows = 0, tried = 0, fit = 0;
	struct ft_strbuf sb;
	int rc;

	rc = ft_plan_timeline(p, &ev, &nev, &err);
	if (rc == 0) {
		base.engine[0] = '\0';
		base.dp = 0;
		rc = ft_plan_search(spec, m, &base, &so, &rows, &nrows, &tried, &fit, &err);
	}
	if (rc < 0) {
		ft_free(ev);
		cli_error(ctx, "--html: %s", ft_error_msg(&err, rc));
		return rc;
	}
	ft_strbuf_init(&sb);
	ft_plan_html(spec_arg, p, ev, nev, rows, nrows, tried, &sb);
	rc = cli_write_output(path, &sb, &err);
	if (rc < 0)
		cli_error(ctx, "--html: %s", ft_error_msg(&err, rc));
	ft_strbuf_release(&sb);
	ft_free(ev);
	ft_free(rows);
	return rc;
}

static int cmd_plan_run(struct cli_ctx *ctx, const char *spec_arg,
                        const struct ft_cluster_spec *specp, const struct ft_plan_model *modelp,
                        const struct ft_plan_config *cfgp, const struct plan_opts *op, bool save);

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
	bool save = false;
	struct plan_opts o = { .mb = 1, .tp = 1, .cp = 1, .ep = 1, .pp = 1, .vpp = 1, .zero = 1,
		               .recover_s = 600, .fail_gpu = -1, .fail_nic = -1, .fail_link = -1,
		               .fail_node = -1 };
	const struct opt opts[] = {
		OPT_STRING(0, "model", &o.model, "MODEL", "a model preset (see --models) or a YAML file"),
		OPT_BOOL(0, "models", &o.list, "list the model presets"),
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
		OPT_BOOL(0, "tp-overlap", &o.tp_overlap, "overlap TP collectives with GEMMs"),
		OPT_BOOL(0, "pp-balance", &o.pp_balance,
		         "first and last stages one layer fewer (embedding, output layer)"),
		OPT_BOOL(0, "no-dp-overlap", &o.no_dp_overlap,
		         "reduce gradients after the backward pass, not during it"),
		OPT_DOUBLE(0, "ep-overlap", &o.ep_overlap, "X",
		           "share of the MoE all-to-all hidden behind compute (0-1, default 0)"),
		OPT_SIZE(0, "bucket", &o.bucket, "DP gradient bucket (default 25MB)"),
		OPT_SIZE(0, "reserve", &o.reserve, "runtime memory reserve per GPU (default 3GiB)"),
		OPT_DOUBLE(0, "gemm-eff", &o.gemm_eff, "X",
		           "share of peak large GEMMs reach (default: the GPU preset's)"),
		OPT_DOUBLE(0, "peak-tflops", &o.peak, "X", "dense peak per GPU (default: the spec's)"),
		OPT_RATE(0, "hbm", &o.hbm, "HBM bandwidth per GPU (default: the GPU preset's, else 2TB/s)"),
		OPT_BOOL(0, "fp8-attention", &o.fp8_attn,
		         "with fp8: the attention core in fp8 too (default bf16)"),
		OPT_DOUBLE(0, "fp8-cast-bytes", &o.fp8_cast, "B",
		           "with fp8: HBM bytes per element cast to fp8 (default 4)"),
		OPT_DOUBLE(0, "zipf", &o.zipf, "S", "MoE routing skew: Zipf exponent (0 = uniform)"),
		OPT_STRING(0, "expert-load", &o.eload, "LOADS",
		           "measured tokens per routed expert: n1,n2,... or a file of them"),
		OPT_BOOL(0, "place-by-heat", &o.heat, "place experts by heat, hottest spread first"),
		OPT_U64(0, "replicas", &o.replicas, "N",
		        "with --place-by-heat: give the N hottest experts a second copy"),
		OPT_STRING(0, "order", &o.order, "ORDER",
		           "rank layout, fastest first (default tp-cp-pp-dp; e.g. tp-cp-dp-pp)"),
		OPT_STRING(0, "engine", &o.engine, "NAME",
		           "analytic (default), flow or packet: every group instance at once on "
		           "the topology (packet: as packets, headers on the wire)"),
		OPT_BOOL(0, "search", &o.search, "rank the configurations that fit by tokens/s"),
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
		OPT_BOOL(0, "save", &save, "store the plan's communications in the archive"),
		OPT_STRING(0, "html", &o.html, "FILE",
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
	struct ft_cluster_spec spec;
	struct ft_plan_model model;
	struct ft_plan_config cfg;
	struct ft_error err = { 0 };
	int n, rc;

	n = opts_parse(&usage, ctx, argc, argv);
	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	if (o.list)
		return list_models(ctx);
	if (n != 1) {
		cli_error(ctx, n == 0 ? "expected a SPEC (a spec file or a preset like dgx-h100:256)" :
		                        "expected one SPEC, got %d arguments",
		          n);
		return EXIT_USAGE;
	}
	if (!o.model) {
		cli_error(ctx, "--model: expected a model preset (fabtune plan --models) or a YAML file");
		return EXIT_USAGE;
	}
	if (!(o.ep_overlap >= 0 && o.ep_overlap <= 1) || !(o.zipf >= 0 && o.zipf <= 10) ||
	    !(o.gemm_eff >= 0 && o.gemm_eff <= 1) || !(o.peak >= 0) || !(o.fail_gpu < 1) ||
	    !(o.fail_nic < 1) || !(o.fail_link < 1) || !(o.fail_node < 100)) {
		cli_error(ctx, "%s: value out of range",
		          !(o.ep_overlap >= 0 && o.ep_overlap <= 1) ? "--ep-overlap (0 to 1)" :
		          !(o.zipf >= 0 && o.zipf <= 10)            ? "--zipf (0 to 10)" :
		          !(o.gemm_eff >= 0 && o.gemm_eff <= 1)     ? "--gemm-eff (0 to 1)" :
		          !(o.peak >= 0)                            ? "--peak-tflops" :
		          !(o.fail_gpu < 1)  ? "--fail-gpu (interruptions per GPU per day, below 1)" :
		          !(o.fail_nic < 1)  ? "--fail-nic (interruptions per NIC per day, below 1)" :
		          !(o.fail_link < 1) ? "--fail-link (interruptions per port per day, below 1)" :
		                               "--fail-node (interruptions per node per day, below 100)");
		return EXIT_USAGE;
	}
	rc = ft_spec_resolve(argv[1], &spec, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	rc = ft_plan_model_resolve(o.model, &model, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	if (o.eload) {
		rc = ft_plan_expert_load_parse(o.eload, &o.load, &o.nload, &err);
		if (rc < 0) {
			ft_free(o.load);
			cli_error(ctx, "%s", ft_error_msg(&err, rc));
			return EXIT_USAGE;
		}
	}
	rc = build_config(&o, &model, &cfg, ctx);
	if (rc != EXIT_OK) {
		ft_free(o.load);
		return rc;
	}
	rc = cmd_plan_run(ctx, argv[1], &spec, &model, &cfg, &o, save);
	ft_free(o.load);
	return rc;
}

/* Plan (or search) with everything resolved; cmd_plan() owns the options' allocations. */
static int
cmd_plan_run(struct cli_ctx *ctx, const char *spec_arg, const struct ft_cluster_spec *specp,
             const struct ft_plan_model *modelp, const struct ft_plan_config *cfgp,
             const struct plan_opts *op, bool save)
{
	struct ft_cluster_spec spec = *specp;
	struct ft_plan_model model = *modelp;
	struct ft_plan_config cfg = *cfgp;
	const struct plan_opts o = *op;
	struct ft_plan *plan;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	struct ft_json j;
	int rc;

	if (o.search && cfg.engine[0] && strcmp(cfg.engine, "analytic") != 0) {
		cli_error(ctx, "--search: uses the analytic engine; plan the chosen configuration "
		               "with --engine %s",
		          cfg.engine);
		return EXIT_USAGE;
	}
	if (o.search)
		return run_search(ctx, spec_arg, &spec, &model, &cfg, &o);
	plan = ft_calloc(2, sizeof(*plan));
	if (!plan) {
		cli_error(ctx, "out of memory");
		return EXIT_RUNTIME;
	}
	rc = ft_plan_compute(&spec, &model, &cfg, plan, &err);
	if (rc == 0 && o.scale_from) {
		struct ft_plan_config c2 = plan->cfg;
		uint64_t rep = (uint64_t)c2.tp * c2.cp * c2.pp;

		if (o.scale_from % rep || o.scale_from > plan->ngpus) {
			ft_free(plan);
			cli_error(ctx, "--scale-from: expected a multiple of tp·cp·pp = %" PRIu64
			          " up to %u, got %" PRIu64, rep, plan[0].ngpus, o.scale_from);
			return EXIT_USAGE;
		}
		c2.ngpus = (uint32_t)o.scale_from;
		c2.dp = (uint32_t)(o.scale_from / rep);
		c2.global_batch = plan->cfg.global_batch / plan->cfg.dp * c2.dp;
		if (c2.ep > 1 && c2.dp % c2.ep)
			c2.ep = 1;
		rc = ft_plan_compute(&spec, &model, &c2, &plan[1], &err);
		if (rc < 0)
			ft_error_prefix(&err, "--scale-from %" PRIu64 ": ", o.scale_from);
	}
	if (rc < 0) {
		ft_free(plan);
		return cli_fail(ctx, rc, &err);
	}
	ft_strbuf_init(&sb);
	if (ctx->json) {
		ft_json_init(&j, &sb, false);
		ft_json_obj_begin(&j);
		ft_json_kv_str(&j, "spec", spec_arg);
		ft_plan_write_json(&j, plan);
		if (o.scale_from) {
			ft_json_key(&j, "scale_out");
			ft_json_obj_begin(&j);
			ft_json_kv_uint(&j, "from_gpus", plan[1].ngpus);
			ft_json_kv_double(&j, "from_tokens_per_s", plan[1].tokens_per_s);
			ft_json_kv_double(&j, "efficiency", (plan->tokens_per_s / plan->ngpus) /
			                                            (plan[1].tokens_per_s / plan[1].ngpus));
			ft_json_obj_end(&j);
		}
		if (o.ckpt_s > 0)
			render_goodput(&o, plan->ngpus, spec.node.ngpus, &sb, &j);
		ft_json_obj_end(&j);
		ft_strbuf_addch(&sb, '\n');
	} else {
		ft_plan_write_text(spec_arg, &spec, plan, &sb);
		if (o.scale_from)
			ft_strbuf_addf(&sb, "scale-out: %u -> %u GPUs at %.0f -> %.0f tokens/s: %.1f%% "
			               "efficiency per GPU\n",
			               plan[1].ngpus, plan->ngpus, plan[1].tokens_per_s, plan->tokens_per_s,
			               100 * (plan->tokens_per_s / plan->ngpus) /
			                       (plan[1].tokens_per_s / plan[1].ngpus));
		if (o.ckpt_s > 0)
			render_goodput(&o, plan->ngpus, spec.node.ngpus, &sb, NULL);
	}
	cli_write(&sb);
	ft_strbuf_release(&sb);
	rc = plan->mem.fits ? EXIT_OK : EXIT_PROBLEM;
	if (o.html && write_html(ctx, spec_arg, &spec, &model, plan, o.html) < 0)
		rc = EXIT_RUNTIME;
	if (save && save_plan(ctx, spec_arg, plan) < 0)
		rc = EXIT_RUNTIME;
	ft_free(plan);
	return rc;
}

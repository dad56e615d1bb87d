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
#include "glue.h"
#include "plan-html.h"

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

static const char *
gb(double bytes, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f", bytes / 1e9);
	return buf;
}

/* Seconds in the unit that reads best: us, ms or s. */
static const char *
dur(double s, char *buf, size_t len)
{
	if (s == 0)
		snprintf(buf, len, "0");
	else if (s < 1e-3)
		snprintf(buf, len, "%.1fus", s * 1e6);
	else if (s < 1)
		snprintf(buf, len, "%.2fms", s * 1e3);
	else
		snprintf(buf, len, "%.3fs", s);
	return buf;
}

static void
config_line(const struct ft_plan_config *c, uint32_t m, struct ft_strbuf *sb)
{
	ft_strbuf_addf(sb,
	               "tp %u, cp %u, pp %u (vpp %u), dp %u, ep %u; batch %" PRIu64
	               " (micro %u, %u micro-batches); %s, %s, ZeRO-%u, recompute %s, sp %s",
	               c->tp, c->cp, c->pp, c->vpp, c->dp, c->ep, c->global_batch, c->micro_batch, m,
	               ft_plan_precision_name(c->precision), ft_plan_optimizer_name(c->optimizer),
	               c->zero, ft_plan_recompute_name(c->recompute), c->sp && c->tp > 1 ? "on" : "off");
	if (c->pp_balance && c->pp > 1)
		ft_strbuf_adds(sb, ", edge stages balanced");
}

static void
render_text(const char *spec_arg, const struct ft_cluster_spec *spec, const struct ft_plan *p,
            struct ft_strbuf *sb)
{
	const struct ft_plan_memory *mm = &p->mem;
	char a[32], b[32], c2[32], d[32];
	size_t i;
	int g;

	ft_strbuf_addf(sb, "# fabtune plan: %s on %s (%u GPUs %s)\n", p->model.name, spec_arg,
	               p->ngpus, spec->node.gpu_model);
	ft_strbuf_addf(sb,
	               "model     %.1fB parameters (%.1fB active), %u layers, h %u, %u heads, seq %u, "
	               "vocab %u",
	               p->params.total / 1e9, p->params.active / 1e9, p->model.layers,
	               p->model.hidden, p->model.heads, p->model.seq, p->model.vocab);
	if (p->model.experts)
		ft_strbuf_addf(sb, ", %u experts top-%u", p->model.experts, p->model.topk);
	{
		unsigned per = p->cfg.optimizer == FT_OPTIMIZER_SGD ? 12 : 16;
		double all = (double)per * p->params.total;

		ft_strbuf_addf(sb, "\nstates    %.1f GB of bf16 weights; %.*f %s of weights, gradients "
		               "and %s states (%u B per parameter, kb TRAIN-MEM-STATES)",
		               2.0 * p->params.total / 1e9, all >= 1e12 ? 2 : 1,
		               all >= 1e12 ? all / 1e12 : all / 1e9, all >= 1e12 ? "TB" : "GB",
		               ft_plan_optimizer_name(p->cfg.optimizer), per);
	}
	ft_strbuf_adds(sb, "\nconfig    ");
	config_line(&p->cfg, p->m, sb);
	ft_strbuf_addf(sb, "\ncompute   %.1f TFLOP/s peak x %.2f (GEMM efficiency) = %.1f TFLOP/s "
	               "per GPU; %.3g FLOPs per token\n",
	               p->peak_Fps / 1e12, p->cfg.gemm_eff, p->achieved_Fps / 1e12, p->flops_per_token);
	if (p->cfg.precision == FT_PRECISION_FP8)
		ft_strbuf_addf(sb, "fp8       layer GEMMs%s in fp8; %s at the bf16 rate; "
		               "casts %g B per element (%.2fms per forward)\n",
		               p->cfg.fp8_attention ? " and attention" : "",
		               p->cfg.fp8_attention ? "output layer" : "attention core and output layer",
		               p->cfg.fp8_cast_bytes > 0 ? p->cfg.fp8_cast_bytes : 4.0,
		               p->fp8_cast_s * 1e3);

	if (p->cfg.engine[0] && strcmp(p->cfg.engine, "analytic") != 0)
		ft_strbuf_addf(sb, "engine    %s: each group's instances at once, then every group "
		               "together (algo and bottleneck columns: the analytic model's)\n",
		               p->cfg.engine);
	ft_strbuf_addf(sb, "\nmemory per GPU (stage %u)        GB\n", mm->stage);
	ft_strbuf_addf(sb, "  weights                  %8s\n", gb(mm->weights, a, sizeof(a)));
	ft_strbuf_addf(sb, "  gradients                %8s\n", gb(mm->grads, a, sizeof(a)));
	ft_strbuf_addf(sb, "  optimizer states         %8s\n", gb(mm->optimizer, a, sizeof(a)));
	ft_strbuf_addf(sb, "  activations              %8s   (%.2f GB per layer x %.2f micro-batches)\n",
	               gb(mm->activations, a, sizeof(a)), mm->act_per_layer / 1e9, mm->inflight);
	ft_strbuf_addf(sb, "  communication buffers    %8s\n", gb(mm->comm_buffers, a, sizeof(a)));
	ft_strbuf_addf(sb, "  runtime reserve          %8s\n", gb(mm->reserve, a, sizeof(a)));
	ft_strbuf_addf(sb, "  total                    %8s of %s: %s\n", gb(mm->total, a, sizeof(a)),
	               gb(mm->capacity, b, sizeof(b)), mm->fits ? "fits" : "DOES NOT FIT");

	ft_strbuf_adds(sb, "\nparallel groups\n  group  ranks  nodes x per-node  stride  crosses\n");
	for (g = 0; g < FT_GROUP_COUNT; g++) {
		const struct ft_plan_place *pl = &p->place[g];

		if (pl->n <= 1)
			continue;
		ft_strbuf_addf(sb, "  %-5s  %5u  %5u x %-8u  %6u  %s\n", ft_plan_group_name(g), pl->n,
		               pl->nnodes, pl->ppn, pl->stride, pl->crosses);
	}

	ft_strbuf_adds(sb, "\ncommunication per iteration (one GPU)\n");
	ft_strbuf_adds(sb, "  group  op              what                     size   count  "
	                   "wire/op      time/op     total   exposed  algo      bottleneck\n");
	for (i = 0; i < p->ncomms; i++) {
		const struct ft_plan_comm *cm = &p->comms[i];
		char s1[24], s2[24];

		ft_strbuf_addf(sb, "  %-5s  %-14s  %-22s %7s  %6" PRIu64 "  %7s  %11s  %8s  %8s  %-8s  %s\n",
		               ft_plan_group_name(cm->group), ft_op_name(cm->op), cm->what,
		               ft_format_size(cm->bytes, s1, sizeof(s1)), cm->count,
		               ft_format_size(cm->wire_bytes, s2, sizeof(s2)), dur(cm->op_s, a, sizeof(a)),
		               dur(cm->total_s, b, sizeof(b)), dur(cm->exposed_s, c2, sizeof(c2)),
		               cm->algo, cm->bottleneck);
	}
	if (!p->ncomms)
		ft_strbuf_adds(sb, "  (none: one GPU)\n");

	ft_strbuf_adds(sb, "\niteration\n");
	ft_strbuf_addf(sb, "  per micro-batch        forward %s (%s memory-bound), backward %s, "
	               "recompute %s\n",
	               dur(p->fwd_s, a, sizeof(a)), dur(p->elem_s, d, sizeof(d)),
	               dur(p->bwd_s, b, sizeof(b)), dur(p->recompute_s, c2, sizeof(c2)));
	ft_strbuf_addf(sb, "  exposed per micro-b.   tp %s, cp %s, ep %s, pp %s\n",
	               dur(p->tp_exposed_s, a, sizeof(a)), dur(p->cp_exposed_s, b, sizeof(b)),
	               dur(p->ep_exposed_s, c2, sizeof(c2)), dur(p->p2p_s, d, sizeof(d)));
	ft_strbuf_addf(sb, "  pipeline               %u micro-batches + bubble (pp-1)/vpp = %.2f: %s, "
	               "bubble %s (%.1f%%)\n",
	               p->m, (p->cfg.pp - 1.0) / p->cfg.vpp, dur(p->pipeline_s, a, sizeof(a)),
	               dur(p->bubble_s, b, sizeof(b)), 100 * p->bubble_share);
	ft_strbuf_addf(sb, "  data-parallel exposed  %s; optimizer step %s\n",
	               dur(p->dp_exposed_s, a, sizeof(a)), dur(p->optimizer_s, b, sizeof(b)));
	ft_strbuf_addf(sb, "  iteration              %s (%s with free communication)\n",
	               dur(p->iter_s, a, sizeof(a)), dur(p->iter_nocomm_s, b, sizeof(b)));
	ft_strbuf_addf(sb, "  throughput             %.0f tokens/s, %.1f TFLOP/s per GPU, MFU %.1f%%, "
	               "HFU %.1f%%\n",
	               p->tokens_per_s, p->tflops_per_gpu, 100 * p->mfu, 100 * p->hfu);
	ft_strbuf_addf(sb, "  communication          %s in all, %s exposed: %.1f%% overlapped\n",
	               dur(p->comm_total_s, a, sizeof(a)), dur(p->comm_exposed_s, b, sizeof(b)),
	               100 * p->overlap);
	if (p->model.experts && p->cfg.ep > 1) {
		ft_strbuf_addf(sb, "  MoE routing            hottest expert %.1f%% of routed slots, slowest EP "
		               "rank %.2fx the mean, %.1f%% dropped; all-to-all %s (uniform %s)\n",
		               100 * p->moe.hottest_expert, p->moe.max_load, 100 * p->moe.dropped,
		               dur(p->moe.a2a_s, a, sizeof(a)), dur(p->moe.a2a_uniform_s, b, sizeof(b)));
		ft_strbuf_addf(sb, "  MoE placement          %s%s; routing %s\n",
		               p->cfg.place_by_heat ? "by heat" : "in order",
		               p->moe.replicas ? (p->moe.replicas == 1 ? ", the hottest expert copied" :
		                                                         ", the hottest experts copied") :
		                                 "",
		               p->cfg.expert_load ? "measured" : p->cfg.zipf > 0 ? "Zipf" : "uniform");
	}
	ft_strbuf_addf(sb, "\nnetwork cost: communication takes %.1f%% of the iteration: %.1f GPUs "
	               "= %.1f servers' worth\n",
	               100 * p->comm_share, p->gpus_worth, p->servers_worth);
	ft_strbuf_addf(sb, "bottleneck: %s\n", p->bottleneck);
}

static void
json_plan(struct ft_json *j, const struct ft_plan *p)
{
	const struct ft_plan_config *c = &p->cfg;
	size_t i;
	int g;

	ft_json_kv_str(j, "model", p->model.name);
	ft_json_kv_uint(j, "gpus", p->ngpus);
	ft_json_kv_uint(j, "params", p->params.total);
	ft_json_kv_uint(j, "params_active", p->params.active);
	ft_json_key(j, "config");
	ft_json_obj_begin(j);
	ft_json_kv_uint(j, "tp", c->tp);
	ft_json_kv_uint(j, "cp", c->cp);
	ft_json_kv_uint(j, "pp", c->pp);
	ft_json_kv_uint(j, "vpp", c->vpp);
	ft_json_kv_uint(j, "dp", c->dp);
	ft_json_kv_uint(j, "ep", c->ep);
	ft_json_kv_uint(j, "global_batch", c->global_batch);
	ft_json_kv_uint(j, "micro_batch", c->micro_batch);
	ft_json_kv_uint(j, "micro_batches", p->m);
	ft_json_kv_str(j, "precision", ft_plan_precision_name(c->precision));
	ft_json_kv_str(j, "optimizer", ft_plan_optimizer_name(c->optimizer));
	ft_json_kv_uint(j, "zero", c->zero);
	ft_json_kv_str(j, "recompute", ft_plan_recompute_name(c->recompute));
	ft_json_kv_bool(j, "sp", c->sp && c->tp > 1);
	ft_json_kv_bool(j, "pp_balance", c->pp_balance && c->pp > 1);
	ft_json_kv_double(j, "gemm_eff", c->gemm_eff);
	if (c->precision == FT_PRECISION_FP8) {
		ft_json_kv_bool(j, "fp8_attention", c->fp8_attention);
		ft_json_kv_double(j, "fp8_cast_bytes", c->fp8_cast_bytes > 0 ? c->fp8_cast_bytes : 4.0);
	}
	ft_json_kv_str(j, "engine", c->engine[0] ? c->engine : "analytic");
	ft_json_kv_str(j, "order", c->order[0] ? c->order : "tp-cp-pp-dp");
	ft_json_obj_end(j);
	ft_json_key(j, "memory");
	ft_json_obj_begin(j);
	ft_json_kv_uint(j, "stage", p->mem.stage);
	ft_json_kv_uint(j, "weights", p->mem.weights);
	ft_json_kv_uint(j, "grads", p->mem.grads);
	ft_json_kv_uint(j, "optimizer", p->mem.optimizer);
	ft_json_kv_uint(j, "activations", p->mem.activations);
	ft_json_kv_uint(j, "comm_buffers", p->mem.comm_buffers);
	ft_json_kv_uint(j, "reserve", p->mem.reserve);
	ft_json_kv_uint(j, "total", p->mem.total);
	ft_json_kv_uint(j, "capacity", p->mem.capacity);
	ft_json_kv_bool(j, "fits", p->mem.fits);
	ft_json_obj_end(j);
	ft_json_key(j, "groups");
	ft_json_arr_begin(j);
	for (g = 0; g < FT_GROUP_COUNT; g++) {
		const struct ft_plan_place *pl = &p->place[g];

		if (pl->n <= 1)
			continue;
		ft_json_obj_begin(j);
		ft_json_kv_str(j, "group", ft_plan_group_name(g));
		ft_json_kv_uint(j, "ranks", pl->n);
		ft_json_kv_uint(j, "nodes", pl->nnodes);
		ft_json_kv_uint(j, "per_node", pl->ppn);
		ft_json_kv_uint(j, "stride", pl->stride);
		ft_json_kv_str(j, "crosses", pl->crosses);
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
	ft_json_key(j, "comms");
	ft_json_arr_begin(j);
	for (i = 0; i < p->ncomms; i++) {
		const struct ft_plan_comm *cm = &p->comms[i];

		ft_json_obj_begin(j);
		ft_json_kv_str(j, "group", ft_plan_group_name(cm->group));
		ft_json_kv_str(j, "op", ft_op_name(cm->op));
		ft_json_kv_str(j, "what", cm->what);
		ft_json_kv_uint(j, "bytes", cm->bytes);
		ft_json_kv_uint(j, "count", cm->count);
		ft_json_kv_uint(j, "wire_bytes", cm->wire_bytes);
		ft_json_kv_double(j, "op_s", cm->op_s);
		ft_json_kv_double(j, "total_s", cm->total_s);
		ft_json_kv_double(j, "exposed_s", cm->exposed_s);
		ft_json_kv_str(j, "algo", cm->algo);
		ft_json_kv_str(j, "bottleneck", cm->bottleneck);
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
	ft_json_kv_double(j, "fwd_s", p->fwd_s);
	ft_json_kv_double(j, "elem_s", p->elem_s);
	if (p->cfg.precision == FT_PRECISION_FP8)
		ft_json_kv_double(j, "fp8_cast_s", p->fp8_cast_s);
	ft_json_kv_double(j, "bwd_s", p->bwd_s);
	ft_json_kv_double(j, "recompute_s", p->recompute_s);
	ft_json_kv_double(j, "pipeline_s", p->pipeline_s);
	ft_json_kv_double(j, "bubble_s", p->bubble_s);
	ft_json_kv_double(j, "bubble_share", p->bubble_share);
	ft_json_kv_double(j, "dp_exposed_s", p->dp_exposed_s);
	ft_json_kv_double(j, "optimizer_s", p->optimizer_s);
	ft_json_kv_double(j, "iter_s", p->iter_s);
	ft_json_kv_double(j, "iter_nocomm_s", p->iter_nocomm_s);
	ft_json_kv_double(j, "comm_total_s", p->comm_total_s);
	ft_json_kv_double(j, "comm_exposed_s", p->comm_exposed_s);
	ft_json_kv_double(j, "overlap", p->overlap);
	ft_json_kv_double(j, "tokens_per_s", p->tokens_per_s);
	ft_json_kv_double(j, "tflops_per_gpu", p->tflops_per_gpu);
	ft_json_kv_double(j, "mfu", p->mfu);
	ft_json_kv_double(j, "hfu", p->hfu);
	ft_json_kv_double(j, "comm_share", p->comm_share);
	ft_json_kv_double(j, "gpus_worth", p->gpus_worth);
	ft_json_kv_double(j, "servers_worth", p->servers_worth);
	if (p->model.experts && p->cfg.ep > 1) {
		ft_json_key(j, "moe");
		ft_json_obj_begin(j);
		ft_json_kv_double(j, "zipf", p->cfg.zipf);
		ft_json_kv_bool(j, "place_by_heat", p->cfg.place_by_heat);
		ft_json_kv_uint(j, "replicas", p->moe.replicas);
		ft_json_kv_bool(j, "measured", p->cfg.expert_load != NULL);
		ft_json_kv_double(j, "hottest_expert", p->moe.hottest_expert);
		ft_json_kv_double(j, "max_load", p->moe.max_load);
		ft_json_kv_double(j, "dropped", p->moe.dropped);
		ft_json_kv_double(j, "a2a_s", p->moe.a2a_s);
		ft_json_kv_double(j, "a2a_uniform_s", p->moe.a2a_uniform_s);
		ft_json_obj_end(j);
	}
	ft_json_kv_str(j, "bottleneck", p->bottleneck);
}

/* --save: one row per communication and one for the iteration. */
static int
save_plan(struct cli_ctx *ctx, const char *spec_arg, const struct ft_plan *p)
{
	struct ft_result_row row;
	struct ft_run run;
	size_t i;
	int rc = 0;

	ft_run_init(&run, FT_SOURCE_MODEL, "plan");
	ft_strlcpy(run.spec, spec_arg, sizeof(run.spec));
	snprintf(run.label, sizeof(run.label), "plan %s --model %s (tp %u pp %u dp %u)", spec_arg,
	         p->model.name, p->cfg.tp, p->cfg.pp, p->cfg.dp);
	for (i = 0; i < p->ncomms && rc == 0; i++) {
		const struct ft_plan_comm *cm = &p->comms[i];

		ft_result_row_init(&row);
		ft_strlcpy(row.test, ft_op_name(cm->op), sizeof(row.test));
		row.bytes = cm->bytes;
		row.count = cm->count;
		row.nranks = p->place[cm->group].n;
		row.time_us = cm->op_s * 1e6;
		row.algbw_GBps = cm->op_s > 0 ? cm->bytes / cm->op_s / 1e9 : 0;
		row.busbw_GBps = row.algbw_GBps * ft_coll_busbw_factor(cm->op, row.nranks);
		ft_strlcpy(row.algo, cm->algo, sizeof(row.algo));
		ft_strlcpy(row.bottleneck, cm->bottleneck, sizeof(row.bottleneck));
		ft_strlcpy(row.src, ft_plan_group_name(cm->group), sizeof(row.src));
		ft_strlcpy(row.dst, cm->what, sizeof(row.dst));
		rc = ft_run_add(&run, &row);
	}
	if (rc == 0) {
		ft_result_row_init(&row);
		ft_strlcpy(row.test, "plan_iteration", sizeof(row.test));
		row.nranks = p->ngpus;
		row.time_us = p->iter_s * 1e6;
		ft_strlcpy(row.bottleneck, p->bottleneck, sizeof(row.bottleneck));
		rc = ft_run_add(&run, &row);
	}
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

/*
 * --expert-load: numbers separated by commas, spaces or newlines ('#' starts
 * a comment), from the file the argument names when there is one, else from
 * the argument itself. Returns EXIT_OK or EXIT_USAGE after a message naming
 * the place.
 */
static int
parse_expert_load(struct plan_opts *o, struct cli_ctx *ctx)
{
	struct ft_strbuf sb;
	struct ft_error err = { 0 };
	const char *p, *src = "--expert-load";
	unsigned line = 1;
	size_t cap = 0;
	FILE *f;

	ft_strbuf_init(&sb);
	f = fopen(o->eload, "r");
	if (f) {
		fclose(f);
		if (ft_strbuf_read_file(&sb, o->eload, &err) < 0) {
			cli_error(ctx, "--expert-load: %s", ft_error_msg(&err, FT_EIO));
			ft_strbuf_release(&sb);
			return EXIT_USAGE;
		}
		src = o->eload;
	} else {
		ft_strbuf_adds(&sb, o->eload);
	}
	for (p = sb.buf; p && *p;) {
		char num[64];
		size_t n;
		double v;

		if (*p == '#') {
			while (*p && *p != '\n')
				p++;
			continue;
		}
		if (*p == '\n')
			line++;
		if (strchr(" \t\r\n,", *p)) {
			p++;
			continue;
		}
		n = strcspn(p, " \t\r\n,#");
		snprintf(num, sizeof(num), "%.*s", (int)FT_MIN(n, sizeof(num) - 1), p);
		if (n >= sizeof(num) || ft_parse_double(num, &v) < 0 || !(v >= 0) || !isfinite(v)) {
			cli_error(ctx, "%s%s%.0u: expected a non-negative number of tokens, got '%s'",
			          src, f ? ":" : "", f ? line : 0, num);
			ft_strbuf_release(&sb);
			return EXIT_USAGE;
		}
		if (o->nload == cap) {
			double *grown = o->nload < (1u << 20) ?
			                        ft_reallocarray(o->load, cap ? cap * 2 : 64, sizeof(*grown)) :
			                        NULL;

			if (!grown) {
				cli_error(ctx, "--expert-load: too many figures (at most 2^20)");
				ft_strbuf_release(&sb);
				return EXIT_USAGE;
			}
			o->load = grown;
			cap = cap ? cap * 2 : 64;
		}
		o->load[o->nload++] = v;
		p += n;
	}
	ft_strbuf_release(&sb);
	if (!o->nload) {
		cli_error(ctx, "%s: expected tokens per expert, got nothing", src);
		return EXIT_USAGE;
	}
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
		cli_error(ctx, "--engine: expected analytic or flow, got '%s'", o->engine);
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
	size_t n, tried, fit, i;
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
	if (ctx->json) {
		ft_json_init(&j, &sb, false);
		ft_json_obj_begin(&j);
		ft_json_kv_str(&j, "model", m->name);
		ft_json_kv_str(&j, "spec", spec_arg);
		ft_json_kv_uint(&j, "evaluated", tried);
		ft_json_kv_uint(&j, "fit", fit);
		ft_json_key(&j, "top");
		ft_json_arr_begin(&j);
		for (i = 0; i < n; i++) {
			const struct ft_plan_config *c = &rows[i].cfg;

			ft_json_obj_begin(&j);
			ft_json_kv_uint(&j, "tp", c->tp);
			ft_json_kv_uint(&j, "cp", c->cp);
			ft_json_kv_uint(&j, "pp", c->pp);
			ft_json_kv_uint(&j, "vpp", c->vpp);
			ft_json_kv_uint(&j, "dp", c->dp);
			ft_json_kv_uint(&j, "ep", c->ep);
			ft_json_kv_uint(&j, "micro_batch", c->micro_batch);
			ft_json_kv_uint(&j, "zero", c->zero);
			ft_json_kv_str(&j, "recompute", ft_plan_recompute_name(c->recompute));
			ft_json_kv_str(&j, "order", c->order[0] ? c->order : "tp-cp-pp-dp");
			ft_json_kv_double(&j, "tokens_per_s", rows[i].tokens_per_s);
			ft_json_kv_double(&j, "mfu", rows[i].mfu);
			ft_json_kv_double(&j, "iter_s", rows[i].iter_s);
			ft_json_kv_uint(&j, "mem_bytes", rows[i].mem_bytes);
			ft_json_kv_str(&j, "bottleneck", rows[i].bottleneck);
			ft_json_obj_end(&j);
		}
		ft_json_arr_end(&j);
		ft_json_obj_end(&j);
		ft_strbuf_addch(&sb, '\n');
	} else {
		ft_strbuf_addf(&sb, "# fabtune plan --search: %s on %s, batch %" PRIu64
		               " sequences: %zu configurations, %zu fit in memory\n",
		               m->name, spec_arg, base->global_batch, tried, fit);
		ft_strbuf_adds(&sb, "rank  tp  cp  pp vpp    dp  ep  mb zero recompute  order        "
		                    "tokens/s   MFU  iteration  mem GB  bottleneck\n");
		for (i = 0; i < n; i++) {
			const struct ft_plan_config *c = &rows[i].cfg;

			ft_strbuf_addf(&sb, "%4zu  %2u  %2u  %2u %3u %5u %3u  %2u    %u %-9s  %-11s "
			               "%10.0f %5.1f%% %9.3fs  %6.1f  %s\n",
			               i + 1, c->tp, c->cp, c->pp, c->vpp, c->dp, c->ep, c->micro_batch,
			               c->zero, ft_plan_recompute_name(c->recompute),
			               c->order[0] ? c->order : "tp-cp-pp-dp", rows[i].tokens_per_s,
			               100 * rows[i].mfu, rows[i].iter_s, rows[i].mem_bytes / 1e9,
			               rows[i].bottleneck);
		}
		if (!n)
			ft_strbuf_adds(&sb, "no configuration fits in memory\n");
	}
	cli_write(&sb);
	ft_strbuf_release(&sb);
	ft_free(rows);
	return n ? EXIT_OK : EXIT_PROBLEM;
}

/* Interruptions and goodput, for the recovery given and for 5 and 30 minutes. */
static void
render_goodput(struct cli_ctx *ctx, const struct plan_opts *o, uint32_t ngpus, uint32_t gpn,
               struct ft_strbuf *sb, struct ft_json *j)
{
	struct ft_plan_failure_rates r;
	double ckpt = o->ckpt_s, recover = o->recover_s, rec[3] = { recover, 300, 1800 };
	int i, n = 3;

	ft_plan_failure_rates_default(&r);
	if (o->fail_gpu >= 0)
		r.gpu_per_day = o->fail_gpu;
	if (o->fail_nic >= 0)
		r.nic_per_day = o->fail_nic;
	if (o->fail_link >= 0)
		r.link_per_day = o->fail_link;
	if (o->fail_node >= 0)
		r.host_per_day = o->fail_node;
	if (recover == 300 || recover == 1800)
		n = 2, rec[0] = 300, rec[1] = 1800;
	if (ctx->json) {
		ft_json_key(j, "failure_rates_per_day");
		ft_json_obj_begin(j);
		ft_json_kv_double(j, "gpu", r.gpu_per_day);
		ft_json_kv_double(j, "nic", r.nic_per_day);
		ft_json_kv_double(j, "fabric_port", r.link_per_day);
		ft_json_kv_double(j, "node", r.host_per_day);
		ft_json_obj_end(j);
		ft_json_key(j, "goodput");
		ft_json_arr_begin(j);
	} else {
		ft_strbuf_addf(sb, "\nfailures and goodput: interruptions per day per GPU %.3g, per NIC "
		               "%.3g, per fabric port %.3g, per node %.3g%s\n",
		               r.gpu_per_day, r.nic_per_day, r.link_per_day, r.host_per_day,
		               o->fail_gpu < 0 && o->fail_nic < 0 && o->fail_link < 0 && o->fail_node < 0 ?
		                       " (the Llama 3 report's interruption table)" :
		                       "");
	}
	for (i = 0; i < n; i++) {
		struct ft_plan_goodput g;
		struct ft_error err = { 0 };

		if (ft_plan_goodput(&r, ngpus, gpn, ckpt, rec[i], &g, &err) < 0)
			continue;
		if (ctx->json) {
			ft_json_obj_begin(j);
			ft_json_kv_double(j, "recovery_s", rec[i]);
			ft_json_kv_double(j, "interruptions_per_day", g.interruptions_per_day);
			ft_json_kv_double(j, "mtbf_s", g.mtbf_s);
			ft_json_kv_double(j, "checkpoint_s", ckpt);
			ft_json_kv_double(j, "ckpt_interval_s", g.ckpt_interval_s);
			ft_json_kv_double(j, "goodput", g.goodput);
			ft_json_kv_double(j, "lost_gpu_hours_per_day", g.lost_gpu_hours_per_day);
			ft_json_obj_end(j);
		} else {
			ft_strbuf_addf(sb, "  recovery %5.0f min: %.2f interruptions/day (MTBF %.1f h), "
			               "checkpoint every %.0f min (write %.0f s): goodput %.1f%%, %.0f "
			               "GPU-hours lost per day\n",
			               rec[i] / 60, g.interruptions_per_day, g.mtbf_s / 3600,
			               g.ckpt_interval_s / 60, ckpt, 100 * g.goodput,
			               g.lost_gpu_hours_per_day);
		}
	}
	if (ctx->json)
		ft_json_arr_end(j);
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
	cli_plan_html(spec_arg, p, ev, nev, rows, nrows, tried, &sb);
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
		"[--precision P] [--engine flow] [--search [--top N]] [--checkpoint TIME] [--save] "
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
		           "analytic (default) or flow: every group instance at once on the topology"),
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
		rc = parse_expert_load(&o, ctx);
		if (rc != EXIT_OK) {
			ft_free(o.load);
			return rc;
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
		json_plan(&j, plan);
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
			render_goodput(ctx, &o, plan->ngpus, spec.node.ngpus, &sb, &j);
		ft_json_obj_end(&j);
		ft_strbuf_addch(&sb, '\n');
	} else {
		render_text(spec_arg, &spec, plan, &sb);
		if (o.scale_from)
			ft_strbuf_addf(&sb, "scale-out: %u -> %u GPUs at %.0f -> %.0f tokens/s: %.1f%% "
			               "efficiency per GPU\n",
			               plan[1].ngpus, plan->ngpus, plan[1].tokens_per_s, plan->tokens_per_s,
			               100 * (plan->tokens_per_s / plan->ngpus) /
			                       (plan[1].tokens_per_s / plan[1].ngpus));
		if (o.ckpt_s > 0)
			render_goodput(ctx, &o, plan->ngpus, spec.node.ngpus, &sb, NULL);
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

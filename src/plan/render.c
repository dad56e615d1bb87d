/* SPDX-License-Identifier: MIT */
/*
 * plan/render.c - a plan in words: the terminal report and its JSON, the
 * search's table, the failures-and-goodput lines, the rows a saved plan
 * keeps, and the measured expert load read from text.
 */
#include "plan_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <fabtune/json.h>
#include <fabtune/result.h>
#include <fabtune/units.h>

#include "base/fields.h"

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

void
ft_plan_write_text(const char *spec_arg, const struct ft_cluster_spec *spec, const struct ft_plan *p,
                   struct ft_strbuf *sb)
{
	const struct ft_plan_memory *mm = &p->mem;
	char a[32], b[32], c2[32], d[32];
	size_t i;
	int algo_w = 8;
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

	/* the algo column fits its longest name: 8, collnet_direct and collnet_chain wider */
	for (i = 0; i < p->ncomms; i++)
		algo_w = FT_MAX(algo_w, (int)strlen(p->comms[i].algo));
	ft_strbuf_adds(sb, "\ncommunication per iteration (one GPU)\n");
	ft_strbuf_addf(sb, "  group  op              what                     size   count  "
	                   "wire/op      time/op     total   exposed  %-*s  bottleneck\n",
	               algo_w, "algo");
	for (i = 0; i < p->ncomms; i++) {
		const struct ft_plan_comm *cm = &p->comms[i];
		char s1[24], s2[24];

		ft_strbuf_addf(sb, "  %-5s  %-14s  %-22s %7s  %6" PRIu64 "  %7s  %11s  %8s  %8s  %-*s  %s\n",
		               ft_plan_group_name(cm->group), ft_op_name(cm->op), cm->what,
		               ft_format_size(cm->bytes, s1, sizeof(s1)), cm->count,
		               ft_format_size(cm->wire_bytes, s2, sizeof(s2)), dur(cm->op_s, a, sizeof(a)),
		               dur(cm->total_s, b, sizeof(b)), dur(cm->exposed_s, c2, sizeof(c2)),
		               algo_w, cm->algo, cm->bottleneck);
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

#define CFG(key, m) FT__FIELD(struct ft_plan_config, key, UINT, m)
#define MEM(key, m) FT__FIELD(struct ft_plan_memory, key, UINT, m)

/* The parallel layout, as a plan's config and each row of a search give it. */
static const struct ft__field layout_fields[] = {
	CFG("tp", tp), CFG("cp", cp), CFG("pp", pp), CFG("vpp", vpp), CFG("dp", dp), CFG("ep", ep),
};

static const struct ft__field memory_fields[] = {
	MEM("stage", stage),
	MEM("weights", weights),
	MEM("grads", grads),
	MEM("optimizer", optimizer),
	MEM("activations", activations),
	MEM("comm_buffers", comm_buffers),
	MEM("reserve", reserve),
	MEM("total", total),
	MEM("capacity", capacity),
	FT__FIELD(struct ft_plan_memory, "fits", BOOL, fits),
};

/* A placed group after its name, and one kind of communication after its group and op. */
static const struct ft__field place_fields[] = {
	FT__FIELD(struct ft_plan_place, "ranks", UINT, n),
	FT__FIELD(struct ft_plan_place, "nodes", UINT, nnodes),
	FT__FIELD(struct ft_plan_place, "per_node", UINT, ppn),
	FT__FIELD(struct ft_plan_place, "stride", UINT, stride),
	FT__FIELD(struct ft_plan_place, "crosses", STR, crosses),
};

#define COMM(type, m) FT__FIELD(struct ft_plan_comm, #m, type, m)

static const struct ft__field comm_fields[] = {
	COMM(STR, what),         COMM(UINT, bytes),  COMM(UINT, count),
	COMM(UINT, wire_bytes),  COMM(DOUBLE, op_s), COMM(DOUBLE, total_s),
	COMM(DOUBLE, exposed_s), COMM(STR, algo),    COMM(STR, bottleneck),
};

/* The iteration's times from the backward pass on, and what they make of the GPUs. */
#define PLAN(m) FT__FIELD(struct ft_plan, #m, DOUBLE, m)

static const struct ft__field time_fields[] = {
	PLAN(bwd_s),         PLAN(recompute_s),    PLAN(pipeline_s),
	PLAN(bubble_s),      PLAN(bubble_share),   PLAN(dp_exposed_s),
	PLAN(optimizer_s),   PLAN(iter_s),         PLAN(iter_nocomm_s),
	PLAN(comm_total_s),  PLAN(comm_exposed_s), PLAN(overlap),
	PLAN(tokens_per_s),  PLAN(tflops_per_gpu), PLAN(mfu),
	PLAN(hfu),           PLAN(comm_share),     PLAN(gpus_worth),
	PLAN(servers_worth),
};

#undef PLAN
#undef COMM
#undef MEM
#undef CFG

void
ft_plan_write_json(struct ft_json *j, const struct ft_plan *p)
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
	ft__json_fields(j, c, layout_fields, FT_ARRAY_SIZE(layout_fields));
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
	ft__json_object(j, "memory", &p->mem, memory_fields, FT_ARRAY_SIZE(memory_fields));
	ft_json_key(j, "groups");
	ft_json_arr_begin(j);
	for (g = 0; g < FT_GROUP_COUNT; g++) {
		const struct ft_plan_place *pl = &p->place[g];

		if (pl->n <= 1)
			continue;
		ft_json_obj_begin(j);
		ft_json_kv_str(j, "group", ft_plan_group_name(g));
		ft__json_fields(j, pl, place_fields, FT_ARRAY_SIZE(place_fields));
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
		ft__json_fields(j, cm, comm_fields, FT_ARRAY_SIZE(comm_fields));
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
	ft_json_kv_double(j, "fwd_s", p->fwd_s);
	ft_json_kv_double(j, "elem_s", p->elem_s);
	if (p->cfg.precision == FT_PRECISION_FP8)
		ft_json_kv_double(j, "fp8_cast_s", p->fp8_cast_s);
	ft__json_fields(j, p, time_fields, FT_ARRAY_SIZE(time_fields));
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

/* A saved plan: one row per communication and one for the iteration. */
int
ft_plan_to_run(const struct ft_plan *p, const char *spec_arg, struct ft_run *run)
{
	struct ft_result_row row;
	size_t i;
	int rc = 0;

	ft_run_init(run, FT_SOURCE_MODEL, "plan");
	ft_strlcpy(run->spec, spec_arg, sizeof(run->spec));
	snprintf(run->label, sizeof(run->label), "plan %s --model %s (tp %u pp %u dp %u)", spec_arg,
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
		rc = ft_run_add(run, &row);
	}
	if (rc == 0) {
		ft_result_row_init(&row);
		ft_strlcpy(row.test, "plan_iteration", sizeof(row.test));
		row.nranks = p->ngpus;
		row.time_us = p->iter_s * 1e6;
		ft_strlcpy(row.bottleneck, p->bottleneck, sizeof(row.bottleneck));
		rc = ft_run_add(run, &row);
	}
	return rc;
}

/* A searched configuration's layout members (a row's, a failure's) into @j's open object. */
static void
search_config_json(struct ft_json *j, const struct ft_plan_config *c)
{
	ft__json_fields(j, c, layout_fields, FT_ARRAY_SIZE(layout_fields));
	ft_json_kv_uint(j, "micro_batch", c->micro_batch);
	ft_json_kv_uint(j, "zero", c->zero);
	ft_json_kv_str(j, "recompute", ft_plan_recompute_name(c->recompute));
	ft_json_kv_str(j, "order", c->order[0] ? c->order : "tp-cp-pp-dp");
}

/* The configurations the search could not plan: how many, the first and its error. */
static void
search_failures_json(struct ft_json *j, const struct ft_plan_search_failures *f)
{
	ft_json_kv_uint(j, "failed", f ? f->n : 0);
	if (!f || !f->n)
		return;
	ft_json_key(j, "first_failure");
	ft_json_obj_begin(j);
	search_config_json(j, &f->first);
	ft_json_kv_str(j, "code", ft_err_name(f->first_err.code));
	ft_json_kv_str(j, "error", f->first_err.msg);
	ft_json_obj_end(j);
}

static void
search_failures_text(const struct ft_plan_search_failures *f, struct ft_strbuf *sb)
{
	const struct ft_plan_config *c = &f->first;

	if (!f->n)
		return;
	ft_strbuf_addf(sb,
	               "# %zu configuration%s could not be planned; the first, tp %u cp %u pp %u "
	               "vpp %u dp %u ep %u mb %u zero %u recompute %s order %s: %s\n",
	               f->n, f->n == 1 ? "" : "s", c->tp, c->cp, c->pp, c->vpp, c->dp, c->ep,
	               c->micro_batch, c->zero, ft_plan_recompute_name(c->recompute),
	               c->order[0] ? c->order : "tp-cp-pp-dp", f->first_err.msg);
}

void
ft_plan_search_write(const char *model, const char *spec_arg, uint64_t batch, bool sp,
                     const struct ft_plan_search_row *rows, size_t n, size_t tried, size_t fit,
                     const struct ft_plan_search_failures *failed, struct ft_json *jp,
                     struct ft_strbuf *sb)
{
	size_t i;

	if (jp) {
		struct ft_json *j = jp;

		ft_json_obj_begin(j);
		ft_json_kv_str(j, "model", model);
		ft_json_kv_str(j, "spec", spec_arg);
		ft_json_kv_bool(j, "sp", sp); /* (as the text's header says it) */
		ft_json_kv_uint(j, "evaluated", tried);
		ft_json_kv_uint(j, "fit", fit);
		search_failures_json(j, failed);
		ft_json_key(j, "top");
		ft_json_arr_begin(j);
		for (i = 0; i < n; i++) {
			const struct ft_plan_config *c = &rows[i].cfg;

			ft_json_obj_begin(j);
			search_config_json(j, c);
			ft_json_kv_double(j, "tokens_per_s", rows[i].tokens_per_s);
			ft_json_kv_double(j, "mfu", rows[i].mfu);
			ft_json_kv_double(j, "iter_s", rows[i].iter_s);
			ft_json_kv_uint(j, "mem_bytes", rows[i].mem_bytes);
			ft_json_kv_str(j, "bottleneck", rows[i].bottleneck);
			ft_json_obj_end(j);
		}
		ft_json_arr_end(j);
		ft_json_obj_end(j);
		ft_strbuf_addch(sb, '\n');
		return;
	}
	/* (sp: as a plan's config line says it, config_line(); with TP only) */
	ft_strbuf_addf(sb, "# fabtune plan --search: %s on %s, batch %" PRIu64
	               " sequences, sp %s: %zu configurations, %zu fit in memory\n",
	               model, spec_arg, batch, sp ? "on" : "off", tried, fit);
	if (failed)
		search_failures_text(failed, sb);
	ft_strbuf_adds(sb, "rank  tp  cp  pp vpp    dp  ep  mb zero recompute  order        "
	                   "tokens/s   MFU  iteration  mem GB  bottleneck\n");
	for (i = 0; i < n; i++) {
		const struct ft_plan_config *c = &rows[i].cfg;

		ft_strbuf_addf(sb, "%4zu  %2u  %2u  %2u %3u %5u %3u  %2u    %u %-9s  %-11s "
		               "%10.0f %5.1f%% %9.3fs  %6.1f  %s\n",
		               i + 1, c->tp, c->cp, c->pp, c->vpp, c->dp, c->ep, c->micro_batch,
		               c->zero, ft_plan_recompute_name(c->recompute),
		               c->order[0] ? c->order : "tp-cp-pp-dp", rows[i].tokens_per_s,
		               100 * rows[i].mfu, rows[i].iter_s, rows[i].mem_bytes / 1e9,
		               rows[i].bottleneck);
	}
	if (!n && !tried && failed && failed->n)
		ft_strbuf_adds(sb, "no configuration could be planned\n");
	else if (!n)
		ft_strbuf_adds(sb, "no configuration fits in memory\n");
}

/* Interruptions and goodput, for the recovery given and for 5 and 30 minutes. */
void
ft_plan_goodput_write(const struct ft_plan_failure_rates *rates, bool rates_default,
                      uint32_t ngpus, uint32_t gpn, double ckpt, double recover,
                      struct ft_json *j, struct ft_strbuf *sb)
{
	const struct ft_plan_failure_rates r = *rates;
	double rec[3] = { recover, 300, 1800 };
	int i, n = 3;

	if (recover == 300 || recover == 1800)
		n = 2, rec[0] = 300, rec[1] = 1800;
	if (j) {
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
		               rates_default ? " (the Llama 3 report's interruption table)" : "");
	}
	for (i = 0; i < n; i++) {
		struct ft_plan_goodput g;
		struct ft_error err = { 0 };

		if (ft_plan_goodput(&r, ngpus, gpn, ckpt, rec[i], &g, &err) < 0)
			continue;
		if (j) {
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
	if (j)
		ft_json_arr_end(j);
}

int
ft_plan_expert_load_parse(const char *arg, double **load, uint32_t *nload, struct ft_error *err)
{
	struct ft_strbuf sb;
		const char *p, *src = "--expert-load";
	unsigned line = 1;
	size_t cap = 0;
	FILE *f;

	ft_strbuf_init(&sb);
	f = fopen(arg, "r");
	if (f) {
		fclose(f);
		if (ft_strbuf_read_file(&sb, arg, err) < 0) {
			ft_error_prefix(err, "--expert-load: ");
			ft_strbuf_release(&sb);
			return FT_EINVAL;
		}
		src = arg;
	} else {
		ft_strbuf_adds(&sb, arg);
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
			ft_strbuf_release(&sb);
			return ft_error_set(err, FT_EINVAL,
			                    "%s%s%.0u: expected a non-negative number of tokens, got '%s'",
			                    src, f ? ":" : "", f ? line : 0, num);
		}
		if (*nload == cap) {
			double *grown = *nload < (1u << 20) ?
			                        ft_reallocarray(*load, cap ? cap * 2 : 64, sizeof(*grown)) :
			                        NULL;

			if (!grown) {
				ft_strbuf_release(&sb);
				return ft_error_set(err, FT_EINVAL,
				                    "--expert-load: too many figures (at most 2^20)");
			}
			*load = grown;
			cap = cap ? cap * 2 : 64;
		}
		(*load)[(*nload)++] = v;
		p += n;
	}
	ft_strbuf_release(&sb);
	if (!*nload)
		return ft_error_set(err, FT_EINVAL, "%s: expected tokens per expert, got nothing", src);
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * plan/models.c - transformer model presets, their parameter counts, the
 * training configuration's defaults and the names of its enums.
 *
 * Every preset names its source (the model's paper or its published
 * configuration). Parameter counts are exact for the fields: attention and
 * FFN matrices, routers and embeddings; norms and biases are left out (they
 * are well under 0.1% of any preset).
 */
#include "plan_int.h"

#include <stdio.h>
#include <string.h>

struct model_preset {
	const char *summary;
	struct ft_plan_model m;
};

static const struct model_preset presets[] = {
	/* NARAYANAN21 table 1 (GPT-3 175B shape, vocabulary padded to 51,200), sequence 2048;
	 * trained with dropout, as KORTHIKANTI22's activation count assumes. The Llama 3,
	 * Mixtral and DeepSeek-V3 presets have none (their reports and reference code list
	 * no dropout). */
	{ "GPT-3 175B (96 layers, h 12288, 96 heads), NARAYANAN21",
	  { .name = "gpt3-175b", .layers = 96, .hidden = 12288, .heads = 96, .ffn = 49152,
	    .vocab = 51200, .seq = 2048, .tied = true, .dropout = true } },
	/* NARAYANAN21 table 1: the 530B row (MT-NLG shape). */
	{ "530B GPT (105 layers, h 20480, 128 heads), NARAYANAN21",
	  { .name = "gpt-530b", .layers = 105, .hidden = 20480, .heads = 128, .ffn = 81920,
	    .vocab = 51200, .seq = 2048, .tied = true, .dropout = true } },
	/* NARAYANAN21 table 1: the 1T row. */
	{ "1T GPT (128 layers, h 25600, 160 heads), NARAYANAN21",
	  { .name = "gpt-1t", .layers = 128, .hidden = 25600, .heads = 160, .ffn = 102400,
	    .vocab = 51200, .seq = 2048, .tied = true, .dropout = true } },
	/* The Llama 3 report, table 3: GQA with 8 KV heads, SwiGLU, vocabulary 128,256. */
	{ "Llama 3 8B (32 layers, h 4096, GQA 32/8, SwiGLU 14336), Llama 3 report",
	  { .name = "llama3-8b", .layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8,
	    .ffn = 14336, .vocab = 128256, .seq = 8192, .gated = true } },
	{ "Llama 3 70B (80 layers, h 8192, GQA 64/8, SwiGLU 28672), Llama 3 report",
	  { .name = "llama3-70b", .layers = 80, .hidden = 8192, .heads = 64, .kv_heads = 8,
	    .ffn = 28672, .vocab = 128256, .seq = 8192, .gated = true } },
	{ "Llama 3 405B (126 layers, h 16384, GQA 128/8, SwiGLU 53248), Llama 3 report",
	  { .name = "llama3-405b", .layers = 126, .hidden = 16384, .heads = 128, .kv_heads = 8,
	    .ffn = 53248, .vocab = 128256, .seq = 8192, .gated = true } },
	/* Mixtral of Experts paper: 8 experts of Mistral 7B's FFN, top-2, every layer MoE. */
	{ "Mixtral 8x7B (32 layers, 8 experts top-2, 46.7B total), Mixtral paper",
	  { .name = "mixtral-8x7b", .layers = 32, .hidden = 4096, .heads = 32, .kv_heads = 8,
	    .ffn = 14336, .moe_ffn = 14336, .vocab = 32000, .seq = 4096, .gated = true,
	    .experts = 8, .topk = 2, .capacity = 0 } },
	/*
	 * DeepSeek-V3 technical report: 61 layers, the first 3 dense (FFN 18432), then
	 * 256 routed experts of FFN 2048 top-8 plus 1 shared; multi-head latent attention
	 * (q rank 1536, kv rank 512, 128 heads of 128 + 64 rope dims): 187,105,280
	 * attention weights per layer, which the heads fields cannot express.
	 */
	{ "DeepSeek-V3 (61 layers, 256 experts top-8 + 1 shared, MLA, 671B total), DeepSeek-V3 report",
	  { .name = "deepseek-v3", .layers = 61, .hidden = 7168, .heads = 128, .head_dim = 128,
	    .ffn = 18432, .moe_ffn = 2048, .vocab = 129280, .seq = 4096, .gated = true,
	    .experts = 256, .topk = 8, .shared_experts = 1, .dense_layers = 3,
	    .attn_params = 187105280 } },
};

size_t
ft_plan_model_preset_count(void)
{
	return FT_ARRAY_SIZE(presets);
}

const struct ft_plan_model *
ft_plan_model_preset_at(size_t i)
{
	return i < FT_ARRAY_SIZE(presets) ? &presets[i].m : NULL;
}

const char *
ft_plan_model_preset_summary(size_t i)
{
	return i < FT_ARRAY_SIZE(presets) ? presets[i].summary : NULL;
}

int
ft_plan_model_preset(const char *name, struct ft_plan_model *out, struct ft_error *err)
{
	char list[256] = "";
	size_t i, len;

	for (i = 0; i < FT_ARRAY_SIZE(presets); i++) {
		if (strcmp(presets[i].m.name, name) == 0) {
			*out = presets[i].m;
			return 0;
		}
		len = strlen(list);
		snprintf(list + len, sizeof(list) - len, "%s%s", i ? ", " : "", presets[i].m.name);
	}
	return ft_error_set(err, FT_ENOENT, "model: expected a preset (%s) or a YAML file, got '%s'",
	                    list, name);
}

uint32_t
ft__plan_head_dim(const struct ft_plan_model *m)
{
	return m->head_dim ? m->head_dim : m->hidden / m->heads;
}

uint32_t
ft__plan_kv_heads(const struct ft_plan_model *m)
{
	return m->kv_heads ? m->kv_heads : m->heads;
}

uint32_t
ft__plan_moe_layers(const struct ft_plan_model *m)
{
	return m->experts ? m->layers - m->dense_layers : 0;
}

void
ft_plan_model_params(const struct ft_plan_model *m, struct ft_plan_params *p)
{
	uint64_t h = m->hidden, hd = ft__plan_head_dim(m), a = m->heads, kv = ft__plan_kv_heads(m);
	uint64_t mats = m->gated ? 3 : 2;
	uint64_t nmoe = ft__plan_moe_layers(m), ndense = m->layers - nmoe;
	uint64_t emb = (uint64_t)m->vocab * h;

	memset(p, 0, sizeof(*p));
	p->attn_layer = m->attn_params ? m->attn_params : h * a * hd * 2 + h * kv * hd * 2;
	p->dense_mlp = mats * h * m->ffn;
	p->expert = mats * h * (m->moe_ffn ? m->moe_ffn : m->ffn);
	p->router = m->experts ? (uint64_t)m->experts * h : 0;
	p->embedding = m->tied ? emb : 2 * emb;
	p->total = m->layers * p->attn_layer + ndense * p->dense_mlp +
	           nmoe * ((uint64_t)(m->experts + m->shared_experts) * p->expert + p->router) +
	           p->embedding;
	p->active = m->layers * p->attn_layer + ndense * p->dense_mlp +
	            nmoe * ((uint64_t)(m->topk + m->shared_experts) * p->expert + p->router) +
	            p->embedding;
	/* The input lookup is no matrix product; the output layer (tied or not) is. */
	p->matmul_active = p->active - (m->tied ? 0 : emb);
}

int
ft_plan_model_validate(const struct ft_plan_model *m, struct ft_error *err)
{
	const char *n = m->name[0] ? m->name : "model";

	if (m->layers == 0 || m->hidden == 0 || m->heads == 0 || m->vocab == 0 || m->seq == 0 ||
	    m->ffn == 0)
		return ft_error_set(err, FT_EINVAL,
		                    "%s: %s: expected a positive count, got 0", n,
		                    !m->layers ? "layers" : !m->hidden ? "hidden" : !m->heads ? "heads" :
		                    !m->vocab ? "vocab" : !m->seq ? "seq" : "ffn");
	if (!m->head_dim && m->hidden % m->heads)
		return ft_error_set(err, FT_EINVAL,
		                    "%s: heads: expected a divisor of hidden (%u), got %u", n,
		                    m->hidden, m->heads);
	if (m->kv_heads && (m->kv_heads > m->heads || m->heads % m->kv_heads))
		return ft_error_set(err, FT_EINVAL,
		                    "%s: kv_heads: expected a divisor of heads (%u), got %u", n,
		                    m->heads, m->kv_heads);
	if (m->experts) {
		if (m->topk == 0 || m->topk > m->experts)
			return ft_error_set(err, FT_EINVAL,
			                    "%s: topk: expected 1..experts (%u), got %u", n,
			                    m->experts, m->topk);
		if (m->dense_layers >= m->layers)
			return ft_error_set(err, FT_EINVAL,
			                    "%s: dense_layers: expected fewer than layers (%u), got %u",
			                    n, m->layers, m->dense_layers);
	} else if (m->topk || m->shared_experts || m->dense_layers) {
		return ft_error_set(err, FT_EINVAL,
		                    "%s: experts: topk, shared_experts and dense_layers need experts > 0",
		                    n);
	}
	{
		/* Far below 2^64 bytes in every count the planner makes. */
		double h = m->hidden, d = m->head_dim ? m->head_dim : h / m->heads;
		double mats = m->gated ? 3 : 2, f = m->moe_ffn ? m->moe_ffn : m->ffn;
		double per_layer = 4 * h * m->heads * d + mats * h * m->ffn + (double)m->attn_params +
		                   ((double)m->experts + m->shared_experts) * mats * h * f;

		if (per_layer * m->layers + 2.0 * m->vocab * h > 1e15)
			return ft_error_set(err, FT_ERANGE,
			                    "%s: expected at most 10^15 parameters, got %.3g", n,
			                    per_layer * m->layers + 2.0 * m->vocab * h);
	}
	if (m->capacity != 0 && !(m->capacity >= 1 && m->capacity <= 64))
		return ft_error_set(err, FT_EINVAL,
		                    "%s: capacity: expected 0 (no dropping) or a factor in [1, 64], got %g",
		                    n, m->capacity);
	return 0;
}

/* ---- configuration ------------------------------------------------------------------------- */

void
ft_plan_config_init(struct ft_plan_config *c)
{
	memset(c, 0, sizeof(*c));
	c->global_batch = 0; /* the command picks one per model */
	c->micro_batch = 1;
	c->precision = FT_PRECISION_BF16;
	c->optimizer = FT_OPTIMIZER_ADAM;
	c->zero = 1;
	c->recompute = FT_RECOMPUTE_NONE;
	c->tp = c->cp = c->ep = c->pp = c->vpp = 1;
	c->sp = true;
	c->flash_attn = true;
	c->dp_overlap = true;
}

static const char *const recompute_names[] = { "none", "selective", "full" };
static const char *const precision_names[] = { "bf16", "fp8" };
static const char *const optimizer_names[] = { "adam", "sgd" };
static const char *const group_names[] = { "tp", "cp", "ep", "pp", "dp", "edp" };

_Static_assert(FT_ARRAY_SIZE(recompute_names) == FT_RECOMPUTE_COUNT, "recompute names");
_Static_assert(FT_ARRAY_SIZE(precision_names) == FT_PRECISION_COUNT, "precision names");
_Static_assert(FT_ARRAY_SIZE(optimizer_names) == FT_OPTIMIZER_COUNT, "optimizer names");
_Static_assert(FT_ARRAY_SIZE(group_names) == FT_GROUP_COUNT, "group names");

/* A bad name is FT_EINVAL to the planner. */
FT__NAME_SET(ft__plan_recomputes, recompute_names);
FT__NAME_SET(ft__plan_precisions, precision_names);
FT__NAME_SET(ft__plan_optimizers, optimizer_names);
FT__FROM_NAME(ft_plan_recompute_from_name, enum ft_plan_recompute, ft__plan_recomputes, FT_EINVAL)
FT__FROM_NAME(ft_plan_precision_from_name, enum ft_plan_precision, ft__plan_precisions, FT_EINVAL)
FT__FROM_NAME(ft_plan_optimizer_from_name, enum ft_plan_optimizer, ft__plan_optimizers, FT_EINVAL)

FT__NAME_GETTER(ft_plan_recompute_name, enum ft_plan_recompute, recompute_names, FT_RECOMPUTE_COUNT)
FT__NAME_GETTER(ft_plan_precision_name, enum ft_plan_precision, precision_names, FT_PRECISION_COUNT)
FT__NAME_GETTER(ft_plan_optimizer_name, enum ft_plan_optimizer, optimizer_names, FT_OPTIMIZER_COUNT)
FT__NAME_GETTER(ft_plan_group_name, enum ft_plan_group, group_names, FT_GROUP_COUNT)

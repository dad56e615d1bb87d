/* SPDX-License-Identifier: MIT */
/*
 * plan/compute.c - one plan: memory per GPU, FLOPs, the communications of
 * one iteration placed on the cluster's ranks, the pipeline schedule, the
 * overlap and the iteration time.
 *
 * The ranks are laid out with TP fastest, then CP, then PP, then DP (EP
 * groups are consecutive DP ranks), so TP stays inside the NVLink domain
 * and PP and DP cross the fabric when TP·CP fills a node. Each group's
 * collective is one query of the analytic model with the group's real
 * placement (ranks, nodes, ranks per node). The busiest pipeline stage sets
 * the pace: per micro-batch it computes, waits for what its TP, CP and EP
 * collectives do not hide and sends its activations on; the schedule adds
 * the bubble, and the data-parallel reductions add what the last backward
 * pass does not hide (kb TRAIN-COMM, TRAIN-PP).
 */
#include "plan_int.h"

#include <math.h>
#include <string.h>

#include <fabtune/model.h>
#include <fabtune/topo.h>

#define MB25 (25ull * 1000 * 1000)
#define GIB3 (3ull << 30)
#define OPT_BYTES_PER_PARAM 32.0 /* Adam step: read grads, master, m, v; write them and weights */
#define ELEM_PASSES 2.0          /* HBM passes over the activations a layer keeps, per forward */
#define FP8_CAST_BYTES 4.0       /* per element cast to FP8: read 2 B, write 1 B and 1 B transposed */

/* A byte count from a double, saturating: absurd inputs give absurd figures, not undefined
 * behaviour. */
static uint64_t
u64(double x)
{
	if (!(x > 0))
		return 0;
	if (x >= 18446744073709549568.0)
		return UINT64_MAX;
	return (uint64_t)x;
}

uint64_t
ft_plan_wire_bytes(enum ft_op op, uint64_t bytes, uint32_t n)
{
	if (n <= 1)
		return 0;
	switch (op) {
	case FT_OP_ALL_REDUCE: /* ring: reduce-scatter then all-gather, 2(n-1)/n */
		return u64(round(2.0 * (n - 1) / n * (double)bytes));
	case FT_OP_ALL_GATHER:     /* bytes = the gathered output */
	case FT_OP_REDUCE_SCATTER: /* bytes = the input to scatter */
	case FT_OP_ALLTOALL:       /* bytes = one rank's send buffer, (n-1)/n leaves it */
		return u64(round((double)(n - 1) / n * (double)bytes));
	default:
		return bytes;
	}
}

void
ft_plan_states_bytes(uint64_t params, uint32_t zero, uint32_t ndp, enum ft_plan_optimizer opt,
                     uint64_t *weights, uint64_t *grads, uint64_t *optimizer)
{
	uint64_t ob = opt == FT_OPTIMIZER_SGD ? 8 : 12;
	uint32_t n = ndp ? ndp : 1;

	/* TRAIN-MEM-STATES: 2 B weights, 2 B gradients, 12 B (Adam) fp32 states per parameter. */
	*weights = zero >= 3 ? 2 * params / n : 2 * params;
	*grads = zero >= 2 ? 2 * params / n : 2 * params;
	*optimizer = zero >= 1 ? ob * params / n : ob * params;
}

double
ft_plan_act_layer_bytes(const struct ft_plan_model *m, const struct ft_plan_config *c,
                        bool moe_layer)
{
	/* TRAIN-MEM-ACT (KORTHIKANTI22), generalised to GQA and gated or wide FFNs: with
	 * MHA and ffn = 4h the attention block keeps 11·sbh + 5·as²b, the MLP 19·sbh and the
	 * two norms 4·sbh: 34·sbh + 5·as²b in all. Of these, the two 1-byte dropout masks
	 * (sbh each) and the attention dropout's mask and output (3·as²b) exist only when
	 * the model trains with dropout: without, 32·sbh + 2·as²b. */
	double s = (double)m->seq / c->cp, b = c->micro_batch, h = m->hidden, a = m->heads;
	double t = c->tp, kvr = (double)ft__plan_kv_heads(m) / m->heads;
	double f, attn, mlp, norms = 4, repl, core, mask = m->dropout ? 1 : 0;
	uint32_t k = 1;

	f = moe_layer ? (double)(m->moe_ffn ? m->moe_ffn : m->ffn) : m->ffn;
	if (moe_layer)
		k = m->topk + m->shared_experts;
	attn = 2 + 2 + 4 * kvr + 2 + mask; /* qkv input, Q, K+V, projection input, mask */
	mlp = 2 + k * (m->gated ? 6 * f / h : 4 * f / h) + mask;
	repl = 4 + 2 + 2 + 2 * mask; /* what TP alone does not split: norms, both inputs, masks */
	core = c->flash_attn ? 0 : (m->dropout ? 5 : 2) * a * s / h;
	if (c->recompute == FT_RECOMPUTE_FULL)
		return 2 * s * b * h / (c->sp ? t : 1);
	if (c->recompute == FT_RECOMPUTE_SELECTIVE)
		core = 0;
	if (c->sp || t == 1)
		return s * b * h * (attn + mlp + norms + core) / t;
	return s * b * h * (repl + (attn + mlp + norms - repl) / t + core / t);
}

double
ft_plan_flops_per_token(const struct ft_plan_model *m)
{
	struct ft_plan_params p;
	double att = 12.0 * m->layers * m->seq * (double)m->heads * ft__plan_head_dim(m);

	/* TRAIN-FLOPS: 2 FLOPs per weight forward, 4 backward; attention scores and their
	 * weighted sum 4·s·a·d forward per layer, tripled by the backward pass. */
	ft_plan_model_params(m, &p);
	return 6.0 * (double)p.matmul_active + att;
}

void
ft__plan_place(uint32_t n, uint32_t stride, uint32_t gpn, struct ft_plan_place *out)
{
	memset(out, 0, sizeof(*out));
	out->n = n;
	out->stride = stride;
	if (n <= 1) {
		out->nnodes = out->ppn = 1;
	} else if ((uint64_t)stride * n <= gpn) {
		out->nnodes = 1;
		out->ppn = n;
	} else if (stride >= gpn) {
		out->nnodes = n;
		out->ppn = 1;
	} else {
		out->ppn = gpn / stride;
		while (out->ppn > 1 && n % out->ppn)
			out->ppn--;
		out->nnodes = n / out->ppn;
	}
}

/*
 * Does every instance of the group @pl stay inside one NVLink domain? Its
 * instances fill aligned blocks of stride x n ranks, so they do when that block
 * fits a node with NVLink, or tiles the NVLink domain of several trays (GB200
 * NVL72: 18 trays of 4 GPUs) that the cluster fills or holds whole, as the model
 * and the simulator decide who talks over NVLink (a domain is nodes / domain_nodes).
 */
static bool
in_nvlink_domain(const struct ft_cluster_spec *spec, const struct ft_plan_place *pl)
{
	uint64_t span = (uint64_t)pl->stride * pl->n, dom = spec->node.ngpus;

	if (!spec->node.nvlink_gen)
		return false;
	if (spec->node.nvlink_domain_nodes > 1)
		dom *= FT_MIN(spec->node.nvlink_domain_nodes, spec->nnodes);
	return pl->nnodes == 1 || (span <= dom && dom % span == 0);
}

/*
 * The nodes of one NVLink domain the model is to take for group @pl, where its
 * instances do not stay in one: 0 when the spec's own rule holds (no multi-node
 * domain, or one domain holds each instance). The model fills domains with
 * consecutive trays, so a group whose ranks lie trays apart (data parallelism
 * over the pipelines of GB200 NVL72 racks) would be taken for one domain. Its
 * first instance's trays are counted per domain: the same count in each of D
 * domains gives nnodes / D; an uneven spread gives 1, every tray a node on the
 * fabric, so that no hop is credited to NVLink that may cross racks.
 */
static uint32_t
model_domain_nodes(const struct ft_cluster_spec *spec, const struct ft_plan_place *pl)
{
	uint32_t per = spec->node.nvlink_domain_nodes, gpn = spec->node.ngpus;
	uint32_t ndom = 0, first = 0, cnt = 0, i;
	uint64_t tray, dom, last_tray = UINT64_MAX, last_dom = UINT64_MAX;
	bool even = true;

	if (per <= 1 || !spec->node.nvlink_gen || !gpn || pl->nnodes <= 1 ||
	    in_nvlink_domain(spec, pl))
		return 0;
	for (i = 0; i < pl->n; i++) {
		tray = (uint64_t)i * pl->stride / gpn;
		dom = tray / per;
		if (dom != last_dom) {
			if (ndom == 1)
				first = cnt;
			else if (ndom > 1 && cnt != first)
				even = false;
			ndom++;
			cnt = 0;
			last_dom = dom;
		}
		if (tray != last_tray)
			cnt++;
		last_tray = tray;
	}
	if (ndom > 1 && cnt != first)
		even = false;
	return even && pl->nnodes % ndom == 0 ? pl->nnodes / ndom : 1;
}

int
ft__plan_strides(const struct ft_plan_config *c, uint32_t stride[FT__DIM_COUNT],
                 struct ft_error *err)
{
	static const char *const names[FT__DIM_COUNT] = { "tp", "cp", "pp", "dp" };
	const uint32_t size[FT__DIM_COUNT] = { c->tp, c->cp, c->pp, c->dp };
	const char *o = c->order[0] ? c->order : "tp-cp-pp-dp";
	bool seen[FT__DIM_COUNT] = { false };
	uint32_t acc = 1;
	int i, k;

	for (i = 0; i < FT__DIM_COUNT; i++) {
		for (k = 0; k < FT__DIM_COUNT; k++)
			if (strncmp(o, names[k], 2) == 0)
				break;
		if (k == FT__DIM_COUNT || seen[k] || (i < 3 && o[2] != '-') || (i == 3 && o[2]))
			return ft_error_set(err, FT_EINVAL,
			                    "order: expected tp, cp, pp and dp once each, joined by '-' "
			                    "(fastest first, e.g. tp-cp-pp-dp), got '%s'",
			                    c->order);
		seen[k] = true;
		stride[k] = acc;
		acc *= size[k];
		o += 3;
	}
	return 0;
}

/* ---- one plan ------------------------------------------------------------------------------ */

/* One plan in the making: its inputs, and what the steps hand each other. */
struct ctx {
	const struct ft_cluster_spec *spec;
	const struct ft_plan_model *m;
	struct ft_plan_config *c;
	struct ft_plan *p;
	struct ft_error *err;
	const struct ft_plan_comm *ov; /* engine times by (group, op, bytes); NULL: analytic */
	size_t nov;
	uint32_t lstage;  /* layers of the busiest stage */
	uint32_t ledge;   /* layers of the first and the last stage (lstage - 1 with pp_balance) */
	uint32_t k;       /* collectives per layer come in k passes' worth: 2, 3 with recompute */
	double moe_share; /* MoE layers / layers */
	double tok_gpu;   /* tokens of one micro-batch on one GPU (÷ CP) */
	double attn_core; /* FLOPs of one layer's attention scores and weighted sum, one GPU */
	double t_mb0;     /* compute of one micro-batch on the busiest stage, seconds */
	double attn_rate; /* FLOP/s of the attention core (BF16 under FP8 unless fp8_attention) */
	double tp_f, cp_f, ep_f; /* TP, CP, EP communication per micro-batch, seconds */
	struct ft_cluster_spec *dspec; /* the spec with a group's domains as the model is to
	                                  see them (model_domain_nodes()); made when needed */
	struct ft_model_cache *cache;  /* the model's queries' (a search's), or NULL */
};

static int
check_config(const struct ft_cluster_spec *spec, const struct ft_plan_model *m,
             struct ft_plan_config *c, uint32_t *ngpus, struct ft_error *err)
{
	uint64_t all = ft_spec_ngpus(spec), rep;

	*ngpus = c->ngpus ? c->ngpus : (uint32_t)FT_MIN(all, (uint64_t)UINT32_MAX);
	if (*ngpus > all)
		return ft_error_set(err, FT_ERANGE, "gpus: expected at most %" PRIu64 " (the spec's), got %u",
		                    all, *ngpus);
	if (!c->tp || !c->cp || !c->pp || !c->ep || !c->micro_batch || !c->vpp)
		return ft_error_set(err, FT_EINVAL, "%s: expected a positive degree, got 0",
		                    !c->tp ? "tp" : !c->cp ? "cp" : !c->pp ? "pp" : !c->ep ? "ep" :
		                    !c->vpp ? "vpp" : "micro_batch");
	if (c->tp > spec->node.ngpus)
		return ft_error_set(err, FT_EINVAL,
		                    "tp: expected at most the %u GPUs of a node (TP stays in the "
		                    "NVLink domain), got %u",
		                    spec->node.ngpus, c->tp);
	rep = (uint64_t)c->tp * c->cp * c->pp;
	if (*ngpus % rep)
		return ft_error_set(err, FT_EINVAL,
		                    "gpus: expected a multiple of tp·cp·pp = %" PRIu64 ", got %u", rep,
		                    *ngpus);
	if (!c->dp)
		c->dp = (uint32_t)(*ngpus / rep);
	if (rep * c->dp != *ngpus)
		return ft_error_set(err, FT_EINVAL, "dp: tp·cp·pp·dp = %" PRIu64 " is not the %u GPUs",
		                    rep * c->dp, *ngpus);
	if (m->heads % c->tp || ft__plan_kv_heads(m) % c->tp)
		return ft_error_set(err, FT_EINVAL, "tp: expected a divisor of the %u %sheads, got %u",
		                    m->heads % c->tp ? m->heads : ft__plan_kv_heads(m),
		                    m->heads % c->tp ? "" : "KV ", c->tp);
	if (m->seq % (c->cp * (c->sp ? c->tp : 1)))
		return ft_error_set(err, FT_EINVAL,
		                    "cp: the sequence (%u) must divide by cp%s, got cp %u", m->seq,
		                    c->sp ? "·tp (sequence parallel)" : "", c->cp);
	if (c->pp > m->layers || c->vpp > (m->layers + c->pp - 1) / c->pp)
		return ft_error_set(err, FT_EINVAL,
		                    "%s: %u stages of %u virtual stages for %u layers: expected at "
		                    "least one layer per virtual stage",
		                    c->pp > m->layers ? "pp" : "vpp", c->pp, c->vpp, m->layers);
	if (c->ep > 1 && (!m->experts || m->experts % c->ep || c->dp % c->ep))
		return ft_error_set(err, FT_EINVAL,
		                    "ep: expected a divisor of the experts (%u) and of dp (%u), got %u",
		                    m->experts, c->dp, c->ep);
	if (c->zero > 3)
		return ft_error_set(err, FT_EINVAL, "zero: expected a stage 0 to 3, got %u", c->zero);
	if (!c->global_batch || c->global_batch % ((uint64_t)c->dp * c->micro_batch))
		return ft_error_set(err, FT_EINVAL,
		                    "global_batch: expected a multiple of dp·micro_batch = %" PRIu64
		                    ", got %" PRIu64,
		                    (uint64_t)c->dp * c->micro_batch, c->global_batch);
	if (c->global_batch / ((uint64_t)c->dp * c->micro_batch) > (1u << 30))
		return ft_error_set(err, FT_ERANGE,
		                    "global_batch: expected at most 2^30 micro-batches per pipeline, got "
		                    "%" PRIu64,
		                    c->global_batch / ((uint64_t)c->dp * c->micro_batch));
	if (c->vpp > 1 && c->pp == 1)
		return ft_error_set(err, FT_EINVAL, "vpp: interleaving needs pp > 1");
	if (c->vpp > 1 && (c->global_batch / ((uint64_t)c->dp * c->micro_batch)) % c->pp)
		return ft_error_set(err, FT_EINVAL,
		                    "vpp: the interleaved schedule needs micro-batches (%" PRIu64
		                    ") to be a multiple of pp (%u)",
		                    c->global_batch / ((uint64_t)c->dp * c->micro_batch), c->pp);
	if (c->expert_load) {
		uint32_t i;

		if (c->nexpert_load != m->experts)
			return ft_error_set(err, FT_EINVAL,
			                    "expert_load: expected one figure per routed expert (%u), "
			                    "got %u",
			                    m->experts, c->nexpert_load);
		for (i = 0; i < c->nexpert_load; i++)
			if (!(c->expert_load[i] >= 0 && isfinite(c->expert_load[i])))
				return ft_error_set(err, FT_EINVAL,
				                    "expert_load[%u]: expected a non-negative count, "
				                    "got %g",
				                    i, c->expert_load[i]);
	}
	if (c->replicas && (!c->place_by_heat || c->replicas > c->ep || c->ep < 2))
		return ft_error_set(err, FT_EINVAL,
		                    "replicas: expected up to ep (%u) hot experts copied, with "
		                    "placement by heat, got %u",
		                    c->ep, c->replicas);
	if (!(c->ep_overlap >= 0 && c->ep_overlap <= 1))
		return ft_error_set(err, FT_EINVAL, "ep_overlap: expected a share in [0, 1], got %g",
		                    c->ep_overlap);
	if (c->gemm_eff != 0 && !(c->gemm_eff > 0 && c->gemm_eff <= 1))
		return ft_error_set(err, FT_EINVAL, "gemm_eff: expected a share in (0, 1], got %g",
		                    c->gemm_eff);
	if (!(c->fp8_cast_bytes >= 0 && c->fp8_cast_bytes <= 64))
		return ft_error_set(err, FT_EINVAL,
		                    "fp8_cast_bytes: expected HBM bytes per element from 0 (the "
		                    "default, 4) to 64, got %g",
		                    c->fp8_cast_bytes);
	if (c->precision == FT_PRECISION_FP8 && !c->peak_tflops && !(spec->node.gpu_fp8_tflops > 0))
		return ft_error_set(err, FT_EINVAL,
		                    "precision: fp8: %s has no FP8 peak (gpu_fp8_tflops)",
		                    spec->node.gpu_model[0] ? spec->node.gpu_model : spec->name);
	return 0;
}

/* @x's spec with the NVLink domains group @pl spans as the model is to see them; NULL
 * when out of memory. */
static const struct ft_cluster_spec *
group_spec(struct ctx *x, const struct ft_plan_place *pl)
{
	uint32_t dn = model_domain_nodes(x->spec, pl), i;

	if (!dn)
		return x->spec;
	if (!x->dspec) {
		x->dspec = ft_malloc(sizeof(*x->dspec));
		if (!x->dspec)
			return NULL;
		*x->dspec = *x->spec;
	}
	x->dspec->node.nvlink_domain_nodes = dn;
	for (i = 0; i < x->dspec->ngroups && i < FT_SPEC_MAX_GROUPS; i++)
		x->dspec->groups[i].node.nvlink_domain_nodes = dn;
	return x->dspec;
}

/*
 * One collective of @bytes on @pl, reported as group @g's: the analytic model's time,
 * algorithm and bottleneck; with @ov, an engine's time for the same (group, op, bytes).
 */
static int
eval_op_at(struct ctx *x, enum ft_plan_group g, const struct ft_plan_place *pl, enum ft_op op,
           uint64_t bytes, const struct ft_plan_comm *ov, size_t nov, struct ft_plan_comm *out)
{
	const struct ft_cluster_spec *spec;
	struct ft_model_query q;
	struct ft_model_result r;
	int rc;

	out->group = g;
	out->op = op;
	out->bytes = bytes;
	out->wire_bytes = ft_plan_wire_bytes(op, bytes, pl->n);
	if (pl->n <= 1 || bytes == 0)
		return 0;
	ft_model_query_init(&q, op, bytes);
	q.ngpus = pl->n;
	q.nnodes = pl->nnodes;
	q.ppn = pl->ppn;
	/* with an engine, an algorithm it runs: no engine has NVLS across nodes (with
	 * CollNet), so the pick is the one `fabtune sim` makes (ft__sim_pick_algo()) */
	q.no_nvls_net = x->c->engine[0] && strcmp(x->c->engine, "analytic") != 0;
	q.cache = x->cache;
	spec = group_spec(x, pl);
	if (!spec)
		return ft_error_set(x->err, FT_ENOMEM, "out of memory for the %s group's spec",
		                    ft_plan_group_name(g));
	rc = ft_model_eval(spec, &q, &r, x->err);
	if (rc < 0) {
		ft_error_prefix(x->err, "%s group: ", ft_plan_group_name(g));
		return rc;
	}
	out->op_s = r.time_s;
	for (size_t i = 0; i < nov; i++)
		if (ov[i].group == g && ov[i].op == op && ov[i].bytes == bytes)
			out->op_s = ov[i].op_s;
	ft_strlcpy(out->algo, r.algo_label, sizeof(out->algo));
	ft_strlcpy(out->bottleneck, r.bottleneck, sizeof(out->bottleneck));
	return 0;
}

/* One collective of @bytes on group @g as the plan places it. */
static int
eval_op(struct ctx *x, enum ft_plan_group g, enum ft_op op, uint64_t bytes, struct ft_plan_comm *out)
{
	return eval_op_at(x, g, &x->p->place[g], op, bytes, x->ov, x->nov, out);
}

static struct ft_plan_comm *
add_comm(struct ft_plan *p, const struct ft_plan_comm *c, const char *what, uint64_t count)
{
	struct ft_plan_comm *d;

	if (p->ncomms >= FT_PLAN_MAX_COMMS || count == 0 || c->bytes == 0 ||
	    p->place[c->group].n <= 1)
		return NULL;
	d = &p->comms[p->ncomms++];
	*d = *c;
	ft_strlcpy(d->what, what, sizeof(d->what));
	d->count = count;
	d->total_s = (double)count * d->op_s;
	return d;
}

static int
place_groups(struct ctx *x)
{
	const struct ft_plan_config *c = x->c;
	uint32_t gpn = x->spec->node.ngpus, st[FT__DIM_COUNT], s_cp, s_pp, s_dp;
	struct ft_plan_place *pl = x->p->place;
	int g, rc;

	rc = ft__plan_strides(c, st, x->err);
	if (rc < 0)
		return rc;
	s_cp = st[FT__DIM_CP];
	s_pp = st[FT__DIM_PP];
	s_dp = st[FT__DIM_DP];
	ft__plan_place(c->tp, st[FT__DIM_TP], gpn, &pl[FT_GROUP_TP]);
	if (pl[FT_GROUP_TP].nnodes > 1)
		return ft_error_set(x->err, FT_EINVAL,
		                    "order: '%s' puts TP ranks %u apart, across nodes of %u GPUs: TP "
		                    "stays inside the NVLink domain",
		                    c->order, st[FT__DIM_TP], gpn);
	ft__plan_place(c->cp, s_cp, gpn, &pl[FT_GROUP_CP]);
	ft__plan_place(c->pp > 1 ? 2 : 1, s_pp, gpn, &pl[FT_GROUP_PP]);
	ft__plan_place(c->dp, s_dp, gpn, &pl[FT_GROUP_DP]);
	ft__plan_place(c->ep, s_dp, gpn, &pl[FT_GROUP_EP]);
	ft__plan_place(x->m->experts ? c->dp / c->ep : 1, s_dp * c->ep, gpn, &pl[FT_GROUP_EDP]);
	/* The dense parameters' DP group spans CP too (gradients are reduced over dp·cp). */
	if (c->cp > 1)
		ft__plan_place(c->dp * c->cp, FT_MIN(s_cp, s_dp), gpn, &pl[FT_GROUP_DP]);
	for (g = 0; g < FT_GROUP_COUNT; g++) {
		const char *w = pl[g].n <= 1                      ? "-" :
		                in_nvlink_domain(x->spec, &pl[g]) ? "nvlink" :
		                pl[g].nnodes == 1                 ? "pcie" :
		                                                    "fabric";
		ft_strlcpy(pl[g].crosses, w, sizeof(pl[g].crosses));
	}
	return 0;
}

/*
 * Micro-batches whose activations pipeline rank @r holds at its peak (TRAIN-PP,
 * TRAIN-MEM-ACT). 1F1B: the rank runs p - r - 1 warm-up forwards, then one more
 * before its first backward: min(m, p - r). Interleaved over v model chunks
 * (Megatron's order, which the timeline simulates): 2(p - r - 1) + (v - 1)p
 * warm-up forwards of one chunk each, plus one, never more than the m·v forwards
 * of the iteration; v chunks make one micro-batch of the stage's layers. For the
 * first rank and m >= p this is p(1 + (p - 1)/(p·v)), KORTHIKANTI22's figure; the
 * last rank of an interleaved pipeline holds nearly p too, not one.
 */
double
ft_plan_inflight(uint32_t pp, uint32_t vpp, uint32_t m, uint32_t r)
{
	double held;

	if (!pp || !m)
		return 0;
	r = FT_MIN(r, pp - 1);
	if (vpp <= 1)
		return FT_MIN((double)m, (double)(pp - r));
	held = 2.0 * (pp - r - 1) + (double)(vpp - 1) * pp + 1;
	return FT_MIN((double)m * vpp, held) / vpp;
}

/* Parameters per GPU of the busiest stage: dense (attention, dense FFN, embeddings) and expert. */
static void
local_params(struct ctx *x, uint32_t lstage, bool first, bool last, uint64_t *dense,
             uint64_t *expert)
{
	const struct ft_plan_model *m = x->m;
	const struct ft_plan_config *c = x->c;
	const struct ft_plan_params *pp = &x->p->params;
	uint32_t nmoe = ft__plan_moe_layers(m);
	uint32_t lmoe = (uint32_t)ceil((double)nmoe * lstage / m->layers);
	uint32_t ldense = lstage - FT_MIN(lmoe, lstage);
	uint64_t emb = (uint64_t)m->vocab * m->hidden, d;

	d = (uint64_t)lstage * pp->attn_layer + (uint64_t)ldense * pp->dense_mlp +
	    (uint64_t)lmoe * ((uint64_t)m->shared_experts * pp->expert + pp->router);
	if (first)
		d += emb;
	if (last && (!m->tied || c->pp > 1 || !first))
		d += emb;
	*dense = d / c->tp;
	/* A rank that holds a replicated hot expert holds one more (the busiest case). */
	*expert = (uint64_t)lmoe *
	          (m->experts / c->ep + (c->place_by_heat && c->ep > 1 && c->replicas ? 1 : 0)) *
	          pp->expert / c->tp;
}

static void
memory(struct ctx *x)
{
	const struct ft_plan_model *m = x->m;
	const struct ft_plan_config *c = x->c;
	struct ft_plan *p = x->p;
	uint32_t nmoe = ft__plan_moe_layers(m), st;
	double moe_share = (double)nmoe / m->layers;
	double act_layer = (1 - moe_share) * ft_plan_act_layer_bytes(m, c, false) +
	                   moe_share * ft_plan_act_layer_bytes(m, c, true);
	double tokens = (double)m->seq / c->cp * c->micro_batch;
	uint64_t best = 0;

	for (st = 0; st < (c->pp > 1 ? 2u : 1u); st++) {
		bool first = st == 0, last = st == 1 || c->pp == 1;
		struct ft_plan_memory mm = { 0 };
		uint64_t dense, expert, w1, g1, o1, w2, g2, o2;
		uint32_t layers = x->ledge; /* the first and the last stage's layers */
		double inflight, act;

		local_params(x, layers, first, last, &dense, &expert);
		ft_plan_states_bytes(dense, c->zero, c->dp * c->cp, c->optimizer, &w1, &g1, &o1);
		ft_plan_states_bytes(expert, c->zero, c->dp * c->cp / c->ep, c->optimizer, &w2, &g2,
		                     &o2);
		mm.params_local = dense + expert;
		mm.weights = w1 + w2;
		mm.grads = g1 + g2;
		mm.optimizer = o1 + o2;
		if (c->zero >= 3) /* two layers gathered at a time: the current and the prefetched */
			mm.weights += 2 * 2 * (dense + expert) / FT_MAX(layers, 1u);
		inflight = ft_plan_inflight(c->pp, c->vpp, p->m, first ? 0 : c->pp - 1);
		act = act_layer * layers * inflight;
		if (c->recompute == FT_RECOMPUTE_FULL) /* one layer's full set while recomputing */
			act += ft_plan_act_layer_bytes(m, &(struct ft_plan_config){ .cp = c->cp,
			                     .tp = c->tp, .sp = c->sp, .micro_batch = c->micro_batch,
			                     .flash_attn = c->flash_attn }, nmoe > 0);
		if (last) /* fp32 logits of one micro-batch for the loss */
			act += 4.0 * tokens * m->vocab / c->tp;
		mm.activations = u64(act);
		mm.act_per_layer = act_layer;
		mm.inflight = inflight;
		mm.comm_buffers = 2 * (c->bucket_bytes ? c->bucket_bytes : MB25);
		if (c->ep > 1)
			mm.comm_buffers += u64(2 * 2 * tokens / c->tp * m->topk * m->hidden *
			                         FT_MAX(m->capacity, 1.0));
		if (c->pp > 1)
			mm.comm_buffers += u64(2 * 2 * tokens * m->hidden / c->tp);
		mm.reserve = c->reserve_bytes ? c->reserve_bytes : GIB3;
		mm.total = mm.weights + mm.grads + mm.optimizer + mm.activations + mm.comm_buffers +
		           mm.reserve;
		mm.capacity = u64(x->spec->node.gpu_mem_GB * 1e9);
		mm.fits = mm.total <= mm.capacity;
		mm.stage = first ? 0 : c->pp - 1;
		if (mm.total >= best) {
			best = mm.total;
			p->mem = mm;
		}
	}
}

/* ---- compute per micro-batch on the busiest stage (TRAIN-FLOPS, TRAIN-GPU) ---- */
static int
passes(struct ctx *x)
{
	const struct ft_plan_model *m = x->m;
	const struct ft_plan_config *c = x->c;
	const struct ft_plan_params *pp = &x->p->params;
	const struct ft_node_spec *node = &x->spec->node;
	struct ft_plan *out = x->p;
	bool fp8 = c->precision == FT_PRECISION_FP8;
	double mlp, gemm_layer, fwd_layer, logits, rate, rate16, cast_elems = 0;
	int rc;

	out->peak_Fps = 1e12 * (c->peak_tflops ? c->peak_tflops :
	                        fp8                ? node->gpu_fp8_tflops :
	                                             node->gpu_tflops);
	x->c->gemm_eff = c->gemm_eff ? c->gemm_eff : node->gpu_gemm_eff > 0 ? node->gpu_gemm_eff : 0.5;
	out->achieved_Fps = rate = out->peak_Fps * c->gemm_eff;
	/* What stays in BF16 under FP8 runs at the 16-bit rate: half the FP8 one on every GPU
	 * with FP8 tensor cores (TRAIN-GPU), whatever overrides the peak. */
	rate16 = fp8 ? rate / 2 : rate;
	x->attn_rate = fp8 && !c->fp8_attention ? rate16 : rate;
	out->flops_per_token = ft_plan_flops_per_token(m);
	out->model_flops = out->flops_per_token * (double)c->global_batch * m->seq;
	mlp = (1 - x->moe_share) * (double)pp->dense_mlp +
	      x->moe_share * ((double)(m->topk + m->shared_experts) * pp->expert + (double)pp->router);
	x->attn_core = 4.0 * x->tok_gpu * m->seq * m->heads * ft__plan_head_dim(m) / c->tp;
	gemm_layer = 2.0 * x->tok_gpu * ((double)pp->attn_layer + mlp) / c->tp;
	out->moe.max_load = 1;
	if (x->moe_share > 0 && c->ep > 1) {
		rc = ft__plan_moe_skew(&out->moe, m, c);
		if (rc < 0)
			return ft_error_set(x->err, rc, "moe: out of memory");
	}
	/* The hottest EP rank computes max_load × its share of the routed experts. */
	if (out->moe.max_load > 1)
		gemm_layer += x->moe_share * 2.0 * x->tok_gpu * m->topk * (double)pp->expert / c->tp *
		              (out->moe.max_load - 1);
	/* Time of one layer's forward at the matrix rate: the attention core and (below) the
	 * logits at theirs. */
	fwd_layer = gemm_layer + x->attn_core * rate / x->attn_rate;
	logits = 2.0 * x->tok_gpu * m->hidden * m->vocab / c->tp * rate / rate16;
	if (fp8) {
		/* Elements per token cast to FP8 in one layer's forward: the inputs of the QKV,
		 * projection, FC1 and FC2 GEMMs (MoE: each active expert's FC1 and FC2). */
		double f_moe = m->moe_ffn ? m->moe_ffn : m->ffn, k = m->topk + m->shared_experts;

		cast_elems = (double)m->hidden + (double)m->heads * ft__plan_head_dim(m) +
		             (1 - x->moe_share) * ((double)m->hidden + m->ffn) +
		             x->moe_share * k * ((double)m->hidden + f_moe);
		cast_elems *= x->tok_gpu / c->tp;
	}
	/* The memory-bound kernels between the matrix products (norms, activation functions,
	 * dropout, residual adds, rotary embeddings, casts) write each activation byte a layer
	 * keeps (TRAIN-MEM-ACT, without recomputation) and read it back once: two passes over
	 * those bytes through HBM. */
	{
		struct ft_plan_config kept = *c;
		double hbm = c->hbm_Bps ? c->hbm_Bps : node->gpu_hbm_Bps > 0 ? node->gpu_hbm_Bps : 2e12;
		double bytes;

		kept.recompute = FT_RECOMPUTE_NONE;
		kept.flash_attn = true;
		bytes = (1 - x->moe_share) * ft_plan_act_layer_bytes(m, &kept, false) +
		        x->moe_share * ft_plan_act_layer_bytes(m, &kept, true);
		out->elem_s = x->lstage * ELEM_PASSES * bytes / hbm;
		/* FP8 casts, forward; the backward's (the output gradients) count twice as the
		 * rest of the backward does. */
		out->fp8_cast_s = x->lstage * cast_elems *
		                  (c->fp8_cast_bytes > 0 ? c->fp8_cast_bytes : FP8_CAST_BYTES) / hbm;
		out->elem_s += out->fp8_cast_s;
	}
	out->fwd_s = (x->lstage * fwd_layer + (c->pp == 1 ? logits : 0)) / rate + out->elem_s;
	if (c->pp > 1) /* the last stage also computes the logits */
		out->fwd_s = FT_MAX(out->fwd_s, ((x->lstage - 1) * fwd_layer + logits) / rate +
		                                        out->elem_s * (x->lstage - 1) / x->lstage);
	out->bwd_s = 2 * out->fwd_s;
	out->recompute_s = c->recompute == FT_RECOMPUTE_FULL      ? out->fwd_s :
	                   c->recompute == FT_RECOMPUTE_SELECTIVE ? x->lstage * x->attn_core / x->attn_rate :
	                                                            0;
	out->hw_flops = out->model_flops * (1 + out->recompute_s / (3 * out->fwd_s));
	x->t_mb0 = out->fwd_s + out->bwd_s + out->recompute_s;
	return 0;
}

/* ---- communications per micro-batch: TP, CP, EP, PP (TRAIN-COMM) ---- */
static int
micro_batch_comms(struct ctx *x)
{
	const struct ft_plan_model *m = x->m;
	const struct ft_plan_config *c = x->c;
	struct ft_plan *out = x->p;
	uint64_t act_bytes = u64(x->tok_gpu * m->hidden * 2), L = x->lstage, k = x->k;
	struct ft_plan_comm op;
	int rc;

	if (c->tp > 1) { /* 2 per layer per pass (TRAIN-COMM TP) */
		static const enum ft_op sp_ops[] = { FT_OP_ALL_GATHER, FT_OP_REDUCE_SCATTER };
		size_t i, n = c->sp ? 2 : 1;

		for (i = 0; i < n; i++) {
			rc = eval_op(x, FT_GROUP_TP, c->sp ? sp_ops[i] : FT_OP_ALL_REDUCE, act_bytes, &op);
			if (rc < 0)
				return rc;
			add_comm(out, &op, c->sp ? "layer fwd/bwd (SP)" : "layer fwd/bwd",
			         L * out->m * 2 * k);
			x->tp_f += 2.0 * k * L * op.op_s;
		}
	}
	if (c->cp > 1) {
		/* Ring attention: cp-1 exchanges of the local K and V block per pass; the backward
		 * pass moves K, V and their gradients: 2 forward passes' worth. */
		uint64_t kv = u64(x->tok_gpu * 2 * ft__plan_kv_heads(m) * ft__plan_head_dim(m) * 2 /
		                  c->tp);

		rc = eval_op(x, FT_GROUP_CP, FT_OP_SENDRECV, kv, &op);
		if (rc < 0)
			return rc;
		add_comm(out, &op, "ring attention K/V", L * out->m * (c->cp - 1) * (k + 1));
		x->cp_f = (double)L * (c->cp - 1) * (k + 1) * op.op_s;
	}
	if (x->moe_share > 0 && c->ep > 1) {
		/* Dispatch and combine per MoE layer per pass (TRAIN-COMM EP); each TP rank sends
		 * its 1/tp of the tokens; FP8 training dispatches FP8. */
		uint64_t lmoe = (uint64_t)ceil(x->moe_share * L);
		double elem = c->precision == FT_PRECISION_FP8 ? 1 : 2;
		uint64_t a2a = u64(x->tok_gpu / c->tp * m->topk * m->hidden * elem);

		rc = eval_op(x, FT_GROUP_EP, FT_OP_ALLTOALL, a2a, &op);
		if (rc < 0)
			return rc;
		out->moe.a2a_uniform_s = op.op_s;
		op.op_s *= out->moe.max_load; /* the slowest rank receives max_load × the mean */
		out->moe.a2a_s = op.op_s;
		add_comm(out, &op, "MoE dispatch+combine", lmoe * out->m * 2 * k);
		x->ep_f = 2.0 * k * lmoe * op.op_s;
	}
	if (c->pp > 1) { /* one send forward, one backward, per virtual stage (÷ t with SP) */
		rc = eval_op(x, FT_GROUP_PP, FT_OP_SENDRECV, c->sp ? act_bytes / c->tp : act_bytes, &op);
		if (rc < 0)
			return rc;
		add_comm(out, &op, "stage activations", (uint64_t)out->m * 2 * c->vpp);
		out->p2p_s = 2.0 * c->vpp * op.op_s;
	}
	/* With TP overlap the collectives run under the GEMMs they feed (chunked as Megatron's
	 * and Transformer Engine's userbuffer overlap does): only what exceeds them waits. */
	out->tp_exposed_s = c->tp_overlap ? FT_MAX(0.0, x->tp_f - x->t_mb0) : x->tp_f;
	out->cp_exposed_s = FT_MAX(0.0, x->cp_f - L * x->attn_core * (k + 1) / x->attn_rate);
	out->ep_exposed_s = (1 - c->ep_overlap) * x->ep_f;
	return 0;
}

/*
 * A hot expert with a second copy (--replicas) has its gradients in two places of the EP
 * group: once each copy's EDP reduction is done, the two copies all-reduce them, so both
 * step with the sum of all their tokens' gradients. The busiest rank holds one replicated
 * expert per MoE layer of its stage (moe.c puts at most one extra copy on a rank); with
 * ZeRO >= 1 the EDP reduce-scatter has left it a 1/n_edp shard, and the two copies' shards
 * line up, so only the shard moves. The pair is two ranks of the EP group: in one node
 * when the group is, else on two nodes. It runs after the backward pass, the last of the
 * reductions, fully exposed; it is analytic under every engine.
 */
static int
replica_comms(struct ctx *x)
{
	const struct ft_plan_config *c = x->c;
	const struct ft_plan_model *m = x->m;
	struct ft_plan *out = x->p;
	const struct ft_plan_place *ep = &out->place[FT_GROUP_EP];
	struct ft_plan_place pair;
	struct ft_plan_comm op, *d;
	uint32_t lmoe, gpn = x->spec->node.ngpus;
	double bytes;
	int rc;

	if (!c->replicas || !c->place_by_heat || c->ep < 2 || x->moe_share <= 0)
		return 0;
	lmoe = (uint32_t)ceil((double)ft__plan_moe_layers(m) * x->ledge / m->layers);
	bytes = 2.0 * lmoe * (double)out->params.expert / c->tp; /* bf16 gradients */
	if (c->zero >= 1)
		bytes /= FT_MAX(out->place[FT_GROUP_EDP].n, 1u);
	ft__plan_place(2, ep->nnodes == 1 ? ep->stride : gpn, gpn, &pair);
	rc = eval_op_at(x, FT_GROUP_EP, &pair, FT_OP_ALL_REDUCE, u64(bytes), NULL, 0, &op);
	if (rc < 0)
		return rc;
	op.wire_bytes = ft_plan_wire_bytes(FT_OP_ALL_REDUCE, op.bytes, 2);
	d = add_comm(out, &op, "replica gradients", 1);
	if (d)
		d->exposed_s = d->total_s;
	return 0;
}

/*
 * ---- data-parallel reductions of the dense (DP) and expert (EDP) gradients ----
 * Buckets reduce under the last micro-batch's backward pass, the last one
 * only after it; the updated weights gather under the next iteration's first
 * forward pass. FSDP (ZeRO-3) gathers each layer's weights forward and
 * backward and scatters its gradients every micro-batch, one layer ahead.
 */
static int
dp_comms(struct ctx *x)
{
	const struct ft_plan_config *c = x->c;
	struct ft_plan *out = x->p;
	uint64_t dense_l, expert_l, bucket = c->bucket_bytes ? c->bucket_bytes : MB25;
	double window_b = out->bwd_s + out->recompute_s, window_f = out->fwd_s;
	double per_layer = x->t_mb0 / (x->k + 1) / x->lstage, L = x->lstage, mm = out->m, k = x->k;
	struct ft_plan_comm op, *d;
	int i, rc;

	local_params(x, x->ledge, true, c->pp == 1, &dense_l, &expert_l);
	for (i = 0; i < 2; i++) {
		enum ft_plan_group g = i ? FT_GROUP_EDP : FT_GROUP_DP;
		double bytes = 2.0 * (double)(i ? expert_l : dense_l); /* bf16 gradients */
		uint64_t nb, b;

		if (out->place[g].n <= 1 || bytes <= 0)
			continue;
		if (c->zero >= 3) {
			b = u64(bytes / L);
			rc = eval_op(x, g, FT_OP_ALL_GATHER, b, &op);
			if (rc < 0)
				return rc;
			d = add_comm(out, &op, "FSDP weight gather", (uint64_t)(L * mm * k));
			if (d)
				d->exposed_s = mm * L * k * FT_MAX(0.0, op.op_s - per_layer);
			rc = eval_op(x, g, FT_OP_REDUCE_SCATTER, b, &op);
			if (rc < 0)
				return rc;
			d = add_comm(out, &op, "FSDP gradient scatter", (uint64_t)(L * mm));
			if (d)
				d->exposed_s = mm * L * FT_MAX(0.0, op.op_s - 2 * per_layer);
			continue;
		}
		nb = u64(ceil(bytes / (double)bucket));
		b = u64(bytes / (double)nb);
		rc = eval_op(x, g, c->zero == 0 ? FT_OP_ALL_REDUCE : FT_OP_REDUCE_SCATTER, b, &op);
		if (rc < 0)
			return rc;
		d = add_comm(out, &op, "gradient buckets", nb);
		if (d)
			d->exposed_s = c->dp_overlap ? FT_MAX(op.op_s, d->total_s - window_b) : d->total_s;
		if (c->zero == 0)
			continue;
		rc = eval_op(x, g, FT_OP_ALL_GATHER, b, &op);
		if (rc < 0)
			return rc;
		d = add_comm(out, &op, "updated weights", nb);
		if (d)
			d->exposed_s = c->dp_overlap ? FT_MAX(op.op_s, d->total_s - window_f) : d->total_s;
	}
	return replica_comms(x);
}

/* ---- the schedule (TRAIN-PP), the iteration and what the network costs ---- */
static void
iteration(struct ctx *x)
{
	const struct ft_plan_config *c = x->c;
	const struct ft_cluster_spec *spec = x->spec;
	struct ft_plan *out = x->p;
	double t_mb, n_slots, hbm;
	size_t i, best = 0;

	t_mb = x->t_mb0 + out->tp_exposed_s + out->cp_exposed_s + out->ep_exposed_s + out->p2p_s;
	n_slots = out->m + (c->pp - 1.0) / c->vpp;
	out->pipeline_s = n_slots * t_mb;
	out->bubble_s = (c->pp - 1.0) / c->vpp * t_mb;
	out->bubble_share = out->bubble_s / out->pipeline_s;
	for (i = 0; i < out->ncomms; i++) {
		struct ft_plan_comm *cm = &out->comms[i];

		if (cm->group == FT_GROUP_TP)
			cm->exposed_s = x->tp_f > 0 ? cm->total_s * out->tp_exposed_s / x->tp_f : 0;
		else if (cm->group == FT_GROUP_CP)
			cm->exposed_s = x->cp_f > 0 ? cm->total_s * out->cp_exposed_s / x->cp_f : 0;
		else if (cm->group == FT_GROUP_EP && cm->op == FT_OP_ALL_REDUCE)
			out->dp_exposed_s += cm->exposed_s; /* replica gradients, after the backward */
		else if (cm->group == FT_GROUP_EP)
			cm->exposed_s = cm->total_s * (1 - c->ep_overlap);
		else if (cm->group == FT_GROUP_PP)
			cm->exposed_s = cm->total_s;
		else
			out->dp_exposed_s += cm->exposed_s;
		out->comm_total_s += cm->total_s;
		out->comm_exposed_s += cm->exposed_s;
	}
	hbm = c->hbm_Bps ? c->hbm_Bps : spec->node.gpu_hbm_Bps > 0 ? spec->node.gpu_hbm_Bps : 2e12;
	out->optimizer_s = OPT_BYTES_PER_PARAM * (double)out->mem.params_local /
	                   (c->zero >= 1 ? (double)c->dp * c->cp : 1.0) / hbm;
	out->iter_s = out->pipeline_s + out->dp_exposed_s + out->optimizer_s;
	out->iter_nocomm_s = n_slots * x->t_mb0 + out->optimizer_s;
	out->overlap = out->comm_total_s > 0 ?
	                       FT_MAX(0.0, 1 - out->comm_exposed_s / out->comm_total_s) : 1;
	out->tokens_per_s = (double)c->global_batch * x->m->seq / out->iter_s;
	out->mfu = out->model_flops / (out->iter_s * out->ngpus * out->peak_Fps);
	out->hfu = out->hw_flops / (out->iter_s * out->ngpus * out->peak_Fps);
	out->tflops_per_gpu = out->model_flops / (out->iter_s * out->ngpus) / 1e12;
	out->comm_share = 1 - out->iter_nocomm_s / out->iter_s;
	out->gpus_worth = out->comm_share * out->ngpus;
	out->servers_worth = out->gpus_worth / spec->node.ngpus;
	{
		/* The largest loss over 5% of the iteration, else compute. */
		const struct { const char *name; double s; } loss[] = {
			{ "compute", 0 },
			{ "bubble", out->bubble_s },
			{ "tp", out->tp_exposed_s * n_slots },
			{ "cp", out->cp_exposed_s * n_slots },
			{ "ep", out->ep_exposed_s * n_slots },
			{ "pp", out->p2p_s * n_slots },
			{ "dp", out->dp_exposed_s },
		};

		for (i = 1; i < FT_ARRAY_SIZE(loss); i++)
			if (loss[i].s > 0.05 * out->iter_s && loss[i].s > loss[best].s)
				best = i;
		ft_strlcpy(out->bottleneck, out->mem.fits ? loss[best].name : "memory",
		           sizeof(out->bottleneck));
	}
}

static int
compute(const struct ft_cluster_spec *spec, const struct ft_plan_model *model,
        const struct ft_plan_config *cfg, struct ft_plan *out, const struct ft_plan_comm *ov,
        size_t nov, struct ft_model_cache *cache, struct ft_error *err)
{
	struct ctx x = { .spec = spec, .p = out, .err = err, .ov = ov, .nov = nov, .cache = cache };
	int rc;

	memset(out, 0, sizeof(*out));
	out->model = *model;
	out->cfg = *cfg;
	x.m = &out->model;
	x.c = &out->cfg;
	rc = ft_plan_model_validate(x.m, err);
	if (rc == 0)
		rc = check_config(spec, x.m, x.c, &out->ngpus, err);
	if (rc < 0)
		return rc;
	ft_plan_model_params(x.m, &out->params);
	out->m = (uint32_t)(x.c->global_batch / ((uint64_t)x.c->dp * x.c->micro_batch));
	x.moe_share = (double)ft__plan_moe_layers(x.m) / x.m->layers;
	/* Uneven splits put the extra layers on some stages: the busiest has ceil(l/p). With
	 * pp_balance the embedding and the output layer count as one layer each and the
	 * first and last stages hold one transformer layer fewer: the Llama 3 report's
	 * 126 layers on 16 stages are 7, 8 x 14, 7. */
	x.lstage = (x.m->layers + x.c->pp - 1) / x.c->pp;
	x.ledge = x.lstage;
	if (x.c->pp_balance && x.c->pp > 1) {
		x.lstage = (x.m->layers + 2 + x.c->pp - 1) / x.c->pp;
		x.ledge = x.lstage - 1;
	}
	x.tok_gpu = (double)x.m->seq * x.c->micro_batch / x.c->cp;
	x.k = x.c->recompute == FT_RECOMPUTE_FULL ? 3 : 2;
	rc = place_groups(&x);
	if (rc < 0)
		return rc;
	memory(&x);
	rc = passes(&x);
	if (rc == 0)
		rc = micro_batch_comms(&x);
	if (rc == 0)
		rc = dp_comms(&x);
	ft_free(x.dspec);
	if (rc < 0)
		return rc;
	iteration(&x);
	return 0;
}

/*
 * The engine's times: each communication of the analytic plan runs on the
 * engine alone (all instances of its group at once), then the first
 * operation of every group runs together with the others' (a backward
 * micro-batch's TP, CP, EP and PP traffic meeting the gradient buckets);
 * each group's contention factor (together / alone) scales its operations'
 * alone times. The plan is then made again with these times.
 */
static int
engine_times(struct ft_plan_engine *pe, struct ft_plan *p, struct ft_plan_comm *ov,
             struct ft_error *err)
{
	double alone[FT_PLAN_MAX_COMMS] = { 0 }, together[FT_PLAN_MAX_COMMS] = { 0 };
	double factor[FT_GROUP_COUNT];
	size_t i;
	int g, rc;

	for (i = 0; i < p->ncomms; i++) {
		const struct ft_plan_comm *c = &p->comms[i];
		enum ft_algo algo;

		if (ft_algo_from_name(c->algo, &algo) < 0)
			algo = ft_coll_default_algo(c->op);
		rc = ft__plan_engine_time(pe, &p->cfg, c->group, &p->place[c->group], c->op, algo,
		                          ft_collnet_variant_from_name(c->algo), c->bytes, &alone[i],
		                          err);
		if (rc < 0)
			return rc;
	}
	rc = ft__plan_engine_together(pe, &p->cfg, p, together, err);
	if (rc < 0)
		return rc;
	for (g = 0; g < FT_GROUP_COUNT; g++)
		factor[g] = 1;
	for (i = 0; i < p->ncomms; i++)
		if (together[i] > 0 && alone[i] > 0)
			factor[p->comms[i].group] = FT_MAX(1.0, together[i] / alone[i]);
	for (i = 0; i < p->ncomms; i++) {
		ov[i] = p->comms[i];
		ov[i].op_s = alone[i] * factor[p->comms[i].group];
	}
	return 0;
}

int
ft__plan_compute(const struct ft_cluster_spec *spec, const struct ft_plan_model *model,
                 const struct ft_plan_config *cfg, struct ft_plan *out,
                 struct ft_model_cache *cache, struct ft_error *err)
{
	struct ft_plan_engine pe = { .spec = spec };
	struct ft_plan_comm ov[FT_PLAN_MAX_COMMS];
	size_t nov;
	int rc;

	if (!cfg->engine[0] || strcmp(cfg->engine, "analytic") == 0)
		return compute(spec, model, cfg, out, NULL, 0, cache, err);
	/* The simulator's own "analytic" and "ideal" engines leave out what the planner
	 * asks of one (contention between groups): flow and packet only. */
	pe.ops = strcmp(cfg->engine, "flow") == 0 || strcmp(cfg->engine, "packet") == 0 ?
	                 ft_sim_engine_find(cfg->engine) :
	                 NULL;
	if (!pe.ops) {
		memset(out, 0, sizeof(*out));
		return ft_error_set(err, FT_EINVAL,
		                    "engine: expected analytic, flow or packet, got '%s'",
		                    cfg->engine);
	}
	rc = compute(spec, model, cfg, out, NULL, 0, cache, err);
	if (rc < 0)
		return rc;
	ft_vec_init(&pe.keep, sizeof(uint32_t *));
	nov = out->ncomms;
	rc = engine_times(&pe, out, ov, err);
	ft__plan_engine_drop_keep(&pe);
	ft_vec_release(&pe.keep);
	ft_topo_free(pe.topo);
	if (rc == 0)
		rc = compute(spec, model, cfg, out, ov, nov, cache, err);
	if (rc < 0)
		memset(out, 0, sizeof(*out));
	return rc;
}

int
ft_plan_compute(const struct ft_cluster_spec *spec, const struct ft_plan_model *model,
                const struct ft_plan_config *cfg, struct ft_plan *out, struct ft_error *err)
{
	return ft__plan_compute(spec, model, cfg, out, NULL, err);
}

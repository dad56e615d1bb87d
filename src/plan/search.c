/* SPDX-License-Identifier: MIT */
/*
 * plan/search.c - the search over parallel configurations: every TP, CP,
 * PP (with interleaving), EP, micro-batch, ZeRO stage and recomputation
 * mode that divides the GPUs, layers, heads and batch; the ones that fit in
 * memory are ranked by tokens/s, ties broken by less memory, then by the
 * enumeration order (deterministic). Each parallel layout (TP, CP, PP, VPP,
 * EP, micro-batch, and whether PP or DP varies faster) appears once, with
 * its best ZeRO stage and recomputation.
 */
#include "plan_int.h"

#include <string.h>

struct top {
	struct ft_plan_search_row *rows;
	size_t n, cap;
};

static void
keep(struct top *t, const struct ft_plan *p)
{
	struct ft_plan_search_row r;
	size_t i;

	memset(&r, 0, sizeof(r));
	r.cfg = p->cfg;
	r.tokens_per_s = p->tokens_per_s;
	r.mfu = p->mfu;
	r.iter_s = p->iter_s;
	r.mem_bytes = p->mem.total;
	ft_strlcpy(r.bottleneck, p->bottleneck, sizeof(r.bottleneck));
	/* One row per parallel layout: the best ZeRO stage and recomputation for it. */
	for (i = 0; i < t->n; i++) {
		const struct ft_plan_config *q = &t->rows[i].cfg;

		if (q->tp == r.cfg.tp && q->cp == r.cfg.cp && q->pp == r.cfg.pp &&
		    q->vpp == r.cfg.vpp && q->ep == r.cfg.ep && q->micro_batch == r.cfg.micro_batch &&
		    strcmp(q->order, r.cfg.order) == 0) {
			if (t->rows[i].tokens_per_s > r.tokens_per_s ||
			    (t->rows[i].tokens_per_s == r.tokens_per_s &&
			     t->rows[i].mem_bytes <= r.mem_bytes))
				return;
			memmove(&t->rows[i], &t->rows[i + 1], (t->n - 1 - i) * sizeof(r));
			t->n--;
			break;
		}
	}
	for (i = t->n; i > 0; i--) {
		const struct ft_plan_search_row *q = &t->rows[i - 1];

		if (q->tokens_per_s > r.tokens_per_s ||
		    (q->tokens_per_s == r.tokens_per_s && q->mem_bytes <= r.mem_bytes))
			break;
	}
	if (i >= t->cap)
		return;
	if (t->n < t->cap)
		t->n++;
	memmove(&t->rows[i + 1], &t->rows[i], (t->n - 1 - i) * sizeof(r));
	t->rows[i] = r;
}

/*
 * Whether @m splits into @tp tensor-parallel and @cp context-parallel ranks: the heads and
 * the KV heads by TP, the sequence by CP, and by TP too where @sp (sequence parallelism
 * shards the sequence over the TP ranks between the tensor-parallel regions). The
 * planner's own rules (compute.c check_config(), the only check that reads sp); a layout
 * they rule out is not one the search tries, as one whose stages or batch do not divide.
 */
static bool
model_splits(const struct ft_plan_model *m, uint32_t tp, uint32_t cp, bool sp)
{
	return m->heads % tp == 0 && ft__plan_kv_heads(m) % tp == 0 &&
	       m->seq % (cp * (sp ? tp : 1)) == 0;
}

/* @c refused by the planner for @e: counted, the first kept with its error. */
static void
note_failure(struct ft_plan_search_failures *f, const struct ft_plan_config *c,
             const struct ft_error *e)
{
	if (f->n++ == 0) {
		f->first = *c;
		f->first_err = *e;
	}
}

int
ft_plan_search(const struct ft_cluster_spec *spec, const struct ft_plan_model *m,
               const struct ft_plan_config *base, const struct ft_plan_search_opts *o,
               struct ft_plan_search_row **rows, size_t *nrows, size_t *nevaluated, size_t *nfit,
               struct ft_plan_search_failures *failed, struct ft_error *err)
{
	static const uint32_t mbs[] = { 1, 2, 4, 8 };
	static const uint32_t vpps[] = { 1, 2, 3, 4, 6, 8 };
	/* PP across nodes and DP inside them, or the reverse (EP groups are DP ranks). */
	static const char *const orders[] = { "tp-cp-pp-dp", "tp-cp-dp-pp" };
	struct top t = { 0 };
	uint32_t ngpus, tp, cp, pp, ep, zero, rc_mode, cpmax;
	size_t imb, iv, io, tried = 0, fit = 0;
	struct ft_plan_search_failures fails;
	struct ft_error e = { 0 };
	struct ft_model_cache *cache;
	struct ft_plan *p;
	int rc = 0;

	*rows = NULL;
	*nrows = *nevaluated = *nfit = 0;
	memset(&fails, 0, sizeof(fails));
	if (failed)
		*failed = fails;
	rc = ft_plan_model_validate(m, err);
	if (rc < 0)
		return rc;
	ngpus = base->ngpus ? base->ngpus : (uint32_t)FT_MIN(ft_spec_ngpus(spec), (uint64_t)UINT32_MAX);
	t.cap = o && o->top ? o->top : 10;
	t.rows = ft_calloc(t.cap + 1, sizeof(*t.rows));
	p = ft_malloc(sizeof(*p));
	if (!t.rows || !p) {
		ft_free(t.rows);
		ft_free(p);
		return ft_error_set(err, FT_ENOMEM, "search: out of memory");
	}
	/* the configurations' all-to-alls and send/recvs on the same nodes share their
	 * in-node links: each node and job shape laid out once; without memory for the
	 * cache each query lays them out, as ft_model_sweep() does, with the same rows */
	cache = ft_model_cache_new();
	cpmax = m->seq >= 32768 ? 16 : m->seq >= 16384 ? 2 : 1;
	for (tp = 1; tp <= spec->node.ngpus; tp *= 2)
	for (cp = 1; cp <= cpmax; cp *= 2)
	for (pp = 1; pp <= m->layers; pp++) {
		uint64_t rep = (uint64_t)tp * cp * pp;
		/* sequence parallelism with TP, unless the base turns it off (--no-sp):
		 * Megatron-LM turns it off without TP (megatron/training/arguments.py
		 * validate_args(): sequence_parallel = False where
		 * tensor_model_parallel_size == 1) */
		bool sp = base->sp && tp > 1;
		uint32_t dp;

		if (ngpus % rep || !model_splits(m, tp, cp, sp))
			continue;
		dp = (uint32_t)(ngpus / rep);
		for (ep = 1; ep <= (m->experts ? FT_MIN(m->experts, dp) : 1); ep++) {
			if (m->experts && (m->experts % ep || dp % ep))
				continue;
			/* hot experts copied (--replicas with --place-by-heat): up to EP of
			 * them, on EP 2 at least (check_config()); a layout of fewer EP ranks
			 * is not one the search tries, as one whose experts do not divide */
			if (base->replicas && base->place_by_heat && (ep < 2 || base->replicas > ep))
				continue;
			for (io = 0; io < FT_ARRAY_SIZE(orders); io++)
			for (imb = 0; imb < FT_ARRAY_SIZE(mbs); imb++)
			for (iv = 0; iv < FT_ARRAY_SIZE(vpps); iv++)
			for (zero = 0; zero <= 3; zero++)
			for (rc_mode = 0; rc_mode < FT_RECOMPUTE_COUNT; rc_mode++) {
				struct ft_plan_config c = *base;

				if (o && o->fixed_mb && mbs[imb] != base->micro_batch)
					continue;
				if (o && o->fixed_zero && zero != base->zero)
					continue;
				if (o && o->fixed_recompute && rc_mode != base->recompute)
					continue;
				if (pp == 1 && vpps[iv] > 1)
					continue;
				/* The order only matters when both PP and DP have more than one rank. */
				if (io > 0 && (pp == 1 || dp == 1))
					continue;
				if (o && o->fixed_order && io > 0)
					continue;
				if (vpps[iv] > 1 && m->layers % (pp * vpps[iv]))
					continue;
				c.tp = tp;
				c.cp = cp;
				c.pp = pp;
				c.dp = dp;
				c.ep = ep;
				c.vpp = vpps[iv];
				c.micro_batch = mbs[imb];
				c.zero = zero;
				c.recompute = rc_mode;
				c.sp = sp;
				c.ngpus = ngpus;
				if (!(o && o->fixed_order))
					ft_strlcpy(c.order, orders[io], sizeof(c.order));
				if (c.global_batch % ((uint64_t)dp * c.micro_batch))
					continue;
				/* the interleaved schedule runs micro-batches in groups of pp
				 * (Megatron-LM megatron/core/pipeline_parallel/schedules.py
				 * forward_backward_pipelining_with_interleaving(); check_config()) */
				if (c.vpp > 1 &&
				    (c.global_batch / ((uint64_t)dp * c.micro_batch)) % pp)
					continue;
				memset(&e, 0, sizeof(e));
				rc = ft__plan_compute(spec, m, &c, p, cache, &e);
				/* out of memory ends the search: its rows would leave out
				 * configurations as if they did not exist */
				if (rc == FT_ENOMEM)
					goto out;
				if (rc < 0) {
					note_failure(&fails, &c, &e);
					rc = 0;
					continue;
				}
				tried++;
				if (!p->mem.fits)
					continue;
				fit++;
				keep(&t, p);
			}
		}
	}
out:
	ft_free(p);
	ft_model_cache_free(cache);
	if (rc < 0) {
		ft_free(t.rows);
		if (err)
			*err = e;
		ft_error_prefix(err, "search: ");
		return rc;
	}
	*rows = t.rows;
	*nrows = t.n;
	*nevaluated = tried;
	*nfit = fit;
	if (failed)
		*failed = fails;
	return 0;
}

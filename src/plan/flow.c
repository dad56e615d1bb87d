/* SPDX-License-Identifier: MIT */
/*
 * plan/flow.c - communication times from a simulation engine: every
 * instance of a parallel group runs its collective at the same time on the
 * cluster's topology (all the TP groups' all-gathers at once, all the DP
 * groups' buckets at once, every stage boundary's send at once), so groups
 * that share NICs, leaves or spines contend as they do in the job; the
 * op's time is the makespan of the run. A second run puts the first
 * operation of every group on the engine at the same time (TP, CP, EP and
 * PP traffic meeting the gradient buckets), and each operation's time is
 * the slowest of its instances there. Every operation is made ready as
 * `fabtune sim` makes it (sim/prep.h: NCCL's link rates, the tuner's
 * protocol, channels, efficiency and caps), so one instance alone takes
 * the sim's time for it.
 *
 * Ranks follow the plan's order: rank = Σ coordinate × stride (ft__plan_strides()).
 */
#include "plan_int.h"
#include "sim/prep.h"

#include <fabtune/sim.h>
#include <fabtune/topo.h>

struct layout {
	uint32_t tp, cp, pp, dp, ep;
	uint32_t st[FT__DIM_COUNT];
};

static void
coords(const struct layout *L, uint32_t r, uint32_t *t, uint32_t *c, uint32_t *p, uint32_t *d)
{
	*t = r / L->st[FT__DIM_TP] % L->tp;
	*c = r / L->st[FT__DIM_CP] % L->cp;
	*p = r / L->st[FT__DIM_PP] % L->pp;
	*d = r / L->st[FT__DIM_DP] % L->dp;
}

static uint32_t
rank_of(const struct layout *L, uint32_t t, uint32_t c, uint32_t p, uint32_t d)
{
	return t * L->st[FT__DIM_TP] + c * L->st[FT__DIM_CP] + p * L->st[FT__DIM_PP] +
	       d * L->st[FT__DIM_DP];
}

/*
 * Members of the instance of group @g that starts at rank @r, or false when
 * @r does not start one. PP instances are the pairs (stage s, s + 1).
 */
static bool
members(const struct layout *L, enum ft_plan_group g, uint32_t r, uint32_t *out, uint32_t n)
{
	uint32_t t, c, p, d, i;

	coords(L, r, &t, &c, &p, &d);
	switch (g) {
	case FT_GROUP_TP:
		if (t)
			return false;
		for (i = 0; i < n; i++)
			out[i] = rank_of(L, i, c, p, d);
		return true;
	case FT_GROUP_CP:
		if (c)
			return false;
		for (i = 0; i < n; i++)
			out[i] = rank_of(L, t, i, p, d);
		return true;
	case FT_GROUP_PP:
		if (p + 1 >= L->pp)
			return false;
		out[0] = r;
		out[1] = rank_of(L, t, c, p + 1, d);
		return true;
	case FT_GROUP_DP: /* dp·cp ranks: every CP and DP coordinate */
		if (c || d)
			return false;
		for (i = 0; i < n; i++)
			out[i] = rank_of(L, t, i % L->cp, p, i / L->cp);
		return true;
	case FT_GROUP_EP:
		if (d % L->ep)
			return false;
		for (i = 0; i < n; i++)
			out[i] = rank_of(L, t, c, p, d + i);
		return true;
	case FT_GROUP_EDP:
		if (d >= L->ep)
			return false;
		for (i = 0; i < n; i++)
			out[i] = rank_of(L, t, c, p, d + i * L->ep);
		return true;
	default:
		return false;
	}
}

/*
 * Submit @op of @bytes once per instance of group @g (@n ranks, @ppn per node) to @e,
 * prepared as `fabtune sim` prepares it (ft__sim_prepare_op(): the tuner's protocol for
 * @algo, NCCL's channels, efficiency and caps) on the first instance's GPUs into @sched
 * (initialised by the caller, released by it after the run); @algo COLLNET as @collnet's
 * variant. An algorithm the simulator does not lay out gives way to the tuner's choice.
 * *@first and *@last get the op ids.
 */
static int
submit_group(struct ft_plan_engine *pe, struct ft_engine *e, const struct layout *L,
             enum ft_plan_group g, uint32_t n, uint32_t ppn, enum ft_op op, enum ft_algo algo,
             enum ft_collnet_variant collnet, uint64_t bytes, struct ft_schedule *sched,
             int64_t *first, int64_t *last, struct ft_error *err)
{
	uint32_t gpn = pe->spec->node.ngpus, ngpus = L->tp * L->cp * L->pp * L->dp, r, i;
	uint32_t *ranks = ft_calloc(n, sizeof(*ranks));
	struct sc_op o = { .op = op, .algo = algo, .proto = SC_PROTO_AUTO, .bytes = bytes,
		           .repeat = 1, .collnet = algo == FT_ALGO_COLLNET ? collnet :
		                                                            FT_COLLNET_AUTO };
	bool ready = false;
	double cap = 0;
	int rc = 0;

	*first = *last = -1;
	if (!ranks)
		return ft_error_set(err, FT_ENOMEM, "engine: out of memory");
	for (r = 0; r < ngpus; r++) {
		struct ft_sim_op sop = { .sched = sched, .after = -1 };
		uint32_t *rg;
		int64_t id;

		if (!members(L, g, r, ranks, n))
			continue;
		/* Each op borrows its placement until run(): keep one array per instance. */
		rg = ft_calloc(n, sizeof(*rg));
		if (!rg || ft_vec_push(&pe->keep, &rg) < 0) {
			ft_free(rg);
			rc = ft_error_set(err, FT_ENOMEM, "engine: out of memory");
			break;
		}
		for (i = 0; i < n; i++)
			rg[i] = ft_topo_gpu(pe->topo, ranks[i] / gpn, ranks[i] % gpn);
		if (!ready) {
			rc = ft__sim_prepare_op(pe->topo, pe->ops, &o, rg, n, ppn, sched, &cap, err);
			if (rc < 0 && rc != FT_ENOMEM && o.algo != SC_ALGO_AUTO) {
				ft_schedule_release(sched);
				o.algo = SC_ALGO_AUTO;
				o.collnet = FT_COLLNET_AUTO;
				rc = ft__sim_prepare_op(pe->topo, pe->ops, &o, rg, n, ppn, sched,
				                        &cap, err);
			}
			if (rc < 0)
				break;
			ready = true;
		}
		sop.rank_gpu = rg;
		sop.conn_cap_Bps = cap;
		id = pe->ops->submit(e, &sop, err);
		if (id < 0) {
			rc = (int)id;
			break;
		}
		if (*first < 0)
			*first = id;
		*last = id;
	}
	ft_free(ranks);
	return rc;
}

static int
prepare(struct ft_plan_engine *pe, const struct ft_plan_config *cfg, struct layout *L,
        struct ft_engine **e, struct ft_error *err)
{
	struct ft_sim_cfg sc;
	int rc;

	*L = (struct layout){ cfg->tp, cfg->cp, cfg->pp, cfg->dp, cfg->ep, { 0 } };
	rc = ft__plan_strides(cfg, L->st, err);
	if (rc < 0)
		return rc;
	if (!pe->topo) {
		rc = ft_topo_build(pe->spec, &pe->topo, err);
		if (rc == 0)
			rc = ft__sim_prepare_topo(pe->topo, pe->ops, err);
		if (rc < 0)
			return rc;
	}
	ft__sim_prepare_cfg(pe->spec, &sc);
	return pe->ops->create(pe->topo, &sc, e, err);
}

int
ft__plan_engine_time(struct ft_plan_engine *pe, const struct ft_plan_config *cfg,
                     enum ft_plan_group g, const struct ft_plan_place *pl, enum ft_op op,
                     enum ft_algo algo, enum ft_collnet_variant collnet, uint64_t bytes,
                     double *out_s, struct ft_error *err)
{
	uint32_t n = g == FT_GROUP_PP ? 2 : pl->n;
	struct ft_schedule sched;
	struct ft_engine *e = NULL;
	struct ft_sim_counters cnt;
	struct layout L;
	int64_t first, last;
	int rc;

	*out_s = 0;
	ft_schedule_init(&sched);
	rc = prepare(pe, cfg, &L, &e, err);
	if (rc == 0)
		rc = submit_group(pe, e, &L, g, n, g == FT_GROUP_PP ? 1 : pl->ppn, op, algo, collnet,
		                  bytes, &sched, &first, &last, err);
	if (rc == 0)
		rc = pe->ops->run(e, 0, err);
	if (rc == 0)
		rc = pe->ops->counters(e, &cnt, err);
	if (rc == 0)
		*out_s = cnt.makespan_s;
	if (e)
		pe->ops->destroy(e);
	ft__plan_engine_drop_keep(pe);
	ft_schedule_release(&sched);
	if (rc < 0)
		ft_error_prefix(err, "%s engine, %s group: ", pe->ops->name, ft_plan_group_name(g));
	return rc;
}

int
ft__plan_engine_together(struct ft_plan_engine *pe, const struct ft_plan_config *cfg,
                         const struct ft_plan *p, double *together, struct ft_error *err)
{
	struct ft_schedule sched[FT_PLAN_MAX_COMMS];
	int64_t first[FT_PLAN_MAX_COMMS], last[FT_PLAN_MAX_COMMS];
	bool seen[FT_GROUP_COUNT] = { false };
	struct ft_engine *e = NULL;
	struct ft_sim_counters cnt;
	struct layout L;
	size_t i, nsched = 0;
	int rc;

	for (i = 0; i < p->ncomms; i++) {
		together[i] = 0;
		first[i] = last[i] = -1;
	}
	rc = prepare(pe, cfg, &L, &e, err);
	for (i = 0; i < p->ncomms && rc == 0; i++) {
		const struct ft_plan_comm *c = &p->comms[i];
		const struct ft_plan_place *pl = &p->place[c->group];
		uint32_t n = c->group == FT_GROUP_PP ? 2 : pl->n;
		enum ft_algo algo;

		if (seen[c->group]) /* a group's own operations follow one another */
			continue;
		seen[c->group] = true;
		if (ft_algo_from_name(c->algo, &algo) < 0)
			algo = ft_coll_default_algo(c->op);
		ft_schedule_init(&sched[nsched++]);
		rc = submit_group(pe, e, &L, c->group, n, c->group == FT_GROUP_PP ? 1 : pl->ppn,
		                  c->op, algo, ft_collnet_variant_from_name(c->algo), c->bytes,
		                  &sched[nsched - 1], &first[i], &last[i], err);
	}
	if (rc == 0)
		rc = pe->ops->run(e, 0, err);
	if (rc == 0)
		rc = pe->ops->counters(e, &cnt, err);
	for (i = 0; i < p->ncomms && rc == 0; i++) {
		int64_t id;

		for (id = first[i]; id >= 0 && id <= last[i] && (size_t)id < cnt.nops; id++)
			together[i] = FT_MAX(together[i], cnt.ops[id].t_end_s - cnt.ops[id].t_start_s);
	}
	if (e)
		pe->ops->destroy(e);
	ft__plan_engine_drop_keep(pe);
	for (i = 0; i < nsched; i++)
		ft_schedule_release(&sched[i]);
	if (rc < 0)
		ft_error_prefix(err, "%s engine, all groups at once: ", pe->ops->name);
	return rc;
}

void
ft__plan_engine_drop_keep(struct ft_plan_engine *pe)
{
	size_t i;

	for (i = 0; i < pe->keep.len; i++)
		ft_free(*(uint32_t **)ft_vec_at(&pe->keep, i));
	pe->keep.len = 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * plan/flow.c - communication times from a simulation engine: every
 * instance of a parallel group runs its collective at the same time on the
 * cluster's topology (all the TP groups' all-gathers at once, all the DP
 * groups' buckets at once, every stage boundary's send at once), so groups
 * that share NICs, leaves or spines contend as they do in the job. The
 * op's time is the makespan of the run.
 *
 * Ranks follow the plan's order: rank = Σ coordinate × stride (ft__plan_strides()).
 */
#include "plan_int.h"

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

int
ft__plan_engine_time(struct ft_plan_engine *pe, const struct ft_plan_config *cfg,
                     enum ft_plan_group g, const struct ft_plan_place *pl, enum ft_op op,
                     enum ft_algo algo, uint64_t bytes, double *out_s, struct ft_error *err)
{
	struct layout L = { cfg->tp, cfg->cp, cfg->pp, cfg->dp, cfg->ep, { 0 } };
	uint32_t gpn = pe->spec->node.ngpus, ngpus = cfg->tp * cfg->cp * cfg->pp * cfg->dp, r, i;
	uint32_t n = g == FT_GROUP_PP ? 2 : pl->n, *ranks = NULL;
	struct ft_coll_args args = { .op = op, .algo = algo, .proto = FT_PROTO_SIMPLE,
		                     .nranks = n, .ranks_per_node = pl->ppn, .bytes = bytes };
	struct ft_schedule sched;
	struct ft_sim_cfg sc;
	struct ft_engine *e = NULL;
	struct ft_sim_counters cnt;
	int rc;

	*out_s = 0;
	rc = ft__plan_strides(cfg, L.st, err);
	if (rc < 0)
		return rc;
	if (!pe->topo) {
		rc = ft_topo_build(pe->spec, &pe->topo, err);
		if (rc < 0)
			return rc;
	}
	ft_schedule_init(&sched);
	rc = ft_coll_schedule(&args, &sched, NULL);
	if (rc < 0) { /* an algorithm the simulator does not lay out: NCCL's default for the op */
		ft_schedule_release(&sched);
		ft_schedule_init(&sched);
		args.algo = ft_coll_default_algo(op);
		rc = ft_coll_schedule(&args, &sched, err);
		if (rc < 0)
			goto out;
	}
	ft_sim_cfg_init(&sc);
	rc = pe->ops->create(pe->topo, &sc, &e, err);
	if (rc < 0)
		goto out;
	ranks = ft_calloc(n, sizeof(*ranks));
	if (!ranks) {
		rc = ft_error_set(err, FT_ENOMEM, "engine: out of memory");
		goto out;
	}
	for (r = 0; r < ngpus; r++) {
		struct ft_sim_op sop = { .sched = &sched, .after = -1 };
		uint32_t *rg;
		int64_t id;

		if (!members(&L, g, r, ranks, n))
			continue;
		/* Each op borrows its placement until run(): keep one array per instance. */
		rg = ft_calloc(n, sizeof(*rg));
		if (!rg || ft_vec_push(&pe->keep, &rg) < 0) {
			ft_free(rg);
			rc = ft_error_set(err, FT_ENOMEM, "engine: out of memory");
			goto out;
		}
		for (i = 0; i < n; i++)
			rg[i] = ft_topo_gpu(pe->topo, ranks[i] / gpn, ranks[i] % gpn);
		sop.rank_gpu = rg;
		id = pe->ops->submit(e, &sop, err);
		if (id < 0) {
			rc = (int)id;
			goto out;
		}
	}
	rc = pe->ops->run(e, 0, err);
	if (rc == 0)
		rc = pe->ops->counters(e, &cnt, err);
	if (rc == 0)
		*out_s = cnt.makespan_s;
out:
	if (e)
		pe->ops->destroy(e);
	ft__plan_engine_drop_keep(pe);
	ft_free(ranks);
	ft_schedule_release(&sched);
	if (rc < 0)
		ft_error_prefix(err, "%s engine, %s group: ", pe->ops->name, ft_plan_group_name(g));
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

/* SPDX-License-Identifier: MIT */
/*
 * sim/engine_analytic.c - the engines without contention: "ideal", a
 * contention-free evaluation of the same schedules the flow engine runs,
 * and "analytic", NCCL's own cost model (model.h, ft_model_eval()) for the
 * time of each collective, with the ideal engine's routing for the link
 * counters and flow times.
 *
 * Every flow is routed like the flow engine routes it (first QP), and runs
 * alone: time = wire bytes / the slowest link of its path + path latency.
 * A phase costs its slowest flow plus steps x step overhead + (steps - 1) x
 * its longest path latency (a ring or NVLS tree across nodes pays that path
 * on the steps that cross them only, as the flow engine: ft__sim_far_steps;
 * a ring's and tree's far steps take max(hwLat[NET], that path));
 * an op costs the sum of its phases and starts
 * after the op it follows plus its delay. The difference between this
 * engine and the flow engine on one scenario is exactly the cost of
 * contention (ECMP collisions, shared uplinks, incast), which is the point of
 * offering both behind one interface.
 */
#include "sim_int.h"

#include <fabtune/model.h>
#include <fabtune/sim.h>

struct an_engine {
	struct ft_engine base;
	bool model; /* "analytic": op times from ft_model_eval() */
	/* the model's in-node shared links, laid out once per node and job shape for the
	 * engine's life (model.h ft_model_cache): the caller's (ft_sim_cfg.model_cache) or,
	 * where it gives none, the engine's own (@own_cache); NULL: uncached, the same times */
	struct ft_model_cache *cache;
	bool own_cache;
	const struct ft_topo *topo;
	struct ft_sim_cfg cfg;
	double *cap_Bps;
	double *link_bytes;
	uint32_t *link_maxflows;
	uint32_t nlinks;
	struct ft_vec ops;   /* struct ft_sim_op_result */
	struct ft_vec fct;   /* double, per flow */
	struct ft_vec ideal; /* double, per flow */
	uint64_t nevents;
	double bytes;
};

static int
an_create_any(const struct ft_topo *topo, const struct ft_sim_cfg *cfg, bool model,
              const struct ft_engine_ops *ops, struct ft_engine **out, struct ft_error *err)
{
	struct an_engine *ae;
	uint32_t n = ft_topo_nlinks(topo), l;

	*out = NULL;
	ae = ft_calloc(1, sizeof(*ae));
	if (!ae)
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory");
	ae->cap_Bps = ft_calloc(n ? n : 1, sizeof(double));
	ae->link_bytes = ft_calloc(n ? n : 1, sizeof(double));
	ae->link_maxflows = ft_calloc(n ? n : 1, sizeof(uint32_t));
	if (!ae->cap_Bps || !ae->link_bytes || !ae->link_maxflows) {
		ae->base.ops = ops;
		ops->destroy(&ae->base);
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory for %u links", n);
	}
	ae->base.ops = ops;
	ae->model = model;
	/* every job and size of a scenario queries the model on the same nodes: its shared
	 * links laid out once, as a plan search's (plan/search.c ft_plan_search()), in the
	 * run's cache where the runner shares it (its algorithm pick asks the same queries),
	 * else in one of the engine's own; without memory for it each query lays them out,
	 * to the same times */
	if (model && cfg->model_cache) {
		ae->cache = cfg->model_cache;
	} else if (model) {
		ae->cache = ft_model_cache_new();
		ae->own_cache = true;
	}
	ae->topo = topo;
	ae->cfg = *cfg;
	if (ae->cfg.routing == FT_ROUTING_ADAPTIVE)
		ae->cfg.routing = FT_ROUTING_ECMP; /* no loads without contention */
	ae->nlinks = n;
	for (l = 0; l < n; l++)
		ae->cap_Bps[l] = ft_topo_link(topo, l)->cap_Bps * ft_topo_link_scale(topo, l);
	ft_vec_init(&ae->ops, sizeof(struct ft_sim_op_result));
	ft_vec_init(&ae->fct, sizeof(double));
	ft_vec_init(&ae->ideal, sizeof(double));
	*out = &ae->base;
	return 0;
}

/* One leg of a route (ft__sim_leg_fn) as the ideal and analytic engines route it. */
static int
an_leg(void *ud, uint32_t a, uint32_t b, uint32_t qp, struct ft_path *path, struct ft_error *err)
{
	const struct an_engine *ae = ud;

	return ft__sim_route(ae->topo, &ae->cfg, a, b, qp, NULL, NULL, path, err);
}

/* Route one flow alone: its time, latency and the links it loads; @cap_Bps > 0: what its
 * connection (one NCCL channel) carries at most, as the flow engine caps it. */
static int
an_flow(struct an_engine *ae, uint32_t a, uint32_t b, uint32_t nic, double wire, double cap_Bps,
        double *t_s, double *lat_s, uint32_t *bott_link, struct ft_error *err)
{
	struct ft_path path;
	double bott = INFINITY;
	uint32_t j;
	int rc;

	/* out by NIC @nic where the flow names one (ft__sim_flow_nic()): the three engines' rule */
	rc = nic == UINT32_MAX ? an_leg(ae, a, b, 0, &path, err) :
	                         ft__sim_nic_route(ae->topo, a, nic, b, 0, an_leg, ae, &path, err);
	if (rc < 0)
		return rc;
	for (j = 0; j < path.nlinks; j++) {
		uint32_t l = path.links[j];

		if (ae->cap_Bps[l] < bott) {
			bott = ae->cap_Bps[l];
			*bott_link = l;
		}
		ae->link_bytes[l] += wire;
		ae->link_maxflows[l] = 1;
	}
	if (!(bott > 0))
		return ft_error_set(err, FT_EINVAL, "sim: a path crosses a link that is down");
	if (cap_Bps > 0 && cap_Bps < bott) {
		bott = cap_Bps;
		*bott_link = path.links[0]; /* the flow engine names the first link too */
	}
	*t_s = wire / bott + path.lat_s;
	*lat_s = path.lat_s;
	ae->bytes += wire;
	ae->nevents++;
	return 0;
}

/*
 * One phase, contention-free between ranks: a rank's own flows of the phase
 * share its path one after the other (their times add up per source), and
 * the phase costs the busiest source. Large implicit all-to-all phases are
 * evaluated on the first AN_A2A_SOURCES members of the first group, the
 * groups being alike (same sizes, same kind of paths).
 */
#define AN_A2A_SOURCES 64

static int
an_phase(struct an_engine *ae, const struct ft_schedule *sc, const struct ft_sim_op *op,
         const struct ft_sched_phase *ph, double eff, double *slowest, double *maxlat,
         uint32_t *bott_link, struct ft_error *err)
{
	uint64_t k, n = ph->npairs;
	uint32_t src_prev = UINT32_MAX;
	double per_src = 0;
	int rc;

	if (ph->implicit_alltoall && ph->a2a_group_size > 1) {
		uint64_t per = ph->a2a_group_size - 1;
		uint64_t nsrc = FT_MIN((uint64_t)ph->a2a_group_size, (uint64_t)AN_A2A_SOURCES);

		n = FT_MIN(n, per * nsrc);
	}
	for (k = 0; k < n; k++) {
		struct ft_sched_flow fl;
		double t = 0, lat = 0;
		uint32_t a = 0, b = 0, bl = UINT32_MAX;

		ft_sched_phase_flow(sc, ph, k, &fl);
		rc = ft__sim_flow_ends(ae->topo, sc, op, &fl, &a, &b, err);
		if (rc < 0)
			return rc;
		if (a == b || fl.bytes == 0)
			continue;
		rc = an_flow(ae, a, b, ft__sim_flow_nic(ae->topo, &fl, a, b),
		             (double)fl.bytes / eff, op->conn_cap_Bps, &t, &lat, &bl, err);
		if (rc < 0)
			return rc;
		if (ft_vec_push(&ae->fct, &t) < 0 || ft_vec_push(&ae->ideal, &t) < 0)
			return ft_error_set(err, FT_ENOMEM, "sim: out of memory");
		if (fl.src != src_prev)
			per_src = 0;
		src_prev = fl.src;
		per_src += t - lat;
		if (per_src + lat > *slowest) {
			*slowest = per_src + lat;
			*bott_link = bl;
		}
		if (lat > *maxlat)
			*maxlat = lat;
	}
	return 0;
}

/*
 * NCCL's tuner model for the op as the schedule describes it (op, size,
 * ranks and ranks per node, the algorithm and protocol forced, and the
 * channels where the op forces them: --channels, a job's channels, as
 * `fabtune model --channels`). Background patterns (no job) keep the
 * schedule evaluation: the model has no permutation or incast.
 */
static int
model_time(struct an_engine *ae, const struct ft_sim_op *op, struct ft_sim_op_result *res,
           double *t_s, struct ft_error *err)
{
	const struct ft_schedule *sc = op->sched;
	struct ft_model_query q;
	struct ft_model_result r;
	uint32_t ppn = sc->ranks_per_node ? sc->ranks_per_node : 1;
	int rc;

	ft_model_query_init(&q, sc->op, sc->bytes);
	q.ngpus = sc->nranks;
	q.ppn = ppn;
	q.nnodes = (sc->nranks + ppn - 1) / ppn;
	q.force_algo = true;
	q.algo = sc->algo;
	/* the schedule's CollNet is one variant, built as such: the model prices that one */
	if (sc->algo == FT_ALGO_COLLNET)
		q.collnet = sc->collnet_chain ? FT_COLLNET_CHAIN : FT_COLLNET_DIRECT;
	q.force_proto = true;
	q.proto = sc->proto;
	q.nchannels = op->nchannels;
	q.cache = ae->cache;
	rc = ft_model_eval(ft_topo_spec(ae->topo), &q, &r, err);
	if (rc < 0) {
		ft_error_prefix(err, "analytic engine: ");
		return rc;
	}
	*t_s = r.time_s;
	/* The time is the model's, so is what binds it: the link the schedule's slowest
	 * flow would cross alone is not what `fabtune model` names for the same figure. */
	ft_strlcpy(res->bottleneck, r.bottleneck, sizeof(res->bottleneck));
	return 0;
}

static int64_t
an_submit(struct ft_engine *e, const struct ft_sim_op *op, struct ft_error *err)
{
	struct an_engine *ae = ft_container_of(e, struct an_engine, base);
	const struct ft_schedule *sc = op->sched;
	struct ft_sim_op_result res = { 0 };
	double eff = sc->proto_eff > 0 ? sc->proto_eff : 1.0, t;
	double op_slowest = -1;
	struct ft__sim_link_lats ll;
	uint32_t p;
	int rc;

	res.bottleneck_link = UINT32_MAX;
	if (op->after >= (int64_t)ae->ops.len)
		return ft_error_set(err, FT_EINVAL, "sim: op waits for op %lld, not submitted",
		                    (long long)op->after);
	t = op->after >= 0 ? FT_VEC_AT(&ae->ops, struct ft_sim_op_result, op->after).t_end_s : 0;
	t += op->delay_s;
	res.job = op->job;
	res.t_start_s = t;
	t += sc->base_lat_s;
	rc = ft__sim_link_lats(ae->topo, sc, &ll);
	if (rc < 0)
		return ft_error_set(err, rc, "sim: the model's links: %s", ft_strerror(rc));
	for (p = 0; p < sc->phases.len; p++) {
		const struct ft_sched_phase *ph = ft_sched_phase_at(sc, p);
		double steps = ph->steps ? ph->steps : 1, slowest = 0, maxlat = 0, extra, hw;
		uint32_t bl = UINT32_MAX, far, net = 0;

		rc = an_phase(ae, sc, op, ph, eff, &slowest, &maxlat, &bl, err);
		if (rc < 0)
			return rc;
		if (slowest > op_slowest && bl != UINT32_MAX) {
			op_slowest = slowest;
			res.bottleneck_link = bl;
		}
		far = ft__sim_far_steps(ae->topo, sc, &ll, op->rank_gpu, (uint32_t)steps, &extra,
		                        &net);
		/* a ring's or tree's far step lasts max(hwLat[NET], path), as the flow engine's
		 * (engine_flow.c, ft__fs_barrier_floor()) */
		hw = ft__sim_far_floor_hw_s(sc, net);
		t += slowest + steps * sc->step_lat_s + extra + far * maxlat +
		     net * (ft__sim_net_floor_s(hw, maxlat) - hw);
	}
	if (ae->model && op->job != UINT32_MAX) {
		double tm;

		rc = model_time(ae, op, &res, &tm, err);
		if (rc < 0)
			return rc;
		t = res.t_start_s + tm;
	}
	res.t_end_s = t;
	if (ft_vec_push(&ae->ops, &res) < 0)
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory");
	return (int64_t)ae->ops.len - 1;
}

static int
an_run(struct ft_engine *e, double until_s, struct ft_error *err)
{
	FT_UNUSED(e);
	FT_UNUSED(until_s);
	FT_UNUSED(err);
	return 0; /* everything was evaluated at submission */
}

static int
an_counters(struct ft_engine *e, struct ft_sim_counters *c, struct ft_error *err)
{
	struct an_engine *ae = ft_container_of(e, struct an_engine, base);
	size_t i;
	int rc;

	memset(c, 0, sizeof(*c));
	rc = ft__sim_fct_stats(ae->fct.data, ae->ideal.data, ae->fct.len, c);
	if (rc < 0)
		return ft_error_set(err, rc, "sim: out of memory for counters");
	for (i = 0; i < ae->ops.len; i++) {
		const struct ft_sim_op_result *o = ft_vec_at(&ae->ops, i);

		if (o->t_end_s > c->makespan_s)
			c->makespan_s = o->t_end_s;
	}
	c->nflows = ae->fct.len;
	c->nevents = ae->nevents;
	c->bytes = ae->bytes;
	c->nops = ae->ops.len;
	c->ops = ae->ops.data;
	c->nlinks = ae->nlinks;
	c->link_bytes = ae->link_bytes;
	c->link_max_flows = ae->link_maxflows;
	return 0;
}

static void
an_destroy(struct ft_engine *e)
{
	struct an_engine *ae;

	if (!e)
		return;
	ae = ft_container_of(e, struct an_engine, base);
	{
		void *const arrays[] = { ae->cap_Bps, ae->link_bytes, ae->link_maxflows };
		struct ft_vec *const vecs[] = { &ae->ops, &ae->fct, &ae->ideal };

		ft__free_all(arrays, FT_ARRAY_SIZE(arrays));
		ft__vec_release_all(vecs, FT_ARRAY_SIZE(vecs));
	}
	if (ae->own_cache)
		ft_model_cache_free(ae->cache);
	ft_free(ae);
}

static int
an_create(const struct ft_topo *topo, const struct ft_sim_cfg *cfg, struct ft_engine **out,
          struct ft_error *err)
{
	return an_create_any(topo, cfg, true, &ft_analytic_engine, out, err);
}

static int
ideal_create(const struct ft_topo *topo, const struct ft_sim_cfg *cfg, struct ft_engine **out,
             struct ft_error *err)
{
	return an_create_any(topo, cfg, false, &ft_ideal_engine, out, err);
}

/* The two engines differ only in how they are created. */
#define AN_ENGINE(name_, summary_, create_)                                                 \
	{                                                                                   \
		.name = name_, .summary = summary_, .create = create_, .submit = an_submit, \
		.run = an_run, .counters = an_counters, .destroy = an_destroy               \
	}

const struct ft_engine_ops ft_ideal_engine = AN_ENGINE(
        "ideal", "the schedules without contention: each flow alone on its path", ideal_create);
const struct ft_engine_ops ft_analytic_engine = AN_ENGINE(
        "analytic", "NCCL's cost model per collective (fabtune model), no contention", an_create);

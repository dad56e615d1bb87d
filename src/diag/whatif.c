/* SPDX-License-Identifier: MIT */
/*
 * diag/whatif.c - the gain of an advised change, computed by the twin: run
 * the user's cluster spec with and without the change and compare the time
 * of the collective the inputs measured.
 *
 * Adaptive routing and QPs per connection change how flows share links, so
 * they run on the flow engine (max-min fair sharing over every link, ECMP
 * hash collisions included); channel counts change NCCL's per-channel
 * bandwidth cap, evaluated by the analytic model. Without a spec the gain stays as advise left it and the
 * basis names the missing input. The library never prints: results go into
 * the advice's gain_pct and gain_basis.
 */
#include "internal.h"

#include <fabtune/coll.h>
#include <fabtune/diag.h>
#include <fabtune/model.h>
#include <fabtune/sim.h>
#include <fabtune/spec.h>

#include "diag/diag_int.h"

/* The size the twin runs when the inputs name none: large enough for the bandwidth regime. */
#define WHATIF_BYTES (256ull << 20)

/* What to run: the collective of the inputs (bench.test), else @fallback. */
static enum ft_op
inputs_op(const struct ft_diag_input *in, enum ft_op fallback)
{
	size_t i;

	for (i = 0; i < ft_obs_set_len(in->obs); i++) {
		const struct ft_obs *o = ft_obs_set_at(in->obs, i);
		char name[32];
		size_t n;
		enum ft_op op;

		if (strcmp(o->key, "bench.test") != 0)
			continue;
		ft_strlcpy(name, o->str, sizeof(name));
		n = strlen(name);
		if (n > 5 && strcmp(name + n - 5, "_perf") == 0)
			name[n - 5] = '\0';
		if (ft_op_from_name(name, &op) == 0 && ft_op_is_modelled(op))
			return op;
	}
	return fallback;
}

/* Makespan of @op of @bytes on @spec under @ov (engine, routing, qps) with @channels. */
static int
twin_time(const char *spec, enum ft_op op, uint64_t bytes, uint32_t channels,
	  const struct ft_sim_overrides *ov, double *t_s, struct ft_error *err)
{
	struct ft_sim_sweep_args a = { 0 };
	struct ft_scenario *sc = NULL;
	struct ft_sim_report rep;
	int rc;

	a.spec = spec;
	a.op = op;
	a.algo = op == FT_OP_ALLTOALL ? FT_ALGO_DIRECT : FT_ALGO_RING;
	a.proto = FT_PROTO_SIMPLE;
	a.min_bytes = a.max_bytes = bytes;
	a.channels = channels;
	rc = ft_scenario_from_op(&a, &sc, err);
	if (rc < 0)
		return rc;
	ft_sim_report_init(&rep);
	rc = ft_scenario_run(sc, ov, NULL, &rep, err);
	if (rc == 0)
		*t_s = rep.c.makespan_s;
	ft_sim_report_release(&rep);
	ft_scenario_free(sc);
	if (rc == 0 && !(*t_s > 0))
		rc = ft_error_set(err, FT_ERANGE, "%s: the twin ran %s in no time", spec,
				  ft_op_name(op));
	return rc;
}

/* Write the gain of going from @t0 to @t1 and how it was computed. */
static void
set_gain(struct ft_advice *x, double t0, double t1, const char *engine, const char *spec,
	 enum ft_op op, uint64_t bytes, const char *from, const char *to)
{
	x->gain_pct = 100.0 * (t0 / t1 - 1);
	snprintf(x->gain_basis, sizeof(x->gain_basis),
		 "%s engine on %.40s, %s of %llu MiB: %.0f us (%s) -> %.0f us (%s)", engine, spec,
		 ft_op_name(op), (unsigned long long)(bytes >> 20), t0 * 1e6, from, t1 * 1e6, to);
}

static int
whatif_routing(struct ft_advice *x, const char *spec, enum ft_op op, struct ft_error *err)
{
	struct ft_sim_overrides ov;
	double t0, t1;
	int rc;

	ft_sim_overrides_init(&ov);
	ov.engine = "flow";
	ov.routing = FT_ROUTING_ECMP;
	rc = twin_time(spec, op, WHATIF_BYTES, 0, &ov, &t0, err);
	if (rc < 0)
		return rc;
	ov.routing = FT_ROUTING_ADAPTIVE;
	rc = twin_time(spec, op, WHATIF_BYTES, 0, &ov, &t1, err);
	if (rc < 0)
		return rc;
	set_gain(x, t0, t1, "flow", spec, op, WHATIF_BYTES, "ECMP", "adaptive");
	return 0;
}

static int
whatif_qps(struct ft_advice *x, const char *spec, enum ft_op op, struct ft_error *err)
{
	struct ft_sim_overrides ov;
	unsigned long q = strtoul(x->value, NULL, 10);
	char to[24];
	double t0, t1;
	int rc;

	if (q < 2 || q > 64)
		return 0;
	ft_sim_overrides_init(&ov);
	ov.engine = "flow";
	ov.routing = FT_ROUTING_ECMP;
	ov.qps_per_conn = 1;
	rc = twin_time(spec, op, WHATIF_BYTES, 0, &ov, &t0, err);
	if (rc < 0)
		return rc;
	ov.qps_per_conn = (uint32_t)q;
	rc = twin_time(spec, op, WHATIF_BYTES, 0, &ov, &t1, err);
	if (rc < 0)
		return rc;
	snprintf(to, sizeof(to), "%lu QPs", q);
	set_gain(x, t0, t1, "flow", spec, op, WHATIF_BYTES, "1 QP", to);
	return 0;
}

/*
 * Channels: the analytic model (NCCL's algorithms, protocols and per-channel
 * bandwidth cap) with NCCL's own channel count and with the advised one. The
 * basis names each side's bottleneck, so "no gain" says why.
 */
static int
whatif_channels(struct ft_advice *x, const char *spec, enum ft_op op, struct ft_error *err)
{
	struct ft_cluster_spec cs;
	struct ft_model_query q;
	struct ft_model_result r0, r1;
	unsigned long ch = strtoul(x->value, NULL, 10);
	int rc;

	if (ch < 1 || ch > 64)
		return 0;
	memset(&cs, 0, sizeof(cs));
	rc = ft_spec_resolve(spec, &cs, err);
	if (rc < 0)
		return rc;
	ft_model_query_init(&q, op, WHATIF_BYTES);
	rc = ft_model_eval(&cs, &q, &r0, err);
	if (rc < 0)
		return rc;
	q.nchannels = (uint32_t)ch;
	rc = ft_model_eval(&cs, &q, &r1, err);
	if (rc < 0)
		return rc;
	x->gain_pct = 100.0 * (r0.time_s / r1.time_s - 1);
	snprintf(x->gain_basis, sizeof(x->gain_basis),
		 "analytic model on %.40s, %s of %llu MiB: %.0f us with %u channels (%s-bound) -> "
		 "%.0f us with %lu (%s-bound)",
		 spec, ft_op_name(op), (unsigned long long)(WHATIF_BYTES >> 20), r0.time_s * 1e6,
		 r0.nchannels, r0.bottleneck, r1.time_s * 1e6, ch, r1.bottleneck);
	return 0;
}

static const struct {
	const char *id;
	enum ft_op fallback; /* when the inputs measured no collective */
	int (*run)(struct ft_advice *x, const char *spec, enum ft_op op, struct ft_error *err);
	const char *needs; /* what the twin compares, or (run NULL) why it cannot */
} changes[] = {
	{ "adaptive-routing", FT_OP_ALLTOALL, whatif_routing,
	  "the flow engine compares ECMP with adaptive routing" },
	{ "nccl-qps-ecmp", FT_OP_ALL_REDUCE, whatif_qps,
	  "the flow engine compares 1 QP with the advised count under ECMP" },
	{ "nccl-channels-per-peer", FT_OP_ALLTOALL, NULL,
	  "the twin models NCCL's total channel count, not the channels per network peer "
	  "that send/recv uses" },
	{ "nccl-min-ctas", FT_OP_ALL_REDUCE, whatif_channels,
	  "the analytic model compares NCCL's channel count with the floor" },
};

int
ft_advise_whatif(const struct ft_diag_input *in, const char *spec, struct ft_advice_set *s,
		 struct ft_error *err)
{
	size_t i, k;
	int rc;

	if (!in || !in->obs || !s)
		return ft_error_set(err, FT_EINVAL, "what-if: no inputs");
	for (i = 0; i < ft_advice_set_len(s); i++) {
		struct ft_advice *x = ft_advice_set_at(s, i);

		for (k = 0; k < FT_ARRAY_SIZE(changes); k++)
			if (strcmp(x->id, changes[k].id) == 0)
				break;
		if (k == FT_ARRAY_SIZE(changes))
			continue;
		if (!changes[k].run) {
			if (isnan(x->gain_pct))
				snprintf(x->gain_basis, sizeof(x->gain_basis), "not computable: %s",
					 changes[k].needs);
			continue;
		}
		if (!spec || !spec[0]) {
			if (isnan(x->gain_pct))
				snprintf(x->gain_basis, sizeof(x->gain_basis),
					 "not computable without a cluster spec (--spec): %s",
					 changes[k].needs);
			continue;
		}
		rc = changes[k].run(x, spec, inputs_op(in, changes[k].fallback), err);
		if (rc < 0) {
			ft_error_prefix(err, "what-if %s: ", x->id);
			return rc;
		}
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * sim/args.c - what `fabtune sim` is asked, checked: the overrides of a
 * scenario (engine, routing, placement, scale, traced ports) and the
 * scenario itself, a file or one collective on a spec.
 */
#include "sim_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fabtune/model.h>
#include <fabtune/sim.h>

#include "coll/names.h"

void
ft_sim_args_init(struct ft_sim_args *a)
{
	memset(a, 0, sizeof(*a));
	/* "not given": the option parser takes finite numbers only, so -1 is refused, not
	 * read as absent */
	a->fabric_scale = NAN;
	a->rate_tolerance = NAN;
	a->ranks = FT_SIM_RANKS_UNSET;
	a->channels = FT_SPEC_CHANNELS_UNSET;
}

/* "12,40,41" of option @opt into @ids (64 of them), their count in @n; FT_EINVAL for
 * anything else or more than 64. */
static int
read_ids(const char *opt, const char *what, const char *s, uint32_t *ids, uint32_t *n,
         struct ft_error *err)
{
	const char *p = s;

	while (*p) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);

		if (end == p || (*end && *end != ',') || v > UINT32_MAX || *n >= 64)
			return ft_error_set(err, FT_EINVAL,
			                    "%s: expected up to 64 %s ids like 12,40,41, got '%s'",
			                    opt, what, s);
		ids[(*n)++] = (uint32_t)v;
		p = *end ? end + 1 : end;
	}
	return 0;
}

static int
read_links(struct ft_sim_args *a, struct ft_sim_overrides *ov, struct ft_error *err)
{
	int rc = read_ids("--trace-links", "link", a->trace_links, a->links,
	                  &ov->ntrace_links, err);

	if (rc == 0 && a->trace_qps)
		rc = read_ids("--trace-qps", "flow", a->trace_qps, a->qp_flows, &ov->ntrace_qps, err);
	ov->trace_links = a->links;
	ov->trace_qps = a->qp_flows;
	ov->trace_interval_s = a->trace_interval;
	return rc;
}

int
ft_sim_args_overrides(struct ft_sim_args *a, struct ft_sim_overrides *ov, struct ft_error *err)
{
	enum ft_routing r;
	int rc = 0;

	ft_sim_overrides_init(ov);
	ov->no_faults = a->no_faults;
	ov->no_nvls = a->no_nvls;
	ov->counters = a->counters;
	ov->cluster = a->cluster;
	ov->have_seed = a->have_seed;
	ov->seed = a->seed;
	if (a->trace != (a->trace_links != NULL))
		return ft_error_set(err, FT_EINVAL, "--trace and --trace-links go together");
	if (a->trace_qps && !a->trace_links)
		return ft_error_set(err, FT_EINVAL, "--trace-qps: goes with --trace and --trace-links");
	if (a->list_flows > FT_SIM_LIST_FLOWS_MAX)
		return ft_error_set(err, FT_EINVAL,
		                    "--list-flows: expected at most %u flows (0 lists none), "
		                    "got %" PRIu64,
		                    FT_SIM_LIST_FLOWS_MAX, a->list_flows);
	ov->list_flows = (uint32_t)a->list_flows;
	if (a->trace_links)
		rc = read_links(a, ov, err);
	if (rc == 0 && a->placement)
		rc = ft__name_read(&ft__scenario_placements, "--placement", a->placement, -1,
		                   &ov->placement, err);
	if (rc < 0)
		return rc;
	if (a->engine && !ft_sim_engine_find(a->engine))
		return ft_error_set(err, FT_EINVAL,
		                    "--engine: expected analytic, flow, ideal or packet, got '%s'",
		                    a->engine);
	ov->engine = a->engine;
	if (a->routing && ft_routing_from_arg("--routing", a->routing, &r, err) < 0)
		return FT_EINVAL;
	if (a->routing)
		ov->routing = (int)r;
	if (a->qps > 64)
		return ft_error_set(err, FT_EINVAL, "--qps: expected 1 to 64, got %" PRIu64,
		                    a->qps);
	ov->qps_per_conn = (uint32_t)a->qps;
	/* 0 would silently mean "keep", a tiny factor prints times of hundreds of digits */
	if (!isnan(a->fabric_scale) && !(a->fabric_scale >= 0.001 && a->fabric_scale <= 1000))
		return ft_error_set(err, FT_EINVAL,
		                    "--fabric-scale: expected a factor from 0.001 to 1000, got %g",
		                    a->fabric_scale);
	ov->fabric_scale = isnan(a->fabric_scale) ? 0 : a->fabric_scale;
	/* the bound is stated and measured up to a tenth (docs/internals/sim.md, "A coarser
	 * rate tolerance"); -1 is refused, not read as "not given" */
	if (!isnan(a->rate_tolerance) && !(a->rate_tolerance >= 0 && a->rate_tolerance <= 0.1))
		return ft_error_set(err, FT_EINVAL,
		                    "--rate-tolerance: expected a fraction from 0 to 0.1, got %g",
		                    a->rate_tolerance);
	ov->have_rate_rtol = !isnan(a->rate_tolerance);
	ov->rate_rtol = ov->have_rate_rtol ? a->rate_tolerance : 0;
	/* as `fabtune model --nccl` reads it, and the same releases it knows */
	if (a->nccl)
		rc = ft_model_nccl_read(a->nccl, &ov->nccl_version, err);
	return rc;
}

/* One collective over a range of sizes on the spec @spec. */
static int
scenario_from_op(const struct ft_sim_args *a, const char *spec, struct ft_scenario **sc,
                 struct ft_error *err)
{
	struct ft_sim_sweep_args s = { .spec = spec };
	int op, algo, proto;
	int rc = ft__name_read(&ft__coll_modelled_ops, "--op", a->op, -1, &op, err);

	/* FT_ALGO_COUNT / FT_PROTO_COUNT: NCCL's tuner picks (the model's choice). */
	if (rc == 0 && a->algo)
		rc = ft__name_read(&ft__coll_algos, "--algo", a->algo, FT_ALGO_COUNT, &algo, err);
	if (rc == 0 && a->proto)
		rc = ft__name_read(&ft__coll_protos, "--proto", a->proto, FT_PROTO_COUNT, &proto,
		                   err);
	if (rc < 0)
		return rc;
	s.op = (enum ft_op)op;
	s.algo = a->algo ? (enum ft_algo)algo : FT_ALGO_COUNT;
	s.collnet = ft_collnet_variant_from_name(a->algo);
	s.proto = a->proto ? (enum ft_proto)proto : FT_PROTO_COUNT;
	/* 0 is no default: a count that came out 0 (an unset variable) is refused */
	if (a->ranks == 0)
		return ft_error_set(err, FT_EINVAL,
		                    "--ranks: expected at least 1, got 0 (leave it out for every GPU)");
	if (a->ranks != FT_SIM_RANKS_UNSET && a->ranks > UINT32_MAX)
		return ft_error_set(err, FT_EINVAL, "--ranks: too many");
	if (ft__channels_read(a->channels, &s.channels, err) < 0)
		return FT_EINVAL;
	s.min_bytes = a->minb ? a->minb : 1 << 20;
	s.max_bytes = a->maxb ? a->maxb : s.min_bytes;
	s.factor = a->factor ? a->factor : (s.max_bytes > s.min_bytes ? 2 : 0);
	s.nranks = a->ranks == FT_SIM_RANKS_UNSET ? 0 : (uint32_t)a->ranks;
	return ft_scenario_from_op(&s, sc, err);
}

/* Whether @path ends in .yaml or .yml. */
static bool
yaml_name(const char *path)
{
	size_t len = strlen(path);

	return (len > 5 && strcmp(path + len - 5, ".yaml") == 0) ||
	       (len > 4 && strcmp(path + len - 4, ".yml") == 0);
}

/* 0 when @arg resolves as a cluster spec, else why not (ft_spec_resolve()'s error). */
static int
not_a_spec(const char *arg, struct ft_error *err)
{
	struct ft_cluster_spec *spec = ft_calloc(1, sizeof(*spec));
	int rc;

	if (!spec)
		return ft_error_set(err, FT_ENOMEM, "out of memory");
	rc = ft_spec_resolve(arg, spec, err);
	ft_free(spec);
	return rc;
}

const char *
ft_sim_args_op_only(const struct ft_sim_args *a)
{
	if (a->algo)
		return "--algo";
	if (a->proto)
		return "--proto";
	if (a->minb || a->maxb)
		return a->minb ? "-b/--minbytes" : "-e/--maxbytes";
	if (a->factor != 0)
		return "-f/--stepfactor";
	if (a->ranks != FT_SIM_RANKS_UNSET)
		return "--ranks";
	if (a->channels != FT_SPEC_CHANNELS_UNSET)
		return "--channels";
	return NULL;
}

int
ft_sim_args_scenario(const struct ft_sim_args *a, const char *arg, struct ft_scenario **sc,
                     struct ft_error *err)
{
	struct ft_error open_err = { 0 };
	const char *only;
	int fd, rc;

	*sc = NULL;
	if (a->op)
		return scenario_from_op(a, arg, sc, err);
	/*
	 * a scenario file sets its own collectives: an option that would be ignored is
	 * refused; a spec (dgx-h100:2, no such file) is told what it lacks
	 */
	if ((only = ft_sim_args_op_only(a))) {
		if (!yaml_name(arg) && access(arg, F_OK) != 0)
			return ft_error_set(err, FT_EINVAL,
			                    "%s: only with SPEC --op OP; %s is a spec: give --op",
			                    only, arg);
		return ft_error_set(err, FT_EINVAL,
		                    "%s: only with SPEC --op OP; %s sets its own collectives", only,
		                    arg);
	}
	/* a FIFO, device, directory or oversized file: say that, not "not a scenario" */
	fd = ft_file_open_input(arg, NULL, &open_err);
	if (fd < 0 && fd != FT_ENOENT)
		return ft_error_set(err, fd, "%s", open_err.msg);
	if (fd >= 0)
		close(fd);
	/* no such file: a spec (dgx-h100:4) is told to take --op, else why it is neither */
	if (fd == FT_ENOENT && !yaml_name(arg) && (rc = not_a_spec(arg, err)) < 0)
		return rc;
	if (access(arg, R_OK) == 0 || !yaml_name(arg)) {
		if ((rc = ft_scenario_sniff(arg, err)) < 0)
			return rc; /* out of memory reading it: not "not a scenario" */
		if (rc == 0)
			return ft_error_set(
			        err, FT_EINVAL,
			        "%s: not a scenario (no top-level 'cluster:'); to run a "
			        "collective on a spec give --op",
			        arg);
	}
	return ft_scenario_load_file(arg, sc, err);
}

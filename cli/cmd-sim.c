/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-sim.c - `fabtune sim`: run a scenario, or one collective over a
 * range of sizes on a spec, through the analytic or the flow-level engine,
 * or a parameter sweep (split across MPI ranks when launched by mpirun).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fabtune/fabtune.h>
#include <fabtune/sim.h>

#include "cli-archive.h"
#include "cli.h"

static const char *const synopsis[] = {
	"fabtune sim SCENARIO.yaml [--engine analytic|flow|packet] [--routing R] [--qps N]",
	"fabtune sim SPEC --op OP [-b SIZE] [-e SIZE] [-f FACTOR] [--algo A] [--proto P]",
	"fabtune sim --sweep SWEEP.yaml",
	NULL,
};

struct sim_opts {
	const char *engine, *routing, *op, *algo, *proto, *sweep, *placement, *cluster, *counters;
	const char *trace, *trace_links;
	double trace_interval;
	uint32_t links[64];
	bool no_faults;
	uint64_t minb, maxb, qps, ranks, channels;
	double factor, fabric_scale;
};

/*
 * --save: the rows and what the twin was (ft_sim_report_obs(): the scenario,
 * engine, routing, description, faults, link utilisation, traced series).
 */
static int
save_report(struct cli_ctx *ctx, struct ft_sim_report *rep, const char *what)
{
	struct ft_obs_set obs;
	int rc;

	ft_obs_set_init(&obs);
	rc = ft_sim_report_obs(rep, &obs);
	if (rc == 0) {
		snprintf(rep->run.label, sizeof(rep->run.label), "sim %s", what);
		if (!rep->run.spec[0])
			ft_strlcpy(rep->run.spec, rep->cluster, sizeof(rep->run.spec));
		rc = cli_save_run(ctx, &rep->run, &obs, NULL, 0);
	} else {
		cli_error(ctx, "--save: out of memory");
	}
	ft_obs_set_release(&obs);
	return rc;
}

static int
run_report(struct cli_ctx *ctx, const struct ft_scenario *sc, const struct ft_sim_overrides *ov,
	   bool save, const char *what, const char *counters_dir, const char *trace)
{
	struct ft_sim_report rep;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	int rc;

	ft_sim_report_init(&rep);
	rc = ft_scenario_run(sc, ov, &ctx->progress, &rep, &err);
	ft_progress_bar_finish(&ctx->bar);
	if (rc < 0) {
		ft_sim_report_release(&rep);
		return cli_fail(ctx, rc, &err);
	}
	if (trace && rep.trace_json) {
		struct ft_strbuf tb = { .buf = rep.trace_json, .len = rep.trace_len };

		rc = cli_write_output(trace, &tb, &err);
		if (rc < 0) {
			ft_error_prefix(&err, "--trace: ");
			ft_sim_report_release(&rep);
			return cli_fail(ctx, rc, &err);
		}
	}
	if (counters_dir && (rc = ft_sim_report_write_counters(&rep, counters_dir, &err)) < 0) {
		ft_error_prefix(&err, "--counters: ");
		ft_sim_report_release(&rep);
		return cli_fail(ctx, rc, &err);
	}
	ft_strbuf_init(&sb);
	if (ctx->json) {
		struct ft_json j;

		ft_json_init(&j, &sb, true);
		ft_sim_report_json(&rep, ctx->stable, &j);
		ft_strbuf_addch(&sb, '\n');
	} else {
		ft_sim_report_text(&rep, ctx->stable, &sb);
	}
	cli_write(&sb);
	ft_strbuf_release(&sb);
	rc = EXIT_OK;
	if (save && save_report(ctx, &rep, what) < 0)
		rc = EXIT_RUNTIME;
	ft_sim_report_release(&rep);
	return rc;
}

static int
parse_overrides(struct cli_ctx *ctx, const struct sim_opts *o, struct ft_sim_overrides *ov)
{
	enum ft_routing r;

	ft_sim_overrides_init(ov);
	ov->no_faults = o->no_faults;
	ov->counters = o->counters != NULL;
	if (!o->trace != !o->trace_links) {
		cli_error(ctx, "--trace and --trace-links go together");
		return -1;
	}
	if (o->trace_links) {
		const char *p = o->trace_links;
		struct sim_opts *w = (struct sim_opts *)o;

		while (*p) {
			char *end;
			unsigned long v = strtoul(p, &end, 10);

			if (end == p || (*end && *end != ',') || v > UINT32_MAX ||
			    ov->ntrace_links >= FT_ARRAY_SIZE(w->links)) {
				cli_error(ctx,
				          "--trace-links: expected up to 64 link ids like 12,40,41, "
				          "got '%s'",
				          o->trace_links);
				return -1;
			}
			w->links[ov->ntrace_links++] = (uint32_t)v;
			p = *end ? end + 1 : end;
		}
		ov->trace_links = w->links;
		ov->trace_interval_s = o->trace_interval;
	}
	ov->cluster = o->cluster;
	if (o->placement) {
		static const char *const names[] = { "packed", "spread", "random" };
		int i;

		for (i = 0; i < 3; i++)
			if (strcmp(o->placement, names[i]) == 0)
				ov->placement = i;
		if (ov->placement < 0) {
			cli_error(ctx, "--placement: expected packed, spread or random, got '%s'",
			          o->placement);
			return -1;
		}
	}
	if (o->engine) {
		if (!ft_sim_engine_find(o->engine)) {
			cli_error(ctx, "--engine: expected analytic, flow, ideal or packet, got '%s'",
			          o->engine);
			return -1;
		}
		ov->engine = o->engine;
	}
	if (o->routing) {
		if (ft_routing_from_name(o->routing, &r) < 0) {
			cli_error(ctx,
			          "--routing: expected ecmp, dmodk, adaptive, minimal, valiant or dor, "
			          "got '%s'",
			          o->routing);
			return -1;
		}
		ov->routing = (int)r;
	}
	if (o->qps > 64) {
		cli_error(ctx, "--qps: expected 1 to 64, got %" PRIu64, o->qps);
		return -1;
	}
	ov->qps_per_conn = (uint32_t)o->qps;
	/* 0 would silently mean "keep", a tiny factor prints times of hundreds of digits */
	if (o->fabric_scale != -1 && !(o->fabric_scale >= 0.001 && o->fabric_scale <= 1000)) {
		cli_error(ctx, "--fabric-scale: expected a factor from 0.001 to 1000, got %g",
		          o->fabric_scale);
		return -1;
	}
	ov->fabric_scale = o->fabric_scale == -1 ? 0 : o->fabric_scale;
	ov->have_seed = ctx->have_seed;
	ov->seed = ctx->seed;
	return 0;
}

static int
from_op(struct cli_ctx *ctx, const char *spec, const struct sim_opts *o, struct ft_scenario **sc)
{
	struct ft_sim_sweep_args a = { 0 };
	struct ft_error err = { 0 };
	int rc;

	a.spec = spec;
	if (ft_op_from_name(o->op, &a.op) < 0 || !ft_op_is_modelled(a.op)) {
		cli_error(ctx,
		          "--op: expected all_reduce, all_gather, reduce_scatter, broadcast, "
		          "reduce, alltoall or sendrecv, got '%s'",
		          o->op);
		return EXIT_USAGE;
	}
	/* FT_ALGO_COUNT / FT_PROTO_COUNT: NCCL's tuner picks (the model's choice). */
	a.algo = FT_ALGO_COUNT;
	if (o->algo && strcmp(o->algo, "auto") != 0 && ft_algo_from_name(o->algo, &a.algo) < 0) {
		cli_error(ctx,
		          "--algo: expected auto, ring, tree, halving_doubling, direct, "
		          "hierarchical, nvls, nvls_tree or collnet, got '%s'",
		          o->algo);
		return EXIT_USAGE;
	}
	a.proto = FT_PROTO_COUNT;
	if (o->proto && strcmp(o->proto, "auto") != 0 &&
	    ft_proto_from_name(o->proto, &a.proto) < 0) {
		cli_error(ctx, "--proto: expected auto, simple, ll or ll128, got '%s'", o->proto);
		return EXIT_USAGE;
	}
	a.min_bytes = o->minb ? o->minb : 1 << 20;
	a.max_bytes = o->maxb ? o->maxb : a.min_bytes;
	a.factor = o->factor ? o->factor : (a.max_bytes > a.min_bytes ? 2 : 0);
	if (o->ranks > UINT32_MAX) {
		cli_error(ctx, "--ranks: too many");
		return EXIT_USAGE;
	}
	a.nranks = (uint32_t)o->ranks;
	if (o->channels > FT_SPEC_MAX_GPUS) {
		cli_error(ctx, "--channels: expected 1 to %d, got %" PRIu64, FT_SPEC_MAX_GPUS,
		          o->channels);
		return EXIT_USAGE;
	}
	a.channels = (uint32_t)o->channels;
	rc = ft_scenario_from_op(&a, sc, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	return EXIT_OK;
}

/* A sweep: one JSON document (rank 0 prints it; other MPI ranks print nothing). */
static int
cli_sim_sweep(struct cli_ctx *ctx, const char *path, const struct ft_sim_overrides *ov)
{
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	bool root = true;
	int rc;

	ft_strbuf_init(&sb);
	rc = ft_sim_sweep_run(path, ov, ctx->stable, &ctx->progress, &sb, &root, &err);
	ft_progress_bar_finish(&ctx->bar);
	if (rc < 0) {
		ft_strbuf_release(&sb);
		return root ? cli_fail(ctx, rc, &err) : cli_exit_for(rc);
	}
	if (root)
		cli_write(&sb);
	ft_strbuf_release(&sb);
	return EXIT_OK;
}

int
cmd_sim(int argc, char **argv, struct cli_ctx *ctx)
{
	struct sim_opts o = { .fabric_scale = -1 }; /* -1: --fabric-scale not given */
	bool save = false;
	const struct opt opts[] = {
		OPT_STRING(0, "engine", &o.engine, "NAME",
		           "analytic, flow, ideal or packet (default: flow)"),
		OPT_STRING(0, "routing", &o.routing, "R",
		           "ecmp, dmodk, adaptive; minimal, valiant (dragonfly); dor (torus)"),
		OPT_U64(0, "qps", &o.qps, "N", "flows per connection (NCCL_IB_QPS_PER_CONNECTION)"),
		OPT_DOUBLE(0, "fabric-scale", &o.fabric_scale, "X",
		           "multiply host and fabric link rates (0.5 halves them)"),
		OPT_STRING(0, "cluster", &o.cluster, "SPEC",
		           "run the scenario on another cluster (dgx-h100:512)"),
		OPT_STRING(0, "placement", &o.placement, "P",
		           "packed, spread or random for every job"),
		OPT_BOOL(0, "no-faults", &o.no_faults,
		         "ignore the scenario's faults (the healthy twin)"),
		OPT_STRING(0, "op", &o.op, "OP",
		           "collective to run on SPEC (all_reduce, alltoall, ...)"),
		OPT_STRING(0, "algo", &o.algo, "ALGO",
		           "algorithm (auto: as NCCL's tuner; ring, tree, direct, ...)"),
		OPT_STRING(0, "proto", &o.proto, "PROTO", "protocol (auto, simple, ll, ll128)"),
		OPT_SIZE('b', "minbytes", &o.minb, "smallest size (default 1M)"),
		OPT_SIZE('e', "maxbytes", &o.maxb, "largest size (default: minbytes)"),
		OPT_DOUBLE('f', "stepfactor", &o.factor, "F", "size multiplier (default 2)"),
		OPT_U64(0, "ranks", &o.ranks, "N", "ranks of the collective (default: every GPU)"),
		OPT_U64(0, "channels", &o.channels, "N",
		        "NCCL channels, one ring per rail (default: one per NIC)"),
		OPT_STRING(0, "sweep", &o.sweep, "FILE",
		           "run a parameter sweep (see docs/cmd/sim.md)"),
		OPT_BOOL(0, "save", &save, "store the result rows and link utilization in the archive"),
		OPT_STRING(0, "counters", &o.counters, "DIR",
		           "packet engine: write perfquery -x / ethtool -S files into DIR"),
		OPT_STRING(0, "trace", &o.trace, "FILE",
		           "packet engine: write the traced ports' rate and queue over time (JSON)"),
		OPT_STRING(0, "trace-links", &o.trace_links, "IDS",
		           "link ids to trace, comma-separated (fabtune topo --json)"),
		OPT_DURATION(0, "trace-interval", &o.trace_interval, "sampling interval (default 1us)"),
		OPT_END(),
	};
	const struct cmd_usage usage = {
		"sim", synopsis,
		"Simulate collectives, jobs, background traffic and faults on a cluster twin.", opts
	};
	struct ft_sim_overrides ov;
	struct ft_scenario *sc = NULL;
	struct ft_error err = { 0 };
	int n = opts_parse(&usage, ctx, argc, argv), rc;

	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	if (parse_overrides(ctx, &o, &ov) < 0)
		return EXIT_USAGE;
	if (o.sweep) {
		if (n != 0) {
			cli_error(ctx, "--sweep takes no other argument");
			return EXIT_USAGE;
		}
		if (save) {
			cli_error(ctx, "--save: a sweep prints one JSON document and saves nothing; "
				  "save single runs");
			return EXIT_USAGE;
		}
		return cli_sim_sweep(ctx, o.sweep, &ov);
	}
	if (n != 1) {
		cli_error(ctx, "expected one SCENARIO.yaml or SPEC (see 'fabtune sim --help')");
		return EXIT_USAGE;
	}
	/* --save: the archive must open before the simulation, not after it */
	if (save) {
		struct ft_archive *ar = NULL;
		int arc = ft_archive_open(ctx->archive && ctx->archive[0] ? ctx->archive : NULL, &ar,
		                          &err);

		ft_archive_close(ar);
		if (arc < 0) {
			cli_error(ctx, "--save: %s (checked before the simulation; nothing was run)",
			          ft_error_msg(&err, arc));
			return EXIT_USAGE;
		}
	}
	if (o.op) {
		rc = from_op(ctx, argv[1], &o, &sc);
		if (rc != EXIT_OK)
			return rc;
	} else {
		size_t len = strlen(argv[1]);
		bool yaml = (len > 5 && strcmp(argv[1] + len - 5, ".yaml") == 0) ||
		            (len > 4 && strcmp(argv[1] + len - 4, ".yml") == 0);

		int fd = ft_file_open_input(argv[1], NULL, &err);

		/* a FIFO, device, directory or oversized file: say that, not "not a scenario" */
		if (fd < 0 && fd != FT_ENOENT)
			return cli_fail(ctx, fd, &err);
		if (fd >= 0)
			close(fd);
		if ((access(argv[1], R_OK) == 0 || !yaml) && !ft_scenario_sniff(argv[1])) {
			cli_error(ctx,
			          "%s: not a scenario (no top-level 'cluster:'); to run a "
			          "collective on a spec give --op",
			          argv[1]);
			return EXIT_USAGE;
		}
		rc = ft_scenario_load_file(argv[1], &sc, &err);
		if (rc < 0)
			return cli_fail(ctx, rc, &err);
	}
	rc = run_report(ctx, sc, &ov, save, argv[1], o.counters, o.trace);
	ft_scenario_free(sc);
	return rc;
}

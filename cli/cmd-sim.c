/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-sim.c - `fabtune sim`: run a scenario, or one collective over a
 * range of sizes on a spec, through the analytic or the flow-level engine,
 * or a parameter sweep (split across MPI ranks when launched by mpirun).
 */
#include <stdio.h>
#include <string.h>

#include <fabtune/fabtune.h>
#include <fabtune/sim.h>

#include "cli-archive.h"
#include "cli-run.h"
#include "cli.h"

static const char *const synopsis[] = {
	"fabtune sim SCENARIO.yaml [--engine analytic|flow|ideal|packet] [--routing R] [--qps N]",
	"fabtune sim SPEC --op OP [-b SIZE] [-e SIZE] [-f FACTOR] [--algo A] [--proto P]",
	"fabtune sim --sweep SWEEP.yaml",
	NULL,
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
	struct ft_error err = { 0 }, qerr = { 0 };
	struct ft_strbuf sb;
	bool failed;
	int rc, frc;

	ft_sim_report_init(&rep);
	rc = ft_scenario_run(sc, ov, &ctx->progress, &rep, &err);
	ft_progress_bar_finish(&ctx->bar);
	/* A QP out of retries or a buffer deadlock ended the run: its report up to then is
	 * printed and its counters written (a real cluster's are read after the job
	 * failed), the error said last, and the exit code is the run's (3 for the QP, 2 for
	 * the deadlock, as before the report was kept). */
	failed = (rc == FT_EIO || (rc == FT_EINVAL && rep.failure.deadlock)) && rep.failure.failed;
	/* (split across MPI ranks, the failing rank has no whole report: its counters) */
	if (rc < 0 && !failed && counters_dir && rep.counter_files.len &&
	    ft_sim_report_write_counters(&rep, counters_dir, NULL) < 0)
		cli_error(ctx, "--counters: %s: not written", counters_dir);
	frc = rc;
	if (failed) {
		qerr = err;
		rc = 0;
	}
	if (rc == 0 && rep.part_rank) {
		/* One packet run split across MPI ranks: rank 0 prints and writes it. */
		ft_sim_report_release(&rep);
		return 0;
	}
	/* the jobs' NCCL release older than the cluster's GPUs, said once (fabtune model's) */
	if (rc == 0 && rep.nccl_note.first) {
		char msg[640];

		ft_model_nccl_note_text(&rep.nccl_note, rep.nccl_where, rep.nccl_field, msg,
		                        sizeof(msg));
		cli_warn(ctx, "%s", msg);
	}
	if (rc == 0 && trace && rep.trace_json) {
		struct ft_strbuf tb = { .buf = rep.trace_json, .len = rep.trace_len };

		rc = cli_write_output(trace, &tb, &err);
		if (rc < 0)
			ft_error_prefix(&err, "--trace: ");
	}
	if (rc == 0 && counters_dir) {
		rc = ft_sim_report_write_counters(&rep, counters_dir, &err);
		if (rc < 0)
			ft_error_prefix(&err, "--counters: ");
	}
	if (rc < 0) {
		ft_sim_report_release(&rep);
		return cli_fail(ctx, rc, &err);
	}
	ft_strbuf_init(&sb);
	ft_sim_report_write(&rep, ctx->stable, ctx->json, &sb);
	if (failed) {
		/* (a report out of memory is not printed: the error says so, then the run's) */
		if (sb.oom)
			cli_fail(ctx, FT_ENOMEM, NULL);
		else
			cli_write(&sb);
		ft_strbuf_release(&sb);
		fflush(stdout); /* the report, then the error that ended it */
		rc = cli_fail(ctx, frc, &qerr);
		/* Its rows are not a measurement of the op: the archive keeps none of them. */
		if (save)
			cli_error(ctx, "--save: not saved: the run failed before its ops ended "
				  "(the rows would read as results)");
		ft_sim_report_release(&rep);
		return rc;
	}
	rc = cli_finish(ctx, &sb, 0, &err);
	if (save && save_report(ctx, &rep, what) < 0)
		rc = EXIT_RUNTIME;
	ft_sim_report_release(&rep);
	return rc;
}

/* A sweep: one JSON document (rank 0 prints it; other MPI ranks print nothing). */
static int
cli_sim_sweep(struct cli_ctx *ctx, const char *path, const struct ft_sim_overrides *ov)
{
	struct ft_error err = { 0 };
	struct ft_strbuf sb, notes;
	bool root = true;
	int rc;

	ft_strbuf_init(&sb);
	ft_strbuf_init(&notes);
	rc = ft_sim_sweep_run(path, ov, ctx->stable, &ctx->progress, &sb, &notes, &root, &err);
	ft_progress_bar_finish(&ctx->bar);
	if (!root) {
		ft_strbuf_release(&sb);
		ft_strbuf_release(&notes);
		return cli_exit_for(rc);
	}
	/* the points' releases older than their GPUs, each said once, as a run says its own */
	for (char *p = notes.buf, *nl; rc == 0 && p && (nl = strchr(p, '\n')); p = nl + 1) {
		*nl = '\0';
		cli_warn(ctx, "%s", p);
	}
	ft_strbuf_release(&notes);
	return cli_finish(ctx, &sb, rc, &err);
}

int
cmd_sim(int argc, char **argv, struct cli_ctx *ctx)
{
	struct ft_sim_args o;
	const char *sweep = NULL, *counters = NULL, *trace = NULL;
	bool save = false;
	const struct opt opts[] = {
		OPT_STRING(0, "engine", &o.engine, "NAME",
		           "analytic, flow, ideal or packet (default: the scenario's, else flow)"),
		OPT_STRING(0, "routing", &o.routing, "R",
		           "ecmp, dmodk, minhop (updn: OpenSM's tables, InfiniBand), adaptive; "
		           "minimal, valiant (dragonfly); dor (torus)"),
		OPT_U64(0, "qps", &o.qps, "N", "flows per connection (NCCL_IB_QPS_PER_CONNECTION)"),
		OPT_DOUBLE(0, "fabric-scale", &o.fabric_scale, "X",
		           "multiply host and fabric link rates (0.5 halves them)"),
		OPT_DOUBLE(0, "rate-tolerance", &o.rate_tolerance, "R",
		           "flow engine: ends share rate updates within R of an FCT and of "
		           "a link (default 0.01; 0 exact)"),
		OPT_STRING(0, "cluster", &o.cluster, "SPEC",
		           "run the scenario on another cluster (dgx-h100:512)"),
		OPT_STRING(0, "placement", &o.placement, "P",
		           "packed, spread or random for every job"),
		OPT_BOOL(0, "no-faults", &o.no_faults,
		         "ignore the scenario's faults (the healthy twin)"),
		OPT_BOOL(0, "no-nvls", &o.no_nvls,
		         "NVLink SHARP off (NCCL_NVLS_ENABLE=0): no nvls or nvls_tree"),
		OPT_STRING(0, "nccl", &o.nccl, "VERSION",
		           "NCCL release the jobs run, X.Y or X.Y.Z: 2.18 ... 2.30 "
		           "(default: the newest)"),
		OPT_STRING(0, "op", &o.op, "OP",
		           "collective to run on SPEC (all_reduce, alltoall, ...)"),
		OPT_STRING(0, "algo", &o.algo, "ALGO",
		           "algorithm (auto: as NCCL's tuner; ring, tree, direct, ...)"),
		OPT_STRING(0, "proto", &o.proto, "PROTO", "protocol (auto, simple, ll, ll128)"),
		OPT_SIZE_RANGE(&o.minb, &o.maxb, "default 1M, or -e", "default: minbytes"),
		OPT_DOUBLE('f', "stepfactor", &o.factor, "F", "size multiplier (default 2)"),
		OPT_U64(0, "ranks", &o.ranks, "N", "ranks of the collective (default: every GPU)"),
		OPT_U64(0, "channels", &o.channels, "N",
		        "NCCL channels, one ring per rail (default: one per NIC)"),
		OPT_STRING(0, "sweep", &sweep, "FILE",
		           "run a parameter sweep (see docs/cmd/sim.md)"),
		OPT_SAVE(&save, "the result rows and link utilization"),
		OPT_STRING(0, "counters", &counters, "DIR",
		           "packet engine: write perfquery -x / ethtool -S files into DIR"),
		OPT_STRING(0, "trace", &trace, "FILE",
		           "packet engine: write the traced ports' rate and queue over time (JSON)"),
		OPT_STRING(0, "trace-links", &o.trace_links, "IDS",
		           "link ids to trace, comma-separated (fabtune topo --json)"),
		OPT_STRING(0, "trace-qps", &o.trace_qps, "IDS",
		           "and the reaction point's rate of these flows' QPs (flow ids)"),
		OPT_DURATION(0, "trace-interval", &o.trace_interval, "sampling interval (default 1us)"),
		OPT_U64(0, "list-flows", &o.list_flows, "N",
		        "packet engine: list the first N flows (ids for --trace-qps)"),
		OPT_END(),
	};
	const struct cmd_usage usage = {
		"sim", synopsis,
		"Simulate collectives, jobs, background traffic and faults on a cluster twin.", opts
	};
	struct ft_sim_overrides ov;
	struct ft_scenario *sc = NULL;
	struct ft_error err = { 0 };
	int n, rc;

	ft_sim_args_init(&o);
	n = opts_parse_args(&usage, ctx, argc, argv, -1, &rc);
	if (n < 0)
		return rc;
	o.counters = counters != NULL;
	o.trace = trace != NULL;
	o.have_seed = ctx->have_seed;
	o.seed = ctx->seed;
	rc = ft_sim_args_overrides(&o, &ov, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	if (sweep) {
		const char *only = o.op ? "--op" : ft_sim_args_op_only(&o);

		if (n != 0) {
			cli_error(ctx, "--sweep takes no other argument");
			return EXIT_USAGE;
		}
		if (save) {
			cli_error(ctx, "--save: a sweep prints one JSON document and saves nothing; "
				  "save single runs");
			return EXIT_USAGE;
		}
		if (only) {
			cli_error(ctx, "%s: not with --sweep; the sweep file sets its collectives",
				  only);
			return EXIT_USAGE;
		}
		return cli_sim_sweep(ctx, sweep, &ov);
	}
	if (n != 1) {
		cli_error(ctx, "expected one SCENARIO.yaml or SPEC (see 'fabtune sim --help')");
		return EXIT_USAGE;
	}
	/* --save: the archive must open before the simulation, not after it */
	if (save && cli_save_check(ctx, "the simulation") < 0)
		return EXIT_USAGE;
	/* -e alone is the one size, as -b alone (0: not given) */
	opts_size_alone(&o.minb, &o.maxb, 0);
	rc = ft_sim_args_scenario(&o, argv[1], &sc, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	rc = run_report(ctx, sc, &ov, save, argv[1], counters, trace);
	ft_scenario_free(sc);
	return rc;
}

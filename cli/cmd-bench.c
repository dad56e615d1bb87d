/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-bench.c - `fabtune bench`: measure this host or cluster. Ranks start
 * under mpirun/srun/torchrun, by `--np N` (ft_bench_spawn fork/execs them here)
 * or by hand (--rank, --nranks, --bootstrap). The flags are nccl-tests' and
 * perftest's (src/bench/dropin.c), the tables theirs (src/bench/table.c): this
 * file parses the options and calls the library.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fabtune/fabtune.h>

#include "cli-archive.h"
#include "cli-run.h"
#include "cli.h"

static volatile sig_atomic_t stop_flag;

static void
on_sigint(int sig)
{
	stop_flag = 1;
	ft_bench_spawn_signal(sig);
}

/*
 * What timed each rank's latency samples, as observations of that rank
 * (rep->clocks): bench.clock_hz (str "tsc" or "monotonic", num the
 * counter's calibrated rate in Hz, none on CLOCK_MONOTONIC) and
 * bench.clock_error (ppm, the bound on that rate's error).
 */
static int
clock_obs(const struct ft_bench_report *rep, struct ft_obs_set *obs)
{
	uint32_t r;
	int rc = 0;

	for (r = 0; rep->clocks && r < rep->nranks && rc == 0; r++) {
		const struct ft_bench_clock *c = &rep->clocks[r];
		struct ft_obs o;

		if (!c->source[0])
			continue;
		ft_obs_init(&o, "bench.clock_hz");
		o.rank = (int)r;
		ft_strlcpy(o.host, rep->ranks[r].host, sizeof(o.host));
		ft_strlcpy(o.str, c->source, sizeof(o.str));
		ft_strlcpy(o.unit, "Hz", sizeof(o.unit));
		o.has_num = c->hz == c->hz; /* not NaN */
		o.num = o.has_num ? c->hz : 0;
		o.file = "bench";
		rc = ft_obs_set_add(obs, &o);
		if (rc == 0 && c->error == c->error) {
			ft_obs_init(&o, "bench.clock_error");
			o.rank = (int)r;
			ft_strlcpy(o.host, rep->ranks[r].host, sizeof(o.host));
			ft_strlcpy(o.unit, "ppm", sizeof(o.unit));
			o.has_num = true;
			o.num = c->error * 1e6;
			o.file = "bench";
			rc = ft_obs_set_add(obs, &o);
		}
	}
	return rc;
}

/* --save: the rows, and the observations the diagnosis reads from them, with the fingerprint. */
static int
bench_save(const struct ft_bench_report *rep, struct cli_ctx *ctx)
{
	struct ft_obs_set obs;
	int rc;

	ft_obs_set_init(&obs);
	rc = ft_diag_obs_from_run(&rep->run, "bench", &obs);
	if (rc >= 0)
		rc = clock_obs(rep, &obs);
	if (rc < 0)
		cli_error(ctx, "--save: out of memory");
	else
		rc = cli_save_run(ctx, &rep->run, &obs, NULL, 0);
	ft_obs_set_release(&obs);
	return rc;
}

/* Rank 0's text: rows as they come (nccl-tests and perftest print that way too), then the
   rest; or the JSON document at the end. --json-file: the table, and the document in a file. */
struct out {
	const struct cli_ctx *ctx;
	struct ft_bench_table t;
	const struct ft_bench_cfg *cfg;
	bool started, low; /* low: NCCL_TESTS_MIN_BW was not reached */
	const char *json_file;
	bool json_failed; /* the file could not be written (said) */
};

/* One row (ft_bench_cfg.on_row), or with @row NULL what is left at the end. */
static void
emit(void *ud, const struct ft_bench_report *rep, const struct ft_result_row *row)
{
	struct out *st = ud;
	struct ft_strbuf sb;

	ft_strbuf_init(&sb);
	if (row && !st->started)
		ft_bench_table_head(&sb, &st->t, rep, st->cfg);
	if (row)
		ft_bench_table_row(&sb, &st->t, st->cfg, row);
	else if (st->ctx->json)
		ft_bench_report_json(&sb, &st->t, rep, st->cfg);
	else
		st->low = ft_bench_table_end(&sb, &st->t, rep, st->cfg, st->started);
	st->started = st->started || row;
	ft_progress_bar_finish((struct ft_progress_bar *)&st->ctx->bar);
	cli_write(&sb);
	fflush(stdout);
	ft_strbuf_release(&sb);
	/* the same report as a document, beside the table (or the --json on stdout) */
	if (!row && st->json_file) {
		struct ft_error err = { 0 };

		ft_strbuf_init(&sb);
		ft_bench_report_json(&sb, &st->t, rep, st->cfg);
		if (cli_write_output(st->json_file, &sb, &err) < 0) {
			cli_error(st->ctx, "--json-file: %s", err.msg);
			st->json_failed = true;
		}
		ft_strbuf_release(&sb);
	}
}

static int
run_rank(const struct ft_bench_args *a, bool gbits, bool save, const char *json_file,
         const struct ft_bench_cfg *cfg, struct cli_ctx *ctx)
{
	struct ft_world *w = NULL;
	struct ft_bench_report rep;
	struct ft_bench_cfg c = *cfg;
	struct ft_error err = { 0 };
	struct out stream = { ctx, { ctx->stable, gbits, getenv("NCCL_TESTS_MIN_BW") }, &c };
	struct ft_bench_dropin prog;
	int rc, ret;
	uint32_t me;
	bool shows;

	stream.json_file = json_file;
	if (a->table_format && ft_bench_table_style_from_name(a->table_format, &stream.t.style) < 0)
		return EXIT_USAGE; /* ft_bench_args_to_cfg said why */
	/* nccl-tests' header names -t and -g as given, and 2.18's lines the program run */
	stream.t.nthreads = (uint32_t)a->nthreads;
	stream.t.ngpus = (uint32_t)a->ngpus;
	if (a->pattern && ft_bench_dropin_name(a->pattern, &prog, NULL) == 0 &&
	    strcmp(prog.tool, "nccl-tests") == 0)
		stream.t.test_name = prog.program;
	rc = ft_bench_args_join(a, cfg, &w, &err);
	/* a transport this host lacks is a usage error, as when the run finds it (below) */
	if (rc < 0)
		return cli_error(ctx, "%s", ft_error_msg(&err, rc)),
		       rc == FT_EINTR   ? EXIT_RUNTIME :
		       rc == FT_ENOTSUP ? EXIT_USAGE :
		                          cli_exit_for(rc);
	me = ft_world_rank(w);
	/* perftest's client prints the table as its server does (both get the rows) */
	shows = me == 0 || a->peer == FT_BENCH_PEER_CLIENT;
	if (me == 0)
		c.progress = ctx->progress;
	if (shows && !ctx->json && ft_bench_table_streams(&c)) {
		c.on_row = emit;
		c.on_row_ud = &stream;
	}
	ft_bench_report_init(&rep);
	rc = ft_bench_run_sweep(w, a, &c, &rep, &err);
	if (shows && (rc == 0 || rep.interrupted))
		emit(&stream, &rep, NULL);
	ret = stream.low ? EXIT_PROBLEM : EXIT_OK;
	if (rc < 0 && !(rc == FT_EINTR && me != 0)) {
		cli_error(ctx, "%s", ft_error_msg(&err, rc)); /* it names the rank and host */
		ret = rc == FT_EINTR                                           ? EXIT_RUNTIME :
		      (rc == FT_EINVAL || rc == FT_ERANGE || rc == FT_ENOTSUP) ? EXIT_USAGE :
		                                                                 EXIT_RUNTIME;
		if (rc != FT_EINTR && rc != FT_EINVAL && rc != FT_ERANGE)
			ft_world_abort(w, ret);
	} else if (rc == FT_EINTR) {
		ret = EXIT_RUNTIME;
	}
	if (rc == 0 && shows && ft_bench_report_failed(&rep))
		ret = EXIT_PROBLEM;
	if (stream.json_failed)
		ret = EXIT_RUNTIME;
	if (rc == 0 && shows && save && bench_save(&rep, ctx) < 0)
		ret = EXIT_RUNTIME;
	ft_bench_report_release(&rep);
	ft_world_free(w);
	return ret;
}

static bool
is_perftest(const char *name)
{
	struct ft_bench_dropin d;

	return ft_bench_dropin_name(name, &d, NULL) == 0 && strcmp(d.tool, "perftest") == 0;
}

static void
say(void *ud, const char *msg)
{
	cli_error(ud, "%s", msg);
}

int
cmd_bench(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = {
		"fabtune bench [PATTERN] [--np N] [options]",
		"fabtune bench [PATTERN] --rank R --nranks N --bootstrap ADDR:PORT [options]",
		"fabtune bench ib_send_bw|ib_write_bw|... [options] [-p PORT] [SERVER]",
		"mpirun -np N fabtune bench [PATTERN] [options]",
		NULL,
	};
	struct ft_bench_args a;
	bool gbits = false, save = false, cpu_freq = false;
	const char *json_file = NULL;
	const struct opt opts[] = {
		OPT_STRING(
		        0, "pattern", &a.pattern, "NAME",
		        "pt2pt_bw, pt2pt_lat, pairs, bisection, incast, all_reduce (default), "
		        "all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv, gather, "
		        "scatter, hypercube, dev_memcpy, copy_matrix; or a program's name: "
		        "all_reduce_perf, all_gather_perf_mpi, ..., ib_write_bw, ib_send_lat, ..."),
		OPT_STRING(0, "transport", &a.transport, "NAME",
		           "auto (default), tcp, shm, mpi, verbs, nccl, ucx"),
		OPT_SIZE_RANGE(&a.minb, &a.maxb, "nccl-tests -b", "nccl-tests -e"),
		OPT_U64('f', "stepfactor", &a.factor, "N", "multiply the size by N each step"),
		OPT_SIZE('i', "stepbytes", &a.stepb, "add this many bytes each step instead"),
		OPT_U64('n', "iters", &a.iters, "N", "timed iterations per size"),
		OPT_U64('w', "warmup_iters", &a.warmup, "N", "untimed iterations per size (5)"),
		OPT_U64('m', "agg_iters", &a.agg_iters, "N", "operations per timed iteration (1)"),
		OPT_INT('c', "check", &a.check, "0|1", "validate the data, #wrong column (1)"),
		OPT_STRING('o', "op", &a.op, "OP",
		           "reduction: sum (default), prod, max, min, avg, mulsum, all"),
		OPT_STRING('d', "datatype", &a.dtype, "TYPE",
		           "float (default), double, half, bfloat16, int8, uint8, int32, uint32, "
		           "int64, uint64, all"),
		OPT_INT('z', "blocking", &a.blocking, "0|1", "sync all ranks after each iteration"),
		OPT_INT('a', "average", &a.average, "0-3",
		        "time across ranks: 0 rank 0, 1 mean (default), 2 min, 3 max"),
		OPT_INT('r', "root", &a.root, "RANK", "root of broadcast, reduce and incast (0)"),
		OPT_U64('t', "nthreads", &a.nthreads, "N",
		        "nccl-tests: threads per process; here N local ranks each (1)"),
		OPT_U64('g', "ngpus", &a.ngpus, "N",
		        "nccl-tests: GPUs per thread; here N local ranks each (1)"),
		OPT_U64('N', "run_cycles", &a.cycles, "N",
		        "run the sweep N times, 0 = until ^C (1)"),
		OPT_INT('C', "report_cputime", &a.cputime, "0|1", "report CPU time, not wall time"),
		OPT_STRING('T', "timeout", &a.timeout_str, "TIME",
		           "a silent peer is dead after this: seconds or 30s, 2min (30)"),
		OPT_INT('G', "cudagraph", &a.graph, "N",
		        "nccl-tests: CUDA graph launches (nccl transport; 0: none)"),
		OPT_INT('p', "parallel_init", &a.parallel_init, "0|1",
		        "nccl-tests: init threads in parallel (no effect: one thread)"),
		OPT_INT('y', "stream_null", &a.stream_null, "0|1",
		        "nccl-tests: default CUDA stream (no effect on host transports)"),
		OPT_INT('R', "local_register", &a.local_register, "0|1",
		        "nccl-tests: register buffers (shm always maps them; 0 or 1)"),
		OPT_U64(0, "np", &a.np, "N", "start N ranks on this host (fork/exec)"),
		OPT_STRING(0, "bind", &a.bind, "HOW",
		           "local ranks' CPUs: core (default when each rank gets one), numa, none"),
		OPT_STRING(
		        0, "spin", &a.spin, "WHEN",
		        "waiting ranks busy-poll first: auto (a CPU per local rank), always, never"),
		OPT_U64(0, "rank", &a.rank, "R", "manual launch: this process's rank"),
		OPT_U64(0, "nranks", &a.nranks, "N", "manual launch: number of ranks"),
		OPT_STRING(0, "bootstrap", &a.bootstrap, "ADDR:PORT",
		           "manual launch: rank 0's bootstrap address"),
		OPT_U64(0, "port", &a.port, "PORT",
		        "perftest's -p: the server and client forms' TCP port (18515)"),
		OPT_BOOL(0, "ipv6-addr", &a.ipv6_addr,
		         "perftest's --ipv6-addr: the server and client forms meet over IPv6"),
		OPT_STRING('D', "duration", &a.duration_str, "SEC",
		           "perftest: run each size this long instead of -n (pt2pt)"),
		OPT_U64('q', "qp", &a.qps, "N", "perftest: queue pairs; tcp: sockets per peer (1)"),
		OPT_SIZE('s', "size", &a.msg_size, "perftest: one message size (-b and -e)"),
		OPT_BOOL(
		        0, "all-sizes", &a.all_sizes,
		        "perftest's -a: sizes 2 B to 8 MiB (-a is perftest's after a pt2pt pattern)"),
		OPT_BOOL(0, "report_gbits", &gbits, "perftest: bandwidth in Gb/sec, not MB/sec"),
		OPT_BOOL('F', "CPU-freq", &cpu_freq,
		         "perftest: no CPU frequency warning (no effect: none is printed)"),
		OPT_STRING(0, "table-format", &a.table_format, "VER",
		           "nccl-tests' table layout: classic (default) or 2.18"),
		OPT_STRING(0, "ifname", &a.ifname, "SPEC",
		           "interfaces as NCCL_SOCKET_IFNAME: eth, ^docker, =eth0"),
		OPT_U64(0, "streams", &a.streams, "N", "tcp: sockets per peer (1)"),
		OPT_SIZE(0, "sockbuf", &a.sockbuf, "tcp: socket buffer size (256K on one host, else the kernel's)"),
		OPT_BOOL(0, "no-nodelay", &a.no_nodelay, "tcp: leave Nagle's algorithm on"),
		OPT_SIZE(0, "shm-max", &a.shm_max,
		         "shm: most buffer memory in the segment (half the RAM)"),
		OPT_STRING(0, "cma-min", &a.cma_min, "SIZE",
		           "shm: single copy (process_vm_readv) from this size on, off, or "
		           "auto[:SIZE] (auto:64K)"),
		OPT_U64(0, "window", &a.window, "N", "messages in flight (pt2pt 64, pairs 8)"),
		OPT_BOOL(0, "bidir", &a.bidir, "pt2pt: both directions at once"),
		OPT_BOOL(0, "gpu-buffers", &a.gpu_buffers,
		         "buffers in GPU memory (tcp, shm, ucx: staged through the host)"),
		OPT_DOUBLE(0, "threshold", &a.threshold, "F",
		           "pairs: outlier below F x median (0.7)"),
		OPT_BOOL(0, "no-retest", &a.no_retest, "pairs: skip retesting bad pairs"),
		OPT_U64(0, "rounds", &a.rounds, "N", "bisection: random matchings (5)"),
		OPT_STRING(0, "verbs-op", &a.verbs_op, "OP",
		           "verbs: send (default), write, read, fadd, cswap"),
		OPT_STRING('A', "atomic_type", &a.atomic_type, "TYPE",
		           "perftest: FETCH_AND_ADD or CMP_AND_SWAP (--verbs-op fadd, cswap)"),
		OPT_STRING(0, "connection", &a.conn, "RC|UD",
		           "verbs: perftest's -c, RC (default) or UD (send, one MTU)"),
		OPT_STRING(0, "rdma-device", &a.rdma_dev, "DEV", "verbs: device (first active)"),
		OPT_INT(0, "gid-index", &a.gid_index, "N", "verbs on RoCE: GID index (0)"),
		OPT_SAVE(&save, "the run"),
		OPT_STRING(0, "json-file", &json_file, "FILE",
		           "print the table and write the --json document of the same run to FILE"),
		OPT_END(),
	};
	const struct cmd_usage usage = {
		"bench",
		synopsis,
		"Measure point-to-point bandwidth and latency, all pairs, bisection, incast and\n"
		"collectives over tcp, shm, mpi, verbs or nccl, with nccl-tests' and perftest's\n"
		"flags and tables.",
		opts,
	};
	struct ft_bench_cfg cfg;
	struct ft_error err = { 0 };
	struct sigaction sa;
	char **orig;
	int n, rc;

	ft_bench_args_init(&a);
	/* -t is nccl-tests' thread count: a transport's name there is a slip worth naming */
	for (n = 1; n + 1 < argc; n++) {
		static const char *const transports[] = { "auto", "tcp", "shm", "mpi",
			                                  "verbs", "nccl", "ucx" };

		if (strcmp(argv[n], "-t") != 0 && strcmp(argv[n], "--nthreads") != 0)
			continue;
		for (size_t k = 0; k < sizeof(transports) / sizeof(transports[0]); k++)
			if (strcmp(argv[n + 1], transports[k]) == 0) {
				cli_error(ctx,
				          "%s %s: -t is nccl-tests' thread count; the transport is "
				          "--transport %s",
				          argv[n], argv[n + 1], argv[n + 1]);
				return EXIT_USAGE;
			}
	}
	/* perftest's letters with no counterpart here: said, not taken for nccl-tests' */
	if (ft_bench_args_perftest_check(argc, argv, &err) < 0) {
		cli_error(ctx, "%s", err.msg);
		return EXIT_USAGE;
	}
	orig = calloc((size_t)argc + 1, sizeof(*orig));
	if (!orig)
		return EXIT_RUNTIME;
	ft_bench_args_perftest_a(argc, argv);
	memcpy(orig, argv + 1, (size_t)(argc - 1) * sizeof(*orig));
	n = opts_parse(&usage, ctx, argc, argv);
	rc = n < 0 ? (n == -2 ? EXIT_OK : EXIT_USAGE) : -1;
	/* perftest's client form: the server's name after the program's (and its options) */
	if (rc < 0 && n == 2 && !a.pattern && is_perftest(argv[1])) {
		a.pattern = argv[1];
		a.server = argv[2];
		n = 0;
	} else if (rc < 0 && n == 1 && a.pattern && is_perftest(a.pattern)) {
		a.server = argv[1];
		n = 0;
	}
	if (rc < 0 && ((n > 2 && !a.pattern && is_perftest(argv[1])) ||
	               (n > 1 && a.pattern && is_perftest(a.pattern)))) {
		cli_error(ctx, "%s %s %s: perftest's client form names one server",
		          a.pattern ? a.pattern : argv[1], argv[a.pattern ? 1 : 2],
		          argv[a.pattern ? 2 : 3]);
		rc = EXIT_USAGE;
	} else if (rc < 0 && (n > 1 || (n == 1 && a.pattern))) {
		cli_error(ctx, "one pattern at most (got '%s')", argv[n]);
		rc = EXIT_USAGE;
	}
	if (rc < 0 && n == 1 && !a.pattern)
		a.pattern = argv[1];
	a.seed = ctx->seed;
	a.stop = &stop_flag;
	if (rc < 0 &&
	    (ft_bench_args_launch(&a, &err) < 0 || ft_bench_args_to_cfg(&a, &cfg, &err) < 0)) {
		cli_error(ctx, "%s", err.msg);
		rc = EXIT_USAGE;
	}
	/* --np N: what N ranks cannot run is said once, here, not by each of them */
	if (rc < 0 && a.np > 1 && !a.have_rank && !ft_world_launched_by_mpi() &&
	    ft_bench_cfg_check_world(&cfg, (uint32_t)a.np, &err) < 0) {
		cli_error(ctx, "%s", err.msg);
		rc = EXIT_USAGE;
	}
	/* --save: the archive must open before minutes of measuring (rank 0 saves) */
	if (rc < 0 && save &&
	    (a.peer == FT_BENCH_PEER_CLIENT ||
	     (a.have_rank ? a.rank == 0 : ft_bench_launcher_rank() == 0)) &&
	    cli_save_check(ctx, "the benchmark") < 0)
		rc = EXIT_USAGE;
	/* --json-file: checked before the run, written by the rank that prints the table */
	if (rc < 0 && json_file &&
	    (a.peer == FT_BENCH_PEER_CLIENT ||
	     (a.have_rank ? a.rank == 0 : ft_bench_launcher_rank() == 0)) &&
	    cli_check_output_path("--json-file", json_file, &err) < 0) {
		cli_error(ctx, "%s", err.msg);
		rc = EXIT_USAGE;
	}
	if (rc >= 0) {
		free(orig);
		return rc;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (a.np > 1 && !a.have_rank && !ft_world_launched_by_mpi()) {
		struct ft_bench_spawn sp = { (uint32_t)a.np, argc - 1, orig, cfg.timeout_s,
			                     &stop_flag,     say,      ctx };

		rc = ft_bench_spawn(&sp, &err);
		if (rc < 0)
			rc = cli_fail(ctx, rc, &err);
	} else {
		rc = run_rank(&a, gbits, save, json_file, &cfg, ctx);
	}
	free(orig);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-bench.c - `fabtune bench`: measure this host or cluster.
 *
 * Three ways to start ranks: under mpirun/srun (MPI is detected from the
 * environment), `--np N` (this process becomes a small launcher that
 * fork/execs N ranks of itself on this host and watches them), or by hand
 * with `--rank R --nranks N --bootstrap ADDR:PORT` on each host. Rank 0
 * prints the results: nccl-tests' table for collectives, perftest's for
 * point-to-point, a matrix and the outliers for pairs; --json prints the
 * shared result model instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fabtune/fabtune.h>

#include "bench-table.h"
#include "cli.h"
#include "glue.h"

static volatile sig_atomic_t stop_flag;
static pid_t *child_pids;
static size_t nchildren;

static void
on_sigint(int sig)
{
	size_t i;

	stop_flag = 1;
	for (i = 0; i < nchildren; i++)
		if (child_pids[i] > 0)
			kill(child_pids[i], sig);
}

struct bench_opts {
	const char *pattern, *transport, *op, *dtype, *bootstrap, *ifname, *verbs_op, *rdma_dev;
	const char *bind, *timeout_str;
	uint64_t minb, maxb, stepb, factor, iters, warmup, np, rank, nranks, window, streams;
	uint64_t nthreads, ngpus, agg_iters, cycles;
	int cputime, graph, parallel_init, stream_null, local_register;
	bool all_types, all_ops; /* -d all, -o all */
	/* perftest: -D, -q, -s, --report_gbits, -a (as --all-sizes) */
	const char *duration_str;
	uint64_t qps, msg_size;
	bool gbits, all_sizes;
	uint64_t rounds, sockbuf, shm_max, cma_min;
	int check, blocking, average, root, gid_index;
	double timeout, threshold;
	bool bidir, no_nodelay, no_retest, save, have_rank;
};

/* --save: the rows, and the observations the diagnosis reads from them, with the fingerprint. */
static int
bench_save_run(const struct ft_bench_report *rep, struct cli_ctx *ctx, struct ft_error *err)
{
	struct ft_archive *ar = NULL;
	struct ft_obs_set obs;
	int64_t id = 0;
	int rc;

	ft_obs_set_init(&obs);
	rc = cli_bench_obs(&rep->run, "bench", &obs);
	if (rc < 0)
		rc = ft_error_set(err, rc, "--save: out of memory");
	if (rc == 0)
		rc = ft_archive_open(ctx->archive && ctx->archive[0] ? ctx->archive : NULL, &ar, err);
	if (rc == 0) {
		struct ft_run run = rep->run; /* shallow: the rows stay the report's */

		if (!run.label[0])
			snprintf(run.label, sizeof(run.label), "%s over %s, %u ranks",
				 ft_run_nrows(&run) ? ft_run_row(&run, 0)->test : "bench",
				 rep->transport, rep->nranks);
		rc = cli_save_run_to(ar, &run, &obs, NULL, 0, &id, err);
		if (rc == 0)
			fprintf(stderr, "fabtune bench: saved run %" PRId64 " to %s\n", id,
				ft_archive_path(ar));
		ft_archive_close(ar);
	}
	ft_obs_set_release(&obs);
	return rc;
}

/* ---- rendering --------------------------------------------------------------- */

static const char *
time_str(double us, char *buf, size_t len)
{
	/* nccl-tests: fewer decimals as the number grows, 7 columns */
	if (!isfinite(us))
		snprintf(buf, len, "%7s", "N/A");
	else if (us >= 10000)
		snprintf(buf, len, "%7.0f", us);
	else if (us >= 100)
		snprintf(buf, len, "%7.1f", us);
	else
		snprintf(buf, len, "%7.2f", us);
	return buf;
}

static void
render_header(struct ft_strbuf *sb, const struct ft_bench_report *rep,
              const struct ft_bench_cfg *cfg, const struct cli_ctx *ctx)
{
	uint32_t r;

	ft_strbuf_addf(sb, "# fabtune bench %s: transport %s, %u ranks\n",
	               ft_op_name(cfg->pattern), rep->transport, rep->nranks);
	/* nccl-tests 2.18's opening line: the test's name for whoever reads the log */
	if (ft_op_is_coll(cfg->pattern))
		ft_strbuf_addf(sb, "# Collective test starting: %s_perf\n",
		               ft_op_name(cfg->pattern));
	/* every rank is one process with one thread and one device (or none) */
	ft_strbuf_addf(sb,
	               "# nThread 1 nGpus 1 minBytes %" PRIu64 " maxBytes %" PRIu64
	               " step: %" PRIu64 "(%s) warmup iters: %u iters: %u agg iters: %u "
	               "validation: %d graph: 0\n",
	               cfg->min_bytes, cfg->max_bytes,
	               cfg->step_bytes ? cfg->step_bytes : cfg->step_factor,
	               cfg->step_bytes ? "bytes" : "factor", cfg->warmup, cfg->iters,
	               cfg->agg_iters ? cfg->agg_iters : 1, cfg->check ? 1 : 0);
	ft_strbuf_adds(sb, "#\n# Using devices\n");
	for (r = 0; r < rep->nranks; r++) {
		const struct ft_rank_info *i = &rep->ranks[r];

		ft_strbuf_addf(sb,
		               "#  Rank %2u Pid %6d on %10s numa %2d %s (%s) devices: %s bind: %s",
		               r, ctx->stable ? 0 : (int)i->pid, i->host, (int)i->numa, i->addr,
		               i->ifname, i->devices[0] ? i->devices : "-",
		               i->bind[0] ? i->bind : "none");
		if (!ctx->stable && i->cpus[0])
			ft_strbuf_addf(sb, " cpus %s", i->cpus);
		ft_strbuf_addch(sb, '\n');
	}
	ft_strbuf_adds(sb, "#\n");
}

void
cli_bench_coll_head(struct ft_strbuf *sb)
{
	ft_strbuf_adds(sb, "#                                                              "
	                   "out-of-place                       in-place\n");
	ft_strbuf_adds(sb, "#       size         count      type   redop    root     time   algbw"
	                   "   busbw #wrong     time   algbw   busbw #wrong\n");
	ft_strbuf_adds(sb, "#        (B)    (elements)                               (us)  (GB/s)"
	                   "  (GB/s)            (us)  (GB/s)  (GB/s)\n");
}

void
cli_bench_coll_row(struct ft_strbuf *sb, const struct ft_result_row *row)
{
	char t1[16], t2[16], w[24];

	/* nccl-tests prints the count as a double with %g (1e+06 beyond 5 digits) */
	if (row->wrong >= 0)
		snprintf(w, sizeof(w), "%g", (double)row->wrong);
	else
		snprintf(w, sizeof(w), "N/A");
	ft_strbuf_addf(sb,
	               "%12" PRIu64 "  %12" PRIu64 "  %8s  %6s  %6d  %7s  %6.2f  %6.2f  %5s"
	               "  %7s  %6.2f  %6.2f  %5s\n",
	               row->bytes, row->count, row->dtype, row->redop, row->root,
	               time_str(row->time_us, t1, sizeof(t1)), row->algbw_GBps, row->busbw_GBps, w,
	               time_str(row->ip_time_us, t2, sizeof(t2)), row->ip_algbw_GBps,
	               row->ip_busbw_GBps, w);
}

/*
 * nccl-tests' two closing lines. Its "Avg bus bandwidth" is the mean busbw of
 * every timed test, out-of-place and in-place alike; NCCL_TESTS_MIN_BW sets
 * a floor (FAILED below 90% of it). Returns true when that check failed.
 */
bool
cli_bench_coll_foot(struct ft_strbuf *sb, const struct ft_bench_report *rep)
{
	double sum = 0, avg, floor = -1;
	int64_t wrong = 0;
	size_t i, n = ft_run_nrows(&rep->run), nbw = 0;
	const char *env = getenv("NCCL_TESTS_MIN_BW");
	bool low;

	for (i = 0; i < n; i++) {
		const struct ft_result_row *row = ft_run_row(&rep->run, i);

		if (row->wrong > 0)
			wrong += row->wrong;
		if (isfinite(row->busbw_GBps)) {
			sum += row->busbw_GBps;
			nbw++;
		}
		if (isfinite(row->ip_busbw_GBps) && isfinite(row->ip_time_us)) {
			sum += row->ip_busbw_GBps;
			nbw++;
		}
	}
	if (env && *env)
		floor = atof(env);
	avg = nbw ? sum / (double)nbw : 0.0;
	low = floor != -1 && avg < floor * 0.9;
	ft_strbuf_addf(sb, "# Out of bounds values : %" PRId64 " %s\n", wrong,
	               wrong ? "FAILED" : "OK");
	/* the space before the verdict is there when it is empty too, as nccl-tests prints it */
	ft_strbuf_addf(sb, "# Avg bus bandwidth    : %g %s\n", avg,
	               floor == -1 ? "" :
	               low         ? "FAILED" :
	                             "OK");
	ft_strbuf_adds(sb, "#\n");
	return low;
}

static const char dashes[] =
        "---------------------------------------------------------------------------------------\n";

/* perftest's --report_gbits: BW columns in Gb/sec instead of MB/sec (MiB/s) */
static bool report_gbits;

static void
pt2pt_head(struct ft_strbuf *sb, const struct ft_bench_report *rep, const struct ft_bench_cfg *cfg,
           const struct cli_ctx *ctx)
{
	bool lat = cfg->pattern == FT_OP_PT2PT_LAT;

	ft_strbuf_adds(sb, dashes);
	ft_strbuf_addf(sb, "                    %s %s Test (%s)\n", rep->transport,
	               lat        ? "Latency" :
	               cfg->bidir ? "Bidirectional BW" :
	                            "BW",
	               "fabtune");
	/* perftest's settings block: "%-16s: " keys, two to a line */
	ft_strbuf_addf(sb, " Number of qps   : %-14u Transport type : %s\n",
	               strcmp(rep->transport, "tcp") == 0 ? cfg->streams : 1u, rep->transport);
	if (!lat)
		ft_strbuf_addf(sb, " TX depth        : %u\n", cfg->window);
	if (rep->nranks >= 2) {
		char b0[48], b1[48];

		snprintf(b0, sizeof(b0), "%s%s%s", rep->ranks[0].bind[0] ? rep->ranks[0].bind : "none",
		         ctx->stable || !rep->ranks[0].cpus[0] ? "" : " ",
		         ctx->stable ? "" : rep->ranks[0].cpus);
		snprintf(b1, sizeof(b1), "%s%s%s", rep->ranks[1].bind[0] ? rep->ranks[1].bind : "none",
		         ctx->stable || !rep->ranks[1].cpus[0] ? "" : " ",
		         ctx->stable ? "" : rep->ranks[1].cpus);
		ft_strbuf_addf(sb, " Binding         : %s -> %s\n", b0, b1);
	}
	ft_strbuf_adds(sb, dashes);
	cli_bench_pt2pt_head(sb, lat, cfg->duration_s > 0, report_gbits);
}

void
cli_bench_pt2pt_head(struct ft_strbuf *sb, bool lat, bool timed, bool gbits)
{
	if (lat && timed)
		ft_strbuf_adds(sb, " #bytes        #iterations       t_avg[usec]\n");
	else if (lat)
		ft_strbuf_adds(sb,
		               " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]"
		               "    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   "
		               "99.9% percentile[usec] \n");
	else if (gbits)
		ft_strbuf_adds(sb,
		               " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]"
		               "   MsgRate[Mpps]\n");
	else
		ft_strbuf_adds(sb,
		               " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]"
		               "   MsgRate[Mpps]\n");
}

/*
 * perftest's rows, tabs included, from a result row: bandwidths in GB/s
 * (peak in ip_algbw_GBps) printed as MB/sec (MiB/s) or Gb/sec, the message
 * rate from the average.
 */
void
cli_bench_pt2pt_row(struct ft_strbuf *sb, bool lat, bool timed, bool gbits,
                    const struct ft_result_row *r)
{
	double scale = gbits ? 8.0 : 1e9 / 1048576.0;

	if (lat && timed)
		ft_strbuf_addf(sb, " %-7" PRIu64 "       %u            %-7.2f\n", r->bytes, r->nsamples,
		               r->lat_avg_us);
	else if (lat)
		ft_strbuf_addf(sb,
		               " %-7" PRIu64 " %u          %-7.2f        %-7.2f      %-7.2f  \t"
		               "       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f\n",
		               r->bytes, r->nsamples, r->lat_min_us, r->lat_max_us, r->lat_p50_us,
		               r->lat_avg_us, r->lat_stdev_us, r->lat_p99_us, r->lat_p999_us);
	else
		ft_strbuf_addf(sb, " %-7" PRIu64 "    %-10u       %-7.2f            %-7.2f\t\t   %-7.6f\n",
		               r->bytes, r->nsamples, r->ip_algbw_GBps * scale, r->algbw_GBps * scale,
		               r->bytes ? r->algbw_GBps * 1e9 / (double)r->bytes / 1e6 : 0.0);
}

static void
pt2pt_row(struct ft_strbuf *sb, const struct ft_bench_cfg *cfg, const struct ft_result_row *r)
{
	cli_bench_pt2pt_row(sb, cfg->pattern == FT_OP_PT2PT_LAT, cfg->duration_s > 0,
	                    report_gbits, r);
}

/* Rows as they come (rank 0, text mode): nccl-tests and perftest print that way too. */
struct row_stream {
	const struct cli_ctx *ctx;
	const struct ft_bench_cfg *cfg;
	bool started;
};

static bool
streams_rows(const struct ft_bench_cfg *cfg)
{
	return ft_op_is_coll(cfg->pattern) || cfg->pattern == FT_OP_PT2PT_BW ||
	       cfg->pattern == FT_OP_PT2PT_LAT || cfg->pattern == FT_OP_DEV_MEMCPY;
}

static void
render_head(struct ft_strbuf *sb, const struct ft_bench_report *rep, const struct ft_bench_cfg *cfg,
            const struct cli_ctx *ctx)
{
	if (cfg->pattern == FT_OP_PT2PT_BW || cfg->pattern == FT_OP_PT2PT_LAT) {
		pt2pt_head(sb, rep, cfg, ctx);
	} else {
		render_header(sb, rep, cfg, ctx);
		cli_bench_coll_head(sb);
	}
}

static void
on_row(void *ud, const struct ft_bench_report *rep, const struct ft_result_row *row)
{
	struct row_stream *st = ud;
	struct ft_strbuf sb;

	ft_strbuf_init(&sb);
	if (!st->started) {
		render_head(&sb, rep, st->cfg, st->ctx);
		st->started = true;
	}
	if (st->cfg->pattern == FT_OP_PT2PT_BW || st->cfg->pattern == FT_OP_PT2PT_LAT)
		pt2pt_row(&sb, st->cfg, row);
	else
		cli_bench_coll_row(&sb, row);
	ft_progress_bar_finish((struct ft_progress_bar *)&st->ctx->bar);
	cli_write(&sb);
	fflush(stdout);
	ft_strbuf_release(&sb);
}

static void
render_pairs(struct ft_strbuf *sb, const struct ft_bench_report *rep)
{
	uint32_t n = rep->nranks, s, d;
	size_t i;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		const double *m = pass ? rep->lat_us : rep->bw_GBps;

		ft_strbuf_addf(sb, "# %s, row = sender, column = receiver\n",
		               pass ? "latency (us, p50 of ping-pong)" : "bandwidth (GB/s)");
		ft_strbuf_adds(sb, "#   rank");
		for (d = 0; d < n; d++)
			ft_strbuf_addf(sb, " %8u", d);
		ft_strbuf_adds(sb, "  host\n");
		for (s = 0; s < n; s++) {
			ft_strbuf_addf(sb, "%8u", s);
			for (d = 0; d < n; d++) {
				if (s == d)
					ft_strbuf_addf(sb, " %8s", "-");
				else
					ft_strbuf_addf(sb, " %8.3f", m[(size_t)s * n + d]);
			}
			ft_strbuf_addf(sb, "  %s\n", rep->ranks[s].host);
		}
	}
	ft_strbuf_addf(sb, "# median pair bandwidth: %.3f GB/s\n", rep->median_GBps);
	if (rep->outliers.len == 0)
		ft_strbuf_adds(sb, "# outliers: none\n");
	for (i = 0; i < rep->outliers.len; i++) {
		const struct ft_bench_outlier *o = ft_vec_at(&rep->outliers, i);

		ft_strbuf_addf(sb, "# OUTLIER %s", o->text);
		if (strcmp(o->kind, "pair") == 0 && o->blame[0])
			ft_strbuf_addf(sb, "; retest blames %s", o->blame);
		ft_strbuf_addch(sb, '\n');
	}
}

static void
render_rows(struct ft_strbuf *sb, const struct ft_bench_report *rep, const char *kind)
{
	struct ft_table t;
	size_t i;

	ft_table_init(&t);
	ft_table_col(&t, "test", FT_ALIGN_LEFT);
	ft_table_col(&t, "size", FT_ALIGN_RIGHT);
	ft_table_col(&t, "bw(GB/s)", FT_ALIGN_RIGHT);
	ft_table_col(&t, kind[0] == 'b' ? "min(GB/s)" : "p50(us)", FT_ALIGN_RIGHT);
	ft_table_col(&t, kind[0] == 'b' ? "round" : "victim", FT_ALIGN_LEFT);
	ft_table_col(&t, kind[0] == 'b' ? "weakest pair" : "root", FT_ALIGN_LEFT);
	for (i = 0; i < ft_run_nrows(&rep->run); i++) {
		const struct ft_result_row *r = ft_run_row(&rep->run, i);
		char sz[32];

		ft_table_cell(&t, r->test);
		ft_table_cell(&t, ft_format_size(r->bytes, sz, sizeof(sz)));
		ft_table_cellf(&t, "%.3f", r->algbw_GBps);
		if (kind[0] == 'b') {
			ft_table_cellf(&t, "%.3f", r->busbw_GBps);
			ft_table_cell(&t, r->algo);
			ft_table_cellf(&t, "%s <-> %s", r->src, r->dst);
		} else {
			ft_table_cellf(&t, "%.2f", r->lat_p50_us);
			ft_table_cell(&t, r->src);
			ft_table_cell(&t, r->dst);
		}
	}
	ft_table_render(&t, sb);
	ft_table_release(&t);
	if (kind[0] == 'i')
		ft_strbuf_addf(sb,
		               "# victim latency: %.2f us idle, %.2f us under incast: congestion "
		               "impact %.2fx\n",
		               rep->victim_idle_us, rep->victim_busy_us, rep->congestion_impact);
}

/* nvbandwidth's layout: one matrix, row = source, column = destination, GB/s. */
static void
render_copy_matrix(struct ft_strbuf *sb, const struct ft_bench_report *rep)
{
	const char *names[65];
	size_t i, n = 0, a, b;

	for (i = 0; i < ft_run_nrows(&rep->run) && n < FT_ARRAY_SIZE(names); i++) {
		const struct ft_result_row *r = ft_run_row(&rep->run, i);

		for (a = 0; a < n && strcmp(names[a], r->src) != 0; a++)
			;
		if (a == n)
			names[n++] = r->src;
	}
	ft_strbuf_addf(sb, "# memcpy CE bandwidth (GB/s), %" PRIu64 " bytes, row = source, "
	               "column = destination\n", ft_run_nrows(&rep->run) ?
	               ft_run_row(&rep->run, 0)->bytes : 0);
	ft_strbuf_addf(sb, "%8s", "");
	for (b = 0; b < n; b++)
		ft_strbuf_addf(sb, " %8s", names[b]);
	ft_strbuf_addch(sb, '\n');
	for (a = 0; a < n; a++) {
		ft_strbuf_addf(sb, "%8s", names[a]);
		for (b = 0; b < n; b++) {
			const char *cell = "-";
			char num[32];

			for (i = 0; i < ft_run_nrows(&rep->run); i++) {
				const struct ft_result_row *r = ft_run_row(&rep->run, i);

				if (strcmp(r->src, names[a]) == 0 && strcmp(r->dst, names[b]) == 0) {
					snprintf(num, sizeof(num), "%.2f", r->algbw_GBps);
					cell = num;
				}
			}
			ft_strbuf_addf(sb, " %8s", cell);
		}
		ft_strbuf_addch(sb, '\n');
	}
}

static void
json_matrix(struct ft_json *j, const char *key, const double *m, uint32_t n)
{
	uint32_t s, d;

	ft_json_key(j, key);
	ft_json_arr_begin(j);
	for (s = 0; s < n; s++) {
		ft_json_arr_begin(j);
		for (d = 0; d < n; d++)
			ft_json_double(j, m[(size_t)s * n + d]);
		ft_json_arr_end(j);
	}
	ft_json_arr_end(j);
}

static void
render_json(struct ft_strbuf *sb, const struct ft_bench_report *rep, const struct ft_bench_cfg *cfg,
            const struct cli_ctx *ctx)
{
	struct ft_json j;
	size_t i;
	uint32_t r;

	ft_json_init(&j, sb, false);
	ft_json_obj_begin(&j);
	ft_json_kv_str(&j, "source", ft_source_name(rep->run.source));
	ft_json_kv_str(&j, "kind", rep->run.kind);
	ft_json_kv_str(&j, "fabtune_version", ctx->stable ? "VERSION" : ft_version());
	ft_json_kv_str(&j, "pattern", ft_op_name(cfg->pattern));
	ft_json_kv_str(&j, "transport", rep->transport);
	/* what was run: the iteration counts after defaults (a row's nsamples follows them) */
	{
		struct ft_bench_cfg c = *cfg;

		ft_bench_cfg_resolve(&c);
		ft_json_kv_uint(&j, "iterations", c.iters);
		ft_json_kv_uint(&j, "warmup_iterations", c.warmup);
		ft_json_kv_uint(&j, "window", c.window);
	}
	if (!ctx->stable && rep->run.started_s > 0) {
		char when[32];
		time_t t = (time_t)rep->run.started_s;
		struct tm tm;

		ft_json_kv_double(&j, "started", rep->run.started_s);
		if (gmtime_r(&t, &tm) && strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
			ft_json_kv_str(&j, "started_utc", when);
		ft_json_key(&j, "usage");
		ft_json_obj_begin(&j);
		ft_json_kv_double(&j, "wall_s", rep->run.wall_s);
		ft_json_kv_double(&j, "cpu_s", rep->run.cpu_s);
		ft_json_kv_double(&j, "host_busy", rep->run.host_busy);
		ft_json_kv_double(&j, "load1", rep->run.load1);
		ft_json_obj_end(&j);
	}
	ft_json_kv_uint(&j, "nranks", rep->nranks);
	ft_json_kv_bool(&j, "interrupted", rep->interrupted);
	ft_json_key(&j, "ranks");
	ft_json_arr_begin(&j);
	for (r = 0; r < rep->nranks; r++) {
		const struct ft_rank_info *inf = &rep->ranks[r];

		ft_json_obj_begin(&j);
		ft_json_kv_uint(&j, "rank", r);
		ft_json_kv_str(&j, "host", inf->host);
		if (!ctx->stable)
			ft_json_kv_int(&j, "pid", inf->pid);
		ft_json_kv_int(&j, "numa", inf->numa);
		ft_json_kv_str(&j, "addr", inf->addr);
		ft_json_kv_str(&j, "ifname", inf->ifname);
		ft_json_kv_str(&j, "devices", inf->devices);
		ft_json_kv_str(&j, "bind", inf->bind[0] ? inf->bind : "none");
		if (!ctx->stable)
			ft_json_kv_str(&j, "cpus", inf->cpus);
		ft_json_obj_end(&j);
	}
	ft_json_arr_end(&j);
	ft_json_key(&j, "rows");
	ft_json_arr_begin(&j);
	for (i = 0; i < ft_run_nrows(&rep->run); i++) {
		const struct ft_result_row *row = ft_run_row(&rep->run, i);

		ft_json_obj_begin(&j);
		ft_json_kv_str(&j, "test", row->test);
		ft_json_kv_str(&j, "transport", row->transport);
		ft_json_kv_uint(&j, "bytes", row->bytes);
		ft_json_kv_uint(&j, "count", row->count);
		ft_json_kv_str(&j, "dtype", row->dtype);
		ft_json_kv_str(&j, "redop", row->redop);
		ft_json_kv_int(&j, "root", row->root);
		ft_json_kv_uint(&j, "nranks", row->nranks);
		ft_json_kv_double(&j, "time_us", row->time_us);
		ft_json_kv_double(&j, "algbw_GBps", row->algbw_GBps);
		ft_json_kv_double(&j, "busbw_GBps", row->busbw_GBps);
		if (ft_op_is_coll(cfg->pattern)) {
			ft_json_kv_double(&j, "ip_time_us", row->ip_time_us);
			ft_json_kv_double(&j, "ip_algbw_GBps", row->ip_algbw_GBps);
			ft_json_kv_double(&j, "ip_busbw_GBps", row->ip_busbw_GBps);
			ft_json_kv_int(&j, "wrong", row->wrong);
			ft_json_kv_str(&j, "algo", row->algo);
		}
		if (cfg->pattern == FT_OP_PT2PT_BW)
			ft_json_kv_double(&j, "peak_GBps", row->ip_algbw_GBps);
		if (!isnan(row->lat_p50_us) && row->lat_p50_us != 0) {
			ft_json_kv_double(&j, "lat_min_us", row->lat_min_us);
			ft_json_kv_double(&j, "lat_avg_us", row->lat_avg_us);
			ft_json_kv_double(&j, "lat_p50_us", row->lat_p50_us);
			ft_json_kv_double(&j, "lat_p99_us", row->lat_p99_us);
			ft_json_kv_double(&j, "lat_p999_us", row->lat_p999_us);
			ft_json_kv_double(&j, "lat_max_us", row->lat_max_us);
			ft_json_kv_double(&j, "lat_stdev_us", row->lat_stdev_us);
		}
		ft_json_kv_uint(&j, "nsamples", row->nsamples);
		if (isfinite(row->time_stdev_us))
			ft_json_kv_double(&j, "time_stdev_us", row->time_stdev_us);
		if (row->src[0])
			ft_json_kv_str(&j, "src", row->src);
		if (row->dst[0])
			ft_json_kv_str(&j, "dst", row->dst);
		ft_json_obj_end(&j);
	}
	ft_json_arr_end(&j);
	if (cfg->pattern == FT_OP_PAIRS && rep->bw_GBps) {
		ft_json_key(&j, "pairs");
		ft_json_obj_begin(&j);
		json_matrix(&j, "bw_GBps", rep->bw_GBps, rep->nranks);
		json_matrix(&j, "lat_us", rep->lat_us, rep->nranks);
		ft_json_kv_double(&j, "median_GBps", rep->median_GBps);
		ft_json_obj_end(&j);
		ft_json_key(&j, "outliers");
		ft_json_arr_begin(&j);
		for (i = 0; i < rep->outliers.len; i++) {
			const struct ft_bench_outlier *o = ft_vec_at(&rep->outliers, i);

			ft_json_obj_begin(&j);
			ft_json_kv_str(&j, "kind", o->kind);
			ft_json_kv_uint(&j, "rank_a", o->rank_a);
			ft_json_kv_uint(&j, "rank_b", o->rank_b);
			ft_json_kv_str(&j, "host", rep->ranks[o->rank_a].host);
			ft_json_kv_double(&j, "value_GBps", o->value_GBps);
			ft_json_kv_double(&j, "ratio", o->ratio);
			ft_json_kv_str(&j, "blame", o->blame);
			ft_json_kv_str(&j, "text", o->text);
			ft_json_obj_end(&j);
		}
		ft_json_arr_end(&j);
	}
	if (cfg->pattern == FT_OP_INCAST) {
		ft_json_key(&j, "incast");
		ft_json_obj_begin(&j);
		ft_json_kv_double(&j, "victim_idle_us", rep->victim_idle_us);
		ft_json_kv_double(&j, "victim_busy_us", rep->victim_busy_us);
		ft_json_kv_double(&j, "congestion_impact", rep->congestion_impact);
		ft_json_obj_end(&j);
	}
	ft_json_obj_end(&j);
	ft_strbuf_addch(sb, '\n');
}

/* Returns true when NCCL_TESTS_MIN_BW was not reached. */
static bool
render(const struct ft_bench_report *rep, const struct ft_bench_cfg *cfg, const struct cli_ctx *ctx,
       bool started)
{
	struct ft_strbuf sb;
	size_t i;
	bool low = false;

	ft_strbuf_init(&sb);
	if (ctx->json) {
		render_json(&sb, rep, cfg, ctx);
	} else if (streams_rows(cfg)) {
		/* the rows went out as they were measured; what is left is the foot */
		if (!started) {
			render_head(&sb, rep, cfg, ctx);
			for (i = 0; i < ft_run_nrows(&rep->run); i++) {
				if (cfg->pattern == FT_OP_PT2PT_BW ||
				    cfg->pattern == FT_OP_PT2PT_LAT)
					pt2pt_row(&sb, cfg, ft_run_row(&rep->run, i));
				else
					cli_bench_coll_row(&sb, ft_run_row(&rep->run, i));
			}
		}
		if (cfg->pattern == FT_OP_PT2PT_BW || cfg->pattern == FT_OP_PT2PT_LAT) {
			ft_strbuf_adds(&sb, dashes);
		} else {
			low = cli_bench_coll_foot(&sb, rep);
			if (ft_op_is_coll(cfg->pattern))
				ft_strbuf_addf(&sb, "# Collective test concluded: %s_perf\n#\n",
				               ft_op_name(cfg->pattern));
		}
	} else {
		render_header(&sb, rep, cfg, ctx);
		switch (cfg->pattern) {
		case FT_OP_PAIRS:
			if (rep->bw_GBps)
				render_pairs(&sb, rep);
			break;
		case FT_OP_COPY_MATRIX:
			render_copy_matrix(&sb, rep);
			break;
		case FT_OP_BISECTION:
			render_rows(&sb, rep, "bisection");
			break;
		default:
			render_rows(&sb, rep, "incast");
			break;
		}
	}
	if (rep->interrupted && !ctx->json)
		ft_strbuf_adds(&sb, "# interrupted: the rows above are what was measured\n");
	cli_write(&sb);
	fflush(stdout);
	ft_strbuf_release(&sb);
	return low;
}

/* ---- option handling ----------------------------------------------------------- */

static int
build_cfg(const struct bench_opts *o, struct ft_bench_cfg *cfg, const struct cli_ctx *ctx)
{
	ft_bench_cfg_init(cfg);
	if (o->pattern && ft_op_from_name(o->pattern, &cfg->pattern) < 0) {
		cli_error(ctx,
		          "unknown pattern '%s' (pt2pt_bw, pt2pt_lat, pairs, bisection, "
		          "incast, all_reduce, all_gather, reduce_scatter, alltoall, "
		          "broadcast, reduce, sendrecv, gather, scatter, hypercube, dev_memcpy, "
		          "copy_matrix)",
		          o->pattern);
		return -1;
	}
	if (o->transport)
		ft_strlcpy(cfg->transport, o->transport, sizeof(cfg->transport));
	if (o->bind && ft_bench_bind_from_name(o->bind, &cfg->bind) < 0) {
		cli_error(ctx, "--bind: unknown binding '%s' (none, core, numa)", o->bind);
		return -1;
	}
	if (o->op && !o->all_ops && ft_redop_from_name(o->op, &cfg->op) < 0) {
		cli_error(ctx, "-o/--op: unknown reduction '%s' (sum, prod, max, min, avg, mulsum, all)",
		          o->op);
		return -1;
	}
	if (o->dtype && !o->all_types && ft_dtype_from_name(o->dtype, &cfg->dtype) < 0) {
		cli_error(ctx,
		          "-d/--datatype: unsupported type '%s' (int8, uint8, int32, uint32, "
		          "int64, uint64, half, float, double, bfloat16, all)",
		          o->dtype);
		return -1;
	}
	/* 0 is not "the default": a run of no iterations or no messages in flight is refused */
	if (o->iters == 0 || o->window == 0) {
		cli_error(ctx, "%s: expected a count of at least 1, got 0",
		          o->iters == 0 ? "-n/--iters" : "--window");
		return -1;
	}
	if (o->agg_iters > 100000 || o->cycles > UINT32_MAX) {
		cli_error(ctx, "-m/--agg_iters or -N/--run_cycles is out of range");
		return -1;
	}
	if (o->cputime < 0 || o->cputime > 1 || o->parallel_init < 0 || o->parallel_init > 1 ||
	    o->stream_null < 0 || o->stream_null > 1 || o->local_register < 0 ||
	    o->local_register > 1) {
		cli_error(ctx, "-C, -p, -y and -R take 0 or 1");
		return -1;
	}
	if (o->graph != 0) {
		cli_error(ctx, "-G/--cudagraph %d: CUDA graph launches are not supported yet (use -G 0)",
		          o->graph);
		return -1;
	}
	cfg->agg_iters = (uint32_t)o->agg_iters;
	if (o->duration_str) {
		struct ft_error e = { 0 };
		double v;

		if (ft_parse_double(o->duration_str, &v) < 0 &&
		    ft_parse_duration(o->duration_str, &v, &e) < 0) {
			cli_error(ctx, "-D/--duration: %s", e.msg);
			return -1;
		}
		cfg->duration_s = v;
	}
	cfg->report_cputime = o->cputime != 0;
	if ((o->iters != UINT64_MAX && o->iters > UINT32_MAX) || o->warmup > UINT32_MAX ||
	    (o->window != UINT64_MAX && o->window > UINT32_MAX) || o->streams > UINT32_MAX ||
	    o->rounds > UINT32_MAX) {
		cli_error(ctx, "a count option is out of range");
		return -1;
	}
	if (o->check < 0 || o->check > 1 || o->blocking < 0 || o->blocking > 1) {
		cli_error(ctx, "-c/--check and -z/--blocking take 0 or 1");
		return -1;
	}
	if (o->minb != UINT64_MAX && o->minb == 0) {
		cli_error(ctx, "-b/--minbytes: must be at least 1 byte");
		return -1;
	}
	cfg->min_bytes = o->minb == UINT64_MAX ? 0 : o->minb;
	cfg->max_bytes = o->maxb == UINT64_MAX ? 0 : o->maxb;
	/* perftest: -s one size, -a every power of two from 2 B to 8 MiB */
	if ((o->msg_size || o->all_sizes) && (o->minb != UINT64_MAX || o->maxb != UINT64_MAX)) {
		cli_error(ctx, "-s/--size and -a/--all-sizes replace -b and -e: give one or the other");
		return -1;
	}
	if (o->msg_size && o->all_sizes) {
		cli_error(ctx, "-s/--size and -a/--all-sizes: give one or the other");
		return -1;
	}
	if (o->msg_size)
		cfg->min_bytes = cfg->max_bytes = o->msg_size;
	if (o->all_sizes) {
		cfg->min_bytes = 2;
		cfg->max_bytes = 8u << 20;
	}
	if (cfg->max_bytes == 0 && o->maxb != UINT64_MAX) {
		cli_error(ctx, "-e/--maxbytes: must be at least 1 byte");
		return -1;
	}
	if (cfg->min_bytes && !cfg->max_bytes)
		cfg->max_bytes = cfg->min_bytes;
	if (cfg->max_bytes && !cfg->min_bytes)
		cfg->min_bytes = cfg->max_bytes;
	cfg->step_bytes = o->stepb;
	cfg->step_factor = o->factor;
	cfg->iters = o->iters == UINT64_MAX ? 0 : (uint32_t)o->iters;
	cfg->warmup = (uint32_t)o->warmup;
	cfg->check = o->check != 0;
	cfg->blocking = o->blocking != 0;
	cfg->average = (enum ft_bench_average)o->average;
	cfg->root = o->root;
	cfg->window = o->window == UINT64_MAX ? 0 : (uint32_t)o->window;
	cfg->bidir = o->bidir;
	cfg->streams = (uint32_t)o->streams;
	/* perftest's -q: the parallel connections of a pair; for tcp, its sockets */
	if (o->qps > 1) {
		if (!o->transport || strcmp(o->transport, "tcp") != 0) {
			cli_error(ctx, "-q/--qp %" PRIu64 ": several queue pairs only with --transport "
			          "tcp (as --streams) so far", o->qps);
			return -1;
		}
		if (o->qps > 64) {
			cli_error(ctx, "-q/--qp %" PRIu64 ": expected 1 to 64", o->qps);
			return -1;
		}
		cfg->streams = (uint32_t)o->qps;
	}
	if (o->ifname)
		ft_strlcpy(cfg->ifname, o->ifname, sizeof(cfg->ifname));
	cfg->sockbuf_bytes = o->sockbuf;
	cfg->shm_max_bytes = o->shm_max;
	cfg->shm_cma_min_bytes = o->cma_min;
	cfg->nodelay = !o->no_nodelay;
	cfg->timeout_s = o->timeout;
	if (o->timeout_str) {
		struct ft_error e = { 0 };
		double v;

		/* nccl-tests' -T takes bare seconds; fabtune's durations carry a unit */
		if (ft_parse_double(o->timeout_str, &v) < 0 &&
		    ft_parse_duration(o->timeout_str, &v, &e) < 0) {
			cli_error(ctx, "-T/--timeout: %s", e.msg);
			return -1;
		}
		cfg->timeout_s = v;
	}
	cfg->threshold = o->threshold;
	cfg->retest = !o->no_retest;
	cfg->rounds = (uint32_t)o->rounds;
	cfg->seed = ctx->seed;
	if (o->verbs_op)
		ft_strlcpy(cfg->verbs_op, o->verbs_op, sizeof(cfg->verbs_op));
	if (o->rdma_dev)
		ft_strlcpy(cfg->rdma_device, o->rdma_dev, sizeof(cfg->rdma_device));
	cfg->gid_index = o->gid_index;
	cfg->stop = &stop_flag;
	{
		struct ft_error err = { 0 };

		if (cfg->min_bytes && cfg->max_bytes && cfg->min_bytes > cfg->max_bytes) {
			cli_error(ctx, "-b/--minbytes %" PRIu64 " is above -e/--maxbytes %" PRIu64,
			          cfg->min_bytes, cfg->max_bytes);
			return -1;
		}
		ft_bench_cfg_resolve(cfg);
		if (ft_bench_cfg_check(cfg, &err) < 0) {
			cli_error(ctx, "%s", err.msg);
			return -1;
		}
	}
	return 0;
}

/* ---- the launcher (--np N) --------------------------------------------------------- */

/* Whether process @pid is stopped (SIGSTOP, SIGTSTP or a tracer), from /proc/PID/stat. */
static bool
proc_stopped(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "PID (COMM) STATE ...": COMM may hold spaces and parentheses */
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && (p[2] == 'T' || p[2] == 't');
}

/*
 * A rank gave up: name the ranks that are stopped, not dead, which no peer
 * can tell apart from a slow or hung one (a peer names only the rank it
 * waited on).
 */
static void
name_stopped(uint32_t n, struct cli_ctx *ctx)
{
	uint32_t r;

	for (r = 0; r < n; r++)
		if (child_pids[r] > 0 && proc_stopped(child_pids[r]))
			cli_error(ctx, "rank %u (pid %d) is stopped (not running, not dead): "
			          "it is the one that stopped answering", r, (int)child_pids[r]);
}

/*
 * Note when each live rank was first seen stopped; a rank stopped for longer
 * than @timeout (a little longer than its peers wait, so that they report
 * first) is named, and every rank is killed, the stopped one included
 * (SIGKILL ends a stopped process). True when that happened.
 */
/* Whether every rank still alive is stopped. */
static bool
all_stopped(uint32_t n)
{
	uint32_t r;

	for (r = 0; r < n; r++)
		if (child_pids[r] > 0 && !proc_stopped(child_pids[r]))
			return false;
	return true;
}

static bool
watch_stopped(uint32_t n, double *since, double timeout, struct cli_ctx *ctx)
{
	double now = ft_now_s();
	uint32_t r;

	for (r = 0; r < n; r++) {
		if (child_pids[r] <= 0 || !proc_stopped(child_pids[r])) {
			since[r] = 0;
			continue;
		}
		if (since[r] == 0)
			since[r] = now;
		if (now - since[r] < timeout + 0.5)
			continue;
		cli_error(ctx, "rank %u (pid %d) is stopped (not running, not dead) for %.0fs "
		          "(--timeout): it is the one that stopped answering; ending the run",
		          r, (int)child_pids[r], now - since[r]);
		for (r = 0; r < n; r++)
			if (child_pids[r] > 0)
				kill(child_pids[r], SIGKILL);
		return true;
	}
	return false;
}

static int
launch(int argc, char **argv, const struct bench_opts *o, struct cli_ctx *ctx)
{
	uint32_t n = (uint32_t)o->np, r, alive;
	struct ft_error err = { 0 };
	char port_s[64], rank_s[16], n_s[16];
	int lfd = -1, rc, worst = 0, rank0_rc = -1;
	uint16_t port = 0;
	double deadline = 0;
	char **args;
	int first_bad = -1;
	bool killed_by_us = false;
	double timeout = o->timeout > 0 ? o->timeout : 30, *stopped_since;
	bool deadline_now = false;
	unsigned polls = 0;

	rc = ft_bench_listen("127.0.0.1", &lfd, &port, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	snprintf(port_s, sizeof(port_s), "127.0.0.1:%u", (unsigned)port);
	snprintf(n_s, sizeof(n_s), "%u", n);
	args = calloc((size_t)argc + 9, sizeof(*args));
	child_pids = calloc(n, sizeof(*child_pids));
	if (!args || !child_pids) {
		free(args);
		close(lfd);
		cli_error(ctx, "out of memory");
		return EXIT_RUNTIME;
	}
	fflush(stdout);
	fflush(stderr);
	for (r = 0; r < n; r++) {
		pid_t pid = fork();

		if (pid < 0) {
			cli_error(ctx, "fork: %s", strerror(errno));
			break;
		}
		if (pid == 0) {
			int k = 0, a;

			args[k++] = (char *)"fabtune";
			args[k++] = (char *)"bench";
			for (a = 0; a < argc; a++)
				args[k++] = argv[a];
			snprintf(rank_s, sizeof(rank_s), "%u", r);
			args[k++] = (char *)"--rank";
			args[k++] = rank_s;
			args[k++] = (char *)"--nranks";
			args[k++] = n_s;
			args[k++] = (char *)"--bootstrap";
			args[k++] = port_s;
			args[k] = NULL;
			if (r == 0) {
				char fd_s[16];

				snprintf(fd_s, sizeof(fd_s), "%d", lfd);
				fcntl(lfd, F_SETFD, 0); /* rank 0 inherits the listener */
				setenv("FABTUNE_BOOTSTRAP_FD", fd_s, 1);
			} else {
				close(lfd);
			}
			execv("/proc/self/exe", args);
			fprintf(stderr, "fabtune bench: exec of rank %u failed: %s\n", r,
			        strerror(errno));
			_exit(EXIT_RUNTIME);
		}
		child_pids[r] = pid;
		nchildren = r + 1;
	}
	close(lfd);
	free(args);
	alive = (uint32_t)nchildren;
	if (nchildren < n) {
		for (r = 0; r < nchildren; r++)
			kill(child_pids[r], SIGTERM);
	}
	/*
	 * Watch the ranks. The first that fails is named, and the rest get a short
	 * grace to report (they stalled when it did, so their own --timeout runs
	 * out with its). A rank stopped for longer than --timeout (SIGSTOP, a
	 * debugger) is named by its process state, which only this launcher sees,
	 * and ends the run: every rank is gone within --timeout and a second.
	 */
	stopped_since = calloc(n, sizeof(*stopped_since));
	while (alive > 0) {
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);

		if (pid == 0) {
			struct timespec ts = { 0, 20 * 1000 * 1000 };

			if (stopped_since && ++polls % 5 == 0 && deadline == 0 &&
			    watch_stopped(n, stopped_since, timeout, ctx)) {
				killed_by_us = true;
				first_bad = first_bad < 0 ? 0 : first_bad;
				deadline = ft_now_s() + FT_MIN(timeout, 1.0);
			}
			if (deadline > 0 && !all_stopped(n))
				deadline_now = false;
			else if (deadline > 0)
				deadline_now = true; /* only stopped ranks left: none will report */
			if (deadline > 0 && (deadline_now || ft_now_s() > deadline)) {
				/* the survivors had their timeout to notice: stop the rest */
				for (r = 0; r < nchildren; r++)
					if (child_pids[r] > 0)
						kill(child_pids[r], SIGKILL);
				killed_by_us = true;
				deadline = 0;
			}
			nanosleep(&ts, NULL);
			continue;
		}
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (r = 0; r < nchildren; r++)
			if (child_pids[r] == pid)
				break;
		if (r == nchildren)
			continue;
		child_pids[r] = -1;
		alive--;
		if (WIFSIGNALED(status) && WTERMSIG(status) != SIGINT && !stop_flag) {
			if (!killed_by_us)
				cli_error(ctx, "rank %u (pid %d) was killed by signal %d (%s)", r,
				          (int)pid, WTERMSIG(status), strsignal(WTERMSIG(status)));
			rc = EXIT_RUNTIME;
		} else if (WIFSIGNALED(status)) {
			rc = EXIT_RUNTIME;
		} else {
			rc = WEXITSTATUS(status);
		}
		if (r == 0)
			rank0_rc = rc;
		if (rc > worst)
			worst = rc;
		if (rc != 0 && first_bad < 0) {
			first_bad = (int)r;
			if (!stop_flag)
				name_stopped((uint32_t)nchildren, ctx);
			/* they stalled with it: a short grace to report, then we stop them */
			deadline = ft_now_s() + FT_MIN(timeout, 1.0);
		}
	}
	free(stopped_since);
	free(child_pids);
	child_pids = NULL;
	nchildren = 0;
	return rank0_rc > 0 ? rank0_rc : worst;
}

/*
 * The world the launcher describes (fabtune/launch.h) when no --rank was
 * given: srun without PMI is refused (MPI would see N worlds of one rank);
 * torchrun's tasks join fabtune's bootstrap at MASTER_ADDR, port
 * MASTER_PORT + 1 (torchrun's own store holds MASTER_PORT), unless
 * --bootstrap says otherwise.
 */
static int
launch_world(struct cli_ctx *ctx, const struct bench_opts *o, struct ft_world_cfg *wc)
{
	struct ft_error err = { 0 };
	struct ft_launch l;
	int rc = ft_launch_detect(NULL, &l, &err);

	if (rc < 0) {
		cli_error(ctx, "%s", ft_error_msg(&err, rc));
		return -1;
	}
	if (l.launcher == FT_LAUNCHER_SLURM && l.size > 1) {
		cli_error(ctx,
		          "srun started %u tasks (%s) without PMI, so they cannot find each other: "
		          "run srun --mpi=pmix (or pmi2), or launch with --rank, --nranks and "
		          "--bootstrap",
		          l.size, l.vars);
		return -1;
	}
	if (l.launcher == FT_LAUNCHER_TORCHRUN && l.size > 1) {
		const char *colon = strrchr(l.master, ':');
		uint64_t port = 0;

		if (!o->bootstrap && (!colon || ft_parse_u64(colon + 1, &port) < 0 || port >= 65535)) {
			cli_error(ctx,
			          "torchrun started %u tasks (%s) but MASTER_ADDR/MASTER_PORT do not "
			          "name rank 0 ('%s'): set them or pass --bootstrap ADDR:PORT",
			          l.size, l.vars, l.master);
			return -1;
		}
		wc->rank = l.rank;
		wc->nranks = l.size;
		if (!o->bootstrap)
			snprintf(wc->bootstrap, sizeof(wc->bootstrap), "%.*s:%u",
			         (int)(colon - l.master), l.master, (unsigned)port + 1);
	}
	return 0;
}

/* This process's rank as the launcher says (0 when not launched or unreadable). */
static uint32_t
launch_rank(void)
{
	struct ft_launch l;

	return ft_launch_detect(NULL, &l, NULL) == 0 ? l.rank : 0;
}

static bool
reduces(enum ft_op p)
{
	return p == FT_OP_ALL_REDUCE || p == FT_OP_REDUCE || p == FT_OP_REDUCE_SCATTER;
}

/*
 * The sweeps the options ask for, rows in one report: -N cycles, each over
 * every type (-d all) and, for the reductions, every operation (-o all),
 * in nccl-tests' order (type outer, operation inner). Collective.
 */
static int
run_all(struct ft_world *w, const struct bench_opts *o, struct ft_bench_cfg *c,
        struct ft_bench_report *rep, struct ft_error *err)
{
	/* -d all in nccl-tests' order of ncclDataType_t */
	static const enum ft_dtype order[] = {
		FT_DTYPE_INT8,  FT_DTYPE_UINT8, FT_DTYPE_INT32,  FT_DTYPE_UINT32,  FT_DTYPE_INT64,
		FT_DTYPE_UINT64, FT_DTYPE_HALF, FT_DTYPE_FLOAT, FT_DTYPE_DOUBLE, FT_DTYPE_BFLOAT16,
	};
	_Static_assert(FT_ARRAY_SIZE(order) == FT_DTYPE_COUNT, "-d all lists every type");
	uint32_t ntypes = o->all_types ? FT_DTYPE_COUNT : 1;
	uint32_t nops = o->all_ops && reduces(c->pattern) ? FT_REDOP_COUNT : 1;
	uint64_t cycle;
	uint32_t t, op;
	bool first = true;
	int rc = 0;

	for (cycle = 0; rc == 0 && (o->cycles == 0 || cycle < o->cycles); cycle++) {
		for (t = 0; t < ntypes && rc == 0; t++) {
			for (op = 0; op < nops && rc == 0; op++) {
				struct ft_bench_report one;
				size_t i;

				if (o->all_types)
					c->dtype = order[t];
				if (o->all_ops && reduces(c->pattern))
					c->op = (enum ft_redop)op;
				if (first) {
					rc = ft_bench_run(w, c, rep, err);
					first = false;
					continue;
				}
				ft_bench_report_init(&one);
				rc = ft_bench_run(w, c, &one, err);
				for (i = 0; i < ft_run_nrows(&one.run); i++)
					if (ft_run_add(&rep->run, ft_run_row(&one.run, i)) < 0)
						rc = rc ? rc : FT_ENOMEM;
				rep->interrupted = rep->interrupted || one.interrupted;
				ft_bench_report_release(&one);
			}
		}
		if (stop_flag)
			break;
	}
	return rc;
}

static int
run_rank(const struct bench_opts *o, const struct ft_bench_cfg *cfg, struct cli_ctx *ctx)
{
	struct ft_world_cfg wc;
	struct ft_world *w = NULL;
	struct ft_bench_report rep;
	struct ft_bench_cfg c = *cfg;
	struct ft_error err = { 0 };
	struct row_stream stream = { ctx, cfg, false };
	const char *fd_env = getenv("FABTUNE_BOOTSTRAP_FD");
	int rc, ret = EXIT_OK;
	uint32_t me;

	ft_world_cfg_init(&wc);
	wc.use_mpi = !o->have_rank && ft_world_launched_by_mpi();
	wc.rank = (uint32_t)o->rank;
	wc.nranks = o->have_rank ? (uint32_t)o->nranks : 1;
	if (!o->have_rank && launch_world(ctx, o, &wc) < 0)
		return EXIT_USAGE;
	if (o->bootstrap)
		ft_strlcpy(wc.bootstrap, o->bootstrap, sizeof(wc.bootstrap));
	if (fd_env && o->have_rank && o->rank == 0) {
		uint64_t fd;

		if (ft_parse_u64(fd_env, &fd) == 0)
			wc.bootstrap_fd = (int)fd;
		unsetenv("FABTUNE_BOOTSTRAP_FD");
	}
	if (o->ifname)
		ft_strlcpy(wc.ifname, o->ifname, sizeof(wc.ifname));
	wc.timeout_s = cfg->timeout_s;
	wc.stop = &stop_flag;
	rc = ft_world_new(&wc, &w, &err);
	if (rc < 0) {
		if (o->have_rank)
			cli_error(ctx, "rank %u: %s", (unsigned)o->rank, ft_error_msg(&err, rc));
		else
			cli_error(ctx, "%s", ft_error_msg(&err, rc));
		return rc == FT_EINTR ? EXIT_RUNTIME : cli_exit_for(rc);
	}
	me = ft_world_rank(w);
	if (me == 0)
		c.progress = ctx->progress;
	if (me == 0 && !ctx->json && streams_rows(&c)) {
		c.on_row = on_row;
		c.on_row_ud = &stream;
	}
	ft_bench_report_init(&rep);
	rc = run_all(w, o, &c, &rep, &err);
	if (me == 0 && (rc == 0 || rep.interrupted)) {
		ft_progress_bar_finish(&ctx->bar);
		if (render(&rep, &c, ctx, stream.started) && ret == EXIT_OK)
			ret = EXIT_PROBLEM;
	}
	if (rc < 0 && !(rc == FT_EINTR && me != 0)) {
		const struct ft_rank_info *inf = ft_world_info(w, me);

		if (ft_world_size(w) > 1)
			cli_error(ctx, "rank %u (host %s): %s", me, inf ? inf->host : "?",
			          ft_error_msg(&err, rc));
		else
			cli_error(ctx, "%s", ft_error_msg(&err, rc));
		ret = rc == FT_EINTR                                           ? EXIT_RUNTIME :
		      (rc == FT_EINVAL || rc == FT_ERANGE || rc == FT_ENOTSUP) ? EXIT_USAGE :
		                                                                 EXIT_RUNTIME;
		if (rc != FT_EINTR && rc != FT_EINVAL && rc != FT_ERANGE)
			ft_world_abort(w, ret);
	} else if (rc == FT_EINTR) {
		ret = EXIT_RUNTIME;
	}
	if (rc == 0 && me == 0) {
		size_t i;

		for (i = 0; i < ft_run_nrows(&rep.run); i++)
			if (ft_run_row(&rep.run, i)->wrong > 0)
				ret = EXIT_PROBLEM;
		if (rep.outliers.len > 0)
			ret = EXIT_PROBLEM;
		if (o->save) {
			struct ft_error e2 = { 0 };
			int src = bench_save_run(&rep, ctx, &e2);

			if (src < 0) {
				cli_error(ctx, "%s", ft_error_msg(&e2, src));
				ret = EXIT_RUNTIME;
			}
		}
	}
	ft_bench_report_release(&rep);
	ft_world_free(w);
	return ret;
}

static bool
is_pt2pt_name(const char *a)
{
	enum ft_op p;

	return ft_op_from_name(a, &p) == 0 &&
	       (p == FT_OP_PT2PT_BW || p == FT_OP_PT2PT_LAT);
}

/*
 * `-a` is nccl-tests' averaging (-a 0..3) and perftest's "all sizes" (no
 * value). With a point-to-point pattern on the line, an -a that is not
 * followed by 0, 1, 2 or 3 is perftest's: it becomes --all-sizes.
 */
static void
perftest_a(int argc, char **argv)
{
	bool pt2pt = false;
	int i;

	for (i = 1; i < argc; i++) {
		if (is_pt2pt_name(argv[i]) ||
		    ((strcmp(argv[i - 1], "-p") == 0 || strcmp(argv[i - 1], "--pattern") == 0) &&
		     is_pt2pt_name(argv[i])) ||
		    (strncmp(argv[i], "--pattern=", 10) == 0 && is_pt2pt_name(argv[i] + 10)))
			pt2pt = true;
	}
	if (!pt2pt)
		return;
	for (i = 1; i < argc; i++) {
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(argv[i], "-a") == 0 &&
		    !(next && next[0] >= '0' && next[0] <= '3' && next[1] == '\0'))
			argv[i] = (char *)"--all-sizes";
	}
}

int
cmd_bench(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = {
		"fabtune bench [PATTERN] [--np N] [options]",
		"fabtune bench [PATTERN] --rank R --nranks N --bootstrap ADDR:PORT [options]",
		"mpirun -np N fabtune bench [PATTERN] [options]",
		NULL,
	};
	struct bench_opts o = {
		.minb = UINT64_MAX,
		.maxb = UINT64_MAX,
		.iters = UINT64_MAX,  /* not given: the pattern's default */
		.window = UINT64_MAX, /* not given: the pattern's default */
		.factor = 2,
		.warmup = 5,
		.check = 1,
		.average = 1,
		.streams = 1,
		.rounds = 5,
		.timeout = 30,
		.threshold = 0.7,
		.np = 1,
		.nthreads = 1,
		.ngpus = 1,
		.cycles = 1,
		.nranks = 0,
		.rank = UINT64_MAX,
	};
	const struct opt opts[] = {
		OPT_STRING('p', "pattern", &o.pattern, "NAME",
		           "pt2pt_bw, pt2pt_lat, pairs, bisection, incast, all_reduce (default), "
		           "all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv, gather, "
		           "scatter, hypercube, dev_memcpy, copy_matrix"),
		OPT_STRING(0, "transport", &o.transport, "NAME",
		           "auto (default), tcp, shm, mpi, verbs, nccl, ucx"),
		OPT_SIZE('b', "minbytes", &o.minb, "smallest size (nccl-tests -b)"),
		OPT_SIZE('e', "maxbytes", &o.maxb, "largest size (nccl-tests -e)"),
		OPT_U64('f', "stepfactor", &o.factor, "N", "multiply the size by N each step"),
		OPT_SIZE('i', "stepbytes", &o.stepb, "add this many bytes each step instead"),
		OPT_U64('n', "iters", &o.iters, "N", "timed iterations per size"),
		OPT_U64('w', "warmup_iters", &o.warmup, "N", "untimed iterations per size (5)"),
		OPT_U64('m', "agg_iters", &o.agg_iters, "N", "operations per timed iteration (1)"),
		OPT_INT('c', "check", &o.check, "0|1", "validate the data, #wrong column (1)"),
		OPT_STRING('o', "op", &o.op, "OP", "reduction: sum (default), prod, max, min, avg, mulsum, all"),
		OPT_STRING('d', "datatype", &o.dtype, "TYPE",
		           "float (default), double, half, bfloat16, int8, uint8, int32, uint32, "
		           "int64, uint64, all"),
		OPT_INT('z', "blocking", &o.blocking, "0|1", "sync all ranks after each iteration"),
		OPT_INT('a', "average", &o.average, "0-3",
		        "time across ranks: 0 rank 0, 1 mean (default), 2 min, 3 max"),
		OPT_INT('r', "root", &o.root, "RANK", "root of broadcast, reduce and incast (0)"),
		OPT_U64('t', "nthreads", &o.nthreads, "N",
		        "nccl-tests: threads per process; here N local ranks each (1)"),
		OPT_U64('g', "ngpus", &o.ngpus, "N",
		        "nccl-tests: GPUs per thread; here N local ranks each (1)"),
		OPT_U64('N', "run_cycles", &o.cycles, "N", "run the sweep N times, 0 = until ^C (1)"),
		OPT_INT('C', "report_cputime", &o.cputime, "0|1", "report CPU time, not wall time"),
		OPT_STRING('T', "timeout", &o.timeout_str, "TIME",
		           "a silent peer is dead after this: seconds or 30s, 2min (30)"),
		OPT_INT('G', "cudagraph", &o.graph, "N", "nccl-tests: CUDA graph launches (0 only)"),
		OPT_INT('p', "parallel_init", &o.parallel_init, "0|1",
		        "nccl-tests: init threads in parallel (no effect: one thread)"),
		OPT_INT('y', "stream_null", &o.stream_null, "0|1",
		        "nccl-tests: default CUDA stream (no effect on host transports)"),
		OPT_INT('R', "local_register", &o.local_register, "0|1",
		        "nccl-tests: register buffers (shm always maps them; 0 or 1)"),
		OPT_U64(0, "np", &o.np, "N", "start N ranks on this host (fork/exec)"),
		OPT_STRING(0, "bind", &o.bind, "HOW",
		           "local ranks' CPUs: core (default when each rank gets one), numa, none"),
		OPT_U64(0, "rank", &o.rank, "R", "manual launch: this process's rank"),
		OPT_U64(0, "nranks", &o.nranks, "N", "manual launch: number of ranks"),
		OPT_STRING(0, "bootstrap", &o.bootstrap, "ADDR:PORT",
		           "manual launch: rank 0's bootstrap address"),
		OPT_STRING('D', "duration", &o.duration_str, "SEC",
		           "perftest: run each size this long instead of -n (pt2pt)"),
		OPT_U64('q', "qp", &o.qps, "N", "perftest: queue pairs; tcp: sockets per peer (1)"),
		OPT_SIZE('s', "size", &o.msg_size, "perftest: one message size (-b and -e)"),
		OPT_BOOL(0, "all-sizes", &o.all_sizes,
		         "perftest's -a: sizes 2 B to 8 MiB (-a is perftest's after a pt2pt pattern)"),
		OPT_BOOL(0, "report_gbits", &o.gbits, "perftest: bandwidth in Gb/sec, not MB/sec"),
		OPT_STRING(0, "ifname", &o.ifname, "SPEC",
		           "interfaces as NCCL_SOCKET_IFNAME: eth, ^docker, =eth0"),
		OPT_U64(0, "streams", &o.streams, "N", "tcp: sockets per peer (1)"),
		OPT_SIZE(0, "sockbuf", &o.sockbuf, "tcp: socket buffer size (kernel default)"),
		OPT_BOOL(0, "no-nodelay", &o.no_nodelay, "tcp: leave Nagle's algorithm on"),
		OPT_SIZE(0, "shm-max", &o.shm_max,
		         "shm: most buffer memory in the segment (half the RAM)"),
		OPT_SIZE(0, "cma-min", &o.cma_min,
		         "shm: single copy (process_vm_readv) from this size on (off)"),
		OPT_U64(0, "window", &o.window, "N", "messages in flight (pt2pt 64, pairs 8)"),
		OPT_BOOL(0, "bidir", &o.bidir, "pt2pt: both directions at once"),
		OPT_DOUBLE(0, "threshold", &o.threshold, "F",
		           "pairs: outlier below F x median (0.7)"),
		OPT_BOOL(0, "no-retest", &o.no_retest, "pairs: skip retesting bad pairs"),
		OPT_U64(0, "rounds", &o.rounds, "N", "bisection: random matchings (5)"),
		OPT_STRING(0, "verbs-op", &o.verbs_op, "OP", "verbs: send (default), write, read"),
		OPT_STRING(0, "rdma-device", &o.rdma_dev, "DEV", "verbs: device (first active)"),
		OPT_INT(0, "gid-index", &o.gid_index, "N", "verbs on RoCE: GID index (0)"),
		OPT_BOOL(0, "save", &o.save, "store the run in the archive"),
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
	char **orig;
	int n, rc, i;
	struct sigaction sa;

	orig = calloc((size_t)argc + 1, sizeof(*orig));
	if (!orig)
		return EXIT_RUNTIME;
	perftest_a(argc, argv);
	for (i = 1; i < argc; i++)
		orig[i - 1] = argv[i];
	n = opts_parse(&usage, ctx, argc, argv);
	if (n < 0) {
		free(orig);
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	}
	if (n > 1 || (n == 1 && o.pattern)) {
		cli_error(ctx, "one pattern at most (got '%s')", argv[n]);
		free(orig);
		return EXIT_USAGE;
	}
	if (n == 1)
		o.pattern = argv[1];
	o.have_rank = o.rank != UINT64_MAX;
	if (!o.have_rank)
		o.rank = 0;
	if (o.have_rank && (o.nranks == 0 || o.rank >= o.nranks)) {
		cli_error(ctx, "--rank %" PRIu64 " needs --nranks N above it", o.rank);
		free(orig);
		return EXIT_USAGE;
	}
	if (o.np == 0 || o.np > 256) {
		cli_error(ctx, "--np %" PRIu64 ": expected 1 to 256", o.np);
		free(orig);
		return EXIT_USAGE;
	}
	if (o.bootstrap && !o.have_rank) {
		cli_error(ctx, "--bootstrap needs --rank and --nranks");
		free(orig);
		return EXIT_USAGE;
	}
	report_gbits = o.gbits;
	o.all_types = o.dtype && strcmp(o.dtype, "all") == 0;
	o.all_ops = o.op && strcmp(o.op, "all") == 0;
	if (o.nthreads == 0 || o.ngpus == 0 || o.nthreads > 256 || o.ngpus > 256) {
		cli_error(ctx, "-t/--nthreads and -g/--ngpus: expected 1 to 256");
		free(orig);
		return EXIT_USAGE;
	}
	/*
	 * nccl-tests runs nThreads x nGpus ranks in each process; fabtune runs one
	 * rank per process, so --np starts that many more (the ranks it starts
	 * carry --rank and ignore -t and -g). mpirun must start them itself.
	 */
	if (!o.have_rank && o.nthreads * o.ngpus > 1) {
		if (ft_world_launched_by_mpi()) {
			cli_error(ctx,
			          "-t %" PRIu64 " -g %" PRIu64 ": under mpirun every process is one "
			          "rank; start %" PRIu64 " times as many processes instead",
			          o.nthreads, o.ngpus, o.nthreads * o.ngpus);
			free(orig);
			return EXIT_USAGE;
		}
		o.np *= o.nthreads * o.ngpus;
		if (o.np > 256) {
			cli_error(ctx, "--np x -t x -g = %" PRIu64 ": at most 256 ranks", o.np);
			free(orig);
			return EXIT_USAGE;
		}
	}
	if (build_cfg(&o, &cfg, ctx) < 0) {
		free(orig);
		return EXIT_USAGE;
	}
	o.timeout = cfg.timeout_s;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* --save: the archive must open before minutes of measuring (rank 0 saves) */
	if (o.save && (o.have_rank ? o.rank == 0 : launch_rank() == 0)) {
		struct ft_archive *ar = NULL;
		struct ft_error e = { 0 };
		int arc = ft_archive_open(ctx->archive && ctx->archive[0] ? ctx->archive : NULL, &ar,
		                          &e);

		ft_archive_close(ar);
		if (arc < 0) {
			cli_error(ctx, "--save: %s (checked before the benchmark; nothing was run)",
			          ft_error_msg(&e, arc));
			free(orig);
			return EXIT_USAGE;
		}
	}
	if (o.np > 1 && !o.have_rank && !ft_world_launched_by_mpi())
		rc = launch(argc - 1, orig, &o, ctx);
	else
		rc = run_rank(&o, &cfg, ctx);
	free(orig);
	return rc;
}

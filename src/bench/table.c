/* SPDX-License-Identifier: MIT */
/*
 * bench/table.c - the tables `fabtune bench` prints: nccl-tests' layout for
 * the collectives (header block, then base/nccl_table.c's column heads, one
 * row per size and the two closing lines), perftest's for point-to-point, a
 * matrix and the outliers for pairs, nvbandwidth's matrix for the copy
 * matrix, rows for bisection and incast, and the JSON document of a report.
 * Rank 0 streams the rows as they are measured (ft_bench_table_head, then
 * ft_bench_table_row each), then ft_bench_table_end prints what is left;
 * without streaming ft_bench_table_end prints it all. Everything goes into a
 * string buffer: the library never prints.
 */
#include "bench_int.h"

#include <math.h>
#include <time.h>

#include <fabtune/json.h>
#include <fabtune/nccl_table.h>
#include <fabtune/result.h>
#include <fabtune/table.h>
#include <fabtune/units.h>
#include <fabtune/version.h>

/* "# Collective test starting: all_reduce_perf": the name the test was run as */
static void
coll_test_line(struct ft_strbuf *sb, const struct ft_bench_table *t,
               const struct ft_bench_cfg *cfg, const char *what)
{
	if (t->test_name && t->test_name[0])
		ft_strbuf_addf(sb, "# Collective test %s: %s\n", what, t->test_name);
	else
		ft_strbuf_addf(sb, "# Collective test %s: %s_perf\n", what, ft_op_name(cfg->pattern));
}

/*
 * The clock that timed rank @r's samples as the output shows it, or NULL:
 * none where the rank timed none (a pattern without latencies, a rank that
 * only answered), and none at all in a stable table (goldens), in text or
 * JSON: which clock timed the samples is the host's (the counter where the
 * CPU says it is invariant, CLOCK_MONOTONIC elsewhere), its rate and error
 * the calibration's, and the loops that fell back the run's (a preemption
 * across a loop's span), so none of it is the same from host to host or
 * run to run. Leaving the lines out, not blanking their figures, keeps a
 * stable table's parse (no bench.clock_* observation) alike on every host.
 */
static const struct ft_bench_clock *
shown_clock(const struct ft_bench_table *t, const struct ft_bench_report *rep, uint32_t r)
{
	if (t->stable || !rep->clocks || r >= rep->nranks || !rep->clocks[r].source[0])
		return NULL;
	return &rep->clocks[r];
}

/*
 * A rank's sample clock for people: "tsc 2095.081 MHz, error 3.1 ppm" (the
 * calibrated rate and the bound on its error) or "monotonic"
 * (CLOCK_MONOTONIC).
 */
static void
clock_text(struct ft_strbuf *sb, const struct ft_bench_clock *c)
{
	ft_strbuf_adds(sb, c->source);
	if (isfinite(c->hz))
		ft_strbuf_addf(sb, " %.3f MHz", c->hz / 1e6);
	if (isfinite(c->error))
		ft_strbuf_addf(sb, ", error %.1f ppm", c->error * 1e6);
}

/*
 * "; 1 of 4 loops at their own rate; 2 of 4 on CLOCK_MONOTONIC after the
 * counter was dropped": the loops whose span in ticks disagreed with
 * CLOCK_MONOTONIC (ft__ticks_settle), and those after them.
 */
static void
clock_loops_text(struct ft_strbuf *sb, const struct ft_bench_clock *c)
{
	if (c->loops_own_rate)
		ft_strbuf_addf(sb, "; %u of %u loops at their own rate", c->loops_own_rate,
		               c->loops);
	if (c->loops_monotonic)
		ft_strbuf_addf(sb, "; %u of %u on CLOCK_MONOTONIC after the counter was dropped",
		               c->loops_monotonic, c->loops);
}

/*
 * "# clock: rank 2 tsc 2095.081 MHz, error 3.1 ppm", one line a rank that
 * timed samples; none in a stable table (shown_clock).
 */
static void
clock_lines(struct ft_strbuf *sb, const struct ft_bench_table *t,
            const struct ft_bench_report *rep)
{
	uint32_t r;

	for (r = 0; r < rep->nranks; r++) {
		const struct ft_bench_clock *c = shown_clock(t, rep, r);

		if (!c)
			continue;
		ft_strbuf_addf(sb, "# clock: rank %u ", r);
		clock_text(sb, c);
		clock_loops_text(sb, c);
		ft_strbuf_addch(sb, '\n');
	}
}

static void
render_header(struct ft_strbuf *sb, const struct ft_bench_table *t,
              const struct ft_bench_report *rep, const struct ft_bench_cfg *cfg)
{
	uint32_t r;

	ft_strbuf_addf(sb, "# fabtune bench %s: transport %s, %u ranks\n", ft_op_name(cfg->pattern),
	               rep->transport, rep->nranks);
	if (cfg->gpu_buffers)
		ft_strbuf_addf(sb, "# buffers: %s\n",
		               strcmp(rep->buffers, "device-staged") == 0 ?
		                       "GPU memory, staged through pinned host memory "
		                       "(the copies are in the times)" :
		               strcmp(rep->buffers, "device-dmabuf") == 0 ?
		                       "GPU memory, read by the RDMA adapter (GPUDirect RDMA, "
		                       "dmabuf)" :
		               strcmp(rep->buffers, "device-peermem") == 0 ?
		                       "GPU memory, read by the RDMA adapter (GPUDirect RDMA, "
		                       "nvidia-peermem)" :
		                       "GPU memory, read by the transport itself");
	/*
	 * "# Collective test starting: NAME" came with nccl-tests 2.16.7 (and
	 * "concluded" at the end): the 2.18 layout has them, the classic one (the
	 * releases from 2.13 to 2.16.6, the outputs most logs hold) does not.
	 */
	if (ft_op_is_coll(cfg->pattern) && t->style == FT_BENCH_STYLE_218)
		coll_test_line(sb, t, cfg, "starting");
	/* -t and -g as given: fabtune ran that many ranks per process's worth (--np x -t x -g) */
	ft_strbuf_addf(sb,
	               "# nThread %u nGpus %u minBytes %" PRIu64 " maxBytes %" PRIu64
	               " step: %" PRIu64 "(%s) warmup iters: %u iters: %u agg iters: %u "
	               "validation: %d graph: %u\n",
	               t->nthreads ? t->nthreads : 1u, t->ngpus ? t->ngpus : 1u, cfg->min_bytes,
	               cfg->max_bytes,
	               cfg->step_bytes ? cfg->step_bytes : cfg->step_factor,
	               cfg->step_bytes ? "bytes" : "factor", cfg->warmup, cfg->iters,
	               cfg->agg_iters ? cfg->agg_iters : 1, cfg->check ? 1 : 0,
	               cfg->graph_launches);
	ft_strbuf_adds(sb, "#\n# Using devices\n");
	for (r = 0; r < rep->nranks; r++) {
		const struct ft_rank_info *i = &rep->ranks[r];

		ft_strbuf_addf(
		        sb, "#  Rank %2u Pid %6d on %10s numa %2d %s (%s) devices: %s bind: %s", r,
		        t->stable ? 0 : (int)i->pid, i->host, (int)i->numa, i->addr, i->ifname,
		        i->devices[0] ? i->devices : "-", i->bind[0] ? i->bind : "none");
		if (!t->stable && i->cpus[0])
			ft_strbuf_addf(sb, " cpus %s", i->cpus);
		ft_strbuf_addch(sb, '\n');
	}
	clock_lines(sb, t, rep); /* pairs, incast: the clocks that timed their latencies */
	ft_strbuf_adds(sb, "#\n");
}

/* nccl-tests' layout is base/nccl_table.c's, which `fabtune sim` prints too. */
static enum ft_nccl_table_style
nccl_style(enum ft_bench_table_style style)
{
	return style == FT_BENCH_STYLE_218 ? FT_NCCL_TABLE_218 : FT_NCCL_TABLE_CLASSIC;
}

void
ft_bench_coll_head(struct ft_strbuf *sb, enum ft_bench_table_style style)
{
	ft_nccl_table_head(sb, nccl_style(style), false);
}

void
ft_bench_coll_row(struct ft_strbuf *sb, const struct ft_result_row *row,
                  enum ft_bench_table_style style)
{
	ft_nccl_table_row(sb, row, nccl_style(style));
}

/* --table-format's names, in enum order. */
static const char *const table_style_names[] = { "classic", "2.18" };
_Static_assert(FT_ARRAY_SIZE(table_style_names) == FT_BENCH_STYLE_218 + 1, "table styles");

FT__NAME_SET(ft__bench_table_styles, table_style_names);
FT__FROM_NAME(ft_bench_table_style_from_name, enum ft_bench_table_style, ft__bench_table_styles,
              FT_EINVAL)

/*
 * nccl-tests' two closing lines. Its "Avg bus bandwidth" is the mean busbw of
 * every timed test, out-of-place and in-place alike; NCCL_TESTS_MIN_BW sets
 * a floor (FAILED below 90% of it). Returns true when that check failed.
 */
bool
ft_bench_coll_foot(struct ft_strbuf *sb, const struct ft_bench_report *rep, const char *min_bw)
{
	double sum = 0, avg, floor = -1;
	int64_t wrong = 0;
	size_t i, n = ft_run_nrows(&rep->run), nbw = 0;
	const char *env = min_bw;
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
		floor = strtod(env, NULL); /* as nccl-tests reads it */
	avg = nbw ? sum / (double)nbw : 0.0;
	low = floor != -1 && avg < floor * 0.9;
	ft_nccl_table_foot(sb, wrong, avg, floor == -1 ? "" : low ? "FAILED" : "OK");
	return low;
}

static const char dashes[] =
        "---------------------------------------------------------------------------------------\n";

/*
 * The title's first words: over verbs, perftest's name of the operation
 * (testsStr and atomicTypesStr in perftest_parameters.c: "RDMA_Write",
 * "Atomic FETCH_AND_ADD"), as ib_write_bw prints it; else the transport.
 */
static const char *
pt2pt_title(const struct ft_bench_report *rep, const struct ft_bench_cfg *cfg)
{
	static const struct {
		const char *op, *title;
	} verbs[] = {
		{ "send", "Send" },
		{ "write", "RDMA_Write" },
		{ "read", "RDMA_Read" },
		{ "fadd", "Atomic FETCH_AND_ADD" },
		{ "cswap", "Atomic CMP_AND_SWAP" },
	};

	if (strcmp(rep->transport, "verbs") != 0)
		return rep->transport;
	for (size_t i = 0; i < FT_ARRAY_SIZE(verbs); i++)
		if (strcmp(cfg->verbs_op, verbs[i].op) == 0)
			return verbs[i].title;
	return "Send";
}

static void
pt2pt_head(struct ft_strbuf *sb, const struct ft_bench_table *t, const struct ft_bench_report *rep,
           const struct ft_bench_cfg *cfg)
{
	bool lat = cfg->pattern == FT_OP_PT2PT_LAT;
	const struct ft_bench_clock *c0;

	ft_strbuf_adds(sb, dashes);
	ft_strbuf_addf(sb, "                    %s %s Test (%s)\n", pt2pt_title(rep, cfg),
	               lat        ? "Latency" :
	               cfg->bidir ? "Bidirectional BW" :
	                            "BW",
	               "fabtune");
	/* perftest's settings block: "%-16s: " keys, a second one after two tabs */
	ft_strbuf_addf(sb, " Number of qps   : %u\t\tTransport type : %s\n",
	               strcmp(rep->transport, "tcp") == 0 || strcmp(rep->transport, "verbs") == 0 ?
	                       cfg->streams :
	                       1u,
	               rep->transport);
	if (strcmp(rep->transport, "verbs") == 0)
		ft_strbuf_addf(sb, " Connection type : %s\n",
		               strcmp(cfg->verbs_conn, "UD") == 0 ? "UD" : "RC");
	if (!lat)
		ft_strbuf_addf(sb, " TX depth        : %u\n", cfg->window);
	if (rep->nranks >= 2) {
		char b0[48], b1[48];

		snprintf(b0, sizeof(b0), "%s%s%s",
		         rep->ranks[0].bind[0] ? rep->ranks[0].bind : "none",
		         t->stable || !rep->ranks[0].cpus[0] ? "" : " ",
		         t->stable ? "" : rep->ranks[0].cpus);
		snprintf(b1, sizeof(b1), "%s%s%s",
		         rep->ranks[1].bind[0] ? rep->ranks[1].bind : "none",
		         t->stable || !rep->ranks[1].cpus[0] ? "" : " ",
		         t->stable ? "" : rep->ranks[1].cpus);
		ft_strbuf_addf(sb, " Binding         : %s -> %s\n", b0, b1);
	}
	/* rank 0 times the round trips: its clock as calibrated (loops noted at the end) */
	if (lat && (c0 = shown_clock(t, rep, 0))) {
		ft_strbuf_adds(sb, " Clock           : ");
		clock_text(sb, c0);
		ft_strbuf_addch(sb, '\n');
	}
	ft_strbuf_adds(sb, dashes);
	ft_bench_pt2pt_head(sb, lat, cfg->duration_s > 0, t->gbits);
}

void
ft_bench_pt2pt_head(struct ft_strbuf *sb, bool lat, bool timed, bool gbits)
{
	if (lat && timed)
		ft_strbuf_adds(sb, " #bytes        #iterations       t_avg[usec]    tps average\n");
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
ft_bench_pt2pt_row(struct ft_strbuf *sb, bool lat, bool timed, bool gbits,
                   const struct ft_result_row *r)
{
	double scale = gbits ? 8.0 : 1e9 / 1048576.0;

	/* -D: perftest's transactions a second, round trips of twice the one-way t_avg */
	if (lat && timed)
		ft_strbuf_addf(sb, " %-7" PRIu64 "       %u            %-7.2f        %-7.2f\n",
		               r->bytes, r->nsamples, r->lat_avg_us,
		               r->lat_avg_us > 0 ? 1e6 / (2 * r->lat_avg_us) : 0.0);
	else if (lat)
		ft_strbuf_addf(sb,
		               " %-7" PRIu64 " %u          %-7.2f        %-7.2f      %-7.2f  \t"
		               "       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f\n",
		               r->bytes, r->nsamples, r->lat_min_us, r->lat_max_us, r->lat_p50_us,
		               r->lat_avg_us, r->lat_stdev_us, r->lat_p99_us, r->lat_p999_us);
	else
		ft_strbuf_addf(
		        sb, " %-7" PRIu64 "    %-10u       %-7.2f            %-7.2f\t\t   %-7.6f\n",
		        r->bytes, r->nsamples, r->ip_algbw_GBps * scale, r->algbw_GBps * scale,
		        r->bytes ? r->algbw_GBps * 1e9 / (double)r->bytes / 1e6 : 0.0);
}

static bool
is_pt2pt(const struct ft_bench_cfg *cfg)
{
	return cfg->pattern == FT_OP_PT2PT_BW || cfg->pattern == FT_OP_PT2PT_LAT;
}

void
ft_bench_table_row(struct ft_strbuf *sb, const struct ft_bench_table *t,
                   const struct ft_bench_cfg *cfg, const struct ft_result_row *r)
{
	if (is_pt2pt(cfg))
		ft_bench_pt2pt_row(sb, cfg->pattern == FT_OP_PT2PT_LAT, cfg->duration_s > 0,
		                   t->gbits, r);
	else
		ft_bench_coll_row(sb, r, t->style);
}

bool
ft_bench_table_streams(const struct ft_bench_cfg *cfg)
{
	return ft_op_is_coll(cfg->pattern) || cfg->pattern == FT_OP_PT2PT_BW ||
	       cfg->pattern == FT_OP_PT2PT_LAT || cfg->pattern == FT_OP_DEV_MEMCPY;
}

void
ft_bench_table_head(struct ft_strbuf *sb, const struct ft_bench_table *t,
                    const struct ft_bench_report *rep, const struct ft_bench_cfg *cfg)
{
	if (is_pt2pt(cfg)) {
		pt2pt_head(sb, t, rep, cfg);
	} else {
		render_header(sb, t, rep, cfg);
		ft_nccl_table_head(sb, nccl_style(t->style), cfg->report_cputime);
	}
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

/*
 * nvbandwidth's layout: one matrix per copy method (rows of algo @algo: "ce"
 * copy engine, "sm" copy kernel), row = source, column = destination, GB/s.
 */
static void
render_copy_method(struct ft_strbuf *sb, const struct ft_bench_report *rep, const char *algo,
                   const char *title)
{
	const char *names[65];
	size_t i, n = 0, a, b;
	uint64_t bytes = 0;

	for (i = 0; i < ft_run_nrows(&rep->run) && n < FT_ARRAY_SIZE(names); i++) {
		const struct ft_result_row *r = ft_run_row(&rep->run, i);

		if (strcmp(r->algo, algo) != 0)
			continue;
		bytes = r->bytes;
		for (a = 0; a < n && strcmp(names[a], r->src) != 0; a++)
			;
		if (a == n)
			names[n++] = r->src;
		for (a = 0; a < n && strcmp(names[a], r->dst) != 0; a++)
			;
		if (a == n && n < FT_ARRAY_SIZE(names))
			names[n++] = r->dst;
	}
	if (n == 0)
		return;
	ft_strbuf_addf(sb,
	               "# memcpy %s bandwidth (GB/s), %" PRIu64 " bytes, row = source, "
	               "column = destination\n",
	               title, bytes);
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

				if (strcmp(r->algo, algo) == 0 && strcmp(r->src, names[a]) == 0 &&
				    strcmp(r->dst, names[b]) == 0) {
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
render_copy_matrix(struct ft_strbuf *sb, const struct ft_bench_report *rep)
{
	render_copy_method(sb, rep, "ce", "CE");
	render_copy_method(sb, rep, "sm", "SM");
}

/*
 * "clock": {"source": "tsc"|"monotonic", "hz", "error_ppm", "loops",
 * "loops_own_rate", "loops_monotonic"}; hz and error_ppm null on
 * CLOCK_MONOTONIC. A stable document has none (shown_clock), as it has no
 * pid or cpus.
 */
static void
json_clock(struct ft_json *j, const struct ft_bench_clock *c)
{
	ft_json_key(j, "clock");
	ft_json_obj_begin(j);
	ft_json_kv_str(j, "source", c->source);
	ft_json_kv_double(j, "hz", c->hz);
	ft_json_kv_double(j, "error_ppm", c->error * 1e6);
	ft_json_kv_uint(j, "loops", c->loops);
	ft_json_kv_uint(j, "loops_own_rate", c->loops_own_rate);
	ft_json_kv_uint(j, "loops_monotonic", c->loops_monotonic);
	ft_json_obj_end(j);
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

void
ft_bench_report_json(struct ft_strbuf *sb, const struct ft_bench_table *t,
                     const struct ft_bench_report *rep, const struct ft_bench_cfg *cfg)
{
	const struct ft_bench_clock *clk;
	struct ft_json j;
	size_t i;
	uint32_t r;

	ft_json_init(&j, sb, false);
	ft_json_obj_begin(&j);
	ft_json_kv_str(&j, "source", ft_source_name(rep->run.source));
	ft_json_kv_str(&j, "kind", rep->run.kind);
	ft_json_kv_str(&j, "fabtune_version", t->stable ? "VERSION" : ft_version());
	ft_json_kv_str(&j, "pattern", ft_op_name(cfg->pattern));
	ft_json_kv_str(&j, "transport", rep->transport);
	ft_json_kv_str(&j, "buffers", rep->buffers);
	/* what was run: the iteration counts after defaults (a row's nsamples follows them) */
	{
		struct ft_bench_cfg c = *cfg;

		ft_bench_cfg_resolve(&c);
		ft_json_kv_uint(&j, "iterations", c.iters);
		ft_json_kv_uint(&j, "warmup_iterations", c.warmup);
		ft_json_kv_uint(&j, "window", c.window);
	}
	if (!t->stable && rep->run.started_s > 0) {
		char when[32];
		time_t when_s = (time_t)rep->run.started_s;
		struct tm tm;

		ft_json_kv_double(&j, "started", rep->run.started_s);
		if (gmtime_r(&when_s, &tm) &&
		    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
			ft_json_kv_str(&j, "started_utc", when);
		ft_json_key(&j, "usage");
		ft_json_obj_begin(&j);
		ft_json_kv_double(&j, "wall_s", rep->run.wall_s);
		ft_json_kv_double(&j, "cpu_s", rep->run.cpu_s);
		ft_json_kv_double(&j, "host_busy", rep->run.host_busy);
		ft_json_kv_double(&j, "load1", rep->run.load1);
		ft_json_obj_end(&j);
	}
	/* pt2pt_lat: rank 0 timed every row */
	if (cfg->pattern == FT_OP_PT2PT_LAT && (clk = shown_clock(t, rep, 0)))
		json_clock(&j, clk);
	ft_json_kv_uint(&j, "nranks", rep->nranks);
	ft_json_kv_bool(&j, "interrupted", rep->interrupted);
	ft_json_key(&j, "ranks");
	ft_json_arr_begin(&j);
	for (r = 0; r < rep->nranks; r++) {
		const struct ft_rank_info *inf = &rep->ranks[r];

		ft_json_obj_begin(&j);
		ft_json_kv_uint(&j, "rank", r);
		ft_json_kv_str(&j, "host", inf->host);
		if (!t->stable)
			ft_json_kv_int(&j, "pid", inf->pid);
		ft_json_kv_int(&j, "numa", inf->numa);
		ft_json_kv_str(&j, "addr", inf->addr);
		ft_json_kv_str(&j, "ifname", inf->ifname);
		ft_json_kv_str(&j, "devices", inf->devices);
		ft_json_kv_str(&j, "bind", inf->bind[0] ? inf->bind : "none");
		if (!t->stable)
			ft_json_kv_str(&j, "cpus", inf->cpus);
		if ((clk = shown_clock(t, rep, r)))
			json_clock(&j, clk);
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
		} else if (cfg->pattern == FT_OP_BISECTION) {
			/* the round, as the table's column */
			ft_json_kv_str(&j, "algo", row->algo);
		} else if (cfg->pattern == FT_OP_COPY_MATRIX) {
			ft_json_kv_str(&j, "algo", row->algo); /* "ce" copy engine, "sm" kernel */
			ft_json_kv_int(&j, "wrong", row->wrong);
		} else if (strcmp(cfg->verbs_op, "fadd") == 0 || strcmp(cfg->verbs_op, "cswap") == 0) {
			ft_json_kv_int(&j, "wrong", row->wrong); /* atomics: the remote word checked */
		} else if (cfg->pattern == FT_OP_PT2PT_BW) {
			ft_json_kv_int(&j, "wrong", row->wrong); /* bytes, -1 unchecked */
		}
		if (cfg->pattern == FT_OP_PT2PT_BW)
			ft_json_kv_double(&j, "peak_GBps", row->ip_algbw_GBps);
		if (cfg->pattern == FT_OP_PT2PT_BW && row->algo[0])
			ft_json_kv_str(&j, "copy", row->algo); /* shm: the copy rank 0's messages took */
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

/*
 * After perftest's table, which has no column for it: the bytes pt2pt_bw's
 * data check found wrong, per size, only when there are any.
 */
static void
pt2pt_wrong(struct ft_strbuf *sb, const struct ft_bench_report *rep)
{
	size_t i;

	for (i = 0; i < ft_run_nrows(&rep->run); i++) {
		const struct ft_result_row *row = ft_run_row(&rep->run, i);

		if (row->wrong > 0)
			ft_strbuf_addf(sb,
			               "# data check: %" PRId64 " of %" PRIu64
			               " bytes received wrong: FAILED\n",
			               row->wrong, row->bytes);
	}
}

/*
 * After pt2pt_bw's table over shm, which has no column for it: the copy
 * each size's messages took (the --json rows' "copy": "ring", "ring-nt",
 * "single", "ring+single N%"), so that the table read back gives the rows
 * the document gives.
 */
static void
pt2pt_copy(struct ft_strbuf *sb, const struct ft_bench_report *rep, const struct ft_bench_cfg *cfg)
{
	if (cfg->pattern != FT_OP_PT2PT_BW)
		return;
	for (size_t i = 0; i < ft_run_nrows(&rep->run); i++) {
		const struct ft_result_row *row = ft_run_row(&rep->run, i);

		if (row->algo[0])
			ft_strbuf_addf(sb, "# copy: %" PRIu64 " bytes: %s\n", row->bytes,
			               row->algo);
	}
}

bool
ft_bench_table_end(struct ft_strbuf *sb, const struct ft_bench_table *t,
                   const struct ft_bench_report *rep, const struct ft_bench_cfg *cfg, bool started)
{
	size_t i;
	bool low = false;

	if (ft_bench_table_streams(cfg)) {
		/* the rows went out as they were measured; what is left is the foot */
		if (!started) {
			ft_bench_table_head(sb, t, rep, cfg);
			for (i = 0; i < ft_run_nrows(&rep->run); i++) {
				ft_bench_table_row(sb, t, cfg, ft_run_row(&rep->run, i));
			}
		}
		if (is_pt2pt(cfg)) {
			ft_strbuf_adds(sb, dashes);
			pt2pt_wrong(sb, rep);
			pt2pt_copy(sb, rep, cfg);
			/* loops whose counter disagreed, which the head could not know */
			if (rep->clocks && rep->nranks >= 1 &&
			    (rep->clocks[0].loops_own_rate || rep->clocks[0].loops_monotonic))
				clock_lines(sb, t, rep);
		} else {
			low = ft_bench_coll_foot(sb, rep, t->min_bw);
			if (ft_op_is_coll(cfg->pattern) && t->style == FT_BENCH_STYLE_218) {
				coll_test_line(sb, t, cfg, "concluded");
				ft_strbuf_adds(sb, "#\n");
			}
		}
	} else {
		render_header(sb, t, rep, cfg);
		switch (cfg->pattern) {
		case FT_OP_PAIRS:
			if (rep->bw_GBps)
				render_pairs(sb, rep);
			break;
		case FT_OP_COPY_MATRIX:
			render_copy_matrix(sb, rep);
			break;
		case FT_OP_BISECTION:
			render_rows(sb, rep, "bisection");
			break;
		default:
			render_rows(sb, rep, "incast");
			break;
		}
	}
	if (rep->interrupted)
		ft_strbuf_adds(sb, "# interrupted: the rows above are what was measured\n");
	return low;
}

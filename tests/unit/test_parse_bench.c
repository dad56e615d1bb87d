/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_parse_bench.c - `fabtune parse` reads back what `fabtune
 * bench` prints: every table kind src/bench/table.c writes (nccl-tests'
 * layouts classic and 2.18 with and without -C, perftest's bandwidth in
 * MB/sec and Gb/sec, latency, latency over -D, the verbs titles, the pairs
 * matrices, the bisection and incast tables, copy_matrix's matrices) and the
 * --json document, rendered by the library from one report per pattern, are
 * read as the right test with all their rows; the table and the document of
 * one report give the same records (to the table's printed digits); and the
 * table and the document of one real run (--json-file) do too.
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* cmocka needs the headers above first */
/* clang-format off */
#include <cmocka.h>
/* clang-format on */

#include <fabtune/fabtune.h>

#include "source_root.h"

#define FIXTURES "tests/fixtures"
#define NR       3 /* ranks of the reports made here */

/* ---- one report per pattern ---------------------------------------------- */

static void
add_row(struct ft_bench_report *rep, const struct ft_result_row *r)
{
	assert_int_equal(ft_run_add(&rep->run, r), 0);
}

static void
base_row(struct ft_result_row *r, const char *test, uint64_t bytes, uint32_t nranks)
{
	ft_result_row_init(r);
	ft_strlcpy(r->test, test, sizeof(r->test));
	ft_strlcpy(r->transport, "shm", sizeof(r->transport));
	ft_strlcpy(r->dtype, "uint8", sizeof(r->dtype));
	ft_strlcpy(r->redop, "none", sizeof(r->redop));
	r->bytes = r->count = bytes;
	r->root = -1;
	r->nranks = nranks;
}

static void
label(char *buf, size_t n, uint32_t rank)
{
	snprintf(buf, n, "h%u/rank%u", rank, rank);
}

/*
 * A report of @p as a run of it fills one: NR ranks on hosts h0.., the rows
 * the pattern's code writes (src/bench/patterns*.c, coll.c), figures with
 * more digits than a table prints, and each latency pattern's clocks.
 */
static void
make_report(struct ft_bench_report *rep, struct ft_bench_cfg *cfg, enum ft_op p)
{
	struct ft_result_row r;
	uint32_t i, s, d, n = p == FT_OP_PT2PT_BW || p == FT_OP_PT2PT_LAT ? 2 : NR;

	ft_bench_report_init(rep);
	ft_bench_cfg_init(cfg);
	cfg->pattern = p;
	cfg->min_bytes = 1024;
	cfg->max_bytes = p == FT_OP_INCAST || p == FT_OP_PAIRS || p == FT_OP_BISECTION ||
	                                 p == FT_OP_COPY_MATRIX ?
	                         1024 :
	                         65536;
	cfg->step_factor = 64;
	cfg->iters = 20;
	cfg->warmup = 5;
	ft_strlcpy(rep->transport, p == FT_OP_COPY_MATRIX || p == FT_OP_DEV_MEMCPY ? "cuda" : "shm",
	           sizeof(rep->transport));
	ft_strlcpy(rep->buffers, "host", sizeof(rep->buffers));
	if (p == FT_OP_COPY_MATRIX || p == FT_OP_DEV_MEMCPY)
		n = 1; /* one process, its GPUs */
	rep->nranks = n;
	rep->ranks = ft_calloc(n, sizeof(*rep->ranks));
	assert_non_null(rep->ranks);
	for (i = 0; i < n; i++) {
		rep->ranks[i].rank = i;
		snprintf(rep->ranks[i].host, sizeof(rep->ranks[i].host), "h%u", i);
		snprintf(rep->ranks[i].addr, sizeof(rep->ranks[i].addr), "192.0.2.%u", i + 1);
		ft_strlcpy(rep->ranks[i].ifname, "eth0", sizeof(rep->ranks[i].ifname));
		ft_strlcpy(rep->ranks[i].bind, "core", sizeof(rep->ranks[i].bind));
	}
	if (p == FT_OP_PT2PT_LAT || p == FT_OP_PAIRS || p == FT_OP_INCAST) {
		rep->clocks = ft_calloc(n, sizeof(*rep->clocks));
		assert_non_null(rep->clocks);
		/* pt2pt_lat: rank 0 times the round trips, rank 1 nothing */
		for (i = 0; i < (p == FT_OP_PT2PT_LAT ? 1 : n); i++) {
			struct ft_bench_clock *c = &rep->clocks[i];

			/* the last rank timed on CLOCK_MONOTONIC: no rate, no error */
			ft_strlcpy(c->source, i + 1 < n ? "tsc" : "monotonic", sizeof(c->source));
			c->hz = i + 1 < n ? 2694836325.538294 - 1000.25 * i : NAN;
			c->error = i + 1 < n ? 3.962644e-6 : NAN;
			c->loops = 2;
		}
	}
	if (p == FT_OP_DEV_MEMCPY) {
		/* as bench/nccl.c writes them: one process, no check, no in-place figures */
		for (uint64_t b = cfg->min_bytes; b <= cfg->max_bytes; b *= cfg->step_factor) {
			base_row(&r, "dev_memcpy", b, 1);
			ft_strlcpy(r.transport, "cuda", sizeof(r.transport));
			r.nsamples = cfg->iters;
			r.time_us = 1.2345678 * (double)(b / 1024);
			r.algbw_GBps = (double)b / (r.time_us * 1e3);
			r.busbw_GBps = 2 * r.algbw_GBps;
			add_row(rep, &r);
		}
	} else if (ft_op_is_coll(p)) {
		for (uint64_t b = cfg->min_bytes; b <= cfg->max_bytes; b *= cfg->step_factor) {
			base_row(&r, ft_op_name(p), b, n);
			ft_strlcpy(r.dtype, "float", sizeof(r.dtype));
			ft_strlcpy(r.redop, p == FT_OP_ALL_REDUCE ? "sum" : "none",
			           sizeof(r.redop));
			r.count = b / 4;
			r.root = p == FT_OP_BROADCAST || p == FT_OP_REDUCE ? 0 : -1;
			r.time_us = 12.3456 * (double)(b / 1024);
			r.algbw_GBps = (double)b / (r.time_us * 1e3);
			r.busbw_GBps = r.algbw_GBps * 1.3333333;
			r.ip_time_us = r.time_us * 1.01;
			r.ip_algbw_GBps = (double)b / (r.ip_time_us * 1e3);
			r.ip_busbw_GBps = r.ip_algbw_GBps * 1.3333333;
			r.wrong = 0;
			ft_strlcpy(r.algo, "ring", sizeof(r.algo));
			add_row(rep, &r);
		}
	} else if (p == FT_OP_PT2PT_BW || p == FT_OP_PT2PT_LAT) {
		for (uint64_t b = cfg->min_bytes; b <= cfg->max_bytes; b *= cfg->step_factor) {
			base_row(&r, ft_op_name(p), b, 2);
			label(r.src, sizeof(r.src), 0);
			label(r.dst, sizeof(r.dst), 1);
			r.nsamples = 1000;
			if (p == FT_OP_PT2PT_BW) {
				r.algbw_GBps = r.busbw_GBps = 1.234567 * (double)(b / 1024);
				r.ip_algbw_GBps = r.algbw_GBps * 1.1;
				r.time_us = (double)b / (r.algbw_GBps * 1e3);
				r.wrong = 0;
			} else {
				r.lat_min_us = 0.5209963;
				r.lat_avg_us = 0.6441819;
				r.lat_p50_us = r.time_us = 0.6111688 + (double)(b / 1024);
				r.lat_p99_us = 0.6963317 + (double)(b / 1024);
				r.lat_p999_us = 15.549738;
				r.lat_max_us = 16.671884;
				r.lat_stdev_us = 0.6339903;
				r.algbw_GBps = r.busbw_GBps = (double)b / (r.time_us * 1e3);
			}
			add_row(rep, &r);
		}
	} else if (p == FT_OP_PAIRS) {
		rep->bw_GBps = ft_calloc((size_t)n * n, sizeof(double));
		rep->lat_us = ft_calloc((size_t)n * n, sizeof(double));
		assert_true(rep->bw_GBps && rep->lat_us);
		for (s = 0; s < n; s++)
			for (d = 0; d < n; d++) {
				double bw = 2.0 + 0.123456 * s + 0.0111111 * d;

				rep->bw_GBps[s * n + d] = s == d ? NAN : bw;
				rep->lat_us[s * n + d] = s == d ? NAN : 13.525869 + s + d;
				if (s == d)
					continue;
				base_row(&r, "pairs", cfg->max_bytes, 2);
				label(r.src, sizeof(r.src), s);
				label(r.dst, sizeof(r.dst), d);
				r.algbw_GBps = r.busbw_GBps = bw;
				r.time_us = (double)cfg->max_bytes / (bw * 1e3);
				r.lat_p50_us = rep->lat_us[s * n + d];
				r.nsamples = 32;
				add_row(rep, &r);
			}
		rep->median_GBps = 2.1358024;
		{
			struct ft_bench_outlier o = { .rank_a = 2, .rank_b = 0 };

			ft_strlcpy(o.kind, "pair", sizeof(o.kind));
			ft_strlcpy(o.blame, "h2", sizeof(o.blame));
			ft_strlcpy(o.text, "pair h2 -> h0: 0.900 GB/s, 0.42x the median",
			           sizeof(o.text));
			o.value_GBps = 0.9;
			o.ratio = 0.42;
			assert_int_equal(ft_vec_push(&rep->outliers, &o), 0);
		}
	} else if (p == FT_OP_BISECTION) {
		for (i = 0; i < 2; i++) {
			base_row(&r, "bisection", cfg->max_bytes, n);
			r.algbw_GBps = 52.539123 + i;
			r.busbw_GBps = 23.179456 + i;
			r.time_us = (double)cfg->max_bytes / (r.busbw_GBps * 1e3);
			snprintf(r.algo, sizeof(r.algo), "round%u", i + 1);
			label(r.src, sizeof(r.src), i);
			label(r.dst, sizeof(r.dst), i + 1);
			add_row(rep, &r);
		}
	} else if (p == FT_OP_INCAST) {
		for (i = 0; i < 2; i++) {
			base_row(&r, i ? "incast" : "incast_idle", i ? cfg->max_bytes : 8, n);
			r.root = 0;
			r.lat_p50_us = r.time_us = 10.123456 + 40 * i;
			if (i)
				r.algbw_GBps = r.busbw_GBps = 3.4567891;
			r.nsamples = 100;
			label(r.src, sizeof(r.src), n - 1);
			label(r.dst, sizeof(r.dst), 0);
			add_row(rep, &r);
		}
		rep->victim_idle_us = 10.123456;
		rep->victim_busy_us = 50.123456;
		rep->congestion_impact = 50.123456 / 10.123456;
	} else if (p == FT_OP_COPY_MATRIX) {
		static const char *const names[] = { "host", "gpu0", "gpu1" };

		for (i = 0; i < 2; i++)
			for (s = 0; s < 3; s++)
				for (d = 0; d < 3; d++) {
					if (s == d || (s == 0 && d == 0))
						continue;
					base_row(&r, "copy_matrix", 1u << 29, 1);
					ft_strlcpy(r.transport, "cuda", sizeof(r.transport));
					ft_strlcpy(r.algo, i ? "sm" : "ce", sizeof(r.algo));
					ft_strlcpy(r.src, names[s], sizeof(r.src));
					ft_strlcpy(r.dst, names[d], sizeof(r.dst));
					r.algbw_GBps = r.busbw_GBps = 25.123 + 10 * s + d + i;
					r.time_us = (double)r.bytes / (r.algbw_GBps * 1e3);
					r.wrong = 0;
					add_row(rep, &r);
				}
	}
}

/* ---- parse and compare ----------------------------------------------------- */

struct parsed {
	struct ft_obs_set set;
	struct ft_run run;
	char format[32];
	/* perftest's layout printed its bandwidths in Gb/sec (--report_gbits), else MB/sec */
	bool gbits;
};

static void
parse_text(const char *what, const struct ft_strbuf *sb, struct parsed *out)
{
	struct ft_error err = { 0 };
	const struct ft_parser *p = ft_parser_detect(sb->buf, sb->len);

	if (!p)
		fail_msg("%s: no format detected in:\n%s", what, sb->buf);
	ft_strlcpy(out->format, p->name, sizeof(out->format));
	out->gbits = strstr(sb->buf, "BW average[Gb/sec]") != NULL;
	ft_obs_set_init(&out->set);
	ft_run_init(&out->run, FT_SOURCE_IMPORT, "");
	if (ft_parse_buffer(sb->buf, sb->len, "bench.out", NULL, &out->set, &out->run, &err) < 0)
		fail_msg("%s: %s", what, err.msg);
	for (size_t i = 0; i < ft_obs_set_len(&out->set); i++) {
		const struct ft_obs *o = ft_obs_set_at(&out->set, i);

		if (strcmp(o->key, "parse.skipped") == 0)
			fail_msg("%s (%s): line %u skipped: %s\n%s", what, out->format, o->line,
			         o->str, sb->buf);
	}
}

static void
parsed_release(struct parsed *p)
{
	ft_obs_set_release(&p->set);
	ft_run_release(&p->run);
}

/* @a (from a table, rounded as printed) and @b (from the document) agree. */
static bool
near(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	/* the tables print 2 or 3 decimals, perftest's MB/sec of GB/s rounded so too */
	return fabs(a - b) <= 0.0051 + 5e-4 * fabs(b);
}

/* @a (derived from a printed figure whose rounding is @rel of it) and @b agree. */
static bool
near_rel(double a, double b, double rel)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return fabs(a - b) <= fabs(b) * rel * 1.01 + 1e-12;
}

/*
 * One unit of the bandwidths the table @t printed, in GB/s: Gb/sec (1/8 GB/s) or
 * MB/sec (MiB/s, 1048576 B/s). The table prints them to 0.01 of that unit.
 */
static double
table_unit_GBps(const struct parsed *t)
{
	return t->gbits ? 1 / 8.0 : 1048576.0 / 1e9;
}

/*
 * The share of pt2pt_bw's average that its printing to 2 decimals leaves, as the
 * table @t printed it (@a its row): MB/sec (MiB/s) or Gb/sec. A time derived from the
 * printed average (bytes over it) is off the exact one by up to that share.
 */
static double
avg_rel(const struct parsed *t, const struct ft_result_row *a)
{
	return 0.005 / (a->algbw_GBps / table_unit_GBps(t));
}

/*
 * pt2pt_bw's time @x (the table @t's row @a, bytes over its printed average) and the
 * document's @y agree to what that rounding leaves; an average printed 0.00 leaves no
 * share (it would be infinite): the printed digits' absolute rule (near()).
 */
static bool
near_avg(const struct parsed *t, const struct ft_result_row *a, double x, double y)
{
	if (!(a->algbw_GBps > 0))
		return near(x, y);
	return near_rel(x, y, avg_rel(t, a));
}

/*
 * The rows of @t (a table) are the rows of @j (the document of the same
 * run): same count and order, the same names, sizes and ranks, and every
 * figure the table holds the document's to its printed digits. The document
 * may hold more figures (the table prints fewer): those are not compared.
 */
static bool
rows_differ(const char *what, const struct parsed *t, const struct parsed *j, char *msg, size_t len)
{
	size_t i, n = ft_run_nrows(&t->run);

	if (n != ft_run_nrows(&j->run))
		return snprintf(msg, len, "%s: %zu rows from the table, %zu from the document",
		                what, n, ft_run_nrows(&j->run));
	for (i = 0; i < n; i++) {
		const struct ft_result_row *a = ft_run_row(&t->run, i), *b = ft_run_row(&j->run, i);
		static const struct {
			const char *name;
			size_t off;
		} f[] = {
#define F(x) { #x, offsetof(struct ft_result_row, x) }
			F(time_us),       F(algbw_GBps),    F(busbw_GBps),  F(ip_time_us),
			F(ip_algbw_GBps), F(ip_busbw_GBps), F(lat_min_us),  F(lat_avg_us),
			F(lat_p50_us),    F(lat_p99_us),    F(lat_p999_us), F(lat_max_us),
			F(lat_stdev_us),
#undef F
		};

		/* perftest's layout names no ends (its Binding line has no host), nccl-tests'
		   no algorithm: what a table leaves out is not compared */
		if (strcmp(a->test, b->test) || strcmp(a->transport, b->transport) ||
		    a->bytes != b->bytes || a->nranks != b->nranks ||
		    (a->src[0] && strcmp(a->src, b->src)) ||
		    (a->dst[0] && strcmp(a->dst, b->dst)) ||
		    (a->algo[0] && strcmp(a->algo, b->algo)))
			return snprintf(msg, len,
			                "%s row %zu: table %s %s %" PRIu64 " B %u ranks %s->%s %s; "
			                "document %s %s %" PRIu64 " B %u ranks %s->%s %s",
			                what, i, a->test, a->transport, a->bytes, a->nranks, a->src,
			                a->dst, a->algo, b->test, b->transport, b->bytes, b->nranks,
			                b->src, b->dst, b->algo);
		if (a->root != b->root && a->root != -1)
			return snprintf(msg, len, "%s row %zu: root %d, document %d", what, i,
			                a->root, b->root);
		if (a->wrong != b->wrong && a->wrong != -1)
			return snprintf(msg, len,
			                "%s row %zu: wrong %" PRId64 ", document %" PRId64, what, i,
			                a->wrong, b->wrong);
		if (a->nsamples && a->nsamples != b->nsamples)
			return snprintf(msg, len, "%s row %zu: nsamples %u, document %u", what, i,
			                a->nsamples, b->nsamples);
		for (size_t k = 0; k < FT_ARRAY_SIZE(f); k++) {
			double x = *(const double *)(const void *)((const char *)a + f[k].off);
			double y = *(const double *)(const void *)((const char *)b + f[k].off);

			/* pt2pt_lat's bandwidth is bytes over the printed median, pt2pt_bw's
			   time bytes over the printed average: what their rounding leaves is a
			   share of it, not a number of digits */
			bool lat_bw =
			        strcmp(a->test, "pt2pt_lat") == 0 && strstr(f[k].name, "bw_GBps");
			bool bw_time = strcmp(a->test, "pt2pt_bw") == 0 &&
			               strcmp(f[k].name, "time_us") == 0;

			if (!isnan(x) && !(lat_bw  ? near_rel(x, y, 0.005 / a->lat_p50_us) :
			                   bw_time ? near_avg(t, a, x, y) :
			                             near(x, y)))
				return snprintf(msg, len,
				                "%s row %zu: %s %.6g from the table, %.6g from the "
				                "document",
				                what, i, f[k].name, x, y) > 0;
		}
	}
	return false;
}

static void
same_rows(const char *what, const struct parsed *t, const struct parsed *j)
{
	char msg[1024];

	if (rows_differ(what, t, j, msg, sizeof(msg)))
		fail_msg("%s", msg);
}

/*
 * The observations of fabtune bench's own lines (clocks, the pairs' median
 * and outliers, incast's impact) and of pt2pt_bw's lines in perftest's
 * layout (peak, average, message rate) are the same in both: key, rank,
 * unit, text, and the number to the table's digits. (The nccl-tests
 * parser and perftest's latency rows also give per-line figures of the
 * rows, which `fabtune diagnose` derives from the rows of either.)
 */
static void
same_obs(const char *what, const struct parsed *t, const struct parsed *j)
{
	static const char *const keys[] = {
		"bench.clock_hz",      "bench.clock_error", "bench.median_pair_bw",
		"bench.outlier",       "bench.congestion_impact",
		/* perftest's layout: each pt2pt_bw line's figures, the peak with them */
		"bench.bw_peak",       "bench.bw_avg",      "bench.msg_rate",
	};
	size_t nt = 0, nj = 0;

	for (size_t i = 0; i < ft_obs_set_len(&t->set); i++) {
		const struct ft_obs *a = ft_obs_set_at(&t->set, i);
		bool mine = false, found = false;

		for (size_t k = 0; k < FT_ARRAY_SIZE(keys); k++)
			mine = mine || strcmp(a->key, keys[k]) == 0;
		if (!mine)
			continue;
		nt++;
		for (size_t k = 0; k < ft_obs_set_len(&j->set) && !found; k++) {
			const struct ft_obs *b = ft_obs_set_at(&j->set, k);

			found = strcmp(a->key, b->key) == 0 && a->rank == b->rank &&
			        strcmp(a->unit, b->unit) == 0 && strcmp(a->str, b->str) == 0 &&
			        a->has_num == b->has_num &&
			        (!a->has_num ||
			         (strcmp(a->key, "bench.clock_hz") == 0 ?
			                  fabs(a->num - b->num) <= 500 : /* MHz to 3 decimals */
			          strcmp(a->key, "bench.clock_error") == 0 ?
			                  fabs(a->num - b->num) <= 0.051 : /* ppm to 1 decimal */
			                  near(a->num, b->num)));
		}
		if (!found)
			fail_msg("%s: %s of rank %d (%g %s \"%s\") not in the document", what,
			         a->key, a->rank, a->num, a->unit, a->str);
	}
	for (size_t i = 0; i < ft_obs_set_len(&j->set); i++)
		if (strncmp(ft_obs_set_at(&j->set, i)->key, "bench.", 6) == 0)
			nj++;
	if (nt != nj)
		fail_msg("%s: %zu observations of bench's lines from the table, %zu from the "
		         "document",
		         what, nt, nj);
}

/* @a and @b are the same figure: equal to the last bit, or both not measured. */
static bool
same_dbl(double a, double b)
{
	return isnan(a) ? isnan(b) : a == b;
}

/*
 * The rows read from the document are the report's rows exactly: every
 * name, count and figure (the document writes each to its last digit).
 */
static void
exact_rows(const char *what, const struct ft_run *want, const struct ft_run *got)
{
	static const struct {
		const char *name;
		size_t off;
	} f[] = {
#define F(x) { #x, offsetof(struct ft_result_row, x) }
		F(time_us),       F(algbw_GBps),    F(busbw_GBps),  F(ip_time_us),
		F(ip_algbw_GBps), F(ip_busbw_GBps), F(lat_min_us),  F(lat_avg_us),
		F(lat_p50_us),    F(lat_p99_us),    F(lat_p999_us), F(lat_max_us),
		F(lat_stdev_us),  F(time_stdev_us),
#undef F
	};
	size_t n = ft_run_nrows(want);

	if (n != ft_run_nrows(got))
		fail_msg("%s: %zu rows in the report, %zu read", what, n, ft_run_nrows(got));
	for (size_t i = 0; i < n; i++) {
		const struct ft_result_row *a = ft_run_row(want, i), *b = ft_run_row(got, i);

		if (strcmp(a->test, b->test) || strcmp(a->transport, b->transport) ||
		    strcmp(a->dtype, b->dtype) || strcmp(a->redop, b->redop) ||
		    strcmp(a->algo, b->algo) || strcmp(a->src, b->src) || strcmp(a->dst, b->dst) ||
		    a->bytes != b->bytes || a->count != b->count || a->nranks != b->nranks ||
		    a->root != b->root || a->wrong != b->wrong || a->nsamples != b->nsamples)
			fail_msg("%s row %zu: report %s %s %s %s '%s' %s->%s %" PRIu64 "/%" PRIu64
			         " %u %d %" PRId64 " %u; read %s %s %s %s '%s' %s->%s %" PRIu64
			         "/%" PRIu64 " %u %d %" PRId64 " %u",
			         what, i, a->test, a->transport, a->dtype, a->redop, a->algo, a->src,
			         a->dst, a->bytes, a->count, a->nranks, a->root, a->wrong, a->nsamples,
			         b->test, b->transport, b->dtype, b->redop, b->algo, b->src, b->dst,
			         b->bytes, b->count, b->nranks, b->root, b->wrong, b->nsamples);
		for (size_t k = 0; k < FT_ARRAY_SIZE(f); k++) {
			double x = *(const double *)(const void *)((const char *)a + f[k].off);
			double y = *(const double *)(const void *)((const char *)b + f[k].off);

			if (!same_dbl(x, y))
				fail_msg("%s row %zu: %s %.17g in the report, %.17g read", what, i,
				         f[k].name, x, y);
		}
	}
}

/* ---- every table kind ------------------------------------------------------ */

struct kind {
	const char *name;
	enum ft_op op;
	enum ft_bench_table_style style;
	bool gbits, cputime, timed, bidir;
	const char *verbs_op; /* NULL: the transport's title */
	const char *format;   /* the parser that reads the table */
};

static void
check_kind(const struct kind *k)
{
	struct ft_bench_report rep;
	struct ft_bench_cfg cfg;
	struct ft_bench_table t = { .stable = false };
	struct ft_strbuf text, doc;
	struct parsed pt, pj;
	char what[96];

	make_report(&rep, &cfg, k->op);
	t.style = k->style;
	t.gbits = k->gbits;
	cfg.report_cputime = k->cputime;
	cfg.duration_s = k->timed ? 2 : 0;
	cfg.bidir = k->bidir;
	/* a bidirectional run's message takes twice its time at the average, which counts
	   both ways (patterns.c): the row as the bench gives it */
	for (size_t i = 0; k->bidir && i < ft_run_nrows(&rep.run); i++)
		((struct ft_result_row *)ft_vec_at(&rep.run.rows, i))->time_us *= 2;
	if (k->verbs_op) {
		ft_strlcpy(rep.transport, "verbs", sizeof(rep.transport));
		ft_strlcpy(cfg.verbs_op, k->verbs_op, sizeof(cfg.verbs_op));
		for (size_t i = 0; i < ft_run_nrows(&rep.run); i++)
			ft_strlcpy(((struct ft_result_row *)ft_vec_at(&rep.run.rows, i))->transport,
			           "verbs", sizeof(rep.transport));
	}
	ft_strbuf_init(&text);
	ft_strbuf_init(&doc);
	(void)ft_bench_table_end(&text, &t, &rep, &cfg, false);
	ft_bench_report_json(&doc, &t, &rep, &cfg);
	snprintf(what, sizeof(what), "%s table", k->name);
	parse_text(what, &text, &pt);
	if (strcmp(pt.format, k->format) != 0)
		fail_msg("%s: read as %s, expected %s", what, pt.format, k->format);
	/* every row, each as the test it is: none "unknown", none lost */
	assert_int_equal(ft_run_nrows(&pt.run), ft_run_nrows(&rep.run));
	for (size_t i = 0; i < ft_run_nrows(&rep.run); i++) {
		const struct ft_result_row *want = ft_run_row(&rep.run, i);
		const struct ft_result_row *got = ft_run_row(&pt.run, i);

		if (strcmp(got->test, want->test) != 0 || got->bytes != want->bytes ||
		    strcmp(got->transport, want->transport) != 0)
			fail_msg("%s row %zu: %s %s %" PRIu64 " B, expected %s %s %" PRIu64 " B",
			         what, i, got->test, got->transport, got->bytes, want->test,
			         want->transport, want->bytes);
	}
	snprintf(what, sizeof(what), "%s document", k->name);
	parse_text(what, &doc, &pj);
	assert_string_equal(pj.format, "fabtune-bench");
	exact_rows(what, &rep.run, &pj.run);
	snprintf(what, sizeof(what), "%s table and document", k->name);
	same_rows(what, &pt, &pj);
	same_obs(what, &pt, &pj);
	parsed_release(&pt);
	parsed_release(&pj);
	ft_strbuf_release(&text);
	ft_strbuf_release(&doc);
	ft_bench_report_release(&rep);
}

static void
test_every_table_kind(void **state)
{
	static const struct kind layouts[] = {
		{ "pt2pt_bw", FT_OP_PT2PT_BW, 0, false, false, false, false, NULL, "perftest" },
		{ "pt2pt_bw --report_gbits", FT_OP_PT2PT_BW, 0, true, false, false, false, NULL,
		  "perftest" },
		{ "pt2pt_bw --bidir", FT_OP_PT2PT_BW, 0, false, false, false, true, NULL,
		  "perftest" },
		{ "pt2pt_bw verbs write", FT_OP_PT2PT_BW, 0, false, false, false, false, "write",
		  "perftest" },
		{ "pt2pt_lat", FT_OP_PT2PT_LAT, 0, false, false, false, false, NULL, "perftest" },
		{ "pt2pt_lat -D", FT_OP_PT2PT_LAT, 0, false, false, true, false, NULL, "perftest" },
		{ "pt2pt_lat verbs fadd", FT_OP_PT2PT_LAT, 0, false, false, false, false, "fadd",
		  "perftest" },
		{ "pairs", FT_OP_PAIRS, 0, false, false, false, false, NULL, "fabtune-bench" },
		{ "bisection", FT_OP_BISECTION, 0, false, false, false, false, NULL,
		  "fabtune-bench" },
		{ "incast", FT_OP_INCAST, 0, false, false, false, false, NULL, "fabtune-bench" },
		{ "copy_matrix", FT_OP_COPY_MATRIX, 0, false, false, false, false, NULL,
		  "fabtune-bench" },
	};
	size_t ncoll = 0;

	for (size_t i = 0; i < FT_ARRAY_SIZE(layouts); i++)
		check_kind(&layouts[i]);
	/* the collectives and dev_memcpy: nccl-tests' layouts, classic and 2.18, with -C */
	for (int op = 0; op < FT_OP_COUNT; op++) {
		char name[64];

		if (!ft_op_is_coll((enum ft_op)op) && op != FT_OP_DEV_MEMCPY)
			continue;
		for (int style = 0; style < 2; style++)
			for (int cpu = 0; cpu < 2; cpu++) {
				struct kind k = {
					name,  (enum ft_op)op, (enum ft_bench_table_style)style,
					false, cpu != 0,       false,
					false, NULL,           "nccl-tests"
				};

				snprintf(name, sizeof(name), "%s %s%s", ft_op_name((enum ft_op)op),
				         style ? "2.18" : "classic", cpu ? " -C 1" : "");
				check_kind(&k);
			}
		ncoll++;
	}
	/* every pattern has a table here: none was left out of the walk */
	assert_int_equal(ncoll + 6, FT_OP_COUNT);
}

/* ---- the table and the document of one real run ------------------------------ */

static void
test_one_run_fixtures(void **state)
{
	/* each run: `fabtune bench ... --json-file X-json.txt > X.txt` (their headers) */
	static const struct {
		const char *table, *format;
	} runs[] = {
		{ "nccl-tests/fabtune-bench-all-reduce-3-ranks-shm.txt", "nccl-tests" },
		{ "nccl-tests/fabtune-bench-sendrecv-3-ranks-tcp.txt", "nccl-tests" },
		{ "perftest/fabtune-pt2pt-bw-tcp-one-run.txt", "perftest" },
		{ "perftest/fabtune-pt2pt-lat-shm-one-run.txt", "perftest" },
		/* nccl-tests' and perftest's program names, nccl-tests 2.18's layout */
		{ "nccl-tests/fabtune-bench-all-gather-perf-218-shm.txt", "nccl-tests" },
		{ "perftest/fabtune-ib-send-lat-shm-one-run.txt", "perftest" },
		{ "fabtune-bench/pairs-3-ranks-shm-one-run.txt", "fabtune-bench" },
		{ "fabtune-bench/bisection-4-ranks-tcp-one-run.txt", "fabtune-bench" },
		{ "fabtune-bench/incast-3-ranks-shm-one-run.txt", "fabtune-bench" },
	};

	for (size_t i = 0; i < FT_ARRAY_SIZE(runs); i++) {
		char tpath[256], jpath[256];
		struct ft_strbuf text, doc;
		struct ft_error err = { 0 };
		struct parsed pt, pj;
		const char *base = strrchr(runs[i].table, '/') + 1;

		snprintf(tpath, sizeof(tpath), FIXTURES "/%s", runs[i].table);
		snprintf(jpath, sizeof(jpath), FIXTURES "/fabtune-bench/%.*s-json.txt",
		         (int)(strlen(base) - 4), base);
		ft_strbuf_init(&text);
		ft_strbuf_init(&doc);
		if (ft_strbuf_read_file(&text, tpath, &err) < 0 ||
		    ft_strbuf_read_file(&doc, jpath, &err) < 0)
			fail_msg("%s", err.msg);
		parse_text(tpath, &text, &pt);
		parse_text(jpath, &doc, &pj);
		if (strcmp(pt.format, runs[i].format) != 0)
			fail_msg("%s: read as %s, expected %s", tpath, pt.format, runs[i].format);
		assert_string_equal(pj.format, "fabtune-bench");
		assert_true(ft_run_nrows(&pt.run) > 0);
		same_rows(tpath, &pt, &pj);
		same_obs(tpath, &pt, &pj);
		parsed_release(&pt);
		parsed_release(&pj);
		ft_strbuf_release(&text);
		ft_strbuf_release(&doc);
	}
}

/* ---- the table and the document of a run made here ----------------------------- */

/*
 * Every field of every row of @t (the table) is @j's (the document's): the
 * names, counts and copy exactly, the printed figures to their digits, the
 * figures derived from them (pt2pt_bw's time of a message from its
 * average, pt2pt_lat's bandwidth from its median) to what the rounding of
 * those leaves. Not in the table, so not compared: the ends (its Binding
 * line names no host), the data check that passed (the table names only a
 * failed one), the spread (time_stdev_us, spread_n).
 */
static bool
fields_differ(const char *what, const struct parsed *t, const struct parsed *j, char *msg,
              size_t len)
{
	size_t n = ft_run_nrows(&t->run);

	if (n == 0 || n != ft_run_nrows(&j->run)) {
		snprintf(msg, len, "%s: %zu rows from the table, %zu from the document", what, n,
		         ft_run_nrows(&j->run));
		return true;
	}
	for (size_t i = 0; i < n; i++) {
		const struct ft_result_row *a = ft_run_row(&t->run, i), *b = ft_run_row(&j->run, i);
		bool bw = strcmp(b->test, "pt2pt_bw") == 0;
		/* MB/sec (MiB/s) or Gb/sec, and usec printed to 2 decimals: a figure
		   derived as k / printed is k / exact within exact - printed, a share of
		   the printed figure (the table's), up to 0.005 / printed; the share of
		   the exact one is smaller where the table rounded down */
		double lat_rel = 0.005 / a->lat_p50_us;
		/* a bandwidth printed to 2 decimals of the table's unit, in GB/s here */
		double bw_abs = 0.0051 * table_unit_GBps(t);
		static const struct {
			const char *name;
			size_t off;
		} printed[] = {
#define F(x) { #x, offsetof(struct ft_result_row, x) }
			F(algbw_GBps),    F(busbw_GBps),  F(ip_algbw_GBps), F(ip_time_us),
			F(ip_busbw_GBps), F(lat_min_us),  F(lat_avg_us),    F(lat_p50_us),
			F(lat_p99_us),    F(lat_p999_us), F(lat_max_us),    F(lat_stdev_us),
			F(time_us),
#undef F
		};

		if (strcmp(a->test, b->test) || strcmp(a->transport, b->transport) ||
		    a->bytes != b->bytes || a->count != b->count || strcmp(a->dtype, b->dtype) ||
		    strcmp(a->redop, b->redop) || a->root != b->root || a->nranks != b->nranks ||
		    a->nsamples != b->nsamples || strcmp(a->algo, b->algo) ||
		    strcmp(a->proto, b->proto) || strcmp(a->bottleneck, b->bottleneck)) {
			snprintf(msg, len,
			         "%s row %zu: table %s %s %" PRIu64 " B count %" PRIu64
			         " %s %s root %d %u ranks %u samples algo \"%s\"; document %s %s "
			         "%" PRIu64 " B count %" PRIu64
			         " %s %s root %d %u ranks %u samples algo \"%s\"",
			         what, i, a->test, a->transport, a->bytes, a->count, a->dtype,
			         a->redop, a->root, a->nranks, a->nsamples, a->algo, b->test,
			         b->transport, b->bytes, b->count, b->dtype, b->redop, b->root,
			         b->nranks, b->nsamples, b->algo);
			return true;
		}
		for (size_t k = 0; k < FT_ARRAY_SIZE(printed); k++) {
			double x =
			        *(const double *)(const void *)((const char *)a + printed[k].off);
			double y =
			        *(const double *)(const void *)((const char *)b + printed[k].off);
			bool derived = (bw && strcmp(printed[k].name, "time_us") == 0) ||
			               (!bw && strstr(printed[k].name, "bw_GBps"));
			bool ok = derived ? (bw ? near_avg(t, a, x, y) : near_rel(x, y, lat_rel)) :
			          /* the average and the peak: printed in MB/sec or Gb/sec */
			          strstr(printed[k].name, "bw_GBps") ?
			                    (isnan(x) ? isnan(y) : fabs(x - y) <= bw_abs) :
			                    (isnan(x) ? isnan(y) : fabs(x - y) <= 0.0051);

			if (!ok) {
				snprintf(msg, len,
				         "%s row %zu: %s %.9g from the table, %.9g from the "
				         "document",
				         what, i, printed[k].name, x, y);
				return true;
			}
		}
	}
	return false;
}

static void
same_every_field(const char *what, const struct parsed *t, const struct parsed *j)
{
	char msg[1024];

	if (fields_differ(what, t, j, msg, sizeof(msg)))
		fail_msg("%s", msg);
}

/*
 * Whether rows_differ() or fields_differ() finds the table @t of report @rep (its
 * layout and unit) and the document of the same report apart, the document's peaks read
 * back @peak_off_GBps higher; @rep released.
 */
static bool
table_doc_apart(const char *what, struct ft_bench_report *rep, struct ft_bench_cfg *cfg,
                struct ft_bench_table *t, double peak_off_GBps)
{
	struct ft_strbuf text, doc;
	struct parsed pt, pj;
	char msg[1024], tname[64], dname[64];
	bool apart;

	snprintf(tname, sizeof(tname), "%s table", what);
	snprintf(dname, sizeof(dname), "%s document", what);
	ft_strbuf_init(&text);
	ft_strbuf_init(&doc);
	(void)ft_bench_table_end(&text, t, rep, cfg, false);
	ft_bench_report_json(&doc, t, rep, cfg);
	parse_text(tname, &text, &pt);
	parse_text(dname, &doc, &pj);
	assert_int_equal(pt.gbits, t->gbits);
	for (size_t i = 0; i < ft_run_nrows(&pj.run); i++)
		((struct ft_result_row *)ft_vec_at(&pj.run.rows, i))->ip_algbw_GBps += peak_off_GBps;
	apart = rows_differ(what, &pt, &pj, msg, sizeof(msg)) ||
	        fields_differ(what, &pt, &pj, msg, sizeof(msg));
	parsed_release(&pt);
	parsed_release(&pj);
	ft_strbuf_release(&text);
	ft_strbuf_release(&doc);
	ft_bench_report_release(rep);
	return apart;
}

/*
 * Whether fields_differ() finds the table and the document of one pt2pt_lat
 * report apart, its rows' median @p50 (us) and their bandwidth the document
 * holds from @bw_p50 instead (the bench derives it from the median: @p50).
 */
static bool
lat_apart(double p50, double bw_p50)
{
	struct ft_bench_report rep;
	struct ft_bench_cfg cfg;
	struct ft_bench_table t = { .stable = false };

	make_report(&rep, &cfg, FT_OP_PT2PT_LAT);
	for (size_t i = 0; i < ft_run_nrows(&rep.run); i++) {
		struct ft_result_row *r = ft_vec_at(&rep.run.rows, i);

		r->lat_p50_us = r->time_us = p50;
		r->algbw_GBps = r->busbw_GBps = (double)r->bytes / (bw_p50 * 1e3);
	}
	return table_doc_apart("pt2pt_lat", &rep, &cfg, &t, 0);
}

/*
 * A pt2pt_bw row whose average the table printed 0.00: its time, bytes over that average,
 * has no share of rounding to keep to (0.005 / 0 is infinite, and would pass any time),
 * so it is held to the printed digits: 1 us against the document's 2 is apart.
 */
static void
test_bw_zero_average(void **state)
{
	struct parsed t, j;
	struct ft_result_row r;
	char msg[1024];

	(void)state;
	memset(&t, 0, sizeof(t));
	memset(&j, 0, sizeof(j));
	ft_run_init(&t.run, FT_SOURCE_BENCH, "bench");
	ft_run_init(&j.run, FT_SOURCE_BENCH, "bench");
	ft_result_row_init(&r);
	ft_strlcpy(r.test, "pt2pt_bw", sizeof(r.test));
	r.bytes = 8;
	r.nranks = 2;
	r.algbw_GBps = 0;
	r.time_us = 1.0;
	assert_int_equal(ft_run_add(&t.run, &r), 0);
	r.time_us = 2.0;
	assert_int_equal(ft_run_add(&j.run, &r), 0);
	assert_true(rows_differ("pt2pt_bw", &t, &j, msg, sizeof(msg)));
	assert_true(fields_differ("pt2pt_bw", &t, &j, msg, sizeof(msg)));
	/* the same time agrees */
	assert_false(rows_differ("pt2pt_bw", &t, &t, msg, sizeof(msg)));
	assert_false(fields_differ("pt2pt_bw", &t, &t, msg, sizeof(msg)));
	ft_run_release(&t.run);
	ft_run_release(&j.run);
}

/*
 * A median the table rounds by up to 0.005 us: its bandwidth, bytes over
 * the printed median, is up to 0.005/printed off the document's, a share of
 * the printed figure, not of the exact one (below 0.5 us the two part by
 * more than the 1% margin), and no number of digits (64 B at 0.2254 us,
 * printed 0.23: 0.278 GB/s against 0.284, 0.0057 apart). Still apart: a
 * bandwidth from another figure than the median, by more than that
 * rounding leaves.
 */
static void
test_lat_rounding(void **state)
{
	/* printed 0.23: 0.235 is 0.23499999.. as a double, the table's 64 B is
	   0.278 GB/s against the document's 0.272, 2.17% of it */
	assert_false(lat_apart(0.235, 0.235));
	assert_false(lat_apart(0.2254, 0.2254)); /* printed 0.23, rounded up */
	assert_false(lat_apart(0.125, 0.125));   /* printed 0.12 (to even), 4.17% */
	assert_false(lat_apart(1.805, 1.805));
	assert_true(lat_apart(1.80, 1.80 * 1.02));
	assert_true(lat_apart(0.235, 0.235 * 1.03));
	assert_true(lat_apart(0.125, 0.125 * 1.06));
}

/*
 * Whether rows_differ() or fields_differ() finds the table (perftest's layout, in
 * Gb/sec with @gbits) and the document of one pt2pt_bw report apart, its rows of
 * @bytes at an average of @avg_GBps, the time of a message the document holds from
 * @time_GBps instead (the bench derives it from the average: @avg_GBps), and a peak
 * @peak_off_GBps above the table's as read back (a steady link's is its average).
 */
static bool
bw_apart(bool gbits, uint64_t bytes, double avg_GBps, double time_GBps, double peak_off_GBps)
{
	struct ft_bench_report rep;
	struct ft_bench_cfg cfg;
	struct ft_bench_table t = { .stable = false, .gbits = gbits };

	make_report(&rep, &cfg, FT_OP_PT2PT_BW);
	for (size_t i = 0; i < ft_run_nrows(&rep.run); i++) {
		struct ft_result_row *r = ft_vec_at(&rep.run.rows, i);

		r->bytes = r->count = bytes;
		r->algbw_GBps = r->busbw_GBps = avg_GBps;
		r->ip_algbw_GBps = avg_GBps;
		r->time_us = (double)bytes / (time_GBps * 1e3);
	}
	return table_doc_apart("pt2pt_bw", &rep, &cfg, &t, peak_off_GBps);
}

/*
 * pt2pt_bw's time of a message, bytes over the average the table prints to 0.01
 * MB/sec or Gb/sec, is up to 0.005/printed of it off the document's: a share of the
 * printed average, not a number of digits. A 1 Gb/s link (0.957 Gb/s, printed 0.96:
 * 0.31% off) and 4 MiB messages: 35,063 us against 34,953, 110 us apart, where an
 * absolute 0.0051 us (and 0.05% of it) was the rule; at 5 MiB/s in MB/sec (printed
 * 5.00 from 4.995: 0.1%) 1 MiB takes 200,200 us against 200,000. Still apart: a time
 * from another figure than the average, by more than that rounding leaves.
 */
static void
test_bw_rounding(void **state)
{
	const uint64_t mib = 1048576;
	const double gbit = 1e9 / 8 / 1e9, mibps = (double)mib / 1e9; /* in GB/s */

	(void)state;
	assert_false(bw_apart(true, 4 * mib, 0.957 * gbit, 0.957 * gbit, 0));
	assert_false(bw_apart(true, 4 * mib, 0.9549 * gbit, 0.9549 * gbit, 0)); /* printed 0.95 */
	assert_false(bw_apart(false, mib, 4.995 * mibps, 4.995 * mibps, 0));
	assert_false(bw_apart(false, 64 * mib, 1.2345 * mibps, 1.2345 * mibps, 0));
	assert_true(bw_apart(true, 4 * mib, 0.957 * gbit, 0.957 * gbit * 1.01, 0));
	assert_true(bw_apart(false, mib, 4.995 * mibps, 4.995 * mibps * 1.003, 0));
	assert_true(bw_apart(false, 64 * mib, 1.2345 * mibps, 1.2345 * mibps * 1.01, 0));
}

/*
 * The average and the peak in a Gb/sec table are printed to 0.01 Gb/s, 1/800 GB/s:
 * rounded, they are up to 6.25e-4 GB/s off the document's, which holds them exactly,
 * where 0.0051 MB/sec in GB/s (5.3e-6) was the rule for every table. 97.654 Gb/s
 * prints 97.65 (5e-4 GB/s off), 400.0049 prints 400.00 (6.1e-4). Apart: a document
 * whose peak is 0.02 of the table's unit above the table's (2.5e-3 GB/s in Gb/sec,
 * within the rows' 0.0051 GB/s and 0.05%, beyond the printed digits), in Gb/sec and
 * in MB/sec.
 */
static void
test_bw_gbits_fields(void **state)
{
	const uint64_t mib = 1048576;
	const double gbit = 1e9 / 8 / 1e9, mibps = (double)mib / 1e9; /* in GB/s */

	(void)state;
	assert_false(bw_apart(true, mib, 97.654 * gbit, 97.654 * gbit, 0));
	assert_false(bw_apart(true, 64 * mib, 400.0049 * gbit, 400.0049 * gbit, 0));
	assert_true(bw_apart(true, mib, 97.654 * gbit, 97.654 * gbit, 0.02 * gbit));
	assert_true(bw_apart(false, mib, 97.654 * mibps, 97.654 * mibps, 0.02 * mibps));
}

/*
 * One run of the fabtune binary of this build: its table (stdout) and its
 * document (--json-file) read back give the same records, every field of
 * every row and every observation of the lines both hold.
 */
static void
test_real_run(void **state)
{
	static const char *const runs[] = {
		"pt2pt_bw --np 2 --transport shm -b 4K -e 4M -f 32 -n 50",
		"pt2pt_bw --np 2 --transport tcp -b 4K -e 1M -f 16 -n 50",
		"pt2pt_bw --np 2 --transport shm --bidir -b 64K -e 256K -f 4 -n 50",
		"pt2pt_lat --np 2 --transport shm -b 8 -e 512 -f 8 -n 50",
	};
	const char *root = getenv("FT_BUILD_ROOT");
	char dir[512], exe[512], cmd[2048], tpath[600], jpath[600];

	if (!root)
		skip(); /* started by hand: no build named */
	snprintf(exe, sizeof(exe), "%s/cli/fabtune", root);
	snprintf(dir, sizeof(dir), "%s/test-parse-bench-XXXXXX", root);
	assert_non_null(mkdtemp(dir));
	snprintf(tpath, sizeof(tpath), "%s/table.txt", dir);
	snprintf(jpath, sizeof(jpath), "%s/doc.json", dir);
	for (size_t i = 0; i < FT_ARRAY_SIZE(runs); i++) {
		struct ft_strbuf text, doc;
		struct ft_error err = { 0 };
		struct parsed pt, pj;
		bool shm_bw = strstr(runs[i], "pt2pt_bw") && strstr(runs[i], "shm");

		snprintf(cmd, sizeof(cmd), "'%s' bench %s --json-file '%s' > '%s'", exe, runs[i],
		         jpath, tpath);
		if (system(cmd) != 0)
			fail_msg("%s: failed", cmd);
		ft_strbuf_init(&text);
		ft_strbuf_init(&doc);
		if (ft_strbuf_read_file(&text, tpath, &err) < 0 ||
		    ft_strbuf_read_file(&doc, jpath, &err) < 0)
			fail_msg("%s", err.msg);
		parse_text(runs[i], &text, &pt);
		parse_text(runs[i], &doc, &pj);
		assert_string_equal(pt.format, "perftest");
		assert_string_equal(pj.format, "fabtune-bench");
		same_rows(runs[i], &pt, &pj);
		same_every_field(runs[i], &pt, &pj);
		same_obs(runs[i], &pt, &pj);
		/* shm names the copy of every size, tcp none */
		for (size_t k = 0; k < ft_run_nrows(&pt.run); k++)
			if (shm_bw != (ft_run_row(&pt.run, k)->algo[0] != '\0'))
				fail_msg("%s row %zu: copy \"%s\"", runs[i], k,
				         ft_run_row(&pt.run, k)->algo);
		parsed_release(&pt);
		parsed_release(&pj);
		ft_strbuf_release(&text);
		ft_strbuf_release(&doc);
	}
	remove(tpath);
	remove(jpath);
	rmdir(dir);
}

/* ---- the document's own reading -------------------------------------------- */

static void
test_json_exact(void **state)
{
	/* what the document holds is read as written, every figure to its last digit */
	static const char doc[] =
	        "{\"schema\":\"fabtune.bench/1\",\"source\":\"bench\",\"kind\":\"bench\","
	        "\"pattern\":\"pairs\",\"transport\":\"tcp\",\"nranks\":2,\"interrupted\":false,"
	        "\"ranks\":[{\"rank\":0,\"host\":\"a\",\"clock\":{\"source\":\"tsc\","
	        "\"hz\":2694835949.751446,\"error_ppm\":3.225104211179824,\"loops\":2}},"
	        "{\"rank\":1,\"host\":\"b\",\"clock\":{\"source\":\"monotonic\",\"hz\":null,"
	        "\"error_ppm\":null}}],\n"
	        "\"rows\":[{\"test\":\"pairs\",\"transport\":\"tcp\",\"bytes\":65536,"
	        "\"count\":65536,\"dtype\":\"uint8\",\"redop\":\"none\",\"root\":-1,"
	        "\"nranks\":2,\"time_us\":28.414968710421817,"
	        "\"algbw_GBps\":2.306390011119851,\"busbw_GBps\":2.306390011119851,"
	        "\"lat_min_us\":null,\"lat_p50_us\":13.52586972997815,\"nsamples\":32,"
	        "\"time_stdev_us\":9.187689250387551,\"src\":\"a/rank0\",\"dst\":\"b/rank1\"}],\n"
	        "\"pairs\":{\"bw_GBps\":[[null,2.3],[2.1,null]],\"median_GBps\":1.93819},"
	        "\"outliers\":[{\"kind\":\"pair\",\"rank_a\":1,\"rank_b\":0,"
	        "\"text\":\"pair b -> a\","
	        "\"blame\":\"b\"},{\"kind\":\"host\",\"text\":\"host b\",\"blame\":\"\"}]}\n";
	struct ft_strbuf sb = { .buf = (char *)doc, .len = sizeof(doc) - 1 };
	struct parsed p;
	const struct ft_result_row *r;
	size_t i, clocks = 0, outliers = 0;

	parse_text("document", &sb, &p);
	assert_string_equal(p.format, "fabtune-bench");
	assert_int_equal(ft_run_nrows(&p.run), 1);
	r = ft_run_row(&p.run, 0);
	assert_string_equal(r->test, "pairs");
	assert_string_equal(r->transport, "tcp");
	assert_string_equal(r->src, "a/rank0");
	assert_string_equal(r->dst, "b/rank1");
	assert_true(r->bytes == 65536 && r->count == 65536 && r->nranks == 2 && r->root == -1);
	assert_true(r->algbw_GBps == 2.306390011119851);
	assert_true(r->time_us == 28.414968710421817);
	assert_true(r->time_stdev_us == 9.187689250387551);
	assert_true(r->lat_p50_us == 13.52586972997815);
	assert_true(isnan(r->lat_min_us) && isnan(r->lat_p99_us));
	assert_int_equal(r->nsamples, 32);
	for (i = 0; i < ft_obs_set_len(&p.set); i++) {
		const struct ft_obs *o = ft_obs_set_at(&p.set, i);

		if (strcmp(o->key, "bench.clock_hz") == 0 && o->rank == 0) {
			assert_true(o->has_num && o->num == 2694835949.751446);
			assert_string_equal(o->str, "tsc");
			assert_string_equal(o->unit, "Hz");
			assert_int_equal(o->line, 1);
			clocks++;
		} else if (strcmp(o->key, "bench.clock_error") == 0) {
			assert_int_equal(o->rank, 0); /* none on CLOCK_MONOTONIC */
			assert_true(o->num == 3.225104211179824);
			assert_string_equal(o->unit, "ppm");
			clocks++;
		} else if (strcmp(o->key, "bench.clock_hz") == 0) {
			assert_int_equal(o->rank, 1);
			assert_false(o->has_num);
			assert_string_equal(o->str, "monotonic");
			clocks++;
		} else if (strcmp(o->key, "bench.median_pair_bw") == 0) {
			assert_true(o->num == 1.93819);
			assert_string_equal(o->unit, "GBps");
			assert_int_equal(o->line, 3);
		} else if (strcmp(o->key, "bench.outlier") == 0) {
			assert_string_equal(o->str,
			                    outliers ? "host b" : "pair b -> a; retest blames b");
			outliers++;
		}
	}
	assert_int_equal(clocks, 3);
	assert_int_equal(outliers, 2);
	parsed_release(&p);
}

static void
test_json_broken(void **state)
{
	/* cut short in the second row: the first row is kept, the fault named by its line */
	static const char doc[] = "{\"schema\":\"fabtune.bench/1\",\"pattern\":\"pt2pt_bw\",\n"
	                          "\"rows\":[{\"test\":\"pt2pt_bw\",\"bytes\":8},\n"
	                          "{\"test\":\"pt2pt_bw\",\"bytes\":";
	struct ft_obs_set set;
	struct ft_run run;
	struct ft_error err = { 0 };
	const struct ft_obs *o = NULL;

	ft_obs_set_init(&set);
	ft_run_init(&run, FT_SOURCE_IMPORT, "");
	assert_int_equal(ft_parse_buffer(doc, sizeof(doc) - 1, "cut.json", NULL, &set, &run, &err),
	                 0);
	assert_int_equal(ft_run_nrows(&run), 1);
	assert_int_equal(ft_run_row(&run, 0)->bytes, 8);
	for (size_t i = 0; i < ft_obs_set_len(&set); i++)
		if (strcmp(ft_obs_set_at(&set, i)->key, "parse.skipped") == 0)
			o = ft_obs_set_at(&set, i);
	assert_non_null(o);
	assert_int_equal(o->line, 3);
	/* the cut falls after the ':' that ends line 3, its 27th byte */
	assert_non_null(strstr(o->str, "invalid JSON at line 3, column 27"));
	ft_obs_set_release(&set);
	ft_run_release(&run);
}

/* @doc parsed with its skipped lines kept: the number of `parse.skipped`. */
static size_t
parse_raw(const char *doc, struct ft_obs_set *set, struct ft_run *run)
{
	struct ft_error err = { 0 };
	size_t n = 0;

	ft_obs_set_init(set);
	ft_run_init(run, FT_SOURCE_IMPORT, "");
	if (ft_parse_buffer(doc, strlen(doc), "doc.json", "fabtune-bench", set, run, &err) < 0)
		fail_msg("%s", err.msg);
	for (size_t i = 0; i < ft_obs_set_len(set); i++)
		n += strcmp(ft_obs_set_at(set, i)->key, "parse.skipped") == 0;
	return n;
}

/* The `parse.skipped` at @line whose text holds @why, or NULL. */
static const struct ft_obs *
skipped_at(const struct ft_obs_set *set, uint32_t line, const char *why)
{
	for (size_t i = 0; i < ft_obs_set_len(set); i++) {
		const struct ft_obs *o = ft_obs_set_at(set, i);

		if (strcmp(o->key, "parse.skipped") == 0 && o->line == line &&
		    strstr(o->str, why))
			return o;
	}
	return NULL;
}

static void
test_json_key_order(void **state)
{
	/* members sorted by name (jq -S): "clock" comes before "rank"; the clocks are kept */
	static const char doc[] =
	        "{\"pattern\":\"pairs\",\"ranks\":[{\"clock\":{\"error_ppm\":1.5,\"hz\":3e9,"
	        "\"source\":\"tsc\"},\"host\":\"a\",\"rank\":0},\n"
	        "{\"clock\":{\"source\":\"monotonic\"},\"host\":\"b\",\"rank\":1},\n"
	        "{\"clock\":{\"source\":\"tsc\",\"hz\":1e9},\"host\":\"c\"}],"
	        "\"rows\":[],\"schema\":\"fabtune.bench/1\"}\n";
	struct ft_obs_set set;
	struct ft_run run;
	int hz0 = 0, ppm0 = 0, hz1 = 0;

	/* the third rank names no rank: its clock is skipped, named */
	assert_int_equal(parse_raw(doc, &set, &run), 1);
	assert_non_null(skipped_at(&set, 3, "ranks.rank"));
	for (size_t i = 0; i < ft_obs_set_len(&set); i++) {
		const struct ft_obs *o = ft_obs_set_at(&set, i);

		if (strcmp(o->key, "bench.clock_hz") == 0 && o->rank == 0) {
			assert_true(o->has_num && o->num == 3e9);
			assert_string_equal(o->str, "tsc");
			assert_int_equal(o->line, 1);
			hz0++;
		} else if (strcmp(o->key, "bench.clock_error") == 0) {
			assert_int_equal(o->rank, 0);
			assert_true(o->num == 1.5);
			ppm0++;
		} else if (strcmp(o->key, "bench.clock_hz") == 0) {
			assert_int_equal(o->rank, 1);
			assert_false(o->has_num);
			assert_string_equal(o->str, "monotonic");
			assert_int_equal(o->line, 2);
			hz1++;
		}
	}
	assert_true(hz0 == 1 && ppm0 == 1 && hz1 == 1);
	ft_obs_set_release(&set);
	ft_run_release(&run);
}

static void
test_json_leading_text(void **state)
{
	/* a warning line before the document: that line skipped, the document read */
	static const char doc[] =
	        "warning: rank 1 clock is CLOCK_MONOTONIC\n"
	        "{\"schema\":\"fabtune.bench/1\",\"pattern\":\"pt2pt_bw\",\n"
	        "\"rows\":[{\"test\":\"pt2pt_bw\",\"transport\":\"shm\",\"bytes\":8,"
	        "\"algbw_GBps\":0.5},\n{\"test\":\"pt2pt_bw\",\"bytes\":16}]}\n";
	struct ft_obs_set set;
	struct ft_run run;
	const struct ft_parser *p = ft_parser_detect(doc, sizeof(doc) - 1);

	assert_non_null(p);
	assert_string_equal(p->name, "fabtune-bench");
	assert_int_equal(parse_raw(doc, &set, &run), 1);
	assert_non_null(skipped_at(&set, 1, "not fabtune bench JSON"));
	assert_int_equal(ft_run_nrows(&run), 2);
	assert_int_equal(ft_run_row(&run, 0)->bytes, 8);
	assert_true(ft_run_row(&run, 0)->algbw_GBps == 0.5);
	assert_string_equal(ft_run_row(&run, 0)->transport, "shm");
	assert_int_equal(ft_run_row(&run, 1)->bytes, 16);
	ft_obs_set_release(&set);
	ft_run_release(&run);
}

static void
test_json_bad_fields(void **state)
{
	/* each known member of the wrong kind named; the row kept with what is right */
	static const char doc[] =
	        "{\"schema\":\"fabtune.bench/1\",\"rows\":[\n"
	        "{\"test\":\"allreduce\",\"bytes\":\"64K\",\"nranks\":-2,\"count\":1.5,\n"
	        "\"algbw_GBps\":\"fast\",\"time_us\":true,\"src\":7,\"busbw_GBps\":2.5,"
	        "\"lat_p99_us\":null,\"future\":\"x\"}]}\n"
	        "{\"schema\":\"fabtune.bench/1\",\"rows\":[{\"test\":\"a\",\n"
	        "  \"bytes\":fast}]}\n";
	static const struct {
		uint32_t line;
		const char *why;
	} want[] = {
		{ 2, "rows.bytes: not a count" },  { 2, "rows.nranks: not a count" },
		{ 2, "rows.count: not a count" },  { 3, "rows.algbw_GBps: not a number" },
		{ 3, "rows.time_us: not a number" }, { 3, "rows.src: not a string" },
		/* a bare word that is no JSON: the document stops there, named */
		{ 5, "invalid JSON at line 5, column 11" },
	};
	struct ft_obs_set set;
	struct ft_run run;
	const struct ft_result_row *r;

	assert_int_equal(parse_raw(doc, &set, &run), FT_ARRAY_SIZE(want));
	for (size_t i = 0; i < FT_ARRAY_SIZE(want); i++)
		if (!skipped_at(&set, want[i].line, want[i].why))
			fail_msg("no parse.skipped at line %u: %s", want[i].line, want[i].why);
	assert_int_equal(ft_run_nrows(&run), 1);
	r = ft_run_row(&run, 0);
	assert_string_equal(r->test, "allreduce");
	assert_true(r->bytes == 0 && r->count == 0 && r->nranks == 0 && r->src[0] == '\0');
	assert_true(isnan(r->algbw_GBps) && isnan(r->time_us) && isnan(r->lat_p99_us));
	assert_true(r->busbw_GBps == 2.5);
	ft_obs_set_release(&set);
	ft_run_release(&run);
}

static void
test_json_rank_kind(void **state)
{
	/* a rank of the wrong kind: named by path, line and column, once, its clock left */
	static const char doc[] =
	        "{\"schema\":\"fabtune.bench/1\",\"ranks\":[\n"
	        "{\"rank\":\"0\",\"clock\":{\"source\":\"tsc\",\"hz\":3e9}},\n"
	        "{\"clock\":{\"source\":\"tsc\"},\"rank\":{\"id\":1}},\n"
	        "{\"rank\":[2,3]},\n"
	        "{\"rank\":1.5},{\"rank\":-1},{\"rank\":true},\n"
	        "{\"rank\":null,\"clock\":{\"source\":\"monotonic\"}},\n"
	        "{\"rank\":4,\"clock\":{\"source\":\"monotonic\"}}],\n"
	        "\"rows\":[{\"test\":\"pairs\",\"bytes\":{\"v\":1},\"nranks\":[2]}]}\n";
	static const struct {
		uint32_t line;
		const char *why;
	} want[] = {
		{ 2, "ranks.rank: not a count (line 2, column 9): \"0\"" },
		{ 3, "ranks.rank: not a count (line 3, column 34): an object" },
		{ 4, "ranks.rank: not a count (line 4, column 9): an array" },
		{ 5, "ranks.rank: not a count (line 5, column 9): 1.5" },
		{ 5, "ranks.rank: not a count (line 5, column 22): -1" },
		{ 5, "ranks.rank: not a count (line 5, column 34): true" },
		/* null: no rank, and the clock with it named as rankless */
		{ 6, "ranks.rank: none, the clock has no rank" },
		{ 8, "rows.bytes: not a count (line 8, column 33): an object" },
		{ 8, "rows.nranks: not a count (line 8, column 50): an array" },
	};
	struct ft_obs_set set;
	struct ft_run run;
	size_t nclock = 0;

	assert_int_equal(parse_raw(doc, &set, &run), FT_ARRAY_SIZE(want));
	for (size_t i = 0; i < FT_ARRAY_SIZE(want); i++)
		if (!skipped_at(&set, want[i].line, want[i].why))
			fail_msg("no parse.skipped at line %u: %s", want[i].line, want[i].why);
	/* only rank 4's clock is kept; the row is kept, without the two wrong members */
	for (size_t i = 0; i < ft_obs_set_len(&set); i++) {
		const struct ft_obs *o = ft_obs_set_at(&set, i);

		if (strcmp(o->key, "bench.clock_hz") == 0) {
			assert_int_equal(o->rank, 4);
			nclock++;
		}
	}
	assert_int_equal(nclock, 1);
	assert_int_equal(ft_run_nrows(&run), 1);
	assert_true(ft_run_row(&run, 0)->bytes == 0 && ft_run_row(&run, 0)->nranks == 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);
}

static void
test_json_strict(void **state)
{
	/* the walker's grammar: a bare word, a bad escape stop the document, named where */
	static const struct {
		const char *doc, *why;
	} bad[] = {
		{ "{\"rows\":[{\"test\":\"x\",\"algbw_GBps\":NaN}]}",
		  "invalid JSON at line 1, column 35: a bare word, not a JSON value (at "
		  "rows.algbw_GBps)" },
		{ "{\"rows\":[{\"test\":\"x\",\"bytes\":012}]}",
		  "invalid JSON at line 1, column 30: not a JSON number (at rows.bytes)" },
		{ "{\"rows\":[{\"test\":\"a\\xb\"}]}",
		  "invalid JSON at line 1, column 20: an unknown escape in a string (at "
		  "rows.test)" },
	};

	for (size_t i = 0; i < FT_ARRAY_SIZE(bad); i++) {
		struct ft_obs_set set;
		struct ft_run run;

		assert_int_equal(parse_raw(bad[i].doc, &set, &run), 1);
		if (!skipped_at(&set, 1, bad[i].why))
			fail_msg("%s: no parse.skipped %s", bad[i].doc, bad[i].why);
		assert_int_equal(ft_run_nrows(&run), 0);
		ft_obs_set_release(&set);
		ft_run_release(&run);
	}
}

static void
test_json_long_key(void **state)
{
	/* an object under a name too long for the path is no new row */
	char doc[512];
	struct ft_obs_set set;
	struct ft_run run;

	snprintf(doc, sizeof(doc),
	         "{\"schema\":\"fabtune.bench/1\",\"rows\":[{\"test\":\"pt2pt_bw\","
	         "\"%0200d\":{\"bytes\":5},\"bytes\":64}]}\n",
	         0);
	assert_int_equal(parse_raw(doc, &set, &run), 0);
	assert_int_equal(ft_run_nrows(&run), 1);
	assert_int_equal(ft_run_row(&run, 0)->bytes, 64);
	assert_string_equal(ft_run_row(&run, 0)->test, "pt2pt_bw");
	ft_obs_set_release(&set);
	ft_run_release(&run);
}

/* The number of observations of @key in @set. */
static size_t
count_key(const struct ft_obs_set *set, const char *key)
{
	size_t n = 0;

	for (size_t i = 0; i < ft_obs_set_len(set); i++)
		n += strcmp(ft_obs_set_at(set, i)->key, key) == 0;
	return n;
}

static void
test_json_row_bytes(void **state)
{
	/* a pt2pt_bw row whose bytes was refused: kept, but no line of the table for it */
	static const char refused[] =
	        "{\"rows\":[{\"test\":\"pt2pt_bw\",\"bytes\":\"64K\",\"algbw_GBps\":1.5,"
	        "\"peak_GBps\":2}]}\n";
	/* none at all: the same */
	static const char none[] = "{\"rows\":[{\"test\":\"pt2pt_bw\",\"algbw_GBps\":1.5}]}\n";
	/* 0 bytes read: the peak and average, but no rate of 0-byte messages */
	static const char zero[] =
	        "{\"rows\":[{\"test\":\"pt2pt_bw\",\"bytes\":0,\"algbw_GBps\":1.5,"
	        "\"peak_GBps\":2}]}\n";
	struct ft_obs_set set;
	struct ft_run run;

	assert_int_equal(parse_raw(refused, &set, &run), 1);
	assert_non_null(skipped_at(&set, 1,
	                           "rows.bytes: not a count (line 1, column 37): \"64K\""));
	assert_int_equal(ft_run_nrows(&run), 1);
	assert_int_equal(count_key(&set, "bench.bw_peak") + count_key(&set, "bench.bw_avg") +
	                 count_key(&set, "bench.msg_rate"), 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	assert_int_equal(parse_raw(none, &set, &run), 0);
	assert_int_equal(ft_run_nrows(&run), 1);
	assert_int_equal(count_key(&set, "bench.bw_avg") + count_key(&set, "bench.msg_rate"), 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	assert_int_equal(parse_raw(zero, &set, &run), 0);
	assert_int_equal(count_key(&set, "bench.bw_peak"), 1);
	assert_int_equal(count_key(&set, "bench.bw_avg"), 1);
	assert_int_equal(count_key(&set, "bench.msg_rate"), 0);
	assert_true(ft_obs_set_at(&set, 1)->num == 1.5 * 8);
	ft_obs_set_release(&set);
	ft_run_release(&run);
}

static void
test_json_lists_kind(void **state)
{
	/* "rows", "ranks", "outliers" not arrays: named, nothing read from them */
	static const struct {
		const char *doc, *why;
	} bad[] = {
		{ "{\"rows\":{\"test\":\"pt2pt_bw\",\"bytes\":4096}}",
		  "rows: not an array (line 1, column 9): an object" },
		{ "{\"rows\":7}", "rows: not an array (line 1, column 9): 7" },
		{ "{\"ranks\":{\"rank\":1,\"clock\":{\"source\":\"tsc\",\"hz\":3e9}}}",
		  "ranks: not an array (line 1, column 10): an object" },
		{ "{\"outliers\":{\"kind\":\"pair\",\"text\":\"slow\"}}",
		  "outliers: not an array (line 1, column 13): an object" },
		/* a list in a list: its elements are not rows */
		{ "{\"rows\":[[{\"test\":\"pt2pt_bw\",\"bytes\":4096}]]}", NULL },
	};

	for (size_t i = 0; i < FT_ARRAY_SIZE(bad); i++) {
		struct ft_obs_set set;
		struct ft_run run;
		size_t n = parse_raw(bad[i].doc, &set, &run);

		if (bad[i].why && (n != 1 || !skipped_at(&set, 1, bad[i].why)))
			fail_msg("%s: %zu parse.skipped, not one: %s", bad[i].doc, n, bad[i].why);
		if (ft_run_nrows(&run) != 0 || ft_obs_set_len(&set) != (bad[i].why ? 1 : 0))
			fail_msg("%s: %zu rows, %zu observations", bad[i].doc,
			         ft_run_nrows(&run), ft_obs_set_len(&set));
		ft_obs_set_release(&set);
		ft_run_release(&run);
	}
}

static void
test_json_dotted_name(void **state)
{
	/* a member named "pairs.median_GBps" is not "median_GBps" in "pairs" */
	static const char dotted[] = "{\"pairs.median_GBps\":7,\"rows.x\":{\"test\":\"a\"},"
	                             "\"pairs\":{\"median_GBps\":9}}\n";
	/* a figure past a double: the document refused at it, not read as inf */
	static const char inf[] = "{\"rows\":[{\"test\":\"pt2pt_bw\",\"bytes\":8,"
	                          "\"algbw_GBps\":1e999}]}\n";
	struct ft_obs_set set;
	struct ft_run run;

	assert_int_equal(parse_raw(dotted, &set, &run), 0);
	assert_int_equal(ft_obs_set_len(&set), 1);
	assert_string_equal(ft_obs_set_at(&set, 0)->key, "bench.median_pair_bw");
	assert_true(ft_obs_set_at(&set, 0)->num == 9);
	assert_int_equal(ft_run_nrows(&run), 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	assert_int_equal(parse_raw(inf, &set, &run), 1);
	assert_non_null(skipped_at(&set, 1, "invalid JSON at line 1, column 52: a number out of "
	                                    "range (at rows.algbw_GBps)"));
	assert_int_equal(ft_run_nrows(&run), 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);
}

/*
 * Every name read at the depth bench writes it only: a document with one of
 * its names one level deeper (an array's elements stand at the array's
 * path) reads as the same document without it.
 */
static void
test_json_depth(void **state)
{
	static const struct {
		const char *doc, *same;
	} cases[] = {
		/* "pairs" and "incast" are objects of figures, not lists of them */
		{ "{\"pairs\":[{\"median_GBps\":5}]}", "{\"pairs\":[{}]}" },
		{ "{\"pairs\":{\"median_GBps\":[5]}}", "{\"pairs\":{}}" },
		{ "{\"incast\":[{\"congestion_impact\":2.5}]}", "{\"incast\":[{}]}" },
		{ "{\"incast\":{\"congestion_impact\":[[2.5]]}}", "{\"incast\":{}}" },
		/* an outlier's text in a list is no text */
		{ "{\"outliers\":[{\"kind\":\"pair\",\"text\":[\"slow\"],\"blame\":\"h1\"}]}",
		  "{\"outliers\":[{\"kind\":\"pair\",\"blame\":\"h1\"}]}" },
		/* a clock's figure in a list is no figure */
		{ "{\"ranks\":[{\"rank\":0,\"clock\":{\"source\":\"tsc\",\"hz\":[3e9],"
		  "\"error_ppm\":2}}]}",
		  "{\"ranks\":[{\"rank\":0,\"clock\":{\"source\":\"tsc\",\"error_ppm\":2}}]}" },
		/* a list in an outlier: its objects are no outliers */
		{ "{\"outliers\":[{\"kind\":\"pair\",\"x\":[{\"text\":\"slow\"}]}]}",
		  "{\"outliers\":[{\"kind\":\"pair\"}]}" },
		/* "rows" not an array: named once, nothing in it read, a list in it neither */
		{ "{\"rows\":{\"bytes\":[\"64K\"],\"test\":[\"pt2pt_bw\"]}}", "{\"rows\":{}}" },
	};

	for (size_t i = 0; i < FT_ARRAY_SIZE(cases); i++) {
		struct ft_obs_set a, b;
		struct ft_run ra, rb;

		parse_raw(cases[i].doc, &a, &ra);
		parse_raw(cases[i].same, &b, &rb);
		if (ft_obs_set_len(&a) != ft_obs_set_len(&b) ||
		    ft_run_nrows(&ra) != ft_run_nrows(&rb))
			fail_msg("%s: %zu observations and %zu rows, not %zu and %zu", cases[i].doc,
			         ft_obs_set_len(&a), ft_run_nrows(&ra), ft_obs_set_len(&b),
			         ft_run_nrows(&rb));
		for (size_t k = 0; k < ft_obs_set_len(&a); k++) {
			const struct ft_obs *x = ft_obs_set_at(&a, k), *y = ft_obs_set_at(&b, k);
			bool same_num =
			        x->has_num == y->has_num && (!x->has_num || x->num == y->num ||
			                                     (isnan(x->num) && isnan(y->num)));

			/* a wrong kind is named at its column: the same name is enough */
			if (strcmp(x->key, y->key) != 0 || !same_num ||
			    (strcmp(x->key, "parse.skipped") != 0 && strcmp(x->str, y->str) != 0))
				fail_msg("%s: %s %g \"%s\", not %s %g \"%s\"", cases[i].doc, x->key,
				         x->num, x->str, y->key, y->num, y->str);
		}
		ft_obs_set_release(&a);
		ft_obs_set_release(&b);
		ft_run_release(&ra);
		ft_run_release(&rb);
	}
	/* the names at their depth are read */
	{
		struct ft_obs_set set;
		struct ft_run run;

		assert_int_equal(parse_raw("{\"pairs\":{\"median_GBps\":5},"
		                           "\"incast\":{\"congestion_impact\":2.5},"
		                           "\"outliers\":[{\"kind\":\"pair\",\"text\":\"slow\","
		                           "\"blame\":\"h1\"}]}",
		                           &set, &run),
		                 0);
		assert_int_equal(ft_obs_set_len(&set), 3);
		assert_string_equal(ft_obs_set_at(&set, 0)->key, "bench.median_pair_bw");
		assert_true(ft_obs_set_at(&set, 0)->num == 5);
		assert_string_equal(ft_obs_set_at(&set, 1)->key, "bench.congestion_impact");
		assert_true(ft_obs_set_at(&set, 1)->num == 2.5);
		assert_string_equal(ft_obs_set_at(&set, 2)->key, "bench.outlier");
		assert_string_equal(ft_obs_set_at(&set, 2)->str, "slow; retest blames h1");
		ft_obs_set_release(&set);
		ft_run_release(&run);
	}
}

/* Bytes that are not UTF-8 in a string: the document refused there, by line and column. */
static void
test_json_utf8(void **state)
{
	static const char bad[] = "{\"rows\":[{\"test\":\"pt2pt_bw\",\"bytes\":8},\n"
	                          "{\"test\":\"pt\xc0\xaf\"}]}\n";
	struct ft_obs_set set;
	struct ft_run run;

	assert_int_equal(parse_raw(bad, &set, &run), 1);
	assert_non_null(skipped_at(&set, 2, "invalid JSON at line 2, column 12: a byte that is no "
	                                    "UTF-8 in a string (at rows.test)"));
	/* what came before is kept */
	assert_int_equal(ft_run_nrows(&run), 1);
	ft_obs_set_release(&set);
	ft_run_release(&run);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_table_kind),
		cmocka_unit_test(test_one_run_fixtures),
		cmocka_unit_test(test_lat_rounding),
		cmocka_unit_test(test_bw_zero_average),
		cmocka_unit_test(test_bw_rounding),
		cmocka_unit_test(test_bw_gbits_fields),
		cmocka_unit_test(test_real_run),
		cmocka_unit_test(test_json_exact),
		cmocka_unit_test(test_json_broken),
		cmocka_unit_test(test_json_key_order),
		cmocka_unit_test(test_json_leading_text),
		cmocka_unit_test(test_json_bad_fields),
		cmocka_unit_test(test_json_long_key),
		cmocka_unit_test(test_json_rank_kind),
		cmocka_unit_test(test_json_strict),
		cmocka_unit_test(test_json_row_bytes),
		cmocka_unit_test(test_json_lists_kind),
		cmocka_unit_test(test_json_dotted_name),
		cmocka_unit_test(test_json_depth),
		cmocka_unit_test(test_json_utf8),
	};

	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

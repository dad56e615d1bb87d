/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_doctor.c - the glue the commands share (cli/glue.c): saving
 * a run with its observations, findings and fingerprint (--save), the
 * benchmark observations the diagnosis reads, and the model's expectations
 * for measured rows.
 */
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

#include "cli.h"
#include "glue.h"

struct fx {
	char dir[64];
	char db[96];
	struct cli_ctx ctx;
};

static int
setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	ft_strlcpy(f->dir, "/tmp/ft-test-doctor-XXXXXX", sizeof(f->dir));
	if (!mkdtemp(f->dir)) {
		free(f);
		return -1;
	}
	snprintf(f->db, sizeof(f->db), "%s/a.db", f->dir);
	f->ctx.archive = f->db;
	f->ctx.cmd = "test";
	f->ctx.stable = true;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx *f = *state;
	char path[160];
	static const char *const files[] = { "a.db", "a.db-wal", "a.db-shm", "foreign.db" };
	size_t i;

	for (i = 0; i < FT_ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", f->dir, files[i]);
		unlink(path);
	}
	rmdir(f->dir);
	free(f);
	return 0;
}

static void
row(struct ft_run *run, const char *test, const char *transport, uint64_t bytes, uint32_t nranks,
    double busbw)
{
	struct ft_result_row r;

	ft_result_row_init(&r);
	ft_strlcpy(r.test, test, sizeof(r.test));
	ft_strlcpy(r.transport, transport, sizeof(r.transport));
	r.bytes = bytes;
	r.nranks = nranks;
	r.time_us = 10.0;
	r.algbw_GBps = busbw / 2;
	r.busbw_GBps = busbw;
	assert_int_equal(ft_run_add(run, &r), 0);
}

/* A saved run comes back whole: rows, observations, findings and the fingerprint. */
static void
test_save_round_trip(void **state)
{
	struct fx *f = *state;
	struct ft_run run;
	struct ft_obs_set obs;
	struct ft_obs o;
	struct ft_finding fd;
	struct ft_archive *ar = NULL;
	struct ft_archive_record rec;
	struct ft_error err = { 0 };

	ft_run_init(&run, FT_SOURCE_BENCH, "bench");
	ft_strlcpy(run.label, "unit", sizeof(run.label));
	row(&run, "all_reduce", "tcp", 1 << 20, 2, 1.5);
	row(&run, "all_reduce", "tcp", 4 << 20, 2, 2.5);
	ft_obs_set_init(&obs);
	ft_obs_init(&o, "nccl.version");
	ft_strlcpy(o.str, "2.21.5", sizeof(o.str));
	assert_int_equal(ft_obs_set_add(&obs, &o), 0);
	memset(&fd, 0, sizeof(fd));
	ft_strlcpy(fd.rule_id, "unit-rule", sizeof(fd.rule_id));
	fd.severity = FT_SEV_WARNING;
	fd.layer = FT_LAYER_FABRIC;
	ft_strlcpy(fd.message, "a message", sizeof(fd.message));

	assert_int_equal(cli_save_run(&f->ctx, &run, &obs, &fd, 1), 0);
	assert_int_equal(cli_save_run(&f->ctx, &run, NULL, NULL, 0), 0);

	assert_int_equal(ft_archive_open(f->db, &ar, &err), 0);
	assert_int_equal(ft_archive_load(ar, 1, &rec, &err), 0);
	assert_string_equal(rec.run.kind, "bench");
	assert_string_equal(rec.run.label, "unit");
	assert_int_equal(ft_run_nrows(&rec.run), 2);
	assert_true(fabs(ft_run_row(&rec.run, 1)->busbw_GBps - 2.5) < 1e-9);
	assert_int_equal(ft_obs_set_len(&rec.obs), 1);
	assert_int_equal(rec.findings.len, 1);
	assert_string_equal(((struct ft_finding *)ft_vec_at(&rec.findings, 0))->rule_id,
	                    "unit-rule");
	/* this host's fingerprint, completed by what the observations tell */
	assert_non_null(ft_fingerprint_get(&rec.fp, "host.name"));
	assert_non_null(ft_fingerprint_get(&rec.fp, "nccl.version"));
	assert_string_equal(ft_fingerprint_get(&rec.fp, "nccl.version"), "2.21.5");
	ft_archive_record_release(&rec);
	assert_int_equal(ft_archive_load(ar, 2, &rec, &err), 0);
	assert_int_equal(ft_obs_set_len(&rec.obs), 0);
	assert_int_equal(rec.findings.len, 0);
	assert_null(ft_fingerprint_get(&rec.fp, "nccl.version"));
	ft_archive_record_release(&rec);
	assert_int_equal(ft_archive_load(ar, 3, &rec, &err), FT_ENOENT);
	ft_archive_close(ar);
	ft_obs_set_release(&obs);
	ft_run_release(&run);
}

/* A file that is not an archive is an error, and is left as it was. */
static void
test_save_foreign_file(void **state)
{
	struct fx *f = *state;
	static const char text[] = "not a fabtune archive\n";
	char path[160], buf[64] = { 0 };
	struct ft_run run;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/foreign.db", f->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	f->ctx.archive = path;
	ft_run_init(&run, FT_SOURCE_MODEL, "model");
	row(&run, "all_reduce", "", 1 << 20, 8, 100);
	assert_true(cli_save_run(&f->ctx, &run, NULL, NULL, 0) < 0);
	fp = fopen(path, "r");
	assert_non_null(fp);
	assert_non_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	assert_string_equal(buf, text);
	ft_run_release(&run);
}

static size_t
count_key(const struct ft_obs_set *s, const char *key)
{
	size_t i, n = 0;

	for (i = 0; i < ft_obs_set_len(s); i++)
		n += strcmp(ft_obs_set_at(s, i)->key, key) == 0;
	return n;
}

/* Point-to-point rows name their ranks but are no pairs matrix; pairs rows are. */
static void
test_bench_obs(void **state)
{
	struct ft_run run;
	struct ft_obs_set obs;
	struct ft_result_row r;

	(void)state;
	ft_run_init(&run, FT_SOURCE_BENCH, "bench");
	ft_result_row_init(&r);
	ft_strlcpy(r.test, "pt2pt_bw", sizeof(r.test));
	ft_strlcpy(r.src, "rank0", sizeof(r.src));
	ft_strlcpy(r.dst, "rank1", sizeof(r.dst));
	r.bytes = 1 << 20;
	r.algbw_GBps = 5;
	r.busbw_GBps = 5;
	r.time_us = 200;
	assert_int_equal(ft_run_add(&run, &r), 0);
	ft_obs_set_init(&obs);
	assert_int_equal(cli_bench_obs(&run, "bench:shm/pt2pt_bw", &obs), 0);
	assert_int_equal(count_key(&obs, "bench.pair_bw"), 0);
	assert_int_equal(count_key(&obs, "bench.busbw"), 1);
	assert_string_equal(ft_obs_set_at(&obs, 0)->file, "bench:shm/pt2pt_bw");
	/* the run itself keeps its ranks */
	assert_string_equal(ft_run_row(&run, 0)->src, "rank0");
	ft_obs_set_release(&obs);

	ft_strlcpy(ft_run_row(&run, 0)->test, "pairs", sizeof(r.test));
	ft_obs_set_init(&obs);
	assert_int_equal(cli_bench_obs(&run, "bench:tcp/pairs", &obs), 0);
	assert_int_equal(count_key(&obs, "bench.pair_bw"), 1);
	ft_obs_set_release(&obs);
	ft_run_release(&run);
}

/* The model's busbw (bandwidth-bound sizes) or time (latency-bound sizes) per measured point. */
static void
test_model_expectations(void **state)
{
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };
	struct ft_run meas, model;
	struct ft_vec ex;
	struct ft_model_query q;
	struct ft_model_result res;
	const struct ft_expectation *x;
	size_t n = 99;

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &spec, &err), 0);
	ft_run_init(&meas, FT_SOURCE_IMPORT, "nccl-tests");
	ft_run_init(&model, FT_SOURCE_MODEL, "model");
	ft_vec_init(&ex, sizeof(struct ft_expectation));
	row(&meas, "all_reduce_perf", "nccl", 8, 16, 0.0);
	row(&meas, "all_reduce_perf", "nccl", 1ull << 30, 16, 300);
	row(&meas, "all_reduce_perf", "nccl", 1ull << 30, 16, 301); /* same point twice */
	row(&meas, "pt2pt_bw", "nccl", 1 << 20, 2, 20);             /* not a collective */
	row(&meas, "all_reduce", "tcp", 1 << 20, 2, 1);             /* other transport */

	assert_int_equal(cli_model_expectations(&spec, &meas, "nccl", &ex, &model, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ex.len, 2);
	assert_int_equal(ft_run_nrows(&model), 2);
	x = ft_vec_at(&ex, 0);
	assert_int_equal(x->bytes, 8);
	assert_true(x->lat_us > 0 && x->busbw_GBps == 0);
	x = ft_vec_at(&ex, 1);
	assert_int_equal(x->bytes, 1ull << 30);
	assert_true(x->busbw_GBps > 0 && x->lat_us == 0);
	ft_model_query_init(&q, FT_OP_ALL_REDUCE, 1ull << 30);
	q.ngpus = 16;
	assert_int_equal(ft_model_eval(&spec, &q, &res, &err), 0);
	assert_true(fabs(x->busbw_GBps - res.busbw_Bps / 1e9) < 1e-9);
	assert_true(fabs(ft_run_row(&model, 1)->busbw_GBps - res.busbw_Bps / 1e9) < 1e-6);

	/* every transport: the tcp all_reduce (2 ranks on a 16-GPU spec) counts too */
	ft_vec_release(&ex);
	ft_vec_init(&ex, sizeof(struct ft_expectation));
	assert_int_equal(cli_model_expectations(&spec, &meas, NULL, &ex, NULL, &n, &err), 0);
	assert_int_equal(n, 3);
	/* nothing to compare: no collective rows */
	ft_run_release(&meas);
	ft_run_init(&meas, FT_SOURCE_BENCH, "bench");
	row(&meas, "pt2pt_lat", "tcp", 8, 2, 0);
	assert_int_equal(cli_model_expectations(&spec, &meas, NULL, NULL, NULL, &n, &err), 0);
	assert_int_equal(n, 0);
	ft_vec_release(&ex);
	ft_run_release(&meas);
	ft_run_release(&model);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_save_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_foreign_file, setup, teardown),
		cmocka_unit_test(test_bench_obs),
		cmocka_unit_test(test_model_expectations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

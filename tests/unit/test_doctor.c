/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_doctor.c - the workflow layer (fabtune/workflow.h): the
 * doctor loop through ft_doctor_run() on a captured sysfs tree (probe counts,
 * notes of what was not checked, the model's plateau, archive and baseline,
 * a short benchmark over local tcp ranks, bad input), saving a run with its
 * observations, findings and fingerprint, the model's expectations for
 * measured rows, the inputs of a diagnosis, run references and reports.
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

#include "source_root.h"

#include <fabtune/fabtune.h>
#include <fabtune/workflow.h>

#include "internal.h"
#include "workflow/workflow_int.h"

#define TREE "tests/fixtures/sysfs/gpu-node"

struct fx {
	char dir[64];
	char db[96];
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
	int64_t id = 0;

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

	assert_int_equal(ft_archive_open(f->db, &ar, &err), 0);
	assert_int_equal(ft_workflow_save_run(ar, &run, &obs, &fd, 1, &id, &err), 0);
	assert_int_equal(id, 1);
	assert_int_equal(ft_workflow_save_run(ar, &run, NULL, NULL, 0, NULL, &err), 0);

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
	assert_int_equal(ft_archive_load(ar, 5, &rec, &err), FT_ENOENT);
	ft_archive_close(ar);
	ft_obs_set_release(&obs);
	ft_run_release(&run);
}

/* A file that is not an archive is an error before any save, and is left as it was. */
static void
test_save_foreign_file(void **state)
{
	struct fx *f = *state;
	static const char text[] = "not a fabtune archive\n";
	char path[160], buf[64] = { 0 };
	struct ft_archive *ar = NULL;
	struct ft_error err = { 0 };
	FILE *fp;

	snprintf(path, sizeof(path), "%s/foreign.db", f->dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	assert_true(ft_archive_open(path, &ar, &err) < 0);
	assert_null(ar);
	assert_non_null(strstr(err.msg, path));
	fp = fopen(path, "r");
	assert_non_null(fp);
	assert_non_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	assert_string_equal(buf, text);
}

static size_t
count_key(const struct ft_obs_set *s, const char *key)
{
	size_t i, n = 0;

	for (i = 0; i < ft_obs_set_len(s); i++)
		n += strcmp(ft_obs_set_at(s, i)->key, key) == 0;
	return n;
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

	assert_int_equal(ft_workflow_model_expectations(&spec, &meas, "nccl", &ex, &model, &n, &err), 0);
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
	assert_int_equal(ft_workflow_model_expectations(&spec, &meas, NULL, &ex, NULL, &n, &err), 0);
	assert_int_equal(n, 3);
	/* nothing to compare: no collective rows */
	ft_run_release(&meas);
	ft_run_init(&meas, FT_SOURCE_BENCH, "bench");
	row(&meas, "pt2pt_lat", "tcp", 8, 2, 0);
	assert_int_equal(ft_workflow_model_expectations(&spec, &meas, NULL, NULL, NULL, &n, &err), 0);
	assert_int_equal(n, 0);
	ft_vec_release(&ex);
	ft_run_release(&meas);
	ft_run_release(&model);
}

static void
doctor_cfg(struct ft_doctor_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->root = TREE;
	cfg->no_tools = true;
	cfg->stable = true;
	cfg->np = 2;
	cfg->timeout_s = 10;
}

static const struct ft_doctor_note *
find_note(const struct ft_doctor_result *res, const char *what)
{
	size_t i;

	for (i = 0; i < res->notes.len; i++) {
		const struct ft_doctor_note *n = ft_vec_at(&res->notes, i);

		if (strcmp(n->what, what) == 0)
			return n;
	}
	return NULL;
}

static bool
has_finding(const struct ft_doctor_result *res, const char *rule)
{
	size_t i;

	for (i = 0; i < ft_findings_len(&res->findings); i++)
		if (strcmp(ft_findings_at(&res->findings, i)->rule_id, rule) == 0)
			return true;
	return false;
}

/* Counts reports of the progress callback. */
static void
count_progress(void *ud, const char *what, uint64_t done, uint64_t total)
{
	(void)what;
	(void)done;
	(void)total;
	(*(size_t *)ud)++;
}

/*
 * Probe and diagnose only, on the captured tree (host gpu07: 2 GPUs of an
 * unknown model, 3 RDMA devices): what was not checked is said and archived,
 * the first run becomes the baseline, the next ones are compared with it.
 */
static void
test_doctor_probe_only(void **state)
{
	struct fx *f = *state;
	struct ft_doctor_cfg cfg;
	struct ft_doctor_result res;
	struct ft_error err = { 0 };
	struct ft_archive *ar = NULL;
	struct ft_archive_record rec;
	struct ft_obs_set probed;
	struct ft_probe_cfg pcfg = { .root = TREE };
	const struct ft_doctor_note *n;
	size_t i, nunchecked = 0, nprogress = 0;
	struct ft_progress progress = { count_progress, &nprogress };

	/* the probe alone, for the count the doctor must report */
	ft_obs_set_init(&probed);
	assert_int_equal(ft_probe_host(&pcfg, &probed, &err), 0);

	assert_int_equal(ft_archive_open(f->db, &ar, &err), 0);
	doctor_cfg(&cfg);
	cfg.no_bench = true;
	cfg.ar = ar;
	assert_int_equal(ft_doctor_run(&cfg, &progress, NULL, &res, &err), 0);
	assert_true(res.root);
	assert_true(nprogress >= 1);
	assert_string_equal(res.host, "gpu07");
	assert_int_equal(res.nprobe_obs, ft_obs_set_len(&probed));
	assert_int_equal(res.nhosts, 1);
	assert_true(res.ngpus == 2);
	assert_int_equal(res.nrdma, 3);
	assert_false(res.under_mpi);
	assert_int_equal(res.ntransports, 0);
	assert_int_equal(ft_run_nrows(&res.rec.run), 0);
	assert_string_equal(res.rec.run.label, "doctor on gpu07 (no bench)");
	/* the notes: other hosts, the skipped benchmark, no preset for these GPUs */
	assert_int_equal(res.notes.len, 3);
	assert_non_null(find_note(&res, "other hosts"));
	n = find_note(&res, "bench");
	assert_non_null(n);
	assert_non_null(strstr(n->why, "skipped"));
	n = find_note(&res, "model");
	assert_non_null(n);
	assert_non_null(strstr(n->why, "2 GPUs (model unknown) match no node preset"));
	assert_false(res.have_spec);
	assert_true(isnan(res.plateau_busbw_GBps));
	/* ... each also an observation of the record */
	for (i = 0; i < ft_obs_set_len(&res.rec.obs); i++) {
		const struct ft_obs *o = ft_obs_set_at(&res.rec.obs, i);

		if (strcmp(o->key, "doctor.unchecked") == 0) {
			nunchecked++;
			assert_string_equal(o->host, "gpu07");
		}
	}
	assert_int_equal(nunchecked, 3);
	/* the tree's faults are found */
	assert_true(has_finding(&res, "ib-link-downed"));
	assert_true(has_finding(&res, "ib-port-down"));
	assert_true(has_finding(&res, "roce-gid-empty"));
	assert_int_equal(res.rec.findings.len, ft_findings_len(&res.findings));
	/* saved, and the first run is the baseline */
	assert_true(res.archived);
	assert_int_equal(res.archive_rc, 0);
	assert_int_equal(res.run_id, 1);
	assert_string_equal(res.baseline, "doctor-gpu07");
	assert_true(res.new_baseline);
	assert_false(res.have_cmp);
	assert_string_equal(ft_fingerprint_get(&res.rec.fp, "host.name") ? "set" : "", "set");
	ft_doctor_result_release(&res);

	/* the saved record holds the notes and findings */
	assert_int_equal(ft_archive_load(ar, 1, &rec, &err), 0);
	assert_int_equal(ft_obs_set_len(&rec.obs), ft_obs_set_len(&probed) + 3);
	assert_true(rec.findings.len >= 3);
	ft_archive_record_release(&rec);

	/* second run: compared with the baseline, and added to it */
	cfg.update_baseline = true;
	assert_int_equal(ft_doctor_run(&cfg, NULL, NULL, &res, &err), 0);
	assert_int_equal(res.run_id, 2);
	assert_false(res.new_baseline);
	assert_true(res.have_cmp);
	assert_int_equal(res.base.len, 1);
	assert_non_null(res.bruns);
	assert_true(res.added_to_baseline);
	assert_true(res.forming); /* 1 run: the host's baseline is still forming */
	assert_string_equal(res.base_label, "baseline 'doctor-gpu07' (1 run)");
	ft_doctor_result_release(&res);

	/* third, not saved, named baseline: two runs to compare with, nothing added */
	cfg.no_save = true;
	assert_int_equal(ft_doctor_run(&cfg, NULL, NULL, &res, &err), 0);
	assert_int_equal(res.run_id, 0);
	assert_int_equal(res.base.len, 2);
	assert_false(res.added_to_baseline);
	assert_false(res.forming); /* not saved: nothing to add */
	assert_string_equal(res.base_label, "baseline 'doctor-gpu07' (2 runs)");
	ft_doctor_result_release(&res);
	/* saved again without --update-baseline: the forming baseline takes it (3 runs) */
	cfg.no_save = false;
	cfg.update_baseline = false;
	assert_int_equal(ft_doctor_run(&cfg, NULL, NULL, &res, &err), 0);
	assert_true(res.forming && res.added_to_baseline);
	ft_doctor_result_release(&res);
	/* formed: compared, judged, and not added */
	assert_int_equal(ft_doctor_run(&cfg, NULL, NULL, &res, &err), 0);
	assert_int_equal(res.base.len, 3);
	assert_false(res.forming);
	assert_false(res.added_to_baseline);
	ft_doctor_result_release(&res);
	cfg.no_save = true;
	cfg.baseline = "other";
	assert_int_equal(ft_doctor_run(&cfg, NULL, NULL, &res, &err), 0);
	assert_string_equal(res.baseline, "other");
	assert_false(res.have_cmp);
	assert_false(res.new_baseline); /* nothing saved: nothing to start it with */
	ft_doctor_result_release(&res);
	assert_int_equal(ft_archive_load(ar, 5, &rec, &err), FT_ENOENT);

	ft_archive_close(ar);
	ft_obs_set_release(&probed);
}

/* A regression counts against a formed baseline, not a forming one. */
static void
test_doctor_regressed(void **state)
{
	struct ft_doctor_result res;

	(void)state;
	memset(&res, 0, sizeof(res));
	assert_false(ft_doctor_regressed(&res)); /* nothing compared */
	res.have_cmp = true;
	assert_false(ft_doctor_regressed(&res));
	res.cmp.count[FT_VERDICT_REGRESSED] = 1;
	assert_true(ft_doctor_regressed(&res));
	res.forming = true;
	assert_false(ft_doctor_regressed(&res));
}

/* One all_reduce row of @busbw GB/s whose 20 iterations spread by @cv (time_us 100). */
static void
band_row(struct ft_run *run, double busbw, double cv)
{
	struct ft_result_row r;

	ft_result_row_init(&r);
	ft_strlcpy(r.test, "all_reduce", sizeof(r.test));
	ft_strlcpy(r.transport, "shm", sizeof(r.transport));
	r.bytes = 4 << 20;
	r.nranks = 2;
	r.busbw_GBps = busbw;
	r.time_us = 100.0;
	r.time_stdev_us = 100.0 * cv;
	r.nsamples = 20;
	assert_int_equal(ft_run_add(run, &r), 0);
}

/* The doctor's verdict on a run of @cur GB/s against 3 runs of @b GB/s, under @obs. */
static const struct ft_compare_row *
band_judge(const struct ft_obs_set *obs, const double b[3], double base_cv, double cur,
	   struct ft_compare *cmp)
{
	struct ft_run base[3], run;
	const struct ft_run *bp[3] = { &base[0], &base[1], &base[2] };
	struct ft_compare_opts o;
	struct ft_error err = { 0 };
	size_t i;

	for (i = 0; i < 3; i++) {
		ft_run_init(&base[i], FT_SOURCE_BENCH, "bench");
		band_row(&base[i], b[i], base_cv);
	}
	ft_run_init(&run, FT_SOURCE_BENCH, "bench");
	band_row(&run, cur, base_cv);
	ft__doctor_compare_opts(obs, &o);
	assert_int_equal(ft_compare_runs(&run, bp, 3, &o, cmp, &err), 0);
	for (i = 0; i < 3; i++)
		ft_run_release(&base[i]);
	ft_run_release(&run);
	return ft_vec_at(&cmp->rows, 0);
}

/*
 * The doctor's band against a 3-run baseline. Runs of 20 GB/s +- 5 % (20,
 * 21, 19: s = 1 GB/s) whose iterations spread by 5 % too: no run effect, so
 * the iterations' 57 degrees of freedom join the runs' 2 and the band is
 * t(59, 99.73 %) x sqrt(4/3) x 1 GB/s = 3.57 GB/s, 17.8 %, not archive
 * compare's 22.2 s = 111 %: a 30 % loss (14 GB/s) is flagged, the same
 * figure (19.5) is not. On a loaded host (host.cpu_foreign 90 %), or where
 * the runs spread beyond their iterations (iterations at 1 %), the band is
 * the runs' alone and neither is flagged.
 */
static void
test_doctor_band(void **state)
{
	static const double b[3] = { 20.0, 21.0, 19.0 };
	struct ft_obs_set quiet, loaded;
	struct ft_compare cmp;
	const struct ft_compare_row *r;
	struct ft_obs o;
	double c = erf(3.0 / M_SQRT2);

	(void)state;
	ft_obs_set_init(&quiet);
	ft_obs_set_init(&loaded);
	ft_obs_init(&o, "host.cpu_foreign");
	ft_strlcpy(o.host, "h1", sizeof(o.host));
	o.num = 0.05;
	o.has_num = true;
	assert_int_equal(ft_obs_set_add(&quiet, &o), 0);
	o.num = 0.90;
	assert_int_equal(ft_obs_set_add(&loaded, &o), 0);

	r = band_judge(&quiet, b, 0.05, 14.0, &cmp);
	assert_int_equal(r->band_from, FT_BAND_POOLED);
	assert_true(fabs(r->iter_df - 57) < 1e-12);
	assert_true(fabs(r->base_stdev - 1.0) < 1e-12);
	/* pooled s^2 = (2 x 1 + 57 x 1) / 59 = 1: the band is t(59) sqrt(4/3) s of 20 */
	assert_true(fabs(r->threshold_rel - ft__t_two_sided(c, 59) * sqrt(4.0 / 3.0) / 20.0) <
		    1e-12);
	assert_true(r->threshold_rel > 0.17 && r->threshold_rel < 0.19);
	assert_int_equal(r->verdict, FT_VERDICT_REGRESSED);
	ft_compare_release(&cmp);
	r = band_judge(&quiet, b, 0.05, 19.5, &cmp);
	assert_int_equal(r->verdict, FT_VERDICT_UNCHANGED);
	ft_compare_release(&cmp);

	/* loaded: the runs alone, 22.2 sample deviations (111 %) */
	r = band_judge(&loaded, b, 0.05, 14.0, &cmp);
	assert_int_equal(r->band_from, FT_BAND_RUNS);
	assert_true(fabs(r->threshold_rel - ft__t_two_sided(c, 2) * sqrt(4.0 / 3.0) / 20.0) < 1e-12);
	assert_int_equal(r->verdict, FT_VERDICT_UNCHANGED);
	ft_compare_release(&cmp);
	/* runs 5 % apart, iterations 1 %: s_b^2 / s_w^2 = 25 > 4.61 (chi-square(2), 99 %) */
	r = band_judge(&quiet, b, 0.01, 14.0, &cmp);
	assert_int_equal(r->band_from, FT_BAND_RUNS);
	assert_int_equal(r->verdict, FT_VERDICT_UNCHANGED);
	ft_compare_release(&cmp);
	/* iterations 2.3 % (s_w = 0.46 GB/s): 1 / 0.2116 = 4.73, just past the test */
	r = band_judge(&quiet, b, 0.023, 14.0, &cmp);
	assert_int_equal(r->band_from, FT_BAND_RUNS);
	ft_compare_release(&cmp);
	/* 2.4 % (s_w = 0.48): 4.34 is within it; the deviation stays the runs' (1 GB/s) */
	r = band_judge(&quiet, b, 0.024, 14.0, &cmp);
	assert_int_equal(r->band_from, FT_BAND_POOLED);
	assert_true(fabs(r->threshold_rel - ft__t_two_sided(c, 59) * sqrt(4.0 / 3.0) / 20.0) <
		    1e-12);
	ft_compare_release(&cmp);
	ft_obs_set_release(&quiet);
	ft_obs_set_release(&loaded);
}

/* A given spec: the model's plateau for the summary, and why nothing was compared. */
static void
test_doctor_spec(void **state)
{
	struct ft_doctor_cfg cfg;
	struct ft_doctor_result res;
	struct ft_error err = { 0 };
	struct ft_cluster_spec spec;
	struct ft_model_query q;
	struct ft_model_result m;
	const struct ft_doctor_note *n;

	(void)state;
	doctor_cfg(&cfg);
	cfg.no_bench = true;
	cfg.spec = "dgx-h100:2";
	assert_int_equal(ft_doctor_run(&cfg, NULL, NULL, &res, &err), 0);
	assert_true(res.have_spec);
	assert_string_equal(res.spec_name, "dgx-h100:2");
	assert_string_equal(res.rec.run.spec, "dgx-h100:2");
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &spec, &err), 0);
	ft_model_query_init(&q, FT_OP_ALL_REDUCE, 1ull << 30);
	assert_int_equal(ft_model_eval(&spec, &q, &m, &err), 0);
	assert_true(fabs(res.plateau_busbw_GBps - m.busbw_Bps / 1e9) < 1e-9);
	assert_int_equal(res.plateau_ranks, 16);
	assert_int_equal(res.expect.len, 0);
	n = find_note(&res, "model");
	assert_non_null(n);
	assert_string_equal(n->why, "expectations for dgx-h100:2 not compared: no benchmark ran");
	/* no archive given: no archive step */
	assert_false(res.archived);
	assert_int_equal(res.run_id, 0);
	assert_string_equal(res.baseline, "");
	ft_doctor_result_release(&res);
}

/*
 * Two local ranks over tcp: the quick suite's rows (latency 8 B..4 KiB by 8,
 * bandwidth and all_reduce 64 KiB..4 MiB by 4), their observations under
 * bench:tcp/<pattern>, and no per-pair bandwidth (point-to-point rows are
 * not a matrix). tcp rows are not what the model describes.
 */
static void
test_doctor_bench_tcp(void **state)
{
	static const struct {
		const char *test;
		size_t nrows;
	} want[] = { { "pt2pt_lat", 4 }, { "pt2pt_bw", 4 }, { "all_reduce", 4 } };
	struct ft_doctor_cfg cfg;
	struct ft_doctor_result res;
	struct ft_error err = { 0 };
	const struct ft_doctor_note *n;
	size_t i, k;

	(void)state;
	doctor_cfg(&cfg);
	cfg.transports = "tcp";
	cfg.spec = "dgx-h100";
	assert_int_equal(ft_doctor_run(&cfg, NULL, NULL, &res, &err), 0);
	assert_int_equal(res.ntransports, 1);
	assert_string_equal(res.transports[0], "tcp");
	assert_int_equal(res.nranks, 2);
	assert_int_equal(res.nbench_ok, 3);
	assert_int_equal(res.nbench_failed, 0);
	assert_int_equal(ft_run_nrows(&res.rec.run), 12);
	for (k = 0; k < FT_ARRAY_SIZE(want); k++) {
		size_t got = 0;

		for (i = 0; i < ft_run_nrows(&res.rec.run); i++) {
			const struct ft_result_row *r = ft_run_row(&res.rec.run, i);

			assert_string_equal(r->transport, "tcp");
			got += strcmp(r->test, want[k].test) == 0;
		}
		assert_int_equal(got, want[k].nrows);
	}
	assert_int_equal(ft_run_row(&res.rec.run, 0)->bytes, 8);
	assert_int_equal(ft_run_row(&res.rec.run, 3)->bytes, 4096);
	assert_int_equal(ft_run_row(&res.rec.run, 11)->bytes, 4u << 20);
	assert_int_equal(count_key(&res.rec.obs, "bench.pair_bw"), 0);
	assert_true(count_key(&res.rec.obs, "bench.lat_p50") >= 1);
	for (i = 0; i < ft_obs_set_len(&res.rec.obs); i++) {
		const struct ft_obs *o = ft_obs_set_at(&res.rec.obs, i);

		if (strcmp(o->key, "bench.lat_p50") == 0)
			assert_string_equal(o->file, "bench:tcp/pt2pt_lat");
	}
	assert_int_equal(res.expect.len, 0);
	n = find_note(&res, "model");
	assert_non_null(n);
	assert_non_null(strstr(n->why, "no NCCL result here"));
	assert_string_equal(res.rec.run.label, "doctor on gpu07");
	ft_doctor_result_release(&res);
}

/* Bad input is an error naming it, before any work; a raised stop ends the benchmark. */
static void
test_doctor_errors(void **state)
{
	struct ft_doctor_cfg cfg;
	struct ft_doctor_result res;
	struct ft_error err = { 0 };
	volatile sig_atomic_t stop = 1;
	unsigned rank = 99;
	int rc;

	(void)state;
	doctor_cfg(&cfg);
	cfg.transports = "tcp,bogus";
	assert_int_equal(ft_doctor_run(&cfg, NULL, NULL, &res, &err), FT_EINVAL);
	assert_string_equal(err.msg, "--transports: unknown transport 'bogus' (tcp, shm, mpi, "
	                             "verbs, nccl)");
	ft_doctor_result_release(&res);

	memset(&err, 0, sizeof(err)); /* the first error is kept: start afresh */
	doctor_cfg(&cfg);
	cfg.spec = "no-such-preset";
	rc = ft_doctor_run(&cfg, NULL, NULL, &res, &err);
	assert_int_equal(rc, FT_ENOENT); /* a usage error: neither a file nor a preset */
	assert_non_null(strstr(ft_error_msg(&err, rc), "no-such-preset"));
	assert_int_equal(res.nprobe_obs, 0); /* failed before the probe */
	ft_doctor_result_release(&res);

	memset(&err, 0, sizeof(err));
	doctor_cfg(&cfg);
	cfg.np = 1;
	assert_int_equal(ft_doctor_run(&cfg, NULL, NULL, &res, &err), FT_EINVAL);
	ft_doctor_result_release(&res);

	memset(&err, 0, sizeof(err));
	doctor_cfg(&cfg);
	cfg.transports = "tcp";
	assert_int_equal(ft_doctor_run(&cfg, NULL, &stop, &res, &err), FT_EINTR);
	assert_string_equal(err.msg, "interrupted");
	assert_int_equal(res.nbench_ok, 0);
	ft_doctor_result_release(&res);

	memset(&err, 0, sizeof(err));
	/* no launcher here (the test runs alone): rank 0 */
	assert_int_equal(ft_doctor_check_launch(&rank, &err), 0);
	assert_int_equal(rank, 0);
}

/*
 * The inputs of a diagnosis: a nccl-tests log (14 all_reduce sizes on 16
 * ranks), the model's expectation for each, the thresholds file; the first
 * bad input stops the gathering and is named.
 */
static void
test_inputs_gather(void **state)
{
	static const char *const files[] = {
		"tests/fixtures/nccl-tests/h100-2node-16gpu-all-reduce-same-cluster-baseline.txt",
	};
	static const char *const bad[] = { "tests/fixtures/diag/expect-bad.yaml" };
	struct ft_workflow_sources src = { 0 };
	struct ft_workflow_inputs in;
	struct ft_error err = { 0 };
	struct ft_vec ex;
	struct ft_cluster_spec spec;
	size_t n = 0;

	(void)state;
	src.files = files;
	src.nfiles = 1;
	src.spec = "dgx-h100:2";
	src.thresholds = "tests/fixtures/diag/thresholds-70pct.yaml";
	assert_false(ft_workflow_sources_probe(&src));
	ft_workflow_inputs_init(&in);
	assert_int_equal(ft_workflow_inputs_gather(&src, &in, &err), 0);
	assert_int_equal(in.nfiles, 1);
	assert_int_equal(in.nskipped, 0);
	assert_true(in.spec_done);
	assert_int_equal(ft_run_nrows(&in.rows), 14);
	/* one expectation per measured size, the same the model gives directly */
	assert_int_equal(in.nmodel, 14);
	assert_int_equal(in.expect.len, 14);
	assert_ptr_equal(in.din.obs, &in.obs);
	assert_ptr_equal(in.din.expect, in.expect.data);
	assert_int_equal(in.din.nexpect, 14);
	assert_ptr_equal(in.din.thresholds, &in.thresholds);
	ft_vec_init(&ex, sizeof(struct ft_expectation));
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &spec, &err), 0);
	assert_int_equal(
	        ft_workflow_model_expectations(&spec, &in.rows, NULL, &ex, NULL, &n, &err), 0);
	assert_int_equal(n, 14);
	assert_memory_equal(ex.data, in.expect.data, 14 * sizeof(struct ft_expectation));
	ft_vec_release(&ex);
	ft_workflow_inputs_release(&in);

	/* an unreadable input: named, nothing after it read */
	src.files = bad;
	ft_workflow_inputs_init(&in);
	assert_int_equal(ft_workflow_inputs_gather(&src, &in, &err), FT_EPARSE);
	assert_non_null(strstr(err.msg, bad[0]));
	assert_false(in.spec_done);
	assert_null(in.din.thresholds);
	ft_workflow_inputs_release(&in);

	/* a root asks for a probe: the captured tree is one more input */
	memset(&err, 0, sizeof(err));
	memset(&src, 0, sizeof(src));
	src.root = TREE;
	assert_true(ft_workflow_sources_probe(&src));
	ft_workflow_inputs_init(&in);
	assert_int_equal(ft_workflow_inputs_gather(&src, &in, &err), 0);
	assert_int_equal(in.nfiles, 1);
	assert_true(ft_obs_set_len(&in.obs) > 100);
	assert_null(in.din.thresholds);
	ft_workflow_inputs_release(&in);
}

/* Run references: latest, latest~N, an id, a baseline, a missing file; a report's comparison. */
static void
test_load_ref(void **state)
{
	struct fx *f = *state;
	struct ft_archive *ar = NULL;
	struct ft_error err = { 0 };
	struct ft_vec recs;
	struct ft_workflow_report r;
	struct ft_run run;
	char label[200];
	int64_t id;

	assert_int_equal(ft_archive_open(f->db, &ar, &err), 0);
	ft_run_init(&run, FT_SOURCE_BENCH, "bench");
	row(&run, "all_reduce", "tcp", 1 << 20, 2, 1.0);
	assert_int_equal(ft_workflow_save_run(ar, &run, NULL, NULL, 0, &id, &err), 0);
	assert_int_equal(ft_archive_baseline_add(ar, "b", id, &err), 0);
	ft_run_row(&run, 0)->busbw_GBps = 0.5; /* half: a regression */
	ft_run_row(&run, 0)->algbw_GBps = 0.25;
	ft_run_row(&run, 0)->time_us = 20;
	assert_int_equal(ft_workflow_save_run(ar, &run, NULL, NULL, 0, &id, &err), 0);
	ft_archive_close(ar);
	ar = NULL;

	ft_vec_init(&recs, sizeof(struct ft_archive_record));
	/* opened on first need, at the path given */
	assert_int_equal(ft_workflow_load_ref(&ar, f->db, "latest", false, &recs, label,
	                                      sizeof(label), &err), 0);
	assert_non_null(ar);
	assert_string_equal(label, "run 2");
	assert_int_equal(ft_workflow_load_ref(&ar, f->db, "latest~1", true, &recs, label,
	                                      sizeof(label), &err), 0);
	assert_string_equal(label, "run 1");
	assert_int_equal(ft_workflow_load_ref(&ar, f->db, "baseline:b", true, &recs, label,
	                                      sizeof(label), &err), 0);
	assert_string_equal(label, "baseline 'b' (1 run)");
	assert_int_equal(recs.len, 3);
	assert_int_equal(((struct ft_archive_record *)ft_vec_at(&recs, 0))->info.id, 2);
	assert_int_equal(ft_workflow_load_ref(&ar, f->db, "no/such.json", true, &recs, label,
	                                      sizeof(label), &err), FT_ENOENT);
	assert_string_equal(err.msg, "no/such.json: no such file");
	assert_int_equal(recs.len, 3);
	ft_archive_records_release(&recs);

	memset(&err, 0, sizeof(err));
	assert_int_equal(ft_workflow_report_prepare(&ar, f->db, "latest", "b", NULL, NULL, true, &r,
	                                            &err), 0);
	assert_string_equal(r.cur_label, "run 2");
	assert_string_equal(r.base_label, "baseline 'b' (1 run)");
	assert_true(r.have_cmp);
	assert_true(ft_compare_has_regression(&r.cmp));
	assert_ptr_equal(r.in.cmp, &r.cmp);
	assert_int_equal(r.in.nbaseline, 1);
	assert_true(r.in.stable);
	assert_null(r.in.expected);
	ft_workflow_report_release(&r);
	/* the default baseline, absent: a message that says how to name one */
	assert_int_equal(ft_workflow_report_prepare(&ar, f->db, "latest", "default", NULL, NULL,
	                                            true, &r, &err), FT_ENOENT);
	assert_non_null(strstr(err.msg, "no baseline 'default'"));
	ft_workflow_report_release(&r);
	ft_archive_close(ar);
	ft_run_release(&run);
}

/* Calibrating against a file takes its op and rank count from its rows: the same fit as
 * ft_model_calibrate() given them; a file without result rows is named an error. */
static void
test_calibrate_file(void **state)
{
	static const char file[] =
	        "tests/fixtures/nccl-tests/h100-2node-16gpu-all-reduce-same-cluster-baseline.txt";
	struct ft_cluster_spec spec;
	struct ft_model_query q, direct;
	struct ft_model_calib a, b;
	struct ft_obs_set obs;
	struct ft_run run;
	struct ft_error err = { 0 };
	char empty[] = "/tmp/ft-test-calib-XXXXXX";
	int fd;

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &spec, &err), 0);
	ft_model_query_init(&q, FT_OP_ALLTOALL, 0); /* not given: the file says all_reduce */
	assert_int_equal(ft_workflow_model_calibrate_file(&spec, &q, false, file, &a, &err), 0);
	assert_int_equal(a.op, FT_OP_ALL_REDUCE);
	assert_int_equal(a.nranks, 16);

	ft_obs_set_init(&obs);
	ft_run_init(&run, FT_SOURCE_IMPORT, "nccl-tests");
	assert_int_equal(ft_parse_file(file, "nccl-tests", &obs, &run, &err), 0);
	ft_model_query_init(&direct, FT_OP_ALL_REDUCE, 0);
	direct.ngpus = 16;
	assert_int_equal(ft_model_calibrate(&spec, &direct, &run, &b, &err), 0);
	assert_int_equal(a.npoints, b.npoints);
	assert_true(a.fixed_s == b.fixed_s && a.lat_scale == b.lat_scale &&
	            a.bw_scale == b.bw_scale);
	ft_model_calib_release(&a);
	ft_model_calib_release(&b);
	ft_run_release(&run);
	ft_obs_set_release(&obs);

	fd = mkstemp(empty);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(ft_workflow_model_calibrate_file(&spec, &q, false, empty, &a, &err),
	                 FT_EINVAL);
	assert_string_equal(err.msg, "no nccl-tests result rows");
	unlink(empty);
}

/* The calibration report of two files: one fit each and a block with both; a missing file
 * stops it, named. */
static void
test_calibrate_write(void **state)
{
	const char *files[] = {
		"tests/fixtures/nccl-tests/h100-2node-16gpu-all-reduce-same-cluster-baseline.txt",
		"tests/fixtures/nccl-tests/h100-2node-16gpu-all-reduce-same-cluster-baseline.txt",
		"tests/fixtures/nccl-tests/no-such-file.txt",
	};
	struct ft_cluster_spec spec;
	struct ft_model_query q;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	size_t curves = 0;

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &spec, &err), 0);
	ft_model_query_init(&q, FT_OP_ALL_REDUCE, 0);
	ft_strbuf_init(&sb);
	assert_int_equal(ft_workflow_model_calibrate_write(&spec, &q, false, files, 2, true, &sb,
	                                                   &err),
	                 0);
	assert_non_null(strstr(sb.buf, "\"spec\":\"dgx-h100:2\""));
	assert_non_null(strstr(sb.buf, "\"calibration_block\":\"calibration:\\n"));
	for (const char *c = sb.buf; (c = strstr(c, files[0])); c++)
		curves++;
	assert_int_equal(curves, 2);
	assert_int_equal(sb.buf[sb.len - 1], '\n');
	ft_strbuf_release(&sb);
	ft_strbuf_init(&sb);
	assert_int_equal(ft_workflow_model_calibrate_write(&spec, &q, false, files, 3, false, &sb,
	                                                   &err),
	                 FT_ENOENT);
	assert_non_null(strstr(err.msg, files[2]));
	assert_int_equal(strncmp(err.msg, files[2], strlen(files[2])), 0);
	ft_strbuf_release(&sb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_save_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_foreign_file, setup, teardown),
		cmocka_unit_test(test_model_expectations),
		cmocka_unit_test(test_doctor_regressed),
		cmocka_unit_test(test_doctor_band),
		cmocka_unit_test_setup_teardown(test_doctor_probe_only, setup, teardown),
		cmocka_unit_test(test_doctor_spec),
		cmocka_unit_test(test_doctor_bench_tcp),
		cmocka_unit_test(test_doctor_errors),
		cmocka_unit_test(test_inputs_gather),
		cmocka_unit_test_setup_teardown(test_load_ref, setup, teardown),
		cmocka_unit_test(test_calibrate_file),
		cmocka_unit_test(test_calibrate_write),
	};

	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

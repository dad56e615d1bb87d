/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_oom.c - out-of-memory sweeps (curl's torture mode).
 *
 * For one call under test, make its 1st allocation fail, then its 2nd, and
 * so on until a run no longer reaches the nth allocation (and then it must
 * succeed). Every run where an allocation failed must return FT_ENOMEM, with
 * the struct ft_error saying so, and leave nothing behind: each call frees
 * what it made, so a leak on any failure path shows up under LeakSanitizer
 * (the clang ASan build of CI), and a use of a half-built object under
 * AddressSanitizer. Allocations of libyaml and SQLite themselves are outside
 * the sweep (they do not go through ft_malloc).
 *
 * Swept: the spec loader (every spec under examples/, alone and followed by
 * the topology build, its first user), the parsers through
 * detection (every fixture of tests/fixtures/<parser>/ that parses), and the
 * archive (open a new file, save a run with observations and a fingerprint,
 * list, load it back, close; then baselines, export, import and compare), and the
 * simulator (a scenario's run on each engine, on nodes of different GPU counts).
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "source_root.h"

#include <fabtune/fabtune.h>

#include "base/alloc_int.h"

/* One call under test: does its work, frees all it made, returns 0 or FT_E*. */
typedef int oom_fn(const void *arg, struct ft_error *err);

/* No input of these tests makes anywhere near this many allocations. */
#define SWEEP_MAX 200000UL

/*
 * Sweep @fn over its allocations; returns how many there were. A run that
 * fails an allocation must return FT_ENOMEM and fill @err with that code,
 * except one of the @nfallback allocations the call falls back from (the
 * model's cache, ft_model_cache_new(): uncached queries give the same
 * figures), where it must succeed as @fn checks; the count of those must be
 * @nfallback exactly.
 */
static unsigned long
sweep_fallback(const char *what, oom_fn *fn, const void *arg, unsigned long nfallback)
{
	unsigned long n, fell = 0;
	struct ft_error err;
	int rc;

	ft__alloc_fail_at(0);
	memset(&err, 0, sizeof(err));
	rc = fn(arg, &err);
	if (rc != 0)
		fail_msg("%s: fails without any injected failure: %s (%s)", what, ft_err_name(rc),
		         err.msg);
	for (n = 1; n < SWEEP_MAX; n++) {
		bool fired;

		memset(&err, 0, sizeof(err));
		ft__alloc_fail_at(n);
		rc = fn(arg, &err);
		fired = ft__alloc_failed();
		ft__alloc_fail_at(0);
		if (!fired) {
			if (rc != 0)
				fail_msg("%s: %lu allocations, then %s (%s) with none failed", what,
				         n - 1, ft_err_name(rc), err.msg);
			if (fell != nfallback)
				fail_msg("%s: %lu allocations fallen back from, expected %lu", what,
				         fell, nfallback);
			return n - 1;
		}
		if (rc == 0 && fell < nfallback) {
			fell++;
			continue;
		}
		if (rc != FT_ENOMEM)
			fail_msg("%s: allocation %lu failed: expected FT_ENOMEM, got %s (%s)", what,
			         n, rc ? ft_err_name(rc) : "0 (success)", err.msg);
		if (err.code != FT_ENOMEM)
			fail_msg("%s: allocation %lu failed: struct ft_error has code %d ('%s'), "
			         "expected FT_ENOMEM",
			         what, n, err.code, err.msg);
	}
	fail_msg("%s: more than %lu allocations", what, SWEEP_MAX);
	return 0;
}

/* The same, where every failed allocation is FT_ENOMEM. */
static unsigned long
sweep(const char *what, oom_fn *fn, const void *arg)
{
	return sweep_fallback(what, fn, arg, 0);
}

/* Paths of the files ending in @suffix under @dir, sorted, NULL-terminated (free each). */
static char **
list_files(const char *dir, const char *suffix, const char *skip_prefix)
{
	struct dirent **ents;
	int i, n = scandir(dir, &ents, NULL, alphasort);
	char **out;
	size_t k = 0, ls = strlen(suffix);

	assert_true(n > 0);
	out = calloc((size_t)n + 1, sizeof(*out));
	assert_non_null(out);
	for (i = 0; i < n; i++) {
		size_t len = strlen(ents[i]->d_name);

		if (len > ls && strcmp(ents[i]->d_name + len - ls, suffix) == 0 &&
		    (!*skip_prefix ||
		     strncmp(ents[i]->d_name, skip_prefix, strlen(skip_prefix)) != 0)) {
			out[k] = malloc(strlen(dir) + len + 2);
			assert_non_null(out[k]);
			sprintf(out[k++], "%s/%s", dir, ents[i]->d_name);
		}
		free(ents[i]);
	}
	free(ents);
	return out;
}

static void
free_list(char **l)
{
	for (size_t i = 0; l[i]; i++)
		free(l[i]);
	free(l);
}

/* ---- the spec loader ------------------------------------------------------ */

static int
load_spec(const void *arg, struct ft_error *err)
{
	struct ft_cluster_spec spec, zero;
	int rc;

	memset(&zero, 0, sizeof(zero));
	rc = ft_spec_load_file(arg, &spec, err);
	/* The loader promises a zeroed spec on error. */
	if (rc < 0 && memcmp(&spec, &zero, sizeof(spec)) != 0)
		fail_msg("%s: spec not left zeroed after %s", (const char *)arg, ft_err_name(rc));
	return rc;
}

/* The loader's first user: the spec and the topology built from it. */
static int
load_and_build(const void *arg, struct ft_error *err)
{
	struct ft_cluster_spec spec;
	struct ft_topo *topo = (struct ft_topo *)&spec; /* must be reset to NULL on failure */
	int rc = ft_spec_load_file(arg, &spec, err);

	if (rc < 0)
		return rc;
	rc = ft_topo_build(&spec, &topo, err);
	if (rc < 0 && topo)
		fail_msg("%s: ft_topo_build failed (%s) but left *out set", (const char *)arg,
		         ft_err_name(rc));
	ft_topo_free(topo);
	return rc;
}

static void
test_oom_spec(void **state)
{
	char **files = list_files("examples", "", "");
	size_t i, nfiles = 0;
	unsigned long total = 0;

	for (i = 0; files[i]; i++) {
		unsigned long n;
		size_t len = strlen(files[i]);

		if (len < 5 ||
		    (strcmp(files[i] + len - 5, ".yaml") && strcmp(files[i] + len - 5, ".json")))
			continue;
		n = sweep(files[i], load_spec, files[i]);
		print_message("# %s: %lu allocations swept\n", files[i], n);
		total += n;
		n = sweep(files[i], load_and_build, files[i]);
		print_message("# %s + topology: %lu allocations swept\n", files[i], n);
		total += n;
		nfiles++;
	}
	free_list(files);
	assert_true(nfiles >= 5);
	assert_true(total >= nfiles); /* the sweep reached into the loader */
}

/* A spec's topology and one path under minhop: its forwarding tables (topo/route.c
 * ft__route_minhop_sync()) are allocated on that first route. */
static int
build_and_route_minhop(const void *arg, struct ft_error *err)
{
	struct ft_route_policy pol = { .routing = FT_ROUTING_MINHOP };
	struct ft_cluster_spec spec;
	struct ft_topo *topo = NULL;
	struct ft_path p;
	int rc = ft_spec_load_file(arg, &spec, err);

	if (rc < 0)
		return rc;
	rc = ft_topo_build(&spec, &topo, err);
	if (rc < 0)
		return rc;
	rc = ft_route_path(topo, ft_topo_gpu(topo, 5, 0), ft_topo_gpu(topo, 10, 0), &pol, &p);
	if (rc < 0)
		rc = ft_error_set(err, rc, "route: %s", ft_err_name(rc));
	ft_topo_free(topo);
	return rc;
}

static void
test_oom_route_minhop(void **state)
{
	unsigned long n;

	(void)state;
	n = sweep("minhop", build_and_route_minhop, "tests/fixtures/spec/h100-15x1-minhop.yaml");
	print_message("# minhop route: %lu allocations swept\n", n);
	assert_true(n > 3);
}

/* ---- parsers ---------------------------------------------------------------- */

static int
parse_one(const void *arg, struct ft_error *err)
{
	struct ft_obs_set obs;
	struct ft_run run;
	int rc;

	ft_obs_set_init(&obs);
	ft_run_init(&run, FT_SOURCE_IMPORT, "import");
	rc = ft_parse_file(arg, NULL, &obs, &run, err);
	ft_obs_set_release(&obs);
	ft_run_release(&run);
	return rc;
}

static void
sweep_parser_fixtures(const char *dir, size_t min_swept)
{
	char **files = list_files(dir, ".txt", "");
	size_t i, nswept = 0;

	for (i = 0; files[i]; i++) {
		struct ft_error err = { 0 };
		unsigned long n;

		ft__alloc_fail_at(0);
		if (parse_one(files[i], &err) != 0)
			continue; /* inputs that do not parse have their own tests */
		n = sweep(files[i], parse_one, files[i]);
		print_message("# %s: %lu allocations swept\n", files[i], n);
		assert_true(n >= 1);
		nswept++;
	}
	free_list(files);
	if (nswept < min_swept)
		fail_msg("%s: %zu fixtures parse, expected at least %zu", dir, nswept, min_swept);
}

static void
test_oom_parse_nccl_tests(void **state)
{
	sweep_parser_fixtures("tests/fixtures/nccl-tests", 4);
}

static void
test_oom_parse_ibstat(void **state)
{
	sweep_parser_fixtures("tests/fixtures/ibstat", 4);
}

/* Every other parser with fixtures of its own name under tests/fixtures/. */
static void
test_oom_parse_all(void **state)
{
	size_t i, ndirs = 0;

	for (i = 0; i < ft_parser_count(); i++) {
		const char *name = ft_parser_at(i)->name;
		char dir[256];
		DIR *d;

		if (!strcmp(name, "nccl-tests") || !strcmp(name, "ibstat"))
			continue;
		snprintf(dir, sizeof(dir), "tests/fixtures/%s", name);
		d = opendir(dir);
		if (!d)
			continue;
		closedir(d);
		sweep_parser_fixtures(dir, 1);
		ndirs++;
	}
	assert_true(ndirs >= 10);
}

/* ---- the archive ------------------------------------------------------------- */

struct archive_case {
	char path[256];
	const struct ft_run *run;
	const struct ft_obs_set *obs;
	const struct ft_fingerprint *fp;
};

static void
remove_db(const char *path)
{
	static const char *const tails[] = { "", "-wal", "-shm", "-journal" };
	char p[300];

	for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", path, tails[i]);
		unlink(p);
	}
}

static int
archive_round_trip(const void *arg, struct ft_error *err)
{
	const struct archive_case *c = arg;
	struct ft_archive *ar = NULL;
	struct ft_archive_record rec;
	struct ft_vec list;
	int64_t id = 0;
	int rc;

	remove_db(c->path);
	rc = ft_archive_open(c->path, &ar, err);
	if (rc < 0) {
		if (ar)
			fail_msg("ft_archive_open failed (%s) but set *out", ft_err_name(rc));
		return rc;
	}
	ft_vec_init(&list, sizeof(struct ft_archive_info));
	ft_archive_record_init(&rec);
	rc = ft_archive_save(ar, c->run, c->obs, NULL, 0, c->fp, &id, err);
	if (rc == 0)
		rc = ft_archive_list(ar, NULL, &list, err);
	if (rc == 0 && list.len != 1)
		fail_msg("archive list: %zu runs, expected 1", list.len);
	if (rc == 0)
		rc = ft_archive_load(ar, id, &rec, err);
	if (rc == 0 && (rec.run.rows.len != c->run->rows.len || rec.obs.v.len != c->obs->v.len))
		fail_msg("archive load: %zu rows and %zu observations, expected %zu and %zu",
		         rec.run.rows.len, rec.obs.v.len, c->run->rows.len, c->obs->v.len);
	ft_archive_record_release(&rec);
	ft_vec_release(&list);
	ft_archive_close(ar);
	return rc;
}

/* The archive's other ways: a baseline, export, import of that export, compare. */
static int
archive_baseline_export(const void *arg, struct ft_error *err)
{
	const struct archive_case *c = arg;
	struct ft_archive *ar = NULL;
	struct ft_vec records, ids;
	struct ft_strbuf text;
	struct ft_compare cmp;
	struct ft_compare_opts opts;
	const struct ft_run *base[1];
	int64_t id = 0;
	int rc;

	remove_db(c->path);
	rc = ft_archive_open(c->path, &ar, err);
	if (rc < 0)
		return rc;
	ft_vec_init(&records, sizeof(struct ft_archive_record));
	ft_vec_init(&ids, sizeof(int64_t));
	ft_strbuf_init(&text);
	memset(&cmp, 0, sizeof(cmp));
	ft_compare_opts_init(&opts);
	rc = ft_archive_save(ar, c->run, c->obs, NULL, 0, c->fp, &id, err);
	if (rc == 0)
		rc = ft_archive_baseline_add(ar, "ref", id, err);
	if (rc == 0)
		rc = ft_archive_baseline_load(ar, "ref", &records, err);
	if (rc == 0)
		rc = ft_archive_export(ar, &id, 1, &text, FT_EXPORT_STABLE, err);
	if (rc == 0)
		rc = ft_archive_import(ar, text.buf, text.len, "export.json", &ids, err);
	if (rc == 0 && (records.len != 1 || ids.len != 1))
		fail_msg("baseline of %zu runs and %zu imported, expected 1 and 1", records.len,
		         ids.len);
	if (rc == 0) {
		base[0] = &FT_VEC_AT(&records, struct ft_archive_record, 0).run;
		rc = ft_compare_runs(c->run, base, 1, &opts, &cmp, err);
	}
	if (rc == 0 && cmp.count[FT_VERDICT_UNCHANGED] != c->run->rows.len)
		fail_msg("compare with itself: %zu of %zu rows unchanged",
		         cmp.count[FT_VERDICT_UNCHANGED], c->run->rows.len);
	ft_compare_release(&cmp);
	ft_strbuf_release(&text);
	ft_vec_release(&ids);
	ft_archive_records_release(&records);
	ft_archive_close(ar);
	return rc;
}

static void
test_oom_archive(void **state)
{
	struct archive_case c;
	struct ft_obs_set obs;
	struct ft_run run;
	struct ft_fingerprint fp;
	struct ft_error err = { 0 };
	const char *tmp = getenv("TMPDIR");
	unsigned long n;

	snprintf(c.path, sizeof(c.path), "%s/ft-oom-%ld.db", tmp && *tmp ? tmp : "/tmp",
	         (long)getpid());
	ft_obs_set_init(&obs);
	ft_run_init(&run, FT_SOURCE_IMPORT, "import");
	ft_fingerprint_init(&fp);
	assert_int_equal(ft_parse_file("tests/fixtures/nccl-tests/"
	                               "h100-2node-16gpu-all-reduce-same-cluster-baseline.txt",
	                               NULL, &obs, &run, &err),
	                 0);
	assert_int_equal(ft_parse_file("tests/fixtures/ibstat/"
	                               "cx6-hdr200-active-plus-port-disabled-lid65535-excerpt.txt",
	                               NULL, &obs, &run, &err),
	                 0);
	assert_true(run.rows.len > 0 && obs.v.len > 0);
	assert_int_equal(ft_fingerprint_set(&fp, "host.name", "node01"), 0);
	assert_int_equal(ft_fingerprint_set(&fp, "nccl.version", "2.21.5"), 0);
	c.run = &run;
	c.obs = &obs;
	c.fp = &fp;

	n = sweep("archive open+save+list+load", archive_round_trip, &c);
	print_message("# archive: %lu allocations swept\n", n);
	assert_true(n >= 10);
	n = sweep("archive baseline+export+import+compare", archive_baseline_export, &c);
	print_message("# archive baseline, export, import, compare: %lu allocations swept\n", n);
	assert_true(n >= 20);
	remove_db(c.path);
	ft_fingerprint_release(&fp);
	ft_obs_set_release(&obs);
	ft_run_release(&run);
}

/*
 * The model's all-to-all at NCCL's window (model/eval.c a2a_window()): its slots, every
 * local rank's view (ft_model_p2p_share_slots_rank()), are allocated; a failure is an
 * error, not a window that does not bind. Presets at the newest release (one view:
 * DGX H100; a view a local rank: 6 ranks a node, three schedule groups of 2) and
 * v2.27.7 (one view).
 */
struct model_case {
	const char *spec;
	uint32_t ppn, version;
};

static int
oom_model_a2a(const void *arg, struct ft_error *err)
{
	const struct model_case *mc = arg;
	struct ft_cluster_spec s;
	struct ft_model_query q;
	struct ft_model_result r;
	int rc = ft_spec_resolve(mc->spec, &s, err);

	if (rc < 0)
		return rc;
	ft_model_query_init(&q, FT_OP_ALLTOALL, 256u << 20);
	q.ppn = mc->ppn;
	q.nccl_version = mc->version;
	q.force_algo = true;
	q.algo = FT_ALGO_DIRECT;
	return ft_model_eval(&s, &q, &r, err);
}

static void
test_oom_model_a2a(void **state)
{
	static const struct model_case cases[] = {
		{ "dgx-h100:4", 0, 0 },
		{ "dgx-h100:3", 6, 22807 },
		{ "dgx-h100:3", 6, 22707 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char what[64];
		unsigned long n;

		snprintf(what, sizeof(what), "model a2a %s, %u a node, at %u", cases[i].spec,
		         cases[i].ppn, cases[i].version);
		n = sweep(what, oom_model_a2a, &cases[i]);
		/* the slots and each view's walk allocate */
		assert_true(n > 0);
	}
}

/*
 * A calibration queries the model at every measured size on the same node and job: an
 * all-to-all's or a send/recv's shared links are laid out once, in the caller's model cache
 * or the fit's own (ft_model_calibrate()), and `fabtune model --calibrate` keeps one for all
 * its files (ft_workflow_model_calibrate_write()). That cache is the one allocation a fit
 * falls back from: uncached, the same constants and points to the bit; every other failure
 * is FT_ENOMEM. The H20 all-to-all excerpt on 2 HGX H200 at 2 ranks a node (golden 1206)
 * and the 1 x 8 A100 send/recv whose first size is a one-off (its mark, mark_one_off(),
 * once fell to none without memory: another fit), each alone and written twice with its
 * block (whose own appends were not checked: a block cut short). (With the fit uncached,
 * none fell back.)
 */
struct calib_case {
	const char *spec, *file;
	enum ft_op op;
	uint32_t ppn;
	const struct ft_cluster_spec *cs;
	const struct ft_run *run;          /* the measured rows (ft_model_calibrate()) */
	const struct ft_model_calib *base; /* the unfailed fit, or NULL */
	const char *base_text;             /* the unfailed write, or NULL */
};

static void
calib_query(const struct calib_case *cc, struct ft_model_query *q)
{
	ft_model_query_init(q, cc->op, 0);
	q->ngpus = ft_run_row(cc->run, 0)->nranks;
	q->ppn = cc->ppn;
}

static int
oom_calibrate(const void *arg, struct ft_error *err)
{
	const struct calib_case *cc = arg;
	struct ft_model_query q;
	struct ft_model_calib c;
	int rc;

	calib_query(cc, &q);
	rc = ft_model_calibrate(cc->cs, &q, cc->run, &c, err);
	if (rc < 0)
		return rc;
	if (cc->base &&
	    (c.npoints != cc->base->npoints || c.n_one_off != cc->base->n_one_off ||
	     c.fixed_s != cc->base->fixed_s || c.lat_scale != cc->base->lat_scale ||
	     c.bw_scale != cc->base->bw_scale || c.loo_max_err != cc->base->loo_max_err ||
	     memcmp(c.pts, cc->base->pts, c.npoints * sizeof(*c.pts)) != 0))
		rc = ft_error_set(err, FT_EINVAL, "another fit: %g + %g lat + %g bw, %zu one-off",
		                  c.fixed_s, c.lat_scale, c.bw_scale, c.n_one_off);
	ft_model_calib_release(&c);
	return rc;
}

static int
oom_calibrate_write(const void *arg, struct ft_error *err)
{
	const struct calib_case *cc = arg;
	const char *const files[] = { cc->file, cc->file };
	struct ft_model_query q;
	struct ft_strbuf sb;
	int rc;

	calib_query(cc, &q);
	ft_strbuf_init(&sb);
	rc = ft_workflow_model_calibrate_write(cc->cs, &q, false, files, 2, false, &sb, err);
	/* the text's own appends: a short text the caller refuses (cli_finish()) */
	if (rc == 0 && sb.oom)
		rc = ft_error_set(err, FT_ENOMEM, "out of memory for the text");
	if (rc == 0 && cc->base_text && strcmp(sb.buf, cc->base_text) != 0)
		rc = ft_error_set(err, FT_EINVAL, "another write");
	ft_strbuf_release(&sb);
	return rc;
}

static void
test_oom_model_calibrate(void **state)
{
	static struct calib_case cases[] = {
		{ "hgx-h200:2",
		  "tests/fixtures/nccl-tests/"
		  "h20-vm-2node-alltoall-vendor-plugin-50gbs-excerpt.txt",
		  FT_OP_ALLTOALL, 2 },
		{ "dgx-a100", "tests/fixtures/nccl-tests/a100-1x8-sendrecv-g8-128m-1g.txt",
		  FT_OP_SENDRECV, 0 },
	};

	(void)state;
	for (size_t i = 0; i < FT_ARRAY_SIZE(cases); i++) {
		struct calib_case *cc = &cases[i];
		struct ft_cluster_spec spec;
		struct ft_model_calib base;
		struct ft_model_query q;
		struct ft_error err = { 0 };
		struct ft_obs_set obs;
		struct ft_run run;
		const char *const files[] = { cc->file, cc->file };
		struct ft_strbuf text;
		char what[96];
		unsigned long n;

		assert_int_equal(ft_spec_resolve(cc->spec, &spec, &err), 0);
		ft_obs_set_init(&obs);
		ft_run_init(&run, FT_SOURCE_IMPORT, "nccl-tests");
		assert_int_equal(ft_parse_file(cc->file, "nccl-tests", &obs, &run, &err), 0);
		cc->cs = &spec;
		cc->run = &run;
		cc->base = NULL;
		cc->base_text = NULL;
		calib_query(cc, &q);
		if (ft_model_calibrate(&spec, &q, &run, &base, &err) < 0)
			fail_msg("%s: calibrate: %s", cc->file, err.msg);
		assert_true(base.npoints >= 4);
		cc->base = &base;
		snprintf(what, sizeof(what), "calibrate %s on %s", ft_op_name(cc->op), cc->spec);
		n = sweep_fallback(what, oom_calibrate, cc, 1);
		print_message("# %s: %lu allocations swept (%zu one-off)\n", what, n,
		              base.n_one_off);
		/* the unfailed write's text, which every write that ends must give */
		ft_strbuf_init(&text);
		assert_int_equal(ft_workflow_model_calibrate_write(&spec, &q, false, files, 2,
		                                                   false, &text, &err),
		                 0);
		assert_false(text.oom);
		assert_non_null(strstr(text.buf, "calibration:"));
		cc->base_text = text.buf;
		snprintf(what, sizeof(what), "calibrate %s on %s, two files written",
		         ft_op_name(cc->op), cc->spec);
		n = sweep_fallback(what, oom_calibrate_write, cc, 1);
		print_message("# %s: %lu allocations swept\n", what, n);
		ft_strbuf_release(&text);
		ft_model_calib_release(&base);
		ft_run_release(&run);
		ft_obs_set_release(&obs);
	}
}

/*
 * The spine count under ECMP (model/spine.c) allocates each leaf's flows, the leaves' CDFs
 * and the exact count's series: a failure is FT_ENOMEM, never a share of 1 (no spine term,
 * a faster time). 32 DGX H100 without PXN on a rail-optimized fat-tree at 2:1, the fabric
 * routed by ECMP: a direct all-to-all (a2a_spine_factor) and a send/recv (sr_spine_factor).
 */
struct spine_case {
	const struct ft_cluster_spec *spec;
	enum ft_op op;
};

static int
oom_model_spine(const void *arg, struct ft_error *err)
{
	const struct spine_case *sc = arg;
	struct ft_model_query q;
	struct ft_model_result r;

	ft_model_query_init(&q, sc->op, 256u << 20);
	if (sc->op == FT_OP_ALLTOALL) {
		q.force_algo = true;
		q.algo = FT_ALGO_DIRECT;
	}
	return ft_model_eval(sc->spec, &q, &r, err);
}

static void
test_oom_model_spine(void **state)
{
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };
	struct ft_model_query q;
	struct ft_model_result r;
	struct spine_case c = { &s, FT_OP_ALLTOALL };
	unsigned long n;

	(void)state;
	assert_int_equal(
	        ft_spec_load_file("tests/fixtures/spec/spine-rail-2to1-pxn-off.yaml", &s, &err), 0);
	s.fabric.routing = FT_ROUTING_ECMP;
	/* the count binds on this fabric: its allocations are on the path swept */
	ft_model_query_init(&q, FT_OP_ALLTOALL, 256u << 20);
	q.force_algo = true;
	q.algo = FT_ALGO_DIRECT;
	assert_int_equal(ft_model_eval(&s, &q, &r, &err), 0);
	assert_string_equal(r.bottleneck, "spine");
	ft_model_query_init(&q, FT_OP_SENDRECV, 256u << 20);
	assert_int_equal(ft_model_eval(&s, &q, &r, &err), 0);
	assert_string_equal(r.bottleneck, "spine");
	n = sweep("model spine a2a, ECMP", oom_model_spine, &c);
	assert_true(n >= 3); /* the leaves' flows, the CDF and its max, a leaf's series */
	c.op = FT_OP_SENDRECV;
	n = sweep("model spine sendrecv, ECMP", oom_model_spine, &c);
	assert_true(n >= 3);
}

/*
 * An NVLS tree's fill across nodes walks NCCL's double binary tree (model/dtree.c
 * ft__model_dtree_fill_load(), five arrays): a failed allocation there is FT_ENOMEM out of
 * ft_model_eval(), never the time without the walk (the hops between nodes then priced at
 * the stages' rate: the figures the code before the change gave with the walk's first
 * allocation failed are in docs/internals/model-log.md, "an NVLS tree's fill walk out
 * of memory"). 4 DGX H100, all-reduce 16 MiB on the NVLS tree,
 * Simple (two loops, the fill walked for the ramp); past the last allocation the unfailed
 * time and ramp to the bit.
 */
struct nvls_tree_case {
	struct ft_cluster_spec spec;
	double time_s, ramp_s; /* the unfailed run's; 0: not known yet */
};

static int
oom_model_nvls_tree(const void *arg, struct ft_error *err)
{
	const struct nvls_tree_case *c = arg;
	struct ft_model_query q;
	struct ft_model_result r;
	int rc;

	ft_model_query_init(&q, FT_OP_ALL_REDUCE, 16u << 20);
	q.force_algo = true;
	q.algo = FT_ALGO_NVLS_TREE;
	q.force_proto = true;
	q.proto = FT_PROTO_SIMPLE;
	rc = ft_model_eval(&c->spec, &q, &r, err);
	if (rc == 0 && c->time_s > 0 && (r.time_s != c->time_s || r.pipe.ramp_s != c->ramp_s))
		return ft_error_set(err, FT_EINVAL,
		                    "%.9g s, ramp %.9g s; %.9g, %.9g without a failure", r.time_s,
		                    r.pipe.ramp_s, c->time_s, c->ramp_s);
	return rc;
}

/* ft_model_pipe_terms() of the same: a failed walk is FT_ENOMEM with its message in @err
 * ("model: NCCL's pipeline: out of memory") and its terms all zero; past the last
 * allocation the unfailed ramp to the bit. */
struct nvls_tree_terms {
	struct ft_model_links l;
	double ramp_s;
};

static int
oom_model_nvls_tree_terms(const void *arg, struct ft_error *err)
{
	const struct nvls_tree_terms *c = arg;
	struct ft_model_pipeline pl;
	int rc = ft_model_pipe_terms(&c->l, FT_OP_ALL_REDUCE, FT_ALGO_NVLS_TREE, FT_PROTO_SIMPLE,
	                             16u << 20, &pl, err);

	if (rc == FT_ENOMEM && (strcmp(err->msg, "model: NCCL's pipeline: out of memory") != 0 ||
	                        pl.ramp_s != 0 || pl.nchannels != 0))
		return ft_error_set(err, FT_EINVAL, "'%s', ramp %.9g s, %u channels", err->msg,
		                    pl.ramp_s, pl.nchannels);
	if (rc == 0 && pl.ramp_s != c->ramp_s)
		return ft_error_set(err, FT_EINVAL, "ramp %.9g s; %.9g without a failure",
		                    pl.ramp_s, c->ramp_s);
	return rc;
}

static void
test_oom_model_nvls_tree(void **state)
{
	struct nvls_tree_terms terms;
	struct nvls_tree_case c = { 0 };
	struct ft_error err = { 0 };
	struct ft_model_query q;
	struct ft_model_result r;
	unsigned long n;

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100:4", &c.spec, &err), 0);
	ft_model_query_init(&q, FT_OP_ALL_REDUCE, 16u << 20);
	q.force_algo = true;
	q.algo = FT_ALGO_NVLS_TREE;
	q.force_proto = true;
	q.proto = FT_PROTO_SIMPLE;
	assert_int_equal(ft_model_eval(&c.spec, &q, &r, &err), 0);
	assert_int_equal(r.algo, FT_ALGO_NVLS_TREE);
	assert_int_equal(r.pipe.loops, 2);
	assert_true(r.pipe.ramp_s > 0);
	c.time_s = r.time_s;
	c.ramp_s = r.pipe.ramp_s;
	n = sweep("model nvls tree fill, 4 x DGX H100", oom_model_nvls_tree, &c);
	print_message("# nvls tree fill: %lu allocations swept\n", n);
	assert_true(n >= 5); /* the walk's five arrays */

	/* the public pipeline terms on the links of the same 32 ranks */
	assert_int_equal(ft_model_links_get(&c.spec, 32, 4, 8, &terms.l, &err), 0);
	terms.ramp_s = 0;
	{
		struct ft_model_pipeline pl;

		assert_int_equal(ft_model_pipe_terms(&terms.l, FT_OP_ALL_REDUCE, FT_ALGO_NVLS_TREE,
		                                     FT_PROTO_SIMPLE, 16u << 20, &pl, &err),
		                 0);
		assert_int_equal(pl.loops, 2);
		assert_true(pl.ramp_s > 0);
		terms.ramp_s = pl.ramp_s;
	}
	n = sweep("model nvls tree pipeline terms, 4 x DGX H100", oom_model_nvls_tree_terms,
	          &terms);
	assert_true(n >= 5);
}

/*
 * ft_model_p2p_share_slots() allocates its walk: a failure is FT_ENOMEM with ch->slots as
 * it was, never those slots passed off as the send's count. 3 nodes of 6 at v2.28.7, 4
 * parts a send on 4 channels: rank 0's send 8 ranks ahead is one of 6 network subs of its
 * batch, 16 / 6 = 2 slots (by hand in test_model.c, test_p2p_share_slots_every_rank).
 */
static void
test_oom_share_slots(void **state)
{
	unsigned long n;

	(void)state;
	for (n = 1;; n++) {
		struct ft_model_p2p_chunking ch = { .channels = 4,
			                            .slots = 8,
			                            .chunk_bytes = 1,
			                            .nccl_version = 22807 };
		bool fired;
		int rc;

		ft__alloc_fail_at(n);
		rc = ft_model_p2p_share_slots(&ch, 4, 3, 6, 8);
		fired = ft__alloc_failed();
		ft__alloc_fail_at(0);
		if (!fired) {
			assert_int_equal(rc, 2);
			assert_int_equal(ch.slots, 2);
			break;
		}
		if (rc != FT_ENOMEM)
			fail_msg("allocation %lu failed: %d", n, rc);
		assert_int_equal(ch.slots, 8);
	}
	/* the row and the walk's six buffers */
	assert_true(n > 1 + 6);
}

/* ---- the simulator ---------------------------------------------------------- */

/*
 * Whether a file is a scenario (spec/scenario.c ft_scenario_sniff()) reads it whole: out of
 * memory there is FT_ENOMEM, never "not a scenario", which read a scenario file as a cluster
 * spec (its cluster resolved all the same: a success with an allocation failed) or refused
 * `fabtune sim FILE` ("not a scenario", FT_EINVAL); a cluster spec file then resolved as
 * one, a success with an allocation failed too. Swept: the cluster of a scenario file and
 * of a cluster spec file (ft_scenario_cluster_resolve(), what sim --op and the --spec of
 * diagnose and advise take), and the scenario `fabtune sim FILE` runs
 * (ft_sim_args_scenario()).
 */
static int
oom_scenario_cluster(const void *arg, struct ft_error *err)
{
	struct ft_cluster_spec s;

	return ft_scenario_cluster_resolve(arg, &s, err);
}

static int
oom_sim_args_scenario(const void *arg, struct ft_error *err)
{
	struct ft_sim_args a;
	struct ft_scenario *sc = NULL;
	int rc;

	ft_sim_args_init(&a);
	rc = ft_sim_args_scenario(&a, arg, &sc, err);
	ft_scenario_free(sc);
	return rc;
}

static void
test_oom_scenario_sniff(void **state)
{
	static const char scenario[] = "scenarios/degraded-link-ring.yaml";
	static const char spec[] = "examples/mixed-gpus.yaml";
	unsigned long n;

	(void)state;
	n = sweep("the cluster of a scenario", oom_scenario_cluster, scenario);
	print_message("# the cluster of %s: %lu allocations swept\n", scenario, n);
	assert_true(n > 1); /* the sniff's read, then the scenario's */
	n = sweep("the cluster of a spec file", oom_scenario_cluster, spec);
	print_message("# the cluster of %s: %lu allocations swept\n", spec, n);
	assert_true(n > 1);
	n = sweep("sim FILE", oom_sim_args_scenario, scenario);
	print_message("# sim %s: %lu allocations swept\n", scenario, n);
	assert_true(n > 1);
}

/* A 4-GPU and a 2-GPU node (two node groups) and one job, its ops to follow. */
#define SMALL_MIXED                                                           \
	"name: t\n"                                                           \
	"cluster:\n"                                                          \
	"  name: small-mixed\n"                                               \
	"  nodes:\n"                                                          \
	"    - { preset: dgx-h100, count: 1, gpus: 4, nics: { count: 2 } }\n" \
	"    - { preset: dgx-h100, count: 1, gpus: 2, nics: { count: 1 } }\n" \
	"  fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n"      \
	"jobs:\n"                                                             \
	"  - name: a\n"                                                       \
	"    ops:\n"

/* One run of a scenario on an engine, and the first op's time of the run without a
 * failure (0: not known yet). */
struct sim_case {
	const struct ft_scenario *sc;
	const char *engine;
	double base_us;
};

/* The run; its first op's time, where it ends, must be the unfailed run's, to the bit. */
static int
sim_run(const void *arg, struct ft_error *err)
{
	const struct sim_case *c = arg;
	struct ft_sim_overrides ov;
	struct ft_sim_report rep;
	double t_us = 0;
	int rc;

	ft_sim_overrides_init(&ov);
	ov.engine = c->engine;
	ft_sim_report_init(&rep);
	rc = ft_scenario_run(c->sc, &ov, NULL, &rep, err);
	if (rc == 0 && ft_run_nrows(&rep.run) > 0)
		t_us = ft_run_row(&rep.run, 0)->time_us;
	ft_sim_report_release(&rep);
	if (rc == 0 && !(t_us > 0))
		return ft_error_set(err, FT_EINVAL, "no time");
	if (rc == 0 && c->base_us > 0 && t_us != c->base_us)
		return ft_error_set(err, FT_EINVAL, "%.9f us, %.9f without a failure", t_us,
		                    c->base_us);
	return rc;
}

/*
 * Out of memory anywhere in a run is the run's error, never a time: on node groups every
 * reading of the model's links takes an allocation (model/links.c), and the simulator's
 * readings fell to a default on any error (the tuner's pick to Simple, the caps, the tree
 * correction and NCCL's pipeline to none, the net step to 0), the run going on with another
 * time. On a 4-GPU and a 2-GPU node (two node groups, few ranks: a short sweep), every
 * allocation of each run below fails in turn: FT_ENOMEM, or, past the run's last one, the
 * unfailed run's time to the bit. With the links' and the tuner's out of memory swallowed
 * again, the flow engine's ring all-reduce 1 MiB took 100.56 us with its allocation 42
 * failed (77.37 without), the analytic engine's 187.31 with its 28th (141.07). The flow,
 * packet, analytic and ideal engines; a ring all-reduce, the tuner's pick, a tree on
 * forced channels, an all-to-all, a send/recv, the packet engine's ring and its tree on
 * NCCL's channels (its pipeline the model's, pkt_tree.c nccl_fill()), its LL chain
 * broadcast on NCCL's launched channels (pkt_tree.c chain_channels(), chain_lines()) and
 * its LL ring all-reduce, the model's pipeline read for its channels (pkt_nccl.c
 * ring_reps()); the analytic engine's all-to-all, which lays out each node group's shared
 * links once in the model cache. The run keeps one cache for the tuner's pick of every op
 * (ft__sim_pick_algo_net()) and the analytic engine's queries (ft_sim_cfg.model_cache):
 * its allocation is the one a run on any engine falls back from (uncached, to the same
 * time; sweep_fallback()); the analytic engine makes none of its own beside it. (With the
 * pick uncached, a run on the flow, packet or ideal engine fell back from none, and the
 * analytic engine's own cache was its one.)
 */
static void
test_oom_sim(void **state)
{
	static const struct {
		const char *engine, *op;
	} cases[] = {
		{ "flow", "op: all_reduce, size: 1MiB, algo: ring" },
		{ "flow", "op: all_reduce, size: 256KiB" },
		{ "flow", "op: alltoall, size: 64KiB" },
		{ "flow", "op: all_reduce, size: 256KiB, algo: tree, channels: 4" },
		{ "flow", "op: sendrecv, size: 64KiB" },
		{ "packet", "op: all_reduce, size: 64KiB, algo: ring, proto: simple" },
		{ "packet", "op: all_reduce, size: 64KiB, algo: tree, proto: simple" },
		{ "packet", "op: broadcast, size: 64KiB, algo: ring, proto: ll" },
		{ "packet", "op: all_reduce, size: 1MiB, algo: ring, proto: ll" },
		{ "packet", "op: alltoall, size: 16KiB" },
		{ "analytic", "op: all_reduce, size: 1MiB, algo: ring" },
		{ "analytic", "op: alltoall, size: 64KiB" },
		{ "ideal", "op: all_reduce, size: 1MiB, algo: ring" },
	};
	size_t c;

	(void)state;
	for (c = 0; c < FT_ARRAY_SIZE(cases); c++) {
		struct sim_case sc = { .engine = cases[c].engine };
		struct ft_scenario *s = NULL;
		struct ft_error err = { 0 };
		char text[1024], what[160];
		unsigned long n;

		snprintf(text, sizeof(text), SMALL_MIXED "      - {%s}\n", cases[c].op);
		if (ft_scenario_load_buffer(text, strlen(text), "t.yaml", &s, &err) < 0)
			fail_msg("%s: %s", cases[c].op, err.msg);
		sc.sc = s;
		/* the unfailed run's time, which every run that ends must give */
		{
			struct ft_sim_overrides ov;
			struct ft_sim_report rep;

			ft_sim_overrides_init(&ov);
			ov.engine = cases[c].engine;
			ft_sim_report_init(&rep);
			if (ft_scenario_run(s, &ov, NULL, &rep, &err) < 0)
				fail_msg("%s on %s: %s", cases[c].op, cases[c].engine, err.msg);
			assert_true(ft_run_nrows(&rep.run) > 0);
			sc.base_us = ft_run_row(&rep.run, 0)->time_us;
			ft_sim_report_release(&rep);
			assert_true(sc.base_us > 0);
		}
		snprintf(what, sizeof(what), "%s on %s", cases[c].op, cases[c].engine);
		/* the run's model cache: without it, the same times uncached */
		n = sweep_fallback(what, sim_run, &sc, 1);
		print_message("# %s: %lu allocations swept\n", what, n);
		assert_true(n > 0);
		ft_scenario_free(s);
	}
}

/*
 * A phase the flow engine runs in chunks counts its stages first (engine_flow.c
 * phase_stages(), an allocation): out of memory there is the run's error, never the phase
 * run whole in place of its pipeline. A forced CollNetChain all-reduce of 1 MiB on two
 * 2-GPU DGX H100 with SHARP, every allocation failed in turn: FT_ENOMEM, or past the last
 * one the unfailed time to the bit (and so where the run's model cache failed, which it runs
 * without). (With the count's failure read as "no pipeline", the run ended in another
 * time.)
 */
static void
test_oom_sim_chunked_phase(void **state)
{
	static const char text[] =
	        "name: t\n"
	        "cluster:\n"
	        "  name: sharp-2x2\n"
	        "  nodes: { preset: dgx-h100, count: 2, gpus: 2, nics: { count: 2 } }\n"
	        "  fabric: { kind: rail-fat-tree, link: ndr, sharp: true }\n"
	        "jobs:\n"
	        "  - name: a\n"
	        "    ops:\n"
	        "      - {op: all_reduce, size: 1MiB, algo: collnet_chain}\n";
	struct sim_case sc = { .engine = "flow" };
	struct ft_scenario *s = NULL;
	struct ft_error err = { 0 };
	struct ft_sim_overrides ov;
	struct ft_sim_report rep;
	unsigned long n;

	(void)state;
	if (ft_scenario_load_buffer(text, strlen(text), "t.yaml", &s, &err) < 0)
		fail_msg("%s", err.msg);
	sc.sc = s;
	ft_sim_overrides_init(&ov);
	ov.engine = sc.engine;
	ft_sim_report_init(&rep);
	if (ft_scenario_run(s, &ov, NULL, &rep, &err) < 0)
		fail_msg("collnet_chain on flow: %s", err.msg);
	assert_true(ft_run_nrows(&rep.run) > 0);
	assert_string_equal(ft_run_row(&rep.run, 0)->algo, "collnet_chain");
	sc.base_us = ft_run_row(&rep.run, 0)->time_us;
	ft_sim_report_release(&rep);
	assert_true(sc.base_us > 0);
	n = sweep_fallback("a forced collnet_chain on flow", sim_run, &sc, 1);
	print_message("# a forced collnet_chain on flow: %lu allocations swept\n", n);
	assert_true(n > 0);
	ft_scenario_free(s);
}

/*
 * A lossy packet run keeps its QPs' sequences across their messages (engine_packet.c,
 * struct pk_qpseq: a table per flow id, grown as messages are linked, in a ring built
 * lazily as in one built whole): every allocation of a ring all-reduce over two nodes on
 * a fabric with bit errors failed in turn: FT_ENOMEM, or past the last one (and where the
 * run's model cache failed) the unfailed time to the bit.
 */
static void
test_oom_sim_lossy(void **state)
{
	static const char text[] =
	        "name: t\n"
	        "cluster:\n"
	        "  name: lossy-2x2\n"
	        "  nodes: { preset: dgx-h100, count: 2, gpus: 2, nics: { count: 1 } }\n"
	        "  fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n"
	        "packet: { ber: 1e-6, retransmit_timeout: 200us }\n"
	        "jobs:\n"
	        "  - name: a\n"
	        "    ops:\n"
	        "      - {op: all_reduce, size: 256KiB, algo: ring, proto: simple}\n";
	struct sim_case sc = { .engine = "packet" };
	struct ft_scenario *s = NULL;
	struct ft_error err = { 0 };
	struct ft_sim_overrides ov;
	struct ft_sim_report rep;
	unsigned long n;

	(void)state;
	if (ft_scenario_load_buffer(text, strlen(text), "t.yaml", &s, &err) < 0)
		fail_msg("%s", err.msg);
	sc.sc = s;
	ft_sim_overrides_init(&ov);
	ov.engine = sc.engine;
	ft_sim_report_init(&rep);
	if (ft_scenario_run(s, &ov, NULL, &rep, &err) < 0)
		fail_msg("lossy ring on packet: %s", err.msg);
	assert_true(ft_run_nrows(&rep.run) > 0);
	sc.base_us = ft_run_row(&rep.run, 0)->time_us;
	ft_sim_report_release(&rep);
	assert_true(sc.base_us > 0);
	n = sweep_fallback("a lossy ring on packet", sim_run, &sc, 1);
	print_message("# a lossy ring on packet (%.2f us): %lu allocations swept\n", sc.base_us, n);
	assert_true(n > 0);
	ft_scenario_free(s);
}

/*
 * A forced nvls across nodes without fabric.sharp is refused (FT_EINVAL), the message
 * listing what the tuner runs here instead (run.c runs_here(), which asks the tuner on
 * node groups, an allocation each). Every allocation of the run failed in turn: FT_ENOMEM,
 * never the refusal with a shorter list nor, where the NVLS tree's fill is walked
 * (model/dtree.c), the refusal priced without it; past the last one, and where the run's
 * model cache failed (the list then read uncached), the refusal with the whole list. (The
 * list's readings once fell to "not here" on any error, and the walk to no fill.)
 */
static void
test_oom_sim_runs_here(void **state)
{
	static const char text[] = SMALL_MIXED "      - {op: all_reduce, size: 1MiB, algo: nvls}\n";
	struct ft_scenario *s = NULL;
	struct ft_error err = { 0 };
	char want[FT_ERROR_MSG_MAX];
	unsigned long n, enomem = 0, fell = 0;

	(void)state;
	assert_int_equal(ft_scenario_load_buffer(text, sizeof(text) - 1, "t.yaml", &s, &err), 0);
	want[0] = '\0';
	for (n = 0; n < SWEEP_MAX; n++) {
		struct ft_sim_overrides ov;
		struct ft_sim_report rep;
		bool fired;
		int rc;

		ft_sim_overrides_init(&ov);
		ov.engine = "flow";
		ft_sim_report_init(&rep);
		memset(&err, 0, sizeof(err));
		ft__alloc_fail_at(n);
		rc = ft_scenario_run(s, &ov, NULL, &rep, &err);
		fired = ft__alloc_failed();
		ft__alloc_fail_at(0);
		ft_sim_report_release(&rep);
		if (n == 0) {
			/* the refusal, with what runs here */
			assert_int_equal(rc, FT_EINVAL);
			assert_non_null(strstr(err.msg, "fabric.sharp"));
			assert_non_null(strstr(err.msg, "ring"));
			ft_strlcpy(want, err.msg, sizeof(want));
			continue;
		}
		if (!fired) {
			assert_int_equal(rc, FT_EINVAL);
			assert_string_equal(err.msg, want);
			break;
		}
		/* the run's model cache, the one allocation it runs without */
		if (rc == FT_EINVAL && strcmp(err.msg, want) == 0 && fell++ == 0)
			continue;
		if (rc != FT_ENOMEM || err.code != FT_ENOMEM)
			fail_msg("allocation %lu failed: %s (%s)", n, ft_err_name(rc), err.msg);
		enomem++;
	}
	print_message("# nvls refused: %lu allocations swept, %lu out of memory\n", n - 1, enomem);
	/* (every failed allocation before the last was FT_ENOMEM but the cache's: the loop
	 * fails otherwise) */
	assert_true(n > 1 && n < SWEEP_MAX);
	assert_int_equal(fell, 1);
	ft_scenario_free(s);
}

/* The injector itself: the nth allocation fails, once, and is reported. */
static void
test_injector(void **state)
{
	void *a, *b, *c;

	ft__alloc_fail_at(2);
	a = ft_malloc(8);
	assert_false(ft__alloc_failed());
	b = ft_malloc(8);
	assert_true(ft__alloc_failed());
	c = ft_malloc(8);
	ft__alloc_fail_at(0);
	assert_non_null(a);
	assert_null(b);
	assert_non_null(c);
	assert_false(ft__alloc_failed());
	ft_free(a);
	ft_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_injector),
		cmocka_unit_test(test_oom_spec),
		cmocka_unit_test(test_oom_parse_nccl_tests),
		cmocka_unit_test(test_oom_parse_ibstat),
		cmocka_unit_test(test_oom_parse_all),
		cmocka_unit_test(test_oom_archive),
		cmocka_unit_test(test_oom_model_a2a),
		cmocka_unit_test(test_oom_model_spine),
		cmocka_unit_test(test_oom_model_nvls_tree),
		cmocka_unit_test(test_oom_model_calibrate),
		cmocka_unit_test(test_oom_share_slots),
		cmocka_unit_test(test_oom_scenario_sniff),
		cmocka_unit_test(test_oom_sim),
		cmocka_unit_test(test_oom_route_minhop),
		cmocka_unit_test(test_oom_sim_chunked_phase),
		cmocka_unit_test(test_oom_sim_lossy),
		cmocka_unit_test(test_oom_sim_runs_here),
	};

	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_archive.c - the run archive: round trips, crash safety
 * (SIGKILL while saving), two writers at once, foreign and corrupt files,
 * migration from schema version 1, fingerprints, baselines, compare and
 * JSON export/import.
 */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* clang-format off */
#include <cmocka.h>
/* clang-format on */

#include "source_root.h"
#include <sqlite3.h>

#include <fabtune/fabtune.h>

#include "archive/archive_int.h"

static char tmpdir[256];

static int
setup_dir(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ft-test-archive-XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	return 0;
}

static int
teardown_dir(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void
tmp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
}

/* A run with @n all_reduce rows whose bandwidth depends on @salt. */
static void
make_run(struct ft_run *run, size_t n, double salt)
{
	size_t i;

	ft_run_init(run, FT_SOURCE_BENCH, "bench");
	ft_strlcpy(run->label, "fabtune bench --op all_reduce", sizeof(run->label));
	ft_strlcpy(run->spec, "dgx-h100:2", sizeof(run->spec));
	run->started_s = 1700000000.5;
	run->seed = 42;
	for (i = 0; i < n; i++) {
		struct ft_result_row r;

		ft_result_row_init(&r);
		ft_strlcpy(r.test, "all_reduce", sizeof(r.test));
		ft_strlcpy(r.transport, "tcp", sizeof(r.transport));
		ft_strlcpy(r.dtype, "float", sizeof(r.dtype));
		ft_strlcpy(r.redop, "sum", sizeof(r.redop));
		r.bytes = (uint64_t)1024 << (i % 24) | (uint64_t)i << 40;
		r.count = r.bytes / 4;
		r.nranks = 2;
		r.time_us = 10.0 + (double)i + salt;
		r.algbw_GBps = 1.0 / 3.0 + (double)i;
		r.busbw_GBps = 2.0 * r.algbw_GBps + salt;
		r.wrong = 0;
		r.nsamples = 20;
		r.spread_n = i % 3; /* kept as stored */
		ft_strlcpy(r.src, "node0", sizeof(r.src));
		ft_strlcpy(r.dst, "node1", sizeof(r.dst));
		assert_int_equal(ft_run_add(run, &r), 0);
	}
}

static void
make_obs(struct ft_obs_set *set)
{
	struct ft_obs o;

	ft_obs_set_init(set);
	ft_obs_init(&o, "ib.port.state");
	ft_strlcpy(o.host, "node0", sizeof(o.host));
	ft_strlcpy(o.device, "mlx5_0", sizeof(o.device));
	o.port = 1;
	ft_strlcpy(o.str, "Down", sizeof(o.str));
	o.file = "ibstat.txt";
	o.line = 7;
	assert_int_equal(ft_obs_set_add(set, &o), 0);
	ft_obs_init(&o, "ib.counter.SymbolErrorCounter");
	o.has_num = true;
	o.num = 1234;
	ft_strlcpy(o.unit, "count", sizeof(o.unit));
	assert_int_equal(ft_obs_set_add(set, &o), 0);
}

static void
make_finding(struct ft_finding *f, const struct ft_obs_set *obs)
{
	memset(f, 0, sizeof(*f));
	ft_strlcpy(f->rule_id, "ib-port-not-active", sizeof(f->rule_id));
	f->layer = FT_LAYER_FABRIC;
	f->severity = FT_SEV_ERROR;
	ft_strlcpy(f->entity, "node0/mlx5_0/port 1", sizeof(f->entity));
	ft_strlcpy(f->message, "port is Down", sizeof(f->message));
	ft_strlcpy(f->fix, "reseat the cable", sizeof(f->fix));
	ft_strlcpy(f->kb, "IB-TOOLS", sizeof(f->kb));
	f->nevidence = 2;
	f->evidence[0] = *ft_obs_set_at(obs, 0);
	f->evidence[1] = *ft_obs_set_at(obs, 1);
}

static void
make_fp(struct ft_fingerprint *fp)
{
	ft_fingerprint_init(fp);
	assert_int_equal(ft_fingerprint_set(fp, "host.name", "node0"), 0);
	assert_int_equal(ft_fingerprint_set(fp, "env.NCCL_IB_HCA", "mlx5_0,mlx5_1"), 0);
	assert_int_equal(ft_fingerprint_set(fp, "ib.mlx5_0.fw_ver", "28.39.1002"), 0);
}

static bool
same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof(a)) == 0;
}

static void
assert_rows_equal(const struct ft_result_row *a, const struct ft_result_row *b)
{
	assert_string_equal(a->test, b->test);
	assert_string_equal(a->transport, b->transport);
	assert_int_equal(a->bytes, b->bytes);
	assert_int_equal(a->count, b->count);
	assert_string_equal(a->dtype, b->dtype);
	assert_int_equal(a->root, b->root);
	assert_int_equal(a->nranks, b->nranks);
	assert_true(same_double(a->time_us, b->time_us));
	assert_true(same_double(a->algbw_GBps, b->algbw_GBps));
	assert_true(same_double(a->busbw_GBps, b->busbw_GBps));
	assert_true(same_double(a->ip_time_us, b->ip_time_us));
	assert_true(same_double(a->lat_p99_us, b->lat_p99_us));
	assert_int_equal(a->wrong, b->wrong);
	assert_int_equal(a->nsamples, b->nsamples);
	assert_int_equal(a->spread_n, b->spread_n);
	assert_string_equal(a->src, b->src);
	assert_string_equal(a->dst, b->dst);
}

static void
assert_obs_equal(const struct ft_obs *a, const struct ft_obs *b)
{
	assert_string_equal(a->host, b->host);
	assert_string_equal(a->device, b->device);
	assert_int_equal(a->port, b->port);
	assert_int_equal(a->rank, b->rank);
	assert_string_equal(a->key, b->key);
	assert_int_equal(a->has_num, b->has_num);
	if (a->has_num)
		assert_true(same_double(a->num, b->num));
	assert_string_equal(a->str, b->str);
	assert_string_equal(a->unit, b->unit);
	assert_string_equal(a->file, b->file);
	assert_int_equal(a->line, b->line);
}

static void
assert_record_matches(const struct ft_archive_record *rec, const struct ft_run *run,
                      const struct ft_obs_set *obs, const struct ft_finding *f,
                      const struct ft_fingerprint *fp)
{
	size_t i;

	assert_int_equal(rec->run.source, run->source);
	assert_string_equal(rec->run.kind, run->kind);
	assert_string_equal(rec->run.label, run->label);
	assert_string_equal(rec->run.spec, run->spec);
	assert_int_equal(rec->run.seed, run->seed);
	assert_true(same_double(rec->run.started_s, run->started_s));
	assert_int_equal(ft_run_nrows(&rec->run), ft_run_nrows(run));
	for (i = 0; i < ft_run_nrows(run); i++)
		assert_rows_equal(ft_run_row(&rec->run, i), ft_run_row(run, i));
	assert_int_equal(ft_obs_set_len(&rec->obs), ft_obs_set_len(obs));
	for (i = 0; i < ft_obs_set_len(obs); i++)
		assert_obs_equal(ft_obs_set_at(&rec->obs, i), ft_obs_set_at(obs, i));
	assert_int_equal(rec->findings.len, 1);
	{
		const struct ft_finding *g = ft_vec_at(&rec->findings, 0);

		assert_string_equal(g->rule_id, f->rule_id);
		assert_int_equal(g->layer, f->layer);
		assert_int_equal(g->severity, f->severity);
		assert_string_equal(g->message, f->message);
		assert_string_equal(g->fix, f->fix);
		assert_string_equal(g->kb, f->kb);
		assert_int_equal(g->nevidence, f->nevidence);
		for (i = 0; i < f->nevidence; i++)
			assert_obs_equal(&g->evidence[i], &f->evidence[i]);
	}
	assert_int_equal(ft_fingerprint_len(&rec->fp), ft_fingerprint_len(fp));
	for (i = 0; i < ft_fingerprint_len(fp); i++) {
		assert_string_equal(ft_fingerprint_at(&rec->fp, i)->key,
		                    ft_fingerprint_at(fp, i)->key);
		assert_string_equal(ft_fingerprint_at(&rec->fp, i)->value,
		                    ft_fingerprint_at(fp, i)->value);
	}
}

static void
test_round_trip(void **state)
{
	struct ft_error err = { 0 };
	struct ft_archive *ar;
	struct ft_archive_record rec;
	struct ft_run run;
	struct ft_obs_set obs;
	struct ft_finding f;
	struct ft_fingerprint fp;
	struct ft_vec list;
	char path[300];
	int64_t id = 0, id2 = 0;

	tmp_path(path, sizeof(path), "rt.db");
	make_run(&run, 6, 0.25);
	make_obs(&obs);
	make_finding(&f, &obs);
	make_fp(&fp);
	assert_int_equal(ft_archive_open(path, &ar, &err), 0);
	assert_int_equal(ft_archive_opened_version(ar), 0);
	assert_int_equal(ft_archive_save(ar, &run, &obs, &f, 1, &fp, &id, &err), 0);
	assert_int_equal(id, 1);
	assert_int_equal(ft_archive_save(ar, &run, NULL, NULL, 0, NULL, &id2, &err), 0);
	assert_int_equal(id2, 2);
	ft_archive_close(ar);

	/* Reopen: the file is recognised as current, the run comes back equal. */
	assert_int_equal(ft_archive_open(path, &ar, &err), 0);
	assert_int_equal(ft_archive_opened_version(ar), FT_ARCHIVE_SCHEMA_VERSION);
	assert_int_equal(ft_archive_load(ar, id, &rec, &err), 0);
	assert_record_matches(&rec, &run, &obs, &f, &fp);
	assert_string_equal(rec.info.host, "node0");
	assert_int_equal(rec.info.nrows, 6);
	assert_int_equal(rec.info.nobs, 2);
	assert_int_equal(rec.info.nfindings, 1);
	assert_true(rec.info.created_s > 1.6e9);
	ft_archive_record_release(&rec);

	ft_vec_init(&list, sizeof(struct ft_archive_info));
	assert_int_equal(ft_archive_list(ar, NULL, &list, &err), 0);
	assert_int_equal(list.len, 2);
	assert_int_equal(FT_VEC_AT(&list, struct ft_archive_info, 0).id, 1);
	list.len = 0;
	{
		struct ft_archive_query q = { .limit = 1 };

		assert_int_equal(ft_archive_list(ar, &q, &list, &err), 0);
		assert_int_equal(list.len, 1);
		assert_int_equal(FT_VEC_AT(&list, struct ft_archive_info, 0).id, 2);
	}
	ft_vec_release(&list);

	assert_int_equal(ft_archive_resolve(ar, "latest", &id, &err), 0);
	assert_int_equal(id, 2);
	assert_int_equal(ft_archive_resolve(ar, "latest~1", &id, &err), 0);
	assert_int_equal(id, 1);
	assert_int_equal(ft_archive_resolve(ar, "latest~2", &id, &err), FT_ENOENT);
	assert_non_null(strstr(err.msg, "no run 'latest~2'"));
	ft_error_clear(&err);
	assert_int_equal(ft_archive_resolve(ar, "7", &id, &err), FT_ENOENT);
	ft_error_clear(&err);
	assert_int_equal(ft_archive_resolve(ar, "seven", &id, &err), FT_EINVAL);
	ft_error_clear(&err);
	assert_int_equal(ft_archive_load(ar, 99, &rec, &err), FT_ENOENT);
	assert_non_null(strstr(err.msg, "no run 99"));
	ft_error_clear(&err);
	assert_int_equal(ft_archive_delete(ar, 2, &err), 0);
	assert_int_equal(ft_archive_delete(ar, 2, &err), FT_ENOENT);
	ft_archive_close(ar);

	ft_run_release(&run);
	ft_obs_set_release(&obs);
	ft_fingerprint_release(&fp);
}

static void
test_export_import_round_trip(void **state)
{
	struct ft_error err = { 0 };
	struct ft_archive *ar;
	struct ft_archive_record rec;
	struct ft_run run;
	struct ft_obs_set obs;
	struct ft_finding f;
	struct ft_fingerprint fp;
	struct ft_strbuf out, again;
	struct ft_vec ids;
	char path[300];
	int64_t id;

	tmp_path(path, sizeof(path), "export.db");
	make_run(&run, 4, 1.0 / 7.0);
	make_obs(&obs);
	make_finding(&f, &obs);
	make_fp(&fp);
	assert_int_equal(ft_archive_open(path, &ar, &err), 0);
	assert_int_equal(ft_archive_save(ar, &run, &obs, &f, 1, &fp, &id, &err), 0);
	ft_strbuf_init(&out);
	assert_int_equal(ft_archive_export(ar, &id, 1, &out, FT_EXPORT_STABLE, &err), 0);
	ft_vec_init(&ids, sizeof(int64_t));
	assert_int_equal(ft_archive_import(ar, out.buf, out.len, "export.json", &ids, &err), 0);
	assert_int_equal(ids.len, 1);
	assert_int_equal(ft_archive_load(ar, FT_VEC_AT(&ids, int64_t, 0), &rec, &err), 0);
	/* Doubles survive exactly (shortest round-trip printing). */
	assert_record_matches(&rec, &run, &obs, &f, &fp);
	ft_archive_record_release(&rec);
	/* Exporting the import gives the same bytes. */
	ft_strbuf_init(&again);
	assert_int_equal(ft_archive_export(ar, ids.data, 1, &again, FT_EXPORT_STABLE, &err), 0);
	assert_string_equal(out.buf, again.buf);

	/* Errors name file:line:column and the field; nothing is saved. */
	{
		static const char bad[] =
		        "{\"format\": \"fabtune-archive\", \"version\": 2, \"runs\": [\n"
		        "  {\"source\": \"bench\", \"rows\": [\n"
		        "    {\"test\": \"all_reduce\", \"bytes\": \"big\"}]}]}\n";
		static const char trunc[] = "{\"format\": \"fabtune-archive\", \"version\": 2, \"runs\": [";
		struct ft_vec list;

		ids.len = 0;
		assert_int_equal(ft_archive_import(ar, bad, strlen(bad), "bad.json", &ids, &err),
		                 FT_EPARSE);
		assert_string_equal(err.msg, "bad.json:3:37: runs[0].rows[0].bytes: expected a "
		                             "non-negative integer, got a string");
		ft_error_clear(&err);
		assert_int_equal(ft_archive_import(ar, trunc, strlen(trunc), "t.json", &ids, &err),
		                 FT_EPARSE);
		assert_non_null(strstr(err.msg, "t.json:1:"));
		assert_non_null(strstr(err.msg, "end of input"));
		ft_error_clear(&err);
		ft_vec_init(&list, sizeof(struct ft_archive_info));
		assert_int_equal(ft_archive_list(ar, NULL, &list, &err), 0);
		assert_int_equal(list.len, 2);
		ft_vec_release(&list);
	}
	ft_archive_close(ar);
	ft_strbuf_release(&out);
	ft_strbuf_release(&again);
	ft_vec_release(&ids);
	ft_run_release(&run);
	ft_obs_set_release(&obs);
	ft_fingerprint_release(&fp);
}

/* Text that is no UTF-8 (a host name, a tool's free text) is written as U+FFFD, so
   the export re-imports under the reader's UTF-8 check. */
static void
test_export_import_not_utf8(void **state)
{
	struct ft_error err = { 0 };
	struct ft_archive *ar;
	struct ft_archive_record rec;
	struct ft_run run;
	struct ft_obs_set obs;
	struct ft_finding f;
	struct ft_fingerprint fp;
	struct ft_obs *o;
	struct ft_strbuf out;
	struct ft_vec ids;
	char path[300];
	int64_t id;

	tmp_path(path, sizeof(path), "utf8.db");
	make_run(&run, 2, 0.5);
	ft_strlcpy(run.label, "lab\xff" "el", sizeof(run.label));
	make_obs(&obs);
	o = ft_obs_set_at(&obs, 0);
	ft_strlcpy(o->host, "n\xc3", sizeof(o->host));
	ft_strlcpy(o->str, "Do\x80wn \xed\xa0\x80", sizeof(o->str));
	make_finding(&f, &obs);
	make_fp(&fp);
	assert_int_equal(ft_fingerprint_set(&fp, "host.kernel", "5.\xc0\xaf"), 0);
	assert_int_equal(ft_archive_open(path, &ar, &err), 0);
	assert_int_equal(ft_archive_save(ar, &run, &obs, &f, 1, &fp, &id, &err), 0);
	ft_strbuf_init(&out);
	assert_int_equal(ft_archive_export(ar, &id, 1, &out, FT_EXPORT_STABLE, &err), 0);
	ft_vec_init(&ids, sizeof(int64_t));
	assert_int_equal(ft_archive_import(ar, out.buf, out.len, "export.json", &ids, &err), 0);
	assert_int_equal(ids.len, 1);
	assert_int_equal(ft_archive_load(ar, FT_VEC_AT(&ids, int64_t, 0), &rec, &err), 0);
	/* each byte that is no UTF-8 became one U+FFFD (EF BF BD) */
	assert_string_equal(rec.run.label, "lab\xef\xbf\xbd" "el");
	assert_string_equal(ft_obs_set_at(&rec.obs, 0)->host, "n\xef\xbf\xbd");
	assert_string_equal(ft_obs_set_at(&rec.obs, 0)->str,
	                    "Do\xef\xbf\xbdwn \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	assert_string_equal(ft_fingerprint_get(&rec.fp, "host.kernel"),
	                    "5.\xef\xbf\xbd\xef\xbf\xbd");
	ft_archive_record_release(&rec);
	ft_archive_close(ar);
	ft_strbuf_release(&out);
	ft_vec_release(&ids);
	ft_run_release(&run);
	ft_obs_set_release(&obs);
	ft_fingerprint_release(&fp);
}

/* The reader's refusals, each at the column of the byte it is met on. */
static void
test_json_reader_refusals(void **state)
{
	static char doc[FT__JSON_NUM_MAX + 16];
	static char ver[FT__JSON_NUM_MAX + 128];
	struct ft_arena arena;
	struct ft_jv *v;
	struct ft_error err = { 0 };
	struct ft_vec recs;
	size_t n = FT__JSON_NUM_MAX;

	/* FT__JSON_NUM_MAX bytes: "1." and its zeros, 1, read whole */
	doc[0] = '[';
	memcpy(doc + 1, "1.", 2);
	memset(doc + 3, '0', n - 2);
	memcpy(doc + 1 + n, "]", 2);
	ft_arena_init(&arena, 0);
	assert_int_equal(ft__json_parse(doc, strlen(doc), "n.json", &arena, &v, &err), 0);
	assert_int_equal(v->type, FT_JV_ARRAY);
	assert_true(v->n == 1 && v->items[0]->num == 1);
	assert_int_equal(strlen(v->items[0]->numtext), n);
	ft_arena_release(&arena);
	/* one byte more: refused at the number's first byte, column 2, as the walker does */
	memset(doc + 3, '0', n - 1);
	memcpy(doc + 2 + n, "]", 2);
	ft_arena_init(&arena, 0);
	assert_int_equal(ft__json_parse(doc, strlen(doc), "n.json", &arena, &v, &err), FT_EPARSE);
	assert_string_equal(err.msg, "n.json:1:2: a number too long");
	ft_error_clear(&err);
	ft_arena_release(&arena);
	/* a byte that is no UTF-8: in a string without an escape and in one with */
	{
		static const char *const bad[] = {
			"{\"a\": \"x\xff\"}",     "{\"a\": \"x\\n\xc3(\"}", "[\"\xe0\x9f\xbf\"]",
			"[\"ok \xc3\xa9 \xed\xa0\x80\"]", "{\"k\xc0\xaf\": 1}",
		};
		static const unsigned cols[] = { 9, 11, 3, 9, 4 };

		for (size_t i = 0; i < FT_ARRAY_SIZE(bad); i++) {
			char want[64];

			ft_arena_init(&arena, 0);
			assert_int_equal(
			        ft__json_parse(bad[i], strlen(bad[i]), "u.json", &arena, &v, &err),
			        FT_EPARSE);
			snprintf(want, sizeof(want),
			         "u.json:1:%u: a byte that is no UTF-8 in a string", cols[i]);
			assert_string_equal(err.msg, want);
			ft_error_clear(&err);
			ft_arena_release(&arena);
		}
		/* well-formed sequences of 2, 3 and 4 bytes are taken as they are */
		ft_arena_init(&arena, 0);
		{
			static const char good[] = "[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\\t\"]";

			assert_int_equal(
			        ft__json_parse(good, sizeof(good) - 1, "u.json", &arena, &v, &err),
			        0);
		}
		assert_string_equal(v->items[0]->str, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\t");
		ft_arena_release(&arena);
	}
	/* a long version is shown cut to 40 bytes and "…": the message keeps its end */
	n = (size_t)snprintf(ver, sizeof(ver), "{\"format\": \"fabtune-archive\", \"version\": 9");
	memset(ver + n, '0', 1000);
	memcpy(ver + n + 1000, ", \"runs\": []}", 14);
	ft_vec_init(&recs, sizeof(struct ft_archive_record));
	assert_int_equal(ft_archive_parse_export(ver, strlen(ver), "v.json", &recs, &err),
	                 FT_EPARSE);
	assert_non_null(strstr(err.msg, "export version 9000000000000000000000000000000000000000"
	                                "\xe2\x80\xa6 is from a newer fabtune"));
	assert_non_null(strstr(err.msg, "; nothing was imported"));
	ft_error_clear(&err);
	ft_archive_records_release(&recs);
}

/* ---- crash safety -------------------------------------------------------- */

static void
writer_loop(const char *path, size_t nrows, int forever)
{
	struct ft_error err = { 0 };
	struct ft_archive *ar;
	struct ft_run run;
	struct ft_obs_set obs;
	struct ft_finding f;
	int i;

	if (ft_archive_open(path, &ar, &err) < 0) {
		fprintf(stderr, "child: %s\n", err.msg);
		_exit(2);
	}
	make_run(&run, nrows, 0.5);
	make_obs(&obs);
	make_finding(&f, &obs);
	for (i = 0; forever || i < 20; i++) {
		if (ft_archive_save(ar, &run, &obs, &f, 1, NULL, NULL, &err) < 0) {
			fprintf(stderr, "child: %s\n", err.msg);
			_exit(3);
		}
	}
	ft_archive_close(ar);
	_exit(0);
}

static void
check_archive_intact(const char *path, size_t nrows, size_t min_runs)
{
	struct ft_error err = { 0 };
	struct ft_archive *ar;
	struct ft_vec list;
	sqlite3 *db;
	sqlite3_stmt *st;
	size_t i;

	/* PRAGMA integrity_check through SQLite itself. */
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, NULL),
	                 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "ok");
	sqlite3_finalize(st);
	sqlite3_close(db);

	assert_int_equal(ft_archive_open(path, &ar, &err), 0);
	{
		size_t nruns;

		if (ft_archive_check(ar, &nruns, &err) < 0)
			fail_msg("%s", err.msg);
		assert_true(nruns >= min_runs);
	}
	ft_vec_init(&list, sizeof(struct ft_archive_info));
	assert_int_equal(ft_archive_list(ar, NULL, &list, &err), 0);
	assert_true(list.len >= min_runs);
	for (i = 0; i < list.len; i++) {
		const struct ft_archive_info *in = ft_vec_at(&list, i);
		struct ft_archive_record rec;

		assert_int_equal(ft_archive_load(ar, in->id, &rec, &err), 0);
		assert_int_equal(ft_run_nrows(&rec.run), nrows);
		assert_int_equal(in->nrows, nrows);
		assert_int_equal(ft_obs_set_len(&rec.obs), 2);
		assert_int_equal(rec.findings.len, 1);
		assert_int_equal(FT_VEC_AT(&rec.findings, struct ft_finding, 0).nevidence, 2);
		ft_archive_record_release(&rec);
	}
	ft_vec_release(&list);
	ft_archive_close(ar);
}

static void
test_sigkill_while_saving(void **state)
{
	const size_t nrows = 400;
	char path[300];
	int round;

	tmp_path(path, sizeof(path), "kill.db");
	for (round = 0; round < 5; round++) {
		struct timespec ts = { 0, 30000000L + 17000000L * round };
		pid_t pid = fork();
		int status;

		assert_true(pid >= 0);
		if (pid == 0)
			writer_loop(path, nrows, 1);
		nanosleep(&ts, NULL);
		assert_int_equal(kill(pid, SIGKILL), 0);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status));
		check_archive_intact(path, nrows, 0);
	}
	/* The archive still takes new runs after all that. */
	{
		pid_t pid = fork();
		int status;

		if (pid == 0)
			writer_loop(path, nrows, 0);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		check_archive_intact(path, nrows, 20);
	}
}

/*
 * A kill that certainly lands inside a save: the child commits three runs,
 * signals the parent, then starts saving a run of 200000 observations (some
 * hundreds of milliseconds: the kill, 40 ms later, arrives mid-transaction). The big run must be
 * absent and the three intact.
 */
static void
test_sigkill_inside_a_transaction(void **state)
{
	struct ft_error err = { 0 };
	char path[300], c;
	int fds[2], status;
	pid_t pid;

	tmp_path(path, sizeof(path), "kill-mid.db");
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct ft_archive *ar;
		struct ft_run run;
		struct ft_obs_set obs, big;
		struct ft_finding f;
		struct ft_obs o;
		int i;

		close(fds[0]);
		if (ft_archive_open(path, &ar, &err) < 0)
			_exit(2);
		make_run(&run, 10, 0);
		make_obs(&obs);
		make_finding(&f, &obs);
		for (i = 0; i < 3; i++)
			if (ft_archive_save(ar, &run, &obs, &f, 1, NULL, NULL, &err) < 0)
				_exit(3);
		ft_obs_set_init(&big);
		ft_obs_init(&o, "ib.counter.PortXmitWait");
		o.has_num = true;
		for (i = 0; i < 200000; i++) {
			o.num = i;
			if (ft_obs_set_add(&big, &o) < 0)
				_exit(4);
		}
		if (write(fds[1], "r", 1) != 1)
			_exit(5);
		if (ft_archive_save(ar, &run, &big, NULL, 0, NULL, NULL, &err) == 0)
			_exit(7);
		_exit(6); /* not reached: killed while saving */
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);
	{
		struct timespec ts = { 0, 40000000L };

		nanosleep(&ts, NULL);
	}
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status)); /* it was still saving */
	check_archive_intact(path, 10, 3);
	{
		struct ft_archive *ar;
		struct ft_vec list;

		assert_int_equal(ft_archive_open(path, &ar, &err), 0);
		ft_vec_init(&list, sizeof(struct ft_archive_info));
		assert_int_equal(ft_archive_list(ar, NULL, &list, &err), 0);
		assert_int_equal(list.len, 3);
		ft_vec_release(&list);
		ft_archive_close(ar);
	}
}

static void
test_two_writers(void **state)
{
	struct ft_error err = { 0 };
	struct ft_archive *ar;
	struct ft_vec list;
	char path[300];
	pid_t pids[2];
	int i, status;

	tmp_path(path, sizeof(path), "two.db");
	/* Both start on a file that does not exist yet: creation races too. */
	for (i = 0; i < 2; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0)
			writer_loop(path, 50, 0);
	}
	for (i = 0; i < 2; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_int_equal(ft_archive_open(path, &ar, &err), 0);
	ft_vec_init(&list, sizeof(struct ft_archive_info));
	assert_int_equal(ft_archive_list(ar, NULL, &list, &err), 0);
	assert_int_equal(list.len, 40);
	ft_vec_release(&list);
	ft_archive_close(ar);
	check_archive_intact(path, 50, 40);
}

/* ---- foreign and corrupt files ------------------------------------------- */

static void
write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static char *
read_whole(const char *path, size_t *len)
{
	struct ft_strbuf sb;

	ft_strbuf_init(&sb);
	assert_int_equal(ft_strbuf_read_file(&sb, path, NULL), 0);
	return ft_strbuf_detach(&sb, len);
}

/* Opening @path must fail with FT_EARCHIVE, a message holding @want, and no byte changed. */
static void
assert_refused(const char *path, const char *want)
{
	struct ft_error err = { 0 };
	struct ft_archive *ar = (struct ft_archive *)1;
	size_t len0, len1;
	char *before = read_whole(path, &len0), *after;
	char wal[320];
	struct stat st;

	assert_int_equal(ft_archive_open(path, &ar, &err), FT_EARCHIVE);
	assert_null(ar);
	assert_non_null(strstr(err.msg, path));
	if (!strstr(err.msg, want))
		fail_msg("'%s' does not contain '%s'", err.msg, want);
	after = read_whole(path, &len1);
	assert_int_equal(len0, len1);
	assert_memory_equal(before, after, len0);
	snprintf(wal, sizeof(wal), "%s-wal", path);
	assert_int_not_equal(stat(wal, &st) == 0 && st.st_size > 0, 1);
	ft_free(before);
	ft_free(after);
}

static void
test_foreign_and_corrupt(void **state)
{
	struct ft_error err = { 0 };
	struct ft_archive *ar;
	char path[300], cmd[700];
	unsigned char buf[4096];
	sqlite3 *db;
	size_t len, i;
	char *good;
	struct ft_run run;

	/* A text file. */
	tmp_path(path, sizeof(path), "notes.txt");
	write_file(path, "my notes\nnot a database\n", 24);
	assert_refused(path, "not an SQLite database");

	/* Random bytes. */
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 2654435761u >> 13);
	tmp_path(path, sizeof(path), "random.bin");
	write_file(path, buf, sizeof(buf));
	assert_refused(path, "not an SQLite database");

	/* Another application's SQLite database (no application id, has tables). */
	tmp_path(path, sizeof(path), "other.sqlite");
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
	                              "CREATE TABLE photos(id INTEGER, name TEXT);"
	                              "INSERT INTO photos VALUES (1, 'cat.jpg');",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(db);
	assert_refused(path, "no fabtune application_id");

	/* One with another application id. */
	tmp_path(path, sizeof(path), "app.sqlite");
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA application_id = 1234; CREATE TABLE t(x);", NULL,
	                              NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(db);
	assert_refused(path, "application_id 0x000004d2");

	/* A fabtune archive from the future. */
	tmp_path(path, sizeof(path), "future.db");
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
	                              "PRAGMA application_id = 1179926850;"
	                              "PRAGMA user_version = 99; CREATE TABLE runs(id);",
	                              NULL, NULL, NULL),
	                 SQLITE_OK);
	sqlite3_close(db);
	assert_refused(path, "newer fabtune (schema version 99");

	/* A real archive, damaged: its header, then truncated. */
	tmp_path(path, sizeof(path), "good.db");
	assert_int_equal(ft_archive_open(path, &ar, &err), 0);
	make_run(&run, 3, 0);
	assert_int_equal(ft_archive_save(ar, &run, NULL, NULL, 0, NULL, NULL, &err), 0);
	ft_run_release(&run);
	ft_archive_close(ar);
	good = read_whole(path, &len);
	assert_true(len >= 4096);
	memset(good + 16, 0xff, 8); /* page size, versions, reserved space */
	tmp_path(path, sizeof(path), "badheader.db");
	write_file(path, good, len);
	assert_refused(path, "corrupt archive");
	tmp_path(path, sizeof(path), "truncated.db");
	write_file(path, "SQLite format 3\0\x10\x00", 18);
	assert_refused(path, "truncated SQLite header");
	ft_free(good);

	/* A folder is not an archive. */
	snprintf(cmd, sizeof(cmd), "%s/dir.db", tmpdir);
	assert_int_equal(mkdir(cmd, 0755), 0);
	assert_int_equal(ft_archive_open(cmd, &ar, &err), FT_EARCHIVE);
	assert_non_null(strstr(err.msg, "not a regular file"));

	/* A new archive needs its folder: a missing one, or a file, is named as such. */
	snprintf(cmd, sizeof(cmd), "%s/no-such-folder/a.db", tmpdir);
	memset(&err, 0, sizeof(err));
	assert_int_equal(ft_archive_open(cmd, &ar, &err), FT_ENOENT);
	assert_non_null(strstr(err.msg, "no-such-folder to create it in"));
	assert_null(ar);
	snprintf(cmd, sizeof(cmd), "%s/a.db", path);
	memset(&err, 0, sizeof(err));
	assert_int_equal(ft_archive_open(cmd, &ar, &err), FT_ENOENT);
	assert_non_null(strstr(err.msg, "truncated.db is a regular file, not a folder"));
	assert_null(ar);
}

/* ---- migration from schema version 1 ------------------------------------- */

/* Schema version 1 as fabtune 0.1 wrote it, with one run. */
static const char v1_archive[] =
        "PRAGMA application_id = 1179926850;\n"
        "CREATE TABLE runs (id INTEGER PRIMARY KEY, created_s REAL NOT NULL, source TEXT NOT NULL,"
        " kind TEXT NOT NULL, label TEXT NOT NULL DEFAULT '', spec TEXT NOT NULL DEFAULT '',"
        " seed INTEGER NOT NULL DEFAULT 0, fingerprint TEXT NOT NULL DEFAULT '');\n"
        "CREATE TABLE results (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
        " idx INTEGER NOT NULL, test TEXT NOT NULL, transport TEXT NOT NULL, bytes INTEGER NOT NULL,"
        " count INTEGER NOT NULL, dtype TEXT NOT NULL, redop TEXT NOT NULL, root INTEGER NOT NULL,"
        " nranks INTEGER NOT NULL, time_us REAL, algbw_GBps REAL, busbw_GBps REAL, ip_time_us REAL,"
        " ip_algbw_GBps REAL, ip_busbw_GBps REAL, wrong INTEGER NOT NULL, lat_min_us REAL,"
        " lat_avg_us REAL, lat_p50_us REAL, lat_p99_us REAL, lat_p999_us REAL, lat_max_us REAL,"
        " lat_stdev_us REAL, nsamples INTEGER NOT NULL, algo TEXT NOT NULL, proto TEXT NOT NULL,"
        " bottleneck TEXT NOT NULL, src TEXT NOT NULL, dst TEXT NOT NULL,"
        " PRIMARY KEY (run_id, idx));\n"
        "CREATE TABLE observations (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
        " idx INTEGER NOT NULL, host TEXT NOT NULL, device TEXT NOT NULL, port INTEGER NOT NULL,"
        " rank INTEGER NOT NULL, key TEXT NOT NULL, num REAL, str TEXT NOT NULL, unit TEXT NOT NULL,"
        " file TEXT NOT NULL, line INTEGER NOT NULL, PRIMARY KEY (run_id, idx));\n"
        "CREATE TABLE findings (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
        " idx INTEGER NOT NULL, rule_id TEXT NOT NULL, layer TEXT NOT NULL, severity TEXT NOT NULL,"
        " entity TEXT NOT NULL, message TEXT NOT NULL, fix TEXT NOT NULL, kb TEXT NOT NULL,"
        " PRIMARY KEY (run_id, idx));\n"
        "INSERT INTO runs VALUES (1, 1690000000.0, 'import', 'nccl-tests', 'all_reduce_perf -b 8',"
        " '', 0, 'host.name=gpu17\nenv.NCCL_IB_HCA=mlx5\nib.mlx5_0.fw_ver=28.36.1010\n');\n"
        "INSERT INTO results VALUES (1, 0, 'all_reduce', 'nccl', 8388608, 2097152, 'float', 'sum',"
        " -1, 16, 210.5, 39.85, 74.72, 209.0, 40.1, 75.2, 0, NULL, NULL, NULL, NULL, NULL, NULL,"
        " NULL, 20, '', '', '', '', '');\n"
        "INSERT INTO observations VALUES (1, 0, 'gpu17', '', -1, 3, 'nccl.version', NULL, '2.18.5',"
        " '', 'log.txt', 4);\n"
        "INSERT INTO findings VALUES (1, 0, 'nccl-env-leftover', 'communication library', 'warning',"
        " 'rank 3', 'NCCL_ALGO is set', 'unset it', 'SYM-ENV-LEFTOVER');\n"
        "PRAGMA user_version = 1;\n";

static void
test_migrate_v1(void **state)
{
	struct ft_error err = { 0 };
	struct ft_archive *ar;
	struct ft_archive_record rec;
	const struct ft_result_row *r;
	const struct ft_finding *f;
	struct ft_vec ids;
	char path[300];
	sqlite3 *db;
	int64_t id;

	tmp_path(path, sizeof(path), "v1.db");
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, v1_archive, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);

	assert_int_equal(ft_archive_open(path, &ar, &err), 0);
	assert_int_equal(ft_archive_opened_version(ar), 1);
	assert_int_equal(ft_archive_load(ar, 1, &rec, &err), 0);
	assert_string_equal(rec.run.kind, "nccl-tests");
	assert_int_equal(rec.run.source, FT_SOURCE_IMPORT);
	assert_int_equal(ft_run_nrows(&rec.run), 1);
	r = ft_run_row(&rec.run, 0);
	assert_int_equal(r->bytes, 8388608);
	assert_true(r->busbw_GBps == 74.72);
	assert_true(isnan(r->lat_p50_us));
	assert_int_equal(ft_obs_set_len(&rec.obs), 1);
	assert_string_equal(ft_obs_set_at(&rec.obs, 0)->str, "2.18.5");
	assert_false(ft_obs_set_at(&rec.obs, 0)->has_num);
	f = ft_vec_at(&rec.findings, 0);
	assert_int_equal(f->layer, FT_LAYER_COMMLIB);
	assert_int_equal(f->severity, FT_SEV_WARNING);
	assert_int_equal(f->nevidence, 0);
	/* The fingerprint lines became rows; host and counts were filled. */
	assert_int_equal(ft_fingerprint_len(&rec.fp), 3);
	assert_string_equal(ft_fingerprint_get(&rec.fp, "ib.mlx5_0.fw_ver"), "28.36.1010");
	assert_string_equal(rec.info.host, "gpu17");
	assert_int_equal(rec.info.nrows, 1);
	assert_int_equal(rec.info.nfindings, 1);
	{
		char digest[17];

		ft_fingerprint_digest(&rec.fp, digest);
		assert_string_equal(rec.info.fp_digest, digest);
	}
	ft_archive_record_release(&rec);
	/* The migrated counts agree with the rows; a tampered run is found. */
	{
		size_t nruns;
		sqlite3 *db2;

		assert_int_equal(ft_archive_check(ar, &nruns, &err), 0);
		assert_int_equal(nruns, 1);
		assert_int_equal(sqlite3_open(path, &db2), SQLITE_OK);
		assert_int_equal(
		        sqlite3_exec(db2, "DELETE FROM results WHERE run_id = 1", NULL, NULL, NULL),
		        SQLITE_OK);
		sqlite3_close(db2);
		assert_int_equal(ft_archive_check(ar, &nruns, &err), FT_EARCHIVE);
		assert_non_null(strstr(err.msg, "run 1 records 1 results but holds 0"));
		ft_error_clear(&err);
	}
	/* Version 2 features work on the migrated file. */
	assert_int_equal(ft_archive_baseline_add(ar, "default", 1, &err), 0);
	ft_archive_close(ar);

	assert_int_equal(ft_archive_open(path, &ar, &err), 0);
	assert_int_equal(ft_archive_opened_version(ar), FT_ARCHIVE_SCHEMA_VERSION);
	ft_vec_init(&ids, sizeof(int64_t));
	assert_int_equal(ft_archive_baseline_runs(ar, "default", &ids, &err), 0);
	assert_int_equal(ids.len, 1);
	ft_vec_release(&ids);
	assert_int_equal(ft_archive_resolve(ar, "latest", &id, &err), 0);
	assert_int_equal(id, 1);
	ft_archive_close(ar);
}

/* ---- baselines ----------------------------------------------------------- */

static void
test_baselines(void **state)
{
	struct ft_error err = { 0 };
	struct ft_archive *ar;
	struct ft_run run;
	struct ft_vec ids, list;
	char path[300];
	int i;

	tmp_path(path, sizeof(path), "base.db");
	assert_int_equal(ft_archive_open(path, &ar, &err), 0);
	make_run(&run, 2, 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(ft_archive_save(ar, &run, NULL, NULL, 0, NULL, NULL, &err), 0);
	ft_run_release(&run);
	assert_int_equal(ft_archive_baseline_add(ar, "default", 1, &err), 0);
	assert_int_equal(ft_archive_baseline_add(ar, "default", 2, &err), 0);
	assert_int_equal(ft_archive_baseline_add(ar, "default", 2, &err), 0);
	assert_int_equal(ft_archive_baseline_add(ar, "acc-2026", 3, &err), 0);
	assert_int_equal(ft_archive_baseline_add(ar, "default", 9, &err), FT_ENOENT);
	ft_error_clear(&err);
	assert_int_equal(ft_archive_baseline_add(ar, "bad name", 1, &err), FT_EINVAL);
	ft_error_clear(&err);
	ft_vec_init(&ids, sizeof(int64_t));
	assert_int_equal(ft_archive_baseline_runs(ar, "default", &ids, &err), 0);
	assert_int_equal(ids.len, 2);
	ft_vec_init(&list, sizeof(struct ft_baseline_info));
	assert_int_equal(ft_archive_baseline_list(ar, &list, &err), 0);
	assert_int_equal(list.len, 2);
	assert_string_equal(FT_VEC_AT(&list, struct ft_baseline_info, 0).name, "acc-2026");
	assert_int_equal(FT_VEC_AT(&list, struct ft_baseline_info, 1).nruns, 2);
	/* Deleting a run drops it from its baselines. */
	assert_int_equal(ft_archive_delete(ar, 2, &err), 0);
	ids.len = 0;
	assert_int_equal(ft_archive_baseline_runs(ar, "default", &ids, &err), 0);
	assert_int_equal(ids.len, 1);
	assert_int_equal(ft_archive_baseline_remove(ar, "default", 0, &err), 0);
	ids.len = 0;
	assert_int_equal(ft_archive_baseline_runs(ar, "default", &ids, &err), FT_ENOENT);
	ft_vec_release(&ids);
	ft_vec_release(&list);
	ft_archive_close(ar);
}

/* ---- compare ------------------------------------------------------------- */

static void
add_row(struct ft_run *run, const char *test, uint64_t bytes, double busbw, double lat)
{
	struct ft_result_row r;

	ft_result_row_init(&r);
	ft_strlcpy(r.test, test, sizeof(r.test));
	ft_strlcpy(r.transport, "tcp", sizeof(r.transport));
	r.bytes = bytes;
	r.nranks = 2;
	r.busbw_GBps = busbw;
	r.lat_p50_us = lat;
	assert_int_equal(ft_run_add(run, &r), 0);
}

static const struct ft_compare_row *
find_cmp(const struct ft_compare *c, const char *test, uint64_t bytes)
{
	size_t i;

	for (i = 0; i < c->rows.len; i++) {
		const struct ft_compare_row *r = ft_vec_at(&c->rows, i);

		if (strcmp(r->test, test) == 0 && r->bytes == bytes)
			return r;
	}
	fail_msg("no compare row %s %" PRIu64, test, bytes);
	return NULL;
}

static void
test_compare(void **state)
{
	struct ft_error err = { 0 };
	struct ft_run base[4], cur;
	const struct ft_run *bp[4];
	struct ft_compare cmp;
	const struct ft_compare_row *r;
	int i;

	/* Four baseline runs: size 1M is noisy (10 +- ~1), 2M is steady, 4M has one sample. */
	for (i = 0; i < 4; i++) {
		ft_run_init(&base[i], FT_SOURCE_BENCH, "bench");
		add_row(&base[i], "all_reduce", 1 << 20, 9.0 + (double)(i % 2) * 2.0, NAN);
		add_row(&base[i], "all_reduce", 2 << 20, 20.0, NAN);
		if (i == 0)
			add_row(&base[i], "all_reduce", 4 << 20, 40.0, NAN);
		add_row(&base[i], "pt2pt_lat", 8, NAN, 10.0 + 0.01 * i);
		add_row(&base[i], "all_reduce", 8 << 20, 50.0, NAN);
		bp[i] = &base[i];
	}
	ft_run_init(&cur, FT_SOURCE_BENCH, "bench");
	add_row(&cur, "all_reduce", 1 << 20, 8.0, NAN);  /* -20%, within the band of 4 runs */
	add_row(&cur, "all_reduce", 2 << 20, 19.0, NAN); /* -5%: floor 1% -> regressed */
	add_row(&cur, "all_reduce", 4 << 20, 39.0, NAN); /* -2.5% < stated 5% */
	add_row(&cur, "pt2pt_lat", 8, NAN, 9.0);         /* latency down: improved */
	add_row(&cur, "alltoall", 1 << 20, 5.0, NAN);    /* not in baseline */
	assert_int_equal(ft_compare_runs(&cur, bp, 4, NULL, &cmp, &err), 0);

	r = find_cmp(&cmp, "all_reduce", 1 << 20);
	assert_int_equal(r->verdict, FT_VERDICT_UNCHANGED);
	assert_true(r->noise_aware);
	assert_int_equal(r->base_n, 4);
	assert_true(fabs(r->base_mean - 10.0) < 1e-12);
	assert_true(fabs(r->base_stdev - sqrt(4.0 / 3.0)) < 1e-12);
	/* Student's t for 3 degrees of freedom at 99.73%, for a new run: 10.3 sigmas */
	assert_true(fabs(r->threshold_rel -
	                 ft__compare_band_sigmas(3.0, 4) * sqrt(4.0 / 3.0) / 10.0) < 1e-12);
	assert_true(fabs(ft__compare_band_sigmas(3.0, 4) - 10.31) < 0.01);
	r = find_cmp(&cmp, "all_reduce", 2 << 20);
	assert_int_equal(r->verdict, FT_VERDICT_REGRESSED);
	assert_true(r->noise_aware);
	assert_true(fabs(r->threshold_rel - 0.01) < 1e-12);
	assert_true(fabs(r->delta_rel + 0.05) < 1e-12);
	r = find_cmp(&cmp, "all_reduce", 4 << 20);
	assert_int_equal(r->verdict, FT_VERDICT_UNCHANGED);
	assert_false(r->noise_aware);
	assert_true(fabs(r->threshold_rel - 0.05) < 1e-12);
	r = find_cmp(&cmp, "pt2pt_lat", 8);
	assert_string_equal(r->metric, "lat_p50");
	assert_false(r->higher_is_better);
	assert_int_equal(r->verdict, FT_VERDICT_IMPROVED);
	r = find_cmp(&cmp, "alltoall", 1 << 20);
	assert_int_equal(r->verdict, FT_VERDICT_NEW);
	r = find_cmp(&cmp, "all_reduce", 8 << 20);
	assert_int_equal(r->verdict, FT_VERDICT_MISSING);
	assert_true(isnan(r->current));
	assert_true(ft_compare_has_regression(&cmp));
	assert_int_equal(cmp.count[FT_VERDICT_REGRESSED], 1);
	assert_int_equal(cmp.count[FT_VERDICT_UNCHANGED], 2);
	ft_compare_release(&cmp);

	/* A looser stated threshold and a wider floor make 2M unchanged. */
	{
		struct ft_compare_opts o;

		ft_compare_opts_init(&o);
		o.floor_rel = 0.10;
		assert_int_equal(ft_compare_runs(&cur, bp, 4, &o, &cmp, &err), 0);
		assert_false(ft_compare_has_regression(&cmp));
		ft_compare_release(&cmp);
		o.rel_threshold = -1;
		assert_int_equal(ft_compare_runs(&cur, bp, 4, &o, &cmp, &err), FT_EINVAL);
		ft_error_clear(&err);
	}
	for (i = 0; i < 4; i++)
		ft_run_release(&base[i]);
	ft_run_release(&cur);
}

/*
 * The band of a few runs: Student's t against closed forms (df 1: tan(pi c /
 * 2); df 2: c sqrt(2 / (1 - c^2))) and table values, and the prediction
 * factor sqrt(1 + 1/n): 3 sigmas over 3 runs are 22.2 sample deviations,
 * and the band narrows toward 3 as runs are added.
 */
static void
test_compare_band_few_runs(void **state)
{
	double c = erf(3.0 / M_SQRT2);

	(void)state;
	assert_true(fabs(ft__t_two_sided(c, 1) - tan(M_PI * c / 2)) < 1e-6);
	assert_true(fabs(ft__t_two_sided(c, 2) - c * sqrt(2 / (1 - c * c))) < 1e-9);
	assert_true(fabs(ft__t_two_sided(0.95, 1) - 12.7062) < 1e-4);
	assert_true(fabs(ft__t_two_sided(0.95, 2) - 4.3027) < 1e-4);
	assert_true(fabs(ft__t_two_sided(0.95, 10) - 2.2281) < 1e-4);
	assert_true(fabs(ft__t_two_sided(0.99, 5) - 4.0321) < 1e-4);
	assert_true(fabs(ft__t_two_sided(0.95, 30) - 2.0423) < 1e-4);
	assert_true(fabs(ft__t_two_sided(0.95, 1000) - 1.9623) < 1e-4);
	assert_true(isnan(ft__t_two_sided(1.0, 3)));
	assert_true(isnan(ft__t_two_sided(0.95, 0)));
	assert_true(fabs(ft__compare_band_sigmas(3.0, 3) - c * sqrt(2 / (1 - c * c)) *
	                                                           sqrt(4.0 / 3.0)) < 1e-9);
	assert_true(fabs(ft__compare_band_sigmas(3.0, 3) - 22.18) < 0.01);
	for (unsigned n = 3; n < 200; n++)
		assert_true(ft__compare_band_sigmas(3.0, n + 1) < ft__compare_band_sigmas(3.0, n));
	assert_true(fabs(ft__compare_band_sigmas(3.0, 100000) - 3.0) < 1e-3);
	assert_true(isnan(ft__compare_band_sigmas(3.0, 1)));
}

/* A row with every key field, for the matching tests. */
static struct ft_result_row *
add_keyed(struct ft_run *run, const char *test, const char *redop, const char *dtype,
          uint64_t bytes, uint32_t nranks, double busbw)
{
	struct ft_result_row r;

	ft_result_row_init(&r);
	ft_strlcpy(r.test, test, sizeof(r.test));
	ft_strlcpy(r.redop, redop, sizeof(r.redop));
	ft_strlcpy(r.dtype, dtype, sizeof(r.dtype));
	ft_strlcpy(r.transport, "tcp", sizeof(r.transport));
	r.bytes = bytes;
	r.nranks = nranks;
	r.busbw_GBps = busbw;
	r.time_us = 100.0;
	assert_int_equal(ft_run_add(run, &r), 0);
	return ft_run_row(run, ft_run_nrows(run) - 1);
}

/*
 * A key without its counterpart is new or missing, never compared with the
 * next larger key: a 2 MiB row against a 16 MiB baseline, 4 ranks against
 * 8, another dtype or reduction.
 */
static void
test_compare_exact_keys(void **state)
{
	struct ft_error err = { 0 };
	struct ft_run base, cur;
	const struct ft_run *bp = &base;
	struct ft_compare cmp;
	size_t i;

	ft_run_init(&base, FT_SOURCE_BENCH, "bench");
	add_keyed(&base, "all_reduce", "sum", "float", 16 << 20, 8, 100.0);
	add_keyed(&base, "all_reduce", "sum", "float", 1 << 20, 8, 10.0);
	ft_run_init(&cur, FT_SOURCE_BENCH, "bench");
	add_keyed(&cur, "all_reduce", "sum", "float", 2 << 20, 8, 36.0);  /* no 2 MiB row */
	add_keyed(&cur, "all_reduce", "sum", "float", 16 << 20, 4, 50.0); /* 4 ranks, not 8 */
	add_keyed(&cur, "all_reduce", "sum", "half", 16 << 20, 8, 50.0);  /* another dtype */
	add_keyed(&cur, "all_reduce", "max", "float", 16 << 20, 8, 50.0); /* another op */
	assert_int_equal(ft_compare_runs(&cur, &bp, 1, NULL, &cmp, &err), 0);
	assert_int_equal(cmp.count[FT_VERDICT_NEW], 4);
	assert_int_equal(cmp.count[FT_VERDICT_MISSING], 2);
	assert_int_equal(cmp.count[FT_VERDICT_REGRESSED], 0);
	assert_int_equal(cmp.nmatched, 0);
	for (i = 0; i < cmp.rows.len; i++) {
		const struct ft_compare_row *r = ft_vec_at(&cmp.rows, i);

		assert_true(r->verdict == FT_VERDICT_NEW || r->verdict == FT_VERDICT_MISSING);
		if (r->verdict == FT_VERDICT_NEW) {
			assert_int_equal(r->base_n, 0);
			assert_true(isnan(r->base_mean));
		}
	}
	/* nothing matched: incomplete, whatever the threshold */
	assert_true(ft_compare_is_incomplete(&cmp));
	ft_compare_release(&cmp);

	/* One of the two baseline keys matched: 50% is enough by default, 60% is not. */
	add_keyed(&cur, "all_reduce", "sum", "float", 1 << 20, 8, 10.0);
	assert_int_equal(ft_compare_runs(&cur, &bp, 1, NULL, &cmp, &err), 0);
	assert_int_equal(cmp.nmatched, 1);
	assert_int_equal(cmp.count[FT_VERDICT_MISSING], 1);
	assert_false(ft_compare_is_incomplete(&cmp));
	ft_compare_release(&cmp);
	{
		struct ft_compare_opts o;

		ft_compare_opts_init(&o);
		o.min_matched = 0.6;
		assert_int_equal(ft_compare_runs(&cur, &bp, 1, &o, &cmp, &err), 0);
		assert_true(ft_compare_is_incomplete(&cmp));
		ft_compare_release(&cmp);
		o.min_matched = 1.5;
		assert_int_equal(ft_compare_runs(&cur, &bp, 1, &o, &cmp, &err), FT_EINVAL);
		ft_error_clear(&err);
	}
	ft_run_release(&base);
	ft_run_release(&cur);
}

/*
 * A latency test is compared on its latency, lower is better, even when a
 * derived bandwidth is present; its percentiles travel with it.
 */
static void
test_compare_latency_direction(void **state)
{
	struct ft_error err = { 0 };
	struct ft_run base, cur;
	const struct ft_run *bp = &base;
	struct ft_compare cmp;
	struct ft_result_row *row;
	const struct ft_compare_row *r;

	ft_run_init(&base, FT_SOURCE_BENCH, "bench");
	row = add_keyed(&base, "pt2pt_lat", "none", "uint8", 8, 2, 0.0008);
	row->lat_p50_us = 10.0;
	row->lat_p99_us = 14.0;
	ft_run_init(&cur, FT_SOURCE_BENCH, "bench");
	row = add_keyed(&cur, "pt2pt_lat", "none", "uint8", 8, 2, 0.0016);
	row->lat_p50_us = 5.0; /* half the latency: twice the derived bandwidth */
	row->lat_p99_us = 7.0;
	assert_int_equal(ft_compare_runs(&cur, &bp, 1, NULL, &cmp, &err), 0);
	r = ft_vec_at(&cmp.rows, 0);
	assert_string_equal(r->metric, "lat_p50");
	assert_false(r->higher_is_better);
	assert_true(fabs(r->delta_rel + 0.5) < 1e-12);
	assert_int_equal(r->verdict, FT_VERDICT_IMPROVED);
	assert_true(fabs(r->current_p99 - 7.0) < 1e-12);
	assert_true(fabs(r->base_p99 - 14.0) < 1e-12);
	ft_compare_release(&cmp);
	/* and slower is a regression */
	row = ft_run_row(&cur, 0);
	row->lat_p50_us = 12.0;
	assert_int_equal(ft_compare_runs(&cur, &bp, 1, NULL, &cmp, &err), 0);
	r = ft_vec_at(&cmp.rows, 0);
	assert_int_equal(r->verdict, FT_VERDICT_REGRESSED);
	ft_compare_release(&cmp);
	ft_run_release(&base);
	ft_run_release(&cur);
}

/*
 * A one-run baseline: the band is the stated 5% unless the per-iteration
 * spread (root mean square of the two runs' coefficients of variation) is
 * wider. 8% spread on both sides: a -7% change is noise, -20% is not.
 */
static void
test_compare_iteration_band(void **state)
{
	struct ft_error err = { 0 };
	struct ft_run base, cur;
	const struct ft_run *bp = &base;
	struct ft_compare cmp;
	struct ft_result_row *row;
	const struct ft_compare_row *r;

	ft_run_init(&base, FT_SOURCE_BENCH, "bench");
	row = add_keyed(&base, "all_reduce", "sum", "float", 1 << 20, 2, 10.0);
	row->time_stdev_us = 8.0; /* of time_us 100: cv 0.08 */
	row = add_keyed(&base, "all_reduce", "sum", "float", 2 << 20, 2, 10.0);
	row->time_stdev_us = 8.0;
	row = add_keyed(&base, "all_reduce", "sum", "float", 4 << 20, 2, 10.0);
	row->time_stdev_us = 1.0; /* quiet: the stated 5% applies */
	ft_run_init(&cur, FT_SOURCE_BENCH, "bench");
	row = add_keyed(&cur, "all_reduce", "sum", "float", 1 << 20, 2, 9.3);
	row->time_stdev_us = 8.0;
	row = add_keyed(&cur, "all_reduce", "sum", "float", 2 << 20, 2, 8.0);
	row->time_stdev_us = 8.0;
	row = add_keyed(&cur, "all_reduce", "sum", "float", 4 << 20, 2, 9.3);
	row->time_stdev_us = 1.0;
	assert_int_equal(ft_compare_runs(&cur, &bp, 1, NULL, &cmp, &err), 0);
	r = ft_vec_at(&cmp.rows, 0);
	assert_int_equal(r->band_from, FT_BAND_ITERATIONS);
	assert_true(fabs(r->iter_cv - 0.08) < 1e-12);
	assert_true(fabs(r->threshold_rel - 0.08) < 1e-12);
	assert_int_equal(r->verdict, FT_VERDICT_UNCHANGED);
	r = ft_vec_at(&cmp.rows, 1);
	assert_int_equal(r->verdict, FT_VERDICT_REGRESSED);
	r = ft_vec_at(&cmp.rows, 2);
	assert_int_equal(r->band_from, FT_BAND_STATED);
	assert_true(fabs(r->threshold_rel - 0.05) < 1e-12);
	assert_int_equal(r->verdict, FT_VERDICT_REGRESSED);
	ft_compare_release(&cmp);
	ft_run_release(&base);
	ft_run_release(&cur);
}

static void
reset_run(struct ft_run *run)
{
	ft_run_release(run);
	ft_run_init(run, FT_SOURCE_BENCH, "bench");
}

/* A bandwidth row of @busbw GB/s whose iterations' times spread by @cv (coefficient of variation). */
static void
add_bw_cv(struct ft_run *run, uint64_t bytes, double busbw, double cv)
{
	struct ft_result_row *row = add_keyed(run, "pt2pt_bw", "", "", bytes, 2, busbw);

	row->time_stdev_us = cv * row->time_us;
}

/*
 * A disturbed baseline run is set aside. The figures are the e2e baseline
 * loop's (tests/e2e/baseline.sh, pt2pt_bw over a veth shaped to 800 Mbit/s,
 * MB/s and the iterations' spread): two runs at 96.3 and 96.4 whose
 * windows spread by 1.7-1.8%, one hit by a stall at 77.8 whose windows
 * spread by 28%. With all three the band is 22.2 sample deviations, 263%,
 * and a link 20% slower passes; the stalled run set aside, the two left
 * are a baseline of two runs (stated 5%): the identical run is unchanged
 * and the slower link regressed.
 */
static void
test_compare_disturbed_run(void **state)
{
	struct ft_error err = { 0 };
	static const double runs[3][2] = { { 96.3, 0.017 }, { 96.4, 0.018 }, { 77.8, 0.28 } };
	struct ft_run base[3], same, slow;
	const struct ft_run *bp[3] = { &base[0], &base[1], &base[2] };
	struct ft_compare cmp;
	struct ft_compare_opts o;
	const struct ft_compare_row *r;
	int i;

	(void)state;
	ft_compare_opts_init(&o);
	o.floor_rel = 0.02;
	for (i = 0; i < 3; i++) {
		ft_run_init(&base[i], FT_SOURCE_BENCH, "bench");
		add_bw_cv(&base[i], 1 << 20, runs[i][0], runs[i][1]);
	}
	ft_run_init(&same, FT_SOURCE_BENCH, "bench");
	add_bw_cv(&same, 1 << 20, 96.3, 0.022);
	ft_run_init(&slow, FT_SOURCE_BENCH, "bench");
	add_bw_cv(&slow, 1 << 20, 77.1, 0.021);

	assert_int_equal(ft_compare_runs(&slow, bp, 3, &o, &cmp, &err), 0);
	r = ft_vec_at(&cmp.rows, 0);
	assert_int_equal(r->verdict, FT_VERDICT_REGRESSED);
	assert_int_equal(r->base_aside, 1);
	assert_int_equal(r->base_n, 2);
	assert_int_equal(cmp.naside, 1);
	assert_true(fabs(r->base_mean - 96.35) < 1e-9);
	assert_int_equal(r->band_from, FT_BAND_STATED);
	assert_true(fabs(r->threshold_rel - 0.05) < 1e-12);
	assert_true(fabs(r->delta_rel - (77.1 / 96.35 - 1)) < 1e-12);
	assert_int_equal(r->verdict, FT_VERDICT_REGRESSED);
	ft_compare_release(&cmp);
	assert_int_equal(ft_compare_runs(&same, bp, 3, &o, &cmp, &err), 0);
	r = ft_vec_at(&cmp.rows, 0);
	assert_int_equal(r->base_aside, 1);
	assert_int_equal(r->verdict, FT_VERDICT_UNCHANGED);
	ft_compare_release(&cmp);

	/* The same values from runs that each ran steadily: nothing is set aside,
	   and the band is the three runs' (their values alone never set one aside). */
	reset_run(&base[2]);
	add_bw_cv(&base[2], 1 << 20, 77.8, 0.018);
	assert_int_equal(ft_compare_runs(&slow, bp, 3, &o, &cmp, &err), 0);
	r = ft_vec_at(&cmp.rows, 0);
	assert_int_equal(r->base_aside, 0);
	assert_int_equal(r->base_n, 3);
	assert_int_equal(cmp.naside, 0);
	assert_int_equal(r->band_from, FT_BAND_RUNS);
	assert_int_equal(r->verdict, FT_VERDICT_UNCHANGED);
	ft_compare_release(&cmp);

	/* A spread within the floor is no disturbance, however many times the others'. */
	reset_run(&base[2]);
	add_bw_cv(&base[2], 1 << 20, 96.0, 0.015);
	reset_run(&base[0]);
	reset_run(&base[1]);
	add_bw_cv(&base[0], 1 << 20, 96.3, 0.002);
	add_bw_cv(&base[1], 1 << 20, 96.4, 0.002);
	assert_int_equal(ft_compare_runs(&same, bp, 3, &o, &cmp, &err), 0);
	r = ft_vec_at(&cmp.rows, 0);
	assert_int_equal(r->base_aside, 0);
	assert_int_equal(r->band_from, FT_BAND_RUNS);
	ft_compare_release(&cmp);

	/* Two of three disturbed: the steady one cannot be told from them, none is set aside. */
	for (i = 0; i < 3; i++)
		reset_run(&base[i]);
	add_bw_cv(&base[0], 1 << 20, 96.3, 0.017);
	add_bw_cv(&base[1], 1 << 20, 80.0, 0.25);
	add_bw_cv(&base[2], 1 << 20, 77.8, 0.28);
	assert_int_equal(ft_compare_runs(&slow, bp, 3, &o, &cmp, &err), 0);
	r = ft_vec_at(&cmp.rows, 0);
	assert_int_equal(r->base_aside, 0);
	assert_int_equal(r->base_n, 3);
	ft_compare_release(&cmp);

	/* Below --min-samples runs nothing is set aside: two runs are already judged
	   on the stated threshold or their iterations. */
	o.min_samples = 4;
	reset_run(&base[1]);
	add_bw_cv(&base[1], 1 << 20, 96.4, 0.018);
	assert_int_equal(ft_compare_runs(&slow, bp, 3, &o, &cmp, &err), 0);
	r = ft_vec_at(&cmp.rows, 0);
	assert_int_equal(r->base_aside, 0);
	assert_int_equal(r->base_n, 3);
	assert_int_equal(r->band_from, FT_BAND_ITERATIONS);
	ft_compare_release(&cmp);
	for (i = 0; i < 3; i++)
		ft_run_release(&base[i]);
	ft_run_release(&same);
	ft_run_release(&slow);
}

/* ---- fingerprints -------------------------------------------------------- */

static void
put(const char *root, const char *rel, const char *text)
{
	char path[512], cmd[700];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	write_file(path, text, strlen(text));
}

static void
test_fingerprint(void **state)
{
	struct ft_error err = { 0 };
	struct ft_fingerprint a, b;
	struct ft_vec diff;
	char root[300], d1[17], d2[17];
	char *envp[] = { (char *)"NCCL_IB_HCA=mlx5_0:1",
		         (char *)"HOME=/root",
		         (char *)"UCX_TLS=rc,sm",
		         (char *)"OMPI_MCA_btl=self,vader",
		         (char *)"PATH=/bin",
		         (char *)"CUDA_VISIBLE_DEVICES=0,1",
		         NULL };
	const struct ft_fingerprint_change *ch;

	tmp_path(root, sizeof(root), "sysroot");
	put(root, "/etc/hostname", "gpu-node-07\n");
	put(root, "/proc/sys/kernel/osrelease", "5.15.0-91-generic\n");
	put(root, "/etc/os-release", "NAME=\"Ubuntu\"\nPRETTY_NAME=\"Ubuntu 22.04.3 LTS\"\n");
	put(root, "/proc/cpuinfo", "processor\t: 0\nmodel name\t: AMD EPYC 9654 96-Core\n");
	put(root, "/proc/meminfo", "MemTotal:       2113645928 kB\nMemFree: 1 kB\n");
	put(root, "/sys/class/infiniband/mlx5_0/fw_ver", "28.39.1002\n");
	put(root, "/sys/class/infiniband/mlx5_0/hca_type", "MT4129\n");
	put(root, "/sys/module/mlx5_core/version", "23.10-1.1.9\n");
	put(root, "/etc/nccl.conf", "# site defaults\nNCCL_IB_TIMEOUT = 22\nNCCL_DEBUG=WARN\n");

	ft_fingerprint_init(&a);
	assert_int_equal(ft_fingerprint_collect_at(&a, root, envp, &err), 0);
	assert_string_equal(ft_fingerprint_get(&a, "host.name"), "gpu-node-07");
	assert_string_equal(ft_fingerprint_get(&a, "host.kernel"), "5.15.0-91-generic");
	assert_string_equal(ft_fingerprint_get(&a, "host.os"), "Ubuntu 22.04.3 LTS");
	assert_string_equal(ft_fingerprint_get(&a, "cpu.model"), "AMD EPYC 9654 96-Core");
	assert_string_equal(ft_fingerprint_get(&a, "mem.total_bytes"), "2164373430272");
	assert_string_equal(ft_fingerprint_get(&a, "ib.mlx5_0.fw_ver"), "28.39.1002");
	assert_string_equal(ft_fingerprint_get(&a, "ib.mlx5_0.hca_type"), "MT4129");
	assert_null(ft_fingerprint_get(&a, "ib.mlx5_0.board_id"));
	assert_string_equal(ft_fingerprint_get(&a, "driver.mlx5_core.version"), "23.10-1.1.9");
	assert_string_equal(ft_fingerprint_get(&a, "nccl.conf.NCCL_IB_TIMEOUT"), "22");
	assert_string_equal(ft_fingerprint_get(&a, "env.NCCL_IB_HCA"), "mlx5_0:1");
	assert_string_equal(ft_fingerprint_get(&a, "env.UCX_TLS"), "rc,sm");
	assert_string_equal(ft_fingerprint_get(&a, "env.OMPI_MCA_btl"), "self,vader");
	assert_string_equal(ft_fingerprint_get(&a, "env.CUDA_VISIBLE_DEVICES"), "0,1");
	assert_null(ft_fingerprint_get(&a, "env.HOME"));
	assert_null(ft_fingerprint_get(&a, "env.PATH"));
	assert_string_equal(ft_fingerprint_get(&a, "fabtune.version"), ft_version());
	/* Sorted and unique. */
	for (size_t i = 1; i < ft_fingerprint_len(&a); i++)
		assert_true(strcmp(ft_fingerprint_at(&a, i - 1)->key,
		                   ft_fingerprint_at(&a, i)->key) < 0);

	/* Same content, same digest; one change, another digest and a diff naming it. */
	ft_fingerprint_init(&b);
	assert_int_equal(ft_fingerprint_collect_at(&b, root, envp, &err), 0);
	ft_fingerprint_digest(&a, d1);
	ft_fingerprint_digest(&b, d2);
	assert_string_equal(d1, d2);
	assert_int_equal(strlen(d1), 16);
	assert_int_equal(ft_fingerprint_set(&b, "ib.mlx5_0.fw_ver", "28.40.1000"), 0);
	assert_int_equal(ft_fingerprint_set(&b, "env.NCCL_ALGO", "Ring"), 0);
	ft_fingerprint_digest(&b, d2);
	assert_string_not_equal(d1, d2);
	ft_vec_init(&diff, sizeof(struct ft_fingerprint_change));
	assert_int_equal(ft_fingerprint_diff(&a, &b, &diff), 0);
	assert_int_equal(diff.len, 2);
	ch = ft_vec_at(&diff, 0);
	assert_string_equal(ch->key, "env.NCCL_ALGO");
	assert_string_equal(ch->before, "");
	assert_string_equal(ch->after, "Ring");
	ch = ft_vec_at(&diff, 1);
	assert_string_equal(ch->key, "ib.mlx5_0.fw_ver");
	assert_string_equal(ch->before, "28.39.1002");
	ft_vec_release(&diff);
	ft_fingerprint_release(&a);
	ft_fingerprint_release(&b);

	/* From observations of an imported output: hosts, versions, firmware, env. */
	{
		static const struct {
			const char *host, *device, *key, *str;
		} in[] = {
			{ "nodeB", "", "nccl.version", "2.18.5" },
			{ "nodeA", "mlx5_0", "ib.dev.fw_ver", "28.39.1002" },
			{ "nodeA", "", "nccl.env.NCCL_IB_HCA", "mlx5_0:1" },
			{ "nodeB", "", "bench.rank", "GPU0" },
			{ "nodeA", "mlx5_0", "ib.port.state", "Active" },
		};
		struct ft_obs_set set;
		struct ft_obs o;
		size_t i;

		ft_obs_set_init(&set);
		for (i = 0; i < FT_ARRAY_SIZE(in); i++) {
			ft_obs_init(&o, in[i].key);
			ft_strlcpy(o.host, in[i].host, sizeof(o.host));
			ft_strlcpy(o.device, in[i].device, sizeof(o.device));
			ft_strlcpy(o.str, in[i].str, sizeof(o.str));
			assert_int_equal(ft_obs_set_add(&set, &o), 0);
		}
		ft_fingerprint_init(&a);
		assert_int_equal(ft_fingerprint_from_obs(&a, &set), 0);
		assert_int_equal(ft_fingerprint_len(&a), 5);
		assert_string_equal(ft_fingerprint_get(&a, "host.name"), "nodeA");
		assert_string_equal(ft_fingerprint_get(&a, "hosts"), "nodeA,nodeB");
		assert_string_equal(ft_fingerprint_get(&a, "nccl.version"), "2.18.5");
		assert_string_equal(ft_fingerprint_get(&a, "ib.mlx5_0.fw_ver"), "28.39.1002");
		assert_string_equal(ft_fingerprint_get(&a, "env.NCCL_IB_HCA"), "mlx5_0:1");
		ft_fingerprint_release(&a);
		ft_obs_set_release(&set);
	}

	/* The real host: at least a host name and the fabtune version. */
	ft_fingerprint_init(&a);
	assert_int_equal(ft_fingerprint_collect(&a, &err), 0);
	assert_non_null(ft_fingerprint_get(&a, "host.name"));
	assert_non_null(ft_fingerprint_get(&a, "host.kernel"));
	ft_fingerprint_release(&a);
}

static void
test_default_path(void **state)
{
	char buf[512], *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	char saved_xdg[256] = "", saved_home[256] = "";
	struct ft_error err = { 0 };
	struct ft_archive *ar;
	struct stat st;

	if (xdg)
		ft_strlcpy(saved_xdg, xdg, sizeof(saved_xdg));
	if (home)
		ft_strlcpy(saved_home, home, sizeof(saved_home));
	setenv("XDG_DATA_HOME", tmpdir, 1);
	assert_int_equal(ft_archive_default_path(buf, sizeof(buf), &err), 0);
	assert_true(strncmp(buf, tmpdir, strlen(tmpdir)) == 0);
	assert_string_equal(buf + strlen(tmpdir), "/fabtune/archive.db");
	/* NULL opens the default path, creating its folder. */
	assert_int_equal(ft_archive_open(NULL, &ar, &err), 0);
	assert_string_equal(ft_archive_path(ar), buf);
	ft_archive_close(ar);
	assert_int_equal(stat(buf, &st), 0);
	unsetenv("XDG_DATA_HOME");
	setenv("HOME", "/home/someone", 1);
	assert_int_equal(ft_archive_default_path(buf, sizeof(buf), &err), 0);
	assert_string_equal(buf, "/home/someone/.local/share/fabtune/archive.db");
	unsetenv("HOME");
	assert_int_equal(ft_archive_default_path(buf, sizeof(buf), &err), FT_ENOENT);
	if (saved_xdg[0])
		setenv("XDG_DATA_HOME", saved_xdg, 1);
	if (saved_home[0])
		setenv("HOME", saved_home, 1);
}

/*
 * A captured tree's whole fingerprint, key by key: the probe's host facts
 * and RDMA devices of gpu-node (the values its files hold: README.md beside
 * the trees), nothing else but the environment given and our version.
 */
static void
test_fingerprint_of_tree(void **state)
{
	static const char *const want[][2] = {
		{ "cpu.model", "Intel(R) Xeon(R) Platinum 8480+" },
		{ "driver.ib_core.version", "23.10-1.1.9" },
		{ "driver.mlx5_core.version", "23.10-1.1.9" },
		{ "driver.mlx5_ib.version", "23.10-1.1.9" },
		{ "driver.nvidia.version", "535.129.03" },
		{ "driver.nvidia_peermem.version", "1.1" },
		{ "env.NCCL_ALGO", "Ring" },
		{ "fabtune.version", NULL },
		{ "gpu.driver",
		  "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 18:56:32 UTC 2023" },
		{ "host.kernel", "5.15.0-91-generic" },
		{ "host.name", "gpu07" },
		{ "host.os", "Ubuntu 22.04.3 LTS" },
		{ "ib.mlx5_0.board_id", "MT_0000000838" },
		{ "ib.mlx5_0.fw_ver", "28.39.1002" },
		{ "ib.mlx5_0.hca_type", "MT4129" },
		{ "ib.mlx5_1.board_id", "MT_0000000838" },
		{ "ib.mlx5_1.fw_ver", "28.39.1002" },
		{ "ib.mlx5_1.hca_type", "MT4129" },
		{ "ib.mlx5_2.board_id", "MT_0000000838" },
		{ "ib.mlx5_2.fw_ver", "28.39.1002" },
		{ "ib.mlx5_2.hca_type", "MT4129" },
		{ "mem.total_bytes", "2164373430272" },
		{ "nccl.conf.NCCL_IB_HCA", "" },
		{ "nccl.conf.NCCL_IB_TIMEOUT", "22" },
		{ "nccl.conf.NCCL_SOCKET_IFNAME", "ens8" },
	};
	char *const envp[] = { "NCCL_ALGO=Ring", "HOME=/root", NULL };
	struct ft_fingerprint fp;
	struct ft_error err = { 0 };
	size_t i;

	(void)state;
	ft_fingerprint_init(&fp);
	assert_int_equal(ft_fingerprint_collect_at(&fp, "tests/fixtures/sysfs/gpu-node", envp, &err),
	                 0);
	assert_int_equal(ft_fingerprint_len(&fp), FT_ARRAY_SIZE(want));
	for (i = 0; i < FT_ARRAY_SIZE(want); i++) {
		assert_string_equal(ft_fingerprint_at(&fp, i)->key, want[i][0]);
		assert_string_equal(ft_fingerprint_at(&fp, i)->value,
		                    want[i][1] ? want[i][1] : ft_version());
	}
	ft_fingerprint_release(&fp);
}

/*
 * The RDMA devices of a captured tree come from the probe's observations:
 * the same values the device files hold, read here on their own, one key
 * per device and attribute (gpu-node: mlx5_0..2); a tree without an
 * InfiniBand class (no-rdma) gives none.
 */
static void
test_fingerprint_from_probe(void **state)
{
	static const char *const devs[] = { "mlx5_0", "mlx5_1", "mlx5_2" };
	static const char *const attrs[] = { "fw_ver", "hca_type", "board_id" };
	char *const envp[] = { NULL };
	struct ft_fingerprint fp;
	struct ft_error err = { 0 };
	size_t i, k, nib = 0;

	(void)state;
	ft_fingerprint_init(&fp);
	assert_int_equal(ft_fingerprint_collect_at(&fp, "tests/fixtures/sysfs/gpu-node", envp, &err),
	                 0);
	for (i = 0; i < FT_ARRAY_SIZE(devs); i++)
		for (k = 0; k < FT_ARRAY_SIZE(attrs); k++) {
			char path[256], key[64], want[128] = "";
			FILE *f;
			size_t n;

			snprintf(path, sizeof(path),
			         "tests/fixtures/sysfs/gpu-node/sys/class/infiniband/%s/%s", devs[i],
			         attrs[k]);
			f = fopen(path, "r");
			assert_non_null(f);
			assert_non_null(fgets(want, sizeof(want), f));
			fclose(f);
			n = strlen(want);
			while (n && (want[n - 1] == '\n' || want[n - 1] == ' '))
				want[--n] = '\0';
			snprintf(key, sizeof(key), "ib.%s.%s", devs[i], attrs[k]);
			assert_non_null(ft_fingerprint_get(&fp, key));
			assert_string_equal(ft_fingerprint_get(&fp, key), want);
		}
	for (i = 0; i < ft_fingerprint_len(&fp); i++)
		nib += strncmp(ft_fingerprint_at(&fp, i)->key, "ib.", 3) == 0;
	assert_int_equal(nib, 9);
	assert_string_equal(ft_fingerprint_get(&fp, "ib.mlx5_2.fw_ver"), "28.39.1002");
	assert_string_equal(ft_fingerprint_get(&fp, "ib.mlx5_0.board_id"), "MT_0000000838");
	assert_string_equal(ft_fingerprint_get(&fp, "host.name"), "gpu07");
	ft_fingerprint_release(&fp);

	ft_fingerprint_init(&fp);
	assert_int_equal(ft_fingerprint_collect_at(&fp, "tests/fixtures/sysfs/no-rdma", envp, &err),
	                 0);
	for (i = 0; i < ft_fingerprint_len(&fp); i++)
		assert_true(strncmp(ft_fingerprint_at(&fp, i)->key, "ib.", 3) != 0);
	/* a tree that is not there: no device, no error */
	ft_fingerprint_release(&fp);
	ft_fingerprint_init(&fp);
	assert_int_equal(ft_fingerprint_collect_at(&fp, "tests/fixtures/sysfs/no-such-tree", envp,
	                                           &err),
	                 0);
	assert_null(ft_fingerprint_get(&fp, "ib.mlx5_0.fw_ver"));
	ft_fingerprint_release(&fp);
}

/*
 * Fingerprints from many observations: 200,000 devices given in descending
 * order (each one sorted in at the front) are built in O(n log n), sorted and
 * unique, the last value of a key winning. One insertion with a memmove per
 * key took minutes here (the test then runs past its time limit).
 */
static void
test_fingerprint_many(void **state)
{
	const size_t ndev = 200000;
	struct ft_fingerprint fp;
	struct ft_obs_set set;
	struct ft_obs o;
	char want[64];
	size_t i;

	(void)state;
	ft_obs_set_init(&set);
	for (i = 0; i < ndev; i++) {
		ft_obs_init(&o, "ib.dev.fw_ver");
		snprintf(o.device, sizeof(o.device), "mlx5_%06zu", ndev - 1 - i);
		snprintf(o.str, sizeof(o.str), "20.%zu", i);
		assert_int_equal(ft_obs_set_add(&set, &o), 0);
	}
	/* the same key again: the later value wins */
	ft_obs_init(&o, "ib.dev.fw_ver");
	snprintf(o.device, sizeof(o.device), "mlx5_%06zu", (size_t)7);
	snprintf(o.str, sizeof(o.str), "later");
	assert_int_equal(ft_obs_set_add(&set, &o), 0);
	ft_fingerprint_init(&fp);
	assert_int_equal(ft_fingerprint_set(&fp, "zz.before", "kept"), 0);
	assert_int_equal(ft_fingerprint_from_obs(&fp, &set), 0);
	assert_int_equal(ft_fingerprint_len(&fp), ndev + 1);
	for (i = 1; i < ft_fingerprint_len(&fp); i++)
		assert_true(strcmp(ft_fingerprint_at(&fp, i - 1)->key,
		                   ft_fingerprint_at(&fp, i)->key) < 0);
	snprintf(want, sizeof(want), "20.%zu", ndev - 1 - 12345);
	assert_string_equal(ft_fingerprint_get(&fp, "ib.mlx5_012345.fw_ver"), want);
	assert_string_equal(ft_fingerprint_get(&fp, "ib.mlx5_000007.fw_ver"), "later");
	assert_string_equal(ft_fingerprint_get(&fp, "zz.before"), "kept");
	ft_fingerprint_release(&fp);
	ft_obs_set_release(&set);
}

/* One pt2pt_bw row of @bw GB/s: -n 2000 messages at --window 64, 31 full windows of 5 % spread. */
static void
stream_run(struct ft_run *run, double bw)
{
	struct ft_result_row r;

	ft_run_init(run, FT_SOURCE_BENCH, "bench");
	ft_result_row_init(&r);
	ft_strlcpy(r.test, "pt2pt_bw", sizeof(r.test));
	ft_strlcpy(r.transport, "shm", sizeof(r.transport));
	r.bytes = 65536;
	r.nranks = 2;
	r.algbw_GBps = r.busbw_GBps = bw;
	r.time_us = 65536 / (bw * 1e3);
	r.time_stdev_us = 0.05 * r.time_us;
	r.nsamples = 2000;
	r.spread_n = 31;
	assert_int_equal(ft_run_add(run, &r), 0);
}

/*
 * The degrees of freedom of the baseline's per-iteration spread count
 * independent samples: a stream's spread is one window's time, so 3 runs
 * of 31 windows give 3 x 30 = 90, not the 3 x 1999 its messages would;
 * a row stored before spread_n (0) counts its nsamples.
 */
static void
test_compare_iter_df_windows(void **state)
{
	static const double b[3] = { 10.0, 10.5, 9.5 };
	struct ft_run base[3], cur;
	const struct ft_run *bp[3] = { &base[0], &base[1], &base[2] };
	struct ft_compare_opts o;
	struct ft_compare cmp;
	struct ft_error err = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++)
		stream_run(&base[i], b[i]);
	stream_run(&cur, 10.0);
	ft_compare_opts_init(&o);
	o.pool_iterations = true;
	assert_int_equal(ft_compare_runs(&cur, bp, 3, &o, &cmp, &err), 0);
	assert_int_equal(cmp.rows.len, 1);
	assert_true(fabs(((const struct ft_compare_row *)ft_vec_at(&cmp.rows, 0))->iter_df - 90) <
		    1e-12);
	ft_compare_release(&cmp);
	for (i = 0; i < 3; i++)
		ft_run_row(&base[i], 0)->spread_n = 0;
	assert_int_equal(ft_compare_runs(&cur, bp, 3, &o, &cmp, &err), 0);
	assert_true(fabs(((const struct ft_compare_row *)ft_vec_at(&cmp.rows, 0))->iter_df -
			 3 * 1999) < 1e-12);
	ft_compare_release(&cmp);
	for (i = 0; i < 3; i++)
		ft_run_release(&base[i]);
	ft_run_release(&cur);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_export_import_round_trip),
		cmocka_unit_test(test_sigkill_while_saving),
		cmocka_unit_test(test_sigkill_inside_a_transaction),
		cmocka_unit_test(test_two_writers),
		cmocka_unit_test(test_foreign_and_corrupt),
		cmocka_unit_test(test_migrate_v1),
		cmocka_unit_test(test_baselines),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_compare_exact_keys),
		cmocka_unit_test(test_compare_band_few_runs),
		cmocka_unit_test(test_compare_latency_direction),
		cmocka_unit_test(test_compare_iteration_band),
		cmocka_unit_test(test_compare_disturbed_run),
		cmocka_unit_test(test_fingerprint),
		cmocka_unit_test(test_fingerprint_many),
		cmocka_unit_test(test_fingerprint_from_probe),
		cmocka_unit_test(test_fingerprint_of_tree),
		cmocka_unit_test(test_default_path),
		cmocka_unit_test(test_compare_iter_df_windows),
		cmocka_unit_test(test_export_import_not_utf8),
		cmocka_unit_test(test_json_reader_refusals),
	};

	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, setup_dir, teardown_dir);
}

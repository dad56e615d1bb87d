/* SPDX-License-Identifier: MIT */
/*
 * archive/store.c - saving, loading, listing and deleting runs.
 *
 * A save is one BEGIN IMMEDIATE ... COMMIT transaction: the run row, its
 * result rows, observations, findings with evidence and fingerprint. In WAL
 * mode a process killed in the middle leaves an uncommitted tail in the WAL
 * that the next opener ignores, so every listed run is complete.
 */
#include "archive_int.h"

FT__NAME_TABLE(layer_names, FT_LAYER_MAP, FT_LAYER_COUNT);
FT__NAME_TABLE(severity_names, FT_SEVERITY_MAP, FT_SEV_COUNT);

FT__NAME_SET(ft__archive_layers, layer_names);
FT__NAME_SET(ft__archive_severities, severity_names);

/* The value @s names in @set, -1 when none. */
static int
value_of(const struct ft__name_set *set, const char *s)
{
	int v;

	return ft__name_lookup(set, s, &v) == 0 ? v : -1;
}

int
ft__layer_from_name(const char *s)
{
	return value_of(&ft__archive_layers, s);
}

int
ft__severity_from_name(const char *s)
{
	return value_of(&ft__archive_severities, s);
}

void
ft_archive_record_init(struct ft_archive_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	ft_run_init(&rec->run, FT_SOURCE_BENCH, NULL);
	ft_obs_set_init(&rec->obs);
	ft_vec_init(&rec->findings, sizeof(struct ft_finding));
	ft_fingerprint_init(&rec->fp);
}

void
ft_archive_record_release(struct ft_archive_record *rec)
{
	ft_run_release(&rec->run);
	ft_obs_set_release(&rec->obs);
	ft_vec_release(&rec->findings);
	ft_fingerprint_release(&rec->fp);
}

void
ft_archive_records_release(struct ft_vec *records)
{
	size_t i;

	for (i = 0; i < records->len; i++)
		ft_archive_record_release(ft_vec_at(records, i));
	ft_vec_release(records);
}

/*
 * Schema version 3 (db.c runs it as a migration): how busy the host was
 * during a run (fabtune/usage.h), and the per-iteration spread of a result's
 * time, which sets the noise band of a one-run baseline (compare.c).
 */
const char ft__archive_schema_v3[] =
        "ALTER TABLE runs ADD COLUMN wall_s REAL;\n"
        "ALTER TABLE runs ADD COLUMN cpu_s REAL;\n"
        "ALTER TABLE runs ADD COLUMN host_busy REAL;\n"
        "ALTER TABLE runs ADD COLUMN load1 REAL;\n"
        "ALTER TABLE results ADD COLUMN time_stdev_us REAL;\n";

/*
 * Schema version 4: the samples behind a result's spread when they are not
 * its nsamples (the windows of a stream that counts messages), so that the
 * degrees of freedom of the spread count independent samples (compare.c).
 */
const char ft__archive_schema_v4[] = "ALTER TABLE results ADD COLUMN spread_n INTEGER NOT NULL DEFAULT 0;\n";

/* ---- insert -------------------------------------------------------------- */

static const char sql_insert_row[] =
        "INSERT INTO results (run_id, idx, test, transport, bytes, count, dtype, redop, root,"
        " nranks, time_us, algbw_GBps, busbw_GBps, ip_time_us, ip_algbw_GBps, ip_busbw_GBps,"
        " wrong, lat_min_us, lat_avg_us, lat_p50_us, lat_p99_us, lat_p999_us, lat_max_us,"
        " lat_stdev_us, nsamples, algo, proto, bottleneck, src, dst, time_stdev_us, spread_n)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,"
        " ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32)";

static const char sql_select_rows[] =
        "SELECT test, transport, bytes, count, dtype, redop, root, nranks, time_us,"
        " algbw_GBps, busbw_GBps, ip_time_us, ip_algbw_GBps, ip_busbw_GBps, wrong, lat_min_us,"
        " lat_avg_us, lat_p50_us, lat_p99_us, lat_p999_us, lat_max_us, lat_stdev_us, nsamples,"
        " algo, proto, bottleneck, src, dst, time_stdev_us, spread_n FROM results WHERE run_id = ?1"
        " ORDER BY idx";

static int
step_done(struct ft_archive *ar, sqlite3_stmt *st, const char *what, struct ft_error *err)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : ft__archive_fail(ar, what, err);
}

static int
insert_rows(struct ft_archive *ar, int64_t id, const struct ft_run *run, struct ft_error *err)
{
	sqlite3_stmt *st;
	size_t i;
	int rc = ft__archive_prepare(ar, sql_insert_row, &st, err);

	for (i = 0; rc == 0 && i < ft_run_nrows(run); i++) {
		const struct ft_result_row *r = ft_run_row(run, i);

		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		ft__bind_text(st, 3, r->test);
		ft__bind_text(st, 4, r->transport);
		sqlite3_bind_int64(st, 5, (int64_t)r->bytes);
		sqlite3_bind_int64(st, 6, (int64_t)r->count);
		ft__bind_text(st, 7, r->dtype);
		ft__bind_text(st, 8, r->redop);
		sqlite3_bind_int(st, 9, r->root);
		sqlite3_bind_int64(st, 10, r->nranks);
		ft__bind_double(st, 11, r->time_us);
		ft__bind_double(st, 12, r->algbw_GBps);
		ft__bind_double(st, 13, r->busbw_GBps);
		ft__bind_double(st, 14, r->ip_time_us);
		ft__bind_double(st, 15, r->ip_algbw_GBps);
		ft__bind_double(st, 16, r->ip_busbw_GBps);
		sqlite3_bind_int64(st, 17, r->wrong);
		ft__bind_double(st, 18, r->lat_min_us);
		ft__bind_double(st, 19, r->lat_avg_us);
		ft__bind_double(st, 20, r->lat_p50_us);
		ft__bind_double(st, 21, r->lat_p99_us);
		ft__bind_double(st, 22, r->lat_p999_us);
		ft__bind_double(st, 23, r->lat_max_us);
		ft__bind_double(st, 24, r->lat_stdev_us);
		sqlite3_bind_int64(st, 25, r->nsamples);
		ft__bind_text(st, 26, r->algo);
		ft__bind_text(st, 27, r->proto);
		ft__bind_text(st, 28, r->bottleneck);
		ft__bind_text(st, 29, r->src);
		ft__bind_text(st, 30, r->dst);
		ft__bind_double(st, 31, r->time_stdev_us);
		sqlite3_bind_int64(st, 32, r->spread_n);
		rc = step_done(ar, st, "saving result rows", err);
	}
	sqlite3_finalize(st);
	return rc;
}

/* Bind an observation to columns @first.. (host, device, port, rank, key, num, str, unit,
 * file, line). */
static void
bind_obs(sqlite3_stmt *st, int first, const struct ft_obs *o)
{
	ft__bind_text(st, first, o->host);
	ft__bind_text(st, first + 1, o->device);
	sqlite3_bind_int(st, first + 2, o->port);
	sqlite3_bind_int(st, first + 3, o->rank);
	ft__bind_text(st, first + 4, o->key);
	ft__bind_double(st, first + 5, o->has_num ? o->num : NAN);
	ft__bind_text(st, first + 6, o->str);
	ft__bind_text(st, first + 7, o->unit);
	ft__bind_text(st, first + 8, o->file);
	sqlite3_bind_int64(st, first + 9, o->line);
}

/* The file is interned in @files. FT_ENOMEM. */
static int
column_obs(sqlite3_stmt *st, int first, struct ft_obs *o, struct ft_strpool *files)
{
	const unsigned char *file;

	memset(o, 0, sizeof(*o));
	ft__column_text(st, first, o->host, sizeof(o->host));
	ft__column_text(st, first + 1, o->device, sizeof(o->device));
	o->port = sqlite3_column_int(st, first + 2);
	o->rank = sqlite3_column_int(st, first + 3);
	ft__column_text(st, first + 4, o->key, sizeof(o->key));
	o->has_num = sqlite3_column_type(st, first + 5) != SQLITE_NULL;
	o->num = o->has_num ? sqlite3_column_double(st, first + 5) : 0;
	ft__column_text(st, first + 6, o->str, sizeof(o->str));
	ft__column_text(st, first + 7, o->unit, sizeof(o->unit));
	o->line = (uint32_t)sqlite3_column_int64(st, first + 9);
	file = sqlite3_column_text(st, first + 8);
	o->file = ft_strpool_intern(files, file ? (const char *)file : "");
	return o->file ? 0 : FT_ENOMEM;
}

static int
insert_obs(struct ft_archive *ar, int64_t id, const struct ft_obs_set *obs, struct ft_error *err)
{
	sqlite3_stmt *st;
	size_t i;
	int rc;

	if (!obs || ft_obs_set_len(obs) == 0)
		return 0;
	rc = ft__archive_prepare(ar,
	                         "INSERT INTO observations VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
	                         " ?9, ?10, ?11, ?12)",
	                         &st, err);
	for (i = 0; rc == 0 && i < ft_obs_set_len(obs); i++) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		bind_obs(st, 3, ft_obs_set_at(obs, i));
		rc = step_done(ar, st, "saving observations", err);
	}
	sqlite3_finalize(st);
	return rc;
}

static int
insert_findings(struct ft_archive *ar, int64_t id, const struct ft_finding *f, size_t n,
                struct ft_error *err)
{
	sqlite3_stmt *st = NULL, *ev = NULL;
	size_t i, k;
	int rc;

	if (n == 0)
		return 0;
	rc = ft__archive_prepare(
	        ar, "INSERT INTO findings VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)", &st, err);
	if (rc == 0)
		rc = ft__archive_prepare(
		        ar,
		        "INSERT INTO evidence VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
		        " ?9, ?10, ?11, ?12, ?13)",
		        &ev, err);
	for (i = 0; rc == 0 && i < n; i++) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, (int64_t)i);
		ft__bind_text(st, 3, f[i].rule_id);
		ft__bind_text(st, 4, ft_layer_name(f[i].layer));
		ft__bind_text(st, 5, ft_severity_name(f[i].severity));
		ft__bind_text(st, 6, f[i].entity);
		ft__bind_text(st, 7, f[i].message);
		ft__bind_text(st, 8, f[i].fix);
		ft__bind_text(st, 9, f[i].kb);
		rc = step_done(ar, st, "saving findings", err);
		for (k = 0; rc == 0 && k < FT_MIN(f[i].nevidence, FT_FINDING_MAX_EVIDENCE); k++) {
			sqlite3_bind_int64(ev, 1, id);
			sqlite3_bind_int64(ev, 2, (int64_t)i);
			sqlite3_bind_int64(ev, 3, (int64_t)k);
			bind_obs(ev, 4, &f[i].evidence[k]);
			rc = step_done(ar, ev, "saving evidence", err);
		}
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ev);
	return rc;
}

static int
insert_fingerprint(struct ft_archive *ar, int64_t id, const struct ft_fingerprint *fp,
                   struct ft_error *err)
{
	sqlite3_stmt *st;
	size_t i;
	int rc;

	if (!fp || ft_fingerprint_len(fp) == 0)
		return 0;
	rc = ft__archive_prepare(ar, "INSERT INTO fingerprints VALUES (?1, ?2, ?3)", &st, err);
	for (i = 0; rc == 0 && i < ft_fingerprint_len(fp); i++) {
		const struct ft_fingerprint_item *it = ft_fingerprint_at(fp, i);

		sqlite3_bind_int64(st, 1, id);
		ft__bind_text(st, 2, it->key);
		ft__bind_text(st, 3, it->value);
		rc = step_done(ar, st, "saving the fingerprint", err);
	}
	sqlite3_finalize(st);
	return rc;
}

int
ft__archive_insert(struct ft_archive *ar, const struct ft_run *run, const struct ft_obs_set *obs,
                   const struct ft_finding *findings, size_t nfindings,
                   const struct ft_fingerprint *fp, int64_t *run_id, struct ft_error *err)
{
	const char *host = fp ? ft_fingerprint_get(fp, "host.name") : NULL;
	struct ft_fingerprint empty;
	sqlite3_stmt *st;
	char digest[17];
	int64_t id;
	int rc;

	ft_fingerprint_init(&empty);
	ft_fingerprint_digest(fp ? fp : &empty, digest);
	rc = ft__archive_prepare(ar,
	                         "INSERT INTO runs (created_s, source, kind, label, spec, seed,"
	                         " started_s, host, fp_digest, nrows, nobs, nfindings, wall_s,"
	                         " cpu_s, host_busy, load1) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7,"
	                         " ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
	                         &st, err);
	if (rc < 0)
		return rc;
	sqlite3_bind_double(st, 1, ft__clock_s(CLOCK_REALTIME));
	ft__bind_text(st, 2, ft_source_name(run->source));
	ft__bind_text(st, 3, run->kind);
	ft__bind_text(st, 4, run->label);
	ft__bind_text(st, 5, run->spec);
	sqlite3_bind_int64(st, 6, (int64_t)run->seed);
	sqlite3_bind_double(st, 7, run->started_s);
	ft__bind_text(st, 8, host);
	ft__bind_text(st, 9, digest);
	sqlite3_bind_int64(st, 10, (int64_t)ft_run_nrows(run));
	sqlite3_bind_int64(st, 11, obs ? (int64_t)ft_obs_set_len(obs) : 0);
	sqlite3_bind_int64(st, 12, (int64_t)nfindings);
	ft__bind_double(st, 13, run->wall_s);
	ft__bind_double(st, 14, run->cpu_s);
	ft__bind_double(st, 15, run->host_busy);
	ft__bind_double(st, 16, run->load1);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : ft__archive_fail(ar, "saving the run", err);
	sqlite3_finalize(st);
	if (rc < 0)
		return rc;
	id = sqlite3_last_insert_rowid(ar->db);
	rc = insert_rows(ar, id, run, err);
	if (rc == 0)
		rc = insert_obs(ar, id, obs, err);
	if (rc == 0)
		rc = insert_findings(ar, id, findings, nfindings, err);
	if (rc == 0)
		rc = insert_fingerprint(ar, id, fp, err);
	if (rc == 0 && run_id)
		*run_id = id;
	return rc;
}

int
ft_archive_save(struct ft_archive *ar, const struct ft_run *run, const struct ft_obs_set *obs,
                const struct ft_finding *findings, size_t nfindings,
                const struct ft_fingerprint *fp, int64_t *run_id, struct ft_error *err)
{
	int rc;

	if (!ar || !run || (nfindings && !findings))
		return ft_error_set(err, FT_EINVAL, "archive: save: missing run or findings");
	rc = ft__archive_begin(ar, err);
	if (rc < 0)
		return rc;
	rc = ft__archive_insert(ar, run, obs, findings, nfindings, fp, run_id, err);
	return ft__archive_end(ar, rc, err);
}

int
ft_archive_save_record(struct ft_archive *ar, const struct ft_archive_record *rec, int64_t *run_id,
                       struct ft_error *err)
{
	return ft_archive_save(ar, &rec->run, &rec->obs, rec->findings.data, rec->findings.len,
	                       &rec->fp, run_id, err);
}

/* ---- load ---------------------------------------------------------------- */

static const char sql_select_info[] =
        "SELECT id, created_s, started_s, source, kind, label, spec, seed, host, fp_digest,"
        " nrows, nobs, nfindings, wall_s, cpu_s, host_busy, load1 FROM runs";

static void
column_info(sqlite3_stmt *st, struct ft_archive_info *in)
{
	char source[16];

	memset(in, 0, sizeof(*in));
	in->id = sqlite3_column_int64(st, 0);
	in->created_s = sqlite3_column_double(st, 1);
	in->started_s = sqlite3_column_double(st, 2);
	ft__column_text(st, 3, source, sizeof(source));
	if (ft_source_from_name(source, &in->source) < 0)
		in->source = FT_SOURCE_IMPORT;
	ft__column_text(st, 4, in->kind, sizeof(in->kind));
	ft__column_text(st, 5, in->label, sizeof(in->label));
	ft__column_text(st, 6, in->spec, sizeof(in->spec));
	in->seed = (uint64_t)sqlite3_column_int64(st, 7);
	ft__column_text(st, 8, in->host, sizeof(in->host));
	ft__column_text(st, 9, in->fp_digest, sizeof(in->fp_digest));
	in->nrows = (size_t)sqlite3_column_int64(st, 10);
	in->nobs = (size_t)sqlite3_column_int64(st, 11);
	in->nfindings = (size_t)sqlite3_column_int64(st, 12);
	in->wall_s = ft__column_double(st, 13);
	in->cpu_s = ft__column_double(st, 14);
	in->host_busy = ft__column_double(st, 15);
	in->load1 = ft__column_double(st, 16);
}

static void
column_row(sqlite3_stmt *st, struct ft_result_row *r)
{
	ft_result_row_init(r);
	ft__column_text(st, 0, r->test, sizeof(r->test));
	ft__column_text(st, 1, r->transport, sizeof(r->transport));
	r->bytes = (uint64_t)sqlite3_column_int64(st, 2);
	r->count = (uint64_t)sqlite3_column_int64(st, 3);
	ft__column_text(st, 4, r->dtype, sizeof(r->dtype));
	ft__column_text(st, 5, r->redop, sizeof(r->redop));
	r->root = sqlite3_column_int(st, 6);
	r->nranks = (uint32_t)sqlite3_column_int64(st, 7);
	r->time_us = ft__column_double(st, 8);
	r->algbw_GBps = ft__column_double(st, 9);
	r->busbw_GBps = ft__column_double(st, 10);
	r->ip_time_us = ft__column_double(st, 11);
	r->ip_algbw_GBps = ft__column_double(st, 12);
	r->ip_busbw_GBps = ft__column_double(st, 13);
	r->wrong = sqlite3_column_int64(st, 14);
	r->lat_min_us = ft__column_double(st, 15);
	r->lat_avg_us = ft__column_double(st, 16);
	r->lat_p50_us = ft__column_double(st, 17);
	r->lat_p99_us = ft__column_double(st, 18);
	r->lat_p999_us = ft__column_double(st, 19);
	r->lat_max_us = ft__column_double(st, 20);
	r->lat_stdev_us = ft__column_double(st, 21);
	r->nsamples = (uint32_t)sqlite3_column_int64(st, 22);
	ft__column_text(st, 23, r->algo, sizeof(r->algo));
	ft__column_text(st, 24, r->proto, sizeof(r->proto));
	ft__column_text(st, 25, r->bottleneck, sizeof(r->bottleneck));
	ft__column_text(st, 26, r->src, sizeof(r->src));
	ft__column_text(st, 27, r->dst, sizeof(r->dst));
	r->time_stdev_us = ft__column_double(st, 28);
	r->spread_n = (uint32_t)sqlite3_column_int64(st, 29);
}

/* Run @sql with ?1 = @id, calling @fn for each row. */
static int
for_each(struct ft_archive *ar, const char *sql, int64_t id,
         int (*fn)(sqlite3_stmt *st, struct ft_archive_record *rec), struct ft_archive_record *rec,
         struct ft_error *err)
{
	sqlite3_stmt *st;
	int rc = ft__archive_prepare_id(ar, sql, id, &st, err);
	int s;

	if (rc < 0)
		return rc;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		rc = fn(st, rec);
		if (rc < 0) {
			ft_error_set(err, rc, "archive %s: run %" PRId64 ": out of memory",
			             ar->path, id);
			break;
		}
	}
	if (rc == 0 && s != SQLITE_DONE)
		rc = ft__archive_fail(ar, "loading a run", err);
	sqlite3_finalize(st);
	return rc;
}

static int
load_row(sqlite3_stmt *st, struct ft_archive_record *rec)
{
	struct ft_result_row r;

	column_row(st, &r);
	return ft_run_add(&rec->run, &r);
}

static int
load_obs(sqlite3_stmt *st, struct ft_archive_record *rec)
{
	struct ft_obs o;

	if (column_obs(st, 0, &o, &rec->obs.files) < 0)
		return FT_ENOMEM;
	return ft_obs_set_add(&rec->obs, &o);
}

static int
load_finding(sqlite3_stmt *st, struct ft_archive_record *rec)
{
	struct ft_finding f;
	char name[32];
	int v;

	memset(&f, 0, sizeof(f));
	ft__column_text(st, 0, f.rule_id, sizeof(f.rule_id));
	ft__column_text(st, 1, name, sizeof(name));
	v = ft__layer_from_name(name);
	f.layer = v < 0 ? FT_LAYER_APPLICATION : (enum ft_layer)v;
	ft__column_text(st, 2, name, sizeof(name));
	v = ft__severity_from_name(name);
	f.severity = v < 0 ? FT_SEV_INFO : (enum ft_severity)v;
	ft__column_text(st, 3, f.entity, sizeof(f.entity));
	ft__column_text(st, 4, f.message, sizeof(f.message));
	ft__column_text(st, 5, f.fix, sizeof(f.fix));
	ft__column_text(st, 6, f.kb, sizeof(f.kb));
	return ft_vec_push(&rec->findings, &f);
}

static int
load_evidence(sqlite3_stmt *st, struct ft_archive_record *rec)
{
	int64_t fi = sqlite3_column_int64(st, 0);
	struct ft_finding *f;

	if (fi < 0 || (size_t)fi >= rec->findings.len)
		return 0;
	f = ft_vec_at(&rec->findings, (size_t)fi);
	/* the files of the evidence are held by the record's observation set */
	if (f->nevidence < FT_FINDING_MAX_EVIDENCE) {
		if (column_obs(st, 1, &f->evidence[f->nevidence], &rec->obs.files) < 0)
			return FT_ENOMEM;
		f->nevidence++;
	}
	return 0;
}

static int
load_fp(sqlite3_stmt *st, struct ft_archive_record *rec)
{
	return ft_fingerprint_set(&rec->fp, (const char *)sqlite3_column_text(st, 0),
	                          (const char *)sqlite3_column_text(st, 1));
}

static int
load_info(struct ft_archive *ar, int64_t id, struct ft_archive_info *in, struct ft_error *err)
{
	char sql[sizeof(sql_select_info) + 32];
	sqlite3_stmt *st;
	int rc, s;

	snprintf(sql, sizeof(sql), "%s WHERE id = ?1", sql_select_info);
	rc = ft__archive_prepare_id(ar, sql, id, &st, err);
	if (rc < 0)
		return rc;
	s = sqlite3_step(st);
	if (s == SQLITE_ROW)
		column_info(st, in);
	else if (s == SQLITE_DONE)
		rc = ft_error_set(err, FT_ENOENT, "no run %" PRId64 " in the archive", id);
	else
		rc = ft__archive_fail(ar, "loading a run", err);
	sqlite3_finalize(st);
	return rc;
}

int
ft_archive_load(struct ft_archive *ar, int64_t id, struct ft_archive_record *rec,
                struct ft_error *err)
{
	int rc;

	ft_archive_record_init(rec);
	/* One read transaction: a concurrent writer cannot show half a run. */
	rc = ft__archive_exec(ar, "BEGIN", err);
	if (rc < 0)
		return rc;
	rc = load_info(ar, id, &rec->info, err);
	if (rc == 0) {
		FT__ARCHIVE_COPY_IDENTITY(&rec->run, &rec->info);
		rec->run.wall_s = rec->info.wall_s;
		rec->run.cpu_s = rec->info.cpu_s;
		rec->run.host_busy = rec->info.host_busy;
		rec->run.load1 = rec->info.load1;
		rc = for_each(ar, sql_select_rows, id, load_row, rec, err);
	}
	if (rc == 0)
		rc = for_each(ar,
		              "SELECT host, device, port, rank, key, num, str, unit, file, line"
		              " FROM observations WHERE run_id = ?1 ORDER BY idx",
		              id, load_obs, rec, err);
	if (rc == 0)
		rc = for_each(ar,
		              "SELECT rule_id, layer, severity, entity, message, fix, kb"
		              " FROM findings WHERE run_id = ?1 ORDER BY idx",
		              id, load_finding, rec, err);
	if (rc == 0)
		rc = for_each(
		        ar,
		        "SELECT finding_idx, host, device, port, rank, key, num, str, unit,"
		        " file, line FROM evidence WHERE run_id = ?1 ORDER BY finding_idx, idx",
		        id, load_evidence, rec, err);
	if (rc == 0)
		rc = for_each(ar, "SELECT key, value FROM fingerprints WHERE run_id = ?1", id,
		              load_fp, rec, err);
	ft__archive_rollback(ar);
	if (rc < 0)
		ft_archive_record_release(rec);
	return rc;
}

/* ---- list, resolve, delete ----------------------------------------------- */

int
ft_archive_list(struct ft_archive *ar, const struct ft_archive_query *q, struct ft_vec *out,
                struct ft_error *err)
{
	struct ft_strbuf sql;
	struct ft_archive_info in;
	sqlite3_stmt *st;
	size_t start;
	int rc, s;

	ft_strbuf_init(&sql);
	ft_strbuf_adds(&sql, "SELECT * FROM (");
	ft_strbuf_adds(&sql, sql_select_info);
	ft_strbuf_adds(&sql, " WHERE (?1 IS NULL OR kind = ?1) AND (?2 IS NULL OR source = ?2)"
	                     " ORDER BY id DESC LIMIT ?3) ORDER BY id");
	if (sql.oom) {
		/* A truncated statement must not reach SQLite (an empty one prepares to NULL). */
		ft_strbuf_release(&sql);
		return ft_error_set(err, FT_ENOMEM, "archive %s: out of memory", ar->path);
	}
	rc = ft__archive_prepare(ar, sql.buf, &st, err);
	ft_strbuf_release(&sql);
	if (rc < 0)
		return rc;
	if (q && q->kind)
		ft__bind_text(st, 1, q->kind);
	if (q && q->source)
		ft__bind_text(st, 2, q->source);
	sqlite3_bind_int64(st, 3, q && q->limit ? (int64_t)q->limit : -1);
	start = out->len;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		column_info(st, &in);
		if (ft_vec_push(out, &in) < 0) {
			rc = ft_error_set(err, FT_ENOMEM, "archive %s: out of memory", ar->path);
			break;
		}
	}
	if (rc == 0 && s != SQLITE_DONE)
		rc = ft__archive_fail(ar, "listing runs", err);
	if (rc < 0)
		out->len = start;
	sqlite3_finalize(st);
	return rc;
}

static int
single_id(struct ft_archive *ar, const char *sql, int64_t arg, int64_t *id, struct ft_error *err)
{
	sqlite3_stmt *st;
	int rc = ft__archive_prepare_id(ar, sql, arg, &st, err);
	int s;

	if (rc < 0)
		return rc;
	s = sqlite3_step(st);
	if (s == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	else if (s == SQLITE_DONE)
		rc = FT_ENOENT;
	else
		rc = ft__archive_fail(ar, "looking up a run", err);
	sqlite3_finalize(st);
	return rc;
}

int
ft_archive_resolve(struct ft_archive *ar, const char *ref, int64_t *id, struct ft_error *err)
{
	int64_t n = 0;
	int rc;

	if (!ref || !ref[0])
		return ft_error_set(err, FT_EINVAL, "empty run reference");
	if (strncmp(ref, "latest", 6) == 0) {
		if (ref[6] == '~') {
			if (ft_parse_i64(ref + 7, &n) < 0 || n < 0)
				return ft_error_set(err, FT_EINVAL,
				                    "run reference '%s': expected latest~N with "
				                    "N >= 0",
				                    ref);
		} else if (ref[6]) {
			return ft_error_set(
			        err, FT_EINVAL,
			        "run reference '%s': expected an id, latest or latest~N", ref);
		}
		rc = single_id(ar, "SELECT id FROM runs ORDER BY id DESC LIMIT 1 OFFSET ?1", n, id,
		               err);
		if (rc == FT_ENOENT)
			return ft_error_set(err, FT_ENOENT, "no run '%s' in the archive (%s)", ref,
			                    n ? "not that many runs" : "the archive is empty");
		return rc;
	}
	if (ft_parse_i64(ref, &n) < 0 || n <= 0)
		return ft_error_set(err, FT_EINVAL,
		                    "run reference '%s': expected a run id, latest or latest~N",
		                    ref);
	rc = single_id(ar, "SELECT id FROM runs WHERE id = ?1", n, id, err);
	if (rc == FT_ENOENT)
		return ft_error_set(err, FT_ENOENT, "no run %" PRId64 " in the archive", n);
	return rc;
}

int
ft_archive_delete(struct ft_archive *ar, int64_t id, struct ft_error *err)
{
	sqlite3_stmt *st;
	int rc;

	rc = ft__archive_begin(ar, err);
	if (rc < 0)
		return rc;
	rc = ft__archive_prepare(ar, "DELETE FROM runs WHERE id = ?1", &st, err);
	if (rc == 0) {
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = ft__archive_fail(ar, "deleting a run", err);
		else if (sqlite3_changes(ar->db) == 0)
			rc = ft_error_set(err, FT_ENOENT, "no run %" PRId64 " in the archive", id);
		sqlite3_finalize(st);
	}
	return ft__archive_end(ar, rc, err);
}

int
ft_archive_check(struct ft_archive *ar, size_t *nruns, struct ft_error *err)
{
	sqlite3_stmt *st;
	char what[256];
	int rc, s;

	rc = ft__archive_pragma_text(ar, "PRAGMA integrity_check", "integrity check", what,
	                             sizeof(what), err);
	if (rc == 0 && strcmp(what, "ok") != 0)
		rc = ft_error_set(err, FT_EARCHIVE, "archive %s: integrity check: %s", ar->path,
		                  what);
	if (rc == 0)
		rc = ft__archive_check_schema(ar, err);
	if (rc < 0)
		return rc;
	rc = ft__archive_prepare(ar,
	                         "SELECT id, nrows, (SELECT count(*) FROM results r WHERE"
	                         " r.run_id = runs.id), nobs, (SELECT count(*) FROM observations o"
	                         " WHERE o.run_id = runs.id), nfindings, (SELECT count(*) FROM"
	                         " findings f WHERE f.run_id = runs.id) FROM runs ORDER BY id",
	                         &st, err);
	if (rc < 0)
		return rc;
	*nruns = 0;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		int k;

		(*nruns)++;
		for (k = 1; k <= 5; k += 2) {
			if (sqlite3_column_int64(st, k) == sqlite3_column_int64(st, k + 1))
				continue;
			rc = ft_error_set(err, FT_EARCHIVE,
			                  "archive %s: run %" PRId64 " records %" PRId64
			                  " %s but holds %" PRId64,
			                  ar->path, (int64_t)sqlite3_column_int64(st, 0),
			                  (int64_t)sqlite3_column_int64(st, k),
			                  k == 1 ? "results" :
			                  k == 3 ? "observations" :
			                           "findings",
			                  (int64_t)sqlite3_column_int64(st, k + 1));
			break;
		}
		if (rc < 0)
			break;
	}
	if (rc == 0 && s != SQLITE_DONE)
		rc = ft__archive_fail(ar, "checking runs", err);
	sqlite3_finalize(st);
	return rc;
}

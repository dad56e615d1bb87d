/* SPDX-License-Identifier: MIT */
/*
 * archive/db.c - opening the archive: recognising a foreign or corrupt file
 * before anything is written, WAL mode, the busy timeout, and the schema
 * migrations (PRAGMA user_version).
 *
 * Schema history. Version 1 kept the fingerprint as "key=value" lines in
 * runs.fingerprint and findings without evidence. Version 2 moved the
 * fingerprint to its own table (one row per key, so runs can be selected by
 * driver or firmware), added the evidence of findings, the baselines table,
 * and per-run counts and digest. A new file is created by running every
 * migration from 0, so the upgrade path is exercised on every new archive.
 */
#include "archive_int.h"

#include <sys/stat.h>
#include <sys/types.h>

/* Wait this long for another writer before giving up, milliseconds. */
#define BUSY_TIMEOUT_MS 30000

int
ft__archive_fail(struct ft_archive *ar, const char *what, struct ft_error *err)
{
	return ft_error_set(err, FT_EARCHIVE, "archive %s: %s: %s", ar->path, what,
	                    sqlite3_errmsg(ar->db));
}

int
ft__archive_exec(struct ft_archive *ar, const char *sql, struct ft_error *err)
{
	char *msg = NULL;
	int rc = sqlite3_exec(ar->db, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		ft_error_set(err, FT_EARCHIVE, "archive %s: %s", ar->path,
		             msg ? msg : sqlite3_errstr(rc));
		sqlite3_free(msg);
		return FT_EARCHIVE;
	}
	return 0;
}

int
ft__archive_prepare(struct ft_archive *ar, const char *sql, sqlite3_stmt **st, struct ft_error *err)
{
	if (sqlite3_prepare_v2(ar->db, sql, -1, st, NULL) != SQLITE_OK) {
		*st = NULL;
		return ft__archive_fail(ar, "prepare", err);
	}
	return 0;
}

int
ft__archive_prepare_id(struct ft_archive *ar, const char *sql, int64_t id, sqlite3_stmt **st,
                       struct ft_error *err)
{
	int rc = ft__archive_prepare(ar, sql, st, err);

	if (rc == 0)
		sqlite3_bind_int64(*st, 1, id);
	return rc;
}

int
ft__bind_text(sqlite3_stmt *st, int i, const char *s)
{
	return sqlite3_bind_text(st, i, s ? s : "", -1, SQLITE_TRANSIENT);
}

int
ft__bind_double(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		return sqlite3_bind_null(st, i);
	return sqlite3_bind_double(st, i, v);
}

void
ft__column_text(sqlite3_stmt *st, int i, char *buf, size_t len)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	ft_strlcpy(buf, t ? (const char *)t : "", len);
}

double
ft__column_double(sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return NAN;
	return sqlite3_column_double(st, i);
}

static int check_before_write(struct ft_archive *ar, struct ft_error *err);

int
ft__archive_begin(struct ft_archive *ar, struct ft_error *err)
{
	int rc;

	if (ar->readonly[0])
		return ft_error_set(err, FT_EARCHIVE,
		                    "archive %s: opened read-only (%s); nothing was saved",
		                    ar->path, ar->readonly);
	if (!ar->write_checked) {
		rc = check_before_write(ar, err);
		if (rc < 0)
			return rc;
		ar->write_checked = true;
	}
	return ft__archive_exec(ar, "BEGIN IMMEDIATE", err);
}

int
ft__archive_commit(struct ft_archive *ar, struct ft_error *err)
{
	return ft__archive_exec(ar, "COMMIT", err);
}

void
ft__archive_rollback(struct ft_archive *ar)
{
	if (!sqlite3_get_autocommit(ar->db))
		sqlite3_exec(ar->db, "ROLLBACK", NULL, NULL, NULL);
}

int
ft__archive_end(struct ft_archive *ar, int rc, struct ft_error *err)
{
	if (rc == 0)
		rc = ft__archive_commit(ar, err);
	if (rc < 0)
		ft__archive_rollback(ar);
	return rc;
}

static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * A new archive is created in the folder of @path: a folder that is missing
 * (or a file) is the user's mistake, said as such, not SQLite's "unable to
 * open database file".
 */
static int
check_folder(const char *path, struct ft_error *err)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	struct stat st;

	if (!slash || slash == path || (size_t)(slash - path) >= sizeof(dir))
		return 0;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	if (stat(dir, &st) < 0)
		return ft_error_set(err, FT_ENOENT, "archive %s: no folder %s to create it in",
		                    path, dir);
	if (!S_ISDIR(st.st_mode))
		return ft_error_set(err, FT_ENOENT, "archive %s: %s is a %s, not a folder", path,
		                    dir, ft_file_type_name((unsigned)st.st_mode));
	return 0;
}

/*
 * Look at the file's first 100 bytes (the SQLite header) before SQLite opens
 * it, so that a text file, an image or another application's database is
 * refused without a single byte written. Empty or absent files are new.
 */
static int
check_header(const char *path, struct ft_error *err)
{
	unsigned char hdr[100];
	struct stat stbuf;
	uint32_t app_id;
	size_t n;
	FILE *f;

	if (stat(path, &stbuf) < 0)
		return errno == ENOENT || errno == ENOTDIR ?
		               check_folder(path, err) :
		               ft_error_set(err, FT_EIO, "archive %s: %s", path, strerror(errno));
	if (!S_ISREG(stbuf.st_mode))
		return ft_error_set(err, FT_EARCHIVE, "archive %s: not a regular file", path);
	if (stbuf.st_size == 0)
		return 0;
	f = fopen(path, "rb");
	if (!f)
		return ft_error_set(err, FT_EIO, "archive %s: %s", path, strerror(errno));
	n = fread(hdr, 1, sizeof(hdr), f);
	fclose(f);
	if (n < 16 || memcmp(hdr, "SQLite format 3", 16) != 0)
		return ft_error_set(err, FT_EARCHIVE,
		                    "archive %s: not a fabtune archive (not an SQLite database); "
		                    "the file was left untouched",
		                    path);
	if (n < sizeof(hdr))
		return ft_error_set(
		        err, FT_EARCHIVE,
		        "archive %s: corrupt archive (truncated SQLite header, %zu bytes); "
		        "the file was left untouched",
		        path, n);
	app_id = be32(hdr + 68);
	if (app_id != 0 && app_id != FT_ARCHIVE_APPLICATION_ID)
		return ft_error_set(err, FT_EARCHIVE,
		                    "archive %s: not a fabtune archive (SQLite application_id "
		                    "0x%08" PRIx32
		                    ", fabtune uses 0x%08x); the file was left untouched",
		                    path, app_id, FT_ARCHIVE_APPLICATION_ID);
	return 0;
}

/* What the last SQLite failure on @ar means, in words. */
static const char *
cause_of(struct ft_archive *ar)
{
	switch (sqlite3_errcode(ar->db) & 0xff) {
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return "corrupt archive";
	case SQLITE_CANTOPEN:
		return "cannot open the archive or its -wal/-shm files";
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return "permission denied";
	case SQLITE_READONLY:
		return "the archive is read-only";
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return "the archive is locked by another process";
	case SQLITE_IOERR:
		return "I/O error reading the archive";
	case SQLITE_NOMEM:
		return "out of memory";
	case SQLITE_FULL:
		return "the disk is full";
	default:
		return "cannot read the archive";
	}
}

static int
pragma_int(struct ft_archive *ar, const char *sql, int64_t *out, struct ft_error *err)
{
	sqlite3_stmt *st;
	int rc = ft__archive_prepare(ar, sql, &st, err);

	if (rc < 0)
		return rc;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		rc = ft__archive_fail(ar, sql, err);
		sqlite3_finalize(st);
		return rc;
	}
	*out = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 0;
}

/*
 * After SQLite opened the file, and still before any write: read the
 * application id, the schema version and whether it holds tables. A corrupt
 * file fails here (SQLITE_NOTADB, SQLITE_CORRUPT) without being modified.
 */
static int
check_identity(struct ft_archive *ar, struct ft_error *err)
{
	int64_t app_id, version, ntables;
	int rc;

	/*
	 * One read transaction, so the three figures come from one snapshot:
	 * another process creating the same new file commits its schema and
	 * its application id together, and read separately they could be seen
	 * half before and half after that commit.
	 */
	rc = ft__archive_exec(ar, "BEGIN", err);
	if (rc == 0)
		rc = pragma_int(ar, "PRAGMA application_id", &app_id, err);
	if (rc == 0)
		rc = pragma_int(ar, "PRAGMA user_version", &version, err);
	if (rc == 0)
		rc = pragma_int(ar, "SELECT count(*) FROM sqlite_schema", &ntables, err);
	if (rc == 0)
		rc = ft__archive_commit(ar, err);
	if (rc < 0) {
		/* the cause before the rollback resets SQLite's error code */
		ft_error_prefix(err, "%s (the file was left untouched): ", cause_of(ar));
		ft__archive_rollback(ar);
		return rc;
	}
	if (app_id != 0 && app_id != FT_ARCHIVE_APPLICATION_ID)
		return ft_error_set(err, FT_EARCHIVE,
		                    "archive %s: not a fabtune archive (SQLite application_id "
		                    "0x%08" PRIx64 "); the file was left untouched",
		                    ar->path, (uint64_t)app_id);
	if (app_id == 0 && ntables > 0)
		return ft_error_set(err, FT_EARCHIVE,
		                    "archive %s: not a fabtune archive (an SQLite database with "
		                    "%" PRId64 " schema objects but no fabtune application_id); "
		                    "the file was left untouched",
		                    ar->path, ntables);
	if (version > FT_ARCHIVE_SCHEMA_VERSION)
		return ft_error_set(err, FT_EARCHIVE,
		                    "archive %s: made by a newer fabtune (schema version %" PRId64
		                    ", this one reads up to %d); the file was left untouched",
		                    ar->path, version, FT_ARCHIVE_SCHEMA_VERSION);
	ar->opened_version = (int)version;
	return 0;
}

/* ---- migrations ---------------------------------------------------------- */

static const char schema_v1[] =
        "CREATE TABLE runs (\n"
        "  id INTEGER PRIMARY KEY,\n"
        "  created_s REAL NOT NULL,\n"
        "  source TEXT NOT NULL,\n"
        "  kind TEXT NOT NULL,\n"
        "  label TEXT NOT NULL DEFAULT '',\n"
        "  spec TEXT NOT NULL DEFAULT '',\n"
        "  seed INTEGER NOT NULL DEFAULT 0,\n"
        "  fingerprint TEXT NOT NULL DEFAULT ''\n"
        ");\n"
        "CREATE TABLE results (\n"
        "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
        "  idx INTEGER NOT NULL,\n"
        "  test TEXT NOT NULL, transport TEXT NOT NULL, bytes INTEGER NOT NULL,\n"
        "  count INTEGER NOT NULL, dtype TEXT NOT NULL, redop TEXT NOT NULL,\n"
        "  root INTEGER NOT NULL, nranks INTEGER NOT NULL,\n"
        "  time_us REAL, algbw_GBps REAL, busbw_GBps REAL,\n"
        "  ip_time_us REAL, ip_algbw_GBps REAL, ip_busbw_GBps REAL,\n"
        "  wrong INTEGER NOT NULL,\n"
        "  lat_min_us REAL, lat_avg_us REAL, lat_p50_us REAL, lat_p99_us REAL,\n"
        "  lat_p999_us REAL, lat_max_us REAL, lat_stdev_us REAL,\n"
        "  nsamples INTEGER NOT NULL, algo TEXT NOT NULL, proto TEXT NOT NULL,\n"
        "  bottleneck TEXT NOT NULL, src TEXT NOT NULL, dst TEXT NOT NULL,\n"
        "  PRIMARY KEY (run_id, idx)\n"
        ");\n"
        "CREATE TABLE observations (\n"
        "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
        "  idx INTEGER NOT NULL,\n"
        "  host TEXT NOT NULL, device TEXT NOT NULL, port INTEGER NOT NULL,\n"
        "  rank INTEGER NOT NULL, key TEXT NOT NULL, num REAL, str TEXT NOT NULL,\n"
        "  unit TEXT NOT NULL, file TEXT NOT NULL, line INTEGER NOT NULL,\n"
        "  PRIMARY KEY (run_id, idx)\n"
        ");\n"
        "CREATE TABLE findings (\n"
        "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
        "  idx INTEGER NOT NULL,\n"
        "  rule_id TEXT NOT NULL, layer TEXT NOT NULL, severity TEXT NOT NULL,\n"
        "  entity TEXT NOT NULL, message TEXT NOT NULL, fix TEXT NOT NULL,\n"
        "  kb TEXT NOT NULL,\n"
        "  PRIMARY KEY (run_id, idx)\n"
        ");\n";

static const char schema_v2[] =
        "ALTER TABLE runs ADD COLUMN started_s REAL NOT NULL DEFAULT 0;\n"
        "ALTER TABLE runs ADD COLUMN host TEXT NOT NULL DEFAULT '';\n"
        "ALTER TABLE runs ADD COLUMN fp_digest TEXT NOT NULL DEFAULT '';\n"
        "ALTER TABLE runs ADD COLUMN nrows INTEGER NOT NULL DEFAULT 0;\n"
        "ALTER TABLE runs ADD COLUMN nobs INTEGER NOT NULL DEFAULT 0;\n"
        "ALTER TABLE runs ADD COLUMN nfindings INTEGER NOT NULL DEFAULT 0;\n"
        "CREATE TABLE fingerprints (\n"
        "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
        "  key TEXT NOT NULL, value TEXT NOT NULL,\n"
        "  PRIMARY KEY (run_id, key)\n"
        ") WITHOUT ROWID;\n"
        "CREATE TABLE evidence (\n"
        "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
        "  finding_idx INTEGER NOT NULL, idx INTEGER NOT NULL,\n"
        "  host TEXT NOT NULL, device TEXT NOT NULL, port INTEGER NOT NULL,\n"
        "  rank INTEGER NOT NULL, key TEXT NOT NULL, num REAL, str TEXT NOT NULL,\n"
        "  unit TEXT NOT NULL, file TEXT NOT NULL, line INTEGER NOT NULL,\n"
        "  PRIMARY KEY (run_id, finding_idx, idx)\n"
        ");\n"
        "CREATE TABLE baselines (\n"
        "  name TEXT NOT NULL,\n"
        "  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
        "  added_s REAL NOT NULL,\n"
        "  PRIMARY KEY (name, run_id)\n"
        ");\n"
        "CREATE INDEX runs_kind ON runs(kind);\n"
        "UPDATE runs SET\n"
        "  nrows = (SELECT count(*) FROM results r WHERE r.run_id = runs.id),\n"
        "  nobs = (SELECT count(*) FROM observations o WHERE o.run_id = runs.id),\n"
        "  nfindings = (SELECT count(*) FROM findings f WHERE f.run_id = runs.id);\n";

/*
 * Version 1 -> 2, the part SQL cannot do alone: split each run's
 * "key=value" fingerprint lines into rows, fill host and digest, then drop
 * the old column.
 */
static int
migrate_fingerprints(struct ft_archive *ar, struct ft_error *err)
{
	sqlite3_stmt *sel = NULL, *upd = NULL;
	int rc;

	rc = ft__archive_prepare(ar, "SELECT id, fingerprint FROM runs ORDER BY id", &sel, err);
	if (rc == 0)
		rc = ft__archive_prepare(
		        ar, "UPDATE runs SET host = ?2, fp_digest = ?3 WHERE id = ?1", &upd, err);
	while (rc == 0 && sqlite3_step(sel) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(sel, 1);
		int64_t id = sqlite3_column_int64(sel, 0);
		struct ft_fingerprint fp;
		char digest[17];
		const char *p, *host;
		size_t i;

		ft_fingerprint_init(&fp);
		for (p = text ? text : ""; rc == 0 && *p;) {
			const char *eol = strchr(p, '\n');
			size_t n = eol ? (size_t)(eol - p) : strlen(p);
			const char *eq = memchr(p, '=', n);

			if (eq && eq > p) {
				char key[64], value[256];

				ft_strlcpy(key, p, FT_MIN(sizeof(key), (size_t)(eq - p) + 1));
				ft_strlcpy(value, eq + 1,
				           FT_MIN(sizeof(value), (size_t)(p + n - eq - 1) + 1));
				rc = ft_fingerprint_set(&fp, key, value);
				if (rc < 0)
					ft_error_set(err, rc,
					             "archive %s: migrating run %" PRId64
					             ": out of memory",
					             ar->path, id);
			}
			p += n + (eol ? 1 : 0);
		}
		for (i = 0; rc == 0 && i < ft_fingerprint_len(&fp); i++) {
			const struct ft_fingerprint_item *it = ft_fingerprint_at(&fp, i);
			sqlite3_stmt *ins;

			rc = ft__archive_prepare(ar, "INSERT INTO fingerprints VALUES (?1, ?2, ?3)",
			                         &ins, err);
			if (rc < 0)
				break;
			sqlite3_bind_int64(ins, 1, id);
			ft__bind_text(ins, 2, it->key);
			ft__bind_text(ins, 3, it->value);
			if (sqlite3_step(ins) != SQLITE_DONE)
				rc = ft__archive_fail(ar, "migrating fingerprints", err);
			sqlite3_finalize(ins);
		}
		if (rc == 0) {
			host = ft_fingerprint_get(&fp, "host.name");
			ft_fingerprint_digest(&fp, digest);
			sqlite3_reset(upd);
			sqlite3_bind_int64(upd, 1, id);
			ft__bind_text(upd, 2, host);
			ft__bind_text(upd, 3, digest);
			if (sqlite3_step(upd) != SQLITE_DONE)
				rc = ft__archive_fail(ar, "migrating runs", err);
		}
		ft_fingerprint_release(&fp);
	}
	sqlite3_finalize(sel);
	sqlite3_finalize(upd);
	if (rc == 0)
		rc = ft__archive_exec(ar, "ALTER TABLE runs DROP COLUMN fingerprint", err);
	return rc;
}

static int
migrate_to_1(struct ft_archive *ar, struct ft_error *err)
{
	return ft__archive_exec(ar, schema_v1, err);
}

static int
migrate_to_2(struct ft_archive *ar, struct ft_error *err)
{
	int rc = ft__archive_exec(ar, schema_v2, err);

	return rc < 0 ? rc : migrate_fingerprints(ar, err);
}

/* Version 2 -> 3: the CPU usage of a run and the per-iteration spread of a result. */
static int
migrate_to_3(struct ft_archive *ar, struct ft_error *err)
{
	return ft__archive_exec(ar, ft__archive_schema_v3, err);
}

/* Version 3 -> 4: the samples behind a result's spread (a stream's windows). */
static int
migrate_to_4(struct ft_archive *ar, struct ft_error *err)
{
	return ft__archive_exec(ar, ft__archive_schema_v4, err);
}

/* migrations[v] takes a version-v archive to v + 1. */
static int (*const migrations[])(struct ft_archive *, struct ft_error *) = {
	migrate_to_1,
	migrate_to_2,
	migrate_to_3,
	migrate_to_4,
};
_Static_assert(FT_ARRAY_SIZE(migrations) == FT_ARCHIVE_SCHEMA_VERSION, "one migration per version");

/* ---- checks before the first write --------------------------------------- */

/*
 * The schema objects fabtune creates, by type and name: taken from a
 * throw-away in-memory database built by the same migrations, so a new
 * migration needs no second list here.
 */
static int
own_objects(sqlite3 **out, struct ft_error *err)
{
	struct ft_archive ref = { .path = (char *)"(reference schema)" };
	int rc, i;

	*out = NULL;
	if (sqlite3_open_v2(":memory:", &ref.db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		sqlite3_close(ref.db);
		return ft_error_set(err, FT_ENOMEM, "archive: out of memory");
	}
	rc = ft__archive_exec(&ref, "BEGIN", err);
	for (i = 0; rc == 0 && i < FT_ARCHIVE_SCHEMA_VERSION; i++)
		rc = migrations[i](&ref, err);
	if (rc == 0)
		rc = ft__archive_exec(&ref, "COMMIT", err);
	if (rc < 0) {
		sqlite3_close(ref.db);
		return rc;
	}
	*out = ref.db;
	return 0;
}

int
ft__archive_check_schema(struct ft_archive *ar, struct ft_error *err)
{
	sqlite3_stmt *st = NULL, *own = NULL;
	sqlite3 *ref;
	int rc, s;

	rc = own_objects(&ref, err);
	if (rc < 0)
		return rc;
	if (sqlite3_prepare_v2(ref, "SELECT 1 FROM sqlite_schema WHERE type = ?1 AND name = ?2", -1,
	                       &own, NULL) != SQLITE_OK) {
		rc = ft_error_set(err, FT_EARCHIVE, "archive: reference schema: %s",
		                  sqlite3_errmsg(ref));
		goto out;
	}
	rc = ft__archive_prepare(ar,
	                         "SELECT type, name, tbl_name FROM sqlite_schema WHERE name NOT "
	                         "LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type, name",
	                         &st, err);
	while (rc == 0 && (s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 1);
		const char *tbl = (const char *)sqlite3_column_text(st, 2);
		bool on;

		sqlite3_reset(own);
		sqlite3_bind_text(own, 1, type ? type : "", -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(own, 2, name ? name : "", -1, SQLITE_TRANSIENT);
		if (sqlite3_step(own) == SQLITE_ROW)
			continue;
		/* a trigger can delete or rewrite runs behind every save; a view can mask a table
		 */
		on = tbl && name && strcmp(tbl, name) != 0;
		rc = ft_error_set(
		        err, FT_EARCHIVE,
		        "archive %s: holds a %s '%s'%s%s%s that fabtune did not create; "
		        "refusing to write (drop it with the sqlite3 shell if it is yours)",
		        ar->path, type ? type : "?", name ? name : "?", on ? " on '" : "",
		        on ? tbl : "", on ? "'" : "");
	}
	if (rc == 0 && s != SQLITE_DONE)
		rc = ft__archive_fail(ar, "reading the schema", err);
out:
	sqlite3_finalize(st);
	sqlite3_finalize(own);
	sqlite3_close(ref);
	return rc;
}

int
ft__archive_pragma_text(struct ft_archive *ar, const char *sql, const char *stage, char *out,
                        size_t len, struct ft_error *err)
{
	sqlite3_stmt *st;
	int rc = ft__archive_prepare(ar, sql, &st, err);

	if (rc < 0)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW)
		ft__column_text(st, 0, out, len);
	else
		rc = ft__archive_fail(ar, stage ? stage : cause_of(ar), err);
	sqlite3_finalize(st);
	return rc;
}

int
ft__archive_quick_check(struct ft_archive *ar, struct ft_error *err)
{
	char what[200], *p;
	int rc =
	        ft__archive_pragma_text(ar, "PRAGMA quick_check(1)", NULL, what, sizeof(what), err);

	if (rc < 0)
		return rc;
	/* SQLite's report spans lines: one line in the message */
	for (p = what; *p; p++)
		if (*p == '\n')
			*p = ' ';
	if (strcmp(what, "ok") != 0)
		return ft_error_set(err, FT_EARCHIVE,
		                    "archive %s: damaged, SQLite quick_check says: %s; "
		                    "see 'fabtune archive check'",
		                    ar->path, what);
	return 0;
}

/*
 * Once per process, before the first write: the whole file passes SQLite's
 * quick_check (every page reachable and well formed; the header alone says
 * nothing of the data pages), and it holds no schema object fabtune did not
 * create. A damaged or tampered archive is refused before anything is written
 * into it.
 */
static int
check_before_write(struct ft_archive *ar, struct ft_error *err)
{
	int rc = ft__archive_quick_check(ar, err);

	if (rc == 0)
		rc = ft__archive_check_schema(ar, err);
	if (rc < 0)
		ft_error_prefix(err, "nothing was written: ");
	return rc;
}

/*
 * Bring the schema to the current version in one transaction. The version is
 * read again under the write lock: two processes opening a new file at once
 * migrate it once.
 */
static int
migrate(struct ft_archive *ar, struct ft_error *err)
{
	int64_t version;
	char sql[96];
	int rc;

	if (ar->opened_version == FT_ARCHIVE_SCHEMA_VERSION)
		return 0;
	if (ar->readonly[0])
		return ft_error_set(
		        err, FT_EARCHIVE,
		        ar->opened_version ?
		                "archive %s: schema version %d needs an upgrade, but the "
		                "archive is read-only (%s)" :
		                "archive %s: empty (schema version %d), and read-only (%s)",
		        ar->path, ar->opened_version, ar->readonly);
	rc = ft__archive_begin(ar, err);
	if (rc < 0)
		return rc;
	rc = pragma_int(ar, "PRAGMA user_version", &version, err);
	for (; rc == 0 && version < FT_ARCHIVE_SCHEMA_VERSION; version++) {
		rc = migrations[version](ar, err);
		if (rc < 0)
			ft_error_prefix(err, "migrating from schema version %" PRId64 ": ",
			                version);
	}
	if (rc == 0) {
		snprintf(sql, sizeof(sql), "PRAGMA application_id = %d; PRAGMA user_version = %d",
		         FT_ARCHIVE_APPLICATION_ID, FT_ARCHIVE_SCHEMA_VERSION);
		rc = ft__archive_exec(ar, sql, err);
	}
	return ft__archive_end(ar, rc, err);
}

/* mkdir -p for the folder of @path (default path only). */
static int
make_parent_dirs(const char *path, struct ft_error *err)
{
	char buf[4096];
	char *p;

	if (ft_strlcpy(buf, path, sizeof(buf)) >= sizeof(buf))
		return ft_error_set(err, FT_EINVAL, "archive path too long: %s", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return ft_error_set(err, FT_EIO, "archive %s: cannot create folder %s: %s",
			                    path, buf, strerror(errno));
		*p = '/';
	}
	return 0;
}

int
ft_archive_default_path(char *buf, size_t len, struct ft_error *err)
{
	const char *xdg = getenv("XDG_DATA_HOME");
	const char *home = getenv("HOME");
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(buf, len, "%s/fabtune/archive.db", xdg);
	else if (home && home[0])
		n = snprintf(buf, len, "%s/.local/share/fabtune/archive.db", home);
	else
		return ft_error_set(err, FT_ENOENT,
		                    "no archive path: set --archive, FABTUNE_ARCHIVE, "
		                    "XDG_DATA_HOME or HOME");
	if (n < 0 || (size_t)n >= len)
		return ft_error_set(err, FT_EINVAL, "archive path too long");
	return 0;
}

/*
 * Switch to WAL. Leaving rollback-journal mode takes an exclusive lock and
 * SQLite answers SQLITE_BUSY at once, without the busy handler, while
 * another process holds the file (as when two open a new archive at the
 * same moment), so wait here, for as long as the busy timeout.
 */
static int
set_wal(struct ft_archive *ar, struct ft_error *err)
{
	int waited_ms = 0, step_ms = 1, rc;

	for (;;) {
		rc = sqlite3_exec(ar->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
		if (rc == SQLITE_OK)
			return 0;
		if ((rc & 0xff) != SQLITE_BUSY || waited_ms >= BUSY_TIMEOUT_MS)
			return ft__archive_fail(ar, "cannot switch to WAL mode", err);
		sqlite3_sleep(step_ms);
		waited_ms += step_ms;
		step_ms = step_ms < 50 ? step_ms * 2 : 50;
	}
}

/*
 * Why the archive must be opened read-only, in @why (empty when it can be
 * written): the file or its folder is not writable (a read-only mount, other
 * permissions), or carries no write bit at all, which root would otherwise
 * ignore. WAL needs to create the -wal and -shm files in the folder.
 */
static void
readonly_reason(const char *path, char *why, size_t len)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	struct stat st;

	why[0] = '\0';
	if (stat(path, &st) != 0)
		return;
	if (access(path, W_OK) != 0) {
		snprintf(why, len, "%s",
		         errno == EROFS ? "read-only file system" : "the file is not writable");
		return;
	}
	if (!(st.st_mode & 0222)) {
		snprintf(why, len, "the file is read-only, mode %04o",
		         (unsigned)(st.st_mode & 07777));
		return;
	}
	if (!slash)
		ft_strlcpy(dir, ".", sizeof(dir));
	else
		ft_strlcpy(dir, path,
		           FT_MIN(sizeof(dir), (size_t)(slash - path) + 1 + (slash == path)));
	if (access(dir, W_OK) != 0)
		snprintf(why, len, "%s",
		         errno == EROFS ? "read-only file system" : "its folder is not writable");
	else if (stat(dir, &st) == 0 && !(st.st_mode & 0222))
		snprintf(why, len, "its folder is read-only, mode %04o",
		         (unsigned)(st.st_mode & 07777));
}

/* "file:" URI for @path with @query, escaping what a URI would read otherwise. */
static int
uri_for(const char *path, const char *query, char *buf, size_t len)
{
	size_t o = 0;
	const char *p;
	int n;

	n = snprintf(buf, len, "file:");
	o = (size_t)n;
	for (p = path; *p && o + 4 < len; p++) {
		if (*p == '%' || *p == '?' || *p == '#')
			o += (size_t)snprintf(buf + o, len - o, "%%%02X", (unsigned char)*p);
		else
			buf[o++] = *p;
	}
	if (*p)
		return -1;
	n = snprintf(buf + o, len - o, "?%s", query);
	return n < 0 || (size_t)n >= len - o ? -1 : 0;
}

/*
 * Open read-only. A WAL archive in a folder where the -shm file cannot be
 * created is opened as immutable: nobody can be writing to it there.
 */
static int
open_readonly(struct ft_archive *ar, struct ft_error *err)
{
	static const char *const queries[] = { "mode=ro", "immutable=1" };
	char uri[8192];
	size_t i;
	int rc = 0;

	for (i = 0; i < FT_ARRAY_SIZE(queries); i++) {
		struct ft_error e = { 0 };

		if (uri_for(ar->path, queries[i], uri, sizeof(uri)) < 0)
			return ft_error_set(err, FT_EINVAL, "archive path too long: %s", ar->path);
		sqlite3_close(ar->db);
		ar->db = NULL;
		if (sqlite3_open_v2(uri, &ar->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) !=
		    SQLITE_OK) {
			if (!ar->db)
				return ft_error_set(err, FT_ENOMEM, "archive %s: out of memory",
				                    ar->path);
			continue;
		}
		sqlite3_extended_result_codes(ar->db, 1);
		sqlite3_busy_timeout(ar->db, BUSY_TIMEOUT_MS);
		rc = check_identity(ar, i + 1 < FT_ARRAY_SIZE(queries) ? &e : err);
		if (rc == 0)
			return 0;
	}
	return rc < 0 ? rc : ft__archive_fail(ar, "cannot open read-only", err);
}

static int
open_db(struct ft_archive *ar, struct ft_error *err)
{
	int rc;

	rc = check_header(ar->path, err);
	if (rc < 0)
		return rc;
	readonly_reason(ar->path, ar->readonly, sizeof(ar->readonly));
	if (ar->readonly[0])
		return open_readonly(ar, err);
	rc = sqlite3_open_v2(ar->path, &ar->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		rc = ar->db ? ft_error_set(err, FT_EARCHIVE, "archive %s: %s: %s", ar->path,
		                           cause_of(ar), sqlite3_errmsg(ar->db)) :
		              ft_error_set(err, FT_ENOMEM, "archive %s: out of memory", ar->path);
		return rc;
	}
	sqlite3_extended_result_codes(ar->db, 1);
	sqlite3_busy_timeout(ar->db, BUSY_TIMEOUT_MS);
	rc = check_identity(ar, err);
	if (rc < 0)
		return rc;
	/*
	 * WAL: readers never block the writer and a killed writer leaves the
	 * last committed state. synchronous=FULL also keeps committed runs
	 * across a power loss, which a baseline file should survive.
	 */
	rc = set_wal(ar, err);
	if (rc == 0)
		rc = ft__archive_exec(ar, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON",
		                      err);
	return rc;
}

int
ft_archive_open(const char *path, struct ft_archive **out, struct ft_error *err)
{
	struct ft_archive *ar;
	char def[4096];
	int rc;

	*out = NULL;
	if (!path || !path[0]) {
		rc = ft_archive_default_path(def, sizeof(def), err);
		if (rc < 0)
			return rc;
		rc = make_parent_dirs(def, err);
		if (rc < 0)
			return rc;
		path = def;
	}
	ar = ft_calloc(1, sizeof(*ar));
	if (!ar)
		return ft_error_set(err, FT_ENOMEM, "archive %s: out of memory", path);
	ar->path = ft_strdup(path);
	if (!ar->path) {
		rc = ft_error_set(err, FT_ENOMEM, "archive %s: out of memory", path);
		goto out_free;
	}
	rc = open_db(ar, err);
	if (rc < 0)
		goto out_close;
	rc = migrate(ar, err);
	if (rc < 0)
		goto out_close;
	*out = ar;
	return 0;

out_close:
	sqlite3_close(ar->db);
out_free:
	ft_free(ar->path);
	ft_free(ar);
	return rc;
}

void
ft_archive_close(struct ft_archive *ar)
{
	if (!ar)
		return;
	sqlite3_close(ar->db);
	ft_free(ar->path);
	ft_free(ar);
}

const char *
ft_archive_path(const struct ft_archive *ar)
{
	return ar->path;
}

int
ft_archive_opened_version(const struct ft_archive *ar)
{
	return ar->opened_version;
}

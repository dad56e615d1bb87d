/* SPDX-License-Identifier: MIT */
/*
 * archive/baseline.c - named baselines: sets of runs that later runs are
 * compared with. Several runs of the same tests in one baseline give the
 * comparison repeated samples, hence a noise-aware threshold.
 */
#include "archive_int.h"

static int
check_name(const char *name, struct ft_error *err)
{
	const char *p;

	if (!name || !name[0] || strlen(name) >= sizeof(((struct ft_baseline_info *)0)->name))
		return ft_error_set(err, FT_EINVAL,
		                    "baseline name: expected 1 to 63 characters, got '%s'",
		                    name ? name : "");
	for (p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("-_.:", *p))
			return ft_error_set(err, FT_EINVAL,
			                    "baseline name '%s': character '%c' not allowed "
			                    "(letters, digits, - _ . :)",
			                    name, *p);
	return 0;
}

int
ft_archive_baseline_add(struct ft_archive *ar, const char *name, int64_t id, struct ft_error *err)
{
	sqlite3_stmt *st;
	int rc = check_name(name, err);

	if (rc < 0)
		return rc;
	rc = ft__archive_begin(ar, err);
	if (rc < 0)
		return rc;
	rc = ft__archive_prepare(ar,
	                         "INSERT OR IGNORE INTO baselines (name, run_id, added_s)"
	                         " SELECT ?1, id, ?3 FROM runs WHERE id = ?2",
	                         &st, err);
	if (rc == 0) {
		ft__bind_text(st, 1, name);
		sqlite3_bind_int64(st, 2, id);
		sqlite3_bind_double(st, 3, ft__clock_s(CLOCK_REALTIME));
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = ft__archive_fail(ar, "adding to a baseline", err);
		sqlite3_finalize(st);
	}
	if (rc == 0) {
		int64_t exists = 0;

		rc = ft__archive_prepare_id(ar, "SELECT count(*) FROM runs WHERE id = ?1", id, &st,
		                            err);
		if (rc == 0) {
			if (sqlite3_step(st) == SQLITE_ROW)
				exists = sqlite3_column_int64(st, 0);
			sqlite3_finalize(st);
			if (!exists)
				rc = ft_error_set(err, FT_ENOENT,
				                  "no run %" PRId64 " in the archive", id);
		}
	}
	return ft__archive_end(ar, rc, err);
}

int
ft_archive_baseline_remove(struct ft_archive *ar, const char *name, int64_t id,
                           struct ft_error *err)
{
	sqlite3_stmt *st;
	int rc = check_name(name, err);

	if (rc < 0)
		return rc;
	rc = ft__archive_prepare(
	        ar, "DELETE FROM baselines WHERE name = ?1 AND (?2 = 0 OR run_id = ?2)", &st, err);
	if (rc < 0)
		return rc;
	ft__bind_text(st, 1, name);
	sqlite3_bind_int64(st, 2, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = ft__archive_fail(ar, "removing from a baseline", err);
	else if (sqlite3_changes(ar->db) == 0 && id)
		rc = ft_error_set(err, FT_ENOENT, "run %" PRId64 " is not in baseline '%s'", id,
		                  name);
	else if (sqlite3_changes(ar->db) == 0)
		rc = ft_error_set(err, FT_ENOENT, "no baseline '%s' in the archive", name);
	sqlite3_finalize(st);
	return rc;
}

int
ft_archive_baseline_runs(struct ft_archive *ar, const char *name, struct ft_vec *ids,
                         struct ft_error *err)
{
	sqlite3_stmt *st;
	size_t start = ids->len;
	int rc = check_name(name, err);
	int s;

	if (rc < 0)
		return rc;
	rc = ft__archive_prepare(ar, "SELECT run_id FROM baselines WHERE name = ?1 ORDER BY run_id",
	                         &st, err);
	if (rc < 0)
		return rc;
	ft__bind_text(st, 1, name);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);

		if (ft_vec_push(ids, &id) < 0) {
			rc = ft_error_set(err, FT_ENOMEM, "archive %s: out of memory", ar->path);
			break;
		}
	}
	if (rc == 0 && s != SQLITE_DONE)
		rc = ft__archive_fail(ar, "reading a baseline", err);
	if (rc == 0 && ids->len == start)
		rc = ft_error_set(
		        err, FT_ENOENT,
		        "no baseline '%s' in the archive (see 'fabtune archive baseline list')",
		        name);
	sqlite3_finalize(st);
	return rc;
}

int
ft_archive_baseline_list(struct ft_archive *ar, struct ft_vec *out, struct ft_error *err)
{
	struct ft_baseline_info bi;
	sqlite3_stmt *st;
	int rc, s;

	rc = ft__archive_prepare(ar,
	                         "SELECT name, count(*), max(run_id) FROM baselines GROUP BY name"
	                         " ORDER BY name",
	                         &st, err);
	if (rc < 0)
		return rc;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&bi, 0, sizeof(bi));
		ft__column_text(st, 0, bi.name, sizeof(bi.name));
		bi.nruns = (size_t)sqlite3_column_int64(st, 1);
		bi.newest = sqlite3_column_int64(st, 2);
		if (ft_vec_push(out, &bi) < 0) {
			rc = ft_error_set(err, FT_ENOMEM, "archive %s: out of memory", ar->path);
			break;
		}
	}
	if (rc == 0 && s != SQLITE_DONE)
		rc = ft__archive_fail(ar, "listing baselines", err);
	sqlite3_finalize(st);
	return rc;
}

int
ft_archive_baseline_load(struct ft_archive *ar, const char *name, struct ft_vec *records,
                         struct ft_error *err)
{
	struct ft_vec ids;
	size_t i, start = records->len;
	int rc;

	ft_vec_init(&ids, sizeof(int64_t));
	rc = ft_archive_baseline_runs(ar, name, &ids, err);
	for (i = 0; rc == 0 && i < ids.len; i++) {
		if (ft_vec_push(records, NULL) < 0) {
			rc = ft_error_set(err, FT_ENOMEM, "archive %s: out of memory", ar->path);
			break;
		}
		rc = ft_archive_load(ar, FT_VEC_AT(&ids, int64_t, i),
		                     ft_vec_at(records, records->len - 1), err);
		if (rc < 0)
			records->len--;
	}
	if (rc < 0) {
		for (i = start; i < records->len; i++)
			ft_archive_record_release(ft_vec_at(records, i));
		records->len = start;
	}
	ft_vec_release(&ids);
	return rc;
}

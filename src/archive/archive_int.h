/* SPDX-License-Identifier: MIT */
/*
 * archive/archive_int.h - what the files of the archive module share: the
 * handle, SQLite helpers and the JSON reader used by import.
 */
#ifndef FT_ARCHIVE_INT_H
#define FT_ARCHIVE_INT_H

#include "internal.h"

#include <sqlite3.h>

#include <fabtune/archive.h>

struct ft_archive {
	sqlite3 *db;
	char *path;
	int opened_version; /* user_version found before migration */
	bool write_checked; /* quick_check and schema objects checked before a first write */
	char readonly[160]; /* why the archive was opened read-only, or "" when it is writable */
};

/* Record a SQLite failure of @what as FT_EARCHIVE, naming the archive. */
int ft__archive_fail(struct ft_archive *ar, const char *what, struct ft_error *err);
/* Run SQL without results. */
int ft__archive_exec(struct ft_archive *ar, const char *sql, struct ft_error *err);
int ft__archive_prepare(struct ft_archive *ar, const char *sql, sqlite3_stmt **st,
                        struct ft_error *err);
/* Prepare @sql and bind its ?1 to @id (a run id, most often). */
int ft__archive_prepare_id(struct ft_archive *ar, const char *sql, int64_t id, sqlite3_stmt **st,
                           struct ft_error *err);
/* Bind text, or "" for NULL. */
int ft__bind_text(sqlite3_stmt *st, int i, const char *s);
/* Bind a double; NaN becomes SQL NULL. */
int ft__bind_double(sqlite3_stmt *st, int i, double v);
/* Column as text copied into @buf ("" for NULL); as double (NaN for NULL). */
void ft__column_text(sqlite3_stmt *st, int i, char *buf, size_t len);
double ft__column_double(sqlite3_stmt *st, int i);

/* Transactions: BEGIN IMMEDIATE waits for other writers (busy timeout). */
int ft__archive_begin(struct ft_archive *ar, struct ft_error *err);
int ft__archive_commit(struct ft_archive *ar, struct ft_error *err);
void ft__archive_rollback(struct ft_archive *ar);
/*
 * End the transaction ft__archive_begin() opened: COMMIT when @rc is 0, else
 * (or when the commit fails) ROLLBACK. Returns @rc or the commit's error.
 */
int ft__archive_end(struct ft_archive *ar, int rc, struct ft_error *err);

/* A run's "usage" member (what its process cost), as export and listing write it. */
struct ft_json;
void ft__archive_usage_json(struct ft_json *j, double wall_s, double cpu_s, double host_busy,
                            double load1);

/*
 * The checks run before a process's first write (db.c): SQLite's quick_check,
 * and no schema object (trigger, view, table, index) that fabtune's migrations
 * do not create. FT_EARCHIVE naming the damage or the object.
 */
int ft__archive_quick_check(struct ft_archive *ar, struct ft_error *err);
/*
 * Run a check pragma @sql (one text row: "ok" when sound) and copy its first
 * row into @out. A failed step is FT_EARCHIVE naming @stage, or when @stage
 * is NULL the likely cause (corrupt, locked, read-only, ...).
 */
int ft__archive_pragma_text(struct ft_archive *ar, const char *sql, const char *stage, char *out,
                            size_t len, struct ft_error *err);
int ft__archive_check_schema(struct ft_archive *ar, struct ft_error *err);

/*
 * Copy what a run and its listing entry (struct ft_run, struct ft_archive_info)
 * both name alike: source, kind, label, spec, start and seed, from @from to
 * @to, in either direction.
 */
#define FT__ARCHIVE_COPY_IDENTITY(to, from)                                  \
	do {                                                                 \
		(to)->source = (from)->source;                               \
		ft_strlcpy((to)->kind, (from)->kind, sizeof((to)->kind));    \
		ft_strlcpy((to)->label, (from)->label, sizeof((to)->label)); \
		ft_strlcpy((to)->spec, (from)->spec, sizeof((to)->spec));    \
		(to)->started_s = (from)->started_s;                         \
		(to)->seed = (from)->seed;                                   \
	} while (0)

/* Save one record inside an open transaction (store.c). */
int ft__archive_insert(struct ft_archive *ar, const struct ft_run *run,
                       const struct ft_obs_set *obs, const struct ft_finding *findings,
                       size_t nfindings, const struct ft_fingerprint *fp, int64_t *run_id,
                       struct ft_error *err);

/* Names of layers and severities back to enums; -1 when unknown. */
/*
 * The half-width of the compare band in baseline standard deviations for
 * @n runs: Student's t for n - 1 degrees of freedom at the coverage of
 * @k_sigma normal sigmas, times sqrt(1 + 1/n) (a new run, not the mean);
 * 22.2 for 3 sigmas and 3 runs, toward @k_sigma as @n grows. NAN for n < 2.
 */
double ft__compare_band_sigmas(double k_sigma, unsigned n);

extern const struct ft__name_set ft__archive_layers;
extern const struct ft__name_set ft__archive_severities;
int ft__layer_from_name(const char *s);
int ft__severity_from_name(const char *s);

/* ---- a small JSON reader (jsonread.c) ------------------------------------ */

enum ft_jv_type {
	FT_JV_NULL,
	FT_JV_BOOL,
	FT_JV_NUMBER,
	FT_JV_STRING,
	FT_JV_ARRAY,
	FT_JV_OBJECT
};

struct ft_jv {
	enum ft_jv_type type;
	unsigned line, col; /* where the value starts, 1-based */
	bool b;
	double num;
	const char *numtext;  /* the number as written, for exact integers */
	const char *str;      /* NUL-terminated, UTF-8 */
	size_t n;             /* elements of an array or members of an object */
	struct ft_jv **items; /* array elements, or object member values */
	const char **keys;    /* object member names */
};

/* Parse @text into a tree allocated in @arena. FT_EPARSE names file:line:col. */
int ft__json_parse(const char *text, size_t len, const char *file, struct ft_arena *arena,
                   struct ft_jv **out, struct ft_error *err);
/* Member @key of object @o, or NULL. */
const struct ft_jv *ft__json_get(const struct ft_jv *o, const char *key);
const char *ft__json_type_name(enum ft_jv_type t);

/* The SQL of schema version 3 (store.c, next to the columns it adds). */
extern const char ft__archive_schema_v3[];
extern const char ft__archive_schema_v4[];

#endif

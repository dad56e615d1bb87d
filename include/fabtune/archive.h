/* SPDX-License-Identifier: MIT */
/*
 * fabtune/archive.h - the run archive (the performance baseline file) and
 * comparisons of runs against a baseline.
 *
 * The archive is one SQLite file (WAL mode, a busy timeout so concurrent
 * writers both succeed, schema versioned by PRAGMA user_version and marked
 * by PRAGMA application_id so a foreign file is recognised and never
 * written). Every saved run is one row of the table `runs` plus its result
 * rows, observations, findings with their evidence, and the fingerprint of
 * where it ran; a save is one transaction, so a crash never leaves half a run.
 *
 * Ownership: struct ft_archive is opaque (ft_archive_open/ft_archive_close);
 * records, fingerprints and comparisons are caller-owned plain data released
 * with their _release function. Errors follow fabtune/error.h; messages name
 * the archive path and the run id. An archive handle is not thread-safe; use
 * one per thread (or per process: separate processes may write at once).
 */
#ifndef FABTUNE_ARCHIVE_H
#define FABTUNE_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fabtune/base.h>
#include <fabtune/json.h>
#include <fabtune/obs.h>
#include <fabtune/result.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Current schema version (PRAGMA user_version) and the application id. */
#define FT_ARCHIVE_SCHEMA_VERSION 4
#define FT_ARCHIVE_APPLICATION_ID 0x46544142 /* "FTAB" */

/* ---- fingerprint: where a run happened ----------------------------------- */

/*
 * A fingerprint is a sorted set of key = value strings. Keys used by
 * ft_fingerprint_collect(): host.name, host.kernel, host.kernel_build,
 * host.arch, host.os, cpu.model, cpu.count, mem.total_bytes, gpu.driver,
 * ib.<dev>.fw_ver, ib.<dev>.hca_type, ib.<dev>.board_id,
 * driver.<module>.version, fabtune.version, nccl.conf.<NAME> (from
 * /etc/nccl.conf), env.<NAME> for the environment variables that change
 * network behaviour (NCCL_*, UCX_*, OMPI_MCA_*, ...). Other collectors (the
 * probe, MPI gathering other hosts) add keys of their own, e.g. nccl.version.
 */
struct ft_fingerprint_item {
	char key[64];
	char value[256];
};

struct ft_fingerprint {
	struct ft_vec items; /* struct ft_fingerprint_item, sorted by key, unique */
};

FT_API void ft_fingerprint_init(struct ft_fingerprint *fp);
FT_API void ft_fingerprint_release(struct ft_fingerprint *fp);
/* Set @key (replacing its value). FT_EINVAL for an empty key, FT_ENOMEM. */
FT_API int ft_fingerprint_set(struct ft_fingerprint *fp, const char *key,
                              const char *value) FT_MUST_CHECK;
/* Value of @key or NULL. */
FT_API const char *ft_fingerprint_get(const struct ft_fingerprint *fp, const char *key);
static inline size_t
ft_fingerprint_len(const struct ft_fingerprint *fp)
{
	return fp->items.len;
}
static inline const struct ft_fingerprint_item *
ft_fingerprint_at(const struct ft_fingerprint *fp, size_t i)
{
	return (const struct ft_fingerprint_item *)ft_vec_at(&fp->items, i);
}
/*
 * Collect this host's fingerprint from the probe's observations alone
 * (ft_probe_host_facts for uname, /proc, /etc and /sys/module;
 * ft_probe_rdma_devices for the ib.<dev>.* keys), then the environment.
 * The archive reads no file of the host itself. Missing sources are skipped
 * silently (a container has no /sys/class/infiniband); only FT_ENOMEM fails.
 */
FT_API int ft_fingerprint_collect(struct ft_fingerprint *fp, struct ft_error *err) FT_MUST_CHECK;
/*
 * The same, reading files under @root instead of "/" (tests use a fake tree)
 * and the variables of @envp (NULL-terminated "NAME=value" strings) instead of
 * the process environment. uname() values are only taken when @root is "/".
 */
FT_API int ft_fingerprint_collect_at(struct ft_fingerprint *fp, const char *root, char *const *envp,
                                     struct ft_error *err) FT_MUST_CHECK;
/*
 * Derive what observations tell about where they were taken, for the
 * probe's host facts and imported tool outputs alike: host.name (and
 * "hosts", comma-separated, when several), nccl.version, the host facts
 * under their own keys (host.kernel, host.kernel_build, host.arch, host.os,
 * cpu.model, cpu.count, mem.total_bytes, gpu.driver, nccl.conf.<NAME>),
 * driver.<module>.version from driver.version, ib.<dev>.fw_ver|hca_type|
 * board_id and env.<NAME> from nccl.env.<NAME>. Existing keys are replaced.
 * 0 or FT_ENOMEM.
 */
FT_API int ft_fingerprint_from_obs(struct ft_fingerprint *fp,
                                   const struct ft_obs_set *obs) FT_MUST_CHECK;
/* True when ft_fingerprint_collect() records the environment variable @name. */
FT_API bool ft_fingerprint_env_matters(const char *name);
/* A 64-bit FNV-1a digest of all key=value pairs, as 16 hex digits + NUL. */
FT_API void ft_fingerprint_digest(const struct ft_fingerprint *fp, char out[17]);

/* One difference between two fingerprints; "" stands for "absent". */
struct ft_fingerprint_change {
	char key[64];
	char before[256];
	char after[256];
};
/* Append to @out (struct ft_fingerprint_change) every key whose value differs. */
FT_API int ft_fingerprint_diff(const struct ft_fingerprint *before,
                               const struct ft_fingerprint *after,
                               struct ft_vec *out) FT_MUST_CHECK;

/* ---- records: one archived run ------------------------------------------ */

/* Summary of one archived run, as listed. */
struct ft_archive_info {
	int64_t id;       /* run id, > 0 */
	double created_s; /* when it was saved, Unix seconds */
	double started_s; /* ft_run.started_s, 0 when unknown */
	double wall_s, cpu_s, host_busy, load1; /* ft_run's CPU usage (fabtune/usage.h), NaN */
	enum ft_source source;
	char kind[32];
	char label[128];
	char spec[128];
	uint64_t seed;
	char host[64];      /* fingerprint's host.name, "" when none */
	char fp_digest[17]; /* ft_fingerprint_digest() */
	size_t nrows, nobs, nfindings;
};

/* A whole run: what ft_archive_save() stores and ft_archive_load() gives back. */
struct ft_archive_record {
	struct ft_archive_info info;
	struct ft_run run;
	struct ft_obs_set obs;
	struct ft_vec findings; /* struct ft_finding; their evidence files are held by @obs */
	struct ft_fingerprint fp;
};

FT_API void ft_archive_record_init(struct ft_archive_record *rec);
FT_API void ft_archive_record_release(struct ft_archive_record *rec);
/* Release every record of a vector of struct ft_archive_record, then the vector. */
FT_API void ft_archive_records_release(struct ft_vec *records);

/*
 * The runs of ft_archive_list(), @n of them: a table (id, saved, source,
 * kind, host, rows, obs, findings, label; "no runs in the archive" when
 * none) or a JSON object {"runs": [...]}. @stable leaves out times.
 */
FT_API void ft_archive_list_write_text(struct ft_strbuf *sb, const struct ft_archive_info *runs,
                                       size_t n, bool stable);
FT_API void ft_archive_list_write_json(struct ft_strbuf *sb, const struct ft_archive_info *runs,
                                       size_t n, bool stable);

/* ---- the archive --------------------------------------------------------- */

struct ft_archive;

/*
 * The default path: $XDG_DATA_HOME/fabtune/archive.db, or
 * $HOME/.local/share/fabtune/archive.db. FT_ENOENT when neither is set.
 */
FT_API int ft_archive_default_path(char *buf, size_t len, struct ft_error *err) FT_MUST_CHECK;

/*
 * Open (creating when absent) the archive at @path, or at the default path
 * when @path is NULL (its folder is created). An archive made by an older
 * schema is migrated in one transaction. A file that is not a fabtune archive
 * (not SQLite, another application's SQLite file, a newer schema, a corrupt
 * file) gives FT_EARCHIVE naming the path and is never modified.
 */
FT_API int ft_archive_open(const char *path, struct ft_archive **out,
                           struct ft_error *err) FT_MUST_CHECK;
FT_API void ft_archive_close(struct ft_archive *ar);
FT_API const char *ft_archive_path(const struct ft_archive *ar);
/* Schema version found in the file before migration (0 for a new file). */
FT_API int ft_archive_opened_version(const struct ft_archive *ar);

/*
 * Save one run atomically: the run's rows, @obs (NULL for none), @findings
 * and @fp (NULL for none). *@run_id receives the new id (may be NULL).
 * Concurrent writers wait for each other (busy timeout), so both succeed.
 */
FT_API int ft_archive_save(struct ft_archive *ar, const struct ft_run *run,
                           const struct ft_obs_set *obs, const struct ft_finding *findings,
                           size_t nfindings, const struct ft_fingerprint *fp, int64_t *run_id,
                           struct ft_error *err) FT_MUST_CHECK;
/* Save a loaded or imported record (its info.id and info.created_s are ignored). */
FT_API int ft_archive_save_record(struct ft_archive *ar, const struct ft_archive_record *rec,
                                  int64_t *run_id, struct ft_error *err) FT_MUST_CHECK;

/* Load run @id into @rec (initialized by this call). FT_ENOENT when no such run. */
FT_API int ft_archive_load(struct ft_archive *ar, int64_t id, struct ft_archive_record *rec,
                           struct ft_error *err) FT_MUST_CHECK;

/* What ft_archive_list() returns; zero-initialize for "all runs, oldest first". */
struct ft_archive_query {
	const char *kind;   /* only runs of this kind, NULL for all */
	const char *source; /* only runs of this source ("bench", ...), NULL for all */
	size_t limit;       /* at most this many (the newest), 0 for no limit */
};

/* Append struct ft_archive_info for each matching run to @out, oldest first. */
FT_API int ft_archive_list(struct ft_archive *ar, const struct ft_archive_query *q,
                           struct ft_vec *out, struct ft_error *err) FT_MUST_CHECK;

/*
 * Resolve a run reference: "12" (an id), "latest", "latest~N" (N runs
 * before the latest). FT_ENOENT naming the reference when it matches nothing,
 * FT_EINVAL when it is not a reference.
 */
FT_API int ft_archive_resolve(struct ft_archive *ar, const char *ref, int64_t *id,
                              struct ft_error *err) FT_MUST_CHECK;

/*
 * Check the file: PRAGMA integrity_check and that every run's stored counts
 * match its rows. *@nruns receives the number of runs. FT_EARCHIVE naming
 * the first problem.
 */
FT_API int ft_archive_check(struct ft_archive *ar, size_t *nruns,
                            struct ft_error *err) FT_MUST_CHECK;

/* Delete run @id (and its baseline memberships). FT_ENOENT when absent. */
FT_API int ft_archive_delete(struct ft_archive *ar, int64_t id, struct ft_error *err) FT_MUST_CHECK;

/* ---- baselines: named sets of runs --------------------------------------- */

/*
 * A baseline is a name ("default", "acceptance-2026-11") with one or more
 * runs. Several runs of the same tests make the comparison noise-aware.
 */
struct ft_baseline_info {
	char name[64];
	size_t nruns;
	int64_t newest; /* highest run id in it */
};

/* Add run @id to baseline @name (created on first use). Adding twice is a no-op. */
FT_API int ft_archive_baseline_add(struct ft_archive *ar, const char *name, int64_t id,
                                   struct ft_error *err) FT_MUST_CHECK;
/* Remove run @id from @name, or the whole baseline when @id is 0. FT_ENOENT if absent. */
FT_API int ft_archive_baseline_remove(struct ft_archive *ar, const char *name, int64_t id,
                                      struct ft_error *err) FT_MUST_CHECK;
/* Append the run ids (int64_t) of @name to @ids, ascending. FT_ENOENT when no such baseline. */
FT_API int ft_archive_baseline_runs(struct ft_archive *ar, const char *name, struct ft_vec *ids,
                                    struct ft_error *err) FT_MUST_CHECK;
/*
 * Load every run of baseline @name into @records (struct ft_archive_record),
 * oldest first: the samples ft_compare_runs() takes. FT_ENOENT when no such
 * baseline (a first run on a cluster has none yet).
 */
FT_API int ft_archive_baseline_load(struct ft_archive *ar, const char *name, struct ft_vec *records,
                                    struct ft_error *err) FT_MUST_CHECK;
/* Append struct ft_baseline_info for every baseline to @out, by name. */
FT_API int ft_archive_baseline_list(struct ft_archive *ar, struct ft_vec *out,
                                    struct ft_error *err) FT_MUST_CHECK;
/* The @n baselines @list as lines "NAME: N runs, newest ID" (or a hint when there are
   none), or as JSON {"baselines": [{"name", "runs", "newest"}]}, pretty. */
FT_API void ft_archive_baseline_list_write(struct ft_strbuf *sb,
                                           const struct ft_baseline_info *list, size_t n,
                                           bool json);

/* ---- export and import (JSON) -------------------------------------------- */

/* Flags of ft_archive_record_json(). */
#define FT_EXPORT_STABLE 0x1u /* leave out ids and save times (golden tests) */

/*
 * Write @rec as one JSON object (the element of an export's "runs" array):
 * metadata, "fingerprint", "rows", "observations", "findings". Numbers that
 * are absent (NaN) are written as null.
 */
FT_API void ft_archive_record_json(const struct ft_archive_record *rec, struct ft_json *j,
                                   unsigned flags);
/* A whole export: {"format":"fabtune-archive","version":2,"runs":[...]}, pretty. */
FT_API int ft_archive_export(struct ft_archive *ar, const int64_t *ids, size_t nids,
                             struct ft_strbuf *out, unsigned flags,
                             struct ft_error *err) FT_MUST_CHECK;
/*
 * Read an export (the text of @file) into struct ft_archive_record elements
 * appended to @records. Errors name file:line:column and the field.
 */
FT_API int ft_archive_parse_export(const char *text, size_t len, const char *file,
                                   struct ft_vec *records, struct ft_error *err) FT_MUST_CHECK;
/* Parse an export and save every run in it, in one transaction; ids appended to @ids. */
FT_API int ft_archive_import(struct ft_archive *ar, const char *text, size_t len, const char *file,
                             struct ft_vec *ids, struct ft_error *err) FT_MUST_CHECK;

/* ---- compare: a run against a baseline ----------------------------------- */

#define FT_VERDICT_MAP(X)         \
	X(UNCHANGED, "unchanged") \
	X(IMPROVED, "improved")   \
	X(REGRESSED, "regressed") \
	X(NEW, "new")             \
	X(MISSING, "missing")

enum ft_verdict {
#define FT_VERDICT_ENUM_(n, s) FT_VERDICT_##n,
	FT_VERDICT_MAP(FT_VERDICT_ENUM_)
#undef FT_VERDICT_ENUM_
	FT_VERDICT_COUNT
};
FT_API const char *ft_verdict_name(enum ft_verdict v);

struct ft_compare_opts {
	double rel_threshold; /* stated threshold without repeated samples, fraction (0.05) */
	double k_sigma;       /* band of k standard deviations with samples (3) */
	double floor_rel;     /* the band is never narrower than this fraction (0.01) */
	unsigned min_samples; /* samples needed for a noise-aware band (3) */
	double min_matched;   /* the comparison is incomplete when fewer than this fraction
	                         of the baseline's keys were matched (0.5) */
	bool pool_iterations; /* pool the baseline runs' per-iteration spread with the runs'
	                         when the runs differ no more than it explains (false) */
};
FT_API void ft_compare_opts_init(struct ft_compare_opts *o);
/*
 * Read "5%" (a percentage, up to 1000%) or "0.05" (a fraction, up to 1) into
 * the fraction *@out. FT_EINVAL naming @what and @text otherwise.
 */
FT_API int ft_compare_parse_fraction(const char *what, const char *text, double *out,
                                     struct ft_error *err) FT_MUST_CHECK;
/*
 * The options of a comparison as given on a command line: the stated
 * @threshold and the @floor of the band as fractions (NULL: the default),
 * @sigma (0: the default), @min_samples (-1: the default; at least 2) and
 * @min_matched (NULL: the default; at most 100%). FT_EINVAL naming the
 * option (--threshold, --floor, --sigma, --min-samples, --min-matched).
 */
FT_API int ft_compare_opts_parse(struct ft_compare_opts *o, const char *threshold,
                                 const char *floor, double sigma, int min_samples,
                                 const char *min_matched, struct ft_error *err) FT_MUST_CHECK;

/*
 * A baseline run whose per-iteration spread (coefficient of variation) is
 * more than this many times the median of the other runs' is disturbed:
 * set aside from a band of --min-samples or more runs (archive/compare.c).
 * sqrt(F(7, 7)) at its 99th percentile (6.99): two deviations of 8
 * iterations each differ this much by chance once in a hundred.
 */
#define FT_COMPARE_DISTURBED 2.64

/* Where the noise band of a compared row came from. */
enum ft_band_from {
	FT_BAND_NONE,	    /* not judged (new or missing) */
	FT_BAND_STATED,	    /* the stated threshold (rel_threshold) */
	FT_BAND_ITERATIONS, /* the per-iteration spread, wider than the stated threshold */
	FT_BAND_RUNS,	    /* k standard deviations of the baseline's runs */
	FT_BAND_POOLED,	    /* the runs' spread pooled with their iterations' (pool_iterations) */
};
FT_API const char *ft_band_from_name(enum ft_band_from b);

/*
 * One compared result. Results are matched on the exact key (test, redop,
 * dtype, bytes, nranks, transport, src, dst). A latency row (see
 * ft_result_row_is_latency()) is compared on lat_p50, else lat_avg, else
 * time (lower is better); any other row on busbw, else algbw (higher is
 * better), else time.
 */
struct ft_compare_row {
	char test[32];
	char redop[12];
	char dtype[12];
	char transport[16];
	uint64_t bytes;
	uint32_t nranks;
	char src[64];
	char dst[64];
	char metric[12]; /* "busbw", "algbw", "lat_p50", "lat_avg", "time" */
	bool higher_is_better;
	double current;       /* NaN when MISSING */
	double base_mean;     /* NaN when NEW */
	double base_stdev;    /* sample stdev, NaN with fewer than 2 samples */
	unsigned base_n;      /* baseline samples, those set aside not counted */
	unsigned base_aside;  /* baseline samples set aside as disturbed: a run whose own
	                         iterations spread over FT_COMPARE_DISTURBED times the other
	                         runs' (and beyond the floor); not in the mean or the band */
	double delta_rel;     /* (current - base_mean) / base_mean, NaN when not both */
	double threshold_rel; /* the band used, fraction of base_mean */
	bool noise_aware;     /* band from samples (k sigma) rather than the stated threshold */
	enum ft_band_from band_from;
	double iter_cv;	      /* per-iteration coefficient of variation (RMS of run and
	                         baseline), NaN when neither carries one */
	double iter_df;	      /* degrees of freedom of the baseline's per-iteration spread
	                         (sum of samples - 1: spread_n, else nsamples), 0 when
	                         unknown */
	double current_p99;   /* latency rows: 99th percentiles, microseconds; NaN otherwise */
	double base_p99;
	enum ft_verdict verdict;
};

struct ft_compare {
	struct ft_compare_opts opts;
	struct ft_vec
	        rows; /* struct ft_compare_row, in the current run's row order, then MISSING */
	size_t count[FT_VERDICT_COUNT];
	size_t nmatched; /* current keys found in the baseline (judged) */
	size_t naside;   /* judged rows whose baseline had a disturbed run set aside */
};

/*
 * Compare @cur with the @nbase runs of a baseline (each row of each baseline
 * run is one sample). @out is initialized by this call; release it with
 * ft_compare_release(). @opts NULL takes the defaults.
 */
FT_API int ft_compare_runs(const struct ft_run *cur, const struct ft_run *const *base, size_t nbase,
                           const struct ft_compare_opts *opts, struct ft_compare *out,
                           struct ft_error *err) FT_MUST_CHECK;
FT_API void ft_compare_release(struct ft_compare *cmp);
/* True when any result regressed (a CI gate fails). */
static inline bool
ft_compare_has_regression(const struct ft_compare *cmp)
{
	return cmp->count[FT_VERDICT_REGRESSED] > 0;
}

/*
 * True when nothing, or fewer than opts.min_matched of the baseline's keys,
 * matched: a gate must not pass on data it did not see.
 */
FT_API bool ft_compare_is_incomplete(const struct ft_compare *cmp);

/* True for a latency result: its test name says "lat", or it has only latencies. */
FT_API bool ft_result_row_is_latency(const struct ft_result_row *row);

/* The metric ft_compare_runs() uses for @row, its name and direction; NaN when none. */
FT_API double ft_result_row_metric(const struct ft_result_row *row, const char **name,
                                   bool *higher_is_better);

#ifdef __cplusplus
}
#endif
#endif

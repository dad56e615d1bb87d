/* SPDX-License-Identifier: MIT */
/*
 * cli/glue.h - what commands share to save their results (--save) and to
 * take the analytic model's expectations for measured results.
 */
#ifndef FT_CLI_GLUE_H
#define FT_CLI_GLUE_H

#include <stddef.h>
#include <stdint.h>

#include <fabtune/fabtune.h>

#include "cli.h"

/*
 * Save @run with @obs (NULL for none) and @nf findings to @ar, with this
 * host's fingerprint completed by what @obs tells (NCCL version, firmware of
 * other hosts' HCAs). *@id gets the run id (may be NULL).
 */
int cli_save_run_to(struct ft_archive *ar, const struct ft_run *run, const struct ft_obs_set *obs,
                    const struct ft_finding *f, size_t nf, int64_t *id, struct ft_error *err);

/*
 * --save: open the archive of @ctx (--archive, FABTUNE_ARCHIVE or the
 * default), save, and say "saved run N to PATH" on stderr. Errors are
 * reported; returns 0 or a negative FT_E* code.
 */
int cli_save_run(struct cli_ctx *ctx, const struct ft_run *run, const struct ft_obs_set *obs,
                 const struct ft_finding *f, size_t nf);

/*
 * Check before any long work that @path (an option's value, named @opt in
 * messages) can be written: "-" (stdout) always can; otherwise its folder
 * exists and is writable (the file is written next to itself and renamed),
 * and the path is not a folder nor a read-only file. FT_ENOENT or FT_EINVAL
 * with a message naming the option, the path and what is wrong.
 */
int cli_check_output_path(const char *opt, const char *path, struct ft_error *err);

/*
 * The observations the diagnosis reads from a benchmark's rows (bench.busbw,
 * bench.lat_p50, ...), as ft_diag_obs_from_run() makes them, with @file as
 * their source. Only the pairs pattern's rows become per-pair bandwidths: a
 * point-to-point row names its two ranks but is one measurement, not a matrix.
 */
int cli_bench_obs(const struct ft_run *run, const char *file, struct ft_obs_set *obs);

/*
 * What the analytic model expects for the collective rows of @measured on
 * @spec: one struct ft_expectation per (test, size) appended to @expect
 * (NULL to skip), and one model row per (test, size) appended to @model
 * (NULL to skip; rows carry the measured transport's name as ""). Rows whose
 * test is not a collective (pt2pt_bw, pairs...) and rows of transports other
 * than @transport (NULL: every transport) are left out. The rank count of a
 * row is taken as the GPU count when the spec has that many GPUs, else the
 * whole spec. *@n gets the number of points computed (may be NULL).
 */
int cli_model_expectations(const struct ft_cluster_spec *spec, const struct ft_run *measured,
                           const char *transport, struct ft_vec *expect, struct ft_run *model,
                           size_t *n, struct ft_error *err);

#endif

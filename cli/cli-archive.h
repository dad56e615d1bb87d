/* SPDX-License-Identifier: MIT */
/*
 * cli/cli-archive.h - what the archive and report commands share, and what
 * other commands call to save their results (--save) and to compare them
 * (implemented in cli/cli-archive.c).
 */
#ifndef FT_CLI_ARCHIVE_H
#define FT_CLI_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fabtune/fabtune.h>

#include "cli.h"

/* Open the archive of @ctx (--archive, FABTUNE_ARCHIVE or the default). */
int cli_archive_open(struct cli_ctx *ctx, struct ft_archive **ar, struct ft_error *err);

/*
 * Load what @ref names into @records (struct ft_archive_record): a file (a
 * fabtune export, all its runs), a run reference (12, latest, latest~N) or,
 * when @baseline_ok, a baseline name (also as "baseline:NAME"). The archive
 * is opened on first need through *@ar. @label receives a description.
 */
int cli_load_ref(struct cli_ctx *ctx, struct ft_archive **ar, const char *ref, bool baseline_ok,
                 struct ft_vec *records, char *label, size_t len, struct ft_error *err);

/*
 * --save: open the archive of @ctx, save @run with @obs (NULL for none) and
 * @nf findings and their fingerprint (ft_workflow_save_run), and say "saved
 * run N to PATH" on stderr. Errors are reported; 0 or a negative FT_E* code.
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

/* Write @sb to @path (atomically: temporary file, rename), or stdout for NULL or "-". */
int cli_write_output(const char *path, const struct ft_strbuf *sb, struct ft_error *err);

/* Parse "5%" or "0.05" into a fraction; -1 after a usage error naming @opt. */
int cli_parse_fraction(struct cli_ctx *ctx, const char *opt, const char *text, double *out);

/* Everything a comparison or a report needs, loaded from references. */
struct cli_report {
	struct ft_vec cur;      /* records; the first is reported */
	struct ft_vec base;     /* records of the baseline */
	struct ft_vec expected; /* records; the first is the model's expectation */
	const struct ft_run **bruns;
	struct ft_compare cmp;
	bool have_cmp;
	char cur_label[160];
	char base_label[200];
	struct ft_report_input in;
};

/*
 * Load @run_ref, and @vs_ref / @expected_ref when not NULL, compare when
 * there is a baseline, and fill r->in. Errors are reported; returns an exit
 * code (EXIT_OK when ready). Release with cli_report_release() in any case.
 */
int cli_report_prepare(struct cli_ctx *ctx, struct ft_archive **ar, const char *run_ref,
                       const char *vs_ref, const char *expected_ref,
                       const struct ft_compare_opts *opts, struct cli_report *r);
void cli_report_release(struct cli_report *r);

/* Compare options from the command line; -1 after a usage error. */
struct cli_compare_args {
	const char *threshold; /* "5%" */
	const char *floor;     /* "1%" */
	double sigma;          /* 0 = default */
	int min_samples;       /* -1 = default; otherwise at least 2 */
	const char *min_matched; /* "50%" */
};
int cli_compare_opts(struct cli_ctx *ctx, const struct cli_compare_args *a,
                     struct ft_compare_opts *o);

#endif

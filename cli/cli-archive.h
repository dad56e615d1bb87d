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
#include <fabtune/workflow.h>

#include "cli.h"

/* The archive path of @ctx (--archive or FABTUNE_ARCHIVE); NULL: the default. */
const char *cli_archive_path(const struct cli_ctx *ctx);

/* Open the archive of @ctx (--archive, FABTUNE_ARCHIVE or the default). */
int cli_archive_open(struct cli_ctx *ctx, struct ft_archive **ar, struct ft_error *err);

/* Open the archive of @ctx into *@ar or say why not: EXIT_OK, or the failure's exit code. */
int cli_archive_open_or_fail(struct cli_ctx *ctx, struct ft_archive **ar);

/*
 * What a verb that reads the archive writes into @sb, from the @n arguments
 * @args and its options @ud. 0, a negative FT_E* code with @err filled, or
 * an exit code (> 0) after the verb said what went wrong itself.
 */
typedef int cli_read_fn(struct cli_ctx *ctx, struct ft_archive *ar, int n, char **args,
                        struct ft_strbuf *sb, void *ud, struct ft_error *err);

/*
 * A verb that reads the archive and prints one answer: parse the options
 * of @u (at most @max arguments, -1: any), open the archive, let @fn write,
 * close, then print what it wrote or report its error. The exit code.
 */
int cli_archive_read(struct cli_ctx *ctx, const struct cmd_usage *u, int argc, char **argv,
                     int max, cli_read_fn *fn, void *ud);

/*
 * Define the verb @fn that takes no options and any number of arguments
 * and reads the archive through cli_archive_read() with @reader; @name,
 * @summary and @synopsis make its usage (CMD_USAGE()).
 */
#define CLI_ARCHIVE_READ_VERB(fn, reader, name, summary, synopsis)                          \
	int fn(int argc, char **argv, struct cli_ctx *ctx)                                  \
	{                                                                                   \
		const struct cmd_usage usage = CMD_USAGE(name, summary, NULL, synopsis);    \
		return cli_archive_read(ctx, &usage, argc, argv, -1, reader, NULL);         \
	}

/*
 * One argument's work in a verb over its arguments ("archive rm RUN..."),
 * adding what it did to @a and saying it on stdout without --json; @ud is
 * the verb's. 0 or a negative FT_E* code with @err filled.
 */
typedef int cli_each_fn(struct cli_ctx *ctx, struct ft_archive *ar, const char *arg,
                        struct cli_answer *a, void *ud, struct ft_error *err);

/*
 * A verb over one or more arguments: parse the options of @u (none given:
 * "expected @expected"), open the archive, and run @fn on each argument in
 * order until one fails, into the JSON answer {"@key": [...]}. The exit code.
 */
int cli_archive_each(struct cli_ctx *ctx, const struct cmd_usage *u, int argc, char **argv,
                     const char *expected, const char *key, cli_each_fn *fn, void *ud);

/*
 * --save: open the archive of @ctx, save @run with @obs (NULL for none) and
 * @nf findings and their fingerprint (ft_workflow_save_run), and say "saved
 * run N to PATH" on stderr. Errors are reported; 0 or a negative FT_E* code.
 */
int cli_save_run(struct cli_ctx *ctx, const struct ft_run *run, const struct ft_obs_set *obs,
                 const struct ft_finding *f, size_t nf);

/* ft_file_check_writable() of @path, named @opt in messages. */
int cli_check_output_path(const char *opt, const char *path, struct ft_error *err);

/* Write @sb to @path (atomically: temporary file, rename), or stdout for NULL or "-". */
int cli_write_output(const char *path, const struct ft_strbuf *sb, struct ft_error *err);

/*
 * ft_workflow_report_prepare() of run @ref (NULL: latest) against @vs, with
 * the expectations of @expected (NULL: none), in the archive of @ctx:
 * EXIT_OK, or after reporting the error its exit code (@r released).
 */
int cli_report_prepare(struct cli_ctx *ctx, const char *ref, const char *vs, const char *expected,
                       const struct ft_compare_opts *co, struct ft_workflow_report *r);

/* Compare options from the command line (ft_compare_opts_parse()); -1 after a usage error. */
struct cli_compare_args {
	const char *threshold; /* "5%" */
	const char *floor;     /* "1%" */
	double sigma;          /* 0 = default */
	int min_samples;       /* -1 = default; otherwise at least 2 */
	const char *min_matched; /* "50%" */
};
int cli_compare_opts(struct cli_ctx *ctx, const struct cli_compare_args *a,
                     struct ft_compare_opts *o);

/* The noise-band options into the cli_compare_args @ca, as every comparing command takes them. */
#define CLI_COMPARE_BAND_OPTS(ca)                                                        \
	OPT_STRING(0, "threshold", &(ca).threshold, "PCT",                               \
	           "stated threshold without repeated samples (default 5%)"),            \
	OPT_DOUBLE(0, "sigma", &(ca).sigma, "K",                                         \
	           "band of K standard deviations with samples (default 3)")

/* The verbs of `fabtune archive` that live in their own files. */
int cmd_archive_baseline(int argc, char **argv, struct cli_ctx *ctx); /* cmd-archive-baseline.c */
int cmd_archive_export(int argc, char **argv, struct cli_ctx *ctx);   /* cmd-archive-store.c */
int cmd_archive_import(int argc, char **argv, struct cli_ctx *ctx);
int cmd_archive_rm(int argc, char **argv, struct cli_ctx *ctx);
int cmd_archive_check(int argc, char **argv, struct cli_ctx *ctx);

#endif

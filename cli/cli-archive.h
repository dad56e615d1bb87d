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

/* The archive path of @ctx (--archive or FABTUNE_ARCHIVE); NULL: the default. */
const char *cli_archive_path(const struct cli_ctx *ctx);

/* Open the archive of @ctx (--archive, FABTUNE_ARCHIVE or the default). */
int cli_archive_open(struct cli_ctx *ctx, struct ft_archive **ar, struct ft_error *err);

/* Open the archive of @ctx into *@ar or say why not: EXIT_OK, or the failure's exit code. */
int cli_archive_open_or_fail(struct cli_ctx *ctx, struct ft_archive **ar);

/*
 * The JSON answer of a verb that changes the archive, filled as the verb
 * goes: {"deleted": [3, 4]}. cli_answer_begin() opens the object and, for a
 * @key, its array; cli_answer_array() opens an array later (after other
 * members) and cli_answer_array_end() closes one early. cli_answer_end()
 * closes what is open, prints the answer with --json when @rc is 0,
 * releases it and returns the exit code for @rc (reporting @err).
 */
struct cli_answer {
	struct ft_strbuf sb;
	struct ft_json j;
	bool in_array;
};
void cli_answer_begin(struct cli_answer *a, const char *key);
void cli_answer_array(struct cli_answer *a, const char *key);
void cli_answer_array_end(struct cli_answer *a);
int cli_answer_end(struct cli_ctx *ctx, struct cli_answer *a, int rc, const struct ft_error *err);

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

/*
 * Global options may come before a group's verb ("fabtune --json archive
 * list" reaches the group as "archive --json list"): move the verb first.
 */
void cli_verb_first(int argc, char **argv);

/* The verbs of `fabtune archive` that live in their own files. */
int cmd_archive_baseline(int argc, char **argv, struct cli_ctx *ctx); /* cmd-archive-baseline.c */
int cmd_archive_export(int argc, char **argv, struct cli_ctx *ctx);   /* cmd-archive-store.c */
int cmd_archive_import(int argc, char **argv, struct cli_ctx *ctx);
int cmd_archive_rm(int argc, char **argv, struct cli_ctx *ctx);
int cmd_archive_check(int argc, char **argv, struct cli_ctx *ctx);

#endif

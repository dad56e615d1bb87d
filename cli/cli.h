/* SPDX-License-Identifier: MIT */
/*
 * cli/cli.h - what the fabtune command-line tool shares between commands:
 * the global context, exit codes, output helpers and the command table.
 */
#ifndef FT_CLI_H
#define FT_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <fabtune/fabtune.h>

#include "cli-opts.h"

/* Exit codes of every command. */
enum {
	EXIT_OK = 0,	  /* success */
	EXIT_PROBLEM = 1, /* the command ran and found a problem */
	EXIT_USAGE = 2,	  /* bad options, arguments or input files */
	EXIT_RUNTIME = 3, /* runtime error */
	EXIT_INCOMPLETE = 4, /* a comparison matched nothing or too little of its baseline */
};

/* Global options and shared state, parsed once, read by every command. */
struct cli_ctx {
	bool json;	     /* --json: machine output on stdout */
	bool no_color;	     /* --no-color */
	bool have_seed;
	uint64_t seed;	     /* --seed */
	const char *archive; /* --archive PATH (or FABTUNE_ARCHIVE) */
	int verbose;	     /* -v, repeatable */
	bool stable;	     /* FABTUNE_TEST_STABLE=1: no versions, times, durations */
	const char *cmd;     /* current command name, for messages */
	struct ft_progress_bar bar;
	struct ft_progress progress; /* draws on stderr when it is a terminal */
};

struct cmd {
	const char *name;
	int (*run)(int argc, char **argv, struct cli_ctx *ctx);
	const char *summary;
};

/* "fabtune <cmd>: <kind><message>" on stderr; @kind is "" or "warning: ". */
void cli_msg(const struct cli_ctx *ctx, const char *kind, const char *fmt, ...) FT_PRINTF(3, 4);
/* "fabtune <cmd>: <message>" and "fabtune <cmd>: warning: <message>" on stderr. */
#define cli_error(ctx, ...) cli_msg(ctx, "", __VA_ARGS__)
#define cli_warn(ctx, ...)  cli_msg(ctx, "warning: ", __VA_ARGS__)
/* Map a library error code to an exit code (usage for input errors). */
int cli_exit_for(int rc);
/* Report a library error with its message and return the exit code. */
int cli_fail(const struct cli_ctx *ctx, int rc, const struct ft_error *err);
/*
 * Write a string buffer to stdout. A JSON object gets the running command's
 * schema as its first member ("schema": "fabtune.<command>/<version>").
 */
void cli_write(const struct ft_strbuf *sb);
/* @sb with the schema as its first member in @doc (initialised here, released by the
 * caller), when @sb is a JSON object without one; false (and @doc empty) otherwise. */
bool cli_with_schema(const struct ft_strbuf *sb, struct ft_strbuf *doc);
/*
 * cli_write() @sb and release it: EXIT_OK, or EXIT_RUNTIME after "out of
 * memory" (and nothing written) when @sb ran out of memory while filled.
 */
int cli_emit(const struct cli_ctx *ctx, struct ft_strbuf *sb);
/*
 * A JSON answer filled as a command goes: {"deleted": [3, 4]}.
 * cli_answer_begin() opens the object and, for a @key, its array;
 * cli_answer_array() opens an array later (after other members) and
 * cli_answer_array_end() closes one early. cli_answer_end() closes what is
 * open, prints the answer with --json when @rc is 0, releases it and
 * returns the exit code for @rc (reporting @err).
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
/* What @write (a library writer, text or JSON) writes for @ctx, through cli_emit(). */
int cli_emit_with(const struct cli_ctx *ctx, void (*write)(struct ft_strbuf *sb, bool json));
/* Whether stdout gets ANSI colours (NO_COLOR, --no-color, a pipe: no). */
bool cli_color(const struct cli_ctx *ctx);
/* The command whose documents cli_write() stamps; main() sets it once. */
void cli_set_running(const struct cli_ctx *ctx);
/* "fabtune.archive.compare/1" for @ctx's command, into @buf. */
void cli_json_schema(const struct cli_ctx *ctx, char *buf, size_t len);
/* Run a nested verb table (e.g. "archive list"); global options may come before the verb. */
int cli_dispatch(const struct cmd *table, size_t n, const char *group, int argc, char **argv,
		 struct cli_ctx *ctx);

/* Define the command @fn of a group of verbs ("archive"): cli_dispatch() through @table. */
#define CLI_GROUP(fn, group, table)                                                         \
	int fn(int argc, char **argv, struct cli_ctx *ctx)                                  \
	{                                                                                   \
		return cli_dispatch(table, FT_ARRAY_SIZE(table), group, argc, argv, ctx);   \
	}

/* Look up a command by name in @table; NULL when absent. */
const struct cmd *cli_find_cmd(const struct cmd *table, size_t n, const char *name);
/* "unknown command 'modle' (did you mean 'model'? see 'fabtune help')" for @name, not in
 * @table (the verbs of @group, or the commands for NULL); EXIT_USAGE. */
int cli_unknown_command(const struct cli_ctx *ctx, const struct cmd *table, size_t n,
			const char *group, const char *name);
/* Print "usage: ..." and the command list of @table to @out. */
void cli_list_commands(const struct cmd *table, size_t n, const char *group, FILE *out);

/* Commands, one per cli/cmd-<name>.c. */
int cmd_advise(int argc, char **argv, struct cli_ctx *ctx);
int cmd_archive(int argc, char **argv, struct cli_ctx *ctx);
int cmd_bench(int argc, char **argv, struct cli_ctx *ctx);
int cmd_diagnose(int argc, char **argv, struct cli_ctx *ctx);
int cmd_doctor(int argc, char **argv, struct cli_ctx *ctx);
int cmd_help(int argc, char **argv, struct cli_ctx *ctx);
int cmd_model(int argc, char **argv, struct cli_ctx *ctx);
int cmd_parse(int argc, char **argv, struct cli_ctx *ctx);
int cmd_plan(int argc, char **argv, struct cli_ctx *ctx);
int cmd_probe(int argc, char **argv, struct cli_ctx *ctx);
int cmd_report(int argc, char **argv, struct cli_ctx *ctx);
int cmd_sim(int argc, char **argv, struct cli_ctx *ctx);
int cmd_spec(int argc, char **argv, struct cli_ctx *ctx);
int cmd_topo(int argc, char **argv, struct cli_ctx *ctx);
int cmd_version(int argc, char **argv, struct cli_ctx *ctx);

extern const struct cmd cli_commands[];
extern const size_t cli_ncommands;

#endif

/* SPDX-License-Identifier: MIT */
/*
 * cli/cli-opts.h - the declarative option parser (git's parse-options style).
 *
 * A command declares its options in a table ending with OPT_END(); the parser
 * fills typed targets (sizes, rates and durations in fabtune's units), leaves
 * positional arguments in order, accepts "--name=value", "--name value",
 * "-x value" and "-xvalue", stops at "--", and prints --help from the table.
 * The global options (--json, --seed, ...) are accepted by every command.
 */
#ifndef FT_CLI_OPTS_H
#define FT_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum opt_type {
	OPT_TYPE_END,
	OPT_TYPE_BOOL,	   /* bool *, no argument */
	OPT_TYPE_STRING,   /* const char **, argument */
	OPT_TYPE_U64,	   /* uint64_t * */
	OPT_TYPE_INT,	   /* int * */
	OPT_TYPE_DOUBLE,   /* double * */
	OPT_TYPE_SIZE,	   /* uint64_t * bytes: 4KiB 256M 8G */
	OPT_TYPE_RATE,	   /* double * bytes/s: 400Gbps 50GB/s */
	OPT_TYPE_DURATION, /* double * seconds: 2us 30s */
	OPT_TYPE_COUNT_UP, /* int *, incremented per occurrence (-v -v) */
};

struct opt {
	enum opt_type type;
	char short_name;       /* 0 for none */
	const char *long_name; /* NULL for none */
	void *value;
	const char *argh;      /* argument placeholder for --help, e.g. "SIZE" */
	const char *help;
};

#define OPT_END()                        { OPT_TYPE_END, 0, NULL, NULL, NULL, NULL }
#define OPT_BOOL(s, l, v, h)             { OPT_TYPE_BOOL, s, l, v, NULL, h }
#define OPT_STRING(s, l, v, a, h)        { OPT_TYPE_STRING, s, l, v, a, h }
#define OPT_U64(s, l, v, a, h)           { OPT_TYPE_U64, s, l, v, a, h }
#define OPT_INT(s, l, v, a, h)           { OPT_TYPE_INT, s, l, v, a, h }
#define OPT_DOUBLE(s, l, v, a, h)        { OPT_TYPE_DOUBLE, s, l, v, a, h }
#define OPT_SIZE(s, l, v, h)             { OPT_TYPE_SIZE, s, l, v, "SIZE", h }
#define OPT_RATE(s, l, v, h)             { OPT_TYPE_RATE, s, l, v, "RATE", h }
#define OPT_DURATION(s, l, v, h)         { OPT_TYPE_DURATION, s, l, v, "TIME", h }
#define OPT_COUNTUP(s, l, v, h)          { OPT_TYPE_COUNT_UP, s, l, v, NULL, h }

/*
 * Option families that several commands declare alike: --save (store @what,
 * "the run", in the archive), -o/--output FILE, and the size range
 * -b/--minbytes, -e/--maxbytes (@min_note and @max_note end the help:
 * "default 8").
 */
#define OPT_SAVE(v, what)                OPT_BOOL(0, "save", v, "store " what " in the archive")
#define OPT_OUTPUT(v) \
	OPT_STRING('o', "output", v, "FILE", "write to FILE instead of stdout")
#define OPT_SIZE_RANGE(min, max, min_note, max_note)                          \
	OPT_SIZE('b', "minbytes", min, "smallest size (" min_note ")"),       \
	OPT_SIZE('e', "maxbytes", max, "largest size (" max_note ")")

struct cli_ctx;

/*
 * A command's usage: synopsis lines (NULL-terminated) and its option table.
 */
struct cmd_usage {
	const char *name;	   /* "model" or "archive list" */
	const char *const *synopsis; /* "fabtune model SPEC [options]", NULL-terminated */
	const char *summary;
	const struct opt *opts;
};

/*
 * A usage with its synopsis lines inline, for a table of options @opts
 * (NULL: none): CMD_USAGE("archive rm", "Delete runs.", NULL,
 * "fabtune archive rm RUN..."). The synopsis lives as long as the
 * enclosing block: declare the usage in the command's function.
 */
#define CMD_USAGE(name, summary, opts, ...) \
	{ name, (const char *const[]){ __VA_ARGS__, NULL }, summary, opts }

/*
 * Parse argv[1..argc) of a command. Positional arguments are moved to the
 * front of argv (argv[0] stays); returns their count (>= 0), or -1 after
 * printing a usage error to stderr (exit code 2), or -2 when --help was given
 * and the help was printed to stdout (exit code 0).
 */
int opts_parse(const struct cmd_usage *u, struct cli_ctx *ctx, int argc, char **argv);

/*
 * opts_parse() for a command that takes at most @max positional arguments
 * (-1: any number; one more is an "unexpected argument" error). Returns
 * their count, or -1 with the command's exit code in *@exit_code: 0 after
 * --help, 2 after a usage error.
 */
int opts_parse_args(const struct cmd_usage *u, struct cli_ctx *ctx, int argc, char **argv,
		    int max, int *exit_code);

/*
 * How many of the @argc words at @argv the global option there takes: 1
 * ("--json", "-v", "--seed=7"), 2 ("--seed 7"), or 0 when @argv[0] is not a
 * global option (or lacks its value).
 */
int opts_global_words(int argc, char **argv);
/*
 * The reading of -b and -e that bench, model and sim share, after
 * opts_parse with both preset to @unset: an end given alone is the only
 * size, the other end taking its value; neither given, both stay @unset
 * for the command's default range. (nccl-tests keeps its default, 32 MiB,
 * for the end not given and refuses -b above -e: src/common.cu's minBytes,
 * maxBytes and "invalid sizes for 'minbytes' and 'maxbytes'", tag v2.19.6.
 * Its -b alone sweeps up to 32 MiB from below and fails above; here it is
 * that one size whatever the command's default range.)
 */
void opts_size_alone(uint64_t *minb, uint64_t *maxb, uint64_t unset);

/* Print the usage of @u to @out. */
void opts_usage(const struct cmd_usage *u, FILE *out);

#endif

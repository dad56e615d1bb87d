/* SPDX-License-Identifier: MIT */
/*
 * cli/fabtune.c - the sorted command table and the helpers every command
 * shares (messages, exit codes, nested verbs, help and version).
 *
 * Each command lives in cli/cmd-<name>.c and only parses its arguments,
 * calls the library and renders what comes back.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fabtune/fabtune.h>

#include "cli.h"

/* Sorted by name; a unit test checks the order and that each has a doc page. */
const struct cmd cli_commands[] = {
	{ "advise", cmd_advise, "advise NCCL, MTU, PFC/ECN, routing and placement changes, with gains" },
	{ "archive", cmd_archive, "the run archive: list, show, compare, baseline, export, import, rm, check" },
	{ "bench", cmd_bench, "measure this host or cluster (nccl-tests, perftest style)" },
	{ "diagnose", cmd_diagnose, "locate the fault layer by layer, with evidence and fix" },
	{ "doctor", cmd_doctor, "check this host end to end: probe, bench, model, diagnosis, baseline" },
	{ "help", cmd_help, "list the commands, or show one command's help" },
	{ "model", cmd_model, "what a collective should achieve on a cluster, size by size, and why" },
	{ "parse", cmd_parse, "read tool outputs (ibstat, perfquery, ethtool, NCCL logs, nccl-tests, ...)" },
	{ "plan", cmd_plan, "plan a training job: memory, parallelism, communication, overlap, MFU" },
	{ "probe", cmd_probe, "read this host's ports, counters, links, NUMA and GPU-NIC affinity" },
	{ "report", cmd_report, "report a run: tables, JSON, CSV, HTML with charts, Prometheus" },
	{ "sim", cmd_sim, "simulate collectives, jobs and faults on a cluster twin" },
	{ "spec", cmd_spec, "print a cluster spec (file or preset) or list the presets" },
	{ "topo", cmd_topo, "show a cluster's topology: counts, bisection, diameter; dot/json export" },
	{ "version", cmd_version, "print the version of fabtune" },
};
const size_t cli_ncommands = FT_ARRAY_SIZE(cli_commands);

/* The size of the message cli_msg() writes when its buffers cannot be had. */
#define CLI_MSG_FIXED 1024

/*
 * The message with no allocation, for cli_msg() out of memory: formatted into a
 * fixed buffer (a longer one cut there and ended with "..."), escaped piece by
 * piece as ft_strbuf_add_printable() escapes it (ft_printable_piece()), so that it
 * is the line written without the failure. A format that fails even so is named,
 * with its format.
 */
static void FT_PRINTF(3, 0)
        msg_fixed(const struct cli_ctx *ctx, const char *kind, const char *fmt, va_list ap)
{
	char buf[CLI_MSG_FIXED], esc[FT_PRINTABLE_ESC];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	size_t len, i, k;

	if (n < 0)
		snprintf(buf, sizeof(buf), "a message that could not be written: '%s'", fmt);
	len = n < 0 ? strlen(buf) : FT_MIN((size_t)n, sizeof(buf) - 1);
	fprintf(stderr, "fabtune%s%s: %s", ctx && ctx->cmd ? " " : "",
	        ctx && ctx->cmd ? ctx->cmd : "", kind);
	for (i = 0; i < len; i += k) {
		k = ft_printable_piece(buf + i, len - i, esc);
		if (esc[0])
			fputs(esc, stderr);
		else
			fwrite(buf + i, 1, k, stderr);
	}
	fputs(n >= (int)sizeof(buf) ? "...\n" : "\n", stderr);
}

/*
 * Messages and results carry text from inputs (file names, tool outputs,
 * sysfs): control characters in them are written as visible escapes, never
 * raw, so an escape sequence in an input cannot drive the terminal. Out of
 * memory for its buffers, the message is still written (msg_fixed()), never
 * an empty line.
 */
void
cli_msg(const struct cli_ctx *ctx, const char *kind, const char *fmt, ...)
{
	struct ft_strbuf raw, out;
	va_list ap, again;

	ft_strbuf_init(&raw);
	ft_strbuf_init(&out);
	va_start(ap, fmt);
	va_copy(again, ap);
	ft_strbuf_vaddf(&raw, fmt, ap);
	va_end(ap);
	ft_strbuf_add_printable(&out, raw.buf, raw.len);
	if (raw.oom || out.oom)
		msg_fixed(ctx, kind, fmt, again);
	else
		fprintf(stderr, "fabtune%s%s: %s%s\n", ctx && ctx->cmd ? " " : "",
		        ctx && ctx->cmd ? ctx->cmd : "", kind, out.buf);
	va_end(again);
	ft_strbuf_release(&raw);
	ft_strbuf_release(&out);
}

int
cli_exit_for(int rc)
{
	switch (rc) {
	case 0:
		return EXIT_OK;
	case FT_EINVAL:
	case FT_EPARSE:
	case FT_ERANGE:
	case FT_ENOENT:
		return EXIT_USAGE;
	default:
		return EXIT_RUNTIME;
	}
}

int
cli_fail(const struct cli_ctx *ctx, int rc, const struct ft_error *err)
{
	cli_error(ctx, "%s", ft_error_msg(err, rc));
	return cli_exit_for(rc);
}

/*
 * Colour on stdout: never with NO_COLOR set or --no-color; otherwise when
 * stdout is a terminal (not a pipe or a file) that is not "dumb", or when
 * CLICOLOR_FORCE asks for it anyway (CLICOLOR_FORCE=1 fabtune ... | less -R).
 */
bool
cli_color(const struct cli_ctx *ctx)
{
	const char *force = getenv("CLICOLOR_FORCE"), *term = getenv("TERM");

	if (ctx->no_color || getenv("NO_COLOR"))
		return false;
	if (force && force[0] && strcmp(force, "0") != 0)
		return true;
	return isatty(STDOUT_FILENO) && !(term && strcmp(term, "dumb") == 0);
}

/* The running command (main sets it): names the schema of its JSON. */
static const struct cli_ctx *running;

void
cli_set_running(const struct cli_ctx *ctx)
{
	running = ctx;
}

/*
 * The schema of a command's JSON documents: "fabtune.<command>/<version>",
 * the command's words joined by dots ("fabtune.archive.compare/1"). The
 * version changes when a field changes meaning or goes away; new fields do
 * not change it.
 */
#define CLI_JSON_SCHEMA_VERSION 1

void
cli_json_schema(const struct cli_ctx *ctx, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "fabtune.%s", ctx && ctx->cmd ? ctx->cmd : "fabtune");

	for (char *p = buf; *p; p++)
		if (*p == ' ')
			*p = '.';
	if (n < len)
		snprintf(buf + n, len - n, "/%d", CLI_JSON_SCHEMA_VERSION);
}

/*
 * Text from inputs reaches stdout printable: control characters become
 * visible escapes (ft_strbuf_add_printable). The one exception is fabtune's
 * own colour when colour is on (cli_color()): ft_report_add_printable_sgr().
 */
static void
write_printable(const char *s, size_t n)
{
	struct ft_strbuf out;

	ft_strbuf_init(&out);
	if (running && cli_color(running))
		ft_report_add_printable_sgr(&out, s, n);
	else
		ft_strbuf_add_printable(&out, s, n);
	if (out.oom)
		fwrite(s, 1, n, stdout);
	else
		fwrite(out.buf, 1, out.len, stdout);
	ft_strbuf_release(&out);
}

/*
 * Every JSON object a command writes carries its schema as the first member:
 * {"schema":"fabtune.bench/1",...}, pretty or compact as the document is.
 */
bool
cli_with_schema(const struct ft_strbuf *sb, struct ft_strbuf *doc)
{
	char schema[96];

	ft_strbuf_init(doc);
	if (!running)
		return false;
	cli_json_schema(running, schema, sizeof(schema));
	if (ft_report_add_schema(doc, sb->buf, sb->len, schema) == 0)
		return true;
	ft_strbuf_release(doc);
	return false;
}

void
cli_write(const struct ft_strbuf *sb)
{
	struct ft_strbuf doc;

	if (cli_with_schema(sb, &doc))
		write_printable(doc.buf, doc.len);
	else
		write_printable(sb->buf, sb->len);
	ft_strbuf_release(&doc);
}

void
cli_answer_begin(struct cli_answer *a, const char *key)
{
	ft_strbuf_init(&a->sb);
	ft_json_init(&a->j, &a->sb, false);
	ft_json_obj_begin(&a->j);
	a->in_array = false;
	if (key)
		cli_answer_array(a, key);
}

void
cli_answer_array(struct cli_answer *a, const char *key)
{
	ft_json_key(&a->j, key);
	ft_json_arr_begin(&a->j);
	a->in_array = true;
}

void
cli_answer_array_end(struct cli_answer *a)
{
	ft_json_arr_end(&a->j);
	a->in_array = false;
}

int
cli_answer_end(struct cli_ctx *ctx, struct cli_answer *a, int rc, const struct ft_error *err)
{
	if (a->in_array)
		cli_answer_array_end(a);
	ft_json_obj_end(&a->j);
	ft_strbuf_addch(&a->sb, '\n');
	if (rc == 0 && ctx->json)
		cli_write(&a->sb);
	ft_strbuf_release(&a->sb);
	return rc < 0 ? cli_fail(ctx, rc, err) : EXIT_OK;
}

int
cli_emit(const struct cli_ctx *ctx, struct ft_strbuf *sb)
{
	bool oom = sb->oom;

	if (!oom)
		cli_write(sb);
	ft_strbuf_release(sb);
	return oom ? cli_fail(ctx, FT_ENOMEM, NULL) : EXIT_OK;
}

int
cli_emit_with(const struct cli_ctx *ctx, void (*write)(struct ft_strbuf *sb, bool json))
{
	struct ft_strbuf sb;

	ft_strbuf_init(&sb);
	write(&sb, ctx->json);
	return cli_emit(ctx, &sb);
}

const struct cmd *
cli_find_cmd(const struct cmd *table, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(table[i].name, name) == 0)
			return &table[i];
	return NULL;
}

void
cli_list_commands(const struct cmd *table, size_t n, const char *group, FILE *out)
{
	size_t i;

	fprintf(out, "usage: fabtune %s%s<command> [options] [args]\n\ncommands:\n",
		group ? group : "", group ? " " : "");
	for (i = 0; i < n; i++)
		fprintf(out, "  %-10s %s\n", table[i].name, table[i].summary);
	fprintf(out, "\nRun 'fabtune %s%s<command> --help' for one command's options.\n",
		group ? group : "", group ? " " : "");
}

/*
 * Global options may come before the verb ("fabtune --json archive list"
 * reaches the group as "archive --json list"): move the verb first for dispatch.
 */
static void
verb_first(int argc, char **argv)
{
	char *verb;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++)
		if (opts_global_words(argc - i, argv + i) == 2)
			i++;
	if (i <= 1 || i >= argc)
		return;
	verb = argv[i];
	memmove(argv + 2, argv + 1, (size_t)(i - 1) * sizeof(*argv));
	argv[1] = verb;
}

/*
 * "unknown command 'modle' (did you mean 'model'? see 'fabtune help')", for a
 * command or a verb of @group, with the closest name of @table when one is near.
 */
int
cli_unknown_command(const struct cli_ctx *ctx, const struct cmd *table, size_t n,
		    const char *group, const char *name)
{
	const char *names[32], *near;
	char hint[96] = "";
	size_t i;

	for (i = 0; i < n && i < FT_ARRAY_SIZE(names); i++)
		names[i] = table[i].name;
	near = ft_name_closest(name, names, i);
	if (near)
		snprintf(hint, sizeof(hint), "did you mean '%s'? ", near);
	cli_error(ctx, "unknown command '%s' (%ssee 'fabtune %s%shelp')", name, hint,
		  group ? group : "", group ? " --" : "");
	return EXIT_USAGE;
}

/*
 * help --json, and a group's --help --json: the commands as
 * {"schema": "fabtune.help/1", "command": GROUP, "commands": [{"name",
 * "summary"}]}, "command" only for a group ("archive", "archive baseline"),
 * as a command's own --help --json names it.
 */
static int
list_commands_json(struct cli_ctx *ctx, const struct cmd *table, size_t n, const char *group)
{
	const char *cmd = ctx->cmd;
	struct cli_answer a;
	int rc;

	cli_answer_begin(&a, NULL);
	if (group)
		ft_json_kv_str(&a.j, "command", group);
	cli_answer_array(&a, "commands");
	for (size_t i = 0; i < n; i++) {
		ft_json_obj_begin(&a.j);
		ft_json_kv_str(&a.j, "name", table[i].name);
		ft_json_kv_str(&a.j, "summary", table[i].summary);
		ft_json_obj_end(&a.j);
	}
	ctx->cmd = "help";
	rc = cli_answer_end(ctx, &a, 0, NULL);
	ctx->cmd = cmd;
	return rc;
}

/*
 * A group's arguments when no verb comes first: options only (verb_first()
 * put a verb first when there is one). True when one is --help or -h, with
 * *@json set when --json is among them, as "fabtune archive --json --help".
 */
static bool
group_wants_help(int argc, char **argv, bool *json)
{
	bool help = false;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			help = true;
		else if (strcmp(argv[i], "--json") == 0)
			*json = true;
	}
	return help;
}

int
cli_dispatch(const struct cmd *table, size_t n, const char *group, int argc, char **argv,
	     struct cli_ctx *ctx)
{
	const struct cmd *c;
	char name[64];
	bool json = false;

	verb_first(argc, argv);
	if (argc < 2) {
		cli_list_commands(table, n, group, stderr);
		return EXIT_USAGE;
	}
	if (argv[1][0] == '-' && group_wants_help(argc, argv, &json)) {
		ctx->json = ctx->json || json;
		if (ctx->json)
			return list_commands_json(ctx, table, n, group);
		cli_list_commands(table, n, group, stdout);
		return EXIT_OK;
	}
	c = cli_find_cmd(table, n, argv[1]);
	if (!c)
		return cli_unknown_command(ctx, table, n, group, argv[1]);
	snprintf(name, sizeof(name), "%s %s", group, c->name);
	ctx->cmd = name;
	return c->run(argc - 1, argv + 1, ctx);
}

int
cmd_help(int argc, char **argv, struct cli_ctx *ctx)
{
	const struct cmd_usage usage = CMD_USAGE(
		"help", "List the commands, or show one command's help.", NULL,
		"fabtune help [COMMAND]");
	const struct cmd *c;
	char *args[3];
	int rc, n = opts_parse_args(&usage, ctx, argc, argv, -1, &rc);

	if (n < 0)
		return rc;
	if (n == 0 && ctx->json)
		return list_commands_json(ctx, cli_commands, cli_ncommands, NULL);
	if (n == 0) {
		cli_list_commands(cli_commands, cli_ncommands, NULL, stdout);
		return EXIT_OK;
	}
	c = cli_find_cmd(cli_commands, cli_ncommands, argv[1]);
	if (!c)
		return cli_unknown_command(ctx, cli_commands, cli_ncommands, NULL, argv[1]);
	args[0] = argv[1];
	args[1] = (char *)"--help";
	args[2] = NULL;
	ctx->cmd = c->name;
	return c->run(2, args, ctx);
}

int
cmd_version(int argc, char **argv, struct cli_ctx *ctx)
{
	const struct cmd_usage usage = CMD_USAGE(
		"version", "Print the version of fabtune.", NULL,
		"fabtune version");
	const char *version = ctx->stable ? "VERSION" : ft_version();
	struct cli_answer a;
	int rc, n = opts_parse_args(&usage, ctx, argc, argv, -1, &rc);

	if (n < 0)
		return rc;
	if (!ctx->json)
		printf("fabtune %s\n", version);
	cli_answer_begin(&a, NULL);
	ft_json_kv_str(&a.j, "version", version);
	return cli_answer_end(ctx, &a, 0, NULL);
}

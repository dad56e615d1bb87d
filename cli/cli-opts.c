/* SPDX-License-Identifier: MIT */
/*
 * cli/cli-opts.c - the declarative option parser (cli/cli-opts.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fabtune/fabtune.h>

#include "cli.h"
#include "cli-opts.h"

static void opts_usage_json(const struct cmd_usage *u);

static const struct opt global_opts_template[] = {
	OPT_BOOL(0, "json", NULL, "print machine-readable JSON on stdout"),
	OPT_BOOL(0, "no-color", NULL, "no colours in terminal output"),
	OPT_U64(0, "seed", NULL, "N", "seed for everything random (default 1)"),
	OPT_STRING(0, "archive", NULL, "PATH", "archive file (default $FABTUNE_ARCHIVE or "
					       "$XDG_DATA_HOME/fabtune/archive.db)"),
	OPT_COUNTUP('v', "verbose", NULL, "more detail on stderr (repeatable)"),
	OPT_END(),
};

/* The global options bound to this context's fields. */
static void
global_opts(struct cli_ctx *ctx, struct opt *out)
{
	memcpy(out, global_opts_template, sizeof(global_opts_template));
	out[0].value = &ctx->json;
	out[1].value = &ctx->no_color;
	out[2].value = &ctx->seed;
	out[3].value = &ctx->archive;
	out[4].value = &ctx->verbose;
}

static void FT_PRINTF(2, 3)
usage_error(const struct cmd_usage *u, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fabtune %s: ", u->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see 'fabtune %s --help')\n", u->name);
}

static void
opt_name(const struct opt *o, char *buf, size_t len)
{
	if (o->long_name)
		snprintf(buf, len, "--%s", o->long_name);
	else
		snprintf(buf, len, "-%c", o->short_name);
}

/* A plain number into an integer or double target: NULL, or what was expected ("a number"). */
static const char *
set_number(const struct opt *o, const char *arg)
{
	int64_t i64;
	uint64_t u64;

	switch (o->type) {
	case OPT_TYPE_U64:
		/* UINT64_MAX is kept as a target's "not given" (e.g. --channels, where 0 is
		 * refused), so no option takes it */
		if (ft_parse_u64(arg, &u64) < 0)
			return "a non-negative integer";
		if (u64 == UINT64_MAX)
			return "a non-negative integer below 2^64 - 1";
		*(uint64_t *)o->value = u64;
		return NULL;
	case OPT_TYPE_INT:
		if (ft_parse_i64(arg, &i64) < 0 || i64 < -2147483647 || i64 > 2147483647)
			return "an integer";
		*(int *)o->value = (int)i64;
		return NULL;
	default:
		return ft_parse_double(arg, o->value) < 0 ? "a number" : NULL;
	}
}

/* Store @arg into the option's target. 0 or -1 after a usage error. */
static int
set_value(const struct cmd_usage *u, const struct opt *o, const char *arg)
{
	struct ft_error err = { 0 };
	const char *expected;
	char name[64];
	uint64_t u64;
	int rc = 0;

	opt_name(o, name, sizeof(name));
	switch (o->type) {
	case OPT_TYPE_BOOL:
		*(bool *)o->value = true;
		return 0;
	case OPT_TYPE_COUNT_UP:
		(*(int *)o->value)++;
		return 0;
	case OPT_TYPE_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPT_TYPE_U64:
	case OPT_TYPE_INT:
	case OPT_TYPE_DOUBLE:
		expected = set_number(o, arg);
		if (expected)
			usage_error(u, "%s: expected %s, got '%s'", name, expected, arg);
		return expected ? -1 : 0;
	case OPT_TYPE_SIZE:
		rc = ft_parse_size(arg, &u64, &err);
		if (rc == 0)
			*(uint64_t *)o->value = u64;
		break;
	case OPT_TYPE_RATE:
		rc = ft_parse_rate(arg, o->value, &err);
		break;
	case OPT_TYPE_DURATION:
		rc = ft_parse_duration(arg, o->value, &err);
		break;
	case OPT_TYPE_END:
		break;
	}
	if (rc < 0) {
		usage_error(u, "%s: %s", name, err.msg);
		return -1;
	}
	return 0;
}

static bool
takes_arg(const struct opt *o)
{
	return o->type != OPT_TYPE_BOOL && o->type != OPT_TYPE_COUNT_UP;
}

int
opts_global_words(int argc, char **argv)
{
	const char *a = argv[0];

	for (const struct opt *o = global_opts_template; o->type != OPT_TYPE_END; o++) {
		size_t len = strlen(o->long_name);
		bool value = takes_arg(o);

		if (o->short_name && a[0] == '-' && a[1] == o->short_name && !a[2])
			return 1;
		if (strncmp(a, "--", 2) != 0 || strncmp(a + 2, o->long_name, len) != 0)
			continue;
		if (!a[2 + len])
			return !value ? 1 : argc > 1 ? 2 : 0;
		if (value && a[2 + len] == '=')
			return 1;
	}
	return 0;
}

static const struct opt *
find_long(const struct opt *tables[2], const char *name, size_t len)
{
	int t;

	for (t = 0; t < 2; t++) {
		const struct opt *o;

		for (o = tables[t]; o && o->type != OPT_TYPE_END; o++)
			if (o->long_name && strlen(o->long_name) == len &&
			    strncmp(o->long_name, name, len) == 0)
				return o;
	}
	return NULL;
}

static const struct opt *
find_short(const struct opt *tables[2], char c)
{
	int t;

	for (t = 0; t < 2; t++) {
		const struct opt *o;

		for (o = tables[t]; o && o->type != OPT_TYPE_END; o++)
			if (o->short_name == c)
				return o;
	}
	return NULL;
}

/*
 * "unknown option '--maxbyte' (did you mean '--maxbytes'?)": the hint names
 * the closest long option of the command's or the global table, if any is near.
 */
static void
unknown_option(const struct cmd_usage *u, const struct opt *tables[2], const char *a)
{
	const char *names[128], *near = NULL;
	char key[64];
	size_t n = 0, len;

	if (a[1] == '-') {
		len = strcspn(a + 2, "=");
		if (len < sizeof(key)) {
			memcpy(key, a + 2, len);
			key[len] = '\0';
			for (int t = 0; t < 2; t++)
				for (const struct opt *o = tables[t];
				     o && o->type != OPT_TYPE_END && n < FT_ARRAY_SIZE(names); o++)
					if (o->long_name)
						names[n++] = o->long_name;
			near = ft_name_closest(key, names, n);
		}
	}
	if (near)
		usage_error(u, "unknown option '%s' (did you mean '--%s'?)", a, near);
	else
		usage_error(u, "unknown option '%s'", a);
}

int
opts_parse(const struct cmd_usage *u, struct cli_ctx *ctx, int argc, char **argv)
{
	struct opt globals[FT_ARRAY_SIZE(global_opts_template)];
	const struct opt *tables[2];
	int i, npos = 0;
	bool dashdash = false;

	global_opts(ctx, globals);
	tables[0] = u->opts;
	tables[1] = globals;
	for (i = 1; i < argc; i++) {
		char *a = argv[i];
		const struct opt *o;
		const char *val = NULL;

		if (dashdash || a[0] != '-' || a[1] == '\0') {
			argv[1 + npos++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			dashdash = true;
			continue;
		}
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			bool json = ctx->json;

			for (int k = i + 1; k < argc && !json; k++)
				json = strcmp(argv[k], "--json") == 0;
			if (json)
				opts_usage_json(u);
			else
				opts_usage(u, stdout);
			return -2;
		}
		if (a[1] == '-') {
			char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);

			o = find_long(tables, a + 2, len);
			if (!o) {
				unknown_option(u, tables, a);
				return -1;
			}
			if (eq && !takes_arg(o)) {
				usage_error(u, "option '--%s' takes no value", o->long_name);
				return -1;
			}
			if (eq)
				val = eq + 1;
		} else {
			o = find_short(tables, a[1]);
			if (!o) {
				usage_error(u, "unknown option '%s'", a);
				return -1;
			}
			if (a[2] && takes_arg(o))
				val = a + 2;
			else if (a[2]) {
				usage_error(u, "unknown option '%s'", a);
				return -1;
			}
		}
		if (takes_arg(o) && !val) {
			if (i + 1 >= argc) {
				char name[64];

				opt_name(o, name, sizeof(name));
				usage_error(u, "option '%s' needs a value (%s)", name,
					    o->argh ? o->argh : "VALUE");
				return -1;
			}
			val = argv[++i];
		}
		if (o->value == &ctx->seed)
			ctx->have_seed = true;
		if (set_value(u, o, val) < 0)
			return -1;
	}
	return npos;
}

int
opts_parse_args(const struct cmd_usage *u, struct cli_ctx *ctx, int argc, char **argv, int max,
		int *exit_code)
{
	int n = opts_parse(u, ctx, argc, argv);

	*exit_code = n == -1 ? EXIT_USAGE : EXIT_OK;
	if (n >= 0 && max >= 0 && n > max) {
		cli_error(ctx, "unexpected argument '%s'", argv[1 + max]);
		*exit_code = EXIT_USAGE;
		return -1;
	}
	return n < 0 ? -1 : n;
}

static void
print_opts(const struct opt *o, FILE *out)
{
	for (; o && o->type != OPT_TYPE_END; o++) {
		char left[80];
		int n = 0;

		if (o->short_name && o->long_name)
			n = snprintf(left, sizeof(left), "-%c, --%s", o->short_name, o->long_name);
		else if (o->long_name)
			n = snprintf(left, sizeof(left), "    --%s", o->long_name);
		else
			n = snprintf(left, sizeof(left), "-%c", o->short_name);
		if (takes_arg(o) && n > 0 && (size_t)n < sizeof(left))
			snprintf(left + n, sizeof(left) - (size_t)n, " %s",
				 o->argh ? o->argh : "VALUE");
		fprintf(out, "  %-26s %s\n", left, o->help ? o->help : "");
	}
}

static void
opts_json(struct ft_json *j, const struct opt *o)
{
	ft_json_arr_begin(j);
	for (; o && o->type != OPT_TYPE_END; o++) {
		char s[2] = { o->short_name, 0 };

		ft_json_obj_begin(j);
		if (o->short_name)
			ft_json_kv_str(j, "short", s);
		if (o->long_name)
			ft_json_kv_str(j, "long", o->long_name);
		if (takes_arg(o))
			ft_json_kv_str(j, "arg", o->argh ? o->argh : "VALUE");
		ft_json_kv_str(j, "help", o->help ? o->help : "");
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
}

/* --help --json: the same as opts_usage(), as one JSON object on stdout. */
static void
opts_usage_json(const struct cmd_usage *u)
{
	const char *const *s;
	struct ft_strbuf sb;
	struct ft_json j;

	ft_strbuf_init(&sb);
	ft_json_init(&j, &sb, false);
	ft_json_obj_begin(&j);
	ft_json_kv_str(&j, "schema", "fabtune.help/1");
	ft_json_kv_str(&j, "command", u->name);
	ft_json_key(&j, "synopsis");
	ft_json_arr_begin(&j);
	for (s = u->synopsis; s && *s; s++)
		ft_json_str(&j, *s);
	ft_json_arr_end(&j);
	ft_json_kv_str(&j, "summary", u->summary ? u->summary : "");
	ft_json_key(&j, "options");
	opts_json(&j, u->opts);
	ft_json_key(&j, "global_options");
	opts_json(&j, global_opts_template);
	ft_json_obj_end(&j);
	ft_strbuf_addch(&sb, '\n');
	cli_write(&sb);
	ft_strbuf_release(&sb);
}

void
opts_usage(const struct cmd_usage *u, FILE *out)
{
	const char *const *s;

	for (s = u->synopsis; s && *s; s++)
		fprintf(out, "%s %s\n", s == u->synopsis ? "usage:" : "   or:", *s);
	if (u->summary)
		fprintf(out, "\n%s\n", u->summary);
	if (u->opts && u->opts->type != OPT_TYPE_END) {
		fprintf(out, "\noptions:\n");
		print_opts(u->opts, out);
	}
	fprintf(out, "\nglobal options:\n");
	print_opts(global_opts_template, out);
	fprintf(out, "  %-26s %s\n", "-h, --help", "show this help");
}

void
opts_size_alone(uint64_t *minb, uint64_t *maxb, uint64_t unset)
{
	if (*minb != unset && *maxb == unset)
		*maxb = *minb;
	else if (*maxb != unset && *minb == unset)
		*minb = *maxb;
}

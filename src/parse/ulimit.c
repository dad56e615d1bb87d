/* SPDX-License-Identifier: MIT */
/*
 * parse/ulimit.c - the shell's resource limits as `ulimit -a` prints them,
 * for the memlock limit RDMA registrations pin against (HOST-LIMITS):
 *   bash:  max locked memory       (kbytes, -l) 64
 *   zsh:   -l: locked-in-memory size (kbytes)   unlimited
 *   dash:  -l: locked memory (kb)               8192
 * and `ulimit -l` alone (one line: a number or "unlimited").
 *
 * Key, per host: `host.memlock`, a number in KiB (the unit every shell
 * shows it in) with the text as printed, or the str "unlimited". The other
 * limits are passed over; a memlock value that is neither is skipped with
 * its text.
 */
#include "parse_int.h"

static void
emit_memlock(struct ft__pctx *c, uint32_t line, struct ft__span v)
{
	double d;
	struct ft__span rest;

	if (ft__eq(v, "unlimited"))
		ft__emit_str(c, line, "host.memlock", v);
	else if (ft__lead_dbl(v, &d, &rest) && !ft__trim(rest).n && d >= 0)
		ft__emit(c, line, "host.memlock", true, d, "KiB", v);
	else
		ft__skipped(c, line, "memlock limit neither a number nor unlimited", v);
}

/* The last blank-separated word of @s. */
static struct ft__span
last_word(struct ft__span s)
{
	size_t i = s.n;

	while (i && !ft__is_space(s.p[i - 1]))
		i--;
	return (struct ft__span){ s.p + i, s.n - i };
}

int
ft__ulimit_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it = ft__pctx_lines(c, text, len);
	struct ft__span raw;
	size_t nlines = 0;

	while (ft__lines_next(&it, &raw) && !c->rc) {
		struct ft__span s = ft__trim(raw);

		if (!s.n)
			continue;
		nlines++;
		/* bash "(kbytes, -l)", zsh and dash "-l:" */
		if ((ft__find(s, ", -l)") || ft__find(s, "-l:") == s.p) && ft__find(s, "lock")) {
			emit_memlock(c, it.lineno, last_word(s));
		} else if (nlines == 1 && (ft__eq(s, "unlimited") || ft__find(s, " ") == NULL)) {
			/* `ulimit -l`: the value alone */
			emit_memlock(c, it.lineno, s);
		}
	}
	return c->rc;
}

FT__PARSER(ulimit, "ulimit", "ulimit -a / ulimit -l: the memlock limit (KiB or unlimited)",
           { 90, { "(kbytes, -l)" } }, { 80, { "-l: locked" } });

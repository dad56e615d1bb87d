/* SPDX-License-Identifier: MIT */
/*
 * parse/mlxconfig.c - NVIDIA `mlxconfig -d DEV query` (and `mstconfig`):
 * the firmware configuration of a ConnectX, one "NAME   VALUE" line per
 * parameter under "Configurations:" - whole or grep'd.
 *
 * Each parameter becomes `mlxconfig.<NAME>` (ROCE_CC_PRIO_MASK_P1,
 * CNP_DSCP_P1, RPG_TIME_RESET_P1, PCI_WR_ORDERING, ATS_ENABLED, ...): num is
 * the number ("255", "0xff") or the one in parentheses ("True(1)",
 * "per_mkey(0)"), str the value as printed. When the header names several
 * columns ("Default  Current  Next Boot"), the Current one is read. The
 * device is the "Device:" line's value, else the `-d` argument of a prompt.
 */
#include "parse_int.h"

/* A parameter name: upper case, digits and '_' (at least one '_' or 4 letters). */
static bool
param_name(struct ft__span k)
{
	size_t i;

	if (k.n < 3 || k.n > 60 || !(k.p[0] >= 'A' && k.p[0] <= 'Z'))
		return false;
	for (i = 0; i < k.n; i++) {
		char ch = k.p[i];

		if (!((ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_'))
			return false;
	}
	return true;
}

/* "True(1)" -> 1, "255" -> 255, "0x08" -> 8, "_256KB(1)" -> 1; false when none. */
static bool
param_number(struct ft__span v, double *out)
{
	const char *open = v.n ? memchr(v.p, '(', v.n) : NULL;
	uint64_t u;

	if (ft__u64(v, &u)) {
		*out = (double)u;
		return true;
	}
	if (open && v.p[v.n - 1] == ')' &&
	    ft__u64((struct ft__span){ open + 1, (size_t)(v.p + v.n - 1 - open - 1) }, &u)) {
		*out = (double)u;
		return true;
	}
	return false;
}

static void
device_from_command(struct ft__pctx *c, struct ft__span cmd)
{
	struct ft__span r = cmd, tok;

	if (!ft__find(cmd, "mlxconfig") && !ft__find(cmd, "mstconfig"))
		return;
	while (ft__token(&r, &tok))
		if (ft__eq(tok, "-d") && ft__token(&r, &tok) && !ft__starts(tok, "$")) {
			const char *slash = memrchr(tok.p, '/', tok.n);

			if (slash)
				tok = ft__skip(tok, (size_t)(slash - tok.p) + 1);
			ft__copy(c->device, sizeof(c->device), tok);
		}
}

static bool
mlxconfig_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	int *col = state; /* value column to read (0 = the first) */
	struct ft__span cmd, r, k, tok, vals[4];
	int n = 0;
	double d = 0;
	bool has;

	if (ft__starts(s, "---"))
		return true;
	if (ft__is_prompt(s, &cmd)) {
		device_from_command(c, cmd);
		return true;
	}
	if (ft__starts(s, "Device:")) {
		struct ft__span dev = ft__trim(ft__skip(s, 7));
		const char *slash = dev.n ? memrchr(dev.p, '/', dev.n) : NULL;

		if (slash)
			dev = ft__skip(dev, (size_t)(slash - dev.p) + 1);
		ft__copy(c->device, sizeof(c->device), dev);
		c->port = -1;
		return true;
	}
	if (ft__starts(s, "Configurations:")) {
		/* "Configurations:    Default    Current    Next Boot" */
		const char *cur = ft__find(s, "Current");
		struct ft__span h = ft__skip(s, 15);

		*col = 0;
		if (cur) {
			while (ft__token(&h, &tok) && tok.p < cur)
				(*col)++;
		}
		return true;
	}
	if (ft__starts(s, "Device #") || ft__starts(s, "Device type:") || ft__starts(s, "Name:") ||
	    ft__starts(s, "Description:") || ft__starts(s, "Device ") || ft__starts(s, "-E-") ||
	    ft__starts(s, "-W-"))
		return true;
	r = s;
	if (!ft__token(&r, &k) || !param_name(k))
		return true;
	while (n < (int)FT_ARRAY_SIZE(vals) && ft__token(&r, &tok))
		if (!ft__eq(tok, "*")) /* mlxconfig marks changed values with '*' */
			vals[n++] = tok;
	if (!n)
		return true;
	tok = vals[*col < n ? *col : n - 1];
	has = param_number(tok, &d);
	ft__emit_named(c, line, "mlxconfig.", k, has, d, NULL, tok);
	return true;
}

FT__LINES_RUN_STATE(mlxconfig, int, NULL)

FT__PARSER(mlxconfig, "mlxconfig",
           "mlxconfig -q: ConnectX firmware settings (RoCE CC, CNP, PCI ordering, ATS)",
           { 90, { "Configurations:", "Next Boot|Current|Default" } },
           { 65,
             { "ROCE_CC_PRIO_MASK_P|RPG_TIME_RESET_P|CNP_DSCP_P|"
               "PCI_WR_ORDERING|ATS_ENABLED" } });

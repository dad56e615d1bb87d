/* SPDX-License-Identifier: MIT */
/*
 * parse/mlxlink.c - NVIDIA `mlxlink` (MFT) port reports: the operational
 * info (state, speed, width, FEC), the troubleshooting recommendation, the
 * physical counters and BER (`-c` / `--show_counters`), and the module
 * information (`-m`: temperature, voltage) - whole or grep'd.
 *
 * Lines are "Name      : value". BERs are printed as "1E-8" (mlxlink prints
 * 15E-255 for "no error seen"). The device comes from a prompt naming
 * `mlxlink -d DEV` or from a banner line "==== DEV ... ====" that scripts
 * print between devices. Keys: mlxlink.state, mlxlink.phys_state,
 * mlxlink.speed, mlxlink.width, mlxlink.fec, mlxlink.recommendation (str),
 * mlxlink.raw_ber, mlxlink.effective_ber, mlxlink.symbol_ber (num),
 * mlxlink.raw_errors_lane (str: the per-lane list, num: the largest lane's
 * share of the total), mlxlink.effective_errors, mlxlink.symbol_errors,
 * mlxlink.link_down, mlxlink.link_error_recovery (count),
 * mlxlink.module_temp (degrees C; str keeps the printed range),
 * mlxlink.fw_version.
 */
#include "parse_int.h"

static const struct ft__field fields[] = {
	{ "State", "mlxlink.state", FT__F_STR, NULL },
	{ "Physical state", "mlxlink.phys_state", FT__F_STR, NULL },
	{ "Speed", "mlxlink.speed", FT__F_STR, NULL },
	{ "Width", "mlxlink.width", FT__F_STR, NULL },
	{ "FEC", "mlxlink.fec", FT__F_STR, NULL },
	{ "Recommendation", "mlxlink.recommendation", FT__F_STR, NULL },
	{ "Symbol Errors", "mlxlink.symbol_errors", FT__F_NUM, "count" },
	{ "Effective Physical Errors", "mlxlink.effective_errors", FT__F_NUM, "count" },
	{ "Link Down Counter", "mlxlink.link_down", FT__F_NUM, "count" },
	{ "Link Error Recovery Counter", "mlxlink.link_error_recovery", FT__F_NUM, "count" },
	{ "Firmware Version", "mlxlink.fw_version", FT__F_STR, NULL },
	{ "Loopback Mode", NULL, FT__F_IGN, NULL },
	{ "Auto Negotiation", NULL, FT__F_IGN, NULL },
	{ "Enabled Link Speed", NULL, FT__F_IGN, NULL },
	{ "Supported Cable Speed", NULL, FT__F_IGN, NULL },
	{ "Status Opcode", NULL, FT__F_IGN, NULL },
	{ "Group Opcode", NULL, FT__F_IGN, NULL },
	{ "amBER Version", NULL, FT__F_IGN, NULL },
	{ "MFT Version", NULL, FT__F_IGN, NULL },
	{ "Time Since Last Clear [Min]", NULL, FT__F_IGN, NULL },
};

/* "1E-8", "15E-255", "2.5E-12" */
static bool
ber_value(struct ft__span v, double *out)
{
	struct ft__span tok = ft__trim(v);

	return ft__dbl(tok, out) && *out >= 0;
}

/* "3183333,242074": the list, and the largest lane's share of the total errors. */
static void
lanes(struct ft__pctx *c, uint32_t line, struct ft__span v)
{
	struct ft__span rest = ft__trim(v);
	double total = 0, max = 0;
	size_t n = 0;

	while (rest.n) {
		const char *comma = memchr(rest.p, ',', rest.n);
		size_t len = comma ? (size_t)(comma - rest.p) : rest.n;
		uint64_t u;

		if (!ft__u64(ft__trim((struct ft__span){ rest.p, len }), &u))
			return;
		total += (double)u;
		if ((double)u > max)
			max = (double)u;
		n++;
		rest = comma ? ft__skip(rest, len + 1) : FT__NOSTR;
		if (!rest.p)
			break;
	}
	if (n)
		ft__emit(c, line, "mlxlink.raw_errors_lane", true, total > 0 ? max / total : 0,
		         NULL, ft__trim(v));
}

/* "==== mlx5_0 FEC Counters ====" or "========== mt4123_pciconf4 ==========" */
static bool
banner(struct ft__pctx *c, struct ft__span s)
{
	struct ft__span r = s, tok;

	if (!ft__starts(s, "===") || !ft__ends(s, "==="))
		return false;
	while (ft__token(&r, &tok))
		if (tok.p[0] != '=') {
			ft__copy(c->device, sizeof(c->device), tok);
			c->port = -1;
			return true;
		}
	return true;
}

/* "mlxlink -d mlx5_0 -p 1 -c" or "-d /dev/mst/mt4123_pciconf0": the device after -d. */
static void
device_from_command(struct ft__pctx *c, struct ft__span cmd)
{
	struct ft__span r = cmd, tok;

	if (!ft__find(cmd, "mlxlink"))
		return;
	while (ft__token(&r, &tok))
		if ((ft__eq(tok, "-d") || ft__eq(tok, "--device")) && ft__token(&r, &tok)) {
			const char *slash = memrchr(tok.p, '/', tok.n);

			if (slash)
				tok = ft__skip(tok, (size_t)(slash - tok.p) + 1);
			if (!ft__starts(tok, "$"))
				ft__copy(c->device, sizeof(c->device), tok);
		}
}

static bool
mlxlink_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	struct ft__span cmd, k, v;
	double d;

	(void)state;
	if (ft__starts(s, "---") || banner(c, s))
		return true;
	if (ft__is_prompt(s, &cmd)) {
		device_from_command(c, cmd);
		return true;
	}
	if (ft__starts(s, "-E-") || ft__starts(s, "-W-")) {
		/* "-E- ... option is not supported for HCA": the tool's own note */
		if (!ft__find(s, "not supported"))
			ft__emit_str(c, line, "tool.error", s);
		return true;
	}
	if (!ft__split(s, ':', &k, &v)) {
		/* section titles ("Operational Info", "Physical Counters and BER Info") */
		return true;
	}
	k = ft__trim(k);
	v = ft__trim(v);
	if (ft__eq(k, "Raw Physical BER") || ft__eq(k, "Effective Physical BER") ||
	    ft__eq(k, "Symbol BER")) {
		if (ber_value(v, &d))
			ft__emit(c, line,
			         k.p[0] == 'R' ? "mlxlink.raw_ber" :
			         k.p[0] == 'E' ? "mlxlink.effective_ber" :
			                         "mlxlink.symbol_ber",
			         true, d, NULL, v);
		else
			ft__skipped(c, line, "BER is not a number", s);
		return true;
	}
	if (ft__eq(k, "Raw Physical Errors Per Lane")) {
		lanes(c, line, v);
		return true;
	}
	if (ft__starts(k, "Temperature") && ft__lead_dbl(v, &d, NULL)) {
		ft__emit(c, line, "mlxlink.module_temp", true, d, "C", v);
		return true;
	}
	/* other mlxlink fields (eye, serdes, module identifiers) are not judged */
	ft__field_emit(c, line, fields, FT_ARRAY_SIZE(fields), k, v);
	return true;
}

FT__LINES_RUN(mlxlink, NULL)

FT__PARSER(mlxlink, "mlxlink",
           "mlxlink: port state, FEC, recommendation, pre/post-FEC BER, link errors, module",
           { 90, { "Raw Physical BER|Effective Physical BER" } },
           { 90, { "Operational Info", "Troubleshooting Info|Physical state" } },
           { 70, { "Recommendation", "Physical state", "FEC" } });

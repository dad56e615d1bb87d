/* SPDX-License-Identifier: MIT */
/*
 * parse/lspci.c - `lspci -vv` (and -vvv, -vvvs BDF): device blocks that
 * start at column 0 with "BDF class: description", with the PCIe link
 * capability and status lines
 *   LnkCap: Port #0, Speed 16GT/s, Width x16, ASPM ...
 *   LnkSta: Speed 8GT/s (downgraded), Width x8 (downgraded)
 *
 * Keys for device = BDF: `pcie.device` (str "class: description"),
 * `pcie.link.speed_max` / `pcie.link.width_max` from LnkCap,
 * `pcie.link.speed_cur` / `pcie.link.width_cur` from LnkSta (GT/s, lanes;
 * HOST-PCIE), `numa.node`, and `host.acs` (str, the flags as lspci prints
 * them: "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl-
 * DirectTrans-") from the ACSCtl line of the Access Control Services
 * capability, which bridges and switch ports carry (HOST-ACS: SrcValid+ or
 * ReqRedir+ there sends GPU-NIC peer traffic up to the root complex). Other
 * lines of a block are passed over. LnkCap, LnkSta and ACSCtl lines pasted
 * without their device's line (`lspci -vvv | grep ACSCtl`) are read too, for
 * a device without a name; other lines before the first device are not
 * lspci's.
 */
#include "parse_int.h"

static void
link_fields(struct ft__pctx *c, uint32_t line, struct ft__span v, const char *speed_key,
            const char *width_key)
{
	const char *sp = ft__find(v, "Speed "), *wd = ft__find(v, "Width x");
	double d;
	struct ft__span rest;

	if (sp && ft__lead_dbl(ft__skip(v, (size_t)(sp - v.p) + 6), &d, &rest))
		ft__emit_num(c, line, speed_key, d, "GT/s");
	if (wd && ft__lead_dbl(ft__skip(v, (size_t)(wd - v.p) + 7), &d, &rest))
		ft__emit_num(c, line, width_key, d, "lanes");
	if (!sp && !wd)
		ft__skipped(c, line, "PCIe link line without speed or width", v);
}

static bool
is_bdf(struct ft__span tok)
{
	/* "3b:00.0" or "0000:3b:00.0" */
	if (tok.n == 7 && tok.p[2] == ':' && tok.p[5] == '.')
		return true;
	return tok.n == 12 && tok.p[4] == ':' && tok.p[7] == ':' && tok.p[10] == '.';
}

int
ft__lspci_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it = ft__pctx_lines(c, text, len);
	struct ft__span raw;
	bool in_dev = false;

	while (ft__lines_next(&it, &raw) && !c->rc) {
		struct ft__span s = ft__trim(raw), rest, tok, k, v;
		uint64_t u;

		if (!s.n)
			continue;
		rest = raw;
		if (raw.n && !ft__is_space(raw.p[0]) && ft__token(&rest, &tok) && is_bdf(tok)) {
			ft__copy(c->device, sizeof(c->device), tok);
			c->port = -1;
			in_dev = true;
			ft__emit_str(c, it.lineno, "pcie.device", ft__trim(rest));
			continue;
		}
		/* a cut paste may hold link or ACSCtl lines without their device line (no BDF) */
		if (!ft__split(s, ':', &k, &v) || (!in_dev && !ft__eq(k, "LnkCap") &&
		                                   !ft__eq(k, "LnkSta") && !ft__eq(k, "ACSCtl"))) {
			if (!in_dev)
				ft__unread(c, it.lineno, "not lspci output", s);
			continue;
		}
		if (ft__eq(k, "LnkCap"))
			link_fields(c, it.lineno, v, "pcie.link.speed_max", "pcie.link.width_max");
		else if (ft__eq(k, "LnkSta"))
			link_fields(c, it.lineno, v, "pcie.link.speed_cur", "pcie.link.width_cur");
		else if (ft__eq(k, "ACSCtl"))
			ft__emit_str(c, it.lineno, "host.acs", ft__trim(v));
		else if (ft__eq(k, "NUMA node") && ft__u64(v, &u))
			ft__emit_num(c, it.lineno, "numa.node", (double)u, NULL);
	}
	return c->rc;
}

FT__PARSER(lspci, "lspci", "lspci -vv: PCIe link capability vs status (speed, width), NUMA node",
           { 90, { "LnkCap:|LnkSta:|ACSCtl:" } });

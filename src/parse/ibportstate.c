/* SPDX-License-Identifier: MIT */
/*
 * parse/ibportstate.c - `ibportstate LID PORT` (and `smpquery portinfo`):
 * "# Port info: Lid n port p" then "Field:....value" lines.
 *
 * Width and speed fields are kept as printed ("1X or 4X", "2.5 Gbps"), with
 * the active speed's lane rate as the number. On a Down/Disabled port these
 * fields show defaults, not a degraded link: rules must check the state.
 * The headings ibportstate prints before a block ("PortInfo:", "Peer
 * PortInfo:" for the far end of a switch port, "After PortInfo set:" after
 * an enable or a reset) carry nothing: the "# Port info" line names the port.
 */
#include "dotted.h"

static bool
ibportstate_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	struct ft__span name, val;

	(void)state;
	if (ft__ends(s, "PortInfo:") || ft__eq(s, "After PortInfo set:"))
		return true;
	if (ft__lid_header(c, s))
		return true;
	if (ft__dotted(s, &name, &val)) {
		if (!ft__ib_field_emit(c, line, FT__IB_PORTINFO, true, name, val)) {
			uint64_t u;

			if (ft__u64(val, &u))
				ft__emit_named(c, line, "ib.portinfo.", name, true, (double)u, NULL,
				               FT__NOSTR);
			else
				ft__emit_named(c, line, "ib.portinfo.", name, false, 0, NULL, val);
		}
		return true;
	}
	return false;
}

FT__LINES_RUN(ibportstate, "not ibportstate output")

FT__PARSER(ibportstate, "ibportstate",
           "ibportstate / smpquery portinfo: link state, width and speed",
           { 90, { "# Port info: Lid|LinkWidthActive:..." } });

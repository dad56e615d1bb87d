/* SPDX-License-Identifier: MIT */
/*
 * parse/ibportstate.c - `ibportstate LID PORT` (and `smpquery portinfo`):
 * "# Port info: Lid n port p" then "Field:....value" lines.
 *
 * Width and speed fields are kept as printed ("1X or 4X", "2.5 Gbps"), with
 * the active speed's lane rate as the number. On a Down/Disabled port these
 * fields show defaults, not a degraded link: rules must check the state.
 */
#include "dotted.h"

static const struct ft__field fields[] = {
	{ "LinkState", "ib.port.state", FT__F_STR, NULL },
	{ "PhysLinkState", "ib.port.phys_state", FT__F_STR, NULL },
	{ "LinkWidthSupported", "ib.port.width_supported", FT__F_STR, NULL },
	{ "LinkWidthEnabled", "ib.port.width_enabled", FT__F_STR, NULL },
	{ "LinkWidthActive", "ib.port.width_active", FT__F_STR, NULL },
	{ "LinkSpeedSupported", "ib.port.speed_supported", FT__F_STR, NULL },
	{ "LinkSpeedEnabled", "ib.port.speed_enabled", FT__F_STR, NULL },
	{ "LinkSpeedActive", "ib.port.speed_active", FT__F_LEAD, "Gbps" },
	{ "LinkSpeedExtSupported", "ib.port.speed_ext_supported", FT__F_STR, NULL },
	{ "LinkSpeedExtEnabled", "ib.port.speed_ext_enabled", FT__F_STR, NULL },
	{ "LinkSpeedExtActive", "ib.port.speed_ext_active", FT__F_LEAD, "Gbps" },
	{ "Lid", "ib.port.lid", FT__F_NUM, NULL },
	{ "SMLid", "ib.port.sm_lid", FT__F_NUM, NULL },
	{ "NeighborMTU", "ib.port.mtu_neighbor", FT__F_LEAD, "bytes" },
	{ "MtuCap", "ib.port.mtu_max", FT__F_LEAD, "bytes" },
};

static bool
ibportstate_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	struct ft__span name, val;

	(void)state;
	if (ft__eq(s, "PortInfo:"))
		return true;
	if (ft__lid_header(c, s))
		return true;
	if (ft__dotted(s, &name, &val)) {
		if (!ft__field_emit(c, line, fields, FT_ARRAY_SIZE(fields), name, val)) {
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

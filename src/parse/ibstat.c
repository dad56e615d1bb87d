/* SPDX-License-Identifier: MIT */
/*
 * parse/ibstat.c - `ibstat`: one "CA 'name'" block per HCA with device fields
 * and one "Port N:" block per port (state, physical state, rate, LIDs, link layer).
 *
 * Rate is the port's data rate in Gb/s as ibstat prints it (IB-SPEED). A line
 * "ibpanic: ..." (the tool failing half-way) becomes `tool.error`, and so
 * does an "ibwarn: ..." that reports a failure; what precedes it is kept. The
 * other "ibwarn:" lines are libibumad's debug trace ("umad_init: umad_init")
 * and are passed over.
 */
#include "parse_int.h"

static bool
ibstat_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	bool *in_ca = state;
	struct ft__span k, v;
	uint64_t u;

	if (s.n >= 5 && ft__starts(s, "CA '") && ft__ends(s, "'")) {
		ft__copy(c->device, sizeof(c->device), (struct ft__span){ s.p + 4, s.n - 5 });
		c->port = -1;
		*in_ca = true;
		return true;
	}
	if (ft__ibwarn(c, line, s) || ft__tool_error(c, line, s, "ibpanic:|ibstat: "))
		return true;
	if (ft__starts(s, "Port ") && ft__ends(s, ":") &&
	    ft__u64((struct ft__span){ s.p + 5, s.n - 6 }, &u) && u < 256) {
		c->port = (int)u;
		return true;
	}
	if (*in_ca && ft__split(s, ':', &k, &v)) {
		if (!ft__ib_field_emit(c, line, FT__IB_IBSTAT, c->port >= 0, k, v))
			ft__skipped(c, line, "unknown ibstat field", s);
		return true;
	}
	return false;
}

FT__LINES_RUN_STATE(ibstat, bool, "not ibstat output")

FT__PARSER(ibstat, "ibstat", "ibstat: HCA and port state, rate, LIDs, firmware",
           { 90, { "CA '", "CA type:" } }, { 70, { "CA '", "Physical state:" } });

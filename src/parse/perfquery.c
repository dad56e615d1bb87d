/* SPDX-License-Identifier: MIT */
/*
 * parse/perfquery.c - `perfquery` (PortCounters), `perfquery -x` (extended,
 * 64-bit), `perfquery -E` (PortRcvErrorDetails) and `perfquery --vlxmitcounters`
 * (PortVLXmitWaitCounters: PortVLXmitWait0 to 15, 16-bit, one per VL) output, one
 * or several after another (a terminal capture of both commands).
 *
 * Each "Name:....value" becomes `ib.counter.<Name>` in the tool's spelling
 * (IB-COUNTERS). PortXmitData/PortRcvData count 4-byte words (unit "4B").
 * The entity is "LID n" and the port from the "# ... Lid n port p" header; a
 * header wrapped by a mail client (its "(CapMask..." tail on the next line)
 * is joined back.
 */
#include "dotted.h"

static bool
perfquery_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	bool *open_paren = state;
	struct ft__span name, val;
	uint64_t u;

	if (ft__lid_header(c, s)) {
		*open_paren = memchr(s.p, '(', s.n) && !memchr(s.p, ')', s.n);
		return true;
	}
	if (*open_paren && ft__ends(s, ")") && !memchr(s.p, '.', s.n)) {
		*open_paren = false; /* the wrapped tail of the header */
		return true;
	}
	*open_paren = false;
	if (ft__dotted(s, &name, &val)) {
		if (ft__eq(name, "PortSelect") || ft__eq(name, "CounterSelect") ||
		    ft__eq(name, "CounterSelect2"))
			return true;
		if (ft__u64(val, &u)) {
			bool data = ft__eq(name, "PortXmitData") || ft__eq(name, "PortRcvData");

			ft__emit_named(c, line, "ib.counter.", name, true, (double)u,
			               data ? "4B" : "count", FT__NOSTR);
		} else {
			ft__skipped(c, line, "counter value is not a number", s);
		}
		return true;
	}
	return false;
}

FT__LINES_RUN_STATE(perfquery, bool, "not perfquery output")

FT__PARSER(
        perfquery, "perfquery",
        "perfquery [-x|-E|--vlxmitcounters]: IB port counters (errors, discards, XmitWait, data)",
        { 95, { "counters: Lid ", ":......" } },
        { 80, { "PortXmitData:...|SymbolErrorCounter:..." } });

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
 * an enable or a reset) carry nothing: the "# Port info" line names the port
 * ("LID 1 DR 0,6" for the peer a directed route reaches, ft__lid_header()),
 * or else the prompt's "ibportstate LID PORT". A failed query
 * ("ibportstate: iberror: failed: ...") is a `tool.error` of that port.
 */
#include "dotted.h"

/*
 * "ibportstate [options] LID PORT [op]" (or "smpquery pi LID PORT") at a
 * prompt: the port the next lines
 * are about, which names it where the query failed and no "# Port info"
 * header follows ("ibportstate: iberror: failed: smp query portinfo failed").
 * The values of the options that take one (-C mlx5_0, -P 1, -t 1000, ...)
 * are skipped. A directed route (-D) or a GUID (-G) names no LID: the port
 * is left unnamed, not the one an earlier query named.
 */
static void
prompt_port(struct ft__pctx *c, struct ft__span cmd)
{
	struct ft__span tok, args[2];
	size_t n = 0;
	uint64_t lid, port;

	if (!ft__token(&cmd, &tok))
		return;
	/* "smpquery [options] portinfo|pi LID PORT" prints the same block */
	if (ft__ends(tok, "smpquery") &&
	    !(ft__token(&cmd, &tok) && (ft__eq(tok, "pi") || ft__eq(tok, "portinfo"))))
		return;
	if (!ft__ends(tok, "ibportstate") && !ft__eq(tok, "pi") && !ft__eq(tok, "portinfo"))
		return;
	/* a query of its own: what an earlier header or prompt named is not its port */
	c->device[0] = '\0';
	c->port = -1;
	while (ft__token(&cmd, &tok)) {
		if (tok.p[0] == '-') {
			if (ft__eq(tok, "-D") || ft__eq(tok, "-G") || ft__eq(tok, "--Direct") ||
			    ft__eq(tok, "--Guid"))
				return;
			/* ibdiag_common.c's options with a value: "-C mlx5_0 -P 1 3 1" */
			if (ft__starts_any(tok, "-C|-P|-t|-s|-y|-Y|-z") && tok.n == 2)
				(void)ft__token(&cmd, &tok);
			else if (ft__starts_any(tok, "--Ca|--Port|--timeout|--sm_port|--m_key|"
			                             "--pkey-idx|--config") &&
			         !memchr(tok.p, '=', tok.n))
				(void)ft__token(&cmd, &tok);
			continue;
		}
		if (n < 2)
			args[n++] = tok;
	}
	if (n < 2 || !ft__u64(args[0], &lid) || !ft__u64(args[1], &port) || port > 255)
		return;
	snprintf(c->device, sizeof(c->device), "LID %" PRIu64, lid);
	c->port = (int)port;
}

static bool
ibportstate_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	struct ft__span name, val, cmd;

	(void)state;
	if (ft__is_prompt(s, &cmd) && !ft__find(s, "Port info: ")) {
		prompt_port(c, cmd);
		return true;
	}
	if (ft__ends(s, "PortInfo:") || ft__eq(s, "After PortInfo set:"))
		return true;
	if (ft__lid_header(c, s))
		return true;
	if (ft__starts(s, "# ") && ft__find(s, "Port info: ")) {
		ft__skipped(c, line, "port info header names no port", s);
		return true;
	}
	/* "ibportstate: iberror: failed: smp query portinfo failed" (libibmad's IBEXIT) */
	if (ft__find(s, "iberror:")) {
		ft__emit_str(c, line, "tool.error", s);
		return true;
	}
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

/* SPDX-License-Identifier: MIT */
/*
 * parse/ibstatus.c - `ibstatus`: one "Infiniband device 'dev' port N status:"
 * block per port. States are printed as "4: ACTIVE"; they are reported in
 * ibstat's spelling (Active, LinkUp) so rules match one vocabulary. The rate
 * line "100 Gb/sec (4X EDR)" gives the rate, the width and the speed name.
 */
#include "parse_int.h"

static void
emit_rate(struct ft__pctx *c, uint32_t line, struct ft__span v)
{
	double gbps;
	struct ft__span rest, tok;
	const char *open;

	if (!ft__lead_dbl(v, &gbps, &rest)) {
		ft__emit_str(c, line, "ib.port.rate", v);
		return;
	}
	ft__emit(c, line, "ib.port.rate", true, gbps, "Gbps", v);
	open = rest.n ? memchr(rest.p, '(', rest.n) : NULL;
	if (!open)
		return;
	rest = ft__skip(rest, (size_t)(open - rest.p) + 1);
	if (rest.n && rest.p[rest.n - 1] == ')')
		rest.n--;
	if (ft__token(&rest, &tok))
		ft__emit_str(c, line, "ib.port.width", tok);
	if (ft__token(&rest, &tok))
		ft__emit_str(c, line, "ib.port.speed_active", tok);
}

static bool
ibstatus_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	bool *in_port = state;
	struct ft__span k, v, tok, rest;
	uint64_t u;

	if (ft__starts(s, "Infiniband device '")) {
		const char *q;

		rest = ft__skip(s, 19);
		q = memchr(rest.p, '\'', rest.n);
		if (q && ft__find(s, " port ") && ft__ends(s, "status:")) {
			ft__copy(c->device, sizeof(c->device),
			         (struct ft__span){ rest.p, (size_t)(q - rest.p) });
			rest = ft__skip(rest, (size_t)(q - rest.p) + 1);
			c->port = -1;
			if (ft__token(&rest, &tok) && ft__eq(tok, "port") &&
			    ft__token(&rest, &tok) && ft__u64(tok, &u) && u < 256)
				c->port = (int)u;
			*in_port = true;
			return true;
		}
	}
	if (*in_port && ft__split(s, ':', &k, &v)) {
		if (ft__eq(k, "default gid"))
			ft__emit_str(c, line, "ib.port.gid", v);
		else if (ft__eq(k, "base lid") && ft__u64(v, &u))
			ft__emit_num(c, line, "ib.port.lid", (double)u, NULL);
		else if (ft__eq(k, "sm lid") && ft__u64(v, &u))
			ft__emit_num(c, line, "ib.port.sm_lid", (double)u, NULL);
		else if (ft__eq(k, "state"))
			ft__emit_ib_state(c, line, "ib.port.state", v);
		else if (ft__eq(k, "phys state"))
			ft__emit_ib_state(c, line, "ib.port.phys_state", v);
		else if (ft__eq(k, "rate"))
			emit_rate(c, line, v);
		else if (ft__eq(k, "link_layer"))
			ft__emit_str(c, line, "ib.port.link_layer", v);
		else
			ft__skipped(c, line, "unknown ibstatus field", s);
		return true;
	}
	return false;
}

FT__LINES_RUN_STATE(ibstatus, bool, "not ibstatus output")

FT__PARSER(ibstatus, "ibstatus", "ibstatus: per-port state, rate with width and speed, default GID",
           { 90, { "Infiniband device '", "status:" } });

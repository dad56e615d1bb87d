/* SPDX-License-Identifier: MIT */
/*
 * parse/ibstatus.c - `ibstatus`: one "Infiniband device 'dev' port N status:"
 * block per port. States are printed as "4: ACTIVE"; they are reported in
 * ibstat's spelling (Active, LinkUp) so rules match one vocabulary. The rate
 * line "100 Gb/sec (4X EDR)" gives the rate, the width and the speed name.
 */
#include "parse_int.h"

/* "4: ACTIVE" -> "Active", "5: LinkUp" -> "LinkUp" */
static void
emit_state(struct ft__pctx *c, uint32_t line, const char *key, struct ft__span v)
{
	static const char *const names[] = { "Active",
		                             "Down",
		                             "Init",
		                             "Armed",
		                             "LinkUp",
		                             "Polling",
		                             "Disabled",
		                             "Sleep",
		                             "PortConfigurationTraining",
		                             "LinkErrorRecovery",
		                             "PhyTest" };
	const char *colon = v.n ? memchr(v.p, ':', v.n) : NULL;
	struct ft__span name = colon ? ft__trim(ft__skip(v, (size_t)(colon - v.p) + 1)) : v;

	for (size_t i = 0; i < FT_ARRAY_SIZE(names); i++) {
		if (name.n == strlen(names[i]) && strncasecmp(name.p, names[i], name.n) == 0) {
			ft__emit_cstr(c, line, key, names[i]);
			return;
		}
	}
	ft__emit_str(c, line, key, name);
}

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

int
ft__ibstatus_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it = ft__pctx_lines(c, text, len);
	struct ft__span s;
	bool in_port = false;

	while (ft__next_line(c, &it, &s)) {
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
				in_port = true;
				continue;
			}
		}
		if (in_port && ft__split(s, ':', &k, &v)) {
			if (ft__eq(k, "default gid"))
				ft__emit_str(c, it.lineno, "ib.port.gid", v);
			else if (ft__eq(k, "base lid") && ft__u64(v, &u))
				ft__emit_num(c, it.lineno, "ib.port.lid", (double)u, NULL);
			else if (ft__eq(k, "sm lid") && ft__u64(v, &u))
				ft__emit_num(c, it.lineno, "ib.port.sm_lid", (double)u, NULL);
			else if (ft__eq(k, "state"))
				emit_state(c, it.lineno, "ib.port.state", v);
			else if (ft__eq(k, "phys state"))
				emit_state(c, it.lineno, "ib.port.phys_state", v);
			else if (ft__eq(k, "rate"))
				emit_rate(c, it.lineno, v);
			else if (ft__eq(k, "link_layer"))
				ft__emit_str(c, it.lineno, "ib.port.link_layer", v);
			else
				ft__skipped(c, it.lineno, "unknown ibstatus field", s);
			continue;
		}
		ft__unread(c, it.lineno, "not ibstatus output", s);
	}
	return c->rc;
}

FT__PARSER(ibstatus, "ibstatus", "ibstatus: per-port state, rate with width and speed, default GID",
           { 90, { "Infiniband device '", "status:" } });

/* SPDX-License-Identifier: MIT */
/*
 * parse/ibv_devinfo.c - `ibv_devinfo` and `ibv_devinfo -v`: "hca_id: dev"
 * blocks, device fields, then "port: N" blocks.
 *
 * Port states "PORT_ACTIVE (4)" and physical states "LINK_UP (5)" are reported
 * in ibstat's spelling (Active, LinkUp). MTUs "4096 (5)" become bytes. Fields
 * that only -v prints and that have no dedicated key keep the tool's name:
 * `ib.dev.<field>` and `ib.port.<field>`. "GID[ 3]: ..." becomes `ib.port.gid`
 * with the index as the number. A paste that starts at a "port: N" line (its
 * hca_id cut away) is read for a device without a name. Under a flags field
 * ("device_cap_flags: 0xe5721c36", "port_cap_flags:") -v lists the names of
 * the bits set, one a line ("BAD_PKEY_CNTR", "Unknown flags: 0xe5620000"):
 * the number kept says as much, and the names are read as part of it.
 */
#include "parse_int.h"

static bool
is_ident(struct ft__span k)
{
	if (!k.n || k.n > 40)
		return false;
	for (size_t i = 0; i < k.n; i++)
		if (!(isalnum((unsigned char)k.p[i]) || k.p[i] == '_'))
			return false;
	return true;
}

struct devstate {
	bool in_hca;
	bool in_flags; /* the lines after a "*_flags:" field: the names of its bits */
};

/* "BAD_PKEY_CNTR", "EXT_SEND NOP", "Unknown flags: 0x200000000000": a bit of a flags field */
static bool
is_flag_name(struct ft__span s)
{
	if (ft__starts(s, "Unknown flags:"))
		return true;
	for (size_t i = 0; i < s.n; i++)
		if (!(isupper((unsigned char)s.p[i]) || ft__is_digit(s.p[i]) || s.p[i] == '_' ||
		      s.p[i] == ' '))
			return false;
	return s.n > 0;
}

static bool
ibv_devinfo_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	struct devstate *st = state;
	bool *in_hca = &st->in_hca;
	struct ft__span k, v;
	uint64_t u;
	double d;

	if (st->in_flags && is_flag_name(s))
		return true;
	st->in_flags = false;

	if (ft__starts(s, "hca_id:")) {
		ft__copy(c->device, sizeof(c->device), ft__trim(ft__skip(s, 7)));
		c->port = -1;
		*in_hca = true;
		return true;
	}
	/* a paste cut above its first port: the port's HCA is not named */
	if (!*in_hca && ft__split(s, ':', &k, &v) && ft__eq(k, "port") && ft__u64(v, &u) && u < 256) {
		c->device[0] = '\0';
		*in_hca = true;
	}
	if (!*in_hca)
		return ft__tool_error(c, line, s, "No IB devices");
	while (s.n > 2 && s.p[0] == '*' && s.p[1] == '*')
		s = ft__skip(s, 2); /* Markdown bold around a line of the paste */
	if (ft__eq(s, "Device ports:"))
		return true;
	if (ft__starts(s, "GID[")) {
		const char *close = memchr(s.p, ']', s.n);

		if (close && ft__u64((struct ft__span){ s.p + 4, (size_t)(close - s.p) - 4 }, &u)) {
			struct ft__span g = ft__skip(s, (size_t)(close - s.p) + 1);

			g = ft__trim(g);
			if (g.n && g.p[0] == ':')
				g = ft__trim(ft__skip(g, 1));
			ft__emit(c, line, "ib.port.gid", true, (double)u, NULL, g);
			return true;
		}
	}
	if (!ft__split(s, ':', &k, &v)) {
		ft__skipped(c, line, "unknown ibv_devinfo line", s);
		return true;
	}
	st->in_flags = ft__ends(k, "_flags");
	if (ft__eq(k, "port") && ft__u64(v, &u) && u < 256) {
		c->port = (int)u;
		return true;
	}
	if (c->port >= 0) {
		if (ft__eq(k, "state")) {
			ft__emit_ib_state(c, line, "ib.port.state", v);
			return true;
		}
		if (ft__eq(k, "phys_state")) {
			ft__emit_ib_state(c, line, "ib.port.phys_state", v);
			return true;
		}
	}
	if (ft__ib_field_emit(c, line, FT__IB_VERBS, c->port >= 0, k, v))
		return true;
	if (!is_ident(k)) {
		ft__skipped(c, line, "unknown ibv_devinfo line", s);
		return true;
	}
	/* -v fields: keep the tool's name */
	if (ft__u64(v, &u))
		ft__emit_named(c, line, c->port < 0 ? "ib.dev." : "ib.port.", k, true, (double)u,
		               NULL, FT__NOSTR);
	else if (ft__lead_dbl(v, &d, NULL) && v.n && ft__is_digit(v.p[0]))
		ft__emit_named(c, line, c->port < 0 ? "ib.dev." : "ib.port.", k, true, d, NULL, v);
	else
		ft__emit_named(c, line, c->port < 0 ? "ib.dev." : "ib.port.", k, false, 0, NULL, v);
	return true;
}

FT__LINES_RUN_STATE(ibv_devinfo, struct devstate, "not ibv_devinfo output")

FT__PARSER(ibv_devinfo, "ibv_devinfo", "ibv_devinfo [-v]: HCA fields, port state, MTU, LIDs, GIDs",
           { 95, { "hca_id:", "phys_port_cnt|fw_ver" } }, { 60, { "hca_id:" } },
           { 60, { "port:", "PORT_ACTIVE|PORT_DOWN|PORT_INIT|PORT_ARMED", "active_mtu:", "phys_state:" } });

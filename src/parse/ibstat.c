/* SPDX-License-Identifier: MIT */
/*
 * parse/ibstat.c - `ibstat`: one "CA 'name'" block per HCA with device fields
 * and one "Port N:" block per port (state, physical state, rate, LIDs, link layer).
 *
 * Rate is the port's data rate in Gb/s as ibstat prints it (IB-SPEED). A line
 * "ibpanic: ..." or "ibwarn: ..." (the tool failing half-way) becomes
 * `tool.error`; what precedes it is kept.
 */
#include "parse_int.h"

static const struct ft__field dev_fields[] = {
	{ "CA type", "ib.dev.ca_type", FT__F_STR, NULL },
	{ "Number of ports", "ib.dev.nports", FT__F_NUM, "count" },
	{ "Firmware version", "ib.dev.fw_ver", FT__F_STR, NULL },
	{ "Hardware version", "ib.dev.hw_ver", FT__F_STR, NULL },
	{ "Node GUID", "ib.dev.node_guid", FT__F_STR, NULL },
	{ "System image GUID", "ib.dev.sys_guid", FT__F_STR, NULL },
};

static const struct ft__field port_fields[] = {
	{ "State", "ib.port.state", FT__F_STR, NULL },
	{ "Physical state", "ib.port.phys_state", FT__F_STR, NULL },
	{ "Rate", "ib.port.rate", FT__F_NUM, "Gbps" },
	{ "Base lid", "ib.port.lid", FT__F_NUM, NULL },
	{ "LMC", "ib.port.lmc", FT__F_NUM, NULL },
	{ "SM lid", "ib.port.sm_lid", FT__F_NUM, NULL },
	{ "Capability mask", "ib.port.cap_mask", FT__F_STR, NULL },
	{ "Port GUID", "ib.port.guid", FT__F_STR, NULL },
	{ "Link layer", "ib.port.link_layer", FT__F_STR, NULL },
};

int
ft__ibstat_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it = ft__pctx_lines(c, text, len);
	struct ft__span s;
	bool in_ca = false;

	while (ft__next_line(c, &it, &s)) {
		struct ft__span k, v;
		uint64_t u;

		if (s.n >= 5 && ft__starts(s, "CA '") && ft__ends(s, "'")) {
			ft__copy(c->device, sizeof(c->device),
			         (struct ft__span){ s.p + 4, s.n - 5 });
			c->port = -1;
			in_ca = true;
			continue;
		}
		if (ft__tool_error(c, it.lineno, s, "ibpanic:|ibwarn:|ibstat: "))
			continue;
		if (ft__starts(s, "Port ") && ft__ends(s, ":") &&
		    ft__u64((struct ft__span){ s.p + 5, s.n - 6 }, &u) && u < 256) {
			c->port = (int)u;
			continue;
		}
		if (in_ca && ft__split(s, ':', &k, &v)) {
			bool ok = c->port < 0 ? ft__field_emit(c, it.lineno, dev_fields,
			                                       FT_ARRAY_SIZE(dev_fields), k, v) :
			                        ft__field_emit(c, it.lineno, port_fields,
			                                       FT_ARRAY_SIZE(port_fields), k, v);
			if (!ok)
				ft__skipped(c, it.lineno, "unknown ibstat field", s);
			continue;
		}
		ft__unread(c, it.lineno, "not ibstat output", s);
	}
	return c->rc;
}

FT__PARSER(ibstat, "ibstat", "ibstat: HCA and port state, rate, LIDs, firmware",
           { 90, { "CA '", "CA type:" } }, { 70, { "CA '", "Physical state:" } });

/* SPDX-License-Identifier: MIT */
/*
 * parse/ib_fields.c - the InfiniBand vocabulary that ibstat, ibstatus,
 * ibv_devinfo, ibportstate and the sysfs probe share: one table of device
 * and port fields under each tool's name for them, and one of port states.
 *
 * A field is one key whichever tool printed it ("Base lid", "port_lid" and
 * "Lid" are all `ib.port.lid`), read the same way (IB-SPEED for rates).
 */
#include "parse_int.h"

/* Each tool's name for a field, NULL where the tool does not print it. */
static const struct {
	const char *name[FT__IB_NTOOLS]; /* ibstat, ibv_devinfo, ibportstate */
	const char *key;
	enum ft__field_kind kind;
	const char *unit;
} ib_fields[] = {
	{ { "CA type", NULL, NULL }, "ib.dev.ca_type", FT__F_STR, NULL },
	{ { NULL, "transport", NULL }, "ib.dev.transport", FT__F_STR, NULL },
	{ { "Number of ports", "phys_port_cnt", NULL }, "ib.dev.nports", FT__F_NUM, "count" },
	{ { "Firmware version", "fw_ver", NULL }, "ib.dev.fw_ver", FT__F_STR, NULL },
	{ { "Hardware version", "hw_ver", NULL }, "ib.dev.hw_ver", FT__F_STR, NULL },
	{ { "Node GUID", "node_guid", NULL }, "ib.dev.node_guid", FT__F_STR, NULL },
	{ { "System image GUID", "sys_image_guid", NULL }, "ib.dev.sys_guid", FT__F_STR, NULL },
	{ { NULL, "vendor_id", NULL }, "ib.dev.vendor_id", FT__F_STR, NULL },
	{ { NULL, "vendor_part_id", NULL }, "ib.dev.vendor_part_id", FT__F_NUM, NULL },
	{ { NULL, "board_id", NULL }, "ib.dev.board_id", FT__F_STR, NULL },
	/* ibv_devinfo's states are normalised by ft__emit_ib_state() */
	{ { "State", NULL, "LinkState" }, "ib.port.state", FT__F_STR, NULL },
	{ { "Physical state", NULL, "PhysLinkState" }, "ib.port.phys_state", FT__F_STR, NULL },
	{ { "Rate", NULL, NULL }, "ib.port.rate", FT__F_NUM, "Gbps" },
	{ { "Base lid", "port_lid", "Lid" }, "ib.port.lid", FT__F_NUM, NULL },
	{ { "LMC", "port_lmc", NULL }, "ib.port.lmc", FT__F_NUM, NULL },
	{ { "SM lid", "sm_lid", "SMLid" }, "ib.port.sm_lid", FT__F_NUM, NULL },
	{ { "Capability mask", NULL, NULL }, "ib.port.cap_mask", FT__F_STR, NULL },
	{ { "Port GUID", NULL, NULL }, "ib.port.guid", FT__F_STR, NULL },
	{ { "Link layer", "link_layer", NULL }, "ib.port.link_layer", FT__F_STR, NULL },
	{ { NULL, "max_mtu", "MtuCap" }, "ib.port.mtu_max", FT__F_LEAD, "bytes" },
	{ { NULL, "active_mtu", NULL }, "ib.port.mtu_active", FT__F_LEAD, "bytes" },
	{ { NULL, NULL, "NeighborMTU" }, "ib.port.mtu_neighbor", FT__F_LEAD, "bytes" },
	{ { NULL, "active_width", "LinkWidthActive" }, "ib.port.width_active", FT__F_STR, NULL },
	{ { NULL, NULL, "LinkWidthSupported" }, "ib.port.width_supported", FT__F_STR, NULL },
	{ { NULL, NULL, "LinkWidthEnabled" }, "ib.port.width_enabled", FT__F_STR, NULL },
	{ { NULL, "active_speed", "LinkSpeedActive" }, "ib.port.speed_active", FT__F_LEAD, "Gbps" },
	{ { NULL, NULL, "LinkSpeedSupported" }, "ib.port.speed_supported", FT__F_STR, NULL },
	{ { NULL, NULL, "LinkSpeedEnabled" }, "ib.port.speed_enabled", FT__F_STR, NULL },
	{ { NULL, NULL, "LinkSpeedExtActive" }, "ib.port.speed_ext_active", FT__F_LEAD, "Gbps" },
	{ { NULL, NULL, "LinkSpeedExtSupported" }, "ib.port.speed_ext_supported", FT__F_STR, NULL },
	{ { NULL, NULL, "LinkSpeedExtEnabled" }, "ib.port.speed_ext_enabled", FT__F_STR, NULL },
};

bool
ft__ib_field_emit(struct ft__pctx *c, uint32_t line, enum ft__ib_tool tool, bool port,
                  struct ft__span name, struct ft__span val)
{
	const char *scope = port ? "ib.port." : "ib.dev.";

	for (size_t i = 0; i < FT_ARRAY_SIZE(ib_fields); i++) {
		const char *n = ib_fields[i].name[tool];

		if (n && ft__eq(name, n) && strncmp(ib_fields[i].key, scope, strlen(scope)) == 0) {
			ft__field_value(c, line, ib_fields[i].key, ib_fields[i].kind,
			                ib_fields[i].unit, val);
			return true;
		}
	}
	return false;
}

/*
 * The IB port states and physical states (PortInfo PortState and
 * PortPhysicalState): verbs' names (ibv_devinfo) and ibstat's, which ibstatus
 * and sysfs print in either case.
 */
static const struct {
	const char *verbs, *name;
} ib_states[] = {
	{ "PORT_DOWN", "Down" },
	{ "PORT_INIT", "Init" },
	{ "PORT_ARMED", "Armed" },
	{ "PORT_ACTIVE", "Active" },
	{ "PORT_ACTIVE_DEFER", "ActiveDefer" },
	{ "SLEEP", "Sleep" },
	{ "POLLING", "Polling" },
	{ "DISABLED", "Disabled" },
	{ "PORT_CONFIGURATION_TRAINING", "PortConfigurationTraining" },
	{ "LINK_UP", "LinkUp" },
	{ "LINK_ERROR_RECOVERY", "LinkErrorRecovery" },
	{ "PHY_TEST", "PhyTest" },
};

void
ft__emit_ib_state(struct ft__pctx *c, uint32_t line, const char *key, struct ft__span v)
{
	const char *colon = v.n ? memchr(v.p, ':', v.n) : NULL;
	struct ft__span s;

	if (colon)
		s = ft__trim(ft__skip(v, (size_t)(colon - v.p) + 1));
	else if (!ft__token(&v, &s))
		return;
	for (size_t i = 0; i < FT_ARRAY_SIZE(ib_states); i++) {
		const char *name = ib_states[i].name;

		if (ft__eq(s, ib_states[i].verbs) ||
		    (s.n == strlen(name) && strncasecmp(s.p, name, s.n) == 0)) {
			ft__emit_cstr(c, line, key, name);
			return;
		}
	}
	ft__emit_str(c, line, key, s);
}

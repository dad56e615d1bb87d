/* SPDX-License-Identifier: MIT */
/*
 * probe/ib.c - /sys/class/infiniband: per HCA the firmware, type and PCI
 * address; per port state, physical state, rate (with width and speed),
 * link layer, LIDs, GIDs (with their RoCE type and netdev), counters/<name> under
 * perfquery's names (IB-COUNTERS) and hw_counters/<name> under their own
 * (`ib.hw_counter.*`; ROCE-COUNTERS).
 *
 * The keys are those of the ibstat/ibstatus parsers, so rules read a probed
 * host and a pasted ibstat alike.
 */
#include "probe_int.h"

static const struct {
	const char *sysfs, *name;
} counter_names[] = {
	{ "symbol_error", "SymbolErrorCounter" },
	{ "link_error_recovery", "LinkErrorRecoveryCounter" },
	{ "link_downed", "LinkDownedCounter" },
	{ "port_rcv_errors", "PortRcvErrors" },
	{ "port_rcv_remote_physical_errors", "PortRcvRemotePhysicalErrors" },
	{ "port_rcv_switch_relay_errors", "PortRcvSwitchRelayErrors" },
	{ "port_xmit_discards", "PortXmitDiscards" },
	{ "port_xmit_constraint_errors", "PortXmitConstraintErrors" },
	{ "port_rcv_constraint_errors", "PortRcvConstraintErrors" },
	{ "local_link_integrity_errors", "LocalLinkIntegrityErrors" },
	{ "excessive_buffer_overrun_errors", "ExcessiveBufferOverrunErrors" },
	{ "VL15_dropped", "VL15Dropped" },
	{ "port_xmit_wait", "PortXmitWait" },
	{ "port_xmit_data", "PortXmitData" },
	{ "port_rcv_data", "PortRcvData" },
	{ "port_xmit_packets", "PortXmitPkts" },
	{ "port_rcv_packets", "PortRcvPkts" },
	{ "unicast_xmit_packets", "PortUnicastXmitPkts" },
	{ "unicast_rcv_packets", "PortUnicastRcvPkts" },
	{ "multicast_xmit_packets", "PortMulticastXmitPkts" },
	{ "multicast_rcv_packets", "PortMulticastRcvPkts" },
};

static void
emit_rate(struct ft__pctx *c, const char *v)
{
	struct ft__span rest, tok;
	double gbps;
	const char *open = strchr(v, '(');

	if (!ft__lead_dbl(ft__span_c(v), &gbps, &rest)) {
		ft__emit_cstr(c, 0, "ib.port.rate", v);
		return;
	}
	ft__emit(c, 0, "ib.port.rate", true, gbps, "Gbps", ft__span_c(v));
	if (!open)
		return;
	rest = ft__span_c(open + 1);
	if (rest.n && rest.p[rest.n - 1] == ')')
		rest.n--;
	if (ft__token(&rest, &tok))
		ft__emit_str(c, 0, "ib.port.width", tok);
	if (ft__token(&rest, &tok))
		ft__emit_str(c, 0, "ib.port.speed_active", tok);
}

static bool
gid_is_zero(const char *g)
{
	for (; *g; g++)
		if (*g != '0' && *g != ':')
			return false;
	return true;
}

static void
counters(struct ft__probe *p, const char *dir, bool hw)
{
	char **names, path[FT__PATH_MAX], buf[64];
	size_t n = ft__probe_list(p->root, dir, &names);

	for (size_t i = 0; i < n && !p->c.rc; i++) {
		uint64_t u;
		const char *name = names[i];
		bool data = false;

		if (snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >= (int)sizeof(path) ||
		    !ft__probe_read(p->root, path, buf, sizeof(buf)) ||
		    !ft__u64(ft__span_c(buf), &u))
			continue;
		if (!hw) {
			for (size_t k = 0; k < FT_ARRAY_SIZE(counter_names); k++)
				if (strcmp(counter_names[k].sysfs, names[i]) == 0) {
					name = counter_names[k].name;
					data = strcmp(name, "PortXmitData") == 0 ||
					       strcmp(name, "PortRcvData") == 0;
					break;
				}
		}
		ft__emit_named(&p->c, 0, hw ? "ib.hw_counter." : "ib.counter.", ft__span_c(name),
		               true, (double)u, data ? "4B" : "count", FT__NOSTR);
	}
	ft__probe_list_free(names, n);
}

static void
gids(struct ft__probe *p, const char *pdir, bool roce)
{
	char **names, path[FT__PATH_MAX], gid[64], buf[64];
	size_t n, ngid = 0;

	if (snprintf(path, sizeof(path), "%s/gids", pdir) >= (int)sizeof(path))
		return;
	n = ft__probe_list(p->root, path, &names);
	if (!n)
		return;
	for (size_t i = 0; i < n && !p->c.rc; i++) {
		uint64_t idx;

		if (!ft__u64(ft__span_c(names[i]), &idx) ||
		    snprintf(path, sizeof(path), "%s/gids/%s", pdir, names[i]) >=
		            (int)sizeof(path) ||
		    !ft__probe_read(p->root, path, gid, sizeof(gid)) || gid_is_zero(gid))
			continue;
		ngid++;
		ft__emit(&p->c, 0, roce ? "roce.gid.index" : "ib.port.gid", true, (double)idx, NULL,
		         ft__span_c(gid));
		if (!roce)
			continue;
		if (snprintf(path, sizeof(path), "%s/gid_attrs/types/%s", pdir, names[i]) <
		            (int)sizeof(path) &&
		    ft__probe_read(p->root, path, buf, sizeof(buf)))
			ft__emit(&p->c, 0, "roce.gid.version", true, (double)idx, NULL,
			         ft__span_c(strstr(buf, "v2") ? "v2" :
			                    strstr(buf, "v1") ? "v1" :
			                                        buf));
		if (snprintf(path, sizeof(path), "%s/gid_attrs/ndevs/%s", pdir, names[i]) <
		            (int)sizeof(path) &&
		    ft__probe_read(p->root, path, buf, sizeof(buf)))
			ft__emit(&p->c, 0, "roce.gid.netdev", true, (double)idx, NULL,
			         ft__span_c(buf));
	}
	ft__emit_num(&p->c, 0, roce ? "roce.gid.count" : "ib.port.gid_count", (double)ngid,
	             "count");
	ft__probe_list_free(names, n);
}

static void
port(struct ft__probe *p, const char *ddir, const char *name)
{
	char pdir[FT__PATH_MAX], path[FT__PATH_MAX], buf[128];
	uint64_t u;
	bool roce = false;

	if (!ft__u64(ft__span_c(name), &u) || u > 255 ||
	    snprintf(pdir, sizeof(pdir), "%s/ports/%s", ddir, name) >= (int)sizeof(pdir))
		return;
	p->c.port = (int)u;
#define READ(file)                                                             \
	(snprintf(path, sizeof(path), "%s/" file, pdir) < (int)sizeof(path) && \
	 ft__probe_read(p->root, path, buf, sizeof(buf)))
	if (READ("link_layer"))
		roce = strcmp(buf, "Ethernet") == 0;
	if (!p->counters_only) {
		if (READ("state"))
			ft__emit_ib_state(&p->c, 0, "ib.port.state", ft__span_c(buf));
		if (READ("phys_state"))
			ft__emit_ib_state(&p->c, 0, "ib.port.phys_state", ft__span_c(buf));
		if (READ("rate"))
			emit_rate(&p->c, buf);
		if (READ("link_layer"))
			ft__emit_cstr(&p->c, 0, "ib.port.link_layer", buf);
		if (!roce && READ("lid") && ft__u64(ft__span_c(buf), &u))
			ft__emit_num(&p->c, 0, "ib.port.lid", (double)u, NULL);
		if (!roce && READ("sm_lid") && ft__u64(ft__span_c(buf), &u))
			ft__emit_num(&p->c, 0, "ib.port.sm_lid", (double)u, NULL);
		gids(p, pdir, roce);
	}
#undef READ
	if (snprintf(path, sizeof(path), "%s/counters", pdir) < (int)sizeof(path))
		counters(p, path, false);
	if (snprintf(path, sizeof(path), "%s/hw_counters", pdir) < (int)sizeof(path))
		counters(p, path, true);
	p->c.port = -1;
}

int
ft__probe_ib(struct ft__probe *p)
{
	char dir[FT__PATH_MAX], ddir[FT__PATH_MAX], path[FT__PATH_MAX], buf[128];
	char **devs, **ports;
	size_t nd, np;

	if (!ft__probe_path(p, dir, sizeof(dir), "/sys/class/infiniband"))
		return 0;
	nd = ft__probe_list(p->root, dir, &devs);
	for (size_t i = 0; i < nd && !p->c.rc; i++) {
		if (snprintf(ddir, sizeof(ddir), "%s/%s", dir, devs[i]) >= (int)sizeof(ddir))
			continue;
		ft__pctx_entity(&p->c, devs[i], -1);
		if (!p->counters_only) {
			static const struct {
				const char *file, *key;
			} dev_files[] = {
				{ "hca_type", "ib.dev.ca_type" },
				{ "fw_ver", "ib.dev.fw_ver" },
				{ "hw_rev", "ib.dev.hw_ver" },
				{ "board_id", "ib.dev.board_id" },
				{ "node_guid", "ib.dev.node_guid" },
				{ "node_type", "ib.dev.node_type" },
			};

			for (size_t k = 0; k < FT_ARRAY_SIZE(dev_files); k++)
				if (snprintf(path, sizeof(path), "%s/%s", ddir, dev_files[k].file) <
				            (int)sizeof(path) &&
				    ft__probe_read(p->root, path, buf, sizeof(buf)))
					ft__emit_cstr(&p->c, 0, dev_files[k].key, buf);
			if (snprintf(path, sizeof(path), "%s/device", ddir) < (int)sizeof(path) &&
			    ft__probe_link_base(path, buf, sizeof(buf)))
				ft__emit_cstr(&p->c, 0, "ib.dev.pci", buf);
		}
		if (snprintf(path, sizeof(path), "%s/ports", ddir) >= (int)sizeof(path))
			continue;
		np = ft__probe_list(p->root, path, &ports);
		if (!p->counters_only)
			ft__emit_num(&p->c, 0, "ib.dev.nports", (double)np, "count");
		for (size_t k = 0; k < np && !p->c.rc; k++)
			port(p, ddir, ports[k]);
		ft__probe_list_free(ports, np);
	}
	ft__probe_list_free(devs, nd);
	ft__pctx_entity(&p->c, "", -1);
	return p->c.rc;
}

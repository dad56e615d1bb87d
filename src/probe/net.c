/* SPDX-License-Identifier: MIT */
/*
 * probe/net.c - /sys/class/net: per interface (lo excluded) the MTU, the
 * link speed (Mb/s; absent while the link is down), the operational state,
 * the driver and PCI address when it has a device, and the kernel's
 * statistics/<name> as `eth.counter.<name>` (HOST-ETH-MTU, ROCE-MTU).
 */
#include "probe_int.h"

int
ft__probe_net(struct ft__probe *p)
{
	char dir[FT__PATH_MAX], path[FT__PATH_MAX], buf[128];
	char **ifs, **stats;
	size_t n, ns;

	if (!ft__probe_path(p, dir, sizeof(dir), "/sys/class/net"))
		return 0;
	n = ft__probe_list(p->root, dir, &ifs);
	for (size_t i = 0; i < n && !p->c.rc; i++) {
		int64_t v;
		uint64_t u;

		if (strcmp(ifs[i], "lo") == 0)
			continue;
		ft__pctx_entity(&p->c, ifs[i], -1);
#define READ(file)                                                                       \
	(snprintf(path, sizeof(path), "%s/%s/" file, dir, ifs[i]) < (int)sizeof(path) && \
	 ft__probe_read(p->root, path, buf, sizeof(buf)))
		if (!p->counters_only) {
			if (READ("mtu") && ft__i64(ft__span_c(buf), &v))
				ft__emit_num(&p->c, 0, "eth.link.mtu", (double)v, "bytes");
			if (READ("speed") && ft__i64(ft__span_c(buf), &v) && v > 0)
				ft__emit_num(&p->c, 0, "eth.link.speed", (double)v, "Mb/s");
			if (READ("operstate"))
				ft__emit_cstr(&p->c, 0, "eth.link.operstate", buf);
			if (snprintf(path, sizeof(path), "%s/%s/device/driver", dir, ifs[i]) <
			            (int)sizeof(path) &&
			    ft__probe_link_base(path, buf, sizeof(buf)))
				ft__emit_cstr(&p->c, 0, "eth.driver.name", buf);
			if (snprintf(path, sizeof(path), "%s/%s/device", dir, ifs[i]) <
			            (int)sizeof(path) &&
			    ft__probe_link_base(path, buf, sizeof(buf)))
				ft__emit_cstr(&p->c, 0, "eth.driver.bus_info", buf);
			else /* no device behind it: ifb, veth, bridge, dummy, tun */
				ft__emit_cstr(&p->c, 0, "eth.link.virtual", "yes");
		}
#undef READ
		if (snprintf(path, sizeof(path), "%s/%s/statistics", dir, ifs[i]) >=
		    (int)sizeof(path))
			continue;
		ns = ft__probe_list(p->root, path, &stats);
		for (size_t k = 0; k < ns && !p->c.rc; k++) {
			char spath[FT__PATH_MAX];

			if (snprintf(spath, sizeof(spath), "%s/%s", path, stats[k]) <
			            (int)sizeof(spath) &&
			    ft__probe_read(p->root, spath, buf, sizeof(buf)) && ft__u64(ft__span_c(buf), &u))
				ft__emit_named(&p->c, 0, "eth.counter.", ft__span_c(stats[k]), true,
				               (double)u, "count", FT__NOSTR);
		}
		ft__probe_list_free(stats, ns);
	}
	ft__probe_list_free(ifs, n);
	ft__pctx_entity(&p->c, "", -1);
	return p->c.rc;
}

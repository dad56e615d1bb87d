/* SPDX-License-Identifier: MIT */
/*
 * parse/ethtool.c - `ethtool DEV` (link settings), `ethtool -i DEV` (driver)
 * and `ethtool -S DEV` (statistics), alone or pasted together.
 *
 * Link: `eth.link.speed` (Mb/s; "Unknown!" kept as text), `eth.link.duplex`,
 * `eth.link.detected` (yes/no), `eth.link.port`, `eth.link.autoneg`, and the
 * fastest supported/advertised mode as `eth.link.speed_supported_max` /
 * `eth.link.speed_advertised_max` (Mb/s). Driver: `eth.driver.*`. Statistics:
 * `eth.counter.<name>` in the driver's spelling (mlx5: rx_discards_phy,
 * rx_prio3_pause, tx_pause_ctrl_phy, ...; ROCE-COUNTERS).
 *
 * The device comes from "Settings for DEV:" or from a prompt line naming
 * the command ("ethtool -S eth4"); `-S` output alone carries no device name.
 */
#include "ethtool_int.h"
#include "parse_int.h"

static const struct ft__field driver_fields[] = {
	{ "driver", "eth.driver.name", FT__F_STR, NULL },
	{ "version", "eth.driver.version", FT__F_STR, NULL },
	{ "firmware-version", "eth.driver.fw_version", FT__F_STR, NULL },
	{ "bus-info", "eth.driver.bus_info", FT__F_STR, NULL },
	{ "expansion-rom-version", NULL, FT__F_IGN, NULL },
	{ "supports-statistics", NULL, FT__F_IGN, NULL },
	{ "supports-test", NULL, FT__F_IGN, NULL },
	{ "supports-eeprom-access", NULL, FT__F_IGN, NULL },
	{ "supports-register-dump", NULL, FT__F_IGN, NULL },
	{ "supports-priv-flags", NULL, FT__F_IGN, NULL },
};

static const struct ft__field link_fields[] = {
	{ "Duplex", "eth.link.duplex", FT__F_STR, NULL },
	{ "Link detected", "eth.link.detected", FT__F_STR, NULL },
	{ "Port", "eth.link.port", FT__F_STR, NULL },
	{ "Auto-negotiation", "eth.link.autoneg", FT__F_STR, NULL },
	{ "Transceiver", "eth.link.transceiver", FT__F_STR, NULL },
	{ "Lanes", "eth.link.lanes", FT__F_NUM, NULL },
	{ "Supported ports", NULL, FT__F_IGN, NULL },
	{ "Supported pause frame use", NULL, FT__F_IGN, NULL },
	{ "Supports auto-negotiation", NULL, FT__F_IGN, NULL },
	{ "Supported FEC modes", "eth.link.fec_supported", FT__F_STR, NULL },
	{ "Advertised pause frame use", NULL, FT__F_IGN, NULL },
	{ "Advertised auto-negotiation", NULL, FT__F_IGN, NULL },
	{ "Advertised FEC modes", "eth.link.fec_advertised", FT__F_STR, NULL },
	{ "Link partner advertised link modes", NULL, FT__F_IGN, NULL },
	{ "Link partner advertised pause frame use", NULL, FT__F_IGN, NULL },
	{ "Link partner advertised auto-negotiation", NULL, FT__F_IGN, NULL },
	{ "Link partner advertised FEC modes", NULL, FT__F_IGN, NULL },
	{ "PHYAD", NULL, FT__F_IGN, NULL },
	{ "MDI-X", NULL, FT__F_IGN, NULL },
	{ "Supports Wake-on", NULL, FT__F_IGN, NULL },
	{ "Wake-on", NULL, FT__F_IGN, NULL },
	{ "Current message level", NULL, FT__F_IGN, NULL },
};

enum mode {
	M_NONE,
	M_LINK,
	M_DRIVER,
	M_STATS
};

/* "100000baseSR4/Full" -> 100000 (Mb/s); 0 when not a link mode. */
static double
mode_speed(struct ft__span tok)
{
	double v;
	const char *b = ft__find(tok, "base");

	if (!b || b == tok.p || !ft__dbl((struct ft__span){ tok.p, (size_t)(b - tok.p) }, &v))
		return 0;
	return v;
}

struct modes {
	double max;
	uint32_t line;
	const char *key;
};

static void
modes_add(struct modes *m, struct ft__span v)
{
	struct ft__span tok;

	while (ft__token(&v, &tok)) {
		double sp = mode_speed(tok);

		if (sp > m->max)
			m->max = sp;
	}
}

static void
modes_flush(struct ft__pctx *c, struct modes *m)
{
	if (m->key && m->max > 0)
		ft__emit_num(c, m->line, m->key, m->max, "Mb/s");
	m->key = NULL;
	m->max = 0;
}

static void
device_from_command(struct ft__pctx *c, struct ft__span cmd)
{
	struct ft__span w, last = FT__NOSTR;
	bool is_ethtool = false;

	while (ft__token(&cmd, &w)) {
		if (ft__eq(w, "|") || ft__eq(w, ";") || ft__eq(w, "&&"))
			break;
		if (ft__ends(w, "ethtool"))
			is_ethtool = true;
		else if (is_ethtool && w.p[0] != '-')
			last = w;
	}
	if (is_ethtool && last.p) {
		ft__copy(c->device, sizeof(c->device), last);
		c->port = -1;
	}
}

/*
 * Is "k: v" a statistics line: a lower-case counter name (letters, digits,
 * '_', '.', '-') and an unsigned integer? Used to read fragments without
 * their header and by the sniffer.
 */
bool
ft__ethtool_is_counter(struct ft__span k, struct ft__span v)
{
	uint64_t u;
	size_t i;

	if (!k.n || k.n > 64 || !(k.p[0] >= 'a' && k.p[0] <= 'z'))
		return false;
	for (i = 0; i < k.n; i++) {
		char ch = k.p[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' ||
		      ch == '.' || ch == '-'))
			return false;
	}
	return ft__u64(ft__trim(v), &u);
}

/*
 * Intel ice names the PFC frames a port sends "tx_priority_N_xoff.nic" and
 * those it receives "rx_priority_N_xoff.nic"; each XOFF is one pause frame,
 * so it is also emitted under the mlx5 name "tx_prioN_pause" the rules read
 * (ROCE-COUNTERS).
 */
static void
emit_xoff_alias(struct ft__pctx *c, uint32_t line, struct ft__span k, double v)
{
	char key[48];

	if (k.n == sizeof("tx_priority_0_xoff.nic") - 1 &&
	    (ft__starts(k, "tx_priority_") || ft__starts(k, "rx_priority_")) && k.p[12] >= '0' &&
	    k.p[12] <= '7' && memcmp(k.p + 13, "_xoff.nic", 9) == 0) {
		snprintf(key, sizeof(key), "eth.counter.%.2s_prio%c_pause", k.p, k.p[12]);
		ft__emit(c, line, key, true, v, "count", FT__NOSTR);
	}
}

/*
 * Drivers that keep counters per queue print them with the queue in front:
 * bnx2x "[3]: rx_discards: 0", be2net "rxq3: rx_drops_no_frags: 0". The
 * counter is read as "q3_rx_discards" and "rxq3_rx_drops_no_frags", so that
 * queues stay apart and the line is not lost.
 */
static bool
queue_counter(struct ft__span k, struct ft__span v, char *name, size_t cap, struct ft__span *val)
{
	struct ft__span k2, v2, q = ft__trim(k);
	bool bracket = q.n >= 3 && q.p[0] == '[' && q.p[q.n - 1] == ']';
	size_t i;

	if (bracket)
		q = (struct ft__span){ q.p + 1, q.n - 2 };
	if (!q.n || q.n > 16 || !ft__split(ft__trim(v), ':', &k2, &v2) ||
	    !ft__ethtool_is_counter(ft__trim(k2), v2))
		return false;
	for (i = 0; i < q.n; i++)
		if (!((q.p[i] >= '0' && q.p[i] <= '9') || (!bracket && q.p[i] >= 'a' && q.p[i] <= 'z')))
			return false;
	if (q.p[q.n - 1] < '0' || q.p[q.n - 1] > '9')
		return false;
	k2 = ft__trim(k2);
	snprintf(name, cap, "%s%.*s_%.*s", bracket ? "q" : "", (int)q.n, q.p, (int)k2.n, k2.p);
	*val = v2;
	return true;
}

/* The flag names ethtool prints under "Current message level" ("drv probe link"). */
static bool
msglvl_flags(struct ft__span s)
{
	size_t i;

	for (i = 0; i < s.n; i++)
		if (!((s.p[i] >= 'a' && s.p[i] <= 'z') || s.p[i] == '_' || s.p[i] == ' '))
			return false;
	return s.n > 0;
}

int
ft__ethtool_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it = ft__pctx_lines(c, text, len);
	struct ft__span s, cmd;
	enum mode mode = M_NONE;
	struct modes m = { 0 };

	while (ft__next_line(c, &it, &s)) {
		struct ft__span k, v;
		char qname[96];
		double d;
		uint64_t u;

		if (ft__is_prompt(s, &cmd)) {
			modes_flush(c, &m);
			device_from_command(c, cmd);
			mode = M_NONE;
			continue;
		}
		if (ft__starts(s, "Settings for ") && ft__ends(s, ":")) {
			modes_flush(c, &m);
			ft__copy(c->device, sizeof(c->device),
			         ft__trim((struct ft__span){ s.p + 13, s.n - 14 }));
			mode = M_LINK;
			continue;
		}
		if (ft__eq(s, "NIC statistics:")) {
			modes_flush(c, &m);
			mode = M_STATS;
			continue;
		}
		if (ft__tool_error(c, it.lineno, s, "Cannot |No data available|no stats available"))
			continue;
		if (ft__starts(s, "driver:")) {
			modes_flush(c, &m);
			mode = M_DRIVER;
		}
		if (!ft__split(s, ':', &k, &v)) {
			/* continuation of a link-mode list */
			if (mode == M_LINK && m.key && mode_speed(s) > 0) {
				modes_add(&m, s);
				continue;
			}
			if (mode == M_LINK && msglvl_flags(s))
				continue;
			ft__skipped(c, it.lineno, "not ethtool output", s);
			continue;
		}
		if ((mode == M_NONE || mode == M_STATS || mode == M_DRIVER) &&
		    queue_counter(k, v, qname, sizeof(qname), &v))
			k = (struct ft__span){ qname, strlen(qname) };
		/*
		 * A grep'd excerpt of `ethtool -S` has no "NIC statistics:" line;
		 * nor has one pasted under `ethtool -i` (no driver field is a count).
		 */
		if ((mode == M_NONE || mode == M_DRIVER) && ft__ethtool_is_counter(k, v))
			mode = M_STATS;
		switch (mode) {
		case M_STATS:
			if (ft__u64(v, &u)) {
				ft__emit_named(c, it.lineno, "eth.counter.", k, true, (double)u,
				               "count", FT__NOSTR);
				emit_xoff_alias(c, it.lineno, k, (double)u);
			} else
				ft__skipped(c, it.lineno, "counter value is not a number", s);
			continue;
		case M_DRIVER:
			if (ft__field_emit(c, it.lineno, driver_fields,
			                   FT_ARRAY_SIZE(driver_fields), k, v))
				continue;
			break;
		case M_LINK:
			if (ft__eq(k, "Supported link modes") ||
			    ft__eq(k, "Advertised link modes")) {
				modes_flush(c, &m);
				m.key = k.p[0] == 'S' ? "eth.link.speed_supported_max" :
				                        "eth.link.speed_advertised_max";
				m.line = it.lineno;
				modes_add(&m, v);
				continue;
			}
			modes_flush(c, &m);
			if (ft__eq(k, "Speed")) {
				if (ft__lead_dbl(v, &d, NULL))
					ft__emit(c, it.lineno, "eth.link.speed", true, d, "Mb/s",
					         v);
				else
					ft__emit_str(c, it.lineno, "eth.link.speed",
					             ft__ends(v, "!") ?
					                     (struct ft__span){ v.p, v.n - 1 } :
					                     v);
				continue;
			}
			if (ft__field_emit(c, it.lineno, link_fields, FT_ARRAY_SIZE(link_fields), k,
			                   v))
				continue;
			break;
		case M_NONE:
			break;
		}
		ft__skipped(c, it.lineno, "unknown ethtool field", s);
	}
	modes_flush(c, &m);
	return c->rc;
}

FT__PARSER(ethtool, "ethtool",
           "ethtool / ethtool -i: link speed, duplex, link detected, modes, driver",
           { 90, { "Settings for ", "Link detected" } }, { 90, { "driver:", "bus-info:" } },
           { 70, { "Settings for |Supported link modes:" } });

/* SPDX-License-Identifier: MIT */
/*
 * parse/ethtool_s.c - `ethtool -S DEV`: "NIC statistics:" then "name: value"
 * lines, each `eth.counter.<name>` (mlx5 names kept: rx_discards_phy,
 * rx_prioN_pause, rx_prioN_discards, tx_pause_ctrl_phy, rx_out_of_buffer,
 * np_cnp_sent, ...; ROCE-COUNTERS). The engine is shared with parse/ethtool.c
 * so that -i or link output pasted before the statistics is read too.
 */
#include "ethtool_int.h"

int
ft__ethtool_s_run(struct ft__pctx *c, const char *text, size_t len)
{
	return ft__ethtool_run(c, text, len); /* one engine reads both */
}

/*
 * A headerless excerpt ("ethtool -S IF | grep prio"): every line a counter
 * line, at least three of them, and at least one of the RoCE/PFC families
 * the rules read. The first 64 lines decide.
 */
static int
fragment_sniff(const char *text, size_t len)
{
	struct ft__lines it;
	struct ft__span raw, k, v;
	size_t n = 0, fam = 0;

	ft__lines_init(&it, text, len, 0);
	while (it.lineno < 64 && ft__lines_next(&it, &raw)) {
		struct ft__span s = ft__trim(raw);

		if (!s.n || s.p[0] == '#')
			continue;
		if (!ft__split(s, ':', &k, &v) || !ft__ethtool_is_counter(k, v))
			return 0;
		n++;
		if (ft__find(k, "prio") || ft__find(k, "pause") || ft__find(k, "discard") ||
		    ft__find(k, "cnp") || ft__find(k, "ecn") || ft__find(k, "out_of_buffer"))
			fam++;
	}
	return n >= 3 && fam ? 55 : 0;
}

static int
ethtool_s_sniff(const char *text, size_t len)
{
	struct ft__span s = { text, len };

	if (ft__find(s, "NIC statistics:"))
		return 85;
	if (ft__find(s, "rx_packets: ") && ft__find(s, "tx_packets: "))
		return 60;
	return fragment_sniff(text, len);
}

FT__PARSER_SNIFF(ethtool_s, "ethtool-S",
                 "ethtool -S: NIC statistics (discards, per-priority pause, out of buffer)",
                 ethtool_s_sniff);

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
	return ft__ethtool_engine(c, text, len);
}

static int
ethtool_s_sniff(const char *text, size_t len)
{
	struct ft__span s = { text, len };

	if (ft__find(s, "NIC statistics:"))
		return 85;
	if (ft__find(s, "rx_packets: ") && ft__find(s, "tx_packets: "))
		return 60;
	return 0;
}

FT__DEFINE_PARSE(ft__ethtool_s_run)

const struct ft_parser ft_ethtool_s_parser = {
	.name = "ethtool-S",
	.summary = "ethtool -S: NIC statistics (discards, per-priority pause, out of buffer)",
	.sniff = ethtool_s_sniff,
	.parse = ft__ethtool_s_run_parse,
};

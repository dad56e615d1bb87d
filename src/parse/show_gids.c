/* SPDX-License-Identifier: MIT */
/*
 * parse/show_gids.c - `show_gids` (MLNX_OFED): a table
 *   DEV PORT INDEX GID IPv4 VER DEV
 * and a final "n_gids_found=N".
 *
 * Per row, for host/device/port: `roce.gid.index` (number = index, str = GID),
 * `roce.gid.version` (number = index, str v1/v2), `roce.gid.ipv4` and
 * `roce.gid.netdev` when present. "n_gids_found=N" becomes `roce.gid.count`
 * (0 means RoCE has no usable address; ROCE-GID).
 */
#include "parse_int.h"

static bool
show_gids_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	struct ft__span rest = s, t[8];
	size_t n = 0;
	uint64_t port, idx;

	(void)state;
	if (ft__starts(s, "DEV") || ft__starts(s, "---"))
		return true;
	if (ft__starts(s, "n_gids_found=")) {
		if (ft__u64(ft__skip(s, 13), &idx)) {
			ft__pctx_entity(c, "", -1);
			ft__emit_num(c, line, "roce.gid.count", (double)idx, "count");
		} else {
			ft__skipped(c, line, "bad n_gids_found", s);
		}
		return true;
	}
	while (n < 8 && ft__token(&rest, &t[n]))
		n++;
	if (n >= 5 && ft__u64(t[1], &port) && port < 256 && ft__u64(t[2], &idx) &&
	    memchr(t[3].p, ':', t[3].n)) {
		size_t vi = 4;

		ft__copy(c->device, sizeof(c->device), t[0]);
		c->port = (int)port;
		ft__emit(c, line, "roce.gid.index", true, (double)idx, NULL, t[3]);
		/* the IPv4 column is empty for link-local GIDs */
		if (memchr(t[4].p, '.', t[4].n)) {
			ft__emit(c, line, "roce.gid.ipv4", true, (double)idx, NULL, t[4]);
			vi = 5;
		}
		if (vi < n)
			ft__emit(c, line, "roce.gid.version", true, (double)idx, NULL, t[vi]);
		if (vi + 1 < n)
			ft__emit(c, line, "roce.gid.netdev", true, (double)idx, NULL, t[vi + 1]);
		return true;
	}
	return false;
}

FT__LINES_RUN(show_gids, "not show_gids output")

FT__PARSER(show_gids, "show_gids", "show_gids: RoCE GID table (index, GID, IPv4, v1/v2, netdev)",
           { 95, { "n_gids_found=" } }, { 90, { "DEV\tPORT\tINDEX\tGID|PORT\tINDEX\tGID" } });

/* SPDX-License-Identifier: MIT */
/*
 * parse/smpquery_pkeys.c - `smpquery PKeyTable ADDR [PORT]` (alias `pkeys`)
 * from infiniband-diags: the P_Key table the subnet manager programmed into
 * a port, eight entries a line after their index, then the table's size:
 *
 *   $ smpquery PKeyTable 5
 *      0: 0x7fff 0x0030 0x0000 0x0000 0x0000 0x0000 0x0000 0x0000
 *      8: 0x0000 ...
 *   64 pkeys capacity for this port
 *
 * Keys, device = the address queried ("LID 5", or the GUID or route as
 * written), port = the port argument when given: ib.pkey.<index> for each
 * entry that is not empty (num = the P_Key with its membership bit, str as
 * printed: the low 15 bits name the partition, bit 15 set is full
 * membership, IB-PKEY), ib.pkey.capacity (entries). A table without its
 * command line is read under device "?" rather than dropped.
 */
#include "parse_int.h"

/* "smpquery [-C mlx5_0 -P 1] PKeyTable 5 [1]": the address and port queried. */
static bool
command(struct ft__pctx *c, struct ft__span cmd)
{
	struct ft__span rest = cmd, w, addr = FT__NOSTR;
	uint64_t port;
	bool seen = false, guid = false;

	c->port = -1;
	while (ft__token(&rest, &w)) {
		if (ft__eq(w, "PKeyTable") || ft__eq(w, "pkeys") || ft__eq(w, "PKeys")) {
			seen = true;
			continue;
		}
		if (ft__eq(w, "-G") || ft__eq(w, "--Guid"))
			guid = true;
		if (!seen || w.p[0] == '-')
			continue;
		if (!addr.p) {
			addr = w;
			continue;
		}
		if (ft__u64(w, &port) && port < 256)
			c->port = (int)port;
		break;
	}
	if (!seen)
		return false;
	if (addr.p && !guid && ft__u64(addr, &port))
		snprintf(c->device, sizeof(c->device), "LID %llu", (unsigned long long)port);
	else
		ft__copy(c->device, sizeof(c->device), addr.p ? addr : ft__span_c("?"));
	return true;
}

/* "   8: 0x0000 0x8030 ...": the non-empty entries from index 8 on. */
static bool
table_line(struct ft__pctx *c, uint32_t line, struct ft__span s)
{
	struct ft__span idx, val, rest;
	uint64_t base, pkey;
	char key[32];
	unsigned k = 0;

	if (!ft__split(s, ':', &idx, &rest) || !ft__u64(idx, &base) || base > 0xffff ||
	    !ft__starts(rest, "0x"))
		return false;
	if (!c->device[0])
		ft__copy(c->device, sizeof(c->device), ft__span_c("?"));
	while (ft__token(&rest, &val)) {
		if (!ft__u64(val, &pkey) || pkey > 0xffff) {
			ft__skipped(c, line, "not a 16-bit P_Key", val);
			return true;
		}
		if (pkey & 0x7fff) {
			snprintf(key, sizeof(key), "ib.pkey.%llu", (unsigned long long)(base + k));
			ft__emit(c, line, key, true, (double)pkey, NULL, val);
		}
		k++;
	}
	return true;
}

int
ft__smpquery_pkeys_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it;
	struct ft__span raw, cmd, rest;
	double n;

	ft__lines_init(&it, text, len, c->line0);
	ft__pctx_entity(c, "", -1);
	while (ft__lines_next(&it, &raw) && !c->rc) {
		struct ft__span s = ft__trim(raw);

		if (ft__is_prompt(raw, &cmd)) {
			if (!command(c, cmd))
				ft__pctx_entity(c, "", -1);
			continue;
		}
		if (table_line(c, it.lineno, s))
			continue;
		if (ft__find(s, "pkeys capacity") && ft__lead_dbl(s, &n, &rest))
			ft__emit_num(c, it.lineno, "ib.pkey.capacity", n, "count");
	}
	return c->rc;
}

static const struct ft__sniff_mark smpquery_pkeys_marks[] = {
	{ 92, { "pkeys capacity for this port", NULL } },
	{ 85, { "smpquery", "PKeyTable" } },
	{ 85, { "smpquery", "pkeys" } },
};

FT__DEFINE_MARKED_PARSER(smpquery_pkeys, "smpquery-pkeys",
			 "smpquery PKeyTable (pkeys): a port's P_Key table, membership per entry",
			 smpquery_pkeys_marks)

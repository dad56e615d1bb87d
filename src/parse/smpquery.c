/* SPDX-License-Identifier: MIT */
/*
 * parse/smpquery.c - the tables infiniband-diags' smpquery reads from a
 * port: `smpquery PKeyTable ADDR [PORT]` (alias `pkeys`), the P_Key table
 * the subnet manager programmed, eight entries a line after their index,
 * then the table's size; and `smpquery SL2VLTable ADDR [PORT]` (alias
 * `sl2vl`), the VL each service level is sent on, one row per input port:
 *
 *   $ smpquery PKeyTable 5
 *      0: 0x7fff 0x0030 0x0000 0x0000 0x0000 0x0000 0x0000 0x0000
 *      8: 0x0000 ...
 *   64 pkeys capacity for this port
 *   $ smpquery sl2vl 1 1
 *   # SL2VL table: Lid 1
 *   #                 SL: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14|15|
 *   ports: in  0, out  1: | 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0| 1| 0| 1|
 *
 * Keys, device = the address queried ("LID 5", or the GUID or route as
 * written), port = the port argument when given: ib.pkey.<index> for each
 * entry that is not empty (num = the P_Key with its membership bit, str as
 * printed: the low 15 bits name the partition, bit 15 set is full
 * membership, IB-PKEY), ib.pkey.capacity (entries); ib.sl2vl.sl<N> per
 * SL2VL row (num = the VL of service level N, port = the output port, str =
 * "in I", the input port: a switch prints a row per input port; a CA's
 * single row has in and out 0 or its port). A table without its command
 * line is read under device "?" rather than dropped.
 */
#include "dotted.h"

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

/* "ports: in  0, out  1: | 0| 1| ... |15|": one VL per service level. */
static bool
sl2vl_row(struct ft__pctx *c, uint32_t line, struct ft__span s)
{
	struct ft__span head, cells, in, out, cell;
	char key[32], str[16];
	uint64_t vin, vout, vl;
	unsigned sl = 0;

	if (!ft__starts(s, "ports:") || !ft__split(ft__skip(s, 6), '|', &head, &cells) ||
	    !ft__split(head, ',', &in, &out) || !ft__starts(in, "in") || !ft__starts(out, "out") ||
	    !ft__u64(ft__trim(ft__skip(in, 2)), &vin) ||
	    !ft__split(ft__skip(out, 3), ':', &out, &head) || !ft__u64(out, &vout) || vout > 255)
		return false;
	c->port = (int)vout;
	snprintf(str, sizeof(str), "in %u", (unsigned)(vin & 0xff));
	if (!c->device[0])
		ft__copy(c->device, sizeof(c->device), ft__span_c("?"));
	/* "| 0| 1|...|" was split at its first '|': what is left is "0| 1| ... 1|" */
	while (sl < 16 && ft__split(cells, '|', &cell, &cells)) {
		if (!ft__u64(cell, &vl) || vl > 15) {
			ft__skipped(c, line, "not a VL (0-15)", cell);
			return true;
		}
		snprintf(key, sizeof(key), "ib.sl2vl.sl%u", sl++);
		ft__emit(c, line, key, true, (double)vl, NULL, ft__span_c(str));
	}
	return true;
}

int
ft__smpquery_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it;
	struct ft__span raw, cmd, rest;
	double n;

	ft__lines_init(&it, text, len, c->line0);
	ft__pctx_entity(c, "", -1);
	while (ft__lines_next(&it, &raw) && !c->rc) {
		struct ft__span s = ft__trim(raw);

		/* "# SL2VL table: Lid 1" names the port; "#   SL: | 0| 1|..." is a header */
		if (ft__lid_header(c, s) || (ft__starts(s, "#") && ft__find(s, "SL:")))
			continue;
		if (ft__is_prompt(raw, &cmd)) {
			if (!command(c, cmd))
				ft__pctx_entity(c, "", -1);
			continue;
		}
		if (table_line(c, it.lineno, s) || sl2vl_row(c, it.lineno, s))
			continue;
		if (ft__find(s, "pkeys capacity") && ft__lead_dbl(s, &n, &rest))
			ft__emit_num(c, it.lineno, "ib.pkey.capacity", n, "count");
	}
	return c->rc;
}

FT__PARSER(smpquery, "smpquery",
           "smpquery PKeyTable and SL2VLTable: a port's P_Keys and its SL-to-VL map",
           { 92, { "pkeys capacity for this port" } },
           { 85, { "smpquery", "PKeyTable" } },
           { 85, { "smpquery", "pkeys" } },
           { 92, { "# SL2VL table: Lid" } },
           { 85, { "smpquery", "sl2vl" } });

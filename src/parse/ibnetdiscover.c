/* SPDX-License-Identifier: MIT */
/*
 * parse/ibnetdiscover.c - `ibnetdiscover -p` (--ports): one line per port,
 *   CA 134 1 0xguid 4x EDR - SW 1719 10 0xguid ( 'local name' - 'peer name' )
 * or, for a port with no peer, "SW 2052 37 0xguid 4x ??? 'name'".
 *
 * Per port: `ib.port.width_active`, `ib.port.speed_active` (as printed: EDR,
 * HDR, "???" when unknown), `ib.port.lid`, `ib.port.node_type` (SW, CA or RT: a
 * switch, a host channel adapter or a router), and `ib.link.peer` ("'name' lid/port",
 * or "none"); a link's peer type is its own line's `ib.port.node_type`. The entity is the node's name when quoted, else its GUID.
 */
#include "parse_int.h"

static bool
quoted(struct ft__span s, size_t nth, struct ft__span *out)
{
	for (size_t i = 0; i <= nth; i++) {
		const char *a = memchr(s.p, '\'', s.n), *b;

		if (!a)
			return false;
		s = ft__skip(s, (size_t)(a - s.p) + 1);
		b = memchr(s.p, '\'', s.n);
		if (!b)
			return false;
		*out = (struct ft__span){ s.p, (size_t)(b - s.p) };
		s = ft__skip(s, out->n + 1);
	}
	return true;
}

static bool
ibnetdiscover_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	struct ft__span rest = s, t[10], name;
	size_t n = 0;
	uint64_t lid, port;

	(void)state;
	while (n < 10 && ft__token(&rest, &t[n]) && t[n].p[0] != '(' && t[n].p[0] != '\'')
		n++;
	if (n >= 6 && (ft__eq(t[0], "CA") || ft__eq(t[0], "SW") || ft__eq(t[0], "RT")) &&
	    ft__u64(t[1], &lid) && ft__u64(t[2], &port) && port < 256 && ft__starts(t[3], "0x")) {
		if (quoted(s, 0, &name))
			ft__copy(c->device, sizeof(c->device), name);
		else
			ft__copy(c->device, sizeof(c->device), t[3]);
		c->port = (int)port;
		ft__emit_num(c, line, "ib.port.lid", (double)lid, NULL);
		ft__emit_str(c, line, "ib.port.node_type", t[0]);
		{
			/* "4x" as ibstat and iblinkinfo write it: "4X" */
			char w[8];

			ft__copy(w, sizeof(w), t[4]);
			for (char *q = w; *q; q++)
				if (*q == 'x')
					*q = 'X';
			ft__emit_cstr(c, line, "ib.port.width_active", w);
		}
		ft__emit_str(c, line, "ib.port.speed_active", t[5]);
		if (n >= 10 && ft__eq(t[6], "-")) {
			char peer[160];
			struct ft__span pn = FT__NOSTR;

			if (!quoted(s, 1, &pn))
				pn = t[9];
			snprintf(peer, sizeof(peer), "'%.*s' %.*s/%.*s", (int)pn.n, pn.p,
			         (int)t[8].n, t[8].p, (int)t[9].n, t[9].p);
			if (ft__u64(t[8], &lid) && ft__u64(t[9], &port))
				snprintf(peer, sizeof(peer), "'%.*s' %" PRIu64 "/%" PRIu64,
				         (int)pn.n, pn.p, lid, port);
			ft__emit_cstr(c, line, "ib.link.peer", peer);
		} else {
			ft__emit_cstr(c, line, "ib.link.peer", "none");
		}
		return true;
	}
	return false;
}

FT__LINES_RUN(ibnetdiscover, "not ibnetdiscover -p output")

static int
ibnetdiscover_sniff(const char *text, size_t len)
{
	struct ft__span s = { text, len }, line;
	struct ft__lines it;
	int hits = 0;

	ft__lines_init(&it, text, len, 0);
	while (ft__lines_next(&it, &line) && it.lineno < 40) {
		line = ft__trim(line);
		if ((ft__starts(line, "CA ") || ft__starts(line, "SW ")) && ft__find(line, " 0x") &&
		    (ft__find(line, "4x") || ft__find(line, "1x") || ft__find(line, "2x")))
			hits++;
	}
	(void)s;
	return hits >= 2 ? 90 : hits ? 60 : 0;
}

FT__PARSER_SNIFF(ibnetdiscover, "ibnetdiscover",
                 "ibnetdiscover -p: one line per port with width, speed and peer",
                 ibnetdiscover_sniff);

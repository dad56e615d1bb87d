/* SPDX-License-Identifier: MIT */
/*
 * parse/iblinkinfo.c - `iblinkinfo`: "CA: name:" and "Switch: guid name:"
 * headers, then one line per port:
 *   [guid] lid port[ ] ==( 4X  10.0 Gbps Active/  LinkUp)==>  lid port[ ] "peer" ( )
 *
 * Per port: `ib.port.state`, `ib.port.phys_state`, `ib.port.width_active`,
 * `ib.port.speed_active` (lane rate, Gbps), `ib.port.rate` (width x lane rate,
 * Gbps; IB-SPEED) and `ib.link.peer` ("name" lid/port). The entity device is
 * the node's name.
 */
#include "parse_int.h"

static void
link_line(struct ft__pctx *c, uint32_t line, struct ft__span s)
{
	const char *lp = ft__find(s, "==("), *rp = ft__find(s, ")==>");
	struct ft__span left, mid, right, tok, st;
	struct ft__span toks[4];
	size_t nt = 0;
	uint64_t u;
	double lane = 0, width = 0;
	const char *slash, *bracket;

	if (!lp || !rp || rp < lp) {
		ft__skipped(c, line, "unknown iblinkinfo line", s);
		return;
	}
	left = (struct ft__span){ s.p, (size_t)(lp - s.p) };
	mid = (struct ft__span){ lp + 3, (size_t)(rp - lp - 3) };
	right = ft__trim((struct ft__span){ rp + 4, (size_t)(s.p + s.n - rp - 4) });
	bracket = memchr(left.p, '[', left.n);
	if (bracket)
		left.n = (size_t)(bracket - left.p);
	while (nt < 4 && ft__token(&left, &toks[nt]))
		nt++;
	if (nt < 2 || !ft__u64(toks[nt - 1], &u) || u > 255) {
		ft__skipped(c, line, "iblinkinfo port number not found", s);
		return;
	}
	c->port = (int)u;
	/* mid: "4X 10.0 Gbps Active/ LinkUp" or "Down/ Polling" */
	slash = memchr(mid.p, '/', mid.n);
	if (!slash) {
		ft__skipped(c, line, "iblinkinfo link state not found", s);
		return;
	}
	st = (struct ft__span){ mid.p, (size_t)(slash - mid.p) };
	{
		struct ft__span before = st, last = FT__NOSTR;
		size_t n = 0;
		struct ft__span w[4];

		while (ft__token(&before, &tok)) {
			if (n < 4)
				w[n++] = tok;
			last = tok;
		}
		if (last.p)
			ft__emit_str(c, line, "ib.port.state", last);
		if (n >= 3) {
			ft__emit_str(c, line, "ib.port.width_active", w[0]);
			if (ft__dbl(w[1], &lane))
				ft__emit(c, line, "ib.port.speed_active", true, lane, "Gbps",
				         (struct ft__span){ w[1].p,
				                            (size_t)(w[2].p + w[2].n - w[1].p) });
			if (w[0].n >= 2 &&
			    ft__dbl((struct ft__span){ w[0].p, w[0].n - 1 }, &width) && lane > 0)
				ft__emit_num(c, line, "ib.port.rate", width * lane, "Gbps");
		}
	}
	ft__emit_str(c, line, "ib.port.phys_state",
	             ft__trim(ft__skip(mid, (size_t)(slash - mid.p) + 1)));
	{
		const char *q = memchr(right.p, '"', right.n);
		char peer[160];

		if (q) {
			struct ft__span pn = ft__skip(right, (size_t)(q - right.p) + 1);
			const char *q2 = memchr(pn.p, '"', pn.n);
			struct ft__span loc = { right.p, (size_t)(q - right.p) }, lid, port;
			const char *b = memchr(loc.p, '[', loc.n);

			if (b)
				loc.n = (size_t)(b - loc.p);
			pn.n = q2 ? (size_t)(q2 - pn.p) : pn.n;
			if (ft__token(&loc, &lid) && ft__token(&loc, &port))
				snprintf(peer, sizeof(peer), "\"%.*s\" %.*s/%.*s", (int)pn.n, pn.p,
				         (int)lid.n, lid.p, (int)port.n, port.p);
			else
				snprintf(peer, sizeof(peer), "\"%.*s\"", (int)pn.n, pn.p);
			ft__emit_cstr(c, line, "ib.link.peer", peer);
		}
	}
}

static bool
iblinkinfo_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	(void)state;
	if ((ft__starts(s, "CA: ") || ft__starts(s, "Switch: ")) && ft__ends(s, ":")) {
		struct ft__span n = ft__skip(s, ft__starts(s, "CA: ") ? 4 : 8), tok, rest;

		n.n--; /* trailing ':' */
		n = ft__trim(n);
		rest = n;
		if (ft__starts(s, "Switch: ") && ft__token(&rest, &tok) && ft__starts(tok, "0x") &&
		    ft__trim(rest).n)
			n = ft__trim(rest);
		ft__copy(c->device, sizeof(c->device), n);
		c->port = -1;
		return true;
	}
	if (ft__find(s, "==(")) {
		link_line(c, line, s);
		return true;
	}
	return false;
}

FT__LINES_RUN(iblinkinfo, "not iblinkinfo output")

FT__PARSER(iblinkinfo, "iblinkinfo", "iblinkinfo: every link's width, speed, state and peer",
           { 95, { "==(", ")==>" } });

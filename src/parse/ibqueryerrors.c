/* SPDX-License-Identifier: MIT */
/*
 * parse/ibqueryerrors.c - `ibqueryerrors`: per-port lines
 * "GUID 0x... port N: [Counter == value (scaled)] [...]" (port "ALL" with -c),
 * optionally under "Errors for 0x... "node name"" headers.
 *
 * Each bracket becomes `ib.counter.<Counter>` (PortXmitData and PortRcvData
 * in 4-byte words, unit "4B", as perfquery's); the entity is the GUID (or
 * node name when a header gives one) and the port (-1 for ALL). The sweep's
 * errors ("src/query_smp.c:199; umad (...) bad status 110; Connection timed
 * out", "ibwarn: ... failed") become `tool.error`.
 */
#include "parse_int.h"

/*
 * The data counters count octets divided by 4 (IBA vol. 1, PortCounters and
 * PortCountersExtended: PortXmitData, PortRcvData), as perfquery prints them;
 * ibqueryerrors' scaled figure beside them is the bytes ("(17.922PB)").
 */
static bool
is_data(struct ft__span name)
{
	return ft__eq(name, "PortXmitData") || ft__eq(name, "PortRcvData");
}

static void
brackets(struct ft__pctx *c, uint32_t line, struct ft__span s)
{
	const char *open;

	while (s.n && (open = memchr(s.p, '[', s.n))) {
		const char *close;
		struct ft__span in, name, val, tok;
		uint64_t u;
		const char *eq;

		s = ft__skip(s, (size_t)(open - s.p) + 1);
		close = memchr(s.p, ']', s.n);
		if (!close) {
			ft__skipped(c, line, "unterminated counter bracket", s);
			return;
		}
		in = (struct ft__span){ s.p, (size_t)(close - s.p) };
		s = ft__skip(s, in.n + 1);
		eq = ft__find(in, "==");
		if (!eq) {
			ft__skipped(c, line, "counter bracket without ==", in);
			continue;
		}
		name = ft__trim((struct ft__span){ in.p, (size_t)(eq - in.p) });
		val = ft__skip(in, (size_t)(eq - in.p) + 2);
		if (ft__token(&val, &tok) && ft__u64(tok, &u) && name.n)
			ft__emit_named(c, line, "ib.counter.", name, true, (double)u,
			               is_data(name) ? "4B" : "count", FT__NOSTR);
		else
			ft__skipped(c, line, "counter value is not a number", in);
	}
}

/* The node that the "Errors for" header above the GUID lines names. */
struct qstate {
	char node[48];
};

static bool
ibqueryerrors_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	struct qstate *st = state;
	struct ft__span rest, tok;
	uint64_t u;

	if (ft__starts(s, "##"))
		return true;
	/*
	 * libibnetdisc's and libibmad's errors: "src/query_smp.c:199; umad (DR path
	 * slid 0; dlid 0; 0,1,10,19 Attr 0x11:0) bad status 110; Connection timed
	 * out" - a port the sweep could not reach, the tool's error.
	 */
	rest = s;
	if (ft__token(&rest, &tok) && ft__ends(tok, ";") && ft__find(tok, ".c:")) {
		ft__emit_str(c, line, "tool.error", s);
		return true;
	}
	if (ft__ibwarn(c, line, s))
		return true;
	if (ft__starts(s, "Errors for ")) {
		const char *q = memchr(s.p, '"', s.n);

		st->node[0] = '\0';
		if (q) {
			struct ft__span n = ft__skip(s, (size_t)(q - s.p) + 1);
			const char *q2 = memchr(n.p, '"', n.n);

			ft__copy(st->node, sizeof(st->node),
			         (struct ft__span){ n.p, q2 ? (size_t)(q2 - n.p) : n.n });
		}
		return true;
	}
	rest = s;
	if (ft__token(&rest, &tok) && ft__eq(tok, "GUID") && ft__token(&rest, &tok)) {
		struct ft__span port;

		if (st->node[0])
			ft_strlcpy(c->device, st->node, sizeof(c->device));
		else
			ft__copy(c->device, sizeof(c->device), tok);
		c->port = -1;
		if (ft__token(&rest, &tok) && ft__eq(tok, "port") && ft__token(&rest, &port)) {
			if (port.n && port.p[port.n - 1] == ':')
				port.n--;
			if (ft__u64(port, &u) && u < 256)
				c->port = (int)u;
		}
		brackets(c, line, rest);
		return true;
	}
	return false;
}

FT__LINES_RUN_STATE(ibqueryerrors, struct qstate, "not ibqueryerrors output")

FT__PARSER(ibqueryerrors, "ibqueryerrors",
           "ibqueryerrors: fabric-wide ports with error counters over threshold",
           { 90, { "GUID 0x", " port ", " == " } });

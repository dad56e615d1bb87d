/* SPDX-License-Identifier: MIT */
/*
 * parse/mlnx_qos.c - `mlnx_qos -i DEV`: DCBX mode, trust state, the
 * dscp2prio map, PFC per priority and the TC table (ROCE-QOS, ROCE-PFC).
 *
 * Keys: `roce.qos.dcbx`, `roce.qos.trust` (pcp/dscp), `roce.qos.dscp2prio`
 * (number = priority, str = its DSCP values), `roce.qos.pfc_enabled_prios`
 * (str "3" or "3,4"; "" when PFC is off everywhere; number = how many),
 * `roce.qos.cable_len`, `roce.qos.tc` (number = TC, str "tsa ..., prios ...").
 * The device comes from the prompt ("mlnx_qos -i eth4"); shell-trace lines
 * of other commands are passed over, their output lines are reported skipped.
 */
#include "parse_int.h"

static void
device_from_command(struct ft__pctx *c, struct ft__span cmd)
{
	struct ft__span w;
	bool is_qos = false;

	while (ft__token(&cmd, &w)) {
		if (ft__ends(w, "mlnx_qos"))
			is_qos = true;
		else if (is_qos && ft__eq(w, "-i") && ft__token(&cmd, &w))
			ft__copy(c->device, sizeof(c->device), w);
	}
}

struct tc {
	int tc;
	uint32_t line;
	char desc[120];
};

static void
tc_flush(struct ft__pctx *c, struct tc *t)
{
	if (t->tc >= 0)
		ft__emit(c, t->line, "roce.qos.tc", true, t->tc, NULL, ft__span_c(t->desc));
	t->tc = -1;
}

/* What a line leaves for the next: the TC being read, and where in the output we are. */
struct qos {
	struct tc t;
	bool in_qos;  /* past the first mlnx_qos line */
	bool pfc_hdr; /* after the PFC table's "priority" header */
};

static bool
mlnx_qos_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	struct qos *q = state;
	struct ft__span cmd, k, v, tok, rest;
	uint64_t u;

	if (ft__is_prompt(s, &cmd)) {
		tc_flush(c, &q->t);
		device_from_command(c, cmd);
		return true;
	}
	if (ft__starts(s, "DCBX mode:")) {
		tc_flush(c, &q->t);
		q->in_qos = true;
		ft__emit_str(c, line, "roce.qos.dcbx", ft__trim(ft__skip(s, 10)));
		return true;
	}
	if (ft__starts(s, "Priority trust state:") || ft__starts(s, "Priority trust mode:")) {
		q->in_qos = true;
		ft__split(s, ':', &k, &v);
		ft__emit_str(c, line, "roce.qos.trust", v);
		return true;
	}
	if (!q->in_qos) {
		ft__skipped(c, line, "not mlnx_qos output", s);
		return true;
	}
	if (ft__eq(s, "dscp2prio mapping:") || ft__eq(s, "PFC configuration:") ||
	    ft__starts(s, "Receive buffer size") || ft__starts(s, "Buffer ") ||
	    ft__starts(s, "default priority:"))
		return true;
	if (ft__starts(s, "prio:") && ft__find(s, "dscp:")) {
		rest = ft__skip(s, 5);
		if (ft__token(&rest, &tok) && ft__u64(tok, &u)) {
			const char *d = ft__find(s, "dscp:");
			struct ft__span vals = ft__trim(ft__skip(s, (size_t)(d - s.p) + 5));

			if (vals.n && vals.p[vals.n - 1] == ',')
				vals.n--;
			ft__emit(c, line, "roce.qos.dscp2prio", true, (double)u, NULL, vals);
			return true;
		}
	}
	if (ft__starts(s, "Cable len:")) {
		if (ft__u64(ft__skip(s, 10), &u))
			ft__emit_num(c, line, "roce.qos.cable_len", (double)u, "m");
		return true;
	}
	if (ft__starts(s, "priority") && !ft__find(s, ":")) {
		q->pfc_hdr = true;
		return true;
	}
	if (q->pfc_hdr && ft__starts(s, "enabled")) {
		char list[64] = "";
		size_t k2 = 0, nen = 0;
		int prio = 0;

		rest = ft__skip(s, 7);
		while (ft__token(&rest, &tok) && prio < 8) {
			if (ft__eq(tok, "1")) {
				int w = snprintf(list + k2, sizeof(list) - k2, "%s%d",
				                 nen ? "," : "", prio);

				if (w > 0 && (size_t)w < sizeof(list) - k2)
					k2 += (size_t)w;
				nen++;
			}
			prio++;
		}
		ft__emit(c, line, "roce.qos.pfc_enabled_prios", true, (double)nen, "count",
		         ft__span_c(list));
		q->pfc_hdr = false;
		return true;
	}
	if (ft__starts(s, "buffer") || ft__starts(s, "size")) {
		q->pfc_hdr = false;
		return true;
	}
	if (ft__starts(s, "tc:")) {
		tc_flush(c, &q->t);
		rest = ft__skip(s, 3);
		if (ft__token(&rest, &tok) && ft__u64(tok, &u) && u < 16) {
			struct ft__span r = ft__trim(rest);

			q->t.tc = (int)u;
			q->t.line = line;
			snprintf(q->t.desc, sizeof(q->t.desc), "%.*s", (int)r.n, r.p);
			return true;
		}
	}
	if (ft__starts(s, "priority:") && q->t.tc >= 0) {
		size_t l = strlen(q->t.desc);
		struct ft__span r = ft__trim(ft__skip(s, 9));

		snprintf(q->t.desc + l, sizeof(q->t.desc) - l, "%sprios %.*s", l ? ", " : "",
		         (int)r.n, r.p);
		return true;
	}
	tc_flush(c, &q->t);
	return false;
}

int
ft__mlnx_qos_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct qos q = { .t = { .tc = -1 } };

	ft__parse_lines(c, text, len, mlnx_qos_line, &q, "unknown mlnx_qos line");
	tc_flush(c, &q.t);
	return c->rc;
}

FT__PARSER(mlnx_qos, "mlnx_qos", "mlnx_qos: trust mode, dscp2prio, PFC per priority, TCs",
           { 90, { "Priority trust state:|PFC configuration:" } }, { 60, { "mlnx_qos" } });

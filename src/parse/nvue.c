/* SPDX-License-Identifier: MIT */
/*
 * parse/nvue.c - NVIDIA Cumulus Linux NVUE interface counters, the tables
 * `nv show interface ...` prints:
 *
 *   nv show interface IF counters [errors|drops]
 *        "Counter  Receive  Transmit" tables under "Drop Counters",
 *        "Error Counters", ... titles (underlined with '='), indented by 4
 *   nv show interface IF counters qos [pfc-stats|egress-queue-stats|
 *                                      ingress-buffer-stats|port-stats]
 *        "switch-priority rx-pause-frames ..." (PFC per priority),
 *        "traffic-class tx-frames tx-bytes tx-uc-buffer-discards wred-discards",
 *        "priority-group rx-frames rx-buffer-discards rx-shared-buffer-discards",
 *        "Counter Receive Transmit" (ECN marked packets, pause frames)
 *   nv show interface --view counters
 *        "Interface MTU RX_OK RX_ERR RX_DRP RX_OVR TX_OK TX_ERR TX_DRP TX_OVR Flg"
 *
 * Every table has a line of dashes under its header; the cells of a row lie
 * under the dashes of their column ("0 Bytes" holds a space), and "n/a"
 * means the switch has no such counter. The interface is the one the
 * command line names ("cumulus@leaf01:~$ nv show interface swp1 counters");
 * the `--view counters` table names it in its first column. A counters
 * table with no command line naming its interface is skipped
 * (`parse.skipped`): the counters of an unknown port help no one.
 *
 * Keys are those of the SONiC parser (parse/sonic.c), so that the switch
 * rules read both: host = switch, device = switch port,
 *   switch.if.rx_drp / tx_drp      Total Drops (Receive / Transmit)
 *   switch.if.rx_err / tx_err      Total Errors
 *   switch.if.rx_ovr / tx_ovr      the --view counters columns
 *   switch.pfc.rx_prioN / tx_prioN pause frames received / sent per priority
 *   switch.queue.tx_pkts, switch.queue.drop_bytes (tx-uc-buffer-discards),
 *                                  port = traffic class
 * and, for what NVUE shows beyond SONiC's tables:
 *   switch.if.carrier_transitions, switch.if.rx_fcs_err, rx_symbol_err,
 *   rx_buffer_drp, tx_queue_drp, switch.if.tx_ecn_marked,
 *   switch.if.rx_pause / tx_pause (all priorities),
 *   switch.pfc.rx_duration_prioN / tx_duration_prioN (as printed, no unit),
 *   switch.queue.wred_drop_pkts, switch.queue.tx_bytes, port = traffic class,
 *   switch.pg.rx_pkts, switch.pg.rx_buffer_drop_bytes,
 *   switch.pg.rx_shared_drop_bytes, port = priority group.
 * Sizes are read when printed in bytes ("0 Bytes"); a scaled size ("9.73 MB")
 * keeps its text only, since NVUE does not say which multiple it rounds to.
 */
#include "parse_int.h"

#define NVUE_MAXCOLS 12

enum nvue_table {
	NV_NONE,
	NV_RXTX,  /* Counter  Receive  Transmit */
	NV_OPER,  /* name  operational  applied [pending] */
	NV_PFC,   /* switch-priority ... */
	NV_QUEUE, /* traffic-class ... */
	NV_PG,    /* priority-group ... */
	NV_VIEW,  /* Interface MTU RX_OK ... (--view counters) */
};

struct nvue_cols {
	enum nvue_table kind;
	size_t n;
	size_t from[NVUE_MAXCOLS], to[NVUE_MAXCOLS]; /* byte spans of the dashes */
	char head[NVUE_MAXCOLS][32];
};

/*
 * The columns of the dashes line @d; false unless @d is dashes and spaces
 * with at least two runs. The last run may be shorter than the cells under
 * it: its span extends to the end of any row.
 */
static bool
dash_columns(struct ft__span d, struct nvue_cols *t)
{
	size_t i;
	bool in = false;

	t->n = 0;
	for (i = 0; i < d.n; i++) {
		char ch = d.p[i];

		if (ch != '-' && ch != ' ')
			return false;
		if (ch == '-' && !in) {
			if (t->n == NVUE_MAXCOLS)
				return false;
			t->from[t->n] = i;
			in = true;
		} else if (ch == ' ' && in) {
			t->to[t->n++] = i;
			in = false;
		}
	}
	if (in)
		t->to[t->n++] = d.n;
	if (t->n)
		t->to[t->n - 1] = SIZE_MAX;
	return t->n >= 2;
}

static struct ft__span
col(struct ft__span r, const struct nvue_cols *t, size_t k)
{
	size_t a = t->from[k], b = t->to[k] < r.n ? t->to[k] : r.n;

	return a < b ? ft__trim((struct ft__span){ r.p + a, b - a }) : FT__NOSTR;
}

/* The table kind from its header's first two cells. */
static void
classify(struct ft__span header, struct nvue_cols *t)
{
	static const struct {
		const char *first, *second;
		enum nvue_table kind;
	} kinds[] = {
		{ "Counter", "Receive", NV_RXTX },
		{ "", "operational", NV_OPER },
		{ "switch-priority", "rx-pause-frames", NV_PFC },
		{ "traffic-class", "tx-frames", NV_QUEUE },
		{ "priority-group", "rx-frames", NV_PG },
		{ "Interface", "MTU", NV_VIEW },
	};
	size_t k, i;

	for (k = 0; k < t->n; k++)
		ft__copy(t->head[k], sizeof(t->head[k]), col(header, t, k));
	t->kind = NV_NONE;
	for (i = 0; i < FT_ARRAY_SIZE(kinds); i++)
		if (strcmp(t->head[0], kinds[i].first) == 0 &&
		    strcmp(t->head[1], kinds[i].second) == 0)
			t->kind = kinds[i].kind;
}

/* "1,234" / "17" -> 17; "0 Bytes" -> 0 with *@bytes set; false for "n/a", "9.73 MB". */
static bool
count_cell(struct ft__span v, double *out, bool *bytes)
{
	struct ft__span rest;
	char buf[40];
	size_t i, n = 0;

	*bytes = false;
	for (i = 0; i < v.n && n + 1 < sizeof(buf); i++)
		if (v.p[i] != ',')
			buf[n++] = v.p[i];
	if (i < v.n || !ft__lead_dbl((struct ft__span){ buf, n }, out, &rest))
		return false;
	rest = ft__trim(rest);
	if (ft__eq(rest, "Bytes") || ft__eq(rest, "Byte")) {
		*bytes = true;
		return true;
	}
	return rest.n == 0;
}

/* @v under @key; a plain number gets @unit ("count", or NULL when NVUE prints none). */
static void
emit_cell(struct ft__pctx *c, uint32_t line, const char *key, struct ft__span v,
	  const char *unit)
{
	double num;
	bool bytes;

	if (!v.n || ft__eq(v, "n/a"))
		return;
	if (count_cell(v, &num, &bytes))
		ft__emit(c, line, key, true, num, bytes ? "bytes" : unit, FT__NOSTR);
	else
		ft__emit_str(c, line, key, v);
}

/* "ECN Marked Packets" and "ecn-marked-packets" are one name. */
static bool
name_is(struct ft__span s, const char *want)
{
	size_t i;

	if (s.n != strlen(want))
		return false;
	for (i = 0; i < s.n; i++) {
		char a = s.p[i] == ' ' ? '-' : s.p[i];

		if (a >= 'A' && a <= 'Z')
			a = (char)(a - 'A' + 'a');
		if (a != want[i])
			return false;
	}
	return true;
}

/* Rows of the "Counter Receive Transmit" tables that carry a key, per direction. */
static const struct {
	const char *name;
	const char *rx, *tx;
} rxtx_keys[] = {
	{ "total-drops", "switch.if.rx_drp", "switch.if.tx_drp" },
	{ "total-errors", "switch.if.rx_err", "switch.if.tx_err" },
	{ "fcs-errors", "switch.if.rx_fcs_err", NULL },
	{ "symbol-errors", "switch.if.rx_symbol_err", NULL },
	{ "buffer-drops", "switch.if.rx_buffer_drp", NULL },
	{ "queue-drops", NULL, "switch.if.tx_queue_drp" },
	{ "ecn-marked-packets", NULL, "switch.if.tx_ecn_marked" },
	{ "pause-frames", "switch.if.rx_pause", "switch.if.tx_pause" },
};

/* The per-row keys of the tables indexed by priority, class or group: one per column. */
static const struct {
	enum nvue_table kind;
	const char *head, *key; /* key: printf pattern taking the row's number when "%" */
	const char *unit;
} indexed_keys[] = {
	{ NV_PFC, "rx-pause-frames", "switch.pfc.rx_prio%u", "count" },
	{ NV_PFC, "tx-pause-frames", "switch.pfc.tx_prio%u", "count" },
	{ NV_PFC, "rx-pause-duration", "switch.pfc.rx_duration_prio%u", NULL },
	{ NV_PFC, "tx-pause-duration", "switch.pfc.tx_duration_prio%u", NULL },
	{ NV_QUEUE, "tx-frames", "switch.queue.tx_pkts", "count" },
	{ NV_QUEUE, "tx-bytes", "switch.queue.tx_bytes", "count" },
	{ NV_QUEUE, "tx-uc-buffer-discards", "switch.queue.drop_bytes", "count" },
	{ NV_QUEUE, "wred-discards", "switch.queue.wred_drop_pkts", "count" },
	{ NV_PG, "rx-frames", "switch.pg.rx_pkts", "count" },
	{ NV_PG, "rx-buffer-discards", "switch.pg.rx_buffer_drop_bytes", "count" },
	{ NV_PG, "rx-shared-buffer-discards", "switch.pg.rx_shared_drop_bytes", "count" },
};

static void
row_rxtx(struct ft__pctx *c, uint32_t line, struct ft__span r, const struct nvue_cols *t)
{
	struct ft__span name = col(r, t, 0);

	for (size_t i = 0; i < FT_ARRAY_SIZE(rxtx_keys); i++) {
		if (!name_is(name, rxtx_keys[i].name))
			continue;
		if (rxtx_keys[i].rx)
			emit_cell(c, line, rxtx_keys[i].rx, col(r, t, 1), "count");
		if (rxtx_keys[i].tx && t->n > 2)
			emit_cell(c, line, rxtx_keys[i].tx, col(r, t, 2), "count");
		return;
	}
}

static void
row_indexed(struct ft__pctx *c, uint32_t line, struct ft__span r, const struct nvue_cols *t)
{
	uint64_t idx;
	char key[64];

	if (!ft__u64(col(r, t, 0), &idx) || idx > 15)
		return;
	c->port = t->kind == NV_PFC ? -1 : (int)idx;
	for (size_t k = 1; k < t->n; k++)
		for (size_t i = 0; i < FT_ARRAY_SIZE(indexed_keys); i++) {
			if (indexed_keys[i].kind != t->kind ||
			    strcmp(indexed_keys[i].head, t->head[k]) != 0)
				continue;
			snprintf(key, sizeof(key), indexed_keys[i].key, (unsigned)idx);
			emit_cell(c, line, key, col(r, t, k), indexed_keys[i].unit);
		}
	c->port = -1;
}

/* "swp1  9216  721  0  0  0  1091  0  0  0  BMsRU": the port is the first cell. */
static void
row_view(struct ft__pctx *c, uint32_t line, struct ft__span r, const struct nvue_cols *t)
{
	char saved[sizeof(c->device)], key[48];

	memcpy(saved, c->device, sizeof(saved));
	ft__copy(c->device, sizeof(c->device), col(r, t, 0));
	for (size_t k = 1; k < t->n && c->device[0]; k++) {
		const char *h = t->head[k];
		size_t i;

		if (strlen(h) != 6 || (strncmp(h, "RX_", 3) != 0 && strncmp(h, "TX_", 3) != 0) ||
		    strcmp(h + 3, "OK") == 0)
			continue;
		snprintf(key, sizeof(key), "switch.if.%s", h);
		for (i = strlen("switch.if."); key[i]; i++)
			key[i] = (char)(key[i] >= 'A' && key[i] <= 'Z' ? key[i] - 'A' + 'a' : key[i]);
		emit_cell(c, line, key, col(r, t, k), "count");
	}
	memcpy(c->device, saved, sizeof(saved));
}

static void
row(struct ft__pctx *c, uint32_t line, struct ft__span r, const struct nvue_cols *t)
{
	if (t->kind == NV_VIEW) {
		row_view(c, line, r, t);
		return;
	}
	if (!c->device[0]) {
		ft__skipped(c, line, "no 'nv show interface IF ...' line names the port", r);
		return;
	}
	if (t->kind == NV_RXTX)
		row_rxtx(c, line, r, t);
	else if (t->kind == NV_OPER && name_is(col(r, t, 0), "carrier-transitions"))
		emit_cell(c, line, "switch.if.carrier_transitions", col(r, t, 1), "count");
	else if (t->kind != NV_OPER)
		row_indexed(c, line, r, t);
}

/*
 * "cumulus@leaf01:mgmt:~$ nv show interface swp1 counters qos": the switch
 * (between '@' and ':' or the prompt sign) and the interface (the word after
 * "interface" unless it is an option). False when the line runs no `nv show`.
 */
static bool
command_line(struct ft__pctx *c, struct ft__span s)
{
	const char *nv = ft__find(s, "nv show ");
	const char *at = memchr(s.p, '@', s.n);
	struct ft__span rest, w;

	if (!nv || (nv > s.p && nv[-1] != ' '))
		return false;
	if (at && at < nv) {
		size_t n = 0;

		at++;
		while (at + n < nv && at[n] != ':' && at[n] != '$' && at[n] != '#' && at[n] != ' ')
			n++;
		ft__copy(c->host, sizeof(c->host), (struct ft__span){ at, n });
	}
	c->device[0] = '\0';
	rest = ft__skip(s, (size_t)(nv - s.p) + strlen("nv show "));
	if (ft__token(&rest, &w) && ft__eq(w, "interface") && ft__token(&rest, &w) &&
	    w.p[0] != '-')
		ft__copy(c->device, sizeof(c->device), w);
	return true;
}

int
ft__nvue_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it;
	struct ft__span raw, prev = FT__NOSTR;
	struct nvue_cols t;

	memset(&t, 0, sizeof(t));
	ft__lines_init(&it, text, len, c->line0);
	while (ft__lines_next(&it, &raw) && !c->rc) {
		struct ft__span s = ft__trim(raw);

		if (!s.n || s.p[0] == '=' || command_line(c, s)) {
			t.kind = NV_NONE;
			prev = FT__NOSTR;
			continue;
		}
		if (prev.p && t.kind == NV_NONE && dash_columns(raw, &t)) {
			classify(prev, &t);
			prev = FT__NOSTR;
			continue;
		}
		if (t.kind != NV_NONE && !ft__eq(s, "..."))
			row(c, it.lineno, raw, &t);
		else
			prev = raw;
	}
	return c->rc;
}

/*
 * Marks of the tables, with the confidence they give: a command line that
 * names NVUE and one of its table headers, or a header no other tool prints.
 */
FT__PARSER(nvue, "nvue",
           "Cumulus Linux NVUE: nv show interface IF counters [errors|drops|qos ...], --view counters",
           { 92, { "nv show interface", "Receive  Transmit" } },
           { 92, { "nv show interface", "switch-priority" } },
           { 92, { "nv show interface", "traffic-class" } },
           { 92, { "nv show interface", "priority-group" } },
           { 92, { "nv show interface", "RX_DRP" } },
           { 88, { "rx-pause-frames  rx-pause-duration" } },
           { 88, { "tx-uc-buffer-discards" } },
           { 88, { "rx-shared-buffer-discards" } },
           { 80, { "Receive  Transmit", "Total Drops" } },
           { 80, { "Receive  Transmit", "Total Errors" } },
           { 80, { "Receive  Transmit", "ECN Marked Packets" } });

/* SPDX-License-Identifier: MIT */
/*
 * parse/sonic.c - SONiC switch counters, the tables its CLI prints:
 *
 *   show pfc counters            "Port Rx  PFC0 ... PFC7" / "Port Tx ..." per port
 *   show pfcwd stats             "QUEUE STATUS STORM DETECTED/RESTORED TX OK/DROP ..."
 *   show interfaces counters     "IFACE STATE RX_OK RX_BPS ... RX_DRP ... TX_DRP ..."
 *   show queue counters          "Port TxQ Counter/pkts Counter/bytes Drop/pkts Drop/bytes"
 *   show queue wredcounters      "Port TxQ WredDrp/pkts WredDrp/bytes EcnMarked/pkts
 *                                 EcnMarked/bytes"
 *   show interfaces counters fec-stats
 *                                "IFACE STATE FEC_CORR FEC_UNCORR ... FEC_PRE_BER FEC_POST_BER"
 *   show queue watermark unicast "Port UC0 ... UC7" (peak bytes per unicast queue)
 *   show lldp table              "LocalPort RemoteDevice RemotePortID Capability RemotePortDescr"
 *
 * Columns are found from the dashed line under each header (cells are
 * aligned to it), so values with spaces ("286.58 KB/s") stay in their
 * column; numbers may carry thousands separators ("9,268,210"). Keys, device
 * = switch port, port = queue for pfcwd: switch.pfc.rx_prioN /
 * switch.pfc.tx_prioN (frames), switch.pfcwd.status (str), switch.pfcwd.storms
 * (detected), switch.pfcwd.tx_drop / rx_drop, the last storm's (its detection to its
 * restoration, SONiC's TX/RX LAST OK/DROP) switch.pfcwd.tx_last_ok / tx_last_drop /
 * rx_last_ok / rx_last_drop, switch.if.<column> (lower case:
 * rx_err, rx_drp, rx_ovr, tx_err, tx_drp, tx_ovr, fec_corr, fec_uncorr,
 * fec_symbol_err, fec_pre_ber, fec_post_ber). The host is the switch name of
 * a "user@host" prompt. Queue rows: switch.queue.tx_pkts, switch.queue.tx_bytes,
 * switch.queue.drop_pkts, switch.queue.drop_bytes and, from the WRED table,
 * switch.queue.wred_drop_pkts, switch.queue.wred_drop_bytes,
 * switch.queue.ecn_marked_pkts, switch.queue.ecn_marked_bytes; port = the queue
 * number, str = "UC1" / "MC8".
 * `show queue watermark unicast` ("Port UC0 ... UC7", the most bytes each unicast queue
 * held): switch.queue.watermark_bytes, port = the queue number, str = "UC3".
 * LLDP rows: switch.lldp.remote_device and switch.lldp.remote_port (str), device
 * = the local port: who is behind each port (the table's closing dashes and
 * "Total entries displayed" line are not rows).
 */
#include "parse_int.h"

#define SONIC_MAXCOLS 16

enum table { T_NONE, T_PFC, T_PFCWD, T_IF, T_QUEUE, T_LLDP, T_WATERMARK };

struct cols {
	size_t n;
	size_t start[SONIC_MAXCOLS], end[SONIC_MAXCOLS];
	char name[SONIC_MAXCOLS][40];
	enum table kind;
	bool tx; /* T_PFC: the "Port Tx" table */
};

/* A line of dashes and spaces only: the column spans of the table above it. */
static bool
dash_spans(struct ft__span raw, struct cols *t)
{
	size_t i = 0, n = 0;

	if (!raw.n)
		return false;
	for (i = 0; i < raw.n; i++)
		if (raw.p[i] != '-' && raw.p[i] != ' ')
			return false;
	for (i = 0; i < raw.n && n < SONIC_MAXCOLS;) {
		while (i < raw.n && raw.p[i] == ' ')
			i++;
		if (i >= raw.n)
			break;
		t->start[n] = i;
		while (i < raw.n && raw.p[i] == '-')
			i++;
		t->end[n++] = i;
	}
	t->n = n;
	return n >= 2;
}

/* Cell @k of @row: the text inside the column's span, trimmed. */
static struct ft__span
cell(struct ft__span row, const struct cols *t, size_t k)
{
	size_t a = t->start[k], b = t->end[k];

	if (a >= row.n)
		return FT__NOSTR;
	if (b > row.n)
		b = row.n;
	return ft__trim((struct ft__span){ row.p + a, b - a });
}

/* "9,268,210" / "1.18e-12" / "0.00e+00": a number, thousands separators dropped. */
static bool
num_cell(struct ft__span v, double *out)
{
	char buf[48];
	size_t i, n = 0;

	if (!v.n || v.n >= sizeof(buf))
		return false;
	for (i = 0; i < v.n; i++)
		if (v.p[i] != ',')
			buf[n++] = v.p[i];
	buf[n] = '\0';
	return ft__dbl((struct ft__span){ buf, n }, out);
}

static void
name_columns(struct ft__span header, struct cols *t)
{
	size_t k;

	t->kind = T_NONE;
	for (k = 0; k < t->n; k++) {
		/* headers are left or right aligned: take the header words that overlap the span */
		size_t a = t->start[k], b = t->end[k];
		struct ft__span h;

		if (a >= header.n) {
			t->name[k][0] = '\0';
			continue;
		}
		if (b > header.n)
			b = header.n;
		h = ft__trim((struct ft__span){ header.p + a, b - a });
		ft__copy(t->name[k], sizeof(t->name[k]), h);
	}
	if (t->n >= 9 && strcmp(t->name[1], "PFC0") == 0) {
		t->kind = T_PFC;
		t->tx = strstr(t->name[0], "Tx") != NULL;
	} else if (strcmp(t->name[0], "QUEUE") == 0 && t->n >= 4) {
		t->kind = T_PFCWD;
	} else if (strcmp(t->name[0], "IFACE") == 0) {
		t->kind = T_IF;
	} else if (strcmp(t->name[0], "LocalPort") == 0 && t->n >= 3 &&
		   strcmp(t->name[1], "RemoteDevice") == 0) {
		t->kind = T_LLDP;
	} else if (strcmp(t->name[0], "Port") == 0 && t->n >= 6 &&
		   strcmp(t->name[1], "TxQ") == 0) {
		t->kind = T_QUEUE;
	} else if (strcmp(t->name[0], "Port") == 0 && t->n >= 2 &&
		   strcmp(t->name[1], "UC0") == 0) {
		t->kind = T_WATERMARK;
	}
}

/* "Ethernet4:3" -> device Ethernet4, port 3. */
static void
set_port(struct ft__pctx *c, struct ft__span p)
{
	const char *colon = p.n ? memchr(p.p, ':', p.n) : NULL;
	uint64_t q;

	c->port = -1;
	if (colon && ft__u64((struct ft__span){ colon + 1, (size_t)(p.p + p.n - colon - 1) }, &q) &&
	    q < 64) {
		c->port = (int)q;
		p.n = (size_t)(colon - p.p);
	}
	ft__copy(c->device, sizeof(c->device), p);
}

static void
row(struct ft__pctx *c, uint32_t line, struct ft__span r, const struct cols *t)
{
	size_t k;
	double v;
	char key[64];

	if (t->kind == T_LLDP) {
		struct ft__span lp = cell(r, t, 0), dev = cell(r, t, 1);

		if (!lp.n || lp.p[0] == '-' || ft__starts(lp, "Total") || !dev.n)
			return;
	}
	set_port(c, cell(r, t, 0));
	if (!c->device[0])
		return;
	switch (t->kind) {
	case T_LLDP:
		ft__emit_str(c, line, "switch.lldp.remote_device", cell(r, t, 1));
		if (cell(r, t, 2).n)
			ft__emit_str(c, line, "switch.lldp.remote_port", cell(r, t, 2));
		break;
	case T_PFC:
		for (k = 1; k < t->n && k <= 8; k++)
			if (num_cell(cell(r, t, k), &v)) {
				snprintf(key, sizeof(key), "switch.pfc.%s_prio%zu", t->tx ? "tx" : "rx",
					 k - 1);
				ft__emit(c, line, key, true, v, "count", FT__NOSTR);
			}
		break;
	case T_PFCWD:
		for (k = 1; k < t->n; k++) {
			struct ft__span x = cell(r, t, k);
			const char *slash = x.n ? memchr(x.p, '/', x.n) : NULL;
			double a = 0, b = 0;

			if (strcmp(t->name[k], "STATUS") == 0) {
				ft__emit_str(c, line, "switch.pfcwd.status", x);
				continue;
			}
			if (!slash ||
			    !num_cell((struct ft__span){ x.p, (size_t)(slash - x.p) }, &a) ||
			    !num_cell((struct ft__span){ slash + 1, (size_t)(x.p + x.n - slash - 1) },
				      &b))
				continue;
			if (strstr(t->name[k], "STORM"))
				ft__emit(c, line, "switch.pfcwd.storms", true, a, "count", x);
			else if (strcmp(t->name[k], "TX OK/DROP") == 0)
				ft__emit(c, line, "switch.pfcwd.tx_drop", true, b, "count", x);
			else if (strcmp(t->name[k], "RX OK/DROP") == 0)
				ft__emit(c, line, "switch.pfcwd.rx_drop", true, b, "count", x);
			else if (strcmp(t->name[k], "TX LAST OK/DROP") == 0 ||
			         strcmp(t->name[k], "RX LAST OK/DROP") == 0) {
				/* the last storm's: from its detection to its restoration */
				bool tx = t->name[k][0] == 'T';

				ft__emit(c, line, tx ? "switch.pfcwd.tx_last_ok" : "switch.pfcwd.rx_last_ok",
				         true, a, "count", x);
				ft__emit(c, line,
				         tx ? "switch.pfcwd.tx_last_drop" : "switch.pfcwd.rx_last_drop",
				         true, b, "count", x);
			}
		}
		break;
	case T_IF:
		for (k = 1; k < t->n; k++) {
			const char *n = t->name[k];
			size_t i;

			if (!(strstr(n, "_ERR") || strstr(n, "_DRP") || strstr(n, "_OVR") ||
			      strncmp(n, "FEC_", 4) == 0))
				continue;
			if (!num_cell(cell(r, t, k), &v))
				continue;
			snprintf(key, sizeof(key), "switch.if.%s", n);
			for (i = strlen("switch.if."); key[i]; i++)
				if (key[i] >= 'A' && key[i] <= 'Z')
					key[i] = (char)(key[i] - 'A' + 'a');
			ft__emit(c, line, key, true, v, strstr(n, "BER") ? NULL : "count",
				 cell(r, t, k));
		}
		break;
	case T_QUEUE: {
		/* "Ethernet196  UC1  32025737389  13638863007480  6841131615  2893444514176" */
		struct ft__span q = cell(r, t, 1);
		uint64_t qi;
		size_t skip = ft__starts(q, "UC") || ft__starts(q, "MC") ? 2 : 0;

		if (q.n > skip && ft__u64(ft__skip(q, skip), &qi) && qi < 64)
			c->port = (int)qi;
		for (k = 2; k < t->n; k++) {
			const char *n = t->name[k];
			static const char *const qkeys[][2] = {
				{ "Counter/pkts", "switch.queue.tx_pkts" },
				{ "Counter/bytes", "switch.queue.tx_bytes" },
				{ "Drop/pkts", "switch.queue.drop_pkts" },
				{ "Drop/bytes", "switch.queue.drop_bytes" },
				{ "WredDrp/pkts", "switch.queue.wred_drop_pkts" },
				{ "WredDrp/bytes", "switch.queue.wred_drop_bytes" },
				{ "EcnMarked/pkts", "switch.queue.ecn_marked_pkts" },
				{ "EcnMarked/bytes", "switch.queue.ecn_marked_bytes" },
			};
			const char *qkey = NULL;

			for (size_t i = 0; i < FT_ARRAY_SIZE(qkeys) && !qkey; i++)
				if (strcmp(n, qkeys[i][0]) == 0)
					qkey = qkeys[i][1];

			if (qkey && num_cell(cell(r, t, k), &v))
				ft__emit(c, line, qkey, true, v,
					 strstr(qkey, "bytes") ? "bytes" : "count", q);
		}
		break;
	}
	case T_WATERMARK:
		/* "  Ethernet0   0   0   0  6421586 ..." : one cell per unicast queue */
		for (k = 1; k < t->n; k++) {
			const char *n = t->name[k];
			char *end;
			unsigned long qi;

			if (strncmp(n, "UC", 2) != 0 || !num_cell(cell(r, t, k), &v))
				continue;
			qi = strtoul(n + 2, &end, 10);
			if (*end || end == n + 2 || qi >= 64)
				continue;
			c->port = (int)qi;
			ft__emit(c, line, "switch.queue.watermark_bytes", true, v, "bytes",
				 (struct ft__span){ n, strlen(n) });
		}
		break;
	case T_NONE:
		break;
	}
}

int
ft__sonic_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it = ft__pctx_lines(c, text, len);
	struct ft__span raw, prev = FT__NOSTR, cmd;
	struct cols t;

	memset(&t, 0, sizeof(t));
	while (ft__lines_next(&it, &raw) && !c->rc) {
		if (ft__is_blank(raw)) {
			t.kind = T_NONE;
			prev = FT__NOSTR;
			continue;
		}
		if (ft__is_prompt(raw, &cmd) || memchr(raw.p, '#', raw.n)) {
			if (memchr(raw.p, '@', raw.n))
				ft__host_from_prompt(c, raw);
			t.kind = T_NONE;
			prev = FT__NOSTR;
			continue;
		}
		if (prev.p && dash_spans(raw, &t)) {
			name_columns(prev, &t);
			prev = FT__NOSTR;
			continue;
		}
		if (t.kind != T_NONE) {
			row(c, it.lineno, raw, &t);
			continue;
		}
		prev = raw;
	}
	return c->rc;
}

FT__PARSER(sonic, "sonic",
           "SONiC switch: show pfc counters, pfcwd stats, interface and FEC counters, queue and "
           "WRED/ECN counters, queue watermarks, LLDP table",
           { 90, { "Port Rx|Port Tx", "PFC0", "PFC7" } }, { 90, { "STORM DETECTED/RESTORED" } },
           { 85, { "IFACE", "RX_DRP|FEC_PRE_BER" } }, { 88, { "TxQ", "Drop/pkts" } },
           { 88, { "TxQ", "EcnMarked/pkts" } },
           { 85, { "LocalPort", "RemoteDevice", "RemotePortID" } },
           { 85, { "occupancy per unicast queue", "UC0", "UC7" } });

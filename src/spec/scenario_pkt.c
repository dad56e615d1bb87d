/* SPDX-License-Identifier: MIT */
/*
 * spec/scenario_pkt.c - a scenario's packet: block, the packet engine's
 * knobs (struct ft_packet_cfg: one table line per knob, with its range),
 * and its InfiniBand tables: the congestion control table (cct: a list of
 * "shift:multiplier" entries, as OpenSM's cc_cct and ibccconfig take them)
 * and the two VLArbitration tables (vlarb_high, vlarb_low: lists of
 * "VL:weight", as OpenSM's qos_vlarb_high/low). Each entry is checked where
 * it stands: a bad one is named by file:line:col and its index.
 */
#include "spec/scenario_load.h"

#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

#include <fabtune/sim.h>

#include "spec/doc.h"

/* The tables: the two numbers' names and ranges, and how many entries fit. */
enum pair_kind {
	PAIR_CCT,
	PAIR_VLARB_HIGH,
	PAIR_VLARB_LOW,
};

struct pair_table {
	const char *what; /* "shift:multiplier (...)" */
	uint32_t hi_a, hi_b;
	uint32_t cap;
};

static const struct pair_table tables[] = {
	[PAIR_CCT] = { "shift:multiplier (shift 0 to 3, multiplier 0 to 16383)", 3, 0x3fff,
		       FT_PKT_CCT_MAX },
	[PAIR_VLARB_HIGH] = { "VL:weight (VL 0 to 7, weight 0 to 255)", FT_PKT_NPRIO - 1, 255,
			      FT_PKT_VLARB_MAX },
	[PAIR_VLARB_LOW] = { "VL:weight (VL 0 to 7, weight 0 to 255)", FT_PKT_NPRIO - 1, 255,
			     FT_PKT_VLARB_MAX },
};

int
ft__scenario_each_item(struct ft__doc *d, yaml_node_t *v, const char *path, const char *what,
                       uint32_t cap, const char *things, ft__scenario_item_fn *fn, void *ud)
{
	char field[FT__DOC_PATH_MAX];
	yaml_node_item_t *it;
	uint32_t i = 0;

	if (v->type != YAML_SEQUENCE_NODE)
		return ft__doc_expected(d, v, path, what);
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, i++) {
		yaml_node_t *n = ft__doc_node(d, *it);
		int rc;

		snprintf(field, sizeof(field), "%s[%u]", path, i);
		if (i >= cap)
			return ft__doc_fail(d, n, FT_ERANGE, field, "at most %u %s", cap, things);
		rc = fn(d, n, field, i, ud);
		if (rc < 0)
			return rc;
	}
	return (int)i;
}

/* "a:b" with a <= hi_a and b <= hi_b, both decimal. */
static bool
parse_pair(const char *s, const struct pair_table *t, uint32_t *a, uint32_t *b)
{
	char *end;
	unsigned long x, y;

	if (*s < '0' || *s > '9')
		return false;
	x = strtoul(s, &end, 10);
	if (*end != ':' || end[1] < '0' || end[1] > '9')
		return false;
	y = strtoul(end + 1, &end, 10);
	if (*end || x > t->hi_a || y > t->hi_b)
		return false;
	*a = (uint32_t)x;
	*b = (uint32_t)y;
	return true;
}

struct pair_ctx {
	struct ft_packet_cfg *pc;
	enum pair_kind kind;
};

static int
read_pair_item(struct ft__doc *d, yaml_node_t *n, const char *field, uint32_t i, void *ud)
{
	const struct pair_ctx *c = ud;
	const struct pair_table *t = &tables[c->kind];
	const char *s = ft__doc_scalar(n);
	struct ft_vlarb_entry en;
	uint32_t a, b;

	if (!s || ft__doc_is_null(n) || !parse_pair(s, t, &a, &b))
		return ft__doc_expected(d, n, field, t->what);
	en = (struct ft_vlarb_entry){ (uint8_t)a, (uint8_t)b };
	switch (c->kind) {
	case PAIR_CCT:
		c->pc->cct[i] = (uint16_t)(a << 14 | b);
		break;
	case PAIR_VLARB_HIGH:
		c->pc->vlarb_high[i] = en;
		break;
	case PAIR_VLARB_LOW:
		c->pc->vlarb_low[i] = en;
		break;
	}
	return 0;
}

static int
read_pairs(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj, enum pair_kind kind)
{
	struct pair_ctx c = { obj, kind };
	int n = ft__scenario_each_item(d, v, path, "a list", tables[kind].cap, "entries",
	                               read_pair_item, &c);

	if (n < 0)
		return n;
	if (kind == PAIR_CCT)
		c.pc->ncct = (uint32_t)n;
	else if (kind == PAIR_VLARB_HIGH)
		c.pc->nvlarb_high = (uint8_t)n;
	else
		c.pc->nvlarb_low = (uint8_t)n;
	return 0;
}

int
ft__scenario_read_cct(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	return read_pairs(d, v, path, obj, PAIR_CCT);
}

int
ft__scenario_read_vlarb_high(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	return read_pairs(d, v, path, obj, PAIR_VLARB_HIGH);
}

int
ft__scenario_read_vlarb_low(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	return read_pairs(d, v, path, obj, PAIR_VLARB_LOW);
}

/* ---- packet engine knobs (packet:) --------------------------------------------- */

static int
read_mtu(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	static const struct ft__doc_field f = { "mtu", FT__DOC_SIZE, 0, sizeof(uint64_t), .lo = 64,
		                                .hi = 9000, .what = "64 to 9000 bytes" };
	uint64_t sz = 0;
	int rc = ft__doc_read(d, &f, v, path, &sz);

	if (rc == 0)
		((struct ft_packet_cfg *)obj)->mtu_bytes = (uint32_t)sz;
	return rc;
}

/* NCCL_IB_RETRY_CNT: 0 is a value (no retry), so that it was given is kept beside it. */
static int
read_retry_cnt(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	static const struct ft__doc_field f = { "ib_retry_cnt", FT__DOC_U32, 0, sizeof(uint32_t),
		                                .lo = 0, .hi = 7 };
	struct ft_packet_cfg *pc = obj;
	int rc = ft__doc_read(d, &f, v, path, &pc->ib_retry_cnt);

	if (rc == 0)
		pc->ib_retry_cnt_set = true;
	return rc;
}

/* One value per priority, indexed 0 to 7: WRR weights (>= 1) or, for lossy_priorities,
 * the priorities themselves (a bit mask). */
struct prio_list {
	struct ft_packet_cfg *pc;
	bool mask;
};

static int
read_prio_item(struct ft__doc *d, yaml_node_t *n, const char *field, uint32_t i, void *ud)
{
	const struct prio_list *pl = ud;
	struct ft__doc_field f = { "", FT__DOC_U32, 0, sizeof(uint32_t), .lo = pl->mask ? 0 : 1,
		                   .hi = pl->mask ? FT_PKT_NPRIO - 1 : 1000 };
	uint32_t x = 0;
	int rc = ft__doc_read(d, &f, n, field, &x);

	if (rc < 0)
		return rc;
	if (pl->mask)
		pl->pc->lossy_prios |= (uint8_t)(1u << x);
	else
		pl->pc->prio_weight[i] = x;
	return 0;
}

static int
read_prio_list(struct ft__doc *d, yaml_node_t *v, const char *path, bool mask, void *obj)
{
	struct prio_list pl = { obj, mask };
	int rc = ft__scenario_each_item(d, v, path, "a list", FT_PKT_NPRIO, "priorities",
	                                read_prio_item, &pl);

	return rc < 0 ? rc : 0;
}

static int
read_weights(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	return read_prio_list(d, v, path, false, obj);
}

static int
read_lossy(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	return read_prio_list(d, v, path, true, obj);
}

static const char *const arb_names[] = { "strict", "wrr", "vlarb", NULL };
static const char *const fc_names[] = { "auto", "credit", "pfc", "none", NULL };
static const char *const cc_names[] = { "auto", "none", "dcqcn", "ibcc", "timely", "srd", NULL };
static const char *const wd_action_names[] = { "forward", "drop", "alert", NULL };
static const char *const chunk_names[] = { "auto", "nccl", "off", NULL };
static const char *const onoff_names[] = { "on", "off", NULL };

#define PKT(m) FT__DOC_AT(struct ft_packet_cfg, m)

/* One line per knob: key, type, member, range (struct ft_packet_cfg in <fabtune/sim.h>). */
static const struct ft__doc_field packet_fields[] = {
	{ "mtu", FT__DOC_FN, .fn = read_mtu },
	{ "flow_control", FT__DOC_ENUM, PKT(fc), .names = fc_names },
	{ "port_buffer", FT__DOC_SIZE, PKT(port_buffer_bytes) },
	{ "switch_buffer", FT__DOC_SIZE, PKT(switch_buffer_bytes) },
	{ "lossy_alpha", FT__DOC_DOUBLE, PKT(lossy_alpha), .lo = 1.0 / 128, .hi = 64 },
	{ "pfc_xoff", FT__DOC_SIZE, PKT(pfc_xoff_bytes) },
	{ "pfc_xon", FT__DOC_SIZE, PKT(pfc_xon_bytes) },
	{ "pfc_headroom", FT__DOC_SIZE, PKT(pfc_headroom_bytes) },
	{ "store_forward", FT__DOC_BOOL, PKT(store_forward) },
	{ "ib_timeout", FT__DOC_U32, PKT(ib_timeout), .lo = 1, .hi = 31 },
	{ "ib_retry_cnt", FT__DOC_FN, .fn = read_retry_cnt },
	{ "retransmit_timeout", FT__DOC_DURATION, PKT(rto_s) },
	{ "ber", FT__DOC_DOUBLE, PKT(ber), .lo = 0, .hi = 1e-3 },
	{ "tcp_window", FT__DOC_SIZE, PKT(tcp_window_bytes) },
	{ "tcp_sack", FT__DOC_ENUM, PKT(tcp_sack), .names = onoff_names },
	{ "tcp_delayed_ack", FT__DOC_ENUM, PKT(tcp_delayed_ack), .names = onoff_names },
	{ "tcp_pacing", FT__DOC_ENUM, PKT(tcp_pacing), .names = onoff_names },
	{ "congestion_control", FT__DOC_ENUM, PKT(cc), .names = cc_names },
	{ "ecn_kmin", FT__DOC_SIZE, PKT(ecn_kmin_bytes) },
	{ "ecn_kmax", FT__DOC_SIZE, PKT(ecn_kmax_bytes) },
	{ "ecn_pmax", FT__DOC_DOUBLE, PKT(ecn_pmax), .lo = 0.001, .hi = 1 },
	{ "min_time_between_cnps", FT__DOC_DURATION, PKT(cnp_interval_s) },
	{ "rpg_time_reset", FT__DOC_DURATION, PKT(dcqcn_timer_s) },
	{ "rpg_byte_reset", FT__DOC_SIZE, PKT(dcqcn_byte_counter) },
	{ "rpg_ai_rate", FT__DOC_DOUBLE, PKT(dcqcn_ai_bps), .lo = 1e3, .hi = 1e12 },
	{ "rpg_hai_rate", FT__DOC_DOUBLE, PKT(dcqcn_hai_bps), .lo = 1e3, .hi = 1e12 },
	{ "rpg_min_dec_fac", FT__DOC_DOUBLE, PKT(dcqcn_min_dec), .lo = 0.01, .hi = 0.99 },
	{ "dcqcn_g", FT__DOC_DOUBLE, PKT(dcqcn_g), .lo = 1e-6, .hi = 0.5 },
	{ "ccti_timer", FT__DOC_DURATION, PKT(ccti_timer_s) },
	{ "ccti_increase", FT__DOC_U32, PKT(ccti_increase), .lo = 1, .hi = 255 },
	{ "ccti_limit", FT__DOC_U32, PKT(ccti_limit), .lo = 1, .hi = 16383 },
	{ "ibcc_threshold", FT__DOC_SIZE, PKT(ibcc_threshold_bytes) },
	{ "ibcc_marking_rate", FT__DOC_U32, PKT(ibcc_marking_rate), .lo = 1, .hi = 65535 },
	{ "ccti_min", FT__DOC_U32, PKT(ccti_min), .lo = 0, .hi = 16383 },
	{ "cct", FT__DOC_FN, .fn = ft__scenario_read_cct },
	{ "cct_max_delay", FT__DOC_DURATION, PKT(cct_max_delay_s) },
	/* The names users know for the IB CC knobs (docs/cmd/sim.md). */
	{ "cc_timeout", FT__DOC_DURATION, PKT(ccti_timer_s) },
	{ "cc_window", FT__DOC_U32, PKT(ccti_limit), .lo = 1, .hi = 16383 },
	{ "pfc_watchdog", FT__DOC_DURATION, PKT(pfc_watchdog_s) },
	{ "pfc_quanta", FT__DOC_U32, PKT(pfc_quanta), .lo = 1, .hi = 65535 },
	{ "pfc_watchdog_restore", FT__DOC_DURATION, PKT(pfc_watchdog_restore_s) },
	{ "pfc_refresh", FT__DOC_DURATION, PKT(pfc_refresh_s) },
	{ "pfc_watchdog_action", FT__DOC_ENUM, PKT(pfc_watchdog_action), .names = wd_action_names },
	{ "arbitration", FT__DOC_ENUM, PKT(arb), .names = arb_names },
	{ "wrr_weights", FT__DOC_FN, .fn = read_weights },
	{ "lossy_priorities", FT__DOC_FN, .fn = read_lossy },
	{ "vlarb_high", FT__DOC_FN, .fn = ft__scenario_read_vlarb_high },
	{ "vlarb_low", FT__DOC_FN, .fn = ft__scenario_read_vlarb_low },
	{ "vlarb_high_limit", FT__DOC_U32, PKT(vlarb_high_limit), .lo = 0, .hi = 255 },
	{ "chunking", FT__DOC_ENUM, PKT(chunking), .names = chunk_names },
	{ "split_data_on_qps", FT__DOC_BOOL, PKT(split_data_on_qps) },
	{ "nic_msg_rate", FT__DOC_DOUBLE, PKT(nic_msg_rate), .lo = 1e5, .hi = 1e10 },
	{ "nic_msg_rate_miss", FT__DOC_DOUBLE, PKT(nic_msg_rate_miss), .lo = 1e5, .hi = 1e10 },
	{ "nic_qp_cache", FT__DOC_U32, PKT(nic_qp_cache), .lo = 1, .hi = 1u << 24 },
};

/* Remember where @key is (node @n) for errors found after loading. */
static int
mark(struct ft_scenario *sc, const char *key, const yaml_node_t *n)
{
	struct sc_mark m = { .line = (uint32_t)n->start_mark.line + 1,
		             .col = (uint32_t)n->start_mark.column + 1 };

	ft_strlcpy(m.key, key, sizeof(m.key));
	return ft_vec_push(&sc->marks, &m) < 0 ? FT_ENOMEM : 0;
}

int
ft__scenario_read_packet(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	struct ft_scenario *sc = obj;
	yaml_node_pair_t *p;
	int rc = ft__doc_walk(d, v, path, packet_fields, FT_ARRAY_SIZE(packet_fields), &sc->packet,
	                      NULL);

	if (rc == 0)
		rc = mark(sc, "packet", v);
	/* the walk took a mapping of scalar keys */
	for (p = v->data.mapping.pairs.start; rc == 0 && p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = ft__doc_node(d, p->key);
		char key[40];

		snprintf(key, sizeof(key), "packet.%s", ft__doc_scalar(k));
		rc = mark(sc, key, k);
	}
	return rc;
}

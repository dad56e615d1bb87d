/* SPDX-License-Identifier: MIT */
/*
 * spec/scenario_pkt.c - the packet engine's InfiniBand tables in a
 * scenario's packet: block: the congestion control table (cct: a list of
 * "shift:multiplier" entries, as OpenSM's cc_cct and ibccconfig take them)
 * and the two VLArbitration tables (vlarb_high, vlarb_low: lists of
 * "VL:weight", as OpenSM's qos_vlarb_high/low). Each entry is checked where
 * it stands: a bad one is named by file:line:col and its index.
 */
#include "spec/scenario.h"

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

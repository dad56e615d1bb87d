/* SPDX-License-Identifier: MIT */
/*
 * topo/render.c - a topology in words: the summary of ft_topo_stats() as the
 * terminal report (vertices and links per kind, switch tiers with their
 * oversubscription, bisection, injection, diameter, memory) or JSON, and one
 * route hop by hop with the equal-cost choices at each hop.
 */
#include "topo_int.h"

#include <inttypes.h>
#include <stdio.h>

#include <fabtune/json.h>
#include <fabtune/table.h>
#include <fabtune/units.h>

#include "base/fields.h"

static const char *
tier_name(enum ft_fabric_kind k, unsigned tier)
{
	static const char *const fat[] = { "-", "host-leaf", "leaf-spine", "spine-core" };
	static const char *const df[] = { "-", "host-router", "local", "global" };
	static const char *const tor[] = { "-", "host-switch", "torus", "-" };

	if (k == FT_FABRIC_DRAGONFLY)
		return df[tier];
	if (k == FT_FABRIC_TORUS)
		return tor[tier];
	return fat[tier];
}

static const char *
switch_tier_name(enum ft_fabric_kind k, unsigned tier)
{
	static const char *const fat[] = { "-", "leaf", "spine", "core" };

	if (k == FT_FABRIC_DRAGONFLY)
		return tier == 1 ? "router" : "-";
	if (k == FT_FABRIC_TORUS)
		return tier == 1 ? "switch" : "-";
	return fat[tier];
}

static const struct ft__col tier_cols[] = {
	{ "tier", FT_ALIGN_LEFT },     { "switches", FT_ALIGN_RIGHT },
	{ "down:up", FT_ALIGN_RIGHT }, { "links below", FT_ALIGN_LEFT },
	{ "count", FT_ALIGN_RIGHT },
};

static const struct ft__col hop_cols[] = {
	{ "hop", FT_ALIGN_RIGHT },     { "from", FT_ALIGN_LEFT },  { "to", FT_ALIGN_LEFT },
	{ "link", FT_ALIGN_LEFT },     { "rate", FT_ALIGN_RIGHT }, { "latency", FT_ALIGN_RIGHT },
	{ "choices", FT_ALIGN_RIGHT },
};

/* The kinds of vertices (or of links, @links) that @count has, with their counts. */
static bool
count_table(struct ft_strbuf *sb, const uint32_t *count, unsigned n, bool links)
{
	struct ft_table tab;
	bool bad = false;

	ft_table_init(&tab);
	tab.line_prefix = "    ";
	ft_table_col(&tab, "kind", FT_ALIGN_LEFT);
	ft_table_col(&tab, "count", FT_ALIGN_RIGHT);
	for (unsigned i = 0; i < n; i++) {
		if (!count[i])
			continue;
		bad |= ft_table_cell(&tab, links ? ft_link_kind_name((enum ft_link_kind)i) :
		                                   ft_vertex_kind_name((enum ft_vertex_kind)i)) < 0;
		bad |= ft_table_cellf(&tab, "%u", count[i]) < 0;
	}
	ft_table_render(&tab, sb);
	ft_table_release(&tab);
	return bad;
}

int
ft_topo_stats_write_text(const struct ft_topo *t, const struct ft_topo_stats *st,
                         struct ft_strbuf *sb)
{
	bool bad = false;
	const struct ft_cluster_spec *s = ft_topo_spec(t);
	enum ft_fabric_kind k = s->fabric.kind;
	struct ft_table tab;
	char a[32];
	bool fat = k == FT_FABRIC_FAT_TREE || k == FT_FABRIC_RAIL_FAT_TREE ||
	           k == FT_FABRIC_MULTI_PLANE;

	ft_strbuf_addf(sb, "topology %s (%s)\n", s->name, s->source);
	ft_strbuf_addf(sb, "  fabric     %s, %u node%s, %" PRIu64 " GPUs\n", ft_fabric_kind_name(k),
	               s->nnodes, s->nnodes == 1 ? "" : "s", ft_spec_ngpus(s));
	ft_strbuf_addf(sb, "  vertices   %u\n", ft_topo_nvertices(t));
	bad |= count_table(sb, st->nvertices_by_kind, FT_V_COUNT, false);
	ft_strbuf_addf(sb, "  links      %u directed (each cable or lane group is two)\n",
	               ft_topo_nlinks(t));
	bad |= count_table(sb, st->nlinks_by_kind, FT_L_COUNT, true);

	if (k != FT_FABRIC_NONE) {
		ft_strbuf_adds(sb, "  tiers\n");
		ft_table_init(&tab);
		tab.line_prefix = "    ";
		ft__table_cols(&tab, tier_cols, FT_ARRAY_SIZE(tier_cols));
		for (unsigned i = 1; i < 4; i++) {
			if (!st->nswitches_by_tier[i] && !st->nlinks_by_tier[i])
				continue;
			if (st->nswitches_by_tier[i]) {
				bad |= ft_table_cellf(&tab, "%u %s", i, switch_tier_name(k, i)) < 0;
				bad |= ft_table_cellf(&tab, "%u", st->nswitches_by_tier[i]) < 0;
			} else {
				bad |= ft_table_cellf(&tab, "%u", i) < 0;
				bad |= ft_table_cell(&tab, "-") < 0;
			}
			/* Capacity the tier's switches have below over what they have above. */
			if (fat && st->oversubscription[i] > 0)
				bad |= ft_table_cellf(&tab, "%.2f:1", st->oversubscription[i]) < 0;
			else
				bad |= ft_table_cell(&tab, "-") < 0;
			bad |= ft_table_cell(&tab, tier_name(k, i)) < 0;
			bad |= ft_table_cellf(&tab, "%u", st->nlinks_by_tier[i]) < 0;
		}
		ft_table_render(&tab, sb);
		ft_table_release(&tab);
		ft_strbuf_addf(sb, "  bisection  %s per direction\n",
		               ft_format_rate_bytes(st->bisection_Bps, a, sizeof(a)));
		ft_strbuf_addf(sb, "  injection  %s per direction\n",
		               ft_format_rate_bytes(st->injection_Bps, a, sizeof(a)));
		ft_strbuf_addf(sb, "  diameter   %u links between NICs\n", st->diameter_hops);
	}
	if (ft_topo_memory(t) < 1024 * 1024)
		ft_strbuf_addf(sb, "  memory     %.1f KiB\n", (double)ft_topo_memory(t) / 1024.0);
	else
		ft_strbuf_addf(sb, "  memory     %.1f MiB\n",
		               (double)ft_topo_memory(t) / (1024.0 * 1024.0));
	return bad || sb->oom ? FT_ENOMEM : 0;
}

static void
json_counts(struct ft_json *j, const char *key, const uint32_t *v, unsigned n,
            const char *(*name)(unsigned))
{
	char buf[16];

	ft_json_key(j, key);
	ft_json_obj_begin(j);
	for (unsigned i = 0; i < n; i++) {
		if (name) {
			ft_json_kv_uint(j, name(i), v[i]);
		} else if (i > 0) {
			snprintf(buf, sizeof(buf), "tier%u", i);
			ft_json_kv_uint(j, buf, v[i]);
		}
	}
	ft_json_obj_end(j);
}

static const char *
vname(unsigned i)
{
	return ft_vertex_kind_name((enum ft_vertex_kind)i);
}

static const char *
lname(unsigned i)
{
	return ft_link_kind_name((enum ft_link_kind)i);
}

void
ft_topo_stats_write_json(const struct ft_topo *t, const struct ft_topo_stats *st, double build_s,
                         struct ft_strbuf *sb)
{
	const struct ft_cluster_spec *s = ft_topo_spec(t);
	struct ft_json j;
	char buf[16];

	ft_json_init(&j, sb, false);
	ft_json_obj_begin(&j);
	ft_json_kv_str(&j, "name", s->name);
	ft_json_kv_str(&j, "source", s->source);
	ft_json_kv_str(&j, "fabric", ft_fabric_kind_name(s->fabric.kind));
	ft_json_kv_uint(&j, "nodes", s->nnodes);
	ft_json_kv_uint(&j, "gpus", ft_spec_ngpus(s));
	ft_json_kv_uint(&j, "nvertices", ft_topo_nvertices(t));
	ft_json_kv_uint(&j, "nlinks", ft_topo_nlinks(t));
	json_counts(&j, "vertices", st->nvertices_by_kind, FT_V_COUNT, vname);
	json_counts(&j, "switches", st->nswitches_by_tier, 4, NULL);
	json_counts(&j, "links", st->nlinks_by_kind, FT_L_COUNT, lname);
	json_counts(&j, "links_by_tier", st->nlinks_by_tier, 4, NULL);
	ft_json_key(&j, "oversubscription");
	ft_json_obj_begin(&j);
	for (unsigned i = 1; i < 4; i++) {
		snprintf(buf, sizeof(buf), "tier%u", i);
		ft_json_kv_double(&j, buf, st->oversubscription[i]);
	}
	ft_json_obj_end(&j);
	ft_json_kv_double(&j, "bisection_GBps", st->bisection_Bps / 1e9);
	ft_json_kv_double(&j, "injection_GBps", st->injection_Bps / 1e9);
	ft_json_kv_uint(&j, "diameter_hops", st->diameter_hops);
	ft_json_kv_uint(&j, "memory_bytes", ft_topo_memory(t));
	if (build_s >= 0)
		ft_json_kv_double(&j, "build_s", build_s);
	ft_json_obj_end(&j);
	ft_strbuf_addch(sb, '\n');
}

int
ft_topo_path_write(const struct ft_topo *t, const char *label, uint32_t src, uint32_t dst,
                   enum ft_routing routing, uint32_t qp, bool json, struct ft_strbuf *sb,
                   struct ft_error *err)
{
	struct ft_route_policy pol = {
		.routing = routing,
		.flow_hash = ft_route_flow_hash(src, dst, qp),
	};
	struct ft_path p;
	struct ft_table tab;
	struct ft_json j;
	char a[48], b[48], rate[32], lat[32];
	bool bad = false;
	int rc = ft_route_path(t, src, dst, &pol, &p);

	ft_topo_vertex_name(t, src, a, sizeof(a));
	ft_topo_vertex_name(t, dst, b, sizeof(b));
	if (rc == FT_ENOENT)
		return ft_error_set(err, rc, "%s: no %s path from %s to %s", label,
		                    ft_routing_name(routing), a, b);
	if (rc < 0)
		return ft_error_set(err, rc, "%s: %s to %s: %s", label, a, b,
		                    rc == FT_ERANGE ? "the path is longer than FT_PATH_MAX links" :
		                                      ft_strerror(rc));
	if (json) {
		ft_json_init(&j, sb, false);
		ft_json_obj_begin(&j);
		ft_json_kv_str(&j, "src", a);
		ft_json_kv_str(&j, "dst", b);
		ft_json_kv_str(&j, "routing", ft_routing_name(routing));
		ft_json_kv_uint(&j, "qp", qp);
		ft_json_kv_double(&j, "lat_s", p.lat_s);
		ft_json_key(&j, "links");
		ft_json_arr_begin(&j);
	} else {
		ft_strbuf_addf(sb, "path %s -> %s (%s, qp %u): %u links, %s\n", a, b,
		               ft_routing_name(routing), qp, p.nlinks,
		               ft_format_duration(p.lat_s, lat, sizeof(lat)));
		ft_table_init(&tab);
		tab.line_prefix = "  ";
		ft__table_cols(&tab, hop_cols, FT_ARRAY_SIZE(hop_cols));
	}
	for (uint32_t i = 0; i < p.nlinks; i++) {
		const struct ft_link *l = ft_topo_link(t, p.links[i]);
		/* Equal-cost choices of the minimal routes at this hop; 0 when the hop is not
		 * one of them (a Valiant detour). */
		uint32_t cand[1024];
		int n = ft_route_next_hops(t, l->src, dst, cand, FT_ARRAY_SIZE(cand));
		bool minimal = false;

		for (int c = 0; c < n && c < (int)FT_ARRAY_SIZE(cand); c++)
			minimal = minimal || cand[c] == p.links[i];
		if (!minimal)
			n = 0;

		ft_topo_vertex_name(t, l->src, a, sizeof(a));
		ft_topo_vertex_name(t, l->dst, b, sizeof(b));
		if (json) {
			ft_json_obj_begin(&j);
			ft_json_kv_str(&j, "from", a);
			ft_json_kv_str(&j, "to", b);
			ft_json_kv_str(&j, "kind", ft_link_kind_name((enum ft_link_kind)l->kind));
			ft_json_kv_uint(&j, "tier", l->tier);
			ft_json_kv_double(&j, "cap_GBps", l->cap_Bps / 1e9);
			ft_json_kv_double(&j, "lat_s", l->lat_s);
			ft_json_kv_int(&j, "choices", n > 0 ? n : 0);
			ft_json_obj_end(&j);
			continue;
		}
		bad |= ft_table_cellf(&tab, "%u", i + 1) < 0;
		bad |= ft_table_cell(&tab, a) < 0;
		bad |= ft_table_cell(&tab, b) < 0;
		bad |= ft_table_cell(&tab, ft_link_kind_name((enum ft_link_kind)l->kind)) < 0;
		bad |= ft_table_cell(&tab, ft_format_rate_bytes(l->cap_Bps, rate, sizeof(rate))) <
		       0;
		bad |= ft_table_cell(&tab, ft_format_duration(l->lat_s, lat, sizeof(lat))) < 0;
		if (n > 0)
			bad |= ft_table_cellf(&tab, "%d", n) < 0;
		else
			bad |= ft_table_cell(&tab, "-") < 0;
	}
	if (json) {
		ft_json_arr_end(&j);
		ft_json_obj_end(&j);
		ft_strbuf_addch(sb, '\n');
	} else {
		ft_table_render(&tab, sb);
		ft_table_release(&tab);
	}
	return bad || sb->oom ? ft_error_set(err, FT_ENOMEM, "out of memory") : 0;
}

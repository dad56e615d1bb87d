/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-topo.c - `fabtune topo`: build a cluster's topology graph and print
 * its counts per kind and tier, links per kind and tier, oversubscription,
 * bisection and injection bandwidth, diameter and memory, or export the
 * graph as Graphviz dot or JSON.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <fabtune/fabtune.h>

#include "cli.h"

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

/* The summary; FT_ENOMEM when a table or the buffer ran out of memory. */
static int
text_summary(struct ft_strbuf *sb, const struct ft_topo *t, const struct ft_topo_stats *st)
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
	ft_table_init(&tab);
	tab.line_prefix = "    ";
	ft_table_col(&tab, "kind", FT_ALIGN_LEFT);
	ft_table_col(&tab, "count", FT_ALIGN_RIGHT);
	for (unsigned i = 0; i < FT_V_COUNT; i++) {
		if (!st->nvertices_by_kind[i])
			continue;
		bad |= ft_table_cell(&tab, ft_vertex_kind_name((enum ft_vertex_kind)i)) < 0;
		bad |= ft_table_cellf(&tab, "%u", st->nvertices_by_kind[i]) < 0;
	}
	ft_table_render(&tab, sb);
	ft_table_release(&tab);

	ft_strbuf_addf(sb, "  links      %u directed (each cable or lane group is two)\n",
	               ft_topo_nlinks(t));
	ft_table_init(&tab);
	tab.line_prefix = "    ";
	ft_table_col(&tab, "kind", FT_ALIGN_LEFT);
	ft_table_col(&tab, "count", FT_ALIGN_RIGHT);
	for (unsigned i = 0; i < FT_L_COUNT; i++) {
		if (!st->nlinks_by_kind[i])
			continue;
		bad |= ft_table_cell(&tab, ft_link_kind_name((enum ft_link_kind)i)) < 0;
		bad |= ft_table_cellf(&tab, "%u", st->nlinks_by_kind[i]) < 0;
	}
	ft_table_render(&tab, sb);
	ft_table_release(&tab);

	if (k != FT_FABRIC_NONE) {
		ft_strbuf_adds(sb, "  tiers\n");
		ft_table_init(&tab);
		tab.line_prefix = "    ";
		ft_table_col(&tab, "tier", FT_ALIGN_LEFT);
		ft_table_col(&tab, "switches", FT_ALIGN_RIGHT);
		ft_table_col(&tab, "down:up", FT_ALIGN_RIGHT);
		ft_table_col(&tab, "links below", FT_ALIGN_LEFT);
		ft_table_col(&tab, "count", FT_ALIGN_RIGHT);
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

static void
json_summary(struct ft_strbuf *sb, const struct ft_topo *t, const struct ft_topo_stats *st,
             double build_s, bool stable)
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
	if (!stable)
		ft_json_kv_double(&j, "build_s", build_s);
	ft_json_obj_end(&j);
	ft_strbuf_addch(sb, '\n');
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
cmd_topo(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = {
		"fabtune topo SPEC [--format text|dot|json] [--json]", NULL
	};
	const char *format = "text";
	const struct opt opts[] = {
		OPT_STRING(0, "format", &format, "FORMAT",
		           "text (summary, the default), dot (Graphviz) or json (every vertex and "
		           "link)"),
		OPT_END(),
	};
	const struct cmd_usage usage = {
		"topo", synopsis,
		"Build the topology graph of a cluster (a spec file or a preset shorthand such as "
		"dgx-h100:64) and print its vertices per kind and switch tier, links per kind and "
		"tier, oversubscription, bisection and injection bandwidth, diameter and memory; "
		"or export the graph. --json prints the summary as JSON.",
		opts
	};
	struct ft_cluster_spec spec;
	struct ft_topo *t = NULL;
	struct ft_topo_stats st;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	double t0, build_s;
	int n = opts_parse(&usage, ctx, argc, argv), rc;

	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	if (n != 1) {
		cli_error(ctx, "expected one SPEC (a file or a preset like dgx-h100:64), got %d",
		          n);
		return EXIT_USAGE;
	}
	if (strcmp(format, "text") != 0 && strcmp(format, "dot") != 0 &&
	    strcmp(format, "json") != 0) {
		cli_error(ctx, "--format: expected text, dot or json, got '%s'", format);
		return EXIT_USAGE;
	}
	rc = ft_spec_resolve(argv[1], &spec, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	t0 = now_s();
	rc = ft_topo_build(&spec, &t, &err);
	build_s = now_s() - t0;
	if (rc < 0) {
		ft_error_prefix(&err, "%s: ", argv[1]);
		return cli_fail(ctx, rc, &err);
	}
	ft_strbuf_init(&sb);
	if (strcmp(format, "dot") == 0) {
		rc = ft_topo_export_dot(t, &sb);
	} else if (strcmp(format, "json") == 0) {
		rc = ft_topo_export_json(t, &sb);
	} else {
		rc = ft_topo_stats(t, &st, &err);
		if (rc == 0 && ctx->json)
			json_summary(&sb, t, &st, build_s, ctx->stable);
		else if (rc == 0)
			rc = text_summary(&sb, t, &st);
	}
	if (rc == 0 && sb.oom)
		rc = FT_ENOMEM;
	if (rc < 0) {
		ft_strbuf_release(&sb);
		ft_topo_free(t);
		return cli_fail(ctx, rc, &err);
	}
	cli_write(&sb);
	ft_strbuf_release(&sb);
	ft_topo_free(t);
	return EXIT_OK;
}

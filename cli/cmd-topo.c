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

/* One path: hop by hop, with the number of equal-cost choices at each hop. */
static int
print_path(struct ft_strbuf *sb, const struct ft_topo *t, const char *spec_arg, uint32_t src,
           uint32_t dst, enum ft_routing routing, uint32_t qp, bool json, struct ft_error *err)
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
		return ft_error_set(err, rc, "%s: no %s path from %s to %s", spec_arg,
		                    ft_routing_name(routing), a, b);
	if (rc < 0)
		return ft_error_set(err, rc, "%s: %s to %s: %s", spec_arg, a, b,
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
		ft_table_col(&tab, "hop", FT_ALIGN_RIGHT);
		ft_table_col(&tab, "from", FT_ALIGN_LEFT);
		ft_table_col(&tab, "to", FT_ALIGN_LEFT);
		ft_table_col(&tab, "link", FT_ALIGN_LEFT);
		ft_table_col(&tab, "rate", FT_ALIGN_RIGHT);
		ft_table_col(&tab, "latency", FT_ALIGN_RIGHT);
		ft_table_col(&tab, "choices", FT_ALIGN_RIGHT);
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

/* "SRC,DST" into two vertex ids; usage errors name what is wrong. */
static int
parse_path_arg(const struct cli_ctx *ctx, const struct ft_topo *t, const char *arg, uint32_t *src,
               uint32_t *dst)
{
	const char *comma = strchr(arg, ',');
	char name[64];
	size_t len;
	int rc;

	if (!comma) {
		cli_error(ctx, "--path: expected SRC,DST (e.g. n0.gpu0,n1.gpu3), got '%s'", arg);
		return EXIT_USAGE;
	}
	len = (size_t)(comma - arg);
	if (len >= sizeof(name))
		len = sizeof(name) - 1;
	memcpy(name, arg, len);
	name[len] = '\0';
	for (int k = 0; k < 2; k++) {
		const char *nm = k == 0 ? name : comma + 1;

		rc = ft_topo_vertex_find(t, nm, k == 0 ? src : dst);
		if (rc == FT_EPARSE) {
			cli_error(
			        ctx,
			        "--path: expected a vertex like n0.gpu3, n1.nic0, n0.pcie1, n0.cpu0 "
			        "or n0.nvswitch, got '%s'",
			        nm);
			return EXIT_USAGE;
		}
		if (rc < 0) {
			cli_error(ctx, "--path: %s: no such vertex in %s", nm,
			          ft_topo_spec(t)->name);
			return EXIT_USAGE;
		}
	}
	return EXIT_OK;
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
		"fabtune topo SPEC [--format text|dot|json] [--json]",
		"fabtune topo SPEC --path SRC,DST [--routing NAME] [--qp N] [--json]", NULL
	};
	const char *format = "text", *path = NULL, *routing_arg = NULL;
	uint64_t qp = 0;
	const struct opt opts[] = {
		OPT_STRING(0, "format", &format, "FORMAT",
		           "text (summary, the default), dot (Graphviz) or json (every vertex and "
		           "link)"),
		OPT_STRING(0, "path", &path, "SRC,DST",
		           "print the route between two in-node vertices (n0.gpu0,n3.gpu5) hop by "
		           "hop, with the equal-cost choices at each hop"),
		OPT_STRING(0, "routing", &routing_arg, "NAME",
		           "routing for --path: ecmp, dmodk, adaptive, minimal, valiant or dor "
		           "(default: the spec's)"),
		OPT_U64(0, "qp", &qp, "N",
		        "queue pair of the flow for --path (the ECMP hash input)"),
		OPT_END(),
	};
	const struct cmd_usage usage = {
		"topo", synopsis,
		"Build the topology graph of a cluster (a spec file or a preset shorthand such as "
		"dgx-h100:64) and print its vertices per kind and switch tier, links per kind and "
		"tier, oversubscription, bisection and injection bandwidth, diameter and memory; "
		"or export the graph; or print the route between two vertices. --json prints the "
		"summary (or the route) as JSON.",
		opts
	};
	struct ft_cluster_spec spec;
	struct ft_topo *t = NULL;
	struct ft_topo_stats st;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	enum ft_routing routing;
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
	if (path && strcmp(format, "text") != 0) {
		cli_error(ctx, "--path prints a route: it takes no --format %s", format);
		return EXIT_USAGE;
	}
	if ((routing_arg || qp) && !path) {
		cli_error(ctx, "--routing and --qp apply to --path");
		return EXIT_USAGE;
	}
	if (qp > UINT32_MAX) {
		cli_error(ctx, "--qp: expected 0..%u, got %" PRIu64, UINT32_MAX, qp);
		return EXIT_USAGE;
	}
	rc = ft_spec_resolve(argv[1], &spec, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	routing = spec.fabric.routing;
	if (routing_arg && ft_routing_from_name(routing_arg, &routing) < 0) {
		cli_error(ctx,
		          "--routing: expected ecmp, dmodk, adaptive, minimal, valiant or dor, "
		          "got '%s'",
		          routing_arg);
		return EXIT_USAGE;
	}
	t0 = now_s();
	rc = ft_topo_build(&spec, &t, &err);
	build_s = now_s() - t0;
	if (rc < 0) {
		ft_error_prefix(&err, "%s: ", argv[1]);
		return cli_fail(ctx, rc, &err);
	}
	ft_strbuf_init(&sb);
	if (path) {
		uint32_t src, dst;
		int ex = parse_path_arg(ctx, t, path, &src, &dst);

		if (ex != EXIT_OK) {
			ft_strbuf_release(&sb);
			ft_topo_free(t);
			return ex;
		}
		rc = print_path(&sb, t, argv[1], src, dst, routing, (uint32_t)qp, ctx->json, &err);
	} else if (strcmp(format, "dot") == 0) {
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
		if (path && rc == FT_ENOENT) { /* the fabric has no such route: a finding */
			cli_error(ctx, "%s", ft_error_msg(&err, rc));
			return EXIT_PROBLEM;
		}
		return cli_fail(ctx, rc, &err);
	}
	cli_write(&sb);
	ft_strbuf_release(&sb);
	ft_topo_free(t);
	return EXIT_OK;
}

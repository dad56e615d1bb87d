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
		rc = ft_topo_path_write(t, argv[1], src, dst, routing, (uint32_t)qp, ctx->json,
		                        &sb, &err);
	} else if (strcmp(format, "dot") == 0) {
		rc = ft_topo_export_dot(t, &sb);
	} else if (strcmp(format, "json") == 0) {
		rc = ft_topo_export_json(t, &sb);
	} else {
		rc = ft_topo_stats(t, &st, &err);
		if (rc == 0 && ctx->json)
			ft_topo_stats_write_json(t, &st, ctx->stable ? -1 : build_s, &sb);
		else if (rc == 0)
			rc = ft_topo_stats_write_text(t, &st, &sb);
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

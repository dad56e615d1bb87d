/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-topo.c - `fabtune topo`: build a cluster's topology graph and print
 * its counts per kind and tier, links per kind and tier, oversubscription,
 * bisection and injection bandwidth, diameter and memory, or export the
 * graph as Graphviz dot or JSON.
 */
#include <fabtune/fabtune.h>

#include "cli-run.h"
#include "cli.h"

int
cmd_topo(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = {
		"fabtune topo SPEC [--format text|dot|json] [--json]",
		"fabtune topo SPEC --path SRC,DST [--routing NAME] [--qp N] [--json]", NULL
	};
	struct ft_topo_query q = { 0 };
	const struct opt opts[] = {
		OPT_STRING(0, "format", &q.format, "FORMAT",
		           "text (summary, the default), dot (Graphviz) or json (every vertex and "
		           "link)"),
		OPT_STRING(0, "path", &q.path, "SRC,DST",
		           "print the route between two in-node vertices (n0.gpu0,n3.gpu5) hop by "
		           "hop, with the equal-cost choices at each hop"),
		OPT_STRING(0, "routing", &q.routing, "NAME",
		           "routing for --path: ecmp, dmodk, minhop (updn), adaptive, minimal, "
		           "valiant or dor (default: the spec's)"),
		OPT_U64(0, "qp", &q.qp, "N",
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
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	int n, rc;

	n = opts_parse_args(&usage, ctx, argc, argv, -1, &rc);
	if (n < 0)
		return rc;
	if (n != 1) {
		cli_error(ctx, "expected one SPEC (a file or a preset like dgx-h100:64), got %d",
		          n);
		return EXIT_USAGE;
	}
	q.json = ctx->json;
	q.stable = ctx->stable;
	rc = ft_topo_query_check(&q, &err);
	if (rc == 0)
		rc = ft_spec_resolve(argv[1], &spec, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	ft_strbuf_init(&sb);
	rc = ft_topo_query_write(&q, &spec, argv[1], &sb, &err);
	if (q.path && rc == FT_ENOENT) { /* the fabric has no such route: a finding */
		ft_strbuf_release(&sb);
		cli_error(ctx, "%s", ft_error_msg(&err, rc));
		return EXIT_PROBLEM;
	}
	return cli_finish(ctx, &sb, rc, &err);
}

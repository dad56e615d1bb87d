/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-spec.c - `fabtune spec`: print a resolved cluster spec (a file or
 * a preset shorthand) with every figure and its unit, or list the presets.
 */

#include <fabtune/fabtune.h>

#include "cli-run.h"
#include "cli.h"

int
cmd_spec(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = { "fabtune spec SPEC [--json]",
		                                "fabtune spec --presets [--json]", NULL };
	bool presets = false;
	const struct opt opts[] = {
		OPT_BOOL(0, "presets", &presets, "list the node and link presets"),
		OPT_END(),
	};
	const struct cmd_usage usage = {
		"spec", synopsis,
		"Print a cluster spec as fabtune resolves it: a spec file (YAML or JSON) or a "
		"preset shorthand (dgx-h100 is one node, dgx-h100:64 is 64 nodes on the preset's "
		"default fabric).",
		opts
	};
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	struct ft_json j;
	int n, rc;

	n = opts_parse_args(&usage, ctx, argc, argv, -1, &rc);
	if (n < 0)
		return rc;
	if (presets) {
		if (n != 0) {
			cli_error(ctx, "--presets takes no SPEC");
			return EXIT_USAGE;
		}
		ft_strbuf_init(&sb);
		if (ctx->json)
			ft_spec_presets_write_json(&sb);
		else
			ft_spec_presets_write_text(&sb);
		return cli_finish(ctx, &sb, 0, &err);
	}
	if (n != 1) {
		cli_error(ctx, "expected one SPEC (a file or a preset like dgx-h100:64), got %d",
		          n);
		return EXIT_USAGE;
	}
	rc = ft_spec_resolve(argv[1], &spec, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	ft_strbuf_init(&sb);
	if (ctx->json) {
		ft_json_init(&j, &sb, false);
		ft_spec_write_json(&spec, &j);
		ft_strbuf_addch(&sb, '\n');
	} else {
		ft_spec_write_text(&spec, &sb);
	}
	return cli_finish(ctx, &sb, 0, &err);
}

/* SPDX-License-Identifier: MIT */
/*
 * cli/cli-diag.c - the inputs of diagnose and advise, gathered by the
 * workflow layer, with the command line's error and warning.
 */
#include "cli-diag.h"

int
cli_diag_gather(struct cli_ctx *ctx, struct ft_workflow_sources *src, char **files, int nfiles,
                struct ft_workflow_inputs *in)
{
	struct ft_error err = { 0 };
	int rc;

	ft_workflow_inputs_init(in);
	src->files = (const char *const *)files;
	src->nfiles = (size_t)nfiles;
	if (src->nfiles == 0 && !ft_workflow_sources_probe(src)) {
		cli_error(ctx, "no input files and no --probe (see fabtune %s --help)", ctx->cmd);
		return EXIT_USAGE;
	}
	rc = ft_workflow_inputs_gather(src, in, &err);
	/* said as soon as the model has been asked, whatever fails after */
	if (src->spec && in->spec_done && in->nmodel == 0)
		cli_warn(ctx,
		         "--spec %s: no collective results in the inputs, so nothing to "
		         "compare with the model",
		         src->spec);
	return rc < 0 ? cli_fail(ctx, rc, &err) : EXIT_OK;
}

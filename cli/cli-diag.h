/* SPDX-License-Identifier: MIT */
/*
 * cli/cli-diag.h - what `fabtune diagnose` and `fabtune advise` share:
 * gathering their inputs (ft_workflow_inputs_gather) with the command
 * line's messages (implemented in cli/cli-diag.c).
 */
#ifndef FT_CLI_DIAG_H
#define FT_CLI_DIAG_H

#include <fabtune/fabtune.h>
#include <fabtune/workflow.h>

#include "cli.h"

/*
 * Gather what @src names into @in (initialised by the caller). No file and
 * no probe is a usage error; a spec whose model compares nothing is a
 * warning. Errors are reported; returns an exit code (EXIT_OK when ready).
 */
int cli_diag_gather(struct cli_ctx *ctx, const struct ft_workflow_sources *src,
                    struct ft_workflow_inputs *in);

#endif

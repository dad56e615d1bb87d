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
 * The options naming the inputs besides the files, bound to the fields of
 * @src (struct ft_workflow_sources), with @thresholds_help for --thresholds.
 */
#define CLI_DIAG_SOURCE_OPTS(src, thresholds_help)                                          \
	OPT_STRING(0, "expect", &(src).expect_file, "FILE",                                   \
	           "expectations: a YAML/JSON list of {test, bytes, busbw_GBps, lat_us}"),    \
	OPT_STRING(0, "spec", &(src).spec, "SPEC", "cluster spec: expectations from the model"), \
	OPT_STRING(0, "thresholds", &(src).thresholds, "FILE", thresholds_help),              \
	OPT_BOOL(0, "probe", &(src).probe, "probe this host (sysfs, tools) as one more input"), \
	OPT_STRING(0, "root", &(src).root, "DIR",                                             \
	           "probe a captured tree instead of / (implies --probe)"),                   \
	OPT_DURATION(0, "interval", &(src).interval_s,                                        \
	             "probe twice this far apart and judge counter rates (implies --probe)")

/*
 * Initialise @in and gather into it what @src and the @nfiles input files
 * of @files name. No file and no probe is a usage error; a spec whose model
 * compares nothing is a warning. Errors are reported; returns an exit code
 * (EXIT_OK when ready). @in is to be released in every case.
 */
int cli_diag_gather(struct cli_ctx *ctx, struct ft_workflow_sources *src, char **files,
                    int nfiles, struct ft_workflow_inputs *in);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * cli/cli-run.h - what the commands share around the library's work: a
 * check before the work that its record can be saved, and the end that
 * writes what was rendered (implemented in cli/cli-run.c). Arguments are
 * parsed and counted by opts_parse_args() (cli/cli-opts.h).
 */
#ifndef FT_CLI_RUN_H
#define FT_CLI_RUN_H

#include <fabtune/fabtune.h>

#include "cli.h"

/*
 * --save: whether the archive of @ctx opens, checked before @work ("the
 * simulation") so that the work is not lost for want of a place to save
 * it. 0, or -1 after a usage error saying that nothing was run.
 */
int cli_save_check(struct cli_ctx *ctx, const char *work);

/*
 * The end of a command that rendered into @sb: @sb written to stdout when
 * @rc is 0, else @err reported; @sb released in both cases. The exit code.
 */
int cli_finish(const struct cli_ctx *ctx, struct ft_strbuf *sb, int rc, const struct ft_error *err);

#endif

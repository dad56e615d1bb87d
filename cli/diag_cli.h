/* SPDX-License-Identifier: MIT */
/*
 * cli/diag_cli.h - what `fabtune diagnose` and `fabtune advise` share:
 * loading input files into observations, and the expectations that a
 * diagnosis compares measurements with (--expect FILE, --spec SPEC).
 */
#ifndef FT_CLI_DIAG_CLI_H
#define FT_CLI_DIAG_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include <fabtune/fabtune.h>

#include "cli.h"

/* The inputs of a diagnosis: observations and expectations, owned. */
struct diag_inputs {
	struct ft_obs_set obs;
	struct ft_vec expect; /* struct ft_expectation */
	struct ft_run rows;   /* every input's result rows (for the model and --save) */
	size_t nfiles;
	size_t nskipped; /* parse.skipped observations: lines not understood */
};

void diag_inputs_init(struct diag_inputs *in);
void diag_inputs_release(struct diag_inputs *in);

/* Options that make a command probe this host (or a captured tree) as one more input. */
struct diag_probe_opts {
	bool probe;	   /* --probe */
	const char *root;  /* --root DIR: a captured tree (implies --probe, no tools run) */
	double interval_s; /* --interval TIME: counter rates (implies --probe) */
};

/*
 * Gather the inputs of diagnose and advise into @in (initialized by the
 * caller) and point @din at them: parse @nfiles files (format @format, NULL =
 * detect), read @expect_file, ask the model for @spec's expectations, and
 * probe this host per @po. No file and no probe is a usage error. Prints the
 * error and returns the exit code on failure, 0 on success.
 */
int diag_inputs_gather(struct diag_inputs *in, char **files, size_t nfiles, const char *format,
		       const char *expect_file, const char *spec,
		       const struct diag_probe_opts *po, struct cli_ctx *ctx,
		       struct ft_diag_input *din);

/*
 * Fill @t with the defaults, then with the thresholds file @path when not
 * NULL, and point @din at @t. Prints the error and returns the exit code on
 * failure, 0 on success.
 */
int diag_thresholds_load(const char *path, struct ft_diag_thresholds *t, struct cli_ctx *ctx,
			 struct ft_diag_input *din);

/*
 * Expectations of the analytic model on cluster @spec (a file or a preset) for
 * the collective rows of @measured, appended to @out (struct ft_expectation).
 * *@n gets how many were computed. Errors name the spec.
 */
int diag_expectations_from_spec(const char *spec, const struct ft_run *measured, struct ft_vec *out,
				size_t *n, struct ft_error *err);

#endif

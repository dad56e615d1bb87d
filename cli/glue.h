/* SPDX-License-Identifier: MIT */
/*
 * cli/glue.h - the former home of what cli/cli-archive.h (cli_save_run,
 * cli_check_output_path) and fabtune/workflow.h now declare. Nothing new
 * includes it: it only keeps the commands that still do (bench, model, plan,
 * sim) building until they include those headers, and goes with them.
 */
#ifndef FT_CLI_GLUE_H
#define FT_CLI_GLUE_H

#include <fabtune/fabtune.h>

#include "cli-archive.h"

static inline int
cli_save_run_to(struct ft_archive *ar, const struct ft_run *run, const struct ft_obs_set *obs,
                const struct ft_finding *f, size_t nf, int64_t *id, struct ft_error *err)
{
	return ft_workflow_save_run(ar, run, obs, f, nf, id, err);
}

/* Only the pairs pattern's rows become per-pair bandwidths (ft_diag_obs_from_run). */
static inline int
cli_bench_obs(const struct ft_run *run, const char *file, struct ft_obs_set *obs)
{
	return ft_diag_obs_from_run(run, file, obs);
}

static inline int
cli_model_expectations(const struct ft_cluster_spec *spec, const struct ft_run *measured,
                       const char *transport, struct ft_vec *expect, struct ft_run *model,
                       size_t *n, struct ft_error *err)
{
	return ft_workflow_model_expectations(spec, measured, transport, expect, model, n, err);
}

#endif

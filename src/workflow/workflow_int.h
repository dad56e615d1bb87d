/* SPDX-License-Identifier: MIT */
/*
 * workflow/workflow_int.h - what the workflow module's files share and its
 * unit tests reach. Internal to workflow/.
 */
#ifndef FT_WORKFLOW_INT_H
#define FT_WORKFLOW_INT_H

#include <fabtune/archive.h>
#include <fabtune/diag.h>

/*
 * The options the doctor compares a run with its baseline under
 * (workflow/doctor.c): archive compare's defaults, with the baseline's
 * iterations pooled with its runs unless @obs shows a loaded host
 * (host.cpu_foreign at jitter_foreign_cpu_max or more).
 */
void ft__doctor_compare_opts(const struct ft_obs_set *obs, struct ft_compare_opts *o);

/*
 * ft_workflow_model_expectations() with the number of hosts the measured
 * run's lines name (0: unknown): a rank count that divides among them is
 * placed so, @hosts nodes of nranks/hosts ranks, rather than filling nodes.
 */
int ft__workflow_model_expectations_on(const struct ft_cluster_spec *spec,
                                       const struct ft_run *measured, const char *transport,
                                       uint32_t hosts, struct ft_vec *expect,
                                       struct ft_run *model, size_t *n, struct ft_error *err);

#endif

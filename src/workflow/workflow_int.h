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

#endif

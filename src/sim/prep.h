/* SPDX-License-Identifier: MIT */
/*
 * sim/prep.h - an operation made ready for an engine as a scenario run
 * makes it (run.c), for the modules that submit their own operations to an
 * engine (the planner): the cluster's links at the rates NCCL reaches, the
 * engine's configuration for the cluster, and each collective's schedule
 * as NCCL runs it (the tuner's algorithm and protocol, rail-aligned
 * channels, NCCL's per-flow efficiency, the channel and tree caps).
 */
#ifndef FT_SIM_PREP_H
#define FT_SIM_PREP_H

#include "spec/scenario.h"

#include <fabtune/sim.h>
#include <fabtune/topo.h>

/* @t's links at the rates NCCL reaches on engine @eng (ft__sim_nccl_rates); once per
 * topology, before the engine is created. FT_ENOMEM. */
int ft__sim_prepare_topo(struct ft_topo *t, const struct ft_engine_ops *eng,
                         struct ft_error *err) FT_MUST_CHECK;

/* The engine configuration a run of a scenario without options of its own uses on
 * @spec: its fabric's routing, one QP per connection, seed 1, the packet defaults. */
void ft__sim_prepare_cfg(const struct ft_cluster_spec *spec, struct ft_sim_cfg *cfg);

/*
 * @o on @nranks ranks placed on the GPU vertices @rank_gpu of @t, @gpn per node
 * (rank order node by node; 1: no node structure), as a run on engine @eng
 * submits it: *@sched (initialised here; the caller releases it) and the cap on
 * each of its connections *@cap (0: none), for struct ft_sim_op's sched and
 * conn_cap_Bps. Errors name the options (--algo, --op) of the field at fault.
 */
int ft__sim_prepare_op(const struct ft_topo *t, const struct ft_engine_ops *eng,
                       const struct sc_op *o, const uint32_t *rank_gpu, uint32_t nranks,
                       uint32_t gpn, struct ft_schedule *sched, double *cap,
                       struct ft_error *err) FT_MUST_CHECK;

#endif

/* SPDX-License-Identifier: MIT */
/*
 * plan/plan_int.h - what the files of the planner share: derived model
 * figures and the placement of a parallel group on the cluster's ranks.
 */
#ifndef FT_PLAN_INT_H
#define FT_PLAN_INT_H

#include "internal.h"

#include <fabtune/base.h>
#include <fabtune/plan.h>
#include <fabtune/sim.h>

uint32_t ft__plan_head_dim(const struct ft_plan_model *m);
uint32_t ft__plan_kv_heads(const struct ft_plan_model *m);
uint32_t ft__plan_moe_layers(const struct ft_plan_model *m);

enum { FT__DIM_TP, FT__DIM_CP, FT__DIM_PP, FT__DIM_DP, FT__DIM_COUNT };

/*
 * Rank strides of the TP, CP, PP and DP coordinates for @c's order (rank =
 * sum of coordinate x stride). FT_EINVAL naming "order" when it is not a
 * permutation of tp, cp, pp and dp.
 */
int ft__plan_strides(const struct ft_plan_config *c, uint32_t stride[FT__DIM_COUNT],
                     struct ft_error *err);

/*
 * Place a group of @n ranks whose consecutive members are @stride global
 * ranks apart on nodes of @gpn GPUs: one node when they fit, one per node
 * when the stride is a node or more, else gpn / stride per node.
 */
void ft__plan_place(uint32_t n, uint32_t stride, uint32_t gpn, struct ft_plan_place *out);

/* A simulation engine and the topology it runs on, built on first use. */
struct ft_plan_engine {
	const struct ft_cluster_spec *spec;
	const struct ft_engine_ops *ops;
	struct ft_topo *topo;
	struct ft_vec keep; /* uint32_t *: placements the submitted ops borrow */
};

/*
 * Time of @op of @bytes on group @g when every instance of the group runs it
 * at once on @pe's engine (the makespan), each prepared as `fabtune sim` prepares
 * it (ft__sim_prepare_op()) with @algo (CollNet as @collnet's variant: the algo
 * column's collnet_direct or collnet_chain) and the tuner's protocol or, when the
 * simulator cannot lay it out, the tuner's algorithm.
 */
int ft__plan_engine_time(struct ft_plan_engine *pe, const struct ft_plan_config *cfg,
                         enum ft_plan_group g, const struct ft_plan_place *pl, enum ft_op op,
                         enum ft_algo algo, enum ft_collnet_variant collnet, uint64_t bytes,
                         double *out_s, struct ft_error *err);
/*
 * Run the first operation of every group of @p at once, every instance of
 * each, on @pe's engine; together[i] gets the slowest instance's time of
 * @p->comms[i] for the operations that ran, 0 for the others.
 */
int ft__plan_engine_together(struct ft_plan_engine *pe, const struct ft_plan_config *cfg,
                             const struct ft_plan *p, double *together, struct ft_error *err);
void ft__plan_engine_drop_keep(struct ft_plan_engine *pe);

/* ft_plan_compute() with the model's queries kept in @cache (NULL: none; a search's, so
 * each node's in-node links are laid out once over its configurations: model.h). */
int ft__plan_compute(const struct ft_cluster_spec *spec, const struct ft_plan_model *model,
                     const struct ft_plan_config *cfg, struct ft_plan *out,
                     struct ft_model_cache *cache, struct ft_error *err);

/* Routing skew of @m under @c (zipf, place_by_heat) on EP ranks: max_load, dropped share. */
int ft__plan_moe_skew(struct ft_plan_moe *out, const struct ft_plan_model *m,
                      const struct ft_plan_config *c);

/* The names --recompute, --precision and --optimizer take (ft__name_read; models.c). */
extern const struct ft__name_set ft__plan_recomputes;
extern const struct ft__name_set ft__plan_precisions;
extern const struct ft__name_set ft__plan_optimizers;

#endif

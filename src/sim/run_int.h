/* SPDX-License-Identifier: MIT */
/*
 * sim/run_int.h - what a scenario run's files share: a job as it runs
 * (run.c), the faults applied to the topology (faults.c), the report
 * gathered from the engine's counters (gather.c).
 */
#ifndef FT_SIM_RUN_INT_H
#define FT_SIM_RUN_INT_H

#include "sim_int.h"

struct job_run {
	uint32_t *rank_gpu;
	uint32_t nranks;
	uint32_t gpn; /* ranks per node */
	/* Nodes of different GPU counts, packed (else NULL): node k of the job holds
	 * ranks node_first[k] to node_first[k + 1] - 1, its kind node_kind[k]. */
	uint32_t *node_first;
	const struct ft_node_spec **node_kind;
	uint32_t nnodes;
	double compute_s;
	struct ft_vec first_ops; /* int64_t op ids of iteration 0, one per sc_op (first repeat) */
	struct ft_vec first_algo; /* uint32_t triples (algo, proto, CollNetChain) each of those ops
	                             ran with */
	int64_t last_op;
	/* The engine cuts NCCL's pipeline into chunks itself (the packet engine): NCCL's
	 * tree correction, which stands for that pipeline's losses, is left out. */
	bool chunked;
	/* The packet engine with packet.chunking: off, which has no whole-flow NVLS across
	 * nodes (pkt_tree.c ft__pk_submit_tree()) */
	bool unchunked;
	bool nvls_off; /* NCCL_NVLS_ENABLE=0: the job's nvls: false, or --no-nvls */
	/* the run's model cache (ft_scenario_run()), borrowed: the tuner's pick reads it;
	 * NULL: uncached, the same picks */
	struct ft_model_cache *cache;
};

/* The size op @o runs at: --bytes (ft_sim_overrides.bytes) when given, else its own. */
static inline uint64_t
ft__sim_op_bytes(const struct sc_op *o, const struct ft_sim_overrides *ov)
{
	return ov && ov->bytes ? ov->bytes : o->bytes;
}

/* Apply @sc's faults to @t's links (and the GPUs' slowdown into @gpu_slow, one per GPU
 * vertex); FT_EINVAL naming the fault's file:line:col and field. */
int ft__sim_apply_faults(const struct ft_scenario *sc, struct ft_topo *t, double *gpu_slow,
                         struct ft_error *err);
/* Multiply every host and fabric link's rate of @t by @scale (1: nothing). */
int ft__sim_apply_fabric_scale(struct ft_topo *t, double scale);
/* A fault in words, for reports: what, where, and how much of it is left. */
void ft__sim_fault_text(const struct sc_fault *f, char *buf, size_t len);
/* The report of a run from the engine's counters @c: a row per op of every job of @jrs,
 * the links, the hottest, utilization by class. */
/* --list-flows: the engine's flow rows in words into r->flows (ops named by job and,
 * for a first iteration's, by collective). FT_ENOMEM. */
int ft__sim_gather_flows(const struct ft_scenario *sc, const struct ft_topo *t,
                         const struct ft_sim_counters *c, const struct job_run *jrs,
                         struct ft_sim_report *r, struct ft_error *err) FT_MUST_CHECK;
int ft__sim_gather(const struct ft_scenario *sc, const struct ft_topo *t,
                   const struct ft_sim_counters *c, struct job_run *jrs,
                   const struct ft_sim_overrides *ov, struct ft_sim_report *r,
                   struct ft_error *err);

#endif

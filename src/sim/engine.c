/* SPDX-License-Identifier: MIT */
/*
 * sim/engine.c - the registry of simulation engines and engine defaults.
 */
#include "sim_int.h"

#include <fabtune/sim.h>

static const struct ft_engine_ops *const engines[] = {
	&ft_analytic_engine,
	&ft_flow_engine,
	&ft_ideal_engine,
	&ft_packet_engine,
};

size_t
ft_sim_engine_count(void)
{
	return FT_ARRAY_SIZE(engines);
}

const struct ft_engine_ops *
ft_sim_engine_at(size_t i)
{
	return i < FT_ARRAY_SIZE(engines) ? engines[i] : NULL;
}

const struct ft_engine_ops *
ft_sim_engine_find(const char *name)
{
	size_t i;

	for (i = 0; i < FT_ARRAY_SIZE(engines); i++)
		if (strcmp(engines[i]->name, name) == 0)
			return engines[i];
	return NULL;
}

void
ft_sim_cfg_init(struct ft_sim_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->routing = FT_ROUTING_ECMP;
	cfg->qps_per_conn = 1;
	cfg->seed = 1;
}

/*
 * The two vertices a schedule flow runs between: the ranks' GPUs, or for the
 * in-network reduction engine (FT_SCHED_INNET) the vertex that stands for it
 * seen from the other end's GPU: the fabric's (CollNet's) for a flow marked
 * net, which NVLS across nodes has beside its NVSwitch flows. A flow naming a
 * rank past the schedule's is an error.
 */
int
ft__sim_flow_ends(const struct ft_topo *topo, const struct ft_schedule *sc,
                  const struct ft_sim_op *op, const struct ft_sched_flow *fl, uint32_t *a,
                  uint32_t *b, struct ft_error *err)
{
	enum ft_algo innet = fl->net ? FT_ALGO_COLLNET : sc->algo;

	if (fl->src == FT_SCHED_INNET && fl->dst < sc->nranks) {
		*b = op->rank_gpu[fl->dst];
		*a = ft__sim_innet_vertex(topo, *b, innet);
		return 0;
	}
	if (fl->dst == FT_SCHED_INNET && fl->src < sc->nranks) {
		*a = op->rank_gpu[fl->src];
		*b = ft__sim_innet_vertex(topo, *a, innet);
		return 0;
	}
	if (fl->src >= sc->nranks || fl->dst >= sc->nranks)
		return ft_error_set(err, FT_EINVAL, "sim: a flow names rank %u of %u",
		                    FT_MAX(fl->src, fl->dst), sc->nranks);
	*a = op->rank_gpu[fl->src];
	*b = op->rank_gpu[fl->dst];
	return 0;
}

uint32_t
ft__sim_flow_nic(const struct ft_topo *topo, const struct ft_sched_flow *fl, uint32_t a, uint32_t b)
{
	const struct ft_vertex *v = ft_topo_vertex(topo, a);
	const struct ft_node_spec *n;
	uint32_t k = (fl->nic & ~FT_SCHED_NIC_IN) - 1u;

	if (!(fl->nic & ~FT_SCHED_NIC_IN) || v->kind != FT_V_GPU || !ft__sim_over_network(topo, a, b))
		return UINT32_MAX;
	/* the node's own placement (a map built for another node's shape names none here) */
	n = ft__sim_node(topo, v->node);
	if (!ft__sim_nic_own_reach(n, v->local, k))
		return UINT32_MAX;
	return ft_topo_nic(topo, v->node, k) | (fl->nic & FT_SCHED_NIC_IN ? FT_SIM_NIC_IN : 0);
}

uint8_t
ft__sim_flow_nic_id(const struct ft_topo *topo, const struct ft_sched_flow *fl, uint32_t a,
                    uint32_t b)
{
	return ft__sim_flow_nic(topo, fl, a, b) == UINT32_MAX ? 0 : fl->nic;
}

bool
ft__sim_nic_own_reach(const struct ft_node_spec *n, uint32_t gpu, uint32_t nic)
{
	return gpu < FT_SPEC_MAX_GPUS && nic < n->nnics && n->nics_per_gpu <= 1 &&
	       (ft_node_gpu_c2c(n) ||
	        (n->npcie_switches > 0 && n->gpu_pcie_switch[gpu] == n->nic_pcie_switch[nic]));
}

uint32_t
ft__sim_max_start_ns(const struct ft_schedule *sc)
{
	uint32_t m = 0;

	for (size_t i = 0; i < sc->flows.len; i++)
		m = FT_MAX(m, FT_VEC_AT(&sc->flows, struct ft_sched_flow, i).start_ns);
	return m;
}

int
ft__sim_start_wait(const struct ft_sim_op *op, double shift_s, double *wait_s, struct ft_error *err)
{
	if (op->after >= 0 && op->delay_s < shift_s)
		return ft_error_set(err, FT_EINVAL,
		                    "sim: an op waits %.3f us after op %lld, whose flows start up "
		                    "to %.3f us late: expected at least that",
		                    op->delay_s * 1e6, (long long)op->after, shift_s * 1e6);
	*wait_s = (op->after >= 0 ? op->delay_s - shift_s : op->delay_s) + op->sched->base_lat_s;
	return 0;
}

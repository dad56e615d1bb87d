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

/* SPDX-License-Identifier: MIT */
/*
 * sim/node.c - what the runner and the flow engine read of a node: its GPUs,
 * its NICs and which NIC each GPU leaves the node through, asked of the
 * topology node by node rather than of one node description taken as true
 * for every node, so that nodes of different kinds (node groups, several
 * NICs per GPU) need changes here only.
 */
#include "sim_int.h"

const struct ft_node_spec *
ft__sim_node(const struct ft_topo *t, uint32_t node)
{
	(void)node; /* one node description per cluster today */
	return &ft_topo_spec(t)->node;
}

uint32_t
ft__sim_node_ngpus(const struct ft_topo *t, uint32_t node)
{
	uint32_t g = 0, v;

	while ((v = ft_topo_gpu(t, node, g)) != UINT32_MAX &&
	       ft_topo_vertex(t, v)->kind == FT_V_GPU && ft_topo_vertex(t, v)->node == node)
		g++;
	return g;
}

uint32_t
ft__sim_node_nnics(const struct ft_topo *t, uint32_t node)
{
	uint32_t r = 0, v;

	while ((v = ft_topo_nic(t, node, r)) != UINT32_MAX &&
	       ft_topo_vertex(t, v)->kind == FT_V_NIC && ft_topo_vertex(t, v)->node == node)
		r++;
	return r;
}

uint32_t
ft__sim_gpu_nic_index(const struct ft_topo *t, uint32_t gpu_v)
{
	const struct ft_vertex *g = ft_topo_vertex(t, gpu_v);
	const struct ft_node_spec *n;
	uint32_t r;

	if (g->kind != FT_V_GPU || g->node == FT_NO_NODE)
		return UINT32_MAX;
	n = ft__sim_node(t, g->node);
	if (g->local >= n->ngpus || g->local >= FT_SPEC_MAX_GPUS)
		return UINT32_MAX;
	r = n->gpu_nic[g->local];
	return r < ft__sim_node_nnics(t, g->node) ? r : UINT32_MAX;
}

uint32_t
ft__sim_gpu_nic(const struct ft_topo *t, uint32_t gpu_v)
{
	uint32_t r = ft__sim_gpu_nic_index(t, gpu_v);

	return r == UINT32_MAX ? UINT32_MAX : ft_topo_nic(t, ft_topo_vertex(t, gpu_v)->node, r);
}

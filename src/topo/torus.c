/* SPDX-License-Identifier: MIT */
/*
 * topo/torus.c - 2D/3D torus of switches with wrap-around links in every
 * dimension, and dimension-order routing.
 *
 * Switch (x, y, z) has index (x * dims[1] + y) * dims[2] + z; each switch
 * links to its +1 neighbour in every dimension of size >= 2 (the wrap link
 * closes the ring; a dimension of size 2 thus has two parallel cables).
 * Node n sits on switch n / nodes_per_switch (0 counts as 1: the node's own
 * router). Dimension-order routing corrects x first, then y, then z, each
 * along the shorter way round the ring; when both ways are equally short
 * both are equal-cost choices.
 */
#include "topo_int.h"

int
ft__topo_torus_plan(struct ft_topo *t, struct ft_error *err)
{
	const struct ft_fabric_spec *f = &t->spec.fabric;
	uint32_t per = f->nodes_per_switch ? f->nodes_per_switch : 1;
	uint64_t n = 1;

	if (f->ndims != 2 && f->ndims != 3)
		return ft_error_set(err, FT_EINVAL, "fabric.ndims: expected 2 or 3, got %" PRIu32,
		                    f->ndims);
	for (uint32_t d = 0; d < 3; d++) {
		uint32_t size = d < f->ndims ? f->dims[d] : 1;

		if (size == 0)
			return ft_error_set(err, FT_EINVAL,
			                    "fabric.dims[%" PRIu32 "]: expected at least 1, got 0",
			                    d);
		t->tor_dims[d] = size;
		n *= size;
	}
	if (n * per < t->spec.nnodes)
		return ft_error_set(err, FT_EINVAL,
		                    "fabric.dims: a torus of %" PRIu64 " switches with %" PRIu32
		                    " nodes each holds %" PRIu64 " nodes, got %" PRIu32,
		                    n, per, n * per, t->spec.nnodes);
	if (n >= UINT32_MAX / 4)
		return ft_error_set(err, FT_ERANGE, "fabric.dims: too many switches");
	t->tor_n = (uint32_t)n;
	t->nswitches = (uint32_t)n;
	return 0;
}

static void
coords(const struct ft_topo *t, uint32_t idx, uint32_t c[3])
{
	c[2] = idx % t->tor_dims[2];
	c[1] = idx / t->tor_dims[2] % t->tor_dims[1];
	c[0] = idx / (t->tor_dims[2] * t->tor_dims[1]);
}

static uint32_t
index_of(const struct ft_topo *t, const uint32_t c[3])
{
	return (c[0] * t->tor_dims[1] + c[1]) * t->tor_dims[2] + c[2];
}

static uint32_t
neighbour(const struct ft_topo *t, uint32_t idx, uint32_t d, int dir)
{
	uint32_t c[3];

	coords(t, idx, c);
	c[d] = (c[d] + t->tor_dims[d] + (uint32_t)dir) % t->tor_dims[d];
	return index_of(t, c);
}

int
ft__topo_torus_build(struct ft_builder *b)
{
	struct ft_topo *t = b->t;
	const struct ft_fabric_spec *f = &t->spec.fabric;
	uint32_t per = f->nodes_per_switch ? f->nodes_per_switch : 1;
	double cap = ft__topo_fabric_Bps(t);
	double cable = f->lat_cable_s, hop = f->lat_cable_s + f->lat_switch_s;
	int rc = 0;

	for (uint32_t i = 0; i < t->tor_n; i++)
		ft__topo_set_vertex(t, t->switch_base + i, FT_V_SWITCH, 1, 0, FT_NO_NODE, i, 0);
	for (uint32_t n = 0; n < t->spec.nnodes && rc == 0; n++)
		for (uint32_t i = 0; i < ft_spec_node_at(&t->spec, n)->nnics && rc == 0; i++) {
			t->nic_key[(size_t)n * t->nic_stride + i] = n * t->nic_stride + i;
			rc = ft__topo_add_edge(b, ft_topo_nic(t, n, i), t->switch_base + n / per,
			                       FT_L_HOST, 1, true, ft__topo_host_Bps_node(t, n),
			                       cable, hop);
		}
	for (uint32_t i = 0; i < t->tor_n && rc == 0; i++)
		for (uint32_t d = 0; d < 3 && rc == 0; d++)
			if (t->tor_dims[d] >= 2)
				rc = ft__topo_add_edge(b, t->switch_base + i,
				                       t->switch_base + neighbour(t, i, d, 1),
				                       FT_L_FABRIC, 2, false, cap, hop, hop);
	return rc;
}

static int
push_links_to(const struct ft_topo *t, uint32_t at, uint32_t to, uint32_t dst_nic, uint32_t *links,
              size_t max, int n)
{
	uint32_t first, cnt = ft__topo_links_to_range(t, at, to, to + 1, &first);
	bool check = t->ndown > 0;

	for (uint32_t l = first; l < first + cnt; l++) {
		if (check && (!ft__topo_link_live(t, l) ||
		              (to != dst_nic && ft__route_torus(t, to, dst_nic, NULL, 0) <= 0)))
			continue;
		if ((size_t)n < max)
			links[n] = l;
		n++;
	}
	return n;
}

int
ft__route_torus(const struct ft_topo *t, uint32_t at, uint32_t dst_nic, uint32_t *links, size_t max)
{
	uint32_t hl = ft__topo_nic_host_link(t, dst_nic), ds, ca[3], cd[3];
	int n = 0;

	if (hl == UINT32_MAX || t->v[at].kind != FT_V_SWITCH)
		return FT_ENOENT;
	ds = t->l[hl].dst;
	if (ds == at) {
		n = push_links_to(t, at, dst_nic, dst_nic, links, max, 0);
		return n ? n : FT_ENOENT;
	}
	coords(t, at - t->switch_base, ca);
	coords(t, ds - t->switch_base, cd);
	for (uint32_t d = 0; d < 3; d++) {
		uint32_t size = t->tor_dims[d], fwd, back, idx = at - t->switch_base;

		if (ca[d] == cd[d])
			continue;
		fwd = (cd[d] + size - ca[d]) % size;
		back = size - fwd;
		if (fwd <= back)
			n = push_links_to(t, at, t->switch_base + neighbour(t, idx, d, 1), dst_nic,
			                  links, max, n);
		if (back <= fwd && !(size == 2))
			n = push_links_to(t, at, t->switch_base + neighbour(t, idx, d, -1), dst_nic,
			                  links, max, n);
		return n ? n : FT_ENOENT;
	}
	return FT_ENOENT;
}

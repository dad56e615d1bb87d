/* SPDX-License-Identifier: MIT */
/*
 * topo/dragonfly.c - dragonfly: groups of routers joined all-to-all inside the
 * group (local links), groups joined all-to-all by global links.
 *
 * Node n sits on router n / nodes_per_router (all its NICs). Each group has
 * routers_per_group * global_links_per_router global ports, numbered router-
 * major; between every pair of groups there are
 * M = floor(ports / (groups - 1)) global links. The m-th link from group G to
 * group H uses G's port ((H - G - 1) mod groups) + m * (groups - 1), so every
 * pair gets M links and no port is used twice (a "consecutive" arrangement).
 * Minimal routing: local hop to a router with a global link to the
 * destination group, the global hop, a local hop to the destination router.
 */
#include "topo_int.h"

int
ft__topo_dragonfly_plan(struct ft_topo *t, struct ft_error *err)
{
	const struct ft_fabric_spec *f = &t->spec.fabric;
	uint32_t a = f->routers_per_group, p = f->nodes_per_router, h = f->global_links_per_router;
	uint64_t g;

	if (a == 0)
		return ft_error_set(err, FT_EINVAL,
		                    "fabric.routers_per_group: expected at least 1, got 0");
	if (p == 0)
		return ft_error_set(err, FT_EINVAL,
		                    "fabric.nodes_per_router: expected at least 1, got 0");
	g = f->groups ? f->groups : (t->spec.nnodes + (uint64_t)a * p - 1) / ((uint64_t)a * p);
	if ((uint64_t)g * a * p < t->spec.nnodes)
		return ft_error_set(err, FT_EINVAL,
		                    "fabric.groups: %" PRIu64 " groups of %" PRIu32
		                    " routers with %" PRIu32 " nodes each hold %" PRIu64
		                    " nodes, got %" PRIu32,
		                    g, a, p, g * a * p, t->spec.nnodes);
	if (g * a >= UINT32_MAX / 4)
		return ft_error_set(err, FT_ERANGE, "fabric.groups: too many routers");
	if (g > 1 && (uint64_t)a * h < g - 1)
		return ft_error_set(err, FT_EINVAL,
		                    "fabric.global_links_per_router: %" PRIu64
		                    " groups need %" PRIu64 " global ports per group, %" PRIu32
		                    " routers x %" PRIu32 " give %" PRIu64,
		                    g, g - 1, a, h, (uint64_t)a * h);
	t->df_groups = (uint32_t)g;
	t->df_routers = a;
	t->df_global_per_pair = g > 1 ? (uint32_t)((uint64_t)a * h / (g - 1)) : 0;
	t->nswitches = (uint32_t)(g * a);
	return 0;
}

static uint32_t
port_router(const struct ft_topo *t, uint32_t from, uint32_t to, uint32_t m)
{
	uint32_t g = t->df_groups;
	uint32_t off = (to + g - from - 1) % g;

	return (off + m * (g - 1)) / t->spec.fabric.global_links_per_router;
}

static uint32_t
router_id(const struct ft_topo *t, uint32_t group, uint32_t r)
{
	return t->switch_base + group * t->df_routers + r;
}

int
ft__topo_dragonfly_build(struct ft_builder *b)
{
	struct ft_topo *t = b->t;
	const struct ft_fabric_spec *f = &t->spec.fabric;
	uint32_t g = t->df_groups, a = t->df_routers;
	double cap = ft__topo_fabric_Bps(t);
	double cable = f->lat_cable_s, hop = f->lat_cable_s + f->lat_switch_s;
	int rc = 0;

	for (uint32_t i = 0; i < g * a; i++)
		ft__topo_set_vertex(t, t->switch_base + i, FT_V_SWITCH, 1, 0, FT_NO_NODE, i % a,
		                    i / a);
	for (uint32_t n = 0; n < t->spec.nnodes && rc == 0; n++) {
		uint32_t r = t->switch_base + n / f->nodes_per_router;

		for (uint32_t i = 0; i < ft_spec_node_at(&t->spec, n)->nnics && rc == 0; i++) {
			t->nic_key[(size_t)n * t->nic_stride + i] = n * t->nic_stride + i;
			rc = ft__topo_add_edge(b, ft_topo_nic(t, n, i), r, FT_L_HOST, 1, true,
			                       ft__topo_host_Bps_node(t, n), cable, hop);
		}
	}
	for (uint32_t grp = 0; grp < g && rc == 0; grp++)
		for (uint32_t i = 0; i < a && rc == 0; i++)
			for (uint32_t j = i + 1; j < a && rc == 0; j++)
				rc = ft__topo_add_edge(b, router_id(t, grp, i),
				                       router_id(t, grp, j), FT_L_FABRIC, 2, false,
				                       cap, hop, hop);
	for (uint32_t x = 0; x < g && rc == 0; x++)
		for (uint32_t y = x + 1; y < g && rc == 0; y++)
			for (uint32_t m = 0; m < t->df_global_per_pair && rc == 0; m++)
				rc = ft__topo_add_edge(b, router_id(t, x, port_router(t, x, y, m)),
				                       router_id(t, y, port_router(t, y, x, m)),
				                       FT_L_FABRIC, 3, false, cap, hop, hop);
	return rc;
}

/* Router @r reaches NIC @dst_nic on router @dr of its own group over live links. */
static bool
reach_in_group(const struct ft_topo *t, uint32_t r, uint32_t dr, uint32_t dst_nic)
{
	uint32_t first, n;
	bool ok = false;

	n = ft__topo_links_to_range(t, dr, dst_nic, dst_nic + 1, &first);
	for (uint32_t l = first; l < first + n; l++)
		ok = ok || ft__topo_link_live(t, l);
	if (!ok || r == dr)
		return ok;
	n = ft__topo_links_to_range(t, r, dr, dr + 1, &first);
	for (uint32_t l = first; l < first + n; l++)
		if (ft__topo_link_live(t, l))
			return true;
	return false;
}

static int
push(uint32_t *links, size_t max, int n, uint32_t l)
{
	if ((size_t)n < max)
		links[n] = l;
	return n + 1;
}

/*
 * Live global links of router @r toward group @grp; with @dst_nic (else
 * UINT32_MAX) only those whose landing router still reaches it.
 */
static int
globals_to(const struct ft_topo *t, uint32_t r, uint32_t grp, uint32_t dr, uint32_t dst_nic,
           uint32_t *links, size_t max)
{
	uint32_t first, cnt = ft__topo_links_to_range(t, r, router_id(t, grp, 0),
	                                              router_id(t, grp, 0) + t->df_routers, &first);
	bool check = t->ndown > 0;
	int n = 0;

	for (uint32_t l = first; l < first + cnt; l++) {
		if (check &&
		    (!ft__topo_link_live(t, l) ||
		     (dst_nic != UINT32_MAX && !reach_in_group(t, t->l[l].dst, dr, dst_nic))))
			continue;
		n = push(links, max, n, l);
	}
	return n;
}

int
ft__route_dragonfly_to_group(const struct ft_topo *t, uint32_t at, uint32_t grp, uint32_t *links,
                             size_t max)
{
	return ft__route_dragonfly_hops(t, at, grp, UINT32_MAX, UINT32_MAX, links, max);
}

int
ft__route_dragonfly_hops(const struct ft_topo *t, uint32_t at, uint32_t grp, uint32_t dr,
                         uint32_t dst_nic, uint32_t *links, size_t max)
{
	uint32_t g = t->v[at].group, first, cnt;
	bool check = t->ndown > 0;
	int n;

	if (g == grp)
		return 0;
	n = globals_to(t, at, grp, dr, dst_nic, links, max);
	if (n > 0)
		return n;
	/* Local hop to the routers of this group that own a global link to @grp. */
	for (uint32_t m = 0, prev = UINT32_MAX; m < t->df_global_per_pair; m++) {
		/* Ports grow with m, so a router's ports toward @grp are consecutive. */
		uint32_t r = router_id(t, g, port_router(t, g, grp, m));

		if (r == prev || r == at || globals_to(t, r, grp, dr, dst_nic, NULL, 0) == 0) {
			prev = r;
			continue;
		}
		prev = r;
		cnt = ft__topo_links_to_range(t, at, r, r + 1, &first);
		for (uint32_t l = first; l < first + cnt; l++)
			if (!check || ft__topo_link_live(t, l))
				n = push(links, max, n, l);
	}
	return n ? n : FT_ENOENT;
}

int
ft__route_dragonfly(const struct ft_topo *t, uint32_t at, uint32_t dst_nic, uint32_t *links,
                    size_t max)
{
	uint32_t hl = ft__topo_nic_host_link(t, dst_nic), dr, first, cnt;
	bool check = t->ndown > 0;
	int n = 0;

	if (hl == UINT32_MAX || t->v[at].kind != FT_V_SWITCH)
		return FT_ENOENT;
	dr = t->l[hl].dst;
	if (t->v[dr].group != t->v[at].group)
		return ft__route_dragonfly_hops(t, at, t->v[dr].group, dr, dst_nic, links, max);
	if (!reach_in_group(t, at, dr, dst_nic) && check)
		return FT_ENOENT;
	cnt = ft__topo_links_to_range(t, at, at == dr ? dst_nic : dr, (at == dr ? dst_nic : dr) + 1,
	                              &first);
	for (uint32_t l = first; l < first + cnt; l++)
		if (!check || ft__topo_link_live(t, l))
			n = push(links, max, n, l);
	return n ? n : FT_ENOENT;
}

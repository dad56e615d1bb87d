/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_topo.c - topology invariants and routing: link counts per
 * tier against their formulas, reverse links, reachability, path lengths,
 * ECMP spread, D-mod-K balance, dragonfly Valiant, torus dimension order,
 * in-node paths, down links, statistics, exports and bad specs.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cmocka.h needs the headers above it. */
/* clang-format off */
#include <cmocka.h>
/* clang-format on */

#include "source_root.h"

#include <fabtune/fabtune.h>
#include <fabtune/spec.h>
#include <fabtune/topo.h>

#define GBPS(x) ((x)*1e9 / 8)

/* A DGX-H100-like node: 8 GPUs on an NVSwitch, 4 PCIe switches of 2 GPUs + 2 NICs, 2 sockets. */
static void
dgx_node(struct ft_node_spec *n)
{
	memset(n, 0, sizeof(*n));
	n->ngpus = 8;
	n->nvlink_gen = 4;
	n->nvlink_Bps = 450e9;
	n->lat_nvlink_s = 1e-6;
	n->nvswitch = true;
	n->pcie_gen = 5;
	n->pcie_Bps_gpu = 55e9;
	n->pcie_Bps_nic = 55e9;
	n->lat_pcie_s = 0.5e-6;
	n->npcie_switches = 4;
	n->nnuma = 2;
	n->cpu_link_Bps = 60e9;
	n->nnics = 8;
	n->nic_Bps = GBPS(400);
	for (int i = 0; i < 8; i++) {
		n->gpu_pcie_switch[i] = i / 2;
		n->gpu_numa[i] = i / 4;
		n->gpu_nic[i] = i;
		n->nic_pcie_switch[i] = i / 2;
		n->nic_numa[i] = i / 4;
	}
	for (int i = 0; i < 4; i++)
		n->pcie_switch_numa[i] = i / 2;
}

/* A thin node: 1 GPU, 1 NIC, straight to its CPU (no PCIe switch, no NVLink). */
static void
thin_node(struct ft_node_spec *n)
{
	memset(n, 0, sizeof(*n));
	n->ngpus = 1;
	n->pcie_Bps_gpu = 25e9;
	n->pcie_Bps_nic = 25e9;
	n->lat_pcie_s = 0.5e-6;
	n->nnuma = 1;
	n->nnics = 1;
	n->nic_Bps = GBPS(200);
}

static void
fabric(struct ft_cluster_spec *s, enum ft_fabric_kind kind, uint32_t nnodes)
{
	snprintf(s->name, sizeof(s->name), "test");
	s->nnodes = nnodes;
	s->fabric.kind = kind;
	s->fabric.link_Bps = GBPS(400);
	s->fabric.lat_switch_s = 200e-9;
	s->fabric.lat_cable_s = 10e-9;
}

static struct ft_topo *
fat_tree(bool thin, uint32_t nnodes, uint32_t tiers, uint32_t radix, double oversub)
{
	struct ft_cluster_spec s = { 0 };
	struct ft_topo *t = NULL;
	struct ft_error err = { 0 };

	if (thin)
		thin_node(&s.node);
	else
		dgx_node(&s.node);
	fabric(&s, FT_FABRIC_FAT_TREE, nnodes);
	s.fabric.tiers = tiers;
	s.fabric.radix = radix;
	s.fabric.oversubscription = oversub;
	if (ft_topo_build(&s, &t, &err) < 0)
		fail_msg("build: %s", err.msg);
	return t;
}

static struct ft_topo *
build_or_fail(const struct ft_cluster_spec *s)
{
	struct ft_topo *t = NULL;
	struct ft_error err = { 0 };

	if (ft_topo_build(s, &t, &err) < 0)
		fail_msg("build: %s", err.msg);
	return t;
}

/* Count directed links of @kind whose tier is @tier. */
static uint32_t
count_links(const struct ft_topo *t, enum ft_link_kind kind, unsigned tier)
{
	uint32_t n = 0;

	for (uint32_t l = 0; l < ft_topo_nlinks(t); l++) {
		const struct ft_link *k = ft_topo_link(t, l);

		n += k->kind == kind && k->tier == tier;
	}
	return n;
}

static uint32_t
count_switches(const struct ft_topo *t, unsigned tier)
{
	uint32_t n = 0;

	for (uint32_t v = 0; v < ft_topo_nvertices(t); v++) {
		const struct ft_vertex *x = ft_topo_vertex(t, v);

		n += x->kind == FT_V_SWITCH && x->tier == tier;
	}
	return n;
}

static void
check_reverse_and_csr(const struct ft_topo *t)
{
	for (uint32_t v = 0; v < ft_topo_nvertices(t); v++) {
		uint32_t first, n;

		ft_topo_out_links(t, v, &first, &n);
		for (uint32_t l = first; l < first + n; l++)
			assert_int_equal(ft_topo_link(t, l)->src, v);
	}
	for (uint32_t l = 0; l < ft_topo_nlinks(t); l++) {
		const struct ft_link *a = ft_topo_link(t, l), *b = ft_topo_link(t, a->rev);

		assert_int_not_equal(a->rev, l);
		assert_int_equal(b->rev, l);
		assert_int_equal(a->src, b->dst);
		assert_int_equal(a->dst, b->src);
		assert_int_equal(a->kind, b->kind);
		assert_true(a->cap_Bps == b->cap_Bps && a->cap_Bps > 0);
		assert_false(a->up && b->up);
	}
}

/* The path is a chain of links from @src to @dst; on fat-trees it never goes up after down. */
static void
check_path(const struct ft_topo *t, uint32_t src, uint32_t dst, const struct ft_path *p,
           bool updown)
{
	uint32_t at = src;
	bool went_down = false;

	for (uint32_t i = 0; i < p->nlinks; i++) {
		const struct ft_link *k = ft_topo_link(t, p->links[i]);

		assert_int_equal(k->src, at);
		if (updown && (k->kind == FT_L_FABRIC || k->kind == FT_L_HOST)) {
			if (k->up)
				assert_false(went_down);
			else
				went_down = true;
		}
		at = k->dst;
	}
	assert_int_equal(at, dst);
}

static uint32_t
fabric_links(const struct ft_topo *t, const struct ft_path *p)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->nlinks; i++) {
		uint8_t k = ft_topo_link(t, p->links[i])->kind;

		n += k == FT_L_FABRIC || k == FT_L_HOST;
	}
	return n;
}

static void
test_node_interior(void **state)
{
	struct ft_cluster_spec s = { 0 };
	struct ft_topo *t;
	struct ft_topo_stats st;
	struct ft_path p;
	struct ft_route_policy pol = { .routing = FT_ROUTING_ECMP };
	uint32_t links[8];
	bool cpu = false;

	dgx_node(&s.node);
	fabric(&s, FT_FABRIC_NONE, 1);
	t = build_or_fail(&s);
	check_reverse_and_csr(t);
	assert_int_equal(ft_topo_stats(t, &st, NULL), 0);
	assert_int_equal(st.nvertices_by_kind[FT_V_GPU], 8);
	assert_int_equal(st.nvertices_by_kind[FT_V_NIC], 8);
	assert_int_equal(st.nvertices_by_kind[FT_V_PCIE_SWITCH], 4);
	assert_int_equal(st.nvertices_by_kind[FT_V_CPU], 2);
	assert_int_equal(st.nvertices_by_kind[FT_V_NVSWITCH], 1);
	assert_int_equal(st.nlinks_by_kind[FT_L_NVLINK], 2 * 8);
	assert_int_equal(st.nlinks_by_kind[FT_L_PCIE], 2 * (8 + 8 + 4));
	assert_int_equal(st.nlinks_by_kind[FT_L_CPU], 2);
	assert_int_equal(st.nlinks_by_kind[FT_L_HOST], 0);

	/* GPU to GPU: through the NVSwitch (2 NVLink hops), not PCIe. */
	assert_int_equal(ft_route_path(t, ft_topo_gpu(t, 0, 0), ft_topo_gpu(t, 0, 1), &pol, &p), 0);
	assert_int_equal(p.nlinks, 2);
	for (uint32_t i = 0; i < p.nlinks; i++)
		assert_int_equal(ft_topo_link(t, p.links[i])->kind, FT_L_NVLINK);
	assert_true(fabs(p.lat_s - 1e-6) < 1e-15);
	/* GPU to its own NIC: one PCIe switch. */
	assert_int_equal(ft_route_path(t, ft_topo_gpu(t, 0, 0), ft_topo_nic(t, 0, 0), &pol, &p), 0);
	assert_int_equal(p.nlinks, 2);
	/* Cross-NUMA GPU -> NIC: up to CPU 0, over the socket link, down to NIC 7. */
	assert_int_equal(ft_route_path(t, ft_topo_gpu(t, 0, 0), ft_topo_nic(t, 0, 7), &pol, &p), 0);
	check_path(t, ft_topo_gpu(t, 0, 0), ft_topo_nic(t, 0, 7), &p, false);
	assert_int_equal(p.nlinks, 5);
	for (uint32_t i = 0; i < p.nlinks; i++)
		cpu = cpu || ft_topo_link(t, p.links[i])->kind == FT_L_CPU;
	assert_true(cpu);
	assert_int_equal(
	        ft_route_next_hops(t, ft_topo_gpu(t, 0, 0), ft_topo_nic(t, 0, 7), links, 8), 1);
	assert_int_equal(
	        ft_route_next_hops(t, ft_topo_gpu(t, 0, 3), ft_topo_gpu(t, 0, 3), links, 8), 0);
	/* No fabric: another node is unreachable, out of range ids are refused. */
	assert_int_equal(ft_topo_gpu(t, 1, 0), UINT32_MAX);
	assert_int_equal(ft_route_next_hops(t, 0, ft_topo_nvertices(t), links, 8), FT_EINVAL);
	ft_topo_free(t);

	/* NVLink without a switch: every GPU pair directly; PCIe-only: no NVLink at all. */
	s.node.nvswitch = false;
	s.node.ngpus = 4;
	t = build_or_fail(&s);
	assert_int_equal(ft_topo_stats(t, &st, NULL), 0);
	assert_int_equal(st.nlinks_by_kind[FT_L_NVLINK], 2 * 6);
	assert_int_equal(st.nvertices_by_kind[FT_V_NVSWITCH], 0);
	assert_int_equal(ft_route_path(t, ft_topo_gpu(t, 0, 0), ft_topo_gpu(t, 0, 3), &pol, &p), 0);
	assert_int_equal(p.nlinks, 1);
	ft_topo_free(t);
	s.node.nvlink_gen = 0;
	t = build_or_fail(&s);
	assert_int_equal(ft_topo_stats(t, &st, NULL), 0);
	assert_int_equal(st.nlinks_by_kind[FT_L_NVLINK], 0);
	/* GPU 0 and 1 share PCIe switch 0; GPU 0 and 3 cross the CPUs' switches. */
	assert_int_equal(ft_route_path(t, ft_topo_gpu(t, 0, 0), ft_topo_gpu(t, 0, 1), &pol, &p), 0);
	assert_int_equal(p.nlinks, 2);
	assert_int_equal(ft_route_path(t, ft_topo_gpu(t, 0, 0), ft_topo_gpu(t, 0, 3), &pol, &p), 0);
	assert_int_equal(p.nlinks, 4);
	ft_topo_free(t);
}

struct ft_case {
	uint32_t nnodes, tiers, radix;
	double oversub;
};

static void
test_fattree_counts(void **state)
{
	static const struct ft_case cases[] = {
		{ 32, 2, 8, 1 },    { 20, 2, 8, 1 },   { 8, 2, 8, 1 },   { 4, 2, 8, 1 },
		{ 30, 2, 8, 3 },    { 128, 3, 8, 1 },  { 100, 3, 8, 1 }, { 40, 3, 8, 1 },
		{ 2048, 3, 32, 1 }, { 200, 3, 16, 3 },
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct ft_case *k = &cases[c];
		struct ft_topo *t = fat_tree(true, k->nnodes, k->tiers, k->radix, k->oversub);
		uint32_t d = (uint32_t)floor(k->radix * k->oversub / (1 + k->oversub) + 1e-9);
		uint32_t u = k->radix - d, nl = (k->nnodes + d - 1) / d;

		check_reverse_and_csr(t);
		assert_int_equal(count_switches(t, 1), nl);
		assert_int_equal(count_links(t, FT_L_HOST, 1), 2 * k->nnodes);
		if (k->tiers == 2) {
			/* Fewest spines holding nl * u up-links, dividing u. */
			uint32_t need = (nl * u + k->radix - 1) / k->radix, sp = need;

			while (u % sp)
				sp++;
			assert_int_equal(count_switches(t, 2), nl > 1 ? sp : 0);
			assert_int_equal(count_links(t, FT_L_FABRIC, 2), nl > 1 ? 2 * nl * u : 0);
			assert_int_equal(count_switches(t, 3), 0);
		} else {
			uint32_t lpp = k->radix / 2, pods = (nl + lpp - 1) / lpp;
			uint32_t cores = pods > 1 ? u * (k->radix / 2) : 0;

			/* u spines per pod; core group per spine index, radix/2 up-links each. */
			assert_int_equal(count_switches(t, 2), pods * u);
			assert_int_equal(count_links(t, FT_L_FABRIC, 2), 2 * nl * u);
			assert_int_equal(count_links(t, FT_L_FABRIC, 3),
			                 pods > 1 ? 2 * pods * u * (k->radix / 2) : 0);
			if (pods == k->radix)
				assert_int_equal(count_switches(t, 3), cores);
			else
				assert_true(count_switches(t, 3) <= cores);
		}
		ft_topo_free(t);
	}
}

static void
test_fattree_paths(void **state)
{
	struct ft_topo *t = fat_tree(true, 128, 3, 8, 1); /* 32 leaves, 8 pods of 4 */
	struct ft_route_policy pol = { .routing = FT_ROUTING_ECMP, .salt_seed = 7 };
	struct ft_path p;
	struct ft_topo_stats st;

	/* same leaf: 2 fabric links (1 switch); same pod: 4; other pod: 6. */
	assert_int_equal(ft_route_path(t, ft_topo_nic(t, 0, 0), ft_topo_nic(t, 3, 0), &pol, &p), 0);
	assert_int_equal(p.nlinks, 2);
	assert_int_equal(ft_route_path(t, ft_topo_nic(t, 0, 0), ft_topo_nic(t, 4, 0), &pol, &p), 0);
	assert_int_equal(p.nlinks, 4);
	assert_int_equal(ft_route_path(t, ft_topo_nic(t, 0, 0), ft_topo_nic(t, 127, 0), &pol, &p),
	                 0);
	assert_int_equal(p.nlinks, 6);
	check_path(t, ft_topo_nic(t, 0, 0), ft_topo_nic(t, 127, 0), &p, true);
	/* GPU to GPU adds the PCIe hops at both ends. */
	assert_int_equal(ft_route_path(t, ft_topo_gpu(t, 0, 0), ft_topo_gpu(t, 127, 0), &pol, &p),
	                 0);
	assert_int_equal(p.nlinks, 6 + 4);
	assert_int_equal(ft_topo_stats(t, &st, NULL), 0);
	assert_int_equal(st.diameter_hops, 6);
	/* Every NIC reaches every other by an up*-down* path. */
	for (uint32_t a = 0; a < 128; a++)
		for (uint32_t b = 0; b < 128; b++) {
			uint32_t s = ft_topo_nic(t, a, 0), d = ft_topo_gpu(t, b, 0);

			pol.flow_hash = ft_route_flow_hash(s, d, 0);
			assert_int_equal(ft_route_path(t, s, d, &pol, &p), 0);
			check_path(t, s, d, &p, true);
		}
	ft_topo_free(t);

	t = fat_tree(true, 32, 2, 8, 1);
	assert_int_equal(ft_topo_stats(t, &st, NULL), 0);
	assert_int_equal(st.diameter_hops, 4);
	ft_topo_free(t);
}

/* Breadth-first diameter over NIC pairs, counting fabric links (the definition). */
static uint32_t
bfs_diameter(const struct ft_topo *t)
{
	uint32_t nv = ft_topo_nvertices(t), *dist = malloc(nv * sizeof(*dist));
	uint32_t *q = malloc(nv * sizeof(*q)), best = 0;

	assert_non_null(dist);
	assert_non_null(q);
	for (uint32_t s = 0; s < nv; s++) {
		uint32_t head = 0, tail = 0;

		if (ft_topo_vertex(t, s)->kind != FT_V_NIC)
			continue;
		for (uint32_t i = 0; i < nv; i++)
			dist[i] = UINT32_MAX;
		dist[s] = 0;
		q[tail++] = s;
		while (head < tail) {
			uint32_t x = q[head++], first, n;

			if (ft_topo_vertex(t, x)->kind == FT_V_NIC && dist[x] > best)
				best = dist[x];
			if (x != s && ft_topo_vertex(t, x)->kind != FT_V_SWITCH)
				continue; /* only switches forward in the fabric */
			ft_topo_out_links(t, x, &first, &n);
			for (uint32_t l = first; l < first + n; l++) {
				const struct ft_link *k = ft_topo_link(t, l);

				if (k->kind != FT_L_HOST && k->kind != FT_L_FABRIC)
					continue;
				if (dist[k->dst] == UINT32_MAX) {
					dist[k->dst] = dist[x] + 1;
					q[tail++] = k->dst;
				}
			}
		}
	}
	free(dist);
	free(q);
	return best;
}

static struct ft_topo *
dragonfly(uint32_t nnodes, uint32_t groups, uint32_t a, uint32_t p, uint32_t h)
{
	struct ft_cluster_spec s = { 0 };

	thin_node(&s.node);
	fabric(&s, FT_FABRIC_DRAGONFLY, nnodes);
	s.fabric.groups = groups;
	s.fabric.routers_per_group = a;
	s.fabric.nodes_per_router = p;
	s.fabric.global_links_per_router = h;
	return build_or_fail(&s);
}

static struct ft_topo *
torus(uint32_t ndims, uint32_t x, uint32_t y, uint32_t z, uint32_t per)
{
	struct ft_cluster_spec s = { 0 };

	thin_node(&s.node);
	fabric(&s, FT_FABRIC_TORUS, x * y * (ndims == 3 ? z : 1) * (per ? per : 1));
	s.fabric.ndims = ndims;
	s.fabric.dims[0] = x;
	s.fabric.dims[1] = y;
	s.fabric.dims[2] = z;
	s.fabric.nodes_per_switch = per;
	return build_or_fail(&s);
}

static void
all_pairs_reach(const struct ft_topo *t, enum ft_routing r, bool updown)
{
	struct ft_route_policy pol = { .routing = r, .salt_seed = 3 };
	uint32_t n = ft_topo_spec(t)->nnodes;
	struct ft_path p;

	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = 0; b < n; b++) {
			uint32_t s = ft_topo_gpu(t, a, 0), d = ft_topo_gpu(t, b, 0);

			pol.flow_hash = ft_route_flow_hash(s, d, a + b);
			assert_int_equal(ft_route_path(t, s, d, &pol, &p), 0);
			check_path(t, s, d, &p, updown);
		}
}

static void
test_diameter_matches_bfs(void **state)
{
	struct ft_topo *ts[] = {
		fat_tree(true, 32, 2, 8, 1),  fat_tree(true, 3, 2, 8, 1),
		fat_tree(true, 100, 3, 8, 1), fat_tree(false, 4, 2, 16, 1),
		dragonfly(40, 5, 4, 2, 1),    dragonfly(12, 1, 6, 2, 0),
		dragonfly(64, 4, 4, 4, 3),    torus(2, 4, 4, 0, 1),
		torus(3, 3, 4, 5, 1),         torus(2, 2, 3, 0, 2),
	};

	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		struct ft_topo_stats st;

		check_reverse_and_csr(ts[i]);
		assert_int_equal(ft_topo_stats(ts[i], &st, NULL), 0);
		assert_int_equal(st.diameter_hops, bfs_diameter(ts[i]));
		all_pairs_reach(ts[i],
		                ft_topo_spec(ts[i])->fabric.kind == FT_FABRIC_TORUS ?
		                        FT_ROUTING_DOR :
		                        FT_ROUTING_ECMP,
		                ft_topo_spec(ts[i])->fabric.kind != FT_FABRIC_DRAGONFLY &&
		                        ft_topo_spec(ts[i])->fabric.kind != FT_FABRIC_TORUS);
		ft_topo_free(ts[i]);
	}
}

/* Flows of a uniform random permutation, 64 QPs each, over the spine up-links. */
static void
test_ecmp_spread(void **state)
{
	struct ft_topo *t = fat_tree(true, 128, 2, 16, 1); /* 16 leaves x 8 up */
	uint32_t perm[128], nl = ft_topo_nlinks(t), *load = calloc(nl, sizeof(*load));
	struct ft_rng rng;
	struct ft_route_policy pol = { .routing = FT_ROUTING_ECMP, .salt_seed = 42 };
	double max = 0, nup = 0, chi = 0, mean;

	assert_non_null(load);
	ft_rng_seed(&rng, 1, 2);
	for (uint32_t i = 0; i < 128; i++)
		perm[i] = i;
	ft_rng_shuffle_u32(&rng, perm, 128);
	for (uint32_t i = 0; i < 128; i++)
		for (uint32_t qp = 0; qp < 64; qp++) {
			uint32_t s = ft_topo_nic(t, i, 0), d = ft_topo_nic(t, perm[i], 0);
			struct ft_path p;

			pol.flow_hash = ft_route_flow_hash(s, d, qp);
			assert_int_equal(ft_route_path(t, s, d, &pol, &p), 0);
			for (uint32_t k = 0; k < p.nlinks; k++)
				load[p.links[k]]++;
		}
	/* Per leaf, the flows leaving it spread evenly over its 8 up-links: the
	 * max/mean bound and a chi-square against the leaf's own mean. */
	for (uint32_t v = 0; v < ft_topo_nvertices(t); v++) {
		const struct ft_vertex *x = ft_topo_vertex(t, v);
		uint32_t first, n;
		double leaf_sum = 0;

		if (x->kind != FT_V_SWITCH || x->tier != 1)
			continue;
		ft_topo_out_links(t, v, &first, &n);
		for (uint32_t l = first; l < first + n; l++)
			if (ft_topo_link(t, l)->up)
				leaf_sum += load[l];
		mean = leaf_sum / 8;
		assert_true(mean > 30);
		for (uint32_t l = first; l < first + n; l++) {
			if (!ft_topo_link(t, l)->up)
				continue;
			nup++;
			chi += (load[l] - mean) * (load[l] - mean) / mean;
			if (load[l] / mean > max)
				max = load[l] / mean;
		}
	}
	assert_int_equal((int)nup, 16 * 8);
	assert_true(max < 1.5);
	/* chi-square with 16 x 7 = 112 degrees of freedom: the 0.999 quantile is about 164. */
	assert_true(chi < 164);
	free(load);
	ft_topo_free(t);
}

static void
test_dmodk(void **state)
{
	struct ft_topo *t = fat_tree(true, 32, 2, 8, 1); /* 8 leaves x 4 NICs, 4 spines */
	uint32_t nl = ft_topo_nlinks(t), *load = calloc(nl, sizeof(*load));
	struct ft_route_policy pol = { .routing = FT_ROUTING_DMODK };

	assert_non_null(load);
	/* One deterministic path per destination, whatever the flow hash. */
	for (uint32_t a = 0; a < 32; a++)
		for (uint32_t b = 0; b < 32; b++) {
			struct ft_path p1, p2;

			pol.flow_hash = 1;
			assert_int_equal(ft_route_path(t, ft_topo_nic(t, a, 0),
			                               ft_topo_nic(t, b, 0), &pol, &p1),
			                 0);
			pol.flow_hash = 0xdeadbeef;
			assert_int_equal(ft_route_path(t, ft_topo_nic(t, a, 0),
			                               ft_topo_nic(t, b, 0), &pol, &p2),
			                 0);
			assert_memory_equal(&p1, &p2, sizeof(p1));
		}
	/* Every shift permutation loads each fabric link with at most one flow. */
	for (uint32_t sh = 1; sh < 32; sh++) {
		memset(load, 0, nl * sizeof(*load));
		for (uint32_t i = 0; i < 32; i++) {
			struct ft_path p;

			assert_int_equal(ft_route_path(t, ft_topo_nic(t, i, 0),
			                               ft_topo_nic(t, (i + sh) % 32, 0), &pol, &p),
			                 0);
			for (uint32_t k = 0; k < p.nlinks; k++)
				load[p.links[k]]++;
		}
		for (uint32_t l = 0; l < nl; l++)
			assert_true(load[l] <= 1);
	}
	/* 3-tier (8 pods of 4 leaves): D-mod-K keeps every shift conflict-free too. */
	{
		struct ft_topo *t3 = fat_tree(true, 128, 3, 8, 1);
		uint32_t nl3 = ft_topo_nlinks(t3), *load3 = calloc(nl3, sizeof(*load3));

		assert_non_null(load3);
		for (uint32_t sh = 1; sh < 128; sh++) {
			memset(load3, 0, nl3 * sizeof(*load3));
			for (uint32_t i = 0; i < 128; i++) {
				struct ft_path p;

				assert_int_equal(ft_route_path(t3, ft_topo_nic(t3, i, 0),
				                               ft_topo_nic(t3, (i + sh) % 128, 0),
				                               &pol, &p),
				                 0);
				for (uint32_t k = 0; k < p.nlinks; k++)
					load3[p.links[k]]++;
			}
			for (uint32_t l = 0; l < nl3; l++)
				assert_true(load3[l] <= 1);
		}
		free(load3);
		ft_topo_free(t3);
	}
	/* ECMP on the same shift is not perfect: some link carries two flows. */
	{
		uint32_t worst = 0;

		pol.routing = FT_ROUTING_ECMP;
		for (uint32_t sh = 4; sh < 32; sh += 4) {
			memset(load, 0, nl * sizeof(*load));
			for (uint32_t i = 0; i < 32; i++) {
				struct ft_path p;
				uint32_t s = ft_topo_nic(t, i, 0),
				         d = ft_topo_nic(t, (i + sh) % 32, 0);

				pol.flow_hash = ft_route_flow_hash(s, d, 0);
				assert_int_equal(ft_route_path(t, s, d, &pol, &p), 0);
				for (uint32_t k = 0; k < p.nlinks; k++)
					load[p.links[k]]++;
			}
			for (uint32_t l = 0; l < nl; l++)
				worst = load[l] > worst ? load[l] : worst;
		}
		assert_true(worst >= 2);
	}
	free(load);
	ft_topo_free(t);
}

/*
 * ft_topo_fattree_leaf_port() against the topology @s builds: every NIC's host link ends on
 * the leaf it names (plane and index), and D-mod-K sends a flow to it from a NIC of another
 * leaf of its plane up the leaf's up-link ft_topo_dmodk_pick() gives for its key (that
 * link's place among the source leaf's up-links), and the leaf has `cables` up-links to
 * each spine it reaches (none where it has no up-link).
 */
static void
check_leaf_ports(const struct ft_cluster_spec *s)
{
	struct ft_topo *t = build_or_fail(s);
	struct ft_route_policy pol = { .routing = FT_ROUTING_DMODK };
	struct ft_topo_leaf_port lp, lq;
	uint32_t n, r, n2, r2, first, cnt, l, nsp, checked = 0;

	for (n = 0; n < s->nnodes; n++) {
		for (r = 0; r < ft_spec_node_at(s, n)->nnics; r++) {
			uint32_t nic = ft_topo_nic(t, n, r), leaf = UINT32_MAX, src = UINT32_MAX;
			struct ft_path p;

			assert_int_equal(ft_topo_fattree_leaf_port(s, n, r, &lp), 0);
			ft_topo_out_links(t, nic, &first, &cnt);
			for (l = first; l < first + cnt; l++)
				if (ft_topo_link(t, l)->kind == FT_L_HOST)
					leaf = ft_topo_link(t, l)->dst;
			assert_int_not_equal(leaf, UINT32_MAX);
			assert_int_equal(ft_topo_vertex(t, leaf)->tier, 1);
			assert_int_equal(ft_topo_vertex(t, leaf)->plane, lp.plane);
			assert_int_equal(ft_topo_vertex(t, leaf)->local, lp.leaf);
			ft_topo_out_links(t, leaf, &first, &cnt);
			for (l = first, nsp = 0; l < first + cnt; l++) {
				uint32_t same = 0, l2;

				if (!ft_topo_link(t, l)->up)
					continue;
				for (l2 = first; l2 < first + cnt; l2++)
					same += ft_topo_link(t, l2)->up &&
					        ft_topo_link(t, l2)->dst == ft_topo_link(t, l)->dst;
				assert_int_equal(same, lp.cables);
				nsp++;
			}
			if (nsp == 0)
				assert_int_equal(lp.cables, 0);
			/* a NIC of another leaf of the plane sends to it */
			for (n2 = 0; n2 < s->nnodes && src == UINT32_MAX; n2++)
				for (r2 = 0; r2 < ft_spec_node_at(s, n2)->nnics; r2++) {
					int rc = ft_topo_fattree_leaf_port(s, n2, r2, &lq);

					assert_int_equal(rc, 0);
					if (n2 != n && lq.plane == lp.plane && lq.leaf != lp.leaf) {
						src = ft_topo_nic(t, n2, r2);
						break;
					}
				}
			if (src == UINT32_MAX)
				continue;
			assert_int_equal(ft_route_path(t, src, nic, &pol, &p), 0);
			for (uint32_t k = 0; k < p.nlinks; k++) {
				const struct ft_link *lk = ft_topo_link(t, p.links[k]);
				uint32_t idx = 0, nup = 0;

				if (!lk->up || lk->tier != 2)
					continue;
				ft_topo_out_links(t, lk->src, &first, &cnt);
				for (l = first; l < first + cnt; l++) {
					if (!ft_topo_link(t, l)->up)
						continue;
					idx += l < p.links[k];
					nup++;
				}
				assert_int_equal(idx, ft_topo_dmodk_pick(lp.key, nup));
				checked++;
				break;
			}
		}
	}
	assert_true(checked > 0);
	ft_topo_free(t);
}

/*
 * Where a NIC hangs, as the fat-tree builder lays it out: two planes of plain fat-trees
 * (NIC r on plane r mod 2, a node's 4 NICs of a plane side by side on its leaves), and a
 * rail-optimized fat-tree of node groups of 4 and 2 NICs, laid out at the larger count (the
 * stride: a 2-NIC node's NIC 1 on its unit's leaf 1 of 4, rails 2 and 3 the 4-NIC nodes'
 * alone), units of 2 nodes on leaves of 5 down and 3 up ports, so that the leaf's index
 * moves D-mod-K's pick: node 3's NIC 1 on leaf 4 + 1, key 5 x 5 + 1 = 26, up-link 26 mod 3
 * = 2, where leaves laid out at its own 2 NICs would put it on leaf 2 + 1, key 16, up-link
 * 1. The cables between a leaf and each spine: 2 on the planes (4 leaves of 4 up-links a
 * plane on 2 spines, the fewest of radix 8 that hold 16 up-links), 1 on the rail
 * fabric (3 up-links on 3 spines) and in a 3-tier pod. A NIC the node lacks, a node past
 * the spec's, a tree the radix cannot hold and another fabric are refused.
 */
static void
test_fattree_leaf_port(void **state)
{
	struct ft_cluster_spec s = { 0 };
	struct ft_topo_leaf_port lp;

	(void)state;
	dgx_node(&s.node);
	fabric(&s, FT_FABRIC_MULTI_PLANE, 4);
	s.fabric.tiers = 2;
	s.fabric.radix = 8;
	s.fabric.planes = 2;
	check_leaf_ports(&s);
	assert_int_equal(ft_topo_fattree_leaf_port(&s, 1, 5, &lp), 0);
	assert_int_equal(lp.plane, 1);
	assert_int_equal(lp.leaf, 1); /* NIC 5 is plane 1's NIC 2 of node 1: the 7th of 4 a leaf */
	assert_int_equal(lp.port, 2);
	assert_int_equal(lp.cables, 2);
	assert_int_equal(ft_topo_fattree_leaf_port(&s, 1, 8, &lp), FT_EINVAL);
	assert_int_equal(ft_topo_fattree_leaf_port(&s, 4, 0, &lp), FT_EINVAL);

	memset(&s, 0, sizeof(s));
	fabric(&s, FT_FABRIC_RAIL_FAT_TREE, 4);
	s.fabric.tiers = 2;
	s.fabric.radix = 8;
	s.fabric.oversubscription = 5.0 / 3.0;
	s.fabric.nodes_per_unit = 2;
	s.ngroups = 2;
	for (int g = 0; g < 2; g++) {
		struct ft_node_spec *n = &s.groups[g].node;
		uint32_t k = g ? 2 : 4;

		s.groups[g].count = 2;
		dgx_node(n);
		n->nnics = k;
		for (int i = 0; i < 8; i++)
			n->gpu_nic[i] = (uint32_t)i * k / 8;
		for (uint32_t i = 0; i < k; i++) {
			n->nic_pcie_switch[i] = i * 4 / k;
			n->nic_numa[i] = i * 2 / k;
		}
	}
	s.node = s.groups[0].node;
	check_leaf_ports(&s);
	assert_int_equal(ft_topo_fattree_leaf_port(&s, 3, 1, &lp), 0);
	assert_int_equal(lp.leaf, 5);
	assert_int_equal(lp.port, 1);
	assert_int_equal(lp.key, 26);
	assert_int_equal(ft_topo_dmodk_pick(lp.key, 3), 2);
	assert_int_equal(lp.cables, 1);
	assert_int_equal(ft_topo_fattree_leaf_port(&s, 3, 2, &lp), FT_EINVAL);
	s.fabric.kind = FT_FABRIC_TORUS;
	assert_int_equal(ft_topo_fattree_leaf_port(&s, 0, 0, &lp), FT_EINVAL);

	/* 3 tiers: 16 leaves of 4 up-links in pods of 4, one cable to each of 4 spines */
	memset(&s, 0, sizeof(s));
	dgx_node(&s.node);
	fabric(&s, FT_FABRIC_FAT_TREE, 8);
	s.fabric.tiers = 3;
	s.fabric.radix = 8;
	check_leaf_ports(&s);
	assert_int_equal(ft_topo_fattree_leaf_port(&s, 7, 7, &lp), 0);
	assert_int_equal(lp.leaf, 15);
	assert_int_equal(lp.cables, 1);
	/* 2 tiers of radix 8 hold 8 leaves, not 16 */
	s.fabric.tiers = 2;
	assert_int_equal(ft_topo_fattree_leaf_port(&s, 0, 0, &lp), FT_EINVAL);
}

/*
 * D-mod-K on the 512-node rail-optimized 3-tier DGX H100 fabric (radix 64: 4 pods, 64 cores
 * with 16 parallel cables to each spine): a GPU shift permutation in rank order (rank = node
 * x 8 + GPU), every GPU leaving and entering by its rail NIC, puts at most one flow on every
 * fabric link, core->spine included (IB-SM: destination-based spreading is congestion-free on a
 * non-blocking fat-tree). Taking key mod n on the core's parallel cables piled 16 on one.
 */
static void
test_dmodk_rail_3tier(void **state)
{
	static const uint32_t shifts[] = { 1, 7, 8, 9, 31, 256, 257, 1000, 2048, 4095 };
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };
	struct ft_route_policy pol = { .routing = FT_ROUTING_DMODK };
	struct ft_topo *t;
	uint32_t nl, n, *load, worst_core = 0;

	(void)state;
	if (ft_spec_resolve("dgx-h100:512", &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(s.fabric.kind, FT_FABRIC_RAIL_FAT_TREE);
	t = build_or_fail(&s);
	nl = ft_topo_nlinks(t);
	n = ft_spec_ngpus(&s);
	load = calloc(nl, sizeof(*load));
	assert_non_null(load);
	for (size_t k = 0; k < sizeof(shifts) / sizeof(shifts[0]); k++) {
		memset(load, 0, nl * sizeof(*load));
		for (uint32_t r = 0; r < n; r++) {
			uint32_t d = (r + shifts[k]) % n;
			uint32_t src = ft_topo_gpu(t, r / 8, r % 8), dst = ft_topo_gpu(t, d / 8, d % 8);
			struct ft_path p;

			assert_int_equal(ft_route_path(t, src, dst, &pol, &p), 0);
			for (uint32_t h = 0; h < p.nlinks; h++)
				if (ft_topo_link(t, p.links[h])->kind == FT_L_FABRIC)
					load[p.links[h]]++;
		}
		for (uint32_t l = 0; l < nl; l++) {
			if (load[l] > 1)
				fail_msg("shift %u: link %u (tier %u) carries %u flows", shifts[k], l,
				         (unsigned)ft_topo_link(t, l)->tier, load[l]);
			if (ft_topo_link(t, l)->tier == 3 && load[l] > worst_core)
				worst_core = load[l];
		}
	}
	assert_int_equal(worst_core, 1); /* the shifts do cross the core */
	free(load);
	ft_topo_free(t);
}

static uint32_t
count_globals(const struct ft_topo *t, const struct ft_path *p)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->nlinks; i++)
		n += ft_topo_link(t, p->links[i])->tier == 3 &&
		     ft_topo_link(t, p->links[i])->kind == FT_L_FABRIC;
	return n;
}

static void
test_dragonfly(void **state)
{
	struct ft_topo *t = dragonfly(40, 5, 4, 2, 2); /* 5 groups x 4 routers x 2 nodes */
	struct ft_route_policy pol = { .routing = FT_ROUTING_MINIMAL };
	uint32_t s = ft_topo_nic(t, 0, 0), d = ft_topo_nic(t, 8, 0); /* group 0 -> group 1 */
	struct ft_path p;
	uint32_t other = 0;

	assert_int_equal(ft_route_path(t, s, d, &pol, &p), 0);
	assert_int_equal(count_globals(t, &p), 1);
	assert_true(p.nlinks <= 5);
	pol.routing = FT_ROUTING_VALIANT;
	for (uint64_t h = 0; h < 32; h++) {
		bool seen = false;

		pol.flow_hash = ft_mix64(h);
		assert_int_equal(ft_route_path(t, s, d, &pol, &p), 0);
		check_path(t, s, d, &p, false);
		assert_int_equal(count_globals(t, &p), 2);
		for (uint32_t i = 0; i < p.nlinks; i++) {
			const struct ft_vertex *v =
			        ft_topo_vertex(t, ft_topo_link(t, p.links[i])->dst);

			if (v->kind == FT_V_SWITCH && v->group != 0 && v->group != 1)
				seen = true;
		}
		assert_true(seen);
		other++;
	}
	assert_int_equal(other, 32);
	/* Inside one group: host, local, host. */
	pol.routing = FT_ROUTING_MINIMAL;
	assert_int_equal(ft_route_path(t, s, ft_topo_nic(t, 7, 0), &pol, &p), 0);
	assert_int_equal(p.nlinks, 3);
	/* Every global link between groups 0 and 1 down: minimal fails, Valiant still goes. */
	for (uint32_t l = 0; l < ft_topo_nlinks(t); l++) {
		const struct ft_link *k = ft_topo_link(t, l);

		if (k->kind == FT_L_FABRIC && k->tier == 3 &&
		    ft_topo_vertex(t, k->src)->group + ft_topo_vertex(t, k->dst)->group == 1)
			assert_int_equal(ft_topo_set_link_scale(t, l, 0.0), 0);
	}
	assert_int_equal(ft_route_path(t, s, d, &pol, &p), FT_ENOENT);
	assert_int_equal(ft_route_next_hops(t, s, d, NULL, 0), FT_ENOENT);
	pol.routing = FT_ROUTING_VALIANT;
	assert_int_equal(ft_route_path(t, s, d, &pol, &p), 0);
	check_path(t, s, d, &p, false);
	/* One of two global links from group 0 to group 2 down: the other is used. */
	for (uint32_t l = 0; l < ft_topo_nlinks(t); l++)
		assert_int_equal(ft_topo_set_link_scale(t, l, 1.0), 0);
	{
		uint32_t g02[4], n02 = 0;

		for (uint32_t l = 0; l < ft_topo_nlinks(t); l++) {
			const struct ft_link *k = ft_topo_link(t, l);

			if (k->kind == FT_L_FABRIC && k->tier == 3 &&
			    ft_topo_vertex(t, k->src)->group == 0 &&
			    ft_topo_vertex(t, k->dst)->group == 2)
				g02[n02++] = l;
		}
		assert_int_equal(n02, 2);
		assert_int_equal(ft_topo_set_link_scale(t, g02[0], 0.0), 0);
		pol.routing = FT_ROUTING_MINIMAL;
		for (uint32_t a = 0; a < 8; a++)
			for (uint32_t b = 16; b < 24; b++) {
				assert_int_equal(ft_route_path(t, ft_topo_gpu(t, a, 0),
				                               ft_topo_gpu(t, b, 0), &pol, &p),
				                 0);
				for (uint32_t i = 0; i < p.nlinks; i++)
					assert_int_not_equal(p.links[i], g02[0]);
				assert_int_equal(count_globals(t, &p), 1);
			}
	}
	ft_topo_free(t);
}

static void
test_torus_dor(void **state)
{
	struct ft_topo *t = torus(3, 4, 4, 4, 1);
	struct ft_route_policy pol = { .routing = FT_ROUTING_DOR };
	/* node index == switch index (x * 16 + y * 4 + z): (0,0,0) -> (2,3,1) */
	uint32_t s = ft_topo_nic(t, 0, 0), d = ft_topo_nic(t, 2 * 16 + 3 * 4 + 1, 0), dim = 0;
	uint32_t links[8];
	struct ft_path p;
	char name[32];

	assert_int_equal(ft_route_path(t, s, d, &pol, &p), 0);
	check_path(t, s, d, &p, false);
	/* x: 2 hops (either way, a tie), y: 1 hop back over the wrap, z: 1 hop. */
	assert_int_equal(fabric_links(t, &p), 2 + 2 + 1 + 1);
	for (uint32_t i = 1; i + 1 < p.nlinks; i++) {
		const struct ft_link *k = ft_topo_link(t, p.links[i]);
		uint32_t a = ft_topo_vertex(t, k->src)->local, b = ft_topo_vertex(t, k->dst)->local;
		uint32_t moved = a / 16 != b / 16 ? 0 : (a / 4 % 4 != b / 4 % 4 ? 1 : 2);

		assert_true(moved >= dim); /* never back to an earlier dimension */
		dim = moved;
	}
	assert_int_equal(dim, 2);
	/* The x tie (distance 2 of 4) offers both directions. */
	assert_int_equal(ft_route_next_hops(t, ft_topo_link(t, p.links[0])->dst, d, links, 8), 2);
	ft_topo_vertex_name(t, ft_topo_link(t, p.links[0])->dst, name, sizeof(name));
	assert_string_equal(name, "sw0.0.0");
	ft_topo_free(t);
}

static void
test_down_links(void **state)
{
	struct ft_topo *t = fat_tree(true, 32, 2, 8, 1);
	uint32_t leaf0 = ft_topo_link(t, ft_topo_nlinks(t) ? 0 : 0)->src, links[16], first, n;
	uint32_t s = ft_topo_nic(t, 0, 0), d = ft_topo_nic(t, 31, 0), dead;
	struct ft_route_policy pol = { .routing = FT_ROUTING_ECMP };
	struct ft_path p;
	int k;

	/* Leaf of NIC 0 via its host link. */
	ft_topo_out_links(t, s, &first, &n);
	for (uint32_t l = first; l < first + n; l++)
		if (ft_topo_link(t, l)->kind == FT_L_HOST)
			leaf0 = ft_topo_link(t, l)->dst;
	k = ft_route_next_hops(t, leaf0, d, links, 16);
	assert_int_equal(k, 4);
	dead = links[1];
	assert_int_equal(ft_topo_set_link_scale(t, dead, 0.0), 0);
	assert_int_equal(ft_topo_set_link_scale(t, dead, 2.0), FT_EINVAL);
	assert_int_equal(ft_route_next_hops(t, leaf0, d, links, 16), 3);
	for (uint64_t h = 0; h < 200; h++) {
		pol.flow_hash = ft_mix64(h);
		assert_int_equal(ft_route_path(t, s, d, &pol, &p), 0);
		for (uint32_t i = 0; i < p.nlinks; i++)
			assert_int_not_equal(p.links[i], dead);
	}
	/* Cut a spine's way down to NIC 31's leaf: leaf0 stops using that spine. */
	{
		uint32_t spine, dleaf = 0;

		assert_int_equal(ft_route_path(t, s, d, &pol, &p), 0);
		spine = ft_topo_link(t, p.links[1])->dst;
		dleaf = ft_topo_link(t, p.links[2])->dst;
		ft_topo_out_links(t, spine, &first, &n);
		for (uint32_t l = first; l < first + n; l++)
			if (ft_topo_link(t, l)->dst == dleaf)
				assert_int_equal(ft_topo_set_link_scale(t, l, 0.0), 0);
		assert_int_equal(ft_route_next_hops(t, leaf0, d, links, 16), 2);
		for (int i = 0; i < 2; i++)
			assert_int_not_equal(ft_topo_link(t, links[i])->dst, spine);
	}
	/* All up-links of leaf 0 down: other leaves unreachable, own leaf still fine. */
	ft_topo_out_links(t, leaf0, &first, &n);
	for (uint32_t l = first; l < first + n; l++)
		if (ft_topo_link(t, l)->up)
			assert_int_equal(ft_topo_set_link_scale(t, l, 0.0), 0);
	assert_int_equal(ft_route_next_hops(t, leaf0, d, links, 16), FT_ENOENT);
	assert_int_equal(ft_route_path(t, s, d, &pol, &p), FT_ENOENT);
	assert_int_equal(ft_route_path(t, s, ft_topo_nic(t, 1, 0), &pol, &p), 0);
	/* Heal: scale 1 again. */
	for (uint32_t l = 0; l < ft_topo_nlinks(t); l++)
		assert_int_equal(ft_topo_set_link_scale(t, l, 1.0), 0);
	assert_int_equal(ft_route_next_hops(t, leaf0, d, links, 16), 4);
	ft_topo_free(t);

	/* 3-tier: a spine loses its link down to a leaf of its own pod; the path goes around. */
	t = fat_tree(true, 128, 3, 8, 1);
	s = ft_topo_nic(t, 0, 0);
	d = ft_topo_nic(t, 127, 0);
	for (uint64_t h = 0; h < 64; h++) {
		uint32_t spine_dn;

		pol.flow_hash = ft_mix64(h);
		assert_int_equal(ft_route_path(t, s, d, &pol, &p), 0);
		assert_int_equal(p.nlinks, 6);
		spine_dn = p.links[4]; /* spine -> destination leaf */
		assert_int_equal(ft_topo_set_link_scale(t, spine_dn, 0.0), 0);
		assert_int_equal(ft_route_path(t, s, d, &pol, &p), 0);
		for (uint32_t i = 0; i < p.nlinks; i++)
			assert_int_not_equal(p.links[i], spine_dn);
		check_path(t, s, d, &p, true);
		assert_int_equal(ft_topo_set_link_scale(t, spine_dn, 1.0), 0);
	}
	ft_topo_free(t);
}

static void
test_rail_and_planes(void **state)
{
	struct ft_cluster_spec s = { 0 };
	struct ft_topo *t;
	struct ft_route_policy pol = { .routing = FT_ROUTING_ECMP };
	struct ft_topo_stats st;
	struct ft_path p;

	dgx_node(&s.node);
	fabric(&s, FT_FABRIC_RAIL_FAT_TREE, 4);
	s.fabric.tiers = 2;
	s.fabric.radix = 64;
	t = build_or_fail(&s);
	check_reverse_and_csr(t);
	/* One unit: 8 rail leaves, each with NIC r of the 4 nodes. */
	assert_int_equal(count_switches(t, 1), 8);
	assert_int_equal(ft_route_path(t, ft_topo_nic(t, 0, 3), ft_topo_nic(t, 1, 3), &pol, &p), 0);
	assert_int_equal(p.nlinks, 2);
	assert_int_equal(ft_route_path(t, ft_topo_nic(t, 0, 3), ft_topo_nic(t, 1, 4), &pol, &p), 0);
	assert_int_equal(p.nlinks, 4);
	/* GPU 5 to GPU 5 of another node: its rail NIC, one leaf. */
	assert_int_equal(ft_route_path(t, ft_topo_gpu(t, 0, 5), ft_topo_gpu(t, 3, 5), &pol, &p), 0);
	assert_int_equal(fabric_links(t, &p), 2);
	assert_int_equal(ft_topo_stats(t, &st, NULL), 0);
	assert_true(fabs(st.injection_Bps - 32 * GBPS(400)) < 1);
	assert_true(fabs(st.bisection_Bps - 16 * GBPS(400)) < 1);

	/* Names round-trip; a PCIe switch leaves through either of its two NICs. */
	{
		static const char *const names[] = { "n3.gpu5", "n0.nic7", "n1.pcie2", "n2.cpu1",
			                             "n3.nvswitch" };
		uint32_t id, links[8];
		char name[32];

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			assert_int_equal(ft_topo_vertex_find(t, names[i], &id), 0);
			ft_topo_vertex_name(t, id, name, sizeof(name));
			assert_string_equal(name, names[i]);
		}
		assert_int_equal(ft_topo_vertex_find(t, "n4.gpu0", &id), FT_ENOENT);
		assert_int_equal(ft_topo_vertex_find(t, "n0.gpu8", &id), FT_ENOENT);
		assert_int_equal(ft_topo_vertex_find(t, "n0.gpu", &id), FT_EPARSE);
		assert_int_equal(ft_topo_vertex_find(t, "leaf0", &id), FT_EPARSE);
		assert_int_equal(ft_topo_vertex_find(t, "n0.gpu1x", &id), FT_EPARSE);
		assert_int_equal(ft_topo_vertex_find(t, "n99999999999.gpu1", &id), FT_EPARSE);
		assert_int_equal(ft_topo_vertex_find(t, "n0.pcie0", &id), 0);
		assert_int_equal(ft_route_next_hops(t, id, ft_topo_gpu(t, 2, 6), links, 8), 2);
		for (int i = 0; i < 2; i++)
			assert_int_equal(ft_topo_link(t, links[i])->dst, ft_topo_nic(t, 0, i));
	}
	ft_topo_free(t);

	/* 3-tier rail: 512 nodes of 32 per unit, 4 units per pod (32 leaves). */
	s.nnodes = 512;
	s.fabric.tiers = 3;
	t = build_or_fail(&s);
	assert_int_equal(count_switches(t, 1), 16 * 8);
	assert_int_equal(count_switches(t, 2), 4 * 32);
	assert_int_equal(ft_route_path(t, ft_topo_gpu(t, 0, 2), ft_topo_gpu(t, 511, 2), &pol, &p),
	                 0);
	assert_int_equal(fabric_links(t, &p), 6);
	assert_int_equal(ft_route_path(t, ft_topo_gpu(t, 0, 2), ft_topo_gpu(t, 100, 2), &pol, &p),
	                 0);
	assert_int_equal(fabric_links(t, &p), 4);
	ft_topo_free(t);

	/* Multi-plane: NIC r on plane r % 2; planes don't meet. */
	fabric(&s, FT_FABRIC_MULTI_PLANE, 16);
	s.fabric.tiers = 2;
	s.fabric.radix = 16;
	s.fabric.planes = 2;
	t = build_or_fail(&s);
	check_reverse_and_csr(t);
	assert_int_equal(ft_topo_stats(t, &st, NULL), 0);
	assert_int_equal(st.nswitches_by_tier[1], 2 * 8);
	assert_int_equal(ft_route_path(t, ft_topo_nic(t, 0, 0), ft_topo_nic(t, 9, 1), &pol, &p),
	                 FT_ENOENT);
	assert_int_equal(ft_route_path(t, ft_topo_nic(t, 0, 0), ft_topo_nic(t, 9, 2), &pol, &p), 0);
	assert_int_equal(ft_route_path(t, ft_topo_gpu(t, 0, 0), ft_topo_gpu(t, 9, 1), &pol, &p), 0);
	check_path(t, ft_topo_gpu(t, 0, 0), ft_topo_gpu(t, 9, 1), &p, false);
	assert_int_equal(ft_topo_vertex(t, ft_topo_link(t, p.links[2])->dst)->plane, 0);
	ft_topo_free(t);
}

/* The NIC vertex a path leaves its source node by, and the one it enters its destination by. */
static void
path_nics(const struct ft_topo *t, const struct ft_path *p, uint32_t *out_nic, uint32_t *in_nic)
{
	*out_nic = *in_nic = UINT32_MAX;
	for (uint32_t i = 0; i < p->nlinks; i++) {
		const struct ft_link *l = ft_topo_link(t, p->links[i]);

		if (l->kind != FT_L_HOST)
			continue;
		if (ft_topo_vertex(t, l->src)->kind == FT_V_NIC)
			*out_nic = l->src;
		else
			*in_nic = l->dst;
	}
}

/*
 * A GPU that drives four NICs (nics.per_gpu, the AWS p5 layout: GPU g owns NICs
 * 4g .. 4g + 3) leaves and enters through NIC 4g + lane mod 4, on a plain and on a
 * rail-optimized fat-tree; lane 0, and a node with one NIC per GPU, keep gpu_nic.
 */
static void
test_nics_per_gpu_lanes(void **state)
{
	static const char text[] =
	        "name: p5-like\n"
	        "nodes: { preset: dgx-h100, count: 4, nics: { count: 32, rate: 100Gbps, per_gpu: 4 } }\n"
	        "fabric: { kind: rail-fat-tree, radix: 64, tiers: 2, rate: 100Gbps }\n";
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };
	struct ft_topo *t;
	struct ft_path p;
	uint32_t out, in;

	(void)state;
	if (ft_spec_load_buffer(text, strlen(text), "p5.yaml", &s, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(s.node.nics_per_gpu, 4);
	for (int kind = 0; kind < 2; kind++) {
		s.fabric.kind = kind ? FT_FABRIC_RAIL_FAT_TREE : FT_FABRIC_FAT_TREE;
		t = build_or_fail(&s);
		for (uint32_t lane = 0; lane < 9; lane++)
			for (uint32_t g = 0; g < 8; g += 3) {
				struct ft_route_policy pol = { .routing = FT_ROUTING_ECMP,
					                       .flow_hash = lane * 77 + g,
					                       .lane = lane };
				uint32_t src = ft_topo_gpu(t, 0, g), dst = ft_topo_gpu(t, 3, 7 - g);

				assert_int_equal(ft_route_path(t, src, dst, &pol, &p), 0);
				check_path(t, src, dst, &p, false);
				path_nics(t, &p, &out, &in);
				assert_int_equal(out, ft_topo_nic(t, 0, 4 * g + lane % 4));
				assert_int_equal(in, ft_topo_nic(t, 3, 4 * (7 - g) + lane % 4));
			}
		ft_topo_free(t);
	}
	/* One NIC per GPU: every lane takes gpu_nic. */
	s.node.nics_per_gpu = 1;
	t = build_or_fail(&s);
	for (uint32_t lane = 0; lane < 4; lane++) {
		struct ft_route_policy pol = { .routing = FT_ROUTING_ECMP, .lane = lane };

		assert_int_equal(ft_route_path(t, ft_topo_gpu(t, 0, 2), ft_topo_gpu(t, 1, 5), &pol,
		                               &p),
		                 0);
		path_nics(t, &p, &out, &in);
		assert_int_equal(out, ft_topo_nic(t, 0, s.node.gpu_nic[2]));
		assert_int_equal(in, ft_topo_nic(t, 1, s.node.gpu_nic[5]));
	}
	ft_topo_free(t);
}

static void
test_stats(void **state)
{
	struct ft_topo *t = fat_tree(true, 30, 2, 8, 3); /* leaves 6 down, 2 up */
	struct ft_topo_stats st;

	assert_int_equal(ft_topo_stats(t, &st, NULL), 0);
	assert_true(fabs(st.oversubscription[1] - 6.0 * GBPS(200) / (2 * GBPS(400))) < 1e-9);
	assert_true(fabs(st.injection_Bps - 30 * GBPS(200)) < 1);
	/* 5 leaves x 2 up-links x 400G / 2 = 2 TB/s... below 15 x 200G hosts */
	assert_true(fabs(st.bisection_Bps - 5 * 2 * GBPS(400) / 2) < 1);
	assert_true(ft_topo_memory(t) > 0);
	ft_topo_free(t);

	t = dragonfly(40, 5, 4, 2, 2);
	assert_int_equal(ft_topo_stats(t, &st, NULL), 0);
	/* 2 | 3 groups, 2 global links per pair: 2 * 3 * 2 links of 400G, more than
	 * half the hosts inject (20 x 200G). */
	assert_true(fabs(st.bisection_Bps - 20 * GBPS(200)) < 1);
	ft_topo_free(t);
	t = dragonfly(40, 5, 4, 2, 1); /* one global link per pair: 6 links of 400G */
	assert_int_equal(ft_topo_stats(t, &st, NULL), 0);
	assert_true(fabs(st.bisection_Bps - 6 * GBPS(400)) < 1);
	ft_topo_free(t);
	t = torus(2, 4, 6, 0, 2); /* 48 hosts: the ring cut binds */
	assert_int_equal(ft_topo_stats(t, &st, NULL), 0);
	assert_true(fabs(st.bisection_Bps - 2 * 4 * GBPS(400)) < 1);
	assert_int_equal(st.diameter_hops, 2 + 2 + 3);
	ft_topo_free(t);
}

static void
test_export(void **state)
{
	struct ft_topo *t = fat_tree(true, 8, 2, 8, 1);
	struct ft_strbuf sb;
	size_t edges = 0;
	const char *c;

	ft_strbuf_init(&sb);
	assert_int_equal(ft_topo_export_dot(t, &sb), 0);
	for (c = sb.buf; (c = strstr(c, " -- ")); c++)
		edges++;
	assert_int_equal(edges, ft_topo_nlinks(t) / 2);
	assert_non_null(strstr(sb.buf, "\"n0.nic0\" -- \"leaf0\""));
	ft_strbuf_reset(&sb);
	assert_int_equal(ft_topo_export_json(t, &sb), 0);
	assert_non_null(strstr(sb.buf, "\"vertices\":["));
	assert_non_null(strstr(sb.buf, "\"kind\":\"switch\""));
	{
		/* A link's record: its ends, its kind, then its figures, in this order. */
		const struct ft_link *l = ft_topo_link(t, 1);
		char want[160];

		snprintf(want, sizeof(want),
		         "{\"id\":1,\"src\":%u,\"dst\":%u,\"rev\":%u,\"kind\":\"%s\",\"tier\":%u,"
		         "\"up\":%s,\"cap_Bps\":",
		         l->src, l->dst, l->rev, ft_link_kind_name((enum ft_link_kind)l->kind),
		         l->tier, l->up ? "true" : "false");
		if (!strstr(sb.buf, want))
			fail_msg("no '%s' in the export", want);
	}
	ft_strbuf_release(&sb);
	ft_topo_free(t);
}

static void
expect_error(const struct ft_cluster_spec *s, int code, const char *needle)
{
	struct ft_topo *t = (struct ft_topo *)(uintptr_t)1;
	struct ft_error err = { 0 };

	assert_int_equal(ft_topo_build(s, &t, &err), code);
	assert_null(t);
	if (!strstr(err.msg, needle))
		fail_msg("expected '%s' in '%s'", needle, err.msg);
}

static void
test_bad_specs(void **state)
{
	struct ft_cluster_spec s = { 0 };

	thin_node(&s.node);
	fabric(&s, FT_FABRIC_FAT_TREE, 33);
	s.fabric.tiers = 2;
	s.fabric.radix = 8;
	expect_error(&s, FT_EINVAL, "fabric.radix:");
	s.fabric.tiers = 3;
	s.nnodes = 129;
	expect_error(&s, FT_EINVAL, "fabric.radix:");
	s.fabric.tiers = 4;
	expect_error(&s, FT_EINVAL, "fabric.tiers:");
	s.fabric.tiers = 2;
	s.fabric.radix = 2;
	expect_error(&s, FT_EINVAL, "fabric.radix:");
	s.fabric.radix = 8;
	s.nnodes = 0;
	expect_error(&s, FT_EINVAL, "nodes.count:");
	dgx_node(&s.node);
	s.nnodes = 2;
	s.node.gpu_nic[3] = 9;
	expect_error(&s, FT_EINVAL, "nodes.placement.gpu_nic[3]: expected 0..7, got 9");
	dgx_node(&s.node);
	s.node.pcie_Bps_gpu = 0;
	expect_error(&s, FT_EINVAL, "nodes.pcie.gpu_bandwidth:");
	dgx_node(&s.node);
	fabric(&s, FT_FABRIC_DRAGONFLY, 41);
	s.fabric.groups = 5;
	s.fabric.routers_per_group = 4;
	s.fabric.nodes_per_router = 2;
	s.fabric.global_links_per_router = 1;
	expect_error(&s, FT_EINVAL, "fabric.groups:");
	s.nnodes = 40;
	s.fabric.groups = 6;
	expect_error(&s, FT_EINVAL, "fabric.global_links_per_router:");
	fabric(&s, FT_FABRIC_TORUS, 17);
	s.fabric.ndims = 2;
	s.fabric.dims[0] = 4;
	s.fabric.dims[1] = 4;
	expect_error(&s, FT_EINVAL, "fabric.dims:");
	s.fabric.ndims = 1;
	expect_error(&s, FT_EINVAL, "fabric.ndims:");
	fabric(&s, FT_FABRIC_MULTI_PLANE, 4);
	s.fabric.radix = 16;
	s.fabric.planes = 3;
	expect_error(&s, FT_EINVAL, "fabric.planes:");
}

/* The D-mod-K/ECMP salt and hash are specified: pin a few values. */
static void
test_flow_hash(void **state)
{
	assert_true(ft_route_flow_hash(1, 2, 3) == ft_mix64(ft_mix64(((uint64_t)1 << 32) | 2) ^ 3));
	assert_true(ft_route_flow_hash(1, 2, 3) != ft_route_flow_hash(2, 1, 3));
	assert_true(ft_route_flow_hash(1, 2, 3) != ft_route_flow_hash(1, 2, 4));
}

/*
 * The switch-by-switch out-link of every path toward NIC @dn of @t under ECMP from every
 * other node's NIC on @nqp QPs, into @port (per vertex, UINT32_MAX: none yet): the number
 * of times a switch sent one of them elsewhere than the first; *@choices counts the
 * switch hops that had several equal-cost links.
 */
static uint32_t
ecmp_out_ports(const struct ft_topo *t, uint32_t dn, uint32_t nqp, uint32_t *port,
               uint32_t *choices)
{
	struct ft_route_policy pol = { .routing = FT_ROUTING_ECMP, .salt_seed = 7 };
	uint32_t differ = 0, buf[16];

	for (uint32_t v = 0; v < ft_topo_nvertices(t); v++)
		port[v] = UINT32_MAX;
	for (uint32_t sn = 0; sn < ft_topo_spec(t)->nnodes; sn++)
		for (uint32_t qp = 0; qp < nqp; qp++) {
			uint32_t src = ft_topo_nic(t, sn, 0);
			struct ft_path p;

			if (src == dn)
				continue;
			pol.flow_hash = ft_route_flow_hash(src, dn, qp);
			assert_int_equal(ft_route_path(t, src, dn, &pol, &p), 0);
			for (uint32_t i = 0; i < p.nlinks; i++) {
				uint32_t at = ft_topo_link(t, p.links[i])->src;

				if (ft_topo_vertex(t, at)->kind != FT_V_SWITCH)
					continue;
				*choices += ft_route_next_hops(t, at, dn, buf, 16) > 1;
				if (port[at] == UINT32_MAX)
					port[at] = p.links[i];
				differ += port[at] != p.links[i];
			}
		}
	return differ;
}

/*
 * InfiniBand under ECMP forwards by destination LID (kb IB-SM: the SM fills one output port
 * per switch per LID; NCCL addresses a peer by its port's LID, NVIDIA/nccl v2.27.7-1
 * src/transport/net_ib.cc ncclIbRtrQp()): on a 2-level HDR fat tree (16 one-NIC nodes,
 * radix 8: four leaves of four up-links, two cables from each spine to each leaf), all 8
 * QPs of a connection and every source's flows to one destination NIC leave each switch by
 * one port, while the leaves' picks over the destinations still use more than one up-link.
 * The same tree on RoCE (kb ROCE-WIRE: each QP's UDP source port is hashed) spreads them.
 * Before, IB hashed (source, destination, QP) as RoCE does: its switches sent one
 * destination's flows out of several ports.
 */
static void
test_ecmp_ib_by_dlid(void **state)
{
	static const char *const links[] = { "hdr", "roce400" };

	(void)state;
	for (size_t k = 0; k < FT_ARRAY_SIZE(links); k++) {
		struct ft_cluster_spec s = { 0 };
		struct ft_topo *t;
		uint32_t *port, differ = 0, choices = 0, leaf0 = UINT32_MAX, up0 = UINT32_MAX;
		bool leaf_spreads = false;

		thin_node(&s.node);
		fabric(&s, FT_FABRIC_FAT_TREE, 16);
		s.fabric.tiers = 2;
		s.fabric.radix = 8;
		snprintf(s.fabric.link, sizeof(s.fabric.link), "%s", links[k]);
		t = build_or_fail(&s);
		port = calloc(ft_topo_nvertices(t), sizeof(*port));
		assert_non_null(port);
		for (uint32_t d = 0; d < 16; d++) {
			differ += ecmp_out_ports(t, ft_topo_nic(t, d, 0), 8, port, &choices);
			/* one leaf (the first seen going up), toward every destination */
			for (uint32_t v = 0; v < ft_topo_nvertices(t); v++) {
				const struct ft_vertex *x = ft_topo_vertex(t, v);

				if (x->kind != FT_V_SWITCH || x->tier != 1 || port[v] == UINT32_MAX ||
				    !ft_topo_link(t, port[v])->up)
					continue;
				if (leaf0 == UINT32_MAX)
					leaf0 = v;
				if (v != leaf0)
					continue;
				if (up0 == UINT32_MAX)
					up0 = port[v];
				leaf_spreads |= up0 != port[v];
			}
		}
		assert_true(choices > 0);
		if (k == 0) {
			if (differ)
				fail_msg("IB: %u switch hops left by another port than the "
				         "destination's first",
				         differ);
			assert_true(leaf_spreads);
		} else {
			assert_true(differ > 0);
		}
		free(port);
		ft_topo_free(t);
	}
}

/* The index of link @l among @sw's equal-cost next hops toward @dst (their port order). */
static uint32_t
hop_index(const struct ft_topo *t, uint32_t sw, uint32_t dst, uint32_t l, uint32_t *n)
{
	uint32_t buf[64];
	int k = ft_route_next_hops(t, sw, dst, buf, 64);

	assert_true(k > 0 && k <= 64);
	*n = (uint32_t)k;
	for (int i = 0; i < k; i++)
		if (buf[i] == l)
			return (uint32_t)i;
	fail_msg("link %u is no next hop of switch %u toward %u", l, sw, dst);
	return UINT32_MAX;
}

/* The minhop invariant: at every switch of @t, the destination NICs of each equal-cost
 * port set are spread over its ports with counts that differ by at most one (opensm
 * osm_switch_recommend_path(): the least-used port each time). Returns the switches
 * checked with a choice. */
static uint32_t
minhop_balanced(const struct ft_topo *t)
{
	struct ft_route_policy pol = { .routing = FT_ROUTING_MINHOP };
	uint32_t nv = ft_topo_nvertices(t), nl = ft_topo_nlinks(t), nn = ft_topo_spec(t)->nnodes;
	uint32_t *cnt = calloc(nl, sizeof(*cnt)), *set = calloc(nl, sizeof(*set)), checked = 0;

	assert_non_null(cnt);
	assert_non_null(set);
	for (uint32_t sw = 0; sw < nv; sw++) {
		bool any = false;

		if (ft_topo_vertex(t, sw)->kind != FT_V_SWITCH)
			continue;
		for (uint32_t d = 0; d < nn; d++) {
			uint32_t dst = ft_topo_nic(t, d, 0), buf[64], l;
			int k = ft_route_next_hops(t, sw, dst, buf, 64);

			if (k <= 1)
				continue;
			assert_int_equal(ft_route_next_link(t, sw, dst, &pol, &l), 0);
			for (int i = 0; i < k; i++)
				set[buf[i]] = buf[0] + 1; /* the set, named by its first port */
			cnt[l]++;
			any = true;
		}
		for (uint32_t a = 0; a < nl; a++)
			for (uint32_t b = 0; b < nl && set[a]; b++)
				if (set[b] == set[a] && cnt[a] > cnt[b] + 1)
					fail_msg("switch %u: port %u has %u LIDs, port %u %u", sw,
					         a, cnt[a], b, cnt[b]);
		memset(cnt, 0, nl * sizeof(*cnt));
		memset(set, 0, nl * sizeof(*set));
		checked += any;
	}
	free(cnt);
	free(set);
	return checked;
}

/* @s: @nnodes thin nodes on a 2-tier radix-8 HDR fat tree at @oversub. */
static void
hdr_two_tier(struct ft_cluster_spec *s, uint32_t nnodes, double oversub)
{
	thin_node(&s->node);
	fabric(s, FT_FABRIC_FAT_TREE, nnodes);
	s->fabric.tiers = 2;
	s->fabric.radix = 8;
	s->fabric.oversubscription = oversub;
	snprintf(s->fabric.link, sizeof(s->fabric.link), "hdr");
}

/*
 * routing minhop on a 2-level HDR fat tree of radix 8 at 5:3 (15 single-NIC nodes, 3
 * leaves of 5 down and 3 up ports). OpenSM routes the LIDs in port order, leaf by leaf
 * (ucast_mgr_build_lfts()), each to the least-used min-hop port, ties to the lowest: leaf
 * 1 meets the NICs of leaf 0 (keys 0..4) and of leaf 2 (keys 10..14) as its remote LIDs
 * 0..9 and sends them up ports 0 1 2 0 1 2 0 1 2 0, worked by hand; D-mod-K (key mod 3)
 * would send keys 10..14 up 1 2 0 1 2. Then the invariant on that tree, on a 1:1 one with
 * parallel leaf-spine cables (radix 16: 8 leaves' 8 up-links over 4 spines, 2 cables
 * each, the spines dealing each leaf's NICs over them) and on a 3-tier one. Every path is
 * one per destination whatever the flow hash; the same tree on RoCE is refused.
 */
static void
test_minhop(void **state)
{
	static const uint32_t want1[15] = { 0, 1, 2, 0, 1, 9, 9, 9, 9, 9, 2, 0, 1, 2, 0 };
	struct ft_route_policy pol = { .routing = FT_ROUTING_MINHOP };
	struct ft_cluster_spec s = { 0 };
	struct ft_topo *t;
	uint32_t leaf1, l, n, idx;
	struct ft_path p1, p2;

	(void)state;
	hdr_two_tier(&s, 15, 1.7);
	t = build_or_fail(&s);
	assert_int_equal(ft_route_next_hops(t, ft_topo_nic(t, 5, 0), ft_topo_nic(t, 0, 0), &l, 1),
	                 1);
	leaf1 = ft_topo_link(t, l)->dst;
	for (uint32_t d = 0; d < 15; d++) {
		uint32_t dst = ft_topo_nic(t, d, 0);

		assert_int_equal(ft_route_next_link(t, leaf1, dst, &pol, &l), 0);
		if (want1[d] == 9) {
			assert_false(ft_topo_link(t, l)->up);
			continue;
		}
		idx = hop_index(t, leaf1, dst, l, &n);
		assert_int_equal(n, 3);
		if (idx != want1[d])
			fail_msg("leaf 1 toward NIC %u: up port %u, want %u", d, idx, want1[d]);
	}
	assert_true(minhop_balanced(t) >= 3);
	for (uint32_t a = 0; a < 15; a++)
		for (uint32_t b = 0; b < 15; b++) {
			uint32_t na = ft_topo_nic(t, a, 0), nb = ft_topo_nic(t, b, 0);

			pol.flow_hash = 1;
			assert_int_equal(ft_route_path(t, na, nb, &pol, &p1), 0);
			pol.flow_hash = 0xdeadbeef;
			assert_int_equal(ft_route_path(t, na, nb, &pol, &p2), 0);
			assert_memory_equal(&p1, &p2, sizeof(p1));
		}
	ft_topo_free(t);
	s.nnodes = 64;
	s.fabric.radix = 16;
	s.fabric.oversubscription = 1;
	t = build_or_fail(&s);
	assert_true(minhop_balanced(t) >= 8 + 4);
	ft_topo_free(t);
	s.nnodes = 128;
	s.fabric.tiers = 3;
	t = build_or_fail(&s);
	assert_true(minhop_balanced(t) > 16);
	ft_topo_free(t);
	snprintf(s.fabric.link, sizeof(s.fabric.link), "roce400");
	t = build_or_fail(&s);
	l = ft_topo_nic(t, 100, 0);
	assert_int_equal(ft_route_path(t, ft_topo_nic(t, 0, 0), l, &pol, &p1), FT_EINVAL);
	ft_topo_free(t);
}

/*
 * minhop after a link goes down and comes back: OpenSM re-sweeps and fills the tables
 * again over the healthy ports (osm_switch_recommend_path() skips a port that is not
 * healthy or has no remote). On a 1:1 radix-8 tree (4 leaves of 4 NICs, 4 up-links each)
 * leaf 0 deals its 12 remote LIDs over its up-links 0 1 2 3 0 1 ...; with up-link 0 down,
 * over 1 2 3 1 2 3 ...; with it back, as before. A table kept from before the failure
 * would send the LID after the first to up-link 1, not 2.
 */
static void
test_minhop_link_down(void **state)
{
	struct ft_route_policy pol = { .routing = FT_ROUTING_MINHOP };
	struct ft_cluster_spec s = { 0 };
	struct ft_topo *t;
	uint32_t leaf0, l, up[4];
	double scale;

	(void)state;
	hdr_two_tier(&s, 16, 1);
	t = build_or_fail(&s);
	assert_int_equal(ft_route_next_hops(t, ft_topo_nic(t, 0, 0), ft_topo_nic(t, 1, 0), &l, 1),
	                 1);
	leaf0 = ft_topo_link(t, l)->dst;
	assert_int_equal(ft_route_next_hops(t, leaf0, ft_topo_nic(t, 4, 0), up, 4), 4);
	for (int round = 0; round < 3; round++) {
		uint32_t nup = round == 1 ? 3 : 4, *live = round == 1 ? up + 1 : up;

		for (uint32_t d = 4; d < 16; d++) {
			assert_int_equal(
			        ft_route_next_link(t, leaf0, ft_topo_nic(t, d, 0), &pol, &l), 0);
			if (l != live[(d - 4) % nup])
				fail_msg("round %d: leaf 0 toward NIC %u: link %u, want %u", round,
				         d, l, live[(d - 4) % nup]);
		}
		if (round == 2)
			break;
		scale = round == 0 ? 0.0 : 1.0; /* down, then back */
		assert_int_equal(ft_topo_set_link_scale(t, up[0], scale), 0);
		assert_int_equal(ft_topo_set_link_scale(t, ft_topo_link(t, up[0])->rev, scale), 0);
	}
	ft_topo_free(t);
}

/* Presets and the shipped example specs: build, summarise, route random GPU pairs. */
static void
test_specs_route(void **state)
{
	static const char *const specs[] = {
		"dgx-h100",
		"dgx-h100:4",
		"dgx-a100:96",
		"hgx-h200:300",
		"dgx-b200:64",
		"pcie-l40s:40",
		"examples/a100-superpod.yaml",
		"examples/b200-multiplane.yaml",
		"examples/custom-node.yaml",
		"examples/h200-dragonfly.yaml",
		"examples/l40s-roce.yaml",
		"examples/research-cluster.yaml",
		"examples/torus.json",
	};
	static const enum ft_routing routings[] = { FT_ROUTING_ECMP, FT_ROUTING_DMODK,
		                                    FT_ROUTING_ADAPTIVE, FT_ROUTING_VALIANT,
		                                    FT_ROUTING_DOR };

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct ft_cluster_spec s;
		struct ft_error err = { 0 };
		struct ft_topo *t;
		struct ft_topo_stats st;
		struct ft_rng rng;
		bool planes;

		if (ft_spec_resolve(specs[i], &s, &err) < 0)
			fail_msg("%s: %s", specs[i], err.msg);
		t = build_or_fail(&s);
		check_reverse_and_csr(t);
		assert_int_equal(ft_topo_stats(t, &st, NULL), 0);
		assert_int_equal(st.nvertices_by_kind[FT_V_GPU], ft_spec_ngpus(&s));
		planes = s.fabric.kind == FT_FABRIC_MULTI_PLANE;
		ft_rng_seed(&rng, 5, i);
		for (uint32_t k = 0; k < 2000; k++) {
			uint32_t a = (uint32_t)ft_rng_below(&rng, s.nnodes);
			uint32_t b = (uint32_t)ft_rng_below(&rng, s.nnodes);
			uint32_t ga = (uint32_t)ft_rng_below(&rng, s.node.ngpus);
			uint32_t gb = (uint32_t)ft_rng_below(&rng, s.node.ngpus);
			uint32_t src = ft_topo_gpu(t, a, ga), dst = ft_topo_gpu(t, b, gb);
			struct ft_route_policy pol = {
				.routing = routings[k % 5],
				.flow_hash = ft_route_flow_hash(src, dst, k),
				.salt_seed = 9,
			};
			struct ft_path p;
			int rc = ft_route_path(t, src, dst, &pol, &p);

			if (rc < 0)
				fail_msg("%s: %u.%u -> %u.%u: %d", specs[i], a, ga, b, gb, rc);
			check_path(t, src, dst, &p,
			           s.fabric.kind != FT_FABRIC_DRAGONFLY &&
			                   s.fabric.kind != FT_FABRIC_TORUS);
			/* Hop by hop, every link taken is one the fabric offers toward dst (the
			 * simulator routing adaptively sees the same choices), except Valiant's
			 * detour. */
			for (uint32_t h = 0; h < p.nlinks && pol.routing != FT_ROUTING_VALIANT;
			     h++) {
				uint32_t cand[1024], at = ft_topo_link(t, p.links[h])->src;
				int nc = ft_route_next_hops(t, at, dst, cand, 1024);
				bool found = false;

				for (int c = 0; c < nc && c < 1024; c++)
					found = found || cand[c] == p.links[h];
				if (!found)
					fail_msg(
					        "%s: %u.%u -> %u.%u: hop %u not among %d next hops",
					        specs[i], a, ga, b, gb, h, nc);
			}
			/* The NICs of a GPU pair on one plane also reach each other directly. */
			if (a != b && !planes && s.node.nnics) {
				uint32_t na = ft_topo_nic(t, a, k % s.node.nnics);
				uint32_t nb = ft_topo_nic(t, b, (k / 3) % s.node.nnics);

				assert_int_equal(ft_route_path(t, na, nb, &pol, &p), 0);
				check_path(t, na, nb, &p, false);
				assert_true(p.nlinks <= st.diameter_hops ||
				            pol.routing == FT_ROUTING_VALIANT);
			}
		}
		ft_topo_free(t);
	}
}

/* The line of @buf holding @needle, into @line; fails when none does. */
static const char *
line_with(const char *buf, const char *needle, char *line, size_t len)
{
	const char *at = strstr(buf, needle), *b, *e;

	if (!at)
		fail_msg("no line holds '%s' in:\n%s", needle, buf);
	for (b = at; b > buf && b[-1] != '\n'; b--)
		;
	e = strchr(at, '\n');
	snprintf(line, len, "%.*s", (int)(e ? e - b : (ptrdiff_t)strlen(b)), b);
	return line;
}

static size_t
count_of(const char *buf, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(buf, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* The summary of a 2-tier tree of 30 thin nodes, leaves 6 down and 2 up: 5 leaves at
 * 6 x 200G : 2 x 400G = 1.50:1, 60 directed host links, bisection 5 x 2 x 400G / 2,
 * injection 30 x 200G, NIC-leaf-spine-leaf-NIC = 4 links; and one route, whose only
 * choice is at the leaf going up (2 spines). */
static void
test_write_summary_and_path(void **state)
{
	struct ft_topo *t = fat_tree(true, 30, 2, 8, 3);
	struct ft_topo_stats st;
	struct ft_route_policy pol = { .routing = FT_ROUTING_ECMP };
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	struct ft_path p;
	char line[256], want[64], rate[32];
	uint32_t src, dst;

	(void)state;
	assert_int_equal(ft_topo_stats(t, &st, NULL), 0);
	ft_strbuf_init(&sb);
	assert_int_equal(ft_topo_stats_write_text(t, &st, &sb), 0);
	assert_non_null(strstr(sb.buf, "  fabric     fat-tree, 30 nodes, 30 GPUs\n"));
	line_with(sb.buf, "1.50:1", line, sizeof(line));
	assert_non_null(strstr(line, "1 leaf"));
	assert_non_null(strstr(line, " 5 "));
	assert_non_null(strstr(line, "host-leaf"));
	assert_int_equal(strcmp(line + strlen(line) - 3, " 60"), 0);
	snprintf(want, sizeof(want), "  bisection  %s per direction\n",
	         ft_format_rate_bytes(5 * 2 * GBPS(400) / 2, rate, sizeof(rate)));
	assert_non_null(strstr(sb.buf, want));
	snprintf(want, sizeof(want), "  injection  %s per direction\n",
	         ft_format_rate_bytes(30 * GBPS(200), rate, sizeof(rate)));
	assert_non_null(strstr(sb.buf, want));
	assert_non_null(strstr(sb.buf, "  diameter   4 links between NICs\n"));

	ft_strbuf_reset(&sb);
	ft_topo_stats_write_json(t, &st, -1, &sb);
	assert_non_null(strstr(sb.buf, "\"fabric\":\"fat-tree\",\"nodes\":30,\"gpus\":30,"));
	assert_non_null(strstr(sb.buf, "\"diameter_hops\":4,"));
	assert_null(strstr(sb.buf, "build_s"));
	ft_strbuf_reset(&sb);
	ft_topo_stats_write_json(t, &st, 0.5, &sb);
	assert_non_null(strstr(sb.buf, ",\"build_s\":0.5}\n"));

	assert_int_equal(ft_topo_vertex_find(t, "n0.gpu0", &src), 0);
	assert_int_equal(ft_topo_vertex_find(t, "n29.gpu0", &dst), 0);
	pol.flow_hash = ft_route_flow_hash(src, dst, 0);
	assert_int_equal(ft_route_path(t, src, dst, &pol, &p), 0);
	ft_strbuf_reset(&sb);
	assert_int_equal(ft_topo_path_write(t, "thin:30", src, dst, FT_ROUTING_ECMP, 0, true, &sb,
	                                    &err),
	                 0);
	assert_non_null(strstr(sb.buf, "{\"src\":\"n0.gpu0\",\"dst\":\"n29.gpu0\","
	                                "\"routing\":\"ecmp\",\"qp\":0,"));
	assert_int_equal(count_of(sb.buf, "\"choices\":"), p.nlinks);
	assert_int_equal(count_of(sb.buf, "\"choices\":2"), 1);
	assert_int_equal(count_of(sb.buf, "\"choices\":1"), p.nlinks - 1);
	ft_strbuf_reset(&sb);
	assert_int_equal(ft_topo_path_write(t, "thin:30", src, dst, FT_ROUTING_ECMP, 0, false, &sb,
	                                    &err),
	                 0);
	snprintf(want, sizeof(want), "path n0.gpu0 -> n29.gpu0 (ecmp, qp 0): %u links, ",
	         p.nlinks);
	assert_int_equal(strncmp(sb.buf, want, strlen(want)), 0);
	ft_strbuf_release(&sb);
	ft_topo_free(t);
}

/* `fabtune topo`'s questions: checked options, a route, a vertex that is not there, an export. */
static void
test_topo_query(void **state)
{
	struct ft_topo_query q = { 0 };
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;

	(void)state;
	q.format = "svg";
	assert_int_equal(ft_topo_query_check(&q, &err), FT_EINVAL);
	assert_string_equal(err.msg, "--format: expected text, dot or json, got 'svg'");
	err = (struct ft_error){ 0 };
	q.format = NULL;
	q.qp = 3; /* without --path */
	assert_int_equal(ft_topo_query_check(&q, &err), FT_EINVAL);
	assert_string_equal(err.msg, "--routing and --qp apply to --path");
	err = (struct ft_error){ 0 };
	assert_int_equal(ft_spec_resolve("dgx-h100:4", &spec, &err), 0);
	/* within a node the route is one NVLink hop through the NVSwitch */
	q.path = "n0.gpu0,n0.gpu3";
	ft_strbuf_init(&sb);
	assert_int_equal(ft_topo_query_write(&q, &spec, "dgx-h100:4", &sb, &err), 0);
	assert_non_null(strstr(sb.buf, "n0.gpu0"));
	assert_non_null(strstr(sb.buf, "n0.nvswitch"));
	ft_strbuf_release(&sb);
	q.path = "n0.gpu0,n9.gpu0";
	ft_strbuf_init(&sb);
	assert_int_equal(ft_topo_query_write(&q, &spec, "dgx-h100:4", &sb, &err), FT_EINVAL);
	assert_string_equal(err.msg, "--path: n9.gpu0: no such vertex in dgx-h100:4");
	ft_strbuf_release(&sb);
	err = (struct ft_error){ 0 };
	q.path = NULL;
	q.qp = 0;
	q.format = "dot";
	ft_strbuf_init(&sb);
	assert_int_equal(ft_topo_query_write(&q, &spec, "dgx-h100:4", &sb, &err), 0);
	assert_non_null(strstr(sb.buf, "graph"));
	ft_strbuf_release(&sb);
	/* the JSON summary of a stable run has no build time */
	q.format = NULL;
	q.json = q.stable = true;
	ft_strbuf_init(&sb);
	assert_int_equal(ft_topo_query_write(&q, &spec, "dgx-h100:4", &sb, &err), 0);
	assert_int_equal(sb.buf[0], '{');
	assert_null(strstr(sb.buf, "build_s"));
	ft_strbuf_release(&sb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node_interior), cmocka_unit_test(test_fattree_counts),
		cmocka_unit_test(test_fattree_paths), cmocka_unit_test(test_diameter_matches_bfs),
		cmocka_unit_test(test_ecmp_spread),   cmocka_unit_test(test_dmodk),
		cmocka_unit_test(test_dmodk_rail_3tier),
		cmocka_unit_test(test_fattree_leaf_port),
		cmocka_unit_test(test_dragonfly),     cmocka_unit_test(test_torus_dor),
		cmocka_unit_test(test_down_links),    cmocka_unit_test(test_rail_and_planes),
		cmocka_unit_test(test_nics_per_gpu_lanes),
		cmocka_unit_test(test_stats),         cmocka_unit_test(test_export),
		cmocka_unit_test(test_bad_specs),     cmocka_unit_test(test_flow_hash),
		cmocka_unit_test(test_ecmp_ib_by_dlid),
		cmocka_unit_test(test_minhop_link_down),
		cmocka_unit_test(test_minhop),
		cmocka_unit_test(test_specs_route),
		cmocka_unit_test(test_write_summary_and_path),
		cmocka_unit_test(test_topo_query),
	};

	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

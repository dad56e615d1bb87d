/* SPDX-License-Identifier: MIT */
/*
 * topo/topo_int.h - inside the topology module: the graph layout, the
 * builder's edge list and the per-fabric routing structure.
 *
 * Vertex ids: the nodes come first, node n owning the block
 * [n * per_node, (n + 1) * per_node) laid out as GPUs, NICs, PCIe switches,
 * CPUs, then the NVSwitch (when any); the fabric's switches follow. Links are
 * in CSR order: the out-links of a vertex are contiguous and sorted by
 * (up, dst id), so the up-links of a switch form one range (its ECMP set) and
 * the down-link to a given child is found by binary search.
 */
#ifndef FT_TOPO_INT_H
#define FT_TOPO_INT_H

#include "internal.h"

#include <fabtune/rng.h>
#include <fabtune/spec.h>
#include <fabtune/topo.h>

/* In-node routing costs: NVLink is preferred over PCIe, PCIe over the CPU link. */
#define FT_TOPO_COST_NVLINK 1
#define FT_TOPO_COST_PCIE   2
#define FT_TOPO_COST_CPU    3
#define FT_TOPO_COST_INF    UINT16_MAX

/* The node template: local offsets of each kind inside a node's vertex block. */
struct ft_node_layout {
	uint32_t per_node; /* vertices per node */
	uint32_t gpu0, nic0, pcie0, cpu0,
	        nvs; /* first local index of each kind; nvs = UINT32_MAX if none */
	uint32_t ngpus, nnics, npcie, ncpus;
	/* dist[a * per_node + b]: weighted shortest in-node cost from local a to
	 * local b, with GPUs and NICs never used as transit (they don't forward). */
	uint16_t *dist;
};

/* One fat-tree (a whole fabric, or one plane of a multi-plane fabric). */
struct ft_tree {
	uint32_t tiers;    /* 2 or 3 */
	uint32_t down, up; /* leaf down ports (NICs) and up ports */
	uint32_t nleaves, npods, leaves_per_pod;
	uint32_t spines_per_pod; /* 3-tier: per pod; 2-tier: the total */
	uint32_t spine_up;       /* 3-tier: up-links per spine */
	uint32_t core_groups, cores_per_group;
	uint32_t leaf_base, spine_base, core_base; /* first vertex id of each tier */
	uint32_t nnics;                            /* NICs on this tree */
};

struct ft_topo {
	struct ft_cluster_spec spec;
	uint32_t nv, nl;
	struct ft_vertex *v;
	struct ft_link *l;
	uint32_t *off;      /* CSR: out-links of v are off[v] .. off[v + 1] - 1 */
	uint32_t *up_first; /* first up-link of each vertex (== off[v + 1] when none) */
	double *scale;      /* per link, NULL until a scale is set (copy on write) */
	uint32_t ndown;     /* links with scale 0 */
	struct ft_node_layout nl_tpl; /* every node's, when all node groups share one shape */
	/* Node groups of different shapes (GPU placement, NICs, PCIe switches, sockets):
	 * each group's layout, first node and first vertex id; ngl = 0 when they share
	 * one shape (then a node's vertices start at node * nl_tpl.per_node). */
	uint32_t ngl;
	struct ft_node_layout nl_grp[FT_SPEC_MAX_GROUPS];
	uint32_t grp_node0[FT_SPEC_MAX_GROUPS], grp_base[FT_SPEC_MAX_GROUPS];
	uint32_t nic_stride;  /* nic_key row length: the most NICs of a node */
	uint32_t switch_base; /* first fabric switch id (after every node's vertices) */
	/* InfiniBand fabric (ft__topo_fabric_tech()): its switches forward by destination
	 * LID, so ECMP's pick at a switch is one per destination port (route.c choose()). */
	bool by_dlid;
	uint32_t nswitches;
	/* minhop's forwarding tables (route.c ft__route_minhop_sync()), on an InfiniBand
	 * fat-tree family only (else NULL): filled on first use and again after a link goes
	 * down or comes back (@link_gen moved), as the SM sweeps. */
	struct ft_lft *lft;
	uint64_t link_gen; /* bumped when a link's liveness changes */
	/* NIC keys: the D-mod-K index of each NIC (leaf-major order inside its
	 * tree/plane), indexed node * nic_stride + nic. */
	uint32_t *nic_key;
	/* fat-tree family */
	uint32_t ntrees; /* 1, or the planes of a multi-plane fabric */
	struct ft_tree *trees;
	/* dragonfly */
	uint32_t df_groups, df_routers, df_global_per_pair;
	/* torus */
	uint32_t tor_dims[3], tor_n;
	size_t mem_bytes;
};

/* minhop's LFTs: port[(switch - switch_base) * row + node * nic_stride + nic], the out-link
 * toward that NIC's LID (UINT32_MAX: none), row = nnodes * nic_stride. */
struct ft_lft {
	uint32_t *port;
	size_t row;
	uint64_t gen; /* the link_gen it was built at */
	bool built;
};
int ft__route_minhop_sync(const struct ft_topo *t);

/* The edge list the builders fill: one entry per physical link (both directions). */
struct ft_edge {
	uint32_t a, b; /* a -> b is the "up" direction where @up is set */
	uint8_t kind, tier, up, pad;
	double cap_Bps;
	double lat_ab_s, lat_ba_s;
};

struct ft_builder {
	struct ft_topo *t;
	struct ft_vec edges; /* struct ft_edge */
	struct ft_error *err;
};

int ft__topo_add_edge(struct ft_builder *b, uint32_t a, uint32_t bv, enum ft_link_kind kind,
                      unsigned tier, bool up, double cap_Bps, double lat_ab_s, double lat_ba_s);
int ft__topo_set_vertex(struct ft_topo *t, uint32_t id, enum ft_vertex_kind kind, unsigned tier,
                        unsigned plane, uint32_t node, uint32_t local, uint32_t group);

/* Node interior (node.c). */
int ft__topo_node_layout(const struct ft_node_spec *n, struct ft_node_layout *nl,
                         struct ft_error *err);
int ft__topo_node_build(struct ft_builder *b, uint32_t node);
int ft__topo_node_dist(struct ft_topo *t);

/* The NICs a node's row of @spec's layout holds (t->nic_stride): a node's own where its node
 * groups share one shape, else the most of any group's; *@groups whether they differ
 * (graph.c plan_nodes(), fattree.c ft_topo_fattree_leaf_port()). */
uint32_t ft__topo_nic_stride(const struct ft_cluster_spec *spec, bool *groups);

/* Fabric builders: vertex counting (plan) then edges (build). */
int ft__topo_fattree_plan(struct ft_topo *t, struct ft_error *err);
int ft__topo_fattree_build(struct ft_builder *b);
int ft__topo_dragonfly_plan(struct ft_topo *t, struct ft_error *err);
int ft__topo_dragonfly_build(struct ft_builder *b);
int ft__topo_torus_plan(struct ft_topo *t, struct ft_error *err);
int ft__topo_torus_build(struct ft_builder *b);

/* Host link latency and capacity, shared by the builders. */
double ft__topo_host_Bps(const struct ft_topo *t);
double ft__topo_host_Bps_node(const struct ft_topo *t, uint32_t node); /* its group's */
double ft__topo_fabric_Bps(const struct ft_topo *t);
double ft__topo_fabric_Bps_spec(const struct ft_cluster_spec *s);

/* Routing helpers shared by route*.c. */
static inline bool
ft__topo_link_live(const struct ft_topo *t, uint32_t l)
{
	return !t->scale || t->scale[l] > 0.0;
}

/* The group of @node among the layouts of nodes of different shapes (t->ngl > 0). */
static inline uint32_t
ft__topo_node_group(const struct ft_topo *t, uint32_t node)
{
	uint32_t g = t->ngl - 1;

	while (g > 0 && node < t->grp_node0[g])
		g--;
	return g;
}

/* The layout of @node's interior. */
static inline const struct ft_node_layout *
ft__topo_node_nl(const struct ft_topo *t, uint32_t node)
{
	return t->ngl ? &t->nl_grp[ft__topo_node_group(t, node)] : &t->nl_tpl;
}

/* The first vertex id of @node. */
static inline uint32_t
ft__topo_node_base(const struct ft_topo *t, uint32_t node)
{
	uint32_t g;

	if (!t->ngl)
		return node * t->nl_tpl.per_node;
	g = ft__topo_node_group(t, node);
	return t->grp_base[g] + (node - t->grp_node0[g]) * t->nl_grp[g].per_node;
}

/* The host (up) link of a NIC, UINT32_MAX if it has none. */
uint32_t ft__topo_nic_host_link(const struct ft_topo *t, uint32_t nic);
/* Non-up out-links of @v whose dst lies in [lo, hi): *first, returns the count. */
uint32_t ft__topo_links_to_range(const struct ft_topo *t, uint32_t v, uint32_t lo, uint32_t hi,
                                 uint32_t *first);

/* In-node next hops between two vertices of one node; @check filters down links. */
int ft__route_in_node(const struct ft_topo *t, uint32_t at, uint32_t dst, uint32_t *links,
                      size_t max, bool check);
int ft__route_fattree(const struct ft_topo *t, uint32_t at, uint32_t dst_nic, uint32_t *links,
                      size_t max, bool down_only);
int ft__route_dragonfly(const struct ft_topo *t, uint32_t at, uint32_t dst_nic, uint32_t *links,
                        size_t max);
int ft__route_dragonfly_to_group(const struct ft_topo *t, uint32_t at, uint32_t group,
                                 uint32_t *links, size_t max);
/* Minimal next hops from router @at toward group @grp (toward NIC @dst_nic on router @dr when
 * those aren't UINT32_MAX: only global links whose landing router still reaches it). */
int ft__route_dragonfly_hops(const struct ft_topo *t, uint32_t at, uint32_t grp, uint32_t dr,
                             uint32_t dst_nic, uint32_t *links, size_t max);
int ft__route_torus(const struct ft_topo *t, uint32_t at, uint32_t dst_nic, uint32_t *links,
                    size_t max);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * fabtune/topo.h - the topology graph and routing.
 *
 * ft_topo_build() turns a cluster spec into a compact, read-only graph:
 * vertices (GPUs, NICs, PCIe switches, CPUs/NUMA roots, NVSwitches, network
 * switches per tier) and directed links with capacity and latency. Every
 * physical cable or lane group is two directed links, each the other's
 * reverse. Vertices and links are numbered densely from 0 and stored in
 * arrays; adjacency is CSR (out-links of a vertex are contiguous), so a
 * 100,000-GPU fabric fits in a few hundred MB.
 *
 * Routing exposes every equal-cost choice: ft_route_next_hops() lists the
 * equal-cost out-links from a vertex toward a destination; ft_route_path()
 * walks them with a policy (ECMP hash, D-mod-K, a caller's chooser for
 * adaptive routing, dragonfly minimal/Valiant, torus dimension order).
 */
#ifndef FABTUNE_TOPO_H
#define FABTUNE_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fabtune/base.h>
#include <fabtune/spec.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FT_VERTEX_KIND_MAP(X)                                                                      \
	X(GPU, "gpu")                                                                              \
	X(NIC, "nic")                                                                              \
	X(PCIE_SWITCH, "pcie-switch")                                                              \
	X(CPU, "cpu")                                                                              \
	X(NVSWITCH, "nvswitch")                                                                    \
	X(SWITCH, "switch")

enum ft_vertex_kind {
#define FT_VK_ENUM_(n, s) FT_V_##n,
	FT_VERTEX_KIND_MAP(FT_VK_ENUM_)
#undef FT_VK_ENUM_
	FT_V_COUNT
};

#define FT_LINK_KIND_MAP(X)                                                                        \
	X(NVLINK, "nvlink")                                                                        \
	X(PCIE, "pcie")                                                                            \
	X(CPU, "cpu")   /* socket-to-socket (UPI/xGMI) */                                          \
	X(HOST, "host") /* NIC to its first network switch */                                      \
	X(FABRIC, "fabric") /* switch to switch */

enum ft_link_kind {
#define FT_LK_ENUM_(n, s) FT_L_##n,
	FT_LINK_KIND_MAP(FT_LK_ENUM_)
#undef FT_LK_ENUM_
	FT_L_COUNT
};

FT_API const char *ft_vertex_kind_name(enum ft_vertex_kind k);
FT_API const char *ft_link_kind_name(enum ft_link_kind k);

#define FT_NO_NODE UINT32_MAX

struct ft_vertex {
	uint8_t kind;	/* enum ft_vertex_kind */
	uint8_t tier;	/* network switches: 1 = leaf, 2 = spine, 3 = core; 0 otherwise */
	uint8_t plane;	/* multi-plane / rail index where it applies, else 0 */
	uint8_t pad;
	uint32_t node;	/* node (server) index, FT_NO_NODE for fabric switches */
	uint32_t local; /* index within its node (GPU 3, NIC 5) or within its tier/group */
	uint32_t group; /* pod, scalable unit or dragonfly group; 0 where it doesn't apply */
};

struct ft_link {
	uint32_t src, dst; /* vertex ids */
	uint32_t rev;	   /* id of the reverse link */
	uint8_t kind;	   /* enum ft_link_kind */
	uint8_t tier;	   /* fabric level crossed: 1 host-leaf, 2 leaf-spine, 3 spine-core; 0 in-node */
	uint8_t up;	   /* 1 when it goes up the tree (toward core), else 0 */
	uint8_t pad;
	double cap_Bps;	   /* capacity, bytes/s */
	double lat_s;	   /* latency of the hop */
};

struct ft_topo; /* opaque, read-only after build */

/* Build the graph of @spec. FT_EINVAL with the field named for a spec the builder can't lay
 * out (e.g. more nodes than radix^tiers allows). */
FT_API int ft_topo_build(const struct ft_cluster_spec *spec, struct ft_topo **out,
			 struct ft_error *err) FT_MUST_CHECK;
FT_API void ft_topo_free(struct ft_topo *t);

FT_API const struct ft_cluster_spec *ft_topo_spec(const struct ft_topo *t);
FT_API uint32_t ft_topo_nvertices(const struct ft_topo *t);
FT_API uint32_t ft_topo_nlinks(const struct ft_topo *t);
FT_API const struct ft_vertex *ft_topo_vertex(const struct ft_topo *t, uint32_t v);
FT_API const struct ft_link *ft_topo_link(const struct ft_topo *t, uint32_t l);
/* Out-links of @v: ids first .. first + count - 1. */
FT_API void ft_topo_out_links(const struct ft_topo *t, uint32_t v, uint32_t *first,
			      uint32_t *count);
/* Vertex id of GPU @gpu / NIC @nic of node @node; UINT32_MAX when out of range. */
FT_API uint32_t ft_topo_gpu(const struct ft_topo *t, uint32_t node, uint32_t gpu);
FT_API uint32_t ft_topo_nic(const struct ft_topo *t, uint32_t node, uint32_t nic);
/* A readable, stable name of vertex @v ("n3.gpu5", "leaf12", "spine4.7", "router3.1"). */
FT_API void ft_topo_vertex_name(const struct ft_topo *t, uint32_t v, char *buf, size_t size);
/* The id of the in-node vertex named @name ("n3.gpu5", "n0.nic7", "n1.pcie2", "n0.cpu1",
 * "n2.nvswitch"). FT_EPARSE for a malformed name, FT_ENOENT when no such vertex exists. */
FT_API int ft_topo_vertex_find(const struct ft_topo *t, const char *name, uint32_t *id)
	FT_MUST_CHECK;
/* Bytes of memory the graph holds. */
FT_API size_t ft_topo_memory(const struct ft_topo *t);

struct ft_topo_stats {
	uint32_t nvertices_by_kind[FT_V_COUNT];
	uint32_t nswitches_by_tier[4]; /* [1] leaves, [2] spines, [3] cores */
	uint32_t nlinks_by_kind[FT_L_COUNT]; /* directed links */
	uint32_t nlinks_by_tier[4];    /* directed fabric/host links per tier */
	double bisection_Bps;          /* min over balanced host cuts, per direction */
	double oversubscription[4];    /* per tier: down capacity / up capacity */
	uint32_t diameter_hops;        /* longest shortest path between two NICs (switch hops + 1) */
	double injection_Bps;          /* sum of host link capacity, per direction */
};
FT_API int ft_topo_stats(const struct ft_topo *t, struct ft_topo_stats *out,
			 struct ft_error *err) FT_MUST_CHECK;

/* Export: Graphviz dot or JSON (vertices and links) into @out. */
FT_API int ft_topo_export_dot(const struct ft_topo *t, struct ft_strbuf *out) FT_MUST_CHECK;
FT_API int ft_topo_export_json(const struct ft_topo *t, struct ft_strbuf *out) FT_MUST_CHECK;

/*
 * The summary of @t with its statistics @st (ft_topo_stats()): the terminal
 * report appended to @sb (FT_ENOMEM when a table or @sb ran out of memory),
 * or one JSON object and a newline (counts per kind and tier,
 * oversubscription per tier, bisection, injection, diameter, memory, and
 * build_s, the seconds the build took, unless @build_s < 0).
 */
FT_API int ft_topo_stats_write_text(const struct ft_topo *t, const struct ft_topo_stats *st,
                                    struct ft_strbuf *sb) FT_MUST_CHECK;
FT_API void ft_topo_stats_write_json(const struct ft_topo *t, const struct ft_topo_stats *st,
                                     double build_s, struct ft_strbuf *sb);
/*
 * The route of queue pair @qp from vertex @src to @dst under @routing, hop by
 * hop with each link's kind, rate and latency and the equal-cost choices of
 * the minimal routes at that hop ("-" or 0 off them, a Valiant detour): a
 * table, or one JSON object and a newline when @json, appended to @sb. Errors
 * name @label (the spec as the user gave it): FT_ENOENT when there is no such
 * route, FT_ERANGE when it is longer than FT_PATH_MAX links, FT_ENOMEM.
 */
FT_API int ft_topo_path_write(const struct ft_topo *t, const char *label, uint32_t src,
                              uint32_t dst, enum ft_routing routing, uint32_t qp, bool json,
                              struct ft_strbuf *sb, struct ft_error *err) FT_MUST_CHECK;

/* What `fabtune topo` is asked; zero-initialise, then set what is given. */
struct ft_topo_query {
	const char *format;  /* "text" (the summary), "dot" or "json" (the graph); NULL: text */
	const char *path;    /* "SRC,DST": the route between two in-node vertices; NULL: none */
	const char *routing; /* the route's routing; NULL: the spec's */
	uint64_t qp;         /* the route's queue pair (the ECMP hash input) */
	bool json;           /* the summary or the route as JSON */
	bool stable;         /* no build time in the JSON summary */
};

/* Whether @q holds together; FT_EINVAL naming the option ("--qp: expected 0..N"). */
FT_API int ft_topo_query_check(const struct ft_topo_query *q, struct ft_error *err) FT_MUST_CHECK;

/*
 * Build @spec's topology (errors prefixed with @label, the spec as the user
 * gave it) and write what @q asks into @sb: the route (ft_topo_path_write()),
 * the export, or the summary. FT_EINVAL for a vertex or routing name that is
 * wrong; FT_ENOENT only when the fabric has no such route.
 */
FT_API int ft_topo_query_write(const struct ft_topo_query *q, const struct ft_cluster_spec *spec,
                               const char *label, struct ft_strbuf *sb,
                               struct ft_error *err) FT_MUST_CHECK;

/* ---- routing ------------------------------------------------------------- */

#define FT_PATH_MAX 32

struct ft_path {
	uint32_t nlinks;
	uint32_t links[FT_PATH_MAX]; /* link ids from source to destination */
	double lat_s;		     /* sum of link latencies */
};

/*
 * Equal-cost next links from vertex @at toward vertex @dst (minimal paths of
 * the fabric's routing discipline: up*-down* on fat-trees, minimal on
 * dragonfly, dimension order on torus; shortest in-node paths). Writes up to
 * @max link ids; returns their total number (>= 0), 0 when @at == @dst, or
 * FT_ENOENT when @dst is unreachable (e.g. a link marked down). @dst is a
 * vertex inside a node (GPU, NIC, PCIe switch, CPU, NVSwitch): FT_EINVAL for
 * a fabric switch or an id out of range. Off-node, a GPU heads for its own
 * rail NIC (gpu_nic) and other in-node vertices for their nearest NICs.
 */
FT_API int ft_route_next_hops(const struct ft_topo *t, uint32_t at, uint32_t dst,
			      uint32_t *links, size_t max);

/* A chooser picks one of @n equal-cost links at vertex @at (adaptive routing): it returns the
 * index (0 .. n-1) into @links of the one to take. */
typedef uint32_t ft_route_choose_fn(void *ud, uint32_t at, const uint32_t *links, uint32_t n);

struct ft_route_policy {
	enum ft_routing routing;   /* ECMP, DMODK, ADAPTIVE (needs @choose), MINIMAL, VALIANT, DOR */
	uint64_t flow_hash;	   /* hash of the flow tuple (src, dst, qp/port): ECMP, Valiant */
	uint64_t salt_seed;	   /* per-switch salts derive from it */
	ft_route_choose_fn *choose; /* for ADAPTIVE; NULL falls back to ECMP */
	void *ud;
	/* Which of a GPU's NICs the flow uses when a GPU drives several (nics.per_gpu, AWS p5:
	 * 4): gpu_nic + lane mod per_gpu, at the source and at the destination GPU, as NCCL
	 * puts each channel (and its QPs) on one of the GPU's NICs. 0: the GPU's first NIC. */
	uint32_t lane;
};

/*
 * The link a path under @policy takes at vertex @at toward @dst (an in-node vertex): the
 * choice ft_route_path() makes there among ft_route_next_hops(), for a switch the entry of
 * its forwarding table under minhop (FT_ROUTING_MINHOP: OpenSM's least-used min-hop port,
 * topo/route.c) or D-mod-K, or of its LFT under ECMP on InfiniBand. 0 with *@link set,
 * FT_ENOENT when unreachable or @at == @dst, FT_EINVAL for bad ids or minhop off an
 * InfiniBand fat tree, FT_ENOMEM.
 */
FT_API int ft_route_next_link(const struct ft_topo *t, uint32_t at, uint32_t dst,
                              const struct ft_route_policy *policy, uint32_t *link) FT_MUST_CHECK;

/* The path from @src to @dst (in-node vertices) under @policy. FT_ENOENT when unreachable,
 * FT_ERANGE when longer than FT_PATH_MAX links, FT_EINVAL for bad ids. */
FT_API int ft_route_path(const struct ft_topo *t, uint32_t src, uint32_t dst,
			 const struct ft_route_policy *policy, struct ft_path *out) FT_MUST_CHECK;

/*
 * Where NIC @nic of node @node hangs on @spec's fat-tree fabric (plain, rail-optimized or
 * multi-plane), as ft_topo_build() lays it out, without building it: its plane, its leaf
 * (the leaf's index in that plane's tree, a leaf vertex's `local`), the leaf's down port,
 * the NIC's D-mod-K key, leaf x down + port, and the parallel cables between its leaf and
 * each spine the leaf reaches (a 2-tier tree's up-links over its spines, 1 in a 3-tier
 * pod, 0 where one leaf makes the tree). Node groups of different NIC counts lay every
 * node out at the largest count (the stride), a plane holding stride / planes NICs of each
 * node. FT_EINVAL for another fabric, a node past the spec's, a NIC the node lacks or a
 * tree the fabric cannot hold.
 */
struct ft_topo_leaf_port {
	uint32_t plane, leaf, port;
	uint64_t key;
	uint32_t cables;
};
FT_API int ft_topo_fattree_leaf_port(const struct ft_cluster_spec *spec, uint32_t node,
                                     uint32_t nic, struct ft_topo_leaf_port *out) FT_MUST_CHECK;

/* D-mod-K's pick (topo/route.c dmodk_pick()) among @n links toward the NIC of D-mod-K key
 * @key, at any tier: key mod n. At a leaf, the caller's key as is and n its up-links (the
 * index among them in link order); at a spine or core route.c divides the key first. */
FT_API uint32_t ft_topo_dmodk_pick(uint64_t key, uint32_t n);

/* The specified ECMP hash: ft_mix64 of the tuple, mixed with a per-switch salt. */
FT_API uint64_t ft_route_flow_hash(uint32_t src, uint32_t dst, uint32_t qp);

/*
 * Mark links down or degraded for fault injection: a copy-on-write overlay
 * the simulator owns. @scale per link: 1 = healthy, 0 = down, 0.25 = 4X
 * trained at 1X. Routing skips links whose scale is 0.
 */
FT_API int ft_topo_set_link_scale(struct ft_topo *t, uint32_t link, double scale) FT_MUST_CHECK;
FT_API double ft_topo_link_scale(const struct ft_topo *t, uint32_t link);

#ifdef __cplusplus
}
#endif
#endif

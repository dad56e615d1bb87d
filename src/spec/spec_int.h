/* SPDX-License-Identifier: MIT */
/*
 * spec/spec_int.h - what the files of the spec module share: the checker that
 * names a field (so the loader can point at its line and column), default
 * placement and the default fabric of a node preset.
 */
#ifndef FT_SPEC_INT_H
#define FT_SPEC_INT_H

#include <fabtune/spec.h>

/* Longest dotted field path a check names ("nodes.placement.gpu_nic[15]"). */
#define FT_SPEC_FIELD_MAX 64

/*
 * Check @s for consistency. On failure return FT_EINVAL/FT_ERANGE, put the
 * dotted path of the offending field in @field and "expected X, got Y" in
 * @err (without the field). Used by ft_spec_validate() and the loader.
 */
int ft__spec_check(const struct ft_cluster_spec *s, char field[FT_SPEC_FIELD_MAX],
                   struct ft_error *err);
/* The node checks of ft__spec_check alone (a node group's, paths "nodes.*"). */
int ft__spec_check_node(const struct ft_node_spec *n, char field[FT_SPEC_FIELD_MAX],
                        struct ft_error *err);

/*
 * Spread GPUs and NICs evenly over the PCIe switches, switches over the NUMA
 * domains, and give GPU g the NIC g * nnics / ngpus (its rail). Used when a
 * spec changes counts without giving a placement.
 */
void ft__spec_default_placement(struct ft_node_spec *n);

/*
 * What a node described without a preset starts from: x16 PCIe links, one
 * NUMA domain, and the per-hop latencies the presets use (NVLink, PCIe, NIC).
 */
void ft__spec_node_defaults(struct ft_node_spec *n);

/* NCCL's PCIe estimate for @gen x @width, bytes/s (HOST-PCIE). 0 for a bad gen. */
double ft__spec_pcie_Bps(uint32_t gen, uint32_t width);

/*
 * The preset's default fabric for @nnodes nodes of @n: a non-blocking fat-tree
 * of the NIC's link (rail-optimized for nodes with a NIC per GPU) of radix-64
 * switches, 2 tiers when it fits, 3 above. On failure (no NIC link preset, or
 * more nodes than 3 tiers hold) @field names the field and @err says
 * "expected X, got Y", as ft__spec_check() does.
 */
int ft__spec_default_fabric(const struct ft_node_spec *n, uint32_t nnodes, struct ft_fabric_spec *f,
                            char field[FT_SPEC_FIELD_MAX], struct ft_error *err);

/* Fill the switch latencies and rate of @f from link preset @lp. */
void ft__spec_fabric_use_link(struct ft_fabric_spec *f, const struct ft_link_preset *lp);

/* Routing used when a spec does not name one, for @kind on @tech. */
enum ft_routing ft__spec_default_routing(enum ft_fabric_kind kind, const struct ft_link_preset *lp);
/* Node presets of boards (presets.c) and of cloud instances built on them (presets_cloud.c):
 * 0 with *out filled, or FT_ENOENT. */
int ft__spec_board_preset(const char *name, struct ft_node_spec *out);
int ft__spec_cloud_preset(const char *name, struct ft_node_spec *out);
size_t ft__spec_cloud_preset_count(void);
/* The @i-th cloud preset's name (its summary into @summary), NULL past the end. */
const char *ft__spec_cloud_preset_name(size_t i, const char **summary);

/* The names of the routings and the fabric kinds (ft__name_read; names.c). */
extern const struct ft__name_set ft__spec_routings;
extern const struct ft__name_set ft__spec_kinds;

/* Fabric kind from its spec name ("rail-fat-tree"). FT_ENOENT if unknown. */
int ft__spec_kind_from_name(const char *name, enum ft_fabric_kind *out);

/* Comma-separated names of the kinds / routings, for "expected one of ...". */
const char *ft__spec_kind_names(void);
const char *ft__spec_routing_names(void);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * topo/node.c - the inside of a node: GPUs, NICs, PCIe switches, CPUs (one
 * per NUMA domain) and the NVSwitch, and the in-node routing table.
 *
 * The nodes of one group are alike, so the layout and the table of in-node
 * distances are computed once per group (a template) and shared by its
 * nodes; groups of other shapes (NIC counts, PCIe placement) have their own.
 * NVSwitch systems get one aggregated NVSwitch vertex with one GPU<->NVSwitch
 * link of the per-GPU NVLink rate; NVLink without a switch joins every GPU
 * pair directly, the per-GPU rate split over the peers; PCIe-only GPUs talk
 * through their PCIe switches and the CPUs. PCIe: GPU and NIC to their PCIe
 * switch, switch to the CPU of its NUMA domain; CPUs join all-to-all through
 * the socket link (UPI/xGMI).
 */
#include "topo_int.h"

static int
check_index(struct ft_error *err, const char *field, uint32_t i, uint32_t val, uint32_t n)
{
	if (val < n)
		return 0;
	return ft_error_set(err, FT_EINVAL,
	                    "nodes.placement.%s[%" PRIu32 "]: expected 0..%" PRIu32
	                    ", got %" PRIu32,
	                    field, i, n - 1, val);
}

static int
check_rate(struct ft_error *err, const char *field, double v)
{
	if (v > 0 && isfinite(v))
		return 0;
	return ft_error_set(err, FT_EINVAL, "nodes.%s: expected a rate > 0, got %g bytes/s", field,
	                    v);
}

int
ft__topo_node_layout(const struct ft_node_spec *n, struct ft_node_layout *nl,
                     struct ft_error *err)
{
	int rc = 0;

	memset(nl, 0, sizeof(*nl));
	nl->ngpus = n->ngpus;
	nl->nnics = n->nnics;
	nl->npcie = n->npcie_switches;
	nl->ncpus = n->nnuma ? n->nnuma : 1;
	nl->gpu0 = 0;
	nl->nic0 = nl->gpu0 + nl->ngpus;
	nl->pcie0 = nl->nic0 + nl->nnics;
	nl->cpu0 = nl->pcie0 + nl->npcie;
	nl->per_node = nl->cpu0 + nl->ncpus;
	nl->nvs = UINT32_MAX;
	if (n->nvswitch && n->nvlink_gen > 0)
		nl->nvs = nl->per_node++;

	for (uint32_t g = 0; g < n->ngpus && rc == 0; g++) {
		if (nl->npcie)
			rc = check_index(err, "gpu_pcie_switch", g, n->gpu_pcie_switch[g],
			                 nl->npcie);
		if (rc == 0)
			rc = check_index(err, "gpu_numa", g, n->gpu_numa[g], nl->ncpus);
		if (rc == 0 && nl->nnics)
			rc = check_index(err, "gpu_nic", g, n->gpu_nic[g], nl->nnics);
	}
	for (uint32_t i = 0; i < n->nnics && rc == 0; i++) {
		if (nl->npcie)
			rc = check_index(err, "nic_pcie_switch", i, n->nic_pcie_switch[i],
			                 nl->npcie);
		if (rc == 0)
			rc = check_index(err, "nic_numa", i, n->nic_numa[i], nl->ncpus);
	}
	for (uint32_t i = 0; i < nl->npcie && rc == 0; i++)
		rc = check_index(err, "pcie_switch_numa", i, n->pcie_switch_numa[i], nl->ncpus);
	if (rc == 0 && n->nvlink_gen > 0 && n->ngpus > 1)
		rc = check_rate(err, "nvlink.bandwidth", n->nvlink_Bps);
	if (rc == 0)
		rc = check_rate(err, "pcie.gpu_bandwidth", n->pcie_Bps_gpu);
	if (rc == 0 && n->nnics)
		rc = check_rate(err, "pcie.nic_bandwidth", n->pcie_Bps_nic);
	if (rc == 0 && nl->ncpus > 1)
		rc = check_rate(err, "numa.interconnect", n->cpu_link_Bps);
	return rc;
}

int
ft__topo_node_build(struct ft_builder *b, uint32_t node)
{
	struct ft_topo *t = b->t;
	const struct ft_node_spec *n = ft_spec_node_at(&t->spec, node); /* its group's rates */
	const struct ft_node_layout *nl = ft__topo_node_nl(t, node);
	uint32_t base = ft__topo_node_base(t, node);
	double half_pcie = n->lat_pcie_s / 2, half_nvl = n->lat_nvlink_s / 2;
	double up_Bps = FT_MAX(n->pcie_Bps_gpu, n->pcie_Bps_nic);
	int rc = 0;

	for (uint32_t g = 0; g < nl->ngpus; g++)
		ft__topo_set_vertex(t, base + nl->gpu0 + g, FT_V_GPU, 0, 0, node, g, 0);
	for (uint32_t i = 0; i < nl->nnics; i++)
		ft__topo_set_vertex(t, base + nl->nic0 + i, FT_V_NIC, 0, 0, node, i, 0);
	for (uint32_t i = 0; i < nl->npcie; i++)
		ft__topo_set_vertex(t, base + nl->pcie0 + i, FT_V_PCIE_SWITCH, 0, 0, node, i, 0);
	for (uint32_t i = 0; i < nl->ncpus; i++)
		ft__topo_set_vertex(t, base + nl->cpu0 + i, FT_V_CPU, 0, 0, node, i, 0);
	if (nl->nvs != UINT32_MAX)
		ft__topo_set_vertex(t, base + nl->nvs, FT_V_NVSWITCH, 0, 0, node, 0, 0);

	/* NVLink: through the NVSwitch, or directly between every pair. */
	if (nl->nvs != UINT32_MAX) {
		for (uint32_t g = 0; g < nl->ngpus && rc == 0; g++)
			rc = ft__topo_add_edge(b, base + nl->gpu0 + g, base + nl->nvs, FT_L_NVLINK,
			                       0, false, n->nvlink_Bps, half_nvl, half_nvl);
	} else if (n->nvlink_gen > 0 && nl->ngpus > 1) {
		double pair_Bps = n->nvlink_Bps / (nl->ngpus - 1);

		for (uint32_t i = 0; i < nl->ngpus && rc == 0; i++)
			for (uint32_t j = i + 1; j < nl->ngpus && rc == 0; j++)
				rc = ft__topo_add_edge(b, base + nl->gpu0 + i, base + nl->gpu0 + j,
				                       FT_L_NVLINK, 0, false, pair_Bps,
				                       n->lat_nvlink_s, n->lat_nvlink_s);
	}
	/* PCIe: endpoints to their switch (or straight to the CPU without one). */
	for (uint32_t g = 0; g < nl->ngpus && rc == 0; g++) {
		uint32_t to = nl->npcie ? base + nl->pcie0 + n->gpu_pcie_switch[g] :
		                          base + nl->cpu0 + n->gpu_numa[g];

		rc = ft__topo_add_edge(b, base + nl->gpu0 + g, to, FT_L_PCIE, 0, false,
		                       n->pcie_Bps_gpu, half_pcie, half_pcie);
	}
	for (uint32_t i = 0; i < nl->nnics && rc == 0; i++) {
		uint32_t to = nl->npcie ? base + nl->pcie0 + n->nic_pcie_switch[i] :
		                          base + nl->cpu0 + n->nic_numa[i];

		rc = ft__topo_add_edge(b, base + nl->nic0 + i, to, FT_L_PCIE, 0, false,
		                       n->pcie_Bps_nic, half_pcie, half_pcie);
	}
	for (uint32_t i = 0; i < nl->npcie && rc == 0; i++)
		rc = ft__topo_add_edge(b, base + nl->pcie0 + i,
		                       base + nl->cpu0 + n->pcie_switch_numa[i], FT_L_PCIE, 0,
		                       false, up_Bps, half_pcie, half_pcie);
	/* The socket link; its latency is taken as one PCIe switch hop. */
	for (uint32_t i = 0; i < nl->ncpus && rc == 0; i++)
		for (uint32_t j = i + 1; j < nl->ncpus && rc == 0; j++)
			rc = ft__topo_add_edge(b, base + nl->cpu0 + i, base + nl->cpu0 + j,
			                       FT_L_CPU, 0, false, n->cpu_link_Bps, n->lat_pcie_s,
			                       n->lat_pcie_s);
	return rc;
}

static unsigned
link_cost(const struct ft_link *l)
{
	switch (l->kind) {
	case FT_L_NVLINK:
		return FT_TOPO_COST_NVLINK;
	case FT_L_CPU:
		return FT_TOPO_COST_CPU;
	default:
		return FT_TOPO_COST_PCIE;
	}
}

/* All-pairs in-node costs of layout @nl on the node whose vertices start at @base
 * (Floyd-Warshall; GPUs and NICs don't forward). */
static int
node_dist(const struct ft_topo *t, struct ft_node_layout *nl, uint32_t base)
{
	uint32_t p = nl->per_node;
	uint16_t *d = ft_malloc((size_t)p * p * sizeof(*d));

	if (!d)
		return FT_ENOMEM;
	for (size_t i = 0; i < (size_t)p * p; i++)
		d[i] = FT_TOPO_COST_INF;
	for (uint32_t a = 0; a < p; a++) {
		d[(size_t)a * p + a] = 0;
		for (uint32_t l = t->off[base + a]; l < t->off[base + a + 1]; l++) {
			uint32_t b = t->l[l].dst - base;
			unsigned c = link_cost(&t->l[l]);

			if (t->l[l].dst >= base && b < p && c < d[(size_t)a * p + b])
				d[(size_t)a * p + b] = (uint16_t)c;
		}
	}
	for (uint32_t k = 0; k < p; k++) {
		if (k < nl->pcie0) /* GPUs and NICs are never transit */
			continue;
		for (uint32_t a = 0; a < p; a++) {
			unsigned ak = d[(size_t)a * p + k];

			if (ak == FT_TOPO_COST_INF)
				continue;
			for (uint32_t b = 0; b < p; b++) {
				unsigned kb = d[(size_t)k * p + b];

				if (kb != FT_TOPO_COST_INF && ak + kb < d[(size_t)a * p + b])
					d[(size_t)a * p + b] = (uint16_t)(ak + kb);
			}
		}
	}
	nl->dist = d;
	return 0;
}

/* In-node costs of every layout: node 0's, or the first node's of each group. */
int
ft__topo_node_dist(struct ft_topo *t)
{
	int rc = 0;

	if (!t->ngl)
		return node_dist(t, &t->nl_tpl, 0);
	for (uint32_t g = 0; g < t->ngl && rc == 0; g++)
		rc = node_dist(t, &t->nl_grp[g], t->grp_base[g]);
	return rc;
}

/* Equal-cost in-node next hops from local vertex @at toward local @dst of the same node. */
int
ft__route_in_node(const struct ft_topo *t, uint32_t at, uint32_t dst, uint32_t *links, size_t max,
                  bool check)
{
	const struct ft_node_layout *nl = ft__topo_node_nl(t, t->v[at].node);
	uint32_t base = ft__topo_node_base(t, t->v[at].node);
	uint32_t a = at - base, b = dst - base, p = nl->per_node;
	unsigned want = nl->dist[(size_t)a * p + b];
	int n = 0;

	if (a == b)
		return 0;
	if (want == FT_TOPO_COST_INF)
		return FT_ENOENT;
	for (uint32_t l = t->off[at]; l < t->up_first[at]; l++) {
		uint32_t c = t->l[l].dst;

		if (c < base || c >= base + p)
			continue;
		if (c != dst && c - base < nl->pcie0)
			continue; /* never through another GPU or NIC */
		if (link_cost(&t->l[l]) + nl->dist[(size_t)(c - base) * p + b] != want)
			continue;
		if (check && (!ft__topo_link_live(t, l) ||
		              (c != dst && ft__route_in_node(t, c, dst, NULL, 0, true) <= 0)))
			continue;
		if ((size_t)n < max)
			links[n] = l;
		n++;
	}
	return n ? n : FT_ENOENT;
}

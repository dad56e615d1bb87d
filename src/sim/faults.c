/* SPDX-License-Identifier: MIT */
/*
 * sim/faults.c - a scenario's faults on the topology: links, NICs, PCIe and
 * NVLink links, switches and their ports at a fraction of their rate, slow
 * GPUs, and the fabric's rates scaled (--fabric-scale); a fault in words for
 * the report.
 */
#include "run_int.h"

static int
apply_scale(struct ft_topo *t, uint32_t link, double scale)
{
	const struct ft_link *l = ft_topo_link(t, link);
	int rc = ft_topo_set_link_scale(t, link, ft_topo_link_scale(t, link) * scale);

	if (rc == 0 && l->rev != link && l->rev < ft_topo_nlinks(t))
		rc = ft_topo_set_link_scale(t, l->rev, ft_topo_link_scale(t, l->rev) * scale);
	return rc;
}

/* Scale every link of kind @kind out of vertex @v (and its reverse). */
static int
scale_vertex_links(struct ft_topo *t, uint32_t v, int kind, double scale, uint32_t *n)
{
	uint32_t first, count, i;
	int rc;

	ft_topo_out_links(t, v, &first, &count);
	for (i = first; i < first + count; i++) {
		if (kind >= 0 && ft_topo_link(t, i)->kind != kind)
			continue;
		rc = apply_scale(t, i, scale);
		if (rc < 0)
			return rc;
		(*n)++;
	}
	return 0;
}

static uint32_t
find_switch(const struct ft_topo *t, uint32_t tier, uint32_t index)
{
	uint32_t v, n = ft_topo_nvertices(t), k = 0;

	for (v = 0; v < n; v++) {
		const struct ft_vertex *x = ft_topo_vertex(t, v);

		if (x->kind == FT_V_SWITCH && x->tier == tier && k++ == index)
			return v;
	}
	return UINT32_MAX;
}

static int
fault_err(const struct ft_scenario *sc, const struct sc_fault *f, struct ft_error *err,
          const char *field, const char *fmt, uint32_t a, uint32_t b)
{
	const struct sc_fault *first = ft_vec_at(&sc->faults, 0);
	char msg[200];

	snprintf(msg, sizeof(msg), fmt, a, b);
	return ft_error_set(err, FT_ERANGE, "%s:%u:%u: faults[%zu].%s: %s", sc->file, f->line,
	                    f->col, (size_t)(f - first), field, msg);
}

/*
 * The device a NIC, PCIe or NVLink fault names (a GPU for NVLink and for PCIe with a gpu:,
 * else a NIC) in *@v, or an error naming the index the node does not have.
 */
static int
fault_device(const struct ft_scenario *sc, const struct ft_topo *t, const struct sc_fault *f,
             uint32_t *v, struct ft_error *err)
{
	bool gpu = f->what == SC_F_NVLINK || (f->what == SC_F_PCIE && f->has_gpu);
	const char *fmt = f->what == SC_F_PCIE ? "expected an index below %u, got %u" :
	                  gpu                  ? "expected a GPU below %u, got %u" :
	                                         "expected a NIC below %u, got %u";

	*v = gpu ? ft_topo_gpu(t, f->node, f->gpu) : ft_topo_nic(t, f->node, f->nic);
	if (*v != UINT32_MAX)
		return 0;
	return fault_err(sc, f, err, gpu ? "gpu" : "nic", fmt,
	                 gpu ? ft__sim_node_ngpus(t, f->node) : ft__sim_node_nnics(t, f->node),
	                 gpu ? f->gpu : f->nic);
}

int
ft__sim_apply_faults(const struct ft_scenario *sc, struct ft_topo *t, double *gpu_slow,
                     struct ft_error *err)
{
	const struct ft_cluster_spec *spec = ft_topo_spec(t);
	size_t i;
	int rc = 0;

	for (i = 0; i < sc->faults.len && rc == 0; i++) {
		const struct sc_fault *f = ft_vec_at(&sc->faults, i);
		uint32_t v, n = 0;

		if (f->what != SC_F_LINK && f->what != SC_F_SWITCH && f->what != SC_F_PORT &&
		    f->node >= spec->nnodes)
			return fault_err(sc, f, err, "node", "expected a node below %u, got %u",
			                 spec->nnodes, f->node);
		switch (f->what) {
		case SC_F_LINK:
			if (f->link >= ft_topo_nlinks(t))
				return fault_err(sc, f, err, "link",
				                 "expected a link id below %u, got %u",
				                 ft_topo_nlinks(t), f->link);
			rc = apply_scale(t, f->link, f->scale);
			n = 1;
			break;
		case SC_F_NIC:
		case SC_F_PCIE:
		case SC_F_NVLINK:
			rc = fault_device(sc, t, f, &v, err);
			if (rc < 0)
				return rc;
			rc = scale_vertex_links(t, v,
			                        f->what == SC_F_NIC  ? FT_L_HOST :
			                        f->what == SC_F_PCIE ? FT_L_PCIE :
			                                               FT_L_NVLINK,
			                        f->scale, &n);
			break;
		case SC_F_SWITCH:
		case SC_F_PORT:
			v = find_switch(t, f->tier, f->sw);
			if (v == UINT32_MAX)
				return fault_err(sc, f, err, "switch", "no switch %u at tier %u",
				                 f->sw, f->tier);
			if (f->what == SC_F_SWITCH) {
				rc = scale_vertex_links(t, v, -1, f->scale, &n);
			} else {
				uint32_t first, count;

				ft_topo_out_links(t, v, &first, &count);
				if (f->port >= count)
					return fault_err(sc, f, err, "port",
					                 "expected a port below %u, got %u", count,
					                 f->port);
				rc = apply_scale(t, first + f->port, f->scale);
				n = 1;
			}
			break;
		case SC_F_GPU:
			v = ft_topo_gpu(t, f->node, f->gpu);
			if (v == UINT32_MAX || f->gpu >= ft__sim_node_ngpus(t, f->node))
				return fault_err(sc, f, err, "gpu",
				                 "expected a GPU below %u, got %u",
				                 ft__sim_node_ngpus(t, f->node), f->gpu);
			gpu_slow[v] = f->slowdown; /* by GPU vertex: nodes may differ */
			n = 1;
			break;
		}
		if (rc == 0 && n == 0)
			return ft_error_set(
			        err, FT_EINVAL,
			        "%s:%u:%u: faults[%zu]: the target has no link of that kind",
			        sc->file, f->line, f->col, i);
	}
	if (rc < 0)
		return ft_error_set(err, rc, "%s: applying faults: %s", sc->file, ft_strerror(rc));
	return 0;
}

int
ft__sim_apply_fabric_scale(struct ft_topo *t, double scale)
{
	uint32_t l, n = ft_topo_nlinks(t);
	int rc;

	if (scale == 1)
		return 0;
	for (l = 0; l < n; l++) {
		const struct ft_link *lk = ft_topo_link(t, l);

		if (lk->kind != FT_L_HOST && lk->kind != FT_L_FABRIC)
			continue;
		rc = ft_topo_set_link_scale(t, l, ft_topo_link_scale(t, l) * scale);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* A fault in words, for reports: what, where, and how much of it is left. */
void
ft__sim_fault_text(const struct sc_fault *f, char *buf, size_t len)
{
	static const char *const what[] = { "link", "nic", "pcie", "nvlink", "switch", "port",
		                            "gpu" };
	char where[64] = "", how[48];

	switch (f->what) {
	case SC_F_LINK:
		snprintf(where, sizeof(where), "link %u", f->link);
		break;
	case SC_F_SWITCH:
		snprintf(where, sizeof(where), "tier-%u switch %u", f->tier, f->sw);
		break;
	case SC_F_PORT:
		snprintf(where, sizeof(where), "tier-%u switch %u port %u", f->tier, f->sw,
		         f->port);
		break;
	default:
		snprintf(where, sizeof(where), "node %u%s", f->node,
		         f->has_nic ? " NIC" : f->has_gpu ? " GPU" : "");
		if (f->has_nic || f->has_gpu)
			snprintf(where + strlen(where), sizeof(where) - strlen(where), " %u",
			         f->has_nic ? f->nic : f->gpu);
		break;
	}
	if (f->what == SC_F_GPU)
		snprintf(how, sizeof(how), "compute %.3gx slower", f->slowdown);
	else if (f->scale == 0)
		snprintf(how, sizeof(how), "down");
	else
		snprintf(how, sizeof(how), "at %.3g%% of its rate", f->scale * 100);
	snprintf(buf, len, "%s: %s %s", (unsigned)f->what < FT_ARRAY_SIZE(what) ? what[f->what] : "?",
	         where, how);
}

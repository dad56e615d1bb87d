/* SPDX-License-Identifier: MIT */
/*
 * diag/rules_host.c - host rules: PCIe links trained below their capability,
 * GPU-NIC distance (nvidia-smi topo -m codes), NUMA placement, ACS/IOMMU and
 * the memlock limit (HOST-PCIE, HOST-TOPO, HOST-NUMA, HOST-ACS, HOST-LIMITS).
 */
#include "internal.h"

#include "diag/diag_int.h"

/*
 * Whether @o's device is a GPU that nvidia-smi -q does not show at work: its
 * utilization is 0%, or, with no utilization, its performance state is not
 * P0-P2 (what a GPU runs work in) or not shown. A device without a GPU
 * observation (lspci, sysfs) is not one.
 */
static bool
gpu_not_busy(const struct ft_diag_ctx *c, const struct ft_obs *o)
{
	const struct ft_obs *util = ft__diag_find_dev(c, "gpu.util", o);
	const struct ft_obs *ps = ft__diag_find_dev(c, "gpu.pstate", o);
	double v;

	if (util && ft__obs_number(util, &v))
		return v <= 0;
	if (ps)
		return !((ps->str[0] == 'P' || ps->str[0] == 'p') &&
			 isdigit((unsigned char)ps->str[1]) && strtol(ps->str + 1, NULL, 10) <= 2);
	return ft__diag_find_dev(c, "gpu.model", o) || ft__diag_find_dev(c, "gpu.bus_id", o);
}

/*
 * A PCIe link trained below its capability: "pcie.link.<what>_cur" against
 * "pcie.link.<what>_max" of the same device, for speed and width. A GPU
 * lowers its link speed when idle (HOST-PCIE), so a slow link of a GPU not
 * shown at work is only noted; a narrow one is not explained by that.
 */
static int
check_pcie(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *cur)
{
	int nwhat = (int)(strlen(cur->key) - strlen("pcie.link._cur"));
	const char *what = cur->key + strlen("pcie.link.");
	bool speed = ft__str_has_prefix(what, "speed");
	const char *unit = speed ? " GT/s" : "";
	const struct ft_obs *max;
	char max_key[64];
	double vc, vm;

	snprintf(max_key, sizeof(max_key), "pcie.link.%.*s_max", nwhat, what);
	max = ft__diag_find_dev(c, max_key, cur);
	if (!max || !ft__obs_number(cur, &vc) || !ft__obs_number(max, &vm) || vc <= 0 || vc >= vm)
		return 0;
	if (speed && gpu_not_busy(c, cur))
		return ft__diag_emit(c, out, FT_SEV_INFO,
				     FT__EV(cur, max, ft__diag_find_dev(c, "gpu.util", cur),
					    ft__diag_find_dev(c, "gpu.pstate", cur)),
				     "PCIe link speed %g GT/s is below its capability %g GT/s on a GPU "
				     "not shown at work, which lowers it to save power: check under load",
				     vc, vm);
	return ft__diag_emit(c, out, -1, FT__EV(cur, max),
			     "PCIe link %.*s %g%s is below its capability %g%s: the device gets "
			     "%.0f%% of its PCIe bandwidth",
			     nwhat, what, vc, unit, vm, unit, 100.0 * vc / vm);
}
FT__DIAG_EACH(ft__diag_eval_pcie, "pcie.link.*_cur", check_pcie)

/* Rank of a topo -m path code between a GPU and a NIC: larger is farther; 0 unknown. */
static int
path_rank(const char *s)
{
	if (ft__str_has_prefix(s, "PIX"))
		return 1;
	if (ft__str_has_prefix(s, "PXB"))
		return 2;
	if (ft__str_has_prefix(s, "PHB"))
		return 3;
	if (ft__str_has_prefix(s, "NODE"))
		return 3;
	if (ft__str_has_prefix(s, "SYS"))
		return 4;
	return 0;
}

/* Length of the GPU name at the start of @dev ("GPU3" of "GPU3", "GPU3->NIC0", "GPU3/NIC0"). */
static size_t
gpu_name_len(const char *dev)
{
	size_t n = 3;

	if (strncmp(dev, "GPU", 3) != 0 || !isdigit((unsigned char)dev[3]))
		return 0;
	while (isdigit((unsigned char)dev[n]))
		n++;
	return n;
}

static bool
same_gpu(const struct ft_obs *a, const struct ft_obs *b)
{
	size_t n = gpu_name_len(a->device);

	return n && strcmp(a->host, b->host) == 0 && gpu_name_len(b->device) == n &&
	       strncmp(a->device, b->device, n) == 0;
}

static int
emit_gpu_nic(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *best)
{
	int r = path_rank(best->str);

	if (r < 3)
		return 0;
	return ft__diag_emit(c, out, r == 4 ? -1 : FT_SEV_INFO, FT__EV(best),
			     r == 4 ? "%.*s reaches its nearest NIC only through %s: traffic "
				      "crosses the CPU sockets (expect large multi-node bandwidth "
				      "loss)"
				    : "%.*s reaches its nearest NIC through %s (the CPU): the "
				      "default NCCL_NET_GDR_LEVEL disables GPUDirect RDMA there",
			     (int)gpu_name_len(best->device), best->device, best->str);
}

/*
 * For each GPU, its nearest NIC. The index returns gpu.nic_path rows sorted
 * by host and device ("GPU4->NIC0", "GPU4->NIC1", ...), so one GPU's rows are
 * consecutive and one pass suffices.
 */
int
ft__diag_eval_gpu_nic_far(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *o, *group = NULL, *best = NULL;
	size_t pos = 0;
	int rc;

	while ((o = ft__diag_next(c, "gpu.nic_path", &pos)) != NULL) {
		if (!gpu_name_len(o->device))
			continue;
		if (group && !same_gpu(group, o)) {
			if (best) {
				rc = emit_gpu_nic(c, out, best);
				if (rc < 0)
					return rc;
			}
			best = NULL;
		}
		if (!group || !same_gpu(group, o))
			group = o;
		if (path_rank(o->str) && (!best || path_rank(o->str) < path_rank(best->str)))
			best = o;
	}
	return best ? emit_gpu_nic(c, out, best) : 0;
}

static int
check_numa(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *g)
{
	const struct ft_obs *any_nic = NULL, *n;
	size_t pos = 0;
	double gn, nn;
	bool near = false;

	if (!ft__obs_number(g, &gn))
		return 0;
	while (!near && (n = ft__diag_next(c, "numa.node", &pos)) != NULL) {
		if (strcmp(n->host, g->host) != 0 || strncmp(n->device, "GPU", 3) == 0 ||
		    !ft__obs_number(n, &nn) || nn < 0)
			continue;
		any_nic = n;
		near = nn == gn;
	}
	if (!any_nic || near)
		return 0;
	return ft__diag_emit(c, out, -1, FT__EV(g, any_nic),
			     "%s sits on NUMA node %.0f where no NIC is attached: its network "
			     "traffic crosses the inter-socket link",
			     g->device[0] ? g->device : "a GPU", gn);
}
FT__DIAG_EACH(ft__diag_eval_numa, "gpu.numa_affinity", check_numa)

static bool
acs_on(const struct ft_obs *o)
{
	return strstr(o->str, "SrcValid+") || ft__str_ieq(o->str, "enabled") ||
	       ft__str_ieq(o->str, "on");
}
FT__DIAG_MATCH(ft__diag_eval_acs, "host.acs", acs_on,
	       "ACS is enabled on a PCIe bridge (%s): peer-to-peer traffic between GPU and NIC is "
	       "forced up to the root complex")

static int
check_memlock(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	double v;

	if (ft__str_icontains(o->str, "unlimited") || !ft__obs_number(o, &v))
		return 0;
	return ft__diag_emit(c, out, -1, FT__EV(o),
			     "memlock limit is %g %s, not unlimited: RDMA registrations "
			     "(ibv_reg_mr, ibv_create_qp) fail once it is used up",
			     v, o->unit[0] ? o->unit : "KiB");
}
FT__DIAG_EACH(ft__diag_eval_memlock, "host.memlock", check_memlock)

static bool
iommu_translates(const struct ft_obs *o)
{
	return ft__str_ieq(o->str, "on") || ft__str_ieq(o->str, "translated") ||
	       ft__str_ieq(o->str, "enabled") || ft__str_icontains(o->str, "dma");
}
FT__DIAG_MATCH_FIRST(ft__diag_eval_iommu, "host.iommu", iommu_translates,
		     "IOMMU in translating mode (%s): GPU-NIC peer-to-peer goes through address "
		     "translation, slow or hanging on some platforms")

/* ---- copy bandwidth matrices (nvbandwidth) --------------------------------- */

/*
 * Heuristic, as for pair outliers: below 85% of the best pair of the same
 * matrix (thresholds copy_bw_min).
 */

/*
 * One finding per nvbandwidth matrix whose slowest cells fall below 85% of
 * its best: those pairs take a slower path (HOST-TOPO: across the CPU
 * sockets or a PCIe root complex; HOST-ACS: ACS sends peer traffic upstream).
 */
static bool
same_copy_matrix(const struct ft_obs *p, const struct ft_obs *o)
{
	return strcmp(p->key, "nvbw.bw") == 0 && p->has_num && strcmp(p->file, o->file) == 0 &&
	       strcmp(p->str, o->str) == 0;
}

/* The matrix of cell @o (same file and test), handled at its first cell in input order. */
static int
check_copy_bw(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	const struct ft_obs *head = NULL, *best = NULL, *worst = NULL;
	size_t k, nslow = 0, n = 0;

	if (!o->has_num)
		return 0;
	for (k = 0; k < ft__nobs(c); k++) {
		const struct ft_obs *p = ft__obs(c, k);

		if (!same_copy_matrix(p, o))
			continue;
		if (!head)
			head = p;
		if (!best || p->num > best->num)
			best = p;
		if (!worst || p->num < worst->num)
			worst = p;
		n++;
	}
	if (head != o || best->num <= 0 || worst->num >= c->thresholds->copy_bw_min * best->num)
		return 0;
	for (k = 0; k < ft__nobs(c); k++) {
		const struct ft_obs *p = ft__obs(c, k);

		if (same_copy_matrix(p, o) && p->num < c->thresholds->copy_bw_min * best->num)
			nslow++;
	}
	return ft__diag_emit(c, out, -1, FT__EV(worst, best),
			     "%zu of %zu copy paths in %s run below 85%% of the best (%s %.2f GB/s "
			     "vs %s %.2f GB/s): those pairs take a slower path (across the CPU "
			     "sockets or a PCIe root complex, or ACS sending peer traffic "
			     "upstream)",
			     nslow, n, o->str, worst->device, worst->num, best->device, best->num);
}
FT__DIAG_EACH(ft__diag_eval_copy_bw, "nvbw.bw", check_copy_bw)

FT__DIAG_MATCH(ft__diag_eval_tool_error, "tool.error", NULL,
	       "the tool failed part-way (\"%.160s\"): a device vanished or its driver is not "
	       "answering, so the output is incomplete")

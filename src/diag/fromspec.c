/* SPDX-License-Identifier: MIT */
/*
 * diag/fromspec.c - what rules need to know of the cluster spec, as
 * observations: the fabric's topology kind, routing, link technology and
 * size, so that rules on the fabric's structure (PFC deadlock risk) read the
 * same observation set as every other rule.
 */
#include "internal.h"

#include <fabtune/diag.h>
#include <fabtune/spec.h>

static int
add(struct ft_obs_set *out, const char *file, const char *key, const char *str, bool has_num,
    double num)
{
	struct ft_obs o;

	ft_obs_init(&o, key);
	ft_strlcpy(o.str, str ? str : "", sizeof(o.str));
	o.has_num = has_num;
	o.num = num;
	o.file = file ? file : "";
	return ft_obs_set_add(out, &o);
}

int
ft_diag_obs_from_spec(const struct ft_cluster_spec *spec, const char *file,
		      struct ft_obs_set *out)
{
	const struct ft_link_preset *lp, *nlp;
	int rc;

	if (!spec || !out)
		return FT_EINVAL;
	if (spec->fabric.kind == FT_FABRIC_NONE)
		return 0;
	lp = ft_link_preset_find(spec->fabric.link);
	rc = add(out, file, "spec.fabric.kind", ft_fabric_kind_name(spec->fabric.kind), false, 0);
	if (rc == 0)
		rc = add(out, file, "spec.fabric.routing", ft_routing_name(spec->fabric.routing),
			 false, 0);
	if (rc == 0)
		rc = add(out, file, "spec.fabric.link", lp ? ft_link_tech_name(lp->tech) : spec->fabric.link,
			 false, 0);
	if (rc == 0)
		rc = add(out, file, "spec.nodes", NULL, true, (double)spec->nnodes);
	/* The switch radix: a fat-tree switch's ports above radix/2 are its uplinks. */
	if (rc == 0 && spec->fabric.radix)
		rc = add(out, file, "spec.fabric.radix", NULL, true, (double)spec->fabric.radix);
	/* The NIC line rate and the GPU/NIC counts per node: what the utilisation
	   rule holds an inter-node nccl-tests run to. */
	nlp = spec->node.nic_link[0] ? ft_link_preset_find(spec->node.nic_link) : lp;
	if (rc == 0 && spec->node.nic_Bps > 0)
		rc = add(out, file, "spec.nic.rate", nlp ? nlp->name : "", true,
			 spec->node.nic_Bps * 8 / 1e9);
	else if (rc == 0 && nlp && nlp->signal_gbps > 0)
		rc = add(out, file, "spec.nic.rate", nlp->name, true, nlp->signal_gbps);
	if (rc == 0 && spec->node.nnics)
		rc = add(out, file, "spec.node.nics", NULL, true, (double)spec->node.nnics);
	if (rc == 0 && spec->node.ngpus)
		rc = add(out, file, "spec.node.gpus", NULL, true, (double)spec->node.ngpus);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * probe/snapshot.c - a probe as the command line runs it: every host under
 * mpirun (one rank per host), and the snapshot as a JSON document.
 */
#include "probe_int.h"

#include <fabtune/base.h>
#include <fabtune/json.h>
#include <fabtune/launch.h>
#include <fabtune/parse.h>
#include <fabtune/probe.h>

int
ft_probe_hosts(const struct ft_probe_cfg *cfg, struct ft_obs_set *set, int *rank,
               struct ft_error *err)
{
	struct ft_launch launch;
	int rc = ft_launch_detect(NULL, &launch, err);

	*rank = 0;
	/* under mpirun one rank per host probes; the others only take part in the gather */
	if (rc == 0 && (!ft_probe_under_mpi() || ft_launch_is_host_leader(&launch)))
		rc = ft_probe_host(cfg, set, err);
	if (rc == 0 && ft_probe_under_mpi())
		rc = ft_probe_mpi_gather(set, rank, err);
	return rc;
}

void
ft_probe_write_json(const struct ft_probe_cfg *cfg, const struct ft_obs_set *set, bool stable,
                    struct ft_strbuf *sb)
{
	struct ft_json j;

	ft_json_init(&j, sb, false);
	ft_json_obj_begin(&j);
	ft_json_kv_str(&j, "root", cfg->root);
	if (!stable && cfg->interval_s > 0)
		ft_json_kv_double(&j, "interval_s", cfg->interval_s);
	ft_json_key(&j, "observations");
	ft_parse_obs_to_json(&j, set);
	ft_json_obj_end(&j);
	ft_strbuf_addch(sb, '\n');
}

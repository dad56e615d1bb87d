/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-probe.c - `fabtune probe`: read this host's fabric state from
 * sysfs (or a captured tree with --root), optionally twice for counter
 * rates, and print every observation (table, or a JSON snapshot). Started by
 * mpirun, every rank probes its node and rank 0 prints them all.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <fabtune/fabtune.h>

#include "cli.h"

static void
print_table(struct ft_strbuf *sb, const struct ft_obs_set *set)
{
	struct ft_table t;
	char ent[200], val[240];

	ft_table_init(&t);
	ft_table_col(&t, "entity", FT_ALIGN_LEFT);
	ft_table_col(&t, "key", FT_ALIGN_LEFT);
	ft_table_col(&t, "value", FT_ALIGN_LEFT);
	for (size_t i = 0; i < ft_obs_set_len(set); i++) {
		const struct ft_obs *o = ft_obs_set_at(set, i);

		ft_obs_entity(o, ent, sizeof(ent));
		ft_parse_obs_value(o, val, sizeof(val));
		(void)ft_table_cell(&t, ent);
		(void)ft_table_cell(&t, o->key);
		(void)ft_table_cell(&t, val[0] ? val : "-");
	}
	ft_table_render(&t, sb);
	ft_table_release(&t);
}

int
cmd_probe(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = {
		"fabtune probe [--root DIR] [--interval S] [--host NAME] [--no-tools] [--json]",
		"fabtune probe [--interval S] --format prometheus",
		NULL
	};
	const char *root = "/", *host = NULL, *format = NULL;
	double interval = 0;
	bool no_tools = false;
	const struct opt opts[] = {
		OPT_STRING(0, "root", &root, "DIR",
		           "read a captured tree instead of / (default /)"),
		OPT_DURATION(0, "interval", &interval,
		             "take two snapshots this far apart and report counter rates"),
		OPT_STRING(0, "host", &host, "NAME", "host name for the observations"),
		OPT_BOOL(0, "no-tools", &no_tools,
		         "do not run nvidia-smi, ibv_devinfo or ethtool even when installed"),
		OPT_STRING(0, "format", &format, "FMT",
		           "text (default), json, or prometheus: port counters and rates"),
		OPT_END(),
	};
	const struct cmd_usage usage = {
		"probe", synopsis,
		"Read InfiniBand ports, counters, network interfaces, PCIe links, NUMA nodes and "
		"the GPU-NIC affinity of this host.",
		opts
	};
	struct ft_probe_cfg cfg = { 0 };
	struct ft_launch launch;
	struct ft_obs_set set;
	struct ft_strbuf sb;
	struct ft_error err = { 0 };
	struct ft_json j;
	int n = opts_parse(&usage, ctx, argc, argv), rc, rank = 0;

	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	if (n > 0) {
		cli_error(ctx, "unexpected argument '%s'", argv[1]);
		return EXIT_USAGE;
	}
	if (format && strcmp(format, "text") != 0 && strcmp(format, "json") != 0 &&
	    strcmp(format, "prometheus") != 0 && strcmp(format, "prom") != 0) {
		cli_error(ctx, "--format: expected text, json or prometheus, got '%s'", format);
		return EXIT_USAGE;
	}
	if (format && strcmp(format, "json") == 0)
		ctx->json = true;
	else if (format && strncmp(format, "prom", 4) == 0 && ctx->json) {
		cli_error(ctx, "--format prometheus and --json: choose one");
		return EXIT_USAGE;
	}
	cfg.root = root;
	cfg.host = host;
	cfg.interval_s = interval;
	cfg.run_tools = !no_tools && strcmp(root, "/") == 0;
	ft_obs_set_init(&set);
	rc = ft_launch_detect(NULL, &launch, &err);
	/* under mpirun one rank per host probes; the others only take part in the gather */
	if (rc == 0 && (!ft_probe_under_mpi() || ft_launch_is_host_leader(&launch)))
		rc = ft_probe_host(&cfg, &set, &err);
	if (rc == 0 && ft_probe_under_mpi())
		rc = ft_probe_mpi_gather(&set, &rank, &err);
	if (rc < 0) {
		ft_obs_set_release(&set);
		return cli_fail(ctx, rc, &err);
	}
	if (rank != 0) {
		ft_obs_set_release(&set);
		return EXIT_OK;
	}
	ft_strbuf_init(&sb);
	if (format && strncmp(format, "prom", 4) == 0) {
		rc = ft_report_obs_prom(&set, &sb, &err);
		if (rc < 0) {
			ft_strbuf_release(&sb);
			ft_obs_set_release(&set);
			return cli_fail(ctx, rc, &err);
		}
	} else if (ctx->json) {
		ft_json_init(&j, &sb, false);
		ft_json_obj_begin(&j);
		ft_json_kv_str(&j, "root", root);
		if (!ctx->stable && interval > 0)
			ft_json_kv_double(&j, "interval_s", interval);
		ft_json_key(&j, "observations");
		ft_parse_obs_to_json(&j, &set);
		ft_json_obj_end(&j);
		ft_strbuf_addch(&sb, '\n');
	} else {
		print_table(&sb, &set);
		ft_strbuf_addf(&sb, "%zu observations\n", ft_obs_set_len(&set));
	}
	cli_write(&sb);
	ft_strbuf_release(&sb);
	ft_obs_set_release(&set);
	return EXIT_OK;
}

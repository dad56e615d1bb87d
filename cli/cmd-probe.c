/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-probe.c - `fabtune probe`: read this host's fabric state from
 * sysfs (or a captured tree with --root), optionally twice for counter
 * rates, and print every observation (table, or a JSON snapshot). Started by
 * mpirun, every rank probes its node and rank 0 prints them all.
 */
#include <string.h>

#include <fabtune/fabtune.h>

#include "cli-run.h"
#include "cli.h"

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
	struct ft_obs_set set;
	struct ft_strbuf sb;
	struct ft_error err = { 0 };
	int rc, rank = 0;
	bool prom;

	if (opts_parse_args(&usage, ctx, argc, argv, 0, &rc) < 0)
		return rc;
	if (format && strcmp(format, "text") != 0 && strcmp(format, "json") != 0 &&
	    strcmp(format, "prometheus") != 0 && strcmp(format, "prom") != 0) {
		cli_error(ctx, "--format: expected text, json or prometheus, got '%s'", format);
		return EXIT_USAGE;
	}
	prom = format && strncmp(format, "prom", 4) == 0;
	if (format && strcmp(format, "json") == 0)
		ctx->json = true;
	else if (prom && ctx->json) {
		cli_error(ctx, "--format prometheus and --json: choose one");
		return EXIT_USAGE;
	}
	cfg.root = root;
	cfg.host = host;
	cfg.interval_s = interval;
	cfg.run_tools = !no_tools && strcmp(root, "/") == 0;
	ft_obs_set_init(&set);
	ft_strbuf_init(&sb);
	rc = ft_probe_hosts(&cfg, &set, &rank, &err);
	if (rc == 0 && prom)
		rc = ft_report_obs_prom(&set, &sb, &err);
	else if (rc == 0 && ctx->json)
		ft_probe_write_json(&cfg, &set, ctx->stable, &sb);
	else if (rc == 0) {
		ft_parse_write_obs(&sb, &set, false);
		ft_strbuf_addf(&sb, "%zu observations\n", ft_obs_set_len(&set));
	}
	ft_obs_set_release(&set);
	if (rc == 0 && rank != 0) { /* the other MPI ranks only took part */
		ft_strbuf_release(&sb);
		return EXIT_OK;
	}
	return cli_finish(ctx, &sb, rc, &err);
}

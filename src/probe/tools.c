/* SPDX-License-Identifier: MIT */
/*
 * probe/tools.c - run the installed tools the probe cannot replace by sysfs
 * reads (nvidia-smi topo -m, ibv_devinfo -v, ethtool -S per physical
 * interface, and lspci -vvv as root for the ACS control of PCIe bridges,
 * `host.acs`, HOST-ACS: config space past the first 64 bytes needs root)
 * and hand their output to the parsers. A tool that is not on PATH is
 * passed over; one that fails leaves a `probe.tool` observation with
 * its exit status. Only for the live root: a captured tree has no tools.
 */
#include "probe_int.h"

#include <sys/wait.h>

static bool
on_path(const char *tool)
{
	const char *path = getenv("PATH");
	char buf[FT__PATH_MAX];

	while (path && *path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);

		if (n &&
		    snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, tool) < (int)sizeof(buf) &&
		    access(buf, X_OK) == 0)
			return true;
		path = colon ? colon + 1 : NULL;
	}
	return false;
}

/*
 * Run @cmd (a fixed string built here, never user input), parse its stdout
 * as @format; with @only, keep only the observations of that key (the rest
 * the sysfs reads already give), with the probed host's name.
 */
static void
run_tool_only(struct ft__probe *p, const char *tool, const char *cmd, const char *format,
              const char *only)
{
	struct ft_strbuf sb;
	char buf[4096];
	size_t n;
	FILE *fp;
	int status;

	if (!on_path(tool))
		return;
	fp = popen(cmd, "r");
	if (!fp)
		return;
	ft_strbuf_init(&sb);
	while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
		ft_strbuf_add(&sb, buf, n);
	status = pclose(fp);
	ft__pctx_entity(&p->c, "", -1);
	if (status != 0) {
		char msg[160];

		snprintf(msg, sizeof(msg), "%s: exit status %d", cmd,
		         WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		ft__emit_cstr(&p->c, 0, "probe.tool", msg);
	} else if (sb.len && !sb.oom) {
		struct ft_error err = { 0 };
		struct ft_obs_set part;
		int rc;

		ft_obs_set_init(&part);
		rc = ft_parse_buffer(sb.buf, sb.len, cmd, format, only ? &part : p->c.out, NULL,
		                     &err);
		for (size_t i = 0; rc == 0 && i < ft_obs_set_len(&part); i++) {
			struct ft_obs o = *ft_obs_set_at(&part, i);

			if (strcmp(o.key, only) != 0)
				continue;
			ft_strlcpy(o.host, p->c.host, sizeof(o.host));
			rc = ft_obs_set_add(p->c.out, &o);
		}
		ft_obs_set_release(&part);
		if (rc == FT_ENOMEM)
			p->c.rc = ft_error_set(p->c.err, rc, "%s",
			                       err.msg[0] ? err.msg : "out of memory");
	}
	ft_strbuf_release(&sb);
}

static void
run_tool(struct ft__probe *p, const char *tool, const char *cmd, const char *format)
{
	run_tool_only(p, tool, cmd, format, NULL);
}

int
ft__probe_tools(struct ft__probe *p)
{
	char dir[FT__PATH_MAX], path[FT__PATH_MAX], cmd[256];
	char **ifs;
	size_t n;

	run_tool(p, "nvidia-smi", "nvidia-smi topo -m 2>/dev/null", "nvidia-smi-topo");
	run_tool(p, "ibv_devinfo", "ibv_devinfo -v 2>/dev/null", "ibv_devinfo");
	if (geteuid() == 0) /* as another user lspci shows no capabilities past 64 bytes */
		run_tool_only(p, "lspci", "lspci -D -vvv 2>/dev/null", "lspci", "host.acs");
	if (!ft__probe_path(p, dir, sizeof(dir), "/sys/class/net"))
		return p->c.rc;
	n = ft__probe_list(p->root, dir, &ifs);
	for (size_t i = 0; i < n && !p->c.rc; i++) {
		bool safe = true;

		/* physical interfaces only, and names that need no quoting */
		for (const char *q = ifs[i]; *q; q++)
			if (!isalnum((unsigned char)*q) && *q != '_' && *q != '-' && *q != '.')
				safe = false;
		if (!safe ||
		    snprintf(path, sizeof(path), "%s/%s/device", dir, ifs[i]) >=
		            (int)sizeof(path) ||
		    access(path, F_OK) != 0)
			continue;
		snprintf(cmd, sizeof(cmd), "ethtool -S %s 2>/dev/null", ifs[i]);
		run_tool(p, "ethtool", cmd, "ethtool-S");
	}
	ft__probe_list_free(ifs, n);
	return p->c.rc;
}

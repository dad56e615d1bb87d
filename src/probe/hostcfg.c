/* SPDX-License-Identifier: MIT */
/*
 * probe/hostcfg.c - the host settings the HOST-ACS and HOST-LIMITS rules
 * read: the IOMMU mode (`host.iommu`), the memlock limit (`host.memlock`)
 * and the ACS control of PCIe bridges (`host.acs`, through `lspci -vvv`).
 *
 * IOMMU: each group under /sys/kernel/iommu_groups has a default domain
 * type: "identity" is passthrough (iommu=pt; DMA addresses are physical),
 * "DMA" and "DMA-FQ" translate every GPU-NIC peer access (HOST-ACS). The
 * observation is the type that translates when any group does ("DMA-FQ"),
 * else "pt" when a group is identity; an empty group folder means no IOMMU
 * ("off"). Without the folder (an old kernel, a captured tree without it)
 * the kernel command line decides: iommu=pt gives "pt", iommu=off,
 * intel_iommu=off or amd_iommu=off give "off", anything else nothing.
 *
 * memlock: the soft RLIMIT_MEMLOCK of this process, in KiB as `ulimit -l`
 * shows it, or "unlimited" (HOST-LIMITS); the live host only, and only when
 * it has RDMA devices (/sys/class/infiniband): the limit caps the memory
 * ibv_reg_mr can pin, and without RDMA no transport pins through it.
 *
 * Every read fails soft: what is missing gives no observation.
 */
#include "probe_int.h"

#include <sys/resource.h>
#include <sys/stat.h>

/* The value of "@name=" among the words of @cmdline into @buf; false when absent. */
static bool
cmdline_param(const char *cmdline, const char *name, char *buf, size_t size)
{
	size_t n = strlen(name);

	for (const char *w = cmdline; *w;) {
		size_t len;

		while (*w == ' ' || *w == '\t' || *w == '\n')
			w++;
		len = strcspn(w, " \t\n");
		if (len > n && strncmp(w, name, n) == 0 && w[n] == '=') {
			ft__copy(buf, size, (struct ft__span){ w + n + 1, len - n - 1 });
			return true;
		}
		w += len;
	}
	return false;
}

/* The IOMMU mode the kernel command line asks for: "pt", "off" or "" (not said). */
static const char *
cmdline_iommu(const char *cmdline)
{
	static const char *const off_params[] = { "iommu", "intel_iommu", "amd_iommu" };
	char v[64];

	if (cmdline_param(cmdline, "iommu", v, sizeof(v)) && strcmp(v, "pt") == 0)
		return "pt";
	for (size_t i = 0; i < FT_ARRAY_SIZE(off_params); i++)
		if (cmdline_param(cmdline, off_params[i], v, sizeof(v)) && strcmp(v, "off") == 0)
			return "off";
	return "";
}

int
ft__probe_iommu(struct ft__probe *p)
{
	char dir[FT__PATH_MAX], path[FT__PATH_MAX], type[32], cmdline[4096];
	char translated[32] = "";
	size_t n, nident = 0, ntrans = 0;
	char **groups;
	const char *mode = "";
	struct stat st;

	if (!ft__probe_path(p, dir, sizeof(dir), "/sys/kernel/iommu_groups"))
		return p->c.rc;
	if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)) {
		n = ft__probe_list(p->root, dir, &groups);
		for (size_t i = 0; i < n; i++) {
			if (snprintf(path, sizeof(path), "%s/%s/type", dir, groups[i]) >=
			            (int)sizeof(path) ||
			    !ft__probe_read(p->root, path, type, sizeof(type)))
				continue;
			type[strcspn(type, "\n")] = '\0';
			if (strcmp(type, "identity") == 0) {
				nident++;
			} else if (strncmp(type, "DMA", 3) == 0) {
				if (!ntrans++)
					ft_strlcpy(translated, type, sizeof(translated));
			}
		}
		ft__probe_list_free(groups, n);
		if (ntrans)
			mode = translated;
		else if (nident)
			mode = "pt";
		else if (n == 0)
			mode = "off";
	} else if (ft__probe_path(p, path, sizeof(path), "/proc/cmdline") &&
	           ft__probe_read(p->root, path, cmdline, sizeof(cmdline))) {
		mode = cmdline_iommu(cmdline);
	}
	if (mode[0]) {
		ft__pctx_entity(&p->c, "", -1);
		ft__emit_cstr(&p->c, 0, "host.iommu", mode);
	}
	return p->c.rc;
}

/*
 * @rl's soft limit as `ulimit -l` shows it: "unlimited" (false), or KiB in
 * @buf and *@kib (true).
 */
bool
ft__memlock_kib(const struct rlimit *rl, char *buf, size_t size, double *kib)
{
	if (rl->rlim_cur == RLIM_INFINITY) {
		ft_strlcpy(buf, "unlimited", size);
		return false;
	}
	snprintf(buf, size, "%llu", (unsigned long long)(rl->rlim_cur / 1024));
	*kib = (double)(rl->rlim_cur / 1024);
	return true;
}

int
ft__probe_memlock(struct ft__probe *p)
{
	struct rlimit rl;
	char val[32];
	double kib = 0;
	char **devs;
	size_t ndev;

	if (p->root[0] || getrlimit(RLIMIT_MEMLOCK, &rl) != 0)
		return p->c.rc;
	ndev = ft__probe_list(p->root, "/sys/class/infiniband", &devs);
	ft__probe_list_free(devs, ndev);
	if (!ndev)
		return p->c.rc;
	ft__pctx_entity(&p->c, "", -1);
	if (ft__memlock_kib(&rl, val, sizeof(val), &kib))
		ft__emit(&p->c, 0, "host.memlock", true, kib, "KiB", ft__span_c(val));
	else
		ft__emit_cstr(&p->c, 0, "host.memlock", val);
	return p->c.rc;
}

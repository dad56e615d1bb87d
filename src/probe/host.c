/* SPDX-License-Identifier: MIT */
/*
 * probe/host.c - the facts that say where a run happened, as observations
 * of the host: its name, kernel release and build, architecture, CPU count and model,
 * memory, OS release, the versions of the network and GPU driver modules
 * (HOST-GDR), the NVIDIA driver's banner and the site-wide /etc/nccl.conf
 * (ENV- "How NCCL reads variables").
 *
 * The archive's fingerprint is built from these observations alone
 * (archive/fingerprint.c), so this file is the one reader of /proc, /etc
 * and /sys/module for it. On the live host ("/") the kernel, architecture
 * and CPU count come from uname() and sysconf(); a captured tree has no
 * uname, so there the kernel release is proc/sys/kernel/osrelease.
 */
#include "probe_int.h"

#include <sys/utsname.h>

/* Drivers of network and GPU devices whose version matters (HOST-GDR). */
static const char *const driver_modules[] = {
	"mlx5_core", "mlx5_ib", "ib_core", "nvidia", "nvidia_peermem", "bnxt_en", "irdma", "efa",
};

/* The first line of @path under the root, trimmed; false when unreadable or blank. */
static bool
read_first_line(const struct ft__probe *p, const char *rel, char *buf, size_t size)
{
	char path[FT__PATH_MAX];

	if (!ft__probe_path(p, path, sizeof(path), "%s", rel) ||
	    !ft__probe_read(p->root, path, buf, size))
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	for (size_t n = strlen(buf); n && isspace((unsigned char)buf[n - 1]);)
		buf[--n] = '\0';
	return buf[0] != '\0';
}

/*
 * The value after "@key<blanks>@sep" on the first line of @text that starts
 * with @key, blanks and double quotes trimmed ("PRETTY_NAME=\"Ubuntu\"",
 * "model name\t: AMD EPYC"). @text is left as it was.
 */
static bool
find_field(const char *text, const char *key, char sep, char *buf, size_t size)
{
	size_t klen = strlen(key);
	const char *line, *next;

	for (line = text; *line; line = next) {
		const char *v, *end;

		next = line + strcspn(line, "\n");
		if (*next)
			next++;
		if (strncmp(line, key, klen) != 0)
			continue;
		v = line + klen;
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v != sep)
			continue;
		v++;
		while (*v == ' ' || *v == '\t' || *v == '"')
			v++;
		end = v + strcspn(v, "\n");
		while (end > v && (isspace((unsigned char)end[-1]) || end[-1] == '"'))
			end--;
		ft__copy(buf, size, (struct ft__span){ v, (size_t)(end - v) });
		return true;
	}
	return false;
}

/* Read @rel under the root and find @key in it (find_field). */
static bool
read_field(const struct ft__probe *p, const char *rel, const char *key, char sep, char *buf,
           size_t size)
{
	char path[FT__PATH_MAX], text[8192];

	return ft__probe_path(p, path, sizeof(path), "%s", rel) &&
	       ft__probe_read(p->root, path, text, sizeof(text)) &&
	       find_field(text, key, sep, buf, size);
}

/* uname() and the online CPU count: the live host only. */
static void
live_facts(struct ft__probe *p)
{
	struct utsname u;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char val[32];

	if (uname(&u) == 0) {
		ft__emit_cstr(&p->c, 0, "host.kernel", u.release);
		ft__emit_cstr(&p->c, 0, "host.kernel_build", u.version);
		ft__emit_cstr(&p->c, 0, "host.arch", u.machine);
	}
	if (ncpu > 0) {
		snprintf(val, sizeof(val), "%ld", ncpu);
		ft__emit(&p->c, 0, "cpu.count", true, (double)ncpu, "count", ft__span_c(val));
	}
}

/* "MemTotal: 2113645928 kB" as mem.total_bytes, the bytes also in words. */
static void
mem_total(struct ft__probe *p)
{
	char val[64];
	uint64_t kib;

	if (!read_field(p, "/proc/meminfo", "MemTotal", ':', val, sizeof(val)))
		return;
	val[strcspn(val, " ")] = '\0';
	if (ft_parse_u64(val, &kib) != 0 || kib > UINT64_MAX / 1024)
		return;
	snprintf(val, sizeof(val), "%" PRIu64, kib * 1024);
	ft__emit(&p->c, 0, "mem.total_bytes", true, (double)kib * 1024, "bytes", ft__span_c(val));
}

/* Every "NAME = value" line of /etc/nccl.conf as nccl.conf.NAME; '#' starts a comment line. */
static void
nccl_conf(struct ft__probe *p)
{
	char path[FT__PATH_MAX], text[16384], key[64];

	if (!ft__probe_path(p, path, sizeof(path), "/etc/nccl.conf") ||
	    !ft__probe_read(p->root, path, text, sizeof(text)))
		return;
	for (char *line = text, *next; *line && !p->c.rc; line = next) {
		char *eq, *name = line, *end;

		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		while (isspace((unsigned char)*name))
			name++;
		eq = strchr(name, '=');
		if (!eq || *name == '#' || eq == name)
			continue;
		for (end = eq; end > name && isspace((unsigned char)end[-1]);)
			end--;
		*end = '\0';
		snprintf(key, sizeof(key), "nccl.conf.%.50s", name);
		for (eq++; isspace((unsigned char)*eq);)
			eq++;
		for (end = eq + strlen(eq); end > eq && isspace((unsigned char)end[-1]);)
			*--end = '\0';
		ft__emit_cstr(&p->c, 0, key, eq);
	}
}

int
ft__probe_host_facts(struct ft__probe *p)
{
	char val[256];

	if (p->c.host[0]) /* the name every observation carries, said once on its own */
		ft__emit_cstr(&p->c, 0, "host.name", p->c.host);
	if (!p->root[0])
		live_facts(p);
	else if (read_first_line(p, "/proc/sys/kernel/osrelease", val, sizeof(val)))
		ft__emit_cstr(&p->c, 0, "host.kernel", val);
	if (read_field(p, "/etc/os-release", "PRETTY_NAME", '=', val, sizeof(val)))
		ft__emit_cstr(&p->c, 0, "host.os", val);
	if (read_field(p, "/proc/cpuinfo", "model name", ':', val, sizeof(val)))
		ft__emit_cstr(&p->c, 0, "cpu.model", val);
	mem_total(p);
	/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  ..." */
	if (read_first_line(p, "/proc/driver/nvidia/version", val, sizeof(val)))
		ft__emit_cstr(&p->c, 0, "gpu.driver", val);
	for (size_t i = 0; i < FT_ARRAY_SIZE(driver_modules) && !p->c.rc; i++) {
		char rel[128];

		snprintf(rel, sizeof(rel), "/sys/module/%s/version", driver_modules[i]);
		if (!read_first_line(p, rel, val, sizeof(val)))
			continue;
		ft__pctx_entity(&p->c, driver_modules[i], -1);
		ft__emit_cstr(&p->c, 0, "driver.version", val);
	}
	ft__pctx_entity(&p->c, "", -1);
	nccl_conf(p);
	return p->c.rc;
}

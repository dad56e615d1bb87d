/* SPDX-License-Identifier: MIT */
/*
 * probe/probe_int.h - what the probe's files share: paths under the probed
 * root, small sysfs reads, sorted directory listings, and the observation
 * emitters of the parsers (parse/parse_int.h) with file "sysfs".
 */
#ifndef FT_PROBE_INT_H
#define FT_PROBE_INT_H

#include <fabtune/launch.h>
#include <fabtune/probe.h>

#include "parse/parse_int.h"

#define FT__PATH_MAX 1024

struct ft__probe {
	const char *root; /* "" for "/" */
	struct ft__pctx c;
	bool counters_only; /* second snapshot of --interval: counters only */
};

/* root + rel into @buf; false when it does not fit. */
bool ft__probe_path(const struct ft__probe *p, char *buf, size_t size, const char *fmt, ...)
        FT_PRINTF(4, 5);
/*
 * Read a small regular file under @root (p->root, "" for "/"; symlinks cannot
 * lead out of it), trailing blanks dropped; false when missing, unreadable or
 * not a regular file (a FIFO, a device).
 */
bool ft__probe_read(const char *root, const char *path, char *buf, size_t size);
/* Sorted (natural order: mlx5_2 < mlx5_10) entries of @dir under @root; *@out NULL when none. */
size_t ft__probe_list(const char *root, const char *dir, char ***out);
void ft__probe_list_free(char **names, size_t n);
/* The last component of the symlink @path points to ("0000:3b:00.0"); false if none. */
bool ft__probe_link_base(const char *path, char *buf, size_t size);

int ft__probe_ecn(struct ft__probe *p);
int ft__probe_host_facts(struct ft__probe *p);
int ft__probe_ib(struct ft__probe *p);
int ft__probe_iommu(struct ft__probe *p);
int ft__probe_memlock(struct ft__probe *p);
struct rlimit;
/* RLIMIT_MEMLOCK's soft limit as `ulimit -l` shows it: KiB (true) or "unlimited" (false). */
bool ft__memlock_kib(const struct rlimit *rl, char *buf, size_t size, double *kib);
int ft__probe_net(struct ft__probe *p);
int ft__probe_pci(struct ft__probe *p);
int ft__probe_tools(struct ft__probe *p);

#endif

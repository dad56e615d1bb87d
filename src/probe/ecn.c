/* SPDX-License-Identifier: MIT */
/*
 * probe/ecn.c - RoCE congestion control knobs (ROCE-DCQCN, CC-DCQCN):
 *
 * - per netdev, the MLNX_OFED tree /sys/class/net/<if>/ecn/roce_np/enable/<prio>
 *   and roce_rp/enable/<prio> (notification and reaction point on or off per
 *   priority 0-7) as `roce.ecn.np.prio<N>` / `roce.ecn.rp.prio<N>` (0 or 1),
 *   and the DCQCN parameters that tree holds beside them (roce_rp/<name>,
 *   roce_np/<name>, also under params/);
 * - per mlx5 PCI function, the upstream driver's debugfs files
 *   /sys/kernel/debug/mlx5/<pci>/cc_params/<name> (drivers/infiniband/hw/mlx5/
 *   cong.c: rp_* for the reaction point, np_* for the notification point),
 *   with the entity named after the function's netdev when it has one.
 *
 * Both spellings of a parameter become one key, `roce.cc.<debugfs name>`
 * (OFED's rpg_time_reset is the driver's rp_time_reset), so the rules read
 * either tree alike. The values are configuration, not counters: the second
 * snapshot of --interval skips them.
 */
#include "probe_int.h"

/* OFED parameter file -> debugfs name, where the two differ by more than the rp_/np_ prefix. */
static const struct {
	const char *ofed, *name;
} renames[] = {
	{ "clamp_tgt_rate_after_time_inc", "rp_clamp_tgt_rate_ati" },
	{ "cnp_802p_prio", "np_cnp_prio" },
};

/* The debugfs name for an OFED file under roce_<side>/ ("rp" or "np"); false to skip it. */
static bool
cc_name(const char *side, const char *file, char *buf, size_t size)
{
	for (size_t i = 0; i < FT_ARRAY_SIZE(renames); i++)
		if (strcmp(file, renames[i].ofed) == 0) {
			ft_strlcpy(buf, renames[i].name, size);
			return true;
		}
	if (strcmp(file, "enable") == 0 || strcmp(file, "params") == 0)
		return false;
	if (strncmp(file, "rpg_", 4) == 0)
		file += 4;
	else if (strncmp(file, side, 2) == 0 && file[2] == '_')
		file += 3;
	return snprintf(buf, size, "%s_%s", side, file) < (int)size;
}

static void
emit_cc(struct ft__probe *p, const char *name, const char *val)
{
	char key[96];
	uint64_t u;

	if (!ft__u64(ft__trim(ft__span_c(val)), &u))
		return;
	if (snprintf(key, sizeof(key), "roce.cc.%s", name) < (int)sizeof(key))
		ft__emit_num(&p->c, 0, key, (double)u, NULL);
}

/* The parameter files of @dir (roce_rp or roce_np of one netdev). */
static void
ofed_params(struct ft__probe *p, const char *dir, const char *side)
{
	char **files, path[FT__PATH_MAX], name[64], buf[64];
	size_t n = ft__probe_list(p->root, dir, &files);

	for (size_t i = 0; i < n && !p->c.rc; i++) {
		if (snprintf(path, sizeof(path), "%s/%s", dir, files[i]) >= (int)sizeof(path))
			continue;
		if (strcmp(files[i], "params") == 0) {
			ofed_params(p, path, side);
			continue;
		}
		if (cc_name(side, files[i], name, sizeof(name)) &&
		    ft__probe_read(p->root, path, buf, sizeof(buf)))
			emit_cc(p, name, buf);
	}
	ft__probe_list_free(files, n);
}

static void
ofed_tree(struct ft__probe *p, const char *netdir, const char *ifname)
{
	static const char *const sides[] = { "np", "rp" };
	char path[FT__PATH_MAX], key[32], buf[32];
	int64_t v;

	ft__pctx_entity(&p->c, ifname, -1);
	for (size_t s = 0; s < FT_ARRAY_SIZE(sides) && !p->c.rc; s++) {
		for (int prio = 0; prio < 8; prio++) {
			if (snprintf(path, sizeof(path), "%s/%s/ecn/roce_%s/enable/%d", netdir, ifname,
			             sides[s], prio) >= (int)sizeof(path) ||
			    !ft__probe_read(p->root, path, buf, sizeof(buf)) ||
			    !ft__i64(ft__span_c(buf), &v))
				continue;
			snprintf(key, sizeof(key), "roce.ecn.%s.prio%d", sides[s], prio);
			ft__emit_num(&p->c, 0, key, v != 0, NULL);
		}
		if (snprintf(path, sizeof(path), "%s/%s/ecn/roce_%s", netdir, ifname, sides[s]) <
		    (int)sizeof(path))
			ofed_params(p, path, sides[s]);
	}
}

/* The netdev of PCI function @pci (its only entry under net/), else the address. */
static void
pci_entity(struct ft__probe *p, const char *pci, char *buf, size_t size)
{
	char dir[FT__PATH_MAX], **names;
	size_t n = 0;

	if (ft__probe_path(p, dir, sizeof(dir), "/sys/bus/pci/devices/%s/net", pci))
		n = ft__probe_list(p->root, dir, &names);
	else
		names = NULL;
	ft_strlcpy(buf, n == 1 ? names[0] : pci, size);
	ft__probe_list_free(names, n);
}

static void
debugfs_tree(struct ft__probe *p)
{
	char dir[FT__PATH_MAX], path[FT__PATH_MAX], ent[64], buf[64];
	char **fns, **files;
	size_t nf;

	if (!ft__probe_path(p, dir, sizeof(dir), "/sys/kernel/debug/mlx5"))
		return;
	nf = ft__probe_list(p->root, dir, &fns);
	for (size_t i = 0; i < nf && !p->c.rc; i++) {
		size_t n;

		if (snprintf(path, sizeof(path), "%s/%s/cc_params", dir, fns[i]) >= (int)sizeof(path))
			continue;
		n = ft__probe_list(p->root, path, &files);
		if (n) {
			pci_entity(p, fns[i], ent, sizeof(ent));
			ft__pctx_entity(&p->c, ent, -1);
		}
		for (size_t k = 0; k < n && !p->c.rc; k++) {
			char fpath[FT__PATH_MAX];

			if (snprintf(fpath, sizeof(fpath), "%s/%s", path, files[k]) <
			            (int)sizeof(fpath) &&
			    ft__probe_read(p->root, fpath, buf, sizeof(buf)))
				emit_cc(p, files[k], buf);
		}
		ft__probe_list_free(files, n);
	}
	ft__probe_list_free(fns, nf);
}

int
ft__probe_ecn(struct ft__probe *p)
{
	char dir[FT__PATH_MAX];
	char **ifs;
	size_t n;

	if (p->counters_only)
		return 0;
	if (ft__probe_path(p, dir, sizeof(dir), "/sys/class/net")) {
		n = ft__probe_list(p->root, dir, &ifs);
		for (size_t i = 0; i < n && !p->c.rc; i++)
			if (strcmp(ifs[i], "lo") != 0)
				ofed_tree(p, dir, ifs[i]);
		ft__probe_list_free(ifs, n);
	}
	if (!p->c.rc)
		debugfs_tree(p);
	ft__pctx_entity(&p->c, "", -1);
	return p->c.rc;
}

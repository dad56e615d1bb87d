/* SPDX-License-Identifier: MIT */
/*
 * probe/pci.c - /sys/bus/pci/devices: every NIC (class 0x02xxxx) and NVIDIA
 * GPU (class 0x0300/0x0302, vendor 0x10de): PCIe link speed and width, current
 * against maximum (HOST-PCIE), NUMA node (HOST-NUMA), and the GPU-NIC
 * affinity matrix that `nvidia-smi topo -m` prints (SMI-LEGEND), derived
 * from where each device sits in the PCI tree, so no GPU driver is needed:
 *
 *   PIX  the path crosses at most one PCIe switch (or one bridge)
 *   PXB  it crosses several switches but no host bridge
 *   PHB  they meet at their host bridge (root complex)
 *   NODE different host bridges, same NUMA node
 *   SYS  different NUMA nodes (the inter-socket link)
 *
 * GPUs are numbered in PCI bus order as nvidia-smi does; NICs are named by
 * their RDMA device (mlx5_0), else their netdev, else their address. With
 * hwloc (FT_HAVE_HWLOC) and the live root, the tree comes from hwloc's PCI
 * discovery instead of the sysfs paths; the classification is the same.
 * Each GPU's product name (gpu.model) comes from the NVIDIA driver's
 * /proc/driver/nvidia/gpus/<address>/information when the driver is loaded.
 */
#include "probe_int.h"

#if FT_HAVE_HWLOC
#include <hwloc.h>
#endif

#define MAX_PCI   256
#define MAX_CHAIN 16

struct pdev {
	char bdf[16];
	char name[48];
	bool gpu;
	int numa;
	char domain[16];           /* host bridge: "pci0000:00" or hwloc's */
	char chain[MAX_CHAIN][16]; /* bridges from the root port down, then the device */
	int nchain;
};

static bool
is_bdf(const char *s)
{
	return strlen(s) == 12 && s[4] == ':' && s[7] == ':' && s[10] == '.';
}

/* Bridge chain from the resolved sysfs path ".../pci0000:00/0000:00:01.0/.../BDF". */
static void
chain_from_path(struct pdev *d, const char *real)
{
	char tmp[FT__PATH_MAX];
	char *save = NULL, *tok;

	ft_strlcpy(tmp, real, sizeof(tmp));
	d->nchain = 0;
	d->domain[0] = '\0';
	for (tok = strtok_r(tmp, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (strncmp(tok, "pci", 3) == 0 && strchr(tok, ':') && !is_bdf(tok)) {
			ft_strlcpy(d->domain, tok, sizeof(d->domain));
			d->nchain = 0;
		} else if (is_bdf(tok) && d->nchain < MAX_CHAIN) {
			ft_strlcpy(d->chain[d->nchain++], tok, sizeof(d->chain[0]));
		}
	}
}

/*
 * Along a chain, index 0 is the root port (part of the host bridge) and a
 * PCIe switch shows as an upstream port (odd index) followed by downstream
 * ports (even index): bridge index i belongs to switch (i + 1) / 2.
 */
static int
switches_below(const struct pdev *d, int k, int shared)
{
	int n = 0, last = -1;

	for (int i = k; i < d->nchain - 1; i++) {
		int sw = (i + 1) / 2;

		if (sw != shared && sw != last)
			n++;
		last = sw;
	}
	return n;
}

static const char *
classify(const struct pdev *a, const struct pdev *b)
{
	int k = 0, shared, nsw;

	if (!a->domain[0] || strcmp(a->domain, b->domain) != 0)
		return a->numa >= 0 && a->numa == b->numa ? "NODE" : "SYS";
	while (k < a->nchain - 1 && k < b->nchain - 1 && strcmp(a->chain[k], b->chain[k]) == 0)
		k++;
	if (k == 0)
		return "PHB"; /* different root ports: through the host bridge */
	/* k - 1 is the deepest common bridge; with k == 1 it is the root port itself
	   (two functions of one device), which crosses no switch */
	shared = k - 1 >= 1 ? k / 2 : -1;
	nsw = (shared >= 0) + switches_below(a, k, shared) + switches_below(b, k, shared);
	return nsw <= 1 ? "PIX" : "PXB";
}

static double
link_value(const char *s)
{
	double v;

	return ft__lead_dbl(ft__span_c(s), &v, NULL) ? v : NAN;
}

/* Friendly names for NICs: RDMA device, else netdev. */
static void
nic_name(struct ft__probe *p, struct pdev *d)
{
	char path[FT__PATH_MAX], base[64];
	char **names;
	size_t n;

	ft_strlcpy(d->name, d->bdf, sizeof(d->name));
	if (ft__probe_path(p, path, sizeof(path), "/sys/class/infiniband")) {
		n = ft__probe_list(p->root, path, &names);
		for (size_t i = 0; i < n; i++) {
			char link[FT__PATH_MAX];

			if (snprintf(link, sizeof(link), "%s/%s/device", path, names[i]) <
			            (int)sizeof(link) &&
			    ft__probe_link_base(link, base, sizeof(base)) &&
			    strcmp(base, d->bdf) == 0) {
				ft_strlcpy(d->name, names[i], sizeof(d->name));
				ft__probe_list_free(names, n);
				return;
			}
		}
		ft__probe_list_free(names, n);
	}
	if (ft__probe_path(p, path, sizeof(path), "/sys/bus/pci/devices/%s/net", d->bdf)) {
		n = ft__probe_list(p->root, path, &names);
		if (n)
			ft_strlcpy(d->name, names[0], sizeof(d->name));
		ft__probe_list_free(names, n);
	}
}

static void
emit_link(struct ft__probe *p, const struct pdev *d)
{
	static const struct {
		const char *file, *key, *unit;
	} files[] = {
		{ "current_link_speed", "pcie.link.speed_cur", "GT/s" },
		{ "max_link_speed", "pcie.link.speed_max", "GT/s" },
		{ "current_link_width", "pcie.link.width_cur", "lanes" },
		{ "max_link_width", "pcie.link.width_max", "lanes" },
	};
	char path[FT__PATH_MAX], buf[64];

	ft__pctx_entity(&p->c, d->name, -1);
	ft__emit_cstr(&p->c, 0, "pcie.bdf", d->bdf);
	for (size_t i = 0; i < FT_ARRAY_SIZE(files); i++) {
		double v;

		if (!ft__probe_path(p, path, sizeof(path), "/sys/bus/pci/devices/%s/%s", d->bdf,
		                    files[i].file) ||
		    !ft__probe_read(p->root, path, buf, sizeof(buf)))
			continue;
		v = link_value(buf);
		if (!isnan(v) && v > 0)
			ft__emit_num(&p->c, 0, files[i].key, v, files[i].unit);
	}
	if (d->numa >= 0)
		ft__emit_num(&p->c, 0, "numa.node", d->numa, NULL);
}

#if FT_HAVE_HWLOC
/* Replace the sysfs-path chains with hwloc's PCI tree (live root only). */
static void
chains_from_hwloc(struct pdev *devs, size_t n)
{
	hwloc_topology_t topo;
	hwloc_obj_t obj = NULL;

	if (hwloc_topology_init(&topo) < 0)
		return;
	hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_ALL);
	if (hwloc_topology_load(topo) < 0) {
		hwloc_topology_destroy(topo);
		return;
	}
	while ((obj = hwloc_get_next_pcidev(topo, obj))) {
		char bdf[16];
		struct pdev *d = NULL;
		hwloc_obj_t up, chain[MAX_CHAIN];
		int nc = 0;

		snprintf(bdf, sizeof(bdf), "%04x:%02x:%02x.%01x", obj->attr->pcidev.domain,
		         obj->attr->pcidev.bus, obj->attr->pcidev.dev, obj->attr->pcidev.func);
		for (size_t i = 0; i < n; i++)
			if (strcmp(devs[i].bdf, bdf) == 0)
				d = &devs[i];
		if (!d)
			continue;
		/* walk up through PCI bridges to the host bridge */
		for (up = obj; up && nc < MAX_CHAIN; up = up->parent) {
			if (up->type == HWLOC_OBJ_BRIDGE &&
			    up->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST)
				break;
			if (up->type != HWLOC_OBJ_PCI_DEVICE && up->type != HWLOC_OBJ_BRIDGE)
				break;
			chain[nc++] = up;
		}
		if (!up || up->type != HWLOC_OBJ_BRIDGE)
			continue;
		snprintf(d->domain, sizeof(d->domain), "hb%" PRIu64, (uint64_t)up->gp_index);
		d->nchain = 0;
		for (int i = nc - 1; i >= 0; i--)
			snprintf(d->chain[d->nchain++], sizeof(d->chain[0]), "o%" PRIu64,
			         (uint64_t)chain[i]->gp_index);
	}
	hwloc_topology_destroy(topo);
}
#endif

/*
 * The GPU's name as the NVIDIA driver reports it: the "Model:" line of
 * /proc/driver/nvidia/gpus/<pci address>/information ("Model: \t\t NVIDIA
 * H100 80GB HBM3"). Nothing when the driver is not loaded or the file holds
 * no such line: the PCI device id alone does not name the product.
 */
static void
emit_gpu_model(struct ft__probe *p, const struct pdev *d)
{
	char path[FT__PATH_MAX], info[2048];
	struct ft__lines it;
	struct ft__span line, key, val;

	if (!ft__probe_path(p, path, sizeof(path), "/proc/driver/nvidia/gpus/%s/information",
			    d->bdf) ||
	    !ft__probe_read(p->root, path, info, sizeof(info)))
		return;
	ft__lines_init(&it, info, strlen(info), 0);
	while (ft__lines_next(&it, &line))
		if (ft__split(line, ':', &key, &val) && ft__eq(key, "Model") && val.n) {
			ft__emit_str(&p->c, 0, "gpu.model", val);
			return;
		}
}

int
ft__probe_pci(struct ft__probe *p)
{
	char dir[FT__PATH_MAX], path[FT__PATH_MAX], buf[64], real[FT__PATH_MAX];
	char **names;
	size_t n, nd = 0, ngpu = 0;
	struct pdev *devs;

	if (p->counters_only || !ft__probe_path(p, dir, sizeof(dir), "/sys/bus/pci/devices"))
		return 0;
	n = ft__probe_list(p->root, dir, &names);
	devs = ft_calloc(n ? n : 1, sizeof(*devs));
	if (!devs) {
		ft__probe_list_free(names, n);
		return ft_error_set(p->c.err, FT_ENOMEM, "probe: out of memory");
	}
	for (size_t i = 0; i < n && nd < MAX_PCI; i++) {
		uint64_t cls = 0, vendor = 0;
		struct pdev *d = &devs[nd];
		int64_t numa = -1;

		if (!is_bdf(names[i]))
			continue;
#define READ(file)                                                                         \
	(snprintf(path, sizeof(path), "%s/%s/" file, dir, names[i]) < (int)sizeof(path) && \
	 ft__probe_read(p->root, path, buf, sizeof(buf)))
		if (!READ("class") || !ft__u64(ft__span_c(buf), &cls))
			continue;
		if (READ("vendor"))
			(void)ft__u64(ft__span_c(buf), &vendor);
		d->gpu = vendor == 0x10de && ((cls >> 8) == 0x0302 || (cls >> 8) == 0x0300);
		if (!d->gpu && (cls >> 16) != 0x02)
			continue;
		if (READ("numa_node"))
			(void)ft__i64(ft__span_c(buf), &numa);
#undef READ
		ft_strlcpy(d->bdf, names[i], sizeof(d->bdf));
		d->numa = (int)numa;
		if (snprintf(path, sizeof(path), "%s/%s", dir, names[i]) < (int)sizeof(path) &&
		    realpath(path, real))
			chain_from_path(d, real);
		if (d->gpu)
			snprintf(d->name, sizeof(d->name), "GPU%zu", ngpu++);
		else
			nic_name(p, d);
		nd++;
	}
	ft__probe_list_free(names, n);
#if FT_HAVE_HWLOC
	if (!p->root[0])
		chains_from_hwloc(devs, nd);
#endif
	for (size_t i = 0; i < nd && !p->c.rc; i++)
		emit_link(p, &devs[i]);
	ft__pctx_entity(&p->c, "", -1);
	ft__emit_num(&p->c, 0, "gpu.count", (double)ngpu, "count");
	for (size_t i = 0; i < nd && !p->c.rc; i++) {
		if (!devs[i].gpu)
			continue;
		ft__pctx_entity(&p->c, devs[i].name, -1);
		emit_gpu_model(p, &devs[i]);
		if (devs[i].numa >= 0)
			ft__emit_num(&p->c, 0, "gpu.numa_affinity", devs[i].numa, NULL);
		for (size_t j = 0; j < nd; j++) {
			char ent[48];

			if (devs[j].gpu)
				continue;
			snprintf(ent, sizeof(ent), "%s->%s", devs[i].name, devs[j].name);
			ft__pctx_entity(&p->c, ent, -1);
			ft__emit_cstr(&p->c, 0, "gpu.nic_path", classify(&devs[i], &devs[j]));
		}
	}
	ft__pctx_entity(&p->c, "", -1);
	ft_free(devs);
	return p->c.rc;
}

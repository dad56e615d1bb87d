/* SPDX-License-Identifier: MIT */
/*
 * probe/probe.c - ft_probe_host(): one snapshot of this host (or of a
 * captured tree), and with an interval a second snapshot of the counters
 * whose differences become `<counter key>.rate` observations (per second).
 */
#include "probe_int.h"

#include <sys/stat.h>
#include <time.h>

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
host_name(const struct ft_probe_cfg *cfg, const char *root, char *buf, size_t size)
{
	char path[FT__PATH_MAX];

	buf[0] = '\0';
	if (cfg->host) {
		ft_strlcpy(buf, cfg->host, size);
		return;
	}
	if (root[0]) {
		/* a captured tree names its host in etc/hostname, if at all */
		if (snprintf(path, sizeof(path), "%s/etc/hostname", root) < (int)sizeof(path))
			(void)ft__probe_read(root, path, buf, size);
		return;
	}
	if (gethostname(buf, size) != 0)
		buf[0] = '\0';
	buf[size - 1] = '\0';
}

static int
snapshot(struct ft__probe *p)
{
	int rc = ft__probe_ib(p);

	if (rc == 0)
		rc = ft__probe_net(p);
	if (rc == 0)
		rc = ft__probe_pci(p);
	if (rc == 0)
		rc = ft__probe_ecn(p);
	if (rc == 0 && !p->counters_only)
		rc = ft__probe_iommu(p);
	if (rc == 0 && !p->counters_only)
		rc = ft__probe_memlock(p);
	return rc;
}

static bool
is_counter(const struct ft_obs *o)
{
	return o->has_num && (strncmp(o->key, "ib.counter.", 11) == 0 ||
	                      strncmp(o->key, "ib.hw_counter.", 14) == 0 ||
	                      strncmp(o->key, "eth.counter.", 12) == 0);
}

static bool
same_entity(const struct ft_obs *a, const struct ft_obs *b)
{
	return a->port == b->port && strcmp(a->key, b->key) == 0 &&
	       strcmp(a->device, b->device) == 0 && strcmp(a->host, b->host) == 0;
}

/* Rates from the counters of @first (indexes [from, mid)) and @second. */
static int
add_rates(struct ft__probe *p, const struct ft_obs_set *second, size_t from, size_t mid, double dt)
{
	size_t j = from;

	for (size_t i = 0; i < ft_obs_set_len(second) && !p->c.rc; i++) {
		const struct ft_obs *b = ft_obs_set_at(second, i);
		struct ft_obs r;
		size_t tries;

		if (!is_counter(b))
			continue;
		/* both snapshots list counters in the same order; search from the last match */
		for (tries = 0; tries < mid - from; tries++, j = j + 1 < mid ? j + 1 : from)
			if (same_entity(ft_obs_set_at(p->c.out, j), b))
				break;
		if (tries == mid - from)
			continue;
		r = *b;
		if (snprintf(r.key, sizeof(r.key), "%s.rate", b->key) >= (int)sizeof(r.key))
			continue;
		r.num = b->num >= ft_obs_set_at(p->c.out, j)->num ?
		                (b->num - ft_obs_set_at(p->c.out, j)->num) / dt :
		                0; /* a counter reset between the snapshots */
		snprintf(r.unit, sizeof(r.unit), "%.13s/s", b->unit);
		if (ft_obs_set_add(p->c.out, &r) < 0)
			p->c.rc = ft_error_set(p->c.err, FT_ENOMEM, "probe: out of memory");
	}
	return p->c.rc;
}

int
ft_probe_host(const struct ft_probe_cfg *cfg, struct ft_obs_set *out, struct ft_error *err)
{
	struct ft__probe p;
	char root[FT__PATH_MAX];
	struct stat st;
	size_t from = ft_obs_set_len(out), mid;
	double t0, t1;
	int rc;

	if (!cfg || !out)
		return ft_error_set(err, FT_EINVAL, "probe: no configuration or output");
	ft_strlcpy(root, cfg->root && strcmp(cfg->root, "/") != 0 ? cfg->root : "", sizeof(root));
	while (root[0] && root[strlen(root) - 1] == '/')
		root[strlen(root) - 1] = '\0';
	if (root[0] && stat(root, &st) != 0)
		return ft_error_set(err, FT_ENOENT, "root %s: no such directory", cfg->root);
	if (root[0] && !S_ISDIR(st.st_mode))
		return ft_error_set(err, FT_ENOENT, "root %s: is a %s, not a directory", cfg->root,
		                    ft_file_type_name((unsigned)st.st_mode));
	if (cfg->interval_s < 0 || cfg->interval_s > 3600)
		return ft_error_set(err, FT_ERANGE, "interval: expected 0 to 3600 seconds, got %g",
		                    cfg->interval_s);
	memset(&p, 0, sizeof(p));
	p.root = root;
	ft__pctx_init(&p.c, "sysfs", out, NULL, err);
	host_name(cfg, root, p.c.host, sizeof(p.c.host));
	t0 = now_s();
	rc = snapshot(&p);
	if (rc == 0 && cfg->run_tools && !root[0])
		rc = ft__probe_tools(&p);
	mid = ft_obs_set_len(out);
	if (rc == 0 && cfg->interval_s > 0) {
		struct ft_obs_set second;
		struct timespec ts;
		double left = cfg->interval_s - (now_s() - t0);

		if (left > 0) {
			ts.tv_sec = (time_t)left;
			ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
			while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
				;
		}
		ft_obs_set_init(&second);
		p.c.out = &second;
		p.counters_only = true;
		t1 = now_s();
		rc = snapshot(&p);
		p.c.out = out;
		if (rc == 0)
			rc = add_rates(&p, &second, from, mid,
			               t1 - t0 > 0 ? t1 - t0 : cfg->interval_s);
		ft_obs_set_release(&second);
	}
	return rc;
}

/*
 * One part of a probe of @root ("/", NULL or a captured tree) into @out,
 * without checking that the tree is there: what is missing adds nothing.
 */
static int
probe_part(const char *root, int (*part)(struct ft__probe *), struct ft_obs_set *out,
           struct ft_error *err)
{
	struct ft_probe_cfg cfg = { .root = root };
	struct ft__probe p;
	char dir[FT__PATH_MAX];

	if (!out)
		return ft_error_set(err, FT_EINVAL, "probe: no output");
	ft_strlcpy(dir, root && strcmp(root, "/") != 0 ? root : "", sizeof(dir));
	while (dir[0] && dir[strlen(dir) - 1] == '/')
		dir[strlen(dir) - 1] = '\0';
	memset(&p, 0, sizeof(p));
	p.root = dir;
	ft__pctx_init(&p.c, "sysfs", out, NULL, err);
	host_name(&cfg, dir, p.c.host, sizeof(p.c.host));
	return part(&p);
}

int
ft_probe_rdma_devices(const char *root, struct ft_obs_set *out, struct ft_error *err)
{
	return probe_part(root, ft__probe_ib, out, err);
}

int
ft_probe_host_facts(const char *root, struct ft_obs_set *out, struct ft_error *err)
{
	return probe_part(root, ft__probe_host_facts, out, err);
}

/* SPDX-License-Identifier: MIT */
/*
 * sim/save.c - what a twin's report leaves behind: its observations for an
 * archived run (what the twin was, link utilisation, traced series) and the
 * counter files of the packet engine written into a folder.
 */
#include "sim_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <fabtune/base.h>
#include <fabtune/obs.h>
#include <fabtune/sim.h>

/* One string observation of the twin, source "sim". */
static int
twin_obs(struct ft_obs_set *obs, const char *key, const char *device, const char *str)
{
	struct ft_obs o;

	ft_obs_init(&o, key);
	ft_strlcpy(o.device, device, sizeof(o.device));
	ft_strlcpy(o.str, str, sizeof(o.str));
	o.file = "sim";
	return ft_obs_set_add(obs, &o);
}

/* A utilisation (ratio) of @device, source "sim"; @str "" or the size it was seen at. */
static int
util_obs(struct ft_obs_set *obs, const char *key, const char *device, const char *str,
         double util)
{
	struct ft_obs o;

	ft_obs_init(&o, key);
	ft_strlcpy(o.device, device, sizeof(o.device));
	ft_strlcpy(o.str, str, sizeof(o.str));
	o.has_num = true;
	o.num = util;
	ft_strlcpy(o.unit, "ratio", sizeof(o.unit));
	o.file = "sim";
	return ft_obs_set_add(obs, &o);
}

/* The description in pieces that fit an observation, cut at spaces, read back in order. */
static int
description_obs(struct ft_obs_set *obs, const char *d)
{
	int rc = 0;

	while (rc == 0 && *d) {
		char piece[150];
		size_t n = strlen(d);

		if (n >= sizeof(piece)) {
			n = sizeof(piece) - 1;
			while (n > 80 && d[n] != ' ')
				n--;
		}
		snprintf(piece, sizeof(piece), "%.*s", (int)n, d);
		rc = twin_obs(obs, "sim.description", "", piece);
		d += n;
	}
	return rc;
}

int
ft_sim_report_obs(const struct ft_sim_report *r, struct ft_obs_set *obs)
{
	size_t i;
	int rc;

	rc = twin_obs(obs, "sim.scenario", "", r->scenario);
	if (rc == 0)
		rc = twin_obs(obs, "sim.engine", "", r->engine);
	if (rc == 0)
		rc = twin_obs(obs, "sim.routing", "", r->routing);
	if (rc == 0)
		rc = description_obs(obs, r->description);
	for (i = 0; i < r->faults.len && rc == 0; i++) {
		char dev[32];

		snprintf(dev, sizeof(dev), "fault %zu", i + 1);
		rc = twin_obs(obs, "sim.fault", dev,
		              ((const struct ft_sim_fault_text *)ft_vec_at(&r->faults, i))->text);
	}
	for (i = 0; i < r->ports.len && rc == 0; i++) {
		const struct ft_sim_hot_link *l = ft_vec_at(&r->ports, i);
		const char *arrow = strstr(l->name, " -> ");
		char dev[sizeof(((struct ft_obs *)0)->device)];

		/* "leaf0 -> n0.nic0" as the observation's device: "leaf0->n0.nic0" */
		if (arrow)
			snprintf(dev, sizeof(dev), "%.*s->%s", (int)(arrow - l->name), l->name,
			         arrow + 4);
		else
			ft_strlcpy(dev, l->name, sizeof(dev));
		rc = util_obs(obs, "sim.link.util", dev, "", l->stat.util);
	}
	for (i = 0; i < r->by_size.len && rc == 0; i++) {
		const struct ft_sim_size_stat *b = ft_vec_at(&r->by_size, i);
		char dev[sizeof(((struct ft_obs *)0)->device)], size[24];

		snprintf(dev, sizeof(dev), "%s t%u", b->kind, b->tier);
		snprintf(size, sizeof(size), "%" PRIu64, b->bytes);
		rc = util_obs(obs, "sim.size.util", dev, size, b->util_max);
	}
	if (rc == 0)
		rc = ft_sim_report_trace_obs(r, obs);
	return rc < 0 ? FT_ENOMEM : 0;
}

int
ft_sim_report_write_counters(const struct ft_sim_report *r, const char *dir, struct ft_error *err)
{
	size_t i;
	int rc;

	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		return ft_error_set(err, FT_EIO, "%s: %s", dir, strerror(errno));
	for (i = 0; i < r->counter_files.len; i++) {
		const struct ft_sim_file *f = ft_vec_at(&r->counter_files, i);
		char path[4096];

		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, f->name) >= sizeof(path))
			return ft_error_set(err, FT_EINVAL, "%s: the folder's path is too long", dir);
		/* the safe writer: no symlink followed, no non-regular file replaced */
		rc = ft_file_write(path, f->text, f->len, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

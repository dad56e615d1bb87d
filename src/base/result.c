/* SPDX-License-Identifier: MIT */
/*
 * base/result.c - result rows, runs, observations and findings: the shared
 * data model (fabtune/result.h, fabtune/obs.h).
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <fabtune/obs.h>
#include <fabtune/result.h>

static const char *const source_names[] = {
#define NAME_(n, s) s,
	FT_SOURCE_MAP(NAME_)
#undef NAME_
};
_Static_assert(FT_ARRAY_SIZE(source_names) == FT_SOURCE_COUNT, "source names");

const char *
ft_source_name(enum ft_source s)
{
	return (unsigned)s < FT_SOURCE_COUNT ? source_names[s] : "unknown";
}

int
ft_source_from_name(const char *name, enum ft_source *out)
{
	size_t i;

	for (i = 0; i < FT_SOURCE_COUNT; i++) {
		if (strcmp(name, source_names[i]) == 0) {
			*out = (enum ft_source)i;
			return 0;
		}
	}
	return FT_EINVAL;
}

void
ft_result_row_init(struct ft_result_row *row)
{
	memset(row, 0, sizeof(*row));
	row->root = -1;
	row->wrong = -1;
	row->time_us = row->algbw_GBps = row->busbw_GBps = NAN;
	row->ip_time_us = row->ip_algbw_GBps = row->ip_busbw_GBps = NAN;
	row->lat_min_us = row->lat_avg_us = row->lat_p50_us = row->lat_p99_us = NAN;
	row->lat_p999_us = row->lat_max_us = row->lat_stdev_us = NAN;
}

void
ft_run_init(struct ft_run *run, enum ft_source source, const char *kind)
{
	memset(run, 0, sizeof(*run));
	run->source = source;
	ft_strlcpy(run->kind, kind ? kind : ft_source_name(source), sizeof(run->kind));
	ft_vec_init(&run->rows, sizeof(struct ft_result_row));
}

void
ft_run_release(struct ft_run *run)
{
	ft_vec_release(&run->rows);
}

int
ft_run_add(struct ft_run *run, const struct ft_result_row *row)
{
	return ft_vec_push(&run->rows, row);
}

void
ft_strpool_init(struct ft_strpool *p)
{
	ft_vec_init(&p->s, sizeof(char *));
}

void
ft_strpool_release(struct ft_strpool *p)
{
	size_t i;

	for (i = 0; i < p->s.len; i++)
		ft_free(*(char **)ft_vec_at(&p->s, i));
	ft_vec_release(&p->s);
}

const char *
ft_strpool_intern(struct ft_strpool *p, const char *str)
{
	char *copy;
	size_t i, n;

	if (!str || !*str)
		return "";
	/* a record copied within its container already points into the pool;
	 * observations come in runs from one file: search from the newest */
	for (i = p->s.len; i-- > 0;) {
		const char *have = *(char **)ft_vec_at(&p->s, i);

		if (have == str || strcmp(have, str) == 0)
			return have;
	}
	n = strlen(str);
	copy = ft_malloc(n + 1);
	if (!copy)
		return NULL;
	memcpy(copy, str, n + 1);
	if (ft_vec_push(&p->s, &copy) < 0) {
		ft_free(copy);
		return NULL;
	}
	return copy;
}

int
ft_obs_intern(struct ft_strpool *pool, struct ft_obs *o)
{
	const char *f = ft_strpool_intern(pool, o->file);

	if (!f)
		return FT_ENOMEM;
	o->file = f;
	return 0;
}

void
ft_obs_set_init(struct ft_obs_set *set)
{
	ft_vec_init(&set->v, sizeof(struct ft_obs));
	ft_strpool_init(&set->files);
}

void
ft_obs_set_release(struct ft_obs_set *set)
{
	ft_vec_release(&set->v);
	ft_strpool_release(&set->files);
}

int
ft_obs_set_add(struct ft_obs_set *set, const struct ft_obs *o)
{
	struct ft_obs copy = *o;
	int rc = ft_obs_intern(&set->files, &copy);

	return rc < 0 ? rc : ft_vec_push(&set->v, &copy);
}

void
ft_obs_init(struct ft_obs *o, const char *key)
{
	memset(o, 0, sizeof(*o));
	o->port = -1;
	o->rank = -1;
	o->file = "";
	if (key)
		ft_strlcpy(o->key, key, sizeof(o->key));
}

void
ft_obs_entity(const struct ft_obs *o, char *buf, size_t len)
{
	size_t n = 0;

	/* No allocation: entities must come out right under memory pressure too. */
	if (!len)
		return;
	buf[0] = '\0';
	if (o->host[0])
		n += (size_t)snprintf(buf, len, "%s", o->host);
	if (o->device[0] && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "/" : "", o->device);
	if (o->port >= 0 && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%sport %d", n ? "/" : "", o->port);
	if (o->rank >= 0 && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%srank %d", n ? " " : "", o->rank);
	if (!buf[0])
		ft_strlcpy(buf, "-", len);
}

static const char *const layer_names[] = {
#define NAME_(n, s) s,
	FT_LAYER_MAP(NAME_)
#undef NAME_
};
_Static_assert(FT_ARRAY_SIZE(layer_names) == FT_LAYER_COUNT, "layer names");

static const char *const severity_names[] = {
#define NAME_(n, s) s,
	FT_SEVERITY_MAP(NAME_)
#undef NAME_
};
_Static_assert(FT_ARRAY_SIZE(severity_names) == FT_SEV_COUNT, "severity names");

const char *
ft_layer_name(enum ft_layer l)
{
	return (unsigned)l < FT_LAYER_COUNT ? layer_names[l] : "unknown";
}

const char *
ft_severity_name(enum ft_severity s)
{
	return (unsigned)s < FT_SEV_COUNT ? severity_names[s] : "unknown";
}

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

#include "base/recset_int.h"
#include <fabtune/result.h>

FT__NAME_TABLE(source_names, FT_SOURCE_MAP, FT_SOURCE_COUNT);

const char *
ft_source_name(enum ft_source s)
{
	return (unsigned)s < FT_SOURCE_COUNT ? source_names[s] : "unknown";
}

FT__NAME_SET(ft__source_names, source_names);
FT__FROM_NAME(ft_source_from_name, enum ft_source, ft__source_names, FT_EINVAL)

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
	row->time_stdev_us = NAN;
}

void
ft_run_init(struct ft_run *run, enum ft_source source, const char *kind)
{
	memset(run, 0, sizeof(*run));
	run->source = source;
	ft_strlcpy(run->kind, kind ? kind : ft_source_name(source), sizeof(run->kind));
	run->wall_s = run->cpu_s = run->host_busy = run->load1 = NAN;
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
	memset(p, 0, sizeof(*p));
	ft_vec_init(&p->s, sizeof(char *));
}

void
ft_strpool_release(struct ft_strpool *p)
{
	size_t i;

	for (i = 0; i < p->s.len; i++)
		ft_free(*(char **)ft_vec_at(&p->s, i));
	ft_vec_release(&p->s);
	ft_free(p->slots);
	p->slots = NULL;
	p->nslots = 0;
	p->last = NULL;
}

/* FNV-1a, 64 bits */
static uint64_t
str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3u;
	return h;
}

/* The slot of @str in @slots (@n a power of two): where it is, or the empty one to take. */
static char **
pool_slot(char **slots, size_t n, const char *str, uint64_t h)
{
	size_t i = (size_t)h & (n - 1);

	while (slots[i] && strcmp(slots[i], str) != 0)
		i = (i + 1) & (n - 1);
	return &slots[i];
}

/* Room for one more string at a load of at most one half. FT_ENOMEM. */
static int
pool_grow(struct ft_strpool *p)
{
	size_t n, i;
	char **slots;

	if (p->nslots && (p->s.len + 1) * 2 <= p->nslots)
		return 0;
	n = p->nslots ? p->nslots * 2 : 16;
	if (n > SIZE_MAX / sizeof(*slots) / 2 || !(slots = ft_calloc(n, sizeof(*slots))))
		return FT_ENOMEM;
	for (i = 0; i < p->s.len; i++) {
		char *str = *(char **)ft_vec_at(&p->s, i);

		*pool_slot(slots, n, str, str_hash(str)) = str;
	}
	ft_free(p->slots);
	p->slots = slots;
	p->nslots = n;
	return 0;
}

const char *
ft_strpool_intern(struct ft_strpool *p, const char *str)
{
	char **slot, *copy;
	uint64_t h;
	size_t n;

	if (!str || !*str)
		return "";
	/* observations come in runs from one file, often already interned here */
	if (p->last && (p->last == str || strcmp(p->last, str) == 0))
		return p->last;
	h = str_hash(str);
	if (p->nslots && *(slot = pool_slot(p->slots, p->nslots, str, h)))
		return p->last = *slot;
	if (pool_grow(p) < 0)
		return NULL;
	slot = pool_slot(p->slots, p->nslots, str, h);
	n = strlen(str);
	copy = ft_malloc(n + 1);
	if (!copy)
		return NULL;
	memcpy(copy, str, n + 1);
	if (ft_vec_push(&p->s, &copy) < 0) {
		ft_free(copy);
		return NULL;
	}
	*slot = copy;
	return p->last = copy;
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
ft__recset_init(struct ft_vec *v, struct ft_strpool *files, size_t elem_size)
{
	ft_vec_init(v, elem_size);
	ft_strpool_init(files);
}

void
ft__recset_release(struct ft_vec *v, struct ft_strpool *files)
{
	ft_vec_release(v);
	ft_strpool_release(files);
}

int
ft__recset_add(struct ft_vec *v, struct ft_strpool *files, const void *rec, size_t obs_off,
               size_t nobs)
{
	unsigned char *slot;
	size_t k;

	/* built in place (a finding is large) and kept only when all files are interned */
	if (ft_vec_reserve(v, 1) < 0)
		return FT_ENOMEM;
	slot = (unsigned char *)v->data + v->len * v->elem_size;
	memcpy(slot, rec, v->elem_size);
	for (k = 0; k < nobs; k++)
		if (ft_obs_intern(files, (struct ft_obs *)(slot + obs_off) + k) < 0)
			return FT_ENOMEM;
	v->len++;
	return 0;
}

FT__RECSET_DEFINE(ft_obs_set, struct ft_obs_set, struct ft_obs)

int
ft_obs_set_add(struct ft_obs_set *set, const struct ft_obs *o)
{
	return ft__recset_add(&set->v, &set->files, o, 0, 1);
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

FT__NAME_TABLE(layer_names, FT_LAYER_MAP, FT_LAYER_COUNT);

FT__NAME_TABLE(severity_names, FT_SEVERITY_MAP, FT_SEV_COUNT);

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

/* SPDX-License-Identifier: MIT */
/*
 * parse/output.c - observations and result rows as JSON and as table text,
 * shared by `fabtune parse`, `fabtune probe` and the fixture tests.
 */
#include "parse_int.h"

#include <fabtune/json.h>
#include <fabtune/table.h>

void
ft_parse_obs_value(const struct ft_obs *o, char *buf, size_t len)
{
	char num[48] = "";

	if (o->has_num)
		snprintf(num, sizeof(num), "%.10g%s%s", o->num, o->unit[0] ? " " : "", o->unit);
	if (o->has_num && o->str[0])
		snprintf(buf, len, "%s (%s)", num, o->str);
	else if (o->has_num)
		snprintf(buf, len, "%s", num);
	else
		snprintf(buf, len, "%s", o->str);
}

/*
 * JSON members as data: each record type is a table of members in output
 * order, written by one loop. A member is written when its @show says so;
 * without one, when it is set (not "", not NaN, an int not negative, an
 * unsigned not 0).
 */
enum member_kind {
	M_STR,  /* char array */
	M_PSTR, /* const char * */
	M_INT,  /* int or int64_t */
	M_UINT, /* uint32_t or uint64_t */
	M_DBL,  /* double */
};

struct member {
	const char *key;
	size_t off, size;
	enum member_kind kind;
	bool (*show)(const void *rec);
};

#define MEMBER(type, m, ...)                                                                     \
	{                                                                                        \
		.key = #m, .off = offsetof(type, m), .size = sizeof(((type *)0)->m), __VA_ARGS__ \
	}
#define OBS(m, ...) MEMBER(struct ft_obs, m, __VA_ARGS__)
#define ROW(m, ...) MEMBER(struct ft_result_row, m, __VA_ARGS__)

static bool
always(const void *rec)
{
	(void)rec;
	return true;
}

static bool
obs_has_num(const void *rec)
{
	return ((const struct ft_obs *)rec)->has_num;
}

/* nccl-tests prints root -1 for the reducing collectives: keep it there */
static bool
row_has_root(const void *rec)
{
	const struct ft_result_row *r = rec;

	return r->root >= 0 || r->redop[0];
}

static const struct member obs_members[] = {
	OBS(key, M_STR, always), OBS(host, M_STR), OBS(device, M_STR),
	OBS(port, M_INT),        OBS(rank, M_INT), OBS(num, M_DBL, obs_has_num),
	OBS(unit, M_STR),        OBS(str, M_STR),  OBS(file, M_PSTR),
	OBS(line, M_UINT),
};

/* identity, out-of-place then in-place figures, latency distribution, labels */
static const struct member row_members[] = {
	ROW(test, M_STR),
	ROW(transport, M_STR),
	ROW(bytes, M_UINT, always),
	ROW(count, M_UINT),
	ROW(dtype, M_STR),
	ROW(redop, M_STR),
	ROW(root, M_INT, row_has_root),
	ROW(nranks, M_UINT),
	ROW(time_us, M_DBL),
	ROW(algbw_GBps, M_DBL),
	ROW(busbw_GBps, M_DBL),
	ROW(ip_time_us, M_DBL),
	ROW(ip_algbw_GBps, M_DBL),
	ROW(ip_busbw_GBps, M_DBL),
	ROW(wrong, M_INT),
	ROW(lat_min_us, M_DBL),
	ROW(lat_avg_us, M_DBL),
	ROW(lat_p50_us, M_DBL),
	ROW(lat_p99_us, M_DBL),
	ROW(lat_p999_us, M_DBL),
	ROW(lat_max_us, M_DBL),
	ROW(lat_stdev_us, M_DBL),
	ROW(nsamples, M_UINT),
	ROW(algo, M_STR),
	ROW(proto, M_STR),      /* fabtune model's table */
	ROW(bottleneck, M_STR), /* fabtune model's table */
	ROW(src, M_STR),
	ROW(dst, M_STR),
};

static void
write_member(struct ft_json *j, const struct member *m, const void *rec)
{
	const char *p = (const char *)rec + m->off;
	union {
		int32_t i32;
		int64_t i64;
		uint32_t u32;
		uint64_t u64;
		double d;
		const char *s;
	} v = { .u64 = 0 };
	const char *str = p;
	int64_t i;
	uint64_t u;
	bool set;

	if (m->kind != M_STR)
		memcpy(&v, p, m->size);
	if (m->kind == M_PSTR)
		str = v.s ? v.s : "";
	i = m->size == sizeof(int32_t) ? v.i32 : v.i64;
	u = m->size == sizeof(uint32_t) ? v.u32 : v.u64;
	switch (m->kind) {
	case M_STR:
	case M_PSTR:
		set = str[0] != '\0';
		break;
	case M_INT:
		set = i >= 0;
		break;
	case M_UINT:
		set = u != 0;
		break;
	default:
		set = !isnan(v.d);
		break;
	}
	if (m->show ? !m->show(rec) : !set)
		return;
	if (m->kind == M_STR || m->kind == M_PSTR)
		ft_json_kv_str(j, m->key, str);
	else if (m->kind == M_INT)
		ft_json_kv_int(j, m->key, i);
	else if (m->kind == M_UINT)
		ft_json_kv_uint(j, m->key, u);
	else
		ft_json_kv_double(j, m->key, v.d);
}

/* A JSON array of @n records, the record @i being at(@set, i), each an object of @members. */
static void
write_records(struct ft_json *j, const void *(*at)(const void *set, size_t i), const void *set,
              size_t n, const struct member *members, size_t nmembers)
{
	ft_json_arr_begin(j);
	for (size_t i = 0; i < n; i++) {
		const void *rec = at(set, i);

		ft_json_obj_begin(j);
		for (size_t k = 0; k < nmembers; k++)
			write_member(j, &members[k], rec);
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
}

static const void *
obs_at(const void *set, size_t i)
{
	return ft_obs_set_at(set, i);
}

static const void *
row_at(const void *run, size_t i)
{
	return ft_run_row(run, i);
}

void
ft_parse_obs_to_json(struct ft_json *j, const struct ft_obs_set *set)
{
	write_records(j, obs_at, set, ft_obs_set_len(set), obs_members, FT_ARRAY_SIZE(obs_members));
}

void
ft_parse_rows_to_json(struct ft_json *j, const struct ft_run *run)
{
	write_records(j, row_at, run, ft_run_nrows(run), row_members, FT_ARRAY_SIZE(row_members));
}

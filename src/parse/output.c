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

void
ft_parse_obs_write_table(struct ft_strbuf *sb, const struct ft_obs_set *set, size_t from,
                         size_t to, bool source)
{
	struct ft_table t;
	char ent[200], val[240];

	ft_table_init(&t);
	if (source)
		ft_table_col(&t, "source", FT_ALIGN_LEFT);
	ft_table_col(&t, "entity", FT_ALIGN_LEFT);
	ft_table_col(&t, "key", FT_ALIGN_LEFT);
	ft_table_col(&t, "value", FT_ALIGN_LEFT);
	for (size_t i = from; i < to; i++) {
		const struct ft_obs *o = ft_obs_set_at(set, i);

		ft_obs_entity(o, ent, sizeof(ent));
		ft_parse_obs_value(o, val, sizeof(val));
		if (source)
			(void)ft_table_cellf(&t, "%s:%u", o->file, o->line);
		(void)ft_table_cell(&t, ent);
		(void)ft_table_cell(&t, o->key);
		(void)ft_table_cell(&t, val[0] ? val : "-");
	}
	ft_table_render(&t, sb);
	ft_table_release(&t);
}

static void
kv_num(struct ft_json *j, const char *key, double v)
{
	if (!isnan(v))
		ft_json_kv_double(j, key, v);
}

static void
kv_str(struct ft_json *j, const char *key, const char *v)
{
	if (v[0])
		ft_json_kv_str(j, key, v);
}

void
ft_parse_obs_to_json(struct ft_json *j, const struct ft_obs_set *set)
{
	ft_json_arr_begin(j);
	for (size_t i = 0; i < ft_obs_set_len(set); i++) {
		const struct ft_obs *o = ft_obs_set_at(set, i);

		ft_json_obj_begin(j);
		ft_json_kv_str(j, "key", o->key);
		kv_str(j, "host", o->host);
		kv_str(j, "device", o->device);
		if (o->port >= 0)
			ft_json_kv_int(j, "port", o->port);
		if (o->rank >= 0)
			ft_json_kv_int(j, "rank", o->rank);
		if (o->has_num)
			ft_json_kv_double(j, "num", o->num);
		kv_str(j, "unit", o->unit);
		kv_str(j, "str", o->str);
		kv_str(j, "file", o->file);
		if (o->line)
			ft_json_kv_uint(j, "line", o->line);
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
}

void
ft_parse_rows_to_json(struct ft_json *j, const struct ft_run *run)
{
	ft_json_arr_begin(j);
	for (size_t i = 0; i < ft_run_nrows(run); i++) {
		const struct ft_result_row *r = ft_run_row(run, i);

		ft_json_obj_begin(j);
		kv_str(j, "test", r->test);
		kv_str(j, "transport", r->transport);
		ft_json_kv_uint(j, "bytes", r->bytes);
		if (r->count)
			ft_json_kv_uint(j, "count", r->count);
		kv_str(j, "dtype", r->dtype);
		kv_str(j, "redop", r->redop);
		if (r->root >= 0 || r->redop[0])
			ft_json_kv_int(j, "root", r->root);
		if (r->nranks)
			ft_json_kv_uint(j, "nranks", r->nranks);
		kv_num(j, "time_us", r->time_us);
		kv_num(j, "algbw_GBps", r->algbw_GBps);
		kv_num(j, "busbw_GBps", r->busbw_GBps);
		kv_num(j, "ip_time_us", r->ip_time_us);
		kv_num(j, "ip_algbw_GBps", r->ip_algbw_GBps);
		kv_num(j, "ip_busbw_GBps", r->ip_busbw_GBps);
		if (r->wrong >= 0)
			ft_json_kv_int(j, "wrong", r->wrong);
		kv_num(j, "lat_min_us", r->lat_min_us);
		kv_num(j, "lat_avg_us", r->lat_avg_us);
		kv_num(j, "lat_p50_us", r->lat_p50_us);
		kv_num(j, "lat_p99_us", r->lat_p99_us);
		kv_num(j, "lat_p999_us", r->lat_p999_us);
		kv_num(j, "lat_max_us", r->lat_max_us);
		kv_num(j, "lat_stdev_us", r->lat_stdev_us);
		if (r->nsamples)
			ft_json_kv_uint(j, "nsamples", r->nsamples);
		kv_str(j, "algo", r->algo);
		kv_str(j, "src", r->src);
		kv_str(j, "dst", r->dst);
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
}

/* SPDX-License-Identifier: MIT */
/*
 * parse/write.c - what `fabtune parse` prints: the registry of formats, and
 * what one file held (its observations, or a count per key, and its result
 * rows) as tables or as one JSON object.
 */
#include "parse_int.h"

#include <fabtune/json.h>
#include <fabtune/table.h>

void
ft_parse_write_formats(struct ft_strbuf *sb, bool json)
{
	struct ft_table t;
	struct ft_json j;

	if (json) {
		ft_json_init(&j, sb, false);
		ft_json_obj_begin(&j);
		ft_json_key(&j, "formats");
		ft_json_arr_begin(&j);
		for (size_t i = 0; i < ft_parser_count(); i++) {
			ft_json_obj_begin(&j);
			ft_json_kv_str(&j, "name", ft_parser_at(i)->name);
			ft_json_kv_str(&j, "summary", ft_parser_at(i)->summary);
			ft_json_obj_end(&j);
		}
		ft_json_arr_end(&j);
		ft_json_obj_end(&j);
		ft_strbuf_addch(sb, '\n');
		return;
	}
	ft_table_init(&t);
	ft_table_col(&t, "format", FT_ALIGN_LEFT);
	ft_table_col(&t, "reads", FT_ALIGN_LEFT);
	for (size_t i = 0; i < ft_parser_count(); i++) {
		(void)ft_table_cell(&t, ft_parser_at(i)->name);
		(void)ft_table_cell(&t, ft_parser_at(i)->summary);
	}
	ft_table_render(&t, sb);
	ft_table_release(&t);
}

struct ft_obs_set
ft_parse_obs_since(const struct ft_obs_set *set, size_t from)
{
	struct ft_obs_set view = *set;

	view.v.data = from ? ft_vec_at(&set->v, from) : set->v.data; /* no offset on NULL */
	view.v.len = ft_obs_set_len(set) - from;
	return view;
}

bool
ft_parse_read_nothing(const struct ft_obs_set *view, const struct ft_run *run)
{
	if (ft_run_nrows(run) || !ft_obs_set_len(view))
		return false;
	for (size_t i = 0; i < ft_obs_set_len(view); i++)
		if (strcmp(ft_obs_set_at(view, i)->key, "parse.skipped") != 0)
			return false;
	return true;
}

static void
cell_num(struct ft_table *t, double v, const char *fmt)
{
	if (isnan(v))
		(void)ft_table_cell(t, "-");
	else
		(void)ft_table_cellf(t, fmt, v);
}

static void
text_rows(struct ft_strbuf *sb, const struct ft_run *run)
{
	static const char *const cols[] = { "test",	  "bytes", "time_us",	 "algbw_GBps",
		                            "busbw_GBps", "wrong", "lat_p50_us", "lat_p99_us" };
	struct ft_table t;

	ft_table_init(&t);
	for (size_t c = 0; c < FT_ARRAY_SIZE(cols); c++)
		ft_table_col(&t, cols[c], c ? FT_ALIGN_RIGHT : FT_ALIGN_LEFT);
	for (size_t i = 0; i < ft_run_nrows(run); i++) {
		const struct ft_result_row *r = ft_run_row(run, i);

		(void)ft_table_cell(&t, r->test);
		(void)ft_table_cellf(&t, "%" PRIu64, r->bytes);
		cell_num(&t, r->time_us, "%.2f");
		cell_num(&t, r->algbw_GBps, "%.2f");
		cell_num(&t, r->busbw_GBps, "%.2f");
		if (r->wrong >= 0)
			(void)ft_table_cellf(&t, "%" PRId64, r->wrong);
		else
			(void)ft_table_cell(&t, "-");
		cell_num(&t, r->lat_p50_us, "%.2f");
		cell_num(&t, r->lat_p99_us, "%.2f");
	}
	ft_table_render(&t, sb);
	ft_table_release(&t);
}

void
ft_parse_write_obs(struct ft_strbuf *sb, const struct ft_obs_set *set, bool with_source)
{
	struct ft_table t;
	char ent[200], val[240];

	ft_table_init(&t);
	if (with_source)
		ft_table_col(&t, "source", FT_ALIGN_LEFT);
	ft_table_col(&t, "entity", FT_ALIGN_LEFT);
	ft_table_col(&t, "key", FT_ALIGN_LEFT);
	ft_table_col(&t, "value", FT_ALIGN_LEFT);
	for (size_t i = 0; i < ft_obs_set_len(set); i++) {
		const struct ft_obs *o = ft_obs_set_at(set, i);

		ft_obs_entity(o, ent, sizeof(ent));
		ft_parse_obs_value(o, val, sizeof(val));
		if (with_source)
			(void)ft_table_cellf(&t, "%s:%u", o->file, o->line);
		(void)ft_table_cell(&t, ent);
		(void)ft_table_cell(&t, o->key);
		(void)ft_table_cell(&t, val[0] ? val : "-");
	}
	ft_table_render(&t, sb);
	ft_table_release(&t);
}

/* Per-key counts, in order of first appearance (keys found through a small hash table). */
static void
text_summary(struct ft_strbuf *sb, const struct ft_obs_set *set)
{
	enum {
		NSLOT = 4096
	}; /* far more than the keys any input has */
	struct ft_table t;
	size_t nkeys = 0;
	const char **keys = ft_calloc(NSLOT, sizeof(*keys));
	size_t *counts = ft_calloc(NSLOT, sizeof(*counts));
	uint16_t *order = ft_calloc(NSLOT, sizeof(*order));

	if (!keys || !counts || !order) {
		sb->oom = true;
		goto out;
	}
	for (size_t i = 0; i < ft_obs_set_len(set); i++) {
		const char *k = ft_obs_set_at(set, i)->key;
		uint32_t h = 2166136261u;
		size_t slot, n;

		for (const char *q = k; *q; q++)
			h = (h ^ (unsigned char)*q) * 16777619u;
		slot = h % NSLOT;
		for (n = 0; n < NSLOT && keys[slot] && strcmp(keys[slot], k) != 0; n++)
			slot = (slot + 1) % NSLOT;
		if (n == NSLOT)
			continue; /* table full: more distinct keys than slots */
		if (!keys[slot]) {
			keys[slot] = k;
			order[nkeys++] = (uint16_t)slot;
		}
		counts[slot]++;
	}
	ft_table_init(&t);
	ft_table_col(&t, "key", FT_ALIGN_LEFT);
	ft_table_col(&t, "count", FT_ALIGN_RIGHT);
	for (size_t j = 0; j < nkeys; j++) {
		(void)ft_table_cell(&t, keys[order[j]]);
		(void)ft_table_cellf(&t, "%zu", counts[order[j]]);
	}
	ft_table_render(&t, sb);
	ft_table_release(&t);
out:
	ft_free(keys);
	ft_free(counts);
	ft_free(order);
}

/* "FILE: N result rows (KIND)" */
static void
rows_line(struct ft_strbuf *sb, const char *file, const struct ft_run *run)
{
	ft_strbuf_addf(sb, "%s: %zu result rows (%s)\n", file, ft_run_nrows(run),
	               run->kind[0] ? run->kind : "import");
}

void
ft_parse_write_file(struct ft_strbuf *sb, const char *file, const struct ft_obs_set *obs,
                    const struct ft_run *run, bool summary)
{
	ft_strbuf_addf(sb, "%s: %zu observations\n", file, ft_obs_set_len(obs));
	if (summary) {
		text_summary(sb, obs);
		if (ft_run_nrows(run))
			rows_line(sb, file, run);
		return;
	}
	ft_parse_write_obs(sb, obs, true);
	if (!ft_run_nrows(run))
		return;
	ft_strbuf_addch(sb, '\n');
	rows_line(sb, file, run);
	text_rows(sb, run);
}

void
ft_parse_file_json(struct ft_json *j, const char *file, const struct ft_obs_set *obs,
                   const struct ft_run *run)
{
	ft_json_obj_begin(j);
	ft_json_kv_str(j, "file", file);
	if (run->kind[0])
		ft_json_kv_str(j, "kind", run->kind);
	ft_json_key(j, "observations");
	ft_parse_obs_to_json(j, obs);
	ft_json_key(j, "rows");
	ft_parse_rows_to_json(j, run);
	ft_json_obj_end(j);
}

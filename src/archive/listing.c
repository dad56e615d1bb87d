/* SPDX-License-Identifier: MIT */
/*
 * archive/listing.c - the list of archived runs as a table (id, when saved,
 * source, kind, host, counts, label) or a JSON object {"runs": [...]}.
 */
#include "archive_int.h"

#include <time.h>

#include <fabtune/table.h>

static void
info_json(struct ft_json *j, const struct ft_archive_info *in, bool stable)
{
	ft_json_obj_begin(j);
	ft_json_kv_int(j, "id", in->id);
	if (!stable)
		ft_json_kv_double(j, "created", in->created_s);
	ft_json_kv_str(j, "source", ft_source_name(in->source));
	ft_json_kv_str(j, "kind", in->kind);
	ft_json_kv_str(j, "label", in->label);
	ft_json_kv_str(j, "spec", in->spec);
	ft_json_kv_str(j, "host", in->host);
	ft_json_kv_str(j, "fingerprint", in->fp_digest);
	ft_json_kv_uint(j, "rows", in->nrows);
	ft_json_kv_uint(j, "observations", in->nobs);
	ft_json_kv_uint(j, "findings", in->nfindings);
	if (!stable && in->started_s > 0)
		ft_json_kv_double(j, "started", in->started_s);
	if (!stable && isfinite(in->wall_s))
		ft__archive_usage_json(j, in->wall_s, in->cpu_s, in->host_busy, in->load1);
	ft_json_obj_end(j);
}

static void
when(double t, char *buf, size_t len)
{
	time_t secs = (time_t)t;
	struct tm tm;

	if (t > 0 && gmtime_r(&secs, &tm))
		strftime(buf, len, "%Y-%m-%d %H:%M:%SZ", &tm);
	else
		snprintf(buf, len, "-");
}

void
ft_archive_list_write_json(struct ft_strbuf *sb, const struct ft_archive_info *runs, size_t n,
                           bool stable)
{
	struct ft_json j;
	size_t i;

	ft_json_init(&j, sb, true);
	ft_json_obj_begin(&j);
	ft_json_key(&j, "runs");
	ft_json_arr_begin(&j);
	for (i = 0; i < n; i++)
		info_json(&j, &runs[i], stable);
	ft_json_arr_end(&j);
	ft_json_obj_end(&j);
	ft_strbuf_addch(sb, '\n');
}

void
ft_archive_list_write_text(struct ft_strbuf *sb, const struct ft_archive_info *runs, size_t n,
                           bool stable)
{
	struct ft_table t;
	size_t i;

	if (n == 0) {
		ft_strbuf_adds(sb, "no runs in the archive\n");
		return;
	}
	ft_table_init(&t);
	ft_table_col(&t, "id", FT_ALIGN_RIGHT);
	if (!stable)
		ft_table_col(&t, "saved", FT_ALIGN_LEFT);
	ft_table_col(&t, "source", FT_ALIGN_LEFT);
	ft_table_col(&t, "kind", FT_ALIGN_LEFT);
	ft_table_col(&t, "host", FT_ALIGN_LEFT);
	ft_table_col(&t, "rows", FT_ALIGN_RIGHT);
	ft_table_col(&t, "obs", FT_ALIGN_RIGHT);
	ft_table_col(&t, "findings", FT_ALIGN_RIGHT);
	ft_table_col(&t, "label", FT_ALIGN_LEFT);
	for (i = 0; i < n; i++) {
		const struct ft_archive_info *in = &runs[i];
		char buf[32];

		ft_table_cellf(&t, "%" PRId64, in->id);
		if (!stable) {
			when(in->created_s, buf, sizeof(buf));
			ft_table_cell(&t, buf);
		}
		ft_table_cell(&t, ft_source_name(in->source));
		ft_table_cell(&t, in->kind);
		ft_table_cell(&t, in->host[0] ? in->host : "-");
		ft_table_cellf(&t, "%zu", in->nrows);
		ft_table_cellf(&t, "%zu", in->nobs);
		ft_table_cellf(&t, "%zu", in->nfindings);
		ft_table_cell(&t, in->label[0] ? in->label : "-");
	}
	ft_table_render(&t, sb);
	ft_table_release(&t);
}

/* SPDX-License-Identifier: MIT */
/*
 * workflow/runs.c - runs in and out of the archive by name: the ids that a
 * list of run references names (all runs for none), and a file imported
 * whole, a fabtune export or a tool's text output.
 */
#include "internal.h"

#include <fabtune/json.h>
#include <fabtune/workflow.h>

int
ft_workflow_resolve_runs(struct ft_archive *ar, const char *const *refs, size_t n,
                         struct ft_vec *ids, struct ft_error *err)
{
	struct ft_vec list;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < n; i++) {
		int64_t id;

		rc = ft_archive_resolve(ar, refs[i], &id, err);
		if (rc == 0 && ft_vec_push(ids, &id) < 0)
			rc = ft_error_set(err, FT_ENOMEM, "out of memory");
	}
	if (rc < 0 || n > 0)
		return rc;
	ft_vec_init(&list, sizeof(struct ft_archive_info));
	rc = ft_archive_list(ar, NULL, &list, err);
	for (size_t k = 0; rc == 0 && k < list.len; k++)
		if (ft_vec_push(ids, &FT_VEC_AT(&list, struct ft_archive_info, k).id) < 0)
			rc = ft_error_set(err, FT_ENOMEM, "out of memory");
	ft_vec_release(&list);
	return rc;
}

int
ft_workflow_import_file(struct ft_archive *ar, const char *path, const char *format,
                        struct ft_vec *ids, struct ft_error *err)
{
	struct ft_strbuf sb;
	size_t skip = 0;
	int rc;

	ft_strbuf_init(&sb);
	rc = ft_strbuf_read_file(&sb, path, err);
	while (rc == 0 && skip < sb.len && strchr(" \t\r\n", sb.buf[skip]))
		skip++;
	if (rc == 0 && (!format || strcmp(format, "fabtune") == 0) && skip < sb.len &&
	    sb.buf[skip] == '{')
		rc = ft_archive_import(ar, sb.buf, sb.len, path, ids, err);
	else if (rc == 0)
		rc = ft_workflow_import_text(ar, path, format, sb.buf, sb.len, ids, err);
	ft_strbuf_release(&sb);
	return rc;
}

int
ft_workflow_run_write(struct ft_strbuf *sb, const struct ft_archive_record *rec, bool json,
                      bool stable, bool color, struct ft_error *err)
{
	struct ft_report_input in = { .run = rec, .stable = stable, .color = color };
	struct ft_json j;

	if (!json)
		return ft_report_render(&in, FT_REPORT_TEXT, sb, err);
	ft_json_init(&j, sb, true);
	ft_archive_record_json(rec, &j, stable ? FT_EXPORT_STABLE : 0);
	ft_strbuf_addch(sb, '\n');
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * workflow/refs.c - run references (a run id, latest~N, a baseline name, a
 * fabtune export file) resolved to archive records, and what a report or a
 * comparison of them needs: the records, the baseline's runs, the
 * comparison and the report's input.
 */
#include "internal.h"

#include <sys/stat.h>

#include <fabtune/workflow.h>

static bool
is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int
export_text(const char *text, size_t len, const char *path, void *records, struct ft_error *err)
{
	return ft_archive_parse_export(text, len, path, records, err);
}

static int
load_file(const char *path, struct ft_vec *records, struct ft_error *err)
{
	int rc = ft__with_file_text(path, export_text, records, err);

	if (rc == 0 && records->len == 0)
		rc = ft_error_set(err, FT_EINVAL, "%s: the export holds no run", path);
	return rc;
}

static int
ensure_open(struct ft_archive **ar, const char *archive_path, struct ft_error *err)
{
	return *ar ? 0 : ft_archive_open(archive_path, ar, err);
}

static bool
looks_like_run_ref(const char *ref)
{
	int64_t n;

	return strncmp(ref, "latest", 6) == 0 || ft_parse_i64(ref, &n) == 0;
}

static int
load_run(struct ft_archive *ar, const char *ref, struct ft_vec *records, char *label, size_t len,
         struct ft_error *err)
{
	int64_t id;
	int rc;

	rc = ft_archive_resolve(ar, ref, &id, err);
	if (rc == 0 && ft_vec_push(records, NULL) < 0)
		rc = ft_error_set(err, FT_ENOMEM, "out of memory");
	if (rc == 0) {
		rc = ft_archive_load(ar, id, ft_vec_at(records, records->len - 1), err);
		if (rc < 0)
			records->len--;
	}
	if (rc == 0)
		snprintf(label, len, "run %" PRId64, id);
	return rc;
}

int
ft_workflow_load_ref(struct ft_archive **ar, const char *archive_path, const char *ref,
                     bool baseline_ok, struct ft_vec *records, char *label, size_t len,
                     struct ft_error *err)
{
	const char *name;
	size_t start = records->len;
	int rc;

	if (is_file(ref)) {
		rc = load_file(ref, records, err);
		if (rc == 0)
			snprintf(label, len, "%s (%zu run%s)", ref, records->len - start,
			         records->len - start == 1 ? "" : "s");
		return rc;
	}
	if (strchr(ref, '/') || strstr(ref, ".json"))
		return ft_error_set(err, FT_ENOENT, "%s: no such file", ref);
	rc = ensure_open(ar, archive_path, err);
	if (rc < 0)
		return rc;
	if (!baseline_ok || looks_like_run_ref(ref))
		return load_run(*ar, ref, records, label, len, err);
	name = strncmp(ref, "baseline:", 9) == 0 ? ref + 9 : ref;
	rc = ft_archive_baseline_load(*ar, name, records, err);
	if (rc == 0)
		snprintf(label, len, "baseline '%s' (%zu run%s)", name, records->len - start,
		         records->len - start == 1 ? "" : "s");
	return rc;
}

void
ft_workflow_report_release(struct ft_workflow_report *r)
{
	if (r->have_cmp)
		ft_compare_release(&r->cmp);
	ft_free(r->bruns);
	ft_archive_records_release(&r->cur);
	ft_archive_records_release(&r->base);
	ft_archive_records_release(&r->expected);
	memset(r, 0, sizeof(*r));
}

/* The baseline's runs, compared with the reported one. */
static int
compare(struct ft_workflow_report *r, const struct ft_compare_opts *opts, struct ft_error *err)
{
	const struct ft_archive_record *newest;
	size_t i;
	int rc;

	r->bruns = ft_reallocarray(NULL, r->base.len, sizeof(*r->bruns));
	if (!r->bruns)
		return ft_error_set(err, FT_ENOMEM, "out of memory");
	for (i = 0; i < r->base.len; i++)
		r->bruns[i] = &FT_VEC_AT(&r->base, struct ft_archive_record, i).run;
	rc = ft_compare_runs(&r->in.run->run, r->bruns, r->base.len, opts, &r->cmp, err);
	if (rc < 0)
		return rc;
	r->have_cmp = true;
	newest = ft_vec_at(&r->base, r->base.len - 1);
	r->in.baseline = r->bruns;
	r->in.nbaseline = r->base.len;
	r->in.baseline_label = r->base_label;
	r->in.cmp = &r->cmp;
	if (ft_fingerprint_len(&newest->fp) && ft_fingerprint_len(&r->in.run->fp))
		r->in.baseline_fp = &newest->fp;
	return 0;
}

int
ft_workflow_report_prepare(struct ft_archive **ar, const char *archive_path, const char *run_ref,
                           const char *vs_ref, const char *expected_ref,
                           const struct ft_compare_opts *opts, bool stable,
                           struct ft_workflow_report *r, struct ft_error *err)
{
	char label[200];
	int rc;

	memset(r, 0, sizeof(*r));
	ft_vec_init(&r->cur, sizeof(struct ft_archive_record));
	ft_vec_init(&r->base, sizeof(struct ft_archive_record));
	ft_vec_init(&r->expected, sizeof(struct ft_archive_record));
	rc = ft_workflow_load_ref(ar, archive_path, run_ref, false, &r->cur, r->cur_label,
	                          sizeof(r->cur_label), err);
	if (rc == 0 && vs_ref)
		rc = ft_workflow_load_ref(ar, archive_path, vs_ref, true, &r->base, r->base_label,
		                          sizeof(r->base_label), err);
	if (rc == 0 && expected_ref)
		rc = ft_workflow_load_ref(ar, archive_path, expected_ref, false, &r->expected, label,
		                          sizeof(label), err);
	if (rc < 0) {
		if (rc == FT_ENOENT && vs_ref && strcmp(vs_ref, "default") == 0 && !r->base.len &&
		    r->cur.len) {
			ft_error_clear(err);
			ft_error_set(err, rc,
			             "no baseline 'default' in the archive: name one with "
			             "'fabtune archive baseline add default RUN...', or give --vs");
		}
		return rc;
	}
	r->in.run = ft_vec_at(&r->cur, 0);
	r->in.stable = stable;
	if (r->expected.len)
		r->in.expected = &FT_VEC_AT(&r->expected, struct ft_archive_record, 0).run;
	return r->base.len ? compare(r, opts, err) : 0;
}

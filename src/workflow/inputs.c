/* SPDX-License-Identifier: MIT */
/*
 * workflow/inputs.c - the inputs of a diagnosis, gathered in one order for
 * every caller (diagnose, advise): tool outputs parsed into observations
 * and rows, expectations from a file and from the model, the fabric's
 * structure, a probe of this host, and the thresholds.
 */
#include "internal.h"

#include <fabtune/parse.h>
#include <fabtune/probe.h>
#include <fabtune/sim.h>
#include <fabtune/workflow.h>

#include "diag/advise_int.h"
#include "sim/sim_int.h"
#include "workflow/workflow_int.h"

void
ft_workflow_inputs_init(struct ft_workflow_inputs *in)
{
	memset(in, 0, sizeof(*in));
	ft_obs_set_init(&in->obs);
	ft_vec_init(&in->expect, sizeof(struct ft_expectation));
	ft_run_init(&in->rows, FT_SOURCE_IMPORT, "diagnose");
	ft_diag_thresholds_init(&in->thresholds);
	ft_vec_init(&in->paths, sizeof(struct ft_input_path));
	ft_vec_init(&in->unknown, sizeof(const char *));
}

void
ft_workflow_inputs_release(struct ft_workflow_inputs *in)
{
	ft_obs_set_release(&in->obs);
	ft_vec_release(&in->expect);
	ft_run_release(&in->rows);
	ft_input_paths_release(&in->paths);
	ft_vec_release(&in->unknown);
}

bool
ft_workflow_sources_probe(const struct ft_workflow_sources *src)
{
	return src->probe || src->root || src->interval_s > 0;
}

/*
 * One tool output: its observations, and its rows as rows and as
 * observations. A file found in a folder (@p->dir) in no known format is
 * listed in @in->unknown.
 */
static int
read_file(struct ft_workflow_inputs *in, const struct ft_input_path *p, const char *format,
          struct ft_error *err)
{
	const char *path = p->path;
	struct ft_run run;
	bool known = true;
	size_t r, from;
	int rc;

	ft_run_init(&run, FT_SOURCE_IMPORT, "");
	from = ft_obs_set_len(&in->obs);
	if (p->dir)
		rc = ft_parse_file_known(path, format, &in->obs, &run, &known, err);
	else
		rc = ft_parse_file(path, format, &in->obs, &run, err);
	if (rc == 0 && format && !p->dir) {
		struct ft_obs_set view = ft_parse_obs_since(&in->obs, from);

		/* a file named on the command line, read as the format named, that gave
		 * nothing: a wrong file or a wrong --format, not a healthy input */
		if (ft_parse_read_nothing(&view, &run)) {
			ft_run_release(&run);
			return ft_error_set(err, FT_EPARSE,
			                    "%s: no line of it reads as %s (%zu passed over; "
			                    "without --format the format is detected)",
			                    path, format, ft_obs_set_len(&view));
		}
	}
	if (rc == 0 && !known) {
		ft_run_release(&run);
		if (ft_vec_push(&in->unknown, &path) < 0)
			return ft_error_set(err, FT_ENOMEM, "out of memory");
		return 0;
	}
	if (rc == 0)
		rc = ft_diag_obs_from_run(&run, path, &in->obs);
	for (r = 0; rc == 0 && r < ft_run_nrows(&run); r++)
		if (ft_run_add(&in->rows, ft_run_row(&run, r)) < 0)
			rc = ft_error_set(err, FT_ENOMEM, "out of memory");
	ft_run_release(&run);
	if (rc == 0)
		in->nfiles++;
	return rc;
}

/* The model's expectations for the rows measured, and the fabric's structure. */
static int
read_spec(struct ft_workflow_inputs *in, const char *spec, struct ft_error *err)
{
	struct ft_cluster_spec cs;
	const char *host1;
	int rc;

	/* a scenario: its cluster (the what-if runs its traffic, diag/whatif.c) */
	rc = ft_scenario_cluster_resolve(spec, &cs, err);
	if (rc < 0)
		return rc;
	rc = ft__workflow_model_expectations_on(&cs, &in->rows, NULL,
	                                        ft__run_hosts(&in->obs, &host1), &in->expect,
	                                        NULL, &in->nmodel, err);
	if (rc < 0 && rc != FT_ENOMEM)
		return ft_error_set(err, rc, "%s: the model: %s", spec, ft_error_msg(err, rc));
	if (rc < 0)
		return rc;
	/* the fabric's structure, for the rules that judge it (PFC deadlock risk) */
	rc = ft_diag_obs_from_spec(&cs, spec, &in->obs);
	if (rc == 0)
		in->spec_done = true;
	return rc;
}

static int
probe(struct ft_workflow_inputs *in, const struct ft_workflow_sources *src, struct ft_error *err)
{
	struct ft_probe_cfg cfg = { 0 };
	int rc;

	cfg.root = src->root ? src->root : "/";
	/* Tools read the live host, not a captured tree. */
	cfg.run_tools = !src->root || strcmp(src->root, "/") == 0;
	cfg.interval_s = src->interval_s;
	cfg.host = NULL;
	rc = ft_probe_host(&cfg, &in->obs, err);
	if (rc == 0)
		in->nfiles++;
	return rc;
}

/* The tool outputs: each file, the folders' files; an error when the folders held none known. */
static int
read_files(const struct ft_workflow_sources *src, struct ft_workflow_inputs *in,
           struct ft_error *err)
{
	size_t i;
	int rc;

	rc = ft_input_paths_expand(src->files, src->nfiles, &in->paths, err);
	for (i = 0; rc == 0 && i < in->paths.len; i++)
		rc = read_file(in, ft_vec_at(&in->paths, i), src->format, err);
	if (rc < 0 || in->nfiles || src->nfiles == 0)
		return rc;
	/* nothing read and no error: every input was a folder */
	return ft_input_paths_none(src->files, src->nfiles, in->unknown.len, err);
}

static int
gather(const struct ft_workflow_sources *src, struct ft_workflow_inputs *in, struct ft_error *err)
{
	size_t i;
	int rc;

	rc = read_files(src, in, err);
	if (rc < 0)
		return rc;
	for (i = 0; i < ft_obs_set_len(&in->obs); i++)
		if (strcmp(ft_obs_set_at(&in->obs, i)->key, "parse.skipped") == 0)
			in->nskipped++;
	if (src->expect_file) {
		rc = ft_diag_expectations_read(src->expect_file, &in->expect, err);
		if (rc < 0)
			return rc;
	}
	if (src->spec) {
		rc = read_spec(in, src->spec, err);
		if (rc < 0)
			return rc;
	}
	if (ft_workflow_sources_probe(src)) {
		rc = probe(in, src, err);
		if (rc < 0)
			return rc;
	}
	if (src->thresholds) {
		rc = ft_diag_thresholds_read(src->thresholds, &in->thresholds, err);
		if (rc < 0)
			return rc;
		in->din.thresholds = &in->thresholds;
	}
	return 0;
}

int
ft_workflow_inputs_gather(const struct ft_workflow_sources *src, struct ft_workflow_inputs *in,
                          struct ft_error *err)
{
	int rc = gather(src, in, err);

	in->din.obs = &in->obs;
	in->din.expect = in->expect.data;
	in->din.nexpect = in->expect.len;
	return rc;
}

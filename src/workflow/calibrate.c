/* SPDX-License-Identifier: MIT */
/*
 * workflow/calibrate.c - calibrate the model against one nccl-tests output:
 * read the file, take its collective and rank count from its rows, fit.
 */
#include "internal.h"

#include <fabtune/model.h>
#include <fabtune/obs.h>
#include <fabtune/parse.h>
#include <fabtune/result.h>
#include <fabtune/workflow.h>

/* The rank count of the first row of @run testing @op; 0 when none. */
static uint32_t
run_nranks(const struct ft_run *run, enum ft_op op)
{
	size_t i;

	for (i = 0; i < ft_run_nrows(run); i++) {
		const struct ft_result_row *r = ft_run_row(run, i);
		enum ft_op o;

		if (ft_op_from_name(r->test, &o) == 0 && o == op && r->nranks)
			return r->nranks;
	}
	return 0;
}

int
ft_workflow_model_calibrate_file(const struct ft_cluster_spec *spec,
                                 const struct ft_model_query *q, bool op_given, const char *path,
                                 struct ft_model_calib *out, struct ft_error *err)
{
	struct ft_model_query one = *q;
	struct ft_obs_set obs;
	struct ft_run run;
	int rc;

	ft_obs_set_init(&obs);
	ft_run_init(&run, FT_SOURCE_IMPORT, "nccl-tests");
	rc = ft_parse_file(path, "nccl-tests", &obs, &run, err);
	if (rc == 0 && ft_run_nrows(&run) == 0)
		rc = ft_error_set(err, FT_EINVAL, "no nccl-tests result rows");
	if (rc == 0 && !op_given && ft_op_from_name(ft_run_row(&run, 0)->test, &one.op) < 0)
		rc = ft_error_set(err, FT_EINVAL, "%s: unknown test '%s'", path,
		                  ft_run_row(&run, 0)->test);
	if (rc == 0 && !one.ngpus)
		one.ngpus = run_nranks(&run, one.op);
	if (rc == 0)
		rc = ft_model_calibrate(spec, &one, &run, out, err);
	ft_run_release(&run);
	ft_obs_set_release(&obs);
	return rc;
}

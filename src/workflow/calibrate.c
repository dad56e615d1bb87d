/* SPDX-License-Identifier: MIT */
/*
 * workflow/calibrate.c - calibrate the model against one nccl-tests output:
 * read the file, take its collective and rank count from its rows, fit.
 */
#include "internal.h"

#include <fabtune/json.h>
#include <fabtune/model.h>
#include <fabtune/obs.h>
#include <fabtune/parse.h>
#include <fabtune/result.h>
#include <fabtune/workflow.h>

/*
 * Rows whose collective the file does not tell ("unknown": an excerpt
 * without command or header whose figures cannot name it) are the @op the
 * user named with --op.
 */
static void
name_unknown_rows(struct ft_run *run, enum ft_op op)
{
	for (size_t i = 0; i < ft_run_nrows(run); i++) {
		struct ft_result_row *r = ft_run_row(run, i);

		if (strcmp(r->test, "unknown") == 0)
			ft_strlcpy(r->test, ft_op_name(op), sizeof(r->test));
	}
}

/*
 * The rank count of the first row of @run testing @op, or with @want, of the
 * first on @want ranks; 0 when none.
 */
static uint32_t
run_nranks(const struct ft_run *run, enum ft_op op, uint32_t want)
{
	size_t i;

	for (i = 0; i < ft_run_nrows(run); i++) {
		const struct ft_result_row *r = ft_run_row(run, i);
		enum ft_op o;

		if (ft_op_from_name(r->test, &o) == 0 && o == op && r->nranks &&
		    (!want || r->nranks == want))
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
	if (rc == 0 && op_given)
		name_unknown_rows(&run, one.op);
	if (rc == 0 && !op_given && ft_op_from_name(ft_run_row(&run, 0)->test, &one.op) < 0)
		rc = ft_error_set(err, FT_EINVAL,
		                  "the collective of its rows is not known (test '%s'): name it "
		                  "with --op",
		                  ft_run_row(&run, 0)->test);
	/* --gpus names the rows' rank count; a file whose rows are all on another (its rank
	 * lines, or busbw / algbw where they are cut) says so rather than fitting nothing. */
	if (rc == 0 && one.ngpus && !run_nranks(&run, one.op, one.ngpus) &&
	    run_nranks(&run, one.op, 0))
		rc = ft_error_set(err, FT_EINVAL,
		                  "--gpus %u: the file's %s rows are on %u ranks (leave --gpus out "
		                  "to take the file's count)",
		                  one.ngpus, ft_op_name(one.op), run_nranks(&run, one.op, 0));
	if (rc == 0 && !one.ngpus)
		one.ngpus = run_nranks(&run, one.op, 0);
	if (rc == 0)
		rc = ft_model_calibrate(spec, &one, &run, out, err);
	ft_run_release(&run);
	ft_obs_set_release(&obs);
	return rc;
}

int
ft_workflow_model_calibrate_write(const struct ft_cluster_spec *spec,
                                  const struct ft_model_query *q, bool op_given,
                                  const char *const *files, size_t nfiles, bool json,
                                  struct ft_strbuf *sb, struct ft_error *err)
{
	struct ft_model_query cq = *q;
	struct ft_model_cache *own = NULL;
	struct ft_strbuf block;
	struct ft_json j;
	int rc = 0;

	/* the files are fitted on the same cluster: one cache for their queries (model.h
	 * ft_model_cache), an all-to-all's or a send/recv's shared links laid out once for
	 * every file of the same job shape; without memory for it, each fit's own (or none),
	 * to the same fits */
	if (!cq.cache)
		cq.cache = own = ft_model_cache_new();
	ft_strbuf_init(&block);
	if (json) {
		ft_json_init(&j, sb, false);
		ft_json_obj_begin(&j);
		ft_json_kv_str(&j, "spec", spec->name);
		ft_json_key(&j, "curves");
		ft_json_arr_begin(&j);
	} else {
		ft_strbuf_addf(sb, "# fabtune model --calibrate: %s\n#\n", spec->name);
	}
	ft_strbuf_adds(&block, "calibration:\n");
	for (size_t i = 0; i < nfiles && rc == 0; i++) {
		struct ft_model_calib c;

		rc = ft_workflow_model_calibrate_file(spec, &cq, op_given, files[i], &c, err);
		if (rc < 0) {
			ft_error_prefix(err, "%s: ", files[i]);
			break;
		}
		if (json)
			ft_model_calib_write_json(files[i], &c, &j);
		else
			ft_model_calib_write_text(files[i], &c, sb);
		ft_model_calib_write_block(&c, &block);
		ft_model_calib_release(&c);
	}
	/* a block cut short by an append without memory would be written as if whole */
	if (rc == 0 && block.oom)
		rc = ft_error_set(err, FT_ENOMEM, "calibration block: out of memory");
	if (rc == 0 && json) {
		ft_json_arr_end(&j);
		ft_json_kv_str(&j, "calibration_block", block.buf);
		ft_json_obj_end(&j);
		ft_strbuf_addch(sb, '\n');
	} else if (rc == 0) {
		ft_strbuf_adds(sb, "# calibration block:\n");
		ft_strbuf_adds(sb, block.buf);
	}
	ft_strbuf_release(&block);
	ft_model_cache_free(own);
	return rc;
}

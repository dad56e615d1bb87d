/* SPDX-License-Identifier: MIT */
/*
 * workflow/save.c - saving a run with its fingerprint, importing a tool's
 * output as a run, and the analytic model's expectations for measured rows:
 * what bench, model, sim, parse, diagnose, archive import and doctor share.
 */
#include "internal.h"

#include <fabtune/archive.h>
#include <fabtune/model.h>
#include <fabtune/parse.h>
#include <fabtune/workflow.h>

#include "workflow/workflow_int.h"

int
ft_workflow_save_run(struct ft_archive *ar, const struct ft_run *run, const struct ft_obs_set *obs,
                     const struct ft_finding *f, size_t nf, int64_t *id, struct ft_error *err)
{
	struct ft_fingerprint fp;
	int rc;

	ft_fingerprint_init(&fp);
	rc = ft_fingerprint_collect(&fp, err);
	/* What the observations tell (NCCL's version, the hosts of an imported log) completes or
	   replaces what this host shows. */
	if (rc == 0 && obs && ft_obs_set_len(obs) > 0 && ft_fingerprint_from_obs(&fp, obs) < 0)
		rc = ft_error_set(err, FT_ENOMEM, "fingerprint: out of memory");
	if (rc == 0)
		rc = ft_archive_save(ar, run, obs, f, nf, &fp, id, err);
	ft_fingerprint_release(&fp);
	return rc;
}

int
ft_workflow_import_text(struct ft_archive *ar, const char *path, const char *format,
                        const char *text, size_t len, struct ft_vec *ids, struct ft_error *err)
{
	const struct ft_parser *p = format ? ft_parser_find(format) : ft_parser_detect(text, len);
	struct ft_fingerprint fp;
	struct ft_obs_set obs;
	struct ft_run run;
	int64_t id;
	int rc;

	if (!p)
		return ft_error_set(
		        err, FT_EPARSE,
		        format ? "%s: unknown format '%s' (see 'fabtune parse --list')" :
		                 "%s: unrecognised format%s (not a fabtune export, and no "
		                 "parser knows it; give --format)",
		        path, format ? format : "");
	ft_run_init(&run, FT_SOURCE_IMPORT, p->name);
	ft_strlcpy(run.label, path, sizeof(run.label));
	ft_obs_set_init(&obs);
	ft_fingerprint_init(&fp);
	rc = ft_parse_buffer(text, len, path, p->name, &obs, &run, err);
	/* Where the output was taken, as far as it tells: not this host. */
	if (rc == 0 && ft_fingerprint_from_obs(&fp, &obs) < 0)
		rc = ft_error_set(err, FT_ENOMEM, "out of memory");
	if (rc == 0)
		rc = ft_archive_save(ar, &run, &obs, NULL, 0, &fp, &id, err);
	if (rc == 0 && ft_vec_push(ids, &id) < 0)
		rc = ft_error_set(err, FT_ENOMEM, "out of memory");
	ft_run_release(&run);
	ft_obs_set_release(&obs);
	ft_fingerprint_release(&fp);
	return rc;
}

/* A collective the model schedules; not sendrecv, GPU to GPU there, not host ranks. */
static int
test_op(const char *test, enum ft_op *op)
{
	if (ft_op_from_test(test, op) < 0 || *op == FT_OP_SENDRECV)
		return -1;
	return 0;
}

static bool
seen_point(const struct ft_run *measured, size_t upto, const struct ft_result_row *r)
{
	size_t i;

	for (i = 0; i < upto; i++) {
		const struct ft_result_row *p = ft_run_row(measured, i);

		if (p->bytes == r->bytes && p->nranks == r->nranks &&
		    strcmp(p->test, r->test) == 0 && strcmp(p->transport, r->transport) == 0)
			return true;
	}
	return false;
}

static int
add_point(const struct ft_result_row *r, const struct ft_model_result *res, struct ft_vec *expect,
          struct ft_run *model, struct ft_error *err)
{
	if (expect) {
		struct ft_expectation x;

		memset(&x, 0, sizeof(x));
		ft_strlcpy(x.test, r->test, sizeof(x.test));
		x.bytes = r->bytes;
		/* Where the latency term wins, busbw is a few MB/s printed with two
		   decimals: compare the time instead (kb NA-MODEL, NA-BUSBW). */
		if (strcmp(res->bottleneck, "latency") == 0)
			x.lat_us = res->time_s * 1e6;
		else
			x.busbw_GBps = res->busbw_Bps / 1e9; /* GB = 1e9 bytes */
		if (ft_vec_push(expect, &x) < 0)
			return ft_error_set(err, FT_ENOMEM, "expectations: out of memory");
	}
	if (model) {
		struct ft_result_row row;

		ft_result_row_init(&row);
		ft_model_result_to_row(res, &row);
		if (ft_run_add(model, &row) < 0)
			return ft_error_set(err, FT_ENOMEM, "expectations: out of memory");
	}
	return 0;
}

int
ft_workflow_model_expectations(const struct ft_cluster_spec *spec, const struct ft_run *measured,
                               const char *transport, struct ft_vec *expect, struct ft_run *model,
                               size_t *n, struct ft_error *err)
{
	return ft__workflow_model_expectations_on(spec, measured, transport, 0, expect, model, n,
	                                          err);
}

int
ft__workflow_model_expectations_on(const struct ft_cluster_spec *spec,
                                   const struct ft_run *measured, const char *transport,
                                   uint32_t hosts, struct ft_vec *expect, struct ft_run *model,
                                   size_t *n, struct ft_error *err)
{
	uint64_t total = ft_spec_ngpus(spec);
	size_t i, done = 0;
	int rc;

	for (i = 0; i < ft_run_nrows(measured); i++) {
		const struct ft_result_row *r = ft_run_row(measured, i);
		struct ft_model_query q;
		struct ft_model_result res;
		enum ft_op op;

		if (transport && strcmp(r->transport, transport) != 0)
			continue;
		if (r->bytes == 0 || test_op(r->test, &op) < 0 || seen_point(measured, i, r))
			continue;
		ft_model_query_init(&q, op, r->bytes);
		/* The measured rank count when the spec holds that many GPUs (kb NA-MODEL). */
		if (r->nranks > 1 && r->nranks <= total)
			q.ngpus = r->nranks;
		/* the run's hosts, when its lines name them, place its ranks: 4 ranks on 2
		   hosts are 2 per node, not 4 on one node of the spec */
		if (q.ngpus && hosts > 1 && r->nranks % hosts == 0 && hosts <= spec->nnodes &&
		    r->nranks / hosts <= spec->node.ngpus) {
			q.nnodes = hosts;
			q.ppn = r->nranks / hosts;
		}
		rc = ft_model_eval(spec, &q, &res, err);
		if (rc == FT_EINVAL || rc == FT_ERANGE) {
			/* a rank count the spec cannot place (not a whole number of nodes) */
			q.ngpus = 0;
			rc = ft_model_eval(spec, &q, &res, err);
		}
		if (rc < 0)
			return rc;
		rc = add_point(r, &res, expect, model, err);
		if (rc < 0)
			return rc;
		done++;
	}
	if (n)
		*n = done;
	return 0;
}

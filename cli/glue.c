/* SPDX-License-Identifier: MIT */
/*
 * cli/glue.c - saving results (--save) and the model's expectations for
 * measured results, shared by bench, model, sim, parse, diagnose and doctor.
 */
#include "glue.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int
cli_save_run_to(struct ft_archive *ar, const struct ft_run *run, const struct ft_obs_set *obs,
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
cli_save_run(struct cli_ctx *ctx, const struct ft_run *run, const struct ft_obs_set *obs,
             const struct ft_finding *f, size_t nf)
{
	struct ft_error err = { 0 };
	struct ft_archive *ar = NULL;
	int64_t id = 0;
	int rc;

	rc = ft_archive_open(ctx->archive && ctx->archive[0] ? ctx->archive : NULL, &ar, &err);
	if (rc == 0) {
		rc = cli_save_run_to(ar, run, obs, f, nf, &id, &err);
		if (rc == 0)
			fprintf(stderr, "fabtune %s: saved run %" PRId64 " to %s\n", ctx->cmd, id,
			        ft_archive_path(ar));
		ft_archive_close(ar);
	}
	if (rc < 0)
		cli_error(ctx, "--save: %s", ft_error_msg(&err, rc));
	return rc;
}

int
cli_check_output_path(const char *opt, const char *path, struct ft_error *err)
{
	char dir[4096];
	const char *slash;
	struct stat st;

	if (!path || strcmp(path, "-") == 0)
		return 0;
	if (!path[0])
		return ft_error_set(err, FT_EINVAL, "%s: empty file name", opt);
	if (strlen(path) >= sizeof(dir))
		return ft_error_set(err, FT_EINVAL, "%s %.64s...: path too long", opt, path);
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return ft_error_set(err, FT_EINVAL, "%s %s: is a folder, not a file", opt, path);
		if (access(path, W_OK) != 0)
			return ft_error_set(err, FT_EINVAL, "%s %s: the file is not writable", opt,
			                    path);
	}
	slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	if (stat(dir, &st) != 0)
		return ft_error_set(err, FT_ENOENT, "%s %s: folder %s does not exist", opt, path,
		                    dir);
	if (!S_ISDIR(st.st_mode))
		return ft_error_set(err, FT_EINVAL, "%s %s: %s is not a folder", opt, path, dir);
	if (access(dir, W_OK | X_OK) != 0)
		return ft_error_set(err, FT_EINVAL, "%s %s: folder %s is not writable", opt, path,
		                    dir);
	return 0;
}

int
cli_bench_obs(const struct ft_run *run, const char *file, struct ft_obs_set *obs)
{
	struct ft_run tmp;
	size_t i;
	int rc = 0;

	ft_run_init(&tmp, run->source, run->kind);
	for (i = 0; i < ft_run_nrows(run) && rc == 0; i++) {
		struct ft_result_row row = *ft_run_row(run, i);

		if (strcmp(row.test, "pairs") != 0)
			row.src[0] = row.dst[0] = '\0';
		rc = ft_run_add(&tmp, &row);
	}
	if (rc == 0)
		rc = ft_diag_obs_from_run(&tmp, file, obs);
	ft_run_release(&tmp);
	return rc;
}

/* "all_reduce_perf" and "all_reduce" name the same collective. */
static int
test_op(const char *test, enum ft_op *op)
{
	char name[32];
	size_t n;

	ft_strlcpy(name, test, sizeof(name));
	n = strlen(name);
	if (n > 5 && strcmp(name + n - 5, "_perf") == 0)
		name[n - 5] = '\0';
	if (strcmp(name, "sendrecv") == 0)
		return -1; /* point to point: the model's sendrecv is GPU to GPU, not host ranks */
	if (ft_op_from_name(name, op) < 0 || !ft_op_is_modelled(*op))
		return -1; /* bench-only tests: the model has no schedule for them */
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

int
cli_model_expectations(const struct ft_cluster_spec *spec, const struct ft_run *measured,
                       const char *transport, struct ft_vec *expect, struct ft_run *model,
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
		rc = ft_model_eval(spec, &q, &res, err);
		if (rc == FT_EINVAL || rc == FT_ERANGE) {
			/* a rank count the spec cannot place (not a whole number of nodes) */
			q.ngpus = 0;
			rc = ft_model_eval(spec, &q, &res, err);
		}
		if (rc < 0)
			return rc;
		if (expect) {
			struct ft_expectation x;

			memset(&x, 0, sizeof(x));
			ft_strlcpy(x.test, r->test, sizeof(x.test));
			x.bytes = r->bytes;
			/* Where the latency term wins, busbw is a few MB/s printed with two
			   decimals: compare the time instead (kb NA-MODEL, NA-BUSBW). */
			if (strcmp(res.bottleneck, "latency") == 0)
				x.lat_us = res.time_s * 1e6;
			else
				x.busbw_GBps = res.busbw_Bps / 1e9; /* GB = 1e9 bytes */
			if (ft_vec_push(expect, &x) < 0)
				return ft_error_set(err, FT_ENOMEM, "expectations: out of memory");
		}
		if (model) {
			struct ft_result_row row;

			ft_result_row_init(&row);
			ft_model_result_to_row(&res, &row);
			if (ft_run_add(model, &row) < 0)
				return ft_error_set(err, FT_ENOMEM, "expectations: out of memory");
		}
		done++;
	}
	if (n)
		*n = done;
	return 0;
}

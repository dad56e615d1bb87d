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
	return ft_workflow_save_run(ar, run, obs, f, nf, id, err);
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
	return ft_diag_obs_from_run(run, file, obs);
}

int
cli_model_expectations(const struct ft_cluster_spec *spec, const struct ft_run *measured,
                       const char *transport, struct ft_vec *expect, struct ft_run *model,
                       size_t *n, struct ft_error *err)
{
	return ft_workflow_model_expectations(spec, measured, transport, expect, model, n, err);
}

/* SPDX-License-Identifier: MIT */
/*
 * base/launch.c - the one launcher detection (fabtune/launch.h).
 *
 * Precedence follows specificity: Open MPI's own variables first (mpirun
 * also exports PMIx ones); then srun with a PMI plugin (Slurm variables plus
 * PMI_* or PMIX_*); then a PMI or PMIx launcher alone (MPICH's Hydra, Intel
 * MPI, prterun); then srun without PMI; then torchrun. A job of one process
 * (srun -n 1, torchrun --nproc-per-node 1) is a launch of size 1. Slurm's
 * tasks per node ("4(x2)") is no plain number: its local size stays unknown.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fabtune/launch.h>
#include <fabtune/units.h>

extern char **environ;

FT__NAME_TABLE(launcher_names, FT_LAUNCHER_MAP, FT_LAUNCHER_COUNT);

const char *
ft_launcher_name(enum ft_launcher l)
{
	return (unsigned)l < FT_LAUNCHER_COUNT ? launcher_names[l] : "unknown";
}

static const char *
env_get(char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (; envp && *envp; envp++)
		if (strncmp(*envp, name, n) == 0 && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

/* @name's value as a count into *@out; absent leaves *@out. FT_EINVAL when not a number. */
static int
env_u32(char *const *envp, const char *name, uint32_t *out, bool *found, struct ft_error *err)
{
	const char *v = env_get(envp, name);
	uint64_t x;

	if (found)
		*found = v != NULL;
	if (!v)
		return 0;
	if (ft_parse_u64(v, &x) < 0 || x > UINT32_MAX)
		return ft_error_set(err, FT_EINVAL,
		                    "environment: %s='%s': expected a non-negative integer", name, v);
	*out = (uint32_t)x;
	return 0;
}

static int
env_local(char *const *envp, const char *rank, const char *size, struct ft_launch *l,
          struct ft_error *err)
{
	uint32_t r = 0, n = 0;
	bool have_r, have_n = false;
	int rc = env_u32(envp, rank, &r, &have_r, err);

	if (rc == 0 && size)
		rc = env_u32(envp, size, &n, &have_n, err);
	if (rc == 0 && have_r)
		l->local_rank = (int32_t)FT_MIN(r, (uint32_t)INT32_MAX);
	if (rc == 0 && have_n)
		l->local_size = (int32_t)FT_MIN(n, (uint32_t)INT32_MAX);
	return rc;
}

/* Rank and size from two variables (@size NULL: the size is unknown). */
static int
env_world(char *const *envp, const char *rank, const char *size, struct ft_launch *l,
          struct ft_error *err)
{
	bool have_size = false;
	int rc = env_u32(envp, rank, &l->rank, NULL, err);

	l->size = 0;
	if (rc == 0 && size)
		rc = env_u32(envp, size, &l->size, &have_size, err);
	if (rc < 0)
		return rc;
	if (have_size && l->size == 0)
		return ft_error_set(err, FT_EINVAL, "environment: %s=0: a job has at least one process",
		                    size);
	if (have_size && l->rank >= l->size)
		return ft_error_set(err, FT_EINVAL,
		                    "environment: %s=%u is not below %s=%u", rank, l->rank, size,
		                    l->size);
	snprintf(l->vars, sizeof(l->vars), "%s=%u%s%s%s", rank, l->rank, have_size ? " " : "",
	         have_size ? size : "", have_size ? "=" : "");
	if (have_size) {
		size_t n = strlen(l->vars);

		snprintf(l->vars + n, sizeof(l->vars) - n, "%u", l->size);
	}
	return 0;
}

/* srun's task count: the step's, else the job's. */
static const char *
slurm_size_var(char *const *envp)
{
	if (env_get(envp, "SLURM_STEP_NUM_TASKS"))
		return "SLURM_STEP_NUM_TASKS";
	if (env_get(envp, "SLURM_NTASKS"))
		return "SLURM_NTASKS";
	return env_get(envp, "SLURM_NPROCS") ? "SLURM_NPROCS" : NULL;
}

int
ft_launch_detect(char *const *envp, struct ft_launch *out, struct ft_error *err)
{
	const char *slurm_size;
	bool slurm, pmi, pmix;
	int rc = 0;

	if (!envp)
		envp = environ;
	memset(out, 0, sizeof(*out));
	out->launcher = FT_LAUNCHER_NONE;
	out->size = 1;
	out->local_rank = out->local_size = -1;
	slurm_size = slurm_size_var(envp);
	/* SLURM_PROCID without a step is the batch script itself, not a task of srun */
	slurm = env_get(envp, "SLURM_PROCID") && slurm_size && env_get(envp, "SLURM_STEP_ID");
	pmi = env_get(envp, "PMI_RANK") != NULL;
	pmix = env_get(envp, "PMIX_RANK") != NULL;
	if (env_get(envp, "OMPI_COMM_WORLD_RANK") || env_get(envp, "OMPI_COMM_WORLD_SIZE")) {
		out->launcher = FT_LAUNCHER_OMPI;
		out->mpi = true;
		rc = env_world(envp, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", out, err);
		if (rc == 0)
			rc = env_local(envp, "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE",
			               out, err);
	} else if (slurm && (pmi || pmix)) {
		out->launcher = FT_LAUNCHER_SLURM_PMI;
		out->mpi = true;
		rc = env_world(envp, "SLURM_PROCID", slurm_size, out, err);
		if (rc == 0)
			rc = env_local(envp, "SLURM_LOCALID", NULL, out, err);
	} else if (pmi) {
		out->launcher = FT_LAUNCHER_PMI;
		out->mpi = true;
		rc = env_world(envp, "PMI_RANK", "PMI_SIZE", out, err);
		if (rc == 0)
			rc = env_local(envp, "MPI_LOCALRANKID", "MPI_LOCALNRANKS", out, err);
	} else if (pmix) {
		out->launcher = FT_LAUNCHER_PMIX;
		out->mpi = true;
		rc = env_world(envp, "PMIX_RANK", env_get(envp, "PMIX_SIZE") ? "PMIX_SIZE" : NULL,
		               out, err);
		if (rc == 0)
			rc = env_local(envp, "PMIX_LOCAL_RANK", "PMIX_LOCAL_SIZE", out, err);
	} else if (slurm) {
		out->launcher = FT_LAUNCHER_SLURM;
		rc = env_world(envp, "SLURM_PROCID", slurm_size, out, err);
		if (rc == 0)
			rc = env_local(envp, "SLURM_LOCALID", NULL, out, err);
	} else if (env_get(envp, "RANK") && env_get(envp, "WORLD_SIZE")) {
		const char *addr = env_get(envp, "MASTER_ADDR"), *port = env_get(envp, "MASTER_PORT");

		out->launcher = FT_LAUNCHER_TORCHRUN;
		rc = env_world(envp, "RANK", "WORLD_SIZE", out, err);
		if (rc == 0)
			rc = env_local(envp, "LOCAL_RANK", "LOCAL_WORLD_SIZE", out, err);
		if (rc == 0 && addr && port)
			snprintf(out->master, sizeof(out->master), "%s:%s", addr, port);
	}
	if (rc < 0) {
		enum ft_launcher l = out->launcher;

		memset(out, 0, sizeof(*out));
		out->launcher = l;
		out->size = 1;
		out->local_rank = out->local_size = -1;
		return rc;
	}
	return 0;
}

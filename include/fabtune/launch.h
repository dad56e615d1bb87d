/* SPDX-License-Identifier: MIT */
/*
 * fabtune/launch.h - the one launcher detection: who started this process,
 * as which rank of how many.
 *
 * Every command that runs as several processes (bench, probe, the sim sweep,
 * doctor) asks here, so they agree on what the environment says:
 *
 *   launcher     variables read                                   MPI world
 *   mpirun (Open MPI)  OMPI_COMM_WORLD_RANK/SIZE/LOCAL_RANK/LOCAL_SIZE  yes
 *   srun + PMI   SLURM_PROCID/SLURM_STEP_NUM_TASKS (or SLURM_NTASKS)
 *                with PMI_RANK/PMI_SIZE (pmi2) or PMIX_RANK (pmix)     yes
 *   mpiexec (PMI: MPICH/Hydra, Intel MPI)  PMI_RANK/PMI_SIZE,
 *                MPI_LOCALRANKID/MPI_LOCALNRANKS                      yes
 *   PMIx alone   PMIX_RANK (size from PMIX_SIZE when set)           yes
 *   srun without PMI  SLURM_PROCID, SLURM_STEP_NUM_TASKS or
 *                SLURM_NTASKS, SLURM_LOCALID                        no
 *   torchrun     RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE,
 *                MASTER_ADDR, MASTER_PORT                           no
 *
 * "MPI world" says whether MPI_Init() would join the other processes. Under
 * srun without PMI it would not: each task would be an MPI world of one, so a
 * command must refuse rather than silently run one rank. torchrun's tasks
 * join through fabtune's own TCP bootstrap at MASTER_ADDR.
 */
#ifndef FABTUNE_LAUNCH_H
#define FABTUNE_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

#include <fabtune/base.h>
#include <fabtune/error.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FT_LAUNCHER_MAP(X)                 \
	X(NONE, "none")                    \
	X(OMPI, "mpirun")                  \
	X(SLURM_PMI, "srun+pmi")           \
	X(PMI, "pmi")                      \
	X(PMIX, "pmix")                    \
	X(SLURM, "srun")                   \
	X(TORCHRUN, "torchrun")

enum ft_launcher {
#define FT_LAUNCHER_ENUM_(n, s) FT_LAUNCHER_##n,
	FT_LAUNCHER_MAP(FT_LAUNCHER_ENUM_)
#undef FT_LAUNCHER_ENUM_
	FT_LAUNCHER_COUNT
};
FT_API const char *ft_launcher_name(enum ft_launcher l);

struct ft_launch {
	enum ft_launcher launcher;
	uint32_t rank;	     /* this process, 0 when not launched */
	uint32_t size;	     /* processes in the job; 1 when not launched, 0 when unknown */
	int32_t local_rank;  /* on this host, -1 when the launcher does not say */
	int32_t local_size;  /* processes on this host, -1 when unknown */
	bool mpi;	     /* MPI_Init() joins the others (see the table above) */
	char master[128];    /* torchrun: "MASTER_ADDR:MASTER_PORT", "" otherwise */
	char vars[64];	     /* the variables that said so, for messages: "SLURM_NTASKS=4" */
};

/*
 * Read the launcher from @envp (NULL-terminated "NAME=value" strings; NULL
 * for the process environment). FT_EINVAL naming the variable when a value
 * is not a number or a rank is not below its size.
 */
FT_API int ft_launch_detect(char *const *envp, struct ft_launch *out,
                            struct ft_error *err) FT_MUST_CHECK;

/* More than one process, or an MPI launcher whose size is unknown. */
static inline bool
ft_launch_is_parallel(const struct ft_launch *l)
{
	return l->launcher != FT_LAUNCHER_NONE && l->size != 1;
}

/*
 * True for the process that speaks for its host: local rank 0, or, when the
 * launcher gives no local rank, every process (the caller deduplicates).
 */
static inline bool
ft_launch_is_host_leader(const struct ft_launch *l)
{
	return l->local_rank <= 0;
}

#ifdef __cplusplus
}
#endif
#endif

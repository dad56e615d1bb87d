/* SPDX-License-Identifier: MIT */
/*
 * fabtune/probe.h - read the fabric and host state of this machine.
 *
 * The probe reads sysfs directly (InfiniBand ports and counters, network
 * interfaces, PCIe links, NUMA nodes), optionally runs installed tools through
 * the parsers, and appends observations. @root lets it read a captured tree.
 */
#ifndef FABTUNE_PROBE_H
#define FABTUNE_PROBE_H

#include <stdbool.h>

#include <fabtune/error.h>
#include <fabtune/obs.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ft_probe_cfg {
	const char *root;  /* "/" or a captured tree */
	bool run_tools;    /* run nvidia-smi, ethtool -S, ibv_devinfo when installed */
	double interval_s; /* > 0: two snapshots, counter rates as `<key>.rate` per second */
	const char *host;  /* host name for the observations; NULL = gethostname() */
};

FT_API int ft_probe_host(const struct ft_probe_cfg *cfg, struct ft_obs_set *out,
                         struct ft_error *err);

/*
 * Only the RDMA devices under @root ("/" or a captured tree): the
 * /sys/class/infiniband part of ft_probe_host(), without the PCI tree, the
 * network interfaces or tools (what a fingerprint needs, cheaply). A tree
 * without the class adds nothing. 0 or FT_ENOMEM.
 */
FT_API int ft_probe_rdma_devices(const char *root, struct ft_obs_set *out, struct ft_error *err);

/*
 * The facts that say where a run happened, from @root ("/" or a captured
 * tree), as observations of the host (device "", or the module for a
 * driver's version): host.name, host.kernel, host.os, cpu.model, mem.total_bytes (also
 * numeric), gpu.driver (the NVIDIA driver's first line), driver.version per
 * loaded module of the network and GPU stack (mlx5_core, nvidia_peermem, ...),
 * nccl.conf.<NAME> per line of /etc/nccl.conf, and on the live host only
 * (from uname and sysconf) host.kernel_build, host.arch and cpu.count. Not
 * part of ft_probe_host(). What is missing adds nothing: 0 or FT_ENOMEM.
 */
FT_API int ft_probe_host_facts(const char *root, struct ft_obs_set *out, struct ft_error *err);

/* ---- multi-node ------------------------------------------------------------ */

/* True when this process was started by mpirun/srun (OMPI_COMM_WORLD_SIZE or PMI_SIZE set). */
FT_API bool ft_probe_under_mpi(void);
/*
 * Gather every rank's observations at rank 0 (MPI_Gather of the counts, then
 * MPI_Gatherv of the plain ft_obs records). Initializes and finalizes MPI.
 * On rank 0 @set ends with all ranks' observations in rank order; on the
 * others it is unchanged. *@rank gets this process's rank. FT_ENOTSUP when
 * built without MPI, FT_EMPI when an MPI call fails.
 */
FT_API int ft_probe_mpi_gather(struct ft_obs_set *set, int *rank, struct ft_error *err);

/*
 * Probe as `fabtune probe` does: this host, or when started by mpirun every
 * host (one rank per host probes, every rank takes part in the gather at
 * rank 0). *@rank gets this process's rank; only rank 0's @set holds the
 * observations. The launcher's, the probe's and the gather's errors.
 */
FT_API int ft_probe_hosts(const struct ft_probe_cfg *cfg, struct ft_obs_set *set, int *rank,
                          struct ft_error *err) FT_MUST_CHECK;

struct ft_strbuf;

/*
 * A probe's snapshot as one JSON object and a newline: the root read, the
 * interval (unless @stable or there was none) and the observations.
 */
FT_API void ft_probe_write_json(const struct ft_probe_cfg *cfg, const struct ft_obs_set *set,
                                bool stable, struct ft_strbuf *sb);

#ifdef __cplusplus
}
#endif
#endif

/* SPDX-License-Identifier: MIT */
/*
 * bench/cuda_int.h - the CUDA driver API as the bench module uses it
 * (cuda.c): one device per rank, device and pinned host memory, copies.
 * Device addresses are CUdeviceptr values, never dereferenced on the host.
 */
#ifndef FT_BENCH_CUDA_INT_H
#define FT_BENCH_CUDA_INT_H

#include "internal.h"

#include <fabtune/bench.h>

struct ft__cuda;

/* Load the driver, pick device @local_index modulo the count, make its primary context current. */
int ft__cuda_open(uint32_t local_index, struct ft__cuda **out, struct ft_error *err) FT_MUST_CHECK;
void ft__cuda_close(struct ft__cuda *c);
/* The device ordinal in use; its name into @name. */
int ft__cuda_device(const struct ft__cuda *c, char *name, size_t len);
int ft__cuda_alloc(struct ft__cuda *c, size_t bytes, uint64_t *dptr,
                   struct ft_error *err) FT_MUST_CHECK;
void ft__cuda_free(struct ft__cuda *c, uint64_t dptr);
/* Pinned host memory (cuMemHostAlloc), NULL when it cannot be had. */
void *ft__cuda_host_alloc(struct ft__cuda *c, size_t bytes);
void ft__cuda_host_free(struct ft__cuda *c, void *p);
/* Pin memory the transport allocated (shm's segment) for the copies; undone by unregister. */
int ft__cuda_host_register(struct ft__cuda *c, void *p, size_t bytes,
                           struct ft_error *err) FT_MUST_CHECK;
void ft__cuda_host_unregister(struct ft__cuda *c, void *p);
/*
 * A dmabuf file descriptor for @bytes of device memory at @dptr, for
 * ibv_reg_dmabuf_mr (GPUDirect RDMA without nvidia-peermem); the caller
 * closes it. FT_ENOTSUP, saying why, where the driver or the GPU cannot.
 * @dptr and @bytes must be aligned to the host page size.
 */
int ft__cuda_dmabuf_fd(struct ft__cuda *c, uint64_t dptr, size_t bytes, int *fd,
                       struct ft_error *err) FT_MUST_CHECK;
int ft__cuda_dtoh(struct ft__cuda *c, void *dst, uint64_t src, size_t bytes,
                  struct ft_error *err) FT_MUST_CHECK;
int ft__cuda_htod(struct ft__cuda *c, uint64_t dst, const void *src, size_t bytes,
                  struct ft_error *err) FT_MUST_CHECK;

/*
 * copy_matrix's SM rows (algo "sm"): a copy kernel (PTX, cuModuleLoadData,
 * cuLaunchKernel) moving -e bytes host -> every GPU, every GPU -> host (mapped
 * pinned memory) and between GPU pairs with peer access; rank 0 only.
 */
/*
 * Append one copy_matrix row (transport cuda): @algo "ce" (copy engine) or
 * "sm" (copy kernel), from @s to @d (-1 = host), @t seconds per copy of
 * @bytes over @iters copies, @wrong as checked (-1 when not).
 */
int ft__cuda_matrix_row(struct ft_bench_report *out, const char *algo, int s, int d,
                        uint64_t bytes, uint32_t iters, int64_t wrong, double t) FT_MUST_CHECK;
int ft__cuda_sm_matrix(const struct ft_bench_cfg *cfg, struct ft_bench_report *out,
                       struct ft_error *err) FT_MUST_CHECK;

#endif

/* SPDX-License-Identifier: MIT */
/*
 * tests/device/abi_check.c - compiled only where nccl.h and cuda_runtime.h
 * exist: proves that the declarations src/bench/nccl.c writes by hand (so
 * that fabtune never needs these headers) match the real ones.
 */
#include <cuda_runtime.h>
#include <nccl.h>

_Static_assert(ncclSuccess == 0, "ncclResult_t");
_Static_assert(ncclInt8 == 0 && ncclUint8 == 1 && ncclInt32 == 2 && ncclUint32 == 3,
               "ncclDataType_t integers");
_Static_assert(ncclInt64 == 4 && ncclUint64 == 5 && ncclFloat32 == 7 && ncclFloat64 == 8,
               "ncclDataType_t 64-bit and floating point");
_Static_assert(ncclSum == 0 && ncclProd == 1 && ncclMax == 2 && ncclMin == 3, "ncclRedOp_t");
#if defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= NCCL_VERSION(2, 11, 0)
_Static_assert(ncclFloat16 == 6 && ncclBfloat16 == 9, "ncclDataType_t 16-bit floating point");
_Static_assert(ncclAvg == 4 && ncclScalarHostImmediate == 1, "ncclAvg and the scalar residence");
_Static_assert(sizeof(ncclRedOp_t) == sizeof(int), "ncclRedOp_t is written through an int *");
static ncclResult_t (*const p_premulsum)(ncclRedOp_t *, void *, ncclDataType_t,
                                         ncclScalarResidence_t,
                                         ncclComm_t) = ncclRedOpCreatePreMulSum;
static ncclResult_t (*const p_redopdestroy)(ncclRedOp_t, ncclComm_t) = ncclRedOpDestroy;
#endif
_Static_assert(sizeof(ncclUniqueId) == 128, "ncclUniqueId is passed by value: 128 bytes");
_Static_assert(sizeof(ncclComm_t) == sizeof(void *), "ncclComm_t is a pointer");
_Static_assert(sizeof(cudaStream_t) == sizeof(void *), "cudaStream_t is a pointer");
_Static_assert(cudaSuccess == 0, "cudaError_t");
_Static_assert(cudaMemcpyHostToDevice == 1 && cudaMemcpyDeviceToHost == 2 &&
                       cudaMemcpyDeviceToDevice == 3 && cudaMemcpyDefault == 4,
               "cudaMemcpyKind");

/* The prototypes nccl.c calls through (enums passed as int have the same ABI). */
static ncclResult_t (*const p_allreduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t,
                                         ncclComm_t, cudaStream_t) = ncclAllReduce;
static ncclResult_t (*const p_allgather)(const void *, void *, size_t, ncclDataType_t, ncclComm_t,
                                         cudaStream_t) = ncclAllGather;
static ncclResult_t (*const p_reducescatter)(const void *, void *, size_t, ncclDataType_t,
                                             ncclRedOp_t, ncclComm_t,
                                             cudaStream_t) = ncclReduceScatter;
static ncclResult_t (*const p_bcast)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t,
                                     cudaStream_t) = ncclBroadcast;
static ncclResult_t (*const p_reduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t,
                                      int, ncclComm_t, cudaStream_t) = ncclReduce;
static ncclResult_t (*const p_send)(const void *, size_t, ncclDataType_t, int, ncclComm_t,
                                    cudaStream_t) = ncclSend;
static ncclResult_t (*const p_init)(ncclComm_t *, int, ncclUniqueId, int) = ncclCommInitRank;
static cudaError_t (*const p_memcpy)(void *, const void *, size_t,
                                     enum cudaMemcpyKind) = cudaMemcpy;
/* the copy matrix's */
static cudaError_t (*const p_mallochost)(void **, size_t) = cudaMallocHost;
static cudaError_t (*const p_freehost)(void *) = cudaFreeHost;
static cudaError_t (*const p_canpeer)(int *, int, int) = cudaDeviceCanAccessPeer;
static cudaError_t (*const p_enablepeer)(int, unsigned int) = cudaDeviceEnablePeerAccess;

int
main(void)
{
#if defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= NCCL_VERSION(2, 11, 0)
	if (!(p_premulsum && p_redopdestroy))
		return 1;
#endif
	return !(p_allreduce && p_allgather && p_reducescatter && p_bcast && p_reduce && p_send &&
	         p_init && p_memcpy && p_mallochost && p_freehost && p_canpeer && p_enablepeer);
}

/* SPDX-License-Identifier: MIT */
/*
 * bench/cuda.c - the CUDA driver API loaded by dlopen(): device memory for
 * --gpu-buffers and the SM copy kernel of the copy matrix.
 *
 * As in nccl.c, no CUDA header is needed: the entry points used are declared
 * below with the C signatures the driver has kept since CUDA 11 (the _v2
 * names are the ones cuda.h maps the plain names to). libcuda.so.1, or
 * $FABTUNE_CUDA_LIBRARY, is opened on first use; whatever fails becomes
 * FT_ENOTSUP with a message naming what was tried.
 *
 * Each rank takes the device of its index among the ranks of its host,
 * modulo the number of devices, and works in that device's primary context
 * (the one the CUDA runtime shares).
 */
#include <dlfcn.h>

#include "cuda_int.h"

typedef int cu_result_t; /* CUresult: 0 = CUDA_SUCCESS */

struct ft__cuda {
	void *lib;
	int dev;
	void *ctx;
	char name[96];
	cu_result_t (*Init)(unsigned flags);
	cu_result_t (*DeviceGetCount)(int *n);
	cu_result_t (*DeviceGet)(int *dev, int ordinal);
	cu_result_t (*DeviceGetName)(char *name, int len, int dev);
	cu_result_t (*DevicePrimaryCtxRetain)(void **ctx, int dev);
	cu_result_t (*DevicePrimaryCtxRelease)(int dev);
	cu_result_t (*CtxSetCurrent)(void *ctx);
	cu_result_t (*CtxSynchronize)(void);
	cu_result_t (*MemAlloc)(uint64_t *dptr, size_t bytes);
	cu_result_t (*MemFree)(uint64_t dptr);
	cu_result_t (*MemHostAlloc)(void **p, size_t bytes, unsigned flags);
	cu_result_t (*MemFreeHost)(void *p);
	cu_result_t (*MemHostRegister)(void *p, size_t bytes, unsigned flags);
	cu_result_t (*MemHostUnregister)(void *p);
	cu_result_t (*MemcpyDtoH)(void *dst, uint64_t src, size_t bytes);
	cu_result_t (*MemcpyHtoD)(uint64_t dst, const void *src, size_t bytes);
	cu_result_t (*MemcpyDtoD)(uint64_t dst, uint64_t src, size_t bytes);
	cu_result_t (*GetErrorString)(cu_result_t e, const char **s);
	cu_result_t (*ModuleLoadData)(void **mod, const void *image);
	cu_result_t (*ModuleGetFunction)(void **fn, void *mod, const char *name);
	cu_result_t (*ModuleUnload)(void *mod);
	cu_result_t (*LaunchKernel)(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
	                            unsigned by, unsigned bz, unsigned shmem, void *stream,
	                            void **params, void **extra);
};

#define CU_SYM(field, name)                            \
	{                                              \
		offsetof(struct ft__cuda, field), name \
	}

static const struct {
	size_t off;
	const char *name;
} cu_syms[] = {
	CU_SYM(Init, "cuInit"),
	CU_SYM(DeviceGetCount, "cuDeviceGetCount"),
	CU_SYM(DeviceGet, "cuDeviceGet"),
	CU_SYM(DeviceGetName, "cuDeviceGetName"),
	CU_SYM(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
	CU_SYM(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
	CU_SYM(CtxSetCurrent, "cuCtxSetCurrent"),
	CU_SYM(CtxSynchronize, "cuCtxSynchronize"),
	CU_SYM(MemAlloc, "cuMemAlloc_v2"),
	CU_SYM(MemFree, "cuMemFree_v2"),
	CU_SYM(MemHostAlloc, "cuMemHostAlloc"),
	CU_SYM(MemFreeHost, "cuMemFreeHost"),
	CU_SYM(MemHostRegister, "cuMemHostRegister_v2"),
	CU_SYM(MemHostUnregister, "cuMemHostUnregister"),
	CU_SYM(MemcpyDtoH, "cuMemcpyDtoH_v2"),
	CU_SYM(MemcpyHtoD, "cuMemcpyHtoD_v2"),
	CU_SYM(MemcpyDtoD, "cuMemcpyDtoD_v2"),
	CU_SYM(GetErrorString, "cuGetErrorString"),
	CU_SYM(ModuleLoadData, "cuModuleLoadData"),
	CU_SYM(ModuleGetFunction, "cuModuleGetFunction"),
	CU_SYM(ModuleUnload, "cuModuleUnload"),
	CU_SYM(LaunchKernel, "cuLaunchKernel"),
};

static int
cu_fail(struct ft__cuda *c, struct ft_error *err, int code, const char *call, cu_result_t r)
{
	const char *s = NULL;

	if (c->GetErrorString && c->GetErrorString(r, &s) != 0)
		s = NULL;
	return ft_error_set(err, code, "%s failed: %s (CUresult %d)", call, s ? s : "unknown error",
	                    r);
}

int
ft__cuda_open(uint32_t local_index, struct ft__cuda **out, struct ft_error *err)
{
	static const char *const names[] = { "libcuda.so.1", "libcuda.so" };
	const char *over = getenv("FABTUNE_CUDA_LIBRARY");
	struct ft__cuda *c;
	cu_result_t r;
	size_t i;
	int n = 0;

	*out = NULL;
	c = ft_calloc(1, sizeof(*c));
	if (!c)
		return FT_ENOMEM;
	if (over && *over) {
		c->lib = dlopen(over, RTLD_NOW | RTLD_LOCAL);
		if (!c->lib) {
			ft_error_set(err, FT_ENOTSUP, "FABTUNE_CUDA_LIBRARY=%s: %s", over, dlerror());
			goto fail;
		}
	}
	for (i = 0; !c->lib && i < FT_ARRAY_SIZE(names); i++)
		c->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!c->lib) {
		ft_error_set(err, FT_ENOTSUP, "no CUDA driver (libcuda.so.1, libcuda.so: not found)");
		goto fail;
	}
	for (i = 0; i < FT_ARRAY_SIZE(cu_syms); i++) {
		void *f = dlsym(c->lib, cu_syms[i].name);

		if (!f) {
			ft_error_set(err, FT_ENOTSUP, "the CUDA driver has no %s (need CUDA 11+)",
			             cu_syms[i].name);
			goto fail;
		}
		memcpy((char *)c + cu_syms[i].off, &f, sizeof(f));
	}
	if ((r = c->Init(0)) != 0) {
		cu_fail(c, err, FT_ENOTSUP, "cuInit", r);
		goto fail;
	}
	if ((r = c->DeviceGetCount(&n)) != 0 || n <= 0) {
		if (r)
			cu_fail(c, err, FT_ENOTSUP, "cuDeviceGetCount", r);
		else
			ft_error_set(err, FT_ENOTSUP, "the CUDA driver sees no GPU");
		goto fail;
	}
	if ((r = c->DeviceGet(&c->dev, (int)(local_index % (uint32_t)n))) != 0 ||
	    (r = c->DevicePrimaryCtxRetain(&c->ctx, c->dev)) != 0) {
		cu_fail(c, err, FT_ENOTSUP, "cuDeviceGet/cuDevicePrimaryCtxRetain", r);
		goto fail;
	}
	if ((r = c->CtxSetCurrent(c->ctx)) != 0) {
		c->DevicePrimaryCtxRelease(c->dev);
		cu_fail(c, err, FT_ENOTSUP, "cuCtxSetCurrent", r);
		goto fail;
	}
	if (c->DeviceGetName(c->name, (int)sizeof(c->name), c->dev) != 0)
		ft_strlcpy(c->name, "?", sizeof(c->name));
	c->name[sizeof(c->name) - 1] = '\0';
	*out = c;
	return 0;
fail:
	if (c->lib)
		dlclose(c->lib);
	ft_free(c);
	return FT_ENOTSUP;
}

void
ft__cuda_close(struct ft__cuda *c)
{
	if (!c)
		return;
	(void)c->CtxSynchronize();
	(void)c->DevicePrimaryCtxRelease(c->dev);
	dlclose(c->lib);
	ft_free(c);
}

int
ft__cuda_device(const struct ft__cuda *c, char *name, size_t len)
{
	if (name)
		ft_strlcpy(name, c->name, len);
	return c->dev;
}

int
ft__cuda_alloc(struct ft__cuda *c, size_t bytes, uint64_t *dptr, struct ft_error *err)
{
	cu_result_t r = c->MemAlloc(dptr, bytes ? bytes : 1);

	return r ? cu_fail(c, err, FT_ENOMEM, "cuMemAlloc", r) : 0;
}

void
ft__cuda_free(struct ft__cuda *c, uint64_t dptr)
{
	if (dptr)
		(void)c->MemFree(dptr);
}

void *
ft__cuda_host_alloc(struct ft__cuda *c, size_t bytes)
{
	void *p = NULL;

	/* flags 0: pinned, visible to this context only, as a staging buffer needs */
	return c->MemHostAlloc(&p, bytes ? bytes : 1, 0) == 0 ? p : NULL;
}

void
ft__cuda_host_free(struct ft__cuda *c, void *p)
{
	if (p)
		(void)c->MemFreeHost(p);
}

int
ft__cuda_host_register(struct ft__cuda *c, void *p, size_t bytes, struct ft_error *err)
{
	cu_result_t r = c->MemHostRegister(p, bytes ? bytes : 1, 0);

	return r ? cu_fail(c, err, FT_ENOMEM, "cuMemHostRegister", r) : 0;
}

void
ft__cuda_host_unregister(struct ft__cuda *c, void *p)
{
	if (p)
		(void)c->MemHostUnregister(p);
}

int
ft__cuda_dtoh(struct ft__cuda *c, void *dst, uint64_t src, size_t bytes, struct ft_error *err)
{
	cu_result_t r = bytes ? c->MemcpyDtoH(dst, src, bytes) : 0;

	return r ? cu_fail(c, err, FT_EIO, "cuMemcpyDtoH", r) : 0;
}

int
ft__cuda_htod(struct ft__cuda *c, uint64_t dst, const void *src, size_t bytes,
              struct ft_error *err)
{
	cu_result_t r = bytes ? c->MemcpyHtoD(dst, src, bytes) : 0;

	return r ? cu_fail(c, err, FT_EIO, "cuMemcpyHtoD", r) : 0;
}

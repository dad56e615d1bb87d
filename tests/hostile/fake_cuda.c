/* SPDX-License-Identifier: MIT */
/*
 * tests/hostile/fake_cuda.c - a test double of the CUDA driver (libcuda),
 * loaded by the bench module through FABTUNE_CUDA_LIBRARY, to check the calls
 * --gpu-buffers and the SM copy rows make where no GPU exists.
 *
 * Device memory is host memory, but the CUdeviceptr handed out is the host
 * address with its top bit flipped: a non-canonical address, so a device
 * pointer that reaches a host memcpy faults at once instead of passing.
 * Every copy must lie inside one allocation (device side) and, for the host
 * side, inside pinned memory (cuMemHostAlloc or cuMemHostRegister), else it
 * is counted as "bad" or "pageable". cuModuleLoadData accepts PTX text with
 * a .entry; cuLaunchKernel runs the copy kernel's contract on the host
 * (parameters: destination, source, 16-byte words).
 *
 * FAKE_CUDA_DEVICES=N: the number of devices (default 1; 0 = none, as on a
 * host whose driver sees no GPU). FAKE_CUDA_PEER=0: no peer access between
 * devices. FAKE_CUDA_CORRUPT=1: the copy kernel flips a bit of the last byte
 * it writes. FAKE_CUDA_DMABUF=0: the GPU exports no dmabuf
 * (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED 0, cuMemGetHandleForAddressRange
 * fails); otherwise the handle is a file descriptor open on /dev/null, for a
 * page-aligned range inside one allocation (allocations are 64 KiB aligned,
 * as the driver's). FAKE_CUDA_TRACE=1: when the library is
 * unloaded, one line of counts per process on stderr:
 * "fake cuda: alloc A free F hostalloc H freehost FH register R unregister U
 * dtoh D htod U dtod DD launches L modules M bad B pageable P".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))
#define DEV_BIT (1ULL << 63)
#define MAXREG 256

struct region {
	char *p;
	size_t n;
	int kind; /* 1 device, 2 pinned host (ours), 3 registered */
};

static struct region regs[MAXREG];
static long n_alloc, n_free, n_hostalloc, n_freehost, n_register, n_unregister, n_dtoh, n_htod,
        n_dtod, n_launch, n_module, n_bad, n_pageable;
static int ctx_dummy;

static int
add(char *p, size_t n, int kind)
{
	int i;

	for (i = 0; i < MAXREG; i++)
		if (!regs[i].p) {
			regs[i].p = p;
			regs[i].n = n;
			regs[i].kind = kind;
			return 0;
		}
	return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
}

static struct region *
find(const char *p, size_t n, int kind)
{
	int i;

	for (i = 0; i < MAXREG; i++)
		if (regs[i].p && regs[i].kind == kind && p >= regs[i].p &&
		    p + n <= regs[i].p + regs[i].n)
			return &regs[i];
	return NULL;
}

static char *
dev(unsigned long long d)
{
	return (char *)(uintptr_t)(d ^ DEV_BIT);
}

static int
check_dev(unsigned long long d, size_t n)
{
	/* device memory, or pinned host memory mapped into the device's space */
	if (!(d & DEV_BIT) || (!find(dev(d), n, 1) && !find(dev(d), n, 2))) {
		n_bad++;
		return 1; /* CUDA_ERROR_INVALID_VALUE */
	}
	return 0;
}

static void
check_host(const void *h, size_t n)
{
	if (!find(h, n, 2) && !find(h, n, 3))
		n_pageable++;
}

EXPORT int cuInit(unsigned flags);
EXPORT int cuDeviceGetCount(int *n);
EXPORT int cuDeviceGet(int *d, int ordinal);
EXPORT int cuDeviceGetName(char *name, int len, int d);
EXPORT int cuDevicePrimaryCtxRetain(void **ctx, int d);
EXPORT int cuDevicePrimaryCtxRelease_v2(int d);
EXPORT int cuCtxSetCurrent(void *ctx);
EXPORT int cuCtxSynchronize(void);
EXPORT int cuMemAlloc_v2(unsigned long long *d, size_t n);
EXPORT int cuMemFree_v2(unsigned long long d);
EXPORT int cuMemHostAlloc(void **p, size_t n, unsigned flags);
EXPORT int cuMemFreeHost(void *p);
EXPORT int cuMemHostRegister_v2(void *p, size_t n, unsigned flags);
EXPORT int cuMemHostUnregister(void *p);
EXPORT int cuMemcpyDtoH_v2(void *h, unsigned long long d, size_t n);
EXPORT int cuMemcpyHtoD_v2(unsigned long long d, const void *h, size_t n);
EXPORT int cuMemcpyDtoD_v2(unsigned long long dst, unsigned long long src, size_t n);
EXPORT int cuGetErrorString(int e, const char **s);
EXPORT int cuDeviceGetAttribute(int *v, int attr, int d);
EXPORT int cuMemGetHandleForAddressRange(void *handle, unsigned long long d, size_t n, int type,
                                         unsigned long long flags);
EXPORT int cuModuleLoadData(void **mod, const void *image);
EXPORT int cuModuleGetFunction(void **fn, void *mod, const char *name);
EXPORT int cuModuleUnload(void *mod);
EXPORT int cuDeviceCanAccessPeer(int *can, int d, int peer);
EXPORT int cuCtxEnablePeerAccess(void *ctx, unsigned flags);
EXPORT int cuMemHostGetDevicePointer_v2(unsigned long long *d, void *p, unsigned flags);
EXPORT int cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                          unsigned by, unsigned bz, unsigned shmem, void *stream, void **params,
                          void **extra);

static int
ndev(void)
{
	const char *e = getenv("FAKE_CUDA_DEVICES");

	return e ? atoi(e) : 1;
}

int
cuInit(unsigned flags)
{
	return flags ? 1 : 0;
}

int
cuDeviceGetCount(int *n)
{
	*n = ndev();
	return 0;
}

int
cuDeviceGet(int *d, int ordinal)
{
	if (ordinal < 0 || ordinal >= ndev())
		return 101; /* CUDA_ERROR_INVALID_DEVICE */
	*d = ordinal;
	return 0;
}

int
cuDeviceGetName(char *name, int len, int d)
{
	snprintf(name, (size_t)len, "Fake GPU %d", d);
	return 0;
}

int
cuDevicePrimaryCtxRetain(void **ctx, int d)
{
	(void)d;
	*ctx = &ctx_dummy;
	return 0;
}

int
cuDevicePrimaryCtxRelease_v2(int d)
{
	(void)d;
	return 0;
}

int
cuCtxSetCurrent(void *ctx)
{
	return ctx == &ctx_dummy ? 0 : 201; /* CUDA_ERROR_INVALID_CONTEXT */
}

int
cuCtxSynchronize(void)
{
	return 0;
}

int
cuMemAlloc_v2(unsigned long long *d, size_t n)
{
	size_t whole = ((n ? n : 1) + 65535) & ~(size_t)65535;
	char *p = aligned_alloc(65536, whole);

	if (p)
		memset(p, 0, whole);
	if (!p || add(p, n, 1)) {
		free(p);
		return 2;
	}
	n_alloc++;
	*d = (unsigned long long)(uintptr_t)p ^ DEV_BIT;
	return 0;
}

int
cuMemFree_v2(unsigned long long d)
{
	struct region *r = (d & DEV_BIT) ? find(dev(d), 0, 1) : NULL;

	if (!r || r->p != dev(d)) {
		n_bad++;
		return 1;
	}
	free(r->p);
	r->p = NULL;
	n_free++;
	return 0;
}

int
cuMemHostAlloc(void **p, size_t n, unsigned flags)
{
	char *q = calloc(1, n ? n : 1);

	(void)flags;
	if (!q || add(q, n, 2)) {
		free(q);
		return 2;
	}
	n_hostalloc++;
	*p = q;
	return 0;
}

int
cuMemFreeHost(void *p)
{
	struct region *r = find(p, 0, 2);

	if (!r || r->p != p) {
		n_bad++;
		return 1;
	}
	free(r->p);
	r->p = NULL;
	n_freehost++;
	return 0;
}

int
cuMemHostRegister_v2(void *p, size_t n, unsigned flags)
{
	(void)flags;
	if (find(p, n, 3)) {
		n_bad++;
		return 712; /* CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED */
	}
	n_register++;
	return add(p, n, 3);
}

int
cuMemHostUnregister(void *p)
{
	struct region *r = find(p, 0, 3);

	if (!r || r->p != p) {
		n_bad++;
		return 713; /* CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED */
	}
	r->p = NULL;
	n_unregister++;
	return 0;
}

int
cuMemcpyDtoH_v2(void *h, unsigned long long d, size_t n)
{
	if (check_dev(d, n))
		return 1;
	check_host(h, n);
	memcpy(h, dev(d), n);
	n_dtoh++;
	return 0;
}

int
cuMemcpyHtoD_v2(unsigned long long d, const void *h, size_t n)
{
	if (check_dev(d, n))
		return 1;
	check_host(h, n);
	memcpy(dev(d), h, n);
	n_htod++;
	return 0;
}

int
cuMemcpyDtoD_v2(unsigned long long dst, unsigned long long src, size_t n)
{
	if (check_dev(dst, n) || check_dev(src, n))
		return 1;
	memmove(dev(dst), dev(src), n);
	n_dtod++;
	return 0;
}

static int
dmabuf_ok(void)
{
	const char *e = getenv("FAKE_CUDA_DMABUF");

	return !(e && strcmp(e, "0") == 0);
}

int
cuDeviceGetAttribute(int *v, int attr, int d)
{
	*v = attr == 124 /* CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED */ ? dmabuf_ok() : 0;
	return 0;
}

int
cuMemGetHandleForAddressRange(void *handle, unsigned long long d, size_t n, int type,
                              unsigned long long flags)
{
	const char *p = dev(d);
	int fd, i, inside = 0;

	if (!dmabuf_ok())
		return 801; /* CUDA_ERROR_NOT_SUPPORTED */
	/* whole pages of one allocation, which spans whole 64 KiB pages */
	for (i = 0; i < MAXREG && (d & DEV_BIT); i++)
		inside |= regs[i].p && regs[i].kind == 1 && p >= regs[i].p &&
		          p + n <= regs[i].p + ((regs[i].n + 65535) & ~(size_t)65535);
	/* CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, no flags, host-page aligned */
	if (type != 1 || flags != 0 || d % 4096 != 0 || n % 4096 != 0 || !inside) {
		n_bad++;
		return 1;
	}
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 2;
	memcpy(handle, &fd, sizeof(fd));
	return 0;
}

int
cuGetErrorString(int e, const char **s)
{
	*s = e == 1 ? "invalid argument" : e == 2 ? "out of memory" : "fake error";
	return 0;
}

/* FAKE_CUDA_PEER=0: no GPU reaches another's memory (default: all do). */
int
cuDeviceCanAccessPeer(int *can, int d, int peer)
{
	const char *e = getenv("FAKE_CUDA_PEER");

	*can = d != peer && !(e && atoi(e) == 0);
	return 0;
}

int
cuCtxEnablePeerAccess(void *ctx, unsigned flags)
{
	return ctx == &ctx_dummy && flags == 0 ? 0 : 1;
}

int
cuMemHostGetDevicePointer_v2(unsigned long long *d, void *p, unsigned flags)
{
	if (flags || !find(p, 0, 2)) {
		n_bad++;
		return 1;
	}
	*d = (unsigned long long)(uintptr_t)p ^ DEV_BIT;
	return 0;
}

/* A module: the PTX text it was loaded from. */
int
cuModuleLoadData(void **mod, const void *image)
{
	const char *t = image;

	if (!t || !strstr(t, ".version") || !strstr(t, ".entry")) {
		n_bad++;
		return 218; /* CUDA_ERROR_INVALID_PTX */
	}
	*mod = strdup(t);
	n_module++;
	return *mod ? 0 : 2;
}

int
cuModuleGetFunction(void **fn, void *mod, const char *name)
{
	char want[128];

	snprintf(want, sizeof(want), ".entry %s(", name);
	if (!strstr(mod, want))
		return 500; /* CUDA_ERROR_NOT_FOUND */
	*fn = mod;
	return 0;
}

int
cuModuleUnload(void *mod)
{
	free(mod);
	return 0;
}

int
cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
               unsigned bz, unsigned shmem, void *stream, void **params, void **extra)
{
	unsigned long long dst, src, words;

	(void)fn;
	(void)shmem;
	(void)stream;
	(void)extra;
	if (!params || gx == 0 || bx == 0 || bx > 1024 || gy != 1 || gz != 1 || by != 1 ||
	    bz != 1) {
		n_bad++;
		return 1;
	}
	memcpy(&dst, params[0], sizeof(dst));
	memcpy(&src, params[1], sizeof(src));
	memcpy(&words, params[2], sizeof(words));
	if (check_dev(dst, words * 16) || check_dev(src, words * 16))
		return 1;
	memmove(dev(dst), dev(src), words * 16);
	/* FAKE_CUDA_CORRUPT=1: a kernel that gets its last word wrong */
	if (words && getenv("FAKE_CUDA_CORRUPT") && atoi(getenv("FAKE_CUDA_CORRUPT")) == 1)
		dev(dst)[words * 16 - 1] ^= 0x40;
	n_launch++;
	return 0;
}

__attribute__((destructor)) static void
report(void)
{
	const char *e = getenv("FAKE_CUDA_TRACE");
	char line[512];
	int n;

	if (!e || atoi(e) != 1)
		return;
	n = snprintf(line, sizeof(line),
	             "fake cuda: alloc %ld free %ld hostalloc %ld freehost %ld register %ld "
	             "unregister %ld dtoh %ld htod %ld dtod %ld launches %ld modules %ld bad %ld "
	             "pageable %ld\n",
	             n_alloc, n_free, n_hostalloc, n_freehost, n_register, n_unregister, n_dtoh,
	             n_htod, n_dtod, n_launch, n_module, n_bad, n_pageable);
	if (n > 0)
		(void)!write(2, line, (size_t)n);
}

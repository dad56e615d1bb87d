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

#include "bench_int.h"
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
	cu_result_t (*DeviceCanAccessPeer)(int *can, int dev, int peer);
	cu_result_t (*CtxEnablePeerAccess)(void *peer_ctx, unsigned flags);
	cu_result_t (*MemHostGetDevicePointer)(uint64_t *dptr, void *p, unsigned flags);
	cu_result_t (*LaunchKernel)(void *fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
	                            unsigned by, unsigned bz, unsigned shmem, void *stream,
	                            void **params, void **extra);
	/* optional (CUDA 11.7+), NULL on older drivers: dmabuf export for GPUDirect RDMA */
	cu_result_t (*MemGetHandleForAddressRange)(void *handle, uint64_t dptr, size_t bytes,
	                                           int type, unsigned long long flags);
	cu_result_t (*DeviceGetAttribute)(int *value, int attr, int dev);
};

static const struct {
	size_t off;
	const char *name;
} cu_optional[] = {
	{ offsetof(struct ft__cuda, MemGetHandleForAddressRange), "cuMemGetHandleForAddressRange" },
	{ offsetof(struct ft__cuda, DeviceGetAttribute), "cuDeviceGetAttribute" },
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
	CU_SYM(DeviceCanAccessPeer, "cuDeviceCanAccessPeer"),
	CU_SYM(CtxEnablePeerAccess, "cuCtxEnablePeerAccess"),
	CU_SYM(MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2"),
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
	for (i = 0; i < FT_ARRAY_SIZE(cu_optional); i++) {
		void *f = dlsym(c->lib, cu_optional[i].name);

		memcpy((char *)c + cu_optional[i].off, &f, sizeof(f));
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

/* CUdevice_attribute and CUmemRangeHandleType values of cuda.h (CUDA 11.7+) */
#define CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED 124
#define CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD   1

int
ft__cuda_dmabuf_fd(struct ft__cuda *c, uint64_t dptr, size_t bytes, int *fd,
                   struct ft_error *err)
{
	int ok = 0;
	cu_result_t r;

	*fd = -1;
	if (!c->MemGetHandleForAddressRange)
		return ft_error_set(err, FT_ENOTSUP,
		                    "the CUDA driver has no cuMemGetHandleForAddressRange (CUDA "
		                    "11.7+)");
	if (c->DeviceGetAttribute &&
	    (c->DeviceGetAttribute(&ok, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, c->dev) != 0 || !ok))
		return ft_error_set(err, FT_ENOTSUP,
		                    "GPU %d does not export dmabuf (CU_DEVICE_ATTRIBUTE_DMA_BUF_"
		                    "SUPPORTED is 0: the open kernel module is needed)",
		                    c->dev);
	r = c->MemGetHandleForAddressRange(fd, dptr, bytes, CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0);
	if (r != 0) {
		*fd = -1;
		return cu_fail(c, err, FT_ENOTSUP, "cuMemGetHandleForAddressRange", r);
	}
	return 0;
}

/* ---- SM copies: a copy kernel instead of the copy engine ------------------- */

/*
 * ft_copy(dst, src, words): copy @words 16-byte words with a grid-stride
 * loop, one 128-bit load and store per thread and step, as nvbandwidth's SM
 * copy kernels do. PTX for sm_70, which the driver compiles for the GPU at
 * hand (PTX ISA 7.0: CUDA 11.0 drivers and newer).
 */
static const char copy_ptx[] =
        ".version 7.0\n"
        ".target sm_70\n"
        ".address_size 64\n"
        "\n"
        ".visible .entry ft_copy(\n"
        "\t.param .u64 p_dst,\n"
        "\t.param .u64 p_src,\n"
        "\t.param .u64 p_words\n"
        ")\n"
        "{\n"
        "\t.reg .pred %p;\n"
        "\t.reg .b32 %r<5>;\n"
        "\t.reg .b32 %v<4>;\n"
        "\t.reg .b64 %rd<10>;\n"
        "\tld.param.u64 %rd1, [p_dst];\n"
        "\tld.param.u64 %rd2, [p_src];\n"
        "\tld.param.u64 %rd3, [p_words];\n"
        "\tcvta.to.global.u64 %rd1, %rd1;\n"
        "\tcvta.to.global.u64 %rd2, %rd2;\n"
        "\tmov.u32 %r1, %ctaid.x;\n"
        "\tmov.u32 %r2, %ntid.x;\n"
        "\tmov.u32 %r3, %tid.x;\n"
        "\tmul.wide.u32 %rd4, %r1, %r2;\n"
        "\tcvt.u64.u32 %rd5, %r3;\n"
        "\tadd.u64 %rd4, %rd4, %rd5;\n"
        "\tmov.u32 %r4, %nctaid.x;\n"
        "\tmul.wide.u32 %rd6, %r4, %r2;\n"
        "\tsetp.ge.u64 %p, %rd4, %rd3;\n"
        "\t@%p bra DONE;\n"
        "LOOP:\n"
        "\tshl.b64 %rd7, %rd4, 4;\n"
        "\tadd.u64 %rd8, %rd2, %rd7;\n"
        "\tadd.u64 %rd9, %rd1, %rd7;\n"
        "\tld.global.v4.u32 {%v0, %v1, %v2, %v3}, [%rd8];\n"
        "\tst.global.v4.u32 [%rd9], {%v0, %v1, %v2, %v3};\n"
        "\tadd.u64 %rd4, %rd4, %rd6;\n"
        "\tsetp.lt.u64 %p, %rd4, %rd3;\n"
        "\t@%p bra LOOP;\n"
        "DONE:\n"
        "\tret;\n"
        "}\n";

#define SM_THREADS 512u
#define SM_MAX_BLOCKS 4096u
#define CU_MEMHOSTALLOC_PORTABLE 0x01
#define CU_MEMHOSTALLOC_DEVICEMAP 0x02
#define CU_ERROR_PEER_ACCESS_ALREADY_ENABLED 704

struct sm_dev {
	void *ctx, *mod, *fn;
	uint64_t buf;
	bool retained;
};

static int
sm_launch(struct ft__cuda *c, struct sm_dev *g, uint64_t dst, uint64_t src, uint64_t words)
{
	uint64_t blocks = (words + SM_THREADS - 1) / SM_THREADS;
	void *params[3] = { &dst, &src, &words };

	blocks = FT_MIN(FT_MAX(blocks, 1u), SM_MAX_BLOCKS);
	return c->LaunchKernel(g->fn, (unsigned)blocks, 1, 1, SM_THREADS, 1, 1, 0, NULL, params,
	                       NULL);
}

/*
 * -c: one copy of a pattern from @src to @dst (@hsrc/@hdst: the host's mapped
 * buffer when that side is the host), read back and compared: the 16-byte
 * words that differ, or -1 when the copy itself failed.
 */
static int64_t
sm_check(struct ft__cuda *c, struct sm_dev *run, uint64_t dst, uint64_t src, void *hdst,
         void *hsrc, uint64_t words, char *want, char *got)
{
	size_t bytes = (size_t)words * 16, i;
	int64_t wrong = 0;

	for (i = 0; i < bytes; i++)
		want[i] = (char)(i * 31 + 7 + (i >> 12));
	if (hsrc)
		memcpy(hsrc, want, bytes);
	else if (c->MemcpyHtoD(src, want, bytes) != 0)
		return -1;
	if (sm_launch(c, run, dst, src, words) != 0 || c->CtxSynchronize() != 0)
		return -1;
	if (hdst)
		memcpy(got, hdst, bytes);
	else if (c->MemcpyDtoH(got, dst, bytes) != 0)
		return -1;
	for (i = 0; i < bytes; i += 16)
		wrong += memcmp(want + i, got + i, 16) != 0;
	return wrong;
}


int
ft__cuda_matrix_row(struct ft_bench_report *out, const char *algo, int s, int d, uint64_t bytes,
                    uint32_t iters, int64_t wrong, double t)
{
	struct ft_result_row row;

	ft_result_row_init(&row);
	ft_strlcpy(row.test, "copy_matrix", sizeof(row.test));
	ft_strlcpy(row.transport, "cuda", sizeof(row.transport));
	ft_strlcpy(row.algo, algo, sizeof(row.algo));
	snprintf(row.src, sizeof(row.src), s < 0 ? "host" : "gpu%d", s);
	snprintf(row.dst, sizeof(row.dst), d < 0 ? "host" : "gpu%d", d);
	row.bytes = row.count = bytes;
	row.nranks = 1;
	row.nsamples = iters;
	row.wrong = wrong;
	row.time_us = t * 1e6;
	row.algbw_GBps = row.busbw_GBps = t > 0 ? (double)bytes / t / 1e9 : 0;
	return ft_run_add(&out->run, &row);
}
int
ft__cuda_sm_matrix(const struct ft_bench_cfg *cfg, struct ft_bench_report *out,
                   struct ft_error *err)
{
	uint64_t words = cfg->max_bytes / 16, hdev = 0;
	size_t bytes = (size_t)words * 16;
	struct ft__cuda *c = NULL;
	struct sm_dev *g = NULL;
	void *host = NULL;
	char *want = NULL, *got = NULL;
	int n = 0, s, d, rc;
	cu_result_t r = 0;

	if (words == 0)
		return ft_error_set(err, FT_EINVAL,
		                    "copy_matrix: -e %" PRIu64 ": SM copies move 16-byte words",
		                    cfg->max_bytes);
	rc = ft__cuda_open(0, &c, err);
	if (rc < 0) {
		ft_error_prefix(err, "copy_matrix: SM copies: ");
		return rc;
	}
	(void)c->DeviceGetCount(&n);
	g = ft_calloc((size_t)n, sizeof(*g));
	if (cfg->check) {
		want = ft_malloc(bytes);
		got = ft_malloc(bytes);
	}
	if (!g || (cfg->check && (!want || !got))) {
		rc = FT_ENOMEM;
		goto out;
	}
	for (d = 0; d < n && rc == 0; d++) {
		const char *call = "cuDevicePrimaryCtxRetain";

		if ((r = c->DevicePrimaryCtxRetain(&g[d].ctx, d)) == 0) {
			g[d].retained = true;
			call = "cuModuleLoadData";
			if ((r = c->CtxSetCurrent(g[d].ctx)) == 0 &&
			    (r = c->ModuleLoadData(&g[d].mod, copy_ptx)) == 0) {
				call = "cuModuleGetFunction";
				if ((r = c->ModuleGetFunction(&g[d].fn, g[d].mod, "ft_copy")) == 0) {
					call = "cuMemAlloc";
					r = c->MemAlloc(&g[d].buf, bytes);
				}
			}
		}
		if (r) {
			rc = cu_fail(c, err, FT_EIO, call, r);
			ft_error_prefix(err, "copy_matrix: GPU %d: ", d);
		}
	}
	/* kernels write to peers directly: only where peer access is possible */
	for (s = 0; s < n && rc == 0; s++)
		for (d = 0; d < n; d++) {
			int can = 0;

			if (s != d && c->DeviceCanAccessPeer(&can, s, d) == 0 && can &&
			    c->CtxSetCurrent(g[s].ctx) == 0)
				(void)c->CtxEnablePeerAccess(g[d].ctx, 0);
		}
	if (rc == 0) {
		/* mapped into every context: the kernels read and write it over the bus */
		r = c->MemHostAlloc(&host, bytes,
		                    CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
		if (r == 0)
			r = c->MemHostGetDevicePointer(&hdev, host, 0);
		if (r)
			rc = cu_fail(c, err, FT_ENOMEM, "copy_matrix: mapped host memory", r);
	}
	/* index -1 is the host; the kernel runs on the source GPU, or on the destination
	   when the source is the host (nvbandwidth's write and host-to-device variants) */
	for (s = -1; s < n && rc == 0; s++)
		for (d = -1; d < n && rc == 0; d++) {
			struct sm_dev *run = &g[s >= 0 ? s : d];
			int64_t wrong = -1;
			uint64_t src = s < 0 ? hdev : g[s].buf, dst = d < 0 ? hdev : g[d].buf;
			int can = 1;
			uint32_t i;
			double t0, t;

			if (s == d)
				continue;
			if (s >= 0 && d >= 0 && (c->DeviceCanAccessPeer(&can, s, d) != 0 || !can))
				continue; /* no peer access: no SM row, as nvbandwidth waives it */
			r = c->CtxSetCurrent(run->ctx);
			if (r == 0 && cfg->check) {
				wrong = sm_check(c, run, dst, src, d < 0 ? host : NULL,
				                 s < 0 ? host : NULL, words, want, got);
				if (wrong < 0)
					r = 1; /* CUDA_ERROR_INVALID_VALUE: said below */
			}
			for (i = 0; r == 0 && i < cfg->warmup; i++)
				r = sm_launch(c, run, dst, src, words);
			if (r == 0)
				r = c->CtxSynchronize();
			t0 = ft__now();
			for (i = 0; r == 0 && i < cfg->iters; i++)
				r = sm_launch(c, run, dst, src, words);
			if (r == 0)
				r = c->CtxSynchronize();
			t = (ft__now() - t0) / FT_MAX(cfg->iters, 1u);
			if (r) {
				rc = cu_fail(c, err, FT_EIO, "cuLaunchKernel", r);
				ft_error_prefix(err, "copy_matrix: SM copy %s%d -> %s%d: ",
				                s < 0 ? "host" : "gpu", s, d < 0 ? "host" : "gpu", d);
				break;
			}
			rc = ft__cuda_matrix_row(out, "sm", s, d, bytes, cfg->iters, wrong, t);
		}
out:
	ft_free(want);
	ft_free(got);
	if (host)
		(void)c->MemFreeHost(host);
	for (d = 0; g && d < n; d++) {
		if (g[d].ctx && c->CtxSetCurrent(g[d].ctx) == 0) {
			if (g[d].buf)
				(void)c->MemFree(g[d].buf);
			if (g[d].mod)
				(void)c->ModuleUnload(g[d].mod);
		}
		if (g[d].retained)
			(void)c->DevicePrimaryCtxRelease(d);
	}
	ft_free(g);
	(void)c->CtxSetCurrent(c->ctx);
	ft__cuda_close(c);
	return rc;
}

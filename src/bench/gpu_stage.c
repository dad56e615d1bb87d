/* SPDX-License-Identifier: MIT */
/*
 * bench/gpu_stage.c - --gpu-buffers for the collectives and the run:
 * where the buffers are (ft__bench_gpu_setup, agreed by every rank), the
 * transport's host buffers, and the device buffers that mirror them when a
 * host transport stages (tcp, shm, ucx without CUDA support). The
 * point-to-point patterns stage their own messages (patterns.c).
 */
#include "bench_int.h"

#include <fabtune/coll.h>

#include "patterns.h"

/*
 * --gpu-buffers on a host transport (tcp, shm, ucx): the application's send
 * and receive buffers are device memory, and the transport works on pinned
 * host buffers of the same layout. Each operation copies its input down
 * (cuMemcpyDtoH) and its output up (cuMemcpyHtoD), and both copies are in the
 * measured time: what a GPU-resident application sees when its transport
 * cannot read device memory.
 */
struct ft__gpu_stage {
	struct ft__cuda *cu;
	char *host[2]; /* the transport's buffers: send, receive */
	uint64_t dev[2];
	size_t bytes[2];
};

/* The device address mirroring host address @p (0 for a pointer outside both buffers). */
static uint64_t
stage_dev(const struct ft__gpu_stage *g, const void *p)
{
	const char *c = p;
	int k;

	for (k = 0; k < 2; k++)
		if (c && c >= g->host[k] && c < g->host[k] + g->bytes[k])
			return g->dev[k] + (uint64_t)(c - g->host[k]);
	return 0;
}

/* Bytes the operation reads from its send buffer and writes to its receive buffer. */
static void
stage_bytes(const struct ft_bench_coll_args *a, uint32_t n, size_t *in, size_t *out)
{
	ft__bench_bufsizes(a->coll, a->count, ft_dtype_size(a->dtype), n, in, out);
}

/*
 * One copy between a transport buffer of @a and its device mirror: the input
 * (send buffer) or the @output (receive buffer), up to the device or down
 * from it, as many bytes as the operation reads or writes there.
 */
int
ft__bench_stage_copy(struct ft_bench_ctx *bc, const struct ft_bench_coll_args *a, bool up,
                     bool output, struct ft_error *err)
{
	struct ft__gpu_stage *g = bc->stage;
	char *buf = output ? a->recvbuf : (char *)a->sendbuf;
	size_t in, out, n;

	stage_bytes(a, bc->ep->w->nranks, &in, &out);
	n = output ? out : in;
	return up ? ft__cuda_htod(g->cu, stage_dev(g, buf), buf, n, err) :
	            ft__cuda_dtoh(g->cu, buf, stage_dev(g, buf), n, err);
}

/* The transport's buffer; pinned when device buffers are staged through it. */
char *
ft__bench_host_alloc(struct ft_bench_ctx *bc, struct ft_ep *ep, size_t bytes)
{
	if (bc->cuda && !ft__ep_own_memory(ep))
		return ft__cuda_host_alloc(bc->cuda, bytes);
	return ep->ops->mem_alloc(ep, bytes ? bytes : 1);
}

void
ft__bench_host_free(struct ft_bench_ctx *bc, struct ft_ep *ep, char *p, size_t bytes)
{
	bool pinned = bc->cuda && !ft__ep_own_memory(ep);

	if (!p || ft__ep_forget(ep, p, bytes, pinned ? FT__MEM_KEEP : ft__ep_mem_kind(ep)))
		return;
	if (pinned)
		ft__cuda_host_free(bc->cuda, p);
	else
		ep->ops->mem_free(ep, p);
}

void
ft__bench_stage_close(struct ft_bench_ctx *bc)
{
	struct ft__gpu_stage *g = bc->stage;
	int k;

	if (!g)
		return;
	for (k = 0; k < 2; k++) {
		ft__cuda_free(g->cu, g->dev[k]);
		if (ft__ep_own_memory(bc->ep) && g->host[k])
			ft__cuda_host_unregister(g->cu, g->host[k]);
	}
	ft_free(g);
	bc->stage = NULL;
}

/*
 * The device buffers mirroring the transport's @sbuf and @rbuf, which start
 * with their contents. Memory the transport placed itself (shm's segment) is
 * pinned in place; the others came from cuMemHostAlloc.
 */
int
ft__bench_stage_open(struct ft_bench_ctx *bc, char *sbuf, size_t sbytes, char *rbuf, size_t rbytes,
           struct ft_error *err)
{
	struct ft__gpu_stage *g;
	int k, rc = 0;

	if (!bc->cuda)
		return 0;
	g = ft_calloc(1, sizeof(*g));
	if (!g)
		return FT_ENOMEM;
	g->cu = bc->cuda;
	g->host[0] = sbuf;
	g->host[1] = rbuf;
	g->bytes[0] = sbytes ? sbytes : 1;
	g->bytes[1] = rbytes ? rbytes : 1;
	bc->stage = g;
	for (k = 0; k < 2 && rc == 0; k++) {
		rc = ft__cuda_alloc(g->cu, g->bytes[k], &g->dev[k], err);
		if (rc == 0 && ft__ep_own_memory(bc->ep)) {
			rc = ft__cuda_host_register(g->cu, g->host[k], g->bytes[k], err);
			if (rc < 0)
				g->host[k] = NULL; /* nothing to unregister */
		}
		if (rc == 0)
			rc = ft__cuda_htod(g->cu, g->dev[k], g->host[k], g->bytes[k], err);
	}
	if (rc < 0) {
		ft_error_prefix(err, "--gpu-buffers: ");
		ft__bench_stage_close(bc);
	}
	return rc;
}

/*
 * --gpu-buffers: where the buffers are, and the driver when this transport
 * stages. Every rank learns whether every rank has a GPU, so all fail alike.
 */
/*
 * GPUDirect RDMA over verbs: register a 64 KiB device buffer with the
 * adapter as the patterns' buffers will be; 1 when it went through dmabuf,
 * 2 through nvidia-peermem, or FT_ENOTSUP saying why neither did.
 */
static int
gpudirect_probe(struct ft_bench_ctx *bc, struct ft_error *err)
{
	const char *path = NULL;
	uint64_t d;
	int rc = ft__cuda_alloc(bc->cuda, 65536, &d, err);

	if (rc < 0)
		return rc;
	rc = ft__verbs_reg_cuda(bc->ep, bc->cuda, d, 65536, &path, err);
	if (rc == 0) {
		ft__verbs_unreg(bc->ep, d);
		rc = strcmp(path, "dmabuf") == 0 ? 1 : 2;
	}
	ft__cuda_free(bc->cuda, d);
	return rc;
}

int
ft__bench_gpu_setup(struct ft_bench_ctx *bc, struct ft_bench_report *out, struct ft_error *err)
{
	const char *tr = bc->ep->ops->name;
	struct ft_world *w = bc->w;
	struct ft_error mine = { 0 };
	int32_t ok[3] = { 0, 0, 0 }, *all;
	bool direct, verbs = strcmp(tr, "verbs") == 0, dmabuf = true;
	uint32_t idx = 0, i;
	int rc;

	if (strcmp(tr, "nccl") == 0) {
		/* NCCL reads and writes device memory itself: nothing to stage */
		ft_strlcpy(out->buffers, "device", sizeof(out->buffers));
		return 0;
	}
	if (strcmp(tr, "tcp") != 0 && strcmp(tr, "shm") != 0 && strcmp(tr, "ucx") != 0 && !verbs)
		return ft_error_set(err, FT_ENOTSUP,
		                    "--gpu-buffers: not available on the %s transport (tcp, shm "
		                    "and ucx stage through the host, verbs and nccl read GPU "
		                    "memory)",
		                    tr);
	if (verbs && ft_op_is_coll(bc->cfg->pattern))
		return ft_error_set(err, FT_ENOTSUP,
		                    "--gpu-buffers: not available for %s over verbs (fabtune's "
		                    "collectives reduce and copy on the host; the point-to-point "
		                    "patterns are)",
		                    ft_op_name(bc->cfg->pattern));
	if (!ft_op_is_coll(bc->cfg->pattern) && !ft__op_point_to_point(bc->cfg->pattern))
		return ft_error_set(err, FT_ENOTSUP,
		                    "--gpu-buffers: not available for %s (the collectives, "
		                    "pt2pt_bw, pt2pt_lat, pairs, bisection and incast are)",
		                    ft_op_name(bc->cfg->pattern));
	/* UCX with CUDA support takes device pointers; the collectives reduce and copy on
	   the host, so only the point-to-point patterns can hand them over */
	direct = verbs ||
	         (strcmp(tr, "ucx") == 0 && !ft_op_is_coll(bc->cfg->pattern) && ft__ucx_cuda(bc->ep));
	ft__world_local(w, &idx);
	ok[0] = ft__cuda_open(idx, &bc->cuda, &mine);
	if (ok[0] == 0 && verbs) {
		/* GPUDirect RDMA: the adapter must take the GPU's memory */
		ok[2] = gpudirect_probe(bc, &mine);
		ok[0] = FT_MIN(ok[2], 0);
	}
	ok[1] = direct;
	all = ft_calloc(w->nranks, sizeof(ok));
	if (!all) {
		ft__cuda_close(bc->cuda);
		bc->cuda = NULL;
		return FT_ENOMEM;
	}
	rc = ft__world_allgather(w, ok, sizeof(ok), all, err);
	for (i = 0; rc == 0 && i < w->nranks; i++) {
		char who[128];

		direct = direct && all[3 * i + 1];
		dmabuf = dmabuf && all[3 * i + 2] == 1;
		if (all[3 * i] == 0)
			continue;
		if (i == w->rank)
			rc = ft_error_set(err, FT_ENOTSUP, "--gpu-buffers: not available: %s",
			                  mine.msg);
		else
			rc = ft_error_set(err, FT_ENOTSUP,
			                  "--gpu-buffers: not available on %s (no usable GPU)",
			                  ft__world_who(w, i, who, sizeof(who)));
	}
	ft_free(all);
	if (rc < 0) {
		ft__cuda_close(bc->cuda);
		bc->cuda = NULL;
		return rc;
	}
	bc->gpu_direct = direct; /* every rank's UCX moves CUDA memory, or verbs registers it */
	ft_strlcpy(out->buffers,
	           verbs  ? (dmabuf ? "device-dmabuf" : "device-peermem") :
	           direct ? "device" :
	                    "device-staged",
	           sizeof(out->buffers));
	return 0;
}

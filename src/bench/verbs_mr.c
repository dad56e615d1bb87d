/* SPDX-License-Identifier: MIT */
/*
 * bench/verbs_mr.c - memory registration for the verbs transport: host memory
 * registered on first use and cached by address range until bench frees it
 * (ft__ep_forget), and GPU memory registered for GPUDirect RDMA through a
 * dmabuf or nvidia-peermem (ft__verbs_reg_cuda, undone by ft__verbs_unreg).
 */
#include "verbs_ep.h"

#include <unistd.h>

#include "cuda_int.h"

#if FT_HAVE_VERBS

/* Deregister cache entry @i; the last entry takes its place. */
static void
drop_mr(struct verbs_ep *ep, size_t i)
{
	struct mr_entry *m = ft_vec_at(&ep->mrs, i);

	ep->api->dereg_mr(m->mr);
	*m = *(struct mr_entry *)ft_vec_at(&ep->mrs, ep->mrs.len - 1);
	ep->mrs.len--;
}

/* Host memory [p, p + len) is being freed: no registration of it may stay cached. */
void
ft__verbs_forget(struct ft_ep *base, const void *p, size_t len)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);
	const char *lo = p, *hi = lo + (len ? len : 1);
	size_t i = 0;

	/* a work request given up on may still use it: it stays registered (ft__verbs_holds) */
	if (ft__verbs_holds(base, p, len))
		return;

	while (i < ep->mrs.len) {
		struct mr_entry *m = ft_vec_at(&ep->mrs, i);

		if (!m->device && m->addr < hi && lo < m->addr + (m->len ? m->len : 1))
			drop_mr(ep, i); /* entry i is now the former last one: look again */
		else
			i++;
	}
}

struct ibv_mr *
ft__verbs_mr_for(struct verbs_ep *ep, void *buf, size_t len, struct ft_error *err)
{
	struct mr_entry e = { .addr = buf, .len = len };
	size_t i;

	for (i = 0; i < ep->mrs.len; i++) {
		struct mr_entry *m = ft_vec_at(&ep->mrs, i);

		if ((char *)buf >= m->addr && (char *)buf + len <= m->addr + m->len)
			return m->mr;
	}
	e.mr = ep->api->reg_mr(ep->pd, buf, len ? len : 1, REMOTE_ACCESS);
	if (!e.mr) {
		ft_error_set(err, FT_EIO, "%s: ibv_reg_mr of %zu bytes failed (memlock limit?)",
		             ep->devname, len);
		return NULL;
	}
	if (ft_vec_push(&ep->mrs, &e) < 0) {
		ep->api->dereg_mr(e.mr);
		return NULL;
	}
	return e.mr;
}

/* GPU pages: a dmabuf covers whole ones (perftest aligns to 64 KiB as well) */
#define GPU_PAGE ((uint64_t)64 << 10)

int
ft__verbs_reg_cuda(struct ft_ep *base, struct ft__cuda *cu, uint64_t dptr, size_t bytes,
                   const char **path, struct ft_error *err)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);
	uint64_t start = dptr & ~(GPU_PAGE - 1);
	uint64_t span = (dptr + bytes - start + GPU_PAGE - 1) & ~(GPU_PAGE - 1);
	struct ft_error why = { 0 };
	char peermem[128];
	struct mr_entry e = { .addr = (char *)(uintptr_t)dptr, .len = bytes, .device = true };
	int fd = -1;

	/* dmabuf: the GPU driver exports the pages, the adapter maps them */
	if (ft__cuda_dmabuf_fd(cu, start, span, &fd, &why) == 0) {
		errno = 0;
		e.mr = ep->api->reg_dmabuf_mr(ep->pd, dptr - start, bytes, dptr, fd, REMOTE_ACCESS);
		if (!e.mr)
			ft_error_set(&why, FT_ENOTSUP, "ibv_reg_dmabuf_mr: %s",
			             strerror(errno ? errno : EOPNOTSUPP));
		close(fd); /* the registration holds its own reference */
		*path = "dmabuf";
	}
	/* else the device pointer itself, which the adapter resolves through nvidia-peermem */
	if (!e.mr) {
		errno = 0;
		e.mr = ep->api->reg_mr(ep->pd, (void *)(uintptr_t)dptr, bytes, REMOTE_ACCESS);
		snprintf(peermem, sizeof(peermem), "%s", strerror(errno ? errno : EFAULT));
		*path = "peermem";
	}
	if (!e.mr)
		return ft_error_set(err, FT_ENOTSUP,
		                    "GPUDirect RDMA not available on %s: dmabuf: %s; ibv_reg_mr "
		                    "of device memory: %s (is nvidia-peermem loaded?)",
		                    ep->devname, why.msg, peermem);
	if (ft_vec_push(&ep->mrs, &e) < 0) {
		ep->api->dereg_mr(e.mr);
		return FT_ENOMEM;
	}
	return 0;
}

void
ft__verbs_unreg(struct ft_ep *base, uint64_t dptr)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);
	size_t i;

	for (i = 0; i < ep->mrs.len; i++) {
		struct mr_entry *m = ft_vec_at(&ep->mrs, i);

		if (m->device && m->addr == (char *)(uintptr_t)dptr) {
			drop_mr(ep, i);
			return;
		}
	}
}

#endif

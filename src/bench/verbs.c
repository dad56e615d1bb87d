/* SPDX-License-Identifier: MIT */
/*
 * bench/verbs.c - the verbs transport: RDMA reliable connections.
 *
 * One RC queue pair per peer on the first device with an active port (or
 * --rdma-device), one completion queue, memory registered on first use and
 * cached by address range. Messages of 4 KiB and more use the operation of
 * --verbs-op (perftest's ib_send_bw / ib_write_bw / ib_read_bw):
 *
 *   send   two-sided SEND into the receiver's posted buffer
 *   write  RDMA WRITE WITH IMMEDIATE into the receiver's landing region; the
 *          immediate completes the receiver's posted receive
 *   read   the receiver pulls from the sender's landing region (RDMA READ);
 *          the sender is passive, as ib_read_bw's server
 *
 * Smaller messages (handshakes, latency probes) always use SEND. With write
 * and read the bytes land in a registered region, not in the caller's
 * buffer, so data validation needs send. Every ibv_* call goes through
 * struct ft_verbs_api (verbs_int.h): the unit test replaces the device.
 */
#include "verbs_int.h"

#include <arpa/inet.h>

#if FT_HAVE_VERBS

#define SMALL_MSG 4096
#define QP_DEPTH  512
#define CQ_DEPTH  4096
#define MAX_MSG   ((size_t)1 << 31)

/* ---- the real library behind the api table --------------------------------- */

static const char *
real_get_device_name(struct ibv_device *d)
{
	return ibv_get_device_name(d);
}

static int
real_query_port(struct ibv_context *c, uint8_t port, struct ibv_port_attr *a)
{
	return ibv_query_port(c, port, a);
}

static struct ibv_mr *
real_reg_mr(struct ibv_pd *pd, void *addr, size_t len, int access)
{
	return ibv_reg_mr(pd, addr, len, access);
}

static struct ibv_cq *
real_create_cq(struct ibv_context *c, int cqe)
{
	return ibv_create_cq(c, cqe, NULL, NULL, 0);
}

static int
real_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	return ibv_post_send(qp, wr, bad);
}

static int
real_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	return ibv_post_recv(qp, wr, bad);
}

static int
real_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	return ibv_poll_cq(cq, n, wc);
}

static int
real_query_gid(struct ibv_context *c, uint8_t port, int index, union ibv_gid *gid)
{
	return ibv_query_gid(c, port, index, gid);
}

const struct ft_verbs_api ft__verbs_libibverbs = {
	.get_device_list = ibv_get_device_list,
	.free_device_list = ibv_free_device_list,
	.get_device_name = real_get_device_name,
	.open_device = ibv_open_device,
	.close_device = ibv_close_device,
	.query_port = real_query_port,
	.query_gid = real_query_gid,
	.alloc_pd = ibv_alloc_pd,
	.dealloc_pd = ibv_dealloc_pd,
	.reg_mr = real_reg_mr,
	.dereg_mr = ibv_dereg_mr,
	.create_cq = real_create_cq,
	.destroy_cq = ibv_destroy_cq,
	.create_qp = ibv_create_qp,
	.destroy_qp = ibv_destroy_qp,
	.modify_qp = ibv_modify_qp,
	.post_send = real_post_send,
	.post_recv = real_post_recv,
	.poll_cq = real_poll_cq,
};

/* ---- endpoint -------------------------------------------------------------- */

struct mr_entry {
	char *addr;
	size_t len;
	struct ibv_mr *mr;
};

struct verbs_ep {
	struct ft_ep base;
	const struct ft_verbs_api *api;
	struct ft_verbs_opts opts;
	char devname[64];
	uint32_t rank, nranks;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp **qp;              /* per peer; NULL for self */
	struct ft_verbs_qp_info *remote; /* per peer */
	struct ibv_port_attr port_attr;
	union ibv_gid gid;
	char *landing;
	struct ibv_mr *landing_mr;
	struct ft_vec mrs; /* struct mr_entry */
};

static void
verbs_free(struct verbs_ep *ep)
{
	const struct ft_verbs_api *api = ep->api;
	uint32_t p;
	size_t i;

	for (p = 0; ep->qp && p < ep->nranks; p++)
		if (ep->qp[p])
			api->destroy_qp(ep->qp[p]);
	for (i = 0; i < ep->mrs.len; i++)
		api->dereg_mr(((struct mr_entry *)ft_vec_at(&ep->mrs, i))->mr);
	ft_vec_release(&ep->mrs);
	if (ep->landing_mr)
		api->dereg_mr(ep->landing_mr);
	if (ep->cq)
		api->destroy_cq(ep->cq);
	if (ep->pd)
		api->dealloc_pd(ep->pd);
	if (ep->ctx)
		api->close_device(ep->ctx);
	ft_free(ep->landing);
	ft_free(ep->qp);
	ft_free(ep->remote);
	ft_free(ep);
}

static void
verbs_close(struct ft_ep *base)
{
	verbs_free(ft_container_of(base, struct verbs_ep, base));
}

/* Open the device named in @o (or the first with an active port). */
static int
open_device(struct verbs_ep *ep, struct ft_error *err)
{
	const struct ft_verbs_api *api = ep->api;
	struct ibv_device **list;
	int n = 0, i, rc = 0;

	errno = 0;
	list = api->get_device_list(&n);
	if (!list)
		return ft_error_set(err, FT_ENOTSUP, "no RDMA device (ibv_get_device_list: %s)",
		                    strerror(errno ? errno : ENODEV));
	if (n == 0) {
		api->free_device_list(list);
		return ft_error_set(err, FT_ENOTSUP, "no RDMA device");
	}
	for (i = 0; i < n && !ep->ctx; i++) {
		const char *name = api->get_device_name(list[i]);
		uint8_t port;

		if (ep->opts.device && *ep->opts.device && strcmp(name, ep->opts.device) != 0)
			continue;
		ep->ctx = api->open_device(list[i]);
		if (!ep->ctx)
			continue;
		for (port = ep->opts.port ? ep->opts.port : 1;
		     port <= (ep->opts.port ? ep->opts.port : 2); port++) {
			if (api->query_port(ep->ctx, port, &ep->port_attr) == 0 &&
			    ep->port_attr.state == IBV_PORT_ACTIVE) {
				ep->opts.port = port;
				ft_strlcpy(ep->devname, name, sizeof(ep->devname));
				break;
			}
		}
		if (!ep->devname[0]) {
			api->close_device(ep->ctx);
			ep->ctx = NULL;
		}
	}
	api->free_device_list(list);
	if (!ep->ctx) {
		if (ep->opts.device && *ep->opts.device)
			rc = ft_error_set(err, FT_ENOENT,
			                  "--rdma-device %s: not found or no active port",
			                  ep->opts.device);
		else
			rc = ft_error_set(err, FT_ENOTSUP,
			                  "no RDMA device with an active port (%d found)", n);
	}
	return rc;
}

static int
make_qp(struct verbs_ep *ep, uint32_t peer, struct ft_error *err)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ep->cq;
	ia.recv_cq = ep->cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = QP_DEPTH;
	ia.cap.max_recv_wr = QP_DEPTH;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	ep->qp[peer] = ep->api->create_qp(ep->pd, &ia);
	if (!ep->qp[peer])
		return ft_error_set(err, FT_EIO, "%s: ibv_create_qp for rank %u: %s", ep->devname,
		                    peer, strerror(errno));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = ep->opts.port;
	a.qp_access_flags =
	        IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_LOCAL_WRITE;
	if (ep->api->modify_qp(ep->qp[peer], &a,
	                       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	                               IBV_QP_ACCESS_FLAGS) != 0)
		return ft_error_set(err, FT_EIO, "%s port %u: QP to INIT failed for rank %u",
		                    ep->devname, ep->opts.port, peer);
	return 0;
}

int
ft__verbs_ep_new(const struct ft_verbs_api *api, const struct ft_verbs_opts *o, uint32_t rank,
                 uint32_t nranks, struct ft_ep **out, struct ft_error *err)
{
	struct verbs_ep *ep = ft_calloc(1, sizeof(*ep));
	uint32_t p;
	int rc;

	*out = NULL;
	if (!ep)
		return FT_ENOMEM;
	ep->api = api;
	ep->opts = *o;
	ep->rank = rank;
	ep->nranks = nranks;
	ft_vec_init(&ep->mrs, sizeof(struct mr_entry));
	ep->qp = ft_calloc(nranks, sizeof(*ep->qp));
	ep->remote = ft_calloc(nranks, sizeof(*ep->remote));
	if (!ep->qp || !ep->remote) {
		verbs_free(ep);
		return FT_ENOMEM;
	}
	rc = open_device(ep, err);
	if (rc < 0)
		goto fail;
	if (ep->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET &&
	    api->query_gid(ep->ctx, ep->opts.port, ep->opts.gid_index, &ep->gid) != 0) {
		rc = ft_error_set(err, FT_EIO, "%s port %u: no GID at index %d", ep->devname,
		                  ep->opts.port, ep->opts.gid_index);
		goto fail;
	}
	ep->pd = api->alloc_pd(ep->ctx);
	ep->cq = ep->pd ? api->create_cq(ep->ctx, CQ_DEPTH) : NULL;
	if (!ep->pd || !ep->cq) {
		rc = ft_error_set(err, FT_EIO, "%s: cannot allocate a PD or CQ", ep->devname);
		goto fail;
	}
	ep->landing = ft_malloc(o->landing_bytes ? o->landing_bytes : 1);
	if (!ep->landing) {
		rc = FT_ENOMEM;
		goto fail;
	}
	ep->landing_mr = api->reg_mr(ep->pd, ep->landing, o->landing_bytes ? o->landing_bytes : 1,
	                             IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
	                                     IBV_ACCESS_REMOTE_READ);
	if (!ep->landing_mr) {
		rc = ft_error_set(err, FT_EIO,
		                  "%s: ibv_reg_mr of %zu bytes failed (memlock limit?)",
		                  ep->devname, o->landing_bytes);
		goto fail;
	}
	for (p = 0; p < nranks; p++) {
		if (p == rank)
			continue;
		rc = make_qp(ep, p, err);
		if (rc < 0)
			goto fail;
	}
	*out = &ep->base;
	return 0;
fail:
	verbs_free(ep);
	return rc;
}

void
ft__verbs_ep_local(struct ft_ep *base, uint32_t peer, struct ft_verbs_qp_info *info)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);

	memset(info, 0, sizeof(*info));
	if (peer >= ep->nranks || !ep->qp[peer])
		return;
	info->qpn = ep->qp[peer]->qp_num;
	info->psn = (ep->rank * 7919u + peer * 104729u) & 0xffffff;
	info->lid = ep->port_attr.lid;
	memcpy(info->gid, ep->gid.raw, 16);
	info->rkey = ep->landing_mr->rkey;
	info->addr = (uint64_t)(uintptr_t)ep->landing;
	info->len = ep->opts.landing_bytes;
}

int
ft__verbs_ep_connect(struct ft_ep *base, uint32_t peer, const struct ft_verbs_qp_info *r,
                     struct ft_error *err)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);
	struct ft_verbs_qp_info me;
	struct ibv_qp_attr a;

	if (peer >= ep->nranks || !ep->qp[peer])
		return ft_error_set(err, FT_EINVAL, "verbs: bad peer %u", peer);
	ft__verbs_ep_local(base, peer, &me);
	ep->remote[peer] = *r;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = ep->port_attr.active_mtu;
	a.dest_qp_num = r->qpn;
	a.rq_psn = r->psn;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 12;
	a.ah_attr.dlid = r->lid;
	a.ah_attr.port_num = ep->opts.port;
	if (ep->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET) {
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid.raw, r->gid, 16);
		a.ah_attr.grh.sgid_index = (uint8_t)ep->opts.gid_index;
		a.ah_attr.grh.hop_limit = 64;
	}
	if (ep->api->modify_qp(ep->qp[peer], &a,
	                       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	                               IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
	                               IBV_QP_MIN_RNR_TIMER) != 0)
		return ft_error_set(err, FT_EIO,
		                    "%s port %u: QP to RTR failed for rank %u (remote QPN 0x%x, "
		                    "LID %u)",
		                    ep->devname, ep->opts.port, peer, r->qpn, r->lid);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = me.psn;
	a.timeout = 14; /* kb: ENV-IB_TIMEOUT: 4.096 us x 2^14 */
	a.retry_cnt = 7;
	a.rnr_retry = 7; /* receivers post late: retry forever */
	a.max_rd_atomic = 16;
	if (ep->api->modify_qp(ep->qp[peer], &a,
	                       IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	                               IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC) != 0)
		return ft_error_set(err, FT_EIO, "%s port %u: QP to RTS failed for rank %u",
		                    ep->devname, ep->opts.port, peer);
	return 0;
}

static int
verbs_probe(const struct ft_bench_cfg *cfg, struct ft_error *err)
{
	struct ibv_device **list;
	int n = 0;

	errno = 0;
	list = ibv_get_device_list(&n);
	if (!list)
		return ft_error_set(err, FT_ENOTSUP, "no RDMA device (ibv_get_device_list: %s)",
		                    strerror(errno ? errno : ENODEV));
	ibv_free_device_list(list);
	if (n == 0)
		return ft_error_set(err, FT_ENOTSUP, "no RDMA device");
	return 0;
}

static int
parse_op(const char *s, enum ft_verbs_op *op, struct ft_error *err)
{
	if (!s || !*s || strcmp(s, "send") == 0)
		*op = FT_VERBS_SEND;
	else if (strcmp(s, "write") == 0)
		*op = FT_VERBS_WRITE;
	else if (strcmp(s, "read") == 0)
		*op = FT_VERBS_READ;
	else
		return ft_error_set(err, FT_EINVAL, "--verbs-op '%s': expected send, write or read",
		                    s);
	return 0;
}

static int
verbs_open(struct ft_world *w, const struct ft_bench_cfg *cfg, struct ft_ep **out,
           struct ft_error *err)
{
	struct ft_verbs_opts o = { .device = cfg->rdma_device, .gid_index = cfg->gid_index };
	struct ft_verbs_qp_info *mine = NULL, *all = NULL;
	struct ft_ep *ep = NULL;
	uint32_t p;
	int rc;

	rc = parse_op(cfg->verbs_op, &o.op, err);
	if (rc < 0)
		return rc;
	o.landing_bytes = (size_t)FT_MAX(cfg->max_bytes, (uint64_t)SMALL_MSG);
	rc = ft__verbs_ep_new(&ft__verbs_libibverbs, &o, w->rank, w->nranks, &ep, err);
	if (rc < 0)
		return rc;
	mine = ft_calloc(w->nranks, sizeof(*mine));
	all = ft_calloc((size_t)w->nranks * w->nranks, sizeof(*all));
	if (!mine || !all) {
		rc = FT_ENOMEM;
		goto out;
	}
	for (p = 0; p < w->nranks; p++)
		ft__verbs_ep_local(ep, p, &mine[p]);
	rc = ft__world_allgather(w, mine, sizeof(*mine) * w->nranks, all, err);
	for (p = 0; rc == 0 && p < w->nranks; p++)
		if (p != w->rank)
			rc = ft__verbs_ep_connect(ep, p, &all[(size_t)p * w->nranks + w->rank],
			                          err);
	if (rc == 0)
		rc = ft__world_barrier(w, err);
out:
	ft_free(mine);
	ft_free(all);
	if (rc < 0) {
		verbs_close(ep);
		return rc;
	}
	*out = ep;
	return 0;
}

static struct ibv_mr *
mr_for(struct verbs_ep *ep, void *buf, size_t len, struct ft_error *err)
{
	struct mr_entry e;
	size_t i;

	for (i = 0; i < ep->mrs.len; i++) {
		struct mr_entry *m = ft_vec_at(&ep->mrs, i);

		if ((char *)buf >= m->addr && (char *)buf + len <= m->addr + m->len)
			return m->mr;
	}
	e.addr = buf;
	e.len = len;
	e.mr = ep->api->reg_mr(ep->pd, buf, len ? len : 1,
	                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
	                               IBV_ACCESS_REMOTE_READ);
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

static int
check_req(struct verbs_ep *ep, struct ft_req *req, struct ft_error *err)
{
	if (req->peer >= ep->nranks || !ep->qp[req->peer])
		return ft_error_set(err, FT_EINVAL, "verbs: bad peer rank %u", req->peer);
	if (req->len >= MAX_MSG)
		return ft_error_set(err, FT_ERANGE, "verbs: message of %zu bytes is too large",
		                    req->len);
	req->done = false;
	return 0;
}

static int
verbs_post_send(struct ft_ep *base, struct ft_req *req, struct ft_error *err)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sge;
	struct ibv_mr *mr;
	int rc = check_req(ep, req, err);

	if (rc < 0)
		return rc;
	if (req->len >= SMALL_MSG && ep->opts.op == FT_VERBS_READ) {
		/* passive side of a read: the peer pulls from our landing region */
		memcpy(ep->landing, req->buf, FT_MIN(req->len, ep->opts.landing_bytes));
		req->done = true;
		return 0;
	}
	mr = mr_for(ep, req->buf, req->len, err);
	if (!mr)
		return FT_EIO;
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uint64_t)(uintptr_t)req->buf;
	sge.length = (uint32_t)req->len;
	sge.lkey = mr->lkey;
	wr.wr_id = (uint64_t)(uintptr_t)req;
	wr.sg_list = &sge;
	wr.num_sge = req->len ? 1 : 0;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.opcode = IBV_WR_SEND;
	if (req->len >= SMALL_MSG && ep->opts.op == FT_VERBS_WRITE) {
		const struct ft_verbs_qp_info *r = &ep->remote[req->peer];

		if (req->len > r->len)
			return ft_error_set(err, FT_ERANGE,
			                    "verbs: %zu bytes do not fit rank %u's %" PRIu64
			                    "-byte landing region",
			                    req->len, req->peer, r->len);
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htonl((uint32_t)req->len);
		wr.wr.rdma.remote_addr = r->addr;
		wr.wr.rdma.rkey = r->rkey;
	}
	if (ep->api->post_send(ep->qp[req->peer], &wr, &bad) != 0)
		return ft_error_set(err, FT_EIO, "%s: ibv_post_send to rank %u failed: %s",
		                    ep->devname, req->peer, strerror(errno));
	return 0;
}

static int
verbs_post_recv(struct ft_ep *base, struct ft_req *req, struct ft_error *err)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);
	struct ibv_mr *mr;
	struct ibv_sge sge;
	int rc = check_req(ep, req, err);

	if (rc < 0)
		return rc;
	mr = mr_for(ep, req->buf, req->len, err);
	if (!mr)
		return FT_EIO;
	sge.addr = (uint64_t)(uintptr_t)req->buf;
	sge.length = (uint32_t)req->len;
	sge.lkey = mr->lkey;
	if (req->len >= SMALL_MSG && ep->opts.op == FT_VERBS_READ) {
		const struct ft_verbs_qp_info *r = &ep->remote[req->peer];
		struct ibv_send_wr wr, *bad = NULL;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = (uint64_t)(uintptr_t)req;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_READ;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = r->addr;
		wr.wr.rdma.rkey = r->rkey;
		if (req->len > r->len)
			return ft_error_set(err, FT_ERANGE,
			                    "verbs: read of %zu bytes beyond rank "
			                    "%u's region",
			                    req->len, req->peer);
		if (ep->api->post_send(ep->qp[req->peer], &wr, &bad) != 0)
			return ft_error_set(err, FT_EIO, "%s: RDMA read from rank %u failed: %s",
			                    ep->devname, req->peer, strerror(errno));
		return 0;
	} else {
		struct ibv_recv_wr wr, *bad = NULL;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = (uint64_t)(uintptr_t)req;
		wr.sg_list = &sge;
		/* a write's bytes land in the region; the receive only takes the immediate */
		wr.num_sge = req->len && !(req->len >= SMALL_MSG && ep->opts.op == FT_VERBS_WRITE);
		if (ep->api->post_recv(ep->qp[req->peer], &wr, &bad) != 0)
			return ft_error_set(err, FT_EIO, "%s: ibv_post_recv for rank %u failed: %s",
			                    ep->devname, req->peer, strerror(errno));
	}
	return 0;
}

static int
verbs_progress(struct ft_ep *base, int timeout_ms, struct ft_error *err)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);
	struct ibv_wc wc[32];
	int n, i, done = 0;

	n = ep->api->poll_cq(ep->cq, (int)FT_ARRAY_SIZE(wc), wc);
	if (n < 0)
		return ft_error_set(err, FT_EIO, "%s: ibv_poll_cq failed", ep->devname);
	for (i = 0; i < n; i++) {
		struct ft_req *q = (struct ft_req *)(uintptr_t)wc[i].wr_id;
		char who[96];

		if (wc[i].status != IBV_WC_SUCCESS)
			return ft_error_set(
			        err, FT_EPEER, "%s port %u: %s with %s failed: %s", ep->devname,
			        ep->opts.port, wc[i].opcode & IBV_WC_RECV ? "receive" : "send",
			        ft__world_who(base->w, q ? q->peer : 0, who, sizeof(who)),
			        ibv_wc_status_str(wc[i].status));
		if (q) {
			q->done = true;
			done++;
		}
	}
	return done;
}

const struct ft_transport_ops ft_verbs_transport = {
	FT__TRANSPORT_P2P_OPS(verbs, verbs_open,
	                      "RDMA RC send/write/read through libibverbs"),
	.spin_polls = 1 << 30, /* completions are polled, never waited on */
	.rank_local = 30,
	.rank_remote = 60,
};

/* the transport's entries but open: a test opens the endpoint on its fake API */
const struct ft_transport_ops ft__verbs_test_ops = { FT__TRANSPORT_P2P_OPS(verbs, NULL, NULL) };

#else

static int
verbs_probe(const struct ft_bench_cfg *cfg, struct ft_error *err)
{
	return ft_error_set(err, FT_ENOTSUP,
	                    "no RDMA device (this fabtune was built without libibverbs)");
}

const struct ft_transport_ops ft_verbs_transport = {
	.name = "verbs",
	.summary = "RDMA RC send/write/read through libibverbs (not built)",
	.probe = verbs_probe,
};

#endif

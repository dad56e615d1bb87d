/* SPDX-License-Identifier: MIT */
/*
 * bench/verbs.c - the verbs transport: RDMA reliable connections.
 *
 * opts.nqps RC queue pairs per peer (perftest's -q; NCCL_IB_QPS_PER_CONNECTION)
 * on the first device with an active port (or --rdma-device), one
 * completion queue, memory registered on first use and cached by address
 * range until fabtune frees that memory (ft__ep_forget drops the entries
 * that overlap it, and deregisters them, so that a new buffer at the same
 * address gets a registration of its own pages). The messages to a peer go round-robin over its queue pairs: the
 * i-th message on QP i mod n, and the receiver posts its i-th receive from
 * that peer on the same QP, so each QP stays in order and the stream keeps
 * the transport's in-order matching. Messages of 4 KiB and more use the
 * operation of --verbs-op (perftest's ib_send_bw / ib_write_bw / ib_read_bw):
 *
 *   send   two-sided SEND into the receiver's posted buffer
 *   write  RDMA WRITE WITH IMMEDIATE into the receiver's landing region; the
 *          immediate completes the receiver's posted receive
 *   read   the receiver pulls from the sender's landing region (RDMA READ);
 *          the sender is passive, as ib_read_bw's server
 *
 * Smaller messages (handshakes, latency probes) always use SEND. With write
 * and read the bytes land in a registered region, not in the caller's
 * buffer, so data validation needs send.
 *
 * With opts.ud (perftest's -c UD) the queue pairs are unreliable datagram
 * ones: send only, an address handle per peer, the Q_Key 0x11111111, at most
 * one path MTU per message (larger ones are refused before anything is
 * posted, as perftest refuses them), and every receive gets a 40-byte first
 * scatter entry for the Global Routing Header the adapter writes ahead of
 * the payload; all receives share that one scratch header. A datagram that
 * finds no receive posted is dropped by the adapter, not retried: the
 * patterns post their receives before the peer's sends (sync_pair), and a
 * loss shows as --timeout naming the peer.
 *
 * ft__verbs_atomic() posts fetch-and-add and compare-and-swap on 8 bytes of
 * a peer's landing region; the QPs and the landing region allow remote
 * atomics. With --verbs-op fadd or cswap, pt2pt runs ft__verbs_atomic_run()
 * (ib_atomic_bw / ib_atomic_lat) instead of its message stream.
 *
 * GPUDirect RDMA (--gpu-buffers): ft__verbs_reg_cuda() registers device
 * memory with the adapter, through a dmabuf the CUDA driver exports, else
 * the device pointer itself (nvidia-peermem). Every ibv_* call goes through
 * struct ft_verbs_api (verbs_int.h): the unit test replaces the device.
 *
 * This file holds the transport's entries (probe, open, post, progress);
 * the endpoint and its queue pairs are in verbs_ep.c, memory registration
 * in verbs_mr.c, remote atomics in verbs_atomic.c (verbs_ep.h joins them).
 */
#include "verbs_ep.h"

#include <arpa/inet.h>

#if FT_HAVE_VERBS

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

static struct ibv_mr *
real_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t len, uint64_t iova, int fd,
                   int access)
{
	return ibv_reg_dmabuf_mr(pd, offset, len, iova, fd, access);
}

static struct ibv_ah *
real_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	return ibv_create_ah(pd, attr);
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
	.create_ah = real_create_ah,
	.destroy_ah = ibv_destroy_ah,
	.reg_dmabuf_mr = real_reg_dmabuf_mr,
};

static void
verbs_close(struct ft_ep *base)
{
	ft__verbs_ep_free(ft_container_of(base, struct verbs_ep, base));
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
	else if (strcmp(s, "fadd") == 0)
		*op = FT_VERBS_FADD;
	else if (strcmp(s, "cswap") == 0)
		*op = FT_VERBS_CSWAP;
	else
		return ft_error_set(err, FT_EINVAL,
		                    "--verbs-op '%s': expected send, write, read, fadd or cswap", s);
	return 0;
}

static int
verbs_open(struct ft_world *w, const struct ft_bench_cfg *cfg, struct ft_ep **out,
           struct ft_error *err)
{
	struct ft_verbs_opts o = { .device = cfg->rdma_device,
		                   .gid_index = cfg->gid_index,
		                   .nqps = cfg->streams ? cfg->streams : 1,
		                   .ud = strcmp(cfg->verbs_conn, "UD") == 0 };
	struct ft_verbs_qp_info *mine = NULL, *all = NULL;
	struct ft_ep *ep = NULL;
	size_t per = (size_t)w->nranks * o.nqps; /* one rank's entries */
	uint32_t p, k;
	int rc;

	rc = parse_op(cfg->verbs_op, &o.op, err);
	if (rc < 0)
		return rc;
	o.landing_bytes = (size_t)FT_MAX(cfg->max_bytes, (uint64_t)SMALL_MSG);
	rc = ft__verbs_ep_new(&ft__verbs_libibverbs, &o, w->rank, w->nranks, &ep, err);
	if (rc < 0)
		return rc;
	mine = ft_calloc(per, sizeof(*mine));
	all = ft_calloc(per * w->nranks, sizeof(*all));
	if (!mine || !all) {
		rc = FT_ENOMEM;
		goto out;
	}
	for (p = 0; p < w->nranks; p++)
		for (k = 0; k < o.nqps; k++)
			ft__verbs_ep_local(ep, p, k, &mine[(size_t)p * o.nqps + k]);
	rc = ft__world_allgather(w, mine, sizeof(*mine) * per, all, err);
	/* rank p's entry for us, queue pair k: all[p][rank][k] */
	for (p = 0; rc == 0 && p < w->nranks; p++)
		for (k = 0; rc == 0 && k < o.nqps && p != w->rank; k++)
			rc = ft__verbs_ep_connect(
			        ep, p, k, &all[(size_t)p * per + (size_t)w->rank * o.nqps + k], err);
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

int
ft__verbs_check_req(struct verbs_ep *ep, struct ft_req *req, struct ft_error *err)
{
	if (req->peer >= ep->nranks || !ep->qp[(size_t)req->peer * ep->nqps])
		return ft_error_set(err, FT_EINVAL, "verbs: bad peer rank %u", req->peer);
	if (ep->lost[req->peer])
		return ft__ep_lost(&ep->base, "verbs", req->is_send, req->peer, err);
	if (req->len >= MAX_MSG)
		return ft_error_set(err, FT_ERANGE, "verbs: message of %zu bytes is too large",
		                    req->len);
	if (ep->opts.ud && req->len > ep->mtu_bytes)
		return ft_error_set(err, FT_ERANGE,
		                    "verbs UD: message of %zu bytes is above %s port %u's MTU "
		                    "(%u bytes); a datagram carries one MTU",
		                    req->len, ep->devname, ep->opts.port, ep->mtu_bytes);
	req->done = false;
	return 0;
}

int
ft__verbs_signaled_wr(struct verbs_ep *ep, struct ft_req *req, size_t len, size_t qp,
                      struct ibv_send_wr *wr, struct ibv_sge *sge, struct ft_error *err)
{
	struct ibv_mr *mr = ft__verbs_mr_for(ep, req->buf, len, err);

	if (!mr)
		return FT_EIO;
	sge->addr = (uint64_t)(uintptr_t)req->buf;
	sge->length = (uint32_t)len;
	sge->lkey = mr->lkey;
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = ft__verbs_wr_new(ep, req, len, qp);
	if (!wr->wr_id)
		return FT_ENOMEM;
	wr->sg_list = sge;
	wr->num_sge = len ? 1 : 0;
	wr->send_flags = IBV_SEND_SIGNALED;
	return 0;
}

static int
verbs_post_send(struct ft_ep *base, struct ft_req *req, struct ft_error *err)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sge;
	size_t i;
	int rc = ft__verbs_check_req(ep, req, err);

	if (rc < 0)
		return rc;
	if (req->len >= SMALL_MSG && ep->opts.op == FT_VERBS_READ) {
		/* passive side of a read: the peer pulls from our landing region */
		memcpy(ep->landing, req->buf, FT_MIN(req->len, ep->opts.landing_bytes));
		req->done = true;
		return 0;
	}
	i = ft__verbs_next_qp(ep, req->peer, SEQ_TX);
	rc = ft__verbs_signaled_wr(ep, req, req->len, i, &wr, &sge, err);
	if (rc < 0)
		return rc;
	wr.opcode = IBV_WR_SEND;
	if (ep->opts.ud) {
		wr.wr.ud.ah = ep->ah[req->peer];
		wr.wr.ud.remote_qpn = ep->remote[i].qpn;
		wr.wr.ud.remote_qkey = FT_VERBS_QKEY;
	} else if (req->len >= SMALL_MSG && ep->opts.op == FT_VERBS_WRITE) {
		const struct ft_verbs_qp_info *r = &ep->remote[i];

		if (req->len > r->len) {
			ft__verbs_wr_done(ep, wr.wr_id);
			return ft_error_set(err, FT_ERANGE,
			                    "verbs: %zu bytes do not fit rank %u's %" PRIu64
			                    "-byte landing region",
			                    req->len, req->peer, r->len);
		}
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htonl((uint32_t)req->len);
		wr.wr.rdma.remote_addr = r->addr;
		wr.wr.rdma.rkey = r->rkey;
	}
	if (ep->api->post_send(ep->qp[i], &wr, &bad) != 0) {
		ft__verbs_wr_done(ep, wr.wr_id);
		return ft_error_set(err, FT_EIO, "%s: ibv_post_send to rank %u failed: %s",
		                    ep->devname, req->peer, strerror(errno));
	}
	return 0;
}

static int
verbs_post_recv(struct ft_ep *base, struct ft_req *req, struct ft_error *err)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);
	struct ibv_mr *mr;
	struct ibv_sge sge[2], *data = &sge[ep->opts.ud];
	size_t i;
	int rc = ft__verbs_check_req(ep, req, err);

	if (rc < 0)
		return rc;
	mr = ft__verbs_mr_for(ep, req->buf, req->len, err);
	if (!mr)
		return FT_EIO;
	/* UD: the adapter writes the GRH first, the payload after it */
	sge[0].addr = (uint64_t)(uintptr_t)ep->grh;
	sge[0].length = FT_VERBS_GRH_BYTES;
	sge[0].lkey = ep->grh_mr ? ep->grh_mr->lkey : 0;
	data->addr = (uint64_t)(uintptr_t)req->buf;
	data->length = (uint32_t)req->len;
	data->lkey = mr->lkey;
	if (req->len >= SMALL_MSG && ep->opts.op == FT_VERBS_READ) {
		struct ibv_send_wr wr, *bad = NULL;
		const struct ft_verbs_qp_info *r;

		i = ft__verbs_next_qp(ep, req->peer, SEQ_ONESIDED);
		r = &ep->remote[i];

		if (req->len > r->len)
			return ft_error_set(err, FT_ERANGE,
			                    "verbs: read of %zu bytes beyond rank "
			                    "%u's region",
			                    req->len, req->peer);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = ft__verbs_wr_new(ep, req, req->len, i);
		wr.sg_list = data;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_READ;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = r->addr;
		wr.wr.rdma.rkey = r->rkey;
		if (!wr.wr_id)
			return FT_ENOMEM;
		if (ep->api->post_send(ep->qp[i], &wr, &bad) != 0) {
			ft__verbs_wr_done(ep, wr.wr_id);
			return ft_error_set(err, FT_EIO, "%s: RDMA read from rank %u failed: %s",
			                    ep->devname, req->peer, strerror(errno));
		}
		return 0;
	} else {
		struct ibv_recv_wr wr, *bad = NULL;

		i = ft__verbs_next_qp(ep, req->peer, SEQ_RX);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = ft__verbs_wr_new(ep, req, req->len, i);
		wr.sg_list = sge;
		/* a write's bytes land in the region; the receive only takes the immediate */
		wr.num_sge = ep->opts.ud +
		             (req->len && !(req->len >= SMALL_MSG && ep->opts.op == FT_VERBS_WRITE));
		if (!ep->opts.ud)
			wr.sg_list = data;
		if (!wr.wr_id)
			return FT_ENOMEM;
		if (ep->api->post_recv(ep->qp[i], &wr, &bad) != 0) {
			ft__verbs_wr_done(ep, wr.wr_id);
			return ft_error_set(err, FT_EIO, "%s: ibv_post_recv for rank %u failed: %s",
			                    ep->devname, req->peer, strerror(errno));
		}
	}
	return 0;
}

static int
verbs_progress(struct ft_ep *base, int timeout_ms, struct ft_error *err)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);
	struct ibv_wc wc[32];
	int n, i, done = 0, rc = 0;

	n = ep->api->poll_cq(ep->cq, (int)FT_ARRAY_SIZE(wc), wc);
	if (n < 0)
		return ft_error_set(err, FT_EIO, "%s: ibv_poll_cq failed", ep->devname);
	/* every completion is taken, the first failure reported: none is polled twice */
	for (i = 0; i < n; i++) {
		struct ft_req *q = ft__verbs_wr_done(ep, wc[i].wr_id);
		char who[96];

		if (!q)
			continue; /* given up on (ft__verbs_abandon) */
		if (wc[i].status != IBV_WC_SUCCESS && rc == 0)
			rc = ft_error_set(err, FT_EPEER, "%s port %u: %s with %s failed: %s",
			                  ep->devname, ep->opts.port,
			                  wc[i].opcode & IBV_WC_RECV ? "receive" : "send",
			                  ft__world_who(base->w, q->peer, who, sizeof(who)),
			                  ibv_wc_status_str(wc[i].status));
		if (wc[i].status == IBV_WC_SUCCESS) {
			q->done = true;
			done++;
		}
	}
	return rc < 0 ? rc : done;
}

const struct ft_transport_ops ft_verbs_transport = {
	FT__TRANSPORT_P2P_OPS(verbs, verbs_open,
	                      "RDMA RC/UD send, write, read and atomics through libibverbs"),
	.spin_polls = 1 << 30, /* completions are polled, never waited on */
	.rank_local = 30,
	.rank_remote = 60,
};

/* the transport's entries but open: a test opens the endpoint on its fake API */
const struct ft_transport_ops ft__verbs_test_ops = { FT__TRANSPORT_P2P_OPS(verbs, NULL, NULL) };

#else

int
ft__verbs_reg_cuda(struct ft_ep *ep, struct ft__cuda *cu, uint64_t dptr, size_t bytes,
                   const char **path, struct ft_error *err)
{
	return ft_error_set(err, FT_ENOTSUP, "GPUDirect RDMA: built without libibverbs");
}

void
ft__verbs_unreg(struct ft_ep *ep, uint64_t dptr)
{
}

bool
ft__verbs_atomics(const struct ft_ep *ep)
{
	return false;
}

int
ft__verbs_pt2pt_atomics(struct ft_ep *ep, uint32_t peer, uint64_t n, uint32_t window,
                        double *lat_us, double *bw_GBps, int64_t *wrong, struct ft_error *err)
{
	return ft_error_set(err, FT_ENOTSUP, "verbs: built without libibverbs");
}

static int
verbs_probe(const struct ft_bench_cfg *cfg, struct ft_error *err)
{
	return ft_error_set(err, FT_ENOTSUP,
	                    "no RDMA device (this fabtune was built without libibverbs)");
}

const struct ft_transport_ops ft_verbs_transport = {
	.name = "verbs",
	.summary = "RDMA RC/UD send, write, read and atomics through libibverbs (not built)",
	.probe = verbs_probe,
};

#endif

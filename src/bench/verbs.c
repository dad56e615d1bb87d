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
 */
#include "verbs_int.h"

#include <arpa/inet.h>
#include <unistd.h>

#include "cuda_int.h"

#if FT_HAVE_VERBS

#define SMALL_MSG 4096
#define QP_DEPTH  512
#define CQ_DEPTH  4096
#define CQ_MAX    (1 << 17)
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

/* ---- endpoint -------------------------------------------------------------- */

struct mr_entry {
	char *addr;
	size_t len;
	struct ibv_mr *mr;
	bool device; /* GPU memory (ft__verbs_reg_cuda): undone by ft__verbs_unreg only */
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
	uint32_t nqps;                   /* queue pairs per peer */
	struct ibv_qp **qp;              /* [peer * nqps + k]; NULL for self */
	struct ft_verbs_qp_info *remote; /* [peer * nqps + k] */
	uint32_t *seq;                   /* [peer * NSEQ + kind]: posts so far, the round-robin */
	struct ibv_ah **ah;              /* UD: per peer */
	uint32_t mtu_bytes;              /* the port's active MTU */
	struct ibv_port_attr port_attr;
	union ibv_gid gid;
	char *landing;
	struct ibv_mr *landing_mr;
	char grh[FT_VERBS_GRH_BYTES]; /* UD: where every receive's GRH goes, never read */
	struct ibv_mr *grh_mr;
	struct ft_vec mrs; /* struct mr_entry */
};

/*
 * The round-robin counters of a peer: sends that consume the peer's posted
 * receives (SEND, WRITE WITH IMMEDIATE), the receives matching them, and the
 * one-sided operations (READ, atomics) that consume nothing on the peer.
 */
enum { SEQ_TX, SEQ_RX, SEQ_ONESIDED, NSEQ };

#define REMOTE_ACCESS                                                                      \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |       \
	 IBV_ACCESS_REMOTE_ATOMIC)

/* The next queue pair to @peer for @kind, and its index into qp[] and remote[]. */
static size_t
next_qp(struct verbs_ep *ep, uint32_t peer, int kind)
{
	uint32_t *c = &ep->seq[(size_t)peer * NSEQ + kind];

	return (size_t)peer * ep->nqps + (*c)++ % ep->nqps;
}

static void
verbs_free(struct verbs_ep *ep)
{
	const struct ft_verbs_api *api = ep->api;
	uint32_t p;
	size_t i;

	for (i = 0; ep->qp && i < (size_t)ep->nranks * ep->nqps; i++)
		if (ep->qp[i])
			api->destroy_qp(ep->qp[i]);
	for (p = 0; ep->ah && p < ep->nranks; p++)
		if (ep->ah[p])
			api->destroy_ah(ep->ah[p]);
	if (ep->grh_mr)
		api->dereg_mr(ep->grh_mr);
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
	ft_free(ep->seq);
	ft_free(ep->ah);
	ft_free(ep);
}

static void
verbs_close(struct ft_ep *base)
{
	verbs_free(ft_container_of(base, struct verbs_ep, base));
}

static void verbs_forget(struct ft_ep *base, const void *p, size_t len);

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

/* Queue pair @k to @peer, in INIT. */
static int
make_qp(struct verbs_ep *ep, uint32_t peer, uint32_t k, struct ft_error *err)
{
	size_t i = (size_t)peer * ep->nqps + k;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ep->cq;
	ia.recv_cq = ep->cq;
	ia.qp_type = ep->opts.ud ? IBV_QPT_UD : IBV_QPT_RC;
	ia.cap.max_send_wr = QP_DEPTH;
	ia.cap.max_recv_wr = QP_DEPTH;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = ep->opts.ud ? 2 : 1; /* UD: the GRH, then the payload */
	ep->qp[i] = ep->api->create_qp(ep->pd, &ia);
	if (!ep->qp[i])
		return ft_error_set(err, FT_EIO, "%s: ibv_create_qp %u for rank %u: %s",
		                    ep->devname, k, peer, strerror(errno));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = ep->opts.port;
	if (ep->opts.ud) {
		a.qkey = FT_VERBS_QKEY;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = REMOTE_ACCESS & ~IBV_ACCESS_LOCAL_WRITE;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	if (ep->api->modify_qp(ep->qp[i], &a, mask) != 0)
		return ft_error_set(err, FT_EIO, "%s port %u: QP %u to INIT failed for rank %u",
		                    ep->devname, ep->opts.port, k, peer);
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
	ep->nqps = o->nqps ? o->nqps : 1;
	ft_vec_init(&ep->mrs, sizeof(struct mr_entry));
	ep->base.forget = verbs_forget;
	if (ep->nqps > FT_VERBS_MAX_QPS) {
		rc = ft_error_set(err, FT_ERANGE, "verbs: %u queue pairs per peer: expected 1 to %d",
		                  ep->nqps, FT_VERBS_MAX_QPS);
		goto fail;
	}
	if (o->ud && o->op != FT_VERBS_SEND) {
		rc = ft_error_set(err, FT_EINVAL,
		                  "verbs: UD queue pairs carry send only, not RDMA %s",
		                  o->op == FT_VERBS_WRITE ? "write" : "read");
		goto fail;
	}
	ep->qp = ft_calloc((size_t)nranks * ep->nqps, sizeof(*ep->qp));
	ep->remote = ft_calloc((size_t)nranks * ep->nqps, sizeof(*ep->remote));
	ep->seq = ft_calloc((size_t)nranks * NSEQ, sizeof(*ep->seq));
	ep->ah = ft_calloc(nranks, sizeof(*ep->ah));
	if (!ep->qp || !ep->remote || !ep->seq || !ep->ah) {
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
	ep->mtu_bytes = 128u << ep->port_attr.active_mtu; /* IBV_MTU_256 is 1 */
	ep->pd = api->alloc_pd(ep->ctx);
	/* room for every queue pair's send and receive queues, within what adapters offer */
	ep->cq = ep->pd ? api->create_cq(ep->ctx, (int)FT_MIN(FT_MAX((uint64_t)CQ_DEPTH,
	                                                               2ull * QP_DEPTH * ep->nqps *
	                                                                       (nranks - 1)),
	                                                        (uint64_t)CQ_MAX))
	                : NULL;
	if (!ep->pd || !ep->cq) {
		rc = ft_error_set(err, FT_EIO, "%s: cannot allocate a PD or CQ", ep->devname);
		goto fail;
	}
	ep->landing = ft_malloc(o->landing_bytes ? o->landing_bytes : 1);
	if (!ep->landing) {
		rc = FT_ENOMEM;
		goto fail;
	}
	memset(ep->landing, 0, o->landing_bytes ? o->landing_bytes : 1);
	ep->landing_mr = api->reg_mr(ep->pd, ep->landing, o->landing_bytes ? o->landing_bytes : 1,
	                             REMOTE_ACCESS);
	if (o->ud && ep->landing_mr)
		ep->grh_mr = api->reg_mr(ep->pd, ep->grh, sizeof(ep->grh), IBV_ACCESS_LOCAL_WRITE);
	if (!ep->landing_mr || (o->ud && !ep->grh_mr)) {
		rc = ft_error_set(err, FT_EIO,
		                  "%s: ibv_reg_mr of %zu bytes failed (memlock limit?)",
		                  ep->devname, o->landing_bytes);
		goto fail;
	}
	for (p = 0; p < nranks; p++) {
		uint32_t k;

		for (k = 0; k < ep->nqps && p != rank; k++) {
			rc = make_qp(ep, p, k, err);
			if (rc < 0)
				goto fail;
		}
	}
	*out = &ep->base;
	return 0;
fail:
	verbs_free(ep);
	return rc;
}

/* The first packet sequence number of our queue pair @k to @peer: distinct per QP. */
static uint32_t
psn_of(const struct verbs_ep *ep, uint32_t peer, uint32_t k)
{
	return (ep->rank * 7919u + peer * 104729u + k * 1299709u) & 0xffffff;
}

void
ft__verbs_ep_local(struct ft_ep *base, uint32_t peer, uint32_t k, struct ft_verbs_qp_info *info)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);
	size_t i = (size_t)peer * ep->nqps + k;

	memset(info, 0, sizeof(*info));
	if (peer >= ep->nranks || k >= ep->nqps || !ep->qp[i])
		return;
	info->qpn = ep->qp[i]->qp_num;
	info->psn = psn_of(ep, peer, k);
	info->lid = ep->port_attr.lid;
	memcpy(info->gid, ep->gid.raw, 16);
	info->rkey = ep->landing_mr->rkey;
	info->addr = (uint64_t)(uintptr_t)ep->landing;
	info->len = ep->opts.landing_bytes;
}

/* The path to a peer's port: its LID, and on RoCE its GID (kb: ROCE-GID). */
static void
address_of(const struct verbs_ep *ep, const struct ft_verbs_qp_info *r, struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	ah->dlid = r->lid;
	ah->port_num = ep->opts.port;
	if (ep->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET) {
		ah->is_global = 1;
		memcpy(ah->grh.dgid.raw, r->gid, 16);
		ah->grh.sgid_index = (uint8_t)ep->opts.gid_index;
		ah->grh.hop_limit = 64;
	}
}

/* UD: RTR and RTS take no peer; the peer's address goes in an address handle. */
static int
connect_ud(struct verbs_ep *ep, uint32_t peer, uint32_t k, const struct ft_verbs_qp_info *r,
           struct ft_error *err)
{
	struct ibv_qp *qp = ep->qp[(size_t)peer * ep->nqps + k];
	struct ibv_ah_attr ah;
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (ep->api->modify_qp(qp, &a, IBV_QP_STATE) != 0)
		return ft_error_set(err, FT_EIO, "%s port %u: UD QP %u to RTR failed for rank %u",
		                    ep->devname, ep->opts.port, k, peer);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = psn_of(ep, peer, k);
	if (ep->api->modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN) != 0)
		return ft_error_set(err, FT_EIO, "%s port %u: UD QP %u to RTS failed for rank %u",
		                    ep->devname, ep->opts.port, k, peer);
	if (ep->ah[peer])
		return 0;
	address_of(ep, r, &ah);
	ep->ah[peer] = ep->api->create_ah(ep->pd, &ah);
	if (!ep->ah[peer])
		return ft_error_set(err, FT_EIO,
		                    "%s port %u: ibv_create_ah for rank %u (LID %u) failed: %s",
		                    ep->devname, ep->opts.port, peer, r->lid, strerror(errno));
	return 0;
}

int
ft__verbs_ep_connect(struct ft_ep *base, uint32_t peer, uint32_t k,
                     const struct ft_verbs_qp_info *r, struct ft_error *err)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);
	size_t i = (size_t)peer * ep->nqps + k;
	struct ft_verbs_qp_info me;
	struct ibv_qp_attr a;

	if (peer >= ep->nranks || k >= ep->nqps || !ep->qp[i])
		return ft_error_set(err, FT_EINVAL, "verbs: bad peer %u or queue pair %u", peer,
		                    k);
	ft__verbs_ep_local(base, peer, k, &me);
	ep->remote[i] = *r;
	if (ep->opts.ud)
		return connect_ud(ep, peer, k, r, err);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = ep->port_attr.active_mtu;
	a.dest_qp_num = r->qpn;
	a.rq_psn = r->psn;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 12;
	address_of(ep, r, &a.ah_attr);
	if (ep->api->modify_qp(ep->qp[i], &a,
	                       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	                               IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
	                               IBV_QP_MIN_RNR_TIMER) != 0)
		return ft_error_set(err, FT_EIO,
		                    "%s port %u: QP %u to RTR failed for rank %u (remote QPN "
		                    "0x%x, LID %u)",
		                    ep->devname, ep->opts.port, k, peer, r->qpn, r->lid);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = me.psn;
	a.timeout = 14; /* kb: ENV-IB_TIMEOUT: 4.096 us x 2^14 */
	a.retry_cnt = 7;
	a.rnr_retry = 7; /* receivers post late: retry forever */
	a.max_rd_atomic = 16;
	if (ep->api->modify_qp(ep->qp[i], &a,
	                       IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	                               IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC) != 0)
		return ft_error_set(err, FT_EIO, "%s port %u: QP %u to RTS failed for rank %u",
		                    ep->devname, ep->opts.port, k, peer);
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
static void
verbs_forget(struct ft_ep *base, const void *p, size_t len)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);
	const char *lo = p, *hi = lo + (len ? len : 1);
	size_t i = 0;

	while (i < ep->mrs.len) {
		struct mr_entry *m = ft_vec_at(&ep->mrs, i);

		if (!m->device && m->addr < hi && lo < m->addr + (m->len ? m->len : 1))
			drop_mr(ep, i); /* entry i is now the former last one: look again */
		else
			i++;
	}
}

static struct ibv_mr *
mr_for(struct verbs_ep *ep, void *buf, size_t len, struct ft_error *err)
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

static int
check_req(struct verbs_ep *ep, struct ft_req *req, struct ft_error *err)
{
	if (req->peer >= ep->nranks || !ep->qp[(size_t)req->peer * ep->nqps])
		return ft_error_set(err, FT_EINVAL, "verbs: bad peer rank %u", req->peer);
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

/* A signaled work request for @req with one entry: @len bytes of req->buf, registered. */
static int
signaled_wr(struct verbs_ep *ep, struct ft_req *req, size_t len, struct ibv_send_wr *wr,
            struct ibv_sge *sge, struct ft_error *err)
{
	struct ibv_mr *mr = mr_for(ep, req->buf, len, err);

	if (!mr)
		return FT_EIO;
	sge->addr = (uint64_t)(uintptr_t)req->buf;
	sge->length = (uint32_t)len;
	sge->lkey = mr->lkey;
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = (uint64_t)(uintptr_t)req;
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
	int rc = check_req(ep, req, err);

	if (rc < 0)
		return rc;
	if (req->len >= SMALL_MSG && ep->opts.op == FT_VERBS_READ) {
		/* passive side of a read: the peer pulls from our landing region */
		memcpy(ep->landing, req->buf, FT_MIN(req->len, ep->opts.landing_bytes));
		req->done = true;
		return 0;
	}
	rc = signaled_wr(ep, req, req->len, &wr, &sge, err);
	if (rc < 0)
		return rc;
	wr.opcode = IBV_WR_SEND;
	i = next_qp(ep, req->peer, SEQ_TX);
	if (ep->opts.ud) {
		wr.wr.ud.ah = ep->ah[req->peer];
		wr.wr.ud.remote_qpn = ep->remote[i].qpn;
		wr.wr.ud.remote_qkey = FT_VERBS_QKEY;
	} else if (req->len >= SMALL_MSG && ep->opts.op == FT_VERBS_WRITE) {
		const struct ft_verbs_qp_info *r = &ep->remote[i];

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
	if (ep->api->post_send(ep->qp[i], &wr, &bad) != 0)
		return ft_error_set(err, FT_EIO, "%s: ibv_post_send to rank %u failed: %s",
		                    ep->devname, req->peer, strerror(errno));
	return 0;
}

static int
verbs_post_recv(struct ft_ep *base, struct ft_req *req, struct ft_error *err)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);
	struct ibv_mr *mr;
	struct ibv_sge sge[2], *data = &sge[ep->opts.ud];
	size_t i;
	int rc = check_req(ep, req, err);

	if (rc < 0)
		return rc;
	mr = mr_for(ep, req->buf, req->len, err);
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

		i = next_qp(ep, req->peer, SEQ_ONESIDED);
		r = &ep->remote[i];

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = (uint64_t)(uintptr_t)req;
		wr.sg_list = data;
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
		if (ep->api->post_send(ep->qp[i], &wr, &bad) != 0)
			return ft_error_set(err, FT_EIO, "%s: RDMA read from rank %u failed: %s",
			                    ep->devname, req->peer, strerror(errno));
		return 0;
	} else {
		struct ibv_recv_wr wr, *bad = NULL;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = (uint64_t)(uintptr_t)req;
		wr.sg_list = sge;
		/* a write's bytes land in the region; the receive only takes the immediate */
		wr.num_sge = ep->opts.ud +
		             (req->len && !(req->len >= SMALL_MSG && ep->opts.op == FT_VERBS_WRITE));
		if (!ep->opts.ud)
			wr.sg_list = data;
		i = next_qp(ep, req->peer, SEQ_RX);
		if (ep->api->post_recv(ep->qp[i], &wr, &bad) != 0)
			return ft_error_set(err, FT_EIO, "%s: ibv_post_recv for rank %u failed: %s",
			                    ep->devname, req->peer, strerror(errno));
	}
	return 0;
}

int
ft__verbs_atomic(struct ft_ep *base, enum ft_verbs_atomic op, uint64_t offset, uint64_t arg,
                 uint64_t swap, struct ft_req *req, struct ft_error *err)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);
	struct ibv_send_wr wr, *bad = NULL;
	const struct ft_verbs_qp_info *r;
	struct ibv_sge sge;
	size_t i;
	int rc = check_req(ep, req, err);

	if (rc < 0)
		return rc;
	if (ep->opts.ud)
		return ft_error_set(err, FT_EINVAL, "verbs: atomics need RC queue pairs, not UD");
	if (req->len < 8)
		return ft_error_set(err, FT_EINVAL,
		                    "verbs: an atomic fetches 8 bytes, the buffer has %zu", req->len);
	i = next_qp(ep, req->peer, SEQ_ONESIDED);
	r = &ep->remote[i];
	if (offset % 8 != 0 || offset + 8 > r->len)
		return ft_error_set(err, FT_ERANGE,
		                    "verbs: atomic at offset %" PRIu64 " of rank %u's %" PRIu64
		                    "-byte region: expected an 8-byte aligned word inside it",
		                    offset, req->peer, r->len);
	rc = signaled_wr(ep, req, 8, &wr, &sge, err);
	if (rc < 0)
		return rc;
	wr.opcode = op == FT_VERBS_FETCH_ADD ? IBV_WR_ATOMIC_FETCH_AND_ADD :
	                                       IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.remote_addr = r->addr + offset;
	wr.wr.atomic.rkey = r->rkey;
	wr.wr.atomic.compare_add = arg;
	wr.wr.atomic.swap = swap;
	if (ep->api->post_send(ep->qp[i], &wr, &bad) != 0)
		return ft_error_set(err, FT_EIO, "%s: atomic on rank %u failed: %s", ep->devname,
		                    req->peer, strerror(errno));
	return 0;
}

static int verbs_progress(struct ft_ep *base, int timeout_ms, struct ft_error *err);

/* One atomic, waited for: the word's value before it into *@old. */
static int
atomic_wait(struct ft_ep *base, uint32_t peer, enum ft_verbs_atomic op, uint64_t arg,
            uint64_t *res, struct ft_req *req, uint64_t *old, struct ft_error *err)
{
	double t0 = ft__now();
	int rc;

	*req = (struct ft_req){ .peer = peer, .buf = res, .len = 8 };
	rc = ft__verbs_atomic(base, op, 0, arg, 0, req, err);
	while (rc >= 0 && !req->done) {
		rc = verbs_progress(base, 0, err);
		if (rc == 0 && base->timeout_s > 0 && ft__now() - t0 > base->timeout_s)
			rc = ft_error_set(err, FT_ETIMEDOUT, "verbs: atomic on rank %u: no "
			                  "completion for %.0fs (--timeout)", peer, base->timeout_s);
	}
	*old = *res;
	return FT_MIN(rc, 0);
}

int
ft__verbs_atomic_run(struct ft_ep *base, uint32_t peer, enum ft_verbs_atomic op, uint64_t n,
                     uint32_t window, double *lat_us, double *secs, int64_t *wrong,
                     struct ft_error *err)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);
	uint64_t start = 0, end = 0, posted = 0, done = 0, *res;
	double t0, last, t_post = 0;
	struct ft_req *reqs;
	uint32_t k;
	int rc;

	window = lat_us ? 1 : FT_MAX(window, 1u);
	reqs = ft_calloc((size_t)window + 1, sizeof(*reqs));
	res = ft_calloc((size_t)window + 1, sizeof(*res));
	rc = reqs && res ? 0 : FT_ENOMEM;
	/* one registration for every result word */
	if (rc == 0 && !mr_for(ep, res, ((size_t)window + 1) * sizeof(*res), err))
		rc = FT_EIO;
	if (rc == 0)
		rc = atomic_wait(base, peer, FT_VERBS_FETCH_ADD, 0, &res[window], &reqs[window],
		                 &start, err);
	t0 = last = ft__now();
	while (rc == 0 && done < n) {
		int c;

		for (k = 0; k < window && posted < n && rc == 0; k++) {
			if (reqs[k].buf && !reqs[k].done)
				continue;
			reqs[k] = (struct ft_req){ .peer = peer, .buf = &res[k], .len = 8 };
			/* one queue pair executes its atomics in order: v -> v + 1 always matches */
			rc = ft__verbs_atomic(base, op, 0, op == FT_VERBS_FETCH_ADD ? 1 : start + posted,
			                      start + posted + 1, &reqs[k], err);
			posted++;
			t_post = ft__now();
		}
		c = rc < 0 ? rc : verbs_progress(base, 0, err);
		if (c < 0) {
			rc = c;
		} else if (c > 0) {
			last = ft__now();
			if (lat_us)
				lat_us[done] = (last - t_post) * 1e6;
			done += (uint64_t)c;
		} else if (base->timeout_s > 0 && ft__now() - last > base->timeout_s) {
			rc = ft_error_set(err, FT_ETIMEDOUT,
			                  "verbs: atomics on rank %u: no completion for %.0fs "
			                  "(--timeout)",
			                  peer, base->timeout_s);
		}
	}
	*secs = ft__now() - t0;
	if (rc == 0)
		rc = atomic_wait(base, peer, FT_VERBS_FETCH_ADD, 0, &res[window], &reqs[window],
		                 &end, err);
	*wrong = op == FT_VERBS_CMP_SWAP && ep->nqps > 1 ? -1 : end != start + n;
	ft_free(reqs);
	if (res)
		verbs_forget(base, res, ((size_t)window + 1) * sizeof(*res));
	ft_free(res);
	return rc;
}

bool
ft__verbs_atomics(const struct ft_ep *base)
{
	const struct verbs_ep *ep = ft_container_of(base, const struct verbs_ep, base);

	return ep->opts.op == FT_VERBS_FADD || ep->opts.op == FT_VERBS_CSWAP;
}

int
ft__verbs_pt2pt_atomics(struct ft_ep *base, uint32_t peer, uint64_t n, uint32_t window,
                        double *lat_us, double *bw_GBps, int64_t *wrong, struct ft_error *err)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);
	double secs = 0;
	int rc = ft__verbs_atomic_run(base, peer,
	                              ep->opts.op == FT_VERBS_FADD ? FT_VERBS_FETCH_ADD :
	                                                             FT_VERBS_CMP_SWAP,
	                              n, window, lat_us, &secs, wrong, err);

	*bw_GBps = secs > 0 ? 8.0 * (double)n / secs / 1e9 : 0;
	return rc;
}

void *
ft__verbs_landing(struct ft_ep *base)
{
	return ft_container_of(base, struct verbs_ep, base)->landing;
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

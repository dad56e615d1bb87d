/* SPDX-License-Identifier: MIT */
/*
 * bench/verbs_ep.c - the verbs endpoint: the device and port, protection domain,
 * completion queue and landing region, the queue pairs per peer (RC or UD)
 * and their connection from the peer's struct ft_verbs_qp_info (INIT, RTR,
 * RTS; an address handle per peer for UD).
 */
#include "verbs_ep.h"

#include <arpa/inet.h>

#if FT_HAVE_VERBS

void
ft__verbs_ep_free(struct verbs_ep *ep)
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
	ft_free(ep->lost);
	ft__pool_release(&ep->wrs);
	ft_free(ep);
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
	ft__pool_init(&ep->wrs, sizeof(struct verbs_wr));
	ep->base.forget = ft__verbs_forget;
	ep->base.abandon = ft__verbs_abandon;
	ep->base.holds = ft__verbs_holds;
	/* the queue pairs are destroyed before the registrations: the adapter lets go */
	ep->base.holds_end_at_close = true;
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
	ep->lost = ft_calloc(nranks, sizeof(*ep->lost));
	if (!ep->qp || !ep->remote || !ep->seq || !ep->ah || !ep->lost) {
		ft__verbs_ep_free(ep);
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
	ft__verbs_ep_free(ep);
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

#endif

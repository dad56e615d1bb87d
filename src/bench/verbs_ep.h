/* SPDX-License-Identifier: MIT */
/*
 * bench/verbs_ep.h - the verbs endpoint, shared by the files of the verbs
 * transport and by them only: verbs.c (the transport's entries: open,
 * post, progress), verbs_ep.c (device, queue pairs, connection), verbs_mr.c
 * (memory registration and its cache) and verbs_atomic.c (remote atomics).
 */
#ifndef FT_BENCH_VERBS_EP_H
#define FT_BENCH_VERBS_EP_H

#include "verbs_int.h"

#if FT_HAVE_VERBS

#define SMALL_MSG 4096
#define QP_DEPTH  512
#define CQ_DEPTH  4096
#define CQ_MAX    (1 << 17)
#define MAX_MSG   ((size_t)1 << 31)

struct mr_entry {
	char *addr;
	size_t len;
	struct ibv_mr *mr;
	bool device; /* GPU memory (ft__verbs_reg_cuda): undone by ft__verbs_unreg only */
};

/* A work request posted and not yet completed; its wr_id points here (verbs_wr.c). */
struct verbs_wr {
	struct ft_req *req; /* NULL once given up on (ft__verbs_abandon) */
	const char *buf;    /* what the adapter may read or write until it completes */
	size_t len;
	size_t qp; /* index into qp[] */
	struct verbs_wr *prev, *next;
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
	struct ft__pool wrs;      /* struct verbs_wr */
	struct verbs_wr *posted;  /* outstanding, newest first */
	bool *lost;               /* per peer: its queue pairs went to Error (ft__verbs_abandon) */
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
static inline size_t
ft__verbs_next_qp(struct verbs_ep *ep, uint32_t peer, int kind)
{
	uint32_t *c = &ep->seq[(size_t)peer * NSEQ + kind];

	return (size_t)peer * ep->nqps + (*c)++ % ep->nqps;
}

/*
 * Record a work request for @req over @len bytes of req->buf on queue pair
 * @qp: its wr_id, 0 when out of memory. ft__verbs_wr_done: its completion
 * was polled; the request it completes (NULL: given up on), the record
 * released (verbs_wr.c).
 */
uint64_t ft__verbs_wr_new(struct verbs_ep *ep, struct ft_req *req, size_t len, size_t qp);
struct ft_req *ft__verbs_wr_done(struct verbs_ep *ep, uint64_t wr_id);
/* struct ft_ep's abandon and holds for verbs (verbs_wr.c). */
void ft__verbs_abandon(struct ft_ep *base);
bool ft__verbs_holds(struct ft_ep *base, const void *p, size_t len);
/* Free everything @ep holds, in the order the adapter wants (verbs_ep.c). */
void ft__verbs_ep_free(struct verbs_ep *ep);
/* The registration covering @len bytes at @buf, registering it on first use (verbs_mr.c). */
struct ibv_mr *ft__verbs_mr_for(struct verbs_ep *ep, void *buf, size_t len, struct ft_error *err);
/* struct ft_ep's forget for verbs: drop the cached registrations in [p, p + len). */
void ft__verbs_forget(struct ft_ep *base, const void *p, size_t len);
/* Check @req against the endpoint (peer, size, UD's MTU) and mark it not done (verbs.c). */
int ft__verbs_check_req(struct verbs_ep *ep, struct ft_req *req, struct ft_error *err);
/*
 * A signaled work request for @req on queue pair @qp with one entry: @len
 * bytes of req->buf, registered, and recorded (ft__verbs_wr_new). A post
 * that fails then drops the record: ft__verbs_wr_done(ep, wr->wr_id).
 */
int ft__verbs_signaled_wr(struct verbs_ep *ep, struct ft_req *req, size_t len, size_t qp,
                          struct ibv_send_wr *wr, struct ibv_sge *sge, struct ft_error *err);

#endif
#endif

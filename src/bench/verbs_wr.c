/* SPDX-License-Identifier: MIT */
/*
 * bench/verbs_wr.c - the verbs transport's work requests in flight: each
 * posted one is recorded (its wr_id names the record, not the caller's
 * struct ft_req), so that a completion polled after the caller gave up on
 * its request touches nothing of the caller's, and so that the buffers the
 * adapter may still read or write are known.
 *
 * Giving up (a wait or a post that failed): the adapter owns a posted work
 * request's buffer until its completion is polled, and a queue pair moved
 * to the Error state (ibv_modify_qp, IBV_QPS_ERR) flushes every work
 * request outstanding on it, each completing with IBV_WC_WR_FLUSH_ERR, as
 * the InfiniBand Architecture specifies for that state. So the queue pairs
 * with work requests outstanding are moved to Error and the completion
 * queue is polled until every one of them has completed, for up to
 * VERBS_ABANDON_S; one still outstanding then keeps its buffer held
 * (ft__verbs_holds) and registered (ft__verbs_forget leaves it) until the
 * queue pairs are destroyed at close. A peer whose queue pair went to
 * Error is out of step and takes no more messages.
 */
#include "verbs_ep.h"

#if FT_HAVE_VERBS

#define VERBS_ABANDON_S 0.2

uint64_t
ft__verbs_wr_new(struct verbs_ep *ep, struct ft_req *req, size_t len, size_t qp)
{
	struct verbs_wr *w = ft__pool_get(&ep->wrs);

	if (!w)
		return 0;
	w->req = req;
	w->buf = req->buf;
	w->len = len;
	w->qp = qp;
	w->prev = NULL;
	w->next = ep->posted;
	if (ep->posted)
		ep->posted->prev = w;
	ep->posted = w;
	return (uint64_t)(uintptr_t)w;
}

struct ft_req *
ft__verbs_wr_done(struct verbs_ep *ep, uint64_t wr_id)
{
	struct verbs_wr *w = (struct verbs_wr *)(uintptr_t)wr_id;
	struct ft_req *req;

	if (!w)
		return NULL;
	req = w->req;
	if (w->prev)
		w->prev->next = w->next;
	else
		ep->posted = w->next;
	if (w->next)
		w->next->prev = w->prev;
	ft__pool_put(&ep->wrs, w);
	return req;
}

/* Drain the completion queue of work requests given up on, until none is outstanding. */
static void
drain(struct verbs_ep *ep, double end)
{
	struct ibv_wc wc[32];
	int n, i;

	while (ep->posted && ft__now() < end) {
		n = ep->api->poll_cq(ep->cq, (int)FT_ARRAY_SIZE(wc), wc);
		if (n < 0)
			return;
		for (i = 0; i < n; i++)
			ft__verbs_wr_done(ep, wc[i].wr_id);
		if (n == 0)
			ft__cpu_relax();
	}
}

void
ft__verbs_abandon(struct ft_ep *base)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);
	struct ibv_qp_attr attr;
	struct verbs_wr *w;

	for (w = ep->posted; w; w = w->next) {
		w->req = NULL;
		if (!ep->lost[w->qp / ep->nqps]) {
			size_t p = w->qp / ep->nqps, k;

			ep->lost[p] = true;
			/* every queue pair to the peer: a message may be striped over them */
			for (k = p * ep->nqps; k < (p + 1) * ep->nqps; k++) {
				memset(&attr, 0, sizeof(attr));
				attr.qp_state = IBV_QPS_ERR;
				if (ep->qp[k])
					ep->api->modify_qp(ep->qp[k], &attr, IBV_QP_STATE);
			}
		}
	}
	drain(ep, ft__now() + VERBS_ABANDON_S);
}

bool
ft__verbs_holds(struct ft_ep *base, const void *p, size_t len)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);
	const struct verbs_wr *w;

	for (w = ep->posted; w; w = w->next)
		if (ft__overlaps(w->buf, w->len, p, len))
			return true;
	return false;
}

#endif

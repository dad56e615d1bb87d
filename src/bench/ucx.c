/* SPDX-License-Identifier: MIT */
/*
 * bench/ucx.c - the ucx transport: UCX's streams (libucp), as
 * ucx_perftest's stream tests use them.
 *
 * Every rank opens one UCP context and one worker, publishes the worker's
 * address through the control plane and creates an endpoint to every other
 * rank. Each endpoint is an ordered byte stream, the semantics the other
 * transports give (fabtune's ring algorithms send a block that the receiver
 * takes in slices, which UCX's tagged messages would truncate); receives
 * wait for all their bytes (UCP_STREAM_RECV_FLAG_WAITALL). UCX picks its own
 * transports (UCX_TLS: shared memory, tcp, verbs, cuda); fabtune only posts
 * and progresses. Requests in flight are tracked in nodes of the endpoint's
 * own, so closing after an error never touches a caller's request. Each
 * UCX request carries its node as user data; its completion callback, run
 * inside ucp_worker_progress(), queues the node, and reap() retires only
 * what was queued: a progress call costs the requests that completed, not
 * every one in flight (a window of 64 walked all 64 at every call).
 *
 * Progress is ucp_worker_progress(); an idle wait arms the worker and sleeps
 * in poll() on its event descriptor, so ranks that share a CPU can run, but
 * naps (nap.c) while a send is in flight: the room a receiver makes in its
 * FIFO raises no event.
 * Built only with libucx (meson option ucx); without it the transport says
 * "not available".
 */
#include "bench_int.h"

#if FT_HAVE_UCX

#include <poll.h>
#include <ucp/api/ucp.h>

/* One UCX request in flight and the caller's request it completes (NULL: given up on). */
struct inflight {
	struct ft_req *req;
	void *ucx;
	const char *buf; /* what UCX may write or read until it completes */
	size_t len;
	struct ucx_ep *ep;
	bool is_send;
	bool completed;              /* UCX called back (complete) */
	ucs_status_t status;         /* its status then */
	struct inflight *prev, *next; /* the endpoint's pending list */
	struct inflight *done_next;  /* the endpoint's completed queue */
};

struct ucx_ep {
	struct ft_ep base;
	ucp_context_h ctx;
	ucp_worker_h worker;
	ucp_ep_h *eps; /* per rank; self NULL */
	int efd;
	uint32_t rank, nranks;
	struct inflight *pending, *pending_tail; /* in posting order, until reaped */
	struct inflight *done, *done_tail; /* completed, not yet reaped (complete) */
	uint64_t sends; /* pending sends whose caller still waits (sending) */
	uint64_t reaped, reap_visits; /* nodes retired, and looked at, by reap */
	struct ft__pool nodes; /* struct inflight */
	bool *lost; /* per rank: requests to or from it were given up on (ucx_abandon) */
	struct ft__nap nap; /* an idle wait with a send in flight (ucx_progress) */
	uint64_t event_sleeps, naps; /* idle waits of each kind (ft__ucx_idle_waits) */
};

static int
ucx_probe(const struct ft_bench_cfg *cfg, struct ft_error *err)
{
	return 0;
}

static int
ucx_fail(struct ft_error *err, const char *what, ucs_status_t st)
{
	return ft_error_set(err, FT_EIO, "%s: %s", what, ucs_status_string(st));
}

/*
 * Close the endpoint to @p with @flags (UCP_EP_CLOSE_FLAG_FORCE or 0, a
 * flush) and progress until that is done, for up to @wait_s. A close that
 * takes longer goes on inside UCX until the worker is destroyed.
 */
static void
close_ep(struct ucx_ep *ep, uint32_t p, uint32_t flags, double wait_s)
{
	ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = flags };
	double deadline = ft__now() + wait_s;
	void *r;

	if (!ep->eps[p])
		return;
	r = ucp_ep_close_nbx(ep->eps[p], &prm);
	while (UCS_PTR_IS_PTR(r) && ucp_request_check_status(r) == UCS_INPROGRESS &&
	       ft__now() < deadline)
		ucp_worker_progress(ep->worker);
	if (UCS_PTR_IS_PTR(r))
		ucp_request_free(r);
	ep->eps[p] = NULL;
}

/* Close endpoints (flushed while the peers are still there, forced after a deadline). */
static void
close_eps(struct ucx_ep *ep)
{
	uint32_t p;

	for (p = 0; ep->eps && p < ep->nranks; p++)
		close_ep(ep, p, UCP_EP_CLOSE_FLAG_FORCE, 1);
}

static void
ucx_close(struct ft_ep *base)
{
	struct ucx_ep *ep = ft_container_of(base, struct ucx_ep, base);

	struct inflight *n, *next;

	/*
	 * After an error: UCX's requests only; the callers' may be gone. A
	 * cancel may complete its request at once, which queues the node on
	 * ep->done but leaves the pending list as it is; no callback runs for
	 * a request once it is freed.
	 */
	for (n = ep->pending; n; n = next) {
		next = n->next;
		if (!n->completed)
			ucp_request_cancel(ep->worker, n->ucx);
		ucp_request_free(n->ucx);
	}
	ep->pending = ep->done = NULL;
	if (ep->worker)
		close_eps(ep);
	if (ep->worker)
		ucp_worker_destroy(ep->worker);
	if (ep->ctx)
		ucp_cleanup(ep->ctx);
	ft__pool_release(&ep->nodes);
	ft_free(ep->eps);
	ft_free(ep->lost);
	ft_free(ep);
}

/* Every rank's worker address, through the control plane: lengths first, then the blobs. */
static int
exchange_addresses(struct ft_world *w, struct ucx_ep *ep, char **all_out, size_t *stride,
                   struct ft_error *err)
{
	ucp_address_t *addr = NULL;
	size_t len = 0, maxlen = 0;
	uint64_t mine, *lens;
	char *buf = NULL, *all = NULL;
	ucs_status_t st;
	uint32_t r;
	int rc;

	st = ucp_worker_get_address(ep->worker, &addr, &len);
	if (st != UCS_OK)
		return ucx_fail(err, "ucp_worker_get_address", st);
	mine = len;
	lens = ft_calloc(w->nranks, sizeof(*lens));
	rc = lens ? ft__world_allgather(w, &mine, sizeof(mine), lens, err) : FT_ENOMEM;
	for (r = 0; rc == 0 && r < w->nranks; r++)
		maxlen = FT_MAX(maxlen, (size_t)lens[r]);
	if (rc == 0 && (maxlen == 0 || maxlen > (1u << 20)))
		rc = ft_error_set(err, FT_EPEER, "a worker address of %zu bytes", maxlen);
	if (rc == 0) {
		buf = ft_calloc(1, maxlen);
		all = ft_calloc(w->nranks, maxlen);
		if (!buf || !all)
			rc = FT_ENOMEM;
	}
	if (rc == 0) {
		memcpy(buf, addr, len);
		rc = ft__world_allgather(w, buf, maxlen, all, err);
	}
	ucp_worker_release_address(ep->worker, addr);
	ft_free(lens);
	ft_free(buf);
	if (rc < 0) {
		ft_free(all);
		return rc;
	}
	*all_out = all;
	*stride = maxlen;
	return 0;
}

static void ucx_abandon(struct ft_ep *base);
static bool ucx_holds(struct ft_ep *base, const void *p, size_t len);

static int
ucx_open(struct ft_world *w, const struct ft_bench_cfg *cfg, struct ft_ep **out,
         struct ft_error *err)
{
	struct ucx_ep *ep = ft_calloc(1, sizeof(*ep));
	ucp_params_t params = { 0 };
	ucp_worker_params_t wparams = { 0 };
	ucp_config_t *config = NULL;
	char *addrs = NULL;
	size_t stride = 0;
	ucs_status_t st;
	uint32_t p;
	int rc = 0, ok, *oks;

	if (!ep)
		return FT_ENOMEM;
	ep->rank = w->rank;
	ep->nranks = w->nranks;
	ep->efd = -1;
	ft__pool_init(&ep->nodes, sizeof(struct inflight));
	ep->eps = ft_calloc(w->nranks, sizeof(*ep->eps));
	ep->lost = ft_calloc(w->nranks, sizeof(*ep->lost));
	ep->base.abandon = ucx_abandon;
	ep->base.holds = ucx_holds;
	ep->base.holds_end_at_close = true; /* the worker is destroyed: UCX lets go of everything */
	if (!ep->eps || !ep->lost)
		rc = FT_ENOMEM;
	/* every rank sets up its own side, then all learn whether all could */
	if (rc == 0 && (st = ucp_config_read(NULL, NULL, &config)) != UCS_OK)
		rc = ucx_fail(err, "ucp_config_read", st);
	if (rc == 0) {
		params.field_mask = UCP_PARAM_FIELD_FEATURES;
		params.features = UCP_FEATURE_STREAM | UCP_FEATURE_WAKEUP;
		st = ucp_init(&params, config, &ep->ctx);
		ucp_config_release(config);
		if (st != UCS_OK) {
			ep->ctx = NULL;
			rc = ucx_fail(err, "ucp_init (is UCX_TLS valid here?)", st);
		}
	}
	if (rc == 0) {
		wparams.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
		wparams.thread_mode = UCS_THREAD_MODE_SINGLE;
		st = ucp_worker_create(ep->ctx, &wparams, &ep->worker);
		if (st != UCS_OK) {
			ep->worker = NULL;
			rc = ucx_fail(err, "ucp_worker_create", st);
		}
	}
	if (rc == 0 && (st = ucp_worker_get_efd(ep->worker, &ep->efd)) != UCS_OK)
		rc = ucx_fail(err, "ucp_worker_get_efd", st);
	ok = rc == 0;
	oks = ft_calloc(w->nranks, sizeof(*oks));
	if (!oks) {
		ucx_close(&ep->base);
		return FT_ENOMEM;
	}
	{
		struct ft_error e2 = { 0 };
		int rc2 = ft__world_allgather(w, &ok, sizeof(ok), oks, &e2);

		if (rc2 < 0 && rc == 0)
			rc = ft_error_set(err, rc2, "%s", e2.msg);
		for (p = 0; rc == 0 && p < w->nranks; p++)
			if (!oks[p])
				rc = ft_error_set(err, FT_EPEER, "rank %u could not open UCX", p);
	}
	ft_free(oks);
	if (rc == 0)
		rc = exchange_addresses(w, ep, &addrs, &stride, err);
	for (p = 0; rc == 0 && p < w->nranks; p++) {
		ucp_ep_params_t eparams = { 0 };

		if (p == w->rank)
			continue;
		eparams.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
		eparams.address = (const ucp_address_t *)(const void *)(addrs + (size_t)p * stride);
		st = ucp_ep_create(ep->worker, &eparams, &ep->eps[p]);
		if (st != UCS_OK) {
			char who[96];

			ep->eps[p] = NULL;
			rc = ft_error_set(err, FT_EPEER, "no endpoint to %s: %s",
			                  ft__world_who(w, p, who, sizeof(who)),
			                  ucs_status_string(st));
		}
	}
	ft_free(addrs);
	if (rc < 0) {
		ucx_close(&ep->base);
		return rc;
	}
	*out = &ep->base;
	return 0;
}

/*
 * UCX is done with a request (inside ucp_worker_progress(), or inside a
 * cancel or an endpoint's close): queue its node for reap(). The node stays
 * on the pending list until reaped, so the list can be walked (ucx_close,
 * ucx_abandon) while cancels call back.
 */
static void
complete(struct inflight *n, ucs_status_t st)
{
	struct ucx_ep *ep = n->ep;

	if (n->completed)
		return;
	n->completed = true;
	n->status = st;
	n->done_next = NULL;
	if (ep->done_tail)
		ep->done_tail->done_next = n;
	else
		ep->done = n;
	ep->done_tail = n;
}

static void
send_done(void *request, ucs_status_t st, void *user_data)
{
	(void)request;
	complete(user_data, st);
}

static void
recv_done(void *request, ucs_status_t st, size_t length, void *user_data)
{
	(void)request;
	(void)length;
	complete(user_data, st);
}

static int
post(struct ft_ep *base, struct ft_req *req, bool send, struct ft_error *err)
{
	struct ucx_ep *ep = ft_container_of(base, struct ucx_ep, base);
	ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE |
		                                    UCP_OP_ATTR_FIELD_CALLBACK |
		                                    UCP_OP_ATTR_FIELD_USER_DATA,
		                    .datatype = ucp_dt_make_contig(1) };
	ucs_status_ptr_t r;
	struct inflight *n;
	size_t got = 0;
	char who[96];

	if (req->peer >= ep->nranks || req->peer == ep->rank)
		return ft_error_set(err, FT_EINVAL, "ucx: bad peer rank %u", req->peer);
	if (ep->lost[req->peer])
		return ft__ep_lost(base, "ucx", send, req->peer, err);
	req->done = req->len == 0;
	if (req->done)
		return 0;
	/* the node first: UCX hands it back to the callback (complete) */
	n = ft__pool_get(&ep->nodes);
	if (!n)
		return FT_ENOMEM;
	memset(n, 0, sizeof(*n));
	n->ep = ep;
	prm.user_data = n;
	if (send) {
		prm.cb.send = send_done;
		r = ucp_stream_send_nbx(ep->eps[req->peer], req->buf, req->len, &prm);
	} else {
		prm.cb.recv_stream = recv_done;
		prm.op_attr_mask |= UCP_OP_ATTR_FIELD_FLAGS;
		prm.flags = UCP_STREAM_RECV_FLAG_WAITALL;
		r = ucp_stream_recv_nbx(ep->eps[req->peer], req->buf, req->len, &got, &prm);
	}
	if (UCS_PTR_IS_ERR(r) || r == NULL) {
		/* failed, or done at once: UCX calls no callback for either */
		ft__pool_put(&ep->nodes, n);
		if (UCS_PTR_IS_ERR(r))
			return ft_error_set(err, FT_EPEER, "ucx: %s %s: %s",
			                    send ? "send to" : "receive from",
			                    ft__world_who(base->w, req->peer, who, sizeof(who)),
			                    ucs_status_string(UCS_PTR_STATUS(r)));
		req->done = true;
		return 0;
	}
	n->req = req;
	n->ucx = r;
	n->buf = req->buf;
	n->len = req->len;
	n->is_send = send;
	n->prev = ep->pending_tail;
	if (ep->pending_tail)
		ep->pending_tail->next = n;
	else
		ep->pending = n;
	ep->pending_tail = n;
	if (send)
		ep->sends++;
	return 0;
}

FT__TRANSPORT_POSTS(ucx, post)

/* Take @n off the pending list. */
static void
unlink_pending(struct ucx_ep *ep, struct inflight *n)
{
	if (n->prev)
		n->prev->next = n->next;
	else
		ep->pending = n->next;
	if (n->next)
		n->next->prev = n->prev;
	else
		ep->pending_tail = n->prev;
	if (n->req && n->is_send)
		ep->sends--;
}

/*
 * Retire the requests UCX has finished (those complete() queued, in the
 * order they completed); the first error names its peer, and the rest stay
 * queued and listed for the next reap or ucx_close.
 */
static int
reap(struct ucx_ep *ep, struct ft_error *err)
{
	struct inflight *n;
	int done = 0;

	while ((n = ep->done) != NULL) {
		struct ft_req *q = n->req;
		ucs_status_t st = n->status;

		ep->done = n->done_next;
		if (!ep->done)
			ep->done_tail = NULL;
		ep->reap_visits++;
		unlink_pending(ep, n);
		ucp_request_free(n->ucx);
		ft__pool_put(&ep->nodes, n);
		ep->reaped++;
		if (!q)
			continue; /* given up on: UCX is done with its buffer, whatever the end */
		if (st != UCS_OK) {
			char who[96];

			return ft_error_set(err, FT_EPEER, "ucx: %s %s: %s",
			                    q->is_send ? "send to" : "receive from",
			                    ft__world_who(ep->base.w, q->peer, who, sizeof(who)),
			                    ucs_status_string(st));
		}
		q->done = true;
		done++;
	}
	return done;
}

void
ft__ucx_reap_counts(const struct ft_ep *base, uint64_t *reaped, uint64_t *visits)
{
	const struct ucx_ep *ep = ft_container_of(base, const struct ucx_ep, base);

	*reaped = ep->reaped;
	*visits = ep->reap_visits;
}

void
ft__ucx_idle_waits(const struct ft_ep *base, uint64_t *event_sleeps, uint64_t *naps)
{
	const struct ucx_ep *ep = ft_container_of(base, const struct ucx_ep, base);

	*event_sleeps = ep->event_sleeps;
	*naps = ep->naps;
}

/* Whether a send is still in flight: its completion raises no event (ucx_progress). */
static bool
sending(const struct ucx_ep *ep)
{
	return ep->sends != 0;
}

static int
ucx_progress(struct ft_ep *base, int timeout_ms, struct ft_error *err)
{
	struct ucx_ep *ep = ft_container_of(base, struct ucx_ep, base);
	unsigned events = 0;
	int done;

	while (ucp_worker_progress(ep->worker))
		events++;
	done = reap(ep, err);
	if (done != 0 || events) {
		ft__nap_reset(&ep->nap);
		return done < 0 ? done : done + (events ? 1 : 0);
	}
	if (timeout_ms <= 0)
		return 0;
	/*
	 * A send that waits for room in the peer's shared-memory FIFO (or for
	 * its rendezvous reply) moves on when the peer drains it, and UCX raises
	 * no event for that: a sleep on the event fd lasted its whole 1 ms every
	 * time the FIFO filled (a 16 MiB stream: 16 MiB at about 1 GB/s, under
	 * a CPU hog 0.3 GB/s, the ranks 0.19 CPUs busy). With a send in flight
	 * the wait naps instead: pauses, then sleeps from 1 us, doubling.
	 */
	if (sending(ep)) {
		ft__nap(&ep->nap);
		ep->naps++;
		return 0;
	}
	/* idle: sleep until UCX has something (UCS_ERR_BUSY: it already has) */
	if (ucp_worker_arm(ep->worker) == UCS_OK) {
		struct pollfd pfd = { .fd = ep->efd, .events = POLLIN };

		ep->event_sleeps++;
		/* at most 1 ms: a wake-up UCX misses then costs little */
		poll(&pfd, 1, FT_MIN(timeout_ms, 1));
	}
	return 0;
}

/*
 * The caller gave up on what it posted and frees the buffers and requests
 * next. Each UCX request is cancelled (UCX 1.13 cancels tagged and active
 * message receives; a stream's is not cancelled that way), and the
 * endpoint of every peer that had one is closed: destroying it ends the
 * stream receives still posted on it (with an error), after which no
 * progress of the worker copies into their buffers. The close flushes
 * (UCX refuses a forced close, "Invalid parameter", on an endpoint made
 * without peer error handling, as fabtune's are), so sends in flight end
 * first. The requests are then progressed until they complete, for
 * UCX_ABANDON_S at most; one still incomplete keeps its buffer held
 * (ucx_holds) until the worker is destroyed at close. A peer whose
 * messages were given up on is out of step and takes no more.
 */
#define UCX_ABANDON_S 0.2

static void
ucx_abandon(struct ft_ep *base)
{
	struct ucx_ep *ep = ft_container_of(base, struct ucx_ep, base);
	double end = ft__now() + UCX_ABANDON_S;
	struct ft_error err = { 0 };
	struct inflight *n;
	uint32_t p;

	/* a cancel may call back (complete), which leaves the pending list as it is */
	for (n = ep->pending; n; n = n->next) {
		if (n->req)
			ep->lost[n->req->peer] = true;
		n->req = NULL;
		if (!n->completed)
			ucp_request_cancel(ep->worker, n->ucx);
	}
	ep->sends = 0;
	for (p = 0; p < ep->nranks; p++)
		if (ep->lost[p])
			close_ep(ep, p, 0, UCX_ABANDON_S);
	while (ep->pending && ft__now() < end) {
		ucp_worker_progress(ep->worker);
		reap(ep, &err);
	}
}

static bool
ucx_holds(struct ft_ep *base, const void *p, size_t len)
{
	struct ucx_ep *ep = ft_container_of(base, struct ucx_ep, base);
	const struct inflight *n;

	for (n = ep->pending; n; n = n->next)
		if (ft__overlaps(n->buf, n->len, p, len))
			return true;
	return false;
}

const struct ft_transport_ops ft_ucx_transport = {
	FT__TRANSPORT_P2P_OPS(ucx, ucx_open,
	                      "UCX streams (libucp) over its shared memory, tcp or verbs"),
	.spin_polls = 4096,
	/* never chosen by auto over shm or tcp: asked for by name */
	.rank_local = 5,
	.rank_remote = 5,
};

/*
 * Does this UCX move CUDA memory itself (built with CUDA support, a cuda
 * transport in UCX_TLS)? Then --gpu-buffers hands it device pointers.
 */
bool
ft__ucx_cuda(const struct ft_ep *base)
{
	const struct ucx_ep *ep = ft_container_of(base, const struct ucx_ep, base);
	ucp_context_attr_t attr;

	memset(&attr, 0, sizeof(attr));
	attr.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES;
	if (ucp_context_query(ep->ctx, &attr) != UCS_OK)
		return false;
	return (attr.memory_types & UCS_BIT(UCS_MEMORY_TYPE_CUDA)) != 0;
}

#else

bool
ft__ucx_cuda(const struct ft_ep *base)
{
	return false;
}

static int
ucx_probe(const struct ft_bench_cfg *cfg, struct ft_error *err)
{
	return ft_error_set(err, FT_ENOTSUP,
	                    "not available: this fabtune was built without libucx (install "
	                    "libucx-dev and rebuild)");
}

const struct ft_transport_ops ft_ucx_transport = {
	.name = "ucx",
	.summary = "UCX streams (libucp): not built in",
	.probe = ucx_probe,
	.rank_local = -1,
	.rank_remote = -1,
};

#endif

/* SPDX-License-Identifier: MIT */
/*
 * bench/verbs_atomic.c - remote atomics over verbs: fetch-and-add and
 * compare-and-swap on 8 bytes of a peer's landing region (ft__verbs_atomic),
 * and the ib_atomic_bw / ib_atomic_lat runs of pt2pt with --verbs-op fadd
 * or cswap (ft__verbs_atomic_run).
 */
#include "verbs_ep.h"

#if FT_HAVE_VERBS

int
ft__verbs_atomic(struct ft_ep *base, enum ft_verbs_atomic op, uint64_t offset, uint64_t arg,
                 uint64_t swap, struct ft_req *req, struct ft_error *err)
{
	struct verbs_ep *ep = ft_container_of(base, struct verbs_ep, base);
	struct ibv_send_wr wr, *bad = NULL;
	const struct ft_verbs_qp_info *r;
	struct ibv_sge sge;
	size_t i;
	int rc = ft__verbs_check_req(ep, req, err);

	if (rc < 0)
		return rc;
	if (ep->opts.ud)
		return ft_error_set(err, FT_EINVAL, "verbs: atomics need RC queue pairs, not UD");
	if (req->len < 8)
		return ft_error_set(err, FT_EINVAL,
		                    "verbs: an atomic fetches 8 bytes, the buffer has %zu", req->len);
	i = ft__verbs_next_qp(ep, req->peer, SEQ_ONESIDED);
	r = &ep->remote[i];
	if (offset % 8 != 0 || offset + 8 > r->len)
		return ft_error_set(err, FT_ERANGE,
		                    "verbs: atomic at offset %" PRIu64 " of rank %u's %" PRIu64
		                    "-byte region: expected an 8-byte aligned word inside it",
		                    offset, req->peer, r->len);
	rc = ft__verbs_signaled_wr(ep, req, 8, i, &wr, &sge, err);
	if (rc < 0)
		return rc;
	wr.opcode = op == FT_VERBS_FETCH_ADD ? IBV_WR_ATOMIC_FETCH_AND_ADD :
	                                       IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.remote_addr = r->addr + offset;
	wr.wr.atomic.rkey = r->rkey;
	wr.wr.atomic.compare_add = arg;
	wr.wr.atomic.swap = swap;
	if (ep->api->post_send(ep->qp[i], &wr, &bad) != 0) {
		ft__verbs_wr_done(ep, wr.wr_id);
		return ft_error_set(err, FT_EIO, "%s: atomic on rank %u failed: %s", ep->devname,
		                    req->peer, strerror(errno));
	}
	return 0;
}

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
		rc = base->ops->progress(base, 0, err);
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
	if (rc == 0 && !ft__verbs_mr_for(ep, res, ((size_t)window + 1) * sizeof(*res), err))
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
		c = rc < 0 ? rc : base->ops->progress(base, 0, err);
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
	/* atomics still posted after a failure name reqs and write res: flushed first */
	if (rc < 0)
		ft__ep_abandon(base);
	ft_free(reqs);
	if (res && !ft__ep_forget(base, res, ((size_t)window + 1) * sizeof(*res), FT__MEM_HEAP))
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

#endif

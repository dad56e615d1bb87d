/* SPDX-License-Identifier: MIT */
/*
 * bench/patterns_incast.c - the incast pattern (patterns.c says what it measures): the
 * root drains every sender while serving the victim's pings.
 */
#include "patterns.h"

/* The root: serve the victim's pings while draining every sender. */
static int
incast_root(struct ft_bench_ctx *bc, uint32_t victim, bool busy, struct ft_error *err)
{
	const uint32_t total_pings = LAT_PROBE_ITERS + 10; /* the victim's warm-up + samples */
	struct ft_ep *ep = bc->ep;
	const struct ft_bench_cfg *cfg = bc->cfg;
	uint32_t n = bc->w->nranks, root = (uint32_t)cfg->root, s, pings = 0;
	size_t size = (size_t)cfg->max_bytes, per = (size_t)cfg->window * cfg->iters, k;
	struct p2p_buf rb;
	char *rbuf, pbuf[8];
	struct ft_req *reqs = ft__ep_scratch(ep, 2, sizeof(struct ft_req) * n * cfg->window);
	size_t *posted, busy_left = 0;
	struct ft_req vq;
	bool want_ping = true, vdone = false;
	double last = ft__now();
	int rc = ft__bench_p2p_open(bc, 1, size, &rb, err);

	if (rc < 0)
		return rc;
	rbuf = rb.host;
	posted = ft_calloc(n, sizeof(*posted));
	if (!reqs || !posted) {
		ft_free(posted);
		ft__bench_p2p_close(bc, &rb);
		return FT_ENOMEM;
	}
	memset(reqs, 0, sizeof(struct ft_req) * n * cfg->window);
	for (s = 0; s < n && busy; s++) {
		if (s == root || s == victim)
			continue;
		busy_left += per;
		for (k = 0; k < cfg->window && posted[s] < per && rc == 0; k++, posted[s]++)
			rc = ft__ep_recv(ep, &reqs[s * cfg->window + k], s, rbuf, size, err);
	}
	if (rc == 0)
		rc = ft__ep_recv(ep, &vq, victim, pbuf, sizeof(pbuf), err);
	while (rc == 0 && (busy_left > 0 || !vdone)) {
		int p;

		while (rc == 0 && !vdone && vq.done) {
			if (want_ping) {
				pings++;
				rc = ft__ep_send(ep, &vq, victim, pbuf, sizeof(pbuf), err);
				want_ping = false;
			} else if (pings < total_pings) {
				rc = ft__ep_recv(ep, &vq, victim, pbuf, sizeof(pbuf), err);
				want_ping = true;
			} else {
				vdone = true;
			}
		}
		for (s = 0; s < n && rc == 0 && busy_left; s++) {
			for (k = 0; k < cfg->window; k++) {
				struct ft_req *q = &reqs[s * cfg->window + k];

				if (!q->done || q->len == 0)
					continue;
				busy_left--;
				/* each message up to the GPU as it lands (--gpu-buffers) */
				rc = ft__bench_p2p_up(bc, &rb, size, err);
				if (rc < 0)
					break;
				if (posted[s] < per) {
					posted[s]++;
					rc = ft__ep_recv(ep, q, s, rbuf, size, err);
				} else {
					q->len = 0; /* retired */
				}
				if (rc < 0)
					break;
			}
		}
		/* after reposting, so that a waiting ping finds its receive posted */
		p = ep->ops->progress(ep, 1, err);
		if (p < 0) {
			rc = p;
			break;
		}
		if (p > 0) {
			last = ft__now();
		} else if (ft__now() - last > ep->timeout_s) {
			rc = ft_error_set(err, FT_ETIMEDOUT,
			                  "incast: no progress for %.0fs (--timeout)",
			                  ep->timeout_s);
			break;
		}
		if (rc == 0 && cfg->stop && *cfg->stop)
			rc = ft_error_set(err, FT_EINTR, "interrupted");
	}
	if (rc < 0)
		ft__ep_abandon(ep);
	ft_free(posted);
	ft__bench_p2p_close(bc, &rb);
	return rc;
}

/* A sender: -n windows of messages to the root, each copied down first with --gpu-buffers. */
static int
incast_sender(struct ft_bench_ctx *bc, uint32_t root, struct ft_error *err)
{
	const struct ft_bench_cfg *cfg = bc->cfg;
	size_t size = (size_t)cfg->max_bytes;
	struct ft_req *q = ft__ep_scratch(bc->ep, 2, (sizeof(*q) + sizeof(struct ft_req *)) * cfg->window);
	struct ft_req **ptrs;
	struct p2p_buf sb;
	uint32_t it, k;
	int rc;

	if (!q)
		return FT_ENOMEM;
	ptrs = (struct ft_req **)(void *)(q + cfg->window);
	rc = ft__bench_p2p_open(bc, 0, size, &sb, err);
	if (rc < 0)
		return rc;
	/* the root posts matching receives, no handshake */
	for (it = 0; it < cfg->iters && rc == 0; it++) {
		for (k = 0; k < cfg->window && rc == 0; k++) {
			rc = ft__bench_p2p_down(bc, &sb, size, err);
			if (rc == 0)
				rc = ft__ep_send(bc->ep, &q[k], root, sb.host, size, err);
			ptrs[k] = &q[k];
		}
		if (rc == 0)
			rc = ft__ep_wait(bc->ep, ptrs, cfg->window, err);
	}
	ft__bench_p2p_close(bc, &sb);
	return rc;
}

int
ft__bench_incast(struct ft_bench_ctx *bc, struct ft_bench_report *out, struct ft_error *err)
{
	struct ft_world *w = bc->w;
	const struct ft_bench_cfg *cfg = bc->cfg;
	uint32_t n = w->nranks, r = w->rank, root = (uint32_t)cfg->root, victim, phase;
	double samples[LAT_PROBE_ITERS], t0 = 0, dt = 0;
	int rc = 0;

	if (n < 3)
		return ft_error_set(err, FT_EINVAL,
		                    "incast needs at least 3 ranks (senders, a root and a victim)");
	if (root >= n)
		return ft_error_set(err, FT_EINVAL, "--root %u: the world has %u ranks", root, n);
	victim = root == n - 1 ? n - 2 : n - 1;
	for (phase = 0; phase < 2 && rc == 0; phase++) {
		bool busy = phase == 1;
		struct ft_result_row row;

		rc = ft__world_barrier(w, err);
		if (rc < 0)
			break;
		t0 = ft__now();
		if (r == root) {
			rc = incast_root(bc, victim, busy, err);
			dt = ft__now() - t0;
		} else if (r == victim) {
			rc = ft__bench_pingpong(bc, root, true, 8, 10, LAT_PROBE_ITERS, samples, err);
		} else if (busy) {
			rc = incast_sender(bc, root, err);
		}
		if (rc < 0)
			break;
		{
			double v[3] = { NAN, NAN, NAN }, *all = ft_calloc(n, sizeof(v));
			struct ft_result_row tmp;

			if (!all) {
				rc = FT_ENOMEM;
				break;
			}
			if (r == victim) {
				ft_result_row_init(&tmp);
				ft_bench_lat_stats(samples, LAT_PROBE_ITERS, &tmp);
				v[0] = tmp.lat_p50_us;
				v[2] = tmp.lat_stdev_us;
				row = tmp;
			}
			if (r == root)
				v[1] = dt;
			rc = ft__world_allgather(w, v, sizeof(v), all, err);
			if (rc == 0) {
				double p50 = all[victim * 3], secs = all[root * 3 + 1];
				uint64_t bytes = (uint64_t)(n - 2) * cfg->window * cfg->iters *
				                 cfg->max_bytes;

				if (r != victim)
					ft_result_row_init(&row);
				ft_strlcpy(row.test, busy ? "incast" : "incast_idle",
				           sizeof(row.test));
				ft_strlcpy(row.transport, out->transport, sizeof(row.transport));
				ft_strlcpy(row.dtype, "uint8", sizeof(row.dtype));
				ft_strlcpy(row.redop, "none", sizeof(row.redop));
				row.bytes = busy ? cfg->max_bytes : 8;
				row.count = row.bytes;
				row.root = (int)root;
				row.nranks = n;
				row.lat_p50_us = p50;
				row.time_us = p50;
				/* the victim's ping spread: the row's time is its median ping */
				row.time_stdev_us = all[victim * 3 + 2];
				row.nsamples = LAT_PROBE_ITERS;
				if (busy && secs > 0) {
					row.algbw_GBps = row.busbw_GBps =
					        (double)bytes / secs / 1e9;
				}
				ft__bench_rank_label(w, victim, row.src, sizeof(row.src));
				ft__bench_rank_label(w, root, row.dst, sizeof(row.dst));
				if (busy) {
					out->victim_busy_us = p50;
					out->congestion_impact = p50 / out->victim_idle_us;
				} else {
					out->victim_idle_us = p50;
				}
				rc = ft_run_add(&out->run, &row);
			}
			ft_free(all);
		}
		if (rc == 0 && r == 0)
			ft_progress_update(&cfg->progress, "incast", phase + 1, 2);
	}
	return rc;
}

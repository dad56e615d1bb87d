/* SPDX-License-Identifier: MIT */
/*
 * bench/patterns.c - point-to-point, all-pairs, bisection and incast.
 *
 * pt2pt      ranks 0 and 1: bandwidth with a window of messages in flight
 *            (uni- or bidirectional, as perftest's ib_write_bw -b), or
 *            latency by ping-pong (one-way = round trip / 2, as ib_send_lat).
 * pairs      every pair once, in n-1 rounds of disjoint pairs (the circle
 *            method); both directions at once, then a ping-pong. The
 *            matrices go to everyone, the outliers are found (outlier.c) and
 *            bad pairs are retested against a good host to tell which side
 *            is at fault.
 * bisection  random perfect matchings from ft_rng (seeded), all pairs at once.
 * incast     n-2 senders stream into the root while a victim rank measures
 *            its ping-pong latency with the root; the ratio busy / idle is
 *            GPCNeT's congestion impact.
 *
 * Bandwidth is measured by the receiver: bytes received / time from the
 * pair's start handshake to the last byte.
 */
#include "patterns.h"

#include <fabtune/rng.h>

#define LAT_PROBE_ITERS 100

uint32_t
ft_bench_circle_rounds(uint32_t n)
{
	return n < 2 ? 0 : (n % 2 ? n : n - 1);
}

int
ft_bench_circle_partner(uint32_t n, uint32_t round, uint32_t i)
{
	uint32_t m = n % 2 ? n + 1 : n, k, p;

	if (n < 2 || i >= n || round >= m - 1)
		return -1;
	k = round;
	if (i == m - 1)
		p = k;
	else if (i == k)
		p = m - 1;
	else
		p = (2 * k + (m - 1) - i) % (m - 1);
	return p >= n ? -1 : (int)p;
}

void
ft_bench_lat_stats(double *s, size_t n, struct ft_result_row *row)
{
	double sum = 0, var = 0;
	size_t i, k;

	row->nsamples = (uint32_t)n;
	if (n == 0)
		return;
	ft__sort_doubles(s, n);
	for (i = 0; i < n; i++)
		sum += s[i];
	row->lat_avg_us = sum / (double)n;
	for (i = 0; i < n; i++)
		var += (s[i] - row->lat_avg_us) * (s[i] - row->lat_avg_us);
	row->lat_stdev_us = sqrt(var / (double)n);
	row->lat_min_us = s[0];
	row->lat_max_us = s[n - 1];
	row->lat_p50_us = s[n / 2];
	k = (size_t)ceil(0.99 * (double)n);
	row->lat_p99_us = s[k ? k - 1 : 0];
	k = (size_t)ceil(0.999 * (double)n);
	row->lat_p999_us = s[k ? k - 1 : 0];
	row->time_us = row->lat_p50_us;
}

/* A one-byte handshake with @peer: both sides start together. */
static int
sync_pair(struct ft_bench_ctx *bc, uint32_t peer, struct ft_error *err)
{
	char s = 1, r = 0;

	return ft__ep_sendrecv(bc->ep, peer, &s, 1, peer, &r, 1, err);
}

/*
 * In a timed run (-D), rank 0 decides when to stop and tells rank 1 after
 * every batch: 1 go on, 0 stop (untimed, 8 bytes). Both ranks return the
 * same answer.
 */
static int
go_on(struct ft_bench_ctx *bc, uint32_t peer, bool leader, double t0, double dur_s, bool *more,
      struct ft_error *err)
{
	uint64_t flag = leader && ft__now() - t0 < dur_s ? 1 : 0;
	struct ft_req q;
	int rc = leader ? ft__ep_send(bc->ep, &q, peer, &flag, sizeof(flag), err) :
	                  ft__ep_recv(bc->ep, &q, peer, &flag, sizeof(flag), err);

	if (rc == 0)
		rc = ft__ep_wait1(bc->ep, &q, err);
	*more = flag != 0;
	return rc;
}

/*
 * Stream @nmsg messages of @size bytes to and/or from @peer, @window in
 * flight (perftest's -n and tx depth); with @dur_s > 0 instead, windows
 * until rank 0 has sent for that long (perftest's -D), and @nmsg_done says
 * how many went. @rx_GBps gets the receive bandwidth measured here,
 * @best_GBps the best window (perftest's "BW peak"; 0 in a timed run, as
 * perftest prints it); both NaN when not receiving.
 */
/*
 * --gpu-buffers for the point-to-point patterns: the message lives in GPU
 * memory (@dev) and travels through a pinned host buffer; every message sent
 * is copied down first, every message received is copied up after, inside
 * the measured time. Without --gpu-buffers: the endpoint's scratch buffer.
 */
struct p2p_buf {
	char *host;
	uint64_t dev;
	size_t bytes;
};

static bool
is_verbs(const struct ft_bench_ctx *bc)
{
	return strcmp(bc->ep->ops->name, "verbs") == 0;
}

static int
p2p_open(struct ft_bench_ctx *bc, unsigned idx, size_t size, struct p2p_buf *b,
         struct ft_error *err)
{
	memset(b, 0, sizeof(*b));
	b->bytes = size ? size : 1;
	if (!bc->cuda) {
		b->host = ft__ep_scratch(bc->ep, idx, size ? size : 1);
		return b->host ? 0 : FT_ENOMEM;
	}
	if (bc->gpu_direct) {
		/* UCX reads and writes the device buffer itself, the RDMA adapter once the
		   buffer is registered with it (GPUDirect RDMA): nothing to stage */
		const char *path;

		if (ft__cuda_alloc(bc->cuda, size, &b->dev, err) < 0)
			return FT_ENOMEM;
		if (is_verbs(bc) && ft__verbs_reg_cuda(bc->ep, bc->cuda, b->dev, size ? size : 1,
		                                       &path, err) < 0) {
			ft__cuda_free(bc->cuda, b->dev);
			b->dev = 0;
			return FT_ENOTSUP;
		}
		b->host = (char *)(uintptr_t)b->dev;
		return 0;
	}
	b->host = ft__cuda_host_alloc(bc->cuda, size);
	if (!b->host)
		return ft_error_set(err, FT_ENOMEM, "--gpu-buffers: %zu bytes of pinned memory",
		                    size);
	memset(b->host, 0, size ? size : 1);
	if (ft__cuda_alloc(bc->cuda, size, &b->dev, err) < 0 ||
	    ft__cuda_htod(bc->cuda, b->dev, b->host, size, err) < 0) {
		ft__cuda_host_free(bc->cuda, b->host);
		ft__cuda_free(bc->cuda, b->dev);
		b->host = NULL;
		b->dev = 0;
		return FT_ENOMEM;
	}
	return 0;
}

static void
p2p_close(struct ft_bench_ctx *bc, struct p2p_buf *b)
{
	if (!bc->cuda)
		return;
	if (!bc->gpu_direct) {
		ft__ep_forget(bc->ep, b->host, b->bytes);
		ft__cuda_host_free(bc->cuda, b->host);
	}
	else if (is_verbs(bc))
		ft__verbs_unreg(bc->ep, b->dev);
	ft__cuda_free(bc->cuda, b->dev);
	b->host = NULL;
	b->dev = 0;
}

/* Before a send: the message from the GPU into the host buffer. */
static int
p2p_down(struct ft_bench_ctx *bc, struct p2p_buf *b, size_t size, struct ft_error *err)
{
	return bc->cuda && !bc->gpu_direct ? ft__cuda_dtoh(bc->cuda, b->host, b->dev, size, err) :
	                                     0;
}

/* After a receive: the message up to the GPU. */
static int
p2p_up(struct ft_bench_ctx *bc, struct p2p_buf *b, size_t size, struct ft_error *err)
{
	return bc->cuda && !bc->gpu_direct ? ft__cuda_htod(bc->cuda, b->dev, b->host, size, err) :
	                                     0;
}

static int
stream_run(struct ft_bench_ctx *bc, uint32_t peer, bool send, bool recv, size_t size,
           uint32_t window, uint64_t nmsg, double dur_s, double *rx_GBps, double *best_GBps,
           uint64_t *nmsg_done, double *iter_cv, struct p2p_buf *sb, struct p2p_buf *rb,
           struct ft_error *err);

static int
stream(struct ft_bench_ctx *bc, uint32_t peer, bool send, bool recv, size_t size, uint32_t window,
       uint64_t nmsg, double dur_s, double *rx_GBps, double *best_GBps, uint64_t *nmsg_done,
       double *iter_cv, struct ft_error *err)
{
	struct p2p_buf sb, rb;
	int rc;

	*rx_GBps = *best_GBps = NAN;
	rc = p2p_open(bc, 0, size, &sb, err);
	if (rc < 0)
		return rc;
	rc = p2p_open(bc, 1, size, &rb, err);
	if (rc == 0) {
		rc = stream_run(bc, peer, send, recv, size, window, nmsg, dur_s, rx_GBps, best_GBps,
		                nmsg_done, iter_cv, &sb, &rb, err);
		p2p_close(bc, &rb);
	}
	p2p_close(bc, &sb);
	return rc;
}

static int
stream_run(struct ft_bench_ctx *bc, uint32_t peer, bool send, bool recv, size_t size, uint32_t window,
       uint64_t nmsg, double dur_s, double *rx_GBps, double *best_GBps, uint64_t *nmsg_done,
       double *iter_cv, struct p2p_buf *sb, struct p2p_buf *rb, struct ft_error *err)
{
	struct ft_ep *ep = bc->ep;
	char *sbuf = sb->host, *rbuf = rb->host;
	struct ft_req *reqs = ft__ep_scratch(
	        ep, 2, (sizeof(struct ft_req) + sizeof(struct ft_req *)) * 2 * window);
	struct ft_req **ptrs;
	double t0, tprev, best = 0, sum = 0, ss = 0;
	uint64_t nwin = 0;
	uint64_t done = 0;
	uint32_t k;
	bool more = true;
	int rc;

	*rx_GBps = *best_GBps = NAN;
	if (!sbuf || !rbuf || !reqs)
		return FT_ENOMEM;
	ptrs = (struct ft_req **)(void *)(reqs + 2 * window);
	rc = sync_pair(bc, peer, err);
	if (rc < 0)
		return rc;
	t0 = tprev = ft__now();
	while (dur_s > 0 ? more : done < nmsg) {
		uint32_t w = dur_s > 0 ? window : (uint32_t)FT_MIN((uint64_t)window, nmsg - done);
		size_t n = 0;

		for (k = 0; k < w && recv; k++, n++) {
			rc = ft__ep_recv(ep, &reqs[n], peer, rbuf, size, err);
			if (rc < 0)
				return rc;
			ptrs[n] = &reqs[n];
		}
		for (k = 0; k < w && send; k++, n++) {
			rc = p2p_down(bc, sb, size, err);
			if (rc == 0)
				rc = ft__ep_send(ep, &reqs[n], peer, sbuf, size, err);
			if (rc < 0)
				return rc;
			ptrs[n] = &reqs[n];
		}
		rc = ft__ep_wait(ep, ptrs, n, err);
		for (k = 0; rc == 0 && k < w && recv; k++)
			rc = p2p_up(bc, rb, size, err);
		if (rc < 0)
			return rc;
		done += w;
		if (recv) {
			double now = ft__now(), dt = now - tprev;

			if (dt > 0)
				best = FT_MAX(best, (double)size * w / dt / 1e9);
			tprev = now;
			if (w == window) { /* full windows only: the last may be short */
				sum += dt;
				ss += dt * dt;
				nwin++;
			}
		}
		if (bc->cfg->stop && *bc->cfg->stop)
			return ft_error_set(err, FT_EINTR, "interrupted");
		if (dur_s > 0) {
			rc = go_on(bc, peer, ep->w->rank < peer, t0, dur_s, &more, err);
			if (rc < 0)
				return rc;
		}
	}
	if (recv) {
		double dt = ft__now() - t0;

		*rx_GBps = dt > 0 ? (double)size * (double)done / dt / 1e9 : 0;
		*best_GBps = dur_s > 0 ? 0 : best;
		/* coefficient of variation of one window's time */
		if (iter_cv && nwin > 1 && sum > 0)
			*iter_cv = sqrt(FT_MAX(0.0, (ss - sum * sum / (double)nwin) /
			                                (double)(nwin - 1))) /
			           (sum / (double)nwin);
	}
	if (nmsg_done)
		*nmsg_done = done;
	/* the sender must not run ahead into the next test */
	return sync_pair(bc, peer, err);
}

static int
pingpong(struct ft_bench_ctx *bc, uint32_t peer, bool initiator, size_t size, uint32_t warmup,
         uint32_t iters, double *samples, struct ft_error *err)
{
	struct ft_ep *ep = bc->ep;
	struct p2p_buf b;
	char *buf;
	struct ft_req q;
	uint32_t i;
	int rc = p2p_open(bc, 0, size, &b, err);

	if (rc < 0)
		return rc;
	buf = b.host;
	for (i = 0; i < warmup + iters && rc == 0; i++) {
		if (initiator) {
			/* only the initiator reads the clock: twice a round trip */
			double t0 = ft__now();

			rc = p2p_down(bc, &b, size, err);
			if (rc == 0)
				rc = ft__ep_send(ep, &q, peer, buf, size, err);
			if (rc == 0)
				rc = ft__ep_wait1(ep, &q, err);
			if (rc == 0)
				rc = ft__ep_recv(ep, &q, peer, buf, size, err);
			if (rc == 0)
				rc = ft__ep_wait1(ep, &q, err);
			if (rc == 0)
				rc = p2p_up(bc, &b, size, err);
			if (rc == 0 && i >= warmup)
				samples[i - warmup] = (ft__now() - t0) * 1e6 / 2;
		} else {
			rc = ft__ep_recv(ep, &q, peer, buf, size, err);
			if (rc == 0)
				rc = ft__ep_wait1(ep, &q, err);
			if (rc == 0)
				rc = p2p_up(bc, &b, size, err);
			if (rc == 0)
				rc = p2p_down(bc, &b, size, err);
			if (rc == 0)
				rc = ft__ep_send(ep, &q, peer, buf, size, err);
			if (rc == 0)
				rc = ft__ep_wait1(ep, &q, err);
		}
		if (rc == 0 && (i & 63) == 0 && bc->cfg->stop && *bc->cfg->stop)
			rc = ft_error_set(err, FT_EINTR, "interrupted");
	}
	p2p_close(bc, &b);
	return rc;
}

/*
 * Ping-pong for cfg.duration_s (perftest's -D): batches of 64 round trips
 * until rank 0 says stop; @samples grows to hold them all (@n).
 */
static int
pingpong_timed(struct ft_bench_ctx *bc, uint32_t peer, bool initiator, size_t size,
               double **samples, size_t *n, struct ft_error *err)
{
	const struct ft_bench_cfg *cfg = bc->cfg;
	size_t cap = 0;
	double t0;
	bool more = true;
	int rc = sync_pair(bc, peer, err);

	t0 = ft__now();
	*n = 0;
	while (rc == 0 && more) {
		if (*n + 64 > cap) {
			double *p;

			cap = cap ? cap * 2 : 4096;
			if (cap > ((size_t)1 << 26))
				return ft_error_set(err, FT_ERANGE, "-D: more than %zu round trips",
				                    (size_t)1 << 26);
			p = ft_reallocarray(*samples, cap, sizeof(**samples));
			if (!p)
				return FT_ENOMEM;
			*samples = p;
		}
		rc = pingpong(bc, peer, initiator, size, *n ? 0 : cfg->warmup, 64, *samples + *n, err);
		if (rc == 0)
			*n += 64;
		if (rc == 0)
			rc = go_on(bc, peer, initiator, t0, cfg->duration_s, &more, err);
	}
	return rc;
}

static void
row_base(struct ft_result_row *row, const char *test, const struct ft_bench_report *out,
         uint64_t bytes, uint32_t nranks)
{
	ft_result_row_init(row);
	ft_strlcpy(row->test, test, sizeof(row->test));
	ft_strlcpy(row->transport, out->transport, sizeof(row->transport));
	ft_strlcpy(row->dtype, "uint8", sizeof(row->dtype));
	ft_strlcpy(row->redop, "none", sizeof(row->redop));
	row->bytes = bytes;
	row->count = bytes;
	row->root = -1;
	row->nranks = nranks;
}

static void
label(const struct ft_world *w, uint32_t r, char *buf, size_t len)
{
	snprintf(buf, len, "%.40s/rank%u", w->info[r].host, r);
}

bool
ft__bench_step(const struct ft_bench_cfg *cfg, uint64_t *size)
{
	uint64_t factor = FT_MAX(cfg->step_factor, 2);

	if (cfg->step_bytes) {
		*size += cfg->step_bytes;
		return true;
	}
	if (*size > cfg->max_bytes / factor)
		return false;
	*size *= factor;
	return true;
}

/*
 * --verbs-op fadd or cswap (ib_atomic_bw, ib_atomic_lat): rank 0 issues the
 * atomics on rank 1's memory, rank 1 stays passive; v[0] and v[1] rank 0's
 * rate (8 bytes an atomic), v[2] whether the word moved by the count (#wrong).
 */
static int
atomics_size(struct ft_bench_ctx *bc, bool lat, double *samples, double v[3],
             struct ft_error *err)
{
	uint32_t r = bc->w->rank;
	int64_t wrong = -1;
	int rc = sync_pair(bc, 1 - r, err);

	if (rc == 0 && r == 0) {
		rc = ft__verbs_pt2pt_atomics(bc->ep, 1, bc->cfg->iters, bc->cfg->window,
		                             lat ? samples : NULL, &v[0], &wrong, err);
		v[1] = lat ? NAN : v[0];
		v[2] = (double)wrong;
	}
	return rc == 0 ? sync_pair(bc, 1 - r, err) : rc;
}

int
ft__bench_pt2pt(struct ft_bench_ctx *bc, struct ft_bench_report *out, struct ft_error *err)
{
	const struct ft_bench_cfg *cfg = bc->cfg;
	struct ft_world *w = bc->w;
	uint32_t r = w->rank;
	bool lat = cfg->pattern == FT_OP_PT2PT_LAT;
	uint64_t size, total = ft__bench_nsizes(cfg), done = 0;
	double *samples = NULL;
	bool atomics = is_verbs(bc) && ft__verbs_atomics(bc->ep);
	int rc = 0;

	if (w->nranks < 2)
		return ft_error_set(err, FT_EINVAL, "pt2pt needs 2 ranks (use --np 2)");
	if (atomics && (cfg->min_bytes != 8 || cfg->max_bytes != 8 || cfg->duration_s > 0 ||
	                cfg->bidir || bc->cuda))
		return ft_error_set(err, FT_EINVAL,
		                    "--verbs-op %s: an atomic moves 8 bytes: -s 8, counted with "
		                    "-n (no -D, --bidir or --gpu-buffers), as ib_atomic_bw",
		                    cfg->verbs_op);
	if (lat) {
		samples = ft_calloc(cfg->iters, sizeof(*samples));
		if (!samples)
			return FT_ENOMEM;
	}
	for (size = cfg->min_bytes; size <= cfg->max_bytes && rc == 0;) {
		struct ft_result_row row;
		double v[3] = { NAN, NAN, NAN }, *all = NULL;
		uint64_t nmsg = cfg->iters;

		row_base(&row, ft_op_name(cfg->pattern), out, size, 2);
		label(w, 0, row.src, sizeof(row.src));
		label(w, 1, row.dst, sizeof(row.dst));
		if (atomics) {
			if (r < 2)
				rc = atomics_size(bc, lat, samples, v, err);
			if (rc == 0 && r == 0 && lat)
				ft_bench_lat_stats(samples, cfg->iters, &row);
			if (lat)
				v[0] = row.lat_p50_us;
		} else if (lat && cfg->duration_s > 0) {
			size_t n = 0;

			if (r < 2)
				rc = pingpong_timed(bc, 1 - r, r == 0, size, &samples, &n, err);
			if (rc == 0 && r == 0)
				ft_bench_lat_stats(samples, n, &row);
			v[0] = row.lat_p50_us;
		} else if (lat) {
			if (r < 2)
				rc = pingpong(bc, 1 - r, r == 0, size, cfg->warmup, cfg->iters,
				              samples, err);
			if (rc == 0 && r == 0)
				ft_bench_lat_stats(samples, cfg->iters, &row);
			v[0] = row.lat_p50_us;
		} else if (r < 2) {
			bool bidir = cfg->bidir;

			/* -n counts messages, as perftest's -n: not windows of them */
			rc = stream(bc, 1 - r, r == 0 || bidir, r == 1 || bidir, size, cfg->window,
			            cfg->iters, cfg->duration_s, &v[0], &v[1], &nmsg, &v[2],
			            err);
		}
		all = ft_calloc(w->nranks, sizeof(v));
		if (!all) {
			rc = FT_ENOMEM;
			break;
		}
		if (rc == 0)
			rc = ft__world_allgather(w, v, sizeof(v), all, err);
		if (rc == 0 && atomics)
			row.wrong = (int64_t)all[2]; /* rank 0 checked the word */
		if (rc == 0 && !lat) {
			/* receive bandwidth of rank 1 (plus rank 0's when bidirectional); atomics:
			   rank 0's, the side that issues them */
			double bw = all[3], peak = all[4], cv = all[5];

			if (atomics) {
				bw = all[0];
				peak = all[1];
				cv = NAN;
			}

			if (cfg->bidir) {
				bw += all[0];
				peak += all[1];
				if (isfinite(all[2]))
					cv = isfinite(cv) ? FT_MAX(cv, all[2]) : all[2];
			}
			row.algbw_GBps = row.busbw_GBps = bw;
			row.ip_algbw_GBps = peak; /* perftest's BW peak */
			row.nsamples = (uint32_t)FT_MIN(nmsg, (uint64_t)UINT32_MAX);
			row.time_us = bw > 0 ? (double)size / (bw * 1e3) * (cfg->bidir ? 2 : 1) : 0;
			row.time_stdev_us = cv * row.time_us;
		}
		if (rc == 0 && lat && r == 0) {
			row.algbw_GBps = row.time_us > 0 ? (double)size / (row.time_us * 1e3) : 0;
			row.busbw_GBps = row.algbw_GBps;
		}
		ft_free(all);
		if (rc == 0 && r == 0)
			rc = ft_run_add(&out->run, &row);
		if (rc == 0 && r == 0 && cfg->on_row)
			cfg->on_row(cfg->on_row_ud, out, &row);
		if (rc == 0 && r == 0)
			ft_progress_update(&cfg->progress, row.test, ++done, total);
		if (!ft__bench_step(cfg, &size))
			break;
	}
	ft_free(samples);
	return rc;
}

/* Measure @peer both ways at once; rx_from[peer] and lat[peer] on the lower rank. */
static int
pair_test(struct ft_bench_ctx *bc, uint32_t peer, double *rx, double *cv, double *lat,
          struct ft_error *err)
{
	const struct ft_bench_cfg *cfg = bc->cfg;
	double best, samples[LAT_PROBE_ITERS];
	struct ft_result_row tmp;
	int rc;

	rc = stream(bc, peer, true, true, (size_t)cfg->max_bytes, cfg->window,
	            (uint64_t)cfg->iters * cfg->window, 0, rx, &best, NULL, cv, err);
	if (rc < 0)
		return rc;
	rc = pingpong(bc, peer, bc->w->rank < peer, 8, 10, LAT_PROBE_ITERS, samples, err);
	if (rc < 0)
		return rc;
	*lat = NAN;
	if (bc->w->rank < peer) {
		ft_result_row_init(&tmp);
		ft_bench_lat_stats(samples, LAT_PROBE_ITERS, &tmp);
		*lat = tmp.lat_p50_us;
	}
	return 0;
}

/* rx[n] per rank -> matrix[src * n + dst] (dst measured it). */
static int
gather_matrix(struct ft_world *w, const double *mine, double *matrix, bool symmetric_lat,
              struct ft_error *err)
{
	uint32_t n = w->nranks, s, d;
	double *all = ft_calloc((size_t)n * n, sizeof(*all));
	int rc;

	if (!all)
		return FT_ENOMEM;
	rc = ft__world_allgather(w, mine, sizeof(*mine) * n, all, err);
	for (d = 0; rc == 0 && d < n; d++)
		for (s = 0; s < n; s++) {
			double v = all[(size_t)d * n + s];

			if (symmetric_lat && isnan(v))
				v = all[(size_t)s * n + d];
			matrix[(size_t)s * n + d] = s == d ? NAN : v;
		}
	ft_free(all);
	return rc;
}

static void
retest_verdicts(struct ft_bench_report *out, const double *vals, double median, double thr)
{
	size_t i, k = 0;

	for (i = 0; i < out->outliers.len; i++) {
		struct ft_bench_outlier *o = ft_vec_at(&out->outliers, i);
		/* vals: per pair outlier: a<->g (a rx, g rx), b<->g (b rx, g rx) */
		double ag = FT_MIN(vals[k * 4 + 0], vals[k * 4 + 1]);
		double bg = FT_MIN(vals[k * 4 + 2], vals[k * 4 + 3]);
		bool abad = ag < thr * median, bbad = bg < thr * median;
		const struct ft_rank_info *a = &out->ranks[o->rank_a], *b = &out->ranks[o->rank_b];

		if (strcmp(o->kind, "pair") != 0)
			continue;
		k++;
		if (abad && !bbad)
			snprintf(o->blame, sizeof(o->blame), "host %.48s (rank %u, %.20s)", a->host,
			         o->rank_a, a->ifname);
		else if (bbad && !abad)
			snprintf(o->blame, sizeof(o->blame), "host %.48s (rank %u, %.20s)", b->host,
			         o->rank_b, b->ifname);
		else if (abad && bbad)
			snprintf(o->blame, sizeof(o->blame), "both hosts");
		else
			snprintf(o->blame, sizeof(o->blame),
			         "the path between them (both sides "
			         "are fine with another host)");
	}
}

static int
pairs_retest(struct ft_bench_ctx *bc, struct ft_bench_report *out, struct ft_error *err)
{
	struct ft_world *w = bc->w;
	uint32_t n = w->nranks, r = w->rank, g = 0;
	size_t i, npairs = 0, k = 0;
	double best = -1, *mine, *all;
	int rc = 0;

	for (i = 0; i < out->outliers.len; i++)
		if (strcmp(((struct ft_bench_outlier *)ft_vec_at(&out->outliers, i))->kind,
		           "pair") == 0)
			npairs++;
	if (npairs == 0 || n < 3)
		return 0;
	mine = ft_calloc(npairs * 4, sizeof(*mine));
	all = ft_calloc(npairs * 4 * n, sizeof(*all));
	if (!mine || !all) {
		ft_free(mine);
		ft_free(all);
		return FT_ENOMEM;
	}
	for (i = 0; i < npairs * 4; i++)
		mine[i] = NAN;
	for (i = 0; i < out->outliers.len && rc == 0; i++) {
		struct ft_bench_outlier *o = ft_vec_at(&out->outliers, i);
		uint32_t h, side;

		if (strcmp(o->kind, "pair") != 0)
			continue;
		/* the reference: the best host that is neither side */
		best = -1;
		for (h = 0; h < n; h++) {
			double sum = 0;
			uint32_t j;

			if (h == o->rank_a || h == o->rank_b)
				continue;
			for (j = 0; j < n; j++)
				if (j != h)
					sum += out->bw_GBps[(size_t)h * n + j] +
					       out->bw_GBps[(size_t)j * n + h];
			if (sum > best) {
				best = sum;
				g = h;
			}
		}
		for (side = 0; side < 2 && rc == 0; side++) {
			uint32_t x = side ? o->rank_b : o->rank_a;
			double bw = NAN, peak;

			if (r == x || r == g)
				rc = stream(bc, r == x ? g : x, true, true,
				            (size_t)bc->cfg->max_bytes, bc->cfg->window,
				            (uint64_t)bc->cfg->iters * bc->cfg->window, 0, &bw,
				            &peak, NULL, NULL, err);
			if (r == x)
				mine[k * 4 + side * 2] = bw;
			if (r == g)
				mine[k * 4 + side * 2 + 1] = bw;
			if (rc == 0)
				rc = ft__world_barrier(w, err);
		}
		k++;
	}
	if (rc == 0)
		rc = ft__world_allgather(w, mine, sizeof(*mine) * npairs * 4, all, err);
	if (rc == 0) {
		/* each value was measured by one rank: take the one that is set */
		for (i = 0; i < npairs * 4; i++) {
			uint32_t q;

			mine[i] = NAN;
			for (q = 0; q < n; q++)
				if (!isnan(all[q * npairs * 4 + i]))
					mine[i] = all[q * npairs * 4 + i];
		}
		retest_verdicts(out, mine, out->median_GBps, bc->cfg->threshold);
	}
	ft_free(mine);
	ft_free(all);
	return rc;
}

int
ft__bench_pairs(struct ft_bench_ctx *bc, struct ft_bench_report *out, struct ft_error *err)
{
	struct ft_world *w = bc->w;
	uint32_t n = w->nranks, r = w->rank, round, rounds = ft_bench_circle_rounds(n), s, d;
	double *rx = ft_calloc(n, sizeof(*rx)), *lat = ft_calloc(n, sizeof(*lat));
	double *cv = ft_calloc(n, sizeof(*cv)), *cvm = ft_calloc((size_t)n * n, sizeof(*cvm));
	int rc = 0;

	if (n < 2) {
		rc = ft_error_set(err, FT_EINVAL, "pairs needs at least 2 ranks");
		goto out;
	}
	out->bw_GBps = ft_calloc((size_t)n * n, sizeof(double));
	out->lat_us = ft_calloc((size_t)n * n, sizeof(double));
	if (!rx || !lat || !cv || !cvm || !out->bw_GBps || !out->lat_us) {
		rc = FT_ENOMEM;
		goto out;
	}
	for (s = 0; s < n; s++)
		rx[s] = lat[s] = cv[s] = NAN;
	for (round = 0; round < rounds && rc == 0; round++) {
		int p = ft_bench_circle_partner(n, round, r);

		if (p >= 0)
			rc = pair_test(bc, (uint32_t)p, &rx[p], &cv[p], &lat[p], err);
		if (rc == 0)
			rc = ft__world_barrier(w, err);
		if (rc == 0 && r == 0)
			ft_progress_update(&bc->cfg->progress, "pairs", round + 1, rounds);
	}
	if (rc == 0)
		rc = gather_matrix(w, rx, out->bw_GBps, false, err);
	if (rc == 0)
		rc = gather_matrix(w, cv, cvm, false, err);
	if (rc == 0)
		rc = gather_matrix(w, lat, out->lat_us, true, err);
	if (rc < 0)
		goto out;
	/* lat was measured by the lower rank of each pair: mirror it */
	for (s = 0; s < n; s++)
		for (d = 0; d < n; d++)
			if (s != d && isnan(out->lat_us[(size_t)s * n + d]))
				out->lat_us[(size_t)s * n + d] = out->lat_us[(size_t)d * n + s];
	for (s = 0; s < n; s++)
		for (d = 0; d < n; d++) {
			struct ft_result_row row;

			if (s == d)
				continue;
			row_base(&row, "pairs", out, bc->cfg->max_bytes, 2);
			label(w, s, row.src, sizeof(row.src));
			label(w, d, row.dst, sizeof(row.dst));
			row.algbw_GBps = row.busbw_GBps = out->bw_GBps[(size_t)s * n + d];
			row.time_us = row.algbw_GBps > 0 ?
			                      (double)bc->cfg->max_bytes / (row.algbw_GBps * 1e3) :
			                      0;
			row.lat_p50_us = out->lat_us[(size_t)s * n + d];
			/* the receiver's per-window spread: the pair's own noise band */
			row.time_stdev_us = cvm[(size_t)s * n + d] * row.time_us;
			row.nsamples = bc->cfg->iters * bc->cfg->window;
			rc = ft_run_add(&out->run, &row);
			if (rc < 0)
				goto out;
		}
	rc = ft__bench_find_outliers(out, bc->cfg->threshold);
	if (rc == 0 && bc->cfg->retest)
		rc = pairs_retest(bc, out, err);
out:
	ft_free(rx);
	ft_free(lat);
	ft_free(cv);
	ft_free(cvm);
	return rc;
}

int
ft__bench_bisection(struct ft_bench_ctx *bc, struct ft_bench_report *out, struct ft_error *err)
{
	struct ft_world *w = bc->w;
	uint32_t n = w->nranks, r = w->rank, round, i;
	uint32_t *perm = ft_calloc(n, sizeof(*perm));
	double *all = ft_calloc(2 * (size_t)n, sizeof(*all));
	int rc = 0;

	if (!perm || !all) {
		rc = FT_ENOMEM;
		goto out;
	}
	if (n < 2) {
		rc = ft_error_set(err, FT_EINVAL, "bisection needs at least 2 ranks");
		goto out;
	}
	for (round = 0; round < bc->cfg->rounds && rc == 0; round++) {
		struct ft_rng rng;
		struct ft_result_row row;
		double mine[2] = { NAN, NAN }, peak, sum = 0, lo = INFINITY;
		int partner = -1;
		uint32_t lo_rank = 0, ndir = 0;

		for (i = 0; i < n; i++)
			perm[i] = i;
		ft_rng_seed(&rng, bc->cfg->seed, ft_rng_stream(0x62697365u, round));
		ft_rng_shuffle_u32(&rng, perm, n);
		for (i = 0; i + 1 < n; i += 2) {
			if (perm[i] == r)
				partner = (int)perm[i + 1];
			if (perm[i + 1] == r)
				partner = (int)perm[i];
		}
		if (partner >= 0)
			rc = stream(bc, (uint32_t)partner, true, true, (size_t)bc->cfg->max_bytes,
			            bc->cfg->window,
			            (uint64_t)bc->cfg->iters * bc->cfg->window, 0, &mine[0],
			            &peak, NULL, &mine[1], err);
		if (rc == 0)
			rc = ft__world_allgather(w, mine, sizeof(mine), all, err);
		if (rc < 0)
			break;
		for (i = 0; i < n; i++) {
			if (isnan(all[2 * i]))
				continue;
			sum += all[2 * i];
			ndir++;
			if (all[2 * i] < lo) {
				lo = all[2 * i];
				lo_rank = i;
			}
		}
		row_base(&row, "bisection", out, bc->cfg->max_bytes, n);
		row.algbw_GBps = sum;           /* aggregate over all directions */
		row.busbw_GBps = ndir ? lo : 0; /* the weakest direction */
		row.time_us = ndir && lo > 0 ? (double)bc->cfg->max_bytes / (lo * 1e3) : 0;
		/* the weakest direction's per-window spread, as its time is the row's */
		row.time_stdev_us = ndir ? all[2 * lo_rank + 1] * row.time_us : NAN;
		row.nsamples = bc->cfg->iters * bc->cfg->window;
		snprintf(row.algo, sizeof(row.algo), "round%u", round + 1);
		label(w, lo_rank, row.dst, sizeof(row.dst));
		for (i = 0; i + 1 < n; i += 2)
			if (perm[i] == lo_rank || perm[i + 1] == lo_rank)
				label(w, perm[i] == lo_rank ? perm[i + 1] : perm[i], row.src,
				      sizeof(row.src));
		rc = ft_run_add(&out->run, &row);
		if (rc == 0 && r == 0)
			ft_progress_update(&bc->cfg->progress, "bisection", round + 1,
			                   bc->cfg->rounds);
	}
out:
	ft_free(perm);
	ft_free(all);
	return rc;
}

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
	int rc = p2p_open(bc, 1, size, &rb, err);

	if (rc < 0)
		return rc;
	rbuf = rb.host;
	posted = ft_calloc(n, sizeof(*posted));
	if (!reqs || !posted) {
		ft_free(posted);
		p2p_close(bc, &rb);
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
				rc = p2p_up(bc, &rb, size, err);
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
	ft_free(posted);
	p2p_close(bc, &rb);
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
	rc = p2p_open(bc, 0, size, &sb, err);
	if (rc < 0)
		return rc;
	/* the root posts matching receives, no handshake */
	for (it = 0; it < cfg->iters && rc == 0; it++) {
		for (k = 0; k < cfg->window && rc == 0; k++) {
			rc = p2p_down(bc, &sb, size, err);
			if (rc == 0)
				rc = ft__ep_send(bc->ep, &q[k], root, sb.host, size, err);
			ptrs[k] = &q[k];
		}
		if (rc == 0)
			rc = ft__ep_wait(bc->ep, ptrs, cfg->window, err);
	}
	p2p_close(bc, &sb);
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
			rc = pingpong(bc, root, true, 8, 10, LAT_PROBE_ITERS, samples, err);
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
				label(w, victim, row.src, sizeof(row.src));
				label(w, root, row.dst, sizeof(row.dst));
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

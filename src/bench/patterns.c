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
 *
 * This file holds pt2pt and the loops every pattern runs (the message
 * stream, the ping-pong, the --gpu-buffers staging); pairs and bisection
 * are in patterns_pairs.c, incast in patterns_incast.c.
 */
#include "patterns.h"

#include <fabtune/rng.h>

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
 * flight (perftest's -n and tx depth), after @warmup untimed full windows
 * (osu_bw's skip); with @dur_s > 0 instead, windows
 * until rank 0 has sent for that long (perftest's -D), and @nmsg_done says
 * how many went. @rx_GBps gets the receive bandwidth measured here,
 * @best_GBps the best window (perftest's "BW peak"; 0 in a timed run, as
 * perftest prints it); both NaN when not receiving.
 */

static bool
is_verbs(const struct ft_bench_ctx *bc)
{
	return strcmp(bc->ep->ops->name, "verbs") == 0;
}

int
ft__bench_p2p_open(struct ft_bench_ctx *bc, unsigned idx, size_t size, struct p2p_buf *b,
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

void
ft__bench_p2p_close(struct ft_bench_ctx *bc, struct p2p_buf *b)
{
	if (!bc->cuda)
		return;
	if (!bc->gpu_direct) {
		if (!ft__ep_forget(bc->ep, b->host, b->bytes, FT__MEM_KEEP))
			ft__cuda_host_free(bc->cuda, b->host);
	}
	else if (is_verbs(bc))
		ft__verbs_unreg(bc->ep, b->dev);
	ft__cuda_free(bc->cuda, b->dev);
	b->host = NULL;
	b->dev = 0;
}

/* Before a send: the message from the GPU into the host buffer. */
FT__HOT int
ft__bench_p2p_down(struct ft_bench_ctx *bc, struct p2p_buf *b, size_t size, struct ft_error *err)
{
	return bc->cuda && !bc->gpu_direct ? ft__cuda_dtoh(bc->cuda, b->host, b->dev, size, err) :
	                                     0;
}

/* After a receive: the message up to the GPU. */
FT__HOT int
ft__bench_p2p_up(struct ft_bench_ctx *bc, struct p2p_buf *b, size_t size, struct ft_error *err)
{
	return bc->cuda && !bc->gpu_direct ? ft__cuda_htod(bc->cuda, b->dev, b->host, size, err) :
	                                     0;
}

/*
 * One message of @size bytes from @sbuf (send) to @rbuf (recv) through @ep
 * with the data check of nccl-tests' -c and perftest: the sender fills it
 * with its rank's pattern (ft__data_fill, as the collectives' inputs), the
 * receiver, its buffer first filled with the pattern one byte off (which
 * differs at every byte), counts the bytes that differ. *@wrong: that
 * count on a receiving rank, 0 elsewhere.
 */
int
ft__bench_check_msg(struct ft_ep *ep, uint32_t peer, bool send, bool recv, void *sbuf, void *rbuf,
                    size_t size, int64_t *wrong, struct ft_error *err)
{
	struct ft_req q[2], *qp[2] = { &q[0], &q[1] };
	size_t n = 0;
	int rc = 0;

	*wrong = 0;
	if (recv) {
		ft__data_fill(rbuf, size, FT_DTYPE_UINT8, peer, 1);
		rc = ft__ep_recv(ep, &q[n++], peer, rbuf, size, err);
	}
	if (rc == 0 && send) {
		ft__data_fill(sbuf, size, FT_DTYPE_UINT8, ep->w->rank, 0);
		rc = ft__ep_send(ep, &q[n++], peer, sbuf, size, err);
	}
	if (rc == 0)
		rc = ft__ep_wait(ep, qp, n, err);
	if (rc == 0 && recv)
		*wrong = ft__data_check_fill(rbuf, size, FT_DTYPE_UINT8, peer, 0);
	return rc;
}

static int
stream_run(struct ft_bench_ctx *bc, uint32_t peer, bool send, bool recv, size_t size,
           uint32_t window, uint32_t warmup, uint64_t nmsg, double dur_s, double *rx_GBps,
           double *best_GBps, uint64_t *nmsg_done, double *iter_cv, struct p2p_buf *sb,
           struct p2p_buf *rb, struct ft_error *err);

/*
 * The stream's timed messages, then, with @wrong, the data check
 * (ft__bench_check_msg) off the timed path in the same buffers: host
 * memory, or the host side of staged GPU buffers. None with buffers the
 * transport reads on the GPU (*@wrong -1).
 */
int
ft__bench_stream(struct ft_bench_ctx *bc, uint32_t peer, bool send, bool recv, size_t size,
                 uint32_t window, uint32_t warmup, uint64_t nmsg, double dur_s, double *rx_GBps,
                 double *best_GBps, uint64_t *nmsg_done, double *iter_cv, int64_t *wrong,
                 struct ft_error *err)
{
	struct p2p_buf sb, rb;
	int rc;

	*rx_GBps = *best_GBps = NAN;
	rc = ft__bench_p2p_open(bc, 0, size, &sb, err);
	if (rc < 0)
		return rc;
	rc = ft__bench_p2p_open(bc, 1, size, &rb, err);
	if (rc == 0) {
		rc = stream_run(bc, peer, send, recv, size, window, warmup, nmsg, dur_s, rx_GBps,
		                best_GBps, nmsg_done, iter_cv, &sb, &rb, err);
		if (rc == 0 && wrong && !(bc->cuda && bc->gpu_direct))
			rc = ft__bench_check_msg(bc->ep, peer, send, recv, sb.host, rb.host, size, wrong,
			                         err);
		ft__bench_p2p_close(bc, &rb);
	}
	ft__bench_p2p_close(bc, &sb);
	return rc;
}

/*
 * One window: @w receives from and/or sends to @peer posted at once, then
 * waited for, each send copied down from and each receive up to the GPU
 * with staged buffers. @reqs and @ptrs hold 2 * @w.
 */
static int
stream_window(struct ft_bench_ctx *bc, uint32_t peer, bool send, bool recv, size_t size,
              uint32_t w, struct ft_req *reqs, struct ft_req **ptrs, struct p2p_buf *sb,
              struct p2p_buf *rb, struct ft_error *err)
{
	struct ft_ep *ep = bc->ep;
	size_t n = 0;
	uint32_t k;
	int rc = 0;

	for (k = 0; k < w && recv; k++, n++) {
		rc = ft__ep_recv(ep, &reqs[n], peer, rb->host, size, err);
		if (rc < 0)
			return rc;
		ptrs[n] = &reqs[n];
	}
	for (k = 0; k < w && send; k++, n++) {
		rc = ft__bench_p2p_down(bc, sb, size, err);
		if (rc == 0)
			rc = ft__ep_send(ep, &reqs[n], peer, sb->host, size, err);
		if (rc < 0)
			return rc;
		ptrs[n] = &reqs[n];
	}
	rc = ft__ep_wait(ep, ptrs, n, err);
	for (k = 0; rc == 0 && k < w && recv; k++)
		rc = ft__bench_p2p_up(bc, rb, size, err);
	return rc;
}

static int
stream_run(struct ft_bench_ctx *bc, uint32_t peer, bool send, bool recv, size_t size,
           uint32_t window, uint32_t warmup, uint64_t nmsg, double dur_s, double *rx_GBps,
           double *best_GBps, uint64_t *nmsg_done, double *iter_cv, struct p2p_buf *sb,
           struct p2p_buf *rb, struct ft_error *err)
{
	struct ft_ep *ep = bc->ep;
	struct ft_req *reqs = ft__ep_scratch(
	        ep, 2, (sizeof(struct ft_req) + sizeof(struct ft_req *)) * 2 * window);
	struct ft_req **ptrs;
	double t0, tprev, best = 0, sum = 0, ss = 0;
	uint64_t nwin = 0;
	uint64_t done = 0;
	uint32_t i;
	bool more = true;
	int rc;

	*rx_GBps = *best_GBps = NAN;
	if (!sb->host || !rb->host || !reqs)
		return FT_ENOMEM;
	ptrs = (struct ft_req **)(void *)(reqs + 2 * window);
	/*
	 * Untimed full windows first, as osu_bw skips its first windows and
	 * perftest posts a send queue's depth before its clock starts: the
	 * first timed window then pays no connection set-up, page faults of
	 * fresh buffers or cold copy paths. Both ranks run them, so the
	 * handshake below still starts the timed windows together.
	 */
	for (i = 0; i < warmup; i++) {
		rc = stream_window(bc, peer, send, recv, size, window, reqs, ptrs, sb, rb, err);
		if (rc < 0)
			return rc;
		if (bc->cfg->stop && *bc->cfg->stop)
			return ft_error_set(err, FT_EINTR, "interrupted");
	}
	rc = sync_pair(bc, peer, err);
	if (rc < 0)
		return rc;
	t0 = tprev = ft__now();
	while (dur_s > 0 ? more : done < nmsg) {
		uint32_t w = dur_s > 0 ? window : (uint32_t)FT_MIN((uint64_t)window, nmsg - done);

		rc = stream_window(bc, peer, send, recv, size, w, reqs, ptrs, sb, rb, err);
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

/*
 * The ping-pong's clock: @bc's in nanoseconds or ticks (tests), else
 * @clk's ticks inline (a branch that always goes one way): the fenced
 * time-stamp counter where it is invariant, CLOCK_MONOTONIC's nanoseconds
 * elsewhere (ticks.c). Whole ticks keep the loop free of floating-point
 * constants, which the compiler loads from .rodata (two more pages a round
 * trip, counted on the code's layout before this clock) on a path whose
 * every page is walked again after each switch between the ranks (FT__HOT).
 */
static inline int64_t
pp_now(const struct ft_bench_ctx *bc, bool hooked, const struct ft__ticks *clk)
{
	if (__builtin_expect(hooked, 0)) /* tests' clocks: laid out of the path */
		return bc->now ? (int64_t)llround(bc->now() * 1e9) : bc->tick_now();
	return ft__ticks_now(clk);
}

/*
 * One end of the loop's span: the counter and CLOCK_MONOTONIC read as a
 * pair (ft__ticks_pair), so that a preemption between the two reads does
 * not show as the counter disagreeing; tests' clocks read in turn.
 */
static void
pp_pair(const struct ft_bench_ctx *bc, int64_t *tick, int64_t *ns)
{
	if (bc->tick_now) {
		*tick = bc->tick_now();
		*ns = bc->mono_now();
	} else if (ft__ticks_pair(tick, ns) == INT64_MAX) {
		/* no pair in order: plain reads, which the span's check then judges */
		*tick = ft__tsc_read();
		*ns = ft__ticks_mono_ns();
	}
}

FT__HOT int
ft__bench_pingpong(struct ft_bench_ctx *bc, uint32_t peer, bool initiator, size_t size,
                   uint32_t warmup, uint32_t iters, double *samples, struct ft_error *err)
{
	struct ft_ep *ep = bc->ep;
	struct p2p_buf b;
	char *buf;
	struct ft_req q;
	uint32_t i;
	int64_t tprev = 0; /* the clock when the last round trip ended, ticks */
	int64_t k0 = 0, n0 = 0, k1 = 0, n1 = 0; /* the loop's span, paired reads at each end */
	struct ft__ticks clk = { .tsc = false, .ns_per_tick = 1.0 };
	bool hooked = bc->now || bc->tick_now, ticked = initiator && !bc->now;
	double ns_per_tick = 1.0;
	int rc = ft__bench_p2p_open(bc, 0, size, &b, err);

	if (rc < 0)
		return rc;
	buf = b.host;
	/*
	 * Each sample written once before the loop: the array's pages fault in
	 * here, not one in every 512 round trips inside the timed loop (the
	 * array is calloc'ed, and a large one is mapped untouched).
	 */
	for (i = 0; initiator && i < iters; i++)
		samples[i] = 0;
	if (ticked) {
		clk = bc->tick_now ? bc->tick_clk : ft__ticks_get(); /* calibrated in setup */
		if (clk.tsc)
			pp_pair(bc, &k0, &n0);
		tprev = pp_now(bc, hooked, &clk);
	}
	for (i = 0; i < warmup + iters && rc == 0; i++) {
		if (initiator) {
			/*
			 * Only the initiator reads the clock, once a round trip: the
			 * read that ends one round trip starts the next, so the
			 * samples tile the loop and the few loads between two
			 * round trips count in the later one. A sample holds the
			 * round trip's ticks until the loop ends.
			 */
			int64_t t0 = i || !bc->now ? tprev : pp_now(bc, hooked, &clk);

			rc = ft__bench_p2p_down(bc, &b, size, err);
			if (rc == 0)
				rc = ft__ep_send(ep, &q, peer, buf, size, err);
			if (rc == 0)
				rc = ft__ep_wait1(ep, &q, err);
			if (rc == 0)
				rc = ft__ep_recv(ep, &q, peer, buf, size, err);
			if (rc == 0)
				rc = ft__ep_wait1(ep, &q, err);
			if (rc == 0)
				rc = ft__bench_p2p_up(bc, &b, size, err);
			if (rc == 0) {
				tprev = pp_now(bc, hooked, &clk);
				if (i >= warmup)
					samples[i - warmup] = (double)(tprev - t0);
			}
		} else {
			rc = ft__ep_recv(ep, &q, peer, buf, size, err);
			if (rc == 0)
				rc = ft__ep_wait1(ep, &q, err);
			if (rc == 0)
				rc = ft__bench_p2p_up(bc, &b, size, err);
			if (rc == 0)
				rc = ft__bench_p2p_down(bc, &b, size, err);
			if (rc == 0)
				rc = ft__ep_send(ep, &q, peer, buf, size, err);
			if (rc == 0)
				rc = ft__ep_wait1(ep, &q, err);
		}
		if (rc == 0 && (i & 63) == 0 && bc->cfg->stop && *bc->cfg->stop)
			rc = ft_error_set(err, FT_EINTR, "interrupted");
	}
	/*
	 * A loop whose span disagrees with CLOCK_MONOTONIC is converted at its
	 * own rate, and later loops run on CLOCK_MONOTONIC; a sample of 0 or
	 * less (counters out of step across CPUs) cannot be mended.
	 */
	if (ticked && rc == 0 && clk.tsc) {
		pp_pair(bc, &k1, &n1);
		ns_per_tick = ft__ticks_settle(&clk, k1 - k0, n1 - n0, samples, iters);
		if (ns_per_tick == 0)
			rc = ft_error_set(err, FT_EIO,
			                  "ping-pong: the time-stamp counter ran backwards in a "
			                  "loop (CPUs whose counters are not in step); later "
			                  "loops use CLOCK_MONOTONIC");
	}
	if (ticked && rc == 0)
		ft__bench_clock_note(&bc->clock, &clk, ns_per_tick);
	/* round trips in ticks to one-way microseconds */
	for (i = 0; initiator && rc == 0 && i < iters; i++)
		samples[i] *= ns_per_tick * 1e-3 / 2;
	ft__bench_p2p_close(bc, &b);
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
		rc = ft__bench_pingpong(bc, peer, initiator, size, *n ? 0 : cfg->warmup, 64, *samples + *n, err);
		if (rc == 0)
			*n += 64;
		if (rc == 0)
			rc = go_on(bc, peer, initiator, t0, cfg->duration_s, &more, err);
	}
	return rc;
}

void
ft__bench_row_base(struct ft_result_row *row, const char *test,
                   const struct ft_bench_report *out, uint64_t bytes, uint32_t nranks)
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

void
ft__bench_rank_label(const struct ft_world *w, uint32_t r, char *buf, size_t len)
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
		if (rc == 0 && lat) {
			/* verbs_atomic.c times each atomic on ft__now(): CLOCK_MONOTONIC */
			struct ft__ticks mono;

			ft__ticks_calibrate(&mono, false, 0);
			ft__bench_clock_note(&bc->clock, &mono, mono.ns_per_tick);
		}
		v[1] = lat ? NAN : v[0];
		v[2] = (double)wrong;
	}
	return rc == 0 ? sync_pair(bc, 1 - r, err) : rc;
}

bool
ft__bench_times_latency(enum ft_op pattern)
{
	return pattern == FT_OP_PT2PT_LAT || pattern == FT_OP_PAIRS || pattern == FT_OP_INCAST;
}

void
ft__bench_clock_expected(const struct ft_bench_cfg *cfg, struct ft_bench_clock *c)
{
	struct ft__ticks clk;

	if (strcmp(cfg->verbs_op, "fadd") == 0 || strcmp(cfg->verbs_op, "cswap") == 0)
		ft__ticks_calibrate(&clk, false, 0); /* as atomics_size notes it */
	else
		clk = ft__ticks_get();
	ft__bench_clock_describe(c, &clk);
}

int
ft__bench_clock_gather(struct ft_bench_ctx *bc, struct ft_bench_report *out,
                       struct ft_error *err)
{
	/* out->clocks holds one entry a rank (run_bound() sized it) */
	return ft__world_allgather(bc->w, &bc->clock, sizeof(bc->clock), out->clocks, err);
}

/*
 * Rank 0's finished row into every rank's @row (cfg.rows_everywhere): perftest's
 * two ends exchange their reports after each size and both print the same
 * figures. Collective.
 */
static int
share_row(struct ft_world *w, struct ft_result_row *row, struct ft_error *err)
{
	struct ft_result_row *all = ft_calloc(w->nranks, sizeof(*all));
	int rc;

	if (!all)
		return FT_ENOMEM;
	rc = ft__world_allgather(w, row, sizeof(*row), all, err);
	if (rc == 0)
		*row = all[0];
	ft_free(all);
	return rc;
}

/* values each rank gathers per size in ft__bench_pt2pt */
#define PT2PT_VALS 4

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
		/* per rank: bandwidth, peak, window cv, bytes wrong (NAN: not checked) */
		double v[PT2PT_VALS] = { NAN, NAN, NAN, NAN }, *all = NULL;
		uint64_t nmsg = cfg->iters;

		ft__bench_row_base(&row, ft_op_name(cfg->pattern), out, size, 2);
		ft__bench_rank_label(w, 0, row.src, sizeof(row.src));
		ft__bench_rank_label(w, 1, row.dst, sizeof(row.dst));
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
				rc = ft__bench_pingpong(bc, 1 - r, r == 0, size, cfg->warmup, cfg->iters,
				              samples, err);
			if (rc == 0 && r == 0)
				ft_bench_lat_stats(samples, cfg->iters, &row);
			v[0] = row.lat_p50_us;
		} else if (r < 2) {
			bool bidir = cfg->bidir;
			bool shm = r == 0 && strcmp(bc->ep->ops->name, ft_shm_transport.name) == 0;
			int64_t wrong = -1;
			uint64_t copies[2];

			if (shm)
				ft__shm_copies(bc->ep, 1, copies);
			/* -n counts messages, as perftest's -n: not windows of them */
			rc = ft__bench_stream(bc, 1 - r, r == 0 || bidir, r == 1 || bidir, size, cfg->window,
			            cfg->warmup, cfg->iters, cfg->duration_s, &v[0], &v[1], &nmsg,
			            &v[2], cfg->check ? &wrong : NULL, err);
			if (wrong >= 0)
				v[3] = (double)wrong;
			/* which copy rank 0's messages took, for the row (shm) */
			if (rc == 0 && shm)
				ft__shm_path(bc->ep, 1, size, copies, row.algo, sizeof(row.algo));
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
			double bw = all[PT2PT_VALS], peak = all[PT2PT_VALS + 1],
			       cv = all[PT2PT_VALS + 2];

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
			if (!atomics && isfinite(all[PT2PT_VALS + 3]))
				row.wrong = (int64_t)(all[PT2PT_VALS + 3] +
				                      (cfg->bidir && isfinite(all[3]) ? all[3] : 0));
			row.algbw_GBps = row.busbw_GBps = bw;
			row.ip_algbw_GBps = peak; /* perftest's BW peak */
			row.nsamples = (uint32_t)FT_MIN(nmsg, (uint64_t)UINT32_MAX);
			/* the spread is one full window's time: that many samples, not messages */
			row.spread_n = (uint32_t)FT_MIN(nmsg / cfg->window, (uint64_t)UINT32_MAX);
			row.time_us = bw > 0 ? (double)size / (bw * 1e3) * (cfg->bidir ? 2 : 1) : 0;
			row.time_stdev_us = cv * row.time_us;
		}
		if (rc == 0 && lat && r == 0) {
			row.algbw_GBps = row.time_us > 0 ? (double)size / (row.time_us * 1e3) : 0;
			row.busbw_GBps = row.algbw_GBps;
		}
		ft_free(all);
		if (rc == 0 && cfg->rows_everywhere)
			rc = share_row(w, &row, err);
		if (rc == 0 && (r == 0 || cfg->rows_everywhere))
			rc = ft_run_add(&out->run, &row);
		if (rc == 0 && (r == 0 || cfg->rows_everywhere) && cfg->on_row)
			cfg->on_row(cfg->on_row_ud, out, &row);
		if (rc == 0 && r == 0)
			ft_progress_update(&cfg->progress, row.test, ++done, total);
		if (!ft__bench_step(cfg, &size))
			break;
	}
	ft_free(samples);
	return rc;
}

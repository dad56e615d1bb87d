/* SPDX-License-Identifier: MIT */
/*
 * bench/runner.c - configuration, the size sweep of the collectives, and
 * ft_bench_run(), which dispatches to the patterns.
 *
 * A collective size step works like nccl-tests: validate once (out-of-place
 * then in-place) when -c is on, run the warm-up iterations, then time -n
 * iterations; each rank's mean time is combined across ranks by -a, and
 * algbw/busbw use the factors of kb NA-BUSBW.
 */
#include "bench_int.h"

#include <time.h>

#include <fabtune/coll.h>
#include <fabtune/usage.h>

#include "patterns.h"

void
ft_bench_cfg_init(struct ft_bench_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->pattern = FT_OP_ALL_REDUCE;
	ft_strlcpy(cfg->transport, "auto", sizeof(cfg->transport));
	cfg->step_factor = 2;
	cfg->check = true;
	cfg->op = FT_REDOP_SUM;
	cfg->dtype = FT_DTYPE_FLOAT;
	cfg->average = FT_BENCH_AVG_MEAN;
	cfg->nodelay = true;
	cfg->timeout_s = 30;
	cfg->threshold = 0.7;
	cfg->retest = true;
	cfg->rounds = 5;
	cfg->seed = 1;
	cfg->streams = 1;
}

/* Per-pattern defaults for the fields left at 0. */
void
ft_bench_cfg_resolve(struct ft_bench_cfg *c)
{
	uint64_t dflt_size;
	uint32_t dflt_iters, dflt_window;

	switch (c->pattern) {
	case FT_OP_PT2PT_LAT:
		dflt_size = 8, dflt_iters = 1000, dflt_window = 1;
		break;
	case FT_OP_PT2PT_BW:
		/* messages, as perftest's -n (5,000 there: fewer, for the slower host paths) */
		dflt_size = 65536, dflt_iters = 1000, dflt_window = 64;
		break;
	case FT_OP_PAIRS:
	case FT_OP_BISECTION:
		dflt_size = 1 << 20, dflt_iters = 5, dflt_window = 8;
		break;
	case FT_OP_INCAST:
		dflt_size = 1 << 20, dflt_iters = 10, dflt_window = 8;
		break;
	default:
		dflt_size = 32 << 20, dflt_iters = 20, dflt_window = 1;
		break;
	}
	if (!c->min_bytes && !c->max_bytes)
		c->min_bytes = c->max_bytes = dflt_size;
	else if (!c->min_bytes)
		c->min_bytes = c->max_bytes;
	else if (!c->max_bytes)
		c->max_bytes = c->min_bytes;
	if (!c->iters)
		c->iters = dflt_iters;
	if (!c->window)
		c->window = dflt_window;
}

int
ft_bench_cfg_check(const struct ft_bench_cfg *cfg, struct ft_error *err)
{
	if ((unsigned)cfg->pattern >= FT_OP_COUNT)
		return ft_error_set(err, FT_EINVAL, "unknown pattern");
	if (cfg->min_bytes && cfg->max_bytes && cfg->min_bytes > cfg->max_bytes)
		return ft_error_set(err, FT_EINVAL,
		                    "-b/--minbytes %" PRIu64 " is above -e/--maxbytes %" PRIu64,
		                    cfg->min_bytes, cfg->max_bytes);
	if (cfg->max_bytes > ((uint64_t)16 << 30))
		return ft_error_set(err, FT_ERANGE,
		                    "-e/--maxbytes %" PRIu64 ": at most 16GiB per buffer",
		                    cfg->max_bytes);
	if (cfg->step_bytes == 0 && cfg->step_factor < 2 && cfg->min_bytes != cfg->max_bytes)
		return ft_error_set(err, FT_EINVAL,
		                    "-f/--stepfactor %" PRIu64 ": must be at least 2 (or use "
		                    "-i/--stepbytes)",
		                    cfg->step_factor);
	if (cfg->graph_launches && !ft_op_is_coll(cfg->pattern))
		return ft_error_set(err, FT_EINVAL,
		                    "-G/--cudagraph %u: CUDA graphs time the collectives, not %s",
		                    cfg->graph_launches, ft_op_name(cfg->pattern));
	if (cfg->agg_iters > 100000)
		return ft_error_set(err, FT_ERANGE, "-m/--agg_iters %u: at most 100000",
		                    cfg->agg_iters);
	if (cfg->duration_s < 0 || cfg->duration_s > 3600)
		return ft_error_set(err, FT_ERANGE, "-D/--duration %g: expected 0 to 3600 seconds",
		                    cfg->duration_s);
	if (cfg->duration_s > 0 && cfg->pattern != FT_OP_PT2PT_BW &&
	    cfg->pattern != FT_OP_PT2PT_LAT)
		return ft_error_set(err, FT_EINVAL,
		                    "-D/--duration: for pt2pt_bw and pt2pt_lat only");
	if (cfg->iters > 10000000)
		return ft_error_set(err, FT_ERANGE, "-n/--iters %u: at most 10000000", cfg->iters);
	if ((unsigned)cfg->bind >= FT_BENCH_BIND_COUNT)
		return ft_error_set(err, FT_EINVAL, "--bind: expected none, core or numa");
	if ((unsigned)cfg->spin >= FT_BENCH_SPIN_COUNT)
		return ft_error_set(err, FT_EINVAL, "--spin: expected auto, always or never");
	if ((unsigned)cfg->average > FT_BENCH_AVG_MAX)
		return ft_error_set(err, FT_EINVAL, "-a/--average %d: expected 0, 1, 2 or 3",
		                    (int)cfg->average);
	if (cfg->streams == 0 || cfg->streams > 64)
		return ft_error_set(err, FT_ERANGE, "--streams %u: expected 1 to 64", cfg->streams);
	if (cfg->window > 4096)
		return ft_error_set(err, FT_ERANGE, "--window %u: at most 4096", cfg->window);
	if (!(cfg->threshold > 0 && cfg->threshold < 1))
		return ft_error_set(err, FT_ERANGE, "--threshold %g: expected a fraction in (0, 1)",
		                    cfg->threshold);
	if (!(cfg->timeout_s > 0))
		return ft_error_set(err, FT_ERANGE, "--timeout: must be positive");
	if (cfg->rounds == 0 || cfg->rounds > 100000)
		return ft_error_set(err, FT_ERANGE, "--rounds %u: expected 1 to 100000",
		                    cfg->rounds);
	if (cfg->root < 0)
		return ft_error_set(err, FT_ERANGE, "--root %d: must be a rank", cfg->root);
	return 0;
}

void
ft_bench_report_init(struct ft_bench_report *r)
{
	memset(r, 0, sizeof(*r));
	ft_run_init(&r->run, FT_SOURCE_BENCH, "bench");
	ft_vec_init(&r->outliers, sizeof(struct ft_bench_outlier));
	r->median_GBps = NAN;
	ft_strlcpy(r->buffers, "host", sizeof(r->buffers));
	r->victim_idle_us = r->victim_busy_us = r->congestion_impact = NAN;
}

void
ft_bench_report_release(struct ft_bench_report *r)
{
	ft_run_release(&r->run);
	ft_vec_release(&r->outliers);
	ft_free(r->ranks);
	ft_free(r->bw_GBps);
	ft_free(r->lat_us);
	ft_free(r->clocks);
	r->clocks = NULL;
	r->ranks = NULL;
	r->bw_GBps = r->lat_us = NULL;
}

/* ---- collectives ------------------------------------------------------------ */

static bool
reduces(enum ft_op p)
{
	return p == FT_OP_ALL_REDUCE || p == FT_OP_REDUCE || p == FT_OP_REDUCE_SCATTER;
}

/* Does the transport run avg and mulsum itself (nccl: ncclAvg, ncclRedOpCreatePreMulSum)? */
static bool
native_avg_mulsum(const struct ft_ep *ep)
{
	return strcmp(ep->ops->name, "nccl") == 0;
}

static int
coll_plain(struct ft_ep *ep, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	int rc = ep->ops->coll(ep, a, err);

	if (rc == FT_ENOTSUP)
		rc = ft__bench_coll_run(ep, a, err);
	return rc;
}

/*
 * avg and mulsum on the host transports are a sum with a step around it:
 * mulsum scales this rank's input by its scalar first (into @a->premul, or in
 * place when the input is the output buffer, which the sum overwrites anyway),
 * avg divides the result by the number of ranks after. NCCL does the same
 * inside its kernels; here the extra pass is part of the measured time.
 */
static int
coll_once(struct ft_ep *ep, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	struct ft_bench_coll_args s;
	uint32_t n = ep->w->nranks, r = ep->w->rank;
	size_t in_count;
	int rc;

	if ((a->op != FT_REDOP_AVG && a->op != FT_REDOP_MULSUM) || !reduces(a->coll) ||
	    native_avg_mulsum(ep))
		return coll_plain(ep, a, err);
	s = *a;
	s.op = FT_REDOP_SUM;
	if (a->op == FT_REDOP_MULSUM) {
		in_count = a->coll == FT_OP_REDUCE_SCATTER ? a->count * n : a->count;
		if (a->in_place) {
			ft__data_premul((void *)a->sendbuf, a->sendbuf, in_count, a->dtype, r);
		} else {
			if (!a->premul)
				return ft_error_set(err, FT_EINVAL,
				                    "mulsum: no buffer for the scaled input");
			ft__data_premul(a->premul, a->sendbuf, in_count, a->dtype, r);
			s.sendbuf = a->premul;
		}
	}
	rc = coll_plain(ep, &s, err);
	if (rc == 0 && a->op == FT_REDOP_AVG && (a->coll != FT_OP_REDUCE || r == (uint32_t)a->root))
		ft__data_divide(a->recvbuf, a->count, a->dtype, n);
	return rc;
}

/* Fill the send side of a collective for validation (@in_place: one buffer). */
static void
fill_inputs(const struct ft_bench_coll_args *a, uint32_t n, uint32_t r)
{
	size_t es = ft_dtype_size(a->dtype);
	void *send = (void *)a->sendbuf;

	switch (a->coll) {
	case FT_OP_ALLTOALL: {
		uint32_t j;

		for (j = 0; j < n; j++)
			ft__data_fill((char *)send + (size_t)j * a->count * es, a->count, a->dtype,
			              r, (size_t)j * a->count);
		break;
	}
	case FT_OP_REDUCE_SCATTER:
		ft__data_fill(send, a->count * n, a->dtype, r, 0);
		break;
	case FT_OP_BROADCAST:
		if (r == (uint32_t)a->root)
			ft__data_fill(send, a->count, a->dtype, r, 0);
		break;
	case FT_OP_SCATTER:
		if (r == (uint32_t)a->root)
			ft__data_fill(send, a->count * n, a->dtype, r, 0);
		break;
	default:
		ft__data_fill(send, a->count, a->dtype, r, 0);
		break;
	}
}

static int64_t
check_outputs(const struct ft_bench_coll_args *a, uint32_t n, uint32_t r)
{
	size_t es = ft_dtype_size(a->dtype);
	const char *recv = a->recvbuf;
	int64_t wrong = 0;
	uint32_t j;

	switch (a->coll) {
	case FT_OP_ALL_REDUCE:
		return ft__data_check_reduced(recv, a->count, a->dtype, a->op, n, 0);
	case FT_OP_REDUCE:
		return r == (uint32_t)a->root ?
		               ft__data_check_reduced(recv, a->count, a->dtype, a->op, n, 0) :
		               0;
	case FT_OP_REDUCE_SCATTER:
		return ft__data_check_reduced(recv, a->count, a->dtype, a->op, n,
		                              (size_t)r * a->count);
	case FT_OP_GATHER:
	case FT_OP_ALL_GATHER:
	case FT_OP_HYPERCUBE:
		/* gather: only the root receives, every rank's block as all_gather */
		if (a->coll == FT_OP_GATHER && r != (uint32_t)a->root)
			return 0;
		for (j = 0; j < n; j++)
			wrong += ft__data_check_fill(recv + (size_t)j * a->count * es, a->count,
			                             a->dtype, j, 0);
		return wrong;
	case FT_OP_SCATTER:
		return ft__data_check_fill(recv, a->count, a->dtype, (uint32_t)a->root,
		                           (size_t)r * a->count);
	case FT_OP_SENDRECV:
		return ft__data_check_fill(recv, a->count, a->dtype, (r + n - 1) % n, 0);
	case FT_OP_ALLTOALL:
		for (j = 0; j < n; j++)
			wrong += ft__data_check_fill(recv + (size_t)j * a->count * es, a->count,
			                             a->dtype, j, (size_t)r * a->count);
		return wrong;
	case FT_OP_BROADCAST:
		return ft__data_check_fill(recv, a->count, a->dtype, (uint32_t)a->root, 0);
	default:
		return 0;
	}
}

static double
combine(const double *t, uint32_t n, enum ft_bench_average mode)
{
	double v = t[0];
	uint32_t r;

	for (r = 1; r < n; r++) {
		switch (mode) {
		case FT_BENCH_AVG_MEAN:
			v += t[r];
			break;
		case FT_BENCH_AVG_MIN:
			v = FT_MIN(v, t[r]);
			break;
		case FT_BENCH_AVG_MAX:
			v = FT_MAX(v, t[r]);
			break;
		case FT_BENCH_AVG_RANK0:
			break;
		}
	}
	return mode == FT_BENCH_AVG_MEAN ? v / n : v;
}

/* This process's CPU time in seconds (-C, nccl-tests' --report_cputime). */
static double
cpu_now(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) < 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One operation as the application sees it: device input, device output (gpu_stage.c). */
static int
coll_step(struct ft_bench_ctx *bc, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	int rc;

	if (!bc->stage)
		return coll_once(bc->ep, a, err);
	rc = ft__bench_stage_copy(bc, a, false, false, err);
	if (rc == 0)
		rc = coll_once(bc->ep, a, err);
	if (rc == 0)
		rc = ft__bench_stage_copy(bc, a, true, true, err);
	return rc;
}

/*
 * Validation with device buffers: the inputs go up to the device and the host
 * copy is spoiled, so the check sees only what came back through the GPU.
 */
static int
stage_check_pass(struct ft_bench_ctx *bc, struct ft_bench_coll_args *a, struct ft_error *err)
{
	size_t in, out;
	int rc;

	ft__bench_bufsizes(a->coll, a->count, ft_dtype_size(a->dtype), bc->ep->w->nranks, &in,
	                   &out);
	rc = ft__bench_stage_copy(bc, a, true, false, err);
	if (rc < 0)
		return rc;
	memset((void *)a->sendbuf, 0x5a, in);
	a->staged = true;
	rc = coll_step(bc, a, err);
	a->staged = false;
	if (rc < 0)
		return rc;
	memset(a->recvbuf, 0xa5, out);
	return ft__bench_stage_copy(bc, a, false, true, err);
}

/*
 * One variant (out-of-place or in-place) of one size: #wrong, time per
 * iteration and, when @stdev_us is not NULL, the per-iteration spread (the
 * sample standard deviation of one iteration's time, largest over the ranks).
 * With -C the time is the ranks' CPU time, and *@wall_us the wall time the
 * bandwidths come from, as nccl-tests computes algbw and busbw from the wall
 * time whatever -C says (src/common.cu, deltaSec); without -C both are the
 * wall time.
 */
static int
coll_variant(struct ft_bench_ctx *bc, struct ft_bench_coll_args *a, double *time_us,
             double *wall_us, int64_t *wrong, double *stdev_us, struct ft_error *err)
{
	struct ft_ep *ep = bc->ep;
	const struct ft_bench_cfg *cfg = bc->cfg;
	uint32_t n = ep->w->nranks, r = ep->w->rank, i;
	double t0, w0, tprev, mine[3], *all, sum = 0, ss = 0;
	int64_t w_local = 0, *w_all;
	int rc;

	*wrong = -1;
	if (cfg->check) {
		fill_inputs(a, n, r);
		if (bc->stage) {
			rc = stage_check_pass(bc, a, err);
		} else {
			a->staged = true;
			rc = coll_once(ep, a, err);
			a->staged = false;
		}
		if (rc < 0)
			return rc;
		w_local = check_outputs(a, n, r);
		w_all = ft_calloc(n, sizeof(*w_all));
		if (!w_all)
			return FT_ENOMEM;
		rc = ft__world_allgather(ep->w, &w_local, sizeof(w_local), w_all, err);
		if (rc == 0)
			for (*wrong = 0, i = 0; i < n; i++)
				*wrong += w_all[i];
		ft_free(w_all);
		if (rc < 0)
			return rc;
	}
	for (i = 0; i < cfg->warmup; i++) {
		rc = coll_step(bc, a, err);
		if (rc < 0)
			return rc;
	}
	rc = ft__world_barrier(ep->w, err);
	if (rc < 0)
		return rc;
	t0 = cfg->report_cputime ? cpu_now() : ft__now();
	w0 = tprev = ft__now();
	if (cfg->graph_launches) {
		/* -G: one graph of -n x -m operations, launched G times; time per operation */
		uint64_t ops = (uint64_t)cfg->iters * FT_MAX(cfg->agg_iters, 1u);

		rc = ops > UINT32_MAX ?
		             ft_error_set(err, FT_ERANGE, "-G: -n x -m is too large") :
		             ep->ops->coll_graph(ep, a, (uint32_t)ops, cfg->graph_launches, err);
		if (rc < 0)
			return rc;
		mine[0] = ((cfg->report_cputime ? cpu_now() : ft__now()) - t0) /
		          ((double)ops * cfg->graph_launches) * 1e6;
		mine[2] = (ft__now() - w0) / ((double)ops * cfg->graph_launches) * 1e6;
		mine[1] = NAN; /* one measurement: no per-iteration spread */
	}
	for (i = 0; !cfg->graph_launches && i < cfg->iters; i++) {
		uint32_t k, agg = FT_MAX(cfg->agg_iters, 1u);
		double now, dt;

		/* -m: nccl-tests groups m operations per iteration; time is per operation */
		for (k = 0, rc = 0; k < agg && rc == 0; k++)
			rc = coll_step(bc, a, err);
		if (rc == 0 && cfg->blocking)
			rc = ft__world_barrier(ep->w, err);
		if (rc < 0)
			return rc;
		if (cfg->stop && *cfg->stop)
			return ft_error_set(err, FT_EINTR, "interrupted");
		now = ft__now();
		dt = (now - tprev) * 1e6 / agg; /* one operation's time */
		tprev = now;
		sum += dt;
		ss += dt * dt;
	}
	if (!cfg->graph_launches) {
		mine[0] = ((cfg->report_cputime ? cpu_now() : ft__now()) - t0) /
		          ((double)cfg->iters * FT_MAX(cfg->agg_iters, 1u)) * 1e6;
		mine[2] = (ft__now() - w0) / ((double)cfg->iters * FT_MAX(cfg->agg_iters, 1u)) * 1e6;
		/* sample variance from the sums; rounding can make it a hair negative */
		mine[1] = cfg->iters > 1 ? sqrt(FT_MAX(0.0, (ss - sum * sum / cfg->iters) /
		                                                    (cfg->iters - 1))) :
		                           NAN;
	}
	all = ft_calloc(n, sizeof(mine));
	if (!all)
		return FT_ENOMEM;
	rc = ft__world_allgather(ep->w, mine, sizeof(mine), all, err);
	if (rc == 0) {
		double *t = ft_calloc(2 * (size_t)n, sizeof(*t)), sd = NAN;
		uint32_t k;

		if (!t) {
			ft_free(all);
			return FT_ENOMEM;
		}
		for (k = 0; k < n; k++) {
			t[k] = all[3 * k];
			t[n + k] = all[3 * k + 2];
			if (isfinite(all[3 * k + 1]))
				sd = isfinite(sd) ? FT_MAX(sd, all[3 * k + 1]) : all[3 * k + 1];
		}
		*time_us = combine(t, n, cfg->average);
		*wall_us = combine(t + n, n, cfg->average);
		if (stdev_us)
			*stdev_us = sd;
		ft_free(t);
	}
	ft_free(all);
	return rc;
}

static const char *
coll_algo(const struct ft_ep *ep, enum ft_op p, size_t bytes)
{
	if (strcmp(ep->ops->name, "mpi") == 0 || strcmp(ep->ops->name, "nccl") == 0)
		return "library";
	switch (p) {
	case FT_OP_SENDRECV:
		return "shift";
	case FT_OP_GATHER:
	case FT_OP_SCATTER:
		return "direct";
	case FT_OP_HYPERCUBE:
		return "hypercube";
	default:
		break;
	}
	/* shm with its buffers in the segment: every rank reads its peers' in place */
	if (ft__shm_direct(ep))
		return "direct";
	switch (p) {
	case FT_OP_ALLTOALL:
		return "direct";
	case FT_OP_BROADCAST:
	case FT_OP_REDUCE:
		return "chain";
	case FT_OP_ALL_REDUCE:
		return ft__bench_all_reduce_takes_hd(ep->w->nranks, bytes) ? "halving_doubling" :
		                                                              "ring";
	default:
		return "ring";
	}
}

static uint64_t
next_size(const struct ft_bench_cfg *cfg, uint64_t size)
{
	if (cfg->step_bytes)
		return size + cfg->step_bytes;
	if (cfg->step_factor < 2)
		return UINT64_MAX;
	return size > UINT64_MAX / cfg->step_factor ? UINT64_MAX : size * cfg->step_factor;
}

uint64_t
ft__bench_nsizes(const struct ft_bench_cfg *cfg)
{
	uint64_t n = 0, s;

	for (s = cfg->min_bytes; s <= cfg->max_bytes && n < 100000; s = next_size(cfg, s))
		n++;
	return n;
}

static bool
rooted(enum ft_op p)
{
	return p == FT_OP_BROADCAST || p == FT_OP_REDUCE || p == FT_OP_GATHER || p == FT_OP_SCATTER;
}

/* The arguments of one collective of @size bytes (nccl-tests' count rules). */
static void
coll_args(const struct ft_bench_cfg *cfg, uint32_t n, uint64_t size, struct ft_bench_coll_args *a,
          size_t *bytes)
{
	size_t es = ft_dtype_size(cfg->dtype), count = (size_t)(size / es);
	bool split = cfg->pattern == FT_OP_ALL_GATHER || cfg->pattern == FT_OP_REDUCE_SCATTER ||
	             cfg->pattern == FT_OP_ALLTOALL || cfg->pattern == FT_OP_GATHER ||
	             cfg->pattern == FT_OP_SCATTER || cfg->pattern == FT_OP_HYPERCUBE;

	/* nccl-tests: gathers and all-to-all split the size over the ranks */
	if (split)
		count /= n;
	memset(a, 0, sizeof(*a));
	a->coll = cfg->pattern;
	a->dtype = cfg->dtype;
	a->op = cfg->op;
	a->count = count;
	a->root = rooted(cfg->pattern) ? cfg->root : -1;
	*bytes = split ? count * es * n : count * es;
}

/*
 * Before the first size, -w iterations at the largest size and then at the
 * smallest, as nccl-tests does: connections, socket buffers and TCP windows
 * reach their steady state, and the first row is not a cold start.
 */
static int
warm_up(struct ft_bench_ctx *bc, char *sendbuf, char *recvbuf, char *premul,
        struct ft_error *err)
{
	struct ft_ep *ep = bc->ep;
	const struct ft_bench_cfg *cfg = bc->cfg;
	const uint64_t sizes[2] = { cfg->max_bytes, cfg->min_bytes };
	const uint32_t nsizes = cfg->min_bytes == cfg->max_bytes ? 1 : 2;
	struct ft_bench_coll_args a;
	size_t bytes;
	uint32_t i, k;
	int rc = 0;

	for (k = 0; k < nsizes && rc == 0; k++) {
		coll_args(cfg, ep->w->nranks, sizes[k], &a, &bytes);
		a.sendbuf = sendbuf;
		a.recvbuf = recvbuf;
		a.premul = premul;
		for (i = 0; i < cfg->warmup && rc == 0; i++) {
			rc = coll_step(bc, &a, err);
			if (rc == 0 && cfg->stop && *cfg->stop)
				rc = ft_error_set(err, FT_EINTR, "interrupted");
		}
	}
	return rc;
}

static int
run_colls(struct ft_bench_ctx *bc, struct ft_bench_report *out, struct ft_error *err)
{
	const struct ft_bench_cfg *cfg = bc->cfg;
	struct ft_ep *ep = bc->ep;
	uint32_t n = ep->w->nranks, r = ep->w->rank;
	size_t es = ft_dtype_size(cfg->dtype), sbytes, rbytes;
	uint64_t size, total = ft__bench_nsizes(cfg), done = 0;
	char *sendbuf, *recvbuf, *premul = NULL;
	int rc = 0;

	if (cfg->pattern == FT_OP_HYPERCUBE && (n & (n - 1)) != 0)
		return ft_error_set(err, FT_EINVAL,
		                    "hypercube needs a power-of-two number of ranks, not %u", n);
	if (rooted(cfg->pattern)) {
		if ((uint32_t)cfg->root >= n)
			return ft_error_set(err, FT_EINVAL, "--root %d: the world has %u ranks",
			                    cfg->root, n);
	}
	ft__bench_bufsizes(cfg->pattern, cfg->max_bytes / es + n, es, n, &sbytes, &rbytes);
	/* the transport's memory: shm places it where the peers can reach it */
	sendbuf = ft__bench_host_alloc(bc, ep, sbytes);
	recvbuf = ft__bench_host_alloc(bc, ep, FT_MAX(sbytes, rbytes));
	if (!sendbuf || !recvbuf) {
		ft__bench_host_free(bc, ep, sendbuf, sbytes);
		ft__bench_host_free(bc, ep, recvbuf, FT_MAX(sbytes, rbytes));
		return ft_error_set(err, FT_ENOMEM, "cannot allocate %zu + %zu bytes of buffers",
		                    sbytes, rbytes);
	}
	if (cfg->op == FT_REDOP_MULSUM && reduces(cfg->pattern) && !native_avg_mulsum(ep)) {
		premul = ep->ops->mem_alloc(ep, sbytes ? sbytes : 1);
		if (!premul) {
			ft__bench_host_free(bc, ep, recvbuf, FT_MAX(sbytes, rbytes));
			ft__bench_host_free(bc, ep, sendbuf, sbytes);
			return ft_error_set(err, FT_ENOMEM,
			                    "cannot allocate %zu bytes for mulsum's scaled input",
			                    sbytes);
		}
	}
	memset(sendbuf, 0, sbytes);
	memset(recvbuf, 0, FT_MAX(sbytes, rbytes));
	rc = ft__bench_stage_open(bc, sendbuf, sbytes, recvbuf, FT_MAX(sbytes, rbytes), err);
	if (rc == 0)
		rc = warm_up(bc, sendbuf, recvbuf, premul, err);
	for (size = cfg->min_bytes; size <= cfg->max_bytes && rc == 0;
	     size = next_size(cfg, size)) {
		struct ft_result_row row;
		struct ft_bench_coll_args a;
		size_t count, bytes;
		double factor = ft_coll_busbw_factor(cfg->pattern, n);
		double wall_us = NAN, ip_wall_us = NAN; /* the bandwidths' times (-C: not the rows') */

		coll_args(cfg, n, size, &a, &bytes);
		count = a.count;
		ft_result_row_init(&row);
		ft_strlcpy(row.test, ft_op_name(cfg->pattern), sizeof(row.test));
		ft_strlcpy(row.transport, out->transport, sizeof(row.transport));
		ft_strlcpy(row.dtype, ft_dtype_name(cfg->dtype), sizeof(row.dtype));
		ft_strlcpy(row.redop,
		           cfg->pattern == FT_OP_ALL_REDUCE || cfg->pattern == FT_OP_REDUCE ||
		                           cfg->pattern == FT_OP_REDUCE_SCATTER ?
		                   ft_redop_name(cfg->op) :
		                   "none",
		           sizeof(row.redop));
		ft_strlcpy(row.algo, coll_algo(ep, cfg->pattern, bytes), sizeof(row.algo));
		row.bytes = bytes;
		row.count = count;
		row.root = a.root;
		row.nranks = n;
		row.nsamples = cfg->iters;
		a.premul = premul;
		/* out-of-place */
		a.sendbuf = sendbuf;
		a.recvbuf = recvbuf;
		a.in_place = false;
		rc = coll_variant(bc, &a, &row.time_us, &wall_us, &row.wrong, &row.time_stdev_us, err);
		if (rc < 0)
			break;
		/* in-place: nccl-tests' layouts */
		{
			int64_t ip_wrong;

			a.recvbuf = recvbuf;
			a.in_place = true;
			switch (cfg->pattern) {
			case FT_OP_ALL_GATHER:
			case FT_OP_GATHER:
			case FT_OP_HYPERCUBE:
				a.sendbuf = recvbuf + (size_t)r * count * es;
				break;
			case FT_OP_REDUCE_SCATTER:
			case FT_OP_SCATTER:
				a.sendbuf = recvbuf;
				a.recvbuf = recvbuf + (size_t)r * count * es;
				break;
			default:
				a.sendbuf = recvbuf;
				break;
			}
			rc = coll_variant(bc, &a, &row.ip_time_us, &ip_wall_us, &ip_wrong, NULL, err);
			if (rc < 0)
				break;
			if (row.wrong >= 0)
				row.wrong += ip_wrong;
		}
		/* from the wall time, -C or not (coll_variant) */
		row.algbw_GBps = wall_us > 0 ? (double)bytes / (wall_us * 1e3) : 0;
		row.busbw_GBps = row.algbw_GBps * factor;
		row.ip_algbw_GBps = ip_wall_us > 0 ? (double)bytes / (ip_wall_us * 1e3) : 0;
		row.ip_busbw_GBps = row.ip_algbw_GBps * factor;
		rc = ft_run_add(&out->run, &row);
		if (rc == 0 && r == 0 && cfg->on_row)
			cfg->on_row(cfg->on_row_ud, out, &row);
		if (rc == 0 && r == 0)
			ft_progress_update(&cfg->progress, ft_op_name(cfg->pattern), ++done, total);
	}
	if (premul && !ft__ep_forget(ep, premul, sbytes, ft__ep_mem_kind(ep)))
		ep->ops->mem_free(ep, premul);
	ft__bench_stage_close(bc);
	ft__bench_host_free(bc, ep, recvbuf, FT_MAX(sbytes, rbytes));
	ft__bench_host_free(bc, ep, sendbuf, sbytes);
	return rc;
}

static int run_bound(struct ft_world *w, struct ft_bench_cfg *cfgp, struct ft_bench_report *out,
                     struct ft_error *err);

/*
 * FT_FAULT_BENCH=R, for tests as FT_FAULT_ALLOC: rank R fails inside its
 * benchmark once it has measured, while its peers go on to the barrier
 * that ends it.
 */
static bool
fault_here(const struct ft_world *w)
{
	const char *e = getenv("FT_FAULT_BENCH");
	uint64_t r;

	return e && ft_parse_u64(e, &r) == 0 && r == w->rank;
}

/*
 * FT_FAULT_BENCH_LATE=R, for tests: rank R comes to the barrier that ends
 * the benchmark a second late, after a failed rank's notice has ended that
 * barrier on the others (the late block must not land in a freed buffer).
 */
static void
late_here(const struct ft_world *w)
{
	const char *e = getenv("FT_FAULT_BENCH_LATE");
	uint64_t r;

	if (e && ft_parse_u64(e, &r) == 0 && r == w->rank)
		sleep(1);
}

/* The pattern that measures @op: its own for the non-collective ones, else run_colls(). */
static ft__bench_pattern_fn *
pattern_fn(enum ft_op op)
{
	switch (op) {
	case FT_OP_PT2PT_BW:
	case FT_OP_PT2PT_LAT:
		return ft__bench_pt2pt;
	case FT_OP_PAIRS:
		return ft__bench_pairs;
	case FT_OP_BISECTION:
		return ft__bench_bisection;
	case FT_OP_INCAST:
		return ft__bench_incast;
	default:
		return run_colls;
	}
}

/* Bind this rank (--bind) and tell rank 0 where every rank runs. Collective. */
static int
bind_ranks(struct ft_world *w, const struct ft_bench_cfg *cfg, struct ft_bench_report *out,
           struct ft_error *err)
{
	struct ft_rank_info me = w->info[w->rank];
	struct where {
		char bind[sizeof(me.bind)];
		char cpus[sizeof(me.cpus)];
	} mine, *all;
	struct ft_error e2 = { 0 };
	int rc, ok, *oks;
	uint32_t r;

	/* every rank takes part in the allgathers, even one whose binding failed */
	rc = ft__cpu_setup(w, cfg->bind, cfg->spin, strcmp(cfg->transport, "tcp") == 0,
	                   cfg->pattern == FT_OP_PT2PT_BW, &me, &e2);
	memset(&mine, 0, sizeof(mine));
	ft_strlcpy(mine.bind, me.bind, sizeof(mine.bind));
	ft_strlcpy(mine.cpus, me.cpus, sizeof(mine.cpus));
	ok = rc == 0;
	all = ft_calloc(w->nranks, sizeof(*all));
	oks = ft_calloc(w->nranks, sizeof(*oks));
	if (!all || !oks) {
		ft_free(all);
		ft_free(oks);
		return FT_ENOMEM;
	}
	rc = ft__world_allgather(w, &ok, sizeof(ok), oks, err);
	if (rc == 0)
		rc = ft__world_allgather(w, &mine, sizeof(mine), all, err);
	for (r = 0; rc == 0 && r < w->nranks; r++) {
		char who[96];

		if (!oks[r]) {
			if (r == w->rank)
				rc = ft_error_set(err, e2.code, "%s", e2.msg);
			else
				rc = ft_error_set(err, FT_EINVAL, "%s could not bind (--bind %s)",
				                  ft__world_who(w, r, who, sizeof(who)),
				                  ft_bench_bind_name(cfg->bind));
			break;
		}
		ft_strlcpy(out->ranks[r].bind, all[r].bind, sizeof(out->ranks[r].bind));
		ft_strlcpy(out->ranks[r].cpus, all[r].cpus, sizeof(out->ranks[r].cpus));
		ft_strlcpy(w->info[r].bind, all[r].bind, sizeof(w->info[r].bind));
		ft_strlcpy(w->info[r].cpus, all[r].cpus, sizeof(w->info[r].cpus));
	}
	ft_free(all);
	ft_free(oks);
	return rc;
}

static int
bench_run(struct ft_world *w, const struct ft_bench_cfg *cfg_in, struct ft_bench_report *out,
          struct ft_error *err)
{
	struct ft_bench_cfg cfg = *cfg_in;
	int rc;

	ft_bench_cfg_resolve(&cfg);
	rc = ft_bench_cfg_check(&cfg, err);
	if (rc < 0)
		return rc;
	out->nranks = w->nranks;
	out->ranks = ft_calloc(w->nranks, sizeof(*out->ranks));
	if (!out->ranks)
		return FT_ENOMEM;
	memcpy(out->ranks, w->info, sizeof(*out->ranks) * w->nranks);
	rc = bind_ranks(w, &cfg, out, err);
	if (rc < 0) {
		ft__cpu_unbind(w);
		return rc;
	}
	rc = run_bound(w, &cfg, out, err);
	ft__cpu_unbind(w);
	return rc;
}

/* The run itself, once the ranks are bound. */
static int
run_bound(struct ft_world *w, struct ft_bench_cfg *cfgp, struct ft_bench_report *out,
          struct ft_error *err)
{
	struct ft_bench_cfg cfg = *cfgp;
	struct ft_bench_ctx bc;
	struct ft_ep *ep = NULL;
	int rc;

	if (ft_op_is_coll(cfg.pattern) && cfg.step_factor < 2 && !cfg.step_bytes)
		cfg.step_factor = 2;
	if (cfg.pattern == FT_OP_COPY_MATRIX || cfg.pattern == FT_OP_DEV_MEMCPY) {
		/* the CUDA runtime's copies, no transport */
		memset(&bc, 0, sizeof(bc));
		bc.cfg = &cfg;
		bc.w = w;
		ft_strlcpy(out->transport, "cuda", sizeof(out->transport));
		ft_strlcpy(out->buffers, "device", sizeof(out->buffers));
		rc = cfg.pattern == FT_OP_COPY_MATRIX ? ft__bench_copy_matrix(&bc, out, err) :
		                                        ft__bench_dev_memcpy(&bc, out, err);
		if (rc == FT_EINTR)
			out->interrupted = true;
		return rc;
	}
	/*
	 * The ping-pong's sample clock is calibrated here (10 ms, once a
	 * process), before the ranks meet, not inside a first probe while the
	 * peer waits on it (and its waits judge whether spinning pays).
	 */
	if (ft__bench_times_latency(cfg.pattern)) {
		ft_free(out->clocks);
		out->clocks = ft_calloc(w->nranks, sizeof(*out->clocks));
		if (!out->clocks)
			return FT_ENOMEM;
		/* this rank's clock as calibrated, for a table head printed before the
		   ranks' clocks are gathered at the end (ft__bench_clock_gather) */
		ft__bench_clock_expected(&cfg, &out->clocks[w->rank]);
	}
	if (w->kept_ep) {
		/* the sweep's endpoint, from the run before: same transport, same ranks */
		ep = w->kept_ep;
		w->kept_ep = NULL;
		ft_strlcpy(out->transport, "nccl", sizeof(out->transport));
	} else {
		rc = ft__transport_open(w, &cfg, &ep, out->transport, sizeof(out->transport),
		                        err);
		if (rc < 0)
			return rc;
	}
	if (cfg.graph_launches && !ep->ops->coll_graph) {
		rc = ft_error_set(err, FT_ENOTSUP,
		                  "-G %u: not available: CUDA graphs launch NCCL's kernels, and "
		                  "this run uses the %s transport (use --transport nccl)",
		                  cfg.graph_launches, out->transport);
		ft__ep_close(ep);
		return rc;
	}
	memset(&bc, 0, sizeof(bc));
	bc.ep = ep;
	bc.cfg = &cfg;
	bc.w = w;
	if (strcmp(out->transport, "nccl") == 0)
		ft_strlcpy(out->buffers, "device", sizeof(out->buffers));
	if (cfg.gpu_buffers) {
		rc = ft__bench_gpu_setup(&bc, out, err);
		if (rc < 0) {
			ft__ep_close(ep);
			return rc;
		}
	}
	rc = pattern_fn(cfg.pattern)(&bc, out, err);
	if (rc == 0 && out->clocks)
		rc = ft__bench_clock_gather(&bc, out, err);
	if (rc == 0 && fault_here(w))
		rc = ft_error_set(err, FT_EIO, "a fault injected by FT_FAULT_BENCH");
	/* a peer that went away because it was interrupted too is still an interruption */
	if (rc < 0 && cfg.stop && *cfg.stop && rc != FT_EINTR) {
		ft_error_clear(err);
		rc = ft_error_set(err, FT_EINTR, "interrupted");
	}
	if (rc == FT_EINTR)
		out->interrupted = true;
	/* Nobody closes its connections while another rank still measures. */
	if (rc == 0)
		late_here(w);
	if (rc == 0) {
		rc = ft__world_barrier(w, err);
		if (rc == FT_EINTR)
			out->interrupted = true;
	}
	if (rc == 0 && w->keep_ep && strcmp(out->transport, "nccl") == 0)
		w->kept_ep = ep;
	else
		ft__ep_close(ep);
	ft__cuda_close(bc.cuda);
	return rc;
}

void
ft__bench_drop_kept(struct ft_world *w)
{
	ft__ep_close(w->kept_ep);
	w->kept_ep = NULL;
	w->keep_ep = false;
}

/* The run with its wall-clock start and how busy this host was meanwhile (fabtune/usage.h). */
int
ft_bench_run(struct ft_world *w, const struct ft_bench_cfg *cfg_in, struct ft_bench_report *out,
             struct ft_error *err)
{
	struct ft_usage_sample t0, t1;
	int rc;

	ft_usage_sample(&t0);
	rc = bench_run(w, cfg_in, out, err);
	ft_usage_sample(&t1);
	ft_usage_apply(&t0, &t1, &out->run);
	return rc;
}

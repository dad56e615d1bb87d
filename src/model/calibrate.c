/* SPDX-License-Identifier: MIT */
/*
 * model/calibrate.c - calibration of the model from the user's own runs:
 * three constants fitted on a measured curve (a fixed per-operation cost, a
 * latency scale and a bandwidth scale over the model's own time), then a
 * residual factor per measured size, with the leave-one-out check.
 *
 * The model's time at each size comes from ft_model_eval() in its two parts
 * (ft_model_result.lat_part_s, bw_part_s): everything the model charges, its
 * pipeline, ramp, proxy and launch floors included, so the constants 0, 1, 1
 * are the model itself and the fit, never worse than them on the squared
 * relative error, never makes the model worse on the curve it was fitted on.
 * The (algorithm, protocol) is the tuner's at each size, so a curve that
 * crosses from one algorithm to another keeps the model's shape. The fit
 * minimizes the sum of squared relative errors (a small run must count as
 * much as a large one); a constant that comes out negative is dropped and the
 * others refitted. docs/internals/model.md explains it.
 */
#include "model_int.h"

#include <stdlib.h>

#include <fabtune/units.h>

/* Solve the n x n system @m (row-major, augmented with @v) by Gauss-Jordan; false if singular. */
static bool
solve(double m[3][4], int n, double *x)
{
	int c, r, k, p;

	for (c = 0; c < n; c++) {
		for (p = c, r = c + 1; r < n; r++)
			if (fabs(m[r][c]) > fabs(m[p][c]))
				p = r;
		if (!(fabs(m[p][c]) > 1e-300))
			return false;
		for (k = 0; k <= n && p != c; k++) {
			double t = m[c][k];

			m[c][k] = m[p][k];
			m[p][k] = t;
		}
		for (r = 0; r < n; r++) {
			double f;

			if (r == c)
				continue;
			f = m[r][c] / m[c][c];
			for (k = c; k <= n; k++)
				m[r][k] -= f * m[c][k];
		}
	}
	for (c = 0; c < n; c++)
		x[c] = m[c][n] / m[c][c];
	return true;
}

/*
 * Least squares of (f + a·lat + b·bw) / t = 1 over the points but @skip,
 * with the constants of @use only (the bandwidth scale, when not fitted,
 * held at the model's: b = 1); true when they all come out >= 0.
 */
static bool
fit_subset(const struct ft_model_calib_point *pts, size_t n, size_t skip, const bool use[3],
           double k[3])
{
	double m[3][4] = { { 0 } }, x[3] = { 0 };
	int idx[3], nu = 0, i, j;
	size_t p;

	for (i = 0; i < 3; i++)
		if (use[i])
			idx[nu++] = i;
	for (p = 0; p < n; p++) {
		double row[3], t = pts[p].time_s;

		if (p == skip || pts[p].one_off)
			continue;
		row[0] = 1.0 / t;
		row[1] = pts[p].lat_s / t;
		row[2] = pts[p].bw_s / t;
		for (i = 0; i < nu; i++) {
			for (j = 0; j < nu; j++)
				m[i][j] += row[idx[i]] * row[idx[j]];
			m[i][nu] += row[idx[i]] * (use[2] ? 1.0 : 1.0 - row[2]);
		}
	}
	if (!solve(m, nu, x))
		return false;
	k[0] = k[1] = 0;
	k[2] = 1;
	for (i = 0; i < nu; i++) {
		if (!(x[i] >= 0))
			return false;
		k[idx[i]] = x[i];
	}
	return true;
}

static double
sq_rel_err(const struct ft_model_calib_point *pts, size_t n, size_t skip, const double k[3])
{
	double e = 0;
	size_t p;

	for (p = 0; p < n; p++) {
		double f;

		if (p == skip || pts[p].one_off)
			continue;
		f = (k[0] + k[1] * pts[p].lat_s + k[2] * pts[p].bw_s) / pts[p].time_s - 1;
		e += f * f;
	}
	return e;
}

/* The median |relative error| of @k over the points but @skip and the one-off ones; @e
 * room for @n errors (the caller's: an allocation here that failed made the model's own
 * constants win the fit, a calibration that silently did not calibrate). */
static double
median_err(const struct ft_model_calib_point *pts, size_t n, size_t skip, const double k[3],
           double *e)
{
	double m;
	size_t p, ne = 0;

	for (p = 0; p < n; p++)
		if (p != skip && !pts[p].one_off)
			e[ne++] = fabs((k[0] + k[1] * pts[p].lat_s + k[2] * pts[p].bw_s) /
			                       pts[p].time_s -
			               1);
	m = ne ? ft__median(e, ne) : 0;
	return m;
}

/* @k is no worse than the model's own constants: by the squared error, and by the median. */
static bool
no_worse(const struct ft_model_calib_point *pts, size_t n, size_t skip, const double k[3],
         double *scratch)
{
	static const double model[3] = { 0, 1, 1 };

	return sq_rel_err(pts, n, skip, k) <= sq_rel_err(pts, n, skip, model) &&
	       median_err(pts, n, skip, k, scratch) <= median_err(pts, n, skip, model, scratch);
}

/*
 * The best non-negative fit over the subsets of constants, among those no
 * worse than the model's own constants (0, 1, 1) by the squared error and by
 * the median error (least squares can trade a few sizes' errors for the
 * median's: the 2 x 8 H100 baseline's plain model is 1.4% at the median, its
 * least-squares fit 1.6%), or those constants when no fit is. A curve of the
 * latency plateau alone (2 x 8 H20 from 4 to 512 B) gives its bandwidth scale
 * no hold: it would come out negative, or huge where the model's latency is
 * flat and the fixed cost and the latency scale cannot be told apart; the
 * subsets that keep the model's bandwidth (b = 1) fit such a curve.
 */
static void
fit(const struct ft_model_calib_point *pts, size_t n, size_t skip, double best[3],
    double *scratch)
{
	static const bool sets[][3] = { { true, true, true },   { false, true, true },
		                        { true, false, true },  { false, false, true },
		                        { true, true, false },  { false, true, false },
		                        { true, false, false } };
	double k[3], e, best_e;
	size_t i;

	best[0] = 0;
	best[1] = best[2] = 1;
	best_e = sq_rel_err(pts, n, skip, best);
	for (i = 0; i < FT_ARRAY_SIZE(sets); i++) {
		if (!fit_subset(pts, n, skip, sets[i], k))
			continue;
		e = sq_rel_err(pts, n, skip, k);
		if (e < best_e * (1 - 1e-12) && no_worse(pts, n, skip, k, scratch)) {
			best_e = e;
			memcpy(best, k, sizeof(k));
		}
	}
}

void
ft__model_calib_round(double k[3])
{
	char buf[64];
	double v;

	snprintf(buf, sizeof(buf), FT__CALIB_FIXED_US_FMT "us", k[0] * 1e6);
	if (ft_parse_duration(buf, &v, NULL) == 0)
		k[0] = v;
	for (int i = 1; i < 3; i++) {
		snprintf(buf, sizeof(buf), FT__CALIB_SCALE_FMT, k[i]);
		if (ft_parse_double(buf, &v) == 0)
			k[i] = v;
	}
}

/*
 * The residual factor at @bytes: measured / fitted of the points but @skip,
 * interpolated in log(size) between the nearest ones, the nearest beyond the ends.
 */
static double
residual(const struct ft_model_calib_point *pts, size_t n, size_t skip, const double k[3],
         uint64_t bytes)
{
	size_t p, lo = SIZE_MAX, hi = SIZE_MAX;
	double rl, rh, x, xl, xh;

	for (p = 0; p < n; p++) {
		if (p == skip || pts[p].one_off)
			continue;
		if (pts[p].bytes <= bytes)
			lo = p;
		if (pts[p].bytes >= bytes && hi == SIZE_MAX)
			hi = p;
	}
	if (lo == SIZE_MAX && hi == SIZE_MAX)
		return 1.0;
	if (lo == SIZE_MAX)
		lo = hi;
	if (hi == SIZE_MAX)
		hi = lo;
	rl = pts[lo].time_s / (k[0] + k[1] * pts[lo].lat_s + k[2] * pts[lo].bw_s);
	rh = pts[hi].time_s / (k[0] + k[1] * pts[hi].lat_s + k[2] * pts[hi].bw_s);
	if (lo == hi || pts[lo].bytes == pts[hi].bytes)
		return rl;
	x = log((double)FT_MAX(bytes, 1));
	xl = log((double)FT_MAX(pts[lo].bytes, 1));
	xh = log((double)FT_MAX(pts[hi].bytes, 1));
	return rl + (rh - rl) * (x - xl) / (xh - xl);
}

static int
cmp_point(const void *a, const void *b)
{
	const struct ft_model_calib_point *x = a, *y = b;

	return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

/* The model's time of @q at @bytes, in its two parts, into @pt (the spec's own calibration
 * aside). */
static int
model_terms(const struct ft_cluster_spec *spec, const struct ft_model_query *q, uint64_t bytes,
            struct ft_model_calib_point *pt, uint32_t *nranks, struct ft_error *err)
{
	struct ft_model_query one = *q;
	struct ft_model_result r;
	int rc;

	one.bytes = bytes;
	rc = ft_model_eval(spec, &one, &r, err);
	if (rc < 0)
		return rc;
	pt->lat_s = r.lat_part_s;
	pt->bw_s = r.bw_part_s;
	pt->model_s = r.lat_part_s + r.bw_part_s;
	if (nranks)
		*nranks = r.nranks;
	return 0;
}

static bool
has_size(const struct ft_model_calib_point *pts, size_t n, uint64_t bytes)
{
	for (size_t i = n; i-- > 0;)
		if (pts[i].bytes == bytes)
			return true;
	return false;
}

/* Take the rows of @run that belong to @q's curve into @out (sorted, one per size). */
static int
collect(const struct ft_run *run, const struct ft_model_query *q, uint32_t nranks,
        struct ft_model_calib *out, struct ft_error *err)
{
	size_t i, n = ft_run_nrows(run), k = 0;

	out->pts = ft_calloc(n ? n : 1, sizeof(*out->pts));
	if (!out->pts)
		return ft_error_set(err, FT_ENOMEM, "calibration: out of memory");
	for (i = 0; i < n; i++) {
		const struct ft_result_row *r = ft_run_row(run, i);
		/* a table of in-place columns only (a benchmark printing one group) */
		double t = r->time_us > 0 ? r->time_us : r->ip_time_us;
		enum ft_op op;

		if (ft_op_from_name(r->test, &op) < 0 || op != q->op)
			continue;
		if ((nranks && r->nranks && r->nranks != nranks) || r->bytes == 0 || !(t > 0) ||
		    has_size(out->pts, k, r->bytes))
			continue; /* a repeated size (a second run, -o all's rows): the first counts */
		out->pts[k].bytes = r->bytes;
		out->pts[k].time_s = t * 1e-6;
		k++;
	}
	out->npoints = k;
	qsort(out->pts, k, sizeof(*out->pts), cmp_point);
	return 0;
}

/*
 * Mark the sizes whose time carries a one-off cost. Between two measured
 * sizes whose model time is mostly its bandwidth part, the measured time
 * grows by the extra bytes over the rate the run reaches; the ratio of that
 * growth to the model's bandwidth part's growth is the curve's bandwidth
 * scale there, about the same from one pair of sizes to the next (the pick's
 * channels and protocol are in the model's part). Where it falls under half
 * the curve's median, the run would have moved the extra bytes at twice the
 * rate it moves them elsewhere: the smaller size's time holds a cost that no
 * rate gives (1 x 8 A100 sendrecv -g 8, the sweep's first size 128 MiB:
 * 1211 us, 256 MiB only 212 us more where the curve takes 680 us a 128 MiB).
 * Only a size alone in that (the pairs on either side of it in line): a run
 * of such pairs is a plateau, a per-operation cost the fit's fixed term is
 * for (2 ranks sharing one GPU over sockets: 2.2 ms from 1 to 8 MiB). Three
 * pairs at least, and three sizes left to fit. @room holds 2 @n doubles (the caller's: a
 * count that fell to none without memory for them would fit another curve).
 */
static size_t
mark_one_off(struct ft_model_calib_point *pts, size_t n, double *room)
{
	double *r = room, *all, med;
	size_t i, k = 0, marked = 0;

	all = r + n; /* each pair's ratio, NAN where the pair does not count */
	for (i = 0; i + 1 < n; i++) {
		const struct ft_model_calib_point *a = &pts[i], *b = &pts[i + 1];

		all[i] = NAN;
		if (a->bw_s >= a->lat_s && b->bw_s > a->bw_s) {
			all[i] = (b->time_s - a->time_s) / (b->bw_s - a->bw_s);
			r[k++] = all[i];
		}
	}
	if (k < 3)
		return 0;
	med = ft__median(r, k);
	for (i = 0; i + 1 < n && med > 0 && n - marked > 3; i++) {
		bool low = all[i] < 0.5 * med;
		bool before_ok = i == 0 || !(all[i - 1] < 0.5 * med);
		bool after_ok = i + 2 < n && all[i + 1] >= 0.5 * med;

		if (low && before_ok && after_ok) {
			pts[i].one_off = true;
			marked++;
		}
	}
	return marked;
}

/* ", its all_reduce rows are on 96 ranks" where @run has rows of @q's op on other rank counts. */
static void
other_ranks(const struct ft_run *run, const struct ft_model_query *q, char *buf, size_t len)
{
	uint32_t seen[4];
	size_t i, k, ns = 0, at;

	buf[0] = '\0';
	for (i = 0; i < ft_run_nrows(run) && ns < FT_ARRAY_SIZE(seen); i++) {
		const struct ft_result_row *r = ft_run_row(run, i);
		enum ft_op op;

		if (ft_op_from_name(r->test, &op) < 0 || op != q->op || !r->nranks ||
		    r->nranks == q->ngpus)
			continue;
		for (k = 0; k < ns && seen[k] != r->nranks; k++)
			;
		if (k == ns)
			seen[ns++] = r->nranks;
	}
	if (ns == 0)
		return;
	at = (size_t)snprintf(buf, len, "; its %s rows are on ", ft_op_name(q->op));
	for (k = 0; k < ns && at < len; k++)
		at += (size_t)snprintf(buf + at, len - at, "%s%u", k == 0 ? "" : ", ", seen[k]);
	if (at < len)
		snprintf(buf + at, len - at, " ranks");
}

int
ft_model_calibrate(const struct ft_cluster_spec *spec, const struct ft_model_query *q,
                   const struct ft_run *measured, struct ft_model_calib *out, struct ft_error *err)
{
	static const double model[3] = { 0, 1, 1 };
	struct ft_model_query cq = *q;
	struct ft_model_cache *own = NULL;
	double k[3], *errs = NULL;
	size_t i, n;
	int rc;

	memset(out, 0, sizeof(*out));
	out->op = q->op;
	out->nranks = q->ngpus;
	rc = collect(measured, q, q->ngpus, out, err);
	if (rc < 0)
		return rc;
	n = out->npoints;
	if (n < 4) {
		char who[48] = "", other[96] = "";

		if (q->ngpus) {
			snprintf(who, sizeof(who), " on %u ranks", q->ngpus);
			other_ranks(measured, q, other, sizeof(other));
		}
		rc = ft_error_set(err, FT_EINVAL,
		                  "calibration: %s%s: expected at least 4 measured sizes, got %zu%s",
		                  ft_op_name(q->op), who, n, other);
		goto fail;
	}
	/* the errors, then room for median_err()'s; mark_one_off()'s ratios before them */
	errs = ft_calloc(2 * n, sizeof(double));
	if (!errs) {
		rc = ft_error_set(err, FT_ENOMEM, "calibration: out of memory");
		goto fail;
	}
	/* every measured size on the same node and job: an all-to-all's or a send/recv's
	 * shared links laid out once, in the caller's cache or one of the fit's own, as a
	 * sweep's (ft_model_sweep()); without memory for it each size lays them out, to the
	 * same terms */
	if (!cq.cache)
		cq.cache = own = ft_model_cache_new();
	for (i = 0; i < n; i++) {
		rc = model_terms(spec, &cq, out->pts[i].bytes, &out->pts[i],
		                 out->nranks ? NULL : &out->nranks, err);
		if (rc < 0)
			goto fail;
	}
	ft_model_cache_free(own);
	own = NULL;
	out->n_one_off = mark_one_off(out->pts, n, errs);
	/* The constants as the block prints them, so that a spec including it gives fit_s;
	 * the model's own where rounding lost the fit's edge over them. */
	fit(out->pts, n, SIZE_MAX, k, errs + n);
	ft__model_calib_round(k);
	if (!no_worse(out->pts, n, SIZE_MAX, k, errs + n))
		memcpy(k, model, sizeof(k));
	out->fixed_s = k[0];
	out->lat_scale = k[1];
	out->bw_scale = k[2];
	for (i = 0; i < n; i++) {
		struct ft_model_calib_point *p = &out->pts[i];
		double kk[3];

		p->fit_s = k[0] + k[1] * p->lat_s + k[2] * p->bw_s;
		fit(out->pts, n, i, kk, errs + n);
		p->loo_s = (kk[0] + kk[1] * p->lat_s + kk[2] * p->bw_s) *
		           residual(out->pts, n, i, kk, p->bytes);
		p->loo_err = fabs(p->loo_s / p->time_s - 1);
	}
	for (i = 0; i < n; i++)
		errs[i] = fabs(out->pts[i].model_s / out->pts[i].time_s - 1);
	out->model_median_err = ft__median(errs, n);
	for (i = 0; i < n; i++)
		errs[i] = fabs(out->pts[i].fit_s / out->pts[i].time_s - 1);
	out->fit_median_err = ft__median(errs, n);
	for (i = 0; i < n; i++)
		errs[i] = out->pts[i].loo_err;
	out->loo_median_err = ft__median(errs, n);
	out->loo_max_err = errs[n - 1];
	ft_free(errs);
	return 0;
fail:
	ft_model_cache_free(own);
	ft_free(errs);
	ft_model_calib_release(out);
	return rc;
}

void
ft_model_calib_release(struct ft_model_calib *c)
{
	if (!c)
		return;
	ft_free(c->pts);
	c->pts = NULL;
	c->npoints = 0;
}

int
ft_model_calib_predict(const struct ft_model_calib *c, const struct ft_cluster_spec *spec,
                       const struct ft_model_query *q, double *time_s, struct ft_error *err)
{
	struct ft_model_calib_point pt = { 0 };
	double k[3] = { c->fixed_s, c->lat_scale, c->bw_scale };
	int rc;

	*time_s = 0;
	rc = model_terms(spec, q, q->bytes, &pt, NULL, err);
	if (rc < 0)
		return rc;
	*time_s = k[0] + k[1] * pt.lat_s + k[2] * pt.bw_s;
	/* The residual table belongs to the measured curve: same op and ranks only. */
	if (q->op == c->op && (c->nranks == 0 || q->ngpus == 0 || q->ngpus == c->nranks))
		*time_s *= residual(c->pts, c->npoints, SIZE_MAX, k, q->bytes);
	return 0;
}

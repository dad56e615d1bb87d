/* SPDX-License-Identifier: MIT */
/*
 * archive/compare.c - a run against a baseline, result by result, with
 * noise-aware thresholds.
 *
 * Results are matched on the exact key (test, reduction op, dtype, bytes,
 * nranks, transport, src, dst): a row without its counterpart is "new" or
 * "missing", never compared with a neighbouring size or rank count.
 *
 * Each result is compared on its own quantity: a latency test (its name says
 * "lat", or it carries only latencies) on its median latency, lower is
 * better; everything else on its bus bandwidth (NA-BUSBW), higher is better,
 * falling back to algbw and then time.
 *
 * The noise band: with at least min_samples baseline runs it is where a
 * new run of the same build falls with the probability that k standard
 * deviations cover under a normal law (99.73% for 3), given only the n runs'
 * mean m and sample deviation s: m +- t * s * sqrt(1 + 1/n), t Student's for
 * n - 1 degrees of freedom (a prediction interval). Three runs estimate s
 * badly, and t says by how much: 22.2 s for n = 3, 7.3 s for 5, 4.3 s for
 * 10, toward 3 s. A plain 3 s over three runs flagged identical doctor runs
 * on a loaded host (bench/doctor-stability.sh, docs/internals/doctor.md).
 * The band is never narrower than floor_rel of the mean (a perfectly
 * repeatable baseline would otherwise flag every wobble).
 *
 * With pool_iterations (the doctor on a host that is not loaded), the runs'
 * own repetitions join the estimate, as a one-way analysis of variance
 * pools within-group variance: each baseline row carries its per-iteration
 * spread (iter_cv, taken at its conservative end as a run-to-run deviation,
 * as below) with sum(k - 1) degrees of freedom, k the independent samples
 * behind each spread: its iterations, or for a stream (pt2pt_bw, pairs),
 * whose nsamples counts messages, its full windows (spread_n; a row of
 * -n 2000 at --window 64 has 31, not 2000). If the runs' deviation
 * s_b is within what that spread explains (s_b^2 / s_w^2 under the 99th
 * percentile of chi-square(n - 1) / (n - 1): no run effect shows), s^2 =
 * ((n - 1) s_b^2 + df_w s_w^2) / (n - 1 + df_w), never below s_b, and t
 * takes n - 1 + df_w degrees of freedom: 3 runs of 20 iterations give
 * 3.6 s instead of 22.2 s, so a 30 % loss on a host whose runs spread by a
 * few percent is told from noise. When the runs differ beyond their
 * iterations (a loaded or bimodal host), the band is the runs' alone.
 *
 * A disturbed baseline run is set aside first. A run hit by a stall (a
 * scheduling stall on a loaded host, a link flap) is slower as a whole and
 * its own iterations spread far wider than the other runs': one such run
 * among three makes s, and 22.2 s, wider than any loss worth flagging. So
 * with min_samples or more baseline rows for a key, a row whose
 * per-iteration coefficient of variation is above the floor and more than
 * FT_COMPARE_DISTURBED (2.64) times the median of the other rows' is set
 * aside: not in the mean, s, n or the iteration spread; the row reports how
 * many (base_aside). The evidence is the run's own spread, never its value,
 * so a baseline whose runs differ but each ran steadily keeps them all. At
 * most a minority is set aside (none when more would be: then the steady
 * runs cannot be told). 2.64 is the 99th percentile of the ratio of two
 * deviations of 8 iterations each (sqrt of F(7, 7) = 6.99; the same 99% as
 * the test for a run effect below), 8 being what a pt2pt_bw row of -n 32
 * messages at --window 4 times: a ratio that chance gives once in a
 * hundred, and less often with more iterations.
 * With fewer than min_samples rows left, the band is that of a baseline of
 * that many runs (below).
 *
 * With fewer, it is the stated relative threshold, widened to
 * the per-iteration spread of the result itself (coefficient of variation of
 * the iterations, the root mean square of the baseline's and the run's):
 * iterations of one run share connections and background load, so the
 * spread of their mean from run to run lies between sigma/sqrt(n) and sigma,
 * and the band takes the conservative end. A one-run baseline taken on a
 * noisy host thus does not flip every result of the next run.
 */
#include "archive_int.h"

/* The normal quantile of the 99th percentile: the test for a run effect before pooling. */
#define POOL_TEST_Z 2.3263

FT__NAME_TABLE(verdict_names, FT_VERDICT_MAP, FT_VERDICT_COUNT);

const char *
ft_verdict_name(enum ft_verdict v)
{
	return (unsigned)v < FT_VERDICT_COUNT ? verdict_names[v] : "unknown";
}

void
ft_compare_opts_init(struct ft_compare_opts *o)
{
	memset(o, 0, sizeof(*o)); /* padding too: the options are compared as bytes */
	o->rel_threshold = 0.05;
	o->k_sigma = 3.0;
	o->floor_rel = 0.01;
	o->min_samples = 3;
	o->min_matched = 0.5;
	o->pool_iterations = false;
}

struct metric {
	const char *name;
	bool higher_is_better;
	size_t offset; /* of the double in struct ft_result_row */
};

/* Bandwidth tests, then latency tests: each list in order of preference. */
static const struct metric bw_metrics[] = {
	{ "busbw", true, offsetof(struct ft_result_row, busbw_GBps) },
	{ "algbw", true, offsetof(struct ft_result_row, algbw_GBps) },
	{ "time", false, offsetof(struct ft_result_row, time_us) },
};
static const struct metric lat_metrics[] = {
	{ "lat_p50", false, offsetof(struct ft_result_row, lat_p50_us) },
	{ "lat_avg", false, offsetof(struct ft_result_row, lat_avg_us) },
	{ "time", false, offsetof(struct ft_result_row, time_us) },
};

static double
metric_of(const struct ft_result_row *row, const struct metric *m)
{
	double v;

	memcpy(&v, (const char *)row + m->offset, sizeof(v));
	return v;
}

bool
ft_result_row_is_latency(const struct ft_result_row *row)
{
	if (strstr(row->test, "lat"))
		return true;
	return isfinite(row->lat_p50_us) && !isfinite(row->busbw_GBps) &&
	       !isfinite(row->algbw_GBps);
}

static const struct metric *
pick_metric(const struct ft_result_row *row)
{
	bool lat = ft_result_row_is_latency(row);
	const struct metric *m = lat ? lat_metrics : bw_metrics;
	size_t i, n = lat ? FT_ARRAY_SIZE(lat_metrics) : FT_ARRAY_SIZE(bw_metrics);

	for (i = 0; i < n; i++)
		if (isfinite(metric_of(row, &m[i])))
			return &m[i];
	return NULL;
}

/*
 * The per-iteration coefficient of variation behind @row's metric @m: the
 * latency spread for a latency, the time spread for a bandwidth or a time
 * (bandwidth is bytes / time, so their relative spreads agree to first order).
 * NaN when the row carries none.
 */
static double
iter_cv(const struct ft_result_row *row, const struct metric *m)
{
	if (!m->higher_is_better && strncmp(m->name, "lat", 3) == 0) {
		double mid = isfinite(row->lat_avg_us) ? row->lat_avg_us : row->lat_p50_us;

		return mid > 0 && row->lat_stdev_us >= 0 ? row->lat_stdev_us / mid : NAN;
	}
	return row->time_us > 0 && row->time_stdev_us >= 0 ? row->time_stdev_us / row->time_us :
	                                                     NAN;
}

double
ft_result_row_metric(const struct ft_result_row *row, const char **name, bool *higher_is_better)
{
	const struct metric *m = pick_metric(row);

	if (name)
		*name = m ? m->name : "";
	if (higher_is_better)
		*higher_is_better = m ? m->higher_is_better : true;
	return m ? metric_of(row, m) : NAN;
}

/* Total order on the matching key. */
static int
key_cmp(const struct ft_result_row *a, const struct ft_result_row *b)
{
	int c;

	if ((c = strcmp(a->test, b->test)) != 0)
		return c;
	if ((c = strcmp(a->redop, b->redop)) != 0)
		return c;
	if ((c = strcmp(a->dtype, b->dtype)) != 0)
		return c;
	if ((c = strcmp(a->transport, b->transport)) != 0)
		return c;
	if (a->bytes != b->bytes)
		return a->bytes < b->bytes ? -1 : 1;
	if (a->nranks != b->nranks)
		return a->nranks < b->nranks ? -1 : 1;
	if ((c = strcmp(a->src, b->src)) != 0)
		return c;
	return strcmp(a->dst, b->dst);
}

/* A row with where it came from, so that sorting is a total order. */
struct ref {
	const struct ft_result_row *row;
	size_t order;
	bool aside; /* a disturbed baseline run, set aside (set_aside()) */
};

static int
ref_cmp(const void *pa, const void *pb)
{
	const struct ref *a = pa, *b = pb;
	int c = key_cmp(a->row, b->row);

	if (c)
		return c;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* First index in sorted @refs[0..n) whose key is >= @row's. */
static size_t
lower_bound(const struct ref *refs, size_t n, const struct ft_result_row *row)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key_cmp(refs[mid].row, row) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t
group_end(const struct ref *refs, size_t n, size_t start)
{
	size_t i = start;

	while (i < n && key_cmp(refs[i].row, refs[start].row) == 0)
		i++;
	return i;
}

static void
fill_key(struct ft_compare_row *cr, const struct ft_result_row *r)
{
	memset(cr, 0, sizeof(*cr));
	ft_strlcpy(cr->test, r->test, sizeof(cr->test));
	ft_strlcpy(cr->transport, r->transport, sizeof(cr->transport));
	ft_strlcpy(cr->redop, r->redop, sizeof(cr->redop));
	ft_strlcpy(cr->dtype, r->dtype, sizeof(cr->dtype));
	cr->bytes = r->bytes;
	cr->nranks = r->nranks;
	ft_strlcpy(cr->src, r->src, sizeof(cr->src));
	ft_strlcpy(cr->dst, r->dst, sizeof(cr->dst));
	cr->current = cr->base_mean = cr->base_stdev = cr->delta_rel = NAN;
	cr->threshold_rel = cr->iter_cv = NAN;
	cr->current_p99 = cr->base_p99 = NAN;
}

/*
 * Mean and sample standard deviation of @m over refs[lo..hi), skipping NaN
 * and the rows set aside;
 * *@cv2 gets the mean square of the rows' per-iteration spreads (NaN when
 * none has one), *@iter_df the degrees of freedom behind it (the sum of
 * nsamples - 1 over those rows) and *@p99 the mean 99th percentile (NaN when
 * none).
 */
static unsigned
stats(const struct ref *refs, size_t lo, size_t hi, const struct metric *m, double *mean,
      double *stdev, double *cv2, double *iter_df, double *p99)
{
	double sum = 0, ss = 0, cvs = 0, p99s = 0, df = 0;
	unsigned n = 0, ncv = 0, np99 = 0;
	size_t i;

	for (i = lo; i < hi; i++) {
		double v = metric_of(refs[i].row, m), cv = iter_cv(refs[i].row, m);

		if (refs[i].aside)
			continue;
		if (isfinite(v)) {
			sum += v;
			n++;
		}
		if (isfinite(cv)) {
			cvs += cv * cv;
			ncv++;
			/* independent samples: a stream's windows, not its messages */
			uint32_t k = refs[i].row->spread_n ? refs[i].row->spread_n :
			                                     refs[i].row->nsamples;

			if (k > 1)
				df += k - 1;
		}
		if (isfinite(refs[i].row->lat_p99_us)) {
			p99s += refs[i].row->lat_p99_us;
			np99++;
		}
	}
	*mean = n ? sum / n : NAN;
	*cv2 = ncv ? cvs / ncv : NAN;
	*iter_df = df;
	*p99 = np99 ? p99s / np99 : NAN;
	*stdev = NAN;
	if (n >= 2) {
		for (i = lo; i < hi; i++) {
			double v = metric_of(refs[i].row, m);

			if (isfinite(v) && !refs[i].aside)
				ss += (v - *mean) * (v - *mean);
		}
		*stdev = sqrt(ss / (n - 1));
	}
	return n;
}

/*
 * Set aside the disturbed rows of the baseline group refs[lo..hi) (head
 * comment): a row whose per-iteration spread is above @floor_rel and more
 * than FT_COMPARE_DISTURBED times the median of the other rows' (at least
 * two of them carrying one). None when more than a minority would be.
 * @scratch holds hi - lo doubles. Returns how many were set aside.
 */
static unsigned
set_aside(struct ref *refs, size_t lo, size_t hi, const struct metric *m, double floor_rel,
          double *scratch)
{
	size_t i, k, n = hi - lo;
	unsigned naside = 0;

	for (i = lo; i < hi; i++) {
		double cv = iter_cv(refs[i].row, m), med;
		size_t nother = 0;

		refs[i].aside = false;
		if (!isfinite(metric_of(refs[i].row, m)) || !(cv > floor_rel))
			continue;
		for (k = lo; k < hi; k++) {
			double o = iter_cv(refs[k].row, m);

			if (k != i && isfinite(o) && isfinite(metric_of(refs[k].row, m)))
				scratch[nother++] = o;
		}
		if (nother < 2)
			continue;
		med = ft__median(scratch, nother);
		if (cv > FT_COMPARE_DISTURBED * med) {
			refs[i].aside = true;
			naside++;
		}
	}
	if (naside > (n - 1) / 2) {
		for (i = lo; i < hi; i++)
			refs[i].aside = false;
		naside = 0;
	}
	return naside;
}

/* Student's t at the coverage of @k_sigma normal sigmas, @df degrees of freedom, for a new run. */
static double
band_sigmas(double k_sigma, unsigned n, unsigned df)
{
	if (n < 2 || df < 1 || !(k_sigma > 0))
		return NAN;
	return ft__t_two_sided(erf(k_sigma / M_SQRT2), df) * sqrt(1 + 1.0 / n);
}

double
ft__compare_band_sigmas(double k_sigma, unsigned n)
{
	return band_sigmas(k_sigma, n, n - 1);
}

/*
 * The upper @z quantile of chi-square with @k degrees of freedom divided by
 * @k (Wilson and Hilferty's cube-root normal approximation: within 0.5 % of
 * the tables from k = 1 at the 99th percentile; 4.61 for k = 2, 3.78 for 3).
 */
static double
chi2_upper_ratio(double z, double k)
{
	double a = 2 / (9 * k), c = 1 - a + z * sqrt(a);

	return c * c * c;
}

/*
 * Pool the baseline's runs with their iterations (compare.c, head comment):
 * when the between-run deviation @cr->base_stdev is no larger than the
 * per-iteration one would make it at the 99th percentile, the per-iteration
 * variance and its degrees of freedom join the runs'. Writes the deviation
 * (never below the runs' own) and the degrees of freedom; false leaves the
 * runs alone.
 */
static bool
pool_iterations(const struct ft_compare_row *cr, double scale, double *s, unsigned *df)
{
	unsigned k = cr->base_n - 1;
	double sw = cr->iter_cv * scale, sb = cr->base_stdev, s2;

	if (!(sw > 0) || !(cr->iter_df >= 1) || !isfinite(sb))
		return false;
	if (sb * sb > sw * sw * chi2_upper_ratio(POOL_TEST_Z, k))
		return false; /* the runs differ beyond their iterations: a run effect */
	s2 = (k * sb * sb + cr->iter_df * sw * sw) / (k + cr->iter_df);
	*s = FT_MAX(sqrt(s2), sb);
	*df = k + (unsigned)FT_MIN(cr->iter_df, 1e6);
	return true;
}

static void
judge(struct ft_compare_row *cr, const struct ft_compare_opts *o)
{
	double band, delta, scale = fabs(cr->base_mean);

	if (cr->base_n >= o->min_samples && isfinite(cr->base_stdev)) {
		double s = cr->base_stdev;
		unsigned df = cr->base_n - 1;

		cr->band_from = FT_BAND_RUNS;
		if (o->pool_iterations && pool_iterations(cr, scale, &s, &df))
			cr->band_from = FT_BAND_POOLED;
		band = FT_MAX(band_sigmas(o->k_sigma, cr->base_n, df) * s, o->floor_rel * scale);
		cr->noise_aware = true;
	} else if (isfinite(cr->iter_cv) && cr->iter_cv > o->rel_threshold) {
		band = cr->iter_cv * scale;
		cr->noise_aware = true;
		cr->band_from = FT_BAND_ITERATIONS;
	} else {
		band = o->rel_threshold * scale;
		cr->band_from = FT_BAND_STATED;
	}
	delta = cr->current - cr->base_mean;
	cr->threshold_rel = scale > 0 ? band / scale : NAN;
	cr->delta_rel = scale > 0 ? delta / scale : NAN;
	if (!cr->higher_is_better)
		delta = -delta;
	if (delta > band)
		cr->verdict = FT_VERDICT_IMPROVED;
	else if (delta < -band)
		cr->verdict = FT_VERDICT_REGRESSED;
	else
		cr->verdict = FT_VERDICT_UNCHANGED;
}

static int
sorted_refs(const struct ft_run *const *runs, size_t nruns, struct ref **out, size_t *n)
{
	size_t i, k, total = 0;
	struct ref *refs;

	for (i = 0; i < nruns; i++)
		total += ft_run_nrows(runs[i]);
	refs = ft_reallocarray(NULL, total ? total : 1, sizeof(*refs));
	if (!refs)
		return FT_ENOMEM;
	total = 0;
	for (i = 0; i < nruns; i++)
		for (k = 0; k < ft_run_nrows(runs[i]); k++) {
			refs[total].row = ft_run_row(runs[i], k);
			refs[total].order = total;
			refs[total].aside = false;
			total++;
		}
	qsort(refs, total, sizeof(*refs), ref_cmp);
	*out = refs;
	*n = total;
	return 0;
}

static int
push_row(struct ft_compare *out, const struct ft_compare_row *cr)
{
	out->count[cr->verdict]++;
	return ft_vec_push(&out->rows, cr);
}

int
ft_compare_runs(const struct ft_run *cur, const struct ft_run *const *base, size_t nbase,
                const struct ft_compare_opts *opts, struct ft_compare *out, struct ft_error *err)
{
	struct ref *crefs = NULL, *brefs = NULL;
	double *scratch = NULL;
	size_t ncur, nb, i;
	int rc;

	memset(out, 0, sizeof(*out));
	ft_vec_init(&out->rows, sizeof(struct ft_compare_row));
	if (opts)
		out->opts = *opts;
	else
		ft_compare_opts_init(&out->opts);
	if (!(out->opts.rel_threshold >= 0) || !(out->opts.k_sigma >= 0) ||
	    !(out->opts.floor_rel >= 0))
		return ft_error_set(err, FT_EINVAL, "compare: thresholds must be >= 0");
	if (!(out->opts.min_matched >= 0 && out->opts.min_matched <= 1))
		return ft_error_set(err, FT_EINVAL, "compare: min_matched must be in [0, 1], got %g",
		                    out->opts.min_matched);
	rc = sorted_refs(&cur, 1, &crefs, &ncur);
	if (rc == 0)
		rc = sorted_refs(base, nbase, &brefs, &nb);
	if (rc == 0) {
		scratch = ft_reallocarray(NULL, nb ? nb : 1, sizeof(*scratch));
		rc = scratch ? 0 : FT_ENOMEM;
	}
	if (rc < 0)
		goto out;
	/* Every current key, in the order of its first row; duplicates are averaged. */
	for (i = 0; rc == 0 && i < ft_run_nrows(cur); i++) {
		const struct ft_result_row *r = ft_run_row(cur, i);
		size_t lo = lower_bound(crefs, ncur, r), hi = group_end(crefs, ncur, lo);
		const struct metric *m = pick_metric(r);
		struct ft_compare_row cr;
		double sd, cv2_cur, cv2_base = NAN, df_cur;
		size_t blo, bhi;

		if (crefs[lo].order != i || !m)
			continue;
		fill_key(&cr, r);
		ft_strlcpy(cr.metric, m->name, sizeof(cr.metric));
		cr.higher_is_better = m->higher_is_better;
		stats(crefs, lo, hi, m, &cr.current, &sd, &cv2_cur, &df_cur, &cr.current_p99);
		blo = lower_bound(brefs, nb, r);
		/* exact match only: lower_bound() lands on the next key when there is none */
		bhi = blo < nb && key_cmp(brefs[blo].row, r) == 0 ? group_end(brefs, nb, blo) : blo;
		if (bhi - blo >= out->opts.min_samples)
			cr.base_aside =
			        set_aside(brefs, blo, bhi, m, out->opts.floor_rel, scratch);
		cr.base_n = stats(brefs, blo, bhi, m, &cr.base_mean, &cr.base_stdev, &cv2_base,
		                  &cr.iter_df, &cr.base_p99);
		if (isfinite(cv2_cur) && isfinite(cv2_base))
			cr.iter_cv = sqrt((cv2_cur + cv2_base) / 2);
		else
			cr.iter_cv = sqrt(isfinite(cv2_cur) ? cv2_cur : cv2_base);
		if (cr.base_n == 0) {
			cr.verdict = FT_VERDICT_NEW;
		} else {
			judge(&cr, &out->opts);
			out->nmatched++;
			out->naside += cr.base_aside > 0;
		}
		rc = push_row(out, &cr);
	}
	/* Baseline keys the run does not have, in key order. */
	for (i = 0; rc == 0 && i < nb;) {
		size_t hi = group_end(brefs, nb, i);
		size_t lo = lower_bound(crefs, ncur, brefs[i].row);
		const struct metric *m = pick_metric(brefs[i].row);
		struct ft_compare_row cr;
		double cv2;

		if (m && (lo >= ncur || key_cmp(crefs[lo].row, brefs[i].row) != 0)) {
			fill_key(&cr, brefs[i].row);
			ft_strlcpy(cr.metric, m->name, sizeof(cr.metric));
			cr.higher_is_better = m->higher_is_better;
			cr.base_n = stats(brefs, i, hi, m, &cr.base_mean, &cr.base_stdev, &cv2,
			                  &cr.iter_df, &cr.base_p99);
			cr.verdict = FT_VERDICT_MISSING;
			rc = push_row(out, &cr);
		}
		i = hi;
	}
out:
	ft_free(crefs);
	ft_free(brefs);
	ft_free(scratch);
	if (rc < 0) {
		ft_compare_release(out);
		return ft_error_set(err, rc, "compare: out of memory");
	}
	return 0;
}

void
ft_compare_release(struct ft_compare *cmp)
{
	ft_vec_release(&cmp->rows);
	memset(cmp->count, 0, sizeof(cmp->count));
	cmp->nmatched = 0;
	cmp->naside = 0;
}

bool
ft_compare_is_incomplete(const struct ft_compare *cmp)
{
	size_t expected = cmp->nmatched + cmp->count[FT_VERDICT_MISSING];

	if (cmp->nmatched == 0)
		return true;
	return (double)cmp->nmatched < cmp->opts.min_matched * (double)expected;
}

const char *
ft_band_from_name(enum ft_band_from b)
{
	switch (b) {
	case FT_BAND_RUNS:
		return "runs";
	case FT_BAND_POOLED:
		return "pooled";
	case FT_BAND_ITERATIONS:
		return "iterations";
	case FT_BAND_STATED:
		return "stated";
	case FT_BAND_NONE:
		break;
	}
	return "none";
}

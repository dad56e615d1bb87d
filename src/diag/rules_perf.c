/* SPDX-License-Identifier: MIT */
/*
 * diag/rules_perf.c - rules on measured performance: bus bandwidth below the
 * model's expectation, latency jitter (p99/p50), outlier pairs and hosts in
 * a pairs matrix, and benchmark results that failed validation.
 *
 * The 80% "investigate" and 50% "half" bandwidth marks are the NA-EXPECT and
 * SYM-BW-HALF heuristics; the jitter and outlier ratios are heuristics too,
 * stated on each rule's page.
 */
#include "internal.h"

#include <fabtune/units.h>

#include "diag/diag_int.h"

/*
 * Limits from the thresholds file (diag/thresholds.c): busbw_model_min, 80% of
 * the expected bandwidth (NA-EXPECT), and busbw_model_error, 55% (SYM-BW-HALF:
 * about half is a fault class); jitter_max and jitter_error, p99 twice and ten
 * times p50 (heuristics), when p99 is at least jitter_min_us (1 us) above p50:
 * a 0.2 us spread around a 0.2 us shared-memory p50 is no jitter a user can act
 * on; pair_outlier_min, a pair below 80% of the median
 * pair bandwidth (heuristic).
 *
 * A latency tail measured while other processes held the CPUs
 * (host.cpu_foreign, the share of the host's CPU time they used, at least
 * jitter_foreign_cpu_max: 25%) is the scheduler's: a rank that waits for a
 * message is not on a CPU when it arrives and waits a time slice
 * (milliseconds) for one, so p99 reads 100-1000x a microsecond p50 on a
 * loaded host whatever the network does. The finding is then info and says
 * so, instead of sending the user after the fabric: of 8 identical doctor
 * runs on a 2-CPU host at load 13-16, 7 reported jitter, 6 of them as errors
 * (p99 9 us to 8.8 ms against p50 0.14-7.9 us; docs/internals/doctor.md).
 */

/* Message size of a bench observation: its str holds the size ("1048576", "1MiB"). */
static bool
obs_bytes(const struct ft_obs *o, uint64_t *bytes)
{
	char buf[32];
	size_t n = strspn(o->str, "0123456789");

	if (n && n < sizeof(buf)) {
		memcpy(buf, o->str, n);
		buf[n] = '\0';
		if (ft_parse_u64(buf, bytes) == 0)
			return true;
	}
	return ft_parse_size(o->str, bytes, NULL) == 0;
}

/* Test name of the file an observation comes from (bench.test), or NULL. */
static const char *
obs_test(const struct ft_diag_ctx *c, const struct ft_obs *o)
{
	size_t i;

	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *t = ft__obs(c, i);

		if (strcmp(t->key, "bench.test") == 0 && strcmp(t->file, o->file) == 0)
			return t->str;
	}
	return NULL;
}

/* "all_reduce_perf" and "all_reduce" name the same test. */
static bool
test_matches(const char *want, const char *have)
{
	size_t n = strlen(want);

	if (!want[0] || !have)
		return true;
	if (n > 5 && strcmp(want + n - 5, "_perf") == 0)
		n -= 5;
	return strncmp(want, have, n) == 0 &&
	       (have[n] == '\0' || strncmp(have + n, "_perf", 5) == 0);
}

int
ft__diag_eval_busbw_model(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	size_t e, i;
	int rc;

	for (e = 0; e < c->nexpect; e++) {
		const struct ft_expectation *x = &c->expect[e];
		const struct ft_obs *best = NULL, *ev[1];
		char size[32];
		double ratio;

		if (x->busbw_GBps <= 0)
			continue;
		/* The best measured point: at the expected size, or the plateau when bytes == 0. */
		for (i = 0; i < ft__nobs(c); i++) {
			const struct ft_obs *o = ft__obs(c, i);
			uint64_t b;

			if (strcmp(o->key, "bench.busbw") != 0 || !o->has_num ||
			    !test_matches(x->test, obs_test(c, o)))
				continue;
			if (x->bytes && (!obs_bytes(o, &b) || b != x->bytes))
				continue;
			if (!best || o->num > best->num)
				best = o;
		}
		if (!best)
			continue;
		ratio = best->num / x->busbw_GBps;
		if (ratio >= c->thresholds->busbw_model_min)
			continue;
		ev[0] = best;
		if (x->bytes)
			ft_format_size(x->bytes, size, sizeof(size));
		else
			ft_strlcpy(size, "plateau", sizeof(size));
		rc = ft__diag_emit(c, out, ratio < c->thresholds->busbw_model_error ? FT_SEV_ERROR : -1, ev, 1,
				   "%s busbw %.1f GB/s at %s is %.0f%% of the %.1f GB/s the model "
				   "expects%s",
				   x->test[0] ? x->test : "measured", best->num, size,
				   100.0 * ratio, x->busbw_GBps,
				   ratio < c->thresholds->busbw_model_error
					   ? ": about half or less, look for GDR off, cross-NUMA "
					     "placement, missing rails or a PCIe downgrade"
					   : "");
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * Heuristics from the thresholds file: latency_model_max, 25% above the
 * model's latency, is worth a look; latency_model_error, twice, is a fault.
 */

/* Measured latency for an expectation: the point at its size, or the smallest size. */
static const struct ft_obs *
measured_latency(const struct ft_diag_ctx *c, const struct ft_expectation *x)
{
	static const char *const keys[] = { "bench.lat_p50", "bench.time_us" };
	const struct ft_obs *best = NULL;
	uint64_t best_bytes = UINT64_MAX;
	size_t k, pos;

	for (k = 0; k < FT_ARRAY_SIZE(keys) && !best; k++) {
		const struct ft_obs *o;

		pos = 0;
		while ((o = ft__diag_next(c, keys[k], &pos)) != NULL) {
			uint64_t b;

			if (!o->has_num || !obs_bytes(o, &b) ||
			    !test_matches(x->test, obs_test(c, o)))
				continue;
			if (x->bytes ? b == x->bytes && (!best || o->num < best->num)
				     : b < best_bytes || (b == best_bytes && o->num < best->num)) {
				best = o;
				best_bytes = b;
			}
		}
	}
	return best;
}

int
ft__diag_eval_latency_model(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	size_t e;
	int rc;

	for (e = 0; e < c->nexpect; e++) {
		const struct ft_expectation *x = &c->expect[e];
		const struct ft_obs *m;
		double ratio;

		if (x->lat_us <= 0 || !(m = measured_latency(c, x)))
			continue;
		ratio = m->num / x->lat_us;
		if (ratio < c->thresholds->latency_model_max)
			continue;
		rc = ft__diag_emit(c, out,
				   ratio >= c->thresholds->latency_model_error ? FT_SEV_ERROR : -1,
				   FT__EV(m),
				   "%s latency %.2f us at %s bytes is %.1fx the %.2f us the model "
				   "expects",
				   x->test[0] ? x->test : "measured", m->num, m->str, ratio,
				   x->lat_us);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int
check_jitter(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *p99)
{
	const struct ft_obs *p50 = NULL;
	double ratio;
	size_t k;

	if (!p99->has_num)
		return 0;
	/* The p50 of the same entity, file and size (str). */
	for (k = 0; k < ft__nobs(c) && !p50; k++) {
		const struct ft_obs *o = ft__obs(c, k);

		if (strcmp(o->key, "bench.lat_p50") == 0 && o->has_num && ft__same_port(o, p99) &&
		    o->rank == p99->rank && strcmp(o->file, p99->file) == 0 &&
		    strcmp(o->str, p99->str) == 0)
			p50 = o;
	}
	if (!p50 || p50->num <= 0)
		return 0;
	ratio = p99->num / p50->num;
	if (ratio < c->thresholds->jitter_max ||
	    p99->num - p50->num < c->thresholds->jitter_min_us)
		return 0;
	for (k = 0; k < ft__nobs(c); k++) {
		const struct ft_obs *o = ft__obs(c, k);

		if (strcmp(o->key, "host.cpu_foreign") == 0 && o->has_num &&
		    o->num >= c->thresholds->jitter_foreign_cpu_max)
			return ft__diag_emit(
			        c, out, FT_SEV_INFO, FT__EV(p99, p50, o),
			        "latency p99 %.2f us is %.1fx the p50 %.2f us%s%s, "
			        "measured while other processes used %.0f%% of the "
			        "host's CPU time: the tail is the scheduler's, not the "
			        "network's (measure on an idle host)",
			        p99->num, ratio, p50->num, p99->str[0] ? " at " : "", p99->str,
			        o->num * 100);
	}
	return ft__diag_emit(c, out, ratio >= c->thresholds->jitter_error ? FT_SEV_ERROR : -1,
			     FT__EV(p99, p50),
			     "latency p99 %.2f us is %.1fx the p50 %.2f us%s%s: jitter (CPU power "
			     "states, IRQs, proxy placement, congestion or loss)",
			     p99->num, ratio, p50->num, p99->str[0] ? " at " : "", p99->str);
}
FT__DIAG_EACH(ft__diag_eval_jitter, "bench.lat_p99", check_jitter)

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of the bench.pair_bw values; false when there are fewer than 3. */
static bool
pair_median(const struct ft_diag_ctx *c, double *median, size_t *npairs)
{
	double *v;
	size_t i, n = 0;

	for (i = 0; i < ft__nobs(c); i++)
		if (strcmp(ft__obs(c, i)->key, "bench.pair_bw") == 0 && ft__obs(c, i)->has_num)
			n++;
	*npairs = n;
	if (n < 3)
		return false;
	v = ft_calloc(n, sizeof(*v));
	if (!v)
		return false;
	n = 0;
	for (i = 0; i < ft__nobs(c); i++)
		if (strcmp(ft__obs(c, i)->key, "bench.pair_bw") == 0 && ft__obs(c, i)->has_num)
			v[n++] = ft__obs(c, i)->num;
	qsort(v, n, sizeof(*v), cmp_double);
	*median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	ft_free(v);
	return *median > 0;
}

int
ft__diag_eval_pair_outlier(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	double med;
	size_t i, n;
	int rc;

	if (!pair_median(c, &med, &n))
		return 0;
	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);
		const struct ft_obs *ev[1] = { o };

		if (strcmp(o->key, "bench.pair_bw") != 0 || !o->has_num ||
		    o->num >= c->thresholds->pair_outlier_min * med)
			continue;
		rc = ft__diag_emit(
			c, out, -1, ev, 1,
			"pair %s: %.2f GB/s is %.0f%% of the median pair (%.2f GB/s over %zu "
			"pairs)",
			o->device, o->num, 100.0 * o->num / med, med, n);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* One endpoint of a pairs matrix and how its pairs did. */
struct endpoint {
	char name[48];
	size_t total, slow, nev;
	const struct ft_obs *ev[FT_FINDING_MAX_EVIDENCE];
};

static int
cmp_endpoint(const void *a, const void *b)
{
	return strcmp(((const struct endpoint *)a)->name, ((const struct endpoint *)b)->name);
}

/* Call @fn for each endpoint name in pair label @pair ("a->b", "a-b", "a,b"). */
static int
each_endpoint(const char *pair, int (*fn)(const char *name, size_t len, void *arg), void *arg)
{
	const char *p = pair;
	int rc;

	while (*p) {
		size_t len = strcspn(p, "->, ");

		if (len) {
			rc = fn(p, len, arg);
			if (rc < 0)
				return rc;
		}
		p += len;
		p += strspn(p, "->, ");
	}
	return 0;
}

static int
push_endpoint(const char *name, size_t len, void *arg)
{
	struct endpoint ep;

	if (len >= sizeof(ep.name))
		return 0;
	memset(&ep, 0, sizeof(ep));
	memcpy(ep.name, name, len);
	return ft_vec_push(arg, &ep);
}

struct tally {
	struct ft_vec *eps;
	const struct ft_obs *pair;
	bool slow;
};

static int
tally_endpoint(const char *name, size_t len, void *arg)
{
	struct tally *t = arg;
	struct endpoint key, *ep;

	if (len >= sizeof(key.name))
		return 0;
	memset(key.name, 0, sizeof(key.name));
	memcpy(key.name, name, len);
	ep = bsearch(&key, t->eps->data, t->eps->len, sizeof(key), cmp_endpoint);
	if (!ep)
		return 0;
	ep->total++;
	if (t->slow) {
		ep->slow++;
		if (ep->nev < FT_ARRAY_SIZE(ep->ev))
			ep->ev[ep->nev++] = t->pair;
	}
	return 0;
}

/*
 * An endpoint that is slow in every pair it takes part in (at least 2) is the
 * outlier. Endpoints are sorted once and looked up by binary search, so a
 * full matrix of P pairs costs O(P log E).
 */
int
ft__diag_eval_host_outlier(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *o;
	struct ft_vec eps;
	double med;
	size_t e, k, n, pos = 0;
	int rc = 0;

	if (!pair_median(c, &med, &n))
		return 0;
	ft_vec_init(&eps, sizeof(struct endpoint));
	while (rc == 0 && (o = ft__diag_next(c, "bench.pair_bw", &pos)) != NULL)
		if (o->has_num)
			rc = each_endpoint(o->device, push_endpoint, &eps);
	if (rc == 0 && eps.len > 1) {
		qsort(eps.data, eps.len, sizeof(struct endpoint), cmp_endpoint);
		for (e = 1, k = 1; e < eps.len; e++)
			if (strcmp(FT_VEC_AT(&eps, struct endpoint, e).name,
				   FT_VEC_AT(&eps, struct endpoint, k - 1).name) != 0)
				FT_VEC_AT(&eps, struct endpoint, k++) =
					FT_VEC_AT(&eps, struct endpoint, e);
		eps.len = k;
	}
	pos = 0;
	while (rc == 0 && (o = ft__diag_next(c, "bench.pair_bw", &pos)) != NULL) {
		struct tally t = { &eps, o, o->num < c->thresholds->pair_outlier_min * med };

		if (o->has_num)
			rc = each_endpoint(o->device, tally_endpoint, &t);
	}
	for (e = 0; rc == 0 && e < eps.len; e++) {
		const struct endpoint *ep = &FT_VEC_AT(&eps, struct endpoint, e);

		if (ep->total < 2 || ep->slow != ep->total || ep->total == n)
			continue;
		rc = ft__diag_emit(
			c, out, -1, ep->ev, ep->nev,
			"%s is slow in all of its %zu pairs (below %.0f%% of the %.2f GB/s "
			"median): the fault is at this endpoint",
			ep->name, ep->total, 100 * c->thresholds->pair_outlier_min, med);
		if (rc == 0)
			ft_strlcpy(ft_findings_at(out, ft_findings_len(out) - 1)->entity, ep->name,
				   sizeof(ft_findings_at(out, 0)->entity));
	}
	ft_vec_release(&eps);
	return rc;
}

int
ft__diag_eval_wrong(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *ev[FT_FINDING_MAX_EVIDENCE];
	size_t i, n = 0;
	double total = 0;

	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);

		if (strcmp(o->key, "bench.wrong") != 0 || !o->has_num || o->num <= 0)
			continue;
		total += o->num;
		if (n < FT_ARRAY_SIZE(ev))
			ev[n++] = o;
	}
	if (!n)
		return 0;
	return ft__diag_emit(
		c, out, -1, ev, n,
		"the benchmark found %.0f wrong result element%s: data corruption, not "
		"a performance problem",
		total, total == 1 ? "" : "s");
}

/*
 * SYM-SCALE-DROP: 15% less plateau busbw at the largest scale than at the
 * smallest (thresholds scale_drop_min, 85%).
 */

/* One benchmark run: its test, ranks and plateau busbw. */
struct scale_point {
	const struct ft_obs *test; /* bench.test with num = ranks */
	const struct ft_obs *best; /* its largest bench.busbw */
};

static int
cmp_scale_point(const void *pa, const void *pb)
{
	const struct scale_point *a = pa, *b = pb;
	int c = strcmp(a->test->str, b->test->str);

	if (c)
		return c;
	return a->test->num < b->test->num ? -1 : a->test->num > b->test->num;
}

static int
emit_scale_drop(const struct ft_diag_ctx *c, struct ft_findings *out, const struct scale_point *p,
		size_t n)
{
	const struct ft_obs *ev[FT_FINDING_MAX_EVIDENCE];
	const struct scale_point *lo = &p[0], *hi = &p[n - 1];
	size_t k, nev = 0;
	bool steady = n >= 3;
	double ratio;

	if (n < 2 || lo->test->num == hi->test->num || lo->best->num <= 0)
		return 0;
	ratio = hi->best->num / lo->best->num;
	if (ratio >= c->thresholds->scale_drop_min)
		return 0;
	for (k = 0; k < n; k++) {
		if (k && p[k].best->num > p[k - 1].best->num)
			steady = false;
		if (nev < FT_ARRAY_SIZE(ev))
			ev[nev++] = p[k].best;
	}
	return ft__diag_emit(
		c, out, -1, ev, nev,
		"%s busbw plateau %s from %.1f GB/s on %.0f ranks to %.1f GB/s on %.0f "
		"ranks (%.0f%%): routing, ECMP collisions or congestion grow with "
		"scale (a 2-node run measured with Tree can read high: re-measure it "
		"with NCCL_ALGO=Ring)",
		lo->test->str, steady ? "falls steadily" : "drops", lo->best->num, lo->test->num,
		hi->best->num, hi->test->num, 100.0 * ratio);
}

/* The same test at several scales (one file per run): busbw should not fall. */
int
ft__diag_eval_scale_drop(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *t;
	struct ft_vec pts;
	size_t pos = 0, i, start;
	int rc = 0;

	ft_vec_init(&pts, sizeof(struct scale_point));
	while (rc == 0 && (t = ft__diag_next(c, "bench.test", &pos)) != NULL) {
		struct scale_point p = { t, NULL };
		const struct ft_obs *o;
		size_t bpos = 0;

		if (!t->has_num || t->num <= 0)
			continue;
		while ((o = ft__diag_next(c, "bench.busbw", &bpos)) != NULL)
			if (o->has_num && strcmp(o->file, t->file) == 0 &&
			    (!p.best || o->num > p.best->num))
				p.best = o;
		if (p.best)
			rc = ft_vec_push(&pts, &p);
	}
	if (rc == 0 && pts.len > 1)
		qsort(pts.data, pts.len, sizeof(struct scale_point), cmp_scale_point);
	for (start = 0, i = 1; rc == 0 && i <= pts.len; i++) {
		const struct scale_point *p = pts.data;

		if (i < pts.len && strcmp(p[i].test->str, p[start].test->str) == 0)
			continue;
		rc = emit_scale_drop(c, out, &p[start], i - start);
		start = i;
	}
	ft_vec_release(&pts);
	return rc;
}

/* What one input file holds, for the no-results check. */
struct file_summary {
	const struct ft_obs *first_rank; /* first bench.rank of the file */
	const struct ft_obs *version;	 /* its nccl.version, if any */
	size_t nranks;
	bool results;
};

static bool
is_result_key(const char *key)
{
	return ft__str_has_prefix(key, "bench.busbw") || ft__str_has_prefix(key, "bench.time_us") ||
	       ft__str_has_prefix(key, "bench.bw_") || ft__str_has_prefix(key, "bench.lat");
}

/* A benchmark that started (ranks listed) in a file with no result at all. */
int
ft__diag_eval_no_results(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	struct ft_vec files;
	size_t i, k;
	int rc = 0;

	/* One pass over the ranks to list the files (few), then one pass per file. */
	ft_vec_init(&files, sizeof(struct file_summary));
	for (i = 0; i < ft__nobs(c) && rc == 0; i++) {
		const struct ft_obs *o = ft__obs(c, i);
		struct file_summary fs = { o, NULL, 0, false };

		if (strcmp(o->key, "bench.rank") != 0)
			continue;
		for (k = 0; k < files.len; k++)
			if (strcmp(FT_VEC_AT(&files, struct file_summary, k).first_rank->file,
				   o->file) == 0)
				break;
		if (k == files.len)
			rc = ft_vec_push(&files, &fs);
	}
	for (i = 0; i < ft__nobs(c) && rc == 0 && files.len; i++) {
		const struct ft_obs *o = ft__obs(c, i);

		if (strncmp(o->key, "bench.", 6) != 0 && strcmp(o->key, "nccl.version") != 0)
			continue;
		for (k = 0; k < files.len; k++) {
			struct file_summary *fs = &FT_VEC_AT(&files, struct file_summary, k);

			if (strcmp(fs->first_rank->file, o->file) != 0)
				continue;
			if (strcmp(o->key, "bench.rank") == 0)
				fs->nranks++;
			else if (is_result_key(o->key))
				fs->results = true;
			else if (!fs->version && strcmp(o->key, "nccl.version") == 0)
				fs->version = o;
			break;
		}
	}
	for (k = 0; k < files.len && rc == 0; k++) {
		const struct file_summary *fs = &FT_VEC_AT(&files, struct file_summary, k);
		const struct ft_obs *ev[2] = { fs->first_rank, fs->version };

		if (fs->results)
			continue;
		rc = ft__diag_emit(
			c, out, -1, ev, 2,
			"the benchmark listed %zu rank%s but reported no result: it hung or "
			"crashed after initialisation (or the output was cut)",
			fs->nranks, fs->nranks == 1 ? "" : "s");
	}
	ft_vec_release(&files);
	return rc;
}

/* ---- utilisation of the port rate ----------------------------------------- */

/*
 * The rate of the port a perftest ran on, Gb/s: the active IB/RoCE port of
 * the perftest's device, or else the one rate all active ports share (a
 * single-NIC paste), or else an Ethernet link speed. 0 when unknown.
 */
static double
port_rate_for(const struct ft_diag_ctx *c, const char *device, const struct ft_obs **which)
{
	double rate = 0;
	size_t i;
	bool several = false;

	*which = NULL;
	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);
		const struct ft_obs *st;

		if (strcmp(o->key, "ib.port.rate") != 0 || !o->has_num || o->num <= 0)
			continue;
		st = ft__diag_find_same(c, "ib.port.state", o);
		if (st && !ft__port_state_active(st->str))
			continue;
		if (device && device[0] && strcmp(o->device, device) == 0) {
			*which = o;
			return o->num;
		}
		if (rate > 0 && o->num != rate)
			several = true;
		if (!*which) {
			*which = o;
			rate = o->num;
		}
	}
	if (*which && !several)
		return rate;
	*which = NULL;
	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);

		if (strcmp(o->key, "eth.link.speed") == 0 && o->has_num && o->num > 0) {
			*which = o;
			return o->num / 1000.0; /* Mb/s */
		}
	}
	return 0;
}

/*
 * Users hold a fabric to a share of its port rate (thresholds utilisation_min,
 * 85% by default): the best average bandwidth of a perftest run against the
 * rate of the port it ran on.
 */
static int
eval_utilisation_perftest(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *best = NULL, *dev, *rate_obs, *ev[3];
	double rate, share, min = c->thresholds->utilisation_min;
	size_t pos = 0;
	const struct ft_obs *o;

	while ((o = ft__diag_next(c, "bench.bw_avg", &pos)) != NULL)
		if (o->has_num && (!best || o->num > best->num))
			best = o;
	if (!best || min <= 0)
		return 0;
	dev = ft__diag_find(c, "perftest.device");
	rate = port_rate_for(c, dev ? dev->str : NULL, &rate_obs);
	if (rate <= 0)
		return 0;
	share = best->num / rate;
	if (share >= min)
		return 0;
	ev[0] = best;
	ev[1] = rate_obs;
	ev[2] = dev;
	return ft__diag_emit(c, out, share < c->thresholds->busbw_model_error ? FT_SEV_ERROR : -1, ev, 3,
			     "%.1f Gb/s is %.1f%% of the %.0f Gb/s port rate, below the %.0f%% "
			     "the fabric is held to (thresholds utilisation_min)",
			     best->num, 100 * share, rate, 100 * min);
}

/*
 * nccl-tests collectives whose bus bandwidth an inter-node run is held to the
 * NIC line rate with: in a ring (and the pipelined chains of broadcast and
 * reduce) every rank moves its busbw over its outgoing link, each ring crosses
 * a node boundary through one NIC, and NCCL lays one ring per NIC, so busbw is
 * bounded by the line rate of the NICs the node's ranks use (NA-EXPECT,
 * NA-BUSBW); on 2 nodes tree/NVLS can exceed it, which never fires.
 * alltoall and sendrecv follow other bounds and are not judged here.
 */
static bool
ring_bound_test(const char *t)
{
	static const char *const names[] = { "all_reduce", "all_gather", "reduce_scatter",
					     "broadcast", "reduce" };
	size_t i;

	for (i = 0; t && i < FT_ARRAY_SIZE(names); i++)
		if (test_matches(names[i], t))
			return true;
	return false;
}

/* Ranks of nccl-tests file @file: the number of hosts and the fewest ranks on one host. */
static void
ranks_per_host(const struct ft_diag_ctx *c, const char *file, const struct ft_obs **first,
	       size_t *nhosts, size_t *min_local)
{
	const char *hosts[64];
	size_t counts[64], n = 0, i, k, pos = 0;
	const struct ft_obs *o;

	*first = NULL;
	while ((o = ft__diag_next(c, "bench.rank", &pos)) != NULL) {
		if (strcmp(o->file, file) != 0 || !o->host[0])
			continue;
		if (!*first)
			*first = o;
		for (k = 0; k < n; k++)
			if (strcmp(hosts[k], o->host) == 0)
				break;
		if (k == n) {
			if (n == FT_ARRAY_SIZE(hosts))
				continue; /* more hosts than counted: the fewest is among these */
			hosts[n] = o->host;
			counts[n++] = 0;
		}
		counts[k]++;
	}
	*nhosts = n;
	*min_local = n ? counts[0] : 0;
	for (i = 1; i < n; i++)
		if (counts[i] < *min_local)
			*min_local = counts[i];
}

/*
 * An inter-node nccl-tests run of a ring-bound collective against the NIC
 * line rate: ratio = peak busbw x 8 / (ranks per node x per-GPU NIC line
 * rate), where the per-GPU rate is the port rate (Active ports among the
 * inputs, else the spec's NIC link) times the spec's NICs per GPU when fewer
 * NICs than GPUs (one NIC per GPU without a spec).
 */
static int
eval_utilisation_nccl(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *rate_obs, *nics, *gpus, *first, *best, *o, *ev[4];
	double rate, per_gpu, share, min = c->thresholds->utilisation_min;
	size_t pos = 0, nhosts, local, pos2;
	const char *seen[8]; /* files already judged (strings of the observation set) */
	size_t nseen = 0, k;
	int rc = 0;

	if (min <= 0)
		return 0;
	rate = port_rate_for(c, NULL, &rate_obs);
	if (rate <= 0 && (rate_obs = ft__diag_find(c, "spec.nic.rate")) != NULL &&
	    rate_obs->has_num)
		rate = rate_obs->num;
	if (rate <= 0)
		return 0;
	per_gpu = rate;
	nics = ft__diag_find(c, "spec.node.nics");
	gpus = ft__diag_find(c, "spec.node.gpus");
	if (nics && gpus && nics->has_num && gpus->has_num && gpus->num > nics->num &&
	    nics->num > 0)
		per_gpu = rate * nics->num / gpus->num;

	while (rc == 0 && (o = ft__diag_next(c, "bench.rank", &pos)) != NULL) {
		const char *test;

		for (k = 0; k < nseen; k++)
			if (strcmp(seen[k], o->file) == 0)
				break;
		if (k < nseen || nseen == FT_ARRAY_SIZE(seen))
			continue;
		seen[nseen++] = o->file;
		test = obs_test(c, o);
		if (!ring_bound_test(test))
			continue;
		ranks_per_host(c, o->file, &first, &nhosts, &local);
		if (nhosts < 2 || local == 0)
			continue;
		best = NULL;
		pos2 = 0;
		{
			const struct ft_obs *b;

			while ((b = ft__diag_next(c, "bench.busbw", &pos2)) != NULL)
				if (b->has_num && strcmp(b->file, o->file) == 0 &&
				    (!best || b->num > best->num))
					best = b;
		}
		if (!best)
			continue;
		share = best->num * 8 / ((double)local * per_gpu);
		if (share >= min)
			continue;
		ev[0] = best;
		ev[1] = rate_obs;
		ev[2] = first;
		ev[3] = per_gpu < rate ? nics : NULL;
		rc = ft__diag_emit(
			c, out, share < c->thresholds->busbw_model_error ? FT_SEV_ERROR : -1, ev, ev[3] ? 4 : 3,
			"%s across %zu nodes peaked at %.1f GB/s busbw (%.0f Gb/s), %.1f%% of the "
			"%.0f Gb/s line rate of %zu rank%s per node on %.0f Gb/s each, below the "
			"%.0f%% the fabric is held to (thresholds utilisation_min)",
			test, nhosts, best->num, best->num * 8, 100 * share, (double)local * per_gpu,
			local, local == 1 ? "" : "s", per_gpu, 100 * min);
	}
	return rc;
}

int
ft__diag_eval_utilisation(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	int rc = eval_utilisation_perftest(c, out);

	return rc < 0 ? rc : eval_utilisation_nccl(c, out);
}

/* ---- results that no rule can judge ---------------------------------------- */

static int
check_test_unknown(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *t)
{
	if (strcmp(t->str, "unknown") != 0)
		return 0;
	return ft__diag_emit(c, out, -1, FT__EV(t),
			     "the collective of %s could not be identified (no header, no test "
			     "name in the text or file name, and the rows fit several tests): its "
			     "bandwidth was not compared with any expectation",
			     t->file[0] ? t->file : "this input");
}
FT__DIAG_EACH(ft__diag_eval_test_unknown, "bench.test", check_test_unknown)

/* SPDX-License-Identifier: MIT */
/*
 * diag/fromrun.c - benchmark result rows as observations, so that the rules
 * read measurements the same way whether a parser emitted them as
 * observations or as rows of a run (nccl-tests, perftest, OSU, a pairs
 * matrix from fabtune bench).
 */
#include "internal.h"

#include <fabtune/diag.h>

static int
add(struct ft_obs_set *out, const char *file, const char *key, const struct ft_result_row *r,
    double v, const char *unit, const char *device)
{
	struct ft_obs o;

	ft_obs_init(&o, key);
	o.has_num = true;
	o.num = v;
	snprintf(o.str, sizeof(o.str), "%" PRIu64, r->bytes);
	ft_strlcpy(o.unit, unit, sizeof(o.unit));
	o.file = file ? file : "";
	if (device)
		ft_strlcpy(o.device, device, sizeof(o.device));
	return ft_obs_set_add(out, &o);
}

/* A cell of a pairs matrix (fabtune bench --pattern pairs): its two ends named. */
static bool
is_pair_row(const struct ft_result_row *r)
{
	return r->src[0] && r->dst[0] && strcmp(r->test, "pairs") == 0;
}

/* Is there an observation @key from @file? */
static bool
has_key_from(const struct ft_obs_set *set, const char *key, const char *file)
{
	const char *f = file ? file : "";
	size_t i;

	for (i = 0; i < ft_obs_set_len(set); i++) {
		const struct ft_obs *o = ft_obs_set_at(set, i);

		if (strcmp(o->key, key) == 0 && strcmp(o->file, f) == 0)
			return true;
	}
	return false;
}

/*
 * nccl-tests times each size twice, out of place and in place, back to back on the
 * same ranks and path. The latency that size achieves is the lesser of the two: a
 * spike in one column's average (68.52 us out of place against 24.70 us in place at
 * 8 bytes on a healthy pair of nodes) is noise the other column did not see, not a
 * slow small-message path. NaN (a column not printed) and 0 (not measured) leave the
 * out-of-place time alone. (Bus bandwidth stays the out-of-place column's, as the
 * parser's bench.busbw is: at the sizes it is judged on, the columns agree.)
 */
static double
best_time_us(const struct ft_result_row *r)
{
	return r->ip_time_us > 0 && r->ip_time_us < r->time_us ? r->ip_time_us : r->time_us;
}

int
ft_diag_obs_from_run(const struct ft_run *run, const char *file, struct ft_obs_set *out)
{
	bool have_busbw = has_key_from(out, "bench.busbw", file);
	bool have_wrong = has_key_from(out, "bench.wrong", file);
	bool have_lat = has_key_from(out, "bench.lat_p99", file);
	bool have_time = has_key_from(out, "bench.time_us", file);
	bool have_pair = has_key_from(out, "bench.pair_bw", file);
	char last_test[32] = "";
	size_t i;
	int rc = 0;

	for (i = 0; i < ft_run_nrows(run) && rc == 0; i++) {
		const struct ft_result_row *r = ft_run_row(run, i);

		if (r->test[0] && strcmp(r->test, last_test) != 0) {
			struct ft_obs o;

			ft_obs_init(&o, "bench.test");
			ft_strlcpy(o.str, r->test, sizeof(o.str));
			if (r->nranks) {
				o.has_num = true; /* the ranks the test ran on */
				o.num = r->nranks;
				ft_strlcpy(o.unit, "ranks", sizeof(o.unit));
			}
			o.file = file ? file : "";
			rc = ft_obs_set_add(out, &o);
			ft_strlcpy(last_test, r->test, sizeof(last_test));
			if (rc < 0)
				break;
		}
		/* Only the pairs pattern's rows are a matrix: a point-to-point row
		   names its two ranks but is one measurement, read as such. */
		if (is_pair_row(r) && (r->busbw_GBps > 0 || r->algbw_GBps > 0)) {
			if (have_pair)
				continue;
			char pair[48];

			snprintf(pair, sizeof(pair), "%.22s->%.22s", r->src, r->dst);
			rc = add(out, file, "bench.pair_bw", r,
				 r->busbw_GBps > 0 ? r->busbw_GBps : r->algbw_GBps, "GBps", pair);
			continue;
		}
		if (!have_busbw && r->busbw_GBps > 0 && isfinite(r->busbw_GBps))
			rc = add(out, file, "bench.busbw", r, r->busbw_GBps, "GBps", NULL);
		if (rc == 0 && !have_time && r->time_us > 0 && isfinite(r->time_us))
			rc = add(out, file, "bench.time_us", r, best_time_us(r), "us", NULL);
		if (rc == 0 && !have_wrong && r->wrong > 0)
			rc = add(out, file, "bench.wrong", r, (double)r->wrong, "count", NULL);
		if (rc == 0 && !have_lat && r->lat_p50_us > 0 && r->lat_p99_us > 0 &&
		    isfinite(r->lat_p99_us)) {
			rc = add(out, file, "bench.lat_p50", r, r->lat_p50_us, "us", NULL);
			if (rc == 0)
				rc = add(out, file, "bench.lat_p99", r, r->lat_p99_us, "us", NULL);
		}
	}
	return rc;
}

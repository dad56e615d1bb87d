/* SPDX-License-Identifier: MIT */
/*
 * bench/patterns_pairs.c - the all-pairs and bisection patterns (patterns.c says what
 * each measures): every pair in rounds of disjoint pairs, the matrices, the
 * outliers and their retest; random perfect matchings.
 */
#include "patterns.h"

#include <fabtune/rng.h>

/*
 * Measure @peer both ways at once; rx_from[peer] and lat[peer] on the lower
 * rank. The stream runs -w untimed windows first, as pt2pt_bw's does: each
 * pair is a fresh peer whose connection, buffers and copy path are cold.
 */
static int
pair_test(struct ft_bench_ctx *bc, uint32_t peer, double *rx, double *cv, double *lat,
          struct ft_error *err)
{
	const struct ft_bench_cfg *cfg = bc->cfg;
	double best, samples[LAT_PROBE_ITERS];
	struct ft_result_row tmp;
	int rc;

	rc = ft__bench_stream(bc, peer, true, true, (size_t)cfg->max_bytes, cfg->window,
	            cfg->warmup, (uint64_t)cfg->iters * cfg->window, 0, rx, &best, NULL, cv, NULL,
	            err);
	if (rc < 0)
		return rc;
	rc = ft__bench_pingpong(bc, peer, bc->w->rank < peer, 8, 10, LAT_PROBE_ITERS, samples, err);
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
				rc = ft__bench_stream(bc, r == x ? g : x, true, true,
				            (size_t)bc->cfg->max_bytes, bc->cfg->window, bc->cfg->warmup,
				            (uint64_t)bc->cfg->iters * bc->cfg->window, 0, &bw,
				            &peak, NULL, NULL, NULL, err);
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
			ft__bench_row_base(&row, "pairs", out, bc->cfg->max_bytes, 2);
			ft__bench_rank_label(w, s, row.src, sizeof(row.src));
			ft__bench_rank_label(w, d, row.dst, sizeof(row.dst));
			row.algbw_GBps = row.busbw_GBps = out->bw_GBps[(size_t)s * n + d];
			row.time_us = row.algbw_GBps > 0 ?
			                      (double)bc->cfg->max_bytes / (row.algbw_GBps * 1e3) :
			                      0;
			row.lat_p50_us = out->lat_us[(size_t)s * n + d];
			/* the receiver's per-window spread: the pair's own noise band */
			row.time_stdev_us = cvm[(size_t)s * n + d] * row.time_us;
			row.nsamples = bc->cfg->iters * bc->cfg->window;
			row.spread_n = bc->cfg->iters; /* the spread is per window */
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
			rc = ft__bench_stream(bc, (uint32_t)partner, true, true, (size_t)bc->cfg->max_bytes,
			            bc->cfg->window, bc->cfg->warmup,
			            (uint64_t)bc->cfg->iters * bc->cfg->window, 0, &mine[0],
			            &peak, NULL, &mine[1], NULL, err);
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
		ft__bench_row_base(&row, "bisection", out, bc->cfg->max_bytes, n);
		row.algbw_GBps = sum;           /* aggregate over all directions */
		row.busbw_GBps = ndir ? lo : 0; /* the weakest direction */
		row.time_us = ndir && lo > 0 ? (double)bc->cfg->max_bytes / (lo * 1e3) : 0;
		/* the weakest direction's per-window spread, as its time is the row's */
		row.time_stdev_us = ndir ? all[2 * lo_rank + 1] * row.time_us : NAN;
		row.nsamples = bc->cfg->iters * bc->cfg->window;
		snprintf(row.algo, sizeof(row.algo), "round%u", round + 1);
		ft__bench_rank_label(w, lo_rank, row.dst, sizeof(row.dst));
		for (i = 0; i + 1 < n; i += 2)
			if (perm[i] == lo_rank || perm[i + 1] == lo_rank)
				ft__bench_rank_label(w, perm[i] == lo_rank ? perm[i + 1] : perm[i], row.src,
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

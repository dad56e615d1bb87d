/* SPDX-License-Identifier: MIT */
/*
 * bench/outlier.c - who is slow in an all-pairs bandwidth matrix.
 *
 * The reference is the median M of all directed pairs. A host (rank, with
 * its interface) is an outlier when the median of what it sends or of what
 * it receives is below threshold x M: every pair through it is slow, so the
 * host or its NIC is at fault, and the direction says which half of the
 * link. Remaining directed pairs below threshold x M, whose hosts are fine
 * otherwise, are pair outliers; the retest pass (patterns.c) measures both
 * sides against a good host to say which side is at fault. Deterministic:
 * every rank computes the same list from the same matrix.
 */
#include "patterns.h"

int
ft__bench_find_outliers(struct ft_bench_report *out, double thr)
{
	uint32_t n = out->nranks, s, d;
	double *tmp = ft_calloc((size_t)n * n + 1, sizeof(*tmp)), m;
	bool *bad_host = ft_calloc(n + 1, sizeof(*bad_host));
	size_t k = 0;
	int rc = 0;

	if (!tmp || !bad_host) {
		rc = FT_ENOMEM;
		goto out;
	}
	for (s = 0; s < n; s++)
		for (d = 0; d < n; d++)
			if (s != d && !isnan(out->bw_GBps[(size_t)s * n + d]))
				tmp[k++] = out->bw_GBps[(size_t)s * n + d];
	m = ft__median(tmp, k);
	out->median_GBps = m;
	if (isnan(m) || m <= 0 || n < 3)
		goto out; /* with two hosts nobody can say which side is slow */
	for (s = 0; s < n; s++) {
		const struct ft_rank_info *h = &out->ranks[s];
		double tx, rx, worst;
		struct ft_bench_outlier o;

		for (k = 0, d = 0; d < n; d++)
			if (d != s)
				tmp[k++] = out->bw_GBps[(size_t)s * n + d];
		tx = ft__median(tmp, k);
		for (k = 0, d = 0; d < n; d++)
			if (d != s)
				tmp[k++] = out->bw_GBps[(size_t)d * n + s];
		rx = ft__median(tmp, k);
		worst = FT_MIN(tx, rx);
		if (!(worst < thr * m))
			continue;
		bad_host[s] = true;
		memset(&o, 0, sizeof(o));
		ft_strlcpy(o.kind, "host", sizeof(o.kind));
		o.rank_a = o.rank_b = s;
		o.value_GBps = worst;
		o.ratio = worst / m;
		snprintf(o.blame, sizeof(o.blame), "host %.48s (rank %u, %.20s)", h->host, s,
		         h->ifname);
		snprintf(o.text, sizeof(o.text),
		         "host %s (rank %u, %s %s): %s %.3f GB/s, %.0f%% of the median %.3f GB/s%s",
		         h->host, s, h->ifname, h->addr, tx <= rx ? "sends at" : "receives at",
		         worst, 100 * o.ratio, m,
		         (tx < thr * m && rx < thr * m) ? " (both directions)" :
		         tx < thr * m                   ? " (its transmit side)" :
		                                          " (its receive side)");
		rc = ft_vec_push(&out->outliers, &o);
		if (rc < 0)
			goto out;
	}
	for (s = 0; s < n; s++)
		for (d = 0; d < n; d++) {
			double v = out->bw_GBps[(size_t)s * n + d];
			struct ft_bench_outlier o;

			if (s == d || bad_host[s] || bad_host[d] || !(v < thr * m))
				continue;
			memset(&o, 0, sizeof(o));
			ft_strlcpy(o.kind, "pair", sizeof(o.kind));
			o.rank_a = s;
			o.rank_b = d;
			o.value_GBps = v;
			o.ratio = v / m;
			snprintf(
			        o.text, sizeof(o.text),
			        "pair %s (rank %u) -> %s (rank %u): %.3f GB/s, %.0f%% of the median "
			        "%.3f GB/s",
			        out->ranks[s].host, s, out->ranks[d].host, d, v, 100 * o.ratio, m);
			rc = ft_vec_push(&out->outliers, &o);
			if (rc < 0)
				goto out;
		}
out:
	ft_free(tmp);
	ft_free(bad_host);
	return rc;
}

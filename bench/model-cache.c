/* SPDX-License-Identifier: MIT */
/*
 * bench/model-cache.c - what the model's cache of a node's shared in-node links saves
 * (struct ft_model_cache, model/share.c): the same queries timed without a cache (each
 * all-to-all or send/recv lays out its node's topology graph and routes its sends) and
 * with one (each node and job shape once), alternated in one run, best of REPEATS; each
 * query's result must be the same, its time to the bit and its bottleneck (exit 1
 * otherwise).
 * Cases: a `fabtune model` sweep (pcie-l40s:2 all-to-all, 1 KiB to 16 GiB by 2), and a
 * plan search's mix (aws-p5:32: all-to-all and send/recv on 8 to 256 GPUs at 1 to 8 a
 * node as its 32 nodes allow, 1 MiB to 1 GiB by 4).
 *
 * usage: model-cache [REPEATS]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <fabtune/fabtune.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct query {
	enum ft_op op;
	uint64_t bytes;
	uint32_t ngpus, ppn;
};

/* One query's result as the run compares it. */
struct outcome {
	double time_s;
	char bottleneck[16];
};

/* The queries of @q on @s through @c (NULL: none), each one's result into @out. Seconds. */
static double
run(const struct ft_cluster_spec *s, const struct query *q, size_t n, struct ft_model_cache *c,
    struct outcome *out)
{
	double t0 = now();

	for (size_t i = 0; i < n; i++) {
		struct ft_model_query mq;
		struct ft_model_result r;
		struct ft_error err = { 0 };

		ft_model_query_init(&mq, q[i].op, q[i].bytes);
		mq.ngpus = q[i].ngpus;
		mq.ppn = q[i].ppn;
		mq.cache = c;
		if (ft_model_eval(s, &mq, &r, &err) < 0) {
			fprintf(stderr, "model-cache: %s\n", err.msg);
			exit(2);
		}
		out[i].time_s = r.time_s;
		memcpy(out[i].bottleneck, r.bottleneck, sizeof(out[i].bottleneck));
	}
	return now() - t0;
}

static void
bench(const char *name, const char *preset, const struct query *q, size_t n, int repeats)
{
	struct ft_cluster_spec s;
	struct ft_error err = { 0 };
	double best_off = 1e9, best_on = 1e9;
	struct outcome *b_off = calloc(n, sizeof(*b_off)), *b_on = calloc(n, sizeof(*b_on));
	uint64_t hits, misses;

	if (!b_off || !b_on || ft_spec_resolve(preset, &s, &err) < 0) {
		fprintf(stderr, "model-cache: %s\n", b_off && b_on ? err.msg : "out of memory");
		exit(2);
	}
	for (int k = 0; k < repeats; k++) {
		struct ft_model_cache *c = ft_model_cache_new();
		double off, on;

		if (!c)
			exit(2);
		off = run(&s, q, n, NULL, b_off);
		on = run(&s, q, n, c, b_on);
		ft_model_cache_stats(c, &hits, &misses);
		ft_model_cache_free(c);
		for (size_t i = 0; i < n; i++)
			if (memcmp(&b_off[i].time_s, &b_on[i].time_s, sizeof(double)) != 0 ||
			    strcmp(b_off[i].bottleneck, b_on[i].bottleneck) != 0) {
				fprintf(stderr, "model-cache: %s: query %zu: cached result differs\n",
				        name, i);
				exit(1);
			}
		best_off = off < best_off ? off : best_off;
		best_on = on < best_on ? on : best_on;
	}
	printf("%-34s %7zu %7" PRIu64 " %10.4f %10.4f %8.2f\n", name, n, misses, best_off, best_on,
	       best_off / best_on);
	free(b_off);
	free(b_on);
}

int
main(int argc, char **argv)
{
	int repeats = argc > 1 ? atoi(argv[1]) : 5;
	static struct query q[4096];
	size_t n = 0;

	printf("%-34s %7s %7s %10s %10s %8s\n", "case", "queries", "nodes", "uncached s",
	       "cached s", "ratio");
	for (uint64_t b = 1024; b <= (16ull << 30); b *= 2)
		q[n++] = (struct query){ FT_OP_ALLTOALL, b, 0, 0 };
	bench("sweep pcie-l40s:2 alltoall 1K-16G", "pcie-l40s:2", q, n, repeats);
	n = 0;
	for (uint32_t g = 8; g <= 256; g *= 2)
		for (uint32_t ppn = 1; ppn <= 8; ppn *= 2)
			for (uint64_t b = 1u << 20; b <= (1u << 30) && g / ppn <= 32; b *= 4) {
				q[n++] = (struct query){ FT_OP_ALLTOALL, b, g, ppn };
				q[n++] = (struct query){ FT_OP_SENDRECV, b, g, ppn };
			}
	bench("plan mix aws-p5:32 a2a+sendrecv", "aws-p5:32", q, n, repeats);
	return 0;
}

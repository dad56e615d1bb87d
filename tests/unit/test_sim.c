/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_sim.c - the flow-level twin: max-min fair sharing, the
 * event loop and dependencies on hand-built link sets, then (when the
 * topology and collectives are available) whole scenarios.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <fabtune/fabtune.h>

#include "sim/sim_int.h"

#define GBPS 1e9

/* |a - b| <= tol, with both values printed when it fails. */
#define assert_double_equal(a, b, tol) assert_close_((a), (b), (tol), __FILE__, __LINE__)
static void
assert_close_(double a, double b, double tol, const char *file, int line)
{
	if (!(fabs(a - b) <= tol)) {
		print_error("%s:%d: %.17g != %.17g (tolerance %g)\n", file, line, a, b, tol);
		_fail(file, line);
	}
}

static void
net_init(struct fs_sim *s, uint32_t nlinks, double cap, double lat)
{
	uint32_t i;

	assert_int_equal(ft__fs_init(s, nlinks), 0);
	for (i = 0; i < nlinks; i++) {
		s->cap_Bps[i] = cap;
		s->lat_s[i] = lat;
	}
}

static uint32_t
flow(struct fs_sim *s, double bytes, const uint32_t *path, uint32_t n)
{
	int64_t id = ft__fs_add_flow(s, bytes, FS_NONE, FS_NONE, 0, path, n, FS_NONE);

	assert_true(id >= 0);
	return (uint32_t)id;
}

static void
test_one_flow_line_rate(void **state)
{
	struct fs_sim s;
	struct ft_error err = { 0 };
	uint32_t path[3] = { 0, 1, 2 };
	uint32_t f;

	net_init(&s, 3, 50 * GBPS, 1e-6);
	s.cap_Bps[1] = 400 * GBPS; /* the bottleneck is the slowest link */
	f = flow(&s, 100e6, path, 3);
	assert_int_equal(ft__fs_run(&s, 0, &err), 0);
	/* 100 MB at 50 GB/s = 2 ms, plus three 1 us hops. */
	assert_double_equal(ft__fs_task(&s, f)->t_done, 2e-3 + 3e-6, 1e-12);
	assert_double_equal(ft__fs_task(&s, f)->ideal_s, 2e-3 + 3e-6, 1e-12);
	assert_double_equal(s.link_bytes[1], 100e6, 1e-3);
	ft__fs_release(&s);
}

/* Check the max-min conditions on the current rates of @s. */
static void
check_maxmin(const struct fs_sim *s)
{
	double *load = calloc(s->nlinks, sizeof(double));
	double *maxr = calloc(s->nlinks, sizeof(double));
	uint32_t i, j;

	assert_non_null(load);
	assert_non_null(maxr);
	for (i = 0; i < s->nactive; i++) {
		const struct fs_task *t = ft__fs_task(s, s->active[i]);
		const uint32_t *p = ft__fs_path(s, t);

		assert_true(t->rate_Bps > 0);
		for (j = 0; j < t->npath; j++) {
			load[p[j]] += t->rate_Bps;
			if (t->rate_Bps > maxr[p[j]])
				maxr[p[j]] = t->rate_Bps;
		}
	}
	for (i = 0; i < s->nlinks; i++)
		assert_true(load[i] <= s->cap_Bps[i] * (1 + 1e-9));
	for (i = 0; i < s->nactive; i++) {
		const struct fs_task *t = ft__fs_task(s, s->active[i]);
		const uint32_t *p = ft__fs_path(s, t);
		bool has_bottleneck = false;

		for (j = 0; j < t->npath; j++) {
			uint32_t l = p[j];

			if (load[l] >= s->cap_Bps[l] * (1 - 1e-9) &&
			    t->rate_Bps >= maxr[l] * (1 - 1e-9))
				has_bottleneck = true;
		}
		assert_true(has_bottleneck);
	}
	free(load);
	free(maxr);
}

static void
test_maxmin_invariants_random(void **state)
{
	struct ft_rng rng;
	int trial;

	ft_rng_seed(&rng, 42, 1);
	for (trial = 0; trial < 30; trial++) {
		struct fs_sim s;
		struct ft_error err = { 0 };
		uint32_t nlinks = 4 + (uint32_t)ft_rng_below(&rng, 40);
		uint32_t nflows = 1 + (uint32_t)ft_rng_below(&rng, 200);
		uint32_t i, j;
		int rc;

		net_init(&s, nlinks, 1, 1e-7);
		for (i = 0; i < nlinks; i++)
			s.cap_Bps[i] = (1 + (double)ft_rng_below(&rng, 100)) * GBPS;
		for (i = 0; i < nflows; i++) {
			uint32_t path[8], n = 1 + (uint32_t)ft_rng_below(&rng, 6), k = 0;

			for (j = 0; j < n; j++) {
				uint32_t l = (uint32_t)ft_rng_below(&rng, nlinks), m;
				bool dup = false;

				for (m = 0; m < k; m++)
					dup |= path[m] == l;
				if (!dup)
					path[k++] = l;
			}
			flow(&s, (1 + (double)ft_rng_below(&rng, 1000)) * 1e5, path, k);
		}
		assert_int_equal(ft__fs_start(&s, &err), 0);
		/* Check the rates after every event that changed the active set. */
		do {
			if (s.rates_dirty)
				assert_int_equal(ft__fs_recompute(&s), 0);
			check_maxmin(&s);
			rc = ft__fs_step(&s, &err);
			assert_true(rc >= 0);
		} while (rc > 0);
		/* Bytes are conserved: every flow delivered all it had, links carried it. */
		{
			double want = 0, got = 0;
			double *lb = calloc(nlinks, sizeof(double));

			for (i = 0; i < ft__fs_ntasks(&s); i++) {
				const struct fs_task *t = ft__fs_task(&s, i);
				const uint32_t *p = ft__fs_path(&s, t);

				assert_int_equal(t->state, FS_DONE);
				want += t->bytes;
				got += t->sent;
				for (j = 0; j < t->npath; j++)
					lb[p[j]] += t->bytes;
				assert_true(t->t_done >= t->ideal_s * (1 - 1e-9));
			}
			assert_double_equal(got, want, want * 1e-12);
			assert_double_equal(s.bytes_delivered, s.bytes_submitted, want * 1e-12);
			for (i = 0; i < nlinks; i++)
				assert_double_equal(s.link_bytes[i], lb[i], 1e-3);
			free(lb);
		}
		ft__fs_release(&s);
	}
}

/* Two flows share a link: each gets half; after the short one ends the long one speeds up. */
static void
test_fair_share_and_speed_up(void **state)
{
	struct fs_sim s;
	struct ft_error err = { 0 };
	uint32_t pa[2] = { 0, 2 }, pb[2] = { 1, 2 };
	uint32_t a, b;

	net_init(&s, 3, 100 * GBPS, 0);
	a = flow(&s, 100e6, pa, 2);
	b = flow(&s, 300e6, pb, 2);
	assert_int_equal(ft__fs_run(&s, 0, &err), 0);
	/* a: 100 MB at 50 GB/s = 2 ms; b: 100 MB by then, 200 MB more at 100 GB/s = 4 ms. */
	assert_double_equal(ft__fs_task(&s, a)->t_done, 2e-3, 1e-12);
	assert_double_equal(ft__fs_task(&s, b)->t_done, 4e-3, 1e-12);
	ft__fs_release(&s);
}

/*
 * Ring all-reduce on n ranks, each on its own link into a crossbar: one phase
 * of n flows of 2(n-1)/n S bytes, 2(n-1) steps. Closed form: 2(n-1)/n S / B +
 * 2(n-1) (lat + step overhead).
 */
static void
test_ring_closed_form(void **state)
{
	const uint32_t n = 16;
	const double S = 256e6, B = 50 * GBPS, lat = 2e-6, step = 1e-6;
	struct fs_sim s;
	struct ft_error err = { 0 };
	uint32_t r, fin;
	double want;
	int64_t bar;

	/* link 2r: rank r up, link 2r+1: rank r down. */
	net_init(&s, 2 * n, B, lat / 2);
	bar = ft__fs_add_barrier(&s, 2.0 * (n - 1) * step, 2.0 * (n - 1) - 1, FS_NONE);
	assert_true(bar >= 0);
	for (r = 0; r < n; r++) {
		uint32_t path[2] = { 2 * r, 2 * ((r + 1) % n) + 1 };
		uint32_t f = flow(&s, 2.0 * (n - 1) / n * S, path, 2);

		assert_int_equal(ft__fs_add_dep(&s, f, (uint32_t)bar), 0);
	}
	assert_int_equal(ft__fs_run(&s, 0, &err), 0);
	fin = (uint32_t)bar;
	want = 2.0 * (n - 1) / n * S / B + 2.0 * (n - 1) * (lat + step);
	assert_double_equal(ft__fs_task(&s, fin)->t_done, want, want * 0.01);
	assert_double_equal(ft__fs_task(&s, fin)->t_done, want, want * 1e-9);
	ft__fs_release(&s);
}

/* A degraded link slows exactly the flows that cross it. */
static void
test_degraded_link_slows_only_its_flows(void **state)
{
	double healthy[8], degraded[8];
	int pass;
	uint32_t i;

	for (pass = 0; pass < 2; pass++) {
		struct fs_sim s;
		struct ft_error err = { 0 };

		/* 8 flows on disjoint 2-link paths; flows 0..3 also share link 16. */
		net_init(&s, 17, 100 * GBPS, 1e-6);
		s.cap_Bps[16] = 800 * GBPS;
		if (pass == 1)
			s.cap_Bps[3] *= 0.25; /* flow 1's first link trained at 1X */
		for (i = 0; i < 8; i++) {
			uint32_t p3[3] = { 2 * i, 2 * i + 1, 16 };

			flow(&s, 64e6, p3, i < 4 ? 3 : 2);
		}
		assert_int_equal(ft__fs_run(&s, 0, &err), 0);
		for (i = 0; i < 8; i++)
			(pass ? degraded : healthy)[i] = ft__fs_task(&s, i)->t_done;
		ft__fs_release(&s);
	}
	for (i = 0; i < 8; i++) {
		if (i == 1)
			assert_double_equal(degraded[i], (healthy[i] - 2e-6 - 1e-6) * 4 + 3e-6,
					    1e-12);
		else
			assert_double_equal(degraded[i], healthy[i], 0);
	}
}

/* Dependencies: a chain waits; a barrier adds its delay and latency multiple. */
static void
test_dependencies(void **state)
{
	struct fs_sim s;
	struct ft_error err = { 0 };
	uint32_t p0[1] = { 0 };
	uint32_t a, b;
	int64_t bar;

	net_init(&s, 1, 10 * GBPS, 5e-6);
	a = flow(&s, 10e6, p0, 1);
	bar = ft__fs_add_barrier(&s, 100e-6, 2, FS_NONE);
	b = flow(&s, 10e6, p0, 1);
	assert_int_equal(ft__fs_add_dep(&s, a, (uint32_t)bar), 0);
	assert_int_equal(ft__fs_add_dep(&s, (uint32_t)bar, b), 0);
	assert_int_equal(ft__fs_run(&s, 0, &err), 0);
	/* a: 1 ms + 5 us; barrier: 100 us + 2 x 5 us; b: 1 ms + 5 us. */
	assert_double_equal(ft__fs_task(&s, b)->t_start, 1e-3 + 5e-6 + 110e-6, 1e-12);
	assert_double_equal(ft__fs_task(&s, b)->t_done, 2e-3 + 10e-6 + 110e-6, 1e-12);
	ft__fs_release(&s);
}

static void
test_cycle_is_an_error(void **state)
{
	struct fs_sim s;
	struct ft_error err = { 0 };
	uint32_t p0[1] = { 0 };
	uint32_t a, b;

	net_init(&s, 1, 10 * GBPS, 0);
	a = flow(&s, 1e6, p0, 1);
	b = flow(&s, 1e6, p0, 1);
	assert_int_equal(ft__fs_add_dep(&s, a, b), 0);
	assert_int_equal(ft__fs_add_dep(&s, b, a), 0);
	assert_int_equal(ft__fs_run(&s, 0, &err), FT_EINVAL);
	assert_non_null(strstr(err.msg, "cycle"));
	ft__fs_release(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_flow_line_rate),
		cmocka_unit_test(test_maxmin_invariants_random),
		cmocka_unit_test(test_fair_share_and_speed_up),
		cmocka_unit_test(test_ring_closed_form),
		cmocka_unit_test(test_degraded_link_slows_only_its_flows),
		cmocka_unit_test(test_dependencies),
		cmocka_unit_test(test_cycle_is_an_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

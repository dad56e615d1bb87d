/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_pktevq.c - the packet engine's event queue (sim/pkt_evq.h):
 * every pop gives the smallest (time, tie key) queued, checked against a
 * plain list, with events queued at the current time below the last key
 * popped (another vertex's) and below a key only looked at (a split run's
 * received events).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* cmocka.h needs the headers above it. */
/* clang-format off */
#include <cmocka.h>
/* clang-format on */

#include "source_root.h"

#include <fabtune/fabtune.h>

#include "sim/pkt_evq.h"

#define NREF 4096

struct ref {
	struct pk_event v[NREF];
	size_t n;
};

static uint64_t rng_state = 88172645463325252ull;

static uint64_t
rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void
push_both(struct pk_evq *q, struct ref *r, uint64_t t, uint64_t seq)
{
	struct pk_event ev = { t, seq, (uint32_t)r->n, 0 };

	assert_true(r->n < NREF);
	assert_int_equal(pk_evq_push(q, &ev), 0);
	r->v[r->n++] = ev;
}

/* Pop from the queue and check it is the smallest of the list; take it out there. */
static struct pk_event
pop_both(struct pk_evq *q, struct ref *r)
{
	struct pk_event got;
	size_t m = 0;

	assert_int_equal(pk_evq_pop(q, &got), 0);
	for (size_t i = 1; i < r->n; i++)
		if (pk_ev_less(&r->v[i], &r->v[m]))
			m = i;
	assert_int_equal(got.t_ps, r->v[m].t_ps);
	assert_int_equal(got.seq, r->v[m].seq);
	r->v[m] = r->v[--r->n];
	return got;
}

/* As the engine uses it: each pop queues 0-3 events at or after its time, some at
 * the same time with smaller keys (from another vertex), keys unique. */
static void
test_pops_the_smallest(void **state)
{
	static struct ref r;
	struct pk_evq q = { 0 };
	uint64_t cnt = 0, npop = 0, nbelow = 0;

	(void)state;
	r.n = 0;
	for (int i = 0; i < 50; i++)
		push_both(&q, &r, rnd() % 1000, (rnd() % 64) << 32 | cnt++);
	while (q.n && npop < 200000) {
		struct pk_event ev = pop_both(&q, &r);
		unsigned k = (unsigned)(rnd() % 4);

		npop++;
		assert_int_equal(q.n, r.n);
		for (unsigned j = 0; j < k && r.n < NREF - 1 && npop < 150000; j++) {
			uint64_t t = ev.t_ps + (rnd() % 3 == 0 ? 0 : rnd() % 5000);
			uint64_t seq = (rnd() % 64) << 32 | cnt++;

			if (t == ev.t_ps && seq < ev.seq)
				nbelow++;
			push_both(&q, &r, t, seq);
		}
	}
	assert_int_equal(q.n, 0);
	assert_int_equal(r.n, 0);
	assert_true(nbelow > 1000); /* the now heap was exercised */
	pk_evq_release(&q);
}

/* A key looked at (pk_evq_min) but not popped, then an event queued below it: it comes
 * out first, and the rest in order. */
static void
test_below_a_key_looked_at(void **state)
{
	static struct ref r;
	struct pk_evq q = { 0 };
	const struct pk_event *m;

	(void)state;
	r.n = 0;
	push_both(&q, &r, 10, 1);
	pop_both(&q, &r);
	push_both(&q, &r, 5000, 7);
	push_both(&q, &r, 9000, 3);
	m = pk_evq_min(&q);
	assert_non_null(m);
	assert_int_equal(m->t_ps, 5000);
	push_both(&q, &r, 3000, 9); /* below the radix heap's new reference */
	push_both(&q, &r, 5000, 2);
	push_both(&q, &r, 7000, 1);
	assert_int_equal(pop_both(&q, &r).t_ps, 3000);
	assert_int_equal(pop_both(&q, &r).seq, 2);
	assert_int_equal(pop_both(&q, &r).seq, 7);
	assert_int_equal(pop_both(&q, &r).t_ps, 7000);
	assert_int_equal(pop_both(&q, &r).t_ps, 9000);
	assert_int_equal(q.n, 0);
	pk_evq_release(&q);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pops_the_smallest),
		cmocka_unit_test(test_below_a_key_looked_at),
	};

	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

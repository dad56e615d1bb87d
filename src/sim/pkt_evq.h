/* SPDX-License-Identifier: MIT */
/*
 * sim/pkt_evq.h - the packet engine's event queue: a radix heap over the
 * 128-bit key (time in picoseconds, tie key), with a small binary heap for
 * the events queued below its reference.
 *
 * The engine never schedules into the past: every event it queues is at or
 * after the one being handled. The tie key (engine_packet.c: the vertex that
 * queued it and that vertex's count) does not grow with every push, so an
 * event queued for the current time may have a smaller key than the one being
 * handled: those (and, in a run split across MPI ranks, events received for
 * a time before the last key looked at) wait in the "now" heap; every other
 * one goes to the radix heap, whose keys so only grow past the last one it
 * gave out (a monotone queue). A radix
 * heap exploits that: an event waits in the bucket numbered by the highest
 * bit where its key differs from the last key popped (0: equal), so a push
 * is an append; a pop takes bucket 0, or else empties the lowest non-empty
 * bucket, whose smallest key becomes the new reference and whose other
 * events all fall to lower buckets. An event moves at most once per bit
 * level, and in practice a few times in all: about twice as fast as the
 * 4-ary heap it replaced on the 1,024-host bench, with the same pop order
 * (keys are unique, so the order is that of (time, sequence) exactly) and
 * so byte-identical results. Only engine_packet.c uses it.
 */
#ifndef FT_PKT_EVQ_H
#define FT_PKT_EVQ_H

#include "internal.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <fabtune/base.h>
#include <fabtune/error.h>

/* One event: its key (time, sequence) and what it is about (engine_packet.c). */
struct pk_event {
	uint64_t t_ps;
	uint64_t seq;
	uint32_t id;
	uint32_t aux; /* low 4 bits: enum pk_ev_type; the rest: the argument */
};

#define PK_EVQ_NB 129u /* bucket 0, 64 sequence-bit levels, 64 time-bit levels */

struct pk_evq_bucket {
	struct pk_event *v;
	uint32_t n, cap;
};

struct pk_evq {
	struct pk_evq_bucket b[PK_EVQ_NB];
	struct pk_evq_bucket now; /* binary heap: events below the radix heap's reference */
	uint64_t used[3]; /* bit i: bucket i is not empty */
	uint64_t last_t, last_seq;
	size_t n;
};

static inline unsigned
pk_evq_bucket_of(const struct pk_evq *q, uint64_t t, uint64_t seq)
{
	uint64_t d = t ^ q->last_t;

	if (d)
		return 128u - (unsigned)__builtin_clzll(d);
	d = seq ^ q->last_seq;
	return d ? 64u - (unsigned)__builtin_clzll(d) : 0u;
}

static inline int
pk_evq_put(struct pk_evq *q, unsigned i, const struct pk_event *ev)
{
	struct pk_evq_bucket *b = &q->b[i];

	if (b->n == b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 64;
		struct pk_event *v;

		if (cap <= b->cap)
			return FT_ENOMEM;
		v = ft_reallocarray(b->v, cap, sizeof(*v));
		if (!v)
			return FT_ENOMEM;
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n++] = *ev;
	q->used[i / 64] |= UINT64_C(1) << (i % 64);
	return 0;
}

static inline bool
pk_ev_less(const struct pk_event *a, const struct pk_event *b)
{
	return a->t_ps < b->t_ps || (a->t_ps == b->t_ps && a->seq < b->seq);
}

/* Queue @ev, at or after the time of the last event popped. */
static inline int
pk_evq_push(struct pk_evq *q, const struct pk_event *ev)
{
	struct pk_evq_bucket *h = &q->now;
	uint32_t i, up;
	int rc;

	/* Not below the radix heap's reference: there (the common case). */
	if (ev->t_ps > q->last_t || (ev->t_ps == q->last_t && ev->seq >= q->last_seq)) {
		rc = pk_evq_put(q, pk_evq_bucket_of(q, ev->t_ps, ev->seq), ev);
		if (rc == 0)
			q->n++;
		return rc;
	}
	if (h->n == h->cap) {
		uint32_t cap = h->cap ? h->cap * 2 : 64;
		struct pk_event *v = cap > h->cap ? ft_reallocarray(h->v, cap, sizeof(*v)) : NULL;

		if (!v)
			return FT_ENOMEM;
		h->v = v;
		h->cap = cap;
	}
	for (i = h->n++; i > 0 && pk_ev_less(ev, &h->v[up = (i - 1) / 2]); i = up)
		h->v[i] = h->v[up];
	h->v[i] = *ev;
	q->n++;
	return 0;
}

/* The smallest key of the radix heap, left where it is (the heap must not be empty). */
static inline const struct pk_event *
pk_evq_peek_radix(const struct pk_evq *q)
{
	const struct pk_evq_bucket *b;
	const struct pk_event *m;
	unsigned i = 0;

	if (q->b[0].n)
		return &q->b[0].v[0];
	while (!q->used[i])
		i++;
	b = &q->b[i * 64 + (unsigned)__builtin_ctzll(q->used[i])];
	m = &b->v[0];
	for (uint32_t k = 1; k < b->n; k++)
		if (pk_ev_less(&b->v[k], m))
			m = &b->v[k];
	return m;
}

/*
 * Bring the smallest key to bucket 0 (the queue must not be empty) and return it, or
 * NULL when memory ran out. The reference moves to that key, which is safe: nothing is
 * queued below it, and the engine queues nothing before the event it handles next
 * (except at the current time, in the now heap).
 */
static inline const struct pk_event *
pk_evq_min_radix(struct pk_evq *q)
{
	struct pk_evq_bucket *b;
	struct pk_event *v, m;
	unsigned i = 0;
	uint32_t k, n, j;

	if (q->b[0].n)
		return &q->b[0].v[0];
	while (!q->used[i])
		i++;
	i = i * 64 + (unsigned)__builtin_ctzll(q->used[i]);
	b = &q->b[i];
	v = b->v;
	n = b->n;
	m = v[0];
	for (k = 1; k < n; k++)
		if (pk_ev_less(&v[k], &m))
			m = v[k];
	q->last_t = m.t_ps;
	q->last_seq = m.seq;
	b->n = 0;
	q->used[i / 64] &= ~(UINT64_C(1) << (i % 64));
	/* Every event of bucket i falls to a lower one, never to i: no room is needed
	 * in it, and the buckets it goes to are distinct from it. */
	for (k = 0; k < n; k++) {
		j = pk_evq_bucket_of(q, v[k].t_ps, v[k].seq);
		if (pk_evq_put(q, j, &v[k]) < 0)
			return NULL; /* out of memory: the run fails, the queue is only freed */
	}
	return q->b[0].n ? &q->b[0].v[0] : NULL;
}

/* The smallest event (the queue must not be empty), or NULL when memory ran out. */
static inline const struct pk_event *
pk_evq_min(struct pk_evq *q)
{
	size_t nradix = q->n - q->now.n;

	if (q->now.n && (!nradix || pk_ev_less(&q->now.v[0], pk_evq_peek_radix(q))))
		return &q->now.v[0];
	return pk_evq_min_radix(q);
}

/* Take the smallest event (the queue must not be empty). */
static inline int
pk_evq_pop(struct pk_evq *q, struct pk_event *out)
{
	const struct pk_event *m = pk_evq_min(q);
	struct pk_evq_bucket *h = &q->now;

	if (!m)
		return FT_ENOMEM;
	*out = *m;
	q->n--;
	if (h->n && m == h->v) {
		struct pk_event last = h->v[--h->n];
		uint32_t i = 0, c;

		while ((c = 2 * i + 1) < h->n) {
			if (c + 1 < h->n && pk_ev_less(&h->v[c + 1], &h->v[c]))
				c++;
			if (!pk_ev_less(&h->v[c], &last))
				break;
			h->v[i] = h->v[c];
			i = c;
		}
		if (h->n)
			h->v[i] = last;
		return 0;
	}
	/* Keys are unique: bucket 0 holds only the key equal to the reference. */
	q->b[0].n = 0;
	q->used[0] &= ~UINT64_C(1);
	return 0;
}

static inline void
pk_evq_release(struct pk_evq *q)
{
	for (unsigned i = 0; i < PK_EVQ_NB; i++)
		ft_free(q->b[i].v);
	ft_free(q->now.v);
	memset(q, 0, sizeof(*q));
}

#endif

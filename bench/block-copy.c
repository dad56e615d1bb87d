/* SPDX-License-Identifier: MIT */
/*
 * bench/block-copy.c - what a small message costs the shm transport's
 * ranks in the core, without the cache-line transfers between them: one
 * thread writes each message into a ring the way a sender does and reads
 * it back the way a receiver does, everything in its own L1, through the
 * head's block (ring_put, ring_get: up to 272 bytes) and through the
 * ring's data alone (ring_data in and out, the path of a larger
 * point-to-point message). The functions are the transport's own: this
 * file includes src/bench/shm.c.
 *
 *   bash bench/block-copy.sh    (BUILD=build: builds this file against
 *                                 that build's static library, runs it)
 *
 * Printed per size: nanoseconds per message (the write and the read
 * together), the best of 200 rounds of 1000 messages, for the block and
 * for the ring. In a ping-pong both are on the path of every one-way
 * trip, beside one line transfer (0.13 us on a quiet 2-CPU EPYC VM).
 */
#include "../src/bench/shm.c"

#define ROUNDS 200
#define MSGS   1000

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ns per message of @len bytes through the head's block (@block) or the ring's data */
static double
per_msg(struct shm_ep *ep, struct ring *r, size_t len, bool block)
{
	static char src[4096], dst[4096];
	double best = 1e30;
	uint64_t pos = 0;
	int k, m;

	memset(src, 0x5a, sizeof(src));
	atomic_store(&r->inl_tag, INL_NONE); /* no earlier run's tag names these positions */
	for (k = 0; k < ROUNDS; k++) {
		double t0 = now_ns(), t;

		for (m = 0; m < MSGS; m++) {
			if (block && ring_put(ep, r, pos, src, len)) {
				atomic_store_explicit(&r->head, pos + len, memory_order_release);
				ring_data(ep, r, pos, src, len, RING_IN);
			} else {
				ring_data(ep, r, pos, src, len, RING_IN);
				atomic_store_explicit(&r->head, pos + len, memory_order_release);
			}
			ring_get(ep, r, pos, dst, len, RING_OUT);
			/* the next message starts a line, as a point-to-point one past the block */
			pos += (len + CACHELINE - 1) / CACHELINE * CACHELINE;
		}
		t = (now_ns() - t0) / MSGS;
		best = t < best ? t : best;
	}
	if (memcmp(src, dst, len) != 0) {
		fprintf(stderr, "block-copy: %zu B read back wrong\n", len);
		exit(1);
	}
	return best;
}

int
main(void)
{
	static const size_t sizes[] = { 8, 48, 64, 128, 216, 256, 272, 512, 1024 };
	struct shm_ep ep = { .ring_bytes = 1u << 20 };
	struct ring *r = aligned_alloc(SEG_ALIGN, sizeof(*r) + ep.ring_bytes);
	size_t i;

	if (!r)
		return 1;
	memset(r, 0, sizeof(*r) + ep.ring_bytes);
	ep.prefetchw = has_prefetchw();
	printf("# ns per message, written and read in one core (best of %d x %d)\n", ROUNDS, MSGS);
	for (i = 0; i < FT_ARRAY_SIZE(sizes); i++) {
		if (sizes[i] <= INL_MAX)
			printf("%5zu B  block %6.1f  ring %6.1f\n", sizes[i],
			       per_msg(&ep, r, sizes[i], true), per_msg(&ep, r, sizes[i], false));
		else
			printf("%5zu B  block      -  ring %6.1f\n", sizes[i],
			       per_msg(&ep, r, sizes[i], false));
	}
	free(r);
	return 0;
}

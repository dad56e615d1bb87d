/* SPDX-License-Identifier: MIT */
/*
 * bench/shm_int.h - what the shm transport's files share: the endpoint, the
 * segment's per-rank lines, and the waiting and waking that the ring copies
 * (shm.c) and the direct collectives (shm_coll.c) both use.
 */
#ifndef FT_BENCH_SHM_INT_H
#define FT_BENCH_SHM_INT_H

#include "bench_int.h"

#include <stdatomic.h>

#define CACHELINE 64

/*
 * One line per rank: the futex it sleeps on when idle, whether it sleeps,
 * and where its cross-memory-attach probe word is (in its own memory).
 */
struct shm_bell {
	_Atomic uint32_t bell;
	_Atomic uint32_t sleeping;
	uint64_t probe_addr;
	char pad[CACHELINE - 2 * sizeof(uint32_t) - sizeof(uint64_t)];
};
_Static_assert(sizeof(struct shm_bell) == CACHELINE, "one cache line per rank");

/*
 * One line per rank, written only by that rank. seq is 2c-1 once call c's
 * buffers are published (offsets below), 2c once its outputs are written.
 * quit is the call c this rank gave up on (shm_coll.c, coll_quit), 0 while
 * it has not: in the line of seq, so that a peer waiting on seq sees it
 * with the same load. cause, written before quit, is 1 + the rank that gave
 * up first as this rank knew it (itself, or the peer whose quit ended its
 * call), so that a peer that sees this quit first names that rank.
 */
struct shm_ctl {
	_Atomic uint64_t seq;
	_Atomic uint64_t quit;
	uint64_t send_off, recv_off, count; /* offsets from the buffer area's start */
	uint32_t coll, dtype, op, ok;
	int32_t root;
	_Atomic uint32_t cause;
};
_Static_assert(sizeof(struct shm_ctl) == CACHELINE, "one cache line per rank");

#define SEG_ALIGN 4096
/* ranks the direct collectives take (pointer arrays on the stack); beyond: rings */
#define FT_SHM_DIRECT_MAX 64

/* A buffer of a single copy given up on that the peer may still use (struct shm_peer). */
struct shm_hold {
	const char *buf; /* NULL: none */
	size_t len;
	uint64_t claimed;
};
enum { SHM_HOLD_RECV, SHM_HOLD_SEND };

struct shm_peer {
	struct ft_req *sq, *sq_tail;
	struct ft_req *rq, *rq_tail;
	struct ft_req *cq, *cq_tail; /* single-copy sends the receiver has not read yet */
	uint64_t cma_sent;           /* descriptors sent to this peer */
	/*
	 * The choice between the two copies of a message that may take either
	 * (shm.c, copy_choose): single copies while the pipeline is seen to
	 * stall, a pipelined message tried again at probe_at.
	 */
	bool single;                 /* the next such message goes as a single copy */
	double stall_t0;             /* when the ring was found full, 0 when it is not */
	double probe_s, probe_at;    /* back-off between tries of the pipeline, the next try */
	double run_t0;               /* when the current run of one copy began (a try or single copies) */
	uint64_t run_bytes;          /* such messages' bytes delivered since run_t0 */
	double single_rate;          /* bytes/s of the last run of single copies, 0 before one */
	uint64_t copies[2];          /* such messages sent: [0] pipelined, [1] single copies */
	uint64_t pieces[2];          /* pieces of single copies this rank copied: [0] read
	                                from the peer as receiver, [1] written to it as sender */
	uint64_t calls[2];           /* the cma_copy calls that copied them (each may make more
	                                than one system call): [0] process_vm_readv, [1]
	                                process_vm_writev (a claim of the rest is one) */
	/*
	 * The ring's head as this rank last published it: the sender takes its
	 * position from here, never from the shared line, which its receiver
	 * polls (shm.c, move_sends).
	 */
	uint64_t head_sent;
	uint64_t tail_seen;          /* the receiver's tail when last read: reread only when
	                                the ring looks full, so its line stays with the reader */
	bool lost;                   /* requests dropped (shm.c, shm_abandon): out of step */
	/*
	 * Single copies given up on while under way (shm_abandon, shm_holds):
	 * [SHM_HOLD_RECV] a receive, whose sender may still write pieces it
	 * claimed into it; [SHM_HOLD_SEND] a send, whose receiver may still read
	 * pieces it claimed from it. Held until the copy's bytes reach claimed.
	 */
	struct shm_hold hold[2];
};

struct shm_ep {
	struct ft_ep base;
	char *seg;
	size_t seg_bytes, ring_bytes, ring_stride;
	struct shm_ctl *ctl; /* nranks lines */
	struct shm_bell *bells; /* nranks lines */
	char *rings;
	char *bufs;              /* nranks areas of area_bytes, NULL when none */
	size_t area_bytes;       /* per rank */
	size_t area_used;        /* bump allocator in this rank's area */
	unsigned area_live;      /* allocations not yet freed */
	size_t prefault_bytes;   /* of each of this rank's rings, touched at open */
	size_t rings_off, bufs_off;
	bool prefault_pairs_only; /* only the rings between ranks 0 and 1 (pt2pt) */
	bool cma;                 /* single copies through process_vm_readv */
	bool cma_auto;            /* chosen per message (copy_choose), not always */
	bool share_recv_off;      /* tests: the receiver leaves every piece to the sender */
	bool line_start;          /* messages past the block start a cache line (ring_pad) */
	/* tests: a release publication comes after its ring, this run between (ring_move) */
	void (*late_store)(struct ft_ep *ep, uint32_t peer);
	/* tests: run by the receiver between claiming piece @off of single copy @num and
	 * reading it */
	void (*claimed)(struct ft_ep *ep, uint32_t peer, uint64_t num, size_t off);
	size_t cma_min;           /* from this size on (--cma-min) */
	size_t nt_min;            /* messages from this size on are read out bypassing the cache */
	bool prefetchw;           /* the CPU has PREFETCHW (shm.c, ring_put) */
	uint64_t cma_probe;       /* read by the peers at open */
	double spin_s;            /* spin this long before sleeping on the doorbell */
	uint64_t calls;          /* direct collectives run */
	uint64_t coll_quit;      /* the call this rank gave up on (its ctl line's quit), 0 none */
	uint32_t coll_cause;     /* 1 + the peer that gave up first, which made it; 0 none */
	bool area_held;          /* a peer may still use this rank's area for it (coll_held) */
	uint32_t rank, nranks;
	struct shm_peer *peers;
	double next_check;
};

static inline size_t
ft__shm_align_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

/* Store @v to @x so that it is ordered before the loads that follow (bell_ring). */
static inline void
ft__shm_publish(_Atomic uint64_t *x, uint64_t v)
{
	(void)atomic_exchange_explicit(x, v, memory_order_seq_cst);
}

void ft__shm_bell_ring(struct shm_ep *ep, uint32_t p);
int ft__shm_bell_sleep(struct shm_ep *ep, int timeout_ms,
                       int (*ready)(struct shm_ep *, void *, struct ft_error *), void *ud,
                       struct ft_error *err);
bool ft__shm_spin_over(struct shm_ep *ep, double *prev, double t0);
void ft__shm_spin_paid(struct shm_ep *ep, double *prev);
int ft__shm_check_peers(struct shm_ep *ep, bool all, struct ft_error *err);
/*
 * The choice of copy for a message that may take either (shm.c): its
 * state in struct shm_peer, the clock passed in, so that the back-off
 * can be followed on any clock (tests drive it by hand).
 */
void ft__shm_copy_start(struct shm_peer *pp, bool single, double now);
bool ft__shm_copy_try(struct shm_peer *pp, double now);
void ft__shm_copy_stalled(struct shm_peer *pp, double now);
void ft__shm_copy_judge(struct shm_peer *pp, double now);
/* shm.c: the bytes of a piece of a single copy (SHARE_PIECE there) */
#define FT__SHM_SHARE_PIECE (128 * 1024)
/* Whether a receiver rings the sender when it begins a single copy (shm.c, share_begin). */
bool ft__shm_share_wakes(size_t len, size_t piece, bool recv_off);
/*
 * Whether the receiver of a single copy, having read the bytes up to @end
 * in pieces of @piece, claims every piece left at once: when the next
 * piece not yet claimed, @next, is the one after its own (shm.c,
 * share_recv).
 */
bool ft__shm_claim_rest(uint64_t next, size_t end, size_t piece);
/* Whether peer @p's process is gone (kill(pid, 0) finds none). */
bool ft__shm_peer_gone(const struct shm_ep *ep, uint32_t p);

/* shm_coll.c: buffers in the segment and the collectives run on them */
void *ft__shm_mem_alloc(struct ft_ep *base, size_t bytes);
void ft__shm_mem_free(struct ft_ep *base, void *p);
int ft__shm_coll(struct ft_ep *base, const struct ft_bench_coll_args *a, struct ft_error *err);

#endif

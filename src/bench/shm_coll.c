/* SPDX-License-Identifier: MIT */
/*
 * bench/shm_coll.c - the shm transport's collectives, on buffers in the
 * shared segment.
 *
 * The collectives' buffers live in the segment too (mem_alloc: one area per
 * rank, like NCCL's registered buffers or CUDA IPC handles), so all_reduce
 * needs no ring: every rank publishes the offsets of its buffers with a
 * sequence number, reduces its 1/n slice reading all n inputs in place,
 * writes the result once into every rank's output, and publishes the next
 * sequence number. Each element is read once per input and written once per
 * output: one pass, where the ring copies every byte into a ring and out again.
 *
 * A rank that gives up in the middle of one (a peer silent for --timeout,
 * an interrupt, a peer that gave up first, FT_FAULT_EP=coll:R) says so in
 * its line (coll_quit): its peers, which wait on that line, end their call
 * with an error naming it within a spin, and its area is not reused while
 * a peer may still read its inputs or write its outputs (coll_held). The
 * segment itself outlives any one rank's unmapping: every rank maps the
 * same memory, so a rank that closes takes away only its own view of it.
 */
#include "shm_int.h"

#include <inttypes.h>

/* reduce and copy in pieces that stay in L1 between the reduction and the copies */
#define PIECE_BYTES (16 * 1024)

/*
 * Whether a peer may still use this rank's area for the call it gave up on
 * (coll_quit): one that may have begun that call (its seq below 2c: it may
 * be reading this rank's inputs or writing its outputs), has not given up
 * itself, and runs. Once none may, the hold is over for good.
 */
static bool
coll_held(struct shm_ep *ep)
{
	uint64_t c = ep->coll_quit;
	uint32_t p;

	for (p = 0; ep->area_held && p < ep->nranks; p++)
		if (p != ep->rank &&
		    atomic_load_explicit(&ep->ctl[p].seq, memory_order_acquire) < 2 * c &&
		    !atomic_load_explicit(&ep->ctl[p].quit, memory_order_acquire) &&
		    !ft__shm_peer_gone(ep, p))
			return true;
	ep->area_held = false;
	return false;
}

bool
ft__shm_area_held(struct ft_ep *base)
{
	return coll_held(ft_container_of(base, struct shm_ep, base));
}

/* The bump allocator starts over once everything in the area is freed and no peer holds it. */
static void
area_reclaim(struct shm_ep *ep)
{
	if (ep->area_live == 0 && ep->area_used && !coll_held(ep))
		ep->area_used = 0;
}

void *
ft__shm_mem_alloc(struct ft_ep *base, size_t bytes)
{
	struct shm_ep *ep = ft_container_of(base, struct shm_ep, base);
	size_t need = ft__shm_align_up(bytes ? bytes : 1, SEG_ALIGN);

	area_reclaim(ep);
	if (ep->bufs && need <= ep->area_bytes - ep->area_used) {
		char *p = ep->bufs + (size_t)ep->rank * ep->area_bytes + ep->area_used;

		ep->area_used += need;
		ep->area_live++;
		return p;
	}
	return ft_malloc(bytes ? bytes : 1);
}

static bool
in_area(const struct shm_ep *ep, uint32_t rank, const void *p, size_t bytes)
{
	uintptr_t lo, c = (uintptr_t)p;

	if (!ep->bufs)
		return false;
	lo = (uintptr_t)ep->bufs + (uintptr_t)rank * ep->area_bytes;
	return c >= lo && c - lo <= ep->area_bytes && bytes <= ep->area_bytes - (c - lo);
}

/* The same for an offset published by rank @rank (never trusted blindly). */
static bool
off_in_area(const struct shm_ep *ep, uint32_t rank, uint64_t off, size_t bytes)
{
	uint64_t lo = (uint64_t)rank * ep->area_bytes;

	return off >= lo && off - lo <= ep->area_bytes && bytes <= ep->area_bytes - (off - lo);
}

void
ft__shm_mem_free(struct ft_ep *base, void *p)
{
	struct shm_ep *ep = ft_container_of(base, struct shm_ep, base);

	if (!in_area(ep, ep->rank, p, 0)) {
		ft_free(p);
		return;
	}
	if (ep->area_live)
		ep->area_live--;
	area_reclaim(ep);
}

struct seq_want {
	uint32_t p;
	uint64_t want;
};

static int
ready_seq(struct shm_ep *ep, void *ud, struct ft_error *err)
{
	const struct seq_want *sw = ud;

	return atomic_load_explicit(&ep->ctl[sw->p].seq, memory_order_acquire) >= sw->want ||
	       atomic_load_explicit(&ep->ctl[sw->p].quit, memory_order_acquire);
}

/* What a collective is called by: the larger of its buffers, nccl-tests' size. */
static size_t
coll_bytes(const struct shm_ep *ep, const struct ft_bench_coll_args *a)
{
	size_t sb, rb;

	ft__bench_bufsizes(a->coll, a->count, ft_dtype_size(a->dtype), ep->nranks, &sb, &rb);
	return FT_MAX(sb, rb);
}

/*
 * The collective @a cannot end: rank @p gave up on call @q. When @p is this
 * rank, the peer that gave up first, if one made it, is the one named.
 */
static int
coll_gave_up(struct shm_ep *ep, uint32_t p, uint64_t q, const struct ft_bench_coll_args *a,
             struct ft_error *err)
{
	int stopped = ft__world_stopped_rank(ep->base.w);
	char who[96], why[160] = "";
	uint32_t c = p != ep->rank
	                     ? atomic_load_explicit(&ep->ctl[p].cause, memory_order_relaxed)
	                     : 0;

	/* p ended on another rank's quit: that rank is the one to name (a rank
	   woken late on a busy host saw the quit of a peer that ended on it first) */
	if (c > 0 && c - 1 != p && c - 1 != ep->rank && c - 1 < ep->nranks &&
	    atomic_load_explicit(&ep->ctl[c - 1].quit, memory_order_acquire)) {
		p = c - 1;
		q = atomic_load_explicit(&ep->ctl[p].quit, memory_order_acquire);
	}
	if (p == ep->rank && ep->coll_cause)
		p = ep->coll_cause - 1;
	else if (p != ep->rank && !ep->coll_quit)
		ep->coll_cause = p + 1;
	/* what it likely gave up on: a rank of this host stopped in the call */
	if (stopped >= 0 && (uint32_t)stopped != p) {
		ft__world_who(ep->base.w, (uint32_t)stopped, who, sizeof(who));
		snprintf(why, sizeof(why), " (%s is stopped: SIGSTOP or a debugger)", who);
	}
	if (p == ep->rank)
		ft_strlcpy(who, "this rank", sizeof(who));
	else
		ft__world_who(ep->base.w, p, who, sizeof(who));
	if (q == ep->calls && p != ep->rank)
		return ft_error_set(err, FT_EPEER,
		                    "shm: %s gave up on the %s of %zu bytes, which ends here too%s",
		                    who, ft_op_name(a->coll), coll_bytes(ep, a), why);
	return ft_error_set(err, FT_EPEER,
	                    "shm: %s gave up on an earlier collective (call %" PRIu64 "): the "
	                    "%s of %zu bytes is refused (out of step)%s",
	                    who, q, ft_op_name(a->coll), coll_bytes(ep, a), why);
}

static int quit_seen(struct shm_ep *ep, const struct ft_bench_coll_args *a,
                     struct ft_error *err);

/* Wait until every peer's sequence number reaches @want, or one gives up (collective @a). */
static int
wait_all(struct shm_ep *ep, uint64_t want, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	double start = 0, now, prev = 0;
	unsigned spins = 0;
	uint32_t p;
	int rc;

	for (p = 0; p < ep->nranks; p++) {
		while (p != ep->rank &&
		       atomic_load_explicit(&ep->ctl[p].seq, memory_order_acquire) < want) {
			struct seq_want sw = { p, want };
			/* the same line as seq: no cost to a spin */
			uint64_t q = atomic_load_explicit(&ep->ctl[p].quit, memory_order_acquire);

			if (q)
				return coll_gave_up(ep, p, q, a, err);
			/* spin while the peer is likely close, then sleep on the doorbell */
			ft__cpu_relax();
			if (++spins % 64)
				continue;
			now = ft__now();
			if (start == 0)
				start = prev = now;
			if (ft__shm_spin_over(ep, &prev, start))
				ft__shm_bell_sleep(ep, 10, ready_seq, &sw, err);
			if (ep->base.stop && *ep->base.stop)
				return ft_error_set(err, FT_EINTR, "interrupted");
			/* any rank that died, not only this one: it may be what p waits on */
			if (now >= ep->next_check) {
				struct ft_error gone = { 0 };

				ep->next_check = now + 0.05;
				/* a process found gone may have given up first, or ended on
				   another rank's quit: the quits its lines hold are named
				   before its exit (a rank woken late on a busy host found
				   the rank that quit, or one that ended on it, gone) */
				if (ft__shm_check_peers(ep, true, &gone) < 0) {
					rc = quit_seen(ep, a, err);
					if (rc < 0)
						return rc;
					return ft_error_set(err, gone.code, "%s", gone.msg);
				}
			}
			if (now - start > ep->base.timeout_s)
				return ft__ep_silent(&ep->base, p, err);
		}
		/* a peer that answered restarts the clock */
		if (start > 0)
			ft__shm_spin_paid(ep, &prev);
		start = 0;
		spins = 0;
	}
	return 0;
}

/* Publish @v in this rank's @x (its seq or quit) and wake the ranks waiting for it. */
static void
publish_line(struct shm_ep *ep, _Atomic uint64_t *x, uint64_t v)
{
	uint32_t p;

	ft__shm_publish(x, v);
	for (p = 0; p < ep->nranks; p++)
		if (p != ep->rank)
			ft__shm_bell_ring(ep, p);
}

/*
 * A rank that gave up before this rank's body reads its buffers (its quit
 * seen once every rank published them): the call ends here, not after a
 * pass over inputs that rank may free.
 */
static int
quit_seen(struct shm_ep *ep, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	uint32_t p;
	uint64_t q;

	for (p = 0; p < ep->nranks; p++) {
		q = atomic_load_explicit(&ep->ctl[p].quit, memory_order_acquire);
		if (q)
			return coll_gave_up(ep, p, q, a, err);
	}
	return 0;
}

/*
 * This rank gives up on call @c, which fails with @rc: its peers learn it
 * from its line (the waits above look at quit, and the doorbells wake the
 * sleepers), and its area stays out of use while one of them may still
 * use it (coll_held). Every later direct collective on the endpoint is
 * refused: the ranks' calls are out of step.
 */
static int
coll_quit(struct shm_ep *ep, uint64_t c, int rc)
{
	ep->coll_quit = c;
	ep->area_held = true;
	atomic_store_explicit(&ep->ctl[ep->rank].cause,
	                      ep->coll_cause ? ep->coll_cause : ep->rank + 1, memory_order_relaxed);
	publish_line(ep, &ep->ctl[ep->rank].quit, c);
	return rc;
}

/*
 * FT_FAULT_EP=coll:R: rank R gives up on its first direct collective of
 * FT__FAULT_MIN_BYTES or more once it has done its share and seen every
 * peer say that it has done its own (call @c), before it says so itself:
 * its peers then all wait on its line, as they would on a rank stopped
 * there until a timeout ended it.
 */
static int
coll_fault(struct shm_ep *ep, uint64_t c, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	int rc;

	if (ep->base.fault != FT__FAULT_COLL || coll_bytes(ep, a) < FT__FAULT_MIN_BYTES)
		return 0;
	ep->base.fault = FT__FAULT_NONE;
	rc = wait_all(ep, 2 * c, a, err);
	if (rc < 0)
		return rc;
	return ft_error_set(err, FT_EIO,
	                    "shm: the %s of %zu bytes given up on with this rank's share done: "
	                    "a fault injected by FT_FAULT_EP",
	                    ft_op_name(a->coll), coll_bytes(ep, a));
}

/*
 * d[0..cnt) = in[start] op in[start+1] op ... (all n inputs, at byte @off).
 * @d may be in[start] + off exactly (in place), never another input.
 */
static void
reduce_piece(char *d, const char *const *in, uint32_t n, uint32_t start, size_t off, size_t cnt,
             const struct ft_bench_coll_args *a)
{
	uint32_t k;

	ft__data_reduce3(d, in[start] + off, in[(start + 1) % n] + off, cnt, a->dtype, a->op);
	for (k = 2; k < n; k++)
		ft__data_reduce(d, in[(start + k) % n] + off, cnt, a->dtype, a->op);
}

/*
 * The collective itself, once every rank's buffers are known: @in and @out
 * are every rank's send and receive buffers as mapped here. Each rank only
 * writes what no other rank reads during the call (see direct_coll).
 */
static void
direct_body(struct shm_ep *ep, const struct ft_bench_coll_args *a, const char *const *in,
            char *const *out)
{
	uint32_t n = ep->nranks, r = ep->rank, root = (uint32_t)a->root, k;
	size_t es = ft_dtype_size(a->dtype), bytes = a->count * es, first, len, off, end;

	switch (a->coll) {
	case FT_OP_ALL_REDUCE:
	case FT_OP_REDUCE:
		/*
		 * Rank r reduces slice r of all inputs and writes it to every output
		 * (all_reduce) or to the root's (reduce): n ranks share the work.
		 */
		ft__bench_chunk(a->count, n, r, &first, &len);
		end = (first + len) * es;
		for (off = first * es; off < end; off += PIECE_BYTES) {
			size_t pb = FT_MIN((size_t)PIECE_BYTES, end - off);

			if (a->coll == FT_OP_REDUCE) {
				reduce_piece(out[root] + off, in, n, root, off, pb / es, a);
				continue;
			}
			reduce_piece(out[r] + off, in, n, r, off, pb / es, a);
			for (k = 1; k < n; k++)
				memcpy(out[(r + k) % n] + off, out[r] + off, pb);
		}
		break;
	case FT_OP_REDUCE_SCATTER:
		/* block r of every input, reduced into this rank's output */
		for (off = 0; off < bytes; off += PIECE_BYTES) {
			size_t pb = FT_MIN((size_t)PIECE_BYTES, bytes - off);

			reduce_piece(out[r] + off, in, n, r, (size_t)r * bytes + off, pb / es, a);
		}
		break;
	case FT_OP_ALL_GATHER:
		for (k = 0; k < n; k++)
			if (out[r] + (size_t)k * bytes != in[k])
				memcpy(out[r] + (size_t)k * bytes, in[k], bytes);
		break;
	case FT_OP_ALLTOALL:
		for (k = 0; k < n; k++)
			memcpy(out[r] + (size_t)k * bytes, in[k] + (size_t)r * bytes, bytes);
		break;
	case FT_OP_BROADCAST:
		if (out[r] != in[root])
			memcpy(out[r], in[root], bytes);
		break;
	default:
		break;
	}
}

/*
 * A collective on buffers in the segment. Call c: publish this rank's
 * buffer offsets and seq 2c-1; once every rank is there, every rank reads
 * the inputs it needs in place and writes its share of the outputs; it then
 * publishes 2c and waits for everyone's 2c, after which nobody touches this
 * rank's buffers until the next call publishes 2c+1.
 *
 * In place works because the reductions split the elements: slice r of
 * every buffer is only touched by rank r, which reads a piece of all inputs
 * before writing it. The copies only write their own rank's output, and
 * alltoall, whose in-place layout would have a peer read what this rank
 * overwrites, takes the ring instead.
 */
static int
direct_coll(struct shm_ep *ep, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	uint32_t n = ep->nranks, r = ep->rank, k;
	size_t es = ft_dtype_size(a->dtype), sb, rb;
	struct shm_ctl *me = &ep->ctl[r];
	uint64_t c;
	const char *in[FT_SHM_DIRECT_MAX];
	char *out[FT_SHM_DIRECT_MAX];
	const char *s0 = a->sendbuf, *r0 = a->recvbuf;
	bool ok = true;
	int rc;

	c = ++ep->calls;
	if (ep->coll_quit)
		return coll_gave_up(ep, r, ep->coll_quit, a, err);
	ft__bench_bufsizes(a->coll, a->count, es, n, &sb, &rb);
	me->ok = in_area(ep, r, s0, sb) && in_area(ep, r, r0, rb) &&
	         (a->coll != FT_OP_ALLTOALL || s0 + sb <= r0 || r0 + rb <= s0);
	me->send_off = me->ok ? (uint64_t)(s0 - ep->bufs) : 0;
	me->recv_off = me->ok ? (uint64_t)(r0 - ep->bufs) : 0;
	me->count = a->count;
	me->coll = (uint32_t)a->coll;
	me->dtype = (uint32_t)a->dtype;
	me->op = (uint32_t)a->op;
	me->root = a->root;
	publish_line(ep, &me->seq, 2 * c - 1);
	rc = wait_all(ep, 2 * c - 1, a, err);
	if (rc == 0)
		rc = quit_seen(ep, a, err);
	if (rc < 0)
		return coll_quit(ep, c, rc);
	/* every rank sees the same lines, so all take the same way */
	for (k = 0; k < n; k++) {
		const struct shm_ctl *pc = &ep->ctl[k];

		ok = ok && pc->ok && pc->count == a->count && pc->coll == (uint32_t)a->coll &&
		     pc->dtype == (uint32_t)a->dtype && pc->op == (uint32_t)a->op &&
		     pc->root == a->root && off_in_area(ep, k, pc->send_off, sb) &&
		     off_in_area(ep, k, pc->recv_off, rb);
		if (ok) {
			in[k] = ep->bufs + pc->send_off;
			out[k] = ep->bufs + pc->recv_off;
		}
	}
	if (!ok) {
		publish_line(ep, &me->seq, 2 * c);
		return FT_ENOTSUP;
	}
	direct_body(ep, a, in, out);
	rc = coll_fault(ep, c, a, err);
	if (rc == 0) {
		publish_line(ep, &me->seq, 2 * c);
		rc = wait_all(ep, 2 * c, a, err);
	}
	return rc < 0 ? coll_quit(ep, c, rc) : 0;
}

bool
ft__shm_direct(const struct ft_ep *base)
{
	const struct shm_ep *ep = ft_container_of(base, const struct shm_ep, base);

	return base->ops->coll == ft__shm_coll && ep->bufs && ep->nranks >= 2 &&
	       ep->nranks <= FT_SHM_DIRECT_MAX;
}

int
ft__shm_coll(struct ft_ep *base, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	struct shm_ep *ep = ft_container_of(base, struct shm_ep, base);

	/* the same test on every rank: the same pattern, world and segment layout */
	if (!ft__shm_direct(base))
		return FT_ENOTSUP;
	switch (a->coll) {
	case FT_OP_ALL_REDUCE:
	case FT_OP_REDUCE:
	case FT_OP_REDUCE_SCATTER:
	case FT_OP_ALL_GATHER:
	case FT_OP_ALLTOALL:
	case FT_OP_BROADCAST:
		if ((a->coll == FT_OP_REDUCE || a->coll == FT_OP_BROADCAST) &&
		    (a->root < 0 || (uint32_t)a->root >= ep->nranks))
			return FT_ENOTSUP;
		return direct_coll(ep, a, err);
	default:
		return FT_ENOTSUP;
	}
}

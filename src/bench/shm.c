/* SPDX-License-Identifier: MIT */
/*
 * bench/shm.c - the shm transport: ranks on one host, through shared memory.
 *
 * Rank 0 creates one segment (memfd_create, reached by the others through
 * /proc/PID/fd; shm_open as a fallback) holding one single-producer,
 * single-consumer ring per ordered pair of ranks. A ring is a byte FIFO:
 * the sender copies in and publishes `head` with a release store, the
 * receiver copies out and publishes `tail`; both sides see each other's
 * index with acquire loads. Messages need no framing because both sides post
 * the same lengths in the same order. A peer whose process vanished is
 * noticed by kill(pid, 0) while waiting on it.
 *
 * The collectives' buffers live in the segment too (mem_alloc: one area per
 * rank, like NCCL's registered buffers or CUDA IPC handles), so all_reduce
 * needs no ring: every rank publishes the offsets of its buffers with a
 * sequence number, reduces its 1/n slice reading all n inputs in place,
 * writes the result once into every rank's output, and publishes the next
 * sequence number. Each element is read once per input and written once per
 * output: one pass, where the ring copies every byte into a ring and out again.
 *
 *   segment: [ctl: one line per rank][rings: n x n][buffers: n areas]
 */
#include "bench_int.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define CACHELINE 64

struct ring {
	_Atomic uint64_t head; /* bytes written, by the sender */
	char pad1[CACHELINE - sizeof(uint64_t)];
	_Atomic uint64_t tail; /* bytes read, by the receiver */
	char pad2[CACHELINE - sizeof(uint64_t)];
	/* data follows */
};

/*
 * One line per rank, written only by that rank. seq is 2c-1 once call c's
 * buffers are published (offsets below), 2c once its outputs are written.
 */
struct shm_ctl {
	_Atomic uint64_t seq;
	uint64_t send_off, recv_off, count; /* offsets from the buffer area's start */
	uint32_t coll, dtype, op, ok;
	int32_t root;
	char pad[CACHELINE - 6 * sizeof(uint64_t) - sizeof(int32_t)];
};
_Static_assert(sizeof(struct shm_ctl) == CACHELINE, "one cache line per rank");

#define SEG_ALIGN 4096
/* ranks the direct collectives take (pointer arrays on the stack); beyond: rings */
#define FT_SHM_DIRECT_MAX 64
/* reduce and copy in pieces that stay in L1 between the reduction and the copies */
#define PIECE_BYTES (16 * 1024)

struct shm_peer {
	struct ft_req *sq, *sq_tail;
	struct ft_req *rq, *rq_tail;
};

struct shm_ep {
	struct ft_ep base;
	char *seg;
	size_t seg_bytes, ring_bytes, ring_stride;
	struct shm_ctl *ctl; /* nranks lines */
	char *rings;
	char *bufs;              /* nranks areas of area_bytes, NULL when none */
	size_t area_bytes;       /* per rank */
	size_t area_used;        /* bump allocator in this rank's area */
	unsigned area_live;      /* allocations not yet freed */
	size_t prefault_bytes;   /* of each of this rank's rings, touched at open */
	size_t rings_off, bufs_off;
	uint64_t calls;          /* direct collectives run */
	uint32_t rank, nranks;
	struct shm_peer *peers;
	double next_check;
};

static int
shm_probe(const struct ft_bench_cfg *cfg, struct ft_error *err)
{
	return 0;
}

static struct ring *
ring_at(struct shm_ep *ep, uint32_t from, uint32_t to)
{
	return (struct ring *)(void *)(ep->rings +
	                               ((size_t)from * ep->nranks + to) * ep->ring_stride);
}

static void
shm_close(struct ft_ep *base)
{
	struct shm_ep *ep = ft_container_of(base, struct shm_ep, base);

	if (ep->seg)
		munmap(ep->seg, ep->seg_bytes);
	ft_free(ep->peers);
	ft_free(ep);
}

struct seg_name {
	int32_t pid, fd;
	char name[64];
};

static size_t
align_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
}

/*
 * Map this rank's rings into its page tables now rather than inside a timed
 * loop: before the allgather that ends the open, so no data flows yet.
 */
static void
prefault(struct shm_ep *ep)
{
	size_t off;
	uint32_t p;

	for (p = 0; p < ep->nranks && ep->prefault_bytes; p++) {
		volatile char *out, *in;

		if (p == ep->rank)
			continue;
		out = (volatile char *)(ring_at(ep, ep->rank, p) + 1);
		in = (volatile char *)(ring_at(ep, p, ep->rank) + 1);
		for (off = 0; off < ep->prefault_bytes; off += SEG_ALIGN) {
			out[off] = 0;
			in[off] = 0;
		}
	}
}

static int
shm_open_seg(struct ft_world *w, struct shm_ep *ep, struct ft_error *err)
{
	struct seg_name sn;
	int fd = -1, rc;

	memset(&sn, 0, sizeof(sn));
	if (w->rank == 0) {
		fd = memfd_create("fabtune-shm", MFD_CLOEXEC);
		if (fd < 0) {
			snprintf(sn.name, sizeof(sn.name), "/fabtune-%d-%llx", (int)getpid(),
			         (unsigned long long)(ft__now() * 1e6));
			fd = shm_open(sn.name, O_RDWR | O_CREAT | O_EXCL, 0600);
		}
		if (fd < 0)
			return ft_error_set(err, FT_EIO, "cannot create shared memory: %s",
			                    strerror(errno));
		if (ftruncate(fd, (off_t)ep->seg_bytes) < 0) {
			rc = ft_error_set(err, FT_EIO, "ftruncate %zu bytes: %s", ep->seg_bytes,
			                  strerror(errno));
			close(fd);
			return rc;
		}
		sn.pid = getpid();
		sn.fd = fd;
	}
	rc = ft__world_bcast(w, &sn, sizeof(sn), 0, err);
	if (rc < 0)
		goto out;
	if (w->rank != 0) {
		char path[64];

		if (sn.name[0]) {
			fd = shm_open(sn.name, O_RDWR, 0600);
		} else {
			snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)sn.pid, (int)sn.fd);
			fd = open(path, O_RDWR | O_CLOEXEC);
		}
		if (fd < 0) {
			rc = ft_error_set(err, FT_EIO, "cannot open rank 0's shared memory: %s",
			                  strerror(errno));
			/* still take part in the barrier below so rank 0 does not wait */
		}
	}
	if (fd >= 0) {
		ep->seg = mmap(NULL, ep->seg_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (ep->seg == MAP_FAILED) {
			ep->seg = NULL;
			rc = ft_error_set(err, FT_EIO, "mmap %zu bytes: %s", ep->seg_bytes,
			                  strerror(errno));
		} else {
			ep->ctl = (struct shm_ctl *)(void *)ep->seg;
			ep->rings = ep->seg + ep->rings_off;
			ep->bufs = ep->area_bytes ? ep->seg + ep->bufs_off : NULL;
		}
	}
	if (rc == 0 && ep->seg)
		prefault(ep);
	{
		struct ft_error e2 = { 0 };
		int ok = rc == 0, *all = ft_calloc(w->nranks, sizeof(int));
		uint32_t r;

		if (!all)
			rc = FT_ENOMEM;
		else if (ft__world_allgather(w, &ok, sizeof(ok), all, &e2) < 0)
			rc = rc ? rc : ft_error_set(err, e2.code, "%s", e2.msg);
		else
			for (r = 0; r < w->nranks; r++)
				if (!all[r] && rc == 0)
					rc = ft_error_set(err, FT_EIO,
					                  "rank %u could not map the segment", r);
		ft_free(all);
	}
out:
	if (w->rank == 0 && sn.name[0])
		shm_unlink(sn.name);
	if (fd >= 0)
		close(fd);
	return rc;
}

/*
 * Bytes of one rank's buffer area: what the runner allocates for the largest
 * size (send and receive sides, each page-aligned). 0, and the heap, when the
 * pattern is not a collective or all areas would not fit in half the memory
 * (or in --shm-max): the collectives then run fabtune's ring over the rings.
 */
static size_t
area_bytes(const struct ft_bench_cfg *cfg, uint32_t n)
{
	size_t es = ft_dtype_size(cfg->dtype), sb, rb, area;
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	uint64_t limit = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize / 2 : 0;

	if (cfg->shm_max_bytes && cfg->shm_max_bytes < limit)
		limit = cfg->shm_max_bytes;

	if (!ft_bench_pattern_is_coll(cfg->pattern) || cfg->pattern == FT_BENCH_DEV_MEMCPY ||
	    !es || n < 2)
		return 0;
	ft__coll_bufsizes(cfg->pattern, (size_t)(cfg->max_bytes / es) + n, es, n, &sb, &rb);
	area = align_up(sb, SEG_ALIGN) + align_up(FT_MAX(sb, rb), SEG_ALIGN) + SEG_ALIGN;
	if (!limit || (uint64_t)area * n > limit)
		return 0;
	return area;
}

static int
shm_open_ep(struct ft_world *w, const struct ft_bench_cfg *cfg, struct ft_ep **out,
            struct ft_error *err)
{
	struct shm_ep *ep = ft_calloc(1, sizeof(*ep));
	int rc;
	size_t ctl_bytes, rings_bytes;

	if (!ep)
		return FT_ENOMEM;
	ep->rank = w->rank;
	ep->nranks = w->nranks;
	/* 4 MiB rings up to 8 ranks, 1 MiB beyond: pages are only touched when used */
	ep->ring_bytes = w->nranks <= 8 ? 4u << 20 : 1u << 20;
	ep->ring_stride = sizeof(struct ring) + ep->ring_bytes;
	ctl_bytes = align_up(sizeof(struct shm_ctl) * w->nranks, SEG_ALIGN);
	rings_bytes = align_up(ep->ring_stride * w->nranks * w->nranks, SEG_ALIGN);
	ep->area_bytes = area_bytes(cfg, w->nranks);
	ep->rings_off = ctl_bytes;
	ep->bufs_off = ctl_bytes + rings_bytes;
	ep->seg_bytes = ctl_bytes + rings_bytes + ep->area_bytes * w->nranks;
	/* the collectives' ring algorithms move about a message per pair and call */
	if (ft_bench_pattern_is_coll(cfg->pattern) && w->nranks <= 8)
		ep->prefault_bytes = (size_t)FT_MIN((uint64_t)ep->ring_bytes, cfg->max_bytes);
	ep->peers = ft_calloc(w->nranks, sizeof(*ep->peers));
	if (!ep->peers) {
		shm_close(&ep->base);
		return FT_ENOMEM;
	}
	rc = shm_open_seg(w, ep, err);
	if (rc < 0) {
		shm_close(&ep->base);
		return rc;
	}

	*out = &ep->base;
	return 0;
}

static int
shm_post(struct ft_ep *base, struct ft_req *req, bool send, struct ft_error *err)
{
	struct shm_ep *ep = ft_container_of(base, struct shm_ep, base);
	struct shm_peer *p;

	if (req->peer >= ep->nranks || req->peer == ep->rank)
		return ft_error_set(err, FT_EINVAL, "shm: bad peer rank %u", req->peer);
	p = &ep->peers[req->peer];
	req->done = req->len == 0;
	req->off = 0;
	req->next = NULL;
	if (req->done)
		return 0;
	if (send) {
		if (p->sq_tail)
			p->sq_tail->next = req;
		else
			p->sq = req;
		p->sq_tail = req;
	} else {
		if (p->rq_tail)
			p->rq_tail->next = req;
		else
			p->rq = req;
		p->rq_tail = req;
	}
	return 0;
}

static int
shm_post_send(struct ft_ep *ep, struct ft_req *req, struct ft_error *err)
{
	return shm_post(ep, req, true, err);
}

static int
shm_post_recv(struct ft_ep *ep, struct ft_req *req, struct ft_error *err)
{
	return shm_post(ep, req, false, err);
}

/* Copy @len bytes into (or out of) ring data at position @pos, wrapping. */
static void
ring_copy(struct shm_ep *ep, struct ring *r, uint64_t pos, char *buf, size_t len, bool in)
{
	char *data = (char *)(r + 1);
	size_t at = (size_t)(pos % ep->ring_bytes), first = FT_MIN(len, ep->ring_bytes - at);

	if (in) {
		memcpy(data + at, buf, first);
		memcpy(data, buf + first, len - first);
	} else {
		memcpy(buf, data + at, first);
		memcpy(buf + first, data, len - first);
	}
}

/* Is a peer's process gone? Every peer with @all, else those with requests pending. */
static int
check_peers(struct shm_ep *ep, bool all, struct ft_error *err)
{
	uint32_t p;

	for (p = 0; p < ep->nranks; p++) {
		char who[96];

		if (p == ep->rank || (!all && !ep->peers[p].sq && !ep->peers[p].rq))
			continue;
		if (kill(ep->base.w->info[p].pid, 0) < 0 && errno == ESRCH)
			return ft_error_set(err, FT_EPEER, "%s is gone (its process exited)",
			                    ft__world_who(ep->base.w, p, who, sizeof(who)));
	}
	return 0;
}

static int
shm_progress(struct ft_ep *base, int timeout_ms, struct ft_error *err)
{
	struct shm_ep *ep = ft_container_of(base, struct shm_ep, base);
	int moved = 0;
	uint32_t p;

	for (p = 0; p < ep->nranks; p++) {
		struct shm_peer *pp = &ep->peers[p];

		while (pp->sq) {
			struct ft_req *q = pp->sq;
			struct ring *r = ring_at(ep, ep->rank, p);
			uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
			uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
			size_t space = ep->ring_bytes - (size_t)(head - tail);
			size_t n = FT_MIN(space, q->len - q->off);

			if (n == 0)
				break;
			ring_copy(ep, r, head, (char *)q->buf + q->off, n, true);
			atomic_store_explicit(&r->head, head + n, memory_order_release);
			q->off += n;
			moved++;
			if (q->off < q->len)
				break;
			q->done = true;
			pp->sq = q->next;
			if (!pp->sq)
				pp->sq_tail = NULL;
		}
		while (pp->rq) {
			struct ft_req *q = pp->rq;
			struct ring *r = ring_at(ep, p, ep->rank);
			uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
			uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
			size_t n = FT_MIN((size_t)(head - tail), q->len - q->off);

			if (n == 0)
				break;
			ring_copy(ep, r, tail, (char *)q->buf + q->off, n, false);
			atomic_store_explicit(&r->tail, tail + n, memory_order_release);
			q->off += n;
			moved++;
			if (q->off < q->len)
				break;
			q->done = true;
			pp->rq = q->next;
			if (!pp->rq)
				pp->rq_tail = NULL;
		}
	}
	if (moved || timeout_ms <= 0)
		return moved;
	/* Idle: let the peer run (ranks often outnumber cores), check it still lives. */
	sched_yield();
	if (ft__now() >= ep->next_check) {
		ep->next_check = ft__now() + 0.05;
		return check_peers(ep, false, err);
	}
	return 0;
}

/* ---- buffers in the segment and the direct collectives ------------------------ */

static int shm_coll(struct ft_ep *base, const struct ft_bench_coll_args *a,
                    struct ft_error *err);

static void *
shm_mem_alloc(struct ft_ep *base, size_t bytes)
{
	struct shm_ep *ep = ft_container_of(base, struct shm_ep, base);
	size_t need = align_up(bytes ? bytes : 1, SEG_ALIGN);

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

static void
shm_mem_free(struct ft_ep *base, void *p)
{
	struct shm_ep *ep = ft_container_of(base, struct shm_ep, base);

	if (!in_area(ep, ep->rank, p, 0)) {
		ft_free(p);
		return;
	}
	/* a bump allocator: the area is reused once everything in it is freed */
	if (ep->area_live && --ep->area_live == 0)
		ep->area_used = 0;
}

/* Wait until every rank's sequence number reaches @want. */
static int
wait_all(struct shm_ep *ep, uint64_t want, struct ft_error *err)
{
	double start = 0, now;
	unsigned spins = 0;
	uint32_t p;
	int rc;

	for (p = 0; p < ep->nranks; p++) {
		while (atomic_load_explicit(&ep->ctl[p].seq, memory_order_acquire) < want) {
			/* spin a little (the peer is usually close), then let it run */
			if (++spins < ep->base.spin_polls * 4)
				continue;
			sched_yield();
			if (spins % 64)
				continue;
			now = ft__now();
			if (start == 0)
				start = now;
			if (ep->base.stop && *ep->base.stop)
				return ft_error_set(err, FT_EINTR, "interrupted");
			/* any rank that died, not only this one: it may be what p waits on */
			if (now >= ep->next_check) {
				ep->next_check = now + 0.05;
				rc = check_peers(ep, true, err);
				if (rc < 0)
					return rc;
			}
			if (now - start > ep->base.timeout_s)
				return ft__ep_silent(&ep->base, p, err);
		}
		/* a peer that answered restarts the clock */
		start = 0;
		spins = 0;
	}
	return 0;
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
	case FT_BENCH_ALL_REDUCE:
	case FT_BENCH_REDUCE:
		/*
		 * Rank r reduces slice r of all inputs and writes it to every output
		 * (all_reduce) or to the root's (reduce): n ranks share the work.
		 */
		ft__coll_chunk(a->count, n, r, &first, &len);
		end = (first + len) * es;
		for (off = first * es; off < end; off += PIECE_BYTES) {
			size_t pb = FT_MIN((size_t)PIECE_BYTES, end - off);

			if (a->coll == FT_BENCH_REDUCE) {
				reduce_piece(out[root] + off, in, n, root, off, pb / es, a);
				continue;
			}
			reduce_piece(out[r] + off, in, n, r, off, pb / es, a);
			for (k = 1; k < n; k++)
				memcpy(out[(r + k) % n] + off, out[r] + off, pb);
		}
		break;
	case FT_BENCH_REDUCE_SCATTER:
		/* block r of every input, reduced into this rank's output */
		for (off = 0; off < bytes; off += PIECE_BYTES) {
			size_t pb = FT_MIN((size_t)PIECE_BYTES, bytes - off);

			reduce_piece(out[r] + off, in, n, r, (size_t)r * bytes + off, pb / es, a);
		}
		break;
	case FT_BENCH_ALL_GATHER:
		for (k = 0; k < n; k++)
			if (out[r] + (size_t)k * bytes != in[k])
				memcpy(out[r] + (size_t)k * bytes, in[k], bytes);
		break;
	case FT_BENCH_ALLTOALL:
		for (k = 0; k < n; k++)
			memcpy(out[r] + (size_t)k * bytes, in[k] + (size_t)r * bytes, bytes);
		break;
	case FT_BENCH_BROADCAST:
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
	uint64_t c = ++ep->calls;
	const char *in[FT_SHM_DIRECT_MAX];
	char *out[FT_SHM_DIRECT_MAX];
	const char *s0 = a->sendbuf, *r0 = a->recvbuf;
	bool ok = true;
	int rc;

	ft__coll_bufsizes(a->coll, a->count, es, n, &sb, &rb);
	me->ok = in_area(ep, r, s0, sb) && in_area(ep, r, r0, rb) &&
	         (a->coll != FT_BENCH_ALLTOALL || s0 + sb <= r0 || r0 + rb <= s0);
	me->send_off = me->ok ? (uint64_t)(s0 - ep->bufs) : 0;
	me->recv_off = me->ok ? (uint64_t)(r0 - ep->bufs) : 0;
	me->count = a->count;
	me->coll = (uint32_t)a->coll;
	me->dtype = (uint32_t)a->dtype;
	me->op = (uint32_t)a->op;
	me->root = a->root;
	atomic_store_explicit(&me->seq, 2 * c - 1, memory_order_release);
	rc = wait_all(ep, 2 * c - 1, err);
	if (rc < 0)
		return rc;
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
		atomic_store_explicit(&me->seq, 2 * c, memory_order_release);
		return FT_ENOTSUP;
	}
	direct_body(ep, a, in, out);
	atomic_store_explicit(&me->seq, 2 * c, memory_order_release);
	return wait_all(ep, 2 * c, err);
}

bool
ft__shm_direct(const struct ft_ep *base)
{
	const struct shm_ep *ep = ft_container_of(base, const struct shm_ep, base);

	return base->ops->coll == shm_coll && ep->bufs && ep->nranks >= 2 &&
	       ep->nranks <= FT_SHM_DIRECT_MAX;
}

static int
shm_coll(struct ft_ep *base, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	struct shm_ep *ep = ft_container_of(base, struct shm_ep, base);

	/* the same test on every rank: the same pattern, world and segment layout */
	if (!ft__shm_direct(base))
		return FT_ENOTSUP;
	switch (a->coll) {
	case FT_BENCH_ALL_REDUCE:
	case FT_BENCH_REDUCE:
	case FT_BENCH_REDUCE_SCATTER:
	case FT_BENCH_ALL_GATHER:
	case FT_BENCH_ALLTOALL:
	case FT_BENCH_BROADCAST:
		if ((a->coll == FT_BENCH_REDUCE || a->coll == FT_BENCH_BROADCAST) &&
		    (a->root < 0 || (uint32_t)a->root >= ep->nranks))
			return FT_ENOTSUP;
		return direct_coll(ep, a, err);
	default:
		return FT_ENOTSUP;
	}
}

const struct ft_transport_ops ft_shm_transport = {
	.name = "shm",
	.summary = "shared memory rings between ranks on one host",
	.probe = shm_probe,
	.open = shm_open_ep,
	.post_send = shm_post_send,
	.post_recv = shm_post_recv,
	.progress = shm_progress,
	.coll = shm_coll,
	.mem_alloc = shm_mem_alloc,
	.mem_free = shm_mem_free,
	.close = shm_close,
	.spin_polls = 256,
	.rank_local = 50,
	.rank_remote = 0,
};

/* SPDX-License-Identifier: MIT */
/*
 * bench/coll.c - fabtune's own collective algorithms over point-to-point.
 *
 * Used by the tcp and shm transports (mpi and nccl run their libraries' own
 * algorithms). Buffer shapes follow nccl-tests so the tables compare:
 *
 *   all_reduce      ring: reduce-scatter then all-gather, 2(n-1) steps; on a
 *                   power-of-two number of ranks from 4, up to a size
 *                   (ft__bench_all_reduce_takes_hd), halving-doubling
 *                   (Rabenseifner), 2 log2(n) steps
 *   reduce_scatter  ring, n-1 steps; rank r keeps chunk r
 *   all_gather      ring, n-1 steps
 *   alltoall        direct: every pair at once
 *   broadcast       pipelined chain from the root
 *   reduce          pipelined chain ending at the root
 *
 * The ring is the twin's ring (src/coll/schedule.c, sched_ring; kb
 * NA-ALGO-RING): rank r sends to r+1 and receives from r-1, 2(n-1) steps
 * for all_reduce and n-1 for all_gather/reduce_scatter, 2(n-1)/n resp.
 * (n-1)/n of the buffer leaving each rank. The two do not share code: the
 * twin keeps one phase per ring, its steps folded into a count and its flows
 * carrying the phase's bytes at once, while this executor needs each step's
 * chunk indices (which chunk is sent and reduced at step s) to move and
 * reduce real data; the step order the twin would need to share is the very
 * detail it does not model. The chain (broadcast, reduce) is likewise the
 * twin's sched_chain, root first resp. last.
 *
 * Each step cuts its transfer into slices so that reducing one slice
 * overlaps receiving the next. Scratch buffers live in the endpoint and are
 * reused between iterations (no page faults inside the timed loop).
 */
#include "bench_int.h"

#include <sys/mman.h>

#define MAX_SLICES 32
#define MIN_SLICE  (128 * 1024)

/*
 * An endpoint that sets scratch_huge (shm) gets its scratch buffers of
 * SCRATCH_HUGE_MIN bytes or more, the point-to-point patterns' message
 * buffers among them, mapped on their own: aligned to and rounded up to
 * HUGE_BYTES and advised for transparent huge pages (MADV_HUGEPAGE), which
 * the default THP mode ("madvise") gives only to memory that asks. shm's
 * single copies read and write these buffers with process_vm_readv and
 * process_vm_writev, which pin the pages of every call: in 128 KiB calls
 * the kernel's copy took 1.66-1.76 times the CPU time of a memcpy of the
 * same bytes on 4 KiB pages, 1.19-1.26 times on 2 MiB pages
 * (bench/cma-cost.c; docs/internals/bench-log.md, "Huge pages for the single
 * copy"). From the size on which messages may take the single copy
 * (FT_SHM_CMA_AUTO_MIN, 64 KiB).
 */
#define SCRATCH_HUGE_MIN FT_SHM_CMA_AUTO_MIN
#define HUGE_BYTES       ((size_t)2 << 20)
/*
 * Every other scratch buffer starts on a page (SCRATCH_ALIGN). glibc's
 * malloc() put one of 128 KiB or more in its own mapping, usually 16 bytes
 * past a page, or from the heap at any multiple of 16 when the heap had
 * room or a freed mapping had raised its threshold. The kernel copies a tcp
 * receive out of the socket's pages into the buffer with one `rep movsb` on
 * a CPU with fast short rep movs (copy_user_generic in torvalds/linux
 * arch/x86/include/asm/uaccess_64.h, reached from tcp_recvmsg_locked in
 * net/ipv4/tcp.c through skb_copy_datagram_msg and _copy_to_iter). On the
 * build hosts' AMD EPYC (fsrm, erms) a `rep movsb` of 1 MiB runs at about
 * 3 GB/s where the destination starts 1-31 bytes after the source within a
 * 4 KiB page, (dst - src) mod 4096 in 1..31, and at 22-36 GB/s at the other
 * gaps measured (0, 32-64, -8 to -32): the Zen FSRM slowdown of glibc's
 * sourceware bug 30994 (measured in user space, docs/internals/bench-log.md
 * "tcp ping-pong at 1 MiB: the receive buffer's alignment"). The source is
 * the sender's page fragment, never the send buffer: the send copies into
 * it, and on loopback the receive reads it. skb_page_frag_refill
 * (net/core/sock.c) restarts the fragment at offset 0 when the socket holds
 * its page's only reference, as it does in a ping-pong once the peer has
 * read the last message: a loopback ping-pong's receive into a buffer on a
 * page ran fast whatever the stream's position (a 16, 4,067 or 4,080-byte
 * message before the first), at 65,507 B and 131,109 B as at 64 and 128
 * KiB, and slow 16 bytes past a page at every size measured. Where the
 * fragment does not restart (a stream of messages the receiver has not yet
 * read, or another host's pages), a message's source starts wherever the
 * stream left it, and a buffer on a page is no guarantee. Into a buffer 8-24
 * bytes past a page a 1 MiB loopback ping-pong's receive copy took 347-459
 * us a message against 35-61 at 0, 32, 48, 64, 128 and 4,000 bytes past
 * one, the send's 57-123 either way (perf record of a bare socket
 * ping-pong; fabtune's 65-77); it was most of a 1 MiB message's CPU.
 */
#define SCRATCH_ALIGN ((size_t)4096)

static bool
scratch_mapped(const struct ft_ep *ep, size_t bytes)
{
	return ep->scratch_huge && bytes >= SCRATCH_HUGE_MIN;
}

static size_t
huge_len(size_t bytes)
{
	return bytes <= SIZE_MAX - 2 * HUGE_BYTES ? (bytes + HUGE_BYTES - 1) / HUGE_BYTES * HUGE_BYTES :
	                                             0;
}

static void *
huge_map(size_t bytes)
{
	size_t len = huge_len(bytes), head;
	char *p = len ? mmap(NULL, len + HUGE_BYTES, PROT_READ | PROT_WRITE,
	                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : MAP_FAILED;

	if (p == MAP_FAILED)
		return NULL;
	/* keep the aligned middle: a huge page needs a whole aligned 2 MiB */
	head = (size_t)(-(uintptr_t)p & (HUGE_BYTES - 1));
	if (head)
		munmap(p, head);
	munmap(p + head + len, HUGE_BYTES - head);
	(void)madvise(p + head, len, MADV_HUGEPAGE); /* a kernel without THP refuses: 4 KiB pages */
	return p + head;
}

static void
scratch_free(struct ft_ep *ep, unsigned idx)
{
	void *p = ep->scratch[idx];
	size_t bytes = ep->scratch_bytes[idx];

	if (!p)
		return;
	if (scratch_mapped(ep, bytes)) {
		if (!ft__ep_forget(ep, p, huge_len(bytes), FT__MEM_MAP))
			munmap(p, huge_len(bytes));
	} else if (!ft__ep_forget(ep, p, bytes, FT__MEM_HEAP)) {
		ft_free(p);
	}
	ep->scratch[idx] = NULL;
	ep->scratch_bytes[idx] = 0;
}

void *
ft__ep_scratch(struct ft_ep *ep, unsigned idx, size_t bytes)
{
	if (idx >= FT_ARRAY_SIZE(ep->scratch))
		return NULL;
	if (ep->scratch_bytes[idx] < bytes || !ep->scratch[idx]) {
		void *p = scratch_mapped(ep, bytes) ? huge_map(bytes) :
		                                       ft__malloc_aligned(SCRATCH_ALIGN, bytes);

		if (!p)
			return NULL;
		memset(p, 0, bytes);
		scratch_free(ep, idx);
		ep->scratch[idx] = p;
		ep->scratch_bytes[idx] = bytes;
	}
	return ep->scratch[idx];
}

void
ft__ep_close(struct ft_ep *ep)
{
	struct ft_world *w;
	size_t i;
	unsigned k;
	bool end;

	if (!ep)
		return;
	for (k = 0; k < FT_ARRAY_SIZE(ep->scratch); k++)
		scratch_free(ep, k);
	ft__ep_reclaim(ep);
	w = ep->w;
	end = ep->holds_end_at_close;
	ep->ops->close(ep);
	/* what is still held: released now, or left to MPI_Finalize (or never) */
	for (i = 0; w && i < w->orphans.len;) {
		struct ft__orphan *o = ft_vec_at(&w->orphans, i);

		if (o->ep != ep) {
			i++;
		} else if (end) {
			ft__world_orphan_release(w, i);
		} else {
			o->ep = NULL;
			i++;
		}
	}
}

void
ft__ep_reclaim(struct ft_ep *ep)
{
	struct ft_world *w = ep ? ep->w : NULL;
	size_t i = 0;

	while (w && ep->holds && i < w->orphans.len) {
		struct ft__orphan *o = ft_vec_at(&w->orphans, i);

		if (o->ep == ep && !ep->holds(ep, o->p, o->len)) {
			if (ep->forget)
				ep->forget(ep, o->p, o->len);
			ft__world_orphan_release(w, i); /* i is now the former last one */
		} else
			i++;
	}
}

bool
ft__ep_forget(struct ft_ep *ep, void *p, size_t len, enum ft__mem kind)
{
	if (!ep || !p)
		return false;
	if (ep->forget)
		ep->forget(ep, p, len);
	if (!ep->holds || !ep->holds(ep, p, len))
		return false;
	ft__world_orphan(ep->w, ep, p, len, kind);
	return true;
}

void
ft__ep_abandon(struct ft_ep *ep)
{
	if (ep && ep->abandon)
		ep->abandon(ep);
}

/*
 * Wait for one request: poll the transport without sleeping for up to
 * SPIN_WAIT_S (or the transport's own budget, ep->spin_s, cut after
 * preemptions: ft__spin_budget) without progress when every local rank has a CPU of its own
 * (w->may_spin, bench/cpu.c), since a collective's next bytes are usually
 * microseconds away; otherwise, or after that, sleep in the transport's
 * wait, which wakes on the data (and owns the timeout and names a silent
 * peer). It never calls sched_yield(): beside a busy process, that hands the
 * core to it for a whole time slice.
 */
#define SPIN_WAIT_S 0.002

static int
coll_wait(struct ft_ep *ep, struct ft_req *r, struct ft_error *err)
{
	double since = 0, prev = 0, now;
	unsigned polls = 0;

	while (!r->done && ep->w->may_spin) {
		int rc = ep->ops->progress(ep, 0, err);

		if (rc < 0)
			return rc;
		if (rc > 0) {
			if (since > 0) {
				ft__spin_check(ep, &prev, ft__now()); /* as ft__ep_wait */
				ft__spin_paid(ep);
			}
			since = prev = 0;
			continue;
		}
		ft__cpu_relax();
		if (++polls % 16)
			continue;
		now = ft__now();
		if (since == 0)
			since = now;
		if (ft__spin_check(ep, &prev, now) || now - since > ft__spin_budget(ep, SPIN_WAIT_S))
			break;
		if (ep->stop && *ep->stop)
			return ft_error_set(err, FT_EINTR, "interrupted");
	}
	return r->done ? 0 : ft__ep_wait1(ep, r, err);
}

static size_t
slice_bytes(size_t bytes, size_t esize)
{
	size_t s = (bytes + MAX_SLICES - 1) / MAX_SLICES;

	if (s < MIN_SLICE)
		s = MIN_SLICE;
	s -= s % esize;
	return s ? s : esize;
}

/*
 * Send @slen bytes to @to while receiving @rlen bytes from @from into @rbuf;
 * with @red set, write red = red_src op received for each slice as it lands
 * (@red_src may be @red).
 */
static int
step(struct ft_ep *ep, uint32_t to, const void *sbuf, size_t slen, uint32_t from, void *rbuf,
     size_t rlen, void *red, const void *red_src, const struct ft_bench_coll_args *a,
     struct ft_error *err)
{
	struct ft_req rr[MAX_SLICES + 1], sr;
	size_t esize = ft_dtype_size(a->dtype), sl = slice_bytes(rlen, esize), off, k, n = 0;
	int rc = 0;

	for (off = 0; off < rlen && rc == 0; off += sl, n++)
		rc = ft__ep_recv(ep, &rr[n], from, (char *)rbuf + off, FT_MIN(sl, rlen - off), err);
	if (rc == 0)
		rc = ft__ep_send(ep, &sr, to, sbuf, slen, err);
	for (k = 0, off = 0; k < n && rc == 0; k++, off += sl) {
		rc = coll_wait(ep, &rr[k], err);
		if (rc == 0 && red)
			ft__data_reduce3((char *)red + off, (const char *)red_src + off,
			                 (char *)rbuf + off, rr[k].len / esize, a->dtype, a->op);
	}
	if (rc == 0)
		rc = coll_wait(ep, &sr, err);
	return rc;
}

/*
 * Reduce-scatter on the ring. @src holds this rank's inputs and is only read;
 * each chunk that arrives is reduced with its input into @work (which may be
 * @src), and the chunk reduced at one step is the one sent at the next, so
 * no copy of the inputs is ever made.
 */
static int
ring_reduce_scatter_phase(struct ft_ep *ep, const char *src, char *work, size_t count,
                          uint32_t shift, const struct ft_bench_coll_args *a,
                          struct ft_error *err)
{
	uint32_t n = ep->w->nranks, r = ep->w->rank, s;
	size_t es = ft_dtype_size(a->dtype), maxc = (count + n - 1) / n;
	char *tmp = ft__ep_scratch(ep, 0, maxc * es);
	int rc = 0;

	if (!tmp)
		return FT_ENOMEM;
	for (s = 0; s + 1 < n && rc == 0; s++) {
		uint32_t sc = (r + 2 * n - s - shift) % n, rcv = (r + 2 * n - s - shift - 1) % n;
		size_t sf, sn, rf, rn;

		ft__bench_chunk(count, n, sc, &sf, &sn);
		ft__bench_chunk(count, n, rcv, &rf, &rn);
		rc = step(ep, (r + 1) % n, (s == 0 ? src : work) + sf * es, sn * es, (r + n - 1) % n,
		          tmp, rn * es, work + rf * es, src + rf * es, a, err);
	}
	return rc;
}

static int
ring_all_gather_blocks(struct ft_ep *ep, char *buf, size_t count, bool even_blocks, uint32_t shift,
                       const struct ft_bench_coll_args *a, struct ft_error *err)
{
	uint32_t n = ep->w->nranks, r = ep->w->rank, s;
	size_t es = ft_dtype_size(a->dtype);
	int rc = 0;

	for (s = 0; s + 1 < n && rc == 0; s++) {
		uint32_t sc = (r + shift + n - s) % n, rcv = (r + shift + 2 * n - s - 1) % n;
		size_t sf, sn, rf, rn;

		if (even_blocks) {
			sf = sc * count;
			rf = rcv * count;
			sn = rn = count;
		} else {
			ft__bench_chunk(count, n, sc, &sf, &sn);
			ft__bench_chunk(count, n, rcv, &rf, &rn);
		}
		rc = step(ep, (r + 1) % n, buf + sf * es, sn * es, (r + n - 1) % n, buf + rf * es,
		          rn * es, NULL, NULL, a, err);
	}
	return rc;
}

/*
 * all_reduce takes halving-doubling instead of the ring on a power-of-two
 * number of ranks from 4, below HD_MAX_4 bytes on 4 ranks and below
 * HD_MAX_WIDE on more; 2 ranks keep the ring, which moves the very same two
 * messages. Measured over tcp on 2 CPUs that the ranks share, the ring's build
 * and this one back to back, five times (docs/internals/bench-log.md,
 * "all_reduce by halving-doubling"), median busbw over the ring's: at 4 ranks
 * 1.4-2.3 from 1 to 64 KiB, 1.05-1.24 from 256 KiB to 16 MiB, 0.74 at 64 MiB;
 * at 8 ranks 1.7-2.9 at 16 and 64 KiB, 0.78-0.93 from 256 KiB to 4 MiB. Its
 * first exchange moves half the buffer to one peer, where each of the ring's
 * steps moves 1/n of it. 16 ranks and more, not measured, follow the 8-rank
 * rule.
 */
#define HD_MAX_4    ((size_t)32 << 20)
#define HD_MAX_WIDE ((size_t)256 << 10)

bool
ft__bench_all_reduce_takes_hd(uint32_t nranks, size_t bytes)
{
	if (nranks < 4 || (nranks & (nranks - 1)) != 0)
		return false;
	return bytes < (nranks == 4 ? HD_MAX_4 : HD_MAX_WIDE);
}

/* The first element of block @b of @count elements cut into @n blocks (@b = @n: the end). */
static size_t
block_first(size_t count, uint32_t n, uint32_t b)
{
	size_t f, len;

	ft__bench_chunk(count, n, b, &f, &len);
	return f;
}

/*
 * all_reduce by halving-doubling on a power-of-two number of ranks, Rabenseifner's
 * algorithm, with Open MPI 4.1.4's order of distances
 * (ompi_coll_base_allreduce_intra_redscat_allgather,
 * ompi/mca/coll/base/coll_base_allreduce.c, which its tuned component runs for a
 * commutative sum from 256 KiB below 4 ranks and from 8 KiB on 4 to 15; the twin's
 * halving_doubling, src/coll/schedule.c sched_hd, moves the same bytes).
 *
 * The buffer is cut into n blocks as the ring cuts it (ft__bench_chunk). A
 * reduce-scatter by recursive halving: in round k (dist = 1, 2, ..., n/2) rank r
 * and rank r ^ dist, which still reduce the same window of blocks, split it in two
 * halves, the lower for the one whose bit dist is clear; each sends the half the
 * other keeps and reduces the half it keeps with what arrives. After log2(n) rounds
 * rank r holds one block reduced over all ranks (the block at r's bits reversed).
 * Then an all-gather by recursive doubling walks the rounds back (dist = n/2, ...,
 * 1): rank r swaps the window it holds for the other half of the window it held
 * before that round. Each rank sends 2(n-1)/n of the buffer, as on the ring, in
 * 2 log2(n) steps instead of 2(n-1): at 4 ranks 4 instead of 6, and a rank that
 * sleeps between steps (ranks that share a CPU) is woken fewer times. The largest
 * exchanges, half the buffer, go to the nearest rank (dist 1), which mpirun's
 * block placement puts on the same host; the farthest, dist n/2, move one block
 * each way. As in the ring, the first round reads the inputs in place and reduces
 * into the output (no copy of the inputs).
 */
int
ft__bench_all_reduce_hd(struct ft_ep *ep, const struct ft_bench_coll_args *a,
                        struct ft_error *err)
{
	uint32_t n = ep->w->nranks, r = ep->w->rank, lo = 0, hi = n, dist, k = 0;
	uint32_t keep[32][2], give[32][2]; /* per round: the half kept, the half given */
	size_t es = ft_dtype_size(a->dtype), count = a->count;
	const char *src = a->sendbuf;
	char *work = a->recvbuf, *tmp;
	int rc = 0;

	if (n < 2 || (n & (n - 1)))
		return ft_error_set(err, FT_EINVAL,
		                    "halving-doubling needs a power-of-two number of ranks from "
		                    "2, not %u",
		                    n);
	/* the largest half: n/2 blocks of at most ceil(count/n) elements */
	tmp = ft__ep_scratch(ep, 0, ((count + n - 1) / n) * (n / 2) * es);
	if (!tmp)
		return FT_ENOMEM;
	for (dist = 1; dist < n && rc == 0; dist *= 2, k++) {
		uint32_t mid = lo + (hi - lo) / 2, up = r & dist;
		uint32_t klo = up ? mid : lo, khi = up ? hi : mid;
		uint32_t glo = up ? lo : mid, ghi = up ? mid : hi;
		size_t kf = block_first(count, n, klo), kn = block_first(count, n, khi) - kf;
		size_t gf = block_first(count, n, glo), gn = block_first(count, n, ghi) - gf;
		/* the first round reads the inputs */
		const char *in = k == 0 ? src : work;

		rc = step(ep, r ^ dist, in + gf * es, gn * es, r ^ dist, tmp, kn * es,
		          work + kf * es, in + kf * es, a, err);
		keep[k][0] = lo = klo;
		keep[k][1] = hi = khi;
		give[k][0] = glo;
		give[k][1] = ghi;
	}
	while (k-- > 0 && rc == 0) {
		size_t mf = block_first(count, n, keep[k][0]), tf = block_first(count, n, give[k][0]);
		size_t mn = block_first(count, n, keep[k][1]) - mf;
		size_t tn = block_first(count, n, give[k][1]) - tf;

		dist = 1u << k;
		rc = step(ep, r ^ dist, work + mf * es, mn * es, r ^ dist, work + tf * es, tn * es,
		          NULL, NULL, a, err);
	}
	return rc;
}

static int
all_reduce(struct ft_ep *ep, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	size_t bytes = a->count * ft_dtype_size(a->dtype);
	int rc;

	if (ep->w->nranks == 1) {
		if (a->sendbuf != a->recvbuf)
			memcpy(a->recvbuf, a->sendbuf, bytes);
		return 0;
	}
	if (ft__bench_all_reduce_takes_hd(ep->w->nranks, bytes))
		return ft__bench_all_reduce_hd(ep, a, err);
	/* after the reduce-scatter phase rank r holds chunk r+1 (out of place: no copy) ... */
	rc = ring_reduce_scatter_phase(ep, a->sendbuf, a->recvbuf, a->count, 0, a, err);
	/* ... which the all-gather phase sends first */
	if (rc == 0)
		rc = ring_all_gather_blocks(ep, a->recvbuf, a->count, false, 1, a, err);
	return rc;
}

static int
reduce_scatter(struct ft_ep *ep, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	uint32_t n = ep->w->nranks, r = ep->w->rank;
	size_t es = ft_dtype_size(a->dtype), total = a->count * n;
	char *work = ft__ep_scratch(ep, 1, total * es);
	int rc;

	size_t f, len;

	if (!work)
		return FT_ENOMEM;
	ft__bench_chunk(total, n, r, &f, &len);
	if (n == 1) {
		memmove(a->recvbuf, (const char *)a->sendbuf + f * es, len * es);
		return 0;
	}
	/* shift 1: the chunk kept after n-1 steps is the rank's own */
	rc = ring_reduce_scatter_phase(ep, a->sendbuf, work, total, 1, a, err);
	if (rc == 0)
		memmove(a->recvbuf, work + f * es, len * es);
	return rc;
}

static int
all_gather(struct ft_ep *ep, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	uint32_t n = ep->w->nranks, r = ep->w->rank;
	size_t bytes = a->count * ft_dtype_size(a->dtype);
	char *dst = (char *)a->recvbuf + (size_t)r * bytes;

	if (a->sendbuf != dst)
		memcpy(dst, a->sendbuf, bytes);
	return n > 1 ? ring_all_gather_blocks(ep, a->recvbuf, a->count, true, 0, a, err) : 0;
}

static int
alltoall(struct ft_ep *ep, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	uint32_t n = ep->w->nranks, r = ep->w->rank, s;
	size_t bytes = a->count * ft_dtype_size(a->dtype);
	const char *src = a->sendbuf;
	struct ft_req *reqs, **ptrs;
	int rc = 0;

	if (a->sendbuf == a->recvbuf) {
		char *copy = ft__ep_scratch(ep, 1, bytes * n);

		if (!copy)
			return FT_ENOMEM;
		memcpy(copy, a->sendbuf, bytes * n);
		src = copy;
	}
	memcpy((char *)a->recvbuf + (size_t)r * bytes, src + (size_t)r * bytes, bytes);
	if (n == 1)
		return 0;
	reqs = ft__ep_scratch(ep, 2, sizeof(*reqs) * 2 * n + sizeof(*ptrs) * 2 * n);
	if (!reqs)
		return FT_ENOMEM;
	ptrs = (struct ft_req **)(void *)(reqs + 2 * n);
	for (s = 1; s < n && rc == 0; s++) {
		uint32_t to = (r + s) % n, from = (r + n - s) % n;

		rc = ft__ep_recv(ep, &reqs[2 * s], from, (char *)a->recvbuf + (size_t)from * bytes,
		                 bytes, err);
		if (rc == 0)
			rc = ft__ep_send(ep, &reqs[2 * s + 1], to, src + (size_t)to * bytes, bytes,
			                 err);
		ptrs[2 * (s - 1)] = &reqs[2 * s];
		ptrs[2 * (s - 1) + 1] = &reqs[2 * s + 1];
	}
	return rc < 0 ? rc : ft__ep_wait(ep, ptrs, 2 * (size_t)(n - 1), err);
}

/* Position in the chain that starts after the root and ends at the root. */
static uint32_t
chain_pos(uint32_t r, uint32_t root, uint32_t n)
{
	return (r + n - root - 1) % n;
}

static int
broadcast(struct ft_ep *ep, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	uint32_t n = ep->w->nranks, r = ep->w->rank, root = (uint32_t)a->root;
	size_t bytes = a->count * ft_dtype_size(a->dtype), sl, off, k, ns;
	struct ft_req rr[MAX_SLICES + 1], sr[MAX_SLICES + 1];
	bool first = r == root, last = chain_pos(r, root, n) == n - 2;
	int rc = 0;

	if (first && a->sendbuf != a->recvbuf)
		memcpy(a->recvbuf, a->sendbuf, bytes);
	if (n == 1)
		return 0;
	sl = slice_bytes(bytes, ft_dtype_size(a->dtype));
	ns = bytes ? (bytes + sl - 1) / sl : 0;
	for (k = 0, off = 0; k < ns && rc == 0 && !first; k++, off += sl)
		rc = ft__ep_recv(ep, &rr[k], (r + n - 1) % n, (char *)a->recvbuf + off,
		                 FT_MIN(sl, bytes - off), err);
	for (k = 0, off = 0; k < ns && rc == 0; k++, off += sl) {
		if (!first)
			rc = coll_wait(ep, &rr[k], err);
		if (rc == 0 && !last)
			rc = ft__ep_send(ep, &sr[k], (r + 1) % n, (char *)a->recvbuf + off,
			                 FT_MIN(sl, bytes - off), err);
	}
	for (k = 0; k < ns && rc == 0 && !last; k++)
		rc = coll_wait(ep, &sr[k], err);
	return rc;
}

static int
reduce(struct ft_ep *ep, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	uint32_t n = ep->w->nranks, r = ep->w->rank, root = (uint32_t)a->root;
	size_t es = ft_dtype_size(a->dtype), bytes = a->count * es, sl, off, k, ns;
	struct ft_req rr[MAX_SLICES + 1], sr[MAX_SLICES + 1];
	uint32_t pos = chain_pos(r, root, n);
	char *work, *tmp;
	int rc = 0;

	if (n == 1) {
		if (a->sendbuf != a->recvbuf)
			memcpy(a->recvbuf, a->sendbuf, bytes);
		return 0;
	}
	/* the root reduces into its receive buffer, the others into scratch */
	work = r == root ? a->recvbuf : ft__ep_scratch(ep, 1, bytes);
	tmp = ft__ep_scratch(ep, 0, bytes);
	if (!work || !tmp)
		return FT_ENOMEM;
	if (work != a->sendbuf)
		memcpy(work, a->sendbuf, bytes);
	sl = slice_bytes(bytes, es);
	ns = bytes ? (bytes + sl - 1) / sl : 0;
	for (k = 0, off = 0; k < ns && rc == 0 && pos > 0; k++, off += sl)
		rc = ft__ep_recv(ep, &rr[k], (r + n - 1) % n, tmp + off, FT_MIN(sl, bytes - off),
		                 err);
	for (k = 0, off = 0; k < ns && rc == 0; k++, off += sl) {
		size_t len = FT_MIN(sl, bytes - off);

		if (pos > 0) {
			rc = coll_wait(ep, &rr[k], err);
			if (rc < 0)
				break;
			ft__data_reduce(work + off, tmp + off, len / es, a->dtype, a->op);
		}
		if (r != root)
			rc = ft__ep_send(ep, &sr[k], (r + 1) % n, work + off, len, err);
	}
	for (k = 0; k < ns && rc == 0 && r != root; k++)
		rc = coll_wait(ep, &sr[k], err);
	return rc;
}

/* Send to the next rank, receive from the previous one (nccl-tests' sendrecv). */
static int
sendrecv(struct ft_ep *ep, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	uint32_t n = ep->w->nranks, r = ep->w->rank;
	size_t bytes = a->count * ft_dtype_size(a->dtype);
	const char *src = a->sendbuf;

	if (n == 1) {
		if (a->recvbuf != a->sendbuf)
			memcpy(a->recvbuf, a->sendbuf, bytes);
		return 0;
	}
	/* in place: what goes out must not be overwritten by what comes in */
	if (a->sendbuf == a->recvbuf) {
		char *copy = ft__ep_scratch(ep, 1, bytes);

		if (!copy)
			return FT_ENOMEM;
		memcpy(copy, a->sendbuf, bytes);
		src = copy;
	}
	return ft__ep_sendrecv(ep, (r + 1) % n, src, bytes, (r + n - 1) % n, a->recvbuf, bytes,
	                       err);
}

/*
 * gather (@to_root) or scatter: the root exchanges one block with every other
 * rank directly, all posted at once; the others send or receive one block.
 */
static int
gather_scatter(struct ft_ep *ep, const struct ft_bench_coll_args *a, bool to_root,
               struct ft_error *err)
{
	uint32_t n = ep->w->nranks, r = ep->w->rank, root = (uint32_t)a->root, k, np = 0;
	size_t bytes = a->count * ft_dtype_size(a->dtype);
	struct ft_req *reqs, **ptrs;
	int rc = 0;

	if (r != root) {
		struct ft_req q;

		rc = to_root ? ft__ep_send(ep, &q, root, a->sendbuf, bytes, err) :
		               ft__ep_recv(ep, &q, root, a->recvbuf, bytes, err);
		return rc < 0 ? rc : ft__ep_wait1(ep, &q, err);
	}
	reqs = ft__ep_scratch(ep, 2, (sizeof(*reqs) + sizeof(*ptrs)) * n);
	if (!reqs)
		return FT_ENOMEM;
	ptrs = (struct ft_req **)(void *)(reqs + n);
	for (k = 0; k < n && rc == 0; k++) {
		char *block = (char *)(to_root ? a->recvbuf : a->sendbuf) + (size_t)k * bytes;

		if (k == root) {
			/* the root's own block; in place it is already there */
			if (to_root && block != (const char *)a->sendbuf)
				memcpy(block, a->sendbuf, bytes);
			else if (!to_root && block != (char *)a->recvbuf)
				memcpy(a->recvbuf, block, bytes);
			continue;
		}
		rc = to_root ? ft__ep_recv(ep, &reqs[np], k, block, bytes, err) :
		               ft__ep_send(ep, &reqs[np], k, block, bytes, err);
		ptrs[np] = &reqs[np];
		np++;
	}
	return rc < 0 ? rc : ft__ep_wait(ep, ptrs, np, err);
}

/*
 * An all-gather by recursive doubling over a hypercube (nccl-tests'
 * hypercube): in step d rank r swaps the 2^d blocks it holds with rank
 * r ^ 2^d, so after log2(n) steps every rank holds all n blocks.
 */
static int
hypercube(struct ft_ep *ep, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	uint32_t n = ep->w->nranks, r = ep->w->rank, mask;
	size_t bytes = a->count * ft_dtype_size(a->dtype);
	char *out = a->recvbuf;
	int rc = 0;

	if (n & (n - 1))
		return ft_error_set(err, FT_EINVAL,
		                    "hypercube needs a power-of-two number of ranks, not %u", n);
	if (out + (size_t)r * bytes != (const char *)a->sendbuf)
		memcpy(out + (size_t)r * bytes, a->sendbuf, bytes);
	for (mask = 1; mask < n && rc == 0; mask <<= 1) {
		uint32_t peer = r ^ mask;
		/* the aligned group of `mask` blocks each side holds so far */
		size_t mine = (size_t)(r & ~(mask - 1)), theirs = (size_t)(peer & ~(mask - 1));

		rc = ft__ep_sendrecv(ep, peer, out + mine * bytes, mask * bytes, peer,
		                     out + theirs * bytes, mask * bytes, err);
	}
	return rc;
}

static int
gather(struct ft_ep *ep, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	return gather_scatter(ep, a, true, err);
}

static int
scatter(struct ft_ep *ep, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	return gather_scatter(ep, a, false, err);
}

/* fabtune's own algorithm of each collective it runs over point-to-point */
static int (*const algorithms[FT_OP_COUNT])(struct ft_ep *ep, const struct ft_bench_coll_args *a,
                                            struct ft_error *err) = {
	[FT_OP_SENDRECV] = sendrecv,
	[FT_OP_GATHER] = gather,
	[FT_OP_SCATTER] = scatter,
	[FT_OP_HYPERCUBE] = hypercube,
	[FT_OP_ALL_REDUCE] = all_reduce,
	[FT_OP_REDUCE_SCATTER] = reduce_scatter,
	[FT_OP_ALL_GATHER] = all_gather,
	[FT_OP_ALLTOALL] = alltoall,
	[FT_OP_BROADCAST] = broadcast,
	[FT_OP_REDUCE] = reduce,
};

int
ft__bench_coll_run(struct ft_ep *ep, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	if ((unsigned)a->coll >= FT_OP_COUNT || !algorithms[a->coll])
		return ft_error_set(err, FT_EINVAL, "%s is not a collective",
		                    ft_op_name(a->coll));
	return algorithms[a->coll](ep, a, err);
}

void
ft__bench_bufsizes(enum ft_op p, size_t count, size_t esize, uint32_t nranks,
                  size_t *send_bytes, size_t *recv_bytes)
{
	size_t one = count * esize;

	switch (p) {
	case FT_OP_ALL_GATHER:
	case FT_OP_GATHER:
	case FT_OP_HYPERCUBE:
		*send_bytes = one;
		*recv_bytes = one * nranks;
		break;
	case FT_OP_REDUCE_SCATTER:
	case FT_OP_SCATTER:
		*send_bytes = one * nranks;
		*recv_bytes = one;
		break;
	case FT_OP_ALLTOALL:
		*send_bytes = *recv_bytes = one * nranks;
		break;
	default:
		*send_bytes = *recv_bytes = one;
		break;
	}
}

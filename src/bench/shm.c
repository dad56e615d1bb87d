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
 * noticed by kill(pid, 0) while waiting on it. Up to 272 bytes also ride in
 * the lines of the ring's head (ring_put, ring_get), so that a small
 * message costs the receiver one cache-line transfer at a time, not two
 * one after the other (each later line carries a tag of its own and is
 * loaded while the receiver polls: inl_poll). A larger message starts at
 * the next cache line on the point-to-point patterns' endpoints, both
 * sides skipping the same bytes (ring_pad); on the collectives' endpoints,
 * which take a message in other slices than it was sent in, the bytes of a
 * larger publication up to the end of the line it starts in, a line that
 * the one before it shares, ride in the head's block (ring_split).
 *
 * Copies go in chunks of SHM_CHUNK bytes, each published as soon as it is
 * in, so that the receiver copies one chunk out while the sender copies the
 * next one in: without that, a 64 MiB message was two copies one after the
 * other and half of Open MPI's rate. When the kernel lets ranks read each
 * other's memory (process_vm_readv, "cross memory attach", checked at
 * open), a message may instead go as a single copy: the ring only carries a
 * 16-byte descriptor of the sender's buffer and the message is copied
 * once, straight from it, in pieces that either rank may take: the
 * receiver reads them, and the sender, instead of waiting, writes the ones
 * the receiver has not reached into its buffer (share_recv, share_send).
 * The sender's request completes when the ring's cma_done count says the
 * receiver has the whole message. It needs matching lengths
 * on both sides, so it serves the point-to-point patterns, not the ring
 * algorithms of the collectives, and it stops at half the last-level cache
 * (two_ways). Neither copy wins everywhere: where it was measured (a 2-core
 * VM), the two pipelined copies ran at 30-44 GB/s at 1 MiB on a quiet
 * moment against 7.8 for the kernel's single copy, while under a load of
 * 14-17 the pipeline, which moves only while both ranks hold a CPU, fell
 * to a fifth of a memcpy and the single copy, which needs one, met half of
 * it (docs/internals/bench.md). So by default the sender chooses per
 * message from what it sees: the pipeline, until it finds the ring full
 * for longer than a running receiver needs to empty it (ft__shm_copy_stalled), then
 * single copies, trying the pipeline again after a back-off (copy_choose).
 * --cma-min SIZE makes every message from SIZE on a single copy, --cma-min
 * off none.
 *
 * Waiting spins while it pays (w->may_spin: every local rank has a CPU of
 * its own, cpu.c), then sleeps on the rank's doorbell, a futex in the
 * segment that a peer rings after publishing something while the rank
 * sleeps. sched_yield() is never used: beside a busy process it hands the
 * core to that process for a whole time slice.
 *
 * The collectives run on buffers in the segment itself (shm_coll.c).
 *
 *   segment: [ctl: one line per rank][rings: n x n][buffers: n areas]
 */
#include "shm_int.h"

#include <inttypes.h>

#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

/*
 * A small publication travels in the line of the head that announces it:
 * the receiver, which spins on that line, then needs one cache-line
 * transfer per message where the data in the ring cost a second one (Open
 * MPI's vader does the same with the header and data of its fast boxes).
 * The bytes still go into the ring as well, so a receiver that comes late,
 * or takes them in other slices, reads them there.
 */
/*
 * The head's block: the head's line and four after it, so that a message
 * of 256 bytes rides in it whole as Open MPI's fast box takes one (its
 * limit is a quarter of the 4 KiB box, header included: open-mpi/ompi,
 * opal/mca/btl/sm/btl_sm_fbox.h, mca_btl_sm_fbox_sendi, "size >
 * (fbox_size >> 2)"). With three lines (160 bytes), 256 B went into the
 * ring, whose lines the receiver asked for only once the head's line had
 * said that the message was there: a second line transfer after the
 * first, as at 64 B before the block's line tags (0.79 us against Open
 * MPI's 0.51 at 256 B, 0.58 at 128 B, on a quiet 2-CPU EPYC VM). In five
 * lines, 0.84-0.90x the three-line block's p50 at 256 B, the other sizes
 * of 8 B-4 KiB 0.96-1.06 (load 7-11); but 1.11-1.17x at 256 B where a
 * line moves between the ranks cheaply (the host's fast state, 0.13 us at
 * 8 B), the five lines' stores and loads outweighing the transfer saved
 * (docs/internals/bench-log.md, "shm 256 B in the head's block"). Those
 * stores and loads were the cost: a word at a time, each word's place in
 * its line worked out anew (a division by 7), the block took 62-64 ns of
 * one core to write and read at 256 B where the ring's two memcpys took
 * 8; a line at a time (inl_put_line, inl_get), 37-38 (bench/block-copy.c;
 * docs/internals/bench.md, "The block's copy, a line at a time").
 */
#define INL_LINES 5
/*
 * Each later line of the block begins with a tag of its own (inl[6],
 * inl[14], inl[22], inl[30]): the sender writes a message's later lines
 * first, each whole, then the head's, and a receiver checks the tag of
 * every line it copies, so that it can load the later lines while it
 * polls the head's (move_recvs). 48 bytes in the head's line, 56 in each
 * other.
 */
#define INL_LINE0     6 /* payload words in the head's line */
#define INL_LINE      7 /* payload words in each later line */
#define INL_WORDS     (INL_LINE0 + (INL_LINES - 1) * (INL_LINE + 1)) /* 38, head and tag: 5 lines */
#define INL_TAG(l)    (INL_LINE0 + ((l)-1) * (INL_LINE + 1))         /* line l's tag, l >= 1 */
#define INL_MAX       ((INL_LINE0 + (INL_LINES - 1) * INL_LINE) * sizeof(uint64_t)) /* 272 bytes */
/* a tag: the publication's position << INL_LEN_BITS | its length (<= INL_MAX) */
#define INL_LEN_BITS  9
#define INL_NONE      UINT64_MAX

struct ring {
	_Atomic uint64_t head; /* bytes written, by the sender */
	/*
	 * Which bytes inl holds: position << INL_LEN_BITS | length (inl_tag_of),
	 * or INL_NONE while the sender rewrites it (a sequence lock keyed on
	 * the position; from 2^55 bytes through one ring the block is left
	 * alone, ring_put).
	 */
	_Atomic uint64_t inl_tag;
	_Atomic uint64_t inl[INL_WORDS];
	_Atomic uint64_t tail; /* bytes read, by the receiver */
	char pad2[CACHELINE - sizeof(uint64_t)];
	_Atomic uint64_t cma_done; /* single-copy messages the receiver has read */
	char pad3[CACHELINE - sizeof(uint64_t)];
	/*
	 * The single copy being read, shared by both ranks (share_recv,
	 * share_send): its number (the sender's cma_sent, low 32 bits) << 32 |
	 * the next piece to claim, and the receiver's buffer, both written by
	 * the receiver; the bytes of it copied, added to by either rank.
	 */
	_Atomic uint64_t share;
	_Atomic uint64_t share_dst;
	char pad4[CACHELINE - 2 * sizeof(uint64_t)];
	_Atomic uint64_t share_done;
	char pad5[CACHELINE - sizeof(uint64_t)];
	/*
	 * The two flags of a side that gave up, in a line of their own that
	 * nothing else writes: a rank waiting for a message reads both on
	 * every empty poll (move_recvs: this ring's quit, and the rquit of
	 * its ring to the peer). rquit used to sit in the tail's line, which
	 * the peer writes for every message it takes, and quit in
	 * share_done's, which either rank adds to during a single copy. By
	 * the layout, a line the peer writes for every message comes back to
	 * the waiting rank's cache on each poll and must be taken from it
	 * again by the peer's next publication of its tail, a cache-line
	 * transfer each way of every round trip; that is argued, not
	 * counted (no cache counters were at hand), and the p50 it moved is
	 * in docs/internals/bench-log.md (ft__shm_ring_lines, and the
	 * assertions below the struct).
	 *
	 * quit: set by the sender when it gave up on messages to the receiver
	 * (shm_abandon): the single copies it described may point into freed
	 * memory, and nothing more comes through the ring (sender_quit).
	 * rquit: set by the receiver when it gave up on messages from the
	 * sender (shm_abandon).
	 */
	_Atomic uint64_t quit;
	_Atomic uint64_t rquit;
	char pad6[CACHELINE - 2 * sizeof(uint64_t)];
	/* data follows */
};
_Static_assert(sizeof(struct ring) % CACHELINE == 0 && INL_MAX < (1u << INL_LEN_BITS) &&
                       FT__SHM_BLOCK_TAG(3, 5) == ((3u << INL_LEN_BITS) | 5u) &&
                       INL_MAX == FT__SHM_BLOCK_MAX && INL_LINES == FT__SHM_BLOCK_LINES,
               "ring header layout");
/* each later line of the block begins with its tag; the block ends its last line */
#define INL_TAG_AT(l) \
	((offsetof(struct ring, inl) + INL_TAG(l) * sizeof(uint64_t)) % CACHELINE == 0)
_Static_assert(INL_TAG_AT(1) && INL_TAG_AT(INL_LINES - 1) &&
                       INL_TAG(INL_LINES - 1) + 1 + INL_LINE == INL_WORDS &&
                       offsetof(struct ring, tail) == INL_LINES * CACHELINE,
               "one tag a line of the head's block");
/* The tag of a publication of @len bytes (<= INL_MAX) at position @pos. */
static inline uint64_t
inl_tag_of(uint64_t pos, size_t len)
{
	return pos << INL_LEN_BITS | (uint64_t)len;
}

/* The length a tag (not INL_NONE) names. */
static inline size_t
inl_tag_len(uint64_t tag)
{
	return (size_t)(tag & ((1u << INL_LEN_BITS) - 1));
}

/* a side's flags share no line with the tail, nor with the head's block */
#define RING_LINE(f) (offsetof(struct ring, f) / CACHELINE)
_Static_assert(RING_LINE(quit) != RING_LINE(tail) && RING_LINE(rquit) != RING_LINE(tail),
               "quit flags off the tail's line");
/* (the block ends where the tail's line begins: asserted above) */
_Static_assert(RING_LINE(quit) >= RING_LINE(tail) && RING_LINE(rquit) >= RING_LINE(tail),
               "quit flags off the head's block");

/* ring copies are published in pieces this large (sender and receiver overlap) */
#define SHM_CHUNK (16 * 1024) /* 64 KiB and 256 KiB chunks measured slower */
/* ft_bench_cfg.shm_ring_bytes' range: a chunk or more, a power of two (ring_data masks) */
#define RING_BYTES_MIN 16384u
#define RING_BYTES_MAX (1u << 30)
#define CMA_MAGIC   0x66746d61636d6121ull
/* how long a waiting rank spins before it sleeps on its doorbell */
#define SPIN_S_OWN_CPU  2e-3
#define SPIN_S_SHARED   20e-6
/* What a spin that ends in progress saves a stream: a sleep on the doorbell and its wake-up. */
#define SHM_WAKE_S      25e-6

/*
 * What a message that may take either copy (two_ways) begins with in the
 * ring: its length and the sender's buffer for a single copy, or address 0
 * when its bytes follow in the ring. The sender chooses per message
 * (copy_choose), the receiver follows.
 */
struct cma_desc {
	uint64_t addr, len;
};

/*
 * Left to choose (--cma-min auto, the default), messages from
 * FT_SHM_CMA_AUTO_MIN (64 KiB; --cma-min auto:SIZE moves it) on take either
 * copy. A window of them larger than the 1 MiB ring (16 of 128 KiB in
 * bench/shm-bw.sh, 64 of 64 KiB by default) cannot pass through it unless
 * both ranks run at once; a single copy needs only the receiver, so on a
 * loaded host the window passes in one of its time slices rather than in
 * several turns of both. From 256 KiB to 64 KiB, alternated pairs on the
 * 2-CPU VM at load 12-17 (window 16) against the build before: faster in 8
 * of 10 pairs at 128 KiB (median ratio 1.70-1.96), in 10 of 16 at 64 KiB
 * (1.64), where five pairs of one build against itself read 0.65
 * (docs/internals/bench-log.md, "shm 64-256 KiB under load"). Below it the
 * kernel's copy loses: its fixed cost (the call, the page walk and pinning)
 * outweighs the second memcpy: one call on huge pages took 2.24 us of CPU
 * at 16 KiB where a memcpy took 0.26, 4.23 at 64 KiB against 1.44.
 * The crossover, measured with the sender woken only when it can help
 * (share_begin), at a load of 10-12 (medians of 5-7 alternated runs, window
 * 16): at 32 KiB the ring alone 2.24 GB/s and 5.7 us of CPU a message,
 * auto:32K 1.82 and 7.4; at 64 KiB the ring alone (auto:128K) 1.86 and
 * 11.0, auto:64K 2.29 and 9.1. A host where both ranks hold their CPUs
 * never stalls (ft__shm_copy_stalled) and keeps the pipeline, one
 * descriptor a message dearer.
 */
/*
 * The pipeline stalls when the sender finds the ring full for STALL_S or
 * more: a receiver that holds a CPU empties the whole 1 MiB ring in 35-135
 * us (30-7.8 GB/s, the pipelined and the kernel's copy measured here) and
 * one that lost its CPU is gone for a time slice of the process that took
 * it, 1-4 ms here. The copies then go single (one rank copies, whichever
 * holds a CPU) until the pipeline is tried again after probe_s: PROBE_MIN_S
 * at first, doubled up to PROBE_MAX_S each time a try delivered fewer bytes
 * a second, from its start to the end of its stall, than the single copies
 * before it (ft__shm_copy_stalled). A try is judged by its rate, not by how many
 * messages it passed before stalling: under load the two ranks share a
 * CPU-time slice often enough for a window of 1 MiB messages to pass
 * (about 1 ms), and a back-off reset by that sent the copies back to a
 * pipeline that then waited out every preemption.
 */
#define STALL_S     250e-6
#define PROBE_MIN_S 10e-3
#define PROBE_MAX_S 1.0
/* a try of the pipeline that does not stall is judged after this many bytes (ft__shm_copy_judge) */
#define TRY_BYTES   ((uint64_t)4 << 20)
/*
 * A single copy is read in pieces of SHARE_PIECE bytes, each claimed by
 * whichever rank gets to it first (share_claim): the receiver reads pieces
 * with process_vm_readv, and the sender, which would otherwise wait for the
 * receiver, writes pieces into the receiver's buffer with
 * process_vm_writev. Every byte is still copied once; with both ranks on a
 * CPU and the sender spinning the message goes at up to twice the kernel's
 * copy rate (a sender that naps and has claimed nothing by the end of a piece's
 * read leaves the receiver the rest: ft__shm_claim_rest), and with one
 * the message still moves. A piece costs a system call and the pinning of its
 * pages: 128 KiB is about 8 us of copying at the kernel's 16 GB/s here and
 * makes a 256 KiB message two pieces.
 */
#define SHARE_PIECE FT__SHM_SHARE_PIECE
#define SHARE_LOW   0xffffffffull

static int
shm_probe(const struct ft_bench_cfg *cfg, struct ft_error *err)
{
	return 0;
}

/*
 * Whether this CPU has PREFETCHW (CPUID 0x80000001, ECX bit 8): a load
 * that asks for the line in the exclusive state, as a store would, without
 * storing.
 */
static bool
has_prefetchw(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;

	return __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & (1u << 8));
#else
	return false;
#endif
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

/*
 * Map this rank's rings into its page tables now rather than inside a timed
 * loop: before the allgather that ends the open, so no data flows yet. A
 * latency run sends 1,000 small messages that never wrap a 4 MiB ring: each
 * one touched a new page, which read as 90 us at 4 KiB where 1 us is right.
 */
static void
prefault(struct shm_ep *ep)
{
	size_t off;
	uint32_t p;

	for (p = 0; p < ep->nranks && ep->prefault_bytes; p++) {
		volatile char *out, *in;

		if (p == ep->rank || (ep->prefault_pairs_only && (ep->rank > 1 || p > 1)))
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
			ep->bells = (struct shm_bell *)(void *)(ep->seg + ft__shm_align_up(
			        sizeof(struct shm_ctl) * w->nranks, CACHELINE));
			ep->rings = ep->seg + ep->rings_off;
			ep->bufs = ep->area_bytes ? ep->seg + ep->bufs_off : NULL;
		}
	}
	if (rc == 0 && ep->seg) {
		prefault(ep);
		ep->cma_probe = CMA_MAGIC ^ w->rank;
		ep->bells[w->rank].probe_addr = (uint64_t)(uintptr_t)&ep->cma_probe;
	}
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

	if (!ft_op_is_coll(cfg->pattern) || cfg->pattern == FT_OP_DEV_MEMCPY ||
	    !es || n < 2)
		return 0;
	ft__bench_bufsizes(cfg->pattern, (size_t)(cfg->max_bytes / es) + n, es, n, &sb, &rb);
	area = ft__shm_align_up(sb, SEG_ALIGN) + ft__shm_align_up(FT_MAX(sb, rb), SEG_ALIGN) + SEG_ALIGN;
	if (!limit || (uint64_t)area * n > limit)
		return 0;
	return area;
}

/*
 * Can every rank read and write every other's memory? Yama's ptrace_scope,
 * a seccomp filter or a kernel without CONFIG_CROSS_MEMORY_ATTACH say no;
 * every rank reads each peer's probe word and writes it back, and all must
 * succeed (the same decision on every rank, or the byte streams would not
 * match). Only asked when --cma-min turns the single copy on.
 */
static int
cma_check(struct ft_world *w, struct shm_ep *ep, struct ft_error *err)
{
	int ok = 1, *all, rc;
	uint32_t p, r;

	for (p = 0; p < ep->nranks && ok; p++) {
		uint64_t v = 0;
		struct iovec lv = { &v, sizeof(v) };
		struct iovec rv = { (void *)(uintptr_t)ep->bells[p].probe_addr, sizeof(v) };

		if (p == ep->rank)
			continue;
		ok = process_vm_readv((pid_t)w->info[p].pid, &lv, 1, &rv, 1, 0) ==
		             (ssize_t)sizeof(v) &&
		     v == (CMA_MAGIC ^ p);
		/* the sender writes pieces of single copies too (share_send): the word back */
		ok = ok && process_vm_writev((pid_t)w->info[p].pid, &lv, 1, &rv, 1, 0) ==
		                   (ssize_t)sizeof(v);
	}
	all = ft_calloc(w->nranks, sizeof(int));
	if (!all)
		return FT_ENOMEM;
	rc = ft__world_allgather(w, &ok, sizeof(ok), all, err);
	if (rc < 0) {
		ft_free(all);
		return rc;
	}
	ep->cma = true;
	for (r = 0; r < w->nranks; r++)
		ep->cma = ep->cma && all[r];
	ft_free(all);
	return 0;
}

/*
 * The largest cache of CPU 0 as sysfs describes it (cache/indexN/size, "32768K"),
 * else the C library's figure. sysfs first: in a VM the CPUID leaves the
 * library reads may describe the host's whole socket (384 MiB of L3 on the
 * EPYC VM where sysfs says 32 MiB).
 */
static size_t
cache_bytes(void)
{
	size_t best = 0;
	unsigned i;
	long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);

	for (i = 0; i < 8; i++) {
		char path[80], buf[32], *end;
		unsigned long long v;
		FILE *f;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%u/size", i);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f)) {
			v = strtoull(buf, &end, 10);
			v *= *end == 'K' ? 1024 : *end == 'M' ? 1024 * 1024 : 1;
			best = FT_MAX(best, (size_t)v);
		}
		fclose(f);
	}
	return best ? best : l3 > 0 ? (size_t)l3 : (size_t)32 << 20;
}

/*
 * From which message size the receiver bypasses the cache (RING_OUT_NT):
 * half the last-level cache, where a message and its destination no longer fit
 * in it beside the ring and the sender's source.
 */
size_t
ft__shm_nt_min(void)
{
	return cache_bytes() / 2;
}

/*
 * Are more threads runnable on this host than it has CPUs (/proc/loadavg's
 * fourth field, "runnable/total", at this moment)?
 */
static bool
host_oversubscribed(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long runnable = 0;
	FILE *f = fopen("/proc/loadavg", "r");

	if (!f)
		return false;
	if (fscanf(f, "%*s %*s %*s %lu/", &runnable) != 1)
		runnable = 0;
	fclose(f);
	return cpus > 0 && runnable > (unsigned long)cpus;
}

/*
 * The first choice of copy for each peer: single copies when the local
 * ranks cannot each hold a CPU (w->may_spin) or the host is oversubscribed,
 * the pipeline otherwise; what the run then shows decides (copy_choose).
 */
static void
copy_init(const struct ft_world *w, struct shm_ep *ep)
{
	bool busy = !w->may_spin || host_oversubscribed();
	double now = ft__now();
	uint32_t p;

	for (p = 0; p < ep->nranks; p++)
		ft__shm_copy_start(&ep->peers[p], busy, now);
}

/*
 * The choice of copy to @pp begins at @now: single copies (@single) or the
 * pipeline, the first try of the pipeline PROBE_MIN_S later.
 */
void
ft__shm_copy_start(struct shm_peer *pp, bool single, double now)
{
	pp->single = single;
	pp->probe_s = PROBE_MIN_S;
	pp->probe_at = now + PROBE_MIN_S;
	pp->run_t0 = now;
}

static void shm_abandon(struct ft_ep *base);
static bool shm_holds(struct ft_ep *base, const void *ptr, size_t len);

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
	/*
	 * 1 MiB rings: the chunks a sender writes are still in its L2 when the
	 * receiver reads them (4 MiB rings let the sender run ahead out of cache and
	 * halved the large-message rate here).
	 */
	/* a power of two (ring_data masks), above a chunk and the head's block */
	if (cfg->shm_ring_bytes &&
	    (cfg->shm_ring_bytes < RING_BYTES_MIN || cfg->shm_ring_bytes > RING_BYTES_MAX ||
	     (cfg->shm_ring_bytes & (cfg->shm_ring_bytes - 1)) != 0)) {
		ft_free(ep);
		return ft_error_set(err, FT_EINVAL,
		                    "shm_ring_bytes: %llu is not a power of two from %u to %u",
		                    (unsigned long long)cfg->shm_ring_bytes, RING_BYTES_MIN,
		                    RING_BYTES_MAX);
	}
	ep->ring_bytes = cfg->shm_ring_bytes ? (size_t)cfg->shm_ring_bytes : 1u << 20;
	ep->ring_stride = sizeof(struct ring) + ep->ring_bytes;
	ctl_bytes = ft__shm_align_up(ft__shm_align_up(sizeof(struct shm_ctl) * w->nranks, CACHELINE) +
	                             sizeof(struct shm_bell) * w->nranks,
	                     SEG_ALIGN);
	rings_bytes = ft__shm_align_up(ep->ring_stride * w->nranks * w->nranks, SEG_ALIGN);
	ep->area_bytes = area_bytes(cfg, w->nranks);
	ep->rings_off = ctl_bytes;
	ep->bufs_off = ctl_bytes + rings_bytes;
	ep->seg_bytes = ctl_bytes + rings_bytes + ep->area_bytes * w->nranks;
	/*
	 * The collectives' ring algorithms move about a message per pair and call;
	 * point-to-point sends thousands of messages between ranks 0 and 1.
	 */
	if (cfg->pattern == FT_OP_PT2PT_BW || cfg->pattern == FT_OP_PT2PT_LAT) {
		/* thousands of messages go round the whole ring, whatever their size */
		ep->prefault_pairs_only = true;
		ep->prefault_bytes = ep->ring_bytes;
	} else if (!ft_op_is_coll(cfg->pattern) && w->nranks <= 8) {
		ep->prefault_bytes = ep->ring_bytes;
	} else if (w->nranks <= 8) {
		ep->prefault_bytes = (size_t)FT_MIN((uint64_t)ep->ring_bytes, cfg->max_bytes);
	}
	ep->spin_s = w->may_spin ? SPIN_S_OWN_CPU : SPIN_S_SHARED;
	/* message buffers on huge pages: single copies pin them (coll.c, ft__ep_scratch) */
	ep->base.scratch_huge = true;
	ep->base.abandon = shm_abandon;
	ep->base.holds = shm_holds;
	/*
	 * Only a stream stops spinning when preemptions cost more than it
	 * saves: it sleeps once per window at most, while a ping-pong that
	 * slept read a p50 of 25-47 us beside a hog at a load of 12-14 (0.5-1.6
	 * spinning; Open MPI, which spins, 0.15-8).
	 */
	if (cfg->pattern == FT_OP_PT2PT_BW)
		ep->base.spin_wake_s = SHM_WAKE_S;
	ep->peers = ft_calloc(w->nranks, sizeof(*ep->peers));
	if (!ep->peers) {
		shm_close(&ep->base);
		return FT_ENOMEM;
	}
	/*
	 * Messages from cma_min bytes up take the single copy (0: none does). The single
	 * copy needs both sides to post the same lengths, and the collectives' ring
	 * algorithms send a block that the receiver takes in pieces: none there, nor with
	 * --cma-min off. A ping-pong has one message in flight, which needs both ranks
	 * whichever copy it takes: the pipelined copies were faster there (p50 at 1 MiB
	 * 79-85 us against 106-109 chosen per message, load 13-15), so it takes them
	 * unless --cma-min SIZE asks for single copies. Otherwise --cma-min SIZE, or with
	 * none given (auto) --cma-min auto:SIZE or FT_SHM_CMA_AUTO_MIN.
	 */
	ep->cma_auto = cfg->shm_cma_min_bytes == 0;
	/*
	 * The point-to-point patterns post every message with the same length on
	 * both sides (ring_pad needs it; ft__ep_recv); the others keep the byte
	 * stream, which any slicing reads right.
	 */
	ep->line_start = ft__op_point_to_point(cfg->pattern);
	if (ft_op_is_coll(cfg->pattern) || cfg->shm_cma_min_bytes == FT_SHM_CMA_OFF ||
	    (ep->cma_auto && cfg->pattern == FT_OP_PT2PT_LAT))
		ep->cma_min = 0;
	else if (ep->cma_auto)
		ep->cma_min = cfg->shm_cma_auto_bytes ?
		                      (size_t)FT_MIN(cfg->shm_cma_auto_bytes, (uint64_t)SIZE_MAX) :
		                      (size_t)FT_SHM_CMA_AUTO_MIN;
	else
		ep->cma_min = (size_t)FT_MIN(cfg->shm_cma_min_bytes, (uint64_t)SIZE_MAX);
	copy_init(w, ep);
	ep->nt_min = ft__shm_nt_min();
	ep->prefetchw = has_prefetchw();
	rc = shm_open_seg(w, ep, err);
	if (rc == 0 && ep->cma_min)
		rc = cma_check(w, ep, err);
	if (rc < 0) {
		shm_close(&ep->base);
		return rc;
	}

	*out = &ep->base;
	return 0;
}

/* Append @q to the queue @head..@tail of requests linked by next. */
static void
req_enqueue(struct ft_req **head, struct ft_req **tail, struct ft_req *q)
{
	q->next = NULL;
	if (*tail)
		(*tail)->next = q;
	else
		*head = q;
	*tail = q;
}

static int
shm_post(struct ft_ep *base, struct ft_req *req, bool send, struct ft_error *err)
{
	struct shm_ep *ep = ft_container_of(base, struct shm_ep, base);
	struct shm_peer *p;

	if (req->peer >= ep->nranks || req->peer == ep->rank)
		return ft_error_set(err, FT_EINVAL, "shm: bad peer rank %u", req->peer);
	p = &ep->peers[req->peer];
	if (p->lost)
		return ft__ep_lost(base, "shm", send, req->peer, err);
	req->done = req->len == 0;
	req->off = 0;
	req->priv[1] = 0; /* no descriptor sent or read yet */
	req->next = NULL;
	if (req->done)
		return 0;
	if (send)
		req_enqueue(&p->sq, &p->sq_tail, req);
	else
		req_enqueue(&p->rq, &p->rq_tail, req);
	return 0;
}

FT__TRANSPORT_POSTS(shm, shm_post)

/*
 * Which way ring_data copies. RING_OUT_NT reads out with non-temporal
 * stores (ft__shm_copy_stream): for messages larger than the cache can hold.
 */
enum ring_dir { RING_OUT = 0, RING_IN = 1, RING_OUT_NT = 2 };

/*
 * memcpy, but the destination written with non-temporal stores, which
 * bypass the cache: a plain store to a line not in cache first reads it
 * from memory (a read for ownership), and once the destination outgrows the
 * cache each line is then written back too, three trips to memory per byte
 * where this takes two. glibc's memcpy does the same above a size of its
 * own (about the last-level cache), which the ring's 16 KiB chunks never
 * reach, so a 64 MiB message copied out of the ring paid the read that a
 * single 64 MiB memcpy does not. The caller's next release store orders
 * these stores (the sfence at the end).
 */
void
ft__shm_copy_stream(char *d, const char *s, size_t n)
{
#if defined(__x86_64__)
	size_t head = (size_t)(-(uintptr_t)d & 15);

	if (head > n)
		head = n;
	memcpy(d, s, head);
	d += head;
	s += head;
	n -= head;
	for (; n >= 64; n -= 64, d += 64, s += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + 48));

		_mm_stream_si128((__m128i *)(void *)d, a);
		_mm_stream_si128((__m128i *)(void *)(d + 16), b);
		_mm_stream_si128((__m128i *)(void *)(d + 32), c);
		_mm_stream_si128((__m128i *)(void *)(d + 48), e);
	}
	memcpy(d, s, n);
	_mm_sfence();
#else
	memcpy(d, s, n);
#endif
}

/* Copy @len bytes into (or out of) ring data at position @pos, wrapping. */
static void
ring_data(struct shm_ep *ep, struct ring *r, uint64_t pos, char *buf, size_t len,
          enum ring_dir dir)
{
	char *data = (char *)(r + 1);
	/* ring_bytes is a power of two: a mask, not a division, on every message */
	size_t at = (size_t)pos & (ep->ring_bytes - 1), first = FT_MIN(len, ep->ring_bytes - at);

	if (dir == RING_IN) {
		memcpy(data + at, buf, first);
		if (len > first)
			memcpy(data, buf + first, len - first);
	} else if (dir == RING_OUT_NT) {
		ft__shm_copy_stream(buf, data + at, first);
		if (len > first)
			ft__shm_copy_stream(buf + first, data, len - first);
	} else {
		memcpy(buf, data + at, first);
		if (len > first)
			memcpy(buf + first, data, len - first);
	}
}

static inline void
prefetch_w(const void *p)
{
#if defined(__x86_64__)
	__asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
	(void)p;
#endif
}

/*
 * How many bytes of a publication of @len bytes at position @pos travel in
 * the head's block (ring_put): all of a small one; of a larger one, the
 * bytes up to the end of the cache line it starts in (none when it starts
 * a line). That line also holds the end of the publication before, which
 * the receiver read last: written into the ring before the head, it had to
 * come back from the receiver's cache before the head could be published,
 * where the lines after it are new ones that no other core holds. Messages
 * of 8 bytes leave every later position 32 bytes into a line
 * (bench/shm-lat.sh starts there), and 256 B read 0.89 us against 0.58 for
 * 128 B, 0.64 with the first line in the block (p50, -n 2000, load 10-11).
 * On the endpoints whose sides post the same lengths such a message
 * starts at the next line instead (ring_pad), so its first chunk puts
 * nothing here unless a nearly full ring cut it to INL_MAX (272) bytes or fewer,
 * which go into the block whole; a later chunk cut short by a full ring
 * may still start inside a line.
 */
static size_t
ring_split(uint64_t pos, size_t len)
{
	size_t into = (size_t)(pos % CACHELINE);

	if (len <= INL_MAX)
		return len;
	return into ? CACHELINE - into : 0;
}

/*
 * The bytes skipped before a message of @len bytes whose first byte would
 * sit at position @pos: on an endpoint whose two sides post the same
 * lengths in the same order (pt2pt_bw, pt2pt_lat, pairs, bisection and
 * incast: line_start), a
 * message past the head's block starts at the next cache line, so that
 * its lines in the ring are its own and none is shared with the message
 * before (which the receiver read last, and whose end the sender would
 * otherwise split into the block: ring_split). Both sides apply the rule
 * to the message's length at its first byte (q->off == 0), so the skipped
 * bytes need no marker; the collectives' endpoints take a message in other
 * slices than it was sent in and keep the byte stream. With the skip,
 * point-to-point messages of 256 B (then past the block), 512 B and 2 KiB
 * read 0.97x, 0.94x and 0.95x the p50 without it (docs/internals/bench-log.md, "a larger
 * point-to-point message starts a line").
 */
static size_t
ring_pad(const struct shm_ep *ep, uint64_t pos, const struct ft_req *q)
{
	if (!ep->line_start || q->off != 0 || q->len <= INL_MAX)
		return 0;
	return (size_t)(-pos & (CACHELINE - 1));
}

/*
 * Write @len bytes at position @pos, not yet published, into the head's
 * block (ring_split says how much goes there; the rest of a publication is
 * written into the ring first, ring_move). True says that their copy in
 * the ring is due once they are published: written first, its stores (to
 * lines no cache holds near the sender) held up the locked exchange that
 * publishes the head. The next block's "none" follows that copy behind a
 * release fence, so a receiver that finds the block rewritten finds the
 * ring's copy.
 *
 * The block's lines after the head's are asked for first (PREFETCHW),
 * then written last line first, each whole between its "none" and its
 * tag, and the head's line last: the receiver, which polls the head's
 * line, also loads the later lines a message it waits for needs
 * (move_recvs), so they reach it while it waits for the head's, where it
 * used to ask for them only once the head's line had said that a message
 * was there: a second line transfer after the first (a reading of the
 * layout, not counted), which was the step of the p50 from 32 B to 64 B
 * (the layout puts it at 48/49 B; 0.46 -> 0.59 us where Open MPI's stayed
 * at 0.44-0.47, load 19-25; docs/internals/bench-log.md).
 */
static size_t
inl_lines(size_t len)
{
	size_t words = (len + sizeof(uint64_t) - 1) / sizeof(uint64_t);

	return words <= INL_LINE0 ? 1 : 1 + (words - INL_LINE0 + INL_LINE - 1) / INL_LINE;
}

/* The first payload word that line @l of the block holds. */
static inline size_t
inl_line_first(size_t l)
{
	return l == 0 ? 0 : INL_LINE0 + (l - 1) * INL_LINE;
}

/* Where in inl line @l's first payload word is: past the line's tag. */
static inline size_t
inl_line_at(size_t l)
{
	return l == 0 ? 0 : INL_TAG(l) + 1;
}

/* The line of the block that holds payload word @i. */
static inline size_t
inl_line_of(size_t i)
{
	return i < INL_LINE0 ? 0 : 1 + (i - INL_LINE0) / INL_LINE;
}

/*
 * Payload words [@i, @end) of the block into @w (w[i] is word i): a
 * line's words lie side by side in inl, so each line is one run of loads,
 * its place in inl worked out once.
 */
static void
inl_get(struct ring *r, uint64_t *w, size_t i, size_t end)
{
	size_t l;

	if (end <= INL_LINE0) { /* the head's line alone, no tag before its words */
		for (; i < end; i++)
			w[i] = atomic_load_explicit(&r->inl[i], memory_order_relaxed);
		return;
	}
	for (l = inl_line_of(i); i < end; l++) {
		size_t first = inl_line_first(l), stop = first + (l ? INL_LINE : INL_LINE0);
		const _Atomic uint64_t *s = &r->inl[inl_line_at(l)] - first;

		for (stop = FT_MIN(stop, end); i < stop; i++)
			w[i] = atomic_load_explicit(&s[i], memory_order_relaxed);
	}
}

/* Payload words [@first, @end) of line @l of the block from @w (w[i] is word i). */
static inline void
inl_put_line(struct ring *r, size_t l, const uint64_t *w, size_t end)
{
	size_t i, first = inl_line_first(l);
	_Atomic uint64_t *d = &r->inl[inl_line_at(l)] - first;

	for (i = first; i < end; i++)
		atomic_store_explicit(&d[i], w[i], memory_order_relaxed);
}

static bool
ring_put(struct shm_ep *ep, struct ring *r, uint64_t pos, const char *buf, size_t len)
{
	uint64_t w[INL_WORDS], tag = inl_tag_of(pos, len);
	size_t l, lines, words;

	/*
	 * From 2^55 bytes through the ring a tag cannot hold the position
	 * (inl_tag_of): a receiver would find no tag naming its position and
	 * read the ring before this copy is written. So the ring only, before
	 * the head, from there on (21 days of one ring at 20 GB/s).
	 */
	if (len == 0 || len > INL_MAX || pos >> (64 - INL_LEN_BITS) != 0) {
		ring_data(ep, r, pos, (char *)buf, len, RING_IN);
		return false;
	}
	lines = inl_lines(len);
	words = (len + sizeof(uint64_t) - 1) / sizeof(uint64_t);
	for (l = 1; ep->prefetchw && l < lines; l++)
		prefetch_w(&r->inl[INL_TAG(l)]);
	/*
	 * The head's line with them: stores leave the store buffer in order,
	 * so its own request went out only once the later lines' stores had,
	 * a wait in line behind theirs (a reading: no cache counters here).
	 * With it, p50 0.96-0.99x at 64-256 B (bench/shm-lat.sh against the
	 * build without it, load 10-11), 0.95-1.01x in two other sittings; in
	 * the host's slow state 0.91-0.95x at 256 B where two copies of the
	 * build without it read 0.98-1.04 against each other, 0.97-1.00x at
	 * 64-128 B; in its fast state 0.89-0.93x at 64-128 B, 0.98-1.02x at
	 * 256 B (docs/internals/bench-log.md, "shm: the sender keeps its ring
	 * position", "shm: the sender's own position, read again").
	 */
	if (ep->prefetchw && lines > 1)
		prefetch_w(&r->inl_tag);
	w[words - 1] = 0;
	memcpy(w, buf, len);
	atomic_thread_fence(memory_order_release);
	for (l = lines; l-- > 1;) {
		atomic_store_explicit(&r->inl[INL_TAG(l)], INL_NONE, memory_order_relaxed);
		atomic_thread_fence(memory_order_release);
		inl_put_line(r, l, w, FT_MIN(words, inl_line_first(l + 1)));
		atomic_store_explicit(&r->inl[INL_TAG(l)], tag, memory_order_release);
	}
	atomic_store_explicit(&r->inl_tag, INL_NONE, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	inl_put_line(r, 0, w, FT_MIN(words, (size_t)INL_LINE0));
	atomic_store_explicit(&r->inl_tag, tag, memory_order_release);
	return true;
}

/*
 * Whether the later lines of the block that bytes [@lo, @hi) of the
 * publication tagged @tag (at position @at) need all carry that tag.
 */
static bool
inl_lines_hold(struct ring *r, uint64_t tag, uint64_t at, uint64_t hi, memory_order mo)
{
	size_t l, lines = inl_lines((size_t)(hi - at));

	for (l = 1; l < lines; l++)
		if (atomic_load_explicit(&r->inl[INL_TAG(l)], mo) != tag)
			return false;
	return true;
}

/*
 * Read @len published bytes at position @pos. The head's block holds the
 * last small publication (whose copy in the ring may not be written yet);
 * every byte before it, and the large publications after it, are in the
 * ring. When the sender rewrites the block during the copy, its copy in the
 * ring is there: read again. A later line of the block whose tag is not the
 * head's line's is being rewritten for a later publication (the sender
 * writes the later lines first), whose first store came after this one's
 * copy in the ring: the bytes are read there.
 */
static void
ring_get(struct shm_ep *ep, struct ring *r, uint64_t pos, char *buf, size_t len,
         enum ring_dir dir)
{
	for (;;) {
		uint64_t tag = atomic_load_explicit(&r->inl_tag, memory_order_acquire);
		uint64_t at = tag >> INL_LEN_BITS, end = at + inl_tag_len(tag), w[INL_WORDS];
		uint64_t lo = FT_MAX(pos, at), hi = FT_MIN(pos + len, end);

		if (tag == INL_NONE || hi <= lo ||
		    !inl_lines_hold(r, tag, at, hi, memory_order_acquire)) {
			ring_data(ep, r, pos, buf, len, dir);
			return;
		}
		inl_get(r, w, (size_t)(lo - at) / sizeof(uint64_t),
		        (size_t)(hi - at + sizeof(uint64_t) - 1) / sizeof(uint64_t));
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&r->inl_tag, memory_order_relaxed) != tag ||
		    !inl_lines_hold(r, tag, at, hi, memory_order_relaxed))
			continue;
		memcpy(buf + (lo - pos), (char *)w + (lo - at), (size_t)(hi - lo));
		if (lo > pos)
			ring_data(ep, r, pos, buf, (size_t)(lo - pos), dir);
		if (pos + len > hi)
			ring_data(ep, r, hi, buf + (hi - pos), (size_t)(pos + len - hi), dir);
		return;
	}
}

bool
ft__shm_peer_gone(const struct shm_ep *ep, uint32_t p)
{
	return kill((pid_t)ep->base.w->info[p].pid, 0) < 0 && errno == ESRCH;
}

/* Is a peer's process gone? Every peer with @all, else those with requests pending. */
int
ft__shm_check_peers(struct shm_ep *ep, bool all, struct ft_error *err)
{
	uint32_t p;

	for (p = 0; p < ep->nranks; p++) {
		char who[96];

		if (p == ep->rank || (!all && !ep->peers[p].sq && !ep->peers[p].rq))
			continue;
		if (ft__shm_peer_gone(ep, p))
			return ft_error_set(err, FT_EPEER, "%s is gone (its process exited)",
			                    ft__world_who(ep->base.w, p, who, sizeof(who)));
	}
	return 0;
}

static long
futex(_Atomic uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, (uint32_t *)(void *)addr, op, val, ts, NULL, 0);
}

/*
 * After publishing something rank @p waits for: wake it if it sleeps. The
 * publication is a seq_cst exchange (ft__shm_publish()), which pairs with the fence
 * in bell_sleep: one of the two sides sees the other's store. On x86 the
 * locked exchange is cheaper than a store followed by a fence. Chunks that
 * ring_move publishes before the last one of a call go out with a release
 * store and still ring a peer already seen asleep; the last one's exchange
 * covers a peer that fell asleep after them.
 */
void
ft__shm_bell_ring(struct shm_ep *ep, uint32_t p)
{
	struct shm_bell *b = &ep->bells[p];

	/*
	 * The first publication after @p fell asleep wakes it and takes its
	 * `sleeping` back: until @p runs again, the next ones need no system
	 * call. When that flag stayed up until the sleeper cleared it, a
	 * sender publishing 16 KiB chunks to a receiver that waited for a CPU
	 * made a FUTEX_WAKE per chunk: 77,194 of them to 1,303 sleeps for a
	 * GiB of 64 KiB messages (load 10). The load first, so that a rank
	 * that does not sleep costs its peers no exclusive access to its line.
	 */
	if (atomic_load_explicit(&b->sleeping, memory_order_seq_cst) &&
	    atomic_exchange_explicit(&b->sleeping, 0, memory_order_seq_cst)) {
		atomic_fetch_add_explicit(&b->bell, 1, memory_order_seq_cst);
		futex(&b->bell, FUTEX_WAKE, INT_MAX, NULL);
	}
}

static int
peer_sent_wrong(struct shm_ep *ep, uint32_t p, uint64_t got, size_t want, struct ft_error *err)
{
	char who[96];

	return ft_error_set(err, FT_EPEER,
	                    "shm: %s sent a %" PRIu64 "-byte message where %zu bytes were "
	                    "posted (do all ranks run the same command?)",
	                    ft__world_who(ep->base.w, p, who, sizeof(who)), got, want);
}

/*
 * May a message of @len bytes go as a single copy? Then it begins with a
 * descriptor. Single copies stop at nt_min: from there the pipelined
 * copies, which leave the ring through non-temporal stores, moved 64 MiB
 * messages 3x faster than process_vm_readv (whose copy uses plain stores
 * and pins every page).
 */
static bool
two_ways(const struct shm_ep *ep, size_t len)
{
	return ep->cma && len >= ep->cma_min && len < ep->nt_min;
}

/*
 * Which copy the next two-way message to @pp takes: always the single one
 * with --cma-min SIZE; left to choose, the single one after a stall
 * (ft__shm_copy_stalled) until the pipeline's next try.
 */
/*
 * The bytes a second that two-way messages to @pp were delivered at since
 * the current run of one copy began; a new run begins at @now.
 */
static double
copy_run_end(struct shm_peer *pp, double now)
{
	double dt = now - pp->run_t0;
	double rate = dt > 0 ? (double)pp->run_bytes / dt : 0;

	pp->run_t0 = now;
	pp->run_bytes = 0;
	return rate;
}

static bool
copy_choose(const struct shm_ep *ep, struct shm_peer *pp)
{
	if (!ep->cma_auto)
		return true;
	/* the clock is read only while single copies run */
	return pp->single && ft__shm_copy_try(pp, ft__now());
}

/*
 * Single copies run to @pp: at @now the back-off may have passed, and the
 * pipeline is tried (the single copies' rate kept to judge it by). True
 * while the copies stay single.
 */
bool
ft__shm_copy_try(struct shm_peer *pp, double now)
{
	if (pp->single && now >= pp->probe_at) {
		pp->single = false;
		pp->single_rate = copy_run_end(pp, now);
	}
	return pp->single;
}

/*
 * The pipeline to @pp, whose try delivered @rate bytes a second, gives way
 * to single copies at @now: the wait for the next try doubles when the try
 * was slower than the single copies before it, else it is PROBE_MIN_S.
 */
static void
copy_single(struct shm_peer *pp, double rate, double now)
{
	pp->single = true;
	pp->probe_s = rate < pp->single_rate ? FT_MIN(2 * pp->probe_s, PROBE_MAX_S) : PROBE_MIN_S;
	pp->probe_at = now + pp->probe_s;
}

/*
 * The ring to @pp, found full at stall_t0, has room again at @now: a stall
 * of STALL_S or more says the two ranks do not run at once, and the
 * copies go single. A try of the pipeline that delivered less a second
 * than the single copies before it (stall included) doubles the wait for
 * the next try; one that delivered more brings it back to PROBE_MIN_S.
 */
void
ft__shm_copy_stalled(struct shm_peer *pp, double now)
{
	double stall = now - pp->stall_t0;

	pp->stall_t0 = 0;
	if (stall < STALL_S)
		return;
	copy_single(pp, copy_run_end(pp, now), now);
}

/*
 * A try of the pipeline to @pp that has not stalled is judged as well, once
 * it has delivered TRY_BYTES since its start (or its last judgment): slower
 * than the single copies before it, and the copies go single again with
 * the wait doubled; not slower, and the pipeline is kept with the wait at
 * PROBE_MIN_S, judged again only after the next run of single copies. A
 * try is otherwise ended only by a stall, and a pipeline whose two ranks
 * kept their CPUs, but at a lower rate than the single copies, which one
 * rank or both share (share_recv), was kept for the rest of the run.
 */
void
ft__shm_copy_judge(struct shm_peer *pp, double now)
{
	double rate;

	if (pp->single || pp->single_rate <= 0 || pp->run_bytes < TRY_BYTES)
		return;
	rate = copy_run_end(pp, now);
	if (rate < pp->single_rate) {
		copy_single(pp, rate, now);
	} else {
		pp->probe_s = PROBE_MIN_S;
		pp->single_rate = 0;
	}
}

void
ft__shm_copies(const struct ft_ep *base, uint32_t peer, uint64_t out[2])
{
	const struct shm_ep *ep = ft_container_of(base, const struct shm_ep, base);

	out[0] = peer < ep->nranks ? ep->peers[peer].copies[0] : 0;
	out[1] = peer < ep->nranks ? ep->peers[peer].copies[1] : 0;
}

/* For the accessors below: the ring this rank sends to @peer through, NULL for none. */
static struct ring *
block_ring(const struct ft_ep *base, uint32_t peer)
{
	struct shm_ep *ep = (struct shm_ep *)ft_container_of(base, const struct shm_ep, base);

	return peer < ep->nranks && peer != ep->rank ? ring_at(ep, ep->rank, peer) : NULL;
}

void
ft__shm_block(const struct ft_ep *base, uint32_t peer, uint64_t *pos, size_t *len)
{
	struct ring *r = block_ring(base, peer);
	uint64_t tag = r ? atomic_load_explicit(&r->inl_tag, memory_order_acquire) : INL_NONE;

	*pos = tag == INL_NONE ? 0 : tag >> INL_LEN_BITS;
	*len = tag == INL_NONE ? 0 : inl_tag_len(tag);
}

uint64_t
ft__shm_head(const struct ft_ep *base, uint32_t peer)
{
	struct ring *r = block_ring(base, peer);

	return r ? atomic_load_explicit(&r->head, memory_order_acquire) : 0;
}

void
ft__shm_block_tags(const struct ft_ep *base, uint32_t peer, uint64_t tags[FT__SHM_BLOCK_LINES])
{
	struct ring *r = block_ring(base, peer);
	size_t l;

	tags[0] = r ? atomic_load_explicit(&r->inl_tag, memory_order_acquire) : INL_NONE;
	for (l = 1; l < INL_LINES; l++)
		tags[l] = r ? atomic_load_explicit(&r->inl[INL_TAG(l)], memory_order_acquire) :
		              INL_NONE;
}

void
ft__shm_block_scribble(struct ft_ep *base, uint32_t peer, unsigned line)
{
	struct ring *r = block_ring(base, peer);
	size_t i;

	if (!r || line < 1 || line >= INL_LINES)
		return;
	atomic_store_explicit(&r->inl[INL_TAG(line)], INL_NONE, memory_order_relaxed);
	for (i = 1; i <= INL_LINE; i++)
		atomic_store_explicit(&r->inl[INL_TAG(line) + i], 0xdeadbeefcafef00dull + i,
		                      memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
}

void
ft__shm_ring_scribble(struct ft_ep *base, uint32_t peer, uint64_t pos, size_t len)
{
	struct shm_ep *ep = ft_container_of(base, struct shm_ep, base);
	struct ring *r = block_ring(base, peer);
	char junk[64];

	if (!r)
		return;
	memset(junk, 0xa5, sizeof(junk));
	while (len > 0) {
		size_t n = FT_MIN(len, sizeof(junk));

		ring_data(ep, r, pos, junk, n, RING_IN);
		pos += n;
		len -= n;
	}
	atomic_thread_fence(memory_order_seq_cst);
}

void
ft__shm_head_scribble(struct ft_ep *base, uint32_t peer, uint64_t pos)
{
	struct ring *r = block_ring(base, peer);

	if (r)
		atomic_store_explicit(&r->head, pos, memory_order_seq_cst);
}

void
ft__shm_ring_origin(struct ft_ep *base, uint32_t peer, uint64_t pos)
{
	struct shm_ep *ep = ft_container_of(base, struct shm_ep, base);
	struct ring *r = block_ring(base, peer);

	if (!r)
		return;
	ep->peers[peer].tail_seen = pos;
	ep->peers[peer].head_sent = pos;
	atomic_store_explicit(&r->tail, pos, memory_order_relaxed);
	atomic_store_explicit(&r->head, pos, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
}

void
ft__shm_ring_lines(struct ft__shm_ring_lines *out)
{
	out->head = offsetof(struct ring, head) / CACHELINE;
	out->inl_tag = offsetof(struct ring, inl_tag) / CACHELINE;
	out->inl_first = offsetof(struct ring, inl) / CACHELINE;
	out->inl_last = (offsetof(struct ring, inl) + INL_WORDS * sizeof(uint64_t) - 1) / CACHELINE;
	out->tail = offsetof(struct ring, tail) / CACHELINE;
	out->cma_done = offsetof(struct ring, cma_done) / CACHELINE;
	out->share = offsetof(struct ring, share) / CACHELINE;
	out->share_dst = offsetof(struct ring, share_dst) / CACHELINE;
	out->share_done = offsetof(struct ring, share_done) / CACHELINE;
	out->quit = offsetof(struct ring, quit) / CACHELINE;
	out->rquit = offsetof(struct ring, rquit) / CACHELINE;
	out->nlines = sizeof(struct ring) / CACHELINE;
}

/*
 * The copy that messages of @len bytes to @peer took since @before (its
 * ft__shm_copies then), named in @out: "ring" (two copies through the
 * ring, in SHM_CHUNK pieces), "ring-nt" (the same, read out through
 * streaming stores, from nt_min), "single" (one copy by the kernel), or
 * "ring+single N%" with the share of single copies among them.
 */
void
ft__shm_path(const struct ft_ep *base, uint32_t peer, size_t len, const uint64_t before[2],
             char *out, size_t n)
{
	const struct shm_ep *ep = ft_container_of(base, const struct shm_ep, base);
	uint64_t now[2], ring, single;

	ft__shm_copies(base, peer, now);
	ring = now[0] - before[0];
	single = now[1] - before[1];
	if (!two_ways(ep, len) || single == 0)
		snprintf(out, n, "%s", len >= ep->nt_min ? "ring-nt" : "ring");
	else if (ring == 0)
		snprintf(out, n, "single");
	else
		snprintf(out, n, "ring+single %.0f%%", 100.0 * (double)single / (double)(ring + single));
}

void
ft__shm_pieces(const struct ft_ep *base, uint32_t peer, uint64_t pieces[2], uint64_t calls[2])
{
	const struct shm_ep *ep = ft_container_of(base, const struct shm_ep, base);
	const struct shm_peer *p = peer < ep->nranks ? &ep->peers[peer] : NULL;

	for (int i = 0; i < 2; i++) {
		pieces[i] = p ? p->pieces[i] : 0;
		if (calls)
			calls[i] = p ? p->calls[i] : 0;
	}
}

void
ft__shm_share_recv_off(struct ft_ep *base, bool off)
{
	ft_container_of(base, struct shm_ep, base)->share_recv_off = off;
}

void
ft__shm_late_store(struct ft_ep *base, void (*late)(struct ft_ep *ep, uint32_t peer))
{
	ft_container_of(base, struct shm_ep, base)->late_store = late;
}

void
ft__shm_claimed_hook(struct ft_ep *base,
                     void (*claimed)(struct ft_ep *ep, uint32_t peer, uint64_t num, size_t off))
{
	ft_container_of(base, struct shm_ep, base)->claimed = claimed;
}

double
ft__shm_probe_s(const struct ft_ep *base, uint32_t peer)
{
	const struct shm_ep *ep = ft_container_of(base, const struct shm_ep, base);

	return peer < ep->nranks ? ep->peers[peer].probe_s : 0;
}

/* Take the first request off the queue @head..@tail. */
static struct ft_req *
req_dequeue(struct ft_req **head, struct ft_req **tail)
{
	struct ft_req *q = *head;

	*head = q->next;
	if (!*head)
		*tail = NULL;
	q->next = NULL;
	return q;
}

static void
req_done(struct ft_req **head, struct ft_req **tail)
{
	req_dequeue(head, tail)->done = true;
}

/*
 * Chunks of @q through ring @r of peer @p from position @pos (@room bytes
 * free or filled), written into it (@in) or read out, each published at
 * @edge (the ring's head or tail) and rung. The number of chunks.
 */
static int
ring_move(struct shm_ep *ep, uint32_t p, struct ring *r, _Atomic uint64_t *edge, uint64_t pos,
          size_t room, struct ft_req *q, bool in)
{
	int moved = 0;
	size_t pad = ring_pad(ep, pos, q);

	/* the skipped bytes go with the message's first chunk, never alone */
	if (pad >= room)
		return 0;
	pos += pad;
	room -= pad;
	while (q->off < q->len && room > 0) {
		size_t n = FT_MIN(FT_MIN(room, q->len - q->off), (size_t)SHM_CHUNK);

		char *b = (char *)q->buf + q->off;
		/* the block takes what ring_split says, the ring the rest, before the head */
		size_t inl = in ? ring_split(pos, n) : 0;
		bool rest;

		if (inl < n && in)
			ring_data(ep, r, pos + inl, b + inl, n - inl, RING_IN);
		rest = inl > 0 && ring_put(ep, r, pos, b, inl);

		if (!in)
			ring_get(ep, r, pos, b, n, q->len >= ep->nt_min ? RING_OUT_NT : RING_OUT);
		pos += n;
		room -= n;
		q->off += n;
		/*
		 * Only the last chunk of the call is published with the seq_cst
		 * exchange that a sleeping peer's fence pairs with (bell_ring);
		 * the ones before it with a release store, which lets this rank
		 * go on copying the next chunk while the stores of this one
		 * drain. The locked exchange waited for them: 13 % of a 64 KiB
		 * stream's samples on the two ranks sat on the instruction after
		 * it. A peer already seen asleep is still rung at once. A
		 * release store may stay in the store buffer while the ring's
		 * load of `sleeping` goes ahead: the peer may then fall asleep
		 * without it, and only the last chunk's exchange and ring wake
		 * it. Tests make that order happen (late_store) and time it.
		 */
		if (q->off >= q->len || room == 0)
			ft__shm_publish(edge, pos);
		else if (!ep->late_store)
			atomic_store_explicit(edge, pos, memory_order_release);
		if (in)
			ep->peers[p].head_sent = pos;
		ft__shm_bell_ring(ep, p);
		if (q->off < q->len && room > 0 && ep->late_store) {
			ep->late_store(&ep->base, p);
			atomic_store_explicit(edge, pos, memory_order_release);
		}
		if (rest)
			ring_data(ep, r, pos - n, b, inl, RING_IN);
		moved++;
	}
	return moved;
}

/*
 * Copy @len bytes between @local and @p's memory at @remote: read them
 * (process_vm_readv) or, with @write, write them there (process_vm_writev).
 */
static int
cma_copy(struct shm_ep *ep, uint32_t p, char *local, uint64_t remote, size_t len, bool write,
         struct ft_error *err)
{
	pid_t pid = (pid_t)ep->base.w->info[p].pid;
	char who[96];
	size_t off = 0;

	while (off < len) {
		struct iovec lv = { local + off, len - off };
		struct iovec rv = { (void *)(uintptr_t)(remote + off), len - off };
		ssize_t n = write ? process_vm_writev(pid, &lv, 1, &rv, 1, 0) :
		                    process_vm_readv(pid, &lv, 1, &rv, 1, 0);

		if (n <= 0)
			return ft_error_set(err, FT_EPEER, "shm: %s %zu bytes %s %s failed: %s",
			                    write ? "writing" : "reading", len, write ? "to" : "from",
			                    ft__world_who(ep->base.w, p, who, sizeof(who)),
			                    n < 0 ? strerror(errno) : "nothing copied");
		off += (size_t)n;
	}
	return 0;
}

/*
 * Claim the next piece of single copy number @num (@len bytes) through
 * ring @r, or with @rest every piece not yet claimed: the offset of the
 * first, its bytes in @n; @len when every piece is claimed or @num is not
 * the copy being read.
 */
static size_t
share_claim(struct ring *r, uint64_t num, size_t len, bool rest, size_t *n)
{
	uint64_t w = atomic_load_explicit(&r->share, memory_order_acquire);
	uint64_t all = (len + SHARE_PIECE - 1) / SHARE_PIECE;

	for (;;) {
		uint64_t piece = w & SHARE_LOW, to = rest ? all : piece + 1;

		if (w >> 32 != (num & SHARE_LOW) || piece >= all)
			return len;
		if (atomic_compare_exchange_weak_explicit(&r->share, &w, w + (to - piece),
		                                          memory_order_acq_rel,
		                                          memory_order_acquire)) {
			*n = FT_MIN((size_t)(to * SHARE_PIECE), len) - (size_t)piece * SHARE_PIECE;
			return (size_t)piece * SHARE_PIECE;
		}
	}
}

/*
 * Whether the sender on ring @r gave up (its quit) with nothing left in
 * the ring after @tail: what it published came before its quit.
 */
static bool
sender_quit(struct ring *r, uint64_t tail)
{
	return atomic_load_explicit(&r->quit, memory_order_seq_cst) &&
	       atomic_load_explicit(&r->head, memory_order_acquire) == tail;
}

/* Receive @q from @p, of which @got bytes came, ends: the sender gave up on it. */
static int
peer_quit(struct shm_ep *ep, uint32_t p, const struct ft_req *q, uint64_t got,
          struct ft_error *err)
{
	char who[96];

	return ft_error_set(err, FT_EPEER,
	                    "shm: %s gave up on the messages it was sending: a receive of %zu "
	                    "bytes from it ends after %" PRIu64,
	                    ft__world_who(ep->base.w, p, who, sizeof(who)), q->len, got);
}

/*
 * The receiver begins single copy @q from @p's buffer at @addr: its number
 * (the copies read so far, plus one) and buffer go where the sender can
 * claim its pieces. A sender that sleeps is rung only when there is a
 * piece it could take while this rank reads the first one (share_wakes):
 * true when it was.
 */
static bool
share_begin(struct shm_ep *ep, uint32_t p, struct ring *r, struct ft_req *q, uint64_t addr)
{
	uint64_t num = atomic_load_explicit(&r->cma_done, memory_order_relaxed) + 1;

	q->priv[0] = addr;
	q->priv[1] = 2; /* a single copy under way */
	atomic_store_explicit(&r->share_done, 0, memory_order_relaxed);
	atomic_store_explicit(&r->share_dst, (uint64_t)(uintptr_t)q->buf, memory_order_relaxed);
	ft__shm_publish(&r->share, (num & SHARE_LOW) << 32);
	if (!ft__shm_share_wakes(q->len, SHARE_PIECE, ep->share_recv_off))
		return false;
	ft__shm_bell_ring(ep, p);
	return true;
}

/*
 * Whether the receiver of a single copy of @len bytes, in pieces of
 * @piece, rings its sender when it begins it: when the copy has a second
 * piece, or when the receiver takes none (@recv_off, tests). A copy of one
 * piece is read by the receiver, which begins it and claims that piece
 * next, while it holds its CPU: a sender woken for it finds nothing to
 * take and goes back to sleep. That wake and the sleep after it were 1.18
 * futex calls a message in a stream of 64 KiB single copies (strace -c,
 * --cma-min 64K, window 16), two system calls and a cross-CPU interrupt
 * for nothing; the sender is still rung once the receiver has no more
 * copies to read (move_recvs), which ends its requests.
 */
bool
ft__shm_share_wakes(size_t len, size_t piece, bool recv_off)
{
	return recv_off || len > piece;
}

/*
 * The receiver claims the first piece of a copy alone, so that a sender
 * rung at the begin (share_begin) or spinning can take the next. After
 * every piece it reads (not only the first), it asks here: if the sender
 * has claimed nothing since (the next piece unclaimed is the one right
 * after the receiver's), it is off its CPU or has not woken yet, and the
 * receiver claims every piece left in one claim and reads them in one
 * process_vm_readv. Each call costs
 * about 2 us of CPU before it copies a byte (the entry, the walk of the
 * sender's page tables, the pinning: "The fixed cost of a single copy" in
 * docs/internals/bench.md); a 1 MiB copy that the receiver read alone took
 * 8 calls, and now takes 2. Within one call the kernel pins and copies
 * the range in batches of its own, up to PVM_MAX_KMALLOC_PAGES / sizeof a
 * page pointer (1,024 pages = 4 MiB with 4 KiB pages) at a time
 * (torvalds/linux v6.6, mm/process_vm_access.c, process_vm_rw_single_vec),
 * so one call of 896 KiB does the work of seven without their entries,
 * task and mm look-ups and access checks.
 */
bool
ft__shm_claim_rest(uint64_t next, size_t end, size_t piece)
{
	return piece > 0 && end > 0 && next * piece == end;
}

/*
 * The receiver's side of single copy @q from @p: read the pieces nobody
 * has claimed yet. 1 once every byte is in (some written by the sender), 0
 * while the sender still copies one, or a negative error.
 */
static int
share_recv(struct shm_ep *ep, uint32_t p, struct ring *r, struct ft_req *q, struct ft_error *err)
{
	uint64_t num = atomic_load_explicit(&r->cma_done, memory_order_relaxed) + 1;
	/* seq_cst: after share_begin's publication: a sender that quit sees it or is seen */
	bool quit = atomic_load_explicit(&r->quit, memory_order_seq_cst) != 0;
	struct ft_error read_err = { 0 };
	bool rest = false;
	uint64_t got;
	size_t off, n = 0;
	int rc;

	while (!quit && !ep->share_recv_off &&
	       (off = share_claim(r, num, q->len, rest, &n)) < q->len) {
		if (ep->claimed)
			ep->claimed(&ep->base, p, num, off);
		rc = cma_copy(ep, p, (char *)q->buf + off, q->priv[0] + off, n, false, &read_err);
		/*
		 * A sender that gave up keeps the buffer of every piece claimed
		 * before its quit (share_retract), so a read that fails despite
		 * that (the sender's process gone after its hold ran out) is its
		 * giving up: that, not "Bad address" or "No such process", is
		 * what is reported.
		 */
		if (rc < 0 && atomic_load_explicit(&r->quit, memory_order_seq_cst))
			return peer_quit(ep, p, q,
			                 atomic_load_explicit(&r->share_done, memory_order_acquire),
			                 err);
		if (rc < 0)
			return ft_error_set(err, rc, "%s", read_err.msg);
		atomic_fetch_add_explicit(&r->share_done, n, memory_order_relaxed);
		ep->peers[p].pieces[0] += (n + SHARE_PIECE - 1) / SHARE_PIECE;
		ep->peers[p].calls[0]++;
		/* after every piece read: the sender took none meanwhile? the rest in one call */
		rest = ft__shm_claim_rest(atomic_load_explicit(&r->share, memory_order_relaxed) &
		                          SHARE_LOW, off + n, SHARE_PIECE);
	}
	/* acquire: the sender's pieces, written before its additions (and its quit), are in */
	got = atomic_load_explicit(&r->share_done, memory_order_acquire);
	if (got >= q->len)
		return 1;
	return quit ? peer_quit(ep, p, q, got, err) : 0;
}

/*
 * The sender's side: rather than wait for the receiver, copy the pieces of
 * the oldest single copy to @p (the one the receiver reads, once it has
 * begun) that nobody has claimed, into the receiver's buffer. The pieces
 * copied, or a negative error.
 */
static int
share_send(struct shm_ep *ep, uint32_t p, struct ring *r, struct ft_error *err)
{
	struct ft_req *q = ep->peers[p].cq;
	size_t off, n;
	int moved = 0, rc;

	while ((off = share_claim(r, q->priv[0], q->len, false, &n)) < q->len) {
		/* still this copy's: it cannot end while a claimed piece is unwritten */
		uint64_t dst = atomic_load_explicit(&r->share_dst, memory_order_relaxed);

		rc = cma_copy(ep, p, (char *)q->buf + off, dst + off, n, true, err);
		if (rc < 0)
			return rc;
		/* seq_cst: a publication the receiver may sleep on (ft__shm_bell_ring) */
		atomic_fetch_add_explicit(&r->share_done, n, memory_order_seq_cst);
		ft__shm_bell_ring(ep, p);
		ep->peers[p].pieces[1]++;
		ep->peers[p].calls[1]++;
		moved++;
	}
	return moved;
}

/*
 * @q, a send to @p or a receive from it, cannot end: @p gave up on what it
 * was receiving from this rank (its rquit), and takes and sends nothing
 * more to it (shm_post refuses a peer whose requests it dropped).
 */
static int
receiver_quit(struct shm_ep *ep, uint32_t p, const struct ft_req *q, bool send,
              struct ft_error *err)
{
	char who[96];

	return ft_error_set(err, FT_EPEER,
	                    "shm: %s gave up on the messages it was receiving: a %s of %zu "
	                    "bytes %s it cannot end",
	                    ft__world_who(ep->base.w, p, who, sizeof(who)), send ? "send" : "receive",
	                    q->len, send ? "to" : "from");
}

/*
 * Write the descriptor of two-way message @q to @p at @head (copy_choose).
 * True when it goes as a single copy: it then waits on cq for the receiver.
 */
static bool
send_desc(struct shm_ep *ep, uint32_t p, struct ring *r, uint64_t head, struct ft_req *q)
{
	struct shm_peer *pp = &ep->peers[p];
	bool single = copy_choose(ep, pp);
	struct cma_desc d = { single ? (uint64_t)(uintptr_t)q->buf : 0, q->len };
	bool rest = ring_put(ep, r, head, (char *)&d, sizeof(d));

	ft__shm_publish(&r->head, head + sizeof(d));
	pp->head_sent = head + sizeof(d);
	ft__shm_bell_ring(ep, p);
	if (rest)
		ring_data(ep, r, head, (char *)&d, sizeof(d), RING_IN);
	q->priv[1] = 1;
	pp->copies[single]++;
	if (!single)
		return false;
	q->priv[0] = ++pp->cma_sent;
	req_enqueue(&pp->cq, &pp->cq_tail, req_dequeue(&pp->sq, &pp->sq_tail));
	return true;
}

/*
 * The sender's position is its own (shm_peer.head_sent), not read back
 * from the ring's head: that word sits in the line its receiver polls and
 * had just read. Counted from the code: a message of up to 48 bytes cost
 * its sender a load of that line, then its stores to it; now the stores
 * alone, one load of a line the peer holds less on either side of a round
 * trip. By our reading (no cache counters here) the load had to fetch the
 * line back from the receiver's cache before the stores asked for it
 * again, two coherence round trips in a row where one suffices. Open
 * MPI's fast box keeps its write position in the sender's endpoint
 * (open-mpi/ompi, opal/mca/btl/sm/btl_sm_fbox.h, mca_btl_sm_fbox_sendi:
 * ep->fbox_out.end), so its sender only writes the box's lines. p50
 * 0.64-0.66x the build before at 8-32 B (0.48 -> 0.31 us), 0.78-0.87x at
 * 64-256 B, 0.87-0.94x at 512 B-2 KiB in the host's slow state, 0.80-0.95x
 * at 8 B-2 KiB in its fast one (docs/internals/bench.md, "The sender does
 * not read its own head"). test_shm_head_own writes another
 * position into the shared head between two sends and checks that the
 * second goes where the sender's own count puts it.
 *
 * Sends to @p: descriptors for single copies, chunks through the ring
 * otherwise. A two-way message left unfinished with the ring full starts
 * a stall, which ends when the ring has room again (ft__shm_copy_stalled).
 */
static int
move_sends(struct shm_ep *ep, uint32_t p, struct ft_error *err)
{
	struct shm_peer *pp = &ep->peers[p];
	struct ring *r = ring_at(ep, ep->rank, p);
	int moved = 0;

	while (pp->cq) {
		if (atomic_load_explicit(&r->cma_done, memory_order_acquire) < pp->cq->priv[0]) {
			int rc = share_send(ep, p, r, err);

			if (rc <= 0) {
				if (rc < 0)
					return rc;
				break;
			}
			moved += rc;
			continue;
		}
		pp->run_bytes += pp->cq->len;
		req_done(&pp->cq, &pp->cq_tail);
		moved++;
	}
	while (pp->sq) {
		struct ft_req *q = pp->sq;
		bool two = two_ways(ep, q->len), desc = two && q->priv[1] == 0;
		uint64_t head = pp->head_sent; /* its own count, not the shared line (above) */
		size_t space = ep->ring_bytes - (size_t)(head - pp->tail_seen), want;

		/* a message's first chunk brings the bytes it skips to a line (ring_pad) */
		want = desc ? sizeof(struct cma_desc) : q->len - q->off + ring_pad(ep, head, q);
		if (space < want) {
			pp->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
			space = ep->ring_bytes - (size_t)(head - pp->tail_seen);
		}
		if (desc) {
			if (space < sizeof(struct cma_desc))
				break;
			moved++;
			if (send_desc(ep, p, r, head, q))
				continue;
			head += sizeof(struct cma_desc);
			space -= sizeof(struct cma_desc);
		}
		if (pp->stall_t0 > 0 && space > 0)
			ft__shm_copy_stalled(pp, ft__now());
		moved += ring_move(ep, p, r, &r->head, head, space, q, true);
		if (q->off < q->len) {
			if (two && ep->cma_auto && pp->stall_t0 == 0)
				pp->stall_t0 = ft__now();
			break;
		}
		if (two) {
			pp->run_bytes += q->len;
			if (ep->cma_auto)
				ft__shm_copy_judge(pp, ft__now());
		}
		req_done(&pp->sq, &pp->sq_tail);
	}
	/* stuck (a full ring, a single copy unread) on a receiver that gave up */
	if (moved == 0 && (pp->sq || pp->cq) &&
	    atomic_load_explicit(&r->rquit, memory_order_acquire))
		return receiver_quit(ep, p, pp->cq ? pp->cq : pp->sq, true, err);
	return moved;
}

/*
 * An empty poll for a publication of which @inl bytes will ride in the
 * head's block: ask for the block's later lines those bytes need, which
 * the sender writes whole before the head's line (ring_put), so that they
 * are here when the head's line says the publication is (a reading of
 * the layout and the figures: no cache counters were at hand). Polling
 * them while the sender wrote them between its stores to the head's line
 * read, by the same reading, as a transfer more (p50 1.16-1.20x the
 * build without the prefetch at 64-128 B); written whole before it,
 * 0.78-0.81x the build before (docs/internals/bench-log.md).
 */
static inline void
inl_poll(struct ring *r, size_t inl)
{
	size_t l, lines = inl_lines(inl);

	for (l = 1; l < lines; l++)
		__builtin_prefetch(&r->inl[INL_TAG(l)], 0, 3);
}

/*
 * Receives from @p: a two-way message's descriptor first, then its single
 * copy straight from the sender (share_recv), or its chunks out of the ring
 * as every other message's. A sender waiting on single copies is rung once
 * this rank has no more of them to read now, not after each (a wake-up
 * costs the receiver a system call and an interrupt to the sender's CPU),
 * or when the next one begins (share_begin).
 */
static int
move_recvs(struct shm_ep *ep, uint32_t p, struct ft_error *err)
{
	struct shm_peer *pp = &ep->peers[p];
	struct ring *r = ring_at(ep, p, ep->rank);
	bool owe_bell = false;
	int moved = 0, rc = 0;

	while (pp->rq) {
		struct ft_req *q = pp->rq;
		uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
		uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
		size_t avail = (size_t)(head - tail);

		if (avail == 0 && q->len - q->off > INL_LINE0 * sizeof(uint64_t) &&
		    q->priv[1] == 0 && !two_ways(ep, q->len) && ring_pad(ep, tail, q) == 0)
			inl_poll(r, ring_split(tail, FT_MIN(q->len - q->off, (size_t)SHM_CHUNK)));
		if (avail == 0 && q->priv[1] != 2 && sender_quit(r, tail)) {
			rc = peer_quit(ep, p, q, q->off, err);
			break;
		}
		/* nothing left from a peer that gave up receiving from this rank: nothing more comes */
		if (avail == 0 && q->priv[1] != 2 &&
		    atomic_load_explicit(&ring_at(ep, ep->rank, p)->rquit, memory_order_seq_cst) &&
		    atomic_load_explicit(&r->head, memory_order_acquire) == tail) {
			rc = receiver_quit(ep, p, q, false, err);
			break;
		}
		if (two_ways(ep, q->len) && q->priv[1] == 0) {
			struct cma_desc d;

			if (avail < sizeof(d))
				break;
			ring_get(ep, r, tail, (char *)&d, sizeof(d), RING_OUT);
			if (d.len != q->len)
				return peer_sent_wrong(ep, p, d.len, q->len, err);
			q->priv[1] = 1;
			moved++;
			tail += sizeof(d);
			avail -= sizeof(d);
			ft__shm_publish(&r->tail, tail);
			if (d.addr != 0 && share_begin(ep, p, r, q, d.addr))
				owe_bell = false;
		}
		if (q->priv[1] == 2) {
			rc = share_recv(ep, p, r, q, err);
			if (rc <= 0)
				break;
			atomic_fetch_add_explicit(&r->cma_done, 1, memory_order_seq_cst);
			owe_bell = true;
			req_done(&pp->rq, &pp->rq_tail);
			moved++;
			continue;
		}
		moved += ring_move(ep, p, r, &r->tail, tail, avail, q, false);
		if (q->off < q->len)
			break;
		req_done(&pp->rq, &pp->rq_tail);
	}
	if (owe_bell)
		ft__shm_bell_ring(ep, p);
	return rc < 0 ? rc : moved;
}

static int
move_all(struct shm_ep *ep, struct ft_error *err)
{
	int moved = 0, rc;
	uint32_t p;

	for (p = 0; p < ep->nranks; p++) {
		struct shm_peer *pp = &ep->peers[p];

		if (pp->sq || pp->cq) {
			rc = move_sends(ep, p, err);
			if (rc < 0)
				return rc;
			moved += rc;
		}
		if (pp->rq) {
			rc = move_recvs(ep, p, err);
			if (rc < 0)
				return rc;
			moved += rc;
		}
	}
	return moved;
}

/*
 * Nothing to do: sleep on this rank's doorbell for up to @timeout_ms, unless
 * @ready (a last look, after announcing the sleep) finds work. A peer that
 * publishes while `sleeping` is set takes it down and rings (bell_ring);
 * found down before the wait, it was rung for something @ready did not
 * wait for, and the caller looks again rather than sleep with the flag
 * down, where the publication it waits for would ring nobody.
 */
int
ft__shm_bell_sleep(struct shm_ep *ep, int timeout_ms, int (*ready)(struct shm_ep *, void *,
                                                           struct ft_error *),
           void *ud, struct ft_error *err)
{
	struct shm_bell *b = &ep->bells[ep->rank];
	struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };
	uint32_t v;
	int rc;

	atomic_store_explicit(&b->sleeping, 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_seq_cst);
	v = atomic_load_explicit(&b->bell, memory_order_acquire);
	rc = ready(ep, ud, err);
	if (rc == 0 && atomic_load_explicit(&b->sleeping, memory_order_acquire))
		futex(&b->bell, FUTEX_WAIT, v, &ts);
	atomic_store_explicit(&b->sleeping, 0, memory_order_relaxed);
	return rc;
}

static int
ready_moves(struct shm_ep *ep, void *ud, struct ft_error *err)
{
	return move_all(ep, err);
}

/*
 * A spin that began at @t0 is over: its budget is spent, or, in a stream
 * (spin_wake_s set), preemptions found in it (ft__spin_check, @prev its
 * last clock read) ended spinning for the run, after which waits spin only
 * SPIN_S_SHARED.
 */
bool
ft__shm_spin_over(struct shm_ep *ep, double *prev, double t0)
{
	double now = ft__now();

	if (ep->base.spin_wake_s > 0 && ft__spin_check(&ep->base, prev, now) &&
	    !ep->base.w->may_spin)
		ep->spin_s = SPIN_S_SHARED;
	return now - t0 >= ep->spin_s;
}

/* A spin ended in progress: its last stretch is looked at too, as in ft__ep_wait. */
void
ft__shm_spin_paid(struct shm_ep *ep, double *prev)
{
	if (ep->base.spin_wake_s <= 0 || !ep->base.w->may_spin)
		return; /* no clock read on a ping-pong's path */
	ft__spin_check(&ep->base, prev, ft__now());
	if (!ep->base.w->may_spin)
		ep->spin_s = SPIN_S_SHARED;
	ft__spin_paid(&ep->base);
}

/* The ring of a single copy with @p: its to this rank (@dir SHM_HOLD_RECV) or this rank's to it. */
static struct ring *
hold_ring(struct shm_ep *ep, uint32_t p, int dir)
{
	return dir == SHM_HOLD_RECV ? ring_at(ep, p, ep->rank) : ring_at(ep, ep->rank, p);
}

/*
 * This rank gives up on single copy number @num, @q, with @p (@dir: as its
 * receiver or its sender) while it may be under way: every piece not yet
 * claimed is claimed at once, so that the peer takes no more of them, and
 * the bytes of those claimed so far are what the copy must reach before
 * the peer stops using @q's buffer (this rank's own pieces are done: it
 * copies each claim, of one piece or, as receiver, of the whole rest,
 * before it claims again). A copy the receiver has not begun
 * has no piece claimed: its receiver finds the sender's quit first
 * (share_recv).
 */
static void
share_retract(struct shm_ep *ep, uint32_t p, int dir, const struct ft_req *q, uint64_t num)
{
	struct ring *r = hold_ring(ep, p, dir);
	/* seq_cst: after the sender's quit, as the receiver's begin is before its look at it */
	uint64_t w = atomic_load_explicit(&r->share, memory_order_seq_cst);
	uint64_t all = (q->len + SHARE_PIECE - 1) / SHARE_PIECE;

	num &= SHARE_LOW;
	do {
		if (w >> 32 != num)
			return;
		if ((w & SHARE_LOW) >= all)
			break;
	} while (!atomic_compare_exchange_weak_explicit(&r->share, &w, (num << 32) | all,
	                                                memory_order_seq_cst,
	                                                memory_order_seq_cst));
	ep->peers[p].hold[dir].buf = q->buf;
	ep->peers[p].hold[dir].len = q->len;
	ep->peers[p].hold[dir].claimed = FT_MIN((w & SHARE_LOW) * SHARE_PIECE, (uint64_t)q->len);
}

/*
 * Whether peer @p may still use the buffer of a single copy given up on
 * (@dir), dropping the hold once it cannot: the copy's bytes reached what
 * was claimed, the sender gave up as well (it writes nothing after its
 * quit), or the peer's process is gone.
 */
static bool
share_held(struct shm_ep *ep, uint32_t p, int dir)
{
	struct shm_hold *h = &ep->peers[p].hold[dir];
	struct ring *r = hold_ring(ep, p, dir);

	if (!h->buf)
		return false;
	if (atomic_load_explicit(&r->share_done, memory_order_acquire) >= h->claimed ||
	    (dir == SHM_HOLD_RECV && atomic_load_explicit(&r->quit, memory_order_acquire)) ||
	    ft__shm_peer_gone(ep, p))
		h->buf = NULL;
	return h->buf != NULL;
}

/*
 * This rank gives up on what it sends to @p: the receiver is told (quit)
 * before the copy it may be reading is retracted, so that it either sees
 * the quit before it claims a piece of a buffer freed next, or has begun,
 * and then the pieces it claimed are waited for (share_retract).
 *
 * The copy being read need not be the oldest in cq: the receiver ends a
 * copy (cma_done) and begins the next one (share_begin) without this
 * rank, which pops a copy from cq only when it next moves its sends. A
 * sender that gave up between the two, with a window of single copies
 * described, found the oldest one read, took the one under way for none
 * of its own, and freed the buffer whose pieces the receiver was reading
 * ("reading 131072 bytes from rank 0 failed: Bad address"). Every copy in
 * cq is therefore retracted: the one whose number the receiver published
 * is held, the others, not begun, cannot be (their receiver sees the quit
 * first, share_recv).
 */
static void
send_quit(struct shm_ep *ep, uint32_t p)
{
	struct shm_peer *pp = &ep->peers[p];
	struct ring *r = ring_at(ep, ep->rank, p);
	struct ft_req *q;

	ft__shm_publish(&r->quit, 1);
	ft__shm_bell_ring(ep, p);
	for (q = pp->cq; q; q = q->next)
		share_retract(ep, p, SHM_HOLD_SEND, q, q->priv[0]);
}

/*
 * The caller gave up on what it posted and frees the buffers and requests
 * next. The queues hold the struct ft_req, so they are dropped: no later
 * progress touches them, and a peer whose queues had some is out of step
 * (part of a message in its ring) and takes no more messages. A single
 * copy under way is what another process may still do with this one's
 * memory: its sender writes pieces into the receive buffer with
 * process_vm_writev, its receiver reads pieces of the send buffer with
 * process_vm_readv. It is retracted (and a receiver told that the sender
 * quit, so that it ends its receive with an error rather than read a
 * freed buffer; a sender stuck on a receiver that gave up is told the same
 * way, by rquit), and waited for up to SHM_ABANDON_S. A sender that gives
 * up after its receiver claimed the rest waits for that whole read (up to
 * the message's length in one process_vm_readv), not one piece; a claim
 * still unfinished then (a peer stopped in the middle of it) keeps the buffer
 * held (shm_holds), never freed while it is.
 */
#define SHM_ABANDON_S 0.2

static void
shm_abandon(struct ft_ep *base)
{
	struct shm_ep *ep = ft_container_of(base, struct shm_ep, base);
	double end = ft__now() + SHM_ABANDON_S;
	bool busy = true;
	uint32_t p;

	for (p = 0; p < ep->nranks; p++) {
		struct shm_peer *pp = &ep->peers[p];
		struct ring *r = ring_at(ep, p, ep->rank);

		if (ep->cma && pp->rq && pp->rq->priv[1] == 2)
			share_retract(ep, p, SHM_HOLD_RECV, pp->rq,
			              atomic_load_explicit(&r->cma_done, memory_order_relaxed) + 1);
		if (pp->sq || pp->cq)
			send_quit(ep, p);
		if (pp->rq) {
			ft__shm_publish(&r->rquit, 1);
			ft__shm_bell_ring(ep, p);
		}
		pp->lost = pp->lost || pp->sq || pp->rq || pp->cq;
		pp->sq = pp->sq_tail = pp->rq = pp->rq_tail = pp->cq = pp->cq_tail = NULL;
	}
	while (busy && ft__now() < end) {
		busy = false;
		for (p = 0; p < ep->nranks; p++) {
			/* both asked: each drops its hold once the peer is done with it */
			bool held_recv = share_held(ep, p, SHM_HOLD_RECV);
			bool held_send = share_held(ep, p, SHM_HOLD_SEND);

			busy = busy || held_recv || held_send;
		}
		if (busy)
			ft__cpu_relax();
	}
}

static bool
shm_holds(struct ft_ep *base, const void *ptr, size_t len)
{
	struct shm_ep *ep = ft_container_of(base, struct shm_ep, base);
	uint32_t p;
	int dir;

	for (p = 0; p < ep->nranks; p++)
		for (dir = SHM_HOLD_RECV; dir <= SHM_HOLD_SEND; dir++)
			if (share_held(ep, p, dir) && ft__overlaps(ep->peers[p].hold[dir].buf,
			                                           ep->peers[p].hold[dir].len, ptr,
			                                           len))
				return true;
	return false;
}

/*
 * Look for a peer gone, then at the rings: a peer whose process is gone
 * published before it went all it ever will, a quit included, so the look
 * that follows sees it, and a peer that gave up is named for that, not
 * found gone (it may give up, ring this rank and exit while this rank
 * waits for a CPU between its wake-up and its look). Progress, its error,
 * or the gone peer's.
 */
static int
check_then_move(struct shm_ep *ep, struct ft_error *err)
{
	struct ft_error gone_err = { 0 };
	int gone = ft__shm_check_peers(ep, false, &gone_err);
	int moved = move_all(ep, err);

	if (moved != 0 || gone == 0)
		return moved;
	return ft_error_set(err, gone, "%s", gone_err.msg);
}

static int
shm_progress(struct ft_ep *base, int timeout_ms, struct ft_error *err)
{
	struct shm_ep *ep = ft_container_of(base, struct shm_ep, base);
	double t0, prev;
	unsigned i;
	int moved = move_all(ep, err);

	if (moved != 0 || timeout_ms <= 0)
		return moved;
	/* Idle: spin while a reply is likely near and the CPU is ours, then sleep. */
	t0 = prev = ft__now();
	for (i = 1;; i++) {
		/* a pause every few polls only: each one delays seeing the peer's data */
		if ((i & 63) == 0)
			ft__cpu_relax();
		moved = move_all(ep, err);
		if (moved != 0) {
			ft__shm_spin_paid(ep, &prev);
			return moved;
		}
		if ((i & 63) == 0 && ft__shm_spin_over(ep, &prev, t0))
			break;
	}
	moved = ft__shm_bell_sleep(ep, timeout_ms, ready_moves, NULL, err);
	if (moved != 0)
		return moved;
	if (ft__now() >= ep->next_check) {
		ep->next_check = ft__now() + 0.05;
		return check_then_move(ep, err);
	}
	return move_all(ep, err);
}

const struct ft_transport_ops ft_shm_transport = {
	FT__TRANSPORT_P2P_OPS(shm, shm_open_ep,
	                      "shared memory rings between ranks on one host"),
	.coll = ft__shm_coll,
	.mem_alloc = ft__shm_mem_alloc,
	.mem_free = ft__shm_mem_free,
	.spin_polls = 1, /* the idle path spins and sleeps by itself (shm_progress) */
	.rank_local = 50,
	.rank_remote = 0,
};

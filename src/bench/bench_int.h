/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_int.h - what the bench module's files share: the world, the
 * control plane (small collective messages over the bootstrap sockets or
 * MPI), sockets with deadlines, the generic wait loop and the transports.
 */
#ifndef FT_BENCH_INT_H
#define FT_BENCH_INT_H

#include "internal.h"

#include <sched.h>

#include <fabtune/bench.h>
#include <fabtune/launch.h>

/*
 * The names the bench options take (ft__name_read): --bind, --spin,
 * --table-format, and -d/-o, whose option sets add "all" after the types
 * and reductions that ft_dtype_from_name() and ft_redop_from_name() know.
 */
extern const struct ft__name_set ft__bench_binds;
extern const struct ft__name_set ft__bench_spins;
extern const struct ft__name_set ft__bench_table_styles;
extern const struct ft__name_set ft__bench_dtypes;
extern const struct ft__name_set ft__bench_dtype_options;
extern const struct ft__name_set ft__bench_redops;
extern const struct ft__name_set ft__bench_redop_options;

struct ft_world {
	uint32_t rank, nranks;
	struct ft_rank_info *info; /* nranks entries */
	bool mpi;                  /* control plane is MPI_COMM_WORLD */
	bool mpi_inited_here;
	int boot_listen_fd; /* rank 0 only, -1 after bootstrap */
	int *ctrl_fd;       /* rank 0: one per rank (self -1); others: [0] to rank 0 */
	int data_listen_fd; /* tcp transport's listener, opened at bootstrap */
	double timeout_s;
	volatile sig_atomic_t *stop;
	bool may_spin;      /* every local rank has a CPU of its own (cpu.c) */
	bool spin_forced;   /* --spin always: spinning never stops for preemptions */
	bool bound;         /* ft__cpu_setup changed the mask: cpus_before restores it */
	cpu_set_t cpus_before;
	int failed;            /* a rank known to have failed (ft_world_fail), -1 none */
	char failed_why[256];  /* what it said, the notice's text */
	/*
	 * struct ft__orphan: memory of requests given up on before they
	 * completed (a collective of the control plane, a transport's message),
	 * still the library's or a peer's until they let go of it (world.c,
	 * ft__ep_reclaim), or for MPI's until MPI_Finalize.
	 */
	struct ft_vec orphans;
	/*
	 * The nccl endpoint stays open between the runs of one sweep (-d all,
	 * -o all, -N: dropin.c), as nccl-tests keeps its communicator for every
	 * type and operation: an init takes a second or more on a GPU, a run of
	 * the sweep milliseconds. While keep_ep is set, a run that ends well
	 * leaves its endpoint in kept_ep and the next run takes it from there;
	 * ft__bench_drop_kept() closes it (ft_world_free() too).
	 */
	bool keep_ep;
	struct ft_ep *kept_ep;
};

/* Close the endpoint a sweep kept open (ft_world.kept_ep), if any. */
void ft__bench_drop_kept(struct ft_world *w);

/* How a block kept for the MPI library is released once MPI is done with it. */
enum ft__mem {
	FT__MEM_HEAP, /* ft_free */
	FT__MEM_MAP,  /* munmap of len bytes */
	FT__MEM_KEEP, /* another allocator's (CUDA's pinned memory, a segment): never released */
};

struct ft_ep;
struct ft__orphan {
	void *p;
	size_t len;
	enum ft__mem kind;
	const struct ft_ep *ep; /* whose request holds it; NULL once that endpoint closed */
};

/*
 * Take block [@p, @p + @len) from a caller that was about to free it: a
 * request of @ep given up on may still read or write it. It is released as
 * @kind says once @ep no longer holds it (ft__ep_reclaim), or when @ep
 * closes if its transport lets go of everything then (ft_ep.holds_end_at_close),
 * else after MPI_Finalize, or never when the world cannot record it (out of
 * memory) or the caller's MPI outlives the world.
 */
void ft__world_orphan(struct ft_world *w, const struct ft_ep *ep, void *p, size_t len,
                      enum ft__mem kind);
/* Release the block of orphan @i now, and drop the record. */
void ft__world_orphan_release(struct ft_world *w, size_t i);
/*
 * Under MPI, whether another rank's failure notice (ft_world_fail) came:
 * FT_EPEER naming that rank and what it said, else 0. For waits that would
 * otherwise run to --timeout on a rank that failed and went on.
 */
int ft__world_peer_failed(struct ft_world *w, struct ft_error *err);
/* A wait without progress this long looks for such a notice. */
#define FT__NOTICE_S 0.1

/* Whether [@a, @a + @alen) and [@b, @b + @blen) share a byte (an empty range counts as 1). */
static inline bool
ft__overlaps(const void *a, size_t alen, const void *b, size_t blen)
{
	const char *x = a, *y = b;

	return x < y + (blen ? blen : 1) && y < x + (alen ? alen : 1);
}

/* ---- control plane: small messages, all ranks take part -------------------- */

/* Every rank contributes @len bytes; @out gets nranks * len bytes in rank order. */
int ft__world_allgather(struct ft_world *w, const void *in, size_t len, void *out,
                        struct ft_error *err) FT_MUST_CHECK;
int ft__world_barrier(struct ft_world *w, struct ft_error *err) FT_MUST_CHECK;
/* Rank @root's @len bytes to everyone. */
int ft__world_bcast(struct ft_world *w, void *buf, size_t len, uint32_t root,
                    struct ft_error *err) FT_MUST_CHECK;
/* "rank 3 (host h3)" into buf. */
const char *ft__world_who(const struct ft_world *w, uint32_t rank, char *buf, size_t len);
/*
 * The idle waits a ucx endpoint made so far (ucx.c, ucx_progress): sleeps on
 * the worker's event fd (with only receives in flight) and naps (with a send
 * in flight, whose progress raises no event). Only with libucx.
 */
void ft__ucx_idle_waits(const struct ft_ep *ep, uint64_t *event_sleeps, uint64_t *naps);
/*
 * The requests a ucx endpoint's progress retired so far, and the nodes it
 * looked at to find them (ucx.c, reap: only completed ones, so the two are
 * equal). Only with libucx.
 */
void ft__ucx_reap_counts(const struct ft_ep *ep, uint64_t *reaped, uint64_t *visits);
/* Whether process @pid of this host is stopped by a signal (state T; world.c). */
bool ft__bench_pid_stopped(int32_t pid);
/*
 * A rank on this rank's host, other than itself, whose process is stopped
 * (SIGSTOP, SIGTSTP, a debugger), or -1: the one to name when a wait runs out,
 * rather than the neighbour that waits on it.
 */
int ft__world_stopped_rank(const struct ft_world *w);
/* Ranks on this rank's host, itself included; @index (may be NULL): its position among them. */
uint32_t ft__world_local(const struct ft_world *w, uint32_t *index);

/* ---- CPUs (cpu.c) -------------------------------------------------------- */

/*
 * Bind this rank as @mode says, fill @me's bind and cpus, and decide
 * w->may_spin (--spin @spin) from the mask before binding, once per run.
 * @sleeps: the transport waits in the kernel when it may not spin (tcp);
 * with --bind auto its ranks are bound only when they spin and the pattern
 * is not a bandwidth @stream (pt2pt_bw), see cpu.c.
 */
int ft__cpu_setup(struct ft_world *w, enum ft_bench_bind mode, enum ft_bench_spin spin,
                  bool sleeps, bool stream, struct ft_rank_info *me,
                  struct ft_error *err) FT_MUST_CHECK;
/* Give the process back the CPU mask it had before ft__cpu_setup: at the end of a run,
 * and when a rank stops spinning (transport.c). */
void ft__cpu_unbind(struct ft_world *w);

/* ---- sockets with deadlines (sock.c) ------------------------------------- */

/* The benchmarks' clock: monotonic seconds, inline in the timed loops. */
static inline double
ft__now(void)
{
	return ft__clock_s(CLOCK_MONOTONIC);
}
/* ---- the ping-pong's sample clock (ticks.c) ------------------------------ */

/*
 * A clock for intervals inside one process: the x86-64 time-stamp counter
 * where CPUID says it is invariant, else CLOCK_MONOTONIC in nanoseconds.
 * Readings are ticks; @ns_per_tick turns a difference of two into ns.
 */
struct ft__ticks {
	bool tsc;           /* readings are counter ticks (else CLOCK_MONOTONIC ns) */
	double ns_per_tick; /* 1 where !tsc */
	double hz;          /* the counter's rate as calibrated, 0 where !tsc */
	double error;       /* bound on ns_per_tick's relative error from the calibration */
};

/* A loop's span in ticks agrees with CLOCK_MONOTONIC's within this share plus ns. */
#define FT__TICKS_AGREE_REL 0.01
#define FT__TICKS_AGREE_NS  50000

/* Whether the CPU's time-stamp counter is invariant (CPUID 0x80000007 EDX bit 8; x86-64). */
bool ft__tsc_invariant(void);
/*
 * Fill @t: the counter, its rate measured against CLOCK_MONOTONIC over a
 * sleep of @window_s, where @use_tsc and the rate is believable (100 MHz
 * to 20 GHz); else CLOCK_MONOTONIC (ns_per_tick 1).
 */
void ft__ticks_calibrate(struct ft__ticks *t, bool use_tsc, double window_s);
/*
 * The process's sample clock, calibrated at the first call (a 10 ms sleep);
 * CLOCK_MONOTONIC once distrusted.
 */
struct ft__ticks ft__ticks_get(void);
/* Whether @ticks of @t's agree with @ns of CLOCK_MONOTONIC over the same span. */
bool ft__ticks_agree(const struct ft__ticks *t, int64_t ticks, int64_t ns);
/* The counter disagreed with CLOCK_MONOTONIC: ft__ticks_get gives the latter from now on. */
void ft__ticks_distrust(void);
/*
 * One counter reading paired with CLOCK_MONOTONIC (@ns): the narrowest of
 * a few counter-clock-counter reads, the counter's side their midpoint.
 * Returns the width in ticks (INT64_MAX where none was in order); off
 * x86-64 both sides are CLOCK_MONOTONIC and the width is 0.
 */
int64_t ft__ticks_pair(int64_t *tick, int64_t *ns);
/*
 * After a loop timed on @clk: @ticks and @ns its span on the counter and
 * on CLOCK_MONOTONIC (each end a paired read), @samples its @n round trips
 * in ticks. Returns the ns per tick to convert the samples with: @clk's
 * where the span agrees and every sample is above 0; the loop's own rate
 * (@ns / @ticks) where only the span disagrees; 0 where a sample is 0 or
 * less or the span is not positive (the counter ran backwards: readings
 * taken on CPUs whose counters are not in step), which no rate mends.
 * Where it is not @clk's, the counter is dropped for the process
 * (ft__ticks_distrust). @clk on CLOCK_MONOTONIC: 1, nothing checked.
 */
double ft__ticks_settle(const struct ft__ticks *clk, int64_t ticks, int64_t ns,
                        const double *samples, uint32_t n);

/* @clk as a report's clock (struct ft_bench_clock): its source, rate and error, no loops. */
void ft__bench_clock_describe(struct ft_bench_clock *c, const struct ft__ticks *clk);
/*
 * One timed loop into @c: run on @clk, its samples converted at
 * @ns_per_tick (ft__ticks_settle's). The first loop describes @c; a later
 * one on CLOCK_MONOTONIC where the first was on the counter counts as
 * after the counter was dropped, one at a rate other than @clk's as at
 * its own.
 */
void ft__bench_clock_note(struct ft_bench_clock *c, const struct ft__ticks *clk,
                          double ns_per_tick);

/* The time-stamp counter after the instructions before it (lfence; rdtsc); 0 off x86-64. */
static inline int64_t
ft__tsc_read(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ __volatile__("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return (int64_t)((uint64_t)hi << 32 | lo);
#else
	return 0;
#endif
}

/* CLOCK_MONOTONIC in whole nanoseconds. */
static inline int64_t
ft__ticks_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A reading of @t: counter ticks, or CLOCK_MONOTONIC's nanoseconds. */
static inline int64_t
ft__ticks_now(const struct ft__ticks *t)
{
	return t->tsc ? ft__tsc_read() : ft__ticks_mono_ns();
}

/* One pause of a spin-wait loop: the CPU's hint that this is one (x86 pause, arm64 yield). */
static inline void
ft__cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}
/*
 * A polling wait that keeps off the core (nap.c): FT__NAP_PAUSES CPU pauses,
 * then sleeps of FT__NAP_MIN_NS doubling up to FT__NAP_MAX_NS, the bound on
 * how late the waiter notices its condition. Zero it to start (or
 * ft__nap_reset, when work arrives); ft__nap() waits one step and returns
 * the nanoseconds it slept (0: a pause); ft__nap_step() only says which.
 */
#define FT__NAP_PAUSES 1024u
#define FT__NAP_MIN_NS 1000u
#define FT__NAP_MAX_NS 1000000u
struct ft__nap {
	uint32_t pauses;   /* pauses made since the reset */
	uint64_t sleep_ns; /* the next sleep once they are done; 0: FT__NAP_MIN_NS */
};
static inline void
ft__nap_reset(struct ft__nap *n)
{
	n->pauses = 0;
	n->sleep_ns = 0;
}
uint64_t ft__nap_step(struct ft__nap *n);
uint64_t ft__nap(struct ft__nap *n);
/* tcp.c: the SO_RCVLOWAT a sleeping receive that needs @need bytes sets */
int ft__tcp_lowat(size_t need);
/* tcp.c: what a spin for a @len-byte message saves (a wake-up) and costs a pinned rank */
void ft__tcp_spin_terms(size_t len, double *wake_s, double *copy_s);
uint32_t ft__tcp_stripes(size_t len, uint32_t nstreams, size_t *part);
/* tcp.c: the data calls (send, recv, sendmsg, recvmsg, poll) a tcp endpoint has made so far */
uint64_t ft__tcp_calls(struct ft_ep *ep);
/* tcp.c: the stripes a tcp endpoint took from its pool: messages posted behind others */
uint64_t ft__tcp_pooled(struct ft_ep *ep);
/* tcp.c: SO_SNDBUF and SO_RCVBUF to ask for a socket to a peer (0: the kernel's autotuning) */
size_t ft__tcp_sockbuf(const struct ft_bench_cfg *cfg, bool same_host);
/* tcp.c: the kernel's SO_SNDBUF and SO_RCVBUF of stream 0 to @peer; -1 on error */
int ft__tcp_bufs(struct ft_ep *ep, uint32_t peer, int *snd, int *rcv);
int ft__sock_listen(const char *addr, uint16_t port, int *fd_out, uint16_t *port_out,
                    struct ft_error *err) FT_MUST_CHECK;
/* Connect with retries until @deadline (ft__now() clock); message names @what. */
int ft__sock_connect(const char *addr, uint16_t port, double deadline, const char *what,
                     volatile sig_atomic_t *stop, int *fd_out, struct ft_error *err) FT_MUST_CHECK;
int ft__sock_accept(int lfd, double deadline, volatile sig_atomic_t *stop, int *fd_out,
                    struct ft_error *err) FT_MUST_CHECK;
/* All bytes or an error naming @who (peer closed, timed out, interrupted). */
int ft__sock_send_all(int fd, const void *buf, size_t len, double deadline, const char *who,
                      volatile sig_atomic_t *stop, struct ft_error *err) FT_MUST_CHECK;
int ft__sock_recv_all(int fd, void *buf, size_t len, double deadline, const char *who,
                      volatile sig_atomic_t *stop, struct ft_error *err) FT_MUST_CHECK;
int ft__sock_nonblock(int fd);
/* Split "ADDR:PORT" or "[v6]:PORT". */
int ft__parse_hostport(const char *s, char *host, size_t hlen, uint16_t *port,
                       struct ft_error *err) FT_MUST_CHECK;
/* NCCL_SOCKET_IFNAME matching: "eth,ib" prefixes, "^docker" excludes, "=eth0" exact. */
bool ft_bench_ifname_match(const char *spec, const char *ifname);
/* First address whose interface matches @spec (loopback last), numeric. */
int ft__pick_address(const char *spec, char *addr, size_t alen, char *ifname, size_t ilen,
                     struct ft_error *err) FT_MUST_CHECK;

/* ---- element pools of the transports (transport.c) ------------------------- */

/*
 * Fixed-size elements (a transport's in-flight records) recycled through a
 * free list and allocated 64 at a time; a free element holds the link. Not
 * thread-safe: one per endpoint.
 */
struct ft__pool {
	size_t size;         /* bytes per element */
	void *free;          /* first free element */
	struct ft_vec blocks; /* void *: the allocations */
};

void ft__pool_init(struct ft__pool *pool, size_t size);
/* Free every block (elements handed out included). */
void ft__pool_release(struct ft__pool *pool);
/* A zeroed element, NULL when out of memory. */
void *ft__pool_get(struct ft__pool *pool);
void ft__pool_put(struct ft__pool *pool, void *elem);

/* ---- endpoints and waiting ------------------------------------------------ */

/*
 * A transport's two posting entries, <t>_post_send and <t>_post_recv, from
 * its one function @post(ep, req, bool send, err); FT__TRANSPORT_POSTS_HOT
 * marks them FT__HOT, for a transport whose @post is.
 */
#define FT__TRANSPORT_POSTS_AS(t, post, attr)                                                 \
	static attr int t##_post_send(struct ft_ep *ep, struct ft_req *req, struct ft_error *err) \
	{                                                                                     \
		return post(ep, req, true, err);                                              \
	}                                                                                     \
	static attr int t##_post_recv(struct ft_ep *ep, struct ft_req *req, struct ft_error *err) \
	{                                                                                     \
		return post(ep, req, false, err);                                             \
	}
#define FT__TRANSPORT_POSTS(t, post)     FT__TRANSPORT_POSTS_AS(t, post, )
#define FT__TRANSPORT_POSTS_HOT(t, post) FT__TRANSPORT_POSTS_AS(t, post, FT__HOT)

/*
 * The entries of a point-to-point transport's ops: its name and @summary,
 * @open, and the functions named after it (<t>_probe, <t>_post_send,
 * <t>_post_recv, <t>_progress, <t>_close). The table adds its ranks and
 * whatever else it has.
 */
#define FT__TRANSPORT_P2P_OPS(t, open_fn, text)                                    \
	.name = #t, .summary = text, .probe = t##_probe, .open = open_fn,          \
	.post_send = t##_post_send, .post_recv = t##_post_recv,                    \
	.progress = t##_progress, .close = t##_close

/* Every transport's endpoint starts with this (container_of). */
struct ft_ep {
	const struct ft_transport_ops *ops;
	struct ft_world *w;
	double timeout_s;
	volatile sig_atomic_t *stop;
	uint32_t spin_polls; /* busy polls before sleeping; 0 at open: the ops' default */
	double spin_s;       /* > 0: and no longer than this since anything moved */
	double spin_cut;     /* 0..1: the share of spin_s taken off after preemptions */
	double spin_lost_s;  /* time lost to preemptions found during spins */
	uint32_t spin_npreempt; /* and how many there were */
	double spin_saved_s; /* what the spins that ended in progress saved, spin_wake_s each */
	double spin_wake_s;  /* > 0: what a spin that pays saves now; spinning may stop (transport.c) */
	/* Spinning stopped for the run (ft__spin_stop): tell the peers on this host. NULL: none. */
	void (*spin_stopped)(struct ft_ep *ep);
	uint64_t nsends; /* sends posted through ft__ep_send since open, untimed ones too */
	void *scratch[3]; /* algorithm buffers kept between iterations (coll.c) */
	size_t scratch_bytes[3];
	/* scratch buffers from SCRATCH_HUGE_MIN on are mapped for huge pages (coll.c) */
	bool scratch_huge;
	/* Host memory [p, p + len) is about to be freed: drop what the transport keeps
	   about it (verbs: its memory registrations). NULL: nothing kept. */
	void (*forget)(struct ft_ep *ep, const void *p, size_t len);
	/*
	 * A wait or a post failed: the requests still in flight are the caller's
	 * no longer (their struct ft_req may be gone). The transport must not
	 * touch them again, and ends what it can (mpi: MPI_Cancel). NULL: none.
	 */
	void (*abandon)(struct ft_ep *ep);
	/* Whether a request still in flight may read or write [p, p + len) (mpi). NULL: never. */
	bool (*holds)(struct ft_ep *ep, const void *p, size_t len);
	/*
	 * Once closed, nothing of the transport's uses memory any more (ucx: the
	 * worker is destroyed; verbs: the queue pairs and registrations are), so
	 * the blocks its requests held are released then (ft__ep_close).
	 */
	bool holds_end_at_close;
	/*
	 * FT_FAULT_EP armed on this rank (transport.c): its next wait on such a
	 * request gives up, or (coll) the next collective the transport runs itself
	 */
	enum {
		FT__FAULT_NONE,
		FT__FAULT_SEND,
		FT__FAULT_RECV,
		FT__FAULT_COLL
	} fault;
};
/* FT_FAULT_EP passes over smaller messages and collectives: they may end before it looks */
#define FT__FAULT_MIN_BYTES (64 * 1024)

/*
 * The adaptive part of a spin budget (transport.c). ft__spin_budget: how
 * long a wait on @ep may spin now (@dflt without a budget of the transport).
 * ft__spin_check: called at each clock read of a spin, @prev the previous
 * one (0: none since the spin began or something moved); true when the
 * rank was preempted between them, which cuts the budget in half, and
 * which ends spinning for the rest of the run when the time preemptions
 * took exceeds the wake-ups that spins saved, on an endpoint that sets
 * spin_wake_s (w->may_spin goes false, the rank is unbound, spin_s and
 * spin_polls go to 0).
 * ft__spin_paid: a spin ended in progress, which gives some of it back.
 */
double ft__spin_budget(const struct ft_ep *ep, double dflt);
bool ft__spin_check(struct ft_ep *ep, double *prev, double now);
/* Stop spinning for the run (not with --spin always): may_spin false, unbound, peers told. */
void ft__spin_stop(struct ft_ep *ep);
/*
 * What a spin for a message just posted saves: @wake_s, less @copy_s on a
 * rank pinned to its core; when that is not positive, spinning stops for
 * the run (ft__spin_stop). The transport keeps the result in spin_wake_s.
 */
double ft__spin_saving(struct ft_ep *ep, double wake_s, double copy_s);
void ft__spin_paid(struct ft_ep *ep);

/* A scratch buffer of at least @bytes owned by @ep (NULL when out of memory). */
void *ft__ep_scratch(struct ft_ep *ep, unsigned idx, size_t bytes);
/*
 * Say that host memory [@p, @p + @len) that messages of @ep may have used is
 * about to be freed, so that no registration of it outlives it: a new buffer
 * at the same address must never match a stale one (NULL-safe). Every free
 * of such memory in bench calls this first, and frees it only on false: true
 * means a request given up on may still use it, and the world took the block
 * (ft__world_orphan, released as @kind says once MPI is done with it).
 */
bool ft__ep_forget(struct ft_ep *ep, void *p, size_t len, enum ft__mem kind) FT_MUST_CHECK;
/* The requests in flight on @ep are given up on (ep->abandon; NULL-safe). */
void ft__ep_abandon(struct ft_ep *ep);
/* Release the blocks @ep's requests held (ft__ep_forget) that it holds no longer. */
void ft__ep_reclaim(struct ft_ep *ep);
/* Does the transport place its buffers itself (mem_alloc: shm's segment)? */
bool ft__ep_own_memory(const struct ft_ep *ep);
/* How a block of @ep's mem_alloc is released when orphaned (ft__ep_forget). */
enum ft__mem ft__ep_mem_kind(const struct ft_ep *ep);
/* Free the scratch buffers and close the endpoint. NULL-safe. */
void ft__ep_close(struct ft_ep *ep);

/*
 * Post and wait helpers over any transport (transport.c). The posts and
 * ft__ep_wait1 are inline: each frame between a ping-pong's loop and the
 * blocking send() or recv() is one more return after the call, and a
 * return after a context switch or a deep kernel path finds the CPU's
 * return stack emptied (the kernel refills it on every switch, against
 * Spectre v2) and mispredicts: 48 returns more a round trip cost 0.18-0.30
 * us one way on a 2-CPU host that refills it (docs/internals/bench-log.md,
 * "tcp ping-pong: the frames around the blocking calls").
 */
static inline FT_MUST_CHECK int
ft__ep_post(struct ft_ep *ep, struct ft_req *r, bool send, uint32_t peer, void *buf, size_t len,
            struct ft_error *err)
{
	int rc;

	memset(r, 0, sizeof(*r));
	r->peer = peer;
	r->buf = buf;
	r->len = len;
	r->is_send = send;
	rc = send ? ep->ops->post_send(ep, r, err) : ep->ops->post_recv(ep, r, err);
	/* a post that fails ends the caller's exchange: what it posted before is given up on */
	if (rc < 0)
		ft__ep_abandon(ep);
	if (rc == 0 && send)
		ep->nsends++;
	return rc;
}

static inline FT_MUST_CHECK int
ft__ep_send(struct ft_ep *ep, struct ft_req *r, uint32_t peer, const void *buf, size_t len,
            struct ft_error *err)
{
	return ft__ep_post(ep, r, true, peer, (void *)buf, len, err);
}

/*
 * The point-to-point patterns (pt2pt_bw, pt2pt_lat, pairs, bisection,
 * incast): each posts every receive with the length of its send, in the
 * same order (ft__ep_recv), and hands its buffers to a transport as they are
 * (--gpu-buffers, gpu_stage.c).
 */
static inline bool
ft__op_point_to_point(enum ft_op p)
{
	return p == FT_OP_PT2PT_BW || p == FT_OP_PT2PT_LAT || p == FT_OP_PAIRS ||
	       p == FT_OP_BISECTION || p == FT_OP_INCAST;
}

/*
 * Post a receive of @len bytes from @peer. On shm, the point-to-point
 * patterns (ft__op_point_to_point()) must post every receive with the length of
 * its send, in the same order: a message past the head's block starts at
 * the next cache line on both sides, a skip each side derives from the
 * length (shm.c, ring_pad, line_start). Other patterns may slice a send
 * into other receives.
 */
static inline FT_MUST_CHECK int
ft__ep_recv(struct ft_ep *ep, struct ft_req *r, uint32_t peer, void *buf, size_t len,
            struct ft_error *err)
{
	return ft__ep_post(ep, r, false, peer, buf, len, err);
}

/* Progress until all @n requests are done; deadline = timeout_s without progress. */
int ft__ep_wait(struct ft_ep *ep, struct ft_req *const *reqs, size_t n,
                struct ft_error *err) FT_MUST_CHECK;
/*
 * One request. Where the endpoint may not spin (spin_polls 0), the first
 * pass of ft__ep_wait would sleep in the transport's progress at once
 * (tcp: a blocking recv() on a world of two); it is made here, so that a
 * ping-pong's receive returns through the transport's progress and the C
 * library alone. Whatever that pass leaves undone goes to ft__ep_wait,
 * whose clock for --timeout starts then (at most one sleep of 10 ms later).
 */
/* The longest a wait's sleeping progress call sleeps when nothing arrives, milliseconds
 * (ft__ep_wait1's first call and ft__ep_wait's passes once they may not spin). */
#define FT__EP_SLEEP_MS 10

static inline FT_MUST_CHECK int
ft__ep_wait1(struct ft_ep *ep, struct ft_req *r, struct ft_error *err)
{
	if (!r->done && ep->spin_polls == 0 && ep->fault == FT__FAULT_NONE) {
		int rc = ep->ops->progress(ep, FT__EP_SLEEP_MS, err);

		if (rc < 0) {
			ft__ep_abandon(ep);
			return rc;
		}
	}
	return r->done ? 0 : ft__ep_wait(ep, &r, 1, err);
}

/* FT_EPEER for a message to or from @peer after the transport dropped requests of it
   (ep->abandon): the stream is out of step. */
int ft__ep_lost(const struct ft_ep *ep, const char *lib, bool send, uint32_t peer,
                struct ft_error *err);
/* The FT_ETIMEDOUT of a wait that saw nothing from @peer for the endpoint's timeout. */
int ft__ep_silent(const struct ft_ep *ep, uint32_t peer, struct ft_error *err);
/*
 * A library's operation (@lib "mpi", @what "all_reduce") that is not done
 * after --timeout: FT_ETIMEDOUT naming a stopped rank of this host (SIGSTOP,
 * a debugger) when there is one; 0 when none is, for the caller's own words.
 */
int ft__ep_stopped(const struct ft_ep *ep, const char *lib, const char *what,
                   struct ft_error *err);
/* Part @c of @count elements cut into @n parts as evenly as they go: [first, first + len). */
static inline void
ft__bench_chunk(size_t count, uint32_t n, uint32_t c, size_t *first, size_t *len)
{
	*first = count * c / n;
	*len = count * (c + 1) / n - *first;
}
/* Blocking exchange with one peer (send and receive at once). */
int ft__ep_sendrecv(struct ft_ep *ep, uint32_t to, const void *sbuf, size_t slen, uint32_t from,
                    void *rbuf, size_t rlen, struct ft_error *err) FT_MUST_CHECK;

/* Overlay @ops on defaults that return FT_ENOTSUP (no NULL methods at call sites). */
void ft__transport_fill(struct ft_transport_ops *out, const struct ft_transport_ops *ops);
/* Probe the transport @cfg names on this host alone (nothing for "auto"): what a rank
   can say before it meets the others. FT_EINVAL for an unknown name, else the probe's
   error prefixed with the transport's name. */
int ft__transport_probe(const struct ft_bench_cfg *cfg, struct ft_error *err) FT_MUST_CHECK;
int ft__transport_open(struct ft_world *w, const struct ft_bench_cfg *cfg, struct ft_ep **out,
                       char *chosen, size_t clen, struct ft_error *err) FT_MUST_CHECK;

extern const struct ft_transport_ops ft_tcp_transport;
extern const struct ft_transport_ops ft_shm_transport;
/* Does this shm endpoint run the collectives directly on buffers in its segment? */
bool ft__shm_direct(const struct ft_ep *ep);
/* shm: may a peer still use this rank's buffer area for a direct collective it gave up on? */
bool ft__shm_area_held(struct ft_ep *ep);
/* memcpy whose stores bypass the cache (non-temporal), for destinations larger than it */
void ft__shm_copy_stream(char *d, const char *s, size_t n);
/* from this message size on, the shm receiver copies out of the ring with it */
size_t ft__shm_nt_min(void);
/* shm: messages to @peer that could take either copy, as sent: [0] pipelined, [1] single */
void ft__shm_copies(const struct ft_ep *ep, uint32_t peer, uint64_t out[2]);
/*
 * shm, for tests: which bytes of the stream to @peer the head's block
 * holds, from *@pos, *@len of them (0: none)
 */
void ft__shm_block(const struct ft_ep *ep, uint32_t peer, uint64_t *pos, size_t *len);
/* shm, for tests: the bytes this rank has published to @peer (its ring's head) */
uint64_t ft__shm_head(const struct ft_ep *ep, uint32_t peer);
/* shm: the bytes a publication may carry in the head's block, and its lines (shm.c, INL_MAX) */
#define FT__SHM_BLOCK_MAX   272
#define FT__SHM_BLOCK_LINES 5
/* shm: how a block's tag packs a publication's position and length (shm.c, inl_tag_of) */
#define FT__SHM_BLOCK_TAG(pos, len) ((uint64_t)(pos) << 9 | (uint64_t)(len))
/*
 * shm, for tests: the tag each line of the head's block to @peer carries
 * (FT__SHM_BLOCK_TAG of the publication whose bytes it holds): [0] the
 * head's line, [1]..[FT__SHM_BLOCK_LINES - 1] the ones after it
 */
void ft__shm_block_tags(const struct ft_ep *ep, uint32_t peer, uint64_t tags[FT__SHM_BLOCK_LINES]);
/*
 * shm, for tests: write "none" over the tag of line @line (1 to
 * FT__SHM_BLOCK_LINES - 1) of the
 * head's block to @peer and other words over its bytes, as a sender that
 * began to rewrite it for a later publication leaves it; a receiver must
 * then read the bytes that line held from the ring
 */
void ft__shm_block_scribble(struct ft_ep *ep, uint32_t peer, unsigned line);
/*
 * shm, for tests: write other bytes over the ring's copy of stream bytes
 * [@pos, @pos + @len) to @peer (not the head's block), as a receiver that
 * read them there would see them wrong: a receiver that finds them in the
 * block must not read the ring
 */
void ft__shm_ring_scribble(struct ft_ep *ep, uint32_t peer, uint64_t pos, size_t len);
/*
 * shm, for tests: write @pos into the shared head of the ring to @peer
 * alone, not into this rank's own count of it (shm_peer.head_sent), with
 * the receiver held away from the ring: the next send must go where that
 * count puts it and publish its end over @pos
 */
void ft__shm_head_scribble(struct ft_ep *ep, uint32_t peer, uint64_t pos);
/*
 * shm, for tests: start the stream to @peer at position @pos (head and
 * tail), before any message through it and with both ranks idle
 */
void ft__shm_ring_origin(struct ft_ep *ep, uint32_t peer, uint64_t pos);
/*
 * shm, for tests: the cache line (offset in a ring's header / 64) of each
 * word of a ring's header: those written for every message or single copy
 * (head and the block, tail, cma_done, share and share_dst, share_done)
 * and the flags of a side that gave up (quit, rquit), which a waiting rank
 * reads on every empty poll
 */
struct ft__shm_ring_lines {
	size_t head, inl_tag, inl_first, inl_last, tail, cma_done, share, share_dst, share_done;
	size_t quit, rquit;
	size_t nlines; /* lines in a ring's header */
};
void ft__shm_ring_lines(struct ft__shm_ring_lines *out);
/* shm: the copy messages of @len bytes to @peer took since @before (ft__shm_copies), named */
void ft__shm_path(const struct ft_ep *ep, uint32_t peer, size_t len, const uint64_t before[2],
                  char *out, size_t n);
/* shm: the wait before the pipeline to @peer is tried again after a stall, seconds */
double ft__shm_probe_s(const struct ft_ep *ep, uint32_t peer);
/* shm: pieces of single copies with @peer this rank copied: [0] read as receiver, [1] written
   as sender; and, @calls not NULL, the calls that copied them: [0] process_vm_readv, [1]
   process_vm_writev */
void ft__shm_pieces(const struct ft_ep *ep, uint32_t peer, uint64_t pieces[2], uint64_t calls[2]);
/* shm, for tests: with @off the receiver claims no piece and waits for the sender to copy them */
void ft__shm_share_recv_off(struct ft_ep *ep, bool off);
/*
 * shm, for tests: @late (NULL: none) runs between a chunk's ring and its
 * plain (release) publication, which then comes last, as a store that
 * waits in the store buffer while the ring's look at the peer's doorbell
 * goes ahead may (shm.c, ring_move); @late may let the peer fall asleep.
 */
void ft__shm_late_store(struct ft_ep *ep, void (*late)(struct ft_ep *ep, uint32_t peer));
/*
 * shm, for tests: @claimed (NULL: none) runs in the receiver of a single
 * copy between its claim of the piece at @off of copy number @num and its
 * read of it (shm.c, share_recv), where a sender may give up.
 */
void ft__shm_claimed_hook(struct ft_ep *ep, void (*claimed)(struct ft_ep *ep, uint32_t peer,
                                                             uint64_t num, size_t off));
extern const struct ft_transport_ops ft_mpi_transport;
extern const struct ft_transport_ops ft_verbs_transport;
struct ft__cuda;
/*
 * GPUDirect RDMA on a verbs endpoint: register @bytes of device memory at
 * @dptr with the adapter (dmabuf, else nvidia-peermem; verbs_mr.c), so that
 * messages in it go without a host copy; *@path gets "dmabuf" or "peermem".
 * FT_ENOTSUP naming both reasons where neither works. Undone by unreg.
 */
int ft__verbs_reg_cuda(struct ft_ep *ep, struct ft__cuda *cu, uint64_t dptr, size_t bytes,
                       const char **path, struct ft_error *err) FT_MUST_CHECK;
void ft__verbs_unreg(struct ft_ep *ep, uint64_t dptr);
/*
 * pt2pt over verbs with --verbs-op fadd or cswap (ib_atomic_bw, ib_atomic_lat):
 * rank 0 issues @n atomics on rank 1's memory; *@bw_GBps (8 bytes each) or,
 * with @lat_us, each one's round trip; *@wrong as the word checks out (verbs_atomic.c).
 * False from ft__verbs_atomics when the endpoint runs no atomics.
 */
bool ft__verbs_atomics(const struct ft_ep *ep);
int ft__verbs_pt2pt_atomics(struct ft_ep *ep, uint32_t peer, uint64_t n, uint32_t window,
                            double *lat_us, double *bw_GBps, int64_t *wrong,
                            struct ft_error *err) FT_MUST_CHECK;
extern const struct ft_transport_ops ft_nccl_transport;
extern const struct ft_transport_ops ft_ucx_transport;
/* Does this ucx endpoint's UCX move CUDA device memory itself? */
bool ft__ucx_cuda(const struct ft_ep *ep);

/* ---- data (data.c) --------------------------------------------------------- */

/* Deterministic fill of rank @rank's element @i, and the reduced expectation. */
void ft__data_fill(void *buf, size_t count, enum ft_dtype t, uint32_t rank, size_t first);
/* dst[i] = dst[i] op src[i] */
void ft__data_reduce(void *dst, const void *src, size_t count, enum ft_dtype t, enum ft_redop op);
/* dst[i] = a[i] op b[i]; @dst may be @a (in place) but must not overlap @b otherwise. */
void ft__data_reduce3(void *dst, const void *a, const void *b, size_t count, enum ft_dtype t,
                      enum ft_redop op);
/* dst[i] = src[i] times premulsum's scalar of @rank (1 even, 2 odd); @dst may be @src. */
void ft__data_premul(void *dst, const void *src, size_t count, enum ft_dtype t, uint32_t rank);
/* premulsum's scalar of @rank in type @t, into @out (at most 8 bytes). */
void ft__data_premul_scalar(void *out, enum ft_dtype t, uint32_t rank);
/* buf[i] /= nranks, in the element type (avg's last step; integer division for integers). */
void ft__data_divide(void *buf, size_t count, enum ft_dtype t, uint32_t nranks);
/* IEEE binary16 and bfloat16 from and to float, rounding to nearest-even; NaN stays NaN. */
uint16_t ft__half_from_float(float f);
float ft__half_to_float(uint16_t h);
uint16_t ft__bf16_from_float(float f);
float ft__bf16_to_float(uint16_t b);
/* Count elements of @buf that differ from the reduction over @nranks ranks of the fill. */
int64_t ft__data_check_reduced(const void *buf, size_t count, enum ft_dtype t, enum ft_redop op,
                               uint32_t nranks, size_t first);
/* Count elements that differ from rank @rank's fill starting at element @first. */
int64_t ft__data_check_fill(const void *buf, size_t count, enum ft_dtype t, uint32_t rank,
                            size_t first);

/* ---- fabtune's own collectives (coll.c) ------------------------------------ */

int ft__bench_coll_run(struct ft_ep *ep, const struct ft_bench_coll_args *a,
                 struct ft_error *err) FT_MUST_CHECK;
/* Does all_reduce of @bytes on @nranks ranks take halving-doubling (else the ring)? */
bool ft__bench_all_reduce_takes_hd(uint32_t nranks, size_t bytes);
/* all_reduce by halving-doubling (Rabenseifner); FT_EINVAL unless the ranks are a power of 2. */
int ft__bench_all_reduce_hd(struct ft_ep *ep, const struct ft_bench_coll_args *a,
                            struct ft_error *err) FT_MUST_CHECK;
/* Bytes of send and receive buffers nccl-tests uses for @count elements. */
void ft__bench_bufsizes(enum ft_op p, size_t count, size_t esize, uint32_t nranks,
                       size_t *send_bytes, size_t *recv_bytes);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * bench/tcp.c - the tcp transport: fabtune's own sockets, several streams
 * per peer.
 *
 * Every pair of ranks is connected by cfg.streams sockets (the higher rank
 * connects to the lower one's data listener, announced at bootstrap), and
 * for a pair on one host by one more that carries only "stopped spinning"
 * notices (tell_stopped). A message below STRIPE_MIN bytes goes on stream
 * 0; a larger one is cut as NCCL's socket transport cuts a request among
 * its NCCL_NSOCKS_PERTHREAD sockets (kb: ENV-SOCKET_THREADS; net_socket.cc
 * ncclSocketTest and ncclSocketGetTask): stripes of len / streams bytes but
 * never under STRIPE_MIN (ft__tcp_stripes), each on the stream after the
 * last one used towards that peer, so a run of 64 KiB messages takes the
 * streams in turn where it used to cut each into 16 KiB sends on all four.
 * Sender and receiver apply the same rule to the same lengths in the same
 * order, so the streams need no framing.
 * Progress is non-blocking I/O over all streams, each socket's queued
 * stripes in one sendmsg() or recvmsg() (iov_fill), with one poll() when
 * nothing moved; a connection that ends while the run is on names its rank.
 */
#include "bench_int.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define STRIPE_MIN (64 * 1024)
/*
 * Spin, then block: a waiting rank that may spin (--spin, cpu.c) tries
 * non-blocking I/O until nothing has moved for its spin budget, then sleeps
 * in poll() or recv(); any byte moved starts the budget again. The budget
 * grows with the size of the largest message in flight: TCP_SPIN_BASE_S
 * (a loopback round trip is 5-15 us) plus the time its bytes take at
 * TCP_SPIN_RATE, at most TCP_SPIN_MAX_S. A reply that is microseconds away
 * is then picked up without the wake-up of a sleeping process, as MPI
 * libraries and perftest poll, and a large receive keeps its socket busy:
 * over veth the segments arrive in the softirq of the sender's core, and a
 * receiver that is inside recv() holds the socket, so they are queued to
 * its backlog and processed on the receiver's own core instead (4 streams
 * over veth: 4.2 GB/s spinning, 2.4 sleeping, medians of 7 on a quiet
 * host). The budget is short on purpose: on a loaded host a rank that slept
 * is woken ahead of the processes that kept running, while one that spun
 * has used its share; with a 1 ms budget a tcp all_reduce of 1-16 MiB read
 * 0.10-0.29 GB/s busbw against 0.16-1.67 sleeping at a load of 11, with
 * 20 us 0.19-0.34. Large receives once spun only when a 20 ms load sample
 * allowed it, which made identical runs bimodal; the decision is now taken
 * once per run. A rank that may not spin (more local ranks than CPUs, or
 * --spin never) sleeps at once, so that the ranks sharing a core run.
 */
#define TCP_SPIN_POLLS  (1u << 30)
#define TCP_SPIN_BASE_S 20e-6
#define TCP_SPIN_RATE   2e9
#define TCP_SPIN_MAX_S  250e-6
#define LOWAT_MAX  (64 * 1024)
/*
 * What a spin that ends in progress saves against a receive that sleeps
 * (ft__tcp_spin_terms for ft__spin_saving, which stops spinning when the
 * saving is not positive; ft__spin_check weighs it against the time
 * preemptions took from the spins): the wake-up of a sleeping process,
 * TCP_WAKE_S (3.2-3.3 us at 14 B, --spin never minus --spin always, load
 * 10-11), less what spinning
 * costs a message of len bytes, len / TCP_SPIN_COST_RATE. A spinning rank
 * is bound to its core and copies each segment on it, from the sender's
 * core; a sleeping one is unbound, woken where the sender's send ran, and
 * copies out of the cache the sender has just filled. Fitted to p50 one-way
 * latency, --spin never minus --spin always, three runs a size on a 2-CPU
 * VM at a load of 6.4-6.8: 14 B -0.3 us, 16 KiB -0.9 to -2.9, 64 KiB -5.4
 * to -8.5, 128 KiB -8.3 to -8.7, 512 KiB -22 to -77, 1 MiB -3 to -180
 * (medians against 14 B's: 6.5-19 GB/s, 11 taken); the 14 B figure varies
 * with the sitting (+3.2-3.3 us at a load of 10-11), and the 3 us kept
 * leaves small messages to the balance in ft__spin_check. A message whose
 * spin does not save (from 33 KB) stops a pinned rank's spinning for the
 * run at its post (ft__spin_saving, then ft__spin_stop: unpinned, its
 * peers told), as that balance would, later: --spin auto at 1 MiB read
 * 440-545 us, spins that ran out of budget and then slept pinned (2,318 context switches and 937
 * ms of CPU for 1,100 round trips), against 140-146 us sleeping unpinned
 * (368 ms). An unpinned rank (pt2pt_bw's streams, cpu.c) keeps spinning,
 * which keeps a busy socket's segments on the receiver's core (above); its
 * copy cost was not measured, and its spins count the wake-up alone in the
 * balance (a negative saving would turn the balance off). The rate this
 * replaces, TCP_SAVE_RATE (25 GB/s saved), was fitted while a sleeper above
 * 64 KiB still waited for 128 KiB per wake-up.
 */
#define TCP_WAKE_S         3e-6
#define TCP_SPIN_COST_RATE 11e9
#define CTL_EVERY          16
#define TCP_IOV            64 /* stripes per sendmsg() or recvmsg() (iov_fill) */

FT__HOT void
ft__tcp_spin_terms(size_t len, double *wake_s, double *copy_s)
{
	*wake_s = TCP_WAKE_S;
	*copy_s = (double)len / TCP_SPIN_COST_RATE;
}

struct stripe {
	struct ft_req *parent;
	char *buf;
	size_t len, off;
	struct stripe *next;
};

/*
 * A stream to a peer. A stripe posted to an empty queue is the queue's own
 * (lone[0] for receives, lone[1] for sends), not one from the pool: it is
 * in use exactly while it sits in its queue, so an empty queue means it is
 * free. A ping-pong's every message is such a lone stripe, and its post and
 * completion then touch only this connection, not the pool's block and its
 * memset (stripe_get).
 */
struct tcp_conn {
	int fd;
	int lowat; /* SO_RCVLOWAT in force (1 = the kernel's default) */
	uint32_t peer;
	struct stripe *sq, *sq_tail; /* sends in order */
	struct stripe *rq, *rq_tail; /* receives in order */
	bool lost; /* stripes were dropped (tcp_abandon): out of step with the peer */
	struct stripe lone[2]; /* [send]: the stripe of a message posted to an empty queue */
};

struct tcp_ep {
	struct ft_ep base;
	uint32_t nstreams;
	struct tcp_conn *conns; /* [peer * nstreams + stream]; self unused (fd -1) */
	size_t nconns;
	struct pollfd *pfd;
	size_t *pfd_conn;
	struct ft__pool stripes; /* struct stripe */
	uint64_t nprog;   /* spin polls: every CTL_EVERY-th looks at the notices */
	uint64_t pending; /* requests posted and not done: spin_s is the largest one's */
	int *ctl;         /* [peer]: carries "stopped spinning" to a peer on this host; self -1 */
	uint32_t *next;   /* [peer * 2 + send]: the stream of the next striped message */
	uint64_t ncalls;  /* send(), recv(), sendmsg(), recvmsg() and poll() calls made (ft__tcp_calls) */
	uint64_t npooled; /* stripes taken from the pool, not a queue's lone one (ft__tcp_pooled) */
	bool unsent;      /* sends of STRIPE_MIN or more posted and not yet offered to a socket */
};

struct hello {
	uint32_t magic, rank, stream, pad;
};

static int
tcp_probe(const struct ft_bench_cfg *cfg, struct ft_error *err)
{
	return 0;
}

/*
 * The SO_SNDBUF and SO_RCVBUF asked for a socket to a peer (0: the
 * kernel's autotuning): --sockbuf where given, else LOCAL_SOCKBUF to a peer
 * on this host, whose bytes never leave the machine: what the sender copies
 * in, the receiver copies out, and the bytes in between should still be in
 * a cache. Autotuned, one loopback stream grew its buffers towards
 * tcp_rmem's and tcp_wmem's maxima (32 and 4 MiB on the build hosts), so
 * several MiB were queued between the two copies, past a core's L2 and
 * much of an 8 MiB L3, and each byte went out to memory and back: one
 * stream of 16 MiB messages read 0.37-0.40 GB/s autotuned, 0.69-2.07 with
 * 128 KiB and 2.29-2.48 with 256 KiB (three runs each, alternated, load
 * 17-21; 512 KiB and 1 MiB read as autotuned). 128 KiB also made a 256 KiB
 * ping-pong wait for room (p50 98-105 us against 86-97 autotuned); 256 KiB
 * read 81-88. The kernel doubles the value asked for (its bookkeeping); a
 * loopback round trip of 10-20 us at 10 GB/s needs 100-200 KB in flight,
 * so the window does not cap the stream. Peers on other hosts keep
 * autotuning: their round trip, not the cache, sets what is in flight.
 */
#define LOCAL_SOCKBUF (256 * 1024)

size_t
ft__tcp_sockbuf(const struct ft_bench_cfg *cfg, bool same_host)
{
	if (cfg->sockbuf_bytes)
		return cfg->sockbuf_bytes;
	return same_host ? LOCAL_SOCKBUF : 0;
}

static void
tune(int fd, const struct ft_bench_cfg *cfg, bool same_host)
{
	/* sockets stay blocking: non-blocking calls pass MSG_DONTWAIT, waits time out */
	struct timeval tv = { .tv_sec = 0, .tv_usec = 10000 };
	size_t buf = ft__tcp_sockbuf(cfg, same_host);
	int one = 1;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));

	if (cfg->nodelay)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (buf) {
		int v = buf > INT_MAX / 2 ? INT_MAX / 2 : (int)buf;

		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
	}
}

static void
tcp_close(struct ft_ep *base)
{
	struct tcp_ep *ep = ft_container_of(base, struct tcp_ep, base);
	size_t i;

	if (!ep)
		return;
	for (i = 0; i < ep->nconns; i++)
		if (ep->conns[i].fd >= 0)
			close(ep->conns[i].fd);
	for (i = 0; ep->ctl && i < ep->nconns / ep->nstreams; i++)
		if (ep->ctl[i] >= 0)
			close(ep->ctl[i]);
	ft_free(ep->ctl);
	ft_free(ep->next);
	ft__pool_release(&ep->stripes);
	ft_free(ep->conns);
	ft_free(ep->pfd);
	ft_free(ep->pfd_conn);
	ft_free(ep);
}

/* The fd of stream @s to @peer; s == nstreams: the notice connection. */
static int *
conn_fd(struct tcp_ep *ep, uint32_t peer, uint32_t s)
{
	return s == ep->nstreams ? &ep->ctl[peer] : &ep->conns[peer * ep->nstreams + s].fd;
}

static bool
same_host(const struct ft_world *w, uint32_t peer)
{
	return strcmp(w->info[peer].host, w->info[w->rank].host) == 0;
}

/* Notice connections to @peer: one on this host, none elsewhere. */
static uint32_t
nctl(const struct ft_world *w, uint32_t peer)
{
	return same_host(w, peer) ? 1 : 0;
}

/*
 * This rank stopped spinning (ft__spin_stop): its peers on this host stop
 * too. A pair in which one rank sleeps unbound while the other still spins
 * bound is the worst of both: the sleeper is often woken on the spinner's
 * core (the wake-up lands where the sender's softirq ran) and waits out its
 * spin there. One byte on the notice connection; the peer reads it in its
 * spin (notices_read), stops, unbinds, and tells its own peers.
 */
static void
tell_stopped(struct ft_ep *base)
{
	struct tcp_ep *ep = ft_container_of(base, struct tcp_ep, base);
	uint32_t p;
	char b = 's';

	for (p = 0; p < base->w->nranks; p++)
		if (ep->ctl[p] >= 0)
			(void)send(ep->ctl[p], &b, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Every CTL_EVERY-th spin poll: has a peer on this host stopped spinning? */
static FT__HOT void
notices_read(struct tcp_ep *ep)
{
	uint32_t p;
	char b[16];

	if ((++ep->nprog % CTL_EVERY) != 0)
		return;
	for (p = 0; p < ep->base.w->nranks && ep->base.w->may_spin; p++)
		if (ep->ctl[p] >= 0 && recv(ep->ctl[p], b, sizeof(b), MSG_DONTWAIT) > 0)
			ft__spin_stop(&ep->base);
}

static void tcp_abandon(struct ft_ep *base);

static int
tcp_open(struct ft_world *w, const struct ft_bench_cfg *cfg, struct ft_ep **out,
         struct ft_error *err)
{
	struct tcp_ep *ep;
	double deadline = ft__now() + (cfg->timeout_s > 0 ? cfg->timeout_s : 30);
	uint32_t s, p, nacc;
	size_t i;
	char who[96];
	int rc = 0;

	ep = ft_calloc(1, sizeof(*ep));
	if (!ep)
		return FT_ENOMEM;
	ft__pool_init(&ep->stripes, sizeof(struct stripe));
	ep->nstreams = cfg->streams ? cfg->streams : 1;
	ep->base.spin_wake_s = TCP_WAKE_S; /* spinning stops when it does not pay */
	ep->base.spin_stopped = tell_stopped;
	ep->base.abandon = tcp_abandon;
	ep->nconns = (size_t)w->nranks * ep->nstreams;
	ep->conns = ft_calloc(ep->nconns, sizeof(*ep->conns));
	ep->pfd = ft_calloc(ep->nconns, sizeof(*ep->pfd));
	ep->pfd_conn = ft_calloc(ep->nconns, sizeof(*ep->pfd_conn));
	ep->ctl = ft_calloc(w->nranks, sizeof(*ep->ctl));
	ep->next = ft_calloc((size_t)w->nranks * 2, sizeof(*ep->next));
	if (!ep->conns || !ep->pfd || !ep->pfd_conn || !ep->ctl || !ep->next) {
		tcp_close(&ep->base);
		return FT_ENOMEM;
	}
	for (i = 0; i < ep->nconns; i++) {
		ep->conns[i].fd = -1;
		ep->conns[i].lowat = 1;
		ep->conns[i].peer = (uint32_t)(i / ep->nstreams);
	}
	nacc = 0;
	for (p = 0; p < w->nranks; p++) {
		ep->ctl[p] = -1;
		if (p > w->rank)
			nacc += ep->nstreams + nctl(w, p);
	}
	/*
	 * Connect to lower ranks (their listen backlog takes us), then accept
	 * higher ones; stream nstreams of a pair on one host is its notice
	 * connection (ranks on other hosts never share a core: none).
	 */
	for (p = 0; p < w->rank && rc == 0; p++) {
		for (s = 0; s < ep->nstreams + nctl(w, p) && rc == 0; s++) {
			struct hello h = { 0x66747463u, w->rank, s, 0 };
			int fd;

			ft__world_who(w, p, who, sizeof(who));
			rc = ft__sock_connect(w->info[p].addr, w->info[p].port, deadline, who,
			                      cfg->stop, &fd, err);
			if (rc < 0)
				break;
			tune(fd, cfg, same_host(w, p));
			*conn_fd(ep, p, s) = fd;
			rc = ft__sock_send_all(fd, &h, sizeof(h), deadline, who, cfg->stop, err);
		}
	}
	while (rc == 0 && nacc > 0) {
		struct hello h;
		int fd;

		rc = ft__sock_accept(w->data_listen_fd, deadline, cfg->stop, &fd, err);
		if (rc < 0) {
			if (rc == FT_ETIMEDOUT) {
				ft_error_clear(err);
				ft_error_set(err, rc, "%u connections from higher ranks never came",
				             nacc);
			}
			break;
		}
		rc = ft__sock_recv_all(fd, &h, sizeof(h), deadline, "a connecting rank", cfg->stop,
		                       err);
		if (rc == 0 && (h.magic != 0x66747463u || h.rank <= w->rank ||
		                h.rank >= w->nranks || h.stream >= ep->nstreams + nctl(w, h.rank) ||
		                *conn_fd(ep, h.rank, h.stream) >= 0))
			rc = ft_error_set(err, FT_EPEER,
			                  "unexpected connection (rank %u stream %u): do all ranks "
			                  "use the same --streams?",
			                  h.rank, h.stream);
		if (rc < 0) {
			close(fd);
			break;
		}
		tune(fd, cfg, same_host(w, h.rank));
		*conn_fd(ep, h.rank, h.stream) = fd;
		nacc--;
	}
	if (rc < 0) {
		tcp_close(&ep->base);
		return rc;
	}
	*out = &ep->base;
	return 0;
}

static int conn_io(struct tcp_ep *ep, struct tcp_conn *c, bool *moved, bool block,
                   struct ft_error *err);

/*
 * How a message of @len bytes is cut over @nstreams streams: the number of
 * stripes, each *@part bytes but the last (the rest). Below STRIPE_MIN one
 * stripe; above, len / nstreams rounded up, at least STRIPE_MIN (NCCL's
 * MIN_CHUNKSIZE), so that each send() and recv() moves at least 64 KiB.
 */
FT__HOT uint32_t
ft__tcp_stripes(size_t len, uint32_t nstreams, size_t *part)
{
	size_t each;

	if (len < STRIPE_MIN || nstreams <= 1) {
		*part = len;
		return 1;
	}
	each = FT_MAX((len + nstreams - 1) / nstreams, (size_t)STRIPE_MIN);
	*part = each;
	return (uint32_t)((len + each - 1) / each);
}

/*
 * A stripe for @c's sends (@send) or receives: the queue's lone one when
 * the queue is empty, else one from the pool (NULL: out of memory). Its
 * fields are the caller's to set, next included.
 */
static FT__HOT struct stripe *
stripe_get(struct tcp_ep *ep, struct tcp_conn *c, bool send)
{
	if (!(send ? c->sq : c->rq))
		return &c->lone[send ? 1 : 0];
	ep->npooled++;
	return ft__pool_get(&ep->stripes);
}

/* @st has left @c's queue: back to the pool, unless it is a lone one. */
static FT__HOT void
stripe_put(struct tcp_ep *ep, struct tcp_conn *c, struct stripe *st)
{
	if (st != &c->lone[0] && st != &c->lone[1])
		ft__pool_put(&ep->stripes, st);
}

static void
drop_queue(struct tcp_ep *ep, struct tcp_conn *c, struct stripe **head, struct stripe **tail)
{
	struct stripe *st;

	c->lost = c->lost || *head;
	while ((st = *head) != NULL) {
		*head = st->next;
		stripe_put(ep, c, st);
	}
	*tail = NULL;
}

/*
 * The caller gave up on what it posted, and frees the buffers and requests
 * next: no later progress may read from or write into them (a receive into
 * freed memory, a done flag on a stack gone). Their stripes are dropped; a
 * stream that had some is out of step with its peer (part of a message sent
 * or read) and refuses new messages. The kernel holds no pointer into
 * them: send() and recv() copy.
 */
static void
tcp_abandon(struct ft_ep *base)
{
	struct tcp_ep *ep = ft_container_of(base, struct tcp_ep, base);
	size_t i;

	for (i = 0; i < ep->nconns; i++) {
		drop_queue(ep, &ep->conns[i], &ep->conns[i].sq, &ep->conns[i].sq_tail);
		drop_queue(ep, &ep->conns[i], &ep->conns[i].rq, &ep->conns[i].rq_tail);
	}
	ep->pending = 0;
}

static FT__HOT int
post(struct ft_ep *base, struct ft_req *req, bool send, struct ft_error *err)
{
	struct tcp_ep *ep = ft_container_of(base, struct tcp_ep, base);
	size_t off = 0, each;
	uint32_t n = ft__tcp_stripes(req->len, ep->nstreams, &each), s, first = 0;
	double wake_s, copy_s, saves = 0;

	if (req->peer >= base->w->nranks || req->peer == base->w->rank)
		return ft_error_set(err, FT_EINVAL, "tcp: bad peer rank %u", req->peer);
	for (s = 0; s < ep->nstreams; s++)
		if (ep->conns[req->peer * ep->nstreams + s].lost)
			return ft__ep_lost(base, "tcp", send, req->peer, err);
	req->done = false;
	req->priv[0] = n; /* stripes left */
	/* --spin (cpu.c), until spinning stops paying (transport.c), which this message may decide */
	if (base->w->may_spin) {
		ft__tcp_spin_terms(req->len, &wake_s, &copy_s);
		saves = ft__spin_saving(base, wake_s, copy_s);
	}
	if (base->w->may_spin) {
		/* the budget for the largest message in flight wins */
		double budget = FT_MIN(TCP_SPIN_MAX_S, TCP_SPIN_BASE_S + (double)req->len / TCP_SPIN_RATE);

		ep->base.spin_polls = TCP_SPIN_POLLS;
		if (ep->pending == 0 || budget > ep->base.spin_s) {
			ep->base.spin_s = budget;
			ep->base.spin_wake_s = saves;
		}
	}
	if (req->len == 0) {
		req->done = true;
		return 0;
	}
	ep->pending++;
	if (req->len >= STRIPE_MIN) { /* small messages keep to stream 0 */
		uint32_t *next = &ep->next[req->peer * 2 + (send ? 1 : 0)];

		first = *next;
		*next = (first + n) % ep->nstreams;
	}
	for (s = 0; s < n; s++) {
		struct tcp_conn *c = &ep->conns[req->peer * ep->nstreams + (first + s) % ep->nstreams];
		size_t part = FT_MIN(each, req->len - off);
		struct stripe *st = stripe_get(ep, c, send);

		if (!st)
			return FT_ENOMEM;
		st->parent = req;
		st->buf = (char *)req->buf + off;
		st->len = part;
		st->off = 0;
		st->next = NULL;
		off += part;
		if (send) {
			if (c->sq_tail)
				c->sq_tail->next = st;
			else
				c->sq = st;
			c->sq_tail = st;
		} else {
			if (c->rq_tail)
				c->rq_tail->next = st;
			else
				c->rq = st;
			c->rq_tail = st;
		}
	}
	if (send && req->len >= STRIPE_MIN) {
		/*
		 * A large send waits for the next progress, which offers each
		 * socket all its queued stripes in one sendmsg(): a window of
		 * 256 KiB messages over 4 streams was sent stripe by stripe as
		 * each was posted, one 64 KiB call each (18.7 calls and 4.4
		 * context switches a MiB, 1.7-1.9 times the CPU a byte of
		 * iperf3 -P 4 -l 256K over veth).
		 */
		ep->unsent = true;
	} else if (send) {
		/* small: start writing now, a waiter then often finds it done */
		bool moved = false;
		int rc;

		for (s = 0; s < n; s++) {
			rc = conn_io(ep,
			             &ep->conns[req->peer * ep->nstreams + (first + s) % ep->nstreams],
			             &moved, false, err);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

FT__TRANSPORT_POSTS_HOT(tcp, post)

static int
peer_gone(struct tcp_ep *ep, struct tcp_conn *c, int e, struct ft_error *err)
{
	char who[96];

	ft__world_who(ep->base.w, c->peer, who, sizeof(who));
	if (e == 0)
		return ft_error_set(err, FT_EPEER, "%s closed the connection (did it die?)", who);
	return ft_error_set(err, FT_EPEER, "connection to %s failed: %s", who, strerror(e));
}

/*
 * The stripes queued from @head as one system call's buffers: up to
 * TCP_IOV of them (the first from its offset), into @iov. Returns how many,
 * with their bytes in *@bytes. A window of queued messages then moves in
 * as few send() and recv() calls as the socket allows, where one call per
 * stripe capped a call at the stripe: a 64 KiB message over one stream was
 * a 64 KiB call at best.
 */
static int
iov_fill(const struct stripe *head, struct iovec *iov, size_t *bytes)
{
	int n = 0;

	*bytes = 0;
	for (; head && n < TCP_IOV; head = head->next, n++) {
		iov[n].iov_base = head->buf + head->off;
		iov[n].iov_len = head->len - head->off;
		*bytes += iov[n].iov_len;
	}
	return n;
}

/* queue_call for more than one stripe: one sendmsg() or recvmsg() (iov_fill). */
static __attribute__((noinline)) ssize_t
queue_callmsg(int fd, const struct stripe *head, bool out, int flags, size_t *bytes)
{
	struct iovec iov[TCP_IOV];
	struct msghdr m = { .msg_iov = iov };

	m.msg_iovlen = (size_t)iov_fill(head, iov, bytes);
	return out ? sendmsg(fd, &m, flags) : recvmsg(fd, &m, flags);
}

/*
 * One system call for the stripes queued from @head on @fd, sends (@out)
 * or receives: a lone stripe in send() or recv(), which skip the copy of
 * the message header and its iovec (a ping-pong's every message), more in
 * sendmsg() or recvmsg(). Returns what the call returned, the bytes
 * offered in *@bytes. The iovec array (1 KiB) lives in queue_callmsg's
 * frame, not in the frames of a ping-pong's path, which then use about
 * half the stack (by the frames' sizes, not traced) (FT__HOT). Inlined,
 * with conn_io, into the post and the progress: no frame of theirs stands
 * between the caller and the system call (ft__ep_post in bench_int.h).
 */
static inline __attribute__((always_inline)) FT__HOT ssize_t
queue_call(int fd, const struct stripe *head, bool out, int flags, size_t *bytes)
{
	if (head->next)
		return queue_callmsg(fd, head, out, flags, bytes);
	*bytes = head->len - head->off;
	return out ? send(fd, head->buf + head->off, *bytes, flags) :
	             recv(fd, head->buf + head->off, *bytes, flags);
}

/*
 * The outcome @n of a sendmsg() or recvmsg() on @c for the stripes queued
 * from @head (@tail the last), which were offered @offered bytes: each
 * stripe that @n completes leaves the queue for the free list, and *@done
 * counts its request if it was the request's last stripe. 1 when the
 * socket took or gave all that was offered (more may move), 0 when it can
 * take or give no more for now, FT_E* when the peer is gone.
 */
static FT__HOT int
queue_moved(struct tcp_ep *ep, struct tcp_conn *c, struct stripe **head, struct stripe **tail,
            ssize_t n, size_t offered, bool *moved, int *done, struct ft_error *err)
{
	size_t left;

	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ?
		               0 :
		               peer_gone(ep, c, errno, err);
	*moved = true;
	for (left = (size_t)n; left > 0;) {
		struct stripe *st = *head;
		size_t take = FT_MIN(left, st->len - st->off);

		st->off += take;
		left -= take;
		if (st->off < st->len)
			break;
		*head = st->next;
		if (!*head)
			*tail = NULL;
		if (--st->parent->priv[0] == 0) {
			st->parent->done = true;
			ep->pending--;
			(*done)++;
		}
		stripe_put(ep, c, st);
	}
	return (size_t)n == offered ? 1 : 0;
}

/*
 * Move what can move on one connection: the queued sends, then the queued
 * receives, each queue in as few calls as the socket allows (queue_call).
 * Returns requests finished or FT_E*. With @block the first call of the
 * first queue that holds stripes waits in the kernel instead of poll() and
 * a non-blocking call: a send up to SO_SNDTIMEO, a receive up to
 * SO_RCVTIMEO (tune), one system call less per message in a ping-pong. A
 * lone stripe then moves whole in that one call (a receive with
 * MSG_WAITALL), where the kernel sleeps and wakes as poll() would: the
 * sender of a message larger than its send buffer is woken by the same
 * room (sk_stream_wait_memory against the POLLOUT of sk_stream_is_writeable
 * in the kernel's net/core/stream.c and net/ipv4/tcp.c), the receiver by
 * the same low-water mark (lowat_set), but neither returns to this loop to
 * call again between its sleeps: 1 MiB went in 3 sends and 2 poll()s a
 * message and came out in 4.6 receives (bench-log.md, "tcp ping-pong: the
 * lone stripe in one blocking call").
 */
static inline __attribute__((always_inline)) FT__HOT int
conn_io(struct tcp_ep *ep, struct tcp_conn *c, bool *moved, bool block, struct ft_error *err)
{
	size_t bytes;
	int done = 0, rc = 0;

	while (c->sq) {
		ssize_t n = queue_call(c->fd, c->sq, true,
		                       MSG_NOSIGNAL | (block ? 0 : MSG_DONTWAIT), &bytes);

		ep->ncalls++;
		block = false;
		rc = queue_moved(ep, c, &c->sq, &c->sq_tail, n, bytes, moved, &done, err);
		if (rc <= 0)
			break;
	}
	if (rc < 0)
		return rc;
	while (c->rq) {
		ssize_t n =
		        queue_call(c->fd, c->rq, false,
		                   block ? (c->rq->next ? 0 : MSG_WAITALL) : MSG_DONTWAIT, &bytes);

		ep->ncalls++;
		block = false;
		if (n == 0)
			return peer_gone(ep, c, 0, err);
		rc = queue_moved(ep, c, &c->rq, &c->rq_tail, n, bytes, moved, &done, err);
		if (rc <= 0)
			break;
	}
	return rc < 0 ? rc : done;
}

uint64_t
ft__tcp_calls(struct ft_ep *base)
{
	return ft_container_of(base, struct tcp_ep, base)->ncalls;
}

uint64_t
ft__tcp_pooled(struct ft_ep *base)
{
	return ft_container_of(base, struct tcp_ep, base)->npooled;
}

int
ft__tcp_bufs(struct ft_ep *base, uint32_t peer, int *snd, int *rcv)
{
	struct tcp_ep *ep = ft_container_of(base, struct tcp_ep, base);
	int fd = ep->conns[peer * ep->nstreams].fd;
	socklen_t l = sizeof(*snd);

	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, snd, &l) < 0)
		return -1;
	l = sizeof(*rcv);
	return getsockopt(fd, SOL_SOCKET, SO_RCVBUF, rcv, &l);
}

/*
 * The low-water mark before a sleep on a receive that still needs @need
 * bytes: wake up for the whole stripe when it is small, not for every
 * segment, and never for more than it still needs. The kernel wakes a
 * sleeper in recv() or poll() only once SO_RCVLOWAT bytes are queued
 * (tcp_data_ready), whatever the length recv() asked for: the blocking
 * recv() below, entered for the rest of a message that a spin had partly
 * read, used to keep the mark set for the whole message, and could sleep
 * until SO_RCVTIMEO (10 ms) with its bytes queued. Above LOWAT_MAX the mark
 * stays at the kernel's 1 byte: a 128 KiB mark on a 1 MiB ping-pong left
 * the sleeping receiver idle until each 128 KiB had queued, then copied it
 * out of a cache the sender had moved on from (--spin never, 1 MiB: p50
 * 424-1,163 us and 937-969 ms of CPU per 1,100 round trips with the mark,
 * 187-267 us and 406-625 ms without, load 10-11), where a receiver woken at
 * the first segment copies behind the sender, as Open MPI's TCP BTL does
 * with its fragments; a plain blocking ping-pong with a 128 KiB mark even
 * hung there.
 */
FT__HOT int
ft__tcp_lowat(size_t need)
{
	return need > LOWAT_MAX ? 1 : (int)FT_MAX(need, (size_t)1);
}

/* Set @c's mark for the stripe at the head of its receives (ft__tcp_lowat). */
static FT__HOT void
lowat_set(struct tcp_conn *c)
{
	int want;

	if (!c->rq)
		return;
	want = ft__tcp_lowat(c->rq->len - c->rq->off);
	if (want != c->lowat &&
	    setsockopt(c->fd, SOL_SOCKET, SO_RCVLOWAT, &want, sizeof(want)) == 0)
		c->lowat = want;
}

static FT__HOT int
tcp_progress(struct ft_ep *base, int timeout_ms, struct ft_error *err)
{
	struct tcp_ep *ep = ft_container_of(base, struct tcp_ep, base);
	bool moved = false, recvs = false, sends_left = false;
	bool look = timeout_ms <= 0 || ep->unsent; /* large sends not yet offered: before poll() */
	int total = 0, rc;
	size_t i, np = 0;

	if (timeout_ms <= 0 && base->w->may_spin)
		notices_read(ep);
	/*
	 * Only receives pending, or only one send, on a world of two, and a
	 * caller that would sleep: wait in recv() or send() itself (conn_io),
	 * a send not yet offered included.
	 */
	if (timeout_ms > 0 && ep->base.w->nranks == 2 && ep->nstreams == 1) {
		struct tcp_conn *c = &ep->conns[1 - ep->base.w->rank];

		if ((c->rq && !c->sq) || (c->sq && !c->sq->next && !c->rq)) {
			ep->unsent = false;
			lowat_set(c);
			rc = conn_io(ep, c, &moved, true, err);
			return rc < 0 ? rc : rc + (moved ? 1 : 0);
		}
	}
	/*
	 * With a timeout the caller just found nothing to do: go straight to
	 * poll(), unless sends were posted that no socket was offered yet.
	 */
	ep->unsent = false;
	for (i = 0; i < ep->nconns && look; i++) {
		struct tcp_conn *c = &ep->conns[i];

		if (c->fd < 0 || (!c->sq && !c->rq))
			continue;
		rc = conn_io(ep, c, &moved, false, err);
		if (rc < 0)
			return rc;
		total += rc;
		recvs = recvs || c->rq;
		sends_left = sends_left || c->sq;
	}
	/*
	 * Sends that the sockets could not take, and no receive: a spin would
	 * send again each time an ACK frees a few segments' room (11-34 KB a
	 * call over veth, up to 98 calls a MiB). This wait sleeps in poll()
	 * instead, until the next post: the kernel signals POLLOUT once a third
	 * of the send buffer is free (sk_stream_wspace >= sk_stream_min_wspace),
	 * so each wake-up moves a large batch, as iperf3's select() and write()
	 * do. Receives still spin: a receiver inside recv() holds its socket
	 * and takes the segments' processing onto its own core (TCP_SPIN_*).
	 */
	if (timeout_ms <= 0 && sends_left && !recvs)
		ep->base.spin_polls = 0;
	if (moved || timeout_ms <= 0)
		return total + (moved ? 1 : 0);
	/* Nothing moved: sleep in poll(). Idle connections are watched for hang-ups. */
	for (i = 0; i < ep->nconns; i++) {
		struct tcp_conn *c = &ep->conns[i];

		if (c->fd < 0)
			continue;
		lowat_set(c);
		ep->pfd[np].fd = c->fd;
		ep->pfd[np].events =
		        (short)((c->sq ? POLLOUT : 0) | (c->rq ? POLLIN : 0) | POLLRDHUP);
		ep->pfd[np].revents = 0;
		ep->pfd_conn[np++] = i;
	}
	rc = poll(ep->pfd, np, timeout_ms);
	ep->ncalls++;
	if (rc <= 0)
		return 0;
	for (i = 0; i < np; i++) {
		struct tcp_conn *c = &ep->conns[ep->pfd_conn[i]];

		if (!ep->pfd[i].revents)
			continue;
		if ((ep->pfd[i].revents & (POLLHUP | POLLERR | POLLRDHUP)) && !c->rq && !c->sq) {
			char b;

			if (recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 0)
				return peer_gone(ep, c, 0, err);
		}
		rc = conn_io(ep, c, &moved, false, err);
		if (rc < 0)
			return rc;
		total += rc;
	}
	/* bytes moved without a finished request still count as progress */
	return total + (moved ? 1 : 0);
}

const struct ft_transport_ops ft_tcp_transport = {
	FT__TRANSPORT_P2P_OPS(tcp, tcp_open,
	                      "fabtune's own TCP sockets, several streams per peer"),
	.rank_local = 10,
	.rank_remote = 10,
};

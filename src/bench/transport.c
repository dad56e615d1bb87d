/* SPDX-License-Identifier: MIT */
/*
 * bench/transport.c - the transport registry, its ENOTSUP defaults, the
 * choice behind --transport auto, waiting on posted requests, and the pools
 * the transports keep their in-flight records in.
 *
 * Waiting is the same for every transport: progress until the requests are
 * done, and fail when nothing moved for timeout_s (the peer is named) or the
 * stop flag is raised. Transports report a dead peer themselves (EOF, a
 * vanished pid) as soon as they see it.
 */
#include "bench_int.h"

static const struct ft_transport_ops *const registry[] = {
	&ft_nccl_transport, &ft_verbs_transport, &ft_shm_transport,
	&ft_mpi_transport,  &ft_tcp_transport,   &ft_ucx_transport,
};

const struct ft_transport_ops *const *
ft_transports(size_t *n)
{
	*n = FT_ARRAY_SIZE(registry);
	return registry;
}

const struct ft_transport_ops *
ft_transport_find(const char *name)
{
	size_t i;

	for (i = 0; i < FT_ARRAY_SIZE(registry); i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

static int
dflt_probe(const struct ft_bench_cfg *cfg, struct ft_error *err)
{
	return ft_error_set(err, FT_ENOTSUP, "not available");
}

static int
dflt_open(struct ft_world *w, const struct ft_bench_cfg *cfg, struct ft_ep **out,
          struct ft_error *err)
{
	return ft_error_set(err, FT_ENOTSUP, "this transport cannot open endpoints");
}

static int
dflt_post(struct ft_ep *ep, struct ft_req *req, struct ft_error *err)
{
	return ft_error_set(err, FT_ENOTSUP, "%s: no point-to-point operations", ep->ops->name);
}

static int
dflt_progress(struct ft_ep *ep, int timeout_ms, struct ft_error *err)
{
	return ft_error_set(err, FT_ENOTSUP, "%s: no progress method", ep->ops->name);
}

static int
dflt_coll(struct ft_ep *ep, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	return FT_ENOTSUP;
}

static void *
dflt_mem_alloc(struct ft_ep *ep, size_t bytes)
{
	return ft_malloc(bytes ? bytes : 1);
}

static void
dflt_mem_free(struct ft_ep *ep, void *p)
{
	ft_free(p);
}

static void
dflt_close(struct ft_ep *ep)
{
}

bool
ft__ep_own_memory(const struct ft_ep *ep)
{
	return ep->ops->mem_alloc != dflt_mem_alloc;
}

enum ft__mem
ft__ep_mem_kind(const struct ft_ep *ep)
{
	return ft__ep_own_memory(ep) ? FT__MEM_KEEP : FT__MEM_HEAP;
}

void
ft__transport_fill(struct ft_transport_ops *out, const struct ft_transport_ops *ops)
{
	*out = *ops;
	if (!out->probe)
		out->probe = dflt_probe;
	if (!out->open)
		out->open = dflt_open;
	if (!out->post_send)
		out->post_send = dflt_post;
	if (!out->post_recv)
		out->post_recv = dflt_post;
	if (!out->progress)
		out->progress = dflt_progress;
	if (!out->coll)
		out->coll = dflt_coll;
	if (!out->mem_alloc || !out->mem_free) {
		out->mem_alloc = dflt_mem_alloc;
		out->mem_free = dflt_mem_free;
	}
	if (!out->close)
		out->close = dflt_close;
}

/* The filled tables live here, one per registry entry, built on first use. */
static struct ft_transport_ops filled[FT_ARRAY_SIZE(registry)];

static const struct ft_transport_ops *
filled_ops(size_t i)
{
	if (!filled[i].name)
		ft__transport_fill(&filled[i], registry[i]);
	return &filled[i];
}

static bool
all_local(const struct ft_world *w)
{
	uint32_t r;

	for (r = 1; r < w->nranks; r++)
		if (strcmp(w->info[r].host, w->info[0].host) != 0)
			return false;
	return true;
}

int
ft__transport_probe(const struct ft_bench_cfg *cfg, struct ft_error *err)
{
	size_t i;
	int rc;

	if (strcmp(cfg->transport, "auto") == 0)
		return 0; /* chosen with the other ranks, once they have met */
	for (i = 0; i < FT_ARRAY_SIZE(registry); i++)
		if (strcmp(registry[i]->name, cfg->transport) == 0)
			break;
	if (i == FT_ARRAY_SIZE(registry))
		return ft_error_set(err, FT_EINVAL,
		                    "--transport: unknown transport '%s' (auto, tcp, shm, mpi, "
		                    "verbs, nccl, ucx)",
		                    cfg->transport);
	rc = filled_ops(i)->probe(cfg, err);
	if (rc < 0)
		ft_error_prefix(err, "%s: ", registry[i]->name);
	return rc;
}

static int fault_arm(const struct ft_world *w);

int
ft__transport_open(struct ft_world *w, const struct ft_bench_cfg *cfg, struct ft_ep **out,
                   char *chosen, size_t clen, struct ft_error *err)
{
	uint8_t mine[FT_ARRAY_SIZE(registry)], *all;
	size_t i, best = SIZE_MAX;
	bool local = all_local(w);
	int rc, best_rank = -1;
	uint32_t r;

	*out = NULL;
	if (strcmp(cfg->transport, "auto") != 0) {
		rc = ft__transport_probe(cfg, err);
		if (rc < 0)
			return rc;
		for (i = 0; i < FT_ARRAY_SIZE(registry); i++)
			if (strcmp(registry[i]->name, cfg->transport) == 0)
				break;
		if (strcmp(registry[i]->name, "shm") == 0 && !local)
			return ft_error_set(err, FT_EINVAL,
			                    "shm: the ranks are on different hosts (%s, %s, ...)",
			                    w->info[0].host, w->info[w->nranks - 1].host);
		best = i;
	} else {
		/* Every rank probes; the fastest transport that all ranks have wins. */
		for (i = 0; i < FT_ARRAY_SIZE(registry); i++) {
			struct ft_error e2 = { 0 };

			mine[i] = filled_ops(i)->probe(cfg, &e2) == 0;
			if (strcmp(registry[i]->name, "shm") == 0 && !local)
				mine[i] = 0;
			if (strcmp(registry[i]->name, "mpi") == 0 && !w->mpi)
				mine[i] = 0;
			/* nccl only runs collectives */
			if (strcmp(registry[i]->name, "nccl") == 0 &&
			    !ft_op_is_coll(cfg->pattern))
				mine[i] = 0;
		}
		all = ft_calloc(w->nranks, sizeof(mine));
		if (!all)
			return FT_ENOMEM;
		rc = ft__world_allgather(w, mine, sizeof(mine), all, err);
		if (rc < 0) {
			ft_free(all);
			return rc;
		}
		for (i = 0; i < FT_ARRAY_SIZE(registry); i++) {
			int speed = local ? registry[i]->rank_local : registry[i]->rank_remote;
			bool ok = true;

			for (r = 0; r < w->nranks; r++)
				ok = ok && all[r * sizeof(mine) + i];
			if (ok && speed > best_rank) {
				best_rank = speed;
				best = i;
			}
		}
		ft_free(all);
		if (best == SIZE_MAX)
			return ft_error_set(err, FT_ENOTSUP, "no transport works on every rank");
	}
	ft_strlcpy(chosen, registry[best]->name, clen);
	rc = filled_ops(best)->open(w, cfg, out, err);
	if (rc < 0) {
		ft_error_prefix(err, "%s: ", registry[best]->name);
		return rc;
	}
	(*out)->ops = filled_ops(best);
	(*out)->w = w;
	(*out)->timeout_s = cfg->timeout_s > 0 ? cfg->timeout_s : 30;
	(*out)->stop = cfg->stop;
	if ((*out)->spin_polls == 0)
		(*out)->spin_polls = (uint32_t)(*out)->ops->spin_polls;
	(*out)->fault = fault_arm(w);
	return 0;
}

int
ft__ep_silent(const struct ft_ep *ep, uint32_t peer, struct ft_error *err)
{
	int stopped = ft__world_stopped_rank(ep->w);
	char who[96], via[96];

	/* a stopped rank of this host is the cause, whichever peer this wait was on */
	if (stopped >= 0 && (uint32_t)stopped != peer)
		return ft_error_set(err, FT_ETIMEDOUT,
		                    "%s is stopped (SIGSTOP or a debugger) and stopped answering: "
		                    "no progress for %.0fs (--timeout) from %s, which waits on it",
		                    ft__world_who(ep->w, (uint32_t)stopped, who, sizeof(who)),
		                    ep->timeout_s, ft__world_who(ep->w, peer, via, sizeof(via)));
	return ft_error_set(err, FT_ETIMEDOUT,
	                    "%s %sstopped answering: no progress for %.0fs (--timeout)",
	                    ft__world_who(ep->w, peer, who, sizeof(who)),
	                    stopped >= 0 ? "is stopped (SIGSTOP or a debugger) and " : "",
	                    ep->timeout_s);
}

int
ft__ep_lost(const struct ft_ep *ep, const char *lib, bool send, uint32_t peer,
            struct ft_error *err)
{
	char who[96];

	return ft_error_set(err, FT_EPEER,
	                    "%s: %s %s refused: an exchange with it was given up on (out of step)",
	                    lib, send ? "a send to" : "a receive from",
	                    ft__world_who(ep->w, peer, who, sizeof(who)));
}

int
ft__ep_stopped(const struct ft_ep *ep, const char *lib, const char *what, struct ft_error *err)
{
	int stopped = ft__world_stopped_rank(ep->w);
	char who[96];

	if (stopped < 0)
		return 0;
	return ft_error_set(err, FT_ETIMEDOUT,
	                    "%s is stopped (SIGSTOP or a debugger) and stopped answering: "
	                    "%s %s not done after %.0fs (--timeout)",
	                    ft__world_who(ep->w, (uint32_t)stopped, who, sizeof(who)), lib, what,
	                    ep->timeout_s);
}

/*
 * Adaptive spin budget: a spinning rank that finds a gap of SPIN_PREEMPT_S
 * between two clock reads (16 polls apart, microseconds when it runs) was
 * preempted: its core is wanted by someone else, and on a loaded host a
 * rank that sleeps is woken ahead of the processes that kept running,
 * while one that spun has used its share and waits a whole time slice
 * (tcp p99 8-17 ms at a load of 15-19 with a fixed 20 us budget). Each
 * preemption halves the budget and each spin that ends in progress gives
 * back 1/SPIN_RECOVER of it, so that a run settles where preemptions
 * during spins are rare: the full budget on a quiet host, little on a busy
 * one, and the same for identical runs (an average over every wait of the
 * run, not one sample at its start).
 */
#define SPIN_PREEMPT_S 200e-6
#define SPIN_RECOVER   64.0

FT__HOT double
ft__spin_budget(const struct ft_ep *ep, double dflt)
{
	return (ep->spin_s > 0 ? ep->spin_s : dflt) * (1.0 - ep->spin_cut);
}

/*
 * Spinning pays while what preemptions took from the spins stays below what
 * the spins saved, ep->spin_wake_s each (set by a transport whose waits may
 * stop spinning: tcp's falls with the message, ft__spin_saving(); shm's
 * is SHM_WAKE_S), plus SPIN_GRACE_S, and the rule waits for SPIN_GRACE_N
 * preemptions: one preemption by a busy process costs a whole time slice
 * (1-4 ms here), more than the grace, and is no evidence of a pattern; beside
 * a hog a spinning rank is preempted at every slice and reaches the count
 * within tens of milliseconds. Stopping is decided by one rank and shared
 * with its peers on the host (ft__spin_stop, ep->spin_stopped). A rank whose
 * core a CPU hog shares, spinning through back-to-back ping-pongs, is
 * CPU-bound and gets half the core in slices: each slice of the hog stalls
 * one message for its length (tcp p99 0.8-8 ms at 14 B-60 KiB beside one
 * hog at a load of 12-14, where sockperf read 10-60 us). A rank that sleeps uses little CPU, so the
 * scheduler counts it as owed time and runs it soon after its message
 * wakes it, as it does sockperf, which blocks in recv(). Past the
 * balance the rank stops spinning for the rest of the run and gives up its
 * binding, so that its wake-ups may also land on an idle core (both are
 * needed: a shm stream at a load of 19 moved 16 MiB messages at 0.3-0.6
 * GB/s spinning bound, 0.07-0.1 spinning unbound, 0.4-0.8 sleeping bound,
 * 2.6-3.5 sleeping unbound).
 */
#define SPIN_GRACE_S 2e-3
#define SPIN_GRACE_N 4

FT__HOT bool
ft__spin_check(struct ft_ep *ep, double *prev, double now)
{
	double gap = now - *prev;
	bool preempted = *prev > 0 && gap > SPIN_PREEMPT_S;

	*prev = now;
	if (!preempted)
		return false;
	ep->spin_cut = 1.0 - (1.0 - ep->spin_cut) / 2;
	ep->spin_lost_s += gap;
	ep->spin_npreempt++;
	if (ep->spin_wake_s > 0 && ep->spin_npreempt >= SPIN_GRACE_N &&
	    ep->spin_lost_s > SPIN_GRACE_S + ep->spin_saved_s)
		ft__spin_stop(ep);
	return true;
}

/*
 * The one place that decides, when a message is posted, whether spinning
 * for it can pay at all. A spin that ends in progress saves the wake-up of
 * a sleeping rank, @wake_s (the transport's measured figure); for a rank
 * pinned to its core it also costs @copy_s, the extra time of copying the
 * message on that core from the sender's (a sleeper that is not pinned is
 * woken where the send ran and copies from the cache it filled). An
 * unpinned rank's copy cost was never measured: its saving is the wake-up
 * alone. A saving that is not positive ends spinning for the run at once
 * (ft__spin_stop), as the preemption balance of ft__spin_check would, but
 * only after a run of preemptions: a spin for such a message outlasts its
 * budget and then sleeps pinned, the worst of both (tcp at 1 MiB, see
 * TCP_WAKE_S in tcp.c). --spin always keeps spinning whatever the saving.
 * Returns the saving, which the transport keeps in spin_wake_s for the
 * balance while the message is the largest in flight.
 */
FT__HOT double
ft__spin_saving(struct ft_ep *ep, double wake_s, double copy_s)
{
	double saves = wake_s - (ep->w->bound ? copy_s : 0);

	if (saves <= 0)
		ft__spin_stop(ep);
	return saves;
}

void
ft__spin_stop(struct ft_ep *ep)
{
	if (!ep->w->may_spin || ep->w->spin_forced)
		return;
	ep->w->may_spin = false;
	ep->spin_s = 0;
	ep->spin_polls = 0;
	ft__cpu_unbind(ep->w);
	if (ep->spin_stopped)
		ep->spin_stopped(ep);
}

FT__HOT void
ft__spin_paid(struct ft_ep *ep)
{
	ep->spin_cut = FT_MAX(0.0, ep->spin_cut - 1.0 / SPIN_RECOVER);
	ep->spin_saved_s += ep->spin_wake_s;
}

static FT__HOT int
wait_all(struct ft_ep *ep, struct ft_req *const *reqs, size_t n, struct ft_error *err)
{
	double last = 0;
	size_t i, pending_first = 0;
	uint64_t spins = 0;
	bool spun_out = false; /* the spin's time budget (ep->spin_s) is spent */
	double prev = 0;       /* the spin's last clock read */

	for (;;) {
		int rc;

		while (pending_first < n && reqs[pending_first]->done)
			pending_first++;
		for (i = pending_first; i < n && reqs[i]->done; i++)
			;
		if (pending_first == n)
			return 0;
		for (i = pending_first; i < n; i++)
			if (!reqs[i]->done)
				break;
		if (i == n)
			return 0;
		/*
		 * Busy-poll briefly (a reply is often microseconds away), then sleep
		 * in the transport's poll() so that ranks sharing a core can run.
		 */
		rc = ep->ops->progress(ep, spins < ep->spin_polls && !spun_out ? 0 : FT__EP_SLEEP_MS,
		                       err);
		if (rc < 0)
			return rc;
		/*
		 * Progress restarts the clock, which is read again only once a
		 * poll finds nothing: a request that completes at once costs no
		 * clock read, and a ping-pong's critical path holds none.
		 */
		if (rc > 0) {
			if (!spun_out && ep->spin_s > 0 && last > 0) {
				/*
				 * The stretch since the last clock read counts too: a
				 * rank preempted in a short wait finds its message at
				 * the first poll after, before any read would see it.
				 */
				if (prev == 0)
					prev = last;
				ft__spin_check(ep, &prev, ft__now());
				ft__spin_paid(ep);
			}
			last = 0;
			prev = 0;
			spins = 0;
			spun_out = false;
			continue;
		}
		if (last == 0) {
			last = ft__now();
			continue;
		}
		if ((++spins & 15) == 0) {
			double now = ft__now();

			if (ep->spin_s > 0 && !spun_out)
				spun_out = ft__spin_check(ep, &prev, now) ||
				           now - last > ft__spin_budget(ep, 0);
			if (ep->stop && *ep->stop)
				return ft_error_set(err, FT_EINTR, "interrupted");
			/* a rank that failed and went on never answers: its notice says why */
			if (now - last > FT__NOTICE_S && ft__world_peer_failed(ep->w, err) < 0)
				return FT_EPEER;
			if (now - last > ep->timeout_s) {
				/*
				 * A send that does not drain is the surest sign: that peer
				 * stopped reading. A missing receive may only be a rank
				 * waiting on the silent one.
				 */
				for (i = pending_first; i < n; i++)
					if (!reqs[i]->done && reqs[i]->is_send)
						break;
				if (i == n)
					for (i = pending_first; i < n && reqs[i]->done; i++)
						;
				return ft__ep_silent(ep, reqs[i]->peer, err);
			}
		}
	}
}

/*
 * FT_FAULT_EP=send:R or recv:R, for tests: rank R's first wait that finds a
 * send (a receive) of FT__FAULT_MIN_BYTES or more not done moves what moves
 * at once, then, if the message is still not done, gives up, as a timeout
 * would, so that the transport's abandon runs while the message is under
 * way and its peer still sends or reads. coll:R: rank R gives up inside the first of the transport's own
 * collectives that moves that much (shm's direct ones, shm_coll.c).
 */
static int
fault_arm(const struct ft_world *w)
{
	static const struct {
		const char *word;
		int fault;
	} kinds[] = {
		{ "send:", FT__FAULT_SEND },
		{ "recv:", FT__FAULT_RECV },
		{ "coll:", FT__FAULT_COLL },
	};
	const char *e = getenv("FT_FAULT_EP");
	uint64_t r;
	size_t k;

	for (k = 0; e && k < FT_ARRAY_SIZE(kinds); k++)
		if (strncmp(e, kinds[k].word, 5) == 0)
			return ft_parse_u64(e + 5, &r) == 0 && r == w->rank ? kinds[k].fault :
			                                                      FT__FAULT_NONE;
	return FT__FAULT_NONE;
}

static int
fault_fire(struct ft_ep *ep, struct ft_req *const *reqs, size_t n, struct ft_error *err)
{
	char who[96];
	size_t i;
	int rc, kind;

	for (i = 0; i < n; i++)
		if (!reqs[i]->done && reqs[i]->len >= FT__FAULT_MIN_BYTES &&
		    reqs[i]->is_send == (ep->fault == FT__FAULT_SEND))
			break;
	if (i == n)
		return 0;
	kind = ep->fault;
	ep->fault = FT__FAULT_NONE;
	rc = ep->ops->progress(ep, 0, err);
	if (rc < 0)
		return rc;
	/*
	 * That look ended it (its peer, first, had moved the rest): nothing is
	 * under way to give up on, and giving up anyway would leave the peer
	 * waiting for what comes after, with no word from this rank. The fault
	 * waits for the next wait that finds one.
	 */
	if (reqs[i]->done) {
		ep->fault = kind;
		return 0;
	}
	return ft_error_set(err, FT_EIO,
	                    "%s: a %s of %zu bytes %s %s given up on: a fault injected by "
	                    "FT_FAULT_EP",
	                    ep->ops->name, reqs[i]->is_send ? "send" : "receive", reqs[i]->len,
	                    reqs[i]->is_send ? "to" : "from",
	                    ft__world_who(ep->w, reqs[i]->peer, who, sizeof(who)));
}

/*
 * A wait that fails leaves its requests to the transport (ep->abandon): the
 * caller frees their buffers and struct ft_req next.
 */
FT__HOT int
ft__ep_wait(struct ft_ep *ep, struct ft_req *const *reqs, size_t n, struct ft_error *err)
{
	bool armed = ep->fault == FT__FAULT_SEND || ep->fault == FT__FAULT_RECV;
	int rc = armed ? fault_fire(ep, reqs, n, err) : 0;

	if (rc == 0)
		rc = wait_all(ep, reqs, n, err);

	if (rc < 0)
		ft__ep_abandon(ep);
	return rc;
}

int
ft__ep_sendrecv(struct ft_ep *ep, uint32_t to, const void *sbuf, size_t slen, uint32_t from,
                void *rbuf, size_t rlen, struct ft_error *err)
{
	struct ft_req s, r;
	struct ft_req *both[2] = { &r, &s };
	int rc;

	rc = ft__ep_recv(ep, &r, from, rbuf, rlen, err);
	if (rc == 0)
		rc = ft__ep_send(ep, &s, to, sbuf, slen, err);
	if (rc == 0)
		rc = ft__ep_wait(ep, both, 2, err);
	return rc;
}

/* ---- element pools ------------------------------------------------------- */

#define POOL_BLOCK 64

void
ft__pool_init(struct ft__pool *pool, size_t size)
{
	pool->size = FT_MAX(size, sizeof(void *));
	pool->free = NULL;
	ft_vec_init(&pool->blocks, sizeof(void *));
}

void
ft__pool_release(struct ft__pool *pool)
{
	ft__vec_release_ptrs(&pool->blocks);
	pool->free = NULL;
}

void
ft__pool_put(struct ft__pool *pool, void *elem)
{
	memcpy(elem, &pool->free, sizeof(void *)); /* a free element holds the link */
	pool->free = elem;
}

void *
ft__pool_get(struct ft__pool *pool)
{
	void *elem;

	if (!pool->free) {
		char *blk = ft_calloc(POOL_BLOCK, pool->size);
		size_t i;

		if (!blk || ft_vec_push(&pool->blocks, &blk) < 0) {
			ft_free(blk);
			return NULL;
		}
		for (i = POOL_BLOCK; i-- > 0;) /* handed out in address order */
			ft__pool_put(pool, blk + i * pool->size);
	}
	elem = pool->free;
	memcpy(&pool->free, elem, sizeof(void *));
	memset(elem, 0, pool->size);
	return elem;
}

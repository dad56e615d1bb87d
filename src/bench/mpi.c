/* SPDX-License-Identifier: MIT */
/*
 * bench/mpi.c - the mpi transport: the MPI library's own point-to-point
 * (MPI_Isend/MPI_Irecv, completed with MPI_Test) and its own collective
 * algorithms (MPI_Allreduce and friends, MPI_IN_PLACE for the in-place
 * variants). Only usable when the world was joined through MPI (mpirun).
 *
 * Nothing here blocks without a deadline: a blocking MPI_Allreduce would wait
 * forever for a stopped rank (a rank under SIGSTOP keeps its connections
 * open, so the MPI library sees nothing wrong). The collectives are the
 * non-blocking ones (MPI_Iallreduce...), completed by MPI_Test polled against
 * --timeout; when it runs out the rank reports FT_ETIMEDOUT, naming a stopped
 * rank of its host when there is one, and the CLI aborts the job (MPI_Abort),
 * which ends every rank. A rank that goes on after a failure (the doctor)
 * still makes MPI calls, MPI_Finalize at least, in which the library may go
 * on with what was given up on: nothing it may still read or write is freed
 * before then (struct mpi_pend, mpi_abandon, mpi_holds).
 */
#include "bench_int.h"

#if FT_HAVE_MPI
#include <mpi.h>
#include <sched.h>

/*
 * A request in flight, kept apart from the caller's struct ft_req: a wait
 * that gives up (a timeout, a failed peer, an error) leaves that behind,
 * often on its stack, while the MPI library still owns the request and may
 * read or write its buffers until it completes (owner NULL: given up on).
 */
struct mpi_pend {
	MPI_Request mr;
	struct ft_req *owner;
	const char *buf[2]; /* [buf, buf + len): what MPI may use until it completes */
	size_t len[2];
	uint32_t peer;
	bool send;
	bool coll; /* a collective's: neither cancelled nor freed (MPI 4.0, 3.8.4) */
};

/* FT_FAULT_MPI=STAGE:R, for tests: where rank R gives up on requests in flight. */
enum mpi_fault { FAULT_NONE, FAULT_POST, FAULT_WAIT, FAULT_COLL };
#define FAULT_WORDS "a fault injected by FT_FAULT_MPI"

struct mpi_ep {
	struct ft_ep base;
	struct ft_vec pending; /* struct mpi_pend */
	enum mpi_fault fault;  /* armed until it fires once */
};

/* A wait given up on: MPI_Cancel'led receives are polled this long to complete. */
#define ABANDON_S 0.2
/* Messages from this size on are not sent eagerly by Open MPI's shared memory and tcp
   transports: a receive given up on may be under way, its buffer MPI's (the faults). */
#define FAULT_MIN_BYTES (64 * 1024)

static int
mpi_probe(const struct ft_bench_cfg *cfg, struct ft_error *err)
{
	int flag = 0;

	MPI_Initialized(&flag);
	if (!flag)
		return ft_error_set(err, FT_ENOTSUP,
		                    "not launched by mpirun/srun (run: mpirun -np N fabtune bench "
		                    "...)");
	return 0;
}

/*
 * FT_FAULT_MPI=post:R, wait:R or coll:R: rank R fails a post while a
 * receive of FAULT_MIN_BYTES or more is in flight (as an MPI_Irecv error
 * would), gives up on such a receive at its first test (as an MPI_Test
 * error would), or gives up on its first collective at once (as a
 * timeout would). The peers' messages then come after the rank gave up.
 */
static enum mpi_fault
fault_here(const struct ft_world *w)
{
	static const char *const stages[] = { "post:", "wait:", "coll:" };
	const char *e = getenv("FT_FAULT_MPI");
	uint64_t r;
	size_t i;

	for (i = 0; e && i < FT_ARRAY_SIZE(stages); i++)
		if (strncmp(e, stages[i], 5) == 0 && ft_parse_u64(e + 5, &r) == 0 && r == w->rank)
			return (enum mpi_fault)(FAULT_POST + i);
	return FAULT_NONE;
}

static void mpi_abandon(struct ft_ep *base);
static bool mpi_holds(struct ft_ep *base, const void *p, size_t len);

static int
mpi_open(struct ft_world *w, const struct ft_bench_cfg *cfg, struct ft_ep **out,
         struct ft_error *err)
{
	struct mpi_ep *ep;

	if (!w->mpi)
		return ft_error_set(err, FT_ENOTSUP, "the ranks did not start under MPI");
	ep = ft_calloc(1, sizeof(*ep));
	if (!ep)
		return FT_ENOMEM;
	ft_vec_init(&ep->pending, sizeof(struct mpi_pend));
	ep->fault = fault_here(w);
	ep->base.abandon = mpi_abandon;
	ep->base.holds = mpi_holds;
	*out = &ep->base;
	return 0;
}

static struct mpi_pend *
pend_at(struct mpi_ep *ep, size_t i)
{
	return ft_vec_at(&ep->pending, i);
}

/* A receive of FAULT_MIN_BYTES or more in flight, to fire the fault on; NULL: none. */
static struct mpi_pend *
fault_target(struct mpi_ep *ep, enum mpi_fault stage)
{
	size_t i;

	if (ep->fault != stage)
		return NULL;
	for (i = 0; i < ep->pending.len; i++)
		if (!pend_at(ep, i)->send && !pend_at(ep, i)->coll &&
		    pend_at(ep, i)->len[0] >= FAULT_MIN_BYTES) {
			ep->fault = FAULT_NONE;
			return pend_at(ep, i);
		}
	return NULL;
}

/*
 * Drop the requests given up on that have completed (cancelled or done),
 * testing each once. An error of MPI_Test keeps the request: its buffers
 * stay MPI's. Returns the point-to-point ones left.
 */
static size_t
reap(struct mpi_ep *ep)
{
	size_t i, keep = 0, p2p = 0;

	for (i = 0; i < ep->pending.len; i++) {
		struct mpi_pend *pd = pend_at(ep, i);
		int flag = 0;

		if (!pd->owner && !pd->coll &&
		    (MPI_Test(&pd->mr, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || !flag))
			flag = 0;
		if (!flag || pd->owner || pd->coll) {
			p2p += !pd->coll;
			*pend_at(ep, keep++) = *pd;
		}
	}
	ep->pending.len = keep;
	return p2p;
}

/*
 * The caller gave up on what it posted. Receives are cancelled (a send is
 * not: MPI 4.1 deprecates cancelling one, and Open MPI's ob1 accepts the
 * call and cancels nothing) and every request is tested until it
 * completes, for ABANDON_S at most; what remains is in flight, and its
 * buffers are held (mpi_holds) until it completes (ft__ep_reclaim, at
 * close) or, for good, until MPI_Finalize.
 */
static void
mpi_abandon(struct ft_ep *base)
{
	struct mpi_ep *ep = ft_container_of(base, struct mpi_ep, base);
	double end = ft__now() + ABANDON_S;
	struct ft__nap nap = { 0 };
	size_t i, left, prev;

	for (i = 0; i < ep->pending.len; i++) {
		struct mpi_pend *pd = pend_at(ep, i);

		pd->owner = NULL;
		if (!pd->send && !pd->coll)
			MPI_Cancel(&pd->mr);
	}
	/*
	 * Nap between tests (nap.c), from pauses again whenever a request
	 * completed: no sched_yield(), which beside a busy process gives it the
	 * core for a whole slice of the ABANDON_S this may take.
	 */
	for (prev = left = reap(ep); left > 0 && ft__now() < end; prev = left) {
		ft__nap(&nap);
		left = reap(ep);
		if (left < prev)
			ft__nap_reset(&nap);
	}
}

static bool
mpi_holds(struct ft_ep *base, const void *p, size_t len)
{
	struct mpi_ep *ep = ft_container_of(base, struct mpi_ep, base);
	size_t i;
	int k;

	reap(ep);
	for (i = 0; i < ep->pending.len; i++)
		for (k = 0; k < 2; k++)
			if (pend_at(ep, i)->buf[k] &&
			    ft__overlaps(pend_at(ep, i)->buf[k], pend_at(ep, i)->len[k], p, len))
				return true;
	return false;
}

/*
 * Requests still in flight at close were given up on, and their buffers
 * were handed to the world when freed: MPI completes them by MPI_Finalize.
 * A point-to-point request may be freed while active (MPI 4.0, 3.7.3); a
 * collective's may not, and stays the library's.
 */
static void
mpi_close(struct ft_ep *base)
{
	struct mpi_ep *ep = ft_container_of(base, struct mpi_ep, base);
	size_t i;

	for (i = 0; i < ep->pending.len; i++)
		if (!pend_at(ep, i)->coll && pend_at(ep, i)->mr != MPI_REQUEST_NULL)
			MPI_Request_free(&pend_at(ep, i)->mr);
	ft_vec_release(&ep->pending);
	ft_free(ep);
}

static int
mpi_post(struct ft_ep *base, struct ft_req *req, bool send, struct ft_error *err)
{
	struct mpi_ep *ep = ft_container_of(base, struct mpi_ep, base);
	struct mpi_pend pd = { MPI_REQUEST_NULL, req, { req->buf }, { req->len }, req->peer, send };
	const char *call = send ? "MPI_Isend to" : "MPI_Irecv from";
	struct mpi_pend *fault = fault_target(ep, FAULT_POST);
	int rc;

	if (req->len > INT_MAX)
		return ft_error_set(err, FT_ERANGE, "mpi: message of %zu bytes is too large",
		                    req->len);
	if (fault)
		return ft_error_set(err, FT_EMPI, "mpi: %s rank %u failed: %s", call, req->peer,
		                    FAULT_WORDS);
	/* its place is taken first: nothing can fail once the request is posted */
	if (ft_vec_push(&ep->pending, &pd) < 0)
		return FT_ENOMEM;
	req->done = false;
	if (send)
		rc = MPI_Isend(req->buf, (int)req->len, MPI_BYTE, (int)req->peer, 7, MPI_COMM_WORLD,
		               &pend_at(ep, ep->pending.len - 1)->mr);
	else
		rc = MPI_Irecv(req->buf, (int)req->len, MPI_BYTE, (int)req->peer, 7, MPI_COMM_WORLD,
		               &pend_at(ep, ep->pending.len - 1)->mr);
	if (rc != MPI_SUCCESS) {
		ep->pending.len--;
		return ft_error_set(err, FT_EMPI, "mpi: %s rank %u failed", call, req->peer);
	}
	return 0;
}

FT__TRANSPORT_POSTS(mpi, mpi_post)

static int
mpi_progress(struct ft_ep *base, int timeout_ms, struct ft_error *err)
{
	struct mpi_ep *ep = ft_container_of(base, struct mpi_ep, base);
	struct mpi_pend *fault = fault_target(ep, FAULT_WAIT);
	size_t i, keep = 0;
	int done = 0;

	if (fault)
		return ft_error_set(err, FT_EMPI, "mpi: MPI_Test of a receive from rank %u failed: %s",
		                    fault->peer, FAULT_WORDS);
	for (i = 0; i < ep->pending.len; i++) {
		struct mpi_pend *pd = pend_at(ep, i);
		int flag = 0;

		if (!pd->coll && MPI_Test(&pd->mr, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
			ep->pending.len = keep + (ep->pending.len - i); /* none dropped */
			memmove(pend_at(ep, keep), pd, (ep->pending.len - keep) * sizeof(*pd));
			return ft_error_set(err, FT_EMPI, "mpi: MPI_Test of a %s rank %u failed",
			                    pd->send ? "send to" : "receive from", pd->peer);
		}
		if (flag && pd->owner) {
			pd->owner->done = true;
			done++;
		}
		if (!flag)
			*pend_at(ep, keep++) = *pd;
	}
	ep->pending.len = keep;
	return done;
}

/*
 * Complete the collective of @pd by polling, within the endpoint's timeout:
 * busy first (MPI progresses only inside its calls), then yielding the core
 * to ranks that share it. A failed rank's notice ends it early.
 */
static int
mpi_wait(struct ft_ep *base, struct mpi_pend *pd, const char *what, struct ft_error *err)
{
	struct mpi_ep *ep = ft_container_of(base, struct mpi_ep, base);
	double start = ft__now(), now;
	uint64_t spins = 0;
	int flag = 0;

	if (ep->fault == FAULT_COLL) {
		ep->fault = FAULT_NONE;
		return ft_error_set(err, FT_ETIMEDOUT, "mpi %s not done: given up at once, %s", what,
		                    FAULT_WORDS);
	}
	for (;;) {
		if (MPI_Test(&pd->mr, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return ft_error_set(err, FT_EMPI, "mpi: %s: MPI_Test failed", what);
		if (flag)
			return 0;
		if (++spins < 4096)
			continue;
		/*
		 * Wait as the peer, MPI's own blocking call (MPI_Wait, MPI_Allreduce),
		 * does: Open MPI polls its progress engine without yielding unless
		 * the node is oversubscribed, when its runtime turns
		 * mpi_yield_when_idle on (default off since open-mpi/ompi#3971, set
		 * from the node's oversubscription since #7168). A rank that may
		 * spin (cpu.c) tests without a break; one that may not (more ranks
		 * than CPUs here, --spin never) yields between tests, as Open MPI
		 * then does. A yield beside a busy process hands it the CPU for a
		 * whole time slice: a 4 MiB all_reduce on 2 ranks made 3,400
		 * sched_yield() calls an operation while its peer was running.
		 * The yield stays on purpose for the oversubscribed case, not a nap
		 * (nap.c): ranks sharing a CPU take turns, and the peer it is
		 * measured against takes them by yielding, without a sleep's
		 * wake-up in every turn.
		 */
		if (!base->w->may_spin)
			sched_yield();
		if (spins % 64)
			continue;
		now = ft__now();
		if (base->stop && *base->stop)
			return ft_error_set(err, FT_EINTR, "interrupted");
		if (now - start > FT__NOTICE_S && ft__world_peer_failed(base->w, err) < 0)
			return FT_EPEER;
		if (now - start <= base->timeout_s)
			continue;
		if (ft__ep_stopped(base, "mpi", what, err) < 0)
			return FT_ETIMEDOUT;
		return ft_error_set(err, FT_ETIMEDOUT,
		                    "mpi %s not done after %.0fs (--timeout): a rank stopped "
		                    "answering",
		                    what, base->timeout_s);
	}
}

static MPI_Datatype
mpi_type(enum ft_dtype t)
{
	switch (t) {
	case FT_DTYPE_INT8:
		return MPI_INT8_T;
	case FT_DTYPE_UINT8:
		return MPI_UINT8_T;
	case FT_DTYPE_INT32:
		return MPI_INT32_T;
	case FT_DTYPE_UINT32:
		return MPI_UINT32_T;
	case FT_DTYPE_INT64:
		return MPI_INT64_T;
	case FT_DTYPE_UINT64:
		return MPI_UINT64_T;
	case FT_DTYPE_FLOAT:
		return MPI_FLOAT;
	case FT_DTYPE_HALF:
	case FT_DTYPE_BFLOAT16:
		/* no MPI type: 16-bit words, reduced by a user-defined operation */
		return MPI_UINT16_T;
	case FT_DTYPE_DOUBLE:
	case FT_DTYPE_COUNT:
		break;
	}
	return MPI_DOUBLE;
}

static MPI_Op
mpi_op(enum ft_redop op)
{
	switch (op) {
	case FT_REDOP_PROD:
		return MPI_PROD;
	case FT_REDOP_MAX:
		return MPI_MAX;
	case FT_REDOP_MIN:
		return MPI_MIN;
	case FT_REDOP_SUM:
	case FT_REDOP_AVG:    /* the runner divides the sum afterwards */
	case FT_REDOP_MULSUM: /* the runner scales each rank's input beforehand */
	case FT_REDOP_COUNT:
		break;
	}
	return MPI_SUM;
}

/*
 * half and bfloat16: MPI has no such types, so the reduction is a user
 * operation over MPI_UINT16_T words that widens to float, reduces and
 * rounds back, as the other transports do. One collective is in flight per
 * process at a time, so the type and operation it reduces are file state.
 */
static enum ft_dtype user_dtype;
static enum ft_redop user_redop;

static void
user_reduce(void *in, void *inout, int *len, MPI_Datatype *type)
{
	(void)type;
	if (*len > 0)
		ft__data_reduce(inout, in, (size_t)*len, user_dtype, user_redop);
}

static bool
needs_user_op(enum ft_dtype t)
{
	return t == FT_DTYPE_HALF || t == FT_DTYPE_BFLOAT16;
}

static int
mpi_coll(struct ft_ep *base, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	int n = (int)base->w->nranks, r = (int)base->w->rank, c, rc;
	size_t es = ft_dtype_size(a->dtype);
	MPI_Datatype t = mpi_type(a->dtype);
	MPI_Op op = mpi_op(a->op), user = MPI_OP_NULL;
	struct mpi_ep *ep = ft_container_of(base, struct mpi_ep, base);
	struct mpi_pend *pd;
	MPI_Request mr = MPI_REQUEST_NULL;
	bool inplace = false;

	if (a->count > INT_MAX / (size_t)n)
		return ft_error_set(err, FT_ERANGE, "mpi: %zu elements is more than MPI's int",
		                    a->count);
	c = (int)a->count;
	{
		/* its place is taken first: both buffers are held while MPI has them */
		struct mpi_pend hold = { MPI_REQUEST_NULL, NULL, { a->sendbuf, a->recvbuf } };

		hold.coll = true;
		ft__bench_bufsizes(a->coll, a->count, es, (uint32_t)n, &hold.len[0], &hold.len[1]);
		if (ft_vec_push(&ep->pending, &hold) < 0)
			return FT_ENOMEM;
	}
	if (needs_user_op(a->dtype) &&
	    (a->coll == FT_OP_ALL_REDUCE || a->coll == FT_OP_REDUCE ||
	     a->coll == FT_OP_REDUCE_SCATTER)) {
		user_dtype = a->dtype;
		user_redop = a->op;
		if (MPI_Op_create(user_reduce, 1, &user) != MPI_SUCCESS)
			return ft_error_set(err, FT_EMPI, "mpi: cannot create the %s %s operation",
			                    ft_dtype_name(a->dtype), ft_redop_name(a->op));
		op = user;
	}
	switch (a->coll) {
	case FT_OP_ALL_REDUCE:
		inplace = a->sendbuf == a->recvbuf;
		rc = MPI_Iallreduce(inplace ? MPI_IN_PLACE : a->sendbuf, a->recvbuf, c, t, op,
		                    MPI_COMM_WORLD, &mr);
		break;
	case FT_OP_ALL_GATHER:
		inplace = a->sendbuf == (const char *)a->recvbuf + (size_t)r * a->count * es;
		rc = MPI_Iallgather(inplace ? MPI_IN_PLACE : a->sendbuf, c, t, a->recvbuf, c, t,
		                    MPI_COMM_WORLD, &mr);
		break;
	case FT_OP_REDUCE_SCATTER:
		inplace = a->recvbuf == (const char *)a->sendbuf + (size_t)r * a->count * es;
		if (inplace)
			rc = MPI_Ireduce_scatter_block(MPI_IN_PLACE, (void *)a->sendbuf, c, t, op,
			                               MPI_COMM_WORLD, &mr);
		else
			rc = MPI_Ireduce_scatter_block(a->sendbuf, a->recvbuf, c, t, op,
			                               MPI_COMM_WORLD, &mr);
		break;
	case FT_OP_ALLTOALL:
		inplace = a->sendbuf == a->recvbuf;
		rc = MPI_Ialltoall(inplace ? MPI_IN_PLACE : a->sendbuf, c, t, a->recvbuf, c, t,
		                   MPI_COMM_WORLD, &mr);
		break;
	case FT_OP_BROADCAST:
		if (r == a->root && a->sendbuf != a->recvbuf)
			memcpy(a->recvbuf, a->sendbuf, a->count * es);
		rc = MPI_Ibcast(a->recvbuf, c, t, a->root, MPI_COMM_WORLD, &mr);
		break;
	case FT_OP_REDUCE:
		inplace = a->sendbuf == a->recvbuf && r == a->root;
		rc = MPI_Ireduce(inplace ? MPI_IN_PLACE : a->sendbuf, a->recvbuf, c, t, op, a->root,
		                 MPI_COMM_WORLD, &mr);
		break;
	default:
		rc = FT_ENOTSUP;
		break;
	}
	if (rc == FT_ENOTSUP || rc != MPI_SUCCESS) {
		ep->pending.len--;
		if (user != MPI_OP_NULL)
			MPI_Op_free(&user);
		if (rc == FT_ENOTSUP)
			return rc;
		return ft_error_set(err, FT_EMPI, "mpi: %s failed", ft_op_name(a->coll));
	}
	pd = pend_at(ep, ep->pending.len - 1);
	pd->mr = mr;
	rc = mpi_wait(base, pd, ft_op_name(a->coll), err);
	if (rc == 0)
		ep->pending.len--;
	if (user != MPI_OP_NULL)
		MPI_Op_free(&user); /* only marked for deallocation: one in flight keeps it */
	if (rc == 0 && a->coll == FT_OP_REDUCE_SCATTER && inplace)
		memmove(a->recvbuf, a->sendbuf, a->count * es);
	return rc;
}

const struct ft_transport_ops ft_mpi_transport = {
	FT__TRANSPORT_P2P_OPS(mpi, mpi_open,
	                      "the MPI library's point-to-point and collectives (under mpirun)"),
	.coll = mpi_coll,
	.spin_polls = 1 << 30, /* MPI progresses only inside its calls */
	.rank_local = 40,
	.rank_remote = 40,
};

#else

static int
mpi_probe(const struct ft_bench_cfg *cfg, struct ft_error *err)
{
	return ft_error_set(err, FT_ENOTSUP, "this fabtune was built without MPI");
}

const struct ft_transport_ops ft_mpi_transport = {
	.name = "mpi",
	.summary = "the MPI library's point-to-point and collectives (not built)",
	.probe = mpi_probe,
};

#endif

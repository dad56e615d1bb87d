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
 * which ends every rank.
 */
#include "bench_int.h"

#if FT_HAVE_MPI
#include <mpi.h>
#include <sched.h>

struct mpi_ep {
	struct ft_ep base;
	struct ft_vec pending; /* struct ft_req * */
};

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
	ft_vec_init(&ep->pending, sizeof(struct ft_req *));
	*out = &ep->base;
	return 0;
}

static void
mpi_close(struct ft_ep *base)
{
	struct mpi_ep *ep = ft_container_of(base, struct mpi_ep, base);

	ft_vec_release(&ep->pending);
	ft_free(ep);
}

static int
mpi_post(struct ft_ep *base, struct ft_req *req, bool send, struct ft_error *err)
{
	struct mpi_ep *ep = ft_container_of(base, struct mpi_ep, base);
	MPI_Request mr;
	int rc;

	if (req->len > INT_MAX)
		return ft_error_set(err, FT_ERANGE, "mpi: message of %zu bytes is too large",
		                    req->len);
	req->done = false;
	if (send)
		rc = MPI_Isend(req->buf, (int)req->len, MPI_BYTE, (int)req->peer, 7, MPI_COMM_WORLD,
		               &mr);
	else
		rc = MPI_Irecv(req->buf, (int)req->len, MPI_BYTE, (int)req->peer, 7, MPI_COMM_WORLD,
		               &mr);
	if (rc != MPI_SUCCESS)
		return ft_error_set(err, FT_EMPI, "mpi: %s to rank %u failed",
		                    send ? "MPI_Isend" : "MPI_Irecv", req->peer);
	_Static_assert(sizeof(mr) <= sizeof(req->priv), "MPI_Request fits");
	memcpy(req->priv, &mr, sizeof(mr));
	return ft_vec_push(&ep->pending, &req);
}

FT__TRANSPORT_POSTS(mpi, mpi_post)

static int
mpi_progress(struct ft_ep *base, int timeout_ms, struct ft_error *err)
{
	struct mpi_ep *ep = ft_container_of(base, struct mpi_ep, base);
	size_t i, keep = 0;
	int done = 0;

	for (i = 0; i < ep->pending.len; i++) {
		struct ft_req *q = FT_VEC_AT(&ep->pending, struct ft_req *, i);
		MPI_Request mr;
		int flag = 0;

		memcpy(&mr, q->priv, sizeof(mr));
		if (MPI_Test(&mr, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return ft_error_set(err, FT_EMPI, "mpi: MPI_Test failed (rank %u)",
			                    q->peer);
		memcpy(q->priv, &mr, sizeof(mr));
		if (flag) {
			q->done = true;
			done++;
		} else {
			FT_VEC_AT(&ep->pending, struct ft_req *, keep++) = q;
		}
	}
	ep->pending.len = keep;
	return done;
}

/*
 * Complete @mr by polling, within the endpoint's timeout: busy first (MPI
 * progresses only inside its calls), then yielding the core to ranks that
 * share it.
 */
static int
mpi_wait(struct ft_ep *base, MPI_Request *mr, const char *what, struct ft_error *err)
{
	double start = ft__now(), now;
	uint64_t spins = 0;
	int flag = 0;

	for (;;) {
		if (MPI_Test(mr, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return ft_error_set(err, FT_EMPI, "mpi: %s: MPI_Test failed", what);
		if (flag)
			return 0;
		if (++spins < 4096)
			continue;
		sched_yield();
		if (spins % 64)
			continue;
		now = ft__now();
		if (base->stop && *base->stop)
			return ft_error_set(err, FT_EINTR, "interrupted");
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
	MPI_Request mr = MPI_REQUEST_NULL;
	bool inplace = false;

	if (a->count > INT_MAX / (size_t)n)
		return ft_error_set(err, FT_ERANGE, "mpi: %zu elements is more than MPI's int",
		                    a->count);
	c = (int)a->count;
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
		if (user != MPI_OP_NULL)
			MPI_Op_free(&user);
		if (rc == FT_ENOTSUP)
			return rc;
		return ft_error_set(err, FT_EMPI, "mpi: %s failed", ft_op_name(a->coll));
	}
	rc = mpi_wait(base, &mr, ft_op_name(a->coll), err);
	if (user != MPI_OP_NULL)
		MPI_Op_free(&user);
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

/* SPDX-License-Identifier: MIT */
/*
 * bench/nccl.c - the nccl transport and the device copy test, with NCCL and
 * the CUDA runtime loaded by dlopen().
 *
 * fabtune never needs nccl.h or cuda_runtime.h: the few entry points used
 * are declared below with their ABI-stable C signatures (NCCL 2.x, CUDA
 * runtime 11+). libnccl.so.2 (or $FABTUNE_NCCL_LIBRARY) and libcudart.so*
 * (or $FABTUNE_CUDART_LIBRARY) are opened on first use; any failure becomes
 * FT_ENOTSUP with a message saying what was tried, and the rest of fabtune
 * is unaffected.
 *
 * Collectives run on device buffers through NCCL's own algorithms. The host
 * buffers of the runner are copied in and out only for the validation pass
 * (ft_bench_coll_args.staged), so the timed loop measures NCCL alone, as
 * nccl-tests does. Point-to-point patterns are not offered on nccl.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "patterns.h"

/* ---- the ABI we rely on ------------------------------------------------------ */

typedef int nccl_result_t; /* ncclResult_t: 0 = ncclSuccess */
typedef void *nccl_comm_t;
typedef void *cuda_stream_t;
typedef struct {
	char internal[128]; /* NCCL_UNIQUE_ID_BYTES */
} nccl_unique_id_t;

enum {
	NCCL_INT8 = 0,
	NCCL_UINT8 = 1,
	NCCL_INT32 = 2,
	NCCL_UINT32 = 3,
	NCCL_INT64 = 4,
	NCCL_UINT64 = 5,
	NCCL_FLOAT16 = 6,
	NCCL_FLOAT32 = 7,
	NCCL_FLOAT64 = 8,
	NCCL_BFLOAT16 = 9 /* NCCL 2.10+ */
};
enum {
	NCCL_SUM = 0,
	NCCL_PROD = 1,
	NCCL_MAX = 2,
	NCCL_MIN = 3,
	NCCL_AVG = 4 /* NCCL 2.10+ */
};
#define NCCL_SCALAR_HOST_IMMEDIATE 1 /* ncclScalarHostImmediate */
enum {
	CUDA_MEMCPY_H2D = 1,
	CUDA_MEMCPY_D2H = 2,
	CUDA_MEMCPY_D2D = 3
};

struct nccl_api {
	void *lib, *cudart;
	nccl_result_t (*GetVersion)(int *v);
	nccl_result_t (*GetUniqueId)(nccl_unique_id_t *id);
	nccl_result_t (*CommInitRank)(nccl_comm_t *comm, int nranks, nccl_unique_id_t id, int rank);
	nccl_result_t (*CommDestroy)(nccl_comm_t comm);
	const char *(*GetErrorString)(nccl_result_t r);
	nccl_result_t (*AllReduce)(const void *s, void *r, size_t n, int t, int op, nccl_comm_t c,
	                           cuda_stream_t st);
	nccl_result_t (*AllGather)(const void *s, void *r, size_t n, int t, nccl_comm_t c,
	                           cuda_stream_t st);
	nccl_result_t (*ReduceScatter)(const void *s, void *r, size_t n, int t, int op,
	                               nccl_comm_t c, cuda_stream_t st);
	nccl_result_t (*Broadcast)(const void *s, void *r, size_t n, int t, int root, nccl_comm_t c,
	                           cuda_stream_t st);
	nccl_result_t (*Reduce)(const void *s, void *r, size_t n, int t, int op, int root,
	                        nccl_comm_t c, cuda_stream_t st);
	nccl_result_t (*Send)(const void *s, size_t n, int t, int peer, nccl_comm_t c,
	                      cuda_stream_t st);
	nccl_result_t (*Recv)(void *r, size_t n, int t, int peer, nccl_comm_t c, cuda_stream_t st);
	nccl_result_t (*GroupStart)(void);
	nccl_result_t (*GroupEnd)(void);
	/* since NCCL 2.4: what a deadline needs to give up on a communicator */
	nccl_result_t (*CommAbort)(nccl_comm_t c);
	nccl_result_t (*CommGetAsyncError)(nccl_comm_t c, nccl_result_t *async);
	/* since NCCL 2.11, looked up but not required: mulsum needs them */
	nccl_result_t (*RedOpCreatePreMulSum)(int *op, void *scalar, int t, int residence,
	                                      nccl_comm_t c);
	nccl_result_t (*RedOpDestroy)(int op, nccl_comm_t c);
	/* CUDA runtime: cudaError_t is an int, 0 = cudaSuccess */
	int (*cudaGetDeviceCount)(int *n);
	int (*cudaSetDevice)(int d);
	int (*cudaMalloc)(void **p, size_t n);
	int (*cudaFree)(void *p);
	int (*cudaMemcpy)(void *d, const void *s, size_t n, int kind);
	int (*cudaStreamCreate)(cuda_stream_t *s);
	int (*cudaStreamDestroy)(cuda_stream_t s);
	int (*cudaStreamSynchronize)(cuda_stream_t s);
	int (*cudaStreamQuery)(cuda_stream_t s); /* 0 done, 600 (cudaErrorNotReady) pending */
	int (*cudaDeviceSynchronize)(void);
	const char *(*cudaGetErrorString)(int e);
	int (*cudaMallocHost)(void **p, size_t n);
	int (*cudaFreeHost)(void *p);
	int (*cudaDeviceCanAccessPeer)(int *can, int dev, int peer);
	int (*cudaDeviceEnablePeerAccess)(int peer, unsigned flags);
	/* CUDA graphs (runtime 11.4+), looked up but not required: -G needs them */
	int (*cudaStreamBeginCapture)(cuda_stream_t s, int mode);
	int (*cudaStreamEndCapture)(cuda_stream_t s, void **graph);
	int (*cudaGraphInstantiateWithFlags)(void **exec, void *graph, unsigned long long flags);
	int (*cudaGraphLaunch)(void *exec, cuda_stream_t s);
	int (*cudaGraphExecDestroy)(void *exec);
	int (*cudaGraphDestroy)(void *graph);
};

/* cudaStreamCaptureModeGlobal, the mode nccl-tests captures in */
#define CUDA_CAPTURE_MODE_GLOBAL 0

#define SYM(lib, field, name)                               \
	{                                                   \
		lib, offsetof(struct nccl_api, field), name \
	}

static const struct {
	int lib; /* 0 nccl, 1 cudart */
	size_t off;
	const char *name;
} syms[] = {
	SYM(0, GetVersion, "ncclGetVersion"),
	SYM(0, GetUniqueId, "ncclGetUniqueId"),
	SYM(0, CommInitRank, "ncclCommInitRank"),
	SYM(0, CommDestroy, "ncclCommDestroy"),
	SYM(0, GetErrorString, "ncclGetErrorString"),
	SYM(0, AllReduce, "ncclAllReduce"),
	SYM(0, AllGather, "ncclAllGather"),
	SYM(0, ReduceScatter, "ncclReduceScatter"),
	SYM(0, Broadcast, "ncclBroadcast"),
	SYM(0, Reduce, "ncclReduce"),
	SYM(0, Send, "ncclSend"),
	SYM(0, Recv, "ncclRecv"),
	SYM(0, GroupStart, "ncclGroupStart"),
	SYM(0, GroupEnd, "ncclGroupEnd"),
	SYM(0, CommAbort, "ncclCommAbort"),
	SYM(0, CommGetAsyncError, "ncclCommGetAsyncError"),
	SYM(1, cudaGetDeviceCount, "cudaGetDeviceCount"),
	SYM(1, cudaSetDevice, "cudaSetDevice"),
	SYM(1, cudaMalloc, "cudaMalloc"),
	SYM(1, cudaFree, "cudaFree"),
	SYM(1, cudaMemcpy, "cudaMemcpy"),
	SYM(1, cudaStreamCreate, "cudaStreamCreate"),
	SYM(1, cudaStreamDestroy, "cudaStreamDestroy"),
	SYM(1, cudaStreamSynchronize, "cudaStreamSynchronize"),
	SYM(1, cudaStreamQuery, "cudaStreamQuery"),
	SYM(1, cudaDeviceSynchronize, "cudaDeviceSynchronize"),
	SYM(1, cudaGetErrorString, "cudaGetErrorString"),
	SYM(1, cudaMallocHost, "cudaMallocHost"),
	SYM(1, cudaFreeHost, "cudaFreeHost"),
	SYM(1, cudaDeviceCanAccessPeer, "cudaDeviceCanAccessPeer"),
	SYM(1, cudaDeviceEnablePeerAccess, "cudaDeviceEnablePeerAccess"),
};

static void *
open_first(const char *env, const char *const *names, size_t n, char *tried, size_t tlen)
{
	const char *over = getenv(env);
	size_t i, used = strlen(tried);
	void *h;

	if (over && *over) {
		h = dlopen(over, RTLD_NOW | RTLD_LOCAL);
		if (!h)
			snprintf(tried + used, tlen - used, "%s%s=%s: %s", used ? "; " : "", env,
			         over, dlerror());
		return h;
	}
	for (i = 0; i < n; i++) {
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (h)
			return h;
		used = strlen(tried);
		snprintf(tried + used, tlen - used, "%s%s", used ? ", " : "", names[i]);
	}
	used = strlen(tried);
	snprintf(tried + used, tlen - used, ": not found");
	return NULL;
}

/* Load the libraries (NCCL only when @want_nccl) into @api. */
static int
api_load(struct nccl_api *api, bool want_nccl, struct ft_error *err)
{
	static const char *const nccl_names[] = { "libnccl.so.2", "libnccl.so" };
	static const char *const cudart_names[] = { "libcudart.so", "libcudart.so.13",
		                                    "libcudart.so.12", "libcudart.so.11.0" };
	char tried[384] = "";
	size_t i;
	int v = 0;

	memset(api, 0, sizeof(*api));
	if (want_nccl) {
		api->lib = open_first("FABTUNE_NCCL_LIBRARY", nccl_names, FT_ARRAY_SIZE(nccl_names),
		                      tried, sizeof(tried));
		if (!api->lib)
			return ft_error_set(err, FT_ENOTSUP, "not available (%s)", tried);
	}
	api->cudart = open_first("FABTUNE_CUDART_LIBRARY", cudart_names,
	                         FT_ARRAY_SIZE(cudart_names), tried, sizeof(tried));
	if (!api->cudart)
		goto fail_msg;
	for (i = 0; i < FT_ARRAY_SIZE(syms); i++) {
		void *lib = syms[i].lib ? api->cudart : api->lib, *f;

		if (!lib)
			continue;
		f = dlsym(lib, syms[i].name);
		if (!f) {
			ft_error_set(err, FT_ENOTSUP, "not available (%s has no %s)",
			             syms[i].lib ? "the CUDA runtime" : "libnccl", syms[i].name);
			goto fail;
		}
		memcpy((char *)api + syms[i].off, &f, sizeof(f));
	}
	{
		static const struct {
			size_t off;
			const char *name;
		} graph_syms[] = {
			{ offsetof(struct nccl_api, cudaStreamBeginCapture),
			  "cudaStreamBeginCapture" },
			{ offsetof(struct nccl_api, cudaStreamEndCapture), "cudaStreamEndCapture" },
			{ offsetof(struct nccl_api, cudaGraphInstantiateWithFlags),
			  "cudaGraphInstantiateWithFlags" },
			{ offsetof(struct nccl_api, cudaGraphLaunch), "cudaGraphLaunch" },
			{ offsetof(struct nccl_api, cudaGraphExecDestroy), "cudaGraphExecDestroy" },
			{ offsetof(struct nccl_api, cudaGraphDestroy), "cudaGraphDestroy" },
		};
		void *f[FT_ARRAY_SIZE(graph_syms)];
		size_t k, found = 0;

		for (k = 0; k < FT_ARRAY_SIZE(graph_syms); k++)
			found += (f[k] = dlsym(api->cudart, graph_syms[k].name)) != NULL;
		for (k = 0; found == FT_ARRAY_SIZE(graph_syms) && k < found; k++)
			memcpy((char *)api + graph_syms[k].off, &f[k], sizeof(f[k]));
	}
	if (api->lib) {
		void *f = dlsym(api->lib, "ncclRedOpCreatePreMulSum");
		void *g = dlsym(api->lib, "ncclRedOpDestroy");

		if (f && g) {
			memcpy(&api->RedOpCreatePreMulSum, &f, sizeof(f));
			memcpy(&api->RedOpDestroy, &g, sizeof(g));
		}
	}
	if (want_nccl) {
		/* 2.9+ encodes major*10000 + minor*100 + patch, older major*1000 + minor*100 */
		if (api->GetVersion(&v) != 0 || (v >= 10000 ? v < 20700 : v < 2700)) {
			ft_error_set(err, FT_ENOTSUP,
			             "not available (NCCL version code %d, need 2.7+)", v);
			goto fail;
		}
	}
	{
		int ndev = 0;

		if (api->cudaGetDeviceCount(&ndev) != 0 || ndev == 0) {
			ft_error_set(err, FT_ENOTSUP, "not available (no CUDA device visible)");
			goto fail;
		}
	}
	return 0;
fail_msg:
	ft_error_set(err, FT_ENOTSUP, "not available (%s)", tried);
fail:
	if (api->lib)
		dlclose(api->lib);
	if (api->cudart)
		dlclose(api->cudart);
	memset(api, 0, sizeof(*api));
	return FT_ENOTSUP;
}

static void
api_unload(struct nccl_api *api)
{
	if (api->lib)
		dlclose(api->lib);
	if (api->cudart)
		dlclose(api->cudart);
	memset(api, 0, sizeof(*api));
}

/* ---- the transport ------------------------------------------------------------ */

struct nccl_ep {
	struct ft_ep base;
	struct nccl_api api;
	nccl_comm_t comm;
	cuda_stream_t stream;
	int device;
	void *dbuf[2];
	size_t dbytes[2];
	/*
	 * A collective may still run on the stream (enqueued, not yet waited
	 * for): its device buffers are NCCL's until it ends or the communicator
	 * is aborted. A collective cannot be cancelled, and cudaFree() of its
	 * buffers would first wait for it, for ever if a peer stopped: every
	 * path that gives up on one aborts the communicator first (nccl_give_up).
	 */
	bool inflight;
	bool capturing; /* -G: collectives are recorded into a graph, not run */
	bool fault;     /* FT_FAULT_NCCL=coll:R armed on this rank (nccl_fault) */
};

/* Give up on the communicator: the collective never completes, and the ranks are told. */
static void
abort_comm(struct nccl_ep *ep)
{
	if (ep->comm)
		ep->api.CommAbort(ep->comm);
	ep->comm = NULL;
	ep->inflight = false;
}

/* An error ends the collective on the stream: it is given up on before its buffers go. */
static int
nccl_give_up(struct nccl_ep *ep, int rc)
{
	if (rc < 0 && ep->inflight)
		abort_comm(ep);
	return rc;
}

static void
nccl_abandon(struct ft_ep *base)
{
	nccl_give_up(ft_container_of(base, struct nccl_ep, base), -1);
}

/*
 * FT_FAULT_NCCL=coll:R, for tests: rank R gives up on its first collective
 * (or graph launch) as soon as it is on the stream, as an error of a later
 * call would, while the collective still runs.
 */
static bool
nccl_fault_armed(const struct ft_world *w)
{
	const char *e = getenv("FT_FAULT_NCCL");
	uint64_t r;

	return e && strncmp(e, "coll:", 5) == 0 && ft_parse_u64(e + 5, &r) == 0 && r == w->rank;
}

static int
nccl_fault(struct nccl_ep *ep, const char *what, struct ft_error *err)
{
	if (!ep->fault)
		return 0;
	ep->fault = false;
	return ft_error_set(err, FT_EIO, "GPU %d: nccl %s given up on once enqueued: a fault "
	                    "injected by FT_FAULT_NCCL",
	                    ep->device, what);
}

static int
nccl_probe(const struct ft_bench_cfg *cfg, struct ft_error *err)
{
	struct nccl_api api;
	int rc = api_load(&api, true, err);

	if (rc == 0)
		api_unload(&api);
	return rc;
}

/* This rank's position among the ranks of its host: its GPU. */
static int
local_index(const struct ft_world *w)
{
	uint32_t k = 0;

	ft__world_local(w, &k);
	return (int)k;
}

static void
nccl_close(struct ft_ep *base)
{
	struct nccl_ep *ep = ft_container_of(base, struct nccl_ep, base);
	int i;

	nccl_give_up(ep, -1); /* before the buffers: cudaFree would wait for the collective */
	for (i = 0; i < 2; i++)
		if (ep->dbuf[i])
			ep->api.cudaFree(ep->dbuf[i]);
	if (ep->comm)
		ep->api.CommDestroy(ep->comm);
	if (ep->stream)
		ep->api.cudaStreamDestroy(ep->stream);
	api_unload(&ep->api);
	ft_free(ep);
}

/*
 * ncclCommInitRank() under a deadline. It blocks until every rank has joined
 * the communicator, and a rank stopped or dead before that would hold the
 * others there for ever. It therefore runs in a helper thread while the
 * calling thread waits on a condition variable (CLOCK_MONOTONIC) for at most
 * --timeout, checking the stop flag between short slices.
 *
 * The outcome (result code and communicator) is handed over under the mutex.
 * At the deadline the caller marks the job abandoned and returns
 * FT_ETIMEDOUT; the helper thread is detached and left behind, blocked in
 * libnccl, and the process ends soon after (the launcher stops the other
 * ranks). Ownership on a late finish: whichever side comes last frees the
 * job; a communicator that a helper thread obtains after it was abandoned is
 * left alone, neither destroyed nor aborted. It belongs to nobody, calling
 * into NCCL again from a thread nobody waits for could block once more, and
 * the caller never touched it, so there is nothing of the caller's to
 * destroy. The libraries are kept loaded for the same reason (nccl_open).
 * NCCL's non-blocking initialisation (2.14+) is not used: what it means for
 * the calls that follow cannot be checked without a GPU.
 */
struct init_job {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	nccl_result_t (*init)(nccl_comm_t *comm, int nranks, nccl_unique_id_t id, int rank);
	nccl_unique_id_t id;
	int nranks, rank;
	/* under mu */
	bool done, abandoned;
	nccl_result_t nr;
	nccl_comm_t comm;
};

static void
init_job_free(struct init_job *job)
{
	pthread_cond_destroy(&job->cv);
	pthread_mutex_destroy(&job->mu);
	ft_free(job);
}

static void *
init_thread(void *arg)
{
	struct init_job *job = arg;
	nccl_comm_t comm = NULL;
	nccl_result_t nr = job->init(&comm, job->nranks, job->id, job->rank);
	bool abandoned;

	pthread_mutex_lock(&job->mu);
	abandoned = job->abandoned;
	if (!abandoned) {
		job->nr = nr;
		job->comm = nr == 0 ? comm : NULL;
		job->done = true;
		pthread_cond_signal(&job->cv);
	}
	pthread_mutex_unlock(&job->mu);
	/* abandoned: the caller let go of the job; the communicator is left alone */
	if (abandoned)
		init_job_free(job);
	return NULL;
}

/*
 * Run CommInitRank for @ep within cfg->timeout_s. Returns 0 with *@nr the
 * NCCL result (ep->comm set on success); FT_ETIMEDOUT at the deadline or
 * FT_EINTR on the stop flag, both with the helper thread left behind; or
 * FT_ENOMEM / FT_EIO when no thread could be started.
 */
static int
comm_init_within(struct nccl_ep *ep, struct ft_world *w, const nccl_unique_id_t *id,
                 const struct ft_bench_cfg *cfg, nccl_result_t *nr, struct ft_error *err)
{
	double timeout = cfg->timeout_s > 0 ? cfg->timeout_s : 30;
	struct init_job *job = ft_calloc(1, sizeof(*job));
	pthread_condattr_t ca;
	pthread_attr_t ta;
	pthread_t th;
	struct timespec now, until;
	double start = ft__now();
	bool done, stopped = false;
	char who[96];
	int s;

	if (!job)
		return FT_ENOMEM;
	job->init = ep->api.CommInitRank;
	job->id = *id;
	job->nranks = (int)w->nranks;
	job->rank = (int)w->rank;
	pthread_mutex_init(&job->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&job->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_attr_init(&ta);
	pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
	s = pthread_create(&th, &ta, init_thread, job);
	pthread_attr_destroy(&ta);
	if (s != 0) {
		init_job_free(job);
		return ft_error_set(err, FT_EIO, "cannot start a thread for communicator init: %s",
		                    strerror(s));
	}

	pthread_mutex_lock(&job->mu);
	for (;;) {
		double left = timeout - (ft__now() - start), slice = left < 0.1 ? left : 0.1;

		if (job->done || left <= 0 || (cfg->stop && *cfg->stop))
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		until.tv_sec = now.tv_sec + (time_t)slice;
		until.tv_nsec = now.tv_nsec + (long)((slice - (double)(time_t)slice) * 1e9);
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		s = pthread_cond_timedwait(&job->cv, &job->mu, &until);
		if (s != 0 && s != ETIMEDOUT)
			break; /* cannot happen with a valid deadline; end as at the deadline */
	}
	done = job->done;
	if (done) {
		*nr = job->nr;
		ep->comm = job->comm;
	} else {
		job->abandoned = true;
		stopped = cfg->stop && *cfg->stop;
	}
	pthread_mutex_unlock(&job->mu);
	if (done) {
		/* the helper thread signalled under the mutex and touches the job no more */
		init_job_free(job);
		return 0;
	}
	/* the helper thread frees the job if init ever returns */
	if (stopped)
		return ft_error_set(err, FT_EINTR, "interrupted");
	ft__world_who(w, w->rank, who, sizeof(who));
	s = ft__world_stopped_rank(w);
	if (s >= 0) {
		char other[96];

		return ft_error_set(err, FT_ETIMEDOUT,
		                    "communicator init not done after %.0fs (--timeout) on "
		                    "%s GPU %d: %s is stopped (SIGSTOP or a debugger)",
		                    timeout, who, ep->device,
		                    ft__world_who(w, (uint32_t)s, other, sizeof(other)));
	}
	return ft_error_set(err, FT_ETIMEDOUT,
	                    "communicator init not done after %.0fs (--timeout) on %s GPU "
	                    "%d: a rank did not join",
	                    timeout, who, ep->device);
}

static int
nccl_open(struct ft_world *w, const struct ft_bench_cfg *cfg, struct ft_ep **out,
          struct ft_error *err)
{
	struct nccl_ep *ep = ft_calloc(1, sizeof(*ep));
	nccl_unique_id_t id;
	int rc, ndev = 0, nr;

	if (!ep)
		return FT_ENOMEM;
	rc = api_load(&ep->api, true, err);
	if (rc < 0) {
		ft_free(ep);
		return rc;
	}
	ep->api.cudaGetDeviceCount(&ndev);
	ep->device = local_index(w) % (ndev ? ndev : 1);
	if (ep->api.cudaSetDevice(ep->device) != 0 || ep->api.cudaStreamCreate(&ep->stream) != 0) {
		rc = ft_error_set(err, FT_EIO, "host %s: cannot use GPU %d", w->info[w->rank].host,
		                  ep->device);
		goto fail;
	}
	memset(&id, 0, sizeof(id));
	if (w->rank == 0 && (nr = ep->api.GetUniqueId(&id)) != 0) {
		rc = ft_error_set(err, FT_EIO, "ncclGetUniqueId: %s", ep->api.GetErrorString(nr));
		goto fail;
	}
	rc = ft__world_bcast(w, &id, sizeof(id), 0, err);
	if (rc < 0)
		goto fail;
	rc = comm_init_within(ep, w, &id, cfg, &nr, err);
	if (rc < 0) {
		if (rc == FT_ETIMEDOUT || rc == FT_EINTR) {
			/* the helper thread is still inside libnccl: keep it loaded */
			ep->api.lib = ep->api.cudart = NULL;
			ep->stream = NULL;
		}
		goto fail;
	}
	if (nr != 0) {
		ep->comm = NULL;
		rc = ft_error_set(err, FT_EIO, "ncclCommInitRank on host %s GPU %d: %s",
		                  w->info[w->rank].host, ep->device, ep->api.GetErrorString(nr));
		goto fail;
	}
	ep->base.abandon = nccl_abandon;
	ep->fault = nccl_fault_armed(w);
	*out = &ep->base;
	return 0;
fail:
	nccl_close(&ep->base);
	return rc;
}

static void *
dscratch(struct nccl_ep *ep, int i, size_t bytes)
{
	if (ep->dbytes[i] >= bytes && ep->dbuf[i])
		return ep->dbuf[i];
	if (ep->dbuf[i])
		ep->api.cudaFree(ep->dbuf[i]);
	ep->dbuf[i] = NULL;
	ep->dbytes[i] = 0;
	if (ep->api.cudaMalloc(&ep->dbuf[i], bytes ? bytes : 1) != 0) {
		ep->dbuf[i] = NULL;
		return NULL;
	}
	ep->dbytes[i] = bytes;
	return ep->dbuf[i];
}

static int
nccl_type(enum ft_dtype t)
{
	static const int map[FT_DTYPE_COUNT] = {
		[FT_DTYPE_INT8] = NCCL_INT8,     [FT_DTYPE_UINT8] = NCCL_UINT8,
		[FT_DTYPE_INT32] = NCCL_INT32,   [FT_DTYPE_UINT32] = NCCL_UINT32,
		[FT_DTYPE_INT64] = NCCL_INT64,   [FT_DTYPE_UINT64] = NCCL_UINT64,
		[FT_DTYPE_FLOAT] = NCCL_FLOAT32, [FT_DTYPE_DOUBLE] = NCCL_FLOAT64,
		[FT_DTYPE_HALF] = NCCL_FLOAT16,  [FT_DTYPE_BFLOAT16] = NCCL_BFLOAT16,
	};

	return map[t];
}

#define CUDA_ERROR_NOT_READY 600
#define NCCL_IN_PROGRESS     7 /* ncclInProgress (2.14+): not an error */

/*
 * Wait for the collective on the stream, within --timeout: a blocking
 * cudaStreamSynchronize() would wait forever for a stopped or dead peer (NCCL
 * kernels spin on the GPU for data that never comes). Poll cudaStreamQuery(),
 * watch the communicator's asynchronous error (a peer's network failure),
 * and on either or at the deadline abort the communicator (ncclCommAbort),
 * which ends the kernels.
 */
static int
stream_wait(struct nccl_ep *ep, const char *what, struct ft_error *err)
{
	const struct ft_ep *base = &ep->base;
	double start = ft__now();
	uint64_t polls = 0;
	nccl_result_t async = 0;
	int rc;

	for (;;) {
		rc = ep->api.cudaStreamQuery(ep->stream);
		if (rc == 0) {
			ep->inflight = false;
			return 0;
		}
		if (rc != CUDA_ERROR_NOT_READY) {
			abort_comm(ep);
			return ft_error_set(err, FT_EIO, "GPU %d: nccl %s: %s", ep->device, what,
			                    ep->api.cudaGetErrorString(rc));
		}
		/*
		 * Busy first: the collective is usually microseconds away. Then
		 * yield between queries, as the peer does: nccl-tests' own wait
		 * (testStreamSynchronize, src/common.cu, 2.19.6) yields the thread
		 * after every pass that found a stream still running, so that
		 * NCCL's proxy threads, which move the data of net and shm
		 * transports, get the CPU. There is no descriptor or futex to
		 * sleep on: the GPU signals the end of a kernel only through the
		 * stream, and a blocking synchronize has no deadline (above).
		 * Not a nap (nap.c): the yield is what the proxy threads of this
		 * very process need, and a sleep would add up to its bound to
		 * every collective that nccl-tests reports without it.
		 */
		if (++polls < 4096)
			continue;
		if (polls % 64) {
			sched_yield();
			continue;
		}
		if (ep->api.CommGetAsyncError(ep->comm, &async) == 0 && async != 0 &&
		    async != NCCL_IN_PROGRESS) {
			rc = ft_error_set(err, FT_EIO, "GPU %d: nccl %s: %s", ep->device, what,
			                  ep->api.GetErrorString(async));
			abort_comm(ep);
			return rc;
		}
		if (base->stop && *base->stop) {
			abort_comm(ep);
			return ft_error_set(err, FT_EINTR, "interrupted");
		}
		if (ft__now() - start <= base->timeout_s)
			continue;
		abort_comm(ep);
		if (ft__ep_stopped(base, "nccl", what, err) < 0)
			return FT_ETIMEDOUT;
		return ft_error_set(err, FT_ETIMEDOUT,
		                    "GPU %d: nccl %s not done after %.0fs (--timeout): a rank "
		                    "stopped answering; the communicator was aborted",
		                    ep->device, what, base->timeout_s);
	}
}

/*
 * Put one collective on the stream (not waiting for it); *dr_out gets the
 * device buffer its result lands in. Used directly and under CUDA graph
 * capture (-G), where the calls are recorded rather than run.
 */
static int
nccl_enqueue(struct nccl_ep *ep, const struct ft_bench_coll_args *a, char **dr_out,
             size_t *rbytes_out, struct ft_error *err)
{
	struct ft_ep *base = &ep->base;
	uint32_t n = base->w->nranks, r = base->w->rank;
	size_t es = ft_dtype_size(a->dtype), sbytes, rbytes, off = a->count * es * r;
	int t = nccl_type(a->dtype), op = (int)a->op, nr;
	bool made_op = false;
	char *d0, *d1, *ds, *dr;

	if (!ep->comm)
		return ft_error_set(err, FT_EPEER,
		                    "GPU %d: nccl %s: the communicator was aborted when a "
		                    "collective was given up on",
		                    ep->device, ft_op_name(a->coll));
	ft__bench_bufsizes(a->coll, a->count, es, n, &sbytes, &rbytes);
	d0 = dscratch(ep, 0, sbytes);
	d1 = dscratch(ep, 1, FT_MAX(sbytes, rbytes));
	if (!d0 || !d1)
		return ft_error_set(err, FT_ENOMEM, "cudaMalloc of %zu bytes failed on GPU %d",
		                    FT_MAX(sbytes, rbytes), ep->device);
	ds = d0;
	dr = d1;
	if (a->in_place) {
		ds = dr = d1;
		if (a->coll == FT_OP_ALL_GATHER)
			ds = d1 + off;
		else if (a->coll == FT_OP_REDUCE_SCATTER)
			dr = d1 + off;
	}
	if (a->staged && ep->api.cudaMemcpy(ds, a->sendbuf, sbytes, CUDA_MEMCPY_H2D) != 0)
		return ft_error_set(err, FT_EIO, "cudaMemcpy to GPU %d failed", ep->device);
	_Static_assert((int)FT_REDOP_SUM == (int)NCCL_SUM && (int)FT_REDOP_MIN == (int)NCCL_MIN &&
	                       (int)FT_REDOP_AVG == (int)NCCL_AVG,
	               "fabtune's reductions are numbered as ncclRedOp_t");
	if (a->op == FT_REDOP_MULSUM && (a->coll == FT_OP_ALL_REDUCE || a->coll == FT_OP_REDUCE ||
	                                 a->coll == FT_OP_REDUCE_SCATTER)) {
		/* nccl-tests' premulsum: this rank's scalar, in the element type, read at
		   creation (host immediate); the operation is destroyed once enqueued */
		uint64_t scalar = 0;

		if (!ep->api.RedOpCreatePreMulSum)
			return ft_error_set(
			        err, FT_ENOTSUP,
			        "nccl: mulsum needs ncclRedOpCreatePreMulSum (NCCL 2.11+)");
		ft__data_premul_scalar(&scalar, a->dtype, r);
		nr = ep->api.RedOpCreatePreMulSum(&op, &scalar, t, NCCL_SCALAR_HOST_IMMEDIATE,
		                                  ep->comm);
		if (nr != 0)
			return ft_error_set(err, FT_EIO, "nccl: ncclRedOpCreatePreMulSum: %s",
			                    ep->api.GetErrorString(nr));
		made_op = true;
	}
	ep->inflight = ep->inflight || !ep->capturing;
	switch (a->coll) {
	case FT_OP_ALL_REDUCE:
		nr = ep->api.AllReduce(ds, dr, a->count, t, op, ep->comm, ep->stream);
		break;
	case FT_OP_ALL_GATHER:
		nr = ep->api.AllGather(ds, dr, a->count, t, ep->comm, ep->stream);
		break;
	case FT_OP_REDUCE_SCATTER:
		nr = ep->api.ReduceScatter(ds, dr, a->count, t, op, ep->comm, ep->stream);
		break;
	case FT_OP_BROADCAST:
		nr = ep->api.Broadcast(ds, dr, a->count, t, a->root, ep->comm, ep->stream);
		break;
	case FT_OP_REDUCE:
		nr = ep->api.Reduce(ds, dr, a->count, t, op, a->root, ep->comm, ep->stream);
		break;
	case FT_OP_ALLTOALL: {
		uint32_t p;
		size_t blk = a->count * es;

		/* nccl-tests' alltoall: grouped send/recv to every peer */
		nr = ep->api.GroupStart();
		for (p = 0; p < n && nr == 0; p++) {
			nr = ep->api.Send(ds + p * blk, a->count, t, (int)p, ep->comm, ep->stream);
			if (nr == 0)
				nr = ep->api.Recv(dr + p * blk, a->count, t, (int)p, ep->comm,
				                  ep->stream);
		}
		if (nr == 0)
			nr = ep->api.GroupEnd();
		break;
	}
	default:
		nr = 0;
		break;
	}
	if (made_op)
		ep->api.RedOpDestroy(op, ep->comm);
	if (nr == 0 && a->coll != FT_OP_ALL_REDUCE && a->coll != FT_OP_ALL_GATHER &&
	    a->coll != FT_OP_REDUCE_SCATTER && a->coll != FT_OP_BROADCAST &&
	    a->coll != FT_OP_REDUCE && a->coll != FT_OP_ALLTOALL)
		return FT_ENOTSUP;
	if (nr != 0)
		return ft_error_set(err, FT_EIO, "nccl %s: %s", ft_op_name(a->coll),
		                    ep->api.GetErrorString(nr));
	*dr_out = dr;
	*rbytes_out = rbytes;
	return 0;
}

static int
nccl_coll(struct ft_ep *base, const struct ft_bench_coll_args *a, struct ft_error *err)
{
	struct nccl_ep *ep = ft_container_of(base, struct nccl_ep, base);
	size_t rbytes = 0;
	char *dr = NULL;
	int nr = nccl_enqueue(ep, a, &dr, &rbytes, err);

	if (nr == 0)
		nr = nccl_fault(ep, ft_op_name(a->coll), err);
	if (nr < 0)
		return nccl_give_up(ep, nr);
	nr = stream_wait(ep, ft_op_name(a->coll), err);
	if (nr < 0)
		return nr;
	if (a->staged && ep->api.cudaMemcpy(a->recvbuf, dr, rbytes, CUDA_MEMCPY_D2H) != 0)
		return ft_error_set(err, FT_EIO, "cudaMemcpy from GPU %d failed", ep->device);
	return 0;
}

/*
 * nccl-tests' -G: capture @ops collectives into one CUDA graph, launch the
 * graph @launches times, wait for the last. The launches replace the
 * per-operation calls, so the time is that of NCCL's kernels without the
 * host's launch overhead.
 */
static int
nccl_coll_graph(struct ft_ep *base, const struct ft_bench_coll_args *a, uint32_t ops,
                uint32_t launches, struct ft_error *err)
{
	struct nccl_ep *ep = ft_container_of(base, struct nccl_ep, base);
	void *graph = NULL, *exec = NULL;
	size_t rbytes = 0;
	char *dr = NULL;
	uint32_t i;
	int rc = 0, cr;

	if (!ep->api.cudaStreamBeginCapture)
		return ft_error_set(err, FT_ENOTSUP,
		                    "-G: not available: the CUDA runtime has no "
		                    "cudaGraphInstantiateWithFlags (CUDA 11.4+)");
	cr = ep->api.cudaStreamBeginCapture(ep->stream, CUDA_CAPTURE_MODE_GLOBAL);
	if (cr != 0)
		return ft_error_set(err, FT_EIO, "GPU %d: cudaStreamBeginCapture: %s", ep->device,
		                    ep->api.cudaGetErrorString(cr));
	ep->capturing = true;
	for (i = 0; i < ops && rc == 0; i++)
		rc = nccl_enqueue(ep, a, &dr, &rbytes, err);
	ep->capturing = false;
	/* end the capture whatever happened, or the stream stays unusable */
	cr = ep->api.cudaStreamEndCapture(ep->stream, &graph);
	if (rc == 0 && cr != 0)
		rc = ft_error_set(err, FT_EIO, "GPU %d: cudaStreamEndCapture: %s", ep->device,
		                  ep->api.cudaGetErrorString(cr));
	if (rc == 0 && (cr = ep->api.cudaGraphInstantiateWithFlags(&exec, graph, 0)) != 0)
		rc = ft_error_set(err, FT_EIO, "GPU %d: cudaGraphInstantiate: %s", ep->device,
		                  ep->api.cudaGetErrorString(cr));
	for (i = 0; i < launches && rc == 0; i++) {
		if ((cr = ep->api.cudaGraphLaunch(exec, ep->stream)) != 0)
			rc = ft_error_set(err, FT_EIO, "GPU %d: cudaGraphLaunch: %s", ep->device,
			                  ep->api.cudaGetErrorString(cr));
		else
			ep->inflight = true;
		if (rc == 0)
			rc = nccl_fault(ep, ft_op_name(a->coll), err);
	}
	if (rc == 0)
		rc = stream_wait(ep, ft_op_name(a->coll), err);
	/* a launch that failed after others: those still run on their buffers */
	nccl_give_up(ep, rc);
	if (exec)
		ep->api.cudaGraphExecDestroy(exec);
	if (graph)
		ep->api.cudaGraphDestroy(graph);
	return rc;
}

static int
nccl_post(struct ft_ep *ep, struct ft_req *req, struct ft_error *err)
{
	return ft_error_set(err, FT_ENOTSUP,
	                    "nccl: point-to-point patterns are not offered; use a collective");
}

const struct ft_transport_ops ft_nccl_transport = {
	.name = "nccl",
	.summary = "NCCL collectives on GPUs (libnccl.so.2 loaded at run time)",
	.probe = nccl_probe,
	.open = nccl_open,
	.post_send = nccl_post,
	.post_recv = nccl_post,
	.coll = nccl_coll,
	.coll_graph = nccl_coll_graph,
	.close = nccl_close,
	.rank_local = 70,
	.rank_remote = 70,
};

/* ---- device copy bandwidth ------------------------------------------------------ */

int
ft__bench_dev_memcpy(struct ft_bench_ctx *bc, struct ft_bench_report *out, struct ft_error *err)
{
	const struct ft_bench_cfg *cfg = bc->cfg;
	struct nccl_api api;
	void *src = NULL, *dst = NULL;
	uint64_t size, done = 0, total = ft__bench_nsizes(cfg);
	int rc, ndev = 0;
	uint32_t i;

	rc = api_load(&api, false, err);
	if (rc < 0) {
		ft_error_prefix(err, "dev_memcpy: CUDA runtime ");
		return rc;
	}
	api.cudaGetDeviceCount(&ndev);
	api.cudaSetDevice(local_index(bc->w) % (ndev ? ndev : 1));
	if (api.cudaMalloc(&src, cfg->max_bytes) != 0 ||
	    api.cudaMalloc(&dst, cfg->max_bytes) != 0) {
		rc = ft_error_set(err, FT_ENOMEM,
		                  "dev_memcpy: cudaMalloc of %" PRIu64 " bytes failed",
		                  cfg->max_bytes);
		goto out;
	}
	for (size = cfg->min_bytes; size <= cfg->max_bytes && rc == 0;) {
		struct ft_result_row row;
		double t0;

		for (i = 0; i < cfg->warmup + 1; i++)
			api.cudaMemcpy(dst, src, size, CUDA_MEMCPY_D2D);
		api.cudaDeviceSynchronize();
		t0 = ft__now();
		for (i = 0; i < cfg->iters; i++)
			if (api.cudaMemcpy(dst, src, size, CUDA_MEMCPY_D2D) != 0) {
				rc = ft_error_set(err, FT_EIO, "dev_memcpy: cudaMemcpy failed");
				break;
			}
		api.cudaDeviceSynchronize();
		ft_result_row_init(&row);
		ft_strlcpy(row.test, "dev_memcpy", sizeof(row.test));
		ft_strlcpy(row.transport, "cuda", sizeof(row.transport));
		ft_strlcpy(row.dtype, "uint8", sizeof(row.dtype));
		ft_strlcpy(row.redop, "none", sizeof(row.redop));
		row.bytes = row.count = size;
		row.root = -1;
		row.nranks = 1;
		row.nsamples = cfg->iters;
		row.time_us = (ft__now() - t0) / cfg->iters * 1e6;
		row.algbw_GBps = row.time_us > 0 ? (double)size / (row.time_us * 1e3) : 0;
		/* a copy reads and writes every byte: memory traffic is twice the size */
		row.busbw_GBps = 2 * row.algbw_GBps;
		if (rc == 0 && bc->w->rank == 0)
			rc = ft_run_add(&out->run, &row);
		if (rc == 0 && bc->w->rank == 0)
			ft_progress_update(&cfg->progress, "dev_memcpy", ++done, total);
		if (!ft__bench_step(cfg, &size))
			break;
	}
out:
	if (src)
		api.cudaFree(src);
	if (dst)
		api.cudaFree(dst);
	api_unload(&api);
	return rc;
}

/* ---- the copy matrix (nvbandwidth's copy-engine tests) --------------------------- */

/* cudaMemcpyDefault: the direction follows from the pointers (unified addressing) */
#define CUDA_MEMCPY_DEFAULT 4

/* Seconds per copy of @bytes from @src to @dst: -w untimed, then -n timed and synchronised. */
static int
time_copy(struct nccl_api *api, void *dst, const void *src, size_t bytes,
          const struct ft_bench_cfg *cfg, double *per_copy_s)
{
	double t0;
	uint32_t i;

	for (i = 0; i < cfg->warmup; i++)
		if (api->cudaMemcpy(dst, src, bytes, CUDA_MEMCPY_DEFAULT) != 0)
			return FT_EIO;
	api->cudaDeviceSynchronize();
	t0 = ft__now();
	for (i = 0; i < cfg->iters; i++)
		if (api->cudaMemcpy(dst, src, bytes, CUDA_MEMCPY_DEFAULT) != 0)
			return FT_EIO;
	api->cudaDeviceSynchronize();
	*per_copy_s = (ft__now() - t0) / cfg->iters;
	return 0;
}

/*
 * Copy-engine bandwidth of -e bytes (cudaMemcpy, synchronous) between pinned
 * host memory and every GPU both ways, and between every ordered pair of
 * GPUs (peer access enabled where the hardware allows it; otherwise the
 * runtime stages through the host, and the figure shows it). Rank 0 only:
 * one process sees all the GPUs of its host. Rows: test copy_matrix, src and
 * dst "host" or "gpuN", algbw in GB/s.
 */
int
ft__bench_copy_matrix(struct ft_bench_ctx *bc, struct ft_bench_report *out, struct ft_error *err)
{
	const struct ft_bench_cfg *cfg = bc->cfg;
	size_t bytes = (size_t)cfg->max_bytes;
	struct nccl_api api;
	void *host = NULL, **dev = NULL;
	int ndev = 0, s, d, rc;

	rc = api_load(&api, false, err);
	if (rc < 0) {
		ft_error_prefix(err, "copy_matrix: CUDA runtime ");
		return rc;
	}
	if (bc->w->rank != 0)
		goto out;
	api.cudaGetDeviceCount(&ndev);
	dev = ft_calloc((size_t)ndev, sizeof(*dev));
	if (!dev || api.cudaMallocHost(&host, bytes) != 0) {
		rc = ft_error_set(err, FT_ENOMEM, "copy_matrix: %zu bytes of pinned host memory",
		                  bytes);
		goto out;
	}
	for (d = 0; d < ndev && rc == 0; d++) {
		api.cudaSetDevice(d);
		if (api.cudaMalloc(&dev[d], bytes) != 0)
			rc = ft_error_set(err, FT_ENOMEM,
			                  "copy_matrix: cudaMalloc of %zu bytes on "
			                  "GPU %d failed",
			                  bytes, d);
		for (s = 0; s < ndev && rc == 0; s++) {
			int can = 0;

			if (s != d && api.cudaDeviceCanAccessPeer(&can, d, s) == 0 && can)
				api.cudaDeviceEnablePeerAccess(s, 0);
		}
	}
	/* index -1 is the host */
	for (s = -1; s < ndev && rc == 0; s++)
		for (d = -1; d < ndev && rc == 0; d++) {
			double t;

			if (s == d)
				continue;
			api.cudaSetDevice(s >= 0 ? s : d);
			if (time_copy(&api, d < 0 ? host : dev[d], s < 0 ? host : dev[s], bytes,
			              cfg, &t) < 0) {
				rc = ft_error_set(
				        err, FT_EIO, "copy_matrix: cudaMemcpy %s%d -> %s%d failed",
				        s < 0 ? "host" : "gpu", s, d < 0 ? "host" : "gpu", d);
				break;
			}
			rc = ft__cuda_matrix_row(out, "ce", s, d, bytes, cfg->iters, -1, t);
		}
	/* the same pairs again with a copy kernel instead of the copy engine */
	if (rc == 0)
		rc = ft__cuda_sm_matrix(cfg, out, err);
out:
	for (d = 0; dev && d < ndev; d++)
		if (dev[d])
			api.cudaFree(dev[d]);
	ft_free(dev);
	if (host)
		api.cudaFreeHost(host);
	api_unload(&api);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * tests/hostile/fake_nccl.c - a test double of libnccl and the CUDA runtime,
 * loaded by the nccl transport through FABTUNE_NCCL_LIBRARY and
 * FABTUNE_CUDART_LIBRARY, to check its deadline where no GPU exists.
 *
 * "Device" memory is host memory and a collective completes at once, until
 * FAKE_NCCL_HANG_AFTER=N collectives have run on a communicator: from then on
 * the stream never completes (cudaStreamQuery answers "not ready"), as when a
 * peer stopped. ncclCommAbort() writes "fake nccl: communicator aborted" on
 * stderr, so a test sees that the transport gave up on it.
 * FAKE_NCCL_HANG_INIT=1: ncclCommInitRank() never returns, as when a peer
 * stopped before the communicator exists. cudaFree() of any memory while a
 * collective never ends waits for ever, as the real one does (it
 * synchronises the device first), after saying so on stderr.
 *
 * CUDA graphs: between cudaStreamBeginCapture() and cudaStreamEndCapture()
 * the collectives are recorded, not run; each cudaGraphLaunch() runs the
 * graph's collectives. With FAKE_NCCL_TRACE=1, ncclCommDestroy() writes what
 * happened on stderr ("fake nccl: rank R: G graphs of C operations, L
 * launches, N operations run"), for a test to check the calls made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	char internal[128];
} nccl_unique_id_t;

struct comm {
	long ncoll;
	long hang_after;
	int rank;
	long graphs, captured, launches;
};

static int capturing; /* the stream is being captured into a graph */
static long capture_ops;

struct graph {
	long ops;
};

static struct comm *last; /* the communicator the stream belongs to (one per process) */

#define EXPORT __attribute__((visibility("default")))

EXPORT int ncclGetVersion(int *v);
EXPORT int ncclGetUniqueId(nccl_unique_id_t *id);
EXPORT int ncclCommInitRank(void **comm, int nranks, nccl_unique_id_t id, int rank);
EXPORT int ncclCommDestroy(void *comm);
EXPORT int ncclCommAbort(void *comm);
EXPORT int ncclCommGetAsyncError(void *comm, int *async);
EXPORT const char *ncclGetErrorString(int r);
EXPORT int ncclAllReduce(const void *s, void *r, size_t n, int t, int op, void *c, void *st);
EXPORT int ncclAllGather(const void *s, void *r, size_t n, int t, void *c, void *st);
EXPORT int ncclReduceScatter(const void *s, void *r, size_t n, int t, int op, void *c, void *st);
EXPORT int ncclBroadcast(const void *s, void *r, size_t n, int t, int root, void *c, void *st);
EXPORT int ncclReduce(const void *s, void *r, size_t n, int t, int op, int root, void *c, void *st);
EXPORT int ncclSend(const void *s, size_t n, int t, int peer, void *c, void *st);
EXPORT int ncclRecv(void *r, size_t n, int t, int peer, void *c, void *st);
EXPORT int ncclGroupStart(void);
EXPORT int ncclGroupEnd(void);
EXPORT int cudaGetDeviceCount(int *n);
EXPORT int cudaSetDevice(int d);
EXPORT int cudaMalloc(void **p, size_t n);
EXPORT int cudaFree(void *p);
EXPORT int cudaMemcpy(void *d, const void *s, size_t n, int kind);
EXPORT int cudaStreamCreate(void **s);
EXPORT int cudaStreamDestroy(void *s);
EXPORT int cudaStreamSynchronize(void *s);
EXPORT int cudaStreamQuery(void *s);
EXPORT int cudaDeviceSynchronize(void);
EXPORT const char *cudaGetErrorString(int e);
EXPORT int cudaMallocHost(void **p, size_t n);
EXPORT int cudaFreeHost(void *p);
EXPORT int cudaDeviceCanAccessPeer(int *can, int d, int peer);
EXPORT int cudaDeviceEnablePeerAccess(int peer, unsigned flags);
EXPORT int cudaStreamBeginCapture(void *s, int mode);
EXPORT int cudaStreamEndCapture(void *s, void **graph);
EXPORT int cudaGraphInstantiateWithFlags(void **exec, void *graph, unsigned long long flags);
EXPORT int cudaGraphLaunch(void *exec, void *s);
EXPORT int cudaGraphExecDestroy(void *exec);
EXPORT int cudaGraphDestroy(void *graph);

int
ncclGetVersion(int *v)
{
	*v = 21805;
	return 0;
}
int
ncclGetUniqueId(nccl_unique_id_t *id)
{
	memset(id, 7, sizeof(*id));
	return 0;
}

int
ncclCommInitRank(void **comm, int nranks, nccl_unique_id_t id, int rank)
{
	const char *e = getenv("FAKE_NCCL_HANG_AFTER"), *h = getenv("FAKE_NCCL_HANG_INIT");
	struct comm *c;

	(void)nranks;
	(void)id;
	/* a peer that never joins: block for good, as the real bootstrap does */
	if (h && atoi(h) == 1)
		for (;;)
			pause();
	c = calloc(1, sizeof(*c));
	if (!c)
		return 1;
	c->hang_after = e ? atol(e) : -1;
	c->rank = rank;
	*comm = last = c;
	return 0;
}

int
ncclCommDestroy(void *comm)
{
	const char *t = getenv("FAKE_NCCL_TRACE");
	struct comm *c = comm;

	if (c && t && atoi(t) == 1)
		fprintf(stderr,
		        "fake nccl: rank %d: %ld graphs of %ld operations, %ld launches, %ld "
		        "operations run\n",
		        c->rank, c->graphs, c->graphs ? c->captured / c->graphs : 0, c->launches,
		        c->ncoll);
	if (comm == last)
		last = NULL;
	free(comm);
	return 0;
}

int
ncclCommAbort(void *comm)
{
	fprintf(stderr, "fake nccl: communicator aborted\n");
	return ncclCommDestroy(comm);
}

int
ncclCommGetAsyncError(void *comm, int *async)
{
	(void)comm;
	*async = 0;
	return 0;
}
const char *
ncclGetErrorString(int r)
{
	return r ? "fake error" : "no error";
}

static int
coll(void *c)
{
	if (capturing)
		capture_ops++; /* recorded into the graph, run at its launches */
	else
		((struct comm *)c)->ncoll++;
	return 0;
}

int
ncclAllReduce(const void *s, void *r, size_t n, int t, int op, void *c, void *st)
{
	(void)s;
	(void)r;
	(void)n;
	(void)t;
	(void)op;
	(void)st;
	return coll(c);
}
int
ncclAllGather(const void *s, void *r, size_t n, int t, void *c, void *st)
{
	(void)s;
	(void)r;
	(void)n;
	(void)t;
	(void)st;
	return coll(c);
}
int
ncclReduceScatter(const void *s, void *r, size_t n, int t, int op, void *c, void *st)
{
	(void)s;
	(void)r;
	(void)n;
	(void)t;
	(void)op;
	(void)st;
	return coll(c);
}
int
ncclBroadcast(const void *s, void *r, size_t n, int t, int root, void *c, void *st)
{
	(void)s;
	(void)r;
	(void)n;
	(void)t;
	(void)root;
	(void)st;
	return coll(c);
}
int
ncclReduce(const void *s, void *r, size_t n, int t, int op, int root, void *c, void *st)
{
	(void)s;
	(void)r;
	(void)n;
	(void)t;
	(void)op;
	(void)root;
	(void)st;
	return coll(c);
}
int
ncclSend(const void *s, size_t n, int t, int peer, void *c, void *st)
{
	(void)s;
	(void)n;
	(void)t;
	(void)peer;
	(void)c;
	(void)st;
	return 0;
}
int
ncclRecv(void *r, size_t n, int t, int peer, void *c, void *st)
{
	(void)r;
	(void)n;
	(void)t;
	(void)peer;
	(void)c;
	(void)st;
	return 0;
}
int
ncclGroupStart(void)
{
	return 0;
}
int
ncclGroupEnd(void)
{
	return last ? coll(last) : 0;
}

int
cudaGetDeviceCount(int *n)
{
	*n = 1;
	return 0;
}
int
cudaSetDevice(int d)
{
	(void)d;
	return 0;
}
int
cudaMalloc(void **p, size_t n)
{
	*p = calloc(1, n ? n : 1);
	return *p ? 0 : 2;
}
int
cudaFree(void *p)
{
	/* the real one first waits for the device: for ever under a collective that never ends */
	if (p && cudaStreamQuery(NULL) == 600) {
		fprintf(stderr, "fake nccl: cudaFree waits for a collective that never ends\n");
		cudaStreamSynchronize(NULL);
	}
	free(p);
	return 0;
}
int
cudaMallocHost(void **p, size_t n)
{
	return cudaMalloc(p, n);
}
int
cudaFreeHost(void *p)
{
	return cudaFree(p);
}
int
cudaDeviceCanAccessPeer(int *can, int d, int peer)
{
	(void)d;
	(void)peer;
	*can = 0;
	return 0;
}
int
cudaDeviceEnablePeerAccess(int peer, unsigned flags)
{
	(void)peer;
	(void)flags;
	return 0;
}
int
cudaMemcpy(void *d, const void *s, size_t n, int kind)
{
	(void)kind;
	memmove(d, s, n);
	return 0;
}
int
cudaStreamCreate(void **s)
{
	static int stream;
	*s = &stream;
	return 0;
}
int
cudaStreamDestroy(void *s)
{
	(void)s;
	return 0;
}
int
cudaDeviceSynchronize(void)
{
	return 0;
}
const char *
cudaGetErrorString(int e)
{
	return e == 600 ? "not ready" : "fake CUDA error";
}

int
cudaStreamQuery(void *s)
{
	(void)s;
	/* a peer that stopped: the collective's kernel never ends */
	if (last && last->hang_after >= 0 && last->ncoll > last->hang_after)
		return 600;
	return 0;
}

int
cudaStreamSynchronize(void *s)
{
	/* what a blocking wait does when the peer stopped: never return */
	while (cudaStreamQuery(s) == 600)
		;
	return 0;
}

int
cudaStreamBeginCapture(void *s, int mode)
{
	(void)s;
	if (capturing || mode != 0)
		return 1; /* fabtune captures in cudaStreamCaptureModeGlobal, once at a time */
	capturing = 1;
	capture_ops = 0;
	return 0;
}

int
cudaStreamEndCapture(void *s, void **graph)
{
	struct graph *g;

	(void)s;
	if (!capturing)
		return 1;
	capturing = 0;
	g = calloc(1, sizeof(*g));
	if (!g)
		return 2;
	g->ops = capture_ops;
	if (last) {
		last->graphs++;
		last->captured += capture_ops;
	}
	*graph = g;
	return 0;
}

int
cudaGraphInstantiateWithFlags(void **exec, void *graph, unsigned long long flags)
{
	(void)flags;
	*exec = graph; /* the executable graph is the graph here */
	return graph ? 0 : 1;
}

int
cudaGraphLaunch(void *exec, void *s)
{
	const struct graph *g = exec;

	(void)s;
	if (!g || capturing)
		return 1;
	if (last) {
		last->launches++;
		last->ncoll += g->ops;
	}
	return 0;
}

int
cudaGraphExecDestroy(void *exec)
{
	(void)exec; /* the graph itself goes with cudaGraphDestroy() */
	return 0;
}

int
cudaGraphDestroy(void *graph)
{
	free(graph);
	return 0;
}

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

struct shm_peer {
	struct ft_req *sq, *sq_tail;
	struct ft_req *rq, *rq_tail;
};

struct shm_ep {
	struct ft_ep base;
	char *seg;
	size_t seg_bytes, ring_bytes, ring_stride;
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
	return (struct ring *)(void *)(ep->seg +
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
		}
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

static int
shm_open_ep(struct ft_world *w, const struct ft_bench_cfg *cfg, struct ft_ep **out,
            struct ft_error *err)
{
	struct shm_ep *ep = ft_calloc(1, sizeof(*ep));
	int rc;

	if (!ep)
		return FT_ENOMEM;
	ep->rank = w->rank;
	ep->nranks = w->nranks;
	/* 4 MiB rings up to 8 ranks, 1 MiB beyond: pages are only touched when used */
	ep->ring_bytes = w->nranks <= 8 ? 4u << 20 : 1u << 20;
	ep->ring_stride = sizeof(struct ring) + ep->ring_bytes;
	ep->seg_bytes = ep->ring_stride * w->nranks * w->nranks;
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

static int
check_peers(struct shm_ep *ep, struct ft_error *err)
{
	uint32_t p;

	for (p = 0; p < ep->nranks; p++) {
		char who[96];

		if (p == ep->rank || (!ep->peers[p].sq && !ep->peers[p].rq))
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
		return check_peers(ep, err);
	}
	return 0;
}

const struct ft_transport_ops ft_shm_transport = {
	.name = "shm",
	.summary = "shared memory rings between ranks on one host",
	.probe = shm_probe,
	.open = shm_open_ep,
	.post_send = shm_post_send,
	.post_recv = shm_post_recv,
	.progress = shm_progress,
	.close = shm_close,
	.spin_polls = 256,
	.rank_local = 50,
	.rank_remote = 0,
};

/* SPDX-License-Identifier: MIT */
/*
 * bench/verbs_int.h - the verbs transport's seams, for its unit test.
 *
 * Every libibverbs call the transport makes goes through struct
 * ft_verbs_api, so a test can replace the device with a double that moves
 * bytes between two queue pairs in one process. An endpoint is built in
 * three steps (new, exchange of struct ft_verbs_qp_info, connect) so that
 * the test can drive two of them without a world of processes.
 */
#ifndef FT_BENCH_VERBS_INT_H
#define FT_BENCH_VERBS_INT_H

#include "bench_int.h"

#if FT_HAVE_VERBS
#include <infiniband/verbs.h>

struct ft_verbs_api {
	struct ibv_device **(*get_device_list)(int *num);
	void (*free_device_list)(struct ibv_device **list);
	const char *(*get_device_name)(struct ibv_device *dev);
	struct ibv_context *(*open_device)(struct ibv_device *dev);
	int (*close_device)(struct ibv_context *ctx);
	int (*query_port)(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr);
	int (*query_gid)(struct ibv_context *ctx, uint8_t port, int index, union ibv_gid *gid);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *ctx);
	int (*dealloc_pd)(struct ibv_pd *pd);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t len, int access);
	int (*dereg_mr)(struct ibv_mr *mr);
	struct ibv_cq *(*create_cq)(struct ibv_context *ctx, int cqe);
	int (*destroy_cq)(struct ibv_cq *cq);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd, struct ibv_qp_init_attr *attr);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
	int (*poll_cq)(struct ibv_cq *cq, int n, struct ibv_wc *wc);
	/* UD: the address of a peer's port */
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
	int (*destroy_ah)(struct ibv_ah *ah);
	/* GPUDirect RDMA: device memory exported by the GPU driver as a dmabuf */
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset, size_t len,
	                                uint64_t iova, int fd, int access);
};

/* The real library. */
extern const struct ft_verbs_api ft__verbs_libibverbs;
#endif

/* How a peer reaches one of our queue pairs, plus our landing region. */
struct ft_verbs_qp_info {
	uint32_t qpn, psn;
	uint16_t lid;
	uint8_t gid[16];
	uint32_t rkey;
	uint64_t addr; /* landing region for RDMA write, source for RDMA read */
	uint64_t len;
};

enum ft_verbs_op {
	FT_VERBS_SEND,
	FT_VERBS_WRITE,
	FT_VERBS_READ,
	FT_VERBS_FADD, /* ib_atomic_bw -A FETCH_AND_ADD: pt2pt runs ft__verbs_atomic_run */
	FT_VERBS_CSWAP /* ib_atomic_bw -A CMP_AND_SWAP */
};

/* Queue pairs per peer: perftest's -q, NCCL_IB_QPS_PER_CONNECTION's range. */
#define FT_VERBS_MAX_QPS 64
/* UD receives start with the 40-byte Global Routing Header (IBA 11.4.1.2). */
#define FT_VERBS_GRH_BYTES 40
/* The Q_Key of fabtune's UD queue pairs (perftest's default, 0x11111111). */
#define FT_VERBS_QKEY 0x11111111u

struct ft_verbs_opts {
	const char *device; /* "" = first with an active port */
	uint8_t port;       /* 0 = first active */
	int gid_index;      /* RoCE: GID table index (kb: ROCE-GID) */
	enum ft_verbs_op op;
	size_t landing_bytes;
	uint32_t nqps; /* queue pairs per peer, messages round-robin over them (0 = 1) */
	bool ud;       /* unreliable datagram (send only, one MTU per message) instead of RC */
};

/* Atomics on 8 bytes of a peer's landing region (ib_atomic_bw / ib_atomic_lat). */
enum ft_verbs_atomic {
	FT_VERBS_FETCH_ADD, /* remote += arg; old value fetched */
	FT_VERBS_CMP_SWAP   /* remote == arg ? remote = swap; old value fetched */
};

#if FT_HAVE_VERBS
struct ft_ep;
int ft__verbs_ep_new(const struct ft_verbs_api *api, const struct ft_verbs_opts *o, uint32_t rank,
                     uint32_t nranks, struct ft_ep **out, struct ft_error *err) FT_MUST_CHECK;
/* Queue pair @k (of opts.nqps) to @peer. */
void ft__verbs_ep_local(struct ft_ep *ep, uint32_t peer, uint32_t k, struct ft_verbs_qp_info *info);
int ft__verbs_ep_connect(struct ft_ep *ep, uint32_t peer, uint32_t k,
                         const struct ft_verbs_qp_info *remote, struct ft_error *err) FT_MUST_CHECK;
/*
 * One atomic on the 8 bytes at @offset of @peer's landing region; the old
 * value lands in @req->buf (8 bytes), and @req completes through progress.
 * RC only; @offset must be 8-byte aligned and inside the region.
 */
int ft__verbs_atomic(struct ft_ep *ep, enum ft_verbs_atomic op, uint64_t offset, uint64_t arg,
                     uint64_t swap, struct ft_req *req, struct ft_error *err) FT_MUST_CHECK;
/*
 * ib_atomic_bw's and ib_atomic_lat's loop: @n atomics of @op on the word at
 * offset 0 of @peer's landing region, @window in flight (1 when @lat_us is
 * given: then each one's round trip in microseconds); *@secs the time they
 * took. The word is read before and after (a fetch-and-add of 0): *@wrong is
 * 0 when it moved by @n (fetch-and-add of 1; compare-and-swap of v -> v + 1
 * from its start value, in order), 1 when not, -1 when the order across
 * several queue pairs makes the compare-and-swap count unknowable.
 */
int ft__verbs_atomic_run(struct ft_ep *ep, uint32_t peer, enum ft_verbs_atomic op, uint64_t n,
                         uint32_t window, double *lat_us, double *secs, int64_t *wrong,
                         struct ft_error *err) FT_MUST_CHECK;
/* The landing region (what peers' writes and atomics change), for tests. */
void *ft__verbs_landing(struct ft_ep *ep);
/* The transport's ops with api calls; the test uses them on endpoints made above. */
extern const struct ft_transport_ops ft__verbs_test_ops;
#endif

#endif

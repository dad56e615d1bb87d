/* SPDX-License-Identifier: MIT */
/*
 * bench/patterns.h - the non-collective patterns (patterns*.c), called by
 * ft_bench_run() with an open endpoint.
 */
#ifndef FT_BENCH_PATTERNS_H
#define FT_BENCH_PATTERNS_H

#include "bench_int.h"
#include "cuda_int.h"

struct ft_bench_ctx {
	struct ft_world *w;
	struct ft_ep *ep;
	const struct ft_bench_cfg *cfg; /* defaults applied */
	struct ft__cuda *cuda;          /* --gpu-buffers with a staging transport, else NULL */
	struct ft__gpu_stage *stage;    /* its device buffers while collectives run (gpu_stage.c) */
	bool gpu_direct; /* --gpu-buffers, ucx with CUDA support, pt2pt: device pointers go to UCX */
	/*
	 * The clock of the timed ping-pong (ft__bench_pingpong), NULL for
	 * ft__now(): a test passes one that counts its reads, which is how it
	 * tells a loop that reads the clock once a round trip from one that
	 * reads it twice.
	 */
	double (*now)(void);
	/*
	 * Tests, with @now NULL: the ping-pong's counter and CLOCK_MONOTONIC
	 * (ns) in place of the process's, and the clock the counter is
	 * believed to be (@tick_clk, as ft__ticks_get gives it).
	 */
	int64_t (*tick_now)(void);
	int64_t (*mono_now)(void);
	struct ft__ticks tick_clk;
	/* what this rank's latency samples were timed on in the run (ft__bench_clock_note) */
	struct ft_bench_clock clock;
};

/* A pattern: measures over @bc's world and fills @out. */
typedef int ft__bench_pattern_fn(struct ft_bench_ctx *bc, struct ft_bench_report *out,
                                 struct ft_error *err);

ft__bench_pattern_fn ft__bench_pt2pt FT_MUST_CHECK;
ft__bench_pattern_fn ft__bench_pairs FT_MUST_CHECK;
ft__bench_pattern_fn ft__bench_bisection FT_MUST_CHECK;
ft__bench_pattern_fn ft__bench_incast FT_MUST_CHECK;
/* nccl.c: device-to-device copy bandwidth through the dlopen'd CUDA runtime. */
ft__bench_pattern_fn ft__bench_dev_memcpy FT_MUST_CHECK;
ft__bench_pattern_fn ft__bench_copy_matrix FT_MUST_CHECK;
uint64_t ft__bench_nsizes(const struct ft_bench_cfg *cfg);
/* Whether @pattern times latency samples (pt2pt_lat, pairs, incast): its report has clocks. */
bool ft__bench_times_latency(enum ft_op pattern);
/*
 * Into @c, the clock @cfg's latency samples will be timed on, as the table's
 * head names it before the run: CLOCK_MONOTONIC for --verbs-op fadd or
 * cswap (verbs_atomic.c times each atomic on ft__now()), else the
 * process's sample clock (ft__ticks_get, calibrated at the first call).
 */
void ft__bench_clock_expected(const struct ft_bench_cfg *cfg, struct ft_bench_clock *c);
/*
 * Every rank's @bc->clock into @out->clocks (nranks entries), in place of
 * the calibrated clock the runner put there for the table's head; a rank
 * that timed no samples gets source "". Collective.
 */
int ft__bench_clock_gather(struct ft_bench_ctx *bc, struct ft_bench_report *out,
                           struct ft_error *err) FT_MUST_CHECK;
/*
 * The next size of a point-to-point or device-copy sweep into *@size: plus
 * -i bytes, or times -f (at least 2). False when the product would pass -e.
 */
bool ft__bench_step(const struct ft_bench_cfg *cfg, uint64_t *size);
/* Round-robin (circle) schedule: round r in [0, n-1) (n even; odd n adds an idle slot), the
 * partner of rank i, or -1 when idle. */
int ft_bench_circle_partner(uint32_t n, uint32_t round, uint32_t i);
uint32_t ft_bench_circle_rounds(uint32_t n);
/* Latency figures as perftest prints them, from @n samples in microseconds (sorted in place). */
void ft_bench_lat_stats(double *samples_us, size_t n, struct ft_result_row *row);
/* Outlier analysis of a filled bandwidth matrix (rank 0's view; deterministic). */
int ft__bench_find_outliers(struct ft_bench_report *out, double threshold) FT_MUST_CHECK;

/* ---- --gpu-buffers in the run and the collectives (gpu_stage.c) ------------- */

/* Where the buffers are for this transport and pattern (out->buffers); every rank agrees. */
int ft__bench_gpu_setup(struct ft_bench_ctx *bc, struct ft_bench_report *out,
                        struct ft_error *err) FT_MUST_CHECK;
/* The transport's buffer of @bytes: pinned when device buffers are staged through it. */
char *ft__bench_host_alloc(struct ft_bench_ctx *bc, struct ft_ep *ep, size_t bytes);
void ft__bench_host_free(struct ft_bench_ctx *bc, struct ft_ep *ep, char *p, size_t bytes);
/* The device buffers mirroring @sbuf and @rbuf (bc->stage), starting with their contents;
 * nothing without --gpu-buffers on a staging transport. */
int ft__bench_stage_open(struct ft_bench_ctx *bc, char *sbuf, size_t sbytes, char *rbuf,
                         size_t rbytes, struct ft_error *err) FT_MUST_CHECK;
void ft__bench_stage_close(struct ft_bench_ctx *bc);
/* One copy between a transport buffer of @a and its device mirror in bc->stage (open):
 * the input or the @output, @up to the device or down, the bytes the operation uses. */
int ft__bench_stage_copy(struct ft_bench_ctx *bc, const struct ft_bench_coll_args *a, bool up,
                         bool output, struct ft_error *err) FT_MUST_CHECK;

/* ---- what the pattern files share (patterns.c) ----------------------------- */

/* The loops and the staging of patterns.c that the other pattern files run; each is
 * described where it is defined. */
/* Ping-pong samples per latency probe of pairs and incast. */
#define LAT_PROBE_ITERS 100

/*
 * --gpu-buffers for the point-to-point patterns: the message lives in GPU
 * memory (@dev) and travels through a pinned host buffer; every message sent
 * is copied down first, every message received is copied up after, inside
 * the measured time. Without --gpu-buffers: the endpoint's scratch buffer.
 */
struct p2p_buf {
	char *host;
	uint64_t dev;
	size_t bytes;
};

int ft__bench_p2p_open(struct ft_bench_ctx *bc, unsigned idx, size_t size, struct p2p_buf *b,
                       struct ft_error *err);
void ft__bench_p2p_close(struct ft_bench_ctx *bc, struct p2p_buf *b);
int ft__bench_p2p_down(struct ft_bench_ctx *bc, struct p2p_buf *b, size_t size,
                       struct ft_error *err);
int ft__bench_p2p_up(struct ft_bench_ctx *bc, struct p2p_buf *b, size_t size, struct ft_error *err);
int ft__bench_stream(struct ft_bench_ctx *bc, uint32_t peer, bool send, bool recv, size_t size,
                     uint32_t window, uint32_t warmup, uint64_t nmsg, double dur_s,
                     double *rx_GBps, double *best_GBps, uint64_t *nmsg_done, double *iter_cv,
                     int64_t *wrong, struct ft_error *err);
int ft__bench_check_msg(struct ft_ep *ep, uint32_t peer, bool send, bool recv, void *sbuf, void *rbuf,
                        size_t size, int64_t *wrong, struct ft_error *err);
int ft__bench_pingpong(struct ft_bench_ctx *bc, uint32_t peer, bool initiator, size_t size,
                       uint32_t warmup, uint32_t iters, double *samples, struct ft_error *err);
void ft__bench_row_base(struct ft_result_row *row, const char *test,
                        const struct ft_bench_report *out, uint64_t bytes, uint32_t nranks);
void ft__bench_rank_label(const struct ft_world *w, uint32_t r, char *buf, size_t len);

#endif

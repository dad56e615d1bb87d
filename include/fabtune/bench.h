/* SPDX-License-Identifier: MIT */
/*
 * fabtune/bench.h - the measurement engine: ranks, transports, patterns.
 *
 * A benchmark runs on a *world* of ranks (struct ft_world): processes that
 * found each other through fabtune's own TCP bootstrap (rank 0 listens, the
 * others connect and exchange their listen addresses) or through MPI when
 * they were launched by mpirun/srun. Every rank calls ft_bench_run() with the
 * same configuration; rank 0 ends up holding the results (struct ft_run,
 * source FT_SOURCE_BENCH) plus, for the all-pairs pattern, the matrices and
 * the outliers found in them.
 *
 * Data moves through one transport (struct ft_transport_ops): tcp, shm, mpi,
 * verbs or nccl. Patterns and fabtune's own collective algorithms only use
 * the ops table (post a send or a receive, progress), so adding a transport
 * is one file and one registry line. Transports that own collective
 * algorithms (mpi, nccl) provide the `coll` method as well.
 *
 * Errors: every function returns 0 or a negative FT_E* code and fills the
 * optional struct ft_error. Every blocking step has a deadline (cfg.timeout_s);
 * a peer that dies or stops answering gives FT_EPEER or FT_ETIMEDOUT with a
 * message naming the rank and its host. The library never prints.
 */
#ifndef FABTUNE_BENCH_H
#define FABTUNE_BENCH_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fabtune/base.h>
#include <fabtune/coll.h>
#include <fabtune/progress.h>
#include <fabtune/result.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ft_bench_report;

/* Patterns are the operations of fabtune/coll.h (enum ft_op): the collectives and
   the point-to-point and fabric tests; ft_op_name() gives the test name of result rows
   and of the command line, ft_op_from_name() reads it.
   dev_memcpy: cudaMemcpy device-to-device bandwidth on this rank's GPU (nccl transport).
   copy_matrix: copy-engine bandwidth between pinned host memory and every GPU, and between
   every pair of GPUs (an nvbandwidth-like matrix; src/dst name "host", "gpu0", ...). */

/* Element types, named as nccl-tests names them. size 0 = not supported on the host.
   half is IEEE 754 binary16, bfloat16 the top 16 bits of a binary32; both are reduced
   in float and rounded back to nearest-even after every step, as NCCL's kernels do. */
#define FT_DTYPE_MAP(X)        \
	X(INT8, "int8", 1)     \
	X(UINT8, "uint8", 1)   \
	X(INT32, "int32", 4)   \
	X(UINT32, "uint32", 4) \
	X(INT64, "int64", 8)   \
	X(UINT64, "uint64", 8) \
	X(FLOAT, "float", 4)   \
	X(DOUBLE, "double", 8) \
	X(HALF, "half", 2)     \
	X(BFLOAT16, "bfloat16", 2)

enum ft_dtype {
#define FT_DTYPE_ENUM_(n, s, sz) FT_DTYPE_##n,
	FT_DTYPE_MAP(FT_DTYPE_ENUM_)
#undef FT_DTYPE_ENUM_
	FT_DTYPE_COUNT
};

FT_API const char *ft_dtype_name(enum ft_dtype t);
FT_API size_t ft_dtype_size(enum ft_dtype t);
/* Also accepts nccl-tests' aliases: char, int, float32, float64, ... */
FT_API int ft_dtype_from_name(const char *name, enum ft_dtype *out);

#define FT_REDOP_MAP(X) \
	X(SUM, "sum")   \
	X(PROD, "prod") \
	X(MAX, "max")   \
	X(MIN, "min")   \
	X(AVG, "avg")   \
	X(MULSUM, "mulsum")

/* avg: the sum divided by the number of ranks (ncclAvg; integer division for integers).
   mulsum: nccl-tests' premulsum, each rank's input multiplied by its own scalar (1 on even
   ranks, 2 on odd ones) before the sum, as ncclRedOpCreatePreMulSum() does. */
enum ft_redop {
#define FT_REDOP_ENUM_(n, s) FT_REDOP_##n,
	FT_REDOP_MAP(FT_REDOP_ENUM_)
#undef FT_REDOP_ENUM_
	FT_REDOP_COUNT
};

FT_API const char *ft_redop_name(enum ft_redop op);
FT_API int ft_redop_from_name(const char *name, enum ft_redop *out);

/* nccl-tests -a: how per-rank times are combined. */
enum ft_bench_average {
	FT_BENCH_AVG_RANK0 = 0,
	FT_BENCH_AVG_MEAN = 1,
	FT_BENCH_AVG_MIN = 2,
	FT_BENCH_AVG_MAX = 3,
};

/* --bind, as mpirun's --bind-to: where local ranks run (auto: core when each gets one). */
enum ft_bench_bind {
	FT_BENCH_BIND_AUTO = 0,
	FT_BENCH_BIND_NONE = 1,
	FT_BENCH_BIND_CORE = 2,
	FT_BENCH_BIND_NUMA = 3,
	FT_BENCH_BIND_COUNT
};

FT_API const char *ft_bench_bind_name(enum ft_bench_bind b);
FT_API int ft_bench_bind_from_name(const char *name, enum ft_bench_bind *out);

/*
 * --spin: whether a waiting rank busy-polls before it sleeps. auto: when every
 * local rank has a CPU of its own in the process's CPU mask (Open MPI's
 * oversubscription rule), decided once per run; always; never.
 */
enum ft_bench_spin {
	FT_BENCH_SPIN_AUTO = 0,
	FT_BENCH_SPIN_ALWAYS = 1,
	FT_BENCH_SPIN_NEVER = 2,
	FT_BENCH_SPIN_COUNT
};

FT_API const char *ft_bench_spin_name(enum ft_bench_spin s);
FT_API int ft_bench_spin_from_name(const char *name, enum ft_bench_spin *out);

/* shm_cma_min_bytes: never a single copy (--cma-min off) */
#define FT_SHM_CMA_OFF UINT64_MAX
/*
 * shm_cma_auto_bytes' default: below it a message always takes the ring's
 * two pipelined copies (docs/internals/bench.md, "The fixed cost of a
 * single copy").
 */
#define FT_SHM_CMA_AUTO_MIN ((uint64_t)64 << 10)

/*
 * What to measure and how. Every rank must pass the same values (the CLI
 * parses the same command line on every rank). Initialise with
 * ft_bench_cfg_init() for the defaults documented per field.
 */
struct ft_bench_cfg {
	enum ft_op pattern; /* default all_reduce */
	char transport[16];            /* "auto" (default), "tcp", "shm", "mpi", "verbs", "nccl" */
	uint64_t min_bytes;            /* -b, default 32 MiB for collectives, 8 B for latency */
	uint64_t max_bytes;            /* -e, default = min_bytes */
	uint64_t step_factor;          /* -f, multiply the size each step (default 2) */
	uint64_t step_bytes;           /* -i, add this many bytes each step instead (0 = use -f) */
	uint32_t iters;                /* -n, timed iterations per size (default 20); pt2pt_bw:
	                                  messages, as perftest's -n */
	uint32_t warmup;               /* -w, untimed iterations per size (default 5) */
	uint32_t agg_iters;            /* -m, operations per timed iteration (0 or 1: one) */
	uint32_t graph_launches;       /* -G, nccl: capture the -n x -m timed operations into a
	                                  CUDA graph and launch it this often (0: no graph) */
	bool gpu_buffers;              /* --gpu-buffers: send and receive buffers in GPU memory
	                                  (tcp, shm, ucx stage through pinned host memory;
	                                  nccl always uses device buffers) */
	bool report_cputime;           /* -C, time columns are this process's CPU time */
	bool check;                    /* -c, validate the data and count #wrong (default on) */
	enum ft_redop op;              /* -o, default sum */
	enum ft_dtype dtype;           /* -d, default float */
	bool blocking;                 /* -z, wait for every rank after each iteration */
	enum ft_bench_average average; /* -a, default mean (1) */
	int root;                      /* rooted collectives and incast (default 0) */
	uint32_t window;               /* pt2pt: messages in flight (default 64) */
	double duration_s;             /* pt2pt: run each size this long instead of -n (-D) */
	bool bidir;                    /* pt2pt/pairs: both directions at once */
	enum ft_bench_bind bind;       /* local ranks' CPUs (default auto) */
	enum ft_bench_spin spin;       /* waiting ranks busy-poll first (default auto) */
	uint32_t streams;              /* tcp: sockets per peer (default 1) */
	char ifname[64];        /* tcp: NCCL_SOCKET_IFNAME syntax ("eth", "^docker", "=eth0") */
	uint64_t sockbuf_bytes; /* tcp: SO_SNDBUF/SO_RCVBUF, 0 = 256 KiB to a peer on this host, else autotuned */
	bool nodelay;           /* tcp: TCP_NODELAY (default on) */
	uint64_t shm_max_bytes; /* shm: cap on the collectives' buffers in the segment, all
	                           ranks together; 0 = half the memory. Over it: ring */
	uint64_t shm_cma_min_bytes; /* shm: copy messages this large once, through
	                               process_vm_readv; 0 (default) = chosen per
	                               message, FT_SHM_CMA_OFF = never */
	uint64_t shm_cma_auto_bytes; /* shm: chosen per message, the size from which a
	                                message may go as a single copy (--cma-min
	                                auto:SIZE); 0 = FT_SHM_CMA_AUTO_MIN */
	uint64_t shm_ring_bytes;     /* shm: each pair's ring, a power of two from
	                                16 KiB to 1 GiB; 0 (default) = 1 MiB */
	char verbs_op[8];       /* verbs: "send" (default), "write" or "read" */
	char verbs_conn[4];     /* verbs: "RC" (default) or "UD" (perftest's -c) */
	char rdma_device[32];   /* verbs: device name, "" = first with an active port */
	int gid_index;          /* verbs on RoCE: GID index (default 0) */
	double timeout_s;       /* no progress for this long = peer failed (default 30) */
	double threshold;       /* pairs: outlier below this fraction of the median (0.7) */
	bool retest;            /* pairs: retest bad pairs against a good host (default on) */
	uint32_t rounds;        /* bisection: random matchings (default 5) */
	uint64_t seed;          /* bisection matchings (default 1) */
	/* Set by the caller: checked between steps and in every wait. */
	volatile sig_atomic_t *stop;
	struct ft_progress progress; /* rank 0 reports sizes done / total */
	/* pt2pt: every rank gets rank 0's rows, in its report and through on_row, as both
	   ends of perftest print the table (its server and client forms). */
	bool rows_everywhere;
	/* Rank 0, collectives and pt2pt: each row as soon as it is measured (may be NULL);
	   with rows_everywhere, every rank. */
	void (*on_row)(void *ud, const struct ft_bench_report *rep,
	               const struct ft_result_row *row);
	void *on_row_ud;
};

FT_API void ft_bench_cfg_init(struct ft_bench_cfg *cfg);
/* Fill the per-pattern defaults of fields left at 0 (sizes, iterations, window). */
FT_API void ft_bench_cfg_resolve(struct ft_bench_cfg *cfg);
/* Check ranges and combinations; message names the option. */
FT_API int ft_bench_cfg_check(const struct ft_bench_cfg *cfg, struct ft_error *err) FT_MUST_CHECK;

/* ---- the world of ranks ------------------------------------------------ */

/*
 * The clock that timed a rank's latency samples in a run (the ping-pong's,
 * src/bench/ticks.c): the x86-64 time-stamp counter where the CPU says it
 * is invariant, its rate calibrated against CLOCK_MONOTONIC once a
 * process, else CLOCK_MONOTONIC. A loop is one timed ping-pong (a size of
 * pt2pt_lat, a pair's or the victim's probe).
 */
struct ft_bench_clock {
	char source[12];          /* "tsc", "monotonic"; "" where the rank timed none */
	double hz;                /* the counter's calibrated rate; NaN on CLOCK_MONOTONIC */
	double error;             /* bound on hz's relative error from the calibration; NaN */
	uint32_t loops;           /* timed loops */
	uint32_t loops_own_rate;  /* of them, converted at their own measured rate: the span
	                             in ticks disagreed with CLOCK_MONOTONIC's */
	uint32_t loops_monotonic; /* of them, on CLOCK_MONOTONIC after the counter was dropped */
};

/* What each rank knows about itself and tells the others. */
struct ft_rank_info {
	uint32_t rank;
	int32_t pid;
	int32_t numa;     /* NUMA node of the rank's CPU, -1 unknown */
	char host[64];    /* gethostname() */
	char addr[48];    /* data address (numeric IPv4/IPv6) chosen by --ifname */
	char ifname[24];  /* interface that address is on */
	uint16_t port;    /* data listen port (tcp transport) */
	char devices[96]; /* RDMA devices / GPUs seen, comma-separated, "" if none */
	char bind[8];     /* how ft_bench_run bound it: "core", "numa", "none", "kept" */
	char cpus[32];    /* the CPUs it may run on then, "0-3,6" ("" before a run) */
};

struct ft_world;

struct ft_world_cfg {
	uint32_t rank;       /* manual launch: this rank */
	uint32_t nranks;     /* manual launch: number of ranks */
	char bootstrap[128]; /* "ADDR:PORT" of rank 0's bootstrap listener */
	int bootstrap_fd;    /* rank 0: an inherited listening socket, or -1 */
	bool use_mpi;        /* launched by mpirun/srun: MPI_Init and use MPI_COMM_WORLD */
	char ifname[64];     /* address selection, as ft_bench_cfg.ifname */
	double timeout_s;    /* bootstrap deadline */
	volatile sig_atomic_t *stop;
	/* How the bootstrap's messages name the two ends of a pair (perftest's server and
	   client forms: "the server", "client"); NULL: "rank 0 (bootstrap)", ranks. */
	const char *root_name, *leaf_name;
};

FT_API void ft_world_cfg_init(struct ft_world_cfg *cfg);
/* True when the environment says mpirun/srun started us (OMPI_COMM_WORLD_SIZE, PMI_SIZE, ...). */
FT_API bool ft_world_launched_by_mpi(void);
/* Join the world: bootstrap or MPI_Init. Collective over all ranks. */
FT_API int ft_world_new(const struct ft_world_cfg *cfg, struct ft_world **out,
                        struct ft_error *err) FT_MUST_CHECK;
/* Leave: closes connections, MPI_Finalize when MPI was initialised here. NULL-safe. */
FT_API void ft_world_free(struct ft_world *w);
/* After an error: MPI_Abort under MPI (so mpirun stops every rank), else nothing. */
FT_API void ft_world_abort(struct ft_world *w, int code);
/*
 * This rank failed (@why says how) and goes on: the other ranks' collectives
 * on @w end with an error naming it, rather than wait for it (under MPI a
 * notice is sent to each; elsewhere its connections closing tell them).
 * From then on every collective on @w fails at once on this rank.
 */
FT_API void ft_world_fail(struct ft_world *w, const char *why);
/* Whether a rank of @w is known to have failed (ft_world_fail, here or a notice). */
FT_API bool ft_world_failed(const struct ft_world *w);
FT_API uint32_t ft_world_rank(const struct ft_world *w);
FT_API uint32_t ft_world_size(const struct ft_world *w);
FT_API const struct ft_rank_info *ft_world_info(const struct ft_world *w, uint32_t rank);
/*
 * Every rank contributes @len bytes (a small record: control plane); @out gets
 * size x @len bytes in rank order. Collective over all ranks.
 */
FT_API int ft_world_allgather(struct ft_world *w, const void *in, size_t len, void *out,
                              struct ft_error *err) FT_MUST_CHECK;
/* A listening TCP socket on @addr, port chosen by the kernel (for a launcher's rank 0). */
FT_API int ft_bench_listen(const char *addr, int *fd_out, uint16_t *port_out,
                           struct ft_error *err) FT_MUST_CHECK;
/* Fill this process's host, NUMA node and devices (no address). */
FT_API void ft_rank_info_local(struct ft_rank_info *info);

/* ---- transports ---------------------------------------------------------- */

struct ft_ep;

/*
 * A posted operation (libuv-style request). The caller owns it and keeps it
 * alive until `done` is set by the transport's progress.
 */
struct ft_req {
	uint32_t peer; /* rank */
	void *buf;     /* borrowed */
	size_t len;    /* bytes */
	bool done;
	bool is_send; /* set by the posting helpers; names the culprit on a timeout */
	/* transport-private */
	size_t off;
	uint64_t priv[2];
	struct ft_req *next;
};

/* A collective handed to a transport's own library (mpi, nccl). */
struct ft_bench_coll_args {
	enum ft_op coll;
	const void *sendbuf;
	void *recvbuf;
	size_t count; /* elements, as nccl-tests' count column */
	enum ft_dtype dtype;
	enum ft_redop op;
	int root;
	bool in_place; /* nccl-tests' in-place layout (see coll.c) */
	bool staged;   /* the host buffers matter (validation): device transports copy them */
	/* mulsum on a transport without it (all but nccl): a buffer as large as the send
	   side, symmetric over the ranks, for the scaled input; NULL otherwise */
	void *premul;
};

struct ft_transport_ops {
	const char *name;
	const char *summary;
	/* Is it usable on this build and machine? FT_ENOTSUP with what was tried if not. */
	int (*probe)(const struct ft_bench_cfg *cfg, struct ft_error *err);
	/* Connect to every other rank. Collective over the world. */
	int (*open)(struct ft_world *w, const struct ft_bench_cfg *cfg, struct ft_ep **out,
	            struct ft_error *err);
	int (*post_send)(struct ft_ep *ep, struct ft_req *req, struct ft_error *err);
	int (*post_recv)(struct ft_ep *ep, struct ft_req *req, struct ft_error *err);
	/* Move data; wait up to timeout_ms when idle. > 0 something moved, 0 nothing, or FT_E*. */
	int (*progress)(struct ft_ep *ep, int timeout_ms, struct ft_error *err);
	/* Native collective (FT_ENOTSUP: use fabtune's ring/direct algorithms). */
	int (*coll)(struct ft_ep *ep, const struct ft_bench_coll_args *a, struct ft_error *err);
	/* nccl-tests' -G: @ops collectives captured into one CUDA graph, launched @launches
	   times, waited for (NULL: the transport has no CUDA graphs) */
	int (*coll_graph)(struct ft_ep *ep, const struct ft_bench_coll_args *a, uint32_t ops,
	                  uint32_t launches, struct ft_error *err);
	/*
	 * The collectives' send and receive buffers (NULL when out of memory). A transport
	 * whose ranks can map each other's memory (shm) hands out memory in a shared
	 * segment, as NCCL's registered buffers, so that its `coll` reads and writes the
	 * peers' buffers in place. Default: the heap.
	 */
	void *(*mem_alloc)(struct ft_ep *ep, size_t bytes);
	void (*mem_free)(struct ft_ep *ep, void *p);
	void (*close)(struct ft_ep *ep);
	/* Non-blocking progress calls before a wait may sleep in progress(timeout) */
	int spin_polls;
	/* Relative speed rank for --transport auto on one host / across hosts (higher first). */
	int rank_local, rank_remote;
};

/* Registered transports, in a fixed order; n gets the count. */
FT_API const struct ft_transport_ops *const *ft_transports(size_t *n);
/* By name; NULL when unknown. */
FT_API const struct ft_transport_ops *ft_transport_find(const char *name);

/* ---- results -------------------------------------------------------------- */

/* An outlier found by the pairs pattern. */
struct ft_bench_outlier {
	char kind[8];      /* "host" or "pair" */
	uint32_t rank_a;   /* the host's rank, or the pair's first rank */
	uint32_t rank_b;   /* pair only */
	double value_GBps; /* its median (host) or its bandwidth (pair) */
	double ratio;      /* value / median of all pairs */
	char blame[96];    /* retest verdict: "host h2 (rank 2, veth0)" or "" */
	char text[256];    /* one line for people */
};

struct ft_bench_report {
	struct ft_run run;  /* rows, source FT_SOURCE_BENCH */
	char transport[16]; /* the one used (after auto) */
	char buffers[16];   /* where the buffers were: "host", "device" (the transport reads
	                       GPU memory itself) or "device-staged" (--gpu-buffers, copied
	                       through pinned host memory around each operation) */
	uint32_t nranks;
	struct ft_rank_info *ranks; /* nranks entries */
	/* pairs: nranks x nranks, [src * nranks + dst]; NaN on the diagonal */
	double *bw_GBps;
	double *lat_us;
	/* latency patterns (pt2pt_lat, pairs, incast): nranks entries, what timed each
	   rank's samples; NULL in the others */
	struct ft_bench_clock *clocks;
	double median_GBps;
	struct ft_vec outliers; /* struct ft_bench_outlier */
	/* incast: victim latency idle and under congestion, and their ratio */
	double victim_idle_us, victim_busy_us, congestion_impact;
	bool interrupted; /* stopped by cfg.stop: rows hold what was done */
};

FT_API void ft_bench_report_init(struct ft_bench_report *r);
FT_API void ft_bench_report_release(struct ft_bench_report *r);

/*
 * Run the benchmark described by @cfg on every rank of @w. Collective. On
 * rank 0 @out receives the results; on other ranks it receives the same rows.
 * When cfg->stop is raised the rows measured so far are kept, out->interrupted
 * is set and FT_EINTR is returned.
 */
FT_API int ft_bench_run(struct ft_world *w, const struct ft_bench_cfg *cfg,
                        struct ft_bench_report *out, struct ft_error *err) FT_MUST_CHECK;

/* ---- nccl-tests and perftest command lines (src/bench/dropin.c) ---------------- */

/*
 * The raw values of `fabtune bench`'s options, as a command line gives them
 * (names of nccl-tests' and perftest's flags in the comments). UINT64_MAX in
 * minb, maxb, iters and window: not given. ft_bench_args_init() sets the
 * defaults of the command line.
 */
/* Which end of perftest's server and client forms a process is (ft_bench_args.peer). */
enum ft_bench_peer {
	FT_BENCH_PEER_NONE,   /* --np, --rank, a launcher, or one rank */
	FT_BENCH_PEER_SERVER, /* `ib_send_bw [opts]`: rank 0, listens at the port */
	FT_BENCH_PEER_CLIENT, /* `ib_send_bw [opts] HOST`: rank 1, connects to HOST:port */
};

/* perftest's handshake port, its DEF_PORT: the server and client forms' default. */
#define FT_BENCH_PERFTEST_PORT 18515

struct ft_bench_args {
	const char *pattern, *transport; /* NULL: all_reduce, auto */
	const char *op, *dtype;          /* -o, -d: a name or "all" (a sweep of every one) */
	const char *bind, *ifname, *verbs_op, *rdma_dev;
	const char *spin; /* --spin: auto, always, never */
	const char *conn;        /* perftest's -c: RC or UD (verbs) */
	const char *atomic_type; /* perftest's -A: FETCH_AND_ADD or CMP_AND_SWAP (verbs) */
	const char *timeout_str;  /* -T: seconds or a duration ("30s"), NULL = timeout */
	const char *duration_str; /* perftest -D */
	const char *table_format; /* --table-format: nccl-tests layout, "classic" (NULL) or "2.18" */
	uint64_t minb, maxb, stepb, factor, iters, warmup, window, streams; /* -b -e -i -f -n -w */
	uint64_t agg_iters, cycles;                                         /* -m, -N (0: forever) */
	uint64_t qps, msg_size; /* perftest -q, -s */
	uint64_t rounds, sockbuf, shm_max;
	const char *cma_min; /* --cma-min: auto (NULL), auto:SIZE, off or a SIZE */
	int cputime, graph, parallel_init, stream_null, local_register; /* -C -G -p -y -R */
	int check, blocking, average, root, gid_index;                  /* -c -z -a -r */
	double timeout, threshold;
	bool all_sizes; /* perftest -a */
	bool bidir, no_nodelay, no_retest;
	bool gpu_buffers; /* --gpu-buffers */
	uint64_t seed;
	volatile sig_atomic_t *stop;
	/* launching: --np, --rank/--nranks/--bootstrap, nccl-tests' -t and -g */
	uint64_t np, rank, nranks, nthreads, ngpus; /* rank UINT64_MAX: no --rank */
	const char *bootstrap;
	bool have_rank; /* set by ft_bench_args_launch() */
	/* perftest's server and client forms, after a perftest program's name and with
	   no --np, --rank or launcher: `ib_send_bw [opts]` is the server, rank 0 of 2
	   listening on every IPv4 address; `ib_send_bw [opts] HOST` the client, rank 1,
	   connecting to HOST. Both meet through the --bootstrap machinery at the port. */
	const char *server;          /* the client form's HOST, NULL: none given */
	uint64_t port;               /* perftest's -p/--port; 0: not given (18515) */
	bool ipv6_addr;              /* perftest's --ipv6-addr: the server listens on every
	                                IPv6 address (and IPv4, dual-stack), the client
	                                takes HOST's IPv6 address only */
	enum ft_bench_peer peer;     /* set by ft_bench_args_launch() */
	char peer_bootstrap[136];    /* set with it: "0.0.0.0:PORT", "[::]:PORT" or
	                                "HOST:PORT" ("[ADDR]:PORT" for an IPv6 one) */
};

FT_API void ft_bench_args_init(struct ft_bench_args *a);
/* Check the launching options; nccl-tests runs -t x -g ranks in each process, fabtune one:
   --np is multiplied by them. After a perftest program's name with no --np, --rank or
   launcher, perftest's server form (no @a->server) or client form (@a->server, the HOST)
   becomes rank 0 or 1 of 2 meeting at @a->port (18515): @a->peer, @a->peer_bootstrap,
   and the rank fields are set. FT_EINVAL with a message naming the option, the HOST or
   the conflict (a HOST or --port with --np, --rank, --nranks, --bootstrap or mpirun). */
FT_API int ft_bench_args_launch(struct ft_bench_args *a, struct ft_error *err) FT_MUST_CHECK;
/* Join the world (ft_world_new): --rank/--nranks/--bootstrap (rank 0 of ft_bench_spawn()
   takes the listener it inherits), the one mpirun, srun or torchrun describe, else one
   rank. Collective. A failure names this rank when --rank gave it. */
FT_API int ft_bench_args_join(const struct ft_bench_args *a, const struct ft_bench_cfg *cfg,
                              struct ft_world **out, struct ft_error *err) FT_MUST_CHECK;
/* Whether a finished run found a problem: a row with #wrong, or pairs' outliers. */
FT_API bool ft_bench_report_failed(const struct ft_bench_report *rep);
/* Check @a and fill @cfg (resolved and checked); FT_EINVAL with a message naming the flag. */
FT_API int ft_bench_args_to_cfg(const struct ft_bench_args *a, struct ft_bench_cfg *cfg,
                                struct ft_error *err) FT_MUST_CHECK;
/* perftest's -a (all sizes) and nccl-tests' -a N (averaging) share a letter: with a
   point-to-point pattern on the line, an -a not followed by 0-3 becomes --all-sizes.
   After a perftest program's name (ib_write_bw, ...) the letters perftest gives another
   meaning than nccl-tests become fabtune's long options: -d DEV --rdma-device, -x N
   --gid-index, -b --bidir, -t N --window (tx depth), -p PORT --port (handshake port). */
FT_API void ft_bench_args_perftest_a(int argc, char **argv);
/* After a perftest program's name, its letters that have no counterpart here (-i port,
   -m MTU, -e events, -R rdma_cm, -l post list, -I inline) and that
   nccl-tests' letters would otherwise take: FT_EINVAL naming the letter. */
FT_API int ft_bench_args_perftest_check(int argc, char **argv, struct ft_error *err) FT_MUST_CHECK;

/* The checks of @cfg that need the number of ranks (hypercube: a power of two;
   incast: 3 or more; pairs, bisection: 2 or more; --root: one of them), with the
   messages a run gives: made once before ranks are started, so that one line says it
   rather than one per rank. FT_EINVAL. */
FT_API int ft_bench_cfg_check_world(const struct ft_bench_cfg *cfg, uint32_t nranks,
                                    struct ft_error *err) FT_MUST_CHECK;

/* What a test program's name stands for (ft_bench_dropin_name). */
struct ft_bench_dropin {
	enum ft_op pattern;
	const char *tool;      /* "nccl-tests" or "perftest" */
	const char *transport; /* perftest: "verbs"; nccl-tests: NULL (the --transport given) */
	const char *verbs_op;  /* perftest: "send", "write", "read" or "fadd"; else NULL */
	const char *program;   /* the name without its folder: "all_reduce_perf_mpi" */
};

/*
 * nccl-tests' and perftest's program names as a pattern: all_reduce_perf and
 * all_reduce_perf_mpi (every collective nccl-tests builds, sendrecv_perf,
 * hypercube_perf, ...), ib_send_bw, ib_write_lat, ib_read_bw, ib_atomic_bw, ...
 * FT_ENOENT for a name that is neither (a pattern name is not a program name);
 * FT_ENOTSUP with a message for a program fabtune has no counterpart of
 * (alltoallv_perf, raw_ethernet_bw).
 */
FT_API int ft_bench_dropin_name(const char *name, struct ft_bench_dropin *out,
                                struct ft_error *err) FT_MUST_CHECK;
/* ft_bench_run() once per cycle (-N), type (-d all) and reduction (-o all, reductions
   only), in nccl-tests' order, the rows in one report, labelled for the archive
   ("all_reduce over shm, 4 ranks"). Collective. On several ranks a failure's message
   starts with the rank and its host. */
FT_API int ft_bench_run_sweep(struct ft_world *w, const struct ft_bench_args *a,
                              struct ft_bench_cfg *cfg, struct ft_bench_report *rep,
                              struct ft_error *err) FT_MUST_CHECK;

/* ---- starting ranks (src/bench/spawn.c) ----------------------------------------- */

struct ft_bench_spawn {
	uint32_t nranks; /* ranks to start on this host */
	int argc;        /* the arguments after "bench", given to every rank */
	char **argv;
	double timeout_s; /* a rank stopped this long ends the run (default 30) */
	volatile sig_atomic_t *stop;
	/* what went wrong with which rank, one message each (may be NULL) */
	void (*say)(void *ud, const char *msg);
	void *say_ud;
};

/*
 * Start s->nranks ranks of this executable (`/proc/self/exe bench ARGV --rank R
 * --nranks N --bootstrap 127.0.0.1:PORT`, rank 0 inheriting the listener) and
 * wait for them. Returns rank 0's exit status when it failed, else the worst
 * one (3 for a rank killed by a signal), or a negative FT_E* when none started.
 */
FT_API int ft_bench_spawn(const struct ft_bench_spawn *s, struct ft_error *err);
/* From a signal handler: pass @sig on to the ranks ft_bench_spawn() started. */
FT_API void ft_bench_spawn_signal(int sig);
/* No --rank given: the world srun or torchrun describe (torchrun: rank 0's bootstrap at
   MASTER_ADDR, port MASTER_PORT + 1, unless @bootstrap_given). FT_EINVAL when they cannot
   meet (srun without PMI, torchrun without MASTER_ADDR/MASTER_PORT). */
FT_API int ft_bench_world_from_launcher(struct ft_world_cfg *wc, bool bootstrap_given,
                                        struct ft_error *err) FT_MUST_CHECK;
/* This process's rank as its launcher says (0 when not launched or unreadable). */
FT_API uint32_t ft_bench_launcher_rank(void);

/* ---- tables (src/bench/table.c) ---------------------------------------------- */

/*
 * nccl-tests' table layouts. classic: up to 2.17, times with 2, 1 or 0
 * decimals by magnitude, bandwidths with 2, "#wrong" in 5 columns. 2.18:
 * every number with as many decimals (2, 1, 0) as fit its column, then an
 * exponent; "#wrong" in 6 columns (its heads one space wider).
 */
enum ft_bench_table_style {
	FT_BENCH_STYLE_CLASSIC = 0,
	FT_BENCH_STYLE_218 = 1,
};

/* "classic" or "2.18"; FT_EINVAL otherwise. */
FT_API int ft_bench_table_style_from_name(const char *name, enum ft_bench_table_style *out);

/* How the tables are printed. */
struct ft_bench_table {
	bool stable;        /* leave out pids, CPU lists, version and times (tests) */
	bool gbits;         /* perftest --report_gbits: bandwidth in Gb/sec, not MB/sec */
	const char *min_bw; /* NCCL_TESTS_MIN_BW: "Avg bus bandwidth" floor, NULL = none */
	enum ft_bench_table_style style; /* nccl-tests' layout (default classic) */
	uint32_t nthreads, ngpus; /* nccl-tests' -t and -g as given, for its header (0: 1) */
	const char *test_name;    /* 2.18's "Collective test" lines: the name the test was
	                             run as ("all_reduce_perf_mpi"); NULL: PATTERN_perf */
};

/* Whether the pattern's text output is one row per size, printed as it is measured
   (collectives, pt2pt, dev_memcpy); the others print once, at the end. */
FT_API bool ft_bench_table_streams(const struct ft_bench_cfg *cfg);
/* The block before the first row: nccl-tests' header and column heads, or perftest's. */
FT_API void ft_bench_table_head(struct ft_strbuf *sb, const struct ft_bench_table *t,
                                const struct ft_bench_report *rep,
                                const struct ft_bench_cfg *cfg);
/* One row, in the pattern's layout. */
FT_API void ft_bench_table_row(struct ft_strbuf *sb, const struct ft_bench_table *t,
                               const struct ft_bench_cfg *cfg, const struct ft_result_row *r);
/* The rest of the text output: head and rows when @started is false, then the foot
   (streaming patterns), or the whole table of the others; the interrupted note.
   True when NCCL_TESTS_MIN_BW (t->min_bw) was not reached. */
FT_API bool ft_bench_table_end(struct ft_strbuf *sb, const struct ft_bench_table *t,
                               const struct ft_bench_report *rep,
                               const struct ft_bench_cfg *cfg, bool started);
/* The report as one JSON document (`fabtune bench --json`), newline-terminated. */
FT_API void ft_bench_report_json(struct ft_strbuf *sb, const struct ft_bench_table *t,
                                 const struct ft_bench_report *rep,
                                 const struct ft_bench_cfg *cfg);
/* nccl-tests' pieces: the three column-head lines, one data row (size, count, type,
   redop, root, then time/algbw/busbw/#wrong out of place and in place), and the two
   closing lines (true when @min_bw is set and not reached). */
FT_API void ft_bench_coll_head(struct ft_strbuf *sb, enum ft_bench_table_style style);
FT_API void ft_bench_coll_row(struct ft_strbuf *sb, const struct ft_result_row *row,
                              enum ft_bench_table_style style);
FT_API bool ft_bench_coll_foot(struct ft_strbuf *sb, const struct ft_bench_report *rep,
                               const char *min_bw);
/* perftest's column head: latency (@timed: -D's t_avg only) or bandwidth in Gb/sec or
   MB/sec (@gbits); and one row, tabs as perftest prints them. */
FT_API void ft_bench_pt2pt_head(struct ft_strbuf *sb, bool lat, bool timed, bool gbits);
FT_API void ft_bench_pt2pt_row(struct ft_strbuf *sb, bool lat, bool timed, bool gbits,
                               const struct ft_result_row *r);

#ifdef __cplusplus
}
#endif

#endif

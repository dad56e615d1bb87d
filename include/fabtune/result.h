/* SPDX-License-Identifier: MIT */
/*
 * fabtune/result.h - the one data model for performance results.
 *
 * The same rows come out of a real benchmark (source = bench), an imported
 * nccl-tests or perftest log (import), the twin (sim) and the analytic model
 * (model), so compare, diagnose, archive and report never care where a number
 * came from. Units follow nccl-tests: GB = 1e9 bytes, times in microseconds.
 * Rows are plain data with fixed-size strings: no ownership to track.
 */
#ifndef FABTUNE_RESULT_H
#define FABTUNE_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fabtune/base.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FT_SOURCE_MAP(X)                                                                           \
	X(BENCH, "bench")                                                                          \
	X(IMPORT, "import")                                                                        \
	X(SIM, "sim")                                                                              \
	X(MODEL, "model")

enum ft_source {
#define FT_SOURCE_ENUM_(n, s) FT_SOURCE_##n,
	FT_SOURCE_MAP(FT_SOURCE_ENUM_)
#undef FT_SOURCE_ENUM_
	FT_SOURCE_COUNT
};
FT_API const char *ft_source_name(enum ft_source s);
/* FT_EINVAL for an unknown name. */
FT_API int ft_source_from_name(const char *name, enum ft_source *out);

/*
 * One measured or predicted result: one collective at one size, one
 * point-to-point size, one pair of a pairs matrix, one port.
 * Absent numbers are NaN (use ft_result_row_init()); absent strings are "".
 */
struct ft_result_row {
	char test[32];	     /* "all_reduce", "alltoall", "pt2pt_bw", "pt2pt_lat", "pairs", ... */
	char transport[16];  /* "tcp", "shm", "mpi", "nccl", "verbs", "" for model/sim */
	uint64_t bytes;	     /* message size, bytes (nccl-tests "size") */
	uint64_t count;	     /* elements */
	char dtype[12];	     /* "float", "half", ... */
	char redop[12];	     /* "sum", "none", ... */
	int root;	     /* -1 when not rooted */
	uint32_t nranks;     /* ranks taking part */
	double time_us;	     /* out-of-place time, microseconds */
	double algbw_GBps;   /* bytes / time, GB/s */
	double busbw_GBps;   /* algbw × nccl-tests factor, GB/s */
	double ip_time_us;   /* in-place variants; NaN when not measured */
	double ip_algbw_GBps;
	double ip_busbw_GBps;
	int64_t wrong;	     /* #wrong elements; -1 when not checked */
	/* latency distribution (pt2pt_lat and probes), microseconds */
	double lat_min_us, lat_avg_us, lat_p50_us, lat_p99_us, lat_p999_us, lat_max_us,
		lat_stdev_us;
	uint32_t nsamples;   /* samples behind the figures (iterations) */
	double time_stdev_us; /* per-iteration spread of time_us (sample stdev), NaN when
	                         not measured: the noise band of a one-run baseline */
	uint32_t spread_n;   /* independent samples behind time_stdev_us when they are not
	                         nsamples: the full windows of a stream, whose nsamples
	                         counts messages (pt2pt_bw, pairs); 0: nsamples */
	char algo[24];	     /* "ring", "tree", "nvls", "halving_doubling", ... */
	char proto[12];	     /* "simple", "ll", "ll128" */
	char bottleneck[32]; /* "nvlink", "pcie", "nic", "tier1", ... */
	char src[64];	     /* pair/endpoint labels: host, rank or device */
	char dst[64];
};

FT_API void ft_result_row_init(struct ft_result_row *row);

/*
 * A run: metadata plus rows. Owned strings live inside fixed buffers; the
 * rows vector is owned by the run (ft_run_release).
 */
struct ft_run {
	enum ft_source source;
	char kind[32];	   /* "bench", "model", "sim", "nccl-tests", "perftest", "doctor", ... */
	char label[128];   /* free text: the command line or the imported file */
	char spec[128];	   /* cluster spec or preset it refers to, "" if none */
	double started_s;  /* wall-clock (Unix) time of the start, seconds; 0 when unknown */
	double wall_s;	   /* duration, seconds; NaN when unknown */
	double cpu_s;	   /* CPU time (user + system) of the process and its children, s; NaN */
	double host_busy;  /* fraction of the host's CPU time busy during the run, 0..1; NaN */
	double load1;	   /* 1-minute load average at the end of the run; NaN when unknown */
	uint64_t seed;	   /* for sim; 0 otherwise */
	struct ft_vec rows; /* struct ft_result_row */
};

FT_API void ft_run_init(struct ft_run *run, enum ft_source source, const char *kind);
FT_API void ft_run_release(struct ft_run *run);
FT_API int ft_run_add(struct ft_run *run, const struct ft_result_row *row) FT_MUST_CHECK;
static inline size_t
ft_run_nrows(const struct ft_run *run)
{
	return run->rows.len;
}
static inline struct ft_result_row *
ft_run_row(const struct ft_run *run, size_t i)
{
	return (struct ft_result_row *)ft_vec_at(&run->rows, i);
}

#ifdef __cplusplus
}
#endif
#endif

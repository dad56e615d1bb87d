/* SPDX-License-Identifier: MIT */
/*
 * fabtune/obs.h - observations and findings: what probes and parsers see,
 * and what the diagnosis concludes.
 *
 * An observation is one fact about one entity: a port's state, a counter's
 * value, a log line's warning, a measured bandwidth. Parsers, the probe, the
 * benchmark and the twin all produce them; the diagnosis reads them. Keys
 * follow docs/internals/observations.md. Plain data with fixed-size strings,
 * except the source file: a path of any length, held once in a string pool
 * (struct ft_strpool) owned by the container the observation lives in.
 */
#ifndef FABTUNE_OBS_H
#define FABTUNE_OBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fabtune/base.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Interned strings: each distinct string is stored once and keeps its address
 * until the pool is released, so records may point into it and be copied by
 * value. Interning the empty string or NULL gives a static "" and allocates
 * nothing. Lookups are hashed: a million distinct strings cost no more per
 * string than ten.
 */
struct ft_strpool {
	struct ft_vec s;   /* char *, each owned by the pool, in the order added */
	char **slots;	   /* open-addressing table over @s, NULL when empty */
	size_t nslots;	   /* a power of two, at least twice @s.len; 0 before the first */
	const char *last;  /* the string interned last: runs of one file skip the hash */
};

FT_API void ft_strpool_init(struct ft_strpool *p);
FT_API void ft_strpool_release(struct ft_strpool *p);
/* @str as held by @p (added when new); NULL when out of memory. */
FT_API const char *ft_strpool_intern(struct ft_strpool *p, const char *str);

struct ft_obs {
	char host[64];	 /* "" when not known */
	char device[48]; /* "mlx5_0", "eth0", "GPU3", "0000:3b:00.0", "" */
	int port;	 /* port number, -1 when none */
	int rank;	 /* MPI/NCCL rank, -1 when none */
	char key[64];	 /* "ib.port.state", "ib.counter.SymbolErrorCounter", ... */
	bool has_num;	 /* @num holds a value */
	double num;	 /* numeric value in @unit */
	char str[160];	 /* textual value ("Active", a log message); "" when none */
	char unit[16];	 /* "Gbps", "GBps", "bytes", "count", "us", "" */
	const char *file; /* source file as given by the user (any length), "sysfs",
			     "bench" or ""; never NULL after ft_obs_init(). Points into
			     the pool of the container holding the observation */
	uint32_t line;	 /* 1-based line in @file, 0 when not from a file */
};

/*
 * A growing set of observations. ft_obs_set_add() copies the record and
 * interns its file in @files, so the caller's string may be transient; the
 * file of an observation of the set stays valid until the set is released.
 */
struct ft_obs_set {
	struct ft_vec v;	  /* struct ft_obs */
	struct ft_strpool files; /* the source files of the observations */
};

FT_API void ft_obs_set_init(struct ft_obs_set *set);
FT_API void ft_obs_set_release(struct ft_obs_set *set);
FT_API int ft_obs_set_add(struct ft_obs_set *set, const struct ft_obs *o) FT_MUST_CHECK;
static inline size_t
ft_obs_set_len(const struct ft_obs_set *set)
{
	return set->v.len;
}
static inline struct ft_obs *
ft_obs_set_at(const struct ft_obs_set *set, size_t i)
{
	return (struct ft_obs *)ft_vec_at(&set->v, i);
}
/* A zeroed observation with port = rank = -1 and the given key. */
FT_API void ft_obs_init(struct ft_obs *o, const char *key);
/*
 * Point @o->file at its copy in @pool (a NULL file becomes ""): how a
 * container that holds observations takes ownership of their files.
 * FT_ENOMEM, leaving @o unchanged.
 */
FT_API int ft_obs_intern(struct ft_strpool *pool, struct ft_obs *o) FT_MUST_CHECK;
/* Entity as text: "host/device/port" parts that are known, or "rank N". */
FT_API void ft_obs_entity(const struct ft_obs *o, char *buf, size_t len);

/* ---- findings ------------------------------------------------------------ */

#define FT_LAYER_MAP(X)                                                                            \
	X(APPLICATION, "application")                                                              \
	X(COMMLIB, "communication library")                                                        \
	X(OS_DRIVER, "OS/driver")                                                                  \
	X(FIRMWARE_HW, "firmware/hardware")                                                        \
	X(FABRIC, "fabric")

enum ft_layer {
#define FT_LAYER_ENUM_(n, s) FT_LAYER_##n,
	FT_LAYER_MAP(FT_LAYER_ENUM_)
#undef FT_LAYER_ENUM_
	FT_LAYER_COUNT
};

#define FT_SEVERITY_MAP(X)                                                                         \
	X(INFO, "info")                                                                            \
	X(WARNING, "warning")                                                                      \
	X(ERROR, "error")                                                                          \
	X(CRITICAL, "critical")

enum ft_severity {
#define FT_SEVERITY_ENUM_(n, s) FT_SEV_##n,
	FT_SEVERITY_MAP(FT_SEVERITY_ENUM_)
#undef FT_SEVERITY_ENUM_
	FT_SEV_COUNT
};

FT_API const char *ft_layer_name(enum ft_layer l);
FT_API const char *ft_severity_name(enum ft_severity s);

#define FT_FINDING_MAX_EVIDENCE 8

/*
 * One conclusion of the diagnosis, with the observations behind it. The
 * files of the evidence belong to the container of the finding (struct
 * ft_findings, or the observation set of an archive record).
 */
struct ft_finding {
	char rule_id[40];     /* "ib-port-not-active" */
	enum ft_layer layer;
	enum ft_severity severity;
	char entity[128];     /* host/device/port or rank the finding is about */
	char message[384];    /* what is wrong, with figures */
	char fix[384];	      /* what to change */
	char kb[64];	      /* knowledge-base ids it rests on, "IB-COUNTERS SYM-..." */
	size_t nevidence;
	struct ft_obs evidence[FT_FINDING_MAX_EVIDENCE];
};

#ifdef __cplusplus
}
#endif
#endif

/* SPDX-License-Identifier: MIT */
/*
 * spec/scenario.h - a loaded scenario (struct ft_scenario, opaque in
 * <fabtune/sim.h>): what spec/scenario.c fills from a scenario document and
 * the twin (src/sim) runs. The layout lives here, on the floor of the loader,
 * so that the loader needs nothing of the twin's internals; sim/sim_int.h
 * includes it. The types it holds are the public ones the twin's API
 * speaks (operations, algorithms, routing, the packet engine's knobs).
 */
#ifndef FT_SPEC_SCENARIO_H
#define FT_SPEC_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#include <fabtune/sim.h>

enum sc_placement {
	SC_PACKED, /* fill each node's GPUs first */
	SC_SPREAD, /* round-robin over nodes */
	SC_RANDOM, /* seeded shuffle of the GPUs */
	SC_EXPLICIT,
};

/* The names of SC_PACKED .. SC_RANDOM, NULL-terminated (scenario.c): the scenario's
 * `placement:` and `fabtune sim --placement`. */
extern const char *const ft__scenario_placement_names[];
/* --placement's names: a scenario's (SC_PACKED, SC_SPREAD, SC_RANDOM), for ft__name_read. */
extern const struct ft__name_set ft__scenario_placements;

/* An op's algorithm or protocol left to NCCL's tuner (the model's choice). */
#define SC_ALGO_AUTO  FT_ALGO_COUNT
#define SC_PROTO_AUTO FT_PROTO_COUNT

struct sc_op {
	enum ft_op op;
	enum ft_algo algo;   /* SC_ALGO_AUTO: the tuner's */
	enum ft_proto proto; /* SC_PROTO_AUTO: the tuner's */
	uint64_t bytes;
	uint32_t repeat;
	uint32_t channels; /* NCCL channels (one ring per rail); 0 = one per NIC */
	/* algo collnet: collnet_direct or collnet_chain forced, else the tuner's of the two */
	enum ft_collnet_variant collnet;
};

struct sc_job {
	char name[32];
	uint32_t nranks;        /* 0 = every GPU from first_node on */
	uint32_t gpus_per_node; /* 0 = all of a node's GPUs */
	uint32_t first_node;
	enum sc_placement placement;
	struct ft_vec explicit_gpus; /* uint32_t pairs (node, gpu) */
	uint32_t iterations;
	double compute_s;     /* per iteration, before the collectives */
	double compute_tflop; /* per GPU per iteration (alternative to compute_s) */
	double mfu;           /* share of peak reached by the compute, default 0.5 */
	struct ft_vec ops;    /* struct sc_op */
	uint32_t prio;        /* priority of its traffic (packet engine) */
	bool nvls;            /* NVLink SHARP on (false: NCCL_NVLS_ENABLE=0) */
	uint32_t line, col;
};

enum sc_pattern {
	SC_PERMUTATION,
	SC_INCAST,
	SC_ALLTOALL
};

/* The priority a scenario's traffic runs at unless it says: 3, where RoCE's lossless
 * class usually is (DSCP 26 maps to it by default, kb ROCE-QOS). */
#define SC_DEFAULT_PRIO 3

struct sc_background {
	enum sc_pattern pattern;
	uint64_t bytes;     /* per flow */
	uint32_t hosts;     /* endpoints taking part, 0 = all */
	uint32_t target;    /* incast: receiving endpoint */
	bool gpu_endpoints; /* endpoints are GPUs (default: NICs) */
	uint32_t bursts;    /* on/off: the pattern repeated this many times (0 = once) */
	double off_s;       /* idle time after each burst before the next */
	/* Start jitter: each source starts its burst at an offset drawn uniformly in
	 * [0, jitter_s) from the scenario's seed, once per source (jitter_per_source) or
	 * anew for every burst (the default). 0 = every source at once. */
	double jitter_s;
	bool jitter_per_source;
	uint32_t jitter_line, jitter_col; /* where jitter: is, for errors */
	uint32_t prio;      /* priority of its traffic (packet engine) */
	uint32_t line, col;
};

enum sc_fault_what {
	SC_F_LINK,
	SC_F_NIC,
	SC_F_PCIE,
	SC_F_NVLINK,
	SC_F_SWITCH,
	SC_F_PORT,
	SC_F_GPU
};

struct sc_fault {
	enum sc_fault_what what;
	uint32_t node, gpu, nic, tier, sw, port, link;
	bool has_gpu, has_nic;
	double scale;    /* 0 = down */
	double slowdown; /* GPU straggler: compute time factor */
	uint32_t line, col;
};

enum {
	FAB_TIERS = 1,
	FAB_RADIX = 2,
	FAB_OVERSUB = 4,
	FAB_LINK = 8,
	FAB_KIND = 16
};

/* Where a key of the scenario's packet: block is: "packet" (the block), "packet.<key>". */
struct sc_mark {
	char key[40];
	uint32_t line, col;
};

struct ft_scenario {
	char name[64];
	char file[256];
	bool from_options;  /* built from `sim SPEC --op` (ft_scenario_from_op): no file positions */
	struct ft_vec marks; /* struct sc_mark, for errors found after loading */
	uint32_t engine_line, engine_col; /* the engine: key's value; 0 when none */
	uint32_t nccl_line, nccl_col;     /* the nccl: block's version: value; 0 when none */
	char description[1024]; /* the scenario's own words, "" when none */
	struct ft_cluster_spec spec;
	char engine[16];
	enum ft_routing routing;
	bool has_routing;
	uint32_t qps_per_conn;
	uint64_t flowlet_bytes;
	uint64_t seed;
	double fabric_scale;         /* multiply host and fabric link capacities (1 = as built) */
	struct ft_packet_cfg packet; /* the packet engine's knobs (packet:) */
	/* The `fabric:` block's changes, re-applied to a cluster given by --cluster. */
	struct ft_fabric_spec fab;
	unsigned fab_mask;        /* FAB_* bits of the fields set */
	struct ft_vec jobs;       /* struct sc_job */
	struct ft_vec background; /* struct sc_background */
	struct ft_vec faults;     /* struct sc_fault */
};

/*
 * Where job @ji's field (printf-style @fmt, "ranks", "ops[2].algo") is, for
 * an error found when the job runs: "file:line:col: jobs[i].field" in a
 * scenario file, or the option @opt that set it ("--ranks", "--algo") in a
 * scenario built from the command line, which has no positions. Returns @buf.
 */
const char *ft__scenario_job_where(const struct ft_scenario *sc, size_t ji, const char *opt,
                                   char *buf, size_t len, const char *fmt, ...) FT_PRINTF(6, 7);
/*
 * Name the place of a packet engine error found after loading (its message
 * starts "packet.<key>"): the file:line:col of that key in the packet:
 * block, else of the block, else "--engine packet" where @engine_option
 * chose the engine, else the file's engine: key. Other messages are left.
 */
void ft__scenario_name_packet_error(const struct ft_scenario *sc, bool engine_option,
                                    struct ft_error *err);

/*
 * Resolve @arg (preset shorthand or spec file) and apply the scenario's
 * fabric changes to it; with changes, a preset whose default fabric can't
 * hold its node count is taken from its 2-node default and resized.
 */
/* packet: block readers of the InfiniBand tables (scenario_pkt.c); @obj is the
 * struct ft_packet_cfg being read. */
struct ft__doc;
struct yaml_node_s;
/* Each item of YAML list @v (@what, at most @cap @things) to @fn with its path
 * "path[i]"; returns the count or FT_E* (file:line:col named). */
typedef int ft__scenario_item_fn(struct ft__doc *d, struct yaml_node_s *n, const char *field,
                                 uint32_t i, void *ud);
int ft__scenario_each_item(struct ft__doc *d, struct yaml_node_s *v, const char *path,
                           const char *what, uint32_t cap, const char *things,
                           ft__scenario_item_fn *fn, void *ud);
int ft__scenario_read_cct(struct ft__doc *d, struct yaml_node_s *v, const char *path, void *obj);
int ft__scenario_read_vlarb_high(struct ft__doc *d, struct yaml_node_s *v, const char *path,
                                 void *obj);
int ft__scenario_read_vlarb_low(struct ft__doc *d, struct yaml_node_s *v, const char *path,
                                void *obj);

int ft__spec_scenario_cluster(const struct ft_scenario *sc, const char *arg,
                              struct ft_cluster_spec *out, struct ft_error *err) FT_MUST_CHECK;

#endif

/* SPDX-License-Identifier: MIT */
/*
 * sim/sim_int.h - internals of the simulation module: the flow-level core
 * (tasks, dependencies, max-min fair rates, the event loop), shared by the
 * flow engine, the scenario runner and the unit tests.
 *
 * The core knows nothing of topologies: it sees links as capacities and
 * latencies indexed 0..nlinks-1, and flows as tasks that carry bytes over a
 * list of links. A task whose path is not given at submission is routed when
 * it starts, through the router callback (adaptive routing needs the loads
 * of that moment). Barrier tasks carry no bytes: they wait for their
 * predecessors, then for a delay, and release their successors.
 */
#ifndef FT_SIM_INT_H
#define FT_SIM_INT_H

#include "internal.h"

#include <fabtune/base.h>

#define FS_NONE UINT32_MAX
/* The words of the bottleneck column where NCCL's window on a send binds (ft__sim_p2p_cap(),
 * an all-to-all's windowed sends): its chunks in flight per round trip, not a link. */
#define FT__SIM_P2P_WINDOW_WHAT "p2p:window"

/* Fetch the cache line at @p early (a hint). Call it where the memory is used: GCC takes a
 * function whose only effect is a prefetch for a pure one and drops the calls. */
#if defined(__GNUC__) || defined(__clang__)
#define FS_PREFETCH(p) __builtin_prefetch(p)
#else
#define FS_PREFETCH(p) ((void)(p))
#endif

enum fs_kind {
	FS_FLOW,    /* carries bytes over a path */
	FS_BARRIER, /* carries nothing: waits (delay + lat_mult x predecessor latency) */
	FS_SPAWNER, /* a barrier that, when it starts, has the spawn callback add flows */
};

enum fs_state {
	FS_WAITING,     /* predecessors not all done */
	FS_READY,       /* start event queued */
	FS_ACTIVE,      /* transmitting */
	FS_PROPAGATING, /* last byte sent, arriving after the path latency */
	FS_DONE,
};

/*
 * One task. Times are seconds from the start of the run. For a flow,
 * fct = t_done - t_start = transmission + path latency.
 */
struct fs_task {
	/* First cache line (tasks are 64-byte aligned): what a flow's start, end of
	 * transmission and arrival read and write. */
	double bytes;        /* wire bytes to move (0 for barriers) */
	union {
		double sent;    /* flow: bytes sent so far */
		double floor_s; /* barrier: what each of its floor_n steps lasts at least */
	};
	double lat_s; /* path latency, set when routed */
	union {
		double ideal_s; /* flow: uncontended time: bytes / bottleneck capacity + latency */
		double floor_n; /* barrier: its steps floor_s holds (ft__fs_barrier_floor()) */
	};
	double t_start, t_done;
	uint32_t path_first; /* into fs_sim.paths */
	uint32_t npath;      /* 0 until routed (or given) */
	uint32_t active_idx; /* position in fs_sim.active while ACTIVE */
	uint8_t kind;        /* enum fs_kind */
	uint8_t state;       /* enum fs_state */
	uint8_t spawned;     /* added during the run: retired when done, its slot recycled */
	uint8_t cap_idx;     /* 0: no rate cap of its own, else fs_sim.caps[cap_idx - 1] */
	/* Second line. */
	uint32_t next;      /* spawned: the one successor it releases, FS_NONE */
	uint32_t tag;       /* caller's grouping (operation index), FS_NONE for none */
	uint32_t bott_link; /* link that limited its rate longest (its bottleneck), FS_NONE */
	uint32_t src, dst;  /* endpoints for the router (vertex ids), FS_NONE when unused */
	uint32_t qp;        /* queue pair / sub-flow index, hashed by ECMP */
	uint32_t npred;     /* predecessors not yet done */
	uint32_t path_cap;  /* room at path_first (a recycled slot reuses its path storage) */
	double rate_Bps;    /* max-min rate as of the last ft__fs_recompute() call (the event loop
	                     * keeps the active flows' rates in fs_sim.act_rate) */
	double delay_s;     /* wait between ready and start (compute time, protocol overhead) */
	double lat_mult;    /* barrier: extra delay = lat_mult x max predecessor path latency */
	double pred_lat_s;  /* max path latency among finished predecessors */
};
_Static_assert(sizeof(struct fs_task) == 128, "two cache lines per task");

struct fs_sim;
struct ft_model_links;
struct ft_model_query;
struct ft_model_result;

/*
 * Route task @t: write its link ids into @links (at most @max) and return
 * their number (> 0), or a negative FT_E* (FT_ENOENT: unreachable).
 */
typedef int fs_route_fn(void *ud, const struct fs_sim *s, uint32_t t, uint32_t *links, uint32_t max,
                        struct ft_error *err);

/*
 * Spawner task @t starts: add its flows now with ft__fs_spawn_flow() (the
 * task's qp field is the caller's argument). Returns 0 or a negative FT_E*.
 */
typedef int fs_spawn_fn(void *ud, struct fs_sim *s, uint32_t t, struct ft_error *err);

/* The slowest retired flow of one tag. */
struct fs_tag_slowest {
	double t_done;
	uint32_t bott_link;
	bool capped; /* its own rate cap held it all the way (ft__fs_flow_capped()) */
	double rate_Bps; /* its bytes over its time less its path latency (ft__fs_flow_rate()) */
};

/*
 * A link's water-filling state: 16 bytes, so that a freezing walk, which
 * touches it at every hop, finds it with one shift (four to a cache line).
 * Its flows are wf_flows[off ...]: laid out (wf_place()) from off + cnt
 * down to off, and read until the link has no unfrozen flow left, every
 * unfrozen one being among them; the border check keeps its index in off.
 */
struct fs_wf_link {
	double rem;   /* capacity not yet given to frozen flows */
	uint32_t cnt; /* unfrozen flows crossing it; its share is rem / cnt */
	uint32_t off; /* where its flows start in wf_flows (or its place: above) */
};

/*
 * Hops of an active flow's path copied into its slot (act_path), moved with
 * it: a full filling over the kept lists walks the copy, in memory that
 * holds only the flows in flight, not the path in paths among those of every
 * flow of the run (a cache miss each). A longer path is walked in paths.
 * 12 hops: a PXN send's flow is its NVLink leg to the proxy (2 hops) and the
 * proxy's route (8 on a two-tier fat tree, 10 on three tiers), so most flows
 * of an all-to-all between nodes are 10 hops (docs/internals/sim.md, *Data
 * structures*). 48 bytes a slot sit on one or two cache lines.
 */
#define FS_SLOT_HOPS 12

/*
 * An active flow crossing a link: its index in active[], where its path starts
 * in paths (act_pf: it stays when the flow moves to another slot), which hop
 * of it this is, and its length (at most 4,096: ft__fs_add_flow()), so that a
 * full filling freezes the flows of a kept list without reading act_pf and
 * act_np (a cache miss each).
 */
struct fs_lf_ent {
	uint32_t act;
	uint32_t pf;
	uint16_t hop;
	uint16_t np;
};

/* The active flows crossing one link (kept by flow starts and ends). */
struct fs_lf {
	struct fs_lf_ent *e;
	uint32_t n, cap;
};

/* A link queued by its fair share. */
struct fs_wf_item {
	double key;
	uint32_t link;
	uint32_t flow; /* a link only one refilled flow crosses: that flow (flowfill.c) */
};

/* Bottleneck bookkeeping of one active flow. */
struct fs_act_bn {
	uint32_t bott;  /* link that froze its rate in the last water filling */
	uint32_t best;  /* the link that has limited it longest so far */
	double since;   /* since when bott has been its bottleneck */
	double best_s;  /* for how long best did */
};

struct fs_event {
	double t;
	uint64_t seq;
	uint32_t task;
	uint32_t type; /* 0 = start, 1 = done */
};

#define FS_LANES 16

/* A link's capacity and latency in one place (a flow's start reads both). */
struct fs_link_cl {
	double cap_Bps;
	double lat_s;
};

struct fs_lane {
	double delay;
	size_t head;  /* first pending event in q */
	struct ft_vec q; /* struct fs_event */
};

/* A link's running state: one 32-byte record, so a flow's start or end
 * touches one cache line per link it crosses. */
struct fs_link_st {
	double bytes;      /* bytes carried so far */
	double load;       /* the sum of its active flows' rates (incremental recomputation) */
	uint32_t nactive;  /* active flows crossing it (adaptive routing reads it) */
	uint32_t maxflows; /* most flows ever sharing it at once */
	uint32_t nbott;    /* active flows it is the bottleneck of (fs_act_bn.bott) */
	float freed;       /* the rates of the flows that ended on it since the last
	                    * recomputation: room no flow is given yet (room_rtol) */
};
_Static_assert(sizeof(struct fs_link_st) == 32, "a power of two: never across two lines");

struct fs_sim {
	/* links */
	uint32_t nlinks;
	double *cap_Bps; /* effective capacity (nominal x fault scale); fixed once started */
	double *lat_s;   /* fixed once started */
	struct fs_link_cl *link_cl; /* both side by side, copied at the start */
	struct fs_link_st *lk;   /* per link: what every flow start and end updates (32-byte
	                            aligned inside lk_mem) */
	void *lk_mem;
	double *link_bytes;      /* lk's bytes, filled by ft__fs_link_export() */
	uint32_t *link_maxflows; /* lk's maxflows, the same */
	/* tasks and dependencies */
	struct fs_task *tasks; /* 64-byte aligned, inside tasks_mem */
	void *tasks_mem;
	uint32_t ntasks, tasks_cap;
	struct ft_vec edges;  /* uint32_t pairs (from, to) until the run starts */
	uint32_t *succ_first; /* CSR of successors, built at start */
	uint32_t *succ;
	struct ft_vec paths; /* uint32_t link ids */
	/* run state */
	double now_s;
	uint32_t *active; /* task ids of ACTIVE flows */
	uint32_t nactive;
	/* Hot data of active flow i (parallel to active[], moved with it): the
	 * water filling and the event step touch only these arrays. */
	uint32_t *act_pf;   /* path_first */
	uint32_t *act_np;   /* npath */
	uint32_t *act_path; /* its first FS_SLOT_HOPS hops, a copy of its path's */
	double *act_rate;   /* current rate, bytes/s */
	double *act_left;   /* bytes left to send at act_t0 */
	double *act_t0;     /* when act_left was last brought up to date (its rate changed) */
	double *act_fin;    /* when it sends its last byte at its rate (INFINITY: rate 0) */
	uint32_t *act_hp;   /* its place in fin_heap */
	uint32_t *fin_heap; /* active flows, a min-heap on act_fin (act_cap) */
	uint32_t *fin_tmp;  /* the flows ending in one event (act_cap) */
	struct fs_act_bn *act_bn; /* which links limited it, and for how long */
	uint32_t *act_capi; /* its own rate cap (an NCCL channel's): fs_task.cap_idx */
	struct ft_vec caps; /* double: the distinct rate caps tasks name (fs_task.cap_idx),
	                     * FS_MAX_CAPS at most */
	uint32_t *cap_rank; /* caps[k]'s place in increasing order (ties: lower k first) */
	uint32_t *cap_cnt;  /* counting sort of the capped flows by rank: ncaps + 1 */
	size_t caps_ranked; /* caps ranked so far (cap_rank is stale when caps.len differs) */
	double cap_floor;   /* the lowest of the caps ranked (INFINITY: none; wf_rank_caps()) */
	uint64_t ndone;
	bool rates_dirty;
	bool started;
	struct ft_vec events; /* binary heap of struct fs_event */
	/* Lanes: events queued at a fixed delay from the time they were queued at (lane 0:
	 * due now). Time only grows, so each lane is in (time, sequence) order as it is; the
	 * next event is the earliest of the heap's top and the lanes' heads. Path latencies
	 * and zero delays take few values: most events never enter the heap. */
	struct fs_lane lanes[FS_LANES];
	uint32_t nlanes;
	uint64_t seq;
	fs_route_fn *route;
	void *route_ud;
	fs_spawn_fn *spawn;
	void *spawn_ud;
	/* Spawned flows: slots of done ones are recycled; what the counters need of them is
	 * kept here (FCT and ideal time per flow, the slowest per tag). */
	struct ft_vec free_ids;    /* uint32_t */
	struct ft_vec retired_fct; /* double */
	struct ft_vec retired_ideal;
	struct ft_vec tag_slowest; /* struct fs_tag_slowest, indexed by tag */
	double retired_makespan_s;
	uint64_t ncreated; /* tasks added, spawned ones included */
	uint32_t act_cap;  /* room in the act_* arrays */
	/* water-filling scratch, sized nlinks */
	struct fs_wf_link *wf_link;
	uint32_t *wf_touched;
	uint64_t *wf_mark;     /* touched links, one bit each (listed in link order) */
	struct fs_wf_item *wf_items, *wf_items2; /* touched links sorted by first share */
	uint32_t *wf_hist;     /* radix sort counts */
	uint32_t wf_radix_min; /* fewer links to sort: a merge sort (the tests set 0: radix only) */
	uint32_t *wf_flows; /* link -> flows CSR, sized by the sum of active path lengths */
	size_t wf_flows_cap;
	struct ft_vec wf_heap; /* struct fs_wf_item: links whose share grew, a min-heap */
	uint32_t *wf_capped;   /* selected flows with a rate cap still unfrozen when the list
	                        * was built, by (cap, position) (act_cap) */
	/* incremental recomputation (see recompute() in flowcore.c) */
	double inc_level;     /* the lowest rate of a flow that ended since the last one */
	double inc_thr;       /* this pass's level, less FS_LEVEL_RTOL (grow mode) */
	uint32_t *inc_sel;    /* active flows whose rates are recomputed (act_cap) */
	double *inc_old;      /* their rates before (act_cap) */
	uint32_t inc_since_full; /* incremental recomputations since the last full one */
	bool loads_valid;        /* link_load matches the rates (a full pass leaves it stale) */
	bool full_rates;         /* recompute every rate every time (tests compare both) */
	bool level_only;         /* refill every flow above the level, not only the components
	                          * a change reaches (the bench compares both) */
	bool comp_only;          /* refill the components a change reaches, not the grown set
	                          * (see grow_select() in flowcore.c; the bench compares) */
	double defer_rtol;       /* flows ending within this times the first one's FCT share
	                          * one recomputation (each at its own time; FS_DEFER_RTOL;
	                          * 0: one per instant) */
	double room_rtol;        /* flow ends that leave at most this share of every link's
	                          * capacity unused wait for the next recomputation
	                          * (FS_ROOM_RTOL; 0: each is one) */
	bool room_due;           /* an end left more than room_rtol of a link: recompute */
	bool no_widen;           /* grow mode without widening a grown selection (tests) */
	bool caps_eager;         /* list the capped flows before each filling (tests) */
	struct ft_vec inc_seeds; /* uint32_t: links of the flows that ended since the last one */
	struct ft_vec inc_new;   /* uint32_t: task ids of the flows started since the last one */
	uint32_t *wf_bott;       /* the link that froze active flow i in this filling (act_cap) */
	uint8_t *wf_live;        /* 1 while active flow i is unfrozen in a filling (act_cap): a
	                          * link's list is checked against these bytes, not the rates */
	uint8_t *inc_in;         /* active flow i is selected (0 between passes; act_cap) */
	/* Kept link -> active flows (grow mode while keep): entry k of link l is
	 * lf[l].e[k]; path element m of an active flow sits at lf[...].e[path_pos[m]]. */
	struct fs_lf *lf;
	uint32_t *path_pos;   /* parallel to paths */
	size_t path_pos_cap;
	uint32_t *inc_uf;        /* union-find over links (each its own root between passes) */
	uint8_t *inc_hot;        /* a root whose component a change reaches (0 between passes) */
	/* Bookkeeping: lk's nactive and load follow every flow start and end (keep),
	 * or, while every recomputation is a full one anyway, only the full passes
	 * (lazy; see keep_or_lazy() in flowcore.c). */
	bool keep;
	bool need_counts;      /* always keep: adaptive routing reads nactive */
	uint32_t phase_run;    /* recomputations in a row that had to be full */
	uint32_t lazy_run;     /* full recomputations since the bookkeeping went lazy */
	uint64_t phase_churn;  /* flows started and ended during that run */
	uint64_t phase_filled; /* flows its full recomputations filled */
	uint32_t lazy_after;   /* phase_run that makes it lazy (FS_LAZY_AFTER) */
	uint32_t lazy_retry;   /* lazy_run after which it keeps again (FS_LAZY_RETRY) */
	uint32_t esc_run;      /* grow mode: checked selections in a row that ended full */
	uint32_t esc_skips;    /* recomputations since then that went full unchecked */
	uint64_t nmode_switches;
	uint64_t nrecompute_full;
	uint64_t nrefilled; /* flows given a rate, summed over the recomputations */
	uint64_t ngrow;     /* grow mode: selections grown after a failed check */
	uint64_t nwiden;    /* grow mode: flows grow_widen() (flowgrow.c) added to them */
	uint64_t nesc_skipped; /* grow mode: recomputations full without a grown selection */
	uint64_t npath_walks;  /* flow paths walked to lay out, freeze and check rates */
	uint64_t nsel_reads;   /* grow mode: link -> flows entries the first guesses read */
	uint64_t ncap_lists;   /* fillings that listed their capped flows (wf_collect_capped()) */
	uint64_t ncap_reads;   /* selected flows those lists read */
	uint64_t ncap_late;    /* of those lists, built after the filling froze a flow */
	/* statistics */
	uint64_t nrecompute;
	uint64_t nevents;
	double bytes_submitted;
	double bytes_delivered;
};

/* Set up @s for @nlinks links (capacities and latencies filled by the caller). */
int ft__fs_init(struct fs_sim *s, uint32_t nlinks) FT_MUST_CHECK;
/* Copy the links' bytes and flow counts into link_bytes and link_maxflows
 * (allocated on the first call). */
int ft__fs_link_export(struct fs_sim *s) FT_MUST_CHECK;
void ft__fs_release(struct fs_sim *s);
/* Add a task; returns its id (>= 0) or FT_ENOMEM. @path may be NULL (routed at start). */
int64_t ft__fs_add_flow(struct fs_sim *s, double bytes, uint32_t src, uint32_t dst, uint32_t qp,
                        const uint32_t *path, uint32_t npath, uint32_t tag);
int64_t ft__fs_add_barrier(struct fs_sim *s, double delay_s, double lat_mult, uint32_t tag);
/*
 * Barrier @id waits, on top of its delay and lat_mult x its predecessors' longest path
 * latency p, @n x ft__sim_net_floor_s(@floor_s, p): @n steps that each last
 * max(@floor_s, p), the path inside that (a far step at NCCL's hwLat[NET], engine_flow.c).
 * FT_EINVAL for a negative or not finite figure.
 */
int ft__fs_barrier_floor(struct fs_sim *s, uint32_t id, double floor_s, double n) FT_MUST_CHECK;
/*
 * Flow @id never sends faster than @cap_Bps (> 0; INFINITY: no cap), whatever its
 * links leave it: what one NCCL channel can carry. In the water filling a cap is a
 * link of the flow's own. FT_EINVAL for a bad cap, FT_ERANGE past FS_MAX_CAPS
 * distinct caps, FT_ENOMEM.
 */
#define FS_MAX_CAPS 255 /* distinct rate caps in one run */
int ft__fs_set_cap(struct fs_sim *s, uint32_t id, double cap_Bps) FT_MUST_CHECK;
/* Flow @t, done, moved all its bytes at its own cap (the cap, not a link, held it). */
bool ft__fs_flow_capped(const struct fs_sim *s, const struct fs_task *t);
/* Flow @t's rate, its bytes over its time less its path latency (0: none), and whether a
 * rate reaches @cap_Bps to within the tolerance ft__fs_flow_capped() keeps. */
double ft__fs_flow_rate(const struct fs_task *t);
bool ft__fs_rate_at(double rate_Bps, double cap_Bps);
/* A barrier (no delay) that calls s->spawn when it starts, with @arg in its qp field. */
int64_t ft__fs_add_spawner(struct fs_sim *s, uint32_t arg, uint32_t tag);
/*
 * During the run, from the spawn callback: add a flow (routed when it starts) that, when
 * done, releases @next (FS_NONE: nothing; naming a task as next makes it wait for this
 * flow). With @start it starts now; without, it waits for the spawned flows that name it
 * as their next (flowlets: add the last one first). Returns its id or a negative FT_E*.
 */
int64_t ft__fs_spawn_flow(struct fs_sim *s, double bytes, uint32_t src, uint32_t dst, uint32_t qp,
                          bool start, uint32_t next, uint32_t tag);
/*
 * Room for the @n links of spawned flow @id's path, written by the caller at once (from the
 * spawn callback: the flow is then not routed when it starts). NULL when out of memory.
 */
uint32_t *ft__fs_path_room(struct fs_sim *s, uint32_t id, uint32_t n);
/* @to starts only after @from is done. */
int ft__fs_add_dep(struct fs_sim *s, uint32_t from, uint32_t to) FT_MUST_CHECK;
static inline struct fs_task *
ft__fs_task(const struct fs_sim *s, uint32_t t)
{
	return &s->tasks[t];
}
static inline uint32_t
ft__fs_ntasks(const struct fs_sim *s)
{
	return s->ntasks;
}
static inline const uint32_t *
ft__fs_path(const struct fs_sim *s, const struct fs_task *t)
{
	return &FT_VEC_AT(&s->paths, uint32_t, t->path_first);
}
/* Build the dependency graph and queue the tasks that have no predecessor. */
int ft__fs_start(struct fs_sim *s, struct ft_error *err) FT_MUST_CHECK;
/*
 * Advance to the next instant where something happens and process all of it.
 * Returns 1 when something happened, 0 when the run is over, or FT_E*.
 */
int ft__fs_step(struct fs_sim *s, struct ft_error *err) FT_MUST_CHECK;
/* Run to the end (or past @until_s when it is > 0). */
int ft__fs_run(struct fs_sim *s, double until_s, struct ft_error *err) FT_MUST_CHECK;
/* Recompute max-min fair rates of all active flows now and mirror them into the tasks'
 * rate_Bps (the step does it when needed, without the mirror). */
int ft__fs_recompute(struct fs_sim *s) FT_MUST_CHECK;

/*
 * Ask for huge pages under the large array @p of @bytes (a hint: fewer page faults while
 * it fills, fewer TLB misses when it is read at random). Does nothing elsewhere than Linux.
 */
void ft__sim_advise_huge(void *p, size_t bytes);

/* ---- shared by the engines and the scenario runner ------------------------- */

#include <fabtune/sim.h>

#include "spec/scenario.h"

/* Route one flow under @cfg (chooser used for ADAPTIVE); errors name both endpoints. */
int ft__sim_route(const struct ft_topo *topo, const struct ft_sim_cfg *cfg, uint32_t src,
                  uint32_t dst, uint32_t qp, ft_route_choose_fn *choose, void *ud,
                  struct ft_path *path, struct ft_error *err) FT_MUST_CHECK;
/* The vertex standing for the in-network reduction engine seen from GPU @gpu_v. */
uint32_t ft__sim_innet_vertex(const struct ft_topo *topo, uint32_t gpu_v, enum ft_algo algo);
/* The vertices schedule flow @fl of @op runs between (GPUs, or the in-network engine). */
int ft__sim_flow_ends(const struct ft_topo *topo, const struct ft_schedule *sc,
                      const struct ft_sim_op *op, const struct ft_sched_flow *fl, uint32_t *a,
                      uint32_t *b, struct ft_error *err) FT_MUST_CHECK;
/*
 * The NIC vertex by which schedule flow @fl from GPU vertex @a to vertex @b leaves its node
 * where the flow names one (struct ft_sched_flow nic) and its ends talk over the network:
 * the flow's path is then @a's own path to that NIC and the NIC's route to @b (a ring's
 * sender that NCCL sends through its channel's NIC by PCIe or C2C, nccl.c
 * add_channel_flow()); UINT32_MAX otherwise. Where the flow names the NIC on the receiving
 * node too (FT_SCHED_NIC_IN), the vertex carries FT_SIM_NIC_IN, which ft__sim_nic_route()
 * reads; strip it (FT_SIM_NIC_VERTEX()) before any other use.
 */
#define FT_SIM_NIC_IN 0x80000000u
#define FT_SIM_NIC_VERTEX(v) ((v) == UINT32_MAX ? (v) : (v) & ~FT_SIM_NIC_IN)
uint32_t ft__sim_flow_nic(const struct ft_topo *topo, const struct ft_sched_flow *fl, uint32_t a,
                          uint32_t b);
/* 1 + the NIC flow @fl from @a to @b leaves by where ft__sim_flow_nic() gives one, else 0
 * (its GPU's own NIC): the packet engine's connection field. */
uint8_t ft__sim_flow_nic_id(const struct ft_topo *topo, const struct ft_sched_flow *fl, uint32_t a,
                            uint32_t b);
/*
 * Whether local GPU @gpu of a node of @n may leave by its NIC @nic over its own path, not
 * through another GPU: the NIC under the GPU's own PCIe switch, or any NIC of a node whose
 * GPUs reach the PCIe over C2C (its CPU's, or across the CPUs), on a node whose GPUs drive
 * one NIC each (nics.per_gpu). The channel maps name a NIC only where this holds (nccl.c
 * own_path(), add_channel_flow()) and the engines route a named NIC only where it holds
 * for the flow's own node (ft__sim_flow_nic()).
 */
bool ft__sim_nic_own_reach(const struct ft_node_spec *n, uint32_t gpu, uint32_t nic);
/* The largest start offset of @sc's flows, ns (0: every flow starts with its phase). */
uint32_t ft__sim_max_start_ns(const struct ft_schedule *sc);
/*
 * The wait of an op's start barrier after op @after (-1: none), whose flows start up to
 * @shift_s late about a nominal start that ops waiting for it count from: @op's delay less
 * that shift, plus its launch latency; an error when the delay is shorter than the shift.
 */
int ft__sim_start_wait(const struct ft_sim_op *op, double shift_s, double *wait_s,
                       struct ft_error *err) FT_MUST_CHECK;
/* Nearest-rank percentile @q in [0, 1] of sorted @v. */
double ft__sim_pct(const double *v, size_t n, double q);
/* Fill the fct / ideal / slowdown fields of @c from per-flow arrays. FT_ENOMEM. */
int ft__sim_fct_stats(const double *fct, const double *ideal, size_t n,
                      struct ft_sim_counters *c) FT_MUST_CHECK;

/*
 * Render the packet engine's port counters of @c as the real tools print them, appending
 * struct ft_sim_file to @files: `perfquery -x` for every InfiniBand host and switch port
 * that carried traffic, `ethtool -S` (mlx5 names) for every RoCE NIC. FT_ENOTSUP when @c
 * has no port counters (another engine).
 */
int ft__sim_render_counters(const struct ft_topo *topo, const struct ft_sim_counters *c,
                            struct ft_vec *files, struct ft_error *err) FT_MUST_CHECK;

/* The subnet manager's opensm.conf of an InfiniBand run with packet knobs @pc (its
 * congestion control on or off and, when on, its options), appended to @files. */
int ft__sim_render_opensm_conf(const struct ft_packet_cfg *pc, struct ft_vec *files,
                               struct ft_error *err) FT_MUST_CHECK;

/* The result rows of @run as nccl-tests tables, appended to @files (--counters); with
 * several rows, each with a comment line of its op's counters where @ops has them (one
 * per row, else empty). */
int ft__sim_render_nccl_tests(const struct ft_run *run, const struct ft_vec *ops,
                              struct ft_vec *files, struct ft_error *err) FT_MUST_CHECK;
/* The traced ports' series binned for charts (struct ft_sim_trace_series in @out), and
 * the traced QPs' (struct ft_sim_qp_series in @qps). */
int ft__sim_trace_series(const struct ft_topo *topo, const struct ft_sim_counters *c,
                         struct ft_vec *out, struct ft_vec *qps, struct ft_error *err) FT_MUST_CHECK;
/*
 * The traced ports of @c as one JSON document (`{"interval_us", "ports": [{"link", "name",
 * "samples": [[t_us, rate_GBps, queue_bytes], ...]}]}`), in *@out (ft_free) of *@len bytes.
 * FT_ENOTSUP when @c has no trace (another engine).
 */
int ft__sim_render_trace(const struct ft_topo *topo, const struct ft_sim_counters *c, char **out,
                         size_t *len, struct ft_error *err) FT_MUST_CHECK;

/* ---- sim/nccl.c: what NCCL does that the schedules leave out ---- */

/*
 * The model's links of @spec for @nranks ranks over @nnodes nodes, @gpn a node
 * (ft_model_links_get(): 0 for all of them), into @l, for the simulator's readings of the
 * model: 1 when had; 0 where the model places no such job (FT_EINVAL, FT_ERANGE: ranks
 * that fill no node, nodes that fill no NVLink domain), where each reading keeps the
 * default its comment gives; else the error, which is the run's (FT_ENOMEM: on node groups
 * the links take an allocation, model/links.c). Never a default in place of an error.
 */
int ft__sim_links(const struct ft_cluster_spec *spec, uint32_t nranks, uint32_t nnodes,
                  uint32_t gpn, struct ft_model_links *l) FT_MUST_CHECK;
/* The tuner's price of @q on @spec into @r, for the simulator's readings of it: 1 when
 * priced; 0 where it prices no such job (any error but out of memory), where each reading
 * keeps its default; FT_ENOMEM, which is the run's. */
int ft__sim_eval(const struct ft_cluster_spec *spec, const struct ft_model_query *q,
                 struct ft_model_result *r) FT_MUST_CHECK;
/* @args' algorithm and protocol: @o's, or NCCL's tuner's for those @o leaves to it (no
 * NVLS when @nvls_off); where the tuner prices none or coll/ builds not its pick, ring
 * (direct for an all-to-all) and Simple. FT_ENOMEM where memory ran out in the tuner or
 * the probe of its pick. */
int ft__sim_pick_algo(const struct ft_cluster_spec *spec, const struct sc_op *o, uint64_t bytes,
                      uint32_t nranks, uint32_t gpn, bool nvls_off, struct ft_model_cache *cache,
                      struct ft_coll_args *args) FT_MUST_CHECK;
/* ft__sim_pick_algo(), NVLS across nodes a candidate where @nvls_net, PAT none where a
 * node holds more than one rank though @gpn reads 1 (@one_a_node false: nccl.c). The
 * tuner's query reads @cache (the run's, model.h ft_model_cache; NULL: uncached, the
 * same pick). */
int ft__sim_pick_algo_net(const struct ft_cluster_spec *spec, const struct sc_op *o, uint64_t bytes,
                          uint32_t nranks, uint32_t gpn, bool nvls_off, bool nvls_net,
                          bool one_a_node, struct ft_model_cache *cache,
                          struct ft_coll_args *args) FT_MUST_CHECK;
/*
 * A node as the topology has it (node.c): its description, its GPUs and NICs counted
 * from the graph, and the NIC GPU vertex @gpu_v leaves its node through (its index in
 * the node, or its vertex; UINT32_MAX for none). Read nodes through these, never
 * through the spec's one node description, so that nodes may differ.
 */
const struct ft_node_spec *ft__sim_node(const struct ft_topo *t, uint32_t node);
uint32_t ft__sim_node_ngpus(const struct ft_topo *t, uint32_t node);
uint32_t ft__sim_node_nnics(const struct ft_topo *t, uint32_t node);
/* Whether the fabric (else the NICs' link) is RoCE: Ethernet counters, ECN and PFC. */
bool ft__sim_fabric_is_roce(const struct ft_cluster_spec *spec);
/* The fabric's (else the NICs' link's) enum ft_tech; -1 when neither names a preset. */
int ft__sim_fabric_tech(const struct ft_cluster_spec *spec);
uint32_t ft__sim_gpu_nic_index(const struct ft_topo *t, uint32_t gpu_v);
/*
 * NCCL's PXN for a point-to-point send from GPU vertex @a to GPU vertex @b over the network
 * (NVIDIA/nccl src/graph/search.cc ncclTopoGetNetDev() with NCCL_P2P_PXN_LEVEL 2, the
 * default, v2.27.7-1 to v2.30.7-1; kb ENV-PXN): the sender takes the NIC of its node's GPU
 * with the peer's index (ncclTopoDevToRank(), ncclTopoGetLocalNet()), and where that NIC's
 * own GPU (ncclTopoGetLocalGpu(): the first GPU of that rail, under the NIC's PCIe switch
 * where one is, as rail_gpu() in nccl.c) is another GPU reached over NVLink, that GPU
 * proxies the send: @a writes its chunks into the proxy's buffer over NVLink and the proxy's
 * NIC sends them; the receiver takes its own NIC. Returns the proxy's GPU vertex, or
 * UINT32_MAX where @a sends from its own NIC: the peer on @a's rail, no NVLink in @a's
 * node, nodes.nccl.pxn_disable set (NCCL_PXN_DISABLE=1), or no GPU of the peer's index in
 * @a's node (ncclTopoDevToRank() fails), or where NCCL does not admit that GPU as the proxy
 * (ft_model_pxn_relay() at the spec's nccl_version: NVLink, and the proxy under the NIC's
 * own PCIe switch; none on a node without PCIe switches unless over C2C, and over C2C
 * only from NCCL 2.28.3).
 * Among the GPUs of a communicator only: bit g of @comm set where GPU g of @a's node is
 * one of its ranks (ft__sim_comm_gpus(); FT__SIM_ALL_GPUS: every GPU of the node is a
 * rank). NCCL's topology holds the comm's GPUs alone, so the
 * peer's device index must be a rank of @a's node (else no PXN: @a's own NIC) and the
 * proxy is the first GPU of the comm on that index's NIC; a GPU that shares its NIC but
 * is not that NIC's first relays through the first even to the peer of its own rail.
 */
uint32_t ft__sim_pxn_proxy_in(const struct ft_topo *t, uint32_t a, uint32_t b, uint32_t comm);
#define FT__SIM_ALL_GPUS UINT32_MAX
/* The GPUs of @node among @nranks ranks placed on GPU vertices @rank_gpu: bit g for local
 * GPU g (ft__sim_pxn_proxy_in()'s @comm). */
uint32_t ft__sim_comm_gpus(const struct ft_topo *t, const uint32_t *rank_gpu, uint32_t nranks,
                           uint32_t node);
/*
 * ft__sim_comm_gpus() of every node at once, one pass over the ranks: an array, by node id,
 * of *@nnodes masks (1 + the highest node id of a rank), the caller's to free; NULL when out
 * of memory. The flow and packet engines look a send's proxy up in it.
 */
uint32_t *ft__sim_comm_gpus_by_node(const struct ft_topo *t, const uint32_t *rank_gpu,
                                    uint32_t nranks, uint32_t *nnodes);
uint32_t ft__sim_gpu_nic(const struct ft_topo *t, uint32_t gpu_v);
/*
 * The GPU vertex whose NIC @nic_v is, as NCCL's topology gives a NIC its local GPU
 * (ft_model_pxn_proxy() over the node's GPUs); UINT32_MAX when none. A flow that leaves by
 * another GPU's NIC (ft__sim_flow_nic()) takes that GPU's route from the NIC on, hashed as
 * that GPU's connection, as the PXN relay through it did: the fabric sees the same QP.
 */
uint32_t ft__sim_nic_gpu(const struct ft_topo *t, uint32_t nic_v);
/* Cut @from_gpu (a route from the NIC's GPU) to its part from NIC @nic_v on, its latency
 * with it; -1 (left whole) when it does not cross the NIC. */
int ft__sim_nic_leg(struct ft_path *from_gpu, uint32_t nic_v, const struct ft_topo *t);
/*
 * One leg of an engine's route from vertex @a to vertex @b on QP @qp into @path (its links
 * and latency): < 0 (FT_E*, @err set) where the engine has none; 0 with @err set where it
 * keeps a path over links down (the packet engine, which fails the QP at the dead link).
 */
typedef int ft__sim_leg_fn(void *ud, uint32_t a, uint32_t b, uint32_t qp, struct ft_path *path,
                           struct ft_error *err);
/*
 * The route of a flow from GPU vertex @src to @dst that leaves its node by NIC vertex @nic
 * (ft__sim_flow_nic()), the one rule of the three engines (flow nic_links(), packet
 * route_via(), ideal and analytic an_flow()), each leg routed by the engine's @leg_fn: @src's
 * own path to the NIC (its PCIe switch, or C2C and its CPU), then, on the same QP, the route
 * of the NIC's GPU (ft__sim_nic_gpu(): hashed as its connection, as the PXN relay through
 * that GPU was) from the NIC on; where that GPU has none through the NIC (its route into a
 * scratch error), the NIC's own route, whose error is the one reported. Where @nic carries
 * FT_SIM_NIC_IN (the flow names the NIC on the receiving node too) and @dst is a GPU of
 * another node under that node's NIC of the same index, not its own (node.c far_nic()): the
 * NIC's GPU's route up to that far NIC, then the far NIC's path to @dst; a link down kept on
 * the first of those counts (@err) only where it is among the links kept. Into @path;
 * FT_ERANGE past FT_PATH_MAX links.
 */
int ft__sim_nic_route(const struct ft_topo *t, uint32_t src, uint32_t nic, uint32_t dst,
                      uint32_t qp, ft__sim_leg_fn *leg_fn, void *ud, struct ft_path *path,
                      struct ft_error *err) FT_MUST_CHECK;
/* NICs GPU vertex @gpu_v drives (nics.per_gpu), 1 for other vertices. */
uint32_t ft__sim_gpu_lanes(const struct ft_topo *t, uint32_t gpu_v);
/* NICs a connection between two GPUs spreads its QPs over (node.c), for both engines. */
uint32_t ft__sim_conn_lanes(const struct ft_topo *t, uint32_t src, uint32_t dst);
struct ft_model_p2p_comm;
struct ft_model_p2p_chunking;
/* The p2p communicator of @nranks ranks on @t's cluster, on several nodes (@multi) or
 * one, whose GPUs reach the network at @nic_Bps: what ft_model_p2p_chunking_conn() takes,
 * with NCCL's doubled network chunk on ARM hosts with Blackwell GPUs (kb ENV-BUFFSIZE), at
 * the release the cluster's jobs run (spec nccl_version: its p2p channels, per-peer rule
 * with the GPU's NICs, ft_model_p2p_net_nics(), and p2p schedule). Its p2p_nchannels:
 * NCCL's p2p channels on the cluster (ft_model_p2p_nchannels_of(): 32 on an 18-NVLink
 * Hopper node, 16 on an A100, 2 on a PCIe node), what both engines post an all-to-all's
 * sends on (ft_model_p2p_chunking_on()); FT_MODEL_P2P_NCHANNELS where the model places no
 * such cluster. The links' error (out of memory on node groups) is returned (node.c). */
int ft__sim_p2p_comm(const struct ft_topo *t, uint32_t nranks, bool multi, double nic_Bps,
                     struct ft_model_p2p_comm *out) FT_MUST_CHECK;
/* Whether the @n GPU vertices of @gpu (spaced @stride) sit on more than one of NCCL's
 * nodes (a multi-node NVLink domain is one, MNNVL: ft__sim_over_network()): NCCL's
 * send/recv then cuts sends with its network chunk (ft_model_p2p_chunking_on()). */
bool ft__sim_spans_nodes(const struct ft_topo *t, const uint32_t *gpu, uint32_t n,
                         uint32_t stride);
/* Multi-node NVLink domains (GB200/GB300 NVL72, nodes.nvlink.domain_nodes): whether
 * @t has one over several nodes, whether two nodes share one, and the path between GPUs
 * of two nodes of one domain (1: not such GPUs; 0: @path set; FT_ENOENT). */
bool ft__sim_nvlink_domain_spans_nodes(const struct ft_topo *t);
/* "Leaves the node", one rule for both engines (NCCL's MNNVL, node.c): whether vertices
 * @a and @b are GPUs of two nodes of one NVLink domain (they talk over NVLink), whether
 * they talk over the network (two nodes, not such GPUs), and NCCL's node of vertex @v (a
 * GPU of a multi-node domain: the domain's first node; else its own node), which tells
 * apart the nodes of a set of GPUs, or of NICs (not of a set mixing them). */
bool ft__sim_nvlink_peers(const struct ft_topo *t, uint32_t a, uint32_t b);
bool ft__sim_over_network(const struct ft_topo *t, uint32_t a, uint32_t b);
uint32_t ft__sim_nccl_node(const struct ft_topo *t, uint32_t v);
bool ft__sim_same_nvlink_domain(const struct ft_topo *t, uint32_t node_a, uint32_t node_b);
int ft__sim_route_nvlink_domain(const struct ft_topo *t, uint32_t src, uint32_t dst,
                                struct ft_path *path);

/*
 * The share of its flows' path latency an implicit all-to-all round's end waits on top
 * of its per-message cost @cost_s (both engines' submit_a2a()). A priced cost (NCCL's
 * hardware latency of the link class, a schedule's step) already counts the completion
 * coming back to the sender. A round with none priced (a background's round between
 * NICs of one node: bare RDMA writes, no step latency) still ends, as its senders see
 * it, when the ACK of its last packet is back (a reliable-connected write completes at
 * the requester on the responder's ACK, kb ENV-IB_TIMEOUT): one path latency after the
 * receiver took it, a PCIe path's inside a node (0.15 us on a DGX H100), as an on/off
 * burst's end (struct ft_sim_op.end_acked).
 */
static inline double
ft__sim_a2a_round_ack(double cost_s)
{
	return cost_s > 0 ? 0 : 1;
}

/* Scale @t's links to the rates NCCL reaches (ft_model_link_efficiency). */
int ft__sim_nccl_rates(struct ft_topo *t, bool wire_headers);
/* NCCL's most NVLS heads (NCCL_MAX_NVLS_ARITY, src/include/device.h). */
#define FT__SIM_NVLS_MAX_HEADS 32u
/* An NVLS all-reduce inside one node or domain of more than 32 ranks: its first 32 ranks
 * head; the flows of the others carry S each way, a head's S + S / 32. */
int ft__sim_nvls_heads(struct ft_schedule *s);
/* NCCL's NVLS heads across nodes on one node (or NVLink domain) of kind @node, @ppn local
 * ranks in trays of @tray_gpus (0: one tray) on GPUs @gpus of their tray (NULL: in order):
 * the local rank that owns each NIC, NICs in the order of their first GPU, at most 32,
 * into @heads; their count. */
uint32_t ft__sim_nvls_node_heads(const struct ft_node_spec *node, uint32_t ppn, uint32_t tray_gpus,
                                 const uint32_t *gpus, uint32_t heads[FT__SIM_NVLS_MAX_HEADS]);
/* Flows to and from the NVSwitch of an NVLS schedule carry 1/eff wire bytes, a tree's
 * flows 1/NCCL's tree correction at its size (@tree_corr), CollNetDirect's and PAT's
 * 1/NCCL's share of their links, CollNetChain's the links' bound over its graph's speed
 * where the graph is the slower; the model's links of the job's @gpn GPUs per node (0:
 * every GPU of nodes of different GPU counts) for the tree and the chain. 0, or FT_ENOMEM
 * from reading the links. */
int ft__sim_nccl_efficiency(const struct ft_cluster_spec *spec, struct ft_schedule *s,
                            bool tree_corr, uint32_t gpn) FT_MUST_CHECK;
/* One node, no node structure, or all-to-all rounds: channels don't apply. */
bool ft__sim_sched_is_flat(const struct ft_schedule *s, uint32_t gpn);
/*
 * Where a tree all-reduce's channels are forced (NCCL_MIN/MAX_NCHANNELS, --channels), each
 * runs the one tree NCCL puts on it (ft__sim_forced_tree()): @graph, the search graph's
 * channels (comm->nChannels before ncclTopoPostset()); @run, the channels NCCL would run
 * (ft_model_run_nchannels(), 2 graph or more).
 */
struct ft__sim_forced_trees {
	uint32_t graph, run;
};
/* The tree (0 or 1 of NCCL's double binary tree) channel @c of @nch forced channels runs,
 * @graph and @run as above: tree 1 on c mod 2 graph >= graph of the first min(nch, run),
 * the channels past those copies of them; a channel c >= @nch (NCCL's NVLS copies) runs
 * channel c mod @nch's tree. */
uint32_t ft__sim_forced_tree(uint32_t c, uint32_t nch, uint32_t graph, uint32_t run);
/* The links of @spec's @nranks ranks, @gpn a node (0: packed over node groups), into @l,
 * and into @graph the channels of the ring and tree graph NCCL's search finds for them,
 * which forced channels copy (the links' graph_nchannels; 0 on one node or where the links
 * hold no search graph): the one place the engines' channel maps ask the model for it
 * (ft__sim_forced_trees_get(), ft__sim_uneven_graph(), run.c domain_nchannels()): 1. 0
 * (and @graph 0) for fewer than 2 ranks or where the model places no such job; the links'
 * error (ft__sim_links(): out of memory) is the caller's (nccl.c). */
int ft__sim_graph_links(const struct ft_cluster_spec *spec, uint32_t nranks, uint32_t gpn,
                        struct ft_model_links *l, uint32_t *graph) FT_MUST_CHECK;
/* @out for @s on @nch forced channels of @spec's @nranks ranks, @gpn a node (0: uneven):
 * 1; 0 (and @out zero) where @s is no tree all-reduce across ranks, @nch is 0 or the model
 * places no such job; the links' error (out of memory) is the caller's. */
int ft__sim_forced_trees_get(const struct ft_cluster_spec *spec, const struct ft_schedule *s,
                             uint32_t nranks, uint32_t gpn, uint32_t nch,
                             struct ft__sim_forced_trees *out) FT_MUST_CHECK;
/* The wire bytes of a tree all-reduce of @bytes: both trees' copies together (1/0.92). */
uint64_t ft__sim_tree_wire(uint64_t bytes);
/* The channels a plain tree's or chain's phase of @pipes copies (the largest pipe number)
 * runs on: copy p of a tree is tree (p - 1) mod 2 of channel (p - 1) / 2. */
uint32_t ft__sim_pipe_channels(const struct ft_schedule *sc, uint32_t pipes);
/* Whether the packet engine runs @sc's plain tree all-reduce in Simple as the model's
 * pipeline (pkt_tree.c nccl_fill()): on NCCL's own channels (@nchannels 0, not forced), the
 * tree correction on its wire bytes as the flow engine's (run.c tree_corr()). */
bool ft__sim_tree_fill_on(const struct ft_schedule *sc, uint32_t nchannels);
/* Whether @sc is a chain: a ring broadcast or reduce, which runs as the downward or upward
 * half of a tree from its root (coll/, the schedule's chain; pkt_tree.c). */
bool ft__sim_chain(const struct ft_schedule *sc);
/* @nch rail-aligned channel copies of @in into @out (PXN proxies; @keep_order: ranks stay);
 * channel c on the rails of channel c mod @graph (0: its own); @ppn ranks per NCCL node,
 * @tray_gpus per physical node (fewer in an NVLink domain), on GPUs @gpus[ppn] of their
 * tray, alike on every node (NULL: local rank g on GPU g mod tray); @one_kind: every node
 * of the job is of @node's kind, and a ring's sender then reaches its channel's NIC by
 * NCCL's paths (its own path, the rail's proxy, or a NIC it names: struct ft_sched_flow
 * nic), else by the relay rule of every release, naming none; @trees (NULL: every channel
 * both trees): one tree a channel, NCCL's. */
int ft__sim_channelize(const struct ft_schedule *in, uint32_t nch, uint32_t graph, uint32_t ppn,
                       uint32_t tray_gpus, const uint32_t *gpus, const struct ft_node_spec *node,
                       uint32_t nccl_version, bool keep_order, bool one_kind,
                       const struct ft__sim_forced_trees *trees, struct ft_schedule *out);
/* Whether @s is NVLS across nodes, NVLS with CollNet (ft__sim_nvls_collnet()): an NVLS
 * schedule with flows to the fabric's switches (marked net) beside the NVSwitch's. The
 * one test the engines and NCCL's costs share. */
bool ft__sim_nvls_across_nodes(const struct ft_schedule *s);
/* How many of a phase's @steps pay the longest path besides the step overhead (the
 * steps of a ring, tree or NVLS tree that cross nodes; none for a ring or tree inside
 * one node or NVLink domain; @steps - 1 elsewhere) and the fixed latency the phase adds
 * to @steps step overheads in @extra_s. In @net_steps (NULL: not wanted) how many steps
 * of those pay ft__sim_net_step_s() in that latency: the far steps of a ring, tree or
 * NVLS tree across nodes (up to @steps, every step that crosses: the steps the packets
 * walk), CollNet's one crossing, 0 elsewhere; @extra_s counts every network step NCCL
 * counts, more than @steps for a ring all-reduce with one GPU a node before 2.23. At the
 * jobs' release (spec nccl_version), with the net step and the ring's floor inside nodes
 * of @ll (ft__sim_link_lats()). */
struct ft__sim_link_lats {
	double net_step_s;         /* ft__sim_net_step_s() at the schedule's protocol */
	double ring_intra_floor_s; /* ft_model_ring_intra_floor_s(), the model's time */
};
uint32_t ft__sim_far_steps(const struct ft_topo *t, const struct ft_schedule *sc,
                           const struct ft__sim_link_lats *ll, const uint32_t *rank_gpu,
                           uint32_t steps, double *extra_s, uint32_t *net_steps);
/* What ft__sim_far_steps() reads of the model's links of @t's cluster for @sc, into @out:
 * the schedule's own where the runner set them at the jobs' release (release_set,
 * ft__sim_release_lats()); for a schedule handed to an engine as it is, the same reading
 * once an op (0 where the model places no such cluster). The links' error (out of memory
 * on node groups) is the caller's, which the engines return from their submit. */
int ft__sim_link_lats(const struct ft_topo *t, const struct ft_schedule *sc,
                      struct ft__sim_link_lats *out) FT_MUST_CHECK;
/* What a step between nodes pays on top of the path latency @path_s it walks so that it
 * lasts NCCL's per-hop network latency @hw_s (hwLat[NET], ft__sim_hw_net_s()) at least:
 * max(0, @hw_s - @path_s). The packet engine's floor on the steps its packets walk
 * (pkt_setup.c net_floor_s() for NVLS; a ring's or tree's, walk_back_s()) and the flow
 * engine's on its far steps' barrier (ft__fs_barrier_floor()): either step lasts
 * max(hwLat[NET], path). */
double ft__sim_net_floor_s(double hw_s, double path_s);
/* The hwLat[NET] the @net_steps far steps (ft__sim_far_steps()) of a phase of @sc floor
 * their path at in the flow and ideal engines, whose far steps pay their phase's longest
 * path on top of the hwLat[NET] in ft__sim_far_steps()'s extra: a ring's or tree's; 0
 * elsewhere (NVLS, an NVLS tree and CollNet keep hwLat[NET] + the path). */
double ft__sim_far_floor_hw_s(const struct ft_schedule *sc, uint32_t net_steps);
/* The ramp and the proxy floor NCCL's pipeline adds to @op where an engine runs its ring
 * or tree flows whole, the model's (ft_model_pipe_terms()), and its stages in @stages
 * (NULL: not wanted); 0 where the model prices none (nccl.c). Both return the error of the
 * model's links or pipeline (out of memory: ft__sim_links(), ft_model_pipe_terms()), the
 * terms then 0, and set @err to it ("sim: the model's links: ..." or "model: NCCL's
 * pipeline: ..."). */
int ft__sim_pipe_terms(const struct ft_topo *t, const struct ft_sim_op *op, double *ramp_s,
                       double *proxy_s, uint32_t *stages, struct ft_error *err) FT_MUST_CHECK;
/* Share @i of @n of @bytes, the remainder to the first ones: NCCL's ncclCollCbdPart()
 * (src/include/device.h) gives each channel its part so; both engines cut by it. */
static inline uint64_t
ft__sim_share(uint64_t bytes, uint64_t n, uint64_t i)
{
	return bytes / n + (i < bytes % n ? 1 : 0);
}
/* Whether phase @ph of @sc is a ring NCCL moves in its chunks, on its launched channels:
 * a ring all-reduce, all-gather or reduce-scatter of more than one step, or PAT (the
 * packet engine's ft__pk_is_chunked() with chunking on; nccl.c). */
bool ft__sim_ring_chunks(const struct ft_schedule *sc, const struct ft_sched_phase *ph);
/*
 * The launched channels of NCCL (@launched: the model's count, struct ft_model_pipeline
 * nchannels, 0 unknown) each ring of ring phase @ph of @op is copied over: launched /
 * copies, copies being the phase's rings (its flows over the ranks); 1 where NCCL launches
 * no more channels than that, or the op's channels are forced (NCCL's own count then). A
 * connection's copy r carries share r of its bytes as NCCL's ncclCollCbdPart() cuts a
 * channel's part (pkt_nccl.c ring_reps(), engine_flow.c chan_parts()).
 */
uint32_t ft__sim_ring_reps(const struct ft_sim_op *op, const struct ft_sched_phase *ph,
                           uint32_t launched);
/* The tree copies of phase @ph of @sc: its flows' largest pipe label (a tree's or chain's
 * copies are pipes 1 ... n; nccl.c). */
uint32_t ft__sim_phase_pipes(const struct ft_schedule *sc, const struct ft_sched_phase *ph);
/*
 * Whether the routing hashes each QP to its own path: ECMP over RoCE (kb ROCE-WIRE: a QP's
 * UDP source port is its flow's entropy, ft_route_flow_hash()) or a fabric of no known
 * technology. InfiniBand's ECMP is not: a switch forwards by destination LID alone, every
 * QP to a port on one path (ft__route_by_dlid(), kb IB-SM). EFA's SRD sprays each packet
 * over the equal-cost set (pkt_setup.c e->spray) and GPUDirect-TCPX/O's sockets hash their
 * own tuple (pkt_tcp.c): neither is such a routing. D-mod-K and adaptive routing are not
 * either.
 */
bool ft__sim_qp_hashed(const struct ft_topo *t, const struct ft_sim_cfg *cfg);
/*
 * The first QP of NCCL channel @chan's connection from vertex @a to @b, of @nq QPs: chan x nq
 * where the routing hashes per QP (ft__sim_qp_hashed()) and the connection goes over the
 * network, else 0. NCCL connects every channel's peers with QPs of their own (NVIDIA/nccl
 * v2.27.7-1 src/transport/net_ib.cc ncclIbConnect(): NCCL_IB_QPS_PER_CONNECTION QPs a
 * connection, nccl-env ENV-IB_QPS), whose UDP source ports differ on RoCE (kb ROCE-WIRE),
 * so a tree's copies, a chain's launched channels and an NVLS tree's trees between nodes
 * each hash on their own. Both engines number them so: the same QPs, the same
 * ft_route_flow_hash(), the same paths (pkt_tree.c tree_conns(), pkt_setup.c
 * whole_conns(), engine_flow.c add_timed_conn() and submit_chunked()).
 */
uint32_t ft__sim_chan_qp0(const struct ft_topo *t, const struct ft_sim_cfg *cfg, uint32_t a,
                          uint32_t b, uint32_t chan, uint32_t nq);
/*
 * The launched channels each copy of chain broadcast or reduce @op's phase (of @pipes
 * copies, one a channel of the schedule) runs as, NCCL's model count in @pl
 * (ft__sim_pipe_model()): launched / pipes where NCCL launches more, else 1; 1 on forced
 * channels, for a Simple chain paced at the model's fill (pkt_tree.c nccl_fill()) and for
 * an LL chain on fewer launched channels than copies (pkt_tree.c chain_channels(): it keeps
 * the first ones). Copy p's rep r is channel (p - 1) x reps + r, its bytes
 * ft__sim_chain_part() of the copy's.
 */
struct ft_model_pipeline;
uint32_t ft__sim_chain_reps(const struct ft_sim_op *op, uint32_t pipes,
                            const struct ft_model_pipeline *pl);
/* A connection's launched channels: @reps copies from channel @chan0, a chain's bytes cut
 * by ft__sim_chain_part() (@chain), a ring's by ft__sim_share(). */
struct ft__sim_chans {
	uint32_t reps, chan0;
	bool chain;
};
/*
 * The launched channels flow @fl of phase @ph of @op runs on, the same in both engines: a
 * ring's copies (ft__sim_ring_reps() of @launched, from channel 0: pkt_nccl.c ring_conns());
 * a tree's, chain's or NVLS tree's copy p (its pipe label) is NCCL's channel p - 1, a
 * chain's cut into @chain_reps (ft__sim_chain_reps()) from channel (p - 1) x reps
 * (pkt_tree.c tree_conns()); a CollNet's and NVLS across nodes' flows to the fabric's
 * switches (SHARP's connections) one, channel 0.
 */
struct ft__sim_chans ft__sim_flow_chans(const struct ft_sim_op *op, const struct ft_sched_phase *ph,
                                        const struct ft_sched_flow *fl, uint32_t launched,
                                        uint32_t chain_reps);
/* Rep @r of @reps of a chain copy's @bytes (pkt_tree.c tree_conns()). */
static inline uint64_t
ft__sim_chain_part(uint64_t bytes, uint32_t reps, uint32_t r)
{
	return bytes * (r + 1) / reps - bytes * r / reps;
}
struct ft_model_pipeline;
int ft__sim_pipe_model(const struct ft_topo *t, const struct ft_sim_op *op,
                       struct ft_model_pipeline *out, struct ft_error *err) FT_MUST_CHECK;
/* Whether @op's stages are paced at its cap (ft__sim_cap_fill_s(), pkt_tree.c cap_pace()):
 * a plain tree all-reduce or a chain broadcast or reduce in Simple, on channels forced
 * on it, with a per-connection cap (run.c). */
bool ft__sim_cap_staged(const struct ft_sim_op *op);
/* The period of @msgs loops of phase @ph at @op's cap (its largest flow on the wire at @eff
 * over the cap, over the loops), s; 0 without a cap or loops (nccl.c). */
double ft__sim_cap_period_s(const struct ft_sim_op *op, const struct ft_sched_phase *ph,
                            double eff, uint64_t msgs);
/* The stage of every flow of a plain tree's or chain's phase @ph as its schedule is built,
 * into @depth [ph->nflows] (NULL: not wanted), and the stages, the deepest + 1, into
 * @stages (0: no edge); FT_ENOMEM (nccl.c). */
int ft__sim_tree_depths(const struct ft_schedule *sc, const struct ft_sched_phase *ph,
                        uint32_t *depth, uint32_t *stages);
/* The same of a schedule @sc on @nchannels forced channels (0: NCCL's own) under a
 * per-connection cap of @cap_Bps (0: none): the one predicate the runner's tree correction
 * (run.c tree_corr()) and both engines use. */
bool ft__sim_cap_staged_on(const struct ft_schedule *sc, uint32_t nchannels, double cap_Bps);
/* NCCL's pipeline fill at @op's per-connection cap where it runs as a plain tree
 * all-reduce or a chain broadcast or reduce of @stages stages: (stages - 1) periods of
 * its largest connection's chunk at the cap, seconds; 0: no cap, one stage or loop, or
 * another algorithm (run.c). */
double ft__sim_cap_fill_s(const struct ft_topo *t, const struct ft_sim_op *op, uint32_t stages);
/* What a step between nodes pays with protocol @p on @t's cluster on top of NCCL's per-hop
 * network latency and the path the engine walks (the fabric's own latency): the model's
 * ft_model_net_step_s() less the fabric latency it holds, for the time (a flush only where
 * NCCL flushes), into @step_s. 0 on one node or where the model places no such cluster;
 * the links' error (out of memory on node groups) is returned, @step_s then 0. */
int ft__sim_net_step_s(const struct ft_topo *t, enum ft_proto p, double *step_s) FT_MUST_CHECK;

/* The link a step of @a inside @spec's nodes takes, into @link: FT_HW_PCI where the model
 * reads nodes without NVLink, else FT_HW_NVLINK (NVLS and its tree always; where the model
 * places no such cluster too), as ft__sim_release_lats() sets the schedule's intra (NCCL
 * src/graph/tuning.cc ncclTopoTuneModel(): hwLat by the graph's typeIntra). 0, or the
 * links' error (out of memory on node groups), @link then NVLink's. */
int ft__sim_intra_link(const struct ft_cluster_spec *spec, enum ft_algo a,
                       enum ft_hw_link *link) FT_MUST_CHECK;

/* NCCL's per-hop network latency (hwLat[NET]) a step between nodes of @sc pays: the one
 * ft__sim_release_lats() set on the schedule at the jobs' release (ft_model_net_hop_latency();
 * CollNet the kb's, which its step overheads hold). */
double ft__sim_hw_net_s(const struct ft_schedule *sc);

/* @sc's step overhead (NCCL's per-hop latency of the node's intra link, NVLink's or PCI's
 * as the model reads the node, step_lat_s), launch latency (baseLat,
 * base_lat_s), network per-hop latency (hwLat[NET], net_lat_s: Tree's row from 2.23 on where
 * each node holds one of the ranks, @one_rank_a_node) and the 2 x nNodes rule of a ring
 * all-reduce (ring_inter_2n) at @spec's release (nccl_version; 0: the newest, the kb's
 * ft_coll_schedule() sets), as the model's costs take them (ft_model_hw_latency(),
 * ft_model_base_latency(), ft_model_net_hop_latency(), ft_model_ring_inter_2n()); CollNet's
 * step overheads, which hold its network latency, as they are. The engines read the release
 * from the schedule alone. With them what a step between nodes pays on top of hwLat[NET]
 * and the path (net_step_s, ft_model_net_step_s() less the fabric latency; 0 on one node)
 * and the least a ring's step inside a node lasts when the ring crosses nodes
 * (ring_intra_floor_s, ft_model_ring_intra_floor_s(): NCCL's network post overhead, 1 us,
 * x3 for Simple; ft__sim_far_steps() prices a ring all-reduce's, all-gather's and
 * reduce-scatter's steps inside nodes at max(step overhead, it)), once a schedule from the
 * model's links of @spec (ft__sim_links(): both 0 where the model places no such
 * cluster, as ft__sim_link_lats()): their error (FT_ENOMEM), never a silent 0. */
int ft__sim_release_lats(const struct ft_cluster_spec *spec, struct ft_schedule *sc,
                         bool one_rank_a_node) FT_MUST_CHECK;
/* The same over @nnodes nodes of different sizes: node k holds ranks first[k] to
 * first[k + 1] - 1 ([nnodes + 1]) and is of kind @kind[k]; rank r is on GPU @gpus[r] of its
 * node (NULL: in order); channel c on the rails of graph channel c mod @graph (0: its own). */
int ft__sim_channelize_uneven(const struct ft_schedule *in, uint32_t nch, uint32_t graph,
                              uint32_t nnodes, const uint32_t *first,
                              const struct ft_node_spec *const *kind, uint32_t nccl_version,
                              const uint32_t *gpus, const struct ft__sim_forced_trees *trees,
                              struct ft_schedule *out);
/* The graph channels forced channels copy over the node groups of @spec (@nranks ranks)
 * into @graph: the fewest any group's search finds; 0: none (each channel on its own rail).
 * The links' error (out of memory) is the caller's. */
int ft__sim_uneven_graph(const struct ft_cluster_spec *spec, uint32_t nranks,
                         uint32_t *graph) FT_MUST_CHECK;
/* NCCL's tree all-reduce over @nnodes nodes of any sizes, one channel, node k holding
 * ranks first[k] to first[k + 1] - 1: @s (the flat tree's schedule) gets its flows. */
int ft__sim_tree_uneven(struct ft_schedule *s, uint32_t nnodes, const uint32_t *first);
/* NCCL's NVLS tree all-reduce there, @nheads heads per node: @s gets its metadata and flows. */
int ft__sim_nvls_tree_uneven(struct ft_schedule *s, uint32_t nnodes, const uint32_t *first,
                             uint32_t nheads);
/* NCCL's NVLS all-reduce across @nnodes nodes of @ppn ranks with CollNet: NVLS in each
 * node, the @nheads heads (local ranks @heads) through their NICs to the fabric's
 * in-network reduction (nccl.c). FT_EINVAL for a shape NCCL does not run it on. */
int ft__sim_nvls_collnet(struct ft_schedule *s, uint32_t nnodes, uint32_t ppn,
                         const uint32_t *heads, uint32_t nheads);
/* The six caps below: the cap into @cap, 0 or the error of the model's reading, the run's
 * (out of memory: ft__sim_links()); where the model places or prices no such job, no cap.
 *
 * NCCL's tuner price of NVLS across nodes as a cap per connection of @s (nccl.c), bytes/s,
 * and the link class it binds on into @what; 0: none. */
int ft__sim_nvls_net_cap(const struct ft_cluster_spec *spec, const struct ft_schedule *s,
                         uint32_t nranks, uint32_t gpn, char *what, size_t len,
                         double *cap) FT_MUST_CHECK;
/* NCCL's tuner price of a CollNet all-reduce @s (CollNetChain's graph speed,
 * CollNetDirect's x0.85) on @nch channels forced (0: NCCL's) as a cap per connection
 * (nccl.c), bytes/s, and the link class it binds on into @what; 0: none. */
int ft__sim_collnet_cap(const struct ft_cluster_spec *spec, const struct ft_schedule *s,
                        uint32_t nranks, uint32_t gpn, uint32_t nch, char *what, size_t len,
                        double *cap) FT_MUST_CHECK;
/* CollNetDirect's stages in periods of its price for @op (nccl.c): a loop's NVLink stage
 * alone in *@nv, its way through the network in *@net, on the model's links @l of the op's
 * ranks (nranks, nnodes, ppn set); both 0 for another schedule (CollNetChain, not an
 * all-reduce) or where the model has no stage rates. */
void ft__sim_collnet_stages(const struct ft_model_links *l, const struct ft_sim_op *op,
                            double *nv, double *net);
/* The model's time of a PAT all-gather or reduce-scatter @s over @nranks ranks, one a
 * node, on @nch channels forced (0: NCCL's): its kernel's bytes at NCCL's share of the
 * links, not the tuner's price of S, as a cap per connection (nccl.c), bytes/s, and the
 * link class it binds on into @what; 0: none. */
int ft__sim_pat_cap(const struct ft_cluster_spec *spec, const struct ft_schedule *s,
                    uint32_t nranks, uint32_t nch, char *what, size_t len,
                    double *cap) FT_MUST_CHECK;
/*
 * What one of @nch channels of a ring or tree (@algo) over @nranks ranks, @gpn per node
 * (0: every GPU of a cluster whose nodes differ in GPU count),
 * can carry, bytes/s: its share of the model's intra-node graph bandwidth when the
 * channel count was @given (one NCCL channel each). 0: no cap (the default channels,
 * which stand for the graph's; other algorithms; or the model does not apply).
 */
int ft__sim_channel_cap(const struct ft_cluster_spec *spec, enum ft_algo algo, uint32_t nranks,
                        uint32_t gpn, uint32_t nch, bool given, double *cap) FT_MUST_CHECK;
/* What one connection of NCCL's tree or NVLSTree all-reduce @s over @nranks ranks, @gpn
 * per node (0: nodes of different GPU counts), can carry under NCCL's per-channel tree
 * or NVLSTree cap, bytes/s; 0: no cap (another algorithm, one node, no NVLS). */
int ft__sim_tree_cap(const struct ft_cluster_spec *spec, const struct ft_schedule *s,
                     uint32_t nranks, uint32_t gpn, double *cap) FT_MUST_CHECK;
/* What one connection of ring or tree @s over @nranks ranks, @gpn per node (0: nodes of
 * different GPU counts), on @nch channels forced (0: NCCL's) can carry on the wire where
 * NCCL's protocol or the channels it launches at the op's size set the rate
 * (ft_model_kernel_algbw()), bytes/s; 0: no cap. */
int ft__sim_kernel_cap(const struct ft_cluster_spec *spec, const struct ft_schedule *s,
                       uint32_t nranks, uint32_t gpn, uint32_t nch, double *cap) FT_MUST_CHECK;

/* What each send of send/recv @s (rank r on GPU vertex @rank_gpu[r]) can carry on the wire
 * under NCCL's window (ft_model_p2p_window_Bps()), bytes/s, where that is below the send's
 * path, into @cap; 0: no cap. The p2p links' error (out of memory) is returned. */
int ft__sim_p2p_cap(const struct ft_topo *t, const struct ft_schedule *s, const uint32_t *rank_gpu,
                    double *cap) FT_MUST_CHECK;
/* NCCL's window on a send from GPU vertex @a to @b cut as @ch (ft_model_p2p_window_Bps()),
 * payload bytes/s, its round trip the minimal path there and back; 0 inside an NVLink
 * domain or without a path. The _via form goes through GPU vertex @via (UINT32_MAX: none),
 * a PXN proxy (ft__sim_pxn_proxy_in()): NVLink to it and its rail there, the rail back to
 * its NIC. @path_Bps (may be NULL): the send's path, its slowest link
 * times the NICs the GPU spreads a network send over. */
double ft__sim_p2p_send_window(const struct ft_topo *t, const struct ft_model_p2p_chunking *ch,
                               uint32_t a, uint32_t b, double *path_Bps);
double ft__sim_p2p_send_window_via(const struct ft_topo *t,
                                   const struct ft_model_p2p_chunking *ch, uint32_t a,
                                   uint32_t b, uint32_t via, double *path_Bps);
/* An all-to-all's slots by view (ft__sim_a2a_window() fills it, ft__sim_a2a_send_ch() reads
 * it): row v, entry d, the slots of view v's rank's send to the peer d ranks ahead (d / ppn
 * nodes, d % ppn local ranks); views 1 (rank 0's for every rank) or ppn (one a local rank,
 * ft_model_p2p_sched_views()), decided once for all the sends. */
struct ft__sim_a2a_slots {
	uint8_t *row;        /* views x m bytes, the caller's to ft_free(); NULL: none */
	uint32_t m;          /* the group's ranks */
	uint32_t ppn;        /* the group's ranks a node (the first rank's, node-major) */
	uint32_t views;
};
/* The sends over the network of an all-to-all of groups of @m ranks @stride apart (rank r
 * on GPU vertex @rank_gpu[r]), cut as @ch on @nch_all p2p channels: fills @s (may be NULL;
 * its prior contents are never read) with a new buffer of views x m bytes, which the caller
 * then owns and ft_free()s (NULL when m is 0), filled with the slots of each view's send to
 * the peer d ranks ahead (ft_model_p2p_share_slots_rank(): those of the proxy op NCCL puts
 * it in), and returns whether the window binds on any send of a view's rank (below its path
 * at the protocol's efficiency): 1 or 0; FT_ENOMEM where memory ran out (@s's buffer NULL).
 * @pxn: a send to a peer on another rail takes its PXN proxy's path
 * (ft__sim_pxn_proxy_in()), as the flow engine routes it; else its own NIC's. */
int ft__sim_a2a_window(const struct ft_topo *t, const uint32_t *rank_gpu, uint32_t m,
                       uint32_t stride, uint32_t nch_all, const struct ft_model_p2p_chunking *ch,
                       struct ft__sim_a2a_slots *s, bool pxn) FT_MUST_CHECK;
/* @ch with the slots of the send from the group's rank @i to its rank @j (@s as
 * ft__sim_a2a_window() filled it: the peer j's node and local rank ahead of i's, in the
 * view of i's local rank) into @out; @ch itself where @s or its buffer is NULL. */
void ft__sim_a2a_send_ch(const struct ft_model_p2p_chunking *ch, const struct ft__sim_a2a_slots *s,
                         uint32_t i, uint32_t j, struct ft_model_p2p_chunking *out);

/* Sort @n ids in increasing order (flowfill.c; both engines use it). */
void ft__fs_sort_u32(uint32_t *q, uint32_t n);

#endif

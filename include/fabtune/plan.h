/* SPDX-License-Identifier: MIT */
/*
 * fabtune/plan.h - the training planner: what a training job needs from the
 * network.
 *
 * A plan is a model (a transformer, dense or mixture-of-experts), a training
 * configuration (batch, precision, optimizer, ZeRO stage, recomputation and
 * the parallel degrees TP, CP, EP, PP, DP) and a cluster spec. From them the
 * planner derives the memory each GPU needs, item by item (kb TRAIN-MEM-*),
 * the FLOPs of one iteration (kb TRAIN-FLOPS), every communication of one
 * iteration per parallel group, placed on the cluster's ranks so that each
 * group crosses the links it really crosses (kb TRAIN-COMM), the pipeline
 * schedule and its bubble (kb TRAIN-PP), the overlap of each communication
 * with the compute it can hide behind, and from all of these the iteration
 * time, tokens/s, MFU and what the network costs in GPUs.
 *
 * Communication times come from the analytic model (fabtune/model.h), one
 * query per group and size, or from a simulation engine (fabtune/sim.h,
 * cfg.engine = "flow") that runs every instance of a group at once on the
 * cluster's topology. Deterministic and thread-safe. The analytic path
 * allocates, and frees before it returns: the copy of the spec a group's
 * NVLink domains are priced on (where the placement splits one), the MoE
 * routing's expert loads (plan/moe.c), and the model's own (a mixed-node
 * spec's link classes; the one-node topology an all-to-all's or a
 * send/recv's shared links are laid out on, model/share.c).
 * ft_plan_search() allocates besides its result array (the caller's), the
 * plan it fills for each configuration and the model's cache of those shared
 * links for the whole search (ft_model_cache_new(); without memory for it
 * the search runs uncached, to the same rows). An allocation failure is
 * FT_ENOMEM, never a figure without it.
 */
#ifndef FABTUNE_PLAN_H
#define FABTUNE_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fabtune/base.h>
#include <fabtune/error.h>
#include <fabtune/json.h>
#include <fabtune/model.h>
#include <fabtune/result.h>
#include <fabtune/spec.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the model ------------------------------------------------------------------------------ */

/*
 * A decoder-only transformer. Dense when experts == 0; else a mixture of
 * experts whose first dense_layers layers are dense (FFN size ffn) and the
 * others MoE (experts routed experts of size moe_ffn, top-k per token, plus
 * shared_experts always-active experts of size moe_ffn).
 */
struct ft_plan_model {
	char name[32];
	uint32_t layers;
	uint32_t hidden;   /* h */
	uint32_t heads;    /* a, attention heads */
	uint32_t kv_heads; /* KV heads (GQA); 0 = heads */
	uint32_t head_dim; /* 0 = hidden / heads */
	uint32_t ffn;      /* FFN inner size of dense layers */
	uint32_t vocab;    /* V */
	uint32_t seq;      /* training sequence length s */
	bool gated;        /* SwiGLU-style FFN: three matrices instead of two */
	bool tied;         /* input embedding shared with the output layer */
	bool dropout;      /* trained with dropout: its masks are kept (KORTHIKANTI22 counts them) */
	/* MoE */
	uint32_t experts;        /* routed experts per MoE layer, 0 = dense model */
	uint32_t topk;           /* routed experts per token */
	uint32_t shared_experts; /* always-active experts per MoE layer */
	uint32_t moe_ffn;        /* FFN inner size of one expert (0 = ffn) */
	uint32_t dense_layers;   /* leading dense layers of an MoE model */
	double capacity;         /* expert capacity factor, 0 = no token dropping */
	/* Attention weights per layer when they do not follow from heads (latent attention
	 * such as DeepSeek's MLA); 0 = derived from heads, kv_heads and head_dim. */
	uint64_t attn_params;
};

/* Parameter counts of a model (exact, from the fields). */
struct ft_plan_params {
	uint64_t total;       /* every parameter (embeddings, layers, norms excluded) */
	uint64_t active;      /* parameters a token goes through (MoE: top-k + shared experts) */
	uint64_t embedding;   /* V·h, once (tied) or twice (untied: input + output) */
	uint64_t attn_layer;  /* attention weights of one layer */
	uint64_t dense_mlp;   /* FFN weights of one dense layer */
	uint64_t expert;      /* weights of one expert */
	uint64_t router;      /* router weights of one MoE layer (experts·h) */
	uint64_t matmul_active; /* active parameters that are matrix products per token
				   (embedding lookup excluded, output layer included) */
};

FT_API size_t ft_plan_model_preset_count(void);
FT_API const struct ft_plan_model *ft_plan_model_preset_at(size_t i);
/* One line about preset @i: its size and source. */
FT_API const char *ft_plan_model_preset_summary(size_t i);
/* Copy preset @name into @out; FT_ENOENT (listing the presets) when unknown. */
FT_API int ft_plan_model_preset(const char *name, struct ft_plan_model *out,
                                struct ft_error *err) FT_MUST_CHECK;

/*
 * Load a model from YAML: either "preset: NAME" with overrides, or every
 * field. Keys are the struct's field names. Errors name file:line:col and
 * the key (FT_EPARSE, FT_ERANGE); a missing file is FT_ENOENT.
 */
FT_API int ft_plan_model_load_file(const char *path, struct ft_plan_model *out,
                                   struct ft_error *err) FT_MUST_CHECK;
FT_API int ft_plan_model_load_buffer(const char *text, size_t len, const char *file,
                                     struct ft_plan_model *out, struct ft_error *err)
        FT_MUST_CHECK;
/* A preset name, or a YAML file. */
FT_API int ft_plan_model_resolve(const char *arg, struct ft_plan_model *out,
                                 struct ft_error *err) FT_MUST_CHECK;

/* Check the fields (divisibility, ranges), naming the bad one. */
FT_API int ft_plan_model_validate(const struct ft_plan_model *m, struct ft_error *err)
        FT_MUST_CHECK;
FT_API void ft_plan_model_params(const struct ft_plan_model *m, struct ft_plan_params *out);

/* ---- the training configuration ------------------------------------------------------------ */

enum ft_plan_recompute {
	FT_RECOMPUTE_NONE,
	FT_RECOMPUTE_SELECTIVE, /* attention core recomputed (KORTHIKANTI22) */
	FT_RECOMPUTE_FULL,      /* only each layer's input kept; one extra forward */
	FT_RECOMPUTE_COUNT
};

enum ft_plan_precision {
	FT_PRECISION_BF16,
	FT_PRECISION_FP8, /* FP8 GEMMs (peak = the GPU's FP8 figure), BF16 weights and states */
	FT_PRECISION_COUNT
};

enum ft_plan_optimizer {
	FT_OPTIMIZER_ADAM, /* fp32 master + momentum + variance: 12 B/param (TRAIN-MEM-STATES) */
	FT_OPTIMIZER_SGD,  /* fp32 master + momentum: 8 B/param */
	FT_OPTIMIZER_COUNT
};

/* Pipeline schedule. */
enum ft_plan_schedule {
	FT_SCHEDULE_1F1B,
	FT_SCHEDULE_INTERLEAVED, /* vpp virtual stages per GPU */
	FT_SCHEDULE_COUNT
};

FT_API const char *ft_plan_recompute_name(enum ft_plan_recompute r);
FT_API const char *ft_plan_precision_name(enum ft_plan_precision p);
FT_API const char *ft_plan_optimizer_name(enum ft_plan_optimizer o);
FT_API int ft_plan_recompute_from_name(const char *s, enum ft_plan_recompute *out);
FT_API int ft_plan_precision_from_name(const char *s, enum ft_plan_precision *out);
FT_API int ft_plan_optimizer_from_name(const char *s, enum ft_plan_optimizer *out);

struct ft_plan_config {
	uint64_t global_batch; /* sequences per iteration */
	uint32_t micro_batch;  /* sequences per micro-batch */
	enum ft_plan_precision precision;
	enum ft_plan_optimizer optimizer;
	uint32_t zero; /* ZeRO stage 0..3 (3 = FSDP full shard) over the data-parallel group */
	enum ft_plan_recompute recompute;
	uint32_t tp, cp, ep, pp, dp; /* dp 0 = the GPUs left: ngpus / (tp·cp·pp) */
	uint32_t vpp;                /* virtual stages per GPU; > 1 = interleaved 1F1B */
	bool sp;                     /* sequence parallelism with TP */
	bool flash_attn;             /* no stored attention matrix (drops 5as/h) */
	bool tp_overlap;             /* TP collectives overlapped with the GEMMs they feed */
	bool dp_overlap;             /* DP buckets overlapped with the backward pass */
	bool pp_balance;             /* the first and last stages hold one transformer layer
					fewer: the embedding and the output layer take their
					places (the Llama 3 report's schedule) */
	double ep_overlap;           /* share of the EP all-to-all hidden behind compute, 0..1 */
	uint64_t bucket_bytes;       /* DP gradient bucket (0 = 25 MB, PyTorch DDP's default) */
	double gemm_eff;             /* 0 = the GPU preset's figure (TRAIN-GPU) */
	double peak_tflops;          /* 0 = the spec's GPU figure for the precision */
	double hbm_Bps;              /* 0 = the spec's; else a fallback of 2 TB/s */
	/* FP8 (precision fp8): the transformer layers' linear GEMMs run in FP8; the attention
	 * core runs in BF16 unless fp8_attention, the output layer always (Transformer
	 * Engine's FP8 covers its Linear modules; FP8 attention is opt-in). Each FP8 GEMM's
	 * activation input is cast through HBM: fp8_cast_bytes per element (0 = 4: read the
	 * BF16 tensor, write its FP8 copy and the transposed FP8 copy the backward uses;
	 * the amax of delayed scaling is taken in the same pass). */
	bool fp8_attention;
	double fp8_cast_bytes;
	uint64_t reserve_bytes;      /* runtime reserve per GPU (0 = 3 GiB): CUDA context,
					library workspaces, allocator fragmentation */
	uint32_t ngpus;              /* 0 = every GPU of the spec */
	double zipf;                 /* MoE routing skew: 0 = uniform, else Zipf exponent */
	const double *expert_load;   /* measured tokens per expert (borrowed; NULL = zipf), one
					per routed expert, in any unit */
	uint32_t nexpert_load;       /* entries of expert_load (must be the experts) */
	bool place_by_heat;          /* place experts by heat (greedy) instead of in order */
	uint32_t replicas;           /* with place_by_heat: the hottest experts that get a second
					copy, each copy taking half its tokens (at most ep) */
	char order[24];              /* rank layout, fastest-varying first: "" = "tp-cp-pp-dp";
					any order of the four with TP inside a node */
	char engine[16];             /* "" or "analytic": the analytic model; else a simulation
					engine ("flow" or "packet") where every group instance runs at once */
};

/* A Megatron-style default: bf16, Adam, ZeRO-1, no recompute, flash attention, overlap on. */
FT_API void ft_plan_config_init(struct ft_plan_config *c);

/* ---- the plan ------------------------------------------------------------------------------ */

enum ft_plan_group {
	FT_GROUP_TP,
	FT_GROUP_CP,
	FT_GROUP_EP,
	FT_GROUP_PP,
	FT_GROUP_DP,  /* data-parallel group of the dense parameters (dp·cp ranks) */
	FT_GROUP_EDP, /* data-parallel group of the expert parameters (dp·cp/ep ranks) */
	FT_GROUP_COUNT
};
FT_API const char *ft_plan_group_name(enum ft_plan_group g);

/* Where a group's ranks lie: n ranks, ppn per node over nnodes nodes, and the rank stride. */
struct ft_plan_place {
	uint32_t n, nnodes, ppn, stride;
	char crosses[16]; /* "nvlink", "pcie" or the fabric ("nic", "tier1", ...) */
};

#define FT_PLAN_MAX_COMMS 16

/* One kind of communication of one iteration, as one GPU sees it. */
struct ft_plan_comm {
	enum ft_plan_group group;
	enum ft_op op;
	char what[40];     /* "attention+mlp fwd/bwd", "gradient buckets", ... */
	uint64_t bytes;    /* one operation's size as nccl-tests defines it */
	uint64_t count;    /* operations per iteration per GPU */
	uint64_t wire_bytes; /* bytes one GPU sends for one operation (ring closed forms) */
	double op_s;       /* one operation, from the analytic model */
	double total_s;    /* count × op_s */
	double exposed_s;  /* what the iteration waits for */
	char algo[24], bottleneck[16];
};

/* Memory per GPU (the most loaded pipeline stage), bytes. */
struct ft_plan_memory {
	uint64_t weights, grads, optimizer, activations, comm_buffers, reserve;
	uint64_t total, capacity;
	bool fits;
	uint32_t stage;          /* the stage these figures are for */
	double act_per_layer;    /* bytes of one layer and one micro-batch (TRAIN-MEM-ACT) */
	double inflight;         /* micro-batches whose activations the stage holds */
	uint64_t params_local;   /* parameters this GPU holds before ZeRO sharding */
};

struct ft_plan_moe {
	double max_load;       /* the most loaded EP rank's tokens / the mean (1 = uniform) */
	double dropped;        /* share of routed tokens beyond capacity */
	double a2a_uniform_s;  /* one dispatch all-to-all with uniform routing */
	double a2a_s;          /* the same with this routing and placement (slowest rank) */
	double hottest_expert; /* share of routed tokens of the hottest expert */
	uint32_t replicas;     /* hot experts with a second copy */
};

struct ft_plan {
	struct ft_plan_model model;
	struct ft_plan_config cfg; /* with dp, vpp and defaults filled in */
	struct ft_plan_params params;
	uint32_t ngpus, m;         /* m = micro-batches per pipeline per iteration */
	double peak_Fps;           /* FLOP/s per GPU at the precision */
	double achieved_Fps;       /* peak × gemm_eff */
	struct ft_plan_memory mem;
	/* FLOPs per iteration, all GPUs */
	double model_flops, hw_flops, flops_per_token;
	/* per micro-batch and stage (the slowest stage), seconds */
	double fwd_s, bwd_s, recompute_s;
	double elem_s;         /* of fwd_s: memory-bound kernels (2 HBM passes over the kept
				  activations, and FP8 casts); the backward pass has twice as much */
	double fp8_cast_s;     /* of elem_s: the FP8 casts of the layers' GEMM inputs */
	double tp_exposed_s, cp_exposed_s, ep_exposed_s, p2p_s; /* per micro-batch */
	/* the iteration */
	double pipeline_s;     /* schedule time: (m + (p-1)/v) × per-micro-batch time */
	double bubble_s;       /* (p-1)/v × per-micro-batch time */
	double bubble_share;   /* bubble_s / pipeline_s */
	double dp_exposed_s, optimizer_s;
	double iter_s, iter_nocomm_s; /* and with every communication free */
	double comm_total_s, comm_exposed_s, overlap; /* overlap = 1 - exposed / total */
	double tokens_per_s, mfu, hfu, tflops_per_gpu;
	double comm_share;     /* 1 - iter_nocomm / iter */
	double gpus_worth, servers_worth;
	struct ft_plan_place place[FT_GROUP_COUNT];
	struct ft_plan_comm comms[FT_PLAN_MAX_COMMS];
	size_t ncomms;
	struct ft_plan_moe moe;
	char bottleneck[24];   /* the largest loss: "bubble", "tp", "dp", "ep", "cp", "pp", "compute" */
};

/*
 * Plan @model with @cfg on @spec. FT_EINVAL naming the field when the degrees
 * do not divide the GPUs, layers, heads or batch; errors from the analytic
 * model pass through. A plan that does not fit in memory is a plan (mem.fits
 * is false), not an error.
 */
FT_API int ft_plan_compute(const struct ft_cluster_spec *spec, const struct ft_plan_model *model,
                           const struct ft_plan_config *cfg, struct ft_plan *out,
                           struct ft_error *err) FT_MUST_CHECK;

/* ---- the timeline of one iteration -------------------------------------------------------- */

enum ft_plan_event_kind {
	FT_EVENT_FWD, /* a micro-batch's forward pass on a stage */
	FT_EVENT_BWD, /* its backward pass (with recomputation) */
	FT_EVENT_DP,  /* the data-parallel reductions left exposed after the last backward */
	FT_EVENT_KIND_COUNT
};

struct ft_plan_event {
	enum ft_plan_event_kind kind;
	uint32_t stage, mb;
	double t0_s, t1_s; /* from the iteration's start */
	double comm_s;     /* exposed communication inside [t0_s, t1_s] (at its end) */
};

/*
 * The 1F1B schedule of @p's iteration, stage by stage: each stage runs
 * its warm-up forwards (p - s - 1 of them; more with v virtual stages, as
 * Megatron's interleaved order), then one forward and one backward in turn,
 * then the remaining backwards; a forward waits for the previous stage's, a
 * backward for the next stage's. With v > 1 an event is one model chunk
 * (mb is its micro-batch). Events are in the order they were scheduled;
 * *@events is freed with ft_free(). With identical stages the last event
 * ends at (m + (p - 1)/v) micro-batch times (kb TRAIN-PP).
 */
FT_API int ft_plan_timeline(const struct ft_plan *p, struct ft_plan_event **events, size_t *n,
                            struct ft_error *err) FT_MUST_CHECK;

/* ---- pieces with closed forms (the formulas of the kb entries named) ------------------------ */

/* Model states per GPU, bytes, for @params parameters held before sharding (TRAIN-MEM-STATES). */
FT_API void ft_plan_states_bytes(uint64_t params, uint32_t zero, uint32_t ndp,
                                 enum ft_plan_optimizer opt, uint64_t *weights, uint64_t *grads,
                                 uint64_t *optimizer);
/* Activation bytes of one layer for one micro-batch (TRAIN-MEM-ACT, KORTHIKANTI22). */
/* Micro-batches whose activations pipeline rank @r of @pp holds at its peak, with @vpp
 * virtual stages per rank and @m micro-batches (TRAIN-PP; Megatron's schedules). */
FT_API double ft_plan_inflight(uint32_t pp, uint32_t vpp, uint32_t m, uint32_t r);
FT_API double ft_plan_act_layer_bytes(const struct ft_plan_model *m, const struct ft_plan_config *c,
                                      bool moe_layer);
/* Model FLOPs of one token, forward + backward (TRAIN-FLOPS). */
FT_API double ft_plan_flops_per_token(const struct ft_plan_model *m);
/* Bytes one rank sends for one @op of @bytes on @n ranks (ring and direct closed forms). */
FT_API uint64_t ft_plan_wire_bytes(enum ft_op op, uint64_t bytes, uint32_t n);

/* ---- search -------------------------------------------------------------------------------- */

struct ft_plan_search_opts {
	uint32_t top;      /* rows kept (0 = 10) */
	bool fixed_zero, fixed_recompute, fixed_mb; /* keep the base config's value */
	bool fixed_order; /* keep the base config's rank order (else try PP and DP both ways) */
};

struct ft_plan_search_row {
	struct ft_plan_config cfg;
	double tokens_per_s, mfu, iter_s;
	uint64_t mem_bytes;
	char bottleneck[24];
};

/*
 * The configurations a search could not plan: the model or the placement
 * refused them (an order that puts a TP group across nodes, a precision the
 * GPUs lack, an expert placement the EP degree cannot hold). Not among the
 * evaluated ones.
 */
struct ft_plan_search_failures {
	size_t n;
	struct ft_plan_config first; /* the first of them, in the search's order (n > 0) */
	struct ft_error first_err;   /* and why */
};

/*
 * Enumerate the parallel configurations of @base's model on the spec's GPUs
 * (tp up to the GPUs of a node, pp up to the layers, cp, ep dividing the
 * experts, micro-batch, ZeRO stage, recomputation, interleaving, PP before
 * or after DP in the rank order), keep those
 * that fit, and return the best @opts->top by tokens/s in *@rows (ft_free()),
 * *@nevaluated the configurations planned, *@nfit those of them that fit,
 * and in @failed (NULL: not told) those the planner refused and the first's
 * error. Out of memory anywhere is FT_ENOMEM, no rows: never a search of
 * fewer configurations.
 */
FT_API int ft_plan_search(const struct ft_cluster_spec *spec, const struct ft_plan_model *model,
                          const struct ft_plan_config *base, const struct ft_plan_search_opts *o,
                          struct ft_plan_search_row **rows, size_t *nrows, size_t *nevaluated,
                          size_t *nfit, struct ft_plan_search_failures *failed,
                          struct ft_error *err) FT_MUST_CHECK;

/* ---- MoE routing skew ---------------------------------------------------------------------- */

/*
 * Load per EP rank with @nexperts experts whose routing shares are @share
 * (sum 1) on @ep ranks: in order (expert e on rank e / (E/ep)) or by heat
 * (greedy: hottest first onto the least loaded rank with a free slot). With
 * @replicas > 0 (by heat only), the @replicas hottest experts get a second
 * copy on another rank and each copy takes half the expert's tokens; a rank
 * then has E/ep + ceil(replicas/ep) slots. Returns the most loaded rank's
 * share × ep (1 = balanced), or -1 when out of memory.
 */
FT_API double ft_plan_expert_max_load(const double *share, uint32_t nexperts, uint32_t ep,
                                      bool by_heat, uint32_t replicas);
/* Zipf shares of @n experts with exponent @s (s = 0: uniform). */
FT_API void ft_plan_zipf(double *share, uint32_t n, double s);

/* ---- failures and goodput ------------------------------------------------------------------ */

struct ft_plan_failure_rates {
	double gpu_per_day;    /* interruptions per GPU per day */
	double nic_per_day;    /* per NIC */
	double link_per_day;   /* per switch or cable, counted per GPU (one fabric port each) */
	double host_per_day;   /* per node: the rest (host, software, maintenance) */
};

/* Defaults derived from the Llama 3 report's interruption table (see plan/goodput.c and docs/cmd/plan.md). */
FT_API void ft_plan_failure_rates_default(struct ft_plan_failure_rates *r);

struct ft_plan_goodput {
	double interruptions_per_day;
	double mtbf_s;        /* of the job */
	double ckpt_interval_s; /* Daly's optimum (Young's first-order form when ckpt << MTBF) */
	double goodput;       /* useful share of wall time */
	double lost_gpu_hours_per_day;
};

/*
 * Goodput of a job of @ngpus GPUs on nodes of @gpn GPUs with @ckpt_s to write
 * a checkpoint and @recover_s to restart after an interruption. FT_EINVAL for
 * non-positive inputs.
 */
FT_API int ft_plan_goodput(const struct ft_plan_failure_rates *r, uint32_t ngpus, uint32_t gpn,
                           double ckpt_s, double recover_s, struct ft_plan_goodput *out,
                           struct ft_error *err) FT_MUST_CHECK;

/* ---- a plan in words ------------------------------------------------------ */

/* The terminal report of @p, planned on @spec (named @spec_label), appended to @sb. */
FT_API void ft_plan_write_text(const char *spec_label, const struct ft_cluster_spec *spec,
                               const struct ft_plan *p, struct ft_strbuf *sb);
/* @p's members (model, config, memory, groups, comms, times, MoE) into an open JSON object. */
FT_API void ft_plan_write_json(struct ft_json *j, const struct ft_plan *p);
/*
 * A search's best @n of @rows (@tried configurations evaluated, @fit of them
 * fitting in memory, @failed those it could not plan, NULL: none; @sp: sequence
 * parallelism with TP, false where --no-sp turned it off, the header's "sp on|off"
 * and the JSON's "sp"): as a JSON
 * object followed by a newline into @j's buffer @sb when @j is not NULL, else
 * as the terminal table.
 */
FT_API void ft_plan_search_write(const char *model, const char *spec_label, uint64_t batch,
                                 bool sp, const struct ft_plan_search_row *rows, size_t n,
                                 size_t tried, size_t fit,
                                 const struct ft_plan_search_failures *failed, struct ft_json *j,
                                 struct ft_strbuf *sb);
/*
 * Interruptions and goodput for a job of @ngpus GPUs (@gpn per node) writing
 * a checkpoint in @ckpt_s, at the recovery @recover_s and at 5 and 30
 * minutes: JSON members (failure_rates_per_day, goodput) into @j's open
 * object, or lines into @sb when @j is NULL. @rates_default says that @r are
 * the defaults (the text names their source).
 */
FT_API void ft_plan_goodput_write(const struct ft_plan_failure_rates *r, bool rates_default,
                                  uint32_t ngpus, uint32_t gpn, double ckpt_s, double recover_s,
                                  struct ft_json *j, struct ft_strbuf *sb);
/*
 * @p as a run to save (initialised here; the caller releases it even on
 * error): one row per communication and a "plan_iteration" row. FT_ENOMEM.
 */
FT_API int ft_plan_to_run(const struct ft_plan *p, const char *spec_label,
                          struct ft_run *run) FT_MUST_CHECK;
/*
 * Measured tokens per routed expert, from @arg: the file it names when there
 * is one, else the text itself; numbers separated by commas, spaces or
 * newlines, '#' starts a comment, into *@load (NULL on entry; ft_free) and *@nload (0).
 * FT_EINVAL naming the file and line, or "--expert-load".
 */
FT_API int ft_plan_expert_load_parse(const char *arg, double **load, uint32_t *nload,
                                     struct ft_error *err) FT_MUST_CHECK;
/*
 * A self-contained HTML page (no script, no external resource) of @p: its
 * figures, the timeline @ev, the memory per GPU, the communications and the
 * search's frontier (@rows, best first, of @tried evaluated) with the
 * configurations it could not plan (@failed: their count, the first one's
 * layout and error; NULL: none) into @sb.
 */
FT_API int ft_plan_html(const char *spec_label, const struct ft_plan *p,
                        const struct ft_plan_event *ev, size_t nev,
                        const struct ft_plan_search_row *rows, size_t nrows, size_t tried,
                        const struct ft_plan_search_failures *failed, struct ft_strbuf *sb);


/* ---- a job as asked on the command line ---------------------------------------------------- */

/*
 * What a user asks the planner, as given (`fabtune plan`'s options): names
 * and numbers still to check, and the configuration's fields that need no
 * conversion (overlaps, efficiencies, sizes, MoE placement) set in @cfg
 * directly. ft_plan_args_init() sets the defaults; 0 or NULL leaves a field
 * to the planner. Failure rates below 0 are the defaults.
 */
struct ft_plan_args {
	const char *model;      /* a model preset or a YAML file */
	const char *recompute, *precision, *optimizer, *engine, *order;
	const char *expert_load; /* n1,n2,... or a file of them; NULL: none */
	uint64_t gpus, batch, mb, tp, cp, ep, pp, dp, vpp, zero, replicas; /* to uint32_t */
	uint64_t top, scale_from;
	bool no_sp, no_flash, no_dp_overlap;
	struct ft_plan_config cfg; /* ft_plan_config_init()'s, with the options set here */
	double ckpt_s, recover_s; /* ckpt_s > 0: failures and goodput too */
	double fail_gpu, fail_nic, fail_link, fail_node; /* per component per day */
};

FT_API void ft_plan_args_init(struct ft_plan_args *a);

/* A job resolved from its arguments: the cluster, the model and the configuration. */
struct ft_plan_job {
	const char *spec_label;
	struct ft_cluster_spec spec;
	struct ft_plan_model model;
	struct ft_plan_config cfg; /* cfg.expert_load points into @load */
	double *load;
	uint32_t nload;
};

/*
 * Check @a (ranges, names), resolve @spec_arg and a->model, read the expert
 * load and build job->cfg. FT_EINVAL naming the option ("--zipf (0 to 10):
 * value out of range"), or the resolver's error naming the file. @job is
 * initialised in every case; release it with ft_plan_job_release().
 */
FT_API int ft_plan_job_prepare(const struct ft_plan_args *a, const char *spec_arg,
                               struct ft_plan_job *job, struct ft_error *err) FT_MUST_CHECK;
FT_API void ft_plan_job_release(struct ft_plan_job *job);

/*
 * Plan @job into @p[0]; with a->scale_from also the same job on that many
 * GPUs (same batch per replica) into @p[1], for the scale-out efficiency.
 * FT_EINVAL for a --scale-from that is not a multiple of tp*cp*pp up to the GPUs.
 */
FT_API int ft_plan_job_compute(const struct ft_plan_job *job, const struct ft_plan_args *a,
                               struct ft_plan p[2], struct ft_error *err) FT_MUST_CHECK;
/*
 * The report of @p (from ft_plan_job_compute()): the plan, the scale-out
 * efficiency and the goodput that @a asks for, as one JSON object and a
 * newline when @json, else as the terminal report.
 */
FT_API void ft_plan_job_write(const struct ft_plan_job *job, const struct ft_plan_args *a,
                              const struct ft_plan p[2], bool json, struct ft_strbuf *sb);
/*
 * --search: the best a->top (default 10, at most 1000) configurations of
 * @job with the options given kept fixed, written as ft_plan_search_write()
 * does. *@n gets the number shown. FT_EINVAL for an engine other than the
 * analytic one.
 */
FT_API int ft_plan_job_search(const struct ft_plan_job *job, const struct ft_plan_args *a,
                              bool json, struct ft_strbuf *sb, size_t *n,
                              struct ft_error *err) FT_MUST_CHECK;
/* --html: the page of @p (ft_plan_html()) with its timeline and a top-40 search frontier,
 * with the configurations that search could not plan. */
FT_API int ft_plan_job_html(const struct ft_plan_job *job, const struct ft_plan *p,
                            struct ft_strbuf *sb, struct ft_error *err) FT_MUST_CHECK;
/* The model presets: name, size and summary per line, or {"models": [...]} and a newline. */
FT_API void ft_plan_model_presets_write(bool json, struct ft_strbuf *sb);

#ifdef __cplusplus
}
#endif
#endif

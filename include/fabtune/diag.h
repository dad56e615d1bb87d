/* SPDX-License-Identifier: MIT */
/*
 * fabtune/diag.h - the layered diagnosis engine and the advisor.
 *
 * The diagnosis reads observations (keys in docs/internals/observations.md)
 * and optional expectations (what the model predicts for a benchmark), runs
 * every rule of a static const table, and returns findings ranked by
 * severity and then by layer (application first, fabric last). Each finding
 * carries the observations behind it, with their file:line.
 *
 * The advisor turns observations and findings into concrete changes (NCCL
 * environment variables, MTU, PFC/ECN/DCQCN, routing, placement), each with
 * the finding ids and observations that motivate it and, where it can be
 * computed from knowledge-base facts, the predicted gain.
 *
 * Ownership: inputs are borrowed for the duration of a call; findings and
 * advice sets own their elements (plain data, copied) and are freed with
 * their _release() function. Nothing here prints.
 */
#ifndef FABTUNE_DIAG_H
#define FABTUNE_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fabtune/base.h>
#include <fabtune/error.h>
#include <fabtune/json.h>
#include <fabtune/obs.h>
#include <fabtune/result.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What the model expects for one benchmark point: nccl-tests @test
 * ("all_reduce_perf" or "all_reduce"), message size @bytes (0 = any size,
 * compare the plateau), bus bandwidth in GB/s (10^9 bytes/s; 0 = none) and
 * latency in microseconds (0 = none).
 */
struct ft_expectation {
	char test[32];
	uint64_t bytes;
	double busbw_GBps;
	double lat_us;
};

/*
 * Read expectations from a YAML/JSON file: a list of {test, bytes, busbw_GBps,
 * lat_us} (or that list under an "expectations" key), appended to @out, a
 * vector of struct ft_expectation. FT_EPARSE naming file:line:column and the
 * field; FT_ENOENT/FT_EIO naming the file.
 */
FT_API int ft_diag_expectations_read(const char *path, struct ft_vec *out,
				     struct ft_error *err) FT_MUST_CHECK;

/*
 * Append the result rows of @run (parsed from @file) as observations the
 * rules read: bench.test, bench.busbw and bench.time_us (each unless @out
 * already holds that key from @file), bench.wrong, bench.lat_p50/p99 and bench.pair_bw
 * (device "src->dst"). Only rows of the pairs pattern become per-pair
 * bandwidths: a point-to-point row names its two ranks but is one
 * measurement, not a matrix. Message sizes go in the text. 0 or FT_ENOMEM.
 */
FT_API int ft_diag_obs_from_run(const struct ft_run *run, const char *file,
				struct ft_obs_set *out) FT_MUST_CHECK;

/*
 * The figures users hold a fabric to, read by every rule with a threshold.
 * Defaults (ft_diag_thresholds_init): utilisation >= 85% of the port rate,
 * pause-frame and ECN/CNP rates -> 0 in steady state, communication/compute
 * overlap >= 90%, recovery from a failure <= 5 min.
 */
struct ft_diag_thresholds {
	double utilisation_min; /* measured bandwidth / port rate, 0..1 */
	double pfc_rate_max;	/* pause frames per second (probe with an interval) */
	double ecn_rate_max;	/* ECN-marked packets or CNPs per second */
	double overlap_min;	/* share of communication hidden behind compute, 0..1 */
	double recovery_max_s;	/* seconds from a failure to training again */
	/* Counter heuristics of the older rules (defaults: their former constants). */
	double pause_frames_max;    /* pause frames since the last clear, NIC or switch port */
	double paused_fraction_max; /* share of a probe interval a port spent paused, 0..1 */
	double ecn_mark_share_max;  /* ECN-marked share of received packets, 0..1 */
	double switch_drops_max;    /* packets a switch port or queue dropped since the last clear */
	/* NIC receive drops (eth-rx-discards, eth-rx-out-of-buffer): counts and rates per second. */
	double rx_discards_max;
	double rx_discards_rate_max;
	double rx_out_of_buffer_max;
	double rx_out_of_buffer_rate_max;
	/* Ratios of measured to expected figures, and of one measurement to its peers. */
	double busbw_model_min;	     /* busbw / the model's expectation: below warns, 0..1 */
	double busbw_model_error;    /* ... below is an error; also utilisation's error, 0..1 */
	double latency_model_max;    /* latency / the model's: above warns (>= 1) */
	double latency_model_error;  /* ... above is an error */
	double jitter_max;	     /* latency p99 / p50: above warns */
	double jitter_error;	     /* ... above is an error */
	double jitter_min_us;	     /* ... and only when p99 - p50 is at least this, us */
	double jitter_foreign_cpu_max; /* ... and is only info when other processes used
	                                  this share of the host's CPU time (host.cpu_foreign) */
	double pair_outlier_min;     /* a pair's bandwidth / the median pair's, 0..1 */
	double scale_drop_min;	     /* plateau busbw at the largest scale / the smallest's, 0..1 */
	double paused_fraction_error; /* share of an interval paused that is an error, 0..1 */
	double copy_bw_min;	     /* a GPU copy's bandwidth / the best of its matrix, 0..1 */
	double lane_error_share_min; /* one lane's share of a link's raw errors that names it, 0..1 */
	/* Links (mlxlink, switch ports): bit error rates after and before FEC, optics temperature. */
	double effective_ber_max; /* post-FEC BER above which errors reach traffic */
	double raw_ber_max;	  /* pre-FEC BER from which the FEC margin is thin */
	double module_temp_max;	  /* C, for modules that report no alarm range of their own */
	/* DCQCN over-reaction (roce-dcqcn-overreaction, kb CC-DCQCN). */
	double dcqcn_cnp_rate_min;	  /* CNPs a sender handles per second: 1/rpg_time_reset */
	double dcqcn_tx_share_max;	  /* a sender's transmit rate / its link rate, 0..1 */
	double dcqcn_rx_utilisation_max; /* the marking receiver's receive rate / link rate, 0..1 */
	double dcqcn_mark_share_min;	  /* ECN-marked share of the receiver's packets, 0..1 */
};

FT_API void ft_diag_thresholds_init(struct ft_diag_thresholds *t);

/*
 * Read a thresholds file (YAML or JSON mapping; every key optional, the
 * others keep their value in @t): utilisation_min (a fraction or "85%"),
 * pfc_rate_max, ecn_rate_max (per second), overlap_min, recovery_max
 * (seconds or a duration like "5min"), pause_frames_max, switch_drops_max
 * (counts), paused_fraction_max, ecn_mark_share_max (fractions), and the
 * keys of the fields below them (docs/cmd/diagnose.md). Unknown keys and bad values fail with
 * FT_EPARSE naming file:line:column and the key.
 */
FT_API int ft_diag_thresholds_read(const char *path, struct ft_diag_thresholds *t,
				   struct ft_error *err) FT_MUST_CHECK;

struct ft_cluster_spec;

/*
 * Append what the rules read of cluster @spec as observations from @file (the
 * spec's name): spec.fabric.kind ("fat_tree", "torus", ...),
 * spec.fabric.routing, spec.fabric.link ("infiniband" / "roce"),
 * spec.nodes, spec.nic.rate (the NICs' data rate, Gb/s; str: their link
 * preset), spec.node.nics and spec.node.gpus. Nothing for a single node. 0, FT_EINVAL or FT_ENOMEM.
 */
FT_API int ft_diag_obs_from_spec(const struct ft_cluster_spec *spec, const char *file,
				 struct ft_obs_set *out) FT_MUST_CHECK;

/*
 * The input of a diagnosis. @expect may be NULL when @nexpect is 0;
 * @thresholds NULL means the defaults.
 */
struct ft_diag_input {
	const struct ft_obs_set *obs;
	const struct ft_expectation *expect;
	size_t nexpect;
	const struct ft_diag_thresholds *thresholds;
};

/*
 * A growing set of findings (struct ft_finding, from obs.h). ft_findings_add()
 * interns the files of the evidence in @files: findings outlive the
 * observation set they were drawn from.
 */
struct ft_findings {
	struct ft_vec v;
	struct ft_strpool files; /* the source files of the evidence */
};

FT_API void ft_findings_init(struct ft_findings *f);
FT_API void ft_findings_release(struct ft_findings *f);
FT_API int ft_findings_add(struct ft_findings *f, const struct ft_finding *x) FT_MUST_CHECK;
static inline size_t
ft_findings_len(const struct ft_findings *f)
{
	return f->v.len;
}
static inline struct ft_finding *
ft_findings_at(const struct ft_findings *f, size_t i)
{
	return (struct ft_finding *)ft_vec_at(&f->v, i);
}
/* Rank: severity (critical first), then layer (application first), then rule id, entity. */
FT_API void ft_findings_sort(struct ft_findings *f);
/* True when a finding of severity >= @sev exists. */
FT_API bool ft_findings_any(const struct ft_findings *f, enum ft_severity sev);
/* Number of findings of rule @rule_id. */
FT_API size_t ft_findings_count_rule(const struct ft_findings *f, const char *rule_id);

/* ---- rules --------------------------------------------------------------- */

/* What a rule's check sees. */
struct ft_diag_ctx {
	const struct ft_obs_set *obs;
	const struct ft_expectation *expect;
	size_t nexpect;
	const struct ft_rule *rule; /* the rule being evaluated */
	const struct ft_diag_thresholds *thresholds; /* never NULL during a run */
	/* Observation indices sorted by key, then by position: lookups by key take
	   O(log n + matches). Built by ft_diag_run(); NULL means scan everything. */
	const size_t *by_key;
};

/*
 * One diagnosis rule. @needs lists the observation keys the check reads
 * (a trailing '*' is a prefix). @eval appends zero or more findings and
 * returns 0 or a negative FT_E* (only FT_ENOMEM in practice). @data holds
 * parameters for checks shared by several rules (counter thresholds).
 */
struct ft_rule {
	const char *id;
	enum ft_layer layer;
	enum ft_severity severity; /* default severity of its findings */
	const char *summary;
	const char *needs;
	int (*eval)(const struct ft_diag_ctx *ctx, struct ft_findings *out);
	const char *fix;
	const char *kb; /* knowledge-base ids, space separated */
	const void *data;
	const char *source; /* a public source the knowledge base has no entry for, by
	                       name and address; NULL when the kb ids say it all */
};

FT_API size_t ft_rule_count(void);
FT_API const struct ft_rule *ft_rule_at(size_t i);
FT_API const struct ft_rule *ft_rule_find(const char *id); /* NULL if none */

/*
 * Run every rule over @in and append the ranked findings to @out.
 * FT_EINVAL when @in has no observation set; FT_ENOMEM.
 */
FT_API int ft_diag_run(const struct ft_diag_input *in, struct ft_findings *out,
		       struct ft_error *err) FT_MUST_CHECK;

/*
 * Findings as JSON: {"observations": N, "findings": [{"rule", "layer",
 * "severity", "entity", "message", "fix", "kb", "evidence": [{"file",
 * "line", "entity", "key", "value", "unit"}]}], "summary": {...}}.
 */
FT_API void ft_diag_json(struct ft_json *j, const struct ft_findings *f, size_t nobs);
/* The members of ft_diag_json()'s object, for a caller that adds its own to it. */
FT_API void ft_diag_json_members(struct ft_json *j, const struct ft_findings *f, size_t nobs);

/* "value" of an observation as text: the number (%g) and/or the string. */
FT_API void ft_obs_value_text(const struct ft_obs *o, char *buf, size_t len);

/* ---- advice -------------------------------------------------------------- */

#define FT_ADVICE_MAX_EVIDENCE 4

/* One concrete change. */
struct ft_advice {
	char id[40];	      /* "nccl-ib-hca", "roce-mtu", ... */
	char category[24];    /* "nccl-env", "mtu", "qos", "dcqcn", "routing", "qps",
				"channels", "placement", "host", "hardware" */
	char setting[64];     /* "NCCL_IB_HCA", "netdev mtu", "PFC priorities" */
	char value[160];      /* the value to set ("" with @unset) */
	bool is_env;	      /* an environment variable of the job */
	bool unset;	      /* remove the variable instead of setting it */
	char action[256];     /* how to apply a system setting (a command), "" for env */
	char reason[384];     /* why, with figures */
	char findings[128];   /* rule ids that motivate it, space separated */
	double gain_pct;      /* predicted gain in percent; NAN when it cannot be computed */
	char gain_basis[320]; /* how the gain was computed, or why it is not */
	char gain_engine[24]; /* what computed gain_pct ("flow", "analytic model",
				 "header formula", ...); "" when it is NAN */
	char kb[64];
	size_t nevidence;
	struct ft_obs evidence[FT_ADVICE_MAX_EVIDENCE];
};

struct ft_advice_set {
	struct ft_vec v;	  /* struct ft_advice */
	struct ft_strpool files; /* the source files of the evidence */
};

FT_API void ft_advice_set_init(struct ft_advice_set *s);
FT_API void ft_advice_set_release(struct ft_advice_set *s);
static inline size_t
ft_advice_set_len(const struct ft_advice_set *s)
{
	return s->v.len;
}
static inline struct ft_advice *
ft_advice_set_at(const struct ft_advice_set *s, size_t i)
{
	return (struct ft_advice *)ft_vec_at(&s->v, i);
}
/* The advice of id @id, or NULL. */
FT_API const struct ft_advice *ft_advice_find(const struct ft_advice_set *s, const char *id);

/*
 * Advise from @in and the findings of a diagnosis of @in (@findings may be
 * NULL: the diagnosis is then run here). At most one advice per id, in a
 * fixed order. FT_EINVAL, FT_ENOMEM.
 */
FT_API int ft_advise(const struct ft_diag_input *in, const struct ft_findings *findings,
		     struct ft_advice_set *out, struct ft_error *err) FT_MUST_CHECK;

/*
 * What-if: for each advice whose gain the twin can compute (adaptive routing,
 * QPs per connection, channels), run the twin on cluster @spec (a spec file
 * or a preset shorthand such as dgx-h100:16) with and without the change, on
 * the collective the inputs measured (else the one the change matters for),
 * and set gain_pct and a gain_basis that names the engine and both times.
 * With @spec NULL, such advice without a gain says the spec is the missing
 * input. Errors of the twin (a bad spec) fail with its message.
 */
FT_API int ft_advise_whatif(const struct ft_diag_input *in, const char *spec,
			    struct ft_advice_set *s, struct ft_error *err) FT_MUST_CHECK;

/* The cluster of the what-ifs: given, derived from the probe, calibrated from measurements. */
struct ft_whatif_opts {
	const char *spec;	       /* spec file or preset; NULL: derive one from the probe */
	const struct ft_run *measured; /* the inputs' result rows (nccl-tests), or NULL */
	/* Filled by ft_advise_whatif_ex(): */
	char spec_used[96]; /* the spec the twin ran, "" when there was none */
	char label[256];    /* how the gains name it: "dgx-h100:2 calibrated from a.txt" */
	char note[256];	    /* why it is not calibrated, or which input is missing; "" */
	bool calibrated;
	bool derived;	    /* spec_used was derived from the probe's GPUs */
};

/*
 * ft_advise_whatif() on the cluster of @o: @o->spec, or when it is NULL the
 * node preset of the GPUs the probe observed (gpu.model, gpu.count, hosts:
 * "dgx-h100:2" for 16 H100 on 2 hosts). When @o->measured holds collective
 * runs (nccl-tests rows) of 4 sizes or more, the spec is first calibrated on
 * them (ft_model_calibrate(), one entry per op and rank count) so that the
 * what-if's baseline is what was measured: the analytic model applies the
 * calibration; flow-engine times t become fixed + bw_scale x t (at 256 MiB
 * the latency term is negligible), on the measured rank count. The output
 * fields of @o say what was run and, when it was not calibrated, why.
 */
FT_API int ft_advise_whatif_ex(const struct ft_diag_input *in, struct ft_whatif_opts *o,
			       struct ft_advice_set *s, struct ft_error *err) FT_MUST_CHECK;

/* Advice as JSON: {"advice": [{"id", "category", "setting", "value", ...}]}. */
FT_API void ft_advice_json(struct ft_json *j, const struct ft_advice_set *s);
/*
 * The same with the what-if cluster @w (NULL: none) after the advice:
 * "whatif": {"spec" (null when none), "derived", "calibrated", "label", "note"}.
 */
FT_API void ft_advice_json_ex(struct ft_json *j, const struct ft_advice_set *s,
			      const struct ft_whatif_opts *w);

/*
 * Payload efficiency of one packet carrying @mtu bytes with @overhead bytes of
 * headers, trailers and wire framing: mtu / (mtu + overhead). Used for the
 * predicted gain of an MTU change (IB-MTU, ROCE-WIRE).
 */
FT_API double ft_diag_payload_efficiency(double mtu, double overhead);

#ifdef __cplusplus
}
#endif
#endif

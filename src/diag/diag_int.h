/* SPDX-License-Identifier: MIT */
/*
 * diag/diag_int.h - what the rule files of the diagnosis share: lookups over
 * the observation set, text helpers, the finding builder, and the checks of the
 * rule catalogue (rules_table.c).
 */
#ifndef FT_DIAG_INT_H
#define FT_DIAG_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <fabtune/diag.h>
#include <fabtune/obs.h>

/* The rule catalogue (rules_table.c), in registry order. */
extern const struct ft_rule ft__diag_rules[];
extern const size_t ft__diag_nrules;

/* A rule's check: its findings on the observations of @c appended to @out. */
typedef int ft__diag_eval_fn(const struct ft_diag_ctx *c, struct ft_findings *out);

/* The checks of the catalogue, one declaration per family file. */
/* rules_job.c */
ft__diag_eval_fn ft__diag_eval_dcgm_diag, ft__diag_eval_ecc, ft__diag_eval_nvlink_down, ft__diag_eval_recovery,
	ft__diag_eval_remap, ft__diag_eval_torch_nccl_error, ft__diag_eval_watchdog, ft__diag_eval_xid;
/* rules_nicdrv.c */
ft__diag_eval_fn ft__diag_eval_nic_driver;
/* rules_overlap.c */
ft__diag_eval_fn ft__diag_eval_overlap_low;
/* rules_nccl.c */
ft__diag_eval_fn ft__diag_eval_bond_single_qp, ft__diag_eval_completion, ft__diag_eval_create_qp,
	ft__diag_eval_cuda_failure, ft__diag_eval_env_leftover, ft__diag_eval_env_link_layer,
	ft__diag_eval_gdr_disabled, ft__diag_eval_hca_prefix, ft__diag_eval_hca_selects_ethernet,
	ft__diag_eval_ibverbs_missing, ft__diag_eval_incompatible, ft__diag_eval_link_event,
	ft__diag_eval_mixed_link_layers, ft__diag_eval_modify_qp, ft__diag_eval_nvls_fail,
	ft__diag_eval_p2p_channels, ft__diag_eval_retry_cnt, ft__diag_eval_socket,
	ft__diag_eval_socket_ifname, ft__diag_eval_topo_mismatch, ft__diag_eval_unreachable,
	ft__diag_eval_version_mismatch;
/* rules_host.c */
ft__diag_eval_fn ft__diag_eval_acs, ft__diag_eval_copy_bw, ft__diag_eval_gpu_nic_far,
	ft__diag_eval_iommu, ft__diag_eval_memlock, ft__diag_eval_numa, ft__diag_eval_pcie,
	ft__diag_eval_tool_error;
/* rules_ib.c */
ft__diag_eval_fn ft__diag_eval_below_capability, ft__diag_eval_ib_cc_off, ft__diag_eval_ibdiagnet,
	ft__diag_eval_mtu_low, ft__diag_eval_mtu_mismatch, ft__diag_eval_port_down,
	ft__diag_eval_port_no_sm, ft__diag_eval_rate_below_peers;
/* rules_pkey.c: ib-pkey-membership, ib-sl-vl-unserved */
ft__diag_eval_fn ft__diag_eval_pkey, ft__diag_eval_sl2vl;
/* rules_link.c */
ft__diag_eval_fn ft__diag_eval_effective_ber, ft__diag_eval_link_errors, ft__diag_eval_module_temp,
	ft__diag_eval_raw_ber, ft__diag_eval_recommendation;
/* rules_roce.c */
ft__diag_eval_fn ft__diag_eval_cc_steady_state, ft__diag_eval_dcqcn_overreaction,
	ft__diag_eval_ecn_no_cnp, ft__diag_eval_ecn_rate, ft__diag_eval_eth_link_down,
	ft__diag_eval_gid_empty, ft__diag_eval_gid_index, ft__diag_eval_not_rdma_netdev,
	ft__diag_eval_pause_fraction, ft__diag_eval_pfc_off, ft__diag_eval_pfc_only,
	ft__diag_eval_pfc_prio, ft__diag_eval_roce_mtu, ft__diag_eval_rx_pause,
	ft__diag_eval_trust_pcp, ft__diag_eval_tx_pause;
/* rules_cc.c */
ft__diag_eval_fn ft__diag_eval_dcqcn_params, ft__diag_eval_ecn_disabled;
/* rules_nicfw.c */
ft__diag_eval_fn ft__diag_eval_cc_prio, ft__diag_eval_cnp_class, ft__diag_eval_dcqcn_tuned;
/* rules_switch.c */
ft__diag_eval_fn ft__diag_eval_deadlock, ft__diag_eval_ecmp_collision, ft__diag_eval_storm,
	ft__diag_eval_switch_drops, ft__diag_eval_switch_fec, ft__diag_eval_switch_pause;
/* rules_deadlock.c */
ft__diag_eval_fn ft__diag_eval_ib_credit_loop, ft__diag_eval_pfc_deadlock;
/* rules_perf.c */
ft__diag_eval_fn ft__diag_eval_busbw_model, ft__diag_eval_host_outlier, ft__diag_eval_jitter,
	ft__diag_eval_latency_model, ft__diag_eval_no_results, ft__diag_eval_pair_outlier,
	ft__diag_eval_scale_drop, ft__diag_eval_test_unknown, ft__diag_eval_utilisation,
	ft__diag_eval_wrong;

/* Parameters of the rules that share a check (rule->data). */
struct ft__counter_rule;
struct ft__wc_rule;
extern const struct ft__wc_rule ft__diag_wc_flush, ft__diag_wc_prot, ft__diag_wc_remote,
	ft__diag_wc_retry, ft__diag_wc_rnr;
extern const struct ft__counter_rule ft__diag_counter_constraint, ft__diag_counter_discards,
	ft__diag_counter_downed, ft__diag_counter_integrity, ft__diag_counter_overrun,
	ft__diag_counter_rcv, ft__diag_counter_recovery, ft__diag_counter_relay,
	ft__diag_counter_remote, ft__diag_counter_symbol, ft__diag_counter_vl15,
	ft__diag_counter_wait;
extern const struct ft__counter_rule ft__diag_counter_ack, ft__diag_counter_cnp_ignored,
	ft__diag_counter_retry_exc, ft__diag_counter_module, ft__diag_counter_oos, ft__diag_counter_out_of_buffer,
	ft__diag_counter_oversize, ft__diag_counter_pci, ft__diag_counter_phy,
	ft__diag_counter_rx_discards, ft__diag_counter_seq, ft__diag_counter_storm;

/* The defaults of struct ft_diag_thresholds (diag/thresholds.c). */
extern const struct ft_diag_thresholds ft__diag_default_thresholds;
/* The value of thresholds file key @key in @t, or @dflt when @key is NULL or unknown. */
double ft__diag_threshold(const struct ft_diag_thresholds *t, const char *key, double dflt);
/* A limit such as a BER for messages: "1e-12", "1e-6", "2.5e-7" (%.2g, exponent unpadded). */
void ft__diag_fmt_limit(double v, char *buf, size_t len);

/* Parameters of the shared counter-threshold check (rule->data). */
struct ft__counter_rule {
	const char *keys[6]; /* observation keys, NULL-terminated (exact, or prefix with '*') */
	double threshold;    /* a value >= threshold fires */
	double critical;     /* a value >= critical fires as critical; 0 = never */
	const char *basis;   /* "IBD-THR default" / "heuristic" */
	const char *meaning; /* what a high value means */
	/*
	 * Rates ("<key>.rate", per second, from a probe with an interval): a rate
	 * > rate_threshold fires ("the counter is rising"); rate_threshold < 0
	 * leaves rates alone. rate_critical: a rising counter is critical.
	 */
	double rate_threshold;
	bool rate_critical;
	/* Keys of the thresholds file that replace @threshold / @rate_threshold, or NULL. */
	const char *threshold_key;
	const char *rate_threshold_key;
};
int ft__diag_eval_counter(const struct ft_diag_ctx *ctx, struct ft_findings *out);
/* A rule table row for a counter rule with parameters @data_ (a struct ft__counter_rule). */
#define FT__DIAG_COUNTER_RULE(id_, layer_, sev_, summary_, data_, needs_, fix_, kb_)               \
	{                                                                                          \
		.id = id_, .layer = layer_, .severity = sev_, .summary = summary_,                 \
		.needs = needs_, .eval = ft__diag_eval_counter, .fix = fix_, .kb = kb_,            \
		.data = &data_                                                                     \
	}

/* ---- text ---------------------------------------------------------------- */

bool ft__str_ieq(const char *a, const char *b);
/* Case-insensitive substring search. */
bool ft__str_icontains(const char *hay, const char *needle);
bool ft__str_has_prefix(const char *s, const char *prefix);
/* Key match: exact, or a glob when @pat holds a star or brackets ("eth.counter.tx_prio*_pause"). */
bool ft__key_match(const char *key, const char *pat);

/* ---- lookups ------------------------------------------------------------- */

/* Set up @c for @in, with its key index (FT_ENOMEM), and release it. */
int ft__diag_ctx_init(struct ft_diag_ctx *c, const struct ft_diag_input *in);
void ft__diag_ctx_release(struct ft_diag_ctx *c);

static inline size_t
ft__nobs(const struct ft_diag_ctx *c)
{
	return ft_obs_set_len(c->obs);
}
static inline const struct ft_obs *
ft__obs(const struct ft_diag_ctx *c, size_t i)
{
	return ft_obs_set_at(c->obs, i);
}

/*
 * The observations with exactly @key: call with *@pos = 0 and repeat while it
 * returns non-NULL. They come sorted by host, device, port, then input order.
 */
const struct ft_obs *ft__diag_next(const struct ft_diag_ctx *c, const char *key, size_t *pos);

/* First observation with @key (pattern as ft__key_match), or NULL. */
const struct ft_obs *ft__diag_find(const struct ft_diag_ctx *c, const char *key);
/* First observation with @key on the same host/device/port as @like. */
const struct ft_obs *ft__diag_find_same(const struct ft_diag_ctx *c, const char *key,
					const struct ft_obs *like);
/* First observation with @key on the same host and device as @like (any port). */
const struct ft_obs *ft__diag_find_dev(const struct ft_diag_ctx *c, const char *key,
				       const struct ft_obs *like);
/* Observation with @key from the same source line (file and line) as @like. */
const struct ft_obs *ft__diag_find_line(const struct ft_diag_ctx *c, const char *key,
					const struct ft_obs *like);
/* Value of NCCL variable @name ("NCCL_IB_TC"), from nccl.env.<name>; NULL when not set. */
const struct ft_obs *ft__diag_env(const struct ft_diag_ctx *c, const char *name);
/* Parse an observation's value as a number (num, or the str); false when neither. */
bool ft__obs_number(const struct ft_obs *o, double *out);
/* Same host, device and port. */
bool ft__same_port(const struct ft_obs *a, const struct ft_obs *b);

/* Does the data show RoCE (an Ethernet link layer RDMA port, or a NCCL /RoCE device)? */
bool ft__diag_has_roce(const struct ft_diag_ctx *c);
/* Does the data show an InfiniBand link-layer port that is Active? */
bool ft__diag_has_active_ib(const struct ft_diag_ctx *c);
/* Is this port state Active (ACTIVE, PORT_ACTIVE, "4: ACTIVE")? */
bool ft__port_state_active(const char *s);
/* NCCL version of the log as major*10000 + minor*100 + patch; 0 when unknown. */
int ft__diag_nccl_version(const struct ft_diag_ctx *c, const struct ft_obs **where);

/* ---- findings ------------------------------------------------------------ */

/*
 * Append a finding of the current rule with evidence @ev[0..nev) (NULL
 * entries skipped), severity @sev (the rule's default when negative) and the
 * entity of the first evidence. Returns 0 or FT_ENOMEM.
 */
int ft__diag_emit(const struct ft_diag_ctx *c, struct ft_findings *out, int sev,
		  const struct ft_obs *const *ev, size_t nev, const char *fmt, ...) FT_PRINTF(6, 7);

/*
 * ft__diag_emit() with the finding's own fix, @fix, in place of the rule's: a rule whose
 * findings have more than one cause gives each the fix of its own (NULL: the rule's).
 */
int ft__diag_emit_fix(const struct ft_diag_ctx *c, struct ft_findings *out, int sev,
		      const char *fix, const struct ft_obs *const *ev, size_t nev,
		      const char *fmt, ...) FT_PRINTF(7, 8);

/*
 * The evidence arguments of ft__diag_emit() from a list of observations:
 * ft__diag_emit(c, out, -1, FT__EV(o, peer), "...") passes the array {o, peer}
 * and its length 2.
 */
#define FT__EV(...)                                                                                \
	((const struct ft_obs *const[]){ __VA_ARGS__ }),                                           \
		FT_ARRAY_SIZE(((const struct ft_obs *const[]){ __VA_ARGS__ }))

/*
 * The evidence of one finding about many observations: every one added is
 * counted in @total, the first ones (up to @cap, at most the array; 0 means
 * the whole array) are kept in @ev[0..@n).
 */
struct ft__evidence {
	const struct ft_obs *ev[FT_FINDING_MAX_EVIDENCE];
	size_t n, total, cap;
};
void ft__evidence_add(struct ft__evidence *e, const struct ft_obs *o);

/*
 * A check of one observation: append the findings it shows (usually none or
 * one) and return 0 or FT_ENOMEM.
 */
typedef int ft__diag_check_fn(const struct ft_diag_ctx *c, struct ft_findings *out,
			      const struct ft_obs *o);

/*
 * Call @check on each observation with one of @keys (space separated), key
 * after key, stopping at the first error. An exact key walks the key index
 * (host, device, port order); a pattern (as ft__key_match) scans in input
 * order. The order never shows: findings are ranked afterwards.
 */
int ft__diag_each(const struct ft_diag_ctx *c, struct ft_findings *out, const char *keys,
		  ft__diag_check_fn *check);

/*
 * The forms most rules take, each a definition macro for the rule's eval
 * (declared in the list above, its catalogue row keeps ".eval = eval_x"):
 *
 * FT__DIAG_EACH(eval_x, "key1 key2", check_x): @check_x on each observation
 * of the keys (ft__diag_each).
 *
 * FT__DIAG_MATCH(eval_x, "key", match_x, "message with the text: %s"): a
 * finding with the rule's severity on each observation of exactly @key that
 * @match_x takes (NULL: every one), that observation as evidence, the message
 * with at most one conversion, a %s for the observation's text.
 * FT__DIAG_MATCH_FIRST looks only at the first observation of @key in input
 * order (a setting that one value stands for).
 *
 * FT__DIAG_DISAGREE(eval_x, accept_x, by_num, "%f vs %f"): "they disagree",
 * one finding on the first observation in input order that @accept_x takes
 * and that differs from the first one taken (both are its evidence), in the
 * number when @by_num, else in the text; the message gets the two values,
 * that one's first: two %f or two %s conversions.
 */
struct ft__match_rule {
	const char *key;
	bool (*match)(const struct ft_obs *o);
	const char *fmt;
	bool first_only;
};
int ft__diag_match(const struct ft_diag_ctx *c, struct ft_findings *out,
		   const struct ft__match_rule *m);

struct ft__disagree_rule {
	bool (*accept)(const struct ft_diag_ctx *c, const struct ft_obs *o);
	bool by_num;
	const char *fmt;
};
int ft__diag_disagree(const struct ft_diag_ctx *c, struct ft_findings *out,
		      const struct ft__disagree_rule *d);

/* A rule's eval returning @call_, which sees its parameters c and out. */
#define FT__DIAG_EVAL(name_, call_)                                                                \
	int name_(const struct ft_diag_ctx *c, struct ft_findings *out)                     \
	{                                                                                          \
		return call_;                                                                      \
	}
#define FT__DIAG_EACH(name_, keys_, check_)                                                        \
	FT__DIAG_EVAL(name_, ft__diag_each(c, out, keys_, check_))
#define FT__DIAG_MATCH(name_, key_, match_, fmt_)                                                  \
	FT__DIAG_EVAL(name_, ft__diag_match(c, out, &(const struct ft__match_rule){                \
		key_, match_, fmt_ }))
#define FT__DIAG_MATCH_FIRST(name_, key_, match_, fmt_)                                            \
	FT__DIAG_EVAL(name_, ft__diag_match(c, out, &(const struct ft__match_rule){                \
		key_, match_, fmt_, .first_only = true }))
#define FT__DIAG_DISAGREE(name_, accept_, by_num_, fmt_)                                           \
	FT__DIAG_EVAL(name_, ft__diag_disagree(c, out, &(const struct ft__disagree_rule){          \
		accept_, by_num_, fmt_ }))

#endif

/* SPDX-License-Identifier: MIT */
/*
 * diag/advise_int.h - the advice templates (diag/advise_table.c) that
 * diag/advise.c walks and diag/whatif.c completes with the twin: one entry per change, with the
 * rules that trigger it, the setting, the action, the reason, the link
 * layer it applies to and how its gain is computed. Internal to diag/.
 */
#ifndef FT_DIAG_ADVISE_INT_H
#define FT_DIAG_ADVISE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fabtune/coll.h>
#include <fabtune/diag.h>

struct ft_cluster_spec;
struct ft_diag_ctx;

/* What the hooks of a template see: the observations, the findings, the advice so far. */
struct ft__adv_ctx {
	const struct ft_diag_ctx *c;
	const struct ft_findings *f;
	struct ft_advice_set *out;
};

/* First finding of any of the space-separated rule ids in @rules, or NULL. */
const struct ft_finding *ft__adv_finding_of(const struct ft__adv_ctx *a, const char *rules);
/* Append @o to @x's evidence unless it is there already or the list is full. */
void ft__adv_add_evidence(struct ft_advice *x, const struct ft_obs *o);
/* Do the inputs show RoCE and no active InfiniBand port? */
bool ft__adv_roce_only(const struct ft__adv_ctx *a);

/* The link layer a template applies to. */
enum ft__adv_link {
	FT_ADV_BOTH, /* any inputs */
	FT_ADV_IB,   /* not on inputs that show RoCE and no active InfiniBand port */
	FT_ADV_ROCE, /* not on inputs that show active InfiniBand and no RoCE */
};

const char *ft__adv_link_name(enum ft__adv_link link);

/*
 * The cluster a what-if runs on: the spec argument (a file or preset, for the
 * flow engine), and for the analytic model the resolved spec, calibrated from
 * the inputs' measurements when they allowed it (NULL: resolve @arg).
 */
struct ft__whatif_spec {
	const char *arg;
	const struct ft_cluster_spec *cs;
	const char *label; /* how the basis names it: "dgx-h100:2 calibrated from a.txt" */
	/* where the measured run placed its ranks (0: the twin fills nodes, as the engines do) */
	uint32_t nnodes, ppn;
	/* the analytic model's queries' (the calibration's sizes, each change's pair): one
	 * for the what-ifs' run (model.h ft_model_cache); NULL: uncached, the same results */
	struct ft_model_cache *cache;
};

/*
 * The hosts the lines of the measured nccl-tests output name (its NCCL INFO
 * "host:pid:tid" prefixes, "# Rank ... on HOST" lines, a launcher's tags):
 * how many, the first in @first; 0 when it names none or the rows come from
 * more than one file.
 */
uint32_t ft__run_hosts(const struct ft_obs_set *obs, const char **first);

/*
 * The twin's what-if for a change (diag/whatif.c): run the user's spec with
 * and without it. @run NULL: the twin cannot compute it and @compares says
 * why. @engine names what computed the figure ("flow engine", "analytic model").
 */
struct ft__whatif {
	const char *engine;
	enum ft_op fallback; /* the collective when the inputs measured none */
	int (*run)(struct ft_advice *x, const struct ft__whatif *w,
		   const struct ft__whatif_spec *ws, enum ft_op op, struct ft_error *err);
	const char *compares; /* what the twin compares, or why it cannot */
};

extern const struct ft__whatif ft__whatif_routing;
extern const struct ft__whatif ft__whatif_qps;
extern const struct ft__whatif ft__whatif_channels;
extern const struct ft__whatif ft__whatif_per_peer;
extern const struct ft__whatif ft__whatif_mtu;
extern const struct ft__whatif ft__whatif_dcqcn;

/*
 * One advice template. The engine fires it when a finding of @rules exists
 * (or, with @from_inputs, whenever its @fill accepts the inputs), none of
 * @unless exists and the inputs are of its link layer; it then copies the
 * static texts, runs @fill (which writes the figures into the texts and may
 * decline), and computes the gain with @gain, else states @no_gain. With a
 * spec, @twin then replaces the gain by the twin's what-if.
 */
struct ft__adv_template {
	const char *id;	      /* the advice id; with @per_finding, the id's prefix */
	const char *category; /* "nccl-env", "mtu", "qos", ... */
	const char *setting;  /* NCCL variable, sysctl, mlxconfig key, switch setting */
	const char *rules;    /* rule ids that trigger it (and give its evidence) */
	const char *unless;   /* rule ids that veto it, or NULL */
	const char *kb;
	enum ft__adv_link link;
	bool is_env, unset;
	bool from_inputs; /* fired by @fill on the inputs; @rules only add evidence */
	bool per_finding; /* one advice per finding of @rules */
	const char *value;  /* static value, or a format @fill completes */
	const char *action; /* how to apply it, or a format @fill completes */
	const char *reason; /* why, or a format @fill completes with the evidence */
	const char *arg[2]; /* template data for @fill (variable names, texts) */
	double num;	    /* template data for @fill and @gain (header bytes, ...) */
	/* Fill the figures from the finding @f (NULL with @from_inputs); false declines. */
	bool (*fill)(const struct ft__adv_ctx *a, const struct ft__adv_template *t,
		     const struct ft_finding *f, struct ft_advice *x);
	/* Closed-form gain; writes gain_pct, gain_basis and gain_engine. */
	void (*gain)(const struct ft__adv_ctx *a, const struct ft__adv_template *t,
		     const struct ft_finding *f, struct ft_advice *x);
	const char *no_gain; /* the basis when no figure is computed: what it would need */
	const struct ft__whatif *twin;
};

/* Every template, in the order advice is given. */
const struct ft__adv_template *ft__adv_templates(size_t *n);
/* The template that gave advice @id, or NULL. */
const struct ft__adv_template *ft__adv_template_of(const char *id);

#endif

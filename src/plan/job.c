/* SPDX-License-Identifier: MIT */
/*
 * plan/job.c - a job as the user asks for it: the options checked and
 * combined into a configuration, the plan and its scale-out twin, the
 * search, the HTML page and the report, for the command line to print.
 */
#include "plan_int.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

void
ft_plan_args_init(struct ft_plan_args *a)
{
	memset(a, 0, sizeof(*a));
	ft_plan_config_init(&a->cfg);
	a->mb = a->tp = a->cp = a->ep = a->pp = a->vpp = a->zero = 1;
	a->recover_s = 600;
	/* NaN is "not given": the option parser takes finite numbers only, so a negative
	 * rate is refused, not read as absent */
	a->fail_gpu = a->fail_nic = a->fail_link = a->fail_node = NAN;
}

/* A number option and the range it must lie in (NaN never does, unless @unset_nan). */
struct arg_range {
	const char *what; /* as the message names it */
	double value, lo, hi;
	bool below;     /* value < hi, not <= hi */
	bool unset_nan; /* NaN is the option not given */
};

static int
check_ranges(const struct ft_plan_args *a, struct ft_error *err)
{
	const struct arg_range r[] = {
		{ "--ep-overlap (0 to 1)", a->cfg.ep_overlap, 0, 1, false },
		{ "--zipf (0 to 10)", a->cfg.zipf, 0, 10, false },
		{ "--gemm-eff (0 to 1)", a->cfg.gemm_eff, 0, 1, false },
		{ "--peak-tflops", a->cfg.peak_tflops, 0, INFINITY, false },
		{ "--fail-gpu (interruptions per GPU per day, below 1)", a->fail_gpu, 0, 1, true,
		  true },
		{ "--fail-nic (interruptions per NIC per day, below 1)", a->fail_nic, 0, 1, true,
		  true },
		{ "--fail-link (interruptions per port per day, below 1)", a->fail_link, 0, 1,
		  true, true },
		{ "--fail-node (interruptions per node per day, below 100)", a->fail_node, 0,
		  100, true, true },
	};

	for (size_t i = 0; i < FT_ARRAY_SIZE(r); i++) {
		bool in = r[i].value >= r[i].lo &&
		          (r[i].below ? r[i].value < r[i].hi : r[i].value <= r[i].hi);

		if (!in && !(r[i].unset_nan && isnan(r[i].value)))
			return ft_error_set(err, FT_EINVAL, "%s: value out of range", r[i].what);
	}
	return 0;
}

/* The integer options that become uint32_t fields of the config, in the order they are checked. */
static const struct {
	/* offsets of a uint64_t in struct ft_plan_args and of a uint32_t in the config */
	size_t arg, cfg;
	uint64_t max;
	const char *what; /* as the message names it */
} int_fields[] = {
#define INT_FIELD(a, c, max, what) \
	{ offsetof(struct ft_plan_args, a), offsetof(struct ft_plan_config, c), max, what }
	INT_FIELD(zero, zero, 3, "--zero (0 to 3)"),
	INT_FIELD(gpus, ngpus, UINT32_MAX, "--gpus"),
	INT_FIELD(mb, micro_batch, 1u << 20, "a parallel degree"),
	INT_FIELD(tp, tp, 1u << 20, "a parallel degree"),
	INT_FIELD(cp, cp, 1u << 20, "a parallel degree"),
	INT_FIELD(ep, ep, 1u << 20, "a parallel degree"),
	INT_FIELD(pp, pp, 1u << 20, "a parallel degree"),
	INT_FIELD(dp, dp, 1u << 20, "a parallel degree"),
	INT_FIELD(vpp, vpp, 1u << 20, "a parallel degree"),
#undef INT_FIELD
};

/* @a's configuration with its names, integers and strings checked and set, into @c. */
static int
fill_config(const struct ft_plan_args *a, struct ft_plan_config *c, struct ft_error *err)
{
	static const struct {
		const char *label;
		const struct ft__name_set *set;
		size_t arg, cfg; /* offsets of the name in @a and of the enum in @c */
	} names[] = {
		{ "--recompute", &ft__plan_recomputes, offsetof(struct ft_plan_args, recompute),
		  offsetof(struct ft_plan_config, recompute) },
		{ "--precision", &ft__plan_precisions, offsetof(struct ft_plan_args, precision),
		  offsetof(struct ft_plan_config, precision) },
		{ "--optimizer", &ft__plan_optimizers, offsetof(struct ft_plan_args, optimizer),
		  offsetof(struct ft_plan_config, optimizer) },
	};
	_Static_assert(sizeof(enum ft_plan_recompute) == sizeof(int) &&
	                       sizeof(enum ft_plan_precision) == sizeof(int) &&
	                       sizeof(enum ft_plan_optimizer) == sizeof(int),
	               "the planner's named enums are ints");

	*c = a->cfg;
	for (size_t i = 0; i < FT_ARRAY_SIZE(names); i++) {
		const char *s = *(const char *const *)((const char *)a + names[i].arg);

		if (s && ft__name_read(names[i].set, names[i].label, s, -1,
		                       (int *)(void *)((char *)c + names[i].cfg), err) < 0)
			return FT_EINVAL;
	}
	for (size_t i = 0; i < FT_ARRAY_SIZE(int_fields); i++) {
		uint64_t v = *(const uint64_t *)((const char *)a + int_fields[i].arg);

		if (v > int_fields[i].max)
			return ft_error_set(err, FT_EINVAL, "%s: value out of range",
			                    int_fields[i].what);
		*(uint32_t *)((char *)c + int_fields[i].cfg) = (uint32_t)v;
	}
	if (a->engine && strlen(a->engine) >= sizeof(c->engine))
		return ft_error_set(err, FT_EINVAL,
		                    "--engine: expected analytic, flow or packet, got '%s'",
		                    a->engine);
	if (a->order && strlen(a->order) >= sizeof(c->order))
		return ft_error_set(err, FT_EINVAL,
		                    "--order: expected tp, cp, pp and dp joined by '-', got '%s'",
		                    a->order);
	if (a->engine)
		ft_strlcpy(c->engine, a->engine, sizeof(c->engine));
	if (a->order)
		ft_strlcpy(c->order, a->order, sizeof(c->order));
	c->sp = !a->no_sp;
	c->flash_attn = !a->no_flash;
	c->dp_overlap = !a->no_dp_overlap;
	c->replicas = (uint32_t)FT_MIN(a->replicas, (uint64_t)UINT32_MAX);
	return 0;
}

int
ft_plan_job_prepare(const struct ft_plan_args *a, const char *spec_arg, struct ft_plan_job *job,
                    struct ft_error *err)
{
	int rc;

	memset(job, 0, sizeof(*job));
	job->spec_label = spec_arg;
	job->cfg = a->cfg;
	if (!a->model)
		return ft_error_set(err, FT_EINVAL,
		                    "--model: expected a model preset "
		                    "(fabtune plan --models) or a YAML file");
	rc = check_ranges(a, err);
	if (rc == 0)
		rc = ft_spec_resolve(spec_arg, &job->spec, err);
	if (rc == 0)
		rc = ft_plan_model_resolve(a->model, &job->model, err);
	if (rc == 0 && a->expert_load)
		rc = ft_plan_expert_load_parse(a->expert_load, &job->load, &job->nload, err);
	if (rc == 0)
		rc = fill_config(a, &job->cfg, err);
	if (rc < 0)
		return rc;
	job->cfg.expert_load = job->load;
	job->cfg.nexpert_load = job->nload;
	/* Default batch: about 4M tokens (2^22), a power of two of sequences. */
	job->cfg.global_batch = a->batch ? a->batch : FT_MAX(1u, (1u << 22) / job->model.seq);
	return 0;
}

void
ft_plan_job_release(struct ft_plan_job *job)
{
	ft_free(job->load);
	job->load = NULL;
	job->nload = 0;
}

int
ft_plan_job_compute(const struct ft_plan_job *job, const struct ft_plan_args *a,
                    struct ft_plan p[2], struct ft_error *err)
{
	struct ft_plan_config c2;
	uint64_t rep;
	int rc = ft_plan_compute(&job->spec, &job->model, &job->cfg, &p[0], err);

	if (rc < 0 || !a->scale_from)
		return rc;
	c2 = p[0].cfg;
	rep = (uint64_t)c2.tp * c2.cp * c2.pp;
	if (a->scale_from % rep || a->scale_from > p[0].ngpus)
		return ft_error_set(err, FT_EINVAL,
		                    "--scale-from: expected a multiple of tp·cp·pp = %" PRIu64
		                    " up to %u, got %" PRIu64,
		                    rep, p[0].ngpus, a->scale_from);
	c2.ngpus = (uint32_t)a->scale_from;
	c2.dp = (uint32_t)(a->scale_from / rep);
	c2.global_batch = p[0].cfg.global_batch / p[0].cfg.dp * c2.dp;
	if (c2.ep > 1 && c2.dp % c2.ep)
		c2.ep = 1;
	rc = ft_plan_compute(&job->spec, &job->model, &c2, &p[1], err);
	if (rc < 0)
		ft_error_prefix(err, "--scale-from %" PRIu64 ": ", a->scale_from);
	return rc;
}

/* Interruptions and goodput, for the recovery given and for 5 and 30 minutes. */
static void
write_goodput(const struct ft_plan_args *a, uint32_t ngpus, uint32_t gpn, struct ft_json *j,
              struct ft_strbuf *sb)
{
	struct ft_plan_failure_rates r;
	bool defaults = isnan(a->fail_gpu) && isnan(a->fail_nic) && isnan(a->fail_link) &&
	                isnan(a->fail_node);

	ft_plan_failure_rates_default(&r);
	if (!isnan(a->fail_gpu))
		r.gpu_per_day = a->fail_gpu;
	if (!isnan(a->fail_nic))
		r.nic_per_day = a->fail_nic;
	if (!isnan(a->fail_link))
		r.link_per_day = a->fail_link;
	if (!isnan(a->fail_node))
		r.host_per_day = a->fail_node;
	ft_plan_goodput_write(&r, defaults, ngpus, gpn, a->ckpt_s, a->recover_s, j, sb);
}

void
ft_plan_job_write(const struct ft_plan_job *job, const struct ft_plan_args *a,
                  const struct ft_plan p[2], bool json, struct ft_strbuf *sb)
{
	/* tokens/s per GPU here against the smaller job's */
	double eff = a->scale_from ?
	                     (p[0].tokens_per_s / p[0].ngpus) / (p[1].tokens_per_s / p[1].ngpus) :
	                     0;
	struct ft_json j;

	if (!json) {
		ft_plan_write_text(job->spec_label, &job->spec, &p[0], sb);
		if (a->scale_from)
			ft_strbuf_addf(sb,
			               "scale-out: %u -> %u GPUs at %.0f -> %.0f tokens/s: "
			               "%.1f%% efficiency per GPU\n",
			               p[1].ngpus, p[0].ngpus, p[1].tokens_per_s, p[0].tokens_per_s,
			               100 * eff);
		if (a->ckpt_s > 0)
			write_goodput(a, p[0].ngpus, job->spec.node.ngpus, NULL, sb);
		return;
	}
	ft_json_init(&j, sb, false);
	ft_json_obj_begin(&j);
	ft_json_kv_str(&j, "spec", job->spec_label);
	ft_plan_write_json(&j, &p[0]);
	if (a->scale_from) {
		ft_json_key(&j, "scale_out");
		ft_json_obj_begin(&j);
		ft_json_kv_uint(&j, "from_gpus", p[1].ngpus);
		ft_json_kv_double(&j, "from_tokens_per_s", p[1].tokens_per_s);
		ft_json_kv_double(&j, "efficiency", eff);
		ft_json_obj_end(&j);
	}
	if (a->ckpt_s > 0)
		write_goodput(a, p[0].ngpus, job->spec.node.ngpus, &j, sb);
	ft_json_obj_end(&j);
	ft_strbuf_addch(sb, '\n');
}

int
ft_plan_job_search(const struct ft_plan_job *job, const struct ft_plan_args *a, bool json,
                   struct ft_strbuf *sb, size_t *n, struct ft_error *err)
{
	struct ft_plan_search_opts so = { .top = (uint32_t)(a->top ? FT_MIN(a->top, 1000u) : 10) };
	struct ft_plan_search_failures failed;
	struct ft_plan_search_row *rows;
	size_t tried, fit;
	struct ft_json j;
	int rc;

	*n = 0;
	if (job->cfg.engine[0] && strcmp(job->cfg.engine, "analytic") != 0)
		return ft_error_set(err, FT_EINVAL,
		                    "--search: uses the analytic engine; plan the chosen "
		                    "configuration with --engine %s",
		                    job->cfg.engine);
	so.fixed_mb = a->mb != 1;
	so.fixed_zero = false;
	so.fixed_recompute = a->recompute != NULL;
	so.fixed_order = a->order != NULL;
	rc = ft_plan_search(&job->spec, &job->model, &job->cfg, &so, &rows, n, &tried, &fit,
	                    &failed, err);
	if (rc < 0)
		return rc;
	if (json)
		ft_json_init(&j, sb, false);
	ft_plan_search_write(job->model.name, job->spec_label, job->cfg.global_batch, job->cfg.sp,
	                     rows, *n, tried, fit, &failed, json ? &j : NULL, sb);
	ft_free(rows);
	return 0;
}

int
ft_plan_job_html(const struct ft_plan_job *job, const struct ft_plan *p, struct ft_strbuf *sb,
                 struct ft_error *err)
{
	struct ft_plan_search_opts so = { .top = 40 };
	struct ft_plan_search_failures failed;
	struct ft_plan_search_row *rows = NULL;
	struct ft_plan_event *ev = NULL;
	struct ft_plan_config base = p->cfg;
	size_t nev = 0, nrows = 0, tried = 0, fit = 0;
	int rc = ft_plan_timeline(p, &ev, &nev, err);

	if (rc == 0) {
		/* the frontier: every engine and data-parallel degree the search tries */
		base.engine[0] = '\0';
		base.dp = 0;
		rc = ft_plan_search(&job->spec, &job->model, &base, &so, &rows, &nrows, &tried,
		                    &fit, &failed, err);
	}
	if (rc == 0)
		rc = ft_plan_html(job->spec_label, p, ev, nev, rows, nrows, tried, &failed, sb);
	ft_free(ev);
	ft_free(rows);
	return rc;
}

void
ft_plan_model_presets_write(bool json, struct ft_strbuf *sb)
{
	struct ft_json j;

	if (json) {
		ft_json_init(&j, sb, false);
		ft_json_obj_begin(&j);
		ft_json_key(&j, "models");
		ft_json_arr_begin(&j);
	}
	for (size_t i = 0; i < ft_plan_model_preset_count(); i++) {
		const struct ft_plan_model *m = ft_plan_model_preset_at(i);
		struct ft_plan_params pp;

		ft_plan_model_params(m, &pp);
		if (!json) {
			ft_strbuf_addf(sb, "%-14s %7.1fB  %s\n", m->name, pp.total / 1e9,
			               ft_plan_model_preset_summary(i));
			continue;
		}
		ft_json_obj_begin(&j);
		ft_json_kv_str(&j, "name", m->name);
		ft_json_kv_uint(&j, "params", pp.total);
		ft_json_kv_uint(&j, "params_active", pp.active);
		ft_json_kv_str(&j, "summary", ft_plan_model_preset_summary(i));
		ft_json_obj_end(&j);
	}
	if (json) {
		ft_json_arr_end(&j);
		ft_json_obj_end(&j);
		ft_strbuf_addch(sb, '\n');
	}
}

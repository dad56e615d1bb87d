/* SPDX-License-Identifier: MIT */
/*
 * spec/scenario_jobs.c - a scenario's traffic and faults: the jobs (each a
 * list of collectives with algorithm, protocol, size and repeats, and the
 * placement of its ranks), the background patterns and the faults (links,
 * NICs, switches or ports down or degraded), each list read by its table of
 * keys through the one document reader, every error naming
 * file:line:col and the field. spec/scenario.c calls them from its
 * top-level table.
 */
#include "spec/scenario_load.h"

#include "internal.h"

#include <fabtune/sim.h>
#include <fabtune/units.h>

#include "coll/names.h"

/* ---- jobs ------------------------------------------------------------------ */

/* An op's name, algorithm or protocol (which: the key ending @path); "auto" leaves the
 * algorithm or protocol to NCCL's tuner. */
static int
read_op_name(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	static const struct {
		const char *key, *what;
		const struct ft__name_set *set;
		int auto_value;
		size_t at;
	} names[] = {
		{ ".op", "an operation", &ft__coll_modelled_ops, -1, offsetof(struct sc_op, op) },
		{ ".algo", "an algorithm", &ft__coll_algos, SC_ALGO_AUTO,
		  offsetof(struct sc_op, algo) },
		{ ".proto", "a protocol", &ft__coll_protos, SC_PROTO_AUTO,
		  offsetof(struct sc_op, proto) },
	};
	const char *key = strrchr(path, '.');
	struct ft_error why = { 0 };
	size_t i = 0;
	const char *s;
	int value;

	while (i + 1 < FT_ARRAY_SIZE(names) && !(key && strcmp(key, names[i].key) == 0))
		i++;
	s = ft__scenario_text_of(d, v, path, names[i].what);
	if (!s)
		return FT_EPARSE;
	if (ft__name_read(names[i].set, NULL, s, names[i].auto_value, &value, &why) < 0)
		return ft__doc_fail(d, v, FT_EPARSE, path, "%s", why.msg);
	/* the three are enums, stored as int */
	_Static_assert(sizeof(enum ft_op) == sizeof(int) && sizeof(enum ft_algo) == sizeof(int) &&
	                       sizeof(enum ft_proto) == sizeof(int),
	               "sc_op's enums are ints");
	*(int *)(void *)((char *)obj + names[i].at) = value;
	/* collnet_direct, collnet_chain: that CollNet algorithm alone */
	if (names[i].set == &ft__coll_algos)
		((struct sc_op *)obj)->collnet = ft_collnet_variant_from_name(s);
	return 0;
}

static const struct ft__doc_field op_fields[] = {
	{ "op", FT__DOC_FN, .fn = read_op_name },
	{ "algo", FT__DOC_FN, .fn = read_op_name },
	{ "proto", FT__DOC_FN, .fn = read_op_name },
	{ "size", FT__DOC_SIZE, FT__DOC_AT(struct sc_op, bytes) },
	{ "repeat", FT__DOC_U32, FT__DOC_AT(struct sc_op, repeat), .lo = 1, .hi = 1000000 },
	{ "channels", FT__DOC_U32, FT__DOC_AT(struct sc_op, channels), .lo = 1,
	  .hi = FT_SPEC_MAX_CHANNELS },
};

static void
op_init(void *obj, const yaml_node_t *n, size_t i)
{
	struct sc_op *op = obj;

	op->op = FT_OP_COUNT;
	op->algo = SC_ALGO_AUTO;
	op->proto = SC_PROTO_AUTO;
	op->repeat = 1;
}

static int
op_check(struct ld *l, const char *path, yaml_node_t *n, void *obj, uint64_t seen)
{
	const struct sc_op *op = obj;

	if (++l->nops > FT_SCENARIO_MAX_OPS)
		return ft__doc_fail(&l->d, n, FT_ERANGE, path,
		                    "more than %d operations in the scenario", FT_SCENARIO_MAX_OPS);
	if (op->op == FT_OP_COUNT)
		return ft__doc_fail(&l->d, n, FT_EPARSE, path, "missing 'op'");
	if (op->bytes == 0)
		return ft__doc_fail(&l->d, n, FT_EPARSE, path, "missing 'size'");
	return 0;
}

static int
read_ops(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	struct sc_job *job = obj;
	int rc;

	if (v->type != YAML_SEQUENCE_NODE)
		return ft__doc_expected(d, v, path, "a list of operations");
	rc = ft__scenario_load_list(ld_of(d), v, path, op_fields, FT_ARRAY_SIZE(op_fields),
	               sizeof(struct sc_op), &job->ops, op_init, op_check);
	if (rc == 0 && job->ops.len == 0)
		rc = ft__doc_fail(d, v, FT_EPARSE, path, "expected at least one operation");
	return rc;
}

/* A job's placement by name, in enum sc_placement order; also `sim --placement`'s. */
const char *const ft__scenario_placement_names[] = { "packed", "spread", "random", NULL };
const struct ft__name_set ft__scenario_placements = { ft__scenario_placement_names, SC_EXPLICIT, 0,
	                                              NULL };
_Static_assert(SC_PACKED == 0 && SC_SPREAD == 1 && SC_RANDOM == 2, "placement names order");

static int
read_placement(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	static const struct ft__doc_field how = {
		"placement", FT__DOC_ENUM, FT__DOC_AT(struct sc_job, placement),
		.names = ft__scenario_placement_names,
		.what = "packed, spread, random or a list of node:gpu"
	};
	struct sc_job *job = obj;
	yaml_node_item_t *it;
	size_t i = 0;

	if (v->type != YAML_SEQUENCE_NODE)
		return ft__doc_read(d, &how, v, path, job);
	job->placement = SC_EXPLICIT;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, i++) {
		yaml_node_t *n = ft__doc_node(d, *it);
		char field[FT__DOC_PATH_MAX], buf[32], *colon;
		const char *s = ft__doc_scalar(n);
		uint64_t a, b;
		uint32_t pair[2];

		snprintf(field, sizeof(field), "%s[%zu]", path, i);
		if (!s || strlen(s) >= sizeof(buf))
			return ft__doc_expected(d, n, field, "node:gpu");
		ft_strlcpy(buf, s, sizeof(buf));
		colon = strchr(buf, ':');
		if (colon)
			*colon = '\0';
		if (!colon || ft_parse_u64(buf, &a) < 0 || ft_parse_u64(colon + 1, &b) < 0 ||
		    a > UINT32_MAX || b > UINT32_MAX)
			return ft__doc_expected(d, n, field, "node:gpu");
		pair[0] = (uint32_t)a;
		pair[1] = (uint32_t)b;
		if (ft_vec_push(&job->explicit_gpus, pair) < 0)
			return ft_error_set(d->err, FT_ENOMEM, "out of memory");
	}
	if (i == 0)
		return ft__doc_fail(d, v, FT_EPARSE, path, "expected at least one node:gpu");
	return 0;
}

static const struct ft__doc_field job_fields[] = {
	{ "name", FT__DOC_STR, FT__DOC_AT(struct sc_job, name) },
	{ "ranks", FT__DOC_U32, FT__DOC_AT(struct sc_job, nranks), .lo = 1, .hi = 100000000 },
	{ "gpus_per_node", FT__DOC_U32, FT__DOC_AT(struct sc_job, gpus_per_node), .lo = 1,
	  .hi = FT_SPEC_MAX_CHANNELS },
	{ "first_node", FT__DOC_U32, FT__DOC_AT(struct sc_job, first_node), .lo = 0,
	  .hi = UINT32_MAX - 1 },
	{ "placement", FT__DOC_FN, .fn = read_placement },
	{ "iterations", FT__DOC_U32, FT__DOC_AT(struct sc_job, iterations), .lo = 1, .hi = 100000 },
	{ "compute", FT__DOC_DURATION, FT__DOC_AT(struct sc_job, compute_s) },
	{ "compute_tflop", FT__DOC_DOUBLE, FT__DOC_AT(struct sc_job, compute_tflop), .lo = 0,
	  .hi = 1e12 },
	{ "mfu", FT__DOC_DOUBLE, FT__DOC_AT(struct sc_job, mfu), .lo = 0.01, .hi = 1 },
	{ "ops", FT__DOC_FN, .fn = read_ops },
	{ "priority", FT__DOC_U32, FT__DOC_AT(struct sc_job, prio), .lo = 0, .hi = FT_PKT_NPRIO - 1 },
	{ "nvls", FT__DOC_BOOL, FT__DOC_AT(struct sc_job, nvls) },
};

void
ft__scenario_job_release(struct sc_job *j)
{
	ft_vec_release(&j->ops);
	ft_vec_release(&j->explicit_gpus);
}

static int
read_job(struct ft__doc *d, yaml_node_t *n, const char *field, uint32_t i, void *ud)
{
	struct ld *l = ld_of(d);
	struct sc_job job = { 0 };
	uint64_t seen = 0;
	int rc;

	FT_UNUSED(ud);
	ft_vec_init(&job.ops, sizeof(struct sc_op));
	ft_vec_init(&job.explicit_gpus, 2 * sizeof(uint32_t));
	job.iterations = 1;
	job.mfu = 0.5;
	job.nvls = true;
	job.prio = SC_DEFAULT_PRIO;
	job.line = (uint32_t)n->start_mark.line + 1;
	job.col = (uint32_t)n->start_mark.column + 1;
	snprintf(job.name, sizeof(job.name), "job%u", i);
	rc = ft__doc_walk(d, n, field, job_fields, FT_ARRAY_SIZE(job_fields), &job, &seen);
	if (rc == 0 && job.ops.len == 0)
		rc = ft__doc_fail(d, n, FT_EPARSE, field, "missing 'ops'");
	if (rc == 0 && ft_vec_push(&l->sc->jobs, &job) < 0)
		rc = ft_error_set(d->err, FT_ENOMEM, "out of memory");
	if (rc < 0)
		ft__scenario_job_release(&job);
	return rc;
}

int
ft__scenario_read_jobs(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	int rc = ft__scenario_each_item(d, v, path, "a list of jobs", UINT32_MAX, "jobs",
	                                read_job, NULL);

	FT_UNUSED(obj);
	return rc < 0 ? rc : 0;
}

/* ---- background traffic and faults ------------------------------------------ */

static int
read_pattern(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	struct sc_background *bg = obj;
	const char *s = ft__scenario_text_of(d, v, path, "a pattern");

	if (!s)
		return FT_EPARSE;
	if (strcmp(s, "permutation") == 0)
		bg->pattern = SC_PERMUTATION;
	else if (strcmp(s, "incast") == 0)
		bg->pattern = SC_INCAST;
	else if (strcmp(s, "alltoall") == 0 || strcmp(s, "all_to_all") == 0)
		bg->pattern = SC_ALLTOALL;
	else
		return ft__doc_fail(d, v, FT_EPARSE, path,
		                    "expected permutation, incast or alltoall, got '%s'", s);
	return 0;
}

/* Field @f, an enum of two names, as a flag: whether its value is the second name. */
static int
read_second_name(struct ft__doc *d, const struct ft__doc_field *f, yaml_node_t *v, const char *path,
                 bool *second)
{
	int i = 0, rc = ft__doc_read(d, f, v, path, &i);

	*second = i == 1;
	return rc;
}

static int
read_endpoints(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	static const char *const names[] = { "nic", "gpu", NULL };
	static const struct ft__doc_field f = { "endpoints", FT__DOC_ENUM, 0, sizeof(int),
		                                .names = names };

	return read_second_name(d, &f, v, path, &((struct sc_background *)obj)->gpu_endpoints);
}

/* The start jitter, and where it is (bg_check's errors point at it). */
static int
read_jitter(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	static const struct ft__doc_field f = { "jitter", FT__DOC_DURATION, 0, sizeof(double) };
	struct sc_background *bg = obj;

	bg->jitter_line = (uint32_t)v->start_mark.line + 1;
	bg->jitter_col = (uint32_t)v->start_mark.column + 1;
	return ft__doc_read(d, &f, v, path, &bg->jitter_s);
}

/* Whether a source's start offset is drawn once (source) or for every burst (burst). */
static int
read_jitter_per(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	static const char *const names[] = { "burst", "source", NULL };
	static const struct ft__doc_field f = { "jitter_per", FT__DOC_ENUM, 0, sizeof(int),
		                                .names = names };

	return read_second_name(d, &f, v, path,
	                        &((struct sc_background *)obj)->jitter_per_source);
}

static const struct ft__doc_field bg_fields[] = {
	{ "pattern", FT__DOC_FN, .fn = read_pattern },
	{ "size", FT__DOC_SIZE, FT__DOC_AT(struct sc_background, bytes) },
	{ "hosts", FT__DOC_U32, FT__DOC_AT(struct sc_background, hosts), .lo = 2, .hi = 100000000 },
	{ "target", FT__DOC_U32, FT__DOC_AT(struct sc_background, target), .lo = 0,
	  .hi = 100000000 },
	{ "endpoints", FT__DOC_FN, .fn = read_endpoints },
	{ "bursts", FT__DOC_U32, FT__DOC_AT(struct sc_background, bursts), .lo = 1, .hi = 1000000 },
	{ "off", FT__DOC_DURATION, FT__DOC_AT(struct sc_background, off_s) },
	{ "jitter", FT__DOC_FN, .fn = read_jitter },
	{ "jitter_per", FT__DOC_FN, .fn = read_jitter_per },
	{ "priority", FT__DOC_U32, FT__DOC_AT(struct sc_background, prio), .lo = 0,
	  .hi = FT_PKT_NPRIO - 1 },
};

static void
bg_init(void *obj, const yaml_node_t *n, size_t i)
{
	struct sc_background *bg = obj;

	bg->pattern = SC_PERMUTATION;
	bg->prio = SC_DEFAULT_PRIO;
	bg->line = (uint32_t)n->start_mark.line + 1;
	bg->col = (uint32_t)n->start_mark.column + 1;
}

/*
 * Start jitter: offsets are whole nanoseconds below 1 s; an all-to-all has no one start
 * per source (its rounds follow each other); and with more than one burst the jitter may
 * not exceed the idle time, so that a source's next burst (one period after the previous
 * burst's nominal start, each offset drawn anew) never begins before its last one began
 * to end (sim.md).
 */
static int
check_jitter(struct ld *l, const char *path, const struct sc_background *bg)
{
	/* the value's place, kept by read_jitter (the node is the item's mapping) */
	const yaml_node_t v = { .start_mark = { .line = bg->jitter_line - 1,
		                                .column = bg->jitter_col - 1 } };
	char at[96];
	double us = bg->jitter_s * 1e6;

	snprintf(at, sizeof(at), "%s.jitter", path);
	if (bg->jitter_s >= 1)
		return ft__doc_fail(&l->d, &v, FT_ERANGE, at, "expected below 1s, got %g s",
		                    bg->jitter_s);
	if (bg->pattern == SC_ALLTOALL)
		return ft__doc_fail(&l->d, &v, FT_ERANGE, at,
		                    "an alltoall pattern has no one start per source (permutation "
		                    "and incast only), got %g us",
		                    us);
	if (bg->bursts > 1 && bg->jitter_s > bg->off_s)
		return ft__doc_fail(&l->d, &v, FT_ERANGE, at,
		                    "expected at most off (%g us) with %u bursts, got %g us",
		                    bg->off_s * 1e6, bg->bursts, us);
	return 0;
}

static int
bg_check(struct ld *l, const char *path, yaml_node_t *n, void *obj, uint64_t seen)
{
	const struct sc_background *bg = obj;

	if (bg->bytes == 0)
		return ft__doc_fail(&l->d, n, FT_EPARSE, path, "missing 'size'");
	return bg->jitter_s > 0 ? check_jitter(l, path, bg) : 0;
}

static int
read_down(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	static const struct ft__doc_field f = { "down", FT__DOC_BOOL, 0, sizeof(bool) };
	bool down = false;
	int rc = ft__doc_read(d, &f, v, path, &down);

	if (rc == 0 && down)
		((struct sc_fault *)obj)->scale = 0;
	return rc;
}

static const char *const fault_names[] = { "link", "nic", "pcie", "nvlink", "switch", "port",
	                                   "gpu",  NULL };

enum { F_GPU = 2, F_NIC = 3 }; /* indexes in fault_fields, for has_gpu and has_nic */

static const struct ft__doc_field fault_fields[] = {
	{ "what", FT__DOC_ENUM, FT__DOC_AT(struct sc_fault, what), .names = fault_names },
	{ "node", FT__DOC_U32, FT__DOC_AT(struct sc_fault, node), .lo = 0, .hi = UINT32_MAX - 1 },
	[F_GPU] = { "gpu", FT__DOC_U32, FT__DOC_AT(struct sc_fault, gpu), .lo = 0,
	            .hi = FT_SPEC_MAX_GPUS - 1 },
	[F_NIC] = { "nic", FT__DOC_U32, FT__DOC_AT(struct sc_fault, nic), .lo = 0,
	            .hi = FT_SPEC_MAX_NICS - 1 },
	{ "tier", FT__DOC_U32, FT__DOC_AT(struct sc_fault, tier), .lo = 1, .hi = 3 },
	{ "switch", FT__DOC_U32, FT__DOC_AT(struct sc_fault, sw), .lo = 0, .hi = UINT32_MAX - 1 },
	{ "port", FT__DOC_U32, FT__DOC_AT(struct sc_fault, port), .lo = 0, .hi = 4095 },
	{ "link", FT__DOC_U32, FT__DOC_AT(struct sc_fault, link), .lo = 0, .hi = UINT32_MAX - 1 },
	{ "scale", FT__DOC_DOUBLE, FT__DOC_AT(struct sc_fault, scale), .lo = 0, .hi = 1 },
	{ "down", FT__DOC_FN, .fn = read_down },
	{ "slowdown", FT__DOC_DOUBLE, FT__DOC_AT(struct sc_fault, slowdown), .lo = 1, .hi = 1000 },
};

static void
fault_init(void *obj, const yaml_node_t *n, size_t i)
{
	struct sc_fault *f = obj;

	f->what = SC_F_LINK;
	f->scale = -1;
	f->slowdown = 0;
	f->link = UINT32_MAX;
	f->line = (uint32_t)n->start_mark.line + 1;
	f->col = (uint32_t)n->start_mark.column + 1;
}

static int
fault_check(struct ld *l, const char *path, yaml_node_t *n, void *obj, uint64_t seen)
{
	struct sc_fault *f = obj;

	f->has_gpu = seen & (UINT64_C(1) << F_GPU);
	f->has_nic = seen & (UINT64_C(1) << F_NIC);
	if (f->what == SC_F_GPU) {
		if (!f->has_gpu || f->slowdown < 1)
			return ft__doc_fail(&l->d, n, FT_EPARSE, path,
			                    "a gpu fault needs 'gpu' and 'slowdown' (>= 1)");
		return 0;
	}
	if (f->what == SC_F_SWITCH || f->what == SC_F_PORT) {
		if (f->tier == 0)
			return ft__doc_fail(&l->d, n, FT_EPARSE, path, "a %s fault needs 'tier'",
			                    f->what == SC_F_SWITCH ? "switch" : "port");
		if (f->what == SC_F_SWITCH && f->scale < 0)
			f->scale = 0; /* a failed switch */
	}
	if (f->what == SC_F_LINK && f->link == UINT32_MAX)
		return ft__doc_fail(&l->d, n, FT_EPARSE, path,
		                    "a link fault needs 'link' (a link id)");
	if (f->what == SC_F_NIC && !f->has_nic)
		return ft__doc_fail(&l->d, n, FT_EPARSE, path, "a nic fault needs 'nic'");
	if ((f->what == SC_F_PCIE && !f->has_gpu && !f->has_nic) ||
	    (f->what == SC_F_NVLINK && !f->has_gpu))
		return ft__doc_fail(&l->d, n, FT_EPARSE, path, "this fault needs 'gpu'%s",
		                    f->what == SC_F_PCIE ? " or 'nic'" : "");
	if (f->scale < 0)
		return ft__doc_fail(&l->d, n, FT_EPARSE, path,
		                    "missing 'scale' (0 to 1) or 'down: true'");
	return 0;
}

int
ft__scenario_read_background(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	struct ld *l = ld_of(d);

	return ft__scenario_load_list(l, v, path, bg_fields, FT_ARRAY_SIZE(bg_fields),
	                 sizeof(struct sc_background), &l->sc->background, bg_init, bg_check);
}

int
ft__scenario_read_faults(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	struct ld *l = ld_of(d);

	return ft__scenario_load_list(l, v, path, fault_fields, FT_ARRAY_SIZE(fault_fields),
	                 sizeof(struct sc_fault), &l->sc->faults, fault_init, fault_check);
}

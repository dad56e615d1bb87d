/* SPDX-License-Identifier: MIT */
/*
 * spec/scenario.c - the scenario loader: YAML or JSON into a validated struct
 * ft_scenario by the one document reader (spec/doc.h), one table of keys
 * per section, every error naming file:line:col and the field, like the
 * spec loader.
 *
 * A scenario names its cluster (a preset shorthand such as "dgx-h100:64", a
 * spec file relative to the scenario, or an inline spec mapping), optional
 * fabric overrides, routing, jobs, background traffic, faults and the
 * packet engine's knobs. The format is documented in docs/cmd/sim.md.
 */
#include "spec/scenario.h"

#include "internal.h"

#include <fabtune/sim.h>
#include <fabtune/units.h>

#include "coll/names.h"
#include "spec/doc.h"

struct ld {
	struct ft__doc d; /* first: callbacks get &l->d */
	const char *text;
	size_t len;
	struct ft_scenario *sc;
	size_t nops; /* operations loaded so far, all jobs: at most MAX_OPS */
};

/*
 * The operations one scenario may hold, all jobs together (each may repeat up
 * to 1,000,000 times): a cap on what a small file can make the twin do, with
 * the YAML alias limit (ft_spec_yaml_check) in front of it.
 */
#define MAX_OPS 100000

static struct ld *
ld_of(struct ft__doc *d)
{
	return (struct ld *)(void *)d; /* d is the first member */
}

/* A scalar's text, or NULL after an "expected @what" error. */
static const char *
text_of(struct ft__doc *d, yaml_node_t *v, const char *path, const char *what)
{
	const char *s = ft__doc_scalar(v);

	if (!s || ft__doc_is_null(v))
		ft__doc_expected(d, v, path, what);
	return s && !ft__doc_is_null(v) ? s : NULL;
}

/*
 * Each element of list @seq under @name: a mapping read by @fields into an
 * element of @elem bytes that @init prepares; @check sees it with the keys
 * given, then it is pushed on @out.
 */
typedef void elem_init_fn(void *obj, const yaml_node_t *n, size_t i);
typedef int elem_check_fn(struct ld *l, const char *path, yaml_node_t *n, void *obj,
                          uint64_t seen);

static int
load_list(struct ld *l, yaml_node_t *seq, const char *name, const struct ft__doc_field *fields,
          size_t nfields, size_t elem, struct ft_vec *out, elem_init_fn *init,
          elem_check_fn *check)
{
	char path[FT__DOC_PATH_MAX];
	unsigned char obj[512];
	yaml_node_item_t *it;
	size_t i = 0;

	if (!FT_ALWAYS(elem <= sizeof(obj)))
		return FT_EINVAL;
	if (seq->type != YAML_SEQUENCE_NODE)
		return ft__doc_expected(&l->d, seq, name, "a list");
	for (it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++, i++) {
		yaml_node_t *n = ft__doc_node(&l->d, *it);
		uint64_t seen = 0;
		int rc;

		snprintf(path, sizeof(path), "%s[%zu]", name, i);
		memset(obj, 0, elem);
		init(obj, n, i);
		rc = ft__doc_walk(&l->d, n, path, fields, nfields, obj, &seen);
		if (rc == 0)
			rc = check(l, path, n, obj, seen);
		if (rc == 0 && ft_vec_push(out, obj) < 0)
			rc = ft_error_set(l->d.err, FT_ENOMEM, "out of memory");
		if (rc < 0)
			return rc;
	}
	return 0;
}

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
	s = text_of(d, v, path, names[i].what);
	if (!s)
		return FT_EPARSE;
	if (ft__name_read(names[i].set, NULL, s, names[i].auto_value, &value, &why) < 0)
		return ft__doc_fail(d, v, FT_EPARSE, path, "%s", why.msg);
	/* the three are enums, stored as int */
	_Static_assert(sizeof(enum ft_op) == sizeof(int) && sizeof(enum ft_algo) == sizeof(int) &&
	                       sizeof(enum ft_proto) == sizeof(int),
	               "sc_op's enums are ints");
	*(int *)(void *)((char *)obj + names[i].at) = value;
	return 0;
}

static const struct ft__doc_field op_fields[] = {
	{ "op", FT__DOC_FN, .fn = read_op_name },
	{ "algo", FT__DOC_FN, .fn = read_op_name },
	{ "proto", FT__DOC_FN, .fn = read_op_name },
	{ "size", FT__DOC_SIZE, FT__DOC_AT(struct sc_op, bytes) },
	{ "repeat", FT__DOC_U32, FT__DOC_AT(struct sc_op, repeat), .lo = 1, .hi = 1000000 },
	{ "channels", FT__DOC_U32, FT__DOC_AT(struct sc_op, channels), .lo = 1,
	  .hi = FT_SPEC_MAX_GPUS },
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

	if (++l->nops > MAX_OPS)
		return ft__doc_fail(&l->d, n, FT_ERANGE, path,
		                    "more than %d operations in the scenario", MAX_OPS);
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
	rc = load_list(ld_of(d), v, path, op_fields, FT_ARRAY_SIZE(op_fields),
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
	  .hi = FT_SPEC_MAX_GPUS },
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
};

static void
job_release(struct sc_job *j)
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
		job_release(&job);
	return rc;
}

static int
read_jobs(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
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
	const char *s = text_of(d, v, path, "a pattern");

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

static int
read_endpoints(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	static const char *const names[] = { "nic", "gpu", NULL };
	static const struct ft__doc_field f = { "endpoints", FT__DOC_ENUM, 0, sizeof(int),
		                                .names = names };
	int i = 0, rc = ft__doc_read(d, &f, v, path, &i);

	((struct sc_background *)obj)->gpu_endpoints = i == 1;
	return rc;
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

static int
bg_check(struct ld *l, const char *path, yaml_node_t *n, void *obj, uint64_t seen)
{
	const struct sc_background *bg = obj;

	if (bg->bytes == 0)
		return ft__doc_fail(&l->d, n, FT_EPARSE, path, "missing 'size'");
	return 0;
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

static int
read_background(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	struct ld *l = ld_of(d);

	return load_list(l, v, path, bg_fields, FT_ARRAY_SIZE(bg_fields),
	                 sizeof(struct sc_background), &l->sc->background, bg_init, bg_check);
}

static int
read_faults(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	struct ld *l = ld_of(d);

	return load_list(l, v, path, fault_fields, FT_ARRAY_SIZE(fault_fields),
	                 sizeof(struct sc_fault), &l->sc->faults, fault_init, fault_check);
}

/* ---- cluster ----------------------------------------------------------------- */

/*
 * "preset:N" whose default fabric can't hold N nodes, with a `fabric:` block
 * that will resize it: take the preset's fabric defaults from a 2-node
 * cluster, set N nodes on a 3-tier tree; the block and validation follow.
 */
static int
resolve_for_override(const char *s, struct ft_cluster_spec *spec)
{
	struct ft_error e = { 0 };
	const char *colon = strrchr(s, ':');
	char two[80];
	uint64_t n;

	if (!colon || ft_parse_u64(colon + 1, &n) < 0 || n < 2 || n > UINT32_MAX ||
	    (size_t)snprintf(two, sizeof(two), "%.*s:2", (int)(colon - s), s) >= sizeof(two))
		return FT_EINVAL;
	if (ft_spec_resolve(two, spec, &e) < 0)
		return FT_EINVAL;
	spec->nnodes = (uint32_t)n;
	spec->fabric.tiers = 3;
	ft_strlcpy(spec->name, s, sizeof(spec->name));
	ft_strlcpy(spec->source, s, sizeof(spec->source));
	return 0;
}

static int
load_cluster(struct ld *l, yaml_node_t *v, bool has_fabric)
{
	struct ft_error e = { 0 };
	const char *file = l->d.file;
	int rc;

	if (v->type == YAML_MAPPING_NODE) {
		/* An inline spec: hand its text to the spec loader, same file and lines. */
		size_t a = v->start_mark.index, b = v->end_mark.index;
		char *buf;

		if (b > l->len || a > b)
			return ft__doc_fail(&l->d, v, FT_EPARSE, "cluster", "inline spec out of range");
		/* Pad with newlines and spaces so the spec loader's lines match the file's. */
		buf = ft_calloc(b + 1, 1);
		if (!buf)
			return ft_error_set(l->d.err, FT_ENOMEM, "out of memory");
		memset(buf, ' ', a);
		{
			size_t i;

			for (i = 0; i < a; i++)
				if (l->text[i] == '\n')
					buf[i] = '\n';
		}
		memcpy(buf + a, l->text + a, b - a);
		rc = ft_spec_load_buffer(buf, b, file, &l->sc->spec, l->d.err);
		ft_free(buf);
		return rc;
	}
	{
		char path[512];
		const char *s = text_of(&l->d, v, "cluster", "a preset like dgx-h100:64 or a spec file"),
		           *slash = strrchr(file, '/');

		if (!s)
			return FT_EPARSE;
		/* A spec file is relative to the scenario file. */
		if (s[0] != '/' && slash &&
		    (size_t)snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - file), file, s) <
		            sizeof(path) &&
		    access(path, R_OK) == 0)
			s = path;
		rc = ft_spec_resolve(s, &l->sc->spec, &e);
		if (rc < 0 && has_fabric && resolve_for_override(s, &l->sc->spec) == 0)
			rc = 0; /* sized by the fabric block, validated after it */
	}
	if (rc < 0)
		return ft__doc_fail(&l->d, v, rc, "cluster", "%s", e.msg);
	return 0;
}

static int
read_fabric_link(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	struct ft_fabric_spec *f = &((struct ft_scenario *)obj)->fab;
	const char *s = text_of(d, v, path, "a link preset");
	const struct ft_link_preset *lp;

	if (!s)
		return FT_EPARSE;
	lp = ft_link_preset_find(s);
	if (!lp)
		return ft__doc_fail(d, v, FT_EPARSE, path,
		                    "expected a link preset (hdr, ndr, xdr, roce100..roce800, spcx400, efa100, "
		                    "tcpx200), "
		                    "got '%s'",
		                    s);
	ft_strlcpy(f->link, lp->name, sizeof(f->link));
	f->link_Bps = lp->rate_Bps;
	f->lat_switch_s = lp->lat_switch_s;
	f->lat_cable_s = lp->lat_cable_s;
	return 0;
}

static int
read_fabric_kind(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	static const char *const names[] = { "fat_tree", "rail_fat_tree", NULL };
	static const enum ft_fabric_kind kinds[] = { FT_FABRIC_FAT_TREE, FT_FABRIC_RAIL_FAT_TREE };
	static const struct ft__doc_field f = { "kind", FT__DOC_ENUM, 0, sizeof(int),
		                                .names = names };
	int i = 0, rc = ft__doc_read(d, &f, v, path, &i);

	if (rc == 0)
		((struct ft_scenario *)obj)->fab.kind = kinds[i];
	return rc;
}

/* The fabric overrides, each with the FAB_* bit apply_fabric() reads. */
static const struct ft__doc_field fabric_fields[] = {
	{ "kind", FT__DOC_FN, .fn = read_fabric_kind },
	{ "tiers", FT__DOC_U32, FT__DOC_AT(struct ft_scenario, fab.tiers), .lo = 2, .hi = 3 },
	{ "radix", FT__DOC_U32, FT__DOC_AT(struct ft_scenario, fab.radix), .lo = 4, .hi = 1024 },
	{ "oversubscription", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_scenario, fab.oversubscription),
	  .lo = 1, .hi = 64 },
	{ "link", FT__DOC_FN, .fn = read_fabric_link },
};
static const unsigned fabric_bits[] = { FAB_KIND, FAB_TIERS, FAB_RADIX, FAB_OVERSUB, FAB_LINK };
_Static_assert(FT_ARRAY_SIZE(fabric_bits) == FT_ARRAY_SIZE(fabric_fields), "a bit per field");

static void
apply_fabric(const struct ft_scenario *sc, struct ft_fabric_spec *f)
{
	const struct ft_fabric_spec *o = &sc->fab;

	if (sc->fab_mask & FAB_TIERS)
		f->tiers = o->tiers;
	if (sc->fab_mask & FAB_RADIX)
		f->radix = o->radix;
	if (sc->fab_mask & FAB_OVERSUB)
		f->oversubscription = o->oversubscription;
	if (sc->fab_mask & FAB_KIND)
		f->kind = o->kind;
	if (sc->fab_mask & FAB_LINK) {
		ft_strlcpy(f->link, o->link, sizeof(f->link));
		f->link_Bps = o->link_Bps;
		f->lat_switch_s = o->lat_switch_s;
		f->lat_cable_s = o->lat_cable_s;
	}
}

int
ft__spec_scenario_cluster(const struct ft_scenario *sc, const char *arg,
                          struct ft_cluster_spec *out, struct ft_error *err)
{
	int rc = ft_spec_resolve(arg, out, err);

	if (sc->fab_mask == 0)
		return rc;
	if (rc < 0) {
		if (resolve_for_override(arg, out) < 0)
			return rc;
		ft_error_clear(err);
	}
	if (out->fabric.kind == FT_FABRIC_NONE)
		return ft_error_set(err, FT_EINVAL,
		                    "%s: fabric: the cluster has no fabric to change (give a node "
		                    "count: preset:NODES)",
		                    arg);
	apply_fabric(sc, &out->fabric);
	return ft_spec_validate(out, err);
}

/* ---- packet engine knobs (packet:) --------------------------------------------- */

static int
read_mtu(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	static const struct ft__doc_field f = { "mtu", FT__DOC_SIZE, 0, sizeof(uint64_t), .lo = 64,
		                                .hi = 9000, .what = "64 to 9000 bytes" };
	uint64_t sz = 0;
	int rc = ft__doc_read(d, &f, v, path, &sz);

	if (rc == 0)
		((struct ft_packet_cfg *)obj)->mtu_bytes = (uint32_t)sz;
	return rc;
}

/* One value per priority, indexed 0 to 7: WRR weights (>= 1) or, for lossy_priorities,
 * the priorities themselves (a bit mask). */
struct prio_list {
	struct ft_packet_cfg *pc;
	bool mask;
};

static int
read_prio_item(struct ft__doc *d, yaml_node_t *n, const char *field, uint32_t i, void *ud)
{
	const struct prio_list *pl = ud;
	struct ft__doc_field f = { "", FT__DOC_U32, 0, sizeof(uint32_t), .lo = pl->mask ? 0 : 1,
		                   .hi = pl->mask ? FT_PKT_NPRIO - 1 : 1000 };
	uint32_t x = 0;
	int rc = ft__doc_read(d, &f, n, field, &x);

	if (rc < 0)
		return rc;
	if (pl->mask)
		pl->pc->lossy_prios |= (uint8_t)(1u << x);
	else
		pl->pc->prio_weight[i] = x;
	return 0;
}

static int
read_prio_list(struct ft__doc *d, yaml_node_t *v, const char *path, bool mask, void *obj)
{
	struct prio_list pl = { obj, mask };
	int rc = ft__scenario_each_item(d, v, path, "a list", FT_PKT_NPRIO, "priorities",
	                                read_prio_item, &pl);

	return rc < 0 ? rc : 0;
}

static int
read_weights(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	return read_prio_list(d, v, path, false, obj);
}

static int
read_lossy(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	return read_prio_list(d, v, path, true, obj);
}

static const char *const arb_names[] = { "strict", "wrr", "vlarb", NULL };
static const char *const fc_names[] = { "auto", "credit", "pfc", "none", NULL };
static const char *const cc_names[] = { "auto", "none", "dcqcn", "ibcc", "timely", NULL };
static const char *const chunk_names[] = { "auto", "nccl", "off", NULL };

#define PKT(m) FT__DOC_AT(struct ft_packet_cfg, m)

/* One line per knob: key, type, member, range (struct ft_packet_cfg in <fabtune/sim.h>). */
static const struct ft__doc_field packet_fields[] = {
	{ "mtu", FT__DOC_FN, .fn = read_mtu },
	{ "flow_control", FT__DOC_ENUM, PKT(fc), .names = fc_names },
	{ "port_buffer", FT__DOC_SIZE, PKT(port_buffer_bytes) },
	{ "switch_buffer", FT__DOC_SIZE, PKT(switch_buffer_bytes) },
	{ "pfc_xoff", FT__DOC_SIZE, PKT(pfc_xoff_bytes) },
	{ "pfc_xon", FT__DOC_SIZE, PKT(pfc_xon_bytes) },
	{ "pfc_headroom", FT__DOC_SIZE, PKT(pfc_headroom_bytes) },
	{ "store_forward", FT__DOC_BOOL, PKT(store_forward) },
	{ "ib_timeout", FT__DOC_U32, PKT(ib_timeout), .lo = 1, .hi = 31 },
	{ "retransmit_timeout", FT__DOC_DURATION, PKT(rto_s) },
	{ "ber", FT__DOC_DOUBLE, PKT(ber), .lo = 0, .hi = 1e-3 },
	{ "congestion_control", FT__DOC_ENUM, PKT(cc), .names = cc_names },
	{ "ecn_kmin", FT__DOC_SIZE, PKT(ecn_kmin_bytes) },
	{ "ecn_kmax", FT__DOC_SIZE, PKT(ecn_kmax_bytes) },
	{ "ecn_pmax", FT__DOC_DOUBLE, PKT(ecn_pmax), .lo = 0.001, .hi = 1 },
	{ "min_time_between_cnps", FT__DOC_DURATION, PKT(cnp_interval_s) },
	{ "rpg_time_reset", FT__DOC_DURATION, PKT(dcqcn_timer_s) },
	{ "rpg_byte_reset", FT__DOC_SIZE, PKT(dcqcn_byte_counter) },
	{ "rpg_ai_rate", FT__DOC_DOUBLE, PKT(dcqcn_ai_bps), .lo = 1e3, .hi = 1e12 },
	{ "rpg_hai_rate", FT__DOC_DOUBLE, PKT(dcqcn_hai_bps), .lo = 1e3, .hi = 1e12 },
	{ "rpg_min_dec_fac", FT__DOC_DOUBLE, PKT(dcqcn_min_dec), .lo = 0.01, .hi = 0.99 },
	{ "dcqcn_g", FT__DOC_DOUBLE, PKT(dcqcn_g), .lo = 1e-6, .hi = 0.5 },
	{ "ccti_timer", FT__DOC_DURATION, PKT(ccti_timer_s) },
	{ "ccti_increase", FT__DOC_U32, PKT(ccti_increase), .lo = 1, .hi = 255 },
	{ "ccti_limit", FT__DOC_U32, PKT(ccti_limit), .lo = 1, .hi = 16383 },
	{ "ibcc_threshold", FT__DOC_SIZE, PKT(ibcc_threshold_bytes) },
	{ "ibcc_marking_rate", FT__DOC_U32, PKT(ibcc_marking_rate), .lo = 1, .hi = 65535 },
	{ "ccti_min", FT__DOC_U32, PKT(ccti_min), .lo = 0, .hi = 16383 },
	{ "cct", FT__DOC_FN, .fn = ft__scenario_read_cct },
	{ "cct_max_delay", FT__DOC_DURATION, PKT(cct_max_delay_s) },
	/* The names users know for the IB CC knobs (docs/cmd/sim.md). */
	{ "cc_timeout", FT__DOC_DURATION, PKT(ccti_timer_s) },
	{ "cc_window", FT__DOC_U32, PKT(ccti_limit), .lo = 1, .hi = 16383 },
	{ "pfc_watchdog", FT__DOC_DURATION, PKT(pfc_watchdog_s) },
	{ "arbitration", FT__DOC_ENUM, PKT(arb), .names = arb_names },
	{ "wrr_weights", FT__DOC_FN, .fn = read_weights },
	{ "lossy_priorities", FT__DOC_FN, .fn = read_lossy },
	{ "vlarb_high", FT__DOC_FN, .fn = ft__scenario_read_vlarb_high },
	{ "vlarb_low", FT__DOC_FN, .fn = ft__scenario_read_vlarb_low },
	{ "vlarb_high_limit", FT__DOC_U32, PKT(vlarb_high_limit), .lo = 0, .hi = 255 },
	{ "chunking", FT__DOC_ENUM, PKT(chunking), .names = chunk_names },
	{ "split_data_on_qps", FT__DOC_BOOL, PKT(split_data_on_qps) },
	{ "nic_msg_rate", FT__DOC_DOUBLE, PKT(nic_msg_rate), .lo = 1e5, .hi = 1e10 },
	{ "nic_msg_rate_miss", FT__DOC_DOUBLE, PKT(nic_msg_rate_miss), .lo = 1e5, .hi = 1e10 },
	{ "nic_qp_cache", FT__DOC_U32, PKT(nic_qp_cache), .lo = 1, .hi = 1u << 24 },
};

/* Remember where @key is (node @n) for errors found after loading. */
static int
mark(struct ft_scenario *sc, const char *key, const yaml_node_t *n)
{
	struct sc_mark m = { .line = (uint32_t)n->start_mark.line + 1,
		             .col = (uint32_t)n->start_mark.column + 1 };

	ft_strlcpy(m.key, key, sizeof(m.key));
	return ft_vec_push(&sc->marks, &m) < 0 ? FT_ENOMEM : 0;
}

static int
read_packet(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	struct ft_scenario *sc = obj;
	yaml_node_pair_t *p;
	int rc = ft__doc_walk(d, v, path, packet_fields, FT_ARRAY_SIZE(packet_fields), &sc->packet,
	                      NULL);

	if (rc == 0)
		rc = mark(sc, "packet", v);
	/* the walk took a mapping of scalar keys */
	for (p = v->data.mapping.pairs.start; rc == 0 && p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = ft__doc_node(d, p->key);
		char key[40];

		snprintf(key, sizeof(key), "packet.%s", ft__doc_scalar(k));
		rc = mark(sc, key, k);
	}
	return rc;
}

/* ---- top level ----------------------------------------------------------------- */

static int
read_engine(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	static const struct ft__doc_field f = { "engine", FT__DOC_STR,
		                                FT__DOC_AT(struct ft_scenario, engine) };
	struct ft_scenario *sc = obj;
	int rc = ft__doc_read(d, &f, v, path, sc);

	if (rc == 0 && !ft_sim_engine_find(sc->engine))
		rc = ft__doc_fail(d, v, FT_EPARSE, path,
		                  "expected analytic, flow, ideal or packet, got '%s'", sc->engine);
	sc->engine_line = (uint32_t)v->start_mark.line + 1;
	sc->engine_col = (uint32_t)v->start_mark.column + 1;
	return rc;
}

static int
read_routing(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj)
{
	struct ft_scenario *sc = obj;
	const char *s = text_of(d, v, path, "a routing");

	if (!s)
		return FT_EPARSE;
	/* Whether it fits the fabric is checked when the cluster is known (run.c). */
	if (ft_routing_from_name(s, &sc->routing) < 0)
		return ft__doc_fail(d, v, FT_EPARSE, path,
		                    "expected ecmp, dmodk, adaptive, minimal, valiant or dor, "
		                    "got '%s'",
		                    s);
	sc->has_routing = true;
	return 0;
}

static const struct ft__doc_field top_fields[] = {
	{ "name", FT__DOC_STR, FT__DOC_AT(struct ft_scenario, name) },
	{ "description", FT__DOC_STR, FT__DOC_AT(struct ft_scenario, description),
	  .what = "a text" },
	{ "seed", FT__DOC_U64, FT__DOC_AT(struct ft_scenario, seed) },
	{ "cluster", FT__DOC_SKIP }, /* loaded first */
	{ "fabric", FT__DOC_SKIP },  /* loaded after the cluster */
	{ "engine", FT__DOC_FN, .fn = read_engine },
	{ "routing", FT__DOC_FN, .fn = read_routing },
	{ "qps_per_connection", FT__DOC_U32, FT__DOC_AT(struct ft_scenario, qps_per_conn), .lo = 1,
	  .hi = 64 },
	{ "flowlet", FT__DOC_SIZE, FT__DOC_AT(struct ft_scenario, flowlet_bytes) },
	{ "fabric_scale", FT__DOC_DOUBLE, FT__DOC_AT(struct ft_scenario, fabric_scale),
	  .lo = 0.001, .hi = 1000 },
	{ "packet", FT__DOC_FN, .fn = read_packet },
	{ "jobs", FT__DOC_FN, .fn = read_jobs },
	{ "background", FT__DOC_FN, .fn = read_background },
	{ "faults", FT__DOC_FN, .fn = read_faults },
};

static struct ft_scenario *
scenario_new(const char *file)
{
	struct ft_scenario *sc = ft_calloc(1, sizeof(*sc));

	if (!sc)
		return NULL;
	ft_strlcpy(sc->file, file, sizeof(sc->file));
	ft_strlcpy(sc->engine, "flow", sizeof(sc->engine));
	sc->seed = 1;
	sc->qps_per_conn = 1;
	sc->fabric_scale = 1;
	ft_vec_init(&sc->jobs, sizeof(struct sc_job));
	ft_vec_init(&sc->background, sizeof(struct sc_background));
	ft_vec_init(&sc->faults, sizeof(struct sc_fault));
	ft_vec_init(&sc->marks, sizeof(struct sc_mark));
	return sc;
}

static int
load_fabric(struct ld *l, yaml_node_t *fab)
{
	struct ft_scenario *sc = l->sc;
	uint64_t seen = 0;
	size_t i;
	int rc;

	rc = ft__doc_walk(&l->d, fab, "fabric", fabric_fields, FT_ARRAY_SIZE(fabric_fields), sc,
	                  &seen);
	if (rc < 0)
		return rc;
	for (i = 0; i < FT_ARRAY_SIZE(fabric_bits); i++)
		if (seen & (UINT64_C(1) << i))
			sc->fab_mask |= fabric_bits[i];
	apply_fabric(sc, &sc->spec.fabric);
	if (sc->spec.fabric.kind == FT_FABRIC_NONE)
		return ft__doc_fail(&l->d, fab, FT_EINVAL, "fabric",
		                    "the cluster has no fabric to change "
		                    "(give a node count: preset:NODES)");
	rc = ft_spec_validate(&sc->spec, l->d.err);
	if (rc < 0)
		ft_error_prefix(l->d.err, "%s:%zu:%zu: fabric: ", l->d.file,
		                fab->start_mark.line + 1, fab->start_mark.column + 1);
	return rc;
}

static int
load_doc(struct ld *l, yaml_node_t *root)
{
	struct ft_scenario *sc = l->sc;
	yaml_node_t *cl, *fab;
	int rc;

	if (!root || root->type != YAML_MAPPING_NODE)
		return root ? ft__doc_expected(&l->d, root, "scenario", "a mapping at the top") :
		              ft__doc_fail(&l->d, root, FT_EPARSE, "scenario",
		                           "expected a mapping at the top, got nothing");
	cl = ft__doc_lookup(&l->d, root, "cluster");
	if (!cl)
		return ft__doc_fail(&l->d, root, FT_EPARSE, "cluster",
		                    "missing (a preset like dgx-h100:64, "
		                    "a spec file or an inline spec)");
	fab = ft__doc_lookup(&l->d, root, "fabric");
	rc = load_cluster(l, cl, fab != NULL);
	if (rc == 0 && fab)
		rc = load_fabric(l, fab);
	if (rc == 0)
		rc = ft__doc_walk(&l->d, root, "", top_fields, FT_ARRAY_SIZE(top_fields), sc, NULL);
	if (rc < 0)
		return rc;
	if (!sc->name[0]) {
		const char *base = strrchr(sc->file, '/');
		char *dot;

		ft_strlcpy(sc->name, base ? base + 1 : sc->file, sizeof(sc->name));
		dot = strrchr(sc->name, '.');
		if (dot)
			*dot = '\0';
	}
	if (sc->jobs.len == 0 && sc->background.len == 0)
		return ft__doc_fail(&l->d, root, FT_EPARSE, "jobs",
		                    "a scenario needs jobs or background traffic");
	return 0;
}

int
ft_scenario_load_buffer(const char *text, size_t len, const char *file, struct ft_scenario **out,
                        struct ft_error *err)
{
	struct ld l = { .text = text, .len = len };
	int rc;

	*out = NULL;
	rc = ft__doc_open(&l.d, text, len, file ? file : "<scenario>", err);
	if (rc < 0)
		return rc;
	l.sc = scenario_new(l.d.file);
	if (!l.sc) {
		ft__doc_close(&l.d);
		return ft_error_set(err, FT_ENOMEM, "out of memory");
	}
	rc = load_doc(&l, ft__doc_root(&l.d));
	ft__doc_close(&l.d);
	if (rc < 0) {
		ft_scenario_free(l.sc);
		return rc;
	}
	*out = l.sc;
	return 0;
}

static int
scenario_text(const char *text, size_t len, const char *path, void *out, struct ft_error *err)
{
	return ft_scenario_load_buffer(text, len, path, out, err);
}

int
ft_scenario_load_file(const char *path, struct ft_scenario **out, struct ft_error *err)
{
	*out = NULL;
	return ft__with_file_text(path, scenario_text, out, err);
}

bool
ft_scenario_sniff(const char *path)
{
	struct ft_strbuf sb;
	struct ft_error e = { 0 };
	bool yes = false;
	const char *p;

	ft_strbuf_init(&sb);
	if (ft_strbuf_read_file(&sb, path, &e) == 0) {
		/* A top-level "cluster:" key (at the start of a line). */
		for (p = sb.buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
			if (strncmp(p, "cluster:", 8) == 0) {
				yes = true;
				break;
			}
	}
	ft_strbuf_release(&sb);
	return yes;
}

void
ft_scenario_free(struct ft_scenario *sc)
{
	size_t i;

	if (!sc)
		return;
	for (i = 0; i < sc->jobs.len; i++)
		job_release(ft_vec_at(&sc->jobs, i));
	ft_vec_release(&sc->jobs);
	ft_vec_release(&sc->background);
	ft_vec_release(&sc->faults);
	ft_vec_release(&sc->marks);
	ft_free(sc);
}

int
ft_scenario_from_op(const struct ft_sim_sweep_args *a, struct ft_scenario **out,
                    struct ft_error *err)
{
	struct ft_scenario *sc;
	struct sc_job job = { 0 };
	uint64_t b;
	int rc;

	*out = NULL;
	if (a->min_bytes == 0 || a->max_bytes < a->min_bytes)
		return ft_error_set(err, FT_EINVAL, "sizes: expected 0 < -b <= -e");
	if (a->factor != 0 && a->factor < 2)
		return ft_error_set(err, FT_EINVAL, "factor: expected 2 or more, got %g",
		                    a->factor);
	sc = scenario_new(a->spec);
	if (!sc)
		return ft_error_set(err, FT_ENOMEM, "out of memory");
	sc->from_options = true;
	rc = ft_spec_resolve(a->spec, &sc->spec, err);
	if (rc < 0) {
		ft_scenario_free(sc);
		return rc;
	}
	snprintf(sc->name, sizeof(sc->name), "%s", ft_op_name(a->op));
	ft_vec_init(&job.ops, sizeof(struct sc_op));
	ft_vec_init(&job.explicit_gpus, 2 * sizeof(uint32_t));
	ft_strlcpy(job.name, ft_op_name(a->op), sizeof(job.name));
	job.iterations = 1;
	job.mfu = 0.5;
	job.nranks = a->nranks;
	for (b = a->min_bytes; b <= a->max_bytes;) {
		struct sc_op op = { .op = a->op,
			            .algo = a->algo,
			            .proto = a->proto,
			            .bytes = b,
			            .repeat = 1,
			            .channels = a->channels };

		if (ft_vec_push(&job.ops, &op) < 0) {
			rc = FT_ENOMEM;
			break;
		}
		if (a->factor == 0 || (double)b * a->factor > (double)UINT64_MAX / 2)
			break;
		b = (uint64_t)((double)b * a->factor);
	}
	if (rc == 0 && ft_vec_push(&sc->jobs, &job) < 0)
		rc = FT_ENOMEM;
	if (rc < 0) {
		job_release(&job);
		ft_scenario_free(sc);
		return ft_error_set(err, FT_ENOMEM, "out of memory");
	}
	*out = sc;
	return 0;
}

/* ---- where errors found after loading point ------------------------------------- */

const char *
ft__scenario_job_where(const struct ft_scenario *sc, size_t ji, const char *opt, char *buf,
                       size_t len, const char *fmt, ...)
{
	const struct sc_job *j = ft_vec_at(&sc->jobs, ji);
	char field[64];
	va_list ap;

	if (sc->from_options || !j) {
		ft_strlcpy(buf, opt, len);
		return buf;
	}
	va_start(ap, fmt);
	vsnprintf(field, sizeof(field), fmt, ap);
	va_end(ap);
	snprintf(buf, len, "%s:%u:%u: jobs[%zu]%s%s", sc->file, j->line, j->col, ji,
	         *field ? "." : "", field);
	return buf;
}

/* The mark of the longest key that begins @msg as a whole word: "packet.pfc_xon: ..."
 * picks packet.pfc_xon over packet; NULL when none does. */
static const struct sc_mark *
mark_for(const struct ft_scenario *sc, const char *msg)
{
	const struct sc_mark *best = NULL;
	size_t i, n, best_n = 0;

	for (i = 0; i < sc->marks.len; i++) {
		const struct sc_mark *m = ft_vec_at(&sc->marks, i);

		n = strlen(m->key);
		if (strncmp(msg, m->key, n) == 0 && msg[n] && strchr(":[,. ", msg[n]) &&
		    n > best_n) {
			best = m;
			best_n = n;
		}
	}
	return best;
}

void
ft__scenario_name_packet_error(const struct ft_scenario *sc, bool engine_option,
                               struct ft_error *err)
{
	const struct sc_mark *m;

	if (!err || strncmp(err->msg, "packet.", 7) != 0)
		return;
	m = mark_for(sc, err->msg);
	if (m)
		ft_error_prefix(err, "%s:%u:%u: ", sc->file, m->line, m->col);
	else if (engine_option)
		ft_error_prefix(err, "--engine packet: ");
	else if (sc->engine_line)
		ft_error_prefix(err, "%s:%u:%u: ", sc->file, sc->engine_line, sc->engine_col);
	else
		ft_error_prefix(err, "%s: ", sc->file);
}

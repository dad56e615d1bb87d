/* SPDX-License-Identifier: MIT */
/*
 * sim/scenario.c - the scenario loader: YAML (libyaml's document API) into
 * a validated struct ft_scenario, every error naming file:line:col and the
 * field, like the spec loader.
 *
 * A scenario names its cluster (a preset shorthand such as "dgx-h100:64", a
 * spec file relative to the scenario, or an inline spec mapping), optional
 * fabric overrides, routing, jobs, background traffic and faults. The format
 * is documented in docs/cmd/sim.md.
 */
#include "sim_int.h"

#include <yaml.h>

#include <fabtune/sim.h>
#include <fabtune/units.h>

struct ld {
	yaml_document_t doc;
	const char *file;
	const char *text;
	size_t len;
	struct ft_scenario *sc;
	struct ft_error *err;
	size_t nops; /* operations loaded so far, all jobs: at most MAX_OPS */
};

/*
 * The operations one scenario may hold, all jobs together (each may repeat up
 * to 1,000,000 times): a cap on what a small file can make the twin do, with
 * the YAML alias limit (ft_spec_yaml_check) in front of it.
 */
#define MAX_OPS 100000

static yaml_node_t *
node(struct ld *l, int i)
{
	return yaml_document_get_node(&l->doc, i);
}

static int fail(struct ld *l, const yaml_node_t *n, int code, const char *field, const char *fmt,
                ...) FT_PRINTF(5, 6);

static int
fail(struct ld *l, const yaml_node_t *n, int code, const char *field, const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ft_error_set(l->err, code, "%s:%zu:%zu: %s: %s", l->file,
	                    n ? n->start_mark.line + 1 : 0, n ? n->start_mark.column + 1 : 0, field,
	                    msg);
}

static const char *
scalar(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : "";
}

static const char *
shown(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE  ? scalar(n) :
	       n->type == YAML_MAPPING_NODE ? "a mapping" :
	                                      "a list";
}

static int
want_scalar(struct ld *l, yaml_node_t *n, const char *field, const char *what)
{
	if (n->type != YAML_SCALAR_NODE)
		return fail(l, n, FT_EPARSE, field, "expected %s, got %s", what, shown(n));
	return 0;
}

static int
get_u32(struct ld *l, yaml_node_t *n, const char *field, uint32_t lo, uint32_t hi, uint32_t *out)
{
	uint64_t v;
	int rc = want_scalar(l, n, field, "a whole number");

	if (rc < 0)
		return rc;
	if (ft_parse_u64(scalar(n), &v) < 0)
		return fail(l, n, FT_EPARSE, field, "expected a whole number, got '%s'", scalar(n));
	if (v < lo || v > hi)
		return fail(l, n, FT_ERANGE, field, "expected %u to %u, got %s", lo, hi, scalar(n));
	*out = (uint32_t)v;
	return 0;
}

static int
get_u64(struct ld *l, yaml_node_t *n, const char *field, uint64_t *out)
{
	int rc = want_scalar(l, n, field, "a whole number");

	if (rc < 0)
		return rc;
	if (ft_parse_u64(scalar(n), out) < 0)
		return fail(l, n, FT_EPARSE, field, "expected a whole number, got '%s'", scalar(n));
	return 0;
}

static int
get_double(struct ld *l, yaml_node_t *n, const char *field, double lo, double hi, double *out)
{
	int rc = want_scalar(l, n, field, "a number");

	if (rc < 0)
		return rc;
	if (ft_parse_double(scalar(n), out) < 0 || !isfinite(*out))
		return fail(l, n, FT_EPARSE, field, "expected a number, got '%s'", scalar(n));
	if (*out < lo || *out > hi)
		return fail(l, n, FT_ERANGE, field, "expected %g to %g, got %s", lo, hi, scalar(n));
	return 0;
}

static int
get_size(struct ld *l, yaml_node_t *n, const char *field, uint64_t *out)
{
	struct ft_error e = { 0 };
	int rc = want_scalar(l, n, field, "a size like 200MB");

	if (rc < 0)
		return rc;
	if (ft_parse_size(scalar(n), out, &e) < 0)
		return fail(l, n, FT_EPARSE, field, "expected a size like 200MB or 4KiB, got '%s'",
		            scalar(n));
	return 0;
}

static int
get_duration(struct ld *l, yaml_node_t *n, const char *field, double *out)
{
	struct ft_error e = { 0 };
	int rc = want_scalar(l, n, field, "a duration like 20ms");

	if (rc < 0)
		return rc;
	if (ft_parse_duration(scalar(n), out, &e) < 0 || *out < 0)
		return fail(l, n, FT_EPARSE, field, "expected a duration like 20ms, got '%s'",
		            scalar(n));
	return 0;
}

static int
get_bool(struct ld *l, yaml_node_t *n, const char *field, bool *out)
{
	const char *s;
	int rc = want_scalar(l, n, field, "true or false");

	if (rc < 0)
		return rc;
	s = scalar(n);
	if (strcmp(s, "true") == 0 || strcmp(s, "yes") == 0)
		*out = true;
	else if (strcmp(s, "false") == 0 || strcmp(s, "no") == 0)
		*out = false;
	else
		return fail(l, n, FT_EPARSE, field, "expected true or false, got '%s'", s);
	return 0;
}

static int
get_str(struct ld *l, yaml_node_t *n, const char *field, char *buf, size_t len)
{
	int rc = want_scalar(l, n, field, "a string");

	if (rc < 0)
		return rc;
	if (strlen(scalar(n)) >= len)
		return fail(l, n, FT_ERANGE, field, "expected at most %zu characters, got '%s'",
		            len - 1, scalar(n));
	ft_strlcpy(buf, scalar(n), len);
	return 0;
}

/* Walk a mapping: @fn is called per key with the value node. */
typedef int key_fn(struct ld *l, const char *path, const char *key, yaml_node_t *k, yaml_node_t *v,
                   void *obj);

static int
each_key(struct ld *l, yaml_node_t *map, const char *path, key_fn *fn, void *obj)
{
	yaml_node_pair_t *p;

	if (map->type != YAML_MAPPING_NODE)
		return fail(l, map, FT_EPARSE, path, "expected a mapping, got %s", shown(map));
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(l, p->key), *v = node(l, p->value);
		char field[160];
		int rc;

		if (!k || !v || k->type != YAML_SCALAR_NODE)
			return fail(l, k ? k : map, FT_EPARSE, path, "expected a plain key");
		snprintf(field, sizeof(field), "%s%s%s", path, *path ? "." : "", scalar(k));
		rc = fn(l, field, scalar(k), k, v, obj);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int
unknown(struct ld *l, yaml_node_t *k, const char *field, const char *known)
{
	return fail(l, k, FT_EPARSE, field, "unknown key (expected one of: %s)", known);
}

/* ---- jobs ------------------------------------------------------------------ */

static int
op_key(struct ld *l, const char *path, const char *key, yaml_node_t *k, yaml_node_t *v, void *obj)
{
	struct sc_op *op = obj;
	int rc;

	if (strcmp(key, "op") == 0) {
		rc = want_scalar(l, v, path, "an operation");
		if (rc == 0 && (ft_op_from_name(scalar(v), &op->op) < 0 || !ft_op_is_modelled(op->op)))
			rc = fail(l, v, FT_EPARSE, path,
			          "expected all_reduce, all_gather, reduce_scatter, broadcast, "
			          "reduce, alltoall or sendrecv, got '%s'",
			          scalar(v));
		return rc;
	}
	if (strcmp(key, "algo") == 0) {
		rc = want_scalar(l, v, path, "an algorithm");
		if (rc == 0 && strcmp(scalar(v), "auto") == 0)
			op->algo = SC_ALGO_AUTO;
		else if (rc == 0 && ft_algo_from_name(scalar(v), &op->algo) < 0)
			rc = fail(l, v, FT_EPARSE, path,
			          "expected auto, ring, tree, halving_doubling, direct, "
			          "hierarchical, nvls, nvls_tree, collnet or pat, got '%s'",
			          scalar(v));
		return rc;
	}
	if (strcmp(key, "proto") == 0) {
		rc = want_scalar(l, v, path, "a protocol");
		if (rc == 0 && strcmp(scalar(v), "auto") == 0)
			op->proto = SC_PROTO_AUTO;
		else if (rc == 0 && ft_proto_from_name(scalar(v), &op->proto) < 0)
			rc = fail(l, v, FT_EPARSE, path,
			          "expected auto, simple, ll or ll128, got '%s'",
			          scalar(v));
		return rc;
	}
	if (strcmp(key, "size") == 0)
		return get_size(l, v, path, &op->bytes);
	if (strcmp(key, "repeat") == 0)
		return get_u32(l, v, path, 1, 1000000, &op->repeat);
	if (strcmp(key, "channels") == 0)
		return get_u32(l, v, path, 1, FT_SPEC_MAX_GPUS, &op->channels);
	return unknown(l, k, path, "op, algo, proto, size, repeat, channels");
}

static int
load_ops(struct ld *l, const char *path, yaml_node_t *seq, struct sc_job *job)
{
	yaml_node_item_t *it;
	size_t i = 0;

	if (seq->type != YAML_SEQUENCE_NODE)
		return fail(l, seq, FT_EPARSE, path, "expected a list of operations, got %s",
		            shown(seq));
	for (it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++, i++) {
		yaml_node_t *n = node(l, *it);
		struct sc_op op = { .op = FT_OP_COUNT,
			            .algo = SC_ALGO_AUTO,
			            .proto = SC_PROTO_AUTO,
			            .repeat = 1 };
		char field[160];
		int rc;

		snprintf(field, sizeof(field), "%s[%zu]", path, i);
		if (++l->nops > MAX_OPS)
			return fail(l, n, FT_ERANGE, field,
			            "more than %d operations in the scenario", MAX_OPS);
		rc = each_key(l, n, field, op_key, &op);
		if (rc < 0)
			return rc;
		if (op.op == FT_OP_COUNT)
			return fail(l, n, FT_EPARSE, field, "missing 'op'");
		if (op.bytes == 0)
			return fail(l, n, FT_EPARSE, field, "missing 'size'");
		if (ft_vec_push(&job->ops, &op) < 0)
			return ft_error_set(l->err, FT_ENOMEM, "out of memory");
	}
	if (i == 0)
		return fail(l, seq, FT_EPARSE, path, "expected at least one operation");
	return 0;
}

static int
load_placement(struct ld *l, const char *path, yaml_node_t *v, struct sc_job *job)
{
	yaml_node_item_t *it;
	size_t i = 0;

	if (v->type == YAML_SCALAR_NODE) {
		const char *s = scalar(v);

		if (strcmp(s, "packed") == 0)
			job->placement = SC_PACKED;
		else if (strcmp(s, "spread") == 0)
			job->placement = SC_SPREAD;
		else if (strcmp(s, "random") == 0)
			job->placement = SC_RANDOM;
		else
			return fail(
			        l, v, FT_EPARSE, path,
			        "expected packed, spread, random or a list of node:gpu, got '%s'",
			        s);
		return 0;
	}
	if (v->type != YAML_SEQUENCE_NODE)
		return fail(l, v, FT_EPARSE, path,
		            "expected packed, spread, random or a list of "
		            "node:gpu, got a mapping");
	job->placement = SC_EXPLICIT;
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, i++) {
		yaml_node_t *n = node(l, *it);
		char field[160], buf[32], *colon;
		uint64_t a, b;
		uint32_t pair[2];

		snprintf(field, sizeof(field), "%s[%zu]", path, i);
		if (n->type != YAML_SCALAR_NODE || strlen(scalar(n)) >= sizeof(buf))
			return fail(l, n, FT_EPARSE, field, "expected node:gpu, got %s", shown(n));
		ft_strlcpy(buf, scalar(n), sizeof(buf));
		colon = strchr(buf, ':');
		if (!colon)
			return fail(l, n, FT_EPARSE, field, "expected node:gpu, got '%s'", buf);
		*colon = '\0';
		if (ft_parse_u64(buf, &a) < 0 || ft_parse_u64(colon + 1, &b) < 0 ||
		    a > UINT32_MAX || b > UINT32_MAX)
			return fail(l, n, FT_EPARSE, field, "expected node:gpu, got '%s'",
			            scalar(n));
		pair[0] = (uint32_t)a;
		pair[1] = (uint32_t)b;
		if (ft_vec_push(&job->explicit_gpus, pair) < 0)
			return ft_error_set(l->err, FT_ENOMEM, "out of memory");
	}
	if (i == 0)
		return fail(l, v, FT_EPARSE, path, "expected at least one node:gpu");
	return 0;
}

static int
job_key(struct ld *l, const char *path, const char *key, yaml_node_t *k, yaml_node_t *v, void *obj)
{
	struct sc_job *job = obj;

	if (strcmp(key, "name") == 0)
		return get_str(l, v, path, job->name, sizeof(job->name));
	if (strcmp(key, "ranks") == 0)
		return get_u32(l, v, path, 1, 100000000, &job->nranks);
	if (strcmp(key, "gpus_per_node") == 0)
		return get_u32(l, v, path, 1, FT_SPEC_MAX_GPUS, &job->gpus_per_node);
	if (strcmp(key, "first_node") == 0)
		return get_u32(l, v, path, 0, UINT32_MAX - 1, &job->first_node);
	if (strcmp(key, "placement") == 0)
		return load_placement(l, path, v, job);
	if (strcmp(key, "iterations") == 0)
		return get_u32(l, v, path, 1, 100000, &job->iterations);
	if (strcmp(key, "compute") == 0)
		return get_duration(l, v, path, &job->compute_s);
	if (strcmp(key, "compute_tflop") == 0)
		return get_double(l, v, path, 0, 1e12, &job->compute_tflop);
	if (strcmp(key, "mfu") == 0)
		return get_double(l, v, path, 0.01, 1, &job->mfu);
	if (strcmp(key, "ops") == 0)
		return load_ops(l, path, v, job);
	return unknown(l, k, path,
	               "name, ranks, gpus_per_node, first_node, placement, iterations, compute, "
	               "compute_tflop, mfu, ops");
}

static void
job_release(struct sc_job *j)
{
	ft_vec_release(&j->ops);
	ft_vec_release(&j->explicit_gpus);
}

static int
load_jobs(struct ld *l, yaml_node_t *seq)
{
	yaml_node_item_t *it;
	size_t i = 0;

	if (seq->type != YAML_SEQUENCE_NODE)
		return fail(l, seq, FT_EPARSE, "jobs", "expected a list of jobs, got %s",
		            shown(seq));
	for (it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++, i++) {
		yaml_node_t *n = node(l, *it);
		struct sc_job job = { 0 };
		char field[64];
		int rc;

		snprintf(field, sizeof(field), "jobs[%zu]", i);
		ft_vec_init(&job.ops, sizeof(struct sc_op));
		ft_vec_init(&job.explicit_gpus, 2 * sizeof(uint32_t));
		job.iterations = 1;
		job.mfu = 0.5;
		job.line = (uint32_t)n->start_mark.line + 1;
		job.col = (uint32_t)n->start_mark.column + 1;
		snprintf(job.name, sizeof(job.name), "job%zu", i);
		rc = each_key(l, n, field, job_key, &job);
		if (rc == 0 && job.ops.len == 0)
			rc = fail(l, n, FT_EPARSE, field, "missing 'ops'");
		if (rc == 0 && ft_vec_push(&l->sc->jobs, &job) < 0)
			rc = ft_error_set(l->err, FT_ENOMEM, "out of memory");
		if (rc < 0) {
			job_release(&job);
			return rc;
		}
	}
	return 0;
}

/* ---- background traffic and faults ------------------------------------------ */

static int
bg_key(struct ld *l, const char *path, const char *key, yaml_node_t *k, yaml_node_t *v, void *obj)
{
	struct sc_background *bg = obj;

	if (strcmp(key, "pattern") == 0) {
		const char *s;
		int rc = want_scalar(l, v, path, "a pattern");

		if (rc < 0)
			return rc;
		s = scalar(v);
		if (strcmp(s, "permutation") == 0)
			bg->pattern = SC_PERMUTATION;
		else if (strcmp(s, "incast") == 0)
			bg->pattern = SC_INCAST;
		else if (strcmp(s, "alltoall") == 0 || strcmp(s, "all_to_all") == 0)
			bg->pattern = SC_ALLTOALL;
		else
			return fail(l, v, FT_EPARSE, path,
			            "expected permutation, incast or alltoall, got '%s'", s);
		return 0;
	}
	if (strcmp(key, "size") == 0)
		return get_size(l, v, path, &bg->bytes);
	if (strcmp(key, "hosts") == 0)
		return get_u32(l, v, path, 2, 100000000, &bg->hosts);
	if (strcmp(key, "target") == 0)
		return get_u32(l, v, path, 0, 100000000, &bg->target);
	if (strcmp(key, "endpoints") == 0) {
		int rc = want_scalar(l, v, path, "nic or gpu");

		if (rc < 0)
			return rc;
		if (strcmp(scalar(v), "gpu") == 0)
			bg->gpu_endpoints = true;
		else if (strcmp(scalar(v), "nic") == 0)
			bg->gpu_endpoints = false;
		else
			return fail(l, v, FT_EPARSE, path, "expected nic or gpu, got '%s'",
			            scalar(v));
		return 0;
	}
	if (strcmp(key, "bursts") == 0)
		return get_u32(l, v, path, 1, 1000000, &bg->bursts);
	if (strcmp(key, "off") == 0)
		return get_duration(l, v, path, &bg->off_s);
	return unknown(l, k, path, "pattern, size, hosts, target, endpoints, bursts, off");
}

static int
fault_key(struct ld *l, const char *path, const char *key, yaml_node_t *k, yaml_node_t *v,
          void *obj)
{
	struct sc_fault *f = obj;
	bool down = false;
	int rc;

	if (strcmp(key, "what") == 0) {
		static const char *const names[] = { "link",   "nic",  "pcie", "nvlink",
			                             "switch", "port", "gpu" };
		size_t i;

		rc = want_scalar(l, v, path, "a fault target");
		if (rc < 0)
			return rc;
		for (i = 0; i < FT_ARRAY_SIZE(names); i++)
			if (strcmp(scalar(v), names[i]) == 0) {
				f->what = (enum sc_fault_what)i;
				return 0;
			}
		return fail(l, v, FT_EPARSE, path,
		            "expected link, nic, pcie, nvlink, switch, port or gpu, got '%s'",
		            scalar(v));
	}
	if (strcmp(key, "node") == 0)
		return get_u32(l, v, path, 0, UINT32_MAX - 1, &f->node);
	if (strcmp(key, "gpu") == 0) {
		f->has_gpu = true;
		return get_u32(l, v, path, 0, FT_SPEC_MAX_GPUS - 1, &f->gpu);
	}
	if (strcmp(key, "nic") == 0) {
		f->has_nic = true;
		return get_u32(l, v, path, 0, FT_SPEC_MAX_NICS - 1, &f->nic);
	}
	if (strcmp(key, "tier") == 0)
		return get_u32(l, v, path, 1, 3, &f->tier);
	if (strcmp(key, "switch") == 0)
		return get_u32(l, v, path, 0, UINT32_MAX - 1, &f->sw);
	if (strcmp(key, "port") == 0)
		return get_u32(l, v, path, 0, 4095, &f->port);
	if (strcmp(key, "link") == 0)
		return get_u32(l, v, path, 0, UINT32_MAX - 1, &f->link);
	if (strcmp(key, "scale") == 0)
		return get_double(l, v, path, 0, 1, &f->scale);
	if (strcmp(key, "slowdown") == 0)
		return get_double(l, v, path, 1, 1000, &f->slowdown);
	if (strcmp(key, "down") == 0) {
		rc = get_bool(l, v, path, &down);
		if (rc == 0 && down)
			f->scale = 0;
		return rc;
	}
	return unknown(l, k, path,
	               "what, node, gpu, nic, tier, switch, port, link, scale, down, "
	               "slowdown");
}

static int
load_list(struct ld *l, yaml_node_t *seq, const char *name, key_fn *fn, size_t elem,
          struct ft_vec *out, void (*defaults)(void *obj, yaml_node_t *n),
          int (*check)(struct ld *l, const char *field, yaml_node_t *n, void *obj))
{
	yaml_node_item_t *it;
	size_t i = 0;
	union {
		struct sc_background bg;
		struct sc_fault f;
	} obj;

	if (seq->type != YAML_SEQUENCE_NODE)
		return fail(l, seq, FT_EPARSE, name, "expected a list, got %s", shown(seq));
	for (it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++, i++) {
		yaml_node_t *n = node(l, *it);
		char field[64];
		int rc;

		snprintf(field, sizeof(field), "%s[%zu]", name, i);
		memset(&obj, 0, sizeof(obj));
		defaults(&obj, n);
		rc = each_key(l, n, field, fn, &obj);
		if (rc == 0)
			rc = check(l, field, n, &obj);
		if (rc < 0)
			return rc;
		if (ft_vec_push(out, &obj) < 0)
			return ft_error_set(l->err, FT_ENOMEM, "out of memory");
	}
	FT_UNUSED(elem);
	return 0;
}

static void
bg_defaults(void *obj, yaml_node_t *n)
{
	struct sc_background *bg = obj;

	bg->pattern = SC_PERMUTATION;
	bg->line = (uint32_t)n->start_mark.line + 1;
	bg->col = (uint32_t)n->start_mark.column + 1;
}

static int
bg_check(struct ld *l, const char *field, yaml_node_t *n, void *obj)
{
	const struct sc_background *bg = obj;

	if (bg->bytes == 0)
		return fail(l, n, FT_EPARSE, field, "missing 'size'");
	return 0;
}

static void
fault_defaults(void *obj, yaml_node_t *n)
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
fault_check(struct ld *l, const char *field, yaml_node_t *n, void *obj)
{
	struct sc_fault *f = obj;

	if (f->what == SC_F_GPU) {
		if (!f->has_gpu || f->slowdown < 1)
			return fail(l, n, FT_EPARSE, field,
			            "a gpu fault needs 'gpu' and 'slowdown' (>= 1)");
		return 0;
	}
	if (f->what == SC_F_SWITCH || f->what == SC_F_PORT) {
		if (f->tier == 0)
			return fail(l, n, FT_EPARSE, field, "a %s fault needs 'tier'",
			            f->what == SC_F_SWITCH ? "switch" : "port");
		if (f->what == SC_F_SWITCH && f->scale < 0)
			f->scale = 0; /* a failed switch */
	}
	if (f->what == SC_F_LINK && f->link == UINT32_MAX)
		return fail(l, n, FT_EPARSE, field, "a link fault needs 'link' (a link id)");
	if (f->what == SC_F_NIC && !f->has_nic)
		return fail(l, n, FT_EPARSE, field, "a nic fault needs 'nic'");
	if ((f->what == SC_F_PCIE && !f->has_gpu && !f->has_nic) ||
	    (f->what == SC_F_NVLINK && !f->has_gpu))
		return fail(l, n, FT_EPARSE, field, "this fault needs 'gpu'%s",
		            f->what == SC_F_PCIE ? " or 'nic'" : "");
	if (f->scale < 0)
		return fail(l, n, FT_EPARSE, field, "missing 'scale' (0 to 1) or 'down: true'");
	return 0;
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
	int rc;

	if (v->type == YAML_MAPPING_NODE) {
		/* An inline spec: hand its text to the spec loader, same file and lines. */
		size_t a = v->start_mark.index, b = v->end_mark.index;
		char *buf;

		if (b > l->len || a > b)
			return fail(l, v, FT_EPARSE, "cluster", "inline spec out of range");
		/* Pad with newlines and spaces so the spec loader's lines match the file's. */
		buf = ft_calloc(b + 1, 1);
		if (!buf)
			return ft_error_set(l->err, FT_ENOMEM, "out of memory");
		memset(buf, ' ', a);
		{
			size_t i;

			for (i = 0; i < a; i++)
				if (l->text[i] == '\n')
					buf[i] = '\n';
		}
		memcpy(buf + a, l->text + a, b - a);
		rc = ft_spec_load_buffer(buf, b, l->file, &l->sc->spec, l->err);
		ft_free(buf);
		return rc;
	}
	rc = want_scalar(l, v, "cluster", "a preset like dgx-h100:64 or a spec file");
	if (rc < 0)
		return rc;
	{
		char path[512];
		const char *s = scalar(v), *slash = strrchr(l->file, '/');

		/* A spec file is relative to the scenario file. */
		if (s[0] != '/' && slash &&
		    (size_t)snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - l->file), l->file,
		                     s) < sizeof(path) &&
		    access(path, R_OK) == 0)
			s = path;
		rc = ft_spec_resolve(s, &l->sc->spec, &e);
		if (rc < 0 && has_fabric && resolve_for_override(s, &l->sc->spec) == 0)
			rc = 0; /* sized by the fabric block, validated after it */
	}
	if (rc < 0)
		return fail(l, v, rc, "cluster", "%s", e.msg);
	return 0;
}

static int
fabric_key(struct ld *l, const char *path, const char *key, yaml_node_t *k, yaml_node_t *v,
           void *obj)
{
	struct ft_scenario *sc = obj;
	struct ft_fabric_spec *f = &sc->fab;
	int rc;

	if (strcmp(key, "tiers") == 0) {
		sc->fab_mask |= FAB_TIERS;
		return get_u32(l, v, path, 2, 3, &f->tiers);
	}
	if (strcmp(key, "radix") == 0) {
		sc->fab_mask |= FAB_RADIX;
		return get_u32(l, v, path, 4, 1024, &f->radix);
	}
	if (strcmp(key, "oversubscription") == 0) {
		sc->fab_mask |= FAB_OVERSUB;
		return get_double(l, v, path, 1, 64, &f->oversubscription);
	}
	if (strcmp(key, "link") == 0) {
		const struct ft_link_preset *lp;

		rc = want_scalar(l, v, path, "a link preset");
		if (rc < 0)
			return rc;
		lp = ft_link_preset_find(scalar(v));
		if (!lp)
			return fail(l, v, FT_EPARSE, path,
			            "expected a link preset (hdr, ndr, xdr, roce100..roce800), "
			            "got '%s'",
			            scalar(v));
		ft_strlcpy(f->link, lp->name, sizeof(f->link));
		f->link_Bps = lp->rate_Bps;
		f->lat_switch_s = lp->lat_switch_s;
		f->lat_cable_s = lp->lat_cable_s;
		sc->fab_mask |= FAB_LINK;
		return 0;
	}
	if (strcmp(key, "kind") == 0) {
		rc = want_scalar(l, v, path, "a fabric kind");
		if (rc < 0)
			return rc;
		if (strcmp(scalar(v), "fat_tree") == 0)
			f->kind = FT_FABRIC_FAT_TREE;
		else if (strcmp(scalar(v), "rail_fat_tree") == 0)
			f->kind = FT_FABRIC_RAIL_FAT_TREE;
		else
			return fail(l, v, FT_EPARSE, path,
			            "expected fat_tree or rail_fat_tree, got '%s'", scalar(v));
		sc->fab_mask |= FAB_KIND;
		return 0;
	}
	return unknown(l, k, path, "kind, tiers, radix, oversubscription, link");
}

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
ft__sim_resolve_cluster(const struct ft_scenario *sc, const char *arg, struct ft_cluster_spec *out,
                        struct ft_error *err)
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
packet_key(struct ld *l, const char *path, const char *key, yaml_node_t *k, yaml_node_t *v,
           void *obj)
{
	struct ft_packet_cfg *pc = &((struct ft_scenario *)obj)->packet;
	uint64_t sz;
	int rc;

	if (strcmp(key, "mtu") == 0) {
		rc = get_size(l, v, path, &sz);
		if (rc == 0 && (sz < 64 || sz > 9000))
			rc = fail(l, v, FT_ERANGE, path, "expected 64 to 9000 bytes, got %s",
			          scalar(v));
		pc->mtu_bytes = (uint32_t)sz;
		return rc;
	}
	if (strcmp(key, "flow_control") == 0) {
		static const char *const names[] = { "auto", "credit", "pfc", "none" };

		rc = want_scalar(l, v, path, "a flow control");
		if (rc < 0)
			return rc;
		for (size_t i = 0; i < FT_ARRAY_SIZE(names); i++)
			if (strcmp(scalar(v), names[i]) == 0) {
				pc->fc = (enum ft_pkt_fc)i;
				return 0;
			}
		return fail(l, v, FT_EPARSE, path, "expected auto, credit, pfc or none, got '%s'",
		            scalar(v));
	}
	if (strcmp(key, "port_buffer") == 0)
		return get_size(l, v, path, &pc->port_buffer_bytes);
	if (strcmp(key, "switch_buffer") == 0)
		return get_size(l, v, path, &pc->switch_buffer_bytes);
	if (strcmp(key, "pfc_xoff") == 0)
		return get_size(l, v, path, &pc->pfc_xoff_bytes);
	if (strcmp(key, "pfc_xon") == 0)
		return get_size(l, v, path, &pc->pfc_xon_bytes);
	if (strcmp(key, "pfc_headroom") == 0)
		return get_size(l, v, path, &pc->pfc_headroom_bytes);
	if (strcmp(key, "store_forward") == 0)
		return get_bool(l, v, path, &pc->store_forward);
	if (strcmp(key, "ib_timeout") == 0)
		return get_u32(l, v, path, 1, 31, &pc->ib_timeout);
	if (strcmp(key, "retransmit_timeout") == 0)
		return get_duration(l, v, path, &pc->rto_s);
	if (strcmp(key, "ber") == 0)
		return get_double(l, v, path, 0, 1e-3, &pc->ber);
	if (strcmp(key, "congestion_control") == 0) {
		static const char *const names[] = { "auto", "none", "dcqcn", "ibcc", "timely" };

		rc = want_scalar(l, v, path, "a congestion control");
		if (rc < 0)
			return rc;
		for (size_t i = 0; i < FT_ARRAY_SIZE(names); i++)
			if (strcmp(scalar(v), names[i]) == 0) {
				pc->cc = (enum ft_pkt_cc)i;
				return 0;
			}
		return fail(l, v, FT_EPARSE, path,
		            "expected auto, none, dcqcn, ibcc or timely, got '%s'", scalar(v));
	}
	if (strcmp(key, "ecn_kmin") == 0)
		return get_size(l, v, path, &pc->ecn_kmin_bytes);
	if (strcmp(key, "ecn_kmax") == 0)
		return get_size(l, v, path, &pc->ecn_kmax_bytes);
	if (strcmp(key, "ecn_pmax") == 0)
		return get_double(l, v, path, 0.001, 1, &pc->ecn_pmax);
	if (strcmp(key, "min_time_between_cnps") == 0)
		return get_duration(l, v, path, &pc->cnp_interval_s);
	if (strcmp(key, "rpg_time_reset") == 0)
		return get_duration(l, v, path, &pc->dcqcn_timer_s);
	if (strcmp(key, "rpg_byte_reset") == 0)
		return get_size(l, v, path, &pc->dcqcn_byte_counter);
	if (strcmp(key, "rpg_ai_rate") == 0)
		return get_double(l, v, path, 1e3, 1e12, &pc->dcqcn_ai_bps);
	if (strcmp(key, "rpg_hai_rate") == 0)
		return get_double(l, v, path, 1e3, 1e12, &pc->dcqcn_hai_bps);
	if (strcmp(key, "rpg_min_dec_fac") == 0)
		return get_double(l, v, path, 0.01, 0.99, &pc->dcqcn_min_dec);
	if (strcmp(key, "dcqcn_g") == 0)
		return get_double(l, v, path, 1e-6, 0.5, &pc->dcqcn_g);
	if (strcmp(key, "pfc_watchdog") == 0)
		return get_duration(l, v, path, &pc->pfc_watchdog_s);
	if (strcmp(key, "ccti_timer") == 0)
		return get_duration(l, v, path, &pc->ccti_timer_s);
	if (strcmp(key, "ccti_increase") == 0)
		return get_u32(l, v, path, 1, 255, &pc->ccti_increase);
	if (strcmp(key, "ccti_limit") == 0)
		return get_u32(l, v, path, 1, 16383, &pc->ccti_limit);
	if (strcmp(key, "ibcc_threshold") == 0)
		return get_size(l, v, path, &pc->ibcc_threshold_bytes);
	if (strcmp(key, "ibcc_marking_rate") == 0)
		return get_u32(l, v, path, 1, 65535, &pc->ibcc_marking_rate);
	return unknown(l, k, path,
	               "mtu, flow_control, port_buffer, switch_buffer, pfc_xoff, pfc_xon, "
	               "pfc_headroom, store_forward, ib_timeout, retransmit_timeout, ber, "
	               "congestion_control, ecn_kmin, ecn_kmax, ecn_pmax, "
	               "min_time_between_cnps, rpg_time_reset, rpg_byte_reset, rpg_ai_rate, "
	               "rpg_hai_rate, rpg_min_dec_fac, dcqcn_g, ccti_timer, ccti_increase, "
	               "ccti_limit, ibcc_threshold, ibcc_marking_rate, pfc_watchdog");
}

/* ---- top level ----------------------------------------------------------------- */

static int
top_key(struct ld *l, const char *path, const char *key, yaml_node_t *k, yaml_node_t *v, void *obj)
{
	struct ft_scenario *sc = l->sc;
	int rc;

	FT_UNUSED(obj);
	if (strcmp(key, "name") == 0)
		return get_str(l, v, path, sc->name, sizeof(sc->name));
	if (strcmp(key, "description") == 0)
		return get_str(l, v, path, sc->description, sizeof(sc->description));
	if (strcmp(key, "seed") == 0)
		return get_u64(l, v, path, &sc->seed);
	if (strcmp(key, "cluster") == 0 || strcmp(key, "fabric") == 0)
		return 0; /* loaded first / after the cluster */
	if (strcmp(key, "engine") == 0) {
		rc = get_str(l, v, path, sc->engine, sizeof(sc->engine));
		if (rc == 0 && !ft_sim_engine_find(sc->engine))
			rc = fail(l, v, FT_EPARSE, path,
			          "expected analytic, flow, ideal or packet, got '%s'", sc->engine);
		return rc;
	}
	if (strcmp(key, "routing") == 0) {
		rc = want_scalar(l, v, path, "a routing");
		if (rc < 0)
			return rc;
		/* Whether it fits the fabric is checked when the cluster is known (run.c). */
		if (ft_routing_from_name(scalar(v), &sc->routing) < 0)
			return fail(l, v, FT_EPARSE, path,
			            "expected ecmp, dmodk, adaptive, minimal, valiant or dor, "
			            "got '%s'",
			            scalar(v));
		sc->has_routing = true;
		return 0;
	}
	if (strcmp(key, "qps_per_connection") == 0)
		return get_u32(l, v, path, 1, 64, &sc->qps_per_conn);
	if (strcmp(key, "flowlet") == 0)
		return get_size(l, v, path, &sc->flowlet_bytes);
	if (strcmp(key, "fabric_scale") == 0)
		return get_double(l, v, path, 0.001, 1000, &sc->fabric_scale);
	if (strcmp(key, "packet") == 0)
		return each_key(l, v, "packet", packet_key, sc);
	if (strcmp(key, "jobs") == 0)
		return load_jobs(l, v);
	if (strcmp(key, "background") == 0)
		return load_list(l, v, "background", bg_key, sizeof(struct sc_background),
		                 &sc->background, bg_defaults, bg_check);
	if (strcmp(key, "faults") == 0)
		return load_list(l, v, "faults", fault_key, sizeof(struct sc_fault), &sc->faults,
		                 fault_defaults, fault_check);
	return unknown(l, k, path,
	               "name, description, seed, cluster, fabric, engine, routing, "
	               "qps_per_connection, flowlet, fabric_scale, packet, jobs, background, faults");
}

static yaml_node_t *
find_key(struct ld *l, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *p;

	if (map->type != YAML_MAPPING_NODE)
		return NULL;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(l, p->key);

		if (k && k->type == YAML_SCALAR_NODE && strcmp(scalar(k), key) == 0)
			return node(l, p->value);
	}
	return NULL;
}

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
	return sc;
}

static int
load_doc(struct ld *l, yaml_node_t *root)
{
	struct ft_scenario *sc = l->sc;
	yaml_node_t *cl, *fab;
	int rc;

	if (!root || root->type != YAML_MAPPING_NODE)
		return fail(l, root, FT_EPARSE, "scenario", "expected a mapping at the top, got %s",
		            root ? shown(root) : "nothing");
	cl = find_key(l, root, "cluster");
	if (!cl)
		return fail(l, root, FT_EPARSE, "cluster",
		            "missing (a preset like dgx-h100:64, "
		            "a spec file or an inline spec)");
	fab = find_key(l, root, "fabric");
	rc = load_cluster(l, cl, fab != NULL);
	if (rc < 0)
		return rc;
	if (fab) {
		rc = each_key(l, fab, "fabric", fabric_key, sc);
		if (rc == 0)
			apply_fabric(sc, &sc->spec.fabric);
		if (rc == 0 && sc->spec.fabric.kind == FT_FABRIC_NONE)
			rc = fail(l, fab, FT_EINVAL, "fabric",
			          "the cluster has no fabric to change "
			          "(give a node count: preset:NODES)");
		if (rc == 0 && (rc = ft_spec_validate(&sc->spec, l->err)) < 0)
			ft_error_prefix(l->err, "%s:%zu:%zu: fabric: ", l->file,
			                fab->start_mark.line + 1, fab->start_mark.column + 1);
		if (rc < 0)
			return rc;
	}
	rc = each_key(l, root, "", top_key, NULL);
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
		return fail(l, root, FT_EPARSE, "jobs",
		            "a scenario needs jobs or background traffic");
	return 0;
}

int
ft_scenario_load_buffer(const char *text, size_t len, const char *file, struct ft_scenario **out,
                        struct ft_error *err)
{
	yaml_parser_t parser;
	struct ld l = { .file = file ? file : "<scenario>", .text = text, .len = len, .err = err };
	int rc;

	*out = NULL;
	rc = ft_spec_yaml_check(text, len, l.file, err); /* depth, alias bombs */
	if (rc < 0)
		return rc;
	l.sc = scenario_new(l.file);
	if (!l.sc)
		return ft_error_set(err, FT_ENOMEM, "out of memory");
	if (!yaml_parser_initialize(&parser)) {
		ft_scenario_free(l.sc);
		return ft_error_set(err, FT_ENOMEM, "out of memory");
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &l.doc)) {
		rc = ft_error_set(err, FT_EPARSE, "%s:%zu:%zu: %s", l.file,
		                  parser.problem_mark.line + 1, parser.problem_mark.column + 1,
		                  parser.problem ? parser.problem : "malformed YAML");
		yaml_parser_delete(&parser);
		ft_scenario_free(l.sc);
		return rc;
	}
	rc = load_doc(&l, yaml_document_get_root_node(&l.doc));
	yaml_document_delete(&l.doc);
	yaml_parser_delete(&parser);
	if (rc < 0) {
		ft_scenario_free(l.sc);
		return rc;
	}
	*out = l.sc;
	return 0;
}

int
ft_scenario_load_file(const char *path, struct ft_scenario **out, struct ft_error *err)
{
	struct ft_strbuf sb;
	int rc;

	*out = NULL;
	ft_strbuf_init(&sb);
	rc = ft_strbuf_read_file(&sb, path, err);
	if (rc == 0)
		rc = ft_scenario_load_buffer(sb.buf, sb.len, path, out, err);
	ft_strbuf_release(&sb);
	return rc;
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

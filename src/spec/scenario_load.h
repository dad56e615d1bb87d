/* SPDX-License-Identifier: MIT */
/*
 * spec/scenario_load.h - what the scenario loader's files share: the loader
 * state behind the document reader, the list reader every section uses, and
 * the section readers spec/scenario.c's top-level table names. Internal to
 * spec/scenario*.c: spec/scenario.c (top level, cluster, entry points),
 * spec/scenario_jobs.c (jobs, background traffic, faults), spec/scenario_pkt.c
 * (the packet: block).
 */
#ifndef FT_SPEC_SCENARIO_LOAD_H
#define FT_SPEC_SCENARIO_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include <yaml.h>

#include "spec/doc.h"
#include "spec/scenario.h"

struct ld {
	struct ft__doc d; /* first: callbacks get &l->d */
	const char *text;
	size_t len;
	struct ft_scenario *sc;
	size_t nops; /* operations loaded so far, all jobs: at most FT_SCENARIO_MAX_OPS */
};

/*
 * The operations one scenario may hold, all jobs together (each may repeat up
 * to 1,000,000 times): a cap on what a small file can make the twin do, with
 * the YAML alias limit (ft_spec_yaml_check) in front of it.
 */
#define FT_SCENARIO_MAX_OPS 100000

static inline struct ld *
ld_of(struct ft__doc *d)
{
	return (struct ld *)(void *)d; /* d is the first member */
}

/* A scalar's text, or NULL after an "expected @what" error. */
const char *ft__scenario_text_of(struct ft__doc *d, yaml_node_t *v, const char *path,
                                 const char *what);

/*
 * Each element of list @seq under @name: a mapping read by @fields into an
 * element of @elem bytes that @init prepares; @check sees it with the keys
 * given, then it is pushed on @out.
 */
typedef void ft__scenario_elem_init_fn(void *obj, const yaml_node_t *n, size_t i);
typedef int ft__scenario_elem_check_fn(struct ld *l, const char *path, yaml_node_t *n, void *obj,
                                       uint64_t seen);
int ft__scenario_load_list(struct ld *l, yaml_node_t *seq, const char *name,
                           const struct ft__doc_field *fields, size_t nfields, size_t elem,
                           struct ft_vec *out, ft__scenario_elem_init_fn *init,
                           ft__scenario_elem_check_fn *check);

/* Free what a job holds (its ops and explicit GPUs), not the job. */
void ft__scenario_job_release(struct sc_job *j);

/* The section readers (FT__DOC_FN callbacks of the top-level table). */
int ft__scenario_read_jobs(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj);
int ft__scenario_read_background(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj);
int ft__scenario_read_faults(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj);
int ft__scenario_read_packet(struct ft__doc *d, yaml_node_t *v, const char *path, void *obj);

#endif

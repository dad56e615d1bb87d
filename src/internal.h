/* SPDX-License-Identifier: MIT */
/*
 * internal.h - project-internal base: configuration, compiler helpers and the
 * banned-function list. Every .c file of the library includes it first.
 */
#ifndef FT_INTERNAL_H
#define FT_INTERNAL_H

#include "ft_config.h"

/*
 * The C library headers come before banned.h, which redefines some of their
 * names (git's git-compat-util.h does the same).
 */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <fabtune/base.h>
#include <fabtune/error.h>

#ifdef NDEBUG
#define FT_ALWAYS(x) (x)
#define FT_NEVER(x)  (x)
#else
#define FT_ALWAYS(x) ((x) ? 1 : (assert(0), 0))
#define FT_NEVER(x)  ((x) ? (assert(0), 1) : 0)
#endif

#define FT_UNUSED(x) ((void)(x))

/*
 * The name table of an enum kept as an X-macro map (FT_<THING>_MAP(X) calls
 * X(enumerator, "name") once a value, in order): @arr[i] is the name of
 * value i, and the build stops where the map and @count disagree.
 */
/* Index of @name in @names[0, @n), -1 when absent (base/names.c). */
int ft__name_index(const char *const *names, size_t n, const char *name);

/*
 * A clock (CLOCK_MONOTONIC for intervals, CLOCK_REALTIME for dates) in
 * seconds: behind ft_now_s(), ft_wall_s() and the benchmarks' ft__now().
 */
static inline double
ft__clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define FT__NAME_OF_(n, s) s,
#define FT__NAME_TABLE(arr, map, count)                                                  \
	static const char *const arr[] = { map(FT__NAME_OF_) };                          \
	_Static_assert(FT_ARRAY_SIZE(arr) == (count), #arr " against " #count)

/*
 * Load one YAML/JSON document from @text for a loader: the depth and alias
 * limits first (ft_spec_yaml_check), then libyaml's tree in @doc, which the
 * caller deletes with yaml_document_delete(). A syntax error names
 * @file:line:column. The one way every document reader starts
 * (spec/yaml_limits.c).
 */
struct yaml_document_s;
int ft__yaml_load(const char *text, size_t len, const char *file, struct yaml_document_s *doc,
                  struct ft_error *err);

/* ft_free() every pointer a vector of pointers holds, then release it (base/vec.c). */
void ft__vec_release_ptrs(struct ft_vec *v);

#include "banned.h"

#endif

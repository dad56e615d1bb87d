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
 * The names a reader takes from the user for an enum (base/names.c): the
 * enum's name table (@names[i] names value i, @count entries), other
 * spellings in @aliases (squashed as below, NULL-terminated, or NULL), and
 * how many values a reader accepts, 0 .. @naccept - 1 (0: all of them).
 * Names match without regard to case, '_', '-' and spaces, so "All_Reduce",
 * "allreduce" and "all-reduce" meet.
 */
struct ft__name_alias {
	const char *name; /* squashed: lower case, no '_', '-' or spaces */
	int value;
};

struct ft__name_set {
	const char *const *names;
	size_t count;
	size_t naccept;
	const struct ft__name_alias *aliases;
};

/* The value @s names in @set, whether accepted or not; FT_EINVAL when none. */
int ft__name_lookup(const struct ft__name_set *set, const char *s, int *out);
/* "expected [auto, ]a, b or c" (the first @n of @names) into @buf. */
void ft__names_expected(const char *const *names, size_t n, bool with_auto, char *buf, size_t len);
/*
 * The one reader of a name the user gives: @s as an accepted value of @set
 * into *@out, or "auto" as @auto_value where that is >= 0. Anything else is
 * FT_EINVAL with "@label: expected auto, a, b or c, got '@s'" in @err, the
 * accepted names in table order (no "@label: " when @label is NULL).
 */
int ft__name_read(const struct ft__name_set *set, const char *label, const char *s, int auto_value,
                  int *out, struct ft_error *err);

/*
 * A function on a benchmark's per-message path: GCC places every such
 * function in .text.hot, which the linker gathers into one run of pages,
 * so that a message's code spans two or three pages instead of one page
 * per source file. Where each switch between two processes empties the
 * TLB (x86 without PCID, common in VMs), every page a round trip touches
 * is walked again after every switch; a ping-pong of two ranks sharing a
 * core switches twice a round trip (docs/internals/bench-log.md, "tcp
 * ping-pong: the footprint between the calls").
 */
#define FT__HOT __attribute__((hot))

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

/*
 * The name table of an enum kept as an X-macro map (FT_<THING>_MAP(X) calls
 * X(enumerator, "name") once a value, in order): @arr[i] is the name of
 * value i, and the build stops where the map and @count disagree.
 */
#define FT__NAME_OF_(n, s) s,
#define FT__NAME_TABLE(arr, map, count)                                                  \
	static const char *const arr[] = { map(FT__NAME_OF_) };                          \
	_Static_assert(FT_ARRAY_SIZE(arr) == (count), #arr " against " #count)

/*
 * Define `const char *fn(type v)`, the name of value @v of an enum in the
 * name table @arr of @count entries, "?" for a value out of range.
 */
#define FT__NAME_GETTER(fn, type, arr, count)                  \
	const char *fn(type v)                                 \
	{                                                      \
		return (unsigned)v < (count) ? (arr)[v] : "?"; \
	}

/*
 * Define the name set @set over the name table @arr: every name accepted,
 * no aliases. Every table of names a user may give is one of these (or a
 * set written out for aliases or a narrower accepted prefix), read by
 * ft__name_read() and looked up by ft__name_lookup(); tests/unit/test_base.c
 * round-trips every one.
 */
#define FT__NAME_SET(set, arr) const struct ft__name_set set = { arr, FT_ARRAY_SIZE(arr), 0, NULL }

/*
 * Define `int fn(const char *name, type *out)`: the value @name spells in
 * the name set @set (ft__name_lookup: case, '_', '-' and spaces aside), or
 * @code (a negative FT_E*) for a name it does not hold.
 */
#define FT__FROM_NAME(fn, type, set, code)                  \
	int fn(const char *name, type *out)                 \
	{                                                   \
		int v_;                                     \
		if (ft__name_lookup(&(set), name, &v_) < 0) \
			return (code);                      \
		*out = (type)v_;                            \
		return 0;                                   \
	}

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

/*
 * Read file @path with the bounded reader (ft_strbuf_read_file) and hand its
 * text, its length and @path to @fn with @ctx: @fn's answer, or the reader's
 * error. The one way a loader's _load_file() calls its _load_buffer()
 * (base/file.c).
 */
typedef int ft__text_fn(const char *text, size_t len, const char *path, void *ctx,
                        struct ft_error *err);
int ft__with_file_text(const char *path, ft__text_fn *fn, void *ctx, struct ft_error *err);

/*
 * Release what a struct owns from a table of its members, walked in order:
 * the @n heap blocks of @blocks (ft_free; NULL ones skipped) and the @n
 * vectors of @vecs (ft_vec_release). base/alloc.c and base/vec.c.
 */
void ft__free_all(void *const *blocks, size_t n);
void ft__vec_release_all(struct ft_vec *const *vecs, size_t n);

/*
 * ft_malloc() of @size bytes whose address is a multiple of @align (a power
 * of two, at least sizeof(void *)); released by ft_free(). An injected
 * failure (FT_FAULT_ALLOC) fails it as it fails ft_malloc(). base/alloc.c.
 */
void *ft__malloc_aligned(size_t align, size_t size);

/*
 * Sort the @n doubles of @v ascending (NaN-free input), and the median of
 * @v: sorted in place, the middle value or the mean of the two middle ones;
 * NAN when @n is 0 (base/stats.c).
 */
void ft__sort_doubles(double *v, size_t n);
double ft__median(double *v, size_t n);
/*
 * The t with P(|T| <= t) = @coverage for Student's t with @df degrees of
 * freedom (4.303 for 0.95 and 2; 1.960 as df grows); NAN for a coverage
 * outside (0, 1) or df 0 (base/stats.c).
 */
double ft__t_two_sided(double coverage, unsigned df);

/*
 * The tokens both JSON readers share (base/jsontok.c): the value of the four
 * hex digits of a \u escape at @p (after its "\u"), -1 where there are not
 * four; code point @cp as UTF-8 into @out, its length (1-4); the end of
 * the number at @p by RFC 8259's grammar
 * (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?) with @why NULL, or where a
 * digit was missing, or past FT__JSON_NUM_MAX bytes, with @why saying which.
 */
long ft__json_hex4(const char *p, const char *end);
size_t ft__utf8_encode(uint32_t cp, char out[4]);
const char *ft__json_number_end(const char *p, const char *end, const char **why);
/* The longest number either JSON reader takes, in bytes as written (a buffer
   of FT__JSON_NUM_MAX + 1 holds it with its NUL). */
#define FT__JSON_NUM_MAX 1023
/* ft__json_number_end()'s @why for a number longer than FT__JSON_NUM_MAX. */
extern const char ft__json_num_too_long[];

/* ft_free() every pointer a vector of pointers holds, then release it (base/vec.c). */
void ft__vec_release_ptrs(struct ft_vec *v);

/*
 * ECMP's choice at vertex @s among @n equal-cost links (topo/route.c): the
 * index ft__route_ecmp_index(flow_hash, ft__route_switch_salt(salt_seed, s), n).
 * The flow engine's route memo keeps the salts and walks the fabric with them.
 */
uint64_t ft__route_switch_salt(uint64_t seed, uint32_t s);
uint32_t ft__route_ecmp_index(uint64_t flow_hash, uint64_t salt, uint32_t n);
/*
 * InfiniBand under ECMP: a switch forwards by its linear forwarding table, indexed by the
 * packet's destination LID alone (kb IB-SM; NVIDIA/nccl v2.27.7-1 src/transport/net_ib.cc
 * ncclIbRtrQp() addresses the peer by its port's LID, ah_attr.dlid, no path bits: LMC 0).
 * ft__route_by_dlid() says whether @t's fabric is such (ft__topo_fabric_tech() is
 * FT_TECH_IB); there a switch's ECMP index takes ft__route_dlid_hash(NIC vertex the path
 * enters its destination by) for the flow hash, so every QP and every source to that port
 * leaves a switch by one port: a static LFT drawn by hash, not balanced as minhop or updn
 * balance theirs (counting the LIDs on each port, kb IB-SM).
 */
struct ft_topo;
bool ft__route_by_dlid(const struct ft_topo *t);
uint64_t ft__route_dlid_hash(uint32_t nic);
/* The technology of @spec's fabric (enum ft_tech): its fabric.link preset's, else its NICs'
 * (node.nic_link); -1 when neither names a preset. */
struct ft_cluster_spec;
int ft__topo_fabric_tech(const struct ft_cluster_spec *spec);
/* Why routing minhop (OpenSM's LFTs, topo/route.c) does not apply to @spec's fabric: NULL
 * where it does (an InfiniBand fat tree, rail-optimized or multi-plane), else the reason
 * in words (a constant string), for an error that names the field. */
const char *ft__route_minhop_unfit(const struct ft_cluster_spec *spec);

/*
 * Node @r's parent in tree @t (0 or 1) of NCCL's double binary tree over @n
 * nodes (src/graph/trees.cc, ncclGetDtree; kb NA-ALGO-TREE): tree 0 the
 * binary tree (ncclGetBtree), tree 1 the same shifted by one node when @n is
 * odd, mirrored when it is even. -1 for a root; @second says whether @r is
 * its parent's second child, as NCCL's parentChildType. The model's tree
 * hops and the flow engine's tree flows both take it (model/dtree.c).
 */
int ft__dtree_parent(uint32_t n, uint32_t t, uint32_t r, bool *second);

#include "banned.h"

#endif

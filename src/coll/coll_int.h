/* SPDX-License-Identifier: MIT */
/*
 * coll/coll_int.h - what the files of the coll module share.
 */
#ifndef FT_COLL_INT_H
#define FT_COLL_INT_H

#include "internal.h"

#include <fabtune/coll.h>

/* @a * @num / @den without overflow for a < 2^63, num, den < 2^32. */
static inline uint64_t
ft__coll_muldiv(uint64_t a, uint64_t num, uint64_t den)
{
	return (a / den) * num + ((a % den) * num) / den;
}

/*
 * Check a collective choice, for the schedules and the model's queries: @op
 * known and one the twin computes, @algo and @proto (when not NULL) known.
 * Errors start with @where ("schedule: ") and name @who does the computing
 * ("the model computes"). coll/schedule.c.
 */
int ft__coll_check_choice(enum ft_op op, const enum ft_algo *algo, const enum ft_proto *proto,
                          const char *where, const char *who, struct ft_error *err);

#endif

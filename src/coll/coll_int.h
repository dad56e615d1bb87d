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

#endif

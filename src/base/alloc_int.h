/* SPDX-License-Identifier: MIT */
/*
 * base/alloc_int.h - the allocation failure injector, for tests only.
 *
 * FT_FAULT_ALLOC=N in the environment fails the Nth allocation of a whole
 * process. An out-of-memory sweep needs more: fail the nth allocation of one
 * call, for n = 1, 2, ... until the call no longer reaches an nth allocation
 * (tests/unit/test_oom.c). These two functions give that, within one process.
 * Not thread-aware: a sweep runs single-threaded code.
 */
#ifndef FT_BASE_ALLOC_INT_H
#define FT_BASE_ALLOC_INT_H

#include <stdbool.h>

/* Make the @n-th ft_malloc/ft_calloc/ft_reallocarray/ft__malloc_aligned from now fail
   (n >= 1), once; n = 0 turns the injector off. Overrides FT_FAULT_ALLOC. */
void ft__alloc_fail_at(unsigned long n);
/* Whether the failure armed by the last ft__alloc_fail_at() has happened. */
bool ft__alloc_failed(void);

#endif

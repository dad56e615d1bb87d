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

#include "banned.h"

#endif

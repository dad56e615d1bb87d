/* SPDX-License-Identifier: MIT */
/*
 * base/alloc.c - the allocator every module uses.
 *
 * Overflow-checked wrappers over the C allocator. FT_FAULT_ALLOC=N in the
 * environment makes the Nth allocation (1-based) fail, for tests that sweep
 * out-of-memory paths (curl's torture mode); ft__alloc_fail_at() does the
 * same from inside a test, once per call under test (alloc_int.h).
 */
#include "internal.h"

#include "alloc_int.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_long fault_countdown = -2; /* -2: not read yet, -1: off */
static atomic_bool fault_fired;

static bool
should_fail(void)
{
	long v = atomic_load(&fault_countdown);

	if (v == -2) {
		const char *e = getenv("FT_FAULT_ALLOC");
		uint64_t n = 0;

		v = (e && ft_parse_u64(e, &n) == 0 && n > 0) ? (long)n : -1;
		atomic_store(&fault_countdown, v);
	}
	if (v < 0)
		return false;
	if (atomic_fetch_sub(&fault_countdown, 1) != 1)
		return false;
	atomic_store(&fault_fired, true);
	return true;
}

void
ft__alloc_fail_at(unsigned long n)
{
	atomic_store(&fault_fired, false);
	atomic_store(&fault_countdown, n > 0 && n <= LONG_MAX ? (long)n : -1);
}

bool
ft__alloc_failed(void)
{
	return atomic_load(&fault_fired);
}

void *
ft_malloc(size_t size)
{
	if (should_fail())
		return NULL;
	return malloc(size ? size : 1);
}

void *
ft__malloc_aligned(size_t align, size_t size)
{
	void *p = NULL;

	if (should_fail())
		return NULL;
	return posix_memalign(&p, align, size ? size : 1) == 0 ? p : NULL;
}

void *
ft_calloc(size_t n, size_t size)
{
	if (should_fail())
		return NULL;
	if (n == 0 || size == 0)
		return calloc(1, 1);
	return calloc(n, size);
}

void *
ft_reallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	if (should_fail())
		return NULL;
	return realloc(p, (n && size) ? n * size : 1);
}

void
ft_free(void *p)
{
	free(p);
}

char *
ft_strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = ft_malloc(len + 1);

	if (!d)
		return NULL;
	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

char *
ft_strdup(const char *s)
{
	return ft_strndup(s, SIZE_MAX);
}

size_t
ft_strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;
		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

void
ft__free_all(void *const *blocks, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ft_free(blocks[i]);
}

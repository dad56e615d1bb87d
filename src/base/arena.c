/* SPDX-License-Identifier: MIT */
/*
 * base/arena.c - chained-block bump allocator for phase-shaped lifetimes.
 *
 * With -Darena_debug=true every allocation is its own block, so sanitizers
 * see overflows between objects.
 */
#include "internal.h"

#include <string.h>

struct ft_arena_block {
	struct ft_arena_block *next;
	size_t size; /* usable bytes in data[] */
	size_t used;
	_Alignas(max_align_t) unsigned char data[];
};

void
ft_arena_init(struct ft_arena *a, size_t block_bytes)
{
	a->head = NULL;
	a->block_bytes = block_bytes ? block_bytes : 64 * 1024;
	a->used_bytes = 0;
}

static struct ft_arena_block *
new_block(struct ft_arena *a, size_t min_bytes)
{
	size_t size = FT_ARENA_DEBUG ? min_bytes : FT_MAX(a->block_bytes, min_bytes);
	struct ft_arena_block *b;

	if (size > SIZE_MAX - sizeof(*b))
		return NULL;
	b = ft_malloc(sizeof(*b) + size);
	if (!b)
		return NULL;
	b->next = a->head;
	b->size = size;
	b->used = 0;
	a->head = b;
	return b;
}

void *
ft_arena_alloc(struct ft_arena *a, size_t size, size_t align)
{
	struct ft_arena_block *b = a->head;
	size_t off;

	if (align == 0 || (align & (align - 1)))
		align = _Alignof(max_align_t);
	if (b) {
		off = (b->used + align - 1) & ~(align - 1);
		if (off <= b->size && size <= b->size - off && !FT_ARENA_DEBUG)
			goto found;
	}
	if (size > SIZE_MAX - align)
		return NULL;
	b = new_block(a, size + align);
	if (!b)
		return NULL;
	off = 0;
found:
	b->used = off + size;
	a->used_bytes += size;
	memset(b->data + off, 0, size);
	return b->data + off;
}

char *
ft_arena_strdup(struct ft_arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = ft_arena_alloc(a, n, 1);

	if (d)
		memcpy(d, s, n);
	return d;
}

void
ft_arena_release(struct ft_arena *a)
{
	struct ft_arena_block *b = a->head;

	while (b) {
		struct ft_arena_block *next = b->next;
		ft_free(b);
		b = next;
	}
	a->head = NULL;
	a->used_bytes = 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * base/vec.c - growing arrays of fixed-size elements.
 */
#include "internal.h"

#include <string.h>

void
ft_vec_init(struct ft_vec *v, size_t elem_size)
{
	v->data = NULL;
	v->len = 0;
	v->cap = 0;
	v->elem_size = elem_size;
}

int
ft_vec_reserve(struct ft_vec *v, size_t n)
{
	size_t want, cap;
	void *p;

	if (n > SIZE_MAX - v->len)
		return FT_ENOMEM;
	want = v->len + n;
	if (want <= v->cap)
		return 0;
	cap = v->cap ? v->cap : 8;
	while (cap < want)
		cap = cap > SIZE_MAX / 2 ? want : cap * 2;
	p = ft_reallocarray(v->data, cap, v->elem_size);
	if (!p)
		return FT_ENOMEM;
	v->data = p;
	v->cap = cap;
	return 0;
}

int
ft_vec_push(struct ft_vec *v, const void *elem)
{
	void *dst;

	if (ft_vec_reserve(v, 1) < 0)
		return FT_ENOMEM;
	dst = (char *)v->data + v->len * v->elem_size;
	if (elem)
		memcpy(dst, elem, v->elem_size);
	else
		memset(dst, 0, v->elem_size);
	v->len++;
	return 0;
}

void
ft_vec_release(struct ft_vec *v)
{
	ft_free(v->data);
	v->data = NULL;
	v->len = 0;
	v->cap = 0;
}

void
ft__vec_release_all(struct ft_vec *const *vecs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ft_vec_release(vecs[i]);
}

void
ft__vec_release_ptrs(struct ft_vec *v)
{
	size_t i;

	for (i = 0; i < v->len; i++)
		ft_free(FT_VEC_AT(v, void *, i));
	ft_vec_release(v);
}

/* SPDX-License-Identifier: MIT */
/*
 * base/recset_int.h - the shape shared by the sets of records that carry
 * observations (struct ft_obs_set, ft_findings, ft_advice_set): the records
 * in a vector @v and a pool @files owning the source file names that their
 * observations point to (base/result.c).
 */
#ifndef FT_BASE_RECSET_INT_H
#define FT_BASE_RECSET_INT_H

#include <stddef.h>

#include <fabtune/base.h>
#include <fabtune/obs.h>

/* An empty set of records of @elem_size bytes. */
void ft__recset_init(struct ft_vec *v, struct ft_strpool *files, size_t elem_size);
void ft__recset_release(struct ft_vec *v, struct ft_strpool *files);

/*
 * Append a copy of @rec (@v's element size) whose @nobs observations, an
 * array at byte offset @obs_off in the record, get their file names from
 * @files. 0, or FT_ENOMEM with the set as before.
 */
int ft__recset_add(struct ft_vec *v, struct ft_strpool *files, const void *rec, size_t obs_off,
                   size_t nobs) FT_MUST_CHECK;

/*
 * The public init and release of a record set: @name_##_init() and
 * @name_##_release() on @set_ (with members v and files) of @elem_ records.
 */
#define FT__RECSET_DEFINE(name_, set_, elem_)                                              \
	void name_##_init(set_ *s)                                                         \
	{                                                                                  \
		ft__recset_init(&s->v, &s->files, sizeof(elem_));                          \
	}                                                                                  \
	void name_##_release(set_ *s)                                                      \
	{                                                                                  \
		ft__recset_release(&s->v, &s->files);                                      \
	}

#endif

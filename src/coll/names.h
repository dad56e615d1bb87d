/* SPDX-License-Identifier: MIT */
/*
 * coll/names.h - the name sets of operations, algorithms and protocols, for
 * the readers of what a user asks (sim and model options, scenario keys):
 * ft__name_read() over one of these takes the spellings ft_*_from_name()
 * takes and, on a name it does not know, lists the ones it does. Defined
 * once, in coll/names.c, from the enums' X-macro maps.
 */
#ifndef FT_COLL_NAMES_H
#define FT_COLL_NAMES_H

#include "internal.h"

/* Every operation (bench's included) and the seven the twin models (ft_op_is_modelled). */
extern const struct ft__name_set ft__coll_ops;
extern const struct ft__name_set ft__coll_modelled_ops;
extern const struct ft__name_set ft__coll_algos;
extern const struct ft__name_set ft__coll_protos;

/*
 * --channels as given, into @out: FT_SPEC_CHANNELS_UNSET leaves the default (0); else 1
 * to NCCL's MAXCHANNELS (kb ENV-NCHANNELS), or FT_EINVAL naming the option and the range.
 */
int ft__channels_read(uint64_t given, uint32_t *out, struct ft_error *err);

#endif

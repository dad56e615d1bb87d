/* SPDX-License-Identifier: MIT */
/*
 * parse/dotted.h - the "Name:........value" lines and "# ... Lid N port P"
 * headers of the infiniband-diags MAD tools (perfquery, ibportstate).
 */
#ifndef FT_PARSE_DOTTED_H
#define FT_PARSE_DOTTED_H

#include "parse_int.h"

/* Split "Name:....value"; false when the line has no such shape. */
static inline bool
ft__dotted(struct ft__span s, struct ft__span *name, struct ft__span *val)
{
	const char *colon = s.n ? memchr(s.p, ':', s.n) : NULL;
	size_t i;

	if (!colon || colon == s.p)
		return false;
	name->p = s.p;
	name->n = (size_t)(colon - s.p);
	for (i = 0; i < name->n; i++)
		if (ft__is_space(name->p[i]))
			return false;
	i = (size_t)(colon - s.p) + 1;
	while (i < s.n && s.p[i] == '.')
		i++;
	*val = ft__trim(ft__skip(s, i));
	return true;
}

/* "# Port counters: Lid 21 port 1 (CapMask: ..." -> device "LID 21", port 1. */
static inline bool
ft__lid_header(struct ft__pctx *c, struct ft__span s)
{
	const char *lid = ft__find(s, "Lid ");
	struct ft__span rest, tok;
	uint64_t u;

	if (!ft__starts(s, "# ") || !lid)
		return false;
	rest = ft__skip(s, (size_t)(lid - s.p) + 4);
	if (!ft__token(&rest, &tok) || !ft__u64(tok, &u))
		return false;
	snprintf(c->device, sizeof(c->device), "LID %" PRIu64, u);
	c->port = -1;
	if (ft__token(&rest, &tok) && ft__eq(tok, "port") && ft__token(&rest, &tok) &&
	    ft__u64(tok, &u) && u < 256)
		c->port = (int)u;
	return true;
}

#endif

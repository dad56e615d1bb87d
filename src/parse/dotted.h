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

/*
 * "# Port counters: Lid 21 port 1 (CapMask: ..." -> device "LID 21", port 1.
 * A port reached by a directed route (ibportstate's "Peer PortInfo:" of a
 * switch port, any tool's -D): libibmad's portid2str() prints "Lid 1 DR path
 * slid 2; dlid 65535; 0,6" (or the path alone, "DR path slid 0; dlid 0;
 * 0,1"), and the port is the one at the path's end: device "LID 1 DR 0,6".
 */
/* "0,6" or "0,1,10,19": libibmad's drpath2str(), the port numbers of each hop */
static inline bool
is_drpath(struct ft__span p)
{
	for (size_t i = 0; i < p.n; i++)
		if (!(ft__is_digit(p.p[i]) || (p.p[i] == ',' && i > 0 && p.p[i - 1] != ',')))
			return false;
	return p.n > 0 && ft__is_digit(p.p[p.n - 1]);
}

static inline bool
ft__lid_header(struct ft__pctx *c, struct ft__span s)
{
	const char *lid = ft__find(s, "Lid ");
	const char *dr = ft__find(s, "DR path ");
	struct ft__span rest, tok, path = FT__NOSTR;
	uint64_t u;
	int n = 0;

	if (!ft__starts(s, "# ") || (!lid && !dr))
		return false;
	if (lid && (!dr || lid < dr)) {
		rest = ft__skip(s, (size_t)(lid - s.p) + 4);
		if (!ft__token(&rest, &tok) || !ft__u64(tok, &u))
			return false;
		n = snprintf(c->device, sizeof(c->device), "LID %" PRIu64, u);
	}
	if (dr) {
		/* the path: the token after the last "; " before " port" */
		const char *semi = NULL;

		rest = ft__skip(s, (size_t)(dr - s.p));
		for (const char *q = rest.p; q + 1 < rest.p + rest.n; q++)
			if (q[0] == ';' && q[1] == ' ')
				semi = q;
		if (!semi)
			return false;
		rest = ft__skip(rest, (size_t)(semi - rest.p) + 2);
		if (!ft__token(&rest, &path) || !is_drpath(path)) {
			/* cut or garbled: no port named, not the one before either */
			c->device[0] = '\0';
			c->port = -1;
			return false;
		}
		snprintf(c->device + n, sizeof(c->device) - (size_t)n, "%sDR %.*s", n ? " " : "",
		         (int)path.n, path.p);
	} else {
		rest = ft__skip(s, (size_t)(lid - s.p) + 4);
		(void)ft__token(&rest, &tok);
	}
	c->port = -1;
	if (ft__token(&rest, &tok) && ft__eq(tok, "port") && ft__token(&rest, &tok) &&
	    ft__u64(tok, &u) && u < 256)
		c->port = (int)u;
	return true;
}

#endif

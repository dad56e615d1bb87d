/* SPDX-License-Identifier: MIT */
/*
 * diag/rules_deadlock.c - a PFC deadlock told from a pause storm: switch
 * ports whose watchdog fired that, followed through LLDP from switch to
 * switch, close a ring.
 *
 * A port whose PFC watchdog detects a storm has been paused without a break:
 * its switch waits on the device behind the port. When that device is a host
 * the usual cause is a hung host or NIC (switch-pfc-storm). When it is
 * another switch whose own stormed port waits on a third, and the chain comes
 * back to the first, the lossless buffers wait on one another in a cycle: a
 * cyclic buffer dependency, which the watchdog breaks by ignoring pauses
 * (and dropping), over and over, rather than a failed device (kb ROCE-PFC:
 * PFC deadlocks need a routing cycle of lossless queues; the watchdog is the
 * safety net, not the fix). The edges come from `show pfcwd stats` (storms
 * per port) and `show lldp table` (who is behind each port), both SONiC.
 */
#include "internal.h"

#include "diag/diag_int.h"

#define DL_MAXSW   256 /* switches followed */
#define DL_MAXRING 16  /* switches named in the finding's evidence */

struct dl_edge {
	const struct ft_obs *storm; /* the stormed port (host = switch, device = port) */
	size_t from, to;            /* switch indexes */
};

struct dl_graph {
	const char *name[DL_MAXSW];
	size_t nsw;
	struct dl_edge e[DL_MAXSW * 4];
	size_t ne;
};

static size_t
sw_index(struct dl_graph *g, const char *name)
{
	size_t i;

	for (i = 0; i < g->nsw; i++)
		if (strcmp(g->name[i], name) == 0)
			return i;
	if (g->nsw == DL_MAXSW)
		return SIZE_MAX;
	g->name[g->nsw] = name;
	return g->nsw++;
}

/* The first edge out of switch @s, or SIZE_MAX. */
static size_t
first_edge(const struct dl_graph *g, size_t s)
{
	size_t i;

	for (i = 0; i < g->ne; i++)
		if (g->e[i].from == s)
			return i;
	return SIZE_MAX;
}

/*
 * A wait-for cycle from switch @s following each switch's first stormed port
 * (in the observations' order: by switch, then port): the edges in @ring, their
 * count returned (0: the chain ends or runs into a cycle not through @s).
 */
static size_t
find_ring(const struct dl_graph *g, size_t s, size_t *ring)
{
	size_t at = s, n = 0;

	while (n < DL_MAXSW) {
		size_t k = first_edge(g, at);

		if (k == SIZE_MAX)
			return 0;
		ring[n++] = k;
		at = g->e[k].to;
		if (at == s)
			return n;
		for (size_t j = 0; j + 1 < n; j++)
			if (g->e[ring[j]].from == at)
				return 0; /* a cycle that does not pass through s */
	}
	return 0;
}

int
ft__diag_eval_pfc_deadlock(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	struct dl_graph *g = ft_calloc(1, sizeof(*g));
	size_t ring[DL_MAXSW], n = 0, i, s;
	int rc = 0;

	if (!g)
		return FT_ENOMEM;
	for (i = 0; i < ft__nobs(c) && g->ne < FT_ARRAY_SIZE(g->e); i++) {
		const struct ft_obs *o = ft__obs(c, i), *peer;
		size_t a, b;

		if (strcmp(o->key, "switch.pfcwd.storms") != 0 || !o->has_num || o->num <= 0 ||
		    !o->host[0])
			continue;
		peer = ft__diag_find_dev(c, "switch.lldp.remote_device", o);
		if (!peer || !peer->str[0])
			continue;
		a = sw_index(g, o->host);
		b = sw_index(g, peer->str);
		if (a == SIZE_MAX || b == SIZE_MAX)
			continue;
		g->e[g->ne++] = (struct dl_edge){ o, a, b };
	}
	for (s = 0; s < g->nsw && n == 0; s++)
		n = find_ring(g, s, ring);
	if (n >= 2) {
		const struct ft_obs *ev[DL_MAXRING];
		struct ft_strbuf path;
		size_t nev = FT_MIN(n, (size_t)DL_MAXRING);

		ft_strbuf_init(&path);
		for (i = 0; i < n; i++) {
			const struct dl_edge *e = &g->e[ring[i]];

			ft_strbuf_addf(&path, "%s (%s) -> ", g->name[e->from], e->storm->device);
			if (i < nev)
				ev[i] = e->storm;
		}
		ft_strbuf_addf(&path, "%s", g->name[g->e[ring[0]].from]);
		if (path.oom) {
			rc = FT_ENOMEM;
		} else {
			rc = ft__diag_emit(c, out, -1, ev, nev,
			                   "PFC watchdog storms on %zu switches that pause one another "
			                   "in a ring: %s; each waits on the next, so the lossless "
			                   "buffers form a cycle (a PFC deadlock that the watchdog "
			                   "breaks by ignoring pauses and dropping), not a hung host",
			                   n, path.buf);
		}
		ft_strbuf_release(&path);
	}
	ft_free(g);
	return rc;
}

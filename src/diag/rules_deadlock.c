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

/* ---- InfiniBand credit loop ---------------------------------------------- */

/*
 * The same cycle on InfiniBand, where credits stand in for pauses (kb IB-FC): a
 * port that has a packet to send and no credit from the buffer at the far end
 * counts PortXmitWait ticks (kb IB-COUNTERS), so a switch port waiting for
 * credits waits on the switch behind it. `ibnetdiscover -p` names what is
 * behind each port (LID, port and node type at the far end), and perfquery
 * names its ports by LID, so the waits give a graph of switch LIDs. Congestion
 * without a loop (incast, tree saturation, ECMP collisions) makes the waits
 * point toward the hot spot, a tree that never closes: on an up/down routed
 * fat-tree no route goes down and up again, so no such cycle can form. When the
 * waits of switch ports close a ring, each switch's buffer waits on the next
 * one's around it: a credit loop (kb IB-SM: minhop and similar engines can
 * create credit loops on topologies with loops; deadlock-free engines such as
 * updn, ftree, lash, dfsssp or torus-2QoS break them, the last two with VLs).
 * Once it deadlocks the ring's PortXmitWait keeps growing while PortXmitData
 * stands still, which two reads of the same ports show.
 */
#define CL_MAXSW 1024

struct cl_edge {
	const struct ft_obs *wait; /* the waiting port's PortXmitWait */
	size_t from, to;           /* switch indexes */
};

struct cl_graph {
	unsigned lid[CL_MAXSW];
	const char *name[CL_MAXSW];
	size_t nsw;
	struct cl_edge e[CL_MAXSW * 8];
	size_t ne;
};

static size_t
cl_index(struct cl_graph *g, unsigned lid, const char *name)
{
	size_t i;

	for (i = 0; i < g->nsw; i++)
		if (g->lid[i] == lid)
			return i;
	if (g->nsw == CL_MAXSW)
		return SIZE_MAX;
	g->lid[g->nsw] = lid;
	g->name[g->nsw] = name;
	return g->nsw++;
}

/* "LID 93" -> 93; 0 when @dev is no LID name. */
static unsigned
lid_of(const char *dev)
{
	char *end;
	unsigned long n;

	if (strncasecmp(dev, "LID ", 4) != 0)
		return 0;
	n = strtoul(dev + 4, &end, 10);
	return *end || n == 0 || n > 0xffff ? 0 : (unsigned)n;
}

/* The far end's LID of the ibnetdiscover link line of @peer ("'name' 12/3"); 0 when none. */
static unsigned
peer_lid(const struct ft_obs *peer)
{
	const char *q = strrchr(peer->str, '\'');
	char *end;
	unsigned long n;

	if (!q || q == peer->str)
		return 0;
	n = strtoul(q + 1, &end, 10);
	return *end == '/' && n > 0 && n <= 0xffff ? (unsigned)n : 0;
}

/* The ibnetdiscover port of switch LID @lid, port @port: its ib.port.lid observation. */
static const struct ft_obs *
ibnd_port(const struct ft_diag_ctx *c, unsigned lid, int port)
{
	const struct ft_obs *o;
	size_t pos = 0;

	while ((o = ft__diag_next(c, "ib.port.lid", &pos)))
		if (o->has_num && (unsigned)o->num == lid && o->port == port)
			return o;
	return NULL;
}

static bool
is_switch(const struct ft_diag_ctx *c, const struct ft_obs *port)
{
	const struct ft_obs *t = ft__diag_find_same(c, "ib.port.node_type", port);

	return t && strcmp(t->str, "SW") == 0;
}

/*
 * Depth-first search for a cycle from @s: @ring gets the edges of the first one
 * found (out-edges taken in the observations' order), its length returned; 0
 * when none passes through @s.
 */
static size_t
cl_cycle(const struct cl_graph *g, size_t s, size_t *ring, unsigned char *seen)
{
	size_t depth = 0, next[CL_MAXSW];
	size_t at = s;

	memset(seen, 0, g->nsw);
	seen[s] = 1;
	next[0] = 0;
	for (;;) {
		size_t k = next[depth];

		while (k < g->ne && g->e[k].from != at)
			k++;
		if (k == g->ne) { /* every edge out of @at tried: back up */
			if (depth == 0)
				return 0;
			depth--;
			at = g->e[ring[depth]].from;
			next[depth] = ring[depth] + 1;
			continue;
		}
		next[depth] = k + 1;
		if (g->e[k].to == s) {
			ring[depth] = k;
			return depth + 1;
		}
		if (seen[g->e[k].to] || depth + 1 >= CL_MAXSW)
			continue;
		seen[g->e[k].to] = 1;
		ring[depth++] = k;
		at = g->e[k].to;
		next[depth] = 0;
	}
}

int
ft__diag_eval_ib_credit_loop(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	struct cl_graph *g = ft_calloc(1, sizeof(*g));
	unsigned char *seen = ft_calloc(CL_MAXSW, 1);
	size_t *ring = ft_calloc(CL_MAXSW, sizeof(*ring));
	const struct ft_obs *o;
	size_t pos = 0, n = 0, s, i;
	int rc = 0;

	if (!g || !seen || !ring) {
		rc = FT_ENOMEM;
		goto done;
	}
	while ((o = ft__diag_next(c, "ib.counter.PortXmitWait", &pos)) && g->ne < FT_ARRAY_SIZE(g->e)) {
		const struct ft_obs *here, *peer, *there;
		unsigned lid = lid_of(o->device), plid;
		size_t a, b;

		if (!o->has_num || o->num < ft__diag_counter_wait.threshold || !lid)
			continue;
		here = ibnd_port(c, lid, o->port);
		if (!here || !is_switch(c, here))
			continue;
		peer = ft__diag_find_same(c, "ib.link.peer", here);
		plid = peer ? peer_lid(peer) : 0;
		if (!plid)
			continue;
		/* the far end is a switch: some port of LID plid is one in ibnetdiscover */
		there = NULL;
		for (size_t q = 0; (there = ft__diag_next(c, "ib.port.lid", &q));)
			if (there->has_num && (unsigned)there->num == plid)
				break;
		if (!there || !is_switch(c, there))
			continue;
		a = cl_index(g, lid, here->device);
		b = cl_index(g, plid, there->device);
		if (a == SIZE_MAX || b == SIZE_MAX || a == b)
			continue;
		g->e[g->ne++] = (struct cl_edge){ o, a, b };
	}
	for (s = 0; s < g->nsw && n < 2; s++)
		n = cl_cycle(g, s, ring, seen);
	if (n >= 2) {
		const struct ft_obs *ev[DL_MAXRING];
		struct ft_strbuf path;
		size_t nev = FT_MIN(n, (size_t)DL_MAXRING);
		double least = 0;

		ft_strbuf_init(&path);
		for (i = 0; i < n; i++) {
			const struct cl_edge *e = &g->e[ring[i]];

			ft_strbuf_addf(&path, "%s port %d -> ", g->name[e->from], e->wait->port);
			if (i < nev)
				ev[i] = e->wait;
			if (i == 0 || e->wait->num < least)
				least = e->wait->num;
		}
		ft_strbuf_addf(&path, "%s", g->name[g->e[ring[0]].from]);
		if (path.oom) {
			rc = FT_ENOMEM;
		} else {
			rc = ft__diag_emit(c, out, -1, ev, nev,
			                   "ports of %zu InfiniBand switches wait for credits on one "
			                   "another in a ring: %s (each waited %.0f ticks or more, "
			                   "floor %.0f): a credit loop (a cyclic buffer dependency), "
			                   "not congestion toward one hot spot",
			                   n, path.buf, least, ft__diag_counter_wait.threshold);
		}
		ft_strbuf_release(&path);
	}
done:
	ft_free(ring);
	ft_free(seen);
	ft_free(g);
	return rc;
}

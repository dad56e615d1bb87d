/* SPDX-License-Identifier: MIT */
/*
 * diag/rules_switch.c - the switch side of a lossless fabric: PFC watchdog
 * storms, pause frames a port sends or receives, drops, and FEC errors, per
 * switch port.
 *
 * A storm means a device stopped draining its lossless queue (ROCE-PFC: treat
 * it as a host/NIC fault first); pauses a switch port sends mean congestion
 * at that switch spreading back to its neighbour; FEC errors left
 * uncorrected are packet loss on the link (IB-COUNTERS' 1e-12 after FEC). The
 * pause and drop marks are heuristics, stated on the rule pages.
 */
#include "internal.h"

#include "diag/diag_int.h"

/*
 * Heuristics, from the thresholds file: pauses as for NIC counters
 * (pause_frames_max, 100k since the last clear, as eth-tx-pause-high); a
 * thousand drops since the last clear is more than a stray burst
 * (switch_drops_max).
 */
/*
 * IBDIAG-BER's 1e-12 after FEC, 1e-6 before FEC as for mlxlink (heuristic):
 * thresholds effective_ber_max and raw_ber_max.
 */

static int
check_storm(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	const struct ft_obs *st = ft__diag_find_same(c, "switch.pfcwd.status", o);
	bool now = st && ft__str_ieq(st->str, "stormed");

	if (!o->has_num || o->num <= 0)
		return 0;
	return ft__diag_emit(c, out, now ? FT_SEV_CRITICAL : -1,
			     FT__EV(o, st, ft__diag_find_same(c, "switch.pfcwd.tx_drop", o),
				    ft__diag_find_same(c, "switch.pfcwd.rx_drop", o)),
			     "the PFC watchdog on %s queue %d detected %.0f pause storm%s (%s): a "
			     "device behind that port stopped draining its lossless queue and the "
			     "watchdog dropped its traffic; treat it as a host or NIC fault first "
			     "(hung host, PCIe stall, failed NIC), not as congestion",
			     o->device, o->port, o->num, o->num == 1 ? "" : "s",
			     now ? "storming now" : "restored since");
}
FT__DIAG_EACH(ft__diag_eval_storm, "switch.pfcwd.storms", check_storm)

static int
check_switch_pause(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	bool tx = ft__key_match(o->key, "switch.pfc.tx_prio[0-7]");

	if (!o->has_num || o->num < c->thresholds->pause_frames_max)
		return 0;
	return ft__diag_emit(
		c, out, -1, FT__EV(o),
		tx ? "switch port %s sent %.0f PFC pauses on priority %c: congestion at this "
		     "switch spreads back to the device on that port"
		   : "switch port %s received %.0f PFC pauses on priority %c: the device on "
		     "that port cannot drain what the switch sends",
		o->device, o->num, o->key[strlen(o->key) - 1]);
}
FT__DIAG_EACH(ft__diag_eval_switch_pause, "switch.pfc.[rt]x_prio[0-7]", check_switch_pause)

/* The fixes of a queue's drops that are the PFC watchdog's (all of them, or some with
 * the rest the buffer's), in place of the rule's PFC-missing one (kb ROCE-PFC). */
static const char wd_fix_all[] =
	"the drops are the PFC watchdog's (action drop), not PFC missing: find what held "
	"the queue paused past the watchdog's time (show pfcwd stats: storms and the last "
	"storm's drops; a pause storm from a stuck receiver, a PFC deadlock ring: break it "
	"with routing that has no cyclic buffer dependency)";
static const char wd_fix_part[] =
	"part of the drops are the PFC watchdog's (action drop): find what held the queue "
	"paused past the watchdog's time (show pfcwd stats; a pause storm, a PFC deadlock "
	"ring); for the rest, check that PFC is on for the priority and its buffer headroom "
	"covers the link's round trip";

static int
check_switch_drops(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	const struct ft_obs *sent, *wd;
	double share;

	if (!o->has_num || o->num < c->thresholds->switch_drops_max)
		return 0;
	if (strcmp(o->key, "switch.queue.drop_pkts") != 0)
		return ft__diag_emit(c, out, -1, FT__EV(o),
				     "switch port %s dropped %.0f packets (%s): on a lossless RoCE "
				     "fabric every drop of the RDMA class costs a retransmission "
				     "timeout",
				     o->device, o->num, o->key[10] == 't' ? "egress" : "ingress");
	sent = ft__diag_find_same(c, "switch.queue.tx_pkts", o);
	share = sent && sent->has_num && sent->num + o->num > 0 ? o->num / (sent->num + o->num) : 0;
	/* A PFC watchdog with action drop discards a stormed lossless queue's packets (its
	 * TX DROP in show pfcwd stats, same port and queue): those drops are the
	 * watchdog's, not a sign of PFC missing (kb ROCE-PFC). */
	wd = ft__diag_find_same(c, "switch.pfcwd.tx_drop", o);
	if (wd && wd->has_num && wd->num > 0)
		return ft__diag_emit_fix(c, out, -1, wd->num >= o->num ? wd_fix_all : wd_fix_part,
				     FT__EV(o, wd),
				     "switch port %s queue %s dropped %.0f packets (%.1f%% of what it "
				     "was given), of which %.0f are PFC watchdog drops: the watchdog "
				     "discarded the queue's traffic while it was stormed (action "
				     "drop), PFC is on; find why the queue was paused so long "
				     "(a pause storm, a PFC deadlock)%s",
				     o->device, o->str, o->num, 100 * share, FT_MIN(wd->num, o->num),
				     wd->num >= o->num ? "" :
							 "; the others overflowed the buffer beyond "
							 "(headroom, or pauses ignored outside the storm)");
	return ft__diag_emit(c, out, -1, FT__EV(o),
			     "switch port %s queue %s dropped %.0f packets (%.1f%% of what it was "
			     "given): if this queue carries the RDMA class, PFC is missing on its "
			     "priority or its headroom is too small",
			     o->device, o->str, o->num, 100 * share);
}
FT__DIAG_EACH(ft__diag_eval_switch_drops,
	      "switch.queue.drop_pkts switch.if.tx_drp switch.if.rx_drp",
	      check_switch_drops)

static int
check_switch_fec(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	const struct ft_obs *mx;
	double worst = o->num;
	char lim[24];

	if (!o->has_num)
		return 0;
	if (strcmp(o->key, "switch.if.fec_uncorr") == 0) {
		if (o->num <= 0)
			return 0;
		return ft__diag_emit(c, out, FT_SEV_ERROR,
				     FT__EV(o, ft__diag_find_same(c, "switch.if.fec_post_ber", o)),
				     "switch port %s: %.0f uncorrectable FEC codewords, packets "
				     "lost on the link; clean or swap the cable or optic",
				     o->device, o->num);
	}
	if (strcmp(o->key, "switch.if.fec_post_ber") == 0) {
		if (o->num <= c->thresholds->effective_ber_max ||
		    ft__diag_find_same(c, "switch.if.fec_uncorr", o))
			return 0;
		ft__diag_fmt_limit(c->thresholds->effective_ber_max, lim, sizeof(lim));
		return ft__diag_emit(c, out, FT_SEV_ERROR, FT__EV(o),
				     "switch port %s: post-FEC BER %.1e above %s, errors reach "
				     "traffic",
				     o->device, o->num, lim);
	}
	mx = ft__diag_find_same(c, "switch.if.fec_pre_ber_max", o);
	if (mx && mx->has_num && mx->num > worst)
		worst = mx->num;
	if (worst < c->thresholds->raw_ber_max)
		return 0;
	ft__diag_fmt_limit(c->thresholds->raw_ber_max, lim, sizeof(lim));
	return ft__diag_emit(c, out, -1, FT__EV(o, mx),
			     "switch port %s: pre-FEC BER up to %.1e, FEC still corrects it but "
			     "the margin is thin (heuristic mark %s)",
			     o->device, worst, lim);
}
FT__DIAG_EACH(ft__diag_eval_switch_fec,
	      "switch.if.fec_uncorr switch.if.fec_post_ber switch.if.fec_pre_ber",
	      check_switch_fec)

/* ---- PFC deadlock risk ---------------------------------------------------- */

/*
 * ROCE-PFC: a cyclic buffer dependency lets lossless traffic wait on itself
 * forever. Up/down routing on a fat-tree is acyclic; a torus (its rings wrap
 * around) and a dragonfly (local-global-local paths, and Valiant's detours)
 * close cycles unless each hop class rides its own lossless priority or VL.
 * The lossless class is PFC on RoCE, credit flow control on InfiniBand.
 */
int
ft__diag_eval_deadlock(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *kind = ft__diag_find(c, "spec.fabric.kind");
	const struct ft_obs *routing = ft__diag_find(c, "spec.fabric.routing");
	const struct ft_obs *link = ft__diag_find(c, "spec.fabric.link");
	const struct ft_obs *pfc = ft__diag_find(c, "roce.qos.pfc_enabled_prios");
	const struct ft_obs *ev[4] = { kind, routing, link, pfc };
	bool roce, torus;

	if (!kind || !(ft__str_ieq(kind->str, "torus") || ft__str_ieq(kind->str, "dragonfly")))
		return 0;
	torus = ft__str_ieq(kind->str, "torus");
	roce = (link && ft__str_ieq(link->str, "roce")) || pfc;
	if (roce)
		return ft__diag_emit(
			c, out, -1, ev, 4,
			"lossless RoCE (PFC) on a %s routed %s: %s, so paused queues can wait on "
			"each other in a cycle and stop the priority for good (PFC deadlock); "
			"give each hop class its own lossless priority, or keep RDMA lossy with "
			"a PFC watchdog",
			kind->str, routing ? routing->str : "?",
			torus ? "the rings of a torus wrap around" :
				"dragonfly paths go local, global, local (and Valiant adds a detour "
				"group)");
	return ft__diag_emit(
		c, out, FT_SEV_INFO, ev, 3,
		"InfiniBand credit flow control on a %s routed %s: %s, so the routing engine must "
		"spread the cycle over virtual lanes (torus-2QoS, DFSSSP or Nue in OpenSM) or "
		"credits can loop",
		kind->str, routing ? routing->str : "?",
		torus ? "the rings of a torus wrap around" :
			"dragonfly paths go local, global, local");
}

/* ---- ECMP collisions on a switch's uplinks ------------------------------- */

/*
 * ROCE-ECMP, IB-AR, ENV-IB_QPS: static per-flow hashing puts each long flow
 * (a QP) on one uplink for good. With k flows hashed onto n equal-cost links
 * the expected busiest link carries about k/n + sqrt(2 (k/n) ln n) flows (the
 * balls-into-bins maximum), so max/mean ~ 1 + sqrt(2 n ln n / k): 8 flows on
 * 8 uplinks reach 2 to 3, and it takes k > 8 n ln n (133 flows on 8 links)
 * before chance alone stays under 1.5. A spreading that does not hash
 * (D-mod-K, adaptive routing, packet spraying) keeps max/mean within a few
 * per cent of 1. Past 1.5 the busiest uplink carries half again its fair
 * share: a collective gated by it runs at most 1/1.5 of the balanced speed.
 */
#define ECMP_SPREAD_MAX 1.5

/* The uplinks of one switch: the ports above radix/2 of a fat-tree switch
   (down ports first, as fabtune's fat-tree numbers them and leaf cabling
   commonly does). */
struct ecmp_group {
	const struct ft_obs *max, *min, *wait; /* wait: the uplinks' largest PortXmitWait */
	double sum;
	unsigned n, idle, first, last;
};

/*
 * The load offered to a switch's uplinks comes in on its down ports: when
 * what they received (PortRcvData of ports 1 to radix/2) is itself uneven
 * past the mark, the unevenness may be the traffic's own, not the hash's, and
 * a top-tier switch (all its ports go down, so its upper half are no uplinks)
 * takes uneven traffic from the uplinks below it. Returns the down ports'
 * max/mean, 0 when none has a count.
 */
static double
ecmp_offered_spread(const struct ft_diag_ctx *c, const struct ft_obs *like, int half)
{
	const struct ft_obs *o;
	size_t pos = 0;
	double sum = 0, max = 0;
	unsigned n = 0;

	while ((o = ft__diag_next(c, "ib.counter.PortRcvData", &pos))) {
		if (!o->has_num || o->port < 1 || o->port > half ||
		    strcmp(o->device, like->device) != 0 || strcmp(o->host, like->host) != 0)
			continue;
		n++;
		sum += o->num;
		if (o->num > max)
			max = o->num;
	}
	return n && sum > 0 ? max / (sum / n) : 0;
}

static int
ecmp_emit(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ecmp_group *g,
	  const struct ft_obs *radix)
{
	double mean = g->sum / g->n;

	if (g->n < 2 || mean <= 0 || g->max->num / mean < ECMP_SPREAD_MAX)
		return 0;
	/*
	 * Network-bound: an uplink of the switch had data it could not send
	 * (PortXmitWait over IBD-THR's floor, IB-COUNTERS). Not necessarily the
	 * busiest: a link draining at line rate has credits, the ports that feed
	 * the congestion it causes downstream wait.
	 */
	if (!g->wait || g->wait->num < ft__diag_counter_wait.threshold)
		return 0;
	if (ecmp_offered_spread(c, g->max, (int)radix->num / 2) >= ECMP_SPREAD_MAX)
		return 0;
	return ft__diag_emit(c, out, -1, FT__EV(g->max, g->wait, g->min, radix),
			     "switch %s: its %u uplinks (ports %u-%u) carried uneven traffic: "
			     "port %d sent %.0f bytes, %.2fx the uplinks' mean of %.0f (mark "
			     "%.1f), port %d sent %.0f, %u sent nothing; port %d waited %.0f "
			     "ticks for credits, so the fabric held the job back: static ECMP "
			     "hashing put several flows on one uplink",
			     g->max->device, g->n, g->first, g->last, g->max->port,
			     4 * g->max->num, g->max->num / mean, 4 * mean, ECMP_SPREAD_MAX,
			     g->min->port, 4 * g->min->num, g->idle, g->wait->port, g->wait->num);
}

static int ecmp_collision_roce(const struct ft_diag_ctx *c, struct ft_findings *out);

int
ft__diag_eval_ecmp_collision(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *kind = ft__diag_find(c, "spec.fabric.kind");
	const struct ft_obs *radix = ft__diag_find(c, "spec.fabric.radix");
	const struct ft_obs *o, *w;
	struct ecmp_group g = { 0 };
	size_t pos = 0;
	int rc = 0;
	int half;

	if (!kind || !ft__str_icontains(kind->str, "fat-tree") || !radix || !radix->has_num ||
	    radix->num < 4)
		return 0;
	half = (int)radix->num / 2;
	/* PortXmitData counts 4-byte words (IB-COUNTERS); sorted by device, then port */
	while (rc == 0 && (o = ft__diag_next(c, "ib.counter.PortXmitData", &pos))) {
		if (!o->has_num || o->port <= half || o->port > (int)radix->num)
			continue;
		if (g.n && (strcmp(o->device, g.max->device) != 0 || strcmp(o->host, g.max->host) != 0)) {
			rc = ecmp_emit(c, out, &g, radix);
			g = (struct ecmp_group){ 0 };
		}
		if (!g.n)
			g.first = (unsigned)o->port;
		g.last = (unsigned)o->port;
		g.n++;
		g.sum += o->num;
		g.idle += o->num <= 0;
		w = ft__diag_find_same(c, "ib.counter.PortXmitWait", o);
		if (w && w->has_num && (!g.wait || w->num > g.wait->num))
			g.wait = w;
		if (!g.max || o->num > g.max->num)
			g.max = o;
		if (!g.min || o->num < g.min->num)
			g.min = o;
	}
	if (rc == 0 && g.n)
		rc = ecmp_emit(c, out, &g, radix);
	return rc == 0 ? ecmp_collision_roce(c, out) : rc;
}

/*
 * The same collision on a RoCE fabric of SONiC switches, from their CLI
 * tables: `show queue counters` gives the bytes each port sent per queue
 * (switch.queue.tx_bytes), `show queue wredcounters` the packets its queues
 * marked CE, `show pfc counters` the PFC frames it received, and `show lldp
 * table` who is behind it. A port's number is its place in SONiC's 4-lane
 * naming (Ethernet<4(K-1)> is port K), as fabtune's fat-tree numbers a switch's
 * links, down ports first: the uplinks are ports radix/2 + 1 to radix.
 *
 * Held back, as PortXmitWait says on InfiniBand: the uplinks' queues marked
 * packets CE (a queue past the ECN threshold: each mark a CNP that cuts a
 * DCQCN sender's rate, ROCE-DCQCN), dropped packets or received PFC pauses,
 * ECMP_ROCE_HELD or more of them over the switch's uplinks together
 * (heuristic: under adaptive routing the lab's uplinks mark none, under ECMP
 * leaf0's mark 225). On a fabric that neither marks nor pauses (no ECN, a
 * buffer deep enough for the collisions), the queue itself says so: `show
 * queue watermark unicast` gives the most bytes each uplink queue held. A
 * queue grows only while packets come faster than the port drains them: k
 * flows at line rate hashed onto one uplink peak at (k - 1) flows' bytes
 * (2 MiB flows: 2.1 MB for two, 6.3 MB for four), while within line rate
 * the most that can pile up is one packet from each down port arriving at
 * once, radix/2 x ECMP_MAX_FRAME bytes (74 KB at radix 16). An uplink whose
 * watermark passes that was oversubscribed: the fabric held traffic back.
 * (kb ROCE-ECMP: per-flow hashing collides; ECMP_MAX_FRAME: a 9000-byte jumbo
 * MTU, kb ROCE-MTU, with its headers, rounded up to the 9216 bytes switches
 * commonly accept, so no frame size makes a balanced fabric pass the mark.) The load offered to the uplinks is read from the down ports'
 * transmit bytes (SONiC's queue counters count transmit only): what a ring
 * delivers to its hosts is what they send, and uneven traffic or a top-tier
 * switch shows there as on PortRcvData.
 */
#define ECMP_ROCE_HELD  100.0
#define ECMP_MAX_FRAME  9216.0
#define ECMP_SONIC_PORTS 256

struct ecmp_sonic_port {
	const struct ft_obs *ev;   /* the port's busiest queue's bytes */
	const struct ft_obs *held; /* its largest held-back count */
	const struct ft_obs *wm;   /* its largest queue watermark */
	double bytes, nheld;
};

/* "Ethernet60" -> 16; 0 when @dev is no SONiC port name. */
static int
sonic_port_no(const char *dev)
{
	char *end;
	unsigned long n;

	if (strncmp(dev, "Ethernet", 8) != 0 || dev[8] < '0' || dev[8] > '9')
		return 0;
	n = strtoul(dev + 8, &end, 10);
	if (*end || n % 4 || n / 4 + 1 >= ECMP_SONIC_PORTS)
		return 0;
	return (int)(n / 4 + 1);
}

/* The events that say port @like (any of its queues) held traffic back: CE marks,
 * drops and PFC frames received; the largest of them into *@ev. */
static double
sonic_held(const struct ft_diag_ctx *c, const struct ft_obs *like, const struct ft_obs **ev)
{
	static const char *const keys[] = { "switch.queue.ecn_marked_pkts",
					    "switch.queue.drop_pkts",
					    "switch.queue.wred_drop_pkts" };
	const struct ft_obs *o;
	double n = 0;
	char key[32];

	for (size_t k = 0; k < FT_ARRAY_SIZE(keys); k++)
		if ((o = ft__diag_find_same(c, keys[k], like)) && o->has_num && o->num > 0) {
			n += o->num;
			if (!*ev || o->num > (*ev)->num)
				*ev = o;
		}
	/* PFC frames are per port, not per queue: counted once, with queue 0 */
	for (int p = 0; p < 8 && like->port == 0; p++) {
		snprintf(key, sizeof(key), "switch.pfc.rx_prio%d", p);
		if ((o = ft__diag_find_dev(c, key, like)) && o->has_num && o->num > 0) {
			n += o->num;
			if (!*ev || o->num > (*ev)->num)
				*ev = o;
		}
	}
	return n;
}

/* " (to DEVICE PORT)" of switch port @o from the LLDP table, or "". */
static void
sonic_peer(const struct ft_diag_ctx *c, const struct ft_obs *o, char *buf, size_t n)
{
	const struct ft_obs *d = ft__diag_find_dev(c, "switch.lldp.remote_device", o);
	const struct ft_obs *p = ft__diag_find_dev(c, "switch.lldp.remote_port", o);

	buf[0] = '\0';
	if (d && d->str[0])
		snprintf(buf, n, " (to %.32s%s%.16s)", d->str, p && p->str[0] ? " " : "",
			 p ? p->str : "");
}

static int
ecmp_sonic_emit(const struct ft_diag_ctx *c, struct ft_findings *out,
		const struct ecmp_sonic_port *P, int radix, const struct ft_obs *radix_obs)
{
	const struct ecmp_sonic_port *max = NULL, *min = NULL, *held = NULL, *wm = NULL;
	double sum = 0, dsum = 0, dmax = 0, nheld = 0, mean;
	unsigned n = 0, idle = 0, dn = 0;
	int half = radix / 2, first = 0, last = 0;
	char pmax[80], pmin[80];

	for (int k = 1; k <= radix; k++) {
		const struct ecmp_sonic_port *p = &P[k];

		if (!p->ev)
			continue;
		if (k <= half) {
			dn++;
			dsum += p->bytes;
			dmax = p->bytes > dmax ? p->bytes : dmax;
			continue;
		}
		first = first ? first : k;
		last = k;
		n++;
		sum += p->bytes;
		idle += p->bytes <= 0;
		if (!max || p->bytes > max->bytes)
			max = p;
		if (!min || p->bytes < min->bytes)
			min = p;
		nheld += p->nheld;
		if (p->held && (!held || p->nheld > held->nheld))
			held = p;
		if (p->wm && (!wm || p->wm->num > wm->wm->num))
			wm = p;
	}
	mean = n ? sum / n : 0;
	if (n < 2 || mean <= 0 || max->bytes / mean < ECMP_SPREAD_MAX)
		return 0;
	if (!(held && nheld >= ECMP_ROCE_HELD) && !(wm && wm->wm->num > half * ECMP_MAX_FRAME))
		return 0;
	if (dn && dsum > 0 && dmax / (dsum / dn) >= ECMP_SPREAD_MAX)
		return 0;
	sonic_peer(c, max->ev, pmax, sizeof(pmax));
	sonic_peer(c, min->ev, pmin, sizeof(pmin));
	if (!(held && nheld >= ECMP_ROCE_HELD))
		return ft__diag_emit(
			c, out, -1, FT__EV(max->ev, wm->wm, min->ev, radix_obs),
			"switch %s: its %u uplinks (Ethernet%d-Ethernet%d) carried uneven "
			"traffic: %s%s sent %.0f bytes, %.2fx the uplinks' mean of %.0f "
			"(mark %.1f), %s%s sent %.0f, %u sent nothing; %s queued %.0f bytes "
			"(mark %d x %.0f): flows came faster than it drains, static ECMP "
			"hashing put several on one uplink",
			max->ev->host, n, 4 * (first - 1), 4 * (last - 1), max->ev->device, pmax,
			max->bytes, max->bytes / mean, mean, ECMP_SPREAD_MAX, min->ev->device,
			pmin, min->bytes, idle, wm->wm->device, wm->wm->num, half, ECMP_MAX_FRAME);
	return ft__diag_emit(c, out, -1, FT__EV(max->ev, held->held, min->ev, radix_obs),
			     "switch %s: its %u uplinks (Ethernet%d-Ethernet%d) carried uneven "
			     "traffic: %s%s sent %.0f bytes, %.2fx the uplinks' mean of %.0f "
			     "(mark %.1f), %s%s sent %.0f, %u sent nothing; %.0f packets marked "
			     "CE, dropped or paused on them (%.0f on %s; floor %.0f): static ECMP "
			     "hashing put several flows on one uplink",
			     max->ev->host, n, 4 * (first - 1), 4 * (last - 1), max->ev->device,
			     pmax, max->bytes, max->bytes / mean, mean, ECMP_SPREAD_MAX,
			     min->ev->device, pmin, min->bytes, idle, nheld, held->nheld,
			     held->ev->device, ECMP_ROCE_HELD);
}

static int
ecmp_collision_roce(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *kind = ft__diag_find(c, "spec.fabric.kind");
	const struct ft_obs *radix = ft__diag_find(c, "spec.fabric.radix");
	struct ecmp_sonic_port *P;
	const struct ft_obs *o, *w, *prev = NULL;
	size_t pos = 0;
	int rc = 0, r;

	if (!kind || !ft__str_icontains(kind->str, "fat-tree") || !radix || !radix->has_num ||
	    radix->num < 4 || radix->num >= ECMP_SONIC_PORTS)
		return 0;
	r = (int)radix->num;
	P = ft_calloc(ECMP_SONIC_PORTS, sizeof(*P));
	if (!P)
		return FT_ENOMEM;
	/* sorted by host (the switch), device (its port), then queue */
	while (rc == 0 && (o = ft__diag_next(c, "switch.queue.tx_bytes", &pos))) {
		int k = sonic_port_no(o->device);
		struct ecmp_sonic_port *p = &P[k];

		if (prev && strcmp(o->host, prev->host) != 0) {
			rc = ecmp_sonic_emit(c, out, P, r, radix);
			memset(P, 0, ECMP_SONIC_PORTS * sizeof(*P));
		}
		prev = o;
		if (!o->has_num || k < 1 || k > r)
			continue;
		p->bytes += o->num;
		if (!p->ev || o->num > p->ev->num)
			p->ev = o;
		p->nheld += sonic_held(c, o, &p->held);
		if ((w = ft__diag_find_same(c, "switch.queue.watermark_bytes", o)) && w->has_num &&
		    (!p->wm || w->num > p->wm->num))
			p->wm = w;
	}
	if (rc == 0 && prev)
		rc = ecmp_sonic_emit(c, out, P, r, radix);
	ft_free(P);
	return rc;
}

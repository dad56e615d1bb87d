/* SPDX-License-Identifier: MIT */
/*
 * diag/rules_roce.c - RoCE and Ethernet rules: lossless configuration (trust,
 * PFC priority versus NCCL_IB_TC), GIDs, MTU, pause frames, ECN/CNP
 * congestion control, loss and retransmission counters, physical counters.
 *
 * The counter meanings are those of the mlx5 kernel documentation as
 * summarised in ROCE-COUNTERS; where the KB gives no number the threshold is
 * a heuristic and the rule page says so.
 */
#include "internal.h"

#include "diag/diag_int.h"

/* ---- QoS: trust, PFC and the NCCL traffic class ---------------------------- */

/* Does the PFC priority list @s ("3", "3,4", "0 0 0 1 0 0 0 0", "none") enable @prio? */
static bool
pfc_has(const char *s, int prio, bool *any)
{
	const char *p;
	int n = 0, bits = 0;
	bool found = false;

	*any = false;
	/* An 8-entry 0/1 vector ("0,0,0,1,0,0,0,0" or "0 0 0 1 0 0 0 0"). */
	for (p = s; *p; p++) {
		if (*p == '0' || *p == '1') {
			if (n < 8 && *p == '1') {
				bits |= 1 << n;
			}
			n++;
		} else if (*p != ' ' && *p != ',' && *p != '\t') {
			n = -100;
			break;
		}
	}
	if (n == 8) {
		*any = bits != 0;
		return (bits >> prio) & 1;
	}
	/* Otherwise a list of enabled priorities ("3" or "3,4"). */
	for (p = s; *p; p++) {
		if (*p >= '0' && *p <= '7' && (p == s || !isdigit((unsigned char)p[-1])) &&
		    !isdigit((unsigned char)p[1])) {
			*any = true;
			if (*p - '0' == prio)
				found = true;
		}
	}
	return found;
}

static bool
pfc_none(const struct ft_obs *o)
{
	bool any;

	pfc_has(o->str, 0, &any);
	return !any;
}
FT__DIAG_MATCH(ft__diag_eval_pfc_off, "roce.qos.pfc_enabled_prios", pfc_none,
	       "PFC is enabled on no priority: RoCE traffic is lossy, every drop costs a "
	       "go-back-N retransmission or an ACK timeout")

static int
check_pfc_prio(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	const struct ft_obs *tc = ft__diag_env(c, "NCCL_IB_TC");
	const struct ft_obs *nccl = ft__diag_find(c, "nccl.version");
	const struct ft_obs *trust = ft__diag_find_dev(c, "roce.qos.trust", o);
	double tcv = 0;
	int dscp, prio;
	bool any;

	/* Only when NCCL is in play: its log or its environment is among the inputs. */
	if (!tc && !nccl && !ft__diag_find(c, "nccl.env.*"))
		return 0;
	if (!trust || !ft__str_ieq(trust->str, "dscp"))
		return 0; /* with pcp trust the priority comes from the VLAN tag */
	if (tc && (!ft__obs_number(tc, &tcv) || tcv < 0 || tcv > 255))
		return 0;
	dscp = (int)tcv >> 2;
	prio = dscp >> 3; /* mlx5 default dscp2prio map (ROCE-QOS) */
	if (pfc_has(o->str, prio, &any) || !any)
		return 0;
	return ft__diag_emit(c, out, -1, FT__EV(tc ? tc : nccl, o, trust),
			     "NCCL traffic class %d%s is DSCP %d, priority %d by the default "
			     "dscp2prio map, but PFC is enabled on priority %s: NCCL runs in a "
			     "lossy queue",
			     (int)tcv, tc ? "" : " (NCCL_IB_TC unset)", dscp, prio, o->str);
}
FT__DIAG_EACH(ft__diag_eval_pfc_prio, "roce.qos.pfc_enabled_prios", check_pfc_prio)

static int
check_trust_pcp(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	if (!ft__str_ieq(o->str, "pcp"))
		return 0;
	return ft__diag_emit(c, out, -1,
			     FT__EV(o, ft__diag_find_dev(c, "roce.qos.pfc_enabled_prios", o)),
			     "trust mode pcp: without VLAN tagging every RoCE packet is classified "
			     "as priority 0, whatever NCCL_IB_TC says");
}
FT__DIAG_EACH(ft__diag_eval_trust_pcp, "roce.qos.trust", check_trust_pcp)

/* ---- GIDs ---------------------------------------------------------------- */

static bool
gid_is_zero(const char *s)
{
	int zeros = 0;

	for (; *s; s++) {
		if (*s == '0')
			zeros++;
		else if (*s != ':' && *s != '.' && *s != ' ')
			return false;
	}
	return zeros >= 8;
}

static int
check_gid_empty(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	bool count0 = (ft__key_match(o->key, "*gid_count") ||
		       ft__key_match(o->key, "*gid.count")) &&
		      o->has_num && o->num == 0;

	if (!count0 && (strstr(o->key, "count") || strstr(o->key, "index_env") ||
			!gid_is_zero(o->str)))
		return 0;
	return ft__diag_emit(c, out, -1, FT__EV(o),
			     count0 ? "the port has no GID: the RDMA device has no netdev or IP "
				      "address in this network namespace, RoCE cannot connect"
				    : "GID %s is all zeros: no RoCE address behind this index, the "
				      "QP cannot reach RTR",
			     o->str);
}
FT__DIAG_EACH(ft__diag_eval_gid_empty, "*gid*", check_gid_empty)

int
ft__diag_eval_gid_index(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *env = ft__diag_env(c, "NCCL_IB_GID_INDEX");
	const struct ft_obs *ver, *entry = NULL, *ev[3];
	double idx;
	int v;
	size_t i;

	if (!env || !ft__obs_number(env, &idx))
		return 0;
	v = ft__diag_nccl_version(c, &ver);
	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);

		if (strcmp(o->key, "roce.gid.index") == 0 && o->has_num && o->num == idx) {
			entry = o;
			break;
		}
	}
	ev[0] = env;
	ev[1] = entry ? entry : ver;
	ev[2] = entry ? ft__diag_find_line(c, "roce.gid.version", entry) : NULL;
	if (entry && (ft__str_has_prefix(entry->str, "fe80") || gid_is_zero(entry->str)))
		return ft__diag_emit(c, out, FT_SEV_ERROR, ev, 3,
				     "NCCL_IB_GID_INDEX=%.0f selects GID %s: link-local or empty, "
				     "not routable between nodes",
				     idx, entry->str);
	if (ev[2] && !ft__str_icontains(ev[2]->str, "2"))
		return ft__diag_emit(c, out, FT_SEV_ERROR, ev, 3,
				     "NCCL_IB_GID_INDEX=%.0f selects a RoCE %s GID: not routable "
				     "across L3",
				     idx, ev[2]->str);
	if (v >= 22100)
		return ft__diag_emit(
			c, out, -1, ev, 3,
			"NCCL_IB_GID_INDEX=%.0f is set with NCCL %s: since 2.21 NCCL "
			"picks the RoCEv2 IPv4 GID itself and the guide says not to set "
			"the index",
			idx, ver->str);
	return 0;
}

/* ---- MTU ----------------------------------------------------------------- */

static int
check_roce_mtu(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	const struct ft_obs *ll, *st;

	if (!o->has_num || o->num >= 4096)
		return 0;
	ll = ft__diag_find_same(c, o->key[0] == 'p' ? "perftest.link_type" : "ib.port.link_layer",
				o);
	st = ft__diag_find_same(c, "ib.port.state", o);
	if (!ll || !ft__str_ieq(ll->str, "Ethernet") || (st && !ft__port_state_active(st->str)))
		return 0;
	return ft__diag_emit(c, out, -1, FT__EV(o, ll, st),
			     "RoCE active MTU %.0f bytes: the netdev MTU is too small for 4096 "
			     "(headers and framing take %.1f%% of the wire instead of %.1f%%)",
			     o->num, 100.0 * (1 - ft_diag_payload_efficiency(o->num, 82)),
			     100.0 * (1 - ft_diag_payload_efficiency(4096, 82)));
}
FT__DIAG_EACH(ft__diag_eval_roce_mtu, "ib.port.mtu_active perftest.mtu", check_roce_mtu)

/* ---- pause, ECN and CNPs ------------------------------------------------- */

/*
 * A pause-frame counter of direction @dir ("tx" or "rx"): mlx5's per-priority,
 * global and physical-port names (ROCE-PFC), and the plain `rx_pause_frames` /
 * `tx_pause_frames` that other drivers (bnxt_en, and the grep'd counters of
 * sosreports) print for link-level flow control.
 */
static bool
is_pause(const char *key, const char *dir)
{
	static const char *const names[] = { "_prio[0-7]_pause", "_global_pause", "_pause_ctrl_phy",
					     "_pause_frames" };
	char pat[48];

	for (size_t i = 0; i < FT_ARRAY_SIZE(names); i++) {
		snprintf(pat, sizeof(pat), "eth.counter.%s%s", dir, names[i]);
		if (ft__key_match(key, pat))
			return true;
	}
	return false;
}

static bool
is_tx_pause(const char *key)
{
	return is_pause(key, "tx");
}

static bool
is_rx_pause(const char *key)
{
	return is_pause(key, "rx");
}

/*
 * Heuristic: 100k pause frames since the counters were cleared is more than
 * bursts (thresholds pause_frames_max).
 */
static bool
pause_high(const struct ft_diag_ctx *c, const struct ft_obs *o, bool tx)
{
	double v;

	return (tx ? is_tx_pause(o->key) : is_rx_pause(o->key)) && ft__obs_number(o, &v) &&
	       v >= c->thresholds->pause_frames_max;
}

/* One finding per NIC: its pause counters over the threshold as evidence. */
static int
check_pause(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o, bool tx)
{
	const struct ft_obs *ev[FT_FINDING_MAX_EVIDENCE];
	size_t k, n = 0;
	double v = 0;

	if (!pause_high(c, o, tx) || !ft__obs_number(o, &v))
		return 0;
	/* The NIC's pause counters over the threshold, handled at the first of them. */
	for (k = 0; k < ft__nobs(c); k++) {
		const struct ft_obs *p = ft__obs(c, k);

		if (!pause_high(c, p, tx) || strcmp(p->host, o->host) != 0 ||
		    strcmp(p->device, o->device) != 0)
			continue;
		if (!n && p != o)
			return 0;
		if (n < FT_ARRAY_SIZE(ev) - 1)
			ev[n++] = p;
	}
	ev[n] = ft__diag_find_dev(c, "eth.counter.rx_discards_phy", o);
	return ft__diag_emit(c, out, -1, ev, n + 1,
			     tx ? "%s = %.0f: the NIC paused the network that often, so this host "
				  "cannot drain what it receives (PCIe, IOMMU, NUMA or GDR trouble)"
				: "%s = %.0f: the network paused this NIC that often, congestion "
				  "is spreading back to the sender",
			     strrchr(o->key, '.') + 1, v);
}

static int
check_tx_pause(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	return check_pause(c, out, o, true);
}
FT__DIAG_EACH(ft__diag_eval_tx_pause, "eth.counter.tx_*", check_tx_pause)

static int
check_rx_pause(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	return check_pause(c, out, o, false);
}
FT__DIAG_EACH(ft__diag_eval_rx_pause, "eth.counter.rx_*", check_rx_pause)

static int
check_ecn_no_cnp(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	const struct ft_obs *cnp = ft__diag_find_same(c, "*counter.np_cnp_sent", o);
	double marks, sent;

	if (!ft__obs_number(o, &marks) || marks <= 0 || !cnp || !ft__obs_number(cnp, &sent) ||
	    sent > 0)
		return 0;
	return ft__diag_emit(c, out, -1, FT__EV(o, cnp),
			     "%.0f ECN-marked packets received but no CNP sent: the notification "
			     "point is disabled, senders never slow down and PFC does all the work",
			     marks);
}
FT__DIAG_EACH(ft__diag_eval_ecn_no_cnp, "*counter.np_ecn_marked_roce_packets", check_ecn_no_cnp)

static int
check_pfc_only(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	const struct ft_obs *marks = NULL, *cnp = NULL, *handled = NULL;
	double v, m = 0, s = 0, h = 0;
	size_t k;

	if (!ft__obs_number(o, &v) || v <= 0)
		return 0;
	for (k = 0; k < ft__nobs(c); k++) {
		const struct ft_obs *x = ft__obs(c, k);

		if (strcmp(x->host, o->host) != 0)
			continue;
		if (ft__key_match(x->key, "*counter.np_ecn_marked_roce_packets"))
			marks = x;
		else if (ft__key_match(x->key, "*counter.np_cnp_sent"))
			cnp = x;
		else if (ft__key_match(x->key, "*counter.rp_cnp_handled") &&
		         ft__obs_number(x, &h) && h > 0)
			handled = x;
	}
	if (!marks || !cnp || !ft__obs_number(marks, &m) || !ft__obs_number(cnp, &s) ||
	    m > 0 || s > 0)
		return 0;
	/*
	 * A sender sees no marks and sends no CNPs of its own: when it
	 * handles CNPs from its receivers, DCQCN is reacting (ROCE-DCQCN).
	 */
	if (handled)
		return 0;
	return ft__diag_emit(c, out, -1, FT__EV(o, marks, cnp),
			     "paused for %.0f us while no packet was ECN-marked and no CNP was "
			     "sent: congestion control is not working, PFC carries all congestion",
			     v);
}
FT__DIAG_EACH(ft__diag_eval_pfc_only, "eth.counter.rx_prio[0-7]_pause_duration", check_pfc_only)

/*
 * ROCE-PFC heuristics: a few percent paused is common, tens of percent is
 * spreading (thresholds paused_fraction_max, 10%); half the time is an error
 * (thresholds paused_fraction_error, 50%).
 */

static int
check_pause_fraction(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	bool rx = ft__key_match(o->key, "eth.counter.rx_*");
	double us_per_s, frac;

	if (!ft__obs_number(o, &us_per_s))
		return 0;
	frac = us_per_s / 1e6; /* pause duration counts microseconds */
	if (frac < c->thresholds->paused_fraction_max)
		return 0;
	return ft__diag_emit(c, out,
			     frac >= c->thresholds->paused_fraction_error ? FT_SEV_ERROR : -1,
			     FT__EV(o),
			     rx ? "the NIC was paused %.0f%% of the probe interval: congestion is "
				  "spreading through PFC (tens of percent, sustained)"
				: "the NIC paused its link partner %.0f%% of the probe interval: "
				  "this host does not drain what it receives",
			     100 * (frac > 1 ? 1 : frac));
}
FT__DIAG_EACH(ft__diag_eval_pause_fraction,
	      "eth.counter.[rt]x_*pause_duration.rate", check_pause_fraction)

/*
 * Heuristic: more than 1% of received packets ECN-marked is sustained
 * congestion (thresholds ecn_mark_share_max).
 */

static int
check_ecn_rate(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	static const char *const pkts_keys[] = { "ib.counter.PortRcvPkts",
						 "eth.counter.rx_packets_phy",
						 "eth.counter.rx_packets" };
	const struct ft_obs *pk = NULL;
	double marks, pkts = 0;
	size_t k;

	if (!ft__obs_number(o, &marks) || marks <= 0)
		return 0;
	for (k = 0; k < FT_ARRAY_SIZE(pkts_keys) && !pk; k++)
		pk = ft__diag_find_dev(c, pkts_keys[k], o);
	if (!pk || !ft__obs_number(pk, &pkts) || pkts <= 0 ||
	    marks / pkts < c->thresholds->ecn_mark_share_max)
		return 0;
	return ft__diag_emit(c, out, -1,
			     FT__EV(o, pk, ft__diag_find_same(c, "*counter.rp_cnp_handled", o)),
			     "%.2f%% of received packets carried ECN congestion marks (threshold "
			     "%g%%, heuristic: thresholds ecn_mark_share_max): sustained "
			     "congestion on the path toward this node",
			     100.0 * marks / pkts, 100.0 * c->thresholds->ecn_mark_share_max);
}
FT__DIAG_EACH(ft__diag_eval_ecn_rate, "*counter.np_ecn_marked_roce_packets", check_ecn_rate)

/*
 * DCQCN over-reaction (CC-DCQCN): the receiver's egress queue is above the
 * switch's K_min often enough that a large share of its packets arrive
 * ECN-marked, its senders handle CNPs faster than the rate-increase timer
 * can undo their cuts (one recovery step per rpg_time_reset, 300 us by
 * default: 3,333 per second), and yet the receiver's link carried only a
 * small part of its rate over the span. A marked packet means a queue at a
 * work-conserving port; a link idle most of the time anyway means the
 * senders' cuts overshot the fair share and they climbed back too slowly.
 *
 * Counts become rates over the counters' span: the `.rate` of a probe with
 * an interval, else the count over the run's makespan (`sim.makespan` from
 * a `fabtune sim` summary among the inputs). The link rate is the NIC's
 * `sim.nic.link_rate` (GB/s) or `eth.link.speed` (Mb/s, `ethtool DEV`).
 * Without a span or a link rate the rule says nothing: counts alone cannot
 * tell a burst cut short from a burst stretched twelvefold.
 */

/* Per-second rate of counter @key on @like's device; false when no span is known. */
static bool
dcqcn_rate(const struct ft_diag_ctx *c, const char *key, const struct ft_obs *like,
	   const struct ft_obs **ev)
{
	char rk[96];
	const struct ft_obs *o;

	snprintf(rk, sizeof(rk), "%s.rate", key);
	o = ft__diag_find_dev(c, rk, like);
	if (o) {
		*ev = o;
		return true;
	}
	*ev = ft__diag_find_dev(c, key, like);
	return *ev != NULL;
}

static double
dcqcn_per_s(const struct ft_obs *o, double span_s)
{
	double v;

	if (!o || !ft__obs_number(o, &v))
		return -1;
	if (strlen(o->key) > 5 && strcmp(o->key + strlen(o->key) - 5, ".rate") == 0)
		return v;
	return span_s > 0 ? v / span_s : -1;
}

/* The link rate of @like's NIC in bytes per second; 0 when unknown. */
static double
dcqcn_link_Bps(const struct ft_diag_ctx *c, const struct ft_obs *like, const struct ft_obs **ev)
{
	double v;

	*ev = ft__diag_find_dev(c, "sim.nic.link_rate", like);
	if (*ev && ft__obs_number(*ev, &v) && v > 0)
		return v * 1e9;
	*ev = ft__diag_find_dev(c, "eth.link.speed", like);
	if (*ev && (*ev)->has_num && (*ev)->num > 0)
		return (*ev)->num * 1e6 / 8;
	*ev = NULL;
	return 0;
}

int
ft__diag_eval_dcqcn_overreaction(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_diag_thresholds *t = c->thresholds;
	const struct ft_obs *span = ft__diag_find(c, "sim.makespan");
	double span_s = 0;
	size_t i;
	int rc;

	if (span && (!ft__obs_number(span, &span_s) || span_s <= 0))
		span = NULL;
	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);
		const struct ft_obs *pk, *rxb, *rxlink, *worst = NULL, *worst_tx = NULL;
		const struct ft_obs *ev[7];
		double marks, pkts, rx_Bps, rx_link, worst_cnps = 0, worst_share = 0;
		size_t k, nsend = 0;

		if (!ft__key_match(o->key, "*counter.np_ecn_marked_roce_packets") ||
		    !ft__obs_number(o, &marks) || marks <= 0)
			continue;
		pk = ft__diag_find_dev(c, "eth.counter.rx_packets_phy", o);
		if (!pk || !ft__obs_number(pk, &pkts) || pkts <= 0 ||
		    marks / pkts < t->dcqcn_mark_share_min)
			continue;
		if (!dcqcn_rate(c, "eth.counter.rx_bytes_phy", o, &rxb))
			continue;
		rx_Bps = dcqcn_per_s(rxb, span_s);
		rx_link = dcqcn_link_Bps(c, o, &rxlink);
		if (rx_Bps < 0 || rx_link <= 0 || rx_Bps / rx_link > t->dcqcn_rx_utilisation_max)
			continue;
		/* Its senders: every NIC among the inputs that handled CNPs. */
		for (k = 0; k < ft__nobs(c); k++) {
			const struct ft_obs *h = ft__obs(c, k), *txb, *hl, *hr;
			double cnps, tx_link, share;

			/* a counter with a rate of its own is judged by the rate */
			if (ft__key_match(h->key, "*counter.rp_cnp_handled.rate"))
				hr = h;
			else if (!ft__key_match(h->key, "*counter.rp_cnp_handled") ||
				 !dcqcn_rate(c, h->key, h, &hr) || hr != h)
				continue;
			cnps = dcqcn_per_s(hr, span_s);
			tx_link = dcqcn_link_Bps(c, h, &hl);
			if (cnps < t->dcqcn_cnp_rate_min || tx_link <= 0 ||
			    !dcqcn_rate(c, "eth.counter.tx_bytes_phy", h, &txb))
				continue;
			share = dcqcn_per_s(txb, span_s) / tx_link;
			if (share < 0 || share > t->dcqcn_tx_share_max)
				continue;
			nsend++;
			if (cnps > worst_cnps) {
				worst_cnps = cnps;
				worst_share = share;
				worst = hr;
				worst_tx = txb;
			}
		}
		if (!nsend)
			continue;
		ev[0] = o;
		ev[1] = pk;
		ev[2] = rxb;
		ev[3] = rxlink;
		ev[4] = worst;
		ev[5] = worst_tx;
		ev[6] = strstr(rxb->key, ".rate") ? NULL : span;
		rc = ft__diag_emit(
			c, out, -1, ev, 7,
			"%.0f%% of the packets arrived ECN-marked while the link carried %.1f%% "
			"of its %.0f Gb/s; %zu sender%s handled up to %.0f CNPs/s (threshold %.0f/s: "
			"1/rpg_time_reset, CC-DCQCN) at %.1f%% of its link: DCQCN cuts the senders "
			"faster than it lets them recover",
			100.0 * marks / pkts, 100.0 * rx_Bps / rx_link, rx_link * 8 / 1e9, nsend,
			nsend == 1 ? "" : "s", worst_cnps, t->dcqcn_cnp_rate_min, 100.0 * worst_share);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- counters ------------------------------------------------------------ */

const struct ft__counter_rule ft__diag_counter_storm = {
	{ "eth.counter.tx_pause_storm_error_events", "eth.counter.tx_pause_storm_warning_events",
	  NULL },
	1,
	0,
	"any event",
	"the NIC's PFC storm watchdog fired: a stalled host or NIC was pausing the fabric"
};
const struct ft__counter_rule ft__diag_counter_cnp_ignored = {
	{ "*counter.rp_cnp_ignored", NULL },
	1,
	0,
	"healthy value 0",
	"CNPs arrived but the reaction point ignored them: RP disabled on the priority or a CC "
	"priority mismatch"
};
const struct ft__counter_rule ft__diag_counter_oos = {
	{ "*counter.out_of_sequence", "*counter.duplicate_request", NULL },
	1,
	0,
	"healthy value 0",
	"packets arrived after a gap: loss on the path toward this node"
};
const struct ft__counter_rule ft__diag_counter_seq = {
	{ "*counter.packet_seq_err", "*counter.implied_nak_seq_err", "*counter.roce_adp_retrans",
	  NULL },
	1,
	0,
	"healthy value 0",
	"the peer saw a gap and the window was retransmitted: loss on a priority that should be "
	"lossless"
};
const struct ft__counter_rule ft__diag_counter_ack = {
	{ "*counter.local_ack_timeout_err", NULL },
	1,
	0,
	"healthy value 0",
	"a request waited a full ACK timeout before retransmission: multi-second stalls, fatal "
	"error 12 when retries run out"
};
/* The requester's count of QPs that ran out of retries (mlx5, kb ROCE-COUNTERS): each one
 * a send completed with IBV_WC_RETRY_EXC_ERR, NCCL's error 12 (SYM-ERR-12). */
const struct ft__counter_rule ft__diag_counter_retry_exc = {
	{ "*counter.req_transport_retries_exceeded", NULL },
	1,
	0,
	"healthy value 0",
	"a QP sending from this port ran out of transport retries (NCCL_IB_RETRY_CNT timeouts "
	"in a row without an ACK): its send completed with IBV_WC_RETRY_EXC_ERR, NCCL error 12, "
	"and the job's communicator aborted"
};
const struct ft__counter_rule ft__diag_counter_rx_discards = {
	{ "eth.counter.rx_discards_phy", "eth.counter.rx_prio[0-7]_discards",
	  "eth.counter.rx_prio[0-7]_buf_discard", NULL },
	1000,
	0,
	"heuristic",
	"received packets dropped for lack of NIC buffers: the host or PCIe does not keep up, or "
	"the NIC is not pausing on that priority",
	.rate_threshold = 1, /* heuristic */
	.threshold_key = "rx_discards_max",
	.rate_threshold_key = "rx_discards_rate_max",
};
const struct ft__counter_rule ft__diag_counter_out_of_buffer = {
	{ "eth.counter.rx_out_of_buffer", NULL },
	1000,
	0,
	"heuristic",
	"the kernel receive ring had no buffers: CPU or IRQ handling too slow for IP traffic "
	"(socket transport, IPoIB)",
	.rate_threshold = 100, /* heuristic */
	.threshold_key = "rx_out_of_buffer_max",
	.rate_threshold_key = "rx_out_of_buffer_rate_max",
};
const struct ft__counter_rule ft__diag_counter_oversize = {
	{ "eth.counter.rx_oversize_pkts_phy", "eth.counter.rx_out_of_range_len_phy", NULL },
	1,
	0,
	"healthy value 0",
	"frames larger than the MTU were dropped: MTU mismatch with the peer or switch"
};
const struct ft__counter_rule ft__diag_counter_phy = {
	{ "eth.counter.rx_crc_errors_phy", "eth.counter.rx_symbol_err_phy",
	  "eth.counter.rx_pcs_symbol_err_phy", "eth.counter.link_down_events_phy", NULL },
	10,
	0,
	"IBD-THR-like default of 10",
	"physical-layer errors: cable, transceiver or port problem"
};
const struct ft__counter_rule ft__diag_counter_pci = {
	{ "eth.counter.rx_pci_signal_integrity", "eth.counter.tx_pci_signal_integrity", NULL },
	1,
	0,
	"healthy value 0",
	"PCIe link recoveries on the NIC's slot: bad slot or riser"
};
const struct ft__counter_rule ft__diag_counter_module = { { "eth.counter.module_high_temp",
						    "eth.counter.module_bad_shorted",
						    "eth.counter.module_bus_stuck", NULL },
						  1,
						  0,
						  "healthy value 0",
						  "the transceiver module reported a fault" };

/* ---- link state ---------------------------------------------------------- */

static int
check_eth_link_down(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	const struct ft_obs *virt;

	if (!ft__str_ieq(o->str, strcmp(o->key, "eth.link.detected") == 0 ? "no" : "down"))
		return 0;
	/* A virtual netdev (ifb, veth, bridge) has no link to train. */
	virt = ft__diag_find_dev(c, "eth.link.virtual", o);
	if (virt && ft__str_ieq(virt->str, "yes"))
		return 0;
	return ft__diag_emit(c, out, -1, FT__EV(o, ft__diag_find_dev(c, "eth.link.speed", o)),
			     "Ethernet link is down (%s = %s)", strrchr(o->key, '.') + 1, o->str);
}
FT__DIAG_EACH(ft__diag_eval_eth_link_down,
	      "eth.link.detected eth.link.operstate", check_eth_link_down)

static int
check_not_rdma_netdev(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	static const char *const virt[] = { "veth", "bridge", "tun", "macvlan" };
	size_t k;

	for (k = 0; k < FT_ARRAY_SIZE(virt); k++)
		if (ft__str_ieq(o->str, virt[k]))
			break;
	if (k == FT_ARRAY_SIZE(virt))
		return 0;
	return ft__diag_emit(c, out, -1, FT__EV(o, ft__diag_find_dev(c, "eth.link.speed", o)),
			     "netdev %s is driven by %s, not by the RDMA NIC: the RDMA device has "
			     "no IP in this namespace, so RoCE finds no GID",
			     o->device[0] ? o->device : "?", o->str);
}
FT__DIAG_EACH(ft__diag_eval_not_rdma_netdev, "eth.driver.name", check_not_rdma_netdev)

/* ---- steady state: pause and ECN/CNP rates -------------------------------- */

/*
 * Users hold a lossless fabric to pause-frame and ECN/CNP rates that go to 0
 * in steady state (thresholds pfc_rate_max, ecn_rate_max): a probe with an
 * interval gives the per-second rates. The CNP rate needs no switch: the NIC's
 * own hw_counters in sysfs count CNPs sent (notification point) and handled
 * (reaction point).
 */
int
ft__diag_eval_cc_steady_state(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	static const struct {
		const char *pat;
		bool ecn;
		const char *what;
	} keys[] = {
		{ "eth.counter.rx_prio[0-7]_pause.rate", false, "pause frames received" },
		{ "eth.counter.tx_prio[0-7]_pause.rate", false, "pause frames sent" },
		{ "eth.counter.rx_global_pause.rate", false, "global pause frames received" },
		{ "eth.counter.tx_global_pause.rate", false, "global pause frames sent" },
		{ "*counter.np_ecn_marked_roce_packets.rate", true, "ECN-marked packets received" },
		{ "*counter.np_cnp_sent.rate", true, "CNPs sent" },
		{ "*counter.rp_cnp_handled.rate", true, "CNPs handled by the sender" },
	};
	size_t i, k;
	int rc;

	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);
		const struct ft_obs *ev[1] = { o };
		double v, max;

		for (k = 0; k < FT_ARRAY_SIZE(keys); k++)
			if (ft__key_match(o->key, keys[k].pat))
				break;
		if (k == FT_ARRAY_SIZE(keys) || !ft__obs_number(o, &v))
			continue;
		max = keys[k].ecn ? c->thresholds->ecn_rate_max : c->thresholds->pfc_rate_max;
		if (v <= max)
			continue;
		rc = ft__diag_emit(c, out, -1, ev, 1,
				   "%.0f %s per second during the probe interval; in steady state "
				   "the fabric is held to %g/s (thresholds %s): congestion is "
				   "ongoing, not a burst",
				   v, keys[k].what, max, keys[k].ecn ? "ecn_rate_max" : "pfc_rate_max");
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* SPDX-License-Identifier: MIT */
/*
 * diag/rules_ib.c - InfiniBand port rules: state, link training, MTU and the
 * PortCounters error and congestion counters.
 *
 * Counter thresholds are the defaults of rdma-core's infiniband-diags
 * error_thresholds file (IBD-THR, cited in IB-COUNTERS): they apply to the
 * value since the last clear. The MTU and degraded-rate rules follow IB-MTU
 * and IB-SPEED.
 */
#include "internal.h"

#include "diag/diag_int.h"

/* ---- port state ---------------------------------------------------------- */

static int
check_port_down(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *st)
{
	const struct ft_obs *ph, *ll;
	bool disabled;

	if (ft__port_state_active(st->str) || ft__str_icontains(st->str, "init") ||
	    ft__str_icontains(st->str, "armed"))
		return 0;
	ph = ft__diag_find_same(c, "ib.port.phys_state", st);
	ll = ft__diag_find_same(c, "ib.port.link_layer", st);
	disabled = ph && ft__str_icontains(ph->str, "disabled");
	return ft__diag_emit(c, out, disabled ? FT_SEV_INFO : -1, FT__EV(st, ph, ll),
			     "%s port is %s, physical state %s: %s",
			     ll && ll->str[0] ? ll->str : "RDMA", st->str, ph ? ph->str : "unknown",
			     disabled ? "administratively disabled, carries no traffic"
				      : "no link (no cable or peer, or a failed cable/port)");
}
FT__DIAG_EACH(eval_port_down, "ib.port.state", check_port_down)

static int
check_port_no_sm(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *st)
{
	if (!(ft__str_icontains(st->str, "init") || ft__str_icontains(st->str, "armed")))
		return 0;
	return ft__diag_emit(c, out, -1,
			     FT__EV(st, ft__diag_find_same(c, "ib.port.phys_state", st),
				    ft__diag_find_same(c, "ib.port.sm_lid", st)),
			     "port is %s: the link trained but no subnet manager brought it to "
			     "Active, so nothing communicates over it",
			     st->str);
}
FT__DIAG_EACH(eval_port_no_sm, "ib.port.state", check_port_no_sm)

/* ---- link training ------------------------------------------------------- */

/* Per-lane data rate in Gb/s of a speed name or number (IB-SPEED); 0 when unknown. */
static double
lane_rate(const char *s)
{
	static const struct {
		const char *name;
		double gbps;
	} names[] = {
		{ "FDR10", 10 }, { "SDR", 2.5 }, { "DDR", 5 },	 { "QDR", 10 },	 { "FDR", 14.0625 },
		{ "EDR", 25 },	 { "HDR", 50 },	 { "NDR", 100 }, { "XDR", 200 },
	};
	size_t i;
	double v;

	for (i = 0; i < FT_ARRAY_SIZE(names); i++)
		if (ft__str_icontains(s, names[i].name))
			return names[i].gbps;
	v = strtod(s, NULL);
	return v > 0 ? v : 0;
}

/* The largest value in a list like "1X or 4X" / "2.5 Gbps or 5.0 Gbps or 10.0 Gbps". */
static double
list_max(const char *s, bool width)
{
	char buf[160];
	char *save = NULL, *tok;
	double best = 0;

	ft_strlcpy(buf, s, sizeof(buf));
	for (tok = strtok_r(buf, ",;", &save); tok; tok = strtok_r(NULL, ",;", &save)) {
		char *p = tok;
		char *next;

		do {
			double v;

			next = strstr(p, " or ");
			if (next)
				*next = '\0';
			while (*p == ' ')
				p++;
			v = width ? strtod(p, NULL) : lane_rate(p);
			if (v > best)
				best = v;
			if (next)
				p = next + 4;
		} while (next);
	}
	return best;
}

/* "ib.port.<width|speed>_active" against "<...>_supported" of the same port. */
static int
check_below_capability(const struct ft_diag_ctx *c, struct ft_findings *out,
		       const struct ft_obs *a)
{
	bool width = strcmp(a->key, "ib.port.width_active") == 0;
	const char *sup_key = width ? "ib.port.width_supported" : "ib.port.speed_supported";
	const struct ft_obs *sup = ft__diag_find_same(c, sup_key, a);
	const struct ft_obs *st = ft__diag_find_same(c, "ib.port.state", a);
	double va, vs;

	/* A down port reports base width/speed: not a degraded link (IB-SPEED). */
	if (!sup || (st && !ft__port_state_active(st->str)))
		return 0;
	va = width ? strtod(a->str, NULL) : lane_rate(a->str);
	vs = list_max(sup->str, width);
	if (a->has_num && width)
		va = a->num;
	if (va <= 0 || vs <= 0 || va >= vs)
		return 0;
	return ft__diag_emit(c, out, -1, FT__EV(a, sup, st),
			     "link trained at %s %s but the port supports %s: the port runs at "
			     "%.0f%% of its capability",
			     width ? "width" : "speed", a->str, sup->str, 100.0 * va / vs);
}
FT__DIAG_EACH(eval_below_capability, "ib.port.width_active ib.port.speed_active",
	      check_below_capability)

static bool
is_active_port_rate(const struct ft_diag_ctx *c, const struct ft_obs *o, const char *layer)
{
	const struct ft_obs *st, *ll;

	if (strcmp(o->key, "ib.port.rate") != 0 || !o->has_num || o->num <= 0)
		return false;
	st = ft__diag_find_same(c, "ib.port.state", o);
	if (!st || !ft__port_state_active(st->str))
		return false;
	ll = ft__diag_find_same(c, "ib.port.link_layer", o);
	return strcasecmp(ll ? ll->str : "InfiniBand", layer) == 0;
}

static int
eval_rate_below_peers(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	static const char *const layers[] = { "InfiniBand", "Ethernet" };
	size_t i, l;
	int rc;

	for (l = 0; l < FT_ARRAY_SIZE(layers); l++) {
		const struct ft_obs *best = NULL;

		for (i = 0; i < ft__nobs(c); i++) {
			const struct ft_obs *o = ft__obs(c, i);

			if (is_active_port_rate(c, o, layers[l]) && (!best || o->num > best->num))
				best = o;
		}
		if (!best)
			continue;
		for (i = 0; i < ft__nobs(c); i++) {
			const struct ft_obs *o = ft__obs(c, i);
			const struct ft_obs *ev[2] = { o, best };

			if (!is_active_port_rate(c, o, layers[l]) || o->num >= best->num)
				continue;
			rc = ft__diag_emit(
				c, out, -1, ev, 2,
				"active %s port at %.0f Gb/s while its peers run at %.0f "
				"Gb/s: a lane failed or the cable negotiated down",
				layers[l], o->num, best->num);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/* ---- MTU ----------------------------------------------------------------- */

static bool
is_active_ib_mtu(const struct ft_diag_ctx *c, const struct ft_obs *o)
{
	const struct ft_obs *st, *ll;

	if (strcmp(o->key, "ib.port.mtu_active") != 0 || !o->has_num)
		return false;
	st = ft__diag_find_same(c, "ib.port.state", o);
	if (st && !ft__port_state_active(st->str))
		return false;
	ll = ft__diag_find_same(c, "ib.port.link_layer", o);
	return !ll || ft__str_ieq(ll->str, "InfiniBand");
}
FT__DIAG_DISAGREE(eval_mtu_mismatch, is_active_ib_mtu, true,
		  "active InfiniBand ports disagree on MTU (%.0f vs %.0f bytes): a QP runs at the "
		  "smaller of its two ends")

static int
check_mtu_low(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	if (!is_active_ib_mtu(c, o) || o->num >= 4096)
		return 0;
	return ft__diag_emit(c, out, -1, FT__EV(o, ft__diag_find_same(c, "ib.port.mtu_max", o)),
			     "active MTU %.0f bytes on an InfiniBand port: below 4096 every packet "
			     "carries %.1f%% headers instead of %.1f%%, at %.0fx the packet rate",
			     o->num, 100.0 * (1 - ft_diag_payload_efficiency(o->num, 26)),
			     100.0 * (1 - ft_diag_payload_efficiency(4096, 26)), 4096 / o->num);
}
FT__DIAG_EACH(eval_mtu_low, "ib.port.mtu_active", check_mtu_low)

/* ---- ibdiagnet ------------------------------------------------------------ */

static int
check_ibdiagnet(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	bool rate = ft__str_icontains(o->str, "Suboptimal rate");

	/* A missing topology file only means no topology comparison was made. */
	if (ft__str_icontains(o->str, "Topology file is not specified"))
		return 0;
	return ft__diag_emit(c, out, rate ? -1 : FT_SEV_INFO, FT__EV(o),
			     rate ? "ibdiagnet: \"%.160s\": an IPoIB multicast group runs below "
				    "its members' link rate, so multicast traffic is throttled to "
				    "the group rate"
				  : "ibdiagnet warning: \"%.160s\"",
			     o->str);
}
FT__DIAG_EACH(eval_ibdiagnet, "ibdiag.warning", check_ibdiagnet)

/* ---- counters ------------------------------------------------------------ */

static const struct ft__counter_rule c_symbol = {
	{ "ib.counter.SymbolErrorCounter", NULL },
	10,
	0,
	"IBD-THR default",
	"minor link errors on a lane: dirty or damaged cable or connector, marginal optics; on "
	"HDR/NDR these errors survived FEC",
	.rate_threshold = 0.001 /* more than a handful per hour (IB-COUNTERS) */
};
static const struct ft__counter_rule c_recovery = {
	{ "ib.counter.LinkErrorRecoveryCounter", NULL },
	10,
	0,
	"IBD-THR default",
	"the link retrained: each event stalls traffic and can trigger transport retries"
};
static const struct ft__counter_rule c_downed = {
	{ "ib.counter.LinkDownedCounter", NULL },
	1,
	10,
	"any increment; IBD-THR default 10 is critical",
	"the link went down: flapping cable, port or peer reboot; ranks behind it see "
	"NCCL error 12",
	.rate_critical = true
};
static const struct ft__counter_rule c_rcv = {
	{ "ib.counter.PortRcvErrors", NULL },
	10,
	0,
	"IBD-THR default",
	"received packets with errors: physical-layer corruption (CRC) or malformed packets"
};
static const struct ft__counter_rule c_remote = {
	{ "ib.counter.PortRcvRemotePhysicalErrors", NULL },
	100,
	0,
	"IBD-THR default",
	"packets arrived already corrupted: the bad link is one hop upstream"
};
static const struct ft__counter_rule c_relay = {
	{ "ib.counter.PortRcvSwitchRelayErrors", NULL },
	100,
	0,
	"IBD-THR default",
	"packets the switch could not forward: forwarding-table (subnet manager) problems"
};
static const struct ft__counter_rule c_discards = {
	{ "ib.counter.PortXmitDiscards", NULL },
	100,
	0,
	"IBD-THR default",
	"outbound packets dropped: severe congestion (head-of-queue lifetime expired) or "
	"a down port"
};
static const struct ft__counter_rule c_wait = {
	{ "ib.counter.PortXmitWait", NULL },
	1000,
	0,
	"IBD-THR floor; tick length is device-specific",
	"the port had data but no credits: downstream congestion, incast or a slow receiver",
	.rate_threshold = -1 /* tick length is device-specific */
};
static const struct ft__counter_rule c_constraint = {
	{ "ib.counter.PortXmitConstraintErrors", "ib.counter.PortRcvConstraintErrors", NULL },
	100,
	0,
	"IBD-THR default",
	"packets filtered by partition (P_Key) checks: partition membership mismatch"
};
static const struct ft__counter_rule c_integrity = {
	{ "ib.counter.LocalLinkIntegrityErrors", NULL },
	10,
	0,
	"IBD-THR default",
	"local physical errors exceeded their threshold: poor link quality"
};
static const struct ft__counter_rule c_overrun = {
	{ "ib.counter.ExcessiveBufferOverrunErrors", NULL },
	10,
	0,
	"IBD-THR default",
	"input buffer overruns: port misconfiguration or very poor signal integrity"
};
static const struct ft__counter_rule c_vl15 = {
	{ "ib.counter.VL15Dropped", NULL },
	100,
	0,
	"IBD-THR default",
	"management packets dropped: subnet-management storms or an overloaded SM path"
};

#define COUNTER_RULE FT__DIAG_COUNTER_RULE

/* ---- congestion control in the subnet manager ------------------------------ */

/*
 * IB-CC / CC-IB: OpenSM's `congestion_control` defaults to FALSE; NVIDIA's
 * OpenSM has `mlnx_congestion_control` (0 ignore, 1 disable, 2 enable). Off is
 * a finding where the fabric shows it needs CC: congestion counters (IBD-THR
 * floors: PortXmitWait >= 1000, PortXmitDiscards >= 100) or a large subnet
 * (64 nodes or more in the spec, heuristic: many-to-one traffic is then the
 * rule, not the exception).
 */
#define CC_NEEDED_NODES 64

static int
eval_ib_cc_off(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *cc = ft__diag_find(c, "opensm.congestion_control");
	const struct ft_obs *mcc = ft__diag_find(c, "opensm.mlnx_congestion_control");
	const struct ft_obs *need = NULL, *ev[3];
	const struct ft_obs *o;
	bool off;
	size_t i;

	if (mcc && mcc->has_num)
		off = mcc->num < 2;
	else if (cc && cc->has_num)
		off = cc->num == 0;
	else
		return 0;
	if (!off)
		return 0;
	for (i = 0; i < ft__nobs(c) && !need; i++) {
		o = ft__obs(c, i);
		if (!o->has_num)
			continue;
		if ((strcmp(o->key, "ib.counter.PortXmitWait") == 0 && o->num >= 1000) ||
		    (strcmp(o->key, "ib.counter.PortXmitDiscards") == 0 && o->num >= 100) ||
		    (strcmp(o->key, "spec.nodes") == 0 && o->num >= CC_NEEDED_NODES))
			need = o;
	}
	if (!need)
		return 0;
	ev[0] = mcc ? mcc : cc;
	ev[1] = need;
	ev[2] = ft__diag_find(c, "spec.fabric.kind");
	return ft__diag_emit(
		c, out, -1, ev, 3,
		"the subnet manager leaves congestion control %s (%s %s) on a fabric that needs it "
		"(%s = %.0f): congested ports spread backpressure to victim flows through credit "
		"flow control with no source throttling",
		mcc ? (mcc->num == 1 ? "disabled" : "unconfigured") : "off", ev[0]->key + 7, ev[0]->str,
		need->key, need->num);
}

const struct ft_rule ft__diag_rules_ib[] = {
	{ .id = "ib-cc-off",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "IB congestion control off in the subnet manager on a fabric that needs it",
	  .needs = "opensm.congestion_control opensm.mlnx_congestion_control "
		   "ib.counter.PortXmitWait ib.counter.PortXmitDiscards spec.nodes",
	  .eval = eval_ib_cc_off,
	  .fix = "enable congestion control in the SM (NVIDIA OpenSM: mlnx_congestion_control 2 "
		 "with a policy file; upstream OpenSM: congestion_control TRUE and the cc_* "
		 "options) or in UFM, with adaptive routing for the traffic it cannot throttle",
	  .kb = "IB-CC CC-IB IB-COUNTERS" },
	{ .id = "ib-port-down",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_WARNING,
	  .summary = "an RDMA port is not Active/LinkUp",
	  .needs = "ib.port.state ib.port.phys_state ib.port.link_layer",
	  .eval = eval_port_down,
	  .fix = "check the cable and the peer port (ibstat, iblinkinfo); reseat or replace the "
		 "cable or transceiver; leave unused ports out of NCCL_IB_HCA",
	  .kb = "IB-SPEED SYM-LINK-DEGRADED" },
	{ .id = "ib-port-no-sm",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_ERROR,
	  .summary = "a port is Init or Armed: no subnet manager made it Active",
	  .needs = "ib.port.state ib.port.phys_state ib.port.sm_lid",
	  .eval = eval_port_no_sm,
	  .fix = "start or repair the subnet manager (sminfo; OpenSM or UFM) and check its logs",
	  .kb = "IB-SM SYM-IB-SM" },
	{ .id = "ib-link-below-capability",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_WARNING,
	  .summary = "an active port trained below its supported width or speed",
	  .needs = "ib.port.width_active ib.port.width_supported ib.port.speed_active "
		   "ib.port.speed_supported ib.port.state",
	  .eval = eval_below_capability,
	  .fix = "replace the cable or transceiver (a failed lane or an older cable type), then "
		 "check the port's speed configuration",
	  .kb = "IB-SPEED SYM-LINK-DEGRADED" },
	{ .id = "ib-rate-below-peers",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_WARNING,
	  .summary = "an active port runs at a lower rate than the other ports of its kind",
	  .needs = "ib.port.rate ib.port.state ib.port.link_layer",
	  .eval = eval_rate_below_peers,
	  .fix = "compare with iblinkinfo; replace the cable or transceiver of the slow port",
	  .kb = "IB-SPEED SYM-LINK-DEGRADED" },
	{ .id = "ib-mtu-below-4096",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "an active InfiniBand port runs an MTU below 4096",
	  .needs = "ib.port.mtu_active ib.port.state ib.port.link_layer",
	  .eval = eval_mtu_low,
	  .fix = "raise the partition/QoS mtu-limit in the subnet manager to 4096 on every hop",
	  .kb = "IB-MTU" },
	{ .id = "ib-mtu-mismatch",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "active InfiniBand ports disagree on the MTU",
	  .needs = "ib.port.mtu_active ib.port.state",
	  .eval = eval_mtu_mismatch,
	  .fix = "configure one MTU (4096) fabric-wide in the subnet manager",
	  .kb = "IB-MTU" },
	{ .id = "ib-ibdiagnet-warning",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "ibdiagnet reported a fabric warning",
	  .needs = "ibdiag.warning",
	  .eval = eval_ibdiagnet,
	  .fix = "suboptimal IPoIB group rate: set the partition's rate in the SM partition "
		 "configuration (partitions.conf rate=) to the links' rate; other warnings: see "
		 "the ibdiagnet report section named in the message",
	  .kb = "IB-TOOLS IB-SM IB-PKEY" },
	{ .id = "ib-pkey-membership",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_ERROR,
	  .summary = "ports cannot reach each other in the partition at NCCL's P_Key index",
	  .needs = "ib.pkey.* ib.pkey.capacity nccl.env.NCCL_IB_PKEY",
	  .eval = ft__diag_eval_pkey,
	  .fix = "give every port of the job full membership of one partition in the subnet "
		 "manager's partitions.conf (NAME=0xPKEY : GUID=full, ...), or set NCCL_IB_PKEY "
		 "to the index where the ports hold it; re-read the tables with smpquery "
		 "PKeyTable after the SM has run",
	  .kb = "IB-PKEY OSM-PART" },
	{ .id = "ib-sl-vl-unserved",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_ERROR,
	  .summary = "the SL NCCL sends on maps to a VL the port does not run (VL15 or past OperVLs)",
	  .needs = "ib.sl2vl.sl* ib.portinfo.OperVLs nccl.env.NCCL_IB_SL",
	  .eval = ft__diag_eval_sl2vl,
	  .fix = "map the SL to an operational data VL in the subnet manager (opensm qos_sl2vl / "
		 "qos_*_sl2vl, max_op_vls) or set NCCL_IB_SL to an SL the fabric serves; "
		 "check with smpquery sl2vl and smpquery portinfo on each hop",
	  .kb = "IB-VL OSM-QOS" },
	COUNTER_RULE("ib-symbol-errors", FT_LAYER_FIRMWARE_HW, FT_SEV_WARNING,
		     "SymbolErrorCounter over the IBD-THR threshold", c_symbol,
		     "ib.counter.SymbolErrorCounter",
		     "clean or reseat the connector, swap the cable or optic, move the port; run "
		     "ibdiagnet --get_phy_info after 5-10 minutes of traffic",
		     "IB-COUNTERS SYM-LINK-ERRORS"),
	COUNTER_RULE("ib-link-recovery", FT_LAYER_FIRMWARE_HW, FT_SEV_WARNING,
		     "LinkErrorRecoveryCounter over the IBD-THR threshold", c_recovery,
		     "ib.counter.LinkErrorRecoveryCounter",
		     "swap the cable or transceiver; drain the link if it keeps retraining",
		     "IB-COUNTERS SYM-LINK-ERRORS SYM-JITTER"),
	COUNTER_RULE("ib-link-downed", FT_LAYER_FIRMWARE_HW, FT_SEV_ERROR,
		     "LinkDownedCounter is not zero", c_downed, "ib.counter.LinkDownedCounter",
		     "find the flapping link (perfquery -x on both ends, dmesg), replace the cable "
		     "or port, isolate the node until fixed",
		     "IB-COUNTERS SYM-LINK-ERRORS SYM-ERR-12"),
	COUNTER_RULE("ib-rcv-errors", FT_LAYER_FIRMWARE_HW, FT_SEV_WARNING,
		     "PortRcvErrors over the IBD-THR threshold", c_rcv, "ib.counter.PortRcvErrors",
		     "check the physical link (cable, optic); on inter-switch links run ibdiagnet",
		     "IB-COUNTERS"),
	COUNTER_RULE("ib-remote-physical-errors", FT_LAYER_FABRIC, FT_SEV_WARNING,
		     "PortRcvRemotePhysicalErrors over the IBD-THR threshold", c_remote,
		     "ib.counter.PortRcvRemotePhysicalErrors",
		     "look one hop upstream for the port with symbol errors and fix that link",
		     "IB-COUNTERS"),
	COUNTER_RULE("ib-switch-relay-errors", FT_LAYER_FABRIC, FT_SEV_WARNING,
		     "PortRcvSwitchRelayErrors over the IBD-THR threshold", c_relay,
		     "ib.counter.PortRcvSwitchRelayErrors",
		     "run ibdiagnet routing checks; check the routing engine and SM logs",
		     "IB-COUNTERS IB-SM SYM-IB-SM"),
	COUNTER_RULE("ib-xmit-discards", FT_LAYER_FABRIC, FT_SEV_WARNING,
		     "PortXmitDiscards over the IBD-THR threshold", c_discards,
		     "ib.counter.PortXmitDiscards",
		     "find the congested or down port; enable adaptive routing, fix routing "
		     "imbalance and placement",
		     "IB-COUNTERS IB-FC SYM-IB-CONGESTION"),
	COUNTER_RULE("ib-xmit-wait", FT_LAYER_FABRIC, FT_SEV_WARNING,
		     "PortXmitWait over the IBD-THR reporting floor (congestion)", c_wait,
		     "ib.counter.PortXmitWait",
		     "host-facing port: look for a slow receiver (PCIe, NUMA, GDR); inter-switch "
		     "port: check routing engine and adaptive routing, spread the job",
		     "IB-COUNTERS IB-FC IB-AR SYM-IB-CONGESTION"),
	COUNTER_RULE("ib-constraint-errors", FT_LAYER_FABRIC, FT_SEV_WARNING,
		     "partition constraint errors over the IBD-THR threshold", c_constraint,
		     "ib.counter.PortXmitConstraintErrors ib.counter.PortRcvConstraintErrors",
		     "check partitions.conf membership (full vs limited) and NCCL_IB_PKEY",
		     "IB-COUNTERS IB-PKEY SYM-IB-PKEY"),
	COUNTER_RULE("ib-link-integrity", FT_LAYER_FIRMWARE_HW, FT_SEV_WARNING,
		     "LocalLinkIntegrityErrors over the IBD-THR threshold", c_integrity,
		     "ib.counter.LocalLinkIntegrityErrors", "replace the cable or transceiver",
		     "IB-COUNTERS SYM-LINK-ERRORS"),
	COUNTER_RULE("ib-buffer-overrun", FT_LAYER_FIRMWARE_HW, FT_SEV_WARNING,
		     "ExcessiveBufferOverrunErrors over the IBD-THR threshold", c_overrun,
		     "ib.counter.ExcessiveBufferOverrunErrors",
		     "check the port configuration (VLs, credits) and the signal quality",
		     "IB-COUNTERS"),
	COUNTER_RULE("ib-vl15-dropped", FT_LAYER_FABRIC, FT_SEV_WARNING,
		     "VL15Dropped over the IBD-THR threshold", c_vl15, "ib.counter.VL15Dropped",
		     "look for subnet-management storms; check the SM and its sweep interval",
		     "IB-COUNTERS IB-VL"),
};
const size_t ft__diag_nrules_ib = FT_ARRAY_SIZE(ft__diag_rules_ib);

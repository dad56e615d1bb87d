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
FT__DIAG_EACH(ft__diag_eval_port_down, "ib.port.state", check_port_down)

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
FT__DIAG_EACH(ft__diag_eval_port_no_sm, "ib.port.state", check_port_no_sm)

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
FT__DIAG_EACH(ft__diag_eval_below_capability, "ib.port.width_active ib.port.speed_active",
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

/*
 * The adapter model of a port's device, as a number: ibstat's "CA type:
 * MT4129" and ibv_devinfo's "vendor_part_id: 4129" name the same card
 * (ConnectX-7); 0 when unknown.
 */
static long
port_model(const struct ft_diag_ctx *c, const struct ft_obs *o)
{
	const struct ft_obs *m = ft__diag_find_dev(c, "ib.dev.ca_type", o);
	const char *p;

	if (!m)
		m = ft__diag_find_dev(c, "ib.dev.vendor_part_id", o);
	if (!m)
		return 0;
	if (m->has_num)
		return (long)m->num;
	for (p = m->str; *p && (*p < '0' || *p > '9'); p++)
		;
	return strtol(p, NULL, 10);
}

/* An active port's rate, or the fastest of a group of them: the observation and its index. */
struct port_top {
	long model; /* the adapter model (port_model), 0 when unknown */
	const struct ft_obs *o;
	size_t i;
};

/* @t becomes @o (index @i) when faster, the earlier one kept on a tie. */
static void
top_take(struct port_top *t, const struct ft_obs *o, size_t i)
{
	if (!t->o || o->num > t->o->num)
		*t = (struct port_top){ t->model, o, i };
}

/* The faster of two tops, the earlier one on a tie; NULL-safe. */
static const struct port_top *
top_max(const struct port_top *a, const struct port_top *b)
{
	if (!a->o || (b->o && (b->o->num > a->o->num || (b->o->num == a->o->num && b->i < a->i))))
		return b;
	return a;
}

/*
 * Every active port of link layer @layer into @ports, and the fastest of
 * them (@all), of those of unknown model (@unknown) and of each model
 * (@models): one pass over the observations.
 */
static int
rate_tops(const struct ft_diag_ctx *c, const char *layer, struct ft_vec *ports,
          struct ft_vec *models, struct port_top *all, struct port_top *unknown)
{
	for (size_t i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);
		struct port_top me = { 0, o, i }, *m = NULL;

		if (!is_active_port_rate(c, o, layer))
			continue;
		me.model = port_model(c, o);
		if (ft_vec_push(ports, &me) < 0)
			return FT_ENOMEM;
		top_take(all, o, i);
		if (!me.model) {
			top_take(unknown, o, i);
			continue;
		}
		for (size_t k = 0; k < models->len && !m; k++)
			if (((struct port_top *)ft_vec_at(models, k))->model == me.model)
				m = ft_vec_at(models, k);
		if (!m && ft_vec_push(models, &me) < 0)
			return FT_ENOMEM;
		if (m)
			top_take(m, o, i);
	}
	return 0;
}

/*
 * The fleet norm of each port (SYM-LINK-DEGRADED): the fastest active port
 * of the same link layer and, where both are known, the same adapter model;
 * a ConnectX-6 HDR port at 200 beside ConnectX-7 NDR ports at 400 runs at
 * its own top rate, not a degraded one. A port of unknown model is held to
 * every port; one of a known model to its model's and the unknown ones.
 */
static int
rate_below_peers_layer(const struct ft_diag_ctx *c, const char *layer, struct ft_vec *ports,
                       struct ft_vec *models, struct ft_findings *out)
{
	struct port_top all = { 0 }, unknown = { 0 };
	int rc = rate_tops(c, layer, ports, models, &all, &unknown);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < ports->len; i++) {
		const struct port_top *me = ft_vec_at(ports, i), *best = &all;
		const struct ft_obs *o = me->o;

		for (size_t k = 0; me->model && k < models->len; k++)
			if (((const struct port_top *)ft_vec_at(models, k))->model == me->model)
				best = top_max(ft_vec_at(models, k), &unknown);
		if (!best->o || o->num >= best->o->num)
			continue;
		rc = ft__diag_emit(c, out, -1, FT__EV(o, best->o),
		                   "active %s port at %.0f Gb/s while its peers run at %.0f "
		                   "Gb/s: a lane failed or the cable negotiated down",
		                   layer, o->num, best->o->num);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int
ft__diag_eval_rate_below_peers(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	static const char *const layers[] = { "InfiniBand", "Ethernet" };
	struct ft_vec ports, models;
	int rc = 0;

	ft_vec_init(&ports, sizeof(struct port_top));
	ft_vec_init(&models, sizeof(struct port_top));
	for (size_t l = 0; rc == 0 && l < FT_ARRAY_SIZE(layers); l++) {
		ports.len = models.len = 0;
		rc = rate_below_peers_layer(c, layers[l], &ports, &models, out);
	}
	ft_vec_release(&ports);
	ft_vec_release(&models);
	return rc;
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
FT__DIAG_DISAGREE(ft__diag_eval_mtu_mismatch, is_active_ib_mtu, true,
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
FT__DIAG_EACH(ft__diag_eval_mtu_low, "ib.port.mtu_active", check_mtu_low)

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
FT__DIAG_EACH(ft__diag_eval_ibdiagnet, "ibdiag.warning", check_ibdiagnet)

/* ---- counters ------------------------------------------------------------ */

const struct ft__counter_rule ft__diag_counter_symbol = {
	{ "ib.counter.SymbolErrorCounter", NULL },
	10,
	0,
	"IBD-THR default",
	"minor link errors on a lane: dirty or damaged cable or connector, marginal optics; on "
	"HDR/NDR these errors survived FEC",
	.rate_threshold = 0.001 /* more than a handful per hour (IB-COUNTERS) */
};
const struct ft__counter_rule ft__diag_counter_recovery = {
	{ "ib.counter.LinkErrorRecoveryCounter", NULL },
	10,
	0,
	"IBD-THR default",
	"the link retrained: each event stalls traffic and can trigger transport retries"
};
const struct ft__counter_rule ft__diag_counter_downed = {
	{ "ib.counter.LinkDownedCounter", NULL },
	1,
	10,
	"any increment; IBD-THR default 10 is critical",
	"the link went down: flapping cable, port or peer reboot; ranks behind it see "
	"NCCL error 12",
	.rate_critical = true
};
const struct ft__counter_rule ft__diag_counter_rcv = {
	{ "ib.counter.PortRcvErrors", NULL },
	10,
	0,
	"IBD-THR default",
	"received packets with errors: physical-layer corruption (CRC) or malformed packets"
};
const struct ft__counter_rule ft__diag_counter_remote = {
	{ "ib.counter.PortRcvRemotePhysicalErrors", NULL },
	100,
	0,
	"IBD-THR default",
	"packets arrived already corrupted: the bad link is one hop upstream"
};
const struct ft__counter_rule ft__diag_counter_relay = {
	{ "ib.counter.PortRcvSwitchRelayErrors", NULL },
	100,
	0,
	"IBD-THR default",
	"packets the switch could not forward: forwarding-table (subnet manager) problems"
};
const struct ft__counter_rule ft__diag_counter_discards = {
	{ "ib.counter.PortXmitDiscards", NULL },
	100,
	0,
	"IBD-THR default",
	"outbound packets dropped: severe congestion (head-of-queue lifetime expired) or "
	"a down port"
};
const struct ft__counter_rule ft__diag_counter_wait = {
	{ "ib.counter.PortXmitWait", NULL },
	1000,
	0,
	"IBD-THR floor; tick length is device-specific",
	"the port had data but no credits: downstream congestion, incast or a slow receiver",
	.rate_threshold = -1 /* tick length is device-specific */
};
const struct ft__counter_rule ft__diag_counter_constraint = {
	{ "ib.counter.PortXmitConstraintErrors", "ib.counter.PortRcvConstraintErrors", NULL },
	100,
	0,
	"IBD-THR default",
	"packets filtered by partition (P_Key) checks: partition membership mismatch"
};
const struct ft__counter_rule ft__diag_counter_integrity = {
	{ "ib.counter.LocalLinkIntegrityErrors", NULL },
	10,
	0,
	"IBD-THR default",
	"local physical errors exceeded their threshold: poor link quality"
};
const struct ft__counter_rule ft__diag_counter_overrun = {
	{ "ib.counter.ExcessiveBufferOverrunErrors", NULL },
	10,
	0,
	"IBD-THR default",
	"input buffer overruns: port misconfiguration or very poor signal integrity"
};
const struct ft__counter_rule ft__diag_counter_vl15 = {
	{ "ib.counter.VL15Dropped", NULL },
	100,
	0,
	"IBD-THR default",
	"management packets dropped: subnet-management storms or an overloaded SM path"
};

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

int
ft__diag_eval_ib_cc_off(const struct ft_diag_ctx *c, struct ft_findings *out)
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

/* SPDX-License-Identifier: MIT */
/*
 * diag/advise_table.c - the advice templates: one entry per change (id,
 * triggering and vetoing rules, setting, value, action, reason, link layer,
 * kb ids, gain), the hooks that compute the figures the texts and gains
 * need, and the closed-form gains (IB-MTU / ROCE-WIRE headers, measured
 * busbw against NA-EXPECT's expectation, scaling, bonds, link and PCIe
 * rates). diag/advise.c walks the table; diag/whatif.c runs the twin for
 * the entries that name a what-if.
 */
#include "internal.h"

#include <fabtune/diag.h>

#include "diag/advise_int.h"
#include "diag/diag_int.h"

/* NA-EXPECT: ~90% of line rate is good for large NCCL messages (heuristic). */
#define LINE_RATE_GOOD 0.90

/* ---- figures for gains --------------------------------------------------- */

/* Largest measured busbw (GB/s), or NULL. */
static const struct ft_obs *
best_busbw(const struct ft_diag_ctx *c)
{
	const struct ft_obs *best = NULL;
	size_t i;

	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);

		if (strcmp(o->key, "bench.busbw") == 0 && o->has_num &&
		    (!best || o->num > best->num))
			best = o;
	}
	return best;
}

/*
 * The busbw a healthy fabric should give: the largest expectation when the
 * model gave one, else NA-EXPECT's 90% of the aggregate rate of the active
 * InfiniBand-or-RoCE ports of the host that has the most. 0 when unknown.
 * @basis says where it comes from, without the figure.
 */
static double
expected_busbw(const struct ft_diag_ctx *c, char *basis, size_t len)
{
	double best = 0, rate = 0;
	size_t i, k, nports = 0;

	for (i = 0; i < c->nexpect; i++)
		if (c->expect[i].busbw_GBps > best)
			best = c->expect[i].busbw_GBps;
	if (best > 0) {
		ft_strlcpy(basis, "model expectation", len);
		return best;
	}
	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);
		const struct ft_obs *st;
		size_t n = 0;

		if (strcmp(o->key, "ib.port.rate") != 0 || !o->has_num)
			continue;
		st = ft__diag_find_same(c, "ib.port.state", o);
		if (!st || !ft__port_state_active(st->str))
			continue;
		for (k = 0; k < ft__nobs(c); k++) {
			const struct ft_obs *p = ft__obs(c, k);
			const struct ft_obs *ps;

			if (strcmp(p->key, "ib.port.rate") != 0 || strcmp(p->host, o->host) != 0 ||
			    !p->has_num || p->num != o->num)
				continue;
			ps = ft__diag_find_same(c, "ib.port.state", p);
			if (ps && ft__port_state_active(ps->str))
				n++;
		}
		if (n * o->num > nports * rate) {
			nports = n;
			rate = o->num;
		}
	}
	if (!nports)
		return 0;
	snprintf(basis, len, "%.0f%% of %zu active port%s x %.0f Gb/s, NA-EXPECT",
		 100 * LINE_RATE_GOOD, nports, nports == 1 ? "" : "s", rate);
	return LINE_RATE_GOOD * (double)nports * rate / 8.0;
}

/* Gain of reaching the expected busbw from the measured one. */
static void
bandwidth_gain(const struct ft__adv_ctx *a, const struct ft__adv_template *t,
	       const struct ft_finding *f, struct ft_advice *x)
{
	const struct ft_obs *m = best_busbw(a->c);
	char basis[128];
	double e = expected_busbw(a->c, basis, sizeof(basis));

	if (!m || e <= 0) {
		snprintf(x->gain_basis, sizeof(x->gain_basis), "not computable: %s",
			 !m ? "no measured busbw among the inputs"
			    : "no expectation and no active port rate");
		return;
	}
	ft__adv_add_evidence(x, m);
	ft_strlcpy(x->gain_engine, "measured vs expected", sizeof(x->gain_engine));
	if (m->num >= e) {
		x->gain_pct = 0;
		snprintf(x->gain_basis, sizeof(x->gain_basis),
			 "measured %.1f GB/s already meets %.1f GB/s (%s)", m->num, e, basis);
		return;
	}
	x->gain_pct = 100.0 * (e / m->num - 1);
	/* the expected figure once, then where it comes from */
	snprintf(x->gain_basis, sizeof(x->gain_basis), "measured busbw %.1f GB/s vs %.1f GB/s (%s)",
		 m->num, e, basis);
}

/* Gain of regaining the smallest run's plateau at the largest scale (SYM-SCALE-DROP). */
static void
scale_gain(const struct ft__adv_ctx *a, const struct ft__adv_template *t,
	   const struct ft_finding *trigger, struct ft_advice *x)
{
	const struct ft_finding *f = ft__adv_finding_of(a, "perf-scale-drop");
	const struct ft_obs *lo, *hi;

	if (!f || f->nevidence < 2) {
		ft_strlcpy(x->gain_basis, "not computable without the fabric's topology",
			   sizeof(x->gain_basis));
		return;
	}
	lo = &f->evidence[0];
	hi = &f->evidence[f->nevidence - 1];
	if (!lo->has_num || !hi->has_num || hi->num <= 0 || lo->num <= hi->num) {
		ft_strlcpy(x->gain_basis, "not computable", sizeof(x->gain_basis));
		return;
	}
	x->gain_pct = 100.0 * (lo->num / hi->num - 1);
	ft_strlcpy(x->gain_engine, "measured scaling", sizeof(x->gain_engine));
	snprintf(x->gain_basis, sizeof(x->gain_basis),
		 "upper bound: the largest run regaining the smallest run's plateau, %.1f -> %.1f "
		 "GB/s busbw",
		 hi->num, lo->num);
}

/* ---- hooks: the figures of each template ---------------------------------- */

static bool
fill_ib_disable(const struct ft__adv_ctx *a, const struct ft__adv_template *t,
		const struct ft_finding *f, struct ft_advice *x)
{
	const struct ft_obs *dis = ft__diag_env(a->c, "NCCL_IB_DISABLE");

	if (!ft__adv_finding_of(a, "nccl-socket-transport") || !dis || strcmp(dis->str, "0") == 0)
		return false;
	snprintf(x->reason, sizeof(x->reason), t->reason, dis->str);
	return true;
}

static bool
fill_net(const struct ft__adv_ctx *a, const struct ft__adv_template *t, const struct ft_finding *f,
	 struct ft_advice *x)
{
	/* no sign of an RDMA NIC: do not force IB */
	return f->severity >= FT_SEV_ERROR || ft__diag_find(a->c, "ib.port.state");
}

/* Is @item one of the entries of the "=a,b,c" list @buf? */
static bool
hca_listed(const char *buf, const char *item)
{
	size_t n = strlen(item);
	const char *p = buf;

	while ((p = strstr(p, item)) != NULL) {
		if (p > buf && (p[-1] == '=' || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			return true;
		p += n;
	}
	return false;
}

/* Append "=item" or ",item" to the HCA list @buf; false when it does not fit. */
static bool
hca_append(char *buf, size_t len, const char *item, size_t n)
{
	size_t used = strlen(buf);
	char sep = used ? ',' : '=';

	if (used + 1 + n + 1 > len)
		return false;
	buf[used++] = sep;
	memcpy(buf + used, item, n);
	buf[used + n] = '\0';
	return true;
}

/*
 * The exact list "=dev:port,..." of active InfiniBand ports, from the ports
 * or else from NCCL's device list; "" when none, or when the list would not
 * fit in @len (a truncated list would drop rails).
 */
static void
ib_only_hca_list(const struct ft_diag_ctx *c, char *buf, size_t len)
{
	size_t i;
	bool ok = true;

	buf[0] = '\0';
	for (i = 0; i < ft__nobs(c) && ok; i++) {
		const struct ft_obs *o = ft__obs(c, i);
		const struct ft_obs *ll;
		char item[80];

		if (strcmp(o->key, "ib.port.state") != 0 || !ft__port_state_active(o->str) ||
		    !o->device[0] || o->port < 0)
			continue;
		ll = ft__diag_find_same(c, "ib.port.link_layer", o);
		if (ll && !ft__str_ieq(ll->str, "InfiniBand"))
			continue;
		snprintf(item, sizeof(item), "%s:%d", o->device, o->port);
		if (!hca_listed(buf, item))
			ok = hca_append(buf, len, item, strlen(item));
	}
	if (ok && !buf[0]) {
		/* From NCCL's "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE ..." list. */
		const struct ft_obs *l = ft__diag_find(c, "nccl.ib_hca");
		const char *p = l ? l->str : "";

		while (ok && (p = strchr(p, ']')) != NULL) {
			size_t n = strcspn(p + 1, "/ ");

			if (strncmp(p + 1 + n, "/IB", 3) == 0)
				ok = hca_append(buf, len, p + 1, n);
			p++;
		}
	}
	if (!ok)
		buf[0] = '\0';
}

static bool
fill_ib_hca(const struct ft__adv_ctx *a, const struct ft__adv_template *t, const struct ft_finding *f,
	    struct ft_advice *x)
{
	ib_only_hca_list(a->c, x->value, sizeof(x->value));
	return x->value[0] != '\0';
}

static bool
fill_socket_ifname(const struct ft__adv_ctx *a, const struct ft__adv_template *t,
		   const struct ft_finding *f, struct ft_advice *x)
{
	size_t i;

	for (i = 0; i < ft__nobs(a->c); i++) {
		const struct ft_obs *o = ft__obs(a->c, i);

		if (strcmp(o->key, "eth.link.detected") == 0 && ft__str_ieq(o->str, "yes") &&
		    o->device[0] && strcmp(o->device, "lo") != 0 &&
		    strncmp(o->device, "docker", 6) != 0 && strncmp(o->device, "veth", 4) != 0 &&
		    strncmp(o->device, "virbr", 5) != 0) {
			snprintf(x->value, sizeof(x->value), "=%s", o->device);
			ft__adv_add_evidence(x, o);
			return true;
		}
	}
	/*
	 * ENV-SOCKET_IFNAME: a leading '^' is an exclude list. With no routable
	 * interface among the inputs, exclude the ones that never route between
	 * nodes and let NCCL pick among the rest.
	 */
	ft_strlcpy(x->value, t->arg[0], sizeof(x->value));
	snprintf(x->reason, sizeof(x->reason), t->arg[1], f->message);
	return true;
}

static bool
fill_gid_index(const struct ft__adv_ctx *a, const struct ft__adv_template *t,
	       const struct ft_finding *f, struct ft_advice *x)
{
	const struct ft_obs *ver;
	int v = ft__diag_nccl_version(a->c, &ver);
	size_t i;

	if (v >= 22100) {
		x->unset = true;
		snprintf(x->reason, sizeof(x->reason), t->arg[0], ver->str);
		return true;
	}
	for (i = 0; i < ft__nobs(a->c); i++) {
		const struct ft_obs *o = ft__obs(a->c, i);
		const struct ft_obs *gv;

		if (strcmp(o->key, "roce.gid.index") != 0 || !o->has_num ||
		    !(strstr(o->str, "::ffff:") || strchr(o->str, '.')))
			continue;
		gv = ft__diag_find_line(a->c, "roce.gid.version", o);
		if (!gv || !strchr(gv->str, '2'))
			continue;
		snprintf(x->value, sizeof(x->value), "%.0f", o->num);
		ft__adv_add_evidence(x, o);
		snprintf(x->reason, sizeof(x->reason), t->reason, o->num, o->str, o->device);
		return true;
	}
	return false;
}

/* First PFC-enabled priority in @s, or -1. */
static int
first_pfc_prio(const char *s)
{
	int n = 0, i;
	const char *p;

	for (p = s, i = 0; *p; p++)
		if (*p == '0' || *p == '1')
			n++;
	if (n == 8) {
		for (p = s; *p; p++) {
			if (*p == '1')
				return i;
			if (*p == '0')
				i++;
		}
		return -1;
	}
	for (p = s; *p; p++)
		if (*p >= '0' && *p <= '7')
			return *p - '0';
	return -1;
}

/* The first PFC-enabled priority among the inputs, or -1. */
static int
pfc_prio(const struct ft__adv_ctx *a)
{
	const struct ft_obs *pfc = ft__diag_find(a->c, "roce.qos.pfc_enabled_prios");

	return pfc ? first_pfc_prio(pfc->str) : -1;
}

static bool
fill_ib_tc(const struct ft__adv_ctx *a, const struct ft__adv_template *t, const struct ft_finding *f,
	   struct ft_advice *x)
{
	int prio = pfc_prio(a);
	int dscp = 8 * prio + 2; /* AF-style DSCP in the priority's default block */
	int tc = dscp << 2 | 2;	 /* ECN bits ECT(0), as in the common value 106 */

	if (prio < 0)
		return false;
	snprintf(x->value, sizeof(x->value), "%d", tc);
	snprintf(x->reason, sizeof(x->reason), t->reason, tc, dscp, prio);
	return true;
}

/* The device of the finding's first evidence, or @none. */
static const char *
finding_dev(const struct ft_finding *f, const char *none)
{
	return f->nevidence && f->evidence[0].device[0] ? f->evidence[0].device : none;
}

static bool
fill_action_dev(const struct ft__adv_ctx *a, const struct ft__adv_template *t,
		const struct ft_finding *f, struct ft_advice *x)
{
	snprintf(x->action, sizeof(x->action), t->action, finding_dev(f, "IF"));
	return true;
}

static bool
fill_dcqcn(const struct ft__adv_ctx *a, const struct ft__adv_template *t, const struct ft_finding *f,
	   struct ft_advice *x)
{
	int prio = pfc_prio(a);

	if (prio < 0)
		prio = 3;
	snprintf(x->value, sizeof(x->value), t->value, prio);
	snprintf(x->action, sizeof(x->action), t->action, finding_dev(f, "DEV"), prio, prio);
	return true;
}

/*
 * Why ECN marking is advised after pauses: what the ECN counters of the
 * paused host say. Marks present mean marking starts too late (thresholds at
 * or above PFC XOFF) or senders react too slowly; no mark counter among the
 * inputs says nothing either way.
 */
static bool
ecn_reason(const struct ft__adv_ctx *a, const struct ft_finding *f, char *buf, size_t len)
{
	static const char *const pkts_keys[] = { "ib.counter.PortRcvPkts",
						 "eth.counter.rx_packets_phy",
						 "eth.counter.rx_packets" };
	const struct ft_obs *marks = NULL, *pk = NULL;
	double m = 0, p = 0;
	size_t i, k;

	for (i = 0; i < ft__nobs(a->c) && !marks; i++) {
		const struct ft_obs *o = ft__obs(a->c, i);

		if (ft__key_match(o->key, "*counter.np_ecn_marked_roce_packets") &&
		    (!f->nevidence || strcmp(o->host, f->evidence[0].host) == 0))
			marks = o;
	}
	if (!marks || !ft__obs_number(marks, &m)) {
		snprintf(buf, len,
			 "pauses are high and no ECN mark counter is among the inputs: check that "
			 "the switch marks ECN on the RoCE queue below the PFC XOFF threshold");
		return false;
	}
	if (m <= 0) {
		snprintf(buf, len, "pauses with no ECN marks mean PFC alone handles congestion");
		return false;
	}
	for (k = 0; k < FT_ARRAY_SIZE(pkts_keys) && !pk; k++)
		pk = ft__diag_find_dev(a->c, pkts_keys[k], marks);
	if (pk && ft__obs_number(pk, &p) && p > 0)
		snprintf(buf, len,
			 "pauses while %.1f%% of received packets are ECN-marked: marking works "
			 "but starts too late or senders react too slowly; set the ECN thresholds "
			 "well below PFC XOFF and check DCQCN on the senders",
			 100.0 * m / p);
	else
		snprintf(buf, len,
			 "pauses while %.0f packets were ECN-marked: marking works but starts too "
			 "late or senders react too slowly; set the ECN thresholds well below PFC "
			 "XOFF and check DCQCN on the senders",
			 m);
	return true;
}

static bool
fill_ecn_marking(const struct ft__adv_ctx *a, const struct ft__adv_template *t,
		 const struct ft_finding *f, struct ft_advice *x)
{
	int prio = pfc_prio(a);

	if (prio < 0)
		prio = 3;
	snprintf(x->value, sizeof(x->value),
		 ecn_reason(a, f, x->reason, sizeof(x->reason)) ? t->arg[0] : t->value, prio);
	return true;
}

static bool
fill_mtu(const struct ft__adv_ctx *a, const struct ft__adv_template *t, const struct ft_finding *f,
	 struct ft_advice *x)
{
	double cur;

	if (!f->nevidence || !f->evidence[0].has_num)
		return false;
	cur = f->evidence[0].num;
	snprintf(x->reason, sizeof(x->reason), t->reason, cur, 4096 / cur);
	return true;
}

/* MTU: IB-MTU / ROCE-WIRE payload efficiency at 4096 against the active MTU. */
static void
mtu_gain(const struct ft__adv_ctx *a, const struct ft__adv_template *t, const struct ft_finding *f,
	 struct ft_advice *x)
{
	double cur = f->evidence[0].num;
	double e0 = ft_diag_payload_efficiency(cur, t->num);
	double e1 = ft_diag_payload_efficiency(4096, t->num);

	x->gain_pct = 100.0 * (e1 / e0 - 1);
	ft_strlcpy(x->gain_engine, "header formula", sizeof(x->gain_engine));
	snprintf(x->gain_basis, sizeof(x->gain_basis),
		 "payload efficiency %.2f%% -> %.2f%% with %.0f bytes of per-packet overhead; "
		 "packet rate / %.0f",
		 100 * e0, 100 * e1, t->num, 4096 / cur);
}

/* 2 bond members instead of 1 carry NIC-bound traffic (I#1015 via ENV-IB_QPS). */
static void
bond_gain(const struct ft__adv_ctx *a, const struct ft__adv_template *t, const struct ft_finding *f,
	  struct ft_advice *x)
{
	x->gain_pct = 100.0 * (t->num / 1.0 - 1);
	ft_strlcpy(x->gain_engine, "closed form", sizeof(x->gain_engine));
	snprintf(x->gain_basis, sizeof(x->gain_basis),
		 "NIC-bound traffic over %.0f bond members instead of 1", t->num);
}

/* fabric-ecmp-collision found on SONiC switch counters: an Ethernet (RoCE) fabric,
 * whether or not the inputs hold a NIC's counters too. */
static bool
ecmp_on_sonic(const struct ft__adv_ctx *a)
{
	const struct ft_finding *f = ft__adv_finding_of(a, "fabric-ecmp-collision");

	return f && f->nevidence && ft__str_has_prefix(f->evidence[0].key, "switch.queue.");
}

static bool
fill_qps_ecmp(const struct ft__adv_ctx *a, const struct ft__adv_template *t,
	      const struct ft_finding *f, struct ft_advice *x)
{
	return ft__diag_has_roce(a->c) || ecmp_on_sonic(a);
}

static bool
fill_channels_per_peer(const struct ft__adv_ctx *a, const struct ft__adv_template *t,
		       const struct ft_finding *f, struct ft_advice *x)
{
	const struct ft_obs *test = NULL;
	size_t i;

	if (ft__diag_env(a->c, "NCCL_NCHANNELS_PER_NET_PEER"))
		return false;
	for (i = 0; i < ft__nobs(a->c) && !test; i++) {
		const struct ft_obs *o = ft__obs(a->c, i);

		if (strcmp(o->key, "bench.test") == 0 &&
		    (strstr(o->str, "alltoall") || strstr(o->str, "sendrecv")))
			test = o;
	}
	if (!test)
		return false;
	ft__adv_add_evidence(x, test);
	snprintf(x->reason, sizeof(x->reason), t->reason, test->str);
	return true;
}

/*
 * ENV-NCHANNELS: NCCL_MIN/MAX_NCHANNELS are the pre-2.17 names of
 * NCCL_MIN/MAX_CTAS; from 2.17 on the old names are deprecated (both are read
 * and the more restrictive bound wins). A floor costs SMs, a cap can leave
 * NICs idle; the advice keeps the bound under its current name, with what it
 * does (arg[1]), and the leftover-variable advice removes the old name (arg[0]).
 */
static bool
fill_nchannels(const struct ft__adv_ctx *a, const struct ft__adv_template *t,
	       const struct ft_finding *f, struct ft_advice *x)
{
	const struct ft_obs *ver = NULL;
	int v = ft__diag_nccl_version(a->c, &ver);
	const struct ft_obs *o = ft__diag_env(a->c, t->arg[0]);
	double n;

	if (!o || ft__diag_env(a->c, t->setting) || !ft__obs_number(o, &n) || n < 1)
		return false;
	if (v && v < 21700)
		return false; /* the old name is the only one this NCCL reads */
	ft__adv_add_evidence(x, o);
	snprintf(x->value, sizeof(x->value), "%.0f", n);
	snprintf(x->reason, sizeof(x->reason), t->reason, t->arg[0], n,
		 ver ? ", this log is NCCL " : "", ver ? ver->str : "", t->setting, n, t->arg[1]);
	return true;
}

static bool
fill_env_unset(const struct ft__adv_ctx *a, const struct ft__adv_template *t,
	       const struct ft_finding *f, struct ft_advice *x)
{
	const char *name;

	if (!f->nevidence || !ft__str_has_prefix(f->evidence[0].key, "nccl.env."))
		return false;
	name = f->evidence[0].key + strlen("nccl.env.");
	if (strcmp(name, "NCCL_IB_DISABLE") == 0 && ft_advice_find(a->out, "nccl-ib-disable"))
		return false;
	if (strcmp(name, "NCCL_IB_TIMEOUT") == 0 && ft_advice_find(a->out, "nccl-ib-timeout"))
		return false;
	snprintf(x->id, sizeof(x->id), "%s%.32s", t->id, name);
	ft_strlcpy(x->setting, name, sizeof(x->setting));
	ft__adv_add_evidence(x, &f->evidence[0]);
	snprintf(x->reason, sizeof(x->reason), "%s", f->message);
	return true;
}

/* ENV-IB_TIMEOUT: one try waits 4.096 us x 2^value. */
static double
ib_timeout_s(double value)
{
	return 4.096e-6 * ldexp(1.0, (int)value);
}

/* ENV-IB_TIMEOUT default of the NCCL version @v (major*10000+minor*100+patch; 0 unknown). */
static int
ib_timeout_default(int v)
{
	if (v && v < 21400)
		return 14;
	if (v && v < 22300)
		return 18;
	return 20;
}

static bool
fill_timeout_ib(const struct ft__adv_ctx *a, const struct ft__adv_template *t,
		const struct ft_finding *f, struct ft_advice *x)
{
	snprintf(x->reason, sizeof(x->reason), t->reason, ib_timeout_s(22));
	return true;
}

/*
 * Error 12 on RoCE: a retry-exceeded QP means packets were lost (no lossless
 * class, PFC off on a hop, drops) far more often than a slow fabric. A longer
 * timeout only delays the abort, and on Ethernet nothing reroutes under the
 * QP in the meantime, so the advice is the loss check and a timeout no
 * longer than the default.
 */
static bool
fill_timeout_roce(const struct ft__adv_ctx *a, const struct ft__adv_template *t,
		  const struct ft_finding *f, struct ft_advice *x)
{
	const struct ft_obs *ver = NULL, *cur = ft__diag_env(a->c, "NCCL_IB_TIMEOUT");
	int def = ib_timeout_default(ft__diag_nccl_version(a->c, &ver));
	double v;

	if (!ft__adv_roce_only(a) || !cur || !ft__obs_number(cur, &v) || !(v > def && v < 32))
		return false;
	ft__adv_add_evidence(x, cur);
	snprintf(x->reason, sizeof(x->reason), t->reason, v, ib_timeout_s(v), 7 * ib_timeout_s(v),
		 def, ib_timeout_s(def));
	return true;
}

static bool
fill_loss_check(const struct ft__adv_ctx *a, const struct ft__adv_template *t,
		const struct ft_finding *f, struct ft_advice *x)
{
	const struct ft_obs *ver = NULL;
	int def = ib_timeout_default(ft__diag_nccl_version(a->c, &ver));

	if (!ft__adv_roce_only(a))
		return false;
	snprintf(x->value, sizeof(x->value), t->value, def);
	snprintf(x->reason, sizeof(x->reason), t->reason, ib_timeout_s(22));
	return true;
}

/* IB-COUNTERS: congestion counters *without* physical errors point at routing. */
static bool
fill_routing(const struct ft__adv_ctx *a, const struct ft__adv_template *t,
	     const struct ft_finding *f, struct ft_advice *x)
{
	return (!ft__adv_roce_only(a) && !ecmp_on_sonic(a)) ||
	       ft__diag_find(a->c, "ib.counter.PortXmitWait");
}

/* The RoCE form: a collision the SONiC counters showed, on a fabric without
 * InfiniBand congestion counters (the InfiniBand form covers the rest). */
static bool
fill_routing_roce(const struct ft__adv_ctx *a, const struct ft__adv_template *t,
		  const struct ft_finding *f, struct ft_advice *x)
{
	return ecmp_on_sonic(a) && !ft__diag_find(a->c, "ib.counter.PortXmitWait");
}

static bool
fill_replace_link(const struct ft__adv_ctx *a, const struct ft__adv_template *t,
		  const struct ft_finding *f, struct ft_advice *x)
{
	snprintf(x->value, sizeof(x->value), t->value, f->entity);
	snprintf(x->reason, sizeof(x->reason), "%s", f->message);
	return true;
}

/* Link repairs: the ratio of the port's rate to its peers' (ib-rate-below-peers). */
static void
link_rate_gain(const struct ft__adv_ctx *a, const struct ft__adv_template *t,
	       const struct ft_finding *trigger, struct ft_advice *x)
{
	const struct ft_finding *f = ft__adv_finding_of(a, "ib-rate-below-peers");

	if (!f || f->nevidence < 2 || !(f->evidence[0].num > 0)) {
		ft_strlcpy(x->gain_basis, t->no_gain, sizeof(x->gain_basis));
		return;
	}
	x->gain_pct = 100.0 * (f->evidence[1].num / f->evidence[0].num - 1);
	ft_strlcpy(x->gain_engine, "closed form", sizeof(x->gain_engine));
	snprintf(x->gain_basis, sizeof(x->gain_basis),
		 "port rate %.0f -> %.0f Gb/s for traffic through that port", f->evidence[0].num,
		 f->evidence[1].num);
}

static bool
fill_pcie(const struct ft__adv_ctx *a, const struct ft__adv_template *t, const struct ft_finding *f,
	  struct ft_advice *x)
{
	if (f->nevidence < 2)
		return false;
	snprintf(x->value, sizeof(x->value), t->value, f->entity);
	snprintf(x->reason, sizeof(x->reason), "%s", f->message);
	return true;
}

/* HOST-PCIE: the link's maximum against its current speed x width. */
static void
pcie_gain(const struct ft__adv_ctx *a, const struct ft__adv_template *t, const struct ft_finding *f,
	  struct ft_advice *x)
{
	double cur = f->evidence[0].has_num ? f->evidence[0].num : 0;
	double max = f->evidence[1].has_num ? f->evidence[1].num : 0;

	if (!(cur > 0 && max > cur)) {
		ft_strlcpy(x->gain_basis, t->no_gain, sizeof(x->gain_basis));
		return;
	}
	x->gain_pct = 100.0 * (max / cur - 1);
	ft_strlcpy(x->gain_engine, "closed form", sizeof(x->gain_engine));
	snprintf(x->gain_basis, sizeof(x->gain_basis),
		 "PCIe link bandwidth %g -> %g (HOST-PCIE); end-to-end gain bounded by the NIC "
		 "rate",
		 cur, max);
}

/* ---- the templates -------------------------------------------------------- */

#define RULES_RDMA_STACK "nccl-no-rdma-device eth-not-rdma-netdev roce-gid-empty"
#define RULES_IB_HCA                                                                              \
	"nccl-mixed-link-layers nccl-ib-hca-ethernet nccl-incompatible-devices "                  \
	"nccl-ib-hca-prefix"
#define RULES_ECMP "roce-ecn-rate-high perf-pair-outlier perf-scale-drop fabric-ecmp-collision"
#define RULES_PHYS_ERR12                                                                          \
	"ib-link-downed ib-link-recovery ib-symbol-errors eth-phy-errors roce-ack-timeouts "      \
	"roce-sequence-errors nccl-link-event nccl-peer-unreachable nccl-modify-qp-failed"
#define RULES_CABLE                                                                               \
	"ib-symbol-errors ib-link-recovery ib-link-downed ib-rcv-errors ib-link-integrity "       \
	"eth-phy-errors ib-link-below-capability ib-rate-below-peers eth-module-fault "          \
	"nccl-link-event"
#define NO_GAIN_LOSS "not computable: removes loss and retransmissions"
#define NO_GAIN_TRAFFIC "not computable: depends on the traffic pattern"

/* IB-MTU: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 bytes per packet. */
#define IB_PKT_OVERHEAD 26.0
/* ROCE-WIRE: Eth 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 + preamble/IFG 20. */
#define ROCE_PKT_OVERHEAD 82.0

static const struct ft__adv_template templates[] = {
	/* ---- NCCL environment ---- */
	{ .id = "nccl-ib-disable", .category = "nccl-env", .setting = "NCCL_IB_DISABLE",
	  .rules = "nccl-socket-transport nccl-env-leftover", .kb = "ENV-IB_DISABLE SYM-BW-SOCKET",
	  .link = FT_ADV_BOTH, .is_env = true, .unset = true,
	  .reason = "NCCL_IB_DISABLE=%s forces the TCP socket transport",
	  .fill = fill_ib_disable, .gain = bandwidth_gain },
	{ .id = "nccl-net", .category = "nccl-env", .setting = "NCCL_NET",
	  .rules = "nccl-socket-transport", .kb = "ENV-NET SYM-BW-SOCKET", .link = FT_ADV_BOTH,
	  .is_env = true, .value = "IB",
	  .reason = "NCCL fell back to sockets; NCCL_NET=IB makes it use verbs or fail loudly "
		    "instead of running at TCP speed",
	  .fill = fill_net, .gain = bandwidth_gain },
	{ .id = "rdma-stack", .category = "host", .setting = "RDMA user space and devices",
	  .rules = RULES_RDMA_STACK, .kb = "SYM-BW-SOCKET HOST-LIMITS ROCE-GID", .link = FT_ADV_BOTH,
	  .value = "rdma-core + /dev/infiniband + NIC netdev in the namespace",
	  .action = "install rdma-core (libibverbs, mlx5 provider) in the image; run the container "
		    "with --device /dev/infiniband; attach the RDMA NIC's netdev (SR-IOV VF or "
		    "macvlan) so show_gids lists a RoCE v2 GID",
	  .reason = "the process cannot see a usable RDMA device, so NCCL or perftest cannot use "
		    "verbs",
	  .gain = bandwidth_gain },
	{ .id = "nccl-ib-hca", .category = "nccl-env", .setting = "NCCL_IB_HCA",
	  .rules = RULES_IB_HCA, .kb = "ENV-IB_HCA SYM-INCOMPAT-DEV", .link = FT_ADV_BOTH,
	  .is_env = true,
	  .reason = "select only the InfiniBand ports, by exact name, so no rank picks an Ethernet, "
		    "bond or prefix-matched device",
	  .fill = fill_ib_hca, .no_gain = "not computable: fixes connection failures, not a rate" },
	{ .id = "nccl-socket-ifname", .category = "nccl-env", .setting = "NCCL_SOCKET_IFNAME",
	  .rules = "nccl-socket-ifname", .kb = "ENV-SOCKET_IFNAME SYM-INIT-HANG",
	  .link = FT_ADV_BOTH, .is_env = true,
	  .reason = "use an interface with link that routes between the nodes, the same on all "
		    "nodes",
	  .arg = { "^lo,docker,virbr,veth",
		   "%.200s; no interface with link is among the inputs, so exclude loopback, "
		   "container bridges and veth pairs (or name the node's routable interface with "
		   "'=IF')" },
	  .fill = fill_socket_ifname, .no_gain = "not computable: fixes bootstrap reachability" },
	{ .id = "gdr", .category = "host", .setting = "nvidia-peermem / DMA-BUF",
	  .rules = "nccl-gdr-disabled", .kb = "HOST-GDR ENV-DMABUF SYM-BW-HALF",
	  .link = FT_ADV_BOTH, .value = "GPUDirect RDMA on",
	  .action = "modprobe nvidia-peermem (and load it at boot), or use the open GPU kernel "
		    "module with DMA-BUF; keep NCCL_NET_GDR_LEVEL unset",
	  .reason = "without GDR every network transfer is staged through host memory",
	  .gain = bandwidth_gain },
	{ .id = "nccl-ib-gid-index", .category = "nccl-env", .setting = "NCCL_IB_GID_INDEX",
	  .rules = "roce-gid-index nccl-modify-qp-failed",
	  .kb = "ENV-IB_GID_INDEX ROCE-GID SYM-QP-GID", .link = FT_ADV_ROCE, .is_env = true,
	  .reason = "index %.0f is the RoCE v2 IPv4 GID %s on %s",
	  .arg = { "NCCL %s selects the RoCE v2 IPv4 GID itself; use NCCL_IB_ADDR_RANGE to choose "
		   "a subnet" },
	  .fill = fill_gid_index, .no_gain = "not computable: fixes connection setup" },
	/* ---- RoCE QoS and congestion control ---- */
	{ .id = "nccl-ib-tc", .category = "qos", .setting = "NCCL_IB_TC",
	  .rules = "roce-pfc-wrong-priority", .kb = "ENV-IB_TC ROCE-QOS", .link = FT_ADV_ROCE,
	  .is_env = true,
	  .reason = "TC %d = DSCP %d, which the default dscp2prio map puts on priority %d where "
		    "PFC is enabled; set it identically on every node",
	  .fill = fill_ib_tc, .no_gain = NO_GAIN_LOSS },
	{ .id = "roce-pfc", .category = "qos", .setting = "PFC priorities", .rules = "roce-pfc-off",
	  .kb = "ROCE-PFC ROCE-QOS", .link = FT_ADV_ROCE, .value = "priority 3 lossless",
	  .action = "mlnx_qos -i %s --trust dscp --pfc 0,0,0,1,0,0,0,0 on every host, PFC on "
		    "priority 3 on every switch hop, then NCCL_IB_TC=106",
	  .reason = "RoCE needs a lossless priority for NCCL traffic", .fill = fill_action_dev,
	  .no_gain = NO_GAIN_LOSS },
	{ .id = "roce-trust", .category = "qos", .setting = "trust mode", .rules = "roce-trust-pcp",
	  .kb = "ROCE-QOS", .link = FT_ADV_ROCE, .value = "dscp",
	  .action = "mlnx_qos -i %s --trust dscp",
	  .reason = "classify RoCE by DSCP so NCCL_IB_TC selects the lossless priority without "
		    "VLAN tags",
	  .fill = fill_action_dev, .no_gain = "not computable" },
	{ .id = "dcqcn-enable", .category = "dcqcn", .setting = "roce_np / roce_rp enable",
	  .rules = "roce-ecn-no-cnp roce-cnp-ignored", .kb = "ROCE-DCQCN SYM-ROCE-NO-CC",
	  .link = FT_ADV_ROCE, .value = "1 on priority %d",
	  .action = "for the netdev of %s: echo 1 > /sys/class/net/IF/ecn/roce_np/enable/%d; "
		    "echo 1 > /sys/class/net/IF/ecn/roce_rp/enable/%d",
	  .reason = "without notification and reaction points senders never slow down and PFC "
		    "carries all congestion",
	  .fill = fill_dcqcn, .no_gain = NO_GAIN_TRAFFIC },
	{ .id = "ecn-marking", .category = "dcqcn", .setting = "switch ECN marking",
	  .rules = "roce-pfc-only eth-rx-pause-high", .kb = "ROCE-DCQCN ROCE-PFC",
	  .link = FT_ADV_ROCE, .value = "on for the RoCE queue (priority %d)",
	  .arg = { "marking below PFC XOFF for the RoCE queue (priority %d)" },
	  .action = "enable ECN (WRED-style) marking on the switch queue of the RoCE priority with "
		    "thresholds below the PFC XOFF threshold; map CNPs (DSCP 48) to a high-priority "
		    "class",
	  .fill = fill_ecn_marking, .no_gain = NO_GAIN_TRAFFIC },
	{ .id = "dcqcn-tune", .category = "dcqcn",
	  .setting = "rpg_min_dec_fac, rpg_time_reset, min_time_between_cnps",
	  .rules = "roce-dcqcn-overreaction", .kb = "CC-DCQCN ROCE-DCQCN", .link = FT_ADV_ROCE,
	  .value = "98 %, 20 us, 2 us",
	  .action = "on every RoCE netdev IF, in /sys/class/net/IF/ecn: echo 98 > "
		    "roce_rp/rpg_min_dec_fac, 20 > roce_rp/rpg_time_reset, 2 > "
		    "roce_np/min_time_between_cnps; or mlxconfig -d DEV set RPG_MIN_DEC_FAC_P1=98 "
		    "RPG_TIME_RESET_P1=20 MIN_TIME_BETWEEN_CNPS_P1=2",
	  .reason = "senders cut by CNPs leave the marking receiver's link idle: bound each cut "
		    "to 2 % and recover every 20 us instead of halving and waiting 300 us (the "
		    "tuned column of kb CC-DCQCN); keep the switches' ECN thresholds",
	  .no_gain = "not computable: depends on the traffic pattern",
	  .twin = &ft__whatif_dcqcn },
	/* ---- MTU ---- */
	{ .id = "roce-mtu", .category = "mtu", .setting = "netdev MTU",
	  .rules = "roce-mtu-below-4096", .kb = "ROCE-MTU ROCE-WIRE", .link = FT_ADV_ROCE,
	  .value = "9000 (RoCE MTU 4096)",
	  .action = "ip link set dev IF mtu 9000 on every host, jumbo frames on every switch port "
		    "of the path",
	  .reason = "active MTU %.0f bytes: more header bytes and %.0fx the packets per byte",
	  .num = ROCE_PKT_OVERHEAD, .fill = fill_mtu, .gain = mtu_gain,
	  .twin = &ft__whatif_mtu },
	{ .id = "ib-mtu", .category = "mtu", .setting = "IB MTU", .rules = "ib-mtu-below-4096",
	  .kb = "IB-MTU", .link = FT_ADV_IB, .value = "4096",
	  .action = "set mtu-limit 4096 for the partition/QoS level in the subnet manager, on "
		    "every hop",
	  .reason = "active MTU %.0f bytes: more header bytes and %.0fx the packets per byte",
	  .num = IB_PKT_OVERHEAD, .fill = fill_mtu, .gain = mtu_gain, .twin = &ft__whatif_mtu },
	/* ---- QPs and channels ---- */
	{ .id = "nccl-qps-bond", .category = "qps", .setting = "NCCL_IB_QPS_PER_CONNECTION",
	  .rules = "nccl-bond-single-qp", .kb = "ENV-IB_QPS ROCE-ECMP SYM-BW-HALF",
	  .link = FT_ADV_BOTH, .is_env = true, .value = "2",
	  .reason = "one QP maps to one member port of a bond: 2 QPs use both", .num = 2,
	  .gain = bond_gain },
	{ .id = "nccl-split-data", .category = "qps", .setting = "NCCL_IB_SPLIT_DATA_ON_QPS",
	  .rules = "nccl-bond-single-qp", .kb = "ENV-IB_SPLIT ENV-IB_QPS", .link = FT_ADV_BOTH,
	  .is_env = true, .value = "0",
	  .reason = "round-robin messages over the QPs (the maintainers' pairing with 2 QPs on "
		    "bonds)",
	  .no_gain = "part of the change above" },
	{ .id = "nccl-qps-ecmp", .category = "qps", .setting = "NCCL_IB_QPS_PER_CONNECTION",
	  .rules = RULES_ECMP, .unless = "nccl-bond-single-qp", .kb = "ENV-IB_QPS ROCE-ECMP",
	  .link = FT_ADV_ROCE, .is_env = true, .value = "4",
	  .reason = "each QP is one ECMP path: more QPs spread a ring over more uplinks and "
		    "reduce hash collisions",
	  .fill = fill_qps_ecmp, .gain = scale_gain, .twin = &ft__whatif_qps },
	{ .id = "nccl-channels-per-peer", .category = "channels",
	  .setting = "NCCL_NCHANNELS_PER_NET_PEER",
	  .rules = "nccl-p2p-channels perf-busbw-below-model perf-pair-outlier",
	  .kb = "ENV-NCH_NET_PEER SYM-P2P-LOW", .link = FT_ADV_BOTH, .is_env = true, .value = "4",
	  .reason = "%s is point-to-point bound: more channels per network peer let one peer pair "
		    "fill the NIC",
	  .fill = fill_channels_per_peer, .gain = bandwidth_gain, .twin = &ft__whatif_per_peer },
	/* ---- fabric, placement, host, hardware ---- */
	{ .id = "adaptive-routing", .category = "routing",
	  .setting = "subnet manager routing engine",
	  .rules = "ib-xmit-wait ib-xmit-discards perf-scale-drop fabric-ecmp-collision",
	  .unless = "ib-link-downed ib-link-recovery ib-symbol-errors ib-rcv-errors "
		    "ib-link-integrity ib-port-down",
	  .kb = "IB-AR IB-SM SYM-IB-CONGESTION SYM-SCALE-DROP", .link = FT_ADV_BOTH,
	  .value = "ar_updn (adaptive routing), AR-enabled SL for NCCL",
	  .action = "routing_engine ar_updn in opensm.conf (or UFM), reload the SM, keep "
		    "NCCL_IB_ADAPTIVE_ROUTING=1 (the IB default) and NCCL_IB_SL on an AR-enabled SL",
	  .reason = "congestion counters without physical errors, or busbw falling with scale, "
		    "point at routing imbalance; AR spreads flows by port load",
	  .fill = fill_routing, .gain = scale_gain, .twin = &ft__whatif_routing },
	/* RoCE: the switches balance, not a subnet manager (ROCE-ECMP) */
	{ .id = "adaptive-routing", .category = "routing", .setting = "switch load balancing",
	  .rules = "fabric-ecmp-collision", .kb = "ROCE-ECMP IB-AR SYM-SCALE-DROP",
	  .link = FT_ADV_ROCE, .value = "adaptive routing (or packet spraying) on the RoCE class",
	  .action = "enable adaptive routing on the leaf and spine switches for the RoCE traffic "
		    "class, and NCCL_IB_ADAPTIVE_ROUTING=1 where the NICs place packets out of "
		    "order",
	  .reason = "the switches' uplinks carry uneven bytes under 5-tuple ECMP hashing: "
		    "adaptive routing spreads packets by port load",
	  .fill = fill_routing_roce, .gain = scale_gain, .twin = &ft__whatif_routing },
	{ .id = "nccl-ib-timeout", .category = "nccl-env", .setting = "NCCL_IB_TIMEOUT",
	  .rules = "nccl-retry-exceeded", .unless = RULES_PHYS_ERR12,
	  .kb = "ENV-IB_TIMEOUT SYM-ERR-12", .link = FT_ADV_IB, .is_env = true, .value = "22",
	  .reason = "InfiniBand error 12 with no physical, loss or reachability cause among the "
		    "inputs: a longer ACK timeout (4.096 us x 2^22 = %.1f s per try) rides out "
		    "congestion and SM reroutes",
	  .fill = fill_timeout_ib, .no_gain = "not computable: avoids aborts, not a rate" },
	{ .id = "nccl-ib-timeout", .category = "nccl-env", .setting = "NCCL_IB_TIMEOUT",
	  .rules = "nccl-retry-exceeded", .unless = RULES_PHYS_ERR12,
	  .kb = "ENV-IB_TIMEOUT SYM-ERR-12 ROCE-COUNTERS", .link = FT_ADV_ROCE, .is_env = true,
	  .unset = true,
	  .reason = "RoCE: NCCL_IB_TIMEOUT=%.0f waits %.1f s per try (%.0f s with 7 retries) "
		    "before a dead peer or a lost packet is reported; the default %d (%.1f s per "
		    "try) detects failures sooner, and loss on RoCE is fixed in the lossless config, "
		    "not by waiting",
	  .fill = fill_timeout_roce,
	  .no_gain = "not computable: changes failure detection time, not a rate" },
	{ .id = "roce-loss-check", .category = "qos", .setting = "lossless RoCE class",
	  .rules = "nccl-retry-exceeded", .unless = RULES_PHYS_ERR12,
	  .kb = "SYM-ERR-12 ROCE-PFC ROCE-COUNTERS ENV-IB_TIMEOUT", .link = FT_ADV_ROCE,
	  .value = "PFC on the NCCL priority on every hop; NCCL_IB_TIMEOUT at most %d",
	  .action = "mlnx_qos -i IF on every host (trust dscp, PFC on the priority of NCCL_IB_TC); "
		    "ethtool -S IF | grep -E 'discard|out_of|prio'; the switch's PFC and drop "
		    "counters for that priority",
	  .reason = "error 12 on RoCE means packets were lost and retransmitted until the retry "
		    "count ran out: find the lossy hop; raising NCCL_IB_TIMEOUT to 22 would only "
		    "make each try wait %.1f s",
	  .fill = fill_loss_check, .no_gain = "not computable: removes loss and aborts, not a rate" },
	{ .id = "placement", .category = "placement", .setting = "GPU-NIC-CPU pairing",
	  .rules = "gpu-nic-cross-socket gpu-numa-without-nic", .kb = "HOST-TOPO HOST-NUMA",
	  .link = FT_ADV_BOTH,
	  .value = "each rank on a GPU with a PIX/PXB NIC, CPUs of that NUMA node",
	  .action = "pick the job's GPUs next to the NICs (nvidia-smi topo -m), bind ranks with the "
		    "launcher's NUMA binding, keep PXN enabled so GPUs reach rail NICs over NVLink",
	  .reason = "traffic that crosses the CPU sockets loses bandwidth and GDR",
	  .gain = bandwidth_gain },
	{ .id = "memlock", .category = "host", .setting = "memlock limit",
	  .rules = "nccl-create-qp-failed host-memlock-limited", .kb = "HOST-LIMITS SYM-MEMLOCK",
	  .link = FT_ADV_BOTH, .value = "unlimited",
	  .action = "'* soft memlock unlimited' and '* hard memlock unlimited' in "
		    "/etc/security/limits.conf, restart the launcher/Slurm daemons; containers "
		    "--ulimit memlock=-1",
	  .reason = "RDMA pins memory; a low memlock limit fails QP and MR creation",
	  .no_gain = "not computable: fixes a failure" },
	{ .id = "acs", .category = "host", .setting = "PCIe ACS",
	  .rules = "host-acs-enabled nccl-local-protection-error", .kb = "HOST-ACS SYM-ERR-4",
	  .link = FT_ADV_BOTH, .value = "off on bare metal (ATS on in VMs)",
	  .action = "disable ACS in the BIOS or per bridge with setpci -s BDF ECAP_ACS+0x6.w=0000 "
		    "after each boot; boot with iommu=pt",
	  .reason = "ACS forces GPU-NIC peer-to-peer through the root complex",
	  .gain = bandwidth_gain },
	{ .id = "replace-link", .category = "hardware", .setting = "cable / transceiver",
	  .rules = RULES_CABLE, .kb = "IB-COUNTERS SYM-LINK-ERRORS SYM-LINK-DEGRADED",
	  .link = FT_ADV_BOTH, .value = "replace on %s",
	  .action = "drain the node, clean and reseat the connector, swap the cable or optic, move "
		    "the port; reset counters and re-check after 5-10 minutes of traffic",
	  .fill = fill_replace_link, .gain = link_rate_gain,
	  .no_gain = "not computable: removes errors and retransmissions" },
	{ .id = "pcie-reseat", .category = "hardware", .setting = "PCIe link",
	  .rules = "pcie-link-degraded", .kb = "HOST-PCIE", .link = FT_ADV_BOTH,
	  .value = "retrain %s at its maximum",
	  .action = "reseat the card or move it to another slot/riser; update BIOS and firmware; "
		    "check LnkSta under load",
	  .fill = fill_pcie, .gain = pcie_gain,
	  .no_gain = "not computable: needs the link's current and maximum speed" },
	/* ---- leftovers of older NCCL versions and overrides ---- */
	{ .id = "nccl-min-ctas", .category = "channels", .setting = "NCCL_MIN_CTAS",
	  .rules = "nccl-env-leftover", .kb = "ENV-NCHANNELS", .link = FT_ADV_BOTH,
	  .is_env = true, .from_inputs = true,
	  .reason = "%s=%.0f uses the name deprecated since NCCL 2.17%s%s; %s=%.0f is %s. Keep it "
		    "only where a benchmark with and without it shows a gain",
	  .arg = { "NCCL_MIN_NCHANNELS",
		   "a floor on the channels (each a CUDA block taken from compute kernels); below "
		   "it NCCL may leave NICs idle, above it small messages get slower" },
	  .fill = fill_nchannels,
	  .no_gain = "not computable: needs NCCL's own channel count and a cluster spec to "
		     "compare the two channel counts",
	  .twin = &ft__whatif_channels },
	{ .id = "nccl-max-ctas", .category = "channels", .setting = "NCCL_MAX_CTAS",
	  .rules = "nccl-env-leftover", .kb = "ENV-NCHANNELS", .link = FT_ADV_BOTH,
	  .is_env = true, .from_inputs = true,
	  .reason = "%s=%.0f uses the name deprecated since NCCL 2.17%s%s; %s=%.0f is %s. Keep it "
		    "only where a benchmark with and without it shows a gain",
	  .arg = { "NCCL_MAX_NCHANNELS",
		   "a cap on the channels: below 2 channels per NIC the NICs cannot all be kept "
		   "busy" },
	  .fill = fill_nchannels,
	  .no_gain = "not computable: needs NCCL's own channel count and a cluster spec to "
		     "compare the two channel counts" },
	{ .id = "unset-", .category = "nccl-env", .setting = "NCCL_*",
	  .rules = "nccl-env-leftover nccl-env-link-layer", .kb = "SYM-ENV-LEFTOVER",
	  .link = FT_ADV_BOTH, .is_env = true, .unset = true, .per_finding = true,
	  .fill = fill_env_unset,
	  .no_gain = "not computable: depends on what the override restricts" },
};

const struct ft__adv_template *
ft__adv_templates(size_t *n)
{
	*n = FT_ARRAY_SIZE(templates);
	return templates;
}

const struct ft__adv_template *
ft__adv_template_of(const char *id)
{
	size_t i;

	for (i = 0; i < FT_ARRAY_SIZE(templates); i++) {
		const struct ft__adv_template *t = &templates[i];

		if (t->per_finding ? ft__str_has_prefix(id, t->id) : strcmp(id, t->id) == 0)
			return t;
	}
	return NULL;
}

const char *
ft__adv_link_name(enum ft__adv_link link)
{
	switch (link) {
	case FT_ADV_IB:
		return "InfiniBand";
	case FT_ADV_ROCE:
		return "RoCE";
	case FT_ADV_BOTH:
		break;
	}
	return "both";
}


/* SPDX-License-Identifier: MIT */
/*
 * diag/rules_cc.c - RoCE congestion-control configuration as the probe reads
 * it (probe/ecn.c): the notification and reaction points of DCQCN switched
 * off on the priority that carries RDMA, and DCQCN parameters far from the
 * documented defaults (ROCE-DCQCN, CC-DCQCN).
 */
#include "internal.h"

#include "diag/diag_int.h"

/* ---- ECN/DCQCN enabled per priority ---------------------------------------- */

/*
 * Priorities named by a PFC list: an 8-entry 0/1 vector ("0,0,0,1,0,0,0,0")
 * or a list of enabled priorities ("3", "3,4"). 0 when none or unreadable.
 */
static unsigned
prio_mask(const char *s)
{
	unsigned bits = 0, list = 0;
	int n = 0;
	bool vector = true;

	for (const char *p = s; *p; p++) {
		if (*p == '0' || *p == '1') {
			if (*p == '1' && n < 8)
				bits |= 1u << n;
			n++;
		} else if (*p != ' ' && *p != ',' && *p != '\t') {
			vector = false;
		}
		if (*p >= '0' && *p <= '7' && (p == s || !isdigit((unsigned char)p[-1])) &&
		    !isdigit((unsigned char)p[1]))
			list |= 1u << (*p - '0');
	}
	return vector && n == 8 ? bits : list;
}

/*
 * The priorities that carry RDMA for the device of @o: those PFC protects
 * (roce.qos.pfc_enabled_prios of the same device, else of the same host or of
 * an input that names no host), else
 * the priority of NCCL_IB_TC under the default dscp2prio map when the port
 * trusts DSCP or its trust mode is unknown (ROCE-QOS),
 * else 0 (unknown). *@why gets the observation that says so.
 */
static unsigned
rdma_prios(const struct ft_diag_ctx *c, const struct ft_obs *o, const struct ft_obs **why)
{
	const struct ft_obs *pfc = ft__diag_find_dev(c, "roce.qos.pfc_enabled_prios", o);
	const struct ft_obs *tc, *trust;
	size_t pos = 0;
	double v;

	while (!pfc) {
		const struct ft_obs *x = ft__diag_next(c, "roce.qos.pfc_enabled_prios", &pos);

		if (!x)
			break;
		if (strcmp(x->host, o->host) == 0 || !x->host[0]) /* a paste names no host */
			pfc = x;
	}
	if (pfc && prio_mask(pfc->str)) {
		*why = pfc;
		return prio_mask(pfc->str);
	}
	tc = ft__diag_env(c, "NCCL_IB_TC");
	trust = ft__diag_find(c, "roce.qos.trust");
	if (trust && !ft__str_ieq(trust->str, "dscp"))
		tc = NULL; /* with pcp trust the priority comes from the VLAN tag, not the DSCP */
	if (tc && ft__obs_number(tc, &v) && v >= 0 && v <= 255) {
		*why = tc;
		return 1u << (((int)v >> 2) >> 3);
	}
	*why = NULL;
	return 0;
}

int
ft__diag_eval_ecn_disabled(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	static const char *const sides[] = { "np", "rp" };
	static const char *const what[] = {
		"the notification point (roce_np) is off: this NIC sends no CNP for "
		"ECN-marked packets, so its senders never slow down and PFC does all the work",
		"the reaction point (roce_rp) is off: this NIC ignores the CNPs it receives "
		"and keeps sending at line rate into the congestion",
	};
	char key[32];
	int rc;

	for (size_t s = 0; s < FT_ARRAY_SIZE(sides); s++) {
		for (int prio = 0; prio < 8; prio++) {
			const struct ft_obs *o, *why, *ev[2];
			size_t pos = 0;

			snprintf(key, sizeof(key), "roce.ecn.%s.prio%d", sides[s], prio);
			while ((o = ft__diag_next(c, key, &pos))) {
				unsigned mask;
				double v;
				int k;

				if (!ft__obs_number(o, &v) || v != 0)
					continue;
				mask = rdma_prios(c, o, &why);
				if (mask) {
					if (!(mask & (1u << prio)))
						continue;
					ev[0] = o;
					ev[1] = why;
					rc = ft__diag_emit(
						c, out, -1, ev, 2,
						"ECN is disabled on priority %d, which carries RDMA "
						"(%s %s): %s",
						prio,
						strcmp(why->key, "roce.qos.pfc_enabled_prios") == 0
							? "PFC enabled on"
							: "NCCL_IB_TC",
						why->str[0] ? why->str : "?", what[s]);
					if (rc < 0)
						return rc;
					continue;
				}
				/* RDMA priority unknown: only "off on every priority" is certain. */
				if (prio != 0)
					continue;
				for (k = 1; k < 8; k++) {
					const struct ft_obs *x;
					char k2[32];

					snprintf(k2, sizeof(k2), "roce.ecn.%s.prio%d", sides[s], k);
					x = ft__diag_find_same(c, k2, o);
					if (!x || !ft__obs_number(x, &v) || v != 0)
						break;
				}
				if (k < 8)
					continue;
				ev[0] = o;
				rc = ft__diag_emit(c, out, -1, ev, 1,
				                   "ECN is disabled on every priority: %s", what[s]);
				if (rc < 0)
					return rc;
			}
		}
	}
	return 0;
}

/* ---- DCQCN parameters against the defaults --------------------------------- */

/*
 * Heuristic: a knob ten times above or below its documented default is far
 * from it. Tuned AI fabrics move some knobs by a few times (CC-DCQCN's tuned
 * example: rpg_time_reset 20-100 us for 300); ten times is past that.
 */
#define FAR_FACTOR 10.0

/* Defaults of CC-DCQCN / ROCE-DCQCN (NVIDIA's DCQCN parameters page), by debugfs name. */
static const struct {
	const char *name; /* roce.cc.<name> */
	double def;
	bool low_ok; /* values far below the default are legitimate (0 allowed) */
	const char *unit, *role;
} cc_defaults[] = {
	{ "rp_time_reset", 300, false, "us", "rate-increase timer" },
	{ "rp_byte_reset", 32767, false, "bytes", "rate-increase byte counter" },
	{ "rp_ai_rate", 5, false, "Mb/s", "additive increase step" },
	{ "rp_hai_rate", 50, false, "Mb/s", "hyper increase step" },
	{ "rp_min_rate", 1, true, "Mb/s", "rate floor" },
	{ "rp_dce_tcp_rtt", 1, false, "us", "alpha update period" },
	{ "rp_rate_reduce_monitor_period", 4, true, "us", "minimum time between rate cuts" },
	{ "rp_threshold", 1, false, "events", "fast-recovery steps" },
	{ "np_min_time_between_cnps", 4, true, "us", "minimum gap between CNPs per QP" },
};

static int
check_dcqcn_param(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	const char *name = o->key + strlen("roce.cc.");
	double v, d;
	char how[32];
	size_t i;

	if (!ft__obs_number(o, &v))
		return 0;
	/* rp_max_rate: 0 is no cap; any cap holds every QP below it (Mb/s). */
	if (strcmp(name, "rp_max_rate") == 0) {
		if (v <= 0)
			return 0;
		return ft__diag_emit(c, out, -1, FT__EV(o),
				     "DCQCN rate cap rp_max_rate is %g Mb/s (default 0, no cap): "
				     "every QP is held below it, congested or not",
				     v);
	}
	for (i = 0; i < FT_ARRAY_SIZE(cc_defaults); i++)
		if (strcmp(cc_defaults[i].name, name) == 0)
			break;
	if (i == FT_ARRAY_SIZE(cc_defaults))
		return 0;
	d = cc_defaults[i].def;
	if (v < d * FAR_FACTOR && (cc_defaults[i].low_ok || v > d / FAR_FACTOR))
		return 0;
	if (v >= d)
		snprintf(how, sizeof(how), "%g times", v / d);
	else if (v > 0)
		snprintf(how, sizeof(how), "1/%g of", d / v);
	else
		snprintf(how, sizeof(how), "none of");
	return ft__diag_emit(c, out, -1, FT__EV(o),
			     "DCQCN %s %s is %g %s, %s the documented default %g %s (CC-DCQCN)",
			     cc_defaults[i].role, cc_defaults[i].name, v, cc_defaults[i].unit, how,
			     d, cc_defaults[i].unit);
}
FT__DIAG_EACH(ft__diag_eval_dcqcn_params, "roce.cc.*", check_dcqcn_param)

/* SPDX-License-Identifier: MIT */
/*
 * diag/rules_nicfw.c - RoCE congestion-control settings in the NIC firmware
 * (mlxconfig) against what a lossless RoCE fabric needs: DCQCN enabled on the
 * priority that carries RDMA, CNPs in a class of their own, and DCQCN
 * parameters at NVIDIA's published defaults unless deliberately tuned.
 *
 * Defaults and roles are ROCE-DCQCN's table (NV-DCQCN, corroborated by a
 * public mlxconfig dump, MLXCFG-DUMP). The kb gives no recommended tuned
 * values, so a changed parameter is reported as information to validate with
 * incast tests, not as a fault.
 */
#include "internal.h"

#include "diag/diag_int.h"

/* Port suffix of a mlxconfig key ("..._P1" -> 1), 0 when none. */
static int
key_port(const char *key)
{
	size_t n = strlen(key);

	if (n > 3 && key[n - 3] == '_' && key[n - 2] == 'P' && key[n - 1] >= '1' &&
	    key[n - 1] <= '9')
		return key[n - 1] - '0';
	return 0;
}

/* The first PFC-enabled priority among the inputs (mlnx_qos), or -1. */
static int
pfc_priority(const struct ft_diag_ctx *c, const struct ft_obs **where)
{
	const struct ft_obs *o = ft__diag_find(c, "roce.qos.pfc_enabled_prios");
	const char *p;
	int n = 0, i = 0;

	*where = o;
	if (!o)
		return -1;
	for (p = o->str; *p; p++)
		if (*p == '0' || *p == '1')
			n++;
	if (n == 8) { /* "0 0 0 1 0 0 0 0" */
		for (p = o->str; *p; p++) {
			if (*p == '1')
				return i;
			if (*p == '0')
				i++;
		}
		return -1;
	}
	for (p = o->str; *p; p++) /* "3" or "3,4" */
		if (*p >= '0' && *p <= '7')
			return *p - '0';
	return -1;
}

int
ft__diag_eval_cc_prio(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *pfc;
	int prio = pfc_priority(c, &pfc);
	size_t i;
	int rc;

	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);
		const struct ft_obs *ev[2] = { o, pfc };
		unsigned mask;

		if (!ft__key_match(o->key, "mlxconfig.ROCE_CC_PRIO_MASK_P[1-9]") || !o->has_num)
			continue;
		mask = (unsigned)o->num & 0xff;
		if (mask == 0)
			rc = ft__diag_emit(c, out, -1, ev, 1,
					   "ROCE_CC_PRIO_MASK_P%d = 0: DCQCN is off on every priority "
					   "of port %d; senders never slow down and PFC carries all "
					   "congestion",
					   key_port(o->key), key_port(o->key));
		else if (prio >= 0 && !(mask & (1u << prio)))
			rc = ft__diag_emit(c, out, -1, ev, 2,
					   "ROCE_CC_PRIO_MASK_P%d = 0x%02x leaves out priority %d, the "
					   "PFC (lossless) priority that carries RDMA: no DCQCN there",
					   key_port(o->key), mask, prio);
		else
			continue;
		if (rc < 0)
			return rc;
	}
	return 0;
}

int
ft__diag_eval_cnp_class(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *pfc, *tc = ft__diag_env(c, "NCCL_IB_TC");
	int prio = pfc_priority(c, &pfc);
	double tcv = -1;
	size_t i;
	int rc;

	if (tc)
		(void)ft__obs_number(tc, &tcv);
	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);
		const struct ft_obs *ev[2] = { o, NULL };

		if (!o->has_num)
			continue;
		if (ft__key_match(o->key, "mlxconfig.CNP_802P_PRIO_P[1-9]") && prio >= 0 &&
		    (int)o->num == prio) {
			ev[1] = pfc;
			rc = ft__diag_emit(c, out, -1, ev, 2,
					   "CNPs go out on priority %d, the same lossless priority as "
					   "the RDMA data: congestion notifications queue behind the "
					   "congestion they report",
					   prio);
		} else if (ft__key_match(o->key, "mlxconfig.CNP_DSCP_P[1-9]") && tcv >= 0 &&
			   (int)o->num == ((int)tcv >> 2)) {
			ev[1] = tc;
			rc = ft__diag_emit(c, out, -1, ev, 2,
					   "CNP_DSCP %d is the DSCP of NCCL_IB_TC=%.0f: CNPs share the "
					   "data's queue and arrive late",
					   (int)o->num, tcv);
		} else {
			continue;
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ROCE-DCQCN: NVIDIA's published defaults (NV-DCQCN; MLXCFG-DUMP). */
static const struct {
	const char *name;
	double def;
} dcqcn_defaults[] = {
	{ "DCE_TCP_G", 1019 },
	{ "DCE_TCP_RTT", 1 },
	{ "INITIAL_ALPHA_VALUE", 1023 },
	{ "RATE_TO_SET_ON_FIRST_CNP", 0 },
	{ "RPG_MIN_DEC_FAC", 50 },
	{ "RPG_MIN_RATE", 1 },
	{ "RPG_GD", 11 },
	{ "RATE_REDUCE_MONITOR_PERIOD", 4 },
	{ "CLAMP_TGT_RATE", 0 },
	{ "CLAMP_TGT_RATE_AFTER_TIME_INC", 1 },
	{ "RPG_TIME_RESET", 300 },
	{ "RPG_BYTE_RESET", 32767 },
	{ "RPG_THRESHOLD", 1 },
	{ "RPG_MAX_RATE", 0 },
	{ "RPG_AI_RATE", 5 },
	{ "RPG_HAI_RATE", 50 },
};

int
ft__diag_eval_dcqcn_tuned(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *ev[FT_FINDING_MAX_EVIDENCE];
	char list[320] = "";
	size_t i, k, n = 0, nchanged = 0, used = 0;

	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);
		const char *name;
		size_t len;

		if (!ft__str_has_prefix(o->key, "mlxconfig.") || !o->has_num || !key_port(o->key))
			continue;
		name = o->key + strlen("mlxconfig.");
		len = strlen(name) - 3; /* without "_Pn" */
		for (k = 0; k < FT_ARRAY_SIZE(dcqcn_defaults); k++)
			if (strlen(dcqcn_defaults[k].name) == len &&
			    strncmp(name, dcqcn_defaults[k].name, len) == 0)
				break;
		if (k == FT_ARRAY_SIZE(dcqcn_defaults) || o->num == dcqcn_defaults[k].def)
			continue;
		nchanged++;
		if (n < FT_ARRAY_SIZE(ev))
			ev[n++] = o;
		if (used + 64 < sizeof(list))
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s=%g (default %g)",
						 used ? ", " : "", name, o->num,
						 dcqcn_defaults[k].def);
	}
	if (!nchanged)
		return 0;
	return ft__diag_emit(c, out, -1, ev, n,
			     "%zu DCQCN parameter%s differ from NVIDIA's defaults: %s; a tuned "
			     "DCQCN must be validated with incast tests at full scale",
			     nchanged, nchanged == 1 ? "" : "s", list);
}

/* SPDX-License-Identifier: MIT */
/*
 * diag/rules_link.c - link quality from mlxlink: errors left after FEC,
 * the pre-FEC margin, symbol and recovery events, module temperature and
 * the tool's own recommendation, each saying where the fault most likely is.
 *
 * mlxlink on a host reads that port's receiver: its errors come from the
 * cable or optic, or from the far end's transmitter (the switch port). A
 * single lane carrying most errors points at one lane of the cable or optic;
 * the NIC is suspected last, when its errors follow it across cables and
 * switch ports. The post-FEC threshold is IBDIAG-BER's 1e-12 (IB-COUNTERS);
 * the pre-FEC and temperature marks are heuristics, stated on the rule pages.
 */
#include "internal.h"

#include "diag/diag_int.h"

/*
 * Limits from the thresholds file: effective_ber_max, 1e-12 (IBDIAG-BER:
 * ibdiagnet's default BER threshold; on HDR/NDR it applies after FEC);
 * raw_ber_max, 1e-6 (heuristic: RS-FEC (544,514) corrects up to ~2e-4
 * pre-FEC, 1e-6 leaves two decades of margin); module_temp_max, 70 C
 * (heuristic: optics are specified to 70 C case temperature, commercial
 * range) for modules that report no alarm range.
 */
/*
 * Heuristic: a lane with three quarters of the errors of a multi-lane link is
 * the suspect (thresholds lane_error_share_min).
 */

static const char where_rx[] =
	"this port's receiver sees them: swap the cable or optic first; if the errors stay "
	"with the port after the swap, the far end's transmitter (switch port); the NIC last, "
	"when its errors follow it to other cables and ports";

/* " lane N carries P% of the raw errors" when one lane dominates, else "". */
static void
lane_note(const struct ft_diag_ctx *c, const struct ft_obs *like, char *buf, size_t len)
{
	const struct ft_obs *l = ft__diag_find_same(c, "mlxlink.raw_errors_lane", like);
	const char *p;
	size_t lane = 0, best = 0;
	double max = -1;

	buf[0] = '\0';
	if (!l || !l->has_num || l->num < c->thresholds->lane_error_share_min || !strchr(l->str, ','))
		return;
	for (p = l->str; *p; lane++) {
		double v = strtod(p, NULL);

		if (v > max) {
			max = v;
			best = lane;
		}
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
	}
	snprintf(buf, len, "; lane %zu carries %.0f%% of the raw errors (%.40s): one lane of the "
			   "cable or optic",
		 best, 100 * l->num, l->str);
}

static int
check_effective_ber(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	char lane[160], lim[24];

	if (!o->has_num || o->num <= c->thresholds->effective_ber_max)
		return 0;
	ft__diag_fmt_limit(c->thresholds->effective_ber_max, lim, sizeof(lim));
	lane_note(c, o, lane, sizeof(lane));
	return ft__diag_emit(c, out, -1,
			     FT__EV(o, ft__diag_find_same(c, "mlxlink.effective_errors", o),
				    ft__diag_find_same(c, "mlxlink.raw_ber", o)),
			     "effective (post-FEC) BER %.1e is above %s: errors reach traffic as "
			     "retransmissions%s; %s",
			     o->num, lim, lane, where_rx);
}
FT__DIAG_EACH(ft__diag_eval_effective_ber, "mlxlink.effective_ber", check_effective_ber)

static int
check_raw_ber(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	const struct ft_obs *eff = ft__diag_find_same(c, "mlxlink.effective_ber", o);
	char lane[160], lim[24];

	if (!o->has_num || o->num < c->thresholds->raw_ber_max)
		return 0;
	if (eff && eff->has_num && eff->num > c->thresholds->effective_ber_max)
		return 0; /* link-effective-ber reports it, with this as evidence */
	ft__diag_fmt_limit(c->thresholds->raw_ber_max, lim, sizeof(lim));
	lane_note(c, o, lane, sizeof(lane));
	return ft__diag_emit(c, out, -1, FT__EV(o, ft__diag_find_same(c, "mlxlink.fec", o)),
			     "raw (pre-FEC) BER %.1e: FEC still corrects it, but the margin is "
			     "thin (heuristic mark %s)%s; clean or reseat the connectors before "
			     "it degrades",
			     o->num, lim, lane);
}
FT__DIAG_EACH(ft__diag_eval_raw_ber, "mlxlink.raw_ber", check_raw_ber)

static const char *const link_error_keys[] = { "mlxlink.symbol_errors", "mlxlink.link_down",
						 "mlxlink.link_error_recovery" };

static bool
is_link_error(const struct ft_obs *p)
{
	size_t j;

	for (j = 0; j < FT_ARRAY_SIZE(link_error_keys); j++)
		if (strcmp(p->key, link_error_keys[j]) == 0 && p->has_num && p->num > 0)
			return true;
	return false;
}

/* One finding per port: the first non-zero counter of the port, in input order, leads. */
static int
check_link_errors(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	const struct ft_obs *ev[FT_ARRAY_SIZE(link_error_keys)];
	size_t k, n = 0;

	if (!is_link_error(o))
		return 0;
	for (k = 0; k < ft__nobs(c) && ft__obs(c, k) != o; k++)
		if (is_link_error(ft__obs(c, k)) && ft__same_port(ft__obs(c, k), o))
			return 0;
	for (k = 0; k < FT_ARRAY_SIZE(link_error_keys); k++) {
		const struct ft_obs *p = ft__diag_find_same(c, link_error_keys[k], o);

		if (p && p->has_num && p->num > 0)
			ev[n++] = p;
	}
	return ft__diag_emit(c, out, -1, ev, n,
			     "%s = %.0f since the counters were cleared: the link lost symbols or "
			     "retrained; %s",
			     strchr(o->key, '.') + 1, o->num, where_rx);
}
FT__DIAG_EACH(ft__diag_eval_link_errors,
	      "mlxlink.symbol_errors mlxlink.link_down mlxlink.link_error_recovery",
	      check_link_errors)

/* "45 [-5..75]" or "45C [-5..75]": the high alarm of the printed range, or 0. */
static double
temp_high(const char *s)
{
	const char *dots = strstr(s, "..");

	return dots ? strtod(dots + 2, NULL) : 0;
}

static int
check_module_temp(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	double hi = temp_high(o->str);
	double mark = hi > 0 ? hi - 5 : c->thresholds->module_temp_max;

	if (!o->has_num || o->num < mark)
		return 0;
	return ft__diag_emit(c, out, hi > 0 && o->num >= hi ? FT_SEV_ERROR : -1, FT__EV(o),
			     "module temperature %.0f C is %s %.0f C%s: hot optics lose margin and "
			     "raise the BER",
			     o->num, hi > 0 && o->num >= hi ? "at or above its alarm" : "near",
			     hi > 0 ? hi : c->thresholds->module_temp_max,
			     hi > 0 ? " (the module's own range)" : " (heuristic)");
}
FT__DIAG_EACH(ft__diag_eval_module_temp, "mlxlink.module_temp", check_module_temp)

static bool
recommends_action(const struct ft_obs *o)
{
	return o->str[0] && !ft__str_icontains(o->str, "No issue was observed");
}
FT__DIAG_MATCH(ft__diag_eval_recommendation, "mlxlink.recommendation", recommends_action,
	       "mlxlink recommends: \"%.200s\"")

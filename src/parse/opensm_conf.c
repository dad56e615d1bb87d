/* SPDX-License-Identifier: MIT */
/*
 * parse/opensm_conf.c - the OpenSM configuration file (opensm.conf, as
 * `opensm -c` writes it, upstream or NVIDIA's): "# comment" lines and
 * "option value" lines.
 *
 * Each option becomes `opensm.<option>` (congestion_control,
 * mlnx_congestion_control, routing_engine, qos, lmc, sm_priority, ...): num
 * for numbers (hex allowed) and for TRUE/FALSE (1/0), str as written. Lines
 * that are neither are skipped with their reason.
 */
#include "parse_int.h"

/* An option name: lower case, digits and '_'. */
static bool
option_name(struct ft__span k)
{
	size_t i;

	if (k.n < 2 || k.n > 64 || !(k.p[0] >= 'a' && k.p[0] <= 'z'))
		return false;
	for (i = 0; i < k.n; i++)
		if (!((k.p[i] >= 'a' && k.p[i] <= 'z') || (k.p[i] >= '0' && k.p[i] <= '9') ||
		      k.p[i] == '_'))
			return false;
	return true;
}

static bool
opensm_conf_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	struct ft__span k, v;
	uint64_t u;
	bool has = false;
	double d = 0;

	(void)state;
	if (s.p[0] == '#')
		return true;
	v = s;
	if (!ft__token(&v, &k) || !option_name(k)) {
		ft__skipped(c, line, "not an opensm.conf option line", s);
		return true;
	}
	v = ft__trim(v);
	if (ft__u64(v, &u)) {
		has = true;
		d = (double)u;
	} else if (ft__eq(v, "TRUE") || ft__eq(v, "FALSE")) {
		has = true;
		d = ft__eq(v, "TRUE");
	}
	ft__emit_named(c, line, "opensm.", k, has, d, NULL, v);
	return true;
}

FT__LINES_RUN(opensm_conf, NULL)

FT__PARSER(opensm_conf, "opensm-conf",
           "opensm.conf: subnet manager options (congestion control, routing engine, QoS)",
           { 80, { "congestion_control", "cc_key|# " } },
           { 85, { "routing_engine ", "sm_priority " } }, { 60, { "OpenSM", "_OPTIONS" } });

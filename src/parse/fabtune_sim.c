/* SPDX-License-Identifier: MIT */
/*
 * parse/fabtune_sim.c - the summary `fabtune sim SCENARIO` prints: what the
 * counters it writes with --counters do not say, the run's length and the
 * rate of the host links. `makespan: X us` becomes `sim.makespan` (seconds,
 * the span over which every counter of the run was counted; a failed run's
 * `makespan: X us (to the deadlock)` too, its counters stop there); each host link
 * of the "hottest links" table becomes `sim.nic.link_rate` (GB/s) of the NIC
 * at its end (device: the NIC's name, as in the ethtool -S files). The rest
 * of the summary (flow times, utilisation classes) is read by people.
 */
#include "parse_int.h"

/* "264  leaf0 -> n0.nic0  host  1  50.0  8.1%  12": a host link's NIC and capacity. */
static bool
link_row(struct ft__span s, struct ft__span *nic, double *gbps)
{
	struct ft__span tok[8];
	size_t n = 0;

	while (n < FT_ARRAY_SIZE(tok) && ft__token(&s, &tok[n]))
		n++;
	if (n < 7 || !ft__eq(tok[2], "->") || !ft__eq(tok[4], "host") ||
	    !ft__dbl(tok[6], gbps) || *gbps <= 0)
		return false;
	/* The NIC is the end named node.nicN; the other is the switch. */
	*nic = ft__find(tok[3], ".nic") ? tok[3] : tok[1];
	return ft__find(*nic, ".nic") != NULL;
}

int
ft__fabtune_sim_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it = ft__pctx_lines(c, text, len);
	struct ft__span raw;
	bool links = false;

	while (ft__lines_next(&it, &raw) && !c->rc) {
		struct ft__span s = ft__trim(raw), k, v, rest, nic;
		char dev[48];
		double d;

		if (!s.n) {
			links = false;
			continue;
		}
		if (ft__starts(s, "hottest links:")) {
			links = true;
			continue;
		}
		if (ft__split(s, ':', &k, &v) && ft__eq(k, "makespan")) {
			/* "us", or "us (to the deadlock)" / "us (to the QP error)" of a failed
			   run: its counters too are up to then */
			if (ft__lead_dbl(v, &d, &rest) && d >= 0 &&
			    (ft__eq(ft__trim(rest), "us") ||
			     (ft__starts(ft__trim(rest), "us (to ") &&
			      ft__trim(rest).p[ft__trim(rest).n - 1] == ')'))) {
				ft__pctx_entity(c, "", -1);
				ft__emit_num(c, it.lineno, "sim.makespan", d * 1e-6, "s");
			} else {
				ft__skipped(c, it.lineno, "makespan is not a number of us", s);
			}
			continue;
		}
		if (links && link_row(s, &nic, &d)) {
			ft__copy(dev, sizeof(dev), nic);
			ft__pctx_entity(c, dev, -1);
			ft__emit_num(c, it.lineno, "sim.nic.link_rate", d, "GB/s");
		}
	}
	return c->rc;
}

static int
fabtune_sim_sniff(const char *text, size_t len)
{
	struct ft__span s = { text, len };

	if (ft__starts(s, "scenario ") && ft__find(s, "\nmakespan: "))
		return 90;
	return 0;
}

FT__PARSER_SNIFF(fabtune_sim, "fabtune-sim",
                 "fabtune sim SCENARIO summary: the run's makespan, host link rates",
                 fabtune_sim_sniff);

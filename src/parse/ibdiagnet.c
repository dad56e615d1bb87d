/* SPDX-License-Identifier: MIT */
/*
 * parse/ibdiagnet.c - the console report of `ibdiagnet` (1.x and 2.x):
 * "-W- ..." lines become `ibdiag.warning`, "-E- ..." lines `ibdiag.error`,
 * and rows of the final stage table with errors or warnings become
 * `ibdiag.stage_errors` / `ibdiag.stage_warnings` (number, stage in str).
 *
 * The rest of the report ("-I-" progress, section rulers, indented
 * continuation lines) carries no finding and is passed over on purpose.
 */
#include "parse_int.h"

static bool
ibdiagnet_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	bool *stages = state;

	if (ft__starts(s, "-W-")) {
		ft__emit_str(c, line, "ibdiag.warning", ft__trim(ft__skip(s, 3)));
		return true;
	}
	if (ft__starts(s, "-E-")) {
		ft__emit_str(c, line, "ibdiag.error", ft__trim(ft__skip(s, 3)));
		return true;
	}
	if (ft__starts(s, "STAGE") && ft__find(s, "Errors")) {
		*stages = true;
		return true;
	}
	if (*stages && !ft__starts(s, "-") && !ft__starts(s, "Please")) {
		struct ft__span rest = s, tok, t[16];
		size_t n = 0;
		uint64_t e, w;

		while (n < 16 && ft__token(&rest, &tok))
			t[n++] = tok;
		if (n >= 3 && ft__u64(t[n - 2], &e) && ft__u64(t[n - 1], &w)) {
			struct ft__span name = { s.p, (size_t)(t[n - 2].p - s.p) };

			name = ft__trim(name);
			if (e)
				ft__emit(c, line, "ibdiag.stage_errors", true, (double)e, "count",
				         name);
			if (w)
				ft__emit(c, line, "ibdiag.stage_warnings", true, (double)w, "count",
				         name);
		}
		return true;
	}
	if (ft__starts(s, "----"))
		*stages = false;
	return true;
}

FT__LINES_RUN_STATE(ibdiagnet, bool, NULL)

FT__PARSER(ibdiagnet, "ibdiagnet", "ibdiagnet console report: warnings, errors, stage summary",
           { 90, { "-I- ", "IBDIAG|ibdiagnet|-I---------" } });

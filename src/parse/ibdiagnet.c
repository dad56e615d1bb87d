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

int
ft__ibdiagnet_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it = ft__pctx_lines(c, text, len);
	struct ft__span s;
	bool stages = false;

	while (ft__next_line(c, &it, &s)) {
		if (ft__starts(s, "-W-")) {
			ft__emit_str(c, it.lineno, "ibdiag.warning", ft__trim(ft__skip(s, 3)));
			continue;
		}
		if (ft__starts(s, "-E-")) {
			ft__emit_str(c, it.lineno, "ibdiag.error", ft__trim(ft__skip(s, 3)));
			continue;
		}
		if (ft__starts(s, "STAGE") && ft__find(s, "Errors")) {
			stages = true;
			continue;
		}
		if (stages && !ft__starts(s, "-") && !ft__starts(s, "Please")) {
			struct ft__span rest = s, tok, t[16];
			size_t n = 0;
			uint64_t e, w;

			while (n < 16 && ft__token(&rest, &tok))
				t[n++] = tok;
			if (n >= 3 && ft__u64(t[n - 2], &e) && ft__u64(t[n - 1], &w)) {
				struct ft__span name = { s.p, (size_t)(t[n - 2].p - s.p) };

				name = ft__trim(name);
				if (e)
					ft__emit(c, it.lineno, "ibdiag.stage_errors", true,
					         (double)e, "count", name);
				if (w)
					ft__emit(c, it.lineno, "ibdiag.stage_warnings", true,
					         (double)w, "count", name);
			}
			continue;
		}
		if (ft__starts(s, "----"))
			stages = false;
	}
	return c->rc;
}

FT__PARSER(ibdiagnet, "ibdiagnet", "ibdiagnet console report: warnings, errors, stage summary",
           { 90, { "-I- ", "IBDIAG|ibdiagnet|-I---------" } });

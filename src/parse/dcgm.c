/* SPDX-License-Identifier: MIT */
/*
 * parse/dcgm.c - NVIDIA DCGM command-line output: `dcgmi nvlink
 * --link-status` (one row of U/D/X/_ per GPU under "gpuId N:"), `dcgmi diag`
 * result tables ("| Test name | Pass |"), and `dcgmi health -c` verdict
 * lines ("Overall Health: Warning").
 *
 * Keys: dcgm.nvlink.up, dcgm.nvlink.down, dcgm.nvlink.disabled (count per
 * GPU, device "GPU<n>"), dcgm.diag (str: Pass / Fail / Warn / Skip, device =
 * the test name, e.g. "PCIe"), dcgm.health (str: the verdict, device = the
 * GPU or "overall" when the line names none), dcgm.version.
 */
#include "parse_int.h"

/* "D D D U ..." -> counts of each state; false when the line is not such a row. */
static bool
link_row(struct ft__span s, unsigned n[4])
{
	struct ft__span r = s, tok;
	size_t cnt = 0;

	memset(n, 0, 4 * sizeof(n[0]));
	while (ft__token(&r, &tok)) {
		if (tok.n != 1)
			return false;
		switch (tok.p[0]) {
		case 'U': n[0]++; break;
		case 'D': n[1]++; break;
		case 'X': n[2]++; break;
		case '_': n[3]++; break;
		default: return false;
		}
		cnt++;
	}
	return cnt > 0;
}

static bool
dcgm_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	int *gpu = state;
	struct ft__span k, v;
	unsigned n[4];
	uint64_t u;

	if (ft__starts(s, "gpuId ") && ft__ends(s, ":") &&
	    ft__u64((struct ft__span){ s.p + 6, s.n - 7 }, &u) && u < 1024) {
		*gpu = (int)u;
		return true;
	}
	if (*gpu >= 0 && link_row(s, n)) {
		snprintf(c->device, sizeof(c->device), "GPU%d", *gpu);
		c->port = -1;
		ft__emit(c, line, "dcgm.nvlink.up", true, n[0], "count", s);
		ft__emit(c, line, "dcgm.nvlink.down", true, n[1], "count", s);
		ft__emit(c, line, "dcgm.nvlink.disabled", true, n[2], "count", s);
		*gpu = -1;
		return true;
	}
	if (ft__starts(s, "NvSwitches:") || ft__starts(s, "GPUs:"))
		return true;
	if (s.n >= 3 && ft__starts(s, "|") && ft__ends(s, "|") && !ft__starts(s, "|---") &&
	    !ft__starts(s, "|===")) {
		struct ft__span in = { s.p + 1, s.n - 2 };

		if (!ft__split(in, '|', &k, &v))
			return true;
		k = ft__trim(k);
		v = ft__trim(v);
		if (ft__eq(k, "DCGM Version")) {
			c->device[0] = '\0';
			ft__emit_str(c, line, "dcgm.version", v);
		} else if (ft__starts(v, "Pass") || ft__starts(v, "Fail") ||
			   ft__starts(v, "Warn") || ft__starts(v, "Skip")) {
			ft__copy(c->device, sizeof(c->device), k);
			c->port = -1;
			ft__emit_str(c, line, "dcgm.diag", v);
		}
		return true;
	}
	if (ft__find(s, "Overall Health") && ft__split(s, ':', &k, &v)) {
		ft_strlcpy(c->device, "overall", sizeof(c->device));
		ft__emit_str(c, line, "dcgm.health", ft__trim(v));
		return true;
	}
	return true;
}

int
ft__dcgm_run(struct ft__pctx *c, const char *text, size_t len)
{
	int gpu = -1; /* the GPU whose NVLink row comes next */

	return ft__parse_lines(c, text, len, dcgm_line, &gpu, NULL);
}

FT__PARSER(dcgm, "dcgm", "DCGM: NVLink link status, dcgmi diag results, health verdicts",
           { 92, { "NvLink Link Status|Key: Up=U, Down=D" } }, { 75, { "dcgmi |DCGM Version" } },
           { 85, { "Health Monitor Report" } });

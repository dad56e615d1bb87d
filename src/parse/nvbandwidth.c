/* SPDX-License-Identifier: MIT */
/*
 * parse/nvbandwidth.c - NVIDIA `nvbandwidth`: for each test ("Running
 * device_to_device_memcpy_read_ce."), a matrix headed "memcpy CE
 * GPU(row) -> GPU(column) bandwidth (GB/s)" with one column per target,
 * one row per source ("N/A" on the diagonal), then "SUM <test> <GB/s>".
 *
 * Each cell becomes `nvbw.bw` (GB/s, device "ROW->COL" with CPU or GPU as the
 * matrix title says, str = the test), each SUM line `nvbw.sum`. "Waived"
 * tests and the version banner are not judged.
 */
#include "parse_int.h"

#define NVBW_MAXCOLS 64

struct nvbw_state {
	char test[64];
	char row_kind[4], col_kind[4]; /* "CPU" / "GPU" */
	int cols[NVBW_MAXCOLS];
	size_t ncols;
	bool in_matrix;
};

/* "memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)": the kinds of rows and columns. */
static void
matrix_title(struct nvbw_state *st, struct ft__span s)
{
	const char *r = ft__find(s, "(row)"), *col = ft__find(s, "(column)");

	ft_strlcpy(st->row_kind, r && r - s.p >= 3 && memcmp(r - 3, "CPU", 3) == 0 ? "CPU" : "GPU",
		   sizeof(st->row_kind));
	ft_strlcpy(st->col_kind,
		   col && col - s.p >= 3 && memcmp(col - 3, "CPU", 3) == 0 ? "CPU" : "GPU",
		   sizeof(st->col_kind));
	st->ncols = 0;
	st->in_matrix = true;
}

int
ft__nvbandwidth_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it = ft__pctx_lines(c, text, len);
	struct ft__span raw;
	struct nvbw_state st;

	memset(&st, 0, sizeof(st));
	ft_strlcpy(st.test, "nvbandwidth", sizeof(st.test));
	while (ft__lines_next(&it, &raw) && !c->rc) {
		struct ft__span s = ft__trim(raw), r, tok;
		uint64_t u;
		double v;

		if (!s.n) {
			st.in_matrix = false;
			continue;
		}
		if (ft__starts(s, "Running ")) {
			struct ft__span t = ft__trim(ft__skip(s, 8));

			if (t.n && t.p[t.n - 1] == '.')
				t.n--;
			ft__copy(st.test, sizeof(st.test), t);
			continue;
		}
		if (ft__find(s, "bandwidth (GB/s)") && ft__find(s, "(row)")) {
			matrix_title(&st, s);
			continue;
		}
		if (ft__starts(s, "SUM ")) {
			r = ft__skip(s, 4);
			if (ft__token(&r, &tok) && ft__dbl(ft__trim(r), &v)) {
				c->device[0] = '\0';
				ft__emit(c, it.lineno, "nvbw.sum", true, v, "GBps", tok);
			}
			st.in_matrix = false;
			continue;
		}
		if (!st.in_matrix)
			continue;
		r = s;
		if (!st.ncols) {
			/* the column header: target indexes */
			while (st.ncols < NVBW_MAXCOLS && ft__token(&r, &tok) && ft__u64(tok, &u))
				st.cols[st.ncols++] = (int)u;
			continue;
		}
		if (!ft__token(&r, &tok) || !ft__u64(tok, &u)) {
			ft__skipped(c, it.lineno, "not an nvbandwidth matrix row", s);
			continue;
		}
		for (size_t k = 0; k < st.ncols && ft__token(&r, &tok); k++) {
			if (!ft__dbl(tok, &v))
				continue; /* N/A */
			snprintf(c->device, sizeof(c->device), "%s%llu->%s%d", st.row_kind,
				 (unsigned long long)u, st.col_kind, st.cols[k]);
			c->port = -1;
			ft__emit(c, it.lineno, "nvbw.bw", true, v, "GBps", ft__span_c(st.test));
		}
	}
	return c->rc;
}

FT__PARSER(nvbandwidth, "nvbandwidth", "nvbandwidth: host-GPU and GPU-GPU copy bandwidth matrices",
           { 95, { "nvbandwidth Version" } }, { 90, { "bandwidth (GB/s)", "(row)", "(column)" } });

/* SPDX-License-Identifier: MIT */
/*
 * base/nccl_table.c - nccl-tests' table layout (src/common.cu and
 * src/util.cu of nccl-tests: the column heads, one row per size, the two
 * closing lines), shared by `fabtune bench` and `fabtune sim --counters` so
 * that both print what the real tool prints, trailing blanks included.
 */
#include "internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include <fabtune/nccl_table.h>

void
ft_nccl_table_head(struct ft_strbuf *sb, enum ft_nccl_table_style style, bool cputime)
{
	bool wide = style == FT_NCCL_TABLE_218;
	const char *tw = cputime ? "cputime" : "   time";

	/*
	 * Trailing blanks included, as nccl-tests' format strings leave them: ten
	 * after "in-place" in both layouts; the classic ends the units line with
	 * "  %5s" of nothing (7 blanks), 2.17.3 on end both head lines with "%6s"
	 * and an empty timestamp field ("%6s %*s": one blank after "#wrong", 9
	 * after the units).
	 */
	ft_strbuf_adds(sb, "#                                                              "
	                   "out-of-place                       in-place          \n");
	ft_strbuf_addf(sb,
	               "#       size         count      type   redop    root  %s   algbw"
	               "   busbw %s  %s   algbw   busbw %s\n",
	               tw, wide ? " #wrong" : "#wrong", tw, wide ? " #wrong " : "#wrong");
	ft_strbuf_addf(sb,
	               "#        (B)    (elements)                               (us)  (GB/s)"
	               "  (GB/s)%s(us)  (GB/s)  (GB/s)%s\n",
	               wide ? "             " : "            ", wide ? "         " : "       ");
}

/* The classic layout's time: fewer decimals as the number grows, 7 columns. */
static const char *
time_str(double us, char *buf, size_t len)
{
	if (!isfinite(us))
		snprintf(buf, len, "%7s", "N/A");
	else if (us >= 10000)
		snprintf(buf, len, "%7.0f", us);
	else if (us >= 100)
		snprintf(buf, len, "%7.1f", us);
	else
		snprintf(buf, len, "%7.2f", us);
	return buf;
}

/*
 * nccl-tests 2.18's numbers: as many decimals (2, then 1, then 0) as fit the
 * column, then a mantissa and exponent; the classic layout fixed the decimals
 * instead (time: by magnitude; bandwidths: 2, overflowing the column).
 */
static const char *
fit(double v, int width, char *buf, size_t len)
{
	int prec;

	if (!isfinite(v) && width == 7) {
		snprintf(buf, len, "%7s", "N/A"); /* a time not measured */
		return buf;
	}
	for (prec = 2; prec >= 0; prec--)
		if (snprintf(buf, len, "%*.*f", width, prec, v) <= width)
			return buf;
	snprintf(buf, len, "%*.*e", width, width >= 7 ? 1 : 0, v);
	return buf;
}

static void
row_218(struct ft_strbuf *sb, const struct ft_result_row *row)
{
	char b[6][32];
	int side;

	ft_strbuf_addf(sb, "%12" PRIu64 "  %12" PRIu64 "  %8s  %6s  %6d", row->bytes, row->count,
	               row->dtype, row->redop, row->root);
	for (side = 0; side < 2; side++) {
		fit(side ? row->ip_time_us : row->time_us, 7, b[0], sizeof(b[0]));
		fit(side ? row->ip_algbw_GBps : row->algbw_GBps, 6, b[1], sizeof(b[1]));
		fit(side ? row->ip_busbw_GBps : row->busbw_GBps, 6, b[2], sizeof(b[2]));
		if (row->wrong >= 0)
			ft_strbuf_addf(sb, "  %7s  %6s  %6s  %6g", b[0], b[1], b[2],
			               (double)row->wrong);
		else
			ft_strbuf_addf(sb, "  %7s  %6s  %6s    N/A", b[0], b[1], b[2]);
	}
	ft_strbuf_addch(sb, '\n');
}

void
ft_nccl_table_row(struct ft_strbuf *sb, const struct ft_result_row *row,
                  enum ft_nccl_table_style style)
{
	char t1[16], t2[16], w[24];

	if (style == FT_NCCL_TABLE_218) {
		row_218(sb, row);
		return;
	}
	/* nccl-tests prints the count as a double with %g (1e+06 beyond 5 digits) */
	if (row->wrong >= 0)
		snprintf(w, sizeof(w), "%g", (double)row->wrong);
	else
		snprintf(w, sizeof(w), "N/A");
	ft_strbuf_addf(sb,
	               "%12" PRIu64 "  %12" PRIu64 "  %8s  %6s  %6d  %7s  %6.2f  %6.2f  %5s"
	               "  %7s  %6.2f  %6.2f  %5s\n",
	               row->bytes, row->count, row->dtype, row->redop, row->root,
	               time_str(row->time_us, t1, sizeof(t1)), row->algbw_GBps, row->busbw_GBps, w,
	               time_str(row->ip_time_us, t2, sizeof(t2)), row->ip_algbw_GBps,
	               row->ip_busbw_GBps, w);
}

void
ft_nccl_table_foot(struct ft_strbuf *sb, int64_t wrong, double avg_busbw_GBps, const char *verdict)
{
	ft_strbuf_addf(sb, "# Out of bounds values : %" PRId64 " %s\n", wrong,
	               wrong ? "FAILED" : "OK");
	/* the space before the verdict is there when it is empty too, as nccl-tests prints it */
	ft_strbuf_addf(sb, "# Avg bus bandwidth    : %g %s\n", avg_busbw_GBps,
	               verdict ? verdict : "");
	ft_strbuf_adds(sb, "#\n");
}

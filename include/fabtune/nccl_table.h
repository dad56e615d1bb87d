/* SPDX-License-Identifier: MIT */
/*
 * fabtune/nccl_table.h - nccl-tests' text table of result rows, byte for byte.
 *
 * One layout for every table fabtune prints as nccl-tests does: `fabtune
 * bench` for the collectives it measures and `fabtune sim --counters` for the
 * ops it simulates, so that `fabtune parse`, and any script written for the
 * real tool, read both alike. The three column-head lines (trailing blanks as
 * nccl-tests' format strings leave them), one data row, and the two closing
 * lines. Everything is appended to a string buffer; nothing is printed.
 */
#ifndef FABTUNE_NCCL_TABLE_H
#define FABTUNE_NCCL_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include <fabtune/base.h>
#include <fabtune/result.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * nccl-tests' table layouts. classic: up to 2.17, times with 2, 1 or 0
 * decimals by magnitude, bandwidths with 2, "#wrong" in 5 columns. 2.18:
 * every number with as many decimals (2, 1, 0) as fit its column, then an
 * exponent; "#wrong" in 6 columns (its heads one space wider).
 */
enum ft_nccl_table_style {
	FT_NCCL_TABLE_CLASSIC = 0,
	FT_NCCL_TABLE_218 = 1,
};

/* The three column-head lines; @cputime (nccl-tests' -C 1) names the time
   columns "cputime". */
FT_API void ft_nccl_table_head(struct ft_strbuf *sb, enum ft_nccl_table_style style,
                               bool cputime);
/* One data row: size, count, type, redop, root, then time, algbw, busbw and
   #wrong out of place and in place ("N/A" for a NaN time or a @row->wrong of -1). */
FT_API void ft_nccl_table_row(struct ft_strbuf *sb, const struct ft_result_row *row,
                              enum ft_nccl_table_style style);
/* The two closing lines and the "#" after them: @wrong elements out of bounds
   (FAILED when not 0), the average bus bandwidth @avg_busbw_GBps and @verdict
   after it ("OK", "FAILED", or "" when no floor was set: the blank before it
   stays, as nccl-tests prints it). */
FT_API void ft_nccl_table_foot(struct ft_strbuf *sb, int64_t wrong, double avg_busbw_GBps,
                               const char *verdict);

#ifdef __cplusplus
}
#endif
#endif

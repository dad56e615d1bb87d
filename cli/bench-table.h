/* SPDX-License-Identifier: MIT */
/*
 * cli/bench-table.h - nccl-tests' table as `fabtune bench` prints it, shared
 * with the unit test that compares it byte for byte with real outputs.
 */
#ifndef FT_CLI_BENCH_TABLE_H
#define FT_CLI_BENCH_TABLE_H

#include <stdbool.h>

#include <fabtune/fabtune.h>

/* The three column-header lines ("out-of-place ... in-place", names, units). */
void cli_bench_coll_head(struct ft_strbuf *sb);
/* One data row: size, count, type, redop, root, then time/algbw/busbw/#wrong twice. */
void cli_bench_coll_row(struct ft_strbuf *sb, const struct ft_result_row *row);
/* "# Out of bounds values" and "# Avg bus bandwidth" (out-of-place and in-place averaged);
   true when NCCL_TESTS_MIN_BW is set and not reached. */
bool cli_bench_coll_foot(struct ft_strbuf *sb, const struct ft_bench_report *rep);

/* perftest's column header: latency (@timed: -D's t_avg only) or bandwidth in Gb/sec or
   MB/sec (@gbits); and one row, tabs as perftest prints them. */
void cli_bench_pt2pt_head(struct ft_strbuf *sb, bool lat, bool timed, bool gbits);
void cli_bench_pt2pt_row(struct ft_strbuf *sb, bool lat, bool timed, bool gbits,
                         const struct ft_result_row *r);

#endif

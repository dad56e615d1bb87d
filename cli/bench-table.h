/* SPDX-License-Identifier: MIT */
/*
 * cli/bench-table.h - nccl-tests' and perftest's tables as `fabtune bench`
 * prints them (src/bench/table.c), under the names the unit test that
 * compares them byte for byte with real outputs uses.
 */
#ifndef FT_CLI_BENCH_TABLE_H
#define FT_CLI_BENCH_TABLE_H

#include <stdbool.h>
#include <stdlib.h>

#include <fabtune/fabtune.h>

static inline void
cli_bench_coll_head(struct ft_strbuf *sb)
{
	ft_bench_coll_head(sb, FT_BENCH_STYLE_CLASSIC);
}

static inline void
cli_bench_coll_row(struct ft_strbuf *sb, const struct ft_result_row *row)
{
	ft_bench_coll_row(sb, row, FT_BENCH_STYLE_CLASSIC);
}

/* The closing lines; true when NCCL_TESTS_MIN_BW is set and not reached. */
static inline bool
cli_bench_coll_foot(struct ft_strbuf *sb, const struct ft_bench_report *rep)
{
	return ft_bench_coll_foot(sb, rep, getenv("NCCL_TESTS_MIN_BW"));
}

static inline void
cli_bench_pt2pt_head(struct ft_strbuf *sb, bool lat, bool timed, bool gbits)
{
	ft_bench_pt2pt_head(sb, lat, timed, gbits);
}

static inline void
cli_bench_pt2pt_row(struct ft_strbuf *sb, bool lat, bool timed, bool gbits,
                    const struct ft_result_row *r)
{
	ft_bench_pt2pt_row(sb, lat, timed, gbits, r);
}

#endif

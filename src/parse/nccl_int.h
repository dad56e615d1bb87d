/* SPDX-License-Identifier: MIT */
/*
 * parse/nccl_int.h - the NCCL log and nccl-tests line handlers and the one
 * engine that runs both: in practice NCCL INFO lines and nccl-tests tables
 * arrive interleaved in one file (NCCL_DEBUG=INFO all_reduce_perf ...), so
 * each parser reads both kinds of line and differs only in its name and
 * sniffer.
 */
#ifndef FT_PARSE_NCCL_INT_H
#define FT_PARSE_NCCL_INT_H

#include "parse_int.h"

#define FT__NCCL_PIDS 1024 /* processes whose rank is remembered */

enum ft__nt_col {
	NT_SIZE,
	NT_COUNT,
	NT_TYPE,
	NT_REDOP,
	NT_ROOT,
	NT_TIME,
	NT_ALGBW,
	NT_BUSBW,
	NT_WRONG,
	NT_IP_TIME,
	NT_IP_ALGBW,
	NT_IP_BUSBW,
	NT_IP_WRONG,
	NT_CPUTIME, /* -C 1 (--report_cputime): "cputime" in place of "time" */
	NT_IP_CPUTIME,
	NT_NCOLS
};

struct ft__nccl_state {
	/* NCCL log: rank of each host:pid, learned from "comm ... rank N" lines */
	struct {
		uint64_t key; /* 0 = empty */
		int rank;
		uint64_t comm; /* the communicator ("comm 0x...") whose size it gave last, 0: none */
	} pid[FT__NCCL_PIDS];
	/* nccl-tests table */
	int col[NT_NCOLS]; /* token index of each column, -1 when absent */
	int ntok;          /* tokens in a data row */
	bool have_header;  /* a column header was read */
	bool error_col;    /* old format: "error" (max abs error), not #wrong */
	char test[32];     /* "all_reduce" */
	bool test_known;
	uint32_t nranks;          /* "#  Rank N ..." lines seen */
	uint32_t header_line;     /* line of "# nThread ..." (a test started), 0 if none */
	uint64_t nrows;           /* table rows read */
	size_t row0;              /* index in the run of the first row of this text */
	uint32_t inferred_nranks; /* ranks from busbw/algbw when no "# Rank" line was seen */
	uint32_t rank_end;        /* 1 + the highest rank a "# Rank" line named */
	bool ranks_cut;           /* the rank lines do not run 0, 1, 2 ...: an excerpt */
	bool ip_first;            /* the banner puts "in-place" before "out-of-place" */
	int ntok_first;           /* tokens up to the first group's #wrong, 0 if unknown */
	int time_scale;           /* 1: time in us, 1000: in ms (nccl-tests 1.x), 0: unknown */
	size_t table_row0;        /* index in the run of the first row of this table */
	size_t text_row0;         /* index in the run of the first row of this text */
	uint32_t row_line;        /* line of the first table row of this text, 0 if none */
	uint32_t log_nranks;      /* NCCL's own count ("comm 0x... nRanks N"), 0 if unseen */
	uint32_t log_nranks_line;
	char transport[16]; /* the rows' transport: nccl, or the one fabtune bench's first line names */
	/* fabtune model's table: nccl-tests' first five columns, one time/algbw/busbw group,
	   then the algorithm, protocol and bottleneck the model chose (-1: no such column) */
	int algo_col, proto_col, bneck_col;
	bool model; /* "# fabtune model: SPEC" was read: the rows are the model's */
};

void ft__nccl_state_init(struct ft__nccl_state *st);
/* true when @line was an NCCL log line (and has been handled). */
bool ft__nccl_log_line(struct ft__pctx *c, struct ft__nccl_state *st, struct ft__span line,
                       uint32_t lineno);
/* true when @line belonged to nccl-tests output (and has been handled). */
bool ft__nccl_tests_line(struct ft__pctx *c, struct ft__nccl_state *st, struct ft__span line,
                         uint32_t lineno);
/* Run both handlers over @text, the preferred one first. */
int ft__nccl_engine(struct ft__pctx *c, const char *text, size_t len, bool tests_first);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * parse/osu.c - OSU Micro-Benchmarks: "# OSU MPI <Name> Test vX" title, a
 * "# Size  <columns>" header, then one row per message size.
 *
 * Point-to-point latency (osu_latency) gives pt2pt_lat rows and
 * `bench.lat_avg` (us); bandwidth (osu_bw, osu_bibw, osu_mbw_mr) gives
 * pt2pt_bw rows and `bench.algbw` (GB/s, from MB/s = 1e6 bytes/s); collective
 * latency tests (osu_allreduce, ...) give rows named like nccl-tests
 * (all_reduce, ...) with the average latency as time. Extra columns (-f:
 * min/max latency, iterations; P50/P90/P99 tail latency) fill the row and
 * give `bench.lat_min`, `bench.lat_max`, `bench.lat_p50`, `bench.lat_p99`.
 */
#include "parse_int.h"

enum ocol {
	OC_NONE,
	OC_LAT,
	OC_MIN,
	OC_MAX,
	OC_P50,
	OC_P99,
	OC_BW,
	OC_MSGRATE,
	OC_ITERS
};

/* The latency columns: the observation each gives and the row figure it fills. */
static const struct {
	const char *key;
	size_t off;
} lat_cols[] = {
	[OC_LAT] = { "bench.lat_avg", offsetof(struct ft_result_row, lat_avg_us) },
	[OC_MIN] = { "bench.lat_min", offsetof(struct ft_result_row, lat_min_us) },
	[OC_MAX] = { "bench.lat_max", offsetof(struct ft_result_row, lat_max_us) },
	[OC_P50] = { "bench.lat_p50", offsetof(struct ft_result_row, lat_p50_us) },
	[OC_P99] = { "bench.lat_p99", offsetof(struct ft_result_row, lat_p99_us) },
};

#define OSU_MAXCOL 10

struct ostate {
	char test[32];     /* osu_latency */
	char row_test[32]; /* pt2pt_lat, all_reduce */
	bool bw;
	enum ocol col[OSU_MAXCOL];
	int ncol;
};

static void
title(struct ostate *os, struct ft__span s)
{
	static const struct {
		const char *word, *test, *row;
	} map[] = {
		{ "Bi-Directional Bandwidth", "osu_bibw", "pt2pt_bw" },
		{ "Multiple Bandwidth", "osu_mbw_mr", "pt2pt_bw" },
		{ "Bandwidth", "osu_bw", "pt2pt_bw" },
		{ "Multi-threaded Latency", "osu_latency_mt", "pt2pt_lat" },
		{ "Allreduce", "osu_allreduce", "all_reduce" },
		{ "Allgather", "osu_allgather", "all_gather" },
		{ "All-to-All", "osu_alltoall", "alltoall" },
		{ "Alltoall", "osu_alltoall", "alltoall" },
		{ "Reduce_scatter", "osu_reduce_scatter", "reduce_scatter" },
		{ "Reduce Scatter", "osu_reduce_scatter", "reduce_scatter" },
		{ "Broadcast", "osu_bcast", "broadcast" },
		{ "Bcast", "osu_bcast", "broadcast" },
		{ "Reduce", "osu_reduce", "reduce" },
		{ "Barrier", "osu_barrier", "barrier" },
		{ "Latency", "osu_latency", "pt2pt_lat" },
	};

	for (size_t i = 0; i < FT_ARRAY_SIZE(map); i++)
		if (ft__find(s, map[i].word)) {
			ft_strlcpy(os->test, map[i].test, sizeof(os->test));
			ft_strlcpy(os->row_test, map[i].row, sizeof(os->row_test));
			os->bw = strcmp(map[i].row, "pt2pt_bw") == 0;
			return;
		}
}

/* Columns are separated by two or more blanks: "Avg Latency(us)   Min Latency(us)". */
static void
header(struct ostate *os, struct ft__span s)
{
	size_t i = 0;

	os->ncol = 0;
	s = ft__trim(ft__skip(s, 1));
	while (s.n && os->ncol < OSU_MAXCOL) {
		struct ft__span name;
		enum ocol kind = OC_NONE;

		for (i = 0; i < s.n; i++)
			if (s.p[i] == '\t' || (i + 1 < s.n && s.p[i] == ' ' && s.p[i + 1] == ' '))
				break;
		name = (struct ft__span){ s.p, i };
		s = ft__trim(ft__skip(s, i));
		if (ft__starts(name, "Size"))
			continue;
		if (ft__find(name, "Min"))
			kind = OC_MIN;
		else if (ft__find(name, "Max"))
			kind = OC_MAX;
		else if (ft__find(name, "P50"))
			kind = OC_P50;
		else if (ft__find(name, "P99"))
			kind = OC_P99;
		else if (ft__find(name, "Latency") || ft__find(name, "(us)"))
			kind = OC_LAT;
		else if (ft__find(name, "Bandwidth") || ft__eq(name, "MB/s"))
			kind = OC_BW;
		else if (ft__find(name, "Messages/s"))
			kind = OC_MSGRATE;
		else if (ft__find(name, "Iterations"))
			kind = OC_ITERS;
		os->col[os->ncol++] = kind;
	}
}

static void
row(struct ft__pctx *c, struct ostate *os, uint32_t line, struct ft__span s)
{
	struct ft__span tok;
	uint64_t bytes;
	struct ft_result_row r;
	char size[24];
	int i = 0;

	if (!ft__token(&s, &tok) || !ft__u64(tok, &bytes)) {
		ft__skipped(c, line, "malformed OSU row", s);
		return;
	}
	ft_result_row_init(&r);
	ft_strlcpy(r.test, os->row_test[0] ? os->row_test : "unknown", sizeof(r.test));
	ft_strlcpy(r.transport, "mpi", sizeof(r.transport));
	ft_strlcpy(r.algo, os->test, sizeof(r.algo));
	r.bytes = bytes;
	snprintf(size, sizeof(size), "%" PRIu64, bytes);
	while (ft__token(&s, &tok)) {
		double v;
		enum ocol kind = i < os->ncol ? os->col[i] : OC_NONE;

		if (!ft__dbl(tok, &v)) {
			ft__skipped(c, line, "malformed OSU row", tok);
			return;
		}
		if (!os->ncol && i == 0)
			kind = os->bw ? OC_BW : OC_LAT;
		switch (kind) {
		case OC_LAT:
		case OC_MIN:
		case OC_MAX:
		case OC_P50:
		case OC_P99:
			*(double *)(void *)((char *)&r + lat_cols[kind].off) = v;
			if (kind == OC_LAT)
				r.time_us = v; /* the average is the row's time too */
			ft__emit(c, line, lat_cols[kind].key, true, v, "us", ft__span_c(size));
			break;
		case OC_BW:
			r.algbw_GBps = r.busbw_GBps = v / 1000.0;
			ft__emit(c, line, "bench.algbw", true, v / 1000.0, "GBps",
			         ft__span_c(size));
			break;
		case OC_MSGRATE:
			ft__emit(c, line, "bench.msg_rate", true, v / 1e6, "Mpps",
			         ft__span_c(size));
			break;
		case OC_ITERS:
			r.nsamples = !(v >= 0) ? 0 : v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
			break;
		case OC_NONE:
			break;
		}
		i++;
	}
	ft__add_row(c, &r);
}

static bool
osu_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	struct ostate *os = state;

	if (ft__starts(s, "# OSU")) {
		title(os, s);
		ft__emit_str(c, line, "bench.test", ft__span_c(os->test));
		return true;
	}
	if (ft__starts(s, "# Size")) {
		header(os, s);
		return true;
	}
	/* "# osu_bw" prompts, "# Datatype: ...", "# Window size ..." notes */
	if (ft__starts(s, "# "))
		return true;
	if (ft__is_digit(s.p[0])) {
		row(c, os, line, s);
		return true;
	}
	return false;
}

int
ft__osu_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ostate os = { .ncol = 0 };

	ft__pctx_run_kind(c, "osu");
	return ft__parse_lines(c, text, len, osu_line, &os, "not OSU output");
}

FT__PARSER(osu, "osu", "OSU micro-benchmarks: latency, bandwidth and collective tables",
           { 95, { "# OSU MPI|# OSU " } });

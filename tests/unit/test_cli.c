/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_cli.c - the command table and the option parser.
 *
 * The table must be sorted and unique, and every command must have its page
 * under docs/cmd/. The option parser must read fabtune's units and reject
 * what it cannot read.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench-table.h"
#include "cli.h"

static void
test_table_sorted_and_documented(void **state)
{
	size_t i;

	assert_true(cli_ncommands >= 2);
	for (i = 0; i < cli_ncommands; i++) {
		char path[128];

		if (i > 0 && strcmp(cli_commands[i - 1].name, cli_commands[i].name) >= 0)
			fail_msg("cli_commands[] is not sorted at '%s'", cli_commands[i].name);
		snprintf(path, sizeof(path), "docs/cmd/%s.md", cli_commands[i].name);
		if (access(path, R_OK) != 0)
			fail_msg("command '%s' has no %s", cli_commands[i].name, path);
		assert_non_null(cli_commands[i].run);
		assert_non_null(cli_commands[i].summary);
		assert_ptr_equal(cli_find_cmd(cli_commands, cli_ncommands, cli_commands[i].name),
				 &cli_commands[i]);
	}
	assert_null(cli_find_cmd(cli_commands, cli_ncommands, "no-such-command"));
}

static void
test_opts_units(void **state)
{
	uint64_t minb = 0, maxb = 0;
	double rate = 0, dt = 0;
	bool flag = false;
	int iters = 0;
	const struct opt opts[] = {
		OPT_SIZE('b', "minbytes", &minb, "min size"),
		OPT_SIZE('e', "maxbytes", &maxb, "max size"),
		OPT_RATE(0, "rate", &rate, "rate"),
		OPT_DURATION(0, "timeout", &dt, "timeout"),
		OPT_BOOL('c', "check", &flag, "check"),
		OPT_INT('n', "iters", &iters, "N", "iterations"),
		OPT_END(),
	};
	static const char *const syn[] = { "fabtune t", NULL };
	const struct cmd_usage u = { "t", syn, "test", opts };
	struct cli_ctx ctx;
	char *argv[] = { "t", "-b", "8", "--maxbytes=8G", "pos1", "--rate", "400Gbps",
			 "--timeout=30s", "-c", "-n20", "--json", "--", "-x", NULL };
	int n;

	memset(&ctx, 0, sizeof(ctx));
	n = opts_parse(&u, &ctx, 13, argv);
	assert_int_equal(n, 2);
	assert_string_equal(argv[1], "pos1");
	assert_string_equal(argv[2], "-x");
	assert_int_equal(minb, 8);
	assert_int_equal(maxb, 8ULL << 30);
	assert_true(rate == 50e9);
	assert_true(dt == 30);
	assert_true(flag);
	assert_int_equal(iters, 20);
	assert_true(ctx.json);
}

static void
test_opts_errors(void **state)
{
	uint64_t minb = 0;
	const struct opt opts[] = { OPT_SIZE('b', "minbytes", &minb, "min size"), OPT_END() };
	static const char *const syn[] = { "fabtune t", NULL };
	const struct cmd_usage u = { "t", syn, "test", opts };
	struct cli_ctx ctx;
	char *bad_size[] = { "t", "-b", "lots", NULL };
	char *missing[] = { "t", "--minbytes", NULL };
	char *unknown[] = { "t", "--nope", NULL };
	FILE *saved = stderr;

	memset(&ctx, 0, sizeof(ctx));
	stderr = fopen("/dev/null", "w");
	assert_int_equal(opts_parse(&u, &ctx, 3, bad_size), -1);
	assert_int_equal(opts_parse(&u, &ctx, 2, missing), -1);
	assert_int_equal(opts_parse(&u, &ctx, 2, unknown), -1);
	fclose(stderr);
	stderr = saved;
}

/*
 * `fabtune bench` prints nccl-tests' table byte for byte: every data row and
 * the column headers of real nccl-tests outputs (the classic format, before
 * 2.18) come out the same when their parsed rows are rendered again, and the
 * "Avg bus bandwidth" line averages out-of-place and in-place busbw as
 * nccl-tests does (the fixture's figure was computed from unrounded values,
 * so it matches to the rounding of the rows).
 */
static void
table_matches(const char *name)
{
	char path[256];
	struct ft_strbuf text, out;
	struct ft_obs_set obs;
	struct ft_bench_report rep;
	struct ft_error err = { 0 };
	const char *line, *root = getenv("FT_SOURCE_ROOT");
	size_t row = 0, heads = 0;
	double want_avg = -1, got_avg;

	snprintf(path, sizeof(path), "%s/tests/fixtures/nccl-tests/%s", root ? root : ".", name);
	ft_strbuf_init(&text);
	ft_strbuf_init(&out);
	ft_obs_set_init(&obs);
	ft_bench_report_init(&rep);
	assert_int_equal(ft_strbuf_read_file(&text, path, &err), 0);
	assert_int_equal(ft_parse_buffer(text.buf, text.len, path, "nccl-tests", &obs, &rep.run,
	                                 &err),
	                 0);
	assert_true(ft_run_nrows(&rep.run) >= 5);
	cli_bench_coll_head(&out);
	for (line = text.buf; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
		size_t len = strcspn(line, "\n");
		char *mine;

		if (strncmp(line, "#       size", 12) == 0 || strncmp(line, "#        (B)", 12) == 0 ||
		    (line[0] == '#' && strspn(line + 1, " ") > 40 && strstr(line, "out-of-place"))) {
			/* one of the three header lines: find it in ours */
			char want[256];

			assert_true(len < sizeof(want));
			memcpy(want, line, len);
			want[len] = '\n';
			want[len + 1] = '\0';
			assert_non_null(strstr(out.buf, want));
			heads++;
		} else if (len > 12 && line[0] == ' ' && strspn(line, " ") < 12 &&
		           line[strspn(line, " ")] >= '0' && line[strspn(line, " ")] <= '9') {
			struct ft_strbuf one;

			assert_true(row < ft_run_nrows(&rep.run));
			ft_strbuf_init(&one);
			cli_bench_coll_row(&one, ft_run_row(&rep.run, row++));
			mine = one.buf;
			assert_int_equal(strlen(mine), len + 1);
			assert_memory_equal(mine, line, len);
			ft_strbuf_release(&one);
		} else if (strncmp(line, "# Avg bus bandwidth    : ", 25) == 0) {
			want_avg = atof(line + 25);
		}
	}
	assert_int_equal(heads, 3);
	assert_int_equal(row, ft_run_nrows(&rep.run));
	assert_true(want_avg > 0);
	ft_strbuf_reset(&out);
	assert_false(cli_bench_coll_foot(&out, &rep));
	line = strstr(out.buf, "# Avg bus bandwidth    : ");
	assert_non_null(line);
	got_avg = atof(line + 25);
	assert_true(fabs(got_avg - want_avg) <= 0.0005 * want_avg + 0.005);
	/* nccl-tests prints "%g %s": a space before the empty verdict */
	assert_non_null(strstr(out.buf, "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : "));
	assert_non_null(strstr(line, " \n#\n"));
	ft_bench_report_release(&rep);
	ft_obs_set_release(&obs);
	ft_strbuf_release(&out);
	ft_strbuf_release(&text);
}

static void
test_bench_table_is_nccl_tests(void **state)
{
	table_matches("h100-2node-16gpu-all-reduce-same-cluster-baseline.txt");
	table_matches("dell-xe9680-2x8-h100-cx7-ib400-all-reduce-mpi-xpmem-warn.txt");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_sorted_and_documented),
		cmocka_unit_test(test_opts_units),
		cmocka_unit_test(test_opts_errors),
		cmocka_unit_test(test_bench_table_is_nccl_tests),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

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

#include "source_root.h"

#include "base/alloc_int.h"

#include "cli.h"
#include "cli-archive.h"
#include "cli-run.h"

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

/* The option families several commands share: their names, targets and help as each
 * command states it. */
static void
test_opts_families(void **state)
{
	uint64_t minb = 0, maxb = 0;
	const char *output = NULL;
	struct cli_compare_args ca = { 0 };
	bool save = false;
	const struct opt opts[] = {
		OPT_SIZE_RANGE(&minb, &maxb, "default 8", "default 8G"),
		OPT_SAVE(&save, "the run"),
		OPT_OUTPUT(&output),
		CLI_COMPARE_BAND_OPTS(ca),
		OPT_END(),
	};
	static const char *const syn[] = { "fabtune t", NULL };
	const struct cmd_usage u = { "t", syn, "test", opts };
	struct cli_ctx ctx;
	char *argv[] = { "t", "-b", "4K", "-e1M", "--save", "-o", "out.json", "--threshold=7%",
			 "--sigma", "2.5", NULL };

	(void)state;
	memset(&ctx, 0, sizeof(ctx));
	assert_int_equal(opts_parse(&u, &ctx, 10, argv), 0);
	assert_int_equal(minb, 4096);
	assert_int_equal(maxb, 1 << 20);
	assert_true(save);
	assert_string_equal(output, "out.json");
	assert_string_equal(ca.threshold, "7%");
	assert_true(ca.sigma == 2.5);
	assert_int_equal(opts[0].short_name, 'b');
	assert_string_equal(opts[0].help, "smallest size (default 8)");
	assert_string_equal(opts[1].long_name, "maxbytes");
	assert_string_equal(opts[1].help, "largest size (default 8G)");
	assert_string_equal(opts[2].help, "store the run in the archive");
	assert_int_equal(opts[3].short_name, 'o');
	assert_string_equal(opts[4].help, "stated threshold without repeated samples (default 5%)");
	assert_string_equal(opts[5].argh, "K");
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
table_matches(const char *name, bool blanks_kept)
{
	char path[256];
	struct ft_strbuf text, out;
	struct ft_obs_set obs;
	struct ft_bench_report rep;
	struct ft_error err = { 0 };
	const char *line, *root = getenv("FT_SOURCE_ROOT");
	size_t row = 0, heads = 0;
	double want_avg = -1, got_avg;

	snprintf(path, sizeof(path), "%s/tests/fixtures/nccl-tests/%s",
	         root ? root : FT_TEST_SOURCE_ROOT, name);
	ft_strbuf_init(&text);
	ft_strbuf_init(&out);
	ft_obs_set_init(&obs);
	ft_bench_report_init(&rep);
	assert_int_equal(ft_strbuf_read_file(&text, path, &err), 0);
	assert_int_equal(ft_parse_buffer(text.buf, text.len, path, "nccl-tests", &obs, &rep.run,
	                                 &err),
	                 0);
	assert_true(ft_run_nrows(&rep.run) >= 5);
	ft_bench_coll_head(&out, FT_BENCH_STYLE_CLASSIC);
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
			if (blanks_kept) {
				assert_non_null(strstr(out.buf, want));
			} else {
				/* the page that carried this output trimmed the lines' ends */
				const char *at;

				want[len] = '\0';
				at = strstr(out.buf, want);
				assert_non_null(at);
				at += len;
				assert_int_equal(strspn(at, " "), strcspn(at, "\n"));
			}
			heads++;
		} else if (len > 12 && line[0] == ' ' && strspn(line, " ") < 12 &&
		           line[strspn(line, " ")] >= '0' && line[strspn(line, " ")] <= '9') {
			struct ft_strbuf one;

			assert_true(row < ft_run_nrows(&rep.run));
			ft_strbuf_init(&one);
			ft_bench_coll_row(&one, ft_run_row(&rep.run, row++), FT_BENCH_STYLE_CLASSIC);
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
	assert_false(ft_bench_coll_foot(&out, &rep, getenv("NCCL_TESTS_MIN_BW")));
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
	table_matches("h100-2node-16gpu-all-reduce-same-cluster-baseline.txt", false);
	table_matches("dell-xe9680-2x8-h100-cx7-ib400-all-reduce-mpi-xpmem-warn.txt", false);
	/* published as printed, the blanks nccl-tests leaves at the heads' ends included */
	table_matches("gcp-a3-mega-2x8-h100-tcpxo-all-reduce.txt", true);
	table_matches("coreweave-gb200-nvl72-2rack-128gpu-all-reduce-excerpt.txt", true);
}

/* @s with tabs expanded to 8-column stops, as a terminal or a web page shows them. */
static void
expand_tabs(const char *s, char *out, size_t cap)
{
	size_t col = 0, k = 0;

	for (; *s && k + 9 < cap; s++) {
		if (*s == '\t') {
			do
				out[k++] = ' ';
			while (++col % 8);
		} else {
			out[k++] = *s;
			col = *s == '\n' ? 0 : col + 1;
		}
	}
	out[k] = '\0';
}

/*
 * perftest's rows and column headers as fabtune prints them, against real
 * lines: ib_write_bw -a --report_gbits (a published output, its tabs shown
 * as spaces) and an ib_write_lat row with perftest's tabs.
 */
static void
test_bench_table_is_perftest(void **state)
{
	static const struct {
		uint64_t bytes;
		uint32_t iters;
		double peak_gbps, avg_gbps, mpps;
		const char *line;
	} bw[] = {
		{ 2, 5000, 0.11, 0.11, 6.897101,
		  " 2          5000             0.11               0.11               6.897101\n" },
		{ 2048, 5000, 91.53, 91.47, 5.582931,
		  " 2048       5000             91.53              91.47              5.582931\n" },
		{ 65536, 5000, 92.39, 92.38, 0.176196,
		  " 65536      5000             92.39              92.38              0.176196\n" },
	};
	struct ft_strbuf sb;
	struct ft_result_row row;
	char wide[512];
	size_t i;

	ft_strbuf_init(&sb);
	ft_bench_pt2pt_head(&sb, false, false, true);
	assert_string_equal(sb.buf, " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]"
	                            "   MsgRate[Mpps]\n");
	for (i = 0; i < sizeof(bw) / sizeof(bw[0]); i++) {
		ft_result_row_init(&row);
		row.bytes = bw[i].bytes;
		row.nsamples = bw[i].iters;
		row.ip_algbw_GBps = bw[i].peak_gbps / 8;
		/* the message rate comes from the average: give it the one printed */
		row.algbw_GBps = bw[i].mpps * 1e6 * (double)bw[i].bytes / 1e9;
		assert_true(fabs(row.algbw_GBps * 8 - bw[i].avg_gbps) < 0.006);
		ft_strbuf_reset(&sb);
		ft_bench_pt2pt_row(&sb, false, false, true, &row);
		expand_tabs(sb.buf, wide, sizeof(wide));
		assert_string_equal(wide, bw[i].line);
	}
	/* MB/sec is MiB/s: 1 GB/s is 953.67 MB/sec */
	ft_strbuf_reset(&sb);
	row.ip_algbw_GBps = row.algbw_GBps = 1.0;
	row.bytes = 1048576;
	row.nsamples = 10;
	ft_bench_pt2pt_row(&sb, false, false, false, &row);
	assert_non_null(strstr(sb.buf, "953.67             953.67"));
	ft_strbuf_reset(&sb);
	ft_bench_pt2pt_head(&sb, true, false, false);
	assert_string_equal(sb.buf, " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]"
	                            "    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% "
	                            "percentile[usec] \n");
	ft_result_row_init(&row);
	row.bytes = 4096;
	row.nsamples = 1000;
	row.lat_min_us = 2.11;
	row.lat_max_us = 19.52;
	row.lat_p50_us = 2.19;
	row.lat_avg_us = 2.31;
	row.lat_stdev_us = 0.88;
	row.lat_p99_us = 9.74;
	row.lat_p999_us = 19.52;
	ft_strbuf_reset(&sb);
	ft_bench_pt2pt_row(&sb, true, false, false, &row);
	assert_string_equal(sb.buf, " 4096    1000          2.11           19.52        2.19     \t"
	                            "       2.31        \t0.88   \t\t9.74    \t\t19.52  \n");
	/*
	 * -D: t_avg and the transactions a second (round trips), as perftest
	 * prints them since 2016 (an ib_write_lat -D run: 3.88 us, 128993.46)
	 */
	ft_strbuf_reset(&sb);
	ft_bench_pt2pt_head(&sb, true, true, false);
	assert_string_equal(sb.buf, " #bytes        #iterations       t_avg[usec]    tps average\n");
	ft_result_row_init(&row);
	row.bytes = 2;
	row.nsamples = 1289984;
	row.lat_avg_us = 1e6 / (2 * 128993.46);
	ft_strbuf_reset(&sb);
	ft_bench_pt2pt_row(&sb, true, true, false, &row);
	assert_string_equal(sb.buf, " 2             1289984            3.88           128993.46\n");
	ft_strbuf_release(&sb);
}

/* The settings line above the table: perftest's two tabs before the second key. */
static void
test_bench_perftest_settings(void **state)
{
	struct ft_bench_table t = { true, false, NULL, FT_BENCH_STYLE_CLASSIC };
	struct ft_bench_cfg cfg;
	struct ft_bench_report rep;
	struct ft_strbuf sb;

	(void)state;
	ft_bench_cfg_init(&cfg);
	cfg.pattern = FT_OP_PT2PT_BW;
	cfg.min_bytes = cfg.max_bytes = 65536;
	cfg.streams = 2;
	ft_bench_cfg_resolve(&cfg);
	ft_bench_report_init(&rep);
	ft_strlcpy(rep.transport, "tcp", sizeof(rep.transport));
	ft_strbuf_init(&sb);
	ft_bench_table_end(&sb, &t, &rep, &cfg, false);
	/* ib_write_bw's: " Number of qps   : 1\t\tTransport type : IB" */
	assert_non_null(strstr(sb.buf, "\n Number of qps   : 2\t\tTransport type : tcp\n"));
	assert_non_null(strstr(sb.buf, "\n                    tcp BW Test (fabtune)\n"));
	/* over verbs, the title names the operation as perftest's does ("RDMA_Write BW Test") */
	{
		static const struct {
			const char *op, *title;
		} titles[] = {
			{ "send", "                    Send BW Test (fabtune)\n" },
			{ "write", "                    RDMA_Write BW Test (fabtune)\n" },
			{ "read", "                    RDMA_Read BW Test (fabtune)\n" },
			{ "fadd", "                    Atomic FETCH_AND_ADD BW Test (fabtune)\n" },
			{ "cswap", "                    Atomic CMP_AND_SWAP BW Test (fabtune)\n" },
		};

		ft_strlcpy(rep.transport, "verbs", sizeof(rep.transport));
		for (size_t i = 0; i < sizeof(titles) / sizeof(titles[0]); i++) {
			ft_strlcpy(cfg.verbs_op, titles[i].op, sizeof(cfg.verbs_op));
			ft_strbuf_reset(&sb);
			ft_bench_table_end(&sb, &t, &rep, &cfg, false);
			assert_non_null(strstr(sb.buf, titles[i].title));
		}
	}
	ft_strbuf_release(&sb);
	ft_bench_report_release(&rep);
}

/* The global options before a command, read from the global option table. */
static void
test_global_words(void **state)
{
	static const struct {
		const char *words[2];
		int n;
	} cases[] = {
		{ { "--json", "model" }, 1 },	  { { "--no-color", "x" }, 1 },
		{ { "-v", "x" }, 1 },		  { { "--verbose", "x" }, 1 },
		{ { "--seed=7", "x" }, 1 },	  { { "--seed", "7" }, 2 },
		{ { "--archive", "a.db" }, 2 },	  { { "--archive=a.db", "x" }, 1 },
		{ { "--json=1", "x" }, 0 },	  { { "--jsonx", "x" }, 0 },
		{ { "-vv", "x" }, 0 },		  { { "--se", "7" }, 0 },
		{ { "model", "--json" }, 0 },	  { { "-", "x" }, 0 },
	};
	char *seed_last[] = { (char *)"--seed" };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *w[2] = { (char *)cases[i].words[0], (char *)cases[i].words[1] };

		if (opts_global_words(2, w) != cases[i].n)
			fail_msg("'%s %s': expected %d words", w[0], w[1], cases[i].n);
	}
	/* a value option without its value is no global option */
	assert_int_equal(opts_global_words(1, seed_last), 0);
}

/* cli-run.c: arguments counted, --help and usage errors turned into exit codes, the archive
 * checked before the work, the end that writes or reports. */
static void
test_cli_run(void **state)
{
	bool flag = false;
	const struct opt opts[] = { OPT_BOOL('c', "check", &flag, "check"), OPT_END() };
	static const char *const syn[] = { "fabtune t", NULL };
	const struct cmd_usage u = { "t", syn, "test", opts };
	struct cli_ctx ctx;
	char *two[] = { "t", "a", "-c", "b", NULL };
	char *help[] = { "t", "--help", NULL };
	char dir[] = "/tmp/ft-test-clirun-XXXXXX", path[64], cmd[96];
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	FILE *saved_err = stderr, *saved_out = stdout;
	int code = -7;

	(void)state;
	memset(&ctx, 0, sizeof(ctx));
	ctx.cmd = "t";
	stderr = fopen("/dev/null", "w");
	stdout = fopen("/dev/null", "w");
	assert_int_equal(opts_parse_args(&u, &ctx, 4, two, -1, &code), 2);
	assert_true(flag);
	assert_string_equal(two[2], "b");
	two[1] = "a";
	two[2] = "b";
	two[3] = NULL;
	assert_int_equal(opts_parse_args(&u, &ctx, 3, two, 1, &code), -1);
	assert_int_equal(code, EXIT_USAGE);
	assert_int_equal(opts_parse_args(&u, &ctx, 2, help, 0, &code), -1);
	assert_int_equal(code, EXIT_OK);
	/* an archive that cannot open stops the command before its work */
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/no/such/dir/a.db", dir);
	ctx.archive = path;
	assert_int_equal(cli_save_check(&ctx, "the test"), -1);
	snprintf(path, sizeof(path), "%s/a.db", dir);
	assert_int_equal(cli_save_check(&ctx, "the test"), 0);
	ft_strbuf_init(&sb);
	ft_strbuf_adds(&sb, "text\n");
	assert_int_equal(cli_finish(&ctx, &sb, 0, &err), EXIT_OK);
	assert_int_equal(sb.len, 0);
	ft_strbuf_adds(&sb, "text\n");
	ft_error_set(&err, FT_ENOMEM, "out of memory");
	assert_int_equal(cli_finish(&ctx, &sb, FT_ENOMEM, &err), EXIT_RUNTIME);
	assert_int_equal(sb.len, 0);
	fclose(stderr);
	fclose(stdout);
	stderr = saved_err;
	stdout = saved_out;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * A group ("archive", "archive baseline") answers --help as a command does:
 * its verbs as text, or as JSON with --json on either side of --help, the
 * schema fabtune.help/1 and the group in "command".
 */
static int
verb_ok(int argc, char **argv, struct cli_ctx *ctx)
{
	(void)argc;
	(void)argv;
	(void)ctx;
	return 42;
}

static char *
group_output(struct cli_ctx *ctx, int argc, char **argv, int *rc)
{
	static const struct cmd table[] = { { "one", verb_ok, "the first verb" },
					    { "two", verb_ok, "the second verb" } };
	FILE *saved_out = stdout, *saved_err = stderr, *f = tmpfile();
	char *buf = calloc(1, 4096);

	assert_non_null(f);
	assert_non_null(buf);
	stdout = f;
	stderr = fopen("/dev/null", "w");
	*rc = cli_dispatch(table, FT_ARRAY_SIZE(table), "grp", argc, argv, ctx);
	fflush(stdout);
	fclose(stderr);
	stdout = saved_out;
	stderr = saved_err;
	rewind(f);
	assert_true(fread(buf, 1, 4095, f) < 4095);
	fclose(f);
	return buf;
}

static void
test_group_help(void **state)
{
	char *json_after[] = { "grp", "--help", "--json", NULL };
	char *json_before[] = { "grp", "--json", "--help", NULL };
	char *text[] = { "grp", "-h", NULL };
	char *verb[] = { "grp", "two", NULL };
	char *none[] = { "grp", "--json", NULL };
	struct cli_ctx ctx;
	char *out;
	int rc;

	(void)state;
	memset(&ctx, 0, sizeof(ctx));
	ctx.cmd = "grp";
	cli_set_running(&ctx);
	out = group_output(&ctx, 3, json_after, &rc);
	assert_int_equal(rc, EXIT_OK);
	assert_string_equal(out, "{\"schema\":\"fabtune.help/1\",\"command\":\"grp\",\"commands\":"
				 "[{\"name\":\"one\",\"summary\":\"the first verb\"},"
				 "{\"name\":\"two\",\"summary\":\"the second verb\"}]}\n");
	assert_string_equal(ctx.cmd, "grp");
	free(out);
	out = group_output(&ctx, 3, json_before, &rc);
	assert_int_equal(rc, EXIT_OK);
	assert_non_null(strstr(out, "\"command\":\"grp\""));
	free(out);
	ctx.json = false; /* the --json above set it, as for the rest of a command */
	out = group_output(&ctx, 2, text, &rc);
	assert_int_equal(rc, EXIT_OK);
	assert_non_null(strstr(out, "usage: fabtune grp <command>"));
	assert_non_null(strstr(out, "  two        the second verb\n"));
	assert_null(strchr(out, '{'));
	free(out);
	out = group_output(&ctx, 2, verb, &rc);
	assert_int_equal(rc, 42);
	free(out);
	ctx.cmd = "grp"; /* the verb named it "grp two", in a buffer now gone */
	out = group_output(&ctx, 2, none, &rc);
	assert_int_equal(rc, EXIT_USAGE);
	assert_string_equal(out, "");
	free(out);
	cli_set_running(NULL);
}

/* What cli_error() writes to stderr with allocation @n failed (0: none), in @line. */
static void
msg_with_fail_at(unsigned long n, char *line, size_t size, bool *fired)
{
	struct cli_ctx ctx;
	FILE *f = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t got;

	assert_non_null(f);
	assert_true(saved >= 0);
	memset(&ctx, 0, sizeof(ctx));
	ctx.cmd = "sim";
	fflush(stderr);
	assert_true(dup2(fileno(f), STDERR_FILENO) >= 0);
	ft__alloc_fail_at(n);
	cli_error(&ctx, "%s: %s", "sim",
	          "out of memory for 3 tasks \x1b[2J in sp\xc3\xa9"
	          "c.yaml, \xc2\x85 and a\rb");
	*fired = ft__alloc_failed();
	ft__alloc_fail_at(0);
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(f);
	got = fread(line, 1, size - 1, f);
	line[got] = '\0';
	fclose(f);
}

/*
 * A message whose own buffers cannot be had (out of memory) is still written whole, its
 * control bytes escaped: every allocation of cli_msg() failed in turn gives the line of
 * the run without a failure, never "fabtune sim: " and nothing after, with the same
 * escapes (printable UTF-8 kept, a C1 control as \u0085, a CR alone as \x0d).
 */
static void
test_msg_out_of_memory(void **state)
{
	static const char want[] = "fabtune sim: sim: out of memory for 3 tasks \\x1b[2J in "
	                           "sp\xc3\xa9"
	                           "c.yaml, \\u0085 and a\\x0db\n";
	char line[256];
	unsigned long n;
	bool fired;

	(void)state;
	msg_with_fail_at(0, line, sizeof(line), &fired);
	assert_string_equal(line, want);
	for (n = 1; n < 100; n++) {
		msg_with_fail_at(n, line, sizeof(line), &fired);
		if (!fired)
			break;
		if (strcmp(line, want) != 0)
			fail_msg("allocation %lu failed: '%s'", n, line);
	}
	assert_true(n > 1 && n < 100); /* the message's two buffers */
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_sorted_and_documented),
		cmocka_unit_test(test_opts_units),
		cmocka_unit_test(test_opts_families),
		cmocka_unit_test(test_opts_errors),
		cmocka_unit_test(test_global_words),
		cmocka_unit_test(test_bench_table_is_nccl_tests),
		cmocka_unit_test(test_bench_table_is_perftest),
		cmocka_unit_test(test_bench_perftest_settings),
		cmocka_unit_test(test_cli_run),
		cmocka_unit_test(test_group_help),
		cmocka_unit_test(test_msg_out_of_memory),
	};
	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

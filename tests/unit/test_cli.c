/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_cli.c - the command table and the option parser.
 *
 * The table must be sorted and unique, and every command must have its page
 * under docs/cmd/. The option parser must read fabtune's units and reject
 * what it cannot read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_sorted_and_documented),
		cmocka_unit_test(test_opts_units),
		cmocka_unit_test(test_opts_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

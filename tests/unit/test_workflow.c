/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_workflow.c - what the diagnose, advise and parse commands
 * print, written by the library: a finding with its evidence lines and the
 * count per severity, advice as shell lines (quoting included), the rule
 * list, one parsed file as text (a count per key) and as JSON, and runs
 * imported from files and named by references, comparison options as
 * written on a command line, output paths checked before the work, and
 * text on its way out (a document's schema, a terminal's colours).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* cmocka needs the headers above first */
#include <cmocka.h>

#include "source_root.h"

#include <fabtune/fabtune.h>
#include <fabtune/parse.h>
#include <fabtune/workflow.h>

#define TOOL_OUTPUT "tests/fixtures/nccl-tests/fabtune-all-gather-shm-2-ranks.txt"

/* An observation with a number, as a parser would have made it. */
#define OBS(k, dev, p, v, u, f, l)                                                          \
	((struct ft_obs){ .key = k, .device = dev, .port = p, .rank = -1, .has_num = true,    \
	                  .num = v, .unit = u, .file = f, .line = l })

static void
test_findings_text(void **state)
{
	struct ft_workflow_inputs in;
	struct ft_findings f;
	struct ft_finding x = {
		.rule_id = "ib-symbol-errors",
		.layer = FT_LAYER_FABRIC,
		.severity = FT_SEV_WARNING,
		.entity = "mlx5_0/1",
		.message = "symbol errors rise",
		.fix = "reseat the cable",
		.kb = "IB-COUNTERS",
		.nevidence = 2,
	};
	struct ft_strbuf sb;
	char head[160], tail[160];

	(void)state;
	x.evidence[0] = OBS("ib.counter.SymbolErrorCounter", "mlx5_0", 1, 12, "count",
	                    "perfquery.txt", 7);
	x.evidence[1] = OBS("ib.port.rate", "", -1, 200, "", "", 0);
	ft_workflow_inputs_init(&in);
	in.nfiles = 1;
	in.nskipped = 2;
	assert_int_equal(ft_obs_set_add(&in.obs, &x.evidence[0]), 0);
	ft_findings_init(&f);
	assert_int_equal(ft_findings_add(&f, &x), 0);
	ft_strbuf_init(&sb);
	ft_workflow_findings_write(&sb, &f, &in, false, false);
	assert_false(sb.oom);
	snprintf(head, sizeof(head),
	         "1 observations from 1 input, %zu rules; 2 input lines not understood "
	         "(see fabtune parse)\n\n",
	         ft_rule_count());
	assert_memory_equal(sb.buf, head, strlen(head));
	assert_non_null(strstr(sb.buf, "\n1. [warning] ib-symbol-errors (fabric) mlx5_0/1\n"
	                               "  symbol errors rise\n"
	                               "  fix: reseat the cable\n"
	                               "  kb: IB-COUNTERS\n"
	                               "  evidence:\n"
	                               "    perfquery.txt:7: mlx5_0/port 1 "
	                               "ib.counter.SymbolErrorCounter = 12 count\n"
	                               "    -: ib.port.rate = 200\n"));
	snprintf(tail, sizeof(tail), "\n1 finding: 0 critical, 0 error, 1 warning, 0 info\n");
	assert_string_equal(sb.buf + sb.len - strlen(tail), tail);
	ft_strbuf_release(&sb);

	/* no findings: the line of what was read, then says so */
	ft_findings_release(&f);
	ft_findings_init(&f);
	in.nskipped = 0;
	ft_strbuf_init(&sb);
	ft_workflow_findings_write(&sb, &f, &in, false, false);
	snprintf(head, sizeof(head), "1 observations from 1 input, %zu rules\nno findings\n",
	         ft_rule_count());
	assert_string_equal(sb.buf, head);
	ft_strbuf_release(&sb);
	ft_findings_release(&f);
	ft_workflow_inputs_release(&in);
}

static void
test_advice_env(void **state)
{
	struct ft_advice a = { .id = "nccl-ib-hca", .setting = "NCCL_IB_HCA", .value = "=mlx5_0:1 'x'",
		               .is_env = true, .reason = "one HCA per rail" };
	struct ft_advice b = { .id = "nccl-algo", .setting = "NCCL_ALGO", .is_env = true,
		               .unset = true, .reason = "let NCCL choose" };
	struct ft_advice c = { .id = "roce-mtu", .setting = "netdev mtu", .value = "9000",
		               .action = "ip link set eth0 mtu 9000", .reason = "jumbo frames" };
	struct ft_advice_set s;
	struct ft_strbuf sb;

	(void)state;
	ft_advice_set_init(&s);
	assert_int_equal(ft_vec_push(&s.v, &a), 0);
	assert_int_equal(ft_vec_push(&s.v, &b), 0);
	assert_int_equal(ft_vec_push(&s.v, &c), 0);
	ft_strbuf_init(&sb);
	ft_workflow_advice_write(&sb, &s, NULL, NULL, FT_ADVICE_ENV);
	assert_string_equal(sb.buf, "# NCCL environment advised by fabtune\n"
	                            "# nccl-ib-hca: one HCA per rail\n"
	                            "export NCCL_IB_HCA='=mlx5_0:1 '\\''x'\\'''\n"
	                            "# nccl-algo: let NCCL choose\n"
	                            "unset NCCL_ALGO\n"
	                            "# system changes (not environment variables):\n"
	                            "#   roce-mtu: ip link set eth0 mtu 9000\n");
	ft_strbuf_release(&sb);
	ft_advice_set_release(&s);
}

static void
test_rules_json(void **state)
{
	struct ft_strbuf sb;
	size_t n = 0;

	(void)state;
	ft_strbuf_init(&sb);
	ft_workflow_rules_write(&sb, true);
	for (const char *p = sb.buf; (p = strstr(p, "\"id\":")); p++)
		n++;
	assert_int_equal(n, ft_rule_count());
	assert_true(n > 10);
	/* one object, so that the CLI stamps its schema first: {"rules": [...]} */
	assert_true(strncmp(sb.buf, "{\"rules\":[{", 11) == 0);
	assert_string_equal(sb.buf + sb.len - 3, "]}\n");
	ft_strbuf_release(&sb);
}

static void
test_parse_file_summary(void **state)
{
	struct ft_obs_set set, view, tail;
	struct ft_obs o[4];
	struct ft_run run;
	struct ft_strbuf sb;
	struct ft_json j;

	(void)state;
	o[0] = OBS("first.file", "", -1, 1, "", "a.txt", 1);
	o[1] = OBS("ib.port.state", "mlx5_0", 1, 4, "", "b.txt", 1);
	o[2] = OBS("ib.port.rate", "mlx5_0", 1, 200, "Gbps", "b.txt", 2);
	o[3] = OBS("ib.port.state", "mlx5_1", 1, 4, "", "b.txt", 3);
	ft_obs_set_init(&set);
	view = ft_parse_obs_since(&set, 0);
	assert_int_equal(ft_obs_set_len(&view), 0);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(ft_obs_set_add(&set, &o[i]), 0);
	view = ft_parse_obs_since(&set, 1);
	assert_int_equal(ft_obs_set_len(&view), 3);
	assert_string_equal(ft_obs_set_at(&view, 0)->key, "ib.port.state");
	tail = ft_parse_obs_since(&set, 4);
	assert_int_equal(ft_obs_set_len(&tail), 0);
	view = ft_parse_obs_since(&set, 1);

	ft_run_init(&run, FT_SOURCE_IMPORT, "");
	ft_strbuf_init(&sb);
	ft_parse_write_file(&sb, "b.txt", &view, &run, true);
	/* a count per key, in order of first appearance */
	assert_non_null(strstr(sb.buf, "b.txt: 3 observations\n"));
	assert_non_null(strstr(sb.buf, "ib.port.state      2\n"));
	assert_non_null(strstr(sb.buf, "ib.port.rate       1\n"));
	assert_true(strstr(sb.buf, "ib.port.state") < strstr(sb.buf, "ib.port.rate"));
	assert_null(strstr(sb.buf, "result rows"));
	ft_strbuf_reset(&sb);
	ft_json_init(&j, &sb, false);
	ft_parse_file_json(&j, "b.txt", &view, &run);
	assert_memory_equal(sb.buf, "{\"file\":\"b.txt\",\"observations\":[{\"key\":\"ib.port.state\"",
	                    54);
	assert_string_equal(sb.buf + sb.len - 10, "\"rows\":[]}");
	ft_strbuf_release(&sb);
	ft_run_release(&run);
	ft_obs_set_release(&set);
}

/* Import a tool's output and a fabtune export, resolve references, list baselines. */
static void
test_import_resolve(void **state)
{
	char dir[] = "/tmp/ft-test-workflow-XXXXXX", db[64], exp[64], path[80];
	struct ft_error err = { 0 };
	struct ft_archive *ar = NULL;
	struct ft_baseline_info bl[2] = { { "nightly", 2, 7 }, { "one", 1, 3 } };
	const char *refs[] = { "latest~1", "latest" };
	struct ft_strbuf sb;
	struct ft_vec ids;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/a.db", dir);
	snprintf(exp, sizeof(exp), "%s/export.json", dir);
	assert_int_equal(ft_archive_open(db, &ar, &err), 0);
	ft_vec_init(&ids, sizeof(int64_t));
	assert_int_equal(ft_workflow_import_file(ar, TOOL_OUTPUT, NULL, &ids, &err), 0);
	assert_int_equal(ids.len, 1);
	/* the run, exported then imported again (a JSON document), is a second run */
	ft_strbuf_init(&sb);
	assert_int_equal(ft_archive_export(ar, ids.data, ids.len, &sb, 0, &err), 0);
	assert_int_equal(ft_file_write(exp, sb.buf, sb.len, &err), 0);
	assert_int_equal(ft_workflow_import_file(ar, exp, NULL, &ids, &err), 0);
	assert_int_equal(ids.len, 2);
	assert_true(FT_VEC_AT(&ids, int64_t, 1) > FT_VEC_AT(&ids, int64_t, 0));
	/* references name these runs in order; none names every run */
	ft_vec_release(&ids);
	ft_vec_init(&ids, sizeof(int64_t));
	assert_int_equal(ft_workflow_resolve_runs(ar, refs, 2, &ids, &err), 0);
	assert_int_equal(ids.len, 2);
	assert_int_equal(ft_workflow_resolve_runs(ar, NULL, 0, &ids, &err), 0);
	assert_int_equal(ids.len, 4);
	assert_true(FT_VEC_AT(&ids, int64_t, 0) == FT_VEC_AT(&ids, int64_t, 2));
	assert_true(FT_VEC_AT(&ids, int64_t, 1) == FT_VEC_AT(&ids, int64_t, 3));
	/* a reference to no run stops, naming it; a missing file too */
	refs[1] = "99";
	assert_true(ft_workflow_resolve_runs(ar, refs, 2, &ids, &err) < 0);
	assert_non_null(strstr(err.msg, "99"));
	ft_error_clear(&err);
	snprintf(path, sizeof(path), "%s/none.txt", dir);
	assert_int_equal(ft_workflow_import_file(ar, path, NULL, &ids, &err), FT_ENOENT);
	ft_archive_close(ar);

	ft_strbuf_reset(&sb);
	ft_archive_baseline_list_write(&sb, bl, 2, false);
	assert_string_equal(sb.buf, "nightly: 2 runs, newest 7\none: 1 run, newest 3\n");
	ft_strbuf_reset(&sb);
	ft_archive_baseline_list_write(&sb, bl, 0, false);
	assert_string_equal(sb.buf,
	                    "no baselines (add one with 'fabtune archive baseline add NAME RUN')\n");
	ft_strbuf_release(&sb);
	ft_vec_release(&ids);
	unlink(exp);
	unlink(db);
	snprintf(path, sizeof(path), "%s-wal", db);
	unlink(path);
	snprintf(path, sizeof(path), "%s-shm", db);
	unlink(path);
	rmdir(dir);
}

/* Comparison options as written on a command line: known values and each refusal. */
static void
test_compare_opts(void **state)
{
	struct ft_compare_opts o, def;
	struct ft_error err = { 0 };
	double v = -1;

	(void)state;
	ft_compare_opts_init(&def);
	assert_int_equal(ft_compare_opts_parse(&o, NULL, NULL, 0, -1, NULL, &err), 0);
	assert_memory_equal(&o, &def, sizeof(o));
	assert_int_equal(ft_compare_opts_parse(&o, "5%", "0.02", 2.5, 4, "80%", &err), 0);
	assert_true(fabs(o.rel_threshold - 0.05) < 1e-12);
	assert_true(fabs(o.floor_rel - 0.02) < 1e-12);
	assert_true(o.k_sigma == 2.5);
	assert_int_equal(o.min_samples, 4);
	assert_true(fabs(o.min_matched - 0.8) < 1e-12);
	assert_int_equal(ft_compare_parse_fraction("x", "1000%", &v, &err), 0);
	assert_true(fabs(v - 10) < 1e-12);
	assert_int_equal(ft_compare_parse_fraction("x", "1", &v, &err), 0);
	assert_true(v == 1);
	static const char *const bad[] = { "", "%", "1001%", "1.5", "-1%", "5 %", "abc" };
	for (size_t i = 0; i < FT_ARRAY_SIZE(bad); i++) {
		ft_error_clear(&err);
		assert_int_equal(ft_compare_parse_fraction("--floor", bad[i], &v, &err), FT_EINVAL);
	}
	assert_string_equal(err.msg, "--floor: expected a percentage like 5% or a fraction like "
	                             "0.05, got 'abc'");
	ft_error_clear(&err);
	assert_int_equal(ft_compare_opts_parse(&o, "x", NULL, 0, -1, NULL, &err), FT_EINVAL);
	assert_non_null(strstr(err.msg, "--threshold: "));
	ft_error_clear(&err);
	assert_int_equal(ft_compare_opts_parse(&o, NULL, NULL, -1, -1, NULL, &err), FT_EINVAL);
	assert_string_equal(err.msg, "--sigma: expected a number >= 0, got -1");
	ft_error_clear(&err);
	assert_int_equal(ft_compare_opts_parse(&o, NULL, NULL, 0, 1, NULL, &err), FT_EINVAL);
	assert_string_equal(err.msg, "--min-samples: expected a count >= 2, got 1");
	ft_error_clear(&err);
	assert_int_equal(ft_compare_opts_parse(&o, NULL, NULL, 0, -1, "150%", &err), FT_EINVAL);
	assert_string_equal(err.msg, "--min-matched: at most 100%, got '150%'");
}

/*
 * A folder of tool outputs is read as the files under it: those in no known
 * format (a note, an empty file) are listed, not fatal; a folder of nothing
 * known, and an empty one, are errors naming the folder.
 */
static void
test_gather_folder(void **state)
{
	char dir[] = "/tmp/ft-test-gather-XXXXXX", known[80], note[80], empty[80], sub[80];
	const char *files[1] = { dir };
	struct ft_workflow_sources src = { .files = files, .nfiles = 1 };
	struct ft_workflow_inputs in;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/logs", dir);
	snprintf(known, sizeof(known), "%s/logs/nccl-tests.txt", dir);
	snprintf(note, sizeof(note), "%s/README", dir);
	snprintf(empty, sizeof(empty), "%s/zz.empty", dir);

	/* empty: an error naming the folder */
	ft_workflow_inputs_init(&in);
	assert_int_equal(ft_workflow_inputs_gather(&src, &in, &err), FT_ENOENT);
	assert_string_equal(err.msg + strlen(dir), ": no files in the folder");
	ft_workflow_inputs_release(&in);

	/* nothing known: an error naming the folder and how many files it read */
	assert_int_equal(ft_file_write(note, "notes of the run\n", 17, &err), 0);
	assert_int_equal(ft_file_write(empty, "", 0, &err), 0);
	ft_error_clear(&err);
	ft_workflow_inputs_init(&in);
	assert_int_equal(ft_workflow_inputs_gather(&src, &in, &err), FT_EPARSE);
	assert_string_equal(err.msg + strlen(dir),
	                    ": no file in a known format (2 files, none recognised; fabtune parse "
	                    "--list shows the formats)");
	ft_workflow_inputs_release(&in);

	/* one known file in a subfolder: read; the others listed in order, not fatal */
	ft_strbuf_init(&sb);
	assert_int_equal(ft_strbuf_read_file(&sb, TOOL_OUTPUT, &err), 0);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(ft_file_write(known, sb.buf, sb.len, &err), 0);
	ft_strbuf_release(&sb);
	ft_error_clear(&err);
	ft_workflow_inputs_init(&in);
	assert_int_equal(ft_workflow_inputs_gather(&src, &in, &err), 0);
	assert_int_equal(in.nfiles, 1);
	assert_true(ft_run_nrows(&in.rows) > 0);
	assert_int_equal(in.unknown.len, 2);
	assert_string_equal(FT_VEC_AT(&in.unknown, const char *, 0), note);
	assert_string_equal(FT_VEC_AT(&in.unknown, const char *, 1), empty);
	ft_workflow_inputs_release(&in);

	/* the same unknown file named on its own is an error, as ever */
	files[0] = note;
	ft_workflow_inputs_init(&in);
	assert_int_equal(ft_workflow_inputs_gather(&src, &in, &err), FT_EPARSE);
	assert_non_null(strstr(err.msg, "README: unrecognised format"));
	ft_workflow_inputs_release(&in);

	unlink(known);
	unlink(note);
	unlink(empty);
	rmdir(sub);
	rmdir(dir);
}

/* An output path is checked before the work: each way it can be wrong, by name. */
static void
test_check_writable(void **state)
{
	char dir[] = "/tmp/ft-test-outpath-XXXXXX", path[64];
	struct ft_error err = { 0 };

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(ft_file_check_writable("-o", NULL, &err), 0);
	assert_int_equal(ft_file_check_writable("-o", "-", &err), 0);
	snprintf(path, sizeof(path), "%s/report.html", dir);
	assert_int_equal(ft_file_check_writable("-o", path, &err), 0);
	ft_error_clear(&err);
	assert_int_equal(ft_file_check_writable("-o", "", &err), FT_EINVAL);
	assert_string_equal(err.msg, "-o: empty file name");
	ft_error_clear(&err);
	assert_int_equal(ft_file_check_writable("--output", dir, &err), FT_EINVAL);
	assert_non_null(strstr(err.msg, ": is a folder, not a file"));
	snprintf(path, sizeof(path), "%s/none/report.html", dir);
	ft_error_clear(&err);
	assert_int_equal(ft_file_check_writable("-o", path, &err), FT_ENOENT);
	assert_non_null(strstr(err.msg, "/none does not exist"));
	rmdir(dir);
}

/* A document's schema goes first, in its layout; fabtune's colours pass, other controls do not. */
static void
test_text_out(void **state)
{
	/* { document, stamped } */
	static const char *const cases[][2] = {
		{ "{\"a\":1}\n", "{\"schema\":\"s/1\",\"a\":1}\n" },
		{ "{}\n", "{\"schema\":\"s/1\"}\n" },
		{ "{\n  \"a\": 1\n}\n", "{\n  \"schema\": \"s/1\",\n  \"a\": 1\n}\n" },
		{ "{\n}\n", "{\n  \"schema\": \"s/1\"\n}\n" },
	};
	static const char *const refused[] = { "[1]", "{", "{\"schema\":\"x\"}",
		                               "{\n  \"schema\": 1}" };
	static const char colored[] = "\033[1;31mred\033[0m \033[2J\033[9";
	struct ft_strbuf sb;

	(void)state;
	ft_strbuf_init(&sb);
	for (size_t i = 0; i < FT_ARRAY_SIZE(cases); i++) {
		ft_strbuf_reset(&sb);
		assert_int_equal(ft_report_add_schema(&sb, cases[i][0], strlen(cases[i][0]), "s/1"), 0);
		assert_string_equal(sb.buf, cases[i][1]);
	}
	for (size_t i = 0; i < FT_ARRAY_SIZE(refused); i++) {
		ft_strbuf_reset(&sb);
		assert_int_equal(ft_report_add_schema(&sb, refused[i], strlen(refused[i]), "s/1"),
		                 FT_EINVAL);
		assert_int_equal(sb.len, 0);
	}
	/* colours pass; a screen clear and a cut sequence are escaped */
	ft_strbuf_reset(&sb);
	ft_report_add_printable_sgr(&sb, colored, sizeof(colored) - 1);
	assert_string_equal(sb.buf, "\033[1;31mred\033[0m \\x1b[2J\\x1b[9");
	ft_strbuf_release(&sb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_findings_text),
		cmocka_unit_test(test_advice_env),
		cmocka_unit_test(test_rules_json),
		cmocka_unit_test(test_parse_file_summary),
		cmocka_unit_test(test_import_resolve),
		cmocka_unit_test(test_compare_opts),
		cmocka_unit_test(test_check_writable),
		cmocka_unit_test(test_gather_folder),
		cmocka_unit_test(test_text_out),
	};

	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

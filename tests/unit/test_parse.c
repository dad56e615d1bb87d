/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_parse.c - the parsers: registry, detection, the fixture
 * goldens (tests/fixtures/<format>/<case>.txt -> <case>.json; regenerate
 * with FT_UPDATE_GOLDEN=1 and read the diff), facts the diagnosis relies
 * on, robustness (every parser over every fixture, truncations, garbage),
 * and the number reader.
 */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cmocka needs the headers above first */
/* clang-format off */
#include <cmocka.h>
/* clang-format on */

#include "source_root.h"

#include <fabtune/fabtune.h>

#include "parse/parse_int.h"

#define FIXTURES "tests/fixtures"

/* ---- helpers ------------------------------------------------------------- */

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names in @dir (no dot files); caller frees each and the array. */
static size_t
list_dir(const char *dir, char ***out)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			names = realloc(names, cap * sizeof(*names));
			assert_non_null(names);
		}
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	*out = names;
	return n;
}

static void
free_list(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static bool
ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static const struct ft_obs *
find_obs(const struct ft_obs_set *set, const char *key, const char *device, int port)
{
	for (size_t i = 0; i < ft_obs_set_len(set); i++) {
		const struct ft_obs *o = ft_obs_set_at(set, i);

		if (strcmp(o->key, key) == 0 && (!device || strcmp(o->device, device) == 0) &&
		    (port < 0 || o->port == port))
			return o;
	}
	return NULL;
}

static size_t
count_obs(const struct ft_obs_set *set, const char *key)
{
	size_t n = 0;

	for (size_t i = 0; i < ft_obs_set_len(set); i++)
		n += strcmp(ft_obs_set_at(set, i)->key, key) == 0;
	return n;
}

static void
parse_fixture(const char *path, struct ft_obs_set *set, struct ft_run *run)
{
	struct ft_error err = { 0 };
	int rc;

	ft_obs_set_init(set);
	ft_run_init(run, FT_SOURCE_IMPORT, "");
	rc = ft_parse_file(path, NULL, set, run, &err);
	if (rc)
		fail_msg("%s: %s", path, err.msg);
}

/* ---- registry ------------------------------------------------------------ */

static void
test_registry(void **state)
{
	size_t n = ft_parser_count();

	assert_true(n >= 17);
	for (size_t i = 0; i < n; i++) {
		const struct ft_parser *p = ft_parser_at(i);

		assert_non_null(p->name);
		assert_non_null(p->summary);
		assert_non_null(p->sniff);
		assert_non_null(p->parse);
		assert_ptr_equal(ft_parser_find(p->name), p);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(ft_parser_at(j)->name, p->name);
	}
	assert_null(ft_parser_at(n));
	assert_null(ft_parser_find("no-such-tool"));
	{
		static const char *const wanted[] = {
			"ibstat",        "ibstatus",   "ibv_devinfo",     "perfquery",
			"ibqueryerrors", "iblinkinfo", "ethtool-S",       "ethtool",
			"show_gids",     "mlnx_qos",   "nvidia-smi-topo", "lspci",
			"nccl-log",      "nccl-tests", "perftest",        "osu",
			"iperf3-json",
		};

		for (size_t i = 0; i < FT_ARRAY_SIZE(wanted); i++)
			assert_non_null(ft_parser_find(wanted[i]));
	}
}

static void
test_errors(void **state)
{
	struct ft_obs_set set;
	struct ft_error err = { 0 };

	ft_obs_set_init(&set);
	assert_int_equal(ft_parse_buffer("hello\nworld\n", 12, "notes.txt", NULL, &set, NULL, &err),
	                 FT_EPARSE);
	assert_non_null(strstr(err.msg, "notes.txt"));
	assert_non_null(strstr(err.msg, "unrecognised format"));
	ft_error_clear(&err);
	assert_int_equal(ft_parse_buffer("x", 1, "a.txt", "bogus", &set, NULL, &err), FT_EINVAL);
	assert_non_null(strstr(err.msg, "bogus"));
	ft_error_clear(&err);
	assert_int_equal(ft_parse_buffer("", 0, "empty.txt", NULL, &set, NULL, &err), FT_EPARSE);
	assert_non_null(strstr(err.msg, "empty.txt"));
	ft_error_clear(&err);
	assert_int_equal(ft_parse_file("tests/fixtures/no/such.txt", NULL, &set, NULL, &err),
	                 FT_ENOENT);
	assert_non_null(strstr(err.msg, "tests/fixtures/no/such.txt"));
	/* a forced format reads what it can and reports the rest */
	ft_error_clear(&err);
	assert_int_equal(ft_parse_buffer("hello\n", 6, "a.txt", "ibstat", &set, NULL, &err), 0);
	assert_int_equal(ft_obs_set_len(&set), 1);
	assert_string_equal(ft_obs_set_at(&set, 0)->key, "parse.skipped");
	assert_int_equal(ft_obs_set_at(&set, 0)->line, 1);
	ft_obs_set_release(&set);
}

/* ---- fixtures against their goldens -------------------------------------- */

static void
golden_json(const char *path, const char *dir, struct ft_strbuf *out)
{
	struct ft_obs_set set;
	struct ft_run run;
	struct ft_json j;
	struct ft_strbuf text;
	struct ft_error err = { 0 };
	const struct ft_parser *p;

	ft_strbuf_init(&text);
	assert_int_equal(ft_strbuf_read_file(&text, path, &err), 0);
	p = ft_parser_detect(text.buf, text.len);
	/* a fixture in a directory named after a format must be detected as that format */
	if (ft_parser_find(dir)) {
		if (!p || strcmp(p->name, dir) != 0)
			fail_msg("%s: detected as %s, expected %s", path, p ? p->name : "nothing",
			         dir);
	}
	parse_fixture(path, &set, &run);
	ft_json_init(&j, out, true);
	ft_json_obj_begin(&j);
	ft_json_kv_str(&j, "format", p ? p->name : "");
	ft_json_key(&j, "observations");
	ft_parse_obs_to_json(&j, &set);
	ft_json_key(&j, "rows");
	ft_parse_rows_to_json(&j, &run);
	ft_json_obj_end(&j);
	ft_strbuf_addch(out, '\n');
	ft_obs_set_release(&set);
	ft_run_release(&run);
	ft_strbuf_release(&text);
}

static void
test_fixture_goldens(void **state)
{
	char **dirs, **files;
	size_t nd = list_dir(FIXTURES, &dirs), ncase = 0, nfail = 0;
	bool update = getenv("FT_UPDATE_GOLDEN") && strcmp(getenv("FT_UPDATE_GOLDEN"), "1") == 0;

	assert_true(nd > 10);
	for (size_t d = 0; d < nd; d++) {
		char dpath[512];
		size_t nf;

		if (strcmp(dirs[d], "sysfs") == 0)
			continue;
		snprintf(dpath, sizeof(dpath), FIXTURES "/%s", dirs[d]);
		nf = list_dir(dpath, &files);
		for (size_t f = 0; f < nf; f++) {
			char path[1024], gpath[1024];
			struct ft_strbuf got, want;
			struct ft_error err = { 0 };

			if (!ends_with(files[f], ".txt"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dpath, files[f]);
			snprintf(gpath, sizeof(gpath), "%s/%.*s.json", dpath,
			         (int)(strlen(files[f]) - 4), files[f]);
			ft_strbuf_init(&got);
			ft_strbuf_init(&want);
			golden_json(path, dirs[d], &got);
			ncase++;
			if (update) {
				FILE *fp = fopen(gpath, "w");

				assert_non_null(fp);
				fwrite(got.buf, 1, got.len, fp);
				fclose(fp);
			} else if (ft_strbuf_read_file(&want, gpath, &err) != 0) {
				print_error("%s: no golden file (run with FT_UPDATE_GOLDEN=1)\n",
				            gpath);
				nfail++;
			} else if (want.len != got.len || memcmp(want.buf, got.buf, got.len) != 0) {
				print_error("%s: output differs from %s\n", path, gpath);
				nfail++;
			}
			ft_strbuf_release(&got);
			ft_strbuf_release(&want);
		}
		free_list(files, nf);
	}
	free_list(dirs, nd);
	assert_true(ncase >= 44 + 10);
	assert_int_equal(nfail, 0);
}

/* ---- real outputs in forms first met in users' pastes ---------------------- */

/* How many observations of @key carry @str in their str (a substring; NULL: any). */
static size_t
count_obs_with(const struct ft_obs_set *set, const char *key, const char *str)
{
	size_t n = 0;

	for (size_t i = 0; i < ft_obs_set_len(set); i++) {
		const struct ft_obs *o = ft_obs_set_at(set, i);

		n += strcmp(o->key, key) == 0 && (!str || strstr(o->str, str));
	}
	return n;
}

static void
test_real_output_forms(void **state)
{
	struct ft_obs_set set;
	struct ft_run run;
	const struct ft_obs *o;

	/* perftest -C: the latency table in TSC cycles is no time in us, and no row */
	parse_fixture(FIXTURES "/perftest/cx3-roce-ib-write-lat-report-cycles-C-all-sizes.txt",
	              &set, &run);
	assert_int_equal(ft_run_nrows(&run), 0);
	assert_int_equal(count_obs(&set, "bench.lat_p50"), 0);
	assert_int_equal(count_obs(&set, "bench.lat_p99"), 0);
	assert_int_equal(count_obs(&set, "bench.lat_p50_cycles"), 12);
	o = find_obs(&set, "bench.lat_p50_cycles", "mlx4_0", -1);
	assert_true(o && o->num == 4102 && strcmp(o->unit, "cycles") == 0 &&
	            strcmp(o->str, "2") == 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	/* perftest -D: a 0.00 peak beside a 92 Gb/s average was not measured */
	parse_fixture(FIXTURES "/perftest/roce-ib-write-bw-duration-D10-server-peak-not-measured.txt",
	              &set, &run);
	assert_int_equal(ft_run_nrows(&run), 1);
	assert_int_equal(count_obs(&set, "bench.bw_peak"), 0);
	o = find_obs(&set, "bench.bw_avg", "mlx5_0", -1);
	assert_true(o && fabs(o->num - 92.0) < 0.05);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	/* NCCL 2.5: "Ring NN : a -> b via NET/IB/3" is a connection, the Init COMPLETE
	   line's "nranks" the communicator's size */
	parse_fixture(FIXTURES
	              "/nccl-log/nccl2.5-256rank-rank-tagged-ring-via-net-ib-roce-mixed-excerpt.txt",
	              &set, &run);
	assert_int_equal(count_obs_with(&set, "nccl.transport", "NET/IB/3"), 2);
	assert_int_equal(count_obs_with(&set, "nccl.ring", " via "), 0);
	o = find_obs(&set, "nccl.gdr", "GPU3", -1);
	assert_true(o && o->num == 0 && strcmp(o->host, "crow-ib-19") == 0);
	o = find_obs(&set, "nccl.nranks", NULL, -1);
	assert_true(o && o->num == 256 && o->rank == 155);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	/* a communicator's size once, whichever of its lines give it: 2.18's Init START
	   and Init COMPLETE, 2.20's nRanks line and Init COMPLETE, a Destroy COMPLETE;
	   and once for each communicator of a process */
	{
		static const char log[] =
			"h1:71:80 [0] NCCL INFO comm 0xa0 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 1b000"
			" commId 0x1 - Init START\n"
			"h1:71:80 [0] NCCL INFO comm 0xa0 rank 0 nranks 16 cudaDev 0 nvmlDev 0 busId 1b000"
			" commId 0x1 - Init COMPLETE\n"
			"h1:71:80 [0] NCCL INFO comm 0xb0 rank 1 nranks 2 cudaDev 0 busId 1b000 - Init"
			" COMPLETE\n"
			"h1:71:80 [0] NCCL INFO comm 0xa0 rank 0 nranks 16 cudaDev 0 busId 1b000 - Destroy"
			" COMPLETE\n"
			"h2:72:81 [0] NCCL INFO comm 0xc0 rank 3 nRanks 8 nNodes 2 localRanks 4 localRank 3"
			" MNNVL 0\n"
			"h2:72:81 [0] NCCL INFO comm 0xc0 rank 3 nranks 8 cudaDev 3 nvmlDev 3 busId 3d000"
			" commId 0x2 - Init COMPLETE\n";
		struct ft_error err = { 0 };

		ft_obs_set_init(&set);
		assert_int_equal(ft_parse_buffer(log, sizeof(log) - 1, "n.log", "nccl-log", &set, NULL,
		                                 &err),
		                 0);
		assert_int_equal(count_obs(&set, "nccl.nranks"), 3);
		o = find_obs(&set, "nccl.nranks", NULL, -1);
		assert_true(o && o->num == 16 && o->line == 2);
		ft_obs_set_release(&set);
	}

	/* "ncclCommInitAll comm ... rank R nranks N ... busId B": the rank and bus of each GPU */
	parse_fixture(FIXTURES "/nccl-log/nccl2.2x-comminitall-2gpu-tuner-plugin-excerpt.txt", &set,
	              &run);
	assert_int_equal(count_obs(&set, "nccl.busid"), 2);
	o = find_obs(&set, "nccl.busid", "GPU1", -1);
	assert_true(o && o->rank == 1 && strcmp(o->str, "34000") == 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	/* ibportstate: the peer a directed route reaches is not the switch; a failed
	   query is an error of the port the prompt names */
	parse_fixture(FIXTURES
	              "/ibportstate/exadata-qdr-switch-port-peer-dr-path-then-portinfo-query-failed.txt",
	              &set, &run);
	assert_non_null(find_obs(&set, "ib.port.state", "LID 1", 6));
	o = find_obs(&set, "ib.port.width_supported", "LID 1 DR 0,6", 1);
	assert_true(o && strcmp(o->str, "4X (IBA extension)") == 0);
	assert_int_equal(count_obs(&set, "ib.port.state"), 2);
	assert_non_null(find_obs(&set, "ib.port.state", "LID 1 DR 0,6", 1));
	o = find_obs(&set, "tool.error", "LID 2", 37);
	assert_true(o && strstr(o->str, "smp query portinfo failed"));
	assert_int_equal(count_obs(&set, "ib.portinfo.ibportstate"), 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	/* ibv_devinfo -v: the names of a flags field's bits are read with it, none skipped */
	parse_fixture(FIXTURES "/ibv_devinfo/cx5-roce-v-mofed4-cap-flag-lists-tabs.txt", &set, &run);
	assert_int_equal(count_obs(&set, "parse.skipped"), 0);
	o = find_obs(&set, "ib.dev.device_cap_flags", "mlx5_1", -1);
	assert_true(o && o->has_num && o->num == (double)0xe5721c36);
	o = find_obs(&set, "ib.dev.max_sge", "mlx5_1", -1);
	assert_true(o && o->num == 30);
	assert_non_null(find_obs(&set, "ib.port.link_layer", "mlx5_1", 1));
	ft_obs_set_release(&set);
	ft_run_release(&run);

	/* ibqueryerrors --data: data counters in 4-byte words; a sweep's timeout is an error */
	parse_fixture(FIXTURES "/ibqueryerrors/hdr-switch-data-counters-sweep-timeout-report-port.txt",
	              &set, &run);
	assert_int_equal(count_obs(&set, "parse.skipped"), 0);
	o = find_obs(&set, "tool.error", NULL, -1);
	assert_true(o && strstr(o->str, "Connection timed out"));
	o = find_obs(&set, "ib.counter.PortXmitData", "ibswh2 [255-B05] HDR-40", 17);
	assert_true(o && o->num == 912404511330.0 && strcmp(o->unit, "4B") == 0);
	o = find_obs(&set, "ib.counter.SymbolErrorCounter", "ibswh2 [255-B05] HDR-40", 17);
	assert_true(o && o->num == 20911 && strcmp(o->unit, "count") == 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	/* perftest's "Conflicting CPU frequency values detected" is a governor at work, not an error */
	parse_fixture(FIXTURES "/perftest/roce-ib-read-bw-gbits-cpu-frequency-conflict-warnings.txt",
	              &set, &run);
	assert_int_equal(count_obs(&set, "tool.error"), 0);
	assert_int_equal(count_obs(&set, "host.cpu_freq_conflict"), 3);
	o = find_obs(&set, "host.cpu_freq_conflict", "mlx5_0", -1);
	assert_true(o && o->num == 3645.037 && strcmp(o->unit, "MHz") == 0 &&
	            strcmp(o->str, "3645.037000 != 4299.667000") == 0);
	assert_int_equal(ft_run_nrows(&run), 3);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	/* before perftest 4.1 the conflict without -F ended the run: the end is an error */
	{
		static const char old[] =
			" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
			"Conflicting CPU frequency values detected: 1200.000000 != 2601.000000\n"
			"Can't produce a report\n";
		struct ft_error err = { 0 };

		ft_obs_set_init(&set);
		assert_int_equal(ft_parse_buffer(old, sizeof(old) - 1, "p.txt", "perftest", &set,
		                                 NULL, &err),
		                 0);
		o = find_obs(&set, "tool.error", NULL, -1);
		assert_true(o && strcmp(o->str, "Can't produce a report") == 0);
		o = find_obs(&set, "host.cpu_freq_conflict", NULL, -1);
		assert_true(o && o->num == 1200);
		ft_obs_set_release(&set);
	}

	/* ibportstate's prompt: the values of -C and -P are no LID or port; a query by
	   directed route names no LID, and the failure is not the port queried before */
	{
		static const char ips[] = "# ibportstate 1 6\n"
		                          "# Port info: Lid 1 port 6\n"
		                          "LinkState:.......................Active\n"
		                          "# ibportstate -C mlx5_0 -P 1 3 1\n"
		                          "ibportstate: iberror: failed: smp query portinfo failed\n"
		                          "# ibportstate -D 0,1 3\n"
		                          "ibportstate: iberror: failed: smp query portinfo failed\n"
		                          "# ibportstate 1 7\n"
		                          "# Port info: Lid 1 port 7\n"
		                          "# Port info: Lid 1 DR path slid 2; dlid\n"
		                          "LinkState:.......................Down\n";
		struct ft_error err = { 0 };

		ft_obs_set_init(&set);
		assert_int_equal(ft_parse_buffer(ips, sizeof(ips) - 1, "i.txt", "ibportstate", &set,
		                                 NULL, &err),
		                 0);
		assert_non_null(find_obs(&set, "ib.port.state", "LID 1", 6));
		assert_int_equal(count_obs(&set, "tool.error"), 2);
		assert_non_null(find_obs(&set, "tool.error", "LID 3", 1));
		o = find_obs(&set, "tool.error", "", -1);
		assert_true(o && o->line == 7);
		/* a directed-route header cut short: its block is no port's, and said so */
		o = find_obs(&set, "parse.skipped", NULL, -1);
		assert_true(o && o->line == 10);
		o = find_obs(&set, "ib.port.state", "", -1);
		assert_true(o && o->line == 11);
		ft_obs_set_release(&set);

		/* "# MLNX ext Port info: ..." (a paste cut above it) is a header, not a prompt */
		static const char ext[] = "# MLNX ext Port info: Lid 1 port 6\n"
		                          "StateChangeEnable:...............0x00\n";
		ft_obs_set_init(&set);
		assert_int_equal(ft_parse_buffer(ext, sizeof(ext) - 1, "i.txt", "ibportstate", &set,
		                                 NULL, &err),
		                 0);
		assert_non_null(find_obs(&set, "ib.portinfo.StateChangeEnable", "LID 1", 6));
		ft_obs_set_release(&set);
	}

	/* perftest -C pasted with its prompt: "t_min[usec]" heads cycles all the same */
	{
		static const char lat[] =
			"$ ./ib_read_lat --report-cycles -s 8 host2\n"
			" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
			"    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n"
			" 8       1000          3010.00        9000.00      3100.00  \t       3120.00     "
			"\t40.00\t\t3400.00 \t\t9000.00\n"
			"$ ib_read_lat -s 8 host2\n"
			" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
			"    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n"
			" 8       1000          1.40        4.10      1.45  \t       1.46     "
			"\t0.02\t\t1.60 \t\t4.10\n";
		struct ft_error err = { 0 };

		ft_obs_set_init(&set);
		ft_run_init(&run, FT_SOURCE_IMPORT, "");
		assert_int_equal(ft_parse_buffer(lat, sizeof(lat) - 1, "l.txt", "perftest", &set,
		                                 &run, &err),
		                 0);
		assert_int_equal(ft_run_nrows(&run), 1);
		assert_int_equal(count_obs(&set, "bench.lat_p50_cycles"), 1);
		assert_int_equal(count_obs(&set, "bench.lat_p50"), 1);
		o = find_obs(&set, "bench.lat_p50", NULL, -1);
		assert_true(o && o->num == 1.45);
		ft_obs_set_release(&set);
		ft_run_release(&run);
	}
	(void)state;
}

/* ---- facts the diagnosis relies on --------------------------------------- */

static void
test_ib_facts(void **state)
{
	struct ft_obs_set set;
	struct ft_run run;
	const struct ft_obs *o;

	parse_fixture(FIXTURES "/perfquery/edr-switch-port-xmitdiscards-linkdowned-x.txt", &set,
	              &run);
	o = find_obs(&set, "ib.counter.PortXmitDiscards", "LID 2052", 1);
	assert_non_null(o);
	assert_true(o->has_num && o->num == 20046);
	o = find_obs(&set, "ib.counter.PortXmitWait", NULL, -1);
	assert_true(o && o->num == 41864608);
	assert_string_equal(find_obs(&set, "ib.counter.PortXmitData", NULL, -1)->unit, "4B");
	ft_obs_set_release(&set);
	ft_run_release(&run);

	/* the mail-wrapped header still names LID 21 port 1 and costs no counter */
	parse_fixture(FIXTURES "/perfquery/perfquery-x-lid21-mail-wrapped-header-excerpt.txt", &set,
	              &run);
	assert_int_equal(count_obs(&set, "parse.skipped"), 0);
	assert_non_null(find_obs(&set, "ib.counter.PortRcvData", "LID 21", 1));
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/ibstat/cx6-hdr200-active-plus-port-disabled-lid65535-excerpt.txt",
	              &set, &run);
	o = find_obs(&set, "ib.port.state", "mlx5_2", 1);
	assert_true(o && strcmp(o->str, "Down") == 0);
	o = find_obs(&set, "ib.port.phys_state", "mlx5_2", 1);
	assert_true(o && strcmp(o->str, "Disabled") == 0);
	o = find_obs(&set, "ib.port.rate", "mlx5_4", 1);
	assert_true(o && o->num == 200 && strcmp(o->unit, "Gbps") == 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	/* ibpanic keeps the 8 CAs read before it and reports the failure */
	parse_fixture(FIXTURES "/ibstat/gpud-a100-8x-cx6-vf-hdr200-ibpanic-exit255.txt", &set,
	              &run);
	assert_int_equal(count_obs(&set, "ib.port.state"), 8);
	assert_int_equal(count_obs(&set, "tool.error"), 1);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/ibstatus/ibstatus-8x-cx-roce-100g-ethernet-a100.txt", &set, &run);
	o = find_obs(&set, "ib.port.state", "mlx5_7", 1);
	assert_true(o && strcmp(o->str, "Active") == 0);
	o = find_obs(&set, "ib.port.speed_active", "mlx5_0", 1);
	assert_true(o && strcmp(o->str, "EDR") == 0);
	o = find_obs(&set, "ib.port.link_layer", "mlx5_3", 1);
	assert_true(o && strcmp(o->str, "Ethernet") == 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/iblinkinfo/iblinkinfo-qdr-infiniscale-iv-switch-9-hosts-unused-"
	                       "ports-polling.txt",
	              &set, &run);
	o = find_obs(&set, "ib.port.rate", "teaker-4 HCA-1", 1);
	assert_true(o && o->num == 40);
	o = find_obs(&set, "ib.port.phys_state", "Infiniscale-IV Mellanox Technologies", 8);
	assert_true(o && strcmp(o->str, "Polling") == 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/ibv_devinfo/ibv_devinfo-mlx4-cx3-qdr-port2-eth-down.txt", &set,
	              &run);
	o = find_obs(&set, "ib.port.mtu_active", "mlx4_0", 2);
	assert_true(o && o->num == 1024);
	o = find_obs(&set, "ib.port.state", "mlx4_0", 2);
	assert_true(o && strcmp(o->str, "Down") == 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);
}

static void
test_host_facts(void **state)
{
	struct ft_obs_set set;
	struct ft_run run;
	const struct ft_obs *o;

	/* the misaligned paste: every NIC row still reads, mlx5_8 is SYS from GPU0 */
	parse_fixture(FIXTURES "/nvidia-smi-topo/a100-sxm4-8gpu-10nic-cx6-2to1-epyc-nps4-"
	                       "misaligned.txt",
	              &set, &run);
	assert_int_equal(count_obs(&set, "parse.skipped"), 0);
	assert_int_equal(count_obs(&set, "gpu.nic_path"), 80);
	o = find_obs(&set, "gpu.nic_path", "GPU0->mlx5_8", -1);
	assert_true(o && strcmp(o->str, "SYS") == 0);
	o = find_obs(&set, "gpu.nic_path", "GPU6->mlx5_7", -1);
	assert_true(o && strcmp(o->str, "PXB") == 0);
	o = find_obs(&set, "gpu.numa_affinity", "GPU4", -1);
	assert_true(o && o->num == 7);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/lspci/handmade-cx7-x8-of-x16-and-h100.txt", &set, &run);
	o = find_obs(&set, "pcie.link.width_cur", "3b:00.0", -1);
	assert_true(o && o->num == 8);
	o = find_obs(&set, "pcie.link.width_max", "3b:00.0", -1);
	assert_true(o && o->num == 16);
	o = find_obs(&set, "pcie.link.speed_cur", "18:00.0", -1);
	assert_true(o && o->num == 32);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	/* ACSCtl of a bridge's ACS capability, as lspci prints it (HOST-ACS) */
	parse_fixture(FIXTURES "/lspci/lspci-vvv-epyc-gpp-bridge-acs-on-rccl547.txt", &set, &run);
	assert_int_equal(count_obs(&set, "host.acs"), 1);
	o = find_obs(&set, "host.acs", "40:01.1", -1);
	assert_true(o && strcmp(o->str, "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ "
	                                  "EgressCtrl- DirectTrans-") == 0);
	assert_false(o->has_num);
	o = find_obs(&set, "numa.node", "40:01.1", -1);
	assert_true(o && o->num == 1);
	assert_int_equal(count_obs(&set, "parse.skipped"), 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	/* ulimit -a (bash), a real node's 64 KiB memlock (HOST-LIMITS) */
	parse_fixture(FIXTURES "/ulimit/ulimit-a-memlock-64k-ucx8229.txt", &set, &run);
	assert_int_equal(ft_obs_set_len(&set), 1);
	o = find_obs(&set, "host.memlock", NULL, -1);
	assert_true(o && o->has_num && o->num == 64 && strcmp(o->unit, "KiB") == 0);
	assert_int_equal(o->line, 11);
	ft_obs_set_release(&set);
	ft_run_release(&run);
	{
		/* zsh's and dash's -a lines, `ulimit -l` alone, and a value that is neither */
		static const struct {
			const char *text;
			bool num;
			double kib;
			const char *str;
		} cases[] = {
			{ "-t: cpu time (seconds)              unlimited\n"
			  "-l: locked-in-memory size (kbytes)  8192\n",
			  true, 8192, "8192" },
			{ "-l: locked memory (kb)               unlimited\n", false, 0, "unlimited" },
			{ "unlimited\n", false, 0, "unlimited" },
			{ "65536\n", true, 65536, "65536" },
		};
		struct ft_error err = { 0 };

		for (size_t i = 0; i < FT_ARRAY_SIZE(cases); i++) {
			ft_obs_set_init(&set);
			assert_int_equal(ft_parse_buffer(cases[i].text, strlen(cases[i].text), "u.txt",
			                                 "ulimit", &set, NULL, &err),
			                 0);
			o = find_obs(&set, "host.memlock", NULL, -1);
			assert_non_null(o);
			assert_true(o->has_num == cases[i].num && (!o->has_num || o->num == cases[i].kib));
			assert_string_equal(o->str, cases[i].str);
			ft_obs_set_release(&set);
		}
		ft_obs_set_init(&set);
		assert_int_equal(ft_parse_buffer("-l: locked memory (kb)  lots\n", 29, "u.txt", "ulimit",
		                                 &set, NULL, &err),
		                 0);
		assert_null(find_obs(&set, "host.memlock", NULL, -1));
		assert_int_equal(count_obs(&set, "parse.skipped"), 1);
		ft_obs_set_release(&set);
	}

	/* `lspci -vvv | grep ACSCtl`: no device lines, each port read without a name */
	parse_fixture(FIXTURES "/lspci/lspci-grep-acsctl-plx-on-and-off-nccl304.txt", &set, &run);
	assert_int_equal(count_obs(&set, "host.acs"), 2);
	o = find_obs(&set, "host.acs", "", -1);
	assert_true(o && strncmp(o->str, "SrcValid+ ", 10) == 0);
	assert_int_equal(count_obs(&set, "parse.skipped"), 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/mlnx_qos/mlnx_qos-roce-lossless-dscp-pfc-prio3-netarbiter.txt",
	              &set, &run);
	o = find_obs(&set, "roce.qos.pfc_enabled_prios", "eth4", -1);
	assert_true(o && strcmp(o->str, "3") == 0 && o->num == 1);
	o = find_obs(&set, "roce.qos.trust", "eth4", -1);
	assert_true(o && strcmp(o->str, "dscp") == 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/show_gids/show_gids-empty-in-k8s-pod-calico.txt", &set, &run);
	o = find_obs(&set, "roce.gid.count", NULL, -1);
	assert_true(o && o->num == 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES
	              "/ethtool/ethtool-link-spectrum-swp1-dac-link-down-speed-unknown.txt",
	              &set, &run);
	o = find_obs(&set, "eth.link.detected", "swp1", -1);
	assert_true(o && strcmp(o->str, "no") == 0);
	o = find_obs(&set, "eth.link.speed_supported_max", "swp1", -1);
	assert_true(o && o->num == 100000);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/ethtool-S/handmade-mlx5-roce-pfc-prio3-cnp.txt", &set, &run);
	o = find_obs(&set, "eth.counter.rx_prio3_pause", "ens1f0", -1);
	assert_true(o && o->num == 18234112);
	ft_obs_set_release(&set);
	ft_run_release(&run);
}

static void
test_nccl_facts(void **state)
{
	struct ft_obs_set set;
	struct ft_run run;
	const struct ft_obs *o;
	const struct ft_result_row *r;

	parse_fixture(FIXTURES "/nccl-log/handmade-ib-completion-error-12-env-gdr.txt", &set, &run);
	o = find_obs(&set, "nccl.ib.completion_error", NULL, -1);
	assert_true(o && o->num == 12 && o->rank == 1 && strcmp(o->host, "nodeB") == 0);
	o = find_obs(&set, "nccl.env.NCCL_IB_HCA", NULL, -1);
	assert_true(o && strcmp(o->str, "mlx5_0:1") == 0);
	o = find_obs(&set, "nccl.gdr", "mlx5_0", -1);
	assert_true(o && o->num == 1);
	assert_int_equal(count_obs(&set, "nccl.error"), 2);
	o = find_obs(&set, "nccl.version", NULL, -1);
	assert_true(o && strcmp(o->str, "2.18.5") == 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES
	              "/nccl-log/v100-no-ib-device-socket-on-loopback-nccl2.4.8-excerpt.txt",
	              &set, &run);
	o = find_obs(&set, "nccl.net", NULL, -1);
	assert_true(o && strcmp(o->str, "Socket") == 0);
	o = find_obs(&set, "nccl.socket_ifname", NULL, -1);
	assert_true(o && strcmp(o->str, "lo") == 0);
	assert_non_null(find_obs(&set, "nccl.ib.no_device", NULL, -1));
	assert_int_equal(count_obs(&set, "bench.rank"), 2);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	/* the CollNet hang: the test started, SHARP came up, no row ever came */
	parse_fixture(FIXTURES "/nccl-log/a100-4node-2gpu-sharp-collnet-hang-full-init.txt", &set,
	              &run);
	o = find_obs(&set, "bench.rows", NULL, -1);
	assert_true(o && o->num == 0);
	assert_int_equal(ft_run_nrows(&run), 0);
	assert_int_equal(count_obs(&set, "nccl.collnet"), 8);
	o = find_obs(&set, "nccl.env.NCCL_COLLNET_ENABLE", NULL, -1);
	assert_true(o && strcmp(o->str, "1") == 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/nccl-log/rtx4090-socket-usb-nic-topology-attach-excerpt.txt", &set,
	              &run);
	o = find_obs(&set, "nccl.net.speed_unknown", NULL, -1);
	assert_true(o && strcmp(o->str, "enxe2d1b40fb2ff") == 0);
	o = find_obs(&set, "nccl.gdr", "eno2", -1);
	assert_true(o && o->num == 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/nccl-log/dgx2-v100-mixed-ib-roce-devices-nccl2.7.5-excerpt.txt",
	              &set, &run);
	o = find_obs(&set, "nccl.ib.dev", "mlx5_6", 1);
	assert_true(o && strcmp(o->str, "RoCE") == 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/nccl-tests/dell-xe9680-2x8-h100-cx7-ib400-all-reduce-mpi-xpmem-"
	                       "warn.txt",
	              &set, &run);
	assert_int_equal(ft_run_nrows(&run), 32);
	r = ft_run_row(&run, 31);
	assert_string_equal(r->test, "all_reduce");
	assert_int_equal(r->bytes, 17179869184ULL);
	assert_true(r->busbw_GBps == 469.21 && r->ip_busbw_GBps == 469.10);
	assert_int_equal(r->nranks, 16);
	assert_int_equal(r->wrong, 0);
	assert_int_equal(r->root, -1);
	assert_string_equal(run.kind, "nccl-tests");
	o = find_obs(&set, "bench.avg_busbw", NULL, -1);
	assert_true(o && o->num == 139.56);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	/* old columns, interleaved log lines, a row run together and a cut row */
	parse_fixture(FIXTURES
	              "/nccl-tests/handmade-old-format-no-root-interleaved-broken-rows.txt",
	              &set, &run);
	assert_int_equal(ft_run_nrows(&run), 3);
	r = ft_run_row(&run, 2);
	assert_string_equal(r->test, "all_gather");
	assert_int_equal(r->bytes, 262144);
	assert_true(r->busbw_GBps == 4.70 && r->wrong == -1 && r->root == -1);
	assert_int_equal(count_obs(&set, "parse.skipped"), 2);
	o = find_obs(&set, "parse.skipped", NULL, -1);
	assert_int_equal(o->line, 18);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	/* 2.18 format, two ranks on one GPU: both rank lines name the same bus id */
	parse_fixture(FIXTURES "/nccl-tests/rtx5090-2ranks-one-gpu-socket-allgather-nccltests-2.18-"
	                       "format.txt",
	              &set, &run);
	assert_int_equal(count_obs(&set, "bench.rank"), 2);
	assert_string_equal(ft_run_row(&run, 0)->test, "all_gather");
	ft_obs_set_release(&set);
	ft_run_release(&run);

	/*
	 * -C 1: the time columns are named "cputime" and hold the host time of a
	 * launch; algbw and busbw are still the wall time's. Every column keeps
	 * its place, the wall time stays unknown (4 us could never move 4 MiB at
	 * 27.9 GB/s), and the CPU times become observations.
	 */
	parse_fixture(FIXTURES "/nccl-tests/handmade-all-reduce-cputime-c1-nccltests-2.19.txt", &set,
	              &run);
	assert_int_equal(ft_run_nrows(&run), 5);
	r = ft_run_row(&run, 3);
	assert_string_equal(r->test, "all_reduce");
	assert_int_equal(r->bytes, 524288);
	assert_true(isnan(r->time_us) && isnan(r->ip_time_us));
	assert_true(r->algbw_GBps == 17.40 && r->busbw_GBps == 17.40);
	assert_true(r->ip_algbw_GBps == 17.46 && r->ip_busbw_GBps == 17.46);
	assert_int_equal(r->wrong, 0);
	assert_int_equal(count_obs(&set, "bench.cputime"), 5);
	assert_int_equal(count_obs(&set, "bench.cputime_ip"), 5);
	for (size_t i = 0; i < ft_obs_set_len(&set); i++) {
		o = ft_obs_set_at(&set, i);
		if (strcmp(o->key, "bench.cputime") == 0 && strcmp(o->str, "524288") == 0)
			assert_true(o->num == 4.33 && strcmp(o->unit, "us") == 0);
		if (strcmp(o->key, "bench.cputime_ip") == 0 && strcmp(o->str, "524288") == 0)
			assert_true(o->num == 4.30);
	}
	ft_obs_set_release(&set);
	ft_run_release(&run);
}

static void
test_bench_facts(void **state)
{
	struct ft_obs_set set;
	struct ft_run run;
	const struct ft_obs *o;
	const struct ft_result_row *r;

	parse_fixture(FIXTURES "/perftest/roce-k8s-pod-zero-gid-failed-modify-qp-rtr.txt", &set,
	              &run);
	o = find_obs(&set, "perftest.gid_local", NULL, -1);
	assert_true(o && strcmp(o->str, "00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00") == 0);
	assert_int_equal(count_obs(&set, "tool.error"), 2);
	o = find_obs(&set, "perftest.gid_index", "mlx5_2", -1);
	assert_true(o && o->num == 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/perftest/roce-ib-write-bw-gpu-dmabuf-all-sizes-92g-mtu1024.txt",
	              &set, &run);
	assert_int_equal(ft_run_nrows(&run), 23);
	r = ft_run_row(&run, 22);
	assert_int_equal(r->bytes, 8388608);
	assert_true(fabs(r->algbw_GBps - 92.39 / 8) < 1e-9);
	o = find_obs(&set, "perftest.mtu", NULL, -1);
	assert_true(o && o->num == 1024);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/perftest/handmade-ib-write-lat.txt", &set, &run);
	r = ft_run_row(&run, 1);
	assert_true(r->lat_p50_us == 2.19 && r->lat_p99_us == 9.74 && r->lat_p999_us == 19.52);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/osu/handmade-osu-latency-and-bw.txt", &set, &run);
	assert_int_equal(ft_run_nrows(&run), 12);
	assert_string_equal(ft_run_row(&run, 0)->test, "pt2pt_lat");
	assert_true(ft_run_row(&run, 11)->algbw_GBps == 24402.31 / 1000.0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/iperf3-json/handmade-iperf3-tcp-4streams.txt", &set, &run);
	assert_int_equal(ft_run_nrows(&run), 1);
	assert_true(fabs(ft_run_row(&run, 0)->algbw_GBps - 91954241290.7 / 8e9) < 1e-9);
	o = find_obs(&set, "bench.retransmits", NULL, -1);
	assert_true(o && o->num == 1377);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/iperf3-json/handmade-iperf3-truncated.txt", &set, &run);
	assert_int_equal(ft_run_nrows(&run), 0);
	o = find_obs(&set, "parse.skipped", NULL, -1);
	assert_true(o && o->line == 18);
	ft_obs_set_release(&set);
	ft_run_release(&run);
}

/* ---- the strict JSON walker (jscan.c) --------------------------------------- */

/* What a walk saw: each event as "open PATH kind", "close PATH", "PATH=value". */
struct jlog {
	char buf[2048];
	size_t n;
};

static void
jlog_add(struct ft__jwalk *w, const char *fmt, ...)
{
	struct jlog *l = w->arg;
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(l->buf + l->n, sizeof(l->buf) - l->n, fmt, ap);
	va_end(ap);
	assert_true(k >= 0 && (size_t)k < sizeof(l->buf) - l->n);
	l->n += (size_t)k;
}

static void
jlog_open(struct ft__jwalk *w, const struct ft__jval *v)
{
	jlog_add(w, "open %s %s|", w->path, ft__jkind_name(v->kind));
}

static void
jlog_close(struct ft__jwalk *w, const struct ft__jval *v)
{
	jlog_add(w, "close %s|", w->path);
}

static void
jlog_scalar(struct ft__jwalk *w, const struct ft__jval *v)
{
	if (v->kind == FT__JSTR)
		jlog_add(w, "%s=\"%.*s\"|", w->path, (int)v->str.n, v->str.p);
	else if (v->kind == FT__JNUM)
		jlog_add(w, "%s=%.17g|", w->path, v->num);
	else
		jlog_add(w, "%s=%.*s|", w->path, (int)v->raw.n, v->raw.p);
}

/* The number of times @needle occurs in @hay. */
static size_t
count_str(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* Walk the one value of @doc at @maxdepth; true when it is valid JSON. */
static bool
jwalk(const char *doc, int maxdepth, struct ft__jwalk *w, struct jlog *l)
{
	memset(l, 0, sizeof(*l));
	ft__jwalk_init(w, doc, strlen(doc), 0, maxdepth);
	w->arg = l;
	w->open = jlog_open;
	w->close = jlog_close;
	w->scalar = jlog_scalar;
	return ft__jwalk_value(w);
}

/* Every scalar, object and array handed over under its path, in order. */
static void
test_jwalk_events(void **state)
{
	static struct ft__jwalk w;
	struct jlog l;

	assert_true(jwalk("{\"a\":[{\"b\":1},2],\"c\":{\"d\":null,\"e\":true,\"f\":false},"
	                  "\"g\":-0.5e+3,\"h\":\"x\"}",
	                  16, &w, &l));
	assert_string_equal(l.buf, "open  an object|open a an array|open a an object|a.b=1|"
	                           "close a|a=2|close a|open c an object|c.d=null|c.e=true|"
	                           "c.f=false|close c|g=-500|h=\"x\"|close |");
	/* an empty object and array: opened and closed */
	assert_true(jwalk("[{},[]]", 16, &w, &l));
	assert_string_equal(l.buf, "open  an array|open  an object|close |open  an array|close |"
	                           "close |");
	/* a scalar alone is a value too */
	assert_true(jwalk(" 7 ", 16, &w, &l));
	assert_string_equal(l.buf, "=7|");
}

/* Strings decoded: every escape, \u to UTF-8, a surrogate pair to one code point. */
static void
test_jwalk_strings(void **state)
{
	static struct ft__jwalk w;
	struct jlog l;

	assert_true(jwalk("{\"s\":\"q\\\"b\\\\s\\/b\\bf\\fn\\nr\\rt\\t\"}", 16, &w, &l));
	assert_string_equal(l.buf, "open  an object|s=\"q\"b\\s/b\bf\fn\nr\rt\t\"|close |");
	/* U+00E9, U+20AC, U+1F600 (the pair D83D DE00) */
	assert_true(jwalk("{\"s\":\"\\u00e9\\u20AC\\ud83d\\ude00\"}", 16, &w, &l));
	assert_string_equal(l.buf, "open  an object|s=\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"|"
	                           "close |");
	/* a member's name is decoded into the path */
	assert_true(jwalk("{\"k\\u0065y\":{\"a\\/b\":1}}", 16, &w, &l));
	assert_string_equal(l.buf, "open  an object|open key an object|key.a/b=1|close key|"
	                           "close |");
	/* a name with a '.' would read as a path ("pairs.median_GBps" as "median_GBps"
	   in "pairs"): walked, nothing in it handed over, the members after it are */
	assert_true(jwalk("{\"pairs.median_GBps\":7,\"a.b\":{\"c\":[1]},\"pairs\":{\"m\":1}}",
	                  16, &w, &l));
	assert_string_equal(l.buf, "open  an object|open pairs an object|pairs.m=1|close pairs|"
	                           "close |");
	/* so is one too long for the path, at any depth */
	{
		char doc[512];

		snprintf(doc, sizeof(doc),
		         "{\"%0120d\":{\"%0120d\":{\"%0120d\":{\"x\":1}},\"y\":2}}", 1, 2, 3);
		assert_true(jwalk(doc, 16, &w, &l));
		/* the top, the first two opened; the third, cut, and its "x" not */
		assert_int_equal(count_str(l.buf, "open "), 3);
		assert_null(strstr(l.buf, ".x"));
		assert_non_null(strstr(l.buf, ".y=2|"));
	}
	/* raw UTF-8 passes as it is */
	assert_true(jwalk("\"\xc3\xa9\"", 16, &w, &l));
	assert_string_equal(l.buf, "=\"\xc3\xa9\"|");
}

/* What RFC 8259 refuses, each refused at its line and column, under its path. */
static void
test_jwalk_faults(void **state)
{
	static const struct {
		const char *doc;
		uint32_t line, col;
		const char *why, *path;
	} bad[] = {
		{ "{\"a\":NaN}", 1, 6, "a bare word", "a" },
		{ "{\"a\":inf}", 1, 6, "a bare word", "a" },
		{ "{\"a\":True}", 1, 6, "a bare word", "a" },
		{ "{\"a\":nullx}", 1, 6, "a bare word", "a" },
		{ "{\"a\":01}", 1, 6, "not a JSON number", "a" },
		{ "{\"a\":1.}", 1, 6, "not a JSON number", "a" },
		{ "{\"a\":.5}", 1, 6, "a value expected", "a" },
		{ "{\"a\":+1}", 1, 6, "a value expected", "a" },
		{ "{\"a\":-}", 1, 6, "not a JSON number", "a" },
		{ "{\"a\":1e}", 1, 6, "not a JSON number", "a" },
		{ "{\"a\":0x10}", 1, 6, "not a JSON number", "a" },
		{ "{\"a\":1.5.2}", 1, 6, "not a JSON number", "a" },
		/* past a double: not inf */
		{ "{\"a\":1e400}", 1, 6, "a number out of range", "a" },
		{ "{\"a\":[-1e999]}", 1, 7, "a number out of range", "a" },
		/* a NUL would cut the decoded string: "bytes\u0000x" read as "bytes" */
		{ "{\"a\":\"x\\u0000y\"}", 1, 8, "a \\u0000 in a string", "a" },
		{ "{\"bytes\\u0000x\":4096}", 1, 8, "a \\u0000 in a string", "" },
		{ "{\"a\":\"\\q\"}", 1, 7, "an unknown escape", "a" },
		{ "{\"a\":\"\\u12\"}", 1, 7, "without 4 hex digits", "a" },
		{ "{\"a\":\"\\ud800\"}", 1, 7, "a high surrogate with no low one", "a" },
		{ "{\"a\":\"\\ud800\\u0041\"}", 1, 7, "a high surrogate with no low one", "a" },
		{ "{\"a\":\"\\udc00\"}", 1, 7, "a low surrogate with no high one", "a" },
		{ "{\"a\":\"x\ty\"}", 1, 8, "a control byte", "a" },
		{ "{\"a\":[1,2,]}", 1, 11, "a value expected", "a" },
		{ "{\"a\":1,}", 1, 8, "a member name expected", "" },
		{ "{\"a\" 1}", 1, 6, "':' expected", "" },
		{ "{a:1}", 1, 2, "a member name expected", "" },
		{ "{\"a\":1 \"b\":2}", 1, 8, "',' or '}' expected", "" },
		{ "[1 2]", 1, 4, "',' or ']' expected", "" },
		{ "{'a':1}", 1, 2, "a member name expected", "" },
		/* cut short: blamed on the last byte, under the path it was cut in */
		{ "{\"end\":{\"sum_sent\":{\"bytes\":", 1, 28, "cut short", "end.sum_sent.bytes" },
		{ "{\"end\":{\"sum_sent\":{\"bytes\":1", 1, 29, "cut short in an object",
		  "end.sum_sent" },
		{ "{\"a\":\"abc", 1, 9, "cut short in a string", "a" },
		{ "{\n  \"a\": {\n    \"b\": tru }}", 3, 10, "a bare word", "a.b" },
		/* under a member handed over to no one: still checked, named by its path */
		{ "{\"a.b\":{\"c\":tru}}", 1, 13, "a bare word", "a.b.c" },
	};
	static struct ft__jwalk w;
	struct jlog l;

	for (size_t i = 0; i < FT_ARRAY_SIZE(bad); i++) {
		if (jwalk(bad[i].doc, 16, &w, &l))
			fail_msg("%s: read as valid", bad[i].doc);
		if (!w.j.bad || w.j.bad_line != bad[i].line || w.j.bad_col != bad[i].col ||
		    !w.why || !strstr(w.why, bad[i].why) || strcmp(w.bad_path, bad[i].path) != 0)
			fail_msg("%s: %u:%u %s (at %s), expected %u:%u %s (at %s)", bad[i].doc,
			         w.j.bad_line, w.j.bad_col, w.why ? w.why : "-", w.bad_path,
			         bad[i].line, bad[i].col, bad[i].why, bad[i].path);
		/* the cursor is at the end: every loop over it stops */
		assert_ptr_equal(w.j.p, w.j.end);
	}
	/* the depth bound: 2 levels walk, a third is refused */
	assert_true(jwalk("{\"a\":{}}", 2, &w, &l));
	assert_false(jwalk("{\"a\":{\"b\":1}}", 2, &w, &l));
	assert_string_equal(w.why, "nested too deep");
	assert_string_equal(w.bad_path, "a.b");
	/* 400 digits, past what ft__dbl reads: strtod's inf refused too */
	{
		char big[512];

		snprintf(big, sizeof(big), "{\"a\":1%0400d}", 0);
		assert_false(jwalk(big, 16, &w, &l));
		assert_string_equal(w.why, "a number out of range");
		snprintf(big, sizeof(big), "{\"a\":1%0300d}", 0);
		assert_true(jwalk(big, 16, &w, &l));
		assert_string_equal(l.buf, "open  an object|a=1.0000000000000001e+300|close |");
	}
	/* numbers as the grammar has them, read to the last bit */
	assert_true(jwalk("[0,-0,1e5,1E-5,2.5e+1,123456789012345678901234567890]", 16, &w, &l));
	assert_string_equal(l.buf, "open  an array|=0|=-0|=100000|=1.0000000000000001e-05|=25|"
	                           "=1.2345678901234568e+29|close |");
}

/*
 * A member's name is taken whole: one longer than the path is no path, even
 * when its first bytes would make one; one that fits is read to its end.
 */
static void
test_jwalk_long_names(void **state)
{
	static struct ft__jwalk w;
	struct jlog l;
	char name[301], doc[400], want[400];

	/* 130 bytes: fits the 256-byte path, read whole (the last 3 bytes too) */
	memset(name, 'a', 127);
	memcpy(name + 127, "bcd", 4);
	snprintf(doc, sizeof(doc), "{\"%s\":1}", name);
	assert_true(jwalk(doc, 16, &w, &l));
	snprintf(want, sizeof(want), "open  an object|%s=1|close |", name);
	assert_string_equal(l.buf, want);
	/* 300 bytes whose first 127 are the name above's: nothing handed over */
	memset(name, 'a', 300);
	name[300] = '\0';
	snprintf(doc, sizeof(doc), "{\"%s\":{\"x\":1},\"y\":2}", name);
	assert_true(jwalk(doc, 16, &w, &l));
	assert_string_equal(l.buf, "open  an object|y=2|close |");
	/*
	 * A name cut before a 3-byte character, shorter than the room it leaves: the
	 * path holds its bytes and no more, its length as recorded (a fault under it
	 * is named by the path that name and ".x" make: 253 + 2 bytes).
	 */
	{
		static char big[300], want_path[300];
		size_t k = 1;

		big[0] = 'a';
		for (int i = 0; i < 90; i++, k += 3)
			memcpy(big + k, "\xe2\x82\xac", 3); /* U+20AC */
		big[k] = '\0';
		snprintf(doc, sizeof(doc), "{\"%s\":{\"x\":nul}}", big);
		assert_false(jwalk(doc, 16, &w, &l));
		assert_int_equal(w.depth, 2);
		assert_int_equal(strlen(w.path), w.plen[w.depth]);
		assert_int_equal(w.plen[1], 1 + 84 * 3);
		memcpy(want_path, big, 1 + 84 * 3);
		memcpy(want_path + 1 + 84 * 3, ".x", 3);
		assert_string_equal(w.bad_path, want_path);
	}
}

/* RFC 8259 section 8.1: raw bytes of 0x80 and up are well-formed UTF-8, or refused. */
static void
test_jwalk_utf8(void **state)
{
	static const struct {
		const char *doc;
		uint32_t col;
	} bad[] = {
		{ "{\"a\":\"x\x80\"}", 8 },                 /* a continuation byte alone */
		{ "{\"a\":\"\xc3\"}", 7 },                  /* a lead byte, cut by the quote */
		{ "{\"a\":\"\xc3(\"}", 7 },                 /* ... or by ASCII */
		{ "{\"a\":\"\xc0\xaf\"}", 7 },              /* overlong '/' */
		{ "{\"a\":\"\xc1\xbf\"}", 7 },              /* overlong U+007F */
		{ "{\"a\":\"\xe0\x9f\xbf\"}", 7 },          /* overlong U+07FF */
		{ "{\"a\":\"\xed\xa0\x80\"}", 7 },          /* U+D800, a surrogate */
		{ "{\"a\":\"\xed\xbf\xbf\"}", 7 },          /* U+DFFF */
		{ "{\"a\":\"\xf0\x8f\xbf\xbf\"}", 7 },      /* overlong U+FFFF */
		{ "{\"a\":\"\xf4\x90\x80\x80\"}", 7 },      /* U+110000 */
		{ "{\"a\":\"\xf5\x80\x80\x80\"}", 7 },      /* no lead byte */
		{ "{\"a\":\"\xe2\x82\"}", 7 },              /* a 3-byte sequence cut */
		{ "{\"a\":\"\xe2\x82\xe2\x82\xac\"}", 7 },  /* ... before another */
		{ "{\"\xff\":1}", 3 },                      /* in a member's name */
		{ "{\"a\":\"\xf0\x9f\x98\"}", 7 },          /* a 4-byte sequence cut */
		{ "{\"a\":\"\xc3\xa9\xf0\x9f\x98\x80\xff\"}", 13 }, /* after good ones */
	};
	static struct ft__jwalk w;
	struct jlog l;

	for (size_t i = 0; i < FT_ARRAY_SIZE(bad); i++) {
		if (jwalk(bad[i].doc, 16, &w, &l))
			fail_msg("case %zu: read as valid", i);
		if (w.j.bad_line != 1 || w.j.bad_col != bad[i].col || !w.why ||
		    strcmp(w.why, "a byte that is no UTF-8 in a string") != 0)
			fail_msg("case %zu: %u:%u %s, expected 1:%u", i, w.j.bad_line, w.j.bad_col,
			         w.why ? w.why : "-", bad[i].col);
	}
	/* the edges of each length, kept as they are: U+0080, U+07FF, U+0800, U+D7FF,
	   U+E000, U+FFFF, U+10000, U+10FFFF */
	assert_true(jwalk("{\"\xc2\x80\":\"\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf"
	                  "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\"}",
	                  16, &w, &l));
	assert_string_equal(l.buf, "open  an object|\xc2\x80=\"\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf\xee"
	                           "\x80\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\"|"
	                           "close |");
	/* a string longer than the buffer is cut at a character's end, never inside one */
	{
		static char doc[1100];
		size_t n = sizeof(w.sbuf) - 2;

		doc[0] = '"';
		memset(doc + 1, 'a', n);
		memcpy(doc + 1 + n, "\xc3\xa9\"", 4);
		assert_true(jwalk(doc, 16, &w, &l));
		/* '=' and '"', the n a's, '"' and '|': the é does not fit */
		assert_int_equal(l.n, 2 + n + 2);
		assert_int_equal(l.buf[2 + n], '"');
		/* nor anything after it: what is kept is the string's beginning */
		memcpy(doc + 1 + n, "\xc3\xa9" "b\"", 5);
		assert_true(jwalk(doc, 16, &w, &l));
		assert_int_equal(l.n, 2 + n + 2);
		assert_int_equal(l.buf[2 + n], '"');
	}
}

/* One limit on a number's length, FT__JSON_NUM_MAX bytes (the archive's reader holds it
   too: test_archive.c). */
static void
test_json_number_limit(void **state)
{
	static char doc[FT__JSON_NUM_MAX + 16];
	static struct ft__jwalk w;
	struct jlog l;
	size_t n = FT__JSON_NUM_MAX;

	/* FT__JSON_NUM_MAX bytes: "1." and its zeros, 1 */
	doc[0] = '[';
	memcpy(doc + 1, "1.", 2);
	memset(doc + 3, '0', n - 2);
	memcpy(doc + 1 + n, "]", 2);
	assert_true(jwalk(doc, 16, &w, &l));
	assert_string_equal(l.buf, "open  an array|=1|close |");
	/* one byte more: refused at its first byte */
	memset(doc + 3, '0', n - 1);
	memcpy(doc + 2 + n, "]", 2);
	assert_false(jwalk(doc, 16, &w, &l));
	assert_string_equal(w.why, "a number too long");
	assert_int_equal(w.j.bad_col, 2);
}

/* The fault as a parse.skipped line: line, column, what, where. */
static void
test_jwalk_skipped(void **state)
{
	static const char doc[] = "{\"start\":{\"test_start\":{\"protocol\":\"TCP\"}},\n"
	                          " \"end\":{\"sum_sent\":{\"bytes\":inf}}}\n";
	struct ft_obs_set set;
	struct ft_run run;
	struct ft_error err = { 0 };
	const struct ft_obs *o;

	ft_obs_set_init(&set);
	ft_run_init(&run, FT_SOURCE_IMPORT, "");
	assert_int_equal(ft_parse_buffer(doc, sizeof(doc) - 1, "i.json", "iperf3-json", &set, &run,
	                                 &err),
	                 0);
	o = find_obs(&set, "parse.skipped", NULL, -1);
	assert_non_null(o);
	assert_int_equal(o->line, 2);
	assert_string_equal(o->str, "invalid JSON at line 2, column 29: a bare word, not a JSON "
	                            "value (at end.sum_sent.bytes)");
	/* what was read before the fault is kept */
	assert_non_null(find_obs(&set, "iperf3.protocol", NULL, -1));
	ft_obs_set_release(&set);
	ft_run_release(&run);
}

/* Documents one after the other: text between them left unread, a fault stops the rest. */
static void
test_jwalk_doc(void **state)
{
	static const char doc[] =
	        "iperf3: warning - cpu busy\n"
	        "{\"end\":{\"sum_received\":{\"bits_per_second\":8e9}}}\n"
	        "{\"end\":{\"sum_received\":{\"bits_per_second\":16e9}}}\n"
	        "{\"end\":{\"sum_received\":{\"bits_per_second\":-Infinity}}}\n"
	        "{\"end\":{\"sum_received\":{\"bits_per_second\":32e9}}}\n";
	static const char inf[] = "{\"end\":{\"sum_received\":{\"bits_per_second\":1e400}}}\n";
	struct ft_obs_set set;
	struct ft_run run;
	struct ft_error err = { 0 };
	size_t nskip = 0;

	ft_obs_set_init(&set);
	ft_run_init(&run, FT_SOURCE_IMPORT, "");
	assert_int_equal(ft_parse_buffer(doc, sizeof(doc) - 1, "i.json", "iperf3-json", &set, &run,
	                                 &err),
	                 0);
	/* two reports read, the third stops the text at its fault, the fourth is not read */
	assert_int_equal(ft_run_nrows(&run), 2);
	assert_true(ft_run_row(&run, 0)->algbw_GBps == 1.0);
	assert_true(ft_run_row(&run, 1)->algbw_GBps == 2.0);
	for (size_t i = 0; i < ft_obs_set_len(&set); i++) {
		const struct ft_obs *o = ft_obs_set_at(&set, i);

		if (strcmp(o->key, "parse.skipped") != 0)
			continue;
		nskip++;
		if (o->line == 1)
			assert_non_null(strstr(o->str, "not iperf3 JSON"));
		else
			assert_string_equal(o->str, "invalid JSON at line 4, column 43: not a JSON "
			                            "number (at end.sum_received.bits_per_second)");
	}
	assert_int_equal(nskip, 2);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	/* a rate past a double: no row of inf, the report named where it was cut */
	ft_obs_set_init(&set);
	ft_run_init(&run, FT_SOURCE_IMPORT, "");
	assert_int_equal(ft_parse_buffer(inf, sizeof(inf) - 1, "i.json", "iperf3-json", &set, &run,
	                                 &err),
	                 0);
	assert_int_equal(ft_run_nrows(&run), 0);
	assert_int_equal(ft_obs_set_len(&set), 1);
	assert_string_equal(ft_obs_set_at(&set, 0)->str,
	                    "invalid JSON at line 1, column 43: a number out of range "
	                    "(at end.sum_received.bits_per_second)");
	ft_obs_set_release(&set);
	ft_run_release(&run);
}

/* Columns count bytes from 1 on each line, asked in any order. */
static void
test_jcur_col(void **state)
{
	static const char t[] = "ab\ncde\n\nf";
	struct ft__jcur j;

	ft__jcur_init(&j, t, sizeof(t) - 1, 0);
	assert_int_equal(ft__jcur_col(&j, t + 5), 3);
	assert_int_equal(ft__jcur_line(&j, t + 5), 2);
	assert_int_equal(ft__jcur_col(&j, t + 0), 1);
	assert_int_equal(ft__jcur_col(&j, t + 1), 2);
	assert_int_equal(ft__jcur_col(&j, t + 7), 1);
	assert_int_equal(ft__jcur_line(&j, t + 8), 4);
	assert_int_equal(ft__jcur_col(&j, t + 8), 1);
}

/* A support bundle is split at its prompts and each part read by its parser. */
static void
test_bundle_split(void **state)
{
	struct ft_obs_set set;
	struct ft_run run;
	const struct ft_obs *o;

	parse_fixture(FIXTURES "/bundle/handmade-support-bundle-ibstat-perfquery-ethtool.txt", &set,
	              &run);
	o = find_obs(&set, "ib.port.state", "mlx5_0", 1);
	assert_true(o && o->line == 10);
	o = find_obs(&set, "ib.counter.SymbolErrorCounter", "LID 12", 1);
	assert_true(o && o->num == 4182 && o->line == 18);
	o = find_obs(&set, "eth.counter.rx_packets", "ib0", -1);
	assert_true(o && o->num == 120331);
	assert_int_equal(count_obs(&set, "parse.skipped"), 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);
}

/* ---- robustness ----------------------------------------------------------- */

/* Every parser over every fixture, whole and cut at many points: no crash, 0. */
static void
test_every_parser_every_fixture(void **state)
{
	char **dirs, **files;
	size_t nd = list_dir(FIXTURES, &dirs);

	for (size_t d = 0; d < nd; d++) {
		char dpath[512];
		size_t nf;

		if (strcmp(dirs[d], "sysfs") == 0)
			continue;
		snprintf(dpath, sizeof(dpath), FIXTURES "/%s", dirs[d]);
		nf = list_dir(dpath, &files);
		for (size_t f = 0; f < nf; f++) {
			char path[1024];
			struct ft_strbuf sb;
			struct ft_error err = { 0 };

			if (!ends_with(files[f], ".txt"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dpath, files[f]);
			ft_strbuf_init(&sb);
			assert_int_equal(ft_strbuf_read_file(&sb, path, &err), 0);
			for (size_t i = 0; i < ft_parser_count(); i++) {
				const struct ft_parser *p = ft_parser_at(i);
				struct ft_obs_set set;
				struct ft_run run;

				ft_obs_set_init(&set);
				ft_run_init(&run, FT_SOURCE_IMPORT, "");
				for (size_t cut = sb.len; cut > 0; cut = cut > 97 ? cut - 97 : 0) {
					/* a copy of exactly @cut bytes, so that ASan sees overreads
					 */
					char *copy = malloc(cut);

					memcpy(copy, sb.buf, cut);
					assert_int_equal(
					        p->parse(copy, cut, path, &set, &run, &err), 0);
					(void)p->sniff(copy, cut);
					free(copy);
				}
				ft_obs_set_release(&set);
				ft_run_release(&run);
			}
			ft_strbuf_release(&sb);
		}
		free_list(files, nf);
	}
	free_list(dirs, nd);
}

/*
 * @src with @prefix put before every line of its body (after the corpus
 * header's "# ---" line) and each "\n" of the body written as @eol.
 */
static void
retransport(const char *src, const char *prefix, const char *eol, struct ft_strbuf *out)
{
	const char *body = strstr(src, "# ---\n"), *q;

	assert_non_null(body);
	body += 6;
	ft_strbuf_add(out, src, (size_t)(body - src));
	for (q = body; *q;) {
		const char *nl = strchr(q, '\n');
		size_t n = nl ? (size_t)(nl - q) : strlen(q);

		ft_strbuf_adds(out, prefix);
		ft_strbuf_add(out, q, n);
		ft_strbuf_adds(out, eol);
		q += n + (nl != NULL);
	}
}

/*
 * A real nccl-tests output as it reaches users through a launcher or a
 * mail: Open MPI's --tag-output, srun --label, Intel MPI's -prepend-rank,
 * a quoted reply, Windows line endings. Every form gives the rows of the
 * plain text, figures unchanged.
 */
static void
test_nccl_tests_transport_forms(void **state)
{
	static const struct {
		const char *prefix, *eol;
	} forms[] = {
		{ "", "\n" },          { "[1,0]<stdout>:", "\n" }, { "0: ", "\n" },
		{ "[0] ", "\n" },      { "> ", "\n" },             { "", "\r\n" },
		{ "> > ", "\r\n" },
	};
	struct ft_strbuf text;
	struct ft_error err = { 0 };

	(void)state;
	ft_strbuf_init(&text);
	assert_int_equal(ft_strbuf_read_file(&text,
					     FIXTURES "/wild/nccl-tests/gb10-2node-nccl-tests-2.20-"
						      "unalign-rows-cut.txt",
					     &err),
			 0);
	for (size_t f = 0; f < FT_ARRAY_SIZE(forms); f++) {
		struct ft_strbuf in;
		struct ft_obs_set set;
		struct ft_run run;
		const struct ft_result_row *r;

		ft_strbuf_init(&in);
		retransport(text.buf, forms[f].prefix, forms[f].eol, &in);
		ft_obs_set_init(&set);
		ft_run_init(&run, FT_SOURCE_IMPORT, "");
		assert_int_equal(ft_parse_buffer(in.buf, in.len, "paste.txt", NULL, &set, &run,
						 &err),
				 0);
		if (ft_run_nrows(&run) != 4)
			fail_msg("form %zu (\"%s\"): %zu rows, expected 4", f, forms[f].prefix,
				 ft_run_nrows(&run));
		r = ft_run_row(&run, 2);
		assert_string_equal(r->test, "all_reduce");
		assert_int_equal(r->nranks, 2);
		assert_int_equal(r->bytes, 32768);
		assert_true(fabs(r->time_us - 39.56) < 1e-9 && fabs(r->ip_busbw_GBps - 0.88) < 1e-9);
		ft_obs_set_release(&set);
		ft_run_release(&run);
		ft_strbuf_release(&in);
	}
	ft_strbuf_release(&text);
}

/*
 * fabtune model's table, as `fabtune model dgx-h100:16 --op alltoall -b 1M -e 1G
 * -f 8` prints it: nccl-tests' first columns, one time/algbw/busbw group, then
 * the model's algorithm, protocol and bottleneck, read into the rows' own
 * fields; the lines above it name the collective and the ranks. No line is
 * skipped.
 */
static void
test_parse_model_table(void **state)
{
	static const char text[] =
	        "# fabtune model: dgx-h100:16\n"
	        "#  16 nodes x 8 GPUs H100-SXM5-80GB, NVLink 4 NVSwitch+NVLS, 8 NICs/node ndr, "
	        "fabric rail-fat-tree\n"
	        "#  alltoall on 128 ranks, 18 channels\n"
	        "#\n"
	        "#       size         count      type   redop    root      time   algbw   busbw"
	        "  algo              proto   bottleneck\n"
	        "#        (B)    (elements)                                (us)  (GB/s)  (GB/s)\n"
	        "     1048576          2048     float    none      -1     43.13   24.31   24.12"
	        "  direct            simple  latency\n"
	        "     8388608         16384     float    none      -1     186.5   44.98   44.63"
	        "  direct            simple  pcie\n";
	struct ft_obs_set set;
	struct ft_run run;
	struct ft_error err = { 0 };
	const struct ft_result_row *r;

	(void)state;
	ft_obs_set_init(&set);
	ft_run_init(&run, FT_SOURCE_IMPORT, "");
	assert_int_equal(ft_parse_buffer(text, sizeof(text) - 1, "model.txt", NULL, &set, &run,
	                                 &err),
	                 0);
	assert_int_equal(count_obs(&set, "parse.skipped"), 0);
	assert_int_equal(ft_run_nrows(&run), 2);
	r = ft_run_row(&run, 1);
	assert_string_equal(r->test, "alltoall");
	assert_int_equal(r->nranks, 128);
	assert_int_equal(r->bytes, 8388608);
	assert_int_equal(r->count, 16384);
	assert_true(fabs(r->time_us - 186.5) < 1e-9);
	assert_true(fabs(r->algbw_GBps - 44.98) < 1e-9 && fabs(r->busbw_GBps - 44.63) < 1e-9);
	assert_true(isnan(r->ip_time_us));
	assert_int_equal(r->wrong, -1);
	assert_string_equal(r->algo, "direct");
	assert_string_equal(r->proto, "simple");
	assert_string_equal(r->bottleneck, "pcie");
	assert_string_equal(r->transport, "");
	assert_string_equal(ft_run_row(&run, 0)->bottleneck, "latency");
	ft_run_release(&run);
	ft_obs_set_release(&set);
}

/* fabtune bench pairs streams -e bytes each way: its rows carry maxBytes, not minBytes. */
static void
test_parse_pairs_size(void **state)
{
	static const char text[] =
	        "# fabtune bench pairs: transport tcp, 2 ranks\n"
	        "# nThread 1 nGpus 1 minBytes 1024 maxBytes 65536 step: 2(factor) warmup iters: 5 "
	        "iters: 2 agg iters: 1 validation: 1 graph: 0\n"
	        "# bandwidth (GB/s), row = sender, column = receiver\n"
	        "#   rank        0        1  host\n"
	        "       0        -    3.569  vm\n"
	        "       1    4.031        -  vm\n"
	        "# latency (us, p50 of ping-pong), row = sender, column = receiver\n"
	        "#   rank        0        1  host\n"
	        "       0        -   12.500  vm\n"
	        "       1   12.250        -  vm\n"
	        "# median pair bandwidth: 3.800 GB/s\n"
	        "# outliers: none\n";
	struct ft_obs_set set;
	struct ft_run run;
	struct ft_error err = { 0 };

	(void)state;
	ft_obs_set_init(&set);
	ft_run_init(&run, FT_SOURCE_IMPORT, "");
	assert_int_equal(ft_parse_buffer(text, sizeof(text) - 1, "pairs.txt", "fabtune-bench", &set,
	                                 &run, &err),
	                 0);
	assert_int_equal(ft_run_nrows(&run), 2);
	assert_int_equal(ft_run_row(&run, 0)->bytes, 65536);
	assert_int_equal(ft_run_row(&run, 1)->bytes, 65536);
	assert_true(fabs(ft_run_row(&run, 1)->algbw_GBps - 4.031) < 1e-9);
	ft_run_release(&run);
	ft_obs_set_release(&set);
}

/* The observation @key of rank @rank in @set, NULL when none. */
static const struct ft_obs *
rank_obs(const struct ft_obs_set *set, const char *key, int rank)
{
	for (size_t i = 0; i < ft_obs_set_len(set); i++) {
		const struct ft_obs *o = ft_obs_set_at(set, i);

		if (strcmp(o->key, key) == 0 && o->rank == rank)
			return o;
	}
	return NULL;
}

/*
 * The sample clock read back under the keys `fabtune bench --save` stores:
 * bench.clock_hz (str the source, num the rate: 2694.836 MHz is
 * 2694836000 Hz) and bench.clock_error (ppm), each of its rank; from the
 * point-to-point Clock line (rank 0) and from "# clock: rank R" lines; a
 * monotonic clock has no rate and no error; a clock line that is neither
 * is skipped, not guessed.
 */
static void
test_parse_bench_clock(void **state)
{
	static const char lat[] =
	        "------------------------------------------------------------------\n"
	        "                    tcp Latency Test (fabtune)\n"
	        " Number of qps   : 1\t\tTransport type : tcp\n"
	        " Binding         : core 0 -> core 1\n"
	        " Clock           : tsc 2694.836 MHz, error 3.4 ppm\n"
	        "------------------------------------------------------------------\n";
	static const char pairs[] =
	        "# fabtune bench pairs: transport tcp, 2 ranks\n"
	        "# clock: rank 0 tsc 2095.081 MHz, error 3.1 ppm; 1 of 4 loops at their own rate\n"
	        "# clock: rank 1 monotonic\n"
	        "# clock: rank 2 sundial\n";
	struct ft_obs_set set;
	struct ft_error err = { 0 };
	const struct ft_obs *o;

	(void)state;
	ft_obs_set_init(&set);
	assert_int_equal(ft_parse_buffer(lat, sizeof(lat) - 1, "lat.txt", "perftest", &set, NULL,
	                                 &err),
	                 0);
	o = rank_obs(&set, "bench.clock_hz", 0);
	assert_non_null(o);
	assert_string_equal(o->str, "tsc");
	assert_true(o->has_num && fabs(o->num - 2694836000.0) < 1e-3);
	assert_string_equal(o->unit, "Hz");
	o = rank_obs(&set, "bench.clock_error", 0);
	assert_non_null(o);
	assert_true(o->has_num && fabs(o->num - 3.4) < 1e-12);
	assert_string_equal(o->unit, "ppm");
	assert_null(find_obs(&set, "bench.clock", NULL, -1));
	ft_obs_set_release(&set);

	ft_obs_set_init(&set);
	assert_int_equal(ft_parse_buffer(pairs, sizeof(pairs) - 1, "pairs.txt", "fabtune-bench",
	                                 &set, NULL, &err),
	                 0);
	o = rank_obs(&set, "bench.clock_hz", 0);
	assert_non_null(o);
	assert_true(o->has_num && fabs(o->num - 2095081000.0) < 1e-3);
	o = rank_obs(&set, "bench.clock_error", 0);
	assert_true(o && fabs(o->num - 3.1) < 1e-12);
	o = rank_obs(&set, "bench.clock_hz", 1);
	assert_non_null(o);
	assert_string_equal(o->str, "monotonic");
	assert_false(o->has_num);
	assert_null(rank_obs(&set, "bench.clock_error", 1));
	assert_null(rank_obs(&set, "bench.clock_hz", 2));
	o = find_obs(&set, "parse.skipped", NULL, -1);
	assert_non_null(o);
	assert_int_equal(o->line, 4);
	ft_obs_set_release(&set);
}

/*
 * @set's clock of @rank read back from a fixture: bench.clock_hz "tsc" at
 * @mhz (the Clock line's three decimals, so a whole kHz) and
 * bench.clock_error @ppm, both on line @line and each the only one of its
 * rank.
 */
static void
assert_fixture_clock(const struct ft_obs_set *set, int rank, uint32_t line, double mhz,
                     double ppm)
{
	const struct ft_obs *o = rank_obs(set, "bench.clock_hz", rank);
	size_t i, n = 0;

	assert_non_null(o);
	assert_string_equal(o->str, "tsc");
	assert_true(o->has_num && fabs(o->num - mhz * 1e6) < 1e-3);
	assert_string_equal(o->unit, "Hz");
	assert_int_equal(o->line, line);
	o = rank_obs(set, "bench.clock_error", rank);
	assert_non_null(o);
	assert_true(o->has_num && fabs(o->num - ppm) < 1e-12);
	assert_string_equal(o->unit, "ppm");
	assert_int_equal(o->line, line);
	for (i = 0; i < ft_obs_set_len(set); i++)
		n += ft_obs_set_at(set, i)->rank == rank &&
		     strncmp(ft_obs_set_at(set, i)->key, "bench.clock_", 12) == 0;
	assert_int_equal(n, 2);
}

/* The ranks of @set's bench.clock_hz observations, one bit a rank. */
static unsigned
clock_ranks(const struct ft_obs_set *set)
{
	unsigned bits = 0;

	for (size_t i = 0; i < ft_obs_set_len(set); i++) {
		const struct ft_obs *o = ft_obs_set_at(set, i);

		if (strcmp(o->key, "bench.clock_hz") == 0) {
			assert_true(o->rank >= 0 && o->rank < 32);
			assert_int_equal(bits & 1u << o->rank, 0);
			bits |= 1u << o->rank;
		}
		assert_string_not_equal(o->key, "parse.skipped");
	}
	return bits;
}

/*
 * Real outputs of `fabtune bench` with their clock lines (fixtures
 * fabtune-pt2pt-lat-{tcp,shm}-clock, pairs-3-ranks-tcp-clock,
 * incast-4-ranks-shm-clock): each clock read back exactly, of its rank,
 * in its units, beside the rows; the ranks that report one are those that
 * timed latencies (pt2pt_lat rank 0, pairs' probing ranks 0 and 1 of 3,
 * incast's victim, the last of 4). A perftest output from the wild has no
 * Clock line and gives no clock.
 */
static void
test_parse_bench_clock_fixtures(void **state)
{
	struct ft_obs_set set;
	struct ft_run run;
	const struct ft_result_row *row;

	(void)state;
	parse_fixture(FIXTURES "/perftest/fabtune-pt2pt-lat-tcp-clock.txt", &set, &run);
	assert_fixture_clock(&set, 0, 8, 2694.836, 4.0);
	assert_int_equal(clock_ranks(&set), 1u);
	assert_int_equal(ft_run_nrows(&run), 4);
	row = ft_run_row(&run, 3);
	assert_string_equal(row->transport, "tcp");
	assert_int_equal(row->bytes, 4096);
	assert_true(fabs(row->lat_p50_us - 9.10) < 1e-9);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/perftest/fabtune-pt2pt-lat-shm-clock.txt", &set, &run);
	assert_fixture_clock(&set, 0, 8, 2694.836, 2.9);
	assert_int_equal(clock_ranks(&set), 1u);
	assert_int_equal(ft_run_nrows(&run), 4);
	row = ft_run_row(&run, 0);
	assert_string_equal(row->transport, "shm");
	assert_int_equal(row->bytes, 8);
	assert_true(fabs(row->lat_p50_us - 0.52) < 1e-9);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/fabtune-bench/pairs-3-ranks-tcp-clock.txt", &set, &run);
	assert_fixture_clock(&set, 0, 11, 2694.836, 3.6);
	assert_fixture_clock(&set, 1, 12, 2694.836, 2.1);
	assert_int_equal(clock_ranks(&set), 3u);
	assert_int_equal(ft_run_nrows(&run), 6);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/fabtune-bench/incast-4-ranks-shm-clock.txt", &set, &run);
	assert_fixture_clock(&set, 3, 12, 2694.836, 4.0);
	assert_int_equal(clock_ranks(&set), 1u << 3);
	assert_int_equal(ft_run_nrows(&run), 2);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	/* perftest's own ib_write_bw (hpe-slingshot-...-98g.txt): no Clock line */
	parse_fixture(FIXTURES "/perftest/hpe-slingshot-hsn-roce-ib-write-bw-server-client-98g.txt",
	              &set, &run);
	assert_int_equal(count_obs(&set, "bench.clock_hz"), 0);
	assert_int_equal(count_obs(&set, "bench.clock_error"), 0);
	assert_true(ft_run_nrows(&run) >= 1);
	assert_true(fabs(ft_run_row(&run, 0)->algbw_GBps - 98.03 / 8) < 1e-9); /* 98.03 Gb/s */
	ft_obs_set_release(&set);
	ft_run_release(&run);
}

/* The bench.nranks observation of @set, NULL when none. */
static const struct ft_obs *
nranks_obs(const struct ft_obs_set *set)
{
	for (size_t i = 0; i < ft_obs_set_len(set); i++)
		if (strcmp(ft_obs_set_at(set, i)->key, "bench.nranks") == 0)
			return ft_obs_set_at(set, i);
	return NULL;
}

/* Parse @text as nccl-tests output named @name: the rank count of its rows (all the same). */
static uint32_t
text_nranks(const char *text, const char *name, struct ft_obs_set *set)
{
	struct ft_run run;
	struct ft_error err = { 0 };
	uint32_t n;

	ft_obs_set_init(set);
	ft_run_init(&run, FT_SOURCE_IMPORT, "");
	assert_int_equal(ft_parse_buffer(text, strlen(text), name, "nccl-tests", set, &run, &err), 0);
	assert_true(ft_run_nrows(&run) >= 1);
	n = ft_run_row(&run, 0)->nranks;
	for (size_t i = 1; i < ft_run_nrows(&run); i++)
		assert_int_equal(ft_run_row(&run, i)->nranks, n);
	ft_run_release(&run);
	return n;
}

/*
 * The rank count of an output that prints no "# Rank" lines: NCCL's own
 * nRanks, else busbw/algbw where every figure pair allows one whole n, and
 * none where they disagree or a bus factor of 1 says nothing.
 */
static void
test_nccl_tests_ranks_from_output(void **state)
{
	struct ft_obs_set set;
	struct ft_run run;
	struct ft_error err = { 0 };
	const struct ft_obs *o;
	size_t i;

	(void)state;
	/* the H20 alltoall excerpt (no header, no rank lines): (n-1)/n = 0.75, 4 ranks */
	ft_obs_set_init(&set);
	ft_run_init(&run, FT_SOURCE_IMPORT, "");
	assert_int_equal(ft_parse_file(FIXTURES "/nccl-tests/h20-vm-2node-alltoall-vendor-plugin-"
					     "50gbs-excerpt.txt",
				       NULL, &set, &run, &err),
			 0);
	assert_int_equal(ft_run_nrows(&run), 13);
	for (i = 0; i < ft_run_nrows(&run); i++)
		assert_int_equal(ft_run_row(&run, i)->nranks, 4);
	o = nranks_obs(&set);
	assert_non_null(o);
	assert_true(o->has_num && o->num == 4);
	assert_non_null(strstr(o->str, "busbw/algbw = (n-1)/n in 26 figure pairs"));
	ft_run_release(&run);
	ft_obs_set_release(&set);

	/* CoreWeave's README excerpt, from a manifest of 8 nodes x 8 GPUs: 10 pairs at
	   2(n-1)/n = 1.9791-1.9792 allow 95.91 to 96.21 ranks together, 96 alone and not 64
	   (1.96875, busbw 354.14 where 356.01 is printed). The log is not the 64-GPU job's: the
	   pods listed above it include worker-10 (12 workers of 8 GPUs), and its banner's
	   maxBytes 2 GiB is not the 8 GiB of its rows. */
	ft_obs_set_init(&set);
	ft_run_init(&run, FT_SOURCE_IMPORT, "");
	assert_int_equal(ft_parse_file(FIXTURES "/nccl-tests/coreweave-h100-8x8-all-reduce-"
					     "collnetchain-excerpt.txt",
				       NULL, &set, &run, &err),
			 0);
	assert_int_equal(ft_run_nrows(&run), 5);
	for (i = 0; i < ft_run_nrows(&run); i++)
		assert_int_equal(ft_run_row(&run, i)->nranks, 96);
	o = nranks_obs(&set);
	assert_non_null(strstr(o->str, "2(n-1)/n in 10 figure pairs (n 95.91-96.21)"));
	ft_run_release(&run);
	ft_obs_set_release(&set);

	/* one pair alone allows 8 (2 x 7/8 = 1.75); the in-place pair of 16 ranks contradicts it */
	assert_int_equal(text_nranks("# Collective test starting: all_reduce_perf\n"
				     "    33554432   8388608  float  sum  -1  1000.0  40.00  70.00  0"
				     "  1000.0  40.00  70.00  0\n",
				     "a.txt", &set),
			 8);
	ft_obs_set_release(&set);
	assert_int_equal(text_nranks("# Collective test starting: all_reduce_perf\n"
				     "    33554432   8388608  float  sum  -1  1000.0  40.00  70.00  0"
				     "  1000.0  40.00  75.00  0\n",
				     "a.txt", &set),
			 0);
	assert_null(nranks_obs(&set));
	ft_obs_set_release(&set);
	/* figures too coarse to tell n from n + 1 (2(n-1)/n near 2) give none */
	assert_int_equal(text_nranks("# Collective test starting: all_reduce_perf\n"
				     "    33554432   8388608  float  sum  -1  1000.0   1.00   1.99  0"
				     "  1000.0   1.00   1.99  0\n",
				     "a.txt", &set),
			 0);
	ft_obs_set_release(&set);
	/* broadcast's factor is 1: nothing to read */
	assert_int_equal(text_nranks("# Collective test starting: broadcast_perf\n"
				     "    33554432   8388608  float  none  0  1000.0  40.00  40.00  0"
				     "  1000.0  40.00  40.00  0\n",
				     "a.txt", &set),
			 0);
	ft_obs_set_release(&set);
	/* NCCL's communicator line says it outright */
	assert_int_equal(text_nranks("h1:1:1 [0] NCCL INFO comm 0x55d0 rank 0 nRanks 6 nNodes 3 "
				     "localRanks 2 localRank 0 MNNVL 0\n"
				     "# Collective test starting: all_reduce_perf\n"
				     "    33554432   8388608  float  sum  -1  1000.0  40.00  70.00  0"
				     "  1000.0  40.00  70.00  0\n",
				     "a.txt", &set),
			 6);
	assert_non_null(strstr(nranks_obs(&set)->str, "nRanks 6 of NCCL's communicator line"));
	ft_obs_set_release(&set);
}

/*
 * A header that names a text column (here redop, in the second group) that the
 * rows, one column group wide, do not reach: the row has no such cell, so the
 * row's redop is empty, never a token left over from another line (a fuzzed
 * input read one through a stale pointer).
 */
static void
test_nccl_tests_short_rows(void **state)
{
	static const char text[] =
		"#       size         count     time   algbw   busbw  #wrong     time   redop   "
		"busbw  #wrong\n"
		"#        (B)    (elements)     (us)  (GB/s)  (GB/s)             (us)  (GB/s)  "
		"(GB/s)\n"
		"     6291456       1572864    76.21   82.55  144.46      0\n"
		"    12582912       3145728    138.4   90.93  159.12      0\n";
	struct ft_obs_set set;
	struct ft_run run;
	struct ft_error err = { 0 };
	size_t i;

	(void)state;
	ft_obs_set_init(&set);
	ft_run_init(&run, FT_SOURCE_IMPORT, "");
	assert_int_equal(ft_parse_buffer(text, sizeof(text) - 1, "short.txt", "nccl-tests", &set,
	                                 &run, &err),
	                 0);
	assert_int_equal(ft_run_nrows(&run), 2);
	for (i = 0; i < ft_run_nrows(&run); i++) {
		assert_string_equal(ft_run_row(&run, i)->redop, "");
		assert_true(ft_run_row(&run, i)->busbw_GBps > 140);
	}
	assert_int_equal(ft_run_row(&run, 0)->bytes, 6291456);
	ft_obs_set_release(&set);
	ft_run_release(&run);
}

/* An nccl-tests table pasted without its header: the rows name the collective. */
static void
test_nccl_tests_headerless(void **state)
{
	struct ft_strbuf text, rows;
	struct ft_obs_set set;
	struct ft_run run;
	struct ft_error err = { 0 };
	const struct ft_parser *p;
	size_t i;
	const char *q;

	/* The data rows of a real 16-rank all_reduce output, every '#' line dropped. */
	ft_strbuf_init(&text);
	ft_strbuf_init(&rows);
	assert_int_equal(ft_strbuf_read_file(&text,
					     FIXTURES "/nccl-tests/h100-2node-16gpu-all-reduce-"
						      "same-cluster-baseline.txt",
					     &err),
			 0);
	for (q = text.buf; q && *q;) {
		const char *nl = strchr(q, '\n');
		size_t n = nl ? (size_t)(nl - q + 1) : strlen(q);
		size_t sp = strspn(q, " ");

		if (sp && sp < n && q[sp] >= '0' && q[sp] <= '9')
			ft_strbuf_add(&rows, q, n);
		q += n;
	}
	assert_true(rows.len > 0);
	p = ft_parser_detect(rows.buf, rows.len);
	assert_non_null(p);
	assert_string_equal(p->name, "nccl-tests");
	ft_obs_set_init(&set);
	ft_run_init(&run, FT_SOURCE_IMPORT, "");
	assert_int_equal(ft_parse_buffer(rows.buf, rows.len, "paste.txt", NULL, &set, &run, &err),
			 0);
	assert_true(ft_run_nrows(&run) >= 10);
	/* busbw/algbw = 2(n-1)/n = 1.875: all_reduce on 16 ranks, every row named. */
	for (i = 0; i < ft_run_nrows(&run); i++) {
		assert_string_equal(ft_run_row(&run, i)->test, "all_reduce");
		assert_int_equal(ft_run_row(&run, i)->nranks, 16);
	}
	ft_obs_set_release(&set);
	ft_run_release(&run);

	/* all_gather rows (no reduction, factor (n-1)/n) stay unknown: alltoall prints the same. */
	{
		/* a row of the real 2-rank all_gather fixture */
		static const char ag[] = "    33554432       4194304     float    none      -1  "
					 "7620.22    4.40    2.20       0  9302.84    3.61    1.80"
					 "       0\n";
		ft_obs_set_init(&set);
		ft_run_init(&run, FT_SOURCE_IMPORT, "");
		assert_int_equal(
			ft_parse_buffer(ag, strlen(ag), "p.txt", "nccl-tests", &set, &run, &err), 0);
		assert_int_equal(ft_run_nrows(&run), 1);
		assert_string_equal(ft_run_row(&run, 0)->test, "unknown");
		ft_obs_set_release(&set);
		ft_run_release(&run);
	}
	ft_strbuf_release(&text);
	ft_strbuf_release(&rows);
}


/* The three forms of NCCL's completion error, PyTorch's watchdog lines and kernel Xid lines. */
static void
test_failure_forms(void **state)
{
	/* The newest form, as NCCL's net_ib source formats it (status name, number in parentheses). */
	static const char nccl_new[] =
		"node1:1234:5678 [3] NCCL WARN NET/IB: Got completion from peer 10.0.0.2<41234> "
		"with status=transport retry counter exceeded(12) opcode=Send(0) vendor_err=129  "
		"localGid ::ffff:10.0.0.1 remoteGids::ffff:10.0.0.2 hca mlx5_3\n";
	static const char mixed[] =
		"node1:1234:5678 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE\n"
		"[rank2]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank 2] Watchdog "
		"caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLGATHER, "
		"NumelIn=8, NumelOut=64, Timeout(ms)=600000) ran for 600321 milliseconds before "
		"timing out.\n"
		"Jan 18 11:38:05 node1 kernel: NVRM: Xid (PCI:0000:b3:00): 74, pid=1, name=python, "
		"NVLink: fatal error detected on link 3\n";
	struct ft_obs_set set;
	struct ft_error err = { 0 };
	const struct ft_obs *o;

	ft_obs_set_init(&set);
	assert_int_equal(ft_parse_buffer(nccl_new, strlen(nccl_new), "n.log", "nccl-log", &set, NULL,
					 &err),
			 0);
	o = find_obs(&set, "nccl.ib.completion_error", NULL, -1);
	assert_non_null(o);
	assert_true(o->num == 12);
	assert_string_equal(o->str, "peer 10.0.0.2<41234> (Send) hca mlx5_3");
	o = find_obs(&set, "nccl.ib.local_gid", NULL, -1);
	assert_non_null(o);
	assert_string_equal(o->str, "::ffff:10.0.0.1");
	ft_obs_set_release(&set);

	/* The host prefix cut off: "file.cc:NN NCCL WARN" names no host. */
	{
		static const char cut[] = "ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from "
					  "peer 10.216.210.236<54862> with status=12 opcode=0 "
					  "len=0 vendor err 129 (Recv)\n";

		ft_obs_set_init(&set);
		assert_int_equal(ft_parse_buffer(cut, strlen(cut), "c.log", NULL, &set, NULL, &err),
				 0);
		o = find_obs(&set, "nccl.ib.completion_error", NULL, -1);
		assert_non_null(o);
		assert_string_equal(o->host, "");
		assert_string_equal(o->str, "peer 10.216.210.236<54862> (Recv)");
		ft_obs_set_release(&set);
	}

	/* One job log: NCCL, PyTorch and kernel lines together, each read. */
	ft_obs_set_init(&set);
	assert_int_equal(ft_parse_buffer(mixed, strlen(mixed), "job.log", NULL, &set, NULL, &err), 0);
	o = find_obs(&set, "torch.nccl.seq", NULL, -1);
	assert_non_null(o);
	assert_true(o->num == 12 && o->rank == 2);
	assert_string_equal(o->str, "ALLGATHER");
	o = find_obs(&set, "torch.nccl.timeout", NULL, -1);
	assert_non_null(o);
	assert_true(o->num == 600321);
	o = find_obs(&set, "gpu.xid", "0000:b3:00", -1);
	assert_non_null(o);
	assert_true(o->num == 74);
	assert_string_equal(o->host, "node1");
	assert_int_equal(count_obs(&set, "parse.skipped"), 0);
	ft_obs_set_release(&set);
}

/* What users paste is often a fragment: headerless excerpts are still detected and read. */
static void
test_fragments(void **state)
{
	/* "ethtool -S IF | grep prio0" cut from the mlx5 fixture: no "NIC statistics:" line. */
	static const char mlx5[] = "     rx_prio0_bytes: 6211318150440\n"
				   "     rx_prio0_packets: 38460533605\n"
				   "     rx_prio0_discards: 58591314012\n";
	struct ft_obs_set set;
	struct ft_run run;
	struct ft_error err = { 0 };
	const struct ft_parser *p = ft_parser_detect(mlx5, strlen(mlx5));
	const struct ft_obs *o;

	assert_non_null(p);
	assert_string_equal(p->name, "ethtool-S");
	ft_obs_set_init(&set);
	assert_int_equal(ft_parse_buffer(mlx5, strlen(mlx5), "f.txt", NULL, &set, NULL, &err), 0);
	o = find_obs(&set, "eth.counter.rx_prio0_discards", NULL, -1);
	assert_non_null(o);
	assert_true(o->num == 58591314012.0);
	assert_int_equal(o->line, 3);
	ft_obs_set_release(&set);

	/* Intel ice XOFF counters also count as pause frames under the mlx5 name. */
	parse_fixture(FIXTURES "/ethtool-S/intel-e810-ethtool-S-grep-prio-xoff-excerpt.txt", &set,
		      &run);
	o = find_obs(&set, "eth.counter.tx_prio2_pause", NULL, -1);
	assert_non_null(o);
	assert_true(o->num == 14864);
	assert_non_null(find_obs(&set, "eth.counter.tx_priority_2_xoff.nic", NULL, -1));
	assert_int_equal(count_obs(&set, "parse.skipped"), 0);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	/* Two counter lines of nothing RoCE-related are not enough to claim a format. */
	p = ft_parser_detect("a: 1\nb: 2\n", 10);
	assert_true(!p || strcmp(p->name, "ethtool-S") != 0);
}

/*
 * PyTorch profiler traces: the unions of NCCL and compute kernel time per GPU
 * and their intersection (HTA's communication computation overlap), from the
 * file and from a fragment of three events pasted without their array.
 */
static void
test_torch_trace(void **state)
{
	/* the NCCL kernel and the two compute kernels after it, cut from the hidden excerpt */
	static const char *const fixture =
		FIXTURES "/pytorch-trace/hta-rank0-of-128-sendrecv-hidden-excerpt.txt";
	struct ft_obs_set set;
	struct ft_run run;
	struct ft_strbuf sb;
	struct ft_error err = { 0 };
	const struct ft_obs *o;
	const char *b, *e;
	const struct ft_parser *p;

	parse_fixture(FIXTURES "/pytorch-trace/hta-rank0-of-128-sendrecv-exposed-excerpt.txt", &set,
		      &run);
	assert_int_equal(count_obs(&set, "parse.skipped"), 0);
	assert_true(find_obs(&set, "torch.trace.world_size", NULL, -1)->num == 128);
	o = find_obs(&set, "torch.trace.comm_kernels", "GPU0", -1);
	assert_true(o && o->num == 1 && o->rank == 0);
	assert_true(fabs(find_obs(&set, "torch.trace.comm_s", "GPU0", -1)->num - 0.062783) < 1e-12);
	assert_true(fabs(find_obs(&set, "torch.trace.overlap_s", "GPU0", -1)->num - 0.001685) <
		    1e-12);
	assert_true(fabs(find_obs(&set, "torch.trace.overlap", "GPU0", -1)->num -
			 1685.0 / 62783.0) < 1e-12);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	ft_strbuf_init(&sb);
	assert_int_equal(ft_strbuf_read_file(&sb, fixture, &err), 0);
	b = strstr(sb.buf, "\n{\"ph\"");
	assert_non_null(b);
	b++;
	e = b;
	for (int i = 0; i < 3; i++)
		e = strchr(e, '\n') + 1;
	p = ft_parser_detect(b, (size_t)(e - b));
	assert_non_null(p);
	assert_string_equal(p->name, "pytorch-trace");
	ft_obs_set_init(&set);
	assert_int_equal(ft_parse_buffer(b, (size_t)(e - b), "frag.json", NULL, &set, NULL, &err), 0);
	assert_int_equal(count_obs(&set, "parse.skipped"), 0);
	/* 2074 + 3950 us of compute inside the 12119 us kernel: 6024 us */
	o = find_obs(&set, "torch.trace.overlap", "GPU0", -1);
	assert_non_null(o);
	assert_true(fabs(o->num - 6024.0 / 12119.0) < 1e-12);
	assert_int_equal(o->rank, -1); /* no distributedInfo in a fragment */
	assert_int_equal(o->line, 1);
	ft_obs_set_release(&set);

	/* cut in the middle of an event: the complete ones count, the cut is named */
	ft_obs_set_init(&set);
	assert_int_equal(ft_parse_buffer(b, (size_t)(e - b) - 40, "cut.json", "pytorch-trace", &set,
					 NULL, &err), 0);
	o = find_obs(&set, "parse.skipped", NULL, -1);
	assert_non_null(o);
	assert_int_equal(o->line, 3);
	o = find_obs(&set, "torch.trace.overlap", "GPU0", -1);
	assert_true(o && fabs(o->num - 2074.0 / 12119.0) < 1e-12);
	ft_obs_set_release(&set);
	ft_strbuf_release(&sb);
}

static void
test_garbage(void **state)
{
	struct ft_rng rng;
	char buf[4096];

	ft_rng_seed(&rng, 5, 0);
	for (int round = 0; round < 200; round++) {
		size_t len = (size_t)(ft_rng_u64(&rng) % sizeof(buf));

		for (size_t i = 0; i < len; i++) {
			uint64_t r = ft_rng_u64(&rng);
			/* mostly text with the punctuation parsers look for */
			static const char alphabet[] = "abcXYZ019 \t\n:.[]()#=-/'\"{},|*%>";

			buf[i] = (r % 16 == 0) ? (char)(r >> 8) :
			                         alphabet[(r >> 8) % (sizeof(alphabet) - 1)];
		}
		for (size_t i = 0; i < ft_parser_count(); i++) {
			struct ft_obs_set set;
			struct ft_run run;
			char *copy = malloc(len ? len : 1);

			memcpy(copy, buf, len);
			ft_obs_set_init(&set);
			ft_run_init(&run, FT_SOURCE_IMPORT, "");
			assert_int_equal(
			        ft_parser_at(i)->parse(copy, len, "g.txt", &set, &run, NULL), 0);
			for (size_t k = 0; k < ft_obs_set_len(&set); k++)
				assert_true(ft_obs_set_at(&set, k)->line <= len + 1);
			ft_obs_set_release(&set);
			ft_run_release(&run);
			free(copy);
		}
	}
}

/* Inputs over 8 MiB take the reserved, huge-page output path: same results. */
static void
test_big_input(void **state)
{
	struct ft_strbuf one, big;
	struct ft_error err = { 0 };
	struct ft_obs_set set;
	struct ft_run run;
	size_t copies = 0;
	const char *body;

	ft_strbuf_init(&one);
	ft_strbuf_init(&big);
	assert_int_equal(ft_strbuf_read_file(&one,
	                                     FIXTURES "/nccl-tests/h100-2node-16gpu-all-"
	                                              "reduce-same-cluster-baseline.txt",
	                                     &err),
	                 0);
	body = strstr(one.buf, "# ---\n");
	assert_non_null(body);
	body += 6;
	while (big.len < (9u << 20)) {
		ft_strbuf_adds(&big, body);
		copies++;
	}
	ft_obs_set_init(&set);
	ft_run_init(&run, FT_SOURCE_IMPORT, "");
	assert_int_equal(
	        ft_parse_buffer(big.buf, big.len, "big.txt", "nccl-tests", &set, &run, &err), 0);
	assert_int_equal(ft_run_nrows(&run), 14 * copies);
	assert_int_equal(count_obs(&set, "bench.busbw"), 14 * copies);
	assert_int_equal(count_obs(&set, "parse.skipped"), 0);
	assert_true(ft_run_row(&run, ft_run_nrows(&run) - 1)->busbw_GBps == 466.73);
	ft_obs_set_release(&set);
	ft_run_release(&run);
	ft_strbuf_release(&one);
	ft_strbuf_release(&big);
}

/* The fast decimal reader agrees with strtod. */
static void
test_numbers(void **state)
{
	static const char *const good[] = { "0",
		                            "469.21",
		                            "17262",
		                            "0.00",
		                            "-1",
		                            "1e-07",
		                            "0e+00",
		                            "92.39",
		                            "6.897101",
		                            "99999999999999.9",
		                            "18446744073709551615" };
	static const char *const bad[] = { "", "N/A", "1.2.3", "12abc", "--1", "inf", "nan" };
	struct ft_rng rng;
	double d;
	uint64_t u;

	for (size_t i = 0; i < FT_ARRAY_SIZE(good); i++) {
		assert_true(ft__dbl(ft__span_c(good[i]), &d));
		assert_true(d == strtod(good[i], NULL));
	}
	for (size_t i = 0; i < FT_ARRAY_SIZE(bad); i++)
		assert_false(ft__dbl(ft__span_c(bad[i]), &d));
	ft_rng_seed(&rng, 7, 0);
	for (int i = 0; i < 20000; i++) {
		char buf[40];
		uint64_t r = ft_rng_u64(&rng);

		snprintf(buf, sizeof(buf), "%" PRIu64 ".%0*" PRIu64, (uint64_t)(r % 1000000000ULL),
		         (int)(1 + (r >> 40) % 6), (uint64_t)((r >> 20) % 100000));
		assert_true(ft__dbl(ft__span_c(buf), &d));
		assert_true(d == strtod(buf, NULL));
	}
	assert_true(ft__u64(ft__span_c("0x02c9"), &u) && u == 0x2c9);
	assert_false(ft__u64(ft__span_c("18446744073709551616"), &u));
}

/*
 * fabtune sim's summary: the makespan in seconds; host links give the rate
 * of the NIC at either end, PCIe and fabric links nothing; a makespan that
 * is not a number of us is a skipped line, not a value.
 */
static void
test_fabtune_sim_summary(void **state)
{
	static const char text[] =
		"scenario x: x.yaml, 16 GPUs on 2 nodes, engine packet, routing ecmp, seed 1\n"
		"\n"
		/* the job table names its columns like nccl-tests, with units glued */
		"job   op          algo   size  ranks  time(us)  algbw(GB/s)  busbw(GB/s)  bottleneck\n"
		"ring  all_reduce  ring  64MiB     32  50158.64         1.34         2.59  tier2\n"
		"\n"
		"makespan: 1027.34 us\n"
		"\n"
		"hottest links:\n"
		"link  from -> to           kind  tier  cap(GB/s)  util  max flows\n"
		" 264  leaf0 -> n0.nic0     host     1       50.0  97.1%        12\n"
		"  34  n0.pcie0 -> n0.nic0  pcie     0       48.0  2.1%          3\n"
		"  83  n1.nic0 -> leaf0     host     1       25.0  8.2%          1\n"
		" 300  leaf0 -> spine1      fabric   2       50.0  8.2%          1\n"
		"\n"
		"makespan: soon\n";
	const struct ft_parser *p = ft_parser_detect(text, sizeof(text) - 1);
	struct ft_obs_set set;
	struct ft_error err = { 0 };
	const struct ft_obs *o;

	assert_non_null(p);
	assert_string_equal(p->name, "fabtune-sim");
	ft_obs_set_init(&set);
	assert_int_equal(ft_parse_buffer(text, sizeof(text) - 1, "sim.txt", NULL, &set, NULL, &err),
			 0);
	o = find_obs(&set, "sim.makespan", "", -1);
	assert_non_null(o);
	assert_true(fabs(o->num - 1027.34e-6) < 1e-15);
	assert_string_equal(o->unit, "s");
	assert_int_equal(o->line, 6);
	assert_int_equal(count_obs(&set, "sim.nic.link_rate"), 2);
	assert_true(find_obs(&set, "sim.nic.link_rate", "n0.nic0", -1)->num == 50.0);
	assert_true(find_obs(&set, "sim.nic.link_rate", "n1.nic0", -1)->num == 25.0);
	assert_int_equal(count_obs(&set, "sim.makespan"), 1);
	assert_int_equal(count_obs(&set, "parse.skipped"), 1);
	ft_obs_set_release(&set);
}

/* A failed run's summary gives its makespan up to the failure, with what it ran to. */
static void
test_fabtune_sim_failed_makespan(void **state)
{
	static const char text[] =
		"scenario torus-deadlock: t.yaml, 128 GPUs on 16 nodes, engine packet, routing "
		"dor, seed 1\n"
		"failed: buffer deadlock found at 530.7us (the last event: nothing moved after "
		"it)\n"
		"\n"
		"makespan: 530.72 us (to the deadlock)\n"
		"makespan: 11036.91 us (to the QP error\n";
	struct ft_obs_set set;
	struct ft_error err = { 0 };
	const struct ft_obs *o;

	(void)state;
	ft_obs_set_init(&set);
	assert_int_equal(ft_parse_buffer(text, sizeof(text) - 1, "sim.txt", "fabtune-sim", &set,
					 NULL, &err),
			 0);
	o = find_obs(&set, "sim.makespan", "", -1);
	assert_non_null(o);
	assert_true(fabs(o->num - 530.72e-6) < 1e-15);
	assert_int_equal(count_obs(&set, "sim.makespan"), 1);
	assert_int_equal(count_obs(&set, "parse.skipped"), 1); /* the unclosed one */
	ft_obs_set_release(&set);
}

/* A parser written the way docs/internals/parse.md says: a run function and one definition. */
static int
ft__demo_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it = ft__pctx_lines(c, text, len);
	struct ft__span s, k, v;
	double d;

	while (ft__next_line(c, &it, &s)) {
		if (ft__tool_error(c, it.lineno, s, "demo: error|demo: fatal"))
			continue;
		if (ft__split(s, ':', &k, &v) && ft__eq(k, "demo") && ft__dbl(v, &d)) {
			ft__emit_num(c, it.lineno, "demo.value", d, NULL);
			continue;
		}
		ft__unread(c, it.lineno, "not demo output", s);
	}
	return c->rc;
}

FT__PARSER(demo, "demo", "a parser for the tests", { 80, { "demo:", "end|stop" } },
           { 55, { "demo:" } });

/* A parser whose detection is its own function: FT__PARSER_SNIFF over the same run. */
static int
sniff_demo_sniff(const char *text, size_t len)
{
	return ft__find((struct ft__span){ text, len }, "demo:") ? 51 : 0;
}

#define ft__sniff_demo_run ft__demo_run
FT__PARSER_SNIFF(sniff_demo, "sniff-demo", "the same run function, its own sniff",
                 sniff_demo_sniff);
#undef ft__sniff_demo_run

static void
test_parser_definition(void **state)
{
	static const char text[] = "# corpus header\n# ---\ndemo: 4.5\n\n$ demo --again\n"
	                           "demo: error on the bus\nnoise\nend\n";
	const struct ft_parser *defs[] = { &ft_demo_parser, &ft_sniff_demo_parser };
	struct ft_error err = { 0 };

	(void)state;
	assert_string_equal(ft_demo_parser.name, "demo");
	assert_int_equal(ft_demo_parser.sniff(text, sizeof(text) - 1), 80);
	assert_int_equal(ft_demo_parser.sniff("demo: 1", 7), 55);
	assert_int_equal(ft_demo_parser.sniff("dem", 3), 0);
	assert_string_equal(ft_sniff_demo_parser.name, "sniff-demo");
	assert_int_equal(ft_sniff_demo_parser.sniff(text, sizeof(text) - 1), 51);
	for (size_t i = 0; i < FT_ARRAY_SIZE(defs); i++) {
		struct ft_obs_set set;
		const struct ft_obs *o;

		ft_obs_set_init(&set);
		assert_int_equal(defs[i]->parse(text, sizeof(text) - 1, "demo.txt", &set, NULL, &err),
		                 0);
		/* the header's two lines are counted; the prompt and the blank line pass */
		assert_int_equal(ft_obs_set_len(&set), 4);
		o = ft_obs_set_at(&set, 0);
		assert_string_equal(o->key, "demo.value");
		assert_true(o->num == 4.5);
		assert_int_equal(o->line, 3);
		o = ft_obs_set_at(&set, 1);
		assert_string_equal(o->key, "tool.error");
		assert_int_equal(o->line, 6);
		o = ft_obs_set_at(&set, 2);
		assert_string_equal(o->str, "not demo output: noise");
		assert_int_equal(o->line, 7);
		assert_string_equal(ft_obs_set_at(&set, 3)->str, "not demo output: end");
		ft_obs_set_release(&set);
	}
}

static const struct ft__sniff_rule sniff_rules[] = {
	{ 90, { "CA '", "CA type:" } },
	{ 70, { "CA '", "Physical state:" } },
	{ 60, { "a", "b", "c", "d" } },
	{ 55, { "x|yy|zzz", "end" } },
	{ 50, { "late" } },
	{ 95, { "late" } }, /* never reached: the rule above holds first */
};

static int
sniff(const char *text)
{
	return ft__sniff_rules(text, strlen(text), sniff_rules, FT_ARRAY_SIZE(sniff_rules));
}

/* Detection rules: every marker of a rule must occur; the first rule that holds scores. */
static void
test_sniff_rules(void **state)
{
	(void)state;
	assert_int_equal(sniff("CA 'mlx5_0'\n\tCA type: MT4123\n\tPhysical state: LinkUp"), 90);
	assert_int_equal(sniff("CA 'mlx5_0'\n\tPhysical state: LinkUp"), 70);
	assert_int_equal(sniff("CA type: MT4123\nPhysical state: LinkUp"), 0);
	assert_int_equal(sniff("d c b a"), 60);
	assert_int_equal(sniff("a b c"), 0);
	/* "x|yy|zzz": any one alternative will do, the last included */
	assert_int_equal(sniff("zzz ... end"), 55);
	assert_int_equal(sniff("yy end"), 55);
	assert_int_equal(sniff("y zz end"), 0);
	assert_int_equal(sniff("too late"), 50);
	assert_int_equal(sniff(""), 0);
	/* the registry hands over a prefix: a marker past @len does not count */
	assert_int_equal(ft__sniff_rules("CA 'x' CA type:", 10, sniff_rules,
	                                 FT_ARRAY_SIZE(sniff_rules)),
	                 0);
	assert_int_equal(ft__sniff_rules("late", 4, sniff_rules, 0), 0);
}

/* The same parser as a line handler: the driver owns the loop and the unread tail. */
static bool
demo_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	unsigned *seen = state;
	struct ft__span k, v;
	double d;

	++*seen;
	if (ft__tool_error(c, line, s, "demo: error|demo: fatal"))
		return true;
	if (ft__split(s, ':', &k, &v) && ft__eq(k, "demo") && ft__dbl(v, &d)) {
		ft__emit_num(c, line, "demo.value", d, NULL);
		return true;
	}
	return false;
}

static void
test_parse_lines(void **state)
{
	static const char text[] = "demo: 4.5\n\n  $ demo --again\r\ndemo: error on the bus\n"
	                           "noise \ndemo: 7";
	struct ft_obs_set a, b;
	struct ft_error err = { 0 };
	struct ft__pctx c;
	unsigned seen = 0;

	(void)state;
	ft_obs_set_init(&a);
	ft_obs_set_init(&b);
	ft__pctx_init(&c, "d.txt", &a, NULL, &err);
	c.line0 = 10;
	assert_int_equal(ft__parse_lines(&c, text, sizeof(text) - 1, demo_line, &seen,
	                                 "not demo output"),
	                 0);
	assert_int_equal(seen, 5); /* the blank line never reaches the handler */
	assert_int_equal(ft_obs_set_len(&a), 4);
	assert_string_equal(ft_obs_set_at(&a, 0)->key, "demo.value");
	assert_int_equal(ft_obs_set_at(&a, 0)->line, 11);
	assert_string_equal(ft_obs_set_at(&a, 1)->key, "tool.error");
	assert_int_equal(ft_obs_set_at(&a, 1)->line, 14);
	assert_string_equal(ft_obs_set_at(&a, 2)->key, "parse.skipped"); /* not the prompt */
	assert_string_equal(ft_obs_set_at(&a, 2)->str, "not demo output: noise");
	assert_int_equal(ft_obs_set_at(&a, 2)->line, 15);
	assert_true(ft_obs_set_at(&a, 3)->num == 7.0);
	/* the loop written out gives the same observations */
	ft__pctx_init(&c, "d.txt", &b, NULL, &err);
	c.line0 = 10;
	assert_int_equal(ft__demo_run(&c, text, sizeof(text) - 1), 0);
	assert_int_equal(ft_obs_set_len(&b), ft_obs_set_len(&a));
	for (size_t i = 0; i < ft_obs_set_len(&a); i++) {
		assert_string_equal(ft_obs_set_at(&a, i)->key, ft_obs_set_at(&b, i)->key);
		assert_int_equal(ft_obs_set_at(&a, i)->line, ft_obs_set_at(&b, i)->line);
	}
	/* without a reason, a line the handler leaves is passed over */
	ft_obs_set_release(&a);
	ft_obs_set_init(&a);
	ft__pctx_init(&c, "d.txt", &a, NULL, &err);
	seen = 0;
	assert_int_equal(ft__parse_lines(&c, text, sizeof(text) - 1, demo_line, &seen, NULL), 0);
	assert_int_equal(seen, 5);
	assert_int_equal(ft_obs_set_len(&a), 3);
	ft_obs_set_release(&a);
	ft_obs_set_release(&b);
}

/*
 * A line no branch read: prompts pass, anything else is parse.skipped with
 * the reason; the tool's own errors; port states in ibstat's spelling.
 */
static void
test_unread(void **state)
{
	/* IB fields: each tool's name, in its block's scope only */
	static const struct {
		enum ft__ib_tool tool;
		bool port;
		const char *name, *val;
		bool read;
	} fields[] = {
		{ FT__IB_IBSTAT, true, "Base lid", "0x1f", true },
		{ FT__IB_VERBS, true, "port_lid", "31", true },
		{ FT__IB_PORTINFO, true, "LinkSpeedActive", "25.78125 Gbps", true },
		{ FT__IB_IBSTAT, false, "Base lid", "1", false }, /* a port field outside a port */
		{ FT__IB_PORTINFO, true, "port_lid", "1", false }, /* another tool's name */
		{ FT__IB_VERBS, false, "phys_port_cnt", "two", true },
	};
	/* port states from every tool's spelling to ibstat's */
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "4: ACTIVE", "Active" },       /* ibstatus, sysfs */
		{ "5: LinkUp", "LinkUp" },
		{ "PORT_ACTIVE (4)", "Active" }, /* ibv_devinfo */
		{ "LINK_UP (5)", "LinkUp" },
		{ "PORT_CONFIGURATION_TRAINING (4)", "PortConfigurationTraining" },
		{ "2: polling", "Polling" },
		{ "Down", "Down" },
		{ "7: Phy Test", "Phy Test" },   /* not known: kept as printed */
		{ "PORT_WEIRD (9)", "PORT_WEIRD" },
	};
	struct ft_obs_set set;
	struct ft_error err = { 0 };
	struct ft__pctx c;

	(void)state;
	ft_obs_set_init(&set);
	ft__pctx_init(&c, "x.txt", &set, NULL, &err);
	ft__unread(&c, 3, "not ibstat output", ft__span_c("[root@h1 ~]# ibstat mlx5_0"));
	ft__unread(&c, 4, "not ibstat output", ft__span_c("$ sudo ibstat"));
	assert_int_equal(ft_obs_set_len(&set), 0);
	ft__unread(&c, 5, "not ibstat output", ft__span_c("  hello\tworld  "));
	assert_int_equal(ft_obs_set_len(&set), 1);
	assert_string_equal(ft_obs_set_at(&set, 0)->key, "parse.skipped");
	assert_string_equal(ft_obs_set_at(&set, 0)->str, "not ibstat output: hello?world");
	assert_int_equal(ft_obs_set_at(&set, 0)->line, 5);
	/* the tool's own error line: one of the alternatives starts it */
	assert_false(ft__tool_error(&c, 6, ft__span_c("ibwar"), "ibpanic:|ibwarn:"));
	assert_true(ft__tool_error(&c, 7, ft__span_c("ibwarn: no port"), "ibpanic:|ibwarn:"));
	assert_int_equal(ft_obs_set_len(&set), 2);
	assert_string_equal(ft_obs_set_at(&set, 1)->key, "tool.error");
	assert_string_equal(ft_obs_set_at(&set, 1)->str, "ibwarn: no port");
	ft_obs_set_release(&set);

	/* libibumad's debug trace is no error; a failure it reports is */
	ft_obs_set_init(&set);
	ft__pctx_init(&c, "x.txt", &set, NULL, &err);
	assert_true(ft__ibwarn(&c, 1, ft__span_c("ibwarn: [168988] umad_init: umad_init")));
	assert_true(ft__ibwarn(&c, 2, ft__span_c("ibwarn: [168988] umad_get_ca: opened mlx4_0")));
	assert_true(ft__ibwarn(&c, 3, ft__span_c("ibwarn: [168950] umad_close_port: closed fd 3")));
	assert_int_equal(ft_obs_set_len(&set), 0);
	assert_false(ft__ibwarn(&c, 4, ft__span_c("ibpanic: [1] main: stat failed")));
	assert_true(ft__ibwarn(&c, 5,
			       ft__span_c("ibwarn: [3925] _do_madrpc: recv failed: Connection timed out")));
	assert_true(ft__ibwarn(&c, 6, ft__span_c("ibwarn: [7] mad_rpc_open_port: can't open UMAD port")));
	assert_int_equal(ft_obs_set_len(&set), 2);
	assert_string_equal(ft_obs_set_at(&set, 0)->key, "tool.error");
	assert_int_equal(ft_obs_set_at(&set, 1)->line, 6);
	ft_obs_set_release(&set);

	ft_obs_set_init(&set);
	ft__pctx_init(&c, "x.txt", &set, NULL, &err);
	for (size_t i = 0; i < FT_ARRAY_SIZE(cases); i++) {
		ft__emit_ib_state(&c, (uint32_t)i, "ib.port.state", ft__span_c(cases[i].in));
		assert_int_equal(ft_obs_set_len(&set), i + 1);
		assert_string_equal(ft_obs_set_at(&set, i)->str, cases[i].out);
	}
	ft__emit_ib_state(&c, 0, "ib.port.state", ft__span_c("  "));
	assert_int_equal(ft_obs_set_len(&set), FT_ARRAY_SIZE(cases));
	for (size_t i = 0; i < FT_ARRAY_SIZE(fields); i++)
		assert_int_equal(ft__ib_field_emit(&c, (uint32_t)i, fields[i].tool, fields[i].port,
		                                   ft__span_c(fields[i].name),
		                                   ft__span_c(fields[i].val)),
		                 fields[i].read);
	{
		const struct ft_obs *o = ft_obs_set_at(&set, FT_ARRAY_SIZE(cases));

		assert_string_equal(o[0].key, "ib.port.lid");
		assert_true(o[0].num == 31.0);
		assert_true(o[1].num == 31.0);
		assert_string_equal(o[2].key, "ib.port.speed_active");
		assert_true(o[2].num == 25.78125);
		assert_string_equal(o[2].unit, "Gbps");
		assert_string_equal(o[2].str, "25.78125 Gbps");
		assert_string_equal(o[3].key, "ib.dev.nports");
		assert_string_equal(o[3].str, "two"); /* not a number: kept as text */
		assert_int_equal(ft_obs_set_len(&set), FT_ARRAY_SIZE(cases) + 4);
	}
	ft_obs_set_release(&set);

	assert_true(ft__starts_any(ft__span_c("Couldn't connect"), "Failed|Couldn't"));
	assert_false(ft__starts_any(ft__span_c("It Failed"), "Failed|Couldn't"));
	assert_true(ft__starts_any(ft__span_c(""), "x|"));
	{
		struct ft__span s = ft__span_c("a PFC7 b PFC0");

		assert_ptr_equal(ft__find_any(s, "PFC0|PFC7"), s.p + 9); /* the first alternative found */
		assert_ptr_equal(ft__find_any(s, "none|PFC7"), s.p + 2);
		assert_null(ft__find_any(s, "none|PFC1"));
	}
}

/*
 * NVUE counters: the numbers the switch rules read, per port and priority,
 * under SONiC's keys; "n/a" is no observation, "0 Bytes" is bytes, and a
 * counters table whose port no command line names is skipped, not guessed.
 */
/*
 * rdma statistic, in the three forms users save (one line per port, -p, sysfs grep): the
 * counters on their device, port and host, whatever the layout; a counter without a value
 * or with text for one is skipped and named, not read as 0.
 */
/* The observation @key on @dev/@port, which must hold @num. */
static const struct ft_obs *
hw_num(const struct ft_obs_set *set, const char *key, const char *dev, int port, double num)
{
	const struct ft_obs *o = find_obs(set, key, dev, port);

	if (!o || !o->has_num || o->num != num)
		fail_msg("%s on %s/%d: not %g", key, dev, port, num);
	return o;
}

static void
test_rdma_stat_facts(void **state)
{
	static const char bad[] = "link mlx5_1/2 out_of_sequence 5 packet_seq_err x "
	                          "local_ack_timeout_err\n";
	static const char shared[] = "/sys/class/infiniband/hw_counters/out_of_sequence:7\n";
	struct ft_obs_set set;
	struct ft_run run;
	struct ft_error err = { 0 };
	const struct ft_obs *o;

	(void)state;
	parse_fixture(FIXTURES
	              "/rdma-statistic/fabtune-sim-ib-nic-down-mlx5_3-retries-exceeded.txt",
	              &set, &run);
	o = hw_num(&set, "ib.hw_counter.local_ack_timeout_err", "mlx5_3", 1, 8);
	assert_string_equal(o->host, "n0");
	(void)hw_num(&set, "ib.hw_counter.req_transport_retries_exceeded", "mlx5_3", 1, 1);
	assert_null(find_obs(&set, "ib.hw_counter.np_cnp_sent", "mlx5_3", 1));
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/rdma-statistic/rdma-p-pretty-layout-mlx5_1-packet-seq-err.txt",
	              &set, &run);
	(void)hw_num(&set, "ib.hw_counter.packet_seq_err", "mlx5_1", 1, 14);
	/* the last pair of the pretty form */
	(void)hw_num(&set, "ib.hw_counter.rx_icrc_encapsulated", "mlx5_1", 1, 0);
	assert_int_equal(ft_obs_set_len(&set), 26);
	ft_obs_set_release(&set);
	ft_run_release(&run);

	parse_fixture(FIXTURES "/rdma-statistic/sysfs-hw-counters-grep-mlx5_3-ack-timeouts.txt",
	              &set, &run);
	o = hw_num(&set, "ib.hw_counter.local_ack_timeout_err", "mlx5_3", 1, 56);
	assert_string_equal(o->host, "n1");
	ft_obs_set_release(&set);
	ft_run_release(&run);

	ft_obs_set_init(&set);
	assert_int_equal(
	        ft_parse_buffer(bad, strlen(bad), "bad.txt", "rdma-statistic", &set, NULL, &err),
	        0);
	(void)hw_num(&set, "ib.hw_counter.out_of_sequence", "mlx5_1", 2, 5);
	assert_null(find_obs(&set, "ib.hw_counter.packet_seq_err", "mlx5_1", 2));
	assert_null(find_obs(&set, "ib.hw_counter.local_ack_timeout_err", "mlx5_1", 2));
	assert_int_equal(ft_obs_set_len(&set), 3); /* and two parse.skipped */
	ft_obs_set_release(&set);

	/* a path whose two markers share a slash names no device: not a counter (fuzzer's find) */
	ft_obs_set_init(&set);
	assert_int_equal(ft_parse_buffer(shared, strlen(shared), "shared.txt", "rdma-statistic",
	                                 &set, NULL, &err),
	                 0);
	assert_null(find_obs(&set, "ib.hw_counter.out_of_sequence", NULL, -1));
	ft_obs_set_release(&set);
}

static void
test_nvue_facts(void **state)
{
	static const char nameless[] = "Counter          Receive  Transmit\n"
				       "---------------  -------  --------\n"
				       "Total Drops      7        9\n";
	static const struct {
		const char *file, *key, *device;
		int port;
		double num;  /* -1: the key is absent */
		size_t count; /* observations of @key in the file */
		const char *unit;
	} want[] = {
		{ "handmade-leaf07-swp7-pfc-tx-prio3-queue-drops", "switch.pfc.tx_prio3", "swp7", -1,
		  1834205, 1, "count" },
		{ "handmade-leaf07-swp7-pfc-tx-prio3-queue-drops", "switch.pfc.rx_prio3", "swp7", -1, 12,
		  1, "count" },
		{ "handmade-leaf07-swp7-pfc-tx-prio3-queue-drops", "switch.pfc.tx_duration_prio3",
		  "swp7", -1, 9817342, 1, "" },
		{ "handmade-leaf07-swp7-pfc-tx-prio3-queue-drops", "switch.if.tx_drp", "swp7", -1, 48211,
		  1, "count" },
		{ "handmade-leaf07-swp7-pfc-tx-prio3-queue-drops", "switch.if.tx_queue_drp", "swp7", -1,
		  48211, 1, "count" },
		/* "n/a": Buffer Drops has no transmit side, Queue Drops no receive side */
		{ "handmade-leaf07-swp7-pfc-tx-prio3-queue-drops", "switch.if.rx_buffer_drp", "swp7", -1,
		  0, 1, "count" },
		{ "handmade-leaf07-swp7-pfc-tx-prio3-queue-drops", "switch.if.rx_queue_drp", NULL, -1, -1,
		  0, NULL },
		/* counters qos (8 priorities) and pfc-stats (8 more) */
		{ "reference-swp1-counters-qos-pfc-egress-queue-all-zero", "switch.pfc.rx_prio5", "swp1",
		  -1, 0, 2, "count" },
		/* queue rows name the traffic class as the port, sizes in bytes */
		{ "reference-swp1-counters-qos-pfc-egress-queue-all-zero", "switch.queue.drop_bytes",
		  "swp1", 6, 0, 16, "bytes" },
		{ "reference-swp1-counters-qos-pfc-egress-queue-all-zero", "switch.queue.wred_drop_pkts",
		  "swp1", 7, 0, 16, "count" },
		{ "reference-swp1-counters-qos-pfc-egress-queue-all-zero", "switch.if.tx_ecn_marked",
		  "swp1", -1, 0, 1, "count" },
		{ "reference-swp1-counters-qos-pfc-egress-queue-all-zero", "parse.skipped", NULL, -1, -1,
		  0, NULL },
		{ "user-guide-5.6-view-counters-all-interfaces", "switch.if.rx_drp", "br_default", -1, 10,
		  31, "count" },
		{ "user-guide-5.6-view-counters-all-interfaces", "switch.if.tx_drp", "mgmt", -1, 4, 31,
		  "count" },
		{ "user-guide-5.6-view-counters-all-interfaces", "switch.if.rx_ok", NULL, -1, -1, 0,
		  NULL },
	};
	struct ft_obs_set set;
	struct ft_run run;
	struct ft_error err = { 0 };
	const struct ft_obs *o;
	char path[256];

	for (size_t i = 0; i < FT_ARRAY_SIZE(want); i++) {
		snprintf(path, sizeof(path), FIXTURES "/nvue/%s.txt", want[i].file);
		parse_fixture(path, &set, &run);
		o = find_obs(&set, want[i].key, want[i].device, want[i].port);
		if (want[i].num < 0 ? o != NULL : !o || o->num != want[i].num)
			fail_msg("%s: %s on %s", path, want[i].key, o ? "unexpected value" : "missing");
		if (o)
			assert_string_equal(o->unit, want[i].unit);
		assert_int_equal(count_obs(&set, want[i].key), want[i].count);
		ft_obs_set_release(&set);
		ft_run_release(&run);
	}

	ft_obs_set_init(&set);
	assert_int_equal(ft_parse_buffer(nameless, sizeof(nameless) - 1, "drops.txt", "nvue", &set,
					 NULL, &err),
			 0);
	assert_int_equal(count_obs(&set, "switch.if.rx_drp"), 0);
	o = find_obs(&set, "parse.skipped", NULL, -1);
	assert_true(o && o->line == 3);
	ft_obs_set_release(&set);
}

/* Observations as a table: one header and one line each, the source column when asked. */
static void
test_obs_write_table(void **state)
{
	struct ft_obs_set set;
	struct ft_obs o;
	struct ft_strbuf sb;

	(void)state;
	ft_obs_set_init(&set);
	ft_obs_init(&o, "ib.port.rate");
	ft_strlcpy(o.device, "mlx5_0", sizeof(o.device));
	o.port = 1;
	o.has_num = true;
	o.num = 400;
	ft_strlcpy(o.unit, "Gbps", sizeof(o.unit));
	o.file = "ibstat.txt";
	o.line = 7;
	assert_int_equal(ft_obs_set_add(&set, &o), 0);
	ft_obs_init(&o, "ib.port.state");
	o.file = "ibstat.txt";
	assert_int_equal(ft_obs_set_add(&set, &o), 0);
	ft_strbuf_init(&sb);
	ft_parse_write_obs(&sb, &set, false);
	assert_non_null(strstr(sb.buf, "entity"));
	assert_null(strstr(sb.buf, "source"));
	assert_non_null(strstr(sb.buf, "400 Gbps"));
	assert_non_null(strstr(sb.buf, "ib.port.state"));
	ft_strbuf_release(&sb);
	ft_strbuf_init(&sb);
	{
		struct ft_obs_set second = ft_parse_obs_since(&set, 1);

		ft_parse_write_obs(&sb, &second, true); /* the second only */
	}
	assert_non_null(strstr(sb.buf, "source"));
	assert_non_null(strstr(sb.buf, "ibstat.txt:0"));
	assert_null(strstr(sb.buf, "400 Gbps"));
	assert_non_null(strstr(sb.buf, " -"));
	ft_strbuf_release(&sb);
	ft_obs_set_release(&set);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_jwalk_events),
		cmocka_unit_test(test_jwalk_strings),
		cmocka_unit_test(test_jwalk_faults),
		cmocka_unit_test(test_jwalk_skipped),
		cmocka_unit_test(test_jwalk_long_names),
		cmocka_unit_test(test_jwalk_utf8),
		cmocka_unit_test(test_json_number_limit),
		cmocka_unit_test(test_jwalk_doc),
		cmocka_unit_test(test_jcur_col),
		cmocka_unit_test(test_parse_lines),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_fixture_goldens),
		cmocka_unit_test(test_real_output_forms),
		cmocka_unit_test(test_rdma_stat_facts),
		cmocka_unit_test(test_ib_facts),
		cmocka_unit_test(test_host_facts),
		cmocka_unit_test(test_nccl_facts),
		cmocka_unit_test(test_bench_facts),
		cmocka_unit_test(test_bundle_split),
		cmocka_unit_test(test_every_parser_every_fixture),
		cmocka_unit_test(test_fragments),
		cmocka_unit_test(test_failure_forms),
		cmocka_unit_test(test_nccl_tests_headerless),
		cmocka_unit_test(test_nccl_tests_short_rows),
		cmocka_unit_test(test_nccl_tests_ranks_from_output),
		cmocka_unit_test(test_nccl_tests_transport_forms),
		cmocka_unit_test(test_torch_trace),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_big_input),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_fabtune_sim_summary),
		cmocka_unit_test(test_fabtune_sim_failed_makespan),
		cmocka_unit_test(test_sniff_rules),
		cmocka_unit_test(test_unread),
		cmocka_unit_test(test_parser_definition),
		cmocka_unit_test(test_nvue_facts),
		cmocka_unit_test(test_parse_model_table),
		cmocka_unit_test(test_parse_pairs_size),
		cmocka_unit_test(test_parse_bench_clock),
		cmocka_unit_test(test_parse_bench_clock_fixtures),
			cmocka_unit_test(test_obs_write_table),
	};

	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * tests/shared/consumer.c - a program of a library user, linked against
 * libfabtune.so alone and built from the public headers alone.
 *
 * With hidden visibility, only FT_API symbols leave the shared library; the
 * CLI and the unit tests link the static archive and would not notice a
 * symbol the API needs but does not export. This program does: it fails to
 * link, or fails here, when the public API is not usable from the .so.
 * Prints TAP.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <fabtune/fabtune.h>

static int failed;
static int n;

static void
check(int ok, const char *what)
{
	n++;
	printf("%s %d - %s\n", ok ? "ok" : "not ok", n, what);
	if (!ok)
		failed++;
}

int
main(void)
{
	struct ft_error err = { 0 };
	struct ft_cluster_spec spec;
	struct ft_topo *topo = NULL;
	struct ft_obs_set obs;
	struct ft_run run;
	const struct ft_result_row *last;

	printf("1..7\n");
	check(strcmp(ft_version(), FT_EXPECTED_VERSION) == 0, "ft_version() is the project's");
	check(strcmp(ft_strerror(FT_ENOMEM), "out of memory") == 0, "ft_strerror(FT_ENOMEM)");

	check(ft_spec_resolve("dgx-h100:4", &spec, &err) == 0, "a preset resolves");
	check(ft_topo_build(&spec, &topo, &err) == 0 && ft_topo_nvertices(topo) > 0,
	      "a topology builds from it");
	ft_topo_free(topo);

	ft_obs_set_init(&obs);
	ft_run_init(&run, FT_SOURCE_IMPORT, "import");
	check(ft_parse_file("tests/fixtures/nccl-tests/"
			    "h100-2node-16gpu-all-reduce-same-cluster-baseline.txt",
			    NULL, &obs, &run, &err) == 0,
	      "an nccl-tests output parses");
	check(ft_run_nrows(&run) == 14, "its 14 rows are read");
	last = ft_run_nrows(&run) ? ft_run_row(&run, ft_run_nrows(&run) - 1) : NULL;
	check(last && last->bytes == 8589934592ull && fabs(last->busbw_GBps - 466.73) < 1e-9,
	      "the last row is 8 GiB at 466.73 GB/s bus bandwidth");
	ft_run_release(&run);
	ft_obs_set_release(&obs);
	if (err.code)
		printf("# %s\n", err.msg);
	return failed ? 1 : 0;
}

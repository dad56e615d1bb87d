/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_simmodel.c - the flow engine as NCCL runs a collective and
 * as the model predicts it: channels on every rail, NVLS on a part of a node,
 * CollNet through the SHARP switches, the tuner's choice, link rates as NCCL
 * achieves them, routing disciplines honoured, and the flow engine agreeing
 * with the model where nothing is congested.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cmocka.h needs the headers above it. */
/* clang-format off */
#include <cmocka.h>
/* clang-format on */

#include <fabtune/fabtune.h>

static void
assert_close_(double a, double b, double tol, const char *file, int line)
{
	if (!(fabs(a - b) <= tol)) {
		print_error("%s:%d: %.9g != %.9g (tolerance %.3g)\n", file, line, a, b, tol);
		fail();
	}
}
#define assert_close(a, b, tol) assert_close_((a), (b), (tol), __FILE__, __LINE__)

static struct ft_scenario *
load_text(const char *text)
{
	struct ft_scenario *sc = NULL;
	struct ft_error err = { 0 };
	int rc = ft_scenario_load_buffer(text, strlen(text), "t.yaml", &sc, &err);

	if (rc < 0)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	return sc;
}

static int
run_text(const char *text, const char *engine, struct ft_sim_report *rep, struct ft_error *err)
{
	struct ft_scenario *sc = load_text(text);
	struct ft_sim_overrides ov;
	int rc;

	ft_sim_overrides_init(&ov);
	ov.engine = engine;
	ft_sim_report_init(rep);
	rc = ft_scenario_run(sc, &ov, NULL, rep, err);
	ft_scenario_free(sc);
	return rc;
}

static void
run_ok(const char *text, const char *engine, struct ft_sim_report *rep)
{
	struct ft_error err = { 0 };
	int rc = run_text(text, engine, rep, &err);

	if (rc < 0)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
}

/* Bytes a port carried, by its name ("n0.nic2 -> leaf0"); 0 when it carried none. */
static double
port_bytes(const struct ft_sim_report *rep, const char *name)
{
	size_t i;

	for (i = 0; i < rep->ports.len; i++) {
		const struct ft_sim_hot_link *h = ft_vec_at(&rep->ports, i);

		if (strcmp(h->name, name) == 0)
			return h->stat.bytes;
	}
	return 0;
}

/* Bytes carried by the links of @kind at tier @tier ("host" 1, "fabric" 2: leaf-spine). */
static double
tier_bytes(const struct ft_sim_report *rep, const char *kind, uint32_t tier)
{
	double b = 0;
	size_t i;

	for (i = 0; i < rep->tiers.len; i++) {
		const struct ft_sim_tier_stat *t = ft_vec_at(&rep->tiers, i);

		if (t->tier == tier && strcmp(t->kind, kind) == 0)
			b += t->bytes;
	}
	return b;
}

static const char four_nic_ring[] =
        "name: t\n"
        "cluster:\n"
        "  name: h100-4nic\n"
        "  nodes: { preset: dgx-h100, count: 4, nics: { count: 4 } }\n"
        "  fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }\n"
        "jobs:\n"
        "  - name: a\n"
        "    ops:\n"
        "      - {op: all_reduce, size: 256MiB, algo: ring, proto: simple}\n";

/*
 * Four NICs for eight GPUs: four channels, one per NIC, so every NIC of
 * every node sends one channel's ring traffic, 2(n-1)/n of S/4 (a rotation
 * of the ranks by one GPU per channel put two channels on NICs 0 and 1 and
 * none on NICs 2 and 3).
 */
static void
test_channels_use_every_nic(void **state)
{
	struct ft_sim_report rep;
	double want = 2.0 * 31 / 32 * (256.0 * 1048576) / 4;
	char name[64];
	uint32_t node, nic;

	(void)state;
	run_ok(four_nic_ring, "flow", &rep);
	for (node = 0; node < 4; node++)
		for (nic = 0; nic < 4; nic++) {
			snprintf(name, sizeof(name), "n%u.nic%u -> leaf0", node, nic);
			assert_close(port_bytes(&rep, name), want, want * 1e-5);
		}
	ft_sim_report_release(&rep);
}

/*
 * On a rail-optimized fat-tree every channel's node-to-node hop stays on its
 * rail: nothing crosses a spine. With eight NICs for eight GPUs the last rank
 * of a channel is not on the channel's rail and reaches it over NVLink (PXN).
 */
static void
test_channels_stay_on_rail(void **state)
{
	static const char text[] = "name: t\n"
	                           "cluster: dgx-h100:4\n"
	                           "routing: ecmp\n"
	                           "jobs:\n"
	                           "  - name: a\n"
	                           "    ops:\n"
	                           "      - {op: all_reduce, size: 64MiB, algo: ring}\n"
	                           "      - {op: all_reduce, size: 64MiB, algo: tree}\n"
	                           "      - {op: all_reduce, size: 64MiB, algo: nvls_tree}\n"
	                           "      - {op: all_gather, size: 64MiB, algo: ring}\n";
	struct ft_sim_report rep;

	(void)state;
	run_ok(text, "flow", &rep);
	assert_true(tier_bytes(&rep, "host", 1) > 0);
	assert_close(tier_bytes(&rep, "fabric", 2), 0, 0);
	ft_sim_report_release(&rep);
}

/* NVLS on 2 to 7 GPUs of one node runs (it spans one NVSwitch domain). */
static void
test_nvls_part_of_a_node(void **state)
{
	char text[512];
	struct ft_sim_report rep;
	double prev = 0;
	uint32_t n;

	(void)state;
	for (n = 2; n <= 8; n++) {
		const struct ft_result_row *r;

		snprintf(text, sizeof(text),
		         "name: t\ncluster: dgx-h100\njobs:\n  - name: a\n    ranks: %u\n"
		         "    ops:\n      - {op: all_reduce, size: 256MiB, algo: nvls}\n",
		         n);
		run_ok(text, "flow", &rep);
		r = ft_run_row(&rep.run, 0);
		assert_int_equal(r->nranks, n);
		assert_string_equal(r->algo, "nvls");
		/* busbw grows with the ranks: the switch reduces, each GPU moves ~S out and in. */
		assert_true(r->busbw_GBps > prev);
		prev = r->busbw_GBps;
		ft_sim_report_release(&rep);
	}
}

/*
 * CollNet with SHARP: each rank sends its shard (S / 8) to the leaf switch
 * that reduces it and gets the reduced shard back, so every NIC host link
 * carries S / 8 each way, and nothing crosses a spine.
 */
static void
test_collnet_sharp_runs(void **state)
{
	static const char text[] =
	        "name: t\n"
	        "cluster:\n"
	        "  name: sharp\n"
	        "  nodes: { preset: dgx-h100, count: 4 }\n"
	        "  fabric: { kind: rail-fat-tree, link: ndr, tiers: 2, radix: 64, sharp: true }\n"
	        "jobs:\n"
	        "  - name: a\n"
	        "    ops:\n"
	        "      - {op: all_reduce, size: 256MiB, algo: collnet}\n";
	struct ft_sim_report rep;
	double shard = 256.0 * 1048576 / 8;

	(void)state;
	run_ok(text, "flow", &rep);
	assert_string_equal(ft_run_row(&rep.run, 0)->algo, "collnet");
	assert_close(port_bytes(&rep, "n0.nic0 -> leaf0"), shard, shard * 1e-6);
	assert_close(port_bytes(&rep, "n3.nic7 -> leaf7"), shard, shard * 1e-6);
	assert_close(tier_bytes(&rep, "fabric", 2), 0, 0);
	ft_sim_report_release(&rep);
}

/*
 * Without --algo the flow engine runs what NCCL's tuner picks, the model's
 * choice, size by size: at 1,984 ranks (248 DGX H100) a 256 MiB all-reduce
 * is NVLSTree (about 295 GB/s busbw in both), not a ring of 3,966 steps
 * (37 GB/s); small sizes take the tree, as in the model.
 */
static void
test_flow_picks_as_the_tuner(void **state)
{
	static const uint64_t sizes[] = { 4096, 1u << 20, 256u << 20 };
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };
	size_t i;

	(void)state;
	assert_int_equal(ft_spec_resolve("dgx-h100:248", &spec, &err), 0);
	for (i = 0; i < FT_ARRAY_SIZE(sizes); i++) {
		struct ft_sim_sweep_args sw = { .spec = "dgx-h100:248",
			                        .op = FT_OP_ALL_REDUCE,
			                        .algo = FT_ALGO_COUNT,
			                        .proto = FT_PROTO_COUNT,
			                        .min_bytes = sizes[i],
			                        .max_bytes = sizes[i] };
		struct ft_scenario *sc = NULL;
		struct ft_sim_overrides ov;
		struct ft_sim_report rep;
		struct ft_model_query q;
		struct ft_model_result m;
		const struct ft_result_row *r;

		ft_model_query_init(&q, FT_OP_ALL_REDUCE, sizes[i]);
		assert_int_equal(ft_model_eval(&spec, &q, &m, &err), 0);
		assert_int_equal(ft_scenario_from_op(&sw, &sc, &err), 0);
		ft_sim_overrides_init(&ov);
		ft_sim_report_init(&rep);
		assert_int_equal(ft_scenario_run(sc, &ov, NULL, &rep, &err), 0);
		r = ft_run_row(&rep.run, 0);
		assert_string_equal(r->algo, ft_algo_name(m.algo));
		assert_string_equal(r->proto, ft_proto_name(m.proto));
		if (sizes[i] >= (256u << 20)) {
			assert_string_equal(r->algo, "nvls_tree");
			assert_close(r->busbw_GBps, m.busbw_Bps / 1e9, 0.1 * m.busbw_Bps / 1e9);
		}
		ft_sim_report_release(&rep);
		ft_scenario_free(sc);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_channels_use_every_nic),
		cmocka_unit_test(test_channels_stay_on_rail),
		cmocka_unit_test(test_nvls_part_of_a_node),
		cmocka_unit_test(test_collnet_sharp_runs),
		cmocka_unit_test(test_flow_picks_as_the_tuner),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-model.c - `fabtune model`: what each size of a collective should
 * achieve on a cluster, as an nccl-tests-shaped table (or JSON), with the
 * algorithm and protocol NCCL's tuner would pick and the bottleneck.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <fabtune/fabtune.h>

#include "cli.h"
#include "glue.h"

struct model_opts {
	const char *op;
	uint64_t minbytes, maxbytes, factor;
	uint64_t gpus, nodes, ppn, channels;
	const char *algo, *proto;
};

/* nccl-tests prints times with fewer decimals as they grow. */
static void
add_time(struct ft_strbuf *sb, double us)
{
	if (us >= 10000.0)
		ft_strbuf_addf(sb, "  %8.0f", us);
	else if (us >= 100.0)
		ft_strbuf_addf(sb, "  %8.1f", us);
	else
		ft_strbuf_addf(sb, "  %8.2f", us);
}

static void
render_text(const struct ft_cluster_spec *spec, const struct ft_model_result *first,
            const struct ft_run *run, struct ft_strbuf *sb)
{
	const struct ft_node_spec *n = &spec->node;
	size_t i;

	ft_strbuf_addf(sb, "# fabtune model: %s\n", spec->name);
	ft_strbuf_addf(sb, "#  %u node%s x %u GPU%s %s", first->nnodes,
	               first->nnodes == 1 ? "" : "s", first->ppn, first->ppn == 1 ? "" : "s",
	               n->gpu_model[0] ? n->gpu_model : "(unnamed)");
	if (n->nvlink_gen)
		ft_strbuf_addf(sb, ", NVLink %u%s", n->nvlink_gen,
		               n->nvswitch ? (n->nvls ? " NVSwitch+NVLS" : " NVSwitch") : "");
	else
		ft_strbuf_addf(sb, ", PCIe Gen%u", n->pcie_gen);
	if (first->nnodes > 1)
		ft_strbuf_addf(sb, ", %u NICs/node %s, fabric %s", n->nnics,
		               n->nic_link[0] ? n->nic_link : "",
		               ft_fabric_kind_name(spec->fabric.kind));
	ft_strbuf_addf(sb, "\n#  %s on %u ranks, %u channels\n#\n", ft_op_name(first->op),
	               first->nranks, first->nchannels);
	ft_strbuf_adds(sb,
	               "#       size         count      type   redop    root      time   algbw   "
	               "busbw  algo              proto   bottleneck\n");
	ft_strbuf_adds(sb,
	               "#        (B)    (elements)                                (us)  (GB/s)  "
	               "(GB/s)\n");
	for (i = 0; i < ft_run_nrows(run); i++) {
		const struct ft_result_row *r = ft_run_row(run, i);

		ft_strbuf_addf(sb, "%12" PRIu64 "  %12" PRIu64 "  %8s  %6s  %6d", r->bytes,
		               r->count, r->dtype, r->redop, r->root);
		add_time(sb, r->time_us);
		ft_strbuf_addf(sb, "  %6.2f  %6.2f  %-16s  %-6s  %s\n", r->algbw_GBps,
		               r->busbw_GBps, r->algo, r->proto, r->bottleneck);
	}
}

static void
render_json(const struct ft_cluster_spec *spec, const struct ft_model_result *first,
            const struct ft_run *run, struct ft_strbuf *sb)
{
	struct ft_json j;
	size_t i;

	ft_json_init(&j, sb, false);
	ft_json_obj_begin(&j);
	ft_json_kv_str(&j, "spec", spec->name);
	ft_json_kv_str(&j, "source", "model");
	ft_json_kv_str(&j, "op", ft_op_name(first->op));
	ft_json_kv_uint(&j, "nranks", first->nranks);
	ft_json_kv_uint(&j, "nnodes", first->nnodes);
	ft_json_kv_uint(&j, "ranks_per_node", first->ppn);
	ft_json_kv_uint(&j, "nchannels", first->nchannels);
	ft_json_key(&j, "rows");
	ft_json_arr_begin(&j);
	for (i = 0; i < ft_run_nrows(run); i++) {
		const struct ft_result_row *r = ft_run_row(run, i);

		ft_json_obj_begin(&j);
		ft_json_kv_uint(&j, "bytes", r->bytes);
		ft_json_kv_uint(&j, "count", r->count);
		ft_json_kv_str(&j, "type", r->dtype);
		ft_json_kv_str(&j, "redop", r->redop);
		ft_json_kv_int(&j, "root", r->root);
		ft_json_key(&j, "time_us");
		ft_json_double_prec(&j, r->time_us, 6);
		ft_json_key(&j, "algbw_GBps");
		ft_json_double_prec(&j, r->algbw_GBps, 6);
		ft_json_key(&j, "busbw_GBps");
		ft_json_double_prec(&j, r->busbw_GBps, 6);
		ft_json_kv_str(&j, "algo", r->algo);
		ft_json_kv_str(&j, "proto", r->proto);
		ft_json_kv_str(&j, "bottleneck", r->bottleneck);
		ft_json_obj_end(&j);
	}
	ft_json_arr_end(&j);
	ft_json_obj_end(&j);
	ft_strbuf_addch(sb, '\n');
}

/* Fill @q from the options; usage errors are printed and return EXIT_USAGE. */
static int
build_query(const struct model_opts *o, struct ft_model_query *q, struct cli_ctx *ctx)
{
	enum ft_op op;

	if (ft_op_from_name(o->op, &op) < 0) {
		cli_error(ctx,
		          "--op: expected all_reduce, all_gather, reduce_scatter, broadcast, "
		          "reduce, alltoall or sendrecv, got '%s'",
		          o->op);
		return EXIT_USAGE;
	}
	ft_model_query_init(q, op, 0);
	if (o->algo) {
		q->force_algo = true;
		if (ft_algo_from_name(o->algo, &q->algo) < 0) {
			cli_error(ctx,
			          "--algo: expected ring, tree, nvls, nvls_tree, collnet, "
			          "halving_doubling, direct or hierarchical, got '%s'",
			          o->algo);
			return EXIT_USAGE;
		}
	}
	if (o->proto) {
		q->force_proto = true;
		if (ft_proto_from_name(o->proto, &q->proto) < 0) {
			cli_error(ctx, "--proto: expected simple, ll or ll128, got '%s'", o->proto);
			return EXIT_USAGE;
		}
	}
	if (o->ppn > UINT32_MAX) {
		cli_error(ctx, "--ppn: value out of range");
		return EXIT_USAGE;
	}
	if (o->gpus > UINT32_MAX || o->nodes > UINT32_MAX || o->channels > 64) {
		cli_error(ctx, "%s: value out of range",
		          o->channels > 64     ? "--channels (at most 64)" :
		          o->gpus > UINT32_MAX ? "--gpus" :
		                                 "--nodes");
		return EXIT_USAGE;
	}
	q->ngpus = (uint32_t)o->gpus;
	q->nnodes = (uint32_t)o->nodes;
	q->ppn = (uint32_t)o->ppn;
	q->nchannels = (uint32_t)o->channels;
	return EXIT_OK;
}

int
cmd_model(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = {
		"fabtune model SPEC [--op OP] [-b SIZE] [-e SIZE] [-f N] [--gpus N] [--nodes N] [--ppn N] "
		"[--algo ALGO] [--proto PROTO] [--channels N]",
		NULL,
	};
	bool save = false;
	struct model_opts o = {
		.op = "all_reduce", .minbytes = 8, .maxbytes = 8ull << 30, .factor = 2
	};
	const struct opt opts[] = {
		OPT_STRING(0, "op", &o.op, "OP",
		           "all_reduce (default), all_gather, reduce_scatter, broadcast, reduce, "
		           "alltoall, sendrecv"),
		OPT_SIZE('b', "minbytes", &o.minbytes, "smallest size (default 8)"),
		OPT_SIZE('e', "maxbytes", &o.maxbytes, "largest size (default 8G)"),
		OPT_U64('f', "stepfactor", &o.factor, "N",
		        "multiply the size by N each row (default 2)"),
		OPT_U64(0, "gpus", &o.gpus, "N",
		        "use the first N GPUs (N <= GPUs per node: one node)"),
		OPT_U64(0, "nodes", &o.nodes, "N", "override the spec's node count"),
		OPT_U64(0, "ppn", &o.ppn, "N", "ranks per node: the first N GPUs of each node"),
		OPT_STRING(
		        0, "algo", &o.algo, "ALGO",
		        "force an algorithm, as NCCL_ALGO: ring, tree, nvls, nvls_tree, collnet, "
		        "halving_doubling, direct, hierarchical"),
		OPT_STRING(0, "proto", &o.proto, "PROTO",
		           "force a protocol, as NCCL_PROTO: simple, ll, ll128"),
		OPT_U64(0, "channels", &o.channels, "N", "NCCL channels (default: one per NVLink)"),
		OPT_BOOL(0, "save", &save, "store the expected rows in the archive"),
		OPT_END(),
	};
	const struct cmd_usage usage = {
		"model",
		synopsis,
		"Expected time, algbw and busbw of a collective on a cluster, size by size, "
		"with the algorithm and protocol NCCL's tuner picks and the bottleneck.",
		opts,
	};
	struct ft_cluster_spec spec;
	struct ft_model_query q;
	struct ft_model_result first;
	struct ft_error err = { 0 };
	struct ft_run run;
	struct ft_strbuf sb;
	int n, rc;

	n = opts_parse(&usage, ctx, argc, argv);
	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	if (n != 1) {
		cli_error(ctx,
		          n == 0 ? "expected a SPEC (a spec file or a preset like dgx-h100:64)" :
		                   "expected one SPEC, got %d arguments",
		          n);
		return EXIT_USAGE;
	}
	if (o.minbytes == 0 || o.maxbytes == 0 || o.minbytes > o.maxbytes) {
		cli_error(ctx, "%s",
		          o.minbytes == 0 ? "-b/--minbytes: must be at least 1 byte" :
		          o.maxbytes == 0 ? "-e/--maxbytes: must be at least 1 byte" :
		                            "-b/--minbytes: larger than -e/--maxbytes");
		return EXIT_USAGE;
	}
	rc = build_query(&o, &q, ctx);
	if (rc != EXIT_OK)
		return rc;
	rc = ft_spec_resolve(argv[1], &spec, &err);
	if (rc < 0)
		return cli_fail(ctx, rc, &err);
	if (q.nnodes && q.nnodes != spec.nnodes) {
		/* --nodes meets the capacity check that a spec's own node count meets */
		struct ft_cluster_spec probe = spec;
		uint64_t cap;

		/* as a preset of that many nodes would, grow the fat-tree to 3 tiers */
		probe.nnodes = q.nnodes;
		probe.fabric.tiers = FT_MAX(spec.fabric.tiers, 3u);
		cap = ft_spec_fabric_capacity(&probe);
		if (q.nnodes > cap) {
			cli_error(ctx,
			          "--nodes: expected at most %" PRIu64 " nodes on %s's fabric "
			          "(%u-tier %s of radix-%u switches), got %u",
			          cap, spec.name, probe.fabric.tiers,
			          ft_fabric_kind_name(spec.fabric.kind), spec.fabric.radix,
			          q.nnodes);
			return EXIT_USAGE;
		}
	}
	q.bytes = o.maxbytes;
	rc = ft_model_eval(&spec, &q, &first, &err);
	ft_run_init(&run, FT_SOURCE_MODEL, "model");
	ft_strlcpy(run.spec, spec.name, sizeof(run.spec));
	if (rc == 0)
		rc = ft_model_sweep(&spec, &q, o.minbytes, o.maxbytes, o.factor, &run, &err);
	if (rc < 0) {
		ft_run_release(&run);
		cli_error(ctx, "%s", ft_error_msg(&err, rc));
		return rc == FT_ENOTSUP ? EXIT_USAGE : cli_exit_for(rc);
	}
	ft_strbuf_init(&sb);
	if (ctx->json)
		render_json(&spec, &first, &run, &sb);
	else
		render_text(&spec, &first, &run, &sb);
	cli_write(&sb);
	ft_strbuf_release(&sb);
	rc = EXIT_OK;
	if (save) {
		snprintf(run.label, sizeof(run.label), "model %s --op %s", argv[1], o.op);
		if (cli_save_run(ctx, &run, NULL, NULL, 0) < 0)
			rc = EXIT_RUNTIME;
	}
	ft_run_release(&run);
	return rc;
}

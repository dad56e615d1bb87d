/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-model.c - `fabtune model`: what each size of a collective should
 * achieve on a cluster, as an nccl-tests-shaped table (or JSON), with the
 * algorithm and protocol NCCL's tuner would pick and the bottleneck.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fabtune/fabtune.h>

#include "cli.h"
#include "cli-archive.h"

struct model_opts {
	const char *op;
	uint64_t minbytes, maxbytes, factor;
	uint64_t gpus, nodes, ppn, channels;
	uint64_t explain; /* --explain SIZE; 0: not asked */
	bool calibrate;   /* --calibrate FILE... */
	const char *nccl; /* --nccl VERSION */
	bool cuda_graph;  /* --cuda-graph */
	bool tuner_only;  /* --tuner-only */
	bool op_given;
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
	if (n->nvlink_domain_nodes > 1 && first->ppn > n->ngpus)
		ft_strbuf_addf(sb, "#  %u NVLink domain%s of %u nodes x %u GPUs %s", first->nnodes,
		               first->nnodes == 1 ? "" : "s", first->ppn / n->ngpus, n->ngpus,
		               n->gpu_model[0] ? n->gpu_model : "(unnamed)");
	else
		ft_strbuf_addf(sb, "#  %u node%s x %u GPU%s %s", first->nnodes,
		               first->nnodes == 1 ? "" : "s", first->ppn,
		               first->ppn == 1 ? "" : "s", n->gpu_model[0] ? n->gpu_model : "(unnamed)");
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

/* "ring/simple" into @buf. */
static const char *
pair_name(enum ft_algo a, enum ft_proto p, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", ft_algo_name(a), ft_proto_name(p));
	return buf;
}

/* What a bottleneck name means, for the --explain view. */
static const char *
bound_words(const char *b)
{
	if (strcmp(b, "channels") == 0)
		return " (NCCL's per-channel cap: more channels lift it)";
	if (strcmp(b, "protocol") == 0)
		return " (LL's absolute cap)";
	if (strcmp(b, "latency") == 0)
		return " (the latency term is the larger)";
	if (strcmp(b, "proxy") == 0)
		return " (the proxy thread's messages take longer than the data)";
	if (strcmp(b, "launch") == 0)
		return " (the host launches operations slower than the GPU runs them)";
	if (strcmp(b, "tier1") == 0 || strcmp(b, "global") == 0)
		return " (the fabric's share of the NIC rate)";
	return " (the slowest link class on the way)";
}

/* The pipeline terms of the pick (docs/internals/model.md, "The pipeline"). */
static void
explain_pipe(const struct ft_model_pipeline *pl, const struct ft_model_result *r,
             struct ft_strbuf *sb)
{
	if (r->calibrated) {
		ft_strbuf_adds(sb, "#    pipeline    replaced by the spec's calibration\n");
		return;
	}
	if (pl->nchannels == 0) {
		ft_strbuf_addf(sb, "#    launch      %.2f us host launch floor%s\n", pl->launch_s * 1e6,
		               pl->launch_s > 0 ? "" : " (CUDA graph)");
		return;
	}
	ft_strbuf_addf(sb,
	               "#    pipeline    %u channel%s launched (bandwidth x %.2f), chunk %" PRIu64
	               " B, %" PRIu64 " loop%s, %u stage%s: ramp %.2f us\n",
	               pl->nchannels, pl->nchannels == 1 ? "" : "s", pl->bw_share, pl->chunk_bytes,
	               pl->loops, pl->loops == 1 ? "" : "s", pl->stages, pl->stages == 1 ? "" : "s",
	               pl->ramp_s * 1e6);
	ft_strbuf_addf(sb,
	               "#    floors      proxy %.0f messages = %.2f us, host launch %.2f us%s\n",
	               pl->messages, pl->proxy_s * 1e6, pl->launch_s * 1e6,
	               pl->launch_s > 0 ? "" : " (CUDA graph)");
	ft_strbuf_addf(sb, "#    time        %.2f us\n", r->time_s * 1e6);
}

static void
explain_text(const struct ft_cluster_spec *spec, const struct ft_model_explain *ex,
             struct ft_strbuf *sb)
{
	const struct ft_model_links *l = &ex->links;
	const struct ft_model_result *r = &ex->result;
	char name[48];
	size_t i;

	ft_strbuf_addf(sb, "# fabtune model --explain: %s\n", spec->name);
	ft_strbuf_addf(sb, "#  %s of %" PRIu64 " bytes on %u ranks (%u node%s x %u), %u channels\n",
	               ft_op_name(r->op), r->bytes, r->nranks, r->nnodes,
	               r->nnodes == 1 ? "" : "s", r->ppn, r->nchannels);
	ft_strbuf_addf(sb, "#  links: %s %.1f GB/s per GPU", l->intra_what, l->intra_Bps / 1e9);
	if (l->nnodes > 1)
		ft_strbuf_addf(sb, ", %u rail%s x %.2f GB/s (%s), fabric share %.2f (ring %.2f), "
		               "fabric latency %.2f us",
		               l->nrails, l->nrails == 1 ? "" : "s", l->nic_Bps / 1e9, l->nic_what,
		               l->a2a_factor, l->ring_tier_factor, l->fabric_lat_s * 1e6);
	ft_strbuf_adds(sb, "\n#\n");
	if (ex->pick < ex->ncandidates) {
		const struct ft_model_candidate *k = &ex->cand[ex->pick];
		double lat = k->lat_s * k->lat_factor, bw = k->bw_Bps * k->bw_factor;

		ft_strbuf_addf(sb, "#  picked %s; NCCL's tuner: %.2f us = latency %.2f us + size / bandwidth %.2f us\n",
		               pair_name(k->algo, k->proto, name, sizeof(name)), k->time_s * 1e6,
		               lat * 1e6, (double)r->bytes / bw * 1e6);
		ft_strbuf_addf(sb, "#    latency     base %.2f us + steps %.2f us", k->base_s * 1e6,
		               (k->lat_s - k->base_s) * 1e6);
		if (k->lat_factor != 1.0)
			ft_strbuf_addf(sb, ", x %.2f (ring plateau)", k->lat_factor);
		ft_strbuf_addf(sb, "\n#    bandwidth   %.2f GB/s algorithm bandwidth", k->bw_Bps / 1e9);
		if (k->bw_factor != 1.0)
			ft_strbuf_addf(sb, " x %.2f (tree correction at this size)", k->bw_factor);
		ft_strbuf_addf(sb, ", busbw %.2f GB/s\n", r->busbw_Bps / 1e9);
		ft_strbuf_addf(sb, "#    binds       %s%s\n", r->bottleneck, bound_words(r->bottleneck));
		explain_pipe(&r->pipe, r, sb);
	} else {
		ft_strbuf_addf(sb, "#  one rank: nothing moves, %.2f us of launch latency\n",
		               r->time_s * 1e6);
	}
	if (ex->ncandidates == 0)
		return;
	ft_strbuf_adds(sb, "#\n#  algo/proto                time(us)  latency(us)  algbw(GB/s)  "
	                   "bound or why not\n");
	for (i = 0; i < ex->ncandidates; i++) {
		const struct ft_model_candidate *k = &ex->cand[i];

		pair_name(k->algo, k->proto, name, sizeof(name));
		if (!k->available) {
			ft_strbuf_addf(sb, "   %-24s  %8s  %11s  %11s  %s\n", name, "-", "-", "-",
			               k->why);
			continue;
		}
		ft_strbuf_addf(sb, "%s %-24s  %8.2f  %11.2f  %11.2f  %s\n",
		               i == ex->pick ? " *" : "  ", name, k->time_s * 1e6,
		               k->lat_s * k->lat_factor * 1e6,
		               r->bytes ? (double)r->bytes / k->time_s / 1e9 : 0.0, k->bottleneck);
	}
}

static void
explain_json(const struct ft_cluster_spec *spec, const struct ft_model_explain *ex,
             struct ft_strbuf *sb)
{
	const struct ft_model_links *l = &ex->links;
	const struct ft_model_result *r = &ex->result;
	struct ft_json j;
	size_t i;

	ft_json_init(&j, sb, false);
	ft_json_obj_begin(&j);
	ft_json_kv_str(&j, "spec", spec->name);
	ft_json_kv_str(&j, "op", ft_op_name(r->op));
	ft_json_kv_uint(&j, "bytes", r->bytes);
	ft_json_kv_uint(&j, "nranks", r->nranks);
	ft_json_kv_uint(&j, "nnodes", r->nnodes);
	ft_json_kv_uint(&j, "ranks_per_node", r->ppn);
	ft_json_kv_uint(&j, "nchannels", r->nchannels);
	ft_json_key(&j, "links");
	ft_json_obj_begin(&j);
	ft_json_kv_str(&j, "intra", l->intra_what);
	ft_json_key(&j, "intra_GBps");
	ft_json_double_prec(&j, l->intra_Bps / 1e9, 6);
	ft_json_kv_uint(&j, "rails", l->nrails);
	ft_json_kv_str(&j, "nic", l->nic_what);
	ft_json_key(&j, "nic_GBps");
	ft_json_double_prec(&j, l->nic_Bps / 1e9, 6);
	ft_json_key(&j, "a2a_share");
	ft_json_double_prec(&j, l->a2a_factor, 6);
	ft_json_key(&j, "ring_share");
	ft_json_double_prec(&j, l->ring_tier_factor, 6);
	ft_json_key(&j, "fabric_latency_us");
	ft_json_double_prec(&j, l->fabric_lat_s * 1e6, 6);
	ft_json_obj_end(&j);
	ft_json_kv_str(&j, "algo", ft_algo_name(r->algo));
	ft_json_kv_str(&j, "proto", ft_proto_name(r->proto));
	ft_json_key(&j, "time_us");
	ft_json_double_prec(&j, r->time_s * 1e6, 6);
	ft_json_key(&j, "busbw_GBps");
	ft_json_double_prec(&j, r->busbw_Bps / 1e9, 6);
	ft_json_kv_str(&j, "bottleneck", r->bottleneck);
	ft_json_kv_bool(&j, "calibrated", r->calibrated);
	ft_json_key(&j, "pipeline");
	ft_json_obj_begin(&j);
	ft_json_kv_uint(&j, "nchannels", r->pipe.nchannels);
	ft_json_key(&j, "bandwidth_share");
	ft_json_double_prec(&j, r->pipe.bw_share, 6);
	ft_json_kv_uint(&j, "chunk_bytes", r->pipe.chunk_bytes);
	ft_json_kv_uint(&j, "loops", r->pipe.loops);
	ft_json_kv_uint(&j, "stages", r->pipe.stages);
	ft_json_key(&j, "ramp_us");
	ft_json_double_prec(&j, r->pipe.ramp_s * 1e6, 6);
	ft_json_key(&j, "proxy_messages");
	ft_json_double_prec(&j, r->pipe.messages, 6);
	ft_json_key(&j, "proxy_us");
	ft_json_double_prec(&j, r->pipe.proxy_s * 1e6, 6);
	ft_json_key(&j, "launch_us");
	ft_json_double_prec(&j, r->pipe.launch_s * 1e6, 6);
	ft_json_obj_end(&j);
	ft_json_key(&j, "candidates");
	ft_json_arr_begin(&j);
	for (i = 0; i < ex->ncandidates; i++) {
		const struct ft_model_candidate *k = &ex->cand[i];

		ft_json_obj_begin(&j);
		ft_json_kv_str(&j, "algo", ft_algo_name(k->algo));
		ft_json_kv_str(&j, "proto", ft_proto_name(k->proto));
		ft_json_kv_bool(&j, "picked", i == ex->pick);
		if (!k->available) {
			ft_json_kv_str(&j, "why_not", k->why);
			ft_json_obj_end(&j);
			continue;
		}
		ft_json_key(&j, "time_us");
		ft_json_double_prec(&j, k->time_s * 1e6, 6);
		ft_json_key(&j, "base_latency_us");
		ft_json_double_prec(&j, k->base_s * 1e6, 6);
		ft_json_key(&j, "step_latency_us");
		ft_json_double_prec(&j, (k->lat_s - k->base_s) * 1e6, 6);
		ft_json_key(&j, "latency_factor");
		ft_json_double_prec(&j, k->lat_factor, 6);
		ft_json_key(&j, "algbw_GBps");
		ft_json_double_prec(&j, k->bw_Bps / 1e9, 6);
		ft_json_key(&j, "bandwidth_factor");
		ft_json_double_prec(&j, k->bw_factor, 6);
		ft_json_key(&j, "bandwidth_us");
		ft_json_double_prec(&j, (double)r->bytes / (k->bw_Bps * k->bw_factor) * 1e6, 6);
		ft_json_kv_str(&j, "bottleneck", k->bottleneck);
		ft_json_obj_end(&j);
	}
	ft_json_arr_end(&j);
	ft_json_obj_end(&j);
	ft_strbuf_addch(sb, '\n');
}

/* `fabtune model SPEC --explain SIZE`: one size, with its working. */
static int
run_explain(const struct ft_cluster_spec *spec, struct ft_model_query *q, uint64_t bytes,
            struct cli_ctx *ctx)
{
	struct ft_model_explain *ex = calloc(1, sizeof(*ex));
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	int rc;

	if (!ex) {
		cli_error(ctx, "out of memory");
		return EXIT_RUNTIME;
	}
	q->bytes = bytes;
	rc = ft_model_explain(spec, q, ex, &err);
	if (rc < 0) {
		free(ex);
		cli_error(ctx, "%s", ft_error_msg(&err, rc));
		return rc == FT_ENOTSUP ? EXIT_USAGE : cli_exit_for(rc);
	}
	ft_strbuf_init(&sb);
	if (ctx->json)
		explain_json(spec, ex, &sb);
	else
		explain_text(spec, ex, &sb);
	cli_write(&sb);
	ft_strbuf_release(&sb);
	free(ex);
	return EXIT_OK;
}

static void
calib_text(const char *file, const struct ft_model_calib *c, struct ft_strbuf *sb)
{
	size_t i;

	ft_strbuf_addf(sb, "# %s: %s on %u ranks, %zu sizes\n", file, ft_op_name(c->op), c->nranks,
	               c->npoints);
	ft_strbuf_addf(sb,
	               "#  fit: time = %.2f us + %.3f x latency + %.3f x size / bandwidth "
	               "(%.1f%% of the model's bandwidth achieved)\n",
	               c->fixed_s * 1e6, c->lat_scale, c->bw_scale,
	               c->bw_scale > 0 ? 100.0 / c->bw_scale : 0.0);
	ft_strbuf_addf(sb,
	               "#  median error: model %.1f%%, fit %.1f%%, leave-one-out %.1f%% "
	               "(max %.1f%%)\n#\n",
	               c->model_median_err * 100, c->fit_median_err * 100,
	               c->loo_median_err * 100, c->loo_max_err * 100);
	ft_strbuf_adds(sb, "#         size  measured(us)     model(us)       fit(us)  "
	                   "leave-1-out(us)  error\n");
	for (i = 0; i < c->npoints; i++) {
		const struct ft_model_calib_point *p = &c->pts[i];

		ft_strbuf_addf(sb, "%14" PRIu64 "  %12.2f  %12.2f  %12.2f  %15.2f  %5.1f%%\n",
		               p->bytes, p->time_s * 1e6, p->model_s * 1e6, p->fit_s * 1e6,
		               p->loo_s * 1e6, p->loo_err * 100);
	}
	ft_strbuf_adds(sb, "#\n");
}

static void
calib_json(const char *file, const struct ft_model_calib *c, struct ft_json *j)
{
	size_t i;

	ft_json_obj_begin(j);
	ft_json_kv_str(j, "file", file);
	ft_json_kv_str(j, "op", ft_op_name(c->op));
	ft_json_kv_uint(j, "nranks", c->nranks);
	ft_json_key(j, "fixed_us");
	ft_json_double_prec(j, c->fixed_s * 1e6, 6);
	ft_json_key(j, "latency_scale");
	ft_json_double_prec(j, c->lat_scale, 6);
	ft_json_key(j, "bandwidth_scale");
	ft_json_double_prec(j, c->bw_scale, 6);
	ft_json_key(j, "model_median_err");
	ft_json_double_prec(j, c->model_median_err, 6);
	ft_json_key(j, "fit_median_err");
	ft_json_double_prec(j, c->fit_median_err, 6);
	ft_json_key(j, "loo_median_err");
	ft_json_double_prec(j, c->loo_median_err, 6);
	ft_json_key(j, "loo_max_err");
	ft_json_double_prec(j, c->loo_max_err, 6);
	ft_json_key(j, "points");
	ft_json_arr_begin(j);
	for (i = 0; i < c->npoints; i++) {
		const struct ft_model_calib_point *p = &c->pts[i];

		ft_json_obj_begin(j);
		ft_json_kv_uint(j, "bytes", p->bytes);
		ft_json_key(j, "time_us");
		ft_json_double_prec(j, p->time_s * 1e6, 6);
		ft_json_key(j, "model_us");
		ft_json_double_prec(j, p->model_s * 1e6, 6);
		ft_json_key(j, "fit_us");
		ft_json_double_prec(j, p->fit_s * 1e6, 6);
		ft_json_key(j, "loo_us");
		ft_json_double_prec(j, p->loo_s * 1e6, 6);
		ft_json_key(j, "loo_err");
		ft_json_double_prec(j, p->loo_err, 6);
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
	ft_json_obj_end(j);
}

/* The rank count of the first row of @run testing @op; 0 when none. */
static uint32_t
run_nranks(const struct ft_run *run, enum ft_op op)
{
	size_t i;

	for (i = 0; i < ft_run_nrows(run); i++) {
		const struct ft_result_row *r = ft_run_row(run, i);
		enum ft_op o;

		if (ft_op_from_name(r->test, &o) == 0 && o == op && r->nranks)
			return r->nranks;
	}
	return 0;
}

/*
 * `fabtune model SPEC --calibrate FILE...`: fit each nccl-tests output to the
 * model (its op and rank count from the file, --op when it holds several),
 * print the fit with its residuals and leave-one-out errors, and the
 * calibration block.
 */
static int
run_calibrate(const struct ft_cluster_spec *spec, const struct model_opts *o,
              struct ft_model_query *q, int nfiles, char **files, struct cli_ctx *ctx)
{
	struct ft_strbuf sb, block;
	struct ft_json j;
	int i, rc = EXIT_OK;

	ft_strbuf_init(&sb);
	ft_strbuf_init(&block);
	if (ctx->json) {
		ft_json_init(&j, &sb, false);
		ft_json_obj_begin(&j);
		ft_json_kv_str(&j, "spec", spec->name);
		ft_json_key(&j, "curves");
		ft_json_arr_begin(&j);
	} else {
		ft_strbuf_addf(&sb, "# fabtune model --calibrate: %s\n#\n", spec->name);
	}
	ft_strbuf_adds(&block, "calibration:\n");
	for (i = 0; i < nfiles && rc == EXIT_OK; i++) {
		struct ft_obs_set obs;
		struct ft_run run;
		struct ft_model_calib c;
		struct ft_model_query one = *q;
		struct ft_error err = { 0 };
		int prc;

		ft_obs_set_init(&obs);
		ft_run_init(&run, FT_SOURCE_IMPORT, "nccl-tests");
		prc = ft_parse_file(files[i], "nccl-tests", &obs, &run, &err);
		if (prc == 0 && ft_run_nrows(&run) == 0)
			prc = ft_error_set(&err, FT_EINVAL, "no nccl-tests result rows");
		if (prc == 0 && !o->op_given && ft_run_nrows(&run) > 0 &&
		    ft_op_from_name(ft_run_row(&run, 0)->test, &one.op) < 0)
			prc = ft_error_set(&err, FT_EINVAL, "%s: unknown test '%s'", files[i],
			                   ft_run_row(&run, 0)->test);
		if (prc == 0 && !one.ngpus)
			one.ngpus = run_nranks(&run, one.op);
		if (prc == 0)
			prc = ft_model_calibrate(spec, &one, &run, &c, &err);
		if (prc < 0) {
			cli_error(ctx, "%s: %s", files[i], ft_error_msg(&err, prc));
			rc = cli_exit_for(prc);
		} else {
			if (ctx->json)
				calib_json(files[i], &c, &j);
			else
				calib_text(files[i], &c, &sb);
			ft_strbuf_addf(&block,
			               "  - {op: %s, ranks: %u, fixed: %.3fus, latency_scale: %.4f, "
			               "bandwidth_scale: %.4f}\n",
			               ft_op_name(c.op), c.nranks, c.fixed_s * 1e6, c.lat_scale,
			               c.bw_scale);
			ft_model_calib_release(&c);
		}
		ft_run_release(&run);
		ft_obs_set_release(&obs);
	}
	if (rc == EXIT_OK) {
		if (ctx->json) {
			ft_json_arr_end(&j);
			ft_json_kv_str(&j, "calibration_block", block.buf);
			ft_json_obj_end(&j);
			ft_strbuf_addch(&sb, '\n');
		} else {
			ft_strbuf_adds(&sb, "# calibration block:\n");
			ft_strbuf_adds(&sb, block.buf);
		}
		cli_write(&sb);
	}
	ft_strbuf_release(&sb);
	ft_strbuf_release(&block);
	return rc;
}

/* Fill @q from the options; usage errors are printed and return EXIT_USAGE. */
static int
build_query(const struct model_opts *o, struct ft_model_query *q, struct cli_ctx *ctx)
{
	enum ft_op op;

	if (ft_op_from_name(o->op, &op) < 0 || !ft_op_is_modelled(op)) {
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
	if (o->nccl) {
		unsigned major = 0, minor = 0, patch = 0;
		char tail = 0;
		int n = sscanf(o->nccl, "%u.%u.%u%c", &major, &minor, &patch, &tail);

		if ((n != 2 && n != 3) || major != 2 || minor > 99) {
			cli_error(ctx, "--nccl: expected a version like 2.21 or 2.23.4, got '%s'",
			          o->nccl);
			return EXIT_USAGE;
		}
		q->nccl_version = major * 10000 + minor * 100;
	}
	q->ngpus = (uint32_t)o->gpus;
	q->nnodes = (uint32_t)o->nodes;
	q->ppn = (uint32_t)o->ppn;
	q->nchannels = (uint32_t)o->channels;
	q->cuda_graph = o->cuda_graph;
	q->tuner_only = o->tuner_only;
	return EXIT_OK;
}

int
cmd_model(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = {
		"fabtune model SPEC [--op OP] [-b SIZE] [-e SIZE] [-f N] [--gpus N] [--nodes N] [--ppn N] "
		"[--algo ALGO] [--proto PROTO] [--channels N]",
		"fabtune model SPEC --explain SIZE [--op OP] [--gpus N] [--nodes N] [--ppn N] ...",
		"fabtune model SPEC --calibrate FILE... [--op OP] [--nodes N] [--ppn N]",
		NULL,
	};
	bool save = false;
	struct model_opts o = {
		.op = NULL, .minbytes = 8, .maxbytes = 8ull << 30, .factor = 2
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
		OPT_STRING(0, "nccl", &o.nccl, "VERSION",
		           "constants of an NCCL release: 2.18 ... 2.27 (default: 2.28+)"),
		OPT_BOOL(0, "cuda-graph", &o.cuda_graph,
		         "iterations replayed from a CUDA graph (nccl-tests -G): no host launch"),
		OPT_BOOL(0, "tuner-only", &o.tuner_only,
		         "NCCL's own cost model alone, without the pipeline terms"),
		OPT_BOOL(0, "calibrate", &o.calibrate,
		         "fit the model to nccl-tests outputs FILE... given after SPEC"),
		OPT_SIZE(0, "explain", &o.explain,
		         "for one size: the terms of its time, every algorithm and protocol"),
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
	o.op_given = o.op != NULL;
	if (!o.op)
		o.op = "all_reduce";
	if (o.calibrate && n >= 2) {
		rc = build_query(&o, &q, ctx);
		if (rc != EXIT_OK)
			return rc;
		rc = ft_spec_resolve(argv[1], &spec, &err);
		if (rc < 0)
			return cli_fail(ctx, rc, &err);
		return run_calibrate(&spec, &o, &q, n - 1, argv + 2, ctx);
	}
	if (o.calibrate) {
		cli_error(ctx, "--calibrate: expected SPEC then one or more nccl-tests outputs");
		return EXIT_USAGE;
	}
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
	if (o.explain)
		return run_explain(&spec, &q, o.explain, ctx);
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

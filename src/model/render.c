/* SPDX-License-Identifier: MIT */
/*
 * model/render.c - the model's results in words: a sweep as an
 * nccl-tests-shaped table or JSON, one size's working (--explain), and a
 * calibration's fit with its residuals and the spec block it yields.
 *
 * Pure formatting of results ft_model_sweep(), ft_model_explain() and
 * ft_model_calibrate() computed; nothing here evaluates the model.
 */
#include "model_int.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <fabtune/base.h>
#include <fabtune/json.h>
#include <fabtune/units.h>

#include "base/fields.h"

#define ROW(key, type, m) FT__FIELD(struct ft_result_row, key, type, m)
#define CAL(key, type, m) FT__FIELD(struct ft_model_calib, key, type, m)
#define PT(key, type, m)  FT__FIELD(struct ft_model_calib_point, key, type, m)

/* A row of the model's sweep, as nccl-tests prints one. */
static const struct ft__field row_fields[] = {
	ROW("bytes", UINT, bytes),
	ROW("count", UINT, count),
	ROW("type", STR, dtype),
	ROW("redop", STR, redop),
	ROW("root", INT, root),
	ROW("time_us", NUM, time_us),
	ROW("algbw_GBps", NUM, algbw_GBps),
	ROW("busbw_GBps", NUM, busbw_GBps),
	ROW("algo", STR, algo),
	ROW("proto", STR, proto),
	ROW("bottleneck", STR, bottleneck),
};

/* A calibration's constants and errors, and each of its points. */
static const struct ft__field calib_fields[] = {
	CAL("fixed_us", US, fixed_s),
	CAL("latency_scale", NUM, lat_scale),
	CAL("bandwidth_scale", NUM, bw_scale),
	CAL("model_median_err", NUM, model_median_err),
	CAL("fit_median_err", NUM, fit_median_err),
	CAL("loo_median_err", NUM, loo_median_err),
	CAL("loo_max_err", NUM, loo_max_err),
	CAL("one_off_sizes", UINT, n_one_off),
};

static const struct ft__field point_fields[] = {
	PT("bytes", UINT, bytes), PT("time_us", US, time_s), PT("model_us", US, model_s),
	PT("fit_us", US, fit_s),  PT("loo_us", US, loo_s),   PT("loo_err", NUM, loo_err),
	PT("model_latency_us", US, lat_s), PT("model_bandwidth_us", US, bw_s),
	PT("one_off", BOOL, one_off),
};

#undef PT
#undef CAL
#undef ROW

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

/* ranks_per_node, and on nodes of different GPU counts the least and the most. */
static void
json_ranks_per_node(struct ft_json *j, const struct ft_model_result *r)
{
	ft_json_kv_uint(j, "ranks_per_node", r->ppn);
	if (r->ppn_min == r->ppn_max)
		return;
	ft_json_kv_uint(j, "ranks_per_node_min", r->ppn_min);
	ft_json_kv_uint(j, "ranks_per_node_max", r->ppn_max);
}

/* The least (or, @most, the largest) uint32_t field at @off of the node groups' nodes. */
static uint32_t
group_range(const struct ft_cluster_spec *spec, size_t off, bool most)
{
	uint32_t v, r, g;

	memcpy(&r, (const char *)&spec->node + off, sizeof(r));
	for (g = 0; g < spec->ngroups && g < FT_SPEC_MAX_GROUPS; g++) {
		memcpy(&v, (const char *)&spec->groups[g].node + off, sizeof(v));
		r = most ? FT_MAX(r, v) : FT_MIN(r, v);
	}
	return r;
}

/*
 * The GPUs' model in the header: the one model, or, where the @nnodes nodes in use (the
 * first ones, group by group) span node groups that differ in it (H100 and H200 nodes on
 * one fabric), each group's node count and model.
 */
static const char *
gpu_models(const struct ft_cluster_spec *spec, uint32_t nnodes, char *buf, size_t len)
{
	const char *one = spec->node.gpu_model;
	uint32_t g, left = nnodes, kinds = 0;
	size_t at = 0;

	for (g = 0; g < spec->ngroups && g < FT_SPEC_MAX_GROUPS && left; g++) {
		left -= FT_MIN(left, spec->groups[g].count);
		if (strcmp(spec->groups[g].node.gpu_model, one) != 0)
			kinds++;
	}
	if (kinds == 0)
		return one[0] ? one : "(unnamed)";
	left = nnodes;
	for (g = 0; g < spec->ngroups && g < FT_SPEC_MAX_GROUPS && left && at + 2 < len; g++) {
		const char *m = spec->groups[g].node.gpu_model;
		uint32_t c = FT_MIN(left, spec->groups[g].count);
		int k = snprintf(buf + at, len - at, "%s%u x %s", g ? ", " : "(", c,
		                 m[0] ? m : "(unnamed)");

		if (k < 0 || (size_t)k >= len - at)
			break;
		at += (size_t)k;
		left -= c;
	}
	if (at + 2 <= len)
		memcpy(buf + at, ")", 2);
	return buf;
}

void
ft_model_sweep_write_text(const struct ft_cluster_spec *spec, const struct ft_model_result *first,
                          const struct ft_run *run, struct ft_strbuf *sb)
{
	const struct ft_node_spec *n = &spec->node;
	char models[FT_SPEC_MAX_GROUPS * 48];
	const char *gm = gpu_models(spec, first->nnodes, models, sizeof(models));
	size_t i;

	ft_strbuf_addf(sb, "# fabtune model: %s\n", spec->name);
	if (n->nvlink_domain_nodes > 1 && first->ppn > n->ngpus)
		ft_strbuf_addf(sb, "#  %u NVLink domain%s of %u nodes x %u GPUs %s", first->nnodes,
		               first->nnodes == 1 ? "" : "s", first->ppn / n->ngpus, n->ngpus,
		               gm);
	else if (first->ppn_min != first->ppn_max)
		ft_strbuf_addf(sb, "#  %u nodes of %u to %u GPUs %s", first->nnodes, first->ppn_min,
		               first->ppn_max, gm);
	else
		ft_strbuf_addf(sb, "#  %u node%s x %u GPU%s %s", first->nnodes,
		               first->nnodes == 1 ? "" : "s", first->ppn,
		               first->ppn == 1 ? "" : "s", gm);
	if (n->nvlink_gen)
		ft_strbuf_addf(sb, ", NVLink %u%s", n->nvlink_gen,
		               n->nvswitch ? (n->nvls ? " NVSwitch+NVLS" : " NVSwitch") : "");
	else
		ft_strbuf_addf(sb, ", PCIe Gen%u", n->pcie_gen);
	if (first->nnodes > 1 && group_range(spec, offsetof(struct ft_node_spec, nnics), false) !=
	                                 group_range(spec, offsetof(struct ft_node_spec, nnics), true))
		ft_strbuf_addf(sb, ", %u to %u NICs/node, fabric %s",
		               group_range(spec, offsetof(struct ft_node_spec, nnics), false),
		               group_range(spec, offsetof(struct ft_node_spec, nnics), true),
		               ft_fabric_kind_name(spec->fabric.kind));
	else if (first->nnodes > 1)
		ft_strbuf_addf(sb, ", %u NICs/node %s, fabric %s", n->nnics,
		               n->nic_link[0] ? n->nic_link : "",
		               ft_fabric_kind_name(spec->fabric.kind));
	ft_strbuf_addf(sb, "\n#  %s on %u rank%s, %u channel%s\n#\n", ft_op_name(first->op),
	               first->nranks, first->nranks == 1 ? "" : "s", first->nchannels,
	               first->nchannels == 1 ? "" : "s");
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

/* "warnings": NCCL release @version older than @spec's GPUs (ft_model_nccl_note_get()),
 * @field naming where the release came from, and the in-node links @r could not price on a
 * node whose topology graph did not build (@r shared_error; ft_model_shared_note_text());
 * nothing where none is due. */
static void
json_warnings(struct ft_json *j, const struct ft_cluster_spec *spec, uint32_t version,
              const char *field, const struct ft_model_result *r)
{
	struct ft_model_nccl_note note;
	bool nccl = ft_model_nccl_note_get(spec, version, &note);
	char msg[FT_MODEL_SHARED_ERROR_LEN + 256], rmsg[256];
	bool routing = ft_model_routing_note_text(spec, rmsg, sizeof(rmsg));

	if (!nccl && !r->shared_error[0] && !routing)
		return;
	ft_json_key(j, "warnings");
	ft_json_arr_begin(j);
	if (nccl)
		ft_model_nccl_note_json(j, &note, NULL, field);
	if (routing) {
		ft_json_obj_begin(j);
		ft_json_kv_str(j, "field", "fabric.routing");
		ft_json_kv_str(j, "message", rmsg);
		ft_json_obj_end(j);
	}
	if (r->shared_error[0]) {
		ft_model_shared_note_text(r, msg, sizeof(msg));
		ft_json_obj_begin(j);
		ft_json_kv_str(j, "field", "nodes");
		ft_json_kv_str(j, "topology_error", r->shared_error);
		ft_json_kv_str(j, "message", msg);
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
}

bool
ft_model_routing_note_text(const struct ft_cluster_spec *spec, char *buf, size_t len)
{
	if (spec->fabric.routing != FT_ROUTING_MINHOP || spec->fabric.tiers < 3)
		return false;
	snprintf(buf, len,
	         "minhop on a %u-tier fat tree: the model prices the leaf up-links only, not the "
	         "spine-to-core links minhop's tables can crowd; `fabtune sim` routes its tables",
	         spec->fabric.tiers);
	return true;
}

void
ft_model_shared_note_text(const struct ft_model_result *r, char *buf, size_t len)
{
	snprintf(buf, len,
	         "the node's topology graph does not build or route (%s): the in-node links "
	         "the %s's sends share are not priced, each part keeps one GPU's share of its "
	         "link class",
	         r->shared_error, r->op == FT_OP_SENDRECV ? "send/recv" : "all-to-all");
}

void
ft_model_sweep_write_json(const struct ft_cluster_spec *spec, const struct ft_model_result *first,
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
	json_ranks_per_node(&j, first);
	ft_json_kv_uint(&j, "nchannels", first->nchannels);
	/* the release the model followed, --nccl's on the spec (fabtune model) */
	json_warnings(&j, spec, spec->nccl_version, "--nccl", first);
	ft_json_key(&j, "rows");
	ft_json_arr_begin(&j);
	for (i = 0; i < ft_run_nrows(run); i++) {
		const struct ft_result_row *r = ft_run_row(run, i);

		ft__json_object(&j, NULL, r, row_fields, FT_ARRAY_SIZE(row_fields));
	}
	ft_json_arr_end(&j);
	ft_json_obj_end(&j);
	ft_strbuf_addch(sb, '\n');
}

/* "ring/simple" or "collnet_chain/simple" into @buf. */
static const char *
pair_name(const struct ft_model_candidate *k, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", k->algo_label[0] ? k->algo_label : ft_algo_name(k->algo),
	         ft_proto_name(k->proto));
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
	if (strcmp(b, "p2p:window") == 0)
		return " (NCCL's chunks in flight a round trip: the send waits for the receiver)";
	if (strcmp(b, "tier1") == 0 || strcmp(b, "global") == 0)
		return " (the fabric's share of the NIC rate)";
	if (strcmp(b, "spine") == 0)
		return " (sends that cross rails from their own NIC: the busiest leaf up-link "
		       "to the spine, as the fabric routes them, is slower than the NICs)";
	return " (the slowest link class on the way)";
}

/* All of a node's ranks leave by one NIC (links same_rail): PXN's relays stay on it. */
static bool
one_rail(const struct ft_model_links *l)
{
	uint32_t n = FT_MIN(l->rail_ppn, l->ppn), all = n ? (1u << n) - 1 : 0, g;

	for (g = 0; g < n; g++)
		if ((l->same_rail[g] & all) != all)
			return false;
	return true;
}

/*
 * Some send PXN relays stays on its rail (links pxn_relay and same_rail): a GPU that shares
 * its NIC hands it to the NIC's first GPU, not to another rail's.
 */
static bool
relay_on_rail(const struct ft_model_links *l)
{
	uint32_t n = FT_MIN(l->rail_ppn, l->ppn), g;

	for (g = 0; g < n; g++)
		if (l->pxn_relay[g] & l->same_rail[g] & ((1u << n) - 1))
			return true;
	return false;
}

/* NCCL's price of NVLS with CollNet across nodes from its NVLS graph (model/tuner.c,
 * nvls_net_bw()). */
static void
explain_nvls_net(const struct ft_model_explain *ex, struct ft_strbuf *sb)
{
	uint32_t nch = ex->nvls_net.nchannels, n = ex->result.nranks;

	ft_strbuf_addf(sb, "#    nvls net    NVLS with CollNet: %u channels x min(bwIntra %.2f",
	               nch, ex->nvls_net.bw_intra_Bps / 1e9);
	if (ex->nvls_net.efficiency > 0)
		ft_strbuf_addf(sb, " x %.2f x %u/%u x 2, bwInter %.2f) GB/s x %u/%u\n",
		               ex->nvls_net.efficiency, nch - 1, nch,
		               ex->nvls_net.bw_inter_Bps / 1e9, n, 2 * (n - 1));
	else
		ft_strbuf_addf(sb, ", bwInter %.2f) GB/s x 5/6\n", ex->nvls_net.bw_inter_Bps / 1e9);
}

/* The pipeline terms of the pick (docs/internals/model.md, "The pipeline"). */
static void
explain_pipe(const struct ft_model_pipeline *pl, const struct ft_model_result *r,
             struct ft_strbuf *sb)
{
	if (pl->nchannels == 0) {
		ft_strbuf_addf(sb, "#    launch      %.2f us host launch floor%s\n", pl->launch_s * 1e6,
		               pl->launch_s > 0 ? "" : " (CUDA graph)");
		return;
	}
	ft_strbuf_addf(sb,
	               "#    pipeline    %u channel%s launched (bandwidth x %.2f), chunk %" PRIu64
	               " B, %" PRIu64 " loop%s, %u stage%s: ramp %.2f us",
	               pl->nchannels, pl->nchannels == 1 ? "" : "s", pl->bw_share, pl->chunk_bytes,
	               pl->loops, pl->loops == 1 ? "" : "s", pl->stages, pl->stages == 1 ? "" : "s",
	               pl->ramp_s * 1e6);
	if (pl->net_hops > 0)
		ft_strbuf_addf(sb, " (%u hop%s between nodes wait%s for a whole %s step)",
		               pl->net_hops, pl->net_hops == 1 ? "" : "s", pl->net_hops == 1 ? "s" : "",
		               ft_proto_name(r->proto));
	ft_strbuf_adds(sb, "\n");
	ft_strbuf_addf(sb,
	               "#    floors      proxy %.0f message%s = %.2f us, host launch %.2f us%s\n",
	               pl->messages, pl->messages == 1 ? "" : "s", pl->proxy_s * 1e6,
	               pl->launch_s * 1e6, pl->launch_s > 0 ? "" : " (CUDA graph)");
}

/* "4 GPUs", "the network", "4 GPUs and the network" for one end of a shared link. */
static const char *
share_end(uint32_t gpus, bool net, char *buf, size_t len)
{
	if (gpus == 0)
		return net ? "the network" : "none";
	snprintf(buf, len, "%u GPU%s%s", gpus, gpus == 1 ? "" : "s", net ? " and the network" : "");
	return buf;
}

/* What kind of link @sh is, in words. */
static const char *
share_kind(const struct ft_model_shared_link *sh)
{
	if (strcmp(sh->what, "cpu_link") == 0)
		return "the socket link";
	if (strcmp(sh->to, "net") == 0 || strcmp(sh->from, "net") == 0)
		return "a NIC";
	if (strncmp(sh->from, "gpu", 3) == 0 || strncmp(sh->to, "gpu", 3) == 0)
		return "a GPU's PCIe link";
	if (strncmp(sh->from, "nic", 3) == 0 || strncmp(sh->to, "nic", 3) == 0)
		return "a NIC's PCIe link";
	return "a PCIe switch's up-link";
}

/* The in-node links the pick's op reads (model/share.c), into @sh with their phase's name in
 * @phase: a send/recv's; the direct all-to-all's (on one node the hierarchical one's too);
 * the hierarchical one's phase in the node and between nodes. Their count; none for the
 * other ops. */
static uint32_t
op_shared(const struct ft_model_links *l, const struct ft_model_result *r,
          const struct ft_model_shared_link *sh[2], const char *phase[2])
{
	if (r->op == FT_OP_SENDRECV) {
		sh[0] = &l->sr_shared;
		phase[0] = "send_recv";
		return 1;
	}
	if (r->op != FT_OP_ALLTOALL)
		return 0;
	if (r->algo != FT_ALGO_HIERARCHICAL || l->nnodes < 2) {
		sh[0] = &l->a2a_shared;
		phase[0] = "all";
		return 1;
	}
	sh[0] = &l->a2a_node_shared;
	phase[0] = "in_node";
	sh[1] = &l->a2a_net_shared;
	phase[1] = "between_nodes";
	return 2;
}

/* Whether @sh sets a part of @r's time: slower than the model's own term for it
 * (ft__model_shared_binding()), and where it is the whole op's one part, its class the
 * bottleneck, as the `shared` line of --explain says. */
static bool
shared_binds(const struct ft_model_links *l, const struct ft_model_result *r,
             const struct ft_model_shared_link *sh)
{
	const struct ft_model_shared_link *b[2];
	uint32_t k = ft__model_shared_binding(l, r->op, r->algo, b), i;

	for (i = 0; i < k; i++)
		if (b[i] == sh)
			return k > 1 || strcmp(sh->what, r->bottleneck) == 0;
	return false;
}

/* "shared_links": the in-node links the pick's op reads that carry bytes (op_shared()):
 * each one's ends, class, kind, rate, bytes a byte of S, the GPUs whose sends and receives
 * cross it, its time at its rate and whether it binds. */
static void
json_shared(struct ft_json *j, const struct ft_model_links *l, const struct ft_model_result *r)
{
	const struct ft_model_shared_link *sh[2];
	const char *phase[2];
	uint32_t k = op_shared(l, r, sh, phase), i;

	ft_json_key(j, "shared_links");
	ft_json_arr_begin(j);
	for (i = 0; i < k; i++) {
		if (!(sh[i]->s > 0))
			continue;
		ft_json_obj_begin(j);
		ft_json_kv_str(j, "phase", phase[i]);
		ft_json_kv_str(j, "from", sh[i]->from);
		ft_json_kv_str(j, "to", sh[i]->to);
		ft_json_kv_str(j, "class", sh[i]->what);
		ft_json_kv_str(j, "kind", share_kind(sh[i]));
		ft_json_key(j, "rate_GBps");
		ft_json_double_prec(j, sh[i]->cap_Bps / 1e9, 6);
		ft_json_key(j, "bytes_per_S");
		ft_json_double_prec(j, sh[i]->load, 6);
		ft_json_kv_uint(j, "sending_gpus", sh[i]->senders);
		ft_json_kv_uint(j, "receiving_gpus", sh[i]->receivers);
		ft_json_kv_bool(j, "from_network", sh[i]->from_net);
		ft_json_kv_bool(j, "to_network", sh[i]->to_net);
		ft_json_key(j, "time_us");
		ft_json_double_prec(j, sh[i]->s * (double)r->bytes * 1e6, 6);
		ft_json_kv_bool(j, "binds", shared_binds(l, r, sh[i]));
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
}

/* The in-node links the pick's sends share where one sets its part (model/share.c). */
static void
explain_shared(const struct ft_model_links *l, const struct ft_model_result *r,
               struct ft_strbuf *sb)
{
	const struct ft_model_shared_link *sh[2];
	uint32_t k = ft__model_shared_binding(l, r->op, r->algo, sh), i;
	char a[48], b[48];

	for (i = 0; i < k; i++) {
		/* (one phase of two, or the part that binds the whole) */
		if (k == 1 && strcmp(sh[i]->what, r->bottleneck) != 0)
			continue;
		ft_strbuf_addf(sb,
		               "#    shared      %s %s -> %s (%s %.1f GB/s) carries %.2f x S, "
		               "from %s to %s: %.2f us at its rate\n",
		               share_kind(sh[i]), sh[i]->from, sh[i]->to, sh[i]->what,
		               sh[i]->cap_Bps / 1e9, sh[i]->load,
		               share_end(sh[i]->senders, sh[i]->from_net, a, sizeof(a)),
		               share_end(sh[i]->receivers, sh[i]->to_net, b, sizeof(b)),
		               sh[i]->s * (double)r->bytes * 1e6);
	}
}

void
ft_model_explain_write_text(const struct ft_cluster_spec *spec, const struct ft_model_explain *ex,
                            struct ft_strbuf *sb)
{
	const struct ft_model_links *l = &ex->links;
	const struct ft_model_result *r = &ex->result;
	char name[48], size[48];
	size_t i;

	ft_strbuf_addf(sb, "# fabtune model --explain: %s\n", spec->name);
	ft_strbuf_addf(sb, "#  %s of %s on %u rank%s (%u node%s x %u), %u channel%s\n",
	               ft_op_name(r->op), ft_format_nbytes(r->bytes, size, sizeof(size)),
	               r->nranks, r->nranks == 1 ? "" : "s", r->nnodes, r->nnodes == 1 ? "" : "s",
	               r->ppn, r->nchannels, r->nchannels == 1 ? "" : "s");
	ft_strbuf_addf(sb, "#  links: %s %.1f GB/s per GPU", l->intra_what, l->intra_Bps / 1e9);
	if (l->nnodes > 1)
		ft_strbuf_addf(sb, ", %u rail%s x %.2f GB/s (%s), fabric share %.2f (ring %.2f), "
		               "fabric latency %.2f us",
		               l->nrails, l->nrails == 1 ? "" : "s", l->nic_Bps / 1e9, l->nic_what,
		               l->a2a_factor, l->ring_tier_factor, l->fabric_lat_s * 1e6);
	if (l->net_lat_s > 0)
		ft_strbuf_addf(sb, ", network plugin latency %.2f us", l->net_lat_s * 1e6);
	if (l->rdv_s > 0 && (r->op == FT_OP_ALLTOALL || r->op == FT_OP_SENDRECV))
		ft_strbuf_addf(sb, ", rendezvous at most %.2f us once %s", l->rdv_s * 1e6,
		               r->op == FT_OP_SENDRECV ? "a send" : "an all-to-all");
	ft_strbuf_adds(sb, "\n#\n");
	if (ex->pick < ex->ncandidates) {
		const struct ft_model_candidate *k = &ex->cand[ex->pick];
		double lat = k->lat_s * k->lat_factor, bw = k->bw_Bps * k->bw_factor;

		ft_strbuf_addf(sb, "#  picked %s%s; NCCL's tuner: %.2f us = latency %.2f us + size / bandwidth %.2f us\n",
		               pair_name(k, name, sizeof(name)),
		               ex->plugin_pick ? " by aws-ofi-nccl's tuner plugin" : "",
		               k->time_s * 1e6, lat * 1e6, (double)r->bytes / bw * 1e6);
		ft_strbuf_addf(sb, "#    latency     base %.2f us + steps %.2f us", k->base_s * 1e6,
		               (k->lat_s - k->base_s) * 1e6);
		if (k->lat_factor != 1.0)
			ft_strbuf_addf(sb, ", x %.2f (ring plateau: the pick's, not the time's)",
			               k->lat_factor);
		ft_strbuf_addf(sb, "\n#    bandwidth   %.2f GB/s algorithm bandwidth", k->bw_Bps / 1e9);
		if (k->bw_factor != 1.0)
			ft_strbuf_addf(sb, " x %.2f (tree correction at this size)", k->bw_factor);
		ft_strbuf_adds(sb, "\n");
		if (ex->nvls_net.nchannels > 0)
			explain_nvls_net(ex, sb);
		if (ex->run_channels_Bps > 0)
			ft_strbuf_addf(sb,
			               "#    kernel      %.2f GB/s algorithm bandwidth: the "
			               "per-channel caps on the %u channels the kernel runs, not the "
			               "graph's %u the tuner prices\n",
			               ex->run_channels_Bps / 1e9,
			               ft_model_run_nchannels(&ex->links, r->algo),
			               ex->links.graph_nchannels);
		if (strcmp(l->a2a_what, "spine") == 0 && l->a2a_factor < 1.0)
			ft_strbuf_addf(sb,
			               "#    spine       %.2f of the NICs' rate: sends that cross "
			               "rails leave by their own NIC (no PXN relay) and go leaf, "
			               "spine, leaf; the busiest leaf up-link carries them (%s)\n",
			               l->a2a_factor, ft_routing_name(spec->fabric.routing));
		if (ex->carried_Bps > 0 && r->algo == FT_ALGO_PAT)
			ft_strbuf_addf(sb, "#    carried     %.2f GB/s algorithm bandwidth: PAT's kernel "
			               "moves %u/%u of S a rank, not the tuner's S\n",
			               ex->carried_Bps / 1e9, r->nranks - 1, r->nranks);
		else if (ex->carried_Bps > 0)
			ft_strbuf_addf(sb, "#    carried     %.2f GB/s algorithm bandwidth: over %u nodes "
			               "the tree's busiest node sends %s, not the tuner's 2S\n",
			               ex->carried_Bps / 1e9, r->nnodes, r->nnodes == 2 ? "S" : "1.5S");
		/* a direct all-to-all's sends between rails: by NCCL's default through the GPU
		 * of the peer's rail (PXN, one NVLink hop more), else across rails
		 * (NCCL_PXN_DISABLE=1, spec nccl.pxn_disable; eval.c send_rtt()); on nodes
		 * whose ranks share one NIC, PXN relays a GPU's sends through the NIC's first
		 * GPU on the one rail (links pxn_relay); on nodes of several shared NICs, where
		 * some relay stays on its rail, through the first GPU on the peer's NIC */
		if (ex->p2p_window_Bps > 0 && l->fabric_rail_lat_s > 0 &&
		    l->fabric_lat_s != l->fabric_rail_lat_s)
			ft_strbuf_addf(sb,
			               "#    window      %.2f GB/s algorithm bandwidth: NCCL's "
			               "p2p chunks in flight a round trip of %.2f us on a rail, "
			               "%.2f us %s, the slowest rank's sends, below the links\n",
			               ex->p2p_window_Bps / 1e9, 2 * l->fabric_rail_lat_s * 1e6,
			               (l->pxn ? 2 * l->fabric_rail_lat_s + l->nvlink_hop_s :
			                         2 * l->fabric_xrail_lat_s) * 1e6,
			               !l->pxn ? "across rails with PXN off (twice the path "
			                         "through the spine)" :
			               one_rail(l) ? "through its NIC's first GPU (PXN: the "
			                             "rail's path twice and an NVLink hop)" :
			               relay_on_rail(l) ? "through the first GPU on the peer's NIC "
			                                  "(PXN: the rail's path twice and an "
			                                  "NVLink hop)" :
			                                  "to another rail through its GPU (PXN: "
			                                  "the rail's path twice and an NVLink "
			                                  "hop)");
		else if (ex->p2p_window_Bps > 0)
			ft_strbuf_addf(sb, "#    window      %.2f GB/s algorithm bandwidth: NCCL's p2p "
			               "chunks in flight a round trip of %.2f us (twice the fabric "
			               "latency), below the links\n",
			               ex->p2p_window_Bps / 1e9, 2 * ex->links.fabric_lat_s * 1e6);
		if (ex->unflushed_s > 0)
			ft_strbuf_addf(sb, "#    flush       none here (Hopper or later, x86 host): the time "
			               "leaves out the tuner's %.2f us for it\n",
			               ex->unflushed_s * 1e6);
		if (ex->rdv_s > 0)
			ft_strbuf_addf(sb, "#    rendezvous  the time adds %.2f us the tuner does not "
			               "price: the first write waits for the receiver's control "
			               "message\n",
			               ex->rdv_s * 1e6);
		explain_shared(l, r, sb);
		if (r->shared_error[0]) {
			char msg[FT_MODEL_SHARED_ERROR_LEN + 256];

			ft_model_shared_note_text(r, msg, sizeof(msg));
			ft_strbuf_addf(sb, "#    shared      none: %s\n", msg);
		}
		ft_strbuf_addf(sb, "#    binds       %s%s\n", r->bottleneck, bound_words(r->bottleneck));
		explain_pipe(&r->pipe, r, sb);
		if (r->calibrated)
			ft_strbuf_addf(sb,
			               "#    calibrated  the model's %.2f us = latency part %.2f us + "
			               "bandwidth part %.2f us, each scaled by the spec's calibration\n",
			               (r->lat_part_s + r->bw_part_s) * 1e6, r->lat_part_s * 1e6,
			               r->bw_part_s * 1e6);
		/* The row's figures, as the table prints them: of the time, not of the
		 * tuner's bandwidth term above. */
		ft_strbuf_addf(sb, "#    time        %.2f us: algbw %.2f GB/s, busbw %.2f GB/s\n",
		               r->time_s * 1e6, r->algbw_Bps / 1e9, r->busbw_Bps / 1e9);
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

		pair_name(k, name, sizeof(name));
		if (!k->available) {
			ft_strbuf_addf(sb, "   %-24s  %8s  %11s  %11s  %s\n", name, "-", "-", "-",
			               k->why);
			continue;
		}
		/* The bandwidth the bound column names, as the picked line and the JSON's
		 * algbw_GBps give it: NCCL's algorithm bandwidth, not size / time. */
		ft_strbuf_addf(sb, "%s %-24s  %8.2f  %11.2f  %11.2f  %s\n",
		               i == ex->pick ? " *" : "  ", name, k->time_s * 1e6,
		               k->lat_s * k->lat_factor * 1e6, k->bw_Bps / 1e9, k->bottleneck);
	}
}

void
ft_model_explain_write_json(const struct ft_cluster_spec *spec, const struct ft_model_explain *ex,
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
	json_ranks_per_node(&j, r);
	json_warnings(&j, spec, l->nccl_version, "--nccl", r);
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
	ft_json_key(&j, "net_latency_us");
	ft_json_double_prec(&j, l->net_lat_s * 1e6, 6);
	ft_json_key(&j, "rendezvous_us");
	ft_json_double_prec(&j, l->rdv_s * 1e6, 6);
	ft_json_obj_end(&j);
	ft_json_kv_str(&j, "algo", r->algo_label[0] ? r->algo_label : ft_algo_name(r->algo));
	ft_json_kv_str(&j, "proto", ft_proto_name(r->proto));
	ft_json_key(&j, "time_us");
	ft_json_double_prec(&j, r->time_s * 1e6, 6);
	ft_json_key(&j, "busbw_GBps");
	ft_json_double_prec(&j, r->busbw_Bps / 1e9, 6);
	ft_json_kv_str(&j, "bottleneck", r->bottleneck);
	ft_json_kv_bool(&j, "calibrated", r->calibrated);
	ft_json_key(&j, "latency_part_us");
	ft_json_double_prec(&j, r->lat_part_s * 1e6, 6);
	ft_json_key(&j, "bandwidth_part_us");
	ft_json_double_prec(&j, r->bw_part_s * 1e6, 6);
	ft_json_kv_bool(&j, "tuner_plugin_pick", ex->plugin_pick);
	if (ex->nvls_net.nchannels > 0) {
		ft_json_key(&j, "nvls_net");
		ft_json_obj_begin(&j);
		ft_json_kv_uint(&j, "channels", ex->nvls_net.nchannels);
		ft_json_key(&j, "bw_intra_GBps");
		ft_json_double_prec(&j, ex->nvls_net.bw_intra_Bps / 1e9, 6);
		ft_json_key(&j, "bw_inter_GBps");
		ft_json_double_prec(&j, ex->nvls_net.bw_inter_Bps / 1e9, 6);
		ft_json_key(&j, "nvls_efficiency");
		ft_json_double_prec(&j, ex->nvls_net.efficiency, 6);
		ft_json_obj_end(&j);
	}
	ft_json_key(&j, "kernel_algbw_GBps");
	ft_json_double_prec(&j, ex->run_channels_Bps / 1e9, 6);
	ft_json_key(&j, "carried_algbw_GBps");
	ft_json_double_prec(&j, ex->carried_Bps / 1e9, 6);
	ft_json_key(&j, "p2p_window_algbw_GBps");
	ft_json_double_prec(&j, ex->p2p_window_Bps / 1e9, 6);
	ft_json_key(&j, "rendezvous_latency_us");
	ft_json_double_prec(&j, ex->rdv_s * 1e6, 6);
	ft_json_key(&j, "unflushed_latency_us");
	ft_json_double_prec(&j, ex->unflushed_s * 1e6, 6);
	json_shared(&j, l, r);
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
	ft_json_kv_uint(&j, "net_hops_whole", r->pipe.net_hops);
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
		ft_json_kv_str(&j, "algo", k->algo_label[0] ? k->algo_label : ft_algo_name(k->algo));
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

void
ft_model_calib_write_text(const char *file, const struct ft_model_calib *c, struct ft_strbuf *sb)
{
	size_t i;

	ft_strbuf_addf(sb, "# %s: %s on %u ranks, %zu sizes\n", file, ft_op_name(c->op), c->nranks,
	               c->npoints);
	ft_strbuf_addf(sb,
	               "#  fit: time = %.2f us + %.3f x latency part + %.3f x bandwidth part "
	               "(%.1f%% of the model's bandwidth achieved)\n",
	               c->fixed_s * 1e6, c->lat_scale, c->bw_scale,
	               c->bw_scale > 0 ? 100.0 / c->bw_scale : 0.0);
	ft_strbuf_addf(sb,
	               "#  median error: model %.1f%%, fit %.1f%%, leave-one-out %.1f%% "
	               "(max %.1f%%)\n#\n",
	               c->model_median_err * 100, c->fit_median_err * 100,
	               c->loo_median_err * 100, c->loo_max_err * 100);
	if (c->n_one_off)
		ft_strbuf_addf(sb,
		               "#  left out of the fit: %zu size%s marked one-off, whose time the "
		               "next size outgrows by under half the curve's rate\n#\n",
		               c->n_one_off, c->n_one_off == 1 ? "" : "s");
	ft_strbuf_adds(sb, "#         size  measured(us)     model(us)       fit(us)  "
	                   "leave-1-out(us)  error\n");
	for (i = 0; i < c->npoints; i++) {
		const struct ft_model_calib_point *p = &c->pts[i];

		ft_strbuf_addf(sb, "%14" PRIu64 "  %12.2f  %12.2f  %12.2f  %15.2f  %5.1f%%%s\n",
		               p->bytes, p->time_s * 1e6, p->model_s * 1e6, p->fit_s * 1e6,
		               p->loo_s * 1e6, p->loo_err * 100, p->one_off ? "  one-off" : "");
	}
	ft_strbuf_adds(sb, "#\n");
}

void
ft_model_calib_write_json(const char *file, const struct ft_model_calib *c, struct ft_json *j)
{
	size_t i;

	ft_json_obj_begin(j);
	ft_json_kv_str(j, "file", file);
	ft_json_kv_str(j, "op", ft_op_name(c->op));
	ft_json_kv_uint(j, "nranks", c->nranks);
	ft__json_fields(j, c, calib_fields, FT_ARRAY_SIZE(calib_fields));
	ft_json_key(j, "points");
	ft_json_arr_begin(j);
	for (i = 0; i < c->npoints; i++)
		ft__json_object(j, NULL, &c->pts[i], point_fields, FT_ARRAY_SIZE(point_fields));
	ft_json_arr_end(j);
	ft_json_obj_end(j);
}

void
ft_model_calib_write_block(const struct ft_model_calib *c, struct ft_strbuf *sb)
{
	ft_strbuf_addf(sb,
	               "  - {op: %s, ranks: %u, fixed: " FT__CALIB_FIXED_US_FMT
	               "us, latency_scale: " FT__CALIB_SCALE_FMT
	               ", bandwidth_scale: " FT__CALIB_SCALE_FMT "}\n",
	               ft_op_name(c->op), c->nranks, c->fixed_s * 1e6, c->lat_scale, c->bw_scale);
}

int
ft_model_sweep_report(const struct ft_cluster_spec *spec, const struct ft_model_query *q,
                      uint64_t min_bytes, uint64_t max_bytes, uint64_t factor, bool json,
                      struct ft_run *run, struct ft_strbuf *sb, struct ft_model_result *largest,
                      struct ft_error *err)
{
	struct ft_model_query top = *q, all = *q;
	struct ft_model_cache *own = NULL;
	struct ft_model_result first;
	int rc;

	/* the header's size and the rows on one node's shared links, laid out once */
	if (!q->cache)
		top.cache = all.cache = own = ft_model_cache_new();
	top.bytes = max_bytes;
	rc = ft_model_eval(spec, &top, &first, err);
	if (largest) {
		if (rc == 0)
			*largest = first;
		else
			memset(largest, 0, sizeof(*largest));
	}
	if (rc == 0)
		rc = ft_model_sweep(spec, &all, min_bytes, max_bytes, factor, run, err);
	ft_model_cache_free(own);
	if (rc < 0)
		return rc;
	if (json)
		ft_model_sweep_write_json(spec, &first, run, sb);
	else
		ft_model_sweep_write_text(spec, &first, run, sb);
	return 0;
}

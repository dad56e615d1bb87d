/* SPDX-License-Identifier: MIT */
/*
 * spec/load_node.c - the nodes section of a spec: a preset to start from,
 * overrides, a node described in full, and the placement of GPUs and NICs
 * on PCIe switches, NUMA domains and rails (docs/spec.md, "nodes").
 */
#include "internal.h"
#include "load_int.h"

#include <fabtune/spec.h>
#include <fabtune/units.h>

/* ---- nodes -------------------------------------------------------------------------------- */

#define NODE (&L->spec->node)

static int
f_gpu_memory(struct loader *L, yaml_node_t *v, const char *path)
{
	const char *s = ft__spec_scalar(v);
	uint64_t bytes;

	/* A bare number has no unit: refuse it rather than guess GB or GiB. */
	if (!s || ft__spec_is_null(v) || strspn(s, "0123456789.") == strlen(s) ||
	    ft_parse_size(s, &bytes, NULL) < 0 || bytes == 0)
		return ft__spec_expected(L, v, path, "a size like 80GB or 141GB");
	NODE->gpu_mem_GB = (double)bytes / 1e9;
	return 0;
}

#define U32(m, min, max) .doc = { "", FT__DOC_U32, SPEC_AT(m), .lo = min, .hi = max }
#define RATE(m)          .doc = { "", FT__DOC_RATE, SPEC_AT(m) }
#define BOOL(m)          .doc = { "", FT__DOC_BOOL, SPEC_AT(m) }

static const struct field nvlink_fields[] = {
	{ "gen", U32(node.nvlink_gen, 1, 5), GIVEN(given_nvlink_gen) },
	{ "bandwidth", RATE(node.nvlink_Bps), GIVEN(given_nvlink_bw) },
	{ "latency", SPEC_DURATION(node.lat_nvlink_s) },
	{ "nvswitch", BOOL(node.nvswitch) },
	{ "nvls", BOOL(node.nvls) },
	{ "domain_nodes", U32(node.nvlink_domain_nodes, 1, 1024) },
};

static int
f_nvlink(struct loader *L, yaml_node_t *v, const char *path)
{
	const char *s = ft__spec_scalar(v);

	if (s && (strcmp(s, "none") == 0 || strcmp(s, "false") == 0)) {
		NODE->nvlink_gen = 0;
		NODE->nvlink_Bps = 0;
		NODE->lat_nvlink_s = 0;
		NODE->nvswitch = NODE->nvls = false;
		L->given_nvlink_gen = L->given_nvlink_bw = true;
		return 0;
	}
	if (v->type != YAML_MAPPING_NODE)
		return ft__spec_expected(L, v, path, "a mapping (gen, bandwidth, ...) or none");
	return ft__spec_walk(L, v, path, nvlink_fields, FT_ARRAY_SIZE(nvlink_fields), 0, NULL);
}

static int
get_width(struct loader *L, yaml_node_t *v, const char *path, uint32_t *out)
{
	int rc = ft__spec_get_u32(L, v, path, 1, 16, out);

	if (rc == 0 && (*out & (*out - 1)))
		return ft__spec_expected(L, v, path, "1, 2, 4, 8 or 16 lanes");
	return rc;
}

static int
f_pcie_gpu_width(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_width(L, v, path, &NODE->pcie_width_gpu);
}

static int
f_pcie_nic_width(struct loader *L, yaml_node_t *v, const char *path)
{
	return get_width(L, v, path, &NODE->pcie_width_nic);
}

static const struct field pcie_fields[] = {
	{ "gen", U32(node.pcie_gen, 1, 6), GIVEN(given_pcie_gen) },
	{ "gpu_width", f_pcie_gpu_width, 0, GIVEN(given_gpu_width) },
	{ "nic_width", f_pcie_nic_width, 0, GIVEN(given_nic_width) },
	{ "gpu_bandwidth", RATE(node.pcie_Bps_gpu), GIVEN(given_gpu_bw) },
	{ "nic_bandwidth", RATE(node.pcie_Bps_nic), GIVEN(given_nic_bw) },
	{ "latency", SPEC_DURATION(node.lat_pcie_s) },
	{ "switches", U32(node.npcie_switches, 0, FT_SPEC_MAX_PCIE_SWITCHES),
	  GIVEN(given_switches) },
};

/* The host CPUs' architecture, as NCCL's topology tells them apart (x86, arm, power):
 * NCCL doubles its network p2p chunk on ARM hosts with Blackwell GPUs (kb ENV-BUFFSIZE). */
static int
f_numa_arch(struct loader *L, yaml_node_t *v, const char *path)
{
	const char *s = ft__spec_scalar(v);

	if (!s || (strcmp(s, "x86") != 0 && strcmp(s, "arm") != 0 && strcmp(s, "power") != 0))
		return ft__spec_expected(L, v, path, "x86, arm or power");
	NODE->host_arch = strcmp(s, "arm") == 0   ? FT_HOST_ARCH_ARM :
	                  strcmp(s, "power") == 0 ? FT_HOST_ARCH_POWER :
	                                            FT_HOST_ARCH_X86;
	NODE->host_arm = NODE->host_arch == FT_HOST_ARCH_ARM;
	return 0;
}

/* The host CPUs' vendor: NCCL's tuner prices a network message by it (kb NA-MODEL,
 * getNetOverhead: AMD x86 2 us, else 1 us). */
static int
f_numa_vendor(struct loader *L, yaml_node_t *v, const char *path)
{
	const char *s = ft__spec_scalar(v);

	if (s && strcmp(s, "intel") == 0)
		NODE->cpu_vendor = FT_CPU_VENDOR_INTEL;
	else if (s && strcmp(s, "amd") == 0)
		NODE->cpu_vendor = FT_CPU_VENDOR_AMD;
	else if (s && strcmp(s, "unknown") == 0)
		NODE->cpu_vendor = FT_CPU_VENDOR_UNKNOWN;
	else
		return ft__spec_expected(L, v, path, "intel, amd or unknown");
	return 0;
}

/* How the GPUs reach their host CPU: pcie or c2c (NVLink-C2C to Grace); checked against
 * the host and the GPUs in check_gpu_attach(). */
static int
f_gpu_attach(struct loader *L, yaml_node_t *v, const char *path)
{
	const char *s = ft__spec_scalar(v);

	if (s && strcmp(s, "pcie") == 0)
		NODE->gpu_attach = FT_GPU_ATTACH_PCIE;
	else if (s && strcmp(s, "c2c") == 0)
		NODE->gpu_attach = FT_GPU_ATTACH_C2C;
	else
		return ft__spec_expected(L, v, path, "pcie or c2c");
	return 0;
}

static const struct field numa_fields[] = {
	{ "domains", U32(node.nnuma, 1, 64), GIVEN(given_numa) },
	{ "interconnect", RATE(node.cpu_link_Bps) },
	{ "arch", f_numa_arch, 0, GIVEN(given_arch) },
	{ "vendor", f_numa_vendor, 0 },
};

static int
f_nic_link(struct loader *L, yaml_node_t *v, const char *path)
{
	return ft__spec_get_link(L, v, path, NODE->nic_link, sizeof(NODE->nic_link));
}

static const struct field nic_fields[] = {
	{ "count", U32(node.nnics, 0, FT_SPEC_MAX_NICS), GIVEN(given_nics) },
	{ "model", .doc = { "", FT__DOC_STR, SPEC_AT(node.nic_model) } },
	{ "link", f_nic_link, 0, GIVEN(given_nic_link) },
	{ "rate", RATE(node.nic_Bps), GIVEN(given_nic_rate) },
	{ "latency", SPEC_DURATION(node.lat_nic_s), GIVEN(given_nic_lat) },
	{ "per_gpu", U32(node.nics_per_gpu, 1, FT_SPEC_MAX_NICS) },
	{ "vm_overhead", SPEC_DURATION(node.vm_msg_s) },
	{ "net_latency", SPEC_DURATION(node.net_lat_s) },
	{ "rendezvous", SPEC_DURATION(node.rdv_s) },
};

/* The NCCL settings the node's jobs run with, by the name users set them by. */
static const struct field nccl_fields[] = {
	{ "buffsize",
	  .doc = { "", FT__DOC_SIZE, SPEC_AT(node.nccl_buffsize), .lo = FT_SPEC_NCCL_BUFFSIZE_MIN,
	           .hi = FT_SPEC_NCCL_BUFFSIZE_MAX, .what = "a size from 64KiB to 1GiB" } },
	{ "ll_buffsize", .doc = { "", FT__DOC_SIZE, SPEC_AT(node.nccl_ll_buffsize),
	                          .lo = FT_SPEC_NCCL_BUFFSIZE_MIN, .hi = FT_SPEC_NCCL_BUFFSIZE_MAX,
	                          .what = "a size from 64KiB to 1GiB" } },
	{ "ll128_buffsize",
	  .doc = { "", FT__DOC_SIZE, SPEC_AT(node.nccl_ll128_buffsize),
	           .lo = FT_SPEC_NCCL_BUFFSIZE_MIN, .hi = FT_SPEC_NCCL_BUFFSIZE_MAX,
	           .what = "a size from 64KiB to 1GiB" } },
	{ "nvls_chunksize",
	  .doc = { "", FT__DOC_SIZE, SPEC_AT(node.nccl_nvls_chunksize),
	           .lo = FT_SPEC_NCCL_NVLS_CHUNKSIZE_MIN, .hi = FT_SPEC_NCCL_NVLS_CHUNKSIZE_MAX,
	           .what = "a size from 4KiB to 64MiB" } },
	{ "nvlstree_max_chunksize",
	  .doc = { "", FT__DOC_SIZE, SPEC_AT(node.nccl_nvlstree_max_chunksize),
	           .lo = FT_SPEC_NCCL_NVLSTREE_MAX_MIN, .hi = FT_SPEC_NCCL_NVLSTREE_MAX_MAX,
	           .what = "a size from 4KiB to 64MiB" } },
	{ "pxn_disable", BOOL(node.nccl_pxn_disable) },
};

/* Placement lists: index into the node's arrays, with the count they must match. */
enum {
	PL_GPU_SWITCH,
	PL_GPU_NUMA,
	PL_GPU_NIC,
	PL_NIC_SWITCH,
	PL_NIC_NUMA,
	PL_SWITCH_NUMA,
	PL_COUNT
};

static const char *const list_name[PL_COUNT] = {
	"gpu_pcie_switch", "gpu_numa", "gpu_nic", "nic_pcie_switch", "nic_numa", "pcie_switch_numa"
};

/* One placement list, which by its key (the last part of @path). */
static int
f_place(struct loader *L, yaml_node_t *v, const char *path)
{
	static const uint32_t caps[PL_COUNT] = { FT_SPEC_MAX_GPUS, FT_SPEC_MAX_GPUS,
		                                 FT_SPEC_MAX_GPUS, FT_SPEC_MAX_NICS,
		                                 FT_SPEC_MAX_NICS, FT_SPEC_MAX_PCIE_SWITCHES };
	uint32_t *dst[PL_COUNT] = { NODE->gpu_pcie_switch, NODE->gpu_numa, NODE->gpu_nic,
		                    NODE->nic_pcie_switch, NODE->nic_numa, NODE->pcie_switch_numa };
	const char *key = strrchr(path, '.');
	char too_many[64];
	unsigned which;
	int rc;

	for (which = 0; which < PL_COUNT - 1; which++)
		if (key && strcmp(key + 1, list_name[which]) == 0)
			break;
	snprintf(too_many, sizeof(too_many), "at most %u entries", caps[which]);
	rc = ft__spec_get_u32_list(L, v, path, "a list of indexes like [0, 0, 1, 1]", too_many,
	                           caps[which], 0, 63, dst[which], &L->placement_len[which]);
	if (rc == 0)
		L->given_place |= 1u << which;
	return rc;
}

static const struct field placement_fields[] = {
	{ "gpu_pcie_switch", f_place, 0 }, { "gpu_numa", f_place, 0 },
	{ "gpu_nic", f_place, 0 },         { "nic_pcie_switch", f_place, 0 },
	{ "nic_numa", f_place, 0 },        { "pcie_switch_numa", f_place, 0 },
};

/* Placement is applied after the counts are known: see finish_node(). */
static yaml_node_t *
placement_node(struct loader *L, yaml_node_t *nodes)
{
	return ft__spec_lookup(L->doc, nodes, "placement");
}

static const struct field node_fields[] = {
	{ "preset", NULL, 0 },
	{ "count", U32(nnodes, 1, 1000000), GIVEN(given_count) },
	{ "gpus", U32(node.ngpus, 1, FT_SPEC_MAX_GPUS), GIVEN(given_gpus) },
	{ "gpu_model", .doc = { "", FT__DOC_STR, SPEC_AT(node.gpu_model) }, GIVEN(given_model) },
	{ "gpu_tflops",
	  .doc = { "", FT__DOC_DOUBLE, SPEC_AT(node.gpu_tflops), .lo = 0.001, .hi = 1e6 },
	  GIVEN(given_tflops) },
	{ "gpu_memory", f_gpu_memory, 0, GIVEN(given_memory) },
	/* 0 says the GPU has no FP8 tensor cores (A100): fp8 plans are refused. */
	{ "gpu_fp8_tflops",
	  .doc = { "", FT__DOC_DOUBLE, SPEC_AT(node.gpu_fp8_tflops), .lo = 0, .hi = 1e6 } },
	{ "gpu_hbm_bandwidth", RATE(node.gpu_hbm_Bps) },
	/* A share of the dense peak: above 1 is a percentage or a typo, not a GPU. */
	{ "gpu_gemm_efficiency",
	  .doc = { "", FT__DOC_DOUBLE, SPEC_AT(node.gpu_gemm_eff), .lo = 0.01, .hi = 1 } },
	{ "gpu_attach", f_gpu_attach, 0, GIVEN(given_gpu_attach) },
	{ "nvlink", f_nvlink, 0 },
	{ "pcie", SUB(pcie_fields), GIVEN(given_pcie) },
	{ "numa", SUB(numa_fields) },
	{ "nics", SUB(nic_fields) },
	{ "nccl", SUB(nccl_fields) },
	{ "placement", NULL, 0 },
};

#undef BOOL
#undef RATE
#undef U32

/* A node described without a preset must say what its GPUs and PCIe are. */
static int
require_node_fields(struct loader *L, yaml_node_t *nodes)
{
	static const char *const what[] = { "gpus", "gpu_model", "gpu_tflops", "gpu_memory",
		                            "pcie" };
	bool given[] = { L->given_gpus, L->given_model, L->given_tflops, L->given_memory,
		         L->given_pcie_gen };
	char path[FT_SPEC_FIELD_MAX];
	size_t i;

	for (i = 0; i < FT_ARRAY_SIZE(what); i++) {
		if (given[i])
			continue;
		snprintf(path, sizeof(path), "nodes.%s", i == 4 ? "pcie.gen" : what[i]);
		return ft__spec_perr(L, &nodes->start_mark, FT_EPARSE, path,
		                     "expected a value (or a preset: to start from), got nothing");
	}
	return 0;
}

/*
 * gpu_attach against the host and the GPUs. A preset's attachment (c2c on the Grace
 * trays) goes with its host and GPUs: a spec that changes numa.arch or the NVLink
 * generation and says nothing of gpu_attach gets the rule (auto). c2c given where NCCL
 * cannot have it is refused: NCCL adds a GPU's C2C link only from sm_90 on (NVLink 4 on
 * here; NVIDIA/nccl src/graph/xml.cc ncclTopoGetXmlFromGpu), and C2C GPUs sit on an ARM
 * CPU (Grace).
 */
static int
check_gpu_attach(struct loader *L)
{
	struct ft_node_spec *n = NODE;

	if (!L->given_gpu_attach) {
		if (L->given_arch || L->given_nvlink_gen)
			n->gpu_attach = FT_GPU_ATTACH_AUTO;
		return 0;
	}
	if (n->gpu_attach != FT_GPU_ATTACH_C2C)
		return 0;
	if (n->host_arch != FT_HOST_ARCH_ARM)
		return ft__spec_perr_field(L, "nodes.gpu_attach", FT_EPARSE,
		                           "c2c needs an ARM host (Grace; numa.arch: arm), got "
		                           "numa.arch %s",
		                           n->host_arch == FT_HOST_ARCH_POWER ? "power" : "x86");
	if (n->nvlink_gen < 4)
		return ft__spec_perr_field(L, "nodes.gpu_attach", FT_EPARSE,
		                           "c2c needs Hopper or later GPUs (nvlink.gen 4 or more; "
		                           "NCCL reads C2C links from sm_90 on), got %s",
		                           n->nvlink_gen ? "an older NVLink" : "no NVLink");
	return 0;
}

static int
finish_node(struct loader *L, yaml_node_t *nodes)
{
	struct ft_node_spec *n = NODE;
	const struct ft_link_preset *lp;
	struct ft_node_spec base;
	yaml_node_t *pl;
	uint32_t want[PL_COUNT];
	char path[FT_SPEC_FIELD_MAX];
	unsigned i;
	int rc;

	if (!L->has_preset) {
		rc = require_node_fields(L, nodes);
		if (rc < 0)
			return rc;
	}
	if (L->given_nvlink_gen && n->nvlink_gen && !L->given_nvlink_bw &&
	    (!L->has_preset || ft_node_preset(n->preset, &base) < 0 ||
	     base.nvlink_gen != n->nvlink_gen))
		return ft__spec_perr_field(
		        L, "nodes.nvlink.bandwidth", FT_EPARSE,
		        "expected a bandwidth per GPU and direction for NVLink %u, "
		        "got nothing",
		        n->nvlink_gen);
	if (n->nvlink_gen == 0)
		n->lat_nvlink_s = 0; /* no NVLink, no NVLink hop */
	rc = check_gpu_attach(L);
	if (rc < 0)
		return rc;
	/* PCIe rates follow generation and width unless given. */
	if (!L->given_gpu_bw && (!L->has_preset || L->given_pcie_gen || L->given_gpu_width))
		n->pcie_Bps_gpu = ft__spec_pcie_Bps(n->pcie_gen, n->pcie_width_gpu);
	if (!L->given_nic_bw && (!L->has_preset || L->given_pcie_gen || L->given_nic_width))
		n->pcie_Bps_nic = ft__spec_pcie_Bps(n->pcie_gen, n->pcie_width_nic);
	/*
	 * The NIC rate and latency follow a given link preset unless given too;
	 * a rate alone that differs from the preset's link makes the link custom.
	 */
	lp = ft_link_preset_find(n->nic_link);
	if (L->given_nic_link && lp) {
		if (!L->given_nic_rate)
			n->nic_Bps = lp->rate_Bps;
		if (!L->given_nic_lat)
			n->lat_nic_s = lp->lat_nic_s;
	} else if (L->given_nic_rate && lp && lp->rate_Bps != n->nic_Bps) {
		n->nic_link[0] = '\0';
	}
	if (n->nnics && !(n->nic_Bps > 0))
		return ft__spec_perr_field(
		        L, "nodes.nics.rate", FT_EPARSE,
		        "expected a link: preset or a rate: for the %u NICs, got nothing",
		        n->nnics);
	/* New counts invalidate the preset's placement: lay it out again. */
	if (!L->has_preset || L->given_gpus || L->given_nics || L->given_switches || L->given_numa)
		ft__spec_default_placement(n);
	pl = placement_node(L, nodes);
	if (pl) {
		rc = ft__spec_walk(L, pl, "nodes.placement", placement_fields,
		                   FT_ARRAY_SIZE(placement_fields), 0, NULL);
		if (rc < 0)
			return rc;
		want[PL_GPU_SWITCH] = want[PL_GPU_NUMA] = want[PL_GPU_NIC] = n->ngpus;
		want[PL_NIC_SWITCH] = want[PL_NIC_NUMA] = n->nnics;
		want[PL_SWITCH_NUMA] = n->npcie_switches;
		for (i = 0; i < PL_COUNT; i++) {
			if (!(L->given_place & (1u << i)) || L->placement_len[i] == want[i])
				continue;
			snprintf(path, sizeof(path), "nodes.placement.%s", list_name[i]);
			return ft__spec_perr(L,
			                     &ft__spec_lookup(L->doc, pl, list_name[i])->start_mark,
			                     FT_EPARSE, path,
			                     "expected %u entries (one per %s), got %u", want[i],
			                     i < 3 ? "GPU" :
			                     i < 5 ? "NIC" :
			                             "PCIe switch",
			                     L->placement_len[i]);
		}
	}
	return 0;
}

static int parse_groups(struct loader *L, yaml_node_t *seq);

int
ft__spec_parse_nodes(struct loader *L, yaml_node_t *nodes)
{
	yaml_node_t *pv;
	const char *s;
	int rc;

	if (nodes->type == YAML_SEQUENCE_NODE)
		return parse_groups(L, nodes);
	if (nodes->type != YAML_MAPPING_NODE)
		return ft__spec_expected(L, nodes, "nodes",
		                         "a mapping (preset, count, gpus, ...) or a list of them");
	L->spec->nnodes = 1;
	pv = ft__spec_lookup(L->doc, nodes, "preset");
	if (pv) {
		s = ft__spec_scalar(pv);
		if (!s || ft_node_preset(s, NODE) < 0)
			return ft__spec_expected(
			        L, pv, "nodes.preset",
			        "a node preset (dgx-a100, dgx-b200, dgx-h100, hgx-h200, "
			        "pcie-l40s)");
		L->has_preset = true;
	} else {
		ft__spec_node_defaults(NODE);
	}
	rc = ft__spec_walk(L, nodes, "nodes", node_fields, FT_ARRAY_SIZE(node_fields), 0, NULL);
	if (rc < 0)
		return rc;
	return finish_node(L, nodes);
}

/* A group's entries are read under the paths of a single nodes mapping: name the group
 * in the message's field ("t.yaml:4:5: nodes.gpu_model: ..." -> "nodes[1].gpu_model"). */
static void
name_group(struct ft_error *err, uint32_t g)
{
	char idx[16], *p;
	size_t len, k;

	if (!err || !(p = strstr(err->msg, ": nodes")) || (p[7] != '.' && p[7] != ':'))
		return;
	p += 7;
	k = (size_t)snprintf(idx, sizeof(idx), "[%u]", g);
	len = strlen(err->msg);
	if (len + k >= sizeof(err->msg))
		return;
	memmove(p + k, p, len - (size_t)(p - err->msg) + 1);
	memcpy(p, idx, k);
}

/*
 * Node groups: nodes: as a list, each entry a nodes mapping of its own (preset, count,
 * overrides, placement). Each is read and checked alone, with only its own marks, so
 * an error names its line; the field is then "nodes[g].<field>".
 */
static int
parse_groups(struct loader *L, yaml_node_t *seq)
{
	struct ft_cluster_spec *cs = L->spec;
	size_t keep = L->nmarks, n = (size_t)(seq->data.sequence.items.top -
	                                      seq->data.sequence.items.start);
	uint64_t total = 0;
	yaml_node_item_t *it;
	uint32_t g = 0;
	int rc;

	if (n < 2 || n > FT_SPEC_MAX_GROUPS)
		return ft__spec_expected(L, seq, "nodes",
		                         "a list of 2 to 8 node groups (one node kind: a mapping)");
	for (it = seq->data.sequence.items.start; it < seq->data.sequence.items.top; it++, g++) {
		yaml_node_t *e = yaml_document_get_node(L->doc, *it);
		char path[FT_SPEC_FIELD_MAX], field[FT_SPEC_FIELD_MAX];
		struct ft_error err = { 0 };

		snprintf(path, sizeof(path), "nodes[%u]", g);
		if (!e || e->type != YAML_MAPPING_NODE)
			return ft__spec_expected(L, e ? e : seq, path,
			                         "a node group (preset, count, gpus, ...)");
		/* What the previous group gave says nothing of this one. */
		L->nmarks = keep;
		memset(&L->has_preset, 0,
		       offsetof(struct loader, given_place) + sizeof(L->given_place) -
		               offsetof(struct loader, has_preset));
		memset(L->placement_len, 0, sizeof(L->placement_len));
		memset(&cs->node, 0, sizeof(cs->node));
		rc = ft__spec_parse_nodes(L, e);
		if (rc < 0) {
			name_group(L->err, g);
			return rc;
		}
		rc = ft__spec_check_node(&cs->node, field, &err);
		if (rc < 0) {
			const struct mark *m = ft__spec_find_mark(L, field);
			struct mark at = { "", (unsigned)e->start_mark.line + 1,
				           (unsigned)e->start_mark.column + 1 };

			if (m->line == 1 && m->col == 1)
				m = &at; /* not written: the group's own line */
			return ft_error_set(L->err, rc, "%s:%u:%u: nodes[%u]%s: %s", L->file,
			                    m->line, m->col, g,
			                    strncmp(field, "nodes", 5) == 0 ? field + 5 : field,
			                    err.msg);
		}
		cs->groups[g].count = cs->nnodes;
		cs->groups[g].node = cs->node;
		total += cs->nnodes;
	}
	if (total > 1000000)
		return ft__spec_perr(L, &seq->start_mark, FT_ERANGE, "nodes",
		                     "expected at most 1000000 nodes in all, got %llu",
		                     (unsigned long long)total);
	cs->ngroups = g;
	cs->nnodes = (uint32_t)total;
	cs->node = cs->groups[0].node;
	L->given_count = true;
	return 0;
}

#undef NODE

/* SPDX-License-Identifier: MIT */
/*
 * topo/graph.c - building the compact graph: vertex array, CSR link array,
 * accessors, link scales (the fault overlay) and memory accounting.
 *
 * Builders append one struct ft_edge per physical link; finish() turns the
 * edge list into directed links in CSR order, each vertex's out-links sorted
 * by (up, dst), with every link's reverse recorded. No per-link allocation:
 * the graph is five arrays.
 */
#include "topo_int.h"

FT__NAME_TABLE(vertex_kind_names, FT_VERTEX_KIND_MAP, FT_V_COUNT);
FT__NAME_TABLE(link_kind_names, FT_LINK_KIND_MAP, FT_L_COUNT);

FT__NAME_GETTER(ft_vertex_kind_name, enum ft_vertex_kind, vertex_kind_names, FT_V_COUNT)
FT__NAME_GETTER(ft_link_kind_name, enum ft_link_kind, link_kind_names, FT_L_COUNT)

int
ft__topo_set_vertex(struct ft_topo *t, uint32_t id, enum ft_vertex_kind kind, unsigned tier,
                    unsigned plane, uint32_t node, uint32_t local, uint32_t group)
{
	struct ft_vertex *v;

	if (FT_NEVER(id >= t->nv))
		return FT_EINVAL;
	v = &t->v[id];
	v->kind = (uint8_t)kind;
	v->tier = (uint8_t)tier;
	v->plane = (uint8_t)FT_MIN(plane, 255u);
	v->node = node;
	v->local = local;
	v->group = group;
	return 0;
}

int
ft__topo_add_edge(struct ft_builder *b, uint32_t a, uint32_t bv, enum ft_link_kind kind,
                  unsigned tier, bool up, double cap_Bps, double lat_ab_s, double lat_ba_s)
{
	struct ft_edge e = {
		.a = a,
		.b = bv,
		.kind = (uint8_t)kind,
		.tier = (uint8_t)tier,
		.up = up ? 1 : 0,
		.cap_Bps = cap_Bps,
		.lat_ab_s = lat_ab_s,
		.lat_ba_s = lat_ba_s,
	};

	if (FT_NEVER(a >= b->t->nv || bv >= b->t->nv || a == bv))
		return ft_error_set(b->err, FT_EINVAL, "topology: bad edge %" PRIu32 "-%" PRIu32, a,
		                    bv);
	if (b->edges.len >= (UINT32_MAX - 1) / 2)
		return ft_error_set(b->err, FT_ERANGE, "topology: more than 2^31 links");
	if (ft_vec_push(&b->edges, &e) < 0)
		return ft_error_set(b->err, FT_ENOMEM, "topology: out of memory for links");
	return 0;
}

double
ft__topo_fabric_Bps(const struct ft_topo *t)
{
	return t->spec.fabric.link_Bps > 0 ? t->spec.fabric.link_Bps : t->spec.node.nic_Bps;
}

double
ft__topo_host_Bps_node(const struct ft_topo *t, uint32_t node)
{
	const struct ft_node_spec *n = ft_spec_node_at(&t->spec, node);

	return n->nic_Bps > 0 ? n->nic_Bps : t->spec.fabric.link_Bps;
}

double
ft__topo_host_Bps(const struct ft_topo *t)
{
	return t->spec.node.nic_Bps > 0 ? t->spec.node.nic_Bps : t->spec.fabric.link_Bps;
}

struct sort_key {
	uint64_t key; /* up << 32 | dst */
	uint32_t idx; /* position before sorting: the tie-break keeps the order deterministic */
};

static int
cmp_sort_key(const void *pa, const void *pb)
{
	const struct sort_key *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Edge list -> CSR links sorted per vertex by (up, dst). */
static int
finish(struct ft_builder *b)
{
	struct ft_topo *t = b->t;
	const struct ft_edge *e = b->edges.data;
	size_t ne = b->edges.len;
	struct ft_link *raw = NULL;
	struct sort_key *keys = NULL;
	uint32_t *fill = NULL, *pos = NULL;
	int rc = FT_ENOMEM;

	t->nl = (uint32_t)(2 * ne);
	t->off = ft_calloc((size_t)t->nv + 1, sizeof(*t->off));
	t->up_first = ft_calloc((size_t)t->nv, sizeof(*t->up_first));
	fill = ft_calloc((size_t)t->nv + 1, sizeof(*fill));
	raw = ft_calloc(t->nl ? t->nl : 1, sizeof(*raw));
	t->l = ft_calloc(t->nl ? t->nl : 1, sizeof(*t->l));
	keys = ft_calloc(t->nl ? t->nl : 1, sizeof(*keys));
	pos = ft_calloc(t->nl ? t->nl : 1, sizeof(*pos));
	if (!t->off || !t->up_first || !fill || !raw || !t->l || !keys || !pos)
		goto out;

	for (size_t i = 0; i < ne; i++) {
		t->off[e[i].a + 1]++;
		t->off[e[i].b + 1]++;
	}
	for (uint32_t v = 0; v < t->nv; v++)
		t->off[v + 1] += t->off[v];
	memcpy(fill, t->off, ((size_t)t->nv + 1) * sizeof(*fill));

	/* Place both directions; raw[] is grouped by source, in edge order. */
	for (size_t i = 0; i < ne; i++) {
		uint32_t p = fill[e[i].a]++, q = fill[e[i].b]++;

		raw[p] = (struct ft_link){ .src = e[i].a,
			                   .dst = e[i].b,
			                   .rev = q,
			                   .kind = e[i].kind,
			                   .tier = e[i].tier,
			                   .up = e[i].up,
			                   .cap_Bps = e[i].cap_Bps,
			                   .lat_s = e[i].lat_ab_s };
		raw[q] = (struct ft_link){ .src = e[i].b,
			                   .dst = e[i].a,
			                   .rev = p,
			                   .kind = e[i].kind,
			                   .tier = e[i].tier,
			                   .up = 0,
			                   .cap_Bps = e[i].cap_Bps,
			                   .lat_s = e[i].lat_ba_s };
	}
	/* Sort each vertex's segment by (up, dst); pos[] maps raw -> final. */
	for (uint32_t l = 0; l < t->nl; l++)
		keys[l] = (struct sort_key){ ((uint64_t)raw[l].up << 32) | raw[l].dst, l };
	for (uint32_t v = 0; v < t->nv; v++) {
		uint32_t lo = t->off[v], n = t->off[v + 1] - lo;

		if (n > 1)
			qsort(keys + lo, n, sizeof(*keys), cmp_sort_key);
		t->up_first[v] = t->off[v + 1];
		for (uint32_t i = 0; i < n; i++) {
			pos[keys[lo + i].idx] = lo + i;
			if (raw[keys[lo + i].idx].up && t->up_first[v] == t->off[v + 1])
				t->up_first[v] = lo + i;
		}
	}
	for (uint32_t l = 0; l < t->nl; l++) {
		t->l[pos[l]] = raw[l];
		t->l[pos[l]].rev = pos[raw[l].rev];
	}
	rc = 0;
out:
	ft_free(raw);
	ft_free(keys);
	ft_free(fill);
	ft_free(pos);
	if (rc < 0)
		return ft_error_set(b->err, rc, "topology: out of memory for %zu links", 2 * ne);
	return 0;
}

/* How a node's GPUs are joined, for messages. */
static const char *
nvlink_kind(const struct ft_node_spec *n)
{
	if (n->nvlink_gen == 0)
		return "no NVLink";
	return n->nvswitch ? "NVLink through an NVSwitch" : "NVLink without a switch";
}

static int
check_spec(const struct ft_cluster_spec *s, struct ft_error *err)
{
	const struct ft_node_spec *n = &s->node;

	if (s->nnodes == 0)
		return ft_error_set(err, FT_EINVAL, "nodes.count: expected at least 1 node, got 0");
	if (n->ngpus == 0 || n->ngpus > FT_SPEC_MAX_GPUS)
		return ft_error_set(err, FT_EINVAL, "nodes.gpus: expected 1..%d, got %" PRIu32,
		                    FT_SPEC_MAX_GPUS, n->ngpus);
	if (n->nnics > FT_SPEC_MAX_NICS)
		return ft_error_set(err, FT_EINVAL,
		                    "nodes.nics.count: expected 0..%d, got %" PRIu32,
		                    FT_SPEC_MAX_NICS, n->nnics);
	if (n->npcie_switches > FT_SPEC_MAX_PCIE_SWITCHES)
		return ft_error_set(err, FT_EINVAL,
		                    "nodes.pcie.switches: expected 0..%d, got %" PRIu32,
		                    FT_SPEC_MAX_PCIE_SWITCHES, n->npcie_switches);
	if (n->nnuma > 16)
		return ft_error_set(err, FT_EINVAL,
		                    "nodes.numa.domains: expected 0..16, got %" PRIu32, n->nnuma);
	if (s->fabric.kind != FT_FABRIC_NONE && s->nnodes > 1 && n->nnics == 0)
		return ft_error_set(err, FT_EINVAL,
		                    "nodes.nics.count: a fabric of %" PRIu32
		                    " nodes needs NICs, got 0",
		                    s->nnodes);
	if (s->fabric.kind != FT_FABRIC_NONE && !(ft__topo_fabric_Bps_spec(s) > 0))
		return ft_error_set(err, FT_EINVAL,
		                    "fabric.link: expected a link rate > 0 (or the NICs' rate)");
	/* Node groups may differ in GPUs per node, rates, NICs and PCIe/NUMA placement
	 * (each has its own layout), not in NVLink kind, NICs per GPU or NVLink domains. */
	for (uint32_t g = 1; g < s->ngroups && g < FT_SPEC_MAX_GROUPS; g++) {
		const struct ft_node_spec *o = &s->groups[g].node;

		if (o->nvswitch != n->nvswitch || (o->nvlink_gen > 0) != (n->nvlink_gen > 0) ||
		    FT_MAX(o->nics_per_gpu, 1u) != FT_MAX(n->nics_per_gpu, 1u) ||
		    o->nvlink_domain_nodes > 1 || n->nvlink_domain_nodes > 1)
			return ft_error_set(
			        err, FT_EINVAL,
			        "nodes[%" PRIu32 "]: expected %s, %" PRIu32
			        " NIC%s per GPU and no NVLink domain across nodes, as nodes[0], got "
			        "%s, %" PRIu32 " per GPU: node groups may differ in GPU model and "
			        "count, NICs and PCIe placement, not in those",
			        g, nvlink_kind(n), FT_MAX(n->nics_per_gpu, 1u),
			        FT_MAX(n->nics_per_gpu, 1u) == 1 ? "" : "s", nvlink_kind(o),
			        FT_MAX(o->nics_per_gpu, 1u));
		if (o->nnics > FT_SPEC_MAX_NICS || o->npcie_switches > FT_SPEC_MAX_PCIE_SWITCHES ||
		    o->nnuma > 16)
			return ft_error_set(err, FT_EINVAL,
			                    "nodes[%" PRIu32 "]: expected at most %d NICs, %d PCIe "
			                    "switches and 16 NUMA domains, got %" PRIu32 ", %" PRIu32
			                    " and %" PRIu32,
			                    g, FT_SPEC_MAX_NICS, FT_SPEC_MAX_PCIE_SWITCHES, o->nnics,
			                    o->npcie_switches, o->nnuma);
	}
	return 0;
}

double
ft__topo_fabric_Bps_spec(const struct ft_cluster_spec *s)
{
	return s->fabric.link_Bps > 0 ? s->fabric.link_Bps : s->node.nic_Bps;
}

int
ft__topo_fabric_tech(const struct ft_cluster_spec *spec)
{
	const struct ft_link_preset *lp = ft_link_preset_find(spec->fabric.link);

	if (!lp)
		lp = ft_link_preset_find(spec->node.nic_link);
	return lp ? (int)lp->tech : -1;
}

const char *
ft__route_minhop_unfit(const struct ft_cluster_spec *spec)
{
	int tc;

	if (spec->fabric.kind != FT_FABRIC_FAT_TREE &&
	    spec->fabric.kind != FT_FABRIC_RAIL_FAT_TREE &&
	    spec->fabric.kind != FT_FABRIC_MULTI_PLANE)
		return "minhop fills an InfiniBand fat tree's forwarding tables (OpenSM); a "
		       "dragonfly takes minimal or valiant, a torus dor";
	tc = ft__topo_fabric_tech(spec);
	if (tc == FT_TECH_IB)
		return NULL;
	if (tc == FT_TECH_ROCE)
		return "minhop is an InfiniBand subnet manager's routing (OpenSM); on RoCE the "
		       "switches hash (ecmp) or route adaptively";
	return "minhop is an InfiniBand subnet manager's routing (OpenSM); this fabric is not "
	       "InfiniBand: use ecmp, dmodk or adaptive";
}

bool
ft__route_by_dlid(const struct ft_topo *t)
{
	return t->by_dlid;
}

static int
plan_fabric(struct ft_topo *t, struct ft_error *err)
{
	switch (t->spec.fabric.kind) {
	case FT_FABRIC_NONE:
		return 0;
	case FT_FABRIC_FAT_TREE:
	case FT_FABRIC_RAIL_FAT_TREE:
	case FT_FABRIC_MULTI_PLANE:
		return ft__topo_fattree_plan(t, err);
	case FT_FABRIC_DRAGONFLY:
		return ft__topo_dragonfly_plan(t, err);
	case FT_FABRIC_TORUS:
		return ft__topo_torus_plan(t, err);
	case FT_FABRIC_KIND_COUNT:
		break;
	}
	return ft_error_set(err, FT_EINVAL, "fabric.kind: unknown fabric kind %d",
	                    (int)t->spec.fabric.kind);
}

static int
build_fabric(struct ft_builder *b)
{
	switch (b->t->spec.fabric.kind) {
	case FT_FABRIC_FAT_TREE:
	case FT_FABRIC_RAIL_FAT_TREE:
	case FT_FABRIC_MULTI_PLANE:
		return ft__topo_fattree_build(b);
	case FT_FABRIC_DRAGONFLY:
		return ft__topo_dragonfly_build(b);
	case FT_FABRIC_TORUS:
		return ft__topo_torus_build(b);
	default:
		return 0;
	}
}

/* Whether nodes of @a and @b have the same interior (counts and placement). */
static bool
same_shape(const struct ft_node_spec *a, const struct ft_node_spec *b)
{
	return a->ngpus == b->ngpus && a->nnics == b->nnics &&
	       a->npcie_switches == b->npcie_switches && a->nnuma == b->nnuma &&
	       a->nvswitch == b->nvswitch && (a->nvlink_gen > 0) == (b->nvlink_gen > 0) &&
	       !memcmp(a->gpu_pcie_switch, b->gpu_pcie_switch, sizeof(a->gpu_pcie_switch)) &&
	       !memcmp(a->gpu_numa, b->gpu_numa, sizeof(a->gpu_numa)) &&
	       !memcmp(a->gpu_nic, b->gpu_nic, sizeof(a->gpu_nic)) &&
	       !memcmp(a->nic_pcie_switch, b->nic_pcie_switch, sizeof(a->nic_pcie_switch)) &&
	       !memcmp(a->nic_numa, b->nic_numa, sizeof(a->nic_numa)) &&
	       !memcmp(a->pcie_switch_numa, b->pcie_switch_numa, sizeof(a->pcie_switch_numa));
}

uint32_t
ft__topo_nic_stride(const struct ft_cluster_spec *spec, bool *groups)
{
	uint32_t ng = FT_MIN(spec->ngroups, (uint32_t)FT_SPEC_MAX_GROUPS), g, stride;

	*groups = false;
	for (g = 1; g < ng; g++)
		*groups = *groups || !same_shape(&spec->groups[g].node, &spec->node);
	stride = FT_MAX(spec->node.nnics, 1u);
	for (g = 0; *groups && g < ng; g++)
		stride = FT_MAX(stride, spec->groups[g].node.nnics);
	return stride;
}

/*
 * The layouts of the nodes' interiors into @t and their vertex count into @nv:
 * one for every node when the groups share one shape, else one per group,
 * the groups' nodes one after the other.
 */
static int
plan_nodes(struct ft_topo *t, uint64_t *nv, struct ft_error *err)
{
	const struct ft_cluster_spec *s = &t->spec;
	uint32_t ng = FT_MIN(s->ngroups, (uint32_t)FT_SPEC_MAX_GROUPS), node0 = 0, g;
	bool diff;
	int rc = ft__topo_node_layout(&s->node, &t->nl_tpl, err);

	if (rc < 0)
		return rc;
	t->nic_stride = ft__topo_nic_stride(s, &diff);
	*nv = (uint64_t)s->nnodes * t->nl_tpl.per_node;
	if (!diff)
		return 0;
	*nv = 0;
	for (g = 0; g < ng; g++) {
		rc = ft__topo_node_layout(&s->groups[g].node, &t->nl_grp[g], err);
		if (rc < 0) {
			ft_error_prefix(err, "nodes[%" PRIu32 "]: ", g);
			return rc;
		}
		t->grp_node0[g] = node0;
		t->grp_base[g] = (uint32_t)FT_MIN(*nv, (uint64_t)UINT32_MAX);
		*nv += (uint64_t)s->groups[g].count * t->nl_grp[g].per_node;
		node0 += s->groups[g].count;
	}
	t->ngl = ng;
	return 0;
}

/* The in-node distance tables' bytes. */
static size_t
layouts_bytes(const struct ft_topo *t)
{
	size_t b = 0;

	if (!t->ngl)
		return (size_t)t->nl_tpl.per_node * t->nl_tpl.per_node * sizeof(uint16_t);
	for (uint32_t g = 0; g < t->ngl; g++)
		b += (size_t)t->nl_grp[g].per_node * t->nl_grp[g].per_node * sizeof(uint16_t);
	return b;
}

int
ft_topo_build(const struct ft_cluster_spec *spec, struct ft_topo **out, struct ft_error *err)
{
	struct ft_builder b = { .err = err };
	struct ft_topo *t;
	uint64_t nv;
	int rc;

	*out = NULL;
	if (!spec)
		return ft_error_set(err, FT_EINVAL, "topology: no spec");
	rc = check_spec(spec, err);
	if (rc < 0)
		return rc;
	t = ft_calloc(1, sizeof(*t));
	if (!t)
		return ft_error_set(err, FT_ENOMEM, "topology: out of memory");
	t->spec = *spec;
	t->by_dlid = ft__topo_fabric_tech(spec) == FT_TECH_IB;
	b.t = t;
	ft_vec_init(&b.edges, sizeof(struct ft_edge));

	rc = plan_nodes(t, &nv, err);
	if (rc < 0)
		goto fail;
	if (nv >= UINT32_MAX / 2) {
		rc = ft_error_set(err, FT_ERANGE,
		                  "nodes.count: %" PRIu32 " nodes are too many vertices",
		                  spec->nnodes);
		goto fail;
	}
	t->switch_base = (uint32_t)nv;
	rc = plan_fabric(t, err);
	if (rc < 0)
		goto fail;
	nv += t->nswitches;
	if (nv >= UINT32_MAX / 2) {
		rc = ft_error_set(err, FT_ERANGE, "topology: too many vertices (%" PRIu64 ")", nv);
		goto fail;
	}
	t->nv = (uint32_t)nv;
	t->v = ft_calloc(t->nv, sizeof(*t->v));
	t->nic_key = ft_calloc((size_t)spec->nnodes * t->nic_stride, sizeof(*t->nic_key));
	if (!t->v || !t->nic_key) {
		rc = ft_error_set(err, FT_ENOMEM,
		                  "topology: out of memory for %" PRIu32 " vertices", t->nv);
		goto fail;
	}
	for (uint32_t n = 0; n < spec->nnodes; n++) {
		rc = ft__topo_node_build(&b, n);
		if (rc < 0)
			goto fail;
	}
	rc = build_fabric(&b);
	if (rc < 0)
		goto fail;
	rc = finish(&b);
	if (rc < 0)
		goto fail;
	rc = ft__topo_node_dist(t);
	if (rc < 0) {
		ft_error_set(err, rc, "topology: out of memory");
		goto fail;
	}
	ft_vec_release(&b.edges);
	if (t->by_dlid && t->ntrees > 0) {
		t->lft = ft_calloc(1, sizeof(*t->lft));
		if (!t->lft) {
			rc = ft_error_set(err, FT_ENOMEM, "topology: out of memory");
			goto fail;
		}
	}
	/* The arrays (not the fixed-size struct): what grows with the cluster. */
	t->mem_bytes = (size_t)t->nv * (sizeof(*t->v) + 2 * sizeof(uint32_t)) +
	               (size_t)t->nl * sizeof(*t->l) +
	               layouts_bytes(t) + (size_t)spec->nnodes * t->nic_stride * sizeof(uint32_t) +
	               (size_t)t->ntrees * sizeof(struct ft_tree);
	*out = t;
	return 0;
fail:
	ft_vec_release(&b.edges);
	ft_topo_free(t);
	return rc;
}

void
ft_topo_free(struct ft_topo *t)
{
	if (!t)
		return;
	ft_free(t->v);
	ft_free(t->l);
	ft_free(t->off);
	ft_free(t->up_first);
	ft_free(t->scale);
	ft_free(t->nic_key);
	if (t->lft)
		ft_free(t->lft->port);
	ft_free(t->lft);
	ft_free(t->trees);
	ft_free(t->nl_tpl.dist);
	for (uint32_t g = 0; g < t->ngl; g++)
		ft_free(t->nl_grp[g].dist);
	ft_free(t);
}

const struct ft_cluster_spec *
ft_topo_spec(const struct ft_topo *t)
{
	return &t->spec;
}

uint32_t
ft_topo_nvertices(const struct ft_topo *t)
{
	return t->nv;
}

uint32_t
ft_topo_nlinks(const struct ft_topo *t)
{
	return t->nl;
}

const struct ft_vertex *
ft_topo_vertex(const struct ft_topo *t, uint32_t v)
{
	return v < t->nv ? &t->v[v] : NULL;
}

const struct ft_link *
ft_topo_link(const struct ft_topo *t, uint32_t l)
{
	return l < t->nl ? &t->l[l] : NULL;
}

void
ft_topo_out_links(const struct ft_topo *t, uint32_t v, uint32_t *first, uint32_t *count)
{
	if (v >= t->nv) {
		*first = 0;
		*count = 0;
		return;
	}
	*first = t->off[v];
	*count = t->off[v + 1] - t->off[v];
}

uint32_t
ft_topo_gpu(const struct ft_topo *t, uint32_t node, uint32_t gpu)
{
	if (node >= t->spec.nnodes || gpu >= ft__topo_node_nl(t, node)->ngpus)
		return UINT32_MAX;
	return ft__topo_node_base(t, node) + ft__topo_node_nl(t, node)->gpu0 + gpu;
}

uint32_t
ft_topo_nic(const struct ft_topo *t, uint32_t node, uint32_t nic)
{
	if (node >= t->spec.nnodes || nic >= ft__topo_node_nl(t, node)->nnics)
		return UINT32_MAX;
	return ft__topo_node_base(t, node) + ft__topo_node_nl(t, node)->nic0 + nic;
}

size_t
ft_topo_memory(const struct ft_topo *t)
{
	return t->mem_bytes + (t->scale ? (size_t)t->nl * sizeof(double) : 0) +
	       (t->lft && t->lft->port ? (size_t)t->nswitches * t->lft->row * sizeof(uint32_t) : 0);
}

int
ft_topo_set_link_scale(struct ft_topo *t, uint32_t link, double scale)
{
	if (!t || link >= t->nl || !(scale >= 0.0) || scale > 1.0)
		return FT_EINVAL;
	if (!t->scale) {
		if (scale == 1.0)
			return 0;
		t->scale = ft_malloc((size_t)t->nl * sizeof(double));
		if (!t->scale)
			return FT_ENOMEM;
		for (uint32_t i = 0; i < t->nl; i++)
			t->scale[i] = 1.0;
	}
	if (t->scale[link] == 0.0 && scale != 0.0) {
		t->ndown--;
		t->link_gen++;
	} else if (t->scale[link] != 0.0 && scale == 0.0) {
		t->ndown++;
		t->link_gen++;
	}
	t->scale[link] = scale;
	return 0;
}

double
ft_topo_link_scale(const struct ft_topo *t, uint32_t link)
{
	if (!t || link >= t->nl)
		return 0.0;
	return t->scale ? t->scale[link] : 1.0;
}

uint32_t
ft__topo_nic_host_link(const struct ft_topo *t, uint32_t nic)
{
	uint32_t l = t->up_first[nic];

	return l < t->off[nic + 1] && t->l[l].kind == FT_L_HOST ? l : UINT32_MAX;
}

uint32_t
ft__topo_links_to_range(const struct ft_topo *t, uint32_t v, uint32_t lo, uint32_t hi,
                        uint32_t *first)
{
	/* The non-up part [off, up_first) is sorted by dst: binary search, then scan. */
	uint32_t a = t->off[v], b = t->up_first[v], e;

	while (a < b) {
		uint32_t mid = a + (b - a) / 2;

		if (t->l[mid].dst < lo)
			a = mid + 1;
		else
			b = mid;
	}
	for (e = a; e < t->up_first[v] && t->l[e].dst < hi; e++)
		;
	*first = a;
	return e - a;
}

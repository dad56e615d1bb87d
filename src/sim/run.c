/* SPDX-License-Identifier: MIT */
/*
 * sim/run.c - run a scenario: build the cluster, set its links to the rates
 * NCCL reaches, apply faults, place each job's ranks on GPUs, pick each
 * collective's algorithm and protocol as NCCL's tuner does (unless the op
 * names them), compile it into a schedule, spread it over rail-aligned
 * channels, submit it and the background traffic to the chosen engine, run,
 * and gather the report (rows in the shared data model, flow completion
 * times, per-link counters, the hottest links and per-tier utilization).
 */
#include "run_int.h"
#include "prep.h"

#include <sys/resource.h>

#include <fabtune/model.h>
#include <fabtune/progress.h>
#include <fabtune/rng.h>
#include <fabtune/sim.h>

#define RNG_PLACEMENT  0x706c6163u /* stream kinds (ft_rng_stream) */
#define RNG_BACKGROUND 0x6267u
#define RNG_JITTER     0x6a6974u

/* Where job @ji's field is for an error: "file:line:col: jobs[i].<field>", or the option
 * @opt for a scenario built from the command line (ft__scenario_job_where); the text lives
 * in a buffer of the enclosing block. */
#define WHERE(ji, opt, ...)                                                            \
	(sc ? ft__scenario_job_where(sc, ji, opt, (char[320]){ 0 }, 320, __VA_ARGS__) : \
	      (opt))


/* Whether the nodes from @first on differ in GPU count. */
static bool
nodes_differ(const struct ft_topo *t, uint32_t first)
{
	const struct ft_cluster_spec *spec = ft_topo_spec(t);
	uint32_t k, g = ft__sim_node_ngpus(t, first);

	for (k = first + 1; spec->ngroups > 1 && k < spec->nnodes; k++)
		if (ft__sim_node_ngpus(t, k) != g)
			return true;
	return false;
}

/* Whether every node of @jr's ranks is of node @node0's kind (its group's node). */
static bool
one_kind(const struct ft_topo *t, const struct job_run *jr, uint32_t node0)
{
	const struct ft_node_spec *kind = ft__sim_node(t, node0);

	for (uint32_t r = 0; r < jr->nranks; r++)
		if (ft__sim_node(t, ft_topo_vertex(t, jr->rank_gpu[r])->node) != kind)
			return false;
	return true;
}

/*
 * Packed placement on nodes of different GPU counts (node groups): rank after
 * rank on every GPU of each node from the job's first on, as NCCL numbers a
 * job launched one process per GPU. When the nodes the job fills hold as many
 * ranks each, it is an ordinary job of that many ranks per node; else the
 * job keeps its node boundaries for the channels (node_first).
 */
static int
place_uneven(const struct ft_scenario *sc, const struct sc_job *j, size_t ji,
             const struct ft_topo *t, struct job_run *jr, struct ft_error *err)
{
	const struct ft_cluster_spec *spec = ft_topo_spec(t);
	uint32_t k, r = 0, g, cap = 0;

	for (k = j->first_node; k < spec->nnodes; k++)
		cap += ft__sim_node_ngpus(t, k);
	jr->nranks = j->nranks ? j->nranks : cap;
	if (jr->nranks > cap)
		return ft_error_set(err, FT_ERANGE, "%s: %u ranks don't fit on the %u GPUs of nodes %u to %u",
		                    WHERE(ji, "--ranks", "ranks"), jr->nranks, cap, j->first_node,
		                    spec->nnodes - 1);
	jr->rank_gpu = ft_calloc(FT_MAX(jr->nranks, 1u), sizeof(uint32_t));
	jr->node_first = ft_calloc(spec->nnodes - j->first_node + 1, sizeof(uint32_t));
	jr->node_kind = ft_calloc(spec->nnodes - j->first_node + 1, sizeof(*jr->node_kind));
	if (!jr->rank_gpu || !jr->node_first || !jr->node_kind)
		return ft_error_set(err, FT_ENOMEM, "out of memory");
	for (k = j->first_node; r < jr->nranks; k++) {
		jr->node_first[jr->nnodes] = r;
		jr->node_kind[jr->nnodes++] = ft__sim_node(t, k);
		for (g = 0; g < ft__sim_node_ngpus(t, k) && r < jr->nranks; g++)
			jr->rank_gpu[r++] = ft_topo_gpu(t, k, g);
	}
	jr->node_first[jr->nnodes] = r;
	jr->gpn = jr->nranks ? jr->node_first[1] : 1;
	for (k = 1; k < jr->nnodes; k++)
		if (jr->node_first[k + 1] - jr->node_first[k] != jr->gpn)
			break;
	if (k < jr->nnodes) {
		jr->gpn = 1; /* no uniform node structure: channels follow node_first */
		return 0;
	}
	ft_free(jr->node_first);
	ft_free(jr->node_kind);
	jr->node_first = NULL;
	jr->node_kind = NULL;
	jr->nnodes = 0;
	return 0;
}

/* Explicit ranks in NCCL's order: node by node, local rank by GPU index (qsort). */
static int
cmp_gpu_place(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;

	return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] != y[1] ? (x[1] < y[1] ? -1 : 1) : 0;
}

/*
 * An explicit placement (a list of node:gpu, as `fabtune plan` hands over a
 * data-parallel group of a tensor-parallel job: GPUs 0, 2, 4, 6 of every
 * node) as NCCL runs it: the ranks that share a node are that node's local
 * ranks, the ring and tree visit them node by node in GPU order (kb
 * NA-ALGO-RING, NA-ALGO-TREE), and each uses its own GPU's NIC (the
 * channels' rails come from the placed GPUs, ft__sim_channelize()). Nodes
 * of as many ranks each, on the same GPUs of one kind, are an ordinary job of
 * that many ranks per node; else the job keeps its node boundaries for the
 * channels (node_first), as nodes of different GPU counts do. A GPU placed
 * twice is refused, naming both entries.
 */
static int
place_explicit(const struct ft_scenario *sc, const struct sc_job *j, size_t ji,
               const struct ft_topo *t, struct job_run *jr, struct ft_error *err)
{
	const struct ft_cluster_spec *spec = ft_topo_spec(t);
	uint32_t r, k, n = jr->nranks, *at = ft_calloc(FT_MAX(n, 1u), 3 * sizeof(uint32_t));
	uint32_t *seen = ft_calloc(ft_topo_nvertices(t), sizeof(uint32_t));
	bool same = true;
	int rc = 0;

	if (!at || !seen) {
		rc = ft_error_set(err, FT_ENOMEM, "out of memory");
		goto out;
	}
	for (r = 0; r < n; r++) {
		const uint32_t *p = ft_vec_at(&j->explicit_gpus, r);

		if (p[0] >= spec->nnodes || p[1] >= ft__sim_node_ngpus(t, p[0])) {
			rc = ft_error_set(err, FT_ERANGE, "%s: no GPU %u:%u (%u nodes of %u GPUs)",
			                  WHERE(ji, "--op", "placement[%u]", r), p[0], p[1],
			                  spec->nnodes,
			                  p[0] < spec->nnodes ? ft__sim_node_ngpus(t, p[0]) :
			                                        ft__sim_node_ngpus(t, 0));
			goto out;
		}
		at[3 * r] = p[0];
		at[3 * r + 1] = p[1];
		at[3 * r + 2] = ft_topo_gpu(t, p[0], p[1]);
		if (seen[at[3 * r + 2]]) {
			rc = ft_error_set(err, FT_EINVAL,
			                  "%s: GPU %u:%u is placed twice (placement[%u] too)",
			                  WHERE(ji, "--op", "placement[%u]", r), p[0], p[1],
			                  seen[at[3 * r + 2]] - 1);
			goto out;
		}
		seen[at[3 * r + 2]] = r + 1;
	}
	qsort(at, n, 3 * sizeof(uint32_t), cmp_gpu_place);
	jr->nnodes = 0;
	for (r = 0; r < n; r++) {
		jr->rank_gpu[r] = at[3 * r + 2];
		jr->nnodes += r == 0 || at[3 * r] != at[3 * (r - 1)];
	}
	jr->node_first = ft_calloc(jr->nnodes + 1, sizeof(uint32_t));
	jr->node_kind = ft_calloc(jr->nnodes + 1, sizeof(*jr->node_kind));
	if (!jr->node_first || !jr->node_kind) {
		rc = ft_error_set(err, FT_ENOMEM, "out of memory");
		goto out;
	}
	for (r = 0, k = 0; r < n; r++)
		if (r == 0 || at[3 * r] != at[3 * (r - 1)]) {
			jr->node_first[k] = r;
			jr->node_kind[k++] = ft__sim_node(t, at[3 * r]);
		}
	jr->node_first[k] = n;
	jr->gpn = jr->node_first[1];
	for (k = 1; k < jr->nnodes && same; k++) {
		uint32_t f = jr->node_first[k];

		same = jr->node_first[k + 1] - f == jr->gpn && jr->node_kind[k] == jr->node_kind[0];
		for (r = 0; r < jr->gpn && same; r++)
			same = at[3 * (f + r) + 1] == at[3 * r + 1];
	}
	if (!same) {
		jr->gpn = 1; /* no uniform node structure: channels follow node_first */
		goto out;
	}
	ft_free(jr->node_first);
	ft_free(jr->node_kind);
	jr->node_first = NULL;
	jr->node_kind = NULL;
	jr->nnodes = 0;
out:
	ft_free(at);
	ft_free(seen);
	return rc;
}

/* Place job @j's ranks on GPUs; errors name the job's place in the file. */
static int
place_job(const struct ft_scenario *sc, const struct sc_job *j0, size_t ji, const struct ft_topo *t,
          uint64_t seed, int placement, struct job_run *jr, struct ft_error *err)
{
	struct sc_job jcopy = *j0;
	const struct sc_job *j = &jcopy;

	const struct ft_cluster_spec *spec = ft_topo_spec(t);
	uint32_t gpn, nodes_left, cap, r, node_gpus;

	if (placement >= 0)
		jcopy.placement = (enum sc_placement)placement;
	if (j->first_node >= spec->nnodes)
		return ft_error_set(err, FT_ERANGE, "%s: expected below %u, got %u",
		                    WHERE(ji, "--op", "first_node"), spec->nnodes, j->first_node);
	node_gpus = ft__sim_node_ngpus(t, j->first_node);
	if (!j->gpus_per_node && j->placement == SC_PACKED && nodes_differ(t, j->first_node))
		return place_uneven(sc, j, ji, t, jr, err);
	gpn = j->gpus_per_node ? j->gpus_per_node : node_gpus;
	if (gpn > node_gpus)
		return ft_error_set(err, FT_ERANGE, "%s: expected at most %u, got %u",
		                    WHERE(ji, "--op", "gpus_per_node"), node_gpus, gpn);
	nodes_left = spec->nnodes - j->first_node;
	cap = nodes_left * gpn;
	jr->nranks = j->placement == SC_EXPLICIT ? (uint32_t)j->explicit_gpus.len :
	             j->nranks                   ? j->nranks :
	                                           cap;
	if (jr->nranks > cap && j->placement != SC_EXPLICIT)
		return ft_error_set(err, FT_ERANGE, "%s: %u ranks don't fit on %u nodes x %u GPUs",
		                    WHERE(ji, "--ranks", "ranks"), jr->nranks, nodes_left, gpn);
	jr->rank_gpu = ft_calloc(jr->nranks ? jr->nranks : 1, sizeof(uint32_t));
	if (!jr->rank_gpu)
		return ft_error_set(err, FT_ENOMEM, "out of memory");
	jr->gpn = gpn;
	if (j->placement == SC_EXPLICIT)
		return place_explicit(sc, j, ji, t, jr, err);
	if (j->placement == SC_RANDOM) {
		struct ft_rng rng;
		uint32_t *slots = ft_calloc(cap, sizeof(uint32_t));

		if (!slots)
			return ft_error_set(err, FT_ENOMEM, "out of memory");
		for (r = 0; r < cap; r++)
			slots[r] = r;
		ft_rng_seed(&rng, seed, ft_rng_stream(RNG_PLACEMENT, ji));
		ft_rng_shuffle_u32(&rng, slots, cap);
		for (r = 0; r < jr->nranks; r++)
			jr->rank_gpu[r] =
			        ft_topo_gpu(t, j->first_node + slots[r] / gpn, slots[r] % gpn);
		ft_free(slots);
		jr->gpn = 1; /* no node structure for hierarchical algorithms */
		return 0;
	}
	for (r = 0; r < jr->nranks; r++) {
		uint32_t node, gpu;

		if (j->placement == SC_SPREAD) {
			uint32_t nn = (jr->nranks + gpn - 1) / gpn;

			node = j->first_node + r % nn;
			gpu = r / nn;
		} else {
			node = j->first_node + r / gpn;
			gpu = r % gpn;
		}
		jr->rank_gpu[r] = ft_topo_gpu(t, node, gpu);
	}
	if (j->placement != SC_PACKED)
		jr->gpn = 1;
	/* Fewer packed ranks than a node holds: they all share its first node. */
	if (j->placement == SC_PACKED && jr->nranks < jr->gpn && jr->nranks > 0)
		jr->gpn = jr->nranks;
	if (jr->nranks % jr->gpn)
		jr->gpn = 1;
	return 0;
}

/* The error @rc of one of the simulator's readings of the model (ft__sim_links(): out of
 * memory on node groups), @what, as the run's, named by its op (ops[@k] of job @ji of @sc;
 * @sc NULL: the option): never a default in its place. */
static int
model_err(const struct ft_scenario *sc, size_t ji, size_t k, struct ft_error *err, int rc,
          const char *what)
{
	return ft_error_set(err, rc, "%s: %s: %s", WHERE(ji, "--op", "ops[%zu]", k), what,
	                    ft_strerror(rc));
}

/* The channels of op @o, built as @algo on @spec, into @nch: NCCL's count when given (up to
 * 64, kb NA-CONCEPTS); an NVLS tree on NCCL's NVLS channels (ft_model_nvls_nchannels(): 16
 * on Hopper, 24 or 32 on Blackwell across nodes; every channel carries every head's share);
 * else (and where the model places no such cluster) one per rail the node's ranks use. The
 * model's error (out of memory) is returned. */
static int
nchannels_of(const struct ft_cluster_spec *spec, enum ft_algo algo, const struct sc_op *o,
             uint32_t nnics, uint32_t gpn, uint32_t *nch)
{
	struct ft_model_links l;
	int rc;

	*nch = FT_MIN(FT_MAX(nnics, 1u), FT_MAX(gpn, 1u));
	if (o->channels) {
		*nch = FT_MIN(o->channels, (uint32_t)FT_SPEC_MAX_CHANNELS);
		return 0;
	}
	if (algo != FT_ALGO_NVLS_TREE)
		return 0;
	rc = ft__sim_links(spec, 0, 0, 0, &l);
	if (rc > 0) {
		l.nnodes = FT_MAX(l.nnodes, 2u); /* NCCL runs no NVLS tree inside one node */
		*nch = ft_model_nvls_nchannels(&l);
	}
	return FT_MIN(rc, 0);
}

/*
 * The ring (and tree) channels of a job over several NVLink domains of @sgpn GPUs each
 * (@gpn a tray): the channels NCCL runs (ft_model_run_nchannels(), the model's pipeline
 * count), twice those of its graph in a domain with NICs, each with its share of the
 * graph's bandwidth: 32 on GB200 NVL72 (16 x 45.1 GB/s doubled, the newest release; 15 x
 * 48 -> 30 with 2.26), not one per NIC of the domain; the graph's channels into @graph
 * (the copies run on their graph channel's NIC); 0 elsewhere (inside one domain the ring
 * runs without channel copies, ft__sim_sched_is_flat()), into @nch. The model's error (out
 * of memory) is returned.
 */
static int
domain_nchannels(const struct ft_cluster_spec *spec, enum ft_algo algo, uint32_t nranks,
                 uint32_t sgpn, uint32_t gpn, uint32_t *graph, uint32_t *nch)
{
	struct ft_model_links l;
	uint32_t g;
	int rc;

	*nch = 0;
	if ((algo != FT_ALGO_RING && algo != FT_ALGO_TREE) || sgpn <= gpn || nranks <= sgpn)
		return 0;
	rc = ft__sim_graph_links(spec, nranks, gpn, &l, &g);
	if (rc <= 0 || l.domain_nodes < 2 || g == 0)
		return FT_MIN(rc, 0);
	*graph = g;
	*nch = ft_model_run_nchannels(&l, algo);
	return 0;
}

/* The channels of op @o into @nch; @graph gets the graph's whose copies they are (0: none).
 * The model's error (out of memory) is returned. */
static int
nchannels(const struct ft_cluster_spec *spec, const struct ft_schedule *s, const struct sc_op *o,
          uint32_t nnics, uint32_t sgpn, uint32_t nranks, uint32_t gpn, uint32_t *graph,
          uint32_t *nch)
{
	uint32_t dom = 0;
	int rc;

	*graph = 0;
	*nch = 1;
	if (ft__sim_sched_is_flat(s, sgpn))
		return 0;
	rc = o->channels ? 0 : domain_nchannels(spec, s->algo, nranks, sgpn, gpn, graph, &dom);
	if (rc < 0)
		return rc;
	*nch = dom;
	return dom ? 0 : nchannels_of(spec, s->algo, o, nnics, sgpn, nch);
}

/*
 * The ranks of @jr as NCCL sees them: the node of the first rank (its NICs
 * set the default channels, its GPUs' rails the channels' order: the job's
 * nodes are alike), and the ranks per NVLink "node" (ranks that share one
 * NVLink domain are one node to NCCL, MNNVL): the job's ranks when they all
 * share one domain; the ranks of each domain when the job covers several
 * domains in blocks of equal size, rank order domain by domain (packed
 * placement on whole domains); else the ranks per physical node.
 */
static void
job_shape(const struct ft_topo *t, const struct job_run *jr, uint32_t *node0, uint32_t *sgpn)
{
	uint32_t r, per = 1;

	*node0 = jr->nranks ? ft_topo_vertex(t, jr->rank_gpu[0])->node : 0;
	*sgpn = jr->gpn;
	if (!ft__sim_nvlink_domain_spans_nodes(t) || jr->nranks == 0)
		return;
	while (per < jr->nranks &&
	       ft__sim_same_nvlink_domain(t, *node0, ft_topo_vertex(t, jr->rank_gpu[per])->node))
		per++;
	if (per == jr->nranks) {
		*sgpn = per;
		return;
	}
	if (per <= jr->gpn || jr->nranks % per != 0 || per % jr->gpn != 0)
		return;
	for (r = per; r < jr->nranks; r++) {
		uint32_t node = ft_topo_vertex(t, jr->rank_gpu[r])->node;
		uint32_t head = ft_topo_vertex(t, jr->rank_gpu[r - r % per])->node;
		uint32_t prev = ft_topo_vertex(t, jr->rank_gpu[r - 1])->node;

		if (!ft__sim_same_nvlink_domain(t, head, node) ||
		    (r % per == 0 && ft__sim_same_nvlink_domain(t, prev, node)))
			return;
	}
	*sgpn = per;
}

/*
 * NCCL's NVLS heads per node on @nnodes nodes, node k holding ranks first[k]
 * to first[k + 1] - 1 in trays of @tray_gpus GPUs (0: the node is one tray):
 * every node keeps as many as the one with the fewest (connect.cc,
 * ncclTopoPostset's minHeadNum), each node's own the GPUs that own its NICs
 * (ft__sim_nvls_node_heads(), at most 32); 0 when a node has a single rank
 * (NCCL's NVLS needs two GPUs on every node, src/transport/nvls.cc
 * ncclNvlsInit). A node of NCCL's may be an NVLink domain over several trays
 * (MNNVL): its NICs are those of all its trays.
 */
static uint32_t
nvls_heads(const struct ft_topo *t, const uint32_t *rank_gpu, const uint32_t *gpus,
           uint32_t nnodes, const uint32_t *first, uint32_t tray_gpus)
{
	uint32_t k, heads = UINT32_MAX, at[FT__SIM_NVLS_MAX_HEADS];

	for (k = 0; k < nnodes; k++) {
		uint32_t n = first[k + 1] - first[k];
		const struct ft_node_spec *node =
		        ft__sim_node(t, ft_topo_vertex(t, rank_gpu[first[k]])->node);

		if (n < 2)
			return 0;
		heads = FT_MIN(heads, FT_MAX(ft__sim_nvls_node_heads(node, n, tray_gpus,
		                                                     gpus ? gpus + first[k] : NULL,
		                                                     at),
		                             1u));
	}
	return heads == UINT32_MAX ? 0 : heads;
}

/*
 * Each of the first @n ranks of @rank_gpu's GPU in its node (its tray in an
 * NVLink domain) into a new array, node k's ranks starting at first[k]
 * (@first NULL: every @per ranks); NULL with rc 0 when every rank is on the
 * GPU of its place in the node (packed): the channels' rails are then those
 * of local ranks 0, 1, ... as they are.
 */
static int
placed_gpus(const struct ft_topo *t, const uint32_t *rank_gpu, uint32_t n, uint32_t per,
            const uint32_t *first, uint32_t **out)
{
	uint32_t r, k = 0, base = 0, *g;
	bool in_order = true;

	*out = NULL;
	g = ft_calloc(FT_MAX(n, 1u), sizeof(*g));
	if (!g)
		return FT_ENOMEM;
	for (r = 0; r < n; r++) {
		if (first && r == first[k + 1])
			base = first[++k];
		g[r] = ft_topo_vertex(t, rank_gpu[r])->local;
		in_order = in_order && g[r] == (first ? r - base : r % FT_MAX(per, 1u));
	}
	if (in_order)
		ft_free(g);
	else
		*out = g;
	return 0;
}

/*
 * NCCL's tree (all-reduce) or NVLS tree on a job of @nnodes nodes of @per
 * ranks each (rank order node by node): @sched, the flat schedule of
 * ft_coll_schedule, gets the flows of the same builders as nodes of
 * different GPU counts, a chain in each node and the double binary tree over
 * the nodes (kb NA-ALGO-TREE), or NVLS in each node and a tree per head, one
 * head per NIC (kb NA-ALGO-NVLSTREE). Other schedules are left as they are.
 */
static int
nccl_tree_sched(const struct ft_topo *t, const struct job_run *jr, const uint32_t *gpus,
                uint32_t per, struct ft_schedule *sched)
{
	uint32_t k, nnodes = jr->nranks / FT_MAX(per, 1u), *first;
	int rc = 0;

	/* One node (or one NVLink domain, which NCCL counts as one): NCCL's tree is the
	 * chain alone (src/graph/connect.cc: tree.up and tree.down[0] are the neighbours
	 * in the tree graph's intra order), 2 (n - 1) steps, the model's latency; not the
	 * binary tree over the ranks that ft_coll_schedule() builds. */
	if (per < 1 || jr->nranks < 2 || jr->nranks % per ||
	    (nnodes < 2 && sched->algo != FT_ALGO_TREE) ||
	    !(sched->algo == FT_ALGO_NVLS_TREE ||
	      (sched->algo == FT_ALGO_TREE && sched->op == FT_OP_ALL_REDUCE)))
		return 0;
	first = ft_calloc(nnodes + 1, sizeof(*first));
	if (!first)
		return FT_ENOMEM;
	for (k = 0; k <= nnodes; k++)
		first[k] = k * per;
	if (sched->algo == FT_ALGO_TREE)
		rc = ft__sim_tree_uneven(sched, nnodes, first);
	else
		rc = ft__sim_nvls_tree_uneven(
		        sched, nnodes, first,
		        nvls_heads(t, jr->rank_gpu, gpus, nnodes, first, jr->gpn));
	ft_free(first);
	return rc;
}

/* The cap on each connection of an op, bytes/s (0: none), and what it is where it binds, in
 * the words of the bottleneck column ("": the link its flows cross names it). */
struct op_cap {
	double Bps;
	char what[16];
};

/* @c made the tighter of itself and @b (0 meaning none), which @what names. */
static void
tighter_cap(struct op_cap *c, double b, const char *what)
{
	if (!(b > 0) || (c->Bps > 0 && c->Bps <= b))
		return;
	c->Bps = b;
	ft_strlcpy(c->what, what, sizeof(c->what));
}

/*
 * At NCCL's per-channel cap a tree's or chain's every stage is a kernel moving one chunk a
 * period (NVIDIA/nccl v2.27.7-1 src/device/all_reduce.h runTreeSplit(), broadcast.h and
 * reduce.h: each rank loops over its channel's chunks, taking chunk m once it has come
 * from its children or its parent), so the pipeline takes (loops + stages - 1) periods:
 * the flows' loops at the cap, then (stages - 1) periods of fill. The period is the
 * packet engine's pace (pkt_tree.c ft__pk_cap_period_ps()): the phase's largest
 * connection on the wire over the cap, over its messages cut as that engine cuts them
 * (one chunk of ft_model_chunking_sized() a message on the channels the copies run on,
 * ft__sim_pipe_channels()). The flow engine pays this fill in place of the model's ramp,
 * whose stages move at the links' rates, not the cap's (engine_flow.c whole_pipe()); the packet
 * engine paces stage s's loop m at (m + s) periods (pkt_tree.c cap_pace()).
 */
bool
ft__sim_cap_staged_on(const struct ft_schedule *sc, uint32_t nchannels, double cap_Bps)
{
	bool tree = sc->algo == FT_ALGO_TREE && sc->op == FT_OP_ALL_REDUCE;
	bool chain = sc->algo == FT_ALGO_RING &&
	             (sc->op == FT_OP_BROADCAST || sc->op == FT_OP_REDUCE);

	return (tree || chain) && sc->proto == FT_PROTO_SIMPLE && cap_Bps > 0 && nchannels > 0 &&
	       sc->nranks > 1;
}

bool
ft__sim_cap_staged(const struct ft_sim_op *op)
{
	return ft__sim_cap_staged_on(op->sched, op->nchannels, op->conn_cap_Bps);
}

double
ft__sim_cap_fill_s(const struct ft_topo *t, const struct ft_sim_op *op, uint32_t stages)
{
	const struct ft_schedule *sc = op->sched;
	double eff = sc->proto_eff > 0 ? sc->proto_eff : 1.0, wmax = 0;
	const struct ft_sched_phase *ph;
	struct ft_model_chunking ch;
	struct ft_model_buffs bu;
	uint32_t f, r, pipes = 0, nodes = 1;
	uint64_t w, loops, per_loop, n;

	if (!ft__sim_cap_staged(op) || stages < 2 || sc->phases.len != 1)
		return 0;
	ph = ft_sched_phase_at(sc, 0);
	if (ph->implicit_alltoall)
		return 0;
	for (f = 0; f < ph->nflows; f++) {
		struct ft_sched_flow fl;

		ft_sched_phase_flow(sc, ph, f, &fl);
		wmax = FT_MAX(wmax, (double)fl.bytes);
		pipes = FT_MAX(pipes, (uint32_t)fl.pipe);
	}
	for (r = 1; r < sc->nranks; r++)
		if (ft__sim_over_network(t, op->rank_gpu[r], op->rank_gpu[r - 1]))
			nodes++;
	ft_model_buffs_get(ft_topo_spec(t), &bu);
	ft_model_chunking_sized(sc->op, sc->algo, sc->proto, &bu, sc->bytes,
	                        ft__sim_pipe_channels(sc, pipes), nodes, sc->nranks, &ch);
	w = (uint64_t)wmax;
	if (w == 0 || ch.chunk_bytes == 0 || ch.slice_bytes == 0)
		return 0;
	loops = (w + ch.chunk_bytes - 1) / ch.chunk_bytes;
	per_loop = (w + loops - 1) / loops;
	n = loops * FT_MAX((per_loop + ch.slice_bytes - 1) / ch.slice_bytes, 1u);
	if (n < 2)
		return 0;
	return (stages - 1) * ft__sim_cap_period_s(op, ph, eff, n);
}

/*
 * The words of the bottleneck column for the flow engine's kernel cap
 * (ft__sim_kernel_cap()) where it binds: "kernel:" and the protocol, as the model's
 * --explain "kernel" line names the rate NCCL's kernel reaches with it.
 */
static const char *
kernel_what(const struct ft_schedule *s, char *buf, size_t len)
{
	snprintf(buf, len, "kernel:%s", ft_proto_name(s->proto));
	return buf;
}

/*
 * Whether the flows of @sched take NCCL's tree correction (ft__sim_nccl_efficiency()):
 * not where the engine cuts the pipeline itself (@jr chunked) but for a plain tree in
 * Simple on NCCL's channels (ft__sim_tree_fill_on()), nor where the op's stages
 * will be paced at its cap (ft__sim_cap_staged_on(), the engines' own predicate), whose
 * fill both engines pay as NCCL's pipeline takes it (ft__sim_cap_fill_s()): the
 * correction, the share of the links a tree's pipeline keeps busy below 1 GiB (kb
 * NA-MODEL), would count that fill twice. The cap is the one the op will carry: @cap, the
 * forced channels' share, or else the tree's and the kernel's caps the runner tightens it
 * with next (ft__sim_tree_cap(), ft__sim_kernel_cap() on @gpn ranks a node); the
 * correction moves their rates, not whether they exist.
 */
static int
tree_corr(const struct ft_cluster_spec *spec, const struct job_run *jr, const struct sc_op *o,
          const struct ft_schedule *sched, const struct op_cap *cap, uint32_t gpn, bool *corr)
{
	double bps = cap->Bps, tree, kernel;
	int rc;

	*corr = false;
	/* (the packet engine's plain tree on NCCL's channels follows the model's pipeline,
	 * its correction with it: pkt_tree.c nccl_fill()) */
	if (jr->chunked && (jr->unchunked || !ft__sim_tree_fill_on(sched, o->channels)))
		return 0;
	if (!(bps > 0)) {
		rc = ft__sim_tree_cap(spec, sched, jr->nranks, gpn, &tree);
		if (rc == 0)
			rc = ft__sim_kernel_cap(spec, sched, jr->nranks, gpn, o->channels, &kernel);
		if (rc < 0)
			return rc;
		bps = FT_MAX(tree, kernel);
	}
	*corr = !ft__sim_cap_staged_on(sched, o->channels, bps);
	return 0;
}

/*
 * NCCL's efficiencies and the caps of the model on @sched, the op's last set-up (@gpn: the
 * job's GPUs a node, 0 on node groups; @nch the channels, @built the algorithm built, its
 * channel cap only where channels are forced): the caps tightened into @cap, a send/recv's
 * its window's in place of the kernel's (with @window_only its window's alone, as on node
 * groups). Every reading's error (out of memory) is the run's, named.
 */
static int
model_caps(const struct ft_scenario *sc, size_t ji, size_t k, const struct ft_topo *t,
           const struct job_run *jr, const struct sc_op *o, struct ft_schedule *sched,
           uint32_t gpn, bool window_only, struct op_cap *cap, struct ft_error *err)
{
	const struct ft_cluster_spec *spec = ft_topo_spec(t);
	char kw[16], w[16];
	double b;
	bool corr;
	int rc;

	if (!window_only) {
		rc = tree_corr(spec, jr, o, sched, cap, gpn, &corr);
		if (rc < 0)
			return model_err(sc, ji, k, err, rc,
			                 "the tree's and the kernel's caps (NCCL's tree correction)");
		rc = ft__sim_nccl_efficiency(spec, sched, corr, gpn);
		if (rc < 0)
			return model_err(sc, ji, k, err, rc, "NCCL's efficiencies");
		rc = ft__sim_tree_cap(spec, sched, jr->nranks, gpn, &b);
		if (rc < 0)
			return model_err(sc, ji, k, err, rc, "the tree's cap");
		tighter_cap(cap, b, "");
		/* CollNet at NCCL's price: a pace, named by the class it binds on */
		rc = ft__sim_collnet_cap(spec, sched, jr->nranks, gpn, o->channels, w,
		                         sizeof(w), &b);
		if (rc < 0)
			return model_err(sc, ji, k, err, rc, "NCCL's price of collnet");
		tighter_cap(cap, b, w);
		/* PAT at the model's time (its kernel's bytes at NCCL's share): a pace, named
		 * by the class it binds on */
		rc = ft__sim_pat_cap(spec, sched, jr->nranks, o->channels, w, sizeof(w), &b);
		if (rc < 0)
			return model_err(sc, ji, k, err, rc, "the model's time of pat");
		tighter_cap(cap, b, w);
	}
	if (o->op == FT_OP_SENDRECV) {
		rc = ft__sim_p2p_cap(t, sched, jr->rank_gpu, &b);
		if (rc < 0)
			return model_err(sc, ji, k, err, rc, "NCCL's window on a send");
		tighter_cap(cap, b, FT__SIM_P2P_WINDOW_WHAT);
		return 0;
	}
	rc = ft__sim_kernel_cap(spec, sched, jr->nranks, gpn, o->channels, &b);
	if (rc < 0)
		return model_err(sc, ji, k, err, rc, "the kernel's cap");
	tighter_cap(cap, b, kernel_what(sched, kw, sizeof(kw)));
	return 0;
}

/*
 * build_op_sched() on nodes of different GPU counts: a ring (or the algorithms
 * that know no nodes: direct all-to-all, send/recv, halving-doubling) over the
 * job's ranks in order, as NCCL's ring visits each node's GPUs and leaves it
 * once per channel (kb NA-ALGO-RING); NCCL's tree all-reduce, a chain over
 * each node's own ranks and a double binary tree over the nodes
 * (ft__sim_tree_uneven); or its NVLS tree, NVLS in each node and a tree over
 * the nodes per head (ft__sim_nvls_tree_uneven). Without an algorithm, the
 * tuner's choice and protocol for the whole cluster (NCCL aligns every rank on
 * the least channels and graph bandwidths, and its tuner takes nRanks / nNodes
 * ranks per node). CollNet (NCCL does not run it there) and hierarchical
 * algorithms are refused.
 */
static int
build_uneven_on(const struct ft_scenario *sc, const struct sc_op *o, size_t ji, size_t k,
                const struct ft_topo *t, const struct job_run *jr, uint64_t bytes,
                const uint32_t *gpus, uint32_t heads, struct ft_schedule *sched, uint32_t ap[3],
                struct op_cap *cap, struct ft_error *err)
{
	struct ft_coll_args args = { .op = o->op, .nranks = jr->nranks, .ranks_per_node = 1,
		                     .bytes = bytes };
	uint32_t nch, gpus0 = jr->node_first[1] - jr->node_first[0];
	enum ft_algo built;
	int rc;

	if (o->algo == FT_ALGO_COLLNET)
		return ft_error_set(err, FT_ENOTSUP,
		                    "%s: collnet needs the same GPUs on every node (NCCL numbers "
		                    "CollNet ranks node x local ranks)",
		                    WHERE(ji, "--algo", "ops[%zu].algo", k));
	if (o->algo != SC_ALGO_AUTO && o->algo != FT_ALGO_RING && o->algo != FT_ALGO_TREE &&
	    o->algo != FT_ALGO_NVLS_TREE && o->algo != FT_ALGO_DIRECT &&
	    o->algo != FT_ALGO_HALVING_DOUBLING)
		return ft_error_set(err, FT_ENOTSUP,
		                    "%s: %s across nodes of different GPU counts is not simulated "
		                    "(ring, tree, nvls_tree, direct and halving_doubling are)",
		                    WHERE(ji, "--algo", "ops[%zu].algo", k), ft_algo_name(o->algo));
	rc = ft__sim_pick_algo(ft_topo_spec(t), o, bytes, jr->nranks, 0, jr->nvls_off, jr->cache,
	                       &args);
	if (rc < 0)
		return model_err(sc, ji, k, err, rc, "NCCL's tuner");
	if (args.algo == FT_ALGO_NVLS_TREE &&
	    (o->op != FT_OP_ALL_REDUCE || !heads || !ft_model_nvls_efficiency(ft_topo_spec(t))))
		return ft_error_set(err, FT_ENOTSUP,
		                    "%s: nvls_tree needs an all_reduce, NVLS and 2 or more GPUs "
		                    "on every node",
		                    WHERE(ji, "--algo", "ops[%zu].algo", k));
	if (o->algo == SC_ALGO_AUTO && args.algo != FT_ALGO_TREE && args.algo != FT_ALGO_NVLS_TREE &&
	    o->op != FT_OP_SENDRECV && o->op != FT_OP_ALLTOALL)
		args.algo = FT_ALGO_RING;
	built = args.algo;
	/* a step inside a node at the row of the node's link, as the release sets it
	 * (ft__sim_release_lats()) */
	rc = ft__sim_intra_link(ft_topo_spec(t), built, &args.intra);
	if (rc < 0)
		return model_err(sc, ji, k, err, rc, "the nodes' links");
	if (built == FT_ALGO_NVLS_TREE)
		args.algo = FT_ALGO_TREE; /* the metadata; the builder sets NVLS's */
	rc = ft_coll_schedule(&args, sched, err);
	if (rc == 0 && built == FT_ALGO_TREE && o->op == FT_OP_ALL_REDUCE)
		rc = ft__sim_tree_uneven(sched, jr->nnodes, jr->node_first);
	else if (rc == 0 && built == FT_ALGO_NVLS_TREE)
		rc = ft__sim_nvls_tree_uneven(sched, jr->nnodes, jr->node_first, heads);
	if (rc == FT_ENOMEM)
		ft_error_set(err, rc, "out of memory");
	ap[0] = built;
	ap[1] = sched->proto;
	ap[2] = 0;
	if (rc < 0) {
		ft_error_prefix(err, "%s: ", WHERE(ji, "--op", "ops[%zu]", k));
		return rc;
	}
	if (o->op == FT_OP_SENDRECV)
		return model_caps(sc, ji, k, t, jr, o, sched, 0, true, cap, err);
	if (sched->phases.len == 0 || ft_sched_phase_at(sched, 0)->implicit_alltoall)
		return 0;
	rc = nchannels_of(ft_topo_spec(t), built, o,
	                  ft__sim_node_nnics(t, ft_topo_vertex(t, jr->rank_gpu[0])->node), gpus0,
	                  &nch);
	if (rc < 0)
		return model_err(sc, ji, k, err, rc, "NCCL's channels");
	{
		struct ft_schedule merged;
		struct ft__sim_forced_trees ft;
		uint32_t graph = 0;
		double b = 0;
		int one = 0;

		/* forced channels: copies of the graph's, on their graph channel's rails */
		if (o->channels) {
			one = ft__sim_forced_trees_get(ft_topo_spec(t), sched, jr->nranks, 0, nch,
			                               &ft);
			rc = one < 0 ? one :
			     one     ? 0 :
			               ft__sim_uneven_graph(ft_topo_spec(t), jr->nranks, &graph);
			if (rc == 0)
				rc = ft__sim_channel_cap(ft_topo_spec(t), built, jr->nranks, 0, nch,
				                         true, &b);
			if (rc < 0)
				return model_err(sc, ji, k, err, rc, "NCCL's forced channels");
			if (one)
				graph = ft.graph;
			tighter_cap(cap, b, "");
		}
		rc = ft__sim_channelize_uneven(sched, nch, graph, jr->nnodes, jr->node_first,
		                               jr->node_kind, ft_topo_spec(t)->nccl_version, gpus,
		                               one ? &ft : NULL, &merged);
		ft_schedule_release(sched);
		*sched = merged;
	}
	if (rc < 0)
		return ft_error_set(err, FT_ENOMEM, "out of memory");
	return model_caps(sc, ji, k, t, jr, o, sched, 0, false, cap, err);
}

static int
build_uneven_sched(const struct ft_scenario *sc, const struct sc_op *o, size_t ji, size_t k,
                   const struct ft_topo *t, const struct job_run *jr, uint64_t bytes,
                   struct ft_schedule *sched, uint32_t ap[3], struct op_cap *cap,
                   struct ft_error *err)
{
	uint32_t heads, *gpus = NULL;
	int rc;

	ft_schedule_init(sched);
	if (placed_gpus(t, jr->rank_gpu, jr->nranks, 0, jr->node_first, &gpus) < 0)
		return ft_error_set(err, FT_ENOMEM, "out of memory");
	heads = nvls_heads(t, jr->rank_gpu, gpus, jr->nnodes, jr->node_first, 0);
	rc = build_uneven_on(sc, o, ji, k, t, jr, bytes, gpus, heads, sched, ap, cap, err);
	ft_free(gpus);
	return rc;
}

/*
 * Into @buf the algorithms of collnet, nvls_tree, tree and ring that run op @o of job @jr
 * at @bytes here ("tree and ring run", "ring runs"): those the tuner takes forced
 * (ft_model_eval() as ft__sim_pick_algo() asks it: no NVLS with CollNet, the job's
 * NVLS-off flag) and whose schedule builds (nodes of different GPU counts: the runner
 * builds those itself, build_uneven_on()). The tuner's or coll/'s error where memory ran
 * out (the list then unknown), else 0.
 */
static int
runs_here(const struct ft_cluster_spec *spec, const struct sc_op *o, uint64_t bytes,
          const struct job_run *jr, uint32_t sgpn, char *buf, size_t len)
{
	static const enum ft_algo cand[] = { FT_ALGO_COLLNET, FT_ALGO_NVLS_TREE, FT_ALGO_TREE,
		                             FT_ALGO_RING };
	const char *name[FT_ARRAY_SIZE(cand)];
	/* nodes of different GPU counts: every GPU of the cluster, as build_uneven_on() asks */
	uint32_t gpn = jr->node_first ? 0 : jr->gpn;
	size_t i, n = 0, at = 0;

	for (i = 0; i < FT_ARRAY_SIZE(cand); i++) {
		struct ft_model_query q;
		struct ft_model_result r;
		struct ft_coll_args a = { .op = o->op, .nranks = jr->nranks,
			                  .ranks_per_node = sgpn, .bytes = bytes };
		struct ft_schedule probe;
		bool ok;
		int rc;

		ft_model_query_init(&q, o->op, bytes);
		q.ngpus = jr->nranks;
		q.ppn = gpn;
		q.nnodes = gpn ? jr->nranks / gpn : 0;
		q.nchannels = o->channels;
		q.nvls_off = jr->nvls_off;
		q.no_nvls_net = true;
		q.force_algo = true;
		q.algo = cand[i];
		q.cache = jr->cache;
		rc = ft__sim_eval(spec, &q, &r);
		if (rc < 0)
			return rc;
		if (rc == 0 || r.algo != cand[i])
			continue;
		a.algo = r.algo;
		a.proto = r.proto;
		a.collnet_chain = strcmp(r.algo_label, "collnet_chain") == 0;
		ok = !gpn;
		if (!ok) {
			ft_schedule_init(&probe);
			rc = ft_coll_schedule(&a, &probe, NULL);
			ft_schedule_release(&probe);
			if (rc == FT_ENOMEM)
				return rc;
			ok = rc == 0;
		}
		if (ok)
			name[n++] = ft_algo_name(cand[i]);
	}
	buf[0] = '\0';
	for (i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", name[i],
		                       i + 2 < n ? ", " : i + 2 == n ? " and " : "");
	if (at < len)
		snprintf(buf + at, len - at, n == 1 ? " runs" : n ? " run" : "no algorithm runs");
	return 0;
}

/*
 * Why the engines do not build NVLS across the nodes of job @jr (@sgpn ranks to NCCL's
 * node) for op @o with the fabric's SHARP (NULL: they do, ft__sim_nvls_collnet(); the
 * packet engine sends it in NCCL's chunks as an NVLS tree, pkt_tree.c, so not with
 * packet.chunking: off, where its flows would run whole and unordered): NCCL prices NVLS
 * across nodes for an all-reduce alone where its CollNet plugin has no all-gather or
 * reduce-scatter (model/tuner.c
 * nvls_net_unavailable(), which also leaves NVLink domains and nodes of different GPU
 * counts unmodelled).
 */
static const char *
nvls_net_why(const struct sc_op *o, const struct job_run *jr, uint32_t sgpn)
{
	if (o->op != FT_OP_ALL_REDUCE)
		return "the engines build for all_reduce only";
	if (jr->unchunked)
		return "the packet engine builds in NCCL's chunks only, not with "
		       "packet.chunking: off";
	if (jr->node_first)
		return "the engines do not build on nodes of different GPU counts";
	if (sgpn != jr->gpn)
		return "the engines do not build across NVLink domains";
	if (jr->gpn < 2)
		return "needs 2 or more GPUs per node";
	return NULL;
}

/*
 * NVLS across the nodes of job @jr with the fabric's SHARP into @sched (which holds
 * ft_coll_schedule's NVLS metadata): NVLS in each node, each head's share through its
 * own NIC to the switches and back (ft__sim_nvls_collnet()), the heads the GPUs that own
 * the first node's NICs (@gpus: each rank's GPU in its node, NULL: in order), at NCCL's
 * NVLS efficiency through the switch. Its flows carry NCCL's loops themselves (the flow
 * engine's pipeline), so no channels are cut: every head moves its share of each loop on
 * every channel, NCCL's channels add no rail.
 */
static int
nvls_net_sched(const struct ft_scenario *sc, size_t ji, size_t k, const struct ft_topo *t,
               const struct job_run *jr, const uint32_t *gpus, struct ft_schedule *sched,
               struct op_cap *cap, struct ft_error *err)
{
	const struct ft_node_spec *node = ft__sim_node(t, ft_topo_vertex(t, jr->rank_gpu[0])->node);
	uint32_t heads[FT__SIM_NVLS_MAX_HEADS], n;
	int rc;

	n = ft__sim_nvls_node_heads(node, jr->gpn, 0, gpus, heads);
	rc = ft__sim_nvls_collnet(sched, jr->nranks / jr->gpn, jr->gpn, heads, n);
	if (rc < 0)
		return ft_error_set(err, rc, rc == FT_ENOMEM ? "out of memory" :
		                                               "nvls across nodes: no NVLS heads");
	rc = ft__sim_nccl_efficiency(ft_topo_spec(t), sched, false, jr->gpn);
	if (rc < 0)
		return model_err(sc, ji, k, err, rc, "NCCL's efficiencies");
	*cap = (struct op_cap){ 0 };
	/* NCCL's price as a pace (named by the link class it binds on, as the model names it) */
	rc = ft__sim_nvls_net_cap(ft_topo_spec(t), sched, jr->nranks, jr->gpn, cap->what,
	                          sizeof(cap->what), &cap->Bps);
	if (rc < 0)
		return model_err(sc, ji, k, err, rc, "NCCL's price of nvls across nodes");
	return 0;
}

/*
 * Into @one whether each node @jr runs on holds one of its ranks (NCCL's nRanks ==
 * nNodes): no two ranks on the same node of @t. Read from the ranks' GPUs, not from
 * jr->gpn, which is also 1 where the job has no uniform node structure (spread or random
 * placements, ranks not a multiple of the node's GPUs) with many ranks a node.
 */
static int
one_rank_a_node(const struct ft_topo *t, const struct job_run *jr, bool *one)
{
	uint32_t nnodes = ft_topo_spec(t)->nnodes, r;
	bool *seen;

	*one = jr->nranks <= nnodes;
	if (!*one)
		return 0;
	seen = ft_calloc(FT_MAX(nnodes, 1u), sizeof(*seen));
	if (!seen)
		return FT_ENOMEM;
	for (r = 0; r < jr->nranks && *one; r++) {
		uint32_t n = ft_topo_vertex(t, jr->rank_gpu[r])->node;

		*one = n < nnodes && !seen[n];
		if (*one)
			seen[n] = true;
	}
	ft_free(seen);
	return 0;
}

/*
 * The schedule op @o (ops[@k] of job @ji of @sc, for errors; @sc NULL: errors
 * name the options) of job @jr runs at @bytes, as NCCL would run it: the
 * tuner's algorithm and protocol (returned in @ap), rail-aligned channels
 * with each channel's cap (@cap, 0 = none), NVLS efficiency; the channels'
 * rails are the NICs of @gpus (each rank's GPU in its node, NULL: in order).
 * @sched is initialised here; the caller releases it.
 */
static int
build_op_on(const struct ft_scenario *sc, const struct sc_op *o, size_t ji, size_t k,
            const struct ft_topo *t, const struct job_run *jr, uint64_t bytes,
            const uint32_t *gpus, struct ft_schedule *sched, uint32_t ap[3],
            struct op_cap *cap, struct ft_error *err)
{
	const struct ft_cluster_spec *spec = ft_topo_spec(t);
	uint32_t nch, graph, node0, sgpn;
	struct ft_coll_args args;
	bool one_a_node;
	int rc;

	if (one_rank_a_node(t, jr, &one_a_node) < 0)
		return ft_error_set(err, FT_ENOMEM, "out of memory");
	job_shape(t, jr, &node0, &sgpn);
	args = (struct ft_coll_args){
		.op = o->op, .nranks = jr->nranks, .ranks_per_node = sgpn, .bytes = bytes
	};
	*cap = (struct op_cap){ 0 };
	ft_schedule_init(sched);
	if (jr->nvls_off && (o->algo == FT_ALGO_NVLS || o->algo == FT_ALGO_NVLS_TREE))
		return ft_error_set(err, FT_EINVAL,
		                    "%s: %s: NVLink SHARP is off (--no-nvls, or the job's nvls: "
		                    "false: NCCL_NVLS_ENABLE=0)",
		                    WHERE(ji, "--algo", "ops[%zu].algo", k), ft_algo_name(o->algo));
	if ((o->algo == FT_ALGO_NVLS || o->algo == FT_ALGO_NVLS_TREE) &&
	    !(ft_model_nvls_efficiency(spec) > 0))
		return ft_error_set(err, FT_EINVAL,
		                    "%s: %s: the cluster's nodes have no NVLink SHARP "
		                    "(nodes.nvlink.nvls: false, no NVSwitch, or GPUs before Hopper)",
		                    WHERE(ji, "--algo", "ops[%zu].algo", k), ft_algo_name(o->algo));
	/* NCCL_ALGO=PAT where NCCL has no PAT: NCCL finds no algorithm, as the model refuses
	 * it in the model's words (kb NA-ALGO-PAT; src/graph/tuning.cc ncclTopoTuneModel(),
	 * v2.23.4-1 to v2.30.7-1): all-gather and reduce-scatter only, Simple only, one rank a
	 * node (ncclPatEnable(): nNodes == nRanks; read from the ranks' GPUs, jr->gpn being 1
	 * for spread, random and uneven jobs too), and not before 2.23 */
	if (o->algo == FT_ALGO_PAT) {
		const char *why = o->op != FT_OP_ALL_GATHER && o->op != FT_OP_REDUCE_SCATTER ?
		                          "is for all_gather and reduce_scatter" :
		                  o->proto != SC_PROTO_AUTO && o->proto != FT_PROTO_SIMPLE ?
		                          "is for the simple protocol only" :
		                  !one_a_node ?
		                          "needs one GPU per node (NCCL enables it only where "
		                          "nNodes == nRanks)" :
		                  spec->nccl_version && spec->nccl_version < FT_MODEL_PAT_FROM ?
		                          "needs NCCL 2.23 or later" :
		                          NULL;

		if (why)
			return ft_error_set(err, FT_EINVAL, "%s: pat %s",
			                    WHERE(ji, "--algo", "ops[%zu].algo", k), why);
	}
	/* NCCL_ALGO=CollNetDirect or CollNetChain where that one cannot run: NCCL finds no
	 * algorithm for the operation (plain collnet keeps its schedule, as before) */
	if (o->algo == FT_ALGO_COLLNET && o->collnet != FT_COLLNET_AUTO) {
		const char *why = o->collnet == FT_COLLNET_CHAIN && o->op != FT_OP_ALL_REDUCE ?
		                          "is for all_reduce only" :
		                  !spec->fabric.sharp ? "needs in-network reduction (fabric.sharp)" :
		                  jr->gpn && jr->nranks <= jr->gpn ? "needs more than one node" :
		                                                     NULL;

		if (why)
			return ft_error_set(err, FT_EINVAL, "%s: %s %s",
			                    WHERE(ji, "--algo", "ops[%zu].algo", k),
			                    ft_collnet_variant_name(o->collnet), why);
	}
	/* NVLS across nodes or NVLink domains (or nodes of different GPU counts): NCCL runs it
	 * only with CollNet (src/graph/tuning.cc ncclTopoTuneModel at v2.27.7-1: NVLS with
	 * nNodes > 1 is disabled where collnetEnable is 0), the heads' shares reduced by SHARP
	 * between the nodes (src/device/all_reduce.h, RunWorkColl NVLS with nvls->out). Without
	 * SHARP NCCL itself finds no NVLS algorithm (FT_EINVAL, as a CollNet variant without
	 * fabric.sharp); with it the engines build it (nvls_net_why()). */
	if (o->algo == FT_ALGO_NVLS && jr->nranks > sgpn) {
		const char *why = spec->fabric.sharp ? nvls_net_why(o, jr, sgpn) : NULL;
		char alt[96];

		/* out of memory while listing what runs here is the run's error, not this one */
		if ((!spec->fabric.sharp || why) &&
		    (rc = runs_here(spec, o, bytes, jr, sgpn, alt, sizeof(alt))) < 0)
			return ft_error_set(err, rc, "%s: the algorithms that run here: %s",
			                    WHERE(ji, "--algo", "ops[%zu].algo", k),
			                    ft_strerror(rc));
		if (!spec->fabric.sharp)
			return ft_error_set(err, FT_EINVAL,
			                    "%s: NCCL runs nvls across nodes only with CollNet, "
			                    "which needs in-network reduction (fabric.sharp); %s "
			                    "here",
			                    WHERE(ji, "--algo", "ops[%zu].algo", k), alt);
		if (why)
			return ft_error_set(err, FT_ENOTSUP,
			                    "%s: nvls across nodes is NCCL's NVLS with CollNet "
			                    "(NVLS in each node, SHARP between the nodes' heads), "
			                    "which %s; the model prices it (fabtune model), and %s "
			                    "here",
			                    WHERE(ji, "--algo", "ops[%zu].algo", k), why, alt);
	}
	if (jr->node_first)
		return build_uneven_sched(sc, o, ji, k, t, jr, bytes, sched, ap, cap, err);
	rc = ft__sim_pick_algo_net(spec, o, args.bytes, jr->nranks, jr->gpn, jr->nvls_off,
	                           spec->fabric.sharp && !nvls_net_why(o, jr, sgpn), one_a_node,
	                           jr->cache, &args);
	if (rc < 0)
		return model_err(sc, ji, k, err, rc, "NCCL's tuner");
	ap[0] = args.algo;
	ap[1] = args.proto;
	ap[2] = args.collnet_chain;
	/* the schedule's own step inside a node at the row of the node's link, NVLink's or
	 * PCI's, as the release sets it (ft__sim_release_lats()); what an engine reads before
	 * the release, and the step the release leaves to CollNet's other ops */
	rc = ft__sim_intra_link(spec, args.algo, &args.intra);
	if (rc < 0)
		return model_err(sc, ji, k, err, rc, "the nodes' links");
	ft_schedule_init(sched);
	if (args.algo == FT_ALGO_NVLS && jr->nranks > sgpn) {
		/* a ring's metadata, the builder sets NVLS's (coll/ builds NVLS in one node) */
		args.algo = FT_ALGO_RING;
		rc = ft_coll_schedule(&args, sched, err);
		if (rc < 0) {
			ft_error_prefix(err, "%s: ", WHERE(ji, "--op", "ops[%zu]", k));
			return rc;
		}
		return nvls_net_sched(sc, ji, k, t, jr, gpus, sched, cap, err);
	}
	rc = ft_coll_schedule(&args, sched, err);
	/* NCCL's trees over its nodes: physical nodes, or NVLink domains (MNNVL) */
	if (rc == 0 && nccl_tree_sched(t, jr, gpus, sgpn, sched) < 0)
		rc = ft_error_set(err, FT_ENOMEM, "out of memory");
	/* NVLS inside one node or domain: at most 32 heads */
	if (rc == 0 && ft__sim_nvls_heads(sched) < 0)
		rc = ft_error_set(err, FT_ENOMEM, "out of memory");
	if (rc < 0) {
		ft_error_prefix(err, "%s: ", WHERE(ji, "--op", "ops[%zu]", k));
		return rc;
	}
	/* an NVLink domain leaves through the NICs of all its trays */
	rc = nchannels(spec, sched, o, ft__sim_node_nnics(t, node0) * (sgpn / FT_MAX(jr->gpn, 1u)),
	               sgpn, jr->nranks, jr->gpn, &graph, &nch);
	if (rc < 0)
		return model_err(sc, ji, k, err, rc, "NCCL's channels");
	/* A point-to-point send is one connection on one NIC, the rail of its
	 * destination (PXN), not a set of channels. */
	if (o->op == FT_OP_SENDRECV)
		nch = 1;
	if (nch >= 1 && !ft__sim_sched_is_flat(sched, sgpn)) {
		struct ft_schedule merged;
		struct ft__sim_forced_trees ft;
		/* forced channels: one tree a channel, on its graph channel's rails */
		int one = o->channels ? ft__sim_forced_trees_get(spec, sched, jr->nranks, jr->gpn,
		                                                 nch, &ft) :
		                        0;
		double b = 0;

		rc = one < 0 ? one : 0;
		if (rc == 0 && o->op != FT_OP_SENDRECV)
			rc = ft__sim_channel_cap(spec, args.algo, jr->nranks, jr->gpn, nch,
			                         o->channels != 0, &b);
		if (rc < 0)
			return model_err(sc, ji, k, err, rc, "NCCL's forced channels");
		tighter_cap(cap, b, "");
		rc = ft__sim_channelize(sched, nch, one ? ft.graph : graph, sgpn, jr->gpn, gpus,
		                        ft__sim_node(t, node0), spec->nccl_version,
		                        o->op == FT_OP_SENDRECV, one_kind(t, jr, node0),
		                        one ? &ft : NULL, &merged);
		ft_schedule_release(sched);
		*sched = merged;
		if (rc < 0)
			return ft_error_set(err, FT_ENOMEM, "out of memory");
	}
	return model_caps(sc, ji, k, t, jr, o, sched, jr->gpn, false, cap, err);
}

/* build_op_on() on the GPUs @jr's ranks are placed on. */
static int
build_op_sched(const struct ft_scenario *sc, const struct sc_op *o, size_t ji, size_t k,
               const struct ft_topo *t, const struct job_run *jr, uint64_t bytes,
               struct ft_schedule *sched, uint32_t ap[3], struct op_cap *cap,
               struct ft_error *err)
{
	uint32_t *gpus = NULL;
	int rc;

	ft_schedule_init(sched);
	/* ranks on GPUs other than 0, 1, ... of their nodes: the rails are their GPUs' NICs */
	if (jr->gpn > 1 && !jr->node_first &&
	    placed_gpus(t, jr->rank_gpu, jr->nranks, jr->gpn, NULL, &gpus) < 0)
		return ft_error_set(err, FT_ENOMEM, "out of memory");
	rc = build_op_on(sc, o, ji, k, t, jr, bytes, gpus, sched, ap, cap, err);
	ft_free(gpus);
	/* the step and launch latencies of the jobs' release, as the model's */
	if (rc == 0) {
		bool one;

		if (one_rank_a_node(t, jr, &one) < 0)
			return ft_error_set(err, FT_ENOMEM, "out of memory");
		rc = ft__sim_release_lats(ft_topo_spec(t), sched, one);
		if (rc < 0)
			return model_err(sc, ji, k, err, rc, "release latencies");
	}
	return rc;
}

int
ft__sim_prepare_topo(struct ft_topo *t, const struct ft_engine_ops *eng, struct ft_error *err)
{
	int rc = ft__sim_nccl_rates(t, eng->wire_headers);

	return rc < 0 ? ft_error_set(err, rc, "link rates: %s", ft_strerror(rc)) : 0;
}

void
ft__sim_prepare_cfg(const struct ft_cluster_spec *spec, struct ft_sim_cfg *cfg)
{
	ft_sim_cfg_init(cfg);
	cfg->routing = spec->fabric.routing;
}

int
ft__sim_prepare_op(const struct ft_topo *t, const struct ft_engine_ops *eng,
                   const struct sc_op *o, const uint32_t *rank_gpu, uint32_t nranks,
                   uint32_t gpn, struct ft_schedule *sched, double *cap, struct ft_error *err)
{
	struct job_run jr = { .rank_gpu = (uint32_t *)rank_gpu, .nranks = nranks,
		              .gpn = FT_MAX(gpn, 1u), .chunked = eng == &ft_packet_engine };
	uint32_t ap[3];
	struct op_cap c = { 0 };
	int rc;

	/* as place_job() leaves a packed job's ranks per node */
	if (nranks > 0 && nranks < jr.gpn)
		jr.gpn = nranks;
	if (nranks % jr.gpn)
		jr.gpn = 1;
	rc = build_op_sched(NULL, o, 0, 0, t, &jr, o->bytes, sched, ap, &c, err);
	*cap = c.Bps;
	return rc;
}

static int
submit_job(const struct ft_scenario *sc, const struct sc_job *j, size_t ji, const struct ft_topo *t,
           struct ft_engine *e, const double *gpu_slow, struct job_run *jr,
           const struct ft_sim_overrides *ov, struct ft_error *err)
{
	double slow = 1;
	uint32_t it, r, node0, sgpn;
	size_t k;
	int rc = 0;

	/* The slowest GPU of the job sets the pace of its compute (collectives synchronize). */
	for (r = 0; r < jr->nranks; r++) {
		double s = gpu_slow[jr->rank_gpu[r]];

		if (s > slow)
			slow = s;
	}
	job_shape(t, jr, &node0, &sgpn);
	jr->chunked = e->ops == &ft_packet_engine;
	jr->unchunked = jr->chunked && sc->packet.chunking == FT_PKT_CHUNK_OFF;
	jr->nvls_off = !j->nvls || (ov && ov->no_nvls);
	jr->compute_s = j->compute_s;
	if (j->compute_tflop > 0)
		jr->compute_s += j->compute_tflop / (ft__sim_node(t, node0)->gpu_tflops * j->mfu);
	jr->compute_s *= slow;
	jr->last_op = -1;
	for (it = 0; it < j->iterations; it++) {
		for (k = 0; k < j->ops.len; k++) {
			const struct sc_op *o = ft_vec_at(&j->ops, k);
			struct ft_schedule sched;
			uint32_t rep, ap[3];
			struct op_cap cap = { 0 };

			rc = build_op_sched(sc, o, ji, k, t, jr, ft__sim_op_bytes(o, ov), &sched, ap,
			                    &cap, err);
			if (rc < 0) {
				ft_schedule_release(&sched);
				return rc;
			}
			if (it == 0 && ft_vec_push(&jr->first_algo, ap) < 0) {
				ft_schedule_release(&sched);
				return ft_error_set(err, FT_ENOMEM, "out of memory");
			}
			for (rep = 0; rep < o->repeat; rep++) {
				struct ft_sim_op op = { .sched = &sched,
					                .rank_gpu = jr->rank_gpu,
					                .after = jr->last_op,
					                .job = (uint32_t)ji,
					                .conn_cap_Bps = cap.Bps,
					                .conn_cap_what = cap.what,
					                .prio = (uint8_t)j->prio,
					                .nchannels = o->channels };
				int64_t id;

				op.delay_s = (k == 0 && rep == 0) ? jr->compute_s : 0;
				id = e->ops->submit(e, &op, err);
				if (id < 0) {
					ft_schedule_release(&sched);
					return (int)id;
				}
				if (it == 0 && rep == 0 && ft_vec_push(&jr->first_ops, &id) < 0) {
					ft_schedule_release(&sched);
					return ft_error_set(err, FT_ENOMEM, "out of memory");
				}
				jr->last_op = id;
			}
			ft_schedule_release(&sched);
		}
	}
	return 0;
}

/*
 * Link utilisation size by size. The run's link counters cover every op of
 * every size together; a sweep (one job, no background traffic, ops of two or
 * more sizes) also gets, for each size, the op run alone on the same cluster
 * (faults and rates as in the run, a fresh engine): each link class's busiest
 * and mean link, bytes over capacity times the op's own duration.
 */
static int
per_size_util(const struct ft_scenario *sc, const struct ft_topo *t,
              const struct ft_engine_ops *eng, const struct ft_sim_cfg *cfg,
              const struct job_run *jr, const struct ft_sim_overrides *ov,
              struct ft_sim_report *r, struct ft_error *err)
{
	const struct sc_job *j;
	size_t k, q, nsizes = 0;
	int rc = 0;

	if (sc->jobs.len != 1 || sc->background.len != 0)
		return 0;
	j = ft_vec_at(&sc->jobs, 0);
	for (k = 0; k < j->ops.len; k++) {
		uint64_t b = ft__sim_op_bytes(ft_vec_at(&j->ops, k), ov);

		for (q = 0; q < k && ft__sim_op_bytes(ft_vec_at(&j->ops, q), ov) != b; q++)
			;
		nsizes += q == k;
	}
	if (nsizes < 2)
		return 0;
	for (k = 0; k < j->ops.len && rc == 0; k++) {
		const struct sc_op *o = ft_vec_at(&j->ops, k);
		struct ft_sim_size_stat first = { .bytes = ft__sim_op_bytes(o, ov) };
		struct ft_sim_counters c;
		struct ft_schedule sched;
		struct ft_engine *e = NULL;
		size_t base = r->by_size.len;
		uint32_t ap[3], l;
		struct op_cap cap = { 0 };
		double dur;

		ft_strlcpy(first.op, ft_op_name(o->op), sizeof(first.op));
		rc = build_op_sched(sc, o, 0, k, t, jr, first.bytes, &sched, ap, &cap, err);
		if (rc == 0)
			rc = eng->create(t, cfg, &e, err);
		if (rc == 0) {
			struct ft_sim_op op = { .sched = &sched,
				                .rank_gpu = jr->rank_gpu,
				                .after = -1,
				                .conn_cap_Bps = cap.Bps,
				                .conn_cap_what = cap.what,
				                .prio = (uint8_t)j->prio,
				                .nchannels = o->channels };
			int64_t id = e->ops->submit(e, &op, err);

			rc = id < 0 ? (int)id : 0;
		}
		if (rc == 0)
			rc = e->ops->run(e, 0, err);
		if (rc == 0)
			rc = e->ops->counters(e, &c, err);
		ft_schedule_release(&sched);
		if (rc < 0) {
			if (e)
				e->ops->destroy(e);
			break;
		}
		dur = c.nops ? c.ops[0].t_end_s - c.ops[0].t_start_s : 0;
		for (l = 0; l < c.nlinks && dur > 0; l++) {
			const struct ft_link *lk = ft_topo_link(t, l);
			double lcap = lk->cap_Bps * ft_topo_link_scale(t, l), u;
			struct ft_sim_size_stat *s = NULL;

			if (!(c.link_bytes[l] > 0) || !(lcap > 0))
				continue;
			u = c.link_bytes[l] / (lcap * dur);
			for (q = base; q < r->by_size.len; q++) {
				struct ft_sim_size_stat *x = ft_vec_at(&r->by_size, q);

				if (x->tier == lk->tier && strcmp(x->kind, ft_link_kind_name(lk->kind)) == 0)
					s = x;
			}
			if (!s) {
				struct ft_sim_size_stat z = first;

				ft_strlcpy(z.kind, ft_link_kind_name(lk->kind), sizeof(z.kind));
				z.tier = lk->tier;
				z.time_s = dur;
				if (ft_vec_push(&r->by_size, &z) < 0) {
					rc = ft_error_set(err, FT_ENOMEM, "out of memory");
					break;
				}
				s = ft_vec_at(&r->by_size, r->by_size.len - 1);
			}
			s->nlinks++;
			s->util_mean += u;
			if (u > s->util_max) {
				char a[40], b[40];

				s->util_max = u;
				ft_topo_vertex_name(t, lk->src, a, sizeof(a));
				ft_topo_vertex_name(t, lk->dst, b, sizeof(b));
				snprintf(s->busiest, sizeof(s->busiest), "%s -> %s", a, b);
			}
		}
		for (q = base; q < r->by_size.len; q++) {
			struct ft_sim_size_stat *x = ft_vec_at(&r->by_size, q);

			x->util_mean /= x->nlinks;
		}
		e->ops->destroy(e);
	}
	return rc;
}

/*
 * Start jitter: each of the @n sources of @sched's flows starts an offset drawn
 * uniformly in [0, @jitter_ns) ns after the burst's nominal start (@offs: n entries).
 */
static void
draw_offsets(struct ft_rng *rng, struct ft_schedule *sched, uint32_t jitter_ns, uint32_t *offs,
             uint32_t n)
{
	for (uint32_t r = 0; r < n; r++)
		offs[r] = (uint32_t)ft_rng_below(rng, jitter_ns);
	for (size_t f = 0; f < sched->flows.len; f++) {
		struct ft_sched_flow *fl = ft_vec_at(&sched->flows, f);

		fl->start_ns = offs[fl->src];
	}
}

/* Background traffic: one phase of flows between NICs (or GPUs). */
static int
submit_background(const struct ft_scenario *sc, const struct sc_background *bg, size_t bi,
                  const struct ft_topo *t, struct ft_engine *e, uint64_t seed, struct ft_error *err)
{
	const struct ft_cluster_spec *spec = ft_topo_spec(t);
	uint32_t per = UINT32_MAX, k;
	uint64_t total;
	uint32_t n;
	struct ft_schedule sched;
	struct ft_sched_phase ph = { 0 };
	uint32_t *ends = NULL, *perm = NULL, i;
	struct ft_rng rng;
	int64_t id;
	int rc = 0;

	/* endpoint i is NIC (GPU) i / nodes of node i % nodes: as many per node as the
	 * node with the fewest has */
	for (k = 0; k < spec->nnodes; k++)
		per = FT_MIN(per, bg->gpu_endpoints ? ft__sim_node_ngpus(t, k) :
		                                      ft__sim_node_nnics(t, k));
	if (per == UINT32_MAX)
		per = 0;
	total = (uint64_t)spec->nnodes * per;
	n = bg->hosts ? bg->hosts : (uint32_t)FT_MIN(total, (uint64_t)UINT32_MAX);

	if (per == 0 || n > total || n < 2)
		return ft_error_set(err, FT_ERANGE,
		                    "%s:%u:%u: background[%zu].hosts: expected 2 to "
		                    "%" PRIu64 " %s, got %u",
		                    sc->file, bg->line, bg->col, bi, total,
		                    bg->gpu_endpoints ? "GPUs" : "NICs", n);
	if (bg->pattern == SC_INCAST && bg->target >= n)
		return ft_error_set(err, FT_ERANGE,
		                    "%s:%u:%u: background[%zu].target: expected below "
		                    "%u, got %u",
		                    sc->file, bg->line, bg->col, bi, n, bg->target);
	if (bg->jitter_s > 0 && e->ops == &ft_packet_engine &&
	    sc->packet.chunking == FT_PKT_CHUNK_NCCL)
		return ft_error_set(err, FT_EINVAL,
		                    "%s:%u:%u: background[%zu].jitter: the packet engine does not cut "
		                    "flows with start offsets into NCCL's chunks (packet.chunking: "
		                    "nccl): use chunking auto or off",
		                    sc->file, bg->jitter_line, bg->jitter_col, bi);
	ft_schedule_init(&sched);
	sched.op = FT_OP_SENDRECV;
	sched.algo = FT_ALGO_DIRECT;
	sched.nranks = n;
	sched.ranks_per_node = 1;
	sched.proto_eff = 1;
	ends = ft_calloc(n, sizeof(uint32_t));
	perm = ft_calloc(n, sizeof(uint32_t));
	if (!ends || !perm)
		goto oom;
	/* Endpoints spread over the nodes: endpoint i = node i % nnodes, index i / nnodes. */
	for (i = 0; i < n; i++) {
		uint32_t node = i % spec->nnodes, idx = i / spec->nnodes;

		ends[i] = bg->gpu_endpoints ? ft_topo_gpu(t, node, idx) : ft_topo_nic(t, node, idx);
	}
	ph.steps = 1;
	ft_strlcpy(ph.what, "background", sizeof(ph.what));
	if (bg->pattern == SC_PERMUTATION) {
		/* A random cyclic permutation (nobody sends to itself): shuffle, send to the next. */
		for (i = 0; i < n; i++)
			perm[i] = i;
		ft_rng_seed(&rng, seed, ft_rng_stream(RNG_BACKGROUND, bi));
		ft_rng_shuffle_u32(&rng, perm, n);
		for (i = 0; i < n && rc == 0; i++) {
			struct ft_sched_flow f = { .src = perm[i],
				                   .dst = perm[(i + 1) % n],
				                   .bytes = bg->bytes };

			rc = ft_vec_push(&sched.flows, &f);
		}
		ph.nflows = ph.npairs = n;
	} else if (bg->pattern == SC_INCAST) {
		for (i = 0; i < n && rc == 0; i++) {
			struct ft_sched_flow f = { .src = i,
				                   .dst = bg->target,
				                   .bytes = bg->bytes };

			if (i != bg->target)
				rc = ft_vec_push(&sched.flows, &f);
		}
		ph.nflows = ph.npairs = n - 1;
	} else {
		ph.implicit_alltoall = true;
		ph.a2a_group_size = n;
		ph.a2a_stride = 1;
		ph.bytes_per_pair = bg->bytes;
		ph.npairs = (uint64_t)n * (n - 1);
	}
	if (rc < 0 || ft_vec_push(&sched.phases, &ph) < 0)
		goto oom;
	sched.bytes = bg->bytes;
	{
		struct ft_sim_op op = {
			.sched = &sched, .rank_gpu = ends, .after = -1, .job = UINT32_MAX,
			.prio = (uint8_t)bg->prio
		};
		uint32_t jitter_ns = (uint32_t)(bg->jitter_s * 1e9 + 0.5);

		/* On/off: each further burst starts `off` after the previous one ended, as its
		 * senders learn it: one path latency after each flow's last packet arrived
		 * (struct ft_sim_op.end_acked); with start jitter, after its nominal end
		 * (struct ft_sim_op.nominal_end). The offsets come from a stream of their own:
		 * the permutation stays the same. */
		ft_rng_seed(&rng, seed, ft_rng_stream(RNG_JITTER, bi));
		for (i = 0, id = 0; (i == 0 || i < bg->bursts) && id >= 0; i++) {
			if (jitter_ns > 0 && (i == 0 || !bg->jitter_per_source))
				draw_offsets(&rng, &sched, jitter_ns, perm, n); /* perm: free */
			op.after = i ? id : -1;
			op.delay_s = i ? bg->off_s : 0;
			op.nominal_end = jitter_ns > 0 && i + 1 < bg->bursts;
			op.end_acked = i + 1 < bg->bursts;
			id = e->ops->submit(e, &op, err);
		}
	}
	ft_schedule_release(&sched);
	ft_free(ends);
	ft_free(perm);
	return id < 0 ? (int)id : 0;
oom:
	ft_schedule_release(&sched);
	ft_free(ends);
	ft_free(perm);
	return ft_error_set(err, FT_ENOMEM, "out of memory");
}

/* Background pattern @bg as the report lists it, pushed on @rows. */
static int
background_row(const struct sc_background *bg, struct ft_vec *rows)
{
	static const char *const names[] = { [SC_PERMUTATION] = "permutation",
		                             [SC_INCAST] = "incast",
		                             [SC_ALLTOALL] = "alltoall" };
	struct ft_sim_background b = { .bytes = bg->bytes,
		                       .hosts = bg->hosts,
		                       .bursts = bg->bursts ? bg->bursts : 1,
		                       .off_s = bg->off_s,
		                       .jitter_s = bg->jitter_s,
		                       .jitter_per_source = bg->jitter_per_source };

	ft_strlcpy(b.pattern, names[bg->pattern], sizeof(b.pattern));
	return ft_vec_push(rows, &b);
}

void
ft_sim_overrides_init(struct ft_sim_overrides *ov)
{
	memset(ov, 0, sizeof(*ov));
	ov->routing = -1;
	ov->placement = -1;
}

void
ft_sim_report_init(struct ft_sim_report *r)
{
	memset(r, 0, sizeof(*r));
	ft_run_init(&r->run, FT_SOURCE_SIM, "sim");
	ft_vec_init(&r->jobs, sizeof(struct ft_sim_job_report));
	ft_vec_init(&r->hot, sizeof(struct ft_sim_hot_link));
	ft_vec_init(&r->tiers, sizeof(struct ft_sim_tier_stat));
	ft_vec_init(&r->ports, sizeof(struct ft_sim_hot_link));
	ft_vec_init(&r->faults, sizeof(struct ft_sim_fault_text));
	ft_vec_init(&r->background, sizeof(struct ft_sim_background));
	ft_vec_init(&r->counter_files, sizeof(struct ft_sim_file));
	ft_vec_init(&r->by_size, sizeof(struct ft_sim_size_stat));
	ft_vec_init(&r->op_counters, sizeof(struct ft_sim_op_counters));
	ft_vec_init(&r->trace_series, sizeof(struct ft_sim_trace_series));
	ft_vec_init(&r->qp_series, sizeof(struct ft_sim_qp_series));
	ft_vec_init(&r->flows, sizeof(struct ft_sim_flow_text));
}

void
ft_sim_report_release(struct ft_sim_report *r)
{
	struct ft_vec *const vecs[] = {
		&r->jobs,          &r->hot,          &r->tiers,  &r->ports,
		&r->counter_files, &r->trace_series, &r->faults, &r->by_size,
		&r->op_counters,   &r->qp_series,    &r->flows,  &r->background
	};

	ft_run_release(&r->run);
	for (size_t i = 0; i < r->counter_files.len; i++)
		ft_free(((struct ft_sim_file *)ft_vec_at(&r->counter_files, i))->text);
	ft_free(r->trace_json);
	ft__vec_release_all(vecs, FT_ARRAY_SIZE(vecs));
}

static size_t
peak_rss(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (size_t)ru.ru_maxrss * 1024;
}

/*
 * Does @r apply to @f? ECMP hashes over the minimal next hops of any fabric,
 * adaptive routing picks among them; D-mod-K is a fat-tree's, minimal and
 * Valiant a dragonfly's, dimension order a torus's. A single node has no
 * fabric: any routing is moot.
 */
static bool
routing_fits(const struct ft_fabric_spec *f, enum ft_routing r)
{
	switch (r) {
	case FT_ROUTING_ECMP:
	case FT_ROUTING_ADAPTIVE:
		return true;
	case FT_ROUTING_DMODK:
	case FT_ROUTING_MINHOP: /* InfiniBand's besides: sim_run() checks */
		return f->kind == FT_FABRIC_FAT_TREE || f->kind == FT_FABRIC_RAIL_FAT_TREE ||
		       f->kind == FT_FABRIC_MULTI_PLANE || f->kind == FT_FABRIC_NONE;
	case FT_ROUTING_MINIMAL:
	case FT_ROUTING_VALIANT:
		return f->kind == FT_FABRIC_DRAGONFLY || f->kind == FT_FABRIC_NONE;
	case FT_ROUTING_DOR:
		return f->kind == FT_FABRIC_TORUS || f->kind == FT_FABRIC_NONE;
	default:
		return false;
	}
}

/*
 * The run ended with a QP out of retries (@c->qp_error, kb SYM-ERR-12): its ends, NIC and
 * the link down on its path in words, for the report that still shows what was measured
 * up to then (its message is the run's error, copied when it is final).
 */
static void
name_failure(const struct ft_topo *topo, const struct ft_sim_counters *c,
             struct ft_sim_failure *f)
{
	const struct ft_sim_qp_error *q = &c->qp_error;

	f->failed = true;
	ft_topo_vertex_name(topo, q->src, f->src, sizeof(f->src));
	ft_topo_vertex_name(topo, q->dst, f->dst, sizeof(f->dst));
	if (q->nic != UINT32_MAX)
		ft_topo_vertex_name(topo, q->nic, f->nic, sizeof(f->nic));
	if (q->link_down != UINT32_MAX) {
		const struct ft_link *l = ft_topo_link(topo, q->link_down);
		char a[48] = "?", b[48] = "?";

		ft_topo_vertex_name(topo, l->src, a, sizeof(a));
		ft_topo_vertex_name(topo, l->dst, b, sizeof(b));
		snprintf(f->link_down, sizeof(f->link_down), "%s -> %s", a, b);
	}
}

int
ft_scenario_run(const struct ft_scenario *sc, const struct ft_sim_overrides *ov,
                const struct ft_progress *progress, struct ft_sim_report *out, struct ft_error *err)
{
	const struct ft_engine_ops *eng;
	struct ft_topo *topo = NULL;
	struct ft_engine *e = NULL;
	struct ft_sim_cfg cfg;
	struct ft_sim_counters c;
	struct ft_packet_cfg pkt;
	struct job_run *jrs = NULL;
	struct ft_model_cache *cache = NULL;
	double *gpu_slow = NULL, t0 = ft_now_s(), fscale = sc->fabric_scale;
	const struct ft_cluster_spec *spec = &sc->spec;
	struct ft_cluster_spec ospec;
	size_t i;
	uint64_t ngpus;
	int rc;

	eng = ft_sim_engine_find(ov && ov->engine ? ov->engine : sc->engine);
	if (!eng)
		return ft_error_set(err, FT_EINVAL,
		                    "engine: expected analytic, flow, ideal or packet, got '%s'",
		                    ov && ov->engine ? ov->engine : sc->engine);
	ft_sim_cfg_init(&cfg);
	cfg.routing = sc->has_routing ? sc->routing : sc->spec.fabric.routing;
	cfg.qps_per_conn = sc->qps_per_conn;
	cfg.flowlet_bytes = sc->flowlet_bytes;
	cfg.seed = sc->seed;
	cfg.progress = progress;
	cfg.packet = &sc->packet;
	if (ov && (ov->ntrace_links || ov->list_flows)) {
		pkt = sc->packet;
		pkt.list_flows = ov->list_flows;
		pkt.trace_links = ov->trace_links;
		pkt.ntrace_links = ov->ntrace_links;
		pkt.trace_interval_s = ov->trace_interval_s;
		pkt.trace_qps = ov->trace_qps;
		pkt.ntrace_qps = ov->ntrace_qps;
		cfg.packet = &pkt;
	}
	if (ov) {
		if (ov->routing >= 0)
			cfg.routing = (enum ft_routing)ov->routing;
		if (ov->qps_per_conn)
			cfg.qps_per_conn = ov->qps_per_conn;
		if (ov->have_seed)
			cfg.seed = ov->seed;
		if (ov->fabric_scale > 0)
			fscale = ov->fabric_scale;
		if (ov->have_rate_rtol && strcmp(eng->name, "flow") != 0)
			return ft_error_set(err, FT_EINVAL,
			                    "--rate-tolerance: the flow engine's, not the %s engine's",
			                    eng->name);
		cfg.have_rate_rtol = ov->have_rate_rtol;
		cfg.rate_rtol = ov->rate_rtol;
	}
	ft_strlcpy(out->scenario, sc->name, sizeof(out->scenario));
	ft_strlcpy(out->engine, eng->name, sizeof(out->engine));
	ft_strlcpy(out->routing, ft_routing_name(cfg.routing), sizeof(out->routing));
	ft_strlcpy(out->cluster, sc->spec.source[0] ? sc->spec.source : sc->spec.name,
	           sizeof(out->cluster));
	out->seed = cfg.seed;
	out->qps_per_conn = cfg.qps_per_conn;
	out->fabric_scale = fscale;
	out->have_rate_rtol = cfg.have_rate_rtol;
	out->rate_rtol = cfg.rate_rtol;
	out->nnodes = sc->spec.nnodes;
	out->nfaults = ov && ov->no_faults ? 0 : sc->faults.len;
	ft_strlcpy(out->description, sc->description, sizeof(out->description));
	for (size_t k = 0; k < out->nfaults; k++) {
		struct ft_sim_fault_text ft;

		ft__sim_fault_text(ft_vec_at(&sc->faults, k), ft.text, sizeof(ft.text));
		if (ft_vec_push(&out->faults, &ft) < 0)
			return ft_error_set(err, FT_ENOMEM, "sim: out of memory");
	}
	for (size_t k = 0; k < sc->background.len; k++)
		if (background_row(ft_vec_at(&sc->background, k), &out->background) < 0)
			return ft_error_set(err, FT_ENOMEM, "sim: out of memory");
	if (ov && ov->cluster) {
		rc = ft__spec_scenario_cluster(sc, ov->cluster, &ospec, err);
		if (rc < 0)
			return rc;
		/* another cluster, the scenario's release (its nccl.version) still */
		ospec.nccl_version = sc->spec.nccl_version;
		spec = &ospec;
		ft_strlcpy(out->cluster, ov->cluster, sizeof(out->cluster));
		out->nnodes = spec->nnodes;
	}
	if (ov && ov->nccl_version) {
		/* the jobs' NCCL release rides on the cluster the topology keeps: every engine
		 * asks the model through it (ft_model_links_get(), ft_model_eval()); --nccl (or a
		 * sweep's nccl value) wins over the scenario's nccl.version */
		rc = ft_model_nccl_check(ov->nccl_version, err);
		if (rc < 0)
			return rc;
		if (spec != &ospec)
			ospec = *spec;
		ospec.nccl_version = ov->nccl_version;
		spec = &ospec;
	}
	out->nccl_version = spec->nccl_version;
	/* a release older than the cluster's GPUs: the report carries it (ft_model_nccl_note_get()) */
	ft_model_nccl_note_get(spec, spec->nccl_version, &out->nccl_note);
	if (ov && ov->nccl_version) { /* the option's or a sweep's value */
		out->nccl_field = ov->nccl_field ? ov->nccl_field : "--nccl";
		ft_strlcpy(out->nccl_where, ov->nccl_where ? ov->nccl_where : "",
		           sizeof(out->nccl_where));
	} else {
		out->nccl_field = "nccl.version";
		if (sc->nccl_line)
			snprintf(out->nccl_where, sizeof(out->nccl_where), "%s:%u:%u", sc->file,
			         sc->nccl_line, sc->nccl_col);
	}
	if (!(ov && ov->routing >= 0) && !sc->has_routing)
		cfg.routing = spec->fabric.routing; /* the cluster's own, --cluster's included */
	if (!routing_fits(&spec->fabric, cfg.routing))
		return ft_error_set(
		        err, FT_EINVAL,
		        "routing: %s does not apply to a %s fabric (expected ecmp, "
		        "adaptive%s)",
		        ft_routing_name(cfg.routing), ft_fabric_kind_name(spec->fabric.kind),
		        spec->fabric.kind == FT_FABRIC_DRAGONFLY ? ", minimal or valiant" :
		        spec->fabric.kind == FT_FABRIC_TORUS     ? " or dor" :
		                                                   ", dmodk or minhop");
	if (cfg.routing == FT_ROUTING_MINHOP && spec->fabric.kind != FT_FABRIC_NONE &&
	    ft__route_minhop_unfit(spec))
		return ft_error_set(err, FT_EINVAL, "routing: %s", ft__route_minhop_unfit(spec));
	ft_strlcpy(out->routing, ft_routing_name(cfg.routing), sizeof(out->routing));
	ngpus = ft_spec_ngpus(spec);
	out->ngpus = ngpus;
	out->run.seed = cfg.seed;
	ft_strlcpy(out->run.spec, out->cluster, sizeof(out->run.spec));
	ft_strlcpy(out->run.label, sc->name, sizeof(out->run.label));

	ft_progress_update(progress, "building topology", 0, 1);
	rc = ft_topo_build(spec, &topo, err);
	if (rc < 0) {
		ft_error_prefix(err, "%s: cluster: ", sc->file);
		return rc;
	}
	out->nlinks = ft_topo_nlinks(topo);
	gpu_slow = ft_calloc(ft_topo_nvertices(topo) ? ft_topo_nvertices(topo) : 1, sizeof(double));
	jrs = ft_calloc(sc->jobs.len ? sc->jobs.len : 1, sizeof(*jrs));
	if (!gpu_slow || !jrs) {
		rc = ft_error_set(err, FT_ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < sc->jobs.len; i++)
		ft_vec_init(&jrs[i].first_ops, sizeof(int64_t));
	for (i = 0; i < sc->jobs.len; i++)
		ft_vec_init(&jrs[i].first_algo, 3 * sizeof(uint32_t));
	/* every job and size asks NCCL's tuner on the same nodes (ft__sim_pick_algo_net()),
	 * and the analytic engine the model again for its times: one cache for the run's
	 * queries, each node and job shape's shared links laid out once (model.h
	 * ft_model_cache); without memory for it each query lays them out, to the same
	 * picks and times (the analytic engine then makes its own, as without a runner) */
	cache = ft_model_cache_new();
	cfg.model_cache = cache;
	for (i = 0; i < sc->jobs.len; i++)
		jrs[i].cache = cache;
	rc = ft__sim_prepare_topo(topo, eng, err);
	if (rc < 0)
		goto out;
	if (!(ov && ov->no_faults))
		rc = ft__sim_apply_faults(sc, topo, gpu_slow, err);
	if (rc == 0 && (rc = ft__sim_apply_fabric_scale(topo, fscale)) < 0)
		rc = ft_error_set(err, rc, "fabric_scale: %s", ft_strerror(rc));
	if (rc < 0)
		goto out;
	rc = eng->create(topo, &cfg, &e, err);
	if (rc < 0)
		goto out;
	for (i = 0; i < sc->jobs.len && rc == 0; i++) {
		const struct sc_job *j = ft_vec_at(&sc->jobs, i);

		rc = place_job(sc, j, i, topo, cfg.seed, ov ? ov->placement : -1, &jrs[i], err);
		if (rc == 0)
			rc = submit_job(sc, j, i, topo, e, gpu_slow, &jrs[i], ov, err);
	}
	for (i = 0; i < sc->background.len && rc == 0; i++)
		rc = submit_background(sc, ft_vec_at(&sc->background, i), i, topo, e, cfg.seed,
		                       err);
	if (rc < 0)
		goto out;
	rc = e->ops->run(e, 0, err);
	if (rc == FT_EIO) {
		/* A QP out of retries: the report up to then, and the run's error kept for the
		 * end (the counters a real cluster shows after the job failed included). */
		struct ft_error qerr = *err;

		rc = e->ops->counters(e, &c, err);
		/* Split across MPI ranks, a rank holds its part only: no report, the
		 * counters it has for --counters. */
		if (rc == 0 && c.qp_error.partial && ov && ov->counters &&
		    ft__sim_render_counters(topo, &c, &out->counter_files, err) < 0)
			rc = FT_EIO; /* the run's error stands; the files rendered are kept */
		if (rc == 0 && (!c.qp_error.failed || c.qp_error.partial))
			rc = FT_EIO;
		if (rc == 0)
			name_failure(topo, &c, &out->failure);
		ft_strlcpy(out->failure.message, qerr.msg, sizeof(out->failure.message));
		*err = qerr;
		if (rc < 0) {
			rc = FT_EIO;
			goto out;
		}
	} else if (rc == FT_EINVAL && strcmp(eng->name, "packet") == 0) {
		/* A buffer deadlock: the report and counters up to the instant it was found,
		 * the run's error kept for the end (exit code as any deadlock's). */
		struct ft_error derr = *err;

		if (e->ops->counters(e, &c, err) == 0 && c.stall.stalled && !c.part_rank) {
			out->failure.failed = true;
			out->failure.deadlock = true;
			ft_strlcpy(out->failure.message, derr.msg, sizeof(out->failure.message));
			rc = 0;
		}
		*err = derr;
	}
	if (rc < 0)
		goto out;
	rc = e->ops->counters(e, &c, err);
	if (rc < 0)
		goto out;
	out->part_rank = c.part_rank;
	if (c.part_rank)
		goto out; /* a split packet run: rank 0 reports it */
	rc = ft__sim_gather(sc, topo, &c, jrs, ov, out, err);
	/* (a failed run's ops cannot be rerun size by size, nor tabled as nccl-tests rows) */
	if (rc == 0 && !out->failure.failed)
		rc = per_size_util(sc, topo, eng, &cfg, jrs, ov, out, err);
	if (rc == 0 && ov && ov->counters)
		rc = ft__sim_render_counters(topo, &c, &out->counter_files, err);
	if (rc == 0 && ov && ov->counters && !ft__sim_fabric_is_roce(&sc->spec))
		rc = ft__sim_render_opensm_conf(cfg.packet, &out->counter_files, err);
	if (rc == 0 && ov && ov->counters && !out->failure.failed)
		rc = ft__sim_render_nccl_tests(&out->run, &out->op_counters, &out->counter_files,
		                               err);
	if (rc == 0 && ov && ov->ntrace_links)
		rc = ft__sim_render_trace(topo, &c, &out->trace_json, &out->trace_len, err);
	if (rc == 0 && ov && ov->ntrace_links)
		rc = ft__sim_trace_series(topo, &c, &out->trace_series, &out->qp_series, err);
	if (rc == 0 && ov && ov->list_flows)
		rc = ft__sim_gather_flows(sc, topo, &c, jrs, out, err);
	out->wall_s = ft_now_s() - t0;
	out->peak_rss_bytes = peak_rss();
	if (rc == 0 && out->failure.failed)
		rc = ft_error_set(err, out->failure.deadlock ? FT_EINVAL : FT_EIO, "%s",
		                  out->failure.message);
out:
	/* a failure without its words (an engine's event loop out of memory): the code's */
	if (rc < 0 && err && err->code == 0)
		ft_error_set(err, rc, "sim: %s", ft_strerror(rc));
	if (rc < 0)
		ft__scenario_name_packet_error(sc, ov && ov->engine, err);
	if ((rc == FT_EIO || (rc == FT_EINVAL && out->failure.deadlock)) && out->failure.failed)
		ft_strlcpy(out->failure.message, err->msg, sizeof(out->failure.message));
	if (e)
		e->ops->destroy(e);
	for (i = 0; jrs && i < sc->jobs.len; i++) {
		ft_free(jrs[i].rank_gpu);
		ft_free(jrs[i].node_first);
		ft_free(jrs[i].node_kind);
		ft_vec_release(&jrs[i].first_ops);
		ft_vec_release(&jrs[i].first_algo);
	}
	ft_free(jrs);
	ft_free(gpu_slow);
	ft_topo_free(topo);
	ft_model_cache_free(cache);
	return rc;
}

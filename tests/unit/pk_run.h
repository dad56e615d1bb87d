/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/pk_run.h - one collective run alone on the packet engine, for the
 * unit tests of its NCCL paths (test_pktnccl.c, test_pkttree.c): rank i on NIC
 * 0 of node i of a DGX H100 InfiniBand cluster, the engine's records read back.
 * Include after cmocka.h, <fabtune/fabtune.h> and "sim/pkt_int.h".
 */
#ifndef FT_TEST_PK_RUN_H
#define FT_TEST_PK_RUN_H

#include "sim_lats.h"

struct pk_run {
	struct ft_cluster_spec spec;
	struct ft_topo *t;
	struct ft_schedule s;
	struct ft_engine *e;
	struct ft_sim_counters c;
	uint32_t ends[300];
};

static inline const struct pk_engine *
pk(const struct ft_engine *e)
{
	return ft_container_of(e, const struct pk_engine, base);
}

/* NCCL_LL_BUFFSIZE the next runs take (nodes.nccl.ll_buffsize; 0: NCCL's default). */
static uint64_t pk_run_ll_buffsize;

/* The per-connection cap the next runs' ops take (struct ft_sim_op conn_cap_Bps; 0: none),
 * and the class that set it (conn_cap_what; NULL: none named). */
static double pk_run_conn_cap_Bps;
static const char *pk_run_conn_cap_what;

/* The next runs' cable latency, seconds (fabric.cable_latency; 0: the preset's). */
static double pk_run_cable_lat_s;

/* The next runs' start offset of every flow whose source is rank 1, ns (struct
 * ft_sched_flow.start_ns; 0: none). */
static uint32_t pk_run_rank1_start_ns;

/* The channels forced on the next runs' ops (struct ft_sim_op nchannels; 0: NCCL's). */
static uint32_t pk_run_nchannels;

/* The next runs' fabric has SHARP (fabric.sharp: CollNet's switches; false: the preset's). */
static bool pk_run_sharp;

/* NCCL's tree correction on the next runs' schedules (struct ft_schedule tree_corr, its
 * flows carrying 1 / it as ft__sim_nccl_efficiency() leaves them; 0: none). */
static double pk_run_tree_corr;

/* Run the op of @a over @n nodes, rank i on NIC 0 of node i, or with @gpn > 0 on GPU
 * i % gpn of node i / gpn (@gpn ranks a node), with @pc (NULL: defaults) and @qps per
 * connection (0: the default) under @routing, @nops times one after the other; @eager
 * builds as a run split across MPI ranks does: all-to-alls, rings and trees whole before the
 * run; op k at priority @prio[k] (@prio NULL: all at 0). */
static inline void
pk_run_prio_ops_on(struct pk_run *r, const struct ft_coll_args *a, uint32_t n, uint32_t gpn,
                   const struct ft_packet_cfg *pc, uint32_t qps, bool eager, uint32_t nops,
                   enum ft_routing routing, const uint8_t *prio)
{
	struct ft_sim_cfg cfg;
	struct ft_error err = { 0 };
	struct ft_sim_op op = { .after = -1 };
	char preset[32];

	snprintf(preset, sizeof(preset), "dgx-h100:%u", n);
	assert_int_equal(ft_spec_resolve(preset, &r->spec, &err), 0);
	r->spec.node.nccl_ll_buffsize = pk_run_ll_buffsize;
	if (pk_run_cable_lat_s > 0)
		r->spec.fabric.lat_cable_s = pk_run_cable_lat_s;
	if (pk_run_sharp)
		r->spec.fabric.sharp = true;
	r->t = NULL;
	assert_int_equal(ft_topo_build(&r->spec, &r->t, &err), 0);
	assert_true((uint64_t)n * (gpn ? gpn : 1) <= FT_ARRAY_SIZE(r->ends));
	for (uint32_t i = 0; i < n * (gpn ? gpn : 1); i++)
		r->ends[i] = gpn ? ft_topo_gpu(r->t, i / gpn, i % gpn) : ft_topo_nic(r->t, i, 0);
	ft_schedule_init(&r->s);
	assert_int_equal(ft_coll_schedule(a, &r->s, &err), 0);
	if (pk_run_tree_corr > 0) {
		r->s.tree_corr = pk_run_tree_corr;
		for (size_t f = 0; f < r->s.flows.len; f++) {
			struct ft_sched_flow *fl = ft_vec_at(&r->s.flows, f);

			fl->bytes = (uint64_t)((double)fl->bytes / pk_run_tree_corr + 0.5);
		}
	}
	for (size_t f = 0; f < r->s.flows.len && pk_run_rank1_start_ns; f++) {
		struct ft_sched_flow *fl = ft_vec_at(&r->s.flows, f);

		if (fl->src == 1)
			fl->start_ns = pk_run_rank1_start_ns;
	}
	ft_sim_cfg_init(&cfg);
	cfg.packet = pc;
	cfg.qps_per_conn = qps;
	cfg.routing = routing;
	op.sched = &r->s;
	op.rank_gpu = r->ends;
	op.conn_cap_Bps = pk_run_conn_cap_Bps;
	op.conn_cap_what = pk_run_conn_cap_what;
	op.nchannels = pk_run_nchannels;
	r->e = NULL;
	assert_int_equal(ft_packet_engine.create(r->t, &cfg, &r->e, &err), 0);
	ft_container_of(r->e, struct pk_engine, base)->a2a_eager = eager;
	ft_container_of(r->e, struct pk_engine, base)->tree_eager = eager;
	for (uint32_t k = 0; k < nops; k++) {
		op.prio = prio ? prio[k] : 0;
		op.after = ft_packet_engine.submit(r->e, &op, &err);
		assert_true(op.after >= 0);
	}
	if (ft_packet_engine.run(r->e, 0, &err) != 0)
		fail_msg("run: %s", err.msg);
	assert_int_equal(ft_packet_engine.counters(r->e, &r->c, &err), 0);
}

/* pk_run_prio_ops_on() with every op at priority 0. */
static inline void
pk_run_ops_on(struct pk_run *r, const struct ft_coll_args *a, uint32_t n, uint32_t gpn,
              const struct ft_packet_cfg *pc, uint32_t qps, bool eager, uint32_t nops,
              enum ft_routing routing)
{
	pk_run_prio_ops_on(r, a, n, gpn, pc, qps, eager, nops, routing, NULL);
}

/* pk_run_ops_on() with rank i on NIC 0 of node i. */
static inline void
pk_run_ops_routed(struct pk_run *r, const struct ft_coll_args *a, uint32_t n,
                  const struct ft_packet_cfg *pc, uint32_t qps, bool eager, uint32_t nops,
                  enum ft_routing routing)
{
	pk_run_ops_on(r, a, n, 0, pc, qps, eager, nops, routing);
}

/* pk_run_ops_routed() under ECMP. */
static inline void
pk_run_ops(struct pk_run *r, const struct ft_coll_args *a, uint32_t n,
           const struct ft_packet_cfg *pc, uint32_t qps, bool eager, uint32_t nops)
{
	pk_run_ops_routed(r, a, n, pc, qps, eager, nops, FT_ROUTING_ECMP);
}

/* One op of @a under @routing. */
static inline void
pk_run_op_routed(struct pk_run *r, const struct ft_coll_args *a, uint32_t n,
                 const struct ft_packet_cfg *pc, uint32_t qps, bool eager,
                 enum ft_routing routing)
{
	pk_run_ops_routed(r, a, n, pc, qps, eager, 1, routing);
}

/* One op of @a under ECMP. */
static inline void
pk_run_op(struct pk_run *r, const struct ft_coll_args *a, uint32_t n,
          const struct ft_packet_cfg *pc, uint32_t qps, bool eager)
{
	pk_run_ops(r, a, n, pc, qps, eager, 1);
}

/* The flow engine's time for @r's op alone at the per-connection cap @cap_Bps (0: none), less
 * the op's fixed latency and per-step costs, as op_time() has the packet engine's. */
static inline double
flow_engine_time(const struct pk_run *r, double cap_Bps)
{
	struct ft_sim_cfg cfg;
	struct ft_sim_counters cf;
	struct ft_engine *ef = NULL;
	struct ft_error err = { 0 };
	struct ft_sim_op op = { .after = -1 };
	double t;

	ft_sim_cfg_init(&cfg);
	op.sched = &r->s;
	op.rank_gpu = r->ends;
	op.conn_cap_Bps = cap_Bps;
	op.nchannels = pk_run_nchannels;
	assert_int_equal(ft_flow_engine.create(r->t, &cfg, &ef, &err), 0);
	assert_true(ft_flow_engine.submit(ef, &op, &err) >= 0);
	assert_int_equal(ft_flow_engine.run(ef, 0, &err), 0);
	assert_int_equal(ft_flow_engine.counters(ef, &cf, &err), 0);
	t = cf.ops[0].t_end_s - cf.ops[0].t_start_s - r->s.base_lat_s;
	/* less each phase's step overheads and what its steps between nodes add to them
	 * (ft__sim_far_steps(): NCCL's network latency in place of the overhead) */
	for (size_t p = 0; p < r->s.phases.len; p++) {
		uint32_t steps = ft_sched_phase_at(&r->s, p)->steps, net;
		double extra;

		(void)far_steps_of(r->t, &r->s, r->ends, steps, &extra, &net);
		t -= steps * r->s.step_lat_s + extra;
	}
	ft_flow_engine.destroy(ef);
	return t;
}

static inline void
pk_run_free(struct pk_run *r)
{
	ft_packet_engine.destroy(r->e);
	ft_schedule_release(&r->s);
	ft_topo_free(r->t);
}

/* Serialisation of one full packet and the path latency of flow 0 (NIC, leaf, NIC: two
 * host links alike). */
static inline void
pk_hop_times(const struct pk_run *r, double *t_pkt, double *d_path)
{
	const struct pk_flow *f = ft_vec_at(&pk(r->e)->flows, 0);
	double cap = 0;

	assert_int_equal(f->npath, 2);
	*d_path = 0;
	for (uint32_t j = 0; j < f->npath; j++) {
		const struct ft_link *lk =
		        ft_topo_link(r->t, FT_VEC_AT(&pk(r->e)->paths, uint32_t, f->path_off + j));

		assert_int_equal(lk->kind, FT_L_HOST);
		if (j)
			assert_true(lk->cap_Bps == cap);
		cap = lk->cap_Bps;
		*d_path += lk->lat_s;
	}
	*t_pkt = (4096.0 + PK_HDR_IB) / cap;
}

#endif

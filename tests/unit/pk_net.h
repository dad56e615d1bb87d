/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/pk_net.h - what the packet engine's unit tests share (test_packet.c,
 * test_pktcloud.c, test_pktnic.c): a tolerance assertion that prints both values, a
 * cluster preset built into a topology (its links optionally taken as another link
 * preset), the engine's record behind an ft_engine, and flows between pairs of vertices
 * submitted and run as one op. Include after cmocka.h, <math.h>, <fabtune/fabtune.h>
 * and "sim/pkt_int.h".
 */
#ifndef FT_TEST_PK_NET_H
#define FT_TEST_PK_NET_H

#define assert_double_equal(a, b, tol) assert_close_((a), (b), (tol), __FILE__, __LINE__)
static inline void
assert_close_(double a, double b, double tol, const char *file, int line)
{
	if (!(fabs(a - b) <= tol)) {
		print_error("%s:%d: %.17g != %.17g (tolerance %g)\n", file, line, a, b, tol);
		_fail(file, line);
	}
}

struct net {
	struct ft_cluster_spec spec;
	struct ft_topo *t;
};

/* @preset ("dgx-h100:4"), its NICs and fabric on link preset @link ("roce400",
 * "efa100") when not NULL, rates unchanged. */
static inline void
net_build(struct net *n, const char *preset, const char *link)
{
	struct ft_error err = { 0 };

	assert_int_equal(ft_spec_resolve(preset, &n->spec, &err), 0);
	if (link) {
		ft_strlcpy(n->spec.fabric.link, link, sizeof(n->spec.fabric.link));
		ft_strlcpy(n->spec.node.nic_link, link, sizeof(n->spec.node.nic_link));
	}
	n->t = NULL;
	assert_int_equal(ft_topo_build(&n->spec, &n->t, &err), 0);
}

static inline const struct pk_engine *
pk(const struct ft_engine *e)
{
	return ft_container_of(e, const struct pk_engine, base);
}

/* One op: flows ends[2i] -> ends[2i + 1] of @bytes each, all at once, submitted to a new
 * engine (not run); @s holds its schedule (the caller releases it). */
static inline struct ft_engine *
submit_pairs(const struct ft_engine_ops *ops, const struct net *n, const struct ft_sim_cfg *cfg,
             const uint32_t *ends, uint32_t npairs, uint64_t bytes, struct ft_schedule *s)
{
	struct ft_sched_phase ph = { 0 };
	struct ft_engine *e = NULL;
	struct ft_error err = { 0 };
	struct ft_sim_op op = { .rank_gpu = ends, .after = -1 };

	ft_schedule_init(s);
	s->op = FT_OP_SENDRECV;
	s->algo = FT_ALGO_DIRECT;
	s->nranks = 2 * npairs;
	s->ranks_per_node = 1;
	s->proto_eff = 1;
	s->bytes = bytes;
	for (uint32_t i = 0; i < npairs; i++) {
		struct ft_sched_flow f = { .src = 2 * i, .dst = 2 * i + 1, .bytes = bytes };

		assert_int_equal(ft_vec_push(&s->flows, &f), 0);
	}
	ph.steps = 1;
	ph.nflows = ph.npairs = npairs;
	assert_int_equal(ft_vec_push(&s->phases, &ph), 0);
	op.sched = s;
	assert_int_equal(ops->create(n->t, cfg, &e, &err), 0);
	assert_true(ops->submit(e, &op, &err) >= 0);
	return e;
}

/* submit_pairs(), run to the end, its counters in @c. */
static inline struct ft_engine *
run_pairs(const struct ft_engine_ops *ops, const struct net *n, const struct ft_sim_cfg *cfg,
          const uint32_t *ends, uint32_t npairs, uint64_t bytes, struct ft_sim_counters *c)
{
	struct ft_schedule s;
	struct ft_error err = { 0 };
	struct ft_engine *e = submit_pairs(ops, n, cfg, ends, npairs, bytes, &s);

	if (ops->run(e, 0, &err) != 0)
		fail_msg("run: %s", err.msg);
	assert_int_equal(ops->counters(e, c, &err), 0);
	ft_schedule_release(&s);
	return e;
}

/* The host link out of NIC vertex @nic. */
static inline uint32_t
nic_uplink(const struct net *n, uint32_t nic)
{
	uint32_t first, count;

	ft_topo_out_links(n->t, nic, &first, &count);
	for (uint32_t i = first; i < first + count; i++)
		if (ft_topo_link(n->t, i)->kind == FT_L_HOST)
			return i;
	fail_msg("NIC %u has no host link", nic);
	return 0;
}

#endif

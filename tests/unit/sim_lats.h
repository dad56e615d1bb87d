/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/sim_lats.h - the simulator's readings of the model's links a test works a
 * closed form from (sim/sim_int.h): each asserted to succeed, its value returned. Include
 * after cmocka.h and sim/sim_int.h.
 */
#ifndef FT_TEST_SIM_LATS_H
#define FT_TEST_SIM_LATS_H

/* ft__sim_net_step_s() at protocol @p on @t's cluster. */
static inline double
net_step_s_of(const struct ft_topo *t, enum ft_proto p)
{
	double s = -1;

	assert_int_equal(ft__sim_net_step_s(t, p, &s), 0);
	return s;
}

/* ft__sim_far_steps() of a phase of @steps of @sc on @t, its ranks on @rank_gpu, with the
 * model's readings an engine takes for @sc (ft__sim_link_lats()). */
static inline uint32_t
far_steps_of(const struct ft_topo *t, const struct ft_schedule *sc, const uint32_t *rank_gpu,
             uint32_t steps, double *extra_s, uint32_t *net_steps)
{
	struct ft__sim_link_lats ll;

	assert_int_equal(ft__sim_link_lats(t, sc, &ll), 0);
	return ft__sim_far_steps(t, sc, &ll, rank_gpu, steps, extra_s, net_steps);
}

#endif

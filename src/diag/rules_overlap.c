/* SPDX-License-Identifier: MIT */
/*
 * diag/rules_overlap.c - communication hidden behind computation, from a
 * PyTorch profiler trace (parse/torch_trace.c): the share of each rank's
 * NCCL kernel time during which compute kernels run on the same GPU, held
 * to the `overlap_min` threshold (90% by default; DDP overlaps its buckets with
 * the backward pass, TRAIN-COMM).
 */
#include "internal.h"

#include "diag/diag_int.h"

/*
 * Below this much communication in the trace the share says little (a
 * profiler window holding one small barrier); heuristic.
 */
#define MIN_COMM_S 1e-3

static int
check_overlap_low(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	const struct ft_obs *comm = ft__diag_find_line(c, "torch.trace.comm_s", o);
	const struct ft_obs *both = ft__diag_find_line(c, "torch.trace.overlap_s", o);
	double share, cs = 0, bs = 0;

	if (!ft__obs_number(o, &share) || share >= c->thresholds->overlap_min)
		return 0;
	if (!comm || !ft__obs_number(comm, &cs) || cs < MIN_COMM_S)
		return 0;
	if (both)
		(void)ft__obs_number(both, &bs);
	return ft__diag_emit(c, out, -1, FT__EV(o, comm, both),
			     "only %.1f%% of the NCCL kernel time (%.3f ms of %.3f ms) runs "
			     "alongside compute kernels on this GPU (threshold %.0f%%, "
			     "overlap_min): %.3f ms of communication is exposed and stalls the "
			     "step",
			     share * 100, bs * 1e3, cs * 1e3, c->thresholds->overlap_min * 100,
			     (cs - bs) * 1e3);
}
FT__DIAG_EACH(ft__diag_eval_overlap_low, "torch.trace.overlap", check_overlap_low)

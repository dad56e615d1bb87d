/* SPDX-License-Identifier: MIT */
/*
 * plan/goodput.c - failures and goodput of a long training job.
 *
 * A synchronous job stops when any of its parts fails, so its interruption
 * rate is the sum of its parts' rates. The default rates are read from the
 * Llama 3 report's table of the 419 unexpected interruptions of a 54-day
 * run on 16,384 H100 GPUs (2,048 nodes): GPU, HBM3, SRAM and GPU system
 * processor faults (148 + 72 + 19 + 17 = 256) per GPU; network switches and
 * cables (35) per GPU, one fabric port each; NICs (7) per NIC; the rest
 * (host maintenance, software, storage, power, CPU, memory: 121) per node.
 *
 * With M the job's mean time between interruptions and δ the time to write
 * a checkpoint, the interval τ that loses the least is Daly's
 * τ = sqrt(2δM)·(1 + sqrt(δ/(2M))/3 + δ/(18M)) − δ (δ < 2M), which is
 * Young's sqrt(2δM) to first order. The useful share of wall time is
 * τ/(τ+δ) × (1 − (R + (τ+δ)/2)/M), R the time to restart: each
 * interruption costs the restart and, on average, half an interval of
 * lost work.
 */
#include "plan_int.h"

#include <math.h>

void
ft_plan_failure_rates_default(struct ft_plan_failure_rates *r)
{
	const double days = 54, gpus = 16384, nodes = 2048;

	r->gpu_per_day = 256 / (days * gpus);
	r->link_per_day = 35 / (days * gpus);
	r->nic_per_day = 7 / (days * gpus);
	r->host_per_day = 121 / (days * nodes);
}

int
ft_plan_goodput(const struct ft_plan_failure_rates *r, uint32_t ngpus, uint32_t gpn, double ckpt_s,
                double recover_s, struct ft_plan_goodput *out, struct ft_error *err)
{
	double per_day, M, tau, d = ckpt_s, useful;
	uint32_t nodes;

	memset(out, 0, sizeof(*out));
	if (!ngpus || !gpn)
		return ft_error_set(err, FT_EINVAL, "gpus: expected a positive count");
	if (!(ckpt_s > 0) || !(recover_s >= 0))
		return ft_error_set(err, FT_EINVAL,
		                    "%s: expected a positive time, got %g",
		                    !(ckpt_s > 0) ? "checkpoint" : "recovery",
		                    !(ckpt_s > 0) ? ckpt_s : recover_s);
	if (!(r->gpu_per_day >= 0 && r->nic_per_day >= 0 && r->link_per_day >= 0 &&
	      r->host_per_day >= 0))
		return ft_error_set(err, FT_EINVAL, "failure rates: expected non-negative rates");
	nodes = (ngpus + gpn - 1) / gpn;
	per_day = ngpus * (r->gpu_per_day + r->nic_per_day + r->link_per_day) +
	          nodes * r->host_per_day;
	out->interruptions_per_day = per_day;
	if (!(per_day > 0)) {
		out->mtbf_s = INFINITY;
		out->ckpt_interval_s = INFINITY;
		out->goodput = 1;
		return 0;
	}
	M = 86400.0 / per_day;
	out->mtbf_s = M;
	if (d < 2 * M)
		tau = sqrt(2 * d * M) * (1 + sqrt(d / (2 * M)) / 3 + d / (18 * M)) - d;
	else
		tau = M;
	out->ckpt_interval_s = tau;
	useful = tau / (tau + d) * (1 - (recover_s + (tau + d) / 2) / M);
	out->goodput = FT_MAX(0.0, useful);
	out->lost_gpu_hours_per_day = (1 - out->goodput) * ngpus * 24;
	return 0;
}

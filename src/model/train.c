/* SPDX-License-Identifier: MIT */
/*
 * model/train.c - the data-parallel training-job model: an iteration is the
 * GPU's compute (FLOPs / (peak × MFU)) plus the part of the gradient
 * all-reduce that the backward pass does not hide.
 */
#include "model_int.h"

int
ft_model_train_dp(const struct ft_cluster_spec *spec, const struct ft_train_job *job,
                  struct ft_train_result *out, struct ft_error *err)
{
	struct ft_model_query q;
	double peak = spec->node.gpu_tflops * 1e12;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!(job->mfu > 0 && job->mfu <= 1))
		return ft_error_set(err, FT_EINVAL, "job.mfu: expected a share in (0, 1], got %g",
		                    job->mfu);
	if (!(job->overlap >= 0 && job->overlap <= 1))
		return ft_error_set(err, FT_EINVAL,
		                    "job.overlap: expected a share in [0, 1], got %g",
		                    job->overlap);
	if (!(job->flops_per_gpu >= 0))
		return ft_error_set(err, FT_EINVAL,
		                    "job.flops_per_gpu: expected a non-negative count, got %g",
		                    job->flops_per_gpu);
	if (!(peak > 0))
		return ft_error_set(err, FT_EINVAL,
		                    "%s: node.gpu_tflops: expected a positive rate, got %g",
		                    spec->name, spec->node.gpu_tflops);
	ft_model_query_init(&q, FT_OP_ALL_REDUCE, job->grad_bytes);
	q.ngpus = job->ngpus;
	rc = ft_model_eval(spec, &q, &out->allreduce, err);
	if (rc < 0)
		return rc;
	out->compute_s = job->flops_per_gpu / (peak * job->mfu);
	out->comm_s = out->allreduce.nranks > 1 ? out->allreduce.time_s : 0;
	out->exposed_comm_s = FT_MAX(0.0, out->comm_s - job->overlap * out->compute_s);
	out->iter_s = out->compute_s + out->exposed_comm_s;
	out->scale_eff = out->iter_s > 0 ? out->compute_s / out->iter_s : 1.0;
	return 0;
}

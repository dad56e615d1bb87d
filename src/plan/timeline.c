/* SPDX-License-Identifier: MIT */
/*
 * plan/timeline.c - the 1F1B schedule of one iteration as events per
 * stage, for the report's timeline (and as an independent check of the
 * bubble's closed form).
 *
 * Every stage runs its operations in 1F1B order; an operation starts when
 * its stage is free and its input is there (a forward after the previous
 * stage's forward of the same micro-batch, a backward after the next
 * stage's backward). Forward and backward durations are the plan's per
 * micro-batch figures with the exposed communication split between them in
 * proportion to their compute, the stage-boundary send inside each.
 */
#include "plan_int.h"

#include <string.h>

struct op {
	enum ft_plan_event_kind kind;
	uint32_t mb;
};

int
ft_plan_timeline(const struct ft_plan *p, struct ft_plan_event **events, size_t *n,
                 struct ft_error *err)
{
	uint32_t P = p->cfg.pp ? p->cfg.pp : 1, m = p->m, s, i, k;
	double comp = p->fwd_s + p->bwd_s + p->recompute_s;
	double exposed = p->tp_exposed_s + p->cp_exposed_s + p->ep_exposed_s + p->p2p_s;
	double cf = comp > 0 ? exposed * p->fwd_s / comp : exposed / 2, cb = exposed - cf;
	double tf = p->fwd_s + cf, tb = p->bwd_s + p->recompute_s + cb;
	size_t total = (size_t)P * m * 2 + 1, done = 0;
	struct ft_plan_event *ev = NULL;
	struct op *seq = NULL;
	uint32_t *next = NULL;
	double *free_at = NULL, *fend = NULL, *bend = NULL;
	int rc = 0;

	*events = NULL;
	*n = 0;
	if (!m)
		return ft_error_set(err, FT_EINVAL, "timeline: the plan has no micro-batches");
	if ((uint64_t)P * m > 1u << 22)
		return ft_error_set(err, FT_ERANGE, "timeline: %u stages x %u micro-batches is too "
		                    "many to draw", P, m);
	ev = ft_calloc(total, sizeof(*ev));
	seq = ft_calloc((size_t)P * m * 2, sizeof(*seq));
	next = ft_calloc(P, sizeof(*next));
	free_at = ft_calloc(P, sizeof(*free_at));
	fend = ft_calloc((size_t)P * m, sizeof(*fend));
	bend = ft_calloc((size_t)P * m, sizeof(*bend));
	if (!ev || !seq || !next || !free_at || !fend || !bend) {
		rc = ft_error_set(err, FT_ENOMEM, "timeline: out of memory");
		goto out;
	}
	for (s = 0; s < P; s++) {
		struct op *q = seq + (size_t)s * m * 2;
		uint32_t warm = FT_MIN(P - s - 1, m), f = 0, b = 0;

		k = 0;
		for (i = 0; i < warm; i++)
			q[k++] = (struct op){ FT_EVENT_FWD, f++ };
		while (f < m) {
			q[k++] = (struct op){ FT_EVENT_FWD, f++ };
			q[k++] = (struct op){ FT_EVENT_BWD, b++ };
		}
		while (b < m)
			q[k++] = (struct op){ FT_EVENT_BWD, b++ };
	}
	for (i = 0; i < (size_t)P * m; i++)
		fend[i] = bend[i] = -1;
	while (done < (size_t)P * m * 2) {
		size_t before = done;

		for (s = 0; s < P; s++) {
			while (next[s] < m * 2) {
				const struct op *o = &seq[(size_t)s * m * 2 + next[s]];
				double ready, t0, dur;

				if (o->kind == FT_EVENT_FWD)
					ready = s == 0 ? 0 : fend[(size_t)(s - 1) * m + o->mb];
				else
					ready = s == P - 1 ? fend[(size_t)s * m + o->mb] :
					                     bend[(size_t)(s + 1) * m + o->mb];
				if (ready < 0)
					break;
				t0 = FT_MAX(ready, free_at[s]);
				dur = o->kind == FT_EVENT_FWD ? tf : tb;
				ev[done] = (struct ft_plan_event){ o->kind, s, o->mb, t0, t0 + dur,
					                           o->kind == FT_EVENT_FWD ? cf : cb };
				free_at[s] = t0 + dur;
				if (o->kind == FT_EVENT_FWD)
					fend[(size_t)s * m + o->mb] = t0 + dur;
				else
					bend[(size_t)s * m + o->mb] = t0 + dur;
				next[s]++;
				done++;
			}
		}
		if (done == before) { /* cannot happen with 1F1B's order */
			rc = ft_error_set(err, FT_EINVAL, "timeline: the schedule deadlocked");
			goto out;
		}
	}
	if (p->dp_exposed_s > 0) {
		double end = 0;

		for (s = 0; s < P; s++)
			end = FT_MAX(end, free_at[s]);
		ev[done++] = (struct ft_plan_event){ FT_EVENT_DP, 0, 0, end, end + p->dp_exposed_s,
			                             p->dp_exposed_s };
	}
	*events = ev;
	*n = done;
	ev = NULL;
out:
	ft_free(ev);
	ft_free(seq);
	ft_free(next);
	ft_free(free_at);
	ft_free(fend);
	ft_free(bend);
	return rc;
}

/* SPDX-License-Identifier: MIT */
/*
 * plan/timeline.c - the 1F1B schedule of one iteration as events per
 * stage, for the report's timeline (and as an independent check of the
 * bubble's closed form).
 *
 * Every stage runs its operations in 1F1B order, interleaved over its v
 * model chunks when the plan has virtual stages (Megatron's order); an
 * operation starts when its stage is free and its input is there (a forward
 * after the previous stage's forward of the same micro-batch and chunk, or
 * the last stage's previous chunk; a backward after the next stage's, or
 * the first stage's next chunk). Forward and backward durations are the
 * plan's per micro-batch figures divided by v, with the exposed
 * communication split between them in proportion to their compute.
 */
#include "plan_int.h"

#include <string.h>

struct op {
	enum ft_plan_event_kind kind;
	uint32_t mb, chunk;
};

/*
 * Stage @s's operations in order. Forward step k works on model chunk
 * (k / p) % v and micro-batch (k / (p·v))·p + k % p (backward steps run
 * the chunks in reverse); after the warm-up forwards, one forward and one
 * backward alternate. With v = 1 this is plain 1F1B (warm-up p - s - 1).
 */
static void
stage_order(uint32_t s, uint32_t P, uint32_t m, uint32_t v, struct op *q)
{
	uint64_t total = (uint64_t)m * v, warm, f = 0, b = 0, k = 0;

	warm = FT_MIN((uint64_t)(P - s - 1) * 2 + (uint64_t)(v - 1) * P, total);
	if (v == 1)
		warm = FT_MIN((uint64_t)(P - s - 1), total);
#define STEP(kind, n, rev)                                                                    \
	(struct op){ kind, (uint32_t)((n) / ((uint64_t)P * v) * P + (n) % P),                  \
		     (uint32_t)((rev) ? v - 1 - (n) / P % v : (n) / P % v) }
	while (f < warm) {
		q[k++] = STEP(FT_EVENT_FWD, f, false);
		f++;
	}
	while (f < total) {
		q[k++] = STEP(FT_EVENT_FWD, f, false);
		f++;
		q[k++] = STEP(FT_EVENT_BWD, b, true);
		b++;
	}
	while (b < total) {
		q[k++] = STEP(FT_EVENT_BWD, b, true);
		b++;
	}
#undef STEP
}

int
ft_plan_timeline(const struct ft_plan *p, struct ft_plan_event **events, size_t *n,
                 struct ft_error *err)
{
	uint32_t P = p->cfg.pp ? p->cfg.pp : 1, m = p->m, V = p->cfg.vpp ? p->cfg.vpp : 1, s;
	double comp = p->fwd_s + p->bwd_s + p->recompute_s;
	double exposed = p->tp_exposed_s + p->cp_exposed_s + p->ep_exposed_s + p->p2p_s;
	double cf = comp > 0 ? exposed * p->fwd_s / comp : exposed / 2, cb = exposed - cf;
	double tf = (p->fwd_s + cf) / V, tb = (p->bwd_s + p->recompute_s + cb) / V;
	uint64_t per = (uint64_t)m * V * 2, cells = (uint64_t)P * m * V, i;
	size_t done = 0;
	struct ft_plan_event *ev = NULL;
	struct op *seq = NULL;
	uint64_t *next = NULL;
	double *free_at = NULL, *fend = NULL, *bend = NULL;
	int rc = 0;

	*events = NULL;
	*n = 0;
	if (!m)
		return ft_error_set(err, FT_EINVAL, "timeline: the plan has no micro-batches");
	if (cells > 1u << 22)
		return ft_error_set(err, FT_ERANGE, "timeline: %u stages x %u micro-batches x %u "
		                    "chunks is too many to draw", P, m, V);
	if (V > 1 && m % P)
		return ft_error_set(err, FT_EINVAL, "timeline: interleaving needs micro-batches (%u) "
		                    "to be a multiple of the stages (%u)", m, P);
	ev = ft_calloc(cells * 2 + 1, sizeof(*ev));
	seq = ft_calloc(cells * 2, sizeof(*seq));
	next = ft_calloc(P, sizeof(*next));
	free_at = ft_calloc(P, sizeof(*free_at));
	fend = ft_calloc(cells, sizeof(*fend));
	bend = ft_calloc(cells, sizeof(*bend));
	if (!ev || !seq || !next || !free_at || !fend || !bend) {
		rc = ft_error_set(err, FT_ENOMEM, "timeline: out of memory");
		goto out;
	}
	for (s = 0; s < P; s++)
		stage_order(s, P, m, V, seq + (size_t)s * per);
	for (i = 0; i < cells; i++)
		fend[i] = bend[i] = -1;
#define CELL(st, mb, ch) (((uint64_t)(st) * m + (mb)) * V + (ch))
	while (done < cells * 2) {
		size_t before = done;

		for (s = 0; s < P; s++) {
			while (next[s] < per) {
				const struct op *o = &seq[(size_t)s * per + next[s]];
				double ready, t0, dur;

				if (o->kind == FT_EVENT_FWD)
					ready = s > 0        ? fend[CELL(s - 1, o->mb, o->chunk)] :
					        o->chunk > 0 ? fend[CELL(P - 1, o->mb, o->chunk - 1)] :
					                       0;
				else
					ready = s < P - 1         ? bend[CELL(s + 1, o->mb, o->chunk)] :
					        o->chunk < V - 1  ? bend[CELL(0, o->mb, o->chunk + 1)] :
					                            fend[CELL(s, o->mb, o->chunk)];
				if (ready < 0)
					break;
				t0 = FT_MAX(ready, free_at[s]);
				dur = o->kind == FT_EVENT_FWD ? tf : tb;
				ev[done] = (struct ft_plan_event){ o->kind, s, o->mb, t0, t0 + dur,
					                           (o->kind == FT_EVENT_FWD ? cf : cb) / V };
				free_at[s] = t0 + dur;
				if (o->kind == FT_EVENT_FWD)
					fend[CELL(s, o->mb, o->chunk)] = t0 + dur;
				else
					bend[CELL(s, o->mb, o->chunk)] = t0 + dur;
				next[s]++;
				done++;
			}
		}
		if (done == before) { /* cannot happen with these orders */
			rc = ft_error_set(err, FT_EINVAL, "timeline: the schedule deadlocked");
			goto out;
		}
	}
#undef CELL
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

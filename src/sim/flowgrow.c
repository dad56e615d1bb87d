/* SPDX-License-Identifier: MIT */
/*
 * sim/flowgrow.c - the flow-level core's incremental rate updates: which
 * flows a change of the active set reaches (the level, the components, or
 * in grow mode the flows around the change grown until the max-min
 * conditions hold at their border), the kept link -> flows lists that grow
 * mode walks, and the min-heap of the active flows on the time their last
 * byte leaves. ft__fs_rates() is the recomputation the event loop calls
 * (flowcore.c has the overview, flowfill.c the water filling).
 */
#include "flow_int.h"

/* ---- transmission ends: active flows in a min-heap on act_fin ------------ */

void
ft__fs_fin_place(struct fs_sim *s, uint32_t pos, uint32_t f)
{
	s->fin_heap[pos] = f;
	s->act_hp[f] = pos;
}

/*
 * The heap's walks keep its arrays in locals: the build has no strict
 * aliasing, so each store into the heap would otherwise make the compiler
 * load s's fields again at every level.
 */
static void
fin_up(struct fs_sim *s, uint32_t pos)
{
	uint32_t *h = s->fin_heap, *hp = s->act_hp;
	const double *fin = s->act_fin;
	uint32_t f = h[pos];
	double key = fin[f];

	while (pos > 0) {
		uint32_t p = (pos - 1) / 2, g = h[p];

		if (!(key < fin[g]))
			break;
		h[pos] = g;
		hp[g] = pos;
		pos = p;
	}
	h[pos] = f;
	hp[f] = pos;
}

/* Restore the order below @pos of the heap's first @n entries. */
static void
fin_down(struct fs_sim *s, uint32_t pos, uint32_t n)
{
	uint32_t *h = s->fin_heap, *hp = s->act_hp;
	const double *fin = s->act_fin;
	uint32_t f = h[pos];
	double key = fin[f];

	for (;;) {
		uint32_t c = 2 * pos + 1;

		if (c >= n)
			break;
		if (c + 1 < n && fin[h[c + 1]] < fin[h[c]])
			c++;
		if (!(fin[h[c]] < key))
			break;
		h[pos] = h[c];
		hp[h[c]] = pos;
		pos = c;
	}
	h[pos] = f;
	hp[f] = pos;
}

/* The entry at @pos changed its key: move it up or down (the heap has @n entries). */
static void
fin_fix(struct fs_sim *s, uint32_t pos, uint32_t n)
{
	uint32_t f = s->fin_heap[pos];

	if (pos > 0 && s->act_fin[f] < s->act_fin[s->fin_heap[(pos - 1) / 2]])
		fin_up(s, pos);
	else
		fin_down(s, pos, n);
}

/* Take active flow @i out of the heap, which then has @n entries. */
void
ft__fs_fin_remove(struct fs_sim *s, uint32_t i, uint32_t n)
{
	uint32_t pos = s->act_hp[i];

	if (pos == n)
		return;
	ft__fs_fin_place(s, pos, s->fin_heap[n]);
	fin_fix(s, pos, n);
}

/*
 * The @n selected flows (inc_sel; their rates before in inc_old) have their new
 * rates in act_rate: give each its bottleneck, and to each whose rate moved
 * its bytes left as of now and when it ends (@fix: its place in the heap of
 * ends too; otherwise the caller heapifies). The arrays are read into locals
 * once: the build has no strict aliasing, so each store would otherwise make
 * the compiler load s's fields again for every flow.
 */
static void
fin_rates(struct fs_sim *s, uint32_t n, bool fix)
{
	const uint32_t *sel = s->inc_sel, *wb = s->wf_bott;
	const double *olds = s->inc_old, *rate = s->act_rate, now = s->now_s;
	double *left = s->act_left, *t0 = s->act_t0, *fin = s->act_fin;
	struct fs_act_bn *bn = s->act_bn;
	struct fs_link_st *lk = s->lk;

	for (uint32_t k = 0; k < n; k++) {
		uint32_t f = sel[k];
		double r = rate[f], old = olds[k];

		ft__fs_bott_move(&bn[f], lk, now, wb[f]);
		if (r == old)
			continue;
		if (old > 0) {
			double l = left[f] - old * (now - t0[f]);

			left[f] = l > 0 ? l : 0;
		}
		t0[f] = now;
		fin[f] = r > 0 ? now + left[f] / r : INFINITY;
		if (fix)
			fin_fix(s, s->act_hp[f], s->nactive);
	}
}

/* The root of link @l's component (path halving). */
static uint32_t
uf_find(uint32_t *up, uint32_t l)
{
	while (up[l] != l) {
		up[l] = up[up[l]];
		l = up[l];
	}
	return l;
}

/*
 * Of the @n flows at or above the level (inc_sel), keep those a change
 * reaches: the connected components of links and those flows (two flows are
 * joined by a link they both cross) that hold a link of a flow that ended or
 * a new flow. The flows below the level keep their rates, so what they leave
 * of each link is what it left last time; a component that holds no change
 * has then the same capacities and flows as last time, and the water filling
 * would give its flows the rates they have (max-min rates are unique). Only
 * the components a change reaches are filled again. Returns how many flows
 * stay in inc_sel (in their order: each link sees the same sums).
 */
static uint32_t
local_flows(struct fs_sim *s, uint32_t n)
{
	const uint32_t *paths = s->paths.data, *seed = s->inc_seeds.data;
	uint32_t *up = s->inc_uf, k, j, m = 0;
	uint8_t *hot = s->inc_hot;

	for (k = 0; k < n; k++) {
		const uint32_t *p = paths + s->act_pf[s->inc_sel[k]];
		uint32_t r = uf_find(up, p[0]);

		for (j = 1; j < s->act_np[s->inc_sel[k]]; j++) {
			uint32_t q = uf_find(up, p[j]);

			if (q != r)
				up[q] = r;
		}
	}
	for (k = 0; k < s->inc_seeds.len; k++)
		hot[uf_find(up, seed[k])] = 1;
	for (k = 0; k < n; k++)
		if (s->inc_old[k] < 0) /* a new flow */
			hot[uf_find(up, paths[s->act_pf[s->inc_sel[k]]])] = 1;
	/* which stay (wf_capped is free until the water filling lists the capped flows) */
	for (k = 0; k < n; k++)
		s->wf_capped[k] = hot[uf_find(up, paths[s->act_pf[s->inc_sel[k]]])];
	/* every link back to its own root, no root marked */
	for (k = 0; k < n; k++) {
		const uint32_t *p = paths + s->act_pf[s->inc_sel[k]];

		for (j = 0; j < s->act_np[s->inc_sel[k]]; j++) {
			up[p[j]] = p[j];
			hot[p[j]] = 0;
		}
	}
	for (k = 0; k < s->inc_seeds.len; k++) {
		up[seed[k]] = seed[k];
		hot[seed[k]] = 0;
	}
	for (k = 0; k < n; k++) {
		if (!s->wf_capped[k])
			continue;
		s->inc_sel[m] = s->inc_sel[k];
		s->inc_old[m++] = s->inc_old[k];
	}
	return m;
}

/*
 * Select the flows on link @l at or above @thr (new ones too) not selected yet,
 * stopping once more than @lim are: the count.
 */
static uint32_t
grow_link(struct fs_sim *s, uint32_t n, uint32_t l, double thr, uint32_t lim)
{
	/* s's arrays in locals: without strict aliasing each store would reload them */
	const struct fs_lf_ent *e = s->lf[l].e;
	const uint32_t nent = s->lf[l].n;
	const double *rate = s->act_rate;
	uint8_t *in = s->inc_in;
	uint32_t *sel = s->inc_sel, q;
	double *old = s->inc_old;

	for (q = 0; q < nent && n <= lim; q++) {
		uint32_t f = e[q].act;
		double r = rate[f];

		if (in[f] || (r >= 0 && r < thr))
			continue;
		in[f] = 1;
		sel[n] = f;
		old[n++] = r;
	}
	s->nsel_reads += q;
	return n;
}

/*
 * Grow mode, the first guess: the flows at or above the level (@thr) on the
 * links of a flow that ended and of a new flow, the new flows included.
 * ft__fs_grow_check() adds the flows the guess missed. A guess of more than an
 * eighth of the active flows (FS_GROW_DIV) is a full pass whatever the rest
 * of it holds, so the walk stops at the first flow past that. Returns how
 * many (inc_sel, inc_old; each marked in inc_in).
 */
static uint32_t
grow_select(struct fs_sim *s, double thr)
{
	const uint32_t *paths = s->paths.data, *seed = s->inc_seeds.data, *nw = s->inc_new.data;
	uint8_t *seen = s->inc_hot; /* free in grow mode: links walked already */
	uint32_t n = 0, l, lim = s->nactive / FS_GROW_DIV;
	size_t k;

	/* A link is walked once: walked again, each of its flows at or above @thr is
	 * selected already (new flows that start together share their NIC links, and
	 * a round start walked each such link once per flow: quadratic). */
	for (k = 0; k < s->inc_new.len && n <= lim; k++) {
		uint32_t f = ft__fs_task(s, nw[k])->active_idx;

		for (uint32_t j = 0; j < s->act_np[f] && n <= lim; j++) {
			l = paths[s->act_pf[f] + j];
			if (!seen[l]) {
				seen[l] = 1;
				n = grow_link(s, n, l, thr, lim);
			}
		}
	}
	for (k = 0; k < s->inc_seeds.len && n <= lim; k++) {
		l = seed[k];
		if (!seen[l]) {
			seen[l] = 1;
			n = grow_link(s, n, l, thr, lim);
		}
	}
	/* every mark back to 0 */
	for (k = 0; k < s->inc_new.len; k++) {
		uint32_t f = ft__fs_task(s, nw[k])->active_idx;

		for (uint32_t j = 0; j < s->act_np[f]; j++)
			seen[paths[s->act_pf[f] + j]] = 0;
	}
	for (k = 0; k < s->inc_seeds.len; k++)
		seen[seed[k]] = 0;
	return n;
}

/*
 * Widen a grown selection before it is filled again: the flows that the check
 * added (inc_sel[@from, @n)) will change rate, and that reaches the flows whose
 * bottleneck is one of their links and that were faster there than they were
 * (a flow that now takes more of such a link must share it with them; one that
 * now takes less leaves them room). The next check would name most of them, one
 * ring of links at a time, and every failed check costs a whole new filling of
 * the selection. So they are added now, ring after ring, until the selection has
 * doubled or none is left to add (at or above the level only: the flows below
 * it keep their rates). Which flows are selected changes no rate: a selection
 * passes only when the max-min conditions hold at its border
 * (ft__fs_grow_check()), and those rates are unique. Returns the new count.
 */
static uint32_t
grow_widen(struct fs_sim *s, uint32_t from, uint32_t n)
{
	const uint32_t *paths = s->paths.data;
	uint32_t goal = 2 * from, m = n;

	while (from < m && m < goal && m <= s->nactive / FS_GROW_DIV) {
		uint32_t end = m;

		for (uint32_t k = from; k < end; k++) {
			uint32_t f = s->inc_sel[k];
			const uint32_t *p = paths + s->act_pf[f];

			for (uint32_t j = 0; j < s->act_np[f]; j++) {
				const struct fs_lf *L = &s->lf[p[j]];
				uint32_t left = s->lk[p[j]].nbott; /* flows it bottlenecks, unseen */

				for (uint32_t q = 0; q < L->n && left > 0; q++) {
					uint32_t g = L->e[q].act;
					double r = s->act_rate[g];

					if (s->act_bn[g].bott != p[j])
						continue;
					left--;
					if (s->inc_in[g] || r < s->inc_thr || !(r > s->inc_old[k]))
						continue;
					s->inc_in[g] = 1;
					s->inc_sel[m] = g;
					s->inc_old[m++] = r;
				}
			}
		}
		from = end;
	}
	s->nwiden += m - n;
	return m;
}

/* Active flow @f sends at its own rate cap (its cap is its bottleneck). */
static bool
at_cap(const struct fs_sim *s, uint32_t f)
{
	uint32_t c = s->act_capi[f];

	return c && s->act_rate[f] >= FT_VEC_AT(&s->caps, double, c - 1) * (1 - FS_GROW_RTOL);
}

/* Note link @l in ft__fs_grow_check()'s list (its rate change in rem, its index in off). */
static inline __attribute__((always_inline)) void
grow_touch(struct fs_sim *s, uint32_t l, uint32_t *nt)
{
	struct fs_wf_link *L = &s->wf_link[l];

	if (L->cnt++)
		return;
	L->rem = 0;
	L->off = *nt;
	s->wf_touched[*nt] = l;
	s->wf_items[*nt].key = INFINITY; /* the least rate a refilled flow froze at here */
	s->wf_items2[*nt].key = 0;       /* the largest rate of a refilled flow here */
	(*nt)++;
}

/*
 * After the water filling of the @n selected flows (new rates in act_rate,
 * previous ones in inc_old), check the max-min conditions where the
 * selection meets the other flows, on every link a selected flow or a flow
 * that ended crosses (elsewhere nothing changed). A flow left out must be
 * refilled too when its link is now over capacity, when it is faster than
 * a selected flow frozen on that link (which would then not be the largest
 * there), or when that link was its bottleneck and no longer is (not full
 * any more, or a selected flow is now faster there). If no flow must, every
 * flow has a bottleneck and every link room, and the rates are the max-min
 * rates (they are unique), as a full water filling would give them up to
 * FS_GROW_RTOL. The flows to add are appended to inc_sel (marked); returns
 * the new count.
 */
uint32_t
ft__fs_grow_check(struct fs_sim *s, uint32_t n)
{
	const uint32_t *paths = s->paths.data, *seed = s->inc_seeds.data;
	struct fs_wf_link *L = s->wf_link;
	uint32_t nt = 0, m = n, k, j, t;

	for (k = 0; k < s->inc_seeds.len; k++)
		grow_touch(s, seed[k], &nt);
	s->npath_walks += n;
	for (k = 0; k < n; k++) {
		uint32_t f = s->inc_sel[k];
		double r = s->act_rate[f], d = r - (s->inc_old[k] > 0 ? s->inc_old[k] : 0);
		bool froze = !at_cap(s, f);

		for (j = 0; j < s->act_np[f]; j++) {
			uint32_t l = paths[s->act_pf[f] + j];

			grow_touch(s, l, &nt);
			L[l].rem += d;
			t = L[l].off;
			if (r > s->wf_items2[t].key)
				s->wf_items2[t].key = r;
			if (froze && s->wf_bott[f] == l && r < s->wf_items[t].key)
				s->wf_items[t].key = r;
		}
	}
	for (t = 0; t < nt; t++) {
		uint32_t l = s->wf_touched[t];
		const struct fs_lf *F = &s->lf[l];
		double cap = s->cap_Bps[l], load = s->lk[l].load + L[l].rem;
		bool over = load > cap * (1 + FS_GROW_RTOL), full;
		uint32_t left;
		double lo, hi;

		L[l].cnt = 0;
		/* no flow left out can break a condition here: the link has room, froze
		 * no refilled flow, and is no flow's bottleneck */
		if (!over && s->wf_items[t].key == INFINITY && s->lk[l].nbott == 0)
			continue;
		lo = s->wf_items[t].key * (1 + FS_GROW_RTOL);
		hi = s->wf_items2[t].key * (1 - FS_GROW_RTOL);
		full = load >= cap * (1 - FS_GROW_RTOL);
		/* with room and no refilled flow frozen here, only the flows it
		 * bottlenecks can fail: the walk ends once it has seen them all */
		left = over || lo < INFINITY ? UINT32_MAX : s->lk[l].nbott;
		for (uint32_t q = 0; q < F->n && left > 0; q++) {
			uint32_t g = F->e[q].act;
			double r = s->act_rate[g];

			if (s->act_bn[g].bott == l)
				left--;
			if (s->inc_in[g])
				continue;
			if (over || r > lo ||
			    (s->act_bn[g].bott == l && !at_cap(s, g) && (!full || r < hi))) {
				s->inc_in[g] = 1;
				s->inc_sel[m] = g;
				s->inc_old[m++] = r;
			}
		}
	}
	return m;
}

/*
 * Whether a grown selection is skipped for a full pass straight away: when the
 * last FS_ESC_AFTER ones grew past an eighth of the flows (FS_GROW_DIV; and
 * were filled in full after all), as every completion does once max-min
 * couples most flows (each GPU's PCIe link binds its flows:
 * docs/internals/sim.md, "The all-to-all on NCCL's p2p posting"), the
 * attempts only add to the full pass. Every FS_ESC_RETRY-th
 * recomputation grows one again, to see whether that still holds. Either way
 * the rates are the max-min rates.
 */
static bool
skip_grown(struct fs_sim *s)
{
	if (s->esc_run < FS_ESC_AFTER)
		return false;
	if (++s->esc_skips % FS_ESC_RETRY == 0)
		return false;
	s->nesc_skipped++;
	return true;
}

/* A grown selection ended @full (filled in full after all) or not: count the run. */
static void
note_grown(struct fs_sim *s, bool full)
{
	if (!full) {
		s->esc_run = 0;
		s->esc_skips = 0;
	} else if (s->esc_run < UINT32_MAX) {
		s->esc_run++;
	}
}

/*
 * Which flows ft__fs_rates() gives new rates: all of them, or only those whose
 * rate may change. Returns how many (listed in inc_sel, their rates before
 * in inc_old) and whether that is a full recomputation.
 */
static uint32_t
select_flows(struct fs_sim *s, bool *full)
{
	const uint32_t *paths = s->paths.data, *nw = s->inc_new.data;
	double level = s->inc_level, thr;
	uint32_t i, j, n = 0;

	s->inc_level = INFINITY;
	/* mostly new flows (a phase starting), or no counts kept: all of them */
	if (s->inc_new.len > s->nactive / 2 || !s->keep)
		level = 0;
	/* a new flow: below cap / flows on each of its links, nothing can change */
	for (size_t k = 0; k < s->inc_new.len && level > 0; k++) {
		const uint32_t *p;

		i = ft__fs_task(s, nw[k])->active_idx;
		p = paths + s->act_pf[i];
		for (j = 0; j < s->act_np[i]; j++) {
			double b = s->cap_Bps[p[j]] / s->lk[p[j]].nactive;

			if (b < level)
				level = b;
		}
	}
	if (s->lf && s->inc_since_full >= FS_FULL_EVERY) {
		/* grow mode refills no flow it need not: only the loads, summed anew, could
		 * drift (rounding), and they are what a refill starts from */
		s->loads_valid = false;
		s->inc_since_full = 0;
	}
	*full = s->full_rates || s->inc_since_full >= FS_FULL_EVERY || !(level > 0);
	if (!*full) {
		thr = level * (1 - FS_LEVEL_RTOL);
		s->inc_thr = thr;
		if (s->lf) {
			n = grow_select(s, thr);
		} else {
			for (i = 0; i < s->nactive; i++) {
				if (s->act_rate[i] >= 0 && s->act_rate[i] < thr)
					continue;
				s->inc_sel[n] = i;
				s->inc_old[n++] = s->act_rate[i];
			}
			if (!s->level_only)
				n = local_flows(s, n);
		}
		/* most of them: the full pass costs the same */
		*full = n > s->nactive / FS_GROW_DIV || skip_grown(s);
		for (i = 0; i < n && *full && s->lf; i++)
			s->inc_in[s->inc_sel[i]] = 0;
	}
	if (!*full && !s->loads_valid) {
		/* the last full pass left the loads stale: sum them from the rates */
		for (i = 0; i < s->nactive; i++)
			for (j = 0; j < s->act_np[i]; j++)
				s->lk[paths[s->act_pf[i] + j]].load = 0;
		for (i = 0; i < s->nactive; i++)
			for (j = 0; j < s->act_np[i]; j++)
				s->lk[paths[s->act_pf[i] + j]].load += s->act_rate[i] > 0 ?
				                                                s->act_rate[i] :
				                                                0;
		s->loads_valid = true;
	}
	if (*full) {
		for (i = 0; i < s->nactive; i++)
			s->inc_sel[i] = i;
		memcpy(s->inc_old, s->act_rate, s->nactive * sizeof(*s->inc_old));
		n = s->nactive;
	}
	return n;
}


/* List active flow @i on every link of its path. */
int
ft__fs_lf_add(struct fs_sim *s, uint32_t i)
{
	const uint32_t pf = s->act_pf[i], *p = (const uint32_t *)s->paths.data + pf;

	if (s->paths.len > s->path_pos_cap) {
		uint32_t *pp = ft_reallocarray(s->path_pos, s->paths.cap, sizeof(uint32_t));

		if (!pp)
			return FT_ENOMEM;
		s->path_pos = pp;
		s->path_pos_cap = s->paths.cap;
	}
	for (uint32_t j = 0; j < s->act_np[i]; j++) {
		struct fs_lf *L = &s->lf[p[j]];

		if (L->n == L->cap) {
			uint32_t cap = L->cap ? 2 * L->cap : 4;
			struct fs_lf_ent *e = ft_reallocarray(L->e, cap, sizeof(*e));

			if (!e)
				return FT_ENOMEM;
			L->e = e;
			L->cap = cap;
		}
		s->path_pos[pf + j] = L->n;
		L->e[L->n++] = (struct fs_lf_ent){ .act = i, .pf = pf, .hop = (uint16_t)j,
		                                    .np = (uint16_t)s->act_np[i] };
	}
	return 0;
}

/* Take active flow @i off its links' lists (each list's last entry fills the hole). */
void
ft__fs_lf_remove(struct fs_sim *s, uint32_t i)
{
	const uint32_t pf = s->act_pf[i], *p = (const uint32_t *)s->paths.data + pf;

	struct fs_lf *lf = s->lf;
	uint32_t *pos = s->path_pos, np = s->act_np[i];

	/* s's arrays in locals: without strict aliasing each store would reload them */
	for (uint32_t j = 0; j < np; j++) {
		struct fs_lf *L = &lf[p[j]];
		uint32_t q = pos[pf + j];
		struct fs_lf_ent last = L->e[--L->n];

		if (q == L->n)
			continue;
		L->e[q] = last;
		pos[last.pf + last.hop] = q;
	}
}

/* Active flow @i was moved to slot @i from another: its list entries follow. */
void
ft__fs_lf_moved(struct fs_sim *s, uint32_t i)
{
	const uint32_t pf = s->act_pf[i], *p = (const uint32_t *)s->paths.data + pf;

	struct fs_lf *lf = s->lf;
	const uint32_t *pos = s->path_pos, np = s->act_np[i];

	for (uint32_t j = 0; j < np; j++)
		lf[p[j]].e[pos[pf + j]].act = i;
}

/*
 * The bookkeeping incremental recomputation needs (each link's active flows
 * and load, updated at every flow start and end) costs about a tenth of a
 * run whose phases end in step, as D-mod-K all-to-all rounds do, where every
 * recomputation is a full one anyway. After FS_LAZY_AFTER full ones in a row
 * it stops (lazy), and after FS_LAZY_RETRY more it is counted anew from the
 * active flows and tried again. Adaptive routing reads the counts: always
 * kept. A full pass reads the kept link -> flows lists instead of walking
 * every path twice to lay them out (ft__fs_wf_fill()), and keeping them walks
 * a path once per flow start and end: a run of full passes goes lazy only
 * when its flows started and ended at least as often as its passes filled
 * flows (phases that end in step), not when a few flows end between full
 * passes over many (an ECMP all-to-all's completions).
 */
static int
keep_or_lazy(struct fs_sim *s)
{
	const uint32_t *paths = s->paths.data;
	uint32_t i, j;

	if (s->keep) {
		if (s->need_counts || s->full_rates || s->phase_run < s->lazy_after ||
		    s->phase_churn < s->phase_filled)
			return 0;
		s->keep = false;
		s->lazy_run = 0;
		s->nmode_switches++;
		return 0;
	}
	if (!s->need_counts && s->lazy_run < s->lazy_retry)
		return 0;
	for (i = 0; i < s->nlinks; i++) {
		s->lk[i].nactive = 0;
		s->lk[i].load = 0; /* an idle one stays 0; the others are summed anew */
		if (s->lf)
			s->lf[i].n = 0;
	}
	for (i = 0; i < s->nactive; i++) {
		for (j = 0; j < s->act_np[i]; j++)
			s->lk[paths[s->act_pf[i] + j]].nactive++;
		if (s->lf && ft__fs_lf_add(s, i) < 0)
			return FT_ENOMEM; /* still lazy: tried again at the next pass */
	}
	s->keep = true;
	s->loads_valid = false;
	s->phase_run = 0;
	s->phase_churn = 0;
	s->phase_filled = 0;
	s->nmode_switches++;
	return 0;
}

/*
 * Grow mode: fill the selection, check its border (ft__fs_grow_check()), and fill
 * it again with the flows the check adds (widened by grow_widen()) until it adds
 * none, or all flows once more than an eighth are selected (FS_GROW_DIV:
 * the full pass, one path walk per flow, costs less than filling, checking
 * and widening such a selection again). Returns the count (inc_sel); *@full
 * says whether every flow was filled.
 */
static int
fill_grown(struct fs_sim *s, uint32_t *nsel, bool *full)
{
	uint32_t n = *nsel, m, k;
	int rc;

	for (;;) {
		rc = ft__fs_wf_fill(s, n, *full);
		if (rc < 0 || *full || !s->lf)
			return rc;
		m = ft__fs_grow_check(s, n);
		if (m == n)
			return 0;
		if (!s->no_widen)
			m = grow_widen(s, n, m);
		for (k = 0; k < n; k++) /* as they were: filled again over the others */
			s->act_rate[s->inc_sel[k]] = s->inc_old[k];
		n = *nsel = m;
		s->ngrow++;
		if (n > s->nactive / FS_GROW_DIV) {
			for (k = 0; k < s->nactive; k++) {
				s->inc_in[k] = 0;
				s->inc_sel[k] = k;
				s->inc_old[k] = s->act_rate[k];
			}
			n = *nsel = s->nactive;
			*full = true;
		}
	}
}

/* The room the ended flows left is handed out now: no link holds any back. */
static void
room_reset(struct fs_sim *s)
{
	const uint32_t *seed = s->inc_seeds.data;

	s->room_due = false;
	if (s->level_only || s->full_rates) { /* the ended flows' links are not listed */
		for (uint32_t l = 0; l < s->nlinks; l++)
			s->lk[l].freed = 0;
		return;
	}
	for (size_t k = 0; k < s->inc_seeds.len; k++)
		s->lk[seed[k]].freed = 0;
}

/*
 * Max-min rates by water filling, for the flows select_flows() names.
 *
 * Incremental: water filling freezes flows in increasing order of rate, and
 * below the level x0 where the first difference can appear it makes the
 * same choices as it did last time, so the flows whose rates were below x0
 * keep them, exactly, and only the others are filled again, over what the
 * kept flows leave of each link (its capacity - its load + the refilled
 * flows' previous rates). A flow that ended only gave its links more room,
 * and they froze no flow below its rate: x0 is at most the lowest rate of
 * a flow that ended. A new flow only lowers the share of its links, and a
 * link of capacity c with n flows (the new one included) cannot freeze a
 * flow below c / n: x0 is at most the lowest of those. Loads are kept per
 * link as rates change; every FS_FULL_EVERY-th time, or when more than an
 * eighth of the flows would be filled again (FS_GROW_DIV), all are, and the next incremental pass
 * sums the loads anew from the rates. In grow mode (the default) only the
 * flows around the change are filled, and grown until the max-min
 * conditions hold at their border (fill_grown()).
 */
int
ft__fs_rates(struct fs_sim *s)
{
	const uint32_t *paths = s->paths.data;
	uint32_t nsel, i, j, k;
	bool full, grown;
	int rc;

	s->nrecompute++;
	s->rates_dirty = false;
	room_reset(s);
	if (s->nactive == 0) {
		s->inc_level = INFINITY;
		s->inc_seeds.len = 0;
		s->inc_new.len = 0;
		s->nrecompute_full++; /* every active flow, trivially */
		return 0;
	}
	rc = keep_or_lazy(s);
	if (rc < 0)
		return rc;
	nsel = select_flows(s, &full);
	grown = !full && s->lf;
	rc = fill_grown(s, &nsel, &full);
	if (grown)
		note_grown(s, full);
	s->inc_seeds.len = 0;
	s->inc_new.len = 0;
	if (full && s->lf) /* inc_sel: every active flow */
		memset(s->inc_in, 0, nsel);
	for (k = 0; k < nsel && s->lf && !full; k++)
		s->inc_in[s->inc_sel[k]] = 0;
	if (rc < 0)
		return rc;
	s->nrefilled += nsel;
	if (full) {
		s->nrecompute_full++;
		/* a periodic full pass says nothing about whether flows end in step */
		if (s->inc_since_full < FS_FULL_EVERY) {
			s->phase_run++;
			s->phase_filled += nsel;
		}
		s->inc_since_full = 0;
		if (!s->keep)
			s->lazy_run++;
	} else {
		s->inc_since_full++;
		s->phase_run = 0;
		s->phase_churn = 0;
		s->phase_filled = 0;
	}
	fin_rates(s, nsel, !full);
	for (k = s->nactive / 2; full && k-- > 0;)
		fin_down(s, k, s->nactive); /* every key may have moved: heapify */
	/* the links' loads follow the new rates; a full pass leaves them to the next
	 * incremental one, which sums them only if it comes (grow mode: ft__fs_wf_fill()) */
	s->loads_valid = !full || (s->lf && s->keep);
	for (k = 0; k < nsel && !full; k++) {
		const uint32_t *p;
		double d;

		i = s->inc_sel[k];
		d = s->act_rate[i] - (s->inc_old[k] > 0 ? s->inc_old[k] : 0);
		p = paths + s->act_pf[i];
		for (j = 0; j < s->act_np[i]; j++)
			s->lk[p[j]].load += d;
	}
	return 0;
}

int
ft__fs_recompute(struct fs_sim *s)
{
	int rc = ft__fs_rates(s);

	/* Mirror the rates into the tasks (their public view; the event loop reads act_rate). */
	for (uint32_t i = 0; rc == 0 && i < s->nactive; i++)
		ft__fs_task(s, s->active[i])->rate_Bps = s->act_rate[i];
	return rc;
}

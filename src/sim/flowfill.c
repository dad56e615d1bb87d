/* SPDX-License-Identifier: MIT */
/*
 * sim/flowfill.c - max-min fair rates by bottleneck-ordered water filling
 * (the flow-level core's rate computation; flowcore.c has the overview).
 *
 * Links carrying the selected flows are taken in the order of their fair
 * share (remaining capacity / unfrozen flows, ties to the lower link id); the
 * link with the smallest share is the next bottleneck, its flows are frozen
 * at that share and the other links they cross give the share back. Links
 * start radix-sorted by their first share and one whose share has grown
 * meanwhile waits in a small heap, so with F flows of path length P over T
 * links a pass costs O(F P + T). An incremental pass hands a link that only
 * one of its flows crosses to that flow (wf_place()): few links are sorted.
 * A full pass in grow mode reads the kept link -> flows lists
 * (wf_layout_kept()): each path is walked once, when its flow freezes.
 */
#include "flow_int.h"

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Sort @n ids in increasing order (insertion sort when they are few). */
void
ft__fs_sort_u32(uint32_t *q, uint32_t n)
{
	if (n >= 32) {
		qsort(q, n, sizeof(*q), cmp_u32);
		return;
	}
	for (uint32_t k = 1; k < n; k++) {
		uint32_t v = q[k], j = k;

		for (; j > 0 && q[j - 1] > v; j--)
			q[j] = q[j - 1];
		q[j] = v;
	}
}

/* ---- water filling ------------------------------------------------------- */

static bool
wf_less(const struct wf_item *a, const struct wf_item *b)
{
	return a->key < b->key || (a->key == b->key && a->link < b->link);
}

/*
 * Restore the heap order below @i (the heap has @n items), bottom-up: the
 * hole at @i follows the smaller child down to a leaf, and the item then
 * rises from there to its place. The item a pop moves to the root is the
 * heap's last, which mostly belongs near the leaves, so this makes one
 * comparison a level where the classic sift-down makes two. (share, link
 * id) is a total order and a link is queued at most once, so the heap's
 * minimum is one item whatever its layout: links pop in the same order.
 */
static void
wf_sift_down(struct wf_item *h, size_t n, size_t i)
{
	struct wf_item it = h[i];
	size_t top = i;

	for (;;) {
		size_t l = 2 * i + 1, m;

		if (l >= n)
			break;
		m = l + 1 < n && wf_less(&h[l + 1], &h[l]) ? l + 1 : l;
		h[i] = h[m];
		i = m;
	}
	while (i > top) {
		size_t p = (i - 1) / 2;

		if (!wf_less(&it, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = it;
}

static void
wf_push(struct fs_sim *s, double key, uint32_t link)
{
	struct wf_item *h = s->wf_heap.data;
	size_t i = s->wf_heap.len++;

	/* Room was reserved for every touched link; a link is queued at most once. */
	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (!(key < h[p].key || (key == h[p].key && link < h[p].link)))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i].key = key;
	h[i].link = link;
}

static void
wf_pop(struct fs_sim *s)
{
	struct wf_item *h = s->wf_heap.data;
	size_t n = --s->wf_heap.len;

	if (n > 0) {
		h[0] = h[n];
		wf_sift_down(h, n, 0);
	}
}

/*
 * Sort @n items by key, keeping the order of equal keys: LSD radix sort on the key's bits
 * (shares are positive, and positive doubles order like their bit patterns). Passes whose
 * digit is the same for every item are skipped. Returns the sorted array (one of the two).
 */
static inline uint32_t
wf_digit(const struct wf_item *it, uint32_t pass)
{
	uint64_t u;

	memcpy(&u, &it->key, sizeof(u));
	return (uint32_t)(u >> (pass * WF_RADIX_BITS)) & ((1u << WF_RADIX_BITS) - 1);
}

/*
 * Below WF_RADIX_MIN items the radix sort's fixed cost (clearing and summing
 * 6 x 2,048 counters) outweighs the items: an ECMP all-to-all's incremental
 * recomputations touch a few hundred links each, and that fixed cost was
 * half of the run. Sort them by (key, link) instead: insertion sort on runs of
 * WF_RUN items, then bottom-up merges. (key, link) is a total order, so the
 * result is the radix sort's (stable over link order) exactly.
 */
static struct wf_item *
wf_merge_sort(struct wf_item *a, struct wf_item *b, uint32_t n)
{
	struct wf_item *t;
	uint32_t i, j, w;

	for (i = 0; i < n; i += WF_RUN) {
		uint32_t e = i + WF_RUN < n ? i + WF_RUN : n;

		for (j = i + 1; j < e; j++) {
			struct wf_item it = a[j];
			uint32_t k = j;

			for (; k > i && wf_less(&it, &a[k - 1]); k--)
				a[k] = a[k - 1];
			a[k] = it;
		}
	}
	for (w = WF_RUN; w < n; w *= 2) {
		for (i = 0; i < n; i += 2 * w) {
			uint32_t m = i + w < n ? i + w : n, e = i + 2 * w < n ? i + 2 * w : n;
			uint32_t x = i, y = m, o = i;

			while (x < m && y < e)
				b[o++] = wf_less(&a[y], &a[x]) ? a[y++] : a[x++];
			while (x < m)
				b[o++] = a[x++];
			while (y < e)
				b[o++] = a[y++];
		}
		t = a;
		a = b;
		b = t;
	}
	return a;
}

static struct wf_item *
wf_sort(struct fs_sim *s, uint32_t n)
{
	struct wf_item *a = s->wf_items, *b = s->wf_items2, *t;
	const uint32_t nb = 1u << WF_RADIX_BITS, mask = nb - 1;
	uint32_t *hist = s->wf_hist, i, pass;

	if (n < s->wf_radix_min)
		return wf_merge_sort(a, b, n);
	memset(hist, 0, (size_t)WF_RADIX_PASSES * nb * sizeof(*hist));
	for (i = 0; i < n; i++) {
		uint64_t u;

		memcpy(&u, &a[i].key, sizeof(u));
		for (pass = 0; pass < WF_RADIX_PASSES; pass++)
			hist[pass * nb + ((u >> (pass * WF_RADIX_BITS)) & mask)]++;
	}
	for (pass = 0; pass < WF_RADIX_PASSES; pass++) {
		uint32_t *h = hist + pass * nb, sum = 0, d;

		if (n == 0 || h[wf_digit(&a[0], pass)] == n)
			continue; /* one digit for all: the order stands */
		for (d = 0; d < nb; d++) {
			uint32_t c = h[d];

			h[d] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			b[h[wf_digit(&a[i], pass)]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	return a;
}

/*
 * Count the @nsel selected flows per link and collect the touched links (an
 * incremental filling, @inc, in any order: its links are merge-sorted). A
 * touched link's rem starts as the sum of the selected flows' previous rates
 * on it (none yet counts 0). The caller gives each link its room in the
 * link -> flows layout (off), and wf_place() fills it in.
 */
static int
wf_layout(struct fs_sim *s, uint32_t nsel, bool inc, uint32_t *ntouched_out)
{
	const uint32_t *paths = s->paths.data;
	struct fs_wf_link *L = s->wf_link;
	uint32_t i, j, ntouched = 0;
	size_t total = 0;

	s->npath_walks += nsel;
	for (uint32_t k = 0; k < nsel; k++) {
		const double old = s->inc_old[k] > 0 ? s->inc_old[k] : 0;
		const uint32_t *p;

		i = s->inc_sel[k];
		p = paths + s->act_pf[i];
		for (j = 0; j < s->act_np[i]; j++) {
			uint32_t l = p[j];

			if (L[l].cnt++ == 0) {
				if (!inc)
					s->wf_mark[l / 64] |= UINT64_C(1) << (l % 64);
				s->wf_touched[ntouched++] = l;
				L[l].rem = 0;
			}
			L[l].rem += old;
		}
		total += s->act_np[i];
	}
	/* The radix sort keeps the order of equal shares, so it needs the touched links in
	 * link order (ties go to the lower link id): a few are sorted as they are, many
	 * read back from the bitmap in one pass over it. The merge sort below
	 * WF_RADIX_MIN compares (share, link id), a total order: any order will do. */
	if (inc) {
		/* no mark set */
	} else if (ntouched < s->wf_radix_min) {
		for (i = 0; i < ntouched; i++)
			s->wf_mark[s->wf_touched[i] / 64] = 0;
	} else if ((size_t)ntouched * 4 < s->nlinks / 64) {
		for (i = 0; i < ntouched; i++)
			s->wf_mark[s->wf_touched[i] / 64] = 0;
		ft__fs_sort_u32(s->wf_touched, ntouched);
	} else {
		ntouched = 0;
		for (i = 0; i <= s->nlinks / 64; i++) {
			uint64_t w = s->wf_mark[i];

			s->wf_mark[i] = 0;
			while (w) {
				s->wf_touched[ntouched++] = i * 64 + (uint32_t)__builtin_ctzll(w);
				w &= w - 1;
			}
		}
	}
	*ntouched_out = ntouched; /* their counts are cleared by the caller, also on failure */
	if (total > s->wf_flows_cap) {
		uint32_t *nf = ft_reallocarray(s->wf_flows, total, sizeof(uint32_t));

		if (!nf)
			return FT_ENOMEM;
		s->wf_flows = nf;
		s->wf_flows_cap = total;
	}
	return 0;
}

/*
 * Lay out link -> flows in the room each link was given. An incremental
 * filling (@inc) refills a few flows, and most of the links they cross carry
 * only one of them (its way up and in, and links the others avoid). Such a
 * link's share is its room, which no other refilled flow changes: it is a cap
 * of that flow's own, and only its least one, by (share, link id), can freeze
 * the flow (the others come later, when the flow is frozen and the link has
 * no flow left to give a rate). So such links are not laid out: each refilled
 * flow brings that one link (@items), sorted among the flows' others, instead
 * of all of them among every touched link. Returns how many items.
 */
static uint32_t
wf_place(struct fs_sim *s, uint32_t nsel, bool inc, struct wf_item *items)
{
	const uint32_t *paths = s->paths.data;
	struct fs_wf_link *L = s->wf_link;
	uint32_t n = 0;

	s->npath_walks += nsel;
	/* each link's flows go from its end down, so the selected flows are
	 * taken last first: a link lists them in selection order */
	for (uint32_t k = nsel; k-- > 0;) {
		uint32_t f = s->inc_sel[k];
		const uint32_t *p = paths + s->act_pf[f];
		struct wf_item best = { INFINITY, FS_NONE, f };

		for (uint32_t j = 0; j < s->act_np[f]; j++) {
			struct fs_wf_link *lk = &L[p[j]];

			if (!inc || lk->cnt > 1) {
				s->wf_flows[--lk->off] = f;
			} else if (lk->rem < best.key || (lk->rem == best.key && p[j] < best.link)) {
				/* a link of its own: its share is rem / 1, rem exactly */
				best.key = lk->rem;
				best.link = p[j];
			}
		}
		if (best.link != FS_NONE)
			items[n++] = best;
	}
	return n;
}

/*
 * Rank the rate caps (cap_rank, cap_cnt sized for them) and keep the lowest
 * (cap_floor, INFINITY: none), once per new cap. ft__fs_wf_fill() calls it
 * before it changes any rate, so that the list it may build halfway through
 * (wf_collect_capped()) allocates nothing and cannot fail.
 */
static int
wf_rank_caps(struct fs_sim *s)
{
	const double *caps = s->caps.data;
	uint32_t m = (uint32_t)s->caps.len, a, b;
	uint32_t *rank, *cnt;
	double lo = INFINITY;

	if (s->caps_ranked == m && (m || s->cap_floor == INFINITY))
		return 0;
	if (m) {
		rank = ft_reallocarray(s->cap_rank, m, sizeof(uint32_t));
		if (!rank)
			return FT_ENOMEM;
		s->cap_rank = rank;
		cnt = ft_reallocarray(s->cap_cnt, (size_t)m + 1, sizeof(uint32_t));
		if (!cnt)
			return FT_ENOMEM;
		s->cap_cnt = cnt;
		/* rank[a] = how many caps order before cap a: O(m^2), once per new cap */
		for (a = 0; a < m; a++) {
			rank[a] = 0;
			for (b = 0; b < m; b++)
				rank[a] += caps[b] < caps[a] || (caps[b] == caps[a] && b < a);
			if (caps[a] < lo)
				lo = caps[a];
		}
	}
	s->cap_floor = lo;
	s->caps_ranked = m;
	return 0;
}

/*
 * The selected flows still unfrozen when it is called that have a rate cap,
 * into wf_capped in increasing order of cap (a counting sort over the caps'
 * ranks, wf_rank_caps(): caps take few values); their number. Flows of equal
 * cap freeze at the same level, so their order among themselves changes no
 * rate. ft__fs_wf_fill() calls it only once the filling's level passes the
 * lowest cap (wf_caps_due()), after wf_rank_caps(): it allocates nothing.
 */
static void
wf_collect_capped(struct fs_sim *s, uint32_t nsel, uint32_t *ncapped)
{
	uint32_t m = (uint32_t)s->caps.len, k, i, sum;

	*ncapped = 0;
	if (m == 0)
		return;
	memset(s->cap_cnt, 0, ((size_t)m + 1) * sizeof(uint32_t));
	s->ncap_lists++;
	s->ncap_reads += nsel;
	for (k = 0; k < nsel; k++) {
		uint32_t f = s->inc_sel[k], c = s->act_capi[f];

		if (c && s->wf_live[f])
			s->cap_cnt[s->cap_rank[c - 1] + 1]++;
	}
	for (sum = 0, i = 0; i <= m; i++) {
		sum += s->cap_cnt[i];
		s->cap_cnt[i] = sum - s->cap_cnt[i]; /* exclusive prefix: each rank's start */
	}
	if (sum == 0)
		return;
	for (k = 0; k < nsel; k++) {
		uint32_t f = s->inc_sel[k], c = s->act_capi[f];

		if (c && s->wf_live[f])
			s->wf_capped[s->cap_cnt[s->cap_rank[c - 1] + 1]++] = f;
	}
	*ncapped = sum;
}

/*
 * Freeze active flow @f, whose path is @p (@np links), at @rate, bottlenecked by @bott
 * (FS_NONE: its own cap): its links give the rate back. The link that froze it gives it
 * back too, though its room is spent: every caller sets that link's room to 0 once its
 * flows are frozen, and nothing reads it before, so no hop needs a test for it.
 *
 * A room can fall below 0 by rounding; no hop clamps it, its readers do
 * (wf_room()). Rates are not negative, so once a room is below 0 it stays
 * there, and the clamped room a reader sees is the one a clamp at every
 * hop would have kept: 0 from then on, and the same bits before.
 */
static inline void
wf_give_back(struct fs_wf_link *m, double rate)
{
	m->cnt--;
	m->rem -= rate;
}

/* Link @m's room as a clamp at every hop would have left it (wf_give_back()). */
static inline double
wf_room(const struct fs_wf_link *m)
{
	return m->rem < 0 ? 0 : m->rem;
}

/* Each of the @np links of path @p gives @rate back: two hops a turn (paths
 * have 2 to 8), still in path order. */
static inline void
wf_walk(struct fs_wf_link *L, const uint32_t *p, uint32_t np, double rate)
{
	uint32_t j;

	for (j = 0; j + 1 < np; j += 2) {
		wf_give_back(&L[p[j]], rate);
		wf_give_back(&L[p[j + 1]], rate);
	}
	if (j < np)
		wf_give_back(&L[p[j]], rate);
}

static inline void
wf_freeze_path(struct fs_sim *s, uint32_t f, const uint32_t *p, uint32_t np, double rate,
               uint32_t bott)
{
	s->act_rate[f] = rate;
	s->wf_live[f] = 0;
	s->npath_walks++;
	s->wf_bott[f] = bott; /* ft__fs_set_bottleneck() once the rates stand */
	wf_walk(s->wf_link, p, np, rate);
}

static void
wf_freeze(struct fs_sim *s, uint32_t f, double rate, uint32_t bott)
{
	wf_freeze_path(s, f, (const uint32_t *)s->paths.data + s->act_pf[f], s->act_np[f], rate,
	               bott);
}

/*
 * A full filling while each link's active flows are kept (grow mode, s->lf):
 * those lists are the link -> flows layout already, so the paths are not
 * walked to count and place the flows. The touched links are the links that
 * carry a flow, in link order (the radix sort keeps the order of equal
 * shares), each with its count. Which order a link lists its flows in
 * changes no rate: they freeze at the same share, and each link they cross
 * gives that same share back once per flow. Returns how many links.
 */
static uint32_t
wf_layout_kept(struct fs_sim *s)
{
	uint32_t n = 0;

	for (uint32_t l = 0; l < s->nlinks; l++) {
		if (s->lf[l].n == 0)
			continue;
		s->wf_link[l].cnt = s->lf[l].n;
		s->wf_touched[n++] = l;
	}
	return n;
}

/* The path of kept entry @e: its slot's copy (act_path, sim_int.h), or in @paths when longer. */
static inline const uint32_t *
wf_kept_path(const struct fs_lf_ent *e, const uint32_t *slot, const uint32_t *paths)
{
	return e->np <= FS_SLOT_HOPS ? slot + (size_t)e->act * FS_SLOT_HOPS : paths + e->pf;
}

/*
 * Freeze the unfrozen flows of link @l's kept list at @share; how many. A
 * link's flows sit anywhere in the active arrays and in paths, so in a full
 * pass over an all-to-all's ~10^5 flows every freeze missed the cache on its
 * path and on its rate; a kept entry says where the path is (no act_pf or
 * act_np to read), and the path, rate and bottleneck of the unfrozen flow
 * WF_AHEAD entries further are fetched early.
 */
static uint32_t
wf_freeze_kept(struct fs_sim *s, uint32_t l, double share)
{
	/* s's arrays in locals: a freeze stores a byte (the live flag), which as
	 * far as the compiler knows could change any of s's fields, and it would
	 * load each of them again for every entry */
	const struct fs_lf_ent *e = s->lf[l].e;
	const uint32_t *paths = s->paths.data, *slot = s->act_path, nent = s->lf[l].n;
	struct fs_wf_link *L = s->wf_link;
	uint8_t *live = s->wf_live;
	double *rate = s->act_rate;
	uint32_t *bott = s->wf_bott;
	uint32_t k, n = 0;

	for (k = 0; k < nent; k++) {
		uint32_t f = e[k].act;

		if (k + WF_AHEAD < nent && live[e[k + WF_AHEAD].act]) {
			const uint32_t *pa = wf_kept_path(&e[k + WF_AHEAD], slot, paths);

			/* a 48-byte copy may straddle two cache lines: fetch its last hop's too */
			__builtin_prefetch(pa);
			__builtin_prefetch(pa + e[k + WF_AHEAD].np - 1);
			__builtin_prefetch(&rate[e[k + WF_AHEAD].act], 1);
			__builtin_prefetch(&bott[e[k + WF_AHEAD].act], 1);
		}
		if (live[f]) {
			/* wf_freeze_path(), with the arrays at hand */
			rate[f] = share;
			live[f] = 0;
			bott[f] = l;
			wf_walk(L, wf_kept_path(&e[k], slot, paths), e[k].np, share);
			n++;
		}
	}
	s->npath_walks += n;
	return n;
}

/* Freeze the unfrozen flows of link @l (@kept: from its kept list) at @share; how many. */
static uint32_t
wf_freeze_link(struct fs_sim *s, uint32_t l, double share, bool kept)
{
	const struct fs_wf_link *L = &s->wf_link[l];
	uint32_t k, n = 0;

	if (kept)
		return wf_freeze_kept(s, l, share);
	/* its unfrozen flows are all among its own; each freeze lowers cnt */
	for (k = L->off; L->cnt > 0; k++) {
		uint32_t f = s->wf_flows[k];

		if (s->wf_live[f]) {
			wf_freeze(s, f, share, l);
			n++;
		}
	}
	return n;
}

/*
 * Whether the filling must list its capped flows now (wf_collect_capped()):
 * once the next link's share (the least of the sorted links', the links of
 * one flow and the heap's) is past the lowest cap @lowest, or no link is left.
 * Until then every capped flow's cap is at or above a link's share, so the
 * link goes first (a tie included) and the list would not be read; built
 * later, it lists the same flows in the same order less those frozen
 * meanwhile, which the filling skips anyway. A filling whose shares stay
 * below every cap never reads its flows' caps; one whose shares pass the
 * lowest cap lists them then, often after links froze some flows (ncap_late).
 */
static bool
wf_caps_due(const struct wf_item *sorted, uint32_t next, uint32_t nmulti,
            const struct wf_item *single, uint32_t snext, uint32_t nsingle, const struct fs_sim *s,
            double lowest)
{
	double key = INFINITY;

	if (next < nmulti)
		key = sorted[next].key;
	if (snext < nsingle && single[snext].key < key)
		key = single[snext].key;
	if (s->wf_heap.len && ((const struct wf_item *)s->wf_heap.data)[0].key < key)
		key = ((const struct wf_item *)s->wf_heap.data)[0].key;
	return !(key <= lowest);
}

/*
 * Give the @nsel selected flows (inc_sel) their max-min rates over what
 * the others leave of each link (@full: every active flow is selected).
 */
int
ft__fs_wf_fill(struct fs_sim *s, uint32_t nsel, bool full)
{
	const uint32_t *paths = s->paths.data;
	struct fs_wf_link *L = s->wf_link;
	struct wf_item *h, *sorted, *single = NULL;
	uint32_t ntouched = 0, i, k, next, unfrozen = nsel, ncapped = 0, nextcap = 0;
	uint32_t nmulti = 0, nsingle = 0, snext = 0, off = 0;
	const bool kept = full && s->lf && s->keep;
	bool caps_due; /* the capped flows not listed yet */
	int rc;

	/* before any rate changes: the late list then cannot fail */
	rc = wf_rank_caps(s);
	if (rc < 0)
		return rc;
	caps_due = s->cap_floor < INFINITY;
	if (kept) {
		ntouched = wf_layout_kept(s);
	} else {
		rc = wf_layout(s, nsel, !full, &ntouched);
		if (rc < 0)
			goto out;
	}
	s->wf_heap.len = 0;
	if (ft_vec_reserve(&s->wf_heap, ntouched) < 0) {
		rc = FT_ENOMEM;
		goto out;
	}
	if (full) {
		/* inc_sel lists every active flow in order. The filling reads the live
		 * flags, not the rates, so a flow's old rate stays until it freezes; one
		 * that does not gets -1 (unfrozen) at the end, below. */
		memset(s->wf_live, 1, nsel);
	} else {
		for (k = 0; k < nsel; k++) {
			s->act_rate[s->inc_sel[k]] = -1;
			s->wf_live[s->inc_sel[k]] = 1;
		}
	}
	/*
	 * Links are taken in the order of (share, link id). They start sorted by their first
	 * share; one whose share has grown when its turn comes (shares only grow as flows
	 * freeze) goes to a min-heap at its current share, and the next link is the smaller
	 * of the sorted array's next and the heap's top. Links whose flows were all frozen
	 * elsewhere cost one look each.
	 */
	for (i = 0; i < ntouched; i++) {
		uint32_t l = s->wf_touched[i];

		if (full) {
			L[l].rem = s->cap_Bps[l];
			/* every active flow is laid out: its exact count (lazy: the only one) */
			if (L[l].cnt > s->lk[l].maxflows)
				s->lk[l].maxflows = L[l].cnt;
		} else {
			/* what the kept flows leave: rem held the refilled flows' old rates */
			L[l].rem = s->cap_Bps[l] - s->lk[l].load + L[l].rem;
			if (L[l].rem < 0)
				L[l].rem = 0;
		}
		if (!full && L[l].cnt == 1)
			continue; /* its flow's own (wf_place()) */
		if (!kept) {
			off += L[l].cnt;
			L[l].off = off; /* wf_place() fills it down from its end */
		}
		s->wf_items[nmulti].key = L[l].rem / L[l].cnt;
		s->wf_items[nmulti++].link = l;
	}
	nsingle = kept ? 0 : wf_place(s, nsel, !full, s->wf_items + nmulti);
	single = wf_merge_sort(s->wf_items + nmulti, s->wf_items2 + nmulti, nsingle);
	/* (share, link id) is a total order: the merge sort needs no link order */
	sorted = full ? wf_sort(s, nmulti) : wf_merge_sort(s->wf_items, s->wf_items2, nmulti);
	h = s->wf_heap.data;
	next = 0;
	/* once every selected flow is frozen, the links left have none to give a rate */
	while (unfrozen > 0) {
		struct wf_item it;
		uint32_t l;
		double share;

		/*
		 * A flow's own cap is a link of one flow: it freezes the flow when the level
		 * reaches it, before any link whose share (a lower bound while stale) is
		 * higher; on a tie the link goes first.
		 */
		if (caps_due && (s->caps_eager || wf_caps_due(sorted, next, nmulti, single, snext,
		                                              nsingle, s, s->cap_floor))) {
			wf_collect_capped(s, nsel, &ncapped);
			s->ncap_late += unfrozen < nsel;
			caps_due = false;
		}
		while (nextcap < ncapped && !s->wf_live[s->wf_capped[nextcap]])
			nextcap++; /* frozen on a link meanwhile */
		if (nextcap < ncapped) {
			uint32_t f = s->wf_capped[nextcap];
			double c = FT_VEC_AT(&s->caps, double, s->act_capi[f] - 1);
			bool link_first = (next < nmulti && sorted[next].key <= c) ||
			                  (snext < nsingle && single[snext].key <= c) ||
			                  (s->wf_heap.len && h[0].key <= c);

			if (!link_first) {
				wf_freeze(s, f, c, paths[s->act_pf[f]]);
				unfrozen--;
				nextcap++;
				continue;
			}
		}
		if (snext < nsingle && (next == nmulti || wf_less(&single[snext], &sorted[next])) &&
		    (s->wf_heap.len == 0 || wf_less(&single[snext], &h[0]))) {
			/* a flow's own link: its share holds while the flow is unfrozen */
			it = single[snext++];
			if (!s->wf_live[it.flow])
				continue;
			wf_freeze(s, it.flow, it.key, it.link);
			unfrozen--;
			L[it.link].rem = 0;
			continue;
		}
		if (next < nmulti && (s->wf_heap.len == 0 || wf_less(&sorted[next], &h[0]))) {
			it = sorted[next++];
		} else if (s->wf_heap.len) {
			it = h[0];
			wf_pop(s);
		} else {
			break;
		}
		l = it.link;
		if (L[l].cnt == 0)
			continue; /* all its flows are frozen */
		share = wf_room(&L[l]) / L[l].cnt;
		if (it.key != share) {
			wf_push(s, share, l);
			continue;
		}
		unfrozen -= wf_freeze_link(s, l, share, kept);
		L[l].rem = 0;
	}
	/* grow mode: a full pass leaves each link's load as what its room went to (a link
	 * that froze flows is full), so it need not be summed again from the rates */
	for (i = 0; i < ntouched && full && s->lf && s->keep; i++) {
		uint32_t l = s->wf_touched[i];

		s->lk[l].load = wf_room(&L[l]) < s->cap_Bps[l] ? s->cap_Bps[l] - wf_room(&L[l]) : 0;
	}
	rc = 0;
out:
	/* every flow frozen took itself off its links' counts and live flags; one
	 * left unfrozen is rated -1 (none) */
	for (i = 0; i < ntouched && (rc < 0 || unfrozen > 0); i++)
		L[s->wf_touched[i]].cnt = 0;
	for (k = 0; k < nsel && (rc < 0 || unfrozen > 0); k++) {
		uint32_t f = s->inc_sel[k];

		if (s->wf_live[f])
			s->act_rate[f] = -1;
		s->wf_live[f] = 0;
	}
	return rc;
}

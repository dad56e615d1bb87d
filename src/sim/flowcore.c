/* SPDX-License-Identifier: MIT */
/*
 * sim/flowcore.c - the flow-level core: tasks with dependencies, max-min
 * fair sharing of link capacity, and the event loop.
 *
 * Rates are max-min fair over every link a flow crosses, computed by
 * bottleneck-ordered water filling: links carrying active flows are taken in
 * the order of their fair share (remaining capacity / unfrozen flows, ties to
 * the lower link id); the link with the smallest share is the next
 * bottleneck, its flows are frozen at that share and the other links they
 * cross give the share back. Links start radix-sorted by their first share
 * and one whose share has grown meanwhile waits in a small heap, so with F
 * active flows of path length P over T links a recomputation costs
 * O(F P + T). Rates are only recomputed when the set of active flows
 * changes, and only for the flows whose rates can change (recompute():
 * by default the flows around a change, grown until the max-min conditions
 * hold at their border).
 * Flows that finish within a relative 1e-9 of the same instant
 * complete in one event, so a phase of equal flows costs one recomputation
 * however many flows it has.
 *
 * Between events every rate is constant: a flow's bytes left are brought up
 * to date only when its rate changes, and the active flows wait in a heap on
 * the time their last byte leaves (an event costs O(log F) per flow whose
 * rate it changes, not O(F)). Finished flows
 * arrive after their path latency; their successors start after their own
 * delay. Timers queue in lanes of one fixed delay each (due now, a path
 * latency: in time order as they come) or in a heap; the next is the
 * earliest of the heap's top and the lanes' heads. Ties pop in insertion
 * order: the event key is (time, sequence).
 */
#include "sim_int.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

#define FS_TIME_RTOL 1e-9 /* completions this close (relative) share one event */
#define FS_AHEAD 8        /* tasks ahead in a queue whose memory is fetched early */
#define FS_FULL_EVERY 256 /* incremental recomputations between full ones */
#define FS_LAZY_AFTER 64  /* full recomputations in a row that stop the bookkeeping */
#define FS_LAZY_RETRY 256 /* full ones after which it is tried again */
#define FS_LEVEL_RTOL 1e-9 /* flows this close (relative) below x0 are refilled too */
#define FS_GROW_RTOL 1e-12 /* slack of the max-min checks at the refilled set's border */


#define wf_item fs_wf_item
#define WF_RADIX_BITS 11
#define WF_RADIX_PASSES 6 /* 6 x 11 >= 64 key bits */
#define WF_RADIX_MIN 1024 /* fewer items: a comparison sort (wf_merge_sort()) */
#define WF_RUN 16         /* its insertion-sorted runs */

int
ft__fs_init(struct fs_sim *s, uint32_t nlinks)
{
	memset(s, 0, sizeof(*s));
	s->nlinks = nlinks;
	s->inc_level = INFINITY;
	s->keep = true;
	s->lazy_after = FS_LAZY_AFTER;
	s->lazy_retry = FS_LAZY_RETRY;
	s->wf_radix_min = WF_RADIX_MIN;
	ft_vec_init(&s->edges, 2 * sizeof(uint32_t));
	ft_vec_init(&s->paths, sizeof(uint32_t));
	ft_vec_init(&s->events, sizeof(struct fs_event));
	for (uint32_t k = 0; k < FS_LANES; k++)
		ft_vec_init(&s->lanes[k].q, sizeof(struct fs_event));
	s->nlanes = 1; /* lane 0: due now */
	ft_vec_init(&s->wf_heap, sizeof(struct wf_item));
	ft_vec_init(&s->caps, sizeof(double));
	ft_vec_init(&s->free_ids, sizeof(uint32_t));
	ft_vec_init(&s->retired_fct, sizeof(double));
	ft_vec_init(&s->retired_ideal, sizeof(double));
	ft_vec_init(&s->tag_slowest, sizeof(struct fs_tag_slowest));
	ft_vec_init(&s->inc_seeds, sizeof(uint32_t));
	ft_vec_init(&s->inc_new, sizeof(uint32_t));
	s->cap_Bps = ft_calloc(nlinks ? nlinks : 1, sizeof(double));
	s->lat_s = ft_calloc(nlinks ? nlinks : 1, sizeof(double));
	s->lk_mem = ft_calloc((size_t)nlinks + 2, sizeof(struct fs_link_st));
	if (s->lk_mem)
		s->lk = (struct fs_link_st *)(((uintptr_t)s->lk_mem + sizeof(struct fs_link_st) - 1) &
		                              ~(uintptr_t)(sizeof(struct fs_link_st) - 1));
	s->wf_link = ft_calloc(nlinks ? nlinks : 1, sizeof(struct fs_wf_link));
	s->wf_touched = ft_calloc(nlinks ? nlinks : 1, sizeof(uint32_t));
	s->wf_mark = ft_calloc(nlinks / 64 + 1, sizeof(uint64_t));
	s->wf_items = ft_calloc(nlinks ? nlinks : 1, sizeof(struct fs_wf_item));
	s->wf_items2 = ft_calloc(nlinks ? nlinks : 1, sizeof(struct fs_wf_item));
	s->wf_hist = ft_calloc(WF_RADIX_PASSES << WF_RADIX_BITS, sizeof(uint32_t));
	s->inc_uf = ft_calloc(nlinks ? nlinks : 1, sizeof(uint32_t));
	s->inc_hot = ft_calloc(nlinks ? nlinks : 1, sizeof(uint8_t));
	if (!s->cap_Bps || !s->lat_s || !s->lk ||
	    !s->wf_link || !s->wf_touched || !s->wf_mark || !s->wf_items || !s->wf_items2 ||
	    !s->wf_hist || !s->inc_uf || !s->inc_hot) {
		ft__fs_release(s);
		return FT_ENOMEM;
	}
	for (uint32_t l = 0; l < nlinks; l++)
		s->inc_uf[l] = l;
	return 0;
}

int
ft__fs_link_export(struct fs_sim *s)
{
	if (!s->link_bytes)
		s->link_bytes = ft_calloc(s->nlinks ? s->nlinks : 1, sizeof(double));
	if (!s->link_maxflows)
		s->link_maxflows = ft_calloc(s->nlinks ? s->nlinks : 1, sizeof(uint32_t));
	if (!s->link_bytes || !s->link_maxflows)
		return FT_ENOMEM;
	for (uint32_t l = 0; l < s->nlinks; l++) {
		s->link_bytes[l] = s->lk[l].bytes;
		s->link_maxflows[l] = s->lk[l].maxflows;
	}
	return 0;
}

void
ft__fs_release(struct fs_sim *s)
{
	void *const arrays[] = {
		s->cap_Bps,  s->link_cl,    s->lat_s,      s->lk_mem,   s->link_bytes,
		s->inc_sel,  s->inc_old,    s->inc_uf,     s->inc_hot,  s->link_maxflows,
		s->wf_link,  s->wf_touched, s->wf_mark,    s->wf_items, s->wf_items2,
		s->wf_hist,  s->wf_flows,   s->succ_first, s->succ,     s->active,
		s->act_pf,   s->act_np,     s->act_rate,   s->act_left, s->act_bn,
		s->act_capi, s->wf_capped,  s->cap_rank,   s->cap_cnt,  s->tasks_mem,
		s->wf_bott,  s->inc_in,     s->path_pos,   s->act_t0,   s->act_fin,
		s->act_hp,   s->fin_heap,   s->fin_tmp,
	};
	struct ft_vec *const vecs[] = {
		&s->inc_seeds, &s->edges,    &s->paths,       &s->events,        &s->wf_heap,
		&s->caps,      &s->free_ids, &s->retired_fct, &s->retired_ideal, &s->tag_slowest,
		&s->inc_new,
	};

	for (uint32_t l = 0; s->lf && l < s->nlinks; l++)
		ft_free(s->lf[l].e);
	ft_free(s->lf);
	ft__free_all(arrays, FT_ARRAY_SIZE(arrays));
	ft__vec_release_all(vecs, FT_ARRAY_SIZE(vecs));
	for (uint32_t k = 0; k < FS_LANES; k++)
		ft_vec_release(&s->lanes[k].q);
	memset(s, 0, sizeof(*s));
}

/* Room for one more task (the array doubles, 64-byte aligned). */
static int
tasks_room(struct fs_sim *s)
{
	size_t cap, old_off;
	void *mem;
	struct fs_task *v;

	if (s->ntasks < s->tasks_cap)
		return 0;
	if (s->ntasks >= FS_NONE - 1)
		return FT_ERANGE;
	cap = s->tasks_cap ? 2 * (size_t)s->tasks_cap : 64;
	if (cap > FS_NONE - 1)
		cap = FS_NONE - 1;
	/* realloc keeps the bytes (and large blocks grow in place, without a second copy in
	 * memory); they move only when the new block's alignment differs. */
	old_off = s->tasks ? (size_t)((char *)s->tasks - (char *)s->tasks_mem) : 0;
	mem = ft_reallocarray(s->tasks_mem, cap * sizeof(struct fs_task) + 63, 1);
	if (!mem)
		return FT_ENOMEM;
	v = (struct fs_task *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);
	if (s->ntasks && (char *)v != (char *)mem + old_off)
		memmove(v, (char *)mem + old_off, (size_t)s->ntasks * sizeof(struct fs_task));
	s->tasks_mem = mem;
	s->tasks = v;
	s->tasks_cap = (uint32_t)cap;
	return 0;
}

static int64_t
add_task(struct fs_sim *s, const struct fs_task *t)
{
	if (s->started)
		return FT_EINVAL;
	if (tasks_room(s) < 0)
		return s->ntasks >= FS_NONE - 1 ? FT_EINVAL : FT_ENOMEM;
	s->tasks[s->ntasks] = *t;
	s->ncreated++;
	return (int64_t)s->ntasks++;
}

int64_t
ft__fs_add_flow(struct fs_sim *s, double bytes, uint32_t src, uint32_t dst, uint32_t qp,
                const uint32_t *path, uint32_t npath, uint32_t tag)
{
	struct fs_task t = { 0 };
	uint32_t i;

	t.bott_link = FS_NONE;
	t.next = FS_NONE;
	if (!(bytes >= 0) || npath > 4096)
		return FT_EINVAL;
	t.kind = FS_FLOW;
	t.bytes = bytes;
	t.src = src;
	t.dst = dst;
	t.qp = qp;
	t.tag = tag;
	if (path && npath) {
		for (i = 0; i < npath; i++)
			if (path[i] >= s->nlinks)
				return FT_EINVAL;
		if (ft_vec_reserve(&s->paths, npath) < 0)
			return FT_ENOMEM;
		t.path_first = (uint32_t)s->paths.len;
		memcpy(&FT_VEC_AT(&s->paths, uint32_t, s->paths.len), path, npath * sizeof(*path));
		s->paths.len += npath;
		t.npath = npath;
		t.path_cap = npath;
	}
	s->bytes_submitted += bytes;
	return add_task(s, &t);
}

int64_t
ft__fs_add_barrier(struct fs_sim *s, double delay_s, double lat_mult, uint32_t tag)
{
	struct fs_task t = { 0 };

	if (!(delay_s >= 0) || !(lat_mult >= 0))
		return FT_EINVAL;
	t.kind = FS_BARRIER;
	t.bott_link = FS_NONE;
	t.next = FS_NONE;
	t.delay_s = delay_s;
	t.lat_mult = lat_mult;
	t.src = t.dst = FS_NONE;
	t.tag = tag;
	return add_task(s, &t);
}

int64_t
ft__fs_add_spawner(struct fs_sim *s, uint32_t arg, uint32_t tag)
{
	int64_t id = ft__fs_add_barrier(s, 0, 0, tag);

	if (id >= 0) {
		ft__fs_task(s, (uint32_t)id)->kind = FS_SPAWNER;
		ft__fs_task(s, (uint32_t)id)->qp = arg;
	}
	return id;
}

int
ft__fs_set_cap(struct fs_sim *s, uint32_t id, double cap_Bps)
{
	const double *c = s->caps.data;
	size_t k;

	if (id >= s->ntasks || !(cap_Bps > 0))
		return FT_EINVAL;
	if (cap_Bps == INFINITY) {
		ft__fs_task(s, id)->cap_idx = 0;
		return 0;
	}
	/* caps take few values (one per operation at most): a linear search */
	for (k = 0; k < s->caps.len && c[k] != cap_Bps; k++)
		;
	if (k == s->caps.len) {
		if (k >= FS_MAX_CAPS)
			return FT_ERANGE;
		if (ft_vec_push(&s->caps, &cap_Bps) < 0)
			return FT_ENOMEM;
	}
	ft__fs_task(s, id)->cap_idx = (uint8_t)(k + 1);
	return 0;
}

static int ev_push(struct fs_sim *s, double t, uint32_t task, uint32_t type);

int64_t
ft__fs_spawn_flow(struct fs_sim *s, double bytes, uint32_t src, uint32_t dst, uint32_t qp,
                  bool start, uint32_t next, uint32_t tag)
{
	struct fs_task *t;
	uint32_t id;

	if (!s->started || !(bytes >= 0) || (next != FS_NONE && next >= s->ntasks))
		return FT_EINVAL;
	if (s->free_ids.len) {
		id = FT_VEC_AT(&s->free_ids, uint32_t, --s->free_ids.len);
		if (s->free_ids.len > FS_AHEAD) /* the slot the flow after next will take */
			FS_PREFETCH(&s->tasks[FT_VEC_AT(&s->free_ids, uint32_t,
			                                s->free_ids.len - FS_AHEAD)]);
	} else {
		int rc = tasks_room(s);

		if (rc < 0)
			return rc;
		memset(&s->tasks[s->ntasks], 0, sizeof(struct fs_task));
		id = s->ntasks++;
	}
	t = ft__fs_task(s, id);
	{
		uint32_t pf = t->path_first, cap = t->path_cap; /* a recycled slot keeps its room */

		memset(t, 0, sizeof(*t));
		t->path_first = pf;
		t->path_cap = cap;
	}
	t->kind = FS_FLOW;
	t->spawned = 1;
	t->bytes = bytes;
	t->src = src;
	t->dst = dst;
	t->qp = qp;
	t->tag = tag;
	t->bott_link = FS_NONE;
	t->next = next;
	s->bytes_submitted += bytes;
	s->ncreated++;
	if (next != FS_NONE)
		ft__fs_task(s, next)->npred++;
	if (start) {
		t->state = FS_READY;
		if (ev_push(s, 0, id, 0) < 0)
			return FT_ENOMEM;
	}
	return id;
}

int
ft__fs_add_dep(struct fs_sim *s, uint32_t from, uint32_t to)
{
	uint32_t e[2] = { from, to };

	if (s->started || from >= s->ntasks || to >= s->ntasks || from == to)
		return FT_EINVAL;
	if (ft_vec_push(&s->edges, e) < 0)
		return FT_ENOMEM;
	ft__fs_task(s, to)->npred++;
	return 0;
}

void
ft__sim_advise_huge(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t b = ((uintptr_t)p + bytes) & ~(huge - 1);

	if (p && b > a)
		(void)madvise((void *)a, b - a, MADV_HUGEPAGE);
#else
	(void)p;
	(void)bytes;
#endif
}

/* ---- event heap ------------------------------------------------------------ */

static bool
ev_less(const struct fs_event *a, const struct fs_event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

/* Append to @v whose elements are @T, without the generic copy when there is room. */
#define VEC_APPEND(v, T, val)                                                                 \
	((v)->len < (v)->cap || ft_vec_reserve((v), 1) == 0                                   \
	         ? (((T *)(v)->data)[(v)->len++] = (val), 0)                                  \
	         : FT_ENOMEM)

/* Queue @task's start (@type 0) or arrival (1) @delay seconds from now. */
static int
ev_push(struct fs_sim *s, double delay, uint32_t task, uint32_t type)
{
	struct fs_event e = { .t = s->now_s + delay, .seq = s->seq++, .task = task, .type = type };
	struct fs_event *h;
	uint32_t k;
	size_t i;

	for (k = 0; k < s->nlanes && s->lanes[k].delay != delay; k++)
		;
	if (k == s->nlanes && k < FS_LANES) {
		s->lanes[k].delay = delay;
		s->lanes[k].head = 0;
		s->nlanes++;
	}
	if (k < s->nlanes)
		return VEC_APPEND(&s->lanes[k].q, struct fs_event, e);
	if (VEC_APPEND(&s->events, struct fs_event, e) < 0)
		return FT_ENOMEM;
	h = s->events.data;
	i = s->events.len - 1;
	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (!ev_less(&h[i], &h[p]))
			break;
		e = h[i];
		h[i] = h[p];
		h[p] = e;
		i = p;
	}
	return 0;
}

/* The earliest pending event (NULL: none) and where it is: *@src lane, or -1 the heap. */
static const struct fs_event *
ev_first(const struct fs_sim *s, int *src)
{
	const struct fs_event *best = s->events.len ? s->events.data : NULL;
	uint32_t k;

	*src = -1;
	for (k = 0; k < s->nlanes; k++) {
		const struct fs_lane *ln = &s->lanes[k];
		const struct fs_event *e;

		if (ln->head == ln->q.len)
			continue;
		e = &FT_VEC_AT(&ln->q, struct fs_event, ln->head);
		if (!best || ev_less(e, best)) {
			best = e;
			*src = (int)k;
		}
	}
	return best;
}

static void
ev_pop(struct fs_sim *s, struct fs_event *out)
{
	struct fs_event *h = s->events.data;
	size_t n = --s->events.len, i = 0;

	*out = h[0];
	if (n == 0)
		return;
	h[0] = h[n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct fs_event tmp;

		if (l < n && ev_less(&h[l], &h[m]))
			m = l;
		if (r < n && ev_less(&h[r], &h[m]))
			m = r;
		if (m == i)
			break;
		tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

/* Take the event ev_first() found at @src. */
static void
ev_take(struct fs_sim *s, int src, struct fs_event *out)
{
	struct fs_lane *ln;

	if (src < 0) {
		ev_pop(s, out);
		return;
	}
	ln = &s->lanes[src];
	*out = FT_VEC_AT(&ln->q, struct fs_event, ln->head++);
	if (ln->head + FS_AHEAD < ln->q.len) {
		uint32_t ahead = FT_VEC_AT(&ln->q, struct fs_event, ln->head + FS_AHEAD).task;

		FS_PREFETCH(&s->tasks[ahead]);
	}
	if (ln->head == ln->q.len) {
		ln->head = ln->q.len = 0;
	} else if (ln->head >= 4096 && 2 * ln->head > ln->q.len) {
		/* Slide the pending events to the front (amortized: half the lane was taken). */
		memmove(ln->q.data, &FT_VEC_AT(&ln->q, struct fs_event, ln->head),
		        (ln->q.len - ln->head) * sizeof(struct fs_event));
		ln->q.len -= ln->head;
		ln->head = 0;
	}
}

/* ---- transmission ends: active flows in a min-heap on act_fin ------------ */

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Sort @n ids in increasing order (insertion sort when they are few). */
static void
sort_u32(uint32_t *q, uint32_t n)
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

static void
fin_place(struct fs_sim *s, uint32_t pos, uint32_t f)
{
	s->fin_heap[pos] = f;
	s->act_hp[f] = pos;
}

static void
fin_up(struct fs_sim *s, uint32_t pos)
{
	uint32_t f = s->fin_heap[pos];
	double key = s->act_fin[f];

	while (pos > 0) {
		uint32_t p = (pos - 1) / 2, g = s->fin_heap[p];

		if (!(key < s->act_fin[g]))
			break;
		fin_place(s, pos, g);
		pos = p;
	}
	fin_place(s, pos, f);
}

/* Restore the order below @pos of the heap's first @n entries. */
static void
fin_down(struct fs_sim *s, uint32_t pos, uint32_t n)
{
	const uint32_t *h = s->fin_heap;
	uint32_t f = h[pos];
	double key = s->act_fin[f];

	for (;;) {
		uint32_t c = 2 * pos + 1;

		if (c >= n)
			break;
		if (c + 1 < n && s->act_fin[h[c + 1]] < s->act_fin[h[c]])
			c++;
		if (!(s->act_fin[h[c]] < key))
			break;
		fin_place(s, pos, h[c]);
		pos = c;
	}
	fin_place(s, pos, f);
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
static void
fin_remove(struct fs_sim *s, uint32_t i, uint32_t n)
{
	uint32_t pos = s->act_hp[i];

	if (pos == n)
		return;
	fin_place(s, pos, s->fin_heap[n]);
	fin_fix(s, pos, n);
}

/* Active flow @f's rate became act_rate[f] now, from @old (< 0: none): bring its bytes
 * left up to date and set when it ends (its heap place is left to the caller). */
static void
fin_rate(struct fs_sim *s, uint32_t f, double old)
{
	double r = s->act_rate[f];

	if (old > 0) {
		double left = s->act_left[f] - old * (s->now_s - s->act_t0[f]);

		s->act_left[f] = left > 0 ? left : 0;
	}
	s->act_t0[f] = s->now_s;
	s->act_fin[f] = r > 0 ? s->now_s + s->act_left[f] / r : INFINITY;
}

/* ---- water filling ------------------------------------------------------- */

static bool
wf_less(const struct wf_item *a, const struct wf_item *b)
{
	return a->key < b->key || (a->key == b->key && a->link < b->link);
}

/* Restore the heap order below @i (the heap has @n items). */
static void
wf_sift_down(struct wf_item *h, size_t n, size_t i)
{
	struct wf_item it = h[i];

	for (;;) {
		size_t l = 2 * i + 1, m;

		if (l >= n)
			break;
		m = l + 1 < n && wf_less(&h[l + 1], &h[l]) ? l + 1 : l;
		if (!wf_less(&h[m], &it))
			break;
		h[i] = h[m];
		i = m;
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
wf_merge_sort(struct fs_sim *s, uint32_t n)
{
	struct wf_item *a = s->wf_items, *b = s->wf_items2, *t;
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
		return wf_merge_sort(s, n);
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
 * Count the @nsel selected flows per link, collect the touched links and lay
 * out link -> flows. A touched link's rem starts as the sum of the selected
 * flows' previous rates on it (none yet counts 0).
 */
static int
wf_layout(struct fs_sim *s, uint32_t nsel, uint32_t *ntouched_out)
{
	const uint32_t *paths = s->paths.data;
	struct fs_wf_link *L = s->wf_link;
	uint32_t i, j, ntouched = 0;
	size_t total = 0, off = 0;

	for (uint32_t k = 0; k < nsel; k++) {
		const double old = s->inc_old[k] > 0 ? s->inc_old[k] : 0;
		const uint32_t *p;

		i = s->inc_sel[k];
		p = paths + s->act_pf[i];
		for (j = 0; j < s->act_np[i]; j++) {
			uint32_t l = p[j];

			if (L[l].cnt++ == 0) {
				s->wf_mark[l / 64] |= UINT64_C(1) << (l % 64);
				s->wf_touched[ntouched++] = l;
				L[l].rem = 0;
			}
			L[l].rem += old;
		}
		total += s->act_np[i];
	}
	/* The touched links in link order (ties in share go to the lower link id): a few
	 * are sorted as they are, many read back from the bitmap in one pass over it. */
	if ((size_t)ntouched * 4 < s->nlinks / 64) {
		for (i = 0; i < ntouched; i++)
			s->wf_mark[s->wf_touched[i] / 64] = 0;
		sort_u32(s->wf_touched, ntouched);
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
	for (i = 0; i < ntouched; i++) {
		struct fs_wf_link *lk = &L[s->wf_touched[i]];

		lk->off = lk->end = (uint32_t)off; /* end is the fill position below */
		off += lk->cnt;
	}
	for (uint32_t k = 0; k < nsel; k++) {
		const uint32_t *p;

		i = s->inc_sel[k];
		p = paths + s->act_pf[i];
		for (j = 0; j < s->act_np[i]; j++)
			s->wf_flows[L[p[j]].end++] = i;
	}
	return 0;
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

/* Select the flows on link @l at or above @thr (new ones too) not selected yet; the count. */
static uint32_t
grow_link(struct fs_sim *s, uint32_t n, uint32_t l, double thr)
{
	const struct fs_lf *L = &s->lf[l];

	for (uint32_t q = 0; q < L->n; q++) {
		uint32_t f = L->e[q].act;
		double r = s->act_rate[f];

		if (s->inc_in[f] || (r >= 0 && r < thr))
			continue;
		s->inc_in[f] = 1;
		s->inc_sel[n] = f;
		s->inc_old[n++] = r;
	}
	return n;
}

/*
 * Grow mode, the first guess: the flows at or above the level (@thr) on the
 * links of a flow that ended and of a new flow, the new flows included.
 * grow_check() adds the flows the guess missed. Returns how many (inc_sel,
 * inc_old; each marked in inc_in).
 */
static uint32_t
grow_select(struct fs_sim *s, double thr)
{
	const uint32_t *paths = s->paths.data, *seed = s->inc_seeds.data, *nw = s->inc_new.data;
	uint32_t n = 0;

	for (size_t k = 0; k < s->inc_new.len; k++) {
		uint32_t f = ft__fs_task(s, nw[k])->active_idx;

		for (uint32_t j = 0; j < s->act_np[f]; j++)
			n = grow_link(s, n, paths[s->act_pf[f] + j], thr);
	}
	for (size_t k = 0; k < s->inc_seeds.len; k++)
		n = grow_link(s, n, seed[k], thr);
	return n;
}

/* Active flow @f sends at its own rate cap (its cap is its bottleneck). */
static bool
at_cap(const struct fs_sim *s, uint32_t f)
{
	uint32_t c = s->act_capi[f];

	return c && s->act_rate[f] >= FT_VEC_AT(&s->caps, double, c - 1) * (1 - FS_GROW_RTOL);
}

/* Note link @l in grow_check()'s list (its rate change in rem, its index in off). */
static void
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
static uint32_t
grow_check(struct fs_sim *s, uint32_t n)
{
	const uint32_t *paths = s->paths.data, *seed = s->inc_seeds.data;
	struct fs_wf_link *L = s->wf_link;
	uint32_t nt = 0, m = n, k, j, t;

	for (k = 0; k < s->inc_seeds.len; k++)
		grow_touch(s, seed[k], &nt);
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
		double lo = s->wf_items[t].key * (1 + FS_GROW_RTOL);
		double hi = s->wf_items2[t].key * (1 - FS_GROW_RTOL);
		bool over = load > cap * (1 + FS_GROW_RTOL), full = load >= cap * (1 - FS_GROW_RTOL);

		L[l].cnt = 0;
		for (uint32_t q = 0; q < F->n; q++) {
			uint32_t g = F->e[q].act;
			double r = s->act_rate[g];

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
 * Which flows recompute() gives new rates: all of them, or only those whose
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
		*full = n > s->nactive / 2;
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
		for (i = 0; i < s->nactive; i++) {
			s->inc_sel[i] = i;
			s->inc_old[i] = s->act_rate[i];
		}
		n = s->nactive;
	}
	return n;
}

/* Active flow @f's bottleneck becomes @l now: credit the time of the previous one. */
static void
set_bottleneck(struct fs_sim *s, uint32_t f, uint32_t l)
{
	struct fs_act_bn *b = &s->act_bn[f];
	uint32_t old = b->bott;
	double held = s->now_s - b->since;

	if (old == l)
		return;
	if (old != FS_NONE && (b->best == FS_NONE || held > b->best_s)) {
		b->best = old;
		b->best_s = held;
	}
	b->bott = l;
	b->since = s->now_s;
}

/* ---- kept link -> flows lists (grow mode) --------------------------------- */

/* List active flow @i on every link of its path. */
static int
lf_add(struct fs_sim *s, uint32_t i)
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
		L->e[L->n++] = (struct fs_lf_ent){ .act = i, .hop = j };
	}
	return 0;
}

/* Take active flow @i off its links' lists (each list's last entry fills the hole). */
static void
lf_remove(struct fs_sim *s, uint32_t i)
{
	const uint32_t pf = s->act_pf[i], *p = (const uint32_t *)s->paths.data + pf;

	for (uint32_t j = 0; j < s->act_np[i]; j++) {
		struct fs_lf *L = &s->lf[p[j]];
		uint32_t q = s->path_pos[pf + j];
		struct fs_lf_ent last = L->e[--L->n];

		if (q == L->n)
			continue;
		L->e[q] = last;
		s->path_pos[s->act_pf[last.act] + last.hop] = q;
	}
}

/* Active flow @i was moved to slot @i from another: its list entries follow. */
static void
lf_moved(struct fs_sim *s, uint32_t i)
{
	const uint32_t pf = s->act_pf[i], *p = (const uint32_t *)s->paths.data + pf;

	for (uint32_t j = 0; j < s->act_np[i]; j++)
		s->lf[p[j]].e[s->path_pos[pf + j]].act = i;
}

/*
 * The bookkeeping incremental recomputation needs (each link's active flows
 * and load, updated at every flow start and end) costs about a tenth of a
 * run whose phases end in step, as D-mod-K all-to-all rounds do, where every
 * recomputation is a full one anyway. After FS_LAZY_AFTER full ones in a row
 * it stops (lazy), and after FS_LAZY_RETRY more it is counted anew from the
 * active flows and tried again. Adaptive routing reads the counts: always
 * kept.
 */
static int
keep_or_lazy(struct fs_sim *s)
{
	const uint32_t *paths = s->paths.data;
	uint32_t i, j;

	if (s->keep) {
		if (s->need_counts || s->full_rates || s->phase_run < s->lazy_after)
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
		if (s->lf && lf_add(s, i) < 0)
			return FT_ENOMEM; /* still lazy: tried again at the next pass */
	}
	s->keep = true;
	s->loads_valid = false;
	s->phase_run = 0;
	s->nmode_switches++;
	return 0;
}

/*
 * The selected flows that have a rate cap, into wf_capped in increasing order
 * of cap (a counting sort over the caps' ranks: caps take few values); their
 * number. Flows of equal cap freeze at the same level, so their order among
 * themselves changes no rate.
 */
static int
wf_collect_capped(struct fs_sim *s, uint32_t nsel, uint32_t *ncapped)
{
	const double *caps = s->caps.data;
	uint32_t m = (uint32_t)s->caps.len, k, i, a, b, sum;

	*ncapped = 0;
	if (m == 0)
		return 0;
	if (s->caps_ranked != m) {
		uint32_t *rank = ft_reallocarray(s->cap_rank, m, sizeof(uint32_t));
		uint32_t *cnt = rank ? ft_reallocarray(s->cap_cnt, (size_t)m + 1, sizeof(uint32_t)) :
		                       NULL;

		if (rank)
			s->cap_rank = rank;
		if (!cnt)
			return FT_ENOMEM;
		s->cap_cnt = cnt;
		/* rank[a] = how many caps order before cap a: O(m^2), once per new cap */
		for (a = 0; a < m; a++) {
			rank[a] = 0;
			for (b = 0; b < m; b++)
				rank[a] += caps[b] < caps[a] || (caps[b] == caps[a] && b < a);
		}
		s->caps_ranked = m;
	}
	memset(s->cap_cnt, 0, ((size_t)m + 1) * sizeof(uint32_t));
	for (k = 0; k < nsel; k++) {
		uint32_t c = s->act_capi[s->inc_sel[k]];

		if (c)
			s->cap_cnt[s->cap_rank[c - 1] + 1]++;
	}
	for (sum = 0, i = 0; i <= m; i++) {
		sum += s->cap_cnt[i];
		s->cap_cnt[i] = sum - s->cap_cnt[i]; /* exclusive prefix: each rank's start */
	}
	if (sum == 0)
		return 0;
	for (k = 0; k < nsel; k++) {
		uint32_t f = s->inc_sel[k], c = s->act_capi[f];

		if (c)
			s->wf_capped[s->cap_cnt[s->cap_rank[c - 1] + 1]++] = f;
	}
	*ncapped = sum;
	return 0;
}

/* Freeze active flow @f at @rate, bottlenecked by @bott: its links give the rate back,
 * all but @full, the link that froze it (its room is spent; FS_NONE: its own cap). */
static void
wf_freeze(struct fs_sim *s, uint32_t f, double rate, uint32_t bott, uint32_t full)
{
	const uint32_t *p = (const uint32_t *)s->paths.data + s->act_pf[f];
	struct fs_wf_link *L = s->wf_link;
	uint32_t j;

	s->act_rate[f] = rate;
	s->wf_bott[f] = bott; /* set_bottleneck() once the rates stand */
	for (j = 0; j < s->act_np[f]; j++) {
		struct fs_wf_link *m = &L[p[j]];

		m->cnt--;
		if (p[j] == full)
			continue;
		m->rem -= rate;
		if (m->rem < 0)
			m->rem = 0;
	}
}

/*
 * Give the @nsel selected flows (inc_sel) their max-min rates over what
 * the others leave of each link (@full: every active flow is selected).
 */
static int
wf_fill(struct fs_sim *s, uint32_t nsel, bool full)
{
	const uint32_t *paths = s->paths.data;
	struct fs_wf_link *L = s->wf_link;
	struct wf_item *h, *sorted;
	uint32_t ntouched = 0, i, k, next, unfrozen, ncapped = 0, nextcap = 0;
	int rc;

	rc = wf_layout(s, nsel, &ntouched);
	if (rc < 0)
		goto out;
	s->wf_heap.len = 0;
	if (ft_vec_reserve(&s->wf_heap, ntouched) < 0) {
		rc = FT_ENOMEM;
		goto out;
	}
	for (k = 0; k < nsel; k++)
		s->act_rate[s->inc_sel[k]] = -1; /* unfrozen */
	rc = wf_collect_capped(s, nsel, &ncapped);
	if (rc < 0)
		goto out;
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
		s->wf_items[i].key = L[l].rem / L[l].cnt;
		s->wf_items[i].link = l;
	}
	sorted = wf_sort(s, ntouched);
	h = s->wf_heap.data;
	next = 0;
	unfrozen = nsel;
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
		while (nextcap < ncapped && s->act_rate[s->wf_capped[nextcap]] >= 0)
			nextcap++; /* frozen on a link meanwhile */
		if (nextcap < ncapped) {
			uint32_t f = s->wf_capped[nextcap];
			double c = FT_VEC_AT(&s->caps, double, s->act_capi[f] - 1);
			bool link_first = (next < ntouched && sorted[next].key <= c) ||
			                  (s->wf_heap.len && h[0].key <= c);

			if (!link_first) {
				wf_freeze(s, f, c, paths[s->act_pf[f]], FS_NONE);
				unfrozen--;
				nextcap++;
				continue;
			}
		}
		if (next < ntouched && (s->wf_heap.len == 0 || wf_less(&sorted[next], &h[0]))) {
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
		share = L[l].rem / L[l].cnt;
		if (it.key != share) {
			wf_push(s, share, l);
			continue;
		}
		for (k = L[l].off; k < L[l].end; k++) {
			uint32_t f = s->wf_flows[k];

			if (s->act_rate[f] >= 0)
				continue;
			wf_freeze(s, f, share, l, l);
			unfrozen--;
		}
		L[l].rem = 0;
	}
	/* grow mode: a full pass leaves each link's load as what its room went to (a link
	 * that froze flows is full), so it need not be summed again from the rates */
	for (i = 0; i < ntouched && full && s->lf && s->keep; i++) {
		uint32_t l = s->wf_touched[i];

		s->lk[l].load = L[l].rem < s->cap_Bps[l] ? s->cap_Bps[l] - L[l].rem : 0;
	}
	rc = 0;
out:
	for (i = 0; i < ntouched; i++)
		L[s->wf_touched[i]].cnt = 0;
	return rc;
}

/*
 * Grow mode: fill the selection, check its border (grow_check()), and fill
 * it again with the flows the check adds until it adds none, or all flows
 * once more than half are selected. Returns the count (inc_sel); *@full
 * says whether every flow was filled.
 */
static int
fill_grown(struct fs_sim *s, uint32_t *nsel, bool *full)
{
	uint32_t n = *nsel, m, k;
	int rc;

	for (;;) {
		rc = wf_fill(s, n, *full);
		if (rc < 0 || *full || !s->lf)
			return rc;
		m = grow_check(s, n);
		if (m == n)
			return 0;
		for (k = 0; k < n; k++) /* as they were: filled again over the others */
			s->act_rate[s->inc_sel[k]] = s->inc_old[k];
		n = *nsel = m;
		s->ngrow++;
		if (n > s->nactive / 2) {
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
 * link as rates change; every FS_FULL_EVERY-th time, or when more than half
 * the flows would be filled again, all are, and the next incremental pass
 * sums the loads anew from the rates. In grow mode (the default) only the
 * flows around the change are filled, and grown until the max-min
 * conditions hold at their border (fill_grown()).
 */
static int
recompute(struct fs_sim *s)
{
	const uint32_t *paths = s->paths.data;
	uint32_t nsel, i, j, k;
	bool full;
	int rc;

	s->nrecompute++;
	s->rates_dirty = false;
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
	rc = fill_grown(s, &nsel, &full);
	s->inc_seeds.len = 0;
	s->inc_new.len = 0;
	for (k = 0; k < nsel && s->lf; k++)
		s->inc_in[s->inc_sel[k]] = 0;
	if (rc < 0)
		return rc;
	s->nrefilled += nsel;
	if (full) {
		s->nrecompute_full++;
		/* a periodic full pass says nothing about whether flows end in step */
		if (s->inc_since_full < FS_FULL_EVERY)
			s->phase_run++;
		s->inc_since_full = 0;
		if (!s->keep)
			s->lazy_run++;
	} else {
		s->inc_since_full++;
		s->phase_run = 0;
	}
	for (k = 0; k < nsel; k++) {
		i = s->inc_sel[k];
		set_bottleneck(s, i, s->wf_bott[i]);
		if (s->act_rate[i] == s->inc_old[k])
			continue;
		fin_rate(s, i, s->inc_old[k]);
		if (!full)
			fin_fix(s, s->act_hp[i], s->nactive);
	}
	for (k = s->nactive / 2; full && k-- > 0;)
		fin_down(s, k, s->nactive); /* every key may have moved: heapify */
	/* the links' loads follow the new rates; a full pass leaves them to the next
	 * incremental one, which sums them only if it comes (grow mode: wf_fill()) */
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
	int rc = recompute(s);

	/* Mirror the rates into the tasks (their public view; the event loop reads act_rate). */
	for (uint32_t i = 0; rc == 0 && i < s->nactive; i++)
		ft__fs_task(s, s->active[i])->rate_Bps = s->act_rate[i];
	return rc;
}

/* ---- the event loop ------------------------------------------------------- */

int
ft__fs_start(struct fs_sim *s, struct ft_error *err)
{
	uint32_t n = ft__fs_ntasks(s), i;
	const uint32_t *e = s->edges.data;
	size_t ne = s->edges.len;

	if (s->started)
		return ft_error_set(err, FT_EINVAL, "sim: run already started");
	s->link_cl = ft_calloc(s->nlinks ? s->nlinks : 1, sizeof(struct fs_link_cl));
	if (!s->link_cl)
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory for %u links", s->nlinks);
	for (i = 0; i < s->nlinks; i++) {
		s->link_cl[i].cap_Bps = s->cap_Bps[i];
		s->link_cl[i].lat_s = s->lat_s[i];
	}
	s->succ_first = ft_calloc((size_t)n + 1, sizeof(uint32_t));
	s->succ = ft_calloc(ne ? ne : 1, sizeof(uint32_t));
	s->act_cap = n ? n : 1;
	s->active = ft_calloc(s->act_cap, sizeof(uint32_t));
	s->act_pf = ft_calloc(s->act_cap, sizeof(uint32_t));
	s->act_np = ft_calloc(s->act_cap, sizeof(uint32_t));
	s->act_rate = ft_calloc(s->act_cap, sizeof(double));
	s->act_left = ft_calloc(s->act_cap, sizeof(double));
	s->act_bn = ft_calloc(s->act_cap, sizeof(struct fs_act_bn));
	s->act_capi = ft_calloc(s->act_cap, sizeof(uint32_t));
	s->wf_capped = ft_calloc(s->act_cap, sizeof(uint32_t));
	s->inc_sel = ft_calloc(s->act_cap, sizeof(uint32_t));
	s->inc_old = ft_calloc(s->act_cap, sizeof(double));
	s->wf_bott = ft_calloc(s->act_cap, sizeof(uint32_t));
	s->inc_in = ft_calloc(s->act_cap, sizeof(uint8_t));
	s->act_t0 = ft_calloc(s->act_cap, sizeof(double));
	s->act_fin = ft_calloc(s->act_cap, sizeof(double));
	s->act_hp = ft_calloc(s->act_cap, sizeof(uint32_t));
	s->fin_heap = ft_calloc(s->act_cap, sizeof(uint32_t));
	s->fin_tmp = ft_calloc(s->act_cap, sizeof(uint32_t));
	/* grow mode (the default) keeps each link's active flows */
	if (!s->full_rates && !s->level_only && !s->comp_only)
		s->lf = ft_calloc(s->nlinks ? s->nlinks : 1, sizeof(struct fs_lf));
	if (!s->succ_first || !s->succ || !s->active || !s->act_pf || !s->act_np || !s->act_rate ||
	    !s->act_left || !s->act_bn || !s->act_capi || !s->wf_capped || !s->inc_sel ||
	    !s->inc_old || !s->wf_bott || !s->inc_in || !s->act_t0 || !s->act_fin ||
	    !s->act_hp || !s->fin_heap || !s->fin_tmp ||
	    (!s->lf && !s->full_rates && !s->level_only && !s->comp_only))
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory for %u tasks", n);
	for (i = 0; i < ne; i++)
		s->succ_first[e[2 * i] + 1]++;
	for (i = 0; i < n; i++)
		s->succ_first[i + 1] += s->succ_first[i];
	/* Stable fill: successors keep the order their edges were added in. */
	{
		uint32_t *fill = ft_calloc(n ? n : 1, sizeof(uint32_t));

		if (!fill)
			return ft_error_set(err, FT_ENOMEM, "sim: out of memory");
		for (i = 0; i < ne; i++) {
			uint32_t from = e[2 * i];

			s->succ[s->succ_first[from] + fill[from]++] = e[2 * i + 1];
		}
		ft_free(fill);
	}
	ft_vec_release(&s->edges);
	s->started = true;
	for (i = 0; i < n; i++) {
		struct fs_task *t = ft__fs_task(s, i);

		if (t->npred == 0) {
			t->state = FS_READY;
			if (ev_push(s, t->delay_s, i, 0) < 0) /* now is 0 */
				return ft_error_set(err, FT_ENOMEM, "sim: out of memory");
		}
	}
	return 0;
}

uint32_t *
ft__fs_path_room(struct fs_sim *s, uint32_t id, uint32_t n)
{
	struct fs_task *t = ft__fs_task(s, id);

	if (n <= t->path_cap) {
		/* A recycled slot: its old path's room holds the new one. */
		t->npath = n;
		return &FT_VEC_AT(&s->paths, uint32_t, t->path_first);
	}
	if (ft_vec_reserve(&s->paths, n) < 0)
		return NULL;
	t->path_first = (uint32_t)s->paths.len;
	s->paths.len += n;
	t->npath = n;
	t->path_cap = n;
	return &FT_VEC_AT(&s->paths, uint32_t, t->path_first);
}

static int
route_task(struct fs_sim *s, uint32_t id, struct ft_error *err)
{
	uint32_t buf[64], *room;
	int n;

	if (!s->route)
		return ft_error_set(err, FT_EINVAL, "sim: flow %u has no path and no router", id);
	n = s->route(s->route_ud, s, id, buf, FT_ARRAY_SIZE(buf), err);
	if (n < 0)
		return n;
	if (n == 0)
		return ft_error_set(err, FT_EINVAL, "sim: flow %u: empty path", id);
	room = ft__fs_path_room(s, id, (uint32_t)n);
	if (!room)
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory");
	memcpy(room, buf, (size_t)n * sizeof(uint32_t));
	return 0;
}

/*
 * Reallocate the array whose pointer is at @slot (any object pointer type,
 * passed by address) to @n elements of @size; left as it was when out of
 * memory.
 */
static bool
regrow(void *slot, size_t n, size_t size)
{
	void *old, *p;

	memcpy(&old, slot, sizeof(old));
	p = ft_reallocarray(old, n, size);
	if (p)
		memcpy(slot, &p, sizeof(p));
	return p != NULL;
}

/* Double the room of the active flows' arrays (spawned flows outnumber the slots). */
static int
grow_active(struct fs_sim *s)
{
	size_t n = (size_t)s->act_cap * 2;
	const struct {
		void *slot;
		size_t size;
	} arrays[] = {
		{ &s->active, sizeof(*s->active) },     { &s->act_pf, sizeof(*s->act_pf) },
		{ &s->act_np, sizeof(*s->act_np) },     { &s->act_rate, sizeof(*s->act_rate) },
		{ &s->act_left, sizeof(*s->act_left) }, { &s->act_bn, sizeof(*s->act_bn) },
		{ &s->inc_sel, sizeof(*s->inc_sel) },   { &s->inc_old, sizeof(*s->inc_old) },
		{ &s->act_capi, sizeof(*s->act_capi) }, { &s->wf_capped, sizeof(*s->wf_capped) },
		{ &s->wf_bott, sizeof(*s->wf_bott) },   { &s->inc_in, sizeof(*s->inc_in) },
		{ &s->act_t0, sizeof(*s->act_t0) },     { &s->act_fin, sizeof(*s->act_fin) },
		{ &s->act_hp, sizeof(*s->act_hp) },     { &s->fin_heap, sizeof(*s->fin_heap) },
		{ &s->fin_tmp, sizeof(*s->fin_tmp) },
	};
	bool ok = true;

	for (size_t i = 0; i < FT_ARRAY_SIZE(arrays); i++)
		ok = regrow(arrays[i].slot, n, arrays[i].size) && ok;
	if (!ok)
		return FT_ENOMEM;
	memset(s->inc_in + s->act_cap, 0, n - s->act_cap); /* none selected */
	s->act_cap = (uint32_t)n;
	return 0;
}

static int
start_task(struct fs_sim *s, uint32_t id, struct ft_error *err)
{
	struct fs_task *t = ft__fs_task(s, id);
	const uint32_t *p;
	double bottleneck = INFINITY, lat = 0, cap;
	uint32_t j;
	int rc;

	t->t_start = s->now_s;
	if (t->kind == FS_SPAWNER) {
		if (!s->spawn)
			return ft_error_set(err, FT_EINVAL, "sim: spawner %u has no callback", id);
		rc = s->spawn(s->spawn_ud, s, id, err);
		if (rc < 0)
			return rc;
		t = ft__fs_task(s, id);
	}
	if (t->kind != FS_FLOW || t->bytes <= 0) {
		/* Nothing to send: done at once (a barrier's wait was its start delay). */
		t->state = FS_PROPAGATING;
		if (t->kind == FS_FLOW && t->npath == 0 && s->route) {
			rc = route_task(s, id, err);
			if (rc < 0)
				return rc;
		}
		return ev_push(s, 0, id, 1);
	}
	if (t->npath == 0) {
		rc = route_task(s, id, err);
		if (rc < 0)
			return rc;
		t = ft__fs_task(s, id);
	}
	p = ft__fs_path(s, t);
	for (j = 0; j < t->npath; j++) {
		const struct fs_link_cl *lk = &s->link_cl[p[j]];

		if (lk->cap_Bps < bottleneck)
			bottleneck = lk->cap_Bps;
		lat += lk->lat_s;
		if (s->keep) {
			struct fs_link_st *st = &s->lk[p[j]];

			if (++st->nactive > st->maxflows)
				st->maxflows = st->nactive;
		}
	}
	if (!(bottleneck > 0))
		return ft_error_set(err, FT_EINVAL, "sim: flow %u crosses link %u of no capacity",
		                    id, p[0]);
	cap = t->cap_idx ? FT_VEC_AT(&s->caps, double, t->cap_idx - 1) : INFINITY;
	if (cap < bottleneck)
		bottleneck = cap;
	t->lat_s = lat;
	t->ideal_s = t->bytes / bottleneck + lat;
	if (s->nactive == s->act_cap) {
		rc = grow_active(s);
		if (rc < 0)
			return ft_error_set(err, rc, "sim: out of memory");
	}
	t->state = FS_ACTIVE;
	t->active_idx = s->nactive;
	s->act_pf[s->nactive] = t->path_first;
	s->act_np[s->nactive] = t->npath;
	s->act_rate[s->nactive] = -1; /* none yet: recompute() gives it one */
	s->act_left[s->nactive] = t->bytes - t->sent;
	s->act_bn[s->nactive] = (struct fs_act_bn){ FS_NONE, FS_NONE, s->now_s, 0 };
	s->act_capi[s->nactive] = t->cap_idx;
	s->act_t0[s->nactive] = s->now_s;
	s->act_fin[s->nactive] = INFINITY; /* rated by the next recomputation */
	fin_place(s, s->nactive, s->nactive);
	s->active[s->nactive++] = id;
	s->rates_dirty = true;
	if (s->lf && s->keep && lf_add(s, t->active_idx) < 0)
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory");
	if (VEC_APPEND(&s->inc_new, uint32_t, id) < 0)
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory");
	return 0;
}

/* One predecessor of @u is done (its path latency @lat): start @u when it was the last. */
static int
release(struct fs_sim *s, uint32_t u_id, double lat)
{
	struct fs_task *u = ft__fs_task(s, u_id);

	if (lat > u->pred_lat_s)
		u->pred_lat_s = lat;
	if (FT_NEVER(u->npred == 0))
		return 0;
	if (--u->npred == 0) {
		double d = u->delay_s + u->lat_mult * u->pred_lat_s;

		u->state = FS_READY;
		return ev_push(s, d, u_id, 0);
	}
	return 0;
}

/* A spawned flow is done: keep what the counters need, free its slot. */
static int
retire(struct fs_sim *s, uint32_t id)
{
	const struct fs_task *t = ft__fs_task(s, id);
	double fct = t->t_done - t->t_start, ideal = t->ideal_s, done = t->t_done;
	uint32_t tag = t->tag, bott = t->bott_link;

	if (done > s->retired_makespan_s)
		s->retired_makespan_s = done;
	if (t->bytes > 0) {
		if (VEC_APPEND(&s->retired_fct, double, fct) < 0 ||
		    VEC_APPEND(&s->retired_ideal, double, ideal) < 0)
			return FT_ENOMEM;
		if (tag != FS_NONE && bott != FS_NONE) {
			struct fs_tag_slowest *ts;

			if (tag >= s->tag_slowest.len) {
				size_t old = s->tag_slowest.len;

				if (ft_vec_reserve(&s->tag_slowest, tag + 1 - old) < 0)
					return FT_ENOMEM;
				memset(&FT_VEC_AT(&s->tag_slowest, struct fs_tag_slowest, old), 0,
				       (tag + 1 - old) * sizeof(struct fs_tag_slowest));
				s->tag_slowest.len = tag + 1;
			}
			ts = &FT_VEC_AT(&s->tag_slowest, struct fs_tag_slowest, tag);
			if (done > ts->t_done) {
				ts->t_done = done;
				ts->bott_link = bott;
			}
		}
	}
	return VEC_APPEND(&s->free_ids, uint32_t, id);
}

static int
finish_task(struct fs_sim *s, uint32_t id, struct ft_error *err)
{
	struct fs_task *t = ft__fs_task(s, id);
	double lat = t->lat_s;
	uint32_t k;
	int rc;

	t->state = FS_DONE;
	t->t_done = s->now_s;
	s->ndone++;
	if (t->spawned) {
		rc = retire(s, id);
		if (rc < 0)
			return ft_error_set(err, rc, "sim: out of memory");
		t = ft__fs_task(s, id);
		if (t->next != FS_NONE) {
			rc = release(s, t->next, lat);
			if (rc < 0)
				return ft_error_set(err, rc, "sim: out of memory");
		}
		return 0;
	}
	for (k = s->succ_first[id]; k < s->succ_first[id + 1]; k++) {
		rc = release(s, s->succ[k], lat);
		if (rc < 0)
			return ft_error_set(err, rc, "sim: out of memory");
	}
	return 0;
}

/* The flow stops sending: release its links, arrive after the path latency. */
static int
end_transmission(struct fs_sim *s, uint32_t id)
{
	struct fs_task *t = ft__fs_task(s, id);
	const uint32_t *p = ft__fs_path(s, t);
	double rate = s->act_rate[t->active_idx];
	uint32_t j, last;

	if (s->lf && s->keep)
		lf_remove(s, t->active_idx);
	for (j = 0; j < t->npath; j++) {
		uint32_t l = p[j];

		struct fs_link_st *st = &s->lk[l];

		st->bytes += t->bytes;
		/* an idle link's load is exactly 0, whatever the rounding left */
		if (s->keep)
			st->load = --st->nactive ? st->load - rate : 0;
	}
	/* rates below this one stay at the next recomputation (see recompute()), and
	 * only the flows its links reach are filled again (grow_select(), local_flows()) */
	if (!(rate >= s->inc_level))
		s->inc_level = rate > 0 ? rate : 0;
	if (!s->level_only && !s->full_rates) {
		if (ft_vec_reserve(&s->inc_seeds, t->npath) < 0)
			return FT_ENOMEM;
		memcpy(&FT_VEC_AT(&s->inc_seeds, uint32_t, s->inc_seeds.len), p,
		       t->npath * sizeof(*p));
		s->inc_seeds.len += t->npath;
	}
	/* Bytes sent, as integrated over the rate intervals (the residual is the
	 * completion tolerance); the links are credited with the whole payload. */
	t->sent = t->bytes - (s->act_left[t->active_idx] -
	                      rate * (s->now_s - s->act_t0[t->active_idx])); /* left: ~0 */
	set_bottleneck(s, t->active_idx, FS_NONE); /* close the last interval */
	t->bott_link = s->act_bn[t->active_idx].best;
	s->bytes_delivered += t->sent;
	t->rate_Bps = 0;
	fin_remove(s, t->active_idx, s->nactive - 1);
	--s->nactive;
	last = s->active[s->nactive];
	s->active[t->active_idx] = last;
	s->act_pf[t->active_idx] = s->act_pf[s->nactive];
	s->act_np[t->active_idx] = s->act_np[s->nactive];
	s->act_rate[t->active_idx] = s->act_rate[s->nactive];
	s->act_left[t->active_idx] = s->act_left[s->nactive];
	s->act_bn[t->active_idx] = s->act_bn[s->nactive];
	s->act_capi[t->active_idx] = s->act_capi[s->nactive];
	s->act_t0[t->active_idx] = s->act_t0[s->nactive];
	s->act_fin[t->active_idx] = s->act_fin[s->nactive];
	if (t->active_idx < s->nactive)
		fin_place(s, s->act_hp[s->nactive], t->active_idx);
	ft__fs_task(s, last)->active_idx = t->active_idx;
	if (s->lf && s->keep && t->active_idx < s->nactive)
		lf_moved(s, t->active_idx);
	t->state = FS_PROPAGATING;
	s->rates_dirty = true;
	return ev_push(s, t->lat_s, id, 1);
}

/*
 * The active flows whose transmission ends by @horizon, found in the heap
 * (a subtree whose root ends later holds none), in fin_tmp; their number.
 */
static uint32_t
fin_collect(struct fs_sim *s, double horizon)
{
	const uint32_t *h = s->fin_heap;
	uint32_t *q = s->fin_tmp, n = 0, k, c;

	if (s->nactive && s->act_fin[h[0]] <= horizon)
		q[n++] = 0;
	for (k = 0; k < n; k++) {
		for (c = 2 * q[k] + 1; c <= 2 * q[k] + 2 && c < s->nactive; c++)
			if (s->act_fin[h[c]] <= horizon)
				q[n++] = c;
	}
	for (k = 0; k < n; k++)
		q[k] = h[q[k]];
	return n;
}


/*
 * End the @n transmissions listed in fin_tmp in the order a scan of the
 * active slots would (each ending flow's slot taken by the last active
 * flow, looked at again), so that arrivals queue as they always did.
 */
static int
fin_end(struct fs_sim *s, uint32_t n)
{
	uint32_t *q = s->fin_tmp, k;
	int rc;

	sort_u32(q, n);
	for (k = 0; k < n; k++)
		s->inc_in[q[k]] = 1;
	for (k = 0; k < n; k++) {
		uint32_t i = q[k];

		while (i < s->nactive && s->inc_in[i]) {
			uint32_t last = s->nactive - 1;
			uint8_t moved = s->inc_in[last];

			s->inc_in[i] = 0;
			s->inc_in[last] = 0;
			rc = end_transmission(s, s->active[i]);
			if (rc < 0)
				return rc;
			if (i < s->nactive)
				s->inc_in[i] = moved; /* the last flow took slot i */
		}
	}
	return 0;
}

int
ft__fs_step(struct fs_sim *s, struct ft_error *err)
{
	double t_tx = INFINITY, t_ev = INFINITY, t_next, horizon;
	const struct fs_event *first;
	int src;
	int rc;

	if (!s->started)
		return ft_error_set(err, FT_EINVAL, "sim: run not started");
	if (s->rates_dirty) {
		rc = recompute(s);
		if (rc < 0)
			return ft_error_set(err, rc, "sim: out of memory computing rates");
	}
	if (s->nactive)
		t_tx = s->act_fin[s->fin_heap[0]];
	first = ev_first(s, &src);
	if (first)
		t_ev = first->t;
	if (t_tx == INFINITY && t_ev == INFINITY) {
		if (s->nactive)
			return ft_error_set(err, FT_EINVAL, "sim: %u flows are stuck at rate 0",
			                    s->nactive);
		return 0;
	}
	t_next = t_tx < t_ev ? t_tx : t_ev;
	horizon = t_next + (t_next > 0 ? t_next : 1e-12) * FS_TIME_RTOL;
	s->now_s = t_next;
	s->nevents++;
	/* The flows ending by the horizon stop sending (the others' bytes left are
	 * brought up to date when their rates change: fin_rate()). */
	rc = fin_end(s, fin_collect(s, horizon));
	if (rc < 0)
		return ft_error_set(err, rc, "sim: out of memory");
	/* Events due now, in (time, sequence) order. */
	while ((first = ev_first(s, &src)) && first->t <= horizon) {
		struct fs_event e;

		ev_take(s, src, &e);
		if (e.type == 0)
			rc = start_task(s, e.task, err);
		else
			rc = finish_task(s, e.task, err);
		if (rc < 0)
			return rc;
	}
	return 1;
}

int
ft__fs_run(struct fs_sim *s, double until_s, struct ft_error *err)
{
	int rc;

	if (!s->started) {
		rc = ft__fs_start(s, err);
		if (rc < 0)
			return rc;
	}
	while ((rc = ft__fs_step(s, err)) > 0)
		if (until_s > 0 && s->now_s >= until_s)
			return 0;
	if (rc < 0)
		return rc;
	if (s->ndone != s->ncreated)
		return ft_error_set(err, FT_EINVAL,
		                    "sim: %llu of %llu tasks never started (a dependency cycle)",
		                    (unsigned long long)(s->ncreated - s->ndone),
		                    (unsigned long long)s->ncreated);
	return 0;
}

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
 * changes, and only for the flows whose rates can change (ft__fs_rates(),
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
 *
 * The water filling is in flowfill.c; which flows a change reaches, and the
 * heap of transmission ends, in flowgrow.c (shared declarations: flow_int.h).
 */
#include "flow_int.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

int
ft__fs_init(struct fs_sim *s, uint32_t nlinks)
{
	memset(s, 0, sizeof(*s));
	s->nlinks = nlinks;
	s->inc_level = INFINITY;
	s->keep = true;
	s->lazy_after = FS_LAZY_AFTER;
	s->lazy_retry = FS_LAZY_RETRY;
	s->defer_rtol = FS_DEFER_RTOL;
	s->room_rtol = FS_ROOM_RTOL;
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
		s->act_hp,   s->fin_heap,   s->fin_tmp,    s->wf_live,  s->act_path,
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

int
ft__fs_barrier_floor(struct fs_sim *s, uint32_t id, double floor_s, double n)
{
	struct fs_task *t;

	if (id >= s->ntasks || !(floor_s >= 0) || !(n >= 0) || !isfinite(floor_s) ||
	    !isfinite(n))
		return FT_EINVAL;
	t = ft__fs_task(s, id);
	if (t->kind != FS_BARRIER)
		return FT_EINVAL;
	t->floor_s = floor_s;
	t->floor_n = n;
	return 0;
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
	s->act_path = ft_calloc((size_t)s->act_cap * FS_SLOT_HOPS, sizeof(uint32_t));
	s->act_rate = ft_calloc(s->act_cap, sizeof(double));
	s->act_left = ft_calloc(s->act_cap, sizeof(double));
	s->act_bn = ft_calloc(s->act_cap, sizeof(struct fs_act_bn));
	s->act_capi = ft_calloc(s->act_cap, sizeof(uint32_t));
	s->wf_capped = ft_calloc(s->act_cap, sizeof(uint32_t));
	s->inc_sel = ft_calloc(s->act_cap, sizeof(uint32_t));
	s->inc_old = ft_calloc(s->act_cap, sizeof(double));
	s->wf_bott = ft_calloc(s->act_cap, sizeof(uint32_t));
	s->inc_in = ft_calloc(s->act_cap, sizeof(uint8_t));
	s->wf_live = ft_calloc(s->act_cap, sizeof(uint8_t));
	s->act_t0 = ft_calloc(s->act_cap, sizeof(double));
	s->act_fin = ft_calloc(s->act_cap, sizeof(double));
	s->act_hp = ft_calloc(s->act_cap, sizeof(uint32_t));
	s->fin_heap = ft_calloc(s->act_cap, sizeof(uint32_t));
	s->fin_tmp = ft_calloc(s->act_cap, sizeof(uint32_t));
	/* grow mode (the default) keeps each link's active flows */
	if (!s->full_rates && !s->level_only && !s->comp_only)
		s->lf = ft_calloc(s->nlinks ? s->nlinks : 1, sizeof(struct fs_lf));
	if (!s->succ_first || !s->succ || !s->active || !s->act_pf || !s->act_np || !s->act_path ||
	    !s->act_rate || !s->act_left || !s->act_bn || !s->act_capi || !s->wf_capped ||
	    !s->inc_sel || !s->inc_old || !s->wf_bott || !s->inc_in || !s->wf_live ||
	    !s->act_t0 || !s->act_fin || !s->act_hp || !s->fin_heap || !s->fin_tmp ||
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
		{ &s->fin_tmp, sizeof(*s->fin_tmp) },   { &s->wf_live, sizeof(*s->wf_live) },
		{ &s->act_path, FS_SLOT_HOPS * sizeof(*s->act_path) },
	};
	bool ok = true;

	for (size_t i = 0; i < FT_ARRAY_SIZE(arrays); i++)
		ok = regrow(arrays[i].slot, n, arrays[i].size) && ok;
	if (!ok)
		return FT_ENOMEM;
	memset(s->inc_in + s->act_cap, 0, n - s->act_cap); /* none selected */
	memset(s->wf_live + s->act_cap, 0, n - s->act_cap); /* none being filled */
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
	memcpy(s->act_path + (size_t)s->nactive * FS_SLOT_HOPS, p,
	       (t->npath < FS_SLOT_HOPS ? t->npath : FS_SLOT_HOPS) * sizeof(*p));
	s->act_rate[s->nactive] = -1; /* none yet: ft__fs_rates() gives it one */
	s->act_left[s->nactive] = t->bytes - t->sent;
	s->act_bn[s->nactive] = (struct fs_act_bn){ FS_NONE, FS_NONE, s->now_s, 0 };
	s->act_capi[s->nactive] = t->cap_idx;
	s->act_t0[s->nactive] = s->now_s;
	s->act_fin[s->nactive] = INFINITY; /* rated by the next recomputation */
	ft__fs_fin_place(s, s->nactive, s->nactive);
	s->active[s->nactive++] = id;
	s->rates_dirty = true;
	s->phase_churn++;
	if (s->lf && s->keep && ft__fs_lf_add(s, t->active_idx) < 0)
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

		if (u->kind == FS_BARRIER && u->floor_n > 0)
			d += u->floor_n * ft__sim_net_floor_s(u->floor_s, u->pred_lat_s);

		u->state = FS_READY;
		return ev_push(s, d, u_id, 0);
	}
	return 0;
}

/*
 * Whether flow @t's own rate cap (an NCCL channel's: the op's conn_cap_Bps over its QPs; a
 * send's window) held it from its first byte to its last: it moved its bytes at that rate
 * to within FLOW_CAPPED_RTOL, no link having slowed it below the cap for longer than that
 * share of its time. Its bottleneck link is then the first of its path, which the water
 * filling names for a flow its cap froze (flowfill.c), not what held it.
 */
#define FLOW_CAPPED_RTOL 1e-3

bool
ft__fs_flow_capped(const struct fs_sim *s, const struct fs_task *t)
{
	double rate = ft__fs_flow_rate(t);

	if (t->cap_idx == 0 || t->cap_idx > s->caps.len || !(rate > 0))
		return false;
	return ft__fs_rate_at(rate, FT_VEC_AT(&s->caps, double, t->cap_idx - 1));
}

double
ft__fs_flow_rate(const struct fs_task *t)
{
	double sending = t->t_done - t->t_start - t->lat_s;

	return sending > 0 ? t->bytes / sending : 0;
}

bool
ft__fs_rate_at(double rate_Bps, double cap_Bps)
{
	return cap_Bps > 0 && rate_Bps > 0 && rate_Bps >= cap_Bps * (1 - FLOW_CAPPED_RTOL);
}

/* A spawned flow is done: keep what the counters need (the slowest of its tag, and whether
 * its own cap held that one), free its slot. */
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
				ts->capped = ft__fs_flow_capped(s, t);
				ts->rate_Bps = ft__fs_flow_rate(t);
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

	s->phase_churn++;
	if (s->lf && s->keep)
		ft__fs_lf_remove(s, t->active_idx);
	for (j = 0; j < t->npath; j++) {
		uint32_t l = p[j];

		struct fs_link_st *st = &s->lk[l];

		st->bytes += t->bytes;
		/* room left on a link that limits no other flow changes no rate */
		if (st->nbott > (s->act_bn[t->active_idx].bott == l)) {
			st->freed += (float)rate;
			if (st->freed > s->room_rtol * s->cap_Bps[l])
				s->room_due = true;
		}
		/* an idle link's load is exactly 0, whatever the rounding left */
		if (s->keep)
			st->load = --st->nactive ? st->load - rate : 0;
	}
	/* rates below this one stay at the next recomputation (see ft__fs_rates()), and
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
	ft__fs_set_bottleneck(s, t->active_idx, FS_NONE); /* close the last interval */
	t->bott_link = s->act_bn[t->active_idx].best;
	s->bytes_delivered += t->sent;
	t->rate_Bps = 0;
	ft__fs_fin_remove(s, t->active_idx, s->nactive - 1);
	--s->nactive;
	last = s->active[s->nactive];
	s->active[t->active_idx] = last;
	s->act_pf[t->active_idx] = s->act_pf[s->nactive];
	s->act_np[t->active_idx] = s->act_np[s->nactive];
	memcpy(s->act_path + (size_t)t->active_idx * FS_SLOT_HOPS,
	       s->act_path + (size_t)s->nactive * FS_SLOT_HOPS, FS_SLOT_HOPS * sizeof(uint32_t));
	s->act_rate[t->active_idx] = s->act_rate[s->nactive];
	s->act_left[t->active_idx] = s->act_left[s->nactive];
	s->act_bn[t->active_idx] = s->act_bn[s->nactive];
	s->act_capi[t->active_idx] = s->act_capi[s->nactive];
	s->act_t0[t->active_idx] = s->act_t0[s->nactive];
	s->act_fin[t->active_idx] = s->act_fin[s->nactive];
	if (t->active_idx < s->nactive)
		ft__fs_fin_place(s, s->act_hp[s->nactive], t->active_idx);
	ft__fs_task(s, last)->active_idx = t->active_idx;
	if (s->lf && s->keep && t->active_idx < s->nactive)
		ft__fs_lf_moved(s, t->active_idx);
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

	ft__fs_sort_u32(q, n);
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

/*
 * Advance to @t_next: end the transmissions due by then (within FS_TIME_RTOL)
 * and take the timers due, in (time, sequence) order.
 */
static int
fs_advance(struct fs_sim *s, double t_next, struct ft_error *err)
{
	double horizon = t_next + (t_next > 0 ? t_next : 1e-12) * FS_TIME_RTOL;
	const struct fs_event *first;
	int src, rc;

	s->now_s = t_next;
	s->nevents++;
	/* The flows ending by the horizon stop sending (the others' bytes left are
	 * brought up to date when their rates change: fin_rates() in flowgrow.c). */
	rc = fin_end(s, fin_collect(s, horizon));
	if (rc < 0)
		return ft_error_set(err, rc, "sim: out of memory");
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
	return 0;
}

/* When the next transmission end or timer is due (INFINITY: none). */
static double
fs_next_time(struct fs_sim *s)
{
	const struct fs_event *first;
	double t = s->nactive ? s->act_fin[s->fin_heap[0]] : INFINITY;
	int src;

	first = ev_first(s, &src);
	return first && first->t < t ? first->t : t;
}

/*
 * One event: the next transmission end or timers, then, when a flow ended
 * first, the ends and timers due within defer_rtol of that flow's time in
 * flight, each at its own time, under the rates as they were
 * (docs/internals/sim.md, "Completions that share a recomputation"): a
 * flow ends when its bytes are sent, and the room it leaves reaches the
 * others at the next recomputation, at most defer_rtol * its FCT later.
 * A flow that starts closes the window: it is rated at its start.
 */
int
ft__fs_step(struct fs_sim *s, struct ft_error *err)
{
	double t_next, window;
	int rc;

	if (!s->started)
		return ft_error_set(err, FT_EINVAL, "sim: run not started");
	/* only flows ended, each link keeps at least 1 - room_rtol of its capacity in use:
	 * the rates stand (docs/internals/sim.md, "Ends that leave little room") */
	if (s->rates_dirty && (s->room_due || s->inc_new.len)) {
		rc = ft__fs_rates(s);
		if (rc < 0)
			return ft_error_set(err, rc, "sim: out of memory computing rates");
	}
	t_next = fs_next_time(s);
	if (t_next == INFINITY) {
		if (s->nactive)
			return ft_error_set(err, FT_EINVAL, "sim: %u flows are stuck at rate 0",
			                    s->nactive);
		return 0;
	}
	/* the first flow to end sets the window: its own time in flight, scaled */
	window = t_next;
	if (s->nactive && s->act_fin[s->fin_heap[0]] == t_next)
		window += (t_next - ft__fs_task(s, s->active[s->fin_heap[0]])->t_start) * s->defer_rtol;
	do {
		rc = fs_advance(s, t_next, err);
		if (rc < 0)
			return rc;
		t_next = fs_next_time(s);
	} while (t_next <= window && s->inc_new.len == 0);
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

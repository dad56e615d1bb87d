/* SPDX-License-Identifier: MIT */
/*
 * sim/flow_int.h - internals of the flow-level core, shared by its three
 * files: flowcore.c (tasks, timers, the event loop), flowfill.c (the
 * bottleneck-ordered water filling) and flowgrow.c (which flows a change
 * reaches, the kept link -> flows lists, and the heap of transmission ends).
 * The state they share is struct fs_sim (sim_int.h).
 */
#ifndef FT_FLOW_INT_H
#define FT_FLOW_INT_H

#include "sim_int.h"

#define FS_TIME_RTOL 1e-9 /* completions this close (relative) share one event */
#define FS_DEFER_RTOL 1e-2 /* flow ends within this of the first one's FCT: one recomputation */
#define FS_ROOM_RTOL 1e-2  /* ends leaving at most this of each link's capacity: none */
#define FS_AHEAD 8        /* tasks ahead in a queue whose memory is fetched early */
#define FS_FULL_EVERY 256 /* incremental recomputations between full ones */
#define FS_LAZY_AFTER 64  /* full recomputations in a row that stop the bookkeeping */
#define FS_LAZY_RETRY 256 /* full ones after which it is tried again */
#define FS_ESC_AFTER 2     /* grown selections in a row that ended full: the next go full */
#define FS_ESC_RETRY 8     /* ... but every this many a selection is grown again */
#define FS_LEVEL_RTOL 1e-9 /* flows this close (relative) below x0 are refilled too */
#define FS_GROW_RTOL 1e-12 /* slack of the max-min checks at the refilled set's border */
#define FS_GROW_DIV 8 /* a grown selection past 1/this of the active flows: a full pass */

#define wf_item fs_wf_item
#define WF_RADIX_BITS 11
#define WF_RADIX_PASSES 6 /* 6 x 11 >= 64 key bits */
#define WF_RADIX_MIN 1024 /* fewer items: a comparison sort (flowfill.c, wf_merge_sort()) */
#define WF_RUN 16         /* its insertion-sorted runs */
#define WF_AHEAD 16       /* flows ahead in a link's list whose memory is fetched early */

/* A flow's bottleneck record @b becomes link @l at @now (@lk: the links' records):
 * credit the time of the previous one. */
static inline void
ft__fs_bott_move(struct fs_act_bn *b, struct fs_link_st *lk, double now, uint32_t l)
{
	uint32_t old = b->bott;
	double held = now - b->since;

	if (old == l)
		return;
	if (old != FS_NONE && (b->best == FS_NONE || held > b->best_s)) {
		b->best = old;
		b->best_s = held;
	}
	if (old != FS_NONE)
		lk[old].nbott--;
	if (l != FS_NONE)
		lk[l].nbott++;
	b->bott = l;
	b->since = now;
}

/* Active flow @f's bottleneck becomes @l now: credit the time of the previous one. */
static inline void
ft__fs_set_bottleneck(struct fs_sim *s, uint32_t f, uint32_t l)
{
	ft__fs_bott_move(&s->act_bn[f], s->lk, s->now_s, l);
}

/* flowfill.c */
int ft__fs_wf_fill(struct fs_sim *s, uint32_t nsel, bool full) FT_MUST_CHECK;

/* flowgrow.c */
void ft__fs_fin_place(struct fs_sim *s, uint32_t pos, uint32_t f);
void ft__fs_fin_remove(struct fs_sim *s, uint32_t i, uint32_t n);
uint32_t ft__fs_grow_check(struct fs_sim *s, uint32_t n);
int ft__fs_lf_add(struct fs_sim *s, uint32_t i) FT_MUST_CHECK;
void ft__fs_lf_remove(struct fs_sim *s, uint32_t i);
void ft__fs_lf_moved(struct fs_sim *s, uint32_t i);
int ft__fs_rates(struct fs_sim *s) FT_MUST_CHECK;

#endif

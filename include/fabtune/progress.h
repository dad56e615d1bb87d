/* SPDX-License-Identifier: MIT */
/*
 * fabtune/progress.h - progress reporting.
 *
 * The library never prints: long-running calls take an optional
 * struct ft_progress and call ft_progress_update() with work done and total.
 * The CLI attaches a renderer that draws a bar on a terminal (stderr) and
 * stays silent otherwise; tests attach a counter.
 */
#ifndef FABTUNE_PROGRESS_H
#define FABTUNE_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <fabtune/error.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef void ft_progress_fn(void *ud, const char *what, uint64_t done, uint64_t total);

struct ft_progress {
	ft_progress_fn *fn; /* NULL: no reporting */
	void *ud;
};

static inline void
ft_progress_update(const struct ft_progress *p, const char *what, uint64_t done, uint64_t total)
{
	if (p && p->fn)
		p->fn(p->ud, what, done, total);
}

/*
 * A terminal bar renderer: redraws at most every 100 ms, writes to @out
 * (normally stderr) only when it is a terminal, and clears its line when done
 * reaches total.
 */
struct ft_progress_bar {
	FILE *out;
	bool enabled;
	double last_draw_s;
	double start_s;
	int last_len;
};
FT_API void ft_progress_bar_init(struct ft_progress_bar *bar, FILE *out);
FT_API void ft_progress_bar_fn(void *ud, const char *what, uint64_t done, uint64_t total);
FT_API void ft_progress_bar_finish(struct ft_progress_bar *bar);
/* Monotonic clock, seconds. */
FT_API double ft_now_s(void);

#ifdef __cplusplus
}
#endif
#endif

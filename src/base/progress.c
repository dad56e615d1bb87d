/* SPDX-License-Identifier: MIT */
/*
 * base/progress.c - a terminal progress bar for long runs.
 *
 * Draws "what [#####.....] 45% 12s" on one line of a terminal, at most every
 * 100 ms, and nothing at all when the stream is not a terminal, so pipes and
 * golden tests see clean output.
 */
#include "internal.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <fabtune/progress.h>

double
ft_now_s(void)
{
	return ft__clock_s(CLOCK_MONOTONIC);
}

void
ft_progress_bar_init(struct ft_progress_bar *bar, FILE *out)
{
	bar->out = out;
	bar->enabled = out && isatty(fileno(out));
	bar->start_s = ft_now_s();
	bar->last_draw_s = 0;
	bar->last_len = 0;
}

void
ft_progress_bar_fn(void *ud, const char *what, uint64_t done, uint64_t total)
{
	struct ft_progress_bar *bar = ud;
	double now = ft_now_s();
	double frac = total ? (double)done / (double)total : 0;
	char line[128];
	int filled, i, n;

	if (!bar->enabled)
		return;
	if (done < total && now - bar->last_draw_s < 0.1)
		return;
	bar->last_draw_s = now;
	if (frac > 1)
		frac = 1;
	filled = (int)(frac * 30);
	n = snprintf(line, sizeof(line), "%-16.16s [", what ? what : "");
	for (i = 0; i < 30 && n < (int)sizeof(line) - 1; i++)
		line[n++] = i < filled ? '#' : '.';
	line[n] = '\0';
	fprintf(bar->out, "\r%s] %3d%% %.0fs", line, (int)(frac * 100), now - bar->start_s);
	fflush(bar->out);
	bar->last_len = n + 12;
	if (done >= total)
		ft_progress_bar_finish(bar);
}

void
ft_progress_bar_finish(struct ft_progress_bar *bar)
{
	if (!bar->enabled || !bar->last_len)
		return;
	fprintf(bar->out, "\r%*s\r", bar->last_len, "");
	fflush(bar->out);
	bar->last_len = 0;
}

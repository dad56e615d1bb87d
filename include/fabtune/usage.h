/* SPDX-License-Identifier: MIT */
/*
 * fabtune/usage.h - wall-clock time and the CPU usage of a run.
 *
 * A run records when it started on the wall clock (Unix seconds: the time
 * axis of the archive, of exports and reports) and how busy the host was
 * while it ran: the CPU time of the process and its children, the fraction
 * of the host's CPU time that was busy (from /proc/stat), and the 1-minute
 * load average. A baseline taken on a loaded host is then recognisable as
 * such. Durations use the monotonic clock (ft_now_s()), never the wall clock.
 */
#ifndef FABTUNE_USAGE_H
#define FABTUNE_USAGE_H

#include <stdint.h>

#include <fabtune/base.h>
#include <fabtune/result.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The wall clock (CLOCK_REALTIME), Unix seconds. */
FT_API double ft_wall_s(void);

/* One reading of the clocks and CPU counters; compare two with ft_usage_apply(). */
struct ft_usage_sample {
	double wall_s;	     /* ft_wall_s() */
	double mono_s;	     /* ft_now_s() */
	double cpu_s;	     /* user + system CPU of this process and its waited-for children */
	uint64_t host_busy;  /* /proc/stat "cpu" jiffies that were not idle or iowait */
	uint64_t host_total; /* all /proc/stat "cpu" jiffies; 0 when unreadable */
	double load1;	     /* /proc/loadavg first field; NaN when unreadable */
};

FT_API void ft_usage_sample(struct ft_usage_sample *s);

/*
 * Parse the aggregate "cpu " line of /proc/stat text into busy and total
 * jiffies (busy = total - idle - iowait). FT_EPARSE when there is none.
 */
FT_API int ft_usage_parse_stat(const char *text, uint64_t *busy, uint64_t *total) FT_MUST_CHECK;

/*
 * Fill @run's started_s (from @start), wall_s, cpu_s, host_busy (NaN when the
 * host counters did not move) and load1 (from @end).
 */
FT_API void ft_usage_apply(const struct ft_usage_sample *start, const struct ft_usage_sample *end,
                           struct ft_run *run);

#ifdef __cplusplus
}
#endif
#endif

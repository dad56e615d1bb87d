/* SPDX-License-Identifier: MIT */
/*
 * base/usage.c - wall-clock start and CPU usage of a run (fabtune/usage.h).
 *
 * /proc/stat's first line sums every CPU's jiffies by state (user, nice,
 * system, idle, iowait, irq, softirq, steal, ...); the busy share over an
 * interval is 1 - (delta idle + delta iowait) / delta total, the figure top
 * and vmstat show. A host without /proc leaves the share NaN.
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <fabtune/progress.h>
#include <fabtune/usage.h>

double
ft_wall_s(void)
{
	return ft__clock_s(CLOCK_REALTIME);
}

int
ft_usage_parse_stat(const char *text, uint64_t *busy, uint64_t *total)
{
	const char *p = text;
	uint64_t v[10] = { 0 };
	int n = 0;
	char *end;

	while (p && strncmp(p, "cpu ", 4) != 0) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p)
		return FT_EPARSE;
	p += 4;
	while (n < 10) {
		while (*p == ' ')
			p++;
		if (*p < '0' || *p > '9')
			break;
		v[n++] = strtoull(p, &end, 10);
		p = end;
	}
	/* user nice system idle are always there; guest and guest_nice are in user */
	if (n < 4)
		return FT_EPARSE;
	*total = 0;
	for (int i = 0; i < n && i < 8; i++)
		*total += v[i];
	*busy = *total - v[3] - v[4];
	return 0;
}

static void
read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
}

void
ft_usage_sample(struct ft_usage_sample *s)
{
	struct rusage self, kids;
	char buf[4096];
	char *end;

	memset(s, 0, sizeof(*s));
	s->wall_s = ft_wall_s();
	s->mono_s = ft_now_s();
	s->cpu_s = NAN;
	if (getrusage(RUSAGE_SELF, &self) == 0 && getrusage(RUSAGE_CHILDREN, &kids) == 0)
		s->cpu_s = (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
		                    kids.ru_stime.tv_sec) +
		           (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec +
		                    kids.ru_utime.tv_usec + kids.ru_stime.tv_usec) *
		                   1e-6;
	read_small("/proc/stat", buf, sizeof(buf));
	if (ft_usage_parse_stat(buf, &s->host_busy, &s->host_total) < 0)
		s->host_busy = s->host_total = 0;
	read_small("/proc/loadavg", buf, sizeof(buf));
	s->load1 = strtod(buf, &end);
	if (end == buf)
		s->load1 = NAN;
}

void
ft_usage_apply(const struct ft_usage_sample *start, const struct ft_usage_sample *end,
               struct ft_run *run)
{
	run->started_s = start->wall_s;
	run->wall_s = end->mono_s - start->mono_s;
	run->cpu_s = end->cpu_s - start->cpu_s;
	run->host_busy = NAN;
	if (end->host_total > start->host_total && end->host_busy >= start->host_busy)
		run->host_busy = (double)(end->host_busy - start->host_busy) /
		                 (double)(end->host_total - start->host_total);
	run->load1 = end->load1;
}

/* SPDX-License-Identifier: MIT */
/*
 * bench/clock-read.c - what one clock read costs here, in CPU time: the
 * vDSO's clock_gettime() for CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW and
 * CLOCK_REALTIME, and the x86 time-stamp counter read plain (rdtsc), after
 * a fence (lfence; rdtsc) and, where CPUID offers it, as rdtscp with and
 * without a trailing fence. Then what one ping-pong sample costs in clock
 * reads each way: fabtune's clock before this change (one CLOCK_MONOTONIC
 * read a round trip, turned into whole nanoseconds), sockperf's (two plain
 * counter reads a round trip less its base, Mellanox/sockperf at 050f8d6e:
 * src/ticks_os.h os_gettimeofclock/os_gettimeoftsc, src/packet.h
 * setTxTime/setRxTime) and fabtune's after it (one fenced counter read a
 * round trip, src/bench/ticks.c).
 *
 * Each repeat times READS reads of every kind in turn by the thread's CPU
 * time, so that a loaded host's other processes do not count and its
 * speed of the moment falls on every kind alike; prints the median ns a
 * read over REPEATS with the 10th and 90th percentiles, and the ratio of
 * the medians to sockperf's plain rdtsc. Reads are timed hot (back to
 * back, by CPU time) and after a system call (as in a ping-pong, where
 * every read follows a blocking send or receive: each read alone between
 * two fenced counter reads, the mean of the lower 90 % of READS/10 a
 * repeat, and likewise after each reply of a ping-pong over a socket pair
 * with both ends on CPU 0, READS/100 a repeat), and the
 * last table adds up one round trip's reads each way from the second.
 *
 *   cc -O2 -o clock-read bench/clock-read.c
 *   ./clock-read [REPEATS (201)] [READS (20000)]
 *
 * The current clock source is printed from /sys (on a KVM guest kvm-clock,
 * whose vDSO read is a fenced counter read plus the hypervisor's scale and
 * offset from a shared page, under a version check).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu-time.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

typedef uint64_t (*read_fn)(void);

static volatile uint64_t g_sink;

static uint64_t
ts_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t
rd_mono(void)
{
	return ts_ns(CLOCK_MONOTONIC);
}

static uint64_t
rd_mono_raw(void)
{
	return ts_ns(CLOCK_MONOTONIC_RAW);
}

static uint64_t
rd_realtime(void)
{
	return ts_ns(CLOCK_REALTIME);
}

#if defined(__x86_64__)
static uint64_t
rd_tsc(void)
{
	return __rdtsc();
}

static uint64_t
rd_lfence_tsc(void)
{
	_mm_lfence();
	return __rdtsc();
}

static uint64_t
rd_tscp(void)
{
	unsigned aux;

	return __rdtscp(&aux);
}

static uint64_t
rd_tscp_lfence(void)
{
	unsigned aux;
	uint64_t t = __rdtscp(&aux);

	_mm_lfence();
	return t;
}

/* CPUID 0x80000001 EDX bit 27: rdtscp exists (a hypervisor may hide it) */
static int
has_rdtscp(void)
{
	unsigned a, b, c, d;

	return __get_cpuid(0x80000001, &a, &b, &c, &d) && (d >> 27 & 1);
}

/* CPUID 0x80000007 EDX bit 8: the counter is invariant (constant rate, runs in sleep states) */
static int
has_invariant_tsc(void)
{
	unsigned a, b, c, d;

	return __get_cpuid(0x80000007, &a, &b, &c, &d) && (d >> 8 & 1);
}
#endif

/*
 * One round trip's clock work each way, as the loops do it. fabtune before:
 * one CLOCK_MONOTONIC read, kept in whole ns. sockperf: a counter read at
 * the send and one at the reply, each less the base it took at start.
 * fabtune after: one fenced counter read.
 */
static uint64_t base_ticks;

static uint64_t
sample_fabtune_before(void)
{
	return rd_mono();
}

#if defined(__x86_64__)
static uint64_t
sample_sockperf(void)
{
	uint64_t tx = __rdtsc() - base_ticks;
	uint64_t rx = __rdtsc() - base_ticks;

	return rx - tx + tx;
}

static uint64_t
sample_fabtune_after(void)
{
	return rd_lfence_tsc();
}
#endif

#if defined(__x86_64__)
/*
 * The mean of the lower 90 % of @d[0..n) (which it sorts): the counter
 * moves in steps of several ticks on some hypervisors (10 ns here), so a
 * median of single reads lands on a step, while the mean of many reads
 * falls between steps as the reads fall across them; the top 10 % holds
 * the reads an interrupt or a preemption landed in.
 */
static double
trimmed_mean(double *d, long n)
{
	long keep = n - n / 10, i;
	double sum = 0;

	qsort(d, (size_t)n, sizeof(*d), cmp_double);
	for (i = 0; i < keep; i++)
		sum += d[i];
	return keep > 0 ? sum / (double)keep : 0;
}

static uint64_t
rd_none(void)
{
	return 0;
}

/*
 * The same after a system call, as in the ping-pong, where each read
 * follows a blocking send or receive: on a kernel with page-table
 * isolation and no PCID the TLB is empty again on return, and the vDSO's
 * code and data pages are walked anew. Each call of @fn is timed alone,
 * after a getppid() (the cheapest call), between two fenced counter reads;
 * the mean of the lower 90 % of @n such calls, in ticks (a call that a
 * preemption or an interrupt lands in is left out, so the figure holds
 * under load); the bracket itself is the "nothing" row, taken off the
 * others.
 */
static double
ticks_after_syscall(read_fn fn, long n, double *d, uint64_t *sink)
{
	uint64_t s = 0;
	long i;

	for (i = 0; i < n; i++) {
		uint64_t t0, t1;

		s += (uint64_t)syscall(SYS_getppid);
		t0 = rd_lfence_tsc();
		s += fn();
		t1 = rd_lfence_tsc();
		d[i] = (double)(t1 - t0);
	}
	*sink += s;
	return trimmed_mean(d, n);
}

/*
 * The same after a blocking receive that slept: a ping-pong of 14-byte
 * messages with a child over a Unix socket pair, both on CPU 0, so that
 * each receive waits for the child to run (two context switches a round
 * trip, as in a tcp ping-pong with both ends on one CPU). After each reply
 * one call of @fn is timed alone as above; the trimmed mean of @n, ticks.
 * Returns a negative value where the child is gone.
 */
static int pp_fd = -1;

static int
pp_start(void)
{
	int sv[2];
	cpu_set_t one;
	pid_t pid;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		return -1;
	(void)sched_setaffinity(0, sizeof(one), &one);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) { /* echo until the parent closes its end */
		char m[14];

		close(sv[0]);
		while (recv(sv[1], m, sizeof(m), MSG_WAITALL) == (ssize_t)sizeof(m))
			if (send(sv[1], m, sizeof(m), 0) != (ssize_t)sizeof(m))
				break;
		_exit(0);
	}
	close(sv[1]);
	pp_fd = sv[0];
	return 0;
}

static double
ticks_after_reply(read_fn fn, long n, double *d, uint64_t *sink)
{
	char m[14] = { 0 };
	uint64_t s = 0;
	long i;

	for (i = 0; i < n; i++) {
		uint64_t t0, t1;

		if (send(pp_fd, m, sizeof(m), 0) != (ssize_t)sizeof(m) ||
		    recv(pp_fd, m, sizeof(m), MSG_WAITALL) != (ssize_t)sizeof(m))
			return -1;
		t0 = rd_lfence_tsc();
		s += fn();
		t1 = rd_lfence_tsc();
		d[i] = (double)(t1 - t0);
	}
	*sink += s;
	return trimmed_mean(d, n);
}

/* the counter's ns a tick, against CLOCK_MONOTONIC across 0.1 s (sockperf's window) */
static double
ns_per_tick(void)
{
	struct timespec nap = { 0, 100000000 };
	uint64_t n0 = rd_mono(), k0 = rd_lfence_tsc(), n1, k1;

	nanosleep(&nap, NULL);
	n1 = rd_mono();
	k1 = rd_lfence_tsc();
	return (double)(n1 - n0) / (double)(k1 - k0);
}
#endif

struct kind {
	const char *name;
	read_fn fn;
	int group; /* 0 a read, 1 after a system call, 3 after a reply, 2 a round trip's work */
	double *ns; /* ns a call, one a repeat */
	double med, lo, hi;
};

/* CPU seconds of @reads calls of @fn; the sum keeps every read alive */
static double
time_reads(read_fn fn, long reads, uint64_t *sink)
{
	double t0 = cpu_now();
	uint64_t s = 0;
	long i;

	for (i = 0; i < reads; i++)
		s += fn();
	*sink += s;
	return cpu_now() - t0;
}

/* the value at quantile @q of @v[0..n), which is sorted */
static double
pct(const double *v, int n, double q)
{
	return v[(int)(q * (n - 1) + 0.5)];
}

/* ns a call of @k's kind, one repeat; @d is scratch for READS/10 + 1 values */
static double
measure(const struct kind *k, long reads, double tick_ns, double *d, uint64_t *sink)
{
#if defined(__x86_64__)
	if (k->group == 1)
		return ticks_after_syscall(k->fn, reads / 10 + 1, d, sink) * tick_ns;
	if (k->group == 3)
		return ticks_after_reply(k->fn, reads / 100 + 1, d, sink) * tick_ns;
#else
	(void)tick_ns;
	(void)d;
#endif
	return time_reads(k->fn, reads, sink) / (double)reads * 1e9;
}

static const char *const group_head[] = {
	"one read",
	"one read after getppid(), timed alone by the counter, the bracket taken off",
	"the clock work of one round trip",
	"one read after a ping-pong's blocking receive (both ends on CPU 0), likewise",
};

int
main(int argc, char **argv)
{
	int repeats = argc > 1 ? atoi(argv[1]) : 201;
	long reads = argc > 2 ? atol(argv[2]) : 20000;
	struct kind k[16];
	int nk = 0, r, i, g, gi;
	int ref[4] = { -1, -1, -1, -1 }; /* each group's yardstick: sockperf's way */
	int sys_base = -1, pp_base = -1;
	double tick_ns = 0, *d = calloc((size_t)(reads / 10 + 1), sizeof(double));
	uint64_t sink = 0;
	char src[64] = "?";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	if (repeats < 1 || reads < 1) {
		fprintf(stderr, "usage: %s [REPEATS >= 1] [READS >= 1]\n", argv[0]);
		return 2;
	}
	if (f) {
		if (fgets(src, sizeof(src), f))
			src[strcspn(src, "\n")] = '\0';
		fclose(f);
	}
	printf("clocksource %s", src);
#if defined(__x86_64__)
	printf(", invariant TSC %s, rdtscp %s", has_invariant_tsc() ? "yes" : "no",
	       has_rdtscp() ? "yes" : "no");
	base_ticks = __rdtsc();
#endif
	printf("; %d repeats of %ld calls, CPU time\n", repeats, reads);
#define ADD(n, f, g) (k[nk++] = (struct kind){ (n), (f), (g), NULL, 0, 0, 0 })
	ADD("clock_gettime MONOTONIC", rd_mono, 0);
	ADD("clock_gettime MONOTONIC_RAW", rd_mono_raw, 0);
	ADD("clock_gettime REALTIME", rd_realtime, 0);
	ADD("sample: fabtune before (1 MONOTONIC)", sample_fabtune_before, 2);
#if defined(__x86_64__)
	ref[0] = nk;
	ADD("rdtsc (sockperf)", rd_tsc, 0);
	ADD("lfence; rdtsc", rd_lfence_tsc, 0);
	if (has_rdtscp()) {
		ADD("rdtscp", rd_tscp, 0);
		ADD("rdtscp; lfence", rd_tscp_lfence, 0);
	}
	sys_base = nk;
	ADD("nothing (the bracket)", rd_none, 1);
	ADD("clock_gettime MONOTONIC", rd_mono, 1);
	ref[1] = nk;
	ADD("rdtsc (sockperf)", rd_tsc, 1);
	ADD("lfence; rdtsc", rd_lfence_tsc, 1);
	if (pp_start() == 0) {
		pp_base = nk;
		ADD("nothing (the bracket)", rd_none, 3);
		ADD("clock_gettime MONOTONIC", rd_mono, 3);
		ref[3] = nk;
		ADD("rdtsc (sockperf)", rd_tsc, 3);
		ADD("lfence; rdtsc", rd_lfence_tsc, 3);
	}
	tick_ns = ns_per_tick();
	printf("counter: %.1f MHz against CLOCK_MONOTONIC\n", 1e3 / tick_ns);
	ref[2] = nk;
	ADD("sample: sockperf (2 rdtsc - base)", sample_sockperf, 2);
	ADD("sample: fabtune after (lfence; rdtsc)", sample_fabtune_after, 2);
#endif
#undef ADD
	for (i = 0; i < nk; i++) {
		k[i].ns = calloc((size_t)repeats, sizeof(double));
		if (!k[i].ns)
			return 1;
		time_reads(k[i].fn, reads / 10 + 1, &sink); /* warm */
	}
	if (!d)
		return 1;
	for (r = 0; r < repeats; r++)
		for (i = 0; i < nk; i++)
			k[i].ns[r] = measure(&k[i], reads, tick_ns, d, &sink);
	/* after a system call: each repeat less the same repeat's bracket */
	for (i = 0; i < nk; i++)
		if ((k[i].group == 1 && i != sys_base) || (k[i].group == 3 && i != pp_base))
			for (r = 0; r < repeats; r++)
				k[i].ns[r] -= k[k[i].group == 1 ? sys_base : pp_base].ns[r];
#if defined(__x86_64__)
	if (pp_fd >= 0) {
		close(pp_fd);
		wait(NULL);
	}
#endif
	for (i = 0; i < nk; i++) {
		k[i].med = median(k[i].ns, repeats); /* sorts */
		k[i].lo = pct(k[i].ns, repeats, 0.1);
		k[i].hi = pct(k[i].ns, repeats, 0.9);
	}
	for (gi = 0; gi < 4; gi++) {
		g = gi == 2 ? 3 : gi == 3 ? 2 : gi;
		if (g == 3 && pp_base < 0)
			continue;
		printf("\n%s\n%-44s %8s %8s %8s %10s\n", group_head[g], "", "p50 ns", "p10",
		       "p90", g == 2 ? "/ sockperf" : "/ rdtsc");
		for (i = 0; i < nk; i++) {
			if (k[i].group != g)
				continue;
			printf("%-44s %8.2f %8.2f %8.2f", k[i].name, k[i].med, k[i].lo, k[i].hi);
			if (ref[g] >= 0 && i != sys_base && i != pp_base && k[ref[g]].med > 0)
				printf(" %10.3f", k[i].med / k[ref[g]].med);
			printf("\n");
		}
	}
#if defined(__x86_64__)
	/*
	 * In the loop each read follows a blocking call: a round trip's clock
	 * work there is one MONOTONIC read before, two plain counter reads for
	 * sockperf, one fenced counter read after (medians of the rows above).
	 */
	for (g = 1; g <= 3; g += 2) {
		int base = g == 1 ? sys_base : pp_base;
		double before = k[base + 1].med, sp = 2 * k[ref[g]].med;
		double after = k[ref[g] + 1].med;

		if (base < 0)
			continue;
		printf("\nthe clock work of one round trip, each read after %s\n",
		       g == 1 ? "a system call" : "a blocking receive");
		printf("%-44s %8.2f %21s %10.3f\n", "fabtune before (1 MONOTONIC)", before, "",
		       before / sp);
		printf("%-44s %8.2f %21s %10.3f\n", "sockperf (2 rdtsc)", sp, "", 1.0);
		printf("%-44s %8.2f %21s %10.3f\n", "fabtune after (1 lfence; rdtsc)", after, "",
		       after / sp);
		printf("one way, before less sockperf: %.1f ns; after less sockperf: %.1f ns\n",
		       (before - sp) / 2, (after - sp) / 2);
	}
#endif
	g_sink = sink; /* the sums stay live: no read is dropped */
	return 0;
}

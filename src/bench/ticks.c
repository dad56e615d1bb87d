/* SPDX-License-Identifier: MIT */
/*
 * bench/ticks.c - the ping-pong's sample clock: the x86-64 time-stamp
 * counter where the CPU says it is invariant, calibrated once a process
 * against CLOCK_MONOTONIC; CLOCK_MONOTONIC's nanoseconds everywhere else.
 *
 * Why: the loop reads its clock once a round trip, right after a blocking
 * call. There the vDSO's clock_gettime() costs about 61 ns on a KVM guest
 * whose clock source is kvm-clock (a fenced counter read, the
 * hypervisor's scale and offset from a shared page under a version check,
 * and, with page-table isolation and no PCID, the TLB walks for the vDSO's
 * pages emptied by the call), and a fenced counter read about 16 ns; hot,
 * back to back, 26 and 18 ns (bench/clock-read.c; medians 61.2, 15.8,
 * 26.2 and 17.9 ns in docs/internals/bench-log.md, "tcp ping-pong: the
 * clock read inside each sample"). sockperf times its samples with the
 * counter too: two plain reads a round trip, scaled by a rate it measures
 * against CLOCK_MONOTONIC across a 0.1 s sleep at start (Mellanox/sockperf
 * at commit 050f8d6e, src/ticks.cpp get_tsc_rate_per_second,
 * src/ticks_os.h os_gettimeoftsc).
 *
 * The counter is used only for intervals (one process's samples, read on
 * one thread); nothing reported as a date comes from it. The CPU's word
 * (CPUID 0x80000007 EDX bit 8, the source of Linux's constant_tsc and
 * nonstop_tsc flags) is required, so that the rate does not follow the
 * core's frequency or stop in deep sleep states. Each loop checks its
 * whole span against CLOCK_MONOTONIC, each end a paired read
 * (ft__ticks_settle); a loop that disagrees (a hypervisor that changed the
 * rate) is converted at its own measured rate, and a counter that
 * disagrees or gives a sample of 0 or less (cores whose counters are not
 * in step) is dropped for the rest of the process.
 */
#include "bench_int.h"

#include <errno.h>
#include <string.h>
#include <math.h>
#include <pthread.h>
#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

/* pairs read for each end of the calibration; the narrowest is kept */
#define PAIR_TRIES 7
/* the calibration's window: 10 ms keeps a 50 ns bracket at 1e-5 of it */
#define CALIB_WINDOW_S 0.01
/* a counter between 100 MHz and 20 GHz; anything else is not believed */
#define HZ_MIN 1e8
#define HZ_MAX 2e10

static struct ft__ticks clock_once;
static pthread_once_t clock_once_ctl = PTHREAD_ONCE_INIT;
static bool clock_distrusted; /* set once a loop's span disagreed; atomic access */

bool
ft__tsc_invariant(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;

	/* (clang's header returns int, gcc's unsigned: compare as unsigned) */
	if ((unsigned)__get_cpuid_max(0x80000000, NULL) < 0x80000007u)
		return false;
	return __get_cpuid(0x80000007, &a, &b, &c, &d) && (d >> 8 & 1);
#else
	return false;
#endif
}

/*
 * The counter read on each side of CLOCK_MONOTONIC, the pair whose two
 * counter reads lie closest kept (a pair with a preemption or an interrupt
 * in it is wider).
 */
int64_t
ft__ticks_pair(int64_t *tick, int64_t *ns)
{
	int64_t best = INT64_MAX;
	int k;

#if !defined(__x86_64__)
	*tick = *ns = ft__ticks_mono_ns();
	return 0;
#endif
	for (k = 0; k < PAIR_TRIES; k++) {
		int64_t a = ft__tsc_read(), m = ft__ticks_mono_ns(), b = ft__tsc_read();

		if (b >= a && b - a < best) {
			best = b - a;
			*tick = a + (b - a) / 2;
			*ns = m;
		}
	}
	return best;
}

#if defined(__x86_64__)
/* the counter's rate from two pairs @window_s apart; @t unchanged where it is not believed */
static void
calibrate_tsc(struct ft__ticks *t, double window_s)
{
	int64_t k0 = 0, n0 = 0, k1 = 0, n1 = 0, w0, w1;
	struct timespec nap;
	double hz;

	w0 = ft__ticks_pair(&k0, &n0);
	nap.tv_sec = (time_t)window_s;
	nap.tv_nsec = (long)((window_s - (double)nap.tv_sec) * 1e9);
	while (nanosleep(&nap, &nap) != 0 && errno == EINTR)
		;
	w1 = ft__ticks_pair(&k1, &n1);
	if (w0 == INT64_MAX || w1 == INT64_MAX || k1 <= k0 || n1 <= n0)
		return;
	hz = (double)(k1 - k0) / ((double)(n1 - n0) * 1e-9);
	if (!(hz >= HZ_MIN && hz <= HZ_MAX))
		return;
	t->tsc = true;
	t->hz = hz;
	t->ns_per_tick = 1e9 / hz;
	/* each end is known to within half its pair's width */
	t->error = (double)(w0 + w1) / 2 / (double)(k1 - k0);
}
#endif

void
ft__ticks_calibrate(struct ft__ticks *t, bool use_tsc, double window_s)
{
	*t = (struct ft__ticks){ .tsc = false, .ns_per_tick = 1.0, .hz = 0, .error = 0 };
#if defined(__x86_64__)
	if (use_tsc && window_s > 0)
		calibrate_tsc(t, window_s);
#else
	(void)use_tsc;
	(void)window_s;
#endif
}

static void
clock_init(void)
{
	ft__ticks_calibrate(&clock_once, ft__tsc_invariant(), CALIB_WINDOW_S);
}

struct ft__ticks
ft__ticks_get(void)
{
	struct ft__ticks t;

	pthread_once(&clock_once_ctl, clock_init);
	t = clock_once;
	if (t.tsc && __atomic_load_n(&clock_distrusted, __ATOMIC_RELAXED))
		ft__ticks_calibrate(&t, false, 0);
	return t;
}

bool
ft__ticks_agree(const struct ft__ticks *t, int64_t ticks, int64_t ns)
{
	double span = (double)ticks * t->ns_per_tick, off = fabs(span - (double)ns);

	return ticks >= 0 && ns >= 0 &&
	       off <= FT__TICKS_AGREE_REL * (double)ns + FT__TICKS_AGREE_NS;
}

void
ft__ticks_distrust(void)
{
	__atomic_store_n(&clock_distrusted, true, __ATOMIC_RELAXED);
}

double
ft__ticks_settle(const struct ft__ticks *clk, int64_t ticks, int64_t ns, const double *samples,
                 uint32_t n)
{
	uint32_t i;

	if (!clk->tsc)
		return clk->ns_per_tick;
	for (i = 0; i < n && samples[i] > 0; i++)
		;
	if (i == n && ft__ticks_agree(clk, ticks, ns))
		return clk->ns_per_tick;
	ft__ticks_distrust();
	if (i < n || ticks <= 0 || ns <= 0)
		return 0;
	return (double)ns / (double)ticks;
}

void
ft__bench_clock_describe(struct ft_bench_clock *c, const struct ft__ticks *clk)
{
	*c = (struct ft_bench_clock){ .hz = NAN, .error = NAN };
	ft_strlcpy(c->source, clk->tsc ? "tsc" : "monotonic", sizeof(c->source));
	if (clk->tsc) {
		c->hz = clk->hz;
		c->error = clk->error;
	}
}

void
ft__bench_clock_note(struct ft_bench_clock *c, const struct ft__ticks *clk, double ns_per_tick)
{
	if (!c->source[0] || !c->loops)
		ft__bench_clock_describe(c, clk);
	c->loops++;
	if (!clk->tsc && strcmp(c->source, "tsc") == 0)
		c->loops_monotonic++;
	else if (clk->tsc && ns_per_tick != clk->ns_per_tick)
		c->loops_own_rate++;
}

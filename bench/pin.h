/* SPDX-License-Identifier: MIT */
/*
 * bench/pin.h - pinning a thread of the stand-alone C benchmarks under bench/
 * to one CPU. Header-only, so that each still builds with one cc line; the
 * including file defines _GNU_SOURCE before its first include.
 */
#ifndef BENCH_PIN_H
#define BENCH_PIN_H

#include <pthread.h>
#include <sched.h>

/* Pin the calling thread to @cpu; a CPU it may not run on leaves it unpinned. */
static void
pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

#endif

/* SPDX-License-Identifier: MIT */
/*
 * bench/nap.c - waiting on a condition nobody can ring: poll it, and between
 * polls first pause the CPU, then sleep, longer each time, up to a bound.
 *
 * Some waits have no file descriptor or futex to sleep on: the MPI
 * bootstrap's collective (world.c's mpi_coll_wait) and the requests an
 * abandoned mpi endpoint drains (mpi.c's mpi_abandon) progress only while
 * the rank calls into MPI, so the rank polls. sched_yield() between polls
 * does not give the core away politely: beside a busy process on the same
 * CPU, CFS lets that process run out its whole slice (milliseconds) before
 * the poller comes back, and on an idle core it gives nothing at all and the
 * poll burns the CPU. A nap pauses for FT__NAP_PAUSES polls (an answer that
 * is microseconds away is caught at once), then sleeps FT__NAP_MIN_NS,
 * doubling each time up to FT__NAP_MAX_NS: once the condition holds, the
 * waiter notices it within FT__NAP_MAX_NS plus the kernel's timer slack and
 * its wake-up; a waiter that waits long costs about 1,000 wake-ups a
 * second. ft__nap_reset() starts again from pauses when work arrives.
 *
 * Waits that yield on purpose keep sched_yield(): they copy what the peer
 * they are measured against does (nccl.c: nccl-tests yields between stream
 * queries; mpi.c's mpi_wait on an oversubscribed host: Open MPI's
 * mpi_yield_when_idle).
 */
#include "bench_int.h"

#include <errno.h>
#include <time.h>

uint64_t
ft__nap_step(struct ft__nap *n)
{
	uint64_t ns;

	if (n->pauses < FT__NAP_PAUSES) {
		n->pauses++;
		return 0;
	}
	ns = n->sleep_ns ? n->sleep_ns : FT__NAP_MIN_NS;
	n->sleep_ns = ns >= FT__NAP_MAX_NS / 2 ? FT__NAP_MAX_NS : ns * 2;
	return ns;
}

uint64_t
ft__nap(struct ft__nap *n)
{
	uint64_t ns = ft__nap_step(n);
	struct timespec ts;

	if (ns == 0) {
		ft__cpu_relax();
		return 0;
	}
	ts.tv_sec = (time_t)(ns / 1000000000u);
	ts.tv_nsec = (long)(ns % 1000000000u);
	/* a signal cuts the nap short: the caller polls, and sees its stop flag */
	(void)nanosleep(&ts, NULL);
	return ns;
}

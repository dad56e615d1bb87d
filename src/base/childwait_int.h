/* SPDX-License-Identifier: MIT */
/*
 * base/childwait_int.h - sleeping until a child process changes state or a
 * deadline passes, with no timer in between (bench/spawn.c's launcher, the
 * doctor's local ranks).
 *
 * A launcher that polled waitpid(WNOHANG) every 20 ms woke 50 times a second
 * for the whole run. Here it sleeps in one ppoll() on a pidfd per child
 * (readable once that child has exited, whoever else runs in the process)
 * and on a signalfd for SIGCHLD, which also says when a child stops
 * (SIGSTOP, SIGTSTP, a debugger's attach) or continues. The timeout of that
 * ppoll() is the caller's deadline to the nanosecond, so a grace period or a
 * kill deadline ends when it is due, not at the next 20 ms tick.
 *
 * While the watch is open SIGCHLD is blocked in the calling thread (its
 * handler, if any, does not run: the watch reads it). Open it after the
 * children are forked, so that they do not inherit the mask. The caller still
 * reaps with waitpid() and tells the watch which child went.
 */
#ifndef FT_BASE_CHILDWAIT_INT_H
#define FT_BASE_CHILDWAIT_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct ft_error;

struct ft__childwait {
	int sigfd;       /* signalfd for SIGCHLD, or -1 */
	int *pidfd;      /* one per child, -1 once forgotten or where pidfd_open failed */
	size_t n;
	sigset_t oldmask; /* the thread's mask before, given back at close */
	bool masked;
	unsigned long nwakes; /* ppoll() returns so far: what a test counts */
};

/*
 * Watch the @n children in @pids (entries <= 0 are skipped). FT_EIO when
 * neither a pidfd nor the signalfd could be had (then no wait is possible);
 * FT_ENOMEM. On failure nothing stays open and the mask is as it was.
 */
int ft__childwait_open(struct ft__childwait *cw, const pid_t *pids, size_t n,
                       struct ft_error *err);
/* Child @i was reaped (or is no longer of interest): stop watching it. */
void ft__childwait_forget(struct ft__childwait *cw, size_t i);
/*
 * Sleep until a watched child exits, any child stops or continues, a signal
 * is caught, or the monotonic clock (ft_now_s) reaches @deadline (<= 0: no
 * deadline). 1 when something came (the caller looks with waitpid() and the
 * children's states), 0 at the deadline, FT_EINTR for a caught signal.
 */
int ft__childwait_wait(struct ft__childwait *cw, double deadline);
/* Close the descriptors and give the thread its signal mask back. */
void ft__childwait_close(struct ft__childwait *cw);

#endif

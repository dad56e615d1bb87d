/* SPDX-License-Identifier: MIT */
/*
 * base/childwait.c - sleeping until a child process changes state or a
 * deadline passes (childwait_int.h): ppoll() on a pidfd per child and a
 * signalfd for SIGCHLD, its timeout the deadline itself.
 */
#include "internal.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>

#include "base/childwait_int.h"

static int
open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

int
ft__childwait_open(struct ft__childwait *cw, const pid_t *pids, size_t n, struct ft_error *err)
{
	sigset_t chld;
	bool any_pidfd = false;
	size_t i;

	memset(cw, 0, sizeof(*cw));
	cw->sigfd = -1;
	cw->n = n;
	cw->pidfd = n ? ft_calloc(n, sizeof(*cw->pidfd)) : NULL;
	if (n && !cw->pidfd)
		return ft_error_set(err, FT_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		cw->pidfd[i] = pids[i] > 0 ? open_pidfd(pids[i]) : -1;
		if (cw->pidfd[i] >= 0) {
			fcntl(cw->pidfd[i], F_SETFD, FD_CLOEXEC);
			any_pidfd = true;
		}
	}
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (pthread_sigmask(SIG_BLOCK, &chld, &cw->oldmask) == 0) {
		cw->masked = true;
		cw->sigfd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
	}
	if (cw->sigfd < 0 && !any_pidfd) {
		int e = errno;

		ft__childwait_close(cw);
		return ft_error_set(err, FT_EIO, "waiting for child processes: signalfd: %s",
		                    strerror(e));
	}
	return 0;
}

void
ft__childwait_forget(struct ft__childwait *cw, size_t i)
{
	if (i < cw->n && cw->pidfd[i] >= 0) {
		close(cw->pidfd[i]);
		cw->pidfd[i] = -1;
	}
}

int
ft__childwait_wait(struct ft__childwait *cw, double deadline)
{
	struct pollfd fds[65];
	struct pollfd *p = fds;
	struct timespec ts, *tsp = NULL;
	size_t i, k = 0;
	int rc;

	if (cw->n + 1 > FT_ARRAY_SIZE(fds)) {
		p = ft_calloc(cw->n + 1, sizeof(*p));
		if (!p)
			return FT_ENOMEM;
	}
	if (cw->sigfd >= 0)
		p[k++] = (struct pollfd){ .fd = cw->sigfd, .events = POLLIN };
	for (i = 0; i < cw->n; i++)
		if (cw->pidfd[i] >= 0)
			p[k++] = (struct pollfd){ .fd = cw->pidfd[i], .events = POLLIN };
	if (deadline > 0) {
		double left = deadline - ft__clock_s(CLOCK_MONOTONIC);

		if (left < 0)
			left = 0;
		ts.tv_sec = (time_t)left;
		/* rounded up: the wait never ends before the deadline */
		ts.tv_nsec = (long)ceil((left - (double)ts.tv_sec) * 1e9);
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		tsp = &ts;
	}
	rc = ppoll(p, (nfds_t)k, tsp, NULL);
	cw->nwakes++;
	if (rc > 0 && cw->sigfd >= 0 && (p[0].revents & POLLIN)) {
		struct signalfd_siginfo si[8];

		/* drained: what changed is read from waitpid() and /proc, not from here */
		while (read(cw->sigfd, si, sizeof(si)) > 0)
			;
	}
	if (p != fds)
		ft_free(p);
	if (rc < 0)
		return errno == EINTR ? FT_EINTR : FT_EIO;
	return rc > 0 ? 1 : 0;
}

void
ft__childwait_close(struct ft__childwait *cw)
{
	size_t i;

	for (i = 0; i < cw->n; i++)
		if (cw->pidfd && cw->pidfd[i] >= 0)
			close(cw->pidfd[i]);
	ft_free(cw->pidfd);
	cw->pidfd = NULL;
	cw->n = 0;
	if (cw->sigfd >= 0)
		close(cw->sigfd);
	cw->sigfd = -1;
	if (cw->masked)
		pthread_sigmask(SIG_SETMASK, &cw->oldmask, NULL);
	cw->masked = false;
}

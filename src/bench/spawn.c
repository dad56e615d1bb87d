/* SPDX-License-Identifier: MIT */
/*
 * bench/spawn.c - starting ranks: `--np N` on one host, and the worlds that
 * srun and torchrun describe.
 *
 * ft_bench_spawn() makes this process a small launcher: it fork/execs N
 * ranks of its own executable (`/proc/self/exe bench ARGS --rank R --nranks
 * N --bootstrap 127.0.0.1:PORT`), rank 0 inheriting the bootstrap listener
 * (FABTUNE_BOOTSTRAP_FD), and watches them. The first rank that fails is
 * named and the others get a short grace to report before they are killed; a
 * rank stopped (SIGSTOP, SIGTSTP) for longer than the timeout is named by
 * its process state, which only the launcher sees, and ends the run.
 */
#include "bench_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fabtune/launch.h>

#include "base/childwait_int.h"

#define SPAWN_EXIT_RUNTIME 3 /* a rank killed by a signal: the CLI's runtime failure */
#define STOPPED(sp)        ((sp)->stop && *(sp)->stop)

static pid_t *volatile child_pids;
static volatile size_t nchildren;

void
ft_bench_spawn_signal(int sig)
{
	size_t i;

	for (i = 0; i < nchildren; i++)
		if (child_pids && child_pids[i] > 0)
			kill(child_pids[i], sig);
}

static void FT_PRINTF(2, 3) say(const struct ft_bench_spawn *sp, const char *fmt, ...)
{
	char msg[FT_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (sp->say)
		sp->say(sp->say_ud, msg);
}

/*
 * A rank gave up: name the ranks that are stopped, not dead, which no peer
 * can tell apart from a slow or hung one (a peer names only the rank it
 * waited on).
 */
static void
name_stopped(uint32_t n, const struct ft_bench_spawn *sp)
{
	uint32_t r;

	for (r = 0; r < n; r++)
		if (child_pids[r] > 0 && ft__bench_pid_stopped(child_pids[r]))
			say(sp,
			    "rank %u (pid %d) is stopped (not running, not dead): "
			    "it is the one that stopped answering",
			    r, (int)child_pids[r]);
}

/*
 * Note when each live rank was first seen stopped; a rank stopped for longer
 * than @timeout (a little longer than its peers wait, so that they report
 * first) is named, and every rank is killed, the stopped one included
 * (SIGKILL ends a stopped process). True when that happened.
 */
/* Whether every rank still alive is stopped. */
static bool
all_stopped(uint32_t n)
{
	uint32_t r;

	for (r = 0; r < n; r++)
		if (child_pids[r] > 0 && !ft__bench_pid_stopped(child_pids[r]))
			return false;
	return true;
}

/*
 * When the first rank seen stopped will have been stopped for longer than
 * @timeout (watch_stopped() ends the run then), or 0 when none is stopped:
 * a stop or continue wakes the launcher by SIGCHLD, so no other time is due.
 */
static double
stop_due(uint32_t n, const double *since, double timeout)
{
	double due = 0;
	uint32_t r;

	for (r = 0; since && r < n; r++)
		if (child_pids[r] > 0 && since[r] > 0 &&
		    (due == 0 || since[r] + timeout + 0.5 < due))
			due = since[r] + timeout + 0.5;
	return due;
}

static bool
watch_stopped(uint32_t n, double *since, double timeout, const struct ft_bench_spawn *sp)
{
	double now = ft_now_s();
	uint32_t r;

	for (r = 0; r < n; r++) {
		if (child_pids[r] <= 0 || !ft__bench_pid_stopped(child_pids[r])) {
			since[r] = 0;
			continue;
		}
		if (since[r] == 0)
			since[r] = now;
		if (now - since[r] < timeout + 0.5)
			continue;
		say(sp,
		    "rank %u (pid %d) is stopped (not running, not dead) for %.0fs "
		    "(--timeout): it is the one that stopped answering; ending the run",
		    r, (int)child_pids[r], now - since[r]);
		for (r = 0; r < n; r++)
			if (child_pids[r] > 0)
				kill(child_pids[r], SIGKILL);
		return true;
	}
	return false;
}

int
ft_bench_spawn(const struct ft_bench_spawn *sp, struct ft_error *err)
{
	uint32_t n = sp->nranks, r, alive;
	int argc = sp->argc;
	char **argv = sp->argv;
	char port_s[64], rank_s[16], n_s[16];
	int lfd = -1, rc, worst = 0, rank0_rc = -1;
	uint16_t port = 0;
	double deadline = 0;
	char **args;
	int first_bad = -1;
	bool killed_by_us = false;
	double timeout = sp->timeout_s > 0 ? sp->timeout_s : 30, *stopped_since;
	bool deadline_now = false, watching;
	struct ft__childwait cw;

	rc = ft_bench_listen("127.0.0.1", &lfd, &port, err);
	if (rc < 0)
		return rc;
	snprintf(port_s, sizeof(port_s), "127.0.0.1:%u", (unsigned)port);
	snprintf(n_s, sizeof(n_s), "%u", n);
	args = ft_calloc((size_t)argc + 9, sizeof(*args));
	child_pids = ft_calloc(n, sizeof(*child_pids));
	if (!args || !child_pids) {
		ft_free(args);
		ft_free(child_pids);
		child_pids = NULL;
		close(lfd);
		return ft_error_set(err, FT_ENOMEM, "out of memory");
	}
	fflush(stdout);
	fflush(stderr);
	for (r = 0; r < n; r++) {
		pid_t pid = fork();

		if (pid < 0) {
			say(sp, "fork: %s", strerror(errno));
			break;
		}
		if (pid == 0) {
			int k = 0, a;

			args[k++] = (char *)"fabtune";
			args[k++] = (char *)"bench";
			for (a = 0; a < argc; a++)
				args[k++] = argv[a];
			snprintf(rank_s, sizeof(rank_s), "%u", r);
			args[k++] = (char *)"--rank";
			args[k++] = rank_s;
			args[k++] = (char *)"--nranks";
			args[k++] = n_s;
			args[k++] = (char *)"--bootstrap";
			args[k++] = port_s;
			args[k] = NULL;
			if (r == 0) {
				char fd_s[16];

				snprintf(fd_s, sizeof(fd_s), "%d", lfd);
				fcntl(lfd, F_SETFD, 0); /* rank 0 inherits the listener */
				setenv("FABTUNE_BOOTSTRAP_FD", fd_s, 1);
			} else {
				close(lfd);
			}
			execv("/proc/self/exe", args);
			say(sp, "exec of rank %u failed: %s", r, strerror(errno));
			_exit(SPAWN_EXIT_RUNTIME);
		}
		child_pids[r] = pid;
		nchildren = r + 1;
	}
	close(lfd);
	ft_free(args);
	alive = (uint32_t)nchildren;
	if (nchildren < n) {
		for (r = 0; r < nchildren; r++)
			kill(child_pids[r], SIGTERM);
	}
	/*
	 * Watch the ranks. The first that fails is named, and the rest get a short
	 * grace to report (they stalled when it did, so their own --timeout runs
	 * out with its). A rank stopped for longer than --timeout (SIGSTOP,
	 * SIGTSTP) is named by its process state, which only this launcher sees,
	 * and ends the run: every rank is gone within --timeout and a second.
	 * Between events the launcher sleeps (base/childwait_int.h): a rank's
	 * exit, stop or continue wakes it, and so does the next deadline, to the
	 * nanosecond; nothing else does.
	 */
	stopped_since = ft_calloc(n, sizeof(*stopped_since));
	watching = ft__childwait_open(&cw, (const pid_t *)child_pids, nchildren, NULL) == 0;
	while (alive > 0) {
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);

		if (pid == 0) {
			double wake;

			if (stopped_since && deadline == 0 &&
			    watch_stopped(n, stopped_since, timeout, sp)) {
				killed_by_us = true;
				first_bad = first_bad < 0 ? 0 : first_bad;
				deadline = ft_now_s() + FT_MIN(timeout, 1.0);
			}
			if (deadline > 0 && !all_stopped(n))
				deadline_now = false;
			else if (deadline > 0)
				deadline_now = true; /* only stopped ranks left: none will report */
			if (deadline > 0 && (deadline_now || ft_now_s() >= deadline)) {
				/* the survivors had their timeout to notice: stop the rest */
				for (r = 0; r < nchildren; r++)
					if (child_pids[r] > 0)
						kill(child_pids[r], SIGKILL);
				killed_by_us = true;
				deadline = 0;
				continue;
			}
			/* sleep until a rank exits, stops or continues, or the next thing is due */
			wake = deadline > 0 ? deadline : stop_due(n, stopped_since, timeout);
			if (!watching || ft__childwait_wait(&cw, wake) < 0) {
				struct timespec ts = { 0, 20 * 1000 * 1000 };

				/* no watch (or it failed): look again shortly */
				nanosleep(&ts, NULL);
			}
			continue;
		}
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (r = 0; r < nchildren; r++)
			if (child_pids[r] == pid)
				break;
		if (r == nchildren)
			continue;
		child_pids[r] = -1;
		if (watching)
			ft__childwait_forget(&cw, r);
		alive--;
		if (WIFSIGNALED(status) && WTERMSIG(status) != SIGINT && !STOPPED(sp)) {
			if (!killed_by_us)
				say(sp, "rank %u (pid %d) was killed by signal %d (%s)", r,
				    (int)pid, WTERMSIG(status), strsignal(WTERMSIG(status)));
			rc = SPAWN_EXIT_RUNTIME;
		} else if (WIFSIGNALED(status)) {
			rc = SPAWN_EXIT_RUNTIME;
		} else {
			rc = WEXITSTATUS(status);
		}
		if (r == 0)
			rank0_rc = rc;
		if (rc > worst)
			worst = rc;
		if (rc != 0 && first_bad < 0) {
			first_bad = (int)r;
			if (!STOPPED(sp))
				name_stopped((uint32_t)nchildren, sp);
			/* they stalled with it: a short grace to report, then we stop them */
			deadline = ft_now_s() + FT_MIN(timeout, 1.0);
		}
	}
	if (watching)
		ft__childwait_close(&cw);
	ft_free(stopped_since);
	/* the signal handler reads the list: empty it before it goes */
	nchildren = 0;
	{
		pid_t *gone = child_pids;

		child_pids = NULL;
		ft_free(gone);
	}
	return rank0_rc > 0 ? rank0_rc : worst;
}

/*
 * The world the launcher describes (fabtune/launch.h) when no --rank was
 * given: srun without PMI is refused (MPI would see N worlds of one rank);
 * torchrun's tasks join fabtune's bootstrap at MASTER_ADDR, port
 * MASTER_PORT + 1 (torchrun's own store holds MASTER_PORT), unless
 * --bootstrap says otherwise.
 */
int
ft_bench_world_from_launcher(struct ft_world_cfg *wc, bool bootstrap_given, struct ft_error *err)
{
	struct ft_launch l;
	int rc = ft_launch_detect(NULL, &l, err);

	if (rc < 0)
		return rc;
	if (l.launcher == FT_LAUNCHER_SLURM && l.size > 1) {
		return ft_error_set(
		        err, FT_EINVAL,
		        "srun started %u tasks (%s) without PMI, so they cannot find each other: "
		        "run srun --mpi=pmix (or pmi2), or launch with --rank, --nranks and "
		        "--bootstrap",
		        l.size, l.vars);
	}
	if (l.launcher == FT_LAUNCHER_TORCHRUN && l.size > 1) {
		const char *colon = strrchr(l.master, ':');
		uint64_t port = 0;

		if (!bootstrap_given &&
		    (!colon || ft_parse_u64(colon + 1, &port) < 0 || port >= 65535)) {
			return ft_error_set(
			        err, FT_EINVAL,
			        "torchrun started %u tasks (%s) but MASTER_ADDR/MASTER_PORT do not "
			        "name rank 0 ('%s'): set them or pass --bootstrap ADDR:PORT",
			        l.size, l.vars, l.master);
		}
		wc->rank = l.rank;
		wc->nranks = l.size;
		if (!bootstrap_given)
			snprintf(wc->bootstrap, sizeof(wc->bootstrap), "%.*s:%u",
			         (int)(colon - l.master), l.master, (unsigned)port + 1);
	}
	return 0;
}

uint32_t
ft_bench_launcher_rank(void)
{
	struct ft_launch l;

	return ft_launch_detect(NULL, &l, NULL) == 0 ? l.rank : 0;
}

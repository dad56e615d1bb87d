/* SPDX-License-Identifier: MIT */
/*
 * bench/world.c - joining the ranks: fabtune's TCP bootstrap or MPI.
 *
 * Bootstrap (like NCCL's): rank 0 listens on a known ADDR:PORT; every other
 * rank opens its own data listener on the address picked by --ifname,
 * connects to rank 0 and sends its struct ft_rank_info; rank 0 checks the
 * ranks are distinct and agree on the world size, then sends everyone the
 * full table. The connections to rank 0 stay open as the control plane (a
 * star) for barriers and small gathers of results. Under mpirun the same
 * control operations go through MPI_COMM_WORLD.
 */
#include "bench_int.h"

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/socket.h>

#if FT_HAVE_MPI
#include <mpi.h>
#endif

#define BOOT_MAGIC 0x66746231u /* "ftb1" */

struct boot_hello {
	uint32_t magic;
	uint32_t rank;
	uint32_t nranks;
	uint32_t pad;
	struct ft_rank_info info;
};

void
ft_world_cfg_init(struct ft_world_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->nranks = 1;
	cfg->bootstrap_fd = -1;
	cfg->timeout_s = 30;
}

/* An MPI launcher started us (fabtune/launch.h); srun without PMI and torchrun are not. */
bool
ft_world_launched_by_mpi(void)
{
	struct ft_launch l;

	return ft_launch_detect(NULL, &l, NULL) == 0 && l.mpi && ft_launch_is_parallel(&l);
}

static int
local_numa(void)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int cpu = sched_getcpu(), node = -1;

	if (cpu < 0)
		return -1;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL) {
		uint64_t v;

		if (strncmp(de->d_name, "node", 4) == 0 && ft_parse_u64(de->d_name + 4, &v) == 0) {
			node = (int)v;
			break;
		}
	}
	closedir(d);
	return node;
}

static void
add_devices(char *out, size_t len, const char *dir, const char *prefix)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	size_t used = strlen(out);

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		int n;

		if (de->d_name[0] == '.' || strncmp(de->d_name, prefix, strlen(prefix)) != 0)
			continue;
		if (strcmp(prefix, "nvidia") == 0 && !isdigit((unsigned char)de->d_name[6]))
			continue;
		n = snprintf(out + used, len - used, "%s%s", used ? "," : "", de->d_name);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	closedir(d);
}

void
ft_rank_info_local(struct ft_rank_info *info)
{
	memset(info, 0, sizeof(*info));
	if (gethostname(info->host, sizeof(info->host) - 1) < 0)
		ft_strlcpy(info->host, "localhost", sizeof(info->host));
	info->pid = (int32_t)getpid();
	info->numa = local_numa();
	add_devices(info->devices, sizeof(info->devices), "/sys/class/infiniband", "");
	add_devices(info->devices, sizeof(info->devices), "/dev", "nvidia");
}

int
ft_bench_listen(const char *addr, int *fd_out, uint16_t *port_out, struct ft_error *err)
{
	return ft__sock_listen(addr, 0, fd_out, port_out, err);
}

const char *
ft__world_who(const struct ft_world *w, uint32_t rank, char *buf, size_t len)
{
	if (w && w->info && rank < w->nranks && w->info[rank].host[0])
		snprintf(buf, len, "rank %u (host %s)", rank, w->info[rank].host);
	else
		snprintf(buf, len, "rank %u", rank);
	return buf;
}

/*
 * Whether process @pid of this host is stopped by a signal (SIGSTOP,
 * SIGTSTP: state T in /proc/PID/stat). A tracing stop (t: a debugger, or a
 * sanitizer's leak check suspending the process as it exits) is not: the
 * process resumes by itself or is being looked at, and killing it as hung
 * would be wrong.
 */
bool
ft__bench_pid_stopped(int32_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* "PID (COMM) STATE ...": COMM may hold spaces and parentheses */
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'T';
}

int
ft__world_stopped_rank(const struct ft_world *w)
{
	uint32_t r;

	if (!w || !w->info)
		return -1;
	for (r = 0; r < w->nranks; r++)
		if (r != w->rank && w->info[r].pid > 0 &&
		    strcmp(w->info[r].host, w->info[w->rank].host) == 0 &&
		    ft__bench_pid_stopped(w->info[r].pid))
			return (int)r;
	return -1;
}

uint32_t
ft_world_rank(const struct ft_world *w)
{
	return w->rank;
}

uint32_t
ft_world_size(const struct ft_world *w)
{
	return w->nranks;
}

const struct ft_rank_info *
ft_world_info(const struct ft_world *w, uint32_t rank)
{
	return rank < w->nranks ? &w->info[rank] : NULL;
}

int
ft_world_allgather(struct ft_world *w, const void *in, size_t len, void *out,
                   struct ft_error *err)
{
	return ft__world_allgather(w, in, len, out, err);
}

static int
open_data_listener(struct ft_world *w, const char *ifname, struct ft_rank_info *me,
                   struct ft_error *err)
{
	int rc;

	rc = ft__pick_address(ifname, me->addr, sizeof(me->addr), me->ifname, sizeof(me->ifname),
	                      err);
	if (rc < 0)
		return rc;
	return ft__sock_listen(me->addr, 0, &w->data_listen_fd, &me->port, err);
}

/* Rank 0: accept everyone, check, send the table. */
static int
boot_root(struct ft_world *w, const struct ft_world_cfg *cfg, double deadline,
          struct ft_error *err)
{
	uint32_t got = 1, r;
	int rc;

	while (got < w->nranks) {
		struct boot_hello h;
		int fd;

		rc = ft__sock_accept(w->boot_listen_fd, deadline, w->stop, &fd, err);
		if (rc == FT_ETIMEDOUT) {
			char missing[128] = "";

			ft_error_clear(err);
			size_t used = 0;
			for (r = 1; r < w->nranks && used < sizeof(missing) - 12; r++)
				if (w->ctrl_fd[r] < 0)
					used += (size_t)snprintf(missing + used,
					                         sizeof(missing) - used, "%s%u",
					                         used ? "," : "", r);
			if (cfg->leaf_name)
				return ft_error_set(err, FT_ETIMEDOUT,
				                    "no %s connected to %s within %.0fs",
				                    cfg->leaf_name, cfg->bootstrap, w->timeout_s);
			return ft_error_set(err, FT_ETIMEDOUT,
			                    "bootstrap: %u of %u ranks joined within %.0fs "
			                    "(missing ranks %s)",
			                    got, w->nranks, w->timeout_s, missing);
		}
		if (rc < 0)
			return rc;
		rc = ft__sock_recv_all(fd, &h, sizeof(h), deadline, "a joining rank", w->stop, err);
		if (rc < 0) {
			close(fd);
			return rc;
		}
		h.info.host[sizeof(h.info.host) - 1] = '\0';
		if (h.magic != BOOT_MAGIC) {
			close(fd);
			continue; /* not one of ours: ignore */
		}
		if (h.nranks != w->nranks || h.rank == 0 || h.rank >= w->nranks ||
		    w->ctrl_fd[h.rank] >= 0) {
			close(fd);
			return ft_error_set(err, FT_EINVAL,
			                    "bootstrap: host %s says it is rank %u of %u, but this "
			                    "world has %u ranks%s",
			                    h.info.host, h.rank, h.nranks, w->nranks,
			                    h.rank < w->nranks && h.rank &&
			                                    w->ctrl_fd[h.rank] >= 0 ?
			                            " and that rank already joined" :
			                            "");
		}
		w->ctrl_fd[h.rank] = fd;
		w->info[h.rank] = h.info;
		w->info[h.rank].rank = h.rank;
		got++;
	}
	for (r = 1; r < w->nranks; r++) {
		char who[96];

		rc = ft__sock_send_all(w->ctrl_fd[r], w->info, sizeof(*w->info) * w->nranks,
		                       deadline, ft__world_who(w, r, who, sizeof(who)), w->stop,
		                       err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int
boot_leaf(struct ft_world *w, const struct ft_world_cfg *cfg, double deadline, struct ft_error *err)
{
	const char *root = cfg->root_name ? cfg->root_name : "rank 0 (bootstrap)";
	struct boot_hello h;
	char host[96];
	uint16_t port;
	int rc;

	w->ctrl_fd = ft_calloc(1, sizeof(int));
	if (!w->ctrl_fd)
		return FT_ENOMEM;
	w->ctrl_fd[0] = -1;
	rc = ft__parse_hostport(cfg->bootstrap, host, sizeof(host), &port, err);
	if (rc < 0)
		return rc;
	rc = ft__sock_connect(host, port, deadline, root, w->stop, &w->ctrl_fd[0], err);
	if (rc < 0)
		return rc;
	memset(&h, 0, sizeof(h));
	h.magic = BOOT_MAGIC;
	h.rank = w->rank;
	h.nranks = w->nranks;
	h.info = w->info[w->rank];
	rc = ft__sock_send_all(w->ctrl_fd[0], &h, sizeof(h), deadline, root, w->stop, err);
	if (rc < 0)
		return rc;
	return ft__sock_recv_all(w->ctrl_fd[0], w->info, sizeof(*w->info) * w->nranks, deadline,
	                         root, w->stop, err);
}

#if FT_HAVE_MPI
static int
world_mpi(struct ft_world *w, struct ft_error *err)
{
	int flag = 0, rank = 0, size = 1;

	MPI_Initialized(&flag);
	if (!flag) {
		int provided;

		if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
			return ft_error_set(err, FT_EMPI, "MPI_Init failed");
		w->mpi_inited_here = true;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	{
		struct ft_launch l;

		/* The launcher said N, MPI says 1: another MPI's mpirun, or srun without PMI. */
		if (ft_launch_detect(NULL, &l, NULL) == 0 && l.size > 1 && size == 1)
			return ft_error_set(err, FT_EMPI,
			                    "the environment says %u processes (%s, %s) but MPI sees a "
			                    "world of 1: this fabtune's MPI is not the launcher's, or "
			                    "srun passed no PMI (try srun --mpi=pmix)",
			                    l.size, ft_launcher_name(l.launcher), l.vars);
	}
	w->rank = (uint32_t)rank;
	w->nranks = (uint32_t)size;
	w->mpi = true;
	return 0;
}
#endif

int
ft_world_new(const struct ft_world_cfg *cfg, struct ft_world **out, struct ft_error *err)
{
	struct ft_world *w;
	struct ft_rank_info me;
	double deadline;
	uint32_t r;
	int rc;

	*out = NULL;
	w = ft_calloc(1, sizeof(*w));
	if (!w)
		return FT_ENOMEM;
	w->boot_listen_fd = -1;
	w->data_listen_fd = -1;
	w->timeout_s = cfg->timeout_s > 0 ? cfg->timeout_s : 30;
	w->failed = -1;
	ft_vec_init(&w->orphans, sizeof(struct ft__orphan));
	w->stop = cfg->stop;
	deadline = ft__now() + w->timeout_s;
	if (cfg->use_mpi) {
#if FT_HAVE_MPI
		rc = world_mpi(w, err);
		if (rc < 0)
			goto fail;
#else
		rc = ft_error_set(err, FT_ENOTSUP,
		                  "launched by mpirun, but this fabtune was "
		                  "built without MPI");
		goto fail;
#endif
	} else {
		if (cfg->nranks == 0 || cfg->rank >= cfg->nranks) {
			rc = ft_error_set(err, FT_EINVAL, "--rank %u is not below --nranks %u",
			                  cfg->rank, cfg->nranks);
			goto fail;
		}
		if (cfg->nranks > 1 && !cfg->bootstrap[0] && cfg->bootstrap_fd < 0) {
			rc = ft_error_set(err, FT_EINVAL,
			                  "--nranks %u needs --bootstrap ADDR:PORT of rank 0",
			                  cfg->nranks);
			goto fail;
		}
		w->rank = cfg->rank;
		w->nranks = cfg->nranks;
	}
	w->info = ft_calloc(w->nranks, sizeof(*w->info));
	if (!w->info) {
		rc = FT_ENOMEM;
		goto fail;
	}
	ft_rank_info_local(&me);
	me.rank = w->rank;
	rc = open_data_listener(w, cfg->ifname, &me, err);
	if (rc < 0)
		goto fail;
	w->info[w->rank] = me;
	if (w->mpi) {
#if FT_HAVE_MPI
		rc = ft__world_allgather(w, &me, sizeof(me), w->info, err);
		if (rc < 0)
			goto fail;
#endif
	} else if (w->nranks > 1 && w->rank == 0) {
		w->ctrl_fd = ft_calloc(w->nranks, sizeof(int));
		if (!w->ctrl_fd) {
			rc = FT_ENOMEM;
			goto fail;
		}
		for (r = 0; r < w->nranks; r++)
			w->ctrl_fd[r] = -1;
		if (cfg->bootstrap_fd >= 0) {
			w->boot_listen_fd = cfg->bootstrap_fd;
		} else {
			char host[96];
			uint16_t port;

			rc = ft__parse_hostport(cfg->bootstrap, host, sizeof(host), &port, err);
			if (rc < 0)
				goto fail;
			rc = ft__sock_listen(host, port, &w->boot_listen_fd, NULL, err);
			if (rc < 0) {
				ft_error_prefix(err, "bootstrap: ");
				goto fail;
			}
		}
		rc = boot_root(w, cfg, deadline, err);
		close(w->boot_listen_fd);
		w->boot_listen_fd = -1;
		if (rc < 0)
			goto fail;
	} else if (w->nranks > 1) {
		rc = boot_leaf(w, cfg, deadline, err);
		if (rc < 0)
			goto fail;
	}
	*out = w;
	return 0;
fail:
	ft_world_free(w);
	return rc;
}

void
ft__world_orphan(struct ft_world *w, const struct ft_ep *ep, void *p, size_t len,
                 enum ft__mem kind)
{
	struct ft__orphan o = { p, len, kind, ep };

	/* out of memory, or no world: the block is never released, which is safe */
	if (w && p && kind != FT__MEM_KEEP && ft_vec_push(&w->orphans, &o) < 0)
		return;
}

static void
orphan_free(const struct ft__orphan *o)
{
	if (o->kind == FT__MEM_MAP)
		munmap(o->p, o->len);
	else
		ft_free(o->p);
}

void
ft__world_orphan_release(struct ft_world *w, size_t i)
{
	struct ft__orphan *o = ft_vec_at(&w->orphans, i);

	orphan_free(o);
	*o = *(struct ft__orphan *)ft_vec_at(&w->orphans, w->orphans.len - 1);
	w->orphans.len--;
}

#if FT_HAVE_MPI
static void
orphans_release(struct ft_world *w)
{
	size_t i;

	for (i = 0; i < w->orphans.len; i++)
		orphan_free(ft_vec_at(&w->orphans, i));
	w->orphans.len = 0;
}
#endif

void
ft_world_free(struct ft_world *w)
{
	uint32_t r;

	if (!w)
		return;
	ft__bench_drop_kept(w);
	if (w->ctrl_fd) {
		uint32_t n = w->rank == 0 ? w->nranks : 1;

		for (r = 0; r < n; r++)
			if (w->ctrl_fd[r] >= 0)
				close(w->ctrl_fd[r]);
		ft_free(w->ctrl_fd);
	}
	if (w->boot_listen_fd >= 0)
		close(w->boot_listen_fd);
	if (w->data_listen_fd >= 0)
		close(w->data_listen_fd);
#if FT_HAVE_MPI
	if (w->mpi_inited_here) {
		int fin = 0;

		MPI_Finalized(&fin);
		if (!fin)
			MPI_Finalize();
	}
	/* MPI is done with the orphans only once finalized; under a caller's MPI they stay */
	if (w->mpi_inited_here)
		orphans_release(w);
#endif
	ft_vec_release(&w->orphans);
	ft_free(w->info);
	ft_free(w);
}

void
ft_world_abort(struct ft_world *w, int code)
{
#if FT_HAVE_MPI
	if (w && w->mpi)
		MPI_Abort(MPI_COMM_WORLD, code);
#else
	FT_UNUSED(w);
	FT_UNUSED(code);
#endif
}

/* MPI tag of the notices ft_world_fail sends: point-to-point, apart from the collectives */
#define FAIL_TAG 0x6674

void
ft_world_fail(struct ft_world *w, const char *why)
{
	if (!w || w->failed >= 0)
		return; /* told already, or telling */
	w->failed = (int)w->rank;
	ft_strlcpy(w->failed_why, why && *why ? why : "failed", sizeof(w->failed_why));
#if FT_HAVE_MPI
	if (w->mpi) {
		uint32_t r;

		/* small enough to be sent eagerly: nobody needs to be listening */
		for (r = 0; r < w->nranks; r++) {
			MPI_Request mr;

			if (r != w->rank &&
			    MPI_Isend(w->failed_why, (int)strlen(w->failed_why) + 1, MPI_CHAR, (int)r,
			              FAIL_TAG, MPI_COMM_WORLD, &mr) == MPI_SUCCESS)
				MPI_Request_free(&mr);
		}
	}
#endif
}

bool
ft_world_failed(const struct ft_world *w)
{
	return w && w->failed >= 0;
}

/* Under MPI: has a notice of a failed rank come (ft_world_fail)? Then w->failed is set. */
static bool
notice_came(struct ft_world *w)
{
#if FT_HAVE_MPI
	MPI_Status st;
	int flag = 0;

	if (!w->mpi || w->failed >= 0)
		return w->failed >= 0;
	if (MPI_Iprobe(MPI_ANY_SOURCE, FAIL_TAG, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS || !flag)
		return false;
	if (MPI_Recv(w->failed_why, (int)sizeof(w->failed_why), MPI_CHAR, st.MPI_SOURCE, FAIL_TAG,
	             MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS)
		ft_strlcpy(w->failed_why, "failed", sizeof(w->failed_why));
	w->failed_why[sizeof(w->failed_why) - 1] = '\0';
	w->failed = st.MPI_SOURCE;
	return true;
#else
	return w->failed >= 0;
#endif
}

/* The error of a collective on a world with a failed rank: it names the rank and its words. */
static int
failed_error(const struct ft_world *w, struct ft_error *err)
{
	char who[96];

	if (w->failed == (int)w->rank)
		return ft_error_set(err, FT_EPEER,
		                    "no collective after this rank failed (%s)", w->failed_why);
	return ft_error_set(err, FT_EPEER, "%s failed: %s",
	                    ft__world_who(w, (uint32_t)w->failed, who, sizeof(who)), w->failed_why);
}

int
ft__world_peer_failed(struct ft_world *w, struct ft_error *err)
{
	if (w->failed == (int)w->rank || !notice_came(w))
		return 0;
	return failed_error(w, err);
}

#if FT_HAVE_MPI
/*
 * Poll the collective @mr until it completes, a peer's failure notice comes,
 * or @deadline. Between tests the rank naps (nap.c): pauses, then sleeps of
 * 1 us doubling to 1 ms. It used to call sched_yield() after 4,096 tests,
 * which beside a busy process hands it the core for a whole slice, and on
 * an idle core burns it; a bootstrap wait for a rank that starts late (a
 * slow host, a debugger) now sleeps instead, and notices the answer within
 * a millisecond.
 */
static int
mpi_coll_wait(struct ft_world *w, MPI_Request *mr, double deadline, struct ft_error *err)
{
	struct ft__nap nap = { 0 };
	char who[96];
	int flag = 0, stopped;

	for (;;) {
		if (MPI_Test(mr, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return ft_error_set(err, FT_EMPI, "MPI_Iallgather failed");
		if (flag)
			return 0;
		/* the checks below cost a clock read: once per sleep, not per pause */
		if (ft__nap(&nap) == 0)
			continue;
		if (w->stop && *w->stop)
			return ft_error_set(err, FT_EINTR, "interrupted");
		/* a rank that failed and went on never joins: its notice says so */
		if (notice_came(w))
			return failed_error(w, err);
		if (ft__now() <= deadline)
			continue;
		stopped = ft__world_stopped_rank(w);
		if (stopped >= 0)
			return ft_error_set(err, FT_ETIMEDOUT,
			                    "%s is stopped (SIGSTOP or a debugger) and stopped "
			                    "answering: no reply for %.0fs (--timeout)",
			                    ft__world_who(w, (uint32_t)stopped, who, sizeof(who)),
			                    w->timeout_s);
		return ft_error_set(err, FT_ETIMEDOUT,
		                    "a rank stopped answering: no reply for %.0fs (--timeout)",
		                    w->timeout_s);
	}
}

/*
 * The allgather under MPI: non-blocking, polled against the deadline, so a
 * stopped or failed rank cannot hang us. A collective this rank gives up on
 * is not over for the MPI library: there is no cancelling one (MPI 4.0,
 * 3.8.4: MPI_Cancel and MPI_Request_free are erroneous on a collective's
 * request), and every later call into MPI, MPI_Finalize included, may go on
 * with it: copy a live peer's block into the receive buffer, or send from
 * the send buffer. With 3+ ranks and one of them failed, a peer's block may
 * come after we gave up: written into the caller's buffer, freed by then, it
 * corrupted the heap (glibc's "corrupted double-linked list" at finalize).
 * So the collective sends from and receives into a block of its own, copied
 * out when it completes, else kept in w->orphans until MPI_Finalize.
 */
static int
mpi_allgather(struct ft_world *w, const void *in, size_t len, void *out, double deadline,
              struct ft_error *err)
{
	struct ft__orphan o = { NULL, len * (w->nranks + 1), FT__MEM_HEAP };
	MPI_Request mr;
	char *blk;
	int rc;

	if (len > INT_MAX / (w->nranks + 1))
		return FT_ERANGE;
	blk = o.p = ft_malloc(o.len);
	/* its place among the orphans is taken first: nothing can fail once it is posted */
	if (!blk || ft_vec_push(&w->orphans, &o) < 0) {
		ft_free(blk);
		return FT_ENOMEM;
	}
	memcpy(blk, in, len);
	if (MPI_Iallgather(blk, (int)len, MPI_BYTE, blk + len, (int)len, MPI_BYTE, MPI_COMM_WORLD,
	                   &mr) != MPI_SUCCESS)
		return ft_error_set(err, FT_EMPI, "MPI_Iallgather failed");
	rc = mpi_coll_wait(w, &mr, deadline, err);
	if (rc == 0) {
		memcpy(out, blk + len, len * w->nranks);
		w->orphans.len--;
		ft_free(blk);
	}
	return rc;
}
#endif

int
ft__world_allgather(struct ft_world *w, const void *in, size_t len, void *out, struct ft_error *err)
{
	double deadline = ft__now() + w->timeout_s;
	char who[96];
	uint32_t r;
	int rc;

	if (w->nranks == 1) {
		memmove(out, in, len);
		return 0;
	}
	if (notice_came(w))
		return failed_error(w, err);
#if FT_HAVE_MPI
	if (w->mpi)
		return mpi_allgather(w, in, len, out, deadline, err);
#endif
	if (w->rank != 0) {
		rc = ft__sock_send_all(w->ctrl_fd[0], in, len, deadline,
		                       ft__world_who(w, 0, who, sizeof(who)), w->stop, err);
		if (rc == 0)
			rc = ft__sock_recv_all(w->ctrl_fd[0], out, len * w->nranks, deadline, who,
			                       w->stop, err);
		return rc;
	}
	memmove(out, in, len);
	for (r = 1; r < w->nranks; r++) {
		rc = ft__sock_recv_all(w->ctrl_fd[r], (char *)out + r * len, len, deadline,
		                       ft__world_who(w, r, who, sizeof(who)), w->stop, err);
		if (rc < 0)
			return rc;
	}
	for (r = 1; r < w->nranks; r++) {
		rc = ft__sock_send_all(w->ctrl_fd[r], out, len * w->nranks, deadline,
		                       ft__world_who(w, r, who, sizeof(who)), w->stop, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

uint32_t
ft__world_local(const struct ft_world *w, uint32_t *index)
{
	uint32_t r, n = 0;

	for (r = 0; r < w->nranks; r++) {
		if (r == w->rank && index)
			*index = n;
		n += strcmp(w->info[r].host, w->info[w->rank].host) == 0;
	}
	return n;
}

int
ft__world_barrier(struct ft_world *w, struct ft_error *err)
{
	char one = 1;
	char *all = ft_malloc(w->nranks);
	int rc;

	if (!all)
		return FT_ENOMEM;
	rc = ft__world_allgather(w, &one, 1, all, err);
	ft_free(all);
	return rc;
}

int
ft__world_bcast(struct ft_world *w, void *buf, size_t len, uint32_t root, struct ft_error *err)
{
	char *all = ft_calloc(w->nranks, len ? len : 1);
	int rc;

	if (!all)
		return FT_ENOMEM;
	rc = ft__world_allgather(w, buf, len, all, err);
	if (rc == 0)
		memcpy(buf, all + (size_t)root * len, len);
	ft_free(all);
	return rc;
}

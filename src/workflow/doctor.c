/* SPDX-License-Identifier: MIT */
/*
 * workflow/doctor.c - the doctor loop: probe, benchmark, expectations,
 * diagnosis, archive and baseline, returned as one struct ft_doctor_result.
 *
 * 1. probe this host (under mpirun/srun every host, gathered at rank 0);
 * 2. run a short benchmark suite (point-to-point latency and bandwidth, an
 *    all_reduce sweep) over every transport this machine offers, with local
 *    ranks forked here (or the MPI ranks);
 * 3. take the analytic model's expectations for the given or detected cluster;
 * 4. diagnose (the rules read the probe's and the benchmark's observations);
 * 5. save the run in the archive;
 * 6. compare it with this host's baseline (the first run becomes it).
 * Whatever cannot be checked becomes a note with the reason, archived as a
 * `doctor.unchecked` observation. Nothing here prints: the caller renders.
 */
#include "internal.h"

#include <signal.h>
#include <sys/wait.h>

#include <fabtune/bench.h>
#include <fabtune/launch.h>
#include <fabtune/model.h>
#include <fabtune/probe.h>
#include <fabtune/usage.h>
#include <fabtune/workflow.h>

#include "base/childwait_int.h"
#include "workflow/workflow_int.h"

/* One step of the benchmark suite (the same list on every rank). */
struct suite_item {
	char transport[16];
	enum ft_op pattern;
	uint64_t min_bytes, max_bytes, factor;
	uint32_t iters, warmup;
};

struct doctor {
	const struct ft_doctor_cfg *cfg;
	const struct ft_progress *progress; /* NULL in forked ranks: only rank 0 draws */
	volatile sig_atomic_t *stop;
	struct ft_doctor_result *res;
	struct ft_vec suite; /* struct suite_item */
	int mpi_rank;	     /* this process's MPI rank (0 without MPI) */
	struct ft_world *world; /* MPI world (under mpirun), else NULL */
	struct rank_usage *usage; /* under MPI, on rank 0: every rank's, in rank order */
};

/* One rank's CPU use and its host's over the doctor's run: what host.cpu_foreign needs. */
struct rank_usage {
	char host[64];
	double wall_s, cpu_s;
	double host_busy; /* the host's busy share of its CPU time; NaN unknown */
	double ncpus;
};

static int note(struct doctor *d, const char *what, const char *fmt, ...) FT_PRINTF(3, 4);

/* Say what could not be checked and why (a note, then a doctor.unchecked observation). */
static int
note(struct doctor *d, const char *what, const char *fmt, ...)
{
	struct ft_doctor_note u;
	va_list ap;

	memset(&u, 0, sizeof(u));
	ft_strlcpy(u.what, what, sizeof(u.what));
	va_start(ap, fmt);
	vsnprintf(u.why, sizeof(u.why), fmt, ap);
	va_end(ap);
	return ft_vec_push(&d->res->notes, &u) < 0 ? FT_ENOMEM : 0;
}

static int
oom(struct ft_error *err)
{
	return ft_error_set(err, FT_ENOMEM, "doctor: out of memory");
}

static bool
stopped(const struct doctor *d)
{
	return d->stop && *d->stop;
}

static void
result_init(struct ft_doctor_result *res, const struct ft_doctor_cfg *cfg)
{
	memset(res, 0, sizeof(*res));
	ft_archive_record_init(&res->rec);
	ft_run_init(&res->rec.run, FT_SOURCE_BENCH, "doctor");
	ft_findings_init(&res->findings);
	ft_vec_init(&res->notes, sizeof(struct ft_doctor_note));
	ft_vec_init(&res->expect, sizeof(struct ft_expectation));
	ft_run_init(&res->model, FT_SOURCE_MODEL, "model");
	ft_vec_init(&res->base, sizeof(struct ft_archive_record));
	res->nranks = cfg->np;
	res->plateau_busbw_GBps = NAN;
	res->root = true;
}

void
ft_doctor_result_release(struct ft_doctor_result *res)
{
	ft_archive_record_release(&res->rec);
	ft_findings_release(&res->findings);
	ft_vec_release(&res->notes);
	ft_vec_release(&res->expect);
	ft_run_release(&res->model);
	ft_archive_records_release(&res->base);
	free(res->bruns);
	res->bruns = NULL;
	if (res->have_cmp)
		ft_compare_release(&res->cmp);
	res->have_cmp = false;
}

static void
step(struct doctor *d, const char *what, uint64_t done, uint64_t total)
{
	ft_progress_update(d->progress, what, done, total);
}

/* ---- 1. probe -------------------------------------------------------------------- */

/* Is there an observation before @i with the same key, host and device (another rank's)? */
static bool
seen_before(const struct ft_obs_set *set, size_t i)
{
	const struct ft_obs *o = ft_obs_set_at(set, i);
	size_t j;

	for (j = 0; j < i; j++) {
		const struct ft_obs *p = ft_obs_set_at(set, j);

		if (strcmp(p->key, o->key) == 0 && strcmp(p->host, o->host) == 0 &&
		    strcmp(p->device, o->device) == 0)
			return true;
	}
	return false;
}

/* What the probe saw: GPUs, RDMA devices, hosts. */
static void
count_probe(struct doctor *d)
{
	struct ft_doctor_result *res = d->res;
	const struct ft_obs_set *set = &res->rec.obs;
	size_t i, j;

	for (i = 0; i < res->nprobe_obs; i++) {
		const struct ft_obs *o = ft_obs_set_at(set, i);
		bool first_host = o->host[0] != '\0';

		if (i == 0 && o->host[0] && d->cfg->root)
			ft_strlcpy(res->host, o->host, sizeof(res->host));
		/* several MPI ranks on one host each report its GPUs and HCAs: count them once */
		if (strcmp(o->key, "gpu.count") == 0 && o->has_num && !seen_before(set, i))
			res->ngpus += o->num;
		else if (strcmp(o->key, "gpu.model") == 0 && !res->gpu_model[0])
			ft_strlcpy(res->gpu_model, o->str, sizeof(res->gpu_model));
		else if (strcmp(o->key, "ib.dev.nports") == 0 && !seen_before(set, i))
			res->nrdma++;
		for (j = 0; j < i && first_host; j++)
			if (strcmp(ft_obs_set_at(set, j)->host, o->host) == 0)
				first_host = false;
		if (first_host)
			res->nhosts++;
	}
	if (res->nhosts == 0)
		res->nhosts = 1;
}

static int
probe(struct doctor *d, struct ft_error *err)
{
	struct ft_doctor_result *res = d->res;
	struct ft_probe_cfg cfg = { 0 };
	struct ft_error perr = { 0 };
	int rc, rank = 0;

	cfg.root = d->cfg->root ? d->cfg->root : "/";
	cfg.run_tools = !d->cfg->no_tools && strcmp(cfg.root, "/") == 0;
	rc = ft_probe_host(&cfg, &res->rec.obs, &perr);
	if (rc == FT_ENOMEM) {
		*err = perr;
		return rc;
	}
	if (rc < 0 && note(d, "probe", "%s", ft_error_msg(&perr, rc)) < 0)
		return oom(err);
	if (res->under_mpi) {
		rc = ft_probe_mpi_gather(&res->rec.obs, &rank, err);
		if (rc < 0)
			return rc;
		d->mpi_rank = rank;
	}
	if (gethostname(res->host, sizeof(res->host)) != 0)
		ft_strlcpy(res->host, "localhost", sizeof(res->host));
	res->host[sizeof(res->host) - 1] = '\0';
	res->nprobe_obs = ft_obs_set_len(&res->rec.obs);
	count_probe(d);
	if (!res->under_mpi &&
	    note(d, "other hosts",
	         "not started by mpirun or srun: only this host was probed and measured "
	         "(mpirun -np N fabtune doctor checks every host)") < 0)
		return oom(err);
	return 0;
}

/* ---- 2. benchmark ---------------------------------------------------------------- */

static bool
have_transport(const struct ft_doctor_result *res, const char *name)
{
	size_t i;

	for (i = 0; i < res->ntransports; i++)
		if (strcmp(res->transports[i], name) == 0)
			return true;
	return false;
}

static int
add_transport(struct doctor *d, const char *name, struct ft_error *err)
{
	struct ft_doctor_result *res = d->res;

	if (have_transport(res, name))
		return 0;
	if (res->ntransports == FT_DOCTOR_MAX_TRANSPORTS)
		return ft_error_set(err, FT_EINVAL, "--transports: at most %d transports",
		                    FT_DOCTOR_MAX_TRANSPORTS);
	ft_strlcpy(res->transports[res->ntransports++], name, sizeof(res->transports[0]));
	return 0;
}

/* Is @name usable here? If not, note why (optional ones) or fail (asked for by name). */
static int
try_transport(struct doctor *d, const char *name, bool asked, struct ft_error *err)
{
	const struct ft_transport_ops *t = ft_transport_find(name);
	const struct ft_doctor_result *res = d->res;
	struct ft_bench_cfg cfg;
	struct ft_error terr = { 0 };
	int rc;

	if (!t)
		return ft_error_set(err, FT_EINVAL,
		                    "--transports: unknown transport '%s' (tcp, shm, mpi, verbs, nccl)",
		                    name);
	ft_bench_cfg_init(&cfg);
	ft_strlcpy(cfg.transport, name, sizeof(cfg.transport));
	rc = t->probe ? t->probe(&cfg, &terr) : 0;
	if (rc == 0 && strcmp(name, "nccl") == 0 && !res->under_mpi && res->ngpus < res->nranks)
		rc = ft_error_set(&terr, FT_ENOTSUP, "%g GPU%s on this host for %u local ranks",
		                  res->ngpus, res->ngpus == 1 ? "" : "s", res->nranks);
	if (rc == 0 && strcmp(name, "shm") == 0 && res->under_mpi && res->nhosts > 1)
		rc = ft_error_set(&terr, FT_ENOTSUP, "ranks on %zu hosts", res->nhosts);
	if (rc == 0)
		return add_transport(d, name, err);
	if (asked)
		return ft_error_set(err, FT_EINVAL, "--transports %s: %s", name,
		                    ft_error_msg(&terr, rc));
	return note(d, name, "%s", ft_error_msg(&terr, rc)) < 0 ? oom(err) : 0;
}

static int
pick_transports(struct doctor *d, struct ft_error *err)
{
	static const char *const local[] = { "shm", "tcp", "verbs", "nccl" };
	static const char *const mpi[] = { "tcp", "mpi", "shm", "verbs", "nccl" };
	const char *const *list = d->res->under_mpi ? mpi : local;
	size_t i, n = d->res->under_mpi ? FT_ARRAY_SIZE(mpi) : FT_ARRAY_SIZE(local);
	int rc;

	if (d->cfg->transports) {
		char buf[128], *save = NULL, *tok;

		ft_strlcpy(buf, d->cfg->transports, sizeof(buf));
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if ((rc = try_transport(d, tok, true, err)) < 0)
				return rc;
		return 0;
	}
	for (i = 0; i < n; i++)
		if ((rc = try_transport(d, list[i], false, err)) < 0)
			return rc;
	return 0;
}

/* The suite: per transport, latency, bandwidth and an all_reduce sweep (quick or full). */
static int
build_suite(struct doctor *d)
{
	bool full = d->cfg->full;
	size_t t;

	for (t = 0; t < d->res->ntransports; t++) {
		struct suite_item it[3] = {
			{ .pattern = FT_OP_PT2PT_LAT,
			  .min_bytes = 8,
			  .max_bytes = full ? 65536 : 4096,
			  .factor = full ? 4 : 8,
			  .iters = full ? 1000 : 200,
			  .warmup = full ? 100 : 20 },
			/* messages (perftest's -n): 20 or 10 windows of 64 */
			{ .pattern = FT_OP_PT2PT_BW,
			  .min_bytes = full ? 4096 : 65536,
			  .max_bytes = full ? 64u << 20 : 4u << 20,
			  .factor = 4,
			  .iters = full ? 1280 : 640,
			  .warmup = full ? 5 : 2 },
			{ .pattern = FT_OP_ALL_REDUCE,
			  .min_bytes = full ? 8192 : 65536,
			  .max_bytes = full ? 64u << 20 : 4u << 20,
			  .factor = 4,
			  .iters = full ? 20 : 10,
			  .warmup = full ? 5 : 2 },
		};
		size_t k;

		for (k = 0; k < FT_ARRAY_SIZE(it); k++) {
			ft_strlcpy(it[k].transport, d->res->transports[t], sizeof(it[k].transport));
			if (ft_vec_push(&d->suite, &it[k]) < 0)
				return FT_ENOMEM;
		}
	}
	return 0;
}

static void
item_cfg(const struct doctor *d, const struct suite_item *it, struct ft_bench_cfg *cfg)
{
	ft_bench_cfg_init(cfg);
	cfg->pattern = it->pattern;
	ft_strlcpy(cfg->transport, it->transport, sizeof(cfg->transport));
	cfg->min_bytes = it->min_bytes;
	cfg->max_bytes = it->max_bytes;
	cfg->step_factor = it->factor;
	cfg->iters = it->iters;
	cfg->warmup = it->warmup;
	cfg->timeout_s = d->cfg->timeout_s;
	cfg->stop = d->stop;
	ft_bench_cfg_resolve(cfg);
}

/* After a failure at item @i: note it, and the items not run after it. */
static int
note_failure(struct doctor *d, size_t i, const char *what, int rc, const struct ft_error *berr)
{
	int ret = 0;

	d->res->nbench_failed++;
	d->res->interrupted = rc == FT_EINTR;
	if (note(d, what, "%s", ft_error_msg(berr, rc)) < 0)
		ret = FT_ENOMEM;
	/* the rest of the suite needs every rank in step */
	for (size_t k = i + 1; k < d->suite.len; k++) {
		const struct suite_item *n = ft_vec_at(&d->suite, k);

		if (note(d, "bench", "%s %s: not run after the failure above", n->transport,
		         ft_op_name(n->pattern)) < 0)
			ret = FT_ENOMEM;
	}
	return ret;
}

/* Rank 0 keeps a finished item's rows, and their observations. */
static int
keep_rows(struct doctor *d, const struct suite_item *it, struct ft_bench_report *rep)
{
	char file[48];
	size_t r;
	int rc = 0;

	d->res->nbench_ok++;
	snprintf(file, sizeof(file), "bench:%s/%s", it->transport,
	         ft_op_name(it->pattern));
	for (r = 0; r < ft_run_nrows(&rep->run) && rc == 0; r++) {
		struct ft_result_row *row = ft_run_row(&rep->run, r);

		if (!row->transport[0])
			ft_strlcpy(row->transport, rep->transport, sizeof(row->transport));
		rc = ft_run_add(&d->res->rec.run, row);
	}
	if (rc == 0)
		rc = ft_diag_obs_from_run(&rep->run, file, &d->res->rec.obs);
	return rc;
}

/*
 * Run the suite on this rank of @w. Rank 0 keeps the rows and observations;
 * the other ranks only take part. The first failure ends the suite on every
 * rank (their peers are gone or out of step). Only FT_ENOMEM is an error:
 * a failed benchmark is a note.
 */
static int
run_suite(struct doctor *d, struct ft_world *w)
{
	uint32_t me = ft_world_rank(w);
	size_t i;
	int rc = 0;

	d->res->nranks = ft_world_size(w);
	for (i = 0; i < d->suite.len && !stopped(d); i++) {
		const struct suite_item *it = ft_vec_at(&d->suite, i);
		struct ft_bench_report rep;
		struct ft_bench_cfg cfg;
		struct ft_error berr = { 0 };
		char what[64];

		snprintf(what, sizeof(what), "doctor: %s %s", it->transport,
		         ft_op_name(it->pattern));
		if (me == 0)
			step(d, what, i, d->suite.len);
		item_cfg(d, it, &cfg);
		ft_bench_report_init(&rep);
		rc = ft_bench_run(w, &cfg, &rep, &berr);
		if (rc < 0) {
			/* the others may still be measuring: tell them, never leave them waiting */
			ft_world_fail(w, ft_error_msg(&berr, rc));
			rc = me == 0 ? note_failure(d, i, what + 8, rc, &berr) : 0;
			ft_bench_report_release(&rep);
			break;
		}
		if (me == 0)
			rc = keep_rows(d, it, &rep);
		ft_bench_report_release(&rep);
		if (rc < 0)
			break;
	}
	if (me == 0)
		step(d, "doctor: bench", d->suite.len, d->suite.len);
	return rc == FT_ENOMEM ? rc : 0;
}

/* A forked rank: join the world, run the suite, exit (never returns). */
static void
child_rank(struct doctor *d, struct ft_world_cfg *wc, uint32_t r)
{
	struct ft_error err = { 0 };
	struct ft_world *w = NULL;
	int code = 0;

	d->progress = NULL; /* only rank 0 draws */
	wc->rank = r;
	if (ft_world_new(wc, &w, &err) == 0) {
		if (run_suite(d, w) < 0)
			code = 3;
		ft_world_free(w);
	} else {
		code = 3;
	}
	_exit(code);
}

/*
 * Wait for the forked ranks, killing those still there --timeout + 2 s after
 * rank 0 got here. The wait sleeps until a rank exits or that deadline comes
 * (base/childwait_int.h), with no tick in between.
 */
static void
reap(const struct doctor *d, pid_t *pids, uint32_t started)
{
	double deadline = ft_now_s() + d->cfg->timeout_s + 2;
	struct ft__childwait cw;
	bool watching = ft__childwait_open(&cw, pids, started, NULL) == 0;
	uint32_t r, left = started;

	while (left > 0) {
		for (r = 0; r < started; r++) {
			int status = 0;

			if (pids[r] > 0 && waitpid(pids[r], &status, WNOHANG) != 0) {
				pids[r] = -1;
				left--;
				if (watching)
					ft__childwait_forget(&cw, r);
			}
		}
		if (left == 0 || ft_now_s() >= deadline)
			break;
		if (!watching || ft__childwait_wait(&cw, deadline) < 0) {
			struct timespec ts = { 0, 20 * 1000 * 1000 };

			nanosleep(&ts, NULL); /* no watch (or it failed): look again shortly */
		}
	}
	for (r = 0; r < started; r++) {
		if (pids[r] > 0) {
			int status = 0;

			kill(pids[r], SIGKILL);
			waitpid(pids[r], &status, 0);
		}
	}
	if (watching)
		ft__childwait_close(&cw);
}

/* Local ranks: this process is rank 0; ranks 1..N-1 are forked children. */
static int
bench_local(struct doctor *d)
{
	struct ft_world_cfg wc;
	struct ft_world *w = NULL;
	struct ft_error err = { 0 };
	pid_t pids[64];
	uint32_t n = d->res->nranks, r, started = 0;
	uint16_t port = 0;
	int lfd = -1, rc;

	if (n > FT_ARRAY_SIZE(pids))
		n = FT_ARRAY_SIZE(pids);
	rc = ft_bench_listen("127.0.0.1", &lfd, &port, &err);
	if (rc < 0)
		return note(d, "bench", "%s", ft_error_msg(&err, rc));
	ft_world_cfg_init(&wc);
	wc.nranks = n;
	snprintf(wc.bootstrap, sizeof(wc.bootstrap), "127.0.0.1:%u", (unsigned)port);
	wc.timeout_s = d->cfg->timeout_s;
	wc.stop = d->stop;
	fflush(stdout);
	fflush(stderr);
	for (r = 1; r < n; r++) {
		pid_t pid = fork();

		if (pid < 0) {
			rc = note(d, "bench", "fork: %s", strerror(errno));
			break;
		}
		if (pid == 0) {
			close(lfd);
			child_rank(d, &wc, r);
		}
		pids[started++] = pid;
	}
	if (started == n - 1) {
		wc.rank = 0;
		wc.bootstrap_fd = lfd;
		rc = ft_world_new(&wc, &w, &err);
		lfd = -1; /* the world owns the listener now */
		if (rc < 0) {
			rc = note(d, "bench", "local ranks: %s", ft_error_msg(&err, rc));
		} else {
			rc = run_suite(d, w);
			ft_world_free(w);
		}
	}
	if (lfd >= 0)
		close(lfd);
	reap(d, pids, started);
	return rc;
}

static int
bench(struct doctor *d, struct ft_error *err)
{
	double t0 = ft_now_s();
	int rc;

	if (d->cfg->no_bench)
		return note(d, "bench", "skipped (--no-bench): no transport was measured") < 0 ?
		               oom(err) :
		               0;
	rc = pick_transports(d, err);
	if (rc < 0)
		return rc;
	if (d->res->ntransports == 0)
		return note(d, "bench", "no usable transport") < 0 ? oom(err) : 0;
	if (build_suite(d) < 0)
		return oom(err);
	rc = d->world ? run_suite(d, d->world) : bench_local(d);
	d->res->bench_s = ft_now_s() - t0;
	if (rc < 0)
		return oom(err);
	if (stopped(d))
		return ft_error_set(err, FT_EINTR, "interrupted");
	return 0;
}

/* ---- 3. the model's expectations ------------------------------------------------- */

/* A node preset for the GPUs the probe found: 8 GPUs of a model a preset is made of. */
static const char *
detect_preset(const struct ft_doctor_result *res, char *why, size_t len)
{
	static const struct {
		const char *gpu, *preset;
	} map[] = {
		{ "B200", "dgx-b200" }, { "H200", "hgx-h200" },  { "H100", "dgx-h100" },
		{ "A100", "dgx-a100" }, { "L40S", "pcie-l40s" },
	};
	size_t i;

	if (res->ngpus <= 0) {
		snprintf(why, len, "no GPU found by the probe and no --spec given");
		return NULL;
	}
	for (i = 0; i < FT_ARRAY_SIZE(map); i++) {
		if (!strstr(res->gpu_model, map[i].gpu))
			continue;
		if (res->ngpus != 8 * (double)res->nhosts) {
			snprintf(why, len,
			         "%g %s GPUs on %zu host%s: the %s preset has 8 per node; give --spec",
			         res->ngpus, map[i].gpu, res->nhosts, res->nhosts == 1 ? "" : "s",
			         map[i].preset);
			return NULL;
		}
		return map[i].preset;
	}
	snprintf(why, len, "%g GPU%s (%s) match no node preset; give --spec", res->ngpus,
	         res->ngpus == 1 ? "" : "s", res->gpu_model[0] ? res->gpu_model : "model unknown");
	return NULL;
}

/* The spec to compare with: the given one, or a preset for the GPUs found. */
static int
pick_spec(struct doctor *d, char *arg, size_t len, struct ft_error *err)
{
	struct ft_doctor_result *res = d->res;
	struct ft_error serr = { 0 };
	const char *preset;
	char why[256];
	int rc;

	if (res->have_spec) {
		ft_strlcpy(arg, res->spec_name, len);
		return 1;
	}
	preset = detect_preset(res, why, sizeof(why));
	if (!preset)
		return note(d, "model", "no expectation computed: %s", why) < 0 ? oom(err) : 0;
	if (res->nhosts > 1)
		snprintf(arg, len, "%s:%zu", preset, res->nhosts);
	else
		ft_strlcpy(arg, preset, len);
	rc = ft_spec_resolve(arg, &res->spec, &serr);
	if (rc < 0)
		return note(d, "model", "%s: %s", arg, ft_error_msg(&serr, rc)) < 0 ? oom(err) : 0;
	res->have_spec = true;
	ft_strlcpy(res->spec_name, arg, sizeof(res->spec_name));
	return 1;
}

static int
expectations(struct doctor *d, struct ft_error *err)
{
	struct ft_doctor_result *res = d->res;
	struct ft_model_query q;
	struct ft_model_result mres;
	struct ft_error merr = { 0 };
	char arg[96];
	size_t n = 0;
	int rc;

	rc = pick_spec(d, arg, sizeof(arg), err);
	if (rc <= 0)
		return rc;
	ft_strlcpy(res->rec.run.spec, arg, sizeof(res->rec.run.spec));
	ft_strlcpy(res->model.spec, arg, sizeof(res->model.spec));
	/* The plateau of the whole cluster, for the summary (kb NA-MODEL, NA-BUSBW). */
	ft_model_query_init(&q, FT_OP_ALL_REDUCE, 1ull << 30);
	if (ft_model_eval(&res->spec, &q, &mres, &merr) == 0) {
		res->plateau_busbw_GBps = mres.busbw_Bps / 1e9;
		res->plateau_ranks = mres.nranks;
	}
	/* Only GPU results measure what the model describes. */
	rc = ft_workflow_model_expectations(&res->spec, &res->rec.run, "nccl", &res->expect,
	                                    &res->model, &n, err);
	if (rc < 0)
		return rc;
	if (n == 0 && d->cfg->no_bench)
		rc = note(d, "model", "expectations for %s not compared: no benchmark ran", arg);
	else if (n == 0)
		rc = note(d, "model",
		          "expectations for %s not compared: no NCCL result here (shm and tcp "
		          "ranks measure this host's memory and sockets, not the cluster's GPUs "
		          "and NICs)",
		          arg);
	return rc < 0 ? oom(err) : 0;
}

/* ---- 4. diagnosis ----------------------------------------------------------------- */

/*
 * host.cpu_foreign: the share of a host's CPU time that other processes
 * used while the doctor ran, the host's busy share less the doctor's own
 * processes' on it: this process and its reaped local ranks (a local run),
 * or every MPI rank on that host (under MPI, one observation per host from
 * the ranks' usage that rank 0 gathered). The jitter rule reads it (a loaded
 * host's latency tail is the scheduler's). None in stable (test) mode.
 */
static int
add_foreign(struct doctor *d, const char *host, double busy, double cpu_s, double wall_s,
            double ncpus)
{
	struct ft_obs o;

	if (!(ncpus >= 1) || !isfinite(busy) || !isfinite(cpu_s) || !(wall_s > 0))
		return 0;
	ft_obs_init(&o, "host.cpu_foreign");
	ft_strlcpy(o.host, host, sizeof(o.host));
	o.num = FT_MAX(0.0, busy - cpu_s / (wall_s * ncpus));
	o.has_num = true;
	ft_strlcpy(o.unit, "ratio", sizeof(o.unit));
	o.file = "doctor";
	return ft_obs_set_add(&d->res->rec.obs, &o);
}

/* Under MPI: one host.cpu_foreign per host, from the gathered usage of its ranks. */
static int
foreign_cpu_mpi(struct doctor *d)
{
	uint32_t n = ft_world_size(d->world), i, k;
	int rc = 0;

	for (i = 0; i < n && rc >= 0; i++) {
		double busy = 0, cpu = 0, wall = 0;
		unsigned nbusy = 0;

		for (k = 0; k < i && strcmp(d->usage[k].host, d->usage[i].host) != 0; k++)
			;
		if (k < i)
			continue; /* that host is done */
		for (k = i; k < n; k++) {
			const struct rank_usage *u = &d->usage[k];

			if (strcmp(u->host, d->usage[i].host) != 0)
				continue;
			cpu += u->cpu_s;
			wall = FT_MAX(wall, u->wall_s);
			if (isfinite(u->host_busy)) {
				busy += u->host_busy;
				nbusy++;
			}
		}
		rc = add_foreign(d, d->usage[i].host, nbusy ? busy / nbusy : NAN, cpu, wall,
		                 d->usage[i].ncpus);
	}
	return rc;
}

static int
foreign_cpu_obs(struct doctor *d)
{
	const struct ft_run *run = &d->res->rec.run;

	if (d->cfg->stable || !d->res->ntransports)
		return 0;
	if (d->res->under_mpi)
		return d->usage ? foreign_cpu_mpi(d) : 0;
	return add_foreign(d, d->res->host, run->host_busy, run->cpu_s, run->wall_s,
	                   (double)sysconf(_SC_NPROCESSORS_ONLN));
}

/*
 * Under MPI, after the benchmark: every rank's usage since @t0 to rank 0
 * (a collective: every rank that benchmarked calls it).
 */
static int
gather_usage(struct doctor *d, const struct ft_usage_sample *t0, struct ft_error *err)
{
	struct ft_usage_sample t1;
	struct rank_usage me, *all;
	struct ft_run run;
	int rc;

	memset(&me, 0, sizeof(me));
	memset(&run, 0, sizeof(run));
	ft_usage_sample(&t1);
	ft_usage_apply(t0, &t1, &run);
	ft_strlcpy(me.host, ft_world_info(d->world, ft_world_rank(d->world))->host,
	           sizeof(me.host));
	me.wall_s = run.wall_s;
	me.cpu_s = run.cpu_s;
	me.host_busy = run.host_busy;
	me.ncpus = (double)sysconf(_SC_NPROCESSORS_ONLN);
	all = calloc(ft_world_size(d->world), sizeof(*all));
	if (!all)
		return oom(err);
	rc = ft_world_allgather(d->world, &me, sizeof(me), all, err);
	if (rc < 0 || ft_world_rank(d->world) != 0) {
		free(all);
		return rc;
	}
	d->usage = all;
	return 0;
}

static int
unchecked_obs(struct doctor *d)
{
	struct ft_doctor_result *res = d->res;
	size_t i;

	for (i = 0; i < res->notes.len; i++) {
		const struct ft_doctor_note *u = ft_vec_at(&res->notes, i);
		struct ft_obs o;

		ft_obs_init(&o, "doctor.unchecked");
		ft_strlcpy(o.host, res->host, sizeof(o.host));
		ft_strlcpy(o.device, u->what, sizeof(o.device));
		ft_strlcpy(o.str, u->why, sizeof(o.str));
		o.file = "doctor";
		if (ft_obs_set_add(&res->rec.obs, &o) < 0)
			return FT_ENOMEM;
	}
	return 0;
}

static int
diagnose(struct doctor *d, struct ft_error *err)
{
	struct ft_doctor_result *res = d->res;
	struct ft_diag_input in = { &res->rec.obs, res->expect.data, res->expect.len };
	size_t i;
	int rc;

	rc = ft_diag_run(&in, &res->findings, err);
	if (rc < 0)
		return rc;
	for (i = 0; i < ft_findings_len(&res->findings); i++) {
		struct ft_finding f = *ft_findings_at(&res->findings, i);

		/* the record's evidence files are held by its observation set */
		for (size_t k = 0; k < f.nevidence; k++)
			if (ft_obs_intern(&res->rec.obs.files, &f.evidence[k]) < 0)
				return oom(err);
		if (ft_vec_push(&res->rec.findings, &f) < 0)
			return oom(err);
	}
	return 0;
}

/* ---- 5, 6. archive and baseline ------------------------------------------------- */

static void
baseline_name(struct doctor *d)
{
	struct ft_doctor_result *res = d->res;
	size_t i;

	if (d->cfg->baseline) {
		ft_strlcpy(res->baseline, d->cfg->baseline, sizeof(res->baseline));
		return;
	}
	snprintf(res->baseline, sizeof(res->baseline), "doctor-%.56s", res->host);
	for (i = 0; res->baseline[i]; i++)
		if (res->baseline[i] == ' ' || res->baseline[i] == '/')
			res->baseline[i] = '_';
}

static int
fingerprint(struct doctor *d, struct ft_error *err)
{
	struct ft_archive_record *rec = &d->res->rec;
	int rc;

	rc = ft_fingerprint_collect(&rec->fp, err);
	if (rc == 0 && ft_fingerprint_from_obs(&rec->fp, &rec->obs) < 0)
		rc = oom(err);
	if (rc == 0 && !ft_fingerprint_get(&rec->fp, "host.name"))
		rc = ft_fingerprint_set(&rec->fp, "host.name", d->res->host);
	if (rc < 0)
		return rc;
	rec->info.source = rec->run.source;
	ft_strlcpy(rec->info.kind, rec->run.kind, sizeof(rec->info.kind));
	ft_strlcpy(rec->info.label, rec->run.label, sizeof(rec->info.label));
	ft_strlcpy(rec->info.spec, rec->run.spec, sizeof(rec->info.spec));
	ft_strlcpy(rec->info.host, d->res->host, sizeof(rec->info.host));
	ft_fingerprint_digest(&rec->fp, rec->info.fp_digest);
	rec->info.nrows = ft_run_nrows(&rec->run);
	rec->info.nobs = ft_obs_set_len(&rec->obs);
	rec->info.nfindings = rec->findings.len;
	return 0;
}

/*
 * The doctor's comparison: archive compare's defaults, and the baseline
 * runs' per-iteration spread pooled with their between-run spread
 * (archive/compare.c) unless a host of this run was loaded: where other
 * processes held jitter_foreign_cpu_max (25 %) of the CPU or more
 * (host.cpu_foreign), a run's iterations share its scheduling luck and say
 * nothing of the next run's, so the band is the runs' alone.
 */
void
ft__doctor_compare_opts(const struct ft_obs_set *obs, struct ft_compare_opts *o)
{
	struct ft_diag_thresholds t;
	size_t i;

	ft_compare_opts_init(o);
	ft_diag_thresholds_init(&t);
	o->pool_iterations = true;
	for (i = 0; i < ft_obs_set_len(obs); i++) {
		const struct ft_obs *x = ft_obs_set_at(obs, i);

		if (strcmp(x->key, "host.cpu_foreign") == 0 && x->has_num &&
		    x->num >= t.jitter_foreign_cpu_max)
			o->pool_iterations = false;
	}
}

static int
compare_baseline(struct doctor *d, struct ft_archive *ar, struct ft_error *err)
{
	struct ft_doctor_result *res = d->res;
	struct ft_compare_opts opts;
	size_t i;
	int rc;

	res->bruns = calloc(res->base.len, sizeof(*res->bruns));
	if (!res->bruns)
		return oom(err);
	for (i = 0; i < res->base.len; i++)
		res->bruns[i] = &((const struct ft_archive_record *)ft_vec_at(&res->base, i))->run;
	ft__doctor_compare_opts(&res->rec.obs, &opts);
	rc = ft_compare_runs(&res->rec.run, res->bruns, res->base.len, &opts, &res->cmp, err);
	if (rc < 0)
		return rc;
	res->have_cmp = true;
	snprintf(res->base_label, sizeof(res->base_label), "baseline '%s' (%zu run%s)",
	         res->baseline, res->base.len, res->base.len == 1 ? "" : "s");
	/*
	 * One run says nothing of the spread between runs, which on a shared or
	 * virtual host is far wider than a run's own iterations (identical tcp
	 * bandwidth runs 20-30 % apart, minutes apart): the host's own baseline
	 * takes its first FT_DOCTOR_FORMING_RUNS runs before it judges.
	 */
	res->forming = !d->cfg->baseline && res->base.len < FT_DOCTOR_FORMING_RUNS &&
	               !d->cfg->no_save;
	if ((d->cfg->update_baseline || res->forming) && !d->cfg->no_save) {
		rc = ft_archive_baseline_add(ar, res->baseline, res->run_id, err);
		if (rc < 0)
			return rc;
		res->added_to_baseline = true;
	}
	return 0;
}

static int
archive(struct doctor *d, struct ft_archive *ar, struct ft_error *err)
{
	struct ft_doctor_result *res = d->res;
	int rc;

	baseline_name(d);
	/* The baseline as it was before this run. */
	rc = ft_archive_baseline_load(ar, res->baseline, &res->base, err);
	if (rc < 0 && rc != FT_ENOENT)
		return rc;
	if (!d->cfg->no_save) {
		rc = ft_archive_save_record(ar, &res->rec, &res->run_id, err);
		if (rc < 0)
			return rc;
		res->rec.info.id = res->run_id;
		res->rec.info.created_s = ft_wall_s();
	}
	if (res->base.len > 0)
		return compare_baseline(d, ar, err);
	if (d->cfg->no_save)
		return 0;
	rc = ft_archive_baseline_add(ar, res->baseline, res->run_id, err);
	if (rc < 0)
		return rc;
	res->new_baseline = true;
	return 0;
}

bool
ft_doctor_regressed(const struct ft_doctor_result *res)
{
	return res->have_cmp && !res->forming && ft_compare_has_regression(&res->cmp);
}

/* ---- the loop ------------------------------------------------------------------- */

int
ft_doctor_check_launch(unsigned *rank, struct ft_error *err)
{
	struct ft_launch l;
	int rc = ft_launch_detect(NULL, &l, err);

	if (rc < 0)
		return rc;
	*rank = l.rank;
	if (l.launcher == FT_LAUNCHER_SLURM && l.size > 1)
		return ft_error_set(err, FT_EINVAL,
		                    "srun started %u tasks (%s) without PMI, so they cannot find "
		                    "each other: run srun --mpi=pmix (or pmi2)",
		                    l.size, l.vars);
	return 0;
}

/* The record's label and resource use, once the benchmark is over. */
static void
label_run(struct doctor *d, const struct ft_usage_sample *t0)
{
	struct ft_run *run = &d->res->rec.run;
	struct ft_usage_sample t1;

	snprintf(run->label, sizeof(run->label), "doctor on %s%s%s", d->res->host,
	         d->cfg->full ? " (full)" : "", d->cfg->no_bench ? " (no bench)" : "");
	/* the wall clock at the start, not a monotonic time (that reads as 1970) */
	ft_usage_sample(&t1);
	ft_usage_apply(t0, &t1, run);
	if (d->cfg->stable) {
		run->started_s = 0;
		run->wall_s = run->cpu_s = run->host_busy = NAN;
		run->load1 = NAN;
	}
}

static int
start(struct doctor *d, struct ft_error *err)
{
	struct ft_doctor_result *res = d->res;
	int rc;

	res->under_mpi = ft_world_launched_by_mpi();
	if (res->under_mpi && !d->cfg->no_bench) {
		struct ft_world_cfg wc;

		ft_world_cfg_init(&wc);
		wc.use_mpi = true;
		wc.timeout_s = d->cfg->timeout_s;
		wc.stop = d->stop;
		rc = ft_world_new(&wc, &d->world, err);
		if (rc < 0)
			return rc;
	}
	/* A bad spec is a usage error: say so before minutes of work. */
	if (d->cfg->spec) {
		rc = ft_spec_resolve(d->cfg->spec, &res->spec, err);
		if (rc < 0)
			return rc;
		res->have_spec = true;
		ft_strlcpy(res->spec_name, d->cfg->spec, sizeof(res->spec_name));
	}
	return 0;
}

static int
doctor_loop(struct doctor *d, struct ft_error *err)
{
	struct ft_doctor_result *res = d->res;
	struct ft_usage_sample t0;
	int rc;

	ft_usage_sample(&t0);
	rc = start(d, err);
	if (rc < 0)
		return rc;
	step(d, "doctor: probe", 0, 1);
	rc = probe(d, err);
	if (rc == 0)
		rc = bench(d, err);
	if (rc == 0 && d->world)
		rc = gather_usage(d, &t0, err);
	/* after a rank failed there is no usage to gather: host.cpu_foreign goes unrecorded */
	if (rc < 0 && rc != FT_ENOMEM && d->world && ft_world_failed(d->world)) {
		rc = note(d, "host.cpu_foreign", "not recorded: %s", ft_error_msg(err, rc)) < 0 ?
		             FT_ENOMEM :
		             0;
		ft_error_clear(err);
	}
	if (d->mpi_rank != 0 || (d->world && ft_world_rank(d->world) != 0)) {
		res->root = false; /* the other MPI ranks only take part */
		return rc;
	}
	if (rc == 0)
		rc = expectations(d, err);
	if (rc < 0)
		return rc;
	label_run(d, &t0);
	if (unchecked_obs(d) < 0 || foreign_cpu_obs(d) < 0)
		return oom(err);
	rc = diagnose(d, err);
	if (rc == 0)
		rc = fingerprint(d, err);
	if (rc < 0 || !d->cfg->ar)
		return rc;
	/* Without an archive the findings still matter: the caller says them. */
	res->archive_rc = archive(d, d->cfg->ar, &res->archive_err);
	res->archived = res->archive_rc == 0;
	return 0;
}

int
ft_doctor_run(const struct ft_doctor_cfg *cfg, const struct ft_progress *progress,
              volatile sig_atomic_t *stop, struct ft_doctor_result *res, struct ft_error *err)
{
	struct doctor d = { .cfg = cfg, .progress = progress, .stop = stop, .res = res };
	int rc;

	result_init(res, cfg);
	if (cfg->np < 2 || cfg->np > 64)
		return ft_error_set(err, FT_EINVAL, "doctor: %u local ranks (expected 2 to 64)",
		                    cfg->np);
	if (!(cfg->timeout_s > 0))
		return ft_error_set(err, FT_EINVAL, "doctor: timeout must be above 0");
	ft_vec_init(&d.suite, sizeof(struct suite_item));
	rc = doctor_loop(&d, err);
	ft_vec_release(&d.suite);
	if (d.world)
		ft_world_free(d.world);
	free(d.usage);
	return rc;
}

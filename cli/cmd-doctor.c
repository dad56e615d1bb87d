/* SPDX-License-Identifier: MIT */
/*
 * cli/cmd-doctor.c - `fabtune doctor`: the whole loop in one command.
 *
 * 1. probe this host (under mpirun/srun every host, gathered at rank 0);
 * 2. run a short benchmark suite (point-to-point latency and bandwidth, an
 *    all_reduce sweep) over every transport this machine offers, with local
 *    ranks forked here (or the MPI ranks);
 * 3. take the analytic model's expectations for the given or detected cluster;
 * 4. diagnose (the rules read the probe's and the benchmark's observations);
 * 5. save the run in the archive;
 * 6. compare it with this host's baseline (the first run becomes it);
 * 7. print a summary and write the HTML report.
 * Whatever cannot be checked is said, with the reason, and archived as a
 * `doctor.unchecked` observation.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fabtune/fabtune.h>
#include <fabtune/parse.h>

#include "cli-archive.h"
#include "cli.h"
#include "glue.h"

#define DOCTOR_MAX_TRANSPORTS 8
#define DOCTOR_DEFAULT_REPORT "fabtune-report.html"

struct doctor_opts {
	const char *spec, *output, *baseline, *transports, *root;
	bool quick, full, no_bench, no_save, no_report, no_tools, update_baseline;
	uint64_t np;
	double timeout;
};

/* What could not be checked, and why. */
struct unchecked {
	char what[32];
	char why[256];
};

/* One step of the benchmark suite (the same list on every rank). */
struct suite_item {
	char transport[16];
	enum ft_op pattern;
	uint64_t min_bytes, max_bytes, factor;
	uint32_t iters, warmup;
};

struct doctor {
	struct cli_ctx *ctx;
	const struct doctor_opts *o;
	struct ft_archive_record rec; /* the run, observations, findings and fingerprint */
	struct ft_findings findings;
	struct ft_vec unchecked; /* struct unchecked */
	struct ft_vec suite;     /* struct suite_item */
	char transports[DOCTOR_MAX_TRANSPORTS][16];
	size_t ntransports;
	uint32_t nranks; /* ranks of the benchmark */
	bool under_mpi;
	int mpi_rank;           /* this process's MPI rank (0 without MPI) */
	struct ft_world *world; /* MPI world (under mpirun), else NULL */
	/* probe */
	char host[64];
	double ngpus;
	char gpu_model[160];
	size_t nrdma;
	size_t nhosts;
	size_t nprobe_obs;
	/* bench */
	double bench_s;
	size_t nbench_ok, nbench_failed;
	bool interrupted;
	/* model */
	char spec_name[128];
	bool have_spec;
	struct ft_cluster_spec spec;
	struct ft_vec expect; /* struct ft_expectation */
	struct ft_run model;  /* the expectations as rows (report charts) */
	double plateau_busbw_GBps;
	uint32_t plateau_ranks;
	/* archive and baseline */
	struct ft_archive *ar;
	char archive_path[512];
	int64_t run_id;
	char baseline[64];
	bool new_baseline, added_to_baseline;
	struct ft_vec base; /* struct ft_archive_record */
	const struct ft_run **bruns;
	struct ft_compare cmp;
	bool have_cmp;
	char base_label[160];
	/* report */
	bool report_written;
	int exit_code;
};

static volatile sig_atomic_t stop_flag;

static void
on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static int note(struct doctor *d, const char *what, const char *fmt, ...) FT_PRINTF(3, 4);

/* Say what could not be checked and why (summary, JSON and a doctor.unchecked observation). */
static int
note(struct doctor *d, const char *what, const char *fmt, ...)
{
	struct unchecked u;
	va_list ap;

	memset(&u, 0, sizeof(u));
	ft_strlcpy(u.what, what, sizeof(u.what));
	va_start(ap, fmt);
	vsnprintf(u.why, sizeof(u.why), fmt, ap);
	va_end(ap);
	return ft_vec_push(&d->unchecked, &u);
}

static void
doctor_init(struct doctor *d, struct cli_ctx *ctx, const struct doctor_opts *o)
{
	memset(d, 0, sizeof(*d));
	d->ctx = ctx;
	d->o = o;
	ft_archive_record_init(&d->rec);
	ft_run_init(&d->rec.run, FT_SOURCE_BENCH, "doctor");
	ft_findings_init(&d->findings);
	ft_vec_init(&d->unchecked, sizeof(struct unchecked));
	ft_vec_init(&d->suite, sizeof(struct suite_item));
	ft_vec_init(&d->expect, sizeof(struct ft_expectation));
	ft_run_init(&d->model, FT_SOURCE_MODEL, "model");
	ft_vec_init(&d->base, sizeof(struct ft_archive_record));
	d->nranks = (uint32_t)o->np;
	d->plateau_busbw_GBps = NAN;
}

static void
doctor_release(struct doctor *d)
{
	ft_archive_record_release(&d->rec);
	ft_findings_release(&d->findings);
	ft_vec_release(&d->unchecked);
	ft_vec_release(&d->suite);
	ft_vec_release(&d->expect);
	ft_run_release(&d->model);
	ft_archive_records_release(&d->base);
	free(d->bruns);
	if (d->have_cmp)
		ft_compare_release(&d->cmp);
	if (d->ar)
		ft_archive_close(d->ar);
}

static void
step(struct doctor *d, const char *what, uint64_t done, uint64_t total)
{
	ft_progress_update(&d->ctx->progress, what, done, total);
}

/* ---- 1. probe -------------------------------------------------------------------- */

/* Is there an observation before @i with the same key, host and device (another rank's)? */
static bool
seen_before(const struct doctor *d, size_t i)
{
	const struct ft_obs *o = ft_obs_set_at(&d->rec.obs, i);
	size_t j;

	for (j = 0; j < i; j++) {
		const struct ft_obs *p = ft_obs_set_at(&d->rec.obs, j);

		if (strcmp(p->key, o->key) == 0 && strcmp(p->host, o->host) == 0 &&
		    strcmp(p->device, o->device) == 0)
			return true;
	}
	return false;
}

static int
probe(struct doctor *d)
{
	struct ft_probe_cfg cfg = { 0 };
	struct ft_error err = { 0 };
	size_t i, j;
	int rc, rank = 0;

	cfg.root = d->o->root ? d->o->root : "/";
	cfg.run_tools = !d->o->no_tools && strcmp(cfg.root, "/") == 0;
	rc = ft_probe_host(&cfg, &d->rec.obs, &err);
	if (rc == FT_ENOMEM)
		return cli_fail(d->ctx, rc, &err);
	if (rc < 0 && note(d, "probe", "%s", ft_error_msg(&err, rc)) < 0)
		return cli_fail(d->ctx, FT_ENOMEM, NULL);
	if (d->under_mpi) {
		rc = ft_probe_mpi_gather(&d->rec.obs, &rank, &err);
		if (rc < 0)
			return cli_fail(d->ctx, rc, &err);
		d->mpi_rank = rank;
	}
	if (gethostname(d->host, sizeof(d->host)) != 0)
		ft_strlcpy(d->host, "localhost", sizeof(d->host));
	d->host[sizeof(d->host) - 1] = '\0';
	d->nprobe_obs = ft_obs_set_len(&d->rec.obs);
	/* What the probe saw: GPUs, RDMA devices, hosts. */
	for (i = 0; i < d->nprobe_obs; i++) {
		const struct ft_obs *o = ft_obs_set_at(&d->rec.obs, i);
		bool first_host = o->host[0] != '\0';

		if (i == 0 && o->host[0] && d->o->root)
			ft_strlcpy(d->host, o->host, sizeof(d->host));
		/* several MPI ranks on one host each report its GPUs and HCAs: count them once */
		if (strcmp(o->key, "gpu.count") == 0 && o->has_num && !seen_before(d, i))
			d->ngpus += o->num;
		else if (strcmp(o->key, "gpu.model") == 0 && !d->gpu_model[0])
			ft_strlcpy(d->gpu_model, o->str, sizeof(d->gpu_model));
		else if (strcmp(o->key, "ib.dev.nports") == 0 && !seen_before(d, i))
			d->nrdma++;
		for (j = 0; j < i && first_host; j++)
			if (strcmp(ft_obs_set_at(&d->rec.obs, j)->host, o->host) == 0)
				first_host = false;
		if (first_host)
			d->nhosts++;
	}
	if (d->nhosts == 0)
		d->nhosts = 1;
	if (!d->under_mpi &&
	    note(d, "other hosts",
	         "not started by mpirun or srun: only this host was probed and measured "
	         "(mpirun -np N fabtune doctor checks every host)") < 0)
		return cli_fail(d->ctx, FT_ENOMEM, NULL);
	return 0;
}

/* ---- 2. benchmark ---------------------------------------------------------------- */

static bool
have_transport(const struct doctor *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->ntransports; i++)
		if (strcmp(d->transports[i], name) == 0)
			return true;
	return false;
}

static int
add_transport(struct doctor *d, const char *name)
{
	if (have_transport(d, name))
		return 0;
	if (d->ntransports == DOCTOR_MAX_TRANSPORTS) {
		cli_error(d->ctx, "--transports: at most %d transports", DOCTOR_MAX_TRANSPORTS);
		return -1;
	}
	ft_strlcpy(d->transports[d->ntransports++], name, sizeof(d->transports[0]));
	return 0;
}

/* Is @name usable here? If not, note why (optional ones) or fail (asked for by name). */
static int
try_transport(struct doctor *d, const char *name, bool asked)
{
	const struct ft_transport_ops *t = ft_transport_find(name);
	struct ft_bench_cfg cfg;
	struct ft_error err = { 0 };
	int rc;

	if (!t) {
		cli_error(d->ctx,
		          "--transports: unknown transport '%s' (tcp, shm, mpi, verbs, nccl)",
		          name);
		return -1;
	}
	ft_bench_cfg_init(&cfg);
	ft_strlcpy(cfg.transport, name, sizeof(cfg.transport));
	rc = t->probe ? t->probe(&cfg, &err) : 0;
	if (rc == 0 && strcmp(name, "nccl") == 0 && !d->under_mpi && d->ngpus < d->nranks)
		rc = ft_error_set(&err, FT_ENOTSUP, "%g GPU%s on this host for %u local ranks",
		                  d->ngpus, d->ngpus == 1 ? "" : "s", d->nranks);
	if (rc == 0 && strcmp(name, "shm") == 0 && d->under_mpi && d->nhosts > 1)
		rc = ft_error_set(&err, FT_ENOTSUP, "ranks on %zu hosts", d->nhosts);
	if (rc == 0)
		return add_transport(d, name);
	if (asked) {
		cli_error(d->ctx, "--transports %s: %s", name, ft_error_msg(&err, rc));
		return -1;
	}
	if (note(d, name, "%s", ft_error_msg(&err, rc)) < 0)
		return -1;
	return 0;
}

static int
pick_transports(struct doctor *d)
{
	static const char *const local[] = { "shm", "tcp", "verbs", "nccl" };
	static const char *const mpi[] = { "tcp", "mpi", "shm", "verbs", "nccl" };
	size_t i;

	if (d->o->transports) {
		char buf[128], *save = NULL, *tok;

		ft_strlcpy(buf, d->o->transports, sizeof(buf));
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (try_transport(d, tok, true) < 0)
				return -1;
		return 0;
	}
	if (d->under_mpi) {
		for (i = 0; i < FT_ARRAY_SIZE(mpi); i++)
			if (try_transport(d, mpi[i], false) < 0)
				return -1;
	} else {
		for (i = 0; i < FT_ARRAY_SIZE(local); i++)
			if (try_transport(d, local[i], false) < 0)
				return -1;
	}
	return 0;
}

/* The suite: per transport, latency, bandwidth and an all_reduce sweep (--quick or --full). */
static int
build_suite(struct doctor *d)
{
	bool full = d->o->full;
	size_t t;

	for (t = 0; t < d->ntransports; t++) {
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
			ft_strlcpy(it[k].transport, d->transports[t], sizeof(it[k].transport));
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
	cfg->timeout_s = d->o->timeout;
	cfg->stop = &stop_flag;
	ft_bench_cfg_resolve(cfg);
}

/*
 * Run the suite on this rank of @w. Rank 0 keeps the rows and observations;
 * the other ranks only take part. The first failure ends the suite on every
 * rank (their peers are gone or out of step).
 */
static int
run_suite(struct doctor *d, struct ft_world *w)
{
	uint32_t me = ft_world_rank(w);
	size_t i, r;
	int rc = 0;

	d->nranks = ft_world_size(w);
	for (i = 0; i < d->suite.len && !stop_flag; i++) {
		const struct suite_item *it = ft_vec_at(&d->suite, i);
		struct ft_bench_report rep;
		struct ft_bench_cfg cfg;
		struct ft_error err = { 0 };
		char what[64];

		snprintf(what, sizeof(what), "doctor: %s %s", it->transport,
		         ft_op_name(it->pattern));
		if (me == 0)
			step(d, what, i, d->suite.len);
		item_cfg(d, it, &cfg);
		ft_bench_report_init(&rep);
		rc = ft_bench_run(w, &cfg, &rep, &err);
		if (rc < 0) {
			if (me == 0) {
				d->nbench_failed++;
				d->interrupted = rc == FT_EINTR;
				if (note(d, what + 8, "%s", ft_error_msg(&err, rc)) < 0)
					rc = FT_ENOMEM;
				/* the rest of the suite needs every rank in step */
				for (size_t k = i + 1; k < d->suite.len; k++) {
					const struct suite_item *n = ft_vec_at(&d->suite, k);

					if (note(d, "bench",
					         "%s %s: not run after the failure above",
					         n->transport,
					         ft_op_name(n->pattern)) < 0)
						rc = FT_ENOMEM;
				}
			}
			ft_bench_report_release(&rep);
			break;
		}
		if (me == 0) {
			char file[48];

			d->nbench_ok++;
			snprintf(file, sizeof(file), "bench:%s/%s", it->transport,
			         ft_op_name(it->pattern));
			for (r = 0; r < ft_run_nrows(&rep.run) && rc == 0; r++) {
				struct ft_result_row *row = ft_run_row(&rep.run, r);

				if (!row->transport[0])
					ft_strlcpy(row->transport, rep.transport,
					           sizeof(row->transport));
				rc = ft_run_add(&d->rec.run, row);
			}
			if (rc == 0)
				rc = cli_bench_obs(&rep.run, file, &d->rec.obs);
		}
		ft_bench_report_release(&rep);
		if (rc < 0)
			break;
	}
	if (me == 0)
		step(d, "doctor: bench", d->suite.len, d->suite.len);
	return rc == FT_ENOMEM ? rc : 0;
}

/* Local ranks: this process is rank 0; ranks 1..N-1 are forked children. */
static int
bench_local(struct doctor *d)
{
	struct ft_world_cfg wc;
	struct ft_world *w = NULL;
	struct ft_error err = { 0 };
	pid_t pids[64];
	uint32_t n = d->nranks, r, started = 0;
	uint16_t port = 0;
	int lfd = -1, rc;

	rc = ft_bench_listen("127.0.0.1", &lfd, &port, &err);
	if (rc < 0)
		return note(d, "bench", "%s", ft_error_msg(&err, rc));
	ft_world_cfg_init(&wc);
	wc.nranks = n;
	snprintf(wc.bootstrap, sizeof(wc.bootstrap), "127.0.0.1:%u", (unsigned)port);
	wc.timeout_s = d->o->timeout;
	wc.stop = &stop_flag;
	fflush(stdout);
	fflush(stderr);
	for (r = 1; r < n; r++) {
		pid_t pid = fork();

		if (pid < 0) {
			rc = note(d, "bench", "fork: %s", strerror(errno));
			break;
		}
		if (pid == 0) {
			int code = EXIT_OK;

			close(lfd);
			d->ctx->progress.fn = NULL; /* only rank 0 draws */
			wc.rank = r;
			rc = ft_world_new(&wc, &w, &err);
			if (rc == 0) {
				if (run_suite(d, w) < 0)
					code = EXIT_RUNTIME;
				ft_world_free(w);
			} else {
				code = EXIT_RUNTIME;
			}
			_exit(code);
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
	for (r = 0; r < started; r++) {
		int status = 0;
		double deadline = ft_now_s() + d->o->timeout + 2;
		pid_t got;

		while ((got = waitpid(pids[r], &status, WNOHANG)) == 0 && ft_now_s() < deadline) {
			struct timespec ts = { 0, 20 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
		if (got == 0) {
			kill(pids[r], SIGKILL);
			waitpid(pids[r], &status, 0);
		}
	}
	return rc;
}

static int
bench(struct doctor *d)
{
	double t0 = ft_now_s();
	int rc;

	if (d->o->no_bench) {
		if (note(d, "bench", "skipped (--no-bench): no transport was measured") < 0)
			return cli_fail(d->ctx, FT_ENOMEM, NULL);
		return 0;
	}
	if (pick_transports(d) < 0)
		return EXIT_USAGE;
	if (d->ntransports == 0)
		return note(d, "bench", "no usable transport") < 0 ? EXIT_RUNTIME : 0;
	if (build_suite(d) < 0)
		return cli_fail(d->ctx, FT_ENOMEM, NULL);
	rc = d->world ? run_suite(d, d->world) : bench_local(d);
	d->bench_s = ft_now_s() - t0;
	ft_progress_bar_finish(&d->ctx->bar);
	if (rc < 0)
		return cli_fail(d->ctx, FT_ENOMEM, NULL);
	if (stop_flag) {
		cli_error(d->ctx, "interrupted");
		return EXIT_RUNTIME;
	}
	return 0;
}

/* ---- 3. the model's expectations ------------------------------------------------- */

/* A node preset for the GPUs the probe found: 8 GPUs of a model a preset is made of. */
static const char *
detect_preset(const struct doctor *d, char *why, size_t len)
{
	static const struct {
		const char *gpu, *preset;
	} map[] = {
		{ "B200", "dgx-b200" }, { "H200", "hgx-h200" },  { "H100", "dgx-h100" },
		{ "A100", "dgx-a100" }, { "L40S", "pcie-l40s" },
	};
	size_t i;

	if (d->ngpus <= 0) {
		snprintf(why, len, "no GPU found by the probe and no --spec given");
		return NULL;
	}
	for (i = 0; i < FT_ARRAY_SIZE(map); i++) {
		if (!strstr(d->gpu_model, map[i].gpu))
			continue;
		if (d->ngpus != 8 * (double)d->nhosts) {
			snprintf(
			        why, len,
			        "%g %s GPUs on %zu host%s: the %s preset has 8 per node; give --spec",
			        d->ngpus, map[i].gpu, d->nhosts, d->nhosts == 1 ? "" : "s",
			        map[i].preset);
			return NULL;
		}
		return map[i].preset;
	}
	snprintf(why, len, "%g GPU%s (%s) match no node preset; give --spec", d->ngpus,
	         d->ngpus == 1 ? "" : "s", d->gpu_model[0] ? d->gpu_model : "model unknown");
	return NULL;
}

static int
expectations(struct doctor *d)
{
	struct ft_error err = { 0 };
	struct ft_model_query q;
	struct ft_model_result res;
	char why[256], arg[96];
	const char *preset;
	size_t n = 0;
	int rc;

	if (d->have_spec) {
		ft_strlcpy(arg, d->spec_name, sizeof(arg));
	} else if ((preset = detect_preset(d, why, sizeof(why))) != NULL) {
		if (d->nhosts > 1)
			snprintf(arg, sizeof(arg), "%s:%zu", preset, d->nhosts);
		else
			ft_strlcpy(arg, preset, sizeof(arg));
	} else {
		return note(d, "model", "no expectation computed: %s", why) < 0 ? FT_ENOMEM : 0;
	}
	if (!d->have_spec) {
		rc = ft_spec_resolve(arg, &d->spec, &err);
		if (rc < 0)
			return note(d, "model", "%s: %s", arg, ft_error_msg(&err, rc)) < 0 ?
			               FT_ENOMEM :
			               0;
		d->have_spec = true;
		ft_strlcpy(d->spec_name, arg, sizeof(d->spec_name));
	}
	ft_strlcpy(d->rec.run.spec, arg, sizeof(d->rec.run.spec));
	ft_strlcpy(d->model.spec, arg, sizeof(d->model.spec));
	/* The plateau of the whole cluster, for the summary (kb NA-MODEL, NA-BUSBW). */
	ft_model_query_init(&q, FT_OP_ALL_REDUCE, 1ull << 30);
	if (ft_model_eval(&d->spec, &q, &res, &err) == 0) {
		d->plateau_busbw_GBps = res.busbw_Bps / 1e9;
		d->plateau_ranks = res.nranks;
	}
	/* Only GPU results measure what the model describes. */
	rc = cli_model_expectations(&d->spec, &d->rec.run, "nccl", &d->expect, &d->model, &n, &err);
	if (rc < 0)
		return rc;
	if (n == 0 && d->o->no_bench)
		rc = note(d, "model", "expectations for %s not compared: no benchmark ran", arg);
	else if (n == 0)
		rc = note(d, "model",
		          "expectations for %s not compared: no NCCL result here (shm and tcp "
		          "ranks measure this host's memory and sockets, not the cluster's GPUs "
		          "and NICs)",
		          arg);
	return rc;
}

/* ---- 4. diagnosis ----------------------------------------------------------------- */

static int
unchecked_obs(struct doctor *d)
{
	size_t i;

	for (i = 0; i < d->unchecked.len; i++) {
		const struct unchecked *u = ft_vec_at(&d->unchecked, i);
		struct ft_obs o;

		ft_obs_init(&o, "doctor.unchecked");
		ft_strlcpy(o.host, d->host, sizeof(o.host));
		ft_strlcpy(o.device, u->what, sizeof(o.device));
		ft_strlcpy(o.str, u->why, sizeof(o.str));
		o.file = "doctor";
		if (ft_obs_set_add(&d->rec.obs, &o) < 0)
			return FT_ENOMEM;
	}
	return 0;
}

static int
diagnose(struct doctor *d)
{
	struct ft_diag_input in = { &d->rec.obs, d->expect.data, d->expect.len };
	struct ft_error err = { 0 };
	size_t i;
	int rc;

	rc = ft_diag_run(&in, &d->findings, &err);
	if (rc < 0)
		return cli_fail(d->ctx, rc, &err);
	for (i = 0; i < ft_findings_len(&d->findings); i++) {
		struct ft_finding f = *ft_findings_at(&d->findings, i);

		/* the record's evidence files are held by its observation set */
		for (size_t k = 0; k < f.nevidence; k++)
			if (ft_obs_intern(&d->rec.obs.files, &f.evidence[k]) < 0)
				return cli_fail(d->ctx, FT_ENOMEM, NULL);
		if (ft_vec_push(&d->rec.findings, &f) < 0)
			return cli_fail(d->ctx, FT_ENOMEM, NULL);
	}
	return 0;
}

/* ---- 5, 6. archive and baseline ------------------------------------------------- */

static void
baseline_name(struct doctor *d)
{
	size_t i;

	if (d->o->baseline) {
		ft_strlcpy(d->baseline, d->o->baseline, sizeof(d->baseline));
		return;
	}
	snprintf(d->baseline, sizeof(d->baseline), "doctor-%.56s", d->host);
	for (i = 0; d->baseline[i]; i++)
		if (d->baseline[i] == ' ' || d->baseline[i] == '/')
			d->baseline[i] = '_';
}

static int
fingerprint(struct doctor *d)
{
	struct ft_error err = { 0 };
	int rc;

	rc = ft_fingerprint_collect(&d->rec.fp, &err);
	if (rc == 0 && ft_fingerprint_from_obs(&d->rec.fp, &d->rec.obs) < 0)
		rc = ft_error_set(&err, FT_ENOMEM, "fingerprint: out of memory");
	if (rc == 0 && !ft_fingerprint_get(&d->rec.fp, "host.name"))
		rc = ft_fingerprint_set(&d->rec.fp, "host.name", d->host);
	if (rc < 0)
		return cli_fail(d->ctx, rc, &err);
	d->rec.info.source = d->rec.run.source;
	ft_strlcpy(d->rec.info.kind, d->rec.run.kind, sizeof(d->rec.info.kind));
	ft_strlcpy(d->rec.info.label, d->rec.run.label, sizeof(d->rec.info.label));
	ft_strlcpy(d->rec.info.spec, d->rec.run.spec, sizeof(d->rec.info.spec));
	ft_strlcpy(d->rec.info.host, d->host, sizeof(d->rec.info.host));
	ft_fingerprint_digest(&d->rec.fp, d->rec.info.fp_digest);
	d->rec.info.nrows = ft_run_nrows(&d->rec.run);
	d->rec.info.nobs = ft_obs_set_len(&d->rec.obs);
	d->rec.info.nfindings = d->rec.findings.len;
	return 0;
}

static int
archive(struct doctor *d)
{
	struct ft_error err = { 0 };
	size_t i;
	int rc;

	rc = d->ar ? 0 : cli_archive_open(d->ctx, &d->ar, &err);
	if (rc < 0)
		return cli_fail(d->ctx, rc, &err);
	ft_strlcpy(d->archive_path, ft_archive_path(d->ar), sizeof(d->archive_path));
	baseline_name(d);
	/* The baseline as it was before this run. */
	rc = ft_archive_baseline_load(d->ar, d->baseline, &d->base, &err);
	if (rc < 0 && rc != FT_ENOENT)
		return cli_fail(d->ctx, rc, &err);
	if (!d->o->no_save) {
		rc = ft_archive_save_record(d->ar, &d->rec, &d->run_id, &err);
		if (rc < 0)
			return cli_fail(d->ctx, rc, &err);
		d->rec.info.id = d->run_id;
		d->rec.info.created_s = ft_wall_s();
	}
	if (d->base.len == 0) {
		if (d->o->no_save)
			return 0;
		rc = ft_archive_baseline_add(d->ar, d->baseline, d->run_id, &err);
		if (rc < 0)
			return cli_fail(d->ctx, rc, &err);
		d->new_baseline = true;
		return 0;
	}
	d->bruns = calloc(d->base.len, sizeof(*d->bruns));
	if (!d->bruns)
		return cli_fail(d->ctx, FT_ENOMEM, NULL);
	for (i = 0; i < d->base.len; i++)
		d->bruns[i] = &((const struct ft_archive_record *)ft_vec_at(&d->base, i))->run;
	rc = ft_compare_runs(&d->rec.run, d->bruns, d->base.len, NULL, &d->cmp, &err);
	if (rc < 0)
		return cli_fail(d->ctx, rc, &err);
	d->have_cmp = true;
	snprintf(d->base_label, sizeof(d->base_label), "baseline '%s' (%zu run%s)", d->baseline,
	         d->base.len, d->base.len == 1 ? "" : "s");
	if (d->o->update_baseline && !d->o->no_save) {
		rc = ft_archive_baseline_add(d->ar, d->baseline, d->run_id, &err);
		if (rc < 0)
			return cli_fail(d->ctx, rc, &err);
		d->added_to_baseline = true;
	}
	return 0;
}

/* ---- 7. report and summary ------------------------------------------------------ */

static int
report(struct doctor *d)
{
	struct ft_report_input in;
	struct ft_error err = { 0 };
	struct ft_strbuf sb;
	char title[160];
	int rc;

	if (d->o->no_report)
		return 0;
	memset(&in, 0, sizeof(in));
	snprintf(title, sizeof(title), "fabtune doctor: %s", d->host);
	in.run = &d->rec;
	in.expected = ft_run_nrows(&d->model) ? &d->model : NULL;
	in.baseline = d->bruns;
	in.nbaseline = d->have_cmp ? d->base.len : 0;
	in.baseline_label = d->have_cmp ? d->base_label : NULL;
	in.cmp = d->have_cmp ? &d->cmp : NULL;
	if (d->have_cmp)
		in.baseline_fp =
		        &((const struct ft_archive_record *)ft_vec_at(&d->base, d->base.len - 1))
		                 ->fp;
	in.title = title;
	in.stable = d->ctx->stable;
	ft_strbuf_init(&sb);
	rc = ft_report_render(&in, FT_REPORT_HTML, &sb, &err);
	if (rc == 0)
		rc = cli_write_output(d->o->output, &sb, &err);
	ft_strbuf_release(&sb);
	if (rc < 0)
		return cli_fail(d->ctx, rc, &err);
	d->report_written = true;
	return 0;
}

static void
row_figure(const struct ft_result_row *r, char *buf, size_t len)
{
	if (r->lat_p50_us > 0 && isfinite(r->lat_p50_us))
		snprintf(buf, len, "p50 %.2f us, p99 %.2f us", r->lat_p50_us, r->lat_p99_us);
	else if (r->busbw_GBps > 0 && isfinite(r->busbw_GBps) && strncmp(r->test, "pt2pt", 5))
		snprintf(buf, len, "busbw %.2f GB/s (%.0f us)", r->busbw_GBps, r->time_us);
	else if (r->algbw_GBps > 0 && isfinite(r->algbw_GBps))
		snprintf(buf, len, "%.2f GB/s", r->algbw_GBps);
	else
		ft_strlcpy(buf, "-", len);
}

static size_t
count_sev(const struct doctor *d, enum ft_severity s)
{
	size_t i, n = 0;

	for (i = 0; i < ft_findings_len(&d->findings); i++)
		n += ft_findings_at(&d->findings, i)->severity == s;
	return n;
}

static void
render_text(struct doctor *d, struct ft_strbuf *sb)
{
	size_t i, nf = ft_findings_len(&d->findings);
	struct ft_table t;

	ft_strbuf_addf(sb, "fabtune doctor: %s\n\n", d->host);
	ft_strbuf_addf(sb,
	               "probe:     %zu observations from %zu host%s: %g GPU%s, %zu RDMA "
	               "device%s\n",
	               d->nprobe_obs, d->nhosts, d->nhosts == 1 ? "" : "s", d->ngpus,
	               d->ngpus == 1 ? "" : "s", d->nrdma, d->nrdma == 1 ? "" : "s");
	if (d->ntransports) {
		ft_strbuf_addf(sb, "bench:     %u %s ranks over", d->nranks,
		               d->under_mpi ? "MPI" : "local");
		for (i = 0; i < d->ntransports; i++)
			ft_strbuf_addf(sb, "%s%s", i ? ", " : " ", d->transports[i]);
		ft_strbuf_addf(sb, ": %zu results", ft_run_nrows(&d->rec.run));
		if (!d->ctx->stable)
			ft_strbuf_addf(sb, " in %.1f s", d->bench_s);
		ft_strbuf_adds(sb, "\n");
	}
	if (ft_run_nrows(&d->rec.run)) {
		ft_strbuf_adds(sb, "\n");
		ft_table_init(&t);
		ft_table_col(&t, "transport", FT_ALIGN_LEFT);
		ft_table_col(&t, "test", FT_ALIGN_LEFT);
		ft_table_col(&t, "size", FT_ALIGN_RIGHT);
		ft_table_col(&t, "result", FT_ALIGN_LEFT);
		ft_table_col(&t, "vs baseline", FT_ALIGN_LEFT);
		for (i = 0; i < ft_run_nrows(&d->rec.run); i++) {
			const struct ft_result_row *r = ft_run_row(&d->rec.run, i);
			char size[32], fig[96];

			ft_format_size(r->bytes, size, sizeof(size));
			row_figure(r, fig, sizeof(fig));
			(void)ft_table_cell(&t, r->transport);
			(void)ft_table_cell(&t, r->test);
			(void)ft_table_cell(&t, size);
			(void)ft_table_cell(&t, fig);
			if (d->have_cmp && i < d->cmp.rows.len) {
				const struct ft_compare_row *c = ft_vec_at(&d->cmp.rows, i);

				if (isfinite(c->delta_rel))
					(void)ft_table_cellf(&t, "%s %+.1f%%",
					                     ft_verdict_name(c->verdict),
					                     100.0 * c->delta_rel);
				else
					(void)ft_table_cell(&t, ft_verdict_name(c->verdict));
			} else {
				(void)ft_table_cell(&t, "-");
			}
		}
		ft_table_render(&t, sb);
		ft_table_release(&t);
		ft_strbuf_adds(sb, "\n");
	}
	if (d->have_spec) {
		ft_strbuf_addf(sb, "model:     %s", d->spec_name);
		if (isfinite(d->plateau_busbw_GBps))
			ft_strbuf_addf(
			        sb, ": all_reduce of 1GiB on %u GPUs should reach busbw %.1f GB/s",
			        d->plateau_ranks, d->plateau_busbw_GBps);
		ft_strbuf_addf(sb, "; %zu measured point%s compared\n", d->expect.len,
		               d->expect.len == 1 ? "" : "s");
	}
	ft_strbuf_addf(
	        sb, "diagnosis: %zu finding%s (%zu critical, %zu error, %zu warning, %zu info)\n",
	        nf, nf == 1 ? "" : "s", count_sev(d, FT_SEV_CRITICAL), count_sev(d, FT_SEV_ERROR),
	        count_sev(d, FT_SEV_WARNING), count_sev(d, FT_SEV_INFO));
	for (i = 0; i < nf; i++) {
		const struct ft_finding *f = ft_findings_at(&d->findings, i);

		/* a finding about a measurement names the run it comes from */
		ft_strbuf_addf(sb, "  [%s] %s %s: %s\n", ft_severity_name(f->severity), f->rule_id,
		               f->entity[0]                           ? f->entity :
		               f->nevidence && f->evidence[0].file[0] ? f->evidence[0].file :
		                                                        "-",
		               f->message);
	}
	if (d->ar) {
		if (d->o->no_save)
			ft_strbuf_addf(sb, "archive:   not saved (--no-save)\n");
		else if (d->ctx->stable)
			ft_strbuf_addf(sb, "archive:   saved run %" PRId64 "\n", d->run_id);
		else
			ft_strbuf_addf(sb, "archive:   saved run %" PRId64 " to %s\n", d->run_id,
			               d->archive_path);
		if (d->new_baseline)
			ft_strbuf_addf(
			        sb,
			        "baseline:  none yet for this host: this run is now baseline "
			        "'%s'\n",
			        d->baseline);
		else if (!d->have_cmp)
			ft_strbuf_addf(sb, "baseline:  none ('%s'), and this run was not saved\n",
			               d->baseline);
		else {
			ft_strbuf_addf(sb, "baseline:  compared with %s:", d->base_label);
			for (i = 0; i < FT_VERDICT_COUNT; i++)
				if (d->cmp.count[i])
					ft_strbuf_addf(sb, " %zu %s", d->cmp.count[i],
					               ft_verdict_name((enum ft_verdict)i));
			if (ft_compare_is_incomplete(&d->cmp))
				ft_strbuf_addf(sb, "; only %zu of %zu baseline results matched "
				                   "(other transports or sizes)",
				               d->cmp.nmatched,
				               d->cmp.nmatched + d->cmp.count[FT_VERDICT_MISSING]);
			ft_strbuf_adds(sb,
			               d->added_to_baseline ? "; this run added to it\n" : "\n");
		}
	}
	if (d->unchecked.len) {
		ft_strbuf_adds(sb, "not checked:\n");
		for (i = 0; i < d->unchecked.len; i++) {
			const struct unchecked *u = ft_vec_at(&d->unchecked, i);

			ft_strbuf_addf(sb, "  %s: %s\n", u->what, u->why);
		}
	}
	if (d->report_written)
		ft_strbuf_addf(sb, "report:    %s\n", d->o->output);
	ft_strbuf_addf(sb, "verdict:   %s%s%s\n",
	               !cli_color(d->ctx)       ? "" :
	               d->exit_code == EXIT_OK ? FT_ANSI_GREEN :
	                                         FT_ANSI_BOLD_RED,
	               d->exit_code == EXIT_OK      ? "healthy" :
	               d->exit_code == EXIT_RUNTIME ? "incomplete (see the errors above)" :
	               d->have_cmp && ft_compare_has_regression(&d->cmp) ?
	                                              "regression against the baseline" :
	                                              "findings to look at",
	               cli_color(d->ctx) ? FT_ANSI_RESET : "");
}

static void
render_json(struct doctor *d, struct ft_strbuf *sb)
{
	struct ft_json j;
	size_t i;

	ft_json_init(&j, sb, true);
	ft_json_obj_begin(&j);
	ft_json_kv_str(&j, "host", d->host);
	ft_json_kv_str(&j, "status",
	               d->exit_code == EXIT_OK      ? "healthy" :
	               d->exit_code == EXIT_PROBLEM ? "problems" :
	                                              "incomplete");
	ft_json_kv_int(&j, "exit", d->exit_code);
	ft_json_key(&j, "probe");
	ft_json_obj_begin(&j);
	ft_json_kv_uint(&j, "observations", d->nprobe_obs);
	ft_json_kv_uint(&j, "hosts", d->nhosts);
	ft_json_kv_double(&j, "gpus", d->ngpus);
	ft_json_kv_uint(&j, "rdma_devices", d->nrdma);
	ft_json_obj_end(&j);
	ft_json_key(&j, "bench");
	ft_json_obj_begin(&j);
	ft_json_kv_uint(&j, "ranks", d->ntransports ? d->nranks : 0);
	ft_json_kv_bool(&j, "mpi", d->under_mpi);
	ft_json_key(&j, "transports");
	ft_json_arr_begin(&j);
	for (i = 0; i < d->ntransports; i++)
		ft_json_str(&j, d->transports[i]);
	ft_json_arr_end(&j);
	if (!d->ctx->stable)
		ft_json_kv_double(&j, "seconds", d->bench_s);
	ft_json_key(&j, "rows");
	ft_parse_rows_to_json(&j, &d->rec.run);
	ft_json_obj_end(&j);
	ft_json_key(&j, "model");
	if (d->have_spec) {
		ft_json_obj_begin(&j);
		ft_json_kv_str(&j, "spec", d->spec_name);
		if (isfinite(d->plateau_busbw_GBps))
			ft_json_kv_double(&j, "plateau_busbw_GBps", d->plateau_busbw_GBps);
		ft_json_kv_uint(&j, "compared", d->expect.len);
		ft_json_key(&j, "rows");
		ft_parse_rows_to_json(&j, &d->model);
		ft_json_obj_end(&j);
	} else {
		ft_json_null(&j);
	}
	ft_json_key(&j, "diagnosis");
	ft_diag_json(&j, &d->findings, ft_obs_set_len(&d->rec.obs));
	ft_json_key(&j, "unchecked");
	ft_json_arr_begin(&j);
	for (i = 0; i < d->unchecked.len; i++) {
		const struct unchecked *u = ft_vec_at(&d->unchecked, i);

		ft_json_obj_begin(&j);
		ft_json_kv_str(&j, "what", u->what);
		ft_json_kv_str(&j, "why", u->why);
		ft_json_obj_end(&j);
	}
	ft_json_arr_end(&j);
	ft_json_key(&j, "archive");
	if (d->ar) {
		ft_json_obj_begin(&j);
		if (!d->ctx->stable)
			ft_json_kv_str(&j, "path", d->archive_path);
		if (d->o->no_save)
			ft_json_kv_str(&j, "saved", "no");
		else
			ft_json_kv_int(&j, "run", d->run_id);
		ft_json_kv_str(&j, "baseline", d->baseline);
		ft_json_kv_bool(&j, "new_baseline", d->new_baseline);
		ft_json_key(&j, "compare");
		if (d->have_cmp) {
			ft_json_obj_begin(&j);
			ft_json_kv_uint(&j, "baseline_runs", d->base.len);
			ft_json_kv_uint(&j, "matched", d->cmp.nmatched);
			ft_json_kv_bool(&j, "incomplete", ft_compare_is_incomplete(&d->cmp));
			for (i = 0; i < FT_VERDICT_COUNT; i++)
				ft_json_kv_uint(&j, ft_verdict_name((enum ft_verdict)i),
				                d->cmp.count[i]);
			ft_json_key(&j, "regressions");
			ft_json_arr_begin(&j);
			for (i = 0; i < d->cmp.rows.len; i++) {
				const struct ft_compare_row *c = ft_vec_at(&d->cmp.rows, i);

				if (c->verdict != FT_VERDICT_REGRESSED)
					continue;
				ft_json_obj_begin(&j);
				ft_json_kv_str(&j, "test", c->test);
				ft_json_kv_str(&j, "transport", c->transport);
				ft_json_kv_uint(&j, "bytes", c->bytes);
				ft_json_kv_str(&j, "metric", c->metric);
				ft_json_kv_double(&j, "current", c->current);
				ft_json_kv_double(&j, "baseline", c->base_mean);
				ft_json_kv_double(&j, "delta_rel", c->delta_rel);
				ft_json_kv_double(&j, "threshold_rel", c->threshold_rel);
				ft_json_obj_end(&j);
			}
			ft_json_arr_end(&j);
			ft_json_obj_end(&j);
		} else {
			ft_json_null(&j);
		}
		ft_json_obj_end(&j);
	} else {
		ft_json_null(&j);
	}
	ft_json_key(&j, "report");
	if (d->report_written)
		ft_json_str(&j, d->o->output);
	else
		ft_json_null(&j);
	ft_json_obj_end(&j);
	ft_strbuf_addch(sb, '\n');
}

/* ---- the command ---------------------------------------------------------------- */

/*
 * Before the probe and the benchmark (a quarter of a minute or more): the
 * launcher makes sense, the report can be written and the archive opens, so
 * a typo in -o or --archive fails at once with exit 2, having saved nothing.
 * Only the rank that writes them checks (rank 0, or the only process).
 */
static int
preflight(struct doctor *d)
{
	struct ft_error err = { 0 };
	struct ft_launch l;
	int rc = ft_launch_detect(NULL, &l, &err);

	if (rc < 0)
		return cli_fail(d->ctx, rc, &err);
	if (l.launcher == FT_LAUNCHER_SLURM && l.size > 1) {
		cli_error(d->ctx,
		          "srun started %u tasks (%s) without PMI, so they cannot find each other: "
		          "run srun --mpi=pmix (or pmi2)",
		          l.size, l.vars);
		return EXIT_USAGE;
	}
	if (l.rank != 0)
		return 0;
	if (!d->o->no_report && cli_check_output_path("--output", d->o->output, &err) < 0) {
		cli_error(d->ctx, "%s (checked before the benchmark; nothing was run or saved)",
		          err.msg);
		return EXIT_USAGE;
	}
	rc = cli_archive_open(d->ctx, &d->ar, &err);
	if (rc < 0) {
		cli_error(d->ctx, "%s (checked before the benchmark; nothing was run or saved)",
		          ft_error_msg(&err, rc));
		return EXIT_USAGE;
	}
	return 0;
}

static int
doctor_run(struct doctor *d)
{
	struct ft_error err = { 0 };
	struct ft_usage_sample t0, t1;
	struct ft_strbuf sb;
	int rc;

	ft_usage_sample(&t0);
	rc = preflight(d);
	if (rc)
		return rc;
	d->under_mpi = ft_world_launched_by_mpi();
	if (d->under_mpi && !d->o->no_bench) {
		struct ft_world_cfg wc;

		ft_world_cfg_init(&wc);
		wc.use_mpi = true;
		wc.timeout_s = d->o->timeout;
		wc.stop = &stop_flag;
		rc = ft_world_new(&wc, &d->world, &err);
		if (rc < 0)
			return cli_fail(d->ctx, rc, &err);
	}
	/* A bad --spec is a usage error: say so before minutes of work. */
	if (d->o->spec) {
		rc = ft_spec_resolve(d->o->spec, &d->spec, &err);
		if (rc < 0)
			return cli_fail(d->ctx, rc, &err);
		d->have_spec = true;
		ft_strlcpy(d->spec_name, d->o->spec, sizeof(d->spec_name));
	}
	step(d, "doctor: probe", 0, 1);
	rc = probe(d);
	if (rc == 0)
		rc = bench(d);
	if (d->mpi_rank != 0 || (d->world && ft_world_rank(d->world) != 0))
		return rc; /* the other MPI ranks only take part */
	if (rc == 0 && expectations(d) < 0)
		rc = cli_fail(d->ctx, FT_ENOMEM, NULL);
	if (rc)
		return rc;
	if (d->nbench_ok == 0 && !d->o->no_bench) {
		cli_error(d->ctx, "no benchmark could run (see 'not checked' below)");
		d->exit_code = EXIT_RUNTIME;
	}
	snprintf(d->rec.run.label, sizeof(d->rec.run.label), "doctor on %s%s%s", d->host,
	         d->o->full ? " (full)" : "", d->o->no_bench ? " (no bench)" : "");
	/* the wall clock at the start, not a monotonic time (that reads as 1970) */
	ft_usage_sample(&t1);
	ft_usage_apply(&t0, &t1, &d->rec.run);
	if (d->ctx->stable) {
		d->rec.run.started_s = 0;
		d->rec.run.wall_s = d->rec.run.cpu_s = d->rec.run.host_busy = NAN;
		d->rec.run.load1 = NAN;
	}
	if (unchecked_obs(d) < 0)
		return cli_fail(d->ctx, FT_ENOMEM, NULL);
	rc = diagnose(d);
	if (rc == 0)
		rc = fingerprint(d);
	if (rc)
		return rc;
	/* Without an archive or a report the findings still matter: say them, exit 3. */
	if (archive(d) != 0) {
		d->exit_code = EXIT_RUNTIME;
		if (d->ar) {
			ft_archive_close(d->ar);
			d->ar = NULL;
		}
	}
	if (d->exit_code == 0 && (ft_findings_any(&d->findings, FT_SEV_WARNING) ||
	                          (d->have_cmp && ft_compare_has_regression(&d->cmp))))
		d->exit_code = EXIT_PROBLEM;
	if (report(d) != 0)
		d->exit_code = EXIT_RUNTIME;
	ft_strbuf_init(&sb);
	if (d->ctx->json)
		render_json(d, &sb);
	else
		render_text(d, &sb);
	cli_write(&sb);
	ft_strbuf_release(&sb);
	return d->exit_code;
}

int
cmd_doctor(int argc, char **argv, struct cli_ctx *ctx)
{
	static const char *const synopsis[] = {
		"fabtune doctor [--spec SPEC] [-o REPORT.html] [--quick|--full] [options]",
		"mpirun -np N fabtune doctor [options]",
		NULL,
	};
	struct doctor_opts o = { .output = DOCTOR_DEFAULT_REPORT, .np = 2, .timeout = 10 };
	const struct opt opts[] = {
		OPT_STRING(0, "spec", &o.spec, "SPEC",
		           "cluster spec or preset for the model's expectations (default: from "
		           "the GPUs found)"),
		OPT_STRING('o', "output", &o.output, "FILE",
		           "HTML report (default " DOCTOR_DEFAULT_REPORT ")"),
		OPT_BOOL(0, "quick", &o.quick, "short benchmark suite (default; about 10 s)"),
		OPT_BOOL(0, "full", &o.full, "longer suite: more sizes and iterations"),
		OPT_STRING(0, "transports", &o.transports, "LIST",
		           "measure these transports only (tcp,shm,mpi,verbs,nccl; default: every "
		           "usable one)"),
		OPT_U64(0, "np", &o.np, "N", "local ranks to start (default 2)"),
		OPT_DURATION(0, "timeout", &o.timeout,
		             "a rank silent this long has failed (default 10s)"),
		OPT_STRING(0, "baseline", &o.baseline, "NAME",
		           "baseline to compare with (default doctor-HOST)"),
		OPT_BOOL(0, "update-baseline", &o.update_baseline,
		         "add this run to the baseline (more samples: noise-aware thresholds)"),
		OPT_BOOL(0, "no-save", &o.no_save, "do not store the run in the archive"),
		OPT_BOOL(0, "no-bench", &o.no_bench, "probe and diagnose only"),
		OPT_BOOL(0, "no-report", &o.no_report, "do not write the HTML report"),
		OPT_BOOL(0, "no-tools", &o.no_tools,
		         "do not run nvidia-smi, ibv_devinfo or ethtool"),
		OPT_STRING(0, "root", &o.root, "DIR",
		           "probe a captured sysfs tree instead of this host (no tools)"),
		OPT_END(),
	};
	const struct cmd_usage usage = {
		"doctor",
		synopsis,
		"Check this host (or every host under mpirun) end to end: probe, a short benchmark "
		"over every usable transport, the model's expectations, the diagnosis, the archive "
		"and a comparison with the baseline, then a summary and an HTML report. Says what "
		"could not be checked and why. Exit 0 healthy, 1 findings of severity warning or "
		"worse or a regression, 2 usage, 3 runtime error.",
		opts,
	};
	struct sigaction sa, old_int, old_term;
	struct doctor d;
	int n, rc;

	n = opts_parse(&usage, ctx, argc, argv);
	if (n < 0)
		return n == -2 ? EXIT_OK : EXIT_USAGE;
	if (n > 0) {
		cli_error(ctx, "unexpected argument '%s'", argv[1]);
		return EXIT_USAGE;
	}
	if (o.quick && o.full) {
		cli_error(ctx, "--quick and --full exclude each other");
		return EXIT_USAGE;
	}
	if (o.np < 2 || o.np > 64) {
		cli_error(ctx, "--np %" PRIu64 ": expected 2 to 64 local ranks", o.np);
		return EXIT_USAGE;
	}
	if (!(o.timeout > 0) || o.timeout > 3600) {
		cli_error(ctx, "--timeout: expected a duration above 0 and at most 1h");
		return EXIT_USAGE;
	}
	if (!o.output[0]) {
		cli_error(ctx, "--output: empty file name");
		return EXIT_USAGE;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	stop_flag = 0;
	doctor_init(&d, ctx, &o);
	rc = doctor_run(&d);
	if (d.world)
		ft_world_free(d.world);
	doctor_release(&d);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return rc;
}

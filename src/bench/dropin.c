/* SPDX-License-Identifier: MIT */
/*
 * bench/dropin.c - nccl-tests' and perftest's command lines.
 *
 * `fabtune bench` takes the flags of nccl-tests (-b -e -f -i -n -w -m -c -o
 * -d -z -a -r -t -g -N -C -T -G -p -y -R) and of perftest (-s -a -D -q
 * --report_gbits) so that a command line written for either runs as it is.
 * This file turns those raw values into a struct ft_bench_cfg, with the
 * checks and messages of each flag, rewrites perftest's value-less -a, and
 * runs the sweeps nccl-tests' "all" values ask for (-d all, -o all, -N).
 */
#include "bench_int.h"

#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <fabtune/launch.h>
#include <fabtune/units.h>

#include "coll/names.h"

void
ft_bench_args_init(struct ft_bench_args *a)
{
	memset(a, 0, sizeof(*a));
	a->minb = UINT64_MAX;
	a->maxb = UINT64_MAX;
	a->iters = UINT64_MAX;  /* not given: the pattern's default */
	a->window = UINT64_MAX; /* not given: the pattern's default */
	a->factor = 2;
	a->warmup = 5;
	a->check = 1;
	a->average = 1;
	a->streams = 1;
	a->rounds = 5;
	a->timeout = 30;
	a->threshold = 0.7;
	a->cycles = 1;
	a->np = 1;
	a->nthreads = 1;
	a->ngpus = 1;
	a->rank = UINT64_MAX;
}

static bool is_perftest_name(const char *a);

/* --ipv6-addr: HOST's first IPv6 address, numeric, or FT_ENOENT naming HOST. */
static int
ipv6_of(const char *host, char *addr, size_t len, struct ft_error *err)
{
	struct addrinfo hints, *res = NULL;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET6;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc != 0 || !res)
		return ft_error_set(err, FT_ENOENT,
		                    "client: --ipv6-addr: server '%s' has no IPv6 address (%s); "
		                    "leave --ipv6-addr out on both ends to meet over IPv4",
		                    host, rc ? gai_strerror(rc) : "none");
	rc = getnameinfo(res->ai_addr, res->ai_addrlen, addr, (socklen_t)len, NULL, 0,
	                 NI_NUMERICHOST);
	freeaddrinfo(res);
	if (rc != 0)
		return ft_error_set(err, FT_ENOENT, "client: --ipv6-addr: server '%s': %s", host,
		                    gai_strerror(rc));
	return 0;
}

/* Whether HOST's first address, as the client's connect takes it, is an IPv6 one. */
static bool
first_is_ipv6(const char *host)
{
	struct addrinfo hints, *res = NULL;
	bool v6;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, NULL, &hints, &res) != 0 || !res)
		return false;
	v6 = res->ai_family == AF_INET6;
	freeaddrinfo(res);
	return v6;
}

/*
 * perftest's server and client forms (its perftest_parameters.c: a host name
 * after the options makes the client, none the server; both meet on TCP port
 * 18515 unless -p says otherwise). Here they are a world of two ranks joined by
 * the --bootstrap machinery: the server is rank 0 and listens on every IPv4
 * address, as perftest's server does; the client is rank 1 and connects to
 * HOST, retrying until -T runs out where perftest tries once, so that a script
 * may start both ends at the same moment.
 *
 * IPv6: perftest's --ipv6-addr (given to both ends) moves its handshake to an
 * IPv6 socket; here the server then listens on [::] (which takes IPv4 clients
 * too, unless net.ipv6.bindv6only is set) and the client connects to HOST's
 * IPv6 address, FT_ENOENT when it has none. Without the flag the client still
 * takes an IPv6 literal or a name with IPv6 addresses only (perftest's refuses
 * them), but the server listens on IPv4 only: a client that cannot reach it
 * there says so (peer_error).
 */
static int
peer_form(struct ft_bench_args *a, struct ft_error *err)
{
	const char *prog = a->pattern ? a->pattern : "the pattern";
	bool perftest = is_perftest_name(a->pattern);
	bool launched = false, other;
	struct ft_launch l;
	uint16_t port;

	a->peer = FT_BENCH_PEER_NONE;
	a->peer_bootstrap[0] = '\0';
	if (ft_launch_detect(NULL, &l, NULL) == 0 && l.size > 1)
		launched = true;
	other = a->rank != UINT64_MAX || a->nranks || a->bootstrap || a->np > 1 ||
	        a->nthreads * a->ngpus > 1 || launched;
	if (a->ipv6_addr && (!perftest || other))
		return ft_error_set(err, FT_EINVAL,
		                    "--ipv6-addr: perftest's handshake over IPv6, for its server "
		                    "and client forms after ib_send_bw, ib_write_bw, ... (not with "
		                    "--np, --rank or a launcher, which meet over --bootstrap)");
	if (!a->server && !a->port && (!perftest || other))
		return 0; /* not perftest's forms: --np, --rank, the launcher's world */
	if (a->server && !perftest)
		return ft_error_set(err, FT_EINVAL,
		                    "%s %s: a server's name follows a perftest program "
		                    "(ib_send_bw HOST, ...), not %s",
		                    prog, a->server, prog);
	if (a->port && !perftest)
		return ft_error_set(err, FT_EINVAL,
		                    "--port %" PRIu64 ": perftest's handshake port, for its server "
		                    "and client forms after ib_send_bw, ib_write_bw, ...",
		                    a->port);
	if (a->port > 65535)
		return ft_error_set(err, FT_EINVAL, "-p/--port %" PRIu64 ": expected 1 to 65535",
		                    a->port);

	if (other) {
		const char *what = a->server ? a->server : "--port";
		const char *with = a->np > 1 ? "--np, which starts both ends here" :
		                   launched  ? "a launcher's ranks (mpirun, srun, torchrun)" :
		                   a->nthreads * a->ngpus > 1 ?
		                               "-g, which starts local ranks" :
		                               "--rank, --nranks and --bootstrap";

		if (a->server)
			return ft_error_set(err, FT_EINVAL,
			                    "%s %s: perftest's client form is one end of a pair by "
			                    "itself; it does not go with %s: give one or the other",
			                    prog, what, with);
		return ft_error_set(err, FT_EINVAL,
		                    "%s --port %" PRIu64 ": the port of perftest's server and "
		                    "client forms does not go with %s: give one or the other",
		                    prog, a->port, with);
	}
	port = (uint16_t)(a->port ? a->port : FT_BENCH_PERFTEST_PORT);
	if (a->server && (!a->server[0] || strlen(a->server) >= 96 || a->server[0] == '-'))
		return ft_error_set(err, FT_EINVAL,
		                    "%s '%s': expected the server's host name or address", prog,
		                    a->server);
	if (a->server && a->ipv6_addr) {
		char addr[INET6_ADDRSTRLEN];
		int rc = ipv6_of(a->server, addr, sizeof(addr), err);

		if (rc < 0)
			return rc;
		snprintf(a->peer_bootstrap, sizeof(a->peer_bootstrap), "[%s]:%u", addr,
		         (unsigned)port);
	} else if (a->server) {
		snprintf(a->peer_bootstrap, sizeof(a->peer_bootstrap),
		         strchr(a->server, ':') ? "[%s]:%u" : "%s:%u", a->server, (unsigned)port);
	} else {
		snprintf(a->peer_bootstrap, sizeof(a->peer_bootstrap),
		         a->ipv6_addr ? "[::]:%u" : "0.0.0.0:%u", (unsigned)port);
	}
	a->peer = a->server ? FT_BENCH_PEER_CLIENT : FT_BENCH_PEER_SERVER;
	a->rank = a->server ? 1 : 0;
	a->nranks = 2;
	a->bootstrap = a->peer_bootstrap;
	return 0;
}

int
ft_bench_args_launch(struct ft_bench_args *a, struct ft_error *err)
{
	int rc = peer_form(a, err);

	if (rc < 0)
		return rc;
	a->have_rank = a->rank != UINT64_MAX;
	if (!a->have_rank)
		a->rank = 0;
	if (a->have_rank && (a->nranks == 0 || a->rank >= a->nranks))
		return ft_error_set(err, FT_EINVAL, "--rank %" PRIu64 " needs --nranks N above it",
		                    a->rank);
	if (a->np == 0 || a->np > 256)
		return ft_error_set(err, FT_EINVAL, "--np %" PRIu64 ": expected 1 to 256", a->np);
	if (a->bootstrap && !a->have_rank)
		return ft_error_set(err, FT_EINVAL, "--bootstrap needs --rank and --nranks");
	if (a->nthreads == 0 || a->ngpus == 0 || a->nthreads > 256 || a->ngpus > 256)
		return ft_error_set(err, FT_EINVAL,
		                    "-t/--nthreads and -g/--ngpus: expected 1 to 256");
	if (a->have_rank || a->nthreads * a->ngpus == 1)
		return 0; /* the ranks --np starts carry --rank and ignore -t and -g */
	if (ft_world_launched_by_mpi())
		return ft_error_set(err, FT_EINVAL,
		                    "-t %" PRIu64 " -g %" PRIu64
		                    ": under mpirun every process is one "
		                    "rank; start %" PRIu64 " times as many processes instead",
		                    a->nthreads, a->ngpus, a->nthreads * a->ngpus);
	a->np *= a->nthreads * a->ngpus;
	if (a->np > 256)
		return ft_error_set(err, FT_EINVAL,
		                    "--np x -t x -g = %" PRIu64 ": at most 256 ranks", a->np);
	return 0;
}

static const char *
peer_name(enum ft_bench_peer p)
{
	return p == FT_BENCH_PEER_SERVER ? "server" : "client";
}

/* A server or client that could not meet its other end: which end, where, and what to do. */
static int
peer_error(const struct ft_bench_args *a, const struct ft_world_cfg *wc, int rc,
           struct ft_error *err)
{
	char msg[FT_ERROR_MSG_MAX];

	if (!err)
		return rc;
	ft_strlcpy(msg, err->msg[0] ? err->msg : ft_strerror(rc), sizeof(msg));
	ft_error_clear(err);
	if (rc == FT_ETIMEDOUT && a->peer == FT_BENCH_PEER_CLIENT && !a->ipv6_addr &&
	    first_is_ipv6(a->server))
		return ft_error_set(err, rc,
		                    "client: %s (tried for %.0fs: %s is an IPv6 address, and a "
		                    "server started without --ipv6-addr listens on IPv4 only: "
		                    "give --ipv6-addr to both ends, or an IPv4 address here)",
		                    msg, wc->timeout_s, a->server);
	if (rc == FT_ETIMEDOUT && a->peer == FT_BENCH_PEER_CLIENT)
		return ft_error_set(err, rc,
		                    "client: %s (tried for %.0fs: start `fabtune bench %s` on %s "
		                    "first, or raise -T)",
		                    msg, wc->timeout_s, a->pattern, a->server);
	if (rc == FT_ETIMEDOUT && a->peer == FT_BENCH_PEER_SERVER)
		return ft_error_set(err, rc,
		                    "server: %s: start `fabtune bench %s THIS_HOST` on the other "
		                    "host, or raise -T",
		                    msg, a->pattern);
	return ft_error_set(err, rc, "%s: %s", peer_name(a->peer), msg);
}

/* What the two ends of perftest's forms must agree on, or their loops part ways. */
struct peer_terms {
	uint64_t min_bytes, max_bytes, step_factor, step_bytes;
	double duration_s;
	uint32_t pattern, iters, warmup, window, streams;
	uint8_t bidir, check;
	char transport[16];
	char verbs_op[8];
};

static void
peer_terms(const struct ft_bench_cfg *cfg, struct peer_terms *t)
{
	memset(t, 0, sizeof(*t)); /* padding too: the struct travels as bytes */
	t->min_bytes = cfg->min_bytes;
	t->max_bytes = cfg->max_bytes;
	t->step_factor = cfg->step_factor;
	t->step_bytes = cfg->step_bytes;
	t->duration_s = cfg->duration_s;
	t->pattern = (uint32_t)cfg->pattern;
	t->iters = cfg->iters;
	t->warmup = cfg->warmup;
	t->window = cfg->window;
	t->streams = cfg->streams;
	t->bidir = cfg->bidir;
	t->check = cfg->check;
	ft_strlcpy(t->transport, cfg->transport, sizeof(t->transport));
	ft_strlcpy(t->verbs_op, cfg->verbs_op, sizeof(t->verbs_op));
}

/*
 * The server and client of perftest's forms are started with separate command
 * lines; perftest refuses some mismatches and hangs on others. Here the two
 * exchange what their loops depend on and both stop, naming the first option
 * that differs and both values, before anything is measured. Collective.
 */
static int
peer_agree(struct ft_world *w, const struct ft_bench_cfg *cfg, struct ft_error *err)
{
	struct peer_terms mine, all[2];
	const struct peer_terms *s = &all[0], *c = &all[1];
	char sv[48], cv[48];
	const char *what = NULL;
	int rc;

	peer_terms(cfg, &mine);
	rc = ft_world_allgather(w, &mine, sizeof(mine), all, err);
	if (rc < 0)
		return rc;
#define DIFF_U(field, name)                                                              \
	if (!what && s->field != c->field) {                                             \
		what = name;                                                             \
		snprintf(sv, sizeof(sv), "%" PRIu64, (uint64_t)s->field);                \
		snprintf(cv, sizeof(cv), "%" PRIu64, (uint64_t)c->field);                \
	}
#define DIFF_S(field, name)                                                              \
	if (!what && strcmp(s->field, c->field) != 0) {                                  \
		what = name;                                                             \
		snprintf(sv, sizeof(sv), "%s", s->field[0] ? s->field : "send");         \
		snprintf(cv, sizeof(cv), "%s", c->field[0] ? c->field : "send");         \
	}
	if (s->pattern != c->pattern) {
		what = "the program";
		snprintf(sv, sizeof(sv), "%s", ft_op_name((enum ft_op)s->pattern));
		snprintf(cv, sizeof(cv), "%s", ft_op_name((enum ft_op)c->pattern));
	}
	DIFF_S(transport, "--transport")
	DIFF_S(verbs_op, "the verb (--verbs-op)")
	DIFF_U(min_bytes, "the smallest size (-s, -a)")
	DIFF_U(max_bytes, "the largest size (-s, -a)")
	DIFF_U(step_factor, "the size step (-f)")
	DIFF_U(step_bytes, "the size step (-i)")
	DIFF_U(iters, "-n/--iters")
	DIFF_U(warmup, "-w/--warmup_iters")
	DIFF_U(window, "the tx depth (-t, --window)")
	DIFF_U(streams, "-q/--qp")
	DIFF_U(bidir, "-b/--bidir")
	DIFF_U(check, "the data check (-c)")
	if (!what && s->duration_s != c->duration_s) {
		what = "-D/--duration";
		snprintf(sv, sizeof(sv), "%gs", s->duration_s);
		snprintf(cv, sizeof(cv), "%gs", c->duration_s);
	}
#undef DIFF_U
#undef DIFF_S
	if (!what)
		return 0;
	return ft_error_set(err, FT_EINVAL,
	                    "server and client differ in %s: %s at the server (%s), %s at the "
	                    "client (%s); give both ends the same options",
	                    what, sv, ft_world_info(w, 0)->host, cv, ft_world_info(w, 1)->host);
}

int
ft_bench_args_join(const struct ft_bench_args *a, const struct ft_bench_cfg *cfg,
                   struct ft_world **out, struct ft_error *err)
{
	const char *fd_env = getenv("FABTUNE_BOOTSTRAP_FD");
	struct ft_world_cfg wcfg, *wc = &wcfg;
	uint64_t fd;
	int rc;

	*out = NULL;
	ft_world_cfg_init(wc);
	wc->use_mpi = !a->have_rank && ft_world_launched_by_mpi();
	wc->rank = (uint32_t)a->rank;
	wc->nranks = a->have_rank ? (uint32_t)a->nranks : 1;
	if (!a->have_rank) {
		rc = ft_bench_world_from_launcher(wc, a->bootstrap != NULL, err);
		if (rc < 0)
			return rc;
	}
	if (a->bootstrap)
		ft_strlcpy(wc->bootstrap, a->bootstrap, sizeof(wc->bootstrap));
	if (fd_env && a->have_rank && a->rank == 0) {
		if (ft_parse_u64(fd_env, &fd) == 0)
			wc->bootstrap_fd = (int)fd;
		unsetenv("FABTUNE_BOOTSTRAP_FD");
	}
	if (a->ifname)
		ft_strlcpy(wc->ifname, a->ifname, sizeof(wc->ifname));
	wc->timeout_s = cfg->timeout_s;
	wc->stop = a->stop;
	if (a->peer != FT_BENCH_PEER_NONE) {
		/* perftest opens its device before the handshake: a transport this host
		   lacks is said at once, not after waiting for the other end */
		rc = ft__transport_probe(cfg, err);
		if (rc < 0) {
			ft_error_prefix(err, "%s: ", peer_name(a->peer));
			return rc;
		}
		wc->root_name = "the server";
		wc->leaf_name = "client";
	}
	rc = ft_world_new(wc, out, err);
	if (rc < 0 && a->peer != FT_BENCH_PEER_NONE)
		return peer_error(a, wc, rc, err);
	if (rc == 0 && a->peer != FT_BENCH_PEER_NONE) {
		rc = peer_agree(*out, cfg, err);
		if (rc < 0) {
			ft_world_free(*out);
			*out = NULL;
		}
		return rc;
	}
	if (rc < 0 && a->have_rank && err && err->msg[0])
		ft_error_prefix(err, "rank %u: ", (unsigned)a->rank);
	else if (rc < 0 && a->have_rank)
		ft_error_set(err, rc, "rank %u: %s", (unsigned)a->rank, ft_strerror(rc));
	return rc;
}

bool
ft_bench_report_failed(const struct ft_bench_report *rep)
{
	size_t i;

	for (i = 0; i < ft_run_nrows(&rep->run); i++)
		if (ft_run_row(&rep->run, i)->wrong > 0)
			return true;
	return rep->outliers.len > 0;
}

/*
 * A time option into *@out: bare seconds as nccl-tests takes them ("-T 30"),
 * or a duration with its unit as fabtune's ("2m"). The error names @opt.
 */
static int
seconds(const char *text, const char *opt, double *out, struct ft_error *err)
{
	struct ft_error e = { 0 };
	double v;

	if (ft_parse_double(text, &v) < 0 && ft_parse_duration(text, &v, &e) < 0)
		return ft_error_set(err, FT_EINVAL, "%s: %s", opt, e.msg);
	*out = v;
	return 0;
}

/*
 * --cma-min: auto (NULL, the default: chosen per message from
 * FT_SHM_CMA_AUTO_MIN on), auto:SIZE (chosen per message from SIZE on),
 * off (or 0: never a single copy) or a SIZE from which every message is
 * one. @auto_min gets auto's SIZE, 0 for the default.
 */
static int
cma_min(const char *text, uint64_t *out, uint64_t *auto_min, struct ft_error *err)
{
	struct ft_error e = { 0 };

	*out = 0;
	*auto_min = 0;
	if (!text || strcmp(text, "auto") == 0)
		return 0;
	if (strncmp(text, "auto:", 5) == 0) {
		if (ft_parse_size(text + 5, auto_min, &e) < 0)
			return ft_error_set(err, FT_EINVAL, "--cma-min %s: %s", text, e.msg);
		if (*auto_min == 0)
			return ft_error_set(err, FT_EINVAL,
			                    "--cma-min %s: the size must be at least 1 byte "
			                    "(off: no single copies)", text);
		return 0;
	}
	if (strcmp(text, "off") == 0) {
		*out = FT_SHM_CMA_OFF;
		return 0;
	}
	if (ft_parse_size(text, out, &e) < 0)
		return ft_error_set(err, FT_EINVAL, "--cma-min: %s (or auto, auto:SIZE, off)",
		                    e.msg);
	if (*out == 0)
		*out = FT_SHM_CMA_OFF;
	return 0;
}

/* perftest's -c: RC (the default) or UD, verbs only; UD sweeps -a up to a 4096-byte MTU. */
static int
connection(const struct ft_bench_args *o, struct ft_bench_cfg *cfg, struct ft_error *err)
{
	if (strcmp(o->conn, "RC") == 0)
		return 0;
	if (strcmp(o->conn, "UD") != 0)
		return ft_error_set(err, FT_EINVAL,
		                    "-c/--connection '%s': expected RC or UD (UC, XRC, DC and SRD "
		                    "are not offered)",
		                    o->conn);
	if (!o->transport || strcmp(o->transport, "verbs") != 0)
		return ft_error_set(err, FT_EINVAL,
		                    "-c/--connection UD: unreliable datagrams need --transport verbs");
	ft_strlcpy(cfg->verbs_conn, "UD", sizeof(cfg->verbs_conn));
	if (o->all_sizes)
		cfg->max_bytes = 4096;
	return 0;
}

/*
 * The programs nccl-tests builds (src/Makefile BIN_FILES_LIST), each NAME_perf,
 * and with MPI=1 usually NAME_perf_mpi (the suffix is nccl-tests' NAME_SUFFIX);
 * alltoallv has no counterpart here.
 */
static const struct {
	const char *name;
	enum ft_op op;
} nccl_tests_programs[] = {
	{ "all_reduce", FT_OP_ALL_REDUCE }, { "all_gather", FT_OP_ALL_GATHER },
	{ "broadcast", FT_OP_BROADCAST },   { "reduce_scatter", FT_OP_REDUCE_SCATTER },
	{ "reduce", FT_OP_REDUCE },         { "alltoall", FT_OP_ALLTOALL },
	{ "scatter", FT_OP_SCATTER },       { "gather", FT_OP_GATHER },
	{ "sendrecv", FT_OP_SENDRECV },     { "hypercube", FT_OP_HYPERCUBE },
};

/* perftest's verbs programs: ib_<verb>_<bw|lat>, the verb as --verbs-op names it. */
static const struct {
	const char *verb, *op;
} perftest_verbs[] = {
	{ "send", "send" },
	{ "write", "write" },
	{ "read", "read" },
	{ "atomic", "fadd" }, /* ib_atomic_*: FETCH_AND_ADD unless -A says otherwise */
};

int
ft_bench_dropin_name(const char *name, struct ft_bench_dropin *out, struct ft_error *err)
{
	const char *base = name ? strrchr(name, '/') : NULL;
	char stem[64];
	size_t n, i;

	memset(out, 0, sizeof(*out));
	if (!name)
		return FT_ENOENT;
	base = base ? base + 1 : name;
	out->program = base;
	n = strlen(base);
	if (n >= sizeof(stem))
		return FT_ENOENT;
	memcpy(stem, base, n + 1);
	/* nccl-tests: NAME_perf or NAME_perf_mpi */
	if (n > 9 && strcmp(stem + n - 9, "_perf_mpi") == 0)
		stem[n - 9] = '\0';
	else if (n > 5 && strcmp(stem + n - 5, "_perf") == 0)
		stem[n - 5] = '\0';
	else
		stem[0] = '\0';
	if (stem[0]) {
		for (i = 0; i < FT_ARRAY_SIZE(nccl_tests_programs); i++)
			if (strcmp(stem, nccl_tests_programs[i].name) == 0) {
				out->pattern = nccl_tests_programs[i].op;
				out->tool = "nccl-tests";
				return 0;
			}
		if (strcmp(stem, "alltoallv") == 0)
			return ft_error_set(err, FT_ENOTSUP,
			                    "%s: nccl-tests' alltoallv (uneven counts) has no "
			                    "counterpart here; alltoall_perf measures even ones",
			                    base);
		return FT_ENOENT;
	}
	/* perftest: ib_VERB_bw, ib_VERB_lat */
	if (strncmp(base, "raw_ethernet_", 13) == 0)
		return ft_error_set(err, FT_ENOTSUP,
		                    "%s: perftest's raw Ethernet tests are not offered; "
		                    "ib_send_bw and ib_send_lat measure over verbs",
		                    base);
	if (strncmp(base, "ib_", 3) != 0)
		return FT_ENOENT;
	for (i = 0; i < FT_ARRAY_SIZE(perftest_verbs); i++) {
		size_t v = strlen(perftest_verbs[i].verb);

		if (strncmp(base + 3, perftest_verbs[i].verb, v) != 0 || base[3 + v] != '_')
			continue;
		if (strcmp(base + 4 + v, "bw") == 0)
			out->pattern = FT_OP_PT2PT_BW;
		else if (strcmp(base + 4 + v, "lat") == 0)
			out->pattern = FT_OP_PT2PT_LAT;
		else
			return FT_ENOENT;
		out->tool = "perftest";
		out->transport = "verbs";
		out->verbs_op = perftest_verbs[i].op;
		return 0;
	}
	return FT_ENOENT;
}

int
ft_bench_args_to_cfg(const struct ft_bench_args *o, struct ft_bench_cfg *cfg, struct ft_error *err)
{
	struct ft_bench_dropin prog;
	struct ft_bench_args a;
	int v, rc;

	if (o->table_format && ft__name_read(&ft__bench_table_styles, "--table-format",
	                                     o->table_format, -1, &v, err) < 0)
		return FT_EINVAL;

	ft_bench_cfg_init(cfg);
	/* a program's name (all_reduce_perf, ib_write_bw) stands for its pattern, and for
	   perftest's the transport and verb unless the line names them */
	rc = o->pattern ? ft_bench_dropin_name(o->pattern, &prog, err) : FT_ENOENT;
	if (rc == FT_ENOTSUP)
		return FT_EINVAL;
	if (rc == 0) {
		cfg->pattern = prog.pattern;
		/* RDMA write, read and atomics are verbs' own: over another transport the
		   program would measure something else under its name */
		if (prog.verbs_op && strcmp(prog.verbs_op, "send") != 0 && o->transport &&
		    strcmp(o->transport, "verbs") != 0)
			return ft_error_set(err, FT_EINVAL,
			                    "%s: --transport %s has no RDMA %s; %s measures it over "
			                    "verbs (ib_send_%s sends over any transport)",
			                    prog.program, o->transport,
			                    strcmp(prog.verbs_op, "fadd") == 0 ? "atomics" :
			                                                         prog.verbs_op,
			                    prog.program,
			                    prog.pattern == FT_OP_PT2PT_LAT ? "lat" : "bw");
		a = *o;
		if (!a.transport)
			a.transport = prog.transport;
		if (!a.verbs_op)
			a.verbs_op = prog.verbs_op;
		/* ib_atomic_*: one 8-byte word, perftest's only size */
		if (prog.verbs_op && strcmp(prog.verbs_op, "fadd") == 0 && !a.msg_size &&
		    !a.all_sizes && a.minb == UINT64_MAX && a.maxb == UINT64_MAX)
			a.msg_size = 8;
		o = &a;
	} else {
		rc = o->pattern ? ft__name_read(&ft__coll_ops, "pattern", o->pattern, -1, &v, err) :
		                  0;
		if (rc == 0 && o->pattern)
			cfg->pattern = (enum ft_op)v;
	}
	if (o->transport)
		ft_strlcpy(cfg->transport, o->transport, sizeof(cfg->transport));
	if (rc == 0 && o->bind &&
	    (rc = ft__name_read(&ft__bench_binds, "--bind", o->bind, -1, &v, err)) == 0)
		cfg->bind = (enum ft_bench_bind)v;
	if (rc == 0 && o->spin &&
	    (rc = ft__name_read(&ft__bench_spins, "--spin", o->spin, -1, &v, err)) == 0)
		cfg->spin = (enum ft_bench_spin)v;
	if (rc == 0 && o->op &&
	    (rc = ft__name_read(&ft__bench_redop_options, "-o/--op", o->op, -1, &v, err)) == 0 &&
	    v < FT_REDOP_COUNT) /* all: ft_bench_run_sweep() */
		cfg->op = (enum ft_redop)v;
	if (rc == 0 && o->dtype &&
	    (rc = ft__name_read(&ft__bench_dtype_options, "-d/--datatype", o->dtype, -1, &v,
	                        err)) == 0 &&
	    v < FT_DTYPE_COUNT)
		cfg->dtype = (enum ft_dtype)v;
	if (rc < 0)
		return rc;
	/* 0 is not "the default": a run of no iterations or no messages in flight is refused */
	if (o->iters == 0 || o->window == 0) {
		return ft_error_set(err, FT_EINVAL, "%s: expected a count of at least 1, got 0",
		                    o->iters == 0 ? "-n/--iters" : "--window");
	}
	if (o->agg_iters > 100000 || o->cycles > UINT32_MAX) {
		return ft_error_set(err, FT_EINVAL,
		                    "-m/--agg_iters or -N/--run_cycles is out of range");
	}
	if (o->cputime < 0 || o->cputime > 1 || o->parallel_init < 0 || o->parallel_init > 1 ||
	    o->stream_null < 0 || o->stream_null > 1 || o->local_register < 0 ||
	    o->local_register > 1) {
		return ft_error_set(err, FT_EINVAL, "-C, -p, -y and -R take 0 or 1");
	}
	if (o->graph < 0 || o->graph > 100000)
		return ft_error_set(err, FT_EINVAL, "-G/--cudagraph %d: expected 0 to 100000",
		                    o->graph);
	cfg->graph_launches = (uint32_t)o->graph;
	cfg->gpu_buffers = o->gpu_buffers;
	cfg->agg_iters = (uint32_t)o->agg_iters;
	if (o->duration_str && seconds(o->duration_str, "-D/--duration", &cfg->duration_s, err) < 0)
		return FT_EINVAL;
	cfg->report_cputime = o->cputime != 0;
	if ((o->iters != UINT64_MAX && o->iters > UINT32_MAX) || o->warmup > UINT32_MAX ||
	    (o->window != UINT64_MAX && o->window > UINT32_MAX) || o->streams > UINT32_MAX ||
	    o->rounds > UINT32_MAX) {
		return ft_error_set(err, FT_EINVAL, "a count option is out of range");
	}
	if (o->check < 0 || o->check > 1 || o->blocking < 0 || o->blocking > 1) {
		return ft_error_set(err, FT_EINVAL, "-c/--check and -z/--blocking take 0 or 1");
	}
	if (o->minb != UINT64_MAX && o->minb == 0) {
		return ft_error_set(err, FT_EINVAL, "-b/--minbytes: must be at least 1 byte");
	}
	cfg->min_bytes = o->minb == UINT64_MAX ? 0 : o->minb;
	cfg->max_bytes = o->maxb == UINT64_MAX ? 0 : o->maxb;
	/* perftest: -s one size, -a every power of two from 2 B to 8 MiB */
	if ((o->msg_size || o->all_sizes) && (o->minb != UINT64_MAX || o->maxb != UINT64_MAX)) {
		return ft_error_set(
		        err, FT_EINVAL,
		        "-s/--size and -a/--all-sizes replace -b and -e: give one or the other");
	}
	if (o->msg_size && o->all_sizes) {
		return ft_error_set(err, FT_EINVAL,
		                    "-s/--size and -a/--all-sizes: give one or the other");
	}
	if (o->msg_size)
		cfg->min_bytes = cfg->max_bytes = o->msg_size;
	if (o->all_sizes) {
		cfg->min_bytes = 2;
		cfg->max_bytes = 8u << 20;
	}
	if (cfg->max_bytes == 0 && o->maxb != UINT64_MAX) {
		return ft_error_set(err, FT_EINVAL, "-e/--maxbytes: must be at least 1 byte");
	}
	if (cfg->min_bytes && !cfg->max_bytes)
		cfg->max_bytes = cfg->min_bytes;
	if (cfg->max_bytes && !cfg->min_bytes)
		cfg->min_bytes = cfg->max_bytes;
	cfg->step_bytes = o->stepb;
	cfg->step_factor = o->factor;
	cfg->iters = o->iters == UINT64_MAX ? 0 : (uint32_t)o->iters;
	cfg->warmup = (uint32_t)o->warmup;
	cfg->check = o->check != 0;
	cfg->blocking = o->blocking != 0;
	cfg->average = (enum ft_bench_average)o->average;
	cfg->root = o->root;
	cfg->window = o->window == UINT64_MAX ? 0 : (uint32_t)o->window;
	cfg->bidir = o->bidir;
	cfg->streams = (uint32_t)o->streams;
	/* perftest's -q: the parallel connections of a pair: verbs' queue pairs, tcp's sockets */
	if (o->qps > 1) {
		if (!o->transport ||
		    (strcmp(o->transport, "tcp") != 0 && strcmp(o->transport, "verbs") != 0)) {
			return ft_error_set(err, FT_EINVAL,
			                    "-q/--qp %" PRIu64
			                    ": several queue pairs with --transport verbs, or "
			                    "tcp (as --streams)",
			                    o->qps);
		}
		if (o->qps > 64) {
			return ft_error_set(err, FT_EINVAL, "-q/--qp %" PRIu64 ": expected 1 to 64",
			                    o->qps);
		}
		cfg->streams = (uint32_t)o->qps;
	}
	if (o->ifname)
		ft_strlcpy(cfg->ifname, o->ifname, sizeof(cfg->ifname));
	cfg->sockbuf_bytes = o->sockbuf;
	cfg->shm_max_bytes = o->shm_max;
	if (cma_min(o->cma_min, &cfg->shm_cma_min_bytes, &cfg->shm_cma_auto_bytes, err) < 0)
		return FT_EINVAL;
	cfg->nodelay = !o->no_nodelay;
	cfg->timeout_s = o->timeout;
	if (o->timeout_str && seconds(o->timeout_str, "-T/--timeout", &cfg->timeout_s, err) < 0)
		return FT_EINVAL;
	cfg->threshold = o->threshold;
	cfg->retest = !o->no_retest;
	cfg->rounds = (uint32_t)o->rounds;
	cfg->seed = o->seed;
	if (o->verbs_op) {
		static const char *const ops[] = { "send", "write", "read", "fadd", "cswap" };
		size_t i;

		for (i = 0; i < FT_ARRAY_SIZE(ops) && strcmp(o->verbs_op, ops[i]) != 0; i++)
			;
		if (i == FT_ARRAY_SIZE(ops))
			return ft_error_set(err, FT_EINVAL,
			                    "--verbs-op '%s': expected send, write, read, fadd or "
			                    "cswap",
			                    o->verbs_op);
		ft_strlcpy(cfg->verbs_op, o->verbs_op, sizeof(cfg->verbs_op));
	}
	if (o->conn && connection(o, cfg, err) < 0)
		return FT_EINVAL;
	/* perftest's -A: ib_atomic_bw's operation, as --verbs-op names it */
	if (o->atomic_type) {
		if (strcmp(o->atomic_type, "FETCH_AND_ADD") != 0 &&
		    strcmp(o->atomic_type, "CMP_AND_SWAP") != 0)
			return ft_error_set(err, FT_EINVAL,
			                    "-A/--atomic_type '%s': expected FETCH_AND_ADD or "
			                    "CMP_AND_SWAP",
			                    o->atomic_type);
		ft_strlcpy(cfg->verbs_op, o->atomic_type[0] == 'F' ? "fadd" : "cswap",
		           sizeof(cfg->verbs_op));
	}
	if (o->rdma_dev)
		ft_strlcpy(cfg->rdma_device, o->rdma_dev, sizeof(cfg->rdma_device));
	cfg->gid_index = o->gid_index;
	cfg->stop = o->stop;
	/* perftest's server and client both print the table */
	cfg->rows_everywhere = o->peer != FT_BENCH_PEER_NONE;
	{
		if (cfg->min_bytes && cfg->max_bytes && cfg->min_bytes > cfg->max_bytes) {
			return ft_error_set(err, FT_EINVAL,
			                    "-b/--minbytes %" PRIu64
			                    " is above -e/--maxbytes %" PRIu64,
			                    cfg->min_bytes, cfg->max_bytes);
		}
		ft_bench_cfg_resolve(cfg);
		return ft_bench_cfg_check(cfg, err) < 0 ? FT_EINVAL : 0;
	}
	return 0;
}

int
ft_bench_cfg_check_world(const struct ft_bench_cfg *cfg, uint32_t n, struct ft_error *err)
{
	enum ft_op p = cfg->pattern;
	bool rooted = p == FT_OP_BROADCAST || p == FT_OP_REDUCE || p == FT_OP_GATHER ||
	              p == FT_OP_SCATTER || p == FT_OP_INCAST;

	/* the messages of the runs' own checks (runner.c, patterns_pairs.c, patterns_incast.c) */
	if (p == FT_OP_HYPERCUBE && (n == 0 || (n & (n - 1)) != 0))
		return ft_error_set(err, FT_EINVAL,
		                    "hypercube needs a power-of-two number of ranks, not %u", n);
	if (p == FT_OP_INCAST && n < 3)
		return ft_error_set(err, FT_EINVAL,
		                    "incast needs at least 3 ranks (senders, a root and a victim)");
	if ((p == FT_OP_PAIRS || p == FT_OP_BISECTION) && n < 2)
		return ft_error_set(err, FT_EINVAL, "%s needs at least 2 ranks", ft_op_name(p));
	if (rooted && cfg->root >= 0 && (uint32_t)cfg->root >= n)
		return ft_error_set(err, FT_EINVAL, "--root %d: the world has %u ranks", cfg->root,
		                    n);
	return 0;
}

static bool
reduces(enum ft_op p)
{
	return p == FT_OP_ALL_REDUCE || p == FT_OP_REDUCE || p == FT_OP_REDUCE_SCATTER;
}

/* Whether @s names the last of @set's names: "all" in the -d and -o option sets. */
static bool
names_all(const struct ft__name_set *set, const char *s)
{
	int v;

	return s && ft__name_lookup(set, s, &v) == 0 && (size_t)v + 1 == set->count;
}

/*
 * The sweeps the options ask for, rows in one report: -N cycles, each over
 * every type (-d all) and, for the reductions, every operation (-o all),
 * in nccl-tests' order (type outer, operation inner). Collective.
 */
int
ft_bench_run_sweep(struct ft_world *w, const struct ft_bench_args *o, struct ft_bench_cfg *c,
                   struct ft_bench_report *rep, struct ft_error *err)
{
	bool all_types = names_all(&ft__bench_dtype_options, o->dtype);
	bool all_ops = names_all(&ft__bench_redop_options, o->op);
	/* -d all in nccl-tests' order of ncclDataType_t */
	static const enum ft_dtype order[] = {
		FT_DTYPE_INT8,   FT_DTYPE_UINT8, FT_DTYPE_INT32, FT_DTYPE_UINT32, FT_DTYPE_INT64,
		FT_DTYPE_UINT64, FT_DTYPE_HALF,  FT_DTYPE_FLOAT, FT_DTYPE_DOUBLE, FT_DTYPE_BFLOAT16,
	};
	_Static_assert(FT_ARRAY_SIZE(order) == FT_DTYPE_COUNT, "-d all lists every type");
	uint32_t ntypes = all_types ? FT_DTYPE_COUNT : 1;
	uint32_t nops = all_ops && reduces(c->pattern) ? FT_REDOP_COUNT : 1;
	uint64_t cycle;
	uint32_t t, op;
	bool first = true;
	int rc = 0;

	/* one communicator for the whole sweep, as nccl-tests (runner.c) */
	w->keep_ep = true;
	for (cycle = 0; rc == 0 && (o->cycles == 0 || cycle < o->cycles); cycle++) {
		for (t = 0; t < ntypes && rc == 0; t++) {
			for (op = 0; op < nops && rc == 0; op++) {
				struct ft_bench_report one;
				size_t i;

				if (all_types)
					c->dtype = order[t];
				if (all_ops && reduces(c->pattern))
					c->op = (enum ft_redop)op;
				if (first) {
					rc = ft_bench_run(w, c, rep, err);
					first = false;
					continue;
				}
				ft_bench_report_init(&one);
				rc = ft_bench_run(w, c, &one, err);
				for (i = 0; i < ft_run_nrows(&one.run); i++)
					if (ft_run_add(&rep->run, ft_run_row(&one.run, i)) < 0)
						rc = rc ? rc : FT_ENOMEM;
				rep->interrupted = rep->interrupted || one.interrupted;
				ft_bench_report_release(&one);
			}
		}
		if (c->stop && *c->stop)
			break;
	}
	ft__bench_drop_kept(w);
	/* several ranks: the message says which one failed, and where */
	if (rc < 0 && ft_world_size(w) > 1 && err) {
		const struct ft_rank_info *inf = ft_world_info(w, ft_world_rank(w));

		if (!err->msg[0])
			ft_error_set(err, rc, "%s", ft_strerror(rc));
		ft_error_prefix(err, "rank %u (host %s): ", ft_world_rank(w),
		                inf ? inf->host : "?");
	}
	/* the archive's name for the run */
	if (!rep->run.label[0])
		snprintf(rep->run.label, sizeof(rep->run.label), "%s over %s, %u ranks",
		         ft_run_nrows(&rep->run) ? ft_run_row(&rep->run, 0)->test : "bench",
		         rep->transport, rep->nranks);
	return rc;
}

static bool
is_pt2pt_name(const char *a)
{
	struct ft_bench_dropin d;
	enum ft_op p;

	if (ft_bench_dropin_name(a, &d, NULL) == 0)
		return d.pattern == FT_OP_PT2PT_BW || d.pattern == FT_OP_PT2PT_LAT;
	return ft_op_from_name(a, &p) == 0 && (p == FT_OP_PT2PT_BW || p == FT_OP_PT2PT_LAT);
}

static bool
is_perftest_name(const char *a)
{
	struct ft_bench_dropin d;

	return a && ft_bench_dropin_name(a, &d, NULL) == 0 && strcmp(d.tool, "perftest") == 0;
}

/*
 * `-a` is nccl-tests' averaging (-a 0..3) and perftest's "all sizes" (no
 * value). With a point-to-point pattern on the line, an -a that is not
 * followed by 0, 1, 2 or 3 is perftest's: it becomes --all-sizes.
 */
void
ft_bench_args_perftest_a(int argc, char **argv)
{
	bool pt2pt = false, perftest = false;
	int i;

	for (i = 1; i < argc; i++) {
		if (is_perftest_name(argv[i]))
			perftest = true;
		if (is_pt2pt_name(argv[i]) ||
		    ((strcmp(argv[i - 1], "-p") == 0 || strcmp(argv[i - 1], "--pattern") == 0) &&
		     is_pt2pt_name(argv[i])) ||
		    (strncmp(argv[i], "--pattern=", 10) == 0 && is_pt2pt_name(argv[i] + 10)))
			pt2pt = true;
	}
	if (!pt2pt)
		return;
	for (i = 1; i < argc; i++) {
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(argv[i], "-a") == 0 &&
		    !(next && next[0] >= '0' && next[0] <= '3' && next[1] == '\0'))
			argv[i] = (char *)"--all-sizes";
		/* perftest's -c takes a connection type, nccl-tests' 0 or 1 */
		if (strcmp(argv[i], "-c") == 0 && next && (next[0] < '0' || next[0] > '9'))
			argv[i] = (char *)"--connection";
		if (!perftest)
			continue;
		/* after ib_write_bw and its kin, perftest's letters where nccl-tests has others */
		if (strcmp(argv[i], "-d") == 0)
			argv[i] = (char *)"--rdma-device"; /* perftest: IB device, not the datatype */
		else if (strcmp(argv[i], "-x") == 0)
			argv[i] = (char *)"--gid-index";
		else if (strcmp(argv[i], "-b") == 0)
			argv[i] = (char *)"--bidir"; /* perftest: bidirectional, not -b SIZE */
		else if (strcmp(argv[i], "-t") == 0)
			argv[i] = (char *)"--window"; /* perftest: tx depth, not threads */
		else if (strcmp(argv[i], "-p") == 0)
			argv[i] = (char *)"--port"; /* perftest: handshake port, not -p 0|1 */
	}
}

int
ft_bench_args_perftest_check(int argc, char **argv, struct ft_error *err)
{
	static const struct {
		const char *flag, *what, *instead;
	} unsupported[] = {
		{ "-i", "adapter port", "fabtune takes the device's first active port "
		                        "(name the device with -d)" },
		{ "-m", "MTU", "fabtune uses the port's active MTU" },
		{ "-e", "completion events", "fabtune polls the completion queue" },
		{ "-R", "rdma_cm connection", "fabtune connects the queue pairs itself" },
		{ "-l", "post list", "one work request is posted at a time" },
		{ "-I", "inline size", "sends are not inlined" },
	};
	int i, k;

	for (i = 1; i < argc; i++) {
		if (!is_perftest_name(argv[i]))
			continue;
		for (k = i + 1; k < argc; k++)
			for (size_t u = 0; u < FT_ARRAY_SIZE(unsupported); u++)
				if (strcmp(argv[k], unsupported[u].flag) == 0)
					return ft_error_set(err, FT_EINVAL,
					                    "%s %s: perftest's %s is not offered; %s",
					                    argv[i], argv[k], unsupported[u].what,
					                    unsupported[u].instead);
		return 0;
	}
	return 0;
}

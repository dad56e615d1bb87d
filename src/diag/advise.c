/* SPDX-License-Identifier: MIT */
/*
 * diag/advise.c - the advisor: from observations and the findings of a
 * diagnosis, the concrete changes (NCCL environment, MTU, PFC/ECN/DCQCN,
 * adaptive routing, QPs per connection, channels, placement, hardware), each
 * with the findings and observations that motivate it and, where knowledge-
 * base facts allow, the predicted gain.
 *
 * Gains are computed, never looked up: MTU changes from the per-packet
 * header sizes of IB-MTU and ROCE-WIRE; bandwidth fixes from the measured
 * busbw against the model's expectation, or against NA-EXPECT's 90% of the
 * aggregate line rate of the active ports of a host; link repairs from the
 * ratio of rates. Where no figure can be derived the gain is NAN and the
 * basis says why.
 */
#include "internal.h"

#include <fabtune/diag.h>

#include "diag/diag_int.h"

/* IB-MTU: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 bytes per packet. */
#define IB_PKT_OVERHEAD 26.0
/* ROCE-WIRE: Eth 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 + preamble/IFG 20. */
#define ROCE_PKT_OVERHEAD 82.0
/* NA-EXPECT: ~90% of line rate is good for large NCCL messages (heuristic). */
#define LINE_RATE_GOOD 0.90

double
ft_diag_payload_efficiency(double mtu, double overhead)
{
	if (mtu <= 0 || overhead < 0)
		return 0;
	return mtu / (mtu + overhead);
}

void
ft_advice_set_init(struct ft_advice_set *s)
{
	ft_vec_init(&s->v, sizeof(struct ft_advice));
	ft_strpool_init(&s->files);
}

void
ft_advice_set_release(struct ft_advice_set *s)
{
	ft_vec_release(&s->v);
	ft_strpool_release(&s->files);
}

const struct ft_advice *
ft_advice_find(const struct ft_advice_set *s, const char *id)
{
	size_t i;

	for (i = 0; i < ft_advice_set_len(s); i++)
		if (strcmp(ft_advice_set_at(s, i)->id, id) == 0)
			return ft_advice_set_at(s, i);
	return NULL;
}

struct adv_ctx {
	const struct ft_diag_ctx *c;
	const struct ft_findings *f;
	struct ft_advice_set *out;
};

/* First finding of any of the space-separated rule ids in @rules, or NULL. */
static const struct ft_finding *
finding_of(const struct adv_ctx *a, const char *rules)
{
	size_t i;

	for (i = 0; i < ft_findings_len(a->f); i++) {
		const struct ft_finding *x = ft_findings_at(a->f, i);
		const char *p = rules;
		size_t n = strlen(x->rule_id);

		while ((p = strstr(p, x->rule_id)) != NULL) {
			if ((p == rules || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
				return x;
			p += n;
		}
	}
	return NULL;
}

/* Append " @word" (no space when @buf is empty) to @buf of @len bytes, truncating. */
static void
append_word(char *buf, size_t len, const char *word, size_t n)
{
	size_t used = strlen(buf);

	if (used && used + 1 < len)
		buf[used++] = ' ';
	if (used + 1 >= len)
		return;
	if (n > len - used - 1)
		n = len - used - 1;
	memcpy(buf + used, word, n);
	buf[used + n] = '\0';
}

/* The ids of the findings among @rules that exist, space separated (no allocation). */
static void
finding_ids(const struct adv_ctx *a, const char *rules, char *buf, size_t len)
{
	const char *p = rules;
	char id[48];

	buf[0] = '\0';
	while (*p) {
		size_t n = strcspn(p, " ");

		if (n && n < sizeof(id)) {
			memcpy(id, p, n);
			id[n] = '\0';
			if (ft_findings_count_rule(a->f, id))
				append_word(buf, len, id, n);
		}
		p += n;
		p += strspn(p, " ");
	}
}

static void add_evidence(struct ft_advice *x, const struct ft_obs *o);

/* Start an advice motivated by the findings of @rules (evidence from the first ones). */
static void
advice_start(const struct adv_ctx *a, struct ft_advice *x, const char *id, const char *category,
	     const char *setting, const char *rules, const char *kb)
{
	size_t i, k;

	memset(x, 0, sizeof(*x));
	ft_strlcpy(x->id, id, sizeof(x->id));
	ft_strlcpy(x->category, category, sizeof(x->category));
	ft_strlcpy(x->setting, setting, sizeof(x->setting));
	ft_strlcpy(x->kb, kb, sizeof(x->kb));
	x->gain_pct = NAN;
	if (!rules)
		return;
	finding_ids(a, rules, x->findings, sizeof(x->findings));
	for (i = 0; i < ft_findings_len(a->f) && x->nevidence < FT_ADVICE_MAX_EVIDENCE; i++) {
		const struct ft_finding *f = ft_findings_at(a->f, i);

		if (!strstr(x->findings, f->rule_id))
			continue;
		for (k = 0; k < f->nevidence; k++)
			add_evidence(x, &f->evidence[k]);
	}
}

static int
advice_add(const struct adv_ctx *a, const struct ft_advice *x)
{
	struct ft_advice copy;
	size_t k;

	if (ft_advice_find(a->out, x->id))
		return 0;
	copy = *x;
	for (k = 0; k < copy.nevidence && k < FT_ADVICE_MAX_EVIDENCE; k++)
		if (ft_obs_intern(&a->out->files, &copy.evidence[k]) < 0)
			return FT_ENOMEM;
	return ft_vec_push(&a->out->v, &copy);
}

/* Append @o unless it is there already (same source line and key) or the list is full. */
static void
add_evidence(struct ft_advice *x, const struct ft_obs *o)
{
	size_t i;

	if (!o || x->nevidence >= FT_ADVICE_MAX_EVIDENCE)
		return;
	for (i = 0; i < x->nevidence; i++)
		if (x->evidence[i].line == o->line && strcmp(x->evidence[i].file, o->file) == 0 &&
		    strcmp(x->evidence[i].key, o->key) == 0 && ft__same_port(&x->evidence[i], o))
			return;
	x->evidence[x->nevidence++] = *o;
}

/* ---- figures for gains --------------------------------------------------- */

/* Largest measured busbw (GB/s), or NULL. */
static const struct ft_obs *
best_busbw(const struct ft_diag_ctx *c)
{
	const struct ft_obs *best = NULL;
	size_t i;

	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);

		if (strcmp(o->key, "bench.busbw") == 0 && o->has_num &&
		    (!best || o->num > best->num))
			best = o;
	}
	return best;
}

/*
 * The busbw a healthy fabric should give: the largest expectation when the
 * model gave one, else NA-EXPECT's 90% of the aggregate rate of the active
 * InfiniBand-or-RoCE ports of the host that has the most. 0 when unknown.
 */
static double
expected_busbw(const struct ft_diag_ctx *c, char *basis, size_t len)
{
	double best = 0, rate = 0;
	size_t i, k, nports = 0;

	for (i = 0; i < c->nexpect; i++)
		if (c->expect[i].busbw_GBps > best)
			best = c->expect[i].busbw_GBps;
	if (best > 0) {
		snprintf(basis, len, "model expectation %.1f GB/s", best);
		return best;
	}
	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);
		const struct ft_obs *st;
		size_t n = 0;

		if (strcmp(o->key, "ib.port.rate") != 0 || !o->has_num)
			continue;
		st = ft__diag_find_same(c, "ib.port.state", o);
		if (!st || !ft__port_state_active(st->str))
			continue;
		for (k = 0; k < ft__nobs(c); k++) {
			const struct ft_obs *p = ft__obs(c, k);
			const struct ft_obs *ps;

			if (strcmp(p->key, "ib.port.rate") != 0 || strcmp(p->host, o->host) != 0 ||
			    !p->has_num || p->num != o->num)
				continue;
			ps = ft__diag_find_same(c, "ib.port.state", p);
			if (ps && ft__port_state_active(ps->str))
				n++;
		}
		if (n * o->num > nports * rate) {
			nports = n;
			rate = o->num;
		}
	}
	if (!nports)
		return 0;
	snprintf(basis, len, "%.0f%% of %zu active port%s x %.0f Gb/s (NA-EXPECT)",
		 100 * LINE_RATE_GOOD, nports, nports == 1 ? "" : "s", rate);
	return LINE_RATE_GOOD * (double)nports * rate / 8.0;
}

/* Gain of reaching the expected busbw from the measured one. */
static void
bandwidth_gain(const struct adv_ctx *a, struct ft_advice *x)
{
	const struct ft_obs *m = best_busbw(a->c);
	char basis[128];
	double e = expected_busbw(a->c, basis, sizeof(basis));

	if (!m || e <= 0) {
		snprintf(x->gain_basis, sizeof(x->gain_basis), "not computable: %s",
			 !m ? "no measured busbw among the inputs"
			    : "no expectation and no active port rate");
		return;
	}
	add_evidence(x, m);
	if (m->num >= e) {
		x->gain_pct = 0;
		snprintf(x->gain_basis, sizeof(x->gain_basis),
			 "measured %.1f GB/s already meets %s", m->num, basis);
		return;
	}
	x->gain_pct = 100.0 * (e / m->num - 1);
	snprintf(x->gain_basis, sizeof(x->gain_basis), "measured busbw %.1f GB/s vs %s = %.1f GB/s",
		 m->num, basis, e);
}

/* Gain of regaining the smallest run's plateau at the largest scale (SYM-SCALE-DROP). */
static void
scale_gain(const struct adv_ctx *a, struct ft_advice *x)
{
	const struct ft_finding *f = finding_of(a, "perf-scale-drop");
	const struct ft_obs *lo, *hi;

	if (!f || f->nevidence < 2) {
		ft_strlcpy(x->gain_basis, "not computable without the fabric's topology",
			   sizeof(x->gain_basis));
		return;
	}
	lo = &f->evidence[0];
	hi = &f->evidence[f->nevidence - 1];
	if (!lo->has_num || !hi->has_num || hi->num <= 0 || lo->num <= hi->num) {
		ft_strlcpy(x->gain_basis, "not computable", sizeof(x->gain_basis));
		return;
	}
	x->gain_pct = 100.0 * (lo->num / hi->num - 1);
	snprintf(x->gain_basis, sizeof(x->gain_basis),
		 "upper bound: the largest run regaining the smallest run's plateau, %.1f -> %.1f "
		 "GB/s busbw",
		 hi->num, lo->num);
}

/* ---- NCCL environment ---------------------------------------------------- */

static int
adv_network(const struct adv_ctx *a)
{
	const struct ft_finding *f = finding_of(a, "nccl-socket-transport");
	const struct ft_obs *dis = ft__diag_env(a->c, "NCCL_IB_DISABLE");
	struct ft_advice x;
	int rc;

	if (!f)
		return 0;
	if (dis && strcmp(dis->str, "0") != 0) {
		advice_start(a, &x, "nccl-ib-disable", "nccl-env", "NCCL_IB_DISABLE",
			     "nccl-socket-transport nccl-env-leftover",
			     "ENV-IB_DISABLE SYM-BW-SOCKET");
		x.is_env = true;
		x.unset = true;
		snprintf(x.reason, sizeof(x.reason),
			 "NCCL_IB_DISABLE=%s forces the TCP socket transport", dis->str);
		bandwidth_gain(a, &x);
		rc = advice_add(a, &x);
		if (rc < 0)
			return rc;
	}
	if (f->severity < FT_SEV_ERROR && !ft__diag_find(a->c, "ib.port.state"))
		return 0; /* no sign of an RDMA NIC: do not force IB */
	advice_start(a, &x, "nccl-net", "nccl-env", "NCCL_NET", "nccl-socket-transport",
		     "ENV-NET SYM-BW-SOCKET");
	x.is_env = true;
	ft_strlcpy(x.value, "IB", sizeof(x.value));
	snprintf(x.reason, sizeof(x.reason),
		 "NCCL fell back to sockets; NCCL_NET=IB makes it use verbs or fail loudly "
		 "instead of running at TCP speed");
	bandwidth_gain(a, &x);
	return advice_add(a, &x);
}

static int
adv_rdma_stack(const struct adv_ctx *a)
{
	struct ft_advice x;

	if (!finding_of(a, "nccl-no-rdma-device eth-not-rdma-netdev roce-gid-empty"))
		return 0;
	advice_start(a, &x, "rdma-stack", "host", "RDMA user space and devices",
		     "nccl-no-rdma-device eth-not-rdma-netdev roce-gid-empty",
		     "SYM-BW-SOCKET HOST-LIMITS ROCE-GID");
	ft_strlcpy(x.value, "rdma-core + /dev/infiniband + NIC netdev in the namespace",
		   sizeof(x.value));
	ft_strlcpy(x.action,
		   "install rdma-core (libibverbs, mlx5 provider) in the image; run the container "
		   "with --device /dev/infiniband; attach the RDMA NIC's netdev (SR-IOV VF or "
		   "macvlan) so show_gids lists a RoCE v2 GID",
		   sizeof(x.action));
	ft_strlcpy(x.reason,
		   "the process cannot see a usable RDMA device, so NCCL or perftest "
		   "cannot use verbs",
		   sizeof(x.reason));
	bandwidth_gain(a, &x);
	return advice_add(a, &x);
}

/* Is @item one of the entries of the "=a,b,c" list @buf? */
static bool
hca_listed(const char *buf, const char *item)
{
	size_t n = strlen(item);
	const char *p = buf;

	while ((p = strstr(p, item)) != NULL) {
		if (p > buf && (p[-1] == '=' || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			return true;
		p += n;
	}
	return false;
}

/* Append "=item" or ",item" to the HCA list @buf; false when it does not fit. */
static bool
hca_append(char *buf, size_t len, const char *item, size_t n)
{
	size_t used = strlen(buf);
	char sep = used ? ',' : '=';

	if (used + 1 + n + 1 > len)
		return false;
	buf[used++] = sep;
	memcpy(buf + used, item, n);
	buf[used + n] = '\0';
	return true;
}

/*
 * The exact list "=dev:port,..." of active InfiniBand ports, from the ports
 * or else from NCCL's device list; "" when none, or when the list would not
 * fit in @len (a truncated list would drop rails).
 */
static void
ib_only_hca_list(const struct ft_diag_ctx *c, char *buf, size_t len)
{
	size_t i;
	bool ok = true;

	buf[0] = '\0';
	for (i = 0; i < ft__nobs(c) && ok; i++) {
		const struct ft_obs *o = ft__obs(c, i);
		const struct ft_obs *ll;
		char item[80];

		if (strcmp(o->key, "ib.port.state") != 0 || !ft__port_state_active(o->str) ||
		    !o->device[0] || o->port < 0)
			continue;
		ll = ft__diag_find_same(c, "ib.port.link_layer", o);
		if (ll && !ft__str_ieq(ll->str, "InfiniBand"))
			continue;
		snprintf(item, sizeof(item), "%s:%d", o->device, o->port);
		if (!hca_listed(buf, item))
			ok = hca_append(buf, len, item, strlen(item));
	}
	if (ok && !buf[0]) {
		/* From NCCL's "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE ..." list. */
		const struct ft_obs *l = ft__diag_find(c, "nccl.ib_hca");
		const char *p = l ? l->str : "";

		while (ok && (p = strchr(p, ']')) != NULL) {
			size_t n = strcspn(p + 1, "/ ");

			if (strncmp(p + 1 + n, "/IB", 3) == 0)
				ok = hca_append(buf, len, p + 1, n);
			p++;
		}
	}
	if (!ok)
		buf[0] = '\0';
}

static int
adv_ib_hca(const struct adv_ctx *a)
{
	static const char rules[] = "nccl-mixed-link-layers nccl-ib-hca-ethernet "
				    "nccl-incompatible-devices nccl-ib-hca-prefix";
	struct ft_advice x;

	if (!finding_of(a, rules))
		return 0;
	advice_start(a, &x, "nccl-ib-hca", "nccl-env", "NCCL_IB_HCA", rules,
		     "ENV-IB_HCA SYM-INCOMPAT-DEV");
	x.is_env = true;
	ib_only_hca_list(a->c, x.value, sizeof(x.value));
	if (!x.value[0])
		return 0;
	snprintf(x.reason, sizeof(x.reason),
		 "select only the InfiniBand ports, by exact name, so no rank picks an Ethernet, "
		 "bond or prefix-matched device");
	snprintf(x.gain_basis, sizeof(x.gain_basis),
		 "not computable: fixes connection failures, not a rate");
	return advice_add(a, &x);
}

static int
adv_socket_ifname(const struct adv_ctx *a)
{
	const struct ft_finding *f = finding_of(a, "nccl-socket-ifname");
	struct ft_advice x;
	size_t i;

	if (!f)
		return 0;
	advice_start(a, &x, "nccl-socket-ifname", "nccl-env", "NCCL_SOCKET_IFNAME",
		     "nccl-socket-ifname", "ENV-SOCKET_IFNAME SYM-INIT-HANG");
	x.is_env = true;
	for (i = 0; i < ft__nobs(a->c); i++) {
		const struct ft_obs *o = ft__obs(a->c, i);

		if (strcmp(o->key, "eth.link.detected") == 0 && ft__str_ieq(o->str, "yes") &&
		    o->device[0] && strcmp(o->device, "lo") != 0 &&
		    strncmp(o->device, "docker", 6) != 0 && strncmp(o->device, "veth", 4) != 0 &&
		    strncmp(o->device, "virbr", 5) != 0) {
			snprintf(x.value, sizeof(x.value), "=%s", o->device);
			add_evidence(&x, o);
			break;
		}
	}
	if (x.value[0]) {
		snprintf(x.reason, sizeof(x.reason),
			 "use an interface with link that routes between the nodes, the same on "
			 "all nodes");
	} else {
		/*
		 * ENV-SOCKET_IFNAME: a leading '^' is an exclude list. With no routable
		 * interface among the inputs, exclude the ones that never route between
		 * nodes and let NCCL pick among the rest.
		 */
		ft_strlcpy(x.value, "^lo,docker,virbr,veth", sizeof(x.value));
		snprintf(x.reason, sizeof(x.reason),
			 "%.200s; no interface with link is among the inputs, so exclude "
			 "loopback, container bridges and veth pairs (or name the node's routable "
			 "interface with '=IF')",
			 f->message);
	}
	snprintf(x.gain_basis, sizeof(x.gain_basis),
		 "not computable: fixes bootstrap reachability");
	return advice_add(a, &x);
}

static int
adv_gdr(const struct adv_ctx *a)
{
	struct ft_advice x;

	if (!finding_of(a, "nccl-gdr-disabled"))
		return 0;
	advice_start(a, &x, "gdr", "host", "nvidia-peermem / DMA-BUF", "nccl-gdr-disabled",
		     "HOST-GDR ENV-DMABUF SYM-BW-HALF");
	ft_strlcpy(x.value, "GPUDirect RDMA on", sizeof(x.value));
	ft_strlcpy(x.action,
		   "modprobe nvidia-peermem (and load it at boot), or use the open GPU kernel "
		   "module with DMA-BUF; keep NCCL_NET_GDR_LEVEL unset",
		   sizeof(x.action));
	ft_strlcpy(x.reason, "without GDR every network transfer is staged through host memory",
		   sizeof(x.reason));
	bandwidth_gain(a, &x);
	return advice_add(a, &x);
}

static int
adv_bond_qps(const struct adv_ctx *a)
{
	struct ft_advice x;
	int rc;

	if (finding_of(a, "nccl-bond-single-qp")) {
		advice_start(a, &x, "nccl-qps-bond", "qps", "NCCL_IB_QPS_PER_CONNECTION",
			     "nccl-bond-single-qp", "ENV-IB_QPS ROCE-ECMP SYM-BW-HALF");
		x.is_env = true;
		ft_strlcpy(x.value, "2", sizeof(x.value));
		ft_strlcpy(x.reason, "one QP maps to one member port of a bond: 2 QPs use both",
			   sizeof(x.reason));
		/* 2 members instead of 1 carry the traffic (I#1015 via ENV-IB_QPS). */
		x.gain_pct = 100.0 * (2.0 / 1.0 - 1);
		ft_strlcpy(x.gain_basis, "NIC-bound traffic over 2 bond members instead of 1",
			   sizeof(x.gain_basis));
		rc = advice_add(a, &x);
		if (rc < 0)
			return rc;
		advice_start(a, &x, "nccl-split-data", "qps", "NCCL_IB_SPLIT_DATA_ON_QPS",
			     "nccl-bond-single-qp", "ENV-IB_SPLIT ENV-IB_QPS");
		x.is_env = true;
		ft_strlcpy(x.value, "0", sizeof(x.value));
		ft_strlcpy(x.reason,
			   "round-robin messages over the QPs (the maintainers' pairing "
			   "with 2 QPs on bonds)",
			   sizeof(x.reason));
		ft_strlcpy(x.gain_basis, "part of the change above", sizeof(x.gain_basis));
		return advice_add(a, &x);
	}
	if (finding_of(a, "roce-ecn-rate-high perf-pair-outlier perf-scale-drop") &&
	    ft__diag_has_roce(a->c)) {
		advice_start(a, &x, "nccl-qps-ecmp", "qps", "NCCL_IB_QPS_PER_CONNECTION",
			     "roce-ecn-rate-high perf-pair-outlier perf-scale-drop",
			     "ENV-IB_QPS ROCE-ECMP");
		x.is_env = true;
		ft_strlcpy(x.value, "4", sizeof(x.value));
		ft_strlcpy(x.reason,
			   "each QP is one ECMP path: more QPs spread a ring over more "
			   "uplinks and reduce hash collisions",
			   sizeof(x.reason));
		scale_gain(a, &x);
		return advice_add(a, &x);
	}
	return 0;
}

static int
adv_channels(const struct adv_ctx *a)
{
	struct ft_advice x;
	const struct ft_obs *t = NULL;
	size_t i;

	if (ft__diag_env(a->c, "NCCL_NCHANNELS_PER_NET_PEER"))
		return 0;
	for (i = 0; i < ft__nobs(a->c) && !t; i++) {
		const struct ft_obs *o = ft__obs(a->c, i);

		if (strcmp(o->key, "bench.test") == 0 &&
		    (strstr(o->str, "alltoall") || strstr(o->str, "sendrecv")))
			t = o;
	}
	if (!t || !finding_of(a, "nccl-p2p-channels perf-busbw-below-model perf-pair-outlier"))
		return 0;
	advice_start(a, &x, "nccl-channels-per-peer", "channels", "NCCL_NCHANNELS_PER_NET_PEER",
		     "nccl-p2p-channels perf-busbw-below-model perf-pair-outlier",
		     "ENV-NCH_NET_PEER SYM-P2P-LOW");
	x.is_env = true;
	ft_strlcpy(x.value, "4", sizeof(x.value));
	add_evidence(&x, t);
	snprintf(x.reason, sizeof(x.reason),
		 "%s is point-to-point bound: more channels per network peer let one peer pair "
		 "fill the NIC",
		 t->str);
	bandwidth_gain(a, &x);
	return advice_add(a, &x);
}

/*
 * ENV-NCHANNELS: NCCL_MIN/MAX_NCHANNELS are the pre-2.17 names of
 * NCCL_MIN/MAX_CTAS; from 2.17 on the old names are deprecated (both are read
 * and the more restrictive bound wins). A floor costs SMs, a cap can leave
 * NICs idle; the advice keeps the bound under its current name, with what it
 * does, and the leftover-variable advice removes the old name.
 */
static int
adv_nchannels(const struct adv_ctx *a)
{
	static const struct {
		const char *old, *cur, *id, *what;
	} vars[] = {
		{ "NCCL_MIN_NCHANNELS", "NCCL_MIN_CTAS", "nccl-min-ctas",
		  "a floor on the channels (each a CUDA block taken from compute kernels); "
		  "below it NCCL may leave NICs idle, above it small messages get slower" },
		{ "NCCL_MAX_NCHANNELS", "NCCL_MAX_CTAS", "nccl-max-ctas",
		  "a cap on the channels: below 2 channels per NIC the NICs cannot all be "
		  "kept busy" },
	};
	const struct ft_obs *ver = NULL;
	int v = ft__diag_nccl_version(a->c, &ver);
	size_t i;
	int rc;

	for (i = 0; i < FT_ARRAY_SIZE(vars); i++) {
		const struct ft_obs *o = ft__diag_env(a->c, vars[i].old);
		struct ft_advice x;
		double n;

		if (!o || ft__diag_env(a->c, vars[i].cur) || !ft__obs_number(o, &n) || n < 1)
			continue;
		if (v && v < 21700)
			continue; /* the old name is the only one this NCCL reads */
		advice_start(a, &x, vars[i].id, "channels", vars[i].cur, "nccl-env-leftover",
			     "ENV-NCHANNELS");
		x.is_env = true;
		add_evidence(&x, o);
		snprintf(x.value, sizeof(x.value), "%.0f", n);
		snprintf(x.reason, sizeof(x.reason),
			 "%s=%.0f uses the name deprecated since NCCL 2.17%s%s; %s=%.0f is %s. Keep "
			 "it only where a benchmark with and without it shows a gain",
			 vars[i].old, n, ver ? ", this log is NCCL " : "", ver ? ver->str : "",
			 vars[i].cur, n, vars[i].what);
		ft_strlcpy(x.gain_basis,
			   "not computable: needs NCCL's own channel count and a cluster spec to "
			   "compare the two channel counts",
			   sizeof(x.gain_basis));
		rc = advice_add(a, &x);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int
adv_env_unset(const struct adv_ctx *a)
{
	size_t i;
	int rc;

	for (i = 0; i < ft_findings_len(a->f); i++) {
		const struct ft_finding *f = ft_findings_at(a->f, i);
		struct ft_advice x;
		const char *name;

		if ((strcmp(f->rule_id, "nccl-env-leftover") != 0 &&
		     strcmp(f->rule_id, "nccl-env-link-layer") != 0) ||
		    !f->nevidence || !ft__str_has_prefix(f->evidence[0].key, "nccl.env."))
			continue;
		name = f->evidence[0].key + strlen("nccl.env.");
		if (strcmp(name, "NCCL_IB_DISABLE") == 0 &&
		    ft_advice_find(a->out, "nccl-ib-disable"))
			continue;
		if (strcmp(name, "NCCL_IB_TIMEOUT") == 0 && ft_advice_find(a->out, "nccl-ib-timeout"))
			continue;
		advice_start(a, &x, "", "nccl-env", name, NULL, "SYM-ENV-LEFTOVER");
		snprintf(x.id, sizeof(x.id), "unset-%.32s", name);
		ft_strlcpy(x.findings, f->rule_id, sizeof(x.findings));
		add_evidence(&x, &f->evidence[0]);
		x.is_env = true;
		x.unset = true;
		snprintf(x.reason, sizeof(x.reason), "%s", f->message);
		ft_strlcpy(x.gain_basis, "not computable: depends on what the override restricts",
			   sizeof(x.gain_basis));
		rc = advice_add(a, &x);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int
adv_gid_index(const struct adv_ctx *a)
{
	const struct ft_finding *f = finding_of(a, "roce-gid-index nccl-modify-qp-failed");
	const struct ft_obs *ver;
	struct ft_advice x;
	size_t i;
	int v = ft__diag_nccl_version(a->c, &ver);

	if (!f)
		return 0;
	advice_start(a, &x, "nccl-ib-gid-index", "nccl-env", "NCCL_IB_GID_INDEX",
		     "roce-gid-index nccl-modify-qp-failed",
		     "ENV-IB_GID_INDEX ROCE-GID SYM-QP-GID");
	x.is_env = true;
	ft_strlcpy(x.gain_basis, "not computable: fixes connection setup", sizeof(x.gain_basis));
	if (v >= 22100) {
		x.unset = true;
		snprintf(x.reason, sizeof(x.reason),
			 "NCCL %s selects the RoCE v2 IPv4 GID itself; use NCCL_IB_ADDR_RANGE to "
			 "choose a subnet",
			 ver->str);
		return advice_add(a, &x);
	}
	for (i = 0; i < ft__nobs(a->c); i++) {
		const struct ft_obs *o = ft__obs(a->c, i);
		const struct ft_obs *gv;

		if (strcmp(o->key, "roce.gid.index") != 0 || !o->has_num ||
		    !(strstr(o->str, "::ffff:") || strchr(o->str, '.')))
			continue;
		gv = ft__diag_find_line(a->c, "roce.gid.version", o);
		if (!gv || !strchr(gv->str, '2'))
			continue;
		snprintf(x.value, sizeof(x.value), "%.0f", o->num);
		add_evidence(&x, o);
		snprintf(x.reason, sizeof(x.reason), "index %.0f is the RoCE v2 IPv4 GID %s on %s",
			 o->num, o->str, o->device);
		return advice_add(a, &x);
	}
	return 0;
}

/* ---- RoCE QoS and congestion control ------------------------------------- */

/* First PFC-enabled priority in @s, or -1. */
static int
first_pfc_prio(const char *s)
{
	int n = 0, i;
	const char *p;

	for (p = s, i = 0; *p; p++)
		if (*p == '0' || *p == '1')
			n++;
	if (n == 8) {
		for (p = s; *p; p++) {
			if (*p == '1')
				return i;
			if (*p == '0')
				i++;
		}
		return -1;
	}
	for (p = s; *p; p++)
		if (*p >= '0' && *p <= '7')
			return *p - '0';
	return -1;
}

static int
adv_qos(const struct adv_ctx *a)
{
	const struct ft_finding *f;
	struct ft_advice x;
	int rc;

	f = finding_of(a, "roce-pfc-wrong-priority");
	if (f) {
		const struct ft_obs *pfc = ft__diag_find(a->c, "roce.qos.pfc_enabled_prios");
		int prio = pfc ? first_pfc_prio(pfc->str) : -1;

		if (prio >= 0) {
			int dscp = 8 * prio + 2; /* AF-style DSCP in the priority's default block */
			int tc = dscp << 2 | 2;	 /* ECN bits ECT(0), as in the common value 106 */

			advice_start(a, &x, "nccl-ib-tc", "qos", "NCCL_IB_TC",
				     "roce-pfc-wrong-priority", "ENV-IB_TC ROCE-QOS");
			x.is_env = true;
			snprintf(x.value, sizeof(x.value), "%d", tc);
			snprintf(x.reason, sizeof(x.reason),
				 "TC %d = DSCP %d, which the default dscp2prio map puts on "
				 "priority %d "
				 "where PFC is enabled; set it identically on every node",
				 tc, dscp, prio);
			ft_strlcpy(x.gain_basis, "not computable: removes loss and retransmissions",
				   sizeof(x.gain_basis));
			rc = advice_add(a, &x);
			if (rc < 0)
				return rc;
		}
	}
	f = finding_of(a, "roce-pfc-off");
	if (f) {
		advice_start(a, &x, "roce-pfc", "qos", "PFC priorities", "roce-pfc-off",
			     "ROCE-PFC ROCE-QOS");
		ft_strlcpy(x.value, "priority 3 lossless", sizeof(x.value));
		snprintf(x.action, sizeof(x.action),
			 "mlnx_qos -i %s --trust dscp --pfc 0,0,0,1,0,0,0,0 on every host, PFC on "
			 "priority 3 on every switch hop, then NCCL_IB_TC=106",
			 f->evidence[0].device[0] ? f->evidence[0].device : "IF");
		ft_strlcpy(x.reason, "RoCE needs a lossless priority for NCCL traffic",
			   sizeof(x.reason));
		ft_strlcpy(x.gain_basis, "not computable: removes loss and retransmissions",
			   sizeof(x.gain_basis));
		rc = advice_add(a, &x);
		if (rc < 0)
			return rc;
	}
	f = finding_of(a, "roce-trust-pcp");
	if (f) {
		advice_start(a, &x, "roce-trust", "qos", "trust mode", "roce-trust-pcp",
			     "ROCE-QOS");
		ft_strlcpy(x.value, "dscp", sizeof(x.value));
		snprintf(x.action, sizeof(x.action), "mlnx_qos -i %s --trust dscp",
			 f->evidence[0].device[0] ? f->evidence[0].device : "IF");
		ft_strlcpy(x.reason,
			   "classify RoCE by DSCP so NCCL_IB_TC selects the lossless "
			   "priority without VLAN tags",
			   sizeof(x.reason));
		ft_strlcpy(x.gain_basis, "not computable", sizeof(x.gain_basis));
		rc = advice_add(a, &x);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * Why ECN marking is advised after pauses: what the ECN counters of the
 * paused host say. Marks present mean marking starts too late (thresholds at
 * or above PFC XOFF) or senders react too slowly; no mark counter among the
 * inputs says nothing either way.
 */
static bool
ecn_reason(const struct adv_ctx *a, const struct ft_finding *f, char *buf, size_t len)
{
	static const char *const pkts_keys[] = { "ib.counter.PortRcvPkts",
						 "eth.counter.rx_packets_phy",
						 "eth.counter.rx_packets" };
	const struct ft_obs *marks = NULL, *pk = NULL;
	double m = 0, p = 0;
	size_t i, k;

	for (i = 0; i < ft__nobs(a->c) && !marks; i++) {
		const struct ft_obs *o = ft__obs(a->c, i);

		if (ft__key_match(o->key, "*counter.np_ecn_marked_roce_packets") &&
		    (!f->nevidence || strcmp(o->host, f->evidence[0].host) == 0))
			marks = o;
	}
	if (!marks || !ft__obs_number(marks, &m)) {
		snprintf(buf, len,
			 "pauses are high and no ECN mark counter is among the inputs: check that "
			 "the switch marks ECN on the RoCE queue below the PFC XOFF threshold");
		return false;
	}
	if (m <= 0) {
		snprintf(buf, len, "pauses with no ECN marks mean PFC alone handles congestion");
		return false;
	}
	for (k = 0; k < FT_ARRAY_SIZE(pkts_keys) && !pk; k++)
		pk = ft__diag_find_dev(a->c, pkts_keys[k], marks);
	if (pk && ft__obs_number(pk, &p) && p > 0)
		snprintf(buf, len,
			 "pauses while %.1f%% of received packets are ECN-marked: marking works "
			 "but starts too late or senders react too slowly; set the ECN thresholds "
			 "well below PFC XOFF and check DCQCN on the senders",
			 100.0 * m / p);
	else
		snprintf(buf, len,
			 "pauses while %.0f packets were ECN-marked: marking works but starts too "
			 "late or senders react too slowly; set the ECN thresholds well below PFC "
			 "XOFF and check DCQCN on the senders",
			 m);
	return true;
}

static int
adv_dcqcn(const struct adv_ctx *a)
{
	const struct ft_finding *f;
	const struct ft_obs *pfc = ft__diag_find(a->c, "roce.qos.pfc_enabled_prios");
	int prio = pfc ? first_pfc_prio(pfc->str) : -1;
	struct ft_advice x;
	int rc;

	if (prio < 0)
		prio = 3;
	f = finding_of(a, "roce-ecn-no-cnp roce-cnp-ignored");
	if (f) {
		const char *dev = f->evidence[0].device[0] ? f->evidence[0].device : "DEV";

		advice_start(a, &x, "dcqcn-enable", "dcqcn", "roce_np / roce_rp enable",
			     "roce-ecn-no-cnp roce-cnp-ignored", "ROCE-DCQCN SYM-ROCE-NO-CC");
		snprintf(x.value, sizeof(x.value), "1 on priority %d", prio);
		snprintf(x.action, sizeof(x.action),
			 "for the netdev of %s: echo 1 > /sys/class/net/IF/ecn/roce_np/enable/%d; "
			 "echo 1 > /sys/class/net/IF/ecn/roce_rp/enable/%d",
			 dev, prio, prio);
		ft_strlcpy(x.reason,
			   "without notification and reaction points senders never slow "
			   "down and PFC carries all congestion",
			   sizeof(x.reason));
		ft_strlcpy(x.gain_basis, "not computable: depends on the traffic pattern",
			   sizeof(x.gain_basis));
		rc = advice_add(a, &x);
		if (rc < 0)
			return rc;
	}
	f = finding_of(a, "roce-pfc-only eth-rx-pause-high");
	if (f) {
		advice_start(a, &x, "ecn-marking", "dcqcn", "switch ECN marking",
			     "roce-pfc-only eth-rx-pause-high", "ROCE-DCQCN ROCE-PFC");
		if (ecn_reason(a, f, x.reason, sizeof(x.reason)))
			snprintf(x.value, sizeof(x.value),
				 "marking below PFC XOFF for the RoCE queue (priority %d)", prio);
		else
			snprintf(x.value, sizeof(x.value), "on for the RoCE queue (priority %d)",
				 prio);
		ft_strlcpy(
			x.action,
			"enable ECN (WRED-style) marking on the switch queue of the RoCE priority "
			"with thresholds below the PFC XOFF threshold; map CNPs (DSCP 48) to a "
			"high-priority class",
			sizeof(x.action));
		ft_strlcpy(x.gain_basis, "not computable: depends on the traffic pattern",
			   sizeof(x.gain_basis));
		rc = advice_add(a, &x);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- MTU ----------------------------------------------------------------- */

static int
adv_mtu(const struct adv_ctx *a)
{
	static const struct {
		const char *rule, *id, *setting, *kb;
		double overhead;
	} kinds[] = {
		{ "roce-mtu-below-4096", "roce-mtu", "netdev MTU", "ROCE-MTU ROCE-WIRE",
		  ROCE_PKT_OVERHEAD },
		{ "ib-mtu-below-4096", "ib-mtu", "IB MTU", "IB-MTU", IB_PKT_OVERHEAD },
	};
	size_t k;
	int rc;

	for (k = 0; k < FT_ARRAY_SIZE(kinds); k++) {
		const struct ft_finding *f = finding_of(a, kinds[k].rule);
		struct ft_advice x;
		double cur, e0, e1;

		if (!f || !f->nevidence || !f->evidence[0].has_num)
			continue;
		cur = f->evidence[0].num;
		advice_start(a, &x, kinds[k].id, "mtu", kinds[k].setting, kinds[k].rule,
			     kinds[k].kb);
		if (k == 0) {
			ft_strlcpy(x.value, "9000 (RoCE MTU 4096)", sizeof(x.value));
			ft_strlcpy(
				x.action,
				"ip link set dev IF mtu 9000 on every host, jumbo frames on every "
				"switch port of the path",
				sizeof(x.action));
		} else {
			ft_strlcpy(x.value, "4096", sizeof(x.value));
			ft_strlcpy(x.action,
				   "set mtu-limit 4096 for the partition/QoS level in the subnet "
				   "manager, on every hop",
				   sizeof(x.action));
		}
		e0 = ft_diag_payload_efficiency(cur, kinds[k].overhead);
		e1 = ft_diag_payload_efficiency(4096, kinds[k].overhead);
		x.gain_pct = 100.0 * (e1 / e0 - 1);
		snprintf(x.gain_basis, sizeof(x.gain_basis),
			 "payload efficiency %.2f%% -> %.2f%% with %.0f bytes of "
			 "per-packet overhead; "
			 "packet rate / %.0f",
			 100 * e0, 100 * e1, kinds[k].overhead, 4096 / cur);
		snprintf(x.reason, sizeof(x.reason),
			 "active MTU %.0f bytes: more header bytes and %.0fx the packets per byte",
			 cur, 4096 / cur);
		rc = advice_add(a, &x);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- fabric, placement, host, hardware ------------------------------------ */

static int
adv_routing(const struct adv_ctx *a)
{
	struct ft_advice x;

	/* IB-COUNTERS: congestion counters *without* physical errors point at routing. */
	if (!finding_of(a, "ib-xmit-wait ib-xmit-discards perf-scale-drop") ||
	    finding_of(a, "ib-link-downed ib-link-recovery ib-symbol-errors ib-rcv-errors "
			  "ib-link-integrity ib-port-down") ||
	    (ft__diag_has_roce(a->c) && !ft__diag_has_active_ib(a->c) &&
	     !ft__diag_find(a->c, "ib.counter.PortXmitWait")))
		return 0;
	advice_start(a, &x, "adaptive-routing", "routing", "subnet manager routing engine",
		     "ib-xmit-wait ib-xmit-discards perf-scale-drop",
		     "IB-AR IB-SM SYM-IB-CONGESTION SYM-SCALE-DROP");
	ft_strlcpy(x.value, "ar_updn (adaptive routing), AR-enabled SL for NCCL", sizeof(x.value));
	ft_strlcpy(x.action,
		   "routing_engine ar_updn in opensm.conf (or UFM), reload the SM, keep "
		   "NCCL_IB_ADAPTIVE_ROUTING=1 (the IB default) and NCCL_IB_SL on an AR-enabled SL",
		   sizeof(x.action));
	ft_strlcpy(x.reason,
		   "congestion counters without physical errors, or busbw falling with scale, "
		   "point at routing imbalance; AR spreads flows by port load",
		   sizeof(x.reason));
	scale_gain(a, &x);
	return advice_add(a, &x);
}

/* ENV-IB_TIMEOUT: one try waits 4.096 us x 2^value. */
static double
ib_timeout_s(double value)
{
	return 4.096e-6 * ldexp(1.0, (int)value);
}

/* ENV-IB_TIMEOUT default of the NCCL version @v (major*10000+minor*100+patch; 0 unknown). */
static int
ib_timeout_default(int v)
{
	if (v && v < 21400)
		return 14;
	if (v && v < 22300)
		return 18;
	return 20;
}

/*
 * Error 12 on RoCE: a retry-exceeded QP means packets were lost (no lossless
 * class, PFC off on a hop, drops) far more often than a slow fabric. A longer
 * timeout only delays the abort, and on Ethernet nothing reroutes under the
 * QP in the meantime, so the advice is the loss check and a timeout no
 * longer than the default.
 */
static int
adv_timeout_roce(const struct adv_ctx *a)
{
	const struct ft_obs *ver = NULL, *cur = ft__diag_env(a->c, "NCCL_IB_TIMEOUT");
	int def = ib_timeout_default(ft__diag_nccl_version(a->c, &ver));
	struct ft_advice x;
	double v;
	int rc;

	if (cur && ft__obs_number(cur, &v) && v > def && v < 32) {
		advice_start(a, &x, "nccl-ib-timeout", "nccl-env", "NCCL_IB_TIMEOUT",
			     "nccl-retry-exceeded", "ENV-IB_TIMEOUT SYM-ERR-12 ROCE-COUNTERS");
		x.is_env = true;
		x.unset = true;
		add_evidence(&x, cur);
		snprintf(x.reason, sizeof(x.reason),
			 "RoCE: NCCL_IB_TIMEOUT=%.0f waits %.1f s per try (%.0f s with 7 "
			 "retries) before a dead peer or a lost packet is reported; the "
			 "default %d (%.1f s per try) detects failures sooner, and loss on "
			 "RoCE is fixed in the lossless config, not by waiting",
			 v, ib_timeout_s(v), 7 * ib_timeout_s(v), def, ib_timeout_s(def));
		ft_strlcpy(x.gain_basis, "not computable: changes failure detection time, not a rate",
			   sizeof(x.gain_basis));
		rc = advice_add(a, &x);
		if (rc < 0)
			return rc;
	}
	advice_start(a, &x, "roce-loss-check", "qos", "lossless RoCE class", "nccl-retry-exceeded",
		     "SYM-ERR-12 ROCE-PFC ROCE-COUNTERS ENV-IB_TIMEOUT");
	snprintf(x.value, sizeof(x.value), "PFC on the NCCL priority on every hop; NCCL_IB_TIMEOUT "
					   "at most %d",
		 def);
	ft_strlcpy(x.action,
		   "mlnx_qos -i IF on every host (trust dscp, PFC on the priority of NCCL_IB_TC); "
		   "ethtool -S IF | grep -E 'discard|out_of|prio'; the switch's PFC and drop "
		   "counters for that priority",
		   sizeof(x.action));
	snprintf(x.reason, sizeof(x.reason),
		 "error 12 on RoCE means packets were lost and retransmitted until the retry count "
		 "ran out: find the lossy hop; raising NCCL_IB_TIMEOUT to 22 would only make each "
		 "try wait %.1f s",
		 ib_timeout_s(22));
	ft_strlcpy(x.gain_basis, "not computable: removes loss and aborts, not a rate",
		   sizeof(x.gain_basis));
	return advice_add(a, &x);
}

static int
adv_timeout(const struct adv_ctx *a)
{
	static const char phys[] =
		"ib-link-downed ib-link-recovery ib-symbol-errors eth-phy-errors "
		"roce-ack-timeouts roce-sequence-errors nccl-link-event "
		"nccl-peer-unreachable nccl-modify-qp-failed";
	struct ft_advice x;

	if (!finding_of(a, "nccl-retry-exceeded") || finding_of(a, phys))
		return 0;
	if (ft__diag_has_roce(a->c) && !ft__diag_has_active_ib(a->c))
		return adv_timeout_roce(a);
	advice_start(a, &x, "nccl-ib-timeout", "nccl-env", "NCCL_IB_TIMEOUT", "nccl-retry-exceeded",
		     "ENV-IB_TIMEOUT SYM-ERR-12");
	x.is_env = true;
	ft_strlcpy(x.value, "22", sizeof(x.value));
	snprintf(x.reason, sizeof(x.reason),
		 "InfiniBand error 12 with no physical, loss or reachability cause among the "
		 "inputs: a longer ACK timeout (4.096 us x 2^22 = %.1f s per try) rides out "
		 "congestion and SM reroutes",
		 ib_timeout_s(22));
	ft_strlcpy(x.gain_basis, "not computable: avoids aborts, not a rate", sizeof(x.gain_basis));
	return advice_add(a, &x);
}

static int
adv_placement(const struct adv_ctx *a)
{
	struct ft_advice x;

	if (!finding_of(a, "gpu-nic-cross-socket gpu-numa-without-nic"))
		return 0;
	advice_start(a, &x, "placement", "placement", "GPU-NIC-CPU pairing",
		     "gpu-nic-cross-socket gpu-numa-without-nic", "HOST-TOPO HOST-NUMA");
	ft_strlcpy(x.value, "each rank on a GPU with a PIX/PXB NIC, CPUs of that NUMA node",
		   sizeof(x.value));
	ft_strlcpy(
		x.action,
		"pick the job's GPUs next to the NICs (nvidia-smi topo -m), bind ranks with "
		"the launcher's NUMA binding, keep PXN enabled so GPUs reach rail NICs over NVLink",
		sizeof(x.action));
	ft_strlcpy(x.reason, "traffic that crosses the CPU sockets loses bandwidth and GDR",
		   sizeof(x.reason));
	bandwidth_gain(a, &x);
	return advice_add(a, &x);
}

static int
adv_host(const struct adv_ctx *a)
{
	struct ft_advice x;
	int rc;

	if (finding_of(a, "nccl-create-qp-failed host-memlock-limited")) {
		advice_start(a, &x, "memlock", "host", "memlock limit",
			     "nccl-create-qp-failed host-memlock-limited",
			     "HOST-LIMITS SYM-MEMLOCK");
		ft_strlcpy(x.value, "unlimited", sizeof(x.value));
		ft_strlcpy(
			x.action,
			"'* soft memlock unlimited' and '* hard memlock unlimited' in "
			"/etc/security/limits.conf, restart the launcher/Slurm daemons; containers "
			"--ulimit memlock=-1",
			sizeof(x.action));
		ft_strlcpy(x.reason,
			   "RDMA pins memory; a low memlock limit fails QP and MR creation",
			   sizeof(x.reason));
		ft_strlcpy(x.gain_basis, "not computable: fixes a failure", sizeof(x.gain_basis));
		rc = advice_add(a, &x);
		if (rc < 0)
			return rc;
	}
	if (finding_of(a, "host-acs-enabled nccl-local-protection-error")) {
		advice_start(a, &x, "acs", "host", "PCIe ACS",
			     "host-acs-enabled nccl-local-protection-error", "HOST-ACS SYM-ERR-4");
		ft_strlcpy(x.value, "off on bare metal (ATS on in VMs)", sizeof(x.value));
		ft_strlcpy(x.action,
			   "disable ACS in the BIOS or per bridge with setpci -s BDF "
			   "ECAP_ACS+0x6.w=0000 after each boot; boot with iommu=pt",
			   sizeof(x.action));
		ft_strlcpy(x.reason, "ACS forces GPU-NIC peer-to-peer through the root complex",
			   sizeof(x.reason));
		bandwidth_gain(a, &x);
		rc = advice_add(a, &x);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int
adv_hardware(const struct adv_ctx *a)
{
	static const char cable[] =
		"ib-symbol-errors ib-link-recovery ib-link-downed ib-rcv-errors "
		"ib-link-integrity eth-phy-errors ib-link-below-capability "
		"ib-rate-below-peers eth-module-fault nccl-link-event";
	const struct ft_finding *f;
	struct ft_advice x;
	int rc;

	f = finding_of(a, cable);
	if (f) {
		advice_start(a, &x, "replace-link", "hardware", "cable / transceiver", cable,
			     "IB-COUNTERS SYM-LINK-ERRORS SYM-LINK-DEGRADED");
		snprintf(x.value, sizeof(x.value), "replace on %s", f->entity);
		ft_strlcpy(
			x.action,
			"drain the node, clean and reseat the connector, swap the cable or optic, "
			"move the port; reset counters and re-check after 5-10 minutes of traffic",
			sizeof(x.action));
		snprintf(x.reason, sizeof(x.reason), "%s", f->message);
		f = finding_of(a, "ib-rate-below-peers");
		if (f && f->nevidence >= 2 && f->evidence[0].num > 0) {
			x.gain_pct = 100.0 * (f->evidence[1].num / f->evidence[0].num - 1);
			snprintf(x.gain_basis, sizeof(x.gain_basis),
				 "port rate %.0f -> %.0f Gb/s for traffic through that port",
				 f->evidence[0].num, f->evidence[1].num);
		} else {
			ft_strlcpy(x.gain_basis,
				   "not computable: removes errors and retransmissions",
				   sizeof(x.gain_basis));
		}
		rc = advice_add(a, &x);
		if (rc < 0)
			return rc;
	}
	f = finding_of(a, "pcie-link-degraded");
	if (f && f->nevidence >= 2) {
		double cur = f->evidence[0].has_num ? f->evidence[0].num : 0;
		double max = f->evidence[1].has_num ? f->evidence[1].num : 0;

		advice_start(a, &x, "pcie-reseat", "hardware", "PCIe link", "pcie-link-degraded",
			     "HOST-PCIE");
		snprintf(x.value, sizeof(x.value), "retrain %s at its maximum", f->entity);
		ft_strlcpy(x.action,
			   "reseat the card or move it to another slot/riser; update BIOS "
			   "and firmware; check LnkSta under load",
			   sizeof(x.action));
		snprintf(x.reason, sizeof(x.reason), "%s", f->message);
		if (cur > 0 && max > cur) {
			x.gain_pct = 100.0 * (max / cur - 1);
			snprintf(x.gain_basis, sizeof(x.gain_basis),
				 "PCIe link bandwidth %g -> %g (HOST-PCIE); end-to-end gain "
				 "bounded by "
				 "the NIC rate",
				 cur, max);
		}
		rc = advice_add(a, &x);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- driver -------------------------------------------------------------- */

static int (*const advisors[])(const struct adv_ctx *) = {
	adv_network, adv_rdma_stack, adv_ib_hca, adv_socket_ifname, adv_gdr,	   adv_gid_index,
	adv_qos,     adv_dcqcn,	     adv_mtu,	 adv_bond_qps,	    adv_channels,  adv_routing,
	adv_timeout, adv_placement,  adv_host,	 adv_hardware,	    adv_nchannels, adv_env_unset,
};

int
ft_advise(const struct ft_diag_input *in, const struct ft_findings *findings,
	  struct ft_advice_set *out, struct ft_error *err)
{
	struct ft_findings own;
	struct ft_diag_ctx c;
	struct adv_ctx a;
	size_t i;
	int rc = 0;

	if (!in || !in->obs || !out)
		return ft_error_set(err, FT_EINVAL, "advise: no observations given");
	ft_findings_init(&own);
	if (!findings) {
		rc = ft_diag_run(in, &own, err);
		if (rc < 0)
			goto done;
		findings = &own;
	}
	rc = ft__diag_ctx_init(&c, in);
	if (rc < 0) {
		ft_error_set(err, rc, "advise: %s", ft_strerror(rc));
		goto done;
	}
	a.c = &c;
	a.f = findings;
	a.out = out;
	for (i = 0; i < FT_ARRAY_SIZE(advisors); i++) {
		rc = advisors[i](&a);
		if (rc < 0) {
			ft_error_set(err, rc, "advise: %s", ft_strerror(rc));
			break;
		}
	}
	ft__diag_ctx_release(&c);
done:
	ft_findings_release(&own);
	return rc;
}

void
ft_advice_json(struct ft_json *j, const struct ft_advice_set *s)
{
	size_t i, k;

	ft_json_obj_begin(j);
	ft_json_key(j, "advice");
	ft_json_arr_begin(j);
	for (i = 0; i < ft_advice_set_len(s); i++) {
		const struct ft_advice *x = ft_advice_set_at(s, i);

		ft_json_obj_begin(j);
		ft_json_kv_str(j, "id", x->id);
		ft_json_kv_str(j, "category", x->category);
		ft_json_kv_str(j, "setting", x->setting);
		if (x->unset)
			ft_json_kv_str(j, "value", "(unset)");
		else
			ft_json_kv_str(j, "value", x->value);
		ft_json_kv_bool(j, "env", x->is_env);
		ft_json_kv_bool(j, "unset", x->unset);
		if (x->action[0])
			ft_json_kv_str(j, "action", x->action);
		ft_json_kv_str(j, "reason", x->reason);
		ft_json_kv_str(j, "findings", x->findings);
		ft_json_key(j, "gain_pct");
		if (isnan(x->gain_pct))
			ft_json_null(j);
		else
			ft_json_double_prec(j, x->gain_pct, 4);
		ft_json_kv_str(j, "gain_basis", x->gain_basis);
		ft_json_kv_str(j, "kb", x->kb);
		ft_json_key(j, "evidence");
		ft_json_arr_begin(j);
		for (k = 0; k < x->nevidence; k++) {
			char v[200], e[160];

			ft_obs_value_text(&x->evidence[k], v, sizeof(v));
			ft_obs_entity(&x->evidence[k], e, sizeof(e));
			ft_json_obj_begin(j);
			ft_json_kv_str(j, "file", x->evidence[k].file);
			ft_json_kv_uint(j, "line", x->evidence[k].line);
			ft_json_kv_str(j, "entity", e);
			ft_json_kv_str(j, "key", x->evidence[k].key);
			ft_json_kv_str(j, "value", v);
			ft_json_obj_end(j);
		}
		ft_json_arr_end(j);
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
	ft_json_obj_end(j);
}

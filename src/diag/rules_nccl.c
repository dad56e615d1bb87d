/* SPDX-License-Identifier: MIT */
/*
 * diag/rules_nccl.c - rules on what an NCCL INFO log shows: the network in
 * use, GPUDirect RDMA, the device list, completion errors with their verbs
 * status, connection failures, and environment variables left over from
 * debugging.
 *
 * Status numbers are the verbs ibv_wc_status values listed in symptoms.md;
 * message patterns are the format strings quoted in nccl-env.md (ENV-DEBUG).
 */
#include "internal.h"

#include "diag/diag_int.h"

/* First nccl.warn / nccl.error observation whose text holds one of @pats. */
static int
emit_log_matches(const struct ft_diag_ctx *c, struct ft_findings *out, const char *const *pats,
		 size_t npats, const char *what)
{
	struct ft__evidence e = { 0 };
	size_t i, k;

	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);

		if (strcmp(o->key, "nccl.warn") != 0 && strcmp(o->key, "nccl.error") != 0 &&
		    strcmp(o->key, "nccl.info") != 0)
			continue;
		for (k = 0; k < npats; k++)
			if (ft__str_icontains(o->str, pats[k]))
				break;
		if (k < npats)
			ft__evidence_add(&e, o);
	}
	if (!e.total)
		return 0;
	return ft__diag_emit(c, out, -1, e.ev, e.n, "%s (%zu log line%s): \"%.160s\"", what,
			     e.total, e.total == 1 ? "" : "s", e.ev[0]->str);
}

/* ---- network selection ------------------------------------------------- */

int
ft__diag_eval_socket(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *net = NULL, *ev[3] = { NULL, NULL, NULL };
	const struct ft_obs *dis = ft__diag_env(c, "NCCL_IB_DISABLE");
	const struct ft_obs *force = ft__diag_env(c, "NCCL_NET");
	size_t i;

	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);

		if (strcmp(o->key, "nccl.net") == 0 && ft__str_ieq(o->str, "Socket")) {
			net = o;
			break;
		}
	}
	if (!net)
		return 0;
	ev[0] = net;
	if (dis && strcmp(dis->str, "0") != 0) {
		ev[1] = dis;
		return ft__diag_emit(c, out, FT_SEV_ERROR, ev, 2,
				     "NCCL uses the socket transport because NCCL_IB_DISABLE=%s is "
				     "set: multi-node bandwidth drops to TCP levels",
				     dis->str);
	}
	if (force && ft__str_icontains(force->str, "socket")) {
		ev[1] = force;
		return ft__diag_emit(c, out, FT_SEV_ERROR, ev, 2,
				     "NCCL uses the socket transport because NCCL_NET=%s forces it",
				     force->str);
	}
	if (ft__diag_has_active_ib(c)) {
		for (i = 0; i < ft__nobs(c); i++) {
			const struct ft_obs *o = ft__obs(c, i);

			if (strcmp(o->key, "ib.port.state") == 0 && ft__port_state_active(o->str)) {
				ev[1] = o;
				break;
			}
		}
		return ft__diag_emit(
			c, out, FT_SEV_ERROR, ev, 2,
			"NCCL uses the socket transport although an InfiniBand port is "
			"Active: the verbs transport failed to load or was excluded");
	}
	return ft__diag_emit(c, out, -1, ev, 1,
			     "NCCL uses the socket transport (TCP): if the nodes have IB or RoCE "
			     "NICs, the verbs transport is not reachable from this process");
}

int
ft__diag_eval_ibverbs_missing(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	static const char *const pats[] = { "Failed to open libibverbs", "No device found",
					    "libibverbs.so" };

	const struct ft_obs *nodev = ft__diag_find(c, "nccl.ib.no_device");
	const struct ft_obs *noverbs = ft__diag_find(c, "nccl.ib.no_verbs");
	const struct ft_obs *ev[1] = { nodev ? nodev : noverbs };

	if (noverbs && !nodev)
		return ft__diag_emit(c, out, -1, ev, 1,
				     "NCCL could not load the verbs library (\"%.120s\"): rdma-core "
				     "is missing from this environment, so IB/RoCE is unavailable",
				     noverbs->str);
	if (nodev)
		return ft__diag_emit(c, out, -1, ev, 1,
				     "NCCL found no RDMA device (NET/IB : No device found): the "
				     "verbs transport is unavailable in this process");
	return emit_log_matches(c, out, pats, FT_ARRAY_SIZE(pats),
				"NCCL found no usable RDMA device or verbs library");
}

static int
check_socket_ifname(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	static const char *const bad[] = { "lo", "docker", "virbr" };
	const char *v = o->str;
	size_t k;

	while (*v == '=' || *v == '^' || *v == '[' || isdigit((unsigned char)*v) || *v == ']')
		v++;
	if (o->str[0] == '^')
		return 0;
	for (k = 0; k < FT_ARRAY_SIZE(bad); k++) {
		size_t n = strlen(bad[k]);

		if (strncmp(v, bad[k], n) == 0 &&
		    (k > 0 || v[n] == '\0' || v[n] == ':' || v[n] == ',' || v[n] == '<'))
			break;
	}
	if (k == FT_ARRAY_SIZE(bad))
		return 0;
	return ft__diag_emit(c, out, -1, FT__EV(o),
			     "NCCL's socket interface is %s: it does not route between nodes, so "
			     "multi-node bootstrap or traffic fails or hangs",
			     o->str);
}
FT__DIAG_EACH(ft__diag_eval_socket_ifname, "nccl.socket_ifname nccl.env.NCCL_SOCKET_IFNAME",
	      check_socket_ifname)

/* ---- devices ------------------------------------------------------------- */

int
ft__diag_eval_gdr_disabled(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *net = ft__diag_find(c, "nccl.net");
	struct ft__evidence e = { 0 };
	size_t i;

	if (net && ft__str_ieq(net->str, "Socket"))
		return 0; /* no GDR over sockets: ft__diag_eval_socket reports the real problem */
	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);

		if (strcmp(o->key, "nccl.gdr") != 0 || !o->has_num || o->num != 0)
			continue;
		/* Socket "HCAs" (eno2, eth0, lo) never do GDR: not an RDMA finding. */
		if (ft__str_has_prefix(o->device, "en") || ft__str_has_prefix(o->device, "eth") ||
		    strcmp(o->device, "lo") == 0)
			continue;
		ft__evidence_add(&e, o);
	}
	if (!e.total)
		return 0;
	return ft__diag_emit(c, out, -1, e.ev, e.n,
			     "GPU Direct RDMA is disabled for %zu HCA%s: data is staged through "
			     "host memory, multi-node busbw can drop to about half",
			     e.total, e.total == 1 ? "" : "s");
}

/* Does the HCA list @s name devices of both link layers? */
static bool
mixes_link_layers(const struct ft_obs *o)
{
	return strstr(o->str, "/RoCE") && strstr(o->str, "/IB");
}
FT__DIAG_MATCH(ft__diag_eval_mixed_link_layers, "nccl.ib_hca", mixes_link_layers,
	       "NCCL's device list mixes InfiniBand and RoCE (Ethernet) ports: ranks can pick "
	       "different link layers and fail to connect (%.120s)")

/* Is the device @name (as in NCCL_IB_HCA, "mlx5_1:1") an Ethernet link-layer port? */
static const struct ft_obs *
ethernet_port_named(const struct ft_diag_ctx *c, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);

		if (strcmp(o->key, "ib.port.link_layer") == 0 && ft__str_ieq(o->str, "Ethernet") &&
		    strlen(o->device) == len && strncmp(o->device, name, len) == 0)
			return o;
	}
	return NULL;
}

int
ft__diag_eval_hca_selects_ethernet(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *env = ft__diag_env(c, "NCCL_IB_HCA");
	const char *p;
	int rc;

	if (!env || env->str[0] == '^' || !ft__diag_has_active_ib(c))
		return 0;
	for (p = env->str; *p;) {
		size_t len;
		const struct ft_obs *eth;

		while (*p == '=' || *p == ',' || *p == ' ')
			p++;
		len = strcspn(p, ":,");
		eth = len ? ethernet_port_named(c, p, len) : NULL;
		if (eth) {
			rc = ft__diag_emit(c, out, -1, FT__EV(env, eth),
					   "NCCL_IB_HCA selects %.*s, an Ethernet (RoCE) port, "
					   "next to InfiniBand ports",
					   (int)len, p);
			if (rc < 0)
				return rc;
		}
		p += len;
		while (*p && *p != ',')
			p++;
	}
	return 0;
}

int
ft__diag_eval_bond_single_qp(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *qps = ft__diag_env(c, "NCCL_IB_QPS_PER_CONNECTION");
	double n = 1;
	size_t i;

	if (qps && ft__obs_number(qps, &n) && n >= 2)
		return 0;
	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);
		const struct ft_obs *ev[2] = { o, qps };

		if ((strcmp(o->key, "nccl.ib_hca") != 0 &&
		     strcmp(o->key, "nccl.env.NCCL_IB_HCA") != 0) ||
		    !strstr(o->str, "bond"))
			continue;
		return ft__diag_emit(
			c, out, -1, ev, 2,
			"NCCL uses a bonded RoCE device with %.0f QP per connection: one "
			"QP maps to one member port, so only half the bond carries traffic",
			n);
	}
	return 0;
}

int
ft__diag_eval_hca_prefix(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *env = ft__diag_env(c, "NCCL_IB_HCA");
	const char *p;
	size_t i;

	if (!env || env->str[0] == '=' || (env->str[0] == '^' && env->str[1] == '='))
		return 0;
	for (p = env->str + (env->str[0] == '^'); *p;) {
		size_t len = strcspn(p, ":,");

		for (i = 0; len && i < ft__nobs(c); i++) {
			const struct ft_obs *o = ft__obs(c, i);
			const struct ft_obs *ev[2] = { env, o };

			if (strncmp(o->key, "ib.", 3) != 0 || strlen(o->device) <= len ||
			    strncmp(o->device, p, len) != 0 ||
			    !isdigit((unsigned char)o->device[len]))
				continue;
			return ft__diag_emit(
				c, out, -1, ev, 2,
				"NCCL_IB_HCA=%s matches by prefix: %.*s also selects %s", env->str,
				(int)len, p, o->device);
		}
		p += len;
		while (*p && *p != ',')
			p++;
		while (*p == ',')
			p++;
	}
	return 0;
}

/* ---- completion errors --------------------------------------------------- */

struct ft__wc_rule {
	int codes[4]; /* terminated by 0 */
	const char *meaning;
};

/* The first observation of @key above 0, one on @host before any other (the failing
 * rank's own HCA counts its QP's retries). */
static const struct ft_obs *
nonzero_on(const struct ft_diag_ctx *c, const char *key, const char *host)
{
	const struct ft_obs *o, *any = NULL;
	size_t pos = 0;

	while ((o = ft__diag_next(c, key, &pos))) {
		if (!o->has_num || !(o->num > 0))
			continue;
		if (strcmp(o->host, host) == 0)
			return o;
		if (!any)
			any = o;
	}
	return any;
}

int
ft__diag_eval_completion(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft__wc_rule *w = c->rule->data;
	struct ft__evidence e = { .cap = 3 };
	size_t i, k;
	int code = 0;

	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);

		if (strcmp(o->key, "nccl.ib.completion_error") != 0 || !o->has_num)
			continue;
		for (k = 0; w->codes[k]; k++)
			if ((int)o->num == w->codes[k])
				break;
		if (!w->codes[k])
			continue;
		code = w->codes[k];
		ft__evidence_add(&e, o);
	}
	if (!e.total)
		return 0;
	/* Physical-layer evidence that explains a retry-exceeded error. */
	if (code == 12) {
		static const char *const phys[] = { "ib.counter.LinkDownedCounter",
						    "ib.counter.LinkErrorRecoveryCounter",
						    "ib.counter.SymbolErrorCounter",
						    "ib.hw_counter.req_transport_retries_exceeded",
						    "ib.hw_counter.local_ack_timeout_err" };

		for (k = 0; k < FT_ARRAY_SIZE(phys) && e.n < FT_ARRAY_SIZE(e.ev); k++) {
			const struct ft_obs *o = nonzero_on(c, phys[k], e.ev[0]->host);

			if (o)
				e.ev[e.n++] = o;
		}
	}
	{
		char who[200] = "";
		size_t used = 0;

		/* The failing rank and its peer/direction/HCA from the first line (SYM-ERR-12). */
		if (e.ev[0]->rank >= 0)
			used = (size_t)snprintf(who, sizeof(who), " on rank %d", e.ev[0]->rank);
		if (e.ev[0]->str[0] && used < sizeof(who))
			snprintf(who + used, sizeof(who) - used, "%s%.150s", used ? ", " : " with ",
				 e.ev[0]->str);
		return ft__diag_emit(c, out, -1, e.ev, e.n,
				     "NCCL completion error %d (%zu time%s)%s: %s", code, e.total,
				     e.total == 1 ? "" : "s", who, w->meaning);
	}
}

const struct ft__wc_rule ft__diag_wc_retry = {
	{ 12, 0 },
	"IBV_WC_RETRY_EXC_ERR, the transport retry counter ran out: link down or flapping, peer "
	"unreachable, or heavy loss"
};
const struct ft__wc_rule ft__diag_wc_rnr = {
	{ 13, 0 },
	"IBV_WC_RNR_RETRY_EXC_ERR: NCCL's own QPs retry RNR forever, suspect a plugin or another "
	"library"
};
const struct ft__wc_rule ft__diag_wc_prot = {
	{ 4, 0 },
	"IBV_WC_LOC_PROT_ERR: GPU memory registration broken, usually ACS/IOMMU on the GPU-NIC path"
};
const struct ft__wc_rule ft__diag_wc_remote = {
	{ 9, 10, 11, 0 },
	"the remote side rejected the request (bad rkey, freed buffer, mismatched versions)"
};
const struct ft__wc_rule ft__diag_wc_flush = {
	{ 5, 0 },
	"IBV_WC_WR_FLUSH_ERR: a consequence of an earlier error on the QP; look for the first error"
};

/* ---- log patterns -------------------------------------------------------- */

int
ft__diag_eval_unreachable(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	static const char *const pats[] = {
		"unreachable",	      "No route to host",
		"Connection refused", "Connection closed by remote peer",
		"connection abort",   "Connection timed out",
		"socketStartConnect", "Failed to execute operation Connect"
	};

	return emit_log_matches(c, out, pats, FT_ARRAY_SIZE(pats), "a peer could not be reached");
}

int
ft__diag_eval_create_qp(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	static const char *const pats[] = { "ibv_create_qp failed", "ibv_reg_mr failed",
					    "ibv_create_cq failed" };

	return emit_log_matches(c, out, pats, FT_ARRAY_SIZE(pats),
				"creating verbs resources failed (pinned memory limit)");
}

int
ft__diag_eval_modify_qp(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	static const char *const pats[] = { "ibv_modify_qp failed", "modify QP" };

	return emit_log_matches(c, out, pats, FT_ARRAY_SIZE(pats),
				"moving a QP to RTR/RTS failed (wrong GID index or unreachable "
				"address)");
}

int
ft__diag_eval_incompatible(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	static const char *const pats[] = { "incompatible devices" };

	return emit_log_matches(c, out, pats, FT_ARRAY_SIZE(pats),
				"NCCL tried to connect devices of different link layers");
}

int
ft__diag_eval_link_event(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	static const char *const pats[] = { "speed change detected", "async fatal event",
					    "non-fatal async event", "GID table changed" };

	return emit_log_matches(c, out, pats, FT_ARRAY_SIZE(pats),
				"the NIC reported a link event during the run");
}

int
ft__diag_eval_topo_mismatch(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	static const char *const pats[] = { "Attribute busid of node nic not found",
					    "not found in topology", "is not a PCI device",
					    "Could not get speed" };

	return emit_log_matches(c, out, pats, FT_ARRAY_SIZE(pats),
				"NCCL's topology does not match the devices it found");
}

int
ft__diag_eval_nvls_fail(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	static const char *const pats[] = { "NVLS", "cuMem", "get_mempolicy" };
	static const char *const fail[] = { "fail", "error", "unable" };
	size_t i, k, j;

	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);
		const struct ft_obs *ev[1] = { o };

		if (strcmp(o->key, "nccl.warn") != 0 && strcmp(o->key, "nccl.error") != 0)
			continue;
		for (k = 0; k < FT_ARRAY_SIZE(pats); k++) {
			if (!strstr(o->str, pats[k]))
				continue;
			for (j = 0; j < FT_ARRAY_SIZE(fail); j++)
				if (ft__str_icontains(o->str, fail[j]))
					return ft__diag_emit(c, out, -1, ev, 1,
							     "NVLS or cuMem allocation failed: "
							     "\"%.160s\"",
							     o->str);
		}
	}
	return 0;
}

/* ---- environment --------------------------------------------------------- */

int
ft__diag_eval_env_leftover(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	static const struct {
		const char *name;
		bool warn_if_one; /* "1" disables something that matters */
		const char *why;
	} vars[] = {
		{ "NCCL_ALGO", false, "restricts the algorithms (debugging variable)" },
		{ "NCCL_PROTO", false, "restricts the protocols (debugging variable)" },
		{ "NCCL_IB_DISABLE", true, "disables the IB/RoCE transport" },
		{ "NCCL_P2P_DISABLE", true, "disables GPU peer-to-peer inside the node" },
		{ "NCCL_SHM_DISABLE", true, "disables the shared-memory transport" },
		{ "NCCL_NET_GDR_LEVEL", false, "overrides the GPUDirect RDMA distance" },
		{ "NCCL_MIN_NCHANNELS", false,
		  "raises the channel floor (the name is deprecated since 2.17: NCCL_MIN_CTAS)" },
		{ "NCCL_MAX_NCHANNELS", false,
		  "caps the channel count (the name is deprecated since 2.17: NCCL_MAX_CTAS)" },
		{ "NCCL_MIN_CTAS", false, "raises the channel floor" },
		{ "NCCL_MAX_CTAS", false, "caps the channel count" },
		{ "NCCL_BUFFSIZE", false, "overrides the buffer size" },
		{ "NCCL_NTHREADS", false, "overrides the threads per block" },
		{ "NCCL_LL_THRESHOLD", false, "was removed in NCCL 2.5 and is ignored" },
		{ "NCCL_TREE_THRESHOLD", false, "was removed in NCCL 2.5 and is ignored" },
		{ "NCCL_IB_CUDA_SUPPORT", false, "was removed in NCCL 2.4 and is ignored" },
	};
	size_t i;
	int rc;

	for (i = 0; i < FT_ARRAY_SIZE(vars); i++) {
		const struct ft_obs *o = ft__diag_env(c, vars[i].name);
		bool warn;

		if (!o)
			continue;
		warn = vars[i].warn_if_one && strcmp(o->str, "0") != 0;
		rc = ft__diag_emit(c, out, warn ? FT_SEV_WARNING : -1, FT__EV(o),
				   "%s=%s is set: it %s; NCCL's guide says such variables should "
				   "not stay in production",
				   vars[i].name, o->str, vars[i].why);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * NCCL settings that depend on the link layer (ENV-IB_TC, ENV-IB_GID_INDEX,
 * ENV-IB_SL, ENV-IB_AR): RoCE-only settings on an InfiniBand-only fabric do
 * nothing; NCCL_IB_SL on RoCE only matters with PCP trust; turning off
 * NCCL's AR-friendly posting on InfiniBand loses adaptive routing's gain.
 */
/*
 * A CUDA call that failed inside NCCL ("Cuda failure N 'text'"), in NCCL's
 * WARN lines or the framework's error, with what its class usually means.
 */
int
ft__diag_eval_cuda_failure(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	static const struct {
		const char *pat, *meaning;
	} classes[] = {
		{ "out of memory", "GPU memory is exhausted: NCCL's buffers (channels x peers x "
				   "NCCL_BUFFSIZE) did not fit next to the application" },
		{ "peer access", "peer-to-peer access between the GPUs is not available: NCCL "
				 "must use host memory (check the topology and NCCL_P2P_LEVEL)" },
		{ "invalid device ordinal", "the rank's GPU index does not exist in this process "
					    "(CUDA_VISIBLE_DEVICES or the launcher's GPU binding)" },
		{ "illegal memory access", "a kernel touched memory it does not own: often the "
					   "application, sometimes a GPU fault (look for Xid 13/31)" },
		{ "ECC", "an uncorrectable GPU memory error: look for Xid 48/94/95 and reset or "
			 "drain the GPU" },
		{ "unknown error", "the CUDA driver lost the GPU or could not serve the call "
				   "(driver/GPU fault; under WSL or VMs often missing GPU "
				   "features): look for Xid lines and re-run the CUDA samples" },
	};
	static const char *const keys[] = { "nccl.warn", "nccl.error", "torch.nccl.error" };
	struct ft__evidence e = { 0 };
	const struct ft_obs *first = NULL;
	size_t i, k;
	const char *meaning = "a CUDA call failed inside NCCL";

	for (i = 0; i < ft__nobs(c); i++) {
		const struct ft_obs *o = ft__obs(c, i);

		for (k = 0; k < FT_ARRAY_SIZE(keys); k++)
			if (strcmp(o->key, keys[k]) == 0)
				break;
		if (k == FT_ARRAY_SIZE(keys) || !(ft__str_icontains(o->str, "Cuda failure") ||
						  ft__str_icontains(o->str, "unhandled cuda error")))
			continue;
		if (!first && ft__str_icontains(o->str, "Cuda failure"))
			first = o;
		ft__evidence_add(&e, o);
	}
	if (!e.total)
		return 0;
	if (!first)
		first = e.ev[0];
	for (k = 0; k < FT_ARRAY_SIZE(classes); k++)
		if (ft__str_icontains(first->str, classes[k].pat)) {
			meaning = classes[k].meaning;
			break;
		}
	return ft__diag_emit(c, out, -1, e.ev, e.n, "\"%.100s\" (%zu line%s): %s", first->str,
			     e.total, e.total == 1 ? "" : "s", meaning);
}

int
ft__diag_eval_env_link_layer(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	static const char *const roce_only[] = { "NCCL_IB_GID_INDEX", "NCCL_IB_TC",
						 "NCCL_IB_ROCE_VERSION_NUM", "NCCL_IB_ADDR_FAMILY",
						 "NCCL_IB_ADDR_RANGE" };
	bool roce = ft__diag_has_roce(c), ib = ft__diag_has_active_ib(c);
	const struct ft_obs *o, *trust;
	size_t i;
	int rc;

	if (ib && !roce) {
		for (i = 0; i < FT_ARRAY_SIZE(roce_only); i++) {
			o = ft__diag_env(c, roce_only[i]);
			if (!o)
				continue;
			rc = ft__diag_emit(c, out, -1, FT__EV(o),
					   "%s=%s is a RoCE setting; every port among the inputs is "
					   "InfiniBand, where it has no effect",
					   roce_only[i], o->str);
			if (rc < 0)
				return rc;
		}
		o = ft__diag_env(c, "NCCL_IB_ADAPTIVE_ROUTING");
		if (o && strcmp(o->str, "0") == 0) {
			rc = ft__diag_emit(c, out, FT_SEV_WARNING, FT__EV(o),
					   "NCCL_IB_ADAPTIVE_ROUTING=0 on InfiniBand (default 1): NCCL "
					   "completes large messages in-order, so a fabric with adaptive "
					   "routing must fall back to static paths for them");
			if (rc < 0)
				return rc;
		}
	}
	if (roce && !ib) {
		double t;

		/* ENV-IB_TIMEOUT: each try waits 4.096 us x 2^value; the default is 20 */
		o = ft__diag_env(c, "NCCL_IB_TIMEOUT");
		if (o && ft__obs_number(o, &t) && t > 20 && t < 32) {
			double per_try = 4.096e-6 * ldexp(1.0, (int)t);

			rc = ft__diag_emit(c, out, -1, FT__EV(o),
					   "NCCL_IB_TIMEOUT=%s on RoCE: each try waits %.1f s (%.0f s "
					   "with 7 retries) before a lost packet or a dead peer is "
					   "reported; on Ethernet nothing reroutes meanwhile, and the "
					   "default 20 waits %.1f s",
					   o->str, per_try, 7 * per_try, 4.096e-6 * ldexp(1.0, 20));
			if (rc < 0)
				return rc;
		}
		o = ft__diag_env(c, "NCCL_IB_SL");
		trust = ft__diag_find(c, "roce.qos.trust");
		if (o && trust && ft__str_icontains(trust->str, "dscp")) {
			rc = ft__diag_emit(c, out, -1, FT__EV(o, trust),
					   "NCCL_IB_SL=%s on RoCE with trust %s: the SL only becomes the "
					   "802.1p priority under PCP trust; NCCL_IB_TC selects the "
					   "class here",
					   o->str, trust->str);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/* NCCL_IB_RETRY_CNT goes into a 3-bit verbs field: 0 to 7. */
static bool
retry_cnt_out_of_range(const struct ft_obs *o)
{
	double v;

	return ft__obs_number(o, &v) && (v < 0 || v > 7);
}
FT__DIAG_MATCH_FIRST(ft__diag_eval_retry_cnt, "nccl.env.NCCL_IB_RETRY_CNT", retry_cnt_out_of_range,
		     "NCCL_IB_RETRY_CNT=%s is outside the verbs range 0-7 of this 3-bit field")

static bool
is_nccl_version(const struct ft_diag_ctx *c, const struct ft_obs *o)
{
	return strcmp(o->key, "nccl.version") == 0 && o->str[0];
}
FT__DIAG_DISAGREE(ft__diag_eval_version_mismatch, is_nccl_version, false,
		  "ranks run different NCCL versions (%s and %s): protocol and plugin mismatches "
		  "fail in obscure ways")

int
ft__diag_eval_p2p_channels(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *t = NULL, *net, *ev[2];
	size_t i;

	if (ft__diag_env(c, "NCCL_NCHANNELS_PER_NET_PEER"))
		return 0;
	for (i = 0; i < ft__nobs(c) && !t; i++) {
		const struct ft_obs *o = ft__obs(c, i);

		if (strcmp(o->key, "bench.test") == 0 &&
		    (strstr(o->str, "alltoall") || strstr(o->str, "sendrecv") ||
		     strstr(o->str, "all_to_all")))
			t = o;
	}
	net = ft__diag_find(c, "nccl.transport");
	if (net && !strstr(net->str, "NET"))
		net = NULL;
	if (!net)
		net = ft__diag_find(c, "nccl.net");
	if (!t || !net || ft__str_ieq(net->str, "Socket"))
		return 0;
	ev[0] = t;
	ev[1] = net;
	return ft__diag_emit(c, out, -1, ev, 2,
			     "%s over the network with the default number of channels per network "
			     "peer: point-to-point traffic often cannot fill the NIC with 1-2 "
			     "channels per peer",
			     t->str);
}

/* SPDX-License-Identifier: MIT */
/*
 * parse/nccl_log.c - NCCL logs at NCCL_DEBUG=INFO (2.4 to 2.2x formats).
 *
 * A line is "host:pid:tid [dev] NCCL INFO msg" or, for warnings,
 * "host:pid:tid [dev] file.cc:NN NCCL WARN msg"; rank 0 also prints a bare
 * "NCCL version X". The bracket is the process's CUDA device: it becomes
 * device "GPU<dev>", while the rank comes from the "comm ... rank R" and
 * "ncclCommInitRank ... rank R" lines of the same host:pid and is attached to
 * that process's later lines (-1 before it is known).
 *
 * Keys (docs/internals/observations.md): nccl.version, nccl.cuda_driver,
 * nccl.net (IB / Socket / a plugin's name), nccl.net_plugin, nccl.ib_hca (the
 * NET/IB device list as printed), nccl.ib.dev (one per listed device, device =
 * HCA, str IB/RoCE), nccl.ib.no_device, nccl.ib.no_verbs, nccl.socket_ifname, nccl.bootstrap_if,
 * nccl.gdr (0/1; from "GPU Direct RDMA Enabled/Disabled" and from NET channel
 * connections with or without /GDRDMA), nccl.transport, nccl.channels,
 * nccl.p2p_channels, nccl.ring, nccl.tree, nccl.tuning, nccl.nranks,
 * nccl.nnodes, nccl.busid, nccl.cpu_affinity, nccl.env.<NAME>, nccl.warn,
 * nccl.net.speed_unknown, nccl.topo.non_pci, nccl.collnet (SHARP/CollNet lines),
 * nccl.error, nccl.ib.completion_error (NCCL-TS-NET, SYM-ERR-12; str: peer,
 * direction and HCA), nccl.ib.local_gid (the GID of the failing QP),
 * nccl.retcode (the "file.cc:NN -> N" unwinding).
 */
#include "nccl_int.h"

static uint64_t
pid_key(struct ft__span host, uint64_t pid)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < host.n; i++)
		h = (h ^ (unsigned char)host.p[i]) * 1099511628211ULL;
	h ^= pid * 0x9e3779b97f4a7c15ULL;
	return h ? h : 1;
}

static size_t
pid_index(struct ft__nccl_state *st, uint64_t key, bool insert)
{
	size_t i = (size_t)(key % FT__NCCL_PIDS);

	for (size_t n = 0; n < FT__NCCL_PIDS; n++, i = (i + 1) % FT__NCCL_PIDS) {
		if (st->pid[i].key == key)
			return i;
		if (st->pid[i].key == 0) {
			if (!insert)
				return FT__NCCL_PIDS;
			st->pid[i].key = key;
			st->pid[i].rank = -1;
			st->pid[i].comm = 0;
			return i;
		}
	}
	return FT__NCCL_PIDS;
}

static int *
pid_slot(struct ft__nccl_state *st, uint64_t key, bool insert)
{
	size_t i = pid_index(st, key, insert);

	return i < FT__NCCL_PIDS ? &st->pid[i].rank : NULL;
}

/* The communicator of "comm 0x55d0c0 rank 0 ...": its address, 0 when none. */
static uint64_t
comm_addr(struct ft__span m)
{
	const char *q = ft__find(m, "comm 0x");
	uint64_t a = 0;

	if (!q)
		return 0;
	for (q += 7; q < m.p + m.n && isxdigit((unsigned char)*q); q++)
		a = a * 16 + (uint64_t)(isdigit((unsigned char)*q) ? *q - '0' :
		                                                      (tolower((unsigned char)*q) - 'a' + 10));
	return a;
}

/* The integer after @word in @s ("rank 4 nranks 8": word "rank"). */
static bool
int_after(struct ft__span s, const char *word, int64_t *out)
{
	struct ft__span tok;

	while (ft__token(&s, &tok)) {
		if (ft__eq(tok, word)) {
			struct ft__span v;

			return ft__token(&s, &v) && ft__i64(v, out);
		}
	}
	return false;
}

static void
emit_env(struct ft__pctx *c, uint32_t line, struct ft__span msg, const char *sep)
{
	const char *q = ft__find(msg, sep);
	struct ft__span name = { msg.p, (size_t)(q - msg.p) },
	                val = ft__trim(ft__skip(msg, (size_t)(q - msg.p) + strlen(sep)));

	name = ft__trim(name);
	if (val.n && val.p[val.n - 1] == '.')
		val.n--;
	ft__emit_named(c, line, "nccl.env.", name, false, 0, NULL, val);
}

/* "[0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB ib0:..." */
static void
emit_ib_list(struct ft__pctx *c, uint32_t line, struct ft__span list)
{
	const char *semi = memchr(list.p, ';', list.n);
	struct ft__span l = semi ? (struct ft__span){ list.p, (size_t)(semi - list.p) } : list, tok;
	char dev[48];
	int port = c->port;

	ft__emit_str(c, line, "nccl.ib_hca", ft__trim(l));
	ft_strlcpy(dev, c->device, sizeof(dev));
	while (ft__token(&l, &tok)) {
		const char *close = memchr(tok.p, ']', tok.n), *colon, *slash;
		struct ft__span d;
		uint64_t p;

		if (!close || tok.p[0] != '[')
			continue;
		d = ft__skip(tok, (size_t)(close - tok.p) + 1);
		colon = memchr(d.p, ':', d.n);
		if (!colon)
			continue;
		slash = memchr(colon, '/', d.n - (size_t)(colon - d.p));
		ft__copy(c->device, sizeof(c->device),
		         (struct ft__span){ d.p, (size_t)(colon - d.p) });
		c->port = -1;
		if (ft__u64((struct ft__span){ colon + 1, slash ? (size_t)(slash - colon - 1) :
		                                                  d.n - (size_t)(colon + 1 - d.p) },
		            &p) &&
		    p < 256)
			c->port = (int)p;
		ft__emit_str(
		        c, line, "nccl.ib.dev",
		        slash ? (struct ft__span){ slash + 1, d.n - (size_t)(slash + 1 - d.p) } :
		                FT__NOSTR);
	}
	ft_strlcpy(c->device, dev, sizeof(c->device));
	c->port = port;
}

/* "Using [0]lo:127.0.0.1<0>" or "Using ib0:10.0.0.1<0>" -> "lo" */
static struct ft__span
first_ifname(struct ft__span s)
{
	const char *close, *colon;

	s = ft__trim(s);
	if (s.n && s.p[0] == '[' && (close = memchr(s.p, ']', s.n)))
		s = ft__skip(s, (size_t)(close - s.p) + 1);
	colon = s.n ? memchr(s.p, ':', s.n) : NULL;
	if (colon)
		s.n = (size_t)(colon - s.p);
	return s;
}

static bool
is_error_text(struct ft__span m)
{
	static const char *const words[] = { "failed", "Failed", "unreachable",      "error",
		                             "Error",  "abort",  "closed by remote", "timeout",
		                             "Timeout" };

	for (size_t i = 0; i < FT_ARRAY_SIZE(words); i++)
		if (ft__find(m, words[i]))
			return true;
	return false;
}

/*
 * The verbs status of a "Got completion from peer" line, in the three forms
 * NCCL has printed (NCCL-TS-NET, SYM-ERR-12):
 *   "... with error 12, opcode 0, len 0, vendor err 129"            (to 2.1x)
 *   "... with status=12 opcode=0 len=0 vendor err 129 (Send) ..."    (2.1x-2.2x)
 *   "... with status=transport retry counter exceeded(12) opcode=Send(0)
 *    vendor_err=129 localGid ... hca mlx5_0"                         (later)
 */
static bool
completion_status(struct ft__span m, uint64_t *code)
{
	static const char *const code_before[] = { "with error ", "completion error " };
	const char *e;
	struct ft__span rest, tok;

	if (!ft__find(m, "ompletion"))
		return false;
	/* "with error 12," (or "completion error 12,"): the number up to the comma */
	for (size_t i = 0; i < FT_ARRAY_SIZE(code_before); i++) {
		e = ft__find(m, code_before[i]);
		if (!e)
			continue;
		rest = ft__skip(m, (size_t)(e - m.p) + strlen(code_before[i]));
		if (!ft__token(&rest, &tok))
			return false;
		if (tok.n && tok.p[tok.n - 1] == ',')
			tok.n--;
		return ft__u64(tok, code);
	}
	e = ft__find(m, "status=");
	if (!e)
		return false;
	rest = ft__skip(m, (size_t)(e - m.p) + 7);
	if (ft__token(&rest, &tok) && ft__u64(tok, code))
		return true;
	/* "status=NAME(12)": the number in the parentheses before " opcode=" */
	{
		const char *op = ft__find(rest, " opcode=");
		size_t n = op ? (size_t)(op - ft__skip(m, (size_t)(e - m.p) + 7).p) : 0;
		struct ft__span st = { e + 7, n };
		const char *open = n ? memchr(st.p, '(', st.n) : NULL;

		if (!op || !open || st.p[st.n - 1] != ')')
			return false;
		return ft__u64((struct ft__span){ open + 1, (size_t)(st.p + st.n - 1 - open - 1) },
			       code);
	}
}

/* "peer 10.1.1.2<43217> (Send) hca mlx5_0": who failed with whom, for the evidence. */
static void
completion_where(struct ft__span m, char *buf, size_t len)
{
	const char *p = ft__find(m, "from peer ");
	const char *h = ft__find(m, " hca ");
	const char *dir = ft__find(m, "(Send)") ? "Send" :
			  ft__find(m, "(Recv)") ? "Recv" :
			  ft__find(m, "opcode=Send") ? "Send" :
			  ft__find(m, "opcode=Recv") ? "Recv" :
			  ft__find(m, "opcode=RDMA write") ? "RDMA write" : NULL;
	struct ft__span rest, peer = FT__NOSTR, hca = FT__NOSTR;

	buf[0] = '\0';
	if (p) {
		rest = ft__skip(m, (size_t)(p - m.p) + 10);
		(void)ft__token(&rest, &peer);
	}
	if (h) {
		rest = ft__skip(m, (size_t)(h - m.p) + 5);
		(void)ft__token(&rest, &hca);
	}
	snprintf(buf, len, "%s%.*s%s%s%s%s%.*s", peer.p ? "peer " : "", peer.p ? (int)peer.n : 0,
		 peer.p ? peer.p : "", dir ? " (" : "", dir ? dir : "", dir ? ")" : "",
		 hca.p ? " hca " : "", hca.p ? (int)hca.n : 0, hca.p ? hca.p : "");
}

static void
warn_line(struct ft__pctx *c, uint32_t line, struct ft__span m)
{
	uint64_t code;

	ft__emit_str(c, line, "nccl.warn", m);
	if (completion_status(m, &code)) {
		char where[160];

		completion_where(m, where, sizeof(where));
		const char *g = ft__find(m, "localGid ");

		ft__emit(c, line, "nccl.ib.completion_error", true, (double)code, NULL,
			 ft__span_c(where));
		if (g) {
			struct ft__span rest = ft__skip(m, (size_t)(g - m.p) + 9), gid;

			if (ft__token(&rest, &gid))
				ft__emit_str(c, line, "nccl.ib.local_gid", gid);
		}
		return;
	}
	if (is_error_text(m))
		ft__emit_str(c, line, "nccl.error", m);
}

/*
 * A connection line, "... 11[71000] -> 0[1f000] [receive] via NET/IB/0/GDRDMA":
 * false when @m has no " via ". NCCL 2.7 and later print it as "Channel NN
 * : ...", 2.4 to 2.6 as "Ring NN : ..." (init.cc, the "via %s" of the
 * transport chosen for each peer).
 */
static bool
via_line(struct ft__pctx *c, uint32_t line, struct ft__span m)
{
	const char *via = ft__find(m, " via ");
	struct ft__span how;

	if (!via)
		return false;
	how = ft__trim(ft__skip(m, (size_t)(via - m.p) + 5));
	if (ft__starts(how, "NET/")) {
		ft__emit_str(c, line, "nccl.transport", how);
		ft__emit_num(c, line, "nccl.gdr", ft__find(how, "/GDRDMA") ? 1 : 0, NULL);
	}
	return true;
}

static void
channel_line(struct ft__pctx *c, uint32_t line, struct ft__span m)
{
	/* "Channel 00/03 : 0 1 2 3" or "Channel 01 : 11[71000] -> 0[1f000] [receive] via
	 * NET/IB/0/GDRDMA" */
	struct ft__span rest = ft__skip(m, 8), num;
	const char *slash;
	uint64_t ch, total;

	if (!ft__token(&rest, &num) || via_line(c, line, m))
		return;
	slash = memchr(num.p, '/', num.n);
	if (slash && ft__u64((struct ft__span){ num.p, (size_t)(slash - num.p) }, &ch) &&
	    ft__u64((struct ft__span){ slash + 1, num.n - (size_t)(slash - num.p) - 1 }, &total) &&
	    ch == 0) {
		const char *colon = memchr(m.p, ':', m.n);

		ft__emit_num(c, line, "nccl.channels", (double)total, "count");
		if (colon)
			ft__emit_str(c, line, "nccl.ring",
			             ft__trim(ft__skip(m, (size_t)(colon - m.p) + 1)));
	}
}

static void
info_line(struct ft__pctx *c, struct ft__nccl_state *st, uint64_t key, uint32_t line,
          struct ft__span m)
{
	int64_t v;
	const char *q;

	if (ft__starts(m, "NET/IB : Using ") || ft__starts(m, "NET/IB: Using ")) {
		ft__emit_cstr(c, line, "nccl.net", "IB");
		emit_ib_list(c, line, ft__skip(m, (size_t)(ft__find(m, "Using ") - m.p) + 6));
	} else if (ft__starts(m, "NET/IB") && ft__find(m, "No device found")) {
		ft__emit_num(c, line, "nccl.ib.no_device", 1, NULL);
	} else if (ft__find(m, "Failed to open libibverbs")) {
		/* NCCL 2.5 and later print it at INFO level ("Failed to open libibverbs.so[.1]") */
		ft__emit_str(c, line, "nccl.ib.no_verbs", m);
	} else if ((q = ft__find(m, "GPU Direct RDMA ")) && ft__starts(m, "NET/")) {
		struct ft__span r = ft__skip(m, (size_t)(q - m.p) + 16);
		const char *a = memchr(m.p, '\'', m.n), *b;
		char dev[48];

		ft_strlcpy(dev, c->device, sizeof(dev));
		if (a && (b = memchr(a + 1, '\'', m.n - (size_t)(a + 1 - m.p))))
			ft__copy(c->device, sizeof(c->device),
			         (struct ft__span){ a + 1, (size_t)(b - a - 1) });
		ft__emit_num(c, line, "nccl.gdr", ft__starts(r, "Enabled") ? 1 : 0, NULL);
		ft_strlcpy(c->device, dev, sizeof(c->device));
	} else if (ft__starts(m, "NET/Socket : Using ") || ft__starts(m, "NET/Socket: Using ")) {
		ft__emit_cstr(c, line, "nccl.net", "Socket");
		ft__emit_str(c, line, "nccl.socket_ifname",
		             first_ifname(ft__skip(m, (size_t)(ft__find(m, "Using ") - m.p) + 6)));
	} else if (ft__starts(m, "NET/Plugin") && ft__find(m, "No plugin found")) {
		ft__emit_cstr(c, line, "nccl.net_plugin", "none");
	} else if (ft__starts(m, "P2P plugin ")) {
		struct ft__span r = ft__skip(m, 11), tok, last = FT__NOSTR;

		while (ft__token(&r, &tok))
			last = tok;
		if (last.p)
			ft__emit_str(c, line, "nccl.net_plugin", last);
	} else if (ft__starts(m, "Using network ")) {
		struct ft__span n = ft__trim(ft__skip(m, 14));

		if (ft__eq(n, "IB") || ft__eq(n, "Socket")) {
			ft__emit_str(c, line, "nccl.net", n);
		} else {
			ft__emit_cstr(c, line, "nccl.net", ft__starts(n, "IB") ? "IB" : "plugin");
			ft__emit_str(c, line, "nccl.net_plugin", n);
		}
	} else if (ft__starts(m, "NCCL version ")) {
		struct ft__span vv = ft__trim(ft__skip(m, 13));
		const char *plus = vv.n ? memchr(vv.p, '+', vv.n) : NULL;

		if (plus)
			vv.n = (size_t)(plus - vv.p);
		ft__emit_str(c, line, "nccl.version", vv);
	} else if (ft__starts(m, "cudaDriverVersion ") && ft__i64(ft__skip(m, 18), &v)) {
		ft__emit_num(c, line, "nccl.cuda_driver", (double)v, NULL);
	} else if (ft__starts(m, "Bootstrap : Using ") || ft__starts(m, "Bootstrap: Using ")) {
		ft__emit_str(c, line, "nccl.bootstrap_if",
		             first_ifname(ft__skip(m, (size_t)(ft__find(m, "Using ") - m.p) + 6)));
	} else if (ft__starts(m, "NCCL_") && ft__find(m, " set by environment to ")) {
		emit_env(c, line, m, " set by environment to ");
	} else if (ft__starts(m, "NCCL_") && ft__find(m, " set to ")) {
		emit_env(c, line, m, " set to ");
	} else if ((ft__starts(m, "comm 0x") ||
	            (ft__starts(m, "ncclComm") && ft__find(m, " comm 0x"))) &&
	           int_after(m, "rank", &v)) {
		/*
		 * init.cc: "comm 0x.. rank R nRanks N nNodes ..." (2.20 and later),
		 * "comm 0x.. rank R nranks N cudaDev D busId B - Init COMPLETE" (2.4 to
		 * 2.20; 2.18 to 2.20 print an "- Init START" one too, all of them a
		 * "- Destroy COMPLETE" one), and the "FUNC comm 0x.. rank R nranks N
		 * ... busId B" lines it prints with the caller's name from 2.21 on:
		 * ncclCommInitRank, ncclCommInitAll, ncclCommInitRankConfig,
		 * ncclCommSplit. A communicator's size is read once: from its nRanks
		 * line, else from its Init COMPLETE line (2.20 prints both).
		 */
		size_t pi = pid_index(st, key, true);
		uint64_t comm = comm_addr(m);
		bool seen = pi < FT__NCCL_PIDS && comm && st->pid[pi].comm == comm;

		if (pi < FT__NCCL_PIDS)
			st->pid[pi].rank = (int)v;
		c->rank = (int)v;
		if (ft__starts(m, "comm 0x")) {
			if (int_after(m, "nRanks", &v) ||
			    (!seen && ft__ends(m, "Init COMPLETE") && int_after(m, "nranks", &v))) {
				if (pi < FT__NCCL_PIDS)
					st->pid[pi].comm = comm;
				ft__emit_num(c, line, "nccl.nranks", (double)v, "count");
				if (v > 0 && v < UINT32_MAX && !st->log_nranks) {
					st->log_nranks = (uint32_t)v;
					st->log_nranks_line = line;
				}
			}
			if (int_after(m, "nNodes", &v))
				ft__emit_num(c, line, "nccl.nnodes", (double)v, "count");
		} else if (!ft__find(m, "COMPLETE")) {
			struct ft__span r = m, tok;

			while (ft__token(&r, &tok))
				if (ft__eq(tok, "busId") && ft__token(&r, &tok))
					ft__emit_str(c, line, "nccl.busid", tok);
		}
	} else if (ft__starts(m, "Channel ")) {
		channel_line(c, line, m);
	} else if (ft__starts(m, "Trees ") || ft__starts(m, "Tree ")) {
		ft__emit_str(c, line, "nccl.tree", m);
	} else if (ft__starts(m, "Ring ")) {
		if (!via_line(c, line, m))
			ft__emit_str(c, line, "nccl.ring", m);
	} else if ((q = ft__find(m, " coll channels,")) != NULL) {
		struct ft__span r = m, tok;
		uint64_t n;

		if (ft__token(&r, &tok) && ft__u64(tok, &n))
			ft__emit_num(c, line, "nccl.channels", (double)n, "count");
		if ((q = ft__find(m, " p2p channels,")) != NULL) {
			const char *b = q;

			while (b > m.p && b[-1] != ' ' && b[-1] != ',')
				b--;
			if (ft__u64((struct ft__span){ b, (size_t)(q - b) }, &n))
				ft__emit_num(c, line, "nccl.p2p_channels", (double)n, "count");
		}
	} else if (ft__starts(m, "threadThresholds") || ft__find(m, "-> Algo ") ||
	           (memchr(m.p, '|', m.n) &&
	            (ft__find(m, "Algorithm") || ft__find(m, "Protocol") ||
	             ft__find(m, "NThreads") || ft__find(m, "/") != NULL))) {
		ft__emit_str(c, line, "nccl.tuning", m);
	} else if (ft__starts(m, "Could not get speed from ")) {
		/* "Could not get speed from /sys/class/net/X/speed. Defaulting to 10 Gbps." */
		struct ft__span path = ft__skip(m, 25), tok;
		const char *net = ft__find(path, "/net/");

		if (ft__token(&path, &tok) && net) {
			struct ft__span ifn = ft__skip(tok, (size_t)(net - tok.p) + 5);
			const char *slash = ifn.n ? memchr(ifn.p, '/', ifn.n) : NULL;

			if (slash)
				ifn.n = (size_t)(slash - ifn.p);
			ft__emit_str(c, line, "nccl.net.speed_unknown", ifn);
		}
	} else if (ft__find(m, "is not a PCI device")) {
		ft__emit_str(c, line, "nccl.topo.non_pci", m);
	} else if (ft__starts(m, "SHARP ") || ft__starts(m, "CollNet ") ||
	           ft__starts(m, "COLLNET ")) {
		ft__emit_str(c, line, "nccl.collnet", m);
	} else if (ft__starts(m, "Setting affinity for GPU ")) {
		const char *to = ft__find(m, " to ");

		if (to)
			ft__emit_str(c, line, "nccl.cpu_affinity",
			             ft__trim(ft__skip(m, (size_t)(to - m.p) + 4)));
	} else {
		/* "misc/socket.cc:564 -> 2": the return-code unwinding after an error */
		const char *arrow = ft__find(m, " -> ");
		struct ft__span first = m, tok, code = FT__NOSTR, after;
		const char *colon;

		if (arrow) {
			after = ft__skip(m, (size_t)(arrow - m.p) + 4);
			(void)ft__token(&after, &code);
		}
		if (arrow && ft__token(&first, &tok) && (colon = memchr(tok.p, ':', tok.n)) &&
		    memchr(tok.p, '.', (size_t)(colon - tok.p)) && code.p && ft__i64(code, &v))
			ft__emit(c, line, "nccl.retcode", true, (double)v, NULL, tok);
	}
}

bool
ft__nccl_log_line(struct ft__pctx *c, struct ft__nccl_state *st, struct ft__span s, uint32_t lineno)
{
	const char *mark, *p, *colon, *colon2;
	struct ft__span prefix, m, host = FT__NOSTR, tok, rest;
	bool warn;
	uint64_t pid = 0, dev;
	uint64_t key = 0;
	int *slot;

	if (ft__starts(s, "NCCL version ")) {
		c->host[0] = '\0';
		c->device[0] = '\0';
		c->port = c->rank = -1;
		info_line(c, st, 0, lineno, s);
		return true;
	}
	mark = ft__find(s, "NCCL ");
	while (mark && !(ft__starts(ft__skip(s, (size_t)(mark - s.p)), "NCCL INFO") ||
	                 ft__starts(ft__skip(s, (size_t)(mark - s.p)), "NCCL WARN"))) {
		struct ft__span after = ft__skip(s, (size_t)(mark - s.p) + 5);

		mark = ft__find(after, "NCCL ");
	}
	if (!mark) {
		/*
		 * A completion error quoted alone (an issue title, a grep): no
		 * "host:pid:tid [dev] NCCL WARN" prefix, no entity.
		 */
		const char *g = ft__find(s, "Got completion from peer");

		if (!g)
			return false;
		c->host[0] = c->device[0] = '\0';
		c->port = c->rank = -1;
		m = ft__trim(s);
		warn_line(c, lineno, m);
		return true;
	}
	warn = mark[5] == 'W';
	prefix = (struct ft__span){ s.p, (size_t)(mark - s.p) };
	m = ft__trim(ft__skip(s, (size_t)(mark - s.p) + 9));
	c->host[0] = '\0';
	c->device[0] = '\0';
	c->port = -1;
	c->rank = -1;
	rest = prefix;
	/* "file.cc:NN NCCL WARN" with the host prefix cut off: no host */
	if (ft__token(&rest, &tok) && (colon = memchr(tok.p, ':', tok.n)) &&
	    !(colon - tok.p > 2 && (memcmp(colon - 2, ".c", 2) == 0 ||
				    (colon - tok.p > 3 && memcmp(colon - 3, ".cc", 3) == 0) ||
				    (colon - tok.p > 3 && memcmp(colon - 3, ".cu", 3) == 0) ||
				    (colon - tok.p > 2 && memcmp(colon - 2, ".h", 2) == 0)))) {
		host = (struct ft__span){ tok.p, (size_t)(colon - tok.p) };
		p = colon + 1;
		colon2 = memchr(p, ':', tok.n - (size_t)(p - tok.p));
		if (colon2)
			(void)ft__u64((struct ft__span){ p, (size_t)(colon2 - p) }, &pid);
		ft__copy(c->host, sizeof(c->host), host);
		key = pid_key(host, pid);
		if (ft__token(&rest, &tok) && tok.n > 2 && tok.p[0] == '[' &&
		    tok.p[tok.n - 1] == ']' &&
		    ft__u64((struct ft__span){ tok.p + 1, tok.n - 2 }, &dev) && dev < 1024) {
			/* "GPU<dev>" without printf: this runs for every log line */
			char digits[4], *q = c->device + 3;
			int nd = 0;

			memcpy(c->device, "GPU", 3);
			do {
				digits[nd++] = (char)('0' + dev % 10);
				dev /= 10;
			} while (dev);
			while (nd)
				*q++ = digits[--nd];
			*q = '\0';
		}
		slot = pid_slot(st, key, false);
		if (slot)
			c->rank = *slot;
	}
	if (warn)
		warn_line(c, lineno, m);
	else
		info_line(c, st, key, lineno, m);
	return true;
}

int
ft__nccl_log_run(struct ft__pctx *c, const char *text, size_t len)
{
	return ft__nccl_engine(c, text, len, false);
}

static int
nccl_log_sniff(const char *text, size_t len)
{
	struct ft__span s = { text, len }, line;
	struct ft__lines it;
	int info = 0, rows = 0;

	ft__lines_init(&it, text, len, 0);
	while (ft__lines_next(&it, &line)) {
		struct ft__span t = ft__trim(line), tok;

		if (ft__find(line, "NCCL INFO") || ft__find(line, "NCCL WARN") ||
		    ft__find(line, "Got completion from peer"))
			info++;
		else if (ft__token(&t, &tok) && ft__is_digit(tok.p[0]) && ft__find(line, "  "))
			rows++;
	}
	(void)s;
	if (!info)
		return 0;
	return info >= rows ? 92 : 70;
}

FT__PARSER_SNIFF(nccl_log, "nccl-log",
                 "NCCL_DEBUG=INFO logs: version, net, HCAs, GDR, channels, rings, trees, WARNs",
                 nccl_log_sniff);

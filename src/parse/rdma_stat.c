/* SPDX-License-Identifier: MIT */
/*
 * parse/rdma_stat.c - an RDMA device's hardware counters, as iproute2's rdma
 * tool prints them and as sysfs holds them (kb ROCE-COUNTERS, KSYSFS):
 *
 *   `rdma statistic show [link DEV/PORT]`: one line per port, "link DEV/PORT"
 *   then name-value pairs ("link mlx5_0/1 rx_write_requests 0 ...
 *   local_ack_timeout_err 3 ..."); with -p (pretty) each pair on a line of
 *   its own under the "link" line;
 *
 *   `grep . /sys/class/infiniband/DEV/ports/PORT/hw_counters/NAME` (every file): one
 *   "PATH:VALUE" line per counter.
 *
 * Each counter is `ib.hw_counter.<name>` on DEV and PORT, the names kept as
 * the driver gives them (mlx5: out_of_sequence, packet_seq_err,
 * local_ack_timeout_err, req_transport_retries_exceeded, np_cnp_sent, ...),
 * as `fabtune probe` names the sysfs files it reads, so the same rules read
 * both. A prompt naming a host ("root@n0:~# rdma statistic show") sets the
 * host.
 */
#include "parse_int.h"

/* The "DEV/PORT" of a link line into the context's entity; false when it is not one. */
static bool
set_link(struct ft__pctx *c, struct ft__span dp)
{
	const char *slash = memchr(dp.p, '/', dp.n);
	struct ft__span dev, port;
	uint64_t u;

	if (!slash || slash == dp.p)
		return false;
	dev = (struct ft__span){ dp.p, (size_t)(slash - dp.p) };
	port = ft__skip(dp, dev.n + 1);
	if (!ft__u64(port, &u) || u > 255)
		return false;
	ft__copy(c->device, sizeof(c->device), dev);
	c->port = (int)u;
	return true;
}

/* Name-value pairs to the end of @s: each an observation; a pair whose value is not a
 * number is skipped. False when @s holds none. */
static bool
pairs(struct ft__pctx *c, uint32_t line, struct ft__span s)
{
	struct ft__span name, val;
	bool any = false;

	while (ft__token(&s, &name)) {
		uint64_t u;

		if (!ft__token(&s, &val)) {
			ft__skipped(c, line, "counter without a value", name);
			return any;
		}
		if (!ft__u64(val, &u)) {
			ft__skipped(c, line, "counter value is not a number", name);
			continue;
		}
		ft__emit_named(c, line, "ib.hw_counter.", name, true, (double)u, "count",
		               FT__NOSTR);
		any = true;
	}
	return any;
}

/* ".../infiniband/DEV/ports/PORT/hw_counters/NAME:VALUE"; false when @s is not one. */
static bool
sysfs_line(struct ft__pctx *c, struct ft__span s, uint32_t line)
{
	const char *hw = ft__find(s, "/hw_counters/"), *ib = ft__find(s, "/infiniband/");
	struct ft__span path, name, val, dev, port;
	const char *p;
	uint64_t u;

	/* the two may share a slash ("/infiniband/hw_counters/"): no DEV between them */
	if (!hw || !ib || hw < ib + 12 ||
	    !ft__split(ft__skip(s, (size_t)(hw - s.p) + 13), ':', &name, &val))
		return false;
	path = (struct ft__span){ ib + 12, (size_t)(hw - ib - 12) }; /* "DEV/ports/PORT" */
	p = ft__find(path, "/ports/");
	if (!p || !name.n)
		return false;
	dev = (struct ft__span){ path.p, (size_t)(p - path.p) };
	port = ft__skip(path, dev.n + 7);
	if (!dev.n || !ft__u64(port, &u) || u > 255)
		return false;
	ft__copy(c->device, sizeof(c->device), dev);
	c->port = (int)u;
	if (ft__u64(val, &u))
		ft__emit_named(c, line, "ib.hw_counter.", name, true, (double)u, "count",
		               FT__NOSTR);
	else
		ft__skipped(c, line, "counter value is not a number", s);
	return true;
}

/* Whether a "link DEV/PORT" line was read (the pretty form's pairs follow it). */
struct rstate {
	bool in_link;
};

static bool
rdma_stat_line(struct ft__pctx *c, void *state, struct ft__span s, uint32_t line)
{
	struct rstate *st = state;
	struct ft__span rest = s, tok, cmd;

	if (ft__is_prompt(s, &cmd)) {
		ft__host_from_prompt(c, s);
		st->in_link = false;
		return true;
	}
	if (ft__token(&rest, &tok) && ft__eq(tok, "link") && ft__token(&rest, &tok) &&
	    set_link(c, tok)) {
		st->in_link = true;
		(void)pairs(c, line, rest);
		return true;
	}
	if (sysfs_line(c, s, line))
		return true;
	return st->in_link && pairs(c, line, s);
}

FT__LINES_RUN_STATE(rdma_stat, struct rstate, "not rdma statistic output")

/*
 * A "link DEV/PORT NAME VALUE" line in the first 64 (the command's own output), or a
 * sysfs hw_counters path with its value.
 */
static int
rdma_stat_sniff(const char *text, size_t len)
{
	struct ft__lines it;
	struct ft__span raw;

	ft__lines_init(&it, text, len, 0);
	while (it.lineno < 64 && ft__lines_next(&it, &raw)) {
		struct ft__span s = ft__trim(raw), tok, name, val;
		uint64_t u;

		if (ft__token(&s, &tok) && ft__eq(tok, "link") && ft__token(&s, &tok) &&
		    memchr(tok.p, '/', tok.n)) {
			if (ft__token(&s, &name) && ft__token(&s, &val) && ft__u64(val, &u))
				return 92;
			if (!s.n && ft__find((struct ft__span){ text, len }, "out_of_sequence"))
				return 92; /* the pretty form: the pairs on the lines below */
		}
		if (ft__find(raw, "/hw_counters/") && ft__find(raw, "/infiniband/"))
			return 85;
	}
	return 0;
}

FT__PARSER_SNIFF(rdma_stat, "rdma-statistic",
                 "rdma statistic show / sysfs hw_counters: RDMA hardware counters (retries, "
                 "sequence errors, CNPs)",
                 rdma_stat_sniff);

/* SPDX-License-Identifier: MIT */
/*
 * parse/torch_log.c - what PyTorch's NCCL process group prints when a job
 * stops: the watchdog's collective timeouts and the NCCL errors it raises.
 *
 *   "[rank0]:[E321 02:07:08.408 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog
 *    caught collective operation timeout: WorkNCCL(SeqNum=1580,
 *    OpType=ALLREDUCE, NumelIn=466119168, NumelOut=466119168,
 *    Timeout(ms)=600000) ran for 600060 milliseconds before timing out."
 *   "[PG 1 Rank 0] Exception (either an error or timeout) detected by watchdog
 *    at work: 1580, last enqueued NCCL work: 1582, last completed NCCL work:
 *    1579."
 *   "torch.distributed.DistBackendError: NCCL error in: ...
 *    ProcessGroupNCCL.cpp:1970, remote process exited or there was a network
 *    error, NCCL version 2.20.5"
 *
 * Older releases print "[E ProcessGroupNCCL.cpp:737] [Rank 1] Watchdog ..."
 * without NumelIn/NumelOut. The rank comes from "[Rank N]" (or the "[rankN]:"
 * prefix). Keys: torch.nccl.seq (num SeqNum, str OpType), torch.nccl.timeout
 * (num: milliseconds it ran for, str "OpType SeqNum=N"), torch.nccl.timeout_ms
 * (the configured timeout), torch.nccl.numel, torch.nccl.failed_work,
 * torch.nccl.last_enqueued, torch.nccl.last_completed, torch.nccl.error (str).
 * Lines are read wherever they appear, so a job log that mixes them with NCCL
 * INFO lines is read by the NCCL log parser through ft__torch_line().
 */
#include "parse_int.h"

/* The integer after @word in @s ("SeqNum=1580,": word "SeqNum="). */
static bool
num_after(struct ft__span s, const char *word, double *out)
{
	const char *p = ft__find(s, word);
	struct ft__span rest;
	size_t n = 0;
	uint64_t u;

	if (!p)
		return false;
	rest = ft__skip(s, (size_t)(p - s.p) + strlen(word));
	while (n < rest.n && rest.p[n] >= '0' && rest.p[n] <= '9')
		n++;
	if (!n || !ft__u64((struct ft__span){ rest.p, n }, &u))
		return false;
	*out = (double)u;
	return true;
}

/* The word after @key up to ',' or ')' ("OpType=ALLREDUCE,"). */
static struct ft__span
word_after(struct ft__span s, const char *key)
{
	const char *p = ft__find(s, key);
	struct ft__span rest;
	size_t n = 0;

	if (!p)
		return FT__NOSTR;
	rest = ft__skip(s, (size_t)(p - s.p) + strlen(key));
	while (n < rest.n && rest.p[n] != ',' && rest.p[n] != ')' && rest.p[n] != ' ')
		n++;
	return (struct ft__span){ rest.p, n };
}

/* The rank of "[Rank 3]", "[PG 1 Rank 3]" or the "[rank3]:" prefix; -1 if none. */
static int
line_rank(struct ft__span s)
{
	double r;

	if (num_after(s, "Rank ", &r) || num_after(s, "[rank", &r))
		return r < 1e7 ? (int)r : -1;
	return -1;
}

bool
ft__torch_line(struct ft__pctx *c, struct ft__span s, uint32_t line)
{
	const char *w = ft__find(s, "Watchdog caught collective operation timeout");
	double v;
	int rank;

	if (!w && !ft__find(s, "detected by watchdog at work") && !ft__find(s, "NCCL error in:") &&
	    !ft__find(s, "DistBackendError"))
		return false;
	rank = line_rank(s);
	c->host[0] = c->device[0] = '\0';
	c->port = -1;
	c->rank = rank;
	if (w) {
		struct ft__span work = ft__skip(s, (size_t)(w - s.p));
		struct ft__span op = word_after(work, "OpType=");
		char what[96];
		double seq = -1;

		if (num_after(work, "SeqNum=", &seq))
			ft__emit(c, line, "torch.nccl.seq", true, seq, NULL, op);
		snprintf(what, sizeof(what), "%.*s SeqNum=%.0f", (int)op.n, op.p ? op.p : "",
			 seq);
		if (num_after(work, "ran for ", &v))
			ft__emit(c, line, "torch.nccl.timeout", true, v, "ms", ft__span_c(what));
		if (num_after(work, "Timeout(ms)=", &v))
			ft__emit(c, line, "torch.nccl.timeout_ms", true, v, "ms", op);
		if (num_after(work, "NumelIn=", &v))
			ft__emit(c, line, "torch.nccl.numel", true, v, "count", op);
		return true;
	}
	if (ft__find(s, "detected by watchdog at work")) {
		if (num_after(s, "at work: ", &v))
			ft__emit(c, line, "torch.nccl.failed_work", true, v, NULL, FT__NOSTR);
		if (num_after(s, "last enqueued NCCL work: ", &v))
			ft__emit(c, line, "torch.nccl.last_enqueued", true, v, NULL, FT__NOSTR);
		if (num_after(s, "last completed NCCL work: ", &v))
			ft__emit(c, line, "torch.nccl.last_completed", true, v, NULL, FT__NOSTR);
		return true;
	}
	ft__emit_str(c, line, "torch.nccl.error", ft__trim(s));
	return true;
}

int
ft__torch_log_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct ft__lines it = ft__pctx_lines(c, text, len);
	struct ft__span raw;

	while (ft__lines_next(&it, &raw) && !c->rc) {
		struct ft__span cmd;

		if (ft__is_blank(raw) || ft__torch_line(c, raw, it.lineno) ||
		    ft__xid_line(c, raw, it.lineno) || ft__is_prompt(raw, &cmd))
			continue;
		/* tracebacks, progress bars and other application output are not errors */
	}
	return c->rc;
}

FT__PARSER(torch_log, "pytorch-log",
           "PyTorch NCCL process group: watchdog timeouts (rank, op, SeqNum), NCCL errors",
           { 90, { "Watchdog caught collective operation timeout" } },
           { 85, { "ProcessGroupNCCL", "detected by watchdog|NCCL error in:" } },
           { 75, { "DistBackendError", "NCCL error" } });

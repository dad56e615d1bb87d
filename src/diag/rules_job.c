/* SPDX-License-Identifier: MIT */
/*
 * diag/rules_job.c - rules on how a training job stopped: PyTorch's NCCL
 * watchdog timeouts (which rank, which collective, which sequence number,
 * and whether the ranks even agree on it), NCCL errors raised into the
 * framework, and GPU Xid events from the kernel log, each with what it means
 * and what to do.
 *
 * The Xid classes and their first actions paraphrase NVIDIA's Xid catalog
 * (docs.nvidia.com/deploy/xid-errors, "Resolution Bucket"); the watchdog
 * reading paraphrases PyTorch's ProcessGroupNCCL messages: every rank of a
 * collective must call it with the same sequence number, so ranks that
 * disagree on the operation at one number have diverged, and ranks that never
 * report are the ones the others wait for.
 */
#include "internal.h"

#include "diag/diag_int.h"

/* ---- watchdog timeouts ---------------------------------------------------- */

#define MAX_RANKS_LISTED 16

/* "0,2,3" into @buf from the ranks of @o[0..n) (deduplicated, in input order). */
static void
rank_list(const struct ft_obs *const *o, size_t n, char *buf, size_t len)
{
	size_t i, k, used = 0, shown = 0;

	buf[0] = '\0';
	for (i = 0; i < n && used + 12 < len; i++) {
		for (k = 0; k < i; k++)
			if (o[k]->rank == o[i]->rank)
				break;
		if (k < i || o[i]->rank < 0)
			continue;
		if (shown++ == MAX_RANKS_LISTED) {
			used += (size_t)snprintf(buf + used, len - used, ",...");
			break;
		}
		used += (size_t)snprintf(buf + used, len - used, "%s%d", used ? "," : "", o[i]->rank);
	}
}

int
ft__diag_eval_watchdog(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	const struct ft_obs *seqs[64];
	const struct ft_obs *first = NULL, *other_op = NULL, *low = NULL, *high = NULL;
	const struct ft_obs *ran, *limit, *last, *ev[FT_FINDING_MAX_EVIDENCE];
	size_t n = 0, i, nev = 0, pos = 0;
	char ranks[128], missing[128] = "";
	const struct ft_obs *o;
	int maxrank = -1;
	bool seen[1024] = { false };

	while ((o = ft__diag_next(c, "torch.nccl.seq", &pos)) != NULL) {
		if (!o->has_num)
			continue;
		if (n < FT_ARRAY_SIZE(seqs))
			seqs[n++] = o;
	}
	if (!n)
		return 0;
	first = seqs[0];
	for (i = 0; i < n; i++) {
		o = seqs[i];
		if (!low || o->num < low->num)
			low = o;
		if (!high || o->num > high->num)
			high = o;
		if (o->num == first->num && strcmp(o->str, first->str) != 0 && !other_op)
			other_op = o;
		if (o->rank > maxrank)
			maxrank = o->rank;
		if (o->rank >= 0 && o->rank < (int)FT_ARRAY_SIZE(seen))
			seen[o->rank] = true;
	}
	/* a rank whose watchdog reported the failed work is waiting too */
	pos = 0;
	while ((o = ft__diag_next(c, "torch.nccl.failed_work", &pos)) != NULL)
		if (o->rank >= 0 && o->rank < (int)FT_ARRAY_SIZE(seen)) {
			seen[o->rank] = true;
			if (o->rank > maxrank)
				maxrank = o->rank;
		}
	rank_list(seqs, n, ranks, sizeof(ranks));
	ran = ft__diag_find_line(c, "torch.nccl.timeout", first);
	limit = ft__diag_find_line(c, "torch.nccl.timeout_ms", first);
	last = ft__diag_find(c, "torch.nccl.last_completed");
	ev[nev++] = first;
	if (other_op)
		ev[nev++] = other_op;
	else if (high != low)
		ev[nev++] = high;
	if (last && nev < FT_ARRAY_SIZE(ev))
		ev[nev++] = last;

	if (other_op)
		return ft__diag_emit(
			c, out, -1, ev, nev,
			"ranks disagree on collective SeqNum=%.0f: rank %d waits in %s, rank %d in "
			"%s. The ranks issued different collectives (diverging control flow, "
			"data-dependent branches, uneven batches at epoch end): a desync in the "
			"application, not a network fault",
			first->num, first->rank, first->str, other_op->rank, other_op->str);
	if (high->num != low->num)
		return ft__diag_emit(
			c, out, -1, ev, nev,
			"ranks stopped at different collectives: rank %d at SeqNum=%.0f (%s), rank "
			"%d at SeqNum=%.0f (%s); the ranks at the lower number fell behind or "
			"skipped collectives",
			low->rank, low->num, low->str, high->rank, high->num, high->str);
	/* Ranks below the highest that never reported may be the ones the others wait for. */
	if (maxrank >= 1 && maxrank < (int)FT_ARRAY_SIZE(seen)) {
		size_t used = 0;
		int r;

		for (r = 0; r <= maxrank && used + 12 < sizeof(missing); r++)
			if (!seen[r])
				used += (size_t)snprintf(missing + used, sizeof(missing) - used,
							 "%s%d", used ? "," : "", r);
	}
	{
		char tail[256], lastbuf[96] = "";

		if (missing[0])
			snprintf(tail, sizeof(tail),
				 "rank%s %s did not report a timeout here: when these logs are "
				 "complete, the others wait for %s (a crashed or hung process, a GPU "
				 "fault, a dead link)",
				 strchr(missing, ',') ? "s" : "", missing,
				 strchr(missing, ',') ? "them" : "it");
		else
			snprintf(tail, sizeof(tail),
				 "every reporting rank waits in the same collective: one rank or link "
				 "stopped making progress (a crashed or hung process, a GPU fault, a "
				 "dead link); find the rank that is not waiting");
		if (last && last->has_num)
			snprintf(lastbuf, sizeof(lastbuf), "; last completed work %.0f (rank %d)",
				 last->num, last->rank);
		return ft__diag_emit(c, out, -1, ev, nev,
				     "%s SeqNum=%.0f timed out on rank%s %s after %.0f s (timeout "
				     "%.0f s)%s: %s",
				     first->str, first->num, strchr(ranks, ',') ? "s" : "", ranks,
				     ran && ran->has_num ? ran->num / 1000 : 0,
				     limit && limit->has_num ? limit->num / 1000 : 0, lastbuf, tail);
	}
}

int
ft__diag_eval_torch_nccl_error(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	struct ft__evidence e = { 0 };
	const struct ft_obs *o;
	const char *why = "";
	size_t pos = 0;

	while ((o = ft__diag_next(c, "torch.nccl.error", &pos)) != NULL)
		ft__evidence_add(&e, o);
	if (!e.total)
		return 0;
	if (ft__str_icontains(e.ev[0]->str, "remote process exited") ||
	    ft__str_icontains(e.ev[0]->str, "network error"))
		why = ": a peer process died or the network failed under it; the first rank to "
		      "fail logged its own cause (an Xid, an out-of-memory, NCCL WARN lines)";
	else if (ft__str_icontains(e.ev[0]->str, "unhandled system error"))
		why = ": NCCL hit a system call or verbs failure; rerun with NCCL_DEBUG=WARN "
		      "to see the failing call";
	else if (ft__str_icontains(e.ev[0]->str, "unhandled cuda error"))
		why = ": a CUDA call failed inside NCCL; NCCL's WARN line says which (Cuda "
		      "failure N 'text')";
	else if (ft__str_icontains(e.ev[0]->str, "invalid usage"))
		why = ": the application called NCCL wrongly (mismatched sizes, types or ranks)";
	return ft__diag_emit(c, out, -1, e.ev, e.n,
			     "NCCL error raised into the framework (%zu line%s)%s", e.total,
			     e.total == 1 ? "" : "s", why);
}

/* ---- Xid ------------------------------------------------------------------ */

enum xid_action { XID_RESTART_APP, XID_RESET_GPU, XID_DRAIN, XID_WATCH };

static const struct {
	int code;
	enum xid_action action;
	const char *what;
} xids[] = {
	{ 13, XID_RESTART_APP, "graphics engine exception: usually the application (bad index, "
			       "illegal instruction), rarely the GPU" },
	{ 31, XID_RESTART_APP, "GPU memory page fault: an illegal address in the application or "
			       "framework" },
	{ 32, XID_RESTART_APP, "invalid or corrupted push buffer / DMA: driver or application" },
	{ 43, XID_RESTART_APP, "GPU stopped processing a channel after an application fault; the "
			       "GPU itself is usually fine" },
	{ 45, XID_WATCH, "preemptive cleanup of a channel (a process ended or was killed, often after "
			 "another error): look at the error before it" },
	{ 48, XID_DRAIN, "double-bit (uncorrectable) ECC error in GPU memory" },
	{ 61, XID_RESET_GPU, "internal micro-controller breakpoint/warning" },
	{ 62, XID_RESET_GPU, "internal micro-controller halt" },
	{ 63, XID_WATCH, "ECC page retirement or row remapping recorded: takes effect after a GPU "
			 "reset; trend the count" },
	{ 64, XID_DRAIN, "ECC page retirement or row remapping failed: failing GPU memory" },
	{ 74, XID_DRAIN, "NVLink error: a GPU-GPU or GPU-NVSwitch link failed; NCCL traffic inside "
			 "the node stops or slows" },
	{ 79, XID_DRAIN, "GPU has fallen off the bus: it no longer answers on PCIe (power, thermal, "
			 "riser or slot, or the GPU)" },
	{ 92, XID_WATCH, "high single-bit ECC error rate: a rising rate predicts failure" },
	{ 94, XID_RESTART_APP, "contained ECC error: the application using that memory was stopped, "
			       "the GPU keeps running" },
	{ 95, XID_RESET_GPU, "uncontained ECC error: every application on the GPU is affected" },
	{ 119, XID_RESET_GPU, "GSP firmware RPC timeout" },
	{ 120, XID_RESET_GPU, "GSP firmware error" },
	{ 140, XID_RESET_GPU, "unrecovered ECC error" },
	/*
	 * Hopper and later. Names from the driver's own list (NVIDIA
	 * open-gpu-kernel-modules 595.45.04, src/common/sdk/nvidia/inc/nverror.h);
	 * the class is the catalog's for the same kind of fault: an NVLink unit
	 * as Xid 74, lost memory as 48/64, a lost bus as 79. An NVLink unit error
	 * is followed by an Xid 154 that names the recovery the driver wants.
	 */
	{ 121, XID_RESET_GPU, "C2C (chip-to-chip, Grace-Hopper/Blackwell) link error" },
	{ 136, XID_RESET_GPU, "NVLink link training failed when the GPU came up: it starts with "
			      "fewer or no NVLinks" },
	{ 137, XID_RESET_GPU, "NVLink privileged-register access error" },
	{ 143, XID_DRAIN, "GPU initialization failed: the GPU is not usable" },
	{ 144, XID_RESET_GPU, "NVLink error in the SAW unit" },
	{ 145, XID_RESET_GPU, "NVLink error in the RLW unit (link layer)" },
	{ 146, XID_RESET_GPU, "NVLink error in the TLW unit (transaction layer)" },
	{ 147, XID_RESET_GPU, "NVLink error in the TREX unit" },
	{ 148, XID_RESET_GPU, "NVLink error in the NVLPW control unit" },
	{ 149, XID_RESET_GPU, "NVLink error reported by the link firmware (NETIR: a link went "
			      "down or failed)" },
	{ 150, XID_RESET_GPU, "NVLink error in the MSE unit (link management firmware)" },
	{ 155, XID_RESET_GPU, "NVLink error defined by the driver (software-detected link fault)" },
	{ 156, XID_WATCH, "GPU resource retirement recorded (memory or channel retired): trend "
			  "the count" },
	{ 157, XID_DRAIN, "GPU resource retirement failed: failing GPU resource" },
	{ 158, XID_RESET_GPU, "GPU fatal timeout: the GPU stopped answering the driver" },
	{ 167, XID_DRAIN, "PCIe fatal timeout: the GPU stopped answering on PCIe" },
	{ 168, XID_DRAIN, "GPU memory capacity reduced (memory taken out of service)" },
	{ 171, XID_DRAIN, "uncorrectable DRAM (GPU memory) error" },
	{ 172, XID_DRAIN, "uncorrectable SRAM (on-chip memory) error" },
	{ 173, XID_DRAIN, "C2C fatal link failure: the GPU lost its link to the CPU" },
	{ 175, XID_DRAIN, "GPU memory subsystem error" },
};

static const char *const action_text[] = {
	[XID_RESTART_APP] = "restart the job; if it recurs on the same GPU with other code, treat "
			    "it as hardware",
	[XID_RESET_GPU] = "drain the GPU, reset it (nvidia-smi -r) or reboot, and run a DCGM "
			  "diagnostic before returning it",
	[XID_DRAIN] = "drain the node now, run dcgmi diag -r 3; RMA if it recurs",
	[XID_WATCH] = "keep the job; record and trend it, act on a rising count",
};

/* The catalogue entry of Xid @code, or FT_ARRAY_SIZE(xids) when not known. */
static size_t
xid_find(int code)
{
	size_t k;

	for (k = 0; k < FT_ARRAY_SIZE(xids); k++)
		if (xids[k].code == code)
			break;
	return k;
}

static int
xid_severity(size_t k)
{
	if (k == FT_ARRAY_SIZE(xids))
		return FT_SEV_WARNING;
	return xids[k].action == XID_DRAIN	 ? FT_SEV_CRITICAL :
	       xids[k].action == XID_RESET_GPU	 ? FT_SEV_ERROR :
	       xids[k].action == XID_RESTART_APP ? FT_SEV_WARNING :
						   FT_SEV_INFO;
}

/*
 * The Xid a line says it follows ("45, ... caused by previous Xid 149") when
 * that Xid's own line on the same GPU is not among the inputs (a grep, a cut
 * log), else 0: the cause is then known only from this line.
 */
static int
xid_missing_cause(const struct ft_diag_ctx *c, const struct ft_obs *o)
{
	const char *at = strstr(o->str, "caused by previous Xid ");
	const struct ft_obs *p;
	size_t pos = 0;
	long cause;

	if (!at)
		return 0;
	cause = strtol(at + strlen("caused by previous Xid "), NULL, 10);
	if (cause <= 0 || cause > 100000)
		return 0;
	while ((p = ft__diag_next(c, "gpu.xid", &pos)) != NULL)
		if (p->has_num && (long)p->num == cause && strcmp(p->host, o->host) == 0 &&
		    strcmp(p->device, o->device) == 0)
			return 0;
	return (int)cause;
}

/*
 * Xid 154 says which recovery the driver now wants ("GPU recovery action
 * changed from 0x0 (None) to 0x4 (Drain and Reset)", the action names of
 * open-gpu-kernel-modules' gpu.c; older drivers say "PF FLR" or "OS Reboot"):
 * the severity is that action's. @last is
 * the GPU's latest Xid 154 line, which holds the action in force.
 */
static int
check_recovery_action(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o,
		      const struct ft_obs *last, size_t count)
{
	static const struct {
		const char *name;
		int sev;
		const char *todo;
	} acts[] = {
		{ "(None)", FT_SEV_INFO, "nothing to do: the GPU recovered by itself" },
		{ "(Drain P2P)", FT_SEV_WARNING,
		  "stop the jobs that use peer-to-peer (NVLink) traffic on this GPU, then reset it" },
		{ "(Recover IMEX Domain)", FT_SEV_WARNING,
		  "restart the IMEX domain (multi-node NVLink memory sharing) this GPU is in" },
		{ "(GPU Reset Required)", FT_SEV_ERROR,
		  "drain the GPU and reset it (nvidia-smi -r); run a DCGM diagnostic before returning it" },
		{ "(Drain and Reset)", FT_SEV_ERROR,
		  "drain the GPU's jobs, then reset it (nvidia-smi -r)" },
		{ "(PF FLR)", FT_SEV_ERROR,
		  "drain the GPU and reset it (a function-level reset, nvidia-smi -r)" },
		{ "(Node Reboot Required)", FT_SEV_CRITICAL, "drain the node and reboot it" },
		{ "(OS Reboot)", FT_SEV_CRITICAL, "drain the node and reboot it" },
	};
	const char *to = strstr(last->str, " to ");
	size_t k;

	for (k = 0; to && k < FT_ARRAY_SIZE(acts); k++)
		if (ft__str_icontains(to, acts[k].name))
			return ft__diag_emit(c, out, acts[k].sev, FT__EV(o, last != o ? last : NULL),
					     "Xid 154 on GPU %s (%zu time%s): the driver's recovery "
					     "action is now %.*s; %s",
					     o->device[0] ? o->device : "?", count,
					     count == 1 ? "" : "s", (int)strlen(acts[k].name) - 2,
					     acts[k].name + 1, acts[k].todo);
	return ft__diag_emit(c, out, FT_SEV_WARNING, FT__EV(o, last != o ? last : NULL),
			     "Xid 154 on GPU %s (%zu time%s): the driver's recovery action changed, "
			     "to one this list does not know: \"%.100s\"; see NVIDIA's Xid catalog",
			     o->device[0] ? o->device : "?", count, count == 1 ? "" : "s", last->str);
}

/* One finding per GPU and code, with the count, at its first line. */
static int
check_xid(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	const struct ft_obs *p, *last = o;
	size_t k, pos = 0, count = 0;
	int code, sev, cause;

	if (!o->has_num)
		return 0;
	code = (int)o->num;
	while ((p = ft__diag_next(c, "gpu.xid", &pos)) != NULL) {
		if (!p->has_num || (int)p->num != code || strcmp(p->host, o->host) != 0 ||
		    strcmp(p->device, o->device) != 0)
			continue;
		if (p != o &&
		    (p->line < o->line || (p->line == o->line && strcmp(p->file, o->file) < 0)))
			return 0;
		count++;
		if (p->line > last->line)
			last = p;
	}
	if (code == 154)
		return check_recovery_action(c, out, o, last, count);
	k = xid_find(code);
	cause = xid_missing_cause(c, o);
	if (cause) {
		/* judged by its cause, which the line names but the inputs do not hold */
		size_t kc = xid_find(cause);

		sev = xid_severity(kc);
		return ft__diag_emit(c, out, sev > xid_severity(k) ? sev : xid_severity(k), FT__EV(o),
				     "Xid %d on GPU %s (%zu time%s) caused by previous Xid %d, "
				     "whose own line is not among the inputs: %s; %s",
				     code, o->device[0] ? o->device : "?", count,
				     count == 1 ? "" : "s", cause,
				     kc < FT_ARRAY_SIZE(xids) ? xids[kc].what
							      : "a code not in this list, see NVIDIA's "
								"Xid catalog",
				     kc < FT_ARRAY_SIZE(xids) ? action_text[xids[kc].action]
							      : "find its line in the full kernel log");
	}
	if (k == FT_ARRAY_SIZE(xids))
		return ft__diag_emit(c, out, FT_SEV_WARNING, FT__EV(o),
				     "Xid %d on GPU %s (%zu time%s): \"%.100s\"; look it up in "
				     "NVIDIA's Xid catalog",
				     code, o->device[0] ? o->device : "?", count,
				     count == 1 ? "" : "s", o->str);
	sev = xid_severity(k);
	return ft__diag_emit(c, out, sev, FT__EV(o), "Xid %d on GPU %s (%zu time%s): %s; %s", code,
			     o->device[0] ? o->device : "?", count, count == 1 ? "" : "s",
			     xids[k].what, action_text[xids[k].action]);
}
FT__DIAG_EACH(ft__diag_eval_xid, "gpu.xid", check_xid)

/* ---- GPU memory repair (nvidia-smi -q) -------------------------------------- */

static bool
says_yes(const struct ft_obs *o)
{
	return o && !o->has_num && ft__str_icontains(o->str, "yes");
}

/*
 * A GPU repairs failing memory rows by remapping them to spares (A100 and
 * later) or by retiring their pages (before): recorded at once, in effect
 * only after a GPU reset, so until then the failing rows stay in use; when
 * no spare is left the repair fails and the memory is bad (Xid 63 and 64 of
 * NVIDIA's Xid catalog and its GPU memory error management guide). One
 * finding per GPU: a failure, else a pending repair.
 */
static int
check_remap(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	bool failure = strcmp(o->key, "gpu.remap.failure") == 0;
	const struct ft_obs *unc = ft__diag_find_same(c, "gpu.remap.uncorrectable", o);
	const struct ft_obs *cor = ft__diag_find_same(c, "gpu.remap.correctable", o);
	const char *gpu = o->device[0] ? o->device : "(no GPU line)";

	if (!says_yes(o))
		return 0;
	if (failure)
		return ft__diag_emit(c, out, FT_SEV_CRITICAL, FT__EV(o, unc, cor),
				     "row remapping failed on GPU %s: no spare row is left for "
				     "a failing memory bank, so the errors recur",
				     gpu);
	if (says_yes(ft__diag_find_same(c, "gpu.remap.failure", o)))
		return 0; /* the failure's finding says it */
	if (strcmp(o->key, "gpu.retired.pending") == 0)
		return ft__diag_emit(c, out, -1,
				     FT__EV(o, ft__diag_find_same(c, "gpu.retired.dbe", o)),
				     "page retirement pending on GPU %s: the pages with ECC errors "
				     "stay in use until the driver is reloaded or the node rebooted",
				     gpu);
	return ft__diag_emit(c, out, -1, FT__EV(o, unc, cor),
			     "row remapping pending on GPU %s (%.0f uncorrectable, %.0f correctable "
			     "rows): the failing rows stay in use until the GPU is reset",
			     gpu, unc && unc->has_num ? unc->num : 0,
			     cor && cor->has_num ? cor->num : 0);
}
FT__DIAG_EACH(ft__diag_eval_remap, "gpu.remap.pending gpu.remap.failure gpu.retired.pending",
	      check_remap)

/* An uncorrectable ECC count above 0 of @span ("volatile" or "aggregate"). */
static bool
ecc_uncorrectable(const struct ft_obs *o, const char *span)
{
	char pre[32];
	const char *name;
	double v;

	snprintf(pre, sizeof(pre), "gpu.ecc.%s.", span);
	if (!ft__str_has_prefix(o->key, pre))
		return false;
	name = o->key + strlen(pre);
	return (strstr(name, "uncorrectable") || strcmp(name, "dbe") == 0) && ft__obs_number(o, &v) &&
	       v > 0;
}

/* The first uncorrectable ECC count of @span on the GPU of @o, or NULL; their sum in *@sum. */
static const struct ft_obs *
ecc_first(const struct ft_diag_ctx *c, const struct ft_obs *o, const char *span, double *sum)
{
	const struct ft_obs *first = NULL;

	*sum = 0;
	for (size_t k = 0; k < ft__nobs(c); k++) {
		const struct ft_obs *p = ft__obs(c, k);

		if (!ecc_uncorrectable(p, span) || strcmp(p->host, o->host) != 0 ||
		    strcmp(p->device, o->device) != 0)
			continue;
		first = first ? first : p;
		*sum += p->num;
	}
	return first;
}

/*
 * Uncorrectable ECC errors in a GPU's memory (Xid 48, 94 and 95 of NVIDIA's
 * Xid catalog, https://docs.nvidia.com/deploy/xid-errors/): counted since
 * the driver loaded ("Volatile"), a job on this GPU met one now; counted only
 * over its life ("Aggregate"), the event is past and the memory repair state
 * (gpu-memory-remap) says whether it is dealt with, so that is only noted.
 * Correctable errors are what ECC is for and are not reported. One finding
 * per GPU, at its first count.
 */
static int
check_ecc(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	bool vol = ft__str_has_prefix(o->key, "gpu.ecc.volatile.");
	const char *gpu = o->device[0] ? o->device : "(no GPU line)";
	double sum, vsum;

	if (!ecc_uncorrectable(o, vol ? "volatile" : "aggregate") ||
	    ecc_first(c, o, vol ? "volatile" : "aggregate", &sum) != o)
		return 0;
	if (vol)
		return ft__diag_emit(c, out, -1, FT__EV(o),
				     "%.0f uncorrectable ECC errors on GPU %s since the driver "
				     "loaded: a job on it read corrupted memory",
				     sum, gpu);
	if (ecc_first(c, o, "volatile", &vsum))
		return 0; /* the volatile finding says it */
	return ft__diag_emit(c, out, FT_SEV_INFO, FT__EV(o),
			     "%.0f uncorrectable ECC errors on GPU %s over its life, none since "
			     "the driver loaded: see whether its memory repair is done",
			     sum, gpu);
}
FT__DIAG_EACH(ft__diag_eval_ecc, "gpu.ecc.volatile.* gpu.ecc.aggregate.*", check_ecc)

/* ---- DCGM ------------------------------------------------------------------ */

/*
 * NVLinks down: NCCL then moves intra-node traffic over PCIe (a fraction of
 * the bandwidth) or fails NVLS. One finding per GPU. A GPU without NVLink
 * hardware reports its links as not supported ('_'), not down.
 */
static int
check_nvlink_down(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	const struct ft_obs *up = ft__diag_find_same(c, "dcgm.nvlink.up", o);
	double nup = up && up->has_num ? up->num : 0;

	if (!o->has_num || o->num <= 0)
		return 0;
	return ft__diag_emit(c, out, nup > 0 ? FT_SEV_WARNING : -1, FT__EV(o),
			     "%.0f of %.0f NVLinks of %s are down: NCCL moves this GPU's "
			     "intra-node traffic to PCIe at a fraction of the bandwidth, and "
			     "NVLink SHARP is unavailable",
			     o->num, o->num + nup, o->device);
}
FT__DIAG_EACH(ft__diag_eval_nvlink_down, "dcgm.nvlink.down", check_nvlink_down)

static int
check_dcgm(const struct ft_diag_ctx *c, struct ft_findings *out, const struct ft_obs *o)
{
	bool fail;

	if (strcmp(o->key, "dcgm.health") == 0) {
		if (ft__str_icontains(o->str, "Healthy") || !o->str[0])
			return 0;
		fail = ft__str_icontains(o->str, "Fail");
		return ft__diag_emit(c, out, fail ? FT_SEV_ERROR : FT_SEV_WARNING, FT__EV(o),
				     "DCGM health: %s", o->str);
	}
	fail = ft__str_has_prefix(o->str, "Fail");
	if (!fail && !ft__str_has_prefix(o->str, "Warn"))
		return 0;
	return ft__diag_emit(c, out, fail ? FT_SEV_ERROR : FT_SEV_WARNING, FT__EV(o),
			     "DCGM diagnostic \"%s\": %s", o->device, o->str);
}
FT__DIAG_EACH(ft__diag_eval_dcgm_diag, "dcgm.diag dcgm.health", check_dcgm)

/* ---- recovery time ---------------------------------------------------------- */

/*
 * Users hold a job to recovering from a failure within recovery_max (5 min by
 * default). A failure cannot be acted on before it is detected: the PyTorch
 * watchdog's collective timeout, and for a lost peer on IB/RoCE NCCL's
 * 4.096 us x 2^NCCL_IB_TIMEOUT x (NCCL_IB_RETRY_CNT + 1) (ENV-IB_TIMEOUT,
 * ENV-IB_RETRY_CNT), each alone may exceed it.
 */
int
ft__diag_eval_recovery(const struct ft_diag_ctx *c, struct ft_findings *out)
{
	double max = c->thresholds->recovery_max_s, t, retry = 7;
	const struct ft_obs *o = ft__diag_find(c, "torch.nccl.timeout_ms");
	const struct ft_obs *to = ft__diag_env(c, "NCCL_IB_TIMEOUT");
	const struct ft_obs *rc_env = ft__diag_env(c, "NCCL_IB_RETRY_CNT");
	int rc;

	if (max <= 0)
		return 0;
	if (o && o->has_num && o->num / 1000 > max) {
		const struct ft_obs *ev[1] = { o };

		rc = ft__diag_emit(c, out, -1, ev, 1,
				   "the NCCL watchdog timeout is %.0f s: a hung collective is only "
				   "detected after that, beyond the %.0f s the job is held to for "
				   "recovery (thresholds recovery_max)",
				   o->num / 1000, max);
		if (rc < 0)
			return rc;
	}
	if (to && ft__obs_number(to, &t) && t > 0 && t < 32) {
		const struct ft_obs *ev[2] = { to, rc_env };
		double wait;

		if (rc_env)
			(void)ft__obs_number(rc_env, &retry);
		wait = 4.096e-6 * ldexp(1.0, (int)t) * (retry + 1);
		if (wait > max)
			return ft__diag_emit(c, out, -1, ev, 2,
					     "NCCL_IB_TIMEOUT=%.0f with %.0f retries waits %.0f s "
					     "before a dead peer is reported, beyond the %.0f s the "
					     "job is held to for recovery (thresholds recovery_max)",
					     t, retry, wait, max);
	}
	return 0;
}

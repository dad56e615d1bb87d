/* SPDX-License-Identifier: MIT */
/*
 * parse/torch_trace.c - PyTorch profiler (Kineto) traces in the Chrome trace
 * JSON format ("*.pt.trace.json"): how much of the GPU's NCCL kernel time
 * runs while compute kernels run on the same device.
 *
 * The measure is the one Holistic Trace Analysis calls communication
 * computation overlap (HTA's docs, "Communication Computation Overlap", and
 * hta/analyzers/communication_analysis.py): per rank, the GPU kernels are
 * split into communication (name starting with "nccl" or holding
 * "ncclKernel") and computation (every other kernel that is not a memory
 * copy or set); each class is merged into a union of busy intervals, and the
 * share of the communication union covered by the computation union is the
 * overlap. One trace file is one rank (distributedInfo.rank); a file holding
 * several devices gets one figure per device.
 *
 * Per device, with the rank of the trace: `torch.trace.comm_s`,
 * `torch.trace.compute_s` and `torch.trace.overlap_s` (seconds of the
 * unions and of their intersection), `torch.trace.overlap` (0..1, only when
 * the device ran communication), `torch.trace.comm_kernels`; once per file
 * `torch.trace.world_size` when the trace has it. The observations point at
 * the line of the device's first NCCL kernel.
 *
 * Input may be a fragment: a few event objects pasted without the enclosing
 * {"traceEvents": [...]}; lines that are not JSON (a shell prompt, a note)
 * are passed over. The walker is bounded (depth 32) and allocates only the
 * kernel intervals. Invalid JSON stops the walk at that point with a
 * `parse.skipped` naming the line; the kernels read before it still count.
 */
#include "parse_int.h"

#define TMAXDEPTH 32

struct tw {
	struct ft__jcur j;
	/* file-level facts */
	int64_t rank;
	int64_t world;
	uint32_t world_line;
	struct ft_vec iv; /* struct kiv */
	bool oom;
};

struct kiv {
	int64_t device;
	double b, e;
	bool comm;
	uint32_t line;
};

/* What an object is to its parent: an event candidate, an event's args, distributedInfo. */
enum role { R_EVENT, R_ARGS, R_DIST };

struct tevent {
	struct ft__span ph, cat, name;
	double ts, dur;
	bool has_ts, has_dur;
	int64_t device, pid;
	bool has_device, has_pid;
	uint32_t line;
};

/* A number, true, false or null: the span up to the next delimiter. */
static bool
jscalar(struct tw *w, struct ft__span *out)
{
	struct ft__jcur *j = &w->j;
	const char *b = j->p;

	while (j->p < j->end && *j->p != ',' && *j->p != '}' && *j->p != ']' &&
	       !ft__is_space(*j->p))
		j->p++;
	*out = (struct ft__span){ b, (size_t)(j->p - b) };
	return out->n > 0;
}

static bool
is_comm(struct ft__span name)
{
	return ft__starts(name, "nccl") || ft__find(name, "ncclKernel") != NULL;
}

static bool
is_memory(struct ft__span name)
{
	return ft__starts(name, "Memcpy") || ft__starts(name, "Memset");
}

/* A complete event object: keep it when it is a GPU kernel with a time span. */
static void
event_done(struct tw *w, const struct tevent *e)
{
	struct kiv k;

	if (!ft__eq(e->ph, "X") || !ft__eq(e->cat, "kernel") || !e->has_ts || !e->has_dur ||
	    e->dur < 0 || !isfinite(e->ts) || !isfinite(e->dur) || is_memory(e->name))
		return;
	k.device = e->has_device ? e->device : e->has_pid ? e->pid : 0;
	k.b = e->ts;
	k.e = e->ts + e->dur;
	k.comm = is_comm(e->name);
	k.line = e->line;
	if (ft_vec_push(&w->iv, &k) < 0) {
		w->oom = true;
		w->j.p = w->j.end;
	}
}

static void jvalue(struct tw *w, int depth, enum role role, struct tevent *parent,
                   struct ft__span key);

/* An object at its '{'; @role says what it is, @parent the event it belongs to. */
static void
jobject(struct tw *w, int depth, enum role role, struct tevent *parent)
{
	struct ft__jcur *j = &w->j;
	struct tevent ev = { .line = ft__jcur_line(j, j->p) };
	struct tevent *self = role == R_EVENT ? &ev : parent;
	struct ft__span k;
	int next;

	if (!ft__jcur_open(j, '}'))
		return;
	while (j->p < j->end) {
		ft__jcur_ws(j);
		if (!ft__jcur_key(j, &k))
			return ft__jcur_fail(j);
		ft__jcur_ws(j);
		if (j->p < j->end && *j->p == '{') {
			if (role == R_EVENT && ft__eq(k, "args"))
				jvalue(w, depth + 1, R_ARGS, self, k);
			else if (ft__eq(k, "distributedInfo"))
				jvalue(w, depth + 1, R_DIST, NULL, k);
			else
				jvalue(w, depth + 1, R_EVENT, NULL, k);
		} else {
			jvalue(w, depth + 1, role, self, k);
		}
		if (j->bad || w->oom)
			return;
		next = ft__jcur_next(j, '}');
		if (next == 0 && role == R_EVENT)
			event_done(w, &ev);
		if (next <= 0)
			return;
	}
	ft__jcur_fail(j);
}

/* A scalar member @key of an object with @role. */
static void
member(struct tw *w, enum role role, struct tevent *e, struct ft__span key, struct ft__span v,
       bool is_str, uint32_t line)
{
	double d;
	int64_t i;

	if (role == R_DIST) {
		if (!is_str && ft__eq(key, "rank") && ft__i64(v, &i))
			w->rank = i;
		else if (!is_str && ft__eq(key, "world_size") && ft__i64(v, &i) && i > 0) {
			w->world = i;
			w->world_line = line;
		}
		return;
	}
	if (!e)
		return;
	if (role == R_ARGS) {
		if (!is_str && ft__eq(key, "device") && ft__i64(v, &i)) {
			e->device = i;
			e->has_device = true;
		}
		return;
	}
	if (is_str) {
		if (ft__eq(key, "ph"))
			e->ph = v;
		else if (ft__eq(key, "cat"))
			e->cat = v;
		else if (ft__eq(key, "name"))
			e->name = v;
		return;
	}
	if (ft__eq(key, "ts") && ft__dbl(v, &d)) {
		e->ts = d;
		e->has_ts = true;
	} else if (ft__eq(key, "dur") && ft__dbl(v, &d)) {
		e->dur = d;
		e->has_dur = true;
	} else if (ft__eq(key, "pid") && ft__i64(v, &i)) {
		e->pid = i;
		e->has_pid = true;
	}
}

static void
jvalue(struct tw *w, int depth, enum role role, struct tevent *parent, struct ft__span key)
{
	struct ft__jcur *j = &w->j;
	struct ft__span s;
	uint32_t line;

	ft__jcur_ws(j);
	if (j->p >= j->end || depth >= TMAXDEPTH)
		return ft__jcur_fail(j);
	if (*j->p == '{')
		return jobject(w, depth, role, parent);
	if (*j->p == '[') {
		if (!ft__jcur_open(j, ']'))
			return;
		while (j->p < j->end) {
			ft__jcur_ws(j);
			if (j->p < j->end && *j->p == '{')
				jobject(w, depth + 1, R_EVENT, NULL);
			else
				jvalue(w, depth + 1, R_EVENT, NULL, FT__NOSTR);
			if (j->bad || w->oom)
				return;
			if (ft__jcur_next(j, ']') <= 0)
				return;
		}
		return ft__jcur_fail(j);
	}
	line = ft__jcur_line(j, j->p);
	if (*j->p == '"') {
		if (!ft__jcur_string(j, &s))
			return ft__jcur_fail(j);
		member(w, role, parent, key, s, true, line);
		return;
	}
	if (!jscalar(w, &s))
		return ft__jcur_fail(j);
	member(w, role, parent, key, s, false, line);
}

static int
kiv_cmp(const void *pa, const void *pb)
{
	const struct kiv *a = pa, *b = pb;

	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	return 0;
}

struct run {
	double b, e;
};

/* Merge the intervals of one class (sorted by start) into disjoint runs; returns their count. */
static size_t
merge_class(const struct kiv *k, size_t n, bool comm, struct run *out, double *total)
{
	size_t m = 0;

	*total = 0;
	for (size_t i = 0; i < n; i++) {
		if (k[i].comm != comm)
			continue;
		if (m && k[i].b <= out[m - 1].e) {
			if (k[i].e > out[m - 1].e)
				out[m - 1].e = k[i].e;
		} else {
			out[m++] = (struct run){ k[i].b, k[i].e };
		}
	}
	for (size_t i = 0; i < m; i++)
		*total += out[i].e - out[i].b;
	return m;
}

/*
 * One device's kernels (sorted by start): the unions of the communication
 * and computation intervals and the length of their intersection, in the
 * trace's unit (microseconds). False when out of memory.
 */
static bool
device_overlap(const struct kiv *k, size_t n, double *comm, double *comp, double *both)
{
	struct run *a = ft_reallocarray(NULL, n, sizeof(*a));
	struct run *b = ft_reallocarray(NULL, n, sizeof(*b));
	size_t na, nb, i = 0, j = 0;

	*comm = *comp = *both = 0;
	if (!a || !b) {
		ft_free(a);
		ft_free(b);
		return false;
	}
	na = merge_class(k, n, true, a, comm);
	nb = merge_class(k, n, false, b, comp);
	while (i < na && j < nb) {
		double lo = a[i].b > b[j].b ? a[i].b : b[j].b;
		double hi = a[i].e < b[j].e ? a[i].e : b[j].e;

		if (hi > lo)
			*both += hi - lo;
		if (a[i].e < b[j].e)
			i++;
		else
			j++;
	}
	ft_free(a);
	ft_free(b);
	return true;
}

static void
emit_device(struct ft__pctx *c, struct tw *w, const struct kiv *k, size_t n)
{
	double comm, comp, both;
	uint32_t line = k[0].line;
	size_t ncomm = 0;
	char dev[32];

	for (size_t i = 0; i < n; i++)
		if (k[i].comm && ncomm++ == 0)
			line = k[i].line;
	if (!device_overlap(k, n, &comm, &comp, &both)) {
		c->rc = ft_error_set(c->err, FT_ENOMEM, "%s: out of memory", c->file);
		return;
	}
	snprintf(dev, sizeof(dev), "GPU%" PRId64, k[0].device);
	ft__pctx_entity(c, dev, -1);
	/* Kineto's timestamps are microseconds */
	ft__emit_num(c, line, "torch.trace.comm_kernels", (double)ncomm, "count");
	ft__emit_num(c, line, "torch.trace.comm_s", comm * 1e-6, "s");
	ft__emit_num(c, line, "torch.trace.compute_s", comp * 1e-6, "s");
	ft__emit_num(c, line, "torch.trace.overlap_s", both * 1e-6, "s");
	if (comm > 0)
		ft__emit_num(c, line, "torch.trace.overlap", both / comm, "ratio");
	(void)w;
}

int
ft__torch_trace_run(struct ft__pctx *c, const char *text, size_t len)
{
	struct tw w = { .rank = -1 };
	struct ft__jcur *j = &w.j;
	size_t i, e, n;

	ft__jcur_init(j, text, len, c->line0);
	ft_vec_init(&w.iv, sizeof(struct kiv));
	while (j->p < j->end && !j->bad && !w.oom) {
		ft__jcur_ws(j);
		if (j->p >= j->end)
			break;
		if (*j->p == '{') {
			jobject(&w, 0, R_EVENT, NULL);
		} else if (*j->p == '[') {
			jvalue(&w, 0, R_EVENT, NULL, FT__NOSTR);
		} else if (*j->p == ',' || *j->p == ']' || *j->p == '}') {
			j->p++; /* between or after the events of a fragment */
		} else if (*j->p == '"') {
			/* a member of an object the fragment does not open ("traceEvents": [) */
			const char *at = j->p;
			struct ft__span key;

			if (!ft__jcur_string(j, &key)) {
				j->p = at;
				ft__jcur_fail(j);
				break;
			}
			ft__jcur_ws(j);
			if (j->p < j->end && *j->p == ':') {
				j->p++;
				ft__jcur_ws(j);
				jvalue(&w, 0,
				       ft__eq(key, "distributedInfo") && j->p < j->end && *j->p == '{'
				               ? R_DIST
				               : R_EVENT,
				       NULL, key);
			}
		} else {
			/* not JSON: a prompt or a note around a pasted fragment */
			uint32_t line = ft__jcur_line(j, j->p);
			struct ft__span l = ft__jcur_skip_line(j);

			ft__unread(c, line, "not a trace event", l);
		}
	}
	if (w.oom) {
		ft_vec_release(&w.iv);
		return c->rc = ft_error_set(c->err, FT_ENOMEM, "%s: out of memory", c->file);
	}
	if (j->bad)
		ft__skipped(c, j->bad_line, "invalid JSON: the trace stops here", FT__NOSTR);
	n = w.iv.len;
	if (n)
		qsort(w.iv.data, n, sizeof(struct kiv), kiv_cmp);
	c->rank = w.rank >= 0 && w.rank <= INT32_MAX ? (int)w.rank : -1;
	if (w.world > 0)
		ft__emit_num(c, w.world_line, "torch.trace.world_size", (double)w.world, "ranks");
	for (i = 0; i < n && !c->rc; i = e) {
		const struct kiv *k = ft_vec_at(&w.iv, i);

		for (e = i + 1; e < n && ((const struct kiv *)ft_vec_at(&w.iv, e))->device ==
		                                 k->device;
		     e++)
			;
		emit_device(c, &w, k, e - i);
	}
	ft_vec_release(&w.iv);
	ft__pctx_entity(c, "", -1);
	c->rank = -1;
	return c->rc;
}

/* the 75 rule reads a fragment: event objects without their array */
FT__PARSER(torch_trace, "pytorch-trace",
           "PyTorch profiler (Kineto) trace JSON: NCCL kernel time overlapped by compute",
           { 90, { "\"ph\"", "\"traceEvents\"" } },
           { 75, { "\"ph\"", "\"cat\"", "\"ts\"", "\"dur\"" } });

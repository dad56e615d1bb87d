/* SPDX-License-Identifier: MIT */
/*
 * diag/whatif.c - the gain of an advised change, computed by the twin: run
 * the user's cluster spec with and without the change and compare the time
 * of the collective the inputs measured.
 *
 * Adaptive routing runs on the packet engine where the run is small enough
 * (queues, pauses and ECN marks on ECMP's crowded links; see whatif_routing)
 * and on the flow engine beyond. QPs per connection change how flows share
 * links and run on the flow engine (max-min fair sharing over every link, ECMP
 * hash collisions included); the all-to-all is posted as NCCL posts it (the
 * scenario's default chunking: ft_model_p2p_chunking_on()), so that the gain
 * is the one the twin predicts for the job the user runs; channel counts change NCCL's per-channel
 * bandwidth cap and the MTU the per-packet header share (fabric.mtu), both
 * evaluated by the analytic model. Each advice template (diag/advise.c)
 * names its what-if. Without a spec the gain stays as advise left it and the
 * basis names the missing input. The library never prints: results go into
 * the advice's gain_pct, gain_basis and gain_engine.
 */
#include "internal.h"

#include <fabtune/coll.h>
#include <fabtune/diag.h>
#include <fabtune/model.h>
#include <fabtune/sim.h>
#include <fabtune/spec.h>

#include "diag/advise_int.h"
#include "diag/diag_int.h"
#include "sim/sim_int.h"

/* The size the twin runs when the inputs name none: large enough for the bandwidth regime. */
#define WHATIF_BYTES (256ull << 20)

/* What to run: the collective of the inputs (bench.test), else @fallback. */
static enum ft_op
inputs_op(const struct ft_diag_input *in, enum ft_op fallback)
{
	size_t i;

	for (i = 0; i < ft_obs_set_len(in->obs); i++) {
		const struct ft_obs *o = ft_obs_set_at(in->obs, i);
		enum ft_op op;

		if (strcmp(o->key, "bench.test") == 0 && ft_op_from_test(o->str, &op) == 0)
			return op;
	}
	return fallback;
}

/* Makespan of @op of @bytes on @spec under @ov (engine, routing, qps) on @nranks (0: all). */
static int
twin_time(const char *spec, enum ft_op op, uint64_t bytes, uint32_t nranks,
	  const struct ft_sim_overrides *ov, double *t_s, struct ft_error *err)
{
	struct ft_sim_sweep_args a = { 0 };
	struct ft_scenario *sc = NULL;
	struct ft_sim_report rep;
	int rc;

	a.spec = spec;
	a.op = op;
	a.algo = op == FT_OP_ALLTOALL ? FT_ALGO_DIRECT : FT_ALGO_RING;
	a.proto = FT_PROTO_SIMPLE;
	a.min_bytes = a.max_bytes = bytes;
	a.nranks = nranks;
	rc = ft_scenario_from_op(&a, &sc, err);
	if (rc < 0)
		return rc;
	ft_sim_report_init(&rep);
	rc = ft_scenario_run(sc, ov, NULL, &rep, err);
	if (rc == 0)
		*t_s = rep.c.makespan_s;
	ft_sim_report_release(&rep);
	ft_scenario_free(sc);
	if (rc == 0 && !(*t_s > 0))
		rc = ft_error_set(err, FT_ERANGE, "%s: the twin ran %s in no time", spec,
				  ft_op_name(op));
	return rc;
}

/* The calibration entry of @ws's spec for @op, or NULL. */
static const struct ft_calib_entry *
calib_of(const struct ft__whatif_spec *ws, enum ft_op op)
{
	uint32_t i;

	if (!ws->cs)
		return NULL;
	for (i = 0; i < ws->cs->ncalib && i < FT_SPEC_MAX_CALIB; i++)
		if (strcmp(ws->cs->calib[i].op, ft_op_name(op)) == 0)
			return &ws->cs->calib[i];
	return NULL;
}

/* Write the gain of going from @t0 to @t1 and how it was computed. */
static void
set_gain(struct ft_advice *x, double t0, double t1, const char *engine, const char *spec,
	 enum ft_op op, uint64_t bytes, const char *from, const char *to)
{
	x->gain_pct = 100.0 * (t0 / t1 - 1);
	ft_strlcpy(x->gain_engine, engine, sizeof(x->gain_engine));
	snprintf(x->gain_basis, sizeof(x->gain_basis),
		 "%s on %.160s, %s of %llu MiB: %.0f us (%s) -> %.0f us (%s)", engine, spec,
		 ft_op_name(op), (unsigned long long)(bytes >> 20), t0 * 1e6, from, t1 * 1e6, to);
}

/*
 * Adaptive routing on the packet engine where the run is small. A fluid
 * model has no queues: with every send of an all-to-all in flight the
 * GPU-PCIe links bind and ECMP's crowded spine links (up to 229 flows on
 * one on dgx-h100:16) cost nothing in the flow engine, while in the packet
 * engine those links are where queues, pauses and ECN marks build
 * (docs/scenarios/ecmp-vs-adaptive.md, lab-permutation-ecmp-adaptive.md).
 *
 * The line: a run of at most ROUTING_PKT_BUDGET packets, about 0.5 s of CPU
 * at the packet engine's measured 0.5M simulated packets per CPU second
 * (docs/internals/sim.md, Measured speed), so both routings take a few
 * seconds on a loaded host. The packets of a run are about ranks x bytes x
 * the op's bus factor / MTU (what each rank sends, every byte taken as
 * crossing the fabric: an all-to-all (n-1)/n, an all-reduce 2(n-1)/n of its
 * size); the routing effect is a bandwidth-regime ratio, so the packet
 * engine runs the largest power-of-two fraction of WHATIF_BYTES inside the
 * budget, but no less than ROUTING_PKT_MIN_BYTES per rank (below that the
 * latency terms weigh in the ratio). Past that (an all-to-all of more than
 * 256 ranks at a 4 KiB MTU, an all-reduce of more than 128), the flow
 * engine prices the change at WHATIF_BYTES and the basis says why.
 */
#define ROUTING_PKT_BUDGET    (256u << 10)
#define ROUTING_PKT_MIN_BYTES (4ull << 20)

/*
 * The size the packet engine runs @op on @ws at, or 0 (the flow
 * engine): @why then says how many packets the smallest size would take.
 */
static uint64_t
routing_packet_bytes(const struct ft__whatif_spec *ws, enum ft_op op, char *why, size_t wlen,
		     struct ft_error *err, int *rc)
{
	const struct ft_calib_entry *c = calib_of(ws, op);
	struct ft_cluster_spec cs;
	uint64_t bytes, ranks, mtu, npkts;
	double wire;

	*rc = 0;
	memset(&cs, 0, sizeof(cs));
	if (ws->cs)
		cs = *ws->cs;
	else if ((*rc = ft_scenario_cluster_resolve(ws->arg, &cs, err)) < 0)
		return 0;
	ranks = c && c->nranks ? c->nranks : ft_spec_ngpus(&cs);
	mtu = cs.fabric.mtu_bytes ? cs.fabric.mtu_bytes : 4096;
	/* what each rank puts on the wire per byte of the op: nccl-tests' bus factor */
	wire = ranks > 1 ? ft_coll_busbw_factor(op, (uint32_t)ranks) : 1.0;
	for (bytes = WHATIF_BYTES; bytes >= ROUTING_PKT_MIN_BYTES; bytes >>= 1) {
		npkts = (uint64_t)((double)ranks * wire * (double)(bytes / mtu));
		if (npkts <= ROUTING_PKT_BUDGET)
			return bytes;
	}
	npkts = (uint64_t)((double)ranks * wire * (double)(ROUTING_PKT_MIN_BYTES / mtu));
	snprintf(why, wlen, "%llu ranks x %llu MiB at MTU %llu: %lluK packets a run, past %uK",
		 (unsigned long long)ranks, (unsigned long long)(ROUTING_PKT_MIN_BYTES >> 20),
		 (unsigned long long)mtu, (unsigned long long)(npkts >> 10),
		 ROUTING_PKT_BUDGET >> 10);
	return 0;
}

/*
 * The twin's time of @op of @bytes on @ws under @ov (engine, routing, qps):
 * on the measured rank count and, when @ws is calibrated, fixed + bw_scale x
 * t (in the bandwidth regime the latency term the calibration also scales is
 * small against the flows' time).
 */
static int
engine_time(const struct ft__whatif_spec *ws, enum ft_op op, uint64_t bytes,
	    const struct ft_sim_overrides *ov, double *t_s, struct ft_error *err)
{
	const struct ft_calib_entry *c = calib_of(ws, op);
	int rc = twin_time(ws->arg, op, bytes, c ? c->nranks : 0, ov, t_s, err);

	if (rc == 0 && c)
		*t_s = c->fixed_s + c->bw_scale * *t_s;
	return rc;
}

/*
 * Whether the flow and packet engines, which fill nodes, place the ranks as
 * the measured run did; false (and @x's basis says so) when the run spread
 * them over more nodes than filling would (2 ranks on each of 2 hosts).
 */
static bool
engines_place(struct ft_advice *x, const struct ft__whatif_spec *ws, const struct ft__whatif *w)
{
	uint32_t per = ws->cs && ws->cs->node.ngpus ? ws->cs->node.ngpus : 0;

	if (ws->nnodes <= 1 || !per || ws->ppn >= per)
		return true;
	snprintf(x->gain_basis, sizeof(x->gain_basis),
		 "not computable: the measured run put %u ranks on each of %u hosts, and the %s "
		 "fills nodes of %u GPUs",
		 ws->ppn, ws->nnodes, w->engine, per);
	return false;
}

static int
whatif_routing(struct ft_advice *x, const struct ft__whatif *w, const struct ft__whatif_spec *ws,
	       enum ft_op op, struct ft_error *err)
{
	struct ft_sim_overrides ov;
	char why[96], spec[192];
	uint64_t bytes;
	double t0, t1;
	int rc;

	if (!engines_place(x, ws, w))
		return 0;
	why[0] = '\0';
	bytes = routing_packet_bytes(ws, op, why, sizeof(why), err, &rc);
	if (rc < 0)
		return rc;
	ft_sim_overrides_init(&ov);
	ov.engine = bytes ? "packet" : "flow";
	if (!bytes)
		bytes = WHATIF_BYTES;
	ov.routing = FT_ROUTING_ECMP;
	rc = engine_time(ws, op, bytes, &ov, &t0, err);
	if (rc < 0)
		return rc;
	ov.routing = FT_ROUTING_ADAPTIVE;
	rc = engine_time(ws, op, bytes, &ov, &t1, err);
	if (rc < 0)
		return rc;
	if (why[0])
		snprintf(spec, sizeof(spec), "%.100s (%s)", ws->label, why);
	else
		ft_strlcpy(spec, ws->label, sizeof(spec));
	set_gain(x, t0, t1, why[0] ? "flow engine" : "packet engine", spec, op, bytes, "ECMP",
		 "adaptive");
	return 0;
}

/*
 * More QPs a connection under ECMP, in the flow engine. On an InfiniBand fabric there is
 * nothing to run: a switch forwards by destination LID alone (kb IB-SM; NCCL's QPs address
 * the peer port's LID, NVIDIA/nccl v2.27.7-1 src/transport/net_ib.cc ncclIbRtrQp()), so
 * the twin routes every QP of a connection on its one path (topo/route.c) and the change
 * gains 0; only adaptive routing spreads them (kb IB-AR). The basis says so.
 */
static int
whatif_qps(struct ft_advice *x, const struct ft__whatif *w, const struct ft__whatif_spec *ws,
	   enum ft_op op, struct ft_error *err)
{
	struct ft_sim_overrides ov;
	struct ft_cluster_spec cs;
	unsigned long q = strtoul(x->value, NULL, 10);
	char to[24];
	double t0, t1;
	int rc;

	if (q < 2 || q > 64)
		return 0;
	memset(&cs, 0, sizeof(cs));
	if (ws->cs)
		cs = *ws->cs;
	else if ((rc = ft_scenario_cluster_resolve(ws->arg, &cs, err)) < 0)
		return rc;
	if (ft__topo_fabric_tech(&cs) == FT_TECH_IB) {
		x->gain_pct = 0;
		ft_strlcpy(x->gain_engine, w->engine, sizeof(x->gain_engine));
		snprintf(x->gain_basis, sizeof(x->gain_basis),
			 "none on %.120s: an InfiniBand switch forwards by destination LID, so a "
			 "connection's QPs share one path under ECMP; adaptive routing spreads them",
			 ws->label);
		return 0;
	}
	if (!engines_place(x, ws, w))
		return 0;
	ft_sim_overrides_init(&ov);
	ov.engine = "flow";
	ov.routing = FT_ROUTING_ECMP;
	ov.qps_per_conn = 1;
	rc = engine_time(ws, op, WHATIF_BYTES, &ov, &t0, err);
	if (rc < 0)
		return rc;
	ov.qps_per_conn = (uint32_t)q;
	rc = engine_time(ws, op, WHATIF_BYTES, &ov, &t1, err);
	if (rc < 0)
		return rc;
	snprintf(to, sizeof(to), "%lu QPs", q);
	set_gain(x, t0, t1, w->engine, ws->label, op, WHATIF_BYTES, "1 QP", to);
	return 0;
}

/* One side of an analytic what-if: 0 keeps the spec's (or the model's) own figure. */
struct model_side {
	uint32_t nchannels;
	uint32_t mtu_bytes;
};

/* The analytic model on @ws's spec, @op of WHATIF_BYTES, before and after a change. */
static int
model_pair(const struct ft__whatif_spec *ws, enum ft_op op, const struct model_side side[2],
	   struct ft_model_result r[2], struct ft_error *err)
{
	struct ft_cluster_spec cs;
	struct ft_model_query q;
	size_t k;
	int rc;

	memset(&cs, 0, sizeof(cs));
	if (ws->cs)
		cs = *ws->cs;
	else if ((rc = ft_scenario_cluster_resolve(ws->arg, &cs, err)) < 0)
		return rc;
	ft_model_query_init(&q, op, WHATIF_BYTES);
	q.cache = ws->cache;
	if (calib_of(ws, op)) {
		q.ngpus = calib_of(ws, op)->nranks;
		q.nnodes = ws->nnodes; /* as the measured run placed them */
		q.ppn = ws->ppn;
	}
	for (k = 0; k < 2; k++) {
		struct ft_cluster_spec one = cs;

		if (side[k].mtu_bytes)
			one.fabric.mtu_bytes = side[k].mtu_bytes;
		q.nchannels = side[k].nchannels;
		rc = ft_model_eval(&one, &q, &r[k], err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Write the model's gain from @r[0] to @r[1], each side described by @from / @to. */
static void
set_model_gain(struct ft_advice *x, const struct ft__whatif *w, const struct ft__whatif_spec *ws,
	       enum ft_op op, const struct ft_model_result r[2], const char *from, const char *to)
{
	x->gain_pct = 100.0 * (r[0].time_s / r[1].time_s - 1);
	ft_strlcpy(x->gain_engine, w->engine, sizeof(x->gain_engine));
	snprintf(x->gain_basis, sizeof(x->gain_basis),
		 "%s on %.160s, %s of %llu MiB: %.0f us %s (%s-bound) -> %.0f us %s (%s-bound)",
		 w->engine, ws->label, ft_op_name(op), (unsigned long long)(WHATIF_BYTES >> 20),
		 r[0].time_s * 1e6, from, r[0].bottleneck, r[1].time_s * 1e6, to, r[1].bottleneck);
}

/*
 * Channels: the analytic model (NCCL's algorithms, protocols and per-channel
 * bandwidth cap) with NCCL's own channel count and with the advised one. The
 * basis names each side's bottleneck, so "no gain" says why.
 */
static int
whatif_channels(struct ft_advice *x, const struct ft__whatif *w, const struct ft__whatif_spec *ws,
		enum ft_op op, struct ft_error *err)
{
	struct ft_model_result r[2];
	unsigned long ch = strtoul(x->value, NULL, 10);
	struct model_side side[2] = { { 0, 0 }, { (uint32_t)ch, 0 } };
	char from[32], to[32];
	int rc;

	if (ch < 1 || ch > 64)
		return 0;
	rc = model_pair(ws, op, side, r, err);
	if (rc < 0)
		return rc;
	snprintf(from, sizeof(from), "with %u channels", r[0].nchannels);
	snprintf(to, sizeof(to), "with %lu", ch);
	set_model_gain(x, w, ws, op, r, from, to);
	return 0;
}

/*
 * MTU: the analytic model on the spec at the active MTU of the advice's
 * evidence and at 4096: the model charges IB-MTU's 26 or ROCE-WIRE's 82
 * header bytes per packet at the spec's fabric.mtu, and where the fabric is
 * not the bottleneck (NVLink, PCIe, NCCL's channels) the MTU gains nothing.
 */
static int
whatif_mtu(struct ft_advice *x, const struct ft__whatif *w, const struct ft__whatif_spec *ws,
	   enum ft_op op, struct ft_error *err)
{
	struct ft_model_result r[2];
	struct model_side side[2] = { { 0, 0 }, { 0, 4096 } };
	char from[32];
	double cur = 0;
	size_t i;
	int rc;

	for (i = 0; i < x->nevidence && !(cur > 0); i++)
		if (strstr(x->evidence[i].key, "mtu") && x->evidence[i].has_num)
			cur = x->evidence[i].num;
	if (!(cur >= 256 && cur < 4096))
		return 0;
	side[0].mtu_bytes = (uint32_t)cur;
	rc = model_pair(ws, op, side, r, err);
	if (rc < 0)
		return rc;
	snprintf(from, sizeof(from), "at MTU %.0f", cur);
	set_model_gain(x, w, ws, op, r, from, "at 4096");
	return 0;
}

/*
 * DCQCN tuned as kb CC-DCQCN's tuned column (within its ranges, as the
 * incast lab scenarios/lab/incast-pfc-dcqcn-tuned.yaml sets it): a CNP
 * every 2 us at most, each cut bounded to 2 %, the rate-increase timer at
 * 20 us. The what-if runs the scenario's own traffic on the packet engine
 * with its DCQCN knobs and with these, and compares the makespans.
 */
#define DCQCN_TUNED_CNP_S 2e-6
#define DCQCN_TUNED_MIN_DEC 0.98
#define DCQCN_TUNED_TIMER_S 20e-6

static int
packet_makespan(const struct ft_scenario *sc, double *t_s, struct ft_error *err)
{
	struct ft_sim_overrides ov;
	struct ft_sim_report rep;
	int rc;

	ft_sim_overrides_init(&ov);
	ov.engine = "packet";
	ft_sim_report_init(&rep);
	rc = ft_scenario_run(sc, &ov, NULL, &rep, err);
	if (rc == 0)
		*t_s = rep.c.makespan_s;
	ft_sim_report_release(&rep);
	if (rc == 0 && !(*t_s > 0))
		rc = ft_error_set(err, FT_ERANGE, "%s: the packet engine ran the scenario in no time",
				  sc->file);
	return rc;
}

static double
or_default(double v, double dflt)
{
	return v > 0 ? v : dflt;
}

static int
whatif_dcqcn(struct ft_advice *x, const struct ft__whatif *w, const struct ft__whatif_spec *ws,
	     enum ft_op op, struct ft_error *err)
{
	struct ft_scenario *sc = NULL;
	struct ft_packet_cfg *p;
	double t0 = 0, t1 = 0, cnp0, dec0, timer0;
	int rc;

	(void)op;
	if ((rc = ft_scenario_sniff(ws->arg, err)) < 0)
		return rc;
	if (rc == 0) {
		snprintf(x->gain_basis, sizeof(x->gain_basis),
			 "not computable on %.120s: %s", ws->arg,
			 "a cluster spec has no traffic; give a scenario with DCQCN (--spec SCENARIO.yaml)");
		return 0;
	}
	rc = ft_scenario_load_file(ws->arg, &sc, err);
	if (rc < 0)
		return rc;
	p = &sc->packet;
	if (p->cc != FT_PKT_CC_DCQCN) {
		snprintf(x->gain_basis, sizeof(x->gain_basis),
			 "not computable on %.120s: its packet engine runs no DCQCN "
			 "(packet.congestion_control)", ws->arg);
		ft_scenario_free(sc);
		return 0;
	}
	cnp0 = or_default(p->cnp_interval_s, 4e-6);
	dec0 = or_default(p->dcqcn_min_dec, 0.5);
	timer0 = or_default(p->dcqcn_timer_s, 300e-6);
	rc = packet_makespan(sc, &t0, err);
	if (rc == 0) {
		p->cnp_interval_s = DCQCN_TUNED_CNP_S;
		p->dcqcn_min_dec = DCQCN_TUNED_MIN_DEC;
		p->dcqcn_timer_s = DCQCN_TUNED_TIMER_S;
		rc = packet_makespan(sc, &t1, err);
	}
	if (rc == 0) {
		x->gain_pct = 100.0 * (t0 / t1 - 1);
		ft_strlcpy(x->gain_engine, w->engine, sizeof(x->gain_engine));
		snprintf(x->gain_basis, sizeof(x->gain_basis),
			 "%s on %.120s, its traffic: %.0f us (min_dec_fac %.0f%%, time_reset %.0f us, "
			 "CNP %.0f us) -> %.0f us (%.0f%%, %.0f us, %.0f us)",
			 w->engine, ws->arg, t0 * 1e6, dec0 * 100, timer0 * 1e6, cnp0 * 1e6,
			 t1 * 1e6, DCQCN_TUNED_MIN_DEC * 100, DCQCN_TUNED_TIMER_S * 1e6,
			 DCQCN_TUNED_CNP_S * 1e6);
	}
	ft_scenario_free(sc);
	return rc;
}

const struct ft__whatif ft__whatif_routing = {
	"packet engine", FT_OP_ALLTOALL, whatif_routing,
	"the packet engine (the flow engine past its budget) compares ECMP with adaptive routing"
};
const struct ft__whatif ft__whatif_qps = {
	"flow engine", FT_OP_ALL_REDUCE, whatif_qps,
	"the flow engine compares 1 QP with the advised count under ECMP"
};
const struct ft__whatif ft__whatif_per_peer = {
	NULL, FT_OP_ALLTOALL, NULL,
	"the twin models NCCL's total channel count, not the channels per network peer that "
	"send/recv uses"
};
const struct ft__whatif ft__whatif_channels = {
	"analytic model", FT_OP_ALL_REDUCE, whatif_channels,
	"the analytic model compares NCCL's channel count with the floor"
};
const struct ft__whatif ft__whatif_dcqcn = {
	"packet engine", FT_OP_ALL_REDUCE, whatif_dcqcn,
	"the packet engine runs a scenario's traffic with its DCQCN knobs and the tuned ones"
};
const struct ft__whatif ft__whatif_mtu = {
	"analytic model", FT_OP_ALL_REDUCE, whatif_mtu,
	"the analytic model compares the active MTU with 4096 (headers per packet at fabric.mtu)"
};

/*
 * A node preset for the GPUs the probe observed, as `fabtune doctor` picks
 * one: 8 GPUs of a model a preset is made of on every host. Writes "preset"
 * or "preset:N" to @arg, or the reason there is none to @why.
 */
static bool
spec_from_probe(const struct ft_obs_set *obs, char *arg, size_t len, char *why, size_t wlen)
{
	static const struct {
		const char *gpu, *preset;
	} map[] = {
		{ "B200", "dgx-b200" }, { "H200", "hgx-h200" },	 { "H100", "dgx-h100" },
		{ "A100", "dgx-a100" }, { "L40S", "pcie-l40s" },
	};
	const char *model = NULL;
	char hosts[16][64];
	size_t i, k, nhosts = 0;
	double ngpus = 0;

	for (i = 0; i < ft_obs_set_len(obs); i++) {
		const struct ft_obs *o = ft_obs_set_at(obs, i);

		if (strcmp(o->key, "gpu.model") == 0 && !model && o->str[0])
			model = o->str;
		if (strcmp(o->key, "gpu.count") != 0 || !o->has_num)
			continue;
		for (k = 0; k < nhosts && strcmp(hosts[k], o->host) != 0; k++)
			;
		if (k < nhosts)
			continue; /* each rank on a host reports its GPUs: count them once */
		if (nhosts == FT_ARRAY_SIZE(hosts)) {
			snprintf(why, wlen, "GPUs on more than %zu hosts", FT_ARRAY_SIZE(hosts));
			return false;
		}
		ft_strlcpy(hosts[nhosts++], o->host, sizeof(hosts[0]));
		ngpus += o->num;
	}
	if (ngpus <= 0) {
		snprintf(why, wlen, "no GPU count (gpu.count) among the observations to derive one from");
		return false;
	}
	for (i = 0; model && i < FT_ARRAY_SIZE(map); i++) {
		if (!strstr(model, map[i].gpu))
			continue;
		if (ngpus != 8.0 * (double)nhosts) {
			snprintf(why, wlen, "%g %s GPUs on %zu host%s: the %s preset has 8 per node",
				 ngpus, map[i].gpu, nhosts, nhosts == 1 ? "" : "s", map[i].preset);
			return false;
		}
		if (nhosts > 1)
			snprintf(arg, len, "%s:%zu", map[i].preset, nhosts);
		else
			ft_strlcpy(arg, map[i].preset, len);
		return true;
	}
	snprintf(why, wlen, "%g GPU%s (%.60s) match no node preset", ngpus, ngpus == 1 ? "" : "s",
		 model ? model : "model unknown");
	return false;
}

/* Is @test (nccl-tests "all_reduce_perf" or "all_reduce") a collective the model knows? */
static bool
collective_test(const char *test, enum ft_op *op)
{
	return ft_op_from_test(test, op) == 0;
}

/* The files the measured collective runs came from (bench.test), comma separated. */
static void
measured_files(const struct ft_obs_set *obs, char *buf, size_t len)
{
	size_t i, used;
	enum ft_op op;

	buf[0] = '\0';
	for (i = 0; i < ft_obs_set_len(obs); i++) {
		const struct ft_obs *o = ft_obs_set_at(obs, i);
		const char *base;

		if (strcmp(o->key, "bench.test") != 0 || !o->file[0] || !collective_test(o->str, &op))
			continue;
		base = strrchr(o->file, '/') ? strrchr(o->file, '/') + 1 : o->file;
		if (strstr(buf, base))
			continue;
		used = strlen(buf);
		snprintf(buf + used, len - used, "%s%s", used ? ", " : "", base);
	}
}

uint32_t
ft__run_hosts(const struct ft_obs_set *obs, const char **first)
{
	const char *seen[64], *file = NULL;
	uint32_t n = 0;
	size_t i, k;

	*first = NULL;
	/* the NCCL output (its nccl.* or bench.rank/bench.nranks lines) with the rows */
	for (i = 0; obs && i < ft_obs_set_len(obs); i++) {
		const struct ft_obs *o = ft_obs_set_at(obs, i);

		if (!o->file || (file && strcmp(file, o->file) == 0) ||
		    (strncmp(o->key, "nccl.", 5) != 0 && strcmp(o->key, "bench.rank") != 0 &&
		     strcmp(o->key, "bench.nranks") != 0))
			continue;
		for (k = 0; k < ft_obs_set_len(obs); k++) {
			const struct ft_obs *b = ft_obs_set_at(obs, k);

			if (strcmp(b->key, "bench.busbw") == 0 && b->file &&
			    strcmp(b->file, o->file) == 0)
				break;
		}
		if (k == ft_obs_set_len(obs))
			continue; /* an NCCL log without a table */
		if (file)
			return 0; /* rows of two outputs: whose hosts would be a guess */
		file = o->file;
	}
	for (i = 0; file && i < ft_obs_set_len(obs); i++) {
		const struct ft_obs *o = ft_obs_set_at(obs, i);
		bool dup = false;

		if (!o->host[0] || !o->file || strcmp(o->file, file) != 0 ||
		    (strncmp(o->key, "nccl.", 5) != 0 && strncmp(o->key, "bench.", 6) != 0))
			continue;
		for (k = 0; k < n && !dup; k++)
			dup = strcmp(seen[k], o->host) == 0;
		if (!dup && n == FT_ARRAY_SIZE(seen))
			return 0;
		if (!dup)
			seen[n++] = o->host;
	}
	if (n)
		*first = seen[0];
	return n;
}

/*
 * Where the twin puts the @nranks ranks of the measured run on @cs: over
 * the @hosts hosts its output names, nranks / hosts on each, when they
 * divide evenly; else (no host named) filling the spec's nodes, an
 * assumption @place says. false (and @why) when the spec cannot hold it.
 */
static bool
place_ranks(const struct ft_cluster_spec *cs, uint32_t nranks, uint32_t hosts, const char *host1,
	    uint32_t *nnodes, uint32_t *ppn, char *place, size_t plen, char *why, size_t wlen)
{
	uint32_t per = cs->node.ngpus ? cs->node.ngpus : 1;

	*nnodes = *ppn = 0;
	if (hosts && nranks % hosts == 0) {
		if (hosts > cs->nnodes || nranks / hosts > per) {
			snprintf(why, wlen,
				 "%u ranks on %u hosts (%.24s, ...): the spec has %u node%s of %u GPUs; "
				 "give one of %u nodes or more with %u GPUs or more each",
				 nranks, hosts, host1, cs->nnodes, cs->nnodes == 1 ? "" : "s", per,
				 hosts, nranks / hosts);
			return false;
		}
		*nnodes = hosts;
		*ppn = nranks / hosts;
		snprintf(place, plen, "%u per node on the %u hosts named", *ppn, hosts);
		return true;
	}
	snprintf(place, plen, "filling nodes of %u GPUs (assumed: %s)", per,
		 hosts ? "they do not divide among the hosts named" : "no hosts known");
	return true;
}

/*
 * Calibrate @cs on every (op, rank count) of @run with 4 sizes or more,
 * the ranks placed as the run placed them (place_ranks; @ws gets where).
 * A run that shows no rank count is not used: the twin does not take the
 * spec's GPU count for it. Returns the number of entries added; @why says
 * why there are none, @place where the ranks went. Out of memory is
 * FT_ENOMEM in @err: never a what-if on the spec uncalibrated for want of it.
 */
static int
calibrate_on(struct ft_cluster_spec *cs, const struct ft_run *run, const struct ft_obs_set *obs,
	     struct ft__whatif_spec *ws, char *place, size_t plen, char *why, size_t wlen,
	     struct ft_error *err)
{
	size_t i, k, n = 0;
	int rc;
	const char *host1 = NULL;
	uint32_t hosts = ft__run_hosts(obs, &host1);

	snprintf(why, wlen, "no collective run among the inputs");
	for (i = 0; i < ft_run_nrows(run) && cs->ncalib < FT_SPEC_MAX_CALIB; i++) {
		const struct ft_result_row *r = ft_run_row(run, i);
		struct ft_model_query q;
		struct ft_model_calib c;
		struct ft_error e = { 0 };
		struct ft_calib_entry *x;
		enum ft_op op;
		bool seen = false;

		if (ft_op_from_test(r->test, &op) < 0)
			continue;
		if (!r->nranks) {
			snprintf(why, wlen,
				 "the %.20s run shows no rank count (no rank lines, no nRanks, no "
				 "busbw/algbw that gives one): the twin does not guess it",
				 r->test);
			continue;
		}
		for (k = 0; k < i && !seen; k++) {
			const struct ft_result_row *p = ft_run_row(run, k);

			seen = strcmp(p->test, r->test) == 0 && p->nranks == r->nranks;
		}
		if (seen)
			continue;
		ft_model_query_init(&q, op, 0);
		q.cache = ws->cache; /* a query per measured size (ft_model_calibrate()) */
		q.ngpus = r->nranks;
		if (n && ws->nnodes && r->nranks != ws->nnodes * ws->ppn)
			continue; /* one placement for the what-ifs: the first run's */
		if (!place_ranks(cs, r->nranks, hosts, host1, &q.nnodes, &q.ppn, place, plen, why,
				 wlen))
			continue;
		rc = ft_model_calibrate(cs, &q, run, &c, &e);
		if (rc == FT_ENOMEM) {
			if (err)
				*err = e;
			return rc;
		}
		if (rc < 0) {
			snprintf(why, wlen, "%s of %u ranks: %.120s", ft_op_name(op), r->nranks, e.msg);
			continue;
		}
		x = &cs->calib[cs->ncalib++];
		memset(x, 0, sizeof(*x));
		ft_strlcpy(x->op, ft_op_name(op), sizeof(x->op));
		x->nranks = c.nranks;
		x->fixed_s = c.fixed_s;
		x->lat_scale = c.lat_scale;
		x->bw_scale = c.bw_scale;
		ft_model_calib_release(&c);
		ws->nnodes = q.nnodes;
		ws->ppn = q.ppn;
		n++;
	}
	return (int)n; /* at most FT_SPEC_MAX_CALIB */
}

/*
 * The rank count of the calibration and where it came from, for the note
 * beside the label: "alltoall on 4 ranks (busbw/algbw = (n-1)/n in 26 figure
 * pairs ...), 2 per node on the 2 hosts named".
 */
static void
ranks_basis(const struct ft_obs_set *obs, const struct ft_cluster_spec *cs, const char *place,
	    char *buf, size_t len)
{
	const struct ft_obs *o = NULL;
	size_t i;

	for (i = 0; i < ft_obs_set_len(obs) && !o; i++)
		if (strcmp(ft_obs_set_at(obs, i)->key, "bench.nranks") == 0)
			o = ft_obs_set_at(obs, i);
	if (o && o->has_num && (uint32_t)o->num == cs->calib[0].nranks && o->str[0])
		snprintf(buf, len, "%s on %u ranks (%.96s), %.90s", cs->calib[0].op,
			 cs->calib[0].nranks, o->str, place);
	else
		snprintf(buf, len, "%s on %u ranks, %.90s", cs->calib[0].op, cs->calib[0].nranks,
			 place);
}

/* Run every advice's what-if on @ws. */
static int
run_all(const struct ft_diag_input *in, const struct ft__whatif_spec *ws, const char *missing,
	struct ft_advice_set *s, struct ft_error *err)
{
	size_t i;
	int rc;

	for (i = 0; i < ft_advice_set_len(s); i++) {
		struct ft_advice *x = ft_advice_set_at(s, i);
		const struct ft__adv_template *t = ft__adv_template_of(x->id);
		const struct ft__whatif *w = t ? t->twin : NULL;

		if (!w)
			continue;
		if (!w->run) {
			if (isnan(x->gain_pct))
				snprintf(x->gain_basis, sizeof(x->gain_basis), "not computable: %s",
					 w->compares);
			continue;
		}
		if (!ws->arg) {
			if (isnan(x->gain_pct))
				snprintf(x->gain_basis, sizeof(x->gain_basis), "%s: %s", missing,
					 w->compares);
			continue;
		}
		rc = w->run(x, w, ws, inputs_op(in, w->fallback), err);
		if (rc < 0) {
			ft_error_prefix(err, "what-if %s: ", x->id);
			return rc;
		}
	}
	return 0;
}

int
ft_advise_whatif_ex(const struct ft_diag_input *in, struct ft_whatif_opts *o,
		    struct ft_advice_set *s, struct ft_error *err)
{
	struct ft__whatif_spec ws = { .arg = NULL };
	struct ft_cluster_spec cs;
	char why[256], missing[256], files[160], place[96];
	int rc;

	if (!in || !in->obs || !s || !o)
		return ft_error_set(err, FT_EINVAL, "what-if: no inputs");
	o->spec_used[0] = o->label[0] = o->note[0] = '\0';
	o->calibrated = o->derived = false;
	ft_strlcpy(missing, "not computable without a cluster spec (--spec)", sizeof(missing));
	if (o->spec && o->spec[0]) {
		ft_strlcpy(o->spec_used, o->spec, sizeof(o->spec_used));
	} else if (spec_from_probe(in->obs, o->spec_used, sizeof(o->spec_used), why, sizeof(why))) {
		o->derived = true;
	} else {
		o->spec_used[0] = '\0';
		if (!strstr(why, "(gpu.count)"))
			snprintf(missing, sizeof(missing),
				 "not computable without a cluster spec (--spec; the probe's GPUs give "
				 "none: %.120s)",
				 why);
		snprintf(o->note, sizeof(o->note), "no cluster spec: give --spec (%.200s)", why);
	}
	if (o->spec_used[0]) {
		ws.arg = o->spec_used;
		snprintf(o->label, sizeof(o->label), "%s%s", o->spec_used,
			 o->derived ? " (from the probe's GPUs)" : "");
	}
	/* the calibration's sizes and the changes' pairs query the model on the same nodes:
	 * their shared links laid out once, as a plan search's (plan/search.c
	 * ft_plan_search()); without memory for the cache each query lays them out, to the
	 * same gains */
	if (ws.arg)
		ws.cache = ft_model_cache_new();
	if (ws.arg && o->measured && ft_run_nrows(o->measured)) {
		memset(&cs, 0, sizeof(cs));
		rc = ft_scenario_cluster_resolve(ws.arg, &cs, err);
		if (rc < 0) {
			ft_model_cache_free(ws.cache);
			ft_error_prefix(err, "what-if: ");
			return rc;
		}
		cs.ncalib = 0; /* the measurements replace a calibration the spec carries */
		rc = calibrate_on(&cs, o->measured, in->obs, &ws, place, sizeof(place), why,
				  sizeof(why), err);
		if (rc < 0) {
			ft_model_cache_free(ws.cache);
			ft_error_prefix(err, "what-if: ");
			return rc;
		}
		if (rc > 0) {
			measured_files(in->obs, files, sizeof(files));
			ws.cs = &cs;
			o->calibrated = true;
			snprintf(o->label, sizeof(o->label), "%s%s calibrated from %s", o->spec_used,
				 o->derived ? " (from the probe's GPUs)" : "",
				 files[0] ? files : "the inputs");
			/* the rank count, its source and the placement: said once, beside the label */
			ranks_basis(in->obs, &cs, place, o->note, sizeof(o->note));
		} else {
			snprintf(o->note, sizeof(o->note), "not calibrated: %.230s", why);
		}
	}
	ws.label = o->label;
	rc = run_all(in, &ws, missing, s, err);
	ft_model_cache_free(ws.cache);
	return rc;
}

int
ft_advise_whatif(const struct ft_diag_input *in, const char *spec, struct ft_advice_set *s,
		 struct ft_error *err)
{
	struct ft_whatif_opts o;

	memset(&o, 0, sizeof(o));
	o.spec = spec;
	return ft_advise_whatif_ex(in, &o, s, err);
}

/* SPDX-License-Identifier: MIT */
/*
 * sim/pkt_phys.c - the packet engine's switch and HCA physics that the
 * InfiniBand architecture specifies as tables: the congestion control table
 * (CCT) that turns a QP's CCT index into an inter-packet delay, and the
 * two-level VL arbitration of a port (kb CC-IB, IB-VL).
 *
 * CCT (IBA annex A10): each entry is a 2-bit CCT_Shift and a 14-bit
 * CCT_Multiplier; after a packet that took T to transmit, the source waits
 * (T >> shift) x multiplier before its next one, so entry (s, m) sends at line
 * rate / (1 + m / 2^s). The table is given (packet.cct, shift:multiplier
 * entries, as OpenSM's cc_cct and ibccconfig take it) or built as the
 * Omni-Path fabric manager builds its own (opa-ff, the same annex-A10 table):
 * entry 0 has no delay, entry i the multiplier i x M / CCTI_Limit (truncated),
 * with M and the shift chosen so that the last entry delays by the desired
 * maximum (shift 3 unless M needs fewer bits to fit in 14). The maximum
 * defaults to 8 packet times here (the last entry sends at 1/9 of line rate).
 *
 * VL arbitration (IBA 7.6.9, kb IB-VL): a high- and a low-priority table of
 * (VL, weight) entries, weight in 64-byte units. Within a table the arbiter
 * stays on an entry while it has weight left and its VL a packet that may
 * go (the packet's bytes come off the weight; a packet that overruns it is
 * still sent whole), then moves on; entries of weight 0, or whose VL has
 * nothing ready, are passed over. The high table goes first, but once it
 * has sent high_limit x 4 KB (0: one packet; 255: no limit) while a low VL
 * waited, one low-priority packet goes before it resumes.
 */
#include "pkt_int.h"

#include <math.h>

#include <fabtune/rng.h>
#include <fabtune/spec.h>

uint64_t
ft__pk_switch_buffer(const struct ft_cluster_spec *spec)
{
	const struct ft_link_preset *lp = ft_link_preset_find(spec->fabric.link);

	return lp && lp->switch_buffer_bytes ? lp->switch_buffer_bytes : 32ull << 20;
}

/* Per-port arbiter: per table the current entry and its weight left (bytes), and the
 * high-priority bytes sent since a low-priority packet last had its chance. */
struct pk_vlarb {
	uint8_t idx[2];
	int32_t left[2];
	uint64_t high_bytes;
};

enum { VLA_HIGH, VLA_LOW };

#define CCT_SHIFT(x) ((uint32_t)(x) >> 14)
#define CCT_MULT(x)  ((uint32_t)(x) & 0x3fffu)

/* The CCT the fabric manager's rule builds: @n entries, the last delaying @max_pkts
 * packet times (see the file comment). */
static void
cct_build(double *delay, uint32_t n, double max_pkts)
{
	uint32_t shift = 3, limit = n - 1;
	double maxm = max_pkts * 8;

	while (maxm > 0x3fff && shift > 0) {
		shift--;
		maxm /= 2;
	}
	maxm = FT_MIN(floor(maxm), (double)0x3fff);
	delay[0] = 0;
	for (uint32_t i = 1; i < n; i++)
		delay[i] = floor((double)i * maxm / limit) / (double)(1u << shift);
}

static int
cct_setup(struct pk_engine *e, struct ft_error *err)
{
	const struct ft_packet_cfg *pc = &e->pc;
	uint32_t n = pc->ncct ? pc->ncct : pc->ccti_limit + 1;

	if (pc->ncct > FT_PKT_CCT_MAX)
		return ft_error_set(err, FT_ERANGE, "packet.cct: expected at most %d entries, got %u",
		                    FT_PKT_CCT_MAX, pc->ncct);
	if (pc->ncct && pc->ccti_limit != 127 && pc->ccti_limit + 1 != pc->ncct)
		return ft_error_set(err, FT_EINVAL,
		                    "packet.ccti_limit: %u does not match the %u entries of "
		                    "packet.cct (CCTI_Limit is the last index)",
		                    pc->ccti_limit, pc->ncct);
	if (n < 2)
		return ft_error_set(err, FT_ERANGE,
		                    "packet.cct: expected at least 2 entries, got %u", n);
	if (pc->ccti_min >= n)
		return ft_error_set(err, FT_ERANGE,
		                    "packet.ccti_min: expected below the table's %u entries, got %u",
		                    n, pc->ccti_min);
	e->cct_delay = ft_calloc(n, sizeof(double));
	if (!e->cct_delay)
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory for the CCT");
	e->ncct = n;
	if (pc->ncct) {
		for (uint32_t i = 0; i < n; i++)
			e->cct_delay[i] =
			        (double)CCT_MULT(pc->cct[i]) / (double)(1u << CCT_SHIFT(pc->cct[i]));
		return 0;
	}
	{
		/* The packet time of a full packet at the host link rate. */
		double t_pkt = (double)(e->mtu + e->hdr) / e->line_Bps;
		double max_pkts = pc->cct_max_delay_s > 0 ? pc->cct_max_delay_s / t_pkt : 8;

		cct_build(e->cct_delay, n, max_pkts);
	}
	return 0;
}

double
ft__pk_cct_rate(const struct pk_engine *e, uint32_t ccti)
{
	return e->line_Bps / (1.0 + e->cct_delay[FT_MIN(ccti, e->ncct - 1)]);
}

/* OpenSM's VLArbitration defaults (kb IB-VL): high 0:4, low 1:4 .. 14:4 (here to VL 7). */
static void
vlarb_defaults(struct ft_packet_cfg *pc)
{
	if (pc->nvlarb_high || pc->nvlarb_low)
		return;
	pc->vlarb_high[0] = (struct ft_vlarb_entry){ 0, 4 };
	pc->nvlarb_high = 1;
	for (uint8_t vl = 1; vl < FT_PKT_NPRIO; vl++)
		pc->vlarb_low[pc->nvlarb_low++] = (struct ft_vlarb_entry){ vl, 4 };
}

static int
vlarb_setup(struct pk_engine *e, struct ft_error *err)
{
	struct ft_packet_cfg *pc = &e->pc;

	if (pc->arb != FT_PKT_ARB_VLARB)
		return 0;
	if (e->roce)
		return ft_error_set(err, FT_EINVAL,
		                    "packet.arbitration: vlarb is InfiniBand's VL arbitration; "
		                    "a RoCE fabric takes strict or wrr");
	if (pc->nvlarb_high > FT_PKT_VLARB_MAX || pc->nvlarb_low > FT_PKT_VLARB_MAX)
		return ft_error_set(err, FT_ERANGE,
		                    "packet.vlarb: expected at most %d entries per table",
		                    FT_PKT_VLARB_MAX);
	vlarb_defaults(pc);
	for (int t = 0; t < 2; t++) {
		const struct ft_vlarb_entry *tab = t ? pc->vlarb_low : pc->vlarb_high;
		uint32_t n = t ? pc->nvlarb_low : pc->nvlarb_high;

		for (uint32_t i = 0; i < n; i++)
			if (tab[i].vl >= FT_PKT_NPRIO)
				return ft_error_set(err, FT_ERANGE,
				                    "packet.vlarb_%s[%u]: expected a data VL 0 to %d, "
				                    "got %u",
				                    t ? "low" : "high", i, FT_PKT_NPRIO - 1, tab[i].vl);
	}
	e->vlarb = ft_calloc(e->nlinks ? e->nlinks : 1, sizeof(*e->vlarb));
	if (!e->vlarb)
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory for VL arbitration");
	for (uint32_t l = 0; l < e->nlinks; l++) {
		e->vlarb[l].left[VLA_HIGH] = pc->nvlarb_high ? pc->vlarb_high[0].weight * 64 : 0;
		e->vlarb[l].left[VLA_LOW] = pc->nvlarb_low ? pc->vlarb_low[0].weight * 64 : 0;
	}
	return 0;
}

/*
 * RED marking and bit errors draw from a generator per port (of each kind), seeded from
 * the run's seed, the kind and the port, so that whether a packet is marked or corrupted
 * depends on that port's history alone: not on the other ports' draws, nor on how a run
 * is split across MPI ranks (pkt_part.c).
 */
static int
port_rngs(struct pk_engine *e, uint32_t kind, struct ft_rng **out, struct ft_error *err)
{
	*out = ft_calloc(e->nlinks + 1u, sizeof(**out));
	if (!*out)
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory for the per-port random "
		                                    "streams");
	for (uint32_t l = 0; l < e->nlinks; l++)
		ft_rng_seed(&(*out)[l], e->cfg.seed, ft_rng_stream(kind, l));
	return 0;
}

int
ft__pk_phys_setup(struct pk_engine *e, struct ft_error *err)
{
	int rc = cct_setup(e, err);

	if (rc == 0)
		rc = vlarb_setup(e, err);
	if (rc == 0 && e->dcqcn)
		rc = port_rngs(e, PK_RNG_ECN, &e->ecn_rng, err);
	if (rc == 0 && e->pc.ber > 0)
		rc = port_rngs(e, PK_RNG_BER, &e->ber_rng, err);
	return rc;
}

void
ft__pk_phys_release(struct pk_engine *e)
{
	ft_free(e->cct_delay);
	ft_free(e->vlarb);
	ft_free(e->ecn_rng);
	ft_free(e->ber_rng);
	e->cct_delay = NULL;
	e->vlarb = NULL;
	e->ecn_rng = NULL;
	e->ber_rng = NULL;
}

int
ft__pk_vlarb_check(const struct pk_engine *e, uint32_t prio, struct ft_error *err)
{
	const struct ft_packet_cfg *pc = &e->pc;

	if (!e->vlarb)
		return 0;
	for (uint32_t i = 0; i < pc->nvlarb_high; i++)
		if (pc->vlarb_high[i].vl == prio && pc->vlarb_high[i].weight)
			return 0;
	for (uint32_t i = 0; i < pc->nvlarb_low; i++)
		if (pc->vlarb_low[i].vl == prio && pc->vlarb_low[i].weight)
			return 0;
	return ft_error_set(err, FT_EINVAL,
	                    "packet.vlarb_high, packet.vlarb_low: no entry with a weight for VL "
	                    "%u, the priority of the traffic submitted: it could never be sent",
	                    prio);
}

/* Move table @t of port @l's arbiter to its next entry, with that entry's full weight. */
static void
vlarb_next(const struct pk_engine *e, struct pk_vlarb *a, int t)
{
	const struct ft_vlarb_entry *tab = t == VLA_LOW ? e->pc.vlarb_low : e->pc.vlarb_high;
	uint32_t n = t == VLA_LOW ? e->pc.nvlarb_low : e->pc.nvlarb_high;

	a->idx[t] = (uint8_t)((a->idx[t] + 1u) % n);
	a->left[t] = tab[a->idx[t]].weight * 64;
}

/* Table @t's next VL that may send (1, *cls and its packet's *wire charged to the entry),
 * or 0 when none of its entries' VLs may. */
static int
vlarb_table(struct pk_engine *e, uint32_t l, int t, uint32_t *cls, bool *src, unsigned *why)
{
	const struct ft_vlarb_entry *tab = t == VLA_LOW ? e->pc.vlarb_low : e->pc.vlarb_high;
	uint32_t n = t == VLA_LOW ? e->pc.nvlarb_low : e->pc.nvlarb_high;
	struct pk_vlarb *a = &e->vlarb[l];

	/* Every entry once, and the first one again with a fresh weight. */
	for (uint32_t i = 0; i <= n; i++) {
		const struct ft_vlarb_entry *en = &tab[a->idx[t]];
		uint32_t wire = 0;
		int rc = 0;

		if (en->weight && a->left[t] > 0 && pk_prio_used(e, en->vl))
			rc = ft__pk_cls_ready(e, l, en->vl, src, why, &wire);
		if (rc < 0)
			return rc;
		if (rc > 0) {
			*cls = en->vl;
			a->left[t] -= (int32_t)wire;
			if (t == VLA_HIGH)
				a->high_bytes += wire;
			if (a->left[t] <= 0)
				vlarb_next(e, a, t);
			return 1;
		}
		vlarb_next(e, a, t);
	}
	return 0;
}

int
ft__pk_vlarb_pick(struct pk_engine *e, uint32_t l, uint32_t *cls, bool *src, unsigned *why)
{
	struct pk_vlarb *a = &e->vlarb[l];
	uint32_t hl = e->pc.vlarb_high_limit;
	bool low_turn = hl != 255 && a->high_bytes >= FT_MAX((uint64_t)hl * 4096, (uint64_t)1);
	int rc;

	*cls = PK_NONE;
	if (low_turn && e->pc.nvlarb_low) {
		/* The high limit is reached: a ready low-priority packet goes first. */
		rc = vlarb_table(e, l, VLA_LOW, cls, src, why);
		a->high_bytes = 0;
		if (rc != 0)
			return rc < 0 ? rc : 0;
	}
	if (e->pc.nvlarb_high) {
		rc = vlarb_table(e, l, VLA_HIGH, cls, src, why);
		if (rc != 0)
			return rc < 0 ? rc : 0;
	}
	/* No high-priority packet may go: the low table, and the high limit starts over. */
	a->high_bytes = 0;
	if (!e->pc.nvlarb_low)
		return 0;
	rc = vlarb_table(e, l, VLA_LOW, cls, src, why);
	return rc < 0 ? rc : 0;
}

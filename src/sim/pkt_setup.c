/* SPDX-License-Identifier: MIT */
/*
 * sim/pkt_setup.c - the packet engine's construction: its ports, links and buffers from
 * the topology and the configuration (create), the ops as tasks and flows (submit), the
 * tasks without predecessors started at the run's start, destroy, and the engine's
 * interface table. The event loop that runs them (run) is engine_packet.c.
 */
#include "pkt_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <fabtune/model.h>
#include <fabtune/rng.h>
#include <fabtune/sim.h>

/* The NIC send pipeline's times from packet.nic_msg_rate, _miss and nic_qp_cache. */
static int
nic_setup(struct pk_engine *e, struct ft_error *err)
{
	double rate = e->pc.nic_msg_rate, miss = e->pc.nic_msg_rate_miss;

	if (!(rate > 0))
		return (miss > 0 || e->pc.nic_qp_cache) ?
		               ft_error_set(err, FT_EINVAL,
		                            "packet.nic_msg_rate: needed by nic_msg_rate_miss "
		                            "and nic_qp_cache") :
		               0;
	if (!(miss > 0))
		miss = rate;
	if (miss > rate)
		return ft_error_set(err, FT_ERANGE,
		                    "packet.nic_msg_rate_miss: expected at most nic_msg_rate "
		                    "(%g), got %g",
		                    rate, miss);
	e->nic_msg_ps = s_to_ps(1 / rate);
	e->nic_miss_ps = s_to_ps(1 / miss);
	e->nic_qp_cache = e->pc.nic_qp_cache;
	return 0;
}

int
ft__pk_create(const struct ft_topo *topo, const struct ft_sim_cfg *cfg,
              struct ft_engine **out, struct ft_error *err)
{
	const struct ft_cluster_spec *spec = ft_topo_spec(topo);
	uint32_t n = ft_topo_nlinks(topo), nv = ft_topo_nvertices(topo), l;
	struct pk_engine *e;
	uint16_t hdr;

	*out = NULL;
	e = ft_calloc(1, sizeof(*e));
	if (!e)
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory");
	e->base.ops = &ft_packet_engine;
	e->topo = topo;
	e->cfg = *cfg;
	e->cfg.packet = NULL;
	if (e->cfg.qps_per_conn == 0)
		e->cfg.qps_per_conn = 1;
	if (cfg->packet)
		e->pc = *cfg->packet;
	e->roce = ft__sim_fabric_is_roce(spec);
	e->mtu = e->pc.mtu_bytes        ? e->pc.mtu_bytes :
	         spec->fabric.mtu_bytes ? spec->fabric.mtu_bytes :
	                                  4096;
	if (e->mtu < 64 || e->mtu > 9000) {
		int rc = ft_error_set(err, FT_ERANGE,
		                      "packet.mtu: expected 64 to 9000 bytes, got %u", e->mtu);

		ft__pk_destroy(&e->base);
		return rc;
	}
	/* ber: 0 by default. Links are specified at a BER of 1e-12 or better (ibdiagnet's
	 * legacy threshold, kb IBDIAG-BER, IB-COUNTERS; IEEE 802.3's 100 Gb/s PHYs), 1e-13
	 * at the MAC for 400 GbE (IEEE 802.3bs, after the RS-FEC that PAM4 links need, kb
	 * IB-RATES): at 1e-12 one 4 KiB packet (33,424 bits) in 30 million is hit; a 1 ms
	 * run at 400 Gb/s puts 12,000 packets on a link, a 4e-4 chance of one error. So a
	 * healthy link drops nothing in a run; a given ber models a degraded one. */
	if (!(e->pc.ber >= 0 && e->pc.ber < 1)) {
		int rc = ft_error_set(err, FT_ERANGE, "packet.ber: expected 0 to 1, got %g",
		                      e->pc.ber);

		ft__pk_destroy(&e->base);
		return rc;
	}
	{
		int tech = ft__sim_fabric_tech(spec);

		e->tcp = tech == FT_TECH_TCP;
		e->srd = tech == FT_TECH_EFA; /* until the congestion control is read */
		e->sack = tech == FT_TECH_EFA;
	}
	/* EFA's SRD runs on a lossy fabric and recovers by its own retransmission; TCP's
	 * fabric takes credits by default (buffers its windows do not overflow), and
	 * recovers by its own retransmission where it drops (flow_control: none, bit
	 * errors: pkt_tcp.c; docs/internals/sim.md, "EFA and GPUDirect-TCPX/O"). */
	if (e->pc.fc == FT_PKT_FC_AUTO)
		e->pc.fc = e->roce ? FT_PKT_FC_PFC : e->srd ? FT_PKT_FC_NONE : FT_PKT_FC_CREDIT;
	hdr = e->roce ? PK_HDR_ROCE : PK_HDR_IB;
	if (e->srd || e->tcp) {
		/* Neither SRD's header nor TCPX's framing share is published: the packet
		 * carries what makes its payload the share of line rate the model and the
		 * flow engine give the link (ft_model_link_efficiency(): EFA 3,108 of 3,200
		 * Gb/s, docs/presets.md PS-EFA-RATE, 121 bytes at MTU 4096; TCP none,
		 * PS-TCPX), so that all engines start from the same rates. */
		double eff = ft_model_link_efficiency(spec, FT_L_HOST);

		hdr = eff > 0 && eff < 1 ? (uint16_t)(e->mtu * (1 / eff - 1) + 0.5) : 0;
	}
	e->hdr = hdr;
	/* Defaults (kb CC-PFC-ECN): 32 MiB of shared buffer per switch and a dynamic PFC
	 * threshold of 1/8 of what is free (the HPCC simulator's); 32 wire MTUs of credits
	 * or lossy room per ingress port. A given XOFF without XON resumes 3 MTUs lower
	 * (htsim's RoCE model pauses at 15 and resumes at 12 packets).
	 * port_buffer: no switch vendor publishes a per-port (per-VL) ingress buffer: the
	 * data sheets give a shared buffer per ASIC (docs/presets.md "Switch buffers"). Credits
	 * must cover the link's round trip for line rate (IBA credit flow control, kb IB-FC,
	 * CC-IB): 32 wire MTUs, 133,696 bytes at 4 KiB on InfiniBand, is 2.7 us of a 400 Gb/s
	 * link against a round trip of well under 1 us on a data-centre cable; htsim holds 15
	 * packets per input before it pauses (kb CC-PFC-ECN). A modelling choice, not a
	 * figure of a given ASIC; no public source says it is wrong. */
	if (!e->pc.port_buffer_bytes)
		e->pc.port_buffer_bytes = 32ull * (e->mtu + hdr);
	if (!e->pc.switch_buffer_bytes)
		e->pc.switch_buffer_bytes = ft__pk_switch_buffer(spec);
	e->pfc_dyn = e->pc.pfc_xoff_bytes == 0;
	if (!e->pfc_dyn && !e->pc.pfc_xon_bytes)
		e->pc.pfc_xon_bytes = e->pc.pfc_xoff_bytes > 3ull * (e->mtu + hdr) ?
		                              e->pc.pfc_xoff_bytes - 3ull * (e->mtu + hdr) :
		                              0;
	if (!e->pfc_dyn && e->pc.pfc_xon_bytes > e->pc.pfc_xoff_bytes) {
		int rc = ft_error_set(
		        err, FT_ERANGE,
		        "packet.pfc_xon: expected at most pfc_xoff (%llu bytes), got %llu",
		        (unsigned long long)e->pc.pfc_xoff_bytes,
		        (unsigned long long)e->pc.pfc_xon_bytes);

		ft__pk_destroy(&e->base);
		return rc;
	}
	if (e->pc.port_buffer_bytes < (uint64_t)e->mtu + hdr) {
		int rc =
		        ft_error_set(err, FT_ERANGE,
		                     "packet.port_buffer: expected at least one packet (%u bytes), "
		                     "got %llu",
		                     e->mtu + hdr, (unsigned long long)e->pc.port_buffer_bytes);

		ft__pk_destroy(&e->base);
		return rc;
	}
	{
		int rc = nic_setup(e, err);

		if (rc < 0) {
			ft__pk_destroy(&e->base);
			return rc;
		}
	}
	if (!e->pc.ib_timeout)
		e->pc.ib_timeout = 20; /* NCCL_IB_TIMEOUT's default (kb CC-IB) */
	e->rto_ps = e->pc.rto_s > 0 ?
	                    s_to_ps(e->pc.rto_s) :
	                    s_to_ps(4.096e-6 * ldexp(1.0, (int)FT_MIN(e->pc.ib_timeout, 31u)));
	/* SRD retransmits from the NIC within a fraction of a millisecond (the IEEE Micro
	 * 2020 paper on SRD; the timer's value is not published): 100 us, many times a
	 * path's round trip with a full port queue (32 wire MTUs drain in 11 us at
	 * 100 Gb/s), unless retransmit_timeout is given. NCCL_IB_TIMEOUT is an IB verbs
	 * knob that EFA does not read. */
	if (e->srd && !(e->pc.rto_s > 0))
		e->rto_ps = s_to_ps(100e-6);
	/* TCP's timer (pkt_tcp.c ft__pk_tcp_rto_ps()): RFC 6298's estimate over Linux's
	 * floor, TCP_RTO_MIN 200 ms (RFC 6298 2.4 asks for 1 s; Linux takes 200 ms, and a
	 * data-centre round trip of microseconds leaves the floor as the timeout), or
	 * retransmit_timeout as the floor where given. NCCL_IB_TIMEOUT is not read. */
	if (e->tcp) {
		e->tcp_rto_min_ps = e->pc.rto_s > 0 ? e->rto_ps : s_to_ps(200e-3);
		e->rto_ps = e->tcp_rto_min_ps;
	}
	if (e->pc.ib_retry_cnt_set && e->pc.ib_retry_cnt > 7) {
		int rc = ft_error_set(err, FT_ERANGE,
		                      "packet.ib_retry_cnt: expected 0 to 7 (a 3-bit field), got %u",
		                      e->pc.ib_retry_cnt);

		ft__pk_destroy(&e->base);
		return rc;
	}
	/* NCCL_IB_RETRY_CNT's default (kb ENV-IB_RETRY_CNT) */
	e->retry_cnt = e->pc.ib_retry_cnt_set ? e->pc.ib_retry_cnt : 7;
	e->qp_err_flow = PK_NONE;
	if (e->pc.cc == FT_PKT_CC_AUTO)
		e->pc.cc = e->roce ? FT_PKT_CC_DCQCN : e->srd ? FT_PKT_CC_SRD : FT_PKT_CC_NONE;
	e->srd = e->pc.cc == FT_PKT_CC_SRD;
	/* SRD's delay target: 8 wire MTUs at the NIC's line rate over the lowest RTT (2.7 us
	 * at 100 Gb/s), a quarter of a port's default lossy room (pkt_cc.c). */
	e->srd_target_s = 8.0 * (e->mtu + hdr) /
	                  (spec->node.nic_Bps > 0 ? spec->node.nic_Bps : spec->fabric.link_Bps);
	/* TCP: a receive window of tcp_window bytes, at least 2 * PK_ACK_SEG packets: a
	 * modelling floor (docs/cmd/sim.md), far below any window a TCPX/O host sets. */
	if (e->tcp) {
		uint64_t w = e->pc.tcp_window_bytes ? e->pc.tcp_window_bytes : 1u << 20;

		if (w < 2ull * PK_ACK_SEG * e->mtu) {
			int rc = ft_error_set(
			        err, FT_ERANGE,
			        "packet.tcp_window: expected at least %llu bytes (%u packets), "
			        "got %llu",
			        2ull * PK_ACK_SEG * e->mtu, 2u * PK_ACK_SEG, (unsigned long long)w);

			ft__pk_destroy(&e->base);
			return rc;
		}
		e->wnd_pkts = (uint32_t)FT_MIN(w / e->mtu, (uint64_t)UINT32_MAX);
	}
	e->dcqcn = e->pc.cc == FT_PKT_CC_DCQCN;
	e->ibcc = e->pc.cc == FT_PKT_CC_IBCC;
	e->timely = e->pc.cc == FT_PKT_CC_TIMELY;
	/* TCP as Linux runs it (pkt_tcp.c), each feature unless turned off; its pacing
	 * through the per-QP rate limiter, which DCQCN and the other rate controls would
	 * otherwise drive */
	e->tcp_sack = e->tcp && e->pc.tcp_sack == FT_PKT_ON;
	e->tcp_delack = e->tcp && e->pc.tcp_delayed_ack == FT_PKT_ON;
	e->tcp_delack_ps = s_to_ps(PK_TCP_DELACK_S);
	e->tcp_pace = e->tcp && e->pc.tcp_pacing == FT_PKT_ON && !e->dcqcn && !e->ibcc &&
	              !e->timely && !e->srd;
	e->paced = e->dcqcn || e->ibcc || e->timely || e->srd || e->tcp_pace;
	e->qp_cc = e->paced || e->sack; /* (SRD's RTT estimate, whatever its rate control) */
	e->marking = e->dcqcn || e->ibcc;
	/* IB CC defaults (kb CC-IB): CCTI_Timer 10 us (the OMNeT++ example's), CCTI_Increase
	 * 1, a 128-entry table, Marking_Rate 10 (the Mellanox CC manager's). */
	if (!(e->pc.ccti_timer_s > 0))
		e->pc.ccti_timer_s = 10e-6;
	if (!e->pc.ccti_increase)
		e->pc.ccti_increase = 1;
	if (!e->pc.ccti_limit)
		e->pc.ccti_limit = 127;
	if (!e->pc.ibcc_marking_rate)
		e->pc.ibcc_marking_rate = 10;
	e->ccti_timer_ps = s_to_ps(e->pc.ccti_timer_s);
	if (!e->pc.ibcc_threshold_bytes)
		e->pc.ibcc_threshold_bytes = 8ull * (e->mtu + hdr);
	/* SRD chooses each packet's path over the equal-cost set itself (ECMP's per-flow
	 * hash and adaptive routing's switch choice give way to it); D-mod-K keeps its
	 * fixed paths. Packets then arrive out of order, which SRD delivers as they come. */
	e->spray = ft__sim_fabric_tech(spec) == FT_TECH_EFA &&
	           (cfg->routing == FT_ROUTING_ECMP || cfg->routing == FT_ROUTING_ADAPTIVE);
	e->ooo = cfg->routing == FT_ROUTING_ADAPTIVE || e->spray;
	e->max_qps = e->cfg.qps_per_conn;
	if (!e->spray)
		for (uint32_t node = 0; node < spec->nnodes; node++)
			e->max_qps = FT_MAX(e->max_qps,
			                    e->cfg.qps_per_conn *
			                            ft__sim_node(e->topo, node)->nics_per_gpu);
	/* A run split across MPI ranks names every flow by one index on every rank:
	 * all-to-alls are built whole, not as their sends start (the same run, pkt_nccl.c). */
	e->a2a_eager = ft__pk_part_wanted();
	/* So are NVLS trees, trees and rings (pkt_tree.c); FABTUNE_SIM_EAGER=1 builds them
	 * all whole in one process too, for comparisons (bench/sim-nvls.sh): the same run in
	 * more memory. */
	{
		const char *eager = getenv("FABTUNE_SIM_EAGER");

		e->tree_eager = e->a2a_eager || (eager && strcmp(eager, "1") == 0);
		e->a2a_eager = e->tree_eager;
	}
	/* A split run's ranks make the congestion control records of their own flows
	 * alone, once they know which those are (pkt_part.c pp_keep_cc). */
	e->cc_later = ft__pk_part_wanted();
	/* DCQCN defaults: the mlx5 firmware's (kb CC-DCQCN): min_time_between_cnps 4 us,
	 * rpg_time_reset 300 us, rpg_byte_reset 32767 B, rpg_ai_rate 5 Mb/s, rpg_hai_rate
	 * 50 Mb/s, dce_tcp_g 1019/1024 retention (g = 5/1024), dce_tcp_rtt 1 us,
	 * rate_reduce_monitor_period 4 us, rpg_min_dec_fac 50 %. */
	if (!(e->pc.cnp_interval_s > 0))
		e->pc.cnp_interval_s = 4e-6;
	if (!(e->pc.dcqcn_timer_s > 0))
		e->pc.dcqcn_timer_s = 300e-6;
	if (!e->pc.dcqcn_byte_counter)
		e->pc.dcqcn_byte_counter = 32767;
	bool ai_set = e->pc.dcqcn_ai_bps > 0;

	if (!ai_set)
		e->pc.dcqcn_ai_bps = 5e6;
	if (!(e->pc.dcqcn_hai_bps > 0))
		e->pc.dcqcn_hai_bps = 50e6;
	if (!(e->pc.dcqcn_g > 0 && e->pc.dcqcn_g < 1))
		e->pc.dcqcn_g = 5.0 / 1024;
	if (!(e->pc.dcqcn_min_dec > 0 && e->pc.dcqcn_min_dec < 1))
		e->pc.dcqcn_min_dec = 0.5;
	if (!(e->pc.ecn_pmax > 0 && e->pc.ecn_pmax <= 1))
		e->pc.ecn_pmax = 0.2;
	e->cnp_gap_ps = s_to_ps(e->pc.cnp_interval_s);
	e->dcq_timer_ps = s_to_ps(e->pc.dcqcn_timer_s);
	e->dcq_alpha_ps = s_to_ps(1e-6);
	e->dcq_dec_ps = s_to_ps(4e-6);
	e->line_Bps = spec->node.nic_Bps > 0 ? spec->node.nic_Bps : spec->fabric.link_Bps;
	/* TIMELY (kb CC-TIMELY-HPCC): delta 10 Mb/s per 10 Gb/s of line rate, the paper's
	 * 10 Mb/s on its 10 Gb/s NICs as the HPCC simulator scales it (its run script; hyper
	 * increase 5 delta), unless rpg_ai_rate is given; a 1 Gb/s floor (its MIN_RATE). */
	e->tm_step_Bps = ai_set ? e->pc.dcqcn_ai_bps / 8 : e->line_Bps * 1e-3;
	e->tm_min_Bps = FT_MIN(1e9 / 8, e->line_Bps);
	e->wd_ps = e->pc.fc == FT_PKT_FC_PFC ? s_to_ps(e->pc.pfc_watchdog_s) : 0;
	if (e->pc.pfc_quanta > 0xFFFFu) {
		int rc = ft_error_set(err, FT_ERANGE,
		                      "packet.pfc_quanta: expected 1 to 65535, got %u",
		                      e->pc.pfc_quanta);

		ft__pk_destroy(&e->base);
		return rc;
	}
	e->pfc_quanta = e->pc.pfc_quanta ? e->pc.pfc_quanta : 0xFFFFu;
	if (e->pc.pfc_watchdog_restore_s < 0 || e->pc.pfc_refresh_s < 0 ||
	    e->pc.pfc_watchdog_s < 0) {
		int rc = ft_error_set(err, FT_ERANGE, "packet.%s: expected a time of 0 or more, got %g s",
		                      e->pc.pfc_watchdog_s < 0 ? "pfc_watchdog" :
		                      e->pc.pfc_refresh_s < 0 ? "pfc_refresh" :
		                                                "pfc_watchdog_restore",
		                      e->pc.pfc_watchdog_s < 0 ? e->pc.pfc_watchdog_s :
		                      e->pc.pfc_refresh_s < 0 ? e->pc.pfc_refresh_s :
		                                                e->pc.pfc_watchdog_restore_s);

		ft__pk_destroy(&e->base);
		return rc;
	}
	if (e->pc.pfc_watchdog_restore_s > 0 && !(e->pc.pfc_watchdog_s > 0)) {
		int rc = ft_error_set(err, FT_EINVAL,
		                      "packet.pfc_watchdog_restore: needs packet.pfc_watchdog (the "
		                      "time that detects a storm), which is off");

		ft__pk_destroy(&e->base);
		return rc;
	}
	/* Restored after as long again without pauses, unless given (SONiC's pfcwd
	 * defaults, detection and restoration 200 ms each, are equal too). */
	e->wd_restore_ps = e->pc.pfc_watchdog_restore_s > 0 ? s_to_ps(e->pc.pfc_watchdog_restore_s) :
	                                                      e->wd_ps;
	e->pfc_refresh_ps = s_to_ps(e->pc.pfc_refresh_s);
	/* Losses the configuration allows: then every sender times out its tail. */
	e->may_drop = e->pc.fc == FT_PKT_FC_NONE || e->pc.ber > 0 ||
	              (e->wd_ps && e->pc.pfc_watchdog_action != FT_PKT_WD_ALERT) ||
	              (e->pc.fc == FT_PKT_FC_PFC &&
	               (e->pc.pfc_headroom_bytes > 0 || e->pc.lossy_prios));
	e->nprio = 1;
	e->port_limit = e->pc.port_buffer_bytes;
	e->sw_limit = e->pc.switch_buffer_bytes;
	/* Lossy queues at a switch share its buffer under a dynamic threshold (kb CC-PFC-ECN):
	 * a queue takes a packet while it holds less than alpha x the buffer still free
	 * (Choudhury and Hahne, IEEE/ACM ToN 6(2), 1998), the rule switch ASICs apply to
	 * lossy and lossless pools alike; alpha 1/8 is the lossless threshold's above. A
	 * port_buffer the scenario gives caps it (a static per-port limit). */
	e->lossy_alpha = e->pc.lossy_alpha > 0 ? e->pc.lossy_alpha : 1.0 / 8;
	e->lossy_cap = cfg->packet && cfg->packet->port_buffer_bytes ? e->pc.port_buffer_bytes :
	                                                               UINT64_MAX;
	e->xoff = e->pc.pfc_xoff_bytes;
	e->xon = e->pc.pfc_xon_bytes;
	e->credits0 = (int64_t)(e->pc.port_buffer_bytes / PK_BLOCK);
	e->nlinks = n;
	e->nvertices = nv;
	e->links = ft_calloc(n ? n : 1, sizeof(*e->links));
	e->ports = ft__pk_lines_alloc(n, sizeof(*e->ports), &e->ports_mem);
	e->nports = n;
	e->sw_used = ft_calloc(nv ? nv : 1, sizeof(*e->sw_used));
	/* (EFA: each GPU's round-robin counter over its NICs, engine_packet.c stripe_first()) */
	e->lane_rr = e->spray ? ft_calloc(nv ? nv : 1, sizeof(*e->lane_rr)) : NULL;
	if (!e->links || !e->ports || !e->sw_used || (e->spray && !e->lane_rr)) {
		ft__pk_destroy(&e->base);
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory for %u links", n);
	}
	for (l = 0; l < n; l++) {
		const struct ft_link *tl = ft_topo_link(topo, l);
		double scale = ft_topo_link_scale(topo, l);
		struct pk_link *pl = &e->links[l];
		struct pk_port *p = &e->ports[l];
		bool net = tl->kind == FT_L_HOST || tl->kind == FT_L_FABRIC;
		/* A host or fabric link down keeps its rate: what a flow with no live path
		 * sends onto it is lost there (the QP then times out, ev_rto). */
		double cap = tl->cap_Bps * (scale > 0 ? scale : net ? 1.0 : 0.0);

		pl->lat_ps = s_to_ps(tl->lat_s);
		pl->ps_per_byte = cap > 0 ? PK_PS_PER_S / cap : INFINITY;
		pl->src = tl->src;
		pl->dst = tl->dst;
		pl->rev = tl->rev;
		pl->net = net;
		pl->hdr = pl->net ? hdr : 0;
		pl->sw_dst = ft_topo_vertex(topo, tl->dst)->kind == FT_V_SWITCH;
		pl->down = pl->net && !(scale > 0);
		e->ndown += pl->down;
		/* RED thresholds: 4 / 16 KB per Gb/s (the HPCC simulator's 100 / 400 KB at
		 * 25 Gb/s, 400 / 1600 KB at 100 Gb/s; kb CC-DCQCN) unless given. */
		pl->kmin =
		        e->pc.ecn_kmin_bytes ? e->pc.ecn_kmin_bytes : (uint64_t)(cap * 8e-9 * 4000);
		pl->kmax = e->pc.ecn_kmax_bytes ? e->pc.ecn_kmax_bytes :
		                                  (uint64_t)(cap * 8e-9 * 16000);
		if (pl->kmax <= pl->kmin)
			pl->kmax = pl->kmin + 1;
		p->rel_link = PK_NONE;
		p->credit_cap = e->credits0;
		/* In-node links, and network links without a buffer given, hold at least what
		 * a credit loop needs to run at line rate: rate x (3 latencies: the packet,
		 * and an update that may wait one more) plus two packets. */
		if (!pl->net || !(cfg->packet && cfg->packet->port_buffer_bytes)) {
			double bdp = cap > 0 ? cap * 3.0 * tl->lat_s : 0;
			int64_t need = (int64_t)((bdp + 2.0 * (e->mtu + pl->hdr)) / PK_BLOCK) + 1;

			if (need > p->credit_cap)
				p->credit_cap = need;
		}
	}
	/* A refresh given must come before the pause it renews runs out, on every link that
	 * carries PFC (the pause is shortest on the fastest). */
	for (l = 0; e->pfc_refresh_ps && e->pc.fc == FT_PKT_FC_PFC && l < n; l++) {
		const struct pk_link *pl = &e->links[l];
		double pause = (double)e->pfc_quanta * 64.0 * pl->ps_per_byte;

		if (pl->net && isfinite(pause) && (double)e->pfc_refresh_ps >= pause) {
			char a[48], b[48];
			int rc;

			ft_topo_vertex_name(topo, pl->src, a, sizeof(a));
			ft_topo_vertex_name(topo, pl->dst, b, sizeof(b));
			rc = ft_error_set(err, FT_ERANGE,
			                  "packet.pfc_refresh: %g us is not shorter than the %g us "
			                  "pause of %u quanta on link %u (%s -> %s, %.0f Gb/s): the "
			                  "sender would resume between refreshes",
			                  (double)e->pfc_refresh_ps * 1e-6, pause * 1e-6,
			                  e->pfc_quanta, l, a, b, 8e3 / pl->ps_per_byte);

			ft__pk_destroy(&e->base);
			return rc;
		}
	}
	e->free_pkt = PK_NONE;
	e->may_drop = e->may_drop || e->ndown;
	{
		int rc = ft__pk_phys_setup(e, err);

		if (rc < 0) {
			ft__pk_destroy(&e->base);
			return rc;
		}
	}
	ft_vec_init(&e->trace_samples, 3 * sizeof(double));
	ft_vec_init(&e->qp_samples, 3 * sizeof(double));
	if (cfg->packet && cfg->packet->ntrace_links) {
		const struct ft_packet_cfg *q = cfg->packet;

		e->ntrace = q->ntrace_links;
		e->trace_links = ft_calloc(e->ntrace, sizeof(uint32_t));
		e->trace_last = ft_calloc(e->ntrace, sizeof(uint64_t));
		if (!e->trace_links || !e->trace_last) {
			ft__pk_destroy(&e->base);
			return ft_error_set(err, FT_ENOMEM, "sim: out of memory for the trace");
		}
		for (uint32_t i = 0; i < e->ntrace; i++) {
			if (q->trace_links[i] >= n) {
				uint32_t bad = q->trace_links[i];

				ft__pk_destroy(&e->base);
				return ft_error_set(
				        err, FT_ERANGE,
				        "--trace-links: expected link ids below %u, got %u", n,
				        bad);
			}
			e->trace_links[i] = q->trace_links[i];
		}
		e->trace_ps = s_to_ps(q->trace_interval_s > 0 ? q->trace_interval_s : 1e-6);
		if (!e->trace_ps)
			e->trace_ps = 1;
		/* Flow ids are checked when the run starts, all flows submitted. */
		e->ntrace_qps = q->ntrace_qps;
		e->trace_qps = ft_calloc(e->ntrace_qps + 1, sizeof(uint32_t));
		if (!e->trace_qps) {
			ft__pk_destroy(&e->base);
			return ft_error_set(err, FT_ENOMEM, "sim: out of memory for the trace");
		}
		if (e->ntrace_qps)
			memcpy(e->trace_qps, q->trace_qps, e->ntrace_qps * sizeof(uint32_t));
	}
	ft_vec_init(&e->tasks, sizeof(struct pk_task));
	ft_vec_init(&e->flows, sizeof(struct pk_flow));
	ft_vec_init(&e->pace_next, sizeof(uint32_t));
	ft_vec_init(&e->cp_ev, sizeof(struct pk_cp));
	ft_vec_init(&e->cp_free, sizeof(uint32_t));
	ft_vec_init(&e->flow_cc, sizeof(struct pk_dcqcn));
	ft_vec_init(&e->lane0, sizeof(uint8_t));
	ft_vec_init(&e->edges, sizeof(uint32_t) * 2);
	ft_vec_init(&e->paths, sizeof(uint32_t));
	ft_vec_init(&e->ops, sizeof(struct pk_op));
	ft_vec_init(&e->fslot, sizeof(uint32_t));
	ft_vec_init(&e->far, sizeof(struct pk_far));
	ft_vec_init(&e->tslot, sizeof(uint32_t));
	ft_vec_init(&e->tfar, sizeof(struct pk_tfar));
	e->tspare_id = PK_NONE;
	ft_vec_init(&e->fpath, sizeof(struct pk_fpath));
	e->plan_err_flow = PK_NONE;
	ft_vec_init(&e->plan_feeds, sizeof(uint64_t));
	/* A rank of a split run learns its partition from the launcher before it builds
	 * anything, so that it keeps only the flow records it needs (pkt_part.c). */
	if (ft__pk_part_plan(e, NULL, 0, -1) < 0) {
		ft__pk_destroy(&e->base);
		return ft_error_set(err, FT_ENOMEM, "sim: out of memory");
	}
	*out = &e->base;
	return 0;
}

/*
 * An implicit all-to-all phase as the flow engine runs it (chunking off; otherwise
 * ft__pk_submit_p2p() runs it as NCCL's sends): shift rounds, round k waiting
 * for round k - FT_COLL_A2A_WINDOW, each ending with the per-message cost of its link
 * class (NET when a pair leaves its node, else the in-node step cost), or, when the
 * schedule prices none (ft__sim_a2a_round_ack()), one path latency of its flows.
 */
static int
submit_a2a(struct pk_engine *e, const struct ft_sim_op *op, const struct ft_sched_phase *ph,
           double eff, uint32_t start, uint32_t bar, uint32_t tag)
{
	const struct ft_schedule *sc = op->sched;
	uint32_t m = ph->a2a_group_size, k, g, i, win = FT_COLL_A2A_WINDOW;
	uint32_t ngroups, *ends;
	uint64_t wire;
	double net_step;
	int rc = 0;

	if (m < 2 || ph->bytes_per_pair == 0)
		return 0;
	/* a round between nodes also pays what the model adds to a network hop, as the flow
	 * engine's waves do (ft__sim_net_step_s(): its error, out of memory, the op's) */
	rc = ft__sim_net_step_s(e->topo, sc->proto, &net_step);
	if (rc < 0)
		return rc;
	ngroups = (uint32_t)(ph->npairs / ((uint64_t)m * (m - 1)));
	wire = (uint64_t)((double)ph->bytes_per_pair / eff + 0.5);
	ends = ft_calloc(m, sizeof(uint32_t));
	if (!ends)
		return FT_ENOMEM;
	for (k = 1; k < m && rc == 0; k++) {
		uint32_t prev = k > win ? ends[k - win] : start;
		int64_t s0 = ft__pk_add_task(e, PK_T_BARRIER, 0, 0, tag);
		int64_t end = ft__pk_add_task(e, PK_T_BARRIER, 0, 0, tag);
		bool net = false;
		double cost, hw, path = 0;

		if (s0 < 0 || end < 0 || ft__pk_add_dep(e, prev, (uint32_t)s0) < 0 ||
		    ft__pk_add_dep(e, (uint32_t)end, bar) < 0) {
			rc = FT_ENOMEM;
			break;
		}
		for (g = 0; g < ngroups && rc == 0; g++) {
			uint32_t base =
			        (uint32_t)((g / ph->a2a_stride) * ((uint64_t)ph->a2a_stride * m) +
			                   g % ph->a2a_stride);

			for (i = 0; i < m && rc == 0; i++) {
				uint32_t a = op->rank_gpu[base + i * ph->a2a_stride];
				uint32_t b = op->rank_gpu[base + ((i + k) % m) * ph->a2a_stride];

				if (a == b)
					continue;
				/* NVLink peers of two trays stay off the network */
				if (ft__sim_over_network(e->topo, a, b)) {
					net = true;
					/* (run whole, no send relays: its flows
					 * leave by their own NICs, as the flow
					 * engine's waves do) */
					path = FT_MAX(path, ft__pk_pair_path_s(e, a, b, PK_NONE));
				}
				rc = ft__pk_add_conn(e, wire, a, b, (uint32_t)s0, (uint32_t)end, tag);
			}
		}
		if (rc == 0 && task_at(e, (uint32_t)end)->npred == 0)
			rc = ft__pk_add_dep(e, (uint32_t)s0, (uint32_t)end);
		/* a round between nodes: hwLat[NET] less the longest path its packets walk, where
		 * that is shorter (net_floor_s()'s rule) */
		hw = net ? ft_coll_hw_latency(FT_HW_NET, sc->algo, sc->proto) + net_step :
		           sc->step_lat_s;
		cost = net ? FT_MAX(0.0, hw - net_step - path) + net_step : hw;
		task_at(e, (uint32_t)end)->delay_ps = s_to_ps(cost);
		/* priced (NCCL's figure holds the completion's way back) even where the path
		 * leaves no floor */
		task_at(e, (uint32_t)end)->lat_mult = ft__sim_a2a_round_ack(hw);
		ends[k] = (uint32_t)end;
	}
	ft_free(ends);
	return rc;
}

/*
 * A flow of the schedule as a connection, at its start offset (a barrier of that wait
 * after @prev; struct ft_sched_flow.start_ns). When op @rec's dependents count from its
 * nominal end (@shift_ns, its largest offset, above 0) or from its senders' view of its
 * end (rec->acked), the flow's end reaches rec->next through a barrier that waits as
 * @bar does, plus the shift less its own offset, plus with rec->acked its path latency
 * (its last packet's ACK back at the sender): that barrier is done when the flow would
 * have been, had it started at the shift, and its sender knew it.
 */
static int
add_timed_conn(struct pk_engine *e, const struct ft_sched_flow *fl, double eff,
               const struct ft__sim_chans *ch, uint32_t src, uint32_t dst, uint32_t prev,
               uint32_t bar, const struct pk_op *rec, uint32_t shift_ns)
{
	const struct pk_task *b = task_at(e, bar); /* copied: adding tasks moves them */
	uint64_t delay = b->delay_ps;
	double lat_mult = b->lat_mult;
	uint32_t tag = b->op, first, t, r, nq = ft__pk_conn_qps(e, src, dst);
	uint8_t nic = ft__sim_flow_nic_id(e->topo, fl, src, dst);
	/* its launched channels' copies on their own QPs over the network, where the routing
	 * hashes them (ft__sim_chan_qp0()); else one */
	uint32_t reps = ch->reps > 1 && ft__sim_chan_qp0(e->topo, &e->cfg, src, dst, 1, 1) ?
	                        ch->reps :
	                        1;
	int64_t id;
	int rc = 0;

	if (fl->start_ns > 0) {
		if ((id = ft__pk_add_task(e, PK_T_BARRIER, (uint64_t)fl->start_ns * 1000, 0, tag)) <
		            0 ||
		    ft__pk_add_dep(e, prev, (uint32_t)id) < 0)
			return FT_ENOMEM;
		prev = (uint32_t)id;
	}
	first = (uint32_t)pk_ntasks(e);
	for (r = 0; r < reps && rc == 0; r++) {
		uint64_t part = reps == 1         ? ch->bytes :
		                ch->chain ? ft__sim_chain_part(ch->bytes, reps, r) :
		                            ft__sim_share(ch->bytes, reps, r);

		if (part > 0)
			rc = ft__pk_add_conn_qps(e, (uint64_t)((double)part / eff + 0.5), src, dst,
			                         nic,
			                         ft__sim_chan_qp0(e->topo, &e->cfg, src, dst,
			                                          ch->chan0 + r * ch->stride, nq),
			                         prev, bar, tag);
	}
	if (rc < 0 || rec->next == PK_NONE)
		return rc;
	id = ft__pk_add_task(e, PK_T_BARRIER,
	                     delay + (uint64_t)(shift_ns ? shift_ns - fl->start_ns : 0) * 1000,
	                     lat_mult + rec->acked, tag);
	if (id < 0 || ft__pk_add_dep(e, (uint32_t)id, rec->next) < 0)
		return FT_ENOMEM;
	for (t = first; t < (uint32_t)id; t++)
		if (ft__pk_add_dep(e, t, (uint32_t)id) < 0)
			return FT_ENOMEM;
	return 0;
}

/* The path latency a message from GPU @a to GPU @b walks, through PXN proxy @via where it
 * relays (pkt_int.h). */
double
ft__pk_pair_path_s(struct pk_engine *e, uint32_t a, uint32_t b, uint32_t via)
{
	uint64_t lat;

	if (ft__pk_path_lat(e, a, b, via, ft_mix64(((uint64_t)a << 32) | b), &lat) < 0)
		return 0;
	return (double)lat / PK_PS_PER_S;
}

/*
 * The longest path latency the packets of phase @ph walk on a step between nodes, seconds
 * (0: none). The path latency is the sum of the link latencies (cables' propagation,
 * switch and NIC latencies: the topology's lat_s) on the route the engine gives a flow
 * between the two ends (ft__pk_path_lat()), through the NIC the flow names where it leaves
 * by another GPU's (ft__sim_flow_nic(): its GPU's path to that NIC, then the NIC's GPU's
 * route, as the flow walks it), the longest over the phase's flows between nodes, as a
 * step's barrier takes its flows' longest path. Queueing and serialization are not in
 * it: they are the packets' own time. Before, the route was the sender GPU's own, out by
 * its own NIC: a ring's flow from GPU 0 of one DGX H100 to GPU 1 of the next, out by NIC
 * 1 on GPU 1's rail, was counted over the spine, 0.4 us longer than the rail it walks, and
 * each step between nodes paid 0.4 us less than NCCL's figure.
 */
static double
net_path_s(struct pk_engine *e, const struct ft_sim_op *op, const struct ft_sched_phase *ph)
{
	const struct ft_schedule *sc = op->sched;
	uint64_t path = 0, lat;
	uint32_t f, a, b, nic, pa = UINT32_MAX, pb = UINT32_MAX, pn = UINT32_MAX;

	for (f = 0; f < ph->nflows; f++) {
		struct ft_sched_flow fl;
		struct ft_error err = { 0 };

		ft_sched_phase_flow(sc, ph, f, &fl);
		if (ft__sim_flow_ends(e->topo, sc, op, &fl, &a, &b, &err) < 0 || a == b ||
		    !ft__sim_over_network(e->topo, a, b))
			continue;
		nic = ft__sim_flow_nic(e->topo, &fl, a, b);
		if (a == pa && b == pb && nic == pn)
			continue;
		pa = a;
		pb = b;
		pn = nic;
		if (ft__pk_path_lat(e, a, b, nic, ft_mix64(((uint64_t)a << 32) | b), &lat) == 0)
			path = FT_MAX(path, lat);
	}
	return (double)path / PK_PS_PER_S;
}

/*
 * What a step of phase @ph between nodes pays so that it costs no less than NCCL's
 * per-hop network latency (hwLat[NET] of the op's algorithm and protocol at the jobs'
 * release, ft__sim_hw_net_s()), seconds: that latency less the path latency the packets
 * walk on such a step (net_path_s()), never below 0. NVLS across nodes and an all-to-all's
 * rounds take it so; a ring's or tree's steps take the walk back as walk_back_s() says.
 */
static double
net_floor_s(struct pk_engine *e, const struct ft_sim_op *op, const struct ft_sched_phase *ph)
{
	double hw = ft__sim_hw_net_s(op->sched);

	if (!(hw > 0))
		return 0;
	return ft__sim_net_floor_s(hw, net_path_s(e, op, ph));
}

static double node_path_s(struct pk_engine *e, const struct ft_sim_op *op,
                          const struct ft_sched_phase *ph, bool mean, double round);
static double chain_round_bytes(const struct pk_engine *e, const struct ft_sim_op *op, double eff);
static double chain_grain_s(const struct pk_engine *e, const struct ft_sim_op *op);

/*
 * The span of ring phase @ph's bytes on the links, seconds, into @span: its busiest link's
 * wire bytes (each flow's at @eff, its packets' headers on that link, as
 * ft__pk_route_flow()'s ideal time counts them) at the link's rate. A connection's bytes
 * go in equal shares on its QPs (ft__pk_conn_qps(): a message split over its GPU's NICs'
 * lanes, pkt_nccl.c add_message(), or its messages on them in turn), each share on the
 * route the engine gives that QP's flows (ft__pk_path(), through the NIC the flow names,
 * ft__sim_flow_nic(); QP q as q x 1024 and its hash ft_route_flow_hash() of it, as
 * pkt_nccl.c add_flow() gives the flow, so that the lane and an ECMP choice are the
 * run's). The time its bytes take where no cap binds them (a Simple ring:
 * ft__sim_kernel_cap() has none), as the flow engine's flows take it. 0, or FT_ENOMEM.
 */
static int
link_span_s(struct pk_engine *e, const struct ft_sim_op *op, const struct ft_sched_phase *ph,
            double eff, double *span)
{
	const struct ft_schedule *sc = op->sched;
	double *load = ft_calloc(e->nlinks ? e->nlinks : 1, sizeof(double)), most = 0;
	uint32_t f, j, a, b, q, nq;

	*span = 0;
	if (!load)
		return FT_ENOMEM;
	for (f = 0; f < ph->nflows; f++) {
		struct ft_sched_flow fl;
		struct ft_error err = { 0 };
		struct ft_path path;
		double wire;

		ft_sched_phase_flow(sc, ph, f, &fl);
		if (fl.bytes == 0 || ft__sim_flow_ends(e->topo, sc, op, &fl, &a, &b, &err) < 0 ||
		    a == b)
			continue;
		nq = FT_MAX(e->cfg.qps_per_conn, 1u) * ft__sim_conn_lanes(e->topo, a, b);
		wire = (double)fl.bytes / eff / nq;
		for (q = 0; q < nq; q++) {
			if (ft__pk_path(e, a, b, ft__sim_flow_nic(e->topo, &fl, a, b),
			                ft_route_flow_hash(a, b, q * 1024u), q * 1024u, &path) < 0)
				continue;
			for (j = 0; j < path.nlinks; j++) {
				const struct pk_link *lk = &e->links[path.links[j]];
				double *l = &load[path.links[j]];

				*l += (wire + ceil(wire / e->mtu) * lk->hdr) * lk->ps_per_byte;
				most = FT_MAX(most, *l);
			}
		}
	}
	ft_free(load);
	*span = most / PK_PS_PER_S;
	return 0;
}

/*
 * What a ring's or tree's phase @ph of @op takes back of the latency phase_cost() charges
 * its steps, seconds, so that each step pays its latency once: NCCL's price for a step
 * is the hop's whole latency, the path with it (NVIDIA/nccl v2.27.7-1
 * src/graph/tuning.cc ncclTopoTuneModel(): baseLat + (nsteps - nInterSteps) x intraLat +
 * nInterSteps x interLat, intraLat max(hwLat[NVLINK or PCI], the network post overhead)
 * on a ring across nodes, then the bytes over the bandwidth; kb NA-MODEL), where the
 * engine's messages walk their path and the phase's barrier charges that latency beside
 * it. One rule for every such phase: of @in steps inside a node, each charged @in_charge,
 * and @net steps between nodes, each charged hwLat[NET], a step takes back at most
 * min(its charge, its path), the path of a step between nodes the longest of the phase's
 * (net_path_s(): a ring's step waits for its longest flow), of one inside a node the
 * shortest (node_path_s(): no hop pays less than max(charge, its own path)); and the whole
 * never more than the walk shows past the bytes: the walk, in x the mean of a ring's hops
 * inside a node (its messages walk each of them in turn: one pcie-l40s node's 8 hops are
 * 0.15 us under a PCIe switch and 0.45 over the CPU, 0.225 the mean; the shortest alone
 * counted 2.1 us of walk where its pipeline took 4.53 and ran 6.2 % over the flow engine)
 * or a chain's shortest + net x the network's, less the span of the bytes it runs under.
 *
 * Which steps walk where the latency was charged: a step between nodes everywhere (its messages
 * cross the fabric); a step inside a node where the engine runs NCCL's LL or LL128 messages (an
 * LL or LL128 chain broadcast or reduce, pkt_tree.c chain_lines(): in LL a rank passes each line
 * on as its flag comes, src/device/prims_ll.h LLGenericOp(): readLL() polls the line, storeLL()
 * writes it to the next rank; in LL128 a warp its 2 KiB of lines once their flags have come,
 * prims_ll128.h recvReduceSendCopy(): readLL128Lines(), storeLL128()), and a ring on NCCL's
 * launched channels in every protocol (pkt_nccl.c
 * ring_reps()): its message of step s waits for the one of step s - 1 on the connection feeding
 * its source (link_message()), in LL, LL128 and Simple alike, so the walk is the step's latency
 * whatever the protocol's grain (LL128's 128-byte lines with their flag, prims_ll128.h; Simple's
 * slice behind its connection's tail, prims_simple.h: NCCL's hwLat[NVLINK][RING] of each, 0.6, 1.9
 * and 3.4 us, is the hop's whole latency, the path in it). The span: a chain's rounds fill its
 * hops before its pace streams them (the fill is time the bytes do not hold: 0), a ring's steps
 * walk from the phase's start under its bytes: the cap's pace, which spreads them over the largest
 * connection's time at the cap (ft__sim_cap_period_s() of one loop), or where no cap binds them
 * (Simple on all its channels) the busiest link's time (link_span_s()), the longer, so only the
 * walk past that span shows (1 MiB on one DGX H100 in LL: 14 x 0.6 us under 13.0 us of bytes; 8
 * KiB: 14 x 0.6 over 1.9; Simple on 2 DGX H100, no cap: its NVLinks' and NICs' span; the cap's, 0,
 * took the whole walk back under bytes that hold it, 3.9 % under the flow engine at 64 MiB on the
 * launched channels). An LL128 chain's hop walks its message's path and its bytes at the link's
 * rate, where the price of a hop is hwLat and the model's grain at the channel's share of the
 * node's class (model/pipeline.c ll128_ramp(), a ramp NCCL's tuner does not have and the flow
 * engine pays): of the walk, the grain's pass (chain_grain_s()) is that ramp's, the rest
 * latency paid twice. Before it took nothing back: 14 hops x 0.6 us through a DGX H100's
 * NVSwitch paid beside hwLat[NVLINK][RING][LL128], 2 DGX H100 at 64 KiB 54.04 us where the
 * flow engine takes 49.09 (+10.1 %; now 49.04). An LL128 tree all-reduce's hops pass lines on
 * so too (pkt_tree.c ft__pk_lines(): all_reduce.h runTreeSplit calls the same LL128
 * primitives) and take the same rule under hwLat[NVLINK][TREE][LL128] (1.25 us): before, 2
 * DGX H100 at 4 KiB paid its 14 hops' 0.6 us paths beside it, 56.93 us where the flow engine
 * takes 52.47 (now 51.54, with the last loop's period, pkt_tree.c tree_last_loop()).
 * Before, a ring's LL128 and Simple steps
 * inside a node took nothing back, their
 * walk paid in the pipeline and in the barrier's hwLat (2 DGX H100 at 8 KiB: 91.96 and 148.36 us
 * where the flow engine takes 76.54 and 132.88; sim.md, "LL128 and Simple rings"). Before that,
 * the chain's rule took the walk whole and the ring's (inside a node alone) the walk past the
 * span, and a ring across nodes took back its steps between nodes alone: on 2 DGX H100 at 8 KiB
 * its 28 steps inside the nodes paid their walk (16.8 us) in the pipeline and the post overhead (1
 * us each) in the barrier, 56.77 us where NCCL's price is 40.89; at 1 MiB the bytes' span (50.4
 * us) held the network's walk, which came off the barrier all the same (88.58 us, the price
 * 90.91).
 */
static int
walk_back_s(struct pk_engine *e, const struct ft_sim_op *op, const struct ft_sched_phase *ph,
            uint32_t in, double in_charge, uint32_t net, double *back)
{
	const struct ft_schedule *sc = op->sched;
	bool ring = ft__pk_is_chunked(e, sc, ph);
	bool chain = ft__pk_lines(sc) && ft__pk_is_tree(e, sc, ph);
	double hw = ft__sim_hw_net_s(sc), eff = sc->proto_eff > 0 ? sc->proto_eff : 1.0;
	double pin = 0, walk = 0, pnet = 0, span = 0, links = 0, most;

	/* an LL or LL128 chain's hop inside a node: its round's path and serialization
	 * (chain_round_bytes()); in LL128 less the grain's pass at the channel's share of
	 * the node's class, which the model's ramp prices beside NCCL's hop latency
	 * (chain_grain_s()) */
	if (in > 0 && (ring || chain))
		pin = node_path_s(e, op, ph, false, chain ? chain_round_bytes(e, op, eff) : 0);
	if (in > 0 && chain)
		pin = FT_MAX(0.0, pin - chain_grain_s(e, op));
	/* a ring's messages walk each of its hops in turn (the mean); a chain's walk runs
	 * before its bytes' pace (no span): the bound alone binds there */
	walk = ring && in > 0 ? node_path_s(e, op, ph, true, 0) : pin;
	if (net > 0 && hw > 0)
		pnet = net_path_s(e, op, ph);
	if (ring && link_span_s(e, op, ph, eff, &links) < 0)
		return FT_ENOMEM;
	if (ring)
		span = FT_MAX(ft__sim_cap_period_s(op, ph, eff, 1), links);
	most = in * FT_MIN(FT_MAX(in_charge, 0.0), pin) + net * FT_MIN(hw, pnet);
	*back = FT_MAX(0.0, FT_MIN(most, in * walk + net * pnet - span));
	return 0;
}

/*
 * The bytes on the wire of an LL or LL128 chain's round, or an LL128 tree's (@op's, @eff
 * its protocol's
 * efficiency): the model's grain (ft_model_line_grain(): LL 4,096 bytes of data, 512 threads'
 * 8-byte lines; LL128 9,600),
 * less where a channel carries less (the op's bytes over its launched or forced channels,
 * pkt_tree.c chain_channels()). The packet engine sends a round as one message, which a
 * hop inside a node stores whole before the next hop sends it (pkt_tree.c chain_lines()):
 * it pays the round's serialization on every hop,
 * where NCCL's LL passes each line on as its flag comes (src/device/prims_ll.h
 * LLGenericOp(): readLL(), storeLL()) and NCCL's per-hop LL latency, which the barrier
 * charges, holds a round's way through the hop (the model's, model/pipeline.c ll_ramp():
 * NCCL's per-hop LL latencies were measured at the round). So a hop's walk is the round's
 * time at it, its path and its serialization, and the charge takes back that much at most.
 * Over NVLink the serialization is 0.03 us and the charge (hwLat[NVLINK] 0.6 us) no more
 * than the path through an NVSwitch already (0.6 us on a DGX H100): nothing moves there;
 * over PCIe (24 GB/s) it is 0.34 us of a 0.49 us hop, which the barrier paid again:
 * pcie-l40s:2's LL broadcast of 4 KiB ran 29.75 us against the flow engine's 24.74
 * (+20.3 %), 14 hops inside its nodes x 0.34 us.
 */
static double
chain_round_bytes(const struct pk_engine *e, const struct ft_sim_op *op, double eff)
{
	uint32_t nch = op->nchannels                       ? op->nchannels :
	               e->op_pl_read && e->op_pl.nchannels ? e->op_pl.nchannels :
	                                                     1;
	double round = FT_MIN((double)ft_model_line_grain(op->sched->proto),
	                      (double)op->sched->bytes / nch);

	return round / (eff > 0 ? eff : 1.0);
}

/* The time the model's LL128 ramp gives the op's first grain on each stage inside a node,
 * seconds (the pipeline's grain_s: the grain at the channel's share of the node's class,
 * model/pipeline.c ll128_ramp()); 0 for other protocols, whose rounds hold none (LL's per-hop
 * latencies were measured at its round, ll_ramp()), or where the model's pipeline is not
 * read (pipe_read()). */
static double
chain_grain_s(const struct pk_engine *e, const struct ft_sim_op *op)
{
	if (op->sched->proto != FT_PROTO_LL128 || !e->op_pl_read)
		return 0;
	return FT_MAX(e->op_pl.grain_s, 0.0);
}

/* The time a message of @bytes on the wire takes from @a to @b inside a node, into @ps:
 * its path's latency, and its bytes at the path's slowest link (0 bytes: the path alone). */
static int
hop_time_ps(struct pk_engine *e, uint32_t a, uint32_t b, double bytes, uint64_t *ps)
{
	struct ft_path path;
	double slow = 0;
	int rc = ft__pk_path(e, a, b, UINT32_MAX, ft_mix64(((uint64_t)a << 32) | b), 0, &path);

	if (rc < 0)
		return rc;
	*ps = 0;
	for (uint32_t j = 0; j < path.nlinks; j++) {
		*ps += e->links[path.links[j]].lat_ps;
		slow = FT_MAX(slow, e->links[path.links[j]].ps_per_byte);
	}
	*ps += (uint64_t)(slow * FT_MAX(bytes, 0.0) + 0.5);
	return 0;
}

/* The shortest path of phase @ph's flows inside a node, seconds (0: none); with @mean the
 * mean over those flows, each hop of the phase's rings once; with @round > 0 each path
 * also the time of a message of @round bytes on the wire at its slowest link
 * (chain_round_bytes()). A pair with no route is left
 * out of both, as net_path_s() leaves it out of the longest: counted as a path of 0 it
 * would take a chain's or ring's take-back (walk_back_s()) to nothing. */
static double
node_path_s(struct pk_engine *e, const struct ft_sim_op *op, const struct ft_sched_phase *ph,
            bool mean, double round)
{
	const struct ft_schedule *sc = op->sched;
	uint64_t path = UINT64_MAX, lat = 0;
	uint32_t f, a, b, pa = UINT32_MAX, pb = UINT32_MAX, n = 0;
	double sum = 0;
	bool routed = false;

	for (f = 0; f < ph->nflows; f++) {
		struct ft_sched_flow fl;
		struct ft_error err = { 0 };

		ft_sched_phase_flow(sc, ph, f, &fl);
		if (fl.bytes == 0 ||
		    ft__sim_flow_ends(e->topo, sc, op, &fl, &a, &b, &err) < 0 || a == b ||
		    ft__sim_over_network(e->topo, a, b))
			continue;
		if (a != pa || b != pb)
			routed = hop_time_ps(e, a, b, round, &lat) == 0;
		pa = a;
		pb = b;
		if (!routed)
			continue;
		path = FT_MIN(path, lat);
		sum += (double)lat;
		n++;
	}
	if (n == 0)
		return 0;
	return (mean ? sum / n : (double)path) / PK_PS_PER_S;
}

/* Whether @sc's steps inside a node last at least NCCL's network post overhead when its
 * ring crosses nodes (ft__sim_far_steps(), the model's ring_floor()): a ring all-reduce,
 * all-gather or reduce-scatter. */
static bool
ring_floored(const struct ft_schedule *sc)
{
	return sc->algo == FT_ALGO_RING &&
	       (sc->op == FT_OP_ALL_REDUCE || sc->op == FT_OP_ALL_GATHER ||
	        sc->op == FT_OP_REDUCE_SCATTER);
}

/*
 * The fixed cost of phase @ph of @op, seconds: the protocol's overhead on each of its steps,
 * and on each step between nodes what the model adds to NCCL's per-hop network latency
 * (ft__sim_net_step_s(): the network plugin's reported latency over the fabric's, the
 * flush where NCCL flushes, nics.vm_overhead), on as many steps as the flow engine pays it
 * (ft__sim_far_steps(): a ring all-reduce over N nodes 2(N - 1), a tree 2 log2 N, an NVLS
 * tree its steps across nodes, CollNet one). One rule for every algorithm: a step between
 * nodes pays the step overhead (a ring's or tree's not: NCCL's network latency stands in
 * its place, as in the model's), what the model adds to NCCL's network latency
 * (ft__sim_net_step_s()) and NCCL's per-hop network latency (hwLat[NET]) less the path
 * latency the packets walk on it, where that is shorter (net_floor_s()): the step takes
 * max(hwLat[NET], path), never less than NCCL's figure, and a fabric slower than NCCL
 * assumes still shows. Before, the path stood for hwLat[NET] whole: a ring all-reduce of
 * 16 MiB over 2 DGX H100 ran 200.36 us where the flow engine's took 220.78. So NVLS
 * across nodes pays NCCL's intraLat once, the switch's pass (its step overhead, reduce
 * and multicast pipelined, as the model's cost_nvls_net, model/tuner.c), and
 * ft__sim_net_step_s() on its one trip through the network, as a ring's far step (and NVLS
 * inside one node or NVLink domain the switch's pass once, not on each of its 2 steps:
 * 8 KiB on one DGX H100 took 50.63 us where the flow engine's took 25.69); not the
 * NVLS step overhead on each of its 4 steps (4 x 25 us on Hopper: 1 MiB over 8 DGX H100
 * took 114.9 us where the flow engine's took 65.7), nor hwLat[NET][NVLS] on top of the
 * packets' path (it paid it: 18 us more, src/coll/names.c), but max(18 us, path) on its
 * trip through the network. The exceptions left are CollNet's all-reduces, whose step
 * overheads hold NCCL's CollNet interLat: CollNetDirect's four, CollNetChain's 2 (ppn - 1)
 * + 2 (coll/schedule.c; the runner's ft__sim_release_lats()).
 * Before, the engine paid none of the step costs between nodes: a ring over 2 DGX H100
 * with 10 us of nics.vm_overhead ran as fast as one without.
 */
static int
phase_cost(struct pk_engine *e, const struct ft_sim_op *op, const struct ft_sched_phase *ph,
           const struct ft__sim_link_lats *ll, double *cost)
{
	const struct ft_schedule *sc = op->sched;
	uint32_t steps = ph->steps ? ph->steps : 1, net = 0;
	double extra, step = ll->net_step_s, back;

	(void)ft__sim_far_steps(e->topo, sc, ll, op->rank_gpu, steps, &extra, &net);
	/* each step between nodes: NCCL's hwLat[NET] where the packets' path is shorter (a
	 * ring, a tree, NVLS across nodes; not an NVLS tree, whose chunked stages pay more than
	 * the flow engine's already, nor CollNet, whose step overheads hold its interLat) */
	if (net > 0 && sc->algo == FT_ALGO_NVLS)
		step += net_floor_s(e, op, ph);
	/* NVLS, in one node or across nodes (net: its one step between nodes): the switch's
	 * pass once, reduce and multicast pipelined */
	if (sc->algo == FT_ALGO_NVLS) {
		*cost = sc->step_lat_s + net * step;
		return 0;
	}
	/* a ring's or tree's step between nodes pays the network's latency in place of the
	 * NVLink step overhead, as NCCL's model (kb NA-MODEL: (nsteps - ninter) intraLat +
	 * ninter interLat) and the flow engine (ft__sim_far_steps()) charge it */
	if (sc->algo == FT_ALGO_RING || sc->algo == FT_ALGO_TREE) {
		/* @extra holds every network step NCCL counts, (hwLat[NET] + what the model
		 * adds - the step overhead) each, more than @steps where a ring all-reduce
		 * with one GPU a node counts 2 x nNodes before 2.23; what the packets walk of
		 * the latency charged comes back (walk_back_s()): of the @net steps between
		 * nodes and the @steps - @net inside a node, there at the overhead, or at the
		 * network post overhead where @extra floors a ring's steps so */
		uint32_t in = steps > net ? steps - net : 0;
		double in_charge = sc->step_lat_s;

		if (net > 0 && ring_floored(sc))
			in_charge = FT_MAX(in_charge, ll->ring_intra_floor_s);
		if (walk_back_s(e, op, ph, in, in_charge, net, &back) < 0)
			return FT_ENOMEM;
		*cost = steps * sc->step_lat_s + extra - back;
		return 0;
	}
	*cost = steps * sc->step_lat_s + net * step;
	return 0;
}

/* Whether a phase of @op runs as a tree or chain (ft__pk_submit()'s choice), or as a ring
 * on NCCL's launched channels (pkt_nccl.c ring_reps()). */
static bool
tree_phases(const struct pk_engine *e, const struct ft_sim_op *op)
{
	const struct ft_schedule *sc = op->sched;
	uint32_t p;

	for (p = 0; p < sc->phases.len; p++) {
		const struct ft_sched_phase *ph = ft_sched_phase_at(sc, p);

		if (ft__pk_is_p2p(e, op, ph))
			continue;
		if (ft__pk_is_chunked(e, sc, ph) || ft__pk_is_tree(e, sc, ph))
			return true;
	}
	return false;
}

/* Whether a phase of @op runs as a ring on NCCL's launched channels (pkt_nccl.c
 * ring_reps()), in any protocol. */
static bool
ring_phases(const struct pk_engine *e, const struct ft_sim_op *op)
{
	const struct ft_schedule *sc = op->sched;
	uint32_t p;

	for (p = 0; p < sc->phases.len; p++) {
		const struct ft_sched_phase *ph = ft_sched_phase_at(sc, p);

		if (!ft__pk_is_p2p(e, op, ph) && ft__pk_is_chunked(e, sc, ph))
			return true;
	}
	return false;
}

/*
 * GPUDirect-TCPX/O across nodes: what NCCL's pipeline adds there, as the flow engine pays
 * it (engine_flow.c whole_pipe(), ft__sim_pipe_terms(): the model's own terms, kb
 * NA-MODEL). The ramp (the model's time for the first chunk through every stage of a chain
 * or tree before the last stage starts: 666 us of a 64 MiB tree all-reduce over 2
 * gcp-a3-mega, most of its time) is a fixed cost at the end of the op's last phase, after
 * its flows and step costs, where the op's stages run unpaced; the proxy's floor (a
 * channel's network messages posted one after another at a fixed cost each) makes the
 * op's end a barrier after both that and a barrier the proxy's time after its start (less
 * NCCL's base latency, which the op's time counts from before it). Unpaced, the engine's
 * own slices fill the pipeline in a few of their packet times, a small part of the model's
 * ramp, which it then adds whole; a plain Simple tree on NCCL's channels instead runs its
 * first round at the model's fill (pkt_tree.c nccl_fill()), and one on forced channels its
 * stages at the cap (cap_pace()), and an LL or LL128 chain waits for whole steps at its
 * hops between nodes (chain_ramp_own()): those pay their ramp in their own messages. With
 * chunking off, ops whose end is not their last flow's and background patterns it pays
 * neither, as the flow engine does. On other transports the engine's chunks, cut as NCCL cuts them,
 * are its pipeline, and it adds no ramp (the flow engine, which runs whole flows, adds
 * both everywhere); the proxy's floor there only where an op's phase runs as a ring
 * on NCCL's launched channels (pkt_nccl.c ring_reps(): proxy_paid()). The model's terms
 * are read by pipe_read() before the op's first task (an op with its end shifted or acked
 * takes none: its next task is its own).
 */
/*
 * Whether @op's ranks sit on more than one node. GPUDirect-TCPX/O carries only an op's
 * steps between nodes; one inside a node runs over NVLink as on any other node, and
 * its stages are the engine's messages there (an op without its ranks' GPUs: as one
 * across nodes). Before, one gcp-a3-high node paid the model's ramp after its tree
 * all-reduce in LL128 (4 KiB 43.79 us, one DGX H100's 40.00; the flow engine 37.01).
 */
static bool
spans_nodes(const struct pk_engine *e, const struct ft_sim_op *op)
{
	const struct ft_schedule *sc = op->sched;

	if (!op->rank_gpu || !sc)
		return true;
	for (uint32_t r = 1; r < sc->nranks; r++)
		if (ft_topo_vertex(e->topo, op->rank_gpu[r])->node !=
		    ft_topo_vertex(e->topo, op->rank_gpu[0])->node)
			return true;
	return false;
}

static bool
pipe_paid(const struct pk_engine *e, const struct ft_sim_op *op)
{
	return e->tcp && e->pc.chunking != FT_PKT_CHUNK_OFF && !op->nominal_end && !op->end_acked &&
	       op->job != UINT32_MAX && spans_nodes(e, op);
}

/*
 * Whether @op pays the model's proxy floor: where it pays the pipeline (pipe_paid()), and on every
 * transport where a phase runs as a ring on NCCL's launched channels (LL, LL128 or Simple), as the
 * flow engine pays it (engine_flow.c whole_pipe()). Such a ring's messages are NCCL's steps, each
 * paying its latency once (walk_back_s()), but none pays the proxy thread's post of it (1 us of
 * NCCL's network post overhead a message, plus nics.vm_overhead, a send and a receive a step on
 * each channel, one after another: model/pipeline.c proxy_messages(), kb NA-MODEL), which bounds
 * the op at small sizes: 2 DGX H100 at 8 to 256 KiB, 60 messages = 60.00 us, where NCCL's price of
 * latency and bytes is 40.89 to 53.10. The op's end waits for it as a floor, not a sum: max(steps
 * + bytes, proxy), as the flow engine's and the model's. LL128's and Simple's rings take it as
 * LL's since their steps pay their latency once too (before, their walk inside a node, paid twice,
 * held them above it); the trees keep none (sim.md, Limits).
 */
static bool
proxy_paid(const struct pk_engine *e, const struct ft_sim_op *op)
{
	return pipe_paid(e, op) ||
	       (e->pc.chunking != FT_PKT_CHUNK_OFF && !op->nominal_end && !op->end_acked &&
	        op->job != UINT32_MAX && ring_phases(e, op));
}


/*
 * The model's readings of @op, before it adds a task or changes the engine, so that a
 * failed one (out of memory) leaves the engine as it was: the ramp and proxy floor
 * pipe_terms() adds (0 where it adds none), and where a phase runs as a tree or chain, or
 * as a ring (its channels: pkt_nccl.c ring_reps()), its pipeline and the cluster's
 * links pkt_tree.c shapes it on (e->op_pl, e->op_l). The
 * error is the model's words (ft__sim_pipe_model()) or the links'.
 */
static int
pipe_read(struct pk_engine *e, const struct ft_sim_op *op, double *ramp_s, double *proxy_s,
          struct ft_error *err)
{
	int rc;

	*ramp_s = *proxy_s = 0;
	e->op_pl_read = e->op_l_ok = false;
	if (proxy_paid(e, op) &&
	    (rc = ft__sim_pipe_terms(e->topo, op, ramp_s, proxy_s, NULL, err)) < 0)
		return rc;
	if (!pipe_paid(e, op))
		*ramp_s = 0;
	if (!tree_phases(e, op))
		return 0;
	if ((rc = ft__sim_pipe_model(e->topo, op, &e->op_pl, err)) < 0)
		return rc;
	if ((rc = ft__sim_links(ft_topo_spec(e->topo), 0, 0, 0, &e->op_l)) < 0)
		return ft_error_set(err, rc, "sim: the model's links: %s", ft_strerror(rc));
	e->op_l_ok = rc > 0;
	e->op_pl_read = true;
	return 0;
}

static int
pipe_terms(struct pk_engine *e, const struct ft_sim_op *op, struct pk_op *rec, uint32_t tag,
           double ramp_s, double proxy_s, struct ft_error *err)
{
	int64_t ramp, at, end;

	if (!proxy_paid(e, op) || rec->next != PK_NONE)
		return 0;
	/* where the op's stages were paced, at its cap (pkt_tree.c cap_pace()) or through
	 * the model's fill on NCCL's channels (nccl_fill()), or are an LL or LL128 chain's
	 * lines and whole steps (chain_ramp_own()), they are its ramp: the model's is not
	 * added */
	if (e->staged)
		ramp_s = 0;
	if (ramp_s > 0) {
		ramp = ft__pk_add_task(e, PK_T_BARRIER, s_to_ps(ramp_s), 0, tag);
		if (ramp < 0 || ft__pk_add_dep(e, rec->end, (uint32_t)ramp) < 0)
			goto oom;
		rec->end = (uint32_t)ramp;
	}
	if (!(proxy_s > 0))
		return 0;
	at = ft__pk_add_task(e, PK_T_BARRIER,
	                     s_to_ps(FT_MAX(proxy_s - op->sched->base_lat_s, 0.0)), 0, tag);
	end = ft__pk_add_task(e, PK_T_BARRIER, 0, 0, tag);
	if (at < 0 || end < 0 || ft__pk_add_dep(e, rec->start, (uint32_t)at) < 0 ||
	    ft__pk_add_dep(e, (uint32_t)at, (uint32_t)end) < 0 ||
	    ft__pk_add_dep(e, rec->end, (uint32_t)end) < 0)
		goto oom;
	rec->end = (uint32_t)end;
	return 0;
oom:
	return ft_error_set(err, FT_ENOMEM, "sim: out of memory submitting an op");
}

/*
 * A PAT dimension (@ph of @op) at the model's time (the op's cap, ft__sim_pat_cap()) lasts at
 * least its largest connection's bytes on the wire (at @eff) over the cap from @start, and
 * the way of its last byte (the longest path of its flows, ft__pk_path_lat()), as the flow
 * engine's capped flows do: a barrier that long between @start and @bar. Its messages'
 * pace (ft__pk_cap_period_ps()) spreads them over that span but starts its first at once
 * and its last a period before the end, at the links' rate, and a dimension of one message
 * (a 512 KiB connection and less) has none: unpaced, 1 MiB over 2 one-GPU nodes took 29.08
 * us, below the model's latency term alone (32.31 us in all). With packet.chunking: off
 * the dimension's connections run whole, one flow each, at their links' rate, and the
 * span holds them too (16 MiB over 2 one-GPU nodes: 192.91 us unheld, 251.17 held, the
 * model 250.7). 0, or FT_ENOMEM.
 */
static int
pat_span(struct pk_engine *e, const struct ft_sim_op *op, const struct ft_sched_phase *ph,
         double eff, uint32_t start, uint32_t bar, uint32_t tag)
{
	const struct ft_schedule *sc = op->sched;
	double span = ft__sim_cap_period_s(op, ph, eff, 1);
	uint64_t path = 0, lat;
	uint32_t f, a, b;
	int64_t id;

	if (sc->algo != FT_ALGO_PAT || !(span > 0))
		return 0;
	for (f = 0; f < ph->nflows; f++) {
		struct ft_sched_flow fl;
		struct ft_error err = { 0 };

		ft_sched_phase_flow(sc, ph, f, &fl);
		if (fl.bytes == 0 || ft__sim_flow_ends(e->topo, sc, op, &fl, &a, &b, &err) < 0 ||
		    a == b)
			continue;
		if (ft__pk_path_lat(e, a, b, ft__sim_flow_nic(e->topo, &fl, a, b),
		                    ft_mix64(((uint64_t)a << 32) | b), &lat) == 0)
			path = FT_MAX(path, lat);
	}
	id = ft__pk_add_task(e, PK_T_BARRIER, s_to_ps(span) + path, 0, tag);
	if (id < 0 || ft__pk_add_dep(e, start, (uint32_t)id) < 0 ||
	    ft__pk_add_dep(e, (uint32_t)id, bar) < 0)
		return FT_ENOMEM;
	return 0;
}

int64_t
ft__pk_submit(struct ft_engine *eng, const struct ft_sim_op *op, struct ft_error *err)
{
	struct pk_engine *e = ft_container_of(eng, struct pk_engine, base);
	const struct ft_schedule *sc = op->sched;
	const struct pk_op *after;
	uint32_t tag = (uint32_t)e->ops.len, p, nv = ft_topo_nvertices(e->topo), shift_ns;
	double eff = sc->proto_eff > 0 ? sc->proto_eff : 1.0, wait;
	struct ft__sim_link_lats ll;
	struct pk_op rec = { 0 };
	double ramp_s, proxy_s;
	int64_t id;
	int rc;

	if (e->started)
		return ft_error_set(err, FT_EINVAL, "sim: packet engine: op submitted after run");
	if (op->after >= (int64_t)e->ops.len)
		return ft_error_set(err, FT_EINVAL, "sim: op waits for op %lld, not submitted",
		                    (long long)op->after);
	for (p = 0; p < sc->nranks; p++)
		if (op->rank_gpu[p] >= nv)
			return ft_error_set(err, FT_EINVAL, "sim: rank %u placed on no vertex", p);
	if (op->prio >= FT_PKT_NPRIO)
		return ft_error_set(err, FT_EINVAL, "sim: priority %u: expected 0 to %d", op->prio,
		                    FT_PKT_NPRIO - 1);
	if ((rc = ft__pk_vlarb_check(e, op->prio, err)) < 0)
		return rc;
	after = op->after >= 0 ? &FT_VEC_AT(&e->ops, struct pk_op, op->after) : NULL;
	if ((rc = ft__sim_start_wait(op, after ? after->shift_s : 0, &wait, err)) < 0)
		return rc;
	/* the model's net step and ring floor of the op's phases (phase_cost()), once, and
	 * its pipeline: before the engine changes */
	if ((rc = ft__sim_link_lats(e->topo, sc, &ll)) < 0)
		return ft_error_set(err, rc, "sim: the model's links: %s", ft_strerror(rc));
	if ((rc = pipe_read(e, op, &ramp_s, &proxy_s, err)) < 0)
		return rc;
	e->staged = false;
	e->sub_prio = op->prio;
	e->nprio = FT_MAX(e->nprio, (uint32_t)op->prio + 1);
	e->prio_used |= (uint8_t)(1u << op->prio);
	id = ft__pk_add_task(e, PK_T_BARRIER, s_to_ps(wait), 0, tag);
	if (id < 0)
		goto oom;
	rec.start = (uint32_t)id;
	rec.job = op->job;
	rec.prio = op->prio;
	rec.base_lat_ps = s_to_ps(sc->base_lat_s);
	if (after && ft__pk_add_dep(e, after->next, rec.start) < 0)
		goto oom;
	rec.end = rec.start;
	rec.next = PK_NONE;
	shift_ns = op->nominal_end ? ft__sim_max_start_ns(sc) : 0;
	if (shift_ns > 0 || op->end_acked) {
		if ((id = ft__pk_add_task(e, PK_T_BARRIER, 0, 0, tag)) < 0)
			goto oom;
		rec.next = (uint32_t)id;
		rec.shift_s = shift_ns * 1e-9;
		rec.acked = op->end_acked;
	}
	for (p = 0; p < sc->phases.len; p++) {
		const struct ft_sched_phase *ph = ft_sched_phase_at(sc, p);
		double steps = ph->steps ? ph->steps : 1, cost;
		int64_t bar = phase_cost(e, op, ph, &ll, &cost) < 0 ?
		                      -1 :
		                      ft__pk_add_task(e, PK_T_BARRIER, s_to_ps(cost), steps - 1, tag);
		uint32_t f;

		if (bar < 0 || ft__pk_add_dep(e, rec.end, (uint32_t)bar) < 0)
			goto oom;
		/* (NCCL's chunks of a send start at its offset, pkt_nccl.c p2p_flows(); an op
		 * whose dependents count from its nominal end needs its flows whole) */
		if (ft__pk_is_p2p(e, op, ph) && shift_ns > 0)
			return ft_error_set(err, FT_EINVAL,
			                    "sim: packet engine: flows with start offsets (start "
			                    "jitter) are not cut into NCCL's chunks: use chunking: "
			                    "auto or off");
		if (ft__pk_is_p2p(e, op, ph))
			rc = ft__pk_submit_p2p(e, op, ph, rec.end, (uint32_t)bar, tag, err);
		else if (ft__pk_is_chunked(e, sc, ph))
			rc = ft__pk_submit_ring(e, op, ph, eff, rec.end, (uint32_t)bar, tag, err);
		else if (ft__pk_is_tree(e, sc, ph))
			rc = ft__pk_submit_tree(e, op, ph, eff, rec.end, (uint32_t)bar, tag, err);
		else
			rc = 1;
		/* (a PAT dimension, in NCCL's chunks or whole with packet.chunking off, its
		 * flows below: its span at the model's time) */
		if (rc >= 0 && !ft__pk_is_p2p(e, op, ph) &&
		    pat_span(e, op, ph, eff, rec.end, (uint32_t)bar, tag) < 0)
			rc = FT_ENOMEM;
		if (rc == FT_ENOMEM || rc == FT_ERANGE)
			goto fail;
		if (rc < 0)
			return rc; /* a rank placed nowhere: the message says which */
		if (rc > 0 && ph->implicit_alltoall) {
			rc = submit_a2a(e, op, ph, eff, rec.end, (uint32_t)bar, tag);
			if (rc < 0)
				goto fail;
		} else if (rc > 0) {
			/* (the launched channels' copies the flow engine runs, ft__sim_flow_chans():
			 * the model's count where the packet engine read it, pipe_read()) */
			struct ft__sim_phase_chans pc;
			uint32_t edge = 0;

			ft__sim_phase_chans_get(op, ph, e->op_pl_read ? &e->op_pl : NULL, &pc);
			for (f = 0; f < ph->nflows; f++) {
				struct ft_sched_flow fl;
				struct ft__sim_chans ch;
				uint32_t a = 0, b = 0;

				ft_sched_phase_flow(sc, ph, f, &fl);
				/* its graph ring: a relay leg carries the edge before on */
				edge += !fl.relay;
				ch = ft__sim_flow_chans(op, ph, &pc, &fl, edge - 1u);
				rc = ft__sim_flow_ends(e->topo, sc, op, &fl, &a, &b, err);
				if (rc < 0)
					return rc;
				if (a == b || ch.bytes == 0)
					continue;
				rc = add_timed_conn(e, &fl, eff, &ch, a, b, rec.end, (uint32_t)bar,
				                    &rec, shift_ns);
				if (rc < 0)
					goto fail;
			}
		}
		rec.end = (uint32_t)bar;
	}
	if ((rc = pipe_terms(e, op, &rec, tag, ramp_s, proxy_s, err)) < 0)
		return rc;
	if (rec.next == PK_NONE)
		rec.next = rec.end;
	else if (task_at(e, rec.next)->npred == 0 && ft__pk_add_dep(e, rec.end, rec.next) < 0)
		goto oom; /* no flow of its own (all-to-all rounds, NCCL's chunks): its end */
	/* a collective's cap names its class where it held the op (pkt_report.c); a send's is
	 * NCCL's window */
	rec.coll = sc->op != FT_OP_SENDRECV && sc->op != FT_OP_ALLTOALL;
	if (rec.coll && op->conn_cap_Bps > 0 && op->conn_cap_what) {
		ft_strlcpy(rec.pace_what, op->conn_cap_what, sizeof(rec.pace_what));
		rec.cap_ps_per_byte = PK_PS_PER_S / op->conn_cap_Bps;
	}
	if (ft_vec_push(&e->ops, &rec) < 0)
		goto oom;
	return (int64_t)e->ops.len - 1;
fail:
	/* (FT_ERANGE: a flow's packets, a phase's messages or waits, or the run's tasks past
	 * the 32-bit ids that number them: pkt_nccl.c, pkt_tree.c) */
	if (rc == FT_ERANGE)
		return ft_error_set(err, rc,
		                    "sim: packet engine: op %lld (%s, %s, %" PRIu64 " bytes on %u "
		                    "ranks): more than 2^32 packets in a flow, or messages, waits "
		                    "or tasks than 32-bit ids number: split the op or run the flow "
		                    "engine",
		                    (long long)e->ops.len, ft_op_name(sc->op),
		                    ft_algo_name(sc->algo), sc->bytes, sc->nranks);
oom:
	return ft_error_set(err, FT_ENOMEM, "sim: out of memory submitting an op");
}

/*
 * Number the priorities the run's flows have (its ops', background patterns' included),
 * in rising order: each has a record per port, the others none. A run with no flow has
 * priority 0's.
 */
static void
pk_cls_map(struct pk_engine *e)
{
	if (!e->prio_used)
		e->prio_used = 1;
	e->ncls = 0;
	for (uint32_t c = 0; c < FT_PKT_NPRIO; c++) {
		e->cls_slot[c] = PK_CLS_NONE;
		if (pk_prio_used(e, c)) {
			e->cls_slot[c] = (uint8_t)e->ncls;
			e->cls_prio[e->ncls++] = (uint8_t)c;
		}
	}
}

/* Successor lists (CSR) from the edges; queue the tasks without predecessors. */
int
ft__pk_start(struct pk_engine *e)
{
	size_t nt = pk_ntasks(e), i;
	uint32_t *cnt;
	int rc = 0;

	e->succ = ft_calloc(e->edges.len ? e->edges.len : 1, sizeof(uint32_t));
	cnt = ft_calloc(nt + 1, sizeof(uint32_t));
	/* The report's per-flow figures: every flow's in one process and on rank 0 of a
	 * split run (which takes them from the gathered completions); a rank other than 0
	 * reports nothing and keeps none of them (17 bytes a flow, 21 with several ops). */
	e->nfct = e->part && ft__pk_part_rank(e) != 0 ? 0 : e->nflows_all;
	e->fct = ft_calloc(e->nfct ? e->nfct : 1, sizeof(double));
	e->ideal = ft_calloc(e->nfct ? e->nfct : 1, sizeof(double));
	e->fct_prio = ft_calloc(e->nfct ? e->nfct : 1, 1);
	e->op_acc = ft_calloc(e->ops.len ? e->ops.len : 1, sizeof(*e->op_acc));
	if (e->ops.len > 1)
		e->fct_op = ft_calloc(e->nfct ? e->nfct : 1, sizeof(uint32_t));
	e->nflows_built = (uint32_t)pk_nflows(e);
	e->nsucc_len = (uint32_t)e->edges.len;
	if (!e->succ || !cnt || !e->fct || !e->ideal || !e->fct_prio || !e->op_acc ||
	    (e->ops.len > 1 && !e->fct_op)) {
		ft_free(cnt);
		return FT_ENOMEM;
	}
	for (i = 0; i < e->edges.len; i++)
		task_at(e, ((uint32_t *)ft_vec_at(&e->edges, i))[0])->nsucc++;
	for (i = 0; i < nt; i++) {
		task_at(e, (uint32_t)i)->succ_off = cnt[nt];
		cnt[nt] += task_at(e, (uint32_t)i)->nsucc;
	}
	for (i = 0; i < e->edges.len; i++) {
		const uint32_t *pr = ft_vec_at(&e->edges, i);
		struct pk_task *t = task_at(e, pr[0]);

		e->succ[t->succ_off + cnt[pr[0]]++] = pr[1];
	}
	ft_free(cnt);
	/* The successor lists say all the edges did, for the rest of the run (a split
	 * run's checks read the edges before, pkt_part.c): 8 bytes a dependency freed
	 * before the run's packets and events are. */
	ft_vec_release(&e->edges);
	/* Tie keys: a count per vertex, the vertex in the bits above it. */
	e->vseq = ft_calloc((size_t)e->nvertices + 1, sizeof(*e->vseq));
	if (!e->vseq)
		return FT_ENOMEM;
	e->key_shift = (unsigned)__builtin_clzll((uint64_t)e->nvertices + 1);
	e->origin = e->nvertices;
	/* The priorities in use are known now: their queues, a credit buffer per VL (for
	 * the port records kept: a split run's, pkt_part.c), and none for the others. */
	pk_cls_map(e);
	e->cls_pool = ft__pk_lines_alloc((size_t)e->nports * e->ncls, sizeof(*e->cls_pool),
	                                 &e->cls_mem);
	if (!e->cls_pool)
		return FT_ENOMEM;
	for (uint32_t r = 0; r < e->nports; r++) {
		e->ports[r].cls = &e->cls_pool[(size_t)r * e->ncls];
		for (uint32_t k = 0; k < e->ncls; k++)
			e->ports[r].cls[k].head = e->ports[r].cls[k].tail =
			        e->ports[r].cls[k].ring = PK_NONE;
	}
	for (uint32_t l = 0; l < e->nlinks; l++) {
		struct pk_port *p = pk_port_at(e, l);

		if (!pk_port_kept(e, l))
			continue; /* (the spare record stays empty) */
		p->lat_ps = e->links[l].lat_ps;
		p->ps_per_byte = e->links[l].ps_per_byte;
		p->src = e->links[l].src;
		p->dst = e->links[l].dst;
		p->hdr = e->links[l].hdr;
		p->net = e->links[l].net;
		p->sw_dst = e->links[l].sw_dst;
		p->nic = e->nic_msg_ps && e->links[l].net &&
		         ft_topo_vertex(e->topo, p->src)->kind == FT_V_NIC;
		for (uint32_t k = 0; k < e->ncls; k++)
			p->cls[k].credits = p->credit_cap;
	}
	e->started = true;
	if (e->ntrace && ev_push(e, e->trace_ps, PK_EV_TRACE, 0, 0) < 0)
		return FT_ENOMEM;
	for (i = 0; i < nt && rc == 0; i++) {
		const struct pk_task *k = task_at(e, (uint32_t)i);

		if (k->npred)
			continue;
		/* A flow starts at its source, as if its NIC had queued it. */
		e->origin = k->kind == PK_T_FLOW ? pk_flow_src(e, k->flow) : e->nvertices;
		rc = ft__pk_start_task(e, (uint32_t)i);
	}
	return rc;
}

void *
ft__pk_lines_alloc(size_t n, size_t size, void **mem)
{
	/* One spare record's room to align them (each a whole number of lines). */
	*mem = ft_calloc(n + 1, size);
	if (!*mem)
		return NULL;
	/* Hops read ports and their priorities at random: on large fabrics 4 KiB pages
	 * would cost a TLB miss each. */
	ft__sim_advise_huge(*mem, (n + 1) * size);
	return (void *)(((uintptr_t)*mem + 63) & ~(uintptr_t)63);
}

/* Ports' histogram rows a chunk of the pool: 71 KiB, a few chunks on a permutation's
 * fabric, where few ports ever hold a queue. */
#define PK_QB_ROWS 128u

struct pk_qb_chunk {
	struct pk_qb_chunk *next;
	uint64_t rows[PK_QB_ROWS][PK_QBINS - 1];
};

uint64_t *
ft__pk_qbins_new(struct pk_engine *e)
{
	if (e->qb_left == 0) {
		struct pk_qb_chunk *k = ft_calloc(1, sizeof(*k));

		if (!k)
			return NULL;
		k->next = e->qb_chunks;
		e->qb_chunks = k;
		e->qb_left = PK_QB_ROWS;
	}
	return e->qb_chunks->rows[PK_QB_ROWS - e->qb_left--];
}

void
ft__pk_qbins_free(struct pk_engine *e)
{
	while (e->qb_chunks) {
		struct pk_qb_chunk *k = e->qb_chunks;

		e->qb_chunks = k->next;
		ft_free(k);
	}
	e->qb_left = 0;
}

/* Priority queue records a chunk of the pool (3 KiB): only ports whose queue more than one
 * priority used take them. */
#define PK_CQ_ROWS 64u

struct pk_cq_chunk {
	struct pk_cq_chunk *next;
	struct pk_cq rows[PK_CQ_ROWS];
};

struct pk_cq *
ft__pk_cq_new(struct pk_engine *e)
{
	if (e->cq_left == 0) {
		struct pk_cq_chunk *k = ft_calloc(1, sizeof(*k));

		if (!k)
			return NULL;
		k->next = e->cq_chunks;
		e->cq_chunks = k;
		e->cq_left = PK_CQ_ROWS;
	}
	return &e->cq_chunks->rows[PK_CQ_ROWS - e->cq_left--];
}

void
ft__pk_cq_free(struct pk_engine *e)
{
	while (e->cq_chunks) {
		struct pk_cq_chunk *k = e->cq_chunks;

		e->cq_chunks = k->next;
		ft_free(k);
	}
	e->cq_left = 0;
}

void
ft__pk_destroy(struct ft_engine *eng)
{
	struct pk_engine *e;

	if (!eng)
		return;
	e = ft_container_of(eng, struct pk_engine, base);
	if (e->tcp_conns)
		ft__pk_tcp_free(e);
	{
		/* What the engine owns: its arrays and vectors. */
		void *const arrays[] = { e->links,       e->ports_mem,     e->sw_used,
			                 e->pkts,        e->succ,          e->fct,
			                 e->ideal,       e->fct_prio,      e->cls_mem,
			                 e->fct_op,      e->op_acc,        e->op_results,
			                 e->link_bytes,  e->link_maxflows, e->port_counters,
			                 e->trace_links, e->trace_last,    e->traces,
			                 e->trace_cols,  e->vseq,          e->trace_qps,
			                 e->qp_traces,   e->qp_cols,       e->flow_rows,
			                 e->port_slot,   e->cc_slot,       e->plan_owner,
			                 e->refs.n,      e->tcp_conns,     e->lane_rr,
			                 e->qseq };
		struct ft_vec *const vecs[] = { &e->trace_samples, &e->tasks,      &e->flows,
			                        &e->flow_cc,       &e->edges,      &e->paths,
			                        &e->ops,           &e->qp_samples, &e->fslot,
			                        &e->far,           &e->fpath,      &e->tslot,
			                        &e->tfar,          &e->plan_feeds, &e->lane0,
			                        &e->pace_next,     &e->cp_ev,      &e->cp_free };

		pk_evq_release(&e->evq);
		ft__pk_phys_release(e);
		ft__pk_part_free(e);
		ft__pk_lazy_free(e);
		ft__pk_tree_free(e);
		ft__pk_qbins_free(e);
		ft__pk_cq_free(e);
		ft_topo_free(e->topo_up);
		for (size_t i = 0; i < e->flows.len; i++) {
			ft_free(FT_VEC_AT(&e->flows, struct pk_flow, i).ooo_bits);
			if (e->sack)
				ft_free(FT_VEC_AT(&e->flows, struct pk_flow, i).sack_bits);
		}
		ft__free_all(arrays, FT_ARRAY_SIZE(arrays));
		ft__vec_release_all(vecs, FT_ARRAY_SIZE(vecs));
	}
	ft_free(e);
}

const struct ft_engine_ops ft_packet_engine = {
	.name = "packet",
	.summary = "packets through queues and buffers: headers, credits, PFC, drops",
	.create = ft__pk_create,
	.submit = ft__pk_submit,
	.run = ft__pk_run,
	.counters = ft__pk_counters,
	.destroy = ft__pk_destroy,
	.wire_headers = true,
};

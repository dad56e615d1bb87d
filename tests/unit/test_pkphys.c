/* SPDX-License-Identifier: MIT */
/*
 * tests/unit/test_pkphys.c - the packet engine's switch physics against
 * closed forms: the datasheet buffer of a preset sets the dynamic PFC
 * threshold, the IBA congestion control table gives a QP's rate after k
 * BECNs and its timer steps it back, drops are counted per port and
 * priority (and rendered as perfquery and ethtool -S name them), and IB's
 * two-level VL arbitration shares a port as its tables and high limit say.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* cmocka.h needs the headers above it. */
/* clang-format off */
#include <cmocka.h>
/* clang-format on */

#include "source_root.h"

#include <fabtune/fabtune.h>

#include "sim/pkt_int.h"
#include "spec/scenario.h"

#define MIB (1ull << 20)

struct net {
	struct ft_cluster_spec spec;
	struct ft_topo *t;
};

static void
net_build(struct net *n, const char *preset)
{
	struct ft_error err = { 0 };

	assert_int_equal(ft_spec_resolve(preset, &n->spec, &err), 0);
	n->t = NULL;
	if (ft_topo_build(&n->spec, &n->t, &err) != 0)
		fail_msg("%s", err.msg);
}

/* The host link into (@into) or out of NIC vertex @v. */
static uint32_t
host_link(const struct ft_topo *t, uint32_t v, bool into)
{
	for (uint32_t l = 0; l < ft_topo_nlinks(t); l++) {
		const struct ft_link *lk = ft_topo_link(t, l);

		if (lk->kind == FT_L_HOST && (into ? lk->dst : lk->src) == v)
			return l;
	}
	fail_msg("no host link at vertex %u", v);
	return 0;
}

static struct pk_engine *
pk(struct ft_engine *e)
{
	return ft_container_of(e, struct pk_engine, base);
}

/* One op per entry of @ops (flows ends[2i] -> ends[2i + 1], @bytes each, at @prio),
 * submitted together; op o > 0 waits for op o - 1 plus @gap_s when @gap_s > 0. */
struct op_desc {
	const uint32_t *ends;
	uint32_t npairs;
	uint64_t bytes;
	uint8_t prio;
};

static struct ft_engine *
submit_ops(const struct net *n, const struct ft_sim_cfg *cfg, const struct op_desc *ops,
           uint32_t nops, double gap_s)
{
	struct ft_engine *e = NULL;
	struct ft_error err = { 0 };

	if (ft_packet_engine.create(n->t, cfg, &e, &err) != 0)
		fail_msg("create: %s", err.msg);
	for (uint32_t o = 0; o < nops; o++) {
		struct ft_schedule s;
		struct ft_sched_phase ph = { 0 };
		struct ft_sim_op op = { .rank_gpu = ops[o].ends,
			                .after = gap_s > 0 && o > 0 ? (int64_t)o - 1 : -1,
			                .delay_s = gap_s > 0 && o > 0 ? gap_s : 0,
			                .prio = ops[o].prio };

		ft_schedule_init(&s);
		s.op = FT_OP_SENDRECV;
		s.algo = FT_ALGO_DIRECT;
		s.nranks = 2 * ops[o].npairs;
		s.ranks_per_node = 1;
		s.proto_eff = 1;
		s.bytes = ops[o].bytes;
		for (uint32_t i = 0; i < ops[o].npairs; i++) {
			struct ft_sched_flow f = { .src = 2 * i, .dst = 2 * i + 1,
				                   .bytes = ops[o].bytes };

			assert_int_equal(ft_vec_push(&s.flows, &f), 0);
		}
		ph.steps = 1;
		ph.nflows = ph.npairs = ops[o].npairs;
		assert_int_equal(ft_vec_push(&s.phases, &ph), 0);
		op.sched = &s;
		assert_true(ft_packet_engine.submit(e, &op, &err) >= 0);
		ft_schedule_release(&s);
	}
	return e;
}

static void
run_to(struct ft_engine *e, double until_s)
{
	struct ft_error err = { 0 };

	if (ft_packet_engine.run(e, until_s, &err) != 0)
		fail_msg("run: %s", err.msg);
}

/*
 * The sum of counter @key (a perfquery "Key:....N" or an ethtool "key: N" line) over the
 * --counters files of @c whose names start with @prefix.
 */
static uint64_t
counter_sum(const struct net *n, const struct ft_sim_counters *c, const char *prefix,
            const char *key)
{
	struct ft_error err = { 0 };
	struct ft_vec files;
	uint64_t sum = 0;
	size_t klen = strlen(key);

	ft_vec_init(&files, sizeof(struct ft_sim_file));
	assert_int_equal(ft__sim_render_counters(n->t, c, &files, &err), 0);
	for (size_t i = 0; i < files.len; i++) {
		struct ft_sim_file *f = ft_vec_at(&files, i);
		const char *s = f->text;

		while (strncmp(f->name, prefix, strlen(prefix)) == 0 && (s = strstr(s, key))) {
			bool whole = s == f->text || s[-1] == '\n' || s[-1] == ' ';

			s += klen;
			if (whole && (s[0] == ':' || s[0] == '.'))
				sum += strtoull(s + strspn(s, ":. "), NULL, 10);
		}
		ft_free(f->text);
	}
	ft_vec_release(&files);
	return sum;
}

/* ---- 1. datasheet buffers --------------------------------------------------------- */

static void
test_preset_buffers(void **state)
{
	static const struct {
		const char *link;
		uint64_t bytes;
	} want[] = {
		{ "roce100", 16 * MIB }, { "roce200", 42 * MIB },  { "roce400", 64 * MIB },
		{ "roce800", 160 * MIB }, { "spcx400", 160 * MIB }, { "hdr", 0 },
		{ "ndr", 0 },            { "xdr", 0 },             { "efa100", 0 },
	};
	struct ft_cluster_spec spec;
	struct ft_error err = { 0 };

	(void)state;
	for (size_t i = 0; i < FT_ARRAY_SIZE(want); i++) {
		const struct ft_link_preset *lp = ft_link_preset_find(want[i].link);

		assert_non_null(lp);
		assert_int_equal(lp->switch_buffer_bytes, want[i].bytes);
	}
	/* The engine's: the fabric's link preset's, else the HPCC simulator's 32 MiB. */
	assert_int_equal(ft_spec_resolve("hgx-h100-spcx:2", &spec, &err), 0);
	assert_int_equal(ft__pk_switch_buffer(&spec), 160 * MIB);
	assert_int_equal(ft_spec_resolve("dgx-h100:2", &spec, &err), 0);
	assert_int_equal(ft__pk_switch_buffer(&spec), 32 * MIB);
}

/*
 * One RoCE flow into a receiver whose host link runs at half rate, PFC with the dynamic
 * threshold, no congestion control: the queue stands at the receiver's switch, whose only
 * filling ingress buffer holds x bytes of its B; XOFF goes when x >= (B - x) / 8, so every
 * pause is at B / 9 (plus less than one packet). B is the preset's datasheet buffer
 * (Spectrum-4, 160 MB) unless the scenario gives switch_buffer.
 */
static void
test_buffer_sets_pfc_threshold(void **state)
{
	struct net n;
	const uint64_t bufs[2] = { 160 * MIB, 16 * MIB };

	(void)state;
	net_build(&n, "hgx-h100-spcx:2");
	for (int k = 0; k < 2; k++) {
		struct ft_sim_cfg cfg;
		struct ft_packet_cfg pc = { 0 };
		uint32_t ends[2] = { ft_topo_nic(n.t, 1, 0), ft_topo_nic(n.t, 0, 0) };
		struct op_desc op = { ends, 1, 64 * MIB, 3 };
		struct ft_engine *e;
		uint32_t npaused = 0;
		uint64_t b = bufs[k], wire;

		assert_int_equal(ft_topo_set_link_scale(n.t, host_link(n.t, ends[1], true), 0.5), 0);
		ft_sim_cfg_init(&cfg);
		cfg.routing = FT_ROUTING_ECMP;
		pc.fc = FT_PKT_FC_PFC;
		pc.cc = FT_PKT_CC_NONE;
		pc.switch_buffer_bytes = k ? b : 0; /* 0: the preset's */
		cfg.packet = &pc;
		e = submit_ops(&n, &cfg, &op, 1, 0);
		wire = pk(e)->mtu + PK_HDR_ROCE;
		assert_int_equal(pk(e)->sw_limit, b);
		run_to(e, 0);
		for (uint32_t l = 0; l < pk(e)->nlinks; l++) {
			const struct pk_port *p = ft__pk_port(e, l);

			if (!p->cls || !pk_port_cls(pk(e), p, 3)->pause_tx)
				continue;
			npaused++;
			assert_true(pk_port_cls(pk(e), p, 3)->xoff_at >= b / 9 - 8);
			assert_true(pk_port_cls(pk(e), p, 3)->xoff_at < b / 9 + wire);
		}
		assert_true(npaused > 0);
		ft_packet_engine.destroy(e);
	}
	ft_topo_free(n.t);
}

/*
 * PFC pause quanta (IEEE 802.1Qbb, kb ROCE-PFC): an XOFF asks for 0xFFFF quanta of 512 bit
 * times and is refreshed every half of that while the buffer holds XOFF. At 400 Gb/s
 * (20 ps a byte) a quantum is 1.28 ns and the refresh period 65535 x 32 x 20 ps =
 * 41,942,400 ps; a sender held 1 ms gets the XOFF, floor((1e9 - 1) / 41942400) = 23
 * refreshes and the XON: 25 frames (ethtool -S rx_prio3_pause), and is paused exactly
 * the 1 ms between the XOFF and the XON (rx_prio3_pause_duration 1000 us).
 */
static void
test_pfc_quanta_frames(void **state)
{
	struct net n;
	struct ft_sim_cfg cfg;
	struct ft_packet_cfg pc = { 0 };
	struct ft_sim_counters c;
	struct ft_error err = { 0 };
	uint32_t ends[2], l;
	struct op_desc op = { ends, 1, 8 * MIB, 3 };
	struct ft_engine *e;
	const struct pk_cls *q;
	const uint64_t t0 = 1000000, held = 1000000000; /* 1 us, 1 ms */

	(void)state;
	net_build(&n, "hgx-h100-spcx:2");
	ends[0] = ft_topo_nic(n.t, 0, 0);
	ends[1] = ft_topo_nic(n.t, 1, 0);
	l = host_link(n.t, ends[0], false);
	ft_sim_cfg_init(&cfg);
	pc.fc = FT_PKT_FC_PFC;
	pc.cc = FT_PKT_CC_NONE;
	cfg.packet = &pc;
	e = submit_ops(&n, &cfg, &op, 1, 0);
	assert_int_equal(pk(e)->pfc_quanta, 0xFFFF);
	/* The NIC's sender is paused from t0 for 1 ms (frames from the switch, by hand). */
	run_to(e, 0.5e-6);
	assert_int_equal(ev_push(pk(e), t0, PK_EV_PAUSE, l, 1u | 3u << 1), 0);
	assert_int_equal(ev_push(pk(e), t0 + held, PK_EV_PAUSE, l, 3u << 1), 0);
	run_to(e, 0);
	assert_int_equal(pk_pfc_refresh_ps(pk(e), ft__pk_port(e, l)), 41942400);
	q = pk_port_cls(pk(e), ft__pk_port(e, l), 3);
	assert_int_equal(q->pause_rx, 25);
	assert_int_equal(q->paused_ps, held);
	assert_false(q->xoff_rx);
	assert_int_equal(ft_packet_engine.counters(e, &c, &err), 0);
	assert_int_equal(c.port[l].prio[3].pause_rx, 25);
	assert_int_equal(c.port[l].pause_rx, 25);
	assert_true(fabs(c.port[l].prio[3].paused_s - 1e-3) < 1e-15);
	/* XmitWait of priority 3: its data held from the end of the packet on the wire at t0
	 * (at most one of 4,096 + 82 bytes, 83,560 ps) to the XON, the port's as well. */
	assert_true(c.port[l].prio[3].xmit_wait_s <= 1e-3 + 1e-15);
	assert_true(c.port[l].prio[3].xmit_wait_s >= 1e-3 - 83560e-12 - 1e-15);
	assert_true(fabs(c.port[l].prio[3].xmit_wait_s - c.port[l].xmit_wait_s) < 1e-15);
	ft_packet_engine.destroy(e);

	/* Held from t0 and never released: the report counts the refreshes up to the run's
	 * end, 1 + floor((end - t0) / period). */
	pc.pfc_quanta = 10; /* 6,400 ps at 400 Gb/s */
	e = submit_ops(&n, &cfg, &op, 1, 0);
	run_to(e, 0.5e-6);
	assert_int_equal(ev_push(pk(e), t0, PK_EV_PAUSE, l, 1u | 3u << 1), 0);
	run_to(e, 50e-6);
	assert_int_equal(pk_pfc_refresh_ps(pk(e), ft__pk_port(e, l)), 6400);
	assert_int_equal(ft_packet_engine.counters(e, &c, &err), 0);
	assert_int_equal(c.port[l].prio[3].pause_rx, 1 + (pk(e)->now_ps - t0) / 6400);
	assert_true(c.port[l].prio[3].pause_rx > 50);
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/*
 * PFC watchdog action drop, by conservation. The switch's port to NIC 1 gets an XOFF at
 * t0 = 1 us that is never released (its refreshes, every 41.9 us, come sooner than the
 * 50 us restore time: the storm lasts to the end). NIC 0 sends 8 MiB (2,048 packets)
 * to NIC 1 with a 1 s retransmit timeout (nothing is sent twice). At t0 + 10 us the
 * watchdog fires: the queue holds H packets, which it discards; A packets had left it
 * before the pause. Every packet NIC 0 sends after that is discarded as it arrives, so
 * by 400 us (all 2,048 sent at line rate) drops held = H, drops arrived = 2,048 - A - H,
 * the port's drops their sum, no byte of it left in the ingress buffer (the flush gave
 * back what the held packets took, and nothing is taken since) and the NIC not paused. Action alert on the same run: one storm counted, nothing dropped, the queue
 * still paused and holding its packets.
 */
static void
test_pfc_watchdog_drop(void **state)
{
	struct net n;
	struct ft_sim_cfg cfg;
	struct ft_packet_cfg pc = { 0 };
	struct ft_sim_counters c;
	struct ft_error err = { 0 };
	uint32_t ends[2], l, l2;
	struct op_desc op = { ends, 1, 8 * MIB, 3 };
	struct ft_engine *e;
	const struct pk_cls *q, *qn;
	const uint64_t t0 = 1000000; /* ps */
	uint64_t held = 0, before, npk = 8 * MIB / 4096;

	(void)state;
	net_build(&n, "hgx-h100-spcx:2");
	ends[0] = ft_topo_nic(n.t, 0, 0);
	ends[1] = ft_topo_nic(n.t, 1, 0);
	l = host_link(n.t, ends[0], false);
	l2 = host_link(n.t, ends[1], true);
	ft_sim_cfg_init(&cfg);
	pc.fc = FT_PKT_FC_PFC;
	pc.cc = FT_PKT_CC_NONE;
	pc.pfc_watchdog_s = 10e-6;
	pc.pfc_watchdog_restore_s = 50e-6;
	pc.pfc_watchdog_action = FT_PKT_WD_DROP;
	pc.rto_s = 1.0;
	cfg.packet = &pc;
	e = submit_ops(&n, &cfg, &op, 1, 0);
	run_to(e, 0.5e-6);
	assert_int_equal(ev_push(pk(e), t0, PK_EV_PAUSE, l2, 1u | 3u << 1), 0);
	q = pk_port_cls(pk(e), ft__pk_port(e, l2), 3);
	qn = pk_port_cls(pk(e), ft__pk_port(e, l), 3);
	run_to(e, 10.9999e-6);
	assert_true(q->paused);
	assert_true(ft__pk_port(e, l)->in_bytes > 0); /* the ingress buffer holds them */
	for (uint32_t id = q->head; id != PK_NONE; id = pk(e)->pkts[id].next)
		held++;
	before = q->tx_pkts;
	assert_true(held > 100);
	assert_int_equal(ft__pk_port(e, l2)->wd_fires, 0);
	run_to(e, 11.0001e-6);
	assert_int_equal(ft__pk_port(e, l2)->wd_fires, 1);
	assert_int_equal(ft__pk_port(e, l2)->wd_drops_held, held);
	assert_int_equal(q->head, PK_NONE);
	assert_int_equal(pk(e)->nwd_dropping, 1);
	run_to(e, 400e-6);
	assert_int_equal(ft__pk_port(e, l2)->wd_restores, 0);
	assert_int_equal(q->tx_pkts, before);
	assert_int_equal(ft__pk_port(e, l)->tx_pkts, npk);
	assert_int_equal(ft__pk_port(e, l2)->wd_drops_arrived, npk - before - held);
	assert_true(ft__pk_port(e, l2)->wd_drops_arrived > 0);
	/* (the port's drops are its far end's, the NIC's ingress: none; the watchdog's are
	 * the sending side's, and the report adds them to the port's) */
	assert_int_equal(ft__pk_port(e, l2)->drops, 0);
	assert_int_equal(ft__pk_port(e, l)->in_bytes, 0);
	assert_false(qn->paused);
	assert_false(qn->xoff_rx);
	assert_int_equal(ft_packet_engine.counters(e, &c, &err), 0);
	assert_true(c.pfc_watchdog);
	assert_int_equal(c.nwd_drops, npk - before);
	assert_int_equal(c.port[l2].pfc_wd_drops_held, held);
	assert_int_equal(c.port[l2].pfc_wd_drops_arrived, npk - before - held);
	assert_int_equal(c.port[l2].drops, npk - before);
	assert_int_equal(c.port[l2].prio[3].drops, npk - before);
	ft_packet_engine.destroy(e);

	/* alert: counted, not acted on */
	pc.pfc_watchdog_action = FT_PKT_WD_ALERT;
	e = submit_ops(&n, &cfg, &op, 1, 0);
	run_to(e, 0.5e-6);
	assert_int_equal(ev_push(pk(e), t0, PK_EV_PAUSE, l2, 1u | 3u << 1), 0);
	q = pk_port_cls(pk(e), ft__pk_port(e, l2), 3);
	run_to(e, 400e-6);
	assert_int_equal(ft__pk_port(e, l2)->wd_fires, 1);
	assert_int_equal(ft__pk_port(e, l2)->wd_restores, 0);
	assert_true(q->paused && q->wd_storm);
	assert_true(q->head != PK_NONE);
	assert_int_equal(pk(e)->nwd_drops, 0);
	assert_int_equal(pk(e)->ndrops, 0);
	assert_int_equal(q->tx_pkts, before);
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/* The figures of port @l's row in the show pfcwd stats of its switch, read back by the
 * SONiC parser from the --counters transcript: TX/RX LAST OK/DROP into @last. */
static void
pfcwd_last_parsed(const struct net *n, const struct ft_sim_counters *c, uint32_t l,
                  double last[4])
{
	static const char *const keys[4] = { "switch.pfcwd.tx_last_ok", "switch.pfcwd.tx_last_drop",
		                             "switch.pfcwd.rx_last_ok",
		                             "switch.pfcwd.rx_last_drop" };
	struct ft_error err = { 0 };
	struct ft_vec files;
	uint32_t sw = ft_topo_link(n->t, l)->src, first, count, found = 0;
	char name[48], file[64], port[32];

	ft_topo_vertex_name(n->t, sw, name, sizeof(name));
	snprintf(file, sizeof(file), "sonic.%s.txt", name);
	ft_topo_out_links(n->t, sw, &first, &count);
	snprintf(port, sizeof(port), "Ethernet%u", 4 * (l - first));
	ft_vec_init(&files, sizeof(struct ft_sim_file));
	assert_int_equal(ft__sim_render_counters(n->t, c, &files, &err), 0);
	for (size_t i = 0; i < files.len; i++) {
		struct ft_sim_file *f = ft_vec_at(&files, i);
		struct ft_obs_set obs;

		if (strcmp(f->name, file) == 0) {
			assert_non_null(strstr(f->text, " TX LAST OK/DROP  "));
			assert_non_null(strstr(f->text, " RX LAST OK/DROP\n"));
			ft_obs_set_init(&obs);
			if (ft_parse_buffer(f->text, f->len, f->name, NULL, &obs, NULL, &err) != 0)
				fail_msg("%s: %s", f->name, err.msg);
			for (size_t k = 0; k < ft_obs_set_len(&obs); k++) {
				const struct ft_obs *o = ft_obs_set_at(&obs, k);

				for (int j = 0; j < 4; j++)
					if (strcmp(o->key, keys[j]) == 0 &&
					    strcmp(o->device, port) == 0 && o->port == 3) {
						assert_true(o->has_num);
						last[j] = o->num;
						found |= 1u << j;
					}
			}
			ft_obs_set_release(&obs);
		}
		ft_free(f->text);
	}
	ft_vec_release(&files);
	assert_int_equal(found, 0xf);
}

/*
 * The last storm's figures (SONiC's show pfcwd stats TX/RX LAST OK/DROP: what the port
 * sent and its watchdog discarded, and what its switch received from the far end and
 * dropped, from the storm's detection to its restoration), on the run of
 * test_pfc_watchdog_drop. Before the storm: all 0. The storm that lasts to 400 us: sent
 * nothing (the queue discards), dropped every packet that had not left before the
 * pause (2,048 - A); the receive side the differences of the reverse link's arrivals
 * and drops since the detection. The transcript prints them and the parser reads them
 * back as the engine counted them. An XON at 401 us restores the storm 50 us later and
 * freezes its figures; a second XOFF at 470 us is a second storm at 480 us (2 detected, 1
 * restored), which starts them again: its TX LAST DROP is 0 while the run's TX DROP keeps
 * 2,048 - A.
 */
static void
test_pfc_watchdog_last_storm(void **state)
{
	struct net n;
	struct ft_sim_cfg cfg;
	struct ft_packet_cfg pc = { 0 };
	struct ft_sim_counters c;
	struct ft_error err = { 0 };
	uint32_t ends[2], l, l2, r2;
	struct op_desc op = { ends, 1, 8 * MIB, 3 };
	struct ft_engine *e;
	const uint64_t t0 = 1000000, npk = 8 * MIB / 4096; /* ps, packets */
	uint64_t tx0, rx0, rd0, before;
	double parsed[4];

	(void)state;
	net_build(&n, "hgx-h100-spcx:2");
	ends[0] = ft_topo_nic(n.t, 0, 0);
	ends[1] = ft_topo_nic(n.t, 1, 0);
	l = host_link(n.t, ends[0], false);
	l2 = host_link(n.t, ends[1], true);
	r2 = ft_topo_link(n.t, l2)->rev;
	ft_sim_cfg_init(&cfg);
	pc.fc = FT_PKT_FC_PFC;
	pc.cc = FT_PKT_CC_NONE;
	pc.pfc_watchdog_s = 10e-6;
	pc.pfc_watchdog_restore_s = 50e-6;
	pc.pfc_watchdog_action = FT_PKT_WD_DROP;
	pc.rto_s = 1.0;
	cfg.packet = &pc;
	e = submit_ops(&n, &cfg, &op, 1, 0);
	run_to(e, 0.5e-6);
	assert_int_equal(ev_push(pk(e), t0, PK_EV_PAUSE, l2, 1u | 3u << 1), 0);
	run_to(e, 10.9999e-6);
	assert_int_equal(ft_packet_engine.counters(e, &c, &err), 0);
	assert_int_equal(c.port[l2].pfc_wd_fires, 0);
	assert_int_equal(c.port[l2].pfc_wd_last_tx_ok + c.port[l2].pfc_wd_last_tx_drop +
	                         c.port[l2].pfc_wd_last_rx_ok + c.port[l2].pfc_wd_last_rx_drop,
	                 0);
	tx0 = ft__pk_port(e, l2)->tx_pkts;
	rx0 = ft__pk_port(e, r2)->rx_pkts;
	rd0 = ft__pk_port(e, r2)->drops;
	before = pk_port_cls(pk(e), ft__pk_port(e, l2), 3)->tx_pkts;
	run_to(e, 11.0001e-6);
	assert_int_equal(ft__pk_port(e, l2)->wd_fires, 1);
	assert_true(ft__pk_port(e, l2)->wd_open);
	assert_int_equal(ft__pk_port(e, l2)->wd_base[PK_WDL_TX_OK], tx0); /* paused: none sent */
	assert_int_equal(ft__pk_port(e, l2)->wd_base[PK_WDL_TX_DROP], 0);
	run_to(e, 400e-6);
	assert_int_equal(ft__pk_port(e, l)->tx_pkts, npk);
	assert_int_equal(ft_packet_engine.counters(e, &c, &err), 0);
	/* the storm still on: counted to the run's end */
	assert_int_equal(c.port[l2].pfc_wd_last_tx_ok, ft__pk_port(e, l2)->tx_pkts - tx0);
	assert_int_equal(c.port[l2].pfc_wd_last_tx_ok, 0);
	assert_int_equal(c.port[l2].pfc_wd_last_tx_drop, npk - before);
	assert_int_equal(c.port[l2].pfc_wd_last_tx_drop,
	                 c.port[l2].pfc_wd_drops_held + c.port[l2].pfc_wd_drops_arrived);
	assert_int_equal(c.port[l2].pfc_wd_last_rx_drop, ft__pk_port(e, r2)->drops - rd0);
	assert_int_equal(c.port[l2].pfc_wd_last_rx_ok,
	                 ft__pk_port(e, r2)->rx_pkts - rx0 - c.port[l2].pfc_wd_last_rx_drop);
	pfcwd_last_parsed(&n, &c, l2, parsed);
	assert_true(parsed[0] == (double)c.port[l2].pfc_wd_last_tx_ok);
	assert_true(parsed[1] == (double)(npk - before));
	assert_true(parsed[2] == (double)c.port[l2].pfc_wd_last_rx_ok);
	assert_true(parsed[3] == (double)c.port[l2].pfc_wd_last_rx_drop);

	/* restored at 451 us: the figures kept */
	assert_int_equal(ev_push(pk(e), 401000000, PK_EV_PAUSE, l2, 3u << 1), 0);
	run_to(e, 460e-6);
	assert_int_equal(ft__pk_port(e, l2)->wd_restores, 1);
	assert_false(ft__pk_port(e, l2)->wd_open);
	assert_int_equal(ft_packet_engine.counters(e, &c, &err), 0);
	assert_int_equal(c.port[l2].pfc_wd_last_tx_drop, npk - before);

	/* a second storm: its own figures */
	assert_int_equal(ev_push(pk(e), 470000000, PK_EV_PAUSE, l2, 1u | 3u << 1), 0);
	run_to(e, 500e-6);
	assert_int_equal(ft_packet_engine.counters(e, &c, &err), 0);
	assert_int_equal(c.port[l2].pfc_wd_fires, 2);
	assert_int_equal(c.port[l2].pfc_wd_restores, 1);
	assert_int_equal(c.port[l2].pfc_wd_last_tx_drop, 0);
	assert_int_equal(c.port[l2].pfc_wd_drops_held + c.port[l2].pfc_wd_drops_arrived,
	                 npk - before);
	pfcwd_last_parsed(&n, &c, l2, parsed);
	assert_true(parsed[1] == 0);
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/*
 * PFC watchdog restore and pause refresh against hand-computed instants. The NIC's
 * sender at 400 Gb/s gets an XOFF at t0 = 1 us that its buffer never releases: with
 * pfc_refresh 30 us the refreshes reach it at t0 + 30k us. With pfc_watchdog 10 us and
 * pfc_watchdog_restore 25 us:
 *   the watchdog fires at t0 + 10 us + 30k us (paused without a break for 10 us),
 *   the last frame before it came at t0 + 30k us, so it is restored 25 us after that,
 *   at t0 + 25 us + 30k us (before the next refresh, 30 us after the frame),
 *   and that refresh pauses the sender again at exactly t0 + 30 (k + 1) us.
 * To 200 us: fires at 11, 41, ..., 191 us (7) and restores at 26, ..., 176 us (6).
 * With the refresh shorter than the restore time (the default half pause, 41.9 us,
 * against 50 us) the storm is never over while the buffer holds XOFF: one expiry and no
 * restoration until the XON at 100 us, 50 us after which (150 us) it is restored.
 */
static void
test_pfc_watchdog_restore_refresh(void **state)
{
	struct net n;
	struct ft_sim_cfg cfg;
	struct ft_packet_cfg pc = { 0 };
	struct ft_sim_counters c;
	struct ft_error err = { 0 };
	uint32_t ends[2], l;
	struct op_desc op = { ends, 1, 64 * MIB, 3 };
	struct ft_engine *e;
	const struct pk_cls *q;
	const uint64_t t0 = 1000000, us = 1000000; /* ps */

	(void)state;
	net_build(&n, "hgx-h100-spcx:2");
	ends[0] = ft_topo_nic(n.t, 0, 0);
	ends[1] = ft_topo_nic(n.t, 1, 0);
	l = host_link(n.t, ends[0], false);
	ft_sim_cfg_init(&cfg);
	pc.fc = FT_PKT_FC_PFC;
	pc.cc = FT_PKT_CC_NONE;
	pc.pfc_watchdog_s = 10e-6;
	pc.pfc_watchdog_restore_s = 25e-6;
	pc.pfc_refresh_s = 30e-6;
	cfg.packet = &pc;
	e = submit_ops(&n, &cfg, &op, 1, 0);
	assert_int_equal(pk(e)->wd_restore_ps, 25 * us);
	assert_int_equal(pk_pfc_refresh_ps(pk(e), ft__pk_port(e, l)), 30 * us);
	run_to(e, 0.5e-6);
	assert_int_equal(ev_push(pk(e), t0, PK_EV_PAUSE, l, 1u | 3u << 1), 0);
	q = pk_port_cls(pk(e), ft__pk_port(e, l), 3);
	/* fired at 11 us: not paused, ignoring pauses */
	run_to(e, 20e-6);
	assert_false(q->paused);
	assert_int_equal(q->wd_until_ps, UINT64_MAX);
	assert_int_equal(ft__pk_port(e, l)->wd_fires, 1);
	assert_int_equal(ft__pk_port(e, l)->wd_restores, 0);
	/* restored at 26 us, still running free until the refresh at 31 us */
	run_to(e, 30.9e-6);
	assert_false(q->paused);
	assert_int_equal(q->wd_until_ps, 0);
	assert_int_equal(ft__pk_port(e, l)->wd_restores, 1);
	run_to(e, 31.1e-6);
	assert_true(q->paused);
	assert_int_equal(q->t_paused_ps, t0 + 30 * us);
	run_to(e, 200e-6);
	assert_true(pk(e)->now_ps < 201 * us); /* still sending: the op is not over */
	assert_int_equal(ft__pk_port(e, l)->wd_fires, 7);
	assert_int_equal(ft__pk_port(e, l)->wd_restores, 6);
	/* paused 10 us of each 30 us cycle: 7 whole pauses (the last one ended by its
	 * expiry at 191 us, after which the storm holds it unpaused) */
	assert_int_equal(q->paused_ps, 7 * 10 * us);
	assert_int_equal(ft_packet_engine.counters(e, &c, &err), 0);
	assert_int_equal(c.nwatchdog, 7);
	assert_int_equal(c.nwd_restores, 6);
	assert_int_equal(c.port[l].pfc_wd_fires, 7);
	assert_int_equal(c.port[l].pfc_wd_restores, 6);
	ft_packet_engine.destroy(e);

	/* Refresh (default: 65535 quanta x 64 B x 20 ps / 2 = 41,942,400 ps) shorter than
	 * the restore time: no restoration while XOFF holds, one 50 us after the XON. */
	pc.pfc_watchdog_restore_s = 50e-6;
	pc.pfc_refresh_s = 0;
	e = submit_ops(&n, &cfg, &op, 1, 0);
	run_to(e, 0.5e-6);
	assert_int_equal(pk_pfc_refresh_ps(pk(e), ft__pk_port(e, l)), 41942400);
	assert_int_equal(ev_push(pk(e), t0, PK_EV_PAUSE, l, 1u | 3u << 1), 0);
	assert_int_equal(ev_push(pk(e), 100 * us, PK_EV_PAUSE, l, 3u << 1), 0);
	q = pk_port_cls(pk(e), ft__pk_port(e, l), 3);
	run_to(e, 149.9e-6);
	assert_int_equal(ft__pk_port(e, l)->wd_fires, 1);
	assert_int_equal(ft__pk_port(e, l)->wd_restores, 0);
	assert_int_equal(q->wd_until_ps, UINT64_MAX);
	run_to(e, 150.1e-6);
	assert_int_equal(ft__pk_port(e, l)->wd_restores, 1);
	assert_int_equal(q->wd_until_ps, 0);
	assert_false(q->paused);
	ft_packet_engine.destroy(e);

	/* Bad values name their field. */
	pc.pfc_refresh_s = 90e-6; /* the pause at 400 Gb/s is 83.9 us */
	assert_int_not_equal(ft_packet_engine.create(n.t, &cfg, &e, &err), 0);
	assert_non_null(strstr(err.msg, "packet.pfc_refresh"));
	assert_non_null(strstr(err.msg, "83.8848 us"));
	pc.pfc_refresh_s = 0;
	pc.pfc_watchdog_s = 0;
	err = (struct ft_error){ 0 };
	assert_int_not_equal(ft_packet_engine.create(n.t, &cfg, &e, &err), 0);
	assert_non_null(strstr(err.msg, "packet.pfc_watchdog_restore"));
	ft_topo_free(n.t);
}

/*
 * The same run with 1-quantum pauses (a refresh every 640 ps at 400 Gb/s) and with
 * 0xFFFF: the pauses happen at the same instants (the buffer refreshes before the
 * sender's pause runs out), so the run and each sender's paused time are the same; each
 * of E pauses held d_i adds floor((d_i - 1) / R) refreshes, so a port's frames are
 * 2E + sum_i floor((d_i - 1) / R), within E of 2E + paused / R, where the 0xFFFF run's
 * pauses (each shorter than its 42 us period) count 2E. Sent and received agree.
 */
static void
test_pfc_quanta_refresh_count(void **state)
{
	struct net n;
	uint64_t *frames[2], *paused[2];
	uint64_t end_ps[2], npause[2];
	uint32_t nl = 0;

	(void)state;
	net_build(&n, "hgx-h100-spcx:2");
	for (int k = 0; k < 2; k++) {
		struct ft_sim_cfg cfg;
		struct ft_packet_cfg pc = { 0 };
		uint32_t ends[2] = { ft_topo_nic(n.t, 1, 0), ft_topo_nic(n.t, 0, 0) };
		struct op_desc op = { ends, 1, 64 * MIB, 3 };
		struct ft_sim_counters c;
		struct ft_error err = { 0 };
		struct ft_engine *e;
		uint64_t sum = 0;

		assert_int_equal(
		        ft_topo_set_link_scale(n.t, host_link(n.t, ends[1], true), 0.5), 0);
		ft_sim_cfg_init(&cfg);
		cfg.routing = FT_ROUTING_ECMP;
		pc.fc = FT_PKT_FC_PFC;
		pc.cc = FT_PKT_CC_NONE;
		pc.pfc_quanta = k ? 1 : 0;
		cfg.packet = &pc;
		e = submit_ops(&n, &cfg, &op, 1, 0);
		run_to(e, 0);
		assert_int_equal(ft_packet_engine.counters(e, &c, &err), 0);
		nl = pk(e)->nlinks;
		frames[k] = test_calloc(nl, sizeof(uint64_t));
		paused[k] = test_calloc(nl, sizeof(uint64_t));
		for (uint32_t l = 0; l < nl; l++) {
			assert_int_equal(c.port[l].prio[3].pause_tx, c.port[l].prio[3].pause_rx);
			/* one priority: its XmitWait is the port's */
			assert_true(fabs(c.port[l].prio[3].xmit_wait_s - c.port[l].xmit_wait_s) <
			            1e-15);
			if (c.port[l].prio[3].pause_rx)
				assert_true(c.port[l].prio[3].xmit_wait_s > 0);
			frames[k][l] = c.port[l].prio[3].pause_rx;
			if (ft__pk_port(e, l)->cls)
				paused[k][l] = pk_port_cls(pk(e), ft__pk_port(e, l), 3)->paused_ps;
			sum += c.port[l].pause_tx;
		}
		assert_int_equal(sum, c.npause);
		end_ps[k] = pk(e)->now_ps;
		npause[k] = c.npause;
		ft_packet_engine.destroy(e);
	}
	assert_int_equal(end_ps[0], end_ps[1]);
	assert_true(npause[0] > 0);
	assert_true(npause[1] > 100 * npause[0]);
	for (uint32_t l = 0; l < nl; l++) {
		uint64_t e2 = frames[0][l], r = 640; /* 1 quantum x 32 B x 20 ps */

		assert_int_equal(paused[0][l], paused[1][l]);
		assert_int_equal(e2 % 2, 0);
		assert_true(frames[1][l] <= e2 + paused[1][l] / r);
		assert_true(frames[1][l] + e2 / 2 + 1 >= e2 + paused[1][l] / r);
	}
	for (int k = 0; k < 2; k++) {
		test_free(frames[k]);
		test_free(paused[k]);
	}
	ft_topo_free(n.t);
}

/*
 * Lossy RoCE: a queue at a switch takes a packet while it holds no more than alpha x the
 * shared buffer still free (the dynamic threshold). One sender into a receiver whose port
 * runs at half rate fills one ingress queue alone: a packet of wire bytes joins q while
 * q + wire <= alpha (B - q), so the queue tops out within a packet under
 * alpha (B + wire) / (1 + alpha) (about B / 9 at the default alpha 1/8, B / 3 at 1/2),
 * and the overflow drops.
 */
static void
test_lossy_dynamic_threshold(void **state)
{
	struct net n;
	const uint64_t b = 16 * MIB;
	const double alphas[2] = { 0, 0.5 }; /* 0: the default, 1/8 */

	(void)state;
	net_build(&n, "hgx-h100-spcx:2");
	for (int k = 0; k < 2; k++) {
		struct ft_sim_cfg cfg;
		struct ft_packet_cfg pc = { 0 };
		uint32_t ends[2] = { ft_topo_nic(n.t, 1, 0), ft_topo_nic(n.t, 0, 0) };
		struct op_desc op = { ends, 1, 16 * MIB, 3 };
		struct ft_engine *e;
		uint64_t qmax = 0, drops = 0;
		double a = k ? alphas[k] : 1.0 / 8, top, wire;

		if (k == 0)
			assert_int_equal(
			        ft_topo_set_link_scale(n.t, host_link(n.t, ends[1], true), 0.5), 0);
		ft_sim_cfg_init(&cfg);
		cfg.routing = FT_ROUTING_ECMP;
		pc.fc = FT_PKT_FC_NONE;
		pc.cc = FT_PKT_CC_NONE;
		pc.switch_buffer_bytes = b;
		pc.lossy_alpha = alphas[k];
		pc.rto_s = 100e-6;
		cfg.packet = &pc;
		e = submit_ops(&n, &cfg, &op, 1, 0);
		wire = pk(e)->mtu + PK_HDR_ROCE;
		assert_true(pk(e)->lossy_alpha == a);
		run_to(e, 0);
		for (uint32_t l = 0; l < pk(e)->nlinks; l++) {
			const struct pk_port *p = ft__pk_port(e, l);

			if (pk(e)->links[l].sw_dst && p->in_max_bytes > qmax)
				qmax = p->in_max_bytes;
			drops += p->drops;
		}
		top = a * ((double)b + wire) / (1 + a);
		print_message("# lossy alpha %.3f: queue at most %" PRIu64 " B (bound %.0f), %" PRIu64
		              " drops\n",
		              a, qmax, top, drops);
		assert_true((double)qmax <= top);
		assert_true((double)qmax > top - wire);
		assert_true(drops > 0);
		ft_packet_engine.destroy(e);
	}
	ft_topo_free(n.t);
}

/* ---- 2. the congestion control table ---------------------------------------------- */

static struct ft_engine *
ibcc_engine(const struct net *n, struct ft_packet_cfg *pc, const uint32_t *ends)
{
	struct ft_sim_cfg cfg;
	struct op_desc op = { ends, 1, 1 * MIB, 0 };

	ft_sim_cfg_init(&cfg);
	pc->cc = FT_PKT_CC_IBCC;
	cfg.packet = pc;
	return submit_ops(n, &cfg, &op, 1, 0);
}

/*
 * A given table (shift:multiplier): after k BECNs at once the QP's index is k and it sends
 * at line / (1 + multiplier / 2^shift) of entry k (a non-monotone table, so the entry is
 * read, not a formula); CCTI_Timer then steps the index down one per period, to CCTI_Min.
 */
static void
test_cct_given(void **state)
{
	static const uint16_t cct[5] = { 0 << 14 | 0, 0 << 14 | 1, 1 << 14 | 3, 2 << 14 | 5,
		                         3 << 14 | 7 };
	static const double den[5] = { 1, 2, 2.5, 2.25, 1.875 };
	struct net n;
	struct ft_packet_cfg pc = { 0 };
	uint32_t ends[2];
	struct ft_engine *e;
	struct pk_engine *p;
	struct pk_flow *f;
	double line;

	(void)state;
	net_build(&n, "dgx-h100:2");
	ends[0] = ft_topo_nic(n.t, 1, 0);
	ends[1] = ft_topo_nic(n.t, 0, 0);
	memcpy(pc.cct, cct, sizeof(cct));
	pc.ncct = 5;
	pc.ccti_timer_s = 10e-6;
	e = ibcc_engine(&n, &pc, ends);
	p = pk(e);
	line = p->line_Bps;
	f = flow_at(p, 0);
	for (uint32_t k = 1; k <= 6; k++) {
		const struct pk_dcqcn *d = pk_flow_cc(p, f);

		assert_int_equal(ft__pk_ev_cnp(p, 0), 0);
		assert_int_equal(d->ccti, FT_MIN(k, 4u)); /* CCTI_Limit: the last entry */
		assert_true(fabs(d->rc_Bps - line / den[FT_MIN(k, 4u)]) <= 1e-9 * line);
	}
	/* The timer: one step per 10 us since the first BECN (at 0). */
	for (uint32_t j = 1; j <= 5; j++) {
		p->now_ps = (uint64_t)j * 10000000 + 1;
		ft__pk_dcqcn_sent(p, f, 4122);
		assert_int_equal(pk_flow_cc(p, f)->ccti, 4 - FT_MIN(j, 4u));
		assert_true(fabs(pk_flow_cc(p, f)->rc_Bps - line / den[4 - FT_MIN(j, 4u)]) <=
		            1e-9 * line);
	}
	assert_false(pk_flow_cc(p, f)->limited);
	ft_packet_engine.destroy(e);

	/* CCTI_Min 2: the QP sends at its entry's rate from its first packet on, BECNs
	 * raise the index from it and the timer stops there. */
	memset(&pc, 0, sizeof(pc));
	memcpy(pc.cct, cct, sizeof(cct));
	pc.ncct = 5;
	pc.ccti_min = 2;
	e = ibcc_engine(&n, &pc, ends);
	p = pk(e);
	f = flow_at(p, 0);
	ft__pk_dcqcn_sent(p, f, 4122);
	assert_int_equal(pk_flow_cc(p, f)->ccti, 2);
	assert_true(pk_flow_cc(p, f)->limited);
	assert_true(fabs(pk_flow_cc(p, f)->rc_Bps - line / 2.5) <= 1e-9 * line);
	assert_int_equal(ft__pk_ev_cnp(p, 0), 0);
	assert_int_equal(pk_flow_cc(p, f)->ccti, 3);
	p->now_ps = 100000000; /* 100 us: ten periods */
	ft__pk_dcqcn_sent(p, f, 4122);
	assert_int_equal(pk_flow_cc(p, f)->ccti, 2);
	assert_true(fabs(pk_flow_cc(p, f)->rc_Bps - line / 2.5) <= 1e-9 * line);
	assert_true(pk_flow_cc(p, f)->limited);
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/*
 * The built table (the fabric manager's rule): entry i has multiplier
 * floor(i x M / CCTI_Limit) at shift 3, M = 8 x the maximum delay in packet times; by
 * default the maximum is 8 packet times (M = 64): entry 127 sends at line / 9, entry 64 at
 * line / (1 + 32/8) = line / 5, entry 1 (multiplier 0) at line rate. With cct_max_delay
 * 100 us at NDR (a 4122-byte packet takes 82.44 ns), M = floor(8 x 100 us / 82.44 ns).
 */
static void
test_cct_built(void **state)
{
	struct net n;
	struct ft_packet_cfg pc = { 0 };
	uint32_t ends[2];
	struct ft_engine *e;
	struct pk_engine *p;
	double line, t_pkt, m;

	(void)state;
	net_build(&n, "dgx-h100:2");
	ends[0] = ft_topo_nic(n.t, 1, 0);
	ends[1] = ft_topo_nic(n.t, 0, 0);
	e = ibcc_engine(&n, &pc, ends);
	p = pk(e);
	line = p->line_Bps;
	assert_int_equal(p->ncct, 128);
	assert_true(fabs(ft__pk_cct_rate(p, 127) - line / 9) <= 1e-9 * line);
	assert_true(fabs(ft__pk_cct_rate(p, 64) - line / 5) <= 1e-9 * line);
	assert_true(fabs(ft__pk_cct_rate(p, 1) - line) <= 1e-9 * line);
	assert_true(fabs(ft__pk_cct_rate(p, 0) - line) <= 1e-9 * line);
	ft_packet_engine.destroy(e);

	memset(&pc, 0, sizeof(pc));
	pc.cct_max_delay_s = 100e-6;
	e = ibcc_engine(&n, &pc, ends);
	p = pk(e);
	t_pkt = 4122.0 / line;
	m = floor(8 * 100e-6 / t_pkt);
	assert_true(m < 0x3fff);
	assert_true(fabs(ft__pk_cct_rate(p, 127) - line / (1 + m / 8)) <= 1e-9 * line);
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/*
 * The table drives the wire: two InfiniBand flows into one NIC with a two-entry table
 * (0:0, 0:3) and a timer that never fires within the run. The first FECN-marked packets
 * take both QPs to index 1 (the last), where each sends at line / (1 + 3) = line / 4, so
 * each flow's B bytes (and their headers) take B_wire / (line / 4), less the little sent
 * at full rate before the first BECN came back (within 2 %).
 */
static void
test_cct_paces_the_wire(void **state)
{
	struct net n;
	struct ft_sim_cfg cfg;
	struct ft_packet_cfg pc = { 0 };
	struct ft_sim_counters c;
	struct ft_error err = { 0 };
	uint32_t a[2], b[2];
	struct ft_engine *e;
	const uint64_t bytes = 8 * MIB;
	double line, want;

	(void)state;
	net_build(&n, "dgx-h100:4");
	a[0] = ft_topo_nic(n.t, 1, 0);
	b[0] = ft_topo_nic(n.t, 2, 0);
	a[1] = b[1] = ft_topo_nic(n.t, 0, 0);
	ft_sim_cfg_init(&cfg);
	pc.cc = FT_PKT_CC_IBCC;
	pc.cct[0] = 0;
	pc.cct[1] = 0 << 14 | 3;
	pc.ncct = 2;
	pc.ccti_timer_s = 1.0;
	pc.ibcc_threshold_bytes = 1;
	pc.ibcc_marking_rate = 1;
	cfg.packet = &pc;
	{
		struct op_desc ops[2] = { { a, 1, bytes, 0 }, { b, 1, bytes, 0 } };

		e = submit_ops(&n, &cfg, ops, 2, 0);
	}
	run_to(e, 0);
	assert_int_equal(ft_packet_engine.counters(e, &c, &err), 0);
	line = pk(e)->line_Bps;
	want = (double)bytes * (4096.0 + PK_HDR_IB) / 4096.0 / (line / 4);
	assert_true(c.necn > 0);
	assert_true(c.fct_max_s <= want * 1.001 && c.fct_min_s >= want * 0.98);
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/* ---- 3. drops per port and priority ------------------------------------------------- */

/*
 * Lossy InfiniBand (no credits), a switch buffer of S = 4 packets: N single-packet flows
 * from N NICs of one leaf reach the switch at the same instant; S are taken and N - S
 * dropped; the dropped ones time out together and come back to an empty switch, and so
 * on: sum over j >= 1 of max(0, N - jS) drops (N = 15: 11 + 7 + 3 = 21; N = 6: 2). The
 * second op runs at priority 5 after the first (priority 0) is over, so each priority's
 * count is its own. perfquery puts them in the senders' PortXmitDiscards.
 */
static void
test_drops_per_prio(void **state)
{
	struct net n;
	struct ft_sim_cfg cfg;
	struct ft_packet_cfg pc = { 0 };
	struct ft_sim_counters c;
	struct ft_error err = { 0 };
	struct ft_engine *e;
	uint32_t ends[30], k = 0;
	uint64_t d0 = 0, d5 = 0, port_sum = 0, discards = 0;

	(void)state;
	net_build(&n, "dgx-h100:16");
	for (uint32_t node = 1; node < 16; node++) { /* rail 0: one leaf */
		ends[k++] = ft_topo_nic(n.t, node, 0);
		ends[k++] = ft_topo_nic(n.t, 0, 0);
	}
	ft_sim_cfg_init(&cfg);
	cfg.routing = FT_ROUTING_DMODK;
	pc.fc = FT_PKT_FC_NONE;
	pc.cc = FT_PKT_CC_NONE;
	pc.mtu_bytes = 4096;
	pc.switch_buffer_bytes = 4 * (4096 + PK_HDR_IB);
	/* The whole shared buffer binds, not a queue's dynamic share of it. */
	pc.lossy_alpha = 64;
	pc.rto_s = 50e-6;
	cfg.packet = &pc;
	{
		struct op_desc ops[2] = { { ends, 15, 4096, 0 }, { ends, 6, 4096, 5 } };

		e = submit_ops(&n, &cfg, ops, 2, 1e-3);
	}
	run_to(e, 0);
	assert_int_equal(ft_packet_engine.counters(e, &c, &err), 0);
	assert_int_equal(c.nflows, 21);
	assert_int_equal(c.ndrops, 23);
	for (uint32_t l = 0; l < c.nlinks; l++) {
		const struct ft_sim_port_counters *p = &c.port[l];
		uint64_t sum = 0;

		for (int q = 0; q < FT_PKT_NPRIO; q++)
			sum += p->prio[q].drops;
		assert_int_equal(sum, p->drops);
		assert_int_equal(p->drops_corrupt, 0);
		d0 += p->prio[0].drops;
		d5 += p->prio[5].drops;
		port_sum += p->drops;
	}
	assert_int_equal(d0, 21);
	assert_int_equal(d5, 2);
	assert_int_equal(port_sum, 23);
	/* Every port's far end is counted once: the senders' ports and the switch's. */
	discards = counter_sum(&n, &c, "perfquery-x.", "PortXmitDiscards");
	assert_int_equal(discards, 23);
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/*
 * Per-VL XmitWait round trip: two NICs of an InfiniBand leaf send to a third at VL 1 and
 * VL 3 (incast: the leaf's port to it is the bottleneck, which serves VL 3 first, so
 * VL 1 backs up and NIC 1 waits for its credits). --counters appends perfquery --vlxmitcounters to each port's perfquery -x;
 * the perfquery parser reads PortVLXmitWait<k> back as the engine's per-class XmitWait in
 * ns, saturated at 65535 (16-bit IBA counters), and where none saturated the VLs add up
 * to PortXmitWait. 256 KiB each stays below saturation (2.9 us), 8 MiB each goes beyond it.
 */
static void
test_vl_xmit_wait_roundtrip(void **state)
{
	struct net n;

	(void)state;
	net_build(&n, "dgx-h100:4");
	for (int big = 0; big < 2; big++) {
		struct ft_sim_cfg cfg;
		struct ft_packet_cfg pc = { 0 };
		struct ft_sim_counters c;
		struct ft_error err = { 0 };
		struct ft_engine *e;
		struct ft_vec files;
		struct ft_obs_set obs;
		struct ft_run run;
		uint32_t a[2], b[2], src[2];
		const uint64_t bytes = big ? 8 * MIB : 256 * 1024;
		uint32_t nvl = 0, nsat = 0;

		a[0] = src[0] = ft_topo_nic(n.t, 1, 0);
		b[0] = src[1] = ft_topo_nic(n.t, 2, 0);
		a[1] = b[1] = ft_topo_nic(n.t, 0, 0);
		ft_sim_cfg_init(&cfg);
		pc.cc = FT_PKT_CC_NONE;
		cfg.packet = &pc;
		{
			struct op_desc ops[2] = { { a, 1, bytes, 1 }, { b, 1, bytes, 3 } };

			e = submit_ops(&n, &cfg, ops, 2, 0);
		}
		run_to(e, 0);
		assert_int_equal(ft_packet_engine.counters(e, &c, &err), 0);
		ft_vec_init(&files, sizeof(struct ft_sim_file));
		assert_int_equal(ft__sim_render_counters(n.t, &c, &files, &err), 0);
		ft_obs_set_init(&obs);
		ft_run_init(&run, FT_SOURCE_IMPORT, "perfquery");
		for (size_t i = 0; i < files.len; i++) {
			struct ft_sim_file *f = ft_vec_at(&files, i);

			if (strncmp(f->name, "perfquery-x.", 12) == 0) {
				assert_non_null(strstr(f->text, "# PortVLXmitWaitCounters counters: Lid "));
				assert_int_equal(ft_parse_buffer(f->text, f->len, f->name, "perfquery",
				                                 &obs, &run, &err),
				                 0);
			}
			ft_free(f->text);
		}
		ft_vec_release(&files);
		for (int s = 0; s < 2; s++) {
			uint32_t l = host_link(n.t, src[s], false);
			char lid[48];
			double vl[16] = { 0 }, port_wait = -1, sum = 0;
			bool sat = false;

			snprintf(lid, sizeof(lid), "LID %u", src[s] + 1);
			for (size_t i = 0; i < ft_obs_set_len(&obs); i++) {
				const struct ft_obs *o = ft_vec_at(&obs.v, i);
				unsigned k;

				if (strcmp(o->device, lid) != 0 || o->port != 1)
					continue;
				if (sscanf(o->key, "ib.counter.PortVLXmitWait%u", &k) == 1 && k < 16)
					vl[k] = o->num, nvl++;
				else if (strcmp(o->key, "ib.counter.PortXmitWait") == 0)
					port_wait = o->num;
			}
			for (unsigned k = 0; k < 16; k++) {
				uint64_t want = k < FT_PKT_NPRIO ?
				                        (uint64_t)(c.port[l].prio[k].xmit_wait_s * 1e9 + 0.5) :
				                        0;

				assert_true(vl[k] == (double)(want < 0xFFFF ? want : 0xFFFF));
				sat = sat || want >= 0xFFFF;
				sum += vl[k];
			}
			/* NIC 1 sends on VL 1 only, NIC 2 on VL 3 only; the leaf's arbitration
			 * favours VL 3 (strict priority) toward the receiver, so VL 1 backs up
			 * to NIC 1 and VL 3 does not */
			assert_true(vl[s ? 1 : 3] == 0);
			if (s == 0)
				assert_true(vl[1] > 0 && port_wait > 0);
			if (!sat)
				assert_true(fabs(sum - port_wait) <= 1);
			else
				assert_true(port_wait > sum);
			nsat += sat;
		}
		assert_int_equal(nvl, 2 * 16);
		assert_int_equal(nsat, big ? 1 : 0);
		ft_obs_set_release(&obs);
		ft_run_release(&run);
		ft_packet_engine.destroy(e);
	}
	ft_topo_free(n.t);
}

/*
 * Bit errors: every drop is a corrupted packet, counted at the receiving end and its
 * priority. On RoCE ethtool -S shows them as rx_crc_errors_phy, with rx_discards_phy and
 * rx_prio3_discards (buffer drops) at 0; on InfiniBand perfquery's PortRcvErrors has
 * them and PortXmitDiscards nothing.
 */
static void
test_drops_corrupt(void **state)
{
	static const char *const presets[2] = { "hgx-h100-spcx:2", "dgx-h100:2" };

	(void)state;
	for (int ib = 0; ib < 2; ib++) {
		struct net n;
		struct ft_sim_cfg cfg;
		struct ft_packet_cfg pc = { 0 };
		struct ft_sim_counters c;
		struct ft_error err = { 0 };
		struct ft_engine *e;
		uint32_t ends[2];
		struct op_desc op = { ends, 1, 8 * MIB, 3 };
		uint64_t total = 0;

		net_build(&n, presets[ib]);
		ends[0] = ft_topo_nic(n.t, 1, 0);
		ends[1] = ft_topo_nic(n.t, 0, 0);
		ft_sim_cfg_init(&cfg);
		cfg.routing = ib ? FT_ROUTING_DMODK : FT_ROUTING_ECMP;
		pc.ber = 1e-7;
		pc.rto_s = 20e-6;
		cfg.packet = &pc;
		e = submit_ops(&n, &cfg, &op, 1, 0);
		run_to(e, 0);
		assert_int_equal(ft_packet_engine.counters(e, &c, &err), 0);
		assert_true(c.ndrops > 0);
		for (uint32_t l = 0; l < c.nlinks; l++) {
			assert_int_equal(c.port[l].drops_corrupt, c.port[l].drops);
			assert_int_equal(c.port[l].prio[3].drops_corrupt, c.port[l].drops);
			total += c.port[l].drops;
		}
		assert_int_equal(total, c.ndrops);
		if (ib) {
			assert_int_equal(counter_sum(&n, &c, "perfquery-x.", "PortRcvErrors"),
			                 c.ndrops);
			assert_int_equal(counter_sum(&n, &c, "perfquery-x.", "PortXmitDiscards"), 0);
		} else {
			uint32_t rx = host_link(n.t, ends[1], true);

			assert_int_equal(counter_sum(&n, &c, "ethtool-S.n0.nic0.", "rx_crc_errors_phy"),
			                 c.port[rx].drops);
			assert_int_equal(counter_sum(&n, &c, "ethtool-S.", "rx_discards_phy"), 0);
			assert_int_equal(counter_sum(&n, &c, "ethtool-S.", "rx_prio3_discards"), 0);
		}
		ft_packet_engine.destroy(e);
		ft_topo_free(n.t);
	}
}

/* ---- 4. VL arbitration -------------------------------------------------------------- */

/*
 * Two senders into one InfiniBand NIC, one on each of @vl_a and @vl_b, both saturated
 * at the receiver's port: packets of 4070 payload bytes are 4096 on the wire (64
 * credits). Runs 400 us, then returns the packets each VL sent on that port and the
 * arbitration waits there that have ended (@wa, @wb, ps).
 */
static void
vlarb_run(struct ft_packet_cfg *pc, uint8_t vl_a, uint8_t vl_b, uint64_t *na, uint64_t *nb,
          uint64_t *wa, uint64_t *wb)
{
	struct net n;
	struct ft_sim_cfg cfg;
	uint32_t a[2], b[2], rx;
	struct ft_engine *e;
	const struct pk_port *p;

	net_build(&n, "dgx-h100:4");
	a[0] = ft_topo_nic(n.t, 1, 0);
	b[0] = ft_topo_nic(n.t, 2, 0);
	a[1] = b[1] = ft_topo_nic(n.t, 0, 0);
	rx = host_link(n.t, a[1], true);
	ft_sim_cfg_init(&cfg);
	pc->fc = FT_PKT_FC_CREDIT;
	pc->cc = FT_PKT_CC_NONE;
	pc->arb = FT_PKT_ARB_VLARB;
	pc->mtu_bytes = 4070;
	cfg.packet = pc;
	{
		struct op_desc ops[2] = { { a, 1, 4070ull * 20000, vl_a },
			                  { b, 1, 4070ull * 20000, vl_b } };

		e = submit_ops(&n, &cfg, ops, 2, 0);
	}
	run_to(e, 400e-6);
	p = ft__pk_port(e, rx);
	assert_int_equal(pk(e)->mtu + PK_HDR_IB, 4096);
	*na = pk_port_cls(pk(e), p, vl_a)->tx_pkts;
	*nb = pk_port_cls(pk(e), p, vl_b)->tx_pkts;
	*wa = pk_port_cls(pk(e), p, vl_a)->arb_wait_ps;
	*wb = pk_port_cls(pk(e), p, vl_b)->arb_wait_ps;
	ft_packet_engine.destroy(e);
	ft_topo_free(n.t);
}

/*
 * High table {0:4}, low table {1:4}: with high_limit L the high VL sends packets until
 * its bytes since the low one's last chance reach L x 4096 (at least one packet), then one
 * low packet goes: n_H = max(1, ceil(L x 4096 / 4096)) high packets per low packet, the low
 * VL's share 1 / (n_H + 1); 255 never yields. Within one table, weights share in
 * proportion to weight x 64 bytes: 64 and 192 (one and three packets per turn) give 1:3.
 * Both VLs always able to send, each waits for the arbiter while the other sends: its
 * share of the two waits is the other's share of the port (255: the low VL waits all
 * along, the high one never).
 */
static void
test_vlarb_shares(void **state)
{
	static const uint32_t limits[3] = { 0, 4, 255 };
	static const double low_share[3] = { 1.0 / 2, 1.0 / 5, 0 };

	(void)state;
	for (int i = 0; i < 3; i++) {
		struct ft_packet_cfg pc = { 0 };
		uint64_t nh, nl, wh, wl;
		double share;

		pc.vlarb_high[0] = (struct ft_vlarb_entry){ 0, 4 };
		pc.vlarb_low[0] = (struct ft_vlarb_entry){ 1, 4 };
		pc.nvlarb_high = pc.nvlarb_low = 1;
		pc.vlarb_high_limit = limits[i];
		vlarb_run(&pc, 0, 1, &nh, &nl, &wh, &wl);
		share = (double)nl / (double)(nh + nl);
		assert_true(nh + nl > 4000); /* the port ran at line rate */
		assert_true(fabs(share - low_share[i]) <= 4.0 / (double)(nh + nl));
		print_message("# high limit %u: %" PRIu64 " high, %" PRIu64 " low packets; "
		              "arbitration waits %.3f, %.3f us\n",
		              limits[i], nh, nl, (double)wh / 1e6, (double)wl / 1e6);
		assert_true(wl > 0);
		assert_true(fabs((double)wh / (double)(wh + wl) - low_share[i]) <=
		            4.0 / (double)(nh + nl));
	}
	{
		struct ft_packet_cfg pc = { 0 };
		uint64_t n2, n3, w2, w3;

		pc.vlarb_low[0] = (struct ft_vlarb_entry){ 2, 64 };
		pc.vlarb_low[1] = (struct ft_vlarb_entry){ 3, 192 };
		pc.nvlarb_low = 2;
		vlarb_run(&pc, 2, 3, &n2, &n3, &w2, &w3);
		assert_true(n2 + n3 > 4000);
		assert_true(fabs((double)n3 / (double)(n2 + n3) - 0.75) <= 4.0 / (double)(n2 + n3));
		assert_true(fabs((double)w2 / (double)(w2 + w3) - 0.75) <= 4.0 / (double)(n2 + n3));
	}
}

/* vlarb is InfiniBand's: a RoCE fabric refuses it, naming the knob; a VL out of range
 * and a CCT whose size disagrees with ccti_limit are named too. */
static void
test_phys_bad_config(void **state)
{
	struct net n;
	struct ft_sim_cfg cfg;
	struct ft_packet_cfg pc = { 0 };
	struct ft_engine *e = NULL;
	struct ft_error err = { 0 };

	(void)state;
	net_build(&n, "hgx-h100-spcx:2");
	ft_sim_cfg_init(&cfg);
	pc.arb = FT_PKT_ARB_VLARB;
	cfg.packet = &pc;
	assert_int_equal(ft_packet_engine.create(n.t, &cfg, &e, &err), FT_EINVAL);
	assert_null(e);
	assert_non_null(strstr(err.msg, "packet.arbitration: vlarb"));
	ft_error_clear(&err);
	ft_topo_free(n.t);

	net_build(&n, "dgx-h100:2");
	memset(&pc, 0, sizeof(pc));
	pc.arb = FT_PKT_ARB_VLARB;
	pc.vlarb_low[0] = (struct ft_vlarb_entry){ 9, 4 };
	pc.nvlarb_low = 1;
	assert_int_equal(ft_packet_engine.create(n.t, &cfg, &e, &err), FT_ERANGE);
	assert_non_null(strstr(err.msg, "packet.vlarb_low[0]"));
	ft_error_clear(&err);
	memset(&pc, 0, sizeof(pc));
	pc.ncct = 4;
	pc.ccti_limit = 7;
	assert_int_equal(ft_packet_engine.create(n.t, &cfg, &e, &err), FT_EINVAL);
	assert_non_null(strstr(err.msg, "packet.ccti_limit"));
	ft_topo_free(n.t);
}

/* The scenario keys: the tables as OpenSM writes their entries, cc_timeout and cc_window
 * as the IBA knobs, and a bad entry named by file:line:col and index. */
static void
test_scenario_keys(void **state)
{
	static const char good[] = "name: t\n"
	                           "cluster: dgx-h100:2\n"
	                           "packet:\n"
	                           "  congestion_control: ibcc\n"
	                           "  cct: [\"0:0\", \"1:3\", \"3:16383\"]\n"
	                           "  ccti_min: 1\n"
	                           "  cc_timeout: 20us\n"
	                           "  cc_window: 2\n"
	                           "  arbitration: vlarb\n"
	                           "  vlarb_high: [\"0:4\"]\n"
	                           "  vlarb_low: [\"1:64\", \"2:192\"]\n"
	                           "  vlarb_high_limit: 4\n"
	                           "background:\n"
	                           "  - pattern: incast\n"
	                           "    size: 1MB\n"
	                           "    hosts: 4\n"
	                           "    target: 0\n"
	                           "    priority: 1\n";
	static const char bad[] = "name: t\n"
	                          "cluster: dgx-h100:2\n"
	                          "packet:\n"
	                          "  cct: [\"0:0\", \"4:1\"]\n";
	struct ft_scenario *sc = NULL;
	struct ft_error err = { 0 };
	const struct ft_packet_cfg *pc;

	(void)state;
	if (ft_scenario_load_buffer(good, sizeof(good) - 1, "good.yaml", &sc, &err) != 0)
		fail_msg("%s", err.msg);
	pc = &sc->packet;
	assert_int_equal(pc->ncct, 3);
	assert_int_equal(pc->cct[1], 1u << 14 | 3);
	assert_int_equal(pc->cct[2], 3u << 14 | 16383);
	assert_int_equal(pc->ccti_min, 1);
	assert_true(fabs(pc->ccti_timer_s - 20e-6) < 1e-12);
	assert_int_equal(pc->ccti_limit, 2);
	assert_int_equal(pc->arb, FT_PKT_ARB_VLARB);
	assert_int_equal(pc->nvlarb_high, 1);
	assert_int_equal(pc->nvlarb_low, 2);
	assert_int_equal(pc->vlarb_low[1].vl, 2);
	assert_int_equal(pc->vlarb_low[1].weight, 192);
	assert_int_equal(pc->vlarb_high_limit, 4);
	ft_scenario_free(sc);
	sc = NULL;
	assert_int_equal(ft_scenario_load_buffer(bad, sizeof(bad) - 1, "bad.yaml", &sc, &err),
	                 FT_EPARSE);
	assert_null(sc);
	assert_non_null(strstr(err.msg, "bad.yaml:4:"));
	assert_non_null(strstr(err.msg, "packet.cct[1]: expected shift:multiplier"));
	assert_non_null(strstr(err.msg, "'4:1'"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_preset_buffers),
		cmocka_unit_test(test_buffer_sets_pfc_threshold),
		cmocka_unit_test(test_pfc_quanta_frames),
		cmocka_unit_test(test_pfc_quanta_refresh_count),
		cmocka_unit_test(test_pfc_watchdog_restore_refresh),
		cmocka_unit_test(test_pfc_watchdog_drop),
		cmocka_unit_test(test_pfc_watchdog_last_storm),
		cmocka_unit_test(test_lossy_dynamic_threshold),
		cmocka_unit_test(test_cct_given),
		cmocka_unit_test(test_cct_built),
		cmocka_unit_test(test_cct_paces_the_wire),
		cmocka_unit_test(test_drops_per_prio),
		cmocka_unit_test(test_vl_xmit_wait_roundtrip),
		cmocka_unit_test(test_drops_corrupt),
		cmocka_unit_test(test_vlarb_shares),
		cmocka_unit_test(test_phys_bad_config),
		cmocka_unit_test(test_scenario_keys),
	};

	ft_test_enter_source_root();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

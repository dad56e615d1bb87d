/* SPDX-License-Identifier: MIT */
/*
 * sim/pkt_int.h - internals of the packet engine (engine_packet.c), shared
 * with its unit tests: the event heap, packets, ports and flows.
 *
 * Time is integer picoseconds. Events are fixed-size records in a queue
 * ordered by (time, sequence) (pkt_evq.h), so ties pop in the order they
 * were queued and a run is deterministic. Packets live in one pool with a free
 * list: the event loop allocates nothing per packet. Every directed link of
 * the topology is a port: per priority, a FIFO of packets waiting to leave
 * on it (linked through the pool), the flows whose first link it is (a
 * round-robin ring: a NIC packetises lazily, only when its port is free) and
 * its flow-control state toward the next vertex; and its counters.
 */
#ifndef FT_PKT_INT_H
#define FT_PKT_INT_H

#include "pkt_evq.h"
#include "sim_int.h"

#include <fabtune/model.h>
#include <fabtune/rng.h>
#include <fabtune/sim.h>

#define PK_NONE UINT32_MAX

/* Task ids from here on name a task of a lazy phase (an NVLS tree, a tree or a ring) not
 * built yet (pkt_tree.c): a
 * message, a switch's lag barrier or a QP's next-message barrier. Built tasks stay below. */
#define PK_VIRT 0x80000000u

/* Random stream kinds of RED marking and bit errors (ft_rng_stream(kind, port)). */
#define PK_RNG_ECN 0x65636e6du
#define PK_RNG_BER 0x62657272u

enum pk_ev_type {
	PK_EV_TX_DONE, /* port id: its packet's last bit left */
	PK_EV_ARRIVE,  /* packet id: ready at its next port, or delivered */
	PK_EV_TASK,    /* task id: a barrier's wait is over */
	PK_EV_CREDIT,  /* port id, aux blocks: credits back from downstream */
	PK_EV_PAUSE,   /* port id, aux 1 XOFF / 0 XON: a PFC frame reaches the sender */
	PK_EV_NAK,     /* flow id, aux packet: the receiver asks to go back */
	PK_EV_RTO,     /* flow id, aux generation: retransmit timer */
	PK_EV_CNP,     /* flow id: a CNP reaches the sender (DCQCN reaction point) */
	PK_EV_WAKE,    /* port id: a rate-limited flow may send again */
	PK_EV_TRACE,   /* sample the traced ports */
	PK_EV_WDOG,    /* port id: PFC watchdog check */
	PK_EV_RTT,     /* flow id, aux RTT in ns: a TIMELY completion sample reaches the sender */
	PK_EV_FC_FLUSH, /* port id, aux priority: the credit update in flight landed (at dst) */
	PK_EV_ACK,      /* flow id, aux packet: a cumulative ACK reaches the sender (lossy) */
	PK_EV_PRED,     /* task id (a flow): a clear-to-send from the receiver it waits for */
	PK_EV_QP_END,   /* NIC port id: a flow's end reaches its sending NIC (nic_qp_cache) */
};


struct pk_pkt {
	uint64_t tail_ps;   /* when its last bit reaches the vertex it is at */
	uint64_t t_sent_ps; /* when its source put it on the wire (TIMELY's RTT) */
	uint32_t flow;
	uint32_t seq;      /* packet index within the flow */
	uint32_t next;     /* in a port FIFO or the free list */
	uint32_t link;     /* link it last crossed (its ingress buffer), PK_NONE at the source */
	uint32_t dst;      /* its flow's destination vertex, */
	uint32_t path_off; /* and path (PK_NONE: routed per hop), copied so that a hop
	                    * does not read the flow */
	uint16_t payload;  /* payload bytes (<= 65535: MTUs are at most 9000) */
	uint8_t hop;       /* links crossed */
	uint8_t flags;     /* PK_F_* */
};

#define PK_F_CORRUPT 1u /* a bit error: the receiver drops it */
#define PK_F_CE      2u /* ECN congestion experienced */
#define PK_F_DOWN    8u /* sent onto a link that is down: lost */
#define PK_F_PRIO_SHIFT 4 /* bits 4-6: its priority */

static inline uint32_t
pk_prio(const struct pk_pkt *k)
{
	return (uint32_t)(k->flags >> PK_F_PRIO_SHIFT) & 7u;
}

/* DCQCN state of one QP (the reaction point) and its receiver (the notification point). */
struct pk_dcqcn {
	double rc_Bps, rt_Bps; /* current and target rate */
	double alpha;
	uint64_t t_alpha_ps;    /* alpha updated for the periods before this (0: no CNP yet) */
	uint64_t t_last_dec_ps; /* last rate decrease (TIMELY: last rate update) */
	uint64_t t_timer_ps;    /* increase timer started */
	uint64_t bytes_since;   /* byte counter */
	uint32_t it, ib;        /* increase events by timer and by bytes since the last cut */
	uint64_t t_last_tx_ps;  /* pacing: the last packet left then, */
	uint32_t last_wire;     /* with this many bytes */
	uint32_t srtt_ns;       /* SRD: RFC 6298's smoothed RTT (0: no sample yet), */
	uint64_t t_last_cnp_ps; /* receiver: last CNP sent */
	bool cnp_sent;
	bool limited;                  /* rate below line rate */
	uint32_t ccti;                 /* IB CC: the congestion control table index */
	double prev_rtt_s, rtt_diff_s; /* TIMELY; SRD: prev_rtt_s the lowest RTT seen */
	uint32_t hai_n;
	uint32_t rttvar_ns; /* SRD: and its RTTVAR (srd_rtt_est(), pkt_cc.c) */
};
/* (one per flow of a paced run: the memory figures of sim-log.md count 120 bytes) */
_Static_assert(sizeof(struct pk_dcqcn) == 120, "struct pk_dcqcn grew: a record per flow");

/*
 * One priority (traffic class, VL) of a port: its egress queue and sourced flows, and
 * its own flow control: PFC pauses and IB credits are per priority (kb ROCE-QOS, IB-VL).
 */
struct pk_cls {
	/* First cache line (the records are 64-byte aligned): what a packet's queueing,
	 * transmission and arrival touch. */
	_Alignas(64) uint32_t head; /* FIFO of transit packets */
	uint32_t tail;
	uint32_t ring;       /* flows sourced here with packets to send (circular, last one) */
	uint32_t nring;
	uint32_t wrr_sent; /* packets sent in its current WRR turn */
	bool paused;       /* PFC XOFF received for this priority */
	bool xoff_sent;    /* the ingress buffer asked the sender to stop this priority */
	bool turn_src;     /* the next pick in the class favours the sourced flows */
	bool fc_flush;     /* credits freed while an update is in flight: one follows it */
	int64_t credits;   /* IB: 64-byte blocks the downstream buffer (this VL) still has */
	uint64_t in_bytes; /* bytes of this priority in the ingress buffer at the link's dst */
	uint64_t tx_bytes, tx_pkts;
	uint64_t xoff_at; /* the level it paused at */
	/* The rest: credit updates (at the link's dst: blocks freed, of which sent, when the
	 * update in flight lands), pause accounting. */
	uint64_t fc_freed, fc_snap, fc_until;
	/* wd_until_ps: while now is below it the watchdog has the sender ignore pauses
	 * (UINT64_MAX from a storm's detection to its restoration). */
	uint64_t t_paused_ps, paused_ps, wd_until_ps;
	bool wd_storm; /* the watchdog found it stormed and has not restored it (any action) */
	/* PFC frames of this priority: sent by the buffer at dst (XOFF, its refreshes and
	 * XON), received by the sender, as ethtool -S tx/rx_prio<p>_pause count them; the
	 * buffer's XOFF went out at t_xoff_ps, the sender's last XOFF came in at
	 * t_xoff_rx_ps (xoff_rx: no XON since). */
	uint64_t pause_tx, pause_rx;
	uint64_t t_xoff_ps, t_xoff_rx_ps;
	uint64_t t_frame_rx_ps; /* the last XOFF or XON that reached the sender */
	bool xoff_rx;
	/* XmitWait of this priority: time it had a packet to send that its flow control
	 * (credits, a pause) held, as arbitration found it; held since t_held_ps. */
	bool held;
	uint64_t t_held_ps, xmit_wait_ps;
	/* Arbitration wait of this priority: time it could send (a packet, its flow control
	 * letting it) while its port sent another priority's packet; waiting since t_arb_ps
	 * while its bit is set in the port's arb_wait (arb_wait_open()). */
	uint64_t t_arb_ps, arb_wait_ps;
	uint64_t drops, drops_corrupt; /* dropped at the link's dst: all, of which bit errors */
	uint64_t wd_drops; /* discarded by the watchdog while stormed (action drop): the sending
	                    * side's, apart from drops (added to them in the report) */
	/* Congestion signals of this priority: CE marks its egress queue set, CNPs handled by
	 * the senders whose NIC the port leaves; at the link's dst (a receiving NIC) the CE
	 * packets delivered and the CNPs sent back. Their sums are the port's. */
	uint64_t ecn_marks, cnp_handled, ecn_rx, cnp_sent;
	/* Its own queue depth record (struct pk_cq), NULL until the port's queue is shared
	 * (pk_port q_solo) and this priority has queued there since. */
	struct pk_cq *cq;
};

/*
 * A priority's own egress queue depth at a port, kept only where a second priority has
 * queued (pk_port q_solo): bytes of its FIFO, their time integral, the largest, and the
 * histogram as the port's (bin 0 here, bins 1 to PK_QBINS - 1 from the engine's pool
 * when first needed). Its time starts, as the port's, at the run's start.
 */
struct pk_cq {
	uint64_t q_bytes;
	double q_area;
	uint64_t t_q_ps, q_max_bytes, q_hist0;
	uint64_t *q_bins;
};

/* pk_port q_solo: no priority has queued at the port yet, or more than one has. */
#define PK_QSOLO_NONE  0u
#define PK_QSOLO_SHARED 0xffu

/*
 * A port's egress queue depth, time-weighted, in bounded memory: the picoseconds it spent
 * in each of PK_QBINS bins of depth. Bin 0 is an empty queue; bins 1 to 4 are 256 bytes
 * wide up to 1,023 bytes; from 1,024 bytes on, four bins an octave ([2^e (4 + s) / 4,
 * 2^e (5 + s) / 4), s = 0..3), so that a depth read back as its bin's upper edge is at
 * most 255 bytes above the true one below 1,024 bytes and less than a quarter above it
 * from there; the last bin, from 96 MiB, is open (its edge is the queue's largest). Bin 0
 * lives in the port record; bins 1 to PK_QBINS - 1 (568 bytes) come from the engine's
 * pool (ft__pk_qbins_new) when the port first spends time with a queue, which most ports
 * of a permutation never do: a packet that finds its port idle leaves at the instant it
 * lands.
 */
#define PK_QBINS 72u

static inline uint32_t
pk_qbin(uint64_t v)
{
	uint32_t lg, b;

	if (v < 1024)
		return v ? 1 + (uint32_t)(v >> 8) : 0;
	lg = 63u - (uint32_t)__builtin_clzll(v);
	b = 5 + (lg - 10) * 4 + (uint32_t)((v >> (lg - 2)) & 3u);
	return b < PK_QBINS ? b : PK_QBINS - 1;
}

/*
 * Per directed link: a port at its source vertex and an ingress buffer at its destination.
 * The ports are 64-byte aligned, so that the first line of each is one cache line.
 */
struct pk_port {
	/* First cache line: what every packet's transmission and arrival touch, the link's
	 * own figures included (copies of its struct pk_link's, made at the start: a hop
	 * then reads one line of the port rather than one of each array). */
	_Alignas(64) uint64_t q_bytes; /* bytes in the FIFOs (wire size on this link) */
	uint64_t in_bytes; /* bytes held in the ingress buffer at the link's destination */
	uint64_t lat_ps;    /* = links[l].lat_ps */
	double ps_per_byte; /* = links[l].ps_per_byte */
	uint32_t rel_link;  /* packet on the wire: ingress it frees at TX_DONE, its size */
	uint32_t rel_bytes;
	uint32_t src, dst; /* = links[l].src, dst */
	uint16_t hdr;      /* = links[l].hdr */
	uint8_t net;       /* = links[l].net */
	uint8_t sw_dst;    /* = links[l].sw_dst */
	uint8_t rel_prio;  /* and priority */
	uint8_t wrr_cur;   /* the priority whose WRR turn it is */
	uint8_t npaused;   /* priorities paused now */
	bool busy;
	bool blocked;    /* has data but flow control holds it */
	bool wake_pending;
	uint8_t cls_live; /* bit c: priority c has transit packets or sourced flows (its
	                   * record is read only then) */
	uint8_t nic; /* a NIC's port onto the fabric: its send pipeline is timed */
	uint8_t arb_wait; /* bit c: priority c waits for the arbiter (struct pk_cls) */
	/* Whose bytes its queue figures (q_area, q_max_bytes, the histogram) count:
	 * PK_QSOLO_NONE before any packet queued; 1 + p while only priority p ever queued
	 * here, so that the port's figures are exactly priority p's and no priority keeps
	 * its own; PK_QSOLO_SHARED from the moment a second priority first queues. That
	 * moment the port's figures so far become the first priority's record (struct
	 * pk_cq: every byte queued until then was its), the new one's starts empty over the
	 * time so far, and from then on each priority's record follows its own FIFO (any
	 * priority that first queues later starts the same way). A port that only ever
	 * carries one priority, most runs' every port, keeps one histogram. */
	uint8_t q_solo;
	/* Second line: the per-packet counters. */
	/* Per priority in use, from the engine's cls_pool once the run starts (pause
	 * frames: sent by the buffer at dst, received by the sender). */
	struct pk_cls *cls;
	uint64_t tx_bytes, tx_payload, tx_pkts;
	double q_area; /* integral of q_bytes over time, byte-ps */
	uint64_t t_q_ps;
	uint64_t q_max_bytes, in_max_bytes;
	/* The rest: flow-control bookkeeping and rarer counters. */
	int64_t credit_cap; /* the buffer behind each priority's credits, blocks */
	uint64_t t_blocked_ps, t_wake_ps; /* since when (accounting) */
	uint64_t drops, ecn_marks;
	uint64_t xmit_wait_ps;
	uint32_t nactive, maxflows; /* flows routed over it now / at most */
	uint32_t nqps; /* NIC port: flows it sends whose end has not come back (their QPs) */
	uint64_t wd_fires, wd_restores; /* PFC watchdog: storms detected, restored */
	uint64_t wd_drops_held, wd_drops_arrived; /* and (action drop) packets discarded */
	/* The last storm on the port (SONiC pfcwd's LAST counters, kb ROCE-PFC): at its
	 * detection the packets sent and discarded by the watchdog here, and received and
	 * dropped at the ingress buffer of the reverse link (wd_base, PK_WDL_*); at its
	 * restoration the differences (wd_last); wd_open while it lasts. */
	uint64_t wd_base[4], wd_last[4];
	bool wd_open;
	uint64_t rx_pkts; /* packets that reached the link's destination (receiving side) */
	uint64_t nic_free_ps; /* NIC port: when its send pipeline takes the next message */
	uint32_t fecn_skip;                     /* IB CC: congested packets since the last mark */
	uint64_t cnp_sent, cnp_handled, ecn_rx; /* NIC side: NP CNPs sent, RP CNPs handled,
	                                         * CE packets received (at the link's dst) */
	uint64_t qp_timeouts, qp_retry_exc; /* NIC side, requester: retransmit timeouts of
	                                     * its QPs, and QPs that ran out of retries */
	uint64_t qp_naks; /* NIC side, requester: sequence NAKs its QPs received */
	uint64_t rq_oos, rq_dup, rq_writes; /* NIC side, responder (at the link's dst): packets
	                                     * past a gap, duplicates, messages received */
	/* Its queue's depth over time (pk_qbin): the picoseconds empty (bin 0), and bins 1
	 * to PK_QBINS - 1 at q_bins[b - 1], NULL while no time was spent in them (pk_qhist). */
	uint64_t q_hist0;
	uint64_t *q_bins;
};

enum pk_task_kind {
	PK_T_FLOW,
	PK_T_BARRIER,
	PK_T_A2A,     /* a lazy all-to-all phase: starting it starts its first sends */
	PK_T_A2A_END, /* a barrier: the end of one of its sends (flow: the send's slot) */
	PK_T_A2A_CTS, /* a barrier: its receiver's clear-to-send reaching the next sender
	               * (flow: the send's slot) */
	PK_T_TREE,    /* a lazy NVLS tree, tree or ring phase: starting it starts its first
	               * messages (flow: the phase) */
};

/*
 * A critical path's time so far, split as a profiler's critical-path analysis splits a
 * program's (the chain of dependent work and waits that set an end, each step back the
 * wait that was over last). pace_ps: what a pace held (a pace barrier's period,
 * ft__pk_pace_tasks() and send_pace(); a lazy phase's loop pace; an LL chain's message
 * waiting rank_ps after the one before started, pkt_tree.c rank_edge()). A message's time
 * on it (from its start to its end, or to its last packet leaving the NIC where the next
 * message on its QP waited for that) is charged whole to what it waited on (pk_cp_msg()):
 * chain_ps where it took no longer than its op's cap lets it (its bytes at the cap's rate,
 * its path latency and its packets' pipeline fill), with the path latency a clear-to-send
 * takes back; fab_ps where it took longer, held by a link slower than the cap or by its
 * ports' queues. Other
 * barriers' time (a phase's cost, a launch) is none of them. Carried forward: a task
 * takes the path of the wait that let it start (pkt_flow.c start_task()), an event that
 * tells a wait later carries its own (ft__pk_cp_arg()), so nothing is walked back.
 */
struct pk_cp {
	uint64_t pace_ps, chain_ps, fab_ps;
};

/* The most paths events under way carry (an event's argument: 28 bits, ev_push(), less
 * the 0 that carries none). */
#define PK_CP_SLOTS (1u << 28)

struct pk_task {
	struct pk_cp cp; /* the critical path to its start */
	uint64_t delay_ps; /* (a flow's: its pace after the message before, ft__pk_pace_next()) */
	uint64_t pred_lat_ps; /* the longest path latency among its finished predecessors */
	uint64_t t_start_ps, t_done_ps;
	double lat_mult;
	uint32_t npred;
	uint32_t succ_off, nsucc;
	uint32_t flow; /* PK_T_FLOW */
	uint32_t op;
	uint8_t kind;
	uint8_t done;
	uint8_t lazy; /* a lazy phase's: its successors are named by pkt_tree.c */
	/* PK_T_FLOW: its last packet has left the NIC (its QP's next message told once: a
	 * go-back-N resend of the tail tells it no more) */
	uint8_t sent : 1;
	uint8_t pace : 1; /* a barrier a pace's period holds (struct pk_cp) */
};

/* DCQCN's alpha where a QP starts (initial_alpha_value 1023 of 1024, kb CC-DCQCN). */
#define PK_DCQCN_ALPHA0 (1023.0 / 1024)

/* Packets per cumulative ACK of a lossy run (coalesced, as RC responders do; the count is
 * ours, no public figure gives ConnectX's): only the retransmit timer reads them. */
#define PK_ACK_SEG 16u

/* SRD's sender's words ahead of its marks (struct pk_flow sack_bits): one past the
 * highest packet it has put on the wire, set at its first resend (0 before); the packets
 * below it a recovery pass went over or was told to (no gap hint resends them again); the
 * end of the pass under way, after which it goes on from PK_SACK_MAX. */
#define PK_SACK_MAX  0
#define PK_SACK_HINT 1
#define PK_SACK_END  2
#define PK_SACK_TACK 3 /* when its last ACK came (the tail-loss probe, srd_probe()) */
#define PK_SACK_HDR  4

/*
 * SRD's gap hint (engine_packet.c sack_hint()): a packet that no ACK has named when one
 * names a packet this many places after it is taken as lost. Our choice: the SRD paper
 * (Shalev et al., IEEE Micro 2020) says the sender resends quickly but publishes no
 * figure; 64 is two ports' default lossy room (32 wire MTUs each) of reordering, more
 * than spraying over the least queued ports makes on an idle fabric.
 */
#define PK_SRD_REORDER 64u

/* Retransmit timer events (PK_EV_RTO): the flow's timer generation in the low bits, and
 * PK_RTO_PROBE set for SRD's tail-loss probe (srd_probe()) or TCP's RACK reordering timer,
 * PK_RTO_TLP for TCP's tail-loss probe (tcp_tlp()), which share the generation. */
#define PK_RTO_GEN   0x03ffffffu
#define PK_RTO_TLP   0x04000000u
#define PK_RTO_PROBE 0x08000000u
#define PK_TMR_TLP   1u
#define PK_TMR_REO   2u

/*
 * TCP (GPUDirect-TCPX/O, pkt_tcp.c): the sender's state of one connection (a QP of the
 * flow engine's numbering between two endpoints), which the messages it carries share
 * one after the other: CUBIC's window (RFC 9438) with slow start (RFC 5681 3.1, an
 * initial window of 10, RFC 6928), NewReno's fast recovery (RFC 6582), and the round-trip
 * estimate of RFC 6298. Windows in packets. Kept in an open-addressed table by key.
 */
#define PK_TCP_IW      10.0 /* RFC 6928: initial window, segments */
#define PK_CUBIC_C     0.4  /* RFC 9438 4.2 */
#define PK_CUBIC_BETA  0.7  /* RFC 9438 4.6 */
#define PK_TCP_DUPACKS 3u   /* RFC 5681 3.2: duplicate ACKs that start fast retransmit */
/*
 * The receiver's ACKs (pkt_tcp.c ft__pk_tcp_rx()). Delayed ACKs (RFC 1122 4.2.3.2, RFC
 * 5681 4.2, packet.tcp_delayed_ack): an ACK at least every PK_TCP_ACK_SEG full-sized
 * packets in order, else when the delayed-ACK timer fires, PK_TCP_DELACK_S after the
 * first packet it leaves unacknowledged (Linux's TCP_DELACK_MIN, HZ / 25); Linux's
 * quick-ACK mode acknowledges the first PK_TCP_QUICKACKS packets of a connection each
 * at once (TCP_MAX_QUICKACKS), and PK_TCP_QUICKACKS again after in-order data comes
 * more than the receiver's RTO after the last. A packet past a gap, a duplicate, or one
 * that fills a gap or part of one (packets past it held) is acknowledged at once. Without
 * delayed ACKs, every packet at once.
 */
#define PK_TCP_ACK_SEG   2u
#define PK_TCP_DELACK_S  40e-3
#define PK_TCP_QUICKACKS 16u
/* Linux's internal pacing (net.ipv4.tcp_pacing_ss_ratio, tcp_pacing_ca_ratio): the rate
 * is this many percent of cwnd x MSS / SRTT, the first while cwnd < ssthresh / 2. */
#define PK_TCP_PACE_SS 200.0
#define PK_TCP_PACE_CA 120.0
/* A TCP ACK event's argument: the cumulative ACK (rcv_nxt), or with PK_ACK_SACK the one
 * packet past a gap it selectively acknowledges (its cumulative ACK is the last one
 * sent: ACKs are not lost and keep their order), PK_ACK_DELAY when the delayed-ACK
 * timer sends it (stale, and ignored, when an ACK went out since), and PK_ACK_DSACK when
 * it answers a duplicate (RFC 2883's D-SACK: the packet came twice). Flows of more than
 * PK_ACK_SEQ packets send plain cumulative ACKs at once. */
#define PK_ACK_SACK  0x08000000u
#define PK_ACK_DELAY 0x04000000u
#define PK_ACK_DSACK 0x02000000u
#define PK_ACK_SEQ   0x01ffffffu

struct pk_tcp {
	uint64_t key; /* 0: a free slot */
	double cwnd, ssthresh, rwnd;
	double inflate; /* NewReno: duplicate ACKs counted into the window in recovery */
	/* CUBIC: the window before the last cut, the Reno-friendly estimate, K (s), and
	 * the start of the congestion avoidance stage under way (epoch) */
	double w_max, w_est, k_s;
	double prior; /* the window before the last cut (cwnd_prior, RFC 9438 4.3) */
	uint64_t t_epoch_ps;
	bool epoch;
	/* Linux's round-trip estimator (tcp_rtt_estimator(), net/ipv4/tcp_input.c): SRTT (0:
	 * no sample yet), the mean deviation times four (mdev), its highest in the round
	 * trip under way (mdev_max, from rto_min_ps up), and rttvar, what the RTO adds to
	 * SRTT: at least rto_min_ps (the floor, TCP_RTO_MIN), decaying towards mdev_max a
	 * quarter of the gap per round trip */
	uint64_t srtt_ps, rttvar_ps, mdev_ps, mdev_max_ps, rto_min_ps;
	uint64_t t_timed_ps;         /* the timed packet left then (Karn: first sends only) */
	uint64_t rtx_ps; /* its first resend by a timeout since an ACK last moved a flow's
	                  * snd_una (Linux's retrans_stamp); 0: none */
	uint32_t timed_flow, timed_seq;
	uint32_t dupacks;
	/* NewReno (RFC 6582 3.2): the flow in fast recovery (PK_NONE), and `recover`, one
	 * past the highest packet sent when it began; after a timeout, rto_flow's
	 * duplicate ACKs below rto_recover start no fast retransmit (step 1's rule) */
	uint32_t rec_flow, recover;
	uint32_t rto_flow, rto_recover;
	uint32_t rtx_flow, rtx_seq; /* a packet to resend ahead of new data (PK_NONE) */
	uint32_t max_flow, snd_max; /* one past the highest packet max_flow has sent */
	/*
	 * SACK (RFC 2018, RFC 6675; pkt_tcp.c): the scoreboard of flow sb_flow (PK_NONE:
	 * none), a bit per packet at or past snd_una that a selective ACK named (sb_words
	 * words), sacked of them; rec_sack: a recovery led by it (RACK's marks, struct
	 * pk_rack, say what to resend).
	 */
	uint64_t *sb;
	uint32_t sb_flow, sb_words, sacked;
	bool rec_sack;
	/* PRR (RFC 6937) in a SACK recovery: the packets delivered (SACKed or acknowledged)
	 * and the packets sent since it began (Linux's prr_delivered, prr_out) */
	uint32_t prr_delivered, prr_out;
	/* RACK (RFC 8985): the lowest round trip seen (Linux's tcp_min_rtt(), its 5 min
	 * window longer than a run), from the handshake's and every later sample */
	uint64_t min_rtt_ps;
	/* resends RACK found lost again (Linux's TCPLostRetransmit); reordering timers that
	 * found packets lost; tail-loss probes sent (TCPLossProbes), and those whose ACK
	 * showed they mended a loss (TCPLossProbeRecovery); D-SACKs received (TCPDSACKRecv) */
	uint64_t nlost_rtx, nreo, ntlp, ntlp_rec, ndsack;
	/* The tail-loss probe out (RFC 8985 7; Linux's tcp_send_loss_probe()): its flow
	 * (PK_NONE: none), one past the highest packet sent with it (tlp_high_seq), and
	 * whether it resent a packet (tlp_retrans) rather than sent new data; a probe to
	 * send past the window (tlp_force, a flow); whether it has yet to leave (tlp_wait:
	 * TCPLossProbes counts it once it does) */
	uint32_t tlp_flow, tlp_high, tlp_force;
	bool tlp_rtx, tlp_wait;
	/* A message of it has its timer held at the RTO (struct pk_rack held) since the last
	 * re-arm: the ACK that finds the connection Open again re-arms those as probes
	 * (engine_packet.c tcp_reopen()). held: the messages of it whose timers are held,
	 * nheld of them (room for held_cap; one may be there whose timer is no longer held,
	 * or twice, until tcp_reopen() sorts them: ft__pk_tcp_held_sort()) */
	bool rto_held;
	uint32_t *held;
	uint32_t nheld, held_cap;
	/* The receiver's end: ACKs it still sends at once (quick-ACK mode); the flow whose
	 * delayed-ACK timer runs (PK_NONE), when it fires and the ACK it sends; when it
	 * last took a packet in order (0: none yet; Linux's icsk_ack.lrcvtime); its RTO,
	 * from the handshake's sample alone (Linux's icsk_rto on the passive side) */
	uint32_t rcv_quick;
	uint32_t rcv_dl_flow, rcv_dl_seq;
	uint64_t rcv_dl_ps;
	uint64_t rcv_last_ps, rcv_rto_ps;
};

/*
 * RACK (RFC 8985; Linux's tcp_recovery.c, net.ipv4.tcp_recovery 1) over the scoreboard: a
 * flow's packets in flight, each with when it last left and its state (Linux's
 * TCPCB_LOST, TCPCB_SACKED_RETRANS, TCPCB_EVER_RETRANS), in a ring of mask + 1 slots
 * (a power of two above the receive window: snd_una + the window bounds what is out);
 * RACK.xmit_ts, .end_seq and .rtt of the most recently sent packet delivered (end_seq
 * PK_NONE: none yet); lost_out packets marked lost, rtx_out of them resent and not lost
 * again (pipe = out - SACKed - lost_out + rtx_out, Linux's tcp_packets_in_flight()), the
 * lowest lost one not resent at or past lost_lo; the start of the flow it is for (a
 * reused flow record's is another's). Kept by the engine per flow (tcp_rack: a flow
 * record has no room), made at the flow's first send with SACK on, freed when its
 * receiver has it all (ft__pk_flow_done()) or the engine goes.
 */
#define PK_SEG_LOST 1u
#define PK_SEG_RTX  2u
#define PK_SEG_EVER 4u
/* Linux's tp->reordering at start (net.ipv4.tcp_reordering 3): SACKed packets past which
 * RACK's reordering window is zero while no reordering was seen (tcp_rack_reo_wnd()) */
#define PK_TCP_REORDERING 3u
/* RACK's reordering timer as Linux arms it (tcp_rack_mark_lost()): the wait rounded up
 * to jiffies, and TCP_TIMEOUT_MIN (2 jiffies) more; HZ taken as 1000 (CONFIG_HZ_1000) */
#define PK_TCP_JIFFY_S       1e-3
#define PK_TCP_TIMEOUT_MIN_J 2u
struct pk_seg {
	uint64_t tx_ps;
	uint32_t st;
};
struct pk_rack {
	uint64_t t_start_ps;
	uint64_t xmit_ps, rtt_ps;
	uint32_t end_seq, mask;
	uint32_t lost_out, rtx_out, lost_lo;
	bool advanced; /* a delivery moved RACK since the last ACK's look (rack.advanced) */
	/* its timer is the RTO, due at held_ps, armed where a probe was due but the
	 * connection was not Open (engine_packet.c tcp_hold(), tcp_reopen()) */
	bool held, listed; /* (listed: in its connection's held list, struct pk_tcp) */
	uint64_t held_ps;
	/* The flow's timer when it is a tail-loss probe or RACK's reordering timer (tmr_kind
	 * PK_TMR_TLP, PK_TMR_REO, for generation tmr_gen; else the RTO), when it is due, and
	 * when the flow last sent new data (a probe armed moves on from there, ev_rto()) */
	uint8_t tmr_kind;
	uint32_t tmr_gen;
	uint64_t tmr_due_ps, tlp_tx_ps;
	struct pk_seg seg[];
};

void ft__pk_tcp_init(struct pk_tcp *c, double rwnd);
/* CUBIC's K (RFC 9438 eq. 2) from W_max and the window where the stage starts, s; its
 * window W_cubic(t) t_s into the stage (eq. 1). */
double ft__pk_cubic_k(double w_max, double cwnd_epoch);
double ft__pk_cubic_w(const struct pk_tcp *c, double t_s);
/* @acked packets newly acknowledged at @now_ps (slow start, then CUBIC), round trip
 * @rtt_s; a loss (fast retransmit or timeout): W_max and ssthresh (RFC 9438 4.6, 4.7). */
void ft__pk_tcp_grow(struct pk_tcp *c, uint32_t acked, uint64_t now_ps, double rtt_s);
void ft__pk_tcp_cut(struct pk_tcp *c);
/* PRR (RFC 6937, Linux's tcp_cwnd_reduction()): a recovery starts (after the cut: prior
 * is the window before it); an ACK delivered @delivered packets (SACKed or newly
 * acknowledged; none: nothing changes), found @newly_lost lost, moved snd_una or not
 * (@una_moved), leaving @pipe packets in flight: cwnd becomes pipe + what PRR lets go. */
void ft__pk_tcp_prr_start(struct pk_tcp *c);
void ft__pk_tcp_prr(struct pk_tcp *c, uint32_t pipe, uint32_t delivered, uint32_t newly_lost,
                    bool una_moved);
/* The retransmit timeout as Linux sets it (__tcp_set_rto()): SRTT + rttvar (which the
 * estimator keeps at least c->rto_min_ps, the floor) rounded up to jiffies (1 s before a
 * sample, TCP_TIMEOUT_INIT), doubled @backoff times,
 * at most 120 s (TCP_RTO_MAX); a round-trip sample @r_ps taken (tcp_rtt_estimator(), one
 * a round trip: each sample closes one). */
uint64_t ft__pk_tcp_rto_ps(const struct pk_tcp *c, uint32_t backoff);
void ft__pk_tcp_rtt(struct pk_tcp *c, uint64_t r_ps);
/* tcp_retries2, Linux's default (net.ipv4.tcp_retries2) */
#define PK_TCP_RETRIES2 15u
/* How long after its first resend by a timeout a connection that @retries timeouts have
 * not mended fails (Linux's tcp_model_timeout(), TCP_RTO_MIN and TCP_RTO_MAX): 924.6 s at
 * PK_TCP_RETRIES2. */
uint64_t ft__pk_tcp_give_up_ps(uint32_t retries);
/* Flow @f's connection, made at its first use (NULL: out of memory). */
struct pk_engine;
struct pk_flow;
struct pk_tcp *ft__pk_tcp_conn(struct pk_engine *e, const struct pk_flow *f);
/* The counters each connection keeps (struct pk_tcp), in the order ft__pk_tcp_counters()
 * sums them: tail-loss probes sent and those that mended a loss, reordering timeouts, resends
 * lost again, D-SACKs */
enum { PK_TCP_CTR_TLP, PK_TCP_CTR_TLP_REC, PK_TCP_CTR_REO, PK_TCP_CTR_LOST_RTX, PK_TCP_CTR_DSACK,
       PK_TCP_NCTR };
/* Those of every connection of @e summed into @v (PK_TCP_NCTR of them). */
void ft__pk_tcp_counters(const struct pk_engine *e, uint64_t *v);
/* Connection @c's list of messages whose timers are held (struct pk_tcp held): flow @fid
 * added (FT_ENOMEM: no room); sorted by flow, each once, its length returned. */
int ft__pk_tcp_held_add(struct pk_tcp *c, uint32_t fid);
uint32_t ft__pk_tcp_held_sort(struct pk_tcp *c);
/* Packets the connection may have unacknowledged: cwnd (with NewReno's inflation) within
 * the receive window (packet.tcp_window), at least 1. */
uint32_t ft__pk_tcp_wnd(const struct pk_tcp *c);
/* SACK's scoreboard of flow @fid (@f, its RACK state @r): @seq named by a selective ACK (1: newly,
 * 0: not, or the scoreboard is another flow's; a packet marked lost or resent no longer is),
 * snd_una moved on to @to (its packets' RACK state dropped); the next packet RACK marked
 * lost and not yet resent, below @snd_max (PK_NONE: none); packets in flight (RFC 6675's
 * pipe with RACK's marks), @snd_max one past the highest sent; the scoreboard and the
 * flow's marks emptied (a timeout), and freed with the engine. */
int ft__pk_tcp_sack_mark(struct pk_tcp *c, uint32_t fid, struct pk_rack *r, const struct pk_flow *f,
                         uint32_t seq);
void ft__pk_tcp_sack_advance(struct pk_tcp *c, uint32_t fid, struct pk_rack *r,
                             const struct pk_flow *f, uint32_t to);
uint32_t ft__pk_tcp_sack_next(const struct pk_rack *r, const struct pk_flow *f, uint32_t snd_max);
uint32_t ft__pk_tcp_pipe(const struct pk_tcp *c, uint32_t fid, const struct pk_rack *r,
                         const struct pk_flow *f, uint32_t snd_max);
/* RACK on flow @fid (@f; its connection @c, its state @r): packet @seq left at @now_ps,
 * @again when not for the first time, a lost one resent (@rtx: the scoreboard's resend),
 * the state made at *@rp if none; the state freed; packet @seq delivered (SACKed or cumulatively
 * acknowledged) at @now_ps: RACK.rtt set to its round trip, RACK.xmit_ts moved on if it left
 * after the packet it names (a resend's neither if its round trip is below min_rtt:
 * tcp_rack_advance()); the
 * reordering window at @sacked packets SACKed (0 in recovery and from
 * PK_TCP_REORDERING on, else min(min_rtt / 4, SRTT)); the packets below @snd_max left
 * before RACK's and @reo_ps past RACK.rtt ago marked lost, a resend among them lost
 * again (tcp_rack_detect_loss()): the longest wait of those not yet past it, ps (0:
 * none); how long after that Linux's timer fires (the jiffies above). */
int ft__pk_tcp_rack_sent(struct pk_tcp *c, struct pk_rack **rp, const struct pk_flow *f,
                         uint32_t seq, uint64_t now_ps, bool again, bool rtx);
void ft__pk_tcp_rack_free(struct pk_rack **rp);
void ft__pk_tcp_rack_deliver(struct pk_tcp *c, struct pk_rack *r, const struct pk_flow *f,
                             uint32_t seq, uint64_t now_ps);
/* ft__pk_tcp_rack_deliver() for each packet below @to a cumulative ACK covers, but those
 * SACKed before (delivered then) */
void ft__pk_tcp_rack_ack(struct pk_tcp *c, uint32_t fid, struct pk_rack *r,
                         const struct pk_flow *f, uint32_t to, uint64_t now_ps);
uint64_t ft__pk_tcp_reo_wnd_ps(const struct pk_tcp *c, bool recovery, uint32_t sacked);
uint64_t ft__pk_tcp_rack_detect(struct pk_tcp *c, struct pk_rack *r, uint32_t fid,
                                const struct pk_flow *f, uint32_t snd_max, uint64_t now_ps,
                                uint64_t reo_ps);
uint64_t ft__pk_tcp_reo_timer_ps(uint64_t wait_ps);
/* A D-SACK (RFC 2883) received: counted (TCPDSACKRecv). Linux widens RACK's reordering
 * window for it only once reordering was seen (tcp_dsack_seen(): reord_seen, and not for
 * the probe's own copy), which the engine's one FIFO path never shows. */
void ft__pk_tcp_dsack(struct pk_tcp *c);
/* The tail-loss probe's timeout (Linux's tcp_schedule_loss_probe()): 2 SRTT, and the floor
 * (c->rto_min_ps) more with one packet @out (room for the receiver's delayed ACK), else
 * TCP_TIMEOUT_MIN (2 jiffies), rounded up to jiffies, 1 s before a sample; at most @rto_ps */
uint64_t ft__pk_tcp_pto_ps(const struct pk_tcp *c, uint32_t out, uint64_t rto_ps);
/* An ACK of flow @fid up to @ack (cumulative), a D-SACK with it or not (@dsack), ends the
 * probe's episode (tcp_process_tlp_ack()): 1 when the probe resent a packet and nothing
 * says the first copy arrived (it mended a loss: outside a recovery the caller cuts the
 * window, Linux's CWR, and counts it), else 0 */
int ft__pk_tcp_tlp_ack(struct pk_tcp *c, uint32_t fid, uint32_t ack, bool dsack);
void ft__pk_tcp_sack_reset(struct pk_tcp *c, struct pk_rack *r);
void ft__pk_tcp_free(struct pk_engine *e);
/* The engine's RACK state of flow @fid (NULL: none); its slot, the table grown (NULL: out
 * of memory); the state freed (the flow's receiver has every packet). */
struct pk_rack *ft__pk_tcp_rack_of(struct pk_engine *e, uint32_t fid);
struct pk_rack **ft__pk_tcp_rack_slot(struct pk_engine *e, uint32_t fid);
void ft__pk_tcp_rack_drop(struct pk_engine *e, uint32_t fid);
/* Whether flow @fid (of connection @c) may send no more now: its window is full (in a
 * SACK recovery, its pipe), or the receive window is. */
bool ft__pk_tcp_full(const struct pk_tcp *c, uint32_t fid, const struct pk_rack *r,
                     const struct pk_flow *f);
/* Linux's pacing rate of connection @c, bytes/s of packets of @wire bytes, @out packets
 * out (PK_TCP_PACE_SS, _CA of max(cwnd, @out) per SRTT); set on flow @f's pacing state
 * (its QP's, pk_flow_cc()). */
double ft__pk_tcp_pace_Bps(const struct pk_tcp *c, double wire, uint32_t out);
void ft__pk_tcp_pace(struct pk_engine *e, const struct pk_tcp *c, struct pk_flow *f);
/* TCP's receiver took packet @seq of flow @fid, rcv_nxt moving from @before (a
 * duplicate when @dup): the ACKs it sends now, or its delayed-ACK timer. */
int ft__pk_tcp_rx(struct pk_engine *e, uint32_t fid, uint32_t seq, uint32_t before, bool dup);
/* An event about flow @fid on its way back to its sender (engine_packet.c ev_push_flow()). */
int ft__pk_ev_flow(struct pk_engine *e, uint64_t t_ps, uint32_t type, uint32_t fid, uint32_t arg);

struct pk_flow {
	uint64_t bytes; /* payload */
	uint64_t t_start_ps;
	uint64_t t_una_ps; /* sender: when an ACK or NAK last moved snd_una (ev_rto) */
	uint64_t lat_ps;   /* path latency */
	uint64_t hash;     /* ECMP and adaptive tie-breaks */
	uint32_t src, dst; /* vertices */
	uint32_t task;
	uint32_t npkts;
	uint32_t snd_nxt; /* next packet the sender puts on the wire */
	uint32_t rcv_nxt; /* next packet the receiver accepts (go-back-N) */
	uint32_t snd_una; /* sender: the first packet no ACK or NAK has acknowledged yet */
	uint32_t rto_gen;
	union {
		struct { /* go-back-N (InfiniBand, RoCE, adaptive routing) */
			uint32_t nak_for; /* rcv_nxt a NAK was sent for, PK_NONE */
			uint32_t rto_una; /* snd_una when the timer was armed or last re-armed */
		};
		/* SRD (e->sack): the sender's PK_SACK_HDR words (PK_SACK_MAX, _HINT,
		 * _END), then npkts bits, the packets a selective ACK named; made at the
		 * first ACK past a gap or the first resend, freed with the last ACK
		 * (engine_packet.c sack_rx()) */
		uint64_t *sack_bits;
	};
	uint32_t ring_next; /* in its first port's ring (of its priority) */
	uint32_t first_link;
	uint32_t qp;       /* as the flow engine numbers it: QP index x 1024 */
	uint32_t sent_task; /* the task of its QP's next message, which waits for its last
	                     * packet to first leave (a lazy phase's number), PK_NONE */
	uint32_t nic_link;  /* the port of the NIC it leaves by (under any routing), PK_NONE */
	uint32_t nic_rx_link; /* fixed path: its last network port (into the receiver's NIC), PK_NONE */
	uint32_t path_off; /* into the engine's paths; npath 0 = routed per hop */
	uint32_t fl_off;   /* adaptive with flowlets: its flowlets' hops (fl_hops each), PK_NONE;
	                    * its one row without them (pk_flowlet_row()) */
	uint32_t fl_cap;   /* room at fl_off (a reused record keeps its room) */
	uint8_t fl_hops;   /* links per flowlet path (at most FT_PATH_MAX) */
	/* adaptive routing: the first links of its rows that are the flow's own
	 * (pkt_flow.c host_fixed(); under flowlets at least its first), which every packet
	 * crosses: counted in its ports' flows (pk_flow_ports()) */
	uint8_t fl_fixed;
	uint16_t npath;
	uint16_t last_payload;
	uint8_t prio;
	bool in_ring : 1;
	/* 1 + the NIC of its source's node it leaves by where that is not its GPU's own
	 * (ft__sim_flow_nic()), its GPU's path to that NIC first (pkt_flow.c route_via()); 0 */
	uint8_t nic : 6;
	/* it names that NIC on the receiving node too (FT_SCHED_NIC_IN, ft__sim_nic_route()) */
	uint8_t nic_in : 1;
	uint8_t retries; /* retransmit timeouts in a row without progress (ev_rto) */
	bool wnd_held : 1; /* TCP: out of its ring, its window full until an ACK opens it */
	/* an NCCL send through its PXN proxy (ft__sim_pxn_proxy_in() of its ends among the
	 * job's GPUs: the job's GPU on the receiver's rail), its path over NVLink to it first
	 * (pkt_flow.c route_via()): the proxy's GPU index in the source's node + 1, 0 none */
	uint8_t pxn : 5;
	/* a message m >= 1 of a send NCCL's window paces (pkt_nccl.c send_pace()), whole on
	 * one QP, or one a collective's last pace waits for (pkt_tree.c link_edge());
	 * held: its pace was the last wait it had (the pace, not the fabric, set when it
	 * started; a lazy phase's message: pkt_tree.c pace_done()) */
	bool paced : 1;
	bool held : 1;
	uint16_t path_cap; /* room at path_off (a reused record keeps its room) */
	double ideal_s;
	/* adaptive routing, SRD, TCP: packets received past a gap, while the flow runs, and
	 * one word more (PK_OOO_WORDS(), pk_rcv_ooo()) */
	uint64_t *ooo_bits;
	/* (its QP's congestion control state, a paced run only: pk_flow_cc()) */
};

/*
 * An RC QP's PSNs run across its messages (IBTA vol. 1 9.7.5: the responder takes the
 * next PSN expected alone, NAKs the first past it with a sequence error, once until it
 * arrives, and the requester goes back to it, resending all that followed). The engine
 * keeps each message's own sequence (its flow's rcv_nxt) and links a QP's messages: a
 * message whose message before on the QP still misses packets at the receiver (prev) has
 * its packets refused there, the first of them NAKing that gap; that message's go-back
 * resends the later ones too (next), which wait to send until it has sent its last packet
 * again (wait). A link is made when the later message is built (pkt_nccl.c add_part(),
 * pkt_tree.c build_message()) and undone when the earlier one ends at its receiver.
 */
struct pk_qpseq {
	uint32_t prev, next; /* PK_NONE: none */
	uint8_t wait;        /* out of its ring until prev has sent its last packet again */
};

/* One past the highest packet flow @fid (@f) of connection @c has sent: its own snd_nxt,
 * or the connection's mark while it is the flow the mark is for (a timeout's go-back-N
 * moves snd_nxt back below it) */
static inline uint32_t
pk_tcp_snd_max(const struct pk_tcp *c, uint32_t fid, const struct pk_flow *f)
{
	return c->max_flow == fid && c->snd_max > f->snd_nxt ? c->snd_max : f->snd_nxt;
}

/* The words of a receiver's bitmap of @npkts packets (struct pk_flow ooo_bits), which
 * holds one word more: one past the highest packet it took */
#define PK_OOO_WORDS(npkts) (((size_t)(npkts) + 63) / 64)

/* Whether flow @f's receiver holds packets past a gap: one it took lies past rcv_nxt (the
 * first one missing), Linux's out-of-order queue not empty */
static inline bool
pk_rcv_ooo(const struct pk_flow *f)
{
	return f->ooo_bits && f->ooo_bits[PK_OOO_WORDS(f->npkts)] > f->rcv_nxt;
}

/* The packets flow @f has out past snd_una */
static inline uint32_t
pk_flow_out(const struct pk_flow *f)
{
	return f->snd_nxt > f->snd_una ? f->snd_nxt - f->snd_una : 0;
}

/* What a rank of a split run keeps of the task of a flow with no vertex of it on its
 * path (20 bytes against the 64 of a record, pk_task_far()): its flow, its waits (the
 * barriers every rank runs start it, which sets where the next events happen), its
 * successors (the middle barriers a completion tells on every rank, pkt_part.c
 * pp_replay; on rank 0 the leaf barriers, pp_gather) and its op (rank 0: each
 * completion's, each op's bottleneck walk). */
struct pk_tfar {
	uint32_t flow, npred, succ_off, nsucc, op;
};

/* What every rank of a split run reads of a flow that has no vertex of it on its path:
 * its ends (where its events happen) and its path latency (the checks, the barriers). */
struct pk_far {
	uint64_t lat_ps;
	uint32_t src, dst;
};

/* Rank 0 of a split run reads the path of every flow (the recount of flows per port, each
 * op's bottleneck), kept or not: where it is in paths, and its task. */
struct pk_fpath {
	uint32_t off, task, n;
};

struct pk_op {
	uint32_t start, end; /* barrier tasks */
	uint32_t next;       /* the barrier an op waiting for it waits for: end, or its nominal end */
	uint32_t job;
	uint8_t prio;         /* its flows' priority */
	uint64_t base_lat_ps; /* launch latency inside the start barrier (not the op's time) */
	double shift_s; /* how much later than its nominal end `next` is (its largest offset) */
	bool acked;     /* `next` counts each flow's end one path latency later (end_acked) */
	/* its flow that ended last, when, and whether NCCL's window held it (pk_flow held):
	 * its bottleneck is then the window (p2p:window), as the flow engine names it */
	uint64_t last_end_ps;
	bool last_held;
	struct pk_cp cp; /* the critical path to that flow's end (pkt_report.c crit_pace()) */
	/* a collective whose stages its cap paces (the model's price: CollNet's, an NVLS
	 * tree's, PAT's, a forced channel count's): what set the cap (struct ft_sim_op
	 * conn_cap_what, the model's binding link; "" for none; pkt_report.c crit_pace()
	 * names it where the cap held the op's critical path) */
	char pace_what[16];
	double cap_ps_per_byte; /* that cap (struct ft_sim_op conn_cap_Bps), 0 for none */
	bool coll; /* not a send/recv nor an all-to-all: a held flow's pace is its cap's */
};

struct pk_link {
	uint64_t lat_ps;
	uint64_t kmin, kmax; /* ECN marking thresholds of its egress queue, bytes */
	double ps_per_byte;
	uint32_t src, dst, rev;
	uint16_t hdr;   /* header and framing bytes per packet on this link */
	uint8_t net;    /* host or fabric link: network flow control and drops apply */
	uint8_t sw_dst; /* its destination is a switch (shared buffer) */
	uint8_t down;   /* a fault took it down: what is sent onto it is lost */
};

struct pk_lazy;
struct pk_tree_lazy;

/* A lossy run's lazy phases (pkt_tree.c, pkt_nccl.c): per flow record, what still names
 * it (its packets in flight, its ACK, NAK, CNP and RTT events on their way), with
 * PK_REF_ENDED once its message has ended; the record is reused once nothing does. */
struct pk_refs {
	uint32_t *n;
	size_t len;
	int err; /* FT_E* met where it could not be returned (pkt_free) */
};

#define PK_REF_ENDED 0x80000000u

struct pk_engine {
	struct ft_engine base;
	const struct ft_topo *topo;
	struct ft_sim_cfg cfg;
	struct ft_packet_cfg pc; /* with the defaults filled */
	bool roce;
	uint32_t mtu;
	uint64_t rto_ps;
	uint32_t retry_cnt; /* NCCL_IB_RETRY_CNT: timeouts a QP retries before its error */
	/* Links down (host and fabric): a flow with no live path is routed as if they were
	 * up (over topo_up, built at the first such flow) and its packets are lost there. */
	uint32_t ndown;
	struct ft_topo *topo_up;
	uint32_t qp_err_flow; /* the flow whose QP went to the error state, PK_NONE */
	uint64_t qp_err_ps;   /* and when */
	bool stalled;         /* the run stopped with flows unfinished and nothing left to
	                       * happen (a buffer deadlock): its counters are up to stall_ps */
	uint64_t stall_ps;
	bool may_drop; /* lossy, bit errors or a PFC headroom given by hand */
	bool dcqcn;
	bool ibcc;
	bool timely;
	bool paced;   /* dcqcn, ibcc or timely: sources are rate-limited per QP */
	bool qp_cc;   /* paced, or SRD (its RTT estimate): a record per QP (pk_flow_cc()) */
	bool marking; /* dcqcn or ibcc: switches mark congestion */
	double tm_step_Bps, tm_min_Bps; /* TIMELY: additive step (delta) and minimum rate */
	uint64_t ccti_timer_ps;
	double *cct_delay; /* IB CC: per CCT index, the delay after a packet in its own
	                    * transmission times (pkt_phys.c) */
	uint32_t ncct;     /* entries: CCTI_Limit + 1 */
	struct pk_vlarb *vlarb; /* per port: VL arbitration state (FT_PKT_ARB_VLARB) */
	uint64_t wd_ps; /* PFC watchdog time, 0 = off */
	uint64_t wd_restore_ps; /* time without PFC frames that restores a stormed priority */
	uint32_t pfc_quanta; /* pause time of an XOFF, quanta of 512 bit times */
	uint64_t pfc_refresh_ps; /* XOFF refresh period given, 0 = half the pause's time */
	uint64_t nwdog, nwd_restores, nwd_drops;
	uint32_t nwd_dropping; /* priorities stormed now under action drop */
	bool ooo;     /* receivers place packets out of order (adaptive routing, EFA) */
	/* EFA (SRD, pkt_cc.c): each packet on the next path of its flow's rotation over the
	 * equal-cost ports (spray), a lossy fabric, the delay-based AIMD (srd). TCP
	 * (GPUDirect-TCPX/O): a window of wnd_pkts packets per flow, ACK-clocked. */
	bool spray;
	/* EFA's striping over a GPU's NICs (engine_packet.c stripe_first()): per vertex, a
	 * GPU's round-robin counter over its NICs (aws-ofi-nccl's scheduler, one per
	 * device); per flow id, the lane of the flow's first packet (uint8_t) */
	uint32_t *lane_rr;
	struct ft_vec lane0;
	/* QPs a connection between nodes may have: qps_per_conn x the most NICs a GPU drives
	 * (nics.per_gpu; ft__pk_conn_qps()), qps_per_conn under spray */
	uint32_t max_qps;
	bool srd;
	/* SRD's transport (EFA, whatever the congestion control): receivers take packets
	 * out of order and acknowledge each one; senders resend only the packets no ACK
	 * named (selective retransmission, engine_packet.c sack_rx()) */
	bool sack;
	bool tcp;
	uint32_t wnd_pkts;  /* 0: no window (RDMA transports) */
	/* TCP: its connections' state (struct pk_tcp, pkt_tcp.c ft__pk_tcp_conn()), a table
	 * of tcp_cap slots, tcp_n used; the floor of its retransmit timeout (Linux's
	 * TCP_RTO_MIN, 200 ms, or packet.retransmit_timeout); fast retransmits and
	 * retransmit timeouts */
	struct pk_tcp *tcp_conns;
	uint32_t tcp_cap, tcp_n;
	/* RACK's state of each flow of a TCP run with SACK, by flow (pkt_tcp.c), tcp_nrack */
	struct pk_rack **tcp_rack;
	uint32_t tcp_nrack;
	uint64_t tcp_rto_min_ps;
	uint64_t ntcp_fast, ntcp_rto;
	/* TCP as Linux runs it unless turned off (packet.tcp_sack, tcp_delayed_ack,
	 * tcp_pacing); the delayed-ACK timer; recoveries SACK led, ACKs the timer sent */
	bool tcp_sack, tcp_delack, tcp_pace;
	uint64_t tcp_delack_ps;
	uint64_t ntcp_sack, ntcp_delack;
	/* A split run's (pkt_part.c) per-connection counters (ft__pk_tcp_counters()) summed
	 * over its ranks, where tcp_ctr_all: the report reads them there, not this rank's
	 * connections */
	uint64_t tcp_ctr[PK_TCP_NCTR];
	bool tcp_ctr_all;
	/* SRD's tail-loss probes fired (engine_packet.c srd_probe()) */
	uint64_t nsrd_probes;
	/* Packets lost at their first send, the unit tests' deterministic losses (pairs of
	 * flow and packet; each taken once) */
	uint32_t lose[24];
	uint32_t nlose;
	uint16_t hdr;       /* header and framing bytes per packet on host and fabric links */
	double srd_target_s; /* SRD: queueing delay above the lowest RTT that cuts the rate */
	bool pfc_dyn; /* PFC threshold from the free shared buffer */
	/* NIC message rate (packet.nic_msg_rate): a message's time in a NIC's send
	 * pipeline, contexts cached or not; 0 = no limit. Messages that waited for it. */
	uint64_t nic_msg_ps, nic_miss_ps;
	uint32_t nic_qp_cache;
	uint64_t nic_msgs, nic_missed, nic_wait_ps;
	/* Priorities: 1 + the highest a flow has; those flows have (bit p: priority p), set
	 * at submission; records per port, one per priority in use, in rising order
	 * (pk_cls_map(), at the run's start): a priority's record and a record's priority
	 * (PK_CLS_NONE: not in use). */
	uint32_t nprio;
	uint8_t prio_used;
	uint32_t ncls;
	uint8_t cls_slot[FT_PKT_NPRIO];
	uint8_t cls_prio[FT_PKT_NPRIO];
	uint8_t sub_prio; /* the priority of the op being submitted */
	struct pk_cls *cls_pool; /* nports x ncls, 64-byte aligned inside cls_mem */
	void *cls_mem;
	uint64_t cnp_gap_ps, dcq_timer_ps, dcq_alpha_ps, dcq_dec_ps;
	double line_Bps; /* host link rate: where DCQCN starts and what it climbs back to */
	uint32_t nlinks, nvertices;
	struct pk_link *links;
	struct pk_port *ports; /* 64-byte aligned, inside ports_mem */
	void *ports_mem;
	/* A split run (pkt_part.c) keeps only the ports whose source or destination vertex
	 * its rank owns: port_slot maps a link to its record (the others to one spare,
	 * empty record, which nothing reads back), NULL when every link has its own. The
	 * records in ports and cls_pool, the spare one included. */
	uint32_t *port_slot;
	uint32_t nports;
	uint64_t *sw_used; /* per vertex: shared buffer bytes in use */
	uint64_t port_limit, xoff, xon, sw_limit;
	double lossy_alpha;  /* a lossy queue's share of a switch's free buffer */
	uint64_t lossy_cap;  /* and at most this (a given port_buffer; else no cap) */
	int64_t credits0; /* per port, blocks */
	/* packets */
	/* The ports' histogram bins 1 to PK_QBINS - 1, in chunks (ft__pk_qbins_new); qb_left
	 * rows are still free in the newest. */
	struct pk_qb_chunk *qb_chunks;
	uint32_t qb_left;
	/* The priorities' own queue records (struct pk_cq, ft__pk_cq_new), likewise. */
	struct pk_cq_chunk *cq_chunks;
	uint32_t cq_left;
	struct pk_pkt *pkts;
	uint32_t npkts_cap, free_pkt, npkts_live;
	/* tasks and flows */
	struct ft_vec tasks; /* struct pk_task */
	struct ft_vec flows; /* struct pk_flow */
	/* uint32_t per flow id: an LL chain's next message on its hop, which the flow's start
	 * tells (pkt_tree.c rank_edge(), ft__pk_pace_next()); none past its end */
	struct ft_vec pace_next;
	/* The critical path of what ends now (struct pk_cp: a task's end, or the wait a
	 * PK_EV_PRED or PK_EV_TASK event tells), and the paths such events carry from where
	 * they were pushed (their argument: the slot + 1, ft__pk_cp_arg()), their free slots
	 * (uint32_t) */
	struct pk_cp cp;
	struct ft_vec cp_ev, cp_free;
	/* A rank of a run split across MPI ranks that knew its partition when it was built
	 * (pkt_part.c ft__pk_part_plan): flows holds the whole record of a flow with a
	 * vertex of the rank on its path alone, fslot maps a flow id to its record
	 * there (0: one spare record, which the other flows share and nothing reads back),
	 * and far holds what every rank reads of every flow (struct pk_far). fsplit false:
	 * flows holds every flow by id. plan_owner: the vertex owners it was built for. */
	bool fsplit;
	int plan_rank, plan_size;
	uint32_t *plan_owner;
	uint32_t plan_err_flow; /* the first flow that could not be routed, PK_NONE */
	/* Such a rank keeps a dependency of one flow on another only where the first flow's
	 * receiver is its own (the only rank that reads it: ft__pk_part_dep); the checks that
	 * read such dependencies are made as each is built, on every rank, against plan_la
	 * (the shortest latency of a link between the planned partitions), the first refusal
	 * kept in plan_dep_err; plan_feeds marks (a bit per task id) each flow another flow
	 * waits for. ndeps: the dependencies built, kept here or not. */
	uint64_t plan_la;
	struct ft_vec plan_feeds; /* uint64_t */
	struct ft_error plan_dep_err;
	uint64_t ndeps;
	struct ft_vec fslot;    /* uint32_t per flow id */
	/* A rank so built keeps the records of the tasks of those flows alone (and every
	 * other task's): tsplit, tslot maps a task id to its record in tasks or
	 * (from PK_VIRT) to its struct pk_tfar in tfar, read through tspare (pk_task_far()),
	 * which holds task tspare_id (tfar record tspare_far), PK_NONE: none. */
	bool tsplit;
	struct ft_vec tslot; /* uint32_t per task id */
	struct ft_vec tfar;  /* struct pk_tfar */
	struct pk_task tspare;
	uint32_t tspare_id, tspare_far;
	struct ft_vec far;     /* struct pk_far per flow id */
	struct ft_vec fpath;   /* rank 0: struct pk_fpath per flow id, kept or not */
	struct ft_vec flow_cc; /* struct pk_dcqcn, per flow, in a paced run only */
	/* A split run (pkt_part.c) keeps the congestion control state of the flows whose
	 * source or destination vertex its rank owns: cc_slot maps a flow to its record in
	 * flow_cc (the others to one spare record, last, which nothing reads back), NULL when
	 * every flow has its own. Such a run makes no records while it is built (cc_later). */
	uint32_t *cc_slot;
	bool cc_later;
	struct ft_vec edges; /* uint32_t pairs (from, to) */
	uint32_t *succ;
	struct ft_vec paths;    /* uint32_t link ids */
	struct ft_vec ops;      /* struct pk_op */
	struct ft_vec a2a_ends; /* scratch */
	struct pk_lazy *lazy;   /* all-to-alls whose sends are built as they start (pkt_nccl.c) */
	uint64_t nflows_all;    /* flows to run: those built, and those lazy phases will build */
	uint32_t nflows_built;  /* flow records built before the run (the rest: lazy sends') */
	uint32_t nsucc_len;     /* entries of succ in use (lazy sends add theirs) */
	bool a2a_eager;         /* build all-to-alls whole before the run (tests compare) */
	struct pk_tree_lazy *tlazy; /* NVLS trees whose messages are built as they start */
	/* a lazy phase's last pace is over and releases its messages (pkt_tree.c
	 * pace_done()): those it was the last wait of are held by it */
	bool pace_release;
	/* the op being submitted has its stages paced at its cap (cap_pace()), or is an LL or
	 * LL128 chain whose messages carry its ramp (pkt_tree.c chain_ramp_own()) */
	bool staged;
	/* the model's pipeline of the op being submitted (ft__sim_pipe_model()), read before
	 * its first task where a phase of it runs as a tree or chain, or as an LL ring
	 * (pkt_setup.c pipe_read(); pkt_tree.c nccl_fill(), chain_channels(); pkt_nccl.c
	 * ring_reps()); op_pl_read: it was */
	struct ft_model_pipeline op_pl;
	bool op_pl_read;
	/* and the model's links of the cluster (ft__sim_links(), no ranks) its NVLS or CollNet
	 * tree is shaped on (pkt_tree.c shape_links()); op_l_ok: the model has them */
	struct ft_model_links op_l;
	bool op_l_ok;
	bool tree_eager;        /* build NVLS trees whole before the run (tests compare) */
	struct pk_refs refs;    /* a lossy run's, where a phase is lazy */
	/* A go-back-N lossy run's QP sequences (pk_psn_qp()): per flow id, up to nqseq */
	struct pk_qpseq *qseq;
	size_t nqseq;
	struct pk_evq evq;
	uint64_t nrto_queued; /* retransmit timers in evq */
	uint64_t now_ps;
	/* Tie key of the events queued (pk_ev_key): the vertex whose event is being
	 * handled (nvertices: none, the run's start or a barrier), and per vertex
	 * the events it queued so far. */
	uint32_t origin;
	unsigned key_shift; /* bits of the count; the vertex above them */
	uint64_t *vseq;     /* nvertices + 1 */
	uint64_t cur_seq;   /* the tie key of the event being handled */
	struct pk_part *part; /* split across MPI ranks (pkt_part.c), or NULL */
	bool started;
	struct ft_rng *ber_rng;    /* bit errors: per port (pkt_phys.c) */
	struct ft_rng *ecn_rng;    /* DCQCN: per port, RED marking (pkt_phys.c) */
	struct ft_error route_err; /* why a flow could not be routed (or a path carried) */
	/* results */
	struct ft_sim_op_result *op_results;
	double *link_bytes;
	uint32_t *link_maxflows;
	struct ft_sim_port_counters *port_counters;
	/* A split run's rank 0 widened its port records to every link for the report alone
	 * (pkt_part.c): once the report's per-port counters are filled from them they are
	 * freed (ports_gone), so they are gone before the link rows are made; a second call
	 * (a stalled run's) gives the counters and bottlenecks the first filled, with the
	 * PFC refreshes it counted (report_npause). */
	bool drop_ports, ports_gone;
	uint64_t report_npause;
	/* --trace */
	uint32_t *trace_links, ntrace;
	uint64_t trace_ps;
	uint64_t *trace_last;        /* tx_bytes at the previous sample, per traced port */
	struct ft_vec trace_samples; /* double triples (t, rate, queue), sample-major */
	struct ft_sim_trace *traces;
	double *trace_cols; /* the samples by port, for the views in traces */
	uint32_t *trace_qps, ntrace_qps; /* traced QPs: their first flows' ids */
	struct ft_vec qp_samples;        /* double triples (t, rate, alpha), sample-major */
	struct ft_sim_qp_trace *qp_traces;
	double *qp_cols;
	struct ft_sim_flow_row *flow_rows; /* pc.list_flows: counters()' rows */
	double *fct, *ideal;
	uint64_t nfct;     /* their room: every flow, or none on a split run's rank other than 0 */
	uint8_t *fct_prio; /* the priority of each finished flow */
	uint32_t *fct_op;  /* the op of each finished flow (with several ops), else NULL */
	struct ft_sim_op_counters *op_acc; /* per op: its flows' counters */
	uint64_t nflows_done, nevents, npackets, ndrops, nretx, npause, necn, ncnp;
	uint64_t nsrd_hints; /* SRD: recovery passes a gap hint started (sack_hint()) */
	uint64_t bytes_submitted, bytes_delivered;
};

#define PK_PS_PER_S 1e12
#define PK_BLOCK    64u /* IB credit block (kb IB-FC) */

/* Seconds to picoseconds, rounded; 0 for anything not positive. */
static inline uint64_t
s_to_ps(double s)
{
	return s > 0 ? (uint64_t)(s * PK_PS_PER_S + 0.5) : 0;
}

/* The time an XOFF pauses port @p's sender: pfc_quanta quanta of 512 bit times (64
 * bytes) at the link's speed. */
static inline double
pk_pfc_pause_ps(const struct pk_engine *e, const struct pk_port *p)
{
	return (double)e->pfc_quanta * 64.0 * p->ps_per_byte;
}

/*
 * PFC pause refresh (IEEE 802.1Qbb; kb ROCE-PFC): an XOFF asks the sender to pause for
 * pk_pfc_pause_ps(), and a buffer still above XON sends the XOFF again before that runs
 * out, so a sender it holds stays paused until the XON: the period of those refreshes
 * on port @p's link. packet.pfc_refresh gives it; by default half the pause, which is
 * an assumption: 802.1Qbb leaves the period to the implementation, and the one public
 * figure found is Intel's 82599/X540 (Linux ixgbe writes its flow control refresh
 * threshold register FCRTV as the pause time / 2). (0xFFFF quanta by default, the
 * largest the 16-bit field holds, as MACs reset to: at 100 Gb/s a quantum is 5.12 ns,
 * a pause 335.5 us and the refresh 167.8 us.)
 */
static inline uint64_t
pk_pfc_refresh_ps(const struct pk_engine *e, const struct pk_port *p)
{
	double r;

	if (e->pfc_refresh_ps)
		return e->pfc_refresh_ps;
	r = pk_pfc_pause_ps(e, p) / 2;

	return r >= 1 ? (uint64_t)(r + 0.5) : 1;
}

/* Refresh frames a buffer sent in the @d_ps it held XOFF (each at a whole period after
 * it; @upto: one falling on the end counted, as a report's instant, not as an XON's). */
static inline uint64_t
pk_pfc_refreshes(uint64_t d_ps, uint64_t period_ps, bool upto)
{
	if (!upto)
		return d_ps ? (d_ps - 1) / period_ps : 0;
	return d_ps / period_ps;
}

/* Flow @f's record: its own, or, on a split rank that has no vertex on its path
 * (fsplit), the spare one, whose fields mean nothing (pk_flow_kept()). */
static inline struct pk_flow *
flow_at(const struct pk_engine *e, uint32_t f)
{
	return &FT_VEC_AT(&e->flows, struct pk_flow,
	                  e->fsplit ? FT_VEC_AT(&e->fslot, uint32_t, f) : f);
}

/* Whether flow @f has a record of its own here. */
static inline bool
pk_flow_kept(const struct pk_engine *e, uint32_t f)
{
	return !e->fsplit || FT_VEC_AT(&e->fslot, uint32_t, f) != 0;
}

/* Flow @f's path (its links from paths[*off] on, the count returned: 0 when routed per
 * hop or not kept here) and its task (into *task): from its record, or on rank 0 of a
 * split run from fpath, which every flow has. */
static inline uint32_t
pk_flow_path(const struct pk_engine *e, uint32_t f, uint32_t *off, uint32_t *task)
{
	const struct pk_flow *x;

	if (e->fpath.len) {
		const struct pk_fpath *fp = &FT_VEC_AT(&e->fpath, struct pk_fpath, f);

		*off = fp->off;
		*task = fp->task;
		return fp->n;
	}
	x = flow_at(e, f);
	*off = x->path_off;
	*task = x->task;
	return x->npath;
}

/*
 * The links every packet of flow @f crosses, counted in their ports' flows (nactive,
 * maxflows): its kept path, or under adaptive routing its row's fixed links (its host's
 * links up to its NIC's port onto the fabric, host_fixed()), where the switches choose
 * the rest per packet or flowlet. Their count, their offset into the paths at @off.
 */
static inline uint32_t
pk_flow_ports(const struct pk_flow *f, uint32_t *off)
{
	if (f->npath) {
		*off = f->path_off;
		return f->npath;
	}
	*off = f->fl_off;
	return f->fl_off != PK_NONE && f->fl_hops ? f->fl_fixed : 0;
}

/* Flow ids: every flow built, whether or not its record is kept here. */
static inline size_t
pk_nflows(const struct pk_engine *e)
{
	return e->fsplit ? e->fslot.len : e->flows.len;
}

/* Flow @f's source and receiver vertices and path latency, on every rank. */
static inline uint32_t
pk_flow_src(const struct pk_engine *e, uint32_t f)
{
	return e->fsplit ? FT_VEC_AT(&e->far, struct pk_far, f).src : flow_at(e, f)->src;
}

static inline uint32_t
pk_flow_dst(const struct pk_engine *e, uint32_t f)
{
	return e->fsplit ? FT_VEC_AT(&e->far, struct pk_far, f).dst : flow_at(e, f)->dst;
}

static inline uint64_t
pk_flow_lat(const struct pk_engine *e, uint32_t f)
{
	return e->fsplit ? FT_VEC_AT(&e->far, struct pk_far, f).lat_ps : flow_at(e, f)->lat_ps;
}

/* The number of tasks (ids), built records or not (tsplit). */
static inline size_t
pk_ntasks(const struct pk_engine *e)
{
	return e->tsplit ? e->tslot.len : e->tasks.len;
}

/* The far task the spare holds, written back to its struct pk_tfar (before tfar is read
 * directly). */
static inline void
pk_task_flush(struct pk_engine *e)
{
	if (e->tspare_id != PK_NONE) {
		struct pk_tfar *r = &FT_VEC_AT(&e->tfar, struct pk_tfar, e->tspare_far);

		r->npred = e->tspare.npred;
		r->succ_off = e->tspare.succ_off;
		r->nsucc = e->tspare.nsucc;
		e->tspare_id = PK_NONE;
	}
}

/*
 * Task @t of a split rank that keeps no record of it (a flow with no vertex of the rank on
 * its path: struct pk_tfar @i): the spare record, holding what the rank reads of it (its
 * flow, waits and successors) while no other such task is asked for. What was written to
 * the spare goes back to the task it held first.
 */
static inline struct pk_task *
pk_task_far(struct pk_engine *e, uint32_t t, uint32_t i)
{
	struct pk_task *k = &e->tspare;
	struct pk_tfar *r;

	if (e->tspare_id == t)
		return k;
	pk_task_flush(e);
	r = &FT_VEC_AT(&e->tfar, struct pk_tfar, i);
	*k = (struct pk_task){ .kind = PK_T_FLOW,
		               .flow = r->flow,
		               .npred = r->npred,
		               .succ_off = r->succ_off,
		               .nsucc = r->nsucc,
		               .op = r->op };
	e->tspare_id = t;
	e->tspare_far = i;
	return k;
}

/* The flow of task @t (PK_NONE: not a flow's), without reading it into the spare. */
static inline uint32_t
pk_task_flow(const struct pk_engine *e, uint32_t t)
{
	uint32_t s;

	if (!e->tsplit)
		return FT_VEC_AT(&e->tasks, struct pk_task, t).flow;
	s = FT_VEC_AT(&e->tslot, uint32_t, t);
	if (s < PK_VIRT)
		return FT_VEC_AT(&e->tasks, struct pk_task, s).flow;
	return FT_VEC_AT(&e->tfar, struct pk_tfar, s - PK_VIRT).flow;
}

/* Whether task @t has no record of its own here (a struct pk_tfar). */
static inline bool
pk_task_far_id(const struct pk_engine *e, uint32_t t)
{
	return e->tsplit && FT_VEC_AT(&e->tslot, uint32_t, t) >= PK_VIRT;
}

/* The kind of task @t (enum pk_task_kind), the same way. */
static inline uint32_t
pk_task_kind(const struct pk_engine *e, uint32_t t)
{
	uint32_t s;

	if (!e->tsplit)
		return FT_VEC_AT(&e->tasks, struct pk_task, t).kind;
	s = FT_VEC_AT(&e->tslot, uint32_t, t);
	return s < PK_VIRT ? FT_VEC_AT(&e->tasks, struct pk_task, s).kind : PK_T_FLOW;
}

static inline struct pk_task *
task_at(struct pk_engine *e, uint32_t t)
{
	uint32_t s;

	if (!e->tsplit)
		return &FT_VEC_AT(&e->tasks, struct pk_task, t);
	s = FT_VEC_AT(&e->tslot, uint32_t, t);
	if (s < PK_VIRT)
		return &FT_VEC_AT(&e->tasks, struct pk_task, s);
	return pk_task_far(e, t, s - PK_VIRT);
}

/*
 * The congestion control state of flow @f's QP (a record of e->flows). Only a paced run
 * (DCQCN, IB CC, TIMELY) has one: its 120 bytes kept out of every flow's record, which a
 * chunked collective has one of per message, leave an unpaced run's records at 144. A
 * split run's rank has them for its own flows alone (cc_slot).
 */
static inline struct pk_dcqcn *
pk_flow_cc(const struct pk_engine *e, const struct pk_flow *f)
{
	size_t i = (size_t)(f - (const struct pk_flow *)e->flows.data);

	return &FT_VEC_AT(&e->flow_cc, struct pk_dcqcn, e->cc_slot ? e->cc_slot[i] : i);
}

/*
 * Whether flow @f runs as TCP: on GPUDirect-TCPX/O (e->tcp), and only where it leaves its
 * node by a NIC (nic_link, pkt_flow.c). TCPX carries an op's steps between nodes alone; a
 * step inside a node is the GPUs' own copy over NVLink or PCIe, which no socket, window,
 * ACK clock or pacing touches, as on any other node (NCCL's P2P transport,
 * src/transport/p2p.cc, whatever the net plugin). Before, every flow opened a TCP
 * connection: one gcp-a3-high node's NVLink steps left in slow start (docs/internals/sim.md,
 * "One A3 node's steps inside it are not TCP").
 */
static inline bool
pk_flow_tcp(const struct pk_engine *e, const struct pk_flow *f)
{
	return e->tcp && f->nic_link != PK_NONE;
}

/*
 * A run split across MPI ranks by vertex (pkt_part.c): set up when launched so (0 when
 * not, or FT_EINVAL with the reason the run cannot be split); whether this rank owns
 * vertex @v (every rank does when not split); queue an event here or for its owner;
 * record a flow's completion; run the windows and gather the result on rank 0; this
 * process's rank (0 when not split); whether flows were left unfinished on any rank at
 * the last window's end (--trace samples until then); free. Where
 * an event happens, a packet's slot and one event's handling, from engine_packet.c.
 */
struct pk_part;
/* A completion as rank 0 takes it at the end of a split run (72 bytes; the FCT is the
 * time from its start): its time and tie key, its flow's start and that event's tie key,
 * the flow's ideal time, its task and priority, the critical path to its end (its op's,
 * where it ended last: pkt_report.c crit_pace()). */
struct pk_end {
	uint64_t t_ps, seq;
	uint64_t t_start_ps, start_key;
	double ideal;
	uint32_t task, prio;
	struct pk_cp cp;
};
/* Source @src's records @off to @off + @n - 1 of its completions in the order of their
 * ends (@starts false) or of their flows' starts (true), into @buf. */
typedef void (*ft__pk_pull_fn)(void *ctx, int src, bool starts, size_t off,
                               struct pk_end *buf, size_t n);
/* Each completion in order: @end true at its end, false at its flow's start. */
typedef int (*ft__pk_take_fn)(void *ctx, const struct pk_end *d, bool end);
int ft__pk_part_merge(int nsrc, const size_t *count, size_t piece, ft__pk_pull_fn pull,
                      void *pctx, ft__pk_take_fn take, void *tctx);
bool ft__pk_part_wanted(void);
int ft__pk_part_init(struct pk_engine *e, struct ft_error *err);
int ft__pk_part_check(struct pk_engine *e, const uint32_t *owner, int nranks,
                      struct ft_error *err);
int ft__pk_part_plan(struct pk_engine *e, const uint32_t *owner, int nranks, int rank);
int ft__pk_part_dep(struct pk_engine *e, uint32_t from, uint32_t to);
int64_t ft__pk_part_add_flow(struct pk_engine *e, const struct pk_flow *f);
int ft__pk_part_check_as(struct pk_engine *e, const uint32_t *owner, int nranks, int rank,
                         struct ft_error *err);
bool ft__pk_part_owns(const struct pk_engine *e, uint32_t v);
uint32_t ft__pk_part_owner(const struct pk_engine *e, uint32_t v);
int ft__pk_part_push(struct pk_engine *e, const struct pk_event *ev);
int ft__pk_part_flow_done(struct pk_engine *e, uint32_t fid);
int ft__pk_part_run(struct pk_engine *e);
uint32_t ft__pk_part_rank(const struct pk_engine *e);
bool ft__pk_part_more(const struct pk_engine *e);
void ft__pk_part_flow_start(struct pk_engine *e, uint32_t fid);
/* The start keys a split rank holds (one per flow record it keeps, and the spare's), and
 * flow @fid's (the spare's when its record is not kept here). */
size_t ft__pk_part_nkeys(const struct pk_engine *e);
uint64_t *ft__pk_part_skey(const struct pk_engine *e, uint32_t fid);
void ft__pk_part_free(struct pk_engine *e);
uint32_t ft__pk_ev_where(const struct pk_engine *e, uint32_t type, uint32_t id, uint32_t arg);
uint32_t ft__pk_pkt_alloc(struct pk_engine *e);
void ft__pk_pkt_free(struct pk_engine *e, uint32_t id);
int ft__pk_step(struct pk_engine *e);
int ft__pk_pred_done(struct pk_engine *e, uint32_t u, uint64_t lat_ps);
/* The argument of a PK_EV_PRED or PK_EV_TASK event whose wait has the critical path @cp
 * (struct pk_engine cp_ev; 0 in a split run, whose events cross ranks: none is carried), or
 * a negative FT_E*; and the path an event's argument carries, into e->cp, its slot freed
 * (0: e->cp kept). */
int64_t ft__pk_cp_arg(struct pk_engine *e, struct pk_cp cp);
void ft__pk_cp_take(struct pk_engine *e, uint32_t arg);
/* The path an event's argument @arg carries into *@cp, its slot freed (false: none). */
bool ft__pk_cp_out(struct pk_engine *e, uint32_t arg, struct pk_cp *cp);
int ft__pk_route_flow(struct pk_engine *e, uint32_t fid);
int ft__pk_path_lat(struct pk_engine *e, uint32_t src, uint32_t dst, uint32_t nic, uint64_t hash,
                    uint64_t *lat_ps);
/* The route ft__pk_path_lat() sums the latencies of (on QP 0), on QP @qp, into @path; FT_E*
 * where there is none. */
int ft__pk_path(struct pk_engine *e, uint32_t src, uint32_t dst, uint32_t nic, uint64_t hash,
                uint32_t qp, struct ft_path *path);
/* The path latency from GPU @a to GPU @b, seconds, on the route ft__pk_path_lat() gives the
 * pair (its hash of the pair): through PXN proxy @via where the send relays (its NVLink leg,
 * then the proxy's NIC's route, as the engine routes the flow), else (PK_NONE) out by @a's
 * own NIC; 0 where there is none. A message between nodes pays hwLat[NET] less it, where
 * that is shorter (max(hwLat[NET], path) in all: pkt_setup.c). */
double ft__pk_pair_path_s(struct pk_engine *e, uint32_t a, uint32_t b, uint32_t via);

/*
 * Flows, once each (pkt_flow.c): flow @fid's last packet reached its receiver (its FCT is
 * recorded, its task done); and, in engine_packet.c, flow @fid has packets to send (it
 * joins its first port's ring, which sends if it may). Routing's choice among equal-cost
 * ports reads a flow's hash (and the engine's queues, per hop).
 */
int ft__pk_flow_done(struct pk_engine *e, uint32_t fid);
int ft__pk_flow_send(struct pk_engine *e, uint32_t fid);
/* Whether a run keeps QP sequences (struct pk_qpseq): go-back-N (not out-of-order
 * placement, SRD or TCP) where packets may be lost. */
static inline bool
pk_psn_qp(const struct pk_engine *e)
{
	return e->may_drop && !e->ooo && !e->sack && !e->tcp;
}

/* The message before flow @fid on its QP while its receiver misses packets, PK_NONE. */
static inline uint32_t
pk_qp_prev(const struct pk_engine *e, uint32_t fid)
{
	return fid < e->nqseq ? e->qseq[fid].prev : PK_NONE;
}

/* Flow @b follows flow @a on their QP (struct pk_qpseq); FT_ENOMEM. */
int ft__pk_qp_link(struct pk_engine *e, uint32_t a, uint32_t b);
/* Flow @fid ended at its receiver: its QP's next message is unlinked (and sends if it
 * waited for it). */
int ft__pk_qp_seq_end(struct pk_engine *e, uint32_t fid);
/* Adaptive routing's pick among equal-cost ports (engine_packet.c), @ud a struct choose_ctx. */
uint32_t ft__pk_choose_least_queued(void *ud, uint32_t at, const uint32_t *links, uint32_t n);

struct choose_ctx {
	struct pk_engine *e;
	uint64_t hash;
};

/*
 * The engine interface: the event loop (run, engine_packet.c); construction, submit,
 * the run's start, destroy and ft_packet_engine (pkt_setup.c); the stalled port, whether
 * a port holds packets (@transit) or sourced flows too, and the wait-for cycle through a
 * port, for a stall's error; and the counters of a run (pkt_report.c).
 */
int ft__pk_create(const struct ft_topo *topo, const struct ft_sim_cfg *cfg,
                  struct ft_engine **out, struct ft_error *err);
int64_t ft__pk_submit(struct ft_engine *eng, const struct ft_sim_op *op, struct ft_error *err);
int ft__pk_start(struct pk_engine *e);
/* @n zeroed records of @size bytes (a whole number of cache lines), 64-byte aligned inside
 * *@mem (what to free), advised onto huge pages: ports and priority records; NULL when out
 * of memory. */
void *ft__pk_lines_alloc(size_t n, size_t size, void **mem);
int ft__pk_run(struct ft_engine *eng, double until_s, struct ft_error *err);
void ft__pk_destroy(struct ft_engine *eng);
bool ft__pk_port_has(const struct pk_engine *e, uint32_t l, bool transit);
uint32_t ft__pk_stuck_port(const struct pk_engine *e);
bool ft__pk_name_cycle(const struct pk_engine *e, uint32_t l, struct ft_strbuf *out);
int ft__pk_counters(struct ft_engine *eng, struct ft_sim_counters *c, struct ft_error *err);
/* The depth port @p's queue stayed at or below for fraction @q of its time, the time since
 * its last change (@tail_ps) at its present depth included: the upper edge of the
 * histogram bin (pk_qbin) where the fraction is reached, at most its largest; 0 when no
 * time passed. */
uint64_t ft__pk_q_quantile(const struct pk_port *p, uint64_t tail_ps, double q);
/* The same for one priority's record @c (struct pk_cq). */
uint64_t ft__pk_cq_quantile(const struct pk_cq *c, uint64_t tail_ps, double q);
/* A zeroed priority queue record from @e's pool (freed with it): NULL when out of memory. */
struct pk_cq *ft__pk_cq_new(struct pk_engine *e);
void ft__pk_cq_free(struct pk_engine *e);
/* Zeroed bins 1 to PK_QBINS - 1 of a port's histogram, from @e's pool (freed with it):
 * NULL when out of memory. */
uint64_t *ft__pk_qbins_new(struct pk_engine *e);
void ft__pk_qbins_free(struct pk_engine *e);

/* The picoseconds port @p's queue spent in histogram bin @b (pk_qbin). */
static inline uint64_t
pk_qhist(const struct pk_port *p, uint32_t b)
{
	if (b == 0)
		return p->q_hist0;
	return p->q_bins ? p->q_bins[b - 1] : 0;
}
/* The QP that ran out of retries and ended the run (engine_packet.c), if one did. */
void ft__pk_qp_error(struct pk_engine *e, struct ft_sim_qp_error *q);

/*
 * The tie key of an event queued now: events at the same time pop in the order of
 * (vertex that queued them, how many it queued before). It depends on nothing but what
 * happened at that vertex, so a run split across MPI ranks by vertex (pkt_part.c) orders
 * ties exactly as one process does.
 */
static inline uint64_t
pk_ev_key(struct pk_engine *e)
{
	return (uint64_t)e->origin << e->key_shift | e->vseq[e->origin]++;
}

/* Queue an event; never before the one being handled. */
static inline int
ev_push(struct pk_engine *e, uint64_t t_ps, enum pk_ev_type type, uint32_t id, uint32_t arg)
{
	struct pk_event ev = { FT_MAX(t_ps, e->now_ps), pk_ev_key(e), id,
		               (arg << 4) | (uint32_t)type };

	if (e->part)
		return ft__pk_part_push(e, &ev);
	return pk_evq_push(&e->evq, &ev);
}

/*
 * The link an ARRIVE or TX_DONE event is about travels in the event (argument: link + 1,
 * 0 for none), so that the handler reaches the port, its priority and the packet at
 * once rather than one after the other (each a cache miss on large fabrics). Where
 * link ids do not fit the argument's 28 bits it is PK_EV_ARG_MAX: read from the record.
 */
#define PK_EV_ARG_MAX 0x0fffffffu

static inline uint32_t
pk_ev_link_arg(const struct pk_engine *e, uint32_t l)
{
	if (e->nlinks >= PK_EV_ARG_MAX - 1)
		return PK_EV_ARG_MAX;
	return l == PK_NONE ? 0 : l + 1;
}

static inline uint32_t
pk_ev_link_of(uint32_t arg, uint32_t fallback)
{
	return arg && arg != PK_EV_ARG_MAX ? arg - 1 : fallback;
}

/* The record of link @l's port (its own unless the run is split). */
static inline uint32_t
pk_slot(const struct pk_engine *e, uint32_t l)
{
	return e->port_slot ? e->port_slot[l] : l;
}

static inline struct pk_port *
pk_port_at(const struct pk_engine *e, uint32_t l)
{
	return &e->ports[pk_slot(e, l)];
}

/* Whether link @l has a port record of its own (not the split's spare one). */
static inline bool
pk_port_kept(const struct pk_engine *e, uint32_t l)
{
	return !e->port_slot || e->port_slot[l] != e->nports - 1;
}

#define PK_CLS_NONE 0xffu

/* Whether a flow of the run has priority @c (only those have records). */
static inline bool
pk_prio_used(const struct pk_engine *e, uint32_t c)
{
	return c < FT_PKT_NPRIO && (e->prio_used >> c & 1u);
}

/* Priority @c (in use) of port @p. */
static inline struct pk_cls *
pk_port_cls(const struct pk_engine *e, const struct pk_port *p, uint32_t c)
{
	return &p->cls[e->cls_slot[c]];
}

/* Priority @c (in use) of port @l, addressed without reading the port. */
static inline struct pk_cls *
pk_cls_at(const struct pk_engine *e, uint32_t l, uint32_t c)
{
	return &e->cls_pool[(size_t)pk_slot(e, l) * e->ncls + e->cls_slot[c]];
}

/* The figures of a port's last watchdog storm (struct pk_port wd_base, wd_last). */
enum { PK_WDL_TX_OK, PK_WDL_TX_DROP, PK_WDL_RX_IN, PK_WDL_RX_DROP, PK_WDL_N };

/* Port @l's counters the last storm's figures are differences of, now: packets sent,
 * discarded by the watchdog, and at the reverse link's destination (this port's switch)
 * received and dropped. All of them the sending switch's own: a split run keeps them
 * on the rank that owns it. */
static inline void
pk_wd_now(const struct pk_engine *e, uint32_t l, uint64_t v[PK_WDL_N])
{
	const struct pk_port *p = pk_port_at(e, l), *r = pk_port_at(e, e->links[l].rev);

	v[PK_WDL_TX_OK] = p->tx_pkts;
	v[PK_WDL_TX_DROP] = p->wd_drops_held + p->wd_drops_arrived;
	v[PK_WDL_RX_IN] = r->rx_pkts;
	v[PK_WDL_RX_DROP] = r->drops;
}

/* The counters of the op flow @fid belongs to. */
static inline struct ft_sim_op_counters *
pk_op_acc(struct pk_engine *e, uint32_t fid)
{
	return &e->op_acc[task_at(e, flow_at(e, fid)->task)->op];
}

/* Congestion control (pkt_cc.c): a paced QP sent @wire bytes; a CNP or an RTT sample
 * reached its sender; make the head of port @l's ring of priority @c a flow that may send (1), or queue
 * a wake-up (0); mark packet @k joining port @l's queue. */
void ft__pk_dcqcn_sent(struct pk_engine *e, struct pk_flow *f, uint32_t wire);
int ft__pk_ev_cnp(struct pk_engine *e, uint32_t fid);
/* The port where a NIC counts flow @f's packets (ethtool -S): the first link of its
 * path onto the fabric (@out, the sender's NIC: the one it leaves by under any routing,
 * adaptive routing choosing at the switches), or the last one off it (the receiver's,
 * as a kept path has it); @other when there is none or the path is not kept (adaptive
 * routing: the link the packet came in by). */
static inline uint32_t
ft__pk_nic_port(const struct pk_flow *f, bool out, uint32_t other)
{
	if (out)
		return f->nic_link != PK_NONE ? f->nic_link : other;
	return f->npath && f->nic_rx_link != PK_NONE ? f->nic_rx_link : other;
}
int ft__pk_ev_rtt(struct pk_engine *e, uint32_t fid, uint32_t rtt_ns);
/* The congestion control state of message @f's QP now (its own record, or its QP's next
 * message's once its last packet left): a paced run only. */
struct pk_dcqcn *ft__pk_qp_cc(struct pk_engine *e, const struct pk_flow *f);
/* SRD's retransmit timeout and tail-loss probe timeout for flow @f, in ps, from its QP's
 * RFC 6298 estimate (engine_packet.c). */
uint64_t ft__pk_srd_rto(struct pk_engine *e, const struct pk_flow *f);
uint64_t ft__pk_srd_pto(struct pk_engine *e, const struct pk_flow *f);
int ft__pk_pick_paced(struct pk_engine *e, uint32_t l, uint32_t c);
void ft__pk_ecn_mark(struct pk_engine *e, uint32_t l, struct pk_pkt *k);

/* The task graph (pkt_nccl.c): a task, its id or FT_E*; a dependency; a connection of
 * qps_per_conn flows after @prev, before @bar. */
int64_t ft__pk_add_task(struct pk_engine *e, enum pk_task_kind kind, uint64_t delay_ps,
                        double lat_mult, uint32_t op);
int ft__pk_add_dep(struct pk_engine *e, uint32_t from, uint32_t to);
/* A QP's congestion control state at its start: the line rate, DCQCN's initial alpha. */
struct pk_dcqcn ft__pk_cc0(const struct pk_engine *e);
int ft__pk_add_conn(struct pk_engine *e, uint64_t bytes, uint32_t src, uint32_t dst,
                    uint32_t prev, uint32_t bar, uint32_t op);
/* The same, its flows out of their node by NIC @nic (struct pk_flow nic; 0: their GPU's). */
int ft__pk_add_conn_nic(struct pk_engine *e, uint64_t bytes, uint32_t src, uint32_t dst,
                        uint8_t nic, uint32_t prev, uint32_t bar, uint32_t op);
/* ft__pk_add_conn_nic() on QPs @qp0 .. @qp0 + nq - 1 (a channel's own: ft__sim_chan_qp0()). */
int ft__pk_add_conn_qps(struct pk_engine *e, uint64_t bytes, uint32_t src, uint32_t dst,
                        uint8_t nic, uint32_t qp0, uint32_t prev, uint32_t bar, uint32_t op);
/* Whether phase @ph of @sc runs as NCCL's chunks; submit it so, after @start, before @bar
 * (1: too small to cut, nothing added: submit it whole). */
bool ft__pk_is_chunked(const struct pk_engine *e, const struct ft_schedule *sc,
                       const struct ft_sched_phase *ph);
int ft__pk_submit_ring(struct pk_engine *e, const struct ft_sim_op *op,
                       const struct ft_sched_phase *ph, double eff, uint32_t start, uint32_t bar,
                       uint32_t tag, struct ft_error *err);
/* Whether phase @ph of @op is sends NCCL cuts as its send/recv does (an all-to-all, a
 * send/recv); submit it so, after @start, before @bar. */
bool ft__pk_is_p2p(const struct pk_engine *e, const struct ft_sim_op *op,
                   const struct ft_sched_phase *ph);
int ft__pk_submit_p2p(struct pk_engine *e, const struct ft_sim_op *op,
                      const struct ft_sched_phase *ph, uint32_t start, uint32_t bar,
                      uint32_t tag, struct ft_error *err);

/*
 * Connections cut into NCCL's messages (pkt_nccl.c; pkt_tree.c): each connection
 * carries nmsg messages, each its own flows (one per QP, or split over all with
 * NCCL_IB_SPLIT_DATA_ON_QPS), a QP's flows in order; the caller says what each message
 * waits for by dependencies into ready[first + m], and learns of its arrival from
 * recv[first + m].
 */
struct ring_conn {
	uint32_t src, dst;      /* vertices */
	uint32_t nq;            /* its QPs (ft__pk_conn_qps()); message m goes on every lane
	                         * (ft__pk_conn_lanes()), on QP m mod (nq / lanes) of each */
	uint32_t start, end;    /* tasks: its first messages wait for start, end for them all */
	uint32_t notice;        /* a second task waiting for them all, + 1 (0: none) */
	uint32_t qp0;           /* its first QP (the connections of a send's channels differ) */
	uint64_t wire;          /* bytes on the wire (payload / protocol efficiency) */
	uint32_t up;            /* the connection feeding its source, PK_NONE */
	uint32_t loops, slices; /* loops, and slices per ring step of a loop */
	uint32_t nmsg;          /* steps x loops x slices */
	uint32_t first;         /* its first message in the ready / recv arrays */
	uint32_t slots;         /* its messages in flight (0: the build's) */
	/* a send's own pace (pkt_nccl.c send_pace()): message m, 1 <= m <= npace, waits for
	 * task pace0 + m - 1, done m periods after the send's start */
	uint32_t pace0, npace;
	uint8_t pxn; /* its flows' PXN proxy, as struct pk_flow pxn has it (0: none) */
	uint8_t nic; /* the NIC its flows leave by, as struct pk_flow nic has it (0: their GPU's) */
	/* an LL chain's edge's first leg, whose split messages' parts take the pace per rank
	 * (pkt_nccl.c rank_part(); a whole message's: pkt_tree.c rank_edge()) */
	uint8_t rank_paced;
	/* a CollNet connection into or out of the fabric's switches, its chunks streamed
	 * through them (pkt_tree.c stream_switch()): each chunk two messages, a unit of
	 * @lead wire bytes first (PK_LEAD_FIRST: into the switches) or last (PK_LEAD_LAST:
	 * out of them) and the rest of the chunk; 0 (PK_LEAD_NONE): one message a chunk */
	uint8_t lead_at;
	uint32_t lead;
};

enum { PK_LEAD_NONE, PK_LEAD_FIRST, PK_LEAD_LAST };

/* The chunk (NCCL's loop) message @m of connection @c belongs to (struct ring_conn
 * lead_at: two messages a chunk). */
static inline uint32_t
ft__pk_msg_chunk(const struct ring_conn *c, uint32_t m)
{
	return c->lead_at ? m / 2 : m;
}

/*
 * The QPs of a connection from @src to @dst: qps_per_conn on every NIC it spreads over
 * (ft__sim_conn_lanes(), the flow engine's rule), QP q leaving by the GPU's NIC of lane
 * q mod per_gpu on InfiniBand and RoCE (NCCL's channels rotate over a GPU's NICs). Under
 * SRD's spraying a flow's packets take the NICs in turn themselves (spray_target()).
 */
static inline uint32_t
ft__pk_conn_qps(const struct pk_engine *e, uint32_t src, uint32_t dst)
{
	return e->cfg.qps_per_conn * (e->spray ? 1 : ft__sim_conn_lanes(e->topo, src, dst));
}

/* The NICs connection @c spreads over: its QPs are qps_per_conn on each (1 where they
 * are not counted so). */
static inline uint32_t
ft__pk_conn_lanes(const struct pk_engine *e, const struct ring_conn *c)
{
	uint32_t qpc = e->cfg.qps_per_conn ? e->cfg.qps_per_conn : 1;

	return c->nq > qpc && c->nq % qpc == 0 ? c->nq / qpc : 1;
}

struct ring_build {
	struct pk_engine *e;
	struct ring_conn *c; /* owned: ft__pk_build_release() frees it */
	uint32_t n, steps;
	uint32_t *ready; /* per message: the task its dependencies go into */
	uint32_t *recv;  /* per message: the task done once it has all arrived */
	uint32_t *last;  /* per QP: the flow sent before, PK_NONE */
	uint32_t tag, start, bar;
	/* each message split over the NICs' lanes (pkt_nccl.c add_message()): a ring's,
	 * tree's and send's connections; else a connection's messages take its QPs in turn */
	bool lane_split;
	/* Under NCCL's per-channel caps (pkt_tree.c ft__pk_cap_period_ps()): message m >= 1
	 * of a connection (a tree's: of an edge's first leg) starts no earlier than m x
	 * pace_ps after the phase's start (0: no pace), m < pace_msgs; built whole, the
	 * barrier done then (pace[m - 1]). */
	uint64_t pace_ps;
	uint32_t pace_msgs;
	uint32_t *pace;
	/* A plain tree's fill on NCCL's channels (pkt_tree.c nccl_fill()): pace m <= fill_n
	 * is m x fill_ps after the start, a later one fill_n x fill_ps + (m - fill_n) x
	 * pace_ps (ft__pk_pace_at()); fill_n 0: m x pace_ps. */
	uint64_t fill_ps;
	uint32_t fill_n;
	/* CollNetDirect's first round (pkt_tree.c collnet_fill()): pace 1 at first_ps after
	 * the start, not fill_ps (0: fill_ps); no later than pace 2. */
	uint64_t first_ps;
	/* An LL chain's pace per rank (pkt_tree.c rank_pace()): part k >= 0 of a split
	 * message m >= 1 of a rank_paced connection starts no sooner than rank_ps after part k
	 * of message m - 1 started (0: none); rank_last[k] that part's flow, PK_NONE. */
	uint64_t rank_ps;
	uint32_t *rank_last;
};

/* When pace @m of @rb is done, ps after the phase's start. */
static inline uint64_t
ft__pk_pace_at(const struct ring_build *rb, uint32_t m)
{
	uint32_t n = m < rb->fill_n ? m : rb->fill_n;

	if (m == 1 && rb->first_ps)
		return rb->first_ps;
	return n * rb->fill_ps + (uint64_t)(m - n) * rb->pace_ps;
}

struct ft_model_chunking;

/* The period, ps, between the loops of phase @ph of @op (wire bytes at @eff) cut into
 * @msgs loops under its conn_cap_Bps (pkt_tree.c cap_pace()); 0: no cap, one loop, or a
 * period that rounds to nothing. */
uint64_t ft__pk_cap_period_ps(const struct ft_sim_op *op, const struct ft_sched_phase *ph,
                              double eff, uint32_t msgs);
/* An LL chain's pace per rank (pkt_tree.c rank_edge()): the task flow @fid's start tells,
 * @u, PK_NONE for none; set it (FT_ENOMEM); when to tell it, ps after the start. */
uint32_t ft__pk_pace_next(const struct pk_engine *e, uint32_t fid);
int ft__pk_pace_set(struct pk_engine *e, uint32_t fid, uint32_t u);
uint64_t ft__pk_pace_next_ps(struct pk_engine *e, uint32_t u);
/* Built whole: @rb's pace barriers (rb->pace), loop m's done m x pace_ps after its start. */
int ft__pk_pace_tasks(struct ring_build *rb);

/* Loops and slices of connection @c carrying @payload over @steps ring steps. */
void ft__pk_cut(struct ring_conn *c, uint64_t payload, uint32_t steps,
                const struct ft_model_chunking *ch);
/* The flows of every message of @rb's connections (@nmsg in all); ready and recv set. */
int ft__pk_add_messages(struct ring_build *rb, uint32_t nmsg);
void ft__pk_build_release(struct ring_build *rb);
/* Whether phase @ph of @sc is a tree all-reduce or a chain broadcast / reduce to cut into
 * NCCL's chunks (pkt_tree.c); submit it so (1: not cut, nothing added: submit it whole). */
bool ft__pk_is_tree(const struct pk_engine *e, const struct ft_schedule *sc,
                    const struct ft_sched_phase *ph);
int ft__pk_submit_tree(struct pk_engine *e, const struct ft_sim_op *op,
                       const struct ft_sched_phase *ph, double eff, uint32_t start, uint32_t bar,
                       uint32_t tag, struct ft_error *err);
/* Whether @sc's hops over NVLink pass on lines as their flags come, its steps cut at the
 * model's grain (pkt_tree.c chain_lines()): an LL or LL128 chain broadcast or reduce, an
 * LL128 tree all-reduce. */
bool ft__pk_lines(const struct ft_schedule *sc);

/*
 * Lazy NVLS trees, trees and rings (pkt_tree.c): a phase's messages are built when their
 * waits are over
 * (tasks not built yet have ids from PK_VIRT) and their records reused once they have
 * ended, so memory holds the messages in flight. Start phase task @t (PK_T_TREE); a wait
 * of task @u (virtual) is over; barrier @t (virtual: a QP's next message may go) is done;
 * built task @t is done (its successors told in the order the whole graph has them); the
 * vertex where a clear-to-send for virtual task @u arrives; before flow @i of the
 * bottleneck walk, the links of the lazy phases submitted there; free.
 */
int ft__pk_tree_start(struct pk_engine *e, uint32_t t);
int ft__pk_tree_pred(struct pk_engine *e, uint32_t u, uint64_t lat_ps);
int ft__pk_tree_sent(struct pk_engine *e, uint32_t t);
int ft__pk_tree_done(struct pk_engine *e, uint32_t t, uint64_t lat_ps);
void ft__pk_tree_handoff(struct pk_engine *e, const struct pk_flow *f);
struct pk_dcqcn *ft__pk_tree_cc(struct pk_engine *e, const struct pk_flow *f);
/* A lossy run's references to flow record @fid (struct pk_refs): one more, one less (the
 * record released when nothing names it and its message has ended), its message ended;
 * the error met in an unref. */
int ft__pk_ref(struct pk_engine *e, uint32_t fid);
void ft__pk_unref(struct pk_engine *e, uint32_t fid);
int ft__pk_ref_ended(struct pk_engine *e, uint32_t fid);
int ft__pk_ref_err(const struct pk_engine *e);
uint32_t ft__pk_tree_src(const struct pk_engine *e, uint32_t u);
int ft__pk_tree_bottleneck(struct pk_engine *e, uint32_t i) FT_MUST_CHECK;
void ft__pk_tree_free(struct pk_engine *e);
/* Ring phase @rb (its @nmsg messages cut, connections paired, @slots in flight on each) as
 * a lazy phase, as an NVLS tree's: 0 (the phase owns @rb's connections), 1 where it is to
 * be built whole (nothing added), or FT_E*. */
int ft__pk_lazy_ring(struct pk_engine *e, struct ring_build *rb, uint32_t nmsg, uint32_t slots);
/* Share @i of @n of @bytes (the remainder to the first ones); before flow @i of the
 * bottleneck walk, the links in @first (per link the first flow to cross it, a key:
 * UINT64_MAX none) in the order of their keys, for op @op (pkt_nccl.c): FT_ENOMEM where
 * the order cannot be had (the bottleneck is the report's: the run's error). */
uint64_t ft__pk_share(uint64_t bytes, uint64_t n, uint64_t i);
uint64_t ft__pk_msg_wire(const struct ring_conn *c, uint32_t m);
int ft__pk_first_links(struct pk_engine *e, uint32_t op, const uint64_t *first) FT_MUST_CHECK;
/* A task or a flow (and its task) into records @task_rec and @flow_rec (PK_NONE: new ones
 * at the end), counted by the lazy phase that builds them (pkt_nccl.c). */
int64_t ft__pk_task_into(struct pk_engine *e, enum pk_task_kind kind, uint64_t delay_ps,
                         double lat_mult, uint32_t op, uint32_t task_rec);
int64_t ft__pk_flow_into(struct pk_engine *e, uint64_t bytes, uint32_t src, uint32_t dst,
                         uint8_t nic, uint32_t qp, uint32_t op, uint32_t task_rec,
                         uint32_t flow_rec);

/*
 * Lazy all-to-alls (pkt_nccl.c): a phase's sends are built when they may start and their
 * records reused once they have ended, so memory holds the sends in flight. Start phase
 * task @t (PK_T_A2A); send end @t (PK_T_A2A_END) is done; whether any phase is lazy;
 * before flow @i of the bottleneck walk, the links of the lazy phases submitted there, in
 * the order their flows first crossed them (each through ft__pk_bottleneck_link()); free.
 */
int ft__pk_lazy_start(struct pk_engine *e, uint32_t t);
int ft__pk_lazy_end(struct pk_engine *e, uint32_t t);
int ft__pk_lazy_notice(struct pk_engine *e, uint32_t t);
int ft__pk_lazy_release(struct pk_engine *e, uint32_t fid);
bool ft__pk_lazy_any(const struct pk_engine *e);
int ft__pk_lazy_bottleneck(struct pk_engine *e, uint32_t i) FT_MUST_CHECK;
void ft__pk_lazy_free(struct pk_engine *e);
/* The op's bottleneck candidate link @k (pkt_report.c); start task @t (a flow's, or a
 * barrier's event); barrier @t is done (its successors may start). */
/* Task @to waits for a pace (pkt_nccl.c): a flow's, marked paced. */
void ft__pk_mark_paced(struct pk_engine *e, uint32_t to);
void ft__pk_bottleneck_link(struct pk_engine *e, uint32_t op, uint32_t k);
/* Op @op's critical path after the run (struct pk_cp): from its start barrier's start to its
 * last message's end (a split run's on rank 0, from the gathered ends, pkt_part.c). */
struct pk_cp ft__pk_op_cp(struct pk_engine *e, uint32_t op);
int ft__pk_start_task(struct pk_engine *e, uint32_t t);
int ft__pk_task_done(struct pk_engine *e, uint32_t t);

/*
 * The fill of message @f's packet pipeline (ps): one packet (its first, up to the MTU,
 * with the link's header) on each link of its path but the slowest, whose time its bytes
 * at the slowest rate count. A message alone on its path ends that long after its bytes
 * at that rate and its path latency (store-and-forward: the first packet crosses each
 * link whole before the next link sends it). Its route's links: its kept path, else the
 * route it was given at its start (routed per hop: each hop's equal-cost ports alike).
 */
uint64_t ft__pk_flow_fill_ps(struct pk_engine *e, const struct pk_flow *f);

/*
 * Message @f's time from its start to now, @seg_ps, onto critical path @c, whole to what
 * it waited on, as a profiler's critical-path analysis charges a wait to what it waited
 * for: the cap's (chain_ps) where it took no longer than the cap lets it take (its bytes
 * at the cap's rate, its path latency and its pipeline's fill, ft__pk_flow_fill_ps(): a
 * flow the cap holds takes that in the flow engine, less the fill, which the flow engine
 * has not), its ports' (fab_ps) where it took longer: a link slower than the cap held it,
 * or its ports' queues did. So a message held below the cap is the link's whole, as the
 * flow engine gives a flow a link holds below its cap to the link
 * (engine_flow.c ft__fs_flow_capped()). With no cap, as long as it would take alone (its
 * ideal time and its fill). Splitting each message at the cap's share instead gave a
 * link that held every message of the path about twice as long as the cap's share before
 * its class was named (docs/internals/sim.md, "The critical path").
 */
static inline void
pk_cp_msg(struct pk_engine *e, struct pk_cp *c, const struct pk_flow *f, uint64_t seg_ps)
{
	uint32_t op = task_at(e, f->task)->op;
	const struct pk_op *o = op < e->ops.len ? ft_vec_at(&e->ops, op) : NULL;
	uint64_t own_ps = (uint64_t)(f->ideal_s * PK_PS_PER_S);

	if (o && o->cap_ps_per_byte > 0)
		own_ps = (uint64_t)((double)f->bytes * o->cap_ps_per_byte) + f->lat_ps;
	if (seg_ps > own_ps && seg_ps > own_ps + ft__pk_flow_fill_ps(e, f))
		c->fab_ps += seg_ps;
	else
		c->chain_ps += seg_ps;
}

/* A split run's record of flow @fid's critical path to its start (pkt_part.c: its source's
 * rank starts it, a crossing packet carries it on to its receiver's). */
struct pk_cp ft__pk_part_start_cp(const struct pk_engine *e, uint32_t fid);

/* Message @f's critical path to its start: its task's (start_task()), or on a split run's
 * rank the one its source's rank started it with (whose task record is there alone). */
static inline struct pk_cp
pk_flow_cp0(struct pk_engine *e, const struct pk_flow *f)
{
	if (e->part)
		return ft__pk_part_start_cp(e, pk_task_flow(e, f->task));
	return task_at(e, f->task)->cp;
}

/* The flow that follows @f on its QP (its next message), or NULL. */
struct pk_flow *ft__pk_qp_next(struct pk_engine *e, const struct pk_flow *f);

/* Flow @f's last packet leaves its NIC: the next message on its QP may start, and
 * takes over the QP's congestion control state (a NIC keeps it per QP). The wait is told
 * through an event at no vertex (PK_EV_TASK naming the next message's task: one wait
 * less, ft__pk_task_done), as the barrier between the two messages once was, which the
 * whole graph no longer builds (a task, an edge and a successor entry per message). */
static inline int
pk_flow_sent(struct pk_engine *e, struct pk_flow *f)
{
	uint32_t t = f->sent_task;
	struct pk_task *own;
	struct pk_flow *next;
	struct pk_cp cp;
	int64_t arg;

	if (t == PK_NONE)
		return 0;
	own = task_at(e, f->task);
	if (t < PK_VIRT && own->sent)
		return 0; /* told already: a go-back-N resend of the tail tells it once */
	/* (the wait's critical path: the message's, to now) */
	cp = pk_flow_cp0(e, f);
	pk_cp_msg(e, &cp, f, e->now_ps - own->t_start_ps);
	arg = ft__pk_cp_arg(e, cp);
	if (arg < 0)
		return (int)arg;
	if (t >= PK_VIRT) { /* a lazy phase's: fired once (its next message is not built) */
		f->sent_task = PK_NONE;
		if (e->qp_cc)
			ft__pk_tree_handoff(e, f);
		return ev_push(e, e->now_ps, PK_EV_TASK, t, (uint32_t)arg);
	}
	own->sent = 1;
	if (e->qp_cc && (next = ft__pk_qp_next(e, f)) != NULL)
		*pk_flow_cc(e, next) = *pk_flow_cc(e, f);
	return ev_push(e, e->now_ps, PK_EV_TASK, t, (uint32_t)arg);
}

/* The path row of packet @seq's flowlet (flowlet_room); without flowlets a flow's one row
 * under adaptive routing (its links to its NIC's port onto the fabric, host_fixed(); the
 * rest chosen per packet), else PK_NONE (its flow routed per hop, or its path kept: npath). */
static inline uint32_t
pk_flowlet_row(const struct pk_engine *e, const struct pk_flow *f, uint32_t seq)
{
	if (f->fl_off == PK_NONE || f->fl_hops == 0)
		return PK_NONE;
	if (!e->cfg.flowlet_bytes)
		return f->fl_off;
	return f->fl_off + (uint32_t)((uint64_t)seq * e->mtu / e->cfg.flowlet_bytes) * f->fl_hops;
}

/* Bytes on the wire of a packet of @payload bytes on link @l (headers, framing). */
static inline uint32_t
pk_wire(const struct pk_link *l, uint32_t payload)
{
	return payload + l->hdr;
}

/* Serialisation time of @wire bytes on @l, picoseconds (rounded to the nearest). */
static inline uint64_t
pk_ser_ps(const struct pk_link *l, uint32_t wire)
{
	return (uint64_t)((double)wire * l->ps_per_byte + 0.5);
}

/* The same, from the port's copy of its link's figures. */
static inline uint64_t
pk_port_ser_ps(const struct pk_port *p, uint32_t wire)
{
	return (uint64_t)((double)wire * p->ps_per_byte + 0.5);
}

/* Header and framing bytes per packet: InfiniBand LRH 8 + BTH 12 + ICRC 4 + VCRC 2
 * (kb IB-MTU); RoCEv2 Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4, plus
 * preamble 8 and inter-frame gap 12 (kb ROCE-WIRE). */
#define PK_HDR_IB   26u
#define PK_HDR_ROCE 82u

/* Switch physics (pkt_phys.c): the IB congestion control table and VL arbitration,
 * set up once the engine's knobs have their defaults; freed by ft__pk_phys_release. */
int ft__pk_phys_setup(struct pk_engine *e, struct ft_error *err) FT_MUST_CHECK;
void ft__pk_phys_release(struct pk_engine *e);
/* The shared buffer of the fabric's switches: its link preset's datasheet figure, or the
 * HPCC simulator's 32 MiB where none is published (kb CC-PFC-ECN). */
uint64_t ft__pk_switch_buffer(const struct ft_cluster_spec *spec);
/* The IB CC rate of a QP at table index @ccti: line rate / (1 + the entry's delay). */
double ft__pk_cct_rate(const struct pk_engine *e, uint32_t ccti);
/* What priority @c of port @l would send next (engine_packet.c): 1 when it may send
 * now, with *src (a sourced flow, else the transit FIFO's head) and *wire (its bytes on
 * the wire); 0 when not (*why: PK_HELD by flow control, PK_PACED by its rate); FT_E*. */
#define PK_HELD  1u
#define PK_PACED 2u
int ft__pk_cls_ready(struct pk_engine *e, uint32_t l, uint32_t c, bool *src, unsigned *why,
                     uint32_t *wire);
/* Whether a sourced flow of priority @c of port @l may send now at its paced rate (reads
 * only: the rates as last updated; pkt_cc.c). */
bool ft__pk_paced_ready(const struct pk_engine *e, uint32_t l, uint32_t c);
/* FT_EINVAL naming the tables when VL arbitration would never send priority @prio. */
int ft__pk_vlarb_check(const struct pk_engine *e, uint32_t prio, struct ft_error *err);
/* IB two-level VL arbitration of port @l: the VL it sends from next (*cls, PK_NONE when
 * none may send), as ft__pk_cls_ready reports it. */
int ft__pk_vlarb_pick(struct pk_engine *e, uint32_t l, uint32_t *cls, bool *src, unsigned *why);

/* Per-port statistics of one link, for tests and the counters writer; NULL once a split
 * run's rank 0 has filled its report from them (drop_ports in pkt_report.c). */
const struct pk_port *ft__pk_port(const struct ft_engine *e, uint32_t link);
/* Bytes a flow's receiver got in order, over all flows, and bytes submitted. */
void ft__pk_bytes(const struct ft_engine *e, uint64_t *submitted, uint64_t *delivered);

#endif

/* SPDX-License-Identifier: MIT */
/*
 * fabtune/sim.h - the twin: engines that run collective schedules and
 * background traffic over a topology, and the scenarios that drive them.
 *
 * Engines sit behind one ops table (struct ft_engine_ops): "analytic"
 * (contention-free alpha-beta: every phase costs its slowest flow alone on
 * its path plus the per-step latencies) and "flow" (event-driven, max-min
 * fair sharing of every link a flow crosses: NVLink, PCIe, NIC and each
 * fabric tier). A packet-level engine plugs in the same way.
 *
 * A scenario (YAML) names a cluster, jobs (sequences of collectives or
 * training iterations of compute plus collectives, each with a rank -> GPU
 * placement), background traffic, faults, routing and a seed. Running it
 * gives result rows in the shared data model (source = sim) plus flow
 * completion times and per-link counters. The same scenario and seed give
 * byte-identical output.
 *
 * Thread-safety: objects are not shared between threads; distinct objects
 * may be used from distinct threads.
 */
#ifndef FABTUNE_SIM_H
#define FABTUNE_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fabtune/base.h>
#include <fabtune/coll.h>
#include <fabtune/json.h>
#include <fabtune/model.h>
#include <fabtune/progress.h>
#include <fabtune/result.h>
#include <fabtune/spec.h>
#include <fabtune/topo.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Knobs of the packet engine ("packet"); zero fields take the documented
 * defaults (docs/cmd/sim.md). Flow control: IB credits on InfiniBand
 * fabrics, PFC on RoCE, or none (lossy: a full buffer drops, go-back-N).
 */
enum ft_pkt_fc {
	FT_PKT_FC_AUTO,   /* credits on IB and TCP, PFC on RoCE, none on EFA */
	FT_PKT_FC_CREDIT, /* IB link-level credits (64-byte blocks) */
	FT_PKT_FC_PFC,    /* 802.1Qbb XOFF/XON with headroom */
	FT_PKT_FC_NONE,   /* lossy: drops and go-back-N recovery */
};

enum ft_pkt_cc {
	FT_PKT_CC_AUTO,  /* DCQCN on RoCE, SRD on EFA, none on InfiniBand and TCP */
	FT_PKT_CC_NONE,
	FT_PKT_CC_DCQCN,
	FT_PKT_CC_IBCC,  /* InfiniBand congestion control (IBA annex A10): FECN, BECN, CCT */
	FT_PKT_CC_TIMELY, /* RTT-gradient rate control (RoCE) */
	FT_PKT_CC_SRD,    /* EFA: additive increase, multiplicative decrease on RTT */
};

/* How a port picks the next priority to send (kb ROCE-QOS, IB-VL): strict (the highest
 * priority with a packet that flow control lets go) or weighted round robin. */
enum ft_pkt_arb {
	FT_PKT_ARB_STRICT,
	FT_PKT_ARB_WRR, /* prio_weight packets of a priority per round */
	FT_PKT_ARB_VLARB, /* InfiniBand: the two-level VLArbitration tables (kb IB-VL) */
};

#define FT_PKT_CCT_MAX   256 /* congestion control table entries a scenario may list */
#define FT_PKT_VLARB_MAX 64  /* entries of a VLArbitration table (IBA: 64 per table) */

/* One VLArbitration table entry: VL @vl may send @weight x 64 bytes per turn. */
struct ft_vlarb_entry {
	uint8_t vl;
	uint8_t weight;
};

/* What the packet engine does inside a connection (kb NA-CONCEPTS): NCCL's
 * chunking of ring phases into slices, or one flow per QP carrying it all. */
/* What a PFC watchdog does to a priority it finds stormed (SONiC's `config pfcwd start
 * --action`, kb ROCE-PFC). */
enum ft_pkt_wd_action {
	FT_PKT_WD_FORWARD, /* the sender ignores pauses until restored */
	FT_PKT_WD_DROP,    /* and its queue discards what it holds and what comes for it */
	FT_PKT_WD_ALERT,   /* only counted: pauses are still honoured */
};

/* A feature of the packet engine that is on unless turned off (packet.tcp_sack, ...). */
enum ft_pkt_onoff {
	FT_PKT_ON,
	FT_PKT_OFF
};

enum ft_pkt_chunking {
	FT_PKT_CHUNK_AUTO, /* NCCL's for collectives; send/recv and background whole */
	FT_PKT_CHUNK_NCCL, /* NCCL's, send/recv and background patterns too */
	FT_PKT_CHUNK_OFF,
};

#define FT_PKT_NPRIO 8 /* traffic classes per port: RoCE priorities, IB data VLs */

struct ft_packet_cfg {
	uint32_t mtu_bytes;           /* payload per packet; 0 = the fabric's MTU */
	enum ft_pkt_fc fc;
	uint64_t port_buffer_bytes;   /* per ingress port: credit space, lossy limit; 0 = 32 MTU */
	uint64_t switch_buffer_bytes; /* shared per switch; 0 = 32 MiB */
	double lossy_alpha;           /* lossy queues at a switch take alpha x its free shared
	                               * buffer (dynamic threshold); 0 = 1/8 */
	uint64_t pfc_xoff_bytes;      /* 0 = 15 MTU-sized packets */
	uint64_t pfc_xon_bytes;       /* 0 = 12 MTU-sized packets */
	uint64_t pfc_headroom_bytes;  /* 0 = 2 x (rate x latency + wire MTU) of the link */
	bool store_forward;           /* false: cut-through, as InfiniBand and data-centre
	                               * Ethernet switch ASICs forward (NVIDIA's Quantum
	                               * product briefs: port-to-port latency of about 130 ns
	                               * on HDR, less than a 4 KiB packet's 164 ns on the
	                               * wire, which store and forward could not reach) */
	uint32_t ib_timeout;          /* NCCL_IB_TIMEOUT: retransmit after 4.096 us x 2^n; 0 = 20 */
	double rto_s;                 /* retransmit timeout, overrides ib_timeout when > 0 */
	/* NCCL_IB_RETRY_CNT (kb ENV-IB_RETRY_CNT): retransmit timeouts in a row without
	 * progress a QP retries; one more and it goes to the error state (the run ends with
	 * the transport retry error). 0 to 7; ib_retry_cnt_set false: NCCL's default 7. */
	uint32_t ib_retry_cnt;
	bool ib_retry_cnt_set;
	double ber;                   /* bit error rate of host and fabric links (drops) */
	/* TCP (GPUDirect-TCPX/O): bytes a flow may have unacknowledged; 0 = 1 MiB */
	uint64_t tcp_window_bytes;
	/* TCP's selective ACKs (net.ipv4.tcp_sack), the receiver's delayed ACKs, and the
	 * sender's internal pacing: each FT_PKT_ON (0, as Linux) or FT_PKT_OFF */
	enum ft_pkt_onoff tcp_sack, tcp_delayed_ack, tcp_pacing;
	/* Congestion control (RoCE): ECN marking at switch egress (RED on the queue) and
	 * DCQCN at the NICs; zero fields take the mlx5 / simulator defaults (kb CC-DCQCN). */
	enum ft_pkt_cc cc;
	uint64_t ecn_kmin_bytes, ecn_kmax_bytes; /* 0 = 4 / 16 KB per Gb/s of the port */
	double ecn_pmax;              /* 0 = 0.2 */
	double cnp_interval_s;        /* min_time_between_cnps; 0 = 4 us */
	double dcqcn_timer_s;         /* rpg_time_reset; 0 = 300 us */
	uint64_t dcqcn_byte_counter;  /* rpg_byte_reset; 0 = 32767 B */
	double dcqcn_ai_bps;          /* rpg_ai_rate; 0 = 5 Mb/s */
	double dcqcn_hai_bps;         /* rpg_hai_rate; 0 = 50 Mb/s */
	double dcqcn_g;               /* alpha gain; 0 = 5/1024 (dce_tcp_g 1019) */
	double dcqcn_min_dec;         /* rpg_min_dec_fac; 0 = 0.5 */
	/* InfiniBand CC (kb CC-IB); zero fields take the defaults. */
	double ccti_timer_s;          /* CCTI_Timer: one CCTI step back per expiry; 0 = 10 us */
	uint32_t ccti_increase;       /* CCTI_Increase per BECN; 0 = 1 */
	uint32_t ccti_limit;          /* CCTI_Limit (CCT entries - 1); 0 = 127 */
	uint64_t ibcc_threshold_bytes; /* switch: mark FECN above this queue; 0 = 8 wire MTUs */
	uint32_t ibcc_marking_rate;   /* Marking_Rate: packets between marks; 0 = 10 */
	uint32_t ccti_min;            /* CCTI_Min: the timer lowers the index to it; 0 */
	double cct_max_delay_s;       /* built table: delay of its last entry; 0 = 8 packet times */
	uint32_t ncct;                /* entries given (cct), 0 = build the table */
	uint16_t cct[FT_PKT_CCT_MAX]; /* CCT_Shift << 14 | CCT_Multiplier, per index */
	/* PFC watchdog (kb ROCE-PFC): a priority paused without a break this long stops
	 * honouring pauses (a storm detected); 0 = off. It honours them again (restored) once
	 * pfc_watchdog_restore_s passes without a PFC frame reaching it; 0 = the watchdog's
	 * own time. */
	double pfc_watchdog_s;
	double pfc_watchdog_restore_s;
	enum ft_pkt_wd_action pfc_watchdog_action; /* 0: forward */
	/* Pause time an XOFF asks for, in quanta of 512 bit times at the link's speed (IEEE
	 * 802.1Qbb); 0 = 0xFFFF. A buffer still above XON re-sends its XOFF every
	 * pfc_refresh_s; 0 = half the pause's time on each link. */
	uint32_t pfc_quanta;
	double pfc_refresh_s;
	/* NCCL inside a connection (kb NA-CONCEPTS, ENV-IB_QPS, ENV-IB_SPLIT): ring phases cut
	 * into NCCL's slices, pipelined hop by hop; a connection's QPs take its messages
	 * round robin, or every message split over all of them (NCCL_IB_SPLIT_DATA_ON_QPS). */
	enum ft_pkt_chunking chunking;
	bool split_data_on_qps;
	/* The NIC's send pipeline (docs/internals/sim.md, *NIC message rate*): at most
	 * nic_msg_rate messages a second leave one NIC (0: no limit), and
	 * nic_msg_rate_miss while the QPs with messages in flight through it outnumber
	 * the nic_qp_cache contexts it holds on chip (0 rates: nic_msg_rate; 0 cache:
	 * all). Off unless given: no public figure names them for a NIC model. */
	double nic_msg_rate, nic_msg_rate_miss;
	uint32_t nic_qp_cache;
	/* Priorities (traffic classes): one egress queue, PFC state and credit pool per
	 * priority and port; sources pick theirs (struct ft_sim_op prio). */
	enum ft_pkt_arb arb;
	uint32_t prio_weight[FT_PKT_NPRIO]; /* WRR packets per round; 0 = 1 */
	uint8_t lossy_prios; /* PFC: bit p set = priority p is not paused (it drops) */
	/* FT_PKT_ARB_VLARB: the high- and low-priority tables and the high limit (4 KB
	 * units of high-priority bytes before a ready low-priority packet goes; 255 never;
	 * 0: one packet). No entries: OpenSM's defaults (high 0:4, low 1:4 to 7:4). */
	uint32_t vlarb_high_limit;
	uint8_t nvlarb_high, nvlarb_low;
	struct ft_vlarb_entry vlarb_high[FT_PKT_VLARB_MAX];
	struct ft_vlarb_entry vlarb_low[FT_PKT_VLARB_MAX];
	/* --trace: ports sampled over time (borrowed link ids) every trace_interval_s. */
	const uint32_t *trace_links;
	uint32_t ntrace_links;
	double trace_interval_s; /* 0 = 1 us */
	/* and the QPs of these flows (borrowed ids, the engine's flow numbering): each
	 * sample follows the QP to the message it sends then */
	const uint32_t *trace_qps;
	uint32_t ntrace_qps;
	uint32_t list_flows; /* counters(): the rows of the first this many flow ids */
};

/* One traced QP: its reaction point's rate (DCQCN Rc, IB CC's CCT rate; line rate
 * when not limited) and DCQCN's alpha at each sample time. */
struct ft_sim_qp_trace {
	uint32_t flow;     /* the flow id it was asked by */
	uint32_t src, dst; /* vertices */
	uint32_t qp;       /* the QP's index in its connection */
	size_t nsamples;
	const double *t_s;
	const double *rate_Bps;
	const double *alpha;
};

/* A flow id of the packet engine (--trace-qps takes it): the message its record held
 * last (the records of an all-to-all's lazy phases are reused phase after phase). */
struct ft_sim_flow_row {
	uint32_t id;
	uint32_t src, dst; /* vertices */
	uint32_t qp;       /* the QP's index in its connection */
	uint32_t op;       /* the op's index (ft_sim_counters.ops) */
	uint64_t bytes;
	double start_s; /* when it started; NaN when it never did */
	double fct_s;   /* its completion time; NaN when unfinished */
};

/* One traced port: samples at t_s of its rate over the last interval and its queue. */
struct ft_sim_trace {
	uint32_t link;
	size_t nsamples;
	const double *t_s;         /* end of each interval */
	const double *rate_Bps;    /* wire bytes sent in the interval / interval */
	const double *queue_bytes; /* egress queue at t_s */
};

/* How flows are routed and split (the engine's knobs, not the topology's). */
struct ft_sim_cfg {
	enum ft_routing routing; /* ECMP, DMODK or ADAPTIVE (least-loaded equal-cost link) */
	uint32_t qps_per_conn;   /* flows per connection, as NCCL_IB_QPS_PER_CONNECTION (>= 1) */
	uint64_t flowlet_bytes;  /* ADAPTIVE: re-choose the path every this many bytes; 0 never */
	uint64_t seed;           /* ECMP salts and random choices derive from it */
	const struct ft_progress *progress; /* borrowed; NULL for none */
	const struct ft_packet_cfg *packet; /* packet engine's knobs, borrowed; NULL: defaults */
	/* flow engine: ends within rate_rtol of an FCT share a rate recomputation, and ends
	 * that hand back at most rate_rtol of each limiting link's capacity wait for the next
	 * (docs/internals/sim.md, "A coarser rate tolerance"); 0: every end recomputes, the
	 * exact max-min rates. Read only with have_rate_rtol (else 1e-2). */
	bool have_rate_rtol;
	double rate_rtol;
	/* The model's cache (model.h ft_model_cache) the analytic engine's queries read,
	 * borrowed: a caller that queries the model itself on the same cluster (the runner's
	 * algorithm pick, ft_scenario_run()) shares its own. NULL: the engine makes one for
	 * its life (uncached where it cannot); the same times either way. */
	struct ft_model_cache *model_cache;
};

FT_API void ft_sim_cfg_init(struct ft_sim_cfg *cfg);

/* One collective (or traffic pattern) handed to an engine. */
struct ft_sim_op {
	const struct ft_schedule *sched; /* borrowed for the call */
	const uint32_t *rank_gpu;        /* sched->nranks GPU vertex ids (placement), borrowed */
	int64_t after;                   /* op id it waits for, -1 for none (starts at time 0) */
	double delay_s;                  /* compute or idle time between `after` and its start */
	uint32_t job;                    /* job index, for reporting */
	/* What one connection of the schedule (an NCCL channel's flow) can carry at
	 * most, bytes/s on the wire, whatever its links leave it; 0: no cap. Engines
	 * that model no channels may ignore it. */
	double conn_cap_Bps;
	/* What that cap is where it binds, in the words of the bottleneck column
	 * ("kernel:LL128": the rate NCCL's kernel reaches with the protocol,
	 * ft_model_kernel_algbw()); NULL or "": the link the op's slowest flow crosses names
	 * it. Read while the op is submitted. */
	const char *conn_cap_what;
	uint8_t prio; /* priority (RoCE traffic class, IB VL) of its flows, < FT_PKT_NPRIO */
	/*
	 * Its flows' start offsets (struct ft_sched_flow.start_ns, largest L) are jitter
	 * about one nominal start: an op that waits for this one then starts delay_s after
	 * the latest of its flows' ends less each one's offset (when the burst would have
	 * ended had every flow started at once and taken as long as it did), which needs
	 * delay_s >= L. False: after its last flow (the flow and packet engines).
	 */
	bool nominal_end;
	/*
	 * An op that waits for this one learns of its end as its senders do: each flow's end
	 * one path latency after its receiver took the last packet (the last ACK or completion
	 * back at the sender), as an all-to-all send's end is counted. The next burst of an
	 * on/off source waits so. False: when its last flow's receiver had everything.
	 */
	bool end_acked;
	/*
	 * NCCL's pipeline: the chunks each copy of a pipelined phase (an NVLS tree, CollNet)
	 * moves one after another, every flow cut into as many (the flow engine). 0: as NCCL
	 * cuts it on the engine's cluster (ft_model_nvls_tree_chunking(),
	 * ft_model_collnet_chunking()); 1: whole flows. Engines that chunk by their own rule
	 * may ignore it (the packet engine takes it for CollNet alone).
	 */
	uint32_t pipe_chunks;
	/*
	 * The channels forced on the op (NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS, a job op's
	 * channels, --channels; kb ENV-NCHANNELS), 0: NCCL's own count. The schedule's flows
	 * carry the channels already; the flow engine's pipeline terms of a ring or tree run
	 * whole (its ramp, its proxy's floor) start from this count, as the model's do.
	 */
	uint32_t nchannels;
};

/* Timing of one submitted op. */
struct ft_sim_op_result {
	uint32_t job;
	double t_start_s; /* when its first phase could start */
	double t_end_s;   /* when its last phase ended */
	uint32_t bottleneck_link; /* link that limited its slowest flow; UINT32_MAX when none */
	/* What binds it when the engine took its time from the analytic model (the model's
	 * own word: "nvlink", "channels", "latency", ...); "" when a link decides. */
	char bottleneck[16];
	bool failed;      /* the run ended before it did (a QP error): t_end_s is that instant */
};

/* Statistics of one link after a run. */
struct ft_sim_link_stat {
	uint32_t link;      /* link id in the topology */
	double bytes;       /* bytes carried */
	double util;        /* bytes / (capacity x makespan) */
	uint32_t max_flows; /* most flows sharing it at once */
};

/* Per-port counters of the packet engine, per directed link (its sender's port; the
 * ingress fields are of the buffer at the link's far end). */
struct ft_sim_port_counters {
	uint64_t tx_bytes, tx_pkts; /* on the wire: headers and retransmissions included */
	uint64_t drops;             /* dropped at its ingress (full buffer, bit errors) */
	uint64_t drops_corrupt;     /* of which bit errors (the rest: no buffer) */
	uint64_t pause_tx;          /* PFC frames its ingress buffer sent upstream: XOFF, its
	                             * refreshes and XON (ethtool -S tx_prio<p>_pause) */
	uint64_t pause_rx;          /* PFC frames its sender received (rx_prio<p>_pause) */
	double paused_s;            /* time its sender was paused */
	double xmit_wait_s;         /* time it had data but no credits / was paused */
	uint64_t ecn_marked;        /* packets it marked CE */
	/* NIC counters, on a NIC's links to and from the fabric (where ethtool -S reads
	 * them), whether flows end at the NIC or at a GPU behind it */
	uint64_t ecn_rx;            /* CE packets delivered over it to its far end */
	uint64_t cnp_sent;          /* CNPs its far end (a receiving NIC) sent */
	uint64_t cnp_handled;       /* CNPs that reached senders whose NIC it leaves */
	uint64_t q_max_bytes;       /* its egress queue: largest */
	double q_mean_bytes;        /* and time-averaged from the run's start to its ops'
	                             * end (or its last change, if later) */
	uint64_t q_p99_bytes;       /* and its time-weighted 99th percentile over that span:
	                             * the upper edge of a histogram bin, at most the
	                             * largest (less than a quarter above the true one) */
	uint64_t pfc_wd_fires;      /* PFC watchdog expiries of its sender (paused too long) */
	uint64_t pfc_wd_restores;   /* of which restored (no PFC frame for the restore time) */
	/* pfc_watchdog_action drop: packets its stormed queue discarded, those it held when
	 * the storm was detected and those that came for it while the storm lasted */
	uint64_t pfc_wd_drops_held, pfc_wd_drops_arrived;
	/* The last storm on the port (SONiC's show pfcwd stats TX/RX LAST OK/DROP), from its
	 * detection to its restoration (to the run's end while it lasts; 0 without one):
	 * packets it sent and its watchdog discarded, and at its own switch's ingress
	 * (the reverse link's far end) packets received whole and dropped */
	uint64_t pfc_wd_last_tx_ok, pfc_wd_last_tx_drop;
	uint64_t pfc_wd_last_rx_ok, pfc_wd_last_rx_drop;
	/* A requester's RDMA counters, on a NIC's link to the fabric: retransmit timeouts of
	 * the QPs that leave by it (mlx5 local_ack_timeout_err), and of those QPs the ones
	 * that ran out of retries (req_transport_retries_exceeded; kb ROCE-COUNTERS) */
	uint64_t ack_timeouts, retries_exceeded;
	/* and the rest of its go-back-N, as mlx5 counts it: sequence NAKs its requesters
	 * received (packet_seq_err); at its far end (a receiving NIC, the responder) the
	 * packets that came past a gap (out_of_sequence), those it had already taken
	 * (duplicate_request) and the messages, RDMA writes, it received whole
	 * (rx_write_requests) */
	uint64_t seq_naks, out_of_seq, dup_requests, rx_writes;
	struct ft_sim_prio_counters {
		uint64_t tx_bytes, tx_pkts; /* of this priority, on the wire */
		uint64_t pause_tx, pause_rx; /* PFC frames for it, as above */
		double paused_s;             /* time it was paused at the sender */
		double xmit_wait_s;          /* time it had data its flow control held */
		double arb_wait_s;           /* time it could send (data, and its flow
		                              * control let it) while the port sent another
		                              * priority's packet: the arbiter held it */
		uint64_t drops, drops_corrupt; /* dropped at its ingress, as above */
		uint64_t ecn_marked, ecn_rx; /* CE marks set, CE packets delivered, */
		uint64_t cnp_sent, cnp_handled; /* CNPs sent and handled, as above */
		/* Its own egress queue, as the port's above over the same span: bytes of
		 * this priority's FIFO; a port where it alone ever queued gives the port's
		 * figures (their means sum to the port's, their largest to at least its) */
		double q_mean_bytes;
		uint64_t q_p99_bytes, q_max_bytes;
	} prio[FT_PKT_NPRIO];       /* per priority (the sums are the fields above) */
};

/* What an engine reports after a run. Arrays are owned by the engine (views). */
/*
 * Packet engine: what one op's flows did, the run's counters op by op. Packets are those
 * its flows sent, retransmissions included; ECN marks those switches put on its packets;
 * CNPs those its receivers sent back; bytes its payload; FCT figures over its flows (0
 * when none finished). PFC pause frames are a port's, not an op's: run totals only.
 */
struct ft_sim_op_counters {
	uint64_t nflows, npackets, ndrops, nretx, necn, ncnp;
	uint64_t bytes;
	double fct_p50_s, fct_p99_s, fct_max_s;
};

struct ft_sim_counters {
	double makespan_s;   /* end of the last op */
	uint64_t nflows;     /* flows that carried bytes */
	uint64_t nevents;    /* engine events processed */
	uint64_t nrecompute; /* rate recomputations (flow engine) */
	uint64_t nrecompute_full; /* of which over every active flow (the rest: incremental) */
	/* flow paths the recomputations walked: their cost (JSON path_walks) */
	uint64_t npath_walks;
	uint64_t nsel_reads;  /* link -> flows entries first grown guesses read (not printed) */
	double bytes;        /* payload bytes moved (wire bytes) */
	/* packet engine (0 elsewhere) */
	uint64_t npackets;   /* packets injected, retransmissions included */
	uint64_t ndrops;     /* packets dropped (full buffer, bit errors) */
	uint64_t nretx;      /* packets sent again (go-back-N, selective, TCP) */
	uint64_t nfast_retx; /* TCP: fast retransmits (three duplicate ACKs) */
	uint64_t ntail_probes; /* SRD: tail-loss probes that resent packets */
	uint64_t nsack_recoveries; /* TCP: fast recoveries led by selective ACKs */
	uint64_t ndelayed_acks;    /* TCP: ACKs the receiver's delayed-ACK timer sent */
	uint64_t ntcp_timeouts;    /* TCP: retransmit timeouts (RTO expiries) */
	uint64_t nloss_probes;     /* TCP: tail-loss probes sent (RFC 8985 7) */
	uint64_t nloss_probe_recoveries; /* TCP: of them, those that mended a loss */
	uint64_t nreo_timeouts;    /* TCP: RACK reordering timers that marked packets lost */
	uint64_t nlost_retransmits; /* TCP: resends RACK found lost again */
	uint64_t ndsacks;          /* TCP: D-SACKs received (a packet that came twice) */
	uint64_t npause;     /* PFC pause frames sent */
	uint64_t necn;       /* packets marked CE */
	uint64_t ncnp;       /* CNPs sent by receivers */
	uint64_t nwatchdog;  /* PFC watchdog expiries (ports that stopped honouring pauses) */
	uint64_t nwd_restores; /* of which restored (honouring pauses again) */
	uint64_t nwd_drops;    /* packets stormed queues discarded (action drop) */
	bool pfc_watchdog;     /* the packet engine ran with a PFC watchdog */
	enum ft_pkt_wd_action pfc_wd_action; /* and its action */
	/* NIC send pipelines (packet.nic_msg_rate; 0 without): messages timed, of which
	 * with their QP's context not cached, and the time they waited for the pipeline
	 * (summed over messages) */
	uint64_t nic_msgs, nic_missed;
	double nic_wait_s;
	/* flow completion times over all flows, seconds */
	double fct_min_s, fct_p50_s, fct_p99_s, fct_max_s;
	/* uncontended time of a flow (bytes / bottleneck capacity + path latency) */
	double ideal_min_s, ideal_p50_s, ideal_max_s;
	/* per-flow fct / ideal */
	double slowdown_p50, slowdown_p99, slowdown_max;
	/* packet engine, when flows ran at several priorities: each one's flows, by
	 * priority (nprio_fct 0 otherwise) */
	struct ft_sim_prio_fct {
		uint32_t prio;
		uint64_t nflows;
		double fct_p50_s, fct_p99_s, fct_max_s;
		double slowdown_p50;
	} prio_fct[FT_PKT_NPRIO];
	uint32_t nprio_fct;
	size_t nops;
	const struct ft_sim_op_result *ops;
	const struct ft_sim_op_counters *op_counters; /* nops entries (packet engine), else NULL */
	uint32_t nlinks;
	const double *link_bytes; /* per link id, bytes carried */
	const uint32_t *link_max_flows;
	const struct ft_sim_port_counters *port; /* nlinks entries (packet engine), else NULL */
	const struct ft_sim_trace *trace;        /* ntrace traced ports (packet engine) */
	size_t ntrace;
	const struct ft_sim_qp_trace *qp_trace;  /* nqp_trace traced QPs (packet engine) */
	size_t nqp_trace;
	/* ft_packet_cfg.list_flows: flow ids 0 to nflow_rows - 1 of nflow_ids (packet engine) */
	const struct ft_sim_flow_row *flow_rows;
	size_t nflow_rows;
	uint64_t nflow_ids;
	/* packet engine split across MPI ranks: this process's rank; only rank 0 holds the
	 * result (the rest of this struct is not valid elsewhere). 0 when not split. */
	uint32_t part_rank;
	/* Packet engine: the run stopped because nothing could move any more while flows
	 * were unfinished (a cyclic buffer dependency: a deadlock of credits or pauses);
	 * the counters are up to then, when the last thing happened. */
	struct ft_sim_stall {
		bool stalled;
		double t_s;          /* the last event, when the deadlock was detected */
		uint64_t unfinished; /* flows left unfinished, of nflows_all */
		uint64_t nflows_all;
	} stall;
	/* Packet engine: the QP that ran out of retries and ended the run (its send
	 * completing with IBV_WC_RETRY_EXC_ERR, status 12; kb SYM-ERR-12), when one did. */
#define FT_SIM_QP_ERR_STATUS 12u /* ibv_wc_status of a QP out of retries (kb SYM-ERR-12) */
#define FT_SIM_QP_ERR_NAME "IBV_WC_RETRY_EXC_ERR"
/* errno of a TCP connection that ran out of retransmissions (Linux's tcp_write_err()) */
#define FT_SIM_TCP_ERR_STATUS 110u
#define FT_SIM_TCP_ERR_NAME "ETIMEDOUT"
	struct ft_sim_qp_error {
		bool failed;
		uint32_t src, dst;  /* its flow's vertices */
		uint32_t nic;       /* the NIC it leaves by (vertex), UINT32_MAX when none */
		uint32_t qp;        /* its index in the connection */
		uint32_t op;        /* the op its flow belongs to */
		uint32_t link_down; /* a link down on its path, UINT32_MAX when none */
		uint32_t timeouts;  /* in a row without an ACK: NCCL_IB_RETRY_CNT + 1 */
		uint32_t retry_cnt, ib_timeout; /* NCCL_IB_RETRY_CNT, NCCL_IB_TIMEOUT (0: the
		                                 * timeout given as packet.retransmit_timeout) */
		double t_s, timeout_s; /* when, and the timeout it waited each time */
		bool partial; /* split across MPI ranks: this rank's part of the run only */
		/* a TCP connection (TCPX/O), failed by Linux's tcp_retries2 rule: retry_cnt is
		 * tcp_retries2, timeouts the count it took, rtx_s its first resend */
		bool tcp;
		double rtx_s;
	} qp_error;
};

struct ft_engine {
	const struct ft_engine_ops *ops;
};

/*
 * The engine interface. create() borrows @topo (it must outlive the engine,
 * faults already applied with ft_topo_set_link_scale()); submit() returns the
 * new op's id (>= 0) or FT_E*; run() runs until every op is done (or past
 * @until_s when > 0); counters() fills views valid until destroy().
 */
struct ft_engine_ops {
	const char *name; /* "analytic", "flow" */
	const char *summary;
	int (*create)(const struct ft_topo *topo, const struct ft_sim_cfg *cfg,
	              struct ft_engine **out, struct ft_error *err);
	int64_t (*submit)(struct ft_engine *e, const struct ft_sim_op *op, struct ft_error *err);
	int (*run)(struct ft_engine *e, double until_s, struct ft_error *err);
	int (*counters)(struct ft_engine *e, struct ft_sim_counters *out, struct ft_error *err);
	void (*destroy)(struct ft_engine *e);
	/*
	 * The engine serialises every packet's headers itself: the scenario
	 * runner then leaves NIC and fabric links at their line rate instead of
	 * reducing them by the header share at the fabric's MTU.
	 */
	bool wire_headers;
};

FT_API extern const struct ft_engine_ops ft_analytic_engine;
FT_API extern const struct ft_engine_ops ft_flow_engine;
FT_API extern const struct ft_engine_ops ft_ideal_engine;
FT_API extern const struct ft_engine_ops ft_packet_engine;

/* Registered engines, and lookup by name (NULL when unknown). */
FT_API size_t ft_sim_engine_count(void);
FT_API const struct ft_engine_ops *ft_sim_engine_at(size_t i);
FT_API const struct ft_engine_ops *ft_sim_engine_find(const char *name);

/* ---- scenarios ------------------------------------------------------------ */

struct ft_scenario; /* opaque: a loaded, validated scenario */

/*
 * Load a scenario file. Errors name "file:line:col: field: expected X, got Y"
 * (FT_EPARSE, FT_ERANGE); a missing file or cluster spec file is FT_ENOENT.
 */
FT_API int ft_scenario_load_file(const char *path, struct ft_scenario **out,
                                 struct ft_error *err) FT_MUST_CHECK;
FT_API int ft_scenario_load_buffer(const char *text, size_t len, const char *file,
                                   struct ft_scenario **out, struct ft_error *err) FT_MUST_CHECK;
FT_API void ft_scenario_free(struct ft_scenario *sc);
/*
 * Whether @path looks like a scenario (a YAML mapping with a top-level `cluster` key): 1,
 * else 0 (a file that cannot be read too: the caller's read of it says why), or FT_ENOMEM
 * with the file in @err.
 */
FT_API int ft_scenario_sniff(const char *path, struct ft_error *err) FT_MUST_CHECK;
/*
 * The cluster of @arg: a cluster spec as ft_spec_resolve() takes it, or a
 * scenario file's `cluster:` (what --spec of diagnose and advise accepts).
 */
FT_API int ft_scenario_cluster_resolve(const char *arg, struct ft_cluster_spec *out,
                                       struct ft_error *err) FT_MUST_CHECK;

/*
 * A scenario built from a spec and one collective swept over sizes (what
 * `fabtune sim SPEC --op alltoall -b 1M -e 1G -f 2` runs): one job of all
 * GPUs, packed, one op per size.
 */
struct ft_sim_sweep_args {
	const char *spec; /* spec file or preset shorthand */
	enum ft_op op;
	enum ft_algo algo;   /* FT_ALGO_COUNT: NCCL's tuner picks, size by size */
	enum ft_proto proto; /* FT_PROTO_COUNT: NCCL's tuner picks */
	/* algo FT_ALGO_COLLNET: CollNetDirect or CollNetChain forced, or AUTO (the tuner's) */
	enum ft_collnet_variant collnet;
	uint64_t min_bytes, max_bytes;
	double factor;     /* size multiplier, >= 2 or 0 for one size */
	uint32_t nranks;   /* 0 = every GPU */
	uint32_t channels; /* NCCL channels (rings, one per rail); 0 = one per NIC */
};
FT_API int ft_scenario_from_op(const struct ft_sim_sweep_args *a, struct ft_scenario **out,
                               struct ft_error *err) FT_MUST_CHECK;

/* Overrides applied on top of the scenario (the command line's options). NULL/0 keep it. */
struct ft_sim_overrides {
	const char *engine;    /* "analytic" / "flow" */
	int routing;           /* enum ft_routing, or -1 */
	uint32_t qps_per_conn; /* 0 = keep */
	bool have_seed;
	uint64_t seed;
	double fabric_scale; /* multiply every fabric and host link's capacity; 0 = keep */
	uint64_t bytes;      /* size of every op of every job; 0 = keep */
	int placement;       /* "packed" 0, "spread" 1, "random" 2 for every job; -1 = keep */
	const char
	        *cluster; /* preset shorthand or spec file replacing the scenario's; NULL keeps */
	bool no_faults;   /* drop the scenario's faults */
	bool no_nvls;     /* NCCL_NVLS_ENABLE=0 for every job: neither nvls nor nvls_tree */
	bool counters;    /* packet engine: render port counters as the real tools print them */
	const uint32_t *trace_links; /* packet engine: ports to sample over time (borrowed) */
	uint32_t ntrace_links;
	double trace_interval_s;     /* 0 = 1 us */
	const uint32_t *trace_qps;   /* and the QPs of these flow ids (borrowed) */
	uint32_t ntrace_qps;
	uint32_t list_flows;         /* packet engine: list the first this many flow ids */
	bool have_rate_rtol;         /* flow engine: rate_rtol given (ft_sim_cfg.rate_rtol) */
	double rate_rtol;
	/* The NCCL release every job runs (ft_model_query's encoding; 0: the newest): the
	 * engines take its channels, p2p channels and schedule, copies and tree corrections
	 * from the model at it (the cluster's spec nccl_version). */
	uint32_t nccl_version;
	/* Who gave nccl_version, for the note where it predates the GPUs: the field
	 * ("vary.nccl") and the file:line:col of its value (borrowed; NULL: "--nccl", the
	 * option, which has no place). */
	const char *nccl_field, *nccl_where;
};

/* Fill @ov with "keep everything". */
FT_API void ft_sim_overrides_init(struct ft_sim_overrides *ov);

/* ft_sim_args.ranks when --ranks is not given. */
#define FT_SIM_RANKS_UNSET UINT64_MAX

/*
 * What `fabtune sim` is asked, as given: names and numbers still to check.
 * ft_sim_args_init() sets the defaults; NULL or 0 keeps the scenario's.
 */
struct ft_sim_args {
	const char *engine, *routing, *placement, *cluster;
	const char *op, *algo, *proto; /* a collective on a spec, when op is set */
	uint64_t minb, maxb;
	uint64_t ranks;	   /* FT_SIM_RANKS_UNSET: not given (every GPU); 0 is refused */
	uint64_t channels; /* FT_SPEC_CHANNELS_UNSET: not given; 0 is refused */
	double factor;
	uint64_t qps;
	double fabric_scale; /* -1: not given */
	bool no_faults;
	bool no_nvls;   /* NVLink SHARP off (NCCL_NVLS_ENABLE=0) */
	bool counters;	/* port counters as the real tools print them */
	bool trace;	/* the traced series are asked for (with trace_links) */
	const char *trace_links; /* "12,40,41": ports to trace */
	const char *trace_qps;   /* "0,17": the QPs of these flows too */
	double trace_interval;
	uint64_t list_flows; /* --list-flows N, 0 = off (at most FT_SIM_LIST_FLOWS_MAX) */
	double rate_tolerance; /* --rate-tolerance R, 0 to 0.1; NAN: not given */
	const char *nccl;      /* --nccl VERSION: "2.21" or "2.23.4" (ft_model_nccl_read()) */
	bool have_seed;
	uint64_t seed;
	uint32_t links[64]; /* trace_links read by ft_sim_args_overrides() */
	uint32_t qp_flows[64]; /* trace_qps, the same */
};

FT_API void ft_sim_args_init(struct ft_sim_args *a);

/*
 * The overrides @a asks for, into @ov (which borrows a->links). FT_EINVAL
 * naming the option and what it expects ("--qps: expected 1 to 64, got 99").
 */
FT_API int ft_sim_args_overrides(struct ft_sim_args *a, struct ft_sim_overrides *ov,
                                 struct ft_error *err) FT_MUST_CHECK;

/*
 * The first option of @a that only a collective on a spec reads (--algo, --proto, -b, -e,
 * -f, --ranks, --channels) given, as the user wrote it; NULL if none.
 */
FT_API const char *ft_sim_args_op_only(const struct ft_sim_args *a);

/*
 * The scenario @arg names: with a->op the collective on the spec @arg over
 * a->minb..a->maxb (ft_scenario_from_op()), else the scenario file @arg.
 * FT_EINVAL naming the option, or a file that is no scenario ("no
 * top-level 'cluster:'"); the loader's errors otherwise. Free *@sc with
 * ft_scenario_free().
 */
FT_API int ft_sim_args_scenario(const struct ft_sim_args *a, const char *arg,
                                struct ft_scenario **sc, struct ft_error *err) FT_MUST_CHECK;

/*
 * Run the parameter sweep of file @path: a base scenario and lists of values
 * (fabric_scale, routing, qps, engine, seed, size, placement, cluster,
 * faults, nccl), every combination in a fixed order; FT_EINVAL for an nccl
 * axis with @base's nccl_version (--nccl) set. Launched by mpirun
 * (OMPI_COMM_WORLD_SIZE or PMI_SIZE set, and built with MPI), the points are
 * dealt round-robin to the ranks and gathered on rank 0 in point order, so
 * the result is the same with any number of ranks. @out receives the JSON
 * document (rank 0 only; *@is_root tells which rank this is). @notes, when not
 * NULL, receives on rank 0 one line for each release a point runs that predates
 * its cluster's GPUs (ft_model_nccl_note_text(): a `vary.nccl` value named by
 * its file:line:col), each said once; every point's report carries its own
 * in "warnings".
 */
FT_API int ft_sim_sweep_run(const char *path, const struct ft_sim_overrides *base, bool stable,
                            const struct ft_progress *progress, struct ft_strbuf *out,
                            struct ft_strbuf *notes, bool *is_root,
                            struct ft_error *err) FT_MUST_CHECK;

/* One link of the report, with its place in words. */
struct ft_sim_hot_link {
	struct ft_sim_link_stat stat;
	char name[96];  /* "node3/nic0 -> leaf5", "leaf5 -> spine2" */
	char kind[12];  /* nvlink, pcie, host, fabric */
	uint32_t tier;  /* fabric level crossed (1 host-leaf, 2 leaf-spine, 3 spine-core) */
	double cap_Bps; /* effective capacity (after faults) */
	bool has_port;  /* packet engine: @port holds the port's counters */
	struct ft_sim_port_counters port;
};

#define FT_SIM_NHOT      10   /* hottest links in a report */
#define FT_SIM_MAX_PORTS 4096 /* per-port counters kept in a report (links that carried bytes) */

/* The outcome of a scenario run. */
struct ft_sim_report {
	char scenario[64];
	char engine[16];
	char routing[16];
	char cluster[128];
	uint64_t seed;
	uint64_t ngpus;
	uint32_t nnodes;
	struct ft_run run;  /* one row per op of the first iteration of each job, source = sim */
	struct ft_vec jobs; /* struct ft_sim_job_report */
	struct ft_sim_counters c; /* arrays not valid after the run: use the fields below */
	struct ft_vec hot;        /* struct ft_sim_hot_link, hottest first (at most FT_SIM_NHOT) */
	struct ft_vec ports;      /* struct ft_sim_hot_link: byte counters of the links that carried
	                           * bytes, by link id, the first FT_SIM_MAX_PORTS of them */
	uint64_t nlinks_used;     /* links that carried bytes */
	uint64_t nports_used;     /* links in ports: those, and (packet engine) those whose
	                           * sender sent PFC frames without carrying data */
	uint32_t qps_per_conn;
	double fabric_scale;
	bool have_rate_rtol; /* the flow engine's rate tolerance was given (--rate-tolerance) */
	double rate_rtol;
	uint32_t nccl_version; /* the NCCL release the run followed (--nccl); 0: the newest */
	/* That release older than the cluster's GPUs (ft_model_nccl_note_get(); first 0: none),
	 * and where it came from: the field ("--nccl", the scenario's "nccl.version", a sweep's
	 * "vary.nccl") and, from a file, the file:line:col of its value ("" for the option) */
	struct ft_model_nccl_note nccl_note;
	const char *nccl_field;
	char nccl_where[320];
	struct ft_vec tiers;   /* struct ft_sim_tier_stat, per link kind and tier */
	double wall_s;         /* wall time of the run (not deterministic: omit in stable output) */
	size_t peak_rss_bytes; /* idem */
	size_t nfaults;
	uint64_t nlinks;
	struct ft_vec counter_files; /* struct ft_sim_file, with ft_sim_overrides.counters */
	char *trace_json;            /* with ft_sim_overrides.trace_links: the time series */
	size_t trace_len;
	struct ft_vec trace_series;  /* struct ft_sim_trace_series: the same, binned for charts */
	struct ft_vec qp_series;     /* struct ft_sim_qp_series: the traced QPs, the same */
	struct ft_vec flows;         /* struct ft_sim_flow_text: --list-flows */
	uint64_t nflow_ids;          /* with --list-flows: flow ids in all */
	char description[1024]; /* the scenario's description, "" when none */
	struct ft_vec faults;   /* struct ft_sim_fault_text: the faults injected, in order */
	struct ft_vec background; /* struct ft_sim_background: the scenario's, in order */
	struct ft_vec by_size;  /* struct ft_sim_size_stat: a sweep's utilisation size by size */
	/* struct ft_sim_op_counters: the packet engine's counters of each result row's op
	 * (one per row of run), empty for the other engines */
	struct ft_vec op_counters;
	/* A packet run split across MPI ranks (mpirun): this process's rank. Only rank 0's
	 * report holds the result; the others' are empty and print nothing. */
	uint32_t part_rank;
	/* A packet run that ended with a QP out of retries (c.qp_error.failed) or in a
	 * buffer deadlock (c.stall.stalled, @deadlock): the report holds what was measured
	 * up to then, and ft_scenario_run() returns FT_EIO, or FT_EINVAL for a deadlock. */
	struct ft_sim_failure {
		bool failed;
		bool deadlock;
		char src[48], dst[48], nic[48]; /* nic "" when the flow leaves by none */
		char link_down[100];            /* "leaf3 -> n1.nic3", "" when none */
		char message[FT_ERROR_MSG_MAX]; /* the run's error, as said on stderr */
	} failure;
};

/*
 * Utilisation of one link class at one size of a sweep (one job, no
 * background traffic, ops of two or more sizes): the op run alone on the
 * same cluster, bytes / (capacity x the op's duration), over the class's
 * links that carried bytes. In the order of the job's ops, then of the classes.
 */
struct ft_sim_size_stat {
	uint64_t bytes;
	char op[16];
	char kind[12];
	uint32_t tier;
	uint32_t nlinks;  /* links of this class that carried bytes at this size */
	double time_s;    /* the op's duration alone */
	double util_mean; /* over those links */
	double util_max;
	char busiest[96]; /* the link at util_max, "a -> b" */
};

/*
 * A traced port's time series for charts: at most FT_SIM_TRACE_POINTS points,
 * consecutive samples averaged in bins of equal length; point k covers
 * (k x interval_s, (k + 1) x interval_s].
 */
#define FT_SIM_TRACE_POINTS 512
struct ft_sim_trace_series {
	char name[100];    /* "leaf0 -> n0.nic0" */
	uint32_t link;
	double interval_s; /* of one point */
	size_t n;
	double rate_Bps[FT_SIM_TRACE_POINTS];    /* wire bytes sent / interval */
	double queue_bytes[FT_SIM_TRACE_POINTS]; /* egress queue, mean of its samples */
};

/* A listed flow (--list-flows) in words; at most this many are listed. */
#define FT_SIM_LIST_FLOWS_MAX 100000u
struct ft_sim_flow_text {
	struct ft_sim_flow_row row;
	char src[48], dst[48];
	char op[48]; /* "all_reduce 64MiB", as the result row */
};

/* A traced QP's reaction-point rate for charts, binned as ft_sim_trace_series. */
struct ft_sim_qp_series {
	char name[120]; /* "n3.gpu0 -> n0.gpu0 qp 0" */
	uint32_t flow;  /* the flow id it was traced by */
	double interval_s;
	size_t n;
	double rate_Bps[FT_SIM_TRACE_POINTS]; /* mean of its samples */
	double alpha[FT_SIM_TRACE_POINTS];    /* DCQCN's alpha, the same */
};

/* One background pattern of the scenario, as it was run. */
struct ft_sim_background {
	char pattern[16];       /* permutation, incast or alltoall */
	uint64_t bytes;         /* per flow */
	uint32_t hosts;         /* endpoints taking part, 0 = all */
	uint32_t bursts;        /* times it runs (on/off), 1 = once */
	double off_s;           /* idle time between bursts */
	double jitter_s;        /* start jitter: offsets uniform in [0, jitter_s); 0 = none */
	bool jitter_per_source; /* offsets drawn once per source, not anew per burst */
};

/* One injected fault in words: "nic: node 17 NIC 3 at 25% of its rate". */
struct ft_sim_fault_text {
	char text[128];
};

/* A rendered counters file: `perfquery -x` per InfiniBand port, `ethtool -S` per RoCE NIC. */
struct ft_sim_file {
	char name[96]; /* "perfquery-x.leaf3.p12.txt", "ethtool-S.n0.nic2.txt" */
	char *text;    /* owned by the report */
	size_t len;
};

struct ft_sim_job_report {
	char name[32];
	uint32_t nranks;
	uint32_t iterations;
	double compute_s;  /* per iteration (with the straggler slowdown) */
	double iter_s;     /* mean iteration time */
	double comm_s;     /* mean communication time per iteration */
	double comm_share; /* comm_s / iter_s */
	double t_end_s;
};

struct ft_sim_tier_stat {
	char kind[12];
	uint32_t tier;
	uint32_t nlinks; /* links of this class that carried bytes */
	double bytes;
	double util_mean; /* over links that carried bytes */
	double util_max;
};

FT_API void ft_sim_report_init(struct ft_sim_report *r);
FT_API void ft_sim_report_release(struct ft_sim_report *r);

struct ft_obs_set;
/*
 * The traced ports' series of @r as observations for an archived run (what the
 * HTML report charts): per port one sim.trace.interval (seconds per point), and
 * per point sim.trace.rate (GB/s) and sim.trace.queue (bytes), device = the
 * port ("leaf0->n0.nic0"), port = the point's index; per traced QP one
 * sim.trace.qp.interval and per point sim.trace.qp.rate (Gb/s) and
 * sim.trace.qp.alpha, device = "flow 17: n3.gpu0->n0.gpu0 qp 0". FT_ENOMEM.
 */
FT_API int ft_sim_report_trace_obs(const struct ft_sim_report *r,
                                   struct ft_obs_set *obs) FT_MUST_CHECK;
/*
 * What the twin of @r was, as observations for an archived run (reports state
 * them): sim.scenario, sim.engine, sim.routing, the description in pieces
 * (sim.description, in order), one sim.fault per injected fault (device
 * "fault N"), each link that carried bytes as sim.link.util (ratio, device
 * "leaf0->n0.nic0"), a sweep's busiest link of each class size by size as
 * sim.size.util (device "kind tN", str the size), then the traced series of
 * ft_sim_report_trace_obs(). All with file "sim". FT_ENOMEM.
 */
FT_API int ft_sim_report_obs(const struct ft_sim_report *r, struct ft_obs_set *obs) FT_MUST_CHECK;
/*
 * Write @r's counter files (perfquery -x, ethtool -S; ft_sim_overrides.counters)
 * into @dir, created when missing, through the safe file writer (no symlink
 * followed, no non-regular file replaced). FT_EIO naming @dir when it can't
 * be made, FT_EINVAL when a file's path is too long, ft_file_write()'s errors.
 */
FT_API int ft_sim_report_write_counters(const struct ft_sim_report *r, const char *dir,
                                        struct ft_error *err) FT_MUST_CHECK;

/*
 * Build the cluster, apply faults, run every job and the background traffic
 * through the engine, and fill @out (initialized with ft_sim_report_init(),
 * released by the caller with ft_sim_report_release(), also on error).
 * @ov may be NULL; its strings are borrowed for the call. Errors found when
 * the scenario meets the cluster (a fault on a node that doesn't exist, a
 * job that doesn't fit) name the scenario file, line and column.
 * FT_ENOMEM, FT_EINVAL, FT_ERANGE, FT_ENOENT, FT_ENOTSUP (a collective the
 * cluster can't run, e.g. NVLS across nodes).
 */
FT_API int ft_scenario_run(const struct ft_scenario *sc, const struct ft_sim_overrides *ov,
                           const struct ft_progress *progress, struct ft_sim_report *out,
                           struct ft_error *err) FT_MUST_CHECK;

/* Render a report: JSON (everything) or the terminal summary. @stable drops wall times. */
FT_API void ft_sim_report_json(const struct ft_sim_report *r, bool stable, struct ft_json *j);
FT_API void ft_sim_report_text(const struct ft_sim_report *r, bool stable, struct ft_strbuf *out);
/* Either into @out: the JSON document (indented) and a newline when @json, else the summary. */
FT_API void ft_sim_report_write(const struct ft_sim_report *r, bool stable, bool json,
                                struct ft_strbuf *out);

#ifdef __cplusplus
}
#endif
#endif

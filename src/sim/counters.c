/* SPDX-License-Identifier: MIT */
/*
 * sim/counters.c - the packet engine's port counters as the real tools print
 * them, so that `fabtune parse` and `fabtune diagnose` read a simulated
 * cluster exactly as a real one.
 *
 * InfiniBand: one `perfquery -x` (PortCountersExtended plus the error
 * counters) followed by `perfquery --vlxmitcounters` (PortVLXmitWaitCounters,
 * render_vl_xmit_wait()) per port that carried traffic, host ports as node.nicN and
 * switch ports as switchname.pK (K: the port's index among the switch's
 * links, from 1). PortXmitData and PortRcvData count 32-bit words, as the
 * IBA defines them; PortXmitWait counts ticks, taken here as nanoseconds
 * (the tick is implementation-defined); PortRcvErrors counts the packets
 * it received corrupted (bit errors: dropped); PortXmitDiscards the packets
 * it sent that the far end had no buffer for, which is where a real fabric
 * counts them, at the congested egress (kb IB-COUNTERS). The fabric itself comes as
 * `ibnetdiscover -p` (ibnetdiscover-p.txt): every cabled switch and host port with its LID,
 * the same LIDs the perfquery files give, and the LID, port and name at its far end.
 *
 * RoCE: per NIC one file: `ethtool DEV` (the link's speed in Mb/s and whether it is up, what
 * the rules that compare a NIC's traffic with its line rate read), then `ethtool -S`, each
 * after the command line naming it, with the mlx5 names (kb
 * ROCE-PFC, ROCE-COUNTERS, K-MLX5-CNT): the _phy byte and packet counters, rx_discards_phy
 * (received packets dropped for lack of buffer) and rx_crc_errors_phy (dropped for a bad FCS:
 * bit errors), per priority the bytes, packets, rx_prio<p>_discards (its share of
 * rx_discards_phy, as mlx5 counts it since Linux 5.6) and the pause counters with their
 * durations in microseconds, and the RDMA congestion counters np_ecn_marked_roce_packets,
 * np_cnp_sent and rp_cnp_handled.
 *
 * InfiniBand also: the subnet manager's opensm.conf, whether it configures congestion
 * control and with what options (ft__sim_render_opensm_conf(), kb CC-IB), which the rule
 * ib-cc-off reads beside the counters.
 *
 * Per NIC also one file, both fabrics: `rdma statistic show link mlx5_N/1` after a prompt
 * naming its host (root@nK), as iproute2's rdma tool prints the port's hardware counters
 * (kb ROCE-COUNTERS, K-MLX5-RDMA), in the order and groups the mlx5 driver lists them:
 * the responder's messages received (rx_write_requests: NCCL's transport writes, so no
 * reads or atomics), out_of_sequence and duplicate_request (go-back-N's packets past a
 * gap and those sent again), the requester's packet_seq_err (NAKs received),
 * local_ack_timeout_err and req_transport_retries_exceeded (its QPs' retransmit timeouts
 * and the QPs that ran out of retries, with req_cqe_error: that send's completion in
 * error); on RoCE the congestion group (rp_cnp_handled, np_ecn_marked_roce_packets,
 * np_cnp_sent) and rx_icrc_encapsulated. What the engine does not model stays 0 because
 * it cannot happen in it: receive-not-ready NAKs (NCCL's rnr_retry 7), implied NAKs
 * (RDMA reads), receive-queue starvation, access and length errors, a bad ICRC behind a
 * good FCS (a bit error fails the FCS first). The RoCE adaptive-retransmission group is
 * left out, as on a NIC without it.
 *
 * RoCE: one SONiC CLI transcript per switch (sonic.<switch>.txt), each table after the
 * prompt and command that print it, over the ports that carried traffic either way
 * (kb ROCE-PFC, ROCE-ECMP):
 *   show queue counters      per port the unicast queues UC0-UC7 (the sim's priorities:
 *                            a queue per 802.1p priority, as SONiC's default TC map has
 *                            it), the packets and bytes the port sent on each, and the
 *                            packets dropped for lack of buffer at the far end of that
 *                            link, counted at the congested egress as PortXmitDiscards
 *                            is on InfiniBand (their bytes at the queue's mean packet
 *                            size: the engine counts dropped packets, not bytes)
 *   show queue wredcounters  per port and queue the packets it marked CE (and their bytes,
 *                            the same way); WRED drops 0: the engine's queues mark and
 *                            tail-drop, they never drop early
 *   show queue watermark unicast
 *                            per port and queue the most bytes it held (the engine's
 *                            per-port peak, on the queue that carried most of its bytes)
 *   show pfc counters        the PFC frames each port received (Port Rx) and sent
 *                            upstream from its ingress buffer (Port Tx) per priority
 *   show pfcwd stats         whenever the PFC watchdog is configured (packet.pfc_watchdog;
 *                            storms 0/0 when it never fired, as SONiC prints a queue it
 *                            watches), the lossless queue of each port: storms detected
 *                            (the watchdog's expiries on the port) and restored (those
 *                            over; STATUS stormed while one is not); TX DROP the packets
 *                            the stormed queue discarded under pfc_watchdog_action drop
 *                            (those it held at the detection and those that came for
 *                            it during the storm; 0 under forward and alert), and the
 *                            receive drops are the ingress buffer's; TX LAST and RX LAST
 *                            OK/DROP the same counts over the port's last storm alone,
 *                            from its detection to its restoration (to the run's end
 *                            while it lasts; 0/0 when none came), as SONiC keeps them
 *                            (kb ROCE-PFC)
 *   show lldp table          the device and port behind each port, which is what lets
 *                            `fabtune diagnose` name both ends of a link and follow a
 *                            ring of stormed ports from switch to switch
 * Ports are named as SONiC names them on a 4-lane platform: the switch's K-th link
 * (from 1) is Ethernet<4(K-1)>: Ethernet0, Ethernet4, ...
 */
#include "sim_int.h"

#include <fabtune/coll.h>
#include <fabtune/json.h>
#include <fabtune/nccl_table.h>
#include <fabtune/obs.h>
#include <fabtune/result.h>
#include <fabtune/sim.h>
#include <fabtune/spec.h>

#define ROCE_PRIO 3 /* the priority RoCE traffic runs on in NVIDIA's lossless setups */

static int
add_file(struct ft_vec *files, struct ft_strbuf *sb, const char *name)
{
	struct ft_sim_file f = { 0 };

	if (sb->oom)
		return FT_ENOMEM;
	ft_strlcpy(f.name, name, sizeof(f.name));
	f.text = ft_strbuf_detach(sb, &f.len);
	if (ft_vec_push(files, &f) < 0) {
		ft_free(f.text);
		return FT_ENOMEM;
	}
	return 0;
}

/* The end of rendering counter files: the buffer released, @rc's failure named. */
static int
files_done(struct ft_strbuf *sb, int rc, struct ft_error *err)
{
	ft_strbuf_release(sb);
	if (rc < 0)
		return ft_error_set(err, rc, "--counters: out of memory");
	return 0;
}

static void
pq_line(struct ft_strbuf *sb, const char *name, uint64_t v)
{
	size_t n = strlen(name) + 1;

	ft_strbuf_addf(sb, "%s:", name);
	ft_strbuf_addchars(sb, '.', n < 33 ? 33 - n : 1);
	ft_strbuf_addf(sb, "%" PRIu64 "\n", v);
}

/* perfquery -x of port @tx (its sender's side), receiving over @rx (the reverse link);
 * a link a fault took @down counts one LinkDowned. */
static void
render_perfquery(struct ft_strbuf *sb, const struct ft_sim_port_counters *tx,
                 const struct ft_sim_port_counters *rx, uint32_t lid, uint32_t port, bool down)
{
	ft_strbuf_addf(sb,
	               "# Port extended counters: Lid %u port %u (CapMask: 0x5300 CapMask2: "
	               "0x0000002)\n",
	               lid, port);
	pq_line(sb, "PortSelect", port);
	ft_strbuf_adds(sb, "CounterSelect:...................0x0000\n");
	pq_line(sb, "PortXmitData", tx->tx_bytes / 4);
	pq_line(sb, "PortRcvData", rx->tx_bytes / 4);
	pq_line(sb, "PortXmitPkts", tx->tx_pkts);
	pq_line(sb, "PortRcvPkts", rx->tx_pkts);
	pq_line(sb, "PortUnicastXmitPkts", tx->tx_pkts);
	pq_line(sb, "PortUnicastRcvPkts", rx->tx_pkts);
	pq_line(sb, "PortMulticastXmitPkts", 0);
	pq_line(sb, "PortMulticastRcvPkts", 0);
	ft_strbuf_adds(sb, "CounterSelect2:..................0x00000000\n");
	pq_line(sb, "SymbolErrorCounter", 0);
	pq_line(sb, "LinkErrorRecoveryCounter", 0);
	pq_line(sb, "LinkDownedCounter", down ? 1 : 0);
	pq_line(sb, "PortRcvErrors", rx->drops_corrupt);
	pq_line(sb, "PortRcvRemotePhysicalErrors", 0);
	pq_line(sb, "PortRcvSwitchRelayErrors", 0);
	pq_line(sb, "PortXmitDiscards", tx->drops - tx->drops_corrupt);
	pq_line(sb, "PortXmitConstraintErrors", 0);
	pq_line(sb, "PortRcvConstraintErrors", 0);
	pq_line(sb, "LocalLinkIntegrityErrors", 0);
	pq_line(sb, "ExcessiveBufferOverrunErrors", 0);
	pq_line(sb, "VL15Dropped", 0);
	pq_line(sb, "PortXmitWait", (uint64_t)(tx->xmit_wait_s * 1e9 + 0.5));
	pq_line(sb, "QP1Dropped", 0);
}

/*
 * perfquery --vlxmitcounters of port @tx, appended to its perfquery -x as a terminal
 * capture of both commands shows them: the PortVLXmitWaitCounters attribute (IBA
 * PerfMgt, optional), one 16-bit counter per VL of the ticks that VL had a packet to send
 * and no credit, header "# PortVLXmitWaitCounters counters: Lid L port P" as
 * infiniband-diags prints it. Ticks are nanoseconds as for PortXmitWait; VL k is the
 * engine's class k (its SL-to-VL map is the identity), VLs 8 to 15 carry nothing; a
 * counter stops at 65535, as IBA counters saturate rather than wrap, so a port's VLs sum
 * to its PortXmitWait only while none has saturated (kb IB-COUNTERS).
 */
static void
render_vl_xmit_wait(struct ft_strbuf *sb, const struct ft_sim_port_counters *tx, uint32_t lid,
                    uint32_t port)
{
	char name[32];

	ft_strbuf_addf(sb, "# PortVLXmitWaitCounters counters: Lid %u port %u\n", lid, port);
	pq_line(sb, "PortSelect", port);
	ft_strbuf_adds(sb, "CounterSelect:...................0x0000\n");
	for (uint32_t vl = 0; vl < 16; vl++) {
		uint64_t ticks = vl < FT_PKT_NPRIO ?
		                         (uint64_t)(tx->prio[vl].xmit_wait_s * 1e9 + 0.5) :
		                         0;

		snprintf(name, sizeof(name), "PortVLXmitWait%u", vl);
		pq_line(sb, name, FT_MIN(ticks, (uint64_t)0xFFFF));
	}
}

static void
eth_line(struct ft_strbuf *sb, const char *name, uint64_t v)
{
	ft_strbuf_addf(sb, "     %s: %" PRIu64 "\n", name, v);
}

/* Whether a NIC's ports carried any priority's packets or pauses. */
static bool
any_prio(const struct ft_sim_port_counters *tx, const struct ft_sim_port_counters *rx)
{
	for (int p = 0; p < FT_PKT_NPRIO; p++)
		if (tx->prio[p].tx_pkts || rx->prio[p].tx_pkts || tx->prio[p].pause_rx ||
		    rx->prio[p].pause_tx)
			return true;
	return false;
}

/*
 * `ethtool DEV` of NIC @dev whose fabric link runs at @Bps (bytes/s; 0: down): the speed
 * as the kernel reports the negotiated one, in Mb/s, and the link state. A port trained
 * slower (a fault's scale) shows the lower speed, as a real one does.
 */
static void
render_ethtool_link(struct ft_strbuf *sb, const char *dev, double Bps)
{
	ft_strbuf_addf(sb, "$ ethtool %s\n", dev);
	ft_strbuf_addf(sb, "Settings for %s:\n", dev);
	if (Bps > 0)
		ft_strbuf_addf(sb, "\tSpeed: %.0fMb/s\n\tDuplex: Full\n", Bps * 8 / 1e6);
	else
		ft_strbuf_adds(sb, "\tSpeed: Unknown!\n\tDuplex: Unknown! (255)\n");
	ft_strbuf_addf(sb, "\tLink detected: %s\n", Bps > 0 ? "yes" : "no");
}

/* ethtool -S of NIC @dev sending on @tx and receiving over @rx, with the command line
 * as a captured terminal shows it (the parser takes the device name from it). */
static void
render_ethtool(struct ft_strbuf *sb, const char *dev, const struct ft_sim_port_counters *tx,
               const struct ft_sim_port_counters *rx)
{
	char k[48];

	ft_strbuf_addf(sb, "$ ethtool -S %s\n", dev);
	ft_strbuf_adds(sb, "NIC statistics:\n");
	eth_line(sb, "rx_packets_phy", rx->tx_pkts);
	eth_line(sb, "tx_packets_phy", tx->tx_pkts);
	eth_line(sb, "rx_bytes_phy", rx->tx_bytes);
	eth_line(sb, "tx_bytes_phy", tx->tx_bytes);
	eth_line(sb, "rx_discards_phy", rx->drops - rx->drops_corrupt);
	eth_line(sb, "rx_crc_errors_phy", rx->drops_corrupt);
	/* Per priority that carried traffic or pauses either way (the sim's priority is
	 * the 802.1p one); an idle port shows the lossless class's zeros. */
	for (int p = 0; p < FT_PKT_NPRIO; p++) {
		const struct ft_sim_prio_counters *t = &tx->prio[p], *r = &rx->prio[p];

		if (!(t->tx_pkts || r->tx_pkts || t->pause_rx || r->pause_tx ||
		      (p == ROCE_PRIO && !any_prio(tx, rx))))
			continue;
		snprintf(k, sizeof(k), "rx_prio%d_bytes", p);
		eth_line(sb, k, r->tx_bytes);
		snprintf(k, sizeof(k), "rx_prio%d_packets", p);
		eth_line(sb, k, r->tx_pkts);
		snprintf(k, sizeof(k), "rx_prio%d_discards", p);
		eth_line(sb, k, r->drops - r->drops_corrupt);
		snprintf(k, sizeof(k), "tx_prio%d_bytes", p);
		eth_line(sb, k, t->tx_bytes);
		snprintf(k, sizeof(k), "tx_prio%d_packets", p);
		eth_line(sb, k, t->tx_pkts);
		snprintf(k, sizeof(k), "rx_prio%d_pause", p);
		eth_line(sb, k, t->pause_rx);
		snprintf(k, sizeof(k), "rx_prio%d_pause_duration", p);
		eth_line(sb, k, (uint64_t)(t->paused_s * 1e6 + 0.5));
		snprintf(k, sizeof(k), "tx_prio%d_pause", p);
		eth_line(sb, k, r->pause_tx);
		snprintf(k, sizeof(k), "tx_prio%d_pause_duration", p);
		eth_line(sb, k, (uint64_t)(r->paused_s * 1e6 + 0.5));
	}
	eth_line(sb, "np_ecn_marked_roce_packets", rx->ecn_rx);
	eth_line(sb, "np_cnp_sent", rx->cnp_sent);
	eth_line(sb, "rp_cnp_handled", tx->cnp_handled);
}

/* One counter of an `rdma statistic` line: "NAME VALUE ", as the rdma tool prints it. */
static void
rdma_pair(struct ft_strbuf *sb, const char *name, uint64_t v)
{
	ft_strbuf_addf(sb, "%s %" PRIu64 " ", name, v);
}

/*
 * `rdma statistic show link mlx5_@local/1` on host n@node of the NIC sending on @tx and
 * receiving over @rx (@roce: with the congestion counters).
 */
static void
render_rdma_stat(struct ft_strbuf *sb, uint32_t node, uint32_t local,
                 const struct ft_sim_port_counters *tx, const struct ft_sim_port_counters *rx,
                 bool roce)
{
	ft_strbuf_addf(sb, "root@n%u:~# rdma statistic show link mlx5_%u/1\n", node, local);
	ft_strbuf_addf(sb, "link mlx5_%u/1 ", local);
	rdma_pair(sb, "rx_write_requests", rx->rx_writes);
	rdma_pair(sb, "rx_read_requests", 0);
	rdma_pair(sb, "rx_atomic_requests", 0);
	rdma_pair(sb, "rx_dct_connect", 0);
	rdma_pair(sb, "out_of_buffer", 0);
	rdma_pair(sb, "out_of_sequence", rx->out_of_seq);
	rdma_pair(sb, "duplicate_request", rx->dup_requests);
	rdma_pair(sb, "rnr_nak_retry_err", 0);
	rdma_pair(sb, "packet_seq_err", tx->seq_naks);
	rdma_pair(sb, "implied_nak_seq_err", 0);
	rdma_pair(sb, "local_ack_timeout_err", tx->ack_timeouts);
	rdma_pair(sb, "resp_local_length_error", 0);
	rdma_pair(sb, "resp_cqe_error", 0);
	rdma_pair(sb, "req_cqe_error", tx->retries_exceeded);
	rdma_pair(sb, "req_remote_invalid_request", 0);
	rdma_pair(sb, "req_remote_access_errors", 0);
	rdma_pair(sb, "resp_remote_access_errors", 0);
	rdma_pair(sb, "resp_cqe_flush_error", 0);
	rdma_pair(sb, "req_cqe_flush_error", 0);
	rdma_pair(sb, "req_transport_retries_exceeded", tx->retries_exceeded);
	rdma_pair(sb, "req_rnr_retries_exceeded", 0);
	if (roce) {
		rdma_pair(sb, "rp_cnp_ignored", 0);
		rdma_pair(sb, "rp_cnp_handled", tx->cnp_handled);
		rdma_pair(sb, "np_ecn_marked_roce_packets", rx->ecn_rx);
		rdma_pair(sb, "np_cnp_sent", rx->cnp_sent);
		rdma_pair(sb, "rx_icrc_encapsulated", 0);
	}
	ft_strbuf_adds(sb, "\n");
}

/* SONiC's name of the @i-th port of a switch (a 4-lane platform). */
static void
sonic_port(char *buf, size_t n, uint32_t i)
{
	snprintf(buf, n, "Ethernet%u", 4 * i);
}

/* A column of a SONiC show table: its width (negative: left-aligned) and title. */
struct sonic_col {
	int width;
	const char *title;
};

static const struct sonic_col pfcwd_cols[] = {
	{ 13, "QUEUE" },      { 11, "STATUS" },     { 25, "STORM DETECTED/RESTORED" },
	{ 16, "TX OK/DROP" }, { 16, "RX OK/DROP" },   { 19, "TX LAST OK/DROP" },
	{ 19, "RX LAST OK/DROP" },
};
static const struct sonic_col lldp_cols[] = {
	{ -11, "LocalPort" },  { -14, "RemoteDevice" },    { -14, "RemotePortID" },
	{ -12, "Capability" }, { -17, "RemotePortDescr" },
};

static const struct sonic_col queue_cols[] = {
	{ 11, "Port" },          { 5, "TxQ" },        { 14, "Counter/pkts" },
	{ 15, "Counter/bytes" }, { 11, "Drop/pkts" }, { 13, "Drop/bytes" },
};
static const struct sonic_col wred_cols[] = {
	{ 11, "Port" },           { 5, "TxQ" },
	{ 14, "WredDrp/pkts" },   { 15, "WredDrp/bytes" },
	{ 16, "EcnMarked/pkts" }, { 17, "EcnMarked/bytes" },
};
static const struct sonic_col wm_cols[] = {
	{ 11, "Port" }, { 9, "UC0" }, { 9, "UC1" }, { 9, "UC2" }, { 9, "UC3" },
	{ 9, "UC4" },   { 9, "UC5" }, { 9, "UC6" }, { 9, "UC7" },
};
static const struct sonic_col pfc_rx_cols[] = {
	{ 11, "Port Rx" }, { 6, "PFC0" }, { 6, "PFC1" }, { 6, "PFC2" }, { 6, "PFC3" },
	{ 6, "PFC4" },     { 6, "PFC5" }, { 6, "PFC6" }, { 6, "PFC7" },
};
static const struct sonic_col pfc_tx_cols[] = {
	{ 11, "Port Tx" }, { 6, "PFC0" }, { 6, "PFC1" }, { 6, "PFC2" }, { 6, "PFC3" },
	{ 6, "PFC4" },     { 6, "PFC5" }, { 6, "PFC6" }, { 6, "PFC7" },
};

/*
 * A row of a SONiC show table, @cell NULL for the titles: each cell padded to its column's
 * width, two spaces between columns.
 */
static void
sonic_row(struct ft_strbuf *sb, const struct sonic_col *col, size_t n, const char *const *cell)
{
	for (size_t i = 0; i < n; i++)
		ft_strbuf_addf(sb, "%s%*s", i ? "  " : "", col[i].width,
		               cell ? cell[i] : col[i].title);
	ft_strbuf_adds(sb, "\n");
}

/* The dashes under the titles, as wide as each column. */
static void
sonic_rule(struct ft_strbuf *sb, const struct sonic_col *col, size_t n)
{
	static const char dashes[] = "--------------------------------";

	for (size_t i = 0; i < n; i++)
		ft_strbuf_addf(sb, "%s%.*s", i ? "  " : "", abs(col[i].width), dashes);
	ft_strbuf_adds(sb, "\n");
}

/* The prompt and command @cmd on switch @vname, a @note line when not NULL, the titles of
 * @col and the rule under them. */
static void
sonic_head(struct ft_strbuf *sb, const char *vname, const char *cmd, const char *note,
           const struct sonic_col *col, size_t n)
{
	ft_strbuf_addf(sb, "root@%s:/home/admin# %s\n", vname, cmd);
	if (note)
		ft_strbuf_addf(sb, "%s\n", note);
	sonic_row(sb, col, n, NULL);
	sonic_rule(sb, col, n);
}

/* The position of link @l among its source vertex's links. */
static uint32_t
port_index(const struct ft_topo *topo, uint32_t l)
{
	uint32_t first, count;

	ft_topo_out_links(topo, ft_topo_link(topo, l)->src, &first, &count);
	return l - first;
}

/* @v with thousands separators, as SONiC's pfc counters print it. */
static void
sonic_commas(char *buf, size_t n, uint64_t v)
{
	char d[32];
	size_t len, i, o = 0;

	len = (size_t)snprintf(d, sizeof(d), "%" PRIu64, v);
	for (i = 0; i < len && o + 2 < n; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = d[i];
	}
	buf[o] = '\0';
}

/* Whether switch port link @l is one SONiC's tables list: a host or fabric link that
 * carried traffic either way. */
static bool
sonic_listed(const struct ft_topo *topo, const struct ft_sim_counters *c, uint32_t l)
{
	const struct ft_link *lk = ft_topo_link(topo, l);

	return (lk->kind == FT_L_HOST || lk->kind == FT_L_FABRIC) &&
	       (c->port[l].tx_pkts || c->port[lk->rev].tx_pkts);
}

/* @pkts of priority @q's packets at its mean size on the wire: bytes for a count the
 * engine keeps in packets only. */
static uint64_t
sonic_bytes_of(const struct ft_sim_prio_counters *q, uint64_t pkts)
{
	return q->tx_pkts ?
	               (uint64_t)((double)pkts * (double)q->tx_bytes / (double)q->tx_pkts + 0.5) :
	               0;
}

/* show queue counters (@wred false) or show queue wredcounters (@wred true) of switch
 * @v, whose links are @first to @first + @count - 1. */
static void
sonic_queues(struct ft_strbuf *sb, const struct ft_topo *topo, const struct ft_sim_counters *c,
             uint32_t first, uint32_t count, const char *vname, bool wred)
{
	const struct sonic_col *col = wred ? wred_cols : queue_cols;

	sonic_head(sb, vname, wred ? "show queue wredcounters" : "show queue counters", NULL, col,
	           6);
	for (uint32_t i = 0; i < count; i++) {
		const struct ft_sim_port_counters *tx = &c->port[first + i];
		char port[32], q[8], a[24], b[24], d[24], e[24];

		if (!sonic_listed(topo, c, first + i))
			continue;
		sonic_port(port, sizeof(port), i);
		for (int p = 0; p < FT_PKT_NPRIO; p++) {
			const struct ft_sim_prio_counters *t = &tx->prio[p];
			uint64_t drop = t->drops - FT_MIN(t->drops_corrupt, t->drops);

			snprintf(q, sizeof(q), "UC%d", p);
			if (wred) {
				snprintf(a, sizeof(a), "0");
				snprintf(b, sizeof(b), "0");
				snprintf(d, sizeof(d), "%" PRIu64, t->ecn_marked);
				snprintf(e, sizeof(e), "%" PRIu64,
				         sonic_bytes_of(t, t->ecn_marked));
			} else {
				snprintf(a, sizeof(a), "%" PRIu64, t->tx_pkts);
				snprintf(b, sizeof(b), "%" PRIu64, t->tx_bytes);
				snprintf(d, sizeof(d), "%" PRIu64, drop);
				snprintf(e, sizeof(e), "%" PRIu64, sonic_bytes_of(t, drop));
			}
			sonic_row(sb, col, 6, (const char *const[]){ port, q, a, b, d, e });
		}
	}
}

/*
 * show queue watermark unicast of switch @v: per port and unicast queue the most bytes it
 * held, as SONiC's watermark counters keep them since they were last cleared (here: the
 * run): each priority's own peak (the engine's per-priority queue figures), 0 on a queue
 * that never held a packet. A queue builds only where packets come faster than the port
 * drains them: k long flows hashed onto one uplink peak at
 * (k - 1) flows' bytes, a spread that keeps every link under line rate at a few packets
 * (kb ROCE-ECMP).
 */
static void
sonic_watermark(struct ft_strbuf *sb, const struct ft_topo *topo,
                const struct ft_sim_counters *c, uint32_t first, uint32_t count,
                const char *vname)
{
	sonic_head(sb, vname, "show queue watermark unicast",
	           "Egress shared pool occupancy per unicast queue:", wm_cols,
	           FT_ARRAY_SIZE(wm_cols));
	for (uint32_t i = 0; i < count; i++) {
		const struct ft_sim_port_counters *tx = &c->port[first + i];
		char cell[FT_PKT_NPRIO + 1][24];
		const char *row[FT_PKT_NPRIO + 1];

		if (!sonic_listed(topo, c, first + i))
			continue;
		sonic_port(cell[0], sizeof(cell[0]), i);
		row[0] = cell[0];
		for (int p = 0; p < FT_PKT_NPRIO; p++) {
			snprintf(cell[p + 1], sizeof(cell[p + 1]), "%" PRIu64, tx->prio[p].q_max_bytes);
			row[p + 1] = cell[p + 1];
		}
		sonic_row(sb, wm_cols, FT_ARRAY_SIZE(wm_cols), row);
	}
}

/* show pfc counters of switch @v: the frames its ports received, then those they sent. */
static void
sonic_pfc(struct ft_strbuf *sb, const struct ft_topo *topo, const struct ft_sim_counters *c,
          uint32_t first, uint32_t count, const char *vname)
{
	char port[32], v[FT_PKT_NPRIO][32];
	const char *cell[1 + FT_PKT_NPRIO];

	for (int tx = 0; tx < 2; tx++) {
		const struct sonic_col *col = tx ? pfc_tx_cols : pfc_rx_cols;

		if (tx)
			ft_strbuf_adds(sb, "\n");
		else
			ft_strbuf_addf(sb, "root@%s:/home/admin# show pfc counters\n", vname);
		sonic_row(sb, col, 1 + FT_PKT_NPRIO, NULL);
		sonic_rule(sb, col, 1 + FT_PKT_NPRIO);
		for (uint32_t i = 0; i < count; i++) {
			const struct ft_link *lk = ft_topo_link(topo, first + i);

			if (!sonic_listed(topo, c, first + i))
				continue;
			sonic_port(port, sizeof(port), i);
			cell[0] = port;
			for (int p = 0; p < FT_PKT_NPRIO; p++) {
				/* received: by the port's sender; sent: by its ingress buffer */
				sonic_commas(v[p], sizeof(v[p]),
				             tx ? c->port[lk->rev].prio[p].pause_tx :
				                  c->port[first + i].prio[p].pause_rx);
				cell[1 + p] = v[p];
			}
			sonic_row(sb, col, 1 + FT_PKT_NPRIO, cell);
		}
	}
}

/* A SONiC CLI transcript on switch @v: its queue, WRED/ECN and PFC counters, its PFC
 * watchdog's stats when it watched the run (@wdog), and its LLDP table. */
static void
render_sonic(struct ft_strbuf *sb, const struct ft_topo *topo, const struct ft_sim_counters *c,
             uint32_t v, const char *vname, bool wdog)
{
	uint32_t first, count, i, nl = 0;
	char port[32], cell[48], peer[48];

	ft_topo_out_links(topo, v, &first, &count);
	sonic_queues(sb, topo, c, first, count, vname, false);
	sonic_queues(sb, topo, c, first, count, vname, true);
	sonic_watermark(sb, topo, c, first, count, vname);
	sonic_pfc(sb, topo, c, first, count, vname);
	if (wdog)
		sonic_head(sb, vname, "show pfcwd stats", NULL, pfcwd_cols,
		           FT_ARRAY_SIZE(pfcwd_cols));
	for (i = 0; wdog && i < count; i++) {
		const struct ft_link *lk = ft_topo_link(topo, first + i);
		const struct ft_sim_port_counters *tx = &c->port[first + i];
		const struct ft_sim_port_counters *rx = &c->port[lk->rev];
		char st[48], txc[48], rxc[48], txl[48], rxl[48];

		if (!sonic_listed(topo, c, first + i))
			continue;
		sonic_port(port, sizeof(port), i);
		snprintf(cell, sizeof(cell), "%s:%d", port, ROCE_PRIO);
		snprintf(st, sizeof(st), "%" PRIu64 "/%" PRIu64, tx->pfc_wd_fires,
		         tx->pfc_wd_restores);
		snprintf(txc, sizeof(txc), "%" PRIu64 "/%" PRIu64, tx->tx_pkts,
		         tx->pfc_wd_drops_held + tx->pfc_wd_drops_arrived);
		snprintf(rxc, sizeof(rxc), "%" PRIu64 "/%" PRIu64,
		         rx->tx_pkts - FT_MIN(rx->drops, rx->tx_pkts), rx->drops);
		snprintf(txl, sizeof(txl), "%" PRIu64 "/%" PRIu64, tx->pfc_wd_last_tx_ok,
		         tx->pfc_wd_last_tx_drop);
		snprintf(rxl, sizeof(rxl), "%" PRIu64 "/%" PRIu64, tx->pfc_wd_last_rx_ok,
		         tx->pfc_wd_last_rx_drop);
		sonic_row(sb, pfcwd_cols, FT_ARRAY_SIZE(pfcwd_cols),
		          (const char *const[]){ cell,
		                                 tx->pfc_wd_fires > tx->pfc_wd_restores ?
		                                         "stormed" :
		                                         "operational",
		                                 st, txc, rxc, txl, rxl });
	}
	sonic_head(sb, vname, "show lldp table",
	           "Capability codes: (R) Router, (B) Bridge, (O) Other", lldp_cols,
	           FT_ARRAY_SIZE(lldp_cols));
	for (i = 0; i < count; i++) {
		const struct ft_link *lk = ft_topo_link(topo, first + i);
		const struct ft_vertex *w = ft_topo_vertex(topo, lk->dst);

		if (lk->kind != FT_L_HOST && lk->kind != FT_L_FABRIC)
			continue;
		sonic_port(port, sizeof(port), i);
		ft_topo_vertex_name(topo, lk->dst, peer, sizeof(peer));
		if (w->kind == FT_V_SWITCH)
			sonic_port(cell, sizeof(cell), port_index(topo, lk->rev));
		else
			ft_strlcpy(cell, "p1", sizeof(cell));
		sonic_row(sb, lldp_cols, FT_ARRAY_SIZE(lldp_cols),
		          (const char *const[]){ port, peer, cell,
		                                 w->kind == FT_V_SWITCH ? "BR" : "O", "" });
		nl++;
	}
	ft_strbuf_adds(sb, "--------------------------------------------------\n");
	ft_strbuf_addf(sb, "Total entries displayed:  %u\n", nl);
}

/*
 * What NCCL prints (NCCL_DEBUG=WARN) when the QP of @q completes a send with the transport
 * retry error, as its IB transport words it (kb SYM-ERR-12): the sender's host, a process
 * and thread (a twin has none: the GPU's index), its GPU, the peer with port 0 (the twin
 * has no addresses: the peer's host), status 12 with the vendor syndrome mlx5 gives it
 * (129) and the HCA (mlx5_N: the NIC's index in its node).
 */
static void
render_nccl_warn(struct ft_strbuf *sb, const struct ft_topo *topo, const struct ft_sim_qp_error *q)
{
	const struct ft_vertex *s = ft_topo_vertex(topo, q->src), *d = ft_topo_vertex(topo, q->dst);
	const struct ft_vertex *nic = q->nic != UINT32_MAX ? ft_topo_vertex(topo, q->nic) : s;

	ft_strbuf_addf(sb,
	               "n%u:%u:%u [%u] NCCL WARN NET/IB : Got completion from peer n%u<0> with "
	               "status=12 opcode=0 len=0 vendor err 129 (Send) hca mlx5_%u\n",
	               s->node, s->local, s->local, s->local, d->node, nic->local);
}

/* The IB speed name of a 4x link of @cap_Bps (kb IB-SPEED: 4x EDR 100, HDR 200, NDR 400,
 * XDR 800 Gb/s), as ibnetdiscover prints it; "???" below 4x FDR. */
static const char *
ib_speed_name(double cap_Bps)
{
	static const struct {
		double gbps;
		const char *name;
	} s[] = { { 800, "XDR" }, { 400, "NDR" }, { 200, "HDR" }, { 100, "EDR" }, { 56, "FDR" } };
	double g = cap_Bps * 8 / 1e9;

	for (size_t i = 0; i < FT_ARRAY_SIZE(s); i++)
		if (g >= 0.9 * s[i].gbps)
			return s[i].name;
	return "???";
}

/* One `ibnetdiscover -p` line: port @port of vertex @v over link @l. */
static void
render_ibnd_port(struct ft_strbuf *sb, const struct ft_topo *topo, uint32_t v, uint32_t port,
                 const struct ft_link *lk)
{
	const struct ft_vertex *a = ft_topo_vertex(topo, v), *b = ft_topo_vertex(topo, lk->dst);
	uint32_t bport = b->kind == FT_V_SWITCH ? port_index(topo, lk->rev) + 1 : 1;
	char an[48], bn[48];

	ft_topo_vertex_name(topo, v, an, sizeof(an));
	ft_topo_vertex_name(topo, lk->dst, bn, sizeof(bn));
	ft_strbuf_addf(sb,
	               "%s %5u %3u 0x%016" PRIx64 " 4x %s - %s %5u %3u 0x%016" PRIx64
	               " ( '%s' - '%s' )\n",
	               a->kind == FT_V_SWITCH ? "SW" : "CA", v + 1, port,
	               UINT64_C(0x0002c90300000000) + v, ib_speed_name(lk->cap_Bps),
	               b->kind == FT_V_SWITCH ? "SW" : "CA", lk->dst + 1, bport,
	               UINT64_C(0x0002c90300000000) + lk->dst, an, bn);
}

/*
 * `ibnetdiscover -p` (--ports) of an InfiniBand fabric: one line per cabled port of every
 * switch and host, its LID (the same as its perfquery's), port, GUID, width and speed, and
 * the LID, port and name at the other end. With the perfquery files it lets a reader
 * follow a port that waits for credits to the switch it waits on (diag: ib-credit-loop).
 */
static void
render_ibnetdiscover(struct ft_strbuf *sb, const struct ft_topo *topo)
{
	uint32_t v, nv = ft_topo_nvertices(topo);

	for (v = 0; v < nv; v++) {
		const struct ft_vertex *vx = ft_topo_vertex(topo, v);
		uint32_t first, count, i;

		if (vx->kind != FT_V_NIC && vx->kind != FT_V_SWITCH)
			continue;
		ft_topo_out_links(topo, v, &first, &count);
		for (i = 0; i < count; i++) {
			const struct ft_link *lk = ft_topo_link(topo, first + i);

			if (lk->kind != FT_L_HOST && lk->kind != FT_L_FABRIC)
				continue;
			render_ibnd_port(sb, topo, v, vx->kind == FT_V_NIC ? 1 : i + 1, lk);
		}
	}
}

/*
 * The subnet manager's opensm.conf, as a capture of an InfiniBand cluster holds it beside
 * its port counters: whether the SM configures congestion control, and with it the
 * options the twin ran with, under OpenSM's names (kb CC-IB): the switches' marking
 * rate, the HCAs' CCTI_Timer (in the IBA's 1.024 us units), CCTI_Increase and CCTI_Min
 * per SL, and CCTI_Limit as a comment. Zero fields of @pc take the engine's defaults (pkt_setup.c). The
 * switch threshold is a queue depth in the twin and a 0-15 level in OpenSM: a comment
 * gives the depth.
 */
int
ft__sim_render_opensm_conf(const struct ft_packet_cfg *pc, struct ft_vec *files,
                           struct ft_error *err)
{
	struct ft_strbuf sb;
	bool on = pc && pc->cc == FT_PKT_CC_IBCC;
	int rc;

	ft_strbuf_init(&sb);
	ft_strbuf_adds(&sb, "# opensm.conf: the subnet manager's options\n"
	                    "# Enable Congestion Control Configuration\n");
	ft_strbuf_addf(&sb, "congestion_control %s\n", on ? "TRUE" : "FALSE");
	if (on) {
		double timer = pc->ccti_timer_s > 0 ? pc->ccti_timer_s : 10e-6;

		if (pc->ibcc_threshold_bytes)
			ft_strbuf_addf(&sb, "# switches mark FECN above %" PRIu64 " bytes of queue\n",
			               pc->ibcc_threshold_bytes);
		else
			ft_strbuf_adds(&sb, "# switches mark FECN above 8 MTUs of queue\n");
		ft_strbuf_addf(&sb, "cc_sw_cong_setting_marking_rate %u\n",
		               pc->ibcc_marking_rate ? pc->ibcc_marking_rate : 10);
		/* OpenSM takes the HCA settings per SL ("<option> <SL> <value>"); the twin runs
		 * every SL alike. CCTI_Limit has no option of its own: it is the last index of
		 * the table OpenSM loads (cc_cct), stated as a comment. */
		for (uint32_t sl = 0; sl < 16; sl++) {
			ft_strbuf_addf(&sb, "cc_ca_cong_setting_ccti_timer %u %.0f\n", sl,
			               timer / 1.024e-6);
			ft_strbuf_addf(&sb, "cc_ca_cong_setting_ccti_increase %u %u\n", sl,
			               pc->ccti_increase ? pc->ccti_increase : 1);
			ft_strbuf_addf(&sb, "cc_ca_cong_setting_ccti_min %u %u\n", sl, pc->ccti_min);
		}
		ft_strbuf_addf(&sb, "# CCTI_Limit %u: the congestion control table's last index\n",
		               pc->ccti_limit ? pc->ccti_limit : 127);
	}
	rc = add_file(files, &sb, "opensm.conf");
	ft_strbuf_release(&sb);
	return rc < 0 ? ft_error_set(err, rc, "--counters: out of memory") : 0;
}

int
ft__sim_render_counters(const struct ft_topo *topo, const struct ft_sim_counters *c,
                        struct ft_vec *files, struct ft_error *err)
{
	uint32_t v, nv = ft_topo_nvertices(topo);
	bool roce = ft__sim_fabric_is_roce(ft_topo_spec(topo));
	bool wdog = c->pfc_watchdog || c->nwatchdog > 0;
	struct ft_strbuf sb;
	int rc = 0;

	if (!c->port)
		return ft_error_set(err, FT_ENOTSUP,
		                    "--counters: only the packet engine keeps port counters");
	ft_strbuf_init(&sb);
	for (v = 0; v < nv && rc == 0; v++) {
		const struct ft_vertex *vx = ft_topo_vertex(topo, v);
		uint32_t first, count, i;
		char vname[48], name[96];

		if (vx->kind != FT_V_NIC && vx->kind != FT_V_SWITCH)
			continue;
		ft_topo_vertex_name(topo, v, vname, sizeof(vname));
		if (roce && vx->kind == FT_V_SWITCH) {
			/* ethtool -S is a NIC's view; a switch's is its SONiC CLI. */
			render_sonic(&sb, topo, c, v, vname, wdog);
			snprintf(name, sizeof(name), "sonic.%s.txt", vname);
			rc = add_file(files, &sb, name);
			continue;
		}
		ft_topo_out_links(topo, v, &first, &count);
		for (i = 0; i < count && rc == 0; i++) {
			const struct ft_link *lk = ft_topo_link(topo, first + i);
			const struct ft_sim_port_counters *tx = &c->port[first + i];
			const struct ft_sim_port_counters *rx = &c->port[lk->rev];
			bool down = !(ft_topo_link_scale(topo, first + i) > 0);

			if (lk->kind != FT_L_HOST && lk->kind != FT_L_FABRIC)
				continue;
			/* a port that carried traffic, or one a fault took down */
			if (tx->tx_pkts == 0 && rx->tx_pkts == 0 && !down)
				continue;
			if (roce) {
				render_ethtool_link(&sb, vname,
				                    lk->cap_Bps *
				                            ft_topo_link_scale(topo, first + i));
				render_ethtool(&sb, vname, tx, rx);
				snprintf(name, sizeof(name), "ethtool-S.%s.txt", vname);
			} else {
				render_perfquery(&sb, tx, rx, v + 1,
				                 vx->kind == FT_V_NIC ? 1 : i + 1, down);
				render_vl_xmit_wait(&sb, tx, v + 1, vx->kind == FT_V_NIC ? 1 : i + 1);
				if (vx->kind == FT_V_NIC)
					snprintf(name, sizeof(name), "perfquery-x.%s.txt", vname);
				else
					snprintf(name, sizeof(name), "perfquery-x.%s.p%u.txt",
					         vname, i + 1);
			}
			rc = add_file(files, &sb, name);
			if (rc == 0 && vx->kind == FT_V_NIC) {
				render_rdma_stat(&sb, vx->node, vx->local, tx, rx, roce);
				snprintf(name, sizeof(name), "rdma-statistic.%s.txt", vname);
				rc = add_file(files, &sb, name);
			}
		}
	}
	if (rc == 0 && !roce) {
		render_ibnetdiscover(&sb, topo);
		rc = add_file(files, &sb, "ibnetdiscover-p.txt");
	}
	if (rc == 0 && c->qp_error.failed) {
		render_nccl_warn(&sb, topo, &c->qp_error);
		rc = add_file(files, &sb, "nccl.log");
	}
	return files_done(&sb, rc, err);
}

/* --trace-qps: each QP's reaction-point rate (Gb/s, as DCQCN's knobs are given) and
 * alpha at the sample times, under "qps". */
static void
render_qp_trace(const struct ft_topo *topo, const struct ft_sim_counters *c, struct ft_json *j)
{
	ft_json_key(j, "qps");
	ft_json_arr_begin(j);
	for (size_t i = 0; i < c->nqp_trace; i++) {
		const struct ft_sim_qp_trace *t = &c->qp_trace[i];
		char a[48], b[48], name[120];

		ft_topo_vertex_name(topo, t->src, a, sizeof(a));
		ft_topo_vertex_name(topo, t->dst, b, sizeof(b));
		snprintf(name, sizeof(name), "%s -> %s qp %u", a, b, t->qp);
		ft_json_obj_begin(j);
		ft_json_kv_uint(j, "flow", t->flow);
		ft_json_kv_str(j, "name", name);
		ft_json_key(j, "columns");
		ft_json_raw(j, "[\"t_us\",\"rate_Gbps\",\"alpha\"]");
		ft_json_key(j, "samples");
		ft_json_arr_begin(j);
		for (size_t k = 0; k < t->nsamples; k++) {
			ft_json_arr_begin(j);
			ft_json_double_prec(j, t->t_s[k] * 1e6, 6);
			ft_json_double_prec(j, t->rate_Bps[k] * 8e-9, 9);
			ft_json_double_prec(j, t->alpha[k], 9);
			ft_json_arr_end(j);
		}
		ft_json_arr_end(j);
		ft_json_obj_end(j);
	}
	ft_json_arr_end(j);
}

int
ft__sim_render_trace(const struct ft_topo *topo, const struct ft_sim_counters *c, char **out,
                     size_t *len, struct ft_error *err)
{
	struct ft_strbuf sb;
	struct ft_json j;
	size_t i, k;

	*out = NULL;
	*len = 0;
	if (!c->trace)
		return ft_error_set(err, FT_ENOTSUP,
		                    "--trace: only the packet engine keeps a trace");
	ft_strbuf_init(&sb);
	ft_json_init(&j, &sb, false);
	ft_json_obj_begin(&j);
	ft_json_kv_str(&j, "schema", "fabtune.sim.trace/1");
	ft_json_key(&j, "ports");
	ft_json_arr_begin(&j);
	for (i = 0; i < c->ntrace; i++) {
		const struct ft_sim_trace *t = &c->trace[i];
		const struct ft_link *lk = ft_topo_link(topo, t->link);
		char a[48], b[48], name[100];

		ft_topo_vertex_name(topo, lk->src, a, sizeof(a));
		ft_topo_vertex_name(topo, lk->dst, b, sizeof(b));
		snprintf(name, sizeof(name), "%s -> %s", a, b);
		ft_json_obj_begin(&j);
		ft_json_kv_uint(&j, "link", t->link);
		ft_json_kv_str(&j, "name", name);
		ft_json_key(&j, "columns");
		ft_json_raw(&j, "[\"t_us\",\"rate_GBps\",\"queue_bytes\"]");
		ft_json_key(&j, "samples");
		ft_json_arr_begin(&j);
		for (k = 0; k < t->nsamples; k++) {
			ft_json_arr_begin(&j);
			ft_json_double_prec(&j, t->t_s[k] * 1e6, 6);
			ft_json_double_prec(&j, t->rate_Bps[k] / 1e9, 6);
			ft_json_uint(&j, (uint64_t)t->queue_bytes[k]);
			ft_json_arr_end(&j);
		}
		ft_json_arr_end(&j);
		ft_json_obj_end(&j);
	}
	ft_json_arr_end(&j);
	if (c->nqp_trace)
		render_qp_trace(topo, c, &j);
	ft_json_obj_end(&j);
	ft_strbuf_addch(&sb, '\n');
	if (sb.oom) {
		ft_strbuf_release(&sb);
		return ft_error_set(err, FT_ENOMEM, "--trace: out of memory");
	}
	*out = ft_strbuf_detach(&sb, len);
	return 0;
}

/* nccl-tests' names of the collectives (their *_perf binaries). */
static const char *
perf_name(const char *test)
{
	static const char *const map[][2] = {
		{ "all_reduce", "all_reduce_perf" },
		{ "all_gather", "all_gather_perf" },
		{ "reduce_scatter", "reduce_scatter_perf" },
		{ "broadcast", "broadcast_perf" },
		{ "reduce", "reduce_perf" },
		{ "alltoall", "alltoall_perf" },
		{ "sendrecv", "sendrecv_perf" },
	};

	for (size_t i = 0; i < FT_ARRAY_SIZE(map); i++)
		if (strcmp(map[i][0], test) == 0)
			return map[i][1];
	return NULL;
}

int
ft__sim_render_nccl_tests(const struct ft_run *run, const struct ft_vec *ops,
                          struct ft_vec *files, struct ft_error *err)
{
	struct ft_strbuf sb;
	size_t i;
	int rc = 0;

	ft_strbuf_init(&sb);
	for (i = 0; i < ft_run_nrows(run) && rc == 0; i++) {
		const struct ft_result_row *r = ft_run_row(run, i);
		const char *perf = perf_name(r->test);
		struct ft_result_row row;
		enum ft_op op;
		char name[96];

		if (!perf || !(r->time_us > 0))
			continue;
		/* One table per operation of each job's first iteration, as nccl-tests prints
		 * one size. */
		ft_strbuf_addf(&sb, "# %s: simulated by fabtune, %u ranks, %s/%s\n", perf,
		               r->nranks, r->algo, r->proto);
		ft_strbuf_adds(&sb, "#\n");
		/* nccl-tests' own layout (base/nccl_table.c, as `fabtune bench` prints it):
		 * its arguments for the op, the simulated time standing for both
		 * out-of-place and in-place, nothing checked (#wrong N/A). */
		row = *r;
		if (ft_op_from_name(r->test, &op) == 0)
			ft_coll_row_args(&row, op);
		row.ip_time_us = row.time_us;
		row.ip_algbw_GBps = row.algbw_GBps;
		row.ip_busbw_GBps = row.busbw_GBps;
		row.wrong = -1;
		ft_nccl_table_head(&sb, FT_NCCL_TABLE_CLASSIC, false);
		ft_nccl_table_row(&sb, &row, FT_NCCL_TABLE_CLASSIC);
		if (ops->len > 1 && i < ops->len) {
			/* What nccl-tests cannot see, with several ops: the packet engine's
			 * counters of this op's own flows (a comment line: readers of the
			 * table skip it). */
			const struct ft_sim_op_counters *o = ft_vec_at(ops, i);

			ft_strbuf_addf(&sb,
			               "# fabtune packet counters of this op: %" PRIu64
			               " flows, %" PRIu64 " packets, %" PRIu64 " dropped, %" PRIu64
			               " retransmitted, %" PRIu64 " ECN marked, %" PRIu64
			               " CNPs; FCT us p50 %.2f p99 %.2f max %.2f\n",
			               o->nflows, o->npackets, o->ndrops, o->nretx, o->necn, o->ncnp,
			               o->fct_p50_s * 1e6, o->fct_p99_s * 1e6, o->fct_max_s * 1e6);
		}
		ft_nccl_table_foot(&sb, 0, r->busbw_GBps, "");
		snprintf(name, sizeof(name), "nccl-tests.%zu.%s.txt", i, perf);
		rc = add_file(files, &sb, name);
	}
	return files_done(&sb, rc, err);
}

/* Bins of @bin consecutive samples of @in[@ns] averaged into @out; a last, partial bin
 * averages what it has. The number of points. */
static size_t
trace_bin(const double *in, size_t ns, size_t bin, double *out)
{
	size_t k, n = 0;

	for (k = 0; k < ns; k++) {
		size_t p = k / bin, nb = FT_MIN(bin, ns - p * bin);

		out[p] += in[k] / (double)nb;
		n = p + 1;
	}
	return n;
}

/* Samples at k x interval from 1 (t[0] the interval) in bins of at most
 * FT_SIM_TRACE_POINTS: the samples a point, its interval in *@interval_s. */
static size_t
trace_bins(const double *t_s, size_t ns, double *interval_s)
{
	size_t bin = (ns + FT_SIM_TRACE_POINTS - 1) / FT_SIM_TRACE_POINTS;

	bin = bin ? bin : 1;
	*interval_s = (ns ? t_s[0] : 0) * (double)bin;
	return bin;
}

/* "a -> b" of vertices @src and @dst into @buf. */
static void
pair_name(const struct ft_topo *topo, uint32_t src, uint32_t dst, char *buf, size_t n)
{
	char a[48], b[48];

	ft_topo_vertex_name(topo, src, a, sizeof(a));
	ft_topo_vertex_name(topo, dst, b, sizeof(b));
	snprintf(buf, n, "%s -> %s", a, b);
}

/* Series @s (allocated) onto @out, freed: 0, or FT_ENOMEM. */
static int
push_series(struct ft_vec *out, void *s, struct ft_error *err)
{
	int rc = ft_vec_push(out, s);

	ft_free(s);
	return rc < 0 ? ft_error_set(err, FT_ENOMEM, "--trace: out of memory") : 0;
}

static int
qp_series(const struct ft_topo *topo, const struct ft_sim_counters *c, struct ft_vec *out,
          struct ft_error *err)
{
	for (size_t i = 0; i < c->nqp_trace; i++) {
		const struct ft_sim_qp_trace *t = &c->qp_trace[i];
		struct ft_sim_qp_series *s = ft_calloc(1, sizeof(*s));
		size_t bin;
		int rc;

		if (!s)
			return ft_error_set(err, FT_ENOMEM, "--trace: out of memory");
		pair_name(topo, t->src, t->dst, s->name, sizeof(s->name));
		snprintf(s->name + strlen(s->name), sizeof(s->name) - strlen(s->name), " qp %u", t->qp);
		s->flow = t->flow;
		bin = trace_bins(t->t_s, t->nsamples, &s->interval_s);
		s->n = trace_bin(t->rate_Bps, t->nsamples, bin, s->rate_Bps);
		trace_bin(t->alpha, t->nsamples, bin, s->alpha);
		if ((rc = push_series(out, s, err)) < 0)
			return rc;
	}
	return 0;
}

int
ft__sim_trace_series(const struct ft_topo *topo, const struct ft_sim_counters *c,
                     struct ft_vec *out, struct ft_vec *qps, struct ft_error *err)
{
	if (!c->trace)
		return ft_error_set(err, FT_ENOTSUP, "--trace: only the packet engine keeps a trace");
	for (size_t i = 0; i < c->ntrace; i++) {
		const struct ft_sim_trace *t = &c->trace[i];
		const struct ft_link *lk = ft_topo_link(topo, t->link);
		struct ft_sim_trace_series *s = ft_calloc(1, sizeof(*s));
		size_t bin;
		int rc;

		if (!s)
			return ft_error_set(err, FT_ENOMEM, "--trace: out of memory");
		pair_name(topo, lk->src, lk->dst, s->name, sizeof(s->name));
		s->link = t->link;
		bin = trace_bins(t->t_s, t->nsamples, &s->interval_s);
		s->n = trace_bin(t->rate_Bps, t->nsamples, bin, s->rate_Bps);
		trace_bin(t->queue_bytes, t->nsamples, bin, s->queue_bytes);
		if ((rc = push_series(out, s, err)) < 0)
			return rc;
	}
	return qp_series(topo, c, qps, err);
}

static int
trace_obs(struct ft_obs_set *obs, const char *key, const char *port, int k, double v,
          const char *unit)
{
	struct ft_obs o;

	ft_obs_init(&o, key);
	ft_strlcpy(o.device, port, sizeof(o.device));
	o.port = k;
	o.has_num = true;
	o.num = v;
	ft_strlcpy(o.unit, unit, sizeof(o.unit));
	o.file = "sim";
	return ft_obs_set_add(obs, &o);
}

int
ft_sim_report_trace_obs(const struct ft_sim_report *r, struct ft_obs_set *obs)
{
	int rc = 0;

	for (size_t i = 0; i < r->trace_series.len && rc == 0; i++) {
		const struct ft_sim_trace_series *s = ft_vec_at(&r->trace_series, i);
		const char *arrow = strstr(s->name, " -> ");
		char port[48];

		/* "leaf0 -> n0.nic0" as sim.link.util names it: "leaf0->n0.nic0" */
		if (arrow)
			snprintf(port, sizeof(port), "%.*s->%s", (int)(arrow - s->name), s->name,
			         arrow + 4);
		else
			ft_strlcpy(port, s->name, sizeof(port));
		rc = trace_obs(obs, "sim.trace.interval", port, -1, s->interval_s, "s");
		for (size_t k = 0; k < s->n && rc == 0; k++) {
			rc = trace_obs(obs, "sim.trace.rate", port, (int)k, s->rate_Bps[k] / 1e9, "GBps");
			if (rc == 0)
				rc = trace_obs(obs, "sim.trace.queue", port, (int)k, s->queue_bytes[k],
				               "bytes");
		}
	}
	for (size_t i = 0; i < r->qp_series.len && rc == 0; i++) {
		const struct ft_sim_qp_series *s = ft_vec_at(&r->qp_series, i);
		const char *arrow = strstr(s->name, " -> ");
		char qp[sizeof(((struct ft_obs *)0)->device)];

		/* "flow 17: n3.gpu0->n0.gpu0 qp 0", the arrow as the ports' */
		snprintf(qp, sizeof(qp), "flow %u: %.*s%s%s", s->flow,
		         arrow ? (int)(arrow - s->name) : (int)sizeof(s->name), s->name,
		         arrow ? "->" : "", arrow ? arrow + 4 : "");
		rc = trace_obs(obs, "sim.trace.qp.interval", qp, -1, s->interval_s, "s");
		for (size_t k = 0; k < s->n && rc == 0; k++) {
			rc = trace_obs(obs, "sim.trace.qp.rate", qp, (int)k, s->rate_Bps[k] * 8e-9,
			               "Gbps");
			if (rc == 0)
				rc = trace_obs(obs, "sim.trace.qp.alpha", qp, (int)k, s->alpha[k], "");
		}
	}
	return rc < 0 ? FT_ENOMEM : 0;
}

#!/usr/bin/env python3
# docs/rules/generate.py - write docs/rules/<id>.md, one page per diagnosis
# rule, from `fabtune diagnose --list-rules --json` (id, layer, severity,
# summary, needs, fix, kb) and the trigger notes below, which say what fires
# the rule and whether its threshold is a knowledge-base number or a
# heuristic. Run after changing a rule:  docs/rules/generate.py build/cli/fabtune
# A rule's kb ids must be ids of the knowledge base (kb-ids.txt beside this
# script): a rule citing another one is refused, and no page is written.
import json
import os
import subprocess
import sys

T = {
    # id: (trigger, basis)
    "nccl-socket-transport": ("`nccl.net` is Socket. Error when NCCL_IB_DISABLE or NCCL_NET=Socket is set or an InfiniBand port is Active among the inputs; warning otherwise.", "symptom signature (SYM-BW-SOCKET)"),
    "nccl-no-rdma-device": ("NCCL logged `NET/IB : No device found` (`nccl.ib.no_device`), or `Failed to open libibverbs` at INFO (NCCL 2.5 and later, `nccl.ib.no_verbs`) or WARN level.", "log signature"),
    "nccl-socket-ifname": ("NCCL_SOCKET_IFNAME or the interface NCCL reports is `lo`, `docker*` or `virbr*`.", "NCCL's own interface exclusions (ENV-SOCKET_IFNAME)"),
    "nccl-gdr-disabled": ("`nccl.gdr` is 0 for an RDMA HCA while the network is not Socket (socket devices such as eno2 are skipped).", "log signature"),
    "nccl-mixed-link-layers": ("NCCL's device list holds both `/IB` and `/RoCE` entries.", "log signature (SYM-INCOMPAT-DEV)"),
    "nccl-ib-hca-ethernet": ("a device named in NCCL_IB_HCA has link layer Ethernet while an InfiniBand port is Active.", "configuration check"),
    "nccl-bond-single-qp": ("NCCL uses a `*bond*` device and NCCL_IB_QPS_PER_CONNECTION is unset or 1.", "maintainer advice in I#1015 (ENV-IB_QPS)"),
    "nccl-ib-hca-prefix": ("NCCL_IB_HCA has no `=` and one of its names is a prefix of another device seen (mlx5_1 vs mlx5_10).", "NCCL's prefix matching (ENV-IB_HCA)"),
    "nccl-retry-exceeded": ("completion status 12; evidence adds non-zero link counters, retries exceeded or ACK timeouts when present (those on the failing host first).", "verbs status (SYM-ERR-12)"),
    "nccl-rnr-retry-exceeded": ("completion status 13.", "verbs status (SYM-ERR-13)"),
    "nccl-local-protection-error": ("completion status 4.", "verbs status (SYM-ERR-4)"),
    "nccl-remote-error": ("completion status 9, 10 or 11.", "verbs status (SYM-ERR-10-11)"),
    "nccl-flush-error": ("completion status 5 (reported as info: a consequence).", "verbs status (SYM-ERR-5)"),
    "nccl-peer-unreachable": ("a WARN/error line with `unreachable`, `No route to host`, `Connection refused`, `Connection closed by remote peer`, `connection abort`, `Connection timed out`, `socketStartConnect` or `Failed to execute operation Connect`.", "log signature"),
    "nccl-create-qp-failed": ("a line with `ibv_create_qp failed`, `ibv_reg_mr failed` or `ibv_create_cq failed`.", "log signature (SYM-MEMLOCK)"),
    "nccl-modify-qp-failed": ("a line with `ibv_modify_qp failed`.", "log signature (SYM-QP-GID)"),
    "nccl-incompatible-devices": ("a line with `incompatible devices`.", "log signature (SYM-INCOMPAT-DEV)"),
    "nccl-link-event": ("a line with `speed change detected`, an async event, or `GID table changed`.", "log signature"),
    "nccl-topology-mismatch": ("a line with `Attribute busid of node nic not found`, `not found in topology`, `is not a PCI device` or `Could not get speed`.", "log signature"),
    "nccl-nvls-cumem-failure": ("a WARN/error mentioning NVLS, cuMem or get_mempolicy together with fail/error/unable.", "log signature"),
    "nccl-p2p-channels": ("an all-to-all or send/recv result over a NET transport with NCCL_NCHANNELS_PER_NET_PEER unset (info).", "maintainer advice in I#1272 (ENV-NCH_NET_PEER)"),
    "nccl-env-leftover": ("any of NCCL_ALGO, NCCL_PROTO, NCCL_IB_DISABLE, NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, NCCL_NET_GDR_LEVEL, NCCL_MIN/MAX_NCHANNELS, NCCL_MIN/MAX_CTAS, NCCL_BUFFSIZE, NCCL_NTHREADS, NCCL_LL_THRESHOLD, NCCL_TREE_THRESHOLD, NCCL_IB_CUDA_SUPPORT is set; warning when a *_DISABLE is not 0.", "NCCL guide's debugging list (SYM-ENV-LEFTOVER)"),
    "nccl-retry-cnt-invalid": ("NCCL_IB_RETRY_CNT outside 0-7.", "verbs field width (ENV-IB_RETRY_CNT)"),
    "nccl-version-mismatch": ("two different `nccl.version` values among the inputs.", "configuration check"),
    "tool-failed": ("a `tool.error` observation (e.g. `ibpanic`, or an `ibwarn` line that reports a failure: libibumad's debug trace is not one).", "the tool's own error"),
    "pcie-link-degraded": ("`pcie.link.speed_cur` < `speed_max` or `width_cur` < `width_max` for one device (lspci `LnkCap`/`LnkSta`, sysfs, `nvidia-smi -q` GPU Link Info). A speed below capability on a GPU that `nvidia-smi -q` does not show at work (utilization 0 %, or with no utilization a performance state other than P0-P2 or none) is info: GPUs lower their link speed when idle; a narrower link is still a warning.", "HOST-PCIE rule; GPUs lower their speed when idle, check under load"),
    "gpu-nic-cross-socket": ("a GPU's nearest NIC in `nvidia-smi topo -m` is SYS (warning) or PHB/NODE (info: GDR off by default).", "HOST-TOPO rule"),
    "gpu-numa-without-nic": ("a GPU's NUMA affinity differs from the NUMA node of every NIC of its host.", "HOST-NUMA rule"),
    "host-acs-enabled": ("`host.acs` shows `SrcValid+` (or enabled).", "NCCL GPU troubleshooting (HOST-ACS)"),
    "host-iommu-translated": ("`host.iommu` is on/translated/DMA (info).", "HOST-ACS"),
    "host-memlock-limited": ("`host.memlock` is a number rather than unlimited.", "NCCL networking troubleshooting (HOST-LIMITS)"),
    "ib-port-down": ("`ib.port.state` is not Active, Init or Armed; info when the physical state is Disabled.", "IB-SPEED / KSYSFS states"),
    "ib-port-no-sm": ("`ib.port.state` is Init or Armed.", "IB-SM"),
    "ib-link-below-capability": ("on an Active port, width or speed below the largest supported value (down ports are skipped: they report base speed).", "IB-SPEED"),
    "ib-rate-below-peers": ("an Active port's rate below the fastest Active port of the same link layer among the inputs and, where both are known, of the same adapter model (ibstat's `CA type`, ibv_devinfo's `vendor_part_id`): a ConnectX-6 HDR port at 200 beside ConnectX-7 NDR ports at 400 runs at its own top rate.", "heuristic: the fleet norm is the fastest port of its kind seen (IB-SPEED, SYM-LINK-DEGRADED)"),
    "ib-mtu-below-4096": ("an Active InfiniBand port with `mtu_active` < 4096.", "IB-MTU"),
    "ib-mtu-mismatch": ("Active InfiniBand ports with different `mtu_active`.", "IB-MTU"),
    "ib-ibdiagnet-warning": ("an `ibdiag.warning` from an ibdiagnet report: warning for a suboptimal IPoIB group rate, info for others; `Topology file is not specified` is ignored.", "the tool's own warning"),
    "ib-symbol-errors": ("SymbolErrorCounter >= 10 since the last clear.", "IBD-THR default"),
    "ib-link-recovery": ("LinkErrorRecoveryCounter >= 10.", "IBD-THR default"),
    "ib-link-downed": ("LinkDownedCounter >= 1 (error); >= 10 critical.", "IB-COUNTERS: any increment on a port with a job is serious; 10 is the IBD-THR default"),
    "ib-rcv-errors": ("PortRcvErrors >= 10.", "IBD-THR default"),
    "ib-remote-physical-errors": ("PortRcvRemotePhysicalErrors >= 100.", "IBD-THR default"),
    "ib-switch-relay-errors": ("PortRcvSwitchRelayErrors >= 100.", "IBD-THR default"),
    "ib-xmit-discards": ("PortXmitDiscards >= 100.", "IBD-THR default"),
    "ib-xmit-wait": ("PortXmitWait >= 1000.", "IBD-THR floor; tick length is device-specific, so this is a reporting floor, not a congestion ratio"),
    "ib-constraint-errors": ("PortXmit/RcvConstraintErrors >= 100.", "IBD-THR default"),
    "ib-link-integrity": ("LocalLinkIntegrityErrors >= 10.", "IBD-THR default"),
    "ib-buffer-overrun": ("ExcessiveBufferOverrunErrors >= 10.", "IBD-THR default"),
    "ib-vl15-dropped": ("VL15Dropped >= 100.", "IBD-THR default"),
    "roce-pfc-off": ("`roce.qos.pfc_enabled_prios` enables no priority.", "ROCE-PFC"),
    "roce-pfc-wrong-priority": ("trust dscp, and priority (NCCL_IB_TC >> 2) >> 3 (the default dscp2prio map; TC 0 when unset) is not PFC-enabled, with an NCCL log or environment among the inputs.", "ROCE-QOS rule set (a)"),
    "roce-trust-pcp": ("`roce.qos.trust` is pcp.", "ROCE-QOS rule set (b)"),
    "roce-gid-empty": ("a GID count of 0, or an all-zero GID.", "ROCE-GID"),
    "roce-gid-index": ("NCCL_IB_GID_INDEX set: error when the entry is link-local, empty or RoCE v1; warning when NCCL >= 2.21.", "NCCL networking troubleshooting (ENV-IB_GID_INDEX)"),
    "roce-mtu-below-4096": ("an Active Ethernet-link-layer port, or a perftest run over Ethernet, with MTU < 4096.", "ROCE-MTU"),
    "eth-tx-pause-high": ("tx_prio<N>_pause, tx_global_pause, tx_pause_ctrl_phy or the plain tx_pause_frames of other drivers (bnxt_en) >= `pause_frames_max` of the thresholds (100000 by default).", "heuristic: pause frames far beyond bursts since the last clear (thresholds file, `--thresholds`)"),
    "eth-rx-pause-high": ("rx_prio<N>_pause, rx_global_pause, rx_pause_ctrl_phy or the plain rx_pause_frames of other drivers (bnxt_en) >= `pause_frames_max` of the thresholds (100000 by default).", "heuristic (thresholds file, `--thresholds`)"),
    "eth-pause-fraction": ("with a probe interval, Δpause_duration (µs) / Δt (µs) >= `paused_fraction_max` of the thresholds (10% by default) on a priority (error >= 50%).", "ROCE-PFC heuristic: a few percent under all-reduce bursts is common, tens of percent sustained is congestion spreading"),
    "eth-pause-storm": ("tx_pause_storm_warning_events or tx_pause_storm_error_events >= 1.", "K-MLX5 storm prevention counters (ROCE-PFC)"),
    "roce-ecn-no-cnp": ("np_ecn_marked_roce_packets > 0 with np_cnp_sent = 0 on the same port.", "ROCE-DCQCN interpretation matrix"),
    "roce-dcqcn-overreaction": ("A NIC whose np_ecn_marked_roce_packets are at least dcqcn_mark_share_min (5 %) of its rx_packets_phy while its rx_bytes_phy rate is at most dcqcn_rx_utilisation_max (50 %) of its link rate, and among the inputs a NIC that handles at least dcqcn_cnp_rate_min CNPs per second (rp_cnp_handled; 3,333/s = 1/rpg_time_reset at the 300 us default) while transmitting (tx_bytes_phy) at most dcqcn_tx_share_max (50 %) of its link rate. Rates are the counters' `.rate` from a probe with an interval, or counts over the run's makespan from a `fabtune sim` summary among the inputs; the link rate is `sim.nic.link_rate` or `eth.link.speed` (ethtool DEV). Without a span or a link rate the rule stays silent; a NIC whose link rate is not among the inputs is not counted as a sender.", "CC-DCQCN mechanics (cut per CNP bounded by rpg_min_dec_fac, one recovery step per rpg_time_reset); the 50 % and 5 % limits are heuristics"),
    "pfc-deadlock": ("A port whose PFC watchdog detected a storm (`show pfcwd stats`) has been paused without a break: its switch waits on the device behind it. The rule follows each stormed port to that device through `show lldp table`; when the device is a switch with a stormed port of its own, it follows that one, and it fires when the chain comes back to a switch it started from. The finding names the ring (switch and port at each hop) and carries the storm counter of every hop as evidence.", "ROCE-PFC: a PFC deadlock is a cycle of lossless buffers, each waiting for the next; a watchdog breaks it by ignoring pauses (and dropping) but the cycle closes again as long as the routing allows it. A chain that ends at a host is a storm, not a deadlock (`switch-pfc-storm`)"),
    "ib-credit-loop": ("a switch port whose perfquery PortXmitWait reached 1000 ticks (the IBD-THR floor of `ib-xmit-wait`) waits for credits on the device at its far end; `ibnetdiscover -p` (which `fabtune sim --counters` writes as `ibnetdiscover-p.txt` on InfiniBand) says which LID, port and node type (SW or CA) that is, perfquery names ports by LID. The waiting switch ports between switches make a graph of switch LIDs; the rule fires when a depth-first search finds a cycle in it, and names the ring (switch, LID and port at each hop) with the PortXmitWait of every hop as evidence. Ports that face a host (CA) are left out: a slow receiver is a chain, not a ring.", "IB-FC: credit flow control never drops, so a full buffer waits on the next one; congestion toward a hot spot (incast, ECMP collisions) makes waits that point one way and end there, a tree, and on an up/down routed fat-tree no route can close a cycle. Waits that close a ring are a cyclic buffer dependency (IB-SM: minhop-like engines can make credit loops on topologies with cycles), deadlocked once PortXmitWait grows on the ring while PortXmitData stands still, which two reads of the ports show"),
    "roce-pfc-only": ("rx_prio<N>_pause_duration > 0 on a host whose np_ecn_marked_roce_packets and np_cnp_sent are both 0, unless the host handled CNPs (rp_cnp_handled > 0: a sender whose DCQCN reacts to its receivers' notifications).", "ROCE-COUNTERS interpretation matrix"),
    "job-overlap-low": ("`torch.trace.overlap` (from a PyTorch profiler trace: the union of a GPU's NCCL kernel intervals intersected with the union of its compute kernel intervals, over the NCCL union) below `overlap_min` of the thresholds (90% by default), with at least 1 ms of NCCL kernel time in the trace.", "Holistic Trace Analysis' communication computation overlap; the 90% default of the thresholds file (`--thresholds`); the 1 ms floor is a heuristic"),
    "roce-ecn-disabled": ("`roce.ecn.np.prio<N>` or `roce.ecn.rp.prio<N>` is 0 (the probe reads `/sys/class/net/<if>/ecn/roce_np/enable/<N>` and `roce_rp/enable/<N>`) on a priority that carries RDMA: one that PFC protects (`roce.qos.pfc_enabled_prios` of the same device, else of the same host), else the priority of NCCL_IB_TC under the default dscp2prio map (unless the port trusts pcp). With neither known it fires only when a point is off on all eight priorities.", "ROCE-DCQCN: without the notification point no CNP is sent, without the reaction point CNPs are ignored"),
    "roce-dcqcn-params": ("a DCQCN knob (`roce.cc.<name>`, read from `/sys/kernel/debug/mlx5/<pci>/cc_params/` or the `ecn/roce_rp`, `ecn/roce_np` tree) at 10 times its documented default or more, or at a tenth or less (rp_time_reset 300 us, rp_byte_reset 32767 B, rp_ai_rate 5 Mb/s, rp_hai_rate 50 Mb/s, rp_dce_tcp_rtt 1 us, rp_threshold 1; only the high side for rp_min_rate 1 Mb/s, rp_rate_reduce_monitor_period 4 us, np_min_time_between_cnps 4 us); any rp_max_rate cap above 0.", "defaults of CC-DCQCN (NVIDIA's DCQCN parameters page); the factor 10 is a heuristic: tuned fabrics move knobs by a few times (CC-DCQCN's tuned example sets rpg_time_reset 20-100 us)"),
    "roce-ecn-rate-high": ("ECN-marked packets >= `ecn_mark_share_max` of the thresholds (1% by default) of received packets on the same device.", "heuristic (thresholds file, `--thresholds`)"),
    "roce-cnp-ignored": ("rp_cnp_ignored >= 1.", "healthy value 0 (ROCE-COUNTERS)"),
    "roce-out-of-sequence": ("out_of_sequence or duplicate_request >= 1.", "healthy value 0 (ROCE-COUNTERS)"),
    "roce-sequence-errors": ("packet_seq_err, implied_nak_seq_err or roce_adp_retrans >= 1.", "healthy value 0 (ROCE-COUNTERS)"),
    "roce-ack-timeouts": ("local_ack_timeout_err >= 1.", "healthy value 0 (ROCE-COUNTERS)"),
    "rdma-retries-exceeded": ("req_transport_retries_exceeded >= 1 (`rdma statistic`, sysfs hw_counters).", "healthy value 0 (ROCE-COUNTERS); each one is a send completed with status 12 (SYM-ERR-12)"),
    "eth-rx-discards": ("rx_discards_phy or rx_prio<N>_discards/_buf_discard >= 1000.", "heuristic (0 expected on a lossless priority)"),
    "eth-rx-out-of-buffer": ("rx_out_of_buffer >= 1000.", "heuristic"),
    "eth-oversize-frames": ("rx_oversize_pkts_phy or rx_out_of_range_len_phy >= 1.", "healthy value 0 (HOST-ETH-MTU)"),
    "eth-phy-errors": ("rx_crc_errors_phy, rx_symbol_err_phy, rx_pcs_symbol_err_phy or link_down_events_phy >= 10.", "heuristic, following the IBD-THR default for symbol errors"),
    "eth-pci-signal-integrity": ("rx/tx_pci_signal_integrity >= 1.", "healthy value 0 (K-MLX5-CNT)"),
    "eth-module-fault": ("module_high_temp, module_bad_shorted or module_bus_stuck >= 1.", "healthy value 0"),
    "eth-link-down": ("`eth.link.detected` no, or operstate down.", "ethtool link state"),
    "eth-not-rdma-netdev": ("the netdev driver is veth, bridge, tun or macvlan.", "configuration check (ROCE-GID)"),
    "perf-no-results": ("a benchmark listed its ranks but the same file holds no busbw, time, bandwidth or latency figure.", "output shape"),
    "perf-busbw-below-model": ("the best busbw (at the expected size, or the plateau when bytes = 0) is below 80% of the expectation (error below 55%).", "NA-EXPECT 80% heuristic; SYM-BW-HALF"),
    "perf-latency-above-model": ("an expectation with lat_us: the measured latency (perftest p50, else the nccl-tests time: the lesser of its out-of-place and in-place columns, so a spike in one column's average is not taken for a slow path) at its size, or at the smallest size when bytes = 0, is >= 1.5x the expectation (error >= 2x).", "heuristic"),
    "perf-scale-drop": ("the same test in several runs (one file each) at different rank counts: the plateau busbw of the largest run is below 85% of the smallest's.", "SYM-SCALE-DROP signature; 85% is a heuristic"),
    "perf-latency-jitter": ("p99 / p50 >= 2 for one size (error >= 10).", "heuristic"),
    "perf-pair-outlier": ("a pair below 80% of the median of at least 3 pairs.", "heuristic"),
    "perf-host-outlier": ("an endpoint slow (as above) in all of its >= 2 pairs.", "heuristic"),
    "perf-wrong-results": ("the benchmark's #wrong > 0.", "nccl-tests validation"),
    "perf-utilisation-low": ("the best `bench.bw_avg` of a perftest (Gb/s) divided by the rate of the port it ran on is below `utilisation_min` of the thresholds (85% by default; a 302 Gb/s ib_write_bw on a 400 Gb/s port is 75.5%). The port is the Active `ib.port.rate` of the perftest's device, else the one rate all Active ports share, else `eth.link.speed`; error below 55%. An nccl-tests run of all_reduce, all_gather, reduce_scatter, broadcast or reduce whose ranks (`bench.rank`) sit on two or more hosts is held to the line rate of the NICs its ranks use: ratio = peak `bench.busbw` (GB/s) x 8 / (ranks on the node with the fewest x per-GPU NIC line rate), the per-GPU rate being the Active port rate among the inputs, else the `--spec` NICs' link (`spec.nic.rate`), times NICs per GPU from the spec when a node has fewer NICs than GPUs (one NIC per GPU without a spec). 2 nodes x 8 ranks on 8 x 400G is held to 3200 Gb/s: 350 GB/s busbw (2800 Gb/s) is 87.5%, 300 GB/s is 75%. Ring collectives cross a node through one NIC per ring, so their busbw is bounded by the node's NIC line rate (NA-EXPECT, NA-BUSBW); tree/NVLS on two nodes can exceed it (above 100%, never a finding). alltoall and sendrecv follow other bounds and are not judged; nor is a run without rank lines (a table excerpt), which cannot show it spans nodes.", "the utilisation users hold a fabric to (thresholds file, `--thresholds`); the ring bound of NA-EXPECT"),
    "roce-cc-steady-state": ("a per-second rate from a probe with `--interval` (`<key>.rate`) of pause frames (`rx/tx_prioN_pause`, `rx/tx_global_pause`) above `pfc_rate_max`, or of ECN-marked packets, CNPs sent or CNPs handled (RDMA hw_counters in sysfs) above `ecn_rate_max`; both are 0 by default.", "the steady-state rates users hold a lossless fabric to (thresholds file)"),
    "torch-watchdog-timeout": ("PyTorch's ProcessGroupNCCL watchdog reported `Watchdog caught collective operation timeout: WorkNCCL(SeqNum=..., OpType=...)` (`torch.nccl.seq`). The message names the ranks, the operation, the sequence number, how long it ran and the timeout, and reads them: ranks that disagree on the operation at one SeqNum, or stop at different SeqNums, have desynchronised (an application fault); when all agree, ranks below the highest reporting rank that reported neither a timeout nor the failed work are named as the ones the others wait for.", "PyTorch's collective sequence numbering: every rank must issue the same collectives in the same order"),
    "torch-nccl-error": ("a `DistBackendError` / `NCCL error in:` line (`torch.nccl.error`); the message says what NCCL's text means (remote process exited or network error, unhandled system error, invalid usage).", "log signature"),
    "nic-driver-fault": ("the mlx5_core driver's kernel lines on one NIC (by its PCI address), one finding at its worst event with the others as evidence: `probe of ... failed with error`, `mlx5_init_one failed with error code` (critical); firmware stuck or lost (`Firmware over N MS in pre-initializing state`, `firmware version: 65535.65535.65535`, `device's health compromised - reached miss count`, `Fatal error N detected`, `synd 0x..`: critical); a command that timed out (`... timeout. Will cause a leak of a command resource`: error) or failed (`mlx5_cmd_out_err`: warning, info for ACCESS_REG, which firmware-owned functions refuse); `Port module event[error]` (error); `Detected insufficient power on the PCIe slot` (warning); the latest module event `Cable unplugged` or the latest carrier line `Link down` (warning). `PCIe slot advertised sufficient power`, `Cable plugged` and `Link up` are healthy.", "the driver's own messages (Linux drivers/net/ethernet/mellanox/mlx5/core: main.c, health.c, cmd.c, events.c, en_main.c), paraphrased"),
    "gpu-xid": ("an `NVRM: Xid (PCI:...): N` kernel line, or `fallen off the bus` without one (read as Xid 79), one finding per GPU and code with its count. Severity from the class: memory, NVLink and bus faults (48, 64, 74, 79; on Hopper and later 143, 157, 167, 168, 171, 172, 173, 175) critical, drain the node; firmware, uncontained and NVLink-unit errors (61, 62, 95, 119, 120, 140; 121, 136, 137, 144-150, 155, 158) error, reset the GPU; application faults (13, 31, 32, 43, 94) warning, restart the job; watch-only events (45, 63, 92, 156) info; other codes warning with the driver's text. Xid 154 (the driver's recovery action changed) takes the severity of the action its latest line on that GPU names: None info, Drain P2P or Recover IMEX Domain warning, GPU Reset Required, Drain and Reset or PF FLR error, Node Reboot Required or OS Reboot critical. A line that names its cause (`caused by previous Xid N`) whose own line on that GPU is not among the inputs is judged by that cause, at least as severe as the line's own code; a cause not in this list is a warning.", "NVIDIA's Xid catalog, Resolution Bucket (https://docs.nvidia.com/deploy/xid-errors/), paraphrased; codes after 140 named from the driver's list (open-gpu-kernel-modules 595.45.04, src/common/sdk/nvidia/inc/nverror.h) and classed as the catalog classes the same kind of fault; Xid 154's actions from the driver's gpu.c"),
    "gpu-memory-remap": ("`nvidia-smi -q` shows, for a GPU, `Remapped Rows` with `Pending : Yes` (A100 and later) or `Retired Pages` with `Pending Page Blacklist` (or `Pending Page Retirement`) `: Yes` (earlier GPUs): warning, the repair is recorded but the failing rows or pages stay in use until the GPU is reset (the driver reloaded, the node rebooted). `Remapping Failure Occurred : Yes`: critical, no spare row was left for a failing bank, the memory keeps failing. One finding per GPU (a failure says it alone), with the remapped row counts as evidence. The `Remapped Rows` section read alone, without its `GPU` line, names no GPU (entity `-`).", "the driver's own flags; what they mean is NVIDIA's GPU memory error management guide (https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/) and the Xid catalog (Xid 63: a remap recorded, Xid 64: a remap failed), paraphrased"),
    "gpu-ecc-uncorrectable": ("`nvidia-smi -q` `ECC Errors` of a GPU: a `Volatile` (since the driver loaded) uncorrectable count above 0 (`DRAM Uncorrectable`, `SRAM Uncorrectable`, `SRAM Uncorrectable Parity` or `SEC-DED`, or before A100 the `Double Bit` `Total`): error, a job on that GPU read memory ECC could not correct. Only an `Aggregate` (lifetime) uncorrectable count above 0: info, a past event whose repair `gpu-memory-remap` reports. Correctable counts alone fire nothing. One finding per GPU, the counts summed.", "the driver's own counters; what they mean is NVIDIA's GPU memory error management guide and the Xid catalog (Xid 48: a double-bit error, 94 and 95: contained and uncontained ECC errors), paraphrased"),
    "link-effective-ber": ("mlxlink's Effective Physical BER (after FEC) above 1e-12 on a port; the evidence adds the effective error count and the raw BER, and the message names a lane that carries three quarters or more of the raw errors.", "IBDIAG-BER's 1e-12, which on HDR/NDR applies after FEC"),
    "link-raw-ber": ("mlxlink's Raw Physical BER (before FEC) at 1e-6 or more while the effective BER is still clean.", "heuristic: RS-FEC (544,514) corrects up to about 2e-4, 1e-6 keeps two decades of margin"),
    "link-errors": ("mlxlink counts symbol errors, link downs or link error recoveries (any non-zero value since the last clear), one finding per port.", "IB-COUNTERS: these count events traffic saw"),
    "link-module-temp": ("the module temperature mlxlink prints is within 5 C of the high end of its own printed range (error at or above it), or at 70 C or more when no range is printed.", "the module's own alarm range; 70 C (commercial case temperature) is a heuristic"),
    "link-recommendation": ("mlxlink's Troubleshooting Info recommendation is anything other than `No issue was observed`.", "the tool's own verdict"),
    "roce-cc-prio-off": ("`mlxconfig` shows ROCE_CC_PRIO_MASK_Pn = 0 (DCQCN off on every priority), or a mask without the bit of the PFC-enabled priority that mlnx_qos shows among the inputs.", "ROCE-DCQCN: DCQCN is enabled per priority (firmware ROCE_CC_PRIO_MASK)"),
    "roce-cnp-class": ("CNP_802P_PRIO_Pn equals the PFC (lossless) data priority, or CNP_DSCP_Pn equals the DSCP of NCCL_IB_TC (TC >> 2).", "ROCE-DCQCN: CNPs belong in a high-priority class of their own"),
    "roce-dcqcn-tuned": ("any DCQCN reaction-point parameter in mlxconfig (RPG_*, DCE_TCP_*, RATE_*, INITIAL_ALPHA_VALUE, CLAMP_TGT_RATE*) differs from NVIDIA's published default; info, with each parameter and its default.", "NV-DCQCN defaults as listed in ROCE-DCQCN; the kb gives no tuned values"),
    "switch-pfc-storm": ("`show pfcwd stats` counts a detected storm on a port's queue (critical while its status is `stormed`); evidence adds the watchdog's TX/RX drops.", "ROCE-PFC: a storm is a host or NIC that stopped draining"),
    "switch-pfc-pause": ("`show pfc counters` shows `pause_frames_max` (100,000 by default) or more PFC frames sent (Port Tx) or received (Port Rx) on a priority of a port since the counters were cleared.", "heuristic, the same mark as the NIC pause rules"),
    "switch-drops": ("`show interfaces counters` shows `switch_drops_max` (1,000 by default) or more RX_DRP or TX_DRP on a port, or `show queue counters` as many or more dropped packets on a queue (with the dropped share of what the queue was given). When `show pfcwd stats` counts PFC watchdog drops (TX DROP) on the same port and queue, the finding says how many of the drops are the watchdog's and carries its own fix: all of them, find what held the queue paused past the watchdog's time (a pause storm, a PFC deadlock ring), not PFC missing; some of them, that and the PFC and headroom check for the rest.", "heuristic: more than a stray burst"),
    "switch-fec": ("`show interfaces counters fec-stats`: uncorrectable codewords (error), a post-FEC BER above 1e-12 (error), or a pre-FEC BER (or its recorded maximum) of 1e-6 or more (warning).", "IBDIAG-BER's 1e-12 after FEC; 1e-6 before FEC is a heuristic"),
    "ib-pkey-membership": ("P_Key tables read with `smpquery PKeyTable` (`ib.pkey.<index>`, `ib.pkey.capacity` per port), at the index NCCL uses: `NCCL_IB_PKEY` when it is among the inputs, else 0. Fires when a port holds no P_Key at that index, when two ports hold different partitions there, or when two or more ports are only limited members (bit 15 clear) of their partition. Error when NCCL_IB_PKEY was seen, warning otherwise (index 0 is only NCCL's default). Each finding names the ports (LID or address queried).", "IB-PKEY: the low 15 bits name the partition, bit 15 is full membership, and two limited members of a partition cannot talk to each other (OSM-PART)"),
    "ib-sl-vl-unserved": ("SL-to-VL tables read with `smpquery sl2vl` (`ib.sl2vl.sl<N>` per output port and input row) at the SL NCCL uses: `NCCL_IB_SL` when it is among the inputs, else 0. Fires when that SL goes out on VL15, or on a VL past the port's operational VLs (`ib.portinfo.OperVLs` from `smpquery portinfo` of the same port, \"VL0-1\"). One finding per output port; error when NCCL_IB_SL was seen, warning otherwise.", "IB-VL: VL15 carries subnet management only (an SL2VL entry of VL15 drops the SL), and a port has buffers on its operational VLs only"),
    "fabric-pfc-deadlock-risk": ("the cluster spec (`--spec`) is a torus or a dragonfly and the fabric is lossless RoCE (a RoCE link preset, or PFC enabled in mlnx_qos among the inputs): warning; on InfiniBand the same topologies give an info finding about credit loops and the routing engine. Fat-trees (up/down routing) are acyclic and never fire.", "ROCE-PFC: PFC deadlocks come from cyclic buffer dependencies"),
    "fabric-ecmp-collision": ("the cluster spec (`--spec`) is a fat-tree with a radix, and on one switch the ports above radix/2 (its uplinks: down ports come first, as fabtune's fat-tree numbers them) have perfquery PortXmitData whose busiest port sent at least 1.5x the mean of those present, the PortRcvData of its down ports (1 to radix/2, the load offered to the uplinks) stays under 1.5x their mean (uneven offered load, or a top-tier switch whose ports all go down, is not the hash's doing), and a PortXmitWait of 1000 or more on any of those uplinks (a port held data back: the fabric bound the job; the busiest link drains at line rate with credits, the ports feeding the congestion it causes wait). One finding per switch, naming the busiest and the least loaded uplink and how many sent nothing. Ports that carried nothing either way are left out of the mean (the sim writes no file for them; perfquery is run per port). On RoCE the same test reads SONiC's tables (`sonic.<switch>.txt` of `fabtune sim --counters`): a port's bytes are the sum of its queues' Counter/bytes in `show queue counters`, port K is Ethernet<4(K-1)> (the 4-lane naming), the down ports' transmit bytes stand for the offered load (SONiC's queue counters count transmit only), and holding back is 100 or more CE marks (`show queue wredcounters`: each one a CNP that cuts a DCQCN sender), drops and PFC frames received (`show pfc counters`) over the uplinks together, or, on a fabric that neither marks nor pauses, an uplink queue whose peak (`show queue watermark unicast`) passed radix/2 x 9216 bytes (what a balanced fabric can pile up when every down port delivers a jumbo frame at once; k colliding line-rate flows peak at k - 1 flows' bytes); the finding names the far end (LLDP) of the busiest and the idlest uplink.", "ROCE-ECMP, IB-AR, ENV-IB_QPS: k flows hashed onto n links leave the busiest about 1 + sqrt(2 n ln n / k) times the mean (balls into bins): 2 to 3 for 8 ring flows on 8 uplinks, under 1.5 only past k = 8 n ln n (133 flows on 8 links); D-mod-K, adaptive routing and spraying stay within a few per cent of 1. On RoCE k counts QPs (each QP's UDP source port is hashed: more QPs, more balls); on InfiniBand a switch forwards by destination LID alone (IB-SM), so k counts destination ports and more QPs add none (the twin routes them so). The 1000-tick floor is IBD-THR's; RoCE's floor of 100 marks, drops and pauses over the uplinks is a heuristic (the lab's uplinks mark none under adaptive routing, 1,866 on leaf0 under ECMP)"),
    "ib-cc-off": ("opensm.conf has `congestion_control FALSE` (upstream) or `mlnx_congestion_control` 0 or 1 (NVIDIA: ignore, disable) and the fabric shows it needs CC: a port with PortXmitWait >= 1000 or PortXmitDiscards >= 100, or a spec of 64 nodes or more.", "IB-CC / CC-IB (OpenSM defaults CC off); the counter floors are IBD-THR's, the node count a heuristic"),
    "nccl-env-link-layer": ("on an InfiniBand-only set of ports, a RoCE setting (NCCL_IB_GID_INDEX, NCCL_IB_TC, NCCL_IB_ROCE_VERSION_NUM, NCCL_IB_ADDR_FAMILY/RANGE) is set (info), or NCCL_IB_ADAPTIVE_ROUTING=0 (warning); on RoCE only, NCCL_IB_SL with DSCP trust, or NCCL_IB_TIMEOUT above the default 20 with the time each try waits (info). Advise unsets the variable.", "ENV-IB_TC, ENV-IB_GID_INDEX, ENV-IB_SL, ENV-IB_AR"),
    "host-copy-bw-outlier": ("in one nvbandwidth matrix (same file and test), the slowest copy path is below 85% of the best; one finding per matrix with the count of slow paths.", "heuristic, like perf-pair-outlier; HOST-TOPO/HOST-ACS name the usual causes"),
    "gpu-nvlink-down": ("`dcgmi nvlink --link-status` shows links down (D) on a GPU; warning when some of its links are still up, error when none is. Links a GPU does not have are printed as not supported (_) and never fire.", "DCGM's own link state"),
    "dcgm-diag": ("a `dcgmi diag` row reads Fail (error) or Warn (warning), or `dcgmi health` gives an overall verdict other than Healthy.", "the tool's own verdict"),
    "nccl-cuda-failure": ("a NCCL WARN/error line or the framework's NCCL error says `Cuda failure N 'text'` or `unhandled cuda error`; the message names the class (out of memory, peer access, invalid device ordinal, illegal memory access, ECC, unknown error).", "log signature; NCCL-TS-GPU"),
    "job-recovery-time": ("the PyTorch watchdog's configured collective timeout (`Timeout(ms)`) or NCCL's dead-peer detection time 4.096 us x 2^NCCL_IB_TIMEOUT x (NCCL_IB_RETRY_CNT + 1) exceeds `recovery_max` of the thresholds (5 min by default).", "the recovery time users hold a job to (thresholds file); ENV-IB_TIMEOUT for the arithmetic"),
    "perf-test-unknown": ("an nccl-tests output whose collective could not be named: no header line, no `*_perf` name in the text or file name, and rows that fit several tests (all_gather and alltoall print the same columns; busbw/algbw = 1 fits all_reduce on 2 ranks and sendrecv). Info: its busbw is not compared with expectations.", "output shape (NT-PERF)"),
}

# Counter rules also judge per-second rates (`<key>.rate`, from a probe with
# --interval): any increase fires unless noted here.
RATE = {
    "ib-ibdiagnet-warning": ("an `ibdiag.warning` from an ibdiagnet report: warning for a suboptimal IPoIB group rate, info for others; `Topology file is not specified` is ignored.", "the tool's own warning"),
    "ib-symbol-errors": "a rate above 0.001/s (a handful per hour, IB-COUNTERS) fires",
    "ib-link-downed": "any increase fires as critical (IB-COUNTERS: LinkDowned incrementing under a job)",
    "ib-xmit-wait": "rates are not judged (the tick length is device-specific)",
    "eth-rx-discards": "a rate above 1/s fires (heuristic)",
    "eth-rx-out-of-buffer": "a rate above 100/s fires (heuristic)",
}
COUNTER_RULES = {
    "ib-symbol-errors", "ib-link-recovery", "ib-link-downed", "ib-rcv-errors",
    "ib-remote-physical-errors", "ib-switch-relay-errors", "ib-xmit-discards", "ib-xmit-wait",
    "ib-constraint-errors", "ib-link-integrity", "ib-buffer-overrun", "ib-vl15-dropped",
    "eth-pause-storm", "roce-cnp-ignored", "roce-out-of-sequence", "roce-sequence-errors",
    "roce-ack-timeouts", "rdma-retries-exceeded", "eth-rx-discards", "eth-rx-out-of-buffer", "eth-oversize-frames",
    "eth-phy-errors", "eth-pci-signal-integrity", "eth-module-fault",
}


# The thresholds-file keys a rule reads (docs/cmd/diagnose.md's table), one line each.
LIMITS = {
    'eth-pause-fraction': 'Limits from the thresholds file (`--thresholds`, see `docs/cmd/diagnose.md`): `paused_fraction_max` (default 10%) and `paused_fraction_error` (default 50%).',
    'eth-rx-discards': 'Limits from the thresholds file (`--thresholds`, see `docs/cmd/diagnose.md`): `rx_discards_max` (count, default 1000) and `rx_discards_rate_max` (per second, default 1).',
    'eth-rx-out-of-buffer': 'Limits from the thresholds file (`--thresholds`, see `docs/cmd/diagnose.md`): `rx_out_of_buffer_max` (count, default 1000) and `rx_out_of_buffer_rate_max` (per second, default 100).',
    'host-copy-bw-outlier': 'Limits from the thresholds file (`--thresholds`, see `docs/cmd/diagnose.md`): `copy_bw_min` (default 85%).',
    'link-effective-ber': 'Limits from the thresholds file (`--thresholds`, see `docs/cmd/diagnose.md`): `effective_ber_max` (default 1e-12).',
    'link-module-temp': 'Limits from the thresholds file (`--thresholds`, see `docs/cmd/diagnose.md`): `module_temp_max` (default 70 C, for modules without their own alarm range).',
    'link-raw-ber': 'Limits from the thresholds file (`--thresholds`, see `docs/cmd/diagnose.md`): `raw_ber_max` (default 1e-6) and `effective_ber_max` (default 1e-12).',
    'perf-busbw-below-model': 'Limits from the thresholds file (`--thresholds`, see `docs/cmd/diagnose.md`): `busbw_model_min` (default 80%) and `busbw_model_error` (default 55%).',
    'perf-host-outlier': 'Limits from the thresholds file (`--thresholds`, see `docs/cmd/diagnose.md`): `pair_outlier_min` (default 80%).',
    'perf-latency-above-model': 'Limits from the thresholds file (`--thresholds`, see `docs/cmd/diagnose.md`): `latency_model_max` (default 1.25) and `latency_model_error` (default 2).',
    'perf-latency-jitter': 'Limits from the thresholds file (`--thresholds`, see `docs/cmd/diagnose.md`): `jitter_max` (default 2) and `jitter_error` (default 10), when p99 is at least `jitter_min_us` (default 1) above p50.\n\n'
        'On a loaded host the finding is only info: when `fabtune doctor` measured\n'
        'while other processes used at least `jitter_foreign_cpu_max` (default 25%)\n'
        'of the host\'s CPU time (`host.cpu_foreign`), a rank waiting for a message is\n'
        'often off its CPU when the message arrives and waits a scheduler time slice\n'
        '(milliseconds) for it, so p99 says how loaded the host was, not how the\n'
        'network behaves. On a 2-CPU host at load 13-16, 7 of 8 identical doctor runs\n'
        'had reported jitter, 6 as errors (p99 100-18,000x p50).',
    'perf-pair-outlier': 'Limits from the thresholds file (`--thresholds`, see `docs/cmd/diagnose.md`): `pair_outlier_min` (default 80%).',
    'perf-scale-drop': 'Limits from the thresholds file (`--thresholds`, see `docs/cmd/diagnose.md`): `scale_drop_min` (default 85%).',
    'perf-utilisation-low': 'Limits from the thresholds file: `utilisation_min` (default 85%) and `busbw_model_error` (default 55%, below which it is an error).',
    'switch-fec': 'Limits from the thresholds file (`--thresholds`, see `docs/cmd/diagnose.md`): `effective_ber_max` (default 1e-12) and `raw_ber_max` (default 1e-6).',
}

def main():
    exe = sys.argv[1] if len(sys.argv) > 1 else "build/cli/fabtune"
    out = subprocess.check_output([exe, "diagnose", "--list-rules", "--json"])
    rules = json.loads(out)["rules"]  # {"schema": "fabtune.diagnose/1", "rules": [...]}
    # the pages go beside this script, or to the folder named second (to compare)
    here = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(__file__))
    missing = [r["id"] for r in rules if r["id"] not in T]
    if missing:
        sys.exit("no trigger note for: " + " ".join(missing))
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "kb-ids.txt")) as f:
        known = {l.strip() for l in f if l.strip() and not l.startswith("#")}
    unknown = ["%s: %s" % (r["id"], k) for r in rules for k in r["kb"].split() if k not in known]
    if unknown:
        sys.exit("not an id of the knowledge base (docs/rules/kb-ids.txt): " + ", ".join(unknown)
                 + " (a public source the knowledge base lacks goes in the rule's source)")
    for r in rules:
        trig, basis = T[r["id"]]
        if r["id"] in COUNTER_RULES:
            trig += (" With counter rates from `fabtune probe --interval` (`<key>.rate`): %s."
                     % RATE.get(r["id"], "any increase during the interval fires"))
        kb = ", ".join("`%s`" % k for k in r["kb"].split()) or "none"
        source = "| source | %s |\n" % r["source"] if r.get("source") else ""
        needs = ", ".join("`%s`" % k for k in r["needs"].split() if "(" not in k and ")" not in k)
        text = (
            "# %s\n\n%s.\n\n"
            "| | |\n| --- | --- |\n| layer | %s |\n| severity | %s |\n| reads | %s |\n| knowledge base | %s |\n%s\n"
            "## When it fires\n\n%s\n\nThreshold basis: %s.\n\n%s"
            "## Evidence\n\nThe observations behind each finding, with their file and line "
            "(`fabtune diagnose` prints them as `file:line: entity key = value`).\n\n"
            "## Fix\n\n%s.\n"
        ) % (r["id"], r["summary"][0].upper() + r["summary"][1:], r["layer"], r["severity"],
             needs, kb, source, trig, basis, LIMITS[r["id"]] + "\n\n" if r["id"] in LIMITS else "",
             r["fix"][0].upper() + r["fix"][1:])
        with open(os.path.join(here, r["id"] + ".md"), "w") as f:
            f.write(text)
    print("%d rule pages" % len(rules))

main()

/* SPDX-License-Identifier: MIT */
/*
 * diag/rules_table.c - the rule catalogue: every rule's metadata (id, layer,
 * default severity, summary, the keys it reads, fix, knowledge-base ids and a
 * public source the knowledge base lacks) in one table, in the order of the
 * registry. The checks (`eval`) and their
 * parameters (`data`) stay in the family files rules_*.c and are declared in
 * diag_int.h.
 *
 * Findings are ranked after the run, so the order of the rows shows only in
 * `fabtune diagnose --list-rules` and the rule pages: a new rule goes at the
 * end of its family's section.
 */
#include "internal.h"

#include "diag/diag_int.h"

/* A rule over NCCL log lines (rules_nccl.c). */
#define LOG_RULE(id_, layer_, sev_, summary_, eval_, fix_, kb_)                                    \
	{                                                                                          \
		.id = id_, .layer = layer_, .severity = sev_, .summary = summary_,                 \
		.needs = "nccl.warn nccl.error nccl.info", .eval = eval_, .fix = fix_, .kb = kb_   \
	}
/* A completion-error rule with parameters @data_ (a struct ft__wc_rule, rules_nccl.c). */
#define WC_RULE(id_, layer_, sev_, summary_, data_, fix_, kb_)                                     \
	{                                                                                          \
		.id = id_, .layer = layer_, .severity = sev_, .summary = summary_,                 \
		.needs = "nccl.ib.completion_error ib.counter.*", .eval = ft__diag_eval_completion,         \
		.fix = fix_, .kb = kb_, .data = &data_                                             \
	}

/*
 * The Xid codes and the GPU memory faults behind them are NVIDIA's public Xid
 * catalog: the knowledge base has no entry for it, so the rules that rest on
 * it name it as their source (docs/rules pages, `diagnose` text) next to the
 * kb ids they do rest on.
 */
#define XID_CATALOG "NVIDIA Xid catalog (https://docs.nvidia.com/deploy/xid-errors/)"

/* A counter rule (ft__diag_eval_counter, rules_ib.c and rules_roce.c). */
#define COUNTER_RULE FT__DIAG_COUNTER_RULE

const struct ft_rule ft__diag_rules[] = {
	/* ---- job logs: recovery time, NVLink, DCGM, PyTorch watchdog and NCCL errors, Xid (rules_job.c) ---- */
	{ .id = "job-recovery-time",
	  .layer = FT_LAYER_APPLICATION,
	  .severity = FT_SEV_WARNING,
	  .summary = "failure detection alone takes longer than the recovery time the job is held to",
	  .needs = "torch.nccl.timeout_ms nccl.env.NCCL_IB_TIMEOUT nccl.env.NCCL_IB_RETRY_CNT",
	  .eval = ft__diag_eval_recovery,
	  .fix = "lower the process group's timeout (init_process_group(timeout=...)) to what a "
		 "collective can take, and keep NCCL_IB_TIMEOUT at its default (20) unless the "
		 "fabric needs more; pair both with a restart from the latest checkpoint",
	  .kb = "ENV-IB_TIMEOUT ENV-IB_RETRY_CNT" },
	{ .id = "gpu-nvlink-down",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_ERROR,
	  .summary = "NVLinks of a GPU are down (DCGM link status)",
	  .needs = "dcgm.nvlink.down dcgm.nvlink.up",
	  .eval = ft__diag_eval_nvlink_down,
	  .fix = "check the NVLink bridges or the baseboard/NVSwitch (nvidia-smi nvlink -s, "
		 "fabric manager status on NVSwitch systems); reset the GPUs or reboot; drain "
		 "the node if links stay down",
	  .kb = "HOST-TOPO",
	  .source = XID_CATALOG },
	{ .id = "dcgm-diag",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_ERROR,
	  .summary = "a DCGM diagnostic failed or warned, or DCGM health is not healthy",
	  .needs = "dcgm.diag dcgm.health",
	  .eval = ft__diag_eval_dcgm_diag,
	  .fix = "read the failing test's details (dcgmi diag -r N -v), act on the subsystem "
		 "it names (PCIe, memory, NVLink, thermal) and re-run before returning the node",
	  .kb = "HOST-PCIE",
	  .source = XID_CATALOG },
	{ .id = "torch-watchdog-timeout",
	  .layer = FT_LAYER_APPLICATION,
	  .severity = FT_SEV_CRITICAL,
	  .summary = "PyTorch's NCCL watchdog aborted a collective that never completed",
	  .needs = "torch.nccl.seq torch.nccl.timeout torch.nccl.timeout_ms "
		   "torch.nccl.last_completed",
	  .eval = ft__diag_eval_watchdog,
	  .fix = "desync (ranks disagree on the op or SeqNum): make every rank issue the same "
		 "collectives in the same order (TORCH_NCCL_DESYNC_DEBUG=1 names the culprit); "
		 "same op everywhere: find the rank that is not waiting (its own log, Xid lines, "
		 "NCCL WARN lines, a dead process), then the links between it and its peers",
	  .kb = "SYM-INIT-HANG SYM-ERR-12" },
	{ .id = "torch-nccl-error",
	  .layer = FT_LAYER_COMMLIB,
	  .severity = FT_SEV_ERROR,
	  .summary = "an NCCL error was raised into the framework (DistBackendError)",
	  .needs = "torch.nccl.error",
	  .eval = ft__diag_eval_torch_nccl_error,
	  .fix = "find the first rank that failed and its cause (NCCL WARN lines with "
		 "NCCL_DEBUG=WARN, Xid lines in the kernel log, out-of-memory kills)",
	  .kb = "SYM-ERR-12 NCCL-TS-NET" },
	{ .id = "gpu-xid",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_ERROR,
	  .summary = "the GPU driver logged an Xid error event",
	  .needs = "gpu.xid",
	  .eval = ft__diag_eval_xid,
	  .fix = "act on the Xid class: application faults (13, 31, 43, 94) restart the job; "
		 "firmware, uncontained and NVLink-unit errors (61, 62, 95, 119, 120, 144-150) "
		 "reset the GPU; memory, NVLink and bus faults (48, 64, 74, 79, 171, 172) drain "
		 "the node for diagnosis and RMA; after Xid 154 do the recovery it names",
	  .kb = "HOST-PCIE",
	  .source = XID_CATALOG },
	{ .id = "nic-driver-fault",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_ERROR,
	  .summary = "the NIC's driver (mlx5_core) logged a failed probe, a firmware fault, a "
		     "failed command, low slot power, a module error or a link down",
	  .needs = "nic.probe_failed nic.fw_error nic.cmd_error nic.pcie_power nic.module nic.link",
	  .eval = ft__diag_eval_nic_driver,
	  .fix = "a NIC that did not come up or whose firmware failed: power-cycle the node, "
		 "check the firmware (mlxfwmanager), reseat or replace the card; a module "
		 "error or absent module: reseat or replace it; low slot power: another slot "
		 "or the BIOS slot power limit",
	  .kb = "HOST-PCIE" },
	{ .id = "gpu-memory-remap",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_WARNING,
	  .summary = "a GPU memory repair (row remap, page retirement) is pending or failed",
	  .needs = "gpu.remap.pending gpu.remap.failure gpu.retired.pending",
	  .eval = ft__diag_eval_remap,
	  .fix = "pending: drain the GPU and reset it (nvidia-smi -r) or reboot, so that the "
		 "repair takes effect; failed: drain the node, run dcgmi diag -r 3 and RMA the GPU",
	  .kb = "",
	  .source = XID_CATALOG },
	{ .id = "gpu-ecc-uncorrectable",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_ERROR,
	  .summary = "a GPU counted uncorrectable ECC errors in its memory",
	  .needs = "gpu.ecc.volatile.* gpu.ecc.aggregate.*",
	  .eval = ft__diag_eval_ecc,
	  .fix = "drain the GPU: restart the job that hit the error elsewhere, reset the GPU "
		 "(nvidia-smi -r) so that the failing rows are remapped, and RMA it when the "
		 "errors return or the remap fails",
	  .kb = "",
	  .source = XID_CATALOG },
	/* ---- compute/communication overlap (rules_overlap.c) ------ */
	{ .id = "job-overlap-low",
	  .layer = FT_LAYER_APPLICATION,
	  .severity = FT_SEV_WARNING,
	  .summary = "NCCL kernels run with too little compute alongside (exposed communication)",
	  .needs = "torch.trace.overlap torch.trace.comm_s torch.trace.overlap_s",
	  .eval = ft__diag_eval_overlap_low,
	  .fix = "overlap the collectives with compute: DDP/FSDP bucketing and prefetch "
		 "(bucket_cap_mb, forward/backward prefetch), communication on its own stream, "
		 "fewer and larger collectives; if the collectives are simply slow, diagnose the "
		 "network (busbw against the model)",
	  .kb = "TRAIN-COMM" },
	/* ---- NCCL log: network, GDR, device list, completion errors, log signatures, environment (rules_nccl.c) ---- */
	{ .id = "nccl-socket-transport",
	  .layer = FT_LAYER_COMMLIB,
	  .severity = FT_SEV_WARNING,
	  .summary = "NCCL runs over TCP sockets instead of IB/RoCE verbs",
	  .needs = "nccl.net nccl.env.NCCL_IB_DISABLE nccl.env.NCCL_NET ib.port.state",
	  .eval = ft__diag_eval_socket,
	  .fix = "unset NCCL_IB_DISABLE and NCCL_NET=Socket; install rdma-core in the image "
		 "and map "
		 "/dev/infiniband; set NCCL_NET=IB to fail fast instead of falling back",
	  .kb = "SYM-BW-SOCKET ENV-IB_DISABLE ENV-NET" },
	{ .id = "nccl-no-rdma-device",
	  .layer = FT_LAYER_OS_DRIVER,
	  .severity = FT_SEV_WARNING,
	  .summary = "NCCL could not open libibverbs or found no RDMA device",
	  .needs = "nccl.ib.no_device nccl.ib.no_verbs nccl.warn nccl.error",
	  .eval = ft__diag_eval_ibverbs_missing,
	  .fix = "install rdma-core (libibverbs + mlx5 provider) in the image, expose "
		 "/dev/infiniband to the container, check ibv_devinfo inside it",
	  .kb = "SYM-BW-SOCKET HOST-LIMITS" },
	{ .id = "nccl-socket-ifname",
	  .layer = FT_LAYER_COMMLIB,
	  .severity = FT_SEV_WARNING,
	  .summary = "NCCL's socket interface is loopback or a container bridge",
	  .needs = "nccl.socket_ifname nccl.env.NCCL_SOCKET_IFNAME",
	  .eval = ft__diag_eval_socket_ifname,
	  .fix = "set NCCL_SOCKET_IFNAME==IF to the interface that routes between the nodes, the "
		 "same on every node",
	  .kb = "ENV-SOCKET_IFNAME SYM-INIT-HANG" },
	{ .id = "nccl-gdr-disabled",
	  .layer = FT_LAYER_OS_DRIVER,
	  .severity = FT_SEV_WARNING,
	  .summary = "GPU Direct RDMA disabled for the HCAs NCCL uses",
	  .needs = "nccl.gdr nccl.net",
	  .eval = ft__diag_eval_gdr_disabled,
	  .fix = "load nvidia-peermem (modprobe nvidia-peermem) or use the open GPU kernel module "
		 "with DMA-BUF; check the GPU-NIC distance against NCCL_NET_GDR_LEVEL",
	  .kb = "HOST-GDR ENV-DMABUF ENV-NET_GDR_LEVEL SYM-BW-HALF" },
	{ .id = "nccl-mixed-link-layers",
	  .layer = FT_LAYER_COMMLIB,
	  .severity = FT_SEV_ERROR,
	  .summary = "NCCL's device list mixes InfiniBand and RoCE ports",
	  .needs = "nccl.ib_hca",
	  .eval = ft__diag_eval_mixed_link_layers,
	  .fix = "set NCCL_IB_HCA with exact names (=mlx5_0:1,...) of one link type; give RDMA "
		 "devices persistent names",
	  .kb = "ENV-IB_HCA SYM-INCOMPAT-DEV" },
	{ .id = "nccl-ib-hca-ethernet",
	  .layer = FT_LAYER_COMMLIB,
	  .severity = FT_SEV_ERROR,
	  .summary = "NCCL_IB_HCA selects an Ethernet port next to InfiniBand ports",
	  .needs = "nccl.env.NCCL_IB_HCA ib.port.link_layer ib.port.state",
	  .eval = ft__diag_eval_hca_selects_ethernet,
	  .fix = "list only InfiniBand ports in NCCL_IB_HCA, with exact names (=mlx5_0:1,...)",
	  .kb = "ENV-IB_HCA SYM-INCOMPAT-DEV" },
	{ .id = "nccl-bond-single-qp",
	  .layer = FT_LAYER_COMMLIB,
	  .severity = FT_SEV_WARNING,
	  .summary = "a bonded RoCE device used with one QP per connection",
	  .needs = "nccl.ib_hca nccl.env.NCCL_IB_HCA nccl.env.NCCL_IB_QPS_PER_CONNECTION",
	  .eval = ft__diag_eval_bond_single_qp,
	  .fix = "NCCL_IB_QPS_PER_CONNECTION=2 with NCCL_IB_SPLIT_DATA_ON_QPS=0",
	  .kb = "ENV-IB_QPS ROCE-ECMP SYM-BW-HALF" },
	{ .id = "nccl-ib-hca-prefix",
	  .layer = FT_LAYER_COMMLIB,
	  .severity = FT_SEV_WARNING,
	  .summary = "NCCL_IB_HCA matches more devices than meant (prefix match)",
	  .needs = "nccl.env.NCCL_IB_HCA ib.*",
	  .eval = ft__diag_eval_hca_prefix,
	  .fix = "prefix the list with '=' for exact names (NCCL_IB_HCA==mlx5_0:1,mlx5_1:1)",
	  .kb = "ENV-IB_HCA" },
	WC_RULE("nccl-retry-exceeded", FT_LAYER_FABRIC, FT_SEV_CRITICAL,
		"NCCL completion error 12 (transport retries exceeded)", ft__diag_wc_retry,
		"check link_downed/link_error_recovery/symbol_error on both hosts and the switch "
		"ports between them; on RoCE fix the lossless config; raise NCCL_IB_TIMEOUT "
		"(22) only "
		"when no physical or loss cause is found",
		"SYM-ERR-12 ENV-IB_TIMEOUT ENV-IB_RETRY_CNT IB-COUNTERS"),
	WC_RULE("nccl-rnr-retry-exceeded", FT_LAYER_COMMLIB, FT_SEV_ERROR,
		"NCCL completion error 13 (RNR retries exceeded)", ft__diag_wc_rnr,
		"look for another component (net plugin, MPI, UCX) on the same QPs; align "
		"plugin and "
		"NCCL versions",
		"SYM-ERR-13"),
	WC_RULE("nccl-local-protection-error", FT_LAYER_FIRMWARE_HW, FT_SEV_ERROR,
		"NCCL completion error 4 (local protection error)", ft__diag_wc_prot,
		"disable ACS on PCIe switches (bare metal) or enable ATS (VM); iommu=pt; "
		"confirm with "
		"NCCL_NET_GDR_LEVEL=LOC",
		"SYM-ERR-4 HOST-ACS"),
	WC_RULE("nccl-remote-error", FT_LAYER_COMMLIB, FT_SEV_ERROR,
		"NCCL completion error 9/10/11 (remote side rejected)", ft__diag_wc_remote,
		"read both sides' logs at the same time; align NCCL and plugin versions",
		"SYM-ERR-10-11"),
	WC_RULE("nccl-flush-error", FT_LAYER_COMMLIB, FT_SEV_INFO,
		"NCCL completion error 5 (flushed after an earlier error)", ft__diag_wc_flush,
		"find the first error in time across all ranks; 5 is its consequence", "SYM-ERR-5"),
	LOG_RULE("nccl-peer-unreachable", FT_LAYER_FABRIC, FT_SEV_ERROR,
		 "a peer could not be reached (connect failed, connection closed, unreachable)",
		 ft__diag_eval_unreachable,
		 "check routing between the nodes (ip route get PEER), firewalls, the bootstrap "
		 "interface (NCCL_SOCKET_IFNAME) and GIDs; check that the remote process is alive",
		 "SYM-INIT-HANG SYM-QP-GID SYM-ERR-12"),
	LOG_RULE("nccl-create-qp-failed", FT_LAYER_OS_DRIVER, FT_SEV_ERROR,
		 "ibv_create_qp / ibv_reg_mr failed", ft__diag_eval_create_qp,
		 "raise the memlock limit to unlimited (limits.conf, the launcher's and Slurm's "
		 "limits, docker --ulimit memlock=-1) and verify ulimit -l",
		 "SYM-MEMLOCK HOST-LIMITS"),
	LOG_RULE("nccl-modify-qp-failed", FT_LAYER_COMMLIB, FT_SEV_ERROR,
		 "ibv_modify_qp failed (GID or address problem)", ft__diag_eval_modify_qp,
		 "NCCL >= 2.21: unset NCCL_IB_GID_INDEX; otherwise select the RoCE v2 IPv4 GID; "
		 "list only reachable ports in NCCL_IB_HCA",
		 "SYM-QP-GID ENV-IB_GID_INDEX ROCE-GID"),
	LOG_RULE("nccl-incompatible-devices", FT_LAYER_COMMLIB, FT_SEV_ERROR,
		 "NCCL tried to connect devices of different link layers", ft__diag_eval_incompatible,
		 "set NCCL_IB_HCA to ports of one link type", "SYM-INCOMPAT-DEV ENV-IB_HCA"),
	LOG_RULE("nccl-link-event", FT_LAYER_FIRMWARE_HW, FT_SEV_ERROR,
		 "NCCL saw a NIC speed change or async event", ft__diag_eval_link_event,
		 "read the port counters of that NIC and its switch port; replace the cable or "
		 "transceiver if the link retrains",
		 "IB-SPEED SYM-LINK-DEGRADED SYM-LINK-ERRORS"),
	LOG_RULE(
		"nccl-topology-mismatch", FT_LAYER_COMMLIB, FT_SEV_WARNING,
		"NCCL's topology does not match the devices (topology file, non-PCI NIC)",
		ft__diag_eval_topo_mismatch,
		"fix or remove the NCCL_TOPO_FILE / virtual topology; give RDMA devices persistent "
		"names; exclude USB or virtual NICs with NCCL_SOCKET_IFNAME",
		"ENV-TOPO_FILE HOST-LIMITS"),
	{ .id = "nccl-nvls-cumem-failure",
	  .layer = FT_LAYER_COMMLIB,
	  .severity = FT_SEV_ERROR,
	  .summary = "NVLS or cuMem allocation failed",
	  .needs = "nccl.warn nccl.error",
	  .eval = ft__diag_eval_nvls_fail,
	  .fix = "NCCL_NVLS_ENABLE=0 as a workaround; fix fabric manager/IMEX; in Docker add "
		 "--cap-add SYS_NICE or set NCCL_CUMEM_HOST_ENABLE=0",
	  .kb = "SYM-NVLS-INIT SYM-CUMEM-CONTAINER ENV-NVLS ENV-CUMEM" },
	{ .id = "nccl-p2p-channels",
	  .layer = FT_LAYER_COMMLIB,
	  .severity = FT_SEV_INFO,
	  .summary = "all-to-all or send/recv over the network with default channels per peer",
	  .needs = "bench.test nccl.transport nccl.net nccl.env.NCCL_NCHANNELS_PER_NET_PEER",
	  .eval = ft__diag_eval_p2p_channels,
	  .fix = "try NCCL_NCHANNELS_PER_NET_PEER=4 (then 8) and a larger NCCL_P2P_NET_CHUNKSIZE; "
		 "keep PXN enabled; measure",
	  .kb = "ENV-NCH_NET_PEER SYM-P2P-LOW" },
	{ .id = "nccl-cuda-failure",
	  .layer = FT_LAYER_OS_DRIVER,
	  .severity = FT_SEV_ERROR,
	  .summary = "a CUDA call failed inside NCCL (Cuda failure / unhandled cuda error)",
	  .needs = "nccl.warn nccl.error torch.nccl.error",
	  .eval = ft__diag_eval_cuda_failure,
	  .fix = "read the CUDA error's class: out of memory - lower the job's memory or "
		 "NCCL_BUFFSIZE; peer access - check the topology and NCCL_P2P_LEVEL; unknown "
		 "error or ECC - check the kernel log for Xid lines and reset or drain the GPU",
	  .kb = "NCCL-TS-GPU HOST-TOPO",
	  .source = XID_CATALOG },
	{ .id = "nccl-env-link-layer",
	  .layer = FT_LAYER_COMMLIB,
	  .severity = FT_SEV_INFO,
	  .summary = "an NCCL setting that does not apply to the fabric's link layer",
	  .needs = "nccl.env.NCCL_IB_GID_INDEX nccl.env.NCCL_IB_TC nccl.env.NCCL_IB_SL "
		   "nccl.env.NCCL_IB_ADAPTIVE_ROUTING ib.port.link_layer roce.qos.trust",
	  .eval = ft__diag_eval_env_link_layer,
	  .fix = "unset RoCE-only variables on InfiniBand jobs and keep NCCL_IB_ADAPTIVE_ROUTING "
		 "at its default there; on RoCE with DSCP trust select the class with NCCL_IB_TC",
	  .kb = "ENV-IB_TC ENV-IB_GID_INDEX ENV-IB_SL ENV-IB_AR" },
	{ .id = "nccl-env-leftover",
	  .layer = FT_LAYER_APPLICATION,
	  .severity = FT_SEV_INFO,
	  .summary = "debugging or removed NCCL variables left in the environment",
	  .needs = "nccl.env.*",
	  .eval = ft__diag_eval_env_leftover,
	  .fix = "remove the variable from the job scripts and images unless a measurement shows "
		 "it helps",
	  .kb = "SYM-ENV-LEFTOVER" },
	{ .id = "nccl-retry-cnt-invalid",
	  .layer = FT_LAYER_APPLICATION,
	  .severity = FT_SEV_WARNING,
	  .summary = "NCCL_IB_RETRY_CNT outside 0-7",
	  .needs = "nccl.env.NCCL_IB_RETRY_CNT",
	  .eval = ft__diag_eval_retry_cnt,
	  .fix = "use a value from 0 to 7 (default 7); raise NCCL_IB_TIMEOUT for longer waits",
	  .kb = "ENV-IB_RETRY_CNT SYM-ENV-LEFTOVER" },
	{ .id = "nccl-version-mismatch",
	  .layer = FT_LAYER_COMMLIB,
	  .severity = FT_SEV_ERROR,
	  .summary = "ranks run different NCCL versions",
	  .needs = "nccl.version",
	  .eval = ft__diag_eval_version_mismatch,
	  .fix = "use one NCCL build (and one net plugin) on every node",
	  .kb = "SYM-ERR-10-11" },
	/* ---- host: PCIe, GPU-NIC distance, NUMA, ACS/IOMMU, memlock, failed tools (rules_host.c) ---- */
	{ .id = "host-copy-bw-outlier",
	  .layer = FT_LAYER_OS_DRIVER,
	  .severity = FT_SEV_WARNING,
	  .summary = "some GPU or host copy paths of an nvbandwidth matrix are much slower",
	  .needs = "nvbw.bw",
	  .eval = ft__diag_eval_copy_bw,
	  .fix = "map the slow pairs on nvidia-smi topo -m (SYS/NODE vs PIX/PXB); check ACS on "
		 "the PCIe switches (lspci -vvv | grep ACSCtl) and the IOMMU mode; place ranks "
		 "that exchange most data on the fast pairs",
	  .kb = "HOST-TOPO HOST-ACS HOST-PCIE" },
	{ .id = "tool-failed",
	  .layer = FT_LAYER_OS_DRIVER,
	  .severity = FT_SEV_WARNING,
	  .summary = "a diagnostic tool failed part-way (device vanished, driver not answering)",
	  .needs = "tool.error",
	  .eval = ft__diag_eval_tool_error,
	  .fix = "check dmesg for the device (hot-removed VF, driver reset, firmware error), "
		 "reload the driver or reboot, then re-run the tool",
	  .kb = "IB-TOOLS" },
	{ .id = "pcie-link-degraded",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_WARNING,
	  .summary = "a PCIe link trained below its maximum speed or width",
	  .needs =
		  "pcie.link.speed_cur pcie.link.speed_max pcie.link.width_cur pcie.link.width_max",
	  .eval = ft__diag_eval_pcie,
	  .fix = "reseat the card, try another slot or riser, update BIOS and firmware; check "
		 "under load (GPUs lower their PCIe speed when idle)",
	  .kb = "HOST-PCIE SYM-BW-HALF SYM-BW-ASYM" },
	{ .id = "gpu-nic-cross-socket",
	  .layer = FT_LAYER_OS_DRIVER,
	  .severity = FT_SEV_WARNING,
	  .summary = "a GPU's nearest NIC is across the CPU sockets (SYS) or behind the CPU",
	  .needs = "gpu.nic_path",
	  .eval = ft__diag_eval_gpu_nic_far,
	  .fix = "pair each GPU with a NIC under the same PCIe switch (PIX/PXB): choose the job's "
		 "GPUs and NCCL_IB_HCA accordingly, or move the NIC; keep PXN enabled",
	  .kb = "HOST-TOPO HOST-NUMA SYM-BW-HALF SYM-BW-ASYM" },
	{ .id = "gpu-numa-without-nic",
	  .layer = FT_LAYER_OS_DRIVER,
	  .severity = FT_SEV_WARNING,
	  .summary = "a GPU sits on a NUMA node with no NIC",
	  .needs = "gpu.numa_affinity numa.node",
	  .eval = ft__diag_eval_numa,
	  .fix = "place ranks on GPUs of the NIC's NUMA node, bind CPUs to that node, or add a NIC "
		 "on the other socket",
	  .kb = "HOST-NUMA HOST-TOPO" },
	{ .id = "host-acs-enabled",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_WARNING,
	  .summary = "PCIe ACS enabled on bridges between GPUs and NICs",
	  .needs = "host.acs",
	  .eval = ft__diag_eval_acs,
	  .fix = "bare metal: disable ACS (BIOS, or setpci ECAP_ACS+0x6.w=0000 per bridge after "
		 "each boot); VMs: enable ATS on the NICs",
	  .kb = "HOST-ACS SYM-ERR-4 SYM-INTRA-LOW" },
	{ .id = "host-iommu-translated",
	  .layer = FT_LAYER_OS_DRIVER,
	  .severity = FT_SEV_INFO,
	  .summary = "IOMMU in translating mode",
	  .needs = "host.iommu",
	  .eval = ft__diag_eval_iommu,
	  .fix = "boot with iommu=pt (pass-through) on bare metal",
	  .kb = "HOST-ACS" },
	{ .id = "host-memlock-limited",
	  .layer = FT_LAYER_OS_DRIVER,
	  .severity = FT_SEV_WARNING,
	  .summary = "memlock limit is not unlimited",
	  .needs = "host.memlock",
	  .eval = ft__diag_eval_memlock,
	  .fix = "memlock unlimited in limits.conf, for the launcher and Slurm daemons; containers "
		 "--ulimit memlock=-1",
	  .kb = "HOST-LIMITS SYM-MEMLOCK" },
	/* ---- InfiniBand: port state, link training, MTU, PortCounters (rules_ib.c) ---- */
	{ .id = "ib-cc-off",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "IB congestion control off in the subnet manager on a fabric that needs it",
	  .needs = "opensm.congestion_control opensm.mlnx_congestion_control "
		   "ib.counter.PortXmitWait ib.counter.PortXmitDiscards spec.nodes",
	  .eval = ft__diag_eval_ib_cc_off,
	  .fix = "enable congestion control in the SM (NVIDIA OpenSM: mlnx_congestion_control 2 "
		 "with a policy file; upstream OpenSM: congestion_control TRUE and the cc_* "
		 "options) or in UFM, with adaptive routing for the traffic it cannot throttle",
	  .kb = "IB-CC CC-IB IB-COUNTERS" },
	{ .id = "ib-port-down",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_WARNING,
	  .summary = "an RDMA port is not Active/LinkUp",
	  .needs = "ib.port.state ib.port.phys_state ib.port.link_layer",
	  .eval = ft__diag_eval_port_down,
	  .fix = "check the cable and the peer port (ibstat, iblinkinfo); reseat or replace the "
		 "cable or transceiver; leave unused ports out of NCCL_IB_HCA",
	  .kb = "IB-SPEED SYM-LINK-DEGRADED" },
	{ .id = "ib-port-no-sm",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_ERROR,
	  .summary = "a port is Init or Armed: no subnet manager made it Active",
	  .needs = "ib.port.state ib.port.phys_state ib.port.sm_lid",
	  .eval = ft__diag_eval_port_no_sm,
	  .fix = "start or repair the subnet manager (sminfo; OpenSM or UFM) and check its logs",
	  .kb = "IB-SM SYM-IB-SM" },
	{ .id = "ib-link-below-capability",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_WARNING,
	  .summary = "an active port trained below its supported width or speed",
	  .needs = "ib.port.width_active ib.port.width_supported ib.port.speed_active "
		   "ib.port.speed_supported ib.port.state",
	  .eval = ft__diag_eval_below_capability,
	  .fix = "replace the cable or transceiver (a failed lane or an older cable type), then "
		 "check the port's speed configuration",
	  .kb = "IB-SPEED SYM-LINK-DEGRADED" },
	{ .id = "ib-rate-below-peers",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_WARNING,
	  .summary = "an active port runs at a lower rate than the other ports of its kind",
	  .needs = "ib.port.rate ib.port.state ib.port.link_layer ib.dev.ca_type "
		   "ib.dev.vendor_part_id",
	  .eval = ft__diag_eval_rate_below_peers,
	  .fix = "compare with iblinkinfo; replace the cable or transceiver of the slow port",
	  .kb = "IB-SPEED SYM-LINK-DEGRADED" },
	{ .id = "ib-mtu-below-4096",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "an active InfiniBand port runs an MTU below 4096",
	  .needs = "ib.port.mtu_active ib.port.state ib.port.link_layer",
	  .eval = ft__diag_eval_mtu_low,
	  .fix = "raise the partition/QoS mtu-limit in the subnet manager to 4096 on every hop",
	  .kb = "IB-MTU" },
	{ .id = "ib-mtu-mismatch",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "active InfiniBand ports disagree on the MTU",
	  .needs = "ib.port.mtu_active ib.port.state",
	  .eval = ft__diag_eval_mtu_mismatch,
	  .fix = "configure one MTU (4096) fabric-wide in the subnet manager",
	  .kb = "IB-MTU" },
	{ .id = "ib-ibdiagnet-warning",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "ibdiagnet reported a fabric warning",
	  .needs = "ibdiag.warning",
	  .eval = ft__diag_eval_ibdiagnet,
	  .fix = "suboptimal IPoIB group rate: set the partition's rate in the SM partition "
		 "configuration (partitions.conf rate=) to the links' rate; other warnings: see "
		 "the ibdiagnet report section named in the message",
	  .kb = "IB-TOOLS IB-SM IB-PKEY" },
	{ .id = "ib-pkey-membership",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_ERROR,
	  .summary = "ports cannot reach each other in the partition at NCCL's P_Key index",
	  .needs = "ib.pkey.* ib.pkey.capacity nccl.env.NCCL_IB_PKEY",
	  .eval = ft__diag_eval_pkey,
	  .fix = "give every port of the job full membership of one partition in the subnet "
		 "manager's partitions.conf (NAME=0xPKEY : GUID=full, ...), or set NCCL_IB_PKEY "
		 "to the index where the ports hold it; re-read the tables with smpquery "
		 "PKeyTable after the SM has run",
	  .kb = "IB-PKEY OSM-PART" },
	{ .id = "ib-sl-vl-unserved",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_ERROR,
	  .summary = "the SL NCCL sends on maps to a VL the port does not run (VL15 or past OperVLs)",
	  .needs = "ib.sl2vl.sl* ib.portinfo.OperVLs nccl.env.NCCL_IB_SL",
	  .eval = ft__diag_eval_sl2vl,
	  .fix = "map the SL to an operational data VL in the subnet manager (opensm qos_sl2vl / "
		 "qos_*_sl2vl, max_op_vls) or set NCCL_IB_SL to an SL the fabric serves; "
		 "check with smpquery sl2vl and smpquery portinfo on each hop",
	  .kb = "IB-VL OSM-QOS" },
	COUNTER_RULE("ib-symbol-errors", FT_LAYER_FIRMWARE_HW, FT_SEV_WARNING,
		     "SymbolErrorCounter over the IBD-THR threshold", ft__diag_counter_symbol,
		     "ib.counter.SymbolErrorCounter",
		     "clean or reseat the connector, swap the cable or optic, move the port; run "
		     "ibdiagnet --get_phy_info after 5-10 minutes of traffic",
		     "IB-COUNTERS SYM-LINK-ERRORS"),
	COUNTER_RULE("ib-link-recovery", FT_LAYER_FIRMWARE_HW, FT_SEV_WARNING,
		     "LinkErrorRecoveryCounter over the IBD-THR threshold", ft__diag_counter_recovery,
		     "ib.counter.LinkErrorRecoveryCounter",
		     "swap the cable or transceiver; drain the link if it keeps retraining",
		     "IB-COUNTERS SYM-LINK-ERRORS SYM-JITTER"),
	COUNTER_RULE("ib-link-downed", FT_LAYER_FIRMWARE_HW, FT_SEV_ERROR,
		     "LinkDownedCounter is not zero", ft__diag_counter_downed, "ib.counter.LinkDownedCounter",
		     "find the flapping link (perfquery -x on both ends, dmesg), replace the cable "
		     "or port, isolate the node until fixed",
		     "IB-COUNTERS SYM-LINK-ERRORS SYM-ERR-12"),
	COUNTER_RULE("ib-rcv-errors", FT_LAYER_FIRMWARE_HW, FT_SEV_WARNING,
		     "PortRcvErrors over the IBD-THR threshold", ft__diag_counter_rcv, "ib.counter.PortRcvErrors",
		     "check the physical link (cable, optic); on inter-switch links run ibdiagnet",
		     "IB-COUNTERS"),
	COUNTER_RULE("ib-remote-physical-errors", FT_LAYER_FABRIC, FT_SEV_WARNING,
		     "PortRcvRemotePhysicalErrors over the IBD-THR threshold", ft__diag_counter_remote,
		     "ib.counter.PortRcvRemotePhysicalErrors",
		     "look one hop upstream for the port with symbol errors and fix that link",
		     "IB-COUNTERS"),
	COUNTER_RULE("ib-switch-relay-errors", FT_LAYER_FABRIC, FT_SEV_WARNING,
		     "PortRcvSwitchRelayErrors over the IBD-THR threshold", ft__diag_counter_relay,
		     "ib.counter.PortRcvSwitchRelayErrors",
		     "run ibdiagnet routing checks; check the routing engine and SM logs",
		     "IB-COUNTERS IB-SM SYM-IB-SM"),
	COUNTER_RULE("ib-xmit-discards", FT_LAYER_FABRIC, FT_SEV_WARNING,
		     "PortXmitDiscards over the IBD-THR threshold", ft__diag_counter_discards,
		     "ib.counter.PortXmitDiscards",
		     "find the congested or down port; enable adaptive routing, fix routing "
		     "imbalance and placement",
		     "IB-COUNTERS IB-FC SYM-IB-CONGESTION"),
	COUNTER_RULE("ib-xmit-wait", FT_LAYER_FABRIC, FT_SEV_WARNING,
		     "PortXmitWait over the IBD-THR reporting floor (congestion)", ft__diag_counter_wait,
		     "ib.counter.PortXmitWait",
		     "host-facing port: look for a slow receiver (PCIe, NUMA, GDR); inter-switch "
		     "port: check routing engine and adaptive routing, spread the job",
		     "IB-COUNTERS IB-FC IB-AR SYM-IB-CONGESTION"),
	COUNTER_RULE("ib-constraint-errors", FT_LAYER_FABRIC, FT_SEV_WARNING,
		     "partition constraint errors over the IBD-THR threshold", ft__diag_counter_constraint,
		     "ib.counter.PortXmitConstraintErrors ib.counter.PortRcvConstraintErrors",
		     "check partitions.conf membership (full vs limited) and NCCL_IB_PKEY",
		     "IB-COUNTERS IB-PKEY SYM-IB-PKEY"),
	COUNTER_RULE("ib-link-integrity", FT_LAYER_FIRMWARE_HW, FT_SEV_WARNING,
		     "LocalLinkIntegrityErrors over the IBD-THR threshold", ft__diag_counter_integrity,
		     "ib.counter.LocalLinkIntegrityErrors", "replace the cable or transceiver",
		     "IB-COUNTERS SYM-LINK-ERRORS"),
	COUNTER_RULE("ib-buffer-overrun", FT_LAYER_FIRMWARE_HW, FT_SEV_WARNING,
		     "ExcessiveBufferOverrunErrors over the IBD-THR threshold", ft__diag_counter_overrun,
		     "ib.counter.ExcessiveBufferOverrunErrors",
		     "check the port configuration (VLs, credits) and the signal quality",
		     "IB-COUNTERS"),
	COUNTER_RULE("ib-vl15-dropped", FT_LAYER_FABRIC, FT_SEV_WARNING,
		     "VL15Dropped over the IBD-THR threshold", ft__diag_counter_vl15, "ib.counter.VL15Dropped",
		     "look for subnet-management storms; check the SM and its sweep interval",
		     "IB-COUNTERS IB-VL"),
	/* ---- link quality from mlxlink (rules_link.c) ------------- */
	{ .id = "link-effective-ber",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_ERROR,
	  .summary = "errors left after FEC (effective BER above 1e-12) on a port",
	  .needs = "mlxlink.effective_ber mlxlink.effective_errors mlxlink.raw_ber "
		   "mlxlink.raw_errors_lane",
	  .eval = ft__diag_eval_effective_ber,
	  .fix = "drain the link; clean and reseat both connectors, swap the cable or optic; if "
		 "the errors stay with the port, move to another switch port; clear counters "
		 "(mlxlink --pc) and re-check under traffic",
	  .kb = "IB-COUNTERS IBDIAG-BER SYM-LINK-ERRORS" },
	{ .id = "link-raw-ber",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_WARNING,
	  .summary = "pre-FEC BER high: FEC still corrects it but the margin is thin",
	  .needs = "mlxlink.raw_ber mlxlink.fec mlxlink.raw_errors_lane",
	  .eval = ft__diag_eval_raw_ber,
	  .fix = "schedule a cable/optic clean or swap; trend the raw BER after clearing "
		 "counters",
	  .kb = "IBDIAG-BER IB-COUNTERS" },
	{ .id = "link-errors",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_ERROR,
	  .summary = "symbol errors, link downs or error recoveries counted by mlxlink",
	  .needs = "mlxlink.symbol_errors mlxlink.link_down mlxlink.link_error_recovery",
	  .eval = ft__diag_eval_link_errors,
	  .fix = "clear the counters and watch them under traffic; a rising count: reseat or "
		 "swap the cable or optic, then the switch port",
	  .kb = "IB-COUNTERS SYM-LINK-ERRORS" },
	{ .id = "link-module-temp",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_WARNING,
	  .summary = "a transceiver runs near or above its temperature alarm",
	  .needs = "mlxlink.module_temp",
	  .eval = ft__diag_eval_module_temp,
	  .fix = "check airflow and fan speeds at that port, blanking panels and neighbouring "
		 "hot modules; replace a module that stays hot",
	  .kb = "SYM-LINK-ERRORS" },
	{ .id = "link-recommendation",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_WARNING,
	  .summary = "mlxlink's troubleshooting recommendation names an issue",
	  .needs = "mlxlink.recommendation",
	  .eval = ft__diag_eval_recommendation,
	  .fix = "follow mlxlink's recommendation; read the port's BER and counters with "
		 "mlxlink -c",
	  .kb = "IB-COUNTERS" },
	/* ---- RoCE: trust/PFC/TC, GIDs, RoCE MTU, pause, ECN/CNP, loss and physical counters (rules_roce.c) ---- */
	{ .id = "roce-cc-steady-state",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "pause frames or ECN marks/CNPs keep arriving in steady state",
	  .needs = "eth.counter.*pause.rate *counter.np_ecn_marked_roce_packets.rate "
		   "*counter.np_cnp_sent.rate *counter.rp_cnp_handled.rate",
	  .eval = ft__diag_eval_cc_steady_state,
	  .fix = "find the congested hop (switch queue counters of the RoCE priority), spread "
		 "the traffic (more QPs per connection, adaptive routing), set ECN thresholds "
		 "below PFC XOFF and check DCQCN on every sender; probe again after the change",
	  .kb = "ROCE-PFC ROCE-DCQCN ROCE-COUNTERS" },
	{ .id = "roce-pfc-off",
	  .layer = FT_LAYER_OS_DRIVER,
	  .severity = FT_SEV_ERROR,
	  .summary = "PFC is enabled on no priority of a RoCE NIC",
	  .needs = "roce.qos.pfc_enabled_prios",
	  .eval = ft__diag_eval_pfc_off,
	  .fix = "enable PFC on the RoCE priority on the NIC and every switch hop (mlnx_qos -i IF "
		 "--pfc 0,0,0,1,0,0,0,0) and enable ECN on that queue",
	  .kb = "ROCE-PFC ROCE-QOS SYM-ROCE-LOSS" },
	{ .id = "roce-pfc-wrong-priority",
	  .layer = FT_LAYER_COMMLIB,
	  .severity = FT_SEV_ERROR,
	  .summary = "NCCL's traffic class maps to a priority without PFC",
	  .needs = "roce.qos.pfc_enabled_prios roce.qos.trust nccl.env.NCCL_IB_TC nccl.version",
	  .eval = ft__diag_eval_pfc_prio,
	  .fix = "set NCCL_IB_TC so that DSCP = TC >> 2 maps to the PFC priority (TC 106 = DSCP "
		 "26 = priority 3 with the default map), identically on every node",
	  .kb = "ROCE-QOS ENV-IB_TC SYM-ROCE-LOSS" },
	{ .id = "roce-trust-pcp",
	  .layer = FT_LAYER_OS_DRIVER,
	  .severity = FT_SEV_WARNING,
	  .summary = "RoCE NIC trusts PCP (VLAN priority) rather than DSCP",
	  .needs = "roce.qos.trust",
	  .eval = ft__diag_eval_trust_pcp,
	  .fix = "mlnx_qos -i IF --trust dscp (or tag RoCE traffic on a VLAN with the right PCP)",
	  .kb = "ROCE-QOS" },
	{ .id = "roce-gid-empty",
	  .layer = FT_LAYER_OS_DRIVER,
	  .severity = FT_SEV_ERROR,
	  .summary = "no usable RoCE GID (empty table or all-zero GID)",
	  .needs = "ib.port.gid_count roce.gid.* ib.port.gid",
	  .eval = ft__diag_eval_gid_empty,
	  .fix = "give the RDMA device's netdev an IP address in this namespace (in Kubernetes a "
		 "macvlan/SR-IOV secondary network), then check show_gids",
	  .kb = "ROCE-GID SYM-QP-GID" },
	{ .id = "roce-gid-index",
	  .layer = FT_LAYER_COMMLIB,
	  .severity = FT_SEV_WARNING,
	  .summary = "NCCL_IB_GID_INDEX set to a wrong or unneeded index",
	  .needs = "nccl.env.NCCL_IB_GID_INDEX roce.gid.index roce.gid.version nccl.version",
	  .eval = ft__diag_eval_gid_index,
	  .fix = "NCCL >= 2.21: unset NCCL_IB_GID_INDEX (use NCCL_IB_ADDR_RANGE to pick a "
		 "subnet); older NCCL: set it to the RoCE v2 IPv4 entry of show_gids",
	  .kb = "ROCE-GID ENV-IB_GID_INDEX SYM-QP-GID" },
	{ .id = "roce-mtu-below-4096",
	  .layer = FT_LAYER_OS_DRIVER,
	  .severity = FT_SEV_WARNING,
	  .summary = "RoCE port active MTU below 4096",
	  .needs = "ib.port.mtu_active ib.port.link_layer ib.port.state perftest.mtu "
		   "perftest.link_type",
	  .eval = ft__diag_eval_roce_mtu,
	  .fix = "jumbo frames end to end: netdev MTU 9000 on hosts and switches, then the RoCE "
		 "MTU becomes 4096",
	  .kb = "ROCE-MTU ROCE-WIRE HOST-ETH-MTU SYM-ROCE-MTU" },
	{ .id = "eth-tx-pause-high",
	  .layer = FT_LAYER_OS_DRIVER,
	  .severity = FT_SEV_WARNING,
	  .summary = "the NIC sends many pause frames (host cannot drain)",
	  .needs = "eth.counter.tx_prio*_pause eth.counter.tx_global_pause",
	  .eval = ft__diag_eval_tx_pause,
	  .fix = "find why the host stalls (PCIe width, IOMMU, NUMA placement, GDR); enable PFC "
		 "storm prevention (ethtool pfc-prevention-tout)",
	  .kb = "ROCE-PFC ROCE-COUNTERS SYM-ROCE-PFC-STORM" },
	{ .id = "eth-rx-pause-high",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "the network pauses the NIC often (congestion spreading)",
	  .needs = "eth.counter.rx_prio*_pause eth.counter.rx_global_pause",
	  .eval = ft__diag_eval_rx_pause,
	  .fix = "enable ECN marking below the PFC threshold on the RoCE queue; look for incast "
		 "and oversubscription",
	  .kb = "ROCE-PFC ROCE-DCQCN SYM-ROCE-NO-CC" },
	{ .id = "eth-pause-fraction",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "a large share of time paused by PFC (needs a probe interval)",
	  .needs = "eth.counter.rx_prio*_pause_duration.rate "
		   "eth.counter.tx_prio*_pause_duration.rate",
	  .eval = ft__diag_eval_pause_fraction,
	  .fix = "receive side paused: enable ECN marking below PFC XOFF and find the incast; "
		 "transmit side pausing: find why this host stalls (PCIe, IOMMU, NUMA, GDR)",
	  .kb = "ROCE-PFC ROCE-DCQCN SYM-ROCE-PFC-STORM" },
	COUNTER_RULE(
		"eth-pause-storm", FT_LAYER_FIRMWARE_HW, FT_SEV_ERROR,
		"PFC storm watchdog events on the NIC", ft__diag_counter_storm,
		"eth.counter.tx_pause_storm_error_events eth.counter.tx_pause_storm_warning_events",
		"treat as a host or NIC fault first: find the stalled host (largest tx pause), "
		"check its PCIe and GPU health, isolate it",
		"ROCE-PFC SYM-ROCE-PFC-STORM"),
	{ .id = "roce-ecn-no-cnp",
	  .layer = FT_LAYER_OS_DRIVER,
	  .severity = FT_SEV_ERROR,
	  .summary = "ECN marks arrive but no CNP is sent (notification point off)",
	  .needs = "*counter.np_ecn_marked_roce_packets ib.hw_counter.np_cnp_sent",
	  .eval = ft__diag_eval_ecn_no_cnp,
	  .fix = "enable the notification point on the NCCL priority: echo 1 > "
		 "/sys/class/net/IF/ecn/roce_np/enable/PRIO",
	  .kb = "ROCE-DCQCN SYM-ROCE-NO-CC" },
	{ .id = "roce-pfc-only",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "pauses without any ECN mark or CNP (no congestion control)",
	  .needs = "eth.counter.rx_prio*_pause_duration ib.hw_counter.np_ecn_marked_roce_packets "
		   "*counter.np_cnp_sent *counter.rp_cnp_handled",
	  .eval = ft__diag_eval_pfc_only,
	  .fix = "enable ECN marking on the switch RoCE queue with thresholds below PFC XOFF; "
		 "enable roce_np/roce_rp on the NCCL priority",
	  .kb = "ROCE-DCQCN ROCE-PFC SYM-ROCE-NO-CC" },
	{ .id = "roce-ecn-rate-high",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "a high share of received packets is ECN-marked",
	  .needs = "*counter.np_ecn_marked_roce_packets ib.counter.PortRcvPkts "
		   "eth.counter.rx_packets_phy",
	  .eval = ft__diag_eval_ecn_rate,
	  .fix = "look for incast or oversubscribed uplinks; spread flows (more QPs per "
		 "connection, adaptive routing); tune ECN thresholds and DCQCN together",
	  .kb = "ROCE-DCQCN ROCE-ECMP SYM-SCALE-DROP" },
	{ .id = "roce-dcqcn-overreaction",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "DCQCN over-reacts: senders cut by CNPs leave the marking receiver's link idle",
	  .needs = "*counter.np_ecn_marked_roce_packets eth.counter.rx_packets_phy "
		   "eth.counter.rx_bytes_phy *counter.rp_cnp_handled eth.counter.tx_bytes_phy "
		   "sim.makespan sim.nic.link_rate eth.link.speed",
	  .eval = ft__diag_eval_dcqcn_overreaction,
	  .fix = "bound the cut per CNP and recover sooner: on the senders rpg_min_dec_fac "
		 "50 -> 98 and rpg_time_reset 300 -> 20 us, on the receivers "
		 "min_time_between_cnps 4 -> 2 us (ecn/roce_rp|roce_np/<name> in sysfs, or "
		 "mlxconfig RPG_MIN_DEC_FAC_P1, RPG_TIME_RESET_P1, MIN_TIME_BETWEEN_CNPS_P1); "
		 "fabtune advise --spec gives the twin's gain",
	  .kb = "CC-DCQCN ROCE-DCQCN" },
	COUNTER_RULE("roce-cnp-ignored", FT_LAYER_OS_DRIVER, FT_SEV_WARNING,
		      "CNPs received but ignored (reaction point off)", ft__diag_counter_cnp_ignored,
		      "*counter.rp_cnp_ignored",
		      "enable the reaction point on the NCCL priority (roce_rp/enable/PRIO) and "
		      "align the CNP priority",
		      "ROCE-DCQCN SYM-ROCE-NO-CC"),
	COUNTER_RULE("roce-out-of-sequence", FT_LAYER_FABRIC, FT_SEV_WARNING,
		      "out-of-sequence packets (loss toward this node)", ft__diag_counter_oos,
		      "*counter.out_of_sequence *counter.duplicate_request",
		      "make the NCCL priority lossless end to end: DSCP/TC, trust dscp, PFC on "
		      "every hop, buffer headroom",
		      "ROCE-COUNTERS SYM-ROCE-LOSS"),
	COUNTER_RULE(
		"roce-sequence-errors", FT_LAYER_FABRIC, FT_SEV_WARNING,
		"sequence-error NAKs and retransmissions", ft__diag_counter_seq,
		"*counter.packet_seq_err *counter.implied_nak_seq_err *counter.roce_adp_retrans",
		"align NCCL_IB_TC with the lossless class and enable PFC on it on every hop",
		"ROCE-COUNTERS SYM-ROCE-LOSS"),
	COUNTER_RULE("roce-ack-timeouts", FT_LAYER_FABRIC, FT_SEV_ERROR,
		      "local ACK timeouts (tail loss or stalled peer)", ft__diag_counter_ack,
		      "*counter.local_ack_timeout_err",
		      "fix the loss first (lossless config, bad links); raise NCCL_IB_TIMEOUT only "
		      "when no loss cause is found",
		      "ROCE-COUNTERS ENV-IB_TIMEOUT SYM-ERR-12 SYM-JITTER"),
	COUNTER_RULE("rdma-retries-exceeded", FT_LAYER_FABRIC, FT_SEV_CRITICAL,
		      "a QP out of transport retries (NCCL error 12) on this port",
		      ft__diag_counter_retry_exc, "*counter.req_transport_retries_exceeded",
		      "the peer behind this port stopped acknowledging: find the link down or "
		      "flapping on the path (perfquery -x LinkDownedCounter, ibstat on both ends) "
		      "or the loss (local_ack_timeout_err, out_of_sequence), fix it, then restart "
		      "the job",
		      "ROCE-COUNTERS SYM-ERR-12 ENV-IB_RETRY_CNT ENV-IB_TIMEOUT"),
	COUNTER_RULE(
		"eth-rx-discards", FT_LAYER_OS_DRIVER, FT_SEV_WARNING,
		"NIC receive discards (buffer exhaustion)", ft__diag_counter_rx_discards,
		"eth.counter.rx_discards_phy eth.counter.rx_prio[0-7]_discards "
		"eth.counter.rx_prio[0-7]_buf_discard",
		"check PCIe width and host load; for RoCE make the priority lossless so the "
		"NIC pauses instead of dropping",
		"ROCE-COUNTERS"),
	COUNTER_RULE("eth-rx-out-of-buffer", FT_LAYER_OS_DRIVER, FT_SEV_WARNING,
		      "kernel receive ring overruns", ft__diag_counter_out_of_buffer,
		      "eth.counter.rx_out_of_buffer",
		      "spread IRQs over NIC-local cores, enlarge rings (ethtool -G), more socket "
		      "threads for NCCL's socket transport",
		      "ROCE-COUNTERS HOST-CPU HOST-TCP"),
	COUNTER_RULE("eth-oversize-frames", FT_LAYER_FABRIC, FT_SEV_WARNING,
		      "oversize frames dropped (MTU mismatch)", ft__diag_counter_oversize,
		      "eth.counter.rx_oversize_pkts_phy eth.counter.rx_out_of_range_len_phy",
		      "use one MTU on hosts and every switch port of the path",
		      "HOST-ETH-MTU ROCE-MTU"),
	COUNTER_RULE(
		"eth-phy-errors", FT_LAYER_FIRMWARE_HW, FT_SEV_WARNING,
		"Ethernet physical errors (CRC, symbol, link down events)", ft__diag_counter_phy,
		"eth.counter.rx_crc_errors_phy eth.counter.rx_symbol_err_phy "
		"eth.counter.rx_pcs_symbol_err_phy eth.counter.link_down_events_phy",
		"clean or replace the cable or transceiver; check per-lane errors with mlxlink",
		"ROCE-COUNTERS SYM-LINK-ERRORS"),
	COUNTER_RULE("eth-pci-signal-integrity", FT_LAYER_FIRMWARE_HW, FT_SEV_WARNING,
		      "PCIe signal-integrity recoveries on the NIC", ft__diag_counter_pci,
		      "eth.counter.rx_pci_signal_integrity eth.counter.tx_pci_signal_integrity",
		      "move the card to another slot, update firmware and BIOS",
		      "ROCE-COUNTERS HOST-PCIE"),
	COUNTER_RULE(
		"eth-module-fault", FT_LAYER_FIRMWARE_HW, FT_SEV_ERROR,
		"transceiver module fault events", ft__diag_counter_module,
		"eth.counter.module_high_temp eth.counter.module_bad_shorted "
		"eth.counter.module_bus_stuck",
		"replace the module; check cooling", "ROCE-COUNTERS"),
	{ .id = "eth-link-down",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_WARNING,
	  .summary = "an Ethernet link is down",
	  .needs = "eth.link.detected eth.link.operstate",
	  .eval = ft__diag_eval_eth_link_down,
	  .fix = "check cable, transceiver and the switch port; check the lanes/speed settings "
		 "(ethtool -s) on both ends",
	  .kb = "ROCE-COUNTERS SYM-LINK-DEGRADED" },
	{ .id = "eth-not-rdma-netdev",
	  .layer = FT_LAYER_OS_DRIVER,
	  .severity = FT_SEV_WARNING,
	  .summary = "the netdev is virtual (veth/bridge), not the RDMA NIC",
	  .needs = "eth.driver.name",
	  .eval = ft__diag_eval_not_rdma_netdev,
	  .fix = "attach the RDMA NIC (SR-IOV VF or macvlan on the RoCE port) to the pod or "
		 "container network namespace",
	  .kb = "ROCE-GID HOST-LIMITS" },
	/* ---- RoCE congestion control on the host (rules_cc.c) ----- */
	{ .id = "roce-ecn-disabled",
	  .layer = FT_LAYER_OS_DRIVER,
	  .severity = FT_SEV_WARNING,
	  .summary = "ECN/DCQCN is off on the priority that carries RDMA",
	  .needs = "roce.ecn.np.prio[0-7] roce.ecn.rp.prio[0-7] roce.qos.pfc_enabled_prios "
		   "nccl.env.NCCL_IB_TC",
	  .eval = ft__diag_eval_ecn_disabled,
	  .fix = "enable both points on the RDMA priority on every host: echo 1 > "
		 "/sys/class/net/IF/ecn/roce_np/enable/PRIO and echo 1 > "
		 "/sys/class/net/IF/ecn/roce_rp/enable/PRIO (not persistent: set it at boot)",
	  .kb = "ROCE-DCQCN CC-DCQCN SYM-ROCE-NO-CC" },
	{ .id = "roce-dcqcn-params",
	  .layer = FT_LAYER_OS_DRIVER,
	  .severity = FT_SEV_WARNING,
	  .summary = "DCQCN parameters far from the documented defaults",
	  .needs = "roce.cc.rp_time_reset roce.cc.rp_byte_reset roce.cc.rp_ai_rate "
		   "roce.cc.rp_hai_rate roce.cc.rp_min_rate roce.cc.rp_dce_tcp_rtt "
		   "roce.cc.rp_rate_reduce_monitor_period roce.cc.rp_threshold "
		   "roce.cc.np_min_time_between_cnps roce.cc.rp_max_rate",
	  .eval = ft__diag_eval_dcqcn_params,
	  .fix = "return the knob to its default (echo DEFAULT > /sys/kernel/debug/mlx5/PCI/"
		 "cc_params/NAME, or the ecn/roce_rp tree) unless an incast test on this fabric "
		 "chose the value; change DCQCN knobs together with the switch ECN thresholds",
	  .kb = "CC-DCQCN ROCE-DCQCN" },
	/* ---- RoCE congestion control in the NIC firmware (rules_nicfw.c) ---- */
	{ .id = "roce-cc-prio-off",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_WARNING,
	  .summary = "the NIC firmware has DCQCN off on the RDMA priority (ROCE_CC_PRIO_MASK)",
	  .needs = "mlxconfig.ROCE_CC_PRIO_MASK_P* roce.qos.pfc_enabled_prios",
	  .eval = ft__diag_eval_cc_prio,
	  .fix = "mlxconfig -d DEV set ROCE_CC_PRIO_MASK_P1=255 (or include the lossless "
		 "priority's bit), then a firmware reset or reboot; check "
		 "/sys/class/net/IF/ecn/roce_np and roce_rp enable/PRIO afterwards",
	  .kb = "ROCE-DCQCN SYM-ROCE-NO-CC" },
	{ .id = "roce-cnp-class",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_WARNING,
	  .summary = "CNPs are sent in the same class as the RDMA data they throttle",
	  .needs = "mlxconfig.CNP_802P_PRIO_P* mlxconfig.CNP_DSCP_P* roce.qos.pfc_enabled_prios "
		   "nccl.env.NCCL_IB_TC",
	  .eval = ft__diag_eval_cnp_class,
	  .fix = "keep CNPs in their own high-priority class (firmware defaults CNP_DSCP 48, "
		 "CNP_802P_PRIO 6) and map that DSCP to a strict-priority switch queue",
	  .kb = "ROCE-DCQCN ROCE-QOS" },
	{ .id = "roce-dcqcn-tuned",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_INFO,
	  .summary = "DCQCN parameters differ from NVIDIA's defaults",
	  .needs = "mlxconfig.RPG_* mlxconfig.DCE_TCP_* mlxconfig.RATE_*",
	  .eval = ft__diag_eval_dcqcn_tuned,
	  .fix = "keep the change only where incast and all-to-all tests at full scale show it "
		 "helps; set the same values on every NIC",
	  .kb = "ROCE-DCQCN CC-DCQCN" },
	/* ---- switches (rules_switch.c) ---------------------------- */
	{ .id = "fabric-pfc-deadlock-risk",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "lossless classes on a topology whose routes form cycles (deadlock risk)",
	  .needs = "spec.fabric.kind spec.fabric.routing spec.fabric.link "
		   "roce.qos.pfc_enabled_prios",
	  .eval = ft__diag_eval_deadlock,
	  .fix = "RoCE: map each hop class (dimension or dateline crossing on a torus; local and "
		 "global hops on a dragonfly) to its own lossless priority, enable the switches' "
		 "PFC watchdog; InfiniBand: a deadlock-free routing engine with enough VLs",
	  .kb = "ROCE-PFC IB-SM" },
	{ .id = "fabric-ecmp-collision",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "a fat-tree switch's equal-cost uplinks carry very uneven bytes while the "
		     "fabric holds traffic back on them (ECMP hash collision)",
	  .needs = "spec.fabric.kind spec.fabric.radix ib.counter.PortXmitData "
		   "ib.counter.PortXmitWait switch.queue.tx_bytes switch.queue.ecn_marked_pkts "
		   "switch.pfc.rx_prio(N) switch.lldp.remote_device",
	  .eval = ft__diag_eval_ecmp_collision,
	  .fix = "turn on adaptive routing (ar_updn or ar_ftree with an AR-enabled SL for NCCL), "
		 "or route without hashing (D-mod-K, ftree in OpenSM); on RoCE, more QPs per "
		 "connection (NCCL_IB_QPS_PER_CONNECTION=4) and a rail-optimised fabric",
	  .kb = "ROCE-ECMP IB-AR ENV-IB_QPS SYM-SCALE-DROP" },
	{ .id = "switch-pfc-storm",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_ERROR,
	  .summary = "a switch's PFC watchdog detected a pause storm on a port",
	  .needs = "switch.pfcwd.storms switch.pfcwd.status switch.pfcwd.tx_drop "
		   "switch.pfcwd.rx_drop",
	  .eval = ft__diag_eval_storm,
	  .fix = "find the device on that port (LLDP, cabling map): check it for a hung host, "
		 "NIC or PCIe stall (its tx_pause_storm counters, dmesg, Xid lines); drain it "
		 "until it drains its queues again",
	  .kb = "ROCE-PFC SYM-ROCE-PFC-STORM" },
	{ .id = "switch-pfc-pause",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "a switch port sent or received many PFC pause frames",
	  .needs = "switch.pfc.tx_prio* switch.pfc.rx_prio*",
	  .eval = ft__diag_eval_switch_pause,
	  .fix = "sent: find the congested egress of that switch (incast, oversubscribed "
		 "uplinks) and check ECN marks below PFC XOFF; received: check the device on "
		 "that port for a receive stall",
	  .kb = "ROCE-PFC CC-PFC-ECN" },
	{ .id = "switch-drops",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "a switch port dropped packets",
	  .needs = "switch.if.tx_drp switch.if.rx_drp switch.queue.drop_pkts switch.queue.tx_pkts",
	  .eval = ft__diag_eval_switch_drops,
	  .fix = "check which queue drops (show queue counters): a drop in the RDMA class "
		 "means PFC is missing on that priority or its buffer headroom is too small",
	  .kb = "ROCE-PFC CC-PFC-ECN ROCE-COUNTERS" },
	{ .id = "switch-fec",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "FEC errors on a switch port: uncorrectable codewords or a thin margin",
	  .needs = "switch.if.fec_uncorr switch.if.fec_post_ber switch.if.fec_pre_ber "
		   "switch.if.fec_pre_ber_max",
	  .eval = ft__diag_eval_switch_fec,
	  .fix = "clean and reseat both ends, swap the cable or optic; compare with the NIC's "
		 "own BER (mlxlink -c) on the other end of the link",
	  .kb = "IB-COUNTERS IBDIAG-BER SYM-LINK-ERRORS" },
	/* ---- PFC deadlock (rules_deadlock.c) ---------------------- */
	{ .id = "pfc-deadlock",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_CRITICAL,
	  .summary = "PFC watchdog storms on switch ports that wait on one another in a ring "
	             "(a cyclic buffer dependency)",
	  .needs = "switch.pfcwd.storms switch.lldp.remote_device",
	  .eval = ft__diag_eval_pfc_deadlock,
	  .fix = "break the cycle of lossless queues: route so that no dependency loop can close "
	         "(up/down or dimension-order routing with a dateline), or give each hop class "
	         "(dimension, dateline crossing) its own lossless priority; keep the PFC watchdog "
	         "as the safety net, not the fix",
	  .kb = "ROCE-PFC SYM-ROCE-PFC-STORM" },
	{ .id = "ib-credit-loop",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_CRITICAL,
	  .summary = "InfiniBand switch ports that wait for credits on one another in a ring "
	             "(a credit loop: a cyclic buffer dependency)",
	  .needs = "ib.counter.PortXmitWait ib.port.lid ib.port.node_type ib.link.peer",
	  .eval = ft__diag_eval_ib_credit_loop,
	  .fix = "route so that no credit dependency can close a loop: a deadlock-free routing "
	         "engine (updn or ftree on a tree; torus-2QoS, lash, dfsssp or nue with enough "
	         "VLs on a torus or other topology with cycles), then restart the job; read "
	         "perfquery twice to confirm the ring's PortXmitWait grows while PortXmitData "
	         "stands still",
	  .kb = "IB-FC IB-SM IB-COUNTERS IB-VL" },
	/* ---- performance: busbw and latency against expectations, jitter, outliers, results (rules_perf.c) ---- */
	{ .id = "perf-utilisation-low",
	  .layer = FT_LAYER_APPLICATION,
	  .severity = FT_SEV_WARNING,
	  .summary = "a perftest, or an inter-node nccl-tests run per rank, reached less of the "
		     "port rate than the fabric is held to (85%)",
	  .needs = "bench.bw_avg perftest.device ib.port.rate ib.port.state eth.link.speed "
		   "bench.busbw bench.rank bench.test spec.nic.rate spec.node.nics spec.node.gpus",
	  .eval = ft__diag_eval_utilisation,
	  .fix = "rerun with the GPU/NIC pairing fixed (same NUMA node, PIX/PXB), several QPs "
		 "(-q 4), MTU 4096; check the port's PCIe link, its counters under load and the "
		 "peer's; compare with a host-memory run to separate GPU from network",
	  .kb = "NA-EXPECT NA-BUSBW SYM-BW-HALF HOST-PCIE" },
	{ .id = "perf-test-unknown",
	  .layer = FT_LAYER_APPLICATION,
	  .severity = FT_SEV_INFO,
	  .summary = "an nccl-tests output whose collective cannot be identified",
	  .needs = "bench.test",
	  .eval = ft__diag_eval_test_unknown,
	  .fix = "keep the '# Collective test starting' / '# nccl-tests version' header lines "
		 "in the paste, name the file after the test (all_gather_perf.txt), or read it "
		 "with --format nccl-tests from a file so named",
	  .kb = "NT-PERF NA-BUSBW" },
	{ .id = "perf-no-results",
	  .layer = FT_LAYER_APPLICATION,
	  .severity = FT_SEV_WARNING,
	  .summary = "a benchmark started but reported no result (hang after init)",
	  .needs = "bench.rank bench.busbw bench.time_us nccl.version",
	  .eval = ft__diag_eval_no_results,
	  .fix = "re-run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,COLL and a timeout; "
		 "disable optional features one at a time (NCCL_COLLNET_ENABLE=0, "
		 "NCCL_NVLS_ENABLE=0) to find the one that hangs",
	  .kb = "SYM-INIT-HANG IB-SHARP ENV-COLLNET" },
	{ .id = "perf-busbw-below-model",
	  .layer = FT_LAYER_APPLICATION,
	  .severity = FT_SEV_WARNING,
	  .summary = "measured bus bandwidth below what the model expects",
	  .needs = "bench.busbw bench.test (and expectations)",
	  .eval = ft__diag_eval_busbw_model,
	  .fix = "walk the layers: NCCL log (network, GDR, channels), port rates, ib_write_bw "
		 "host and GPU memory, counters under load, PCIe links",
	  .kb = "NA-EXPECT NA-BUSBW SYM-BW-HALF" },
	{ .id = "perf-latency-above-model",
	  .layer = FT_LAYER_APPLICATION,
	  .severity = FT_SEV_WARNING,
	  .summary = "measured latency above what the model expects",
	  .needs = "bench.lat_p50 bench.time_us bench.test (and expectations)",
	  .eval = ft__diag_eval_latency_model,
	  .fix = "check the small-message path: NCCL_ALGO/NCCL_PROTO overrides, CPU power states "
		 "and proxy placement, ib_write_lat between the same hosts",
	  .kb = "SYM-SMALL-LAT SYM-JITTER NA-MODEL" },
	{ .id = "perf-scale-drop",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "bus bandwidth falls as the job grows (same test, more ranks)",
	  .needs = "bench.test bench.busbw",
	  .eval = ft__diag_eval_scale_drop,
	  .fix = "RoCE: more QPs per connection (NCCL_IB_QPS_PER_CONNECTION=4), check uplink "
		 "spread and ECN; IB: adaptive routing on an AR-enabled SL, routing engine and "
		 "roots; keep NCCL_CROSS_NIC at 0/2 on rail fabrics; topology-aware placement",
	  .kb = "SYM-SCALE-DROP NA-EXPECT ROCE-ECMP IB-AR" },
	{ .id = "perf-latency-jitter",
	  .layer = FT_LAYER_APPLICATION,
	  .severity = FT_SEV_WARNING,
	  .summary = "latency p99 well above p50 (jitter)",
	  .needs = "bench.lat_p99 bench.lat_p50",
	  .eval = ft__diag_eval_jitter,
	  .fix = "fix loss first; then the performance governor, limit deep C-states, NIC IRQs on "
		 "NIC-local cores away from NCCL threads, correct CPU binding",
	  .kb = "SYM-JITTER HOST-CPU" },
	{ .id = "perf-pair-outlier",
	  .layer = FT_LAYER_FABRIC,
	  .severity = FT_SEV_WARNING,
	  .summary = "a pair in a pairs matrix is much slower than the median",
	  .needs = "bench.pair_bw",
	  .eval = ft__diag_eval_pair_outlier,
	  .fix = "test each NIC alone and then in pairs; check the ports and links on that pair's "
		 "path (port rate, counters, PCIe)",
	  .kb = "SYM-BW-ASYM SYM-LINK-DEGRADED" },
	{ .id = "perf-host-outlier",
	  .layer = FT_LAYER_FIRMWARE_HW,
	  .severity = FT_SEV_ERROR,
	  .summary = "one endpoint is slow in every pair it takes part in",
	  .needs = "bench.pair_bw",
	  .eval = ft__diag_eval_host_outlier,
	  .fix = "drain the host; check its NIC port rate, PCIe link width/speed, NUMA placement "
		 "and link counters",
	  .kb = "SYM-BW-ASYM SYM-LINK-DEGRADED HOST-PCIE" },
	{ .id = "perf-wrong-results",
	  .layer = FT_LAYER_COMMLIB,
	  .severity = FT_SEV_CRITICAL,
	  .summary = "benchmark validation found wrong results",
	  .needs = "bench.wrong",
	  .eval = ft__diag_eval_wrong,
	  .fix = "stop using the nodes for training; unset NCCL_PROTO overrides (LL128 on "
		 "unsupported platforms corrupts data), check GPU memory errors and the "
		 "PCIe/ACS path",
	  .kb = "ENV-PROTO NA-PROTO-LL128" },
};
const size_t ft__diag_nrules = FT_ARRAY_SIZE(ft__diag_rules);

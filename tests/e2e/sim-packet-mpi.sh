#!/usr/bin/env bash
# tests/e2e/sim-packet-mpi.sh - one packet-engine run split over 2 and 4 MPI
# ranks (by pod, conservative windows) gives the bytes of the run in one
# process: the JSON result and the counters it writes, which rank 0 alone
# prints and writes. Each case also checks that what crosses the partitions
# happened at all (PFC pauses, credit stalls at a core switch, CNPs,
# retransmissions, NCCL's chunked pipelines, NVLS trees and all-to-alls, flowlet
# choices, NIC context misses); a --trace of ports and QPs of every rank is
# the same file; and a run the split cannot carry is refused with the reason.
#
# Every case runs on 2 ranks (two pods each, one rank per core of a 2-core
# host). 4 ranks (one pod each) oversubscribe such a host: each window's end
# is a collective that waits for all four ranks to be given a CPU, and a run
# of a few thousand windows takes 45 to 90 s at a load of 20 where 2 ranks
# take 3 to 8 s (pfc: 88 s against 5 s; phases: 45 s against 3 s). So by
# default three cases also run on 4 ranks, those where most crosses
# between more than two ranks: CNPs sent back from an incast into pod 0 to
# the three other pods, the all-to-all's rounds whose barriers wait on
# several ranks, and the QP traces rank 0 gathers from three others;
# FABTUNE_LONG_TESTS=1 runs every case on 4 ranks as well. Each split run
# prints its time ("# NAME, N ranks: S s").
set -u
fabtune=${1:?usage: sim-packet-mpi.sh PATH-TO-FABTUNE}
cd "${FT_SOURCE_ROOT:-$(dirname "$0")/../..}" || exit 1
. tests/e2e/lib-sim-mpi.sh
fail=0
ncase=0
wide="dcqcn alltoall trace-qps"
# nps NAME: the rank counts NAME runs on
nps() {
	if [ "${FABTUNE_LONG_TESTS:-0}" = 1 ] || [[ " $wide " == *" $1 "* ]]; then
		echo 2 4
	else
		echo 2
	fi
}

# kept FILE: FILE less the lines IGNORE (grep -E) matches; all of it without IGNORE
kept() {
	if [ -n "${IGNORE:-}" ]; then
		grep -Ev "$IGNORE" "$1"
	else
		cat "$1"
	fi
}

# check NAME SCENARIO SEED PATTERN [ARG...]: PATTERN (grep -E) must match the
# one-process JSON or counters, then 2 (and 4: nps) ranks must give the same bytes
# (IGNORE=REGEX before it: but the JSON lines REGEX matches).
check() {
	local name=$1 sc=$2 seed=$3 pat=$4 np start
	shift 4
	local one="$tmp/$name.one.json" c1="$tmp/$name.c1"

	ncase=$((ncase + 1))
	"$fabtune" sim "$sc" "$@" --json --seed "$seed" --counters "$c1" >"$one" ||
		{ echo "$name: one-process run failed"; fail=1; return; }
	grep -Eq "$pat" "$one" "$c1"/* ||
		{ echo "$name: expected /$pat/ (what crosses the partitions)"; fail=1; return; }
	for np in $(nps "$name"); do
		# Rank 0 prints the result and writes the counters; the others stay silent
		# (so the launcher's merged stdout is one document, into one directory).
		start=$SECONDS
		timeout 300 mpirun -np "$np" --oversubscribe --mca btl self,vader \
			"$fabtune" sim "$sc" "$@" --json --seed "$seed" --counters "$tmp/$name.c$np" \
			>"$tmp/$name.mpi$np.json" 2>"$tmp/err" ||
			{ echo "$name, $np ranks: mpirun failed"; cat "$tmp/err"; fail=1; continue; }
		echo "# $name, $np ranks: $((SECONDS - start)) s"
		if [ -s "$tmp/err" ]; then
			echo "$name, $np ranks: unexpected stderr"
			head -5 "$tmp/err"
			fail=1
		fi
		if ! diff <(kept "$one") <(kept "$tmp/$name.mpi$np.json") >"$tmp/d"; then
			echo "$name, $np ranks: JSON differs from one process (or printed twice)"
			head -20 "$tmp/d"
			fail=1
		fi
		if ! diff -r "$c1" "$tmp/$name.c$np" >"$tmp/d"; then
			echo "$name, $np ranks: counters differ from one process"
			head -20 "$tmp/d"
			fail=1
		fi
	done
}

# RoCE with PFC: pause frames go back over links between pods.
check pfc tests/fixtures/sim/packet-mpi-k4.yaml 1 '"pause_frames": [1-9]'
# Adaptive routing per packet: each switch picks by its own egress queues (the
# receivers place packets out of order).
check adaptive tests/fixtures/sim/packet-mpi-k4.yaml 1 '"routing": "adaptive"' --routing adaptive
cmp -s "$tmp/pfc.one.json" "$tmp/adaptive.one.json" &&
	{ echo "adaptive: the same result as ECMP (no choice by queue made)"; fail=1; }
# Adaptive routing per flowlet (256 KiB of a QP): the first of a flowlet's packets
# to reach a switch picks its port there by that switch's queues, for the flowlet.
sed 's/^routing: ecmp$/routing: adaptive\nflowlet: 256KiB/' tests/fixtures/sim/packet-mpi-k4.yaml \
	>"$tmp/flowlet.yaml"
check flowlet "$tmp/flowlet.yaml" 1 '"routing": "adaptive"'
cmp -s "$tmp/adaptive.one.json" "$tmp/flowlet.one.json" &&
	{ echo "flowlet: the same result as per-packet adaptive routing"; fail=1; }
# Start jitter: each host's flow starts at its own offset (in [0, 20 us)), after a
# barrier of that wait which every rank runs.
sed 's/^    size: 2MiB$/&\n    jitter: 20us/' tests/fixtures/sim/packet-mpi-k4.yaml >"$tmp/jitter.yaml"
check jitter "$tmp/jitter.yaml" 1 '"jitter_us": 20'
# (but for the jitter and the file's name)
unlike='"jitter_us"\|"cluster"'
grep -v "$unlike" "$tmp/jitter.one.json" | cmp -s - <(grep -v "$unlike" "$tmp/pfc.one.json") &&
	{ echo "jitter: the same result as every flow starting at once"; fail=1; }
# On/off: 3 bursts of 512 KiB 30 us apart, each after its senders learnt of every flow's end (the
# last ACK back, one path latency: a flow between two NICs of one node waits its PCIe
# path, 0.15 us, under the 0.35 us link between partitions, so the windows shrink to
# it); without jitter, with it drawn per burst and once per source.
sed 's/^    size: 2MiB$/    size: 512KiB\n    bursts: 3\n    off: 30us/' \
	tests/fixtures/sim/packet-mpi-k4.yaml >"$tmp/bursts.yaml"
check bursts "$tmp/bursts.yaml" 1 '"bursts": 3'
sed 's/^    off: 30us$/&\n    jitter: 20us/' "$tmp/bursts.yaml" >"$tmp/bursts-jitter.yaml"
check bursts-jitter "$tmp/bursts-jitter.yaml" 1 '"jitter_us": 20'
sed 's/^    jitter: 20us$/&\n    jitter_per: source/' "$tmp/bursts-jitter.yaml" \
	>"$tmp/bursts-source.yaml"
check bursts-source "$tmp/bursts-source.yaml" 1 '"jitter_per": "source"'
# (three bursts of about 130 us each, one after the other: not one burst's result; and
# the draws differ)
grep -Eq '"makespan_us": [4-9][0-9]{2}\.' "$tmp/bursts.one.json" ||
	{ echo "bursts: expected three bursts in a row (a makespan of 400 to 999 us)"; fail=1; }
unlike='"jitter_us"\|"jitter_per"\|"cluster"'
grep -v "$unlike" "$tmp/bursts.one.json" |
	cmp -s - <(grep -v "$unlike" "$tmp/bursts-jitter.one.json") &&
	{ echo "bursts-jitter: the same result as every flow starting at once"; fail=1; }
grep -v "$unlike" "$tmp/bursts-jitter.one.json" |
	cmp -s - <(grep -v "$unlike" "$tmp/bursts-source.one.json") &&
	{ echo "bursts-source: the same result as offsets drawn per burst"; fail=1; }
# An alltoall background runs in rounds (pair i to i + k in round k, 4 in flight); a
# round whose pairs all stay inside a node prices no message cost and ends when its
# senders have the last ACK back, one PCIe path (0.15 us) later, so the windows shrink
# to it as for the bursts: 3 bursts of 64 KiB a pair, 30 us apart.
sed -e 's/^  - pattern: permutation$/  - pattern: alltoall/' -e 's/^    size: 512KiB$/    size: 64KiB/' \
	"$tmp/bursts.yaml" >"$tmp/a2a-bg.yaml"
check a2a-bg "$tmp/a2a-bg.yaml" 1 '"pattern": "alltoall"'
# InfiniBand credits: a core switch's port waits for credits from a spine of another pod.
check ib tests/fixtures/sim/packet-mpi-k4-ib.yaml 1 '^PortXmitWait:\.*[1-9]'
grep -Eq '^PortXmitWait:\.*[1-9]' "$tmp"/ib.c1/perfquery-x.core* ||
	{ echo "ib: expected credit stalls at a core switch"; fail=1; }
# Congestion control: CNPs, BECNs and RTT samples go back to senders in other pods
# (an incast into pod 0), RED draws per port.
check dcqcn tests/fixtures/sim/packet-mpi-k4-dcqcn.yaml 1 '"cnps": [1-9]'
check ibcc tests/fixtures/sim/packet-mpi-k4-ibcc.yaml 1 '"cnps": [1-9]'
check timely tests/fixtures/sim/packet-mpi-k4-timely.yaml 1 '"pause_frames": [1-9]'
# Two priorities, strict: an incast of 512 KiB a host into pod 0 at priority 3 over the
# permutation at priority 0. Ports where both queued keep each priority's own queue
# depth (mean, p99, max), whose records and bins rank 0 gathers with the ports'; a
# priority's queue figures are in its object under "priorities" (12 spaces in).
{
	sed 's/^  congestion_control: none$/&\n  arbitration: strict/' \
		tests/fixtures/sim/packet-mpi-k4.yaml
	printf '    priority: 0\n  - pattern: incast\n    size: 512KiB\n    hosts: 16\n'
	printf '    target: 0\n    priority: 3\n'
} >"$tmp/prio.yaml"
check prio "$tmp/prio.yaml" 1 '^ {12}"queue_p99_bytes": [1-9]'
# Lossy (PFC off): switches drop, receivers in pod 0 NAK the first gap and ACK
# every 16 packets back to senders in other pods, which go back N on a NAK or
# time out on what the ACKs told them. With adaptive routing the receivers
# place packets out of order and only the timeouts (fed by ACKs) recover.
check lossy tests/fixtures/sim/packet-mpi-k4-lossy.yaml 1 '"retransmitted": [1-9]'
check lossy-adaptive tests/fixtures/sim/packet-mpi-k4-lossy.yaml 1 '"retransmitted": [1-9]' \
	--routing adaptive
# TCP (GPUDirect-TCPX) on a lossy fabric: each connection's counters (timeouts,
# tail-loss probes and those that mended a loss, reordering timeouts, resends lost
# again, D-SACKs) are kept on its sender's rank and summed over the ranks. The
# JSON but its event count, and the counters, are the one process's bytes: the
# split run handles 57 retransmit timers more (moved-on probe timers of messages
# whose last ACK its sender has not yet applied there), which fire nothing.
IGNORE='^ *"events": ' check tcp tests/fixtures/sim/tcpx-lossy.yaml 1 \
	'"reordering_timeouts": [1-9]'
grep -Eq '"tcp_timeouts": [1-9]' "$tmp/tcp.one.json" &&
	grep -Eq '"loss_probe_recoveries": [1-9]' "$tmp/tcp.one.json" &&
	grep -Eq '"dsacks": [1-9]' "$tmp/tcp.one.json" ||
	{ echo "tcp: expected TCP's counters above zero"; fail=1; }
# Flows that wait for other flows: a job's ops one after the other, multi-phase
# all-reduces (hierarchical, halving-doubling). Every rank runs the barriers
# between them, told of the flows finished on the other ranks at each window's
# end (their waits are longer than the lookahead).
check phases tests/fixtures/sim/packet-mpi-k4-phases.yaml 1 '"algo": "halving_doubling"'
# A collective under a cap held back by a slow NIC (CollNetChain; an LL ring): its
# bottleneck is named along its critical path (pkt_report.c crit_pace()), which the
# waits that cross ranks carry (a clear-to-send, a barrier's completions, rank 0's
# gather of the ends), so the split run names `nic` as one process does.
check collnet-slow-nic tests/fixtures/sim/collnet-slow-nic.yaml 1 '"bottleneck": "nic"' --engine packet
check ll-ring-slow-nic tests/fixtures/sim/ll-ring-slow-nic.yaml 1 '"bottleneck": "nic"' --engine packet
# NCCL's chunked pipelines (ring all-reduce and all-gather, tree all-reduce,
# chain broadcast): a message follows the one that arrived where it leaves
# (local), its QP's previous message leaving the NIC (local, the source's
# rank alone runs that barrier) and the receiver's clear-to-send for its
# slot, one path latency back (a message between ranks). With 2 QPs per
# connection the messages take the QPs in turn; there the NICs' send pipeline
# is slowed to 100,000 messages a second so that it holds messages back (its
# waits are counted on the rank that owns each NIC; at 200,000 the loops,
# paced at NCCL's per-channel caps, leave it nothing to hold).
check chunked tests/fixtures/sim/packet-mpi-k4-chunked.yaml 1 '"algo": "tree"'
sed 's/^  congestion_control: none$/&\n  nic_msg_rate: 1e5/' \
	tests/fixtures/sim/packet-mpi-k4-chunked.yaml >"$tmp/chunked-nic.yaml"
check chunked-qps "$tmp/chunked-nic.yaml" 1 '"nic_wait_s": [0-9.]*[1-9]' --qps 2
# An LL chain (broadcast, reduce of 64 KiB): a rank's rounds leave a period of its
# channel's LL pace apart, each told by the start of the one before on its hop (the
# source's rank alone tells it, no barrier between the flows: pkt_tree.c rank_edge()).
{
	sed '/^    ops:$/q' tests/fixtures/sim/packet-mpi-k4-chunked.yaml
	printf '      - {op: broadcast, algo: ring, proto: ll, size: 64KiB}\n'
	printf '      - {op: reduce, algo: ring, proto: ll, size: 64KiB}\n'
} >"$tmp/ll-chain.yaml"
check ll-chain "$tmp/ll-chain.yaml" 1 '"proto": "ll"'
# NCCL's NVLS tree over two NVLink domains of 18 trays (GB200 NVL72): a head reads
# chunk c once every rank's part has reached the switch it reads from, and learns
# of the other trays' switches one path latency after their last part (a barrier
# per switch that waits that long, which every rank runs, told at the window's end).
check nvls-tree gb200-nvl72:36 1 '"algo": "nvls_tree"' --op all_reduce -b 16M --engine packet
# One NVLink domain whose trays hang from several leaves: a packet between two
# trays steps from one tray's NVSwitch to another's, which no link between
# partitions carries, so the domain's trays are one rank's.
check nvl72-trays tests/fixtures/sim/packet-mpi-nvl72-trays.yaml 1 '"pattern": "alltoall"'
# NCCL's all-to-all sends: a send waits for the ends of the send W rounds
# before from its rank and of the receive W rounds before at its receiver,
# which learn of them one path latency later (every rank runs those barriers,
# told at the window's end); a split run builds the sends whole.
check alltoall tests/fixtures/sim/packet-mpi-k4-alltoall.yaml 1 '"op": "alltoall"'
# NCCL's window held the last send to end (a paced message whose pace was its last
# wait, 1 MiB over two DGX H100): the op's bottleneck is the window. The flow that
# marks it ends on its receiver's rank; rank 0 marks each op again from every rank's
# completions, in one process's order. Under ECMP and per-packet adaptive routing.
check a2a-window dgx-h100:2 1 '"bottleneck": "p2p:window"' --op alltoall -b 1M --engine packet
check a2a-window-adaptive dgx-h100:2 1 '"bottleneck": "p2p:window"' --op alltoall -b 1M \
	--engine packet --routing adaptive
# Wider than the sends in flight (288 ranks, W = 256): the sends of the last
# rounds wait for their receiver's clear-to-send, a barrier after the receive
# that waits the path from the receiver back to the next sender.
check alltoall-notice tests/fixtures/sim/packet-mpi-a2a-notice.yaml 1 '"nranks": 288'
# Bit errors on the lossless PFC permutation: each port draws from its own
# generator (seeded from the run's seed and the port); corrupted packets are
# dropped at the receiving port and sent again after a NAK or a timeout.
sed 's/^  congestion_control: none$/&\n  ber: 1e-6/' tests/fixtures/sim/packet-mpi-k4.yaml >"$tmp/ber.yaml"
check ber "$tmp/ber.yaml" 1 '^[[:space:]]*rx_crc_errors_phy:[[:space:]]*[1-9]'
# A NIC's QP-context cache (1 context, half the rate on a miss: with the loops
# paced, a cache of 2 or 4 contexts never misses here): the count lives with
# the rank that owns the NIC, and a flow's end reaches it one path latency
# after its receiver (on another rank) took the last packet.
nic='  nic_msg_rate: 2e5\n  nic_msg_rate_miss: 1e5\n  nic_qp_cache: 1'
sed "s/^  congestion_control: none\$/&\\n$nic/" \
	tests/fixtures/sim/packet-mpi-k4-chunked.yaml >"$tmp/qp-cache.yaml"
check qp-cache "$tmp/qp-cache.yaml" 1 '"nic_context_misses": [1-9]' --qps 2
# The torus PFC watchdog lab under action drop (docs/scenarios/lab-torus-deadlock.md),
# in the form that completes (NCCL's own retransmit timeout): 117 storms, every one
# restored, 120,822 packets discarded by stormed queues. A stormed queue is its
# switch's; its discards are counted on that sending side (the port's drops at its
# far end come from that end's rank, which never sees them) and the last storm's
# figures (show pfcwd stats TX/RX LAST) from that switch's own counters, so both
# sides of a link between partitions give one process's bytes.
sed '/retransmit_timeout/d' tests/fixtures/sim/pfcwd-drop.yaml >"$tmp/wd-drop.yaml"
check wd-drop "$tmp/wd-drop.yaml" 1 '"pfc_watchdog_drops": [1-9]'
# trace_split NAME SCENARIO ARG...: a --trace (with what ARG adds) at 2 and 4
# ranks is the one-process file.
trace_split() {
	local name=$1 sc=$2 np start
	shift 2
	"$fabtune" sim "$sc" --trace "$tmp/$name.1" "$@" >/dev/null ||
		{ echo "$name: one-process run failed"; fail=1; return; }
	for np in $(nps "$name"); do
		start=$SECONDS
		timeout 300 mpirun -np "$np" --oversubscribe --mca btl self,vader \
			"$fabtune" sim "$sc" --trace "$tmp/$name.$np" "$@" >/dev/null 2>"$tmp/err" ||
			{ echo "$name, $np ranks: mpirun failed"; cat "$tmp/err"; fail=1; }
		echo "# $name, $np ranks: $((SECONDS - start)) s"
		cmp "$tmp/$name.1" "$tmp/$name.$np" ||
			{ echo "$name, $np ranks: the trace differs from one process"; fail=1; }
	done
}
# --trace: each rank samples its own ports; rank 0 keeps one process's samples.
links=100,150,160,170,180,190,200,205,211
trace_split trace tests/fixtures/sim/packet-mpi-k4.yaml --trace-links "$links"
# --trace-qps: each rank samples the QPs whose sending NIC it owns (senders in
# every pod of the incast, cut by CNPs); rank 0 keeps those.
trace_split trace-qps tests/fixtures/sim/packet-mpi-k4-dcqcn.yaml --trace-links 100 \
	--trace-qps 2,5,9,14,20
grep -q '"alpha"' "$tmp/trace-qps.1" || { echo "trace-qps: no QP in the trace"; fail=1; }

# What cannot be split is refused, naming why.
# NCCL's split of each chunked message over the QPs puts barriers with no
# wait between a message's parts and the next message: refused.
sed 's/^  congestion_control: none$/&\n  split_data_on_qps: true/' \
	tests/fixtures/sim/packet-mpi-k4-chunked.yaml >"$tmp/split-qps.yaml"
timeout 300 mpirun -np 2 --oversubscribe --mca btl self,vader \
	"$fabtune" sim "$tmp/split-qps.yaml" --qps 2 >/dev/null 2>"$tmp/err"
grep -q "packet engine under mpirun: split_data_on_qps splits each chunked message over its QPs" \
	"$tmp/err" || { echo "split data on QPs under mpirun: expected a refusal"; cat "$tmp/err"; fail=1; }
# A GPU's several NICs each carry a share of every chunked message of a ring
# or tree, the parts meeting at barriers between flows: refused.
cat >"$tmp/nics.yaml" <<'EOF2'
name: nics
cluster:
  name: multi-nic
  nodes: { preset: dgx-h100, count: 2, nics: { count: 32, rate: 100Gbps, per_gpu: 4 } }
  fabric: { kind: fat-tree, link: ndr, tiers: 2, radix: 64 }
jobs:
  - name: a
    ops:
      - {op: all_reduce, size: 16MiB, algo: ring, proto: simple}
EOF2
timeout 300 mpirun -np 2 --oversubscribe --mca btl self,vader \
	"$fabtune" sim "$tmp/nics.yaml" --engine packet >/dev/null 2>"$tmp/err"
grep -q "packet engine under mpirun: a GPU's several NICs (nics.per_gpu) each carry a share" \
	"$tmp/err" || { echo "NICs per GPU under mpirun: expected a refusal"; cat "$tmp/err"; fail=1; }
[ "$fail" = 0 ] || exit 1
n4=all; [ "${FABTUNE_LONG_TESTS:-0}" = 1 ] || n4="$(echo $wide | wc -w) of them"
echo "ok: $ncase cases on 1 and 2 ranks ($n4 on 4 too), same JSON and counters, from rank 0 alone"

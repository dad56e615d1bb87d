#!/usr/bin/env bash
# bench/allreduce-netns.sh - fabtune's tcp all_reduce against Open MPI's
# MPI_Allreduce over its tcp BTL with the ranks on different hosts: HOSTS
# (2) network namespaces, each with its own UTS name (host0, host1, ...)
# and an eth0 at 198.18.0.(i+1)/24, joined by one veth pair (2 hosts) or by
# veth pairs to a bridge in a namespace of its own (3 and more). PPN (1)
# ranks on each host, ranks i*PPN .. i*PPN+PPN-1 on host i on both sides.
# Both use the same addresses: fabtune's ranks are started by hand in their
# namespaces (--rank, --nranks, --bootstrap 198.18.0.1, --ifname eth0);
# mpirun runs in host0's namespace and starts its daemons on the other hosts
# through a launch agent (plm_rsh_agent) that enters the host's namespaces
# in place of ssh, with --mca btl self,tcp, btl_tcp_if_include eth0 and
# oob_tcp_if_include eth0.
# RATE (e.g. 10gbit; empty: none) caps each host's link in both directions
# with tc tbf, so that the wire binds whichever side reaches it. On a loaded
# 2-CPU host only fabtune did (1 Gbit/s: 88-98 % of the cap); Open MPI
# stayed CPU-bound at 31-43 % from 4 MiB and 4-14 % below, so the ratio
# then says who reaches the wire, not which algorithm is better
# (docs/internals/bench-log.md, "all_reduce against Open MPI with ranks
# across hosts").
# Placement: all namespaces share this host's CPUs, while each side sees
# PPN ranks on a host of nproc CPUs; so that the two are treated alike,
# neither binds (mpirun --bind-to none, fabtune --bind none) and, when
# HOSTS*PPN exceeds nproc, neither spins (mpi_yield_when_idle 1, fabtune
# --spin never); otherwise fabtune spins as it would on a host of its own
# and Open MPI polls, its default.
# Sizes, pairs and output as bench/allreduce.sh (MIN, MAX, STEP, ITERS,
# WARMUP, RUNS, KEEP). The namespaces are removed on any exit.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
[ "$(id -u)" = 0 ] || { echo "allreduce-netns: needs root (ip netns)" >&2; exit 2; }
hosts=${HOSTS:-2}
ppn=${PPN:-1}
np=$((hosts * ppn))
[ "$hosts" -ge 2 ] && [ "$hosts" -le 64 ] && [ "$ppn" -ge 1 ] ||
	{ echo "allreduce-netns: HOSTS must be 2-64 and PPN at least 1" >&2; exit 2; }
rate=${RATE:-}
port=$((29600 + $$ % 300))
p=ftar$$
tmp=$(mktemp -d)
pids=()
cleanup() {
	local pid i
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
	for i in $(seq 0 $((hosts - 1))); do ip netns del "${p}h$i" 2>/dev/null; done
	ip netns del "${p}sw" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
allreduce_setup "$tmp" || exit 2

tbf() { # tbf NETNS DEV: cap DEV's egress at RATE
	[ -n "$rate" ] || return 0
	ip netns exec "$1" tc qdisc add dev "$2" root tbf rate "$rate" burst 1mb latency 50ms ||
		{ echo "allreduce-netns: tc tbf on $1 $2 failed" >&2; exit 2; }
}
for i in $(seq 0 $((hosts - 1))); do
	ip netns add "${p}h$i" || { echo "allreduce-netns: cannot create namespaces" >&2; exit 2; }
	ip -n "${p}h$i" link set lo up
done
if [ "$hosts" = 2 ]; then
	ip -n "${p}h0" link add eth0 type veth peer name eth0 netns "${p}h1" || exit 2
else
	ip netns add "${p}sw" || exit 2
	ip -n "${p}sw" link add br0 type bridge
	ip -n "${p}sw" link set br0 up
	for i in $(seq 0 $((hosts - 1))); do
		ip -n "${p}sw" link add "p$i" type veth peer name eth0 netns "${p}h$i" || exit 2
		ip -n "${p}sw" link set "p$i" master br0 up
		tbf "${p}sw" "p$i"
	done
fi
for i in $(seq 0 $((hosts - 1))); do
	ip -n "${p}h$i" addr add "198.18.0.$((i + 1))/24" dev eth0
	ip -n "${p}h$i" link set eth0 up
	tbf "${p}h$i" eth0
done

# mpirun's launch agent: "AGENT hostI COMMAND..." runs COMMAND in host I's namespaces
cat >"$tmp/agent" <<EOF
#!/bin/sh
h=\$1
shift
exec ip netns exec "${p}h\${h#host}" unshare --uts sh -c "hostname \$h; \$*"
EOF
chmod +x "$tmp/agent"
for i in $(seq 0 $((hosts - 1))); do echo "host$i slots=$ppn"; done >"$tmp/hostfile"

spin=
yield=
if [ "$np" -gt "$(nproc)" ]; then
	spin="--spin never"
	yield="--mca mpi_yield_when_idle 1"
fi
echo "# all_reduce busbw (GB/s), tcp, $hosts hosts (network namespaces) x $ppn ranks, np=$np," \
	"link ${rate:-veth, no cap}, iters $iters, warmup $warmup; pairs: $runs;" \
	"load at start: $(uptime)"

bare() {
	local rc=0
	# in the background, so that a signal to this script ends it at once (wait is
	# interrupted where a foreground command is not) and cleanup stops mpirun
	# shellcheck disable=SC2086,SC2046
	ip netns exec "${p}h0" unshare --uts sh -c 'hostname host0; exec "$0" "$@"' \
		timeout 1200 mpirun -np "$np" --hostfile "$tmp/hostfile" --bind-to none \
		--mca plm_rsh_agent "$tmp/agent" $(ompi_btl tcp eth0) \
		--mca oob_tcp_if_include eth0 $yield \
		"$tmp/mpi_allreduce" "$min" "$max" "$iters" "$warmup" "$step" >"$tmp/mpi.tcp.$1" &
	pids=($!)
	wait "${pids[0]}" || rc=$?
	pids=()
	[ "$rc" = 0 ] || { echo "allreduce-netns: mpirun failed (pair $1, exit code $rc)" >&2; exit 3; }
}
fab() {
	local i j rank rc=0 pid
	for i in $(seq $((hosts - 1)) -1 0); do
		for j in $(seq $((ppn - 1)) -1 0); do
			rank=$((i * ppn + j))
			# shellcheck disable=SC2086
			ip netns exec "${p}h$i" unshare --uts sh -c "hostname host$i; exec \"\$0\" \"\$@\"" \
				"$fabtune" bench all_reduce --rank "$rank" --nranks "$np" \
				--bootstrap "198.18.0.1:$port" --ifname eth0 --transport tcp --bind none \
				$spin -b "$min" -e "$max" -f "$step" -n "$iters" -w "$warmup" -c 0 \
				--timeout 120s --json >"$tmp/fab.$rank" 2>"$tmp/fab.$rank.err" &
			pids+=($!)
		done
	done
	for pid in "${pids[@]}"; do wait "$pid" || rc=$?; done
	pids=()
	[ "$rc" = 0 ] || { echo "allreduce-netns: fabtune failed (pair $1, exit code $rc):" >&2
		cat "$tmp"/fab.*.err >&2; exit 3; }
	mv "$tmp/fab.0" "$tmp/fab.tcp.$1"
	port=$((port + 1))
}
# the order alternates between runs so that a drift of the machine hits both alike
for r in $(seq "$runs"); do
	if [ $((r % 2)) = 1 ]; then bare "$r"; fab "$r"; else fab "$r"; bare "$r"; fi
	echo "#   pair $r (tcp, $hosts hosts): load $(cut -d' ' -f1 /proc/loadavg)" >&2
done
allreduce_summary "$tmp" tcp "$(printf 'tcp %dx%d' "$hosts" "$ppn")"
echo "# load at end: $(uptime)"

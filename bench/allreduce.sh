#!/usr/bin/env bash
# bench/allreduce.sh - fabtune's shm and tcp all_reduce busbw against Open
# MPI's MPI_Allreduce on the same number of ranks (vader for shm, the tcp BTL
# on loopback for tcp), sizes 64 KiB to 64 MiB (MIN, MAX, times STEP (4):
# 64K, 256K, 1M, 4M, 16M, 64M), RUNS (5) pairs: fabtune and Open MPI back to
# back, the order alternating from pair to pair; medians, and the median of
# per-pair ratios (lowest-highest). Target: ratio >= 1.0 for every size.
# Placement and waiting, at NP ranks on a host of nproc CPUs (nproc 2 here):
#  - NP <= nproc: mpirun --bind-to core pins a rank to a core. fabtune --np
#    (--bind auto, src/bench/cpu.c) pins shm ranks to a core each too; a tcp
#    rank is pinned at start but gives the pin up, and its polling, at its
#    first send of 33 KB or more (ft__spin_saving, src/bench/transport.c),
#    so at 64 KiB and up fabtune's tcp ranks run unpinned and sleep in
#    the kernel (poll, recv) while Open MPI's stay pinned and poll, yielding
#    between polls.
#  - NP > nproc (oversubscribed): mpirun --bind-to none (--bind-to core is
#    refused) and fabtune keeps the mask as it finds it; fabtune's --spin
#    auto sleeps at once (a rank polls only where every local rank has a
#    CPU), Open MPI polls with a sched_yield between polls.
# Open MPI runs with mpi_yield_when_idle 1 at every NP, so a loaded machine
# treats both alike. Ranks on other hosts (network namespaces): see
# bench/allreduce-netns.sh.
# TRANSPORTS="shm tcp" (default) picks the transports, MIN and MAX the sizes,
# ITERS (40) the timed iterations per size and WARMUP (5) the untimed ones:
# a 1 MiB all_reduce takes a few hundred microseconds, and ten of them are
# too short a sample on a shared machine. NP (2) ranks.
# KEEP=DIR keeps every run's raw output there (fab.T.R: fabtune's --json;
# mpi.T.R: bytes, microseconds, busbw per line).
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
np=${NP:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
allreduce_setup "$tmp" || exit 2
bind="--bind-to core"
[ "$np" -gt "$(nproc)" ] && bind="--bind-to none"
echo "# all_reduce busbw (GB/s), np=$np, iters $iters, warmup $warmup; pairs: $runs; load at start: $(uptime)"
for t in ${TRANSPORTS:-shm tcp}; do
	btl="$(ompi_btl "$t" lo) --mca mpi_yield_when_idle 1"
	bare() {
		# shellcheck disable=SC2086
		mpirun -np "$np" $bind $btl "$tmp/mpi_allreduce" "$min" "$max" "$iters" \
			"$warmup" "$step" >"$tmp/mpi.$t.$1"
	}
	fab() {
		"$fabtune" bench all_reduce --np "$np" --transport "$t" -b "$min" -e "$max" -f "$step" \
			-n "$iters" -w "$warmup" -c 0 --json >"$tmp/fab.$t.$1"
	}
	# the order alternates between runs so that a drift of the machine hits both alike
	for r in $(seq "$runs"); do
		if [ $((r % 2)) = 1 ]; then bare "$r"; fab "$r"; else fab "$r"; bare "$r"; fi
		echo "#   pair $r ($t): load $(cut -d' ' -f1 /proc/loadavg)" >&2
	done
	allreduce_summary "$tmp" "$t" "$(printf '%-3s np=%d' "$t" "$np")"
done
echo "# load at end: $(uptime)"

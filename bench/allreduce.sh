#!/usr/bin/env bash
# bench/allreduce.sh - fabtune's shm and tcp all_reduce busbw against Open
# MPI's MPI_Allreduce on the same number of ranks (vader for shm, the tcp BTL
# on loopback for tcp), sizes 1 MiB to 64 MiB, alternating in one run, medians
# of RUNS (5). Target: ratio >= 1.0 for every size. Open MPI yields when idle
# (mpi_yield_when_idle), as fabtune does, so a loaded machine treats both alike.
# TRANSPORTS="shm tcp" (default) picks the transports, MAX the largest size.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
np=${NP:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpicc -O2 -o "$tmp/mpi_allreduce" bench/mpi_allreduce.c || exit 2
min=$((1 << 20))
max=${MAX:-$((64 << 20))}
for t in ${TRANSPORTS:-shm tcp}; do
	if [ "$t" = shm ]; then
		btl="--mca btl self,vader --mca mpi_yield_when_idle 1"
	else
		btl="--mca btl self,tcp --mca btl_tcp_if_include lo --mca mpi_yield_when_idle 1"
	fi
	for r in $(seq "$runs"); do
		# shellcheck disable=SC2086
		mpirun -np "$np" $btl "$tmp/mpi_allreduce" "$min" "$max" 10 3 >"$tmp/mpi.$t.$r"
		"$fabtune" bench all_reduce --np "$np" -t "$t" -b "$min" -e "$max" -n 10 -w 3 -c 0 \
			--json >"$tmp/fab.$t.$r"
	done
	size=$min
	while [ "$size" -le "$max" ]; do
		m=$(cat "$tmp"/mpi."$t".* | awk -v s="$size" '$1 == s { print $3 }' | median)
		f=$(cat "$tmp"/fab."$t".* | tr '{' '\n' | grep "\"bytes\":$size," |
			grep -o '"busbw_GBps":[0-9.eE+-]*' | cut -d: -f2 | median)
		printf "%-3s np=%d %9d B  fabtune %6.3f GB/s  MPI_Allreduce %6.3f GB/s  ratio %s\n" \
			"$t" "$np" "$size" "$f" "$m" "$(ratio "$f" "$m")"
		size=$((size * 2))
	done
done

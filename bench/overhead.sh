#!/usr/bin/env bash
# bench/overhead.sh - the harness's overhead: fabtune's mpi transport
# all_reduce time against a bare timed loop of MPI_Allreduce
# (bench/mpi_allreduce.c), same ranks, same sizes, alternating, medians of
# RUNS (5). Target: within 3% (ratio <= 1.03).
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
np=${NP:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpicc -O2 -o "$tmp/mpi_allreduce" bench/mpi_allreduce.c || exit 2
min=$((1 << 20))
max=${MAX:-$((32 << 20))}
for r in $(seq "$runs"); do
	mpirun -np "$np" --mca btl self,vader --mca mpi_yield_when_idle 1 "$tmp/mpi_allreduce" "$min" "$max" 20 5 >"$tmp/mpi.$r"
	mpirun -np "$np" --mca btl self,vader --mca mpi_yield_when_idle 1 "$fabtune" bench all_reduce -t mpi -b "$min" -e "$max" \
		-n 20 -w 5 -c 0 --json >"$tmp/fab.$r"
done
size=$min
while [ "$size" -le "$max" ]; do
	m=$(cat "$tmp"/mpi.* | awk -v s="$size" '$1 == s { print $2 }' | median)
	f=$(cat "$tmp"/fab.* | tr '{' '\n' | grep "\"bytes\":$size," |
		grep -o '"time_us":[0-9.eE+-]*' | cut -d: -f2 | median)
	printf "mpi np=%d %9d B  fabtune %9.1f us  bare loop %9.1f us  ratio %s\n" "$np" "$size" \
		"$f" "$m" "$(ratio "$f" "$m")"
	size=$((size * 2))
done

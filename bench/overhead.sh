#!/usr/bin/env bash
# bench/overhead.sh - the harness's overhead: fabtune's mpi transport
# all_reduce time against a bare timed loop of MPI_Allreduce
# (bench/mpi_allreduce.c), same ranks, same sizes, alternating, medians of
# RUNS (5), ITERS (20) calls per size. Target: within 3% (ratio <= 1.03).
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
np=${NP:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpicc -O2 -o "$tmp/mpi_allreduce" bench/mpi_allreduce.c || exit 2
min=${MIN:-$((1 << 20))}
max=${MAX:-$((32 << 20))}
iters=${ITERS:-20}
bare() {
	mpirun -np "$np" --mca btl self,vader --mca mpi_yield_when_idle 1 "$tmp/mpi_allreduce" \
		"$min" "$max" "$iters" 5 >"$tmp/mpi.$1"
}
fab() {
	mpirun -np "$np" --mca btl self,vader --mca mpi_yield_when_idle 1 "$fabtune" bench all_reduce \
		--transport mpi -b "$min" -e "$max" -n "$iters" -w 5 -c 0 --json >"$tmp/fab.$1"
}
# the order alternates between runs so that a drift of the machine hits both alike
for r in $(seq "$runs"); do
	if [ $((r % 2)) = 1 ]; then bare "$r"; fab "$r"; else fab "$r"; bare "$r"; fi
done
fab_time() { # fab_time FILE SIZE
	tr '{' '\n' <"$1" | grep "\"bytes\":$2," | grep -o '"time_us":[0-9.eE+-]*' | cut -d: -f2
}
size=$min
while [ "$size" -le "$max" ]; do
	m=$(cat "$tmp"/mpi.* | awk -v s="$size" '$1 == s { print $2 }' | median)
	f=$(cat "$tmp"/fab.* | tr '{' '\n' | grep "\"bytes\":$size," |
		grep -o '"time_us":[0-9.eE+-]*' | cut -d: -f2 | median)
	# paired: each run's fabtune time over the bare loop's of the same run
	pr=$(for r in $(seq "$runs"); do
		ratio "$(fab_time "$tmp/fab.$r" "$size")" \
			"$(awk -v s="$size" '$1 == s { print $2 }' "$tmp/mpi.$r")"
		echo
	done | median)
	printf "mpi np=%d %9d B  fabtune %9.1f us  bare loop %9.1f us  ratio %s  (median of per-run ratios %s)\n" \
		"$np" "$size" "$f" "$m" "$(ratio "$f" "$m")" "$pr"
	size=$((size * 2))
done

#!/usr/bin/env bash
# tests/e2e/sim-packet-mpi.sh - one packet-engine run split over 2 and 4 MPI
# ranks (by pod, conservative windows) gives the bytes of the run in one
# process: the JSON result and the counters it writes, on every rank, for two
# seeds; and a run it cannot split is refused with the reason.
set -u
fabtune=${1:?usage: sim-packet-mpi.sh PATH-TO-FABTUNE}
cd "${FT_SOURCE_ROOT:-$(dirname "$0")/../..}" || exit 1
command -v mpirun >/dev/null || { echo "mpirun not found: skip"; exit 77; }
export FABTUNE_TEST_STABLE=1 LC_ALL=C
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sc=tests/fixtures/sim/packet-mpi-k4.yaml
fail=0
for seed in 1 2; do
	"$fabtune" sim "$sc" --json --seed "$seed" --counters "$tmp/c1.$seed" >"$tmp/one.$seed.json" ||
		{ echo "one-process run failed"; exit 1; }
	grep -q '"pause_frames": [1-9]' "$tmp/one.$seed.json" ||
		{ echo "seed $seed: expected PFC pauses (they cross the partitions)"; exit 1; }
	for np in 2 4; do
		# Every rank prints the whole result: each into its own file.
		timeout 300 mpirun -np "$np" --oversubscribe --mca btl self,vader sh -c \
			"\"$fabtune\" sim \"$sc\" --json --seed $seed \
			 --counters \"$tmp/c$np.$seed.\$OMPI_COMM_WORLD_RANK\" \
			 >\"$tmp/mpi$np.$seed.\$OMPI_COMM_WORLD_RANK.json\"" 2>"$tmp/err" ||
			{ echo "seed $seed, $np ranks: mpirun failed"; cat "$tmp/err"; exit 1; }
		for ((r = 0; r < np; r++)); do
			if ! cmp "$tmp/one.$seed.json" "$tmp/mpi$np.$seed.$r.json"; then
				echo "seed $seed, $np ranks, rank $r: JSON differs from one process"
				diff "$tmp/one.$seed.json" "$tmp/mpi$np.$seed.$r.json" | head -20
				fail=1
			fi
			if ! diff -r "$tmp/c1.$seed" "$tmp/c$np.$seed.$r" >"$tmp/d"; then
				echo "seed $seed, $np ranks, rank $r: counters differ from one process"
				head -20 "$tmp/d"
				fail=1
			fi
		done
	done
done
# What cannot be split is refused, naming why.
timeout 300 mpirun -np 2 --oversubscribe --mca btl self,vader \
	"$fabtune" sim scenarios/lab/incast-pfc-dcqcn.yaml >/dev/null 2>"$tmp/err"
grep -q "packet engine under mpirun: congestion control (DCQCN, IB CC, TIMELY) is not split yet" \
	"$tmp/err" || { echo "DCQCN under mpirun: expected a refusal"; cat "$tmp/err"; fail=1; }
[ "$fail" = 0 ] || exit 1
echo "ok: 2 seeds, 1, 2 and 4 ranks, same JSON and counters on every rank"

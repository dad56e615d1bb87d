#!/usr/bin/env bash
# bench/sim-split-memory.sh - peak memory of each rank of a packet run split
# across MPI ranks (docs/internals/sim.md, "Split across MPI ranks" and
# "Memory per rank"), against the same run in one process measured in the
# same go, at 1, 2 and 4 ranks, each rank under /usr/bin/time. Every line
# gives each rank's peak RSS and its ratio to the one-process run's, the sum
# over the ranks and its ratio, and whether rank 0's JSON is the one-process
# JSON to the byte. The workloads: the 16-host MPI test fabric
# (tests/fixtures/sim/packet-mpi-k4.yaml) first, what a rank costs with next
# to no engine (MPI's own libraries and buffers, the floor under the
# others); the 1,024-host htsim permutation
# (scenarios/bench/htsim-permutation-1024.yaml); a chunked ring all-reduce
# on 128 GPUs (scenarios/bench/split-allreduce-128.yaml, 292,608 flows); and
# the MoE all-to-all lab's 64-GPU form (scenarios/lab/moe-alltoall.yaml,
# flat and hierarchical, DCQCN). Other scenarios: bench/sim-split-memory.sh
# FILE... (the 512-GPU all-to-all takes minutes and about 1.2 GB at 4 ranks).
# Measured: the all-reduce held 1.29-1.35x one process on rank 0 and
# 1.13-1.22x on the others at 2 and 4 ranks, and 1.26x / 1.08x once a rank
# other than 0 kept only the paths that cross it, completions were kept
# as the gathered records and rank 0 sorted the starts as indices, all
# against one process that built the ring whole (103.5 MB; one process
# builds it as its messages may start now, 19.1 MB, while a split run still
# builds it whole, so the ratios are about 5.4x those now: 6.78x on rank 0 and
# 5.82x on the others at 4 ranks, 130.6 and 112.1 MB against 19.3 MB; 5.82x
# and 4.70x, 111.1 and 89.7 MB against 19.1 MB, once a QP's next message no
# longer waited on a barrier of its own, 6.75x / 5.82x to 5.99x / 5.20x at
# 2 ranks; docs/internals/sim-log.md, "Memory"); once each rank kept whole
# only the records of the flows with a vertex of it on their path (told its
# rank by the launcher before it builds; docs/internals/sim.md, "Memory per
# rank"), against the lazy one process at 19.1-19.2 MB, the all-reduce's
# rank 0 went from 111.0 to 90.1 MB at 4 ranks (5.80x to 4.70x) and from
# 113.9 to 103.5 MB at 2 (5.95x to 5.40x), the others from 89.1-89.6 to
# 64.8-65.0 MB at 4 ranks (4.68x to 3.38x) and from 99.0 to 84.9 MB at 2
# (5.17x to 4.42x), the same JSON; the MoE lab's largest rank
# went from 1.49x / 1.59x to 1.37x / 1.38x at 2 / 4 ranks once its nodes
# were shared out among the ranks of their rails' leaves (the sum from
# 2.65x / 5.18x to 2.69x / 5.32x). Once each rank kept whole only the task
# records of those flows too (20 bytes of every other flow's task;
# docs/internals/sim.md, "Memory per rank"), against the lazy one process
# at 19.0-19.3 MB, the all-reduce's rank 0 went from 89.9-90.3 to
# 81.5-81.8 MB at 4 ranks (4.68x to 4.25x) and from 103.3-103.6 to
# 98.4-98.5 MB at 2 (5.37x to 5.13x), the others from 64.8-65.0 to
# 56.5-57.1 MB at 4 ranks (3.37x to 2.95x) and from 84.9 to 80.0 MB at 2
# (4.41x to 4.17x), the same JSON (two runs each, alternated). Once a rank
# kept a flow's dependency on a flow only where the first flow ends (437,473
# of 868,609 dependencies at 4 ranks, 581,185 at 2), against the lazy one
# process at 20.4-20.7 MB, rank 0 went from 83.6 to 81.0 MB at 4 ranks
# (4.07x to 3.93x) and from 98.5 to 97.0 MB at 2, the others from
# 58.7-59.4 to 57.9-58.4 MB at 4 ranks and from 79.9-80.1 to 78.4 MB at 2;
# their high-water mark where the run starts fell by 6.5-6.8 MB, so the
# run and its gather set the peak now (two runs each, alternated). Once a
# rank kept a flow's start key only in its record's slot and only rank 0
# the report's per-flow FCT arrays, against the one process at 20.2-20.3
# MB, the all-reduce's ranks 1-3 went from 57.7-58.1 to 54.9-55.3 MB at 4
# ranks (2.86x to 2.73x) and rank 0 from 67.1 to 65.7 MB; rank 1 from 78.3
# to 74.5 MB at 2; the 1,024-host bench, 1,024 flows, stayed at 49.8 MB on
# rank 0 and 23.5-23.7 MB on the others at 4 ranks (docs/internals/sim.md,
# "Where a rank's memory goes at 1,024 hosts"). Once rank 0 freed the port
# records it widens for the report as soon as the report's per-port counters
# were filled (before the link rows), the 1,024-host bench's rank 0 went
# from 50,148-50,228 to 45,304-45,932 KB at 4 ranks and from 48.8 to
# 43.8-44.1 MB at 2, the others unchanged (24.2-24.8 MB at 4 ranks).
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.." || exit 1
[ -x "$fabtune" ] || { echo "build fabtune first (ninja -C build)"; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time"; exit 1; }
command -v mpirun >/dev/null || { echo "needs mpirun"; exit 1; }
export FABTUNE_TEST_STABLE=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# split_case FILE: one process, then 2 and 4 ranks; one line each.
split_case() {
	local sc=$1 np one
	/usr/bin/time -f "%M" -o "$tmp/rss.one" "$fabtune" sim "$sc" --json >"$tmp/one.json" ||
		{ echo "$sc: fabtune sim failed"; return 1; }
	one=$(tail -n 1 "$tmp/rss.one")
	echo "$sc: 1 process: peak $one KB"
	for np in 2 4; do
		rm -f "$tmp"/rss.r*
		mpirun -np "$np" --mca btl self,vader sh -c \
			"/usr/bin/time -f %M -o \"$tmp/rss.r\$OMPI_COMM_WORLD_RANK\" \"$fabtune\" sim \"$sc\" --json" \
			>"$tmp/mpi.json" 2>"$tmp/err" ||
			{ echo "$sc, $np ranks: mpirun failed"; head -5 "$tmp/err"; return 1; }
		same=differ
		cmp -s "$tmp/one.json" "$tmp/mpi.json" && same=same
		line="$sc: $np ranks:"
		sum=0
		for r in $(seq 0 $((np - 1))); do
			kb=$(tail -n 1 "$tmp/rss.r$r")
			sum=$((sum + kb))
			line="$line rank $r $kb KB (x$(ratio "$kb" "$one"))"
		done
		echo "$line; sum $sum KB (x$(ratio "$sum" "$one")); JSON $same as one process"
	done
}

if [ $# -eq 0 ]; then
	set -- tests/fixtures/sim/packet-mpi-k4.yaml scenarios/bench/htsim-permutation-1024.yaml \
		scenarios/bench/split-allreduce-128.yaml scenarios/lab/moe-alltoall.yaml
fi
for sc in "$@"; do
	split_case "$sc"
done

#!/usr/bin/env bash
# bench/sim-split-memory.sh - peak memory of each rank of a packet run split
# across MPI ranks (docs/internals/sim.md, "Split across MPI ranks"), against
# the same run in one process measured in the same go: the 1,024-host htsim
# permutation (scenarios/bench/htsim-permutation-1024.yaml) at 1, 2 and 4
# ranks, each rank under /usr/bin/time. Every line gives the ranks' peak RSS
# and each as a ratio to the one-process run's, and whether rank 0's JSON is
# the one-process JSON to the byte. The 16-host MPI test fabric
# (tests/fixtures/sim/packet-mpi-k4.yaml) comes first: what a rank costs with
# next to no engine (MPI's own libraries and buffers), the floor under the
# others. Other scenarios: bench/sim-split-memory.sh FILE... (2 and 4 ranks of
# an all-to-all lab take minutes on a loaded 2-core machine).
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
		for r in $(seq 0 $((np - 1))); do
			kb=$(tail -n 1 "$tmp/rss.r$r")
			line="$line rank $r $kb KB (x$(ratio "$kb" "$one"))"
		done
		echo "$line; JSON $same as one process"
	done
}

if [ $# -eq 0 ]; then
	set -- tests/fixtures/sim/packet-mpi-k4.yaml scenarios/bench/htsim-permutation-1024.yaml
fi
for sc in "$@"; do
	split_case "$sc"
done

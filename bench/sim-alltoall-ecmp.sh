#!/usr/bin/env bash
# bench/sim-alltoall-ecmp.sh - the flow engine's cost of ECMP collisions: a
# flat all-to-all (direct, 64 MB) on dgx-h100 clusters under D-mod-K, whose
# rounds end in step (one rate recomputation per round), and under ECMP,
# where colliding flows end one by one (one per completion). Prints each
# run's CPU time and the ECMP / D-mod-K ratio measured in the same run.
# QUICK=1 runs dgx-h100:16 only. Figures: docs/internals/sim.md, "ECMP
# all-to-all".
set -u
FABTUNE=${FABTUNE:-build/cli/fabtune}
cd "$(dirname "$0")/.." || exit 1
[ -x "$FABTUNE" ] || { echo "build fabtune first (ninja -C build)"; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# cpu_of CLUSTER ROUTING: run once; prints "cpu_s recomputations makespan_us".
cpu_of() {
	/usr/bin/time -f "%U" -o "$tmp/time" "$FABTUNE" sim "$1" --op alltoall -b 64M -e 64M \
		--algo direct --routing "$2" --json >"$tmp/out" || { echo "fabtune sim failed" >&2; return 1; }
	python3 - "$tmp/time" "$tmp/out" <<'PY'
import json, sys
cpu = float(open(sys.argv[1]).read().split()[-1])
d = json.load(open(sys.argv[2]))
print(max(cpu, 0.01), d["engine_stats"]["rate_recomputations"], d["makespan_us"])
PY
}

clusters="dgx-h100:16 dgx-h100:64"
[ "${QUICK:-0}" = 1 ] && clusters="dgx-h100:16"
for c in $clusters; do
	read -r dc dr dm < <(cpu_of "$c" dmodk) || exit 1
	read -r ec er em < <(cpu_of "$c" ecmp) || exit 1
	awk -v c="$c" -v dc="$dc" -v dr="$dr" -v dm="$dm" -v ec="$ec" -v er="$er" -v em="$em" 'BEGIN {
		printf "alltoall %s: dmodk cpu %.2f s (%d recomputations, %.1f us), ecmp cpu %.2f s (%d, %.1f us), ecmp/dmodk %.1fx\n",
		       c, dc, dr, dm, ec, er, em, ec / dc }'
done

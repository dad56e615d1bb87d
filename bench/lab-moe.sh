#!/usr/bin/env bash
# bench/lab-moe.sh - lab 5 (docs/scenarios/lab-moe-alltoall.md): the MoE
# all-to-all, flat against hierarchical, on the packet engine at 64 and 512
# GPUs (1,024 too with LARGE=1: about 1M sends, a minute of CPU and 0.4 GB;
# 4,096 with FULL=1: 16.8M sends, built as they start, packet engine only:
# the flow engine does not finish it under ECMP), each next to the
# flow engine on the same scenario (the peer: the same traffic as a fluid,
# without queues or congestion control). Prints per form and
# engine the two times, hierarchical's speed-up (flat / hierarchical), and
# the run's wall time and peak memory.
source "$(dirname "$0")/sim-common.sh"

# lab_case NAME FILE ENGINE: one run, one summary line.
lab_case() {
	local name=$1 file=$2 engine=$3 tmp
	tmp=$(mktemp -d)
	/usr/bin/time -f "%e %M" -o "$tmp/time" "$FABTUNE" sim "$file" --engine "$engine" \
		--json >"$tmp/out" || { echo "$name $engine: fabtune sim failed"; rm -rf "$tmp"; return 1; }
	python3 - "$name" "$engine" "$tmp/time" "$tmp/out" <<'PY'
import json, sys
name, engine, tpath, opath = sys.argv[1:5]
wall, rss_kb = open(tpath).read().split()[-2:]
rows = {r["algo"]: r["time_us"] for r in json.load(open(opath))["results"]}
flat, hier = rows["direct"], rows["hierarchical"]
print("%s %-6s: flat %9.1f us, hierarchical %9.1f us, flat / hierarchical %.2fx;"
      " wall %.1f s, peak %.0f MB" % (name, engine, flat, hier, flat / hier, float(wall),
                                      int(rss_kb) / 1024))
PY
	rm -rf "$tmp"
}

for form in "64 scenarios/lab/moe-alltoall.yaml" "512 scenarios/lab/moe-alltoall-512.yaml"; do
	set -- $form
	lab_case "$1 GPUs" "$2" packet
	lab_case "$1 GPUs" "$2" flow
done
if [ "${LARGE:-0}" = 1 ] || [ "${FULL:-0}" = 1 ]; then
	lab_case "1024 GPUs" scenarios/lab/moe-alltoall-1024.yaml packet
	lab_case "1024 GPUs" scenarios/lab/moe-alltoall-1024.yaml flow
fi
if [ "${FULL:-0}" = 1 ]; then
	lab_case "4096 GPUs" scenarios/lab/moe-alltoall-4096.yaml packet
fi

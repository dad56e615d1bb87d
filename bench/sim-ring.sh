#!/usr/bin/env bash
# bench/sim-ring.sh - ring all-reduce of 1 GB on 100,000 H100 GPUs (12,500
# DGX H100, scenarios/bench/ring-100k.yaml). Target: <= 60 s. Peers in the
# same run: the ideal engine (the same schedule without contention, each
# rank's flows one after the other: an upper bound here, since the flow
# engine overlaps a rank's NVLink and PCIe flows) and the analytic engine
# (NCCL's cost model).
source "$(dirname "$0")/sim-common.sh"
sim_case "ring-100k flow" scenarios/bench/ring-100k.yaml
sim_case "ring-100k ideal" scenarios/bench/ring-100k.yaml --engine ideal
sim_case "ring-100k analytic" scenarios/bench/ring-100k.yaml --engine analytic
for e in flow ideal; do
	"$FABTUNE" sim scenarios/bench/ring-100k.yaml --engine $e --json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["time_us"])'
done | paste -sd' ' | awk '{ printf "flow / ideal (closed form) time ratio: %.3f\n", $1 / $2 }'

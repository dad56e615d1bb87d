#!/usr/bin/env bash
# bench/sim-ring.sh - ring all-reduce of 1 GB on 100,000 H100 GPUs (12,500
# DGX H100, scenarios/bench/ring-100k.yaml). Target: <= 60 s. The analytic
# engine on the same schedule is the closed-form peer: the flow engine must
# agree with it where nothing contends (ratio 1.00).
source "$(dirname "$0")/sim-common.sh"
sim_case "ring-100k flow" scenarios/bench/ring-100k.yaml
sim_case "ring-100k analytic" scenarios/bench/ring-100k.yaml --engine analytic

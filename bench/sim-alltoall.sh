#!/usr/bin/env bash
# bench/sim-alltoall.sh - flat all-to-all over 4,096 H100 GPUs (512 DGX
# H100, rail-optimized: scenarios/bench/alltoall-4096.yaml), 16.8M flows.
# Target: <= 10 s on one core; measured 5-7 s of CPU and 310 MB (it was 37 s
# and 676 MB; docs/internals/sim.md, "Performance design"). The 512- and
# 1,024-GPU runs of the same scenario show how the time grows with the number
# of flows (x4 per doubling of GPUs).
source "$(dirname "$0")/sim-common.sh"
sim_case "alltoall-512" scenarios/bench/alltoall-4096.yaml --cluster dgx-h100:64
sim_case "alltoall-1024" scenarios/bench/alltoall-4096.yaml --cluster dgx-h100:128
[ "${QUICK:-0}" = 1 ] || sim_case "alltoall-4096" scenarios/bench/alltoall-4096.yaml

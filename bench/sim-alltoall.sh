#!/usr/bin/env bash
# bench/sim-alltoall.sh - flat all-to-all over 4,096 H100 GPUs (512 DGX
# H100, rail-optimized: scenarios/bench/alltoall-4096.yaml), 16.8M flows,
# posted as NCCL's send/recv path posts them (256 sends in flight per GPU:
# about a million flows at once). Measured 2026-12-03 on the shared 2-core
# machine (load average 10-18, niced): 47.4 s of user CPU, 935 MB at peak,
# 95 s of wall time (makespan 1,655.16 us, 46 recomputations, 32 full).
# The 5-7 s and 310 MB of the performance work (docs/internals/sim.md,
# "Performance design") were for waves of four sends per GPU (about 16k
# flows at once), the posting before the flow engine followed NCCL's; that
# form (packet.chunking: off) took 23.2 s and 326 MB in the same sitting.
# The 512- and 1,024-GPU runs of the same scenario show how the time grows
# with the number of flows (x4 per doubling of GPUs).
source "$(dirname "$0")/sim-common.sh"
sim_case "alltoall-512" scenarios/bench/alltoall-4096.yaml --cluster dgx-h100:64
sim_case "alltoall-1024" scenarios/bench/alltoall-4096.yaml --cluster dgx-h100:128
[ "${QUICK:-0}" = 1 ] || sim_case "alltoall-4096" scenarios/bench/alltoall-4096.yaml

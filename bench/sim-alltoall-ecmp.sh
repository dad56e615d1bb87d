#!/usr/bin/env bash
# bench/sim-alltoall-ecmp.sh - the flow engine's cost of ECMP collisions: a
# flat all-to-all (direct, 64 MB) on dgx-h100 clusters under D-mod-K, whose
# rounds end in step (one rate recomputation per round), and under ECMP,
# where colliding flows end one by one (one per completion). Prints each
# run's CPU time (user, from the kernel's accounting of the child) and the
# ECMP / D-mod-K ratio measured in the same run, for each way of updating
# the rates (FABTUNE_SIM_RATES): full (every rate every time), level (every
# flow above the level), local (only the components a change reaches) and
# grow (the default: the flows around a change, grown until the max-min
# conditions hold at their border). Each run is repeated REPEAT times (3)
# and the least CPU time kept (the D-mod-K run takes milliseconds: one slow
# start skews the ratio). QUICK=1 runs dgx-h100:36 only; MODES="full level
# local grow" runs others than the default, grow (they take minutes at
# dgx-h100:64); CLUSTERS="..." other sizes. The all-to-all posts as NCCL's send/recv
# path does (255 sends in flight per rank at 64 MiB on 512 GPUs), so every
# GPU's PCIe link binds its flows and max-min couples them all: a completion
# moves rates far away. Flows that end within 1% of the first one's FCT share
# a recomputation (FS_DEFER_RTOL); before that, dgx-h100:40 took 5.9 s and
# :64 did not end in 5 minutes. Full passes read the kept link -> flows
# lists, and recomputations go full at once where grown selections keep
# ending full: measured on the shared 2-core machine (load 17, REPEAT=3),
# dgx-h100:36 0.12 s D-mod-K, 0.20 s ECMP; dgx-h100:64 0.37 s D-mod-K,
# 5.24 s ECMP (14x; the binary before, in the same run: 9.78 s, 27x). Kept
# lists read without pointer chasing, and ends that hand back at most 1% of
# the links that limit flows waiting for the next recomputation (load 16):
# dgx-h100:36 0.13 s and 0.24 s (1.9x), :64 0.41 s and 1.87 s (4.6x; the
# binary before, in the same run: 4.61 s, 12.3x). Grown selections past an
# eighth of the flows filled in full at once (load 15-18, twice each in turn):
# :64 1.53-1.73 s ECMP (3.9-4.5x), the binary before 2.01-2.20 s (5.6-5.7x).
# First grown guesses cut at an eighth (load 8-12, twice each in turn): :64
# 1.17-1.20 s ECMP (3.7-3.8x), the binary before 1.27-1.28 s (3.8-4.2x).
# Freezing walks without a test per hop, full-pass bookkeeping in bulk (load
# 11-13, twice each in turn): :64 1.12-1.46 s ECMP (3.7x), the binary before
# 1.57-1.61 s (4.0-4.1x); :128 within its noise (12.1-12.4 s against
# 11.9-15.2 s); instructions at :64, ECMP 4,589M -> 4,280M, D-mod-K 1,292M ->
# 1,280M. Measured 2026-12-03 (load 5-9): :64 0.41 s D-mod-K, 1.18 s ECMP
# (2.9x), :128 1.44 s and 14.3 s (10.0x); a full pass's flows all have
# distinct link sets (131,072 of 131,072 at :64), so none can be filled as
# one. Hot loops with their arrays in locals and freezing walks two hops a
# turn: instructions at :64, ECMP 4,317M -> 4,077M (D-mod-K 1,292M after).
# Measured 2026-12-03 (load 10-18, REPEAT=3): :16 0.033 s D-mod-K, 0.040 s
# ECMP (1.2x); :64 0.537 s, 1.884 s (3.5x); :128 2.698 s, 22.502 s (8.3x).
# Walks that leave out the links carrying the same flows as the one that
# froze them: 4,077M -> 4,282M instructions at :64, not kept. Hops without
# a clamp, the links' heap sifted bottom-up, no -1 written before a full
# pass (all exact): instructions at :64, ECMP 4,077M -> 3,896M (D-mod-K
# 1,292M -> 1,287M); user CPU within its noise (load 16-25, REPEAT=3, the
# binaries in turn, twice each): :16 0.044-0.046 s ECMP before, 0.041-0.042
# s after; :64 1.905-2.276 s, 2.039-2.074 s (3.5-3.9x D-mod-K); :128
# 19.650-21.496 s, 21.044-21.632 s (9.0-9.8x). An exact max-min core
# cannot reach D-mod-K here: ECMP's full passes (171 at :64, 721 at :128)
# are set by the ends, not by the core.
# RTOLS="0.01 0.1" also runs ECMP at each --rate-tolerance given (the default
# run is 0.01) and prints its CPU time, recomputations and makespan beside the
# default's: dgx-h100:128 at 0.1 takes a third of the CPU, its makespan 0.7%
# longer ("A coarser rate tolerance").
# Measured 2026-12-04 (load 11, REPEAT=3): :64 0.515 s D-mod-K, 2.098 s ECMP
# (4.1x). 237 of ECMP's 246 recomputations come from the room rule alone, set
# off by a GPU's PCIe link 171 times; a border check with the rate tolerance
# as its slack, or a refill of only the links past it, does not cut them.
# Figures: docs/internals/sim-log.md, "The all-to-all on NCCL's p2p posting",
# "Ends that leave little room", "One full pass per hundredth of an FCT",
# "First guesses cut at an eighth", "One rate per bottleneck link: the
# exact part, measured", "Where the ECMP all-to-all's time goes",
# "Arrays in locals, two hops a turn", "Links that carry the same flows,
# measured and not kept", "A full filling with fewer instructions, and
# where exact parity stops" and "What sets off the full passes at the default
# tolerance". Measured 2026-12-06, the cross-rail sends through their PXN
# proxies (load 20-25, REPEAT=1, three runs): :64 0.49-0.60 s D-mod-K,
# 0.52-0.55 s ECMP (0.9-1.1x; the same 122 events and 16 recomputations);
# :128 2.79-3.02 s and 10.64-11.74 s (3.7-4.2x; 357 full passes against 16),
# four fifths of the difference the rate recomputation ("where the ECMP
# all-to-all stands with PXN").
set -u
FABTUNE=${FABTUNE:-build/cli/fabtune}
cd "$(dirname "$0")/.." || exit 1
[ -x "$FABTUNE" ] || { echo "build fabtune first (ninja -C build)"; exit 1; }

clusters=${CLUSTERS:-"dgx-h100:36 dgx-h100:64"}
[ "${QUICK:-0}" = 1 ] && clusters="dgx-h100:36"
exec python3 - "$FABTUNE" "${MODES:-grow}" "${REPEAT:-3}" "${RTOLS:-}" $clusters <<'PY'
import json, os, resource, subprocess, sys

fabtune, modes, repeat, rtols = sys.argv[1], sys.argv[2].split(), int(sys.argv[3]), sys.argv[4].split()
clusters = sys.argv[5:]

def run(cluster, routing, mode, rtol=None):
    """The least CPU seconds of REPEAT runs, recomputations (full ones), makespan, walks a flow."""
    return min(run_once(cluster, routing, mode, rtol) for _ in range(max(repeat, 1)))

def run_once(cluster, routing, mode, rtol):
    """CPU seconds, recomputations (full ones), makespan, path walks a flow of one run."""
    env = dict(os.environ, FABTUNE_SIM_RATES=mode)
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    out = subprocess.run([fabtune, "sim", cluster, "--op", "alltoall", "-b", "64M", "-e", "64M",
                          "--algo", "direct", "--routing", routing, "--json"] +
                         (["--rate-tolerance", rtol] if rtol else []),
                         env=env, capture_output=True, text=True)
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
    if out.returncode != 0:
        sys.exit("fabtune sim failed: " + out.stderr.strip())
    d = json.loads(out.stdout)
    st = d["engine_stats"]
    return (max(cpu, 1e-3), st["rate_recomputations"], st["full_recomputations"], d["makespan_us"],
            st["path_walks"] / max(d["flows"]["count"], 1))

for c in clusters:
    for m in modes:
        dc, dr, df, dm, dw = run(c, "dmodk", m)
        ec, er, ef, em, ew = run(c, "ecmp", m)
        print(f"alltoall {c} {m:5}: dmodk cpu {dc:.3f} s ({dr} recomputations, {dm:.1f} us), "
              f"ecmp cpu {ec:.3f} s ({er}, {ef} full, {ew:.2f} walks a flow, {em:.1f} us), "
              f"ecmp/dmodk {ec / dc:.1f}x")
        for r in rtols:
            tc, tr, tf, tm, tw = run(c, "ecmp", m, r)
            print(f"alltoall {c} {m:5}: ecmp --rate-tolerance {r}: cpu {tc:.3f} s ({tr}, {tf} full, "
                  f"{tw:.2f} walks a flow, {tm:.1f} us, {100 * (tm / em - 1):+.3f}% makespan), ecmp/dmodk {tc / dc:.1f}x")
PY

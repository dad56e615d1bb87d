#!/usr/bin/env bash
# bench/flow-ecmp.sh - the flow engine's CPU cost of ECMP against D-mod-K on
# the flat all-to-all (`fabtune sim dgx-h100:N --op alltoall -b SIZE -e SIZE
# --algo direct --routing ecmp|dmodk --json`), the figure being the ratio
# ECMP CPU / D-mod-K CPU at each scale (target: 1.5x or less).
#
# Each run's user CPU comes from the kernel's accounting of the child; each
# is repeated REPEAT times (default 3) and the least kept, since on a shared
# machine a single slow start moves a short run by tens of percent. Besides
# the CPU time it prints what sets it: events, rate recomputations (of them
# full passes over every flow in flight), the path walks those recomputations
# made per flow of the run (engine_stats.path_walks over flows.count; a full
# pass walks every flow in flight once) and the makespan, so that a change
# in the engine that moved results shows here too.
#
#   bench/flow-ecmp.sh                  dgx-h100:32 and dgx-h100:128, 16 MiB
#   BIG=1 bench/flow-ecmp.sh            also dgx-h100:512 (4,096 GPUs; minutes
#                                       of CPU per run, REPEAT forced to 1)
#   CLUSTERS="dgx-h100:64" SIZE=64M REPEAT=1 bench/flow-ecmp.sh
#
# FABTUNE=path selects another binary (to compare builds in turn).
# Figures: docs/internals/sim.md, "ECMP against D-mod-K at 16 MiB".
set -u
FABTUNE=${FABTUNE:-build/cli/fabtune}
cd "$(dirname "$0")/.." || exit 1
[ -x "$FABTUNE" ] || { echo "build fabtune first (ninja -C build)"; exit 1; }

read -r -a clusters <<<"${CLUSTERS:-dgx-h100:32 dgx-h100:128}"
big=""
[ "${BIG:-0}" = 1 ] && big="dgx-h100:512"
exec python3 - "$FABTUNE" "${SIZE:-16M}" "${REPEAT:-3}" "$big" "${clusters[@]}" <<'PY'
import json, resource, subprocess, sys

fabtune, size, repeat, big = sys.argv[1], sys.argv[2], max(int(sys.argv[3]), 1), sys.argv[4]
cases = [(c, repeat) for c in sys.argv[5:]] + ([(big, 1)] if big else [])

def run_once(cluster, routing):
    """User CPU seconds and the JSON of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    out = subprocess.run([fabtune, "sim", cluster, "--op", "alltoall", "-b", size, "-e", size,
                          "--algo", "direct", "--routing", routing, "--json"],
                         capture_output=True, text=True)
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
    if out.returncode != 0:
        sys.exit(f"fabtune sim {cluster} --routing {routing} failed: {out.stderr.strip()}")
    return max(cpu, 1e-3), json.loads(out.stdout)

def run(cluster, routing, n):
    """The least CPU of n runs, with the last run's figures."""
    best, d = None, None
    for _ in range(n):
        cpu, d = run_once(cluster, routing)
        best = cpu if best is None else min(best, cpu)
    st = d["engine_stats"]
    walks = st["path_walks"] / max(d["flows"]["count"], 1)
    return (best, st["events"], st["rate_recomputations"], st["full_recomputations"], walks,
            d["makespan_us"])

print(f"{'cluster':14} {'routing':7} {'cpu(s)':>8} {'events':>9} {'recomp':>7} {'full':>6} "
      f"{'walks/flow':>10} {'makespan(us)':>13}")
worst = 0.0
for c, n in cases:
    row = {}
    for r in ("dmodk", "ecmp"):
        row[r] = run(c, r, n)
        cpu, ev, rc, fu, wk, mk = row[r]
        print(f"{c:14} {r:7} {cpu:8.3f} {ev:9d} {rc:7d} {fu:6d} {wk:10.2f} {mk:13.3f}")
    ratio = row["ecmp"][0] / row["dmodk"][0]
    worst = max(worst, ratio)
    print(f"{c:14} ecmp/dmodk cpu {ratio:.2f}x")
print(f"worst ecmp/dmodk {worst:.2f}x (target 1.50x: {'met' if worst <= 1.5 else 'not met'})")
PY

#!/usr/bin/env bash
# bench/flow-ecmp.sh - the flow engine's CPU cost of ECMP against D-mod-K on
# the flat all-to-all (`fabtune sim dgx-h100:N --op alltoall -b SIZE -e SIZE
# --algo direct --routing ecmp|dmodk --json`), the figure being the ratio
# ECMP CPU / D-mod-K CPU at each scale (target: 1.5x or less).
#
# Each run's user CPU comes from the kernel's accounting of the child. Each
# case runs REPEAT times (default 3), the routings (and, with FABTUNE_B, the
# two binaries) in turn within each round, so that the machine's load falls
# on all of them alike; the median of each is printed with the least and
# the most, and the ratio of the medians. Besides the CPU time it prints
# what sets it: events, rate recomputations (of them full passes over every
# flow in flight), the path walks those recomputations made per flow of the
# run (engine_stats.path_walks over flows.count; a full pass walks every
# flow in flight once) and the makespan, so that a change in the engine
# that moved results shows here too. The load average is printed before
# and after.
#
#   bench/flow-ecmp.sh                  dgx-h100:32 and dgx-h100:128, 16 MiB
#   BIG=1 bench/flow-ecmp.sh            also dgx-h100:512 (4,096 GPUs; minutes
#                                       of CPU per run, REPEAT forced to 1,
#                                       each run stopped after BIG_TIMEOUT
#                                       seconds of wall time, default 1800,
#                                       and shown as not ended)
#   ROCE=1 bench/flow-ecmp.sh           each cluster also with RoCE NICs and
#                                       fabric (the preset's nodes and
#                                       default fabric, link roce400: a spec
#                                       written to a scratch directory),
#                                       where ECMP hashes every QP (its UDP
#                                       source port, kb ROCE-WIRE) and
#                                       InfiniBand forwards by destination
#                                       LID (kb IB-SM): the rows "... roce"
#   CLUSTERS="dgx-h100:64" SIZE=64M REPEAT=1 bench/flow-ecmp.sh
#   FABTUNE_B=old/fabtune REPEAT=5 bench/flow-ecmp.sh
#                                       two builds alternated: each one's
#                                       ratio, B's CPU over A's, and whether
#                                       their JSON is the same (less wall_s
#                                       and peak_rss_bytes)
#
# FABTUNE=path selects the binary (A). Figures: docs/internals/sim.md,
# "ECMP against D-mod-K at 16 MiB".
set -u
FABTUNE=${FABTUNE:-build/cli/fabtune}
cd "$(dirname "$0")/.." || exit 1
[ -x "$FABTUNE" ] || { echo "build fabtune first (ninja -C build)"; exit 1; }

read -r -a clusters <<<"${CLUSTERS:-dgx-h100:32 dgx-h100:128}"
big=""
[ "${BIG:-0}" = 1 ] && big="dgx-h100:512"
exec python3 - "$FABTUNE" "${FABTUNE_B:-}" "${SIZE:-16M}" "${REPEAT:-3}" "$big" \
	"${ROCE:-0}" "${BIG_TIMEOUT:-1800}" "${clusters[@]}" <<'PY'
import json, os, resource, statistics, subprocess, sys, tempfile

fab_a, fab_b, size, repeat, big = (sys.argv[1], sys.argv[2], sys.argv[3],
                                   max(int(sys.argv[4]), 1), sys.argv[5])
roce, big_timeout = sys.argv[6] == "1", float(sys.argv[7])
scratch = tempfile.TemporaryDirectory(prefix="flow-ecmp-")

def roce_twin(cluster):
    """A spec of the same nodes and default fabric with RoCE NICs and links."""
    preset, _, count = cluster.partition(":")
    path = os.path.join(scratch.name, f"{preset}-{count}-roce.yaml")
    with open(path, "w") as f:
        f.write(f"name: {preset}-{count}-roce\nnodes:\n  preset: {preset}\n"
                f"  count: {count}\n  nics: {{ link: roce400 }}\n")
    return path

# (label, what fabtune sim is given, rounds, wall-time limit or None)
plain = [(c, repeat, None) for c in sys.argv[8:]] + ([(big, 1, big_timeout)] if big else [])
cases = []
for c, n, limit in plain:
    cases.append((c, c, n, limit))
    if roce:
        cases.append((c + " roce", roce_twin(c), n, limit))
bins = [("A", fab_a)] + ([("B", fab_b)] if fab_b else [])
if fab_b and not os.access(fab_b, os.X_OK):
    sys.exit(f"FABTUNE_B={fab_b}: not an executable")

def run_once(fabtune, cluster, routing, limit):
    """User CPU seconds and the JSON of one run (None: stopped after @limit s of wall time)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    try:
        out = subprocess.run([fabtune, "sim", cluster, "--op", "alltoall", "-b", size, "-e",
                              size, "--algo", "direct", "--routing", routing, "--json"],
                             capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before, None
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
    if out.returncode != 0:
        sys.exit(f"{fabtune} sim {cluster} --routing {routing} failed: {out.stderr.strip()}")
    return max(cpu, 1e-3), out.stdout

def figures(text):
    """The JSON less what differs from run to run (wall time, peak memory)."""
    def strip(v):
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items() if k not in ("wall_s", "peak_rss_bytes")}
        return [strip(x) for x in v] if isinstance(v, list) else v
    return strip(json.loads(text))

def load():
    return "%.1f" % os.getloadavg()[0]

print(f"load average {load()} before; {repeat} round(s) a case, in turn: "
      + ", ".join(f"{b} {r}" for b, _ in bins for r in ("dmodk", "ecmp")))
print(f"{'cluster':19} {'bin':3} {'routing':7} {'cpu median':>10} {'least':>7} {'most':>7} "
      f"{'events':>9} {'recomp':>7} {'full':>6} {'walks/flow':>10} {'makespan(us)':>13}")
worst = 0.0
for c, arg, n, limit in cases:
    cpu = {(b, r): [] for b, _ in bins for r in ("dmodk", "ecmp")}
    out = {}
    for _ in range(n):
        for b, fab in bins:
            for r in ("dmodk", "ecmp"):
                t, out[(b, r)] = run_once(fab, arg, r, limit)
                cpu[(b, r)].append(t)
    med = {k: statistics.median(v) for k, v in cpu.items()}
    for b, _ in bins:
        for r in ("dmodk", "ecmp"):
            if out[(b, r)] is None:
                print(f"{c:19} {b:3} {r:7} {med[(b, r)]:10.3f} did not end in {limit:.0f} s "
                      f"of wall time")
                continue
            d = json.loads(out[(b, r)])
            st = d["engine_stats"]
            walks = st["path_walks"] / max(d["flows"]["count"], 1)
            print(f"{c:19} {b:3} {r:7} {med[(b, r)]:10.3f} {min(cpu[(b, r)]):7.3f} "
                  f"{max(cpu[(b, r)]):7.3f} {st['events']:9d} {st['rate_recomputations']:7d} "
                  f"{st['full_recomputations']:6d} {walks:10.2f} {d['makespan_us']:13.3f}")
        ratio = med[(b, "ecmp")] / med[(b, "dmodk")]
        if out[(b, "dmodk")] is None:
            if b == "A":
                worst = float("inf")  # (no ratio: the target is not met)
            print(f"{c:19} {b:3} ecmp/dmodk cpu: none (D-mod-K did not end)")
            continue
        ended = out[(b, "ecmp")] is not None
        if b == "A":
            worst = max(worst, ratio if ended else float("inf"))
        print(f"{c:19} {b:3} ecmp/dmodk cpu {'' if ended else 'at least '}{ratio:.2f}x (medians)"
              + ("" if ended else ": ECMP did not end"))
    if fab_b:
        for r in ("dmodk", "ecmp"):
            if out[("A", r)] is None or out[("B", r)] is None:
                same = "a run did not end"
            elif figures(out[("A", r)]) == figures(out[("B", r)]):
                same = "same JSON"
            else:
                same = "JSON DIFFERS"
            print(f"{c:19} B/A {r:7} cpu {med[('B', r)] / med[('A', r)]:.2f}x ({same})")
print(f"load average {load()} after")
print(f"worst ecmp/dmodk (A) " + (f"{worst:.2f}x" if worst < float("inf") else "none (a run did not end)")
      + f" (target 1.50x: {'met' if worst <= 1.5 else 'not met'})")
PY

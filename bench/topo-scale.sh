#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/topo-scale.sh - how topology building grows with the cluster.
#
# Builds rail-optimized 3-tier fat-trees of DGX H100 nodes (8 GPUs, 8 NDR
# NICs each) for 1k, 4k, 16k, 32k and 100k GPUs with `fabtune topo --json`
# and prints, per size, the build time the command reports, the wall time of
# the whole command (best of three runs), the child's peak resident memory, the graph's own
# memory, and the growth against the 1k-GPU run of the same sweep (the peer):
# per-GPU cost relative to 1k, 1.00 meaning exactly linear.
# Radix-64 switches hold at most 65,536 NIC ports in 3 tiers, so the 100k
# point uses radix 128 (and so does its own 1k reference, printed too).
#
# usage: bench/topo-scale.sh [path/to/fabtune]     (default: build/cli/fabtune)
set -eu
FABTUNE=${1:-build/cli/fabtune}
[ -x "$FABTUNE" ] || { echo "topo-scale: no fabtune at $FABTUNE (build first)" >&2; exit 2; }
exec python3 - "$FABTUNE" <<'PY'
import json, os, subprocess, sys, tempfile, time

fabtune = sys.argv[1]
SPEC = """name: scale-{gpus}
nodes:
  preset: dgx-h100
  count: {nodes}
fabric:
  kind: rail-fat-tree
  link: ndr
  tiers: 3
  radix: {radix}
  routing: ecmp
"""

def run(nodes, radix, tmp):
    path = os.path.join(tmp, "scale-%d-%d.yaml" % (nodes, radix))
    with open(path, "w") as f:
        f.write(SPEC.format(gpus=nodes * 8, nodes=nodes, radix=radix))
    t0 = time.monotonic()
    p = subprocess.Popen([fabtune, "topo", path, "--json"], stdout=subprocess.PIPE,
                         env=dict(os.environ, FABTUNE_TEST_STABLE="0"))
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    if status != 0:
        sys.exit("topo-scale: fabtune topo failed for %d nodes" % nodes)
    j = json.loads(out)
    return {"gpus": j["gpus"], "radix": radix, "build_s": j["build_s"], "wall_s": wall,
            "rss_MiB": ru.ru_maxrss / 1024.0, "graph_MiB": j["memory_bytes"] / 2**20,
            "links": j["nlinks"]}

rows = []
with tempfile.TemporaryDirectory() as tmp:
    for nodes, radix in ((128, 64), (512, 64), (2048, 64), (4096, 64), (128, 128), (12500, 128)):
        # Best of three: small builds take milliseconds and the noise of one run.
        runs = [run(nodes, radix, tmp) for _ in range(3)]
        best = min(runs, key=lambda r: r["build_s"])
        best["rss_MiB"] = max(r["rss_MiB"] for r in runs)
        rows.append(best)

print("%8s %5s %9s %9s %9s %10s %9s %12s %12s" % ("gpus", "radix", "links", "build_s",
      "wall_s", "peak_MiB", "graph_MiB", "time/gpu_x", "graph/gpu_x"))
ref = {}
for r in rows:
    base = ref.setdefault(r["radix"], r)
    scale = r["gpus"] / base["gpus"]
    tg = (r["build_s"] / base["build_s"]) / scale if base["build_s"] > 0 else float("nan")
    mg = (r["graph_MiB"] / base["graph_MiB"]) / scale
    print("%8d %5d %9d %9.3f %9.3f %10.1f %9.1f %12.2f %12.2f" % (r["gpus"], r["radix"],
          r["links"], r["build_s"], r["wall_s"], r["rss_MiB"], r["graph_MiB"], tg, mg))
print("time/gpu_x and graph/gpu_x: per-GPU build time and graph memory relative to the "
      "1k-GPU run of the same radix (1.00 = linear growth)")
PY

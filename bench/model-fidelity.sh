#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/model-fidelity.sh - how close the analytic model comes to published
# nccl-tests measurements, by size band.
#
# Every nccl-tests output under tests/fixtures/nccl-tests/ whose cluster a
# shipped preset describes (the table below) is parsed with `fabtune parse`;
# the model is run uncalibrated on the same operation, ranks and sizes, once
# as NCCL's own cost model (`--tuner-only`, the peer measured in the same
# run) and once with the pipeline terms (docs/internals/model.md, "The
# pipeline"). It prints, per file and over all files, the median absolute
# error of the out-of-place time in three bands (<= 1 MiB, 2-128 MiB,
# >= 256 MiB) before and after, and the ratio after / before.
#
# usage: bench/model-fidelity.sh [path/to/fabtune]   (default: build/cli/fabtune)
set -eu
FABTUNE=${1:-build/cli/fabtune}
[ -x "$FABTUNE" ] || { echo "model-fidelity: no fabtune at $FABTUNE (build first)" >&2; exit 2; }
exec python3 - "$FABTUNE" <<'PY'
import json, statistics, subprocess, sys

fabtune = sys.argv[1]
# file (under tests/fixtures/nccl-tests/) -> the preset that describes its cluster
FILES = [
    # 2 x 8 H100 SXM, 8 x ConnectX-7 400G InfiniBand per node (NVIDIA/nccl-tests #309)
    ("h100-2node-16gpu-all-reduce-same-cluster-baseline.txt", "dgx-h100:2"),
    # Dell XE9680: 2 x 8 H100 SXM, 8 x ConnectX-7 400G InfiniBand per node (same issue)
    ("dell-xe9680-2x8-h100-cx7-ib400-all-reduce-mpi-xpmem-warn.txt", "dgx-h100:2"),
]
BANDS = [("<= 1 MiB", 0, 1 << 20), ("2-128 MiB", (1 << 20) + 1, 128 << 20),
         (">= 256 MiB", 256 << 20, 1 << 62)]

def run(args):
    return json.loads(subprocess.run([fabtune] + args, check=True,
                                     stdout=subprocess.PIPE).stdout)

def model(spec, op, sizes, tuner_only):
    out = {}
    for b in sizes:
        args = ["model", spec, "--op", op, "-b", str(b), "-e", str(b), "--json"]
        if tuner_only:
            args.append("--tuner-only")
        out[b] = run(args)["rows"][0]["time_us"]
    return out

def medians(rows, before, after):
    res = []
    for name, lo, hi in BANDS:
        sel = [r for r in rows if lo <= r["bytes"] <= hi and r["time_us"] > 0]
        if not sel:
            res.append((name, 0, None, None))
            continue
        eb = statistics.median(abs(before[r["bytes"]] / r["time_us"] - 1) for r in sel)
        ea = statistics.median(abs(after[r["bytes"]] / r["time_us"] - 1) for r in sel)
        res.append((name, len(sel), eb, ea))
    return res

def show(label, res):
    print(label)
    for name, n, eb, ea in res:
        if n == 0:
            print("  %-11s %3d sizes" % (name, 0))
            continue
        print("  %-11s %3d sizes  median |error| tuner-only %5.1f%%  with pipeline %5.1f%%  "
              "ratio %.2f" % (name, n, 100 * eb, 100 * ea, ea / eb if eb > 0 else float("nan")))

all_rows, all_before, all_after = [], {}, {}
print("# model fidelity: out-of-place time against published nccl-tests outputs")
for i, (f, spec) in enumerate(FILES):
    path = "tests/fixtures/nccl-tests/" + f
    rows = run(["parse", path, "--json"])["files"][0]["rows"]
    rows = [r for r in rows if r.get("time_us", 0) > 0]
    op = rows[0]["test"]
    sizes = sorted({r["bytes"] for r in rows})
    before = model(spec, op, sizes, True)
    after = model(spec, op, sizes, False)
    show("%s (%s, %s, %d ranks)" % (f, spec, op, rows[0]["nranks"]),
         medians(rows, before, after))
    for r in rows:
        key = (i, r["bytes"])
        all_rows.append(dict(r, bytes=key))
        all_before[key] = before[r["bytes"]]
        all_after[key] = after[r["bytes"]]

def medians_all():
    res = []
    for name, lo, hi in BANDS:
        sel = [r for r in all_rows if lo <= r["bytes"][1] <= hi]
        if not sel:
            res.append((name, 0, None, None))
            continue
        eb = statistics.median(abs(all_before[r["bytes"]] / r["time_us"] - 1) for r in sel)
        ea = statistics.median(abs(all_after[r["bytes"]] / r["time_us"] - 1) for r in sel)
        res.append((name, len(sel), eb, ea))
    return res

show("all files", medians_all())
PY

#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/model-fidelity.sh - how close the analytic model comes to published
# NCCL measurements, by size band.
#
# Every curve of the table below is a published measurement: an nccl-tests
# output under tests/fixtures/nccl-tests/ (parsed with `fabtune parse`) or a
# vendor page's table of figures under tests/fixtures/nccl-tests/published/
# (a CSV whose header names its source). Each comes with the spec that
# describes its cluster (a preset, or a spec under examples/) and the NCCL
# release it ran where the source gives it. The model is run uncalibrated on
# the same operation, ranks and sizes, once as NCCL's own cost model
# (`--tuner-only`, the peer measured in the same run) and once with the
# pipeline terms (docs/internals/model.md, "The pipeline"). It prints, per
# curve and over all curves, the median absolute error of the time in three
# bands (<= 1 MiB, 2-128 MiB, >= 256 MiB) before and after, the ratio
# after / before, and the median signed error after (negative: the model is
# faster than the measurement), per band and curve how many sizes miss
# the band's target on either side, and per cluster class (CLASSES: the
# hardware and transport a curve runs on) and band the sizes within target
# and the median |error| and signed error with the pipeline. For the
# nccl-tests outputs it also runs the calibrated leave-one-out check
# (`fabtune model SPEC --calibrate FILE`) and prints its median per curve;
# with --check, a curve whose check cannot be computed fails.
#
# usage: bench/model-fidelity.sh [--check | --points | --band N] [path/to/fabtune]
#        (default: build/cli/fabtune)
#   --check   exit 1 unless the bounds of the fidelity test hold (the
#             `model-fidelity` test runs this; docs/internals/model.md,
#             "Fidelity against published measurements")
#   --points  also print every size of every curve: measured and modelled
#             time and the signed error, tuner only and with the pipeline
#   --band N  also print every size of band N (1: <= 1 MiB, 2: 2-128 MiB,
#             3: >= 256 MiB) over all curves, sorted by the signed error with
#             the pipeline: the curve, the size, the measured and modelled
#             time and busbw, the model's pick (algorithm, protocol) and what
#             binds it (the bottleneck column), and whether it is within the
#             band's target
set -eu
CHECK=0
POINTS=0
BAND=0
case "${1:-}" in
--check) CHECK=1; shift ;;
--points) POINTS=1; shift ;;
--band)
    case "${2:-}" in
    1|2|3) BAND=$2; shift 2 ;;
    *) echo "model-fidelity: --band takes 1, 2 or 3, not '${2:-}'" >&2; exit 2 ;;
    esac ;;
esac
FABTUNE=${1:-build/cli/fabtune}
[ -x "$FABTUNE" ] || { echo "model-fidelity: no fabtune at $FABTUNE (build first)" >&2; exit 2; }
exec python3 - "$FABTUNE" "$CHECK" "$POINTS" "$BAND" <<'PY'
import json, statistics, subprocess, sys

fabtune, check, points = sys.argv[1], sys.argv[2] == "1", sys.argv[3] == "1"
bandsel = int(sys.argv[4])
FIX = "tests/fixtures/nccl-tests/"
# name, file (under tests/fixtures/nccl-tests/), spec, extra model arguments.
# The sources and what each spec rests on: docs/internals/model-log.md,
# "Fidelity against published measurements".
CURVES = [
    ("h100-ib-2x8", "h100-2node-16gpu-all-reduce-same-cluster-baseline.txt",
     "dgx-h100:2", []),
    ("xe9680-ib-2x8", "dell-xe9680-2x8-h100-cx7-ib400-all-reduce-mpi-xpmem-warn.txt",
     "dgx-h100:2", []),
    ("a3mega-tcpxo-2x8", "gcp-a3-mega-2x8-h100-tcpxo-all-reduce.txt",
     "gcp-a3-mega:2", []),
    ("h20-ib-2x8-nvlstree", "h20-2x8-ndr-nvlstree-all-reduce-nccl2.21-small-excerpt.txt",
     "hgx-h200:2", ["--algo", "nvls_tree", "--nccl", "2.21", "--gpus", "16"]),
    ("h20-vm-2x2-alltoall", "h20-vm-2node-alltoall-vendor-plugin-50gbs-excerpt.txt",
     "hgx-h200:2", ["--ppn", "2"]),
    ("a100-hdr-3x8-4nic", "published/dgx-a100-3x8-hdr-4nic-all-reduce-128m-excerpt.csv",
     "examples/dgx-a100-4nic.yaml", []),
    ("azure-h200-1x8", "published/azure-nd-h200-v5-1x8-all-reduce-busbw.csv",
     "hgx-h200", ["--nccl", "2.20", "--algo", "nvls", "--gpus-per-thread", "8"]),
    ("azure-a100-1x8", "published/azure-nd-a100-v4-1x8-all-reduce-busbw.csv",
     "dgx-a100", ["--nccl", "2.18", "--gpus-per-thread", "8"]),
    ("azure-gb200-1x4", "published/azure-nd-gb200-v6-1x4-all-reduce-busbw.csv",
     "gb200-nvl72", ["--nccl", "2.25", "--algo", "ring", "--gpus-per-thread", "4"]),
    # The one-rack table was first published on 2025-02-20 (coreweave/nccl-tests
    # pull request 43), before NCCL 2.26.2 was tagged (2025-03-12), with the job
    # of that day: the 2.25.1 image and NCCL_NVLS_ENABLE=1. The twenty-rack
    # table came with the job of 2025-04-21 (pull request 48): 2.26.2,
    # NCCL_NVLS_ENABLE=0, NCCL_NET_GDR_C2C=1.
    ("gb200-nvl72-1rack", "coreweave-gb200-nvl72-1rack-72gpu-all-reduce-excerpt.txt",
     "gb200-nvl72:18", ["--nccl", "2.25", "--gpus", "72"]),
    ("gb200-nvl64-2rack", "coreweave-gb200-nvl72-2rack-128gpu-all-reduce-excerpt.txt",
     "examples/gb200-nvl64x2.yaml", ["--nccl", "2.26", "--no-nvls", "--gpus", "128"]),
    ("gb200-nvl72-20rack", "coreweave-gb200-nvl72-20rack-1440gpu-all-reduce-excerpt.txt",
     "gb200-nvl72:360", ["--nccl", "2.26", "--no-nvls", "--gpus", "1440"]),
]
# AWS p5.48xlarge over EFA, 2 to 32 instances (16 to 256 ranks): one table per
# operation, the rows of each scale a curve. The source sets NCCL_TUNER_PLUGIN
# to aws-ofi-nccl's tuner, NCCL_BUFFSIZE=8388608 and NCCL_P2P_NET_CHUNKSIZE=524288.
EFA_CURVES = [("p5-efa-%s-%dx8" % (short, nodes),
               "published/aws-p5-efa-2to32x8-%s-algbw.csv@%d" % (op, 8 * nodes),
               "aws-p5:%d" % nodes, ["--nccl", "2.27", "--tuner-plugin", "aws-ofi-nccl"])
              for op, short in (("all-reduce", "ar"), ("all-gather", "ag"),
                                ("alltoall", "a2a"))
              for nodes in (2, 4, 8, 16, 32)]
# Azure NDm A100 v4 (8 x HDR InfiniBand a VM), NCCL 2.17.1 (2.18's constants
# stand in), nccl-tests -G 1: a latency at 1 KiB and busbw at 1 and 4 GiB for
# three operations at three scales.
NDMV4 = "published/azure-ndmv4-%s-a100-nccl2.17-latency-busbw.csv@%s"
NDMV4_CURVES = [("ndmv4-%s-%s" % (sc, short), NDMV4 % (sc, op), spec,
                 ["--nccl", "2.18", "--cuda-graph"] + more)
                for sc, spec, more in (("1x8", "dgx-a100", []), ("2x1", "dgx-a100:2", ["--ppn", "1"]),
                                       ("2x8", "dgx-a100:2", []))
                for op, short in (("all_gather", "ag"), ("all_reduce", "ar"), ("alltoall", "a2a"))]
# Added 2026-12-03, after the model's terms above were set: public curves it
# was never tuned on, the nearest stand-in for a held-out set. No bound holds
# them (--check prints their medians and leave-one-out figures only); the
# sources and what each spec rests on: docs/internals/model-log.md, "Curves added
# 2026-12-03". The CoreWeave job forces NCCL_ALGO=COLLNETCHAIN: --algo collnet_chain.
ADDED_CURVES = [
    ("azure-h100-1x8", "published/azure-nd-h100-v5-1x8-all-reduce-busbw.csv",
     "dgx-h100", ["--nccl", "2.18", "--algo", "nvls", "--gpus-per-thread", "8"]),
    ("oci-h200-roce-2x8", "oci-h200-2x8-roce-all-reduce-nccl2.27.txt",
     "examples/oci-h200-roce.yaml", ["--nccl", "2.27"]),
    # The job file names 64 GPUs; the log's rows are of 96 ranks (busbw / algbw =
    # 2 x 95 / 96 on every row), 12 nodes of 8: the model runs the rows' count.
    ("coreweave-h100-sharp-12x8", "coreweave-h100-8x8-all-reduce-collnetchain-excerpt.txt",
     "examples/dgx-h100-sharp.yaml", ["--nccl", "2.18", "--algo", "collnet_chain", "--nodes", "12"]),
    ("a100-1x8-sendrecv", "a100-1x8-sendrecv-g8-128m-1g.txt",
     "dgx-a100", ["--gpus-per-thread", "8"]),
    ("h100-roce-2x1-tree", "../wild/nccl-tests/h100-2node-1gpu-4nic-tree-prompt-then-banner-cut.txt",
     "examples/hgx-h100-roce-2node.yaml", ["--ppn", "1", "--algo", "tree"]),
]
# The sets whose medians --check bounds: BOUND_ALL was set on the first
# twelve curves and stays on them; the later sets have their own.
SETS = [("first twelve curves", {c[0] for c in CURVES}),
        ("EFA curves", {c[0] for c in EFA_CURVES}),
        ("NDmv4 points", {c[0] for c in NDMV4_CURVES}),
        ("added 2026-12-03", {c[0] for c in ADDED_CURVES})]
UNBOUNDED = SETS[-1][1]
CURVES += EFA_CURVES + NDMV4_CURVES + ADDED_CURVES
# Every curve's cluster class: the hardware and transport it runs on, and for
# the EFA tables the operation (their three sets share nothing but the NICs).
# The summary prints each class's sizes within target and medians per band,
# so a rule for a class can be weighed on all of it and on no other.
CLASSES = [
    ("H100/H200 on IB, RoCE, TCPXO, SHARP; NVLS", {
        "h100-ib-2x8", "xe9680-ib-2x8", "a3mega-tcpxo-2x8", "h20-ib-2x8-nvlstree",
        "azure-h200-1x8", "azure-h100-1x8", "oci-h200-roce-2x8",
        "coreweave-h100-sharp-12x8", "h100-roce-2x1-tree"}),
    ("AWS p5 EFA all-reduce", {c[0] for c in EFA_CURVES if "-ar-" in c[0]}),
    ("AWS p5 EFA all-gather", {c[0] for c in EFA_CURVES if "-ag-" in c[0]}),
    ("AWS p5 EFA all-to-all", {c[0] for c in EFA_CURVES if "-a2a-" in c[0]}),
    ("GB200 NVL72 (NVLink 5)", {"azure-gb200-1x4", "gb200-nvl72-1rack",
                                "gb200-nvl64-2rack", "gb200-nvl72-20rack"}),
    ("A100 on one node's NVLink", {"azure-a100-1x8", "ndmv4-1x8-ag", "ndmv4-1x8-ar",
                                   "ndmv4-1x8-a2a", "a100-1x8-sendrecv"}),
    ("A100 across nodes on HDR", {"a100-hdr-3x8-4nic", "ndmv4-2x1-ag", "ndmv4-2x1-ar",
                                  "ndmv4-2x1-a2a", "ndmv4-2x8-ag", "ndmv4-2x8-ar",
                                  "ndmv4-2x8-a2a"}),
    ("H20 VMs, vendor plugin", {"h20-vm-2x2-alltoall"}),
]
_classless = {c[0] for c in CURVES} - set().union(*(m for _, m in CLASSES))
assert not _classless, "model-fidelity: curves without a class: %s" % sorted(_classless)
BANDS = [("<= 1 MiB", 0, 1 << 20), ("2-128 MiB", (1 << 20) + 1, 128 << 20),
         (">= 256 MiB", 256 << 20, 1 << 62)]
# --check: loose bounds on the median |error| with the pipeline, each of
# which fails when one of the model's terms is dropped (the figures without
# it in the comment), and the calibrated leave-one-out median of every
# nccl-tests curve (5%).
BOUND_ALL = {"<= 1 MiB": 0.22, "2-128 MiB": 0.20, ">= 256 MiB": 0.15}  # tuner only: 26%, 26%
BOUND_SET = {"first twelve curves": BOUND_ALL,
             # tuner only: 15%, 13%; without the plugin's reported latency
             # (nics.net_latency of aws-p5): 44%, 15.5%
             "EFA curves": {"2-128 MiB": 0.20, ">= 256 MiB": 0.16},
             # tuner only: 23%, 6.5%. At <= 1 MiB the set's median is 22.8%
             # since the network post overhead stays on NCCL's rings (the
             # 2 x 8 tree all-reduce at 1 KiB -11.7 -> -27.4%): the bound
             # holds that figure, no longer a pipeline term's.
             "NDmv4 points": {"<= 1 MiB": 0.24, ">= 256 MiB": 0.09},
             "added 2026-12-03": {}}
BOUND_CURVE = {
    ("h100-ib-2x8", "2-128 MiB"): 0.08,      # the pipeline's ramp: 26% without
    ("xe9680-ib-2x8", "2-128 MiB"): 0.08,    # 23% without
    ("azure-h200-1x8", "<= 1 MiB"): 0.15,    # launches of nccl-tests -g 8: 34% without
    ("azure-h200-1x8", "2-128 MiB"): 0.08,   # one-node NVLS in three stages: 13% with two
    ("azure-gb200-1x4", "<= 1 MiB"): 0.25,   # -g 4: 33% without
    ("azure-a100-1x8", "2-128 MiB"): 0.26,   # 2.18's ring LL128 blocks: 28.1% without
    ("a3mega-tcpxo-2x8", "<= 1 MiB"): 0.35,  # Simple only over TCPX/O: 74% without
    ("a3mega-tcpxo-2x8", "2-128 MiB"): 0.58, # the tree's hops at their own rates: 63% without
    ("p5-efa-ar-8x8", "2-128 MiB"): 0.25,    # aws-ofi-nccl's reported latency: 53% without
    ("p5-efa-ag-32x8", "2-128 MiB"): 0.20,   # 43% without
    ("p5-efa-a2a-8x8", ">= 256 MiB"): 0.13,  # EFA's achieved rate (PS-EFA-RATE): 14.5% without
}
BOUND_LOO = 0.05
# The targets on the held-out published set, per band: the summary counts the sizes within
# each and how many the median needs (more than half).
TARGET = {"<= 1 MiB": 0.20, "2-128 MiB": 0.15, ">= 256 MiB": 0.03}

def run(args):
    return json.loads(subprocess.run([fabtune] + args, check=True,
                                     stdout=subprocess.PIPE).stdout)

# nccl-tests' bus bandwidth factors (doc/PERFORMANCE.md): busbw = algbw x factor(n)
BUSBW_FACTOR = {"all_reduce": lambda n: 2 * (n - 1) / n,
                "all_gather": lambda n: (n - 1) / n,
                "reduce_scatter": lambda n: (n - 1) / n,
                "alltoall": lambda n: (n - 1) / n}

def read_ops_table(path, op):
    """A page's figures for several operations at one scale: rows "latency_us" or
    "busbw_GBps", bytes, then one column per operation. The @op column as
    {bytes, time_us} rows, with the op and the rank count."""
    meta, out, cols = {}, [], None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("# ranks:"):
                meta["ranks"] = int(line.split(":", 1)[1])
            elif line.startswith("table,bytes,"):
                cols = line.split(",")
            elif cols and line and not line.startswith("#"):
                v = dict(zip(cols, line.split(",")))
                b, x, n = int(v["bytes"]), float(v[op]), meta["ranks"]
                t = x if v["table"] == "latency_us" else b * BUSBW_FACTOR[op](n) / (x * 1e9) * 1e6
                out.append({"bytes": b, "time_us": t})
    return op, meta["ranks"], out

def read_csv(path, gpus=None):
    """Rows {bytes, time_us} of a published table, and its op and rank count.
    A table of several scales (a header "Nodes,GPUs,size(MB),...", sizes in
    MiB as nccl-tests' -b 32M) gives the rows of @gpus ranks."""
    meta, rows, wide = {}, [], False
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("# ") and ":" in line and line[2:].split(":")[0] in (
                    "ranks", "op", "column"):
                k, v = line[2:].split(":", 1)
                meta[k] = v.strip()
            elif line.startswith("Nodes,GPUs,size(MB)"):
                wide = True
                col = [c.strip() for c in line.split(",")].index(meta["column"])
            elif wide and line:
                v = [c.strip() for c in line.split(",")]
                if int(v[1]) == gpus:
                    rows.append((int(v[2]) << 20, float(v[col])))
            elif line and not line.startswith("#") and not line.startswith("bytes"):
                b, v = line.split(",")
                rows.append((int(b), float(v)))
    n = gpus if wide else int(meta["ranks"])
    out = []
    for b, v in rows:
        if meta["column"].startswith("out algbw"):
            # nccl-tests: algbw = size / time, whatever the operation
            out.append({"bytes": b, "time_us": b / (v * 1e9) * 1e6})
        elif meta["column"].endswith("busbw"):
            # nccl-tests: busbw = algbw x 2(n-1)/n for all_reduce; two significant digits at least
            if v < 0.10:
                continue
            out.append({"bytes": b, "time_us": b * 2 * (n - 1) / n / (v * 1e9) * 1e6})
        else:
            out.append({"bytes": b, "time_us": v})
    return meta["op"], n, out

def measured(f):
    if ".csv" in f:  # "table.csv@16": the rows of 16 ranks of a table of several scales,
        path, _, sel = f.partition("@")  # "table.csv@alltoall": one operation's column
        if sel and not sel.isdigit():
            return read_ops_table(FIX + path, sel)
        return read_csv(FIX + path, int(sel) if sel else None)
    rows = run(["parse", FIX + f, "--json"])["files"][0]["rows"]
    rows = [r for r in rows if r.get("time_us", 0) > 0]
    return rows[0]["test"], rows[0].get("nranks", 0), rows

def model(spec, op, sizes, extra, tuner_only, picks=None):
    out = {}
    for b in sizes:
        args = ["model", spec, "--op", op, "-b", str(b), "-e", str(b), "--json"] + extra
        if tuner_only:
            args.append("--tuner-only")
        row = run(args)["rows"][0]
        out[b] = row["time_us"]
        if picks is not None:
            picks[b] = row
    return out

def loo(spec, f, extra):
    """The calibrated leave-one-out median of an nccl-tests output (None for a
    published table), or the error that kept it from being computed."""
    if ".csv" in f:
        return None, None
    args = ["model", spec, "--calibrate", FIX + f, "--json"] + extra
    p = subprocess.run([fabtune] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode != 0:
        return None, (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
    return json.loads(p.stdout)["curves"][0]["loo_median_err"], None

def band_errs(pts, lo, hi):
    return [p for p in pts if lo <= p[0] <= hi]

def medians(pts):
    res = []
    for name, lo, hi in BANDS:
        sel = band_errs(pts, lo, hi)
        if not sel:
            res.append((name, 0, None, None, None))
            continue
        eb = statistics.median(abs(p[1]) for p in sel)
        ea = statistics.median(abs(p[2]) for p in sel)
        sa = statistics.median(p[2] for p in sel)
        res.append((name, len(sel), eb, ea, sa))
    return res

def show(label, res):
    print(label)
    for name, n, eb, ea, sa in res:
        if n == 0:
            print("  %-11s %3d sizes" % (name, 0))
            continue
        print("  %-11s %3d sizes  median |error| tuner-only %6.1f%%  with pipeline %6.1f%%  "
              "ratio %5.2f  signed %+6.1f%%" % (name, n, 100 * eb, 100 * ea,
                                                ea / eb if eb > 0 else float("nan"), 100 * sa))

allpts, fails, percurve, bandrows = [], [], [], []
print("# model fidelity: time against published NCCL measurements (%d curves)" % len(CURVES))
for name, f, spec, extra in CURVES:
    op, n, rows = measured(f)
    if "--gpus" in extra:  # an excerpt without every rank line: the source's count
        n = int(extra[extra.index("--gpus") + 1])
    sizes = sorted({r["bytes"] for r in rows})
    before = model(spec, op, sizes, extra, True)
    picks = {}
    after = model(spec, op, sizes, extra, False, picks)
    pts = [(r["bytes"], before[r["bytes"]] / r["time_us"] - 1,
            after[r["bytes"]] / r["time_us"] - 1) for r in rows]
    allpts += pts
    percurve.append((name, pts))
    if bandsel:
        _, blo, bhi = BANDS[bandsel - 1]
        bf = BUSBW_FACTOR.get(op, lambda n: 1.0)(n) if n else 1.0
        for r in rows:
            b = r["bytes"]
            if blo <= b <= bhi:
                bandrows.append((after[b] / r["time_us"] - 1, name, op, n, b, r["time_us"],
                                 after[b], b * bf / (r["time_us"] * 1e3),
                                 b * bf / (after[b] * 1e3), picks[b]))
    lo, why = loo(spec, f, extra)
    if why is not None:  # every nccl-tests output gets its figure, bound or not
        fails.append("%s: no leave-one-out figure: %s" % (name, why))
    for band, nb, eb, ea, sa in medians(pts):
        bound = BOUND_CURVE.get((name, band))
        if bound is not None and nb and ea > bound:
            fails.append("%s, %s: median |error| %.1f%% > %.0f%%" % (name, band, 100 * ea,
                                                                   100 * bound))
    show("%s: %s (%s%s, %s, %s ranks)%s" % (
        name, f, spec, "".join(" " + a for a in extra), op, n or "the file's",
        ", calibrated leave-one-out: %s" % why if why is not None else
        "" if lo is None else ", calibrated leave-one-out median %.1f%%" % (100 * lo)),
        medians(pts))
    if points:
        for r in rows:
            b = r["bytes"]
            print("    %12d B  measured %10.1f us  model %10.1f us  signed %+6.1f%%  "
                  "(tuner only %+6.1f%%)" % (b, r["time_us"], after[b],
                                             100 * (after[b] / r["time_us"] - 1),
                                             100 * (before[b] / r["time_us"] - 1)))
    if lo is not None and lo > BOUND_LOO and name not in UNBOUNDED:
        fails.append("%s: leave-one-out median %.1f%% > %.0f%%" % (name, 100 * lo,
                                                                   100 * BOUND_LOO))

if bandsel:
    bname = BANDS[bandsel - 1][0]
    print("%s, every size by signed error with the pipeline (busbw: nccl-tests' factor "
          "for the op; time in us, busbw in GB/s):" % bname)
    print("  %-26s %-14s %5s %12s %11s %11s %8s %8s %8s  %-24s %s" % (
        "curve", "op", "ranks", "bytes", "measured", "model", "signed", "meas bw",
        "model bw", "pick (bottleneck)", "target"))
    for e, cname, op, n, b, tm, ta, bwm, bwa, row in sorted(bandrows, key=lambda x: x[0]):
        print("  %-26s %-14s %5s %12d %11.1f %11.1f %+7.1f%% %8.1f %8.1f  %-24s %s" % (
            cname, op, n or "-", b, tm, ta, 100 * e, bwm, bwa,
            "%s/%s (%s)" % (row.get("algo", "?"), row.get("proto", "?"),
                            row.get("bottleneck", "?")),
            "within" if abs(e) <= TARGET[bname] else "fast" if e < 0 else "slow"))

res = medians(allpts)
show("all curves", res)
for name, lo, hi in BANDS:
    sel = band_errs(allpts, lo, hi)
    print("  %-11s %3d of %3d sizes within the %.0f%% target (the median needs %d)" % (
        name, sum(1 for p in sel if abs(p[2]) <= TARGET[name]), len(sel),
        100 * TARGET[name], len(sel) // 2 + 1))
# Where each band's misses lie: per curve, its sizes outside the target on
# either side (fast: the model's time is below the measurement's).
for name, lo, hi in BANDS:
    print("  %s misses by curve (fast / slow / within):" % name)
    for cname, pts in percurve:
        sel = band_errs(pts, lo, hi)
        if not sel:
            continue
        fast = sum(1 for p in sel if p[2] < -TARGET[name])
        slow = sum(1 for p in sel if p[2] > TARGET[name])
        print("    %-26s %3d / %3d / %3d" % (cname, fast, slow, len(sel) - fast - slow))
# Per class and band: the sizes within the band's target, the median |error|
# and the signed median with the pipeline.
print("  by cluster class (per band: within target / sizes, median |error|, signed):")
for cname, names in CLASSES:
    cells = []
    for name, lo, hi in BANDS:
        sel = band_errs([p for n, pts in percurve if n in names for p in pts], lo, hi)
        if not sel:
            cells.append("%-26s" % "-")
            continue
        cells.append("%-26s" % ("%d/%d %5.1f%% %+6.1f%%" % (
            sum(1 for p in sel if abs(p[2]) <= TARGET[name]), len(sel),
            100 * statistics.median(abs(p[2]) for p in sel),
            100 * statistics.median(p[2] for p in sel))))
    print(("    %-42s %s" % (cname, " ".join(cells))).rstrip())
for sname, names in SETS:
    sres = medians([p for cname, pts in percurve if cname in names for p in pts])
    show(sname, sres)
    for name, n, eb, ea, sa in sres:
        bound = BOUND_SET[sname].get(name)
        if n and bound is not None and ea > bound:
            fails.append("%s, %s: median |error| %.1f%% > %.0f%%" % (
                sname, name, 100 * ea, 100 * bound))
if check:
    for m in fails:
        print("model-fidelity: " + m, file=sys.stderr)
    sys.exit(1 if fails else 0)
PY

#!/bin/sh
# SPDX-License-Identifier: MIT
#
# bench/plan.sh - how fast the training planner answers.
#
# Times, best of three, (1) one analytic plan of GPT-3 175B on 1,024 GPUs
# (dgx-h100:128, TP 8, PP 8), (2) --search over every configuration of
# GPT-3 175B on 4,096 GPUs (dgx-h100:512) and (3) the same search for
# DeepSeek-V3 (EP adds a dimension). The peer, measured in the same run, is
# `fabtune spec` on the same cluster (process start, spec resolution and
# output: the floor any command pays); the ratio says how many of those one
# plan costs. The targets are under 1 s for (1) and under 60 s for (2);
# the last column is the share of the target used.
#
# usage: bench/plan.sh [path/to/fabtune]     (default: build/cli/fabtune)
set -eu
FABTUNE=${1:-build/cli/fabtune}
[ -x "$FABTUNE" ] || { echo "plan: no fabtune at $FABTUNE (build first)" >&2; exit 2; }
exec python3 - "$FABTUNE" <<'PY'
import subprocess, sys, time

fabtune = sys.argv[1]

def best(args):
    t = []
    for _ in range(3):
        t0 = time.monotonic()
        subprocess.run([fabtune] + args, check=True, stdout=subprocess.DEVNULL)
        t.append(time.monotonic() - t0)
    return min(t)

peer = best(["spec", "dgx-h100:512"])
cases = [
    ("plan gpt3-175b, 1024 GPUs", ["plan", "dgx-h100:128", "--model", "gpt3-175b", "--tp", "8",
                                    "--pp", "8", "--batch", "1536"], 1.0),
    ("search gpt3-175b, 4096 GPUs", ["plan", "dgx-h100:512", "--model", "gpt3-175b",
                                      "--search", "--batch", "2048"], 60.0),
    ("search deepseek-v3, 4096 GPUs", ["plan", "dgx-h100:512", "--model", "deepseek-v3",
                                        "--search", "--batch", "4096"], 60.0),
]
print("%-32s %10s %10s %12s %10s" % ("case", "seconds", "peer s", "x peer", "of target"))
for name, args, target in cases:
    s = best(args)
    print("%-32s %10.4f %10.4f %12.2f %9.2f%%" % (name, s, peer, s / peer, 100 * s / target))
PY

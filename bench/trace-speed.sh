#!/usr/bin/env bash
# bench/trace-speed.sh [FABTUNE] [MB] - reading speed of PyTorch profiler
# (Kineto) traces: `fabtune parse --format pytorch-trace --summary` over a
# trace of about MB megabytes (default 50), against Python's json module
# loading the same file and computing the same overlap, as a peer measured
# in the same run. Prints MB/s for both and their ratio.
#
# The input repeats the kernel events of the trace fixtures (corpus headers
# stripped) inside one {"traceEvents": [...]} object, each copy shifted in
# time so that the intervals do not merge, until it is large enough.
set -eu
fabtune=${1:-build/cli/fabtune}
mb=${2:-50}
cd "$(dirname "$0")/.."
[ -x "$fabtune" ] || { echo "trace-speed: $fabtune not built" >&2; exit 2; }
command -v python3 >/dev/null || { echo "trace-speed: python3 is the peer and is missing" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp/trace.json" "$mb" tests/fixtures/pytorch-trace/*.txt <<'PY'
import json, sys
out, mb, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
events = []
for f in files:
    text = open(f).read().split("# ---\n", 1)[1]
    events += json.loads(text)["traceEvents"]
lines = [json.dumps(e) for e in events]
span = max(e["ts"] + e["dur"] for e in events) - min(e["ts"] for e in events) + 1
want, have, copy = mb * 1000000, 0, 0
with open(out, "w") as fp:
    fp.write('{"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": [\n')
    first = True
    while have < want:
        for e in events:
            e2 = dict(e, ts=e["ts"] + copy * span)
            s = json.dumps(e2)
            fp.write(("" if first else ",\n") + s)
            first = False
            have += len(s) + 2
        copy += 1
    fp.write("\n]}\n")
PY

cat >"$tmp/peer.py" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
comm, comp = [], []
for e in d["traceEvents"]:
    if e.get("ph") != "X" or e.get("cat") != "kernel":
        continue
    n = e["name"]
    if n.startswith("Memcpy") or n.startswith("Memset"):
        continue
    (comm if n.startswith("nccl") or "ncclKernel" in n else comp).append((e["ts"], e["ts"] + e["dur"]))
def merge(iv):
    out = []
    for b, e in sorted(iv):
        if out and b <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([b, e])
    return out
a, b = merge(comm), merge(comp)
i = j = 0
both = 0.0
while i < len(a) and j < len(b):
    lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
    if hi > lo:
        both += hi - lo
    if a[i][1] < b[j][1]:
        i += 1
    else:
        j += 1
total = sum(e - b for b, e in a)
print("%.9f" % (both / total))
PY

# CPU seconds (user + system) of the fastest of 3 runs of "$@".
best_of_3() {
	local best="" u s cpu
	for _ in 1 2 3; do
		{ TIMEFORMAT='%3U %3S'; time "$@" >"$tmp/out"; } 2>"$tmp/t"
		read -r u s <"$tmp/t"
		cpu=$(echo "$u + $s" | bc -l)
		if [ -z "$best" ] || [ "$(echo "$cpu < $best" | bc -l)" = 1 ]; then
			best=$cpu
		fi
	done
	echo "$best"
}

bytes=$(stat -c %s "$tmp/trace.json")
"$fabtune" parse --format pytorch-trace "$tmp/trace.json" >"$tmp/ours"
ours=$(awk '/ torch.trace.overlap / { print $(NF - 1) }' "$tmp/ours")
peer=$(python3 "$tmp/peer.py" "$tmp/trace.json")
t=$(best_of_3 "$fabtune" parse --format pytorch-trace --summary "$tmp/trace.json")
tp=$(best_of_3 python3 "$tmp/peer.py" "$tmp/trace.json")
awk -v b="$bytes" -v t="$t" -v tp="$tp" -v o="$ours" -v p="$peer" 'BEGIN {
	if (t <= 0) t = 0.001
	if (tp <= 0) tp = 0.001
	printf "trace: %.1f MB; overlap fabtune %s, python %s\n", b / 1e6, o, p
	printf "fabtune parse: %.3f s CPU, %.0f MB/s\n", t, b / 1e6 / t
	printf "python json + overlap (peer): %.3f s CPU, %.0f MB/s\n", tp, b / 1e6 / tp
	printf "ratio fabtune/peer: %.1fx\n", tp / t
}'

#!/usr/bin/env bash
# bench/save-scale.sh - `fabtune parse --save` of many observations: how its
# time grows, and what saving costs over parsing alone, in one run.
#
# The input is an ibstat capture of N devices (17 observations each; the
# fingerprint gets one key per device). For N and 4N devices it times
# `parse --save` (parse, fingerprint, archive) against `parse` alone (the
# peer, same file, same run) and prints:
#   - save/parse: what the fingerprint and the archive add (no target:
#     printing the table dominates `parse` alone, and the machine is noisy);
#   - growth: time(4N) / time(N) of `parse --save` (target: < 6; a step
#     that is O(n^2), as one sorted insertion per fingerprint key was, gives
#     about 16).
# Usage: bench/save-scale.sh [BUILD-DIR] [N]   (default N = 20000: 340,000
# observations, then 1.36 million)
set -eu
build=${1:-build}
n=${2:-20000}
fabtune=$(cd "$(dirname "$0")/.." && pwd)/$build/cli/fabtune
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen() { # gen DEVICES FILE
	python3 - "$1" "$2" <<'PY'
import sys
n, path = int(sys.argv[1]), sys.argv[2]
with open(path, "w") as f:
    for i in range(n):
        f.write(f"CA 'mlx5_{i}'\n\tCA type: MT4123\n\tNumber of ports: 1\n"
                f"\tFirmware version: 20.31.{i % 1000}\n\tHardware version: 0\n"
                f"\tNode GUID: 0x{i:016x}\n\tSystem image GUID: 0x{i:016x}\n\tPort 1:\n"
                f"\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 200\n"
                f"\t\tBase lid: 3\n\t\tLMC: 0\n\t\tSM lid: 1\n\t\tCapability mask: 0x2651e848\n"
                f"\t\tPort GUID: 0x{i:016x}\n\t\tLink layer: InfiniBand\n")
PY
}
secs() { # secs CMD...: wall seconds
	local t0
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	echo "$(date +%s.%N) - $t0" | bc
}
for k in 1 4; do
	gen $((n * k)) "$tmp/ibstat-$k.txt"
	p=$(secs "$fabtune" parse "$tmp/ibstat-$k.txt")
	s=$(FABTUNE_ARCHIVE="$tmp/a-$k.db" secs "$fabtune" parse --save "$tmp/ibstat-$k.txt")
	eval "save_$k=$s"
	printf '%8d observations: parse %6.2fs  parse --save %6.2fs  save/parse %.2f\n' \
		$((n * k * 17)) "$p" "$s" "$(echo "$s / $p" | bc -l)"
done
printf 'growth of parse --save from %d to %d observations: %.2f (linear: 4, quadratic: 16)\n' \
	$((n * 17)) $((n * 4 * 17)) "$(echo "$save_4 / $save_1" | bc -l)"

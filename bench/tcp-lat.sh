#!/usr/bin/env bash
# bench/tcp-lat.sh - fabtune's tcp ping-pong latency (p50, one way) against
# sockperf ping-pong --tcp (its percentile 50 is also RTT/2), alternating in
# one run, medians of RUNS (5). Target: ratio <= 1.0.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
command -v sockperf >/dev/null || { echo "needs sockperf"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/f"
: >"$tmp/s"
for _ in $(seq "$runs"); do
	port=$((11200 + RANDOM % 500))
	sockperf server --tcp -i 127.0.0.1 -p "$port" >/dev/null 2>&1 &
	srv=$!
	sleep 0.3
	# sockperf colours its output: strip the escape codes before reading it
	sockperf ping-pong --tcp -i 127.0.0.1 -p "$port" -t 2 -m 14 2>&1 |
		sed 's/\x1b\[[0-9;]*m//g' | awk '/percentile 50.000/ { print $NF }' >>"$tmp/s"
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	"$fabtune" bench pt2pt_lat --np 2 -t tcp -b 14 -n 20000 --json 2>/dev/null |
		json_field lat_p50_us >>"$tmp/f"
done
f=$(median <"$tmp/f")
s=$(median <"$tmp/s")
printf "tcp latency p50 (14 B, sockperf's smallest): fabtune %.2f us  sockperf %.2f us  ratio %s\n" "$f" "$s" \
	"$(ratio "$f" "$s")"

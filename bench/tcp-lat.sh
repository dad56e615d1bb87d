#!/usr/bin/env bash
# bench/tcp-lat.sh - fabtune's tcp ping-pong latency (one way, p50 and p99)
# against sockperf ping-pong --tcp (its percentiles are RTT/2 too) at SIZES
# (14 B, sockperf's smallest, and 1 KiB, 16 KiB, 60 KiB), alternating in one
# run (runs alternate which goes first), medians of RUNS (5) and the median
# of per-run ratios. HOG=1 runs one foreign CPU hog during both.
# Targets: p50 ratio <= 1.0; with HOG=1, p99 ratio <= 2.0. FAB_ARGS adds
# options to fabtune's command line (--spin never, --bind core, ...).
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
command -v sockperf >/dev/null || { echo "needs sockperf"; exit 2; }
tmp=$(mktemp -d)
trap 'hog_stop; rm -rf "$tmp"' EXIT
sizes=${SIZES:-14 1024 16384 61440}
sock() { # SIZE RUN
	local port=$((11200 + RANDOM % 500)) srv
	sockperf server --tcp -i 127.0.0.1 -p "$port" >/dev/null 2>&1 &
	srv=$!
	sleep 0.3
	# sockperf colours its output: strip the escape codes before reading it
	sockperf ping-pong --tcp -i 127.0.0.1 -p "$port" -t 2 -m "$1" 2>&1 |
		sed 's/\x1b\[[0-9;]*m//g' >"$tmp/s.$1.$2"
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
}
fab() { # SIZE RUN
	"$fabtune" bench pt2pt_lat --np 2 --transport tcp -b "$1" -n 20000 ${FAB_ARGS:-} --json \
		2>/dev/null >"$tmp/f.$1.$2"
}
# sockperf's percentile Q (50, 99) in its output file
sock_q() {
	awk -v q="$1.000" '$0 ~ "percentile " q { print $NF }'
}
hog_start
for size in $sizes; do
	for r in $(seq "$runs"); do
		if [ $((r % 2)) = 1 ]; then sock "$size" "$r"; fab "$size" "$r"
		else fab "$size" "$r"; sock "$size" "$r"; fi
	done
done
hog_stop
echo "# tcp latency, one way (us); hog: ${HOG:-0}; runs: $runs; fabtune options: ${FAB_ARGS:-none}; host load: $(cut -d' ' -f1-3 /proc/loadavg)"
for size in $sizes; do
	for q in 50 99; do
		f=$(for r in $(seq "$runs"); do json_field "lat_p${q}_us" <"$tmp/f.$size.$r"; done | median)
		s=$(cat "$tmp"/s."$size".* | sock_q "$q" | median)
		pr=$(for r in $(seq "$runs"); do
			ratio "$(json_field "lat_p${q}_us" <"$tmp/f.$size.$r")" \
				"$(sock_q "$q" <"$tmp/s.$size.$r")"
			echo
		done | median)
		printf "tcp %6d B p%s  fabtune %8.2f us  sockperf %8.2f us  ratio %s  (median of per-run ratios %s)\n" \
			"$size" "$q" "$f" "$s" "$(ratio "$f" "$s")" "$pr"
	done
done

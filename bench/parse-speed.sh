#!/usr/bin/env bash
# bench/parse-speed.sh [FABTUNE] [MB] - parsing speed of NCCL logs and
# nccl-tests outputs, against the 200 MB/s target of issue 5.
#
# Builds two inputs of about MB megabytes (default 200) by concatenating the
# NCCL log and the nccl-tests fixtures (corpus headers stripped), times
# `fabtune parse --format F --summary` on each (best of 3; the summary keeps
# printing out of the measurement), and as a peer measured in the same run
# times `grep -c NCCL` and `wc -l` over the same file. Prints MB/s, the
# ratio to 200 MB/s and the ratio to the peers.
set -eu
fabtune=${1:-build/cli/fabtune}
mb=${2:-200}
cd "$(dirname "$0")/.."
[ -x "$fabtune" ] || { echo "parse-speed: $fabtune not built" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

build_input() { # OUT DIR...
	local out=$1 unit=$tmp/unit
	shift
	: >"$unit"
	for d in "$@"; do
		for f in tests/fixtures/"$d"/*.txt; do
			sed '1,/^# ---$/d' "$f" >>"$unit"
		done
	done
	: >"$out"
	local want=$((mb * 1000000)) have=0 size
	size=$(stat -c %s "$unit")
	# double the file until it is large enough
	cp "$unit" "$out"
	have=$size
	while [ "$have" -lt "$want" ]; do
		cat "$out" "$out" >"$out.2" && mv "$out.2" "$out"
		have=$(stat -c %s "$out")
	done
	truncate -s "$want" "$out"
}

# Seconds of the fastest of 3 runs of "$@": CPU time (user + system, from
# bash's getrusage-based `time`, millisecond resolution), which a machine
# shared with other jobs disturbs far less than wall time; the wall time of
# that run is kept in $tmp/wall.
best_of_3() {
	local best="" wall="" e u s cpu
	for _ in 1 2 3; do
		{ TIMEFORMAT='%3R %3U %3S'; time "$@" >/dev/null; } 2>"$tmp/t"
		read -r e u s <"$tmp/t"
		cpu=$(echo "$u + $s" | bc -l)
		if [ -z "$best" ] || [ "$(echo "$cpu < $best" | bc -l)" = 1 ]; then
			best=$cpu
			wall=$e
		fi
	done
	echo "$wall" >"$tmp/wall"
	echo "$best"
}

report() { # NAME FILE FORMAT
	local name=$1 file=$2 format=$3 bytes t tg tw
	bytes=$(stat -c %s "$file")
	# one checked run first: the figures below are only worth something if it parsed
	local first
	if ! { TIMEFORMAT='%3R %3U %3S'; time "$fabtune" parse --format "$format" --summary "$file" \
		>"$tmp/summary"; } 2>"$tmp/t"; then
		echo "parse-speed: fabtune parse failed on the $name input" >&2
		exit 1
	fi
	first=$(awk '{ printf "%.3f s CPU (%.3f user, %.3f system), %.3f s wall", $2 + $3, $2, $3, $1 }' "$tmp/t")
	echo "$name: $(head -n 1 "$tmp/summary" | sed 's/.*: //')$(grep -o ': [0-9]* result rows' "$tmp/summary" | sed 's/^:/,/'); first run $first"
	t=$(best_of_3 "$fabtune" parse --format "$format" --summary "$file")
	local wall
	wall=$(cat "$tmp/wall")
	tg=$(best_of_3 grep -c NCCL "$file")
	tw=$(best_of_3 wc -l "$file")
	awk -v n="$name" -v b="$bytes" -v t="$t" -v tg="$tg" -v tw="$tw" -v w="$wall" 'BEGIN {
		if (t <= 0) t = 0.001
		if (tg <= 0) tg = 0.001
		if (tw <= 0) tw = 0.001
		mbs = b / 1e6 / t
		printf "%-10s %6.1f MB in %6.3f s CPU (%.3f s wall) = %7.1f MB/s  target 200 MB/s: ratio %.2f  ", n, b / 1e6, t, w, mbs, mbs / 200
		printf "peers: grep -c %7.1f MB/s (x%.2f), wc -l %7.1f MB/s (x%.2f)\n", b / 1e6 / tg, tg / t, b / 1e6 / tw, tw / t
	}'
}

build_input "$tmp/nccl-log.txt" nccl-log
build_input "$tmp/nccl-tests.txt" nccl-tests
report nccl-log "$tmp/nccl-log.txt" nccl-log
report nccl-tests "$tmp/nccl-tests.txt" nccl-tests

#!/usr/bin/env bash
# bench/shm-bw-ab.sh - two fabtune builds' shm point-to-point bandwidth,
# alternated: BEFORE=<another fabtune binary> against this build
# (FABTUNE, build/cli/fabtune), PAIRS (5) pairs a size and choice, the
# order swapped from pair to pair, so that a host whose load moves between
# seconds moves both alike. Each run is pt2pt_bw --np 2 --transport shm
# --window 16 moving BYTES (4 GiB: the ranks' start-up, about 0.12 s on
# the 2-CPU VM, then weighs a fifth of a run's CPU at 1 MiB, not a half).
# SIZES (bytes, blank-separated; 262144 1048576 4194304) and CMAS (the
# --cma-min values, blank-separated; auto:64K 64K).
#
# Each run is timed under `perf stat` with the task-clock of both ranks and,
# where the kernel has them, the tracepoints of process_vm_readv,
# process_vm_writev and futex; without perf, the shell's `time` gives the
# CPU and the calls are not counted. Printed per size and choice: the
# medians of both builds' GB/s, CPU µs a message and calls a message, and
# the medians of the per-pair ratios this build / BEFORE (lowest-highest),
# with the load (/proc/loadavg) over the runs. HOG=1 runs one foreign CPU
# hog (bench/lib.sh) through all the pairs.
#
# Figures (docs/internals/bench-log.md, "shm 64 KiB-4 MiB: where a
# message's CPU goes, and the rest of a single copy in one call"), the build
# that reads the rest of a single copy in one call against the one before,
# load 9.2-10.9: 1 MiB --cma-min 64K 1.46x the rate, 0.83x the CPU a
# message; 1 MiB auto:64K 1.38x, 0.85x; 4 MiB auto:64K 1.57x, 0.78x;
# 256 KiB (a path not changed) 1.16x, 0.94x with pairs on both sides of 1.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
before=${BEFORE:-}
if [ -z "$before" ] || [ ! -x "$before" ]; then
	echo "BEFORE: '$before' is not an executable fabtune"; exit 2
fi
tmp=$(mktemp -d)
trap 'hog_stop; rm -rf "$tmp"' EXIT
pairs=${PAIRS:-5}
bytes=${BYTES:-$((4 << 30))}
events=syscalls:sys_enter_process_vm_readv,syscalls:sys_enter_process_vm_writev
events=$events,syscalls:sys_enter_futex,task-clock
perf=0
perf stat -x, -e "$events" true >/dev/null 2>&1 && perf=1
# one run: "GB/s CPU-us-a-message readv writev futex" a message (calls -1 without perf)
one() { # BIN SIZE CMA
	local n=$((bytes / $2)) TIMEFORMAT='%U %S' rc=0 bw
	if [ "$n" -le 0 ]; then
		echo "shm-bw-ab.sh: BYTES=$bytes is below the size $2: no message to run" >&2
		exit 1
	fi
	n=$(((n + 15) / 16 * 16))
	# the messages a run moves: n timed and 5 untimed windows of 16 (-w 5)
	local moved=$((n + 5 * 16))
	if [ "$perf" = 1 ]; then
		perf stat -x, -e "$events" -o "$tmp/st" "$1" bench pt2pt_bw --np 2 \
			--transport shm -b "$2" -e "$2" -n "$n" -w 5 --window 16 \
			--cma-min "$3" --json >"$tmp/json" 2>"$tmp/err" || rc=$?
		awk -F, -v n="$moved" '$3 ~ /readv/ { r = $1 } $3 ~ /writev/ { w = $1 }
			$3 ~ /futex/ { f = $1 } $3 == "task-clock" { c = $1 }
			END { printf "%.3f %.4f %.4f %.4f", c * 1000 / n, r / n, w / n, f / n }' \
			"$tmp/st" >"$tmp/cpu"
	else
		{ time "$1" bench pt2pt_bw --np 2 --transport shm -b "$2" -e "$2" -n "$n" \
			-w 5 --window 16 --cma-min "$3" --json >"$tmp/json" 2>"$tmp/err" ||
			echo "$?" >"$tmp/rc"; } 2>&1 |
			awk -v n="$moved" '{ printf "%.3f -1 -1 -1", ($1 + $2) * 1e6 / n }' >"$tmp/cpu"
	fi
	[ -s "$tmp/rc" ] && rc=$(cat "$tmp/rc") && rm -f "$tmp/rc"
	bw=$(json_row_field "$2" algbw_GBps <"$tmp/json")
	if [ "$rc" != 0 ] || [ -z "$bw" ]; then
		[ "$rc" = 0 ] && rc="0, no algbw_GBps for $2 B in its --json"
		echo "shm-bw-ab.sh: $1 at $2 B, --cma-min $3 failed (status $rc):" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
	echo "$bw $(cat "$tmp/cpu")"
}
echo "# shm pt2pt_bw, this build ($fabtune) against BEFORE ($before), alternated;" \
	"$pairs pairs, $bytes bytes a run; perf: $perf; hog: ${HOG:-0}"
hog_start
for size in ${SIZES:-262144 1048576 4194304}; do
	for cma in ${CMAS:-auto:64K 64K}; do
		: >"$tmp/rows"
		load=""
		for i in $(seq "$pairs"); do
			if [ $((i % 2)) = 1 ]; then
				b=$(one "$before" "$size" "$cma") || exit 1
				a=$(one "$fabtune" "$size" "$cma") || exit 1
			else
				a=$(one "$fabtune" "$size" "$cma") || exit 1
				b=$(one "$before" "$size" "$cma") || exit 1
			fi
			echo "$a $b" >>"$tmp/rows"
			load="$load $(cut -d' ' -f1 /proc/loadavg)"
		done
		col() { awk -v c="$1" '{ print $c }' "$tmp/rows" | median; }
		rat() { awk -v a="$1" -v b="$2" '{ if ($b > 0) print $a / $b }' "$tmp/rows" |
			median; }
		rng() { awk -v a="$1" -v b="$2" '$b > 0 { r = $a / $b; if (NR == 1 || r < lo) lo = r
			if (NR == 1 || r > hi) hi = r } END { printf "%.2f-%.2f", lo, hi }' \
			"$tmp/rows"; }
		fmt="shm %9d B  %-10s  GB/s %6.2f before %6.2f  ratio %5.3f (%s)"
		fmt="$fmt  CPU us a message %8.1f before %8.1f  ratio %5.3f (%s)"
		fmt="$fmt  readv %5.2f before %5.2f  writev %5.2f before %5.2f"
		# shellcheck disable=SC2059 # the format is built above, the values are arguments
		printf "$fmt  futex %5.2f before %5.2f  load%s\n" \
			"$size" "$cma" "$(col 1)" "$(col 6)" "$(rat 1 6)" "$(rng 1 6)" "$(col 2)" \
			"$(col 7)" "$(rat 2 7)" "$(rng 2 7)" "$(col 3)" "$(col 8)" "$(col 4)" \
			"$(col 9)" \
			"$(col 5)" "$(col 10)" "$load"
	done
done

#!/usr/bin/env bash
# bench/clock-read.sh - what one clock read costs on this host, in CPU
# time (bench/clock-read.c): clock_gettime() through the vDSO for
# CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW and CLOCK_REALTIME, the time-stamp
# counter plain (sockperf's way), fenced, and as rdtscp where the CPU
# offers it; hot and after a system call; and the clock work of one
# ping-pong round trip for fabtune before and after its sample clock
# (src/bench/ticks.c) against sockperf's, with their ratios. Prints the
# clock source and the load before and after. REPEATS (201) and READS
# (20000) set the size; the cost of a read is the median over REPEATS.
set -u
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/clock-read" bench/clock-read.c || exit 2
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs"
"$tmp/clock-read" "${REPEATS:-201}" "${READS:-20000}" || exit 1
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"

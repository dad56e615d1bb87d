#!/usr/bin/env bash
# bench/shm-bw.sh - fabtune's shm point-to-point bandwidth (pt2pt_bw, a
# window of WINDOW (16) messages in flight) against an Open MPI stream over
# vader (bench/mpi_pt2pt.c, as osu_bw) and against one core's memcpy
# (bench/memcpy.c), 64 KiB to 64 MiB by factors of 4 (MIN, MAX). Targets:
# ratio to MPI >= 1.0, ratio to memcpy >= 0.5 for large messages.
# CMA=SIZE adds --cma-min SIZE (CMA=off: the pipelined copies only).
#
# The three are interleaved: for each size, RUNS (5) rounds, each round
# fabtune, the memcpy and MPI back to back, the order rotating from round
# to round, so that a host whose load moves between seconds moves all
# three alike. The ratios printed are medians of the per-round ratios
# (fabtune over the memcpy of the same round, fabtune over MPI of the same
# round); the rates beside them are medians over the rounds. The load
# (/proc/loadavg) is printed before and after.
#
# Each fabtune and MPI run is long enough to be stable on a shared host:
# at least ITERS windows and at least BYTES (1 GiB) moved, as perftest's
# 5,000 iterations are (80 messages of 64 KiB took a millisecond, and one
# time slice decided the figure). MPI has 3 untimed windows first: vader
# sets its connections up lazily.
#
# The memcpy that fabtune is held to runs in the conditions fabtune ran in:
# pinned in turn to each CPU its ranks were bound to (read from its
# --json), its median pass (fabtune reports its mean over the run), and the
# slower of the CPUs, since a copy shared by two ranks or pipelined between
# them moves at the pace of the slower one. Its buffers are on huge pages
# as fabtune's are. The best pass of an unpinned memcpy after the rounds is
# printed too, as the core's rate when nothing else wants it.
#
# HOG=1 runs one foreign CPU hog through the rounds: the memcpy on the CPU
# the hog shares is then the slower one.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
tmp=$(mktemp -d)
trap 'hog_stop; rm -rf "$tmp"' EXIT

mpicc -O2 -o "$tmp/mpi_pt2pt" bench/mpi_pt2pt.c || exit 2
cc -O2 -o "$tmp/memcpy" bench/memcpy.c || exit 2
min=${MIN:-65536}
max=${MAX:-$((64 << 20))}
iters=${ITERS:-5}
window=${WINDOW:-16}
cma=${CMA:+--cma-min $CMA}
bytes=${BYTES:-$((1 << 30))}
# windows at SIZE: ITERS, or enough to move BYTES
nwin() { # SIZE
	local n=$(((bytes + $1 * window - 1) / ($1 * window)))
	echo $((n > iters ? n : iters))
}
fab() { # SIZE OUT: one JSON document
	# shellcheck disable=SC2086
	"$fabtune" bench pt2pt_bw --np 2 --transport shm -b "$1" -e "$1" \
		-n $(($(nwin "$1") * window)) --window "$window" $cma --json >"$2" 2>/dev/null
}
bare() { # SIZE OUT: "SIZE GB/s"
	mpirun -np 2 --mca btl self,vader "$tmp/mpi_pt2pt" bw "$1" "$1" "$(nwin "$1")" 3 \
		"$window" >"$2" 2>/dev/null
}
# memcpy of SIZE pinned to each CPU fabtune's ranks ran on (in FAB's JSON): the slower median pass
cpy() { # SIZE FAB OUT: "SIZE GB/s"
	local c
	for c in $(grep -o '"cpus":"[^"]*"' "$2" | cut -d'"' -f4 | tr ',' '\n' | sort -u); do
		taskset -c "$c" "$tmp/memcpy" "$1" "$1"
	done | awk '{ if (!($1 in m) || $3 < m[$1]) m[$1] = $3 } END { for (s in m) print s, m[s] }' >"$3"
	[ -s "$3" ] || "$tmp/memcpy" "$1" "$1" | awk '{ print $1, $3 }' >"$3"
}
sizes=
size=$min
while [ "$size" -le "$max" ]; do
	sizes="$sizes $size"
	size=$((size * 4))
done
load0=$(cut -d' ' -f1-3 /proc/loadavg)
# one round: fabtune, memcpy and MPI at SIZE, in an order that rotates with ROUND
round() { # SIZE ROUND
	local d="$tmp/$1.$2"
	case $(($2 % 3)) in
	1) fab "$1" "$d.fab"; cpy "$1" "$d.fab" "$d.cpy"; bare "$1" "$d.mpi" ;;
	2) bare "$1" "$d.mpi"; fab "$1" "$d.fab"; cpy "$1" "$d.fab" "$d.cpy" ;;
	0) fab "$1" "$d.fab"; bare "$1" "$d.mpi"; cpy "$1" "$d.fab" "$d.cpy" ;;
	esac
	echo "$(json_row_field "$1" algbw_GBps <"$d.fab") $(awk '{ print $2 }' "$d.cpy") $(awk '{ print $2 }' "$d.mpi")" >"$d.row"
}
hog_start
for size in $sizes; do
	for r in $(seq "$runs"); do
		round "$size" "$r"
	done
done
hog_stop
"$tmp/memcpy" "$min" "$max" >"$tmp/alone"
echo "# shm pt2pt bandwidth (GB/s), window $window, >= $iters windows and $bytes bytes a size${CMA:+, --cma-min $CMA}; hog: ${HOG:-0}; rounds: $runs (fabtune, memcpy and MPI interleaved); load before: $load0, after: $(cut -d' ' -f1-3 /proc/loadavg)"
for size in $sizes; do
	rows="$tmp/$size.rows"
	cat "$tmp/$size".*.row >"$rows"
	f=$(awk '{ print $1 }' "$rows" | median)
	p=$(awk '{ print $2 }' "$rows" | median)
	m=$(awk '{ print $3 }' "$rows" | median)
	rp=$(awk '{ if ($2 > 0) print $1 / $2 }' "$rows" | median)
	rm=$(awk '{ if ($3 > 0) print $1 / $3 }' "$rows" | median)
	c=$(awk -v s="$size" '$1 == s { print $2 }' "$tmp/alone")
	printf "shm %9d B  fabtune %6.2f GB/s  memcpy as fabtune ran %6.2f GB/s  fabtune/memcpy %5.3f  MPI %6.2f GB/s  fabtune/MPI %5.3f  memcpy alone, best %6.2f GB/s  fabtune/that %s\n" \
		"$size" "$f" "$p" "$rp" "$m" "$rm" "$c" "$(ratio "$f" "$c")"
done

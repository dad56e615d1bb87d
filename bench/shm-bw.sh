#!/usr/bin/env bash
# bench/shm-bw.sh - fabtune's shm point-to-point bandwidth (pt2pt_bw, a
# window of WINDOW (16) messages in flight) against an Open MPI stream over
# vader (bench/mpi_pt2pt.c, as osu_bw) and against one core's memcpy
# (bench/memcpy.c), all in the same run: 64 KiB to 64 MiB by factors of 4
# (MIN, MAX), RUNS (5) runs alternating the order (MPI with 3 untimed
# windows first: vader sets its connections up lazily). Prints medians, the
# median of per-run ratios to MPI (target >= 1.0) and the ratio to memcpy
# (target >= 0.5 from 4 MiB on). CMA=SIZE adds --cma-min SIZE (the single
# copy through process_vm_readv) to compare it with the pipelined copies.
#
# HOG=1 runs one foreign CPU hog while fabtune and MPI run, and measures
# memcpy twice: on a core of its own (the hog stopped), and sharing one core
# with a hog pinned to it. The second is the fair yardstick under load:
# the two ranks copy on two cores, one of which the hog shares, and a
# pipeline moves at the pace of its slower stage; a memcpy with a whole
# core compares a shared core with a free one.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
tmp=$(mktemp -d)
pinned=
trap 'hog_stop; [ -z "$pinned" ] || kill "$pinned" 2>/dev/null; rm -rf "$tmp"' EXIT

mpicc -O2 -o "$tmp/mpi_pt2pt" bench/mpi_pt2pt.c || exit 2
cc -O2 -o "$tmp/memcpy" bench/memcpy.c || exit 2
min=${MIN:-65536}
max=${MAX:-$((64 << 20))}
iters=${ITERS:-5}
window=${WINDOW:-16}
cma=${CMA:+--cma-min $CMA}
fab() {
	# shellcheck disable=SC2086
	"$fabtune" bench pt2pt_bw --np 2 --transport shm -b "$min" -e "$max" -f 4 \
		-n $((iters * window)) \
		--window "$window" $cma --json >"$tmp/fab.$1" 2>/dev/null
}
bare() {
	mpirun -np 2 --mca btl self,vader "$tmp/mpi_pt2pt" bw "-$min" "$max" "$iters" 3 "$window" \
		>"$tmp/mpi.$1" 2>/dev/null
}
# memcpy on the last CPU, which a hog pinned there shares (HOG=1)
cpy_shared() { # RUN
	local cpu=$(($(nproc) - 1))
	taskset -c "$cpu" sh -c 'while :; do :; done' &
	pinned=$!
	taskset -c "$cpu" "$tmp/memcpy" "$min" "$max" >"$tmp/cph.$1"
	kill "$pinned" 2>/dev/null
	wait "$pinned" 2>/dev/null
	pinned=
}
# field 2 of SIZE's line in FILES, the median
col2() { # SIZE FILE...
	local s=$1
	shift
	cat "$@" | awk -v s="$s" '$1 == s { print $2 }' | median
}
for r in $(seq "$runs"); do
	hog_start
	if [ $((r % 2)) = 1 ]; then bare "$r"; fab "$r"; else fab "$r"; bare "$r"; fi
	hog_stop
	"$tmp/memcpy" "$min" "$max" >"$tmp/cpy.$r"
	[ "${HOG:-0}" != 1 ] || cpy_shared "$r"
done
echo "# shm pt2pt bandwidth (GB/s), window $window; hog: ${HOG:-0}; runs: $runs; host load: $(cut -d' ' -f1-3 /proc/loadavg)"
size=$min
while [ "$size" -le "$max" ]; do
	f=$(for r in $(seq "$runs"); do json_row_field "$size" algbw_GBps <"$tmp/fab.$r"; done | median)
	m=$(col2 "$size" "$tmp"/mpi.*)
	c=$(col2 "$size" "$tmp"/cpy.*)
	pr=$(for r in $(seq "$runs"); do
		ratio "$(json_row_field "$size" algbw_GBps <"$tmp/fab.$r")" \
			"$(awk -v s="$size" '$1 == s { print $2 }' "$tmp/mpi.$r")"
		echo
	done | median)
	printf "shm %9d B  fabtune %6.2f GB/s  MPI %6.2f GB/s  ratio %s (per-run median %s)  memcpy %6.2f GB/s  fabtune/memcpy %s\n" \
		"$size" "$f" "$m" "$(ratio "$f" "$m")" "$pr" "$c" "$(ratio "$f" "$c")"
	if [ "${HOG:-0}" = 1 ]; then
		h=$(col2 "$size" "$tmp"/cph.*)
		printf "shm %9d B  memcpy sharing a core with the hog %6.2f GB/s  fabtune/that memcpy %s\n" \
			"$size" "$h" "$(ratio "$f" "$h")"
	fi
	size=$((size * 4))
done

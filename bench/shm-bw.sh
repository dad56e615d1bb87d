#!/usr/bin/env bash
# bench/shm-bw.sh - fabtune's shm point-to-point bandwidth (pt2pt_bw, a
# window of WINDOW (16) messages in flight) against an Open MPI stream over
# vader (bench/mpi_pt2pt.c, as osu_bw) and against one core's memcpy
# (bench/memcpy.c), all in the same run: 64 KiB to 64 MiB by factors of 4
# (MIN, MAX), RUNS (5) runs alternating the order (MPI with 3 untimed
# windows first: vader sets its connections up lazily). Prints medians, the
# median of per-run ratios to MPI (target >= 1.0) and to memcpy (target >=
# 0.5 from 4 MiB on). CMA=SIZE adds --cma-min SIZE (the single copy through
# process_vm_readv) to compare it with the pipelined copies.
#
# Each size is its own run of both, long enough to be stable on a shared
# host: at least ITERS windows and at least BYTES (1 GiB) moved, as
# perftest's 5,000 iterations are (80 messages of 64 KiB took a millisecond,
# and one time slice decided the figure).
#
# The memcpy that fabtune is held to runs in the conditions fabtune ran in:
# right after it in each run, pinned in turn to each CPU its ranks were
# bound to (read from its --json), its median pass (fabtune reports its
# mean over the run), and the slower of the CPUs, since the pipelined
# copies move at the pace of the slower stage. The best pass of an unpinned
# memcpy, taken after the run with the hog stopped, is printed beside it as
# the core's rate when nothing else wants it: on a shared host it reads 2-3
# times the median pass.
#
# HOG=1 runs one foreign CPU hog while fabtune, the pinned memcpy and MPI
# run: the memcpy on the CPU the hog shares is then the slower stage.
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
fab() { # RUN: every size, one JSON document each
	local s
	: >"$tmp/fab.$1"
	for s in $sizes; do
		# shellcheck disable=SC2086
		"$fabtune" bench pt2pt_bw --np 2 --transport shm -b "$s" -e "$s" \
			-n $(($(nwin "$s") * window)) \
			--window "$window" $cma --json >>"$tmp/fab.$1" 2>/dev/null
	done
}
bare() { # RUN
	local s
	: >"$tmp/mpi.$1"
	for s in $sizes; do
		mpirun -np 2 --mca btl self,vader "$tmp/mpi_pt2pt" bw "$s" "$s" "$(nwin "$s")" 3 \
			"$window" >>"$tmp/mpi.$1" 2>/dev/null
	done
}
sizes=
size=$min
while [ "$size" -le "$max" ]; do
	sizes="$sizes $size"
	size=$((size * 4))
done
# memcpy pinned to each CPU fabtune's ranks ran on in run RUN: per size, the slower median pass
cpy_pinned() { # RUN
	local c
	for c in $(grep -o '"cpus":"[^"]*"' "$tmp/fab.$1" | cut -d'"' -f4 | sort -u); do
		taskset -c "$c" "$tmp/memcpy" "$min" "$max" >"$tmp/cpn.$1.$c" || return 1
	done
	cat "$tmp"/cpn."$1".* | awk '{ if (!($1 in m) || $3 < m[$1]) m[$1] = $3 }
		END { for (s in m) print s, m[s] }' >"$tmp/cpp.$1"
}
# field 2 of SIZE's line in FILES, the median
col2() { # SIZE FILE...
	local s=$1
	shift
	cat "$@" | awk -v s="$s" '$1 == s { print $2 }' | median
}
# the median of per-run ratios of fabtune's algbw at SIZE to field 2 of SIZE's line in PREFIX.RUN
per_run() { # SIZE PREFIX
	for r in $(seq "$runs"); do
		ratio "$(json_row_field "$1" algbw_GBps <"$tmp/fab.$r")" \
			"$(awk -v s="$1" '$1 == s { print $2 }' "$tmp/$2.$r")"
		echo
	done | median
}
for r in $(seq "$runs"); do
	hog_start
	if [ $((r % 2)) = 1 ]; then bare "$r"; fab "$r"; cpy_pinned "$r"
	else fab "$r"; cpy_pinned "$r"; bare "$r"; fi
	hog_stop
	"$tmp/memcpy" "$min" "$max" >"$tmp/cpy.$r"
done
echo "# shm pt2pt bandwidth (GB/s), window $window, >= $iters windows and $bytes bytes a size; hog: ${HOG:-0}; runs: $runs; host load: $(cut -d' ' -f1-3 /proc/loadavg)"
size=$min
while [ "$size" -le "$max" ]; do
	f=$(for r in $(seq "$runs"); do json_row_field "$size" algbw_GBps <"$tmp/fab.$r"; done | median)
	m=$(col2 "$size" "$tmp"/mpi.*)
	p=$(col2 "$size" "$tmp"/cpp.*)
	c=$(col2 "$size" "$tmp"/cpy.*)
	printf "shm %9d B  fabtune %6.2f GB/s  MPI %6.2f GB/s  ratio %s (per-run median %s)  memcpy as fabtune ran %6.2f GB/s  fabtune/that %s (per-run median %s)  memcpy alone, best %6.2f GB/s  fabtune/that %s\n" \
		"$size" "$f" "$m" "$(ratio "$f" "$m")" "$(per_run "$size" mpi)" "$p" \
		"$(ratio "$f" "$p")" "$(per_run "$size" cpp)" "$c" "$(ratio "$f" "$c")"
	size=$((size * 4))
done

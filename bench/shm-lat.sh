#!/usr/bin/env bash
# bench/shm-lat.sh - fabtune's shm ping-pong latency (one way, p50 and p99)
# against an Open MPI ping-pong over vader (bench/mpi_pt2pt.c), 8 B to 1 MiB
# (MIN, MAX) by factors of 2 (FACTOR=4 skips every other size, but from 8 B
# it then stops at 512 KiB), RUNS (5) runs alternating which goes first;
# medians over the runs, and the median of per-run ratios. HOG=1 runs one
# foreign CPU hog during both. Targets: p50 ratio <= 1.0 at every size;
# with HOG=1, p99 ratio <= 2.0. From MIN=8 every later message starts 32
# bytes into a cache line (the ring is a byte stream), which is what made
# 256 B read 1.32 before the first line's bytes went into the head's block:
# MIN=8 MAX=1024 RUNS=5, load 13-16, 256 B 1.32 -> 0.93, 512 B 0.75 -> 0.55,
# 1 KiB 0.87 -> 0.71, 8-128 B 0.91-0.94 -> 0.92-0.94 (docs/internals/bench-log.md).
# With the quit flags off the tail's line, MIN=8 MAX=2048 against the build
# before, 6 alternated runs, load 22: p50 after / before 0.72-0.80 at 8-32 B,
# 0.89-0.94 at 64 B-2 KiB; after / Open MPI 0.81-0.95 at 16-32 B and
# 512 B-1 KiB, 1.05-1.10 at 8 B and 2 KiB, 1.19-1.24 at 64-256 B; at load 12
# (the host's fast state) after / before 0.93-0.97 (64 B 1.02).
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
tmp=$(mktemp -d)
trap 'hog_stop; rm -rf "$tmp"' EXIT
mpicc -O2 -o "$tmp/mpi_pt2pt" bench/mpi_pt2pt.c || exit 2
min=${MIN:-8}
max=${MAX:-$((1 << 20))}
iters=${ITERS:-2000}
factor=${FACTOR:-2}
# bench/mpi_pt2pt.c steps by 4 when its MINBYTES is negative, by 2 otherwise
case $factor in
2) mpimin=$min ;;
4) mpimin=-$min ;;
*) echo "FACTOR must be 2 or 4"; exit 2 ;;
esac
fab() {
	"$fabtune" bench pt2pt_lat --np 2 --transport shm -b "$min" -e "$max" -f "$factor" -n "$iters" \
		-w 100 --json >"$tmp/fab.$1" 2>/dev/null
}
bare() {
	mpirun -np 2 --mca btl self,vader "$tmp/mpi_pt2pt" lat "$mpimin" "$max" "$iters" 100 1 \
		>"$tmp/mpi.$1" 2>/dev/null
}
hog_start
for r in $(seq "$runs"); do
	if [ $((r % 2)) = 1 ]; then bare "$r"; fab "$r"; else fab "$r"; bare "$r"; fi
done
hog_stop
echo "# shm latency, one way (us); hog: ${HOG:-0}; runs: $runs; host load: $(cut -d' ' -f1-3 /proc/loadavg)"
size=$min
while [ "$size" -le "$max" ]; do
	for q in 50 99; do
		col=$([ "$q" = 50 ] && echo 2 || echo 3)
		f=$(for r in $(seq "$runs"); do json_row_field "$size" "lat_p${q}_us" <"$tmp/fab.$r"; done | median)
		m=$(cat "$tmp"/mpi.* | awk -v s="$size" -v c="$col" '$1 == s { print $c }' | median)
		pr=$(for r in $(seq "$runs"); do
			ratio "$(json_row_field "$size" "lat_p${q}_us" <"$tmp/fab.$r")" \
				"$(awk -v s="$size" -v c="$col" '$1 == s { print $c }' "$tmp/mpi.$r")"
			echo
		done | median)
		printf "shm %8d B p%s  fabtune %9.2f us  MPI %9.2f us  ratio %s  (median of per-run ratios %s)\n" \
			"$size" "$q" "$f" "$m" "$(ratio "$f" "$m")" "$pr"
	done
	size=$((size * factor))
done

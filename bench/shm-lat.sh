#!/usr/bin/env bash
# bench/shm-lat.sh - fabtune's shm ping-pong latency (one way, p50 and p99)
# against an Open MPI ping-pong over vader (bench/mpi_pt2pt.c), 8 B to 1 MiB
# (MIN, MAX) by factors of 2 (FACTOR=4 skips every other size, but from 8 B
# it then stops at 512 KiB), RUNS (5) runs alternating which goes first;
# medians over the runs, and the median of per-run ratios. HOG=1 runs one
# foreign CPU hog during both. Targets: p50 ratio <= 1.0 at every size;
# with HOG=1, p99 ratio <= 2.0. From MIN=8 every later message from 64 up
# to 256 bytes starts 32 bytes into a cache line (16 and 32 B start at
# other offsets; the ring is a byte stream) and rides in the head's block
# (up to 272 bytes since 2026-12-07; 160 before, when 256 B went into the
# ring);
# larger ones start at the next line (shm.c, ring_pad: 0.97, 0.94, 0.95x
# the build before at 256 B, then past the block, 512 B, 2 KiB, load
# 12-16). A mid-line start
# is what made 256 B read 1.32 before the first line's bytes went into the
# head's block:
# MIN=8 MAX=1024 RUNS=5, load 13-16, 256 B 1.32 -> 0.93, 512 B 0.75 -> 0.55,
# 1 KiB 0.87 -> 0.71, 8-128 B 0.91-0.94 -> 0.92-0.94 (docs/internals/bench-log.md).
# BEFORE=<binary>: a previous build as well, each run in the rotation
# before, this build, Open MPI; this build, Open MPI, before; Open MPI,
# before, this build; and per size the before p50s with the medians of
# per-run ratios this / before and before / Open MPI (RUNS=6 gives each
# order twice). The quit flags off the tail's line were measured in that
# rotation, run by hand (pt2pt_lat -b 8 -e 2048 -f 2 -n 2000 -w 100 of
# each build, bench/mpi_pt2pt.c), as MIN=8 MAX=2048 RUNS=6 with BEFORE
# would run it; at a load of 22, p50 this / before 0.72-0.80 at 8-32 B,
# 0.89-0.97 at 64 B-2 KiB (1.01 at 1 KiB once), this / Open MPI 0.81-0.95
# at 16-32 B (16 B in one sitting of two) and 512 B-1 KiB, 1.10 at 8 B
# (one sitting), 1.05-1.10 at 2 KiB, 1.19-1.24 at 64-256 B; at a load of
# 12 (the host's fast state) this / before 0.93-0.97 (64 B 1.02)
# (docs/internals/bench-log.md). The sender's own ring position (shm.c,
# move_sends: it no longer loads the head's line its receiver polls),
# MIN=8 RUNS=6 with BEFORE, two sittings at a load of 6-10, slow state:
# this / before 0.64-0.66 at 8-32 B (0.48 -> 0.31 us), 0.78-0.87 at
# 64-256 B, 0.87-0.94 at 512 B-2 KiB; this / Open MPI 0.75-0.77 at 8 B,
# 0.65-0.67 at 16-32 B, 0.90-0.95 at 64-128 B, 1.04 at 256 B; with the
# head's line asked for beside the block's later lines, 0.98 at 256 B.
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
before=${BEFORE:-}
# fab NAME RUN BINARY: BINARY's runs in $tmp/NAME.RUN
fab() {
	"$3" bench pt2pt_lat --np 2 --transport shm -b "$min" -e "$max" -f "$factor" -n "$iters" \
		-w 100 --json >"$tmp/$1.$2" 2>/dev/null
}
bare() {
	mpirun -np 2 --mca btl self,vader "$tmp/mpi_pt2pt" lat "$mpimin" "$max" "$iters" 100 1 \
		>"$tmp/mpi.$1" 2>/dev/null
}
# val NAME RUN SIZE Q: the pQ (us) of run RUN of NAME (fab, old or mpi) at SIZE bytes
val() {
	if [ "$1" = mpi ]; then
		awk -v s="$3" -v c="$([ "$4" = 50 ] && echo 2 || echo 3)" '$1 == s { print $c }' "$tmp/mpi.$2"
	else
		json_row_field "$3" "lat_p${4}_us" <"$tmp/$1.$2"
	fi
}
# over the runs at SIZE, pQ: med NAME SIZE Q, the median; permed A B SIZE Q, of A / B a run
med() { for r in $(seq "$runs"); do val "$1" "$r" "$2" "$3"; done | median; }
permed() {
	for r in $(seq "$runs"); do
		ratio "$(val "$1" "$r" "$3" "$4")" "$(val "$2" "$r" "$3" "$4")"
		echo
	done | median
}
if [ -n "$before" ] && ! [ -x "$before" ]; then
	echo "BEFORE: $before is not an executable file"
	exit 2
fi
hog_start
for r in $(seq "$runs"); do
	if [ -n "$before" ]; then
		case $((r % 3)) in
		1) fab old "$r" "$before"; fab fab "$r" "$fabtune"; bare "$r" ;;
		2) fab fab "$r" "$fabtune"; bare "$r"; fab old "$r" "$before" ;;
		0) bare "$r"; fab old "$r" "$before"; fab fab "$r" "$fabtune" ;;
		esac
	elif [ $((r % 2)) = 1 ]; then
		bare "$r"; fab fab "$r" "$fabtune"
	else
		fab fab "$r" "$fabtune"; bare "$r"
	fi
done
hog_stop
echo "# shm latency, one way (us); hog: ${HOG:-0}; runs: $runs; host load: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -z "$before" ] || echo "# before: $before"
size=$min
while [ "$size" -le "$max" ]; do
	for q in 50 99; do
		f=$(med fab "$size" "$q")
		m=$(med mpi "$size" "$q")
		printf "shm %8d B p%s  fabtune %9.2f us  MPI %9.2f us  ratio %s  (median of per-run ratios %s)\n" \
			"$size" "$q" "$f" "$m" "$(ratio "$f" "$m")" "$(permed fab mpi "$size" "$q")"
		[ -z "$before" ] && continue
		printf "shm %8d B p%s  before  %9.2f us  this / before %s  before / MPI %s  (medians of per-run ratios)\n" \
			"$size" "$q" "$(med old "$size" "$q")" "$(permed fab old "$size" "$q")" \
			"$(permed old mpi "$size" "$q")"
	done
	size=$((size * factor))
done

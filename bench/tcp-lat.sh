#!/usr/bin/env bash
# bench/tcp-lat.sh - fabtune's tcp ping-pong latency (one way, p50 and p99)
# against sockperf ping-pong --tcp at SIZES, and against an Open MPI
# ping-pong over its TCP BTL (bench/mpi_pt2pt.c) at BIG. SIZES are every
# power of 4 from 32 B to 32 KiB with sockperf's two bounds: 14 B, its
# smallest (its header; 8 B cannot be asked of it), and 65,507 B, its
# largest (MAX_PAYLOAD_SIZE_LIMIT in src/defs.h of Mellanox/sockperf, tag
# 3.7, the version here; its server drops the connection from 65,508 B
# on). BIG are
# the powers of 4 above (128 KiB, 512 KiB) and 1 MiB. All three time a round
# trip from before the send to after the receive and report half of it.
# sockperf runs 2 s and drops its first 400 ms (about 20 % of its round
# trips); fabtune runs ITERS (100,000) round trips after WARMUP (20,000),
# so that both percentiles come from a warmed, similar number of samples.
# At BIG, both run BIG_ITERS (1,000) after 100 warm-up round trips.
# Runs alternate which tool goes first; medians of RUNS (5) and the median
# of per-run ratios, with the lowest and the highest of those ratios. HOG=1 runs one foreign CPU hog during both. Targets:
# p50 ratio <= 1.0; with HOG=1, p99 ratio <= 2.0. FAB_ARGS adds options
# to fabtune's command line (--spin never, --bind core, ...); SIZES= or
# BIG= (empty) skips a part.
#
# PIN places both tools' two ends the same way (sockperf's server and
# client, fabtune's ranks; Open MPI keeps its own binding): PIN=one puts all on CPU 0,
# PIN=two one end on CPU 0 and the other on CPU 1 (fabtune with --bind
# core). Unset, the scheduler places them, and on a VM an end woken on
# the other CPU takes about three times as long (tcp 14 B, --spin never,
# 2-CPU VM: 8.5-8.7 us one way on one CPU, 26-38 on two, both tools), so
# the ratio of one run can read where each tool's ends landed. Placed
# the same way, runs spread by 1-2 % (docs/internals/bench-log.md,
# "tcp ping-pong: where the two ends sit").
#
# BEFORE=<another fabtune binary> runs that build too, in the same runs,
# the three rotated (sockperf or Open MPI, this build, BEFORE), and prints
# its p50, its ratio to that peer and the median of per-run ratios this build /
# BEFORE: a change worth less than the host's run-to-run spread shows in
# the last, where both builds meet the same speed of the host more often
# than in two sittings. The 1-minute load is taken at every run and its
# range printed.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
tmp=$(mktemp -d)
trap 'hog_stop; rm -rf "$tmp"' EXIT
sizes=${SIZES-14 32 128 512 2048 8192 32768 65507}
big=${BIG-131072 524288 1048576}
big_iters=${BIG_ITERS:-1000}
iters=${ITERS:-100000}
warmup=${WARMUP:-20000}
if [ -n "$sizes" ]; then
	command -v sockperf >/dev/null || { echo "needs sockperf"; exit 2; }
fi
if [ -n "$big" ]; then
	mpicc -O2 -o "$tmp/mpi_pt2pt" bench/mpi_pt2pt.c || exit 2
fi
case ${PIN:-} in
'') on0=; on1=; fab_pin= ;;
one) on0="taskset -c 0"; on1="taskset -c 0"; fab_pin="taskset -c 0" ;;
two) on0="taskset -c 0"; on1="taskset -c 1"; fab_pin= ;;
*) echo "PIN: expected one or two"; exit 2 ;;
esac
[ "${PIN:-}" = two ] && FAB_ARGS="${FAB_ARGS:-} --bind core"
sock() { # SIZE RUN
	local port=$((11200 + RANDOM % 500)) srv
	$on0 sockperf server --tcp -i 127.0.0.1 -p "$port" >/dev/null 2>&1 &
	srv=$!
	sleep 0.3
	# sockperf colours its output: strip the escape codes before reading it
	$on1 sockperf ping-pong --tcp -i 127.0.0.1 -p "$port" -t 2 -m "$1" 2>&1 |
		sed 's/\x1b\[[0-9;]*m//g' >"$tmp/s.$1.$2"
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
}
fab() { # SIZE RUN ITERS WARMUP [BINARY PREFIX]
	$fab_pin "${5:-$fabtune}" bench pt2pt_lat --np 2 --transport tcp -b "$1" -n "$3" -w "$4" \
		${FAB_ARGS:-} --json 2>/dev/null >"$tmp/${6:-f}.$1.$2"
	cut -d' ' -f1 /proc/loadavg >>"$tmp/load"
}
before=${BEFORE:-}
if [ -n "$before" ] && [ ! -x "$before" ]; then
	echo "BEFORE: $before is not an executable"; exit 2
fi
fab_before() { # SIZE RUN ITERS WARMUP
	[ -z "$before" ] || fab "$1" "$2" "$3" "$4" "$before" b
}
# Open MPI's TCP BTL on loopback (it leaves lo out unless told), one size a run
mpi() { # SIZE RUN
	mpirun -np 2 --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include lo \
		--mca oob_tcp_if_include lo "$tmp/mpi_pt2pt" lat "$1" "$1" "$big_iters" 100 1 \
		>"$tmp/m.$1.$2" 2>/dev/null
}
# sockperf's percentile Q (50, 99) in its output file
sock_q() {
	awk -v q="$1.000" '$0 ~ "percentile " q { print $NF }'
}
# bench/mpi_pt2pt.c's percentile Q (50, 99): "bytes p50 p99"
mpi_q() {
	awk -v c="$([ "$1" = 50 ] && echo 2 || echo 3)" '{ print $c }'
}
# report NAME SIZE Q PEER_FILE_PREFIX PEER_Q_FUNCTION
report() {
	local name=$1 size=$2 q=$3 p=$4 get=$5 f s rs pr
	f=$(for r in $(seq "$runs"); do json_field "lat_p${q}_us" <"$tmp/f.$size.$r"; done | median)
	s=$(cat "$tmp/$p.$size".* | $get "$q" | median)
	rs=$(for r in $(seq "$runs"); do
		ratio "$(json_field "lat_p${q}_us" <"$tmp/f.$size.$r")" \
			"$($get "$q" <"$tmp/$p.$size.$r")"
		echo
	done | sort -g)
	pr=$(echo "$rs" | median)
	# and the lowest and highest per-run ratio: on a loaded host single runs
	# of either tool switch between two speeds (docs/internals/bench.md)
	printf "tcp %7d B p%s  fabtune %8.2f us  %-8s %8.2f us  ratio %s  (median of per-run ratios %s, %s-%s)\n" \
		"$size" "$q" "$f" "$name" "$s" "$(ratio "$f" "$s")" "$pr" \
		"$(echo "$rs" | head -n 1)" "$(echo "$rs" | tail -n 1)"
}
hog_start
for size in $sizes; do
	for r in $(seq "$runs"); do
		if [ -n "$before" ]; then
			case $((r % 3)) in
			1) sock "$size" "$r"; fab "$size" "$r" "$iters" "$warmup"
			   fab_before "$size" "$r" "$iters" "$warmup" ;;
			2) fab "$size" "$r" "$iters" "$warmup"; fab_before "$size" "$r" "$iters" "$warmup"
			   sock "$size" "$r" ;;
			0) fab_before "$size" "$r" "$iters" "$warmup"; sock "$size" "$r"
			   fab "$size" "$r" "$iters" "$warmup" ;;
			esac
		elif [ $((r % 2)) = 1 ]; then sock "$size" "$r"; fab "$size" "$r" "$iters" "$warmup"
		else fab "$size" "$r" "$iters" "$warmup"; sock "$size" "$r"; fi
	done
done
for size in $big; do
	for r in $(seq "$runs"); do
		if [ -n "$before" ]; then
			case $((r % 3)) in
			1) mpi "$size" "$r"; fab "$size" "$r" "$big_iters" 100
			   fab_before "$size" "$r" "$big_iters" 100 ;;
			2) fab "$size" "$r" "$big_iters" 100; fab_before "$size" "$r" "$big_iters" 100
			   mpi "$size" "$r" ;;
			0) fab_before "$size" "$r" "$big_iters" 100; mpi "$size" "$r"
			   fab "$size" "$r" "$big_iters" 100 ;;
			esac
		elif [ $((r % 2)) = 1 ]; then mpi "$size" "$r"; fab "$size" "$r" "$big_iters" 100
		else fab "$size" "$r" "$big_iters" 100; mpi "$size" "$r"; fi
	done
done
hog_stop
lo=$(sort -g "$tmp/load" 2>/dev/null | head -n 1)
hi=$(sort -g "$tmp/load" 2>/dev/null | tail -n 1)
echo "# tcp latency, one way (us); hog: ${HOG:-0}; runs: $runs;" \
	"fabtune options: ${FAB_ARGS:-none}; placement: ${PIN:-unpinned};" \
	"host load: $(cut -d' ' -f1-3 /proc/loadavg); 1-minute load over the runs: $lo-$hi"
# BEFORE's p50, its ratio to the peer (sockperf; Open MPI with m mpi_q), and
# the per-run ratios this build / BEFORE
report_before() { # SIZE [PEER_FILE_PREFIX PEER_Q_FUNCTION]
	local b bs ab p=${2:-s} get=${3:-sock_q}
	b=$(for r in $(seq "$runs"); do json_field lat_p50_us <"$tmp/b.$1.$r"; done | median)
	bs=$(for r in $(seq "$runs"); do
		ratio "$(json_field lat_p50_us <"$tmp/b.$1.$r")" "$($get 50 <"$tmp/$p.$1.$r")"; echo
	done | median)
	ab=$(for r in $(seq "$runs"); do
		ratio "$(json_field lat_p50_us <"$tmp/f.$1.$r")" \
			"$(json_field lat_p50_us <"$tmp/b.$1.$r")"; echo
	done | sort -g)
	printf "tcp %7d B p50  before  %8.2f us  before / peer %s  this / before %s (%s-%s)\n" \
		"$1" "$b" "$bs" "$(echo "$ab" | median)" "$(echo "$ab" | head -n 1)" \
		"$(echo "$ab" | tail -n 1)"
}
for size in $sizes; do
	for q in 50 99; do report sockperf "$size" "$q" s sock_q; done
	[ -z "$before" ] || report_before "$size"
done
for size in $big; do
	for q in 50 99; do report "MPI tcp" "$size" "$q" m mpi_q; done
	[ -z "$before" ] || report_before "$size" m mpi_q
done

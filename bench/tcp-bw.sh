#!/usr/bin/env bash
# bench/tcp-bw.sh - fabtune's tcp pt2pt bandwidth against iperf3, measured in
# pairs: at each size, fabtune and iperf3 run back to back RUNS (5) times, the
# order alternating from pair to pair, and the figure is the median of the
# per-pair ratios fabtune / iperf3 (with the lowest and highest pair), beside
# each tool's median. fabtune sends VOL_MIB (512) MiB in messages of the size
# (-b, -n messages, --window 32), copied from one buffer of the message's
# size and into another; iperf3 runs DUR (2) seconds (-t) twice, and its
# receiver's rate is taken (with -n, iperf3 stops its receiver's clock with
# bytes still in flight): "iperf3 -l" writes from and reads into a buffer
# of the message's size, at most the 1 MiB iperf3 accepts (-l), the nearest
# to fabtune's buffers; "iperf3 128K" keeps its default buffer (128 KiB for
# TCP), which stays in cache. Two ratios, one against each. Over loopback
# and across a veth pair between two network namespaces (root needed for
# that part), with 1 and 4 streams.
# Target: ratio >= 1.0 at every size. SIZES (64K 256K 1M 4M 16M 64M, in
# bytes), PATHS ("loopback veth") and STREAMS ("1 4") pick the cases;
# FAB_ARGS adds options to fabtune's command line (--spin never, ...).
# Each pair prints the host's load (uptime) so that a figure taken on a
# busy machine says so.
# One stream over loopback, 4/16/64 MiB, against iperf3 -l: 0.91/0.75/0.74
# before tcp asked for 256 KiB socket buffers to a same-host peer, 2.61/4.96/
# 1.13 after (RUNS=5, load 14-21; docs/internals/bench-log.md, "One tcp stream
# from 4 MiB").
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
command -v iperf3 >/dev/null || { echo "needs iperf3"; exit 2; }
veth_tmp ftbw
sizes=${SIZES:-65536 262144 1048576 4194304 16777216 67108864}
vol=$((${VOL_MIB:-512} << 20))

msgs() { # messages of SIZE that make VOL, at least 32 (one window)
	local n=$((vol / $1))
	[ "$n" -ge 32 ] || n=32
	echo "$n"
}

# one measurement each, in Gb/s: fab STREAMS SIZE SRV_PREFIX CLI_PREFIX ADDR
# (the server side owns ADDR: fabtune's rank 0 and iperf3 -s; data flows to it
# from iperf3's client, and from fabtune's rank 0 to rank 1: same link, one way)
fab() {
	local port=$((29700 + RANDOM % 200)) n
	n=$(msgs "$2")
	$4 "$fabtune" bench pt2pt_bw --rank 1 --nranks 2 --bootstrap "$5:$port" --transport tcp \
		--streams "$1" -b "$2" -n "$n" --window 32 ${FAB_ARGS:-} --json >/dev/null 2>"$tmp/err1" &
	$3 "$fabtune" bench pt2pt_bw --rank 0 --nranks 2 --bootstrap "$5:$port" --transport tcp \
		--streams "$1" -b "$2" -n "$n" --window 32 ${FAB_ARGS:-} --json >"$tmp/f.json" 2>"$tmp/err0"
	wait
	awk -v g="$(json_field algbw_GBps <"$tmp/f.json")" 'BEGIN { printf "%.3f\n", g * 8 }'
}
iperf() { # STREAMS SIZE SRV_PREFIX CLI_PREFIX ADDR [BUFFER]: BUFFER given: -l, at most 1 MiB
	local port=$((5300 + RANDOM % 200)) l=${6:-}
	[ -z "$l" ] || [ "$l" -le 1048576 ] || l=1048576
	$3 iperf3 -s -1 -p "$port" -B "$5" >/dev/null 2>&1 &
	sleep 0.3
	$4 iperf3 -c "$5" -p "$port" -P "$1" ${l:+-l "$l"} -t "${DUR:-2}" -J >"$tmp/i.json" 2>/dev/null
	wait
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%.3f" % (d["end"]["sum_received"]["bits_per_second"]/1e9))' "$tmp/i.json"
}

# the median of the numbers in FILE, and (lowest-highest)
spread() {
	sort -g "$1" -o "$1"
	printf "%s (%s-%s)" "$(median <"$1")" "$(head -n 1 "$1")" "$(tail -n 1 "$1")"
}

measure() { # label SRV_PREFIX CLI_PREFIX ADDR
	local s z r f i d
	for s in ${STREAMS:-1 4}; do
		for z in $sizes; do
			: >"$tmp/fv"
			: >"$tmp/iv"
			: >"$tmp/dv"
			: >"$tmp/rv"
			: >"$tmp/qv"
			for r in $(seq "$runs"); do
				if [ $((r % 2)) = 1 ]; then
					i=$(iperf "$s" "$z" "$2" "$3" "$4" "$z")
					d=$(iperf "$s" "$z" "$2" "$3" "$4")
					f=$(fab "$s" "$z" "$2" "$3" "$4")
				else
					f=$(fab "$s" "$z" "$2" "$3" "$4")
					d=$(iperf "$s" "$z" "$2" "$3" "$4")
					i=$(iperf "$s" "$z" "$2" "$3" "$4" "$z")
				fi
				echo "$f" >>"$tmp/fv"
				echo "$i" >>"$tmp/iv"
				echo "$d" >>"$tmp/dv"
				echo "$(ratio "$f" "$i")" >>"$tmp/rv"
				echo "$(ratio "$f" "$d")" >>"$tmp/qv"
				echo "#   pair $r: $1 streams=$s $z B  fabtune $f  iperf3 -l $i  iperf3 128K $d Gb/s  load $(cut -d' ' -f1 /proc/loadavg)" >&2
			done
			printf "%-9s streams=%d %9d B  fabtune %6.2f  iperf3 -l %6.2f  128K %6.2f Gb/s  ratio -l %s  128K %s\n" \
				"$1" "$s" "$z" "$(median <"$tmp/fv")" "$(median <"$tmp/iv")" "$(median <"$tmp/dv")" \
				"$(spread "$tmp/rv")" "$(spread "$tmp/qv")"
		done
	done
}

paths=${PATHS:-loopback veth}
echo "# tcp bandwidth (Gb/s), window 32, $((vol >> 20)) MiB per run; pairs: $runs; ratio: median of per-pair ratios"
echo "# (lowest-highest), against iperf3 -l (its buffer the message's size, at most 1 MiB) and iperf3"
echo "# 128K (its default buffer); fabtune options: ${FAB_ARGS:-none}"
echo "# load at start: $(uptime)"
case " $paths " in *" loopback "*) measure loopback "" "" 127.0.0.1 ;; esac
case " $paths " in *" veth "*)
	if [ "$(id -u)" = 0 ] && veth_up "$ns" 198.18.3; then
		measure veth "ip netns exec ${ns}a" "ip netns exec ${ns}b" 198.18.3.1
	else
		echo "veth: skipped (needs root and network namespaces)"
	fi ;;
esac
echo "# load at end: $(uptime)"

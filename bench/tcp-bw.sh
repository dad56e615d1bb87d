#!/usr/bin/env bash
# bench/tcp-bw.sh - fabtune's tcp pt2pt bandwidth against iperf3, measured in
# the same run, alternating which goes first, medians of RUNS (5) and the
# median of per-run ratios: on loopback and across a veth pair between two
# network namespaces (root needed for that part), with 1 and 4 streams.
# Target: ratio >= 1.0. PATHS ("loopback veth") and STREAMS ("1 4") pick the
# cases; FAB_ARGS adds options to fabtune's command line (--spin never, ...).
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/lib.sh
command -v iperf3 >/dev/null || { echo "needs iperf3"; exit 2; }
tmp=$(mktemp -d)
ns=ftbw$$
cleanup() {
	ip netns del "${ns}a" 2>/dev/null
	ip netns del "${ns}b" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# one measurement each, in Gb/s: fab STREAMS SRV_PREFIX CLI_PREFIX ADDR
# (the server side owns ADDR: fabtune's rank 0 and iperf3 -s; data flows to it
# from iperf3's client, and from fabtune's rank 0 to rank 1: same link, one way)
fab() {
	local port=$((29700 + RANDOM % 200))
	$3 "$fabtune" bench pt2pt_bw --rank 1 --nranks 2 --bootstrap "$4:$port" --transport tcp \
		--streams "$1" -b 1M -n 1280 --window 32 ${FAB_ARGS:-} --json >/dev/null 2>"$tmp/err1" &
	$2 "$fabtune" bench pt2pt_bw --rank 0 --nranks 2 --bootstrap "$4:$port" --transport tcp \
		--streams "$1" -b 1M -n 1280 --window 32 ${FAB_ARGS:-} --json >"$tmp/f.json" 2>"$tmp/err0"
	wait
	awk -v g="$(json_field algbw_GBps <"$tmp/f.json")" 'BEGIN { printf "%.3f\n", g * 8 }'
}
iperf() {
	local port=$((5300 + RANDOM % 200))
	$2 iperf3 -s -1 -p "$port" -B "$4" >/dev/null 2>&1 &
	sleep 0.3
	$3 iperf3 -c "$4" -p "$port" -P "$1" -t 2 -J >"$tmp/i.json" 2>/dev/null
	wait
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%.3f" % (d["end"]["sum_received"]["bits_per_second"]/1e9))' "$tmp/i.json"
}

measure() { # label SRV_PREFIX CLI_PREFIX ADDR
	local s r f i
	for s in ${STREAMS:-1 4}; do
		: >"$tmp/fv"
		: >"$tmp/iv"
		: >"$tmp/rv"
		for r in $(seq "$runs"); do
			if [ $((r % 2)) = 1 ]; then
				i=$(iperf "$s" "$2" "$3" "$4")
				f=$(fab "$s" "$2" "$3" "$4")
			else
				f=$(fab "$s" "$2" "$3" "$4")
				i=$(iperf "$s" "$2" "$3" "$4")
			fi
			echo "$f" >>"$tmp/fv"
			echo "$i" >>"$tmp/iv"
			ratio "$f" "$i" >>"$tmp/rv"
			echo >>"$tmp/rv"
		done
		f=$(median <"$tmp/fv")
		i=$(median <"$tmp/iv")
		printf "%-9s streams=%d  fabtune %7.2f Gb/s  iperf3 %7.2f Gb/s  ratio %s  (median of per-run ratios %s)\n" \
			"$1" "$s" "$f" "$i" "$(ratio "$f" "$i")" "$(median <"$tmp/rv")"
	done
}

paths=${PATHS:-loopback veth}
echo "# tcp bandwidth (Gb/s), 1 MiB messages, window 32; runs: $runs; fabtune options: ${FAB_ARGS:-none}; host load: $(cut -d' ' -f1-3 /proc/loadavg)"
case " $paths " in *" loopback "*) measure loopback "" "" 127.0.0.1 ;; esac
case " $paths " in *" veth "*) ;; *) exit 0 ;; esac
if [ "$(id -u)" = 0 ] && ip netns add "${ns}a" 2>/dev/null; then
	ip netns add "${ns}b"
	ip -n "${ns}a" link add eth0 type veth peer name eth0 netns "${ns}b"
	ip -n "${ns}a" addr add 198.18.3.1/24 dev eth0
	ip -n "${ns}b" addr add 198.18.3.2/24 dev eth0
	ip -n "${ns}a" link set eth0 up
	ip -n "${ns}b" link set eth0 up
	measure veth "ip netns exec ${ns}a" "ip netns exec ${ns}b" 198.18.3.1
else
	echo "veth: skipped (needs root and network namespaces)"
fi

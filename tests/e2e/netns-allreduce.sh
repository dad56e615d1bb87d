#!/usr/bin/env bash
# tests/e2e/netns-allreduce.sh - tcp all_reduce with its ranks across hosts:
# four hosts in network namespaces (their own UTS names host0-host3), joined
# by veth pairs to a bridge in a fifth, "switch" namespace, two ranks a host
# (8 ranks, ranks 2i and 2i+1 on host i), started by hand through
# --bootstrap. Every rank checks its results (-c 1: the sums of every size,
# "wrong" 0), each size must name the algorithm that coll.c's choice gives at
# 8 ranks (halving-doubling below 256 KiB, the ring from there), and rank 0
# must see the ranks on their hosts and addresses.
# Then two hosts, one rank each, every link capped by tc tbf at 1 Gbit/s in
# both directions: at 2 ranks each rank sends the buffer once per call, so
# busbw is the bytes one link carries a second and must stay under the cap
# (0.125 GB/s, 5% for the token bucket's burst) and reach half of it.
# Everything lives in namespaces of our own, removed on any exit.
set -u
fabtune=${FABTUNE:?FABTUNE=path/to/fabtune}
[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 77; }
command -v ip >/dev/null && command -v tc >/dev/null || { echo "skip: no iproute2"; exit 77; }
command -v unshare >/dev/null || { echo "skip: no unshare"; exit 77; }
p=ftar$$
tmp=$(mktemp -d)
pids=()
made=() # the namespaces created, the ones cleanup removes
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
	for ns in "${made[@]}"; do ip netns del "$ns" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
# setup CMD...: a step of the network's setup; one that fails ends the test at once
setup() {
	"$@" || { echo "not ok: setup: $* (exit $?)"; exit 1; }
}
ip netns add "${p}sw" || { echo "skip: cannot create network namespaces"; exit 77; }
made+=("${p}sw")
# the ranks run at real-time priority; a host that refuses it is skipped, not failed
chrt -r 10 true 2>/dev/null || { echo "skip: chrt -r 10 refused"; exit 77; }
setup ip -n "${p}sw" link add br0 type bridge
setup ip -n "${p}sw" link set br0 up
for i in 0 1 2 3; do
	h=${p}h$i
	setup ip netns add "$h"
	made+=("$h")
	setup ip -n "${p}sw" link add "p$i" type veth peer name eth0 netns "$h"
	setup ip -n "${p}sw" link set "p$i" master br0 up
	setup ip -n "$h" addr add "198.18.0.$((i + 1))/24" dev eth0
	setup ip -n "$h" link set eth0 up
	setup ip -n "$h" link set lo up
done

# run NRANKS PPN PORT ARGS...: rank r on host r / PPN, rank 0's --json in $tmp/out0
run() {
	local n=$1 ppn=$2 port=$3 r rc=0 pid
	shift 3
	for r in $(seq $((n - 1)) -1 0); do
		# real-time priority, as netns-pairs.sh: the network is under test, not the
		# scheduler of a loaded host (the ranks sleep while they wait: --spin never)
		chrt -r 10 ip netns exec "${p}h$((r / ppn))" unshare --uts \
			sh -c "hostname host$((r / ppn)); exec timeout 40 \"\$0\" \"\$@\"" \
			"$fabtune" bench all_reduce --rank "$r" --nranks "$n" \
			--bootstrap "198.18.0.1:$port" --ifname eth0 --transport tcp --bind none \
			--spin never --timeout 30s --json "$@" >"$tmp/out$r" 2>"$tmp/err$r" &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do wait "$pid" || rc=$?; done
	pids=()
	if [ "$rc" != 0 ]; then
		cat "$tmp"/err* | sed 's/^/# stderr: /'
		echo "not ok: fabtune exit code $rc"
		exit 1
	fi
}
rows() { tr '{' '\n' <"$tmp/out0" | grep '"test":"all_reduce"'; }
field() { grep -o "\"$1\":[^,}]*" | cut -d: -f2 | tr -d '"'; }

# 8 ranks on 4 hosts: 4 KiB, 64 KiB, 1 MiB
run 8 2 29711 -b 4K -e 1M -f 16 -n 3 -w 1 -c 1
rows | sed 's/^/# /' | cut -c1-160
[ "$(rows | wc -l)" = 3 ] || { echo "not ok: expected 3 rows, got $(rows | wc -l)"; exit 1; }
rows | while read -r row; do
	bytes=$(echo "$row" | field bytes)
	wrong=$(echo "$row" | field wrong)
	algo=$(echo "$row" | field algo)
	want=ring
	[ "$bytes" -lt 262144 ] && want=halving_doubling
	[ "$wrong" = 0 ] || { echo "not ok: $bytes B: $wrong wrong elements"; exit 1; }
	[ "$algo" = "$want" ] || { echo "not ok: $bytes B: algo $algo, expected $want"; exit 1; }
done || exit 1
for r in 0 1 2 3 4 5 6 7; do
	h=$((r / 2))
	pat="\"rank\":$r,\"host\":\"host$h\",.*\"addr\":\"198.18.0.$((h + 1))\""
	tr '{' '\n' <"$tmp/out0" | grep -q "$pat" ||
		{ echo "not ok: rank $r not seen on host$h (198.18.0.$((h + 1)))"; exit 1; }
done
echo "ok: 8 ranks on 4 hosts, sums right at every size, the algorithm coll.c picks"

# 2 ranks on 2 hosts, 1 Gbit/s each way: host 0 and 1's links, both ends
for i in 0 1; do
	setup ip netns exec "${p}h$i" tc qdisc add dev eth0 root tbf rate 1gbit burst 256kb \
		latency 100ms
	setup ip netns exec "${p}sw" tc qdisc add dev "p$i" root tbf rate 1gbit burst 256kb \
		latency 100ms
done
run 2 1 29712 -b 8M -e 8M -n 4 -w 1 -c 1
rows | sed 's/^/# /' | cut -c1-160
busbw=$(rows | field busbw_GBps)
wrong=$(rows | field wrong)
[ "$wrong" = 0 ] || { echo "not ok: 8 MiB over 1 Gbit/s: $wrong wrong elements"; exit 1; }
awk -v b="$busbw" 'BEGIN { exit !(b > 0.0625 && b < 0.125 * 1.05) }' ||
	{ echo "not ok: busbw $busbw GB/s over a 1 Gbit/s (0.125 GB/s) link"; exit 1; }
echo "ok: busbw $busbw GB/s over 1 Gbit/s links"

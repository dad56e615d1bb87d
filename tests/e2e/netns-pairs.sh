#!/usr/bin/env bash
# tests/e2e/netns-pairs.sh - four hosts in network namespaces, joined by veth
# pairs to a bridge (in a fifth, "switch" namespace), one host's link capped
# by tc tbf at 1 Gbit/s both ways: `fabtune bench pairs`, one rank per host
# (manual launch through --bootstrap), must name that host as the outlier.
# Everything lives in namespaces of our own, removed on any exit.
set -u
fabtune=${FABTUNE:?FABTUNE=path/to/fabtune}
[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 77; }
command -v ip >/dev/null && command -v tc >/dev/null || { echo "skip: no iproute2"; exit 77; }
command -v unshare >/dev/null || { echo "skip: no unshare"; exit 77; }
p=ft$$
sw=${p}sw
tmp=$(mktemp -d)
pids=()
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
	for i in 0 1 2 3; do ip netns del "${p}h$i" 2>/dev/null; done
	ip netns del "$sw" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$sw" || { echo "skip: cannot create network namespaces"; exit 77; }
ip -n "$sw" link add br0 type bridge
ip -n "$sw" link set br0 up
for i in 0 1 2 3; do
	h=${p}h$i
	ip netns add "$h"
	ip -n "$sw" link add "p$i" type veth peer name eth0 netns "$h"
	ip -n "$sw" link set "p$i" master br0 up
	ip -n "$h" addr add "198.18.0.$((i + 1))/24" dev eth0
	ip -n "$h" link set eth0 up
	ip -n "$h" link set lo up
done
# host 3's link: 1 Gbit/s out of the host and into it
ip netns exec "${p}h3" tc qdisc add dev eth0 root tbf rate 1gbit burst 256kb latency 100ms
ip netns exec "$sw" tc qdisc add dev p3 root tbf rate 1gbit burst 256kb latency 100ms
# (no ping here: the bootstrap itself proves the path, with its own deadline)
start=$(date +%s)
for i in 3 2 1 0; do
	# real-time priority: the test measures the network, not the scheduler under load
	chrt -r 10 ip netns exec "${p}h$i" unshare --uts sh -c "hostname host$i; exec timeout 60 \"\$0\" \"\$@\"" \
		"$fabtune" bench pairs --rank "$i" --nranks 4 --bootstrap 198.18.0.1:29511 \
		--ifname eth -b 4M --window 4 -n 3 --timeout 20s >"$tmp/out$i" 2>"$tmp/err$i" &
	pids+=($!)
done
rc=0
for pid in "${pids[@]}"; do wait "$pid" || rc=$?; done
pids=()
echo "# pairs took $(($(date +%s) - start)) s, rank 0 exit code $rc"
sed 's/^/# /' "$tmp/out0"
cat "$tmp/err"* | sed 's/^/# stderr: /'
# exit code 1 = "found a problem", and the problem is host3
[ "$rc" = 1 ] || { echo "not ok: expected exit code 1 (outlier found), got $rc"; exit 1; }
grep -q '^# OUTLIER host host3 (rank 3, eth0 198.18.0.4)' "$tmp/out0" ||
	{ echo "not ok: host3 not named as the outlier"; exit 1; }
if grep '^# OUTLIER' "$tmp/out0" | grep -qv 'host3'; then
	echo "not ok: a healthy host was named"; exit 1
fi
echo "ok: pairs names host3 (1 Gbit/s tbf) as the outlier"

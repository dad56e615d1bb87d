#!/usr/bin/env bash
# tests/e2e/perftest-forms.sh - perftest's server and client forms across two
# hosts: two network namespaces joined by a veth pair, the server started in
# the background on one (`fabtune bench ib_send_bw ...`), the client on the
# other (`fabtune bench ib_send_bw ... SERVER`), as perftest users script it.
# The client starts first and must wait for the server; both ends must print
# the whole table, the same rows; over a link capped at 1 Gbit/s by tc tbf the
# bandwidth must be what the cap allows; --json and -p work on both ends; with
# --save each end's archive gets the run, the same rows; perftest's --ipv6-addr
# meets over ::1 where a namespace has no IPv4 address at all; a client with no
# server names HOST:PORT. Namespaces of our own, removed on exit.
set -u
fabtune=${FABTUNE:?FABTUNE=path/to/fabtune}
[ "$(id -u)" = 0 ] || { echo "skip: needs root"; exit 77; }
command -v ip >/dev/null && command -v tc >/dev/null || { echo "skip: no iproute2"; exit 77; }
command -v unshare >/dev/null || { echo "skip: no unshare"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
p=ft$$
srv=${p}srv
cli=${p}cli
tmp=$(mktemp -d)
pids=()
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
	ip netns del "$srv" 2>/dev/null
	ip netns del "$cli" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "not ok: $*"; for f in "$tmp"/*; do sed "s|^|# $(basename "$f"): |" "$f"; done; exit 1; }
ip netns add "$srv" || { echo "skip: cannot create network namespaces"; exit 77; }
ip netns add "$cli"
ip -n "$srv" link add eth0 type veth peer name eth0 netns "$cli"
ip -n "$srv" addr add 198.18.1.1/24 dev eth0
ip -n "$cli" addr add 198.18.1.2/24 dev eth0
for ns in "$srv" "$cli"; do
	ip -n "$ns" link set eth0 up
	ip -n "$ns" link set lo up
done
# one end on host NAME in namespace NS: "on NS NAME OUT -- ARGS"
on() {
	local ns=$1 name=$2 out=$3
	shift 4
	chrt -r 10 ip netns exec "$ns" unshare --uts sh -c "hostname $name; exec timeout 60 \"\$0\" \"\$@\"" \
		"$fabtune" bench "$@" >"$tmp/$out.out" 2>"$tmp/$out.err"
}

# 1. -a, the client first: it retries until the server listens
on "$cli" nodeb client -- ib_send_bw --transport tcp -a -n 100 -F --ifname eth 198.18.1.1 &
cpid=$!
pids+=("$cpid")
sleep 1
on "$srv" nodea server -- ib_send_bw --transport tcp -a -n 100 -F --ifname eth &
spid=$!
pids+=("$spid")
wait "$spid"; src=$?
wait "$cpid"; crc=$?
pids=()
[ "$src" = 0 ] && [ "$crc" = 0 ] || fail "-a: exit codes server $src, client $crc"
for end in server client; do
	rows=$(grep -cE '^ [0-9]+ +100 ' "$tmp/$end.out")
	[ "$rows" = 23 ] || fail "-a: the $end printed $rows rows of 23 (2 B to 8 MiB)"
	grep -q 'BW Test (fabtune)' "$tmp/$end.out" || fail "-a: no title on the $end"
done
diff <(grep -E '^ [0-9]+ +100 ' "$tmp/server.out") <(grep -E '^ [0-9]+ +100 ' "$tmp/client.out") >/dev/null ||
	fail "-a: the two ends printed different rows"
# sane figures: 8 MiB over a veth pair, MiB/s (perftest's MB/sec)
bw=$(awk '$1 == 8388608 { print $4 }' "$tmp/server.out")
awk -v b="$bw" 'BEGIN { exit !(b > 50 && b < 20000) }' || fail "-a: 8 MiB at $bw MB/sec"
echo "# -a: 23 rows on both ends, 8 MiB at $bw MB/sec"
sed 's/^/# server: /' "$tmp/server.out" | head -12

# 2. the link capped at 1 Gbit/s both ways: the bandwidth is the cap's
ip netns exec "$srv" tc qdisc add dev eth0 root tbf rate 1gbit burst 256kb latency 100ms
ip netns exec "$cli" tc qdisc add dev eth0 root tbf rate 1gbit burst 256kb latency 100ms
on "$srv" nodea server -- ib_send_bw --transport tcp -s 1M -n 150 --ifname eth &
spid=$!
pids+=("$spid")
on "$cli" nodeb client -- ib_send_bw --transport tcp -s 1M -n 150 --ifname eth 198.18.1.1 &
cpid=$!
pids+=("$cpid")
wait "$spid"; src=$?
wait "$cpid"; crc=$?
pids=()
[ "$src" = 0 ] && [ "$crc" = 0 ] || fail "tbf: exit codes server $src, client $crc"
for end in server client; do
	bw=$(awk '$1 == 1048576 { print $4 }' "$tmp/$end.out")
	# 1 Gbit/s is 119.2 MiB/s; tbf lets about 0.96 of it through, TCP headers take 3%
	awk -v b="$bw" 'BEGIN { exit !(b > 95 && b < 122) }' ||
		fail "tbf: the $end says 1 MiB at $bw MB/sec, not 95-122 under a 1 Gbit/s cap"
done
echo "# 1 Gbit/s tbf: 1 MiB at $bw MB/sec on both ends"
ip netns exec "$srv" tc qdisc del dev eth0 root
ip netns exec "$cli" tc qdisc del dev eth0 root

# 3. --json on both ends, latency, perftest's -p
on "$srv" nodea server -- ib_send_lat --transport tcp -s 64 -n 500 -p 20515 --ifname eth --json &
spid=$!
pids+=("$spid")
on "$cli" nodeb client -- ib_send_lat --transport tcp -s 64 -n 500 -p 20515 --ifname eth --json 198.18.1.1 &
cpid=$!
pids+=("$cpid")
wait "$spid"; src=$?
wait "$cpid"; crc=$?
pids=()
[ "$src" = 0 ] && [ "$crc" = 0 ] || fail "--json: exit codes server $src, client $crc"
for end in server client; do
	python3 - "$tmp/$end.out" <<'PY' || fail "--json: the $end's document"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"]
assert len(rows) == 1, rows
r = rows[0]
assert r["test"] == "pt2pt_lat" and r["bytes"] == 64, r
assert 0 < r["time_us"] < 10000, r
hosts = sorted(x["host"] for x in d["ranks"])
assert hosts == ["nodea", "nodeb"], hosts
PY
done
cmp -s <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rows"])' "$tmp/server.out") \
	<(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rows"])' "$tmp/client.out") ||
	fail "--json: the two ends' rows differ"
echo "# --json: one pt2pt_lat row on both ends, the same"

# 4. --save on both ends, each host its own archive: the client's archive holds
# the run with the server's figures (rank 0's rows, sent after each size)
arch() { # END: its archive
	echo "$tmp/$1.db"
}
FABTUNE_ARCHIVE=$(arch server) on "$srv" nodea server -- ib_send_bw --transport tcp -a \
	-n 100 -p 20517 --ifname eth --save &
spid=$!
pids+=("$spid")
FABTUNE_ARCHIVE=$(arch client) on "$cli" nodeb client -- ib_send_bw --transport tcp -a \
	-n 100 -p 20517 --ifname eth --save 198.18.1.1 &
cpid=$!
pids+=("$cpid")
wait "$spid"; src=$?
wait "$cpid"; crc=$?
pids=()
[ "$src" = 0 ] && [ "$crc" = 0 ] || fail "--save: exit codes server $src, client $crc"
for end in server client; do
	FABTUNE_ARCHIVE=$(arch $end) "$fabtune" archive export -o "$tmp/$end.export.json" \
		2>"$tmp/$end.export.err" || fail "--save: the $end's archive cannot be exported"
done
python3 - "$tmp/server.export.json" "$tmp/client.export.json" <<'PY' || fail "--save: the two archives"
import json, sys
runs = [json.load(open(f))["runs"] for f in sys.argv[1:]]
assert [len(r) for r in runs] == [1, 1], [len(r) for r in runs]
srv, cli = runs[0][0], runs[1][0]
rows = [sorted((x["bytes"], x["busbw_GBps"], x["time_us"]) for x in r["rows"]) for r in (srv, cli)]
assert [x[0] for x in rows[1]] == [2 << i for i in range(23)], rows[1]
assert rows[0] == rows[1], rows
assert all(x[1] > 0 for x in rows[1]), rows[1]
print("# --save: one run in each archive, %d rows, the same figures" % len(rows[1]))
PY
[ $? = 0 ] || fail "--save: the two archives"

# 5. IPv6, perftest's --ipv6-addr: both ends in a namespace whose only address
# is ::1 (127.0.0.1 removed), so that the handshake and the data can only go
# over IPv6; then a server without the flag (IPv4 only) and a client that
# names ::1, and a client with the flag that names an IPv4 address
ip -n "$srv" addr del 127.0.0.1/8 dev lo
ip -n "$srv" link set eth0 down
on "$srv" nodea server -- ib_send_bw --transport tcp -s 64K -n 200 -p 20518 --ifname lo --ipv6-addr &
spid=$!
pids+=("$spid")
on "$srv" nodeb client -- ib_send_bw --transport tcp -s 64K -n 200 -p 20518 --ifname lo --ipv6-addr ::1 &
cpid=$!
pids+=("$cpid")
wait "$spid"; src=$?
wait "$cpid"; crc=$?
pids=()
[ "$src" = 0 ] && [ "$crc" = 0 ] || fail "--ipv6-addr: exit codes server $src, client $crc"
for end in server client; do
	grep -qE '^ 65536 +200 ' "$tmp/$end.out" || fail "--ipv6-addr: no 64 KiB row on the $end"
done
echo "# --ipv6-addr over ::1: $(grep -E '^ 65536 +200 ' "$tmp/client.out")"
on "$srv" nodea server -- ib_send_bw --transport tcp -s 64K -n 20 -p 20519 -T 3s --ifname lo &
spid=$!
pids+=("$spid")
on "$srv" nodeb client -- ib_send_bw --transport tcp -s 64K -n 20 -p 20519 -T 2s --ifname lo ::1
crc=$?
wait "$spid"
pids=()
[ "$crc" != 0 ] || fail "IPv4-only server: the IPv6 client exited 0"
grep -q 'client: cannot reach the server at \[::1\]:20519: .*::1 is an IPv6 address, and a server started without --ipv6-addr listens on IPv4 only' \
	"$tmp/client.err" || fail "IPv4-only server: the client does not say why"
sed 's/^/# /' "$tmp/client.err"
on "$cli" nodeb client -- ib_send_bw --transport tcp -s 64K -T 2s --ifname eth --ipv6-addr 198.18.1.1
crc=$?
[ "$crc" != 0 ] || fail "--ipv6-addr to an IPv4 address: the client exited 0"
grep -q "client: --ipv6-addr: server '198.18.1.1' has no IPv6 address" "$tmp/client.err" ||
	fail "--ipv6-addr to an IPv4 address: the client does not say so"
sed 's/^/# /' "$tmp/client.err"
ip -n "$srv" link set eth0 up

# 6. no server: the client names HOST:PORT after -T
on "$cli" nodeb client -- ib_send_bw --transport tcp -s 1M -T 2s --ifname eth 198.18.1.1
crc=$?
[ "$crc" != 0 ] || fail "no server: the client exited 0"
grep -q 'client: cannot reach the server at 198.18.1.1:18515' "$tmp/client.err" ||
	fail "no server: the message does not name 198.18.1.1:18515"
sed 's/^/# /' "$tmp/client.err"
echo "ok: perftest's server and client forms across two namespaces"

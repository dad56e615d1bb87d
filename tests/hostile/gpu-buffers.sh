#!/usr/bin/env bash
# tests/hostile/gpu-buffers.sh - bench --gpu-buffers over shm, tcp and ucx through a
# test double of the CUDA driver (tests/hostile/fake_cuda.c), as TAP: the
# results verify (-c 1, #wrong 0), the JSON and the table say where the
# buffers were, and the driver calls are exactly those the staging needs:
# two device buffers, pinned host buffers (cuMemHostAlloc for tcp, the shm
# segment registered in place), one copy down and one up per operation, no
# copy from pageable memory and no bad pointer. Without a driver, or with
# one that sees no GPU, the option fails with exit 2 and says why.
set -u
fabtune=${1:?usage: gpu-buffers.sh PATH-TO-FABTUNE}
fake=${FT_FAKE_CUDA:?FT_FAKE_CUDA: path of the fake libcuda}
export LC_ALL=C TZ=UTC NO_COLOR=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() {
	n=$((n + 1)); fail=$((fail + 1)); echo "not ok $n - $1"
	sed 's/^/# /' "$tmp/out" "$tmp/err" | head -n 40
}

# Three sizes, -w 5 -n 20, both variants (out-of-place, in-place), -c 1.
# Per variant: the check pass (inputs up, one staged operation, output down:
# 2 + 1 each way) and 25 staged operations; before the sweep, -w operations at
# the largest and at the smallest size; at the start, both device buffers get
# the host buffers' contents. Per rank: dtoh 3 x 2 x 27 + 10 = 172,
# htod 172 + 2 = 174.
common=(all_reduce --np 2 -b 1K -e 4K -n 20 -w 5 -c 1 --gpu-buffers)
for t in shm tcp; do
	if [ "$t" = tcp ]; then
		pin="hostalloc 2 freehost 2 register 0 unregister 0"
	else
		pin="hostalloc 0 freehost 0 register 2 unregister 2"
	fi
	want="fake cuda: alloc 2 free 2 $pin dtoh 172 htod 174 dtod 0 launches 0 modules 0 bad 0 pageable 0"
	FABTUNE_CUDA_LIBRARY=$fake FAKE_CUDA_TRACE=1 timeout -k 5 120 \
		"$fabtune" bench "${common[@]}" --transport "$t" --json >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" != 0 ]; then
		notok "$t: rc $rc"
		continue
	fi
	if python3 - "$tmp/out" "$t" <<'PY'; then ok "$t: results verify, buffers device-staged"; else notok "$t: JSON"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d["transport"] == sys.argv[2], d["transport"]
assert d["buffers"] == "device-staged", d["buffers"]
rows = d["rows"]
assert [r["bytes"] for r in rows] == [1024, 2048, 4096], rows
assert all(r["wrong"] == 0 for r in rows), rows
assert all(r["time_us"] > 0 and r["ip_time_us"] > 0 for r in rows), rows
PY
	got=$(grep -c "^$want\$" "$tmp/err")
	if [ "$got" = 2 ]; then
		ok "$t: driver calls of both ranks"
	else
		notok "$t: driver calls: want twice '$want'"
	fi
done

# ucx stages the same way (UCX over its shared-memory transport), when built in.
want="fake cuda: alloc 2 free 2 hostalloc 2 freehost 2 register 0 unregister 0 dtoh 172 htod 174 dtod 0 launches 0 modules 0 bad 0 pageable 0"
UCX_TLS=shm,self FABTUNE_CUDA_LIBRARY=$fake FAKE_CUDA_TRACE=1 timeout -k 5 120 \
	"$fabtune" bench "${common[@]}" --transport ucx --json >"$tmp/out" 2>"$tmp/err"
rc=$?
if grep -q "ucx: not available" "$tmp/err"; then
	n=$((n + 1)); echo "ok $n - ucx # SKIP built without UCX"
elif [ "$rc" = 0 ] && [ "$(grep -c "^$want\$" "$tmp/err")" = 2 ] &&
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["buffers"] == "device-staged" and all(r["wrong"] == 0 for r in d["rows"])' "$tmp/out"; then
	ok "ucx: results verify, driver calls of both ranks"
else
	notok "ucx: rc $rc"
fi

# The table says it too, and a wrong result would show: a fake GPU that
# corrupts nothing gives #wrong 0 in every row.
FABTUNE_CUDA_LIBRARY=$fake timeout -k 5 120 "$fabtune" bench "${common[@]}" --transport shm \
	>"$tmp/out" 2>"$tmp/err"
if [ $? = 0 ] && grep -q '^# buffers: GPU memory, staged through pinned host memory' "$tmp/out"; then
	ok "table: buffers line"
else
	notok "table: buffers line"
fi

# copy_matrix's SM rows: the PTX module loaded once per GPU, one launch per
# pair for the check (-c 1), -w and -n launches timed; the copy engine rows
# come from the fake runtime (one GPU). Two fake GPUs: 6 ordered pairs with
# the host, 13 launches each.
nccl=${FT_FAKE_NCCL:?FT_FAKE_NCCL: path of the fake libnccl and runtime}
cm() { # extra-env... (then the copy_matrix run)
	env FABTUNE_CUDART_LIBRARY="$nccl" FABTUNE_CUDA_LIBRARY="$fake" FAKE_CUDA_TRACE=1 "$@" \
		timeout -k 5 60 "$fabtune" bench copy_matrix -e 1M -n 10 -w 2 --json \
		>"$tmp/out" 2>"$tmp/err"
}
cm_rows() { # python expression over the rows, as "algo src>dst wrong" strings
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join("%s:%s>%s:%d" % (r["algo"], r["src"], r["dst"], r["wrong"]) for r in d["rows"]))' "$tmp/out"
}
cm FAKE_CUDA_DEVICES=2
want="ce:host>gpu0:-1 ce:gpu0>host:-1 sm:host>gpu0:0 sm:host>gpu1:0 sm:gpu0>host:0 sm:gpu0>gpu1:0 sm:gpu1>host:0 sm:gpu1>gpu0:0"
if [ "$(cm_rows)" = "$want" ] &&
	grep -q "^fake cuda: alloc 2 free 2 hostalloc 1 freehost 1 .* dtoh 4 htod 4 dtod 0 launches 78 modules 2 bad 0 " "$tmp/err"; then
	ok "copy_matrix: sm rows for every pair, 78 launches, copies verified"
else
	notok "copy_matrix: sm rows ($(cm_rows))"
fi
cm FAKE_CUDA_DEVICES=2 FAKE_CUDA_PEER=0
want="ce:host>gpu0:-1 ce:gpu0>host:-1 sm:host>gpu0:0 sm:host>gpu1:0 sm:gpu0>host:0 sm:gpu1>host:0"
if [ "$(cm_rows)" = "$want" ] && grep -q " launches 52 modules 2 bad 0 " "$tmp/err"; then
	ok "copy_matrix: no peer access, no GPU-to-GPU sm row"
else
	notok "copy_matrix: no peer access ($(cm_rows))"
fi
cm FAKE_CUDA_CORRUPT=1
want="ce:host>gpu0:-1 ce:gpu0>host:-1 sm:host>gpu0:1 sm:gpu0>host:1"
if [ "$(cm_rows)" = "$want" ]; then
	ok "copy_matrix: a kernel that copies wrong is counted (#wrong 1)"
else
	notok "copy_matrix: corrupt copy ($(cm_rows))"
fi
env FABTUNE_CUDART_LIBRARY="$nccl" FABTUNE_CUDA_LIBRARY="$fake" FAKE_CUDA_DEVICES=1 \
	timeout -k 5 60 "$fabtune" bench copy_matrix -e 64K -n 2 -w 1 >"$tmp/out" 2>"$tmp/err"
if grep -q '^# memcpy CE bandwidth' "$tmp/out" && grep -q '^# memcpy SM bandwidth (GB/s), 65536 bytes' "$tmp/out"; then
	ok "copy_matrix: table has a CE and an SM matrix"
else
	notok "copy_matrix: table"
fi

# Point to point: ping-pong copies the message down before each send and up
# after each receive, on both ranks (-w 2 -n 10: 12 round trips; one more
# copy up fills the device buffer at the start). Streaming: rank 0 copies
# each of its messages down, rank 1 each up: 100 timed and, before them,
# the default 5 untimed windows of 10 (-w), 150 each way.
FABTUNE_CUDA_LIBRARY=$fake FAKE_CUDA_TRACE=1 timeout -k 5 60 "$fabtune" bench pt2pt_lat \
	--np 2 --transport tcp -s 4K -n 10 -w 2 --gpu-buffers --json >"$tmp/out" 2>"$tmp/err"
want="fake cuda: alloc 1 free 1 hostalloc 1 freehost 1 register 0 unregister 0 dtoh 12 htod 13 "
if [ "$(grep -c "^$want" "$tmp/err")" = 2 ] && grep -q '"buffers":"device-staged"' "$tmp/out"; then
	ok "pt2pt_lat: one copy each way per message on both ranks"
else
	notok "pt2pt_lat: driver calls"
fi
FABTUNE_CUDA_LIBRARY=$fake FAKE_CUDA_TRACE=1 timeout -k 5 60 "$fabtune" bench pt2pt_bw \
	--np 2 --transport shm -s 64K -n 100 --window 10 --gpu-buffers >"$tmp/out" 2>"$tmp/err"
if grep -q "^fake cuda: alloc 2 free 2 hostalloc 2 freehost 2 .* dtoh 150 htod 2 .* bad 0 pageable 0" "$tmp/err" &&
	grep -q "^fake cuda: alloc 2 free 2 hostalloc 2 freehost 2 .* dtoh 0 htod 152 .* bad 0 pageable 0" "$tmp/err"; then
	ok "pt2pt_bw: the sender copies each message down, the receiver each up"
else
	notok "pt2pt_bw: driver calls"
fi

# ucx pt2pt: a UCX without CUDA support (UCX_TLS=shm,self has no cuda
# transport) gets the staged buffers, one copy per message as above.
UCX_TLS=shm,self FABTUNE_CUDA_LIBRARY=$fake FAKE_CUDA_TRACE=1 timeout -k 5 60 "$fabtune" bench \
	pt2pt_bw --np 2 --transport ucx -s 64K -n 100 --window 10 --gpu-buffers --json \
	>"$tmp/out" 2>"$tmp/err"
if grep -q "ucx: not available" "$tmp/err"; then
	n=$((n + 1)); echo "ok $n - ucx pt2pt # SKIP built without UCX"
elif grep -q '"buffers":"device-staged"' "$tmp/out" &&
	grep -q "^fake cuda: alloc 2 free 2 hostalloc 2 freehost 2 .* dtoh 150 htod 2 .* bad 0 pageable 0" "$tmp/err" &&
	grep -q "^fake cuda: alloc 2 free 2 hostalloc 2 freehost 2 .* dtoh 0 htod 152 .* bad 0 pageable 0" "$tmp/err"; then
	ok "ucx pt2pt_bw without CUDA support in UCX: staged"
else
	notok "ucx pt2pt_bw: staging"
fi

# pairs, bisection and incast stage as pt2pt does: -n 4 --window 5 is 20
# messages per stream, after -w 5 untimed windows of 5 (25) for pairs and
# bisection. pairs (2 ranks): one stream each way (45 down, 45 up) and the
# 8-byte latency probe (10 warm-up + 100 round trips, one copy each way
# per round trip on both ranks), 3 buffers each filled once: dtoh 155,
# htod 158. bisection (4 ranks, --rounds 3): per round one stream each way
# with a partner: dtoh 135, htod 135 + 6. incast (3 ranks): the sender copies
# each of its 20 messages down; the root copies each up as it lands (one
# buffer per phase: htod 2 + 20); the victim ping-pongs in both phases.
p2p=(--transport tcp -s 16K -n 4 --window 5 --gpu-buffers --json)
stage_case() { # name pattern-args expected-lines...
	local name=$1 args=$2 line
	shift 2
	# shellcheck disable=SC2086
	FABTUNE_CUDA_LIBRARY=$fake FAKE_CUDA_TRACE=1 timeout -k 5 90 "$fabtune" bench $args \
		"${p2p[@]}" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	for line in "$@"; do
		local want=${line#*x } times=${line%%x *}
		if [ "$(grep -c "^fake cuda: $want bad 0 pageable 0\$" "$tmp/err")" != "$times" ]; then
			notok "$name: driver calls: want $times x '$want' (rc $rc)"
			return
		fi
	done
	if [ "$rc" = 0 ] && python3 - "$tmp/out" <<'PY'; then ok "$name: staged, one copy per message"; else notok "$name: JSON (rc $rc)"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d["buffers"] == "device-staged", d["buffers"]
assert d["rows"], d
PY
}
c0="register 0 unregister 0"
c1="dtod 0 launches 0 modules 0"
stage_case pairs "pairs --np 2" \
	"2x alloc 3 free 3 hostalloc 3 freehost 3 $c0 dtoh 155 htod 158 $c1"
stage_case bisection "bisection --np 4 --rounds 3" \
	"4x alloc 6 free 6 hostalloc 6 freehost 6 $c0 dtoh 135 htod 141 $c1"
stage_case incast "incast --np 3" \
	"1x alloc 1 free 1 hostalloc 1 freehost 1 $c0 dtoh 20 htod 1 $c1" \
	"1x alloc 2 free 2 hostalloc 2 freehost 2 $c0 dtoh 0 htod 22 $c1" \
	"1x alloc 2 free 2 hostalloc 2 freehost 2 $c0 dtoh 220 htod 222 $c1"

# No driver, no GPU, a transport without a GPU path.
check_fail() { # name expected-stderr-substring args...
	local name=$1 want=$2
	shift 2
	timeout -k 5 60 "$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	if [ "$rc" = 2 ] && grep -qF -- "$want" "$tmp/err" && [ ! -s "$tmp/out" ]; then
		ok "$name"
	else
		notok "$name (rc $rc)"
	fi
}
check_fail "no driver: exit 2" "--gpu-buffers: not available: FABTUNE_CUDA_LIBRARY=$tmp/none.so" \
	env FABTUNE_CUDA_LIBRARY="$tmp/none.so" "$fabtune" bench "${common[@]}" --transport tcp
check_fail "no GPU: exit 2" "--gpu-buffers: not available: the CUDA driver sees no GPU" \
	env FABTUNE_CUDA_LIBRARY="$fake" FAKE_CUDA_DEVICES=0 "$fabtune" bench "${common[@]}" --transport shm

echo "1..$n"
[ "$fail" = 0 ]

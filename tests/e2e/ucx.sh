#!/usr/bin/env bash
# tests/e2e/ucx.sh - the ucx transport over UCX's shared-memory and tcp
# transports (UCX_TLS), ranks started by --np: collectives validated
# element by element, a ping-pong and a stream whose rows must be there.
# Skips (77) when fabtune was built without libucx.
set -u
fabtune=${FABTUNE:?FABTUNE=path/to/fabtune}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if "$fabtune" bench pt2pt_lat --transport ucx 2>&1 | grep -q "built without libucx"; then
	echo "skip: built without libucx"
	exit 77
fi
fail=0
check() { # name file: rows present, every collective row validated and right
	local name=$1 f=$2
	if ! grep -q '"rows":\[{' "$f"; then
		echo "not ok: $name: no rows"; cat "$f"; fail=1; return
	fi
	if grep -q '"wrong":[1-9]' "$f" || grep -q '"wrong":-1' "$f"; then
		echo "not ok: $name: wrong or unchecked elements"; cat "$f"; fail=1; return
	fi
	if ! grep -q '"transport":"ucx"' "$f"; then
		echo "not ok: $name: not run over ucx"; cat "$f"; fail=1; return
	fi
	echo "ok: $name"
}
# UCX's tcp transport leaves loopback out unless it is named
for tls in "shm,self" "tcp,self"; do
	name=${tls%%,*}
	UCX_TLS=$tls UCX_NET_DEVICES=all timeout 60 "$fabtune" bench all_reduce --np 3 \
		--transport ucx -b 3K -e 3M -f 32 -n 2 -w 1 --json >"$tmp/ar.$name" 2>"$tmp/ar.err.$name"
	check "ucx/$name all_reduce, 3 ranks" "$tmp/ar.$name"
	UCX_TLS=$tls UCX_NET_DEVICES=all timeout 60 "$fabtune" bench alltoall --np 2 \
		--transport ucx -b 1K -e 1M -f 32 -n 2 -w 1 -d int32 --json >"$tmp/a2a.$name" \
		2>"$tmp/a2a.err.$name"
	check "ucx/$name alltoall, int32" "$tmp/a2a.$name"
	UCX_TLS=$tls UCX_NET_DEVICES=all timeout 60 "$fabtune" bench reduce_scatter --np 3 \
		--transport ucx -b 3K -e 96K -f 32 -n 2 -w 1 -d bfloat16 -o mulsum --json \
		>"$tmp/rs.$name" 2>"$tmp/rs.err.$name"
	check "ucx/$name reduce_scatter, bfloat16 mulsum" "$tmp/rs.$name"
	UCX_TLS=$tls UCX_NET_DEVICES=all timeout 60 "$fabtune" bench pt2pt_lat --np 2 \
		--transport ucx -b 8 -e 64K -f 64 -n 200 --json >"$tmp/lat.$name" 2>"$tmp/lat.err.$name"
	if grep -q '"lat_p50_us":[0-9]' "$tmp/lat.$name"; then
		echo "ok: ucx/$name pt2pt_lat"
	else
		echo "not ok: ucx/$name pt2pt_lat"; cat "$tmp/lat.$name" "$tmp/lat.err.$name"; fail=1
	fi
	UCX_TLS=$tls UCX_NET_DEVICES=all timeout 60 "$fabtune" bench pt2pt_bw --np 2 \
		--transport ucx -s 1M -n 200 --json >"$tmp/bw.$name" 2>"$tmp/bw.err.$name"
	if grep -q '"algbw_GBps":[0-9.]*[1-9]' "$tmp/bw.$name"; then
		echo "ok: ucx/$name pt2pt_bw"
	else
		echo "not ok: ucx/$name pt2pt_bw"; cat "$tmp/bw.$name" "$tmp/bw.err.$name"; fail=1
	fi
done
# a UCX_TLS that names nothing usable: a clear error, not a hang
UCX_TLS=nosuch timeout 60 "$fabtune" bench all_reduce --np 2 --transport ucx -b 1K \
	>"$tmp/bad.out" 2>"$tmp/bad.err"
rc=$?
if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && grep -q "ucx" "$tmp/bad.err"; then
	echo "ok: ucx with an unusable UCX_TLS fails with a message"
else
	echo "not ok: ucx with UCX_TLS=nosuch (rc $rc)"; cat "$tmp/bad.err"; fail=1
fi
exit $fail

#!/usr/bin/env bash
# tests/device/run.sh - the GPU check: on a machine with a GPU, build fabtune,
# prove the hand-written NCCL/CUDA declarations against the local headers,
# then run the nccl transport on one GPU (an all_reduce size sweep, the same
# with -G (CUDA graphs) against plain launches, and
# nccl-tests' -d all -o all), the device-to-device copy bandwidth test, the
# host/GPU copy matrix with its copy-engine and copy-kernel (SM) rows side by
# side, and --gpu-buffers over shm, tcp and nccl (and verbs with GPUDirect RDMA where an RDMA
# device exists), printing figures to compare with
# nccl-tests (its all_reduce_perf is run too when it is in PATH).
# Without a GPU it prints "skipped: ..." and exits 0. Bounded: < 5 minutes.
set -u
cd "$(dirname "$0")/../.." || exit 1
if ! ls /dev/nvidia[0-9]* >/dev/null 2>&1; then
	echo "skipped: no GPU on this machine (no /dev/nvidia0)"
	exit 0
fi
if command -v nvidia-smi >/dev/null && ! timeout 30 nvidia-smi -L >/dev/null 2>&1; then
	echo "skipped: nvidia-smi sees no GPU"
	exit 0
fi
command -v nvidia-smi >/dev/null && timeout 30 nvidia-smi -L
build=${BUILD:-build-device}
fail=0

# FABTUNE=PATH runs a fabtune built elsewhere (a machine without the -dev
# packages: bring the binary and its shared libraries, on LD_LIBRARY_PATH).
if [ -n "${FABTUNE:-}" ]; then
	fabtune=$FABTUNE
	"$fabtune" version || { echo "FAIL: $fabtune does not run"; exit 1; }
else
	echo "== build"
	if [ ! -f "$build/build.ninja" ]; then
		timeout 120 meson setup "$build" >/dev/null || { echo "FAIL: meson setup"; exit 1; }
	fi
	timeout 200 ninja -C "$build" >/dev/null || { echo "FAIL: build"; exit 1; }
	fabtune=$build/cli/fabtune
fi

echo "== ABI of the dlopen'd libraries against the local headers"
inc=""
for d in ${CUDA_HOME:-} /usr/local/cuda /usr/local/cuda-* /usr; do
	[ -n "$d" ] && [ -f "$d/include/nccl.h" ] && [ -f "$d/include/cuda_runtime.h" ] &&
		{ inc=$d/include; break; }
done
if [ -n "$inc" ]; then
	if cc -std=c11 -fsyntax-only -I"$inc" tests/device/abi_check.c 2>/tmp/ft-abi.$$; then
		echo "ok: declarations match $inc/nccl.h and cuda_runtime.h"
	else
		echo "FAIL: declarations differ from $inc"; cat /tmp/ft-abi.$$; fail=1
	fi
	rm -f /tmp/ft-abi-check.$$ /tmp/ft-abi.$$
else
	echo "note: no nccl.h/cuda_runtime.h found; ABI check skipped (not needed to run)"
fi

echo "== nccl transport, one GPU, all_reduce sweep"
if ! timeout 120 "$fabtune" bench all_reduce --transport nccl -b 8 -e 256M -f 4 -n 20 -w 5; then
	echo "FAIL: fabtune bench --transport nccl"; fail=1
fi

echo "== nccl transport, -G 4: each size's 20 operations captured into a CUDA graph, launched 4 times"
# on a GPU the graph saves the host's launch overhead: small sizes must not be slower than
# without it (a graph time above 1.5x the plain one is a fault), large ones the same
if timeout 120 "$fabtune" bench all_reduce --transport nccl -b 8 -e 64M -f 8 -n 20 -w 5 -G 4 \
	--json >/tmp/ft-g.$$ && timeout 120 "$fabtune" bench all_reduce --transport nccl -b 8 \
	-e 64M -f 8 -n 20 -w 5 --json >/tmp/ft-p.$$; then
	tr '{' '\n' </tmp/ft-g.$$ | grep -o '"bytes":[0-9]*\|"time_us":[0-9.e+-]*' | paste - - >/tmp/ft-g2.$$
	tr '{' '\n' </tmp/ft-p.$$ | grep -o '"bytes":[0-9]*\|"time_us":[0-9.e+-]*' | paste - - >/tmp/ft-p2.$$
	paste /tmp/ft-g2.$$ /tmp/ft-p2.$$ | awk -F'[:\t]' '{ printf "  %12d B  graph %9.2f us  plain %9.2f us\n", $2, $4, $8;
		if ($4 > 1.5 * $8) bad = 1 } END { exit bad }' || { echo "FAIL: -G slower than plain launches"; fail=1; }
else
	echo "FAIL: fabtune bench --transport nccl -G 4"; fail=1
fi
rm -f /tmp/ft-g.$$ /tmp/ft-p.$$ /tmp/ft-g2.$$ /tmp/ft-p2.$$

echo "== device-to-device copy bandwidth (cudaMemcpy through the dlopen'd runtime)"
if ! timeout 60 "$fabtune" bench dev_memcpy -b 1M -e 1G -f 4 -n 20 -w 3 --json |
	tr '{' '\n' | awk -F'[:,]' '/"bytes"/ {
		for (i = 1; i < NF; i++) { if ($i == "\"bytes\"") b = $(i+1); if ($i == "\"time_us\"") t = $(i+1);
			if ($i == "\"algbw_GBps\"") a = $(i+1) }
		printf "  %12d B  %10.1f us  %8.1f GB/s copied (%.1f GB/s of memory traffic)\n", b, t, a, 2 * a }'; then
	echo "FAIL: dev_memcpy"; fail=1
fi

echo "== copy matrix: host <-> every GPU, GPU <-> GPU, copy engines (CE) and a copy kernel (SM)"
if timeout 90 "$fabtune" bench copy_matrix -e 256M -n 10 -w 2 >/tmp/ft-cm.$$ 2>&1 &&
	timeout 90 "$fabtune" bench copy_matrix -e 256M -n 10 -w 2 --json >/tmp/ft-cmj.$$; then
	cat /tmp/ft-cm.$$
	# a PCIe Gen3 x16 link moves 12 GB/s: host -> gpu0 below 1 GB/s is a fault
	if ! awk '/^# memcpy CE/ { ce = 1 } /^# memcpy SM/ { ce = 0 }
		ce && $1 == "host" { v = $3 } END { exit !(v + 0 > 1) }' /tmp/ft-cm.$$; then
		echo "FAIL: host -> gpu0 at most 1 GB/s"; fail=1
	fi
	# the PTX kernel must copy right (-c: #wrong 0 on every sm row) and reach a
	# useful fraction of the copy engine's rate: SM/CE per pair, below 0.25 is a fault
	# (nvbandwidth sees the SM copies within about 10% of CE over PCIe and NVLink)
	if ! python3 - /tmp/ft-cmj.$$ <<'PY'; then echo "FAIL: SM copies"; fail=1; fi
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
ce = {(r["src"], r["dst"]): r["algbw_GBps"] for r in rows if r["algo"] == "ce"}
sm = {(r["src"], r["dst"]): r for r in rows if r["algo"] == "sm"}
bad = 0
if not sm:
    print("  no sm rows"); sys.exit(1)
for k, r in sorted(sm.items()):
    ratio = r["algbw_GBps"] / ce[k] if ce.get(k) else float("nan")
    print("  %-5s -> %-5s  SM %7.1f GB/s  CE %7.1f GB/s  SM/CE %.2f  #wrong %d"
          % (k[0], k[1], r["algbw_GBps"], ce.get(k, float("nan")), ratio, r["wrong"]))
    bad += r["wrong"] != 0 or not ratio > 0.25
sys.exit(1 if bad else 0)
PY
else
	cat /tmp/ft-cm.$$; echo "FAIL: copy_matrix"; fail=1
fi
rm -f /tmp/ft-cm.$$ /tmp/ft-cmj.$$

echo "== --gpu-buffers: all_reduce on device buffers over shm and tcp (staged), nccl (direct)"
# The staged transports pay two copies per operation, in the measured time: the
# figures are printed next to the host-buffer run, and every row must verify.
for t in shm tcp; do
	if timeout 120 "$fabtune" bench all_reduce --np 2 --transport "$t" -b 1M -e 64M -f 8 \
		-n 10 -w 2 --gpu-buffers --json >/tmp/ft-gb.$$ &&
		timeout 120 "$fabtune" bench all_reduce --np 2 --transport "$t" -b 1M -e 64M -f 8 \
		-n 10 -w 2 --json >/tmp/ft-hb.$$; then
		python3 - /tmp/ft-gb.$$ /tmp/ft-hb.$$ "$t" <<'PY' || { echo "FAIL: --gpu-buffers $t"; fail=1; }
import json, sys
g, h = (json.load(open(p)) for p in sys.argv[1:3])
assert g["buffers"] == "device-staged", g["buffers"]
bad = 0
for rg, rh in zip(g["rows"], h["rows"]):
    print("  %s %10d B  device %9.1f us  host %9.1f us  #wrong %d"
          % (sys.argv[3], rg["bytes"], rg["time_us"], rh["time_us"], rg["wrong"]))
    bad += rg["wrong"] != 0
sys.exit(1 if bad else 0)
PY
	else
		echo "FAIL: --gpu-buffers over $t"; fail=1
	fi
done
if ! timeout 120 "$fabtune" bench all_reduce --transport nccl -b 1M -e 64M -f 8 -n 10 -w 2 \
	--gpu-buffers --json | grep -q '"buffers":"device"'; then
	echo "FAIL: --gpu-buffers over nccl"; fail=1
fi
rm -f /tmp/ft-gb.$$ /tmp/ft-hb.$$
# ucx: with a UCX built with CUDA support the device pointers go to UCX itself
# ("buffers":"device"); without it the messages are staged ("device-staged")
if "$fabtune" bench pt2pt_bw --transport ucx --np 2 -s 1M -n 10 2>&1 | grep -q "not available"; then
	echo "note: no ucx transport in this build"
elif timeout 60 "$fabtune" bench pt2pt_bw --np 2 --transport ucx -s 64M -n 50 --gpu-buffers \
	--json >/tmp/ft-ux.$$; then
	echo "  ucx pt2pt_bw 64M: buffers $(grep -o '"buffers":"[a-z-]*"' /tmp/ft-ux.$$)" \
		"$(grep -o '"algbw_GBps":[0-9.e+-]*' /tmp/ft-ux.$$ | head -1)"
else
	echo "FAIL: --gpu-buffers over ucx"; fail=1
fi
rm -f /tmp/ft-ux.$$

# verbs: GPUDirect RDMA where an RDMA device with an active port exists. The
# device buffers are registered with the adapter (dmabuf, else nvidia-peermem)
# and the JSON says which; a host without either says "not available: ..."
# with both reasons, which is reported, not failed. Also -q 4 and -c UD on
# host memory, and an ib_write_bw-style run for the figures.
if ! ls /sys/class/infiniband/ 2>/dev/null | grep -q .; then
	echo "note: no RDMA device (/sys/class/infiniband is empty): GPUDirect RDMA not run"
else
	echo "== verbs: GPUDirect RDMA, -q 4, -c UD"
	if timeout 60 "$fabtune" bench pt2pt_bw --np 2 --transport verbs --verbs-op write \
		-s 64M -n 50 --gpu-buffers --json >/tmp/ft-gd.$$ 2>/tmp/ft-gde.$$; then
		echo "  verbs write 64M on GPU memory: $(grep -o '"buffers":"[a-z-]*"' /tmp/ft-gd.$$)" \
			"$(grep -o '"algbw_GBps":[0-9.e+-]*' /tmp/ft-gd.$$ | head -1)"
		grep -q '"buffers":"device-\(dmabuf\|peermem\)"' /tmp/ft-gd.$$ ||
			{ echo "FAIL: verbs --gpu-buffers: buffers"; fail=1; }
	elif grep -q "not available" /tmp/ft-gde.$$; then
		echo "note: $(cat /tmp/ft-gde.$$)"
	else
		cat /tmp/ft-gde.$$; echo "FAIL: verbs --gpu-buffers"; fail=1
	fi
	timeout 60 "$fabtune" bench pt2pt_bw --np 2 --transport verbs -q 4 -s 1M -n 200 |
		grep -E "Number of qps|^ *1048576" || { echo "FAIL: verbs -q 4"; fail=1; }
	timeout 60 "$fabtune" bench pt2pt_bw --np 2 --transport verbs -c UD -s 2048 -n 1000 |
		grep -E "Connection type|^ *2048" || { echo "FAIL: verbs -c UD"; fail=1; }
	# ib_atomic_bw: the remote word must move by exactly -n (#wrong 0)
	timeout 60 "$fabtune" bench pt2pt_bw --np 2 --transport verbs -A FETCH_AND_ADD -s 8 \
		-n 100000 --json | grep -q '"wrong":0' || { echo "FAIL: verbs atomics"; fail=1; }
	rm -f /tmp/ft-gd.$$ /tmp/ft-gde.$$
fi

echo "== nccl-tests' flags and table: -g 1 -d all, sizes 8 B to 1 MiB"
# (the table goes to a file first: a pipe into tail would hide fabtune's exit status)
if timeout 60 "$fabtune" bench all_reduce --transport nccl -g 1 -b 8 -e 1M -f 32 -n 5 -w 1 \
	-d all -o all >/tmp/ft-da.$$; then
	tail -4 /tmp/ft-da.$$
else
	tail -4 /tmp/ft-da.$$; echo "FAIL: nccl with -d all -o all"; fail=1
fi
rm -f /tmp/ft-da.$$

if command -v all_reduce_perf >/dev/null; then
	echo "== nccl-tests all_reduce_perf, same sweep, for comparison"
	timeout 60 all_reduce_perf -b 8 -e 256M -f 4 -g 1 -n 20 -w 5 | grep -v '^#  Rank'
else
	echo "note: all_reduce_perf not in PATH: compare the table above with nccl-tests by hand"
fi
exit $fail

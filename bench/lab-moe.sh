#!/usr/bin/env bash
# bench/lab-moe.sh - lab 5 (docs/scenarios/lab-moe-alltoall.md): the MoE
# all-to-all, flat against hierarchical, on the packet engine at 64 and 512
# GPUs (1,024 too with LARGE=1: about 1M sends, a minute of CPU and 0.4 GB;
# 4,096 with FULL=1: 16.8M sends, built as they start, packet engine only:
# the flow engine does not finish it under ECMP), each next to the
# flow engine on the same scenario (the peer: the same traffic as a fluid,
# without queues or congestion control). Prints per form and
# engine the two times, hierarchical's speed-up (flat / hierarchical), and
# the run's wall time and peak memory. NIC=1 runs instead the forms with the
# NICs' send pipelines timed (moe-alltoall*-nic.yaml, and the published
# cluster's moe-alltoall-ndm*.yaml: A100, HDR InfiniBand, 32 MiB a GPU), the
# packet engine against the same scenario on the flow engine, which has no
# per-message NIC term, and prints the pipelines' messages, context misses
# and waits.
source "$(dirname "$0")/sim-common.sh"

# lab_case NAME FILE ENGINE: one run, one summary line.
lab_case() {
	local name=$1 file=$2 engine=$3 tmp
	tmp=$(mktemp -d)
	/usr/bin/time -f "%e %M" -o "$tmp/time" "$FABTUNE" sim "$file" --engine "$engine" \
		--json >"$tmp/out" || { echo "$name $engine: fabtune sim failed"; rm -rf "$tmp"; return 1; }
	python3 - "$name" "$engine" "$tmp/time" "$tmp/out" <<'PY'
import json, sys
name, engine, tpath, opath = sys.argv[1:5]
wall, rss_kb = open(tpath).read().split()[-2:]
doc = json.load(open(opath))
rows = {r["algo"]: r["time_us"] for r in doc["results"]}
flat, hier = rows["direct"], rows["hierarchical"]
st = doc.get("engine_stats", {})
nic = ""
if st.get("nic_messages"):
    nic = "; NIC messages %d, context misses %d, waited %.3f us" % (
        st["nic_messages"], st["nic_context_misses"], st["nic_wait_s"] * 1e6)
print("%s %-6s: flat %9.1f us, hierarchical %9.1f us, flat / hierarchical %.2fx;"
      " wall %.1f s, peak %.0f MB%s" % (name, engine, flat, hier, flat / hier, float(wall),
                                        int(rss_kb) / 1024, nic))
PY
	rm -rf "$tmp"
}

if [ "${NIC:-0}" = 1 ]; then
	for form in "64 scenarios/lab/moe-alltoall-nic.yaml" "512 scenarios/lab/moe-alltoall-512-nic.yaml" \
		"64-A100 scenarios/lab/moe-alltoall-ndm.yaml" "512-A100 scenarios/lab/moe-alltoall-ndm-512.yaml"; do
		set -- $form
		lab_case "$1 GPUs" "$2" packet
		lab_case "$1 GPUs" "$2" flow
	done
	if [ "${FULL:-0}" = 1 ]; then
		lab_case "4096 GPUs" scenarios/lab/moe-alltoall-4096-nic.yaml packet
	fi
	exit 0
fi
for form in "64 scenarios/lab/moe-alltoall.yaml" "512 scenarios/lab/moe-alltoall-512.yaml"; do
	set -- $form
	lab_case "$1 GPUs" "$2" packet
	lab_case "$1 GPUs" "$2" flow
done
if [ "${LARGE:-0}" = 1 ] || [ "${FULL:-0}" = 1 ]; then
	lab_case "1024 GPUs" scenarios/lab/moe-alltoall-1024.yaml packet
	lab_case "1024 GPUs" scenarios/lab/moe-alltoall-1024.yaml flow
fi
if [ "${FULL:-0}" = 1 ]; then
	lab_case "4096 GPUs" scenarios/lab/moe-alltoall-4096.yaml packet
fi

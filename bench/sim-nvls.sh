#!/usr/bin/env bash
# bench/sim-nvls.sh - peak memory and CPU time of the packet engine's NVLS
# tree, ring and tree all-reduces built as their messages may start (the
# default) against the same run built whole before it starts
# (FABTUNE_SIM_EAGER=1), measured in the same go, each under /usr/bin/time
# (docs/internals/sim.md, "Lazy NVLS trees", "Lazy rings and trees"). Every
# line gives both peak RSS figures and their ratio (lazy / whole), both user
# CPU times and their ratio, the flows run, and whether the two JSON outputs
# are the same to the byte (wall time and peak memory aside). Cases:
# bench/sim-nvls.sh [[ALGO/]CLUSTER:SIZE | lab/NAME ...] (ALGO nvls_tree, the
# default, ring or tree; lab/NAME runs scenarios/lab/NAME.yaml as it is),
# default dgx-h100:2 and dgx-h100:4 at 64 MiB, 256 MiB and 1 GiB, NVLS tree
# then ring (the NVLS tree's 1 GiB whole build takes about 260 MB and 14 s of
# CPU, the ring's on 4 nodes about 31 MB and 21 s).
#
# Paced (DCQCN, IB CC, TIMELY) and lossy runs (PFC off, bit errors) are
# built lazily too ("Paced and lossy rings and trees"). The labs, peak RSS
# whole -> lazy, the JSON the same (a shared machine, two runs each):
#   lab/ring-ecmp-dcqcn        15.5 -> 8.6 MB, CPU 1.33 -> 1.33 s
#   lab/ring-ecmp-dcqcn-tuned  16.0 -> 9.1 MB, CPU 1.37 -> 1.37 s
#   lab/ring-ecmp-lossy        16.7 -> 9.8 MB, CPU 1.43 -> 1.46 s
# The incast, spreading and MoE labs have no ring or tree to build lazily.
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/.." || exit 1
[ -x "$fabtune" ] || { echo "build fabtune first (ninja -C build)"; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# nvls_case ALGO CLUSTER SIZE: the whole build, then the lazy one; one line
# (ALGO lab: CLUSTER names scenarios/lab/CLUSTER.yaml, SIZE is not read).
nvls_case() {
	local algo=$1 cluster=$2 size=$3 k eager
	local -a what=("$cluster" --engine packet --op all_reduce --algo "$algo" -b "$size")
	[ "$algo" = lab ] && what=("scenarios/lab/$cluster.yaml")
	for k in whole lazy; do
		eager=0
		[ "$k" = whole ] && eager=1
		FABTUNE_SIM_EAGER=$eager /usr/bin/time -f "%M %U" -o "$tmp/time.$k" "$fabtune" sim \
			"${what[@]}" --json >"$tmp/$k.json" ||
			{ echo "$algo $cluster $size ($k): fabtune sim failed"; return 1; }
		sed -E 's/"(wall_s|peak_rss_bytes)":[^,}]*/"\1":_/g' "$tmp/$k.json" >"$tmp/$k.cmp"
	done
	read -r rss_w cpu_w < <(tail -n 1 "$tmp/time.whole")
	read -r rss_l cpu_l < <(tail -n 1 "$tmp/time.lazy")
	same=differ
	cmp -s "$tmp/whole.cmp" "$tmp/lazy.cmp" && same=same
	echo "$algo $cluster $size: peak $rss_w -> $rss_l KB (x$(ratio "$rss_l" "$rss_w")), CPU" \
		"$cpu_w -> $cpu_l s (x$(ratio "$cpu_l" "$cpu_w")), $(tr -d ' \n' <"$tmp/lazy.json" |
			grep -o '"flows":{"count":[0-9]*' | cut -d: -f3) flows; JSON $same"
}

if [ $# -eq 0 ]; then
	set -- dgx-h100:2:64M dgx-h100:2:256M dgx-h100:2:1G dgx-h100:4:64M dgx-h100:4:256M \
		dgx-h100:4:1G ring/dgx-h100:2:64M ring/dgx-h100:2:256M ring/dgx-h100:2:1G \
		ring/dgx-h100:4:64M ring/dgx-h100:4:256M ring/dgx-h100:4:1G
fi
for c in "$@"; do
	algo=nvls_tree
	case $c in */*) algo=${c%%/*} c=${c#*/} ;; esac
	if [ "$algo" = lab ]; then
		nvls_case lab "$c" -
		continue
	fi
	nvls_case "$algo" "${c%:*}" "${c##*:}"
done

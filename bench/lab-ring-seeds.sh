#!/usr/bin/env bash
# bench/lab-ring-seeds.sh - the ring all-reduce lab under per-QP ECMP
# (docs/scenarios/ecmp-vs-adaptive.md, scenarios/lab/ring-ecmp-dcqcn.yaml:
# 64 MiB over 32 GPUs, packet engine, PFC and DCQCN), one DCQCN or ECN knob
# changed at a time, each over the seeds 1 to SEEDS (default 5; the seed
# moves the ECMP salts, so which ring hops collide). Prints per row every
# seed's all-reduce time, their mean, min, max and standard deviation, and the
# mean against the same ring under adaptive routing (the peer, no collisions)
# measured in the same run, and the flow engine at the same seeds. About 1 s of CPU a
# run, 60 runs: a minute or two.
source "$(dirname "$0")/sim-common.sh"
SEEDS=${SEEDS:-5}
lab=scenarios/lab/ring-ecmp-dcqcn.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# times FILE [fabtune options...]: the all-reduce's time in us at each seed, one a line.
times() {
	local file=$1 s
	shift
	for s in $(seq 1 "$SEEDS"); do
		"$FABTUNE" sim "$file" --seed "$s" --json "$@" >"$tmp/out" ||
			{ echo "fabtune sim $file --seed $s failed" >&2; return 1; }
		python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["time_us"])' \
			"$tmp/out"
	done
}

# row NAME SED-SCRIPT [fabtune options...]: the lab with SED-SCRIPT applied to its file,
# over the seeds (the first row, before $peer_file is set, is the peer itself).
row() {
	local name=$1 script=$2
	shift 2
	sed "$script" "$lab" >"$tmp/lab.yaml"
	if [ -z "${peer_file:-}" ]; then
		cp "$tmp/peer" "$tmp/t"
	else
		times "$tmp/lab.yaml" "$@" >"$tmp/t" || return 1
	fi
	python3 - "$name" "$tmp/t" "$peer" <<'PY'
import statistics, sys
name, tpath, peer = sys.argv[1], sys.argv[2], float(sys.argv[3])
t = [float(x) for x in open(tpath).read().split()]
sd = statistics.stdev(t) if len(t) > 1 else 0.0
print("%-38s %s | mean %9.1f min %9.1f max %9.1f sd %8.1f | %6.2fx adaptive"
      % (name, " ".join("%9.1f" % x for x in t), statistics.mean(t), min(t), max(t), sd,
         statistics.mean(t) / peer))
PY
}

times "$lab" --routing adaptive >"$tmp/peer" || exit 1
peer=$(python3 -c 'import statistics,sys; print(statistics.mean(float(x) for x in open(sys.argv[1]).read().split()))' "$tmp/peer")
echo "seeds 1 to $SEEDS, the ring all-reduce's time in us:"
row "adaptive routing (the peer)" ''
peer_file=$tmp/peer
row "flow engine (the fluid, same ECMP salts)" '' --engine flow
cc='congestion_control: dcqcn'
row "mlx5 defaults" ''
row "congestion_control: none (PFC alone)" "s/$cc/congestion_control: none/"
row "min_time_between_cnps: 50us" "s/  $cc/&\n  min_time_between_cnps: 50us/"
row "min_time_between_cnps: 20us" "s/  $cc/&\n  min_time_between_cnps: 20us/"
row "ecn_kmin: 4MiB, ecn_kmax: 8MiB" "s/  $cc/&\n  ecn_kmin: 4MiB\n  ecn_kmax: 8MiB/"
row "rpg_time_reset: 55us" "s/  $cc/&\n  rpg_time_reset: 55us/"
row "rpg_min_dec_fac: 0.9" "s/  $cc/&\n  rpg_min_dec_fac: 0.9/"
row "rpg_min_dec_fac: 0.98" "s/  $cc/&\n  rpg_min_dec_fac: 0.98/"
row "rpg_byte_reset: 10MiB" "s/  $cc/&\n  rpg_byte_reset: 10MiB/"
row "tuned as ring-ecmp-dcqcn-tuned.yaml" \
	"s/  $cc/&\n  min_time_between_cnps: 2us\n  rpg_min_dec_fac: 0.98\n  rpg_time_reset: 20us/"
